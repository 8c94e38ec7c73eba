"""rlpyt.algos.utils against naive pure-Python loops, for numpy and torch inputs."""

import numpy as np
import pytest
import torch

from rlpyt.algos.utils import (
    discount_return,
    discount_return_n_step,
    discount_return_tl,
    generalized_advantage_estimation,
    generalized_advantage_estimation_tl,
    valid_from_done,
)

T, B = 7, 5
GAMMA, LAMBDA = 0.9, 0.8


def make_batch(seed, p_done=0.3, p_timeout=0.5):
    """Random [T, B] float64 data; timeouts are a random subset of the dones."""
    rng = np.random.default_rng(seed)
    reward = rng.normal(size=(T, B))
    value = rng.normal(size=(T, B))
    bootstrap = rng.normal(size=(B,))
    done = rng.random((T, B)) < p_done
    timeout = done & (rng.random((T, B)) < p_timeout)
    return reward, value, done, timeout, bootstrap


def as_kind(x, kind, dtype=None):
    """Convert one numpy array to the kind under test; bool arrays keep or change dtype."""
    if dtype == "float" and x.dtype == bool:
        x = x.astype(np.float64)
    return torch.from_numpy(x.copy()) if kind == "torch" else x.copy()


def to_np(x):
    return x.numpy() if isinstance(x, torch.Tensor) else x


# Naive references: forward sums over the future of each (t, b), written from the definitions.


def naive_return(reward, done, bootstrap, timeout=None, value=None):
    out = np.zeros((T, B))
    for b in range(B):
        for t in range(T):
            total, coef = 0.0, 1.0
            for k in range(t, T):
                total += coef * reward[k, b]
                if done[k, b]:
                    if timeout is not None and timeout[k, b]:
                        total += coef * GAMMA * value[k, b]
                    break
                coef *= GAMMA
            else:
                total += coef * bootstrap[b]
            out[t, b] = total
    return out


def naive_gae(reward, value, done, bootstrap, timeout=None):
    adv = np.zeros((T, B))
    for b in range(B):
        for t in range(T):
            total, coef = 0.0, 1.0
            for k in range(t, T):
                next_value = value[k + 1, b] if k + 1 < T else bootstrap[b]
                if timeout is not None and timeout[k, b]:
                    next_value = value[k, b]
                elif done[k, b]:
                    next_value = 0.0
                total += coef * (reward[k, b] + GAMMA * next_value - value[k, b])
                if done[k, b]:
                    break
                coef *= GAMMA * LAMBDA
            adv[t, b] = total
    return adv, adv + value


def naive_n_step(reward, done, n_step, do_truncated):
    rlen = T if do_truncated else T - n_step + 1
    ret, done_n = np.zeros((rlen, B)), np.zeros((rlen, B), dtype=bool)
    for b in range(B):
        for t in range(rlen):
            for k in range(n_step):
                if t + k >= T:
                    break
                ret[t, b] += GAMMA**k * reward[t + k, b]
                if done[t + k, b]:
                    done_n[t, b] = True
                    break
    return ret, done_n


def naive_valid(done):
    valid = np.ones(done.shape)
    for b in range(done.shape[1]):
        ended = False
        for t in range(done.shape[0]):
            valid[t, b] = 0.0 if ended else 1.0
            ended = ended or bool(done[t, b])
    return valid


KINDS = ["numpy", "torch"]
DONE_DTYPES = ["bool", "float"]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("done_dtype", DONE_DTYPES)
@pytest.mark.parametrize("seed", range(4))
def test_discount_return_matches_naive(kind, done_dtype, seed):
    reward, _, done, _, bootstrap = make_batch(seed)
    out = discount_return(
        as_kind(reward, kind), as_kind(done, kind, done_dtype), as_kind(bootstrap, kind), GAMMA
    )
    assert type(out) is type(as_kind(reward, kind))
    np.testing.assert_allclose(to_np(out), naive_return(reward, done, bootstrap), atol=1e-12)


@pytest.mark.parametrize("kind", KINDS)
def test_discount_return_dest_and_leading_one_bootstrap(kind):
    reward, _, done, _, bootstrap = make_batch(10)
    dest = as_kind(np.full((T, B), np.nan), kind)
    out = discount_return(
        as_kind(reward, kind), as_kind(done, kind), as_kind(bootstrap[None], kind), GAMMA, dest
    )
    assert out is dest
    np.testing.assert_allclose(to_np(dest), naive_return(reward, done, bootstrap), atol=1e-12)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("done_dtype", DONE_DTYPES)
