"""Environments: the Env interface, the gymnasium wrapper (``rlpyt.envs.gym``) and AtariEnv."""
