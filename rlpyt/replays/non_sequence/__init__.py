"""Replays of single transitions (DQN family, DDPG, TD3, SAC)."""
