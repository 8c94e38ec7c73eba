"""SacAgent for SAC_V: the SAC agent plus a state-value model V(s) and its target copy.

Box: Agent. Pairs with ``rlpyt.algos.qpg.sac_v.SAC_V`` (the first SAC paper's variant, with a
value function; Haarnoja et al. 2018, "Soft Actor-Critic: Off-Policy Maximum Entropy Deep
Reinforcement Learning with a Stochastic Actor"), which calls ``q``, ``v``, ``target_v``,
``pi`` and the ``*_parameters`` methods. The class keeps rlpyt's name, ``SacAgent``, in this
module. Here the Q models have no targets: the target of the Q loss is the target V.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, ClassVar

import torch

from rlpyt.agents.base import ModelClass
from rlpyt.agents.qpg.sac_agent import SacAgent as _SacAgent
from rlpyt.models.qpg.mlp import VMlpModel
from rlpyt.utils.hyperparams import hyperparam


class SacAgent(_SacAgent):
    """SAC_V agent: pi, Q1, Q2, V and target V.

    ``VModelCls`` is built with ``observation_shape``, ``action_size`` plus
    ``v_model_kwargs``; the other keywords are ``rlpyt.agents.qpg.sac_agent.SacAgent``'s.
    """

    VModelCls: type[torch.nn.Module] = hyperparam(VMlpModel, "Value class.", after="QModelCls")

    v_model: Any
    target_v_model: Any

    model_names: ClassVar[tuple[str, ...]] = (
        "model",
        "q1_model",
        "q2_model",
        "v_model",
        "target_v_model",
    )
    trained_names: ClassVar[tuple[str, ...]] = ("model", "q1_model", "q2_model", "v_model")
    target_sources: ClassVar[Mapping[str, str]] = {"target_v_model": "v_model"}

    def model_specs(self) -> dict[str, tuple[ModelClass, Mapping[str, Any]]]:
        """Q1, Q2 (``QModelCls``, ``q_model_kwargs``) and V (``VModelCls``, ``v_model_kwargs``)."""
        return dict(super().model_specs(), v_model=(self.VModelCls, self.v_model_kwargs))

    def target_q(
        self,
        observation: torch.Tensor,
        prev_action: torch.Tensor,
        prev_reward: torch.Tensor,
        action: torch.Tensor,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Not available: this agent has no target Qs (SAC_V bootstraps with ``target_v``)."""
        raise AttributeError(
            "sac_v_agent.SacAgent has no target Q models; SAC_V bootstraps with target_v(). "
            "Use rlpyt.agents.qpg.sac_agent.SacAgent with SAC."
        )

    def v(
        self, observation: torch.Tensor, prev_action: torch.Tensor, prev_reward: torch.Tensor
    ) -> torch.Tensor:
        """``V(s) [*lead]`` on the device, with gradients."""
        return self.v_model(*self._model_inputs((observation, prev_action, prev_reward)))

    @torch.no_grad()
    def target_v(
        self, observation: torch.Tensor, prev_action: torch.Tensor, prev_reward: torch.Tensor
    ) -> torch.Tensor:
        """Target ``V'(s) [*lead]`` on the device, without gradients."""
        return self.target_v_model(*self._model_inputs((observation, prev_action, prev_reward)))

    def v_parameters(self) -> Iterator[torch.nn.Parameter]:
        """Parameters of V."""
        return self.v_model.parameters()
