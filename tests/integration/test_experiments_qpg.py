"""The Q-function policy-gradient experiments: config modules, train scripts, launch scripts.

Every config of the QPG config modules is built by the train scripts meant for it (sampler,
algorithm, agent, runner), each section checked against the signature of the class it goes to,
and the agent's models made for the env's spaces, without training. The Zoo translations are
checked against the numbers they claim. Every train script then trains for a few hundred
Pendulum-v1 steps through the command line (``<slot_affinity_code> <log_dir> <run_ID>
<config_key>``), learning included: the MuJoCo scripts too, with the env id changed through
the variant (they still need the mujoco extra, which they check first).
"""

import csv
import importlib
import importlib.util
import inspect
import json
import math
import sys
from pathlib import Path

import pytest

from rlpyt.utils.launching.affinity import encode_affinity, prepend_run_slot
from rlpyt.utils.launching.variant import VARIANT
from tests import warm_python
from tests.integration.test_experiments import SCRIPTS, load_script

HAVE_MUJOCO = importlib.util.find_spec("mujoco") is not None
QPG_SECTIONS = {"agent", "algo", "env", "eval_env", "optim", "runner", "sampler"}
# Config module -> the keys rlpyt had (or we add: the Zoo translations).
CONFIG_MODULES = {
    "mujoco.qpg.mujoco_ddpg": {
        "ddpg_from_td3_1M_serial",
        "ddpg_from_td3_serial_bstl",
        "async_serial",
    },
    "mujoco.qpg.mujoco_sac": {"sac_1M_serial", "sac_serial_bstl", "sac_halfcheetah_zoo"},
    "mujoco.qpg.mujoco_sac_v": {"sac_1M_serial", "sac_serial_bstl", "async_gpu"},
    "mujoco.qpg.mujoco_td3": {
        "td3_1M_serial",
        "td3_serial_bstl",
        "async_cpu",
        "td3_halfcheetah_zoo",
    },
    "classic.qpg.pendulum_sac": {"sac"},
    "classic.qpg.pendulum_td3": {"td3", "td3_short"},
    "classic.qpg.pendulum_ddpg": {"ddpg", "ddpg_short"},
}
# Train script -> its config module (every key of it: the async_* keys run synchronously).
TRAIN_SCRIPTS = {
    "mujoco/qpg/train/mujoco_ddpg_serial.py": "mujoco.qpg.mujoco_ddpg",
    "mujoco/qpg/train/mujoco_sac_serial.py": "mujoco.qpg.mujoco_sac",
    "mujoco/qpg/train/mujoco_sac_v_serial.py": "mujoco.qpg.mujoco_sac_v",
    "mujoco/qpg/train/mujoco_td3_serial.py": "mujoco.qpg.mujoco_td3",
    "classic/qpg/train/pendulum_sac.py": "classic.qpg.pendulum_sac",
    "classic/qpg/train/pendulum_td3.py": "classic.qpg.pendulum_td3",
    "classic/qpg/train/pendulum_ddpg.py": "classic.qpg.pendulum_ddpg",
}
CASES = [
    (script, key)
    for script, module in sorted(TRAIN_SCRIPTS.items())
    for key in sorted(CONFIG_MODULES[module])
]
# A few hundred Pendulum steps, learning from step 64, minibatches of 32, one short evaluation.
TINY = {
    "env": {"id": "Pendulum-v1"},
    "runner": {"n_steps": 256, "log_interval_steps": 128},
    # One update of 32 per env step (the configs' replay_ratio 256 would make it 8, which took
    # three quarters of each script's run here).
    "algo": {"min_steps_learn": 64, "replay_size": 1000, "batch_size": 32, "replay_ratio": 32},
    "sampler": {"eval_n_envs": 1, "eval_max_steps": 200, "eval_max_trajectories": 1},
}


def configs_of(module_name):
    return importlib.import_module(f"rlpyt.experiments.configs.{module_name}").configs


_SPACES: dict[str, object] = {}


def env_spaces(runner):
    """The env's spaces (made once per env id)."""
    env_id = runner.sampler.env_kwargs["id"]
    if env_id not in _SPACES:
        env = runner.sampler.EnvCls(**runner.sampler.env_kwargs)
        try:
            _SPACES[env_id] = env.spaces
        finally:
            env.close()
    return _SPACES[env_id]


@pytest.mark.parametrize("module_name", sorted(CONFIG_MODULES))
def test_config_module_has_its_keys_and_sections(module_name):
    configs = configs_of(module_name)
    assert set(configs) == CONFIG_MODULES[module_name]
    for key, config in configs.items():
        assert set(config) == QPG_SECTIONS, f"{module_name}[{key}]: {set(config) ^ QPG_SECTIONS}"
        assert config["eval_env"] == config["env"]
        assert config["optim"] == {}
    # Entries are independent copies: changing one never changes another.
    dicts = [id(section) for config in configs.values() for section in config.values()]
    assert len(dicts) == len(set(dicts))


