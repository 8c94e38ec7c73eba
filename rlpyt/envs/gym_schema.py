"""Old import path of the schema-based gym wrapper; ``rlpyt.envs.gym`` uses schemas only."""

from rlpyt.envs.gym import EnvInfoWrapper, GymEnvWrapper, make

__all__ = ["EnvInfoWrapper", "GymEnvWrapper", "make"]
