"""SamplingNoise: the action noise of training samples, independent of the worker split.

Box: Sampler (agent-side helper). Every sampler calls :func:`install_sampling_noise` on each
agent instance it steps (the serial sampler's, each CPU worker's, the GPU action server's)
after building the buffers. Invariant: for one sampler seed, every process draws the same
``[global_B]`` noise per sample-mode step and uses its own ``env_ranks`` rows, so the noise is
identical whatever the split of envs over workers. Discrete actions are then bit-identical;
continuous ones (Gaussian agents) agree to float rounding, since the model's forward over a
different number of envs can round differently (about 1e-7).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

import numpy as np
import torch

from rlpyt.distributions.categorical import Categorical
from rlpyt.distributions.epsilon_greedy import CategoricalEpsilonGreedy, EpsilonGreedy
from rlpyt.distributions.gaussian import Gaussian

if TYPE_CHECKING:
    from rlpyt.distributions.base import Distribution
    from rlpyt.protocols import Agent

NOISE_STREAM = 0x6E6F697365  # SeedSequence key of the action-noise stream, apart from envs'


class SamplingNoise:
    """Stands in for an agent's distribution so that training samples use pre-drawn noise.

    Why: a batched draw over all envs (serial sampler, GPU action server) and per-worker draws
    over slices (CPU sampler) consume torch's generator differently, so the same seed would give
    different actions. Here every process that samples holds a generator seeded identically
    from the sampler seed; at each agent step in sample mode it draws the noise of all
    ``global_B`` envs (uniforms ``[global_B]`` for Categorical, standard normals
    ``[global_B, dim]`` for Gaussian, uniform pairs ``[global_B, 2]`` for EpsilonGreedy and
    CategoricalEpsilonGreedy: explore or not, which random action) and passes the rows of its
    own ``env_ranks`` to ``distribution.sample(dist_info, noise=...)``. Every process advances
    its generator once per step, so all stay in step; this noise replaces any noise the agent
    passes itself. In other modes (evaluation), or when the number of rows does not match, the
    agent's own noise (or torch's generator) is used as before. Everything else is forwarded
    to the wrapped distribution.

    Args:
        distribution: A Categorical, Gaussian, EpsilonGreedy or CategoricalEpsilonGreedy.
        agent: The agent (its mode decides whether the noise is used).
        seed: Sampler seed.
        global_B: Envs over all workers.
        env_ranks: Global indexes of the envs this agent instance steps.
    """

    def __init__(
        self,
        distribution: Categorical | Gaussian | EpsilonGreedy,
        agent: Agent,
        seed: int,
        global_B: int,  # noqa: N803
        env_ranks: list[int],
    ):
        self.distribution = distribution
        self.agent = agent
        self.global_B = int(global_B)
        self.rows = np.asarray(env_ranks, dtype=np.int64)
        self.normal = isinstance(distribution, Gaussian)
        self.epsilon_greedy = isinstance(distribution, EpsilonGreedy)
        # Leading dims of what sample() receives: dims before [A] (prob, mean, q) or before
        # [A, n_atoms] (categorical DQN's p).
        self._event_ndim = 2 if isinstance(distribution, CategoricalEpsilonGreedy) else 1
        self.rng = np.random.default_rng([int(seed), NOISE_STREAM])
        # Draws go into one reused array; this process's rows are a slice of it when its env
        # ranks are consecutive (they are in every sampler), else a gather.
        shape: tuple[int, ...] = (self.global_B,)
        if self.normal:
            shape = (self.global_B, distribution.dim)
        elif self.epsilon_greedy:
            shape = (self.global_B, 2)
        self._noise = np.empty(shape, dtype=np.float32)
        start = int(self.rows[0]) if len(self.rows) else 0
        block = np.arange(start, start + len(self.rows))
        consecutive = np.array_equal(self.rows, block)
        self._mine: slice | np.ndarray = (
            slice(start, start + len(self.rows)) if consecutive else self.rows
        )

    def sample(self, dist_info: Any, noise: torch.Tensor | None = None) -> torch.Tensor:
        """``distribution.sample`` with this process's rows of the shared noise (sample mode)."""
        # In sample mode the shared noise replaces whatever noise the agent drew itself.
        if self.agent.mode == "sample":
            shared = self._draw(dist_info)
            if shared is not None:
                noise = shared
        return self.distribution.sample(dist_info, noise=noise)

    def _draw(self, dist_info: Any) -> torch.Tensor | None:
        leading = self._leading_shape(dist_info)
        if self.normal:
            self.rng.standard_normal(dtype=np.float32, out=self._noise)
        else:
            self.rng.random(dtype=np.float32, out=self._noise)
        if leading.numel() != len(self.rows):
            return None  # not a step over this agent's envs
        # A copy, not a view of the reused array: the caller may keep the noise.
        noise = torch.from_numpy(self._noise[self._mine].copy())
        return noise if len(leading) == 1 else noise.reshape(*leading, *noise.shape[1:])

    def _leading_shape(self, dist_info: Any) -> torch.Size:
        if self.epsilon_greedy:  # dist_info is q [..., A] or p [..., A, n_atoms] itself
            return dist_info.shape[: -self._event_ndim]
        return (dist_info.mean if self.normal else dist_info.prob).shape[:-1]

    def state_dict(self) -> dict:
        """The generator state (for exact resume)."""
        return dict(self.rng.bit_generator.state)

    def load_state_dict(self, state: dict) -> None:
        """Restore the generator state."""
        self.rng.bit_generator.state = state

    def __getattr__(self, name: str) -> Any:
        if name == "distribution":  # not set yet (unpickling): do not recurse
            raise AttributeError(name)
        return getattr(self.distribution, name)


def install_sampling_noise(
    agent: Agent,
    seed: int,
    global_B: int,  # noqa: N803
    env_ranks: list[int],
) -> SamplingNoise | None:
    """Wrap ``agent.distribution`` in :class:`SamplingNoise`.

    Only Categorical, Gaussian, EpsilonGreedy and CategoricalEpsilonGreedy distributions are
    wrapped.

    Called by every sampler, after the buffers are built, with the sampler seed. Returns the
    wrapper, or None when the distribution is of another kind (it then samples as before).
    """
    distribution = agent.distribution
    if isinstance(distribution, SamplingNoise):
        distribution = distribution.distribution
    if not isinstance(distribution, (Categorical, Gaussian, EpsilonGreedy)):
        return None
    noise = SamplingNoise(distribution, agent, seed, global_B, env_ranks)
    # It stands in for the distribution: every member but ``sample`` is forwarded.
    agent.distribution = cast("Distribution", noise)
    return noise
