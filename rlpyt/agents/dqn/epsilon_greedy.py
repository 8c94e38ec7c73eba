"""EpsilonGreedyAgentMixin: the exploration schedule of the deep-Q agents.

Box: Agent (the base of ``DqnAgent`` and its subclasses). Who calls what:

- the DQN-family algorithm, in its ``initialize`` (after the sampler started its workers),
  converts ``min_steps_learn`` and ``eps_steps`` to iterations and calls
  :meth:`EpsilonGreedyAgentMixin.set_epsilon_itr_min_max`;
- samplers call ``initialize(..., global_B, env_ranks)`` and ``collector_initialize(global_B,
  env_ranks)`` on each agent instance they step (the serial sampler's, each CPU worker's, the
  GPU action server's), which slices a per-env epsilon vector to those envs;
- runners and collectors call ``sample_mode(itr)`` / ``eval_mode(itr)``, which set the
  distribution's epsilon for that iteration.

Invariant: the iteration pair ``(eps_itr_min, eps_itr_max)`` lives in a shared-memory int
array allocated at construction, before any sampler worker exists; workers receive the agent at
their start (fork, or pickled by reference in the ``Process`` arguments under spawn and
forkserver), so a schedule set later by the algorithm in the master is the one every worker
reads at its next ``sample_mode``.

Schedule (rlpyt's): in sample mode epsilon is ``eps_init`` up to ``eps_itr_min``, ``eps_final``
from ``eps_itr_max`` on, and linear in between. With ``eps_final_min`` (< ``eps_final``) each
env gets its own final epsilon, log-spaced from ``eps_final_min`` to ``eps_final`` over the
``global_B`` envs (Ape-X style); an agent instance holds the values of its ``env_ranks``. With
an alternating sampler (``agent.alternating``) the two env groups (even and odd batch columns)
step in turns, one agent forward per group, so env ``j`` of one group and env ``j`` of the
other (columns ``2j`` and ``2j + 1``) share one value, over ``global_B / 2`` log-spaced
values. In eval mode epsilon is ``eps_eval``, except 1.0 at iteration 0: the evaluation before
any training measures a random policy.
"""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np
import torch

from rlpyt.agents.base import BaseAgent
from rlpyt.utils.checks import check_number
from rlpyt.utils.hyperparams import FRACTION, STEPS, hyperparam
from rlpyt.utils.shared_memory import np_mp_array

if TYPE_CHECKING:
    from rlpyt.envs.base import EnvSpaces

EpsilonValue = float | torch.Tensor  # a scalar, or one value per local env [B]


class SharedEpsilonItrs:
    """``eps_itr_min`` and ``eps_itr_max``, kept in a shared-memory int array of two.

    The array is allocated at the first write, which is the constructor's (it stores both
    keywords), so before any sampler worker exists. These properties live apart from
    :class:`EpsilonGreedyAgentMixin`, whose class declares the two keywords under the same names.
    """

    @cached_property
    def _eps_itr_bounds(self) -> np.ndarray:
        return np_mp_array(2, np.int64)

    @property
    def eps_itr_min(self) -> int:
        """Iteration where the decay starts (read from shared memory)."""
        return int(self._eps_itr_bounds[0])

    @eps_itr_min.setter
    def eps_itr_min(self, value: int) -> None:
        self._eps_itr_bounds[0] = value

    @property
    def eps_itr_max(self) -> int:
        """Iteration where the decay ends (read from shared memory)."""
        return int(self._eps_itr_bounds[1])

    @eps_itr_max.setter
    def eps_itr_max(self, value: int) -> None:
        self._eps_itr_bounds[1] = value


