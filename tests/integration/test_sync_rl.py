"""SyncRl on torch.distributed (gloo, CPU): identical parameters on every rank, the log, resume,
torchrun, and failures (a rank that raises, a rank killed with SIGKILL).

The ranks are processes; classes they run (the checking runner, the failing env) live at module
level so the spawned ranks can import them.
"""

import copy
import csv
import glob
import hashlib
import os
import signal
import subprocess
import sys
import time

import pytest
import torch
import torch.distributed as dist

from rlpyt.agents.pg.classic import ClassicFfAgent
from rlpyt.algos.pg.ppo import PPO
from rlpyt.envs.gym import make as gym_make
from rlpyt.experiments.configs.classic.pg.cartpole_ppo import configs as cartpole_ppo_configs
from rlpyt.runners.divergence import DivergenceError
from rlpyt.runners.sync_ranks import RankError
from rlpyt.runners.sync_rl import SyncRl, SyncRlEval
from rlpyt.samplers.serial.sampler import SerialSampler
from rlpyt.utils.logging.context import logger_context
from tests.unit.samplers.sampler_helpers import sampler_children

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ONE_THREAD = dict(master_torch_threads=1, set_affinity=False)
FAIL_RANK = "RLPYT_TEST_FAIL_RANK"  # the rank whose env fails (read in the rank process)
FAIL_HOW = "RLPYT_TEST_FAIL_HOW"  # "raise" or "kill"
FAIL_STAMP = "RLPYT_TEST_FAIL_STAMP"  # file the failing env writes the time of its failure to


class CheckedSyncRl(SyncRl):
    """SyncRl that gathers a hash of every rank's parameters after each update to rank 0."""

    def store_diagnostics(self, itr, traj_infos, opt_info):
        digest = _param_hash(self.agent)
        hashes = [None] * self.world_size
        dist.all_gather_object(hashes, digest)
        self.hashes = [*getattr(self, "hashes", []), hashes]
        super().store_diagnostics(itr, traj_infos, opt_info)

    def log_diagnostics(self, itr, *args, **kwargs):
        row = super().log_diagnostics(itr, *args, **kwargs)
        if self.rank == 0:
            row["hashes"] = list(self.hashes)
        return row


def _param_hash(agent):
    """A hash of every tensor of the agent's state dict (all models, targets included)."""
    digest = hashlib.sha1()

    def add(value):
        if isinstance(value, torch.Tensor):
            digest.update(value.detach().cpu().numpy().tobytes())
        elif isinstance(value, dict):
            for key in sorted(value):
                add(value[key])

    add(agent.state_dict())
    return digest.hexdigest()


def failing_cartpole(**kwargs):
    """CartPole whose 40th step fails in the rank named by ``$RLPYT_TEST_FAIL_RANK``."""
    env = gym_make(id="CartPole-v1")
    if os.environ.get(FAIL_RANK) == str(_this_rank()):
        step, count = env.step, [0]

        def failing_step(action):
            count[0] += 1
            if count[0] == 40:
                with open(os.environ[FAIL_STAMP], "w") as f:
                    f.write(repr(time.time()))
                if os.environ.get(FAIL_HOW) == "kill":
                    os.kill(os.getpid(), signal.SIGKILL)
                raise ValueError("injected env failure")
            return step(action)

        env.step = failing_step
    return env


def _this_rank():
    return dist.get_rank() if dist.is_initialized() else -1


class NanOnRankOnePPO(PPO):
    """PPO whose OptInfo reports a NaN loss at iteration 1 on rank 1 only."""

    def optimize_agent(self, itr, samples):
        opt_info = super().optimize_agent(itr, samples)
        if itr == 1 and _this_rank() == 1:
            opt_info.loss[-1] = float("nan")
        return opt_info


def sync_runner(RunnerCls=CheckedSyncRl, n_steps=4 * 2 * 32 * 4, EnvCls=gym_make, **kwargs):  # noqa: N803
    env_kwargs = dict(id="CartPole-v1") if EnvCls is gym_make else dict()
    sampler = SerialSampler(
        EnvCls=EnvCls,
        env_kwargs=env_kwargs,
        batch_T=32,
        batch_B=4,
        max_decorrelation_steps=0,
        **kwargs.pop("sampler_kwargs", {}),
    )
    return RunnerCls(
        algo=PPO(minibatches=2, epochs=2, linear_lr_schedule=False),  # resume: n_itr differs
        agent=ClassicFfAgent(),
        sampler=sampler,
        n_steps=n_steps,
        seed=3,
        affinity=[ONE_THREAD, ONE_THREAD],
        log_interval_steps=2 * 32 * 4 * 2,
        **kwargs,
    )


def read_progress(run_dir):
    with open(os.path.join(run_dir, "progress.csv"), newline="") as f:
        return list(csv.DictReader(f))


def children():
    """Live child processes of the test, without multiprocessing's own long-lived helpers
    (resource tracker, forkserver: an earlier test in the same session may have started them)."""
    return sampler_children()


