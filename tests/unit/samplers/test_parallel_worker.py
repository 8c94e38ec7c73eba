"""Pieces of the parallel samplers: layout helpers, the worker side (env tagging, waits)."""

import ctypes
import multiprocessing as mp
import sys

import pytest

from rlpyt.samplers.parallel.base import default_start_method, split_ranks
from rlpyt.samplers.parallel.worker import (
    IndexedEnv,
    MasterGoneError,
    WorkerError,
    build_envs,
    wait_for_master,
)
from tests.unit.samplers.sampler_helpers import ProbeEnv


def test_split_ranks_contiguous_and_even():
    assert split_ranks(list(range(5)), 2) == [[0, 1, 2], [3, 4]]
    assert split_ranks(list(range(8, 12)), 4) == [[8], [9], [10], [11]]
    assert split_ranks([0], 2) == [[0], []]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux default")
def test_default_start_method_is_fork_on_linux():
    assert default_start_method() == "fork"


def test_worker_error_message_names_rank_env_and_details():
    error = WorkerError(1, 5, [4, 5, 6], "Traceback ...\nValueError: boom")
    assert "worker rank 1" in str(error) and "env index 5 (global)" in str(error)
    assert str(error).endswith("ValueError: boom")
    unknown = WorkerError(0, None, [0, 1], "died")
    assert "its envs: 0..1" in str(unknown) and unknown.env_index is None


def test_indexed_env_tags_exceptions_and_forwards_attributes():
    env = IndexedEnv(ProbeEnv(fail_seed=3, fail_step=1), index=7)
    env.seed(3)
    env.reset()
    assert env.action_space.n == 2  # forwarded
    with pytest.raises(RuntimeError, match="injected env failure") as info:
        env.step(0)
    assert info.value.rlpyt_env_index == 7


def test_build_envs_seeds_by_global_index_and_tags_construction_errors():
    envs = build_envs(ProbeEnv, {}, [4, 5], seed=10)
    assert [env.env._seed for env in envs] == [14, 15]
    with pytest.raises(TypeError) as info:
        build_envs(ProbeEnv, dict(no_such_argument=1), [3], seed=0)
    assert info.value.rlpyt_env_index == 3


def test_wait_for_master_gives_up_when_asked_to_quit():
    ctx = mp.get_context("fork")
    semaphore, quit_flag = ctx.Semaphore(0), ctx.RawValue(ctypes.c_bool, True)
    semaphore.release()
    with pytest.raises(MasterGoneError):
        wait_for_master(semaphore, quit_flag, parent_pid=-1)
