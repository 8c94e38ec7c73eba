"""The algorithm of docs/architecture.md "How to write a new algorithm", trained briefly.

``DoubleQLearning`` is a complete replay algorithm on ``ReplayRlAlgorithm``: double Q-learning
with a Huber loss on a DQN agent. The base gives it the replay, the schedules, the draw loop
(each draw on the agent's device), target updates and the OptInfo; it writes its keywords, its
optimizer and one update. The docs quote the class as written here.
"""

from __future__ import annotations

import math
from collections import namedtuple
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
from rlpyt.utils.logging import logger
from rlpyt.utils.tensor import select_at_indexes

OptInfo = namedtuple("OptInfo", ["loss", "gradNorm"])


class DoubleQLearning(ReplayRlAlgorithm):
    """Double Q-learning: ``y = return_ + (1 - done_n) * target_discount * Q'(s', argmax Q(s'))``.

    Args:
        discount: Discount gamma.
        batch_size: Replayed transitions per update.
        min_steps_learn: Env steps before the first update.
        replay_size: Replay capacity in transitions.
        replay_ratio: Replayed transitions per sampled transition.
        target_update_interval: Updates between copies into the target network.
        learning_rate: Adam's learning rate.
        clip_grad_norm: Max global gradient norm.
    """

    OptInfoCls = OptInfo
    opt_info_fields = OptInfo._fields
    prioritized_replay = False
    agent: DqnAgent  # set by initialize

    def __init__(  # noqa: PLR0917
        self,
        discount: float = 0.99,
        batch_size: int = 64,
        min_steps_learn: int = 500,
        replay_size: int = 10_000,
        replay_ratio: float = 8,
        target_update_interval: int = 100,
        learning_rate: float = 1e-3,
        clip_grad_norm: float = 10.0,
    ):
        self.store_keywords(
            discount=discount,
            batch_size=batch_size,
            min_steps_learn=min_steps_learn,
            replay_size=replay_size,
            replay_ratio=replay_ratio,
            target_update_interval=target_update_interval,
            learning_rate=learning_rate,
            clip_grad_norm=clip_grad_norm,
            # Fixed here, read by the base and the replay:
            target_update_tau=1.0,
            n_step_return=1,
            updates_per_sync=1,
            OptimCls=torch.optim.Adam,
            optim_kwargs=None,
            initial_optim_state_dict=None,
            ReplayBufferCls=None,
            snapshot_replay=False,
        )

    def optim_initialize(self, rank: int = 0) -> None:
        """The optimizer over the online network (asynchronous runs: a model of its own)."""
        self.rank = rank
        self.own_optim_model()
        self.optimizer = self.make_optimizer(self.agent.parameters(), self.learning_rate)
        self._params = [p for group in self.optimizer.param_groups for p in group["params"]]

    def update(self, samples: Any, target: torch.Tensor | None, records: Records) -> None:
        """One Huber-loss step on a minibatch (on the agent's device), then the target update."""
        q = select_at_indexes(samples.action, self.agent(*samples.agent_inputs))
        y = self.targets(samples)
        loss = F.smooth_l1_loss(q, y)
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
