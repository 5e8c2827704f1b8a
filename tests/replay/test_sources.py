"""Parsers at the edge: timestamps, rank prefixes, PCI ids, run discovery."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from detector.errors import InputError
from detector.sources.pci import normalize_pci
from detector.sources.prefixes import PrefixStyle, detect_style, strip_prefix
from detector.sources.runs import FileKind, discover
from detector.sources.timestamps import find_year, parse_timestamp
from detector.sources.torchelastic import parse_summary


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-11-29T12:00:01.123Z boom", datetime(2026, 11, 29, 12, 0, 1, 123000, tzinfo=UTC)),
        ("2026-11-29 12:00:01,123 INFO x", datetime(2026, 11, 29, 12, 0, 1, 123000, tzinfo=UTC)),
        ("2026-11-29T12:00:01+0200 host kernel: NVRM", datetime(2026, 11, 29, 12, 0, 1, tzinfo=timezone(timedelta(hours=2)))),
        ("E1130 17:40:34.227531 123 x.cpp:1] y", datetime(2026, 11, 30, 17, 40, 34, 227531, tzinfo=UTC)),
        ("[E1130 01:48:05.770000 ProcessGroupNCCL.cpp:629] y", datetime(2026, 11, 30, 1, 48, 5, 770000, tzinfo=UTC)),
        ("W1130 01:48:05.770000 1 torch/x.py:1] y", datetime(2026, 11, 30, 1, 48, 5, 770000, tzinfo=UTC)),
        ("[Sun Feb 23 16:24:18 2025] NVRM: Xid", datetime(2025, 2, 23, 16, 24, 18, tzinfo=UTC)),
        ("Nov 29 12:00:01 gpu-node-3 kernel: NVRM: Xid", datetime(2026, 11, 29, 12, 0, 1, tzinfo=UTC)),
    ],
)
def test_wall_clock_stamps(text: str, expected: datetime) -> None:
    stamp = parse_timestamp(text, year=2026)
    assert stamp is not None and stamp.time == expected


def test_boot_relative_stamps() -> None:
    dmesg = parse_timestamp("[   28.733734] NVRM: Xid (PCI:0000:3b:00): 79")
    assert dmesg is not None and dmesg.time is None and dmesg.since_boot == pytest.approx(28.733734)
    kmsg = parse_timestamp("4,1234,28733734,-;NVRM: Xid")
    assert kmsg is not None and kmsg.since_boot == pytest.approx(28.733734)
    assert parse_timestamp("[ 130.456250] [ T1946] NVRM: x").since_boot == pytest.approx(130.45625)  # type: ignore[union-attr]


def test_syslog_host_and_year() -> None:
    stamp = parse_timestamp("Nov 29 12:00:01 gpu-node-3 kernel: NVRM: Xid", year=2026)
    assert stamp is not None and stamp.host == "gpu-node-3"
    assert parse_timestamp("Nov 29 12:00:01 gpu-node-3 kernel: x") is None  # no year known
    assert find_year("foo 2024-03-01 10:00:00 bar") == 2024


def test_nccl_header_host_with_a_service_thread_s_unset_device() -> None:
    """NCCL's service thread prints an unset cudaDev ("[32626]"): the header still names the host
    (a one-node console of such lines told no node before)."""
    line = "nb-e3p9s3o28rnk-0:21615:21978 [32626] NCCL INFO [Service thread] Connection closed by localRank 2"
    stamp = parse_timestamp(line, year=2026)
    assert stamp is not None and stamp.host == "nb-e3p9s3o28rnk-0" and stamp.time is None


@pytest.mark.parametrize("text", ["", "hello", "99999-99-99 99:99", "[abc]", "E9999 99:99:99.1", "2026-13-45T25:61:61"])
def test_not_stamps(text: str) -> None:
    assert parse_timestamp(text, year=2026) is None


@given(st.text(max_size=200))
def test_timestamp_parser_never_raises(text: str) -> None:
    parse_timestamp(text, year=2026)


@pytest.mark.parametrize(
    ("line", "message", "rank", "local"),
    [
        ("[rank3]:RuntimeError: x", "RuntimeError: x", 3, None),
        ("[default3]:hello", "hello", None, 3),
        ("[default0]:[rank12]: Traceback (most recent call last):", "Traceback (most recent call last):", 12, 0),
        ("[rank=5] || step 3", "step 3", 5, None),
        ("plain line", "plain line", None, None),
    ],
)
def test_prefixes(line: str, message: str, rank: int | None, local: int | None) -> None:
    p = strip_prefix(line)
    assert (p.message, p.rank, p.local_rank) == (message, rank, local)


def test_srun_labels_only_when_the_file_uses_them() -> None:
    labelled = [f"{i % 4}: step {i}" for i in range(20)]
    assert detect_style(labelled) is PrefixStyle.SRUN_LABEL
    assert strip_prefix("  3: NCCL WARN x", PrefixStyle.SRUN_LABEL).rank == 3
    assert detect_style(["12: odd line", "normal", "more normal", "x"]) is not PrefixStyle.SRUN_LABEL
    assert strip_prefix("12: not a label", PrefixStyle.BRACKETS).rank is None


@given(st.text(max_size=100))
def test_prefix_parser_never_raises(text: str) -> None:
    for style in PrefixStyle:
        strip_prefix(text, style)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("PCI:0000:3b:00", "0000:3b:00"),
        ("00000000:3B:00.0", "0000:3b:00"),
        ("3b000", "0000:3b:00"),
        ("86000", "0000:86:00"),
        ("0000:9b:00.0", "0000:9b:00"),
        ("0018:01:00", "0018:01:00"),
        ("not-a-pci", None),
        ("", None),
    ],
)
def test_pci_forms(value: str, expected: str | None) -> None:
    assert normalize_pci(value) == expected


@given(st.text(max_size=40))
def test_pci_never_raises(text: str) -> None:
    normalize_pci(text)


def test_summary_block() -> None:
    lines = """============================================================
