"""Every runner's and collector's constructor is the one rlpyt scripts and the samplers call.

``RECORDED`` holds, for each public runner class and each collector class, its
``inspect.signature`` as text without annotations (names, kinds, defaults, in order): the
constructors must match it exactly, so a declaration that moves, renames, re-defaults or
changes the kind of a keyword fails here. Annotations are left out: they are documentation,
not part of what a call binds. The double-buffer collectors take the keywords of every
training collector (the asynchronous samplers pass them by name).
"""

import inspect

import pytest

from rlpyt.runners.async_rl import AsyncRl, AsyncRlBase, AsyncRlEval
from rlpyt.runners.base import BaseRunner, TrainingRunnerBase
from rlpyt.runners.minibatch_rl import MinibatchRl, MinibatchRlBase, MinibatchRlEval
from rlpyt.runners.sync_rl import SyncRl, SyncRlEval, SyncRlMixin
from rlpyt.samplers import cpu, gpu, paralell
from rlpyt.samplers.agent_collectors import (
    CpuCollectorBase,
    CpuResetCollector,
    CpuWaitResetCollector,
)
from rlpyt.samplers.async_.collectors import (
    DbCpuResetCollector,
    DbCpuWaitResetCollector,
    DbGpuResetCollector,
    DbGpuWaitResetCollector,
    DoubleBufferCollectorMixin,
)
from rlpyt.samplers.collectors import BaseCollector, DecorrelatingStartCollector, WaitResetMixin
from rlpyt.samplers.cpu import collectors as cpu_collectors
from rlpyt.samplers.evaluation import (
    BaseEvalCollector,
    CpuEvalCollector,
    SerialEvalCollector,
)
from rlpyt.samplers.gpu import collectors as gpu_collectors
from rlpyt.samplers.paralell.gpu import collectors as paralell_gpu_collectors
from rlpyt.samplers.parallel.cpu import collectors as parallel_cpu_collectors
from rlpyt.samplers.parallel.gpu.collectors import (
    GpuEvalCollector,
    GpuResetCollector,
    GpuWaitResetCollector,
)
from rlpyt.samplers.serial import collectors as serial_collectors
from rlpyt.samplers.vector import VecCollectorMixin

assert cpu and gpu and paralell  # the alias packages import

MINIBATCH = (
    "(algo, agent, sampler, n_steps, seed=None, affinity=None, log_interval_steps=100000.0, "
    "target_reward=None, check_finite=True)"
)
MINIBATCH_WINDOW = (
    "(algo, agent, sampler, n_steps, seed=None, affinity=None, log_interval_steps=100000.0, "
    "log_traj_window=100, target_reward=None, check_finite=True)"
)
ASYNC = (
    "(algo, agent, sampler, n_steps, affinity=None, seed=None, log_interval_steps=100000.0, "
    "max_sampler_lead=1, check_finite=True)"
)
COLLECTOR = (
    "(rank, envs, samples_np, batch_T, TrajInfoCls, agent=None, sync=None, "
    "step_buffer_np=None, global_B=1, env_ranks=None, seed=None)"
)
EVAL_COLLECTOR = (
    "(rank, envs, TrajInfoCls, traj_infos_queue=None, max_T=1000, agent=None, sync=None, "
    "step_buffer_np=None, max_trajectories=None)"
)

RECORDED = {
    BaseRunner: "()",
    TrainingRunnerBase: MINIBATCH,
    MinibatchRlBase: MINIBATCH,
    MinibatchRl: MINIBATCH_WINDOW,
    MinibatchRlEval: MINIBATCH,
    SyncRlMixin: MINIBATCH,
    SyncRl: MINIBATCH_WINDOW,
    SyncRlEval: MINIBATCH,
    AsyncRlBase: ASYNC,
    AsyncRl: (
        "(algo, agent, sampler, n_steps, affinity=None, seed=None, "
        "log_interval_steps=100000.0, log_traj_window=100, max_sampler_lead=1)"
    ),
    AsyncRlEval: ASYNC,
    BaseCollector: COLLECTOR,
    DecorrelatingStartCollector: COLLECTOR,
    WaitResetMixin: COLLECTOR,
    CpuCollectorBase: COLLECTOR,
    CpuResetCollector: COLLECTOR,
    CpuWaitResetCollector: COLLECTOR,
    GpuResetCollector: COLLECTOR,
    GpuWaitResetCollector: COLLECTOR,
    DoubleBufferCollectorMixin: COLLECTOR,
    DbCpuResetCollector: COLLECTOR,
    DbCpuWaitResetCollector: COLLECTOR,
    DbGpuResetCollector: COLLECTOR,
    DbGpuWaitResetCollector: COLLECTOR,
    BaseEvalCollector: EVAL_COLLECTOR,
    CpuEvalCollector: EVAL_COLLECTOR,
    GpuEvalCollector: EVAL_COLLECTOR,
    SerialEvalCollector: "(envs, agent, TrajInfoCls, max_T, max_trajectories=None)",
}

# rlpyt's other import paths of these classes: (module, name) -> the class.
ALIASES = {
    (cpu_collectors, "ResetCollector"): CpuResetCollector,
    (cpu_collectors, "WaitResetCollector"): CpuWaitResetCollector,
    (cpu_collectors, "EvalCollector"): CpuEvalCollector,
    (gpu_collectors, "ResetCollector"): GpuResetCollector,
    (gpu_collectors, "WaitResetCollector"): GpuWaitResetCollector,
    (gpu_collectors, "EvalCollector"): GpuEvalCollector,
    (paralell_gpu_collectors, "GpuWaitResetCollector"): GpuWaitResetCollector,
    (parallel_cpu_collectors, "CpuResetCollector"): CpuResetCollector,
    (parallel_cpu_collectors, "CpuWaitResetCollector"): CpuWaitResetCollector,
    (parallel_cpu_collectors, "CpuEvalCollector"): CpuEvalCollector,
    (serial_collectors, "SerialEvalCollector"): SerialEvalCollector,
}


def signature_text(cls):
    """``str(inspect.signature(cls))`` without annotations."""
    signature = inspect.signature(cls)
    parameters = [
        p.replace(annotation=inspect.Parameter.empty) for p in signature.parameters.values()
    ]
    return str(signature.replace(parameters=parameters, return_annotation=inspect.Signature.empty))


@pytest.mark.parametrize("cls", list(RECORDED), ids=lambda cls: cls.__name__)
def test_signature_is_the_recorded_one(cls):
    assert signature_text(cls) == RECORDED[cls]


def test_every_runner_and_collector_class_is_recorded():
    def subclasses(cls):
        for sub in cls.__subclasses__():
            yield sub
            yield from subclasses(sub)

    found = {
        cls
        for root in (BaseRunner, BaseCollector, BaseEvalCollector)
        for cls in (root, *subclasses(root))
        if cls.__module__.startswith("rlpyt.") and not issubclass(cls, VecCollectorMixin)
    }
    assert found == set(RECORDED)


@pytest.mark.parametrize(
    "alias", list(ALIASES), ids=lambda alias: f"{alias[0].__name__}.{alias[1]}"
)
def test_rlpyt_import_paths_name_the_recorded_classes(alias):
    module, name = alias
    assert getattr(module, name) is ALIASES[alias]
