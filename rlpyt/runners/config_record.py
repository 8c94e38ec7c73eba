"""The resolved configuration of a run, as recorded in its params.json under ``"resolved"``.

Box: Runner. The runners' ``record_config`` calls :func:`resolved_config` once the sampler,
agent and algorithm are initialized and the seed is chosen, and hands the result to
:func:`rlpyt.utils.logging.context.record_resolved_config`. What the user passed to
``logger_context`` stays as it was; this section adds what the run actually used: every
component's class and constructor keywords with their defaults filled in, the model and
optimizer built from them, the seed, the affinity, ``n_itr`` and the batch shape.

Invariant: the result holds only JSON types with finite numbers (classes and functions as
``"module.qualname"``, non-finite floats as ``"inf"``, ``"-inf"``, ``"nan"``, anything else as
its ``repr()``), so ``json.dump`` writes strict JSON.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
from torch.nn.parallel import DistributedDataParallel

from rlpyt.protocols import OptimizerAlgorithm

if TYPE_CHECKING:
    from rlpyt.protocols import Agent, Algorithm, AsyncSampler, Sampler

# Keywords constructors keep inside another attribute: keyword -> (attribute, field).
_STORED_INSIDE = {"batch_T": ("batch_spec", "T"), "batch_B": ("batch_spec", "B")}
_PARAMETER_KINDS = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)


class ConfiguredRunner(Protocol):
    """What :func:`resolved_config` reads of a runner after its start-up."""

    @property
    def sampler(self) -> Sampler | AsyncSampler:
        """The sampler (its ``batch_spec``)."""
        ...

    @property
    def agent(self) -> Agent:
        """The agent (its ``model`` and model keywords)."""
        ...

    @property
    def algo(self) -> Algorithm:
        """The algorithm (its ``optimizer``, if it has one)."""
        ...

    @property
    def seed(self) -> int | None:
        """The run's seed."""
        ...

    @property
    def affinity(self) -> object:
        """The runner's affinity."""
        ...

    @property
    def n_itr(self) -> int:
        """Iterations of the run (set by start-up)."""
        ...

    @property
    def world_size(self) -> int:
        """Processes that train together (1 but for SyncRl)."""
        ...


def resolved_config(runner: ConfiguredRunner) -> dict[str, Any]:
    """The run's full configuration, read from the runner and the components it holds.

    Args:
        runner: a runner after ``startup`` (sampler, agent and algorithm initialized).

    Returns:
        ``runner``, ``sampler``, ``agent``, ``model``, ``algo``, ``optimizer`` (each
        ``{"class": ..., "kwargs": {...}}``; ``model`` and ``optimizer`` absent until built),
        ``seed``, ``affinity``, ``n_itr``, ``batch_spec`` (``{"T", "B"}``), ``world_size``.
    """
    sampler, agent, algo = runner.sampler, runner.agent, runner.algo
    components = {"agent": agent, "algo": algo, "sampler": sampler}
    record: dict[str, Any] = {
        "runner": component_record(runner, skip=tuple(components)),
        "sampler": component_record(sampler),
        "agent": component_record(agent),
    }
    model = agent.model
    if model is not None:
        if isinstance(model, DistributedDataParallel):  # SyncRl wraps the model it trains
            model = model.module
        record["model"] = model_record(agent, model)
    record["algo"] = component_record(algo)
    if isinstance(algo, OptimizerAlgorithm):
        optimizer = algo.optimizer
        record["optimizer"] = {
            "class": class_name(type(optimizer)),
            "kwargs": json_value(dict(optimizer.defaults)),
        }
    batch_spec = sampler.batch_spec
    record.update(
        seed=json_value(runner.seed),
        affinity=json_value(runner.affinity),
        n_itr=json_value(runner.n_itr),
        batch_spec={"T": int(batch_spec.T), "B": int(batch_spec.B)},
        world_size=json_value(runner.world_size),
    )
    return record


def component_record(obj: object, skip: tuple[str, ...] = ()) -> dict[str, Any]:
    """``{"class": "module.qualname", "kwargs": {keyword: value}}`` for a constructed object.

    Each keyword of the class's constructor gets the value the object stored under that name
    (``self.discount = discount``), else its default. Keywords in ``skip`` and ``*args`` /
    ``**kwargs`` are left out.
    """
    kwargs = {}
    for name, parameter in _constructor_parameters(type(obj)).items():
        if name in skip:
            continue
        kwargs[name] = json_value(_stored_value(obj, name, parameter.default))
    return {"class": class_name(type(obj)), "kwargs": kwargs}


def model_record(agent: Agent, model: object) -> dict[str, Any]:
    """The model's class and the keywords it was built with, defaults filled in.

    The keywords are those the agent built it with (``BaseAgent.built_model_kwargs``: the
    env's, those the agent derives or defaults, e.g. DDPG's ``output_max`` from the action
    bound, and the user's ``model_kwargs``), or for agents that build their model otherwise
    ``env_model_kwargs`` and ``model_kwargs``; then the constructor's defaults. Models often
    keep a keyword in another form (``nonlinearity()``, an instance), so the keywords are taken
    from what the agent passed, not from the model's attributes.
    """
    built = agent.built_model_kwargs.get("model")
    given = built if built is not None else {**agent.env_model_kwargs, **agent.model_kwargs}
    parameters = _constructor_parameters(type(model))
    kwargs = {name: json_value(given.get(name, p.default)) for name, p in parameters.items()}
    kwargs.update({name: json_value(value) for name, value in given.items()})  # via **kwargs
    return {"class": class_name(type(model)), "kwargs": kwargs}


def class_name(cls: type | Callable[..., object]) -> str:
    """``"module.qualname"`` of a class or function."""
    return f"{cls.__module__}.{cls.__qualname__}"


def json_value(value: object) -> Any:
    """``value`` as strict-JSON types (see the module docstring)."""
    if isinstance(value, dict):
        return {str(key): json_value(item) for key, item in value.items()}
    if isinstance(value, list | tuple):  # namedtuples too (BatchSpec): their fields, in order
        return [json_value(item) for item in value]
    if isinstance(value, np.generic):
        value = value.item()
    if value is inspect.Parameter.empty:  # a required keyword the object did not store
        value = None
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)  # "inf", "-inf", "nan"
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if inspect.isclass(value) or inspect.isroutine(value):
        return class_name(value)
    return repr(value)


def _constructor_parameters(cls: type) -> dict[str, inspect.Parameter]:
    try:
        parameters = inspect.signature(cls).parameters
    except (TypeError, ValueError):  # a class without an inspectable signature
        return {}
    return {name: p for name, p in parameters.items() if p.kind in _PARAMETER_KINDS}


def _stored_value(obj: object, name: str, default: object) -> object:
    if name in _STORED_INSIDE:
        attribute, field = _STORED_INSIDE[name]
        holder = getattr(obj, attribute, None)
        if holder is not None and hasattr(holder, field):
            return getattr(holder, field)
    value = getattr(obj, name, default)
    return default if inspect.ismethod(value) else value  # a method of that name, not a value
