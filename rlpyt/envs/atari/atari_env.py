"""AtariEnv: Atari 2600 games on ale-py's ALEInterface, with rlpyt's preprocessing.

Samplers build it with ``EnvCls=AtariEnv, env_kwargs=dict(game="pong", ...)``. One agent step
repeats the action ``frame_skip`` times; the observation is the last ``num_img_obs`` processed
frames, oldest first, ``[num_img_obs, 104, 80]`` uint8. Processing of one agent step:

1. grayscale screens of the last two emulator frames of the skip, elementwise max (flicker);
2. crop 210 -> 208 rows (one row off the top and the bottom);
3. exact 2x2 block mean to 104 x 80, in integers: ``(a + b + c + d + 2) // 4``, i.e. rounded
   to nearest with halves rounded up (no OpenCV, no interpolation choice to get wrong).

Screens are read into preallocated buffers and the stack is a ring, so a step allocates only
the returned observation.
"""

from __future__ import annotations

import difflib
from collections import namedtuple
from typing import Any

import ale_py
import numpy as np
from ale_py import roms

from rlpyt.envs.base import Env, EnvStep, EnvValue
from rlpyt.envs.traj_info import TrajInfo
from rlpyt.spaces.int_box import IntBox

EnvInfo = namedtuple("EnvInfo", ["game_score", "traj_done", "timeout"])

ACTION_MEANING = {action.value: name for name, action in ale_py.Action.__members__.items()}
ACTION_INDEX = {name: index for index, name in ACTION_MEANING.items()}

H, W = 104, 80  # observation frame: 208 cropped rows and 160 columns, halved
DEFAULT_SEED = 0  # used until seed() is called, so a fresh env is already deterministic

ale_py.ALEInterface.setLoggerMode(ale_py.LoggerMode.Error)  # no banner per env


def rom_path(game: str) -> str:
    """Path of the ROM that ale-py ships for ``game`` (snake_case, e.g. ``"space_invaders"``).

    Raises:
        ValueError: unknown game; the message lists the closest valid names.
    """
    valid = roms.get_all_rom_ids()
    if game not in valid:
        close = difflib.get_close_matches(game, valid, n=5, cutoff=0.5)
        hint = f"Closest: {close}." if close else f"Valid names: {sorted(valid)}."
        raise ValueError(f"Unknown Atari game {game!r} (snake_case ROM ids of ale-py). {hint}")
    return str(roms.get_rom_path(game))


class AtariTrajInfo(TrajInfo):
    """TrajInfo that also sums the raw (unclipped) game score into ``GameScore``."""

    def __init__(self, **kwargs: Any):
        super().__init__(**kwargs)
        self.GameScore = 0.0

    def step(
        self,
        observation: EnvValue,
        action: EnvValue,
        reward: float,
        done: bool,
        agent_info: tuple | None,
        env_info: tuple | None,
    ) -> None:
        """Account for one env step; ``env_info.game_score`` is the raw score of the step."""
        super().step(observation, action, reward, done, agent_info, env_info)
        self.GameScore += float(getattr(env_info, "game_score", 0.0))

    @classmethod
    def batch_step(
        cls,
        sums: dict[str, np.ndarray],
        reward: np.ndarray,
        env_info: tuple,
        rows: np.ndarray | None,
    ) -> None:
        """The ``GameScore`` of :meth:`step` for B envs at once (vector collectors).

        Args:
            sums: ``[B]`` arrays of the TrajInfo fields (``rlpyt.samplers.vector``).
            reward: ``[B]`` rewards (the base fields are already summed).
            env_info: The record of ``[B]`` arrays of the step.
            rows: bool ``[B]`` of the envs stepped, or None for all.
        """
        score = np.asarray(getattr(env_info, "game_score", np.zeros_like(reward)), np.float64)
        sums["GameScore"] += score if rows is None else np.where(rows, score, 0.0)


