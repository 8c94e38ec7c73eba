"""Affinity codes: encode/decode round trips, the structures runners read, impossible requests."""

import pytest

from rlpyt.utils.launching import affinity
from rlpyt.utils.launching.affinity import (
    AffinityError,
    affinity_from_code,
    decode_affinity,
    encode_affinity,
    get_n_run_slots,
    make_affinity,
    prepend_run_slot,
    quick_affinity_code,
    validate_affinity,
)
from rlpyt.utils.launching.cpus import ALLOWED_CPUS_ENV

SINGLE_KEYS = {
    "all_cpus",
    "master_cpus",
    "workers_cpus",
    "master_torch_threads",
    "worker_torch_threads",
    "cuda_idx",
    "alternating",
    "set_affinity",
}
OPTIMIZER_KEYS = {"cpus", "cuda_idx", "torch_threads", "set_affinity"}
KEYWORD_DEFAULTS = dict(
    n_cpu_core=1,
    n_gpu=0,
    contexts_per_gpu=1,
    gpu_per_run=1,
    cpu_per_run=1,
    cpu_per_worker=1,
    cpu_reserved=0,
    async_sample=False,
    sample_gpu_per_run=0,
    optim_sample_share_gpu=False,
    alternating=False,
    set_affinity=True,
)


@pytest.fixture
def machine(monkeypatch):
    """Pretend this process may use CPUs 0..n-1 and that torch sees `n_gpu` GPUs."""

    def make(n_cpu=48, n_gpu=None):
        monkeypatch.setenv(ALLOWED_CPUS_ENV, ",".join(str(c) for c in range(n_cpu)))
        monkeypatch.setattr(affinity, "_visible_gpu_count", lambda: n_gpu)

    make()
    return make


def keywords_from_code(code):
    """Invert encode_affinity by hand: code tokens back to keyword values (defaults filled)."""
    abbr_to_keyword = {v: k for k, v in affinity.ABBREVIATIONS.items()}
    decoded = {abbr_to_keyword[a]: v for a, v in decode_affinity(code).items()}
    keywords = dict(KEYWORD_DEFAULTS, **decoded)
    keywords.setdefault("hyperthread_offset", keywords["n_cpu_core"])
    keywords.setdefault("n_socket", 1)
    for flag in ("async_sample", "optim_sample_share_gpu", "alternating", "set_affinity"):
        keywords[flag] = bool(keywords[flag])
    if keywords["n_gpu"] > 0:
        keywords.pop("cpu_per_run")
    return keywords


ROUND_TRIPS = [
    (dict(n_cpu_core=2, n_gpu=0, hyperthread_offset=0, n_socket=1), "2cpu_0gpu_1cpr_0hto"),
    (
        dict(n_cpu_core=2, n_gpu=0, cpu_per_run=2, hyperthread_offset=2, n_socket=1),
        "2cpu_0gpu_2cpr",
    ),
    (
        dict(n_cpu_core=8, n_gpu=1, contexts_per_gpu=2, hyperthread_offset=8, n_socket=1),
        "8cpu_1gpu_2cxg",
    ),
    (
        dict(n_cpu_core=24, n_gpu=4, gpu_per_run=2, hyperthread_offset=24, n_socket=2),
        "24cpu_4gpu_2gpr_2skt",
    ),
    (
        dict(
            n_cpu_core=12,
            n_gpu=2,
            hyperthread_offset=24,
            n_socket=2,
            async_sample=True,
            sample_gpu_per_run=1,
            alternating=True,
        ),
        "12cpu_2gpu_24hto_2skt_1ass_1sgr_1alt",
    ),
    (
        dict(
            n_cpu_core=4,
            n_gpu=1,
            async_sample=True,
            optim_sample_share_gpu=True,
            cpu_reserved=2,
            hyperthread_offset=0,
            n_socket=1,
        ),
        "4cpu_1gpu_0hto_2res_1ass_1oss",
    ),
    (
        dict(
            n_cpu_core=4, n_gpu=0, cpu_per_run=4, cpu_per_worker=2, hyperthread_offset=0, n_socket=1
        ),
        "4cpu_0gpu_4cpr_2cpw_0hto",
    ),
    (
        dict(n_cpu_core=2, n_gpu=0, hyperthread_offset=0, n_socket=1, set_affinity=False),
        "2cpu_0gpu_1cpr_0hto_0saf",
    ),
]


