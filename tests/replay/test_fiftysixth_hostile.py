"""A hostile tester's findings: a log whose lines end in a carriage return alone (classic Mac OS,
an old editor's copy) read as one line and "no incident"; a file of nothing but a progress bar's
redraws is still one line, not thousands."""

from __future__ import annotations

from pathlib import Path

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
                fh.write(line * 20_000)
            appended.append(1)

    scan = scan_file(LogFile(log, "rank0.log", FileKind.RANK_LOG, rank=0), ruleset, year=None, progress=grow)
    assert appended and scan.lines == 60_000
    assert any("written to while read" in w for w in scan.warnings), scan.warnings
