"""R2D1 maths against naive loops on fixed tensors: value rescaling, warm-up, targets, loss,
sequence priorities, input priorities; defaults and replay construction."""

import math

import numpy as np
import pytest
import torch

from rlpyt.agents.dqn.classic import ClassicDqnAgent, ClassicR2d1Agent
from rlpyt.algos.dqn.r2d1 import (
    R2D1,
    inverse_value_rescale,
    sequence_priorities,
    value_rescale,
)
from rlpyt.models.pg.atari_lstm_model import RnnState
from rlpyt.replays.sequence.frame import PrioritizedSequenceReplayFrameBuffer
from rlpyt.replays.sequence.prioritized import (
    PrioritizedSequenceReplayBuffer,
    SamplesFromReplayPri,
)
from rlpyt.replays.sequence.uniform import UniformSequenceReplayBuffer
from rlpyt.samplers.collections import BatchSpec
from rlpyt.utils.buffer import numpify_buffer
from rlpyt.utils.collections import AttrDict, namedarraytuple
from tests.unit.agents.agent_helpers import N_ACTIONS, classic_spaces

H = 6
WARMUP, TRAIN, N_STEP, B = 3, 5, 2, 4


# -- value rescaling --------------------------------------------------------------------------


@pytest.mark.parametrize("eps", [0.0, 1e-3, 0.5])
def test_value_rescale_round_trip_and_formula(eps):
    x = torch.cat([torch.linspace(-1e4, 1e4, 1001), torch.tensor([0.0, -0.3, 0.3])]).double()
    h = value_rescale(x, eps)
    naive = torch.tensor([math.copysign(math.sqrt(abs(v) + 1) - 1, v) + eps * v for v in x])
    torch.testing.assert_close(h, naive.double())
    torch.testing.assert_close(inverse_value_rescale(h, eps), x, rtol=1e-9, atol=1e-8)
    torch.testing.assert_close(value_rescale(inverse_value_rescale(x, eps), eps), x)
    assert torch.all(h[1:1001] > h[:1000])  # strictly increasing


def test_sequence_priorities_against_a_loop():
    abs_delta = torch.rand(7, 5)
    valid = (torch.rand(7, 5) > 0.4).float()
    valid[0] = 1
    eta = 0.9
    out = sequence_priorities(abs_delta, valid, eta)
    for b in range(5):
        kept = [abs_delta[t, b].item() for t in range(7) if valid[t, b]]
        expected = eta * max(kept) + (1 - eta) * sum(kept) / len(kept)
        assert out[b].item() == pytest.approx(expected, rel=1e-6)


# -- the loss ---------------------------------------------------------------------------------


def make_algo(**kwargs):
    agent = ClassicR2d1Agent(model_kwargs=dict(hidden_sizes=[8], lstm_size=H, head_size=8))
    agent.initialize(classic_spaces())
    torch.manual_seed(3)
    with torch.no_grad():  # a target network that differs from the online one
        for p in agent.target_model.parameters():
            p.add_(0.3 * torch.randn_like(p))
    algo = R2D1(
        batch_T=TRAIN,
        batch_B=B,
        warmup_T=WARMUP,
        n_step_return=N_STEP,
        store_rnn_state_interval=WARMUP,
        **kwargs,
    )
    algo.agent = agent
    return algo


def make_batch(seed=0):
    """A replayed batch as the sequence replay returns it (fixed random tensors)."""
    g = torch.Generator().manual_seed(seed)
    T = WARMUP + TRAIN
    done = torch.zeros(T, B, dtype=torch.bool)
    done[1, 1] = True  # inside the warm-up: the states are zeroed
    done[WARMUP - 1, 2] = True  # last warm-up step: zeroed too
    done[WARMUP + 2, 3] = True  # inside the training steps: later steps masked
    bootstrap_t = torch.arange(T)[:, None].repeat(1, B) + N_STEP
    bootstrap_t[WARMUP, 0] = WARMUP + 1  # as a time limit cutting the window
    done_n = torch.rand(T, B, generator=g) < 0.3
    return SamplesFromReplayPri(
        all_observation=torch.randn(T + N_STEP, B, 5, generator=g),
        all_action=torch.randint(0, N_ACTIONS, (T + N_STEP + 1, B), generator=g),
        all_reward=torch.randn(T + N_STEP + 1, B, generator=g),
        return_=3 * torch.randn(T, B, generator=g),
        done=done,
        done_n=done_n,
        init_rnn_state=RnnState(
            h=torch.randn(1, B, H, generator=g), c=torch.randn(1, B, H, generator=g)
        ),
        target_discount=torch.rand(T, B, generator=g),
        bootstrap_t=bootstrap_t,
        is_weights=torch.rand(B, generator=g) + 0.5,
    )


