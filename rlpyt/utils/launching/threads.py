"""How many torch threads a process of a run uses, decided from what the process really has.

Part of the launching box. Every process that runs torch sets its threads with
:func:`set_torch_threads` and a :class:`ThreadDecision` from :func:`decide_torch_threads`: the
training process (MinibatchRl's master, each SyncRl rank, AsyncRl's optimizer) once its agent is
built, sampler workers and AsyncRl's sampler and memory copiers at their start. The training
process then keeps its count within the CPUs other processes leave free
(:class:`ThreadGovernor`, once a second at most). The runners log the decision and its reason
in their start-up line.

What the decision rests on (measured on 2 cores, idle and beside one busy process; the figures
are in docs/samplers.md, "On a shared machine", and ``benchmarks/torch_threads.py``):

- **The model.** Small MLPs (the CartPole models, under :data:`THREADED_PARAMETERS` parameters)
  train fastest on one intra-op thread even on an idle machine: their ops last microseconds, and
  handing each to a second thread costs more than it saves. Larger ones (the Pendulum and MuJoCo
  critics on batches of 256) run about 1.2-1.3x faster on two threads, and convolutional models
  (Atari) about 1.5x.
- **The CPUs.** Never more threads than CPUs the process may run on (its pinned set, else the
  run's allowed set), less the CPUs that processes running beside it at the same time keep busy
  (AsyncRl's sampler beside its optimizer, the other ranks of a SyncRl run).
- **The load of the moment.** Beside a competing process, a multi-threaded update collapses:
  each op waits for the thread whose core the competitor holds, while OpenMP's idle threads spin
  on the other core (two threads ran a Pendulum-size update at a third of one thread's speed).
  So the training process drops to the threads the other processes leave free, and takes them
  back when they go. Making idle threads sleep instead (``OMP_WAIT_POLICY=PASSIVE``) avoids the
  collapse too, but costs every multi-threaded op a wake-up: on an idle machine a Pendulum-size
  update ran at 0.55-0.8x of its spinning speed, slower than on one thread.

An explicit thread count (the affinity's ``master_torch_threads``, ``worker_torch_threads``, an
AsyncRl optimizer's ``torch_threads``; ``rlpyt train --torch-threads N``) is used as given,
capped at the CPUs the process may use, and never changed with the load.
"""

from __future__ import annotations

import os
import time
import warnings
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import psutil
import torch

from rlpyt.utils.launching.cpus import allowed_cpus

THREADED_PARAMETERS = 100_000
THREADED_LAYERS = (torch.nn.modules.conv._ConvNd,)
GOVERNOR_INTERVAL_S = 1.0  # a ThreadGovernor reads the load at most this often


@dataclass(frozen=True)
class ThreadDecision:
    """The torch intra-op threads of one process and why.

    Attributes:
        threads: Intra-op threads (``torch.set_num_threads``); inter-op threads are always one.
            With ``follow_load``, the most it uses.
        reason: Why, in words, for the start-up line.
        follow_load: Fewer threads while other processes keep CPUs busy (:class:`ThreadGovernor`).
    """

    threads: int
    reason: str
    follow_load: bool = False

    def describe(self) -> str:
        """``"1 (reason)"`` or ``"up to 2 (reason)"``, as the start-up lines print it."""
        most = "up to " if self.follow_load else ""
        return f"{most}{self.threads} ({self.reason})"


def process_cpus(cpus: int | Iterable[int] | None = None) -> tuple[int, ...]:
    """The CPUs a process may run on: ``cpus`` within the allowed set, else its own affinity.

    Args:
        cpus: OS CPU numbers the process is (or will be) pinned to; a bare number is one CPU.
    """
    allowed = allowed_cpus()
    if cpus is not None:
        wanted = {cpus} if isinstance(cpus, int) else set(cpus)
        inside = tuple(sorted(wanted & set(allowed)))
        if inside:
            return inside
    if hasattr(os, "sched_getaffinity"):
        return tuple(sorted(os.sched_getaffinity(0)))
    return allowed


def threads_pay(modules: Iterable[torch.nn.Module]) -> tuple[bool, str]:
    """Whether more than one intra-op thread pays for these models, and why, in words.

    Returns:
        ``(True, ...)`` when any module has a convolution or they hold
        :data:`THREADED_PARAMETERS` parameters or more; else ``(False, ...)``.
    """
    modules = list(modules)
    n_params = sum(p.numel() for m in modules for p in m.parameters())
    for module in modules:
        for layer in module.modules():
            if isinstance(layer, THREADED_LAYERS):
                return True, f"its model has a {type(layer).__name__} layer"
    if n_params >= THREADED_PARAMETERS:
        return True, f"its model has {n_params:,} parameters"
    if not modules:
        return False, "no model to train here"
    return False, f"an MLP of {n_params:,} parameters: one thread is fastest for it"


