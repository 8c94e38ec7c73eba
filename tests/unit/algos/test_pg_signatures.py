"""A2C and PPO spell out rlpyt's keywords and defaults; their shared ones are stored alike."""

import inspect

import pytest
import torch

from rlpyt.algos.pg.a2c import A2C
from rlpyt.algos.pg.base import PolicyGradientAlgo
from rlpyt.algos.pg.ppo import PPO

# rlpyt's constructor keywords, in order, with its defaults (inventory 1.2).
A2C_KEYWORDS = dict(
    discount=0.99,
    learning_rate=0.001,
    value_loss_coeff=0.5,
    entropy_loss_coeff=0.01,
    OptimCls=torch.optim.Adam,
    optim_kwargs=None,
    clip_grad_norm=1.0,
    initial_optim_state_dict=None,
    gae_lambda=1,
    normalize_advantage=False,
)
PPO_KEYWORDS = dict(
    discount=0.99,
    learning_rate=0.001,
    value_loss_coeff=1.0,
    entropy_loss_coeff=0.01,
    OptimCls=torch.optim.Adam,
    optim_kwargs=None,
    clip_grad_norm=1.0,
    initial_optim_state_dict=None,
    gae_lambda=1,
    minibatches=4,
    epochs=4,
    ratio_clip=0.1,
    linear_lr_schedule=True,
    normalize_advantage=False,
)
SHARED = dict(
    discount=0.9,
    learning_rate=3e-4,
    value_loss_coeff=0.25,
    entropy_loss_coeff=0.02,
    OptimCls=torch.optim.SGD,
    optim_kwargs=dict(momentum=0.5),
    clip_grad_norm=0.5,
    initial_optim_state_dict=None,
    gae_lambda=0.95,
    normalize_advantage=True,
)
VARIADIC = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)


@pytest.mark.parametrize("AlgoCls, keywords", [(A2C, A2C_KEYWORDS), (PPO, PPO_KEYWORDS)])
def test_constructor_lists_rlpyts_keywords_and_defaults(AlgoCls, keywords):  # noqa: N803
    params = inspect.signature(AlgoCls).parameters
    assert {name: p.default for name, p in params.items()} == keywords
    assert list(params) == list(keywords)
    assert not any(p.kind in VARIADIC for p in params.values())
    with pytest.raises(TypeError):
        AlgoCls(learning_rat=0.1)


@pytest.mark.parametrize("AlgoCls", [A2C, PPO])
def test_initialize_has_a_real_signature(AlgoCls):  # noqa: N803
    params = inspect.signature(AlgoCls.initialize).parameters
    assert list(params) == [
        "self",
        "agent",
        "n_itr",
        "batch_spec",
        "mid_batch_reset",
        "examples",
        "world_size",
        "rank",
    ]
    assert not any(p.kind in VARIADIC for p in params.values())


def test_shared_hyperparameters_are_stored_alike():
    a2c, ppo = A2C(**SHARED), PPO(**SHARED)
    for name, value in SHARED.items():
        assert getattr(a2c, name) == value == getattr(ppo, name), name
    assert a2c.optim_kwargs is not SHARED["optim_kwargs"]  # copied, never shared
    assert A2C().optim_kwargs == {} == PPO().optim_kwargs


def test_the_base_declares_exactly_the_shared_hyperparameters():
    assert list(PolicyGradientAlgo.__hyperparams__) == list(SHARED)
    params = inspect.signature(PolicyGradientAlgo).parameters
    assert {name: p.default for name, p in params.items()} == A2C_KEYWORDS
    with pytest.raises(TypeError, match=r"PolicyGradientAlgo cannot be constructed: it lacks "):
        PolicyGradientAlgo(**SHARED)
