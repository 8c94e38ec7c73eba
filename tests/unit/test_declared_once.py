"""Every public algorithm, agent, sampler, collector and runner declares its keywords once.

The walk imports every module under ``rlpyt.algos``, ``rlpyt.agents``, ``rlpyt.samplers`` and
``rlpyt.runners`` (rlpyt's alias paths included) and takes each class of those families. For
each one it checks what ``rlpyt.utils.hyperparams`` promises:

- the class derives from ``Hyperparams`` and its constructor is the generated one (no
  hand-written ``__init__`` anywhere above it), so binding, range checks and storing come from
  the declarations;
- each keyword is declared once in the hierarchy: a re-declaration states only what it changes
  (a new default, place or description), never a copy of its parent's;
- the signature, the docstring's ``Args:`` table, the validation and the params.json record
  agree with the declarations.
"""

from __future__ import annotations

import importlib
import inspect
import math
import pkgutil

import pytest

import rlpyt.agents
import rlpyt.algos
import rlpyt.runners
import rlpyt.samplers
from rlpyt.agents.base import BaseAgent
from rlpyt.algos.base import RlAlgorithm
from rlpyt.runners.base import BaseRunner
from rlpyt.runners.config_record import component_record, json_value
from rlpyt.samplers.base import BaseSampler
from rlpyt.samplers.collectors import BaseCollector
from rlpyt.samplers.evaluation import BaseEvalCollector
from rlpyt.utils.hyperparams import (
    _GENERATED,
    COUNT,
    FIRST,
    REQUIRED,
    Hyperparam,
    Hyperparams,
    Range,
    hyperparam,
)

FAMILIES = (RlAlgorithm, BaseAgent, BaseSampler, BaseCollector, BaseEvalCollector, BaseRunner)
PACKAGES = (rlpyt.algos, rlpyt.agents, rlpyt.samplers, rlpyt.runners)


def family_classes():
    """Every public class of the families found in the packages, once, sorted by name."""
    found = {}
    for package in PACKAGES:
        modules = [package.__name__] + [
            info.name for info in pkgutil.walk_packages(package.__path__, f"{package.__name__}.")
        ]
        for name in modules:
            module = importlib.import_module(name)
            for attribute, value in vars(module).items():
                if (
                    inspect.isclass(value)
                    and not attribute.startswith("_")
                    and issubclass(value, FAMILIES)
                    and value.__module__.startswith("rlpyt.")
                ):
                    found[f"{value.__module__}.{value.__qualname__}"] = value
    return [found[key] for key in sorted(found)]


CLASSES = family_classes()
IDS = [cls.__name__ for cls in CLASSES]


def keyword_fields(cls):
    return [field for field in cls.__hyperparams__.values() if field.keyword]


def declarations(cls, name):
    """``[(class, declaration)]`` of field ``name``, from ``cls`` up its MRO."""
    return [
        (klass, vars(klass)["__own_hyperparams__"][name])
        for klass in cls.__mro__
        if name in vars(klass).get("__own_hyperparams__", {})
    ]


def test_the_walk_finds_every_family():
    names = {cls.__name__ for cls in family_classes()}
    for expected in (
        "DQN",
        "PPO",
        "SAC",
        "DqnAgent",
        "AtariFfAgent",
        "SerialSampler",
        "AsyncGpuSampler",
        "CpuResetCollector",
        "GpuEvalCollector",
        "MinibatchRl",
        "AsyncRlEval",
        "SyncRl",
    ):
        assert expected in names
    assert len(names) >= 90


@pytest.mark.parametrize("cls", CLASSES, ids=IDS)
def test_constructor_is_generated_from_declarations(cls):
    assert issubclass(cls, Hyperparams), f"{cls.__name__} declares no hyperparameters"
    assert cls.__init__ in _GENERATED, f"{cls.__name__} has a hand-written __init__"


