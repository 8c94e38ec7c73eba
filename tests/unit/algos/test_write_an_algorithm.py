"""The algorithm of docs/new-algorithm.md ("How to write a new algorithm"), trained briefly.

``DoubleQLearning`` is a complete replay algorithm on ``ReplayRlAlgorithm``: double Q-learning
with a Huber loss on a DQN agent. The base gives it the replay, the schedules, the draw loop
(each draw on the agent's device), target updates, the optimizer and the OptInfo; it declares
the defaults that differ and one hyperparameter of its own, and writes one update. The docs
quote the class as written here.
"""

from __future__ import annotations

import math
from typing import Any

import torch
import torch.nn.functional as F

from rlpyt.agents.dqn.classic import ClassicDqnAgent
from rlpyt.agents.dqn.dqn_agent import DqnAgent
from rlpyt.algos.dqn.dqn import bootstrap_target
from rlpyt.algos.replay_base import Records, ReplayRlAlgorithm
from rlpyt.envs.gym import make as gym_make
from rlpyt.runners.minibatch_rl import MinibatchRl
from rlpyt.samplers.serial.sampler import SerialSampler
from rlpyt.utils.hyperparams import POSITIVE, hyperparam
from rlpyt.utils.logging import logger
from rlpyt.utils.tensor import select_at_indexes


class DoubleQLearning(ReplayRlAlgorithm):
    """Double Q-learning: ``y = return_ + (1 - done_n) * target_discount * Q'(s', argmax Q(s'))``.

    Keywords: :class:`ReplayRlAlgorithm`'s, with the defaults changed below (the others, e.g.
    ``ReplayBufferCls``, ``n_step_return``, ``optim_kwargs``, ``target_update_tau`` and
    ``snapshot_replay``, keep the base's).
    """

    batch_size = hyperparam(64)
    min_steps_learn = hyperparam(500)
    replay_size = hyperparam(10_000)
    target_update_interval = hyperparam(100)
    learning_rate = hyperparam(1e-3)
    huber_delta: float = hyperparam(1.0, "Huber loss threshold on the TD error.", POSITIVE)

    opt_info_fields = ("loss", "gradNorm")
    agent: DqnAgent  # set by initialize

    def update(self, samples: Any, target: torch.Tensor | None, records: Records) -> None:
        """One Huber-loss step on a minibatch (on the agent's device), then the target update."""
        q = select_at_indexes(samples.action, self.agent(*samples.agent_inputs))
        y = self.targets(samples)
        loss = F.huber_loss(q, y, delta=self.huber_delta)
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        records["gradNorm"].append(self.step_optimizer(self.optimizer, self._params))
        records["loss"].append(loss.detach())
        self.update_counter += 1
        self.update_target_if_due()

    @torch.no_grad()
    def targets(self, samples: Any) -> torch.Tensor:
        """Target network's value at the online network's greedy next action."""
        next_action = self.agent(*samples.target_inputs).argmax(dim=-1)
        target_q = self.agent.target(*samples.target_inputs)
        return bootstrap_target(samples, select_at_indexes(next_action, target_q))


# ---- tests -------------------------------------------------------------------------------


def train(n_steps: int, target_update_interval: int = 50) -> tuple[MinibatchRl, list[dict]]:
    sampler = SerialSampler(
        EnvCls=gym_make,
        env_kwargs=dict(id="CartPole-v1"),
        batch_T=4,
        batch_B=4,
        eval_n_envs=0,
    )
    runner = MinibatchRl(
        algo=DoubleQLearning(batch_size=32, target_update_interval=target_update_interval),
        agent=ClassicDqnAgent(model_kwargs=dict(hidden_sizes=[32])),
        sampler=sampler,
        n_steps=n_steps,
        log_interval_steps=1000,
        seed=3,
    )
    logger.disable()
    try:
        rows = list(runner.iter_train())
    finally:
        logger.enable()
    return runner, rows


def test_the_new_algorithm_trains_with_finite_losses_and_updates_its_target():
    runner, rows = train(3008, target_update_interval=4)
    algo = runner.algo
    # 188 iterations of 16 steps, learning from iteration 500 // 16 = 31: replay ratio 8 is
    # 4 updates of 32 per iteration.
    assert algo.updates_per_optimize == 4
    assert algo.update_counter == 4 * (188 - 31)
    losses = [row["lossAverage"] for row in rows if not math.isnan(row["lossAverage"])]
    assert losses and all(math.isfinite(x) for x in losses)
    assert algo.replay_buffer.t > 0 or algo.replay_buffer._buffer_full
    # The last update of every iteration is a target update (4 updates, interval 4): the
    # target network is a hard copy of the trained online network.
    online = dict(runner.agent.model.named_parameters())
    for name, param in runner.agent.target_model.named_parameters():
        assert torch.equal(param, online[name]), name
    grad_norms = [row["gradNormAverage"] for row in rows if not math.isnan(row["gradNormAverage"])]
    assert grad_norms and all(g > 0 for g in grad_norms)


def test_targets_are_the_double_q_formula_row_by_row():
    runner, _ = train(800)
    algo, agent = runner.algo, runner.agent
    batch = algo.draw(16)
    y = algo.targets(batch)
    with torch.no_grad():
        for i in range(16):
            inputs = [x[i : i + 1] for x in batch.target_inputs]
            greedy = int(agent(*inputs)[0].argmax())
            bootstrap = float(agent.target(*inputs)[0, greedy])
            expected = float(batch.return_[i])
            if not bool(batch.done_n[i]):
                expected += float(batch.target_discount[i]) * bootstrap
            assert math.isclose(float(y[i]), expected, rel_tol=1e-5, abs_tol=1e-5)
