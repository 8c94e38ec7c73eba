"""Each runner keyword is declared once; constructor, docstring and params.json follow it.

The runner base declares the shared keywords (``rlpyt.utils.hyperparams``); a runner declares
only what it adds (``log_traj_window``, ``max_sampler_lead``) or changes (AsyncRl's order, a
keyword it sets itself). The generic base (``TrainingRunnerBase[SamplerT]``) works with it.
"""

import inspect
import pydoc
import typing

import pytest

from rlpyt.agents.dqn.classic import ClassicDqnAgent
from rlpyt.agents.pg.classic import ClassicFfAgent
from rlpyt.algos.dqn.dqn import DQN
from rlpyt.algos.pg.ppo import PPO
from rlpyt.envs.gym import make as gym_make
from rlpyt.protocols import AsyncReplayAlgorithm, AsyncSampler, Sampler
from rlpyt.runners.async_rl import AsyncRl, AsyncRlBase, AsyncRlEval
from rlpyt.runners.base import BaseRunner, TrainingRunnerBase
from rlpyt.runners.config_record import component_record
from rlpyt.runners.minibatch_rl import MinibatchRl, MinibatchRlBase, MinibatchRlEval
from rlpyt.runners.sync_rl import SyncRl, SyncRlEval, SyncRlMixin
from rlpyt.samplers.async_.serial_sampler import AsyncSerialSampler
from rlpyt.samplers.serial.sampler import SerialSampler
from rlpyt.utils.hyperparams import Hyperparams

RUNNERS = (
    TrainingRunnerBase,
    MinibatchRlBase,
    MinibatchRl,
    MinibatchRlEval,
    SyncRlMixin,
    SyncRl,
    SyncRlEval,
    AsyncRlBase,
    AsyncRl,
    AsyncRlEval,
)


def serial_sampler():
    return SerialSampler(EnvCls=gym_make, env_kwargs=dict(id="CartPole-v1"), batch_T=4, batch_B=2)


def async_sampler():
    return AsyncSerialSampler(
        EnvCls=gym_make, env_kwargs=dict(id="CartPole-v1"), batch_T=4, batch_B=2
    )


def declarers(cls, name):
    """The classes of ``cls``'s hierarchy whose body declares ``name``."""
    return [c for c in cls.__mro__ if name in vars(c).get("__own_hyperparams__", {})]


@pytest.mark.parametrize("cls", RUNNERS, ids=lambda cls: cls.__name__)
def test_every_keyword_is_declared_and_documented(cls):
    assert issubclass(cls, Hyperparams) and issubclass(cls, BaseRunner)
    parameters = list(inspect.signature(cls).parameters)
    fields = [f.name for f in cls.__hyperparams__.values() if f.keyword]
    assert parameters == fields
    text = pydoc.render_doc(cls, renderer=pydoc.plaintext)
    for name in parameters:
        assert declarers(cls, name), name
        assert any(line.lstrip(" |").startswith(f"{name} (") for line in text.splitlines()), name


def test_the_shared_keywords_are_declared_in_the_base_only():
    for name in ("n_steps", "seed", "log_interval_steps"):
        for cls in RUNNERS:
            assert declarers(cls, name) == [TrainingRunnerBase], (cls, name)
    # The families state which kind of part they take, for the signature and the docstring.
    assert declarers(MinibatchRl, "sampler") == [MinibatchRlBase, TrainingRunnerBase]
    assert declarers(AsyncRl, "sampler") == [AsyncRlBase, TrainingRunnerBase]
    signature = inspect.signature(AsyncRlEval).parameters
    assert signature["sampler"].annotation is AsyncSampler
    assert signature["algo"].annotation is AsyncReplayAlgorithm
    assert inspect.signature(SyncRl).parameters["sampler"].annotation is Sampler
    assert declarers(MinibatchRl, "log_traj_window") == [MinibatchRl]
    assert declarers(AsyncRl, "log_traj_window") == [AsyncRl]
    # SyncRl declares nothing: MinibatchRl's keyword keeps its place after log_interval_steps.
    assert not SyncRl.__own_hyperparams__
    names = list(SyncRl.__hyperparams__)
    assert names.index("log_traj_window") == names.index("log_interval_steps") + 1


