"""A real torchrun job (gloo, CPU, 2 ranks, tests/jobs/train_ddp.py) run with ``--max-restarts 1``
and ``--log-dir``: torchrun says it restarted the worker group only at INFO, which it does not print
by default, but its ``attempt_N/`` folders say the same. A rank whose exception ends the first
attempt, after which the restarted workers train to the end, is a job that recovered: no incident,
and the report says what it recovered from. The same exception in every attempt stays an incident
on that rank."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from detector.cli.main import main
from detector.replay import replay_path
from detector.rules.engine import RuleSet
from detector.types import Cause

JOB = Path(__file__).parents[1] / "jobs" / "train_ddp.py"


def _run(work: Path, attempts: list[int], *, tee: bool) -> Path:
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    for key in ("RANKDOCTOR_FAULT", "RANKDOCTOR_FAULT_RANK", "RANKDOCTOR_FAULT_STEP", "RANKDOCTOR_FAULT_ATTEMPT"):
        env.pop(key, None)
    logs = work / "logs"
    logs.mkdir(parents=True)
    faults = [arg for attempt in attempts for arg in ("--fault", "exception", "--fault-rank", "1",
                                                       "--fault-step", "5", "--fault-attempt", str(attempt))]
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node=2",
               "--max-restarts", "1", "--log-dir", str(logs / "tr"), *(("--tee", "3") if tee else ("--redirects", "3")),
               str(JOB), "--steps", "40", "--step-sleep", "0.02", "--pg-timeout", "10", *faults]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=200, check=False)
    if tee:
        (logs / "console.log").write_text(done.stdout + done.stderr)
    assert (done.returncode == 0) == (attempts == [0]), done.stderr[-3000:]
    assert (logs / "tr").is_dir() and list((logs / "tr").glob("*/attempt_1")), "torchrun made no second attempt"
    return logs


@pytest.mark.parametrize("tee", [False, True])
def test_a_failure_the_restart_recovered_from_is_no_incident(tmp_path: Path, ruleset: RuleSet, tee: bool) -> None:
    logs = _run(tmp_path, [0], tee=tee)
    report = replay_path(logs, ruleset)
    assert not report.incidents, [(i.cause, i.initiator.rank) for i in report.incidents]
    assert report.recovered and report.recovered[0].startswith("rank 1: python.uncaught_exception"), report.recovered
    assert "injected fault" in report.recovered[0]


def test_the_report_says_the_job_recovered(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    logs = _run(tmp_path, [0], tee=True)
    assert main(["replay", str(logs)]) == 0
    text = capsys.readouterr().out
    assert "VERDICT: no incident - the job recovered" in " ".join(text.split())
    assert main(["replay", str(logs), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["incidents"] == [] and data["recovered"][0].startswith("rank 1: python.uncaught_exception")


def test_the_same_failure_in_every_attempt_is_an_incident(tmp_path: Path, ruleset: RuleSet) -> None:
    report = replay_path(_run(tmp_path, [0, 1], tee=True), ruleset)
    assert report.incidents and report.incidents[0].cause is Cause.PYTHON_EXCEPTION
    assert report.incidents[0].initiator.rank == 1


DATA = Path(__file__).parent / "data" / "review55"


@pytest.mark.parametrize(("run", "cause", "rank"), [
    # the last attempt's rank killed without a word of its own, 13 s after the earlier failure:
    # only torchrun's console says so (SIGKILL, SIGSEGV), or the kernel's OOM killer in dmesg
    ("rv_a2_sigkill_last_silent_peer", Cause.UNKNOWN, 1),
    ("rv_a3_oomkill_last_dmesg", Cause.HOST_OOM_KILL, 1),
    ("rv_a5_segv_last_silent", Cause.CRASH_SIGNAL, 1),
    # the last attempt wrote only its start-up lines and a loading bar before the OOM kill
    ("rv_a6_startup_only_last", Cause.HOST_OOM_KILL, 1),
    # two jobs' torchrun folders in one log dir: one recovered, the other failed in its only attempt
    ("rv_b1_two_jobs_one_logdir", Cause.CUDA_OOM, 0),
    # a requeue wrapper's attempt_N/ folders around torchrun's own: its last attempt failed
    ("rv_e1_wrapper_attempt_dirs", Cause.CUDA_OOM, 0),
])
def test_a_last_attempt_that_failed_is_no_recovery(run: str, cause: Cause, rank: int, ruleset: RuleSet) -> None:
    report = replay_path(DATA / run, ruleset)
    assert report.incidents, f"read as recovered: {report.recovered}"
    assert (report.incidents[0].cause, report.incidents[0].initiator.rank) == (cause, rank)


TIMEOUT = ("[rank{r}]:[E1207 10:{m:02d}:05.000000000 ProcessGroupNCCL.cpp:632] [Rank {r}] Watchdog caught collective "
           "operation timeout: WorkNCCL(SeqNum=720282, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) "
           "ran for 600029 milliseconds before timing out.\n")


def test_a_two_node_job_whose_restart_trained_on_recovered(tmp_path: Path, ruleset: RuleSet) -> None:
    """Each node's agent has its own run folder; only global rank 0 prints steps, so the other
    node's last attempt shows its start-up alone: the job's last attempt is as far on both nodes,
    and clean - it recovered (a blind generator's run read a hang from the first attempt's
    timeouts)."""
    for node, ranks, suffix in (("nid001179", range(0, 2), "a1b2c3d4"), ("nid001180", range(2, 4), "e5f6a7b8")):
        run = tmp_path / node / "torchrun_logs" / f"none_{suffix}"
        for local, rank in enumerate(ranks):
            first = run / "attempt_0" / str(local)
            first.mkdir(parents=True)
            (first / "stderr.log").write_text(TIMEOUT.format(r=rank, m=10))
            (first / "stdout.log").write_text("".join(f"2026-12-07 10:0{s // 10}:{s % 10}0,000 INFO [rank{rank}] step {s} | loss 1.0\n"
                                                      for s in range(1, 9) if rank == 0))
            last = run / "attempt_1" / str(local)
            last.mkdir(parents=True)
            (last / "stderr.log").write_text("")
            steps = range(1, 41) if rank == 0 else ()
            (last / "stdout.log").write_text(f"2026-12-07 10:30:00,000 INFO [rank{rank}] resuming from step 8\n" + "".join(
                f"2026-12-07 10:{31 + s // 60:02d}:{s % 60:02d},000 INFO [rank{rank}] step {8 + s} | loss 1.0\n" for s in steps))
    report = replay_path(tmp_path, ruleset)
    assert not report.incidents, [(i.cause, i.initiator.rank) for i in report.incidents]
    assert report.recovered and "nccl.watchdog_timeout" in report.recovered[0]


def _console(restarted: bool) -> str:
    """torchrun without --log-dir: the workers' own "[rankN]:" lines and the agent's warnings in one
    console; a failed first attempt, then (``restarted``) the workers started again and trained to
    their end - at torchrun's default log level no line of its own says it restarted them."""
    head = ["W1207 16:17:58.772000 27714 torch/distributed/run.py:874] *****************************************"]
    steps = lambda n: [f"[rank{r}]: step {s}/25 loss 0.31 step_time 306.9ms" for s in range(n) for r in range(4)]  # noqa: E731
    fail = ["[rank2]: Traceback (most recent call last):",
            '[rank2]:   File "/work/job.py", line 98, in <module>',
            '[rank2]:     raise RuntimeError("transient failure on first attempt")',
            "[rank2]: RuntimeError: transient failure on first attempt",
            *(f"W1207 16:18:12.973000 27714 torch/distributed/elastic/multiprocessing/api.py:1028] Sending process "
              f"{27717 + r} closing signal SIGTERM" for r in (0, 1, 3)),
            "E1207 16:18:13.071000 27714 torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: 1) "
            "local_rank: 2 (pid: 27719) of binary: /usr/bin/python3"]
    again = [*(f"[rank{r}]: started pid={27738 + r} world=4" for r in range(4)), *steps(6),
             *(f"[rank{r}]: training done" for r in range(4))]
    return "\n".join(head + steps(4) + fail + (again if restarted else [])) + "\n"


