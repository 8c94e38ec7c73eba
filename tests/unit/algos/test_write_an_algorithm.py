"""The program of docs/new-algorithm.md ("How to write a new algorithm") runs as written there.

The page's "A complete example" section builds quantile-regression DQN (model, agent,
algorithm, training run). Its python blocks are executed here as one module, exactly as the
page shows them; the targets and the loss are checked against loops over the formulas, and the
agent is trained on CartPole to an evaluation return.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import torch

from rlpyt.utils.logging import logger
from tests.unit.test_docs import code_blocks

PAGE = Path(__file__).resolve().parents[3] / "docs" / "new-algorithm.md"
SECTION = "## A complete example"


def page_program() -> dict:
    """The namespace of the section's python blocks, run in order as one module."""
    text = PAGE.read_text(encoding="utf-8")
    section = text.split(SECTION, 1)[1].split("\n## ", 1)[0]
    blocks = [code for _, language, _, code in code_blocks(section) if language == "python"]
    assert len(blocks) == 4, "the page's example is four blocks: model, agent, algorithm, run"
    namespace = {"__name__": "new_algorithm_page"}  # not __main__: the run block only defines
    exec(compile("\n".join(blocks), str(PAGE), "exec"), namespace)  # noqa: S102 (our docs)
    return namespace


PROGRAM = page_program()


def short_run(n_steps: int, seed: int = 3):
    """The page's runner after ``n_steps`` of training (logger off)."""
    runner = PROGRAM["build_runner"](n_steps=n_steps, seed=seed)
    logger.disable()
    try:
        rows = list(runner.iter_train())
    finally:
        logger.enable()
    return runner, rows


@pytest.fixture(scope="module")
def trained():
    return short_run(2048)


def test_the_agent_acts_on_the_quantile_mean(trained):
    runner, _ = trained
    agent = runner.agent
    assert tuple(agent.model.output_shape) == (2, 32)
    observation = torch.randn(5, 4)
    theta = agent(observation, torch.zeros(5, dtype=torch.long), torch.zeros(5))
    assert theta.shape == (5, 2, 32)
    agent.eval_mode(1)
    agent.distribution.set_epsilon(0.0)
    step = agent.step(observation, torch.zeros(5, dtype=torch.long), torch.zeros(5))
    torch.testing.assert_close(step.agent_info.q, theta.mean(dim=-1))
    assert torch.equal(step.action, theta.mean(dim=-1).argmax(dim=-1))


def test_targets_are_the_bootstrapped_quantiles_row_by_row(trained):
    runner, _ = trained
    algo, agent = runner.algo, runner.agent
    batch = algo.draw(16)
    y = algo.targets(batch)
    assert y.shape == (16, 32)
    with torch.no_grad():
        for b in range(16):
            inputs = [x[b : b + 1] for x in batch.target_inputs]
            next_theta = agent.target(*inputs)[0]  # [A, N]
            greedy = int(next_theta.mean(dim=-1).argmax())
            for j in range(32):
                expected = float(batch.return_[b])
                if not bool(batch.done_n[b]):
                    expected += float(batch.target_discount[b]) * float(next_theta[greedy, j])
                assert math.isclose(float(y[b, j]), expected, rel_tol=1e-5, abs_tol=1e-5)


def test_the_loss_is_the_quantile_huber_loss_of_the_formula(trained):
    runner, _ = trained
    algo, agent = runner.algo, runner.agent
    batch = algo.draw(8)
    y = algo.targets(batch)
    loss, priorities = algo.loss(batch, y)
    with torch.no_grad():
        theta = agent(*batch.agent_inputs)
        total, n = 0.0, 32
        for b in range(8):
            row = 0.0
            for i in range(n):
                tau = (i + 0.5) / n
                q = float(theta[b, int(batch.action[b]), i])
                for j in range(n):
                    u = float(y[b, j]) - q
                    huber = (
                        0.5 * u * u
                        if abs(u) <= algo.kappa
                        else algo.kappa * (abs(u) - 0.5 * algo.kappa)
                    )
                    row += abs(tau - (u < 0)) * huber / algo.kappa / n
            total += row
            mean_theta = float(theta[b, int(batch.action[b])].mean())
            assert math.isclose(
                float(priorities[b]),
                abs(float(y[b].mean()) - mean_theta),
                rel_tol=1e-4,
                abs_tol=1e-5,
            )
    assert math.isclose(float(loss.detach()), total / 8, rel_tol=1e-4, abs_tol=1e-6)


TARGET = 400.0
SEEDS = (0, 1, 2)
NEEDED = 2


@pytest.mark.learning
def test_the_page_program_learns_cartpole():
    """Evaluation return >= 400 within the page's 30,000 steps, for 2 of seeds 0-2."""
    reached = {}
    for seed in SEEDS:
        runner = PROGRAM["build_runner"](seed=seed)
        logger.disable()
        try:
            returns = []
            for row in runner.iter_train():
                returns.append(round(row["ReturnAverage"], 1))
                if row["ReturnAverage"] >= TARGET:
                    break
        finally:
            logger.enable()
        reached[seed] = returns
        if sum(r[-1] >= TARGET for r in reached.values()) >= NEEDED:
            break
    assert sum(r[-1] >= TARGET for r in reached.values()) >= NEEDED, reached
