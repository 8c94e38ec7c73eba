"""The logger's text lines and progress.csv rules (the viskit data contract)."""

import csv
import re

import numpy as np
import pytest
import torch

from rlpyt.utils.logging import logger
from rlpyt.utils.logging.tabular_csv import TabularCsv


@pytest.fixture(autouse=True)
def fresh_logger():
    logger.reset()
    yield
    logger.reset()


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.reader(f))


def dump_rows(rows):
    for row in rows:
        for key, value in row.items():
            logger.record_tabular(key, value)
        logger.dump_tabular()


def test_columns_follow_first_record_order(tmp_path, capsys):
    path = tmp_path / "progress.csv"
    logger.add_tabular_output(str(path))
    keys = ["Zeta", "alpha", "Diagnostics/Iteration", "Mu", "beta"]
    dump_rows([{key: i for i, key in enumerate(keys)}] * 3)
    lines = read_csv(path)
    assert lines[0] == keys
    assert lines[1:] == [["0", "1", "2", "3", "4"]] * 3


def test_new_keys_rewrite_header_and_pad_old_rows_with_nan(tmp_path, capsys):
    path = tmp_path / "progress.csv"
    logger.add_tabular_output(str(path))
    dump_rows([{"a": 1, "b": 2}, {"a": 3, "b": 4}])
    dump_rows([{"a": 5, "c": 6, "b": 7, "d": 8}])
    dump_rows([{"d": 9}])
    lines = read_csv(path)
    assert lines == [
        ["a", "b", "c", "d"],
        ["1", "2", "nan", "nan"],
        ["3", "4", "nan", "nan"],
        ["5", "7", "6", "8"],
        ["nan", "nan", "nan", "9"],
    ]
    assert not list(tmp_path.glob("*.tmp")), "the rewrite left its temporary file behind"


def test_no_cell_is_ever_blank(tmp_path, capsys):
    path = tmp_path / "progress.csv"
    logger.add_tabular_output(str(path))
    dump_rows([{"a": None, "b": ""}, {"a": 1, "c": float("nan")}, {"d": "x"}])
    text = path.read_text()
    assert ",," not in text and ",\n" not in text and not re.search(r"^,", text, re.M)
    assert all(cell != "" for line in read_csv(path) for cell in line)


def test_values_are_formatted_for_float_parsers(tmp_path, capsys):
    path = tmp_path / "progress.csv"
    logger.add_tabular_output(str(path))
    values = {
        "tensor": torch.tensor(2.5),
        "array1": np.array([3], dtype=np.int64),
        "flag": True,
        "npflag": np.bool_(False),
        "none": None,
        "float32": np.float32(0.1),
        "inf": float("-inf"),
    }
    dump_rows([values])
    header, row = read_csv(path)
    parsed = dict(zip(header, row, strict=True))
    assert parsed == {
        "tensor": "2.5",
        "array1": "3",
        "flag": "1",
        "npflag": "0",
        "none": "nan",
        "float32": "0.1",
        "inf": "-inf",
    }
    assert all(isinstance(float(cell), float) for cell in row)


def test_rows_are_flushed_at_each_dump(tmp_path, capsys):
    path = tmp_path / "progress.csv"
    logger.add_tabular_output(str(path))
    dump_rows([{"a": 1}])
    # Read while the file is still open: a crash now must not lose the row.
    assert read_csv(path) == [["a"], ["1"]]


def test_recording_a_key_twice_keeps_last_value_at_first_position(tmp_path, capsys):
    path = tmp_path / "progress.csv"
    logger.add_tabular_output(str(path))
    logger.record_tabular("a", 1)
    logger.record_tabular("b", 2)
    logger.record_tabular("a", 3)
    logger.dump_tabular()
    assert read_csv(path) == [["a", "b"], ["3", "2"]]


def test_misc_stat_matches_numpy(tmp_path, capsys):
    path = tmp_path / "progress.csv"
    logger.add_tabular_output(str(path))
    values = np.random.default_rng(0).normal(size=17)
    logger.record_tabular_misc_stat("Return", list(values))
    logger.record_tabular_misc_stat("Loss", [torch.tensor(v) for v in (1.0, 2.0, 6.0)])
    logger.dump_tabular()
    header, row = read_csv(path)
    got = {key: float(cell) for key, cell in zip(header, row, strict=True)}
    expected = {
        "ReturnAverage": np.mean(values),
        "ReturnStd": np.sqrt(np.mean((values - np.mean(values)) ** 2)),
        "ReturnMedian": sorted(values)[8],
        "ReturnMin": min(values),
        "ReturnMax": max(values),
        "LossAverage": 3.0,
        "LossStd": np.sqrt(((1 - 3) ** 2 + (2 - 3) ** 2 + (6 - 3) ** 2) / 3),
        "LossMedian": 2.0,
        "LossMin": 1.0,
        "LossMax": 6.0,
    }
    assert list(got) == list(expected)
    for key, value in expected.items():
        assert got[key] == pytest.approx(value, rel=1e-12), key


def test_misc_stat_of_empty_list_is_five_nans(tmp_path, capsys):
    path = tmp_path / "progress.csv"
    logger.add_tabular_output(str(path))
    logger.record_tabular_misc_stat("Return", [])
    logger.record_tabular_misc_stat("Length", [], placement="front")
    logger.dump_tabular()
    header, row = read_csv(path)
    assert header == [f"Return{s}" for s in logger.MISC_STAT_NAMES] + [
        f"{s}Length" for s in logger.MISC_STAT_NAMES
    ]
    assert row == ["nan"] * 10


