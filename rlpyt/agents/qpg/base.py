"""Shared machinery of the Q-function policy-gradient agents (DDPG, TD3, SAC, SAC_V).

Box: Agent (family base). ``DdpgAgent``, ``Td3Agent`` and the two ``SacAgent`` classes derive
from :class:`QpgAgent`; samplers call ``initialize`` and ``step``, the algorithms in
``rlpyt.algos.qpg`` call the agents' Q/policy methods, ``update_target`` and
``give_min_itr_learn``.

Invariants:

- Only ``model`` (mu or pi) is the sampler's model: put in shared memory for sampler workers
  and synced to them. The other models (Q, V and every target copy) are private to the
  training process and follow ``model`` to the training device.
- Each agent names its models in ``model_names`` (the keys of ``state_dict()``, ``model``
  first), the trained ones in ``trained_names`` and each target with its source in
  ``target_sources``. Targets start as copies of their sources.
- The action space is a 1-D Box with bounds ``[-h, h]`` in every dim; agents act in env units
  (:func:`check_qpg_action_space` returns ``h``).
- ``min_itr_learn`` lives in shared memory, allocated in ``__init__`` before any sampler worker
  exists, so workers see the value the algorithm gives after they started.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
import torch
from torch.nn.parallel import DistributedDataParallel

from rlpyt.agents.base import BaseAgent
from rlpyt.models.utils import strip_ddp_state_dict, update_state_dict
from rlpyt.spaces.float_box import FloatBox
from rlpyt.utils.checks import check_number, leaf_space, space_description, space_kind_error
from rlpyt.utils.shared_memory import np_mp_array

if TYPE_CHECKING:
    from rlpyt.envs.base import EnvSpaces

RESCALE_ADVICE = (
    "Wrap the env in gymnasium.wrappers.RescaleAction(env, min_action=-1.0, max_action=1.0) "
    "(e.g. with a custom EnvCls) so that every action dim has the bounds [-1, 1]."
)


def check_qpg_action_space(action_space: Any, agent_name: str) -> float:
    """The action bound ``h`` of a 1-D Box action space with bounds ``[-h, h]`` in every dim.

    Args:
        action_space: The env's action space (FloatBox or a wrapped gymnasium Box).
        agent_name: For the error message (e.g. ``"DdpgAgent"``).

    Returns:
        ``h`` (a positive, finite float).

    Raises:
        ValueError: a discrete or composite space, a shape other than ``(A,)``, or bounds that
            are not ``low == -high`` with one finite ``high > 0`` for every dim. The message
            names the agent, the space and the fix.
    """
    if not isinstance(leaf_space(action_space), FloatBox):
        raise space_kind_error(
            agent_name,
            "a continuous (Box)",
            action_space,
            "Use a DQN or policy-gradient agent for discrete actions.",
        )
    shape = tuple(action_space.shape)
    if len(shape) != 1:
        raise ValueError(
            f"{agent_name}: this agent needs a 1-D action space, the env has "
            f"{space_description(action_space)} (shape {shape}); reshape the actions to one dim "
            "in the env (a gymnasium.ActionWrapper)."
        )
    low = np.broadcast_to(np.asarray(action_space.low, dtype=np.float64), shape)
    high = np.broadcast_to(np.asarray(action_space.high, dtype=np.float64), shape)
    bound = float(high[0]) if shape[0] else 0.0
    symmetric = np.array_equal(low, -high) and bool(np.all(high == bound))
    if not (symmetric and np.isfinite(bound) and bound > 0):
        raise ValueError(
            f"{agent_name}: this agent needs action bounds [-h, h] with the same finite h > 0 "
            f"in every dim; the env has {space_description(action_space)} with low={low}, "
            f"high={high}. {RESCALE_ADVICE}"
        )
    return bound


def bare(module: torch.nn.Module) -> torch.nn.Module:
    """The module without a DistributedDataParallel wrapper."""
    return module.module if isinstance(module, DistributedDataParallel) else module


class MinItrLearnMixin:
    """``give_min_itr_learn``: the iteration where learning starts, shared with sampler workers.

    The agents explore differently before it (``pretrain_std``). Combine before
    :class:`QpgAgent`; the mixin's ``__init__`` allocates the shared value and passes every
    keyword on.
    """

    def __init__(self, *args: Any, **kwargs: Any):
        # Shared before any worker starts: the algorithm sets it after the sampler started.
        self._min_itr_learn = np_mp_array(1, np.int64)
        super().__init__(*args, **kwargs)

    def give_min_itr_learn(self, min_itr_learn: int) -> None:
        """Set the first iteration of learning (the algorithm calls this in ``initialize``).

        Raises:
            ValueError: negative or fractional.
        """
        value = check_number(
            type(self).__name__, "min_itr_learn", min_itr_learn, low=0, integer=True
        )
        self._min_itr_learn[0] = value

    @property
    def min_itr_learn(self) -> int:
        """First iteration of learning (0 until given), read from shared memory."""
        return int(self._min_itr_learn[0])


class QpgAgent(BaseAgent):
    """Base of the agents with a policy model, Q models (V models) and target copies.

    Subclasses declare their models in the class attributes below, build the distribution in
    ``make_distribution`` and give each extra model's class and keywords in
    :meth:`model_specs`.

    Args:
        ModelCls: Policy model class (mu or pi).
        model_kwargs: Policy model keywords (copied).
        initial_model_state_dict: Loaded at :meth:`initialize` by :meth:`load_state_dict`: a
            flat policy-model state dict, or an agent ``state_dict()`` (every entry it has).
    """

    model_names: ClassVar[tuple[str, ...]] = ("model",)
    trained_names: ClassVar[tuple[str, ...]] = ("model",)
    target_sources: ClassVar[Mapping[str, str]] = {}

    def __init__(
        self,
        ModelCls: type[torch.nn.Module] | None = None,  # noqa: N803
        model_kwargs: Mapping[str, Any] | None = None,
        initial_model_state_dict: Mapping[str, Any] | None = None,
    ):
        self.action_max = 1.0  # h, from the action space at initialize
        # (ids of the models, tensors of update_target's Polyak step), built at first use:
        self._polyak_pairs: tuple[tuple, tuple[list, list, list]] | None = None
        for name in self.model_names[1:]:
            setattr(self, name, None)
        super().__init__(
            ModelCls=ModelCls,
            model_kwargs=model_kwargs,
            initial_model_state_dict=initial_model_state_dict,
        )

    # ---- construction ---------------------------------------------------------------------

    def model_specs(self) -> dict[str, tuple[Any, Mapping[str, Any]]]:
        """``{name: (ModelCls, model_kwargs)}`` of every non-target model but ``model``."""
        return {}

    def policy_env_kwargs(self) -> dict[str, Any]:
        """Env-derived keywords of the policy model (``env_model_kwargs`` plus extras)."""
        return dict(self.env_model_kwargs)

    def make_env_to_model_kwargs(self, env_spaces: EnvSpaces) -> dict[str, Any]:
        """``observation_shape`` and ``action_size`` (every QPG model takes them)."""
        return dict(
            observation_shape=tuple(env_spaces.observation.shape),
            action_size=int(env_spaces.action.shape[0]),
        )

    def check_action_space(self, env_spaces: EnvSpaces) -> int:
        """Check the action space (see :func:`check_qpg_action_space`), keep ``h``; return A."""
        self.action_max = check_qpg_action_space(env_spaces.action, type(self).__name__)
        return int(env_spaces.action.shape[0])

    def _build(
        self,
        ModelCls: Any,
        model_kwargs: Mapping[str, Any],
        env_kwargs: Mapping[str, Any],
        key: str,  # noqa: N803
    ) -> torch.nn.Module:
        clash = set(env_kwargs) & set(model_kwargs)
        if clash:
            raise TypeError(
                f"{key} {sorted(clash)} are set by {type(self).__name__} from the env spaces; "
                f"remove them from {key}."
            )
        return ModelCls(**env_kwargs, **model_kwargs)

    def _build_model(self) -> torch.nn.Module:
        if self.ModelCls is None:
            raise ValueError(f"{type(self).__name__} needs a ModelCls to build its model.")
        return self._build(
            self.ModelCls, self.model_kwargs, self.policy_env_kwargs(), "model_kwargs"
        )

    def _build_named(self, name: str) -> torch.nn.Module:
        source = self.target_sources.get(name, name)
        if source == "model":
            return self._build_model()
        ModelCls, kwargs = self.model_specs()[source]  # noqa: N806
        return self._build(ModelCls, kwargs, self.env_model_kwargs, f"{source}_kwargs")

    def initialize(
        self,
        env_spaces: EnvSpaces,
        share_memory: bool = False,
        global_B: int = 1,  # noqa: N803
        env_ranks: list[int] | None = None,
    ) -> None:
        """Build the distribution and every model; targets start as copies of their sources.

        Only ``model`` goes into shared memory (with ``share_memory``). Then
        ``initial_model_state_dict`` is loaded (:meth:`load_state_dict`) and the subclass's
        other initial state dicts (:meth:`load_initial_state_dicts`).
        """
        initial = self.initial_model_state_dict
        self.initial_model_state_dict = None  # loaded below, in full, by load_state_dict
        try:
            super().initialize(env_spaces, share_memory, global_B=global_B, env_ranks=env_ranks)
        finally:
            self.initial_model_state_dict = initial
        for name in self.model_names[1:]:
            model = self._build_named(name)
            if name in self.target_sources:
                model.eval()  # only ever evaluated
            setattr(self, name, model)
        self._copy_targets({"model", *self.model_specs()})
        if initial is not None:
            self.load_state_dict(initial)
        self.load_initial_state_dicts()

    def load_initial_state_dicts(self) -> None:
        """Load the ``initial_*_state_dict`` keywords other than the policy's (subclasses)."""

    def load_named(self, name: str, state_dict: Mapping[str, Any] | None) -> None:
        """Load one model's state dict (flat, or an agent state dict's ``name`` entry).

        Its target copies become copies of it. None: nothing to load.
        """
        if state_dict is None:
            return
        inner = state_dict.get(name)
        source = inner if isinstance(inner, Mapping) else state_dict
        bare(getattr(self, name)).load_state_dict(strip_ddp_state_dict(source))
        self._copy_targets({name})

    def _copy_targets(self, sources: set[str], skip: set[str] | None = None) -> None:
        """Targets of ``sources`` (except those in ``skip``) <- copies of their sources."""
        for target, source in self.target_sources.items():
            if source in sources and target not in (skip or set()):
                update_state_dict(getattr(self, target), getattr(self, source).state_dict())

    def to_device(self, cuda_idx: int | None = None) -> None:
        """Move every model to GPU ``cuda_idx`` (the shared policy stays on the CPU, see base)."""
        super().to_device(cuda_idx)
        self._polyak_pairs = None  # moved buffers are new tensors
        if cuda_idx is not None:
            for name in self.model_names[1:]:
                getattr(self, name).to(self.device)

    def data_parallel(self) -> int | None:
        """Wrap every trained model in DistributedDataParallel; the CUDA index or None (CPU)."""
        device_id = super().data_parallel()
        for name in self.trained_names:
            if name != "model":
                setattr(
                    self,
                    name,
                    DistributedDataParallel(
                        getattr(self, name),
                        device_ids=None if device_id is None else [device_id],
                        output_device=device_id,
                    ),
                )
        return device_id

    # ---- training-facing ------------------------------------------------------------------

    def parameters(self) -> Iterator[torch.nn.Parameter]:
        """Parameters of every trained model (policy, Q and V; not the targets)."""
        return itertools.chain.from_iterable(
            getattr(self, name).parameters() for name in self.trained_names
        )

    def update_target(self, tau: float = 1) -> None:
        """Every target <- ``tau * source + (1 - tau) * target`` (``tau == 1``: a hard copy).

        Raises:
            ValueError: ``tau`` outside ``(0, 1]``.
        """
        if not 0 < tau <= 1:
            raise ValueError(f"tau must be in (0, 1], got {tau}.")
        if tau == 1:
            for target, source in self.target_sources.items():
                update_state_dict(getattr(self, target), getattr(self, source).state_dict())
            return
        # Polyak step of every target in one foreach call: the algorithms call this after
        # every update, and per-tensor ops there cost more than the arithmetic.
        modules = tuple(id(getattr(self, name)) for name in self.model_names)
        if self._polyak_pairs is None or self._polyak_pairs[0] != modules:
            self._polyak_pairs = (modules, self._target_tensor_pairs())
        targets, sources, copies = self._polyak_pairs[1]
        with torch.no_grad():
            torch._foreach_lerp_(targets, sources, tau)
            for target_tensor, source_tensor in copies:
                target_tensor.copy_(source_tensor)

    def _target_tensor_pairs(self) -> tuple[list, list, list]:
        """``(float targets, their sources, [(target, source)] of integer buffers)``."""
        targets, sources, copies = [], [], []
        for target, source in self.target_sources.items():
            target_state = bare(getattr(self, target)).state_dict(keep_vars=True)
            source_state = bare(getattr(self, source)).state_dict(keep_vars=True)
            for key, target_tensor in target_state.items():
                source_tensor = source_state[key]
                if torch.is_floating_point(target_tensor):
                    targets.append(target_tensor)
                    sources.append(source_tensor)
                else:
                    copies.append((target_tensor, source_tensor))
        return targets, sources, copies

    def state_dict(self) -> dict[str, Any]:
        """``{name: state dict}`` for every name in ``model_names`` (no DDP prefixes)."""
        return {
            name: strip_ddp_state_dict(getattr(self, name).state_dict())
            for name in self.model_names
        }

    def load_state_dict(self, state_dict: Mapping[str, Any]) -> None:
        """Load :meth:`state_dict`'s output, or a flat policy-model state dict.

        Entries may be missing (those models keep their values); a target whose source is
        loaded without the target's own entry becomes a copy of the source.

        Raises:
            ValueError: an entry named after no model of this agent.
        """
        if not isinstance(state_dict.get("model"), Mapping):
            self.load_named("model", state_dict)
            return
        unknown = sorted(set(state_dict) - set(self.model_names))
        if unknown:
            raise ValueError(
                f"{type(self).__name__}.load_state_dict: unknown entries {unknown}; an agent "
                f"state dict has the entries {list(self.model_names)} (or pass a flat "
                "policy-model state dict)."
            )
        for name in self.model_names:
            if name in state_dict:
                bare(getattr(self, name)).load_state_dict(strip_ddp_state_dict(state_dict[name]))
        self._copy_targets(set(state_dict), skip=set(state_dict))

    def _torch_mode(self, training: bool) -> None:
        for name in self.trained_names:
            model = getattr(self, name)
            if model is not None and model.training != training:
                model.train(training)
