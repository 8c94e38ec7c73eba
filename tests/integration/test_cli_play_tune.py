"""``rlpyt play`` and ``rlpyt tune`` driven as a user drives them (subprocesses), and their parts.

Play: a CLI run and a script run (params.json's "cli" and "resolved" sections) for 2 episodes
with a video whose frames are counted back (one per reset and one per step); an Atari run's
video (AtariEnv is no gymnasium env: its RGB screens); a run folder without params.json or
snapshot fails naming the fix. Tune: a 4-trial study whose pruning is decided by the env, not
by learning (trials limited to 10-step episodes return at most 10, below every unlimited
trial), its best file accepted by ``rlpyt train --config-file``; every default search space
key is a key ``build_components`` accepts.
"""

from __future__ import annotations

import glob
import json
import os
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest
import torch

from rlpyt.cli.compose import build_components
from rlpyt.cli.registry import ALGORITHMS
from rlpyt.cli.spec import RunSpec
from tests import warm_python

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EPISODE = re.compile(r"Episode (\d+): return (\S+), length (\d+)")
imageio_ffmpeg = pytest.importorskip("imageio_ffmpeg", reason="the video extra (moviepy)")
optuna = pytest.importorskip("optuna", reason="the tune extra")


def rlpyt(*args: str, cwd: str) -> subprocess.CompletedProcess:
    """``python -m rlpyt ARGS`` in ``cwd``; stdout and stderr captured as text."""
    env = dict(os.environ, PYTHONPATH=REPO, SDL_VIDEODRIVER="dummy")
    return warm_python.run(
        [sys.executable, "-m", "rlpyt", *args],
        check=False,
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=280,
    )


def check_ok(result: subprocess.CompletedProcess) -> str:
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return result.stdout


def video_frames(path: str) -> tuple[int, tuple[int, int], float]:
    """``(frames, (width, height), mean pixel value)`` of a video file, decoded by ffmpeg."""
    reader = imageio_ffmpeg.read_frames(path)
    meta = next(reader)
    n, total = 0, 0.0
    for frame in reader:
        n += 1
        total += float(np.frombuffer(frame, np.uint8).mean())
    return n, tuple(meta["size"]), total / max(n, 1)


def episodes(stdout: str) -> list[tuple[float, int]]:
    return [(float(m.group(2)), int(m.group(3))) for m in EPISODE.finditer(stdout)]


