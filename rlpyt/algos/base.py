"""RlAlgorithm: the interface between the runner and an optimization procedure.

Box: Algorithm. Runners call ``initialize`` once (synchronous runners) or ``async_initialize``
and ``optim_initialize`` (asynchronous runners), then ``optimize_agent`` every iteration. The
class attributes below are the defaults a runner reads directly (no ``getattr`` probes):
subclasses override the ones that apply to them.
"""

from __future__ import annotations

import inspect
from collections import namedtuple
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple, cast

import torch

from rlpyt.utils.buffer import buffer_func
from rlpyt.utils.hyperparams import Hyperparams

if TYPE_CHECKING:
    from rlpyt.protocols import Agent
    from rlpyt.utils.buffer import ArrayTree
    from rlpyt.utils.collections import AttrDict
    from rlpyt.utils.records import BatchSpec, Samples


PIN_MIN_BYTES = 1 << 16  # host batches from this size on are pinned before a CUDA copy


def batch_to_device(batch: ArrayTree, device: torch.device | None) -> Any:
    """A training batch (a tree of tensors) on ``device``, in one call per seam.

    The CPU needs no move: the batch comes back as it is, without walking it. Towards CUDA, a
    batch of at least ``PIN_MIN_BYTES`` host bytes goes through pinned memory (torch's caching
    host allocator reuses the pinned blocks and keeps each one until its copy has finished),
    and every copy is non-blocking: the host goes on drawing while the copies run, in stream
    order before the update that reads them. Smaller batches cost more to pin than to copy.

    Args:
        batch: A (nested) namedarraytuple of tensors (``None`` fields pass), e.g. a replay
            minibatch with ``[batch_size]`` or ``[T, B]`` leading dims.
        device: Where the agent's models live; None or the CPU: no move.

    Returns:
        The same structure with every tensor on ``device``.
    """
    if device is None or device.type == "cpu":
        return batch
    pin = device.type == "cuda" and _host_bytes(batch) >= PIN_MIN_BYTES

    def leaf(x: object) -> object:
        if not isinstance(x, torch.Tensor):
            return x
        if pin and x.device.type == "cpu" and not x.is_pinned():
            x = x.pin_memory()
        return x.to(device, non_blocking=True)

    return buffer_func(batch, leaf)


def _host_bytes(batch: ArrayTree) -> int:
    total = 0

    def count(x: object) -> object:
        nonlocal total
        if isinstance(x, torch.Tensor) and x.device.type == "cpu":
            total += x.numel() * x.element_size()
        return x

    buffer_func(batch, count)
    return total


def make_optimizer(
    OptimCls: Callable[..., torch.optim.Optimizer],  # noqa: N803
    params: list[torch.Tensor],
    learning_rate: float,
    optim_kwargs: dict,
) -> torch.optim.Optimizer:
    """``OptimCls(params, lr=learning_rate, **optim_kwargs)`` with the fastest implementation.

    Unless ``optim_kwargs`` chooses (``foreach`` or ``fused``), asks for torch's fused kernel
    where the optimizer has one for these parameters (Adam, AdamW, SGD, Adagrad on CPU and
    CUDA), else for the multi-tensor ("foreach") update. torch picks neither on the CPU by
    default, and for the small models of RL its per-parameter loop costs more than the maths
    (a fused Adam step is about a third of a foreach one, a fifth of the loop). The update rule
    is the same; only floating-point rounding may differ.
    """
    chosen = "foreach" in optim_kwargs or "fused" in optim_kwargs
    accepted = inspect.signature(OptimCls).parameters
    if not chosen and "fused" in accepted:
        try:
            return OptimCls(params, lr=learning_rate, **optim_kwargs, fused=True)
        except (RuntimeError, ValueError, TypeError):
            pass  # no fused kernel for these parameters' device or dtype
    return OptimCls(params, lr=learning_rate, **with_foreach(OptimCls, optim_kwargs))


