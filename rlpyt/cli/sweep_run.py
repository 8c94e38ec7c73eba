"""One run of an ``rlpyt sweep``: the train script that ``run_experiments`` starts.

Box: command line. Follows rlpyt's train-script contract::

    python sweep_run.py <slot_affinity_code> <log_dir> <run_ID> <run_spec_json>

The fourth argument (the "config key" of ordinary train scripts) is the sweep's common
:class:`~rlpyt.cli.spec.RunSpec` as JSON (:func:`encode_spec`); this run's setting comes
from ``<log_dir>/variant_config.json`` as ``--set`` overrides, and its seed is the spec's seed
plus ``run_ID`` (random when the spec has none). Training is :func:`rlpyt.cli.train.run_training`.
"""

from __future__ import annotations

import json
import sys

from rlpyt.cli.grid import flatten_variant
from rlpyt.cli.spec import RunSpec


def encode_spec(spec: RunSpec) -> str:
    """The spec as the one-line JSON argument this script takes."""
    return json.dumps(spec.to_dict(), separators=(",", ":"))


def build_and_train(slot_affinity_code: str, log_dir: str, run_ID: str, spec_json: str) -> None:  # noqa: N803
    """Train one run of the sweep into ``<log_dir>/run_<run_ID>``."""
    from rlpyt.cli.train import run_training  # noqa: PLC0415
    from rlpyt.utils.launching.affinity import affinity_from_code  # noqa: PLC0415
    from rlpyt.utils.launching.variant import load_variant  # noqa: PLC0415

    spec = RunSpec.from_dict(json.loads(spec_json))
    spec.overrides.update(flatten_variant(load_variant(log_dir)))
    spec.log_dir, spec.run_ID = log_dir, int(run_ID)
    if spec.seed is not None:
        spec.seed += spec.run_ID
    affinity = affinity_from_code(slot_affinity_code)
    run_training(spec, affinity=dict(affinity) if isinstance(affinity, dict) else None)


if __name__ == "__main__":
    build_and_train(*sys.argv[1:])
