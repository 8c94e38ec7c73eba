"""R2D1 configs and scripts: every key builds with its train script, rlpyt's values, the sync
train scripts run through the command line, launch scripts point at train scripts."""

from __future__ import annotations

import csv
import inspect
import json
import math
import sys
from pathlib import Path

import pytest

from rlpyt.experiments.configs.atari.dqn.atari_r2d1 import configs as atari_configs
from rlpyt.experiments.configs.classic.dqn.cartpole_r2d1 import configs as cartpole_configs
from rlpyt.utils.launching.affinity import encode_affinity, prepend_run_slot
from rlpyt.utils.launching.variant import VARIANT
from tests import warm_python
from tests.integration.test_experiments import SCRIPTS, load_script

ASYNC_KEYS = {"async_gpu", "async_gpu_dgx"}
ALT_KEYS = {"async_alt_pabti", "async_alt_dgx", "async_alt_got"}
R2D1_TRAIN_SCRIPTS = {
    "atari/dqn/train/atari_r2d1_gpu.py": set(atari_configs) - ASYNC_KEYS - ALT_KEYS,
    "atari/dqn/train/atari_r2d1_async_gpu.py": ASYNC_KEYS,
    "atari/dqn/train/atari_r2d1_async_alt.py": ALT_KEYS,
    "classic/dqn/train/cartpole_r2d1.py": {"r2d1"},
}
RLPYT_KEYS = {
    "r2d1", "r2d1_long", "r2d1_profile", "r2d1_prof_halftrain", "r2d1_prof_quartertrain",
    "r2d1_long_4tr", "async_gpu", "r2d1_test", "async_alt_pabti", "async_alt_dgx",
    "async_alt_got", "async_gpu_dgx",
}  # fmt: skip
SYNC_CASES = [
    (script, key)
    for script, keys in sorted(R2D1_TRAIN_SCRIPTS.items())
    if "async" not in script
    for key in sorted(keys)
]


def test_atari_config_has_rlpyts_keys_and_values():
    assert set(atari_configs) == RLPYT_KEYS
    base = atari_configs["r2d1"]
    algo = base["algo"]
    assert (algo["batch_T"], algo["batch_B"], algo["warmup_T"]) == (80, 32, 40)
    assert algo["store_rnn_state_interval"] == 40 and algo["replay_ratio"] == 4
    assert (algo["pri_alpha"], algo["pri_beta_init"], algo["input_priority_shift"]) == (0.9, 0.6, 2)
    assert base["model"]["dueling"] and not base["env"]["clip_reward"]
    assert (base["sampler"]["batch_T"], base["sampler"]["batch_B"]) == (30, 32)
    long = atari_configs["r2d1_long"]
    assert long["algo"]["replay_size"] == int(4e6) and long["algo"]["batch_B"] == 64
    assert (long["agent"]["eps_final"], long["agent"]["eps_final_min"]) == (0.1, 0.0005)
    assert (long["sampler"]["batch_T"], long["sampler"]["batch_B"]) == (40, 192)
    assert atari_configs["async_alt_pabti"]["sampler"]["batch_B"] == 264
    assert atari_configs["async_gpu_dgx"]["sampler"]["eval_n_envs"] == 39
    test = atari_configs["r2d1_test"]["algo"]
    assert (test["batch_T"], test["warmup_T"], test["store_rnn_state_interval"]) == (10, 5, 5)
    dicts = [id(s) for c in atari_configs.values() for s in c.values()]
    assert len(dicts) == len(set(dicts))  # entries are independent copies


@pytest.mark.parametrize(
    ("script", "key"),
    [(s, k) for s, keys in sorted(R2D1_TRAIN_SCRIPTS.items()) for k in sorted(keys)],
)
def test_every_config_builds_its_components(script, key):
    module = load_script(script)
    config = module.configs[key]
    runner = module.build_runner(config)
    inspect.signature(type(runner.algo)).bind(**config["algo"], optim_kwargs=config["optim"])
    inspect.signature(type(runner.agent)).bind(**config["agent"], model_kwargs=config["model"])
    inspect.signature(type(runner.sampler)).bind(EnvCls=None, env_kwargs={}, **config["sampler"])
    inspect.signature(type(runner)).bind(algo=None, agent=None, sampler=None, **config["runner"])
    assert runner.algo.batch_T == config["algo"]["batch_T"]
    assert runner.algo.optim_kwargs["eps"] == 1e-3  # rlpyt's optim=dict() dropped it
    assert runner.agent.recurrent and runner.agent.alternating == (key in ALT_KEYS)


TINY = {
    "atari": {
        "runner": {"n_steps": 96, "log_interval_steps": 48},
        "algo": {
            "min_steps_learn": 32, "replay_size": 512, "batch_B": 2, "batch_T": 4,
            "warmup_T": 2, "store_rnn_state_interval": 2, "n_step_return": 2,
        },
        "sampler": {
            "batch_T": 8, "batch_B": 2, "max_decorrelation_steps": 0, "eval_n_envs": 1,
            "eval_max_steps": 40, "eval_max_trajectories": 1,
        },
    },
    "classic": {
        "runner": {"n_steps": 640, "log_interval_steps": 320},
        "algo": {"min_steps_learn": 80, "replay_size": 2000},
        "sampler": {"eval_n_envs": 1, "eval_max_steps": 500},
    },
}  # fmt: skip


@pytest.mark.parametrize(
    "script", ["atari/dqn/train/atari_r2d1_gpu.py", "classic/dqn/train/cartpole_r2d1.py"]
)
def test_train_script_runs_through_the_command_line(script, tmp_path):
    kind = script.split("/")[0]
    key = "r2d1_test" if kind == "atari" else "r2d1"  # a variant may only change existing keys
    tiny = TINY[kind]
    log_dir = tmp_path / "setting"
    log_dir.mkdir()
    (log_dir / VARIANT).write_text(json.dumps(tiny))
    code = encode_affinity(n_cpu_core=1, cpu_per_run=1, hyperthread_offset=0, n_socket=1)
    command = [sys.executable, str(SCRIPTS / script), prepend_run_slot(0, code), str(log_dir)]
    command += ["2", key]
    result = warm_python.run(
        command, check=False, capture_output=True, text=True, timeout=180, cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr[-3000:]
    with open(log_dir / "run_2" / "progress.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    last = rows[-1]
    assert float(last["Diagnostics/CumUpdates"]) > 0 and math.isfinite(float(last["lossAverage"]))
    assert math.isfinite(float(last["priorityAverage"]))
    params = json.loads((log_dir / "run_2" / "params.json").read_text())
    assert params["algo"]["min_steps_learn"] == tiny["algo"]["min_steps_learn"]


def test_cartpole_config_hides_the_velocities():
    env = load_script("classic/dqn/train/cartpole_r2d1.py").make_cartpole_without_velocity(
        **cartpole_configs["r2d1"]["env"]
    )
    try:
        assert env.spaces.observation.shape == (2,)
        assert env.reset().shape == (2,)
    finally:
        env.close()


@pytest.mark.parametrize(
    "launch",
    sorted(p.relative_to(SCRIPTS).as_posix() for p in SCRIPTS.glob("*/dqn/launch/*r2d1*.py")),
)
def test_launch_scripts_import_and_point_at_train_scripts(launch):
    module = load_script(launch)
    assert Path(module.SCRIPT).is_file()
    train = Path(module.SCRIPT).relative_to(SCRIPTS).as_posix()
    assert module.CONFIG_KEY in R2D1_TRAIN_SCRIPTS[train]
