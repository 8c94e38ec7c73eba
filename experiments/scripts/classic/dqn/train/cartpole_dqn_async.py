"""Train DQN on CartPole-v1 with AsyncRlEval (sampler, memory copiers, optimizer in processes).

rlpyt's train-script contract (``run_experiments`` starts it so)::

    python cartpole_dqn_async.py <slot_affinity_code> <log_dir> <run_ID> <config_key>

Use an asynchronous affinity code (``encode_affinity(n_cpu_core=2, async_sample=True)``: the
optimizer on one core, the sampler on the other, no GPU needed). Config:
``configs[config_key]`` of ``rlpyt.experiments.configs.classic.dqn.cartpole_dqn_async`` (key
"async"), updated by the variant in ``<log_dir>/variant_config.json``. Logs to
``<log_dir>/run_<run_ID>/``.
"""

import sys

from rlpyt.agents.dqn.classic import ClassicDqnAgent
from rlpyt.algos.dqn.dqn import DQN
from rlpyt.envs.gym import make as gym_make
from rlpyt.experiments.configs.classic.dqn.cartpole_dqn_async import configs
from rlpyt.runners.async_rl import AsyncRlEval
from rlpyt.samplers.async_.collectors import DbCpuResetCollector
from rlpyt.samplers.async_.serial_sampler import AsyncSerialSampler
from rlpyt.utils.launching.affinity import affinity_from_code
from rlpyt.utils.launching.variant import load_variant, update_config
from rlpyt.utils.logging.context import logger_context

# AsyncCpuSampler (same keywords) runs the envs in worker processes instead.
SamplerCls = AsyncSerialSampler
CollectorCls = DbCpuResetCollector


def build_runner(config, affinity=None, SamplerCls=SamplerCls):  # noqa: N803
    """Sampler, algorithm, agent and runner for one config; nothing starts until train()."""
    sampler = SamplerCls(
        EnvCls=gym_make,
        env_kwargs=config["env"],
        CollectorCls=CollectorCls,
        eval_env_kwargs=config["eval_env"],
        **config["sampler"],
    )
    algo = DQN(optim_kwargs=config["optim"], **config["algo"])
    agent = ClassicDqnAgent(model_kwargs=config["model"], **config["agent"])
    return AsyncRlEval(
        algo=algo, agent=agent, sampler=sampler, affinity=affinity, **config["runner"]
    )


def build_and_train(slot_affinity_code, log_dir, run_ID, config_key):
    affinity = affinity_from_code(slot_affinity_code)
    config = update_config(configs[config_key], load_variant(log_dir))
    runner = build_runner(config, affinity)
    with logger_context(log_dir, run_ID, config["env"]["id"], config):
        runner.train()


if __name__ == "__main__":
    build_and_train(*sys.argv[1:])
