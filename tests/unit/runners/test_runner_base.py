"""The runner classes: one base module, real bases (no type-checker-only ones), declared seams."""

import ast
import inspect
import pathlib
import warnings

import pytest

import rlpyt.runners
from rlpyt.agents.pg.classic import ClassicFfAgent
from rlpyt.algos.dqn.dqn import DQN
from rlpyt.algos.pg.ppo import PPO
from rlpyt.envs.gym import make as gym_make
from rlpyt.protocols import ReplayAlgorithm
from rlpyt.runners import async_rl, base, minibatch_rl, sync_rl
from rlpyt.runners.async_rl import AsyncRl, AsyncRlBase, AsyncRlEval
from rlpyt.runners.base import BaseRunner, TrainingRunnerBase
from rlpyt.runners.minibatch_rl import MinibatchRl, MinibatchRlBase, MinibatchRlEval
from rlpyt.runners.sync_rl import SyncRl, SyncRlEval, SyncRlMixin
from rlpyt.samplers.serial.sampler import SerialSampler

RUNNERS = pathlib.Path(rlpyt.runners.__file__).parent
CONCRETE = (MinibatchRl, MinibatchRlEval, SyncRl, SyncRlEval, AsyncRl, AsyncRlEval)


def runner_classes(module):
    """The runner classes ``module`` defines itself (not those it imports)."""
    return {
        name
        for name, obj in vars(module).items()
        if inspect.isclass(obj)
        and obj.__module__ == module.__name__
        and issubclass(obj, BaseRunner)
    }


def test_the_shared_base_classes_live_in_the_base_module():
    assert BaseRunner.__module__ == TrainingRunnerBase.__module__ == "rlpyt.runners.base"
    assert runner_classes(base) == {"BaseRunner", "TrainingRunnerBase"}
    for cls in CONCRETE:
        assert issubclass(cls, TrainingRunnerBase) and issubclass(cls, BaseRunner)


def test_each_family_module_defines_its_own_runners():
    """minibatch_rl holds the MinibatchRl classes themselves, not re-exports of the base."""
    assert runner_classes(minibatch_rl) == {"MinibatchRlBase", "MinibatchRl", "MinibatchRlEval"}
    assert runner_classes(sync_rl) == {"SyncRlMixin", "SyncRl", "SyncRlEval"}
    assert runner_classes(async_rl) == {"AsyncRlBase", "AsyncRl", "AsyncRlEval"}
    assert issubclass(MinibatchRlBase, TrainingRunnerBase)
    assert issubclass(AsyncRlBase, TrainingRunnerBase)


@pytest.mark.parametrize("cls", CONCRETE, ids=lambda cls: cls.__name__)
def test_every_class_between_a_runner_and_object_is_a_runner(cls):
    """A mixin based on ``object`` at run time (and on a runner for the type checker) fails."""
    own = [c for c in cls.__mro__ if c.__module__.startswith("rlpyt.runners.")]
    assert own and all(issubclass(c, BaseRunner) for c in own), [c.__name__ for c in own]


def test_sync_rank_hooks_sit_on_the_synchronous_base_before_the_concrete_runners():
    assert SyncRlMixin.__bases__ == (MinibatchRlBase,)
    for cls, concrete in ((SyncRl, MinibatchRl), (SyncRlEval, MinibatchRlEval)):
        mro = cls.__mro__
        assert mro.index(SyncRlMixin) < mro.index(concrete) < mro.index(MinibatchRlBase)
    assert SyncRl.store_diagnostics is SyncRlMixin.store_diagnostics
    assert SyncRlEval.evaluate_agent is not MinibatchRlEval.evaluate_agent  # rank 0 evaluates


def test_sync_rl_declares_its_affinity_list():
    runner = SyncRl.__new__(SyncRl)  # no ranks started: the declared defaults answer
    assert runner.affinities is None and runner._cuda is False
    runner.affinity = [dict(cuda_idx=None), None]
    assert runner._rank_affinities() == [dict(cuda_idx=None), {}]
    assert runner.affinities == [dict(cuda_idx=None), {}]
    runner.affinities, runner.affinity = None, dict(cuda_idx=0)
    with pytest.raises(TypeError, match="takes a list of affinities"):
        runner._rank_affinities()


def type_checking_blocks(tree):
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            yield node


@pytest.mark.parametrize("path", sorted(RUNNERS.glob("*.py")), ids=lambda path: path.name)
def test_type_checking_blocks_of_the_runners_only_import(path):
    """No name (a base class above all) means one thing to the type checker, another at run."""
    for block in type_checking_blocks(ast.parse(path.read_text())):
        statements = block.body + block.orelse
        kinds = {type(s).__name__ for s in statements}
        assert kinds <= {"Import", "ImportFrom"}, f"{path.name}:{block.lineno}: {sorted(kinds)}"


def serial_runner(algo):
    sampler = SerialSampler(gym_make, dict(id="CartPole-v1"), batch_T=4, batch_B=2)
    runner = MinibatchRl(algo, ClassicFfAgent(), sampler, n_steps=32)
    runner.n_itr = 4
    return runner


@pytest.mark.parametrize(
    ("AlgoCls", "kwargs", "setting"),
    [
        (PPO, {}, "min_itr_learn=9"),  # not a replay algorithm: its iterations
        (DQN, dict(min_steps_learn=50_000), "min_steps_learn=50,000"),  # the keyword the user set
    ],
    ids=["ppo", "dqn"],
)
def test_learning_that_never_starts_names_the_algorithms_own_setting(AlgoCls, kwargs, setting):  # noqa: N803
    algo = AlgoCls(**kwargs)
    assert isinstance(algo, ReplayAlgorithm) == ("steps" in setting)
    algo.min_itr_learn = 9
    runner = serial_runner(algo)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        runner.warn_if_learning_never_starts()
    (warning,) = caught
    assert f"(algo {setting})" in str(warning.message) and "learns never" in str(warning.message)
    algo.min_itr_learn = 2
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        runner.warn_if_learning_never_starts()  # learning starts in time: no warning
