"""Helpers of the sampler tests: small envs (with injectable faults), agents, leak checks.

Importable by name (``tests.unit.samplers.sampler_helpers``) so that spawn and forkserver
workers can unpickle the classes.
"""

import os
import time
from collections import namedtuple

import numpy as np
import psutil
import torch

from rlpyt.agents.pg.categorical import AlternatingRecurrentCategoricalPgAgent
from rlpyt.agents.pg.classic import ClassicFfAgent, ClassicMixin
from rlpyt.envs.base import Env, EnvStep
from rlpyt.models.pg.classic_model import ClassicLstmModel
from rlpyt.spaces.float_box import FloatBox
from rlpyt.spaces.int_box import IntBox
from tests import warm_python

ProbeInfo = namedtuple("ProbeInfo", ["torch_threads", "pid", "timeout"])


class ProbeEnv(Env):
    """A tiny env that tells which process stepped it, and can fail or be slow on purpose.

    Observation ``[4] float32`` (noisy step counter), 2 actions, episodes of random length
    5..14, reward = action. ``env_info`` records the stepping process's torch threads and pid.

    Args:
        fail_seed: The env seeded with this seed (``sampler seed + global index``) raises
            ``RuntimeError("injected env failure")`` at its ``fail_step``-th step.
        fail_step: See ``fail_seed``.
        step_seconds: Sleep per step (to make batches slow).
    """

    def __init__(self, fail_seed=None, fail_step=0, step_seconds=0.0):
        self._action_space = IntBox(0, 2)
        self._observation_space = FloatBox(-10, 10, shape=(4,))
        self.fail_seed = fail_seed
        self.fail_step = fail_step
        self.step_seconds = step_seconds
        self._seed = None
        self._rng = np.random.default_rng()
        self._steps = 0
        self._t = 0
        self._length = 10

    def seed(self, seed=None):
        super().seed(seed)
        self._seed = seed
        self._rng = np.random.default_rng(seed)

    def reset(self):
        self._t = 0
        self._length = int(self._rng.integers(5, 15))
        return self._observation()

    def step(self, action):
        self._steps += 1
        failing = self.fail_seed is not None and self._seed == self.fail_seed
        if failing and self._steps >= self.fail_step:
            raise RuntimeError("injected env failure")
        if self.step_seconds:
            time.sleep(self.step_seconds)
        self._t += 1
        done = self._t >= self._length
        info = ProbeInfo(torch.get_num_threads(), os.getpid(), False)
        return EnvStep(self._observation(), np.float32(action), done, info)

    def _observation(self):
        noise = self._rng.standard_normal(4).astype(np.float32)
        return np.float32(self._t) / 10 + 0.1 * noise


class AlternatingClassicLstmAgent(ClassicMixin, AlternatingRecurrentCategoricalPgAgent):
    """Recurrent classic-control agent for the alternating samplers."""

    def __init__(self, ModelCls=ClassicLstmModel, model_kwargs=None, initial_model_state_dict=None):
        super().__init__(ModelCls, model_kwargs, initial_model_state_dict)


class FailingAgent(ClassicFfAgent):
    """Raises ``RuntimeError("injected agent failure")`` at its ``fail_call``-th sampling step."""

    def __init__(self, fail_call=3, **kwargs):
        super().__init__(**kwargs)
        self.fail_call = fail_call
        self._calls = 0

    def step(self, observation, prev_action, prev_reward):
        if self._mode == "sample":
            self._calls += 1
            if self._calls >= self.fail_call:
                raise RuntimeError("injected agent failure")
        return super().step(observation, prev_action, prev_reward)


# -- leak checks -----------------------------------------------------------------------------

SHM = "/dev/shm"
# Long-lived helpers that are not a test's children: multiprocessing's own, and the servers of
# tests/warm_python.py (a child of the test process for the whole session).
MP_HELPERS = ("resource_tracker", "forkserver", warm_python.SERVER_MARK)


def shm_entries():
    """Names in /dev/shm now (empty where there is none)."""
    return set(os.listdir(SHM)) if os.path.isdir(SHM) else set()


def _inode(name):
    try:
        return os.stat(os.path.join(SHM, name)).st_ino
    except OSError:
        return None  # gone meanwhile


def _mapped_by_others(names):
    """Which of ``names`` some process outside this process tree has mapped (not ours).

    Matched by path and by inode: a named semaphore (``sem.mp-*``, alive while its lock is, under
    spawn and forkserver) is mapped under the temporary name glibc made it with, so the maps of a
    concurrent test run (another pytest-xdist worker) show ``/dev/shm/sem.XXXXXX (deleted)``
    with the inode of ``sem.mp-*``, never its name.
    """
    ours = {os.getpid()} | {p.pid for p in psutil.Process().children(recursive=True)}
    inodes = {_inode(name): name for name in names}
    inodes.pop(None, None)
    found = set()
    for proc in psutil.process_iter(["pid"]):
        if proc.pid in ours:
            continue
        try:
            with open(f"/proc/{proc.pid}/maps") as f:
                maps = f.read()
        except OSError:
            continue
        found |= {name for name in names if f"{SHM}/{name}" in maps}
        found |= {inodes[inode] for inode in _shm_inodes(maps) if inode in inodes}
    return found


def _shm_inodes(maps):
    """Inodes of the /dev/shm files in a /proc/<pid>/maps text (its fifth column)."""
    fields = (line.split(maxsplit=5) for line in maps.splitlines())
    return {int(f[4]) for f in fields if len(f) == 6 and f[5].startswith(SHM + "/")}


def new_shm_entries(before, attempts=4):
    """Entries created since ``before`` that are ours (other engineers' processes excluded).

    An entry counts if it persists over ``attempts`` looks 0.5 s apart and no process outside
    this process tree maps it (files being created and unlinked by others pass by).
    """
    left = set()
    for attempt in range(attempts):
        new = shm_entries() - before
        left = new - _mapped_by_others(new) if new else set()
        if not left:
            return left
        if attempt < attempts - 1:
            time.sleep(0.5)
    return left


def sampler_children():
    """Live child processes except long-lived helpers (``MP_HELPERS``)."""
    children = []
    for child in psutil.Process().children(recursive=True):
        try:
            if child.status() == psutil.STATUS_ZOMBIE:
                continue
            cmdline = " ".join(child.cmdline())
        except psutil.NoSuchProcess:
            continue
        if not any(helper in cmdline for helper in MP_HELPERS):
            children.append(child)
    return children


def alive(pids):
    """The pids among ``pids`` that still run (zombies count as gone)."""
    result = []
    for pid in pids:
        try:
            if psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
                result.append(pid)
        except psutil.NoSuchProcess:
            pass
    return result
