"""A real torchrun job (gloo, CPU, 3 ranks, tests/jobs/train_ddp.py): a rank that catches an
exception and logs its traceback (``logging.exception``), then trains on, is no incident, whether
its steps are in the traceback's file (--redirects 3: one stderr.log a rank) or in the rank's
other file (--tee 3: the console beside each rank's stdout.log and stderr.log); the same job whose
rank raises the exception uncaught is one, on that rank."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from detector.replay import replay_path
from detector.rules.engine import RuleSet
from detector.types import Cause

JOB = Path(__file__).parents[1] / "jobs" / "train_ddp.py"


def _run(work: Path, fault: str, *, tee: bool) -> Path:
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    for key in ("RANKDOCTOR_FAULT", "RANKDOCTOR_FAULT_RANK", "RANKDOCTOR_FAULT_STEP"):
        env.pop(key, None)
    logs = work / "logs"
    logs.mkdir(parents=True)
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node=3",
               "--log-dir", str(logs / "tr"), *(("--tee", "3") if tee else ("--redirects", "3")),
               str(JOB), "--steps", "30", "--step-sleep", "0.02", "--pg-timeout", "20",
               "--fault", fault, "--fault-rank", "1", "--fault-step", "5"]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=150, check=False)
    if tee:
        (logs / "console.log").write_text(done.stdout + done.stderr)
    assert (done.returncode == 0) == (fault == "caught"), done.stderr[-3000:]
    return logs


@pytest.mark.parametrize("tee", [False, True])
def test_a_caught_exception_then_training_on_is_no_incident(tmp_path: Path, ruleset: RuleSet, tee: bool) -> None:
    report = replay_path(_run(tmp_path, "caught", tee=tee), ruleset)
    assert not report.incidents, [(i.cause, i.initiator.rank) for i in report.incidents]


def test_the_same_exception_uncaught_is_an_incident(tmp_path: Path, ruleset: RuleSet) -> None:
    report = replay_path(_run(tmp_path, "exception", tee=True), ruleset)
    assert report.incidents and report.incidents[0].cause is Cause.PYTHON_EXCEPTION
    assert report.incidents[0].initiator.rank == 1
