"""Sampler constructors spell out rlpyt's keywords: IDEs and type checkers see them all."""

import inspect

import pytest

from rlpyt.protocols import Sampler
from rlpyt.samplers.collections import TrajInfo
from rlpyt.samplers.parallel.cpu.collectors import CpuEvalCollector, CpuResetCollector
from rlpyt.samplers.parallel.cpu.sampler import CpuSampler
from rlpyt.samplers.parallel.gpu.alternating_sampler import (
    AlternatingSampler,
    NoOverlapAlternatingSampler,
)
from rlpyt.samplers.parallel.gpu.collectors import GpuEvalCollector, GpuResetCollector
from rlpyt.samplers.parallel.gpu.sampler import GpuSampler
from rlpyt.samplers.serial.collectors import SerialEvalCollector
from rlpyt.samplers.serial.sampler import SerialSampler
from tests.unit.samplers.sampler_helpers import ProbeEnv

REQUIRED = object()  # marks a keyword without default

# rlpyt's BaseSampler keywords, in rlpyt's order, with rlpyt's defaults (CollectorCls and
# eval_CollectorCls: per class, below).
RLPYT_KEYWORDS = [
    ("EnvCls", REQUIRED),
    ("env_kwargs", REQUIRED),
    ("batch_T", REQUIRED),
    ("batch_B", REQUIRED),
    ("CollectorCls", None),
    ("max_decorrelation_steps", 100),
    ("TrajInfoCls", TrajInfo),
    ("eval_n_envs", 0),
    ("eval_CollectorCls", None),
    ("eval_env_kwargs", None),
    ("eval_max_steps", None),
    ("eval_max_trajectories", None),
]

SAMPLERS = [
    (SerialSampler, CpuResetCollector, SerialEvalCollector),
    (CpuSampler, CpuResetCollector, CpuEvalCollector),
    (GpuSampler, GpuResetCollector, GpuEvalCollector),
    (AlternatingSampler, GpuResetCollector, GpuEvalCollector),
    (NoOverlapAlternatingSampler, GpuResetCollector, GpuEvalCollector),
]


def expected_defaults(collector_cls, eval_collector_cls):
    per_class = dict(CollectorCls=collector_cls, eval_CollectorCls=eval_collector_cls)
    return [(name, per_class.get(name, default)) for name, default in RLPYT_KEYWORDS]


@pytest.mark.parametrize("SamplerCls, CollectorCls, EvalCollectorCls", SAMPLERS)
def test_signature_lists_rlpyt_keywords_with_their_defaults(
    SamplerCls, CollectorCls, EvalCollectorCls
):
    parameters = list(inspect.signature(SamplerCls).parameters.values())
    listed = [
        (p.name, REQUIRED if p.default is inspect.Parameter.empty else p.default)
        for p in parameters[: len(RLPYT_KEYWORDS)]
    ]
    assert listed == expected_defaults(CollectorCls, EvalCollectorCls)
    for p in parameters[: len(RLPYT_KEYWORDS)]:  # rlpyt's keywords can also be positional
        assert p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD, p.name


@pytest.mark.parametrize("SamplerCls", [s[0] for s in SAMPLERS])
def test_signature_has_no_pass_through(SamplerCls):
    kinds = {p.kind for p in inspect.signature(SamplerCls).parameters.values()}
    assert inspect.Parameter.VAR_POSITIONAL not in kinds
    assert inspect.Parameter.VAR_KEYWORD not in kinds


@pytest.mark.parametrize("SamplerCls", [s[0] for s in SAMPLERS])
def test_misspelt_keyword_fails_at_construction(SamplerCls):
    with pytest.raises(TypeError, match="batch_TT"):
        SamplerCls(EnvCls=ProbeEnv, env_kwargs={}, batch_T=5, batch_B=2, batch_TT=5)


@pytest.mark.parametrize("SamplerCls", [CpuSampler, GpuSampler, AlternatingSampler])
def test_parallel_extras_are_keyword_only(SamplerCls):
    parameters = inspect.signature(SamplerCls).parameters
    for name, default in [("start_method", None), ("worker_timeout", 600.0)]:
        assert parameters[name].kind is inspect.Parameter.KEYWORD_ONLY
        assert parameters[name].default == default


@pytest.mark.parametrize("SamplerCls", [s[0] for s in SAMPLERS])
def test_initialize_takes_rlpyt_keywords(SamplerCls):
    parameters = inspect.signature(SamplerCls.initialize).parameters
    names = ["agent", "affinity", "seed", "bootstrap_value", "traj_info_kwargs"]
    assert list(parameters)[1 : 1 + len(names)] == names
    assert {"rank", "world_size"} <= set(parameters)
    kinds = {p.kind for p in parameters.values()}
    assert inspect.Parameter.VAR_POSITIONAL not in kinds
    assert inspect.Parameter.VAR_KEYWORD not in kinds


@pytest.mark.parametrize("SamplerCls", [s[0] for s in SAMPLERS])
def test_every_sampler_is_a_sampler_protocol(SamplerCls):
    sampler = SamplerCls(EnvCls=ProbeEnv, env_kwargs={}, batch_T=5, batch_B=2)
    assert isinstance(sampler, Sampler)
    assert sampler.batch_size == 10