def test_misc_stat_rejects_unknown_placement():
    with pytest.raises(ValueError, match="placement"):
        logger.record_tabular_misc_stat("Return", [1.0], placement="middle")


def test_tabular_prefix_applies_to_keys(tmp_path, capsys):
    path = tmp_path / "progress.csv"
    logger.add_tabular_output(str(path))
    with logger.tabular_prefix("Diagnostics/"):
        logger.record_tabular("Iteration", 0)
    logger.record_tabular("Plain", 1)
    logger.dump_tabular()
    assert read_csv(path)[0] == ["Diagnostics/Iteration", "Plain"]


def test_log_line_format_prefixes_and_text_output(tmp_path, capsys):
    path = tmp_path / "debug.log"
    logger.add_text_output(str(path))
    logger.push_prefix("exp_0 ")
    with logger.prefix("itr #3 "):
        logger.log("hello", color="green")
    logger.log("bare", with_prefix=False, with_timestamp=False)
    logger.pop_prefix()
    lines = path.read_text().splitlines()
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{6}  \| exp_0 itr #3 hello", lines[0])
    assert lines[1] == "bare"
    out = capsys.readouterr().out
    assert "\x1b[32m" in out and "exp_0 itr #3 hello" in out
    assert "\x1b" not in path.read_text(), "colour codes belong to the terminal only"


def test_dump_prints_aligned_table_and_disable_switches(tmp_path, capsys):
    path = tmp_path / "progress.csv"
    logger.add_tabular_output(str(path))
    dump_rows([{"LongKeyName": 1, "k": 22}])
    out_lines = capsys.readouterr().out.splitlines()
    table = [line.split("  | ", 1)[1] for line in out_lines]
    assert table[1] == "LongKeyName   1" and table[2] == "k            22"
    assert table[0] == table[3] == "-" * 11 + "  " + "-" * 2
    logger.disable_tabular()
    dump_rows([{"LongKeyName": 2}])
    assert "LongKeyName" in capsys.readouterr().out
    logger.enable_tabular()
    logger.disable()
    dump_rows([{"LongKeyName": 3}])
    logger.log("silent")
    assert capsys.readouterr().out == ""
    logger.enable()
    assert [line[0] for line in read_csv(path)] == ["LongKeyName", "1"]


def test_log_tabular_only_prints_bare_table(capsys):
    logger.set_log_tabular_only(True)
    logger.log("hidden")
    dump_rows([{"a": 1}])
    assert capsys.readouterr().out == "-  -\na  1\n-  -\n"
    assert logger.get_log_tabular_only()


def test_hold_and_resume_tabular_output(tmp_path, capsys):
    path = tmp_path / "progress.csv"
    logger.add_tabular_output(str(path))
    dump_rows([{"a": 1}])
    logger.hold_tabular_output(str(path))
    dump_rows([{"a": 2}])
    logger.add_tabular_output(str(path))
    dump_rows([{"a": 3}])
    logger.remove_tabular_output(str(path))
    dump_rows([{"a": 4}])
    assert read_csv(path) == [["a"], ["1"], ["3"]]


def test_write_header_true_keeps_a_single_header(tmp_path, capsys):
    path = tmp_path / "progress.csv"
    logger.add_tabular_output(str(path))
    dump_rows([{"a": 1}])
    logger.record_tabular("a", 2)
    logger.dump_tabular(write_header=True)
    assert read_csv(path) == [["a"], ["1"], ["2"]]


def test_append_keeps_existing_header_order_and_cuts_torn_row(tmp_path, capsys):
    path = tmp_path / "progress.csv"
    path.write_text("b,a\n1,2\n3,")  # the last row was torn by a crash
    logger.add_tabular_output(str(path), append=True)
    dump_rows([{"a": 5, "b": 6}])
    assert read_csv(path) == [["b", "a"], ["1", "2"], ["6", "5"]]


def test_drop_rows_after(tmp_path, capsys):
    path = tmp_path / "progress.csv"
    logger.add_tabular_output(str(path))
    dump_rows([{"Diagnostics/Iteration": itr, "x": itr * 10} for itr in range(6)])
    assert logger.drop_rows_after(3) == 2
    dump_rows([{"Diagnostics/Iteration": 4, "x": -1}])
    lines = read_csv(path)
    assert [line[0] for line in lines[1:]] == ["0", "1", "2", "3", "4"]
    assert lines[-1] == ["4", "-1"]
    with pytest.raises(ValueError, match="no column 'Nope'"):
        logger.drop_rows_after(1, key="Nope")


def test_drop_rows_after_on_a_closed_file(tmp_path):
    path = tmp_path / "progress.csv"
    path.write_text("Diagnostics/Iteration,y\n0,1\n1,2\n2,3\nnan,4\n")
    assert logger.drop_rows_after(0, file_name=str(path)) == 2
    assert read_csv(path) == [["Diagnostics/Iteration", "y"], ["0", "1"], ["nan", "4"]]


def test_tabular_csv_alone_pads_short_history(tmp_path):
    path = tmp_path / "p.csv"
    table = TabularCsv(str(path))
    table.write_row({"a": "1"})
    table.write_row({"b": ""})
    table.close()
    assert read_csv(path) == [["a", "b"], ["1", "nan"], ["nan", "nan"]]
