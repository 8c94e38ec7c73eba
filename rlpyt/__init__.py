"""rlpyt: deep reinforcement learning research in PyTorch."""

__version__ = "0.2.0"
