"""Between runner and parts: declared members, no attribute probes.

What the runners read of the agent (``model`` and its keywords), of the algorithm (its one
``optimizer``, where it has one) and of the OptInfo (``_fields``) is declared in
``rlpyt.protocols`` and type-checked; the runner modules call ``getattr`` / ``hasattr`` only
where they read objects that are not parts (``ALLOWED``).
"""

import ast
import pathlib
from collections import namedtuple

import pytest

import rlpyt.runners
from rlpyt.agents.pg.classic import ClassicFfAgent
from rlpyt.agents.qpg.sac_agent import SacAgent
from rlpyt.algos.pg.ppo import PPO
from rlpyt.algos.qpg.sac import SAC
from rlpyt.envs.gym import make as gym_make
from rlpyt.protocols import Agent, OptimizerAlgorithm
from rlpyt.runners.config_record import model_record, resolved_config
from rlpyt.runners.divergence import nonfinite_opt_info
from rlpyt.runners.minibatch_rl import MinibatchRl
from rlpyt.samplers.serial.sampler import SerialSampler

RUNNERS = pathlib.Path(rlpyt.runners.__file__).parent

# (module, function) -> why a reflective call stays there.
ALLOWED = {
    ("config_record.py", "_stored_value"): "constructor keywords of any class, a user's too",
    ("diagnostics.py", "stdout_is_terminal"): "sys.stdout, which a test or a notebook may replace",
    ("async_rl.py", "_lacking"): "names what a part lacks in the error of a failed isinstance",
}


def reflective_calls():
    """``(module, enclosing function)`` of every ``getattr``/``hasattr`` call in the runners."""
    found = set()
    for path in sorted(RUNNERS.glob("*.py")):
        tree = ast.parse(path.read_text())
        for function in ast.walk(tree):
            if not isinstance(function, ast.FunctionDef):
                continue
            for node in ast.walk(function):
                if (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Name)
                    and node.func.id in ("getattr", "hasattr")
                ):
                    found.add((path.name, function.name))
    return found


def test_the_runners_probe_no_part():
    assert reflective_calls() <= set(ALLOWED), reflective_calls() - set(ALLOWED)


def test_every_agent_declares_its_model_and_keywords():
    agent = ClassicFfAgent(model_kwargs=dict(hidden_sizes=[8]))
    assert isinstance(agent, Agent)
    assert agent.model is None and agent.built_model_kwargs == {}
    assert agent.model_kwargs == dict(hidden_sizes=[8]) and agent.env_model_kwargs == {}


def test_the_model_record_takes_the_agents_keywords_as_built():
    agent = ClassicFfAgent(model_kwargs=dict(hidden_sizes=[8]))
    agent.initialize(gym_make(id="CartPole-v1").spaces)
    record = model_record(agent, agent.model)
    assert record["kwargs"]["hidden_sizes"] == [8]
    assert record["kwargs"]["observation_shape"] == [4]
    agent.built_model_kwargs = {}  # a model built otherwise: the env's and the user's keywords
    assert model_record(agent, agent.model)["kwargs"]["hidden_sizes"] == [8]


def test_only_single_optimizer_algorithms_record_an_optimizer():
    sampler = SerialSampler(gym_make, dict(id="CartPole-v1"), batch_T=4, batch_B=2)
    runner = MinibatchRl(PPO(), ClassicFfAgent(), sampler, n_steps=8, seed=1)
    runner.startup()
    try:
        assert isinstance(runner.algo, OptimizerAlgorithm)
        record = resolved_config(runner)
        assert record["optimizer"]["class"] == "torch.optim.adam.Adam"
        assert record["model"]["class"] == "rlpyt.models.pg.classic_model.ClassicFfModel"
    finally:
        runner.shutdown()
    assert not isinstance(PPO(), OptimizerAlgorithm)  # none before initialize
    assert not isinstance(SAC(), OptimizerAlgorithm)  # one optimizer per network
    assert isinstance(SacAgent(), Agent)


@pytest.mark.parametrize("value, found", [(1.0, None), (float("nan"), "'loss' (nan)")])
def test_the_divergence_guard_reads_the_declared_fields(value, found):
    info = namedtuple("OptInfo", ["entropy", "loss"])([float("nan")], [value])
    result = nonfinite_opt_info(info)
    assert result is None if found is None else found in result
