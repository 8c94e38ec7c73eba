"""The CLI registry: every algorithm offered, env kinds, composition, --set parsing and checks."""

import importlib
import importlib.util
import inspect
import json
import pkgutil

import pytest

import rlpyt.algos
from rlpyt.algos.base import RlAlgorithm
from rlpyt.cli.compose import build_components
from rlpyt.cli.envs import atari_game, env_kind
from rlpyt.cli.overrides import apply_overrides, parse_assignment, parse_value
from rlpyt.cli.registry import ALGORITHMS, get_algorithm
from rlpyt.cli.spec import RunSpec
from rlpyt.cli.sweep import flatten_variant, make_grid, parse_grid_option


def _algorithm_classes():
    """Every concrete algorithm class defined in a module under rlpyt/algos."""
    found = set()
    for info in pkgutil.walk_packages(rlpyt.algos.__path__, "rlpyt.algos."):
        module = importlib.import_module(info.name)
        for name, obj in vars(module).items():
            if (
                inspect.isclass(obj)
                and issubclass(obj, RlAlgorithm)
                and obj.__module__ == module.__name__
                and not name.endswith(("Algo", "Algorithm"))  # bases: QpgAlgo, ReplayRlAlgorithm
                and obj is not RlAlgorithm
            ):
                found.add(f"{module.__name__}:{name}")
    return found


def test_every_algorithm_in_rlpyt_algos_is_offered_by_the_cli():
    offered = {entry.algo_cls for entry in ALGORITHMS.values()}
    missing = _algorithm_classes() - offered
    assert not missing, f"add these to rlpyt/cli/registry.py: {sorted(missing)}"
    assert {"ppo", "a2c", "dqn", "catdqn", "ddpg", "td3", "sac", "sac_v"} <= set(ALGORITHMS)


@pytest.mark.parametrize("name", list(ALGORITHMS))
def test_each_entry_names_real_agents_and_loadable_default_configs(name):
    entry = ALGORITHMS[name]
    assert issubclass(entry.load_algo_cls(), RlAlgorithm)
    for kind, path in entry.agents.items():
        assert inspect.isclass(entry.load_agent_cls(kind)), path
    for kind, default in entry.configs.items():
        assert kind in entry.agents
        module = f"rlpyt.experiments.configs.{default.module}"
        if name == "r2d1" and importlib.util.find_spec(module) is None:
            pytest.skip(f"{module} not written yet (R2D1 lands in pieces)")
        config = default.load()
        assert {"algo", "agent", "sampler", "runner", "env"} <= set(config), default.name


def test_unknown_algorithm_names_the_closest():
    with pytest.raises(ValueError, match="Did you mean 'ppo'.*Available: ppo, a2c"):
        get_algorithm("ppp")
    assert get_algorithm("PPO").name == "ppo"


@pytest.mark.parametrize(
    "env, kind, kwargs",
    [
        ("CartPole-v1", "classic-discrete", {"id": "CartPole-v1"}),
        ("Pendulum-v1", "classic-continuous", {"id": "Pendulum-v1"}),
        ("pong", "atari", {"game": "pong"}),
        ("ALE/SpaceInvaders-v5", "atari", {"game": "space_invaders"}),
        ("BreakoutNoFrameskip-v4", "atari", {"game": "breakout"}),
    ],
)
def test_env_kind(env, kind, kwargs):
    assert env_kind(env) == (kind, kwargs)


def test_unknown_envs_fail_naming_the_closest():
    with pytest.raises(ValueError, match="Unknown env id 'CartPol-v1'.*'CartPole-v1'"):
        env_kind("CartPol-v1")
    with pytest.raises(ValueError, match="Unknown Atari game 'pongg'.*pong"):
        env_kind("ALE/Pongg-v5")
    assert atari_game("CartPole-v1") is None


@pytest.mark.parametrize(
    "algo, env, agent, runner",
    [
        ("ppo", "CartPole-v1", "ClassicFfAgent", "MinibatchRl"),
        ("a2c", "Pendulum-v1", "MujocoFfAgent", "MinibatchRl"),
        ("dqn", "CartPole-v1", "ClassicDqnAgent", "MinibatchRlEval"),
        ("catdqn", "pong", "AtariCatDqnAgent", "MinibatchRlEval"),
        ("sac", "Pendulum-v1", "SacAgent", "MinibatchRlEval"),
        ("td3", "Pendulum-v1", "Td3Agent", "MinibatchRlEval"),
    ],
)
def test_build_components_composes_what_the_train_scripts_compose(algo, env, agent, runner):
    components = build_components(RunSpec(algo, env, steps=5000, seed=3))
    assert type(components.agent).__name__ == agent
    assert components.runner_cls.__name__ == runner
    assert components.runner_kwargs["n_steps"] == 5000 and components.runner_kwargs["seed"] == 3
    assert components.sampler.env_kwargs == components.env_kwargs
    assert components.config["env"] == components.env_kwargs
    runner_obj = components.make_runner()
    assert runner_obj.algo is components.algo and runner_obj.n_steps == 5000


def test_a2c_on_cartpole_uses_its_scripts_rmsprop():
    import torch

    components = build_components(RunSpec("a2c", "CartPole-v1"))
    assert components.algo.OptimCls is torch.optim.RMSprop
    assert components.algo.optim_kwargs == {"alpha": 0.99, "eps": 1e-5}


