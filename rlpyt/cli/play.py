"""``rlpyt play RUN_DIR``: watch a trained agent, print its episode returns, record a video.

Box: command line (``rlpyt.cli.main`` adds this command to the ``rlpyt`` group). It adds no
behaviour the library lacks: the agent and env are rebuilt from the run folder's params.json
(the ``"cli"`` section written by ``rlpyt train``, else the ``"resolved"`` section every runner
writes), the agent's weights come from the newest snapshot, and the episodes run with the
agent in eval mode, as a runner's evaluation does, in one env in this process.

A trajectory ends where the samplers end one (``env_info.traj_done`` if the env reports it,
else ``done``): an Atari game with ``episodic_lives`` plays on through lost lives.
"""

from __future__ import annotations

import importlib
import json
import os
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import click
import gymnasium
import numpy as np

from rlpyt.cli.compose import build_components
from rlpyt.cli.errors import verbose_option
from rlpyt.cli.spec import RunSpec
from rlpyt.distributions.categorical import Categorical
from rlpyt.distributions.epsilon_greedy import EpsilonGreedy
from rlpyt.distributions.gaussian import Gaussian
from rlpyt.envs.gym import make as gym_make
from rlpyt.envs.traj_info import TrajInfo
from rlpyt.envs.vector import SingleEnvView, is_vector_env_maker
from rlpyt.runners.snapshot import (
    UnreadableSnapshotError,
    find_snapshot,
    load_snapshot,
    nonfinite_tensor,
)
from rlpyt.samplers.episode import trajectory_ended
from rlpyt.utils.buffer import buffer_from_example, torchify_buffer
from rlpyt.utils.seed import set_seed

if TYPE_CHECKING:
    import torch
    from numpy.typing import ArrayLike

    from rlpyt.envs.base import Env
    from rlpyt.protocols import Agent
    from rlpyt.samplers.base import BaseSampler
    from rlpyt.utils.collections import NamedArrayTupleLike

# A recorded "module.qualname" of a class or function (config_record.class_name).
_QUALNAME = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)+$")
DEFAULT_FPS = 30  # video frame rate when the env does not say its own


class PlayError(click.ClickException):
    """A run folder cannot be played; the message names the problem and the fix."""


@dataclass
class PlaySetup:
    """What playing a run needs: an agent with the snapshot's weights and how to make its env.

    Attributes:
        agent: The agent, not yet initialized (``initialize`` needs the env's spaces).
        agent_state_dict: The snapshot's ``agent_state_dict``.
        EnvCls: The env constructor the run sampled with.
        env_kwargs: Its keywords (the sampler's ``eval_env_kwargs`` when it has them).
        TrajInfoCls: The run's TrajInfo class (``AtariTrajInfo`` adds ``GameScore``).
        itr: The snapshot's iteration.
        snapshot_path: The snapshot file read.
    """

    agent: Any
    agent_state_dict: Any
    EnvCls: Callable[..., Any]  # noqa: N815 (rlpyt's keyword)
    env_kwargs: dict[str, Any]
    TrajInfoCls: Callable[..., TrajInfo]  # noqa: N815
    itr: int
    snapshot_path: str


# -- reading a run folder ---------------------------------------------------------------------


def read_params(run_dir: str) -> dict[str, Any]:
    """The run's params.json.

    Raises:
        PlayError: ``run_dir`` is not a folder, or has no readable params.json.
    """
    if not os.path.isdir(run_dir):
        raise PlayError(
            f"{run_dir!r} is not a folder: pass a run folder (the one holding params.json and "
            "the snapshot params.pkl / itr_N.pkl, e.g. made by `rlpyt train`)."
        )
    path = os.path.join(run_dir, "params.json")
    if not os.path.isfile(path):
        raise PlayError(
            f"No params.json in {run_dir!r}: it is not a run folder, or the run was not made "
            "inside logger_context. Pass the run folder itself (e.g. .../run_0), not its parent."
        )
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, json.JSONDecodeError) as error:
        raise PlayError(
            f"{path} is not readable JSON ({error}); restore it from the run."
        ) from None


