"""Allowed CPUs, hyperthread/socket detection and pinning, with the OS calls faked."""

import errno
import os
import sys
import warnings

import pytest

from rlpyt.utils.launching import cpus
from rlpyt.utils.launching.affinity import make_affinity
from rlpyt.utils.launching.cpus import (
    ALLOWED_CPUS_ENV,
    allowed_cpus,
    detect_hyperthread_offset,
    detect_n_socket,
    read_cpu_topology,
    set_cpu_affinity,
)
from tests import warm_python

needs_affinity = pytest.mark.skipif(
    not hasattr(os, "sched_setaffinity"), reason="the OS has no CPU affinity calls"
)


@pytest.fixture(autouse=True)
def fresh(monkeypatch):
    """No recorded allowed set and no one-time warnings issued yet."""
    monkeypatch.delenv(ALLOWED_CPUS_ENV, raising=False)
    monkeypatch.setattr(cpus, "_warned", set())


def test_allowed_cpus_follows_a_restricted_cpuset_and_records_it(monkeypatch):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {7, 5, 4, 6}, raising=False)
    assert allowed_cpus() == (4, 5, 6, 7)
    assert os.environ[ALLOWED_CPUS_ENV] == "4,5,6,7"
    # A child pinned narrower still sees the recorded set.
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {6}, raising=False)
    assert allowed_cpus() == (4, 5, 6, 7)


def test_allowed_cpus_without_affinity_calls(monkeypatch):
    monkeypatch.delattr(os, "sched_getaffinity", raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 3)
    assert allowed_cpus() == (0, 1, 2)


def test_bad_recorded_set_is_explained(monkeypatch):
    monkeypatch.setenv(ALLOWED_CPUS_ENV, "0,one")
    with pytest.raises(ValueError, match=ALLOWED_CPUS_ENV):
        allowed_cpus()


def test_logical_cpus_map_onto_the_allowed_set(monkeypatch):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {12, 13, 14, 15}, raising=False)
    aff = make_affinity(run_slot=1, n_cpu_core=4, cpu_per_run=2, hyperthread_offset=0, n_socket=1)
    assert aff.master_cpus == aff.all_cpus == (14, 15)
    assert aff.workers_cpus == ((14,), (15,))


CPUINFO = """processor\t: 0
physical id\t: 0
core id\t\t: 0

processor\t: 1
physical id\t: 1
core id\t\t: 0

processor\t: 2
physical id\t: 0
core id\t\t: 0

processor\t: 3
physical id\t: 1
core id\t\t: 0
"""


def test_read_cpu_topology(tmp_path):
    path = tmp_path / "cpuinfo"
    path.write_text(CPUINFO)
    assert read_cpu_topology(str(path)) == {0: (0, 0), 1: (1, 0), 2: (0, 0), 3: (1, 0)}
    path.write_text("processor\t: 0\nmodel name\t: some arm core\n")
    assert read_cpu_topology(str(path)) is None
    assert read_cpu_topology(str(tmp_path / "missing")) is None


def test_hyperthread_offset_and_sockets_from_topology(monkeypatch, tmp_path):
    path = tmp_path / "cpuinfo"
    path.write_text(CPUINFO)
    monkeypatch.setattr(cpus, "CPUINFO_PATH", str(path))
    monkeypatch.setattr(cpus, "read_cpu_topology", lambda: read_cpu_topology(str(path)))
    assert detect_hyperthread_offset((0, 1, 2, 3)) == 2  # 0/2 and 1/3 share a core.
    assert detect_n_socket((0, 1, 2, 3)) == 2
    assert detect_n_socket((0, 2)) == 1
    assert detect_hyperthread_offset((0, 1)) == 0  # Two separate cores.


def test_adjacent_sibling_numbering_turns_hyperthreads_off(monkeypatch):
    topology = {0: (0, 0), 1: (0, 0), 2: (0, 1), 3: (0, 1)}
    monkeypatch.setattr(cpus, "read_cpu_topology", lambda: topology)
    assert detect_hyperthread_offset((0, 1, 2, 3)) == 0


def test_without_topology_defaults_to_one_socket_and_psutil_counts(monkeypatch):
    monkeypatch.setattr(cpus, "read_cpu_topology", lambda: None)
    counts = {True: 8, False: 4}
    monkeypatch.setattr(cpus.psutil, "cpu_count", lambda logical=True: counts[logical])
    assert detect_n_socket((0, 1)) == 1
    assert detect_hyperthread_offset(tuple(range(8))) == 4
    assert detect_hyperthread_offset((0, 1, 2)) == 0  # Partial set: pairing unknown.


def test_set_cpu_affinity_is_a_silent_no_op_without_affinity_calls(monkeypatch):
    monkeypatch.delattr(os, "sched_setaffinity", raising=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert set_cpu_affinity([0]) is None


def test_set_cpu_affinity_restricts_to_the_allowed_set(monkeypatch):
    calls = []
    monkeypatch.setenv(ALLOWED_CPUS_ENV, "0,1")
    monkeypatch.setattr(os, "sched_setaffinity", lambda pid, c: calls.append(c), raising=False)
    with pytest.warns(RuntimeWarning, match=r"restricted to the allowed CPUs \[1\]"):
        assert set_cpu_affinity([1, 5]) == (1,)
    assert calls == [(1,)]
    with pytest.warns(RuntimeWarning, match="none of the requested CPUs"):
        assert set_cpu_affinity([5, 6]) is None
    assert calls == [(1,)]
    assert set_cpu_affinity(0) == (0,)  # rlpyt scripts give a worker a bare CPU number.


def test_set_cpu_affinity_warns_once_when_the_os_refuses(monkeypatch):
    def refuse(pid, cpus):
        raise OSError(errno.EINVAL, "Invalid argument")

    monkeypatch.setenv(ALLOWED_CPUS_ENV, "0,1")
    monkeypatch.setattr(os, "sched_setaffinity", refuse, raising=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert set_cpu_affinity([0]) is None
        assert set_cpu_affinity([1]) is None
    assert len(caught) == 1 and "refused" in str(caught[0].message)


@needs_affinity
def test_set_cpu_affinity_pins_a_real_process():
    target = max(os.sched_getaffinity(0))
    code = (
        "import os; from rlpyt.utils.launching.cpus import set_cpu_affinity; "
        f"print(set_cpu_affinity([{target}]), sorted(os.sched_getaffinity(0)))"
    )
    env = {k: v for k, v in os.environ.items() if k != ALLOWED_CPUS_ENV}
    out = warm_python.run(
        [sys.executable, "-c", code], check=False, capture_output=True, text=True, env=env
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == [f"({target},)", f"[{target}]"]
