"""Hyperparameters declared once: what derives from a declaration, and checks at construction.

One field declared in a test subclass must appear in the constructor's signature, the
docstring's table, the validation, the params.json record and the command line's ``--set``
type check; a replay algorithm written from docs/new-algorithm.md that declares nothing gets
the base's defaults and trains; one that lacks what the base needs fails at construction,
naming it.
"""

from __future__ import annotations

import inspect
import math
import pickle
from typing import Any

import pytest
import torch

from rlpyt.agents.dqn.classic import ClassicDqnAgent
from rlpyt.algos.dqn.dqn import DQN
from rlpyt.algos.pg.a2c import A2C
from rlpyt.algos.qpg.base import QpgAlgo
from rlpyt.algos.qpg.td3 import TD3
from rlpyt.algos.replay_base import Records, ReplayRlAlgorithm
from rlpyt.cli.overrides import check_value_types
from rlpyt.envs.gym import make as gym_make
from rlpyt.runners.config_record import component_record
from rlpyt.runners.minibatch_rl import MinibatchRl
from rlpyt.samplers.serial.sampler import SerialSampler
from rlpyt.utils.hyperparams import (
    FIRST,
    FRACTION,
    REQUIRED,
    Hyperparams,
    described,
    fixed,
    hyperparam,
)
from rlpyt.utils.logging import logger
from rlpyt.utils.tensor import select_at_indexes


class KnobDQN(DQN):
    """DQN with one more knob."""

    knob: float = hyperparam(0.5, "A test knob.", FRACTION, after="discount")


# ---- derivations from one declaration ---------------------------------------------------


def test_a_declared_field_is_a_keyword_at_its_place_with_default_and_type():
    params = inspect.signature(KnobDQN).parameters
    assert list(params)[:3] == ["discount", "knob", "batch_size"]
    assert params["knob"].default == 0.5 and params["knob"].annotation is float
    assert list(params)[2:] == list(inspect.signature(DQN).parameters)[1:]
    algo = KnobDQN(0.9, 0.25)  # positional, in the declared order
    assert (algo.discount, algo.knob) == (0.9, 0.25)
    assert KnobDQN().knob == 0.5


def test_a_declared_field_is_in_the_docstring_table():
    doc = inspect.getdoc(KnobDQN)
    assert "Args:" in doc
    line = "knob (float): A test knob. Valid: a number in [0, 1]. Default: ``0.5``."
    assert line in doc
    assert "discount (float): Discount gamma." in doc  # inherited, not restated
    assert doc.startswith("DQN with one more knob.")


def test_a_declared_field_is_validated_with_a_named_error():
    with pytest.raises(ValueError, match=r"KnobDQN: knob=2 is invalid; it must be a number in"):
        KnobDQN(knob=2)
    with pytest.raises(TypeError, match=r"KnobDQN: knob='high' is not a number"):
        KnobDQN(knob="high")


def test_a_declared_field_is_recorded_in_params_json():
    record = component_record(KnobDQN(knob=0.25))
    assert record["class"].endswith("KnobDQN")
    assert record["kwargs"]["knob"] == 0.25
    assert list(record["kwargs"]) == list(inspect.signature(KnobDQN).parameters)


def test_a_declared_field_is_type_checked_by_the_command_line():
    classes = {"algo": KnobDQN}
    check_value_types({"algo.knob": 0.1}, {"algo": {}}, classes)
    with pytest.raises(ValueError, match=r"--set algo.knob=high: expected a number"):
        check_value_types({"algo.knob": "high"}, {"algo": {}}, classes)
    with pytest.raises(ValueError, match=r"--set algo.delta_clip=x: expected a number or none"):
        check_value_types({"algo.delta_clip": "x"}, {"algo": {}}, classes)


def test_a_misspelt_keyword_is_named_with_the_nearest_one():
    with pytest.raises(TypeError, match=r"'knb' \(did you mean 'knob'\?\)"):
        KnobDQN(knb=0.1)


# ---- subclasses change fields without restating them ------------------------------------


def test_a_redeclared_default_keeps_description_range_and_place():
    class SmallBatchDQN(DQN):
        batch_size = hyperparam(8)

    assert list(inspect.signature(SmallBatchDQN).parameters) == list(
        inspect.signature(DQN).parameters
    )
    assert SmallBatchDQN().batch_size == 8
    assert "batch_size (int): Replayed transitions per gradient step." in SmallBatchDQN.__doc__
    with pytest.raises(ValueError, match=r"SmallBatchDQN: batch_size=0 is invalid"):
        SmallBatchDQN(batch_size=0)


