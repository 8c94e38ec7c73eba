"""The project's GPU check: tests, every family trained on CUDA, GPU speed benchmarks, one table.

Box: benchmarks (never part of the test suite; CI has no GPU). Runs on a bare GPU machine with
only torch, numpy, click, tqdm, pyyaml, psutil and pytest (+ pytest-xdist) installed and no
network: gymnasium, farama-notifications, ale-py, mujoco and stable-baselines3 come as wheels in
``--wheels`` (default ``.whl``; ``make gpu-wheels`` downloads them on a machine with a network),
installed into a temporary folder that is put on ``PYTHONPATH``; rlpyt runs from this checkout.
docs/gpu.md says how to carry it over. Stages (``--stages``, in this order):

- ``env``: versions, the GPU, the wheels.
- ``tests``: every test marked ``gpu``, then the unit suite with CUDA present (``-n`` workers).
- ``train``: every family trained from its train script through rlpyt's command-line contract
  (``<slot_affinity_code> <log_dir> <run_ID> <config_key>``) with an affinity code that holds
  a GPU: A2C and PPO (ff, LSTM) on CartPole and Pong, DQN on CartPole and Pong (GpuSampler),
  CategoricalDQN and R2D1 on Pong, DDPG, TD3 and SAC on Pendulum, SAC_V on HalfCheetah, DQN
  under AsyncRl with a CUDA optimizer and a GPU sampler, PPO under SyncRl with two ranks on
  GPU 0 (started by the script's ``--ranks 2 --cuda_idx 0``; ranks sharing a GPU reduce with
  gloo, ranks on GPUs of their own with NCCL, which needs a machine with several GPUs).
  Each gets a variant small enough for seconds of training and at least 20 gradient updates;
  it passes when the script exits 0, its progress.csv logs at least 20 updates, and every
  logged loss is finite. Up to ``--parallel`` scripts run at once.
- ``bench``: ``dqn_speed.py --parts a b``, ``r2d1_speed.py``, ``qpg_speed.py --parts a`` and
  ``a2c_speed.py`` with ``--device cuda`` and short windows; their ratio lines are collected.

The summary table (stage, check, result, figure) is printed at the end and written, with every
log, to ``--out`` (default a temporary folder); ``summary.txt`` there is rewritten after every
check, so a run stopped from outside still leaves what it found. Exit status 0 only if every
check passed. On a machine with at least 8 cores the tests and train stages run side by side
(neither is timed); the bench stage always runs alone, since it measures speed.
``--deadline SECONDS`` bounds the whole check: no command outlives it, and a command that
could not start in time is a failed check that says so (a lease on a GPU machine is short).
``--dry-run`` runs the same stages on the CPU with tiny budgets (to check the script itself on
a machine without a GPU; the tests stage then runs only the ``gpu``-marked selection).

Usage::

    python3 benchmarks/gpu_check.py [--wheels .whl] [--stages env tests train bench]
        [--out DIR] [--parallel 4] [--only NAME ...] [--deadline S] [--bench-seconds 3]
        [--dry-run]
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SCRIPTS = REPO / "experiments" / "scripts"
MIN_UPDATES = 20
STAGES = ("env", "tests", "train", "bench")


@dataclass
class Check:
    """One row of the summary table."""

    stage: str
    name: str
    passed: bool
    figure: str = ""
    seconds: float = 0.0


@dataclass
class Context:
    """Where the check runs: the environment for subprocesses, the output folder, options."""

    env: dict[str, str]
    out: Path
    dry_run: bool
    parallel: int
    only: list[str] = field(default_factory=list)
    checks: list[Check] = field(default_factory=list)
    deadline: float = math.inf  # time.perf_counter() after which no command runs
    bench_seconds: float = 3.0
    started: float = field(default_factory=time.perf_counter)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, check: Check) -> None:
        """Record ``check`` and rewrite ``summary.txt`` (stages may run in threads)."""
        with self.lock:
            self.checks.append(check)
            table = summary_table(self.checks)
            elapsed = time.perf_counter() - self.started
            (self.out / "summary.txt").write_text(f"{table}\n{elapsed:.0f} s so far\n")

    def run(self, name: str, command: list[str], timeout: float, cwd: Path = REPO) -> tuple:
        """Run ``command``; its output goes to ``out/<name>.log``. Returns (rc, output, s).

        The timeout is cut to what is left before the deadline; a command with under 10 s left
        does not start (rc -2).
        """
        start = time.perf_counter()
        left = self.deadline - start
        if left < 10:
            return -2, "not run: the check's --deadline had passed", 0.0
        timeout = min(timeout, left)
        try:
            result = subprocess.run(
                command,
                cwd=cwd,
                env=self.env,
                capture_output=True,
                text=True,
                timeout=timeout,
                check=False,
            )
            rc, output = result.returncode, result.stdout + result.stderr
        except subprocess.TimeoutExpired as error:
            rc = -1
            parts = [
                x.decode() if isinstance(x, bytes) else x for x in (error.stdout, error.stderr)
            ]
            output = "".join(p or "" for p in parts) + f"\nTIMEOUT after {timeout} s"
        log = self.out / f"{re.sub(r'[^A-Za-z0-9_.-]', '_', name)}.log"
        log.write_text(" ".join(command) + "\n\n" + output)
        return rc, output, time.perf_counter() - start


# -- set-up -------------------------------------------------------------------------------------


def install_wheels(wheels: Path, site: Path) -> None:
    """Install every wheel in ``wheels`` into ``site`` (no index, no dependencies)."""
    files = sorted(str(p) for p in wheels.glob("*.whl"))
    if not files:
        return
    command = [sys.executable, "-m", "pip", "install", "-q", "--no-index", "--no-deps"]
    command += ["--no-compile", "--upgrade", "--target", str(site), *files]
    subprocess.run(command, check=True)


def make_context(args: argparse.Namespace) -> Context:
    out = Path(args.out or tempfile.mkdtemp(prefix="rlpyt-gpu-check-"))
    out.mkdir(parents=True, exist_ok=True)
    # The check renders nothing. MUJOCO_GL=egl made `import mujoco` fail on a GPU machine
    # without libEGL (PyOpenGL raises AttributeError, not ImportError); "disable" skips it.
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    env.setdefault("MUJOCO_GL", "disable")
    paths = [str(REPO)]
    wheels = Path(args.wheels)
    # The dry run uses this machine's environment (the wheels are built for the GPU machine).
    if not args.dry_run and wheels.is_dir() and any(wheels.glob("*.whl")):
        site = Path(tempfile.mkdtemp(prefix="rlpyt-site-"))
        install_wheels(wheels, site)
        paths.insert(0, str(site))
        sys.path[:0] = [str(site)]
    env["PYTHONPATH"] = os.pathsep.join(paths + [env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    sys.path.insert(0, str(REPO))
    return Context(
        env=env,
        out=out,
        dry_run=args.dry_run,
        parallel=args.parallel,
        only=args.only or [],
        deadline=time.perf_counter() + (args.deadline or math.inf),
        bench_seconds=args.bench_seconds,
    )


# -- stage env ----------------------------------------------------------------------------------


def stage_env(ctx: Context) -> None:
    code = (
        "import importlib, torch, numpy; print('torch', torch.__version__, 'numpy', "
        "numpy.__version__); print('cuda', torch.cuda.is_available(), torch.version.cuda, "
        "torch.cuda.get_device_name(0) if torch.cuda.is_available() else '-');\n"
        "for m in ('gymnasium', 'ale_py', 'mujoco', 'stable_baselines3'):\n"
        "    try: print(m, importlib.import_module(m).__version__)\n"
        "    except Exception as e: print(m, 'MISSING', type(e).__name__)\n"
    )
    rc, output, seconds = ctx.run("env", [sys.executable, "-c", code], timeout=120)
    print(output, end="")
    cuda_ok = "cuda True" in output or ctx.dry_run
    gym_ok = "gymnasium MISSING" not in output and "ale_py MISSING" not in output
    gpu = re.search(r"cuda True \S+ (.+)", output)
    figure = gpu.group(1) if gpu else "no CUDA (dry run)" if ctx.dry_run else "no CUDA"
    ctx.add(
        Check("env", "CUDA, gymnasium, ale-py", rc == 0 and cuda_ok and gym_ok, figure, seconds)
    )


# -- stage tests --------------------------------------------------------------------------------


def pytest_summary(output: str) -> str:
    pattern = r"\d+ (passed|failed|skipped|deselected)"
    lines = [line for line in output.splitlines() if re.search(pattern, line)]
    return lines[-1].strip("= ") if lines else "no summary"


def side_by_side(ctx: Context) -> bool:
    """Whether the tests and train stages share the machine (at least 8 cores, no dry run)."""
    return not ctx.dry_run and (os.cpu_count() or 1) >= 8


def stage_tests(ctx: Context, shared: bool = False) -> None:
    base = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts="]
    base += ["--import-mode=importlib", "-rfE"]
    runs = [("tests: marked gpu", [*base, "-m", "gpu", "tests"], 600)]
    if not ctx.dry_run:
        cores = os.cpu_count() or 2
        workers = str(max(1, min(12, cores // 2 if shared else cores - 2)))
        runs.append(("tests: unit suite", [*base, "-n", workers, "tests/unit"], 900))
    for name, command, timeout in runs:
        rc, output, seconds = ctx.run(name, command, timeout)
        summary = pytest_summary(output)
        print(f"{name}: {summary} ({seconds:.0f} s)")
        ctx.add(Check("tests", name, rc == 0, summary, seconds))


# -- stage train --------------------------------------------------------------------------------


@dataclass
class TrainCase:
    """A train script run through the command line with a small variant."""

    name: str
    script: str
    key: str
    variant: dict
    loss: str  # the OptInfo column whose Average must be finite
    kind: str = "gpu"  # affinity: "gpu", "async", "sync"
    needs: str = ""  # a module the case needs (skipped, and said, without it)


SMALL_EVAL = {"eval_n_envs": 1, "eval_max_steps": 200, "eval_max_trajectories": 1}
ATARI_SAMPLER = {"batch_T": 4, "batch_B": 4, "max_decorrelation_steps": 0}
ATARI_DQN = {
    "runner": {"n_steps": 192, "log_interval_steps": 64},
    "algo": {"min_steps_learn": 32, "replay_size": 512, "batch_size": 16},
    "sampler": {**ATARI_SAMPLER, **SMALL_EVAL},
}
QPG = {  # 8 updates per env step (the Pendulum configs' replay ratio): 64 updates
    "runner": {"n_steps": 72, "log_interval_steps": 36},
    "algo": {"min_steps_learn": 64, "replay_size": 1000, "batch_size": 32},
    "sampler": SMALL_EVAL,
}
TRAIN_CASES = [
    TrainCase(
        "A2C CartPole",
        "classic/pg/train/cartpole_a2c.py",
        "0",
        {
            "runner": {"n_steps": 1600, "log_interval_steps": 800},
            "sampler": {"batch_T": 16, "batch_B": 4},
        },
        "loss",
    ),
    TrainCase(
        "PPO CartPole",
        "classic/pg/train/cartpole_ppo.py",
        "0",
        {"runner": {"n_steps": 512, "log_interval_steps": 256}},
        "loss",
    ),
    TrainCase(
        "A2C Pong",
        "atari/pg/train/atari_ff_a2c.py",
        "0",
        {
            "runner": {"n_steps": 500},
            "sampler": {"batch_T": 5, "batch_B": 4, "max_decorrelation_steps": 0},
        },
        "loss",
    ),
    TrainCase(
        "PPO LSTM Pong",
        "atari/pg/train/atari_lstm_ppo.py",
        "0",
        {
            "runner": {"n_steps": 256},
            "sampler": {"batch_T": 16, "batch_B": 8, "max_decorrelation_steps": 0},
        },
        "loss",
    ),
    TrainCase(
        "DQN CartPole",
        "classic/dqn/train/cartpole_dqn.py",
        "dqn",
        {
            "runner": {"n_steps": 768, "log_interval_steps": 256},
            "algo": {"min_steps_learn": 256},
            "sampler": SMALL_EVAL,
        },
        "loss",
    ),
    TrainCase(
        "DQN Pong (GpuSampler)", "atari/dqn/train/atari_dqn_gpu.py", "dqn", ATARI_DQN, "loss"
    ),
    TrainCase(
        "DQN Pong, prioritized double dueling",
        "atari/dqn/train/atari_dqn_gpu.py",
        "double_pri_duel",
        ATARI_DQN,
        "loss",
    ),
    TrainCase(
        "CategoricalDQN Pong", "atari/dqn/train/atari_catdqn_gpu.py", "catdqn", ATARI_DQN, "loss"
    ),
    TrainCase(
        "R2D1 Pong",
        "atari/dqn/train/atari_r2d1_gpu.py",
        "r2d1",
        {
            "runner": {"n_steps": 480, "log_interval_steps": 160},
            "algo": {
                "min_steps_learn": 64,
                "batch_B": 4,
                "batch_T": 8,
                "warmup_T": 4,
                "store_rnn_state_interval": 4,
                "replay_ratio": 4,
            },
            "sampler": {"batch_T": 8, "batch_B": 4, "max_decorrelation_steps": 0, **SMALL_EVAL},
        },
        "loss",
    ),
    TrainCase("DDPG Pendulum", "classic/qpg/train/pendulum_ddpg.py", "ddpg", QPG, "qLoss"),
    TrainCase("TD3 Pendulum", "classic/qpg/train/pendulum_td3.py", "td3", QPG, "qLoss"),
    TrainCase("SAC Pendulum", "classic/qpg/train/pendulum_sac.py", "sac", QPG, "q1Loss"),
    TrainCase(
        "SAC_V HalfCheetah",
        "mujoco/qpg/train/mujoco_sac_v_serial.py",
        "sac_1M_serial",
        QPG,
        "vLoss",
        needs="mujoco",
    ),
    TrainCase(
        "DQN Pong, AsyncRl (CUDA optimizer, GPU sampler)",
        "atari/dqn/train/atari_dqn_async_gpu.py",
        "async_gpu",
        {
            "runner": {"n_steps": 2000, "log_interval_steps": 500},
            "algo": {"min_steps_learn": 64, "replay_size": 1024, "batch_size": 16},
            "sampler": {**ATARI_SAMPLER, **SMALL_EVAL},
        },
        "loss",
        kind="async",
    ),
    TrainCase(
        "PPO CartPole, SyncRl (2 ranks sharing GPU 0, gloo)",
        "classic/pg/train/cartpole_ppo_sync.py",
        "0",
        {"runner": {"n_steps": 1024, "log_interval_steps": 512}},
        "loss",
        kind="sync",
    ),
]


def affinity_code(kind: str, dry_run: bool) -> str:
    from rlpyt.utils.launching.affinity import encode_affinity, prepend_run_slot

    n_gpu = 0 if dry_run else 1
    cores = 2 if dry_run else 4
    if kind == "async":
        code = encode_affinity(
            n_cpu_core=cores,
            n_gpu=n_gpu,
            async_sample=True,
            sample_gpu_per_run=n_gpu,
            optim_sample_share_gpu=True,
            set_affinity=False,
        )
    else:
        code = encode_affinity(n_cpu_core=cores, n_gpu=n_gpu, cpu_per_run=cores, set_affinity=False)
    return prepend_run_slot(0, code)


def read_progress(run_dir: Path) -> list[dict[str, str]]:
    path = run_dir / "progress.csv"
    if not path.is_file():
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def judge_training(rows: list[dict[str, str]], loss: str) -> tuple[bool, str]:
    """At least ``MIN_UPDATES`` updates logged and every logged loss finite."""
    if not rows:
        return False, "no progress.csv rows"
    updates = max(float(row.get("Diagnostics/CumUpdates") or "nan") for row in rows)
    losses = [float(row[f"{loss}Average"]) for row in rows if row.get(f"{loss}Average")]
    logged = [x for x in losses if not math.isnan(x)]
    finite = bool(logged) and all(math.isfinite(x) for x in logged)
    ok = updates >= MIN_UPDATES and finite
    last = f"{logged[-1]:.4g}" if logged else "none"
    return ok, f"{updates:.0f} updates, last {loss} {last}"


def train_one(ctx: Context, case: TrainCase) -> Check:
    if case.needs:
        probe = [sys.executable, "-c", f"import {case.needs}"]
        if ctx.run(f"probe {case.needs}", probe, timeout=60)[0] != 0:
            return Check("train", case.name, False, f"{case.needs} missing: carry its wheel")
    log_dir = ctx.out / "runs" / re.sub(r"[^A-Za-z0-9]+", "_", case.name).strip("_")
    shutil.rmtree(log_dir, ignore_errors=True)
    log_dir.mkdir(parents=True)
    from rlpyt.utils.launching.variant import VARIANT

    (log_dir / VARIANT).write_text(json.dumps(case.variant))
    command = [sys.executable, str(SCRIPTS / case.script)]
    if case.kind == "sync":  # the script starts its ranks itself, one GPU for both
        runner = case.variant["runner"]
        command += ["--log_dir", str(log_dir), "--run_ID", "0", "--config_key", case.key]
        command += ["--n_steps", str(runner["n_steps"]), "--ranks", "2"]
        command += ["--log_interval_steps", str(runner["log_interval_steps"])]
        command += [] if ctx.dry_run else ["--cuda_idx", "0"]
    else:
        command += [affinity_code(case.kind, ctx.dry_run), str(log_dir), "0", case.key]
    # On the H100 every case took 14-23 s (2026-11-26); a hung one must not take the lease.
    # The dry run trains Atari CNNs on a CPU.
    timeout = 1200 if ctx.dry_run else 120
    rc, output, seconds = ctx.run(f"train {case.name}", command, timeout, cwd=log_dir)
    ok, figure = judge_training(read_progress(log_dir / "run_0"), case.loss)
    if rc == -2:
        ok, figure = False, output
    elif rc != 0:
        tail = output.strip().splitlines()[-1:] or ["?"]
        ok, figure = False, f"rc {rc}: {tail[0][:90]}"
    print(f"train {case.name}: {'ok' if ok else 'FAILED'} {figure} ({seconds:.0f} s)", flush=True)
    return Check("train", case.name, ok, figure, seconds)


def stage_train(ctx: Context) -> None:
    workers = 1 if ctx.dry_run else ctx.parallel
    cases = [c for c in TRAIN_CASES if not ctx.only or any(o in c.name for o in ctx.only)]
    with ThreadPoolExecutor(max_workers=workers) as pool:
        list(pool.map(lambda case: ctx.add(train_one(ctx, case)), cases))


# -- stage bench --------------------------------------------------------------------------------


def bench_commands(dry_run: bool, seconds: float = 3.0) -> list[tuple[str, list[str]]]:
    device = "cpu" if dry_run else "cuda"
    window = ["--seconds", "1", "--repeats", "1"] if dry_run else ["--seconds", f"{seconds:g}"]
    window += [] if dry_run else ["--repeats", "3"]
    short = [*window, "--warmup", "0.3" if dry_run else "1"]  # r2d1_speed has no warm-up window
    fill = (
        ["--fill", "600", "--learning-starts", "500", "--replay-size", "2000"]
        if dry_run
        else ["--fill", "5000"]
    )
    dqn_parts = ["a"] if dry_run else ["a", "b"]
    return [
        ("dqn_speed", ["dqn_speed.py", "--parts", *dqn_parts, "--device", device, *short, *fill]),
        (
            "r2d1_speed",
            [
                "r2d1_speed.py",
                "--device",
                device,
                *window,
                *(["--fill", "640", "--batch-B", "4"] if dry_run else []),
            ],
        ),
        (
            "qpg_speed",
            [
                "qpg_speed.py",
                "--parts",
                "a",
                "--device",
                device,
                *short,
                "--learning-starts",
                "300" if dry_run else "1000",
            ],
        ),
        (
            "a2c_speed",
            [
                "a2c_speed.py",
                "--device",
                device,
                *short,
                *(["--workers", "2", "--envs-per-worker", "2"] if dry_run else []),
            ],
        ),
    ]


def ratio_lines(output: str) -> list[str]:
    return [line.strip() for line in output.splitlines() if re.search(r" / .*\s[\d.]+$", line)]


def stage_bench(ctx: Context) -> None:
    # The speed ratios first (R2D1, DQN, A2C), in case the deadline cuts the stage.
    order = ("r2d1_speed", "dqn_speed", "a2c_speed", "qpg_speed")
    commands = sorted(
        bench_commands(ctx.dry_run, ctx.bench_seconds), key=lambda c: order.index(c[0])
    )
    for name, command in commands:
        if name == "qpg_speed" and ctx.dry_run:
            probe = [sys.executable, "-c", "import stable_baselines3"]
            if ctx.run("probe sb3", probe, timeout=60)[0] != 0:
                ctx.add(Check("bench", name, True, "skipped: no stable-baselines3"))
                continue
        full = [sys.executable, str(REPO / "benchmarks" / command[0]), *command[1:]]
        rc, output, seconds = ctx.run(f"bench {name}", full, timeout=600, cwd=REPO / "benchmarks")
        lines = ratio_lines(output) if rc == 0 else [f"rc {rc}: see {name}.log"]
        if rc == -2:
            lines = [output]
        for line in lines or ["no ratio printed"]:
            ctx.add(Check("bench", name, rc == 0, re.sub(r"\s{2,}", " ", line), seconds))
        print(f"bench {name}: rc {rc} ({seconds:.0f} s)", flush=True)


# -- summary ------------------------------------------------------------------------------------


def summary_table(checks: list[Check]) -> str:
    rows = [("stage", "check", "result", "figure", "s")]
    rows += [
        (c.stage, c.name, "PASS" if c.passed else "FAIL", c.figure, f"{c.seconds:.0f}")
        for c in checks
    ]
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    lines = [" | ".join(r[i].ljust(widths[i]) for i in range(4)) + f" | {r[4]}" for r in rows]
    lines.insert(1, "-" * len(lines[0]))
    passed = sum(c.passed for c in checks)
    lines.append(f"\n{passed} of {len(checks)} checks passed")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--wheels", default=str(REPO / ".whl"), help="folder of wheels to add")
    parser.add_argument("--stages", nargs="+", default=list(STAGES), choices=STAGES)
    parser.add_argument("--out", default=None, help="folder for logs and the summary")
    parser.add_argument("--parallel", type=int, default=4, help="train scripts at once")
    parser.add_argument("--dry-run", action="store_true", help="CPU, tiny budgets")
    parser.add_argument(
        "--only", nargs="+", help="train: only the cases whose name contains one of these"
    )
    parser.add_argument(
        "--deadline", type=float, default=None, help="seconds the whole check may take"
    )
    parser.add_argument(
        "--bench-seconds", type=float, default=3.0, help="bench: timed window per repeat"
    )
    args = parser.parse_args()
    ctx = make_context(args)
    stages = dict(env=stage_env, tests=stage_tests, train=stage_train, bench=stage_bench)
    names = [name for name in STAGES if name in args.stages]
    together = side_by_side(ctx) and "tests" in names and "train" in names
    for name in names:
        if together and name == "tests":
            print("\n=== tests and train, side by side ===", flush=True)
            tests = threading.Thread(target=stage_tests, args=(ctx, True))
            tests.start()
            stage_train(ctx)
            tests.join()
            continue
        if together and name == "train":
            continue
        print(f"\n=== {name} ===", flush=True)
        stages[name](ctx)
    table = summary_table(ctx.checks)
    table += f"\n{time.perf_counter() - ctx.started:.0f} s in all; logs in {ctx.out}"
    (ctx.out / "summary.txt").write_text(table + "\n")
    print("\n=== summary ===\n" + table)
    return 0 if all(c.passed for c in ctx.checks) else 1


if __name__ == "__main__":
    sys.exit(main())
