"""params.json records the run's resolved configuration.

What the user passes to ``logger_context`` alone (the demo's: no seed at all, no default of any
constructor) is not enough to reproduce a run from its folder.
"""

import importlib.util
import json
import math
import os
import warnings
from pathlib import Path

import numpy as np
import pytest
import torch

from rlpyt.agents.qpg.ddpg_agent import DdpgAgent
from rlpyt.envs.gym import make as gym_make
from rlpyt.runners.config_record import json_value, model_record
from rlpyt.utils.launching.affinity import encode_affinity, prepend_run_slot
from rlpyt.utils.launching.variant import VARIANT
from rlpyt.utils.logging import logger
from rlpyt.utils.logging.context import logger_context, record_resolved_config
from tests.unit.runners.test_runner_loop import make_runner

TRAIN_SCRIPT = (
    Path(__file__).resolve().parents[3] / "experiments/scripts/classic/pg/train/cartpole_ppo.py"
)
COMPONENTS = ("runner", "sampler", "agent", "model", "algo", "optimizer")


@pytest.fixture(autouse=True)
def fresh_logger():
    logger.reset()
    yield
    logger.reset()


def strict_json(path):
    def refuse(constant):
        raise AssertionError(f"{path} holds {constant}, which strict JSON readers refuse")

    with open(path) as f:
        return json.load(f, parse_constant=refuse)


def test_params_json_records_every_component_with_defaults_seed_and_affinity(tmp_path):
    runner = make_runner()
    runner.seed = None  # the seed is drawn at start-up: the drawn one must be recorded
    config = {"algo": {"minibatches": 1}, "seed": "user's"}
    with logger_context(str(tmp_path), 0, "resolved", config) as run_dir:
        runner.train()
    params = strict_json(os.path.join(run_dir, "params.json"))
    variant = strict_json(os.path.join(run_dir, "variant.json"))
    resolved = params.pop("resolved")
    assert params == variant, "the keys logger_context wrote must stay as they are"
    assert params["algo"] == {"minibatches": 1} and params["seed"] == "user's"
    assert "resolved" not in variant  # viskit and rlpyt.plot group runs by variant.json
    assert [key for key in resolved if key in COMPONENTS] == list(COMPONENTS)
    assert resolved["seed"] == runner.seed and isinstance(resolved["seed"], int)
    assert f"Seed set to {runner.seed}." in open(os.path.join(run_dir, "debug.log")).read()
    assert resolved["affinity"] == {} and resolved["world_size"] == 1
    assert resolved["n_itr"] == runner.n_itr == 6
    assert resolved["batch_spec"] == {"T": 16, "B": 4}
    assert resolved["runner"]["class"] == "rlpyt.runners.minibatch_rl.MinibatchRl"
    assert resolved["runner"]["kwargs"] == {
        "n_steps": 384,
        "seed": runner.seed,
        "affinity": {},
        "log_interval_steps": 128,
        "log_traj_window": 100,  # a default the user never passed
        "target_reward": None,
        "check_finite": True,
    }
    sampler = resolved["sampler"]
    assert sampler["class"] == "rlpyt.samplers.serial.sampler.SerialSampler"
    assert sampler["kwargs"]["EnvCls"] == "rlpyt.envs.gym.make"
    assert sampler["kwargs"]["batch_T"] == 16 and sampler["kwargs"]["batch_B"] == 4
    assert sampler["kwargs"]["max_decorrelation_steps"] == 100  # default
    algo = resolved["algo"]
    assert algo["class"] == "rlpyt.algos.pg.ppo.PPO"
    assert algo["kwargs"]["minibatches"] == 1 and algo["kwargs"]["ratio_clip"] == 0.1  # default
    assert algo["kwargs"]["OptimCls"] == "torch.optim.adam.Adam"
    assert resolved["optimizer"]["kwargs"]["lr"] == algo["kwargs"]["learning_rate"]
    assert resolved["agent"]["kwargs"]["ModelCls"] == (
        "rlpyt.models.pg.classic_model.ClassicFfModel"
    )
    assert resolved["model"] == {
        "class": "rlpyt.models.pg.classic_model.ClassicFfModel",
        "kwargs": {
            "observation_shape": [4],
            "action_size": 2,
            "hidden_sizes": None,
            "nonlinearity": "torch.nn.modules.activation.Tanh",
        },
    }