def test_after_moves_a_field_and_fixed_takes_it_out_of_the_constructor():
    class Moved(DQN):
        n_step_return = hyperparam(3, after=FIRST)
        target_update_tau = fixed(0.5)

    names = list(inspect.signature(Moved).parameters)
    assert names[0] == "n_step_return" and "target_update_tau" not in names
    algo = Moved()
    assert (algo.n_step_return, algo.target_update_tau) == (3, 0.5)
    with pytest.raises(TypeError, match="target_update_tau"):
        Moved(target_update_tau=1)


def test_td3s_order_comes_from_after_keys():
    names = list(inspect.signature(TD3).parameters)
    assert names[:7] == [
        "batch_size",
        "replay_ratio",
        "target_update_tau",
        "target_update_interval",
        "policy_update_interval",
        "mu_learning_rate",
        "q_learning_rate",
    ]


def test_a_bad_declaration_fails_when_the_class_is_defined():
    with pytest.raises(TypeError, match=r"NoDoc.knob: a new hyperparameter needs a description"):

        class NoDoc(DQN):
            knob: float = hyperparam(0.5)

    with pytest.raises(TypeError, match=r"Lost.knob: after='nothing' names no field"):

        class Lost(DQN):
            knob: float = hyperparam(0.5, "A knob.", after="nothing")

    with pytest.raises(TypeError, match=r"Untyped.knob: a new hyperparameter needs a type"):

        class Untyped(DQN):
            knob = hyperparam(0.5, "A knob.")


def test_fields_are_instance_attributes_only():
    class Plain(Hyperparams):
        size: int = hyperparam(3, "A size.")

    assert "size" not in vars(Plain)  # no class-level stand-in for the instance's value
    plain, other = Plain(), Plain(size=4)
    assert (plain.size, other.size) == (3, 4)
    assert A2C().optim_kwargs == {} and A2C().optim_kwargs is not A2C().optim_kwargs


def test_required_and_keyword_only_fields():
    class Parts(Hyperparams):
        timeout: float = hyperparam(1.0, "Seconds.", keyword_only=True)
        size: int = hyperparam(REQUIRED, "A size.")
        name: str = hyperparam("a", "A name.")

    class Longer(Parts):
        timeout = hyperparam(2.0)  # stays keyword-only
        extra: int = hyperparam(0, "Added last among the positional ones.")

    kinds = [
        (p.name, p.kind.name, p.default) for p in inspect.signature(Longer).parameters.values()
    ]
    assert kinds == [
        ("size", "POSITIONAL_OR_KEYWORD", inspect.Parameter.empty),
        ("name", "POSITIONAL_OR_KEYWORD", "a"),
        ("extra", "POSITIONAL_OR_KEYWORD", 0),
        ("timeout", "KEYWORD_ONLY", 2.0),
    ]
    assert (Longer(3, "b", 1, timeout=5.0).timeout, Longer(3).size) == (5.0, 3)
    with pytest.raises(TypeError, match=r"Longer\(\): missing a required argument: 'size'"):
        Longer()
    with pytest.raises(TypeError, match=r"Longer\(\): too many positional arguments"):
        Longer(3, "b", 1, 5.0)
    doc = inspect.getdoc(Longer)
    assert "size (int): A size. Required." in doc
    assert "timeout (float): Seconds. Default: ``2.0``. Keyword-only." in doc


# ---- checks at construction -------------------------------------------------------------


def test_a_replay_algorithm_without_update_fails_at_construction_naming_it():
    class NoUpdate(ReplayRlAlgorithm):
        opt_info_fields = ("loss",)

    with pytest.raises(TypeError, match=r"NoUpdate cannot be constructed: it lacks update"):
        NoUpdate()


def test_a_replay_algorithm_without_opt_info_fails_at_construction_naming_it():
    class NoOptInfo(ReplayRlAlgorithm):
        def update(self, samples: Any, target: Any, records: Records) -> None:
            pass

    with pytest.raises(TypeError, match=r"it lacks OptInfoCls \(or opt_info_fields\)"):
        NoOptInfo()


def test_shared_targets_need_a_targets_method_and_qpg_its_optimizers():
    class Sharing(ReplayRlAlgorithm):
        opt_info_fields = ("loss",)
        shares_targets = True

        def update(self, samples: Any, target: Any, records: Records) -> None:
            pass

    with pytest.raises(TypeError, match=r"it lacks targets \(shares_targets is True\)"):
        Sharing()

    class NoOptimizers(QpgAlgo):
        opt_info_fields = ("loss",)

        def update(self, samples: Any, target: Any, records: Records) -> None:
            pass

    with pytest.raises(TypeError, match=r"NoOptimizers cannot be constructed: it lacks "):
        NoOptimizers()
    with pytest.raises(TypeError, match="build_optimizers"):
        NoOptimizers()


