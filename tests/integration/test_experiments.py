"""The experiments tree: config modules, train scripts (CLI contract), launch scripts, the demo.

Every config of every config module is built by its own train script's ``build_runner`` (sampler,
algorithm, agent, runner) and its model is constructed for the env's spaces, without training,
so a misspelt key fails here. One train script runs end to end through the command line.
"""

import csv
import importlib
import importlib.util
import json
import sys
from pathlib import Path

import pytest

from rlpyt.envs.base import EnvSpaces
from rlpyt.spaces.float_box import FloatBox
from rlpyt.utils.launching.affinity import encode_affinity, prepend_run_slot
from rlpyt.utils.launching.variant import VARIANT
from tests import warm_python

REPO = Path(__file__).resolve().parents[2]
SCRIPTS = REPO / "experiments" / "scripts"
SECTIONS = {"agent", "algo", "env", "eval_env", "model", "optim", "runner", "sampler"}

# Train script -> (config module, config keys rlpyt had or we add).
TRAIN_SCRIPTS = {
    "atari/pg/train/atari_ff_a2c.py": ("atari.pg.atari_ff_a2c", {"0", "low_lr", "2gpu"}),
    "atari/pg/train/atari_ff_a2c_gpu_multi.py": (
        "atari.pg.atari_ff_a2c",
        {"0", "low_lr", "2gpu"},
    ),
    "atari/pg/train/atari_ff_ppo.py": ("atari.pg.atari_ff_ppo", {"0"}),
    "atari/pg/train/atari_lstm_a2c.py": ("atari.pg.atari_lstm_a2c", {"0", "4frame", "like_ff"}),
    "atari/pg/train/atari_lstm_ppo.py": ("atari.pg.atari_lstm_ppo", {"0"}),
    "mujoco/pg/train/mujoco_ff_a2c.py": ("mujoco.pg.mujoco_a2c", {"a2c_1M"}),
    "mujoco/pg/train/mujoco_ff_ppo.py": (
        "mujoco.pg.mujoco_ppo",
        {"ppo_1M_serial", "ppo_1M_cpu", "ppo_32ep_1mb"},
    ),
    "classic/pg/train/cartpole_ppo.py": ("classic.pg.cartpole_ppo", {"0"}),
    "classic/pg/train/cartpole_ppo_sync.py": ("classic.pg.cartpole_ppo", {"0"}),
    "classic/pg/train/cartpole_a2c.py": ("classic.pg.cartpole_a2c", {"0"}),
    "classic/pg/train/pendulum_ppo.py": ("classic.pg.pendulum_ppo", {"0"}),
    "classic/pg/train/cartpole_ppo_vec.py": ("classic.pg.cartpole_ppo_vec", {"0"}),
    "atari/pg/train/atari_ff_ppo_envpool.py": ("atari.pg.atari_ff_ppo_envpool", {"0"}),
}
CASES = [
    (script, key) for script, (_, keys) in sorted(TRAIN_SCRIPTS.items()) for key in sorted(keys)
]
# MuJoCo envs need the mujoco extra; their models are checked on Hopper's spaces instead.
HOPPER_SPACES = EnvSpaces(
    observation=FloatBox(low=-float("inf"), high=float("inf"), shape=(11,)),
    action=FloatBox(low=-1.0, high=1.0, shape=(3,)),
)
HAVE_MUJOCO = importlib.util.find_spec("mujoco") is not None
HAVE_ENVPOOL = importlib.util.find_spec("envpool") is not None


def load_script(relative_path):
    """Import a script by path (its ``__main__`` block does not run)."""
    path = SCRIPTS / relative_path
    name = "script_" + relative_path.replace("/", "_").removesuffix(".py")
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def configs_of(script):
    module_name, _ = TRAIN_SCRIPTS[script]
    return importlib.import_module(f"rlpyt.experiments.configs.{module_name}").configs


