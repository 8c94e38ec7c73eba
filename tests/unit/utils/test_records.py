"""The shared records live below the boxes and still load from rlpyt's import path."""

import pickle

import numpy as np

from rlpyt.samplers import collections as sampler_collections
from rlpyt.utils import records


def test_sampler_collections_reexports_the_same_classes():
    for name in ("Samples", "AgentSamples", "AgentSamplesBsv", "EnvSamples", "BatchSpec"):
        assert getattr(sampler_collections, name) is getattr(records, name)
    assert records.Samples.__module__ == "rlpyt.utils.records"


def test_a_pickle_naming_the_old_module_still_loads():
    samples = records.Samples(
        agent=records.AgentSamples(np.arange(3), np.arange(3) - 1, None),
        env=records.EnvSamples(np.zeros((3, 2)), np.ones(3), np.zeros(3), np.zeros(3, bool), None),
    )
    data = pickle.dumps((samples, records.BatchSpec(5, 2)), protocol=0)  # text: names visible
    assert b"rlpyt.utils.records" in data
    old = data.replace(b"rlpyt.utils.records", b"rlpyt.samplers.collections")
    loaded, spec = pickle.loads(old)
    assert type(loaded) is records.Samples and spec.size == 10
    assert np.array_equal(loaded.agent.prev_action, np.arange(3) - 1)
    assert loaded[1].env.reward == 1.0  # still indexes every field
