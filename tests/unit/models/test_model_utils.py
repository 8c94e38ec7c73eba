import pytest
import torch

from rlpyt.models.mlp import MlpModel
from rlpyt.models.utils import (
    conv2d_output_shape,
    scale_grad,
    strip_ddp_state_dict,
    update_state_dict,
)


@pytest.mark.parametrize(
    "h, w, kernel, stride, padding, dilation",
    [
        (104, 80, 8, 4, 0, 1),
        (25, 19, 4, 2, 1, 1),
        (11, 8, 3, 1, 1, 1),
        (17, 13, (3, 5), (2, 1), (0, 2), 1),
        (20, 20, 3, 1, 0, 2),
        (7, 7, 7, 1, 0, 1),
    ],
)
def test_conv2d_output_shape_matches_a_real_conv(h, w, kernel, stride, padding, dilation):
    conv = torch.nn.Conv2d(2, 3, kernel, stride, padding, dilation)
    out = conv(torch.zeros(1, 2, h, w))
    assert conv2d_output_shape(h, w, kernel, stride, padding, dilation) == tuple(out.shape[2:])


def test_conv2d_output_shape_matches_maxpool():
    pool = torch.nn.MaxPool2d(2)
    out = pool(torch.zeros(1, 1, 25, 19))
    assert conv2d_output_shape(25, 19, pool.kernel_size, pool.stride, pool.padding) == tuple(
        out.shape[2:]
    )


def test_scale_grad_identity_forward_scaled_backward():
    x = torch.randn(5, requires_grad=True)
    y = scale_grad(x, 0.25)
    assert torch.equal(y, x)
    (3.0 * y).sum().backward()
    assert torch.allclose(x.grad, torch.full((5,), 0.75))


def test_strip_ddp_state_dict_removes_only_the_leading_prefix():
    sd = {"module.a.weight": 1, "b.module.c": 2, "module.module.d": 3}
    assert strip_ddp_state_dict(sd) == {"a.weight": 1, "b.module.c": 2, "module.d": 3}


def _pair():
    torch.manual_seed(0)
    return MlpModel(3, [4], 2), MlpModel(3, [4], 2)


def test_update_state_dict_hard_copy():
    target, source = _pair()
    update_state_dict(target, source.state_dict(), tau=1)
    for k, v in target.state_dict().items():
        assert torch.equal(v, source.state_dict()[k])


def test_update_state_dict_polyak_average():
    target, source = _pair()
    before = {k: v.clone() for k, v in target.state_dict().items()}
    update_state_dict(target, source.state_dict(), tau=0.1)
    for k, v in target.state_dict().items():
        expected = 0.1 * source.state_dict()[k] + 0.9 * before[k]
        assert torch.allclose(v, expected, atol=1e-7)
        assert not torch.equal(v, before[k])


def test_update_state_dict_strips_ddp_prefix_and_updates_in_place():
    target, source = _pair()
    weight = target.model[0].weight
    before = weight.detach().clone()
    prefixed = {"module." + k: v for k, v in source.state_dict().items()}
    update_state_dict(target, prefixed, tau=0.5)
    assert target.model[0].weight is weight  # same tensor: shared memory stays shared
    assert torch.allclose(weight, 0.5 * (source.model[0].weight + before))


def test_update_state_dict_rejects_bad_tau():
    target, source = _pair()
    with pytest.raises(ValueError, match="tau"):
        update_state_dict(target, source.state_dict(), tau=0)
