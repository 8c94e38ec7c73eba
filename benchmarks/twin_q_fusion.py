"""Do fused twin critics or ``torch.compile`` make the twin-Q update of SAC/TD3 faster here?

Box: benchmarks (never part of the test suite). Measures one critic update of the Pendulum
configs' twin Q-functions (``QofMuMlpModel``: observation 3 + action 1 -> hidden -> 1; batch
256), the part of a SAC/TD3 update that fusing the two critics would change: both Qs on the
replayed batch, the loss ``0.5 (y - Q1)^2 + 0.5 (y - Q2)^2`` against a fixed target, backward
and the optimizer step, in four forms:

- ``separate``: two modules, one Adam each (what ``SacAgent``/``Td3Agent`` and SAC do today);
- ``stacked per call``: the same two modules, evaluated as one batched module by stacking their
  weights at each call (the first layer as one matmul of the concatenated weights, the others
  as ``baddbmm`` over the pair), gradients flowing back into the two modules' parameters;
- ``stacked parameters``: one module whose parameters are the pair's weights stacked
  (``[2, out, in]``), one Adam (elementwise, so the same update as two);
- ``aliased storage``: the two modules and their two Adams as in ``separate`` (so their state
  dicts, optimizer states and per-critic gradient norms stay what they are), but each layer's
  weights and biases are views of one stacked tensor (``[2, out, in]``, ``[2, 1, out]``): the
  forward is one ``baddbmm`` per layer on those tensors, and after the backward each module's
  gradients are set to views of theirs. The fusion SAC/TD3 could adopt without changing any
  interface;
- ``compiled``: ``separate`` with the loss function under ``torch.compile`` (default mode;
  the compile time is reported apart, not in the rate).

For each hidden size (SAC's 256x256, TD3's 400x300, and 64x64 for small networks) it prints
the microseconds per update (median [min-max] of ``--repeats`` windows of ``--updates``
updates, forms interleaved) and the ratio to ``separate``, after checking that every form
computes the same Q values as ``separate`` (float32, to 1e-5) and still does after 3 updates of
each (to 1e-4). Usage: ``python benchmarks/twin_q_fusion.py [--threads 0] [--repeats 5]
[--updates 200] [--device cpu] [--no-compile]``.
"""

from __future__ import annotations

import argparse
import copy
import statistics
import time

import torch

from rlpyt.models.qpg.mlp import QofMuMlpModel

OBS, ACT, BATCH = 3, 1, 256
SIZES = {"SAC 256x256": [256, 256], "TD3 400x300": [400, 300], "small 64x64": [64, 64]}


def linears(q: QofMuMlpModel) -> list[torch.nn.Linear]:
    """The Linear layers of a Q model's MLP, in order."""
    return [m for m in q.modules() if isinstance(m, torch.nn.Linear)]


def stacked_per_call(q1: QofMuMlpModel, q2: QofMuMlpModel, x: torch.Tensor) -> torch.Tensor:
    """``[2, N]``: both Qs of input ``x [N, in]``, weights stacked at each call."""
    layers = list(zip(linears(q1), linears(q2), strict=True))
    first_1, first_2 = layers[0]
    w = torch.cat([first_1.weight, first_2.weight])
    b = torch.cat([first_1.bias, first_2.bias])
    h = torch.relu(torch.addmm(b, x, w.t()))  # [N, 2 H]
    h = h.view(x.shape[0], 2, -1).transpose(0, 1)  # [2, N, H]
    for i, (a, c) in enumerate(layers[1:], start=2):
        weight = torch.stack([a.weight, c.weight]).transpose(1, 2)
        h = torch.baddbmm(torch.stack([a.bias, c.bias]).unsqueeze(1), h, weight)
        if i < len(layers):
            h = torch.relu(h)
    return h.squeeze(-1)


