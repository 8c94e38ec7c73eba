"""Atari 2600 games on ale-py (``AtariEnv``, ``AtariTrajInfo`` in ``atari_env``)."""