@pytest.mark.parametrize("kwargs, code", ROUND_TRIPS)
def test_encode_writes_only_non_default_tokens_and_decodes_back(kwargs, code):
    assert encode_affinity(**kwargs) == code
    expected = dict(KEYWORD_DEFAULTS, **kwargs)
    if expected["n_gpu"] > 0:
        expected.pop("cpu_per_run")
    assert keywords_from_code(code) == expected


def test_run_slot_is_prepended_and_removed():
    code = encode_affinity(n_cpu_core=2, n_gpu=0, hyperthread_offset=0, n_socket=1, run_slot=1)
    assert code == "1slt_2cpu_0gpu_1cpr_0hto"
    assert prepend_run_slot(1, "2cpu_0gpu_1cpr_0hto") == code
    assert affinity.remove_run_slot(code) == (1, "2cpu_0gpu_1cpr_0hto")


def test_detected_hyperthreads_and_sockets_are_used_when_not_given(monkeypatch):
    monkeypatch.setattr(affinity, "detect_hyperthread_offset", lambda: 4)
    monkeypatch.setattr(affinity, "detect_n_socket", lambda: 2)
    assert encode_affinity(n_cpu_core=4, cpu_per_run=2) == "4cpu_0gpu_2cpr_2skt"
    assert encode_affinity(n_cpu_core=2, cpu_per_run=1) == "2cpu_0gpu_1cpr_4hto_2skt"


@pytest.mark.parametrize(
    "code, n_slots",
    [
        ("8cpu_0gpu_2cpr", 4),
        ("8cpu_2gpu", 2),
        ("8cpu_2gpu_3cxg", 6),
        ("16cpu_4gpu_2gpr", 2),
        ("24cpu_4gpu_1ass_1sgr", 2),
        ("24cpu_4gpu_1ass_1oss", 4),
        ("24cpu_8gpu_2gpr_1ass_2sgr", 2),
        ("8cpu_0gpu_4cpr_1ass", 2),
        ("3slt_8cpu_0gpu_2cpr", 4),
    ],
)
def test_get_n_run_slots(code, n_slots):
    assert get_n_run_slots(code) == n_slots


def test_cpu_affinity_structure(machine):
    aff = make_affinity(run_slot=1, n_cpu_core=4, cpu_per_run=2, hyperthread_offset=4, n_socket=1)
    assert set(aff) == SINGLE_KEYS
    assert aff.master_cpus == aff.all_cpus == (2, 3, 6, 7)
    assert aff.workers_cpus == ((2, 6), (3, 7))
    # The master's threads are decided by the runner from its CPUs and model.
    assert (aff.master_torch_threads, aff.worker_torch_threads) == (None, 1)
    assert aff.cuda_idx is None and aff.set_affinity and not aff.alternating


def test_cpu_reserved_and_cpu_per_worker(machine):
    aff = make_affinity(
        n_cpu_core=5,
        cpu_per_run=5,
        cpu_reserved=1,
        cpu_per_worker=2,
        hyperthread_offset=0,
        n_socket=1,
    )
    assert aff.master_cpus == (0, 1, 2, 3, 4)  # The master may use the reserved core.
    assert aff.workers_cpus == ((1, 2), (3, 4))
    assert aff.worker_torch_threads == 2


def test_gpu_contexts_spread_over_gpus_first(machine):
    machine(n_gpu=2)
    code = encode_affinity(
        n_cpu_core=8, n_gpu=2, contexts_per_gpu=2, hyperthread_offset=0, n_socket=1
    )
    affs = [affinity_from_code(prepend_run_slot(s, code)) for s in range(4)]
    assert [a.cuda_idx for a in affs] == [0, 1, 0, 1]
    assert all(
        set(a) == SINGLE_KEYS | {"keep_master_core"} and len(a.master_cpus) == 2 for a in affs
    )
    # Contexts of one GPU sit on neighbouring core blocks.
    assert affs[0].master_cpus == (0, 1) and affs[2].master_cpus == (2, 3)


def test_multigpu_affinity_is_a_list_per_gpu(machine):
    machine(n_gpu=4)
    affs = make_affinity(
        run_slot=1, n_cpu_core=16, n_gpu=4, gpu_per_run=2, hyperthread_offset=16, n_socket=2
    )
    assert isinstance(affs, list) and [a.cuda_idx for a in affs] == [2, 3]
    assert affs[0].master_cpus == (8, 9, 10, 11, 24, 25, 26, 27)


