"""Policy-gradient agents with a categorical policy (discrete actions).

The skeletons of ``rlpyt.agents.pg.base`` with :class:`CategoricalPgMixin`: the model maps
``(observation, prev_action one-hot, prev_reward[, init_rnn_state])`` to
``(pi, value[, next_rnn_state])``; the agent one-hot codes ``prev_action`` (integer ``[...]``)
before the model. Shapes: ``observation [..., *obs_shape]``, ``prev_reward [...]``,
``pi [..., A]``, ``value [...]`` with leading ``[]``, ``[B]`` or ``[T, B]``; rnn state fields
``[N, B, H]``. ``dist_info`` is ``DistInfo(prob=pi)``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

# check_discrete_action_space lives in rlpyt.agents.base; this module stays an import path of it.
from rlpyt.agents.base import check_discrete_action_space, model_reads_prev_action
from rlpyt.agents.pg.base import PgAgent, RecurrentPgAgent
from rlpyt.agents.recurrent import AlternatingRecurrentAgentMixin, RecurrentAgentMixin
from rlpyt.distributions.categorical import Categorical, DistInfo

if TYPE_CHECKING:
    from rlpyt.envs.base import EnvSpaces


class CategoricalPgMixin:
    """Builds ``Categorical(dim=n)`` and one-hot codes ``prev_action`` on the device.

    Combined before a PG skeleton (``PgAgent``, ``RecurrentPgAgent``), whose ``BaseAgent``
    provides the attributes declared here.
    """

    DistInfoCls = DistInfo
    # A Categorical made by BaseAgent.initialize (make_distribution), or the sampler's
    # SamplingNoise standing in for it; typed as BaseAgent's, so agents fit the Agent Protocol.
    distribution: Any
    model: Any  # from BaseAgent (None before initialize)
    _to_device: Callable[[Any], Any]  # from BaseAgent

    def make_distribution(self, env_spaces: EnvSpaces) -> Categorical:
        """``Categorical(dim=n)`` over the ``n`` discrete actions.

        Raises:
            ValueError: the action space is not one discrete choice ``0..n-1`` (``Discrete(n)``
                or a scalar ``IntBox(0, n)``); the message names the env's space.
        """
        check_discrete_action_space(env_spaces.action, type(self).__name__)
        return Categorical(dim=int(env_spaces.action.n))

    def _model_inputs(self, inputs: tuple) -> tuple:
        # Move first, then one-hot: the integer actions are the smaller tensor to move.
        observation, prev_action, *rest = self._to_device(inputs)
        if not model_reads_prev_action(self.model):
            return (observation, prev_action, *rest)  # the model ignores it: no one-hot
        return (observation, self.distribution.to_onehot(prev_action), *rest)


class CategoricalPgAgent(CategoricalPgMixin, PgAgent):
    """Feed-forward categorical policy agent; the model returns ``(pi, value)``."""


class RecurrentCategoricalPgAgent(RecurrentAgentMixin, CategoricalPgMixin, RecurrentPgAgent):
    """Recurrent categorical policy agent with one recurrent state for all its envs."""


class AlternatingRecurrentCategoricalPgAgent(
    AlternatingRecurrentAgentMixin, CategoricalPgMixin, RecurrentPgAgent
):
    """Recurrent categorical policy agent for the alternating samplers (two env groups)."""


class RecurrentCategoricalPgAgentBase(CategoricalPgMixin, RecurrentPgAgent):
    """A recurrent categorical agent without its recurrent-state mixin.

    Kept for rlpyt's import path: rlpyt's recurrent agents were this plus a state mixin.
    """
