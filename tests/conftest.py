"""Test-session settings.

Torch runs its ops on one thread here. The suite's tensors are tiny, and with several processes on
a small machine (parallel-sampler tests start workers; CI machines are shared) more threads only
oversubscribe the cores: with two threads a test took 18 s that takes 0.6 s with one.

``make test`` runs the suite in two pytest-xdist workers (``-n 2 --dist loadgroup``), and
:func:`pytest_xdist_make_scheduler` decides which worker runs what:

- the test files that start several busy worker processes and wait on them with deadlines
  (parallel and asynchronous samplers, the async and SyncRl runners, fault injection, sweeps
  over several cores, a local Ray cluster) are one work unit, run one after another in one
  worker while the other worker takes the single-process tests: two of them side by side would
  put four or more busy processes on two cores, and their waits would measure the machine
  instead of the code;
- a file whose tests share a module-scoped fixture (a trained run) is one work
  unit, so the fixture is built once;
- every other test is a work unit of its own, which balances the two workers best.

The groups are by file, not ``xdist_group`` marks: pytest 9.2 no longer reads the node ids that
pytest-xdist 3.8 rewrites to carry the marks. Without xdist (a plain ``pytest tests/unit/foo``)
nothing here changes anything.
"""

import pytest
import torch

torch.set_num_threads(1)


@pytest.fixture(autouse=True)
def one_torch_thread():
    """Give every test one torch thread, whatever the test before it set.

    Runners set torch's threads from their affinity (``len(master cpus)``); without this a
    test that passes CPUs would leave its xdist worker on two threads for every later test.
    """
    if torch.get_num_threads() != 1:
        torch.set_num_threads(1)
    yield


PROCESS_GROUP = "processes"
# Test files whose tests start several busy worker processes (paths as in pytest's node ids).
PROCESS_HEAVY_FILES = frozenset(
    {
        "tests/integration/test_async_faults.py",
        "tests/integration/test_async_rl.py",
        "tests/integration/test_cli.py",
        "tests/integration/test_cluster.py",
        "tests/integration/test_launcher.py",
        "tests/integration/test_parallel_faults.py",
        "tests/integration/test_parallel_samplers.py",
        "tests/integration/test_sync_rl.py",
        "tests/integration/test_vector_samplers.py",
    }
)
# Test files whose tests share an expensive module-scoped fixture.
SHARED_FIXTURE_FILES = frozenset(
    {
        "tests/integration/test_cli_play_tune.py",
    }
)


def work_unit_of(nodeid: str) -> str:
    """The xdist work unit of a test: ``PROCESS_GROUP``, its file, or the test itself.

    Args:
        nodeid: pytest's node id, e.g. ``tests/unit/spaces/test_int_box.py::test_sample``.
    """
    path = nodeid.split("::", 1)[0]
    if path in PROCESS_HEAVY_FILES:
        return PROCESS_GROUP
    return path if path in SHARED_FIXTURE_FILES else nodeid


@pytest.hookimpl(optionalhook=True)  # a pytest-xdist hook: unknown when xdist is not installed
def pytest_xdist_make_scheduler(config, log):
    """Under ``--dist loadgroup``, schedule by :func:`work_unit_of` (largest units first)."""
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class WorkUnitScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return work_unit_of(nodeid)

    return WorkUnitScheduling(config, log)


@pytest.fixture
def offline_wandb(tmp_path, monkeypatch):
    """W&B offline and silent, its folders in tmp_path, no API key; a fresh logger.

    Yields the folder W&B writes its runs in (``WANDB_DIR``). Nothing reaches the network.
    """
    from rlpyt.utils.logging import logger

    monkeypatch.setenv("WANDB_MODE", "offline")
    monkeypatch.setenv("WANDB_SILENT", "true")
    for name, folder in (
        ("WANDB_DIR", "wandb_dir"),
        ("WANDB_CONFIG_DIR", "wandb_config"),
        ("WANDB_CACHE_DIR", "wandb_cache"),
        ("WANDB_DATA_DIR", "wandb_data"),
    ):
        monkeypatch.setenv(name, str(tmp_path / folder))
    monkeypatch.delenv("WANDB_API_KEY", raising=False)
    (tmp_path / "wandb_dir").mkdir()
    logger.reset()
    yield tmp_path / "wandb_dir"
    logger.reset()


@pytest.fixture
def gloo_world_of_one(tmp_path, monkeypatch):
    """A torch.distributed process group of one rank (gloo, file store), left after the test.

    ``MASTER_ADDR`` is set through monkeypatch and so removed again: left in the environment,
    it made later SyncRl runs in the same process think they were started by torchrun.
    """
    import torch.distributed as dist

    monkeypatch.setenv("MASTER_ADDR", "127.0.0.1")
    dist.init_process_group(
        "gloo", init_method=f"file://{tmp_path / 'store'}", rank=0, world_size=1
    )
    yield
    dist.destroy_process_group()