def decide_torch_threads(
    requested: int | None = None,
    cpus: int | Iterable[int] | None = None,
    modules: Iterable[torch.nn.Module] = (),
    busy_beside: int = 0,
) -> ThreadDecision:
    """Decide a process's torch intra-op threads (see the module docstring).

    Args:
        requested: An explicit count (affinity or ``--torch-threads``); None decides.
        cpus: The process's CPUs (its affinity entry); None: its current affinity.
        modules: The models this process trains (empty: it only samples or copies).
        busy_beside: CPUs kept busy by processes that run beside this one at the same time.

    Returns:
        The decision; ``threads`` is at least 1 and at most the CPUs the process may use.
    """
    n_cpus = len(process_cpus(cpus))
    if requested is not None:
        requested = int(requested)
        if requested < 1:
            raise ValueError(f"torch threads must be >= 1, got {requested}.")
        if requested > n_cpus:
            return ThreadDecision(n_cpus, f"asked {requested}, capped at its {n_cpus} CPUs")
        return ThreadDecision(requested, "as asked")
    threaded, what = threads_pay(modules)
    if not threaded:
        return ThreadDecision(1, what)
    share = max(1, n_cpus - max(0, busy_beside))
    beside = f", {busy_beside} kept busy beside it" if busy_beside else ""
    reason = f"{what}; one per CPU it may use ({n_cpus}{beside}) that other processes leave free"
    return ThreadDecision(share, reason, follow_load=share > 1)


def set_torch_threads(decision: ThreadDecision) -> None:
    """Apply a decision: intra-op threads, and one inter-op thread where torch still allows it."""
    torch.set_num_threads(decision.threads)
    if torch.get_num_interop_threads() != 1:
        try:
            torch.set_num_interop_threads(1)
        except RuntimeError:
            pass  # inter-op work already started in this process; its pool stays as it is


@contextmanager
def torch_threads(n: int | None) -> Iterator[None]:
    """Run the block with ``n`` torch intra-op threads (None: as they are), then restore them."""
    before = torch.get_num_threads()
    if n is None or n == before:
        yield
        return
    torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def agent_modules(agent: object) -> list[torch.nn.Module]:
    """The torch modules an agent trains, named by its ``trained_names``.

    Its ``model``, ``q_model``, ...: not the targets, nor the shared-memory copy that
    sampler processes read. An agent without ``trained_names`` (not a BaseAgent) has ``model``.
    """
    names = getattr(agent, "trained_names", None) or ("model",)
    modules = (getattr(agent, name, None) for name in names)
    return [module for module in modules if isinstance(module, torch.nn.Module)]


class ThreadGovernor:
    """Keeps the training process's torch threads within the CPUs other processes leave free.

    The runner calls :meth:`adapt` before each optimization; at most once per ``interval``
    seconds it reads how much CPU time the process's CPUs spent busy (``/proc/stat`` through
    psutil, steal time included) beyond this process and its children, and sets the threads to
    the CPUs left (at least one, at most the decision's). A busy loop beside a two-thread run
    takes it to one thread within a second; when the loop ends, the threads come back.

    A process decided on one thread, or on an explicit count, never changes (``active`` False).
    The thread count changes the order of some float reductions, so a run that follows the load
    is not bitwise repeatable; ``--torch-threads N`` fixes the count.
    """

    def __init__(
        self,
        decision: ThreadDecision,
        cpus: Iterable[int],
        interval: float = GOVERNOR_INTERVAL_S,
    ):
        self.most = decision.threads
        self.cpus = tuple(cpus)
        self.interval = interval
        self.active = decision.follow_load and self.most > 1
        self._last: tuple[float, float, float] | None = None  # (time, busy, ours) seconds

    def adapt(self) -> int:
        """Re-read the load if ``interval`` has passed; returns the torch threads now."""
        if not self.active:
            return torch.get_num_threads()
        now = time.monotonic()
        if self._last is not None and now - self._last[0] < self.interval:
            return torch.get_num_threads()
        try:
            busy, ours = self.busy_seconds(), self.own_seconds()
        except (OSError, psutil.Error) as err:  # no CPU counters here (an unusual container)
            self.active = False
            warnings.warn(
                f"Torch threads stay at {torch.get_num_threads()}: this machine's CPU counters "
                f"cannot be read ({err}); set --torch-threads (master_torch_threads) to choose.",
                RuntimeWarning,
                stacklevel=2,
            )
            return torch.get_num_threads()
        if self._last is not None:
            elapsed = now - self._last[0]
            others = max(0.0, (busy - self._last[1]) - (ours - self._last[2])) / elapsed
            threads = self.threads_for(others)
            if threads != torch.get_num_threads():
                torch.set_num_threads(threads)
        self._last = (now, busy, ours)
        return torch.get_num_threads()

    def threads_for(self, others: float) -> int:
        """Threads when other processes keep ``others`` CPUs busy (a quarter CPU of slack)."""
        return max(1, min(self.most, int(len(self.cpus) - others + 0.25)))

    def busy_seconds(self) -> float:
        """CPU seconds the process's CPUs have spent busy (not idle or waiting for I/O)."""
        per_cpu = psutil.cpu_times(percpu=True)
        total = 0.0
        for cpu in self.cpus:
            if cpu < len(per_cpu):
                t = per_cpu[cpu]
                total += sum(getattr(t, f, 0.0) for f in ("user", "nice", "system", "irq"))
                total += getattr(t, "softirq", 0.0) + getattr(t, "steal", 0.0)
        return total

    @staticmethod
    def own_seconds() -> float:
        """CPU seconds of this process and its live children (sampler workers, AsyncRl's)."""
        process = psutil.Process()
        total = sum(process.cpu_times()[:2])
        for child in process.children(recursive=True):
            try:
                total += sum(child.cpu_times()[:2])
            except psutil.Error:
                pass  # ended meanwhile
        return total
