"""The divergence guard: stop a run whose loss, gradient norm or parameters stop being finite.

Box: Runner. Every runner (``MinibatchRl``, ``SyncRl``, ``AsyncRl`` and their Eval variants)
calls :func:`find_divergence` after each optimization, unless built with ``check_finite=False``.
A finding raises :class:`DivergenceError` before the iteration's row and snapshot, so the
snapshot on disk stays the last one with finite parameters. What is checked: every value of the
OptInfo fields whose name holds ``loss`` or ``gradNorm`` (any case: ``loss``, ``piLoss``,
``q1GradNorm``, ...), and the agent's parameters. The parameter check costs one sum per
parameter tensor and one synchronization; docs/architecture.md gives the measured cost.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import TYPE_CHECKING

import torch

from rlpyt.runners.snapshot import nonfinite_tensor

if TYPE_CHECKING:
    from rlpyt.protocols import Agent, OptInfo

GUARDED_WORDS = ("loss", "gradnorm")  # OptInfo fields checked (lower-case substrings)


class DivergenceError(RuntimeError):
    """Training produced a non-finite loss, gradient norm or parameter.

    Attributes:
        itr: The iteration whose optimization diverged (the optimizer's, for AsyncRl).
        quantity: What was not finite, e.g. ``"OptInfo field 'loss' (nan)"`` or
            ``"agent parameter 'model.fc.weight'"``.
    """

    def __init__(self, itr: int, where: str, quantity: str, snapshot_note: str):
        self.itr = itr
        self.quantity = quantity
        super().__init__(
            f"Training diverged in {where}: {quantity} is not finite. {snapshot_note} "
            "(check_finite=False lets a run continue past non-finite values.)"
        )


def find_divergence(opt_info: OptInfo | None, agent: Agent) -> str | None:
    """The first non-finite guarded OptInfo value or agent parameter; None if all are finite.

    Args:
        opt_info: An OptInfo namedtuple of lists (or of numbers), or None.
        agent: The agent (its ``parameters()`` and ``state_dict()``).

    Returns:
        A description of the quantity, e.g. ``"OptInfo field 'gradNorm' (inf)"``.
    """
    found = nonfinite_opt_info(opt_info)
    if found is None and not parameters_finite(agent.parameters()):
        found = f"agent parameter {nonfinite_tensor(agent.state_dict())!r}"
    return found


def nonfinite_opt_info(opt_info: OptInfo | None) -> str | None:
    """The first non-finite value of a guarded OptInfo field (see module doc), or None."""
    if opt_info is None:
        return None
    for field, values in zip(opt_info._fields, opt_info, strict=True):
        if not any(word in field.lower() for word in GUARDED_WORDS):
            continue
        values = [float(v) for v in (values if isinstance(values, list | tuple) else [values])]
        if math.isfinite(sum(values)):  # one sum: a NaN or an infinity makes it non-finite
            continue
        for value in values:  # (or finite values overflowed it)
            if not math.isfinite(value):
                return f"OptInfo field {field!r} ({value})"
    return None


def parameters_finite(parameters: Iterable[torch.Tensor]) -> bool:
    """True if every value of every tensor is finite.

    One sum per tensor and one device synchronization: a NaN or an infinity makes its sum
    non-finite. Sums of large finite values can overflow, so a non-finite sum is confirmed
    tensor by tensor before answering False.
    """
    tensors = [p.detach() for p in parameters if p.is_floating_point()]
    if not tensors:
        return True
    sums = torch.stack([t.sum(dtype=torch.float32) for t in tensors])
    if bool(torch.isfinite(sums).all()):
        return True
    return all(bool(torch.isfinite(t).all()) for t in tensors)