class EpsilonGreedyAgentMixin(BaseAgent, SharedEpsilonItrs):
    """Sets the epsilon of an ``EpsilonGreedy`` distribution by iteration and mode.

    Its keywords come after ``BaseAgent``'s (``class DqnAgent(EpsilonGreedyAgentMixin)``).
    ``eps_itr_min`` and ``eps_itr_max`` live in shared memory (:class:`SharedEpsilonItrs`);
    the algorithm usually resets them with :meth:`set_epsilon_itr_min_max`.

    Raises:
        ValueError: an epsilon outside ``[0, 1]``, ``eps_final_min`` outside
            ``(0, eps_final]``, or ``eps_itr_max < eps_itr_min``.
    """

    eps_init: float = hyperparam(1, "Sample-mode epsilon up to ``eps_itr_min``.", FRACTION)
    eps_final: float = hyperparam(
        0.01,
        "Sample-mode epsilon from ``eps_itr_max`` on (with ``eps_final_min``: the largest "
        "final value).",
        FRACTION,
    )
    eps_final_min: float | None = hyperparam(
        None,
        "Smallest of the log-spaced per-env final values, in ``(0, eps_final]``; None: one "
        "epsilon for all envs.",
    )
    eps_itr_min: int = hyperparam(50, "Iteration where the linear decay starts.", STEPS)
    eps_itr_max: int = hyperparam(
        1000, "Iteration where the decay ends (not before ``eps_itr_min``).", STEPS
    )
    eps_eval: float = hyperparam(0.001, "Eval-mode epsilon (after iteration 0).", FRACTION)

    def __post_init__(self) -> None:
        """Check ``eps_final_min`` and the iteration pair; the starting epsilons."""
        super().__post_init__()
        if self.eps_final_min is not None:
            check_number(
                type(self).__name__,
                "eps_final_min",
                self.eps_final_min,
                low=0,
                low_open=True,
                high=self.eps_final,
            )
        self.set_epsilon_itr_min_max(self.eps_itr_min, self.eps_itr_max)
        self._eps_init_value: EpsilonValue = self.eps_init
        self._eps_final_value: EpsilonValue = self.eps_final
        self._epsilon: EpsilonValue = self.eps_init

    # ---- schedule -----------------------------------------------------------------------

    def set_epsilon_itr_min_max(self, eps_itr_min: int, eps_itr_max: int) -> None:
        """Set the iterations where the linear decay starts and ends (visible to workers).

        Raises:
            ValueError: negative, fractional, or ``eps_itr_max < eps_itr_min``.
        """
        owner = type(self).__name__
        itr_min = check_number(owner, "eps_itr_min", eps_itr_min, low=0, integer=True)
        itr_max = check_number(owner, "eps_itr_max", eps_itr_max, low=itr_min, integer=True)
        self._eps_itr_bounds[:] = (itr_min, itr_max)

    @property
    def epsilon(self) -> EpsilonValue:
        """The epsilon now in use: a float, or a ``[B]`` tensor over this instance's envs."""
        return self._epsilon

    def sample_epsilon(self, itr: int) -> EpsilonValue:
        """The sample-mode epsilon at ``itr`` (scalar, or ``[B]`` with per-env finals)."""
        itr_min, itr_max = int(self._eps_itr_bounds[0]), int(self._eps_itr_bounds[1])
        if itr <= itr_min:
            return self._eps_init_value
        if itr >= itr_max:
            return self._eps_final_value
        fraction = (itr - itr_min) / (itr_max - itr_min)
        return self._eps_init_value + fraction * (self._eps_final_value - self._eps_init_value)

    def eval_epsilon(self, itr: int) -> float:
        """The eval-mode epsilon: 1.0 at iteration 0 (a random policy), else ``eps_eval``."""
        return 1.0 if itr == 0 else self.eps_eval

    # ---- per-env finals -------------------------------------------------------------------

    def initialize(
        self,
        env_spaces: EnvSpaces,
        share_memory: bool = False,
        global_B: int = 1,  # noqa: N803
        env_ranks: list[int] | None = None,
    ) -> None:
        """``BaseAgent.initialize``, then the per-env epsilons of ``env_ranks`` (if given)."""
        super().initialize(
            env_spaces, share_memory=share_memory, global_B=global_B, env_ranks=env_ranks
        )
        if env_ranks is not None:
            self.make_vec_eps(global_B, env_ranks)

    def collector_initialize(self, global_B: int = 1, env_ranks: list[int] | None = None) -> None:  # noqa: N803
        """Take the per-env epsilons of this collector's envs (``env_ranks`` of ``global_B``)."""
        if env_ranks is not None:
            self.make_vec_eps(global_B, env_ranks)

    def make_vec_eps(self, global_B: int, env_ranks: list[int]) -> None:  # noqa: N803
        """Per-env final epsilons for ``env_ranks`` (a no-op without ``eps_final_min``).

        Raises:
            ValueError: alternating sampling with an odd ``global_B`` (envs share values in
                pairs across the two groups).
        """
        if self.eps_final_min is None or self.eps_final_min == self.eps_final:
            return
        n_values, ranks = global_B, list(env_ranks)
        if self.alternating:
            if global_B % 2:
                raise ValueError(
                    f"{type(self).__name__}: alternating sampling with eps_final_min needs an "
                    f"even number of envs (pairs share an epsilon); got global_B={global_B}."
                )
            n_values = global_B // 2
            ranks = sorted({rank % n_values for rank in ranks})
        finals = np.logspace(np.log10(self.eps_final_min), np.log10(self.eps_final), n_values)
        self._eps_final_value = torch.tensor(finals[ranks], dtype=torch.float32)
        self._eps_init_value = torch.full((len(ranks),), float(self.eps_init))
        self._epsilon = self._eps_init_value

    # ---- modes ------------------------------------------------------------------------------

    def sample_mode(self, itr: int) -> None:
        """``BaseAgent.sample_mode``, then the scheduled epsilon for ``itr``."""
        super().sample_mode(itr)
        self._set_epsilon(self.sample_epsilon(itr))

    def eval_mode(self, itr: int) -> None:
        """``BaseAgent.eval_mode``, then the eval epsilon (1.0 at iteration 0)."""
        super().eval_mode(itr)
        self._set_epsilon(self.eval_epsilon(itr))

    def _set_epsilon(self, epsilon: EpsilonValue) -> None:
        self._epsilon = epsilon
        if self.distribution is not None:
            self.distribution.set_epsilon(epsilon)
