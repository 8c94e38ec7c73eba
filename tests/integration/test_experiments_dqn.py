"""The deep-Q experiments: config modules, train scripts through the CLI contract, launch scripts.

Every config of the DQN config modules is built by the train scripts meant for it (sampler,
algorithm, agent, runner), each section checked against the signature of the class it goes to,
and its model and optimizer made for the env's spaces, without training. Every train script
then trains for a few hundred steps through the command line (``<slot_affinity_code> <log_dir>
<run_ID> <config_key>``), learning included (the CPU and GPU Atari scripts with wait-reset
collectors). The PG scripts are covered by ``test_experiments.py``.
"""

import csv
import importlib
import inspect
import json
import math
import sys
from pathlib import Path

import pytest

from rlpyt.utils.launching.affinity import encode_affinity, prepend_run_slot
from rlpyt.utils.launching.variant import VARIANT
from tests import warm_python
from tests.integration.test_experiments import SCRIPTS, SECTIONS, load_script

ATARI_DQN_KEYS = {
    "dqn",
    "double",
    "prioritized",
    "dueling",
    "double_pri_duel",
    "catdqn",
    "ernbw",
    "rmsprop",
    "fast_log",
    "short_run",
    "no_eval",
    "serial",
    "cpu",
    "debug",
    "debug_vec_eps",
    "async_big",
    "async_serial",
    "async_cpu",
    "async_gpu",
}
CATEGORICAL_KEYS = {"catdqn", "ernbw"}
ASYNC_KEYS = {"async_serial", "async_cpu", "async_gpu"}  # AsyncRl configs (async samplers)
# Config module -> the keys rlpyt had (or we add, for the classic module).
CONFIG_MODULES = {
    "atari.dqn.atari_dqn": ATARI_DQN_KEYS,
    "atari.dqn.atari_dqn_debug": {"dqn", "double_pri_duel"},
    "classic.dqn.cartpole_dqn": {"dqn", "catdqn"},
    "classic.dqn.cartpole_dqn_async": {"async"},
}
SYNC_DQN_KEYS = ATARI_DQN_KEYS - CATEGORICAL_KEYS - ASYNC_KEYS - {"rmsprop"}
# Train script -> the config keys it is meant to run (the others need another algorithm class).
TRAIN_SCRIPTS = {
    "atari/dqn/train/atari_dqn_serial.py": SYNC_DQN_KEYS,
    "atari/dqn/train/atari_dqn_cpu.py": SYNC_DQN_KEYS,
    "atari/dqn/train/atari_dqn_gpu.py": SYNC_DQN_KEYS,
    "atari/dqn/train/atari_dqn_async_serial.py": {"async_serial"},
    "atari/dqn/train/atari_dqn_async_cpu.py": {"async_cpu"},
    "atari/dqn/train/atari_dqn_async_gpu.py": {"async_gpu"},
    "atari/dqn/train/atari_dqn_gpu_rmsprop.py": {"rmsprop"},
    "atari/dqn/train/atari_catdqn_gpu.py": CATEGORICAL_KEYS,
    "atari/dqn/train/atari_dqn_cpu_debug.py": {"dqn", "double_pri_duel"},
    "classic/dqn/train/cartpole_dqn.py": {"dqn"},
    "classic/dqn/train/cartpole_catdqn.py": {"catdqn"},
    "classic/dqn/train/cartpole_dqn_async.py": {"async"},
}
CASES = [(script, key) for script, keys in sorted(TRAIN_SCRIPTS.items()) for key in sorted(keys)]
# A few hundred steps with learning from the fourth iteration on; small replay and evaluation.
TINY_ATARI = {
    "runner": {"n_steps": 64, "log_interval_steps": 32},
    "algo": {"min_steps_learn": 24, "replay_size": 256, "batch_size": 16},
    "sampler": {
        "batch_T": 4,
        "batch_B": 2,
        "max_decorrelation_steps": 0,
        "eval_n_envs": 1,
        "eval_max_steps": 40,
        "eval_max_trajectories": 1,
    },
}
TINY_CARTPOLE = {
    "runner": {"n_steps": 256, "log_interval_steps": 128},
    "algo": {"min_steps_learn": 64, "replay_size": 512, "replay_ratio": 4},
    "sampler": {"batch_T": 8, "batch_B": 4, "eval_n_envs": 1, "eval_max_steps": 500},
}


def script_configs(script):
    """The ``configs`` dict that a train script reads (its own import of the module)."""
    return load_script(script).configs


_SPACES = {}


def env_spaces(runner):
    """The env's spaces (made once per env class and keywords: Atari envs load a ROM)."""
    key = (runner.sampler.EnvCls, repr(sorted(runner.sampler.env_kwargs.items())))
    if key not in _SPACES:
        env = runner.sampler.EnvCls(**runner.sampler.env_kwargs)
        try:
            _SPACES[key] = env.spaces
        finally:
            env.close()
    return _SPACES[key]