@pytest.fixture(scope="module")
def cartpole_run(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A tiny ``rlpyt train ppo`` run on CartPole-v1 (one snapshot)."""
    root = tmp_path_factory.mktemp("cartpole")
    check_ok(
        rlpyt(
            "train", "ppo", "--env", "CartPole-v1", "--steps", "512", "--log-interval", "512",
            "--seed", "0", "--log-dir", "runs", cwd=str(root),
        )
    )  # fmt: skip
    return str(root / "runs" / "run_0")


def test_play_cli_run_two_episodes_with_video(cartpole_run: str, tmp_path) -> None:
    video = str(tmp_path / "out.mp4")
    out = check_ok(
        rlpyt(
            "play", cartpole_run, "--episodes", "2", "--video", video, "--seed", "3",
            cwd=str(tmp_path),
        )
    )  # fmt: skip
    played = episodes(out)
    assert [len(played)] == [2] and all(length >= 1 for _, length in played)
    mean = float(re.search(r"Mean return over 2 episodes: (\S+)", out).group(1))
    assert mean == pytest.approx(np.mean([r for r, _ in played]))
    n_frames, size, brightness = video_frames(video)
    assert n_frames == sum(length + 1 for _, length in played)  # the reset frame + each step
    assert size == (600, 400) and brightness > 10  # CartPole's rgb_array, not black frames


def test_play_resolved_section_rebuilds_the_same_run(cartpole_run: str, tmp_path) -> None:
    """Without its "cli" section, a run plays from "resolved" exactly as it does from "cli".

    Two processes agreeing also shows that ``--seed`` makes a play repeatable.
    """
    copy = tmp_path / "run_0"
    shutil.copytree(cartpole_run, copy)
    with open(copy / "params.json") as f:
        params = json.load(f)
    del params["cli"]
    (copy / "params.json").write_text(json.dumps(params))
    args = ("--episodes", "2", "--seed", "5")
    from_cli = check_ok(rlpyt("play", cartpole_run, *args, cwd=str(tmp_path)))
    from_resolved = check_ok(rlpyt("play", str(copy), *args, cwd=str(tmp_path)))
    assert len(episodes(from_cli)) == 2 and episodes(from_resolved) == episodes(from_cli)


def test_play_script_run_from_resolved_section(tmp_path) -> None:
    """A run made by a script (no "cli" section) is rebuilt from params.json's "resolved"."""
    script = (
        "import example_cartpole_ppo as example\n"
        "example.CONFIG['runner']['log_interval_steps'] = 256\n"
        f"example.build_and_train(n_steps=256, seed=0, log_dir={str(tmp_path / 'script')!r})\n"
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([REPO, os.path.join(REPO, "examples")]))
    warm_python.run(
        [sys.executable, "-c", script],
        cwd=tmp_path, env=env, check=True, capture_output=True, timeout=280,
    )  # fmt: skip
    (params,) = glob.glob(str(tmp_path / "script" / "**" / "params.json"), recursive=True)
    with open(params) as f:
        assert "cli" not in json.load(f)
    out = check_ok(rlpyt("play", os.path.dirname(params), "--episodes", "2", cwd=str(tmp_path)))
    assert len(episodes(out)) == 2


def test_play_atari_run_video(tmp_path) -> None:
    """AtariEnv's RGB screens (210 x 160) make the video; the game score is printed."""
    check_ok(
        rlpyt(
            "train", "ppo", "--env", "pong", "--steps", "32", "--log-interval", "32", "--seed", "0",
            "--log-dir", "runs",
            "--set", "sampler.batch_T=16", "--set", "sampler.batch_B=2",
            "--set", "sampler.max_decorrelation_steps=0", "--set", "env.horizon=60",
            "--set", "algo.epochs=1", "--set", "algo.minibatches=1",
            cwd=str(tmp_path),
        )
    )  # fmt: skip
    video = str(tmp_path / "pong.mp4")
    out = check_ok(
        rlpyt("play", str(tmp_path / "runs" / "run_0"), "--video", video, cwd=str(tmp_path))
    )
    ((_, length),) = episodes(out)
    assert length == 60 and "game score" in out  # the run's horizon carried over
    n_frames, size, brightness = video_frames(video)
    assert (n_frames, size) == (61, (160, 210)) and brightness > 10


def test_play_bad_run_folders(tmp_path, cartpole_run: str) -> None:
    """Each fails with a message naming the problem and the fix (in-process but the last)."""
    from click.testing import CliRunner

    from rlpyt.cli.play import play

    missing = CliRunner().invoke(play, [str(tmp_path / "nowhere")])
    assert missing.exit_code != 0 and "is not a folder" in missing.output
    empty = tmp_path / "empty"
    empty.mkdir()
    no_params = CliRunner().invoke(play, [str(empty)])
    assert no_params.exit_code != 0
    assert "No params.json" in no_params.output and "Pass the run folder" in no_params.output
    no_snapshot = tmp_path / "no_snapshot"
    no_snapshot.mkdir()
    with open(os.path.join(cartpole_run, "params.json")) as f:
        (no_snapshot / "params.json").write_text(f.read())
    result = rlpyt("play", str(no_snapshot), cwd=str(tmp_path))
    assert result.returncode != 0
    assert "No snapshot in" in result.stderr and "snapshot_mode='last'" in result.stderr
    assert "Traceback" not in result.stderr


def test_deterministic_categorical_takes_most_probable_action() -> None:
    from rlpyt.agents.pg.classic import ClassicFfAgent
    from rlpyt.cli.play import make_deterministic
    from rlpyt.envs.gym import make

    env = make("CartPole-v1")
    agent = ClassicFfAgent()
    agent.initialize(env.spaces)
    agent.eval_mode(1)
    make_deterministic(agent)
    observation = torch.randn(64, 4)
    prev_action, prev_reward = torch.zeros(64, dtype=torch.long), torch.zeros(64)
    prob, _value = agent.model(observation, prev_action, prev_reward)
    action = agent.step(observation, prev_action, prev_reward).action
    assert torch.equal(action, prob.argmax(dim=-1))
    assert len(set(action.tolist())) == 2  # both actions occur: not a constant


def test_tune_prunes_and_best_config_trains(tmp_path) -> None:
    """4 trials: episodes cut at 10 steps cannot beat the median of unlimited ones."""
    space = tmp_path / "space.json"
    space.write_text(json.dumps({"env.max_episode_steps": {"choices": [500, 10]}}))
    out = check_ok(
        rlpyt(
            "tune", "ppo", "--env", "CartPole-v1", "--trials", "4", "--steps", "768",
            "--log-interval", "256", "--seed", "0", "--search-space", str(space),
            "--pruner", "median", "--startup-trials", "1", "--log-dir", "study",
            "--set", "algo.epochs=2", "--out", "best.json", cwd=str(tmp_path),
        )
    )  # fmt: skip
    states = re.findall(r"^Trial (\d+) (complete|pruned)", out, flags=re.M)
    assert len(states) == 4 and ("pruned" in {s for _, s in states})
    pruned = [int(n) for n, s in states if s == "pruned"]
    for number in pruned:  # a pruned trial stopped early: fewer rows than a complete one
        with open(tmp_path / "study" / f"run_{number}" / "progress.csv") as f:
            assert len(f.read().strip().splitlines()) - 1 < 3
    with open(tmp_path / "best.json") as f:
        assert json.load(f) == {"env.max_episode_steps": 500, "algo.epochs": 2}  # --set too
    check_ok(
        rlpyt(
            "train", "ppo", "--env", "CartPole-v1", "--config-file", "best.json",
            "--steps", "256", "--log-interval", "256", "--log-dir", "trained", cwd=str(tmp_path),
        )
    )  # fmt: skip
    with open(tmp_path / "trained" / "run_0" / "params.json") as f:
        config = json.load(f)
    assert (config["env"]["max_episode_steps"], config["algo"]["epochs"]) == (500, 2)


def test_tune_bad_search_space_fails_before_training(tmp_path) -> None:
    space = tmp_path / "space.json"
    space.write_text(json.dumps({"learning_rate": {"low": 1e-4, "high": 1e-3}}))
    result = rlpyt(
        "tune", "ppo", "--env", "CartPole-v1", "--search-space", str(space), cwd=str(tmp_path)
    )
    assert result.returncode != 0 and "algo.learning_rate" in result.stderr
    space.write_text(json.dumps({"algo.learnin_rate": {"low": 1e-4, "high": 1e-3}}))
    result = rlpyt(
        "tune", "ppo", "--env", "CartPole-v1", "--search-space", str(space), "--log-dir", "study",
        cwd=str(tmp_path),
    )  # fmt: skip
    assert result.returncode != 0 and "algo.learnin_rate" in result.stderr
    assert "algo.learning_rate" in result.stderr  # the closest valid key
    assert "Traceback" not in result.stderr and not os.path.exists(tmp_path / "study" / "run_0")


ENVS = {"classic-discrete": "CartPole-v1", "classic-continuous": "Pendulum-v1"}


@pytest.mark.parametrize("algo", sorted(ALGORITHMS))
def test_default_search_space_keys_build(algo: str) -> None:
    """Every key of the default search space is a key the run composition accepts."""
    from rlpyt.cli.tune import SEARCH_SPACES, suggest

    kind = next(k for k in ENVS if k in ALGORITHMS[algo].agents)
    try:
        ALGORITHMS[algo].configs[kind].load()
    except ValueError as error:  # an algorithm whose default config has not landed yet
        pytest.skip(str(error))
    trial = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=0)).ask()
    values = suggest(trial, SEARCH_SPACES[algo])
    assert set(values) == set(SEARCH_SPACES[algo])
    components = build_components(RunSpec(algo=algo, env=ENVS[kind], overrides=values))
    for key, value in values.items():
        section, name = key.split(".")
        assert components.config[section][name] == value