train.py FAILED
------------------------------------------------------------
Failures:
[1]:
  time      : 2026-06-08_19:04:45
  host      : node07
  rank      : 2 (local_rank: 2)
  exitcode  : -15 (pid: 102932)
  error_file: <N/A>
  traceback : Signal 15 (SIGTERM) received by PID 102932
------------------------------------------------------------
Root Cause (first observed failure):
[0]:
  time      : 2026-06-08_19:04:44
  host      : node07
  rank      : 0 (local_rank: 0)
  exitcode  : -9 (pid: 102930)
  error_file: <N/A>
  traceback : Signal 9 (SIGKILL) received by PID 102930
============================================================""".splitlines()
    records = parse_summary(lines, PrefixStyle.BRACKETS, "console.log", 10)
    assert [(r.rank, r.exitcode, r.pid, r.root_cause, r.host) for r in records] == [
        (2, -15, 102932, False, "node07"),
        (0, -9, 102930, True, "node07"),
    ]


def test_discover_classifies_layouts(tmp_path: Path) -> None:
    files = {
        "job/scenario/attempt_1/3/stderr.log": "x\n",
        "job/scenario/attempt_1/3/error.json": '{"message": {"message": "E", "extraInfo": {"py_callstack": ""}}}',
        "node07/rank12.log": "x\n",
        "node07/dmesg.log": "[ 1.0] a\n[ 2.0] b\n",
        "job-81234-5.out": "x\n",
        "metrics/dcgm.json": '{"status":"success","data":{"resultType":"matrix","result":[]}}',
        "expected.json": "{}",
        "notes.bin": "\x00",
    }
    for rel, content in files.items():
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(content)
    found, _ = discover(tmp_path)
    by = {f.display: f for f in found}
    assert by["job/scenario/attempt_1/3/stderr.log"].local_rank == 3
    assert by["job/scenario/attempt_1/3/stderr.log"].attempt == 1
    assert by["job/scenario/attempt_1/3/error.json"].kind is FileKind.ELASTIC_ERROR
    assert (by["node07/rank12.log"].rank, by["node07/rank12.log"].node) == (12, "node07")
    assert by["node07/dmesg.log"].kind is FileKind.KERNEL
    assert by["job-81234-5.out"].rank == 5
    assert by["metrics/dcgm.json"].kind is FileKind.METRICS
    assert "expected.json" not in by and "notes.bin" not in by


def test_discover_does_not_follow_symlinks_out(tmp_path: Path) -> None:
    outside = tmp_path / "outside.log"
    outside.write_text("secret\n")
    run = tmp_path / "run"
    run.mkdir()
    (run / "rank_0.log").write_text("ok\n")
    (run / "rank_1.log").symlink_to(outside)
    found, warnings = discover(run)
    assert [f.display for f in found] == ["rank_0.log"]
    assert any("symbolic link out of the run directory" in w for w in warnings)
    found2, _ = discover(run, follow_symlinks=True)
    assert len(found2) == 2


def test_discover_survives_symbolic_links_in_a_loop(tmp_path: Path) -> None:
    """Two links pointing at each other, and a folder link back up the tree: a warning each,
    every real file once (with --follow-symlinks the loop was walked ~40 levels deep, each
    level's files read again; without it, the loop raised RuntimeError from pathlib)."""
    run = tmp_path / "run"
    (run / "sub").mkdir(parents=True)
    (run / "rank_0.log").write_text("ok\n")
    (run / "loop_a.log").symlink_to(run / "loop_b.log")
    (run / "loop_b.log").symlink_to(run / "loop_a.log")
    (run / "sub" / "up").symlink_to(run, target_is_directory=True)
    found, warnings = discover(run)
    assert [f.display for f in found] == ["rank_0.log"]
    assert sum("loop_" in w and "broken symbolic link" in w for w in warnings) == 2
    found2, warnings2 = discover(run, follow_symlinks=True)
    assert [f.display for f in found2] == ["rank_0.log"]
    assert any(w.startswith("sub/up: a folder already read") for w in warnings2)


def test_a_folder_that_cannot_be_listed_is_said(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A node's folder the user may not read: a warning names it (its logs were left out without
    a word, and the verdict came from the other nodes alone)."""
    import os

    run = tmp_path / "run"
    (run / "node1").mkdir(parents=True)
    (run / "node2").mkdir()
    (run / "node1" / "rank1.log").write_text("ok\n")
    (run / "node2" / "rank0.log").write_text("ok\n")
    real_scandir = os.scandir

    def scandir(path: object = ".") -> object:
        if str(path).endswith("node2"):
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "scandir", scandir)
    found, warnings = discover(run)
    assert [f.display for f in found] == ["node1/rank1.log"]
    assert "node2: folder not read (Permission denied), its logs are left out" in warnings


def test_pbs_job_files_and_notes_that_quote_a_log(tmp_path: Path) -> None:
    """PBS / Grid Engine name a job's output <name>.o<job id>; a folder whose only text is a
    notes page (.md) has it read, with a warning, rather than "no log files found"."""
    pbs = tmp_path / "pbs"
    pbs.mkdir()
    (pbs / "train.o123456").write_text("[rank0]: RuntimeError: x\n")
    (pbs / "train.e123456").write_text("[rank0]: RuntimeError: x\n")
    (pbs / "README.md").write_text("notes\n")
    found, warnings = discover(pbs)
    assert sorted(f.display for f in found) == ["train.e123456", "train.o123456"] and not warnings
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "notes.md").write_text("```\n[rank0]: RuntimeError: x\n```\n")
    (notes / "truth.json").write_text("{}")
    found, warnings = discover(notes)
    assert [f.display for f in found] == ["notes.md"]
    assert warnings == ["no file has a log's name: read notes.md as log text"]
    empty = tmp_path / "empty"
    (empty / "sub").mkdir(parents=True)
    (empty / "sub" / "model.py").write_text("print('CUDA out of memory')\n")
    with pytest.raises(InputError, match="no log files found"):
        discover(empty)


def test_the_prefix_memo_keeps_what_a_digit_s_value_decides() -> None:
    # a host label followed by a syslog facility ("local0: ".."local7: ") is a syslog line, not
    # a pdsh label; followed by "local8: " it is one, whatever order the two shapes are met in
    # (the memo keys lines by their digits' places)
    facility = ["node1: local0: message number 1"] * 5
    host = ["node1: local8: message number 1"] * 5
    assert detect_style(facility) is not PrefixStyle.HOST_LABEL
    assert detect_style(host) is PrefixStyle.HOST_LABEL
    assert detect_style(facility) is not PrefixStyle.HOST_LABEL