def read_snapshot(run_dir: str) -> tuple[dict[str, Any], str]:
    """The newest snapshot of ``run_dir`` and its path.

    Raises:
        PlayError: no snapshot there, it is unreadable, or its parameters are not finite.
    """
    try:
        path = find_snapshot(run_dir)
        snapshot = load_snapshot(path)
        diverged = nonfinite_tensor(snapshot["agent_state_dict"])
        if diverged is not None:
            raise PlayError(
                f"The snapshot {path} has non-finite parameters ({diverged!r} holds NaN or "
                "infinity): the run diverged, so there is no policy to play. Train it again "
                "with the divergence guard on (the default; not --no-check-finite), which "
                "keeps the last snapshot with finite parameters."
            )
        return snapshot, path
    except FileNotFoundError:
        raise PlayError(
            f"No snapshot in {run_dir!r} (params.pkl or itr_N.pkl): the run saved none. Train "
            "with snapshots (`rlpyt train` saves them; in a script pass snapshot_mode='last' to "
            "logger_context), or wait for the run's first log point, then play again."
        ) from None
    except UnreadableSnapshotError as error:
        raise PlayError(str(error)) from None


def load_play_setup(run_dir: str) -> PlaySetup:
    """Rebuild the agent and the env description of a run folder.

    Args:
        run_dir: A run folder (params.json plus a snapshot).

    Returns:
        The :class:`PlaySetup`; from params.json's ``"cli"`` section when ``rlpyt train`` made
        the run, else from its ``"resolved"`` section.

    Raises:
        PlayError: the folder, params.json or snapshot is missing or cannot be rebuilt.
    """
    params = read_params(run_dir)
    snapshot, snapshot_path = read_snapshot(run_dir)
    if "cli" in params:
        agent, EnvCls, env_kwargs, TrajInfoCls = _from_cli_section(params["cli"])  # noqa: N806
    elif "resolved" in params:
        agent, EnvCls, env_kwargs, TrajInfoCls = _from_resolved_section(params["resolved"])  # noqa: N806
    else:
        raise PlayError(
            f"params.json of {run_dir!r} has neither a 'cli' section (written by `rlpyt train`) "
            "nor a 'resolved' section (written by this version's runners at start-up), so the "
            "agent and env cannot be rebuilt. Load the snapshot's agent_state_dict into your "
            "own agent with agent.load_state_dict(...) instead."
        )
    return PlaySetup(
        agent=agent,
        agent_state_dict=snapshot["agent_state_dict"],
        EnvCls=EnvCls,
        env_kwargs=env_kwargs,
        TrajInfoCls=TrajInfoCls,
        itr=int(snapshot["itr"]),
        snapshot_path=snapshot_path,
    )


def _from_cli_section(cli: dict[str, Any]) -> tuple[Any, Callable, dict, Callable]:
    """Agent, EnvCls, env_kwargs and TrajInfoCls through the CLI's composition."""
    try:
        components = build_components(RunSpec.from_dict(cli))
    except (KeyError, TypeError, ValueError) as error:
        raise PlayError(
            f"params.json's 'cli' section cannot be rebuilt by this version of rlpyt ({error})."
        ) from None
    sampler: BaseSampler = components.sampler
    env_kwargs = sampler.eval_env_kwargs or components.env_kwargs
    return (
        components.agent,
        one_env_maker(components.EnvCls),
        dict(env_kwargs),
        components.TrajInfoCls,
    )


def one_env_maker(env_cls: Callable[..., Any]) -> Callable[..., Any]:
    """The run's env constructor for one env.

    A vector-env maker (``--vector``) makes a one-env vector env, seen as a per-env env; any
    other constructor is itself.
    """
    if not is_vector_env_maker(env_cls):
        return env_cls

    def make_one(**env_kwargs: Any) -> Any:
        return _OneEnv(env_cls(num_envs=1, **env_kwargs))

    make_one.__name__ = f"one_env_of_{getattr(env_cls, '__name__', 'maker')}"
    return make_one


