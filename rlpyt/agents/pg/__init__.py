"""Policy-gradient agents (A2C, PPO): categorical for discrete actions, Gaussian for continuous."""
