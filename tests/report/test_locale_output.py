"""Output under a locale that is not UTF-8 (PYTHONIOENCODING=ascii or latin-1, a C.ISO-8859-1
terminal): a log line's em dash or CJK text, or the tool's own ellipsis, must not end a command
in a traceback (a hostile tester: replay, and rules test --explain on any line, did), and a JSON
or HTML report is UTF-8 whatever the locale (JSON must be; the HTML says it is)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

LINE = "[rank1]: RuntimeError: CUDA error: an illegal memory access was encountered \u2014 \u8bad\u7ec3\u4e2d\u65ad\n"


def _run(tmp_path: Path, encoding: str, *args: str) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "PYTHONIOENCODING": encoding, "NO_COLOR": "1"}
    return subprocess.run([sys.executable, "-m", "detector.cli.main", *args], env=env, capture_output=True,
                          timeout=120, check=False, cwd=tmp_path)


@pytest.mark.parametrize("encoding", ["ascii", "latin-1"])
def test_a_report_prints_under_a_narrow_encoding(tmp_path: Path, encoding: str) -> None:
    log = tmp_path / "rank1.log"
    log.write_text(LINE, encoding="utf-8")
    text = _run(tmp_path, encoding, "replay", str(log))
    assert text.returncode == 0 and b"Traceback" not in text.stderr, text.stderr.decode("utf-8", "replace")
    assert b"VERDICT: illegal_memory_access on rank 1" in text.stdout
    machine = _run(tmp_path, encoding, "replay", str(log), "--format", "json")
    assert machine.returncode == 0, machine.stderr.decode("utf-8", "replace")
    report = json.loads(machine.stdout.decode("utf-8"))  # (UTF-8, whatever the locale)
    assert "\u2014 \u8bad\u7ec3" in report["incidents"][0]["evidence"][0]["text"]
    page = _run(tmp_path, encoding, "replay", str(log), "--format", "html")
    assert page.returncode == 0 and "\u8bad\u7ec3".encode() in page.stdout


@pytest.mark.parametrize("encoding", ["ascii", "latin-1"])
def test_rules_explain_prints_under_a_narrow_encoding(tmp_path: Path, encoding: str) -> None:
    done = _run(tmp_path, encoding, "rules", "test", "--explain", "NCCL WARN Cuda failure \u2014 x")
    assert b"Traceback" not in done.stderr and done.returncode in (0, 1), done.stderr.decode("utf-8", "replace")
    assert b"nccl." in done.stdout