class _OneEnv(SingleEnvView):
    """Row 0 of a one-env vector env, seeded as the vector env (``seed`` reaches its dynamics)."""

    def seed(self, seed: int | None = None) -> None:
        super().seed(seed)
        self.vec_env.seed(seed)


def _from_resolved_section(resolved: dict[str, Any]) -> tuple[Any, Callable, dict, Callable]:
    """Agent, EnvCls, env_kwargs and TrajInfoCls from the recorded classes and keywords."""
    missing = [key for key in ("agent", "sampler") if key not in resolved]
    if missing:
        raise PlayError(
            f"params.json's 'resolved' section lacks {missing}, so the agent and env cannot "
            "be rebuilt."
        )
    agent_cls = _import_recorded(resolved["agent"]["class"], "agent class")
    agent_kwargs = _rebuild_kwargs(resolved["agent"]["kwargs"], "agent")
    agent_kwargs.pop("initial_model_state_dict", None)  # the snapshot's weights are loaded
    sampler_kwargs = resolved["sampler"]["kwargs"]
    if "EnvCls" not in sampler_kwargs:
        raise PlayError("params.json's 'resolved' sampler has no EnvCls: the env is unknown.")
    EnvCls = _import_recorded(sampler_kwargs["EnvCls"], "sampler EnvCls")  # noqa: N806
    env_kwargs = sampler_kwargs.get("eval_env_kwargs") or sampler_kwargs.get("env_kwargs") or {}
    TrajInfoCls = _import_recorded(  # noqa: N806
        sampler_kwargs.get("TrajInfoCls", "rlpyt.envs.traj_info.TrajInfo"), "TrajInfoCls"
    )
    try:
        agent = agent_cls(**agent_kwargs)
    except (TypeError, ValueError) as error:
        raise PlayError(
            f"Cannot rebuild the agent {agent_cls.__name__} from params.json: {error}"
        ) from None
    return agent, EnvCls, _rebuild_kwargs(env_kwargs, "env"), TrajInfoCls


def _import_recorded(name: object, what: str) -> Any:
    """The class or function recorded as ``"module.qualname"``."""
    if not isinstance(name, str) or not _QUALNAME.match(name):
        raise PlayError(f"params.json records the {what} as {name!r}, not an importable name.")
    module_name, _, qualname = name.rpartition(".")
    while module_name:
        try:
            obj: Any = importlib.import_module(module_name)
            for part in name[len(module_name) + 1 :].split("."):
                obj = getattr(obj, part)
            return obj
        except (ImportError, AttributeError):
            module_name, _, _ = module_name.rpartition(".")  # a nested qualname: Outer.Inner
    raise PlayError(
        f"Cannot import the {what} {name!r} recorded in params.json: install the package that "
        "defines it (or put its folder on PYTHONPATH) and play again."
    )


def _rebuild_kwargs(kwargs: dict[str, Any], owner: str) -> dict[str, Any]:
    """Recorded keywords with class names imported again (``ModelCls``, ``nonlinearity``).

    A string is taken for a class name only where the keyword's name ends in ``Cls`` or the
    string is a dotted name that imports; a value recorded by ``repr()`` cannot be rebuilt.
    """
    rebuilt: dict[str, Any] = {}
    for key, value in kwargs.items():
        if isinstance(value, dict):
            rebuilt[key] = _rebuild_kwargs(value, f"{owner}.{key}")
        elif isinstance(value, str) and (key.endswith("Cls") or _QUALNAME.match(value)):
            rebuilt[key] = _maybe_import(value, f"{owner} keyword {key}", key.endswith("Cls"))
        elif isinstance(value, str) and value.startswith("<") and value.endswith(">"):
            raise PlayError(
                f"params.json records the {owner} keyword {key} as {value} (an object that JSON "
                "cannot hold), so it cannot be rebuilt; train through `rlpyt train`, or rebuild "
                "the agent in a script and load the snapshot's agent_state_dict."
            )
        else:
            rebuilt[key] = value
    return rebuilt