class AtariEnv(Env):
    """One Atari game with frame skip, frame max-pooling, downsampling and a frame stack.

    Args:
        game: snake_case ROM id of ale-py (``"pong"``, ``"space_invaders"``, ...).
        frame_skip: Emulator frames per agent step (the action repeats).
        num_img_obs: Frames in the observation stack.
        clip_reward: Reward is the sign of the step's game score.
        episodic_lives: A lost life ends the episode for the agent (``done=True``) but not the
            game (``env_info.traj_done=False``); the frame stack restarts from zeros.
        fire_on_reset: Press FIRE then UP after a reset and a lost life (games that wait).
        max_start_noops: A reset plays a uniform random 0..max_start_noops NOOP frames.
        repeat_action_probability: ALE's sticky actions (set explicitly; ALE's default is 0.25).
        horizon: Agent steps after which the episode ends (``done``, ``traj_done`` and
            ``timeout`` True unless the game ended on that very step).

    ``step`` returns ``EnvStep(observation, reward, done, EnvInfo(game_score, traj_done,
    timeout))``: observation ``[num_img_obs, 104, 80]`` uint8, reward float32, game_score
    float32 (unclipped), traj_done and timeout bool.
    """

    _horizon: int

    def __init__(
        self,
        game: str = "pong",
        frame_skip: int = 4,
        num_img_obs: int = 4,
        clip_reward: bool = True,
        episodic_lives: bool = True,
        fire_on_reset: bool = False,
        max_start_noops: int = 30,
        repeat_action_probability: float = 0.0,
        horizon: int = 27000,
    ):
        if frame_skip < 1 or num_img_obs < 1 or horizon < 1:
            raise ValueError("frame_skip, num_img_obs and horizon must be at least 1.")
        self.game = game
        self.frame_skip = int(frame_skip)
        self.num_img_obs = int(num_img_obs)
        self.clip_reward = clip_reward
        self.episodic_lives = episodic_lives
        self.fire_on_reset = fire_on_reset
        self.max_start_noops = int(max_start_noops)
        self.repeat_action_probability = float(repeat_action_probability)
        self._horizon = int(horizon)
        self._rom_path = rom_path(game)
        self.ale = ale_py.ALEInterface()
        self.ale.setFloat("repeat_action_probability", self.repeat_action_probability)
        self.seed(DEFAULT_SEED)  # loads the ROM
        self._action_set = list(self.ale.getMinimalActionSet())
        self._action_space = IntBox(0, len(self._action_set))
        obs_shape = (self.num_img_obs, H, W)
        self._observation_space = IntBox(0, 256, shape=obs_shape, dtype="uint8")
        self._allocate_buffers()
        self._lives = self.ale.lives()
        self._step_counter = 0

    def _allocate_buffers(self) -> None:
        screen_h, screen_w = self.ale.getScreenDims()
        if screen_h < 2 * H or screen_w != 2 * W:
            raise RuntimeError(f"Expected 210 x 160 Atari screens, ALE gives {screen_h, screen_w}.")
        top = (screen_h - 2 * H) // 2
        self._raw = np.zeros((2, screen_h, screen_w), np.uint8)  # last two frames of a skip
        self._max_frame = np.zeros((screen_h, screen_w), np.uint8)
        self._row_sum = np.zeros((H, screen_w), np.uint16)
        self._block_sum = np.zeros((H, W), np.uint32)
        self._frames = np.zeros((self.num_img_obs, H, W), np.uint8)  # ring of frames
        self._newest = self.num_img_obs - 1
        n = self.num_img_obs  # _order[i]: ring slots oldest -> newest when slot i is newest
        self._order = [np.roll(np.arange(n), n - 1 - i) for i in range(n)]
        self._top = top
        self._make_views()

    def _make_views(self) -> None:
        """Views made once, so that a step creates no array objects but the observation."""
        top = self._top
        self._raw_slots = (self._raw[0], self._raw[1])
        self._frame_slots = list(self._frames)
        self._even_rows = self._max_frame[top : top + 2 * H : 2]
        self._odd_rows = self._max_frame[top + 1 : top + 2 * H : 2]
        self._column_pairs = self._row_sum.view(np.uint32)  # [H, W]: two uint16 sums each

    # Views and the emulator are rebuilt on unpickling; everything else pickles as it is.
    _UNPICKLED = (
        "ale",
        "_action_set",
        "_raw_slots",
        "_frame_slots",
        "_even_rows",
        "_odd_rows",
        "_column_pairs",
    )

    def __getstate__(self) -> dict:
        """Settings, buffers, counters and the emulator state with its RNG.

        For snapshots and exact resume: an unpickled env continues exactly where this one is.
        """
        state = {k: v for k, v in self.__dict__.items() if k not in self._UNPICKLED}
        state["_ale_state"] = self.ale.cloneState(include_rng=True)
        return state

    def __setstate__(self, state: dict) -> None:
        """Rebuild the emulator (ROM of this installation) and restore its saved state."""
        ale_state = state.pop("_ale_state")
        self.__dict__.update(state)
        self._rom_path = rom_path(self.game)
        self.ale = ale_py.ALEInterface()
        self.ale.setFloat("repeat_action_probability", self.repeat_action_probability)
        self.ale.setInt("random_seed", self._seed % (2**31))
        self.ale.loadROM(self._rom_path)
        self.ale.restoreState(ale_state)
        self._action_set = list(self.ale.getMinimalActionSet())
        self._make_views()

    def seed(self, seed: int | None = None) -> None:
        """Seed ALE and the no-op RNG (reloads the ROM: call ``reset()`` next).

        Equal seeds give identical streams; None draws a seed from OS entropy.
        """
        if seed is None:
            seed = int(np.random.SeedSequence().generate_state(1)[0])
        self._seed = int(seed)
        self._rng = np.random.default_rng(self._seed)
        self.ale.setInt("random_seed", self._seed % (2**31))
        self.ale.loadROM(self._rom_path)
        if self._action_space is not None:
            self._action_space.seed(self._seed)

    def reset(self) -> np.ndarray:
        """New game: reset ALE, random no-ops, FIRE/UP if fire_on_reset.

        Returns:
            observation ``[num_img_obs, 104, 80]`` uint8 (older frames zero).
        """
        self.ale.reset_game()
        for _ in range(self._rng.integers(0, self.max_start_noops + 1)):
            self.ale.act(ale_py.Action.NOOP)
        if self.fire_on_reset:
            self._fire_and_up()
        self._lives = self.ale.lives()
        self._step_counter = 0
        self._frames.fill(0)
        self.ale.getScreenGrayscale(self._raw_slots[1])
        np.copyto(self._raw_slots[0], self._raw_slots[1])
        self._push_frame()
        return self._observation()

    def step(self, action: int | np.integer | np.ndarray) -> EnvStep:
        """Play ``action`` (an index into the minimal action set) for ``frame_skip`` frames."""
        ale_action = self._action_set[int(action)]
        game_score = 0
        last_two = self.frame_skip - 2
        for i in range(self.frame_skip):
            game_score += self.ale.act(ale_action)
            if i >= last_two:
                self.ale.getScreenGrayscale(self._raw_slots[i - last_two])
        if self.frame_skip == 1:
            np.copyto(self._raw_slots[0], self._raw_slots[1])
        game_over = self.ale.game_over()
        lost_life = self._check_life(game_over)
        if lost_life and self.episodic_lives:
            self._frames.fill(0)
            game_score += self._life_reset()
        self._push_frame()
        self._step_counter += 1
        timeout = self._step_counter >= self._horizon and not game_over
        traj_done = game_over or timeout
        done = traj_done or (lost_life and self.episodic_lives)
        reward = np.sign(game_score) if self.clip_reward else game_score
        env_info = EnvInfo(np.float32(game_score), traj_done, timeout)
        return EnvStep(self._observation(), np.float32(reward), done, env_info)

    def _check_life(self, game_over: bool) -> bool:
        """True when a life was lost this step without ending the game."""
        lives = self.ale.lives()
        lost = lives < self._lives and not game_over
        self._lives = lives
        return lost

    def _life_reset(self) -> int:
        """Step past the life-lost frame (and FIRE/UP if asked); returns their score."""
        score = self.ale.act(ale_py.Action.NOOP)
        if self.fire_on_reset:
            score += self._fire_and_up()
        self._lives = self.ale.lives()
        return score

    def _fire_and_up(self) -> int:
        return self.ale.act(ale_py.Action.FIRE) + self.ale.act(ale_py.Action.UP)

    def _push_frame(self) -> None:
        """Max-pool the two raw frames, crop, 2x2 block-mean, write as the newest frame.

        Row pairs are summed into uint16. Seen as uint32, each pair of uint16 column sums is
        ``lo + 2**16 * hi``; times ``0x10001`` (mod 2**32) its upper half is ``lo + hi``
        (at most 1020, so nothing overflows, on either byte order). Adding ``2 << 16`` and
        shifting by 18 gives ``(lo + hi + 2) // 4``: the exact 2x2 mean, halves rounded up.
        """
        np.maximum(self._raw_slots[0], self._raw_slots[1], out=self._max_frame)
        np.add(self._even_rows, self._odd_rows, out=self._row_sum, dtype=np.uint16)
        block = self._block_sum
        np.multiply(self._column_pairs, 0x10001, out=block)
        np.add(block, 2 << 16, out=block)
        np.right_shift(block, 18, out=block)
        self._newest = (self._newest + 1) % self.num_img_obs
        np.copyto(self._frame_slots[self._newest], block, casting="unsafe")

    def _observation(self) -> np.ndarray:
        return self._frames[self._order[self._newest]]

    def render(self) -> np.ndarray:
        """The current RGB screen, ``[210, 160, 3]`` uint8."""
        return self.ale.getScreenRGB()

    def get_action_meanings(self) -> list[str]:
        """Names of the actions, in action-index order (e.g. ``["NOOP", "FIRE", ...]``)."""
        return [ACTION_MEANING[a.value] for a in self._action_set]

    @property
    def lives(self) -> int:
        """Lives left in the current game."""
        return self.ale.lives()

    def close(self) -> None:
        """Release the emulator (ALE frees it when the interface is collected); idempotent."""
        if hasattr(self, "ale"):
            del self.ale