def test_suggest_ranges_choices_and_fixed_values() -> None:
    from rlpyt.cli.tune import suggest

    space = {
        "algo.learning_rate": {"low": 1e-5, "high": 1e-2, "log": True},
        "algo.epochs": {"low": 1, "high": 3},
        "model.hidden_sizes": {"choices": [[64, 64], [32]]},
        "algo.discount": 0.9,
    }
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=1))
    seen = set()
    for _ in range(12):
        values = suggest(study.ask(), space)
        assert 1e-5 <= values["algo.learning_rate"] <= 1e-2
        assert isinstance(values["algo.epochs"], int) and 1 <= values["algo.epochs"] <= 3
        assert values["algo.discount"] == 0.9
        seen.add(tuple(values["model.hidden_sizes"]))
    assert seen == {(64, 64), (32,)}


def test_recorded_keywords_are_rebuilt_or_refused() -> None:
    """The "resolved" section's class names import again; other strings stay; reprs fail."""
    import click

    from rlpyt.cli.play import _rebuild_kwargs
    from rlpyt.models.pg.classic_model import ClassicFfModel

    recorded = {
        "ModelCls": "rlpyt.models.pg.classic_model.ClassicFfModel",
        "model_kwargs": {"nonlinearity": "torch.nn.modules.activation.Tanh", "hidden_sizes": [8]},
        "id": "ALE/Pong-v5",
        "note": "v1.2.3",
    }
    rebuilt = _rebuild_kwargs(recorded, "agent")
    assert rebuilt["ModelCls"] is ClassicFfModel
    assert rebuilt["model_kwargs"] == {"nonlinearity": torch.nn.Tanh, "hidden_sizes": [8]}
    assert (rebuilt["id"], rebuilt["note"]) == ("ALE/Pong-v5", "v1.2.3")
    with pytest.raises(click.ClickException, match="agent keyword ModelCls"):
        _rebuild_kwargs({"ModelCls": "no_such_package.Model"}, "agent")
    with pytest.raises(click.ClickException, match="cannot be rebuilt"):
        _rebuild_kwargs({"schedule": "<function <lambda> at 0x7f>"}, "algo")


