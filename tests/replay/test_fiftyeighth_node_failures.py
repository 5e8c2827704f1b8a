"""Slurm's word that a node of the job failed is read from the controller's log and from srun's
"Node failure on X": the node is the one that failed (not the batch host whose slurmstepd reports
the cancel); an administrator's DOWN of it just before (scontrol's "update_node", a maintenance
reason) is the job taken away (preemption), a node that stopped responding is a node failure
(cause unknown, on it); Slurm's kills of the tasks are collateral, and so are the other nodes'
network errors about losing it. slurmctld's kill of another job is not this run's."""

from __future__ import annotations

from pathlib import Path

import pytest

from detector.replay import replay_path
from detector.rules.engine import RuleSet

JOB = "3570026"
NODES = ["sh03-g001", "sh03-g002", "sh03-g049"]


def _job_output(tmp_path: Path, *, peers_lost: bool = False) -> None:
    lines = [f"Job {JOB} (pretrain) started Fri Sep 13 10:15:07 UTC 2024 on sh03-g[001-002,049]"]
    lines += [f"  0: 2024-09-13 15:0{i}:10,000 INFO [pretrain] step {8400 + i} | loss 2.67 | 2.09 s/it" for i in range(4)]
    if peers_lost:
        lines += [f"{r}: sh03-g002:2231:2301 [{r - 8}] transport/net_ib.cc:1696 NCCL WARN NET/IB : Got completion from "
                  f"peer 10.42.0.49<47534> with error 12, opcode 0, len 0, vendor err 129" for r in (8, 9)]
    lines += [
        f"slurmstepd: error: *** JOB {JOB} ON sh03-g001 CANCELLED AT 2024-09-13T15:06:15 DUE TO NODE FAILURE, SEE "
        "SLURMCTLD LOG FOR DETAILS ***",
        "srun: error: Node failure on sh03-g049",
        "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.",
        "srun: error: sh03-g049: tasks 16-23: Killed",
        "srun: error: sh03-g002: tasks 8-15: Killed",
        "srun: error: sh03-g001: tasks 0-7: Killed",
    ]
    (tmp_path / f"slurm-{JOB}.out").write_text("\n".join(lines) + "\n")


def _controller(tmp_path: Path, lines: list[str]) -> None:
    (tmp_path / "slurmctld.log").write_text("\n".join([
        f"[2024-09-13T10:15:05.100] sched: Allocate JobId={JOB} NodeList=sh03-g[001-002,049] #CPUs=288 Partition=gpu",
        *lines,
    ]) + "\n")


def _verdict(root: Path, ruleset: RuleSet) -> list[tuple[str, int | None, str | None]]:
    return [(i.cause.value, i.initiator.rank, i.initiator.node) for i in replay_path(root, ruleset).incidents]


def test_an_administrators_down_of_a_node_is_the_job_taken_away(tmp_path: Path, ruleset: RuleSet) -> None:
    _job_output(tmp_path)
    # (slurmctld's order: the reason, its kills of the node's jobs, then the state)
    _controller(tmp_path, [
        "[2024-09-13T15:06:14.845] update_node: node sh03-g049 reason set to: scheduled maintenance: kernel reboot",
        f"[2024-09-13T15:06:14.846] Killing JobId={JOB} on failed node sh03-g049",
        "[2024-09-13T15:06:14.945] update_node: node sh03-g049 state set to DOWN",
    ])
    verdict = _verdict(tmp_path, ruleset)
    assert verdict == [("preemption", None, "sh03-g049")]


@pytest.mark.parametrize("reason", [None, "NHC: check_nv_xid: Xid 79 on GPU 4", "node hung, investigating"])
def test_a_node_that_stopped_responding_is_where_the_job_ended(tmp_path: Path, ruleset: RuleSet,
                                                                reason: str | None) -> None:
    """(a node that stopped answering, or one a health check set DOWN for a fault: not maintenance;
    the other nodes' ranks that lost their peer with it are collateral)"""
    _job_output(tmp_path, peers_lost=True)
    if reason is None:
        events = ["[2024-09-13T15:04:31.582] error: Nodes sh03-g049 not responding",
                  "[2024-09-13T15:06:14.841] error: Nodes sh03-g049 not responding, setting DOWN"]
    else:
        events = [f"[2024-09-13T15:06:14.845] update_node: node sh03-g049 reason set to: {reason}",
                  f"[2024-09-13T15:06:14.846] Killing JobId={JOB} on failed node sh03-g049",
                  "[2024-09-13T15:06:14.945] update_node: node sh03-g049 state set to DOWN"]
    if reason is None:
        events.append(f"[2024-09-13T15:06:14.945] Killing JobId={JOB} on failed node sh03-g049")
    _controller(tmp_path, events)
    verdict = _verdict(tmp_path, ruleset)
    assert verdict[0] == ("unknown", None, "sh03-g049"), verdict


