import pytest
import torch

from rlpyt.models.conv2d import Conv2dHeadModel, Conv2dModel
from rlpyt.models.mlp import MlpModel


def test_mlp_layers_and_output_size():
    mlp = MlpModel(5, [8, 6], output_size=3, nonlinearity=torch.nn.Tanh)
    kinds = [type(m) for m in mlp.model]
    assert kinds == [
        torch.nn.Linear,
        torch.nn.Tanh,
        torch.nn.Linear,
        torch.nn.Tanh,
        torch.nn.Linear,
    ]
    assert mlp.output_size == 3
    assert mlp(torch.randn(2, 4, 5)).shape == (2, 4, 3)


def test_mlp_without_output_layer_ends_with_nonlinearity():
    mlp = MlpModel(5, 7)
    assert isinstance(mlp.model[-1], torch.nn.ReLU)
    assert mlp.output_size == 7
    assert (mlp(torch.randn(10, 5)) >= 0).all()


def test_mlp_without_hidden_layers_is_linear():
    mlp = MlpModel(4, None, output_size=2)
    assert len(mlp.model) == 1 and mlp.output_size == 2


@pytest.mark.parametrize("use_maxpool", [False, True])
def test_conv_out_size_matches_forward(use_maxpool):
    conv = Conv2dModel(4, [16, 32], [8, 4], [4, 2], [0, 1], use_maxpool=use_maxpool)
    out = conv(torch.zeros(3, 4, 104, 80))
    assert conv.conv_out_size(104, 80) == out[0].numel()


def test_conv_maxpool_moves_stride_to_pool():
    conv = Conv2dModel(1, [4, 4], [3, 3], [2, 1], use_maxpool=True)
    convs = [m for m in conv.conv if isinstance(m, torch.nn.Conv2d)]
    pools = [m for m in conv.conv if isinstance(m, torch.nn.MaxPool2d)]
    assert [c.stride for c in convs] == [(1, 1), (1, 1)]
    assert len(pools) == 1 and pools[0].kernel_size == 2


def test_conv_rejects_mismatched_layer_lists():
    with pytest.raises(ValueError, match="one entry per layer"):
        Conv2dModel(1, [4, 4], [3], [1, 1])


def test_conv_head_sizes_is_accepted_and_ignored_with_warning():
    with pytest.warns(UserWarning, match="head_sizes"):
        conv = Conv2dModel(1, [4], [3], [1], head_sizes=[10])
    assert conv(torch.zeros(1, 1, 5, 5)).shape == (1, 4, 3, 3)


def test_conv_head_model_output_sizes():
    head = Conv2dHeadModel(
        (4, 104, 80), [16, 32], [8, 4], [4, 2], hidden_sizes=[64], paddings=[0, 1]
    )
    assert head.output_size == 64
    assert head(torch.zeros(2, 4, 104, 80)).shape == (2, 64)
    head = Conv2dHeadModel((4, 20, 20), [8], [4], [2], hidden_sizes=[32], output_size=5)
    assert head.output_size == 5 and head(torch.zeros(3, 4, 20, 20)).shape == (3, 5)
    flat = Conv2dHeadModel((4, 20, 20), [8], [4], [2], hidden_sizes=None)
    assert flat.output_size == 8 * 9 * 9
    assert flat(torch.zeros(3, 4, 20, 20)).shape == (3, 8 * 9 * 9)


def test_conv_out_size_rejects_padding_by_name():
    conv = Conv2dModel(4, [16], [3], [1], ["same"])
    assert conv(torch.zeros(1, 4, 10, 10)).shape == (1, 16, 10, 10)  # torch pads by name
    with pytest.raises(ValueError, match="padding='same'"):
        conv.conv_out_size(10, 10)
