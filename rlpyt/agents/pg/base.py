"""Records of the policy-gradient agents' ``agent_info`` (what samplers store per step).

``AgentInfo(dist_info, value)``: ``dist_info`` is the distribution's DistInfo (e.g. ``prob
[T, B, A]`` or ``mean, log_std [T, B, A]``), ``value [T, B]``. Recurrent agents add
``prev_rnn_state`` (``[T, B, N, H]`` fields in the samples buffer): the state before the step.
"""

from __future__ import annotations

from rlpyt.utils.collections import namedarraytuple

AgentInfo = namedarraytuple("AgentInfo", ["dist_info", "value"])
AgentInfoRnn = namedarraytuple("AgentInfoRnn", ["dist_info", "value", "prev_rnn_state"])
