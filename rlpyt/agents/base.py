"""The Agent box: owns the model, its device, its distribution, and parameter sync for samplers.

Samplers call ``initialize`` (building the distribution and the model from the env spaces),
then per time step ``step(observation, prev_action, prev_reward) -> AgentStep(action,
agent_info)`` with CPU torch tensors in and out; algorithms call the agent itself
(``agent(*agent_inputs)``) to get differentiable outputs on the model's device. Runners switch
the agent between ``train_mode``, ``sample_mode`` and ``eval_mode``; ``agent.mode`` says which
came last. Constructors derive from declared fields (``rlpyt.utils.hyperparams``): BaseAgent
declares ``ModelCls``, ``model_kwargs`` and ``initial_model_state_dict``, each family only the
keywords it adds or re-defaults, and what depends on several of them goes in
``__post_init__``. A concrete agent names its model class in ``default_model_cls`` (used when
``ModelCls`` is None) and the function that gives its env kind's model keywords in
``env_model_kwargs_fn``; mixins keep carried state (recurrent state) without an ``__init__``.

State dict format (one format for every agent, see docs/agents.md): ``state_dict()`` returns what
``load_state_dict()`` takes, without DistributedDataParallel's ``module.`` prefix. For a
single-model agent it is the model's own state dict; agents with several models return a dict
of state dicts keyed by model name (``"model"`` always among them). ``initial_model_state_dict``
accepts either form; the ``"model"`` entry is used from the second.

Several models (the replay families): an agent lists its models in ``model_names`` (attributes,
``"model"`` first), the optimized ones in ``trained_names`` and each target copy with its
source in ``target_sources``; the base builds, moves, wraps, saves, loads and Polyak-updates
them all (``update_target``). Only ``model`` is the sampler's (shared memory, parameter sync);
the others live in the training process. Targets start as copies of their sources and stay in
eval mode. ``state_dict_keys`` renames a model in the state dict where rlpyt's key differs from
the attribute (DQN's ``target_model`` is saved as ``"target"``).
"""

from __future__ import annotations

import itertools
import multiprocessing as mp
import re
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

import torch
from torch.nn.parallel import DistributedDataParallel

from rlpyt.agents.model_keywords import EnvModelKwargsFn, model_keywords
from rlpyt.agents.recurrent import (  # noqa: F401  (rlpyt's import path for the mixins)
    AlternatingRecurrentAgentMixin,
    RecurrentAgentMixin,
    recorded_rnn_state,
)
from rlpyt.models.utils import strip_ddp_state_dict, update_state_dict
from rlpyt.spaces.int_box import IntBox
from rlpyt.utils.buffer import buffer_to
from rlpyt.utils.checks import leaf_space, space_kind_error
from rlpyt.utils.collections import namedarraytuple
from rlpyt.utils.hyperparams import Hyperparams, copied_dict, hyperparam
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
TreeT = TypeVar("TreeT")  # a tensor, or a (nested) record of tensors: moved, kept in shape
ModelClass = Callable[..., torch.nn.Module]  # a model class (or any function that builds one)


def model_state_dict_of(state_dict: Mapping[str, Any]) -> Mapping[str, Any]:
    """The model's entries of an agent state dict, without DDP prefixes.

    That is its ``"model"`` entry if that is a dict (a multi-model agent's state dict), else the
    dict itself (a plain model state dict).
    """
    inner = state_dict.get("model")
    if isinstance(inner, Mapping):
        state_dict = inner
    return strip_ddp_state_dict(state_dict)


def model_reads_prev_action(model: object) -> bool:
    """Whether discrete-action agents must one-hot code ``prev_action`` for ``model``.

    False when the model class declares ``uses_prev_action = False`` (the agent then passes
    ``prev_action`` as it is); True otherwise, also before the model is built (None).
    """
    return getattr(model, "uses_prev_action", True)


def bare(module: torch.nn.Module) -> torch.nn.Module:
    """The module without a DistributedDataParallel wrapper."""
    return module.module if isinstance(module, DistributedDataParallel) else module


