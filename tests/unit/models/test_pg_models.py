import pytest
import torch

from rlpyt.models.pg.atari_ff_model import AtariFfModel
from rlpyt.models.pg.atari_lstm_model import AtariLstmModel
from rlpyt.models.pg.atari_lstm_model import RnnState as AtariRnnState
from rlpyt.models.pg.classic_model import ClassicFfModel, ClassicLstmModel
from rlpyt.models.pg.mujoco_ff_model import MujocoFfModel
from rlpyt.models.pg.mujoco_lstm_model import MujocoLstmModel

A = 3  # actions
IMG = (2, 36, 28)  # small Atari-like frames: convs 8/4 then 4/2 (pad 1) still fit
OBS = (5,)
LEADS = [(), (4,), (3, 2)]


def _image(lead):
    return torch.randint(0, 256, lead + IMG, dtype=torch.uint8)


def _obs(lead):
    return torch.randn(lead + OBS)


def _onehot(lead):
    return torch.nn.functional.one_hot(torch.randint(0, A, lead), A).float()


def _small_atari_kwargs():
    return dict(fc_sizes=16)


@pytest.mark.parametrize("lead", LEADS)
def test_atari_ff_shapes_and_softmax(lead):
    model = AtariFfModel(IMG, A, **_small_atari_kwargs())
    pi, v = model(_image(lead), torch.zeros(lead, dtype=torch.long), torch.zeros(lead))
    assert pi.shape == lead + (A,) and v.shape == lead
    assert torch.allclose(pi.sum(-1), torch.ones(lead))


def test_atari_ff_scales_uint8_without_touching_the_input():
    torch.manual_seed(0)
    model = AtariFfModel(IMG, A, **_small_atari_kwargs())
    image = _image((2,))
    original = image.clone()
    pi_u8, v_u8 = model(image, None, None)
    pi_f, v_f = model(image.float(), None, None)  # float pixels in [0, 255] mean the same
    assert torch.equal(image, original)
    assert torch.allclose(pi_u8, pi_f) and torch.allclose(v_u8, v_f)
    manual = model.conv(image.float() / 255)
    assert torch.allclose(v_u8, model.value(manual).squeeze(-1), atol=1e-6)


def test_atari_ff_default_conv_is_16_32():
    model = AtariFfModel((4, 104, 80), 6)
    convs = [m for m in model.modules() if isinstance(m, torch.nn.Conv2d)]
    assert [c.out_channels for c in convs] == [16, 32]
    assert model.conv.output_size == 512


@pytest.mark.parametrize("lead", LEADS)
def test_atari_lstm_shapes(lead):
    model = AtariLstmModel(IMG, A, fc_sizes=16, lstm_size=8)
    pi, v, state = model(_image(lead), _onehot(lead), torch.zeros(lead), None)
    B = lead[-1] if lead else 1
    assert pi.shape == lead + (A,) and v.shape == lead
    assert isinstance(state, AtariRnnState)
    assert state.h.shape == (1, B, 8) and state.c.shape == (1, B, 8)


def _lstm_models():
    return [
        (AtariLstmModel(IMG, A, fc_sizes=16, lstm_size=8), _image, _onehot, 8),
        (MujocoLstmModel(OBS, A, hidden_sizes=[16], lstm_size=8), _obs, _act, 8),
        (ClassicLstmModel(OBS, A, lstm_size=4), _obs, _onehot, 8),  # actor + critic: 2 x 4
    ]


def _act(lead):
    return torch.randn(lead + (A,))


@pytest.mark.parametrize("index", [0, 1, 2])
def test_lstm_none_state_equals_zeros(index):
    model, make_obs, make_act, H = _lstm_models()[index]
    lead = (3, 2)
    inputs = (make_obs(lead), make_act(lead), torch.randn(lead))
    zeros = AtariRnnState(h=torch.zeros(1, 2, H), c=torch.zeros(1, 2, H))
    out_none = model(*inputs, None)
    out_zero = model(*inputs, zeros)
    *outputs_none, state_none = out_none
    *outputs_zero, state_zero = out_zero
    for x, y in zip([*outputs_none, *state_none], [*outputs_zero, *state_zero], strict=True):
        assert torch.allclose(x, y)


@pytest.mark.parametrize("index", [0, 1, 2])
def test_lstm_sequence_equals_step_by_step(index):
    model, make_obs, make_act, _ = _lstm_models()[index]
    T, B = 4, 2
    obs, act, rew = make_obs((T, B)), make_act((T, B)), torch.randn(T, B)
    *seq_out, seq_state = model(obs, act, rew, None)
    state, step_values = None, []
    for t in range(T):
        *out, state = model(obs[t], act[t], rew[t], state)
        step_values.append(out[-1])
    assert torch.allclose(torch.stack(step_values), seq_out[-1], atol=1e-6)
    assert torch.allclose(state.h, seq_state.h, atol=1e-6)
    assert torch.allclose(state.c, seq_state.c, atol=1e-6)


def test_lstm_uses_prev_action_and_prev_reward():
    model = ClassicLstmModel(OBS, A, lstm_size=8)
    obs = _obs((2,))
    _, v0, _ = model(obs, _onehot((2,)) * 0, torch.zeros(2), None)
    _, v1, _ = model(obs, torch.eye(A)[:2], torch.zeros(2), None)
    _, v2, _ = model(obs, _onehot((2,)) * 0, torch.ones(2), None)
    assert not torch.allclose(v0, v1) and not torch.allclose(v0, v2)


