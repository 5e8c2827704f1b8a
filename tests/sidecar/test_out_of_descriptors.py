"""The watch following more log files than its open-file limit allows: it keeps descriptors for
its own state and output, says how many files it leaves unopened, and stays up and reports what
it reads (it exited, naming its rules folder, when the look for changed rule files ran out of
descriptors; and an incident it found could not be written; a hostile tester)."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest

from detector.rules.reload import RuleReloader

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow


def test_a_rule_folder_that_cannot_be_listed_is_no_change(monkeypatch: pytest.MonkeyPatch) -> None:
    reloader = RuleReloader()

    def out_of_descriptors(_paths: object) -> object:
        raise OSError(24, "Too many open files")

    monkeypatch.setattr("detector.rules.reload.fingerprint", out_of_descriptors)
    assert reloader.changed() is False


def _limit() -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (96, 96))


def test_the_watch_stays_up_with_more_files_than_descriptors(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    for rank in range(100):
        (logs / f"rank{rank:03d}.log").write_text(f"2026-12-07 10:00:00,000 INFO [rank{rank}] step 1 | loss 1.0\n")
    incidents = tmp_path / "incidents.jsonl"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "detector.cli.main", "watch", "--logs", str(logs), "--no-nvml",
                             "--no-metrics", "--state", str(tmp_path / "state"), "--incidents", str(incidents),
                             "--node", "n1", "--history", "0"], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, preexec_fn=_limit)
    try:
        time.sleep(8.0)  # (a look for changed rule files every few seconds)
        with open(logs / "rank000.log", "a") as fh:
            fh.write("[rank0]: ValueError: bad sample in batch 7\n")
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not (incidents.exists() and incidents.read_text().strip()):
            assert proc.poll() is None, proc.communicate()[1][-3000:]
            time.sleep(0.5)
        assert proc.poll() is None, proc.communicate()[1][-3000:]
        assert '"cause": "python_exception"' in incidents.read_text()
    finally:
        proc.terminate()
        _out, err = proc.communicate(timeout=30)
    assert "log files not followed: the open-file limit" in err and "error:" not in err, err[-3000:]
    assert "Too many open files" not in err, err[-3000:]
