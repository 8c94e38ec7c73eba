"""Launch asynchronous DQN on Atari with AsyncRlEval and the async gpu sampler.

Run from anywhere (logs go to ``./data/local/<yyyymmdd>/<HHMMSS>/atari_dqn_async_gpu/``)::

    python experiments/scripts/atari/dqn/launch/launch_atari_dqn_async_gpu.py

The sweep (games, runs, affinity) is ``launch_atari_dqn_async_serial.py``'s, with
``../train/atari_dqn_async_gpu.py`` and config key "async_gpu".
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from launch_atari_dqn_async_serial import HERE, main  # noqa: E402

SCRIPT = os.path.normpath(os.path.join(HERE, "..", "train", "atari_dqn_async_gpu.py"))
CONFIG_KEY = "async_gpu"

if __name__ == "__main__":
    sys.exit(main("gpu"))
