"""The Agent box: owns the model, its device, its distribution, and parameter sync for samplers.

Samplers call ``initialize`` (building the distribution and the model from the env spaces),
then per time step ``step(observation, prev_action, prev_reward) -> AgentStep(action,
agent_info)`` with CPU torch tensors in and out; algorithms call the agent itself
(``agent(*agent_inputs)``) to get differentiable outputs on the model's device. Runners switch
the agent between ``train_mode``, ``sample_mode`` and ``eval_mode``; ``agent.mode`` says which
came last. A concrete agent names its model class in ``default_model_cls`` (used when
``ModelCls`` is None) instead of overriding ``__init__``, so every agent's constructor keeps
``BaseAgent``'s keywords; mixins keep carried state (recurrent state) without an ``__init__``.

State dict format (one format for every agent, see docs/agents.md): ``state_dict()`` returns what
``load_state_dict()`` takes, without DistributedDataParallel's ``module.`` prefix. For a
single-model agent it is the model's own state dict; agents with several models return a dict
of state dicts keyed by model name (``"model"`` always among them). ``initial_model_state_dict``
accepts either form; the ``"model"`` entry is used from the second.
"""

from __future__ import annotations

import multiprocessing as mp
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any, ClassVar

import torch
from torch.nn.parallel import DistributedDataParallel

from rlpyt.agents.recurrent import (  # noqa: F401  (rlpyt's import path for the mixins)
    AlternatingRecurrentAgentMixin,
    RecurrentAgentMixin,
    recorded_rnn_state,
)
from rlpyt.models.utils import strip_ddp_state_dict
from rlpyt.utils.buffer import buffer_to
from rlpyt.utils.collections import namedarraytuple
from rlpyt.utils.synchronize import RWLock

if TYPE_CHECKING:
    from rlpyt.distributions.base import Distribution
    from rlpyt.envs.base import EnvSpaces
    from rlpyt.protocols import AgentMode

AgentInputs = namedarraytuple("AgentInputs", ["observation", "prev_action", "prev_reward"])
AgentInputsRnn = namedarraytuple(
    "AgentInputsRnn", ["observation", "prev_action", "prev_reward", "init_rnn_state"]
)
AgentStep = namedarraytuple("AgentStep", ["action", "agent_info"])

CPU = torch.device("cpu")


def model_state_dict_of(state_dict: Mapping[str, Any]) -> Mapping[str, Any]:
    """The model's entries of an agent state dict, without DDP prefixes.

    That is its ``"model"`` entry if that is a dict (a multi-model agent's state dict), else the
    dict itself (a plain model state dict).
    """
    inner = state_dict.get("model")
    if isinstance(inner, Mapping):
        state_dict = inner
    return strip_ddp_state_dict(state_dict)


def model_reads_prev_action(model: Any) -> bool:
    """Whether discrete-action agents must one-hot code ``prev_action`` for ``model``.

    False when the model class declares ``uses_prev_action = False`` (the agent then passes
    ``prev_action`` as it is); True otherwise, also before the model is built (None).
    """
    return getattr(model, "uses_prev_action", True)


