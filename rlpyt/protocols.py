"""The seams between the boxes: what a runner needs of a sampler, an agent and an algorithm.

These are structural types (``typing.Protocol``): any object with these members fits, so a
researcher's own sampler or algorithm needs no base class from us. The base classes
(``BaseSampler``, ``BaseAgent``, ``RlAlgorithm``, ``BaseRunner``, the collector bases) implement
them; annotations across the package name these Protocols rather than ``Any``.

Who calls what:

- The runner calls ``Sampler.initialize`` once, then per iteration ``Agent.sample_mode`` ->
  ``Sampler.obtain_samples`` -> ``Agent.train_mode`` -> ``Algorithm.optimize_agent``, and at log
  points ``Agent.eval_mode`` -> ``Sampler.evaluate_agent``.
- The sampler (or its collectors, in worker processes) calls ``Agent.initialize`` /
  ``collector_initialize``, then ``Agent.step`` and ``reset``/``reset_one`` per time step.
- The algorithm calls the agent itself (``agent(*agent_inputs)``) for differentiable outputs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

if TYPE_CHECKING:
    import torch

    from rlpyt.distributions.base import Distribution
    from rlpyt.envs.base import Env, EnvSpaces
    from rlpyt.envs.traj_info import TrajInfo, TrajInfoRows
    from rlpyt.utils.collections import AttrDict
    from rlpyt.utils.records import BatchSpec, Samples

AgentMode = Literal["train", "sample", "eval"]
"""The agent's mode: ``train`` (algorithm forward passes), ``sample`` (collecting training
batches, exploration on), ``eval`` (evaluation episodes, e.g. greedy or small epsilon)."""


@runtime_checkable
class Agent(Protocol):
    """What samplers, runners and algorithms use of an agent (see ``rlpyt.agents.base``).

    ``distribution``: the action distribution (algorithms take likelihoods and entropies from
    it; a sampler may wrap it in ``SamplingNoise``, which forwards everything but ``sample``).
    Members only some agents have stay off this Protocol: ``value`` (bootstrap-value agents,
    e.g. policy gradients), ``sampling_rnn_state`` (recurrent agents).

    The model and its keywords (params.json records them): ``model`` (None until
    ``initialize`` builds it; a ``DistributedDataParallel`` wrapper after ``data_parallel``),
    ``model_kwargs`` (the user's), ``env_model_kwargs`` (those the env spaces give) and
    ``built_model_kwargs`` (each built model's constructor keywords as passed, by model name;
    empty for a model built otherwise).

    Agent inputs are typed by their common case, ``torch.Tensor``; a composite observation is a
    namedarraytuple of tensors, whose class is made at run time (a type checker takes it as
    any type). Outputs that are namedarraytuples (``AgentStep``, ``dist_info``) stay ``Any``,
    and so do the variable-length ``agent(*agent_inputs)`` and ``target(*agent_inputs)``.
    """

    recurrent: bool
    alternating: bool
    device: torch.device
    distribution: Distribution
    model: torch.nn.Module | None
    model_kwargs: dict[str, Any]
    env_model_kwargs: dict[str, Any]
    built_model_kwargs: dict[str, dict[str, Any]]

    @property
    def mode(self) -> AgentMode | None:
        """``"train"``, ``"sample"`` or ``"eval"``: the last mode switch (None before the first).

        Set only by ``train_mode``, ``sample_mode`` and ``eval_mode``.
        """
        ...

    def __call__(self, *agent_inputs: Any) -> Any:
        """Differentiable forward pass on the model's device (``AgentInputs`` fields)."""
        ...

    def initialize(
        self,
        env_spaces: EnvSpaces,
        share_memory: bool = False,
        global_B: int = 1,  # noqa: N803
        env_ranks: list[int] | None = None,
    ) -> None:
        """Build the model for the env spaces."""
        ...

    def step(
        self, observation: torch.Tensor, prev_action: torch.Tensor, prev_reward: torch.Tensor
    ) -> Any:
        """One sampling step: returns ``AgentStep(action, agent_info)`` (CPU torch).

        ``observation`` and ``prev_action`` are tensors, or namedarraytuples of tensors for
        composite spaces; leading dims ``[B]`` (or none).
        """
        ...

    def collector_initialize(
        self,
        global_B: int = 1,  # noqa: N803
        env_ranks: list[int] | None = None,
    ) -> None:
        """Per-collector setup in a sampler (worker) before the first step."""
        ...

    def toggle_alt(self) -> None:
        """Switch env group (alternating recurrent agents; a no-op for the others)."""
        ...

    def reset(self) -> None:
        """Forget carried state (recurrent state) of all envs."""
        ...

    def reset_one(self, idx: int) -> None:
        """Forget carried state of env ``idx``."""
        ...

    def to_device(self, cuda_idx: int | None = None) -> None:
        """Move the training model to a GPU (None: CPU)."""
        ...

    def data_parallel(self) -> int | None:
        """Wrap the model for DistributedDataParallel."""
        ...

    def sync_shared_memory(self) -> None:
        """Copy trained weights to the shared-memory model the workers read."""
        ...

    def parameters(self) -> Iterator[torch.nn.Parameter]:
        """The trainable parameters."""
        ...

    def state_dict(self) -> dict[str, Any]:
        """Model weights (and target models, where an agent has them)."""
        ...

    def load_state_dict(self, state_dict: Mapping[str, Any]) -> None:
        """Restore what ``state_dict`` returned."""
        ...

    def train_mode(self, itr: int) -> None:
        """Switch to training forward passes."""
        ...

    def sample_mode(self, itr: int) -> None:
        """Switch to sampling (exploration)."""
        ...

    def eval_mode(self, itr: int) -> None:
        """Switch to evaluation."""
        ...


@runtime_checkable
class Sampler(Protocol):
    """What a runner uses of a sampler (see ``rlpyt.samplers.base.BaseSampler``).

    ``batch_spec``: ``BatchSpec(T, B)`` of one batch; ``batch_size``: ``T * B``;
    ``mid_batch_reset``: envs restart within a batch (False for wait-reset collectors).
    """

    batch_spec: BatchSpec
    mid_batch_reset: bool

    @property
    def batch_size(self) -> int:
        """Env steps per batch, ``T * B``."""
        ...

    def initialize(
        self,
        agent: Agent,
        affinity: dict | None = None,
        seed: int | None = None,
        bootstrap_value: bool = False,
        traj_info_kwargs: dict | None = None,
        *,
        rank: int = 0,
        world_size: int = 1,
    ) -> AttrDict:
        """Build envs, initialize the agent, allocate buffers; returns example records."""
        ...

    def obtain_samples(self, itr: int) -> tuple[Samples, list[TrajInfo]]:
        """Fill the samples buffer; returns ``(samples [T, B], completed traj_infos)``."""
        ...

    def evaluate_agent(self, itr: int) -> list[TrajInfo]:
        """Run evaluation episodes; returns the completed TrajInfos."""
        ...

    def shutdown(self) -> None:
        """Release envs and processes (idempotent)."""
        ...

    def state_dict(self) -> dict:
        """State for exact resume."""
        ...

    def load_state_dict(self, state: dict) -> None:
        """Restore what ``state_dict`` returned."""
        ...


@runtime_checkable
class Algorithm(Protocol):
    """What a runner uses of an algorithm (see ``rlpyt.algos.base.RlAlgorithm``).

    ``bootstrap_value``: the sampler must record ``V(s_T)``; ``discount``: for TrajInfo's
    DiscountedReturn; ``min_itr_learn``: no evaluation before this iteration (replay warm-up);
    ``opt_info_fields``: names of the OptInfo lists; ``update_counter``: gradient steps taken;
    ``batch_size``: samples per gradient step (replay-ratio diagnostics, 0 if not meaningful).
    """

    bootstrap_value: bool
    discount: float
    min_itr_learn: int
    opt_info_fields: tuple[str, ...]
    update_counter: int

    @property
    def batch_size(self) -> int:
        """Samples per gradient step."""
        ...

    def initialize(
        self,
        agent: Agent,
        n_itr: int,
        batch_spec: BatchSpec,
        mid_batch_reset: bool,
        examples: AttrDict,
        world_size: int = 1,
        rank: int = 0,
    ) -> None:
        """Called once by synchronous runners after sampler and agent are initialized."""
        ...

    def optimize_agent(
        self, itr: int, samples: Samples | None = None, sampler_itr: int | None = None
    ) -> Any:
        """Train on a batch (``[T, B]`` leaves); returns an OptInfo namedtuple of lists."""
        ...

    def optim_state_dict(self) -> dict:
        """The optimizer's state dict."""
        ...

    def state_dict(self) -> dict:
        """State for exact resume (optimizer, schedules, counters)."""
        ...

    def load_state_dict(self, state: dict) -> None:
        """Restore what ``state_dict`` returned."""
        ...


@runtime_checkable
class ReplayAgent(Agent, Protocol):
    """What the replay algorithms use of every agent they train (see ``rlpyt.algos.replay_base``).

    The family-specific members (``target``, ``q``, ``pi``, ...) are the concrete agents' own;
    each algorithm annotates its agent with its family's agent class.
    """

    def update_target(self, tau: float = 1) -> None:
        """Every target model <- ``tau * model + (1 - tau) * target``."""
        ...

    def separate_optim_model(self) -> None:
        """Asynchronous runs: train a model of its own apart from the shared one."""
        ...


@runtime_checkable
class ReplayAlgorithm(Algorithm, Protocol):
    """What the runners and the memory copiers use of a replay algorithm.

    ``updates_per_sync``: gradient steps between parameter publications; ``replay_buffer``:
    the replay it trains from (the shared ``Async*`` one once ``async_initialize`` ran);
    ``min_steps_learn``: env steps sampled before the first update (the replay warm-up that
    ``min_itr_learn`` counts in iterations).
    """

    updates_per_sync: int
    replay_buffer: Any
    min_steps_learn: int

    def async_initialize(
        self,
        agent: Agent,
        sampler_n_itr: int,
        batch_spec: BatchSpec,
        mid_batch_reset: bool,
        examples: AttrDict,
        world_size: int = 1,
    ) -> Any:
        """In the master: schedules in sampler iterations; returns the shared replay."""
        ...

    def optim_initialize(self, rank: int = 0) -> None:
        """In the optimizer process: build the optimizers."""
        ...

    def samples_to_buffer(self, samples: Samples) -> Any:
        """The replay's record of a sampler batch (the memory copiers append it)."""
        ...


@runtime_checkable
class OptimizerAlgorithm(Protocol):
    """An algorithm that trains with one optimizer, ``optimizer`` (built by ``initialize``).

    params.json records its class and settings. Algorithms with several optimizers (DDPG's,
    TD3's and SAC's, one per network) do not have the member, nor any before ``initialize``.
    """

    optimizer: torch.optim.Optimizer


class OptInfo(Protocol):
    """What runners read of the OptInfo ``optimize_agent`` returns: a namedtuple of lists.

    Each field (``_fields``, in order) holds the iteration's values of one diagnostic (a list,
    one per gradient step, or a single number); the runners log five statistics of each and
    check those named ``loss`` or ``gradNorm`` for finiteness.
    """

    @property
    def _fields(self) -> tuple[str, ...]:
        """The field names, in order."""
        ...

    def __iter__(self) -> Iterator[Any]:
        """The fields' values, in order."""
        ...


@runtime_checkable
class OptimClsAlgorithm(Protocol):
    """An algorithm that builds its optimizer from rlpyt's keywords (every built-in one does).

    It calls ``OptimCls(parameters, lr=learning_rate, **optim_kwargs)`` in ``initialize`` /
    ``optim_initialize``; ``rlpyt train`` builds the same optimizer on a throwaway copy to
    check a configuration before the run starts. ``learning_rate`` is the rate of the main
    (or policy) optimizer where an algorithm has several.
    """

    OptimCls: Callable[..., torch.optim.Optimizer]
    learning_rate: float
    optim_kwargs: dict[str, Any]


@runtime_checkable
class SharedMemoryAgent(Agent, Protocol):
    """What asynchronous runners and samplers use of an agent (see ``rlpyt.agents.base``).

    The optimizer process publishes weights with ``send_shared_memory`` (under the write lock),
    a sampler receives them with ``recv_shared_memory`` (under the read lock, only when new);
    ``async_cpu`` gives a CPU sampler its own model apart from the shared one, and
    ``separate_optim_model`` gives the optimizer its own (``sync_shared_memory``, the
    synchronous runners' copy, is on ``Agent``).
    """

    def async_cpu(self, share_memory: bool = True) -> None:
        """Async runner, CPU sampling: a sampler model apart from the optimizer's."""
        ...

    def send_shared_memory(self) -> None:
        """Optimizer side: copy the trained weights into the shared model."""
        ...

    def recv_shared_memory(self) -> None:
        """Sampler side: copy the shared weights into the sampler's model, if new."""
        ...

    def separate_optim_model(self) -> None:
        """Optimizer side on CPU: train a model apart from the shared one."""
        ...


@runtime_checkable
class QAgent(ReplayAgent, Protocol):
    """What DQN, CategoricalDQN and R2D1 use of their agent (``DqnAgent`` and subclasses).

    ``agent(*inputs)`` gives the online model's output (``q [..., A]``; C51: ``p [..., A,
    n_atoms]``; R2D1: ``(q, rnn_state)`` from ``init_rnn_state``), ``target(*inputs)`` the
    target model's, without gradients.
    """

    def target(self, *agent_inputs: Any) -> Any:
        """The target model's output on the agent's device, without gradients."""
        ...

    def set_epsilon_itr_min_max(self, eps_itr_min: int, eps_itr_max: int) -> None:
        """The iterations where epsilon starts and stops falling (shared with workers)."""
        ...


@runtime_checkable
class CategoricalQAgent(QAgent, Protocol):
    """What CategoricalDQN uses besides ``QAgent`` (``CatDqnAgent``): the support of the atoms."""

    n_atoms: int

    def give_V_min_max(self, V_min: float, V_max: float) -> None:  # noqa: N802, N803
        """Set the support ``linspace(V_min, V_max, n_atoms)``."""
        ...


@runtime_checkable
class MinItrLearnAgent(Protocol):
    """An agent that explores differently before learning starts (TD3, SAC agents)."""

    def give_min_itr_learn(self, min_itr_learn: int) -> None:
        """The first iteration of learning (shared with sampler workers)."""
        ...


@runtime_checkable
class ActorCriticAgent(ReplayAgent, Protocol):
    """What every Q-function policy gradient (DDPG, TD3, SAC, SAC_V) uses of its agent.

    Of an initialized agent: ``action_max`` is the action bound ``h``, ``env_spaces`` the env's.
    ``q`` is ``Q(s, action) [*lead]`` (DDPG) or the pair ``(Q1, Q2)`` (TD3, SAC), with
    gradients, on the agent's device.
    """

    action_max: float
    env_spaces: EnvSpaces

    def q(
        self,
        observation: torch.Tensor,
        prev_action: torch.Tensor,
        prev_reward: torch.Tensor,
        action: torch.Tensor,
    ) -> Any:
        """``Q(s, action)``, or ``(Q1, Q2)`` for twin-Q agents."""
        ...


@runtime_checkable
class MuQAgent(ActorCriticAgent, Protocol):
    """What DDPG and TD3 use of ``DdpgAgent`` / ``Td3Agent`` (TD3's Qs come in pairs)."""

    def q_at_mu(
        self, observation: torch.Tensor, prev_action: torch.Tensor, prev_reward: torch.Tensor
    ) -> torch.Tensor:
        """``Q(s, mu(s)) [*lead]``, gradients into mu."""
        ...

    def target_q_at_mu(
        self, observation: torch.Tensor, prev_action: torch.Tensor, prev_reward: torch.Tensor
    ) -> Any:
        """``Q'(s, mu'(s))`` (TD3: both target Qs at the smoothed action), no gradients."""
        ...

    def mu_parameters(self) -> Iterator[torch.nn.Parameter]:
        """The policy optimizer's parameters."""
        ...

    def q_parameters(self) -> Iterator[torch.nn.Parameter]:
        """The Q optimizer's parameters (TD3: both Qs)."""
        ...


@runtime_checkable
class PiQAgent(ActorCriticAgent, MinItrLearnAgent, Protocol):
    """What SAC and SAC_V use of their ``SacAgent``: a squashed Gaussian policy and twin Qs."""

    def pi(
        self, observation: torch.Tensor, prev_action: torch.Tensor, prev_reward: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, Any]:
        """``(action, log_pi, dist_info)``: a reparameterized sample, with gradients."""
        ...

    def pi_parameters(self) -> Iterator[torch.nn.Parameter]:
        """The policy optimizer's parameters."""
        ...

    def q1_parameters(self) -> Iterator[torch.nn.Parameter]:
        """Q1's optimizer's parameters."""
        ...

    def q2_parameters(self) -> Iterator[torch.nn.Parameter]:
        """Q2's optimizer's parameters."""
        ...


@runtime_checkable
class SoftQAgent(PiQAgent, Protocol):
    """What SAC uses besides ``PiQAgent`` (``rlpyt.agents.qpg.sac_agent.SacAgent``)."""

    def target_q(
        self,
        observation: torch.Tensor,
        prev_action: torch.Tensor,
        prev_reward: torch.Tensor,
        action: torch.Tensor,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Both target Qs at ``action``, without gradients."""
        ...


@runtime_checkable
class SoftVAgent(PiQAgent, Protocol):
    """What SAC_V uses besides ``PiQAgent`` (``rlpyt.agents.qpg.sac_v_agent.SacAgent``)."""

    def v(
        self, observation: torch.Tensor, prev_action: torch.Tensor, prev_reward: torch.Tensor
    ) -> torch.Tensor:
        """``V(s) [*lead]``, with gradients."""
        ...

    def target_v(
        self, observation: torch.Tensor, prev_action: torch.Tensor, prev_reward: torch.Tensor
    ) -> torch.Tensor:
        """``V'(s) [*lead]``, without gradients."""
        ...

    def v_parameters(self) -> Iterator[torch.nn.Parameter]:
        """V's optimizer's parameters."""
        ...


@runtime_checkable
class Runner(Protocol):
    """What a launch script uses of a runner."""

    def train(self, resume_from: str | bool | None = None) -> None:
        """Run the whole training (optionally continuing from a snapshot)."""
        ...


@runtime_checkable
class Collector(Protocol):
    """What a sampler (or its worker) uses of a training collector.

    A collector steps its slice of ``B_local`` envs (and, for CPU collectors, the agent) for
    ``T`` steps into its columns of the ``[T, B]`` samples buffer (see
    ``rlpyt.samplers.collectors``). ``agent_inputs`` are the carried ``AgentInputs``
    ``[B_local, ...]`` numpy arrays (a namedarraytuple, hence ``Any``); ``envs`` are saved and
    restored for exact resume (``rlpyt.samplers.state``).
    """

    mid_batch_reset: bool
    envs: list[Env]

    def start_envs(self, max_decorrelation_steps: int = 0) -> tuple[Any, TrajInfoRows]:
        """Reset (and decorrelate) the envs; returns ``(agent_inputs, traj_infos)``."""
        ...

    def start_agent(self) -> None:
        """Initialize the agent's per-collector state before the first batch."""
        ...

    def collect_batch(
        self, agent_inputs: Any, traj_infos: TrajInfoRows, itr: int
    ) -> tuple[Any, TrajInfoRows, list[TrajInfo]]:
        """Fill one batch; returns ``(agent_inputs, traj_infos, completed_traj_infos)``."""
        ...

    def reset_if_needed(self, agent_inputs: Any) -> None:
        """Between batches: reset envs that wait for it (wait-reset collectors)."""
        ...


@runtime_checkable
class RecurrentAgent(Protocol):
    """An agent that carries rnn state from one sampling step to the next.

    ``sampling_rnn_state``: that state (a namedarraytuple of ``[B, ...]`` tensors, or None
    before the first step; see ``rlpyt.agents.recurrent``); runners save and restore it with
    snapshots for an exact resume. Non-recurrent agents lack the member.
    """

    sampling_rnn_state: Any


@runtime_checkable
class AsyncSampler(Protocol):
    """What the asynchronous runners use of an asynchronous sampler (``rlpyt.samplers.async_``).

    In the master, ``async_initialize`` initializes the agent in shared memory and allocates
    the double buffer; in the sampler process, ``initialize`` builds the envs, then
    ``obtain_samples(itr, db_idx)`` fills half ``db_idx`` of the double buffer and
    ``evaluate_agent`` runs evaluation episodes.
    """

    batch_spec: BatchSpec
    mid_batch_reset: bool

    def async_initialize(
        self,
        agent: Agent,
        bootstrap_value: bool = False,
        traj_info_kwargs: dict | None = None,
        seed: int | None = None,
    ) -> tuple[tuple[Samples, Samples], AttrDict]:
        """In the master: returns ``(double_buffer, examples)`` (torch views, ``[T, B]``)."""
        ...

    def initialize(self, affinity: dict | None = None) -> None:
        """In the sampler process: build the envs and collectors."""
        ...

    def busy_processes(self, affinity: dict) -> int:
        """Processes that keep a CPU busy while sampling with ``affinity``.

        Called after ``async_initialize``; the optimizer leaves them those CPUs.
        """
        ...

    def obtain_samples(self, itr: int, db_idx: int = 0) -> list[TrajInfo]:
        """Fill half ``db_idx`` of the double buffer; returns the completed TrajInfos."""
        ...

    def evaluate_agent(self, itr: int) -> list[TrajInfo]:
        """Run evaluation episodes; returns the completed TrajInfos."""
        ...

    def shutdown(self) -> None:
        """Release envs and processes (idempotent)."""
        ...

    def state_dict(self) -> dict:
        """State for a resume (the envs live in the sampler process: nothing of theirs)."""
        ...

    def load_state_dict(self, state: dict) -> None:
        """Restore what ``state_dict`` returned."""
        ...


@runtime_checkable
class AsyncReplayAlgorithm(ReplayAlgorithm, Protocol):
    """What ``AsyncRlBase`` uses besides ``ReplayAlgorithm``: the replay ratio.

    ``replay_ratio``: gradient-step samples per env step (the runner throttles the optimizer
    to it; ``min_steps_learn``, from ``ReplayAlgorithm``, sets where the throttle starts).
    """

    replay_ratio: float
