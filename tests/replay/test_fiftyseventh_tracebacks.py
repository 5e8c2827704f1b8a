"""A traceback whose every line a logger or a collector headed (a stamp and a level before each
frame and before the exception's line) had its exception's line unread, so a watchdog timeout 30
minutes later took the verdict; a header that logs the exception as caught (a warning's level,
PyTorch's own glog records) reads no failure; a rank its header names is the exception's."""

from __future__ import annotations

from pathlib import Path

import pytest

from detector.replay import replay_path
from detector.rules.engine import RuleSet

FRAMES = [
    "Traceback (most recent call last):",
    '  File "/app/train.py", line 88, in <module>',
    "    main()",
    '  File "/app/data.py", line 12, in collate',
    '    raise ValueError("sequence length 9000 exceeds max 8192")',
    "ValueError: sequence length 9000 exceeds max 8192",
]
TIMEOUT = ("[E301 10:30:02.500000 ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog caught collective operation timeout: "
           "WorkNCCL(SeqNum=120, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=1800000) ran for 1800087 "
           "milliseconds before timing out.")


@pytest.mark.parametrize("header", [
    "2025-03-01 10:00:02,311 ERROR ",
    "2025-03-01 10:00:02,311 - ERROR - ",
    "[2025-03-01 10:00:02,311][__main__][ERROR] - ",
    "ERROR:root:",
    "Mar 01 10:00:02 gpu-node-3 python3[4411]: ",
])
def test_a_traceback_headed_on_every_line_is_read_to_its_exception(tmp_path: Path, ruleset: RuleSet, header: str) -> None:
    lines = ["2025-03-01 10:00:00,101 INFO step 10 loss 2.31", *(header + f for f in FRAMES),
             "2025-03-01 10:30:02,500 ERROR " + TIMEOUT]
    (tmp_path / "train.log").write_text("\n".join(lines) + "\n")
    report = replay_path(tmp_path, ruleset)
    assert [i.cause.value for i in report.incidents] == ["python_exception"], report.incidents
    exc = [f for f in report.incidents[0].evidence if f.rule == "python.uncaught_exception"]
    assert exc and exc[0].line == 7 and exc[0].field("exc_type") == "ValueError"


def test_a_headed_traceback_reads_its_own_lines_among_another_process_s(tmp_path: Path, ruleset: RuleSet) -> None:
    """(another process's lines between its frames; a header of another shape ends nothing)"""
    head = "2025-03-01 10:00:02,311 ERROR "
    lines = [head + FRAMES[0], head + FRAMES[1], "[worker 2] loading shard 14", head + FRAMES[2],
             *(head + f for f in FRAMES[3:])]
    (tmp_path / "train.log").write_text("\n".join(lines) + "\n")
    report = replay_path(tmp_path, ruleset)
    assert [i.cause.value for i in report.incidents] == ["python_exception"]
    assert any(f.rule == "python.uncaught_exception" and f.line == 7 for f in report.incidents[0].evidence)


def test_a_header_that_is_not_repeated_reads_no_exception(tmp_path: Path, ruleset: RuleSet) -> None:
    """(a message that quotes a traceback, its lines not headed, and a log whose next lines are
    the job's own: nothing is made of lines of another shape)"""
    lines = ["2025-03-01 10:00:02,311 WARNING retrying upload: Traceback (most recent call last):",
             *("2025-03-01 10:00:03,000 INFO " + x for x in ("step 11 loss 2.30", "step 12 loss 2.29")),
             "ValueError-like words in a note: not an exception"]
    (tmp_path / "train.log").write_text("\n".join(lines) + "\n")
    report = replay_path(tmp_path, ruleset)
    assert not any(f.rule == "python.uncaught_exception" for i in report.incidents for f in i.evidence)


