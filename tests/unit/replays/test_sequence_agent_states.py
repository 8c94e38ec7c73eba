"""End to end: the recurrent states a real R2D1 agent recorded while the serial sampler stepped
CartPole, stored every k steps by the sequence replay, restart the agent exactly: replaying a
sequence from its ``init_rnn_state`` with its ``all_observation`` / ``all_action`` /
``all_reward`` reproduces the Q values the agent computed while sampling those steps."""

import numpy as np
import torch

from rlpyt.agents.dqn.classic import ClassicR2d1Agent
from rlpyt.envs.gym import make as gym_make
from rlpyt.replays.sequence.uniform import UniformSequenceReplayBuffer
from rlpyt.samplers.serial.sampler import SerialSampler
from rlpyt.utils.buffer import numpify_buffer

from .naive_sequence import SeqSamplesNoTimeout


def test_replayed_sequences_reproduce_the_sampling_q_values():
    torch.manual_seed(0)
    batch_T, B, k, seq_T = 8, 2, 4, 6
    sampler = SerialSampler(
        EnvCls=gym_make,
        env_kwargs=dict(id="CartPole-v1"),
        batch_T=batch_T,
        batch_B=B,
        max_decorrelation_steps=0,
    )
    agent = ClassicR2d1Agent(model_kwargs=dict(hidden_sizes=[16], lstm_size=8, head_size=16))
    sampler.initialize(agent, seed=0)
    agent.sample_mode(0)
    replay, q_ring = None, None
    for itr in range(12):  # 96 steps into 40 rows: wrapped more than once
        samples = numpify_buffer(sampler.obtain_samples(itr)[0])
        info = samples.agent.agent_info
        chunk = SeqSamplesNoTimeout(
            observation=samples.env.observation,
            action=samples.agent.action,
            reward=samples.env.reward,
            done=samples.env.done,
            prev_rnn_state=info.prev_rnn_state,
        )
        if replay is None:
            replay = UniformSequenceReplayBuffer(
                chunk[0, 0], size=40 * B, B=B, rnn_state_interval=k, batch_T=seq_T,
                discount=0.99, n_step_return=2,
            )  # fmt: skip
            q_ring = np.zeros((replay.T,) + info.q.shape[1:], np.float32)
        _, rows = replay.append_samples(chunk)
        q_ring[rows] = info.q
    assert replay._buffer_full
    T_idxs, B_idxs = replay.sample_idxs(64)
    batch = replay.extract_batch(T_idxs, B_idxs)
    with torch.no_grad():
        q, _ = agent(
            batch.all_observation[:seq_T],
            batch.all_action[:seq_T],
            batch.all_reward[:seq_T],
            batch.init_rnn_state,
        )
    episode_start = replay.boundary((T_idxs - 1) % replay.T, B_idxs)
    compared = 0
    for i in np.flatnonzero(~episode_start):  # the sampler kept the previous episode's inputs
        for j in range(seq_T):  # up to the first done: the agent then restarts from zeros
            want = q_ring[(T_idxs[i] + j) % replay.T, B_idxs[i]]
            torch.testing.assert_close(q[j, i], torch.from_numpy(want), atol=1e-5, rtol=1e-5)
            compared += 1
            if batch.done[j, i]:
                break
    assert compared > 100
