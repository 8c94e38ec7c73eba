"""Config for SAC_V on Pendulum-v1 (the first SAC: a state-value network, a fixed temperature).

Read by the command line (``rlpyt train sac_v``, whose default it is on Pendulum) and its
learning test. Sub-dicts are splatted into the constructors (``SAC_V``,
``rlpyt.agents.qpg.sac_v_agent.SacAgent``, ``SerialSampler``, ``MinibatchRlEval``); ``env``
and ``eval_env`` go to ``rlpyt.envs.gym.make``.

Keys:
    "sac_v": ``classic.qpg.pendulum_sac`` "sac" (the RL Zoo's Pendulum SAC: batch 256, one
        update per step, learning rate 1e-3, learning from step 100, 20k steps) with what
        SAC_V does differently: no learned temperature (no ``target_entropy``); the fixed
        temperature is 1 / ``reward_scale``, here 0.2 (``reward_scale=5``, the first SAC
        paper's); 256-256 MLPs for pi, both Qs and V.
"""

import copy
from typing import Any

from rlpyt.experiments.configs.classic.qpg.pendulum_sac import configs as sac_configs

configs: dict[str, dict[str, Any]] = dict()

config: dict[str, Any] = copy.deepcopy(sac_configs["sac"])
del config["algo"]["target_entropy"]
config["algo"]["reward_scale"] = 5
config["agent"]["v_model_kwargs"] = dict(hidden_sizes=[256, 256])
configs["sac_v"] = config