def test_outside_a_logger_context_nothing_is_written(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    make_runner().train()
    assert os.listdir(tmp_path) == []
    assert record_resolved_config({"seed": 1}) is None


def test_a_resumed_run_keeps_the_section_of_its_first_start(tmp_path):
    first = make_runner()
    first.seed = None
    with logger_context(str(tmp_path), 0, "resume", {}, snapshot_mode="last") as run_dir:
        first.train()
    path = os.path.join(run_dir, "params.json")
    recorded = strict_json(path)["resolved"]
    assert recorded["seed"] == first.seed
    second = make_runner()
    second.seed = first.seed + 1
    with logger_context(str(tmp_path), 0, "resume", {}, snapshot_mode="last", resume=True):
        second.train(resume_from=True)
    assert strict_json(path)["resolved"] == recorded


def test_the_demo_train_script_records_its_drawn_seed_and_config(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    log_dir = tmp_path / "demo"
    log_dir.mkdir()
    variant = {"runner": {"n_steps": 512, "log_interval_steps": 256}}
    (log_dir / VARIANT).write_text(json.dumps(variant))
    spec = importlib.util.spec_from_file_location("demo_train_cartpole_ppo", TRAIN_SCRIPT)
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    code = encode_affinity(n_cpu_core=1, cpu_per_run=1, hyperthread_offset=0, n_socket=1)
    script.build_and_train(prepend_run_slot(0, code), str(log_dir), "0", "0")
    params = strict_json(log_dir / "run_0" / "params.json")
    assert "seed" not in params  # the demo passes none ...
    resolved = params["resolved"]
    assert isinstance(resolved["seed"], int)  # ... and the one drawn at start-up is recorded
    assert resolved["runner"]["kwargs"]["seed"] == resolved["seed"]
    assert resolved["affinity"]["master_cpus"] == [0]
    assert resolved["algo"]["kwargs"]["ratio_clip"] == 0.2
    assert resolved["model"]["kwargs"]["hidden_sizes"] == [64, 64]
    assert resolved["batch_spec"] == {"T": 32, "B": 8}


def test_json_value_keeps_strict_json_types():
    class Thing:
        def __repr__(self):
            return "Thing()"

    value = {
        "cls": torch.nn.Tanh,
        "fn": math.sqrt,
        "floats": (float("inf"), float("-inf"), float("nan"), 0.5),
        "np": np.float32(2.0),
        1: Thing(),
    }
    assert json_value(value) == {
        "cls": "torch.nn.modules.activation.Tanh",
        "fn": "math.sqrt",
        "floats": ["inf", "-inf", "nan", 0.5],
        "np": 2.0,
        "1": "Thing()",
    }


@pytest.mark.parametrize(("model_kwargs", "output_max"), [(None, 2.0), ({"output_max": 1.5}, 1.5)])
def test_the_model_record_holds_the_keywords_the_agent_derived(model_kwargs, output_max):
    """DDPG's mu gets ``output_max`` = Pendulum's action bound 2 from the agent (the record
    held the constructor's default 1 before) and the agent's default hidden sizes; a user's
    ``output_max`` is recorded as the one used."""
    env = gym_make(id="Pendulum-v1")
    agent = DdpgAgent(model_kwargs=model_kwargs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the user's bound differs from the env's: warned once
        agent.initialize(env.spaces)
    env.close()
    record = model_record(agent, agent.model)
    assert record == {
        "class": "rlpyt.models.qpg.mlp.MuMlpModel",
        "kwargs": {
            "observation_shape": [3],
            "hidden_sizes": [400, 300],
            "action_size": 1,
            "output_max": output_max,
        },
    }
