"""Every file of a run folder follows the umask, as a fresh progress.csv does.

The atomic writes go through tempfile's ``mkstemp``, which creates files ``0600``; without the
change of mode, params.json, variant.json, snapshots and a rewritten progress.csv would be
``0600`` while debug.log and a fresh progress.csv are ``0644`` under umask 022.
"""

import os
import stat

import pytest

from rlpyt.utils.logging import logger
from rlpyt.utils.logging.context import add_exp_param, logger_context


@pytest.fixture(autouse=True)
def fresh_logger():
    logger.reset()
    yield
    logger.reset()


@pytest.fixture(params=[0o022, 0o027, 0o002])
def umask(request):
    previous = os.umask(request.param)
    yield request.param
    os.umask(previous)


def modes(folder):
    return {name: stat.S_IMODE(os.stat(folder / name).st_mode) for name in os.listdir(folder)}


def test_every_run_folder_file_follows_the_umask(tmp_path, umask):
    with logger_context(str(tmp_path), 0, "perm", {"seed": 1}, snapshot_mode="last+gap"):
        for itr in range(2):
            logger.record_tabular("Diagnostics/Iteration", itr)
            if itr == 1:  # a new key: progress.csv is rewritten under the longer header
                logger.record_tabular("ReturnAverage", 1.0)
            logger.dump_tabular(with_prefix=False)
            logger.save_itr_params(itr, {"itr": itr})
    add_exp_param("label", "x", exp_dir=str(tmp_path))  # rewrites both params files
    run_dir = tmp_path / "run_0"
    expected = 0o666 & ~umask
    found = modes(run_dir)
    assert set(found) == {
        "debug.log",
        "progress.csv",
        "params.json",
        "variant.json",
        "params.pkl",
        "itr_0.pkl",
        "itr_1.pkl",
    }, "a temporary file was left behind"
    wrong = {name: oct(mode) for name, mode in found.items() if mode != expected}
    assert not wrong, f"expected {oct(expected)} for every file (umask {oct(umask)}), got {wrong}"


def test_a_failed_write_leaves_no_temporary_file(tmp_path):
    logger.set_snapshot_dir(str(tmp_path))
    logger.set_snapshot_mode("last")

    class Unpicklable:
        def __reduce__(self):
            raise RuntimeError("cannot pickle")

    logger.save_itr_params(0, {"itr": 0})
    with pytest.raises(RuntimeError, match="cannot pickle"):
        logger.save_itr_params(1, {"bad": Unpicklable()})
    assert os.listdir(tmp_path) == ["params.pkl"]
