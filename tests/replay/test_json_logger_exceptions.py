"""An exception a JSON logger writes whole in one record - python-json-logger's ``exc_info``,
structlog's ``exception``, or the traceback as the message itself, its lines joined by ``\\n`` -
is read as its last line, the exception's, as a plain log's traceback is (replay read no incident
or "unknown" where a rank died of it; a sidecar tester's real two-rank job, kept here, and its
variants)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from detector.replay import replay_path
from detector.rules.engine import RuleSet
from detector.types import Cause

DATA = Path(__file__).parent / "data" / "review55" / "side_jsonl_exc_info"
TRACEBACK = ('Traceback (most recent call last):\n  File "/app/train.py", line 60, in main\n    raise ValueError("bad")\n'
             "ValueError: bad sample in batch 30: expected label in [0, 1], got nan")


def test_a_real_jobs_json_exception(ruleset: RuleSet) -> None:
    report = replay_path(DATA, ruleset)
    first = report.incidents[0]
    assert (first.cause, first.initiator.rank) == (Cause.PYTHON_EXCEPTION, 1), first.explanation


@pytest.mark.parametrize("record", [
    {"msg": "training step failed", "exc_info": TRACEBACK},
    {"message": "training step failed", "exc_info": TRACEBACK},
    {"event": "training step failed", "exception": TRACEBACK},
    {"msg": TRACEBACK},
])
def test_a_structured_loggers_exception(tmp_path: Path, ruleset: RuleSet, record: dict[str, str]) -> None:
    lines = [json.dumps({"ts": f"2026-12-07T13:20:{s:02d}.000000+00:00", "level": "INFO", "rank": 1,
                         "msg": f"step {s}/100 loss 1.0"}) for s in range(1, 30)]
    lines.append(json.dumps({"ts": "2026-12-07T13:20:30.864246+00:00", "level": "ERROR", "rank": 1, **record}))
    (tmp_path / "rank1.log").write_text("\n".join(lines) + "\n")
    report = replay_path(tmp_path, ruleset)
    assert report.incidents, "no incident"
    first = report.incidents[0]
    assert (first.cause, first.initiator.rank, first.confidence) == (Cause.PYTHON_EXCEPTION, 1, 0.9), first.explanation
