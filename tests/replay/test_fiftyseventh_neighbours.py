"""On a shared node the OOM killer's kill of another Slurm job's process (its memory cgroup
another job's, "task_memcg=/system.slice/slurmstepd.scope/job_9300324/...") was this run's
host_oom_kill, though that job hit its own limit and could not have taken this job's ranks."""

from __future__ import annotations

from pathlib import Path

import pytest

from detector.replay import replay_path
from detector.rules.engine import RuleSet

OWN = "9294773"


def _run(tmp_path: Path, memcg_job: str) -> Path:
    (tmp_path / f"slurm-{OWN}.out").write_text("\n".join([
        "3: [rank3]: Traceback (most recent call last):",
        '3: [rank3]:   File "/app/train.py", line 88, in <module>',
        "3: [rank3]: ValueError: label index 1021 out of range for 1000 classes",
        "srun: error: nid277633: task 3: Exited with exit code 1",
    ]) + "\n")
    (tmp_path / "dmesg-T_nid277633.txt").write_text("\n".join([
        "[Mon Jun  9 01:29:46 2025] spark-executor invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0",
        "[Mon Jun  9 01:29:47 2025] oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0-1,"
        f"oom_memcg=/system.slice/slurmstepd.scope/job_{memcg_job}/step_batch,task_memcg=/system.slice/slurmstepd.scope/"
        f"job_{memcg_job}/step_batch/user/task_0,task=spark-executor,pid=511449,uid=1002",
        "[Mon Jun  9 01:29:47 2025] Memory cgroup out of memory: Killed process 511449 (spark-executor) total-vm:89789726kB, "
        "anon-rss:10485760kB, file-rss:138557kB, shmem-rss:0kB, UID:1002 pgtables:40000kB oom_score_adj:0",
    ]) + "\n")
    return tmp_path


@pytest.mark.parametrize(("memcg_job", "cause"), [("9300324", "python_exception"), (OWN, "host_oom_kill")])
def test_an_oom_kill_in_another_jobs_memory_cgroup_is_not_this_runs(tmp_path: Path, ruleset: RuleSet,
                                                                      memcg_job: str, cause: str) -> None:
    report = replay_path(_run(tmp_path, memcg_job), ruleset)
    assert report.incidents[0].cause.value == cause, [(i.cause.value, i.initiator.rank) for i in report.incidents]


def test_a_failed_c_assert_is_the_process_s_crash(tmp_path: Path, ruleset: RuleSet) -> None:
    """(glibc's message before it aborts the process; no rule knew it, and the peers' timeouts made
    it a hang)"""
    (tmp_path / "console.log").write_text("\n".join([
        "[rank5]: python: /src/csrc/extension/graph.cpp:212: void build(int): Assertion `n_nodes > 0' failed.",
        "[rank0]:[E1207 20:41:10.311000 ProcessGroupNCCL.cpp:632] [Rank 0] Watchdog caught collective operation timeout: "
        "WorkNCCL(SeqNum=7, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600031 milliseconds "
        "before timing out.",
    ]) + "\n")
    incident = replay_path(tmp_path, ruleset).incidents[0]
    assert (incident.cause.value, incident.initiator.rank) == ("crash_signal", 5)
