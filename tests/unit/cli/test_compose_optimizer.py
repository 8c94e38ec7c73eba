"""``rlpyt train`` builds the algorithm's optimizer before the run, through a declared seam."""

import pytest
import torch

from rlpyt.algos.dqn.cat_dqn import CategoricalDQN
from rlpyt.algos.dqn.dqn import DQN
from rlpyt.algos.dqn.r2d1 import R2D1
from rlpyt.algos.pg.a2c import A2C
from rlpyt.algos.pg.ppo import PPO
from rlpyt.algos.qpg.ddpg import DDPG
from rlpyt.algos.qpg.sac import SAC
from rlpyt.algos.qpg.sac_v import SAC_V
from rlpyt.algos.qpg.td3 import TD3
from rlpyt.cli.compose import _make_optimizer
from rlpyt.protocols import OptimClsAlgorithm

ALGOS = (A2C, PPO, DQN, CategoricalDQN, R2D1, DDPG, TD3, SAC, SAC_V)


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = torch.nn.Linear(2, 1)


@pytest.mark.parametrize("AlgoCls", ALGOS, ids=lambda cls: cls.__name__)
def test_every_builtin_algorithm_declares_its_optimizer_keywords(AlgoCls):  # noqa: N803
    assert isinstance(AlgoCls(), OptimClsAlgorithm)


def test_the_check_builds_the_optimizer_with_the_algorithms_keywords():
    algo = PPO(OptimCls=torch.optim.SGD, learning_rate=0.5, optim_kwargs=dict(momentum=0.9))
    built = []

    def recording_sgd(params, **kwargs):
        built.append(kwargs)
        return torch.optim.SGD(params, **kwargs)

    algo.OptimCls = recording_sgd
    _make_optimizer(algo, Net())
    assert built == [dict(lr=0.5, momentum=0.9)]
    algo.optim_kwargs = dict(no_such_keyword=1)
    algo.OptimCls = torch.optim.SGD
    with pytest.raises(TypeError, match="no_such_keyword"):
        _make_optimizer(algo, Net())


def test_an_algorithm_without_those_keywords_is_left_to_its_run():
    class OwnOptimizerAlgo:  # builds its optimizer its own way
        learning_rate = 0.1

    _make_optimizer(OwnOptimizerAlgo(), Net())  # nothing to build, nothing raised
