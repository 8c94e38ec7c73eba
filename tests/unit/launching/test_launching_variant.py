"""Variants: crossing levels, log dir names, save/load, update_config errors naming the path."""

import itertools
import json
import os

import pytest

from rlpyt.utils.launching.variant import (
    VARIANT,
    VariantLevel,
    load_variant,
    make_variants,
    save_variant,
    update_config,
)

GAMES = VariantLevel(
    keys=[("env", "game")], values=[("pong",), ("breakout",)], dir_names=["pong", "breakout"]
)
LRS = VariantLevel(
    keys=[("algo", "learning_rate"), ("algo", "batch_size")],
    values=[(1e-3, 32), (1e-4, 64), (3e-4, 128)],
    dir_names=["lr_1e-3", "lr_1e-4", "lr_3e-4"],
)


def test_levels_cross_in_order_like_nested_loops():
    variants, log_dirs = make_variants(GAMES, LRS)
    expected_variants, expected_dirs = [], []
    for (game, game_dir), (lr_values, lr_dir) in itertools.product(
        zip(GAMES.values, GAMES.dir_names, strict=True), zip(LRS.values, LRS.dir_names, strict=True)
    ):
        lr, batch = lr_values
        expected_variants.append(
            {"env": {"game": game[0]}, "algo": {"learning_rate": lr, "batch_size": batch}}
        )
        expected_dirs.append(game_dir + os.sep + lr_dir)
    assert variants == expected_variants
    assert log_dirs == expected_dirs


def test_no_levels_is_one_empty_variant():
    assert make_variants() == ([{}], [""])


def test_variants_do_not_share_nested_dicts():
    variants, _ = make_variants(GAMES, LRS)
    variants[0]["algo"]["learning_rate"] = -1
    assert variants[1]["algo"]["learning_rate"] == 1e-4
    assert variants[3]["algo"]["learning_rate"] == 1e-3


@pytest.mark.parametrize(
    "level, match",
    [
        (VariantLevel([("a",)], [(1,), (2,)], ["x", "x"]), "dir_names must be unique"),
        (VariantLevel([("a",)], [(1,), (2,)], ["x"]), "2 settings but 1 dir_names"),
        (VariantLevel([("a",), ("b",)], [(1,)], ["x"]), "1 values for 2 keys"),
        (VariantLevel(["a"], [(1,)], ["x"]), "non-empty tuple of keys"),
    ],
)
def test_malformed_levels_are_explained(level, match):
    with pytest.raises(ValueError, match=match):
        make_variants(level)


def test_save_and_load_round_trip(tmp_path):
    variant = {"algo": {"learning_rate": 1e-4, "sizes": [64, 64]}, "env": {"game": "pong"}}
    log_dir = tmp_path / "pong" / "lr"
    save_variant(variant, str(log_dir))
    assert json.loads((log_dir / VARIANT).read_text()) == variant
    assert load_variant(str(log_dir)) == variant
    assert VARIANT == "variant_config.json"


DEFAULT = {
    "algo": {"learning_rate": 1e-3, "discount": 0.99},
    "agent": {"model_kwargs": None},
    "env": {"game": "pong", "options": {"frame_skip": 4}},
}


def test_update_config_merges_deeply_without_touching_inputs():
    variant = {"algo": {"learning_rate": 1e-4}, "env": {"options": {"frame_skip": 2}}}
    before = json.dumps(DEFAULT)
    config = update_config(DEFAULT, variant)
    assert config["algo"] == {"learning_rate": 1e-4, "discount": 0.99}
    assert config["env"] == {"game": "pong", "options": {"frame_skip": 2}}
    assert json.dumps(DEFAULT) == before
    config["algo"]["discount"] = 0.5
    assert DEFAULT["algo"]["discount"] == 0.99


def test_unknown_key_names_the_full_path():
    with pytest.raises(KeyError, match=r"algo\.learning_rte"):
        update_config(DEFAULT, {"algo": {"learning_rte": 1e-4}})
    with pytest.raises(KeyError, match=r"env\.options\.frameskip"):
        update_config(DEFAULT, {"env": {"options": {"frameskip": 2}}})


def test_dict_mismatch_names_the_path():
    with pytest.raises(TypeError, match=r"agent\.model_kwargs"):
        update_config(DEFAULT, {"agent": {"model_kwargs": {"hidden_sizes": [32]}}})
    with pytest.raises(TypeError, match=r"'env\.options' is a int"):
        update_config(DEFAULT, {"env": {"options": 4}})
