"""A recorded stream with recurrent states, and naive loop versions of sequence batches."""

import numpy as np

from rlpyt.utils.collections import namedarraytuple

from .naive_replay import Stream, naive_target

RnnState = namedarraytuple("RnnState", ["h", "c"])
SeqSamples = namedarraytuple(
    "SeqSamples", ["observation", "action", "reward", "done", "timeout", "prev_rnn_state"]
)
SeqSamplesNoTimeout = namedarraytuple(
    "SeqSamplesNoTimeout", ["observation", "action", "reward", "done", "prev_rnn_state"]
)
H = 4  # recurrent state size; one layer: per-step state [1, H] as agent_info records it


class SeqStream(Stream):
    """``Stream`` whose records also carry ``prev_rnn_state`` (``RnnState(h, c)``, [1, H])."""

    def example(self):
        base = super().example()
        state = RnnState(np.zeros((1, H), np.float32), np.zeros((1, H), np.float32))
        cls = SeqSamples if self.timeouts else SeqSamplesNoTimeout
        return cls(*base, prev_rnn_state=state)

    def chunk(self, T_new):
        samples, valid = super().chunk(T_new)
        h = self.rng.standard_normal((T_new, self.B, 1, H)).astype(np.float32)
        c = self.rng.standard_normal((T_new, self.B, 1, H)).astype(np.float32)
        for i in range(T_new):
            self.history[-T_new + i]["prev_rnn_state"] = (h[i], c[i])
        cls = SeqSamples if self.timeouts else SeqSamplesNoTimeout
        return cls(*samples, prev_rnn_state=RnnState(h, c)), valid


def legal_starts(replay, stream):
    """Naive set of (absolute step, column) that may start a sequence, by the documented rule."""
    N, T = stream.step_count, replay.T
    oldest = max(0, N - T)
    period = max(1, replay.rnn_state_interval)
    span = replay.batch_T + replay.n_step_return
    out = set()
    for a in range(oldest, N):
        if a % period or a - replay.off_forward < oldest or a + span > N:
            continue
        for b in range(replay.B):
            if stream.history[a]["valid"][b]:
                out.add((a, b))
    return out


def boundary(step, b):
    return bool(step["done"][b]) or not step["valid"][b]


def naive_sequence(history, a, b, batch_T, n, discount, timeouts):
    """Dict of the fields of the sequence starting at absolute step ``a`` in column ``b``."""
    prev = history[a - 1]
    start = boundary(prev, b)
    actions = [0 if start else prev["action"][b]]
    rewards = [0.0 if start else prev["reward"][b]]
    observations, valid = [], []
    for j in range(batch_T + n):
        step = history[a + j]
        actions.append(step["action"][b])
        rewards.append(step["reward"][b])
        observations.append(step["observation"][b])
        valid.append(bool(step["valid"][b]))
    targets = [naive_target(history, a + j, b, n, discount, timeouts) for j in range(batch_T)]
    return dict(
        all_observation=observations,
        obs_valid=valid,
        all_action=actions,
        all_reward=rewards,
        return_=[t[0] for t in targets],
        done_n=[t[1] for t in targets],
        bootstrap_t=[t[3] - a for t in targets],
        target_discount=[t[4] for t in targets],
        done=[boundary(history[a + j], b) for j in range(batch_T)],
        rnn_state=history[a].get("prev_rnn_state"),
    )


def row_of(replay, a):
    """Storage row of absolute step ``a``."""
    return a % replay.T