def one_hot(a):
    return torch.nn.functional.one_hot(torch.as_tensor(a), N_ACTIONS).float()


def run_steps(model, batch, b, rows, state):
    """Step the model one time step at a time over ``rows`` of sequence ``b``."""
    qs = []
    for t in rows:
        q, state = model(
            batch.all_observation[t, b : b + 1],
            one_hot(batch.all_action[t, b : b + 1]),
            batch.all_reward[t, b : b + 1],
            state,
        )
        qs.append(q[0])
    return qs, state


def naive_loss(algo, batch, double_dqn=True, delta_clip=None):
    """Per-sequence, per-step loops of R2D1's loss (module docstring of r2d1.py)."""
    eps, eta = algo.value_scale_eps, algo.pri_eta
    model, target = algo.agent.model, algo.agent.target_model
    T = WARMUP + TRAIN
    total, count, priorities, errors = 0.0, 0.0, [], []
    for b in range(B):
        init = RnnState(
            h=batch.init_rnn_state.h[:, b : b + 1], c=batch.init_rnn_state.c[:, b : b + 1]
        )
        with torch.no_grad():
            _, online = run_steps(model, batch, b, range(WARMUP), init)
            _, target_state = run_steps(target, batch, b, range(WARMUP), init)
        if batch.done[:WARMUP, b].any():
            online = RnnState(h=torch.zeros(1, 1, H), c=torch.zeros(1, 1, H))
            target_state = online
        q_online, _ = run_steps(model, batch, b, range(WARMUP, T + N_STEP), online)
        with torch.no_grad():
            q_target, _ = run_steps(target, batch, b, range(WARMUP, T + N_STEP), target_state)
        deltas, valid = [], []
        ended = False
        for j in range(WARMUP, T):
            k = int(batch.bootstrap_t[j, b]) - WARMUP
            if double_dqn:
                a_star = int(torch.argmax(q_online[k]))
                boot = q_target[k][a_star].item()
            else:
                boot = q_target[k].max().item()
            z = batch.return_[j, b].item()
            if not batch.done_n[j, b]:
                z += (
                    batch.target_discount[j, b].item()
                    * inverse_value_rescale(torch.tensor(boot, dtype=torch.float64), eps).item()
                )
            y = value_rescale(torch.tensor(z, dtype=torch.float64), eps).item()
            q = q_online[j - WARMUP][int(batch.all_action[j + 1, b])]
            delta = y - q
            deltas.append(delta)
            valid.append(not ended)
            ended = ended or bool(batch.done[j, b])
        for delta, ok in zip(deltas, valid, strict=True):
            if ok:
                d = abs(delta.item())
                if delta_clip is None or d <= delta_clip:
                    loss_j = 0.5 * delta**2
                else:
                    loss_j = delta_clip * (abs(delta) - 0.5 * delta_clip)
                total = total + batch.is_weights[b] * loss_j
                count += 1
        kept = [
            min(abs(d.item()), delta_clip or np.inf)
            for d, ok in zip(deltas, valid, strict=True)
            if ok
        ]
        priorities.append(eta * max(kept) + (1 - eta) * sum(kept) / len(kept))
        errors.append([min(abs(d.item()), delta_clip or np.inf) for d in deltas])
    return total / count, np.array(priorities), np.array(errors).T