def with_foreach(
    OptimCls: Callable[..., torch.optim.Optimizer],  # noqa: N803
    optim_kwargs: dict[str, Any],
) -> dict[str, Any]:
    """``optim_kwargs`` plus ``foreach=True`` where the optimizer takes it and nobody chose.

    torch uses its multi-tensor ("foreach") update only on CUDA by default; on the CPU the
    per-parameter loop costs more than the maths for the small models of RL (about half of an
    Adam step here). The update is the same.
    """
    if "foreach" in optim_kwargs or "foreach" not in inspect.signature(OptimCls).parameters:
        return optim_kwargs
    return {**optim_kwargs, "foreach": True}


class MaskedRecord(NamedTuple):
    """An OptInfo record whose entries are chosen on the host: ``values[mask][::stride]``.

    Selecting with a mask on the device would size its output from the data (a wait for the
    device); :func:`opt_info_from` copies ``values`` and ``mask`` with the other records and
    selects on the host.

    Attributes:
        values: Any shape, on the device.
        mask: ``values``' shape, bool.
        stride: Keep every ``stride``-th selected entry (row-major order).
    """

    values: torch.Tensor
    mask: torch.Tensor
    stride: int = 1


Record = torch.Tensor | MaskedRecord


def opt_info_from(opt_info_cls: Any, records: Mapping[str, Sequence[Record]]) -> Any:
    """``opt_info_cls`` of Python float lists from per-update tensors, in one copy to the host.

    The updates keep their diagnostics as tensors (0-dim or ``[n]``, on the device); here all
    fields' tensors go to the host together (one copy per device they are on), once per call,
    so no update waits on a device-to-host copy.

    Args:
        opt_info_cls: An OptInfo namedtuple class.
        records: Field -> the tensors (or :class:`MaskedRecord`) the updates recorded (missing
            or empty: ``[]``).
    """
    fields = opt_info_cls._fields
    flat: list[torch.Tensor] = []
    for field in fields:
        for record in records.get(field, ()):
            if isinstance(record, MaskedRecord):
                flat += [record.values.detach(), record.mask]
            else:
                flat.append(torch.as_tensor(record).detach())
    host = iter(_to_host(flat))
    values: dict[str, list[float]] = {}
    for field in fields:
        parts = []
        for record in records.get(field, ()):
            part = next(host)
            if isinstance(record, MaskedRecord):
                mask = next(host).reshape(record.mask.shape).bool()
                part = part.reshape(record.values.shape)[mask][:: record.stride]
            parts.append(part.reshape(-1))
        values[field] = torch.cat(parts).tolist() if parts else []
    return opt_info_cls(**values)


def _to_host(tensors: list[torch.Tensor]) -> list[torch.Tensor]:
    """``tensors`` on the host, each in its own dtype: one copy per device they come from."""
    out: list[torch.Tensor | None] = [t if t.device.type == "cpu" else None for t in tensors]
    on_devices: dict[torch.device, list[int]] = {}
    for i, tensor in enumerate(tensors):
        if out[i] is None:
            on_devices.setdefault(tensor.device, []).append(i)
    for indexes in on_devices.values():
        # One float64 buffer: it holds float32, bool and integer values (to 2**53) exactly.
        joined = torch.cat([tensors[i].reshape(-1).double() for i in indexes]).cpu()
        sizes = [tensors[i].numel() for i in indexes]
        for i, part in zip(indexes, joined.split(sizes), strict=True):
            out[i] = part.to(tensors[i].dtype)
    return cast(list[torch.Tensor], out)