@pytest.mark.parametrize("module_name", sorted(CONFIG_MODULES))
def test_config_module_has_rlpyts_keys_and_sections(module_name):
    configs = importlib.import_module(f"rlpyt.experiments.configs.{module_name}").configs
    assert set(configs) == CONFIG_MODULES[module_name]
    for key, config in configs.items():
        assert set(config) <= SECTIONS, f"{module_name}[{key}] has {set(config) - SECTIONS}"
        assert {"agent", "algo", "env", "eval_env", "model", "optim", "runner", "sampler"} == set(
            config
        )
    # Entries are independent copies: changing one never changes another.
    dicts = [id(section) for config in configs.values() for section in config.values()]
    assert len(dicts) == len(set(dicts))


def test_every_config_key_has_a_train_script():
    for module_name, keys in CONFIG_MODULES.items():
        scripts = [s for s in TRAIN_SCRIPTS if script_configs(s) is configs_of_module(module_name)]
        assert set().union(*(TRAIN_SCRIPTS[s] for s in scripts)) == keys, module_name


def configs_of_module(module_name):
    return importlib.import_module(f"rlpyt.experiments.configs.{module_name}").configs


def test_atari_variants_differ_from_dqn_as_rlpyts_did():
    configs = configs_of_module("atari.dqn.atari_dqn")
    base = configs["dqn"]
    assert base["algo"]["batch_size"] == 128 and base["algo"]["learning_rate"] == 1e-4
    assert base["sampler"]["batch_T"] * base["sampler"]["batch_B"] == 32
    assert configs["double"]["algo"]["double_dqn"] and not base["algo"]["double_dqn"]
    assert configs["prioritized"]["algo"]["prioritized_replay"]
    assert configs["dueling"]["model"]["dueling"] and not base["model"]["dueling"]
    ernbw = configs["ernbw"]
    assert ernbw["algo"]["n_step_return"] == 3 and ernbw["algo"]["learning_rate"] == 6.25e-5
    assert ernbw["algo"]["double_dqn"] and ernbw["algo"]["prioritized_replay"]
    assert ernbw["model"]["dueling"] and ernbw["agent"]["n_atoms"] == 51
    assert (ernbw["algo"]["V_min"], ernbw["algo"]["V_max"]) == (-10.0, 10.0)
    assert configs["async_big"]["sampler"]["eval_n_envs"] == 10  # rlpyt put it at the top level
    assert configs["debug_vec_eps"]["agent"]["eps_final_min"] == 0.001


def test_cartpole_config_is_rl_zoos_dqn_in_rlpyts_terms():
    config = configs_of_module("classic.dqn.cartpole_dqn")["dqn"]
    algo, sampler = config["algo"], config["sampler"]
    batch = sampler["batch_T"] * sampler["batch_B"]
    assert batch == 256  # Zoo train_freq
    updates = max(1, round(algo["replay_ratio"] * batch / algo["batch_size"]))
    assert updates == 128  # Zoo gradient_steps
    assert algo["target_update_interval"] == updates  # One copy per round of updates
    assert algo["eps_steps"] == 0.16 * 50_000 and config["agent"]["eps_final"] == 0.04
    assert (algo["learning_rate"], algo["batch_size"], algo["replay_size"]) == (2.3e-3, 64, 1e5)
    assert algo["min_steps_learn"] == 1000 and config["model"]["hidden_sizes"] == [256, 256]
    assert config["runner"]["n_steps"] == 50_000


@pytest.mark.parametrize(("script", "key"), CASES)
def test_every_config_builds_its_components(script, key):
    module = load_script(script)
    config = module.configs[key]
    runner = module.build_runner(config)
    # Each section binds to the signature of the class it goes to (no key dropped or renamed).
    inspect.signature(type(runner.algo)).bind(**config["algo"], optim_kwargs=config["optim"])
    inspect.signature(type(runner.agent)).bind(**config["agent"], model_kwargs=config["model"])
    inspect.signature(type(runner.sampler)).bind(EnvCls=None, env_kwargs={}, **config["sampler"])
    inspect.signature(type(runner)).bind(algo=None, agent=None, sampler=None, **config["runner"])
    assert runner.sampler.batch_spec.T == config["sampler"]["batch_T"]
    assert runner.sampler.batch_spec.B == config["sampler"]["batch_B"]
    assert runner.sampler.CollectorCls is module.CollectorCls
    assert runner.sampler.eval_n_envs == config["sampler"]["eval_n_envs"]
    assert runner.algo.discount == config["algo"]["discount"]
    assert runner.algo.learning_rate == config["algo"]["learning_rate"]
    assert runner.agent.eps_final == config["agent"].get("eps_final", 0.01)
    agent = runner.agent
    model_kwargs = dict(agent.make_env_to_model_kwargs(env_spaces(runner)), **config["model"])
    if "n_atoms" in config["agent"]:
        model_kwargs["n_atoms"] = config["agent"]["n_atoms"]
    model = agent.ModelCls(**model_kwargs)
    assert sum(p.numel() for p in model.parameters()) > 0
    algo = runner.algo  # The optimizer is made in algo.initialize(); build it the same way.
    algo.OptimCls(model.parameters(), lr=algo.learning_rate, **algo.optim_kwargs)


