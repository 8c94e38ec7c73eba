"""Q-function policy gradients: DDPG, TD3, SAC and rlpyt's SAC_V (shared parts in ``base``)."""
