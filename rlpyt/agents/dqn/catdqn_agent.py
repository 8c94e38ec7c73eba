"""CatDqnAgent: a categorical (C51) deep-Q agent over per-action value distributions.

Box: Agent. As ``DqnAgent``, but the model outputs atom probabilities ``p [..., A, n_atoms]``
(``__call__`` and ``target`` return them, ``AgentInfo(p)`` is stored per step) and actions are
epsilon-greedy on ``Q(a) = sum_i p(a, i) z_i`` (``CategoricalEpsilonGreedy``). CategoricalDQN
calls :meth:`CatDqnAgent.give_V_min_max` in its ``initialize`` to set the support
``z = linspace(V_min, V_max, n_atoms)``.

Why workers need not see ``give_V_min_max`` (it runs after CPU-sampler workers started, so
their copies keep the initial support): with ``sum_i p(a, i) = 1`` and ``z`` evenly spaced,
``Q(a) = V_min + (V_max - V_min) * sum_i p(a, i) * i / (n_atoms - 1)``, whose argmax over
actions is the same for every ``V_max > V_min``; only the greedy choice depends on ``z``.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

import torch

from rlpyt.agents.base import check_discrete_action_space
from rlpyt.agents.dqn.dqn_agent import DqnAgent
from rlpyt.distributions.epsilon_greedy import CategoricalEpsilonGreedy
from rlpyt.utils.collections import namedarraytuple
from rlpyt.utils.hyperparams import Range, hyperparam

if TYPE_CHECKING:
    from rlpyt.envs.base import EnvSpaces

AgentInfo = namedarraytuple("AgentInfo", ["p"])

DEFAULT_V_MIN = -10.0  # CategoricalDQN's defaults, until give_V_min_max
DEFAULT_V_MAX = 10.0


class CatDqnAgent(DqnAgent):
    """Categorical DQN agent: ``model -> p [..., A, n_atoms]``; ``n_atoms`` goes to the model.

    ``ModelCls`` takes ``n_atoms``: ``model_kwargs`` get the agent's (a different ``n_atoms``
    there is replaced, with a warning).
    """

    agent_info_cls = AgentInfo
    n_atoms: int = hyperparam(
        51,
        "Number of atoms of each action's value distribution.",
        Range(low=2, integer=True),
        after="initial_model_state_dict",
    )

    def __post_init__(self) -> None:
        """``model_kwargs`` get ``n_atoms`` (warned if they set another); the default support."""
        super().__post_init__()
        given = self.model_kwargs.get("n_atoms", self.n_atoms)
        if given != self.n_atoms:  # the agent's value wins: say so, not silently
            warnings.warn(
                f"{type(self).__name__}: model_kwargs n_atoms={given!r} differs from "
                f"n_atoms={self.n_atoms!r}; the model gets the agent's n_atoms={self.n_atoms!r}. "
                "Set it once, as the agent's n_atoms.",
                UserWarning,
                stacklevel=3,
            )
        self.model_kwargs["n_atoms"] = self.n_atoms
        self.V_min = DEFAULT_V_MIN
        self.V_max = DEFAULT_V_MAX

    def make_distribution(self, env_spaces: EnvSpaces) -> CategoricalEpsilonGreedy:
        """``CategoricalEpsilonGreedy(dim=n, z=linspace(V_min, V_max, n_atoms))``.

        Raises:
            ValueError: the action space is not one discrete choice ``0..n-1``.
        """
        check_discrete_action_space(env_spaces.action, type(self).__name__)
        return CategoricalEpsilonGreedy(
            z=self._support(), epsilon=self.epsilon, dim=int(env_spaces.action.n)
        )

    def give_V_min_max(self, V_min: float, V_max: float) -> None:  # noqa: N802, N803
        """Set the support of the value distributions: ``linspace(V_min, V_max, n_atoms)``.

        Raises:
            ValueError: ``V_max <= V_min``.
        """
        if not V_max > V_min:
            raise ValueError(
                f"{type(self).__name__}: V_max={V_max!r} must be greater than V_min={V_min!r}."
            )
        self.V_min = V_min
        self.V_max = V_max
        if self.distribution is not None:
            self.distribution.set_z(self._support())

    def _support(self) -> torch.Tensor:
        return torch.linspace(self.V_min, self.V_max, self.n_atoms)
