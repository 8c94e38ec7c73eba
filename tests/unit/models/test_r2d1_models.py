"""R2D1 models: shapes, the LSTM step against a naive cell loop, dueling, state handling."""

import pytest
import torch

from rlpyt.models.dqn.atari_r2d1_model import AtariR2d1Model
from rlpyt.models.dqn.classic_r2d1_model import ClassicR2d1Model
from rlpyt.models.dqn.dueling import DuelingHeadModel
from rlpyt.models.pg.atari_lstm_model import RnnState

A, H = 3, 8


def _models(dueling):
    return [
        ClassicR2d1Model((5,), A, hidden_sizes=[16], lstm_size=H, head_size=12, dueling=dueling),
        AtariR2d1Model((2, 36, 28), A, fc_size=16, lstm_size=H, head_size=12, dueling=dueling),
    ]


def _obs(model, lead):
    if isinstance(model, AtariR2d1Model):
        return torch.randint(0, 256, (*lead, 2, 36, 28), dtype=torch.uint8)
    return torch.randn(*lead, 5)


def _inputs(model, lead):
    action = torch.nn.functional.one_hot(torch.randint(0, A, lead), A).float()
    return _obs(model, lead), action, torch.randn(lead)


@pytest.mark.parametrize("dueling", [False, True])
@pytest.mark.parametrize("lead", [(), (4,), (3, 2)], ids=str)
def test_shapes(lead, dueling):
    for model in _models(dueling):
        q, state = model(*_inputs(model, lead), None)
        B = 1 if not lead else lead[-1]
        assert q.shape == (*lead, A)
        assert state.h.shape == (1, B, H) and state.c.shape == (1, B, H)
        assert isinstance(model.core.head, DuelingHeadModel) == dueling


def test_none_state_is_zeros_and_a_sequence_equals_its_steps():
    for model in _models(False):
        T, B = 4, 2
        inputs = _inputs(model, (T, B))
        zeros = RnnState(h=torch.zeros(1, B, H), c=torch.zeros(1, B, H))
        q_none, state_none = model(*inputs, None)
        q_zero, _ = model(*inputs, zeros)
        torch.testing.assert_close(q_none, q_zero)
        state, qs = None, []
        for t in range(T):
            q_t, state = model(*(x[t] for x in inputs), state)
            qs.append(q_t)
        torch.testing.assert_close(torch.stack(qs), q_none, atol=1e-5, rtol=1e-5)
        torch.testing.assert_close(state.h, state_none.h, atol=1e-5, rtol=1e-5)


def test_lstm_input_is_features_prev_action_prev_reward_against_a_naive_cell():
    model = ClassicR2d1Model((5,), A, hidden_sizes=[16], lstm_size=H, head_size=12)
    observation, prev_action, prev_reward = _inputs(model, (1, 2))
    state = RnnState(h=torch.randn(1, 2, H), c=torch.randn(1, 2, H))
    q, next_state = model(observation, prev_action, prev_reward, state)
    lstm = model.core.lstm
    x = torch.cat([model.mlp(observation[0]), prev_action[0], prev_reward[0, :, None]], dim=-1)
    gates = x @ lstm.weight_ih_l0.T + lstm.bias_ih_l0 + state.h[0] @ lstm.weight_hh_l0.T
    gates = gates + lstm.bias_hh_l0
    i, f, g, o = gates.chunk(4, dim=-1)
    c = torch.sigmoid(f) * state.c[0] + torch.sigmoid(i) * torch.tanh(g)
    h = torch.sigmoid(o) * torch.tanh(c)
    torch.testing.assert_close(next_state.h[0], h, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(next_state.c[0], c, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(q[0], model.core.head(h), atol=1e-5, rtol=1e-5)


def test_atari_model_defaults_are_rlpyts():
    model = AtariR2d1Model((4, 104, 80), 6)
    assert model.fc.out_features == 512 and model.core.lstm.hidden_size == 512
    assert model.core.lstm.input_size == 512 + 6 + 1
    convs = [m for m in model.conv.modules() if isinstance(m, torch.nn.Conv2d)]
    assert [c.out_channels for c in convs] == [32, 64, 64]
    assert [c.kernel_size[0] for c in convs] == [8, 4, 3]
    assert [c.stride[0] for c in convs] == [4, 2, 1]
    assert not model.dueling


def test_uint8_frames_are_scaled_inside():
    model = _models(False)[1]
    observation, prev_action, prev_reward = _inputs(model, (2,))
    q_uint8, _ = model(observation, prev_action, prev_reward, None)
    q_float, _ = model(observation.float(), prev_action, prev_reward, None)
    torch.testing.assert_close(q_uint8, q_float)
