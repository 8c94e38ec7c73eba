"""What CPUs this process may use, how they pair into hyperthreads, and pinning to them.

Part of the launching box. The affinity builders (:mod:`rlpyt.utils.launching.affinity`)
number CPUs *logically*: logical CPU ``i`` is the ``i``-th CPU of :func:`allowed_cpus`, so an
affinity code written for "CPUs 0..7" lands on the CPUs a Slurm job or a cgroup cpuset actually
granted. Runners and sampler workers call :func:`set_cpu_affinity` to pin themselves; it never
crashes a run: it is a no-op where the OS has no affinity call (macOS, Windows) and warns once
when the OS refuses.

Invariant: the allowed set is read once per process tree. The first call to
:func:`allowed_cpus` stores it in the environment variable :data:`ALLOWED_CPUS_ENV`, so child
processes (which inherit a narrower, already pinned mask) keep the same logical numbering and the
same allowed set.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterable

import psutil

ALLOWED_CPUS_ENV = "RLPYT_ALLOWED_CPUS"
CPUINFO_PATH = "/proc/cpuinfo"

_warned: set[str] = set()


def _warn_once(key: str, message: str) -> None:
    """Emit ``message`` as a RuntimeWarning the first time ``key`` is seen in this process."""
    if key not in _warned:
        _warned.add(key)
        warnings.warn(message, RuntimeWarning, stacklevel=3)


def _parse_cpu_list(text: str) -> tuple[int, ...]:
    try:
        cpus = tuple(sorted({int(token) for token in text.split(",") if token.strip()}))
    except ValueError:
        raise ValueError(
            f"{ALLOWED_CPUS_ENV}={text!r} is not a comma-separated list of CPU numbers; "
            f"unset it or write e.g. '0,1,2,3'."
        ) from None
    if not cpus:
        raise ValueError(f"{ALLOWED_CPUS_ENV} is set but empty; unset it or list CPU numbers.")
    return cpus


def allowed_cpus() -> tuple[int, ...]:
    """The CPUs this process tree may run on, in increasing order.

    Taken from :data:`ALLOWED_CPUS_ENV` when a parent rlpyt process recorded it, else from
    ``os.sched_getaffinity(0)`` (honours cgroup/Slurm cpusets and ``taskset``), else
    ``range(os.cpu_count())`` on platforms without affinity calls. The first call records the
    result in :data:`ALLOWED_CPUS_ENV` for child processes.

    Returns:
        Sorted tuple of OS CPU numbers.
    """
    recorded = os.environ.get(ALLOWED_CPUS_ENV)
    if recorded is not None:
        return _parse_cpu_list(recorded)
    if hasattr(os, "sched_getaffinity"):
        cpus = tuple(sorted(os.sched_getaffinity(0)))
    else:
        cpus = tuple(range(os.cpu_count() or 1))
    os.environ[ALLOWED_CPUS_ENV] = ",".join(str(c) for c in cpus)
    return cpus


def read_cpu_topology(path: str = CPUINFO_PATH) -> dict[int, tuple[int, int]] | None:
    """Map each OS CPU number to its ``(physical id, core id)`` from ``/proc/cpuinfo``.

    Returns:
        ``{cpu: (socket, core)}``, or None where the file is missing or lacks the fields
        (macOS, Windows, many ARM machines and some VMs).
    """
    try:
        with open(path, encoding="utf-8") as f:
            blocks = f.read().strip().split("\n\n")
    except OSError:
        return None
    topology = {}
    for block in blocks:
        fields = {}
        for line in block.splitlines():
            key, _, value = line.partition(":")
            fields[key.strip()] = value.strip()
        try:
            cpu = int(fields["processor"])
            topology[cpu] = (int(fields["physical id"]), int(fields["core id"]))
        except (KeyError, ValueError):
            return None
    return topology or None


def detect_n_socket(cpus: Iterable[int] | None = None) -> int:
    """Number of CPU sockets spanned by ``cpus`` (default :func:`allowed_cpus`); 1 if unknown."""
    topology = read_cpu_topology()
    if topology is None:
        return 1
    cpus = allowed_cpus() if cpus is None else tuple(cpus)
    return max(1, len({topology[c][0] for c in cpus if c in topology}))


def detect_hyperthread_offset(cpus: Iterable[int] | None = None) -> int:
    """Logical offset from a core to its hyperthread sibling within ``cpus``; 0 means none.

    Hyperthreads are used only in rlpyt's layout: the sorted CPU list is all first threads
    followed by their siblings in the same order (Linux's usual numbering), so logical CPU
    ``i`` and ``i + offset`` share a core. Any other layout, or no topology information beyond
    psutil's counts for a partial CPU set, returns 0 (treat every CPU as a core of its own).

    Args:
        cpus: OS CPU numbers, default :func:`allowed_cpus`.
    """
    cpus = allowed_cpus() if cpus is None else tuple(sorted(cpus))
    topology = read_cpu_topology()
    if topology is not None:
        return _offset_from_topology(cpus, topology)
    return _offset_from_counts(cpus)


def _offset_from_topology(cpus: tuple[int, ...], topology: dict[int, tuple[int, int]]) -> int:
    half = len(cpus) // 2
    if half == 0 or len(cpus) % 2 or any(c not in topology for c in cpus):
        return 0
    first, second = cpus[:half], cpus[half:]
    first_cores = [topology[c] for c in first]
    if len(set(first_cores)) != half:
        return 0
    if all(topology[a] == topology[b] for a, b in zip(first, second, strict=True)):
        return half
    return 0


def _offset_from_counts(cpus: tuple[int, ...]) -> int:
    n_logical = psutil.cpu_count(logical=True)
    n_physical = psutil.cpu_count(logical=False)
    if n_logical and n_physical and n_logical == 2 * n_physical and len(cpus) == n_logical:
        return n_physical
    return 0


def set_cpu_affinity(cpus: Iterable[int] | int) -> tuple[int, ...] | None:
    """Pin the calling process to ``cpus`` (OS numbers), never failing the run.

    The request is restricted to :func:`allowed_cpus`. Where the OS has no
    ``sched_setaffinity`` this silently does nothing; when none of ``cpus`` is allowed, or the
    OS refuses (e.g. EINVAL inside some cluster cpusets), it warns once per process and leaves
    the affinity unchanged.

    Args:
        cpus: OS CPU numbers, e.g. an affinity's ``master_cpus`` or one ``workers_cpus`` entry
            (a bare number is accepted: rlpyt scripts write ``workers_cpus=list(range(n))``).

    Returns:
        The CPUs pinned to, or None when nothing was pinned.
    """
    if not hasattr(os, "sched_setaffinity"):
        return None
    requested = {cpus} if isinstance(cpus, int) else set(cpus)
    allowed = set(allowed_cpus())
    pinned = tuple(sorted(requested & allowed))
    if not pinned:
        _warn_once(
            "outside",
            f"CPU pinning skipped: none of the requested CPUs {sorted(requested)} is in this "
            f"process's allowed set {sorted(allowed)}; running unpinned.",
        )
        return None
    if len(pinned) < len(requested):
        _warn_once(
            "partial",
            f"CPU pinning restricted to the allowed CPUs {list(pinned)} of the requested "
            f"{sorted(requested)}.",
        )
    try:
        os.sched_setaffinity(0, pinned)
    except OSError as err:
        _warn_once(
            "refused",
            f"The OS refused to pin this process to CPUs {list(pinned)} ({err}); running "
            f"unpinned. Pass set_affinity=False to encode_affinity to skip pinning.",
        )
        return None
    return pinned


def parse_cpu_list(text: str) -> tuple[int, ...]:
    """OS CPU numbers from ``"0,2"``, ``"0-3"`` or ``"0-3,6"`` (as ``taskset -c`` reads them).

    Raises:
        ValueError: not such a list, a range that runs backwards, or no CPU at all.
    """
    cpus: set[int] = set()
    for token in text.replace(" ", "").split(","):
        if not token:
            continue
        first, dash, last = token.partition("-")
        try:
            low, high = int(first), int(last if dash else first)
        except ValueError:
            raise ValueError(
                f"{text!r} is not a CPU list; write CPU numbers and ranges, e.g. 0,1 or 0-3,6."
            ) from None
        if low < 0 or high < low:
            raise ValueError(f"{token!r} in {text!r} is not a range of CPU numbers (e.g. 0-3).")
        cpus.update(range(low, high + 1))
    if not cpus:
        raise ValueError(f"{text!r} names no CPU; write e.g. 0,1 or 0-3.")
    return tuple(sorted(cpus))


def check_allowed_cpus(cpus: Iterable[int]) -> tuple[int, ...]:
    """``cpus``, sorted, if this process may use every one of them.

    Raises:
        ValueError: none given, or a CPU outside :func:`allowed_cpus`; the message lists the
            CPUs this process may use.
    """
    wanted = tuple(sorted(set(cpus)))
    allowed = allowed_cpus()
    outside = sorted(set(wanted) - set(allowed))
    if not wanted or outside:
        raise ValueError(
            f"CPUs {outside or list(wanted)} are not available to this process; it may use "
            f"{_cpu_ranges(allowed)}."
        )
    return wanted


def restrict_to_cpus(cpus: Iterable[int]) -> tuple[int, ...]:
    """Run this process, and every process it starts, on ``cpus`` only (as ``taskset -c``).

    Pins the process (where the OS has affinity calls) and records ``cpus`` as the allowed set
    (:data:`ALLOWED_CPUS_ENV`), so worker counts, affinity codes and torch threads derive
    from them. Idempotent.

    Raises:
        ValueError: a CPU this process may not use (:func:`check_allowed_cpus`).
    """
    wanted = check_allowed_cpus(cpus)
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, wanted)
    os.environ[ALLOWED_CPUS_ENV] = ",".join(str(c) for c in wanted)
    return wanted


def _cpu_ranges(cpus: Iterable[int]) -> str:
    """``0-3,6`` for CPUs 0, 1, 2, 3 and 6."""
    runs: list[list[int]] = []
    for cpu in sorted(cpus):
        if runs and cpu == runs[-1][1] + 1:
            runs[-1][1] = cpu
        else:
            runs.append([cpu, cpu])
    return ",".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)
