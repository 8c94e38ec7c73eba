"""viskit reads a logger-made sweep as it is.

Two checks on the same two-variant sweep written by logger_context:

1. the data contract viskit relies on (reference: users.md section 3.2), re-checked here:
   every run folder found, one header, every cell a float, dotted params, ``exp_name``, seed
   keys out of the distinct keys, no ``-inf``;
2. the real reader: PyPI ``viskit==0.0.3`` installed into ``<repo>/.venv-viskit`` (git-ignored,
   reused when present; pip < 26.3 because newer pip refuses its direct-URL dependency, and
   ``--no-deps`` for the same reason), whose ``viskit.core.load_exps_data`` is run in a
   subprocess. Skipped only if that installation fails.
"""

import csv
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rlpyt.utils.logging import logger
from rlpyt.utils.logging.context import logger_context

REPO_ROOT = Path(__file__).resolve().parents[2]
VISKIT_VENV = REPO_ROOT / ".venv-viskit"
LEARNING_RATES = (0.001, 0.0003)
N_ITR = 5
LATE_ITR = 2  # trajectory statistics first appear at this iteration (header rewrite)
COLUMNS = [
    "Diagnostics/Iteration",
    "Diagnostics/CumSteps",
    "Diagnostics/CumTime (s)",
    "lossAverage",
    "ReturnAverage",
    "ReturnStd",
]


def write_sweep(root: Path) -> dict[str, dict]:
    """Two learning rates x two runs, laid out like run_experiments; returns exp_name -> config."""
    root.mkdir(parents=True)
    (root / "experiments_tree.txt").write_text("2 settings, 2 runs each\n")
    written = {}
    for lr in LEARNING_RATES:
        for run_ID in (0, 1):
            config = {
                "seed": 100 + run_ID,
                "algo": {"learning_rate": lr, "discount": 0.99, "clip_min": float("-inf")},
                "sampler": {"batch_T": 5, "batch_B": 16},
                "env": {"id": "CartPole-v1"},
                "ModelCls": dict,
            }
            with logger_context(str(root / f"lr_{lr}"), run_ID, "sweep", config) as exp_dir:
                log_fake_training(lr, run_ID)
            with open(os.path.join(exp_dir, "params.json")) as f:
                written[json.load(f)["exp_name"]] = config
    return written


def log_fake_training(lr: float, run_ID: int) -> None:
    for itr in range(N_ITR):
        logger.record_tabular("Diagnostics/Iteration", itr)
        logger.record_tabular("Diagnostics/CumSteps", 80 * (itr + 1))
        logger.record_tabular("Diagnostics/CumTime (s)", 0.5 * itr)
        logger.record_tabular_misc_stat("loss", [lr * itr, lr * (itr + 1)] if itr else [])
        if itr >= LATE_ITR:
            logger.record_tabular_misc_stat("Return", [itr * 1000 * lr + run_ID])
        logger.dump_tabular(with_prefix=False)


@pytest.fixture
def sweep(tmp_path, capsys):
    logger.reset()
    root = tmp_path / "sweep"
    written = write_sweep(root)
    capsys.readouterr()
    yield root, written
    logger.reset()


def flatten(params: dict, prefix: str = "") -> dict:
    flat = {}
    for key, value in params.items():
        if isinstance(value, dict):
            flat.update(flatten(value, f"{prefix}{key}."))
        else:
            flat[f"{prefix}{key}"] = value
    return flat


def viskit_distinct_keys(flat_params: list[dict]) -> set[str]:
    """viskit's menu rule: >1 distinct repr, top-level prefixes seed/log_dir excluded."""
    keys = {key for params in flat_params for key in params}
    return {
        key
        for key in keys
        if len({repr(params.get(key)) for params in flat_params}) > 1
        and not key.startswith(("seed", "log_dir"))
    }


def survives_viskit_eval(value) -> bool:
    if isinstance(value, float) and (math.isnan(value) or value == math.inf):
        return True  # viskit special-cases these; -inf is what crashes it
    if isinstance(value, float) and value == -math.inf:
        return False
    return eval(repr(value)) == value  # viskit round-trips values through repr/eval


