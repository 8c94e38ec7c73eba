"""The GPU check's train cases stay runnable: scripts exist, config keys exist, variants apply.

``benchmarks/gpu_check.py`` runs only on a lent GPU machine, so a renamed script, config key or
config entry would only show there; these checks run its train cases' set-up on the CPU.
"""

import sys
from pathlib import Path

import pytest

from rlpyt.utils.launching.variant import update_config
from tests.integration.test_experiments import load_script

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def gpu_check():
    sys.path.insert(0, str(BENCHMARKS))
    try:
        import gpu_check as module
    finally:
        sys.path.remove(str(BENCHMARKS))
    return module


CASES = gpu_check().TRAIN_CASES


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_train_case_variant_applies_to_its_scripts_config(case):
    script = gpu_check().SCRIPTS / case.script
    assert script.is_file()
    configs = load_script(case.script).configs
    assert case.key in configs
    config = update_config(configs[case.key], case.variant)  # raises on a key the config lacks
    for section, values in case.variant.items():
        for key, value in values.items():
            assert config[section][key] == value


def test_every_family_is_trained_by_the_gpu_check():
    names = " ".join(case.name for case in CASES)
    for family in ("A2C", "PPO", "PPO LSTM", "DQN", "CategoricalDQN", "R2D1", "DDPG", "TD3"):
        assert family in names
    assert "SAC Pendulum" in names and "SAC_V" in names
    assert {case.kind for case in CASES} == {"gpu", "async", "sync"}


def test_summary_table_and_training_verdicts():
    module = gpu_check()
    rows = [{"Diagnostics/CumUpdates": "25", "lossAverage": "0.5"}]
    assert module.judge_training(rows, "loss") == (True, "25 updates, last loss 0.5")
    assert not module.judge_training([{**rows[0], "lossAverage": "inf"}], "loss")[0]
    assert not module.judge_training([{**rows[0], "Diagnostics/CumUpdates": "19"}], "loss")[0]
    assert not module.judge_training([], "loss")[0]
    table = module.summary_table([module.Check("train", "x", False, "boom", 3.0)])
    assert "FAIL" in table and "0 of 1 checks passed" in table
