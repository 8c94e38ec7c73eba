"""R2D1 speed on Atari: ``R2D1.optimize_agent`` against the bare recurrent-model ceiling.

Box: benchmarks (never part of the test suite). Both sides run in the same process, their
repeats interleaved, with the same torch intra-op thread count (``--threads``, 0: torch's
default) on the same device (``--device``), both printed at the top with the machine load.

Settings (the ``"r2d1_long"`` config of ``rlpyt.experiments.configs.atari.dqn.atari_r2d1``,
unchanged but for the replay size and learning start): Pong through ``AtariEnv`` (the config's
env keywords), ``AtariR2d1Model`` with the config's dueling head, sequences of ``batch_T`` 80
training steps after a ``warmup_T`` 40 warm-up, ``batch_B`` 64 sequences per update,
``n_step_return`` 5, double Q, value rescaling, Adam (lr 1e-4, eps 1e-3), gradient norm
clipped at 80, a recurrent state stored every 40 steps, prioritized sequence replay with input
priorities (the config's alpha 0.9, beta 0.6).

- ours: ``algo.optimize_agent(itr)`` in its training phase on a
  ``PrioritizedSequenceReplayFrameBuffer`` of ``--replay-size`` steps filled with ``--fill``
  real Pong steps (``SerialSampler``, ``--envs`` envs x 40 steps, the agent's epsilon 1 until
  then: random actions). Each update: priority-proportional draw of 64 sequence starts,
  rebuild of their 125 frame stacks, host-to-device copy, warm-up of the online and target
  states, online forward with gradients over 85 steps, target forward over 85 steps, double-Q
  targets with value rescaling, masked importance-weighted loss, backward, clipping, Adam,
  priority update and OptInfo. No new samples are appended while timing.
- bare ceiling: a plain PyTorch loop with its own ``AtariR2d1Model`` and target copy on one
  fixed batch already on the device (one draw of the same replay, taken before timing): warm-up
  forwards of online and target over 40 steps without gradients, online forward with gradients
  over 85 steps, target forward over 85 steps, double-DQN target with value rescaling, MSE,
  backward, ``clip_grad_norm_``, ``torch.optim.Adam`` step. No replay, no sampling.

A repeat times ``--updates`` updates of each side after one untimed update (on the CPU an
update takes seconds; default 3), or, with ``--seconds`` > 0, as many updates as fit in that
window. The table gives updates/s, median of ``--repeats`` [min-max], and the ratio ours /
bare (target >= 0.85). For information it also times the replay draw alone
(``algo.draw(64)``: the host's part, the copy to the device and, on a GPU, the frame stacking
there), the part of ours that the bare loop does not do, and the host's part both ways
(``sample_batch`` with ``compact_frames`` off: ``[125, 64, 4, 104, 80]`` frame stacks, 266 MB;
on: one frame per step and the zero mask, 68 MB; R2D1 uses the latter off the CPU).

Usage::

    python benchmarks/r2d1_speed.py [--repeats 3] [--updates 3 | --seconds 10]
        [--device cpu|cuda] [--threads 0] [--batch-B 64] [--envs 8] [--fill 5120]
"""

from __future__ import annotations

import argparse
import copy
import os
import statistics
import time
from collections.abc import Callable
from typing import Any

import torch
import torch.nn.functional as F
from _learning import print_ratio, spread  # benchmarks/_learning.py

from rlpyt.agents.dqn.atari.atari_r2d1_agent import AtariR2d1Agent
from rlpyt.algos.dqn.r2d1 import R2D1, inverse_value_rescale, value_rescale
from rlpyt.envs.atari.atari_env import AtariEnv
from rlpyt.experiments.configs.atari.dqn.atari_r2d1 import configs
from rlpyt.models.dqn.atari_r2d1_model import AtariR2d1Model
from rlpyt.models.pg.atari_lstm_model import RnnState
from rlpyt.runners.minibatch_rl import MinibatchRl
from rlpyt.samplers.serial.sampler import SerialSampler
from rlpyt.utils.logging import logger

CONFIG_KEY = "r2d1_long"
SAMPLER_T = 40  # the config's sampler batch_T (= warm-up = state interval)


def config_for(args: argparse.Namespace) -> dict[str, Any]:
    """The ``"r2d1_long"`` config with this run's batch size, replay size and learning start."""
    config = copy.deepcopy(configs[CONFIG_KEY])
    config["algo"].update(
        batch_B=args.batch_B, replay_size=args.replay_size, min_steps_learn=args.fill
    )
    return config


# -- ours -----------------------------------------------------------------------------------------