def _maybe_import(value: str, what: str, required: bool) -> Any:
    try:
        return _import_recorded(value, what)
    except PlayError:
        if required:
            raise
        return value  # a plain string that happens to contain dots


# -- playing ----------------------------------------------------------------------------------


def make_env(setup: PlaySetup, render_mode: str | None) -> Any:
    """Build the run's env; gymnasium envs get ``render_mode`` (``"rgb_array"``, ``"human"``).

    Raises:
        PlayError: ``render_mode="human"`` for an env that is not a gymnasium env.
    """
    env_kwargs = dict(setup.env_kwargs)
    if render_mode == "human" and not has_display():
        raise PlayError(
            "--render human needs a display, and this session has none (DISPLAY and "
            "WAYLAND_DISPLAY are unset). Record a video with --video out.mp4 instead, or run "
            "on a machine with a screen."
        )
    if setup.EnvCls is gym_make:
        if render_mode is not None:
            env_kwargs["render_mode"] = render_mode
    elif render_mode == "human":
        raise PlayError(
            f"--render human needs a gymnasium env; {setup.EnvCls.__name__} has no window. "
            "Record a video with --video out.mp4 instead."
        )
    return setup.EnvCls(**env_kwargs)


def has_display() -> bool:
    """Whether a window can open.

    Always off Linux/BSD; there, when an X or Wayland display is set, or an SDL video driver
    was chosen explicitly (``SDL_VIDEODRIVER``, e.g. ``dummy`` in tests).
    """
    if not sys.platform.startswith(("linux", "freebsd", "openbsd", "netbsd")):
        return True
    names = ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER")
    return any(os.environ.get(name) for name in names)


def make_deterministic(agent: Any) -> None:
    """Switch an initialized agent in eval mode to its most likely action.

    Gaussian policies act on their mean (std 0), epsilon-greedy agents greedily (epsilon 0),
    categorical policies take the most probable action.

    Raises:
        PlayError: the agent's distribution is none of these.
    """
    distribution = agent.distribution
    if isinstance(distribution, Gaussian):
        distribution.set_std(0.0)
    elif isinstance(distribution, EpsilonGreedy):
        distribution.set_epsilon(0.0)
    elif isinstance(distribution, Categorical):
        agent.distribution = _MostProbable(distribution)
    else:
        raise PlayError(
            f"--deterministic does not know how to make {type(agent).__name__}'s "
            f"{type(distribution).__name__} deterministic; play with --stochastic."
        )


class _MostProbable:
    """A categorical distribution whose ``sample`` is the most probable action."""

    def __init__(self, distribution: Categorical):
        self._distribution = distribution

    def sample(self, dist_info: NamedArrayTupleLike, noise: object = None) -> torch.Tensor:
        return dist_info.prob.argmax(dim=-1)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self._distribution, name)


def play_episodes(
    agent: Agent,
    env: Env,
    n_episodes: int,
    TrajInfoCls: Callable[..., TrajInfo],  # noqa: N803
    on_step: Callable[[], None] | None = None,
) -> list[TrajInfo]:
    """Run whole trajectories of ``env`` with ``agent`` (initialized, in eval mode).

    Args:
        agent: The agent; it steps on batches of one env (``[1, ...]`` inputs).
        env: The env (rlpyt Env interface).
        n_episodes: Trajectories to run.
        TrajInfoCls: Makes each trajectory's statistics.
        on_step: Called after the first reset and after every env step (frame capture).

    Returns:
        One completed TrajInfo per trajectory, in order.
    """
    completed = []
    for _ in range(n_episodes):
        agent.reset()
        observation = env.reset()
        prev_action = env.action_space.null_value()
        buffers = (
            buffer_from_example(observation, 1),
            buffer_from_example(prev_action, 1, fill=0),
            np.zeros(1, dtype="float32"),
        )
        obs_buf, act_buf, rew_buf = buffers
        obs_buf[0], act_buf[0] = observation, prev_action
        obs_pyt, act_pyt, rew_pyt = torchify_buffer(buffers)
        traj_info = TrajInfoCls()
        if on_step is not None:
            on_step()
        while True:
            agent_step = agent.step(obs_pyt, act_pyt, rew_pyt)
            act_buf[0] = agent_step.action.numpy()[0]
            o, r, d, env_info = env.step(act_buf[0])
            traj_info.step(obs_buf[0], act_buf[0], r, d, None, env_info)
            obs_buf[0], rew_buf[0] = o, r
            if on_step is not None:
                on_step()
            if trajectory_ended(env_info, d):
                break
            if d:  # e.g. an Atari life lost: the game goes on, the agent's carried state not
                agent.reset_one(idx=0)
        completed.append(traj_info.terminate(obs_buf[0]))
    return completed