def env_spaces(script, runner):
    if script.startswith("mujoco/") and not HAVE_MUJOCO:
        return HOPPER_SPACES
    if "envpool" in script and not HAVE_ENVPOOL:
        pytest.skip("the envpool extra is not installed")
    env = runner.sampler.EnvCls(**runner.sampler.env_kwargs)
    try:
        return env.spaces
    finally:
        env.close()


@pytest.mark.parametrize("script", sorted(TRAIN_SCRIPTS))
def test_config_module_has_rlpyts_keys_and_sections(script):
    module_name, keys = TRAIN_SCRIPTS[script]
    configs = configs_of(script)
    assert set(configs) == keys
    for key, config in configs.items():
        assert set(config) <= SECTIONS, f"{module_name}[{key}] has {set(config) - SECTIONS}"
        assert {"agent", "algo", "env", "model", "optim", "runner", "sampler"} <= set(config)
        assert all(isinstance(section, dict) for section in config.values())
    # Entries are independent copies: changing one never changes another.
    dicts = [id(section) for config in configs.values() for section in config.values()]
    assert len(dicts) == len(set(dicts))


@pytest.mark.parametrize(("script", "key"), CASES)
def test_every_config_builds_its_components(script, key):
    config = configs_of(script)[key]
    runner = load_script(script).build_runner(config)
    assert runner.sampler.batch_spec.T == config["sampler"]["batch_T"]
    for name, value in config["algo"].items():
        assert getattr(runner.algo, name) == value
    agent = runner.agent
    model_kwargs = agent.make_env_to_model_kwargs(env_spaces(script, runner))
    model = agent.ModelCls(**model_kwargs, **config["model"])
    assert sum(p.numel() for p in model.parameters()) > 0
    algo = runner.algo  # The optimizer is made in algo.initialize(); build it the same way.
    algo.OptimCls(model.parameters(), lr=algo.learning_rate, **algo.optim_kwargs)


@pytest.mark.parametrize("script", sorted(TRAIN_SCRIPTS))
@pytest.mark.parametrize("section", ["agent", "algo", "runner", "sampler", "model", "optim", "env"])
def test_misspelt_config_key_fails_at_construction(script, section):
    config = next(iter(configs_of(script).values()))
    config = {name: dict(values) for name, values in config.items()}
    config[section]["learning_rte"] = 1e-3
    module = load_script(script)
    env_resolvable = (not script.startswith("mujoco/") or HAVE_MUJOCO) and (
        "envpool" not in script or HAVE_ENVPOOL
    )
    # env_kwargs are checked against the env's constructor when the sampler is built;
    # a MuJoCo env that cannot be imported is left to gym.make, which names the extra.
    if section in ("agent", "algo", "runner", "sampler") or (section == "env" and env_resolvable):
        with pytest.raises(TypeError, match="learning_rte"):
            module.build_runner(config)
        return
    runner = module.build_runner(config)
    if section in ("model", "optim"):
        model_kwargs = runner.agent.make_env_to_model_kwargs(env_spaces(script, runner))
        with pytest.raises(TypeError, match="learning_rte"):
            model = runner.agent.ModelCls(**model_kwargs, **config["model"])
            algo = runner.algo
            algo.OptimCls(model.parameters(), lr=algo.learning_rate, **algo.optim_kwargs)


@pytest.mark.skipif(HAVE_MUJOCO, reason="the mujoco extra is installed")
@pytest.mark.parametrize(
    "script", ["mujoco/pg/train/mujoco_ff_a2c.py", "mujoco/pg/train/mujoco_ff_ppo.py"]
)
def test_mujoco_scripts_name_the_extra_before_making_folders(script, tmp_path):
    with pytest.raises(ImportError, match=r'pip install "rlpyt\[mujoco\]"'):
        load_script(script).build_and_train(
            "0slt_1cpu_0gpu_1cpr_0hto", str(tmp_path / "x"), "0", "a"
        )
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize(
    "launch", sorted(p.relative_to(SCRIPTS).as_posix() for p in SCRIPTS.glob("*/pg/launch/*.py"))
)
def test_launch_scripts_import_and_point_at_train_scripts(launch):
    module = load_script(launch)
    assert Path(module.SCRIPT).is_file()
    train = Path(module.SCRIPT).relative_to(SCRIPTS).as_posix()
    assert module.CONFIG_KEY in configs_of(train)


