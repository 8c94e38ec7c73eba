"""How many torch threads a process of a run uses, decided from what the process really has.

Part of the launching box. Every process that runs torch calls :func:`set_torch_threads` with
a :class:`ThreadDecision` from :func:`decide_torch_threads`: the training process (MinibatchRl's
master, each SyncRl rank, AsyncRl's optimizer) once its agent is built, sampler workers and
AsyncRl's sampler and memory copiers at their start. The runners log the decision and its reason
in their start-up line.

What the decision rests on (measured on 2 cores, idle and beside one busy process; the figures
are in docs/samplers.md, "On a shared machine"):

- **The model.** MLPs of the classic and MuJoCo sizes (64x64 to 1024x1024, batches of 64-256)
  train fastest on one intra-op thread even on an idle machine: their ops last microseconds, and
  handing each one to a second thread costs more than it saves. Convolutional models (Atari) gain
  about 1.5x per added core on an idle machine. So a process gets more than one thread only when
  its model has a convolution or recurrent layer or at least :data:`HEAVY_PARAMETERS` parameters.
- **The CPUs.** Never more threads than CPUs the process may run on (its pinned set, else the
  run's allowed set), less the CPUs that processes running beside it at the same time keep busy
  (AsyncRl's sampler beside its optimizer, the other ranks of a SyncRl run).
- **The wait policy.** Between ops, OpenMP's idle threads spin for a while by default; beside a
  competing process the spinning thread takes the core the competitor needs, and the thread that
  has work waits for a core: a two-thread update ran at a third of its one-thread speed. Importing
  rlpyt sets ``OMP_WAIT_POLICY=PASSIVE`` (unless already set), so idle threads sleep; this takes
  effect only where torch is imported after rlpyt (OpenMP reads it when torch loads), and always
  in worker processes started by spawn or forkserver. :func:`openmp_wait_policy` says which.

An explicit thread count (the affinity's ``master_torch_threads``, ``worker_torch_threads``, an
AsyncRl optimizer's ``torch_threads``; ``rlpyt train --torch-threads N``) is used as given, capped
at the CPUs the process may use.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import torch

from rlpyt.utils.launching.cpus import allowed_cpus

HEAVY_PARAMETERS = 1_000_000
HEAVY_LAYERS = (
    torch.nn.modules.conv._ConvNd,
    torch.nn.modules.rnn.RNNBase,
)


@dataclass(frozen=True)
class ThreadDecision:
    """The torch intra-op threads of one process and why.

    Attributes:
        threads: Intra-op threads (``torch.set_num_threads``); inter-op threads are always one.
        reason: Why, in words, for the start-up line.
    """

    threads: int
    reason: str

    def describe(self) -> str:
        """``"1 (reason)"``, as the start-up lines print it."""
        return f"{self.threads} ({self.reason})"


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


def heavy_model(modules: Iterable[torch.nn.Module]) -> tuple[bool, str]:
    """Whether intra-op threads pay for these models, and a short description of them.

    Returns:
        ``(True, "a convolutional model")`` when any module has a convolution or recurrent
        layer or they hold :data:`HEAVY_PARAMETERS` parameters or more; else ``(False, ...)``
        naming the parameter count.
    """
    modules = list(modules)
    n_params = sum(p.numel() for m in modules for p in m.parameters())
    for module in modules:
        for layer in module.modules():
            if isinstance(layer, HEAVY_LAYERS):
                return True, f"its model has a {type(layer).__name__} layer"
    if n_params >= HEAVY_PARAMETERS:
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
    heavy, what = heavy_model(modules)
    if not heavy:
        return ThreadDecision(1, what)
    share = max(1, n_cpus - max(0, busy_beside))
    beside = f", {busy_beside} kept busy beside it" if busy_beside else ""
    return ThreadDecision(share, f"{what}; one per CPU it may use ({n_cpus}{beside})")


def set_torch_threads(decision: ThreadDecision) -> None:
    """Apply a decision: intra-op threads, and one inter-op thread where torch still allows it."""
    torch.set_num_threads(decision.threads)
    if torch.get_num_interop_threads() != 1:
        try:
            torch.set_num_interop_threads(1)
        except RuntimeError:
            pass  # inter-op work already started in this process; its pool stays as it is


def openmp_wait_policy() -> str:
    """How OpenMP's idle threads wait in this process, in words, for the start-up line."""
    import rlpyt  # noqa: PLC0415 (the package records the policy when it is imported)

    policy = (rlpyt.OPENMP_WAIT_POLICY or "").upper()
    if policy == "PASSIVE":
        return "idle OpenMP threads sleep (OMP_WAIT_POLICY=PASSIVE)"
    if policy:
        return f"OMP_WAIT_POLICY={policy}"
    return (
        "idle OpenMP threads spin (torch was imported before rlpyt; set OMP_WAIT_POLICY=PASSIVE "
        "for a busy machine)"
    )


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
