"""Deep-Q agents for Atari (AtariEnv's stacked frames)."""