def test_train_script_runs_through_the_command_line(tmp_path):
    log_dir = tmp_path / "lr_0.003"
    log_dir.mkdir()
    variant = {
        "algo": {"learning_rate": 3e-3},
        "runner": {"n_steps": 1024, "log_interval_steps": 512},
    }
    (log_dir / VARIANT).write_text(json.dumps(variant))
    code = encode_affinity(n_cpu_core=1, cpu_per_run=1, hyperthread_offset=0, n_socket=1)
    script = SCRIPTS / "classic/pg/train/cartpole_ppo.py"
    command = [sys.executable, str(script), prepend_run_slot(0, code), str(log_dir), "0", "0"]
    result = warm_python.run(
        command, check=False, capture_output=True, text=True, timeout=120, cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr[-3000:]
    run_dir = log_dir / "run_0"
    with open(run_dir / "progress.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert [int(float(row["Diagnostics/CumSteps"])) for row in rows] == [512, 1024]
    assert "ReturnAverage" in rows[0]
    params = json.loads((run_dir / "params.json").read_text())
    assert params["algo"]["learning_rate"] == 3e-3 and params["algo"]["epochs"] == 20
    assert params["runner"]["n_steps"] == 1024 and params["run_ID"] == "0"
    assert params["name"] == "CartPole-v1"


def test_demo_sweeps_plots_and_says_where(tmp_path, monkeypatch, capfd):
    pytest.importorskip("matplotlib")
    from rlpyt.plot import load_runs, make_curves

    monkeypatch.chdir(tmp_path)
    demo = load_script("classic/pg/launch/launch_cartpole_ppo_demo.py")
    exp_dir, png = demo.run_demo(1024, 512, root_log_dir=str(tmp_path / "data"))
    assert Path(png).is_file() and Path(png).stat().st_size > 10_000  # Two curves drawn
    runs = load_runs([exp_dir])
    assert sorted(run.params["exp_name"] for run in runs) == [
        f"lr_{lr:g}/run_{i}" for lr in demo.LEARNING_RATES for i in range(2)
    ]
    curves = make_curves(
        runs, "Diagnostics/CumSteps", "ReturnAverage", group=["algo.learning_rate"]
    )
    assert sorted(curve.label for curve in curves) == [
        f"algo.learning_rate={lr}" for lr in demo.LEARNING_RATES
    ]
    text = demo.where_text(exp_dir, png)
    assert f"python viskit/frontend.py {exp_dir}" in text and png in text
    # Each run's tables go to its console.log, a few lines per run to the terminal (not four
    # runs' tables interleaved there, all prefixed CartPole-v1_0).
    out, err = capfd.readouterr()
    assert "ReturnAverage " not in err and "CartPole-v1_" not in out + err
    for lr in demo.LEARNING_RATES:
        for i in range(2):
            console = Path(exp_dir, f"lr_{lr:g}", f"run_{i}", "console.log")
            assert f"lr_{lr:g}/run_{i}: started" in out and f"lr_{lr:g}/run_{i}: done" in out
            assert f"console output in {console}" in out
            assert "ReturnAverage" in console.read_text()
            assert f"| CartPole-v1 lr_{lr:g}/run_{i} " in console.read_text()  # Not _0 for all.
    assert len(out.splitlines()) <= 4 * 2 + 4 * 10 + 2  # Start, progress, end; the summary.
    assert "console.log" in text
