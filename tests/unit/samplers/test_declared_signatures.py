"""Every sampler's constructor, derived from its declarations, is the one rlpyt scripts call.

The samplers declare their keywords once (``rlpyt.utils.hyperparams``): BaseSampler the shared
ones, ParallelSamplerBase its two keyword-only ones, and each sampler only the defaults it
changes. ``RECORDED`` holds each class's ``inspect.signature`` (name, kind, default, in order):
the derived ones must match it exactly, so a declaration that moves, renames, re-defaults or
changes the kind of a keyword fails here. ``ASYNC_ALTERNATING``: the asynchronous alternating
samplers take AlternatingSampler's list with the double-buffer collector.
"""

import inspect
import pydoc

import pytest

from rlpyt.samplers.agent_collectors import CpuResetCollector as SerialResetCollector
from rlpyt.samplers.async_.action_server import (
    AsyncActionServer,
    AsyncAlternatingActionServer,
    AsyncNoOverlapAlternatingActionServer,
)
from rlpyt.samplers.async_.alternating_sampler import (
    AsyncAlternatingSampler,
    AsyncNoOverlapAlternatingSampler,
)
from rlpyt.samplers.async_.async_cpu_sampler import AsyncCpuSampler as EarlyAsyncCpuSampler
from rlpyt.samplers.async_.base import AsyncParallelSamplerMixin, AsyncSamplerMixin
from rlpyt.samplers.async_.collectors import DbCpuResetCollector, DbGpuResetCollector
from rlpyt.samplers.async_.cpu_sampler import AsyncCpuSampler
from rlpyt.samplers.async_.gpu_sampler import AsyncGpuSampler
from rlpyt.samplers.async_.serial_sampler import AsyncSerialSampler
from rlpyt.samplers.base import BaseSampler
from rlpyt.samplers.collections import TrajInfo
from rlpyt.samplers.cpu.parallel_sampler import CpuParallelSampler
from rlpyt.samplers.evaluation import SerialEvalCollector
from rlpyt.samplers.parallel.base import ParallelSamplerBase
from rlpyt.samplers.parallel.cpu.collectors import CpuEvalCollector, CpuResetCollector
from rlpyt.samplers.parallel.cpu.sampler import CpuSampler
from rlpyt.samplers.parallel.gpu.action_server import (
    ActionServer,
    AlternatingActionServer,
    NoOverlapAlternatingActionServer,
)
from rlpyt.samplers.parallel.gpu.alternating_sampler import (
    AlternatingSampler,
    AlternatingSamplerBase,
    NoOverlapAlternatingSampler,
)
from rlpyt.samplers.parallel.gpu.collectors import GpuEvalCollector, GpuResetCollector
from rlpyt.samplers.parallel.gpu.sampler import GpuSampler, GpuSamplerBase
from rlpyt.samplers.serial_sampler import SerialSampler
from tests.unit.samplers.sampler_helpers import ProbeEnv

P = inspect.Parameter.POSITIONAL_OR_KEYWORD
K = inspect.Parameter.KEYWORD_ONLY
REQUIRED = inspect.Parameter.empty


def keywords(collector=REQUIRED, eval_collector=None, parallel=True):
    """BaseSampler's list (with the two collector defaults), plus the parallel samplers' two."""
    listed = [
        ("EnvCls", P, REQUIRED),
        ("env_kwargs", P, REQUIRED),
        ("batch_T", P, REQUIRED),
        ("batch_B", P, REQUIRED),
        ("CollectorCls", P, collector),
        ("max_decorrelation_steps", P, 100),
        ("TrajInfoCls", P, TrajInfo),
        ("eval_n_envs", P, 0),
        ("eval_CollectorCls", P, eval_collector),
        ("eval_env_kwargs", P, None),
        ("eval_max_steps", P, None),
        ("eval_max_trajectories", P, None),
    ]
    return listed + ([("start_method", K, None), ("worker_timeout", K, 600.0)] if parallel else [])


