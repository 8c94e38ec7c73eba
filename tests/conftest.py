"""Test-session settings.

Torch runs its ops on one thread here. The suite's tensors are tiny, and with several processes on
a small machine (parallel-sampler tests start workers; CI machines are shared) more threads only
oversubscribe the cores: with two threads a test took 18 s that takes 0.6 s with one.
"""

import torch

torch.set_num_threads(1)