def check_discrete_action_space(
    action_space: object, agent_name: str = "Categorical agent"
) -> None:
    """Raise unless the action space is one discrete choice among ``0..n-1``.

    That is a gymnasium ``Discrete(n)`` (``start=0``) or a scalar ``IntBox(0, n)``; not a
    ``MultiDiscrete``, ``MultiBinary``, ``Box``, ``Dict`` or ``Tuple`` space. Used by the
    categorical policy-gradient agents and the deep-Q agents.

    Raises:
        ValueError: ``"<agent>: this agent needs a Discrete action space; the env has
            MultiDiscrete([3 4]). ..."``.
    """
    leaf = leaf_space(action_space)
    if not isinstance(leaf, IntBox) or leaf.shape != ():
        raise space_kind_error(
            agent_name,
            "a Discrete",
            action_space,
            "Use a Gaussian agent for continuous actions, or wrap the env in a gymnasium "
            "ActionWrapper that maps one Discrete choice to its actions.",
        )
    if leaf.low != 0:
        raise space_kind_error(
            agent_name,
            "a Discrete (start=0)",
            action_space,
            "Its actions are 0..n-1; shift them in a gymnasium ActionWrapper.",
        )


def target_tensor_pairs(
    pairs: list[tuple[torch.nn.Module, torch.nn.Module]],
) -> tuple[list[torch.Tensor], list[torch.Tensor], list[tuple[torch.Tensor, torch.Tensor]]]:
    """The tensors of a Polyak step over ``(target, source)`` module pairs.

    Returns:
        ``(float target tensors, their source tensors, [(target, source)] of the integer
        buffers)``, each target tensor the live storage of its module (updated in place).
    """
    targets, sources, copies = [], [], []
    for target, source in pairs:
        source_state = bare(source).state_dict(keep_vars=True)
        for key, target_tensor in bare(target).state_dict(keep_vars=True).items():
            source_tensor = source_state[key]
            if torch.is_floating_point(target_tensor):
                targets.append(target_tensor)
                sources.append(source_tensor)
            else:
                copies.append((target_tensor, source_tensor))
    return targets, sources, copies


