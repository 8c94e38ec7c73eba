"""TensorBoard on or off, progress.csv keeps its columns; TensorBoard's step is env steps."""

import csv

import pytest

from rlpyt.utils.logging import logger


@pytest.fixture(autouse=True)
def fresh_logger():
    logger.reset()
    yield
    logger.reset()


class FakeSummaryWriter:
    """Records ``add_scalar`` calls as ``(tag, value, step)``."""

    def __init__(self):
        self.scalars = []

    def add_scalar(self, tag, value, step):
        self.scalars.append((tag, value, step))


def log_rows(path, writer):
    """Logs two runner-like rows (iterations 3 and 7, 128 env steps each) to ``path``."""
    logger.add_tabular_output(str(path))
    logger.set_tf_summary_writer(writer)
    for itr in (3, 7):
        logger.set_iteration(itr)
        logger.record_tabular("Diagnostics/Iteration", itr)
        logger.record_tabular("Diagnostics/CumSteps", 128 * (itr + 1))
        logger.record_tabular_misc_stat("Return", [itr, itr + 2.0])
        with logger.tabular_prefix("Eval/"):
            logger.record_tabular_misc_stat("Length", [10, 20])
        logger.record_tabular_misc_stat("Loss", [1.0], placement="front")
        logger.record_tabular("Note", "text")
        logger.dump_tabular()
    logger.remove_tabular_output(str(path))
    logger.set_tf_summary_writer(None)
    with open(path, newline="") as f:
        return list(csv.reader(f))


def test_csv_columns_are_the_same_with_and_without_a_writer(tmp_path, capsys):
    without = log_rows(tmp_path / "off.csv", None)
    with_writer = log_rows(tmp_path / "on.csv", FakeSummaryWriter())
    assert with_writer == without
    header = with_writer[0]
    assert header[2:7] == [f"Return{name}" for name in logger.MISC_STAT_NAMES]
    assert "Eval/LengthAverage" in header and "AverageLoss" in header
    assert not any(column.startswith("Return/") for column in header)


def test_tensorboard_groups_statistics_and_steps_by_env_steps(tmp_path, capsys):
    writer = FakeSummaryWriter()
    log_rows(tmp_path / "progress.csv", writer)
    first_row = [(tag, value, step) for tag, value, step in writer.scalars if step == 512]
    assert [tag for tag, _, _ in first_row] == [
        "Diagnostics/Iteration",
        "Diagnostics/CumSteps",
        *[f"Return/{name}" for name in logger.MISC_STAT_NAMES],
        *[f"Eval/Length/{name}" for name in logger.MISC_STAT_NAMES],
        *[f"{name}Loss" for name in logger.MISC_STAT_NAMES],
    ]  # the text column "Note" is not a scalar
    assert ("Return/Average", 4.0, 512) in first_row
    assert {step for _, _, step in writer.scalars} == {512, 1024}  # CumSteps, not itr 3 and 7


def test_rows_without_cum_steps_use_the_iteration_as_step(capsys):
    writer = FakeSummaryWriter()
    logger.set_tf_summary_writer(writer)
    logger.set_iteration(5)
    logger.record_tabular("Loss", 2.0)
    logger.dump_tabular()
    assert writer.scalars == [("Loss", 2.0, 5)]


def test_misc_stat_columns_do_not_depend_on_the_writer():
    values = [1.0, 2.0, 4.0]
    without = logger.misc_stat_columns("Return", values)
    logger.set_tf_summary_writer(FakeSummaryWriter())
    assert logger.misc_stat_columns("Return", values) == without
    assert list(without) == [f"Return{name}" for name in logger.MISC_STAT_NAMES]
    assert logger.tensorboard_tag("ReturnStd") == "Return/Std"
    assert logger.tensorboard_tag("Diagnostics/CumSteps") == "Diagnostics/CumSteps"