def test_async_gpu_affinity_structure(machine):
    machine(n_gpu=4)
    aff = make_affinity(
        run_slot=1, n_cpu_core=8, n_gpu=4, async_sample=True, sample_gpu_per_run=1,
        hyperthread_offset=0, n_socket=1,
    )  # fmt: skip
    assert set(aff) == {"all_cpus", "optimizer", "sampler", "set_affinity"}
    (opt,) = aff.optimizer
    assert set(opt) == OPTIMIZER_KEYS and opt["cuda_idx"] == 2 and opt["cpus"] == (4,)
    (smp,) = aff.sampler
    assert set(smp) == SINGLE_KEYS and smp.cuda_idx == 3
    assert smp.master_cpus == (5, 6, 7) and smp.workers_cpus == ((5,), (6,), (7,))
    assert sorted(aff.all_cpus) == [4, 5, 6, 7]


def test_async_cpu_sampler_when_no_sampler_gpu(machine):
    machine(n_gpu=2)
    aff = make_affinity(n_cpu_core=8, n_gpu=2, async_sample=True, hyperthread_offset=0, n_socket=1)
    assert aff.optimizer[0]["cuda_idx"] == 0 and aff.optimizer[0]["cpus"] == (0,)
    assert isinstance(aff.sampler, dict) and aff.sampler.cuda_idx is None
    assert aff.sampler.master_cpus == (1, 2, 3)


def test_async_without_gpu_runs_on_cpu(machine):
    aff = make_affinity(
        n_cpu_core=4, cpu_per_run=4, async_sample=True, hyperthread_offset=0, n_socket=1
    )
    assert aff.optimizer == [dict(cpus=(0,), cuda_idx=None, torch_threads=None, set_affinity=True)]
    assert aff.sampler.workers_cpus == ((1,), (2,), (3,))


def test_async_run_spanning_sockets_that_do_not_split_uses_one_pool(machine):
    # rlpyt's own example code; rlpyt itself stopped with "Maybe try n_socket=1" here.
    machine(n_gpu=2)
    aff = affinity_from_code("0slt_12cpu_2gpu_24hto_2skt_1ass_1sgr")
    assert aff.optimizer[0]["cuda_idx"] == 0 and aff.sampler[0].cuda_idx == 1
    assert aff.optimizer[0]["cpus"] == (0, 24)
    assert len(aff.sampler[0].workers_cpus) == 11


def test_alternating_gives_two_equal_worker_groups(machine):
    with_ht = make_affinity(
        n_cpu_core=2, cpu_per_run=2, alternating=True, hyperthread_offset=2, n_socket=1
    )
    assert with_ht.workers_cpus == ((0,), (1,), (2,), (3,))
    no_ht = make_affinity(
        n_cpu_core=2, cpu_per_run=2, alternating=True, hyperthread_offset=0, n_socket=1
    )
    assert no_ht.workers_cpus == ((0,), (1,), (0,), (1,))
    assert no_ht.alternating
    validate_affinity(with_ht)
    validate_affinity(no_ht)


SWEEP_CODES = [
    "8cpu_0gpu_2cpr",
    "8cpu_0gpu_1cpr_0hto",
    "16cpu_0gpu_4cpr_2skt",
    "16cpu_0gpu_16cpr_2skt",
    "8cpu_2gpu_2cxg",
    "16cpu_4gpu_2gpr_2skt",
    "24cpu_8gpu_2skt_1ass_1sgr",
    "24cpu_4gpu_2gpr_2skt_1ass_2sgr",
    "8cpu_4gpu_0hto_1ass_1oss",
    "8cpu_0gpu_2cpr_1ass",
]


@pytest.mark.parametrize("code", SWEEP_CODES)
def test_run_slots_never_share_a_cpu(machine, code):
    machine(n_gpu=8)
    seen = []
    for slot in range(get_n_run_slots(code)):
        aff = affinity_from_code(prepend_run_slot(slot, code))
        for entry in aff if isinstance(aff, list) else [aff]:
            seen.extend(entry.all_cpus)
    assert len(seen) == len(set(seen))
    assert max(seen) < 48


