"""EpsilonGreedy and CategoricalEpsilonGreedy: greedy choice, exploration rates, z handling."""

import pytest
import torch

from rlpyt.distributions.epsilon_greedy import CategoricalEpsilonGreedy, EpsilonGreedy

DIM = 4


def test_epsilon_zero_is_argmax_over_leading_dims():
    q = torch.randn(3, 5, DIM, generator=torch.Generator().manual_seed(0))
    actions = EpsilonGreedy(epsilon=0, dim=DIM).sample(q)
    assert actions.shape == (3, 5) and actions.dtype == torch.long
    assert torch.equal(actions, q.argmax(-1))


@pytest.mark.parametrize("epsilon", [0.3, 1.0])
def test_exploration_rate_and_uniformity(epsilon):
    torch.manual_seed(0)
    n = 40000
    q = torch.tensor([0.0, 5.0, 1.0, 2.0]).expand(n, DIM)
    dist = EpsilonGreedy(dim=DIM)
    dist.set_epsilon(epsilon)
    actions = dist.sample(q)
    freq = torch.bincount(actions, minlength=DIM).float() / n
    want = torch.full((DIM,), epsilon / DIM)
    want[1] += 1 - epsilon
    torch.testing.assert_close(freq, want, atol=0.015, rtol=0)


def test_vector_epsilon_applies_per_environment_at_every_time_step():
    torch.manual_seed(1)
    T, n = 8, 5000
    epsilon = torch.tensor([0.0, 0.5, 1.0])
    q = torch.tensor([0.0, 0.0, 3.0, 0.0]).expand(T, n, 3, DIM)  # [T, n, B, dim]; B = 3.
    dist = EpsilonGreedy(epsilon=epsilon, dim=DIM)
    assert dist.epsilon is epsilon
    non_greedy = (dist.sample(q) != 2).float()
    rate = non_greedy.mean(dim=(0, 1))
    torch.testing.assert_close(rate, epsilon * (DIM - 1) / DIM, atol=0.015, rtol=0)
    per_t = non_greedy.mean(dim=1)  # Same epsilon at every time step.
    torch.testing.assert_close(per_t, rate.expand(T, 3), atol=0.04, rtol=0)


def test_vector_epsilon_of_wrong_length_is_rejected():
    dist = EpsilonGreedy(epsilon=[0.1, 0.2], dim=DIM)
    with pytest.raises(ValueError, match="one value per environment"):
        dist.sample(torch.zeros(5, 3, DIM))
    with pytest.raises(ValueError, match="one value per environment"):
        dist.sample(torch.zeros(DIM))


def test_categorical_epsilon_greedy_uses_expected_value():
    z = torch.tensor([-1.0, 0.0, 1.0])
    # Action 0 has the most likely atom at +1 but a lower mean than action 1.
    p = torch.tensor([[0.45, 0.0, 0.55], [0.0, 0.0, 1.0], [0.1, 0.8, 0.1], [1.0, 0.0, 0.0]]).expand(
        6, DIM, 3
    )
    dist = CategoricalEpsilonGreedy(z=z, epsilon=0.0, dim=DIM)
    assert torch.equal(dist.sample(p), torch.ones(6, dtype=torch.long))
    flipped = torch.tensor([1.0, 0.0, -1.0])
    assert torch.equal(dist.sample(p, z=flipped), torch.full((6,), 3))  # z passed as a tensor.
    dist.set_z(flipped)
    assert torch.equal(dist.sample(p), torch.full((6,), 3))


def test_categorical_epsilon_greedy_without_z_raises():
    dist = CategoricalEpsilonGreedy(dim=DIM)
    with pytest.raises(ValueError, match="has no support z"):
        dist.sample(torch.full((2, DIM, 3), 1 / 3))


def test_categorical_epsilon_greedy_explores():
    torch.manual_seed(2)
    n = 20000
    p = torch.zeros(n, DIM, 2)
    p[..., 0] = 1.0
    p[:, 2] = torch.tensor([0.0, 1.0])
    dist = CategoricalEpsilonGreedy(torch.tensor([0.0, 1.0]), epsilon=0.4, dim=DIM)
    rate = (dist.sample(p) != 2).float().mean().item()
    assert rate == pytest.approx(0.4 * (DIM - 1) / DIM, abs=0.015)
