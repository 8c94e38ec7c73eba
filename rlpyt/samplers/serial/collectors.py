"""rlpyt's import path of ``SerialEvalCollector`` (it lives in ``rlpyt.samplers.evaluation``)."""

from rlpyt.samplers.evaluation import SerialEvalCollector  # noqa: F401  (rlpyt's import path)