class R2d1Setup:
    """A started ``MinibatchRl`` for R2D1 on Pong whose replay holds ``--fill`` real steps.

    Attributes:
        runner: The started runner (``SerialSampler``, ``AtariR2d1Agent``, ``R2D1``).
        algo: Its ``R2D1``, past ``min_itr_learn``.
        itr: The next sampler iteration.
    """

    def __init__(self, args: argparse.Namespace, cuda_idx: int | None):
        config = config_for(args)
        self.algo = R2D1(**config["algo"], optim_kwargs=config["optim"])
        agent = AtariR2d1Agent(model_kwargs=config["model"], **config["agent"])
        sampler = SerialSampler(
            EnvCls=AtariEnv,
            env_kwargs=config["env"],
            batch_T=SAMPLER_T,
            batch_B=args.envs,
            max_decorrelation_steps=0,
        )
        self.runner = MinibatchRl(
            algo=self.algo,
            agent=agent,
            sampler=sampler,
            n_steps=1e12,
            log_interval_steps=1e12,
            seed=0,
            affinity=dict(cuda_idx=cuda_idx),
        )
        self.runner.startup()
        self.itr = 0
        while self.itr < self.algo.min_itr_learn or self.itr * SAMPLER_T * args.envs < args.fill:
            self.sample_only()
        self.runner.agent.train_mode(self.itr)

    def sample_only(self) -> None:
        """Sample one batch and append it to the replay (with input priorities)."""
        self.runner.agent.sample_mode(self.itr)
        samples, _ = self.runner.sampler.obtain_samples(self.itr)
        self.algo.append_samples(samples)
        self.itr += 1

    def update(self) -> None:
        """``optimize_agent`` without new samples: ``updates_per_optimize`` updates."""
        self.algo.optimize_agent(self.itr, None)

    def close(self) -> None:
        self.runner.shutdown()


# -- the bare ceiling -----------------------------------------------------------------------------


class BareR2d1:
    """Plain PyTorch R2D1 updates on one fixed batch of sequences on ``device``.

    Args:
        batch: One replay draw (``SamplesFromReplayPri``: ``all_observation [T + n, B, C, H,
            W]`` uint8, ``all_action``/``all_reward [T + n + 1, B]``, the ``[T, B]`` n-step
            targets, ``init_rnn_state``), ``T = warmup_T + batch_T``.
        algo: The R2D1 whose sizes, discount, learning rate and clipping to copy.
        model_kwargs: ``AtariR2d1Model``'s keywords, as the agent built its model with
            (``image_shape``, ``output_size`` and the config's).
        device: Where the models and the batch live.
    """

    def __init__(self, batch: Any, algo: R2D1, model_kwargs: dict, device: torch.device):
        torch.manual_seed(0)
        n_actions = model_kwargs["output_size"]
        self.model = AtariR2d1Model(**model_kwargs).to(device)
        self.target = AtariR2d1Model(**model_kwargs).to(device)
        self.target.load_state_dict(self.model.state_dict())
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=algo.learning_rate, eps=1e-3)
        self.clip, self.eps, self.device = algo.clip_grad_norm, algo.value_scale_eps, device
        self.wT, self.bT = algo.warmup_T, algo.batch_T
        wT = self.wT  # noqa: N806
        on = {"device": device}
        self.observation = batch.all_observation.to(**on)
        self.prev_action = F.one_hot(batch.all_action[:-1], n_actions).float().to(**on)
        self.prev_reward = batch.all_reward[:-1].to(**on)
        self.action = batch.all_action[wT + 1 : wT + self.bT + 1].to(**on)
        self.return_ = batch.return_[wT:].to(**on)
        self.not_done_n = 1 - batch.done_n[wT:].float().to(**on)
        self.discount = batch.target_discount[wT:].to(**on)
        rows = (batch.bootstrap_t[wT:] - wT).clamp(min=0).to(**on)
        self.rows = rows.unsqueeze(-1).expand(-1, -1, n_actions)
        self.init = RnnState(*(s.to(**on) for s in batch.init_rnn_state))

    def update(self) -> None:
        """One gradient step (see the module docstring)."""
        wT = self.wT  # noqa: N806
        obs, pa, pr = self.observation, self.prev_action, self.prev_reward
        with torch.no_grad():
            _, online_state = self.model(obs[:wT], pa[:wT], pr[:wT], self.init)
            _, target_state = self.target(obs[:wT], pa[:wT], pr[:wT], self.init)
        qs, _ = self.model(obs[wT:], pa[wT:], pr[wT:], online_state)
        q = qs[: self.bT].gather(2, self.action.unsqueeze(-1)).squeeze(-1)
        with torch.no_grad():
            target_qs, _ = self.target(obs[wT:], pa[wT:], pr[wT:], target_state)
            next_action = qs.detach().gather(0, self.rows).argmax(dim=-1, keepdim=True)
            bootstrap = target_qs.gather(0, self.rows).gather(2, next_action).squeeze(-1)
            bootstrap = inverse_value_rescale(bootstrap, self.eps)
            y = value_rescale(self.return_ + self.not_done_n * self.discount * bootstrap, self.eps)
        loss = F.mse_loss(q, y)
        self.optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.clip)
        self.optimizer.step()