def test_play_render_human_without_a_display_fails_with_a_message(cartpole_run, tmp_path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env.pop("SDL_VIDEODRIVER", None)
    result = warm_python.run(
        [sys.executable, "-m", "rlpyt", "play", cartpole_run, "--render", "human"],
        cwd=tmp_path, env={**env, "PYTHONPATH": REPO}, capture_output=True, text=True,
        timeout=280, check=False,
    )  # fmt: skip
    assert result.returncode != 0
    assert "--render human needs a display" in result.stderr and "--video" in result.stderr
    assert "Traceback" not in result.stderr


def test_tune_trial_that_diverges_says_so_once(tmp_path) -> None:
    """The runner's line reports the divergence; the command adds only where the traceback is."""
    result = rlpyt(
        "tune", "ppo", "--env", "CartPole-v1", "--trials", "1", "--steps", "512",
        "--log-interval", "256", "--set", "algo.learning_rate=1e38", "--log-dir", "study",
        cwd=str(tmp_path),
    )  # fmt: skip
    assert result.returncode == 1
    output = result.stdout + result.stderr
    assert output.count("Training diverged in iteration") == 1, output
    assert "Traceback" not in output
    debug_log = tmp_path / "study" / "run_0" / "debug.log"
    assert f"(The traceback is in {debug_log}" in result.stderr
    assert "Traceback" in debug_log.read_text()
