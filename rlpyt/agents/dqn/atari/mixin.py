"""AtariMixin for the deep-Q agents: model keywords from Atari env spaces.

rlpyt's import path of the mixin. The keywords (``image_shape``, ``output_size``, from
``atari_model_kwargs``) are those of the policy-gradient Atari models too, so this is the same
class as ``rlpyt.agents.pg.atari.AtariMixin`` (defined in ``rlpyt.agents.model_keywords``).
"""

from rlpyt.agents.model_keywords import AtariMixin

__all__ = ["AtariMixin"]
