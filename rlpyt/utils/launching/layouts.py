"""Lay out one run's CPUs and GPUs from a decoded affinity code, in logical CPU numbers.

Part of the launching box; called only by :mod:`rlpyt.utils.launching.affinity`, which maps the
logical numbers onto the CPUs this process may use. The layout follows rlpyt's: the machine's
``cpu`` physical cores are cut into equal contiguous blocks, one per run slot, socket by socket
(socket ``s`` holds cores ``s * cores_per_socket ...``); a core's hyperthread is core ``+ hto``
(``hto == 0``: hyperthreads unused). Every impossible request raises :class:`AffinityError`
saying what was asked and what the layout allows.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from rlpyt.utils.collections import AttrDict


class AffinityError(ValueError):
    """An affinity request that cannot be laid out on the described (or this) machine."""


@dataclasses.dataclass(frozen=True)
class AffinityParams:
    """Decoded affinity code; field names are the code's three-letter abbreviations."""

    cpu: int
    gpu: int = 0
    cxg: int = 1
    gpr: int = 1
    cpr: int | None = None
    cpw: int = 1
    hto: int | None = None
    skt: int = 1
    res: int | None = None
    ass: int = 0
    sgr: int = 0
    oss: int = 0
    alt: int = 0
    saf: int = 1

    @property
    def async_reserved(self) -> int:
        """Cores reserved per optimizer in asynchronous runs; an absent ``res`` means 1."""
        return 1 if self.res is None else self.res

    @property
    def offset(self) -> int:
        """Hyperthread offset; an absent ``hto`` means siblings sit ``cpu`` CPUs higher."""
        return self.cpu if self.hto is None else self.hto

    @property
    def cores_per_socket(self) -> int:
        """Core numbers per socket (hyperthreads start at ``offset``)."""
        return max(self.cpu, self.offset) // self.skt


def with_hyperthreads(cores: Sequence[int], offset: int) -> tuple[int, ...]:
    """Cores followed by their hyperthread siblings (none when ``offset == 0``)."""
    cores = tuple(cores)
    return cores + (tuple(c + offset for c in cores) if offset > 0 else ())


