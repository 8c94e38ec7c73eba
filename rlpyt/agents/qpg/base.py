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
  ``target_sources``, and gives the class and keywords of each model but the policy in
  ``model_specs``; ``rlpyt.agents.base.BaseAgent`` builds, moves, wraps, saves, loads and
  updates them all. Targets start as copies of their sources.
- The action space is a 1-D Box with bounds ``[-h, h]`` in every dim; agents act in env units
  (:func:`check_qpg_action_space` returns ``h``).
- ``min_itr_learn`` lives in shared memory, allocated at construction before any sampler worker
  exists, so workers see the value the algorithm gives after they started.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
import torch
from torch import Tensor

from rlpyt.agents.base import BaseAgent, ModelClass
from rlpyt.agents.model_keywords import mujoco_model_kwargs, required_keywords
from rlpyt.spaces.float_box import FloatBox
from rlpyt.utils.checks import check_number, leaf_space, space_description, space_kind_error
from rlpyt.utils.hyperparams import DescribedCheck, copied_dict, described
from rlpyt.utils.shared_memory import np_mp_array

if TYPE_CHECKING:
    from rlpyt.envs.base import EnvSpaces
    from rlpyt.spaces.gym_wrapper import GymSpaceWrapper

RESCALE_ADVICE = (
    "Wrap the env in gymnasium.wrappers.RescaleAction(env, min_action=-1.0, max_action=1.0) "
    "(e.g. with a custom EnvCls) so that every action dim has the bounds [-1, 1]."
)


def check_qpg_action_space(action_space: FloatBox | GymSpaceWrapper, agent_name: str) -> float:
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


def model_kwargs_or_hidden(hidden_sizes: Sequence[int]) -> DescribedCheck:
    """The check of a QPG agent's model keywords: a copied dict, None giving ``hidden_sizes``.

    ``None`` becomes ``{"hidden_sizes": list(hidden_sizes)}``, the agent's default network.
    """

    @described(f"a dict (copied; None: dict(hidden_sizes={list(hidden_sizes)}))")
    def model_kwargs(owner: str, name: str, value: object) -> dict[str, Any]:
        if value is None:
            return {"hidden_sizes": list(hidden_sizes)}
        return copied_dict(owner, name, value)

    return model_kwargs


class QpgAgent(BaseAgent):
    """Base of the agents with a policy model, Q models (V models) and target copies.

    Subclasses declare their models in ``BaseAgent``'s class attributes (``model_names``,
    ``trained_names``, ``target_sources``), build the distribution in ``make_distribution``
    and give each extra model's class and keywords in :meth:`model_specs`. Every model gets
    ``observation_shape`` and ``action_size`` from the env (``mujoco_model_kwargs``).
    ``initial_model_state_dict`` is loaded by :meth:`load_state_dict`: a flat policy-model
    state dict, or an agent ``state_dict()`` (every entry it has).
    """

    # Hidden sizes of every model whose class requires them and whose keywords leave them out.
    default_hidden_sizes: ClassVar[Sequence[int] | None] = None
    env_model_kwargs_fn = staticmethod(mujoco_model_kwargs)

    def __post_init__(self) -> None:
        """The action bound ``h``: 1 until ``initialize`` reads it from the action space."""
        super().__post_init__()
        self.action_max = 1.0

    # ---- construction ---------------------------------------------------------------------

    def model_defaults(self, name: str, ModelCls: ModelClass) -> dict[str, Any]:  # noqa: N803
        """``hidden_sizes=default_hidden_sizes`` where ``ModelCls`` requires it.

        So keywords that leave it out (``model_kwargs=dict(output_max=2.0)``) still build the
        agent's default network; a model class with a default of its own keeps it.
        """
        defaults = super().model_defaults(name, ModelCls)
        if self.default_hidden_sizes is not None and "hidden_sizes" in required_keywords(ModelCls):
            defaults["hidden_sizes"] = list(self.default_hidden_sizes)
        return defaults

    def check_action_space(self, env_spaces: EnvSpaces) -> int:
        """Check the action space (see :func:`check_qpg_action_space`), keep ``h``; return A."""
        self.action_max = check_qpg_action_space(env_spaces.action, type(self).__name__)
        return int(env_spaces.action.shape[0])

    # ---- training-facing ------------------------------------------------------------------

    def twin_q(self, names: tuple[str, str], inputs: tuple) -> tuple[torch.Tensor, torch.Tensor]:
        """The twin-Q forward: both Q models ``names`` on the same model ``inputs``.

        Args:
            names: The two Q models' attributes (``("q_model", "q2_model")`` in TD3,
                ``("q1_model", "q2_model")`` in SAC, or their targets).
            inputs: ``(observation, prev_action, prev_reward, action)`` on the device.

        Returns:
            ``(Q1, Q2)``, each ``[*lead]`` on the device.
        """
        first, second = names
        return getattr(self, first)(*inputs), getattr(self, second)(*inputs)


class MinItrLearnMixin(QpgAgent):
    """``give_min_itr_learn``: the iteration where learning starts, shared with sampler workers.

    The agents explore differently before it (``pretrain_std``). Combined before the agent's
    family; the shared value is allocated at construction, before any sampler worker exists.
    """

    def __post_init__(self) -> None:
        """Allocate the shared value (0 until the algorithm gives it)."""
        super().__post_init__()
        # Shared before any worker starts: the algorithm sets it after the sampler started.
        self._min_itr_learn = np_mp_array(1, np.int64)

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


TwinQ = tuple[torch.Tensor, torch.Tensor]


class TwinQMixin(QpgAgent):
    """The twin-Q forward, written once: ``q`` and ``target_q`` of two Q models (TD3, SAC).

    The host names its two Q models in ``twin_q_names``; their targets are ``target_`` plus
    those names. Combine before a single-Q agent (TD3: before ``DdpgAgent``) to replace its
    ``q``.
    """

    twin_q_names: ClassVar[tuple[str, str]] = ("q1_model", "q2_model")

    def q(
        self, observation: Tensor, prev_action: Tensor, prev_reward: Tensor, action: Tensor
    ) -> TwinQ:
        """``(Q1(s, action), Q2(s, action))``, each ``[*lead]`` on the device, with gradients."""
        return self._twin_q_of("", (observation, prev_action, prev_reward, action))

    @torch.no_grad()
    def target_q(
        self, observation: Tensor, prev_action: Tensor, prev_reward: Tensor, action: Tensor
    ) -> TwinQ:
        """Both target Qs at ``action``, each ``[*lead]`` on the device, without gradients."""
        return self._twin_q_of("target_", (observation, prev_action, prev_reward, action))

    def _twin_q_of(self, prefix: str, inputs: tuple[Tensor, ...]) -> TwinQ:
        """:meth:`twin_q` of the models ``prefix + twin_q_names``; inputs moved to the device."""
        first, second = self.twin_q_names
        return self.twin_q((prefix + first, prefix + second), self._model_inputs(inputs))
