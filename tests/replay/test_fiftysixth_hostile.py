"""A hostile tester's findings: a log whose lines end in a carriage return alone (classic Mac OS,
an old editor's copy) read as one line and "no incident" (a file of nothing but a progress bar's
redraws is still one line, not thousands); a log still being written was read without end; a file
in a folder that may not be entered was "no such file", and a folder that may not be read had "no
log files" (its permission said at the end of a long line)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from detector.replay import replay_path
from detector.rules.engine import RuleSet

ROOT = Path(__file__).resolve().parents[2]
WORKER = ROOT / "replay_logs" / "cuda_oom_8r" / "node-gpu-07" / "worker-3.log"


def test_lines_ended_by_carriage_returns_alone_are_lines(tmp_path: Path, ruleset: RuleSet) -> None:
    text = WORKER.read_bytes()
    assert b"\r" not in text
    (tmp_path / "worker-3.log").write_bytes(text.replace(b"\n", b"\r"))
    report = replay_path(tmp_path / "worker-3.log", ruleset)
    assert [(i.cause.value, i.initiator.rank) for i in report.incidents] == [("cuda_oom", 3)]
    assert report.summary.lines == text.count(b"\n")
    assert any("carriage returns alone" in w for w in report.warnings), report.warnings


def test_a_file_whose_line_feeds_come_later_is_left_as_it_is(tmp_path: Path, ruleset: RuleSet) -> None:
    """(a reviewer: 32 KiB of Keras's bar redraws before an ordinary log read every redraw as a
    line, the OOM 1,900 lines off; and step lines with a rate, "1.42s/it", were taken for a bar)"""
    keras = b"".join(b"\r  %4d/1875 [==>...........................] - ETA: 8s - loss: 0.4121" % i for i in range(600))
    (tmp_path / "worker-3.log").write_bytes(keras + b"\n" + WORKER.read_bytes())
    report = replay_path(tmp_path / "worker-3.log", ruleset)
    assert report.summary.lines == WORKER.read_bytes().count(b"\n") + 1
    assert not any("carriage returns alone" in w for w in report.warnings), report.warnings
    rated = b"".join(b"2026-11-03 09:00:%02d [rank3]: step %d | loss 2.31 | 1.42s/it\r" % (i % 60, i) for i in range(50))
    (tmp_path / "rated.log").write_bytes(rated + WORKER.read_bytes().replace(b"\n", b"\r"))
    rated_report = replay_path(tmp_path / "rated.log", ruleset)
    assert [i.cause.value for i in rated_report.incidents] == ["cuda_oom"]


def test_a_progress_bar_alone_stays_one_line(tmp_path: Path, ruleset: RuleSet) -> None:
    bar = b"".join(b"\r%3d%%|%-20s| %d/200 [00:%02d<00:10, 9.8it/s]" % (i // 2, b"#" * (i // 10), i, i % 60)
                   for i in range(200))
    (tmp_path / "train.log").write_bytes(bar)
    report = replay_path(tmp_path / "train.log", ruleset)
    assert report.incidents == () and report.summary.lines == 1


def test_a_log_written_to_while_read_is_read_up_to_its_size_when_opened(tmp_path: Path, ruleset: RuleSet) -> None:
    """(replay of a log appended to faster than it was read never ended: 11 GB read and counting)"""
    from detector.pipeline.scan import scan_file
    from detector.sources.runs import FileKind, LogFile

    log = tmp_path / "rank0.log"
    line = b"[rank0]: step 12 | loss 2.31 | lr 3.0e-4 | grad_norm 0.88 | tokens/s 81234 | mfu 41.2%\n"
    log.write_bytes(line * 60_000)  # ~5 MiB: several reads
    appended: list[int] = []

    def grow(_n: int) -> None:
        if len(appended) < 40:  # (bounded: the old reader would read all of it and end)
            with open(log, "ab") as fh:
                fh.write(b"[rank0]: appended after the read began\n" * 20_000)
            appended.append(1)

    scan = scan_file(LogFile(log, "rank0.log", FileKind.RANK_LOG, rank=0), ruleset, year=None, progress=grow)
    assert appended and scan.lines == 60_000
    assert scan.tail_lines and "appended" not in scan.tail_lines[-1]  # (its end then, not now)
    assert any("written to while read" in w for w in scan.warnings), scan.warnings


@pytest.mark.skipif(shutil.which("setpriv") is None, reason="setpriv (util-linux) drops root's file capabilities")
def test_a_folder_that_may_not_be_read_says_so(tmp_path: Path) -> None:
    sub = tmp_path / "sub"
    sub.mkdir()
    shutil.copy(WORKER, sub / "x.log")
    sub.chmod(0)
    try:
        if os.geteuid() != 0 and os.access(sub, os.R_OK):
            pytest.skip("the folder stayed readable")
        said = []
        for target in (sub, sub / "x.log"):
            done = subprocess.run(["setpriv", "--inh-caps=-all", "--bounding-set=-all", sys.executable, "-m",
                                   "detector.cli.main", "replay", str(target), "--no-progress"],
                                  env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True,
                                  timeout=120, check=False)
            assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
            said.append(done.stderr.strip())
        assert said[0].endswith("sub: cannot read this folder: permission denied"), said
        assert said[1].endswith("x.log: permission denied (a folder on its path may not be entered)"), said
    finally:
        sub.chmod(0o755)
