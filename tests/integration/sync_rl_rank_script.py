"""A SyncRl run for torchrun in tests: rank ``$RLPYT_TEST_FAIL_RANK``'s env fails at step 40.

Started by ``tests/integration/test_sync_rl.py`` as
``torchrun --standalone --nproc-per-node 2 sync_rl_rank_script.py <log_dir>``.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

from rlpyt.runners.sync_rl import SyncRl, sync_logger_context  # noqa: E402
from tests.integration.test_sync_rl import ONE_THREAD, failing_cartpole, sync_runner  # noqa: E402

if __name__ == "__main__":
    runner = sync_runner(RunnerCls=SyncRl, EnvCls=failing_cartpole, n_steps=100_000)
    runner.affinity = dict(ONE_THREAD)
    with sync_logger_context(sys.argv[1], 0, "fail", {}, override_prefix=True):
        runner.train()