class StackedTwinQ(torch.nn.Module):
    """Two Q MLPs as one: parameters ``[2, out, in]`` and ``[2, 1, out]``, copied from a pair."""

    def __init__(self, q1: QofMuMlpModel, q2: QofMuMlpModel):
        super().__init__()
        pairs = list(zip(linears(q1), linears(q2), strict=True))
        self.weights = torch.nn.ParameterList(
            torch.nn.Parameter(torch.stack([a.weight, c.weight]).transpose(1, 2).detach().clone())
            for a, c in pairs
        )
        self.biases = torch.nn.ParameterList(
            torch.nn.Parameter(torch.stack([a.bias, c.bias]).unsqueeze(1).detach().clone())
            for a, c in pairs
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """``[2, N]``: both Qs of ``x [N, in]``."""
        h = x.unsqueeze(0).expand(2, *x.shape)
        last = len(self.weights) - 1
        for i, (w, b) in enumerate(zip(self.weights, self.biases, strict=True)):
            h = torch.baddbmm(b, h, w)
            if i < last:
                h = torch.relu(h)
        return h.squeeze(-1)


class AliasedTwinQ:
    """A pair of Q modules whose parameters are views of stacked tensors, evaluated as one.

    The modules keep their own ``Parameter`` objects (and so their state dicts and optimizers);
    only the storage moves: ``q1``'s layer ``i`` weight is ``weights[i][0]``, ``q2``'s is
    ``weights[i][1]``. An optimizer stepping a module's parameters in place writes into the
    stacked tensors, so the fused forward always sees the current weights.
    """

    def __init__(self, q1: QofMuMlpModel, q2: QofMuMlpModel):
        self.pairs = list(zip(linears(q1), linears(q2), strict=True))
        self.weights: list[torch.Tensor] = []
        self.biases: list[torch.Tensor] = []
        for a, c in self.pairs:
            weight = torch.stack([a.weight, c.weight]).detach().requires_grad_()
            bias = torch.stack([a.bias, c.bias]).unsqueeze(1).detach().requires_grad_()
            a.weight.data, c.weight.data = weight.data[0], weight.data[1]
            a.bias.data, c.bias.data = bias.data[0, 0], bias.data[1, 0]
            self.weights.append(weight)
            self.biases.append(bias)
        self.leaves = [*self.weights, *self.biases]

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        """``[2, N]``: both Qs of ``x [N, in]``."""
        h = x.unsqueeze(0).expand(2, *x.shape)
        last = len(self.weights) - 1
        for i, (w, b) in enumerate(zip(self.weights, self.biases, strict=True)):
            h = torch.baddbmm(b, h, w.transpose(1, 2))
            if i < last:
                h = torch.relu(h)
        return h.squeeze(-1)

    def backward(self, loss: torch.Tensor) -> None:
        """Gradients of ``loss`` into the stacked tensors, then into each module as views."""
        for leaf in self.leaves:
            leaf.grad = None
        loss.backward(inputs=self.leaves)
        for (a, c), w, b in zip(self.pairs, self.weights, self.biases, strict=True):
            assert w.grad is not None and b.grad is not None
            a.weight.grad, c.weight.grad = w.grad[0], w.grad[1]
            a.bias.grad, c.bias.grad = b.grad[0, 0], b.grad[1, 0]


def make_aliased(q1, q2, inputs, x, y):
    """``(step, q_values)`` of the ``aliased storage`` form, on copies of ``q1`` and ``q2``.

    ``inputs`` is ``(observation, zeros, action)``; ``x`` their concatenation, ``y`` the target.
    """
    obs, zeros, act = inputs
    a, b = copy.deepcopy(q1), copy.deepcopy(q2)
    twin = AliasedTwinQ(a, b)
    opt_a, opt_b = torch.optim.Adam(a.parameters()), torch.optim.Adam(b.parameters())

    def step():
        twin.backward(0.5 * ((y - twin(x)).pow(2).mean(dim=1).sum()))
        opt_a.step()
        opt_b.step()

    # The modules themselves, not the fused path: the aliasing must keep them current.
    return step, lambda: torch.stack([a(obs, zeros, zeros, act), b(obs, zeros, zeros, act)])


def forms(hidden: list[int], device: torch.device, compile_: bool):
    """``{name: (step, q_values)}``: one update each, and the Qs it computes before stepping."""
    torch.manual_seed(0)
    q1 = QofMuMlpModel((OBS,), hidden, ACT).to(device)
    q2 = QofMuMlpModel((OBS,), hidden, ACT).to(device)
    obs = torch.randn(BATCH, OBS, device=device)
    act = torch.rand(BATCH, ACT, device=device) * 4 - 2
    y = torch.randn(BATCH, device=device)
    zeros = torch.zeros(BATCH, device=device)
    x = torch.cat([obs, act], dim=1)

    def separate_loss(a, b):
        return 0.5 * (
            (y - a(obs, zeros, zeros, act)).pow(2).mean()
            + (y - b(obs, zeros, zeros, act)).pow(2).mean()
        )

    def make_separate(loss_fn):
        a, b = copy.deepcopy(q1), copy.deepcopy(q2)
        opt_a, opt_b = torch.optim.Adam(a.parameters()), torch.optim.Adam(b.parameters())

        def step():
            loss = loss_fn(a, b)
            opt_a.zero_grad(set_to_none=True)
            opt_b.zero_grad(set_to_none=True)
            loss.backward()
            opt_a.step()
            opt_b.step()

        return step, lambda: torch.stack([a(obs, zeros, zeros, act), b(obs, zeros, zeros, act)])

    def make_per_call():
        a, b = copy.deepcopy(q1), copy.deepcopy(q2)
        opt_a, opt_b = torch.optim.Adam(a.parameters()), torch.optim.Adam(b.parameters())

        def step():
            q = stacked_per_call(a, b, x)
            loss = 0.5 * ((y - q).pow(2).mean(dim=1).sum())
            opt_a.zero_grad(set_to_none=True)
            opt_b.zero_grad(set_to_none=True)
            loss.backward()
            opt_a.step()
            opt_b.step()

        return step, lambda: stacked_per_call(a, b, x)

    def make_stacked():
        twin = StackedTwinQ(q1, q2)
        opt = torch.optim.Adam(twin.parameters())

        def step():
            loss = 0.5 * ((y - twin(x)).pow(2).mean(dim=1).sum())
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()

        return step, lambda: twin(x)

    made = {
        "separate": make_separate(separate_loss),
        "stacked per call": make_per_call(),
        "stacked parameters": make_stacked(),
        "aliased storage": make_aliased(q1, q2, (obs, zeros, act), x, y),
    }
    if compile_:
        made["compiled"] = make_separate(torch.compile(separate_loss))
    return made


def check_updates_agree(made: dict, label: str, updates: int = 3) -> None:
    """After a few updates of each uncompiled form, every form's Qs still equal ``separate``'s.

    The forms do the same arithmetic in other groupings, so they agree to float rounding
    (1e-4 here); a form whose update went wrong (a gradient not reaching a module, an
    optimizer stepping a stale copy) differs by the size of an Adam step or more.
    """
    uncompiled = {name: form for name, form in made.items() if name != "compiled"}
    for step, _ in uncompiled.values():
        for _ in range(updates):
            step()
    reference = made["separate"][1]().detach()
    for name, (_, values) in uncompiled.items():
        diff = (values().detach() - reference).abs().max().item()
        assert diff < 1e-4, (label, name, "after updates", diff)


def measure(made: dict, repeats: int, updates: int, sync) -> dict[str, list[float]]:
    """Microseconds per update of each form, ``repeats`` windows, forms interleaved."""
    for step, _ in made.values():  # warm-up
        for _ in range(10):
            step()
    times: dict[str, list[float]] = {name: [] for name in made}
    for _ in range(repeats):
        for name, (step, _) in made.items():
            sync()
            t0 = time.perf_counter()
            for _ in range(updates):
                step()
            sync()
            times[name].append((time.perf_counter() - t0) / updates * 1e6)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--threads", type=int, default=0, help="torch threads (0: default)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--updates", type=int, default=200)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--no-compile", action="store_true")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    device = torch.device(args.device)
    sync = torch.cuda.synchronize if device.type == "cuda" else (lambda: None)
    print(
        f"torch {torch.__version__}, {torch.get_num_threads()} threads, device {device}, "
        f"batch {BATCH}, {args.repeats} windows of {args.updates} updates"
    )
    for label, hidden in SIZES.items():
        made = forms(hidden, device, not args.no_compile)
        reference = made["separate"][1]().detach()
        for name, (_, values) in made.items():
            diff = (values().detach() - reference).abs().max().item()
            assert diff < 1e-5, (label, name, diff)
        check_updates_agree(made, label)
        compile_seconds = None
        if "compiled" in made:
            t0 = time.perf_counter()
            made["compiled"][0]()
            sync()
            compile_seconds = time.perf_counter() - t0
        times = measure(made, args.repeats, args.updates, sync)
        base = statistics.median(times["separate"])
        print(f"\n{label}: microseconds per critic update (median [min-max]), separate / form")
        for name, values in times.items():
            med = statistics.median(values)
            print(
                f"  {name:20s} {med:8.0f} [{min(values):.0f}-{max(values):.0f}]  {base / med:.2f}x"
            )
        if compile_seconds is not None:
            print(f"  (compiled: the first call, which compiles, took {compile_seconds:.1f} s)")


if __name__ == "__main__":
    main()