def test_sweep_meets_viskit_data_contract(sweep):
    root, written = sweep
    run_dirs = [folder for folder, _, files in os.walk(root) if "progress.csv" in files]
    assert len(run_dirs) == 4
    flat_params = []
    for run_dir in run_dirs:
        files = os.listdir(run_dir)
        assert "variant.json" in files and "params.json" in files  # else viskit skips the run
        with open(os.path.join(run_dir, "progress.csv"), newline="") as f:
            rows = list(csv.DictReader(f))
        assert len(rows) == N_ITR
        assert list(rows[0]) == COLUMNS[:4] + [
            "lossStd",
            "lossMedian",
            "lossMin",
            "lossMax",
            "ReturnAverage",
            "ReturnStd",
            "ReturnMedian",
            "ReturnMin",
            "ReturnMax",
        ]
        for row in rows:
            assert None not in row, "a row has more cells than the header"
            assert all(cell not in ("", None) for cell in row.values()), "blank cell -> 0.0"
            assert all(isinstance(float(cell), float) for cell in row.values())
        assert math.isnan(float(rows[0]["ReturnAverage"]))
        with open(os.path.join(run_dir, "variant.json")) as f:
            params = flatten(json.load(f))
        assert params["exp_name"] in written and params["algo.learning_rate"] in LEARNING_RATES
        assert params["algo.clip_min"] == "-inf"
        assert all(survives_viskit_eval(value) for value in params.values())
        flat_params.append(params)
    assert len({params["exp_name"] for params in flat_params}) == 4
    distinct = viskit_distinct_keys(flat_params)
    assert "algo.learning_rate" in distinct
    assert not any(key.startswith("seed") for key in distinct)
    assert "sampler.batch_B" not in distinct  # same in every run


# -- the real reader --------------------------------------------------------------------------

VISKIT_READER = """
import json, sys
from viskit import core
exps = core.load_exps_data([sys.argv[1]])
found = [
    {"progress": {k: v.tolist() for k, v in e.progress.items()}, "flat_params": e.flat_params}
    for e in exps
]
with open(sys.argv[2], "w") as f:
    json.dump(found, f)
"""


def viskit_python() -> Path:
    python = VISKIT_VENV / "bin" / "python"
    ready = VISKIT_VENV / ".rlpyt-ready"
    if ready.exists() and python.exists():
        return python
    steps = [
        [sys.executable, "-m", "venv", "--clear", str(VISKIT_VENV)],
        [str(python), "-m", "pip", "install", "-q", "pip<26.3"],
        [str(python), "-m", "pip", "install", "-q", "numpy"],
        [str(python), "-m", "pip", "install", "-q", "--no-deps", "viskit==0.0.3"],
    ]
    for step in steps:
        try:
            result = subprocess.run(step, capture_output=True, text=True, timeout=600, check=False)
        except (OSError, subprocess.TimeoutExpired) as error:
            pytest.skip(f"could not install viskit 0.0.3 ({' '.join(step)}): {error}")
        if result.returncode != 0:
            pytest.skip(
                f"could not install viskit 0.0.3 into {VISKIT_VENV} ({' '.join(step)} "
                f"exited {result.returncode}): {result.stderr[-1500:]}"
            )
    ready.write_text("pip<26.3, numpy, viskit==0.0.3 --no-deps\n")
    return python


def test_viskit_0_0_3_loads_the_sweep(sweep, tmp_path):
    root, written = sweep
    python = viskit_python()
    out = tmp_path / "viskit.json"
    result = subprocess.run(
        [str(python), "-I", "-c", VISKIT_READER, str(root), str(out)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    found = json.loads(out.read_text())
    assert len(found) == 4
    assert {exp["flat_params"]["exp_name"] for exp in found} == set(written)
    for exp in found:
        params, progress = exp["flat_params"], exp["progress"]
        config = written[params["exp_name"]]
        assert params["algo.learning_rate"] == config["algo"]["learning_rate"]
        assert params["sampler.batch_B"] == 16 and params["env.id"] == "CartPole-v1"
        assert params["seed"] == config["seed"] and params["name"] == "sweep"
        assert set(COLUMNS) <= set(progress)
        assert all(len(column) == N_ITR for column in progress.values())
        assert progress["Diagnostics/CumSteps"] == [80.0 * (i + 1) for i in range(N_ITR)]
        late = progress["ReturnAverage"]
        assert all(math.isnan(v) for v in late[:LATE_ITR]), "padding must read as nan, not 0.0"
        lr, run_ID = params["algo.learning_rate"], params["run_ID"]
        assert late[LATE_ITR:] == pytest.approx([i * 1000 * lr + run_ID for i in range(2, N_ITR)])
        assert math.isnan(progress["lossAverage"][0]) and progress["lossAverage"][1] > 0
