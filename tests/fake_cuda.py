"""A second device on a CPU-only machine, for catching host/device mix-ups in CI.

CI has no GPU, and the bug class that crashes rlpyt on one is always the same: a tensor left on
the host meets a tensor on the device in one op (a CPU index gathered from CUDA Q-values, a CPU
importance weight times a CUDA loss). ``FakeCuda`` is a ``TorchFunctionMode`` that gives the
CPU a twin called ``cuda:0``: every tensor carries a mark saying which of the two it is "on", the
mark follows data through ops, ``.to("cuda")``/``.cuda()``/``device=cuda`` creations set it,
``.to("cpu")``/``.cpu()`` clear it, and an op that mixes marked and unmarked tensors fails with
torch's own message, as CUDA would. Everything still computes on the CPU, so a whole training
run (runner, sampler, agent, algorithm, replay) can go through it in a unit test.

Rules it follows (those of real CUDA tensors):
- 0-dim host tensors may meet device tensors (CUDA accepts CPU scalars).
- A device tensor may be indexed with host indexes; a host tensor may not be indexed with
  device indexes. ``copy_`` may cross.
- ``.numpy()`` / ``__array__`` of a device tensor fail; ``.item()`` / ``.tolist()`` work.
- A Parameter moved with ``.to(cuda)`` is marked itself (``nn.Module.to`` assigns the moved
  data to the same Parameter object); its ``.grad`` is marked when read.
- ``pin_memory()`` returns an unmarked copy (there is no pinned memory without CUDA).

It also records, in ``FakeCuda.syncs``, every op that makes the host wait for a CUDA device:
a copy of a device tensor to the host (``.cpu()``, ``.to("cpu")``, ``copy_`` into a host
tensor), reading values (``.item()``, ``.tolist()``, ``bool``/``float``/``int`` of a tensor,
indexing a Python sequence with one, printing or formatting one), and ops whose output shape
depends on the data (``nonzero``, boolean-mask indexing, ``masked_select``, ``unique``,
``torch.where(condition)``, ...). Each entry names the op and the first caller outside torch
and this module, so a test can assert how many syncs a piece of code costs and say where a new
one comes from.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import torch
from torch.nn.utils import clip_grad
from torch.overrides import TorchFunctionMode
from torch.utils._pytree import tree_flatten

FAKE_DEVICE = torch.device("cuda", 0)
_MARK = "_rlpyt_on_fake_cuda"
_CROSSING = {"copy_", "_has_compatible_shallow_copy_type", "is_set_to"}
_INDEXING = {"__getitem__", "__setitem__", "index_select", "index_put_", "index_put"}
# Ops that wait for the device whenever a device tensor is among their inputs: they read values
# on the host, or size their output from the data.
_SYNCING = {
    "item",
    "tolist",
    "__bool__",
    "__float__",
    "__int__",
    "__index__",
    "__complex__",
    "__format__",
    "__repr__",
    "__str__",
    "is_nonzero",
    "equal",
    "allclose",
    "nonzero",
    "argwhere",
    "masked_select",
    "unique",
    "unique_consecutive",
    "bincount",
}
_MASK_INDEXING = {"__getitem__", "__setitem__", "index_put_", "index_put"}
_HERE = str(Path(__file__).resolve())
_TORCH = str(Path(torch.__file__).resolve().parent)


def on_fake_cuda(tensor: Any) -> bool:
    """Whether ``tensor`` is a tensor "on" the fake device."""
    return isinstance(tensor, torch.Tensor) and getattr(tensor, _MARK, False)


def _mark(tree: Any) -> None:
    for leaf in tree_flatten(tree)[0]:
        if isinstance(leaf, torch.Tensor):
            setattr(leaf, _MARK, True)


def _is_cuda(device: Any) -> bool:
    if isinstance(device, int):
        return True
    return device is not None and torch.device(device).type == "cuda"


def _descriptor_of(func: Any) -> Any:
    return getattr(func, "__self__", None)


def _grouped_on_fake_device(group: Any) -> Any:
    """torch's grouping of tensor lists by (device, dtype), with device tensors under cuda:0.

    The grouping reads the real device (the CPU); gradient clipping moves its clip coefficient
    to each group's device, which would read as a copy to the host.
    """

    def regroup(tensorlistlist: Any, with_indices: bool = False) -> dict:
        grouped = group(tensorlistlist, with_indices)
        return {
            (FAKE_DEVICE if any(on_fake_cuda(t) for t in lists[0]) else device, dtype): (
                lists,
                indices,
            )
            for (device, dtype), (lists, indices) in grouped.items()
        }

    return regroup


def _caller() -> str:
    """``file:line`` of the innermost frame outside torch and this module."""
    frame = sys._getframe(1)
    while frame is not None:
        path = frame.f_code.co_filename
        if path != _HERE and not path.startswith(_TORCH):
            return f"{path}:{frame.f_lineno}"
        frame = frame.f_back
    return "?"


def _waits_for_data(name: str, args: tuple, kwargs: dict) -> bool:
    """Whether an op with a device tensor among its inputs makes the host wait for the device."""
    if name in _SYNCING:
        return True
    if name == "where":  # the one-argument form is nonzero
        return len(args) + len(kwargs) == 1
    if name == "repeat_interleave":  # tensor repeats: the output size is their sum
        return "output_size" not in kwargs and any(isinstance(a, torch.Tensor) for a in args[1:])
    return name in _MASK_INDEXING and on_fake_cuda(args[0]) and _mask_sized(name, args)


def _mask_sized(name: str, args: tuple) -> bool:
    """Whether an indexing op on a device tensor selects with a boolean mask (nonzero)."""
    index = tree_flatten(args[1])[0] if len(args) > 1 else []
    if not any(isinstance(i, torch.Tensor) and i.dtype == torch.bool for i in index):
        return False
    if name == "__getitem__":
        return True
    value = args[2] if len(args) > 2 else None  # filling a mask with a scalar does not wait
    return isinstance(value, torch.Tensor) and value.dim() > 0


class FakeCuda(TorchFunctionMode):
    """Run torch on the CPU as if marked tensors lived on ``cuda:0`` (see the module doc).

    cuDNN is switched off inside: on a CUDA build of torch, recurrent modules would otherwise
    call cuDNN kernels for weights that report ``is_cuda`` but live on the CPU.
    """

    def __init__(self) -> None:  # noqa: D107
        super().__init__()
        self.syncs: list[str] = []
        """One entry per op that made the host wait for the device: ``"item at file:line"``."""

    def _record_sync(self, name: str) -> None:
        self.syncs.append(f"{name} at {_caller()}")

    def __enter__(self):  # noqa: D105
        self._cudnn = torch.backends.cudnn.flags(enabled=False)
        self._cudnn.__enter__()
        self._grouping = clip_grad._group_tensors_by_device_and_dtype
        clip_grad._group_tensors_by_device_and_dtype = _grouped_on_fake_device(self._grouping)
        return super().__enter__()

    def __exit__(self, *exc):  # noqa: D105
        try:
            return super().__exit__(*exc)
        finally:
            clip_grad._group_tensors_by_device_and_dtype = self._grouping
            self._cudnn.__exit__(*exc)

    def __torch_function__(self, func, types, args=(), kwargs=None):  # noqa: D105
        kwargs = kwargs or {}
        name = getattr(func, "__name__", "")
        if name in ("__get__", "__set__"):
            return self._descriptor(func, name, args)
        if name in ("to", "cuda", "cpu") and args and isinstance(args[0], torch.Tensor):
            return self._move(func, name, args, kwargs)
        if name in ("numpy", "__array__") and on_fake_cuda(args[0]):
            raise TypeError(
                "can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy "
                "the tensor to host memory first. (FakeCuda)"
            )
        if name == "pin_memory":
            return args[0].clone()
        if _is_cuda(kwargs.get("device")):
            out = func(*args, **{**kwargs, "device": "cpu"})
            _mark(out)
            return out
        if name in _CROSSING:  # in place across devices: each tensor stays where it is
            return self._cross(func, name, args, kwargs)
        tensors = [x for x in tree_flatten((args, kwargs))[0] if isinstance(x, torch.Tensor)]
        on_device = [t for t in tensors if on_fake_cuda(t)]
        if on_device:
            self._check_same_device(name, args, tensors)
            if _waits_for_data(name, args, kwargs):
                self._record_sync(name)
        out = func(*args, **kwargs)
        if on_device and name not in ("cpu", "tolist", "item"):
            _mark(out)
        return out

    def _cross(self, func: Any, name: str, args: tuple, kwargs: dict) -> Any:
        if name == "copy_" and on_fake_cuda(args[1]) and not on_fake_cuda(args[0]):
            self._record_sync("copy_ to the host")
        return func(*args, **kwargs)

    def _descriptor(self, func: Any, name: str, args: tuple) -> Any:
        owner = _descriptor_of(func)
        tensor = args[0] if args else None
        if name == "__get__" and on_fake_cuda(tensor):
            if owner is torch.Tensor.device:
                return FAKE_DEVICE
            if owner is torch.Tensor.is_cuda:
                return True
            out = func(*args)
            _mark(out)  # .grad, .data, .T, ... of a device tensor are on the device
            return out
        out = func(*args)
        if name == "__set__" and owner is torch.Tensor.data and on_fake_cuda(args[1]):
            _mark(tensor)  # nn.Module.to: param.data = moved
        return out

    def _move(self, func: Any, name: str, args: tuple, kwargs: dict) -> torch.Tensor:
        source = args[0]
        target = self._target(name, args, kwargs)
        if target is None:  # dtype-only conversion: stays where it is
            out = func(*args, **kwargs)
            if on_fake_cuda(source):
                _mark(out)
            return out
        dtype = kwargs.get("dtype") or next(
            (a for a in args[1:] if isinstance(a, torch.dtype)), source.dtype
        )
        out = source.to(dtype=dtype)
        if out is source:
            out = source.view_as(source)  # a new tensor object, so marks stay per side
        if target == "cuda":
            _mark(out)
            if isinstance(source, torch.nn.Parameter):
                _mark(source)
        elif on_fake_cuda(source):
            self._record_sync(f"{name} to the host")
        return out

    @staticmethod
    def _target(name: str, args: tuple, kwargs: dict) -> str | None:
        if name in ("cpu", "cuda"):
            return name
        other = next((a for a in args[1:] if isinstance(a, torch.Tensor)), kwargs.get("other"))
        if other is not None:
            return "cuda" if on_fake_cuda(other) else "cpu"
        device = kwargs.get("device")
        if device is None:
            device = next((a for a in args[1:] if isinstance(a, str | int | torch.device)), None)
        if device is None:
            return None
        return "cuda" if _is_cuda(device) else "cpu"

    @staticmethod
    def _check_same_device(name: str, args: tuple, tensors: list[torch.Tensor]) -> None:
        if name in _INDEXING and args and on_fake_cuda(args[0]):
            rest = tree_flatten(args[2:])[0]  # the assigned value of __setitem__ / index_put
            host = [t for t in rest if isinstance(t, torch.Tensor) and not on_fake_cuda(t)]
        else:
            host = [t for t in tensors if not on_fake_cuda(t)]
        host = [t for t in host if t.dim() > 0]
        if host:
            shapes = ", ".join(str(tuple(t.shape)) for t in host)
            raise RuntimeError(
                "Expected all tensors to be on the same device, but found at least two "
                f"devices, cuda:0 and cpu! ({name}; host tensors of shapes {shapes}; FakeCuda)"
            )