class VideoRecorder:
    """Writes RGB frames ``[H, W, 3]`` uint8 to a video file as they come (moviepy/ffmpeg).

    Args:
        path: Output file; the extension picks the container (``.mp4``, ``.webm``, ``.gif``...).
        fps: Frames per second.
    """

    def __init__(self, path: str, fps: float):
        try:
            from moviepy.video.io.ffmpeg_writer import FFMPEG_VideoWriter  # noqa: PLC0415
        except ImportError as error:  # an extra: imported only when a video is asked for
            raise PlayError(
                f"Writing a video needs moviepy, which is not installed: "
                f'pip install "rlpyt[video]" ({error}).'
            ) from None
        self._writer_cls = FFMPEG_VideoWriter
        self.path = path
        self.fps = fps
        self.n_frames = 0
        self._writer: Any = None

    def add(self, frame: ArrayLike) -> None:
        """Append one frame (odd heights and widths are padded by one black row/column)."""
        frame = np.asarray(frame)
        if frame.ndim != 3 or frame.shape[2] != 3:
            raise PlayError(
                f"The env's render() gave {type(frame).__name__} of shape "
                f"{getattr(frame, 'shape', None)}, not an RGB frame [H, W, 3]; it cannot be "
                "recorded."
            )
        h, w = frame.shape[:2]
        frame = np.pad(frame.astype(np.uint8), ((0, h % 2), (0, w % 2), (0, 0)))  # yuv420p
        if self._writer is None:
            folder = os.path.dirname(os.path.abspath(self.path))
            os.makedirs(folder, exist_ok=True)
            size = (frame.shape[1], frame.shape[0])
            self._writer = self._writer_cls(self.path, size=size, fps=self.fps, logfile=None)
        self._writer.write_frame(frame)
        self.n_frames += 1

    def close(self) -> None:
        """Finish the file (idempotent)."""
        if self._writer is not None:
            self._writer.close()
            self._writer = None