@pytest.mark.parametrize("section", ["agent", "algo", "runner", "sampler", "env"])
def test_misspelt_config_key_fails_at_construction(section):
    module = load_script("classic/dqn/train/cartpole_dqn.py")
    config = {name: dict(values) for name, values in module.configs["dqn"].items()}
    config[section]["learning_rte"] = 1e-3
    with pytest.raises(TypeError, match="learning_rte"):
        module.build_runner(config)


@pytest.mark.parametrize(
    "launch",
    sorted(
        p.relative_to(SCRIPTS).as_posix()
        for p in SCRIPTS.glob("*/dqn/launch/*.py")
        if "r2d1" not in p.name  # test_experiments_r2d1.py checks those
    ),
)
def test_launch_scripts_import_and_point_at_train_scripts(launch):
    module = load_script(launch)
    assert Path(module.SCRIPT).is_file()
    train = Path(module.SCRIPT).relative_to(SCRIPTS).as_posix()
    assert module.CONFIG_KEY in TRAIN_SCRIPTS[train]


def read_progress(run_dir):
    with open(run_dir / "progress.csv", newline="") as f:
        return list(csv.DictReader(f))


@pytest.mark.parametrize("script", sorted(TRAIN_SCRIPTS))
def test_train_script_runs_through_the_command_line(script, tmp_path):
    key = sorted(TRAIN_SCRIPTS[script])[0]
    tiny = TINY_CARTPOLE if script.startswith("classic/") else TINY_ATARI
    log_dir = tmp_path / "setting"
    log_dir.mkdir()
    (log_dir / VARIANT).write_text(json.dumps(tiny))
    code = encode_affinity(n_cpu_core=1, cpu_per_run=1, hyperthread_offset=0, n_socket=1)
    command = [sys.executable, str(SCRIPTS / script), prepend_run_slot(0, code), str(log_dir)]
    command += ["3", key]
    result = warm_python.run(
        command, check=False, capture_output=True, text=True, timeout=180, cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr[-3000:]
    run_dir = log_dir / "run_3"
    rows = read_progress(run_dir)
    n_steps, interval = tiny["runner"]["n_steps"], tiny["runner"]["log_interval_steps"]
    steps = [int(float(row["Diagnostics/CumSteps"])) for row in rows]
    assert steps[0] == 0 and steps[-1] >= n_steps and len(steps) == n_steps // interval + 1
    last = rows[-1]
    assert float(last["Diagnostics/CumUpdates"]) > 0
    if "async" not in script:  # AsyncRl logs on the sampler's clock: the last updates may
        assert math.isfinite(float(last["lossAverage"]))  # come after the last row
    if script.startswith("classic/"):  # One env for 500 steps always ends a CartPole episode.
        assert int(float(last["Diagnostics/TrajsInEval"])) >= 1
    params = json.loads((run_dir / "params.json").read_text())
    assert params["run_ID"] == "3"
    assert params["algo"]["min_steps_learn"] == tiny["algo"]["min_steps_learn"]
    assert params["sampler"]["batch_B"] == tiny["sampler"]["batch_B"]
    if script.startswith("atari/"):
        assert params["name"] == "pong" and params["eval_env"]["game"] == "pong"
    else:
        assert params["name"] == "CartPole-v1"


def test_cartpole_launch_script_sweeps_through_run_experiments(tmp_path, monkeypatch):
    launch = load_script("classic/dqn/launch/launch_cartpole_dqn.py")
    real_run_experiments = launch.run_experiments
    calls = []

    def tiny_sweep(**kwargs):  # The launch script's sweep, with a few hundred steps per run.
        calls.append(kwargs)
        kwargs.update(variants=[TINY_CARTPOLE] * len(kwargs["variants"]), runs_per_setting=2)
        return real_run_experiments(**kwargs, root_log_dir=str(tmp_path))

    monkeypatch.setattr(launch, "run_experiments", tiny_sweep)
    launch.main()
    (call,) = calls
    assert call["common_args"] == ("dqn",) and call["log_dirs"] == ["dqn"]
    runs = sorted(tmp_path.glob("local/*/*/cartpole_dqn/dqn/run_*/progress.csv"))
    assert [path.parent.name for path in runs] == ["run_0", "run_1"]
    for path in runs:
        assert int(float(read_progress(path.parent)[-1]["Diagnostics/CumSteps"])) == 256
