"""TrainingDiagnostics: the runner's counters, window, rates and statistics columns."""

import math

import numpy as np
import pytest

from rlpyt.envs.traj_info import TrajInfo
from rlpyt.runners import diagnostics as diagnostics_module
from rlpyt.runners.diagnostics import TrainingDiagnostics, format_seconds
from rlpyt.utils.logging import logger


def traj(length, ret):
    info = TrajInfo(discount=0.5)
    for _ in range(length):
        info.step(None, None, ret / length, False, None, None)
    return info


def make(window=None, batch=64):
    return TrainingDiagnostics(("loss", "gradNorm"), batch, n_itr=10, traj_window=window)


def test_the_window_keeps_the_last_trajectories_and_counts_all():
    diag = make(window=2)
    diag.store(0, [traj(3, 1.0), traj(4, 2.0)], None)
    diag.store(1, [traj(5, 3.0)], None)
    assert diag.cum_completed_trajs == 3
    assert diag.window_columns() == {"NewCompletedTrajs": 3, "StepsInTrajWindow": 9}
    stats = diag.stat_columns()
    assert stats["LengthMin"] == 4 and stats["LengthMax"] == 5
    assert "_discount" not in "".join(stats)  # private fields are not logged
    diag.mark_logged(1, update_counter=0)
    assert diag.window_columns()["NewCompletedTrajs"] == 0


def test_opt_info_values_are_gathered_until_the_log_then_cleared():
    diag = make()
    diag.store(0, [], ([1.0, 3.0], [0.5, 0.5]))
    diag.store(1, [], (5.0, 0.5))  # a scalar counts as one value
    stats = diag.stat_columns()
    assert stats["lossAverage"] == 3.0 and stats["lossMax"] == 5.0
    assert stats["gradNormStd"] == 0.0
    assert "ReturnAverage" not in stats  # no trajectory completed: no TrajInfo columns
    diag.mark_logged(1, update_counter=0)
    assert all(math.isnan(v) for v in diag.stat_columns().values())


def test_evaluation_trajectories_replace_the_window_in_the_statistics():
    diag = make()
    diag.store(0, [traj(3, 1.0)], None)
    stats = diag.stat_columns([traj(7, 2.0), traj(9, 4.0)])
    assert stats["LengthAverage"] == 8.0 and stats["ReturnMax"] == pytest.approx(4.0)
    diag.add_eval_time(1.5)
    assert diag.eval_columns([traj(7, 2.0)])["StepsInEval"] == 7
    assert diag.eval_columns([])["TrajsInEval"] == 0
    assert diag.eval_columns([])["CumEvalTime"] == 1.5


def test_common_columns_rates_and_replay_ratios(monkeypatch):
    clock = iter([100.0, 104.0, 110.0])
    monkeypatch.setattr(diagnostics_module.time, "time", lambda: next(clock))
    diag = make(batch=64)  # starts at t = 100
    first = diag.common_columns(itr=1, update_counter=4, algo_batch_size=32)  # t = 104
    assert first["CumSteps"] == 128 and first["CumTime (s)"] == 4.0
    assert first["StepsPerSecond"] == 128 / 4.0  # rates are NaN only in a row of itr 0
    assert first["ReplayRatio"] == 4 * 32 / 128 and first["CumReplayRatio"] == 1.0
    diag.last_time, diag.last_logged_itr, diag.last_update_counter = 104.0, 1, 4
    second = diag.common_columns(itr=3, update_counter=6, algo_batch_size=32, eval_time=2.0)
    assert second["StepsPerSecond"] == 128 / 4.0  # t = 110; eval time is not training time
    assert second["UpdatesPerSecond"] == 2 / 4.0
    assert second["ReplayRatio"] == 2 * 32 / 128


def test_the_first_and_pre_training_rows_have_no_rates():
    diag = make()
    row = diag.common_columns(itr=0, update_counter=0, algo_batch_size=0, pre_training=True)
    assert row["CumSteps"] == 0
    assert math.isnan(row["StepsPerSecond"]) and math.isnan(row["ReplayRatio"])
    assert list(row)[:2] == ["Iteration", "CumTime (s)"]


def test_state_round_trip_continues_the_counters():
    diag = make(window=3)
    diag.store(0, [traj(3, 1.0), traj(4, 1.0)], None)
    diag.add_times(1.0, 2.0)
    state = diag.state_dict()
    resumed = make(window=3)
    resumed.load_state_dict(state, itr=5, update_counter=7)
    assert resumed.cum_completed_trajs == 2 and len(resumed.traj_infos) == 2
    assert resumed.cum_optim_time == 2.0 and resumed.last_update_counter == 7
    assert resumed.start_itr == 6 and resumed.last_logged_itr == 5


@pytest.mark.parametrize("writer", [None, object()])
def test_statistics_are_named_as_the_logger_names_them(writer):
    logger.set_tf_summary_writer(writer)
    try:
        values = [1.0, 2.0, 4.0]
        columns = logger.misc_stat_columns("Return", values)
        # The same CSV columns with TensorBoard on; only its tags are grouped ("Return/Std").
        assert list(columns) == [f"Return{name}" for name in logger.MISC_STAT_NAMES]
        assert list(columns.values()) == list(logger.misc_stats(values))
        assert columns["ReturnStd"] == pytest.approx(np.std(values))
        assert logger.tensorboard_tag("ReturnStd") == "Return/Std"
    finally:
        logger.set_tf_summary_writer(None)


def test_console_durations():
    assert format_seconds(3725.9) == "1:02:05"
    assert format_seconds(0) == "0:00:00"


def test_a_row_off_the_schedule_leaves_the_window_open_and_the_snapshot_carries_it():
    """Rows after itr 1 (on schedule) and itr 2 (a budget's end, off it): continued from the
    snapshot of itr 2, the row of itr 3 covers itrs 2-3, as without the row of itr 2.
    """
    straight = make()
    straight.mark_logged(1, update_counter=4)
    straight.store(2, [traj(3, 1.0)], ([1.0], [0.1]))
    straight.store(3, [traj(5, 2.0)], ([3.0], [0.3]))
    wanted = straight.stat_columns(), straight.window_columns()
    wanted_common = straight.common_columns(3, update_counter=8, algo_batch_size=32)

    stopped = make()
    stopped.mark_logged(1, update_counter=4)
    stopped.store(2, [traj(3, 1.0)], ([1.0], [0.1]))
    state = stopped.state_dict()  # the snapshot is taken before the row is written
    stopped.mark_logged(2, update_counter=6, close_window=False)
    assert stopped.opt_infos["loss"] == [1.0]  # still open
    resumed = make()
    resumed.load_state_dict(state, itr=2, update_counter=6, window_open=True)
    resumed.store(3, [traj(5, 2.0)], ([3.0], [0.3]))
    assert (resumed.stat_columns(), resumed.window_columns()) == wanted
    common = resumed.common_columns(3, update_counter=8, algo_batch_size=32)
    assert common["ReplayRatio"] == wanted_common["ReplayRatio"]

    closed = make()  # on the schedule the snapshot's window is the row's own: a new one starts
    closed.load_state_dict(state, itr=2, update_counter=6)
    assert closed.opt_infos["loss"] == [] and closed.last_logged_itr == 2