# -- timing ---------------------------------------------------------------------------------------


def rate(call: Callable[[], None], args: argparse.Namespace, device: torch.device) -> float:
    """Calls/s of ``call``: one untimed call, then ``--updates`` calls or ``--seconds`` of them.

    On CUDA the clock stops after ``torch.cuda.synchronize`` (queued work counted).
    """

    def sync() -> None:
        if device.type == "cuda":
            torch.cuda.synchronize(device)

    call()
    sync()
    n, start = 0, time.perf_counter()
    while True:
        call()
        n += 1
        if args.seconds > 0:
            if time.perf_counter() - start >= args.seconds:
                break
        elif n >= args.updates:
            break
    sync()
    return n / (time.perf_counter() - start)


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} ({os.cpu_count()} CPUs)"


def measure(args: argparse.Namespace) -> None:
    device = torch.device(args.device)
    cuda_idx = (device.index or 0) if device.type == "cuda" else None
    print(f"filling a replay of {args.replay_size:,} steps with {args.fill:,} Pong steps ...")
    setup = R2d1Setup(args, cuda_idx)
    algo = setup.algo
    agent: Any = setup.runner.agent
    model_kwargs = {**agent.env_model_kwargs, **agent.model_kwargs}
    bare = BareR2d1(algo.replay_buffer.sample_batch(algo.batch_B), algo, model_kwargs, device)
    per_call = algo.updates_per_optimize
    print(
        f"replay: {type(algo.replay_buffer).__name__}, T={algo.replay_buffer.T} x "
        f"B={algo.replay_buffer.B}; optimize_agent runs {per_call} update(s) per call; {load()}",
        flush=True,
    )
    rates: dict[str, list[float]] = {
        "bare model": [],
        "ours: optimize_agent": [],
        "replay draw alone, draws/s (info)": [],
        "host part: frame stacks, draws/s (info)": [],
        "host part: one frame per step, draws/s (info)": [],
    }
    replay = algo.replay_buffer

    def host_draw(compact: bool) -> Any:
        replay.compact_frames = compact
        return replay.sample_batch(algo.batch_B)

    try:
        for repeat in range(args.repeats):
            rates["bare model"].append(rate(bare.update, args, device))
            rates["ours: optimize_agent"].append(per_call * rate(setup.update, args, device))
            draw = lambda: algo.draw(algo.batch_B)  # noqa: E731
            rates["replay draw alone, draws/s (info)"].append(rate(draw, args, device))
            for key, compact in [("frame stacks", False), ("one frame per step", True)]:
                name = f"host part: {key}, draws/s (info)"
                rates[name].append(rate(lambda c=compact: host_draw(c), args, device))
            latest = "; ".join(f"{k} {v[-1]:,.3f}" for k, v in rates.items())
            print(f"  repeat {repeat}: {latest}; {load()}", flush=True)
    finally:
        setup.close()
    window = f"{args.seconds:g} s" if args.seconds > 0 else f"{args.updates} updates"
    print(
        f"\n== R2D1 on Pong, {args.batch_B} sequences of {algo.warmup_T} + {algo.batch_T} steps "
        f"(+ {algo.n_step_return}), {window} per repeat: median [min-max] =="
    )
    for key, values in rates.items():
        print(f"{key:40s} {spread(values, ',.3f')}/s  ({1 / statistics.median(values):.3f} s each)")
    medians = {k: statistics.median(v) for k, v in rates.items()}
    print_ratio(
        "ours optimize_agent / bare model (target >= 0.85)",
        medians["ours: optimize_agent"],
        medians["bare model"],
    )
    draw_share = medians["ours: optimize_agent"] / medians["replay draw alone, draws/s (info)"]
    print(f"{'replay draw share of an ours update (info)':56s} {draw_share:.3f}")
    print(f"after: {load()}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    default_device = "cuda" if torch.cuda.is_available() else "cpu"
    parser.add_argument("--device", default=default_device, help="cpu, cuda or cuda:N")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--updates", type=int, default=3, help="timed updates per repeat")
    parser.add_argument(
        "--seconds", type=float, default=0.0, help="timed window per repeat (> 0: instead)"
    )
    parser.add_argument("--threads", type=int, default=0, help="torch threads (0: default)")
    parser.add_argument("--batch-B", dest="batch_B", type=int, default=64, help="sequences")
    parser.add_argument("--envs", type=int, default=8, help="sampler envs (replay columns)")
    parser.add_argument("--replay-size", type=int, default=5120, help="replay steps")
    parser.add_argument("--fill", type=int, default=5120, help="Pong steps put in the replay")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    logger.disable()
    print(
        f"torch {torch.__version__}, threads: {torch.get_num_threads()}, device {args.device}; "
        f"config {CONFIG_KEY!r}; {load()}"
    )
    measure(args)


if __name__ == "__main__":
    main()
