"""The replayed batch of non-sequence replays: inputs at t, n-step returns, bootstrap inputs.

Box: Replay. ``NStepReturnBuffer`` turns sampled ``(T_idxs, B_idxs)`` into the record the
DQN-family and Q-function policy-gradient algorithms train on; the uniform and prioritized
mixins (``uniform.py``, ``prioritized.py``) choose the indexes. Invariant: every field is a torch
tensor with leading dim ``[batch_B]``, and every bootstrap row is a written, finite row.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from rlpyt.agents.base import AgentInputs
from rlpyt.replays.n_step import BaseNStepReturnBuffer
from rlpyt.utils.buffer import torchify_buffer
from rlpyt.utils.collections import namedarraytuple

SamplesFromReplay = namedarraytuple(
    "SamplesFromReplay",
    ["agent_inputs", "action", "return_", "done", "done_n", "target_inputs", "target_discount"],
)
"""A replayed batch; DQN's target is ``return_ + (1 - done_n) * target_discount * Q(target)``."""


class NStepReturnBuffer(BaseNStepReturnBuffer):
    """Non-sequence replay storage that builds ``SamplesFromReplay`` batches.

    Subclasses choose the record through ``replay_batch_cls``; every field the record names is
    filled from ``extract_batch`` (time-limit records add ``timeout`` and ``timeout_n``,
    prioritized ones ``is_weights``).
    """

    replay_batch_cls: ClassVar[Any] = SamplesFromReplay

    def extract_batch(self, T_idxs: np.ndarray, B_idxs: np.ndarray, **extra: np.ndarray) -> Any:
        """The replayed record of rows ``(T_idxs, B_idxs)`` as torch tensors.

        Args:
            T_idxs: ``[batch_B]`` row indexes (each in the sampleable zone).
            B_idxs: ``[batch_B]`` column indexes.
            **extra: Further fields (e.g. ``is_weights``) as numpy arrays.

        Returns:
            A ``replay_batch_cls`` record: ``agent_inputs = AgentInputs(obs[t], action[t-1],
            reward[t-1])`` (prev action/reward zeroed at episode starts), ``action[t]``,
            ``return_``, ``done[t]``, ``done_n``, ``target_inputs`` (the same at the bootstrap
            row), ``target_discount`` (float32), plus ``timeout[t]`` and ``timeout_n``.
        """
        targets = self.n_step_targets(T_idxs, B_idxs)
        n = len(T_idxs)
        inputs = self.extract_agent_inputs(  # one gather for online and bootstrap rows
            np.concatenate([T_idxs, targets.target_T_idxs]), np.concatenate([B_idxs, B_idxs])
        )
        fields: dict[str, Any] = {
            "agent_inputs": inputs[:n],
            "action": self.samples.action[T_idxs, B_idxs],
            "return_": targets.return_,
            "done": self.samples.done[T_idxs, B_idxs],
            "done_n": targets.done_n,
            "target_inputs": inputs[n:],
            "target_discount": targets.target_discount,
            "timeout_n": targets.timeout_n,
            **extra,
        }
        if self.has_timeout:
            fields["timeout"] = self.samples.timeout[T_idxs, B_idxs]
        cls = self.replay_batch_cls
        return torchify_buffer(cls(**{name: fields[name] for name in cls._fields}))

    def extract_agent_inputs(self, T_idxs: np.ndarray, B_idxs: np.ndarray) -> Any:
        """``AgentInputs(observation[t], action[t-1], reward[t-1])``, prev zeroed at starts."""
        prev_t_idxs = (T_idxs - 1) % self.T
        start = self.boundary(prev_t_idxs, B_idxs)
        prev_action = self.samples.action[prev_t_idxs, B_idxs]
        prev_reward = self.samples.reward[prev_t_idxs, B_idxs]
        keep = ~start.reshape(start.shape + (1,) * (prev_action.ndim - start.ndim))
        return AgentInputs(
            observation=self.extract_observation(T_idxs, B_idxs),
            prev_action=prev_action * keep.astype(prev_action.dtype),
            prev_reward=np.where(start, 0, prev_reward).astype(prev_reward.dtype),
        )

    def extract_observation(self, T_idxs: np.ndarray, B_idxs: np.ndarray) -> np.ndarray:
        """Observations of rows ``(T_idxs, B_idxs)``: ``[batch_B, *obs_shape]``."""
        return self.samples.observation[T_idxs, B_idxs]
