"""A recorded stream of sampler chunks and naive loop versions of what a replay returns."""

import numpy as np

from rlpyt.utils.collections import namedarraytuple

SamplesToBuffer = namedarraytuple("SamplesToBuffer", ["observation", "action", "reward", "done"])
SamplesToBufferTl = namedarraytuple(
    "SamplesToBufferTl", ["observation", "action", "reward", "done", "timeout"]
)


class Stream:
    """Makes chunks of ``[T_new, B]`` transitions and remembers every step written.

    Observations are frame stacks ``[C, H, W]`` uint8 built as AtariEnv does (zeroed stack at an
    episode start, newest frame last), or float vectors when ``frames`` is False. With
    ``wait_reset`` each column stops at its first done in a chunk (later rows are padding, valid
    False) and restarts an episode at the next chunk.
    """

    def __init__(
        self,
        B,
        seed=0,
        C=4,
        H=3,
        W=2,
        frames=False,
        timeouts=True,
        wait_reset=False,
        p_done=0.15,
        p_timeout=0.4,
    ):
        self.rng = np.random.default_rng(seed)
        self.B, self.C, self.H, self.W = B, C, H, W
        self.frames, self.timeouts, self.wait_reset = frames, timeouts, wait_reset
        self.p_done, self.p_timeout = p_done, p_timeout
        # The first observation's older frames are non-zero, to test they are stored.
        self.stack = self.rng.integers(1, 255, (B, C, H, W), dtype=np.uint8)
        self.history = []  # per step: dict of [B] arrays (observation [B, ...])
        self.step_count = 0

    def example(self):
        obs = (
            np.zeros((self.C, self.H, self.W), np.uint8) if self.frames else np.zeros(3, np.float32)
        )
        if self.timeouts:
            return SamplesToBufferTl(obs, np.int64(0), np.float32(0), False, False)
        return SamplesToBuffer(obs, np.int64(0), np.float32(0), False)

    def _observation(self, b):
        if self.frames:
            return self.stack[b].copy()
        return self.rng.standard_normal(3).astype(np.float32) + self.step_count

    def chunk(self, T_new):
        """Next ``[T_new, B]`` chunk as (samples record, valid [T_new, B])."""
        B = self.B
        obs, act, rew = [], [], []
        done = self.rng.random((T_new, B)) < self.p_done
        timeout = done & (self.rng.random((T_new, B)) < self.p_timeout) & self.timeouts
        valid = np.ones((T_new, B), bool)
        stopped = np.zeros(B, bool)
        for i in range(T_new):
            valid[i] = ~stopped
            obs.append(np.stack([self._observation(b) for b in range(B)]))
            act.append(self.rng.integers(1, 6, B))
            rew.append(self.rng.integers(1, 9, B).astype(np.float32))
            new_frame = self.rng.integers(1, 255, (B, self.H, self.W), dtype=np.uint8)
            for b in range(B):
                if self.wait_reset and stopped[b]:
                    continue  # padding row: the env is not stepped
                if done[i, b]:
                    self.stack[b] = 0
                self.stack[b] = np.concatenate([self.stack[b, 1:], new_frame[b][None]])
                if self.wait_reset and done[i, b]:
                    stopped[b] = True
            self.history.append(
                dict(
                    observation=obs[-1],
                    action=act[-1],
                    reward=rew[-1],
                    done=done[i],
                    timeout=timeout[i],
                    valid=valid[i],
                )
            )
            self.step_count += 1
        fields = [np.stack(obs), np.stack(act), np.stack(rew), done]
        if self.timeouts:
            fields.append(timeout)
        cls = SamplesToBufferTl if self.timeouts else SamplesToBuffer
        return cls(*fields), valid


def naive_target(history, a, b, n, discount, timeouts=True):
    """Loop over the window from absolute step ``a`` in column ``b``: (return, done_n,
    timeout_n, bootstrap step, target discount)."""
    ret, m, done_n, timeout_n, target = 0.0, n, False, False, a + n
    for j in range(n):
        step = history[a + j]
        if not step["valid"][b]:
            done_n, m, target = True, j + 1, a + j - 1
            break
        ret += discount**j * float(step["reward"][b])
        if step["done"][b]:
            m, target = j + 1, a + j
            if timeouts and step["timeout"][b]:
                timeout_n = True
            else:
                done_n = True
            break
    else:
        if not history[a + n]["valid"][b]:  # padding right after the window
            done_n, target = True, a + n - 1
    return ret, done_n, timeout_n, target, discount**m


def naive_inputs(history, a, b):
    """(observation, prev_action, prev_reward) at absolute step ``a``, prev zeroed at a start."""
    prev = history[a - 1]
    start = prev["done"][b] or not prev["valid"][b]
    prev_action = 0 if start else prev["action"][b]
    prev_reward = 0.0 if start else prev["reward"][b]
    return history[a]["observation"][b], prev_action, prev_reward


def fill(replay, stream, chunk_lengths):
    """Append chunks; return ``row_step``: absolute step last written at each row."""
    row_step = {}
    for T_new in chunk_lengths:
        start = stream.step_count
        samples, valid = stream.chunk(T_new)
        _, idxs = replay.append_samples(samples, valid if stream.wait_reset else None)
        for i, row in enumerate(idxs):
            row_step[int(row)] = start + i
    return row_step


def sampleable_rows(replay):
    """Naive list of the rows outside the cursor zone (by the documented rule)."""
    t, T, f, bk = replay.t, replay.T, replay.off_forward, replay.off_backward
    if not replay._buffer_full:
        return [r for r in range(T) if f <= r < t - bk]
    zone = {(t + d) % T for d in range(-bk, f)}
    return [r for r in range(T) if r not in zone]