def workers_cpus(cores: Sequence[int], cpw: int, offset: int, alternating: bool) -> tuple:
    """One CPU tuple per sampler worker: ``cpw`` cores each (plus their hyperthreads).

    Leftover cores that cannot make a whole worker are unused. Alternating samplers get two
    worker groups: the cores' tuples then the hyperthreads' tuples, or, without hyperthreads,
    the same tuples twice (two workers per core, one per group); the result has even length.
    """
    cores = tuple(cores)[: (len(cores) // cpw) * cpw]
    groups = tuple(cores[i : i + cpw] for i in range(0, len(cores), cpw))
    if offset > 0:
        siblings = tuple(tuple(c + offset for c in group) for group in groups)
        if alternating:
            return groups + siblings
        return tuple(g + s for g, s in zip(groups, siblings, strict=True))
    return groups + groups if alternating else groups


def sampler_affinity(
    cores: Sequence[int], worker_cores: Sequence[int], p: AffinityParams, cuda_idx: int | None
) -> AttrDict:
    """Single-process affinity (what MinibatchRl and samplers read)."""
    master_cpus = with_hyperthreads(cores, p.offset)
    return AttrDict(
        all_cpus=master_cpus,
        master_cpus=master_cpus,
        workers_cpus=workers_cpus(worker_cores, p.cpw, p.offset, bool(p.alt)),
        master_torch_threads=None,  # decided by the runner from its CPUs and model
        worker_torch_threads=p.cpw,
        cuda_idx=cuda_idx,
        alternating=bool(p.alt),
        set_affinity=bool(p.saf),
    )


def socket_groups(slot: int, n_slots: int, n_socket: int) -> list[tuple[int, int]]:
    """``(socket, position of the run within that socket)`` for each socket the run uses."""
    if n_slots >= n_socket:
        if n_slots % n_socket:
            raise AffinityError(
                f"{n_slots} run slots cannot be shared equally by n_socket={n_socket} sockets; "
                f"choose a slot count that is a multiple of n_socket, or pass n_socket=1."
            )
        per_socket = n_slots // n_socket
        return [(slot // per_socket, slot % per_socket)]
    if n_socket % n_slots:
        raise AffinityError(
            f"n_socket={n_socket} sockets cannot be split equally over {n_slots} run slots; "
            f"pass n_socket=1."
        )
    span = n_socket // n_slots
    return [(slot * span + s, 0) for s in range(span)]


def socket_block(socket: int, position: int, size: int, p: AffinityParams) -> list[int]:
    """The ``position``-th block of ``size`` consecutive cores in ``socket``."""
    low = socket * p.cores_per_socket + position * size
    return list(range(low, low + size))


def run_cores(slot: int, n_slots: int, cpr: int, p: AffinityParams) -> tuple[int, ...]:
    """The ``cpr`` physical cores of run ``slot``, taken equally from each socket it spans."""
    groups = socket_groups(slot, n_slots, p.skt)
    if cpr % len(groups):
        raise AffinityError(
            f"A run of {cpr} cores cannot be split equally over its {len(groups)} sockets; "
            f"pass n_socket=1."
        )
    per_group = cpr // len(groups)
    return tuple(c for s, i in groups for c in socket_block(s, i, per_group, p))


def check_slot(slot: int, n_slots: int, what: str) -> None:
    """Raise unless ``0 <= slot < n_slots``; ``what`` names the request that set ``n_slots``."""
    if not 0 <= slot < n_slots:
        raise AffinityError(
            f"Run slot {slot} requested, but {what} gives only {n_slots} run slot(s) "
            f"(slots 0..{n_slots - 1})."
        )


def cpu_affinity(slot: int, p: AffinityParams, cuda_idx: int | None = None) -> AttrDict:
    """CPU-only run (or one GPU context's CPU share): contiguous cores, workers after ``res``."""
    cpr = p.cpr or 1
    if cpr > p.cpu or p.cpu % cpr:
        raise AffinityError(
            f"cpu_per_run={cpr} must divide n_cpu_core={p.cpu} (runs get equal core blocks)."
        )
    check_slot(slot, p.cpu // cpr, f"n_cpu_core={p.cpu} with cpu_per_run={cpr}")
    cores = run_cores(slot, p.cpu // cpr, cpr, p)
    worker_cores = cores[p.res or 0 :]
    if len(worker_cores) % p.cpw:
        raise AffinityError(
            f"cpu_per_worker={p.cpw} does not divide the {len(worker_cores)} worker cores of a run "
            f"({cpr} cores per run minus cpu_reserved={p.res or 0})."
        )
    return sampler_affinity(cores, worker_cores, p, cuda_idx)


def gpu_affinity(slot: int, p: AffinityParams) -> AttrDict:
    """One GPU context per run slot; CPU cores split evenly over all contexts."""
    n_ctx = p.gpu * p.cxg
    check_slot(slot, n_ctx, f"n_gpu={p.gpu} with contexts_per_gpu={p.cxg}")
    if p.cpu % n_ctx:
        raise AffinityError(
            f"n_cpu_core={p.cpu} must be divisible by n_gpu * contexts_per_gpu = {n_ctx} "
            f"(each GPU context gets an equal block of cores)."
        )
    # Spread consecutive slots over GPUs first; a GPU's contexts get neighbouring core blocks.
    context = (slot % p.gpu) * p.cxg + slot // p.gpu
    return cpu_affinity(context, dataclasses.replace(p, cpr=p.cpu // n_ctx), context // p.cxg)


def multigpu_affinity(slot: int, p: AffinityParams) -> list[AttrDict]:
    """One single-GPU affinity per GPU of a synchronous multi-GPU (SyncRl) run."""
    check_slot(slot, p.gpu // p.gpr, f"n_gpu={p.gpu} with gpu_per_run={p.gpr}")
    one_context = dataclasses.replace(p, cxg=1)
    return [gpu_affinity(s, one_context) for s in range(slot * p.gpr, (slot + 1) * p.gpr)]


def multicpu_affinity(slot: int, p: AffinityParams) -> list[AttrDict]:
    """SyncRl on CPUs (``n_gpu=0``, ``gpu_per_run`` ranks): the run's cores in equal rank blocks."""
    cpr = p.cpr or 1
    if cpr % p.gpr:
        raise AffinityError(
            f"gpu_per_run={p.gpr} CPU ranks cannot share cpu_per_run={cpr} cores equally; "
            "make cpu_per_run a multiple of gpu_per_run."
        )
    check_slot(slot, p.cpu // cpr, f"n_cpu_core={p.cpu} with cpu_per_run={cpr}")
    rank_params = dataclasses.replace(p, cpr=cpr // p.gpr)
    return [cpu_affinity(slot * p.gpr + r, rank_params) for r in range(p.gpr)]


def async_cpu_affinity(slot: int, p: AffinityParams) -> AttrDict:
    """Asynchronous run without GPUs: optimizer on the first ``res`` cores, sampler on the rest."""
    if p.gpr != 1 or p.sgr:
        raise AffinityError(
            "Asynchronous sampling without GPUs takes one CPU optimizer and a CPU sampler; "
            f"got gpu_per_run={p.gpr}, sample_gpu_per_run={p.sgr} with n_gpu=0."
        )
    cpr = p.cpr or 1
    res = p.async_reserved
    if cpr > p.cpu or p.cpu % cpr:
        raise AffinityError(f"cpu_per_run={cpr} must divide n_cpu_core={p.cpu}.")
    check_slot(slot, p.cpu // cpr, f"n_cpu_core={p.cpu} with cpu_per_run={cpr}")
    cores = run_cores(slot, p.cpu // cpr, cpr, p)
    if len(cores) - res < p.cpw:
        raise AffinityError(
            f"An asynchronous run needs cpu_reserved={res} optimizer core(s) plus at least "
            f"cpu_per_worker={p.cpw} sampler core(s), but has cpu_per_run={cpr}."
        )
    optimizer = [_optimizer_entry(cores[:res], None, p)]
    sampler = sampler_affinity(cores[res:], cores[res:], p, None)
    return _async_record(optimizer, sampler, p)


def _optimizer_entry(cores: Sequence[int], cuda_idx: int | None, p: AffinityParams) -> dict:
    cpus = with_hyperthreads(cores, p.offset)
    return dict(cpus=cpus, cuda_idx=cuda_idx, torch_threads=None, set_affinity=bool(p.saf))


def _async_record(optimizer: list[dict], sampler: AttrDict | list, p: AffinityParams) -> AttrDict:
    samplers = sampler if isinstance(sampler, list) else [sampler]
    all_cpus = sum((o["cpus"] for o in optimizer), ()) + sum((s.all_cpus for s in samplers), ())
    return AttrDict(
        all_cpus=all_cpus, optimizer=optimizer, sampler=sampler, set_affinity=bool(p.saf)
    )


def _async_gpu_counts(p: AffinityParams) -> tuple[int, int, int]:
    """(sampler GPUs per run, GPUs per run, number of run slots) for async GPU runs."""
    sgr = p.gpr if p.oss else p.sgr
    gpus_per_run = p.gpr + (0 if p.oss else sgr)
    n_slots = p.gpu // gpus_per_run
    if n_slots < 1:
        raise AffinityError(
            f"An asynchronous run needs gpu_per_run + sample_gpu_per_run = {gpus_per_run} GPUs "
            f"but n_gpu={p.gpu}."
        )
    return sgr, gpus_per_run, n_slots


def _async_shares(slot: int, n_slots: int, cpr: int, sgr: int, p: AffinityParams) -> list:
    """``(optimizer GPUs, sampler GPUs, cores)`` per socket the run uses.

    Each socket gets an equal share of the run's GPUs and cores. Where they do not split
    equally, the run's GPUs and cores form one pool.
    """
    groups = socket_groups(slot, n_slots, p.skt)
    span = len(groups)
    per_group = cpr // span
    group_cores = [socket_block(s, i, per_group, p) for s, i in groups]
    gpus_per_run = p.gpr + (0 if p.oss else sgr)
    if p.gpu % p.skt or p.gpr % span or sgr % span or cpr % span:
        gpus = list(range(slot * gpus_per_run, (slot + 1) * gpus_per_run))
        return [(*_split_gpus(gpus, p.gpr, p.oss), sum(group_cores, []))]
    gpus_per_group = gpus_per_run // span
    shares = []
    for (socket, position), cores in zip(groups, group_cores, strict=True):
        low = socket * (p.gpu // p.skt) + position * gpus_per_group
        gpus = list(range(low, low + gpus_per_group))
        shares.append((*_split_gpus(gpus, p.gpr // span, p.oss), cores))
    return shares


def _split_gpus(gpus: list[int], n_optimizer: int, share: int) -> tuple[list[int], list[int]]:
    """First ``n_optimizer`` GPUs optimize; the rest sample (or the same ones, when shared)."""
    optimizer_gpus = gpus[:n_optimizer]
    return optimizer_gpus, (optimizer_gpus if share else gpus[n_optimizer:])


def async_gpu_affinity(slot: int, p: AffinityParams) -> AttrDict:
    """Asynchronous run: optimizer GPU(s) with ``res`` reserved cores each, then sampling.

    Sampler GPUs (``sgr``, or the optimizer's own with ``oss``) split the remaining cores of the
    run; with ``sgr == 0`` one CPU sampler takes them all. A run spanning several sockets takes
    an equal share of its GPUs and cores from each (when they split equally).
    """
    sgr, gpus_per_run, n_slots = _async_gpu_counts(p)
    check_slot(slot, n_slots, f"n_gpu={p.gpu} with {gpus_per_run} GPUs per asynchronous run")
    cpr = p.cpu // n_slots
    optimizer: list[dict] = []
    samplers: list[AttrDict] = []
    free_cores: list[int] = []
    for opt_gpus, smp_gpus, cores in _async_shares(slot, n_slots, cpr, sgr, p):
        opt, smp, free = _share_entries(opt_gpus, smp_gpus if sgr else [], cores, cpr, p)
        optimizer += opt
        samplers += smp
        free_cores += free
    if sgr:
        return _async_record(optimizer, samplers, p)
    _check_sampler_cores(len(free_cores), cpr, p)
    return _async_record(optimizer, sampler_affinity(free_cores, free_cores, p, None), p)


def _share_entries(
    opt_gpus: list[int], smp_gpus: list[int], cores: list[int], cpr: int, p: AffinityParams
) -> tuple[list[dict], list[AttrDict], list[int]]:
    """Optimizer entries on the first cores, sampler entries splitting the rest (or free cores)."""
    res = p.async_reserved
    optimizer = [
        _optimizer_entry(cores[j * res : (j + 1) * res], gpu, p) for j, gpu in enumerate(opt_gpus)
    ]
    free = cores[len(opt_gpus) * res :]
    if not smp_gpus:
        return optimizer, [], free
    per_gpu = len(free) // len(smp_gpus)
    _check_sampler_cores(per_gpu, cpr, p)
    samplers = []
    for i, gpu in enumerate(smp_gpus):
        smp_cores = free[i * per_gpu : (i + 1) * per_gpu]
        samplers.append(sampler_affinity(smp_cores, smp_cores, p, gpu))
    return optimizer, samplers, []


def _check_sampler_cores(n_cores: int, cpr: int, p: AffinityParams) -> None:
    if n_cores < p.cpw:
        raise AffinityError(
            f"An asynchronous run has {cpr} cores; after cpu_reserved={p.async_reserved}"
            f" per optimizer GPU (gpu_per_run={p.gpr}) a sampler gets {n_cores} core(s), fewer "
            f"than cpu_per_worker={p.cpw}. Use more cores per run or fewer GPUs per run."
        )