class RlAlgorithm(Hyperparams):
    """Base of all algorithms.

    Hyperparameters are declared in the class bodies with
    :func:`rlpyt.utils.hyperparams.hyperparam`; the constructor, its checks and the docstring's
    ``Args:`` table come from them.

    Class attributes (read by the runners; subclasses override what applies):
        OptInfoCls: The OptInfo namedtuple class ``optimize_agent`` returns. A subclass
            declares either it or ``opt_info_fields``; the other follows.
        opt_info_fields: Names of the OptInfo lists ``optimize_agent`` returns (logged as five
            statistics each).
        bootstrap_value: The sampler must record ``V(s_T)`` (policy gradients: True).
        discount: Discount of TrajInfo's ``DiscountedReturn`` (1.0 for algorithms without one).
        min_itr_learn: First iteration that trains (replay warm-up); evaluation is skipped
            before it (except at itr 0).
        update_counter: Gradient steps taken so far.
        batch_size: Samples per gradient step (replay-ratio diagnostics; 0 until set).
    """

    OptInfoCls: ClassVar[Any] = None
    opt_info_fields: tuple[str, ...] = ()
    bootstrap_value: bool = False
    discount: float = 1.0
    min_itr_learn: int = 0
    update_counter: int = 0
    batch_size: int = 0
    optimizer: torch.optim.Optimizer  # set by initialize / optim_initialize

    def __init_subclass__(cls, **kwargs: Any):
        super().__init_subclass__(**kwargs)
        own = vars(cls)
        if "OptInfoCls" in own and "opt_info_fields" not in own and cls.OptInfoCls is not None:
            cls.opt_info_fields = tuple(cls.OptInfoCls._fields)
        elif "opt_info_fields" in own and "OptInfoCls" not in own:
            # Picklable by name: <module>.<Class>.OptInfoCls.
            info_cls = namedtuple("OptInfo", cls.opt_info_fields)  # type: ignore[misc]
            info_cls.__module__ = cls.__module__
            info_cls.__qualname__ = f"{cls.__qualname__}.OptInfoCls"
            cls.OptInfoCls = info_cls

    def initialize(
        self,
        agent: Agent,
        n_itr: int,
        batch_spec: BatchSpec,
        mid_batch_reset: bool,
        examples: AttrDict,
        world_size: int = 1,
        rank: int = 0,
    ) -> None:
        """Called by synchronous runners after the sampler and agent are initialized.

        Args:
            agent: The (initialized) agent to train.
            n_itr: Iterations the runner will run (for schedules).
            batch_spec: The sampler's ``BatchSpec(T, B)``.
            mid_batch_reset: Whether the sampler resets envs inside a batch.
            examples: One example of each sampled record (``observation``, ``action``, ...).
            world_size: Number of data-parallel processes.
            rank: This process's index among them.
        """
        raise NotImplementedError

    def async_initialize(
        self,
        agent: Agent,
        sampler_n_itr: int,
        batch_spec: BatchSpec,
        mid_batch_reset: bool,
        examples: AttrDict,
        world_size: int = 1,
    ) -> Any:
        """Called by asynchronous runners (replay-based algorithms): build the shared replay.

        Args:
            agent: The agent to train.
            sampler_n_itr: Iterations the sampler process will run.
            batch_spec: The sampler's ``BatchSpec(T, B)``.
            mid_batch_reset: Whether the sampler resets envs inside a batch.
            examples: One example of each sampled record.
            world_size: Number of optimizer processes.

        Returns:
            The replay buffer, in shared memory.
        """
        raise NotImplementedError(
            f"{type(self).__name__} does not support asynchronous runners (AsyncRl): they need "
            "a replay-based algorithm that implements async_initialize."
        )

    def optim_initialize(self, rank: int = 0) -> None:
        """Build the optimizer (asynchronous runners call this in the optimizer process)."""
        raise NotImplementedError

    def optimize_agent(
        self, itr: int, samples: Samples | None = None, sampler_itr: int | None = None
    ) -> tuple | None:
        """Train the agent on a batch.

        Args:
            itr: The runner's iteration.
            samples: The sampler's ``Samples`` buffer, leaves ``[T, B, ...]`` (a namedarraytuple
                class made at run time: a type checker sees ``Any``).
            sampler_itr: The sampler's iteration (asynchronous runners).

        Returns:
            An OptInfo namedtuple of lists (one list per ``opt_info_fields`` entry).
        """
        raise NotImplementedError

    def optim_state_dict(self) -> dict:
        """The optimizer's state dict (rlpyt's snapshot field ``optimizer_state_dict``)."""
        return self.optimizer.state_dict()

    def load_optim_state_dict(self, state_dict: dict) -> None:
        """Load the optimizer's state dict."""
        self.optimizer.load_state_dict(state_dict)

    def state_dict(self) -> dict:
        """Everything to resume exactly: optimizer and schedules (subclasses extend)."""
        return {"optimizer": self.optim_state_dict(), "update_counter": self.update_counter}

    def load_state_dict(self, state: dict) -> None:
        """Restore what :meth:`state_dict` returned."""
        self.load_optim_state_dict(state["optimizer"])
        self.update_counter = state["update_counter"]
