"""Classes that extend a parent's keywords keep rlpyt's full signatures and positional order."""

import inspect

import numpy as np
import pytest

from rlpyt.agents.dqn.catdqn_agent import CatDqnAgent
from rlpyt.agents.qpg.ddpg_agent import DdpgAgent
from rlpyt.agents.qpg.td3_agent import Td3Agent
from rlpyt.algos.dqn.cat_dqn import CategoricalDQN
from rlpyt.algos.dqn.dqn import DQN
from rlpyt.algos.dqn.r2d1 import R2D1
from rlpyt.algos.qpg.td3 import TD3
from rlpyt.replays.sequence.frame import PrioritizedSequenceReplayFrameBuffer
from rlpyt.replays.sequence.prioritized import PrioritizedSequenceReplayBuffer, SequenceSumTree

R2D1_KEYWORDS = {  # rlpyt's order and defaults
    "discount": 0.997, "batch_T": 80, "batch_B": 64, "warmup_T": 40,
    "store_rnn_state_interval": 40, "min_steps_learn": int(1e5), "delta_clip": None,
    "replay_size": int(1e6), "replay_ratio": 1, "target_update_interval": 2500,
    "n_step_return": 5, "learning_rate": 1e-4, "OptimCls": DQN().OptimCls,
    "optim_kwargs": None, "initial_optim_state_dict": None, "clip_grad_norm": 80.0,
    "eps_steps": int(1e6), "double_dqn": True, "prioritized_replay": True, "pri_alpha": 0.6,
    "pri_beta_init": 0.9, "pri_beta_final": 0.9, "pri_beta_steps": int(50e6), "pri_eta": 0.9,
    "default_priority": None, "input_priorities": True, "input_priority_shift": None,
    "value_scale_eps": 1e-3, "ReplayBufferCls": None, "updates_per_sync": 1,
    "snapshot_replay": False, "eps_start_steps": None,
}  # fmt: skip
TD3_ORDER = (
    "batch_size replay_ratio target_update_tau target_update_interval policy_update_interval "
    "mu_learning_rate q_learning_rate discount min_steps_learn replay_size learning_rate "
    "OptimCls optim_kwargs initial_optim_state_dict clip_grad_norm q_target_clip n_step_return "
    "updates_per_sync bootstrap_timelimit ReplayBufferCls snapshot_replay"
).split()


def _defaults(cls):
    return {name: p.default for name, p in inspect.signature(cls).parameters.items()}


def test_r2d1_signature_is_rlpyts():
    assert list(_defaults(R2D1).items()) == list(R2D1_KEYWORDS.items())


def test_categorical_dqn_is_v_range_then_dqns_keywords():
    assert list(_defaults(CategoricalDQN).items()) == [
        ("V_min", -10),
        ("V_max", 10),
        *_defaults(DQN).items(),
    ]


def test_positional_arguments_bind_in_rlpyts_order():
    r2d1 = R2D1(0.9, 10, 2, 5, 5)  # discount, batch_T, batch_B, warmup_T, interval
    assert (r2d1.discount, r2d1.batch_T, r2d1.batch_B, r2d1.warmup_T) == (0.9, 10, 2, 5)
    assert r2d1.batch_size == (10 + 5) * 2 and r2d1.target_update_tau == 1  # DQN's default
    c51 = CategoricalDQN(-5, 5, 0.95, 16)
    assert (c51.V_min, c51.V_max, c51.discount, c51.batch_size) == (-5, 5, 0.95, 16)
    td3 = TD3(50, 2)
    assert (td3.batch_size, td3.replay_ratio, td3.target_update_interval) == (50, 2, 2)


def test_td3_keeps_its_order_and_defaults():
    defaults = _defaults(TD3)
    assert list(defaults) == TD3_ORDER
    assert (defaults["batch_size"], defaults["learning_rate"], defaults["discount"]) == (
        100,
        None,
        0.99,
    )
    assert TD3(learning_rate=3e-4).mu_learning_rate == TD3(learning_rate=3e-4).learning_rate


def test_agents_list_their_parents_keywords():
    cat = list(_defaults(CatDqnAgent))
    assert cat[:4] == ["ModelCls", "model_kwargs", "initial_model_state_dict", "n_atoms"]
    eps = ["eps_init", "eps_final", "eps_final_min", "eps_itr_min", "eps_itr_max", "eps_eval"]
    assert cat[4:] == eps
    td3 = list(_defaults(Td3Agent))
    assert td3[:4] == [
        "pretrain_std",
        "target_noise_std",
        "target_noise_clip",
        "initial_q2_model_state_dict",
    ]
    assert td3[4:] == list(_defaults(DdpgAgent))


@pytest.mark.parametrize(
    "ReplayCls", [PrioritizedSequenceReplayBuffer, PrioritizedSequenceReplayFrameBuffer]
)
def test_sequence_replays_list_storage_then_priority_keywords(ReplayCls):  # noqa: N803
    assert list(_defaults(ReplayCls)) == [
        "example", "size", "B", "rnn_state_interval", "batch_T", "discount", "n_step_return",
        "alpha", "beta", "default_priority", "unique", "input_priorities",
        "input_priority_shift",
    ]  # fmt: skip


@pytest.mark.parametrize("cls", [CategoricalDQN, R2D1, TD3, CatDqnAgent, Td3Agent])
def test_misspelt_keyword_is_named(cls):
    with pytest.raises(TypeError, match="learning_rte"):
        cls(learning_rte=1e-3)


def test_sequence_sum_tree_keeps_period_third_and_keyword_only_draw_options():
    params = inspect.signature(SequenceSumTree).parameters
    assert list(params)[:5] == ["T", "B", "period", "off_backward", "off_forward"]
    assert [name for name, p in params.items() if p.kind is p.KEYWORD_ONLY] == ["rng", "valid"]
    tree = SequenceSumTree(8, 2, 4, 1, 1, rng=np.random.default_rng(0))
    assert (tree.period, tree.storage_T, tree.T, tree.B) == (4, 8, 2, 2)
