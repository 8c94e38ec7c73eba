"""Return and advantage maths of the algorithms: pure functions, no state.

Who calls them: ``PolicyGradientAlgo.process_returns`` (A2C, PPO) calls :func:`discount_return`
(``gae_lambda == 1``) or :func:`generalized_advantage_estimation` on a ``[T, B]`` sampler batch,
or their time-limit variants :func:`discount_return_tl` and
:func:`generalized_advantage_estimation_tl` when some step of the batch was cut by a time limit
(``env_info.timeout``); it masks the steps after a column's first ``done`` with
:func:`valid_from_done` when the sampler did not reset envs mid-batch, or the agent is recurrent.
:func:`discount_return_n_step` is rlpyt's n-step return for replay algorithms (the DQN family);
no algorithm of this package calls it yet. :func:`bootstrap_target` is the target every replay
algorithm (DQN's family, DDPG, TD3, SAC) builds from a replay draw's n-step return.

Every function accepts numpy arrays or torch tensors (all inputs of one call the same kind), laid
out time-major ``[T, ...]``, usually ``[T, B]``. ``done`` (and ``timeout``) may be bool or float;
the return functions convert them to the reward's dtype for the arithmetic. Where a function has
``*_dest`` arguments, outputs are written into them when given (in place, and also returned),
else freshly allocated.

Invariant: a ``done`` at step ``t`` cuts the recursion, so nothing computed for step ``t`` flows
from step ``t + 1`` (which belongs to the next episode).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast, overload

import numpy as np
import torch

Array = np.ndarray | torch.Tensor

if TYPE_CHECKING:
    from rlpyt.utils.collections import NamedArrayTupleLike


def _like(x: Array | float, reference: Array) -> Array:
    """``x`` as the same kind (numpy/torch), dtype (and device) as ``reference``."""
    if isinstance(reference, torch.Tensor):
        return torch.as_tensor(x, dtype=reference.dtype, device=reference.device)
    return np.asarray(x, dtype=reference.dtype)


def _zeros(shape: tuple[int, ...], reference: Array) -> Array:
    if isinstance(reference, torch.Tensor):
        return torch.zeros(shape, dtype=reference.dtype, device=reference.device)
    return np.zeros(shape, dtype=reference.dtype)


def _bootstrap(bootstrap_value: Array, reward: Array) -> Array:
    """Bootstrap value ``[B]`` or ``[1, B]`` (as samplers record it) reshaped to ``reward[-1]``."""
    return _like(bootstrap_value, reward).reshape(tuple(reward.shape[1:]))


def _check_timeout(timeout: Array, done: Array) -> None:
    if bool((timeout & ~done).any()):
        raise ValueError(
            "timeout is set at a step where done is not: a time-limit truncation must also end "
            "the episode (done = terminated or truncated). Check the env wrapper's done/timeout."
        )


def discount_return(
    reward: Array,
    done: Array,
    bootstrap_value: Array,
    discount: float,
    return_dest: Array | None = None,
) -> Array:
    """Discounted return, bootstrapped at the end of the batch, cut at every ``done``.

    ``G[T-1] = r[T-1] + discount * (1 - d[T-1]) * bootstrap_value`` and
    ``G[t] = r[t] + discount * (1 - d[t]) * G[t+1]``.

    Args:
        reward: ``[T, B]`` rewards.
        done: ``[T, B]`` bool or float, episode ended at this step.
        bootstrap_value: ``[B]`` or ``[1, B]``, value estimate of the state after the batch.
        discount: discount factor gamma.
        return_dest: optional ``[T, B]`` output written in place.

    Returns:
        ``[T, B]`` discounted returns, in the reward's dtype (``return_dest`` if given).
    """
    not_done = 1 - _like(done, reward)
    return_: Any = return_dest if return_dest is not None else _zeros(tuple(reward.shape), reward)
    return_[-1] = reward[-1] + discount * not_done[-1] * _bootstrap(bootstrap_value, reward)
    for t in reversed(range(len(reward) - 1)):
        return_[t] = reward[t] + discount * not_done[t] * return_[t + 1]
    return return_


def generalized_advantage_estimation(
    reward: Array,
    value: Array,
    done: Array,
    bootstrap_value: Array,
    discount: float,
    gae_lambda: float,
    advantage_dest: Array | None = None,
    return_dest: Array | None = None,
) -> tuple[Array, Array]:
    """Generalized advantage estimation (Schulman et al. 2016, arXiv 1506.02438).

    ``delta[t] = r[t] + discount * (1 - d[t]) * V[t+1] - V[t]`` (with ``V[T] = bootstrap_value``),
    ``A[t] = delta[t] + discount * gae_lambda * (1 - d[t]) * A[t+1]``, and the return target is
    ``A + V``. With ``gae_lambda = 1`` the return equals :func:`discount_return`.

    Args:
        reward: ``[T, B]`` rewards.
        value: ``[T, B]`` value estimates ``V(s_t)`` recorded before each step.
        done: ``[T, B]`` bool or float.
        bootstrap_value: ``[B]`` or ``[1, B]``, ``V(s_T)``.
        discount: discount factor gamma.
        gae_lambda: GAE lambda in ``[0, 1]``.
        advantage_dest: optional ``[T, B]`` output for the advantage, written in place.
        return_dest: optional ``[T, B]`` output for the return, written in place.

    Returns:
        ``(advantage, return_)``, each ``[T, B]`` in the reward's dtype.
    """
    shape = tuple(reward.shape)
    advantage: Any = advantage_dest if advantage_dest is not None else _zeros(shape, reward)
    return_: Any = return_dest if return_dest is not None else _zeros(shape, reward)
    not_done = 1 - _like(done, reward)
    bootstrap = _bootstrap(bootstrap_value, reward)
    advantage[-1] = reward[-1] + discount * not_done[-1] * bootstrap - value[-1]
    for t in reversed(range(len(reward) - 1)):
        delta = reward[t] + discount * not_done[t] * value[t + 1] - value[t]
        advantage[t] = delta + discount * gae_lambda * not_done[t] * advantage[t + 1]
    return_[:] = advantage + value
    return advantage, return_


def _timeout_bootstrapped_reward(
    reward: Array,
    done: Array,
    discount: float,
    timeout: Array,
    value: Array,
    timeout_value: Array | None = None,
) -> Array:
    """``r[t] + discount * V`` where ``timeout[t]``, else ``r[t]`` (see the ``_tl`` docs).

    ``V`` is ``timeout_value[t]`` where given and not NaN, else ``value[t]``.
    """
    timeout_bool = _like(timeout, reward) != 0
    _check_timeout(timeout_bool, _like(done, reward) != 0)
    if timeout_value is not None:
        if isinstance(timeout_value, torch.Tensor):
            known = cast(torch.Tensor, value)
            value = torch.where(torch.isnan(timeout_value), known, timeout_value)
        else:
            value = np.where(np.isnan(timeout_value), value, timeout_value)
    return reward + discount * _like(timeout_bool, reward) * value


def discount_return_tl(
    reward: Array,
    done: Array,
    bootstrap_value: Array,
    discount: float,
    timeout: Array,
    value: Array,
    return_dest: Array | None = None,
    timeout_value: Array | None = None,
) -> Array:
    """Like :func:`discount_return`, but a time-limit truncation is bootstrapped, not terminal.

    At a step where ``timeout[t]`` is true the episode was cut by a time limit (so ``done[t]``
    is true too). The true return would continue from the state ``s_{t+1}`` reached by that
    step, but the learner never observes it: the env was reset and the next recorded
    observation belongs to the next episode. The value used instead is ``value[t] = V(s_t)``,
    the estimate of the last observed state of the episode, recorded before the step. So at a
    timeout the return is ``G[t] = r[t] + discount * value[t]``; the recursion is still cut
    there (nothing flows in from the next episode). At a real terminal (``done`` without
    ``timeout``) the return is ``r[t]`` as usual.

    Args:
        reward: ``[T, B]`` rewards.
        done: ``[T, B]`` bool or float.
        bootstrap_value: ``[B]`` or ``[1, B]``, ``V(s_T)``.
        discount: discount factor gamma.
        timeout: ``[T, B]`` bool or float, the episode was truncated by a time limit at this
            step; must imply ``done`` (``ValueError`` otherwise).
        value: ``[T, B]`` value estimates ``V(s_t)`` recorded before each step.
        return_dest: optional ``[T, B]`` output written in place.
        timeout_value: optional ``[T, B]``, the value of the truncated state ``s_{t+1}`` (the
            final observation) where the sampler knew it, NaN elsewhere: used instead of
            ``value[t]`` at those timeouts.

    Returns:
        ``[T, B]`` returns in the reward's dtype.
    """
    reward = _timeout_bootstrapped_reward(reward, done, discount, timeout, value, timeout_value)
    return discount_return(reward, done, bootstrap_value, discount, return_dest)


def generalized_advantage_estimation_tl(
    reward: Array,
    value: Array,
    done: Array,
    bootstrap_value: Array,
    discount: float,
    gae_lambda: float,
    timeout: Array,
    advantage_dest: Array | None = None,
    return_dest: Array | None = None,
    timeout_value: Array | None = None,
) -> tuple[Array, Array]:
    """Like :func:`generalized_advantage_estimation`, bootstrapping time-limit truncations.

    At a step where ``timeout[t]`` is true, the unobserved truncated state's value is replaced
    by ``value[t] = V(s_t)`` (the last observed state; see :func:`discount_return_tl`), so
    ``delta[t] = r[t] + discount * value[t] - value[t]``, ``A[t] = delta[t]`` (the recursion is
    cut) and the return target is ``r[t] + discount * value[t]``.

    Args:
        reward: ``[T, B]`` rewards.
        value: ``[T, B]`` value estimates ``V(s_t)`` recorded before each step.
        done: ``[T, B]`` bool or float.
        bootstrap_value: ``[B]`` or ``[1, B]``, ``V(s_T)``.
        discount: discount factor gamma.
        gae_lambda: GAE lambda in ``[0, 1]``.
        timeout: ``[T, B]`` bool or float; must imply ``done`` (``ValueError`` otherwise).
        advantage_dest: optional ``[T, B]`` output for the advantage, written in place.
        return_dest: optional ``[T, B]`` output for the return, written in place.
        timeout_value: optional ``[T, B]``, as in :func:`discount_return_tl`.

    Returns:
        ``(advantage, return_)``, each ``[T, B]`` in the reward's dtype.
    """
    reward = _timeout_bootstrapped_reward(reward, done, discount, timeout, value, timeout_value)
    return generalized_advantage_estimation(
        reward, value, done, bootstrap_value, discount, gae_lambda, advantage_dest, return_dest
    )


def _write(dest: Array, source: Array) -> Array:
    """Copy ``source`` into ``dest`` with an unsafe cast (e.g. float 0/1 into a bool buffer)."""
    if isinstance(dest, torch.Tensor):
        dest.copy_(torch.as_tensor(source))
    else:
        np.copyto(dest, source, casting="unsafe")
    return dest


def discount_return_n_step(
    reward: Array,
    done: Array,
    n_step: int,
    discount: float,
    return_dest: Array | None = None,
    done_n_dest: Array | None = None,
    do_truncated: bool = False,
) -> tuple[Array, Array]:
    """n-step discounted reward sums and n-step done flags, without bootstrapping.

    ``R[t] = sum_{k<n} discount^k r[t+k]``, where the sum stops after the first ``done`` in
    ``t .. t+n-1``; ``done_n[t]`` is true if any of ``done[t .. t+n-1]`` is. The caller adds
    ``(1 - done_n) * discount^n * Q(s_{t+n})``.

    Args:
        reward: ``[T, B]`` rewards.
        done: ``[T, B]`` bool or float.
        n_step: number of steps ``n >= 1``.
        discount: discount factor gamma.
        return_dest: optional output for ``R``, written in place.
        done_n_dest: optional output for ``done_n``, written in place.
        do_truncated: if False, only the ``T - n + 1`` steps with a full n-step window are
            computed (outputs are ``[T - n + 1, B]``); if True, all ``T`` steps are, with the
            windows of the last ``n - 1`` steps truncated at the end of the batch.

    Returns:
        ``(return_, done_n)``: ``return_`` in the reward's dtype, ``done_n`` in ``done``'s dtype.
    """
    if n_step < 1:
        raise ValueError(f"n_step must be >= 1, got {n_step}.")
    T = reward.shape[0]
    rlen = T if do_truncated else T - (n_step - 1)
    if rlen < 1:
        raise ValueError(f"n_step={n_step} needs at least {n_step} time steps, got T={T}.")
    out_shape = (rlen, *tuple(reward.shape[1:]))
    return_: Any = return_dest if return_dest is not None else _zeros(out_shape, reward)
    done_float: Any = _like(done, reward)
    done_n_float = done_float[:rlen] * 1  # A copy, in either library.
    return_[:] = reward[:rlen]
    for n in range(1, min(n_step, T)):
        m = min(rlen, T - n)  # Rows that have a reward n steps ahead inside the batch.
        return_[:m] += discount**n * reward[n : n + m] * (1 - done_n_float[:m])
        # Logical or of 0/1 floats, written so that it works in numpy and torch alike.
        done_n_float[:m] = 1 - (1 - done_n_float[:m]) * (1 - done_float[n : n + m])
    done_n = done_n_dest if done_n_dest is not None else _zeros(out_shape, done)
    return return_, _write(done_n, done_n_float)


@overload
def valid_from_done(done: torch.Tensor) -> torch.Tensor: ...


@overload
def valid_from_done(done: np.ndarray) -> np.ndarray: ...


def valid_from_done(done: Array) -> Array:
    """Mask that is 1 up to and including the first ``done`` along time, and 0 after it.

    Args:
        done: ``[T, ...]`` bool or float.

    Returns:
        ``[T, ...]`` mask, float32 (or ``done``'s dtype if that is already floating point).
    """
    if isinstance(done, torch.Tensor):
        done_float = done if done.is_floating_point() else done.to(torch.float32)
        valid = torch.ones_like(done_float)
        valid[1:] = 1 - torch.clamp(torch.cumsum(done_float[:-1], dim=0), max=1)
        return valid
    done_np = np.asarray(done)
    if not np.issubdtype(done_np.dtype, np.floating):
        done_np = done_np.astype(np.float32)
    valid_np = np.ones_like(done_np)
    valid_np[1:] = 1 - np.minimum(np.cumsum(done_np[:-1], axis=0), 1)
    return valid_np


def bootstrap_target(samples: NamedArrayTupleLike, target_value: torch.Tensor) -> torch.Tensor:
    """``return_ + (1 - done_n) * target_discount * target_value``, masked with ``where``.

    The one-step-or-n-step target of every replay algorithm (DQN's family, DDPG, TD3, SAC).
    ``target_value`` of rows that met a terminal is ignored, not multiplied by zero. The
    samples are on ``target_value``'s device already (the algorithm's one move per draw).

    Args:
        samples: a replay draw with ``return_``, ``done_n`` and ``target_discount``, each
            ``[B]`` (or ``[T, B]``).
        target_value: ``[B]`` (or ``[T, B]``), the target network's value of the state
            ``n`` steps on.

    Returns:
        The target ``[B]`` (or ``[T, B]``).
    """
    bootstrapped = samples.target_discount * target_value
    return samples.return_ + torch.where(
        samples.done_n.bool(), torch.zeros_like(bootstrapped), bootstrapped
    )
