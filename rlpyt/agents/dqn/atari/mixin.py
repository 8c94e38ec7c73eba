"""AtariMixin for the deep-Q agents: model keywords from Atari env spaces.

rlpyt's import path for the mixin of ``AtariDqnAgent`` and ``AtariCatDqnAgent``. The keywords
(``image_shape``, ``output_size``) are those of the policy-gradient Atari models too, so this
is the same class as ``rlpyt.agents.pg.atari.AtariMixin`` (defined in
``rlpyt.agents.model_keywords``).
"""

from rlpyt.agents.model_keywords import AtariMixin

__all__ = ["AtariMixin"]