@pytest.mark.parametrize("seed", range(4))
def test_gae_matches_naive(kind, done_dtype, seed):
    reward, value, done, _, bootstrap = make_batch(seed)
    adv, ret = generalized_advantage_estimation(
        as_kind(reward, kind),
        as_kind(value, kind),
        as_kind(done, kind, done_dtype),
        as_kind(bootstrap, kind),
        GAMMA,
        LAMBDA,
    )
    want_adv, want_ret = naive_gae(reward, value, done, bootstrap)
    np.testing.assert_allclose(to_np(adv), want_adv, atol=1e-12)
    np.testing.assert_allclose(to_np(ret), want_ret, atol=1e-12)


@pytest.mark.parametrize("kind", KINDS)
def test_gae_dest_variants(kind):
    reward, value, done, _, bootstrap = make_batch(11)
    adv_dest = as_kind(np.full((T, B), np.nan), kind)
    ret_dest = as_kind(np.full((T, B), np.nan), kind)
    args = (as_kind(reward, kind), as_kind(value, kind), as_kind(done, kind))
    adv, ret = generalized_advantage_estimation(
        *args, as_kind(bootstrap[None], kind), GAMMA, LAMBDA, adv_dest, ret_dest
    )
    assert adv is adv_dest and ret is ret_dest
    want_adv, want_ret = naive_gae(reward, value, done, bootstrap)
    np.testing.assert_allclose(to_np(adv_dest), want_adv, atol=1e-12)
    np.testing.assert_allclose(to_np(ret_dest), want_ret, atol=1e-12)


def test_gae_with_lambda_one_returns_discount_return():
    reward, value, done, _, bootstrap = make_batch(12)
    _, ret = generalized_advantage_estimation(reward, value, done, bootstrap, GAMMA, 1.0)
    np.testing.assert_allclose(ret, discount_return(reward, done, bootstrap, GAMMA), atol=1e-12)


