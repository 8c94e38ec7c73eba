"""Example 3: A2C on Atari (AtariEnv on ale-py), in rlpyt's style, with a choice of sampler.

``python examples/example_3.py --game pong --n_steps 50e6 [--sampler cpu] [--n_workers 2]
[--cuda_idx 0]``. Uses the configuration of rlpyt's Atari A2C experiments (batch_T=5,
batch_B=16 here). Samplers (see docs/samplers.md):

- ``serial``: everything in this process;
- ``cpu``: worker processes each step their envs with their own agent copy (shared weights);
- ``gpu``: workers step envs, this process runs one batched forward per step (on the GPU if
  ``--cuda_idx`` is given, else the CPU);
- ``alternating``: like gpu, with two worker groups whose env steps overlap the forward pass.
"""

import argparse

from rlpyt.agents.pg.atari import AtariFfAgent
from rlpyt.algos.pg.a2c import A2C
from rlpyt.envs.atari.atari_env import AtariEnv, AtariTrajInfo
from rlpyt.runners.minibatch_rl import MinibatchRl
from rlpyt.samplers.parallel.cpu.collectors import CpuResetCollector
from rlpyt.samplers.parallel.cpu.sampler import CpuSampler
from rlpyt.samplers.parallel.gpu.alternating_sampler import AlternatingSampler
from rlpyt.samplers.parallel.gpu.collectors import GpuResetCollector
from rlpyt.samplers.parallel.gpu.sampler import GpuSampler
from rlpyt.samplers.serial.sampler import SerialSampler
from rlpyt.utils.launching.cpus import allowed_cpus
from rlpyt.utils.logging.context import logger_context

SAMPLERS = {
    "serial": (SerialSampler, CpuResetCollector),
    "cpu": (CpuSampler, CpuResetCollector),
    "gpu": (GpuSampler, GpuResetCollector),
    "alternating": (AlternatingSampler, GpuResetCollector),
}


def make_affinity(sampler, cuda_idx, n_workers):
    """rlpyt's example-3 style affinity: one worker per CPU; alternating lists them twice."""
    cpus = list(allowed_cpus())
    workers_cpus = [cpus[i % len(cpus)] for i in range(n_workers or len(cpus))]
    affinity = dict(cuda_idx=cuda_idx, workers_cpus=workers_cpus)
    if sampler == "alternating":
        affinity["workers_cpus"] = workers_cpus + workers_cpus  # two groups
        affinity["alternating"] = True
    return affinity


def build_and_train(
    game="pong",
    run_ID=0,
    cuda_idx=None,
    n_steps=50e6,
    batch_B=16,
    sampler="serial",
    n_workers=0,
    log_interval_steps=1e5,
):
    SamplerCls, CollectorCls = SAMPLERS[sampler]
    sampler_obj = SamplerCls(
        EnvCls=AtariEnv,
        TrajInfoCls=AtariTrajInfo,
        env_kwargs=dict(game=game),
        CollectorCls=CollectorCls,
        batch_T=5,
        batch_B=batch_B,
        max_decorrelation_steps=400,
    )
    algo = A2C(learning_rate=7e-4, clip_grad_norm=0.5)
    agent = AtariFfAgent()
    runner = MinibatchRl(
        algo=algo,
        agent=agent,
        sampler=sampler_obj,
        n_steps=n_steps,
        log_interval_steps=log_interval_steps,
        affinity=make_affinity(sampler, cuda_idx, n_workers),
    )
    config = dict(game=game, batch_B=batch_B, sampler=sampler)
    with logger_context("example_3", run_ID, "a2c_" + game, config):
        runner.train()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--game", default="pong")
    parser.add_argument("--run_ID", type=int, default=0)
    parser.add_argument("--cuda_idx", type=int, default=None)
    parser.add_argument("--n_steps", type=float, default=50e6)
    parser.add_argument("--batch_B", type=int, default=16)
    parser.add_argument("--sampler", choices=sorted(SAMPLERS), default="serial")
    parser.add_argument("--n_workers", type=int, default=0, help="0: one per allowed CPU")
    parser.add_argument("--log_interval_steps", type=float, default=1e5)
    args = parser.parse_args()
    build_and_train(
        args.game,
        args.run_ID,
        args.cuda_idx,
        args.n_steps,
        args.batch_B,
        args.sampler,
        args.n_workers,
        args.log_interval_steps,
    )
