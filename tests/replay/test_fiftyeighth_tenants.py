"""What happened to another tenant of the job's nodes is not the job's failure: the OOM killer's
kill of a program a training job does not run (a notebook, an R session, a JVM) and Kubernetes'
eviction, for memory, of a pod of another job (the events table of the whole cluster) are kept as
context; the job's own failure (a rank's CUDA OOM) is the verdict. The job's own pod evicted, or
a python process killed, where the ranks only time out, stays a host OOM kill."""

from __future__ import annotations

from pathlib import Path

import pytest

from detector.replay import replay_path
from detector.rules.engine import RuleSet

JOB = "llama-ft-x7k2q"
HOST = "gke-ml-a3-pool-5c1e9a70-h2mv"
EVENTS_HEAD = ("LAST                  NS          TYPE     REASON     OBJECT                              "
               "SOURCE    MESSAGE")


def _rank_log(rank0: int) -> list[str]:
    lines = [f"[rank{rank0 + r}]:[I1207 10:0{s}:00.000000000 train.py:88] step {100 + s} loss 2.1{s}"
             for s in range(5) for r in range(2)]
    return lines


def _bundle(tmp_path: Path, *, events: list[str], kernel: list[str] | None = None, oom: bool = True) -> Path:
    logs = tmp_path / "kubectl-logs"
    logs.mkdir(parents=True)
    (logs / f"{JOB}-master-0.log").write_text("\n".join([
        *_rank_log(0),
        "[rank1]:[W1207 10:09:40.000000000 ProcessGroupNCCL.cpp:1234] [Rank 1] Watchdog caught collective "
        "operation timeout: WorkNCCL(SeqNum=9001, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) "
        "ran for 600012 milliseconds before timing out.",
    ]) + "\n")
    (logs / f"{JOB}-worker-0.log").write_text("\n".join([
        *_rank_log(2),
    ] + ([] if not oom else [
        "[rank2]: Traceback (most recent call last):",
        '[rank2]:   File "/app/train.py", line 140, in <module>',
        "[rank2]:     loss.backward()",
        "[rank2]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 4.00 GiB. GPU 2 has a total "
        "capacity of 79.10 GiB of which 1.20 GiB is free.",
    ])) + "\n")
    (tmp_path / "events.txt").write_text("\n".join([EVENTS_HEAD, *events]) + "\n")
    if kernel:
        debug = tmp_path / "node-debug"
        debug.mkdir()
        (debug / f"{HOST}_journal-k.txt").write_text("\n".join(kernel) + "\n")
    return tmp_path


def _evicted(namespace: str, pod: str) -> str:
    return (f"2026-12-07T09:58:10Z  {namespace:<10}  Warning  Evicted    {pod:<34}  kubelet   The node was low on "
            "resource: memory. Threshold quantity: 100Mi, available: 20480Ki. Container main was using 71234567Ki, "
            "request is 512Mi, has larger consumption of memory.")


def _killed(comm: str) -> str:
    return (f"Dec  7 09:58:09 {HOST} kernel: Memory cgroup out of memory: Killed process 1341768 ({comm}) "
            "total-vm:116107866kB, anon-rss:55574528kB, file-rss:951036kB, shmem-rss:145732kB, UID:38465 "
            "pgtables:91353kB oom_score_adj:0")


def _verdict(root: Path, ruleset: RuleSet) -> list[tuple[str, int | None]]:
    report = replay_path(root, ruleset)
    return [(i.cause.value, i.initiator.rank) for i in report.incidents]


@pytest.mark.parametrize("pod", ["prom-48ac7eb1-izag9", "pod/jupyter-83a4328b-e4lw4"])
def test_another_jobs_pod_evicted_for_memory_is_not_the_jobs_failure(tmp_path: Path, ruleset: RuleSet,
                                                                     pod: str) -> None:
    """(with the rank's OOM, and where the ranks only time out: no host OOM kill either way)"""
    root = _bundle(tmp_path, events=[_evicted("monitoring", pod)])
    assert _verdict(root, ruleset) == [("cuda_oom", 2)]
    root = _bundle(tmp_path / "timeouts", events=[_evicted("monitoring", pod)], oom=False)
    assert "host_oom_kill" not in [cause for cause, _rank in _verdict(root, ruleset)]
    evidence = [f for i in replay_path(root, ruleset).incidents for f in i.evidence]
    assert not any(f.rule == "system.kubernetes_evicted_memory" and f.role.value == "initiator" for f in evidence)


def test_the_jobs_own_pod_evicted_for_memory_stays_a_host_oom_kill(tmp_path: Path, ruleset: RuleSet) -> None:
    root = _bundle(tmp_path, events=[_evicted("ml-train", f"pod/{JOB}-worker-0")], oom=False)
    assert [cause for cause, _rank in _verdict(root, ruleset)] == ["host_oom_kill"]


@pytest.mark.parametrize("comm", ["R", "jupyter-lab", "java", "tensorboard"])
def test_another_programs_oom_kill_is_not_the_jobs_failure(tmp_path: Path, ruleset: RuleSet, comm: str) -> None:
    root = _bundle(tmp_path, events=[], kernel=[_killed(comm)])
    assert _verdict(root, ruleset) == [("cuda_oom", 2)]


def test_a_python_process_killed_by_the_oom_killer_stays_the_verdict(tmp_path: Path, ruleset: RuleSet) -> None:
    root = _bundle(tmp_path, events=[], kernel=[_killed("python3")], oom=False)
    assert [cause for cause, _rank in _verdict(root, ruleset)] == ["host_oom_kill"]


REVIEW = Path(__file__).parent / "data" / "review58"


def test_a_kill_of_a_ranks_own_process_stays_the_verdict(ruleset: RuleSet) -> None:
    """(a Julia MPI job: mpirun names the pid the kernel killed as rank 2's)"""
    report = replay_path(REVIEW / "julia_mpi", ruleset)
    assert [(i.cause.value, i.initiator.rank) for i in report.incidents][:1] == [("host_oom_kill", 2)]


def test_the_jobs_pod_evicted_is_known_by_a_flat_file_name(ruleset: RuleSet) -> None:
    """(the pods' logs saved as "kubectl-logs-llama-ft-worker-0.log": the evicted
    "llama-ft-worker-0" is the job's)"""
    report = replay_path(REVIEW / "ev_flatname", ruleset)
    assert [i.cause.value for i in report.incidents][:1] == ["host_oom_kill"]