def test_float32_torch_keeps_dtype_and_accuracy():
    reward, value, done, _, bootstrap = make_batch(13)
    r32, v32, b32 = (torch.from_numpy(x.astype(np.float32)) for x in (reward, value, bootstrap))
    adv, ret = generalized_advantage_estimation(
        r32, v32, torch.from_numpy(done), b32, GAMMA, LAMBDA
    )
    assert adv.dtype == ret.dtype == torch.float32
    want_adv, _ = naive_gae(reward, value, done, bootstrap)
    np.testing.assert_allclose(adv.numpy(), want_adv, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("done_dtype", DONE_DTYPES)
@pytest.mark.parametrize("seed", range(4))
def test_discount_return_tl_matches_naive(kind, done_dtype, seed):
    reward, value, done, timeout, bootstrap = make_batch(seed)
    assert timeout.any() and (done & ~timeout).any()  # Both kinds of episode end occur.
    out = discount_return_tl(
        as_kind(reward, kind),
        as_kind(done, kind, done_dtype),
        as_kind(bootstrap, kind),
        GAMMA,
        as_kind(timeout, kind, done_dtype),
        as_kind(value, kind),
    )
    want = naive_return(reward, done, bootstrap, timeout, value)
    np.testing.assert_allclose(to_np(out), want, atol=1e-12)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("done_dtype", DONE_DTYPES)
@pytest.mark.parametrize("seed", range(4))
def test_gae_tl_matches_naive(kind, done_dtype, seed):
    reward, value, done, timeout, bootstrap = make_batch(seed)
    adv, ret = generalized_advantage_estimation_tl(
        as_kind(reward, kind),
        as_kind(value, kind),
        as_kind(done, kind, done_dtype),
        as_kind(bootstrap, kind),
        GAMMA,
        LAMBDA,
        as_kind(timeout, kind, done_dtype),
    )
    want_adv, want_ret = naive_gae(reward, value, done, bootstrap, timeout)
    np.testing.assert_allclose(to_np(adv), want_adv, atol=1e-12)
    np.testing.assert_allclose(to_np(ret), want_ret, atol=1e-12)


@pytest.mark.parametrize("kind", KINDS)
def test_tl_dest_variants(kind):
    reward, value, done, timeout, bootstrap = make_batch(14)
    ret_dest = as_kind(np.full((T, B), np.nan), kind)
    out = discount_return_tl(
        *(as_kind(x, kind) for x in (reward, done, bootstrap[None])),
        GAMMA,
        as_kind(timeout, kind),
        as_kind(value, kind),
        ret_dest,
    )
    assert out is ret_dest
    want = naive_return(reward, done, bootstrap, timeout, value)
    np.testing.assert_allclose(to_np(ret_dest), want, atol=1e-12)
    adv_dest = as_kind(np.full((T, B), np.nan), kind)
    ret_dest = as_kind(np.full((T, B), np.nan), kind)
    adv, ret = generalized_advantage_estimation_tl(
        *(as_kind(x, kind) for x in (reward, value, done, bootstrap)),
        GAMMA,
        LAMBDA,
        as_kind(timeout, kind),
        adv_dest,
        ret_dest,
    )
    assert adv is adv_dest and ret is ret_dest
    want_adv, want_ret = naive_gae(reward, value, done, bootstrap, timeout)
    np.testing.assert_allclose(to_np(adv_dest), want_adv, atol=1e-12)
    np.testing.assert_allclose(to_np(ret_dest), want_ret, atol=1e-12)


def test_tl_bootstraps_with_value_of_last_observed_state():
    """The documented choice, by hand: at a timeout, r[t] + gamma * value[t]; nothing flows back
    from the next episode, and a real terminal is still cut."""
    reward = np.array([[1.0], [2.0], [3.0], [4.0]])
    value = np.array([[10.0], [20.0], [30.0], [40.0]])
    done = np.array([[False], [True], [True], [False]])
    timeout = np.array([[False], [True], [False], [False]])
    bootstrap = np.array([50.0])
    ret = discount_return_tl(reward, done, bootstrap, 0.5, timeout, value)
    want = [[1 + 0.5 * (2 + 0.5 * 20)], [2 + 0.5 * 20], [3.0], [4 + 0.5 * 50]]
    np.testing.assert_allclose(ret, want)
    adv, ret_gae = generalized_advantage_estimation_tl(
        reward, value, done, bootstrap, 0.5, 1.0, timeout
    )
    np.testing.assert_allclose(ret_gae, want)
    np.testing.assert_allclose(adv[1], [2 + 0.5 * 20 - 20])


@pytest.mark.parametrize("kind", KINDS)
def test_tl_rejects_timeout_without_done(kind):
    reward, value, done, timeout, bootstrap = make_batch(15)
    timeout[0, 0], done[0, 0] = True, False
    with pytest.raises(ValueError, match="timeout is set at a step where done is not"):
        discount_return_tl(
            *(as_kind(x, kind) for x in (reward, done, bootstrap)),
            GAMMA,
            as_kind(timeout, kind),
            as_kind(value, kind),
        )


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("done_dtype", DONE_DTYPES)
@pytest.mark.parametrize("n_step", [1, 2, 3, 7])
@pytest.mark.parametrize("do_truncated", [False, True])
def test_n_step_matches_naive(kind, done_dtype, n_step, do_truncated):
    reward, _, done, _, _ = make_batch(n_step + 20 * do_truncated)
    ret, done_n = discount_return_n_step(
        as_kind(reward, kind),
        as_kind(done, kind, done_dtype),
        n_step,
        GAMMA,
        do_truncated=do_truncated,
    )
    want_ret, want_done_n = naive_n_step(reward, done, n_step, do_truncated)
    np.testing.assert_allclose(to_np(ret), want_ret, atol=1e-12)
    done_input = as_kind(done, kind, done_dtype)
    assert done_n.dtype == done_input.dtype
    np.testing.assert_array_equal(to_np(done_n).astype(bool), want_done_n)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("do_truncated", [False, True])
def test_n_step_dest_variants(kind, do_truncated):
    n_step = 3
    reward, _, done, _, _ = make_batch(16)
    rlen = T if do_truncated else T - n_step + 1
    ret_dest = as_kind(np.full((rlen, B), np.nan), kind)
    done_n_dest = as_kind(np.ones((rlen, B), dtype=bool), kind)
    ret, done_n = discount_return_n_step(
        as_kind(reward, kind),
        as_kind(done, kind),
        n_step,
        GAMMA,
        ret_dest,
        done_n_dest,
        do_truncated,
    )
    assert ret is ret_dest and done_n is done_n_dest
    want_ret, want_done_n = naive_n_step(reward, done, n_step, do_truncated)
    np.testing.assert_allclose(to_np(ret_dest), want_ret, atol=1e-12)
    np.testing.assert_array_equal(to_np(done_n_dest), want_done_n)


def test_n_step_rejects_window_longer_than_batch():
    reward, _, done, _, _ = make_batch(17)
    with pytest.raises(ValueError, match="needs at least"):
        discount_return_n_step(reward, done, T + 1, GAMMA)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("done_dtype", DONE_DTYPES)
@pytest.mark.parametrize("seed", range(3))
def test_valid_from_done_matches_naive(kind, done_dtype, seed):
    _, _, done, _, _ = make_batch(seed, p_done=0.2)
    valid = valid_from_done(as_kind(done, kind, done_dtype))
    np.testing.assert_array_equal(to_np(valid), naive_valid(done))
    assert to_np(valid).dtype.kind == "f"


def test_valid_from_done_includes_the_done_step():
    done = np.array([[0.0, 1.0], [1.0, 0.0], [0.0, 1.0], [1.0, 0.0]])
    np.testing.assert_array_equal(valid_from_done(done), [[1, 1], [1, 0], [0, 0], [0, 0]])