GPU = keywords(GpuResetCollector, GpuEvalCollector)
RECORDED = {
    BaseSampler: keywords(parallel=False),
    SerialSampler: keywords(SerialResetCollector, SerialEvalCollector, parallel=False),
    ParallelSamplerBase: keywords(),
    CpuSampler: keywords(CpuResetCollector, CpuEvalCollector),
    GpuSamplerBase: GPU,
    GpuSampler: GPU,
    AlternatingSamplerBase: GPU,
    AlternatingSampler: GPU,
    NoOverlapAlternatingSampler: GPU,
    AsyncSerialSampler: keywords(DbCpuResetCollector, SerialEvalCollector, parallel=False),
    AsyncCpuSampler: keywords(DbCpuResetCollector, CpuEvalCollector),
    AsyncGpuSampler: keywords(DbGpuResetCollector, GpuEvalCollector),
}
ASYNC_ALTERNATING = {
    AsyncAlternatingSampler: keywords(DbGpuResetCollector, GpuEvalCollector),
    AsyncNoOverlapAlternatingSampler: keywords(DbGpuResetCollector, GpuEvalCollector),
}
# The sampler bases that the servers and the asynchronous samplers extend.
BASES = {
    ActionServer: keywords(),
    AlternatingActionServer: keywords(),
    NoOverlapAlternatingActionServer: keywords(),
    AsyncSamplerMixin: keywords(parallel=False),
    AsyncParallelSamplerMixin: keywords(),
    AsyncActionServer: keywords(),
    AsyncAlternatingActionServer: keywords(),
    AsyncNoOverlapAlternatingActionServer: keywords(),
}
ALL = {**RECORDED, **ASYNC_ALTERNATING, **BASES}


def listed(cls):
    return [(p.name, p.kind, p.default) for p in inspect.signature(cls).parameters.values()]


@pytest.mark.parametrize("cls", list(ALL), ids=lambda cls: cls.__name__)
def test_signature_is_the_recorded_one(cls):
    assert listed(cls) == ALL[cls]


def test_every_sampler_class_is_recorded():
    def subclasses(cls):
        for sub in cls.__subclasses__():
            yield sub
            yield from subclasses(sub)

    found = {cls for cls in subclasses(BaseSampler) if cls.__module__.startswith("rlpyt.")}
    assert found == set(ALL) - {BaseSampler}
    assert CpuParallelSampler is CpuSampler and EarlyAsyncCpuSampler is AsyncCpuSampler


@pytest.mark.parametrize("cls", list(ALL), ids=lambda cls: cls.__name__)
def test_help_lists_every_keyword_with_its_default(cls):
    text = pydoc.render_doc(cls, renderer=pydoc.plaintext)
    for name, kind, default in ALL[cls]:
        line = next(line for line in text.splitlines() if line.lstrip(" |").startswith(f"{name} ("))
        if default is REQUIRED:
            assert "Required." in line, line
        else:
            shown = (
                f"{default.__module__}.{default.__qualname__}"
                if inspect.isclass(default)
                else repr(default)
            )
            assert f"Default: ``{shown}``" in line, line
        assert ("Keyword-only." in line) == (kind is K), line


def test_positional_call_binds_rlpyt_order():
    sampler = SerialSampler(ProbeEnv, {}, 4, 2, SerialResetCollector, 0)
    assert sampler.batch_spec == (4, 2) and sampler.max_decorrelation_steps == 0
    assert sampler.env_kwargs == {} and sampler.eval_env_kwargs == {}


def test_async_alternating_samplers_take_the_gpu_keywords_with_their_collector():
    sampler = AsyncAlternatingSampler(
        ProbeEnv, {}, 4, 2, eval_n_envs=2, eval_max_steps=20, worker_timeout=5
    )
    assert sampler.CollectorCls is DbGpuResetCollector
    assert sampler.eval_CollectorCls is GpuEvalCollector
    assert sampler.worker_timeout == 5.0 and isinstance(sampler.worker_timeout, float)


@pytest.mark.parametrize("cls", [CpuSampler, AsyncSerialSampler, AsyncAlternatingSampler])
def test_keyword_only_stays_keyword_only_and_required_stays_required(cls):
    with pytest.raises(TypeError, match="missing a required argument: 'batch_B'"):
        cls(ProbeEnv, {}, 4)
    if cls is not AsyncSerialSampler:
        with pytest.raises(TypeError, match="too many positional arguments"):
            cls(ProbeEnv, {}, 4, 2, None, 100, TrajInfo, 0, None, None, None, None, "fork")


def test_start_method_is_checked_with_its_message():
    with pytest.raises(ValueError, match=r"^start_method must be one of \('fork', 'forkserver'"):
        CpuSampler(ProbeEnv, {}, 4, 2, start_method="thread")
