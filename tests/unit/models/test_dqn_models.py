"""DQN-family models: output shapes, dueling maths, gradient scaling, atom probabilities."""

import pytest
import torch

from rlpyt.models.dqn.atari_catdqn_model import AtariCatDqnModel, DistributionalHeadModel
from rlpyt.models.dqn.atari_dqn_model import AtariDqnModel, scale_pixels
from rlpyt.models.dqn.classic_dqn_model import ClassicCatDqnModel, ClassicDqnModel
from rlpyt.models.dqn.dueling import DistributionalDuelingHeadModel, DuelingHeadModel

IMAGE_SHAPE = (2, 36, 28)
OBS_SHAPE = (3, 2)  # flattened inside the classic models
A, N_ATOMS = 3, 7
LEADS = [(), (5,), (4, 3)]


def atari_obs(lead):
    return torch.randint(0, 256, lead + IMAGE_SHAPE, dtype=torch.uint8)


def classic_obs(lead):
    return torch.randn(lead + OBS_SHAPE)


def unused(lead):
    return torch.zeros(lead + (A,)), torch.zeros(lead)


MODELS = {
    "atari": lambda d: (AtariDqnModel(IMAGE_SHAPE, A, fc_sizes=16, dueling=d), atari_obs),
    "classic": lambda d: (
        ClassicDqnModel(OBS_SHAPE, A, hidden_sizes=[8, 8], dueling=d),
        classic_obs,
    ),
}
CAT_MODELS = {
    "atari": lambda d: (
        AtariCatDqnModel(IMAGE_SHAPE, A, n_atoms=N_ATOMS, fc_sizes=16, dueling=d),
        atari_obs,
    ),
    "classic": lambda d: (
        ClassicCatDqnModel(OBS_SHAPE, A, n_atoms=N_ATOMS, hidden_sizes=[8, 8], dueling=d),
        classic_obs,
    ),
}


@pytest.mark.parametrize("lead", LEADS, ids=str)
@pytest.mark.parametrize("dueling", [False, True], ids=["mlp", "dueling"])
@pytest.mark.parametrize("kind", sorted(MODELS))
def test_q_shapes_and_rows_independent_of_leading_dims(kind, dueling, lead):
    model, make_obs = MODELS[kind](dueling)
    obs = make_obs(lead)
    q = model(obs, *unused(lead))
    assert q.shape == lead + (A,) and q.dtype == torch.float32
    flat = obs.reshape(-1, *obs.shape[len(lead) :])
    rows = torch.stack([model(o, *unused(())) for o in flat])  # one observation at a time
    torch.testing.assert_close(q.reshape(-1, A), rows, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("lead", LEADS, ids=str)
@pytest.mark.parametrize("dueling", [False, True], ids=["mlp", "dueling"])
@pytest.mark.parametrize("kind", sorted(CAT_MODELS))
def test_categorical_probabilities_sum_to_one(kind, dueling, lead):
    model, make_obs = CAT_MODELS[kind](dueling)
    p = model(make_obs(lead), *unused(lead))
    assert p.shape == lead + (A, N_ATOMS)
    assert (p > 0).all()
    torch.testing.assert_close(p.sum(-1), torch.ones(lead + (A,)))


def test_atari_defaults_are_the_nature_dqn_trunk():
    model = AtariDqnModel((4, 104, 80), output_size=6)
    convs = [m for m in model.conv.modules() if isinstance(m, torch.nn.Conv2d)]
    assert [c.out_channels for c in convs] == [32, 64, 64]
    assert [c.kernel_size[0] for c in convs] == [8, 4, 3]
    assert [c.stride[0] for c in convs] == [4, 2, 1]
    assert [c.padding[0] for c in convs] == [0, 1, 1]
    linears = [m for m in model.head.modules() if isinstance(m, torch.nn.Linear)]
    assert [lin.out_features for lin in linears] == [512, 6]


def test_uint8_scaling_matches_float_input_and_leaves_input_alone():
    model, _ = MODELS["atari"](False)
    obs = atari_obs((2,))
    as_float = obs.to(torch.float32)
    kept = as_float.clone()
    torch.testing.assert_close(model(obs, *unused((2,))), model(as_float, *unused((2,))))
    assert torch.equal(as_float, kept)  # float input not scaled in place
    torch.testing.assert_close(scale_pixels(obs), obs.float() / 255)


def naive_dueling(head, x):
    value = head.value(x)  # [N, 1]
    advantage = head.advantage(x)  # [N, A]
    return torch.stack(
        [value[n, 0] + advantage[n] - sum(advantage[n]) / advantage.shape[1] for n in range(len(x))]
    )


def test_dueling_head_is_value_plus_centred_advantage():
    head = DuelingHeadModel(6, [5], A)
    with torch.no_grad():
        head.advantage_bias.fill_(0.7)  # cancels in the centring
    x = torch.randn(4, 6)
    torch.testing.assert_close(head(x), naive_dueling(head, x))


def test_distributional_dueling_head_is_value_plus_centred_advantage_per_atom():
    head = DistributionalDuelingHeadModel(6, [5], A, N_ATOMS)
    x = torch.randn(4, 6)
    value = head.value(x)  # [N, n_atoms]
    advantage = head.advantage(x)  # [N, A, n_atoms]
    want = torch.empty(4, A, N_ATOMS)
    for n in range(4):
        for a in range(A):
            want[n, a] = value[n] + advantage[n, a] - advantage[n].sum(0) / A
    torch.testing.assert_close(head(x), want)


@pytest.mark.parametrize(
    "make_head",
    [
        lambda s: DuelingHeadModel(6, [5], A, grad_scale=s),
        lambda s: DistributionalDuelingHeadModel(6, [5], A, N_ATOMS, grad_scale=s),
    ],
    ids=["dueling", "distributional"],
)
def test_dueling_head_scales_the_gradient_into_its_input(make_head):
    torch.manual_seed(3)
    head = make_head(0.25)
    x = torch.randn(4, 6, requires_grad=True)
    head(x).square().sum().backward()
    scaled = x.grad.clone()
    x.grad = None
    head._grad_scale = 1.0
    head(x).square().sum().backward()
    torch.testing.assert_close(scaled, 0.25 * x.grad)
    assert x.grad.abs().sum() > 0


def test_default_grad_scale_is_one_over_root_two():
    assert DuelingHeadModel(6, 5, A)._grad_scale == pytest.approx(2**-0.5)


def test_distributional_head_shape():
    head = DistributionalHeadModel(6, [5], A, N_ATOMS)
    assert head(torch.randn(4, 6)).shape == (4, A, N_ATOMS)


def test_classic_defaults_and_dueling_layout():
    model = ClassicDqnModel((4,), 2)
    linears = [m for m in model.modules() if isinstance(m, torch.nn.Linear)]
    assert [(lin.in_features, lin.out_features) for lin in linears] == [
        (4, 256),
        (256, 256),
        (256, 2),
    ]
    dueling = ClassicDqnModel((4,), 2, hidden_sizes=[16, 8], dueling=True)
    assert dueling.trunk.output_size == 16  # shared trunk, then 8-unit streams
    assert dueling.head.value.output_size == 1
    with pytest.raises(ValueError, match="at least one hidden size"):
        ClassicDqnModel((4,), 2, hidden_sizes=[], dueling=True)


def test_classic_model_casts_integer_observations():
    model = ClassicDqnModel((3,), 2, hidden_sizes=[4])
    obs = torch.tensor([[1, 2, 3]])
    torch.testing.assert_close(model(obs, None, None), model(obs.float(), None, None))
