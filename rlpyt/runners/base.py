"""BaseRunner: what every runner offers a launch script (``train()`` and ``iter_train()``).

Box: Runner. A runner connects sampler, agent and algorithm and owns the training loop; its
``train`` matches :class:`rlpyt.protocols.Runner`. Subclasses implement ``iter_train``, which
yields each logged progress row; ``train`` runs it to the end.
"""

from __future__ import annotations

from collections.abc import Iterator


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