def test_two_ranks_keep_identical_parameters_and_log_all_trajectories(tmp_path):
    runner = sync_runner()
    with logger_context(str(tmp_path), 0, "sync", {}, override_prefix=True, snapshot_mode="last"):
        rows = list(runner.iter_train())
    hashes = rows[-1]["hashes"]
    assert len(hashes) == 4  # every iteration, after its update
    for per_rank in hashes:
        assert len(per_rank) == 2 and per_rank[0] == per_rank[1], per_rank
    assert len({h[0] for h in hashes}) == 4  # the parameters did change each update
    progress = read_progress(os.path.join(str(tmp_path), "run_0"))
    assert [int(r["Diagnostics/CumSteps"]) for r in progress] == [512, 1024]
    # Both ranks' episodes reach the log: 1024 CartPole steps hold > 8 complete episodes of
    # rank 0 alone only if episodes are short; compare with the steps logged per rank instead.
    steps_in_window = int(progress[-1]["Diagnostics/StepsInTrajWindow"])
    assert steps_in_window > 512  # more than one rank's 512 steps of this log interval
    assert not children()


def test_resume_continues_exactly_on_every_rank(tmp_path):
    full = sync_runner(n_steps=4 * 256)
    with logger_context(str(tmp_path), 0, "full", {}, override_prefix=True):
        full_rows = list(full.iter_train())
    part = sync_runner(n_steps=2 * 256)
    with logger_context(str(tmp_path), 1, "part", {}, override_prefix=True, snapshot_mode="last"):
        part.train()
    resumed = sync_runner(n_steps=4 * 256)
    with logger_context(str(tmp_path), 1, "part", {}, override_prefix=True, resume=True):
        resumed_rows = list(resumed.iter_train(resume_from=True))
    assert resumed_rows[-1]["hashes"][-1] == full_rows[-1]["hashes"][-1]
    full_csv = read_progress(os.path.join(str(tmp_path), "run_0"))
    part_csv = read_progress(os.path.join(str(tmp_path), "run_1"))
    assert [r["ReturnAverage"] for r in part_csv] == [r["ReturnAverage"] for r in full_csv]


def test_eval_runner_evaluates_in_rank_zero(tmp_path):
    runner = sync_runner(
        RunnerCls=SyncRlEval, n_steps=256, sampler_kwargs=dict(eval_n_envs=1, eval_max_steps=300)
    )
    with logger_context(str(tmp_path), 0, "eval", {}, override_prefix=True):
        runner.train()
    progress = read_progress(os.path.join(str(tmp_path), "run_0"))
    # n_steps is one batch of both ranks: the run ends (and logs) there, inside its first log
    # interval of 512 steps (rlpyt rounded n_steps up to whole log intervals: [0, 512])
    assert [int(r["Diagnostics/CumSteps"]) for r in progress] == [0, 256]
    assert all(int(r["Diagnostics/TrajsInEval"]) >= 1 for r in progress)


def test_a_rank_that_diverges_stops_every_rank_at_that_iteration(tmp_path):
    runner = sync_runner(RunnerCls=SyncRl)
    runner.algo = NanOnRankOnePPO(minibatches=2, epochs=2, linear_lr_schedule=False)
    with (
        logger_context(str(tmp_path), 0, "div", {}, override_prefix=True, snapshot_mode="last"),
        pytest.raises(
            DivergenceError, match=r"iteration 1: OptInfo field 'loss' \(nan\) \(rank 1\)"
        ),
    ):
        runner.train()
    assert len(read_progress(os.path.join(str(tmp_path), "run_0"))) == 0  # logs after itr 1
    assert not children()


@pytest.mark.parametrize("how", ["raise", "kill"])
def test_failed_rank_raises_in_master_quickly(tmp_path, monkeypatch, how):
    monkeypatch.setenv(FAIL_RANK, "1")
    monkeypatch.setenv(FAIL_HOW, how)
    stamp = tmp_path / "failed_at"
    monkeypatch.setenv(FAIL_STAMP, str(stamp))
    runner = sync_runner(EnvCls=failing_cartpole, n_steps=10_000)
    with pytest.raises(RankError) as info:
        runner.train()
    raised_at = time.time()
    assert info.value.rank == 1
    if how == "raise":
        assert "injected env failure" in str(info.value) and "Traceback" in str(info.value)
    else:
        assert "SIGKILL" in str(info.value)
    assert raised_at - float(stamp.read_text()) < 10
    assert not children()
    assert not dist.is_initialized()


def test_single_affinity_dict_is_refused():
    runner = sync_runner()
    runner.affinity = dict(ONE_THREAD)
    with pytest.raises(TypeError, match="list of affinities"):
        runner.train()


