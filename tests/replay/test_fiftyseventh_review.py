"""A reviewer's findings on this session's readings: srun's one Killed task among aborted ones was
read as the stuck rank where slurmstepd said the OOM killer took a task; a rank that caught an
exception, trained on and later failed with the others (a collateral exception line of its own)
lost its exception; a SIGKILL as the weights loaded, with the scheduler's cancel of the job, was
read as the OOM killer's."""

from __future__ import annotations

from pathlib import Path

import pytest

from detector.replay import replay_path
from detector.rules.engine import RuleSet

DATA = Path(__file__).parent / "data" / "review57"


@pytest.mark.parametrize(("case", "cause", "rank"), [
    ("rv_s1", "host_oom_kill", 6),  # (slurmstepd: "Detected 1 oom_kill event": the Killed task's)
    ("rv_c1", "python_exception", 1),  # (its caught KeyError, then all ranks' watchdog errors)
    ("rv_k2", "unknown", 2),  # (a bar at 57 %, "*** JOB ... CANCELLED AT ...", a -9)
])
def test_review_findings(ruleset: RuleSet, case: str, cause: str, rank: int) -> None:
    incident = replay_path(DATA / case, ruleset).incidents[0]
    assert (incident.cause.value, incident.initiator.rank) == (cause, rank), incident.explanation