def test_opt_info_class_follows_the_declared_fields_and_pickles():
    info = MinimalQ.OptInfoCls(loss=[1.0], gradNorm=[2.0])
    assert MinimalQ.OptInfoCls._fields == ("loss", "gradNorm") == MinimalQ.opt_info_fields
    assert pickle.loads(pickle.dumps(info)) == info


# ---- a minimal algorithm trains on the base's defaults ----------------------------------


class MinimalQ(ReplayRlAlgorithm):
    """Q-learning that declares nothing: every keyword and the optimizer are the base's."""

    opt_info_fields = ("loss", "gradNorm")

    def update(self, samples: Any, target: torch.Tensor | None, records: Records) -> None:
        q = select_at_indexes(samples.action, self.agent(*samples.agent_inputs))
        with torch.no_grad():
            next_q = self.agent.target(*samples.target_inputs).max(dim=-1).values
        y = samples.return_ + (1 - samples.done_n.float()) * samples.target_discount * next_q
        loss = 0.5 * (y - q).pow(2).mean()
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        records["gradNorm"].append(self.step_optimizer(self.optimizer, self._params))
        records["loss"].append(loss.detach())
        self.update_counter += 1
        self.update_target_if_due()


def test_a_minimal_replay_algorithm_gets_the_base_defaults_and_trains():
    algo = MinimalQ(min_steps_learn=64, replay_size=1000, target_update_interval=5)
    assert algo.ReplayBufferCls is None and algo.n_step_return == 1
    assert algo.optim_kwargs == {} and algo.target_update_tau == 1
    assert algo.snapshot_replay is False and algo.initial_optim_state_dict is None
    sampler = SerialSampler(
        EnvCls=gym_make, env_kwargs=dict(id="CartPole-v1"), batch_T=4, batch_B=4, eval_n_envs=0
    )
    runner = MinibatchRl(
        algo=algo,
        agent=ClassicDqnAgent(model_kwargs=dict(hidden_sizes=[16])),
        sampler=sampler,
        n_steps=320,
        log_interval_steps=160,
        seed=1,
    )
    logger.disable()
    try:
        rows = list(runner.iter_train())
    finally:
        logger.enable()
    assert algo.update_counter == algo.updates_per_optimize * (20 - 4)
    losses = [row["lossAverage"] for row in rows if not math.isnan(row["lossAverage"])]
    assert losses and all(math.isfinite(x) for x in losses)
    assert isinstance(algo.optimizer, torch.optim.Adam)


def test_a_hand_written_init_is_kept_in_the_class_and_its_subclasses():
    class OwnInit(DQN):
        def __init__(self, scale=2.0, **kwargs):
            self.scale = scale
            super().__init__(**kwargs)

    class Below(OwnInit):
        pass

    for cls in (OwnInit, Below):
        algo = cls(scale=3.0, batch_size=8)
        assert (algo.scale, algo.batch_size, algo.n_step_return) == (3.0, 8, 1)
        assert list(inspect.signature(cls).parameters) == ["scale", "kwargs"]


def test_a_mixin_with_fields_keeps_both_bases_fields():
    """Two Hyperparams bases: the class gets the fields of both, each from its declarer."""

    class Base(Hyperparams):
        a: int = hyperparam(1, "a.")

    class Left(Base):
        b: int = hyperparam(2, "b.")

    class Right(Base):
        a: int = hyperparam(10)
        c: int = hyperparam(3, "c.")

    class Both(Left, Right):
        pass

    both = Both()
    # c follows a, as in Right's order; b stays where Left, the first base, has it.
    assert list(inspect.signature(Both).parameters) == ["a", "c", "b"]
    assert (both.a, both.b, both.c) == (10, 2, 3)  # a from Right: it precedes Base in the MRO


def test_a_described_check_names_its_values_in_the_docstring():
    @described("an even number")
    def even(owner, name, value):
        if value % 2:
            raise ValueError(f"{owner}: {name}={value!r} is not even.")
        return value

    class Counted(Hyperparams):
        """Counted."""

        n: int = hyperparam(2, "A count.", even)

    assert "Valid: an even number." in Counted.__doc__
    with pytest.raises(ValueError, match="n=3 is not even"):
        Counted(3)
