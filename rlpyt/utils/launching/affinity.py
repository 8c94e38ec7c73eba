"""Affinity codes: one string saying which CPUs and GPUs each run of a sweep may use.

Part of the launching box. A launch script writes the machine's resources once with
:func:`encode_affinity` (e.g. ``"12cpu_2gpu_24hto_2skt_1ass_1sgr"``); the launcher
(:func:`rlpyt.utils.launching.exp_launcher.run_experiments`) counts run slots with
:func:`get_n_run_slots` and hands each run its slot code (``prepend_run_slot``); the train script
turns that into the structure its runner reads with :func:`affinity_from_code`:

- single-process runners (``MinibatchRl``): an ``AttrDict`` with ``cuda_idx`` (None on CPU),
  ``master_cpus``, ``workers_cpus`` (one CPU tuple per sampler worker; its length is the number
  of workers), ``master_torch_threads``, ``worker_torch_threads``, ``alternating``,
  ``set_affinity`` and ``all_cpus`` (everything the run may touch, for ``taskset``); GPU layouts
  add ``keep_master_core`` (see :func:`master_core_affinity`);
- ``SyncRl``: a list of those, one per GPU (or per CPU rank when ``n_gpu=0``);
- ``AsyncRl``: an ``AttrDict`` with ``all_cpus``, ``optimizer`` (list of dicts with ``cpus``,
  ``cuda_idx``, ``torch_threads``, ``set_affinity``), ``sampler`` (one single-process affinity,
  or a list of them, one per sampler GPU) and ``set_affinity``.

A code is ``_``-joined ``<int><abbreviation>`` tokens (table in :data:`ABBREVIATIONS`); tokens at
their default are left out. CPU numbers in the code are logical: logical CPU ``i`` is the
``i``-th CPU this process may use (:func:`rlpyt.utils.launching.cpus.allowed_cpus`), so codes
work unchanged inside cgroup or Slurm cpusets.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from rlpyt.utils.collections import AttrDict
from rlpyt.utils.launching.cpus import (
    allowed_cpus,
    detect_hyperthread_offset,
    detect_n_socket,
    set_cpu_affinity,
)
from rlpyt.utils.launching.layouts import (
    AffinityError,
    AffinityParams,
    async_cpu_affinity,
    async_gpu_affinity,
    cpu_affinity,
    gpu_affinity,
    multicpu_affinity,
    multigpu_affinity,
)

__all__ = [
    "ABBREVIATIONS",
    "AffinityError",
    "affinity_from_code",
    "decode_affinity",
    "encode_affinity",
    "get_n_run_slots",
    "make_affinity",
    "master_core_affinity",
    "prepend_run_slot",
    "quick_affinity_code",
    "remove_run_slot",
    "set_cpu_affinity",
    "validate_affinity",
]

RUN_SLOT = "slt"
# encode_affinity keyword -> code abbreviation, in the order tokens are written.
ABBREVIATIONS = {
    "n_cpu_core": "cpu",
    "n_gpu": "gpu",
    "contexts_per_gpu": "cxg",
    "gpu_per_run": "gpr",
    "cpu_per_run": "cpr",
    "cpu_per_worker": "cpw",
    "hyperthread_offset": "hto",
    "n_socket": "skt",
    "cpu_reserved": "res",
    "async_sample": "ass",
    "sample_gpu_per_run": "sgr",
    "optim_sample_share_gpu": "oss",
    "alternating": "alt",
    "set_affinity": "saf",
}
# Tokens left out of a code when at these values (cpu, gpu, cpr and hto have their own rules).
_TOKEN_DEFAULTS = dict(cxg=1, gpr=1, cpw=1, skt=1, res=0, ass=0, sgr=0, oss=0, alt=0, saf=1)
_MINIMUMS = dict(cpu=1, gpu=0, cxg=1, gpr=1, cpr=1, cpw=1, hto=0, skt=1, res=0, sgr=0)


def encode_affinity(
    n_cpu_core: int = 1,
    n_gpu: int = 0,
    contexts_per_gpu: int = 1,
    gpu_per_run: int = 1,
    cpu_per_run: int = 1,
    cpu_per_worker: int = 1,
    cpu_reserved: int = 0,
    hyperthread_offset: int | None = None,
    n_socket: int | None = None,
    run_slot: int | None = None,
    async_sample: bool = False,
    sample_gpu_per_run: int = 0,
    optim_sample_share_gpu: bool = False,
    alternating: bool = False,
    set_affinity: bool = True,
) -> str:
    """Write the machine resources a sweep may use as an affinity code (use in launch scripts).

    Args:
        n_cpu_core: physical cores to use (hyperthreads are not counted).
        n_gpu: GPUs to use; 0 for CPU-only runs.
        contexts_per_gpu: runs sharing one GPU (e.g. 2 puts two runs per GPU).
        gpu_per_run: GPUs per run, >1 for synchronous multi-GPU (SyncRl) or async optimizers;
            with ``n_gpu=0``, the CPU ranks of a SyncRl run (``cpu_per_run`` split equally).
        cpu_per_run: cores per run when ``n_gpu == 0``. A CPU-only asynchronous run needs an
            optimizer core and a sampler core, so there the default 1 means all ``n_cpu_core``
            cores.
        cpu_per_worker: cores per sampler worker (1 unless the env is multi-threaded).
        cpu_reserved: cores per run kept from sampler workers (async runs default to 1).
        hyperthread_offset: logical distance from a core to its hyperthread; 0 turns
            hyperthreads off; None detects it (see ``cpus.detect_hyperthread_offset``).
        n_socket: CPU sockets; None detects it (1 where unknown).
        run_slot: prepend this run slot (as ``make_affinity`` does); None in launch scripts.
        async_sample: asynchronous sampling/optimization (AsyncRl runners).
        sample_gpu_per_run: GPUs per run for async sampling (0: CPU sampler).
        optim_sample_share_gpu: async sampler uses the optimizer's GPU(s).
        alternating: layout for alternating samplers (two worker groups).
        set_affinity: False leaves every process unpinned (CPUs are then bookkeeping only).

    Returns:
        The code, e.g. ``"2cpu_0gpu_1cpr_0hto"``; tokens at their default are omitted (``hto``
        when equal to ``n_cpu_core``, ``cpr`` when GPUs are used, ``saf`` unless False).

    Raises:
        AffinityError: the request cannot be laid out (e.g. ``cpu_per_run > n_cpu_core``).
    """
    if hyperthread_offset is None:
        hyperthread_offset = detect_hyperthread_offset()
    if n_socket is None:
        n_socket = detect_n_socket()
    if async_sample and n_gpu == 0 and cpu_per_run == 1:
        cpu_per_run = n_cpu_core  # one core cannot hold both the optimizer and the sampler
    keywords = dict(
        n_cpu_core=n_cpu_core,
        n_gpu=n_gpu,
        contexts_per_gpu=contexts_per_gpu,
        gpu_per_run=gpu_per_run,
        cpu_per_run=cpu_per_run,
        cpu_per_worker=cpu_per_worker,
        hyperthread_offset=hyperthread_offset,
        n_socket=n_socket,
        cpu_reserved=cpu_reserved,
        async_sample=async_sample,
        sample_gpu_per_run=sample_gpu_per_run,
        optim_sample_share_gpu=optim_sample_share_gpu,
        alternating=alternating,
        set_affinity=set_affinity,
    )
    values = {ABBREVIATIONS[k]: int(v) for k, v in keywords.items()}
    _check_values(values)
    code = "_".join(f"{v}{abbr}" for abbr, v in values.items() if _is_written(abbr, values))
    _build_logical(0 if run_slot is None else run_slot, code)  # Fail here, not in the runs.
    return code if run_slot is None else prepend_run_slot(run_slot, code)


def _is_written(abbr: str, values: dict[str, int]) -> bool:
    if abbr in ("cpu", "gpu"):
        return True
    if abbr == "cpr":
        return values["gpu"] == 0
    if abbr == "hto":
        return values["hto"] != values["cpu"]
    return values[abbr] != _TOKEN_DEFAULTS[abbr]


def _check_values(values: dict[str, int]) -> None:
    for abbr, minimum in _MINIMUMS.items():
        if values[abbr] < minimum:
            keyword = next(k for k, a in ABBREVIATIONS.items() if a == abbr)
            raise AffinityError(f"{keyword}={values[abbr]} must be at least {minimum}.")
    if values["gpu"] == 0 and values["cpr"] > values["cpu"]:
        raise AffinityError(
            f"cpu_per_run={values['cpr']} asks for more cores per run than "
            f"n_cpu_core={values['cpu']}."
        )
    if values["gpr"] > 1 and values["cxg"] > 1:
        raise AffinityError(
            f"gpu_per_run={values['gpr']} with contexts_per_gpu={values['cxg']} is not "
            f"supported: multi-GPU runs take whole GPUs."
        )


def prepend_run_slot(run_slot: int, affinity_code: str) -> str:
    """Mark ``affinity_code`` with the run slot it is for (done by the launcher)."""
    return f"{run_slot}{RUN_SLOT}_{affinity_code}"


def remove_run_slot(run_slot_affinity_code: str) -> tuple[int, str]:
    """Split ``"<slot>slt_<code>"`` into ``(slot, code)``."""
    first, _, rest = run_slot_affinity_code.partition("_")
    if not first.endswith(RUN_SLOT) or not first[: -len(RUN_SLOT)].isdigit():
        raise AffinityError(
            f"Affinity code {run_slot_affinity_code!r} does not start with a run slot "
            f"('<n>slt_'); build it with prepend_run_slot() or make_affinity(run_slot=...)."
        )
    return int(first[: -len(RUN_SLOT)]), rest


def decode_affinity(affinity_code: str) -> dict[str, int]:
    """Read a code (without run slot) into ``{abbreviation: value}``."""
    known = set(ABBREVIATIONS.values())
    decoded = {}
    for token in affinity_code.split("_"):
        abbr, number = token[-3:], token[:-3]
        if abbr not in known or not number.isdigit():
            raise AffinityError(
                f"Bad token {token!r} in affinity code {affinity_code!r}: expected "
                f"'<int><abbreviation>' with an abbreviation among {sorted(known)}."
            )
        decoded[abbr] = int(number)
    if "cpu" not in decoded:
        raise AffinityError(f"Affinity code {affinity_code!r} lacks the 'cpu' token.")
    return decoded


def get_n_run_slots(affinity_code: str) -> int:
    """How many runs of this code fit on the machine at once (the launcher's concurrency)."""
    if affinity_code.split("_", 1)[0].endswith(RUN_SLOT):
        affinity_code = remove_run_slot(affinity_code)[1]
    p = AffinityParams(**decode_affinity(affinity_code))
    if p.gpu == 0:
        return p.cpu // (p.cpr or 1)
    if p.ass:
        return p.gpu // (p.gpr + p.sgr * (1 - p.oss))
    return (p.gpu * p.cxg) // p.gpr


def _build_logical(run_slot: int, affinity_code: str) -> AttrDict | list[AttrDict]:
    """Lay out ``run_slot`` of ``affinity_code`` in logical CPU numbers."""
    p = AffinityParams(**decode_affinity(affinity_code))
    if p.ass:
        return async_gpu_affinity(run_slot, p) if p.gpu else async_cpu_affinity(run_slot, p)
    if p.gpu == 0:
        return multicpu_affinity(run_slot, p) if p.gpr > 1 else cpu_affinity(run_slot, p)
    affinity = multigpu_affinity(run_slot, p) if p.gpr > 1 else gpu_affinity(run_slot, p)
    for rank_affinity in _as_list(affinity):
        # Without a cpu_reserved token the layout puts workers on every core; samplers whose
        # master serves the agent on the GPU then leave it one (see master_core_affinity).
        rank_affinity.keep_master_core = p.res is None
    return affinity


def affinity_from_code(run_slot_affinity_code: str) -> AttrDict | list[AttrDict]:
    """Build the affinity structure a runner takes from a slot code (use in train scripts).

    Args:
        run_slot_affinity_code: ``"<slot>slt_<code>"``, the first command-line argument the
            launcher gives a train script.

    Returns:
        An ``AttrDict`` (single-process or async runners) or a list of them (``SyncRl``), with
        OS CPU numbers: logical CPU ``i`` becomes ``allowed_cpus()[i]``. With ``set_affinity``
        off, CPU numbers stay logical and are not checked against the machine.

    Raises:
        AffinityError: bad code, run slot beyond the code's slots, more CPUs than this process
            may use, or (when torch is already imported) a GPU index torch does not see.
    """
    run_slot, code = remove_run_slot(run_slot_affinity_code)
    affinity = _build_logical(run_slot, code)
    _check_gpus(affinity, run_slot_affinity_code)
    if not _wants_pinning(affinity):
        return affinity
    cpus = allowed_cpus()
    needed = max(max(a.all_cpus) for a in _as_list(affinity)) + 1
    if needed > len(cpus):
        raise AffinityError(
            f"Affinity code {run_slot_affinity_code!r} needs {needed} CPUs (logical "
            f"0..{needed - 1}, hyperthreads included) but this process may use {len(cpus)}: "
            f"{list(cpus)}. Lower n_cpu_core / cpu_per_run, set hyperthread_offset=0, or pass "
            f"set_affinity=False."
        )
    return _to_os_cpus(affinity, cpus)


def make_affinity(run_slot: int = 0, **kwargs) -> AttrDict | list[AttrDict]:
    """``affinity_from_code(encode_affinity(run_slot=run_slot, **kwargs))`` in one call."""
    return affinity_from_code(encode_affinity(run_slot=run_slot, **kwargs))


def master_core_affinity(affinity: dict, cpus: Sequence[int]) -> dict:
    """The affinity of a sampler whose master runs the agent on a GPU: one core left to it.

    A GPU sampler's master runs a batched forward per time step while the workers step their
    envs; with one worker on every core the master's forward waits for a core, and so does
    every worker waiting for it. So when ``cuda_idx`` is set, the workers of one core are
    dropped (pure function; the affinity is not changed in place):

    - ``workers_cpus`` from an affinity code (``keep_master_core`` True: a GPU layout without
      ``cpu_reserved``): the last entry, or for ``alternating`` layouts (two equal groups of
      entries, a core's two workers at the same position in each) the last entry of each group;
    - no ``workers_cpus`` (one unpinned worker per CPU by default): one worker per CPU but one
      (an even number of them for ``alternating``), unpinned.

    An explicit ``workers_cpus`` (no ``keep_master_core``) is used as given, and so is a layout
    that would keep fewer than one worker (two for ``alternating``).

    Args:
        affinity: The sampler's affinity (``cuda_idx``, ``workers_cpus``, ``alternating``,
            ``keep_master_core``, ...).
        cpus: The CPUs this process may use (``cpus.allowed_cpus()``).

    Returns:
        The affinity to run with: ``affinity`` itself, or a copy with new ``workers_cpus``.
    """
    if affinity.get("cuda_idx") is None:
        return affinity
    alternating = bool(affinity.get("alternating"))
    workers = affinity.get("workers_cpus")
    if workers:
        if not affinity.get("keep_master_core"):
            return affinity
        kept = _without_last_core(list(workers), alternating)
    else:
        n_worker = len(cpus) - 1
        kept = list(cpus)[: n_worker - n_worker % 2 if alternating else n_worker]
        affinity = dict(affinity, set_affinity=False)  # workers stay unpinned
    if len(kept) < (2 if alternating else 1):
        return affinity
    return dict(affinity, workers_cpus=kept, keep_master_core=False)


def _without_last_core(workers: list, alternating: bool) -> list:
    if not alternating:
        return workers[:-1]
    half = len(workers) // 2
    return workers[: half - 1] + workers[half:-1]


def _as_list(affinity: AttrDict | list[AttrDict]) -> list[AttrDict]:
    return affinity if isinstance(affinity, list) else [affinity]


def _wants_pinning(affinity: AttrDict | list[AttrDict]) -> bool:
    return all(a.set_affinity for a in _as_list(affinity))


def _to_os_cpus(node, cpus: tuple[int, ...]):
    """Copy of an affinity structure with logical CPU numbers replaced by ``cpus[i]``."""
    if isinstance(node, list):
        return [_to_os_cpus(item, cpus) for item in node]
    out = type(node)(node)
    for key, value in node.items():
        if key in ("all_cpus", "master_cpus", "cpus"):
            out[key] = tuple(cpus[c] for c in value)
        elif key == "workers_cpus":
            out[key] = tuple(tuple(cpus[c] for c in worker) for worker in value)
        elif key in ("optimizer", "sampler"):
            out[key] = _to_os_cpus(value, cpus)
    return out


def _cuda_indexes(node) -> list[int]:
    if isinstance(node, list):
        return [i for item in node for i in _cuda_indexes(item)]
    found = [node["cuda_idx"]] if node.get("cuda_idx") is not None else []
    for key in ("optimizer", "sampler"):
        if key in node:
            found += _cuda_indexes(node[key])
    return found


def _visible_gpu_count() -> int | None:
    """CUDA devices torch sees, or None when torch is not imported yet (too costly to check)."""
    torch = sys.modules.get("torch")
    if torch is None:
        return None
    try:
        return int(torch.cuda.device_count())
    except Exception:  # A broken CUDA install must not block CPU-side bookkeeping.
        return None


def _check_gpus(affinity: AttrDict | list[AttrDict], code: str) -> None:
    indexes = _cuda_indexes(affinity)
    if not indexes:
        return
    n_visible = _visible_gpu_count()
    if n_visible is not None and max(indexes) >= n_visible:
        raise AffinityError(
            f"Affinity code {code!r} puts this run on CUDA device {max(indexes)}, but torch sees "
            f"{n_visible} CUDA device(s). Lower n_gpu or check CUDA_VISIBLE_DEVICES."
        )


def quick_affinity_code(
    n_parallel: int | None = None, use_gpu: bool = True, contexts_per_gpu: int = 1
) -> str:
    """An affinity code using this machine's cores (and GPUs) for ``n_parallel`` runs.

    Args:
        n_parallel: concurrent runs; required without GPUs; with GPUs it caps the GPUs used.
        use_gpu: use the GPUs torch sees (imports torch).
        contexts_per_gpu: runs per GPU.

    Returns:
        A code for :func:`rlpyt.utils.launching.exp_launcher.run_experiments`.
    """
    hto = detect_hyperthread_offset()
    n_core = hto if hto > 0 else len(allowed_cpus())
    n_gpu = 0
    if use_gpu:
        import torch  # noqa: PLC0415 (importing torch costs seconds; only needed here)

        n_gpu = torch.cuda.device_count()
    if n_gpu > 0:
        n_gpu = min(n_gpu, n_parallel) if n_parallel else n_gpu
        n_slot, cpr = n_gpu * contexts_per_gpu, 1
    elif not n_parallel:
        raise AffinityError("quick_affinity_code needs n_parallel > 0 when no GPU is used.")
    else:
        n_slot = min(n_parallel, n_core)
        cpr = n_core // n_slot
    if n_core < n_slot:
        raise AffinityError(f"{n_slot} GPU contexts need at least {n_slot} cores; found {n_core}.")
    n_socket = detect_n_socket()
    n_socket = n_socket if n_slot % n_socket == 0 else 1
    return encode_affinity(
        n_cpu_core=(n_core // n_slot) * n_slot,
        n_gpu=n_gpu,
        contexts_per_gpu=contexts_per_gpu if n_gpu else 1,
        cpu_per_run=cpr,
        hyperthread_offset=hto,
        n_socket=n_socket,
    )


def validate_affinity(affinity: dict) -> None:
    """Check a hand-written single-process affinity dict before a sampler uses it.

    Runners accept partial dicts such as ``dict(cuda_idx=0, workers_cpus=list(range(4)))``;
    this checks what samplers rely on: ``workers_cpus`` entries are CPU numbers or tuples of
    them, and alternating samplers get a non-empty, even number of workers (two equal groups).

    Raises:
        AffinityError: naming the offending key and value.
    """
    workers = affinity.get("workers_cpus", ())
    for worker in workers:
        cpus = (worker,) if isinstance(worker, int) else worker
        if not all(isinstance(c, int) and c >= 0 for c in cpus):
            raise AffinityError(f"workers_cpus entry {worker!r} is not a CPU number or tuple.")
    if affinity.get("alternating") and (len(workers) == 0 or len(workers) % 2):
        raise AffinityError(
            f"alternating=True needs an even, non-zero number of workers (two equal groups), "
            f"but workers_cpus has {len(workers)} entries: {list(workers)}."
        )
