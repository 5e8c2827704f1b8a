"""``rankdoctor replay -``: a log pasted or piped on standard input is replayed as one combined
log file (bounded in size; a clear error when empty). (A CLI test kept beside ``check``'s;
it may move to tests/replay with the other replay CLI tests.)"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

import detector.cli.main as cli
from tests.support.paths import REPLAY_LOGS, ROOT

COMBINED = REPLAY_LOGS / "python_exception_combined_4r" / "train.log"


def replay_stdin(data: bytes, *args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "detector.cli", "replay", "-", *args], input=data, cwd=ROOT,
                          capture_output=True, timeout=300, check=False)


def test_a_piped_combined_log_gives_the_same_diagnosis_as_its_file() -> None:
    piped = replay_stdin(COMBINED.read_bytes(), "--format", "json")
    assert piped.returncode == 0, piped.stderr.decode()
    report = json.loads(piped.stdout)
    direct = subprocess.run([sys.executable, "-m", "detector.cli", "replay", str(COMBINED), "--format", "json"],
                            cwd=ROOT, capture_output=True, timeout=300, check=True)
    expected = json.loads(direct.stdout)
    assert report["source"] == "-"
    assert report["summary"]["lines"] == expected["summary"]["lines"]
    (incident,) = report["incidents"]
    assert (incident["cause"], incident["initiator"]["rank"]) == ("python_exception", 2)
    assert incident["collateral_ranks"] == [0, 1, 3]
    strip = [{k: v for k, v in i.items() if k != "evidence"} for i in expected["incidents"]]
    assert [{k: v for k, v in i.items() if k != "evidence"} for i in report["incidents"]] == strip
    assert {e["file"] for e in incident["evidence"]} == {"stdin.log"}


def test_text_and_html_from_standard_input() -> None:
    text = replay_stdin(COMBINED.read_bytes())
    assert text.returncode == 0 and b"python_exception on rank 2" in text.stdout
    html = replay_stdin(COMBINED.read_bytes(), "--format", "html")
    assert html.returncode == 0 and html.stdout.startswith(b"<!DOCTYPE html>")


@pytest.mark.parametrize("data", [b"", b"\n  \n\t\n"])
def test_empty_input_is_a_clear_error(data: bytes) -> None:
    res = replay_stdin(data)
    assert res.returncode == 1
    assert b"standard input is empty" in res.stderr and b"Traceback" not in res.stderr


def test_input_over_the_limit_is_refused(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                         tmp_path: Path) -> None:
    monkeypatch.setattr(cli, "STDIN_LIMIT", 1024)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(COMBINED.read_bytes())))
    assert cli.main(["replay", "-", "--format", "json", "-o", str(tmp_path / "r.json")]) == 1
    assert "standard input is over 1024 bytes: save it to a file" in capsys.readouterr().err
    assert not (tmp_path / "r.json").exists()


def test_input_at_the_limit_is_read(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    data = COMBINED.read_bytes()
    monkeypatch.setattr(cli, "STDIN_LIMIT", len(data))
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    out = tmp_path / "r.json"
    assert cli.main(["replay", "-", "--format", "json", "-o", str(out)]) == 0
    assert json.loads(out.read_text())["incidents"][0]["initiator"]["rank"] == 2