def test_set_affinity_false_keeps_logical_numbers_unchecked(machine):
    machine(n_cpu=2)
    aff = make_affinity(
        n_cpu_core=8, cpu_per_run=8, hyperthread_offset=0, n_socket=1, set_affinity=False
    )
    assert aff.master_cpus == tuple(range(8)) and not aff.set_affinity


# Impossible requests: the message says what was asked and what exists.


def test_more_cpus_per_run_than_cores():
    with pytest.raises(AffinityError, match=r"cpu_per_run=4 .*n_cpu_core=2"):
        encode_affinity(n_cpu_core=2, cpu_per_run=4, hyperthread_offset=0, n_socket=1)


def test_more_cpus_than_the_process_may_use(machine):
    machine(n_cpu=2)
    with pytest.raises(AffinityError, match=r"needs 4 CPUs .* may use 2: \[0, 1\]"):
        make_affinity(n_cpu_core=4, cpu_per_run=4, hyperthread_offset=0, n_socket=1)


def test_run_slot_beyond_the_slots(machine):
    with pytest.raises(AffinityError, match=r"Run slot 2 requested.*only 2 run slot"):
        encode_affinity(n_cpu_core=2, cpu_per_run=1, hyperthread_offset=0, n_socket=1, run_slot=2)
    with pytest.raises(AffinityError, match=r"Run slot 5 requested"):
        affinity_from_code("5slt_8cpu_2gpu_0hto")


def test_gpu_beyond_what_torch_sees(machine):
    machine(n_gpu=1)
    with pytest.raises(AffinityError, match=r"CUDA device 1, but torch sees 1"):
        affinity_from_code("1slt_8cpu_2gpu_0hto")
    assert affinity_from_code("0slt_8cpu_2gpu_0hto").cuda_idx == 0


def test_async_needs_enough_gpus():
    with pytest.raises(AffinityError, match=r"needs gpu_per_run \+ sample_gpu_per_run = 2 GPUs"):
        encode_affinity(
            n_cpu_core=4, n_gpu=1, async_sample=True, sample_gpu_per_run=1, hyperthread_offset=0
        )


def test_cpu_per_worker_must_divide_worker_cores():
    with pytest.raises(AffinityError, match=r"cpu_per_worker=2 does not divide the 3 worker cores"):
        encode_affinity(
            n_cpu_core=3, cpu_per_run=3, cpu_per_worker=2, hyperthread_offset=0, n_socket=1
        )


def test_alternating_with_odd_worker_count_is_rejected():
    with pytest.raises(AffinityError, match=r"even, non-zero number of workers.*has 3"):
        validate_affinity(dict(cuda_idx=0, workers_cpus=[0, 1, 2], alternating=True))
    validate_affinity(dict(cuda_idx=0, workers_cpus=[0, 1, 2, 3], alternating=True))
    validate_affinity(dict(cuda_idx=0, workers_cpus=[0, 1, 2]))


@pytest.mark.parametrize(
    "code, match",
    [
        ("2cpu_0gpx", r"Bad token '0gpx'"),
        ("xcpu_0gpu", r"Bad token 'xcpu'"),
        ("0gpu", "lacks the 'cpu'"),
    ],
)
def test_bad_codes_name_the_token(code, match):
    with pytest.raises(AffinityError, match=match):
        decode_affinity(code)


def test_code_without_run_slot_is_explained():
    with pytest.raises(AffinityError, match=r"does not start with a run slot"):
        affinity_from_code("2cpu_0gpu_1cpr")


def test_contexts_per_run_is_not_a_keyword():
    # Two rlpyt launch scripts pass it; it never existed (TypeError upstream too).
    with pytest.raises(TypeError):
        encode_affinity(n_cpu_core=2, contexts_per_run=1)


def test_quick_affinity_code_on_cpus(machine, monkeypatch):
    machine(n_cpu=6)
    monkeypatch.setattr(affinity, "detect_hyperthread_offset", lambda: 0)
    monkeypatch.setattr(affinity, "detect_n_socket", lambda: 1)
    assert quick_affinity_code(n_parallel=4, use_gpu=False) == "4cpu_0gpu_1cpr_0hto"
    assert quick_affinity_code(n_parallel=3, use_gpu=False) == "6cpu_0gpu_2cpr_0hto"
    with pytest.raises(AffinityError, match="n_parallel"):
        quick_affinity_code(use_gpu=False)