@pytest.mark.parametrize("header", [
    "[rank4]:W0412 22:16:09.399000 91330 torch/_inductor/codecache.py:1021] [0/6] ",
    "[rank6]:E0416 03:53:55.211000 99383 torch/_inductor/select_algorithm.py:3541] [0/0] ",
    "2025-03-01 10:00:02,311 WARNING ",
    "2025-03-01 10:00:02,311 | INFO | ",
])
def test_a_traceback_a_logger_headed_as_caught_is_no_failure(tmp_path: Path, ruleset: RuleSet, header: str) -> None:
    """(PyTorch's own loggers head every line of an exception they caught, glog's records; a
    warning's or an info's level says the same: the run went on)"""
    lines = [*(header + f for f in FRAMES), *(f"step {i} loss 2.{i:02d}" for i in range(40))]
    (tmp_path / "train.log").write_text("\n".join(lines) + "\n")
    report = replay_path(tmp_path, ruleset)
    assert report.incidents == (), report.incidents


def test_a_headed_traceback_takes_the_rank_its_header_names(tmp_path: Path, ruleset: RuleSet) -> None:
    """(a collector's stamp before torchrun's "[rank3]:")"""
    lines = [f"Dec 03 10:22:16 [rank3]: {f}" for f in FRAMES]
    (tmp_path / "console.log").write_text("\n".join(lines) + "\n")
    report = replay_path(tmp_path, ruleset)
    assert [(i.cause.value, i.initiator.rank) for i in report.incidents] == [("python_exception", 3)]


@pytest.mark.parametrize("exc", ["ConnectionResetError: [Errno 104] Connection reset by peer",
                                 "torch.distributed.DistNetworkError: Connection reset by peer"])
def test_a_connection_reset_the_job_caught_and_trained_on_after_is_no_failure(tmp_path: Path, ruleset: RuleSet,
                                                                               exc: str) -> None:
    """(its exception line is a collateral rule's, a peer's lost connection: it was not among the
    exceptions a job is seen to catch, and the run was "unknown")"""
    def steps(first: int, last: int) -> list[str]:
        return [f"[rank{r}]: 2025-03-01 10:{s // 60:02d}:{s % 60:02d},000 INFO step {s} | loss 0.5"
                for s in range(first, last) for r in range(4)]

    lines = [*steps(1, 20), "[rank1]: 2025-03-01 10:00:20,100 ERROR metrics upload failed, will retry",
             "[rank1]: Traceback (most recent call last):", '[rank1]:   File "/app/train.py", line 9, in push',
             "[rank1]:     sock.send(payload)", f"[rank1]: {exc}", *steps(20, 80)]
    (tmp_path / "console.log").write_text("\n".join(lines) + "\n")
    assert replay_path(tmp_path, ruleset).incidents == ()
    # (the same lines, and the rank that raised never trains again: its failure)
    died = [*lines[:lines.index(f"[rank1]: {exc}") + 1], *(x for x in steps(20, 80) if not x.startswith("[rank1]"))]
    (tmp_path / "console.log").write_text("\n".join(died) + "\n")
    assert replay_path(tmp_path, ruleset).incidents != ()


def test_a_headed_traceback_across_a_read_chunk_is_read_to_its_exception(tmp_path: Path, ruleset: RuleSet,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """(a reviewer: an exception's line in the look-ahead past a chunk's end was dropped, and the
    next chunk begins after its header: a log over 8 MiB lost it; chunks made small here)"""
    import detector.pipeline.scan as scan_mod

    monkeypatch.setattr(scan_mod, "CHUNK", 64 << 10)
    monkeypatch.setattr(scan_mod, "LOOKAHEAD", 4 << 10)
    head = "2025-03-01 10:00:02,311 ERROR "
    filler: list[str] = []
    size = 0
    while size < (60 << 10) - 200:  # (the header just before where the first chunk's lines end)
        filler.append(f"2025-03-01 09:{(len(filler) // 60) % 60:02d}:{len(filler) % 60:02d},101 INFO step {len(filler)}")
        size += len(filler[-1]) + 1
    lines = [*filler, *(head + f for f in FRAMES), "2025-03-01 10:30:02,500 ERROR " + TIMEOUT,
             *(f"2025-03-01 10:31:{i % 60:02d},000 INFO waiting {i}" for i in range(4000))]
    text = "\n".join(lines) + "\n"
    assert text.index("Traceback (most recent call last)") < (60 << 10) < text.index("ValueError: sequence")
    (tmp_path / "train.log").write_text(text)
    assert [i.cause.value for i in replay_path(tmp_path, ruleset).incidents] == ["python_exception"]