def test_every_config_module_has_a_train_script():
    assert set(TRAIN_SCRIPTS.values()) == set(CONFIG_MODULES)
    for script, module_name in TRAIN_SCRIPTS.items():
        assert load_script(script).configs is configs_of(module_name), script


@pytest.mark.skipif(not HAVE_MUJOCO, reason="needs the mujoco extra")
@pytest.mark.parametrize(("script", "key"), CASES)
def test_every_config_builds_its_components(script, key):
    module = load_script(script)
    config = module.configs[key]
    runner = module.build_runner(config)
    # Each section binds to the signature of the class it goes to (no key dropped or renamed).
    inspect.signature(type(runner.algo)).bind(**config["algo"], optim_kwargs=config["optim"])
    inspect.signature(type(runner.agent)).bind(**config["agent"])
    inspect.signature(type(runner.sampler)).bind(EnvCls=None, env_kwargs={}, **config["sampler"])
    inspect.signature(type(runner)).bind(algo=None, agent=None, sampler=None, **config["runner"])
    assert type(runner).__name__ == "MinibatchRlEval"
    assert runner.sampler.batch_spec.T == config["sampler"]["batch_T"]
    assert runner.sampler.batch_spec.B == config["sampler"]["batch_B"]
    assert runner.sampler.CollectorCls is module.CollectorCls
    assert runner.sampler.eval_n_envs == config["sampler"]["eval_n_envs"]
    for name in ("discount", "batch_size", "replay_ratio", "target_update_tau"):
        assert getattr(runner.algo, name) == config["algo"][name]
    assert runner.algo.bootstrap_timelimit == config["algo"].get("bootstrap_timelimit", True)
    # The agent builds every model for the env (hidden sizes from its model_kwargs).
    agent = runner.agent
    agent.initialize(env_spaces(runner))
    hidden = (config["agent"].get("model_kwargs") or {}).get("hidden_sizes")
    linear_sizes = [m.out_features for m in agent.model.modules() if hasattr(m, "out_features")]
    if hidden is not None:
        assert linear_sizes[: len(hidden)] == hidden
    state = agent.state_dict()
    assert {"model"} < set(state) and all(len(value) > 0 for value in state.values())


def test_mujoco_configs_keep_rlpyts_values():
    ddpg = configs_of("mujoco.qpg.mujoco_ddpg")
    td3 = configs_of("mujoco.qpg.mujoco_td3")
    sac = configs_of("mujoco.qpg.mujoco_sac")
    sac_v = configs_of("mujoco.qpg.mujoco_sac_v")
    for configs, base, bstl in [
        (ddpg, "ddpg_from_td3_1M_serial", "ddpg_from_td3_serial_bstl"),
        (td3, "td3_1M_serial", "td3_serial_bstl"),
        (sac, "sac_1M_serial", "sac_serial_bstl"),
        (sac_v, "sac_1M_serial", "sac_serial_bstl"),
    ]:
        assert configs[base]["env"]["id"] == "Hopper-v5"
        assert configs[base]["runner"] == {"n_steps": 1e6, "log_interval_steps": 1e4}
        assert configs[base]["sampler"]["batch_T"] == configs[base]["sampler"]["batch_B"] == 1
        assert configs[base]["algo"]["bootstrap_timelimit"] is False
        assert configs[bstl]["algo"]["bootstrap_timelimit"] is True
        assert {**configs[bstl]["algo"], "bootstrap_timelimit": False} == configs[base]["algo"]
    assert ddpg["ddpg_from_td3_1M_serial"]["algo"]["target_update_tau"] == 0.01
    assert td3["td3_1M_serial"]["algo"]["policy_update_interval"] == 2
    assert sac_v["sac_1M_serial"]["algo"]["reward_scale"] == 5
    assert sac_v["sac_1M_serial"]["algo"]["policy_output_regularization"] == 0.001
    for configs, key in [(ddpg, "async_serial"), (td3, "async_cpu"), (sac_v, "async_gpu")]:
        assert configs[key]["algo"]["updates_per_sync"] == 1
        assert configs[key]["sampler"]["batch_T"] == 5


def updates_per_step(config):
    algo, sampler = config["algo"], config["sampler"]
    steps = sampler["batch_T"] * sampler["batch_B"]
    return max(1, round(algo["replay_ratio"] * steps / algo["batch_size"])) / steps


