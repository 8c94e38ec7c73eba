"""Q-function policy-gradient models (DDPG, TD3, SAC): policy, Q-function and value MLPs."""
