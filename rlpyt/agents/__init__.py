"""Agents: the policy side of RL, wrapping a model and a distribution for samplers and algos."""
