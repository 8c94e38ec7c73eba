"""Config for asynchronous DQN (AsyncRlEval) on CartPole-v1 with the MLP Q-agent.

Read by ``experiments/scripts/classic/dqn/train/cartpole_dqn_async.py``, by the AsyncRl
learning test and by ``benchmarks/async_speed.py``. Sub-dicts are splatted into the
constructors as in ``cartpole_dqn``.

Key "async": ``cartpole_dqn``'s RL-Zoo settings (learning rate 2.3e-3, minibatches of 64,
learning from 1000 steps, epsilon to 0.04 over 8000 steps, Huber loss, gradient clip 10),
changed where the asynchronous runner needs it:

- one env stepping 64 steps per batch (``batch_B=1``, ``batch_T=64``): the sampler waits for
  the optimizer (``AsyncRl``'s ``max_sampler_lead``, default 1 batch), so a short batch keeps
  its lead, and the data's lag behind the trained weights, at 64 steps;
- ``replay_ratio=8``, a quarter of the Zoo's 32, held from both sides by the throttle (the
  logged ``CumReplayRatio`` ends near 7.8 of it): a 50k-step run takes seconds on two cores
  and reaches an evaluation return of 195 (seeds 0-2: by 9,984 to 19,968 steps), though it
  falls back to about 100 later; ``cartpole_dqn``'s ratio 32 (``rlpyt train dqn --env
  CartPole-v1 --runner async``) trains longer and ends at 476 to 500;
- a [64, 64] network and a target copy every 256 updates, so each update is cheap;
- weights published after every update (``updates_per_sync=1``);
- 150k env steps at most, an evaluation of 10 episodes every 5k steps.
"""

import copy
from typing import Any

from rlpyt.experiments.configs.classic.dqn.cartpole_dqn import configs as sync_configs

configs: dict[str, dict[str, Any]] = dict()

config = copy.deepcopy(sync_configs["dqn"])
config["algo"].update(replay_ratio=8, target_update_interval=256, updates_per_sync=1)
config["model"]["hidden_sizes"] = [64, 64]
config["sampler"].update(batch_T=64, batch_B=1)
config["runner"] = dict(n_steps=150_000, log_interval_steps=5000)
configs["async"] = config
