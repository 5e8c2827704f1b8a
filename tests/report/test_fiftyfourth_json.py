"""The JSON report on a terminal (a hostile tester of the fifty-fourth session): C1 control
characters and bidirectional overrides from log text were written raw; they are escaped, and the
JSON means the same."""

from __future__ import annotations

import json
from pathlib import Path

from detector.replay import replay_path
from detector.report.jsonfmt import dumps_report
from detector.rules.engine import RuleSet
from tests.support.replaying import write_run


def test_control_and_bidi_characters_from_a_log_are_escaped_in_json(tmp_path: Path, ruleset: RuleSet) -> None:
    line = "[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried \u202egnp.exe\u202c \x9b2J to allocate 2.00 GiB\n"
    report = replay_path(write_run(tmp_path / "run", {"rank3.log": line}), ruleset)
    text = dumps_report(report)
    assert "\u202e" not in text and "\x9b" not in text and "\\u202e" in text and "\\u009b" in text
    doc = json.loads(text)
    assert any("\u202egnp.exe" in e["text"] for i in doc["incidents"] for e in i["evidence"])
