"""Lines from the fifth session's development cases (replay_logs/real/J-*, L-*): a bare SIGKILL
names its rank but not who killed it, mpirun's line with a redacted PID, NCCL's older NET/IB
completion error, Ray's raylet OOM report, and NCCL proxy chatter at the end of a good run."""

from __future__ import annotations

from pathlib import Path

import pytest

from detector.rules.compile import load_ruleset
from detector.rules.engine import RuleSet
from detector.types import Cause
from tests.support.replaying import incidents_of


@pytest.fixture(scope="module")
def rules() -> RuleSet:
    return load_ruleset()


def test_mpirun_signal_9_with_a_redacted_pid_names_the_rank_and_says_what_to_check(tmp_path: Path, rules: RuleSet) -> None:
    # J-awareofhistory-2: the reporter replaced PID and node with x's
    got = incidents_of(tmp_path, {"train.log": (
        "Primary job  terminated normally, but 1 process returned\n"
        "a non-zero exit code. Per user-direction, the job has been aborted.\n"
        "mpirun noticed that process rank 1 with PID xxxxxx on node xxxxxxxx exited on signal 9 (Killed).\n")}, rules)
    assert [(g.cause, g.rank, g.drain) for g in got] == [(Cause.UNKNOWN, 1, False)]
    assert got[0].confidence <= 0.5
    assert "SIGKILL" in got[0].explanation and "OOM killer" in got[0].explanation
    assert any("exited on signal 9" in e for e in got[0].evidence)


def test_the_older_net_ib_completion_error_without_a_peer_is_the_nodes_network(tmp_path: Path, rules: RuleSet) -> None:
    # J-nccltests-24: NCCL 2.x before "from peer" was printed
    got = incidents_of(tmp_path, {"all_reduce_perf.log": (
        "gpu4:5633:5633 [0] NCCL INFO Launch mode Group/CGMD\n"
        "mlx5: gpu5: got completion with error:\n"
        "gpu5:6252:6325 [0] transport/net_ib.cu:788 NCCL WARN NET/IB : Got completion with error 4, opcode 1, len 0, vendor err 81\n"
        "gpu5:6252:6325 [0] NCCL INFO include/net.h:34 -> 2\n")}, rules)
    assert [(g.cause, g.node) for g in got] == [(Cause.NETWORK, "gpu5")]


def test_the_raylets_oom_report_is_a_host_oom_kill_on_its_node(tmp_path: Path, rules: RuleSet) -> None:
    got = incidents_of(tmp_path, {"train.log": (
        "(raylet) [2025-12-07 09:57:19,206 E 393463 393463] (raylet) node_manager.cc:3277: 2 Workers (tasks / actors) "
        "killed due to memory pressure (OOM), 0 Workers crashed due to other reasons at node (ID: 8289f87b78d161ae, "
        "IP: 172.24.0.226) over the last time period.\n")}, rules)
    assert [(g.cause, g.node, g.drain) for g in got] == [(Cause.HOST_OOM_KILL, "172.24.0.226", False)]


def test_nccl_proxy_chatter_after_every_test_passed_is_no_incident(tmp_path: Path, rules: RuleSet) -> None:
    # J-deepep-41: the processes exit one after another; their proxy threads complain
    got = incidents_of(tmp_path, {"test.log": (
        "[testing] Running with FP8, with top-k (async=True, previous=False) ... passed\n"
        "0bc8f5b83646:2374:2994 [0] proxy.cc:1458 NCCL WARN [Service thread] Accept failed Resource temporarily unavailable\n"
        "0bc8f5b83646:2374:2994 [0] proxy.cc:1497 NCCL WARN [Service thread] Could not receive type from localRank 0, res=3, closed=0\n"
        "0bc8f5b83646:2374:2994 [0] proxy.cc:1521 NCCL WARN [Proxy Service 0] Failed to execute operation Close from rank 0, retcode 3\n")}, rules)
    assert got == []


def test_proxy_errors_beside_a_real_failure_still_count(tmp_path: Path, rules: RuleSet) -> None:
    got = incidents_of(tmp_path, {"train.log": (
        "[rank3]: RuntimeError: CUDA error: an illegal memory access was encountered\n"
        "node07:2231:2290 [1] proxy.cc:1509 NCCL WARN [Service thread] Could not receive type from localRank 3, res=3, closed=1\n")}, rules)
    assert [(g.cause, g.rank) for g in got][:1] == [(Cause.ILLEGAL_MEMORY_ACCESS, 3)]
