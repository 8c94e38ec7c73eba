"""Spaces: what an env accepts as action and returns as observation (IntBox, FloatBox, Composite).

``GymSpaceWrapper`` adapts gymnasium spaces to these. Every space owns its own seedable random
generator, so sampling never touches numpy's global state.
"""