@pytest.mark.parametrize("lead", LEADS)
def test_mujoco_ff_shapes(lead):
    model = MujocoFfModel(OBS, A, init_log_std=-0.5)
    mu, log_std, v = model(_obs(lead), _act(lead), torch.zeros(lead))
    assert mu.shape == lead + (A,) and log_std.shape == lead + (A,) and v.shape == lead
    assert torch.all(log_std == -0.5) and torch.all(mu.abs() <= 1)  # tanh mean


def test_mujoco_ff_log_std_is_learned():
    model = MujocoFfModel(OBS, A)
    _, log_std, _ = model(_obs((3,)), None, None)
    log_std.sum().backward()
    assert torch.equal(model.log_std.grad, torch.full((A,), 3.0))


def test_mujoco_ff_normalizes_observations():
    torch.manual_seed(0)
    model = MujocoFfModel(OBS, A, normalize_observation=True, norm_obs_clip=2.0)
    data = torch.randn(50, 4, *OBS) * 3 + 7
    model.update_obs_rms(data)
    assert model.obs_rms.count.item() == 200
    obs = _obs((6,)) * 10
    expected = ((obs - model.obs_rms.mean) / model.obs_rms.var.sqrt()).clamp(-2, 2)
    plain = MujocoFfModel(OBS, A)
    plain.load_state_dict({k: v for k, v in model.state_dict().items() if "obs_rms" not in k})
    assert torch.allclose(model(obs, None, None)[2], plain(expected, None, None)[2], atol=1e-6)


def test_mujoco_ff_update_obs_rms_noop_without_normalization():
    model = MujocoFfModel(OBS, A)
    model.update_obs_rms(torch.randn(3, *OBS))
    assert not hasattr(model, "obs_rms")


@pytest.mark.parametrize("lead", LEADS)
def test_mujoco_lstm_shapes(lead):
    model = MujocoLstmModel(OBS, A, hidden_sizes=[16], lstm_size=8, normalize_observation=True)
    mu, log_std, v, state = model(_obs(lead), _act(lead), torch.zeros(lead), None)
    B = lead[-1] if lead else 1
    assert mu.shape == lead + (A,) and log_std.shape == lead + (A,) and v.shape == lead
    assert state.h.shape == (1, B, 8)


@pytest.mark.parametrize("lead", LEADS)
def test_classic_ff_shapes(lead):
    model = ClassicFfModel(OBS, A)
    pi, v = model(_obs(lead), None, None)
    assert pi.shape == lead + (A,) and v.shape == lead


def test_classic_ff_initialization():
    torch.manual_seed(0)
    model = ClassicFfModel(OBS, A)
    assert [tuple(w.shape) for w in model.hidden_weights] == [(2, 5, 64), (2, 64, 64)]
    for network in range(2):  # [5, 64]: Linear's [64, 5] with orthonormal columns, x sqrt(2)
        hidden = model.hidden_weights[0][network]
        assert torch.allclose(hidden @ hidden.T, 2 * torch.eye(5), atol=1e-5)
    assert not torch.allclose(model.hidden_weights[1][0], model.hidden_weights[1][1])
    head = model.pi.weight  # [A, 64]: orthonormal rows scaled by 0.01
    assert torch.allclose(head @ head.T, 1e-4 * torch.eye(A), atol=1e-8)
    assert torch.allclose(model.v.weight @ model.v.weight.T, torch.eye(1), atol=1e-5)
    assert all(torch.all(b == 0) for b in model.hidden_biases)
    assert torch.all(model.pi.bias == 0) and torch.all(model.v.bias == 0)
    pi, _ = model(_obs((20,)), None, None)
    assert torch.allclose(pi, torch.full_like(pi, 1 / A), atol=0.02)  # nearly uniform start


@pytest.mark.parametrize("hidden_sizes", [[16, 8, 4], 16, []])
def test_classic_ff_matches_two_separate_mlps(hidden_sizes):
    """The side-by-side layers compute exactly two independent MLPs (naive per-network loop)."""
    torch.manual_seed(1)
    model = ClassicFfModel(OBS, A, hidden_sizes=hidden_sizes, nonlinearity=torch.nn.ReLU)
    with torch.no_grad():  # random biases too, so a mix-up of networks or layers shows
        for bias in model.hidden_biases:
            bias.normal_()
    obs = _obs((3, 7))
    pi, v = model(obs, None, None)
    outputs = []
    for network, head in ((0, model.pi), (1, model.v)):
        h = obs.reshape(21, -1)
        for weight, bias in zip(model.hidden_weights, model.hidden_biases, strict=True):
            h = torch.relu(h @ weight[network] + bias[network, 0])
        outputs.append(h @ head.weight.T + head.bias)
    assert torch.allclose(pi, torch.softmax(outputs[0], -1).reshape(3, 7, A), atol=1e-6)
    assert torch.allclose(v, outputs[1].reshape(3, 7), atol=1e-5)
    (pi[..., 0].sum() + v.sum()).backward()  # gradients reach both networks' every layer
    assert all(w.grad[n].abs().sum() > 0 for w in model.hidden_weights for n in range(2))


def test_classic_lstm_defaults():
    model = ClassicLstmModel(OBS, A)
    for lstm in (model.pi_lstm, model.v_lstm):
        assert lstm.hidden_size == 64 and lstm.input_size == 64 + A + 1
    pi, v, state = model(_obs(()), _onehot(()), torch.zeros(()), None)
    assert pi.shape == (A,) and v.shape == () and state.c.shape == (1, 1, 128)