def test_srun_alone_names_the_failed_node_not_the_batch_host(tmp_path: Path, ruleset: RuleSet) -> None:
    _job_output(tmp_path)
    verdict = _verdict(tmp_path, ruleset)
    assert verdict == [("unknown", None, "sh03-g049")]


def test_the_controllers_kill_of_another_job_is_not_this_runs(tmp_path: Path, ruleset: RuleSet) -> None:
    """(the run's own job is its slurm-<id>.out's: a kill of job 7344551 on a node of another
    allocation says nothing of it; its rank's own error is the verdict)"""
    (tmp_path / f"slurm-{JOB}.out").write_text("\n".join([
        "  3: [rank3]: Traceback (most recent call last):",
        '  3: [rank3]:   File "/app/train.py", line 88, in <module>',
        "  3: [rank3]: ValueError: label index 1021 out of range for 1000 classes",
        "srun: error: sh03-g001: task 3: Exited with exit code 1",
    ]) + "\n")
    _controller(tmp_path, [
        "[2024-09-13T15:06:14.846] update_node: node sh03-g077 state set to DOWN",
        "[2024-09-13T15:06:14.945] Killing JobId=7344551 on failed node sh03-g077",
    ])
    assert [(c, r) for c, r, _n in _verdict(tmp_path, ruleset)] == [("python_exception", 3)]


def _summary(entries: list[tuple[int, int]]) -> list[str]:
    lines = ["torch.distributed.elastic.multiprocessing.errors.ChildFailedError:", "=" * 60, "train.py FAILED",
             "-" * 60, "Failures:"]
    for n, (rank, code) in enumerate(entries[1:], start=1):
        lines += [f"[{n}]:", "  time      : 2025-10-11_19:46:55", "  host      : gpu2901",
                  f"  rank      : {rank} (local_rank: {rank})", f"  exitcode  : {code} (pid: {4000 + rank})",
                  "  error_file: <N/A>", f"  traceback : Signal {-code} received by PID {4000 + rank}"]
    rank, code = entries[0]
    lines += ["-" * 60, "Root Cause (first observed failure):", "[0]:", "  time      : 2025-10-11_19:46:50",
              "  host      : gpu2901", f"  rank      : {rank} (local_rank: {rank})",
              f"  exitcode  : {code} (pid: {4000 + rank})", "  error_file: <N/A>",
              f"  traceback : Signal {-code} received by PID {4000 + rank}", "=" * 60]
    return lines


@pytest.mark.parametrize(("oom_job", "cause"), [(JOB, "host_oom_kill"), ("4302050", "unknown")])
def test_the_controllers_oom_failure_of_the_job_names_the_killed_rank(tmp_path: Path, ruleset: RuleSet,
                                                                      oom_job: str, cause: str) -> None:
    """(slurmctld's "_job_complete: JobId=N OOM failure": the rank killed by SIGKILL is the OOM
    killer's, the others' SIGABRT exits their watchdogs'; another job's OOM failure says nothing)"""
    (tmp_path / f"slurm-{JOB}.out").write_text("\n".join(_summary([(5, -9), (1, -6), (2, -6)])) + "\n")
    _controller(tmp_path, [f"[2025-10-11T19:47:01.229] _job_complete: JobId={oom_job} WEXITSTATUS 0",
                           f"[2025-10-11T19:47:01.229] _job_complete: JobId={oom_job} OOM failure"])
    assert [(c, r) for c, r, _n in _verdict(tmp_path, ruleset)] == [(cause, 5)]


def test_a_cluster_wide_controller_log_speaks_only_of_the_runs_nodes(tmp_path: Path, ruleset: RuleSet) -> None:
    """(no slurm-<id>.out: the run's job is not known; another job's node that stopped
    responding, and another job's OOM failure, say nothing of this run's own network error)"""
    (tmp_path / "rank8.log").write_text("\n".join([
        "[2024-09-13 15:01:10] step 8400 loss 2.67",
        "[2024-09-13 15:05:30] gpu-a02:2231:2301 [0] transport/net_ib.cc:1696 NCCL WARN NET/IB : Got completion from "
        "peer 10.42.0.1<47534> with error 12, opcode 0, len 0, vendor err 129",
    ]) + "\n")
    (tmp_path / "slurmctld.log").write_text("\n".join([
        "[2024-09-13T15:04:31.582] error: Nodes gpu-b17 not responding",
        "[2024-09-13T15:06:14.841] error: Nodes gpu-b17 not responding, setting DOWN",
        "[2024-09-13T15:06:14.945] Killing JobId=7344551 on failed node gpu-b17",
        "[2024-09-13T15:06:20.001] _job_complete: JobId=7344560 OOM failure",
    ]) + "\n")
    verdict = _verdict(tmp_path, ruleset)
    assert verdict[0][0] == "network" and verdict[0][2] != "gpu-b17", verdict