def test_torchrun_two_ranks(tmp_path):
    script = os.path.join(REPO, "experiments/scripts/classic/pg/train/cartpole_ppo_sync.py")
    torchrun = os.path.join(os.path.dirname(sys.executable), "torchrun")
    command = [torchrun, "--standalone", "--nproc-per-node", "2", script]
    command += ["--log_dir", str(tmp_path), "--n_steps", "1024", "--log_interval_steps", "512"]
    done = subprocess.run(
        command, check=False, capture_output=True, text=True, timeout=180, cwd=REPO
    )
    assert done.returncode == 0, done.stderr[-3000:]
    (progress,) = glob.glob(os.path.join(str(tmp_path), "*", "progress.csv"))
    with open(progress, newline="") as f:
        rows = list(csv.DictReader(f))
    assert [int(r["Diagnostics/CumSteps"]) for r in rows] == [512, 1024]


def test_torchrun_rank_failure_ends_the_job(tmp_path):
    script = os.path.join(REPO, "tests/integration/sync_rl_rank_script.py")
    torchrun = os.path.join(os.path.dirname(sys.executable), "torchrun")
    command = [torchrun, "--standalone", "--nproc-per-node", "2", script, str(tmp_path)]
    stamp = tmp_path / "failed_at"
    env = dict(os.environ, **{FAIL_RANK: "1", FAIL_HOW: "raise", FAIL_STAMP: str(stamp)})
    done = subprocess.run(
        command, check=False, capture_output=True, text=True, timeout=180, env=env
    )
    ended_at = time.time()
    assert done.returncode != 0
    assert "injected env failure" in done.stdout + done.stderr
    assert ended_at - float(stamp.read_text()) < 10
    assert not children()


def test_dqn_ranks_share_online_and_target_networks():
    # Each rank builds its target network from its own seed: without rank 0's state broadcast
    # at start-up the targets (and so the TD targets) would differ between ranks.
    from rlpyt.agents.dqn.classic import ClassicDqnAgent
    from rlpyt.algos.dqn.dqn import DQN

    sampler = SerialSampler(
        EnvCls=gym_make,
        env_kwargs=dict(id="CartPole-v1"),
        batch_T=16,
        batch_B=2,
        max_decorrelation_steps=0,
    )
    runner = CheckedSyncRl(
        algo=DQN(min_steps_learn=128, batch_size=16, replay_size=1000, target_update_interval=4),
        agent=ClassicDqnAgent(),
        sampler=sampler,
        n_steps=64 * 6,
        seed=1,
        affinity=[ONE_THREAD, ONE_THREAD],
        log_interval_steps=64 * 6,
    )
    (row,) = list(runner.iter_train())
    assert all(per_rank[0] == per_rank[1] for per_rank in row["hashes"]), row["hashes"]
    assert len({per_rank[0] for per_rank in row["hashes"]}) > 2  # updates happened


@pytest.mark.learning
def test_ppo_cartpole_two_ranks_reaches_475(tmp_path):
    # RL-zoo's CartPole PPO (the "0" config, as tests/learning/test_pg_classic.py) with its 8
    # envs split over 2 ranks (32 x 4 each): the same global batch of 256 steps per update.
    config = copy.deepcopy(cartpole_ppo_configs["0"])
    config["sampler"]["batch_B"] = 4
    sampler = SerialSampler(EnvCls=gym_make, env_kwargs=config["env"], **config["sampler"])
    runner = SyncRl(
        algo=PPO(optim_kwargs=config["optim"], **config["algo"]),
        agent=ClassicFfAgent(model_kwargs=config["model"]),
        sampler=sampler,
        n_steps=100_000,
        seed=1,
        affinity=[ONE_THREAD, ONE_THREAD],
        log_interval_steps=5_120,
        target_reward=475,  # every rank stops at the first row reaching it
    )
    with logger_context(str(tmp_path), 0, "learn", {}, override_prefix=True):
        runner.train()
    returns = [float(r["ReturnAverage"]) for r in read_progress(str(tmp_path / "run_0"))]
    assert max(returns) >= 475, returns


def test_cpu_rank_affinities_split_the_run_cores():
    from rlpyt.utils.launching.affinity import AffinityError, make_affinity

    common = dict(n_cpu_core=4, n_gpu=0, hyperthread_offset=0, n_socket=1, set_affinity=False)
    ranks = make_affinity(run_slot=1, cpu_per_run=2, gpu_per_run=2, **common)
    assert [a["master_cpus"] for a in ranks] == [(2,), (3,)]
    # Threads: decided by each rank from its one CPU and its model (never more than 1 here).
    assert all(a["cuda_idx"] is None and a["master_torch_threads"] is None for a in ranks)
    with pytest.raises(AffinityError, match="multiple of gpu_per_run"):
        make_affinity(cpu_per_run=3, gpu_per_run=2, **common)


def test_resume_with_another_number_of_ranks_is_refused(tmp_path):
    with logger_context(str(tmp_path), 0, "two", {}, override_prefix=True, snapshot_mode="last"):
        sync_runner(n_steps=512).train()
    one = sync_runner(RunnerCls=SyncRl, n_steps=1024)
    one.affinity = [ONE_THREAD]
    with logger_context(str(tmp_path), 0, "two", {}, override_prefix=True, resume=True):
        with pytest.raises(ValueError, match="same number of ranks"):
            one.train(resume_from=True)
