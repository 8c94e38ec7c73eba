"""CategoricalDQN (C51): distributional deep Q-learning on a fixed support of atoms.

Box: Algorithm (deep Q family). Everything but the loss is DQN's: the replay, the schedules,
the target updates. The agent (``CatDqnAgent``) outputs per-action probabilities over
``n_atoms`` values ``z = linspace(V_min, V_max, n_atoms)``; the target distribution is the
target network's distribution at the greedy next action, shifted and shrunk by the replayed
return (``return_ + (1 - done_n) * target_discount * z``) and projected back onto ``z``; the
loss is its cross-entropy with the online distribution of the replayed action.

Bellemare, Dabney and Munos, 2017, "A Distributional Perspective on Reinforcement Learning".
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch

from rlpyt.algos.dqn.dqn import DQN
from rlpyt.utils.hyperparams import FIRST, NUMBER, hyperparam
from rlpyt.utils.tensor import select_at_indexes

if TYPE_CHECKING:
    from rlpyt.agents.dqn.catdqn_agent import CatDqnAgent
    from rlpyt.utils.collections import NamedArrayTupleLike
    from rlpyt.utils.records import BatchSpec

PROB_FLOOR = 1e-6  # probabilities are clamped here before taking logs
PROJECTION_CHUNK = 1024  # rows projected at once ([rows, n_atoms, n_atoms] weights)


class CategoricalDQN(DQN):
    """C51: ``V_min``, ``V_max``, then every :class:`DQN` keyword.

    ``delta_clip`` is unused by the loss (cross-entropy) but still sets the default priority.
    The TD errors logged (``tdAbsErr``) and used as priorities are the KL divergences between
    the projected target distribution and the online one.

    Raises:
        ValueError: ``V_min`` not below ``V_max``, or a :class:`DQN` keyword out of range.
    """

    V_min: float = hyperparam(-10, "Lowest atom of the value support.", NUMBER, after=FIRST)
    V_max: float = hyperparam(10, "Highest atom of the value support.", NUMBER, after="V_min")

    agent: CatDqnAgent  # set by initialize

    def __post_init__(self) -> None:
        """DQN's resolution; the support must run upwards."""
        if not self.V_min < self.V_max:
            raise ValueError(
                f"CategoricalDQN: V_min={self.V_min!r} must be below V_max={self.V_max!r} (the "
                "value support runs from V_min to V_max)."
            )
        self.V_min, self.V_max = float(self.V_min), float(self.V_max)
        super().__post_init__()

    def _setup_schedules(self, batch_spec: BatchSpec) -> None:
        """As :class:`DQN`, and give the agent the value support."""
        super()._setup_schedules(batch_spec)
        self.agent.give_V_min_max(self.V_min, self.V_max)

    def loss(
        self, samples: NamedArrayTupleLike, target: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Cross-entropy to the projected target distribution.

        Args:
            samples: The minibatch.
            target: Its projected target distributions ``[batch, n_atoms]`` if already
                computed (:meth:`targets`).

        Returns:
            ``(loss, kl [batch])``: the (importance-weighted) mean cross-entropy, and the KL
            divergence of each replayed step (its priority), detached, on the device.
        """
        ps = self.agent(*samples.agent_inputs)  # [batch, A, n_atoms]
        p = select_at_indexes(samples.action, ps)  # [batch, n_atoms]
        target_p = self.targets(samples) if target is None else target
        log_p = p.clamp(min=PROB_FLOOR).log()
        losses = -(target_p * log_p).sum(dim=-1)
        if self.prioritized_replay:
            losses = losses * samples.is_weights
        with torch.no_grad():
            kl = (target_p * (target_p.clamp(min=PROB_FLOOR).log() - log_p)).sum(dim=-1)
        return losses.mean(), kl.clamp(min=0)

    @torch.no_grad()
    def targets(self, samples: NamedArrayTupleLike) -> torch.Tensor:
        """Projected target distributions ``[rows, n_atoms]``, in chunks of 1024 rows."""
        device = self.agent.device
        n = len(samples.return_)
        if n <= PROJECTION_CHUNK:
            return self.projected_target(samples, device)
        chunks = [
            self.projected_target(samples[i : i + PROJECTION_CHUNK], device)
            for i in range(0, n, PROJECTION_CHUNK)
        ]
        return torch.cat(chunks)

    def projected_target(self, samples: NamedArrayTupleLike, device: torch.device) -> torch.Tensor:
        """The target distribution ``[batch, n_atoms]`` on the support ``z``.

        Each target atom ``z_j`` moves to ``return_ + (1 - done_n) * target_discount * z_j``
        (clipped to ``[V_min, V_max]``) and its probability is split between the two nearest
        atoms of ``z`` in proportion to closeness: ``sum_j p_j * max(0, 1 - |tz_j - z_i| / dz)``.
        """
        target_ps = self.agent.target(*samples.target_inputs)  # [batch, A, P]
        n_atoms = target_ps.shape[-1]
        z = torch.linspace(self.V_min, self.V_max, n_atoms, device=device)
        if self.double_dqn:
            next_ps = self.agent(*samples.target_inputs)
        else:
            next_ps = target_ps
        next_action = (next_ps * z).sum(dim=-1).argmax(dim=-1)
        target_p = select_at_indexes(next_action, target_ps)  # [batch, P]
        not_done = (~samples.done_n.bool()).to(z.dtype)
        scale = (samples.target_discount * not_done).unsqueeze(-1)
        moved = (samples.return_.unsqueeze(-1) + scale * z).clamp(self.V_min, self.V_max)
        delta_z = (self.V_max - self.V_min) / (n_atoms - 1)
        # weights[b, i, j]: share of moved atom j that lands on atom i.
        weights = (1 - (moved.unsqueeze(1) - z.view(1, -1, 1)).abs() / delta_z).clamp(min=0)
        return (weights * target_p.unsqueeze(1)).sum(dim=-1)
