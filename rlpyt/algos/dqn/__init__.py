"""The deep Q-learning family: DQN and CategoricalDQN (R2D1 follows in ``r2d1.py``)."""