class BaseAgent(Hyperparams):
    """Base of all agents: model construction, devices, modes and shared-memory parameter sync.

    ``ModelCls`` is built in :meth:`initialize` as
    ``ModelCls(**make_env_to_model_kwargs(env_spaces), **model_kwargs)``; the env's keywords
    come from the class's ``env_model_kwargs_fn`` (one function per env kind, in
    ``rlpyt.agents.model_keywords``). ``model_kwargs`` may also set an env-derived keyword
    (equal to the env's, else ``TypeError``) or one the agent derives from it (with a warning).
    """

    ModelCls: type[torch.nn.Module] | None = hyperparam(
        None,
        "Model class, built in ``initialize``; None: the class's ``default_model_cls``.",
    )
    model_kwargs: dict[str, Any] = hyperparam(
        None,
        'Extra model keywords (e.g. ``config["model"]``), never mutated.',
        copied_dict,
        type=Mapping[str, Any] | None,
    )
    initial_model_state_dict: Mapping[str, Any] | None = hyperparam(
        None,
        "Loaded into the model at ``initialize``: a model state dict or an agent "
        "``state_dict()`` (see the module docstring).",
    )

    recurrent = False
    alternating = False
    default_model_cls: ClassVar[type[torch.nn.Module] | None] = None
    # The model keywords that come from the env spaces (None: none); see make_env_to_model_kwargs.
    env_model_kwargs_fn: EnvModelKwargsFn | None = None
    # The models (see the module docstring): attribute names, "model" first.
    model_names: ClassVar[tuple[str, ...]] = ("model",)
    trained_names: ClassVar[tuple[str, ...]] = ("model",)
    target_sources: ClassVar[Mapping[str, str]] = {}  # {target attribute: source attribute}
    state_dict_keys: ClassVar[Mapping[str, str]] = {}  # {attribute: key} where they differ

    def __post_init__(self) -> None:
        """The default model class; the models' places (built in :meth:`initialize`)."""
        super().__post_init__()
        if self.ModelCls is None:
            self.ModelCls = self.default_model_cls
        self.model: Any = None  # torch.nn.Module (DDP-wrapped after data_parallel)
        for name in self.model_names[1:]:
            setattr(self, name, None)  # built in initialize
        self.shared_model: Any = None  # torch.nn.Module in shared memory, or None
        self.distribution: Any = None
        self.device = CPU
        self.env_model_kwargs: dict[str, Any] = {}
        self._warned_keywords: set[str] = set()  # model keywords warned about (once each)
        # Each model's constructor keywords as built (env's, derived, defaults and the user's):
        self.built_model_kwargs: dict[str, dict[str, Any]] = {}
        self._mode: AgentMode | None = None
        # (ids of the models, tensors of update_target's Polyak step), built at first use:
        self._polyak_pairs: tuple[tuple, tuple[list, list, list]] | None = None
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
        for name in self.model_names[1:]:
            model = self._build_named(name)
            if name in self.target_sources:
                model.eval()  # only ever evaluated
            setattr(self, name, model)
        self._copy_targets(set(self.model_names) - set(self.target_sources))
        if self.initial_model_state_dict is not None:
            self.load_state_dict(self.initial_model_state_dict)
        self.load_initial_state_dicts()
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
        """Model keywords that depend on the env (e.g. ``image_shape``, ``output_size``).

        Those of ``env_model_kwargs_fn`` (none without one); agents whose keywords depend on
        more than the spaces override this.
        """
        make_kwargs = self.env_model_kwargs_fn
        return {} if make_kwargs is None else make_kwargs(env_spaces)

    def model_specs(self) -> dict[str, tuple[ModelClass, Mapping[str, Any]]]:
        """``{name: (ModelCls, model_kwargs)}`` of every model but ``model`` and the targets."""
        return {}

    def load_initial_state_dicts(self) -> None:
        """Load the ``initial_*_state_dict`` keywords other than the model's (subclasses)."""

    def derived_model_kwargs(self, name: str) -> dict[str, Any]:
        """Keywords of model ``name`` that the agent derives from the env but the user may set.

        E.g. DDPG's ``output_max`` (the action bound). A user value that differs wins, with one
        warning (see ``rlpyt.agents.model_keywords``).
        """
        return {}

    def model_defaults(self, name: str, ModelCls: ModelClass) -> dict[str, Any]:  # noqa: N803
        """Keywords of model ``name`` filled in, silently, where the user's leave them out."""
        return {}

    def _build(
        self,
        name: str,
        ModelCls: ModelClass,  # noqa: N803
        user_kwargs: Mapping[str, Any],
        keyword: str,
    ) -> torch.nn.Module:
        """``ModelCls`` with the env's keywords, the agent's defaults and ``user_kwargs``."""
        kwargs = model_keywords(
            type(self).__name__,
            keyword,
            user_kwargs,
            self.env_model_kwargs,
            self.derived_model_kwargs(name),
            self.model_defaults(name, ModelCls),
            self._warned_keywords,
        )
        self.built_model_kwargs[name] = dict(kwargs)
        return ModelCls(**kwargs)

    def _build_model(self) -> torch.nn.Module:
        if self.ModelCls is None:
            raise ValueError(f"{type(self).__name__} needs a ModelCls to build its model.")
        return self._build("model", self.ModelCls, self.model_kwargs, "model_kwargs")

    def _build_named(self, name: str) -> torch.nn.Module:
        """A new instance of model ``name`` (a target: of its source's class and keywords)."""
        source = self.target_sources.get(name, name)
        if source == "model":
            return self._build_model()
        ModelCls, kwargs = self.model_specs()[source]  # noqa: N806
        # The agent keyword of a twin's model is the shared one: q1_model, q2_model -> q_model.
        keyword = re.sub(r"\d+_model$", "_model", source) + "_kwargs"
        return self._build(source, ModelCls, kwargs, keyword)

    def _copy_targets(self, sources: set[str], skip: set[str] | None = None) -> None:
        """Targets of ``sources`` (except those in ``skip``) <- copies of their sources."""
        for target, source in self.target_sources.items():
            if source in sources and target not in (skip or set()):
                update_state_dict(getattr(self, target), getattr(self, source).state_dict())

    # ---- devices -------------------------------------------------------------------------

    def to_device(self, cuda_idx: int | None = None) -> None:
        """Move the model to GPU ``cuda_idx`` (None: stay on CPU, no copy).

        A model in shared memory stays on the CPU for the sampler workers; the agent then trains
        a separate GPU copy, and :meth:`sync_shared_memory` copies weights back. The other
        models (targets, Q models) move with it.
        """
        if cuda_idx is None:
            return
        if self.shared_model is not None:
            self.model = self._build_model()
            self.model.load_state_dict(self.shared_model.state_dict())
        self.device = torch.device("cuda", index=cuda_idx)
        self.model.to(self.device)
        for name in self.model_names[1:]:
            getattr(self, name).to(self.device)
        self._polyak_pairs = None  # moved buffers are new tensors

    def data_parallel(self) -> int | None:
        """Wrap every trained model in DistributedDataParallel (targets stay bare).

        torch.distributed must be initialized.

        Returns:
            The CUDA device index, or None on CPU (gloo).
        """
        device_id = self.device.index if self.device.type == "cuda" else None
        for name in self.trained_names:
            wrapped = DistributedDataParallel(
                getattr(self, name),
                device_ids=None if device_id is None else [device_id],
                output_device=device_id,
            )
            setattr(self, name, wrapped)
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
        return bare(self.model)

    def _to_device(self, inputs: Any) -> Any:
        # Skip the structure walk when it cannot move anything (the sampler's hot path).
        return inputs if self.device.type == "cpu" else buffer_to(inputs, self.device)

    def _to_cpu(self, outputs: TreeT) -> TreeT:
        return outputs if self.device.type == "cpu" else buffer_to(outputs, CPU)

    # The model's inputs from the agent's input tuple: moved to the device. Agents that also
    # transform them (e.g. one-hot actions) override it; bound to _to_device itself, not a
    # wrapper, because step() calls it once per time step.
    _model_inputs = _to_device

    # ---- sampler-facing ------------------------------------------------------------------

    def collector_initialize(self, global_B: int = 1, env_ranks: list[int] | None = None) -> None:
        """Per-collector setup in a sampler worker (used by epsilon-greedy agents)."""

    @torch.no_grad()
    def step(
        self, observation: torch.Tensor, prev_action: torch.Tensor, prev_reward: torch.Tensor
    ) -> Any:
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
        """Parameters to optimize: those of every model in ``trained_names`` (not the targets)."""
        return itertools.chain.from_iterable(
            getattr(self, name).parameters() for name in self.trained_names
        )

    def update_target(self, tau: float = 1) -> None:
        """Every target <- ``tau * source + (1 - tau) * target`` (``tau == 1``: a hard copy).

        A no-op for an agent without targets.

        Raises:
            ValueError: ``tau`` outside ``(0, 1]``.
        """
        if not 0 < tau <= 1:
            raise ValueError(f"tau must be in (0, 1], got {tau}.")
        if tau == 1 or not self.target_sources:
            self._copy_targets(set(self.target_sources.values()))
            return
        # Polyak step of every target in one foreach call: the algorithms call this after
        # every update, and per-tensor ops there cost more than the arithmetic.
        modules = tuple(id(getattr(self, name)) for name in self.model_names)
        if self._polyak_pairs is None or self._polyak_pairs[0] != modules:
            pairs = [(getattr(self, t), getattr(self, s)) for t, s in self.target_sources.items()]
            self._polyak_pairs = (modules, target_tensor_pairs(pairs))
        targets, sources, copies = self._polyak_pairs[1]
        with torch.no_grad():
            torch._foreach_lerp_(targets, sources, tau)
            for target_tensor, source_tensor in copies:
                target_tensor.copy_(source_tensor)

    def state_dict(self) -> dict[str, Any]:
        """The model's state dict, or ``{key: state dict}`` of every model (no DDP prefixes).

        The keys are the ``model_names`` (renamed by ``state_dict_keys``), ``"model"`` first.
        """
        if len(self.model_names) == 1:
            return strip_ddp_state_dict(self.model.state_dict())
        return {
            self.state_dict_keys.get(name, name): strip_ddp_state_dict(
                getattr(self, name).state_dict()
            )
            for name in self.model_names
        }

    def load_state_dict(self, state_dict: Mapping[str, Any]) -> None:
        """Load :meth:`state_dict`'s output (also a DDP-wrapped agent's), or a flat model dict.

        With several models, entries may be missing (those models keep their values), and a
        target whose source is loaded without the target's own entry becomes a copy of it.

        Raises:
            ValueError: an entry named after no model of this (several-model) agent.
        """
        if len(self.model_names) == 1:
            self.bare_model.load_state_dict(model_state_dict_of(state_dict))
            return
        if not isinstance(state_dict.get("model"), Mapping):
            self.load_named("model", state_dict)
            return
        names = {self.state_dict_keys.get(name, name): name for name in self.model_names}
        unknown = sorted(set(state_dict) - set(names))
        if unknown:
            raise ValueError(
                f"{type(self).__name__}.load_state_dict: unknown entries {unknown}; an agent "
                f"state dict has the entries {list(names)} (or pass a flat model state dict)."
            )
        loaded = {names[key] for key in state_dict}
        for name in loaded:
            bare(getattr(self, name)).load_state_dict(
                strip_ddp_state_dict(state_dict[self.state_dict_keys.get(name, name)])
            )
        self._copy_targets(loaded, skip=loaded)

    def load_named(self, name: str, state_dict: Mapping[str, Any] | None) -> None:
        """Load one model's state dict (flat, or an agent state dict's ``name`` entry).

        Its target copies become copies of it. None: nothing to load.
        """
        if state_dict is None:
            return
        inner = state_dict.get(self.state_dict_keys.get(name, name))
        source = inner if isinstance(inner, Mapping) else state_dict
        bare(getattr(self, name)).load_state_dict(strip_ddp_state_dict(source))
        self._copy_targets({name})

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
        # iteration, so only switch a model not in that mode already. Targets stay in eval.
        for name in self.trained_names:
            model = getattr(self, name)
            if model is not None and model.training != training:
                model.train(training)

    # ---- parameter sync between processes ------------------------------------------------

    def sync_shared_memory(self) -> None:
        """Synchronous samplers: copy the trained weights into the shared CPU model.

        Sampler workers read the shared model; nothing to do when the trained model is that
        same object.
        """
        if self.shared_model is not None and self.shared_model is not self.bare_model:
            self.shared_model.load_state_dict(strip_ddp_state_dict(self.model.state_dict()))

    def send_shared_memory(self) -> None:
        """Async optimizer side: publish new weights to the shared model.

        Copies under the write lock and advances the shared send counter.
        """
        lock = self._rw_lock
        if lock is None or self.shared_model is None or self.shared_model is self.bare_model:
            return
        with lock.write_lock:
            self.shared_model.load_state_dict(strip_ddp_state_dict(self.model.state_dict()))
            self._send_count.value += 1

    def recv_shared_memory(self) -> None:
        """Async sampler side: copy the shared weights into the sampler's model.

        Copies under the read lock, and only if the optimizer sent new weights since the last
        receive.
        """
        lock = self._rw_lock
        if lock is None or self.shared_model is None or self.shared_model is self.bare_model:
            return
        with lock:
            sent = self._send_count.value
            if self._recv_count < sent:
                self.bare_model.load_state_dict(self.shared_model.state_dict())
                self._recv_count = sent