OFFSCREEN_SDL = {"SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}
"""SDL drivers for rendering into arrays: no display, no sound device."""


def offscreen_rendering() -> None:
    """Point SDL (pygame's renderer: CartPole, Box2D...) at drivers that need no display.

    The frames of ``render_mode="rgb_array"`` are drawn on in-memory surfaces; with its
    default drivers SDL still probes the desktop session and, where there is none, prints
    ``error: XDG_RUNTIME_DIR is invalid or not set`` when the process exits. A driver the
    user chose (the variable already set) is kept.
    """
    for name, value in OFFSCREEN_SDL.items():
        os.environ.setdefault(name, value)


def render_frame(env: Any) -> Any:
    """``env.render()``; a missing rendering dependency or method is a :class:`PlayError`."""
    try:
        return env.render()
    except gymnasium.error.DependencyNotInstalled as error:
        raise PlayError(f"Rendering this env for the video needs a package: {error}") from None
    except (AttributeError, NotImplementedError):
        raise PlayError(
            f"{type(env).__name__} has no render() returning RGB frames, so it cannot be "
            "recorded; play without --video."
        ) from None


def env_fps(env: object) -> float:
    """The env's own frame rate: gymnasium's ``metadata["render_fps"]``, Atari's 60/frame_skip."""
    frame_skip = getattr(env, "frame_skip", None)
    if isinstance(frame_skip, int) and hasattr(env, "ale"):
        return 60.0 / frame_skip
    metadata = getattr(env, "metadata", None)
    if isinstance(metadata, dict) and metadata.get("render_fps"):
        return float(metadata["render_fps"])
    return float(DEFAULT_FPS)


def _summary(traj_infos: list[TrajInfo]) -> list[str]:
    lines = []
    for i, info in enumerate(traj_infos):
        score = f", game score {info['GameScore']:g}" if "GameScore" in info else ""
        lines.append(f"Episode {i + 1}: return {info['Return']:g}, length {info['Length']}{score}")
    returns = [info["Return"] for info in traj_infos]
    lines.append(f"Mean return over {len(returns)} episodes: {float(np.mean(returns)):g}")
    return lines


PLAY_HELP = """Play a trained run: load RUN_DIR's newest snapshot, run episodes, print returns.

RUN_DIR is a run folder (params.json and a snapshot params.pkl / itr_N.pkl): one made by
`rlpyt train` or `rlpyt tune`, or by a script inside logger_context. The agent and env are
rebuilt as the run made them, the agent acts in eval mode (as in the runner's evaluation), and
each episode is a whole trajectory (an Atari game plays on through lost lives).

\b
Examples:
  rlpyt play runs/ppo_CartPole-v1/run_0 --episodes 5
  rlpyt play runs/ppo_CartPole-v1/run_0 --episodes 2 --video ppo.mp4
  rlpyt play runs/dqn_pong/run_0 --video pong.mp4 --deterministic --seed 0
  rlpyt play runs/sac_Pendulum-v1/run_0 --render human
"""


@click.command(help=PLAY_HELP, short_help="Play a trained run: returns, video, window.")
@click.argument("run_dir", type=click.Path(file_okay=False))
@click.option(
    "--episodes",
    default=1,
    show_default=True,
    type=click.IntRange(min=1),
    help="Episodes (whole trajectories) to play.",
)
@click.option(
    "--video",
    type=click.Path(dir_okay=False),
    default=None,
    help="Record all episodes into this video file (e.g. out.mp4; the video extra).",
)
@click.option(
    "--render",
    type=click.Choice(["human"]),
    default=None,
    help="Show the episodes in a window (gymnasium envs).",
)
@click.option(
    "--seed",
    type=int,
    default=None,
    help="Seed of the env and of the agent's sampling (default: random).",
)
@click.option(
    "--deterministic/--stochastic",
    default=False,
    show_default=True,
    help="--deterministic: always the most likely action. --stochastic: act as the "
    "runner's evaluation does (the agent's eval mode).",
)
@verbose_option
def play(
    run_dir: str,
    episodes: int,
    video: str | None,
    render: str | None,
    seed: int | None,
    deterministic: bool,
) -> None:
    """See PLAY_HELP (click shows it)."""  # noqa: D401
    if video is not None and render is not None:
        raise click.UsageError("Use --video or --render human, not both (one render mode per env).")
    setup = load_play_setup(run_dir)
    if video is not None:
        offscreen_rendering()
    env = make_env(setup, "rgb_array" if video is not None else render)
    if seed is not None:
        set_seed(seed)
        env.seed(seed)
    agent = setup.agent
    agent.initialize(env.spaces, share_memory=False, global_B=1, env_ranks=[0])
    agent.load_state_dict(setup.agent_state_dict)
    agent.eval_mode(setup.itr + 1)  # iterations trained (eval mode at 0 means untrained)
    if deterministic:
        make_deterministic(agent)
    click.echo(f"Playing {setup.snapshot_path} (iteration {setup.itr}).")
    recorder = None if video is None else VideoRecorder(video, env_fps(env))
    try:
        on_step = None if recorder is None else (lambda: recorder.add(render_frame(env)))
        traj_infos = play_episodes(agent, env, episodes, setup.TrajInfoCls, on_step)
    finally:
        if recorder is not None:
            recorder.close()
        env.close()
    for line in _summary(traj_infos):
        click.echo(line)
    if recorder is not None:
        click.echo(f"Video: {video} ({recorder.n_frames} frames at {recorder.fps:g} fps).")