@pytest.mark.parametrize(
    ("module_name", "key"),
    [
        ("classic.qpg.pendulum_sac", "sac"),
        ("classic.qpg.pendulum_td3", "td3"),
        ("classic.qpg.pendulum_ddpg", "ddpg"),
        ("mujoco.qpg.mujoco_sac", "sac_halfcheetah_zoo"),
        ("mujoco.qpg.mujoco_td3", "td3_halfcheetah_zoo"),
    ],
)
def test_zoo_configs_are_sb3s_settings_in_rlpyts_terms(module_name, key):
    config = configs_of(module_name)[key]
    algo, agent, sampler = config["algo"], config["agent"], config["sampler"]
    assert updates_per_step(config) == 1  # train_freq 1, gradient_steps 1
    assert algo["batch_size"] == 256 and algo["target_update_tau"] == 0.005
    assert algo["bootstrap_timelimit"] is True  # SB3's handle_timeout_termination
    sizes = [256, 256] if "sac" in key else [400, 300]
    assert agent["model_kwargs"] == agent["q_model_kwargs"] == {"hidden_sizes": sizes}
    if "sac" in key:
        assert algo["target_entropy"] == "auto" and algo["reward_scale"] == 1
    if "td3" in key:
        assert agent["action_std"] == 0.1 and algo["min_steps_learn"] == 10_000
        assert (agent["target_noise_std"], agent["target_noise_clip"]) == (0.2, 0.5)
        assert algo["policy_update_interval"] == algo["target_update_interval"] == 2
        assert algo["mu_learning_rate"] == algo["q_learning_rate"] == 1e-3
    if key.endswith("zoo"):
        assert config["env"]["id"] == "HalfCheetah-v5" and algo["min_steps_learn"] == 10_000
        assert config["runner"]["n_steps"] == 1e6
        return
    assert config["env"]["id"] == "Pendulum-v1"
    assert config["runner"]["log_interval_steps"] == 1000
    # 10 evaluation episodes of Pendulum's 200 steps.
    assert sampler["eval_n_envs"] * 400 == sampler["eval_max_steps"] == 2000
    assert sampler["eval_max_trajectories"] == 10
    if key == "sac":
        assert (algo["learning_rate"], algo["min_steps_learn"]) == (1e-3, 100)
        assert (algo["replay_size"], algo["discount"]) == (1e6, 0.99)
        assert config["runner"]["n_steps"] == 20_000
    else:
        assert (algo["replay_size"], algo["discount"]) == (200_000, 0.98)
        assert config["runner"]["n_steps"] == 30_000


@pytest.mark.parametrize(
    "launch", sorted(p.relative_to(SCRIPTS).as_posix() for p in SCRIPTS.glob("*/qpg/launch/*.py"))
)
def test_launch_scripts_import_and_point_at_train_scripts(launch):
    module = load_script(launch)
    assert Path(module.SCRIPT).is_file()
    train = Path(module.SCRIPT).relative_to(SCRIPTS).as_posix()
    assert module.CONFIG_KEY in CONFIG_MODULES[TRAIN_SCRIPTS[train]]


def read_progress(run_dir):
    with open(run_dir / "progress.csv", newline="") as f:
        return list(csv.DictReader(f))


@pytest.mark.skipif(not HAVE_MUJOCO, reason="the MuJoCo scripts check for the mujoco extra")
@pytest.mark.parametrize("script", sorted(TRAIN_SCRIPTS))
def test_train_script_runs_through_the_command_line(script, tmp_path):
    # rlpyt's one-step-per-iteration key (the async_* keys take 5 steps per iteration).
    key = min(k for k in configs_of(TRAIN_SCRIPTS[script]) if not k.startswith("async"))
    log_dir = tmp_path / "setting"
    log_dir.mkdir()
    (log_dir / VARIANT).write_text(json.dumps(TINY))
    code = encode_affinity(n_cpu_core=1, cpu_per_run=1, hyperthread_offset=0, n_socket=1)
    command = [sys.executable, str(SCRIPTS / script), prepend_run_slot(0, code), str(log_dir)]
    command += ["2", key]
    result = warm_python.run(
        command, check=False, capture_output=True, text=True, timeout=240, cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr[-3000:]
    run_dir = log_dir / "run_2"
    rows = read_progress(run_dir)
    steps = [int(float(row["Diagnostics/CumSteps"])) for row in rows]
    assert steps == [0, 128, 256]
    last = rows[-1]
    assert float(last["Diagnostics/CumUpdates"]) > 0
    loss = "q1Loss" if "sac" in script else "qLoss"  # SAC/SAC_V's twin Qs, DDPG/TD3's Q
    assert math.isfinite(float(last[loss + "Average"]))
    assert int(float(last["Diagnostics/TrajsInEval"])) >= 1  # One whole 200-step episode
    params = json.loads((run_dir / "params.json").read_text())
    assert params["run_ID"] == "2" and params["name"] == "Pendulum-v1"
    assert params["env"]["id"] == params["eval_env"]["id"] == "Pendulum-v1"
    assert params["algo"]["min_steps_learn"] == 64 and params["algo"]["batch_size"] == 32
