"""Old import path of the schema-based GymSpaceWrapper; the one wrapper uses schemas."""

from rlpyt.spaces.gym_wrapper import GymSpaceWrapper

__all__ = ["GymSpaceWrapper"]
