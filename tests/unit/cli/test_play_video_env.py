"""``rlpyt play --video`` renders off screen: SDL (pygame, CartPole's renderer) gets its dummy
drivers, so a machine without a desktop session prints no ``XDG_RUNTIME_DIR`` error; a driver
the user set is kept.
"""

import os
import subprocess
import sys

import pytest

from rlpyt.cli.play import OFFSCREEN_SDL, offscreen_rendering

pytest.importorskip("pygame")

RENDER = """
import gymnasium
from rlpyt.cli.play import offscreen_rendering
if {offscreen}:
    offscreen_rendering()
env = gymnasium.make("CartPole-v1", render_mode="rgb_array")
env.reset(seed=0)
frame = env.render()
assert frame.shape[2] == 3, frame.shape
env.close()
print("rendered")
"""


def render_in_child(offscreen):
    env = {k: v for k, v in os.environ.items() if k not in ("XDG_RUNTIME_DIR", *OFFSCREEN_SDL)}
    return subprocess.run(
        [sys.executable, "-c", RENDER.format(offscreen=offscreen)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_rendering_frames_prints_no_desktop_session_error():
    result = render_in_child(offscreen=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "rendered"
    assert "XDG_RUNTIME_DIR" not in result.stderr, result.stderr


def test_a_driver_the_user_chose_is_kept(monkeypatch):
    monkeypatch.setenv("SDL_VIDEODRIVER", "x11")
    monkeypatch.delenv("SDL_AUDIODRIVER", raising=False)
    offscreen_rendering()
    assert os.environ["SDL_VIDEODRIVER"] == "x11"
    assert os.environ["SDL_AUDIODRIVER"] == "dummy"
