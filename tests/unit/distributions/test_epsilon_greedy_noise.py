"""EpsilonGreedy with pre-drawn noise, SamplingNoise over it, and a tensor ``z`` in sample()."""

import numpy as np
import pytest
import torch

from rlpyt.distributions.categorical import Categorical
from rlpyt.distributions.epsilon_greedy import CategoricalEpsilonGreedy, EpsilonGreedy
from rlpyt.samplers.noise import NOISE_STREAM, SamplingNoise, install_sampling_noise

DIM = 4


class ModeAgent:
    """What SamplingNoise reads from an agent: its mode tag and distribution."""

    def __init__(self, distribution, mode="sample"):
        self.distribution = distribution
        self.mode = mode


def naive_epsilon_greedy(q, epsilon, noise):
    """Loop over envs: explore if u0 < epsilon, then action floor(u1 * dim)."""
    actions = []
    for b in range(len(q)):
        eps = float(epsilon[b]) if torch.is_tensor(epsilon) and epsilon.dim() else float(epsilon)
        if float(noise[b, 0]) < eps:
            actions.append(min(int(float(noise[b, 1]) * DIM), DIM - 1))
        else:
            actions.append(int(q[b].argmax()))
    return torch.tensor(actions)


@pytest.mark.parametrize("epsilon", [0.3, torch.tensor([0.0, 0.2, 0.5, 0.8, 1.0, 0.4])])
def test_noise_decides_exploration_and_the_random_action(epsilon):
    generator = torch.Generator().manual_seed(0)
    q = torch.randn(6, DIM, generator=generator)
    noise = torch.rand(6, 2, generator=generator)
    noise[0] = torch.tensor([0.0, 0.9999999])  # explores whenever epsilon > 0; last action
    actions = EpsilonGreedy(epsilon=epsilon, dim=DIM).sample(q, noise=noise)
    assert torch.equal(actions, naive_epsilon_greedy(q, epsilon, noise))


def test_noise_gives_uniform_random_actions_at_epsilon_one():
    noise = torch.rand(40_000, 2, generator=torch.Generator().manual_seed(1))
    actions = EpsilonGreedy(epsilon=1.0, dim=DIM).sample(torch.zeros(40_000, DIM), noise=noise)
    freq = torch.bincount(actions, minlength=DIM).float() / len(actions)
    torch.testing.assert_close(freq, torch.full((DIM,), 1 / DIM), atol=0.01, rtol=0)


def test_noise_over_time_and_env_dims_and_wrong_shape():
    q = torch.randn(3, 2, DIM)
    noise = torch.rand(3, 2, 2)
    dist = EpsilonGreedy(epsilon=torch.tensor([0.0, 1.0]), dim=DIM)  # per env, every step
    actions = dist.sample(q, noise=noise)
    assert torch.equal(actions[:, 0], q[:, 0].argmax(-1))
    assert torch.equal(actions[:, 1], (noise[:, 1, 1] * DIM).long())
    with pytest.raises(ValueError, match="two uniforms per action choice"):
        dist.sample(q, noise=torch.rand(3, 2))


def test_categorical_epsilon_greedy_passes_noise_and_takes_a_tensor_z():
    p = torch.softmax(torch.randn(5, DIM, 3), -1)
    z = torch.tensor([-1.0, 0.0, 2.0])  # a tensor z: no truth-value ambiguity
    noise = torch.rand(5, 2)
    dist = CategoricalEpsilonGreedy(epsilon=0.5, dim=DIM)
    actions = dist.sample(p, z, noise=noise)
    assert torch.equal(actions, naive_epsilon_greedy((p * z).sum(-1), 0.5, noise))


def test_from_onehot_keyword_bug_17():
    dist = EpsilonGreedy(dim=DIM)
    indexes = torch.tensor([[0, 3], [2, 1]])
    back = dist.from_onehot(dist.to_onehot(indexes), dtype=torch.int32)
    assert back.dtype == torch.int32 and torch.equal(back.long(), indexes)


@pytest.mark.parametrize("categorical", [False, True], ids=["q", "p"])
def test_sampling_noise_gives_each_split_the_same_actions(categorical):
    global_B = 6
    if categorical:
        make = lambda: CategoricalEpsilonGreedy(  # noqa: E731
            z=torch.linspace(-1, 1, 3), epsilon=0.5, dim=DIM
        )
        outputs = torch.softmax(torch.randn(global_B, DIM, 3), -1)
    else:
        make = lambda: EpsilonGreedy(epsilon=0.5, dim=DIM)  # noqa: E731
        outputs = torch.randn(global_B, DIM)
    whole = ModeAgent(make())
    assert isinstance(install_sampling_noise(whole, 9, global_B, list(range(6))), SamplingNoise)
    parts = [ModeAgent(make()) for _ in range(2)]
    for agent, ranks in zip(parts, ([0, 1, 2], [3, 4, 5]), strict=True):
        install_sampling_noise(agent, 9, global_B, ranks)
    for _ in range(5):
        all_actions = whole.distribution.sample(outputs)
        split = torch.cat(
            [parts[0].distribution.sample(outputs[:3]), parts[1].distribution.sample(outputs[3:])]
        )
        assert torch.equal(all_actions, split)
    # The noise really is the generator's: the same draws by hand give the same actions.
    rng = np.random.default_rng([9, NOISE_STREAM])
    agent = ModeAgent(make())
    install_sampling_noise(agent, 9, global_B, list(range(6)))
    noise = torch.from_numpy(rng.random((global_B, 2), dtype=np.float32))
    want = make().sample(outputs, noise=noise)
    assert torch.equal(agent.distribution.sample(outputs), want)
    agent.distribution.set_epsilon(0.0)  # forwarded to the wrapped distribution
    assert agent.distribution.distribution.epsilon == 0.0


def test_categorical_still_wrapped():
    agent = ModeAgent(Categorical(dim=DIM))
    assert install_sampling_noise(agent, 1, 2, [0, 1]) is not None
