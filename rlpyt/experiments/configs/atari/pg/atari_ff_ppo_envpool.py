"""Configs for PPO with the feed-forward Atari agent on envpool's Atari (``AtariFfAgent``).

Read by ``experiments/scripts/atari/pg/train/atari_ff_ppo_envpool.py`` (sub-dicts splatted into
the constructors as in :mod:`rlpyt.experiments.configs.atari.pg.atari_ff_ppo`; ``env`` goes to
``rlpyt.envs.envpool.make``, the sampler's ``EnvCls``, which builds one envpool vector env per
sampler or worker). The algorithm, agent and sampler settings are those of ``atari_ff_ppo``
"0"; only the backend differs: envpool's own Atari preprocessing (``[4, 84, 84]`` uint8
observations) with rlpyt's AtariEnv defaults where envpool has the knob (episodic lives,
clipped rewards, no FIRE on reset, up to 30 no-op starts, no sticky actions, 27,000-step
episodes). Needs the ``envpool`` extra.

Keys:
    "0": rlpyt's Atari PPO: lr 1e-3 decayed linearly, GAE lambda 0.98, 64 steps x 32 envs per
        batch (PPO's default 4 minibatches x 4 epochs, ratio clip 0.1), 50M steps, a log every
        100k steps, on ``Pong-v5``.
"""

import copy
from typing import Any

from rlpyt.experiments.configs.atari.pg.atari_ff_ppo import configs as per_env_configs

configs: dict[str, dict[str, Any]] = dict()

config: dict[str, Any] = copy.deepcopy(per_env_configs["0"])
config["env"] = dict(task_id="Pong-v5")
config["runner"]["log_interval_steps"] = 1e5  # MinibatchRl's default, here for variants
configs["0"] = config
