"""Run folders helper reviewers built against the fifty-third session's changes, where a new
reading had turned a right diagnosis wrong (each mended): one node's logs of a bigger gloo job
whose losses name a peer on the other node (a torn-down rank of this node was named instead);
nccl-tests loops and burn-ins cut by the time limit, and a health check's table cut by its own
timeout before training ran (read as a hang, or as healthy); msrun's word that a worker exited
beside the ranks' record of the one they waited for; a kernel's segfault of a rank's thread."""

from __future__ import annotations

from pathlib import Path

import pytest

from detector.replay import replay_path
from detector.rules.engine import RuleSet
from detector.types import Cause

DATA = Path(__file__).parent / "data" / "review53"


@pytest.mark.parametrize(("run", "cause", "rank", "node"), [
    # node cpu-a01's ranks 0-3 of a two-node job: ranks 0-2 lose peer 10.0.3.12, rank 3 only torn down
    ("q3_half_job_gloo", Cause.UNKNOWN, None, "10.0.3.12"),
    ("q4_half_job_gloo_nodedir", Cause.UNKNOWN, None, "10.0.3.12"),
    # six complete sweeps in a loop, the seventh cut by the time limit
    ("n1_soak_loop_until_limit", Cause.PREEMPTION, None, None),
    # all_reduce_perf -N 0: the table repeats from 8 B until the time limit
    ("n9_run_cycles_forever_until_limit", Cause.PREEMPTION, None, None),
    ("nccltests_burnin_N0", Cause.PREEMPTION, None, None),
    # a fabric check cut by its own timeout, then training ran until the time limit
    ("n11_bounded_check_then_training_limit", Cause.PREEMPTION, None, None),
    ("healthcheck_timeout_nccl_then_training_timelimit", Cause.PREEMPTION, None, None),
    # a 1,024-rank sweep that stopped in its table, then the time limit: a hang, no rank named
    ("nccltests_1024r_timelimit_midsweep", Cause.HANG, None, None),
    # ranks 0-2 record that rank 3 never sent; msrun says worker 0 exited (code 1)
    ("msrun_hccl_hang_notb", Cause.HANG, 3, None),
    # (a generator's run, blind32: read once the node's g0090.dmesg was) the kernel names the
    # checkpoint writer thread that faulted, python3.11[36073]; torchrun's summary lists rank 12's
    # process, pid 36046, ended by SIGSEGV: the node's one rank that crashed is the one named
    ("blind32_thread_segfault_dmesg", Cause.CRASH_SIGNAL, 12, "g0090"),
    # a real job (gloo on CPU, three ranks started one by one, rank 1 killed by SIGKILL in step 15):
    # ranks 0 and 2 lose a peer at 127.0.0.1 in the same second as rank 1's last step
    ("real_sigkill_rank1_hand_launched", Cause.UNKNOWN, 1, None),
])
def test_reviewers_runs(ruleset: RuleSet, run: str, cause: Cause, rank: int | None, node: str | None) -> None:
    report = replay_path(DATA / run, ruleset)
    assert report.incidents, run
    first = report.incidents[0]
    assert (first.cause, first.initiator.rank) == (cause, rank), (run, first.cause, first.initiator, first.explanation)
    if node is not None:
        assert first.initiator.node == node, (run, first.initiator)