def test_a_console_whose_workers_were_restarted_and_finished_is_no_incident(tmp_path: Path, ruleset: RuleSet) -> None:
    """(a sidecar tester: replay of such a console still named the first attempt's exception, and
    the word that training completed was doubted for its "done")"""
    (tmp_path / "restarted").mkdir()
    (tmp_path / "restarted" / "console.log").write_text(_console(True))
    assert replay_path(tmp_path / "restarted", ruleset).incidents == ()
    (tmp_path / "failed").mkdir()
    (tmp_path / "failed" / "console.log").write_text(_console(False))
    report = replay_path(tmp_path / "failed", ruleset)
    assert [(i.cause.value, i.initiator.rank) for i in report.incidents[:1]] == [("python_exception", 2)]


def test_a_slurm_step_a_wrapper_ran_again_to_the_end_is_no_incident(tmp_path: Path, ruleset: RuleSet) -> None:
    """(a blind generator's run: a task's CUDA OOM, srun's "task 13: Exited with exit code 1", a
    wrapper's "resuming from latest checkpoint", hours of steps, "Training completed" - read as the
    OOM, srun's word of the exit held against the word that training completed)"""
    def step(n: int, hour: int) -> str:
        return (f"[2025-07-02 {hour:02d}:35:02,100] [INFO] [train] step {n}/31948 | loss 7.61 | lr 3.00e-04 "
                f"| 3429 tok/s/gpu")

    lines = [step(11000 + 100 * i, 5 + i // 10) for i in range(10)] + [
        "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 5; 139.72 GiB total capacity; "
        "137.12 GiB already allocated; 307.20 MiB free)",
        "srun: error: hgx-r41-u18: task 13: Exited with exit code 1",
        "[wrapper] attempt 1 of 3 failed (exit 1); resuming from latest checkpoint",
        "[2025-07-02 09:18:09,290] [INFO] [train] Resumed from /ckpt/llama-8b/step_0012000"]
    again = [step(12500 + 500 * i, 9 + i // 3) for i in range(14)]
    done = ["[2025-07-02 14:35:08,897] [INFO] [train] Training completed. Saving final model to /ckpt/final"]
    (tmp_path / "ok").mkdir()
    (tmp_path / "ok" / "slurm-5800496.out").write_text("\n".join(lines + again + done) + "\n")
    assert replay_path(tmp_path / "ok", ruleset).incidents == ()
    (tmp_path / "failed").mkdir()  # (the same step failing at its end: the word comes right after the exit)
    (tmp_path / "failed" / "slurm-5800496.out").write_text("\n".join(lines[:-2] + done) + "\n")
    assert [i.cause.value for i in replay_path(tmp_path / "failed", ruleset).incidents[:1]] == ["cuda_oom"]
