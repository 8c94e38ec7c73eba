"""Test-session settings.

Torch runs its ops on one thread here. The suite's tensors are tiny, and with several processes on
a small machine (parallel-sampler tests start workers; CI machines are shared) more threads only
oversubscribe the cores: with two threads a test took 18 s that takes 0.6 s with one.

``make test`` runs the suite in two pytest-xdist workers (``-n 2 --dist loadgroup``). The test
files that start several worker processes and wait on them with deadlines (parallel and
asynchronous samplers, the async and SyncRl runners, fault injection, sweeps over several cores)
form one xdist group, so they run one after another in one worker while the other worker takes
the single-process tests: two of them side by side would put four or more busy processes on two
cores, and their waits would measure the machine instead of the code. Without xdist (a plain
``pytest tests/unit/foo``) nothing changes.
"""

import os

import pytest
import torch

torch.set_num_threads(1)

PROCESS_GROUP = "processes"
# Test files (relative to tests/) whose tests start several busy worker processes.
PROCESS_HEAVY_FILES = frozenset(
    {
        "integration/test_async_faults.py",
        "integration/test_async_rl.py",
        "integration/test_cli.py",
        "integration/test_launcher.py",
        "integration/test_parallel_faults.py",
        "integration/test_parallel_samplers.py",
        "integration/test_sync_rl.py",
        "integration/test_vector_samplers.py",
    }
)
TESTS_DIR = os.path.dirname(os.path.abspath(__file__))


def process_group_of(path: str) -> str | None:
    """The xdist group of the test file at ``path``: ``PROCESS_GROUP`` or None (free)."""
    relative = os.path.relpath(os.path.abspath(path), TESTS_DIR).replace(os.sep, "/")
    return PROCESS_GROUP if relative in PROCESS_HEAVY_FILES else None


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook, which reads the groups
def pytest_collection_modifyitems(config, items):
    """Put the process-heavy tests in one xdist group (only when xdist is installed)."""
    if not config.pluginmanager.hasplugin("xdist"):
        return
    for item in items:
        if process_group_of(str(item.path)) is not None:
            item.add_marker(pytest.mark.xdist_group(PROCESS_GROUP))
