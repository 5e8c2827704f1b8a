"""The command line: formats, output files, help, errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from detector.cli.main import main
from tests.support.paths import REPLAY_LOGS, ROOT

RUN = REPLAY_LOGS / "torchrun_sigkill_4r"


def test_json_to_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(RUN), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["schema"] == "rankdoctor.report/v1"
    assert report["source"] == str(RUN)
    assert set(report) == {"schema", "source", "summary", "incidents", "warnings"}
    inc = report["incidents"][0]
    assert set(inc) >= {"id", "cause", "initiator", "collateral_ranks", "confidence", "first_evidence_time",
                        "explanation", "evidence", "remediation"}
    assert set(inc["initiator"]) == {"rank", "local_rank", "node", "gpu", "pid"}
    assert set(inc["remediation"]) == {"drain_node", "resubmit", "fix", "verify"}
    for ev in inc["evidence"]:
        assert set(ev) == {"time", "file", "line", "rank", "node", "rule", "role", "text"}
        assert ev["role"] in ("initiator", "collateral", "context")


def test_json_ids_are_stable(tmp_path: Path) -> None:
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    assert main(["replay", str(RUN), "--format", "json", "-o", str(a)]) == 0
    assert main(["replay", str(RUN), "--format", "json", "-o", str(b)]) == 0
    assert json.loads(a.read_text()) == json.loads(b.read_text())


def test_html_and_text_files(tmp_path: Path) -> None:
    html = tmp_path / "r.html"
    assert main(["replay", str(RUN), "--format", "html", "--output", str(html)]) == 0
    page = html.read_text()
    assert page.lstrip().lower().startswith("<!doctype html") and "<svg" in page and "<script src" not in page
    text = tmp_path / "r.txt"
    assert main(["replay", str(RUN), "-o", str(text)]) == 0
    assert "unknown" in text.read_text() and "SIGKILL" in text.read_text()  # a bare SIGKILL: who killed it is not said


def test_console_script_help_and_errors() -> None:
    exe = [sys.executable, "-m", "detector.cli"]
    out = subprocess.run([*exe, "replay", "--help"], capture_output=True, text=True, cwd=ROOT, check=False)
    assert out.returncode == 0 and "--format" in out.stdout and "RUN" in out.stdout
    bad = subprocess.run([*exe, "replay", str(RUN), "--format", "xml"], capture_output=True, text=True, cwd=ROOT, check=False)
    assert bad.returncode == 2 and "invalid choice" in bad.stderr
    none = subprocess.run(exe, capture_output=True, text=True, cwd=ROOT, check=False)
    assert none.returncode == 2 and "replay" in none.stdout


def test_bad_user_rules_stop_before_reading(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("rules:\n  - id: my.rule\n    description: x\n    role: initiator\n    pattern: '(a+)+$'\n    examples: [{line: aaa}]\n")
    assert main(["replay", str(RUN), "--rules", str(bad)]) == 1
    err = capsys.readouterr().err
    assert f"{bad}:5:5: my.rule:" in err and "catastrophic backtracking" in err
    assert "needs a 'cause'" in err
