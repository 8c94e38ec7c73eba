"""Q-value models of the deep-Q family (DQN, CategoricalDQN): Atari conv nets and classic MLPs."""
