"""Deep-Q agents (DQN, CategoricalDQN): Q-models with target copies and epsilon-greedy sampling."""
