"""Collector keywords are declared once, on the two collector bases; every sampler's call binds.

``BaseCollector`` and ``BaseEvalCollector`` declare the plumbing a sampler passes
(``rlpyt.utils.hyperparams``); collector classes declare nothing but what they change
(``SerialEvalCollector``'s rlpyt order, the double buffer's ``samples_np``). The keyword sets
below are those the samplers pass (``rlpyt.samplers.serial.sampler``,
``rlpyt.samplers.parallel.worker``, ``rlpyt.samplers.async_.serial_sampler``).
"""

import inspect

import numpy as np
import pytest

from rlpyt.agents.pg.classic import ClassicFfAgent
from rlpyt.samplers.agent_collectors import CpuResetCollector, CpuWaitResetCollector
from rlpyt.samplers.async_.collectors import (
    DbCpuResetCollector,
    DbCpuWaitResetCollector,
    DbGpuResetCollector,
    DbGpuWaitResetCollector,
)
from rlpyt.samplers.collections import TrajInfo
from rlpyt.samplers.collectors import BaseCollector
from rlpyt.samplers.evaluation import (
    BaseEvalCollector,
    CpuEvalCollector,
    SerialEvalCollector,
)
from rlpyt.samplers.parallel.gpu.collectors import (
    GpuEvalCollector,
    GpuResetCollector,
    GpuWaitResetCollector,
)
from rlpyt.samplers.vector import VecCollectorMixin
from tests.unit.samplers.sampler_helpers import ProbeEnv

TRAINING = (
    CpuResetCollector,
    CpuWaitResetCollector,
    GpuResetCollector,
    GpuWaitResetCollector,
    DbCpuResetCollector,
    DbCpuWaitResetCollector,
    DbGpuResetCollector,
    DbGpuWaitResetCollector,
)
EVALUATION = (CpuEvalCollector, GpuEvalCollector)

SERIAL_CALL = "rank envs samples_np batch_T TrajInfoCls agent global_B env_ranks seed".split()
WORKER_CALL = SERIAL_CALL[:6] + ["sync", "step_buffer_np"] + SERIAL_CALL[6:]
ASYNC_SERIAL_CALL = SERIAL_CALL[:6] + ["sync"] + SERIAL_CALL[6:]
WORKER_EVAL_CALL = "rank envs TrajInfoCls max_T agent sync step_buffer_np max_trajectories".split()
SERIAL_EVAL_CALL = "envs agent TrajInfoCls max_T max_trajectories".split()


def vector_twin(cls):
    return type("Vec" + cls.__name__, (VecCollectorMixin, cls), {})


def own_declarations(cls):
    return {
        klass.__name__: set(vars(klass).get("__own_hyperparams__", {}))
        for klass in cls.__mro__
        if vars(klass).get("__own_hyperparams__")
    }


@pytest.mark.parametrize("cls", TRAINING, ids=lambda cls: cls.__name__)
def test_training_collectors_declare_nothing_of_their_own(cls):
    declared = own_declarations(cls)
    base = declared.pop("BaseCollector")
    assert base == set(inspect.signature(BaseCollector).parameters)
    # The double buffer states what its samples_np is; nothing else is re-declared.
    assert declared in ({}, {"DoubleBufferCollectorMixin": {"samples_np"}})


@pytest.mark.parametrize("cls", EVALUATION, ids=lambda cls: cls.__name__)
def test_eval_collectors_declare_nothing_of_their_own(cls):
    assert own_declarations(cls) == {
        "BaseEvalCollector": set(inspect.signature(BaseEvalCollector).parameters)
    }


@pytest.mark.parametrize("cls", TRAINING, ids=lambda cls: cls.__name__)
@pytest.mark.parametrize("call", [SERIAL_CALL, WORKER_CALL, ASYNC_SERIAL_CALL])
def test_every_sampler_call_binds_every_training_collector(cls, call):
    for klass in (cls, vector_twin(cls)):
        inspect.signature(klass).bind(**dict.fromkeys(call))


@pytest.mark.parametrize("cls", EVALUATION, ids=lambda cls: cls.__name__)
def test_the_worker_call_binds_every_eval_collector(cls):
    for klass in (cls, vector_twin(cls)):
        inspect.signature(klass).bind(**dict.fromkeys(WORKER_EVAL_CALL))


def test_the_serial_sampler_call_binds_its_eval_collector():
    for klass in (SerialEvalCollector, vector_twin(SerialEvalCollector)):
        inspect.signature(klass).bind(**dict.fromkeys(SERIAL_EVAL_CALL))
        with pytest.raises(TypeError):  # the parallel plumbing is fixed, not a keyword
            inspect.signature(klass).bind(**dict.fromkeys(SERIAL_EVAL_CALL), rank=0)


def test_vector_twins_keep_the_constructor():
    for cls in (*TRAINING, *EVALUATION, SerialEvalCollector):
        twin = vector_twin(cls)
        assert twin.__hyperparams__.keys() == cls.__hyperparams__.keys()
        assert inspect.signature(twin) == inspect.signature(cls)


def test_a_collector_stores_its_keywords_and_resolves_env_ranks():
    envs = [ProbeEnv() for _ in range(3)]
    collector = CpuResetCollector(0, envs, None, 4, TrajInfo)
    assert collector.envs is envs and collector.batch_T == 4 and collector.global_B == 1
    assert collector.env_ranks == [0, 1, 2] and collector.agent is None
    ranks = (5, 6, 7)
    collector = GpuWaitResetCollector(1, envs, None, 4, TrajInfo, env_ranks=ranks, seed=3)
    assert collector.env_ranks == [5, 6, 7] and collector.seed == 3


def test_a_missing_or_misspelt_keyword_fails_by_name():
    envs = [ProbeEnv()]
    with pytest.raises(TypeError, match="missing a required argument: 'TrajInfoCls'"):
        CpuResetCollector(rank=0, envs=envs, samples_np=None, batch_T=4)
    with pytest.raises(TypeError, match=r"'env_rank' \(did you mean 'env_ranks'\?\)"):
        CpuResetCollector(0, envs, None, 4, TrajInfo, env_rank=[0])


def test_the_double_buffer_takes_the_pair_of_halves():
    halves = (np.zeros(2), np.ones(2))
    collector = DbCpuResetCollector(0, [ProbeEnv()], halves, 4, TrajInfo)
    assert collector.double_buffer == halves and collector.samples_np is halves[0]
    with pytest.raises(TypeError, match="DbGpuResetCollector writes into a double buffer"):
        DbGpuResetCollector(0, [ProbeEnv()], np.zeros(2), 4, TrajInfo)


def test_the_serial_eval_collector_takes_rlpyt_order_with_the_plumbing_fixed():
    agent = ClassicFfAgent()
    envs = [ProbeEnv() for _ in range(2)]
    collector = SerialEvalCollector(envs, agent, TrajInfo, 30.0, 4)
    assert (collector.rank, collector.agent, collector.max_T) == (0, agent, 30)
    assert isinstance(collector.max_T, int) and collector.max_trajectories == 4
    assert collector.traj_infos_queue is None and collector.sync is None
    assert collector.active.tolist() == [True, True] and collector.env_ranks == [0, 1]
    with pytest.raises(TypeError, match="missing a required argument: 'max_T'"):
        SerialEvalCollector(envs, agent, TrajInfo)