@pytest.mark.parametrize(("double_dqn", "delta_clip"), [(True, None), (False, None), (True, 0.5)])
def test_loss_priorities_and_gradients_equal_naive_loops(double_dqn, delta_clip):
    algo = make_algo(double_dqn=double_dqn, delta_clip=delta_clip)
    batch = make_batch()
    loss, td_abs_errors, valid, priorities = algo.loss(batch)
    expected_loss, expected_priorities, expected_errors = naive_loss(
        algo, batch, double_dqn, delta_clip
    )
    assert loss.item() == pytest.approx(expected_loss.item(), rel=1e-4)
    np.testing.assert_allclose(priorities.numpy(), expected_priorities, rtol=1e-4)
    np.testing.assert_allclose(td_abs_errors.numpy(), expected_errors, rtol=1e-3, atol=2e-4)
    assert valid[:, 3].tolist() == [1, 1, 1, 0, 0]  # masked after the done at step 2
    # Gradients of the batched loss equal the naive loop's.
    params = list(algo.agent.model.parameters())
    grads = torch.autograd.grad(loss, params)
    naive_grads = torch.autograd.grad(naive_loss(algo, batch, double_dqn, delta_clip)[0], params)
    # float32 sums in another order: an element near zero differed by 1.5e-6 once under
    # xdist (torch's thread count changes the reduction order); a wrong loss is off by far more.
    for g, ng in zip(grads, naive_grads, strict=True):
        torch.testing.assert_close(g, ng, rtol=1e-4, atol=1e-5)


def test_warm_up_states_run_from_the_stored_state_and_zero_after_a_done():
    algo = make_algo()
    batch = make_batch()
    online, target = algo.warmed_up_states(batch)
    assert not online.h[:, 1:3].any() and not target.c[:, 1:3].any()  # dones in warm-up
    for b in (0, 3):
        init = RnnState(
            h=batch.init_rnn_state.h[:, b : b + 1], c=batch.init_rnn_state.c[:, b : b + 1]
        )
        _, state = run_steps(algo.agent.model, batch, b, range(WARMUP), init)
        torch.testing.assert_close(online.h[:, b], state.h[:, 0], atol=1e-5, rtol=1e-5)
        _, state = run_steps(algo.agent.target_model, batch, b, range(WARMUP), init)
        torch.testing.assert_close(target.c[:, b], state.c[:, 0], atol=1e-5, rtol=1e-5)
    assert not torch.allclose(online.h[:, 0], target.h[:, 0])


# -- input priorities -------------------------------------------------------------------------

Agent = namedarraytuple("Agent", ["action", "agent_info"])
Env = namedarraytuple("Env", ["reward", "done"])
Info = namedarraytuple("Info", ["q"])
Samples = namedarraytuple("Samples", ["agent", "env"])


def test_input_priorities_against_a_loop():
    algo = R2D1(n_step_return=3, discount=0.9, store_rnn_state_interval=4, warmup_T=4, pri_eta=0.7)
    algo.mid_batch_reset = True
    rng = np.random.default_rng(0)
    T, Bs = 10, 3
    q = rng.normal(size=(T, Bs, N_ACTIONS)).astype(np.float32) * 5
    action = rng.integers(0, N_ACTIONS, (T, Bs))
    reward = rng.normal(size=(T, Bs)).astype(np.float32)
    done = np.zeros((T, Bs), bool)
    done[2, 1] = True
    samples = Samples(Agent(action, Info(q)), Env(reward, done))
    h = lambda x: np.sign(x) * (np.sqrt(abs(x) + 1) - 1) + 1e-3 * x  # noqa: E731
    h_inv = lambda x: inverse_value_rescale(torch.tensor(x, dtype=torch.float64), 1e-3).item()  # noqa: E731
    errors = np.full((T, Bs), np.nan)
    for b in range(Bs):
        for t in range(T - 3):  # steps with q_{t+3} in the batch
            ret, ended = 0.0, False
            for i in range(3):
                if not ended:
                    ret += 0.9**i * reward[t + i, b]
                    ended = done[t + i, b]
            y = h(ret + (0 if ended else 0.9**3 * h_inv(q[t + 3, b].max())))
            errors[t, b] = abs(q[t, b, action[t, b]] - y)
    for t_start in (0, 2):  # the replay cursor: stored-state rows at (t_start + r) % 4 == 0
        out = algo.compute_input_priorities(samples, t_start=t_start)
        starts = [r for r in range(T) if (t_start + r) % 4 == 0]
        assert out.shape == (len(starts), Bs)
        for i, r in enumerate(starts):
            for b in range(Bs):
                block = errors[r : r + 4, b]
                block = block[~np.isnan(block)]
                if block.size == 0:
                    assert out[i, b] == algo.default_priority
                else:
                    expected = 0.7 * block.max() + 0.3 * block.mean()
                    assert out[i, b] == pytest.approx(expected, rel=1e-4)
    assert algo.compute_input_priorities(samples, t_start=0)[-1, 0] == algo.default_priority