class BaseAgent:
    """Base of all agents: model construction, devices, modes and shared-memory parameter sync.

    Args:
        ModelCls: Model class, built in :meth:`initialize` as
            ``ModelCls(**make_env_to_model_kwargs(env_spaces), **model_kwargs)``; None: the
            class attribute ``default_model_cls`` (e.g. ``AtariFfModel`` for ``AtariFfAgent``).
        model_kwargs: Extra model keywords (e.g. ``config["model"]``); copied, never mutated.
        initial_model_state_dict: Loaded into the model at :meth:`initialize`; a model state
            dict or an agent ``state_dict()`` (see the module docstring).
    """

    recurrent = False
    alternating = False
    default_model_cls: ClassVar[type[torch.nn.Module] | None] = None

    def __init__(
        self,
        ModelCls: type[torch.nn.Module] | None = None,
        model_kwargs: Mapping[str, Any] | None = None,
        initial_model_state_dict: Mapping[str, Any] | None = None,
    ):
        self.ModelCls = ModelCls if ModelCls is not None else self.default_model_cls
        self.model_kwargs = dict(model_kwargs or {})
        self.initial_model_state_dict = initial_model_state_dict
        self.model: Any = None  # torch.nn.Module (DDP-wrapped after data_parallel)
        self.shared_model: Any = None  # torch.nn.Module in shared memory, or None
        self.distribution: Any = None
        self.device = CPU
        self.env_model_kwargs: dict[str, Any] = {}
        self._mode: AgentMode | None = None
        self._ddp = False
        # Async parameter sync (made in initialize(share_memory=True), before processes start):
        self._rw_lock: RWLock | None = None
        self._send_count: Any = None  # shared counter of parameter sends
        self._recv_count = 0
        self.reset()  # no carried state yet (recurrent mixins make theirs here)

    def __call__(self, *agent_inputs: Any) -> Any:
        """Differentiable forward pass on the model's device (defined by each agent family)."""
        raise NotImplementedError

    def initialize(
        self,
        env_spaces: EnvSpaces,
        share_memory: bool = False,
        global_B: int = 1,
        env_ranks: list[int] | None = None,
    ) -> None:
        """Build the distribution and the model for these env spaces.

        Called by the sampler, in the master process.

        Args:
            env_spaces: ``EnvSpaces(observation, action)`` of the env.
            share_memory: Put the model in shared memory (``shared_model``) for sampler workers
                in other processes, and make the lock and counter for async parameter sync.
            global_B: Total number of envs across all workers (epsilon-greedy agents use it).
            env_ranks: Global indexes of the envs this agent instance steps.
        """
        self.env_spaces = env_spaces
        self.share_memory = share_memory
        self.global_B = global_B
        self.env_ranks = env_ranks
        self.distribution = self.make_distribution(env_spaces)
        self.env_model_kwargs = self.make_env_to_model_kwargs(env_spaces)
        self.model = self._build_model()
        if self.initial_model_state_dict is not None:
            self.model.load_state_dict(model_state_dict_of(self.initial_model_state_dict))
        if share_memory:
            self.model.share_memory()
            self.shared_model = self.model
            self._rw_lock = RWLock()
            self._send_count = mp.get_context("spawn").RawValue("l", 0)

    def make_distribution(self, env_spaces: EnvSpaces) -> Distribution | None:
        """The action distribution for these env spaces (None: the agent has none).

        Called by :meth:`initialize` before the model is built, so it may also reject action
        spaces the agent cannot handle.
        """
        return None

    def make_env_to_model_kwargs(self, env_spaces: EnvSpaces) -> dict[str, Any]:
        """Model keywords that depend on the env (e.g. ``image_shape``, ``output_size``)."""
        return {}

    def _build_model(self) -> torch.nn.Module:
        if self.ModelCls is None:
            raise ValueError(f"{type(self).__name__} needs a ModelCls to build its model.")
        clash = set(self.env_model_kwargs) & set(self.model_kwargs)
        if clash:
            raise TypeError(
                f"model_kwargs {sorted(clash)} are set by {type(self).__name__} from the env "
                "spaces; remove them from model_kwargs."
            )
        return self.ModelCls(**self.env_model_kwargs, **self.model_kwargs)

    # ---- devices -------------------------------------------------------------------------

    def to_device(self, cuda_idx: int | None = None) -> None:
        """Move the model to GPU ``cuda_idx`` (None: stay on CPU, no copy).

        A model in shared memory stays on the CPU for the sampler workers; the agent then trains
        a separate GPU copy, and :meth:`sync_shared_memory` copies weights back.
        """
        if cuda_idx is None:
            return
        if self.shared_model is not None:
            self.model = self._build_model()
            self.model.load_state_dict(self.shared_model.state_dict())
        self.device = torch.device("cuda", index=cuda_idx)
        self.model.to(self.device)

    def data_parallel(self) -> int | None:
        """Wrap the model in DistributedDataParallel (torch.distributed must be initialized).

        Returns:
            The CUDA device index, or None on CPU (gloo).
        """
        device_id = self.device.index if self.device.type == "cuda" else None
        self.model = DistributedDataParallel(
            self.model,
            device_ids=None if device_id is None else [device_id],
            output_device=device_id,
        )
        self._ddp = True
        return device_id

    def async_cpu(self, share_memory: bool = True) -> None:
        """Async runner, CPU sampling: give the sampler a model of its own.

        The new model is apart from the one shared with the optimizer process (only meaningful
        on CPU; a no-op for a GPU agent) and receives weights by :meth:`recv_shared_memory`.

        Args:
            share_memory: Put the sampler's model in shared memory for its worker processes.
        """
        if self.device.type != "cpu":
            return
        if self.shared_model is None:
            raise RuntimeError("async_cpu needs an agent initialized with share_memory=True.")
        self.model = self._build_model()
        self.model.load_state_dict(strip_ddp_state_dict(self.shared_model.state_dict()))
        if share_memory:
            self.model.share_memory()

    def separate_optim_model(self) -> None:
        """Async runner, optimizer side on CPU: train a model of its own.

        The algorithm's ``optim_initialize`` calls this (through ``own_optim_model``) before
        building its optimizers. Afterwards the shared model changes only in
        :meth:`send_shared_memory`, under the write lock, so samplers never read weights half
        way through an optimizer step. A no-op when the trained model is already apart (a GPU
        copy from :meth:`to_device`) or nothing is shared.
        """
        if self.shared_model is None or self.shared_model is not self.bare_model:
            return
        self.model = self._build_model()
        self.model.load_state_dict(self.shared_model.state_dict())
        self.model.train(self.shared_model.training)

    @property
    def bare_model(self) -> torch.nn.Module:
        """The model without a DistributedDataParallel wrapper."""
        return self.model.module if self._ddp else self.model

    def _to_device(self, inputs: Any) -> Any:
        # Skip the structure walk when it cannot move anything (the sampler's hot path).
        return inputs if self.device.type == "cpu" else buffer_to(inputs, self.device)

    def _to_cpu(self, outputs: Any) -> Any:
        return outputs if self.device.type == "cpu" else buffer_to(outputs, CPU)

    # The model's inputs from the agent's input tuple: moved to the device. Agents that also
    # transform them (e.g. one-hot actions) override it; bound to _to_device itself, not a
    # wrapper, because step() calls it once per time step.
    _model_inputs = _to_device

    # ---- sampler-facing ------------------------------------------------------------------

    def collector_initialize(self, global_B: int = 1, env_ranks: list[int] | None = None) -> None:
        """Per-collector setup in a sampler worker (used by epsilon-greedy agents)."""

    @torch.no_grad()
    def step(self, observation: Any, prev_action: Any, prev_reward: torch.Tensor) -> Any:
        """One sampling step: ``AgentStep(action, agent_info)`` as CPU tensors."""
        raise NotImplementedError

    def reset(self) -> None:
        """Start of new trajectories for all envs (recurrent agents drop their state)."""

    def reset_one(self, idx: int) -> None:
        """Env ``idx`` starts a new trajectory."""

    def toggle_alt(self) -> None:
        """Switch env group (alternating recurrent agents; a no-op otherwise)."""

    # ---- training-facing -----------------------------------------------------------------

    def parameters(self) -> Iterator[torch.nn.Parameter]:
        """Parameters to optimize."""
        return self.model.parameters()

    def state_dict(self) -> dict[str, Any]:
        """Model state dict without DDP prefixes (see the module docstring)."""
        return strip_ddp_state_dict(self.model.state_dict())

    def load_state_dict(self, state_dict: Mapping[str, Any]) -> None:
        """Load what :meth:`state_dict` returned (also from a DDP-wrapped agent)."""
        self.bare_model.load_state_dict(model_state_dict_of(state_dict))

    @property
    def mode(self) -> AgentMode | None:
        """``"train"``, ``"sample"`` or ``"eval"``: the last mode switch (None before the first).

        Set only by :meth:`train_mode`, :meth:`sample_mode` and :meth:`eval_mode`; samplers and
        runners may read it.
        """
        return self._mode

    def train_mode(self, itr: int) -> None:
        """Before optimization: torch train mode."""
        self._leave_sampling()
        self._torch_mode(training=True)
        self._mode = "train"

    def sample_mode(self, itr: int) -> None:
        """Before sampling training data: torch eval mode."""
        if self._mode != "sample":
            self._resume_sampling()
        self._torch_mode(training=False)
        self._mode = "sample"

    def eval_mode(self, itr: int) -> None:
        """Before evaluation episodes: torch eval mode."""
        self._leave_sampling()
        self._torch_mode(training=False)
        self._mode = "eval"

    def _leave_sampling(self) -> None:
        """Switching to train or eval mode: stash the state that sampling carries, if any."""

    def _resume_sampling(self) -> None:
        """Switching back to sample mode: restore what :meth:`_leave_sampling` stashed."""

    def _torch_mode(self, training: bool) -> None:
        # model.train() walks every submodule; runners switch modes several times per
        # iteration, so only switch when the model is not in that mode already.
        if self.model is not None and self.model.training != training:
            self.model.train(training)

    # ---- parameter sync between processes ------------------------------------------------

    def sync_shared_memory(self) -> None:
        """Synchronous samplers: copy the trained weights into the shared CPU model.

        Sampler workers read the shared model; nothing to do when the trained model is that
        same object.
        """
        if self.shared_model is not None and self.shared_model is not self.bare_model:
            self.shared_model.load_state_dict(model_state_dict_of(self.state_dict()))

    def send_shared_memory(self) -> None:
        """Async optimizer side: publish new weights to the shared model.

        Copies under the write lock and advances the shared send counter.
        """
        if self.shared_model is None or self.shared_model is self.bare_model:
            return
        with self._rw_lock.write_lock:  # type: ignore[union-attr]
            self.shared_model.load_state_dict(model_state_dict_of(self.state_dict()))
            self._send_count.value += 1

    def recv_shared_memory(self) -> None:
        """Async sampler side: copy the shared weights into the sampler's model.

        Copies under the read lock, and only if the optimizer sent new weights since the last
        receive.
        """
        if self.shared_model is None or self.shared_model is self.bare_model:
            return
        with self._rw_lock:  # type: ignore[union-attr]
            sent = self._send_count.value
            if self._recv_count < sent:
                self.bare_model.load_state_dict(self.shared_model.state_dict())
                self._recv_count = sent
