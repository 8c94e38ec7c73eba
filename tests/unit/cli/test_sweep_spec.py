"""rlpyt sweep's inputs: a YAML file merged with command-line options, and checked keys."""

import click
import pytest

from rlpyt.cli.sweep import _sweep_spec, load_sweep_file

SWEEP_YAML = """
algo: ppo
env: CartPole-v1
steps: 20000
seeds: 3
set: {algo.epochs: 4, algo.discount: 0.95}
grid:
  algo.learning_rate: [3.0e-4, 1.0e-3]
"""


def options(**given):
    names = ("env", "sampler", "n_workers", "steps", "seed", "config", "config_file")
    names += ("eval_episodes", "log_interval_steps", "seeds", "target_reward")
    return {**dict.fromkeys(names), "overrides": {}, **given}


def test_command_line_options_override_the_sweep_file(tmp_path):
    path = tmp_path / "sweep.yaml"
    path.write_text(SWEEP_YAML)
    given = options(steps=500, seeds=2, overrides={"algo.epochs": 1})
    spec, grid, seeds = _sweep_spec(None, ("sampler.batch_B=2,4",), str(path), given)
    assert (spec.algo, spec.env, spec.steps, seeds) == ("ppo", "CartPole-v1", 500, 2)
    assert spec.overrides == {"algo.epochs": 1, "algo.discount": 0.95}
    assert grid == {"algo.learning_rate": [3e-4, 1e-3], "sampler.batch_B": [2, 4]}
    spec, _, seeds = _sweep_spec("a2c", (), str(path), options())
    assert (spec.algo, spec.steps, seeds) == ("a2c", 20000, 3)


def test_sweep_file_with_an_unknown_key_or_no_algorithm_fails(tmp_path):
    path = tmp_path / "sweep.yaml"
    path.write_text("algo: ppo\nlearning_rate: 1\n")
    with pytest.raises(ValueError, match=r"unknown keys \['learning_rate'\]; valid keys"):
        load_sweep_file(str(path))
    path.write_text("env: CartPole-v1\n")
    with pytest.raises(click.UsageError, match="Missing argument 'ALGO'"):
        _sweep_spec(None, (), str(path), options())
    with pytest.raises(click.UsageError, match="section.key=v1,v2"):
        _sweep_spec("ppo", ("lr=1",), None, options())
