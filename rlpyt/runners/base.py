"""BaseRunner: what every runner offers a launch script (``train()`` and ``iter_train()``).

Box: Runner. A runner connects sampler, agent and algorithm and owns the training loop; its
``train`` matches :class:`rlpyt.protocols.Runner`. Subclasses implement ``iter_train``, which
yields each logged progress row; ``train`` runs it to the end.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

import torch


class BaseRunner:
    """A runner connects sampler, agent and algorithm and owns the training loop."""

    def iter_train(self, resume_from: str | bool | None = None) -> Iterator[dict[str, float]]:
        """Run the training, yielding each progress row (column -> value) as it is logged.

        Args:
            resume_from: Continue from a snapshot: a snapshot file, a run folder, or True for
                the current logger's run folder.
        """
        raise NotImplementedError

    def train(self, resume_from: str | bool | None = None) -> None:
        """Run the whole training (see :meth:`iter_train` for ``resume_from``)."""
        for _row in self.iter_train(resume_from):
            pass


def flush_denormals(affinity: Mapping[str, object]) -> bool:
    """Flush denormal floats to zero in this training process, unless the affinity says no.

    Called by the runners where they set torch's threads. Adam's moment estimates of weights
    whose gradients stay at zero (a dead ReLU unit's inputs, for one) decay geometrically into
    the denormal range (below 1.2e-38), where x86 arithmetic is many times slower: on the
    CartPole DQN, fused Adam steps took 4x their time on normal numbers, a fifth of each update.
    Flushed (torch's FTZ/DAZ switch for this thread), they become 0. Updates are unchanged: the
    Adam step of such a weight is below a float's resolution of the weight (the CartPole DQN's
    weights after 15,000 updates are bitwise equal either way). TensorFlow and XLA flush by
    default on the CPU as well.

    Args:
        affinity: The runner's affinity dict (or the async optimizer's); its key
            ``flush_denormal`` (default True) False leaves the process's setting alone.

    Returns:
        True when flushing is on now (False also where the CPU has no such switch).
    """
    if not affinity.get("flush_denormal", True):
        return False
    return bool(torch.set_flush_denormal(True))