def test_the_generic_base_takes_the_sampler_kind():
    assert typing.get_args(MinibatchRlBase.__orig_bases__[0]) == (Sampler,)
    assert typing.get_args(AsyncRlBase.__orig_bases__[0]) == (AsyncSampler,)
    runner = TrainingRunnerBase[Sampler](PPO(), ClassicFfAgent(), serial_sampler(), 100)
    assert runner.n_steps == 100 and runner.affinity == {} and runner.rank == 0


def test_a_misspelt_keyword_fails_by_name():
    with pytest.raises(TypeError, match=r"'log_interval_step' \(did you mean 'log_interval_steps'"):
        MinibatchRl(PPO(), ClassicFfAgent(), serial_sampler(), 100, log_interval_step=10)
    with pytest.raises(TypeError, match="missing a required argument: 'n_steps'"):
        MinibatchRlEval(PPO(), ClassicFfAgent(), serial_sampler())


def test_positional_calls_bind_rlpyt_order():
    runner = MinibatchRl(PPO(), ClassicFfAgent(), serial_sampler(), 1e3, 7, None, 64, 5)
    assert (runner.n_steps, runner.seed, runner.log_interval_steps) == (1000, 7, 64)
    assert runner.log_traj_window == 5 and runner.affinity == {}
    algo = DQN(min_steps_learn=0)
    runner = AsyncRl(algo, ClassicDqnAgent(), async_sampler(), 64, None, 3, 16, 0, None)
    assert (runner.seed, runner.log_interval_steps, runner.log_traj_window) == (3, 16, 0)
    assert runner.max_sampler_lead is None
    assert runner.affinity == dict(optimizer=[{}], sampler={})


def test_keywords_a_runner_sets_itself_are_out_of_its_constructor():
    algo = DQN(min_steps_learn=0)
    runner = AsyncRl(algo, ClassicDqnAgent(), async_sampler(), 64)
    assert runner.check_finite is True and runner.target_reward is None
    assert "check_finite" not in inspect.signature(AsyncRl).parameters
    with pytest.raises(TypeError, match="unexpected keyword argument.*'target_reward'"):
        AsyncRlEval(algo, ClassicDqnAgent(), async_sampler(), 64, target_reward=1.0)


def test_the_params_record_lists_the_declared_keywords():
    runner = MinibatchRl(PPO(), ClassicFfAgent(), serial_sampler(), 1e3, log_interval_steps=64)
    record = component_record(runner, skip=("agent", "algo", "sampler"))
    assert record["class"] == "rlpyt.runners.minibatch_rl.MinibatchRl"
    assert record["kwargs"] == {
        "n_steps": 1000,
        "seed": None,
        "affinity": {},
        "log_interval_steps": 64,
        "log_traj_window": 100,
        "target_reward": None,
        "check_finite": True,
    }


def test_sync_runners_take_a_list_of_affinities():
    affinity = [dict(cuda_idx=None), dict(cuda_idx=None)]
    runner = SyncRl(PPO(), ClassicFfAgent(), serial_sampler(), 100, affinity=affinity)
    assert runner.affinity is affinity and runner.log_traj_window == 100
    assert SyncRlEval.__hyperparams__["affinity"].type == list | dict | None


def test_a_subclass_with_its_own_constructor_keeps_it():
    class CountingRl(MinibatchRl):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.counted = True

    runner = CountingRl(PPO(), ClassicFfAgent(), serial_sampler(), 100, log_traj_window=3)
    assert runner.counted and runner.log_traj_window == 3 and runner.world_size == 1
