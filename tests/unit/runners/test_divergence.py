"""The divergence guard's checks: which OptInfo fields, which parameters, overflowing sums."""

from collections import namedtuple

import pytest
import torch

from rlpyt.runners.divergence import find_divergence, nonfinite_opt_info, parameters_finite
from rlpyt.runners.snapshot import nonfinite_tensor

OptInfo = namedtuple("OptInfo", ["loss", "gradNorm", "entropy", "q1GradNorm", "piLoss"])
NAN, INF = float("nan"), float("inf")


def opt_info(**bad):
    values = dict(loss=[1.0, 2.0], gradNorm=[0.5], entropy=[0.7], q1GradNorm=[], piLoss=[3.0])
    return OptInfo(**{**values, **bad})


@pytest.mark.parametrize(
    ("bad", "found"),
    [
        ({}, None),
        ({"entropy": [NAN]}, None),  # only losses and gradient norms are guarded
        ({"loss": [1.0, NAN]}, "OptInfo field 'loss' (nan)"),
        ({"gradNorm": [INF]}, "OptInfo field 'gradNorm' (inf)"),
        ({"q1GradNorm": [-INF]}, "OptInfo field 'q1GradNorm' (-inf)"),
        ({"piLoss": NAN}, "OptInfo field 'piLoss' (nan)"),  # a number, not a list
    ],
)
def test_guarded_opt_info_fields(bad, found):
    assert nonfinite_opt_info(opt_info(**bad)) == found


def test_no_opt_info_is_finite():
    assert nonfinite_opt_info(None) is None


def test_parameters_finite_finds_nan_and_infinity_in_any_tensor():
    tensors = [torch.ones(3, 4), torch.zeros(5)]
    assert parameters_finite(tensors)
    for value in (NAN, INF, -INF):
        broken = [torch.ones(3, 4), torch.zeros(5)]
        broken[1][2] = value
        assert not parameters_finite(broken)
    assert parameters_finite([])
    assert parameters_finite([torch.arange(3)])  # integer tensors are skipped


def test_finite_parameters_whose_sum_overflows_are_finite():
    huge = torch.full((10,), 3e38)  # each finite; their float32 sum is inf
    assert torch.isinf(huge.sum())
    assert parameters_finite([huge])


def test_nonfinite_tensor_names_the_nested_key():
    state = {"model": {"fc.weight": torch.ones(2), "fc.bias": torch.zeros(2)}, "steps": 3}
    assert nonfinite_tensor(state) is None
    state["model"]["fc.bias"][1] = NAN
    assert nonfinite_tensor(state) == "model.fc.bias"


class TinyAgent:
    def __init__(self):
        self.model = torch.nn.Linear(2, 2)

    def parameters(self):
        return self.model.parameters()

    def state_dict(self):
        return self.model.state_dict()


def test_find_divergence_checks_opt_info_first_then_names_the_parameter():
    agent = TinyAgent()
    assert find_divergence(opt_info(), agent) is None
    with torch.no_grad():
        agent.model.weight[0, 1] = INF
    assert find_divergence(opt_info(), agent) == "agent parameter 'weight'"
    assert find_divergence(opt_info(loss=[NAN]), agent) == "OptInfo field 'loss' (nan)"


def test_finite_opt_info_values_whose_sum_overflows_are_finite():
    assert nonfinite_opt_info(opt_info(loss=[1e308, 1e308])) is None
    assert nonfinite_opt_info(opt_info(loss=[1e308, INF, -INF])) == "OptInfo field 'loss' (inf)"