def test_overrides_reach_the_constructed_components():
    spec = RunSpec(
        "ppo",
        "CartPole-v1",
        overrides={
            "algo.learning_rate": 3e-4,
            "model.hidden_sizes": [8],
            "sampler.batch_B": 2,
            "runner.log_traj_window": 7,  # a runner keyword the config does not hold
        },
    )
    components = build_components(spec)
    assert components.algo.learning_rate == 3e-4
    assert components.agent.model_kwargs["hidden_sizes"] == [8]
    assert components.sampler.batch_spec.B == 2
    assert components.runner_kwargs["log_traj_window"] == 7


def test_eval_episodes_switch_the_runner_and_size_the_evaluation():
    without = build_components(RunSpec("dqn", "CartPole-v1", eval_episodes=0))
    assert without.runner_cls.__name__ == "MinibatchRl" and "eval_env" not in without.config
    with_eval = build_components(RunSpec("ppo", "CartPole-v1", eval_episodes=3))
    assert with_eval.runner_cls.__name__ == "MinibatchRlEval"
    sampler = with_eval.config["sampler"]
    assert (sampler["eval_n_envs"], sampler["eval_max_trajectories"]) == (3, 3)
    assert sampler["eval_max_steps"] == 3 * 500  # CartPole-v1's time limit


def test_parallel_sampler_gets_unpinned_worker_cpus():
    components = build_components(RunSpec("ppo", "CartPole-v1", sampler="cpu", n_workers=3))
    affinity = components.runner_kwargs["affinity"]
    assert len(affinity["workers_cpus"]) == 3 and affinity["set_affinity"] is False
    assert type(components.sampler).__name__ == "CpuSampler"


def test_unknown_set_key_lists_valid_keys_and_the_closest():
    spec = RunSpec("ppo", "CartPole-v1", overrides={"algo.learnin_rate": 1e-3})
    with pytest.raises(ValueError) as info:
        build_components(spec)
    message = str(info.value)
    assert "Unknown config key 'algo.learnin_rate'" in message
    assert "Did you mean 'algo.learning_rate'?" in message
    assert "algo.ratio_clip" in message and "sampler.batch_T" in message


def test_named_config_and_unknown_config_key():
    components = build_components(RunSpec("dqn", "pong", config="atari.dqn.atari_dqn:double"))
    assert components.algo.double_dqn is True
    with pytest.raises(ValueError, match="has no config 'doubel'.*Did you mean 'double'"):
        build_components(RunSpec("dqn", "pong", config="doubel"))


def test_config_file_takes_nested_sections_and_dotted_keys(tmp_path):
    path = tmp_path / "best.json"
    path.write_text(json.dumps({"algo": {"epochs": 3}, "algo.learning_rate": 5e-4}))
    components = build_components(RunSpec("ppo", "CartPole-v1", config_file=str(path)))
    assert (components.algo.epochs, components.algo.learning_rate) == (3, 5e-4)


def test_run_spec_round_trips_through_json():
    spec = RunSpec("sac", "Pendulum-v1", seed=4, overrides={"algo.batch_size": 64})
    data = json.loads(json.dumps(spec.to_dict()))
    assert RunSpec.from_dict({**data, "from_a_newer_version": 1}) == spec


@pytest.mark.parametrize(
    "text, value",
    [("3e-4", 3e-4), ("[64, 64]", [64, 64]), ("True", True), ("false", False), ("none", None)]
    + [("adam", "adam"), ("'x'", "x"), ("7", 7)],
)
def test_parse_value(text, value):
    assert parse_value(text) == value


def test_parse_assignment_needs_section_dot_key():
    assert parse_assignment("algo.learning_rate=1e-3") == ("algo.learning_rate", 1e-3)
    for bad in ("learning_rate=1e-3", "algo.learning_rate", ".x=1"):
        with pytest.raises(ValueError, match="section.key=value"):
            parse_assignment(bad)


def test_apply_overrides_copies_creates_and_checks():
    config = {"algo": {"lr": 1.0}, "agent": {"model_kwargs": None}, "env": {"id": "X"}}
    updated = apply_overrides(
        config,
        {"algo.lr": 2.0, "agent.model_kwargs.hidden_sizes": [4], "env.render_mode": "rgb"},
        extra_keys=["env.*"],
    )
    assert updated["algo"]["lr"] == 2.0 and config["algo"]["lr"] == 1.0
    assert updated["agent"]["model_kwargs"] == {"hidden_sizes": [4]}
    assert updated["env"] == {"id": "X", "render_mode": "rgb"}
    with pytest.raises(ValueError, match="Did you mean 'algo.lr'"):
        apply_overrides(config, {"algo.lrr": 2.0})


def test_sweep_grid_parsing_and_crossing():
    assert parse_grid_option("algo.learning_rate=3e-4,1e-3") == (
        "algo.learning_rate",
        [3e-4, 1e-3],
    )
    assert parse_grid_option("model.hidden_sizes=[32,32],[64]")[1] == [[32, 32], [64]]
    assert parse_grid_option("env.id=CartPole-v1,Acrobot-v1")[1] == ["CartPole-v1", "Acrobot-v1"]
    with pytest.raises(ValueError, match="section.key=v1,v2"):
        parse_grid_option("learning_rate=1")
    variants, dirs = make_grid({"algo.learning_rate": [1e-3, 3e-4], "sampler.batch_B": [4, 8]})
    assert len(variants) == 4 and len(set(dirs)) == 4
    assert flatten_variant(variants[0]) == {"algo.learning_rate": 1e-3, "sampler.batch_B": 4}
    assert make_grid({}) == ([{}], ["default"])