# -- defaults and the replay ------------------------------------------------------------------


def test_defaults_are_rlpyts():
    algo = R2D1()
    expected = dict(
        discount=0.997, batch_T=80, batch_B=64, warmup_T=40, store_rnn_state_interval=40,
        min_steps_learn=int(1e5), delta_clip=None, replay_size=int(1e6), replay_ratio=1,
        target_update_interval=2500, n_step_return=5, learning_rate=1e-4, clip_grad_norm=80.0,
        eps_steps=int(1e6), double_dqn=True, prioritized_replay=True, pri_alpha=0.6,
        pri_beta_init=0.9, pri_beta_final=0.9, pri_beta_steps=int(50e6), pri_eta=0.9,
        default_priority=1.0, input_priorities=True, input_priority_shift=1,
        value_scale_eps=1e-3, updates_per_sync=1,
    )  # fmt: skip
    for key, value in expected.items():
        assert getattr(algo, key) == value, key
    assert algo.OptimCls is torch.optim.Adam and algo.optim_kwargs == {"eps": 1e-3}
    assert R2D1(optim_kwargs={}).optim_kwargs == {"eps": 1e-3}
    assert R2D1(optim_kwargs={"eps": 1e-5}).optim_kwargs == {"eps": 1e-5}
    assert algo.batch_size == (80 + 40) * 64
    assert algo.opt_info_fields == ("loss", "gradNorm", "tdAbsErr", "priority")
    assert R2D1(delta_clip=2.0).default_priority == 2.0
    assert R2D1(warmup_T=80, store_rnn_state_interval=20).input_priority_shift == 4


def _examples(observation):
    agent = ClassicR2d1Agent(model_kwargs=dict(hidden_sizes=[8], lstm_size=H, head_size=8))
    agent.initialize(classic_spaces())
    step = agent.step(torch.zeros(5), torch.tensor(0), torch.tensor(0.0))
    info = numpify_buffer(step.agent_info)
    info = type(info)(q=info.q, prev_rnn_state=info.prev_rnn_state[0])
    return agent, AttrDict(
        observation=observation,
        action=np.int64(0),
        reward=np.float32(0),
        done=False,
        env_info=AttrDict(),
        agent_info=info,
    )


@pytest.mark.parametrize(
    ("prioritized", "observation", "cls"),
    [
        (True, np.zeros(5, np.float32), PrioritizedSequenceReplayBuffer),
        (False, np.zeros(5, np.float32), UniformSequenceReplayBuffer),
        (True, np.zeros((4, 6, 6), np.uint8), PrioritizedSequenceReplayFrameBuffer),
    ],
)
def test_replay_is_the_sequence_replay_with_states_every_interval(prioritized, observation, cls):
    agent, examples = _examples(observation)
    algo = R2D1(
        batch_T=8, batch_B=2, warmup_T=4, store_rnn_state_interval=4, replay_size=400,
        prioritized_replay=prioritized, min_steps_learn=0,
    )  # fmt: skip
    algo.initialize(agent, 10, BatchSpec(8, 4), True, examples)
    replay = algo.replay_buffer
    assert type(replay) is cls
    # Learning waits for a whole sequence: 1 + 4 + 8 + 5 rows (+ 3 to a stored-state row).
    assert algo.min_itr_learn == 3
    assert replay.batch_T == 12 and replay.rnn_state_interval == 4
    assert replay.samples_prev_rnn_state.h.shape == (replay.T // 4, 4, 1, H)
    if prioritized:
        assert replay.input_priorities and replay.input_priority_shift == 1


def test_a_feed_forward_agent_is_rejected_with_a_clear_error():
    agent = ClassicDqnAgent(model_kwargs=dict(hidden_sizes=[8]))
    agent.initialize(classic_spaces())
    examples = AttrDict(
        observation=np.zeros(5, np.float32), action=np.int64(0), reward=np.float32(0),
        done=False, env_info=AttrDict(), agent_info=AttrDict(q=np.zeros(3, np.float32)),
    )  # fmt: skip
    with pytest.raises(ValueError, match="no prev_rnn_state"):
        R2D1(replay_size=400, batch_T=8, batch_B=2, warmup_T=4).initialize(
            agent, 10, BatchSpec(8, 4), True, examples
        )