def redeclaration_problems(cls):
    """What re-declarations in ``cls``'s hierarchy copy from their parent's (empty: none)."""
    problems = []
    for name in cls.__hyperparams__:
        chain = declarations(cls, name)
        for (klass, field), (_, parent) in zip(chain, chain[1:], strict=False):
            restated = sorted(
                part
                for part in field.given
                if part != "default" and _same(getattr(field, part), getattr(parent, part))
            )
            if restated:
                problems.append(f"{klass.__name__}.{name} restates its parent's {restated}")
            elif not (
                field.after is not None
                or field.keyword != parent.keyword
                or field.given - {"default"}
                or not _same(field.default, parent.default)
            ):
                problems.append(f"{klass.__name__}.{name} is re-declared without a change")
    return problems


@pytest.mark.parametrize("cls", CLASSES, ids=IDS)
def test_each_keyword_is_declared_once(cls):
    assert not redeclaration_problems(cls)


@pytest.mark.parametrize("cls", CLASSES, ids=IDS)
def test_signature_docstring_and_declarations_agree(cls):
    fields = keyword_fields(cls)
    parameters = list(inspect.signature(cls).parameters.values())
    assert [p.name for p in parameters] == [f.name for f in fields]
    for parameter, field in zip(parameters, fields, strict=True):
        assert _same(parameter.default, field.default), field.name
        assert parameter.annotation == field.type, field.name
        kind = (
            inspect.Parameter.KEYWORD_ONLY
            if field.keyword_only
            else (inspect.Parameter.POSITIONAL_OR_KEYWORD)
        )
        assert parameter.kind == kind, field.name
        assert field.describe() in inspect.cleandoc(cls.__doc__), field.name


@pytest.mark.parametrize("cls", CLASSES, ids=IDS)
def test_out_of_range_values_fail_naming_the_keyword(cls):
    if cls.missing_parts():  # an abstract base: its concrete subclasses are walked too
        pytest.skip(f"{cls.__name__} lacks {cls.missing_parts()}")
    required = {f.name: _stand_in(f) for f in keyword_fields(cls) if f.default is REQUIRED}
    checked = [f for f in keyword_fields(cls) if isinstance(f.valid, Range)]
    for field in checked:
        bad = _outside(field.valid)
        if bad is None:
            continue
        with pytest.raises((ValueError, TypeError), match=rf"\b{field.name}\b"):
            cls(**{**required, field.name: bad})


@pytest.mark.parametrize("cls", CLASSES, ids=IDS)
def test_params_json_records_every_declared_keyword(cls):
    """The record of an instance holding the declared values is exactly those values."""
    instance = cls.__new__(cls)
    values = {}
    for index, field in enumerate(keyword_fields(cls)):
        value = f"value {index}" if field.default is REQUIRED else field.default
        setattr(instance, field.name, value)
        values[field.name] = json_value(value)
    record = component_record(instance)
    assert record["kwargs"] == values


def _stand_in(field: Hyperparam) -> object:
    """A value a required keyword accepts (in its range; None where a check allows it)."""
    if isinstance(field.valid, Range):
        low = field.valid.low if field.valid.low is not None else 0
        return low + 1
    return None if field.valid is not None else object()


def _outside(valid: Range) -> float | None:
    """A value just outside the range (None: the range has no bound)."""
    if valid.low is not None and math.isfinite(valid.low):
        return valid.low - 1
    if valid.high is not None and math.isfinite(valid.high):
        return valid.high + 1
    return None


def _same(a: object, b: object) -> bool:
    try:
        return bool(a is b or a == b)
    except (TypeError, ValueError, RuntimeError):
        return False


def test_restated_and_unchanged_declarations_are_caught():
    class Parent(Hyperparams):
        x: int = hyperparam(1, "An x.", COUNT)
        y: int = hyperparam(1, "A y.")

    class Child(Parent):
        x = hyperparam(2, "An x.")  # a new default, but the description copied
        y = hyperparam(1)  # the same default: no change

    class Fine(Parent):
        x = hyperparam(3)
        y = hyperparam(after=FIRST)

    assert redeclaration_problems(Child) == [
        "Child.x restates its parent's ['doc']",
        "Child.y is re-declared without a change",
    ]
    assert redeclaration_problems(Fine) == []
