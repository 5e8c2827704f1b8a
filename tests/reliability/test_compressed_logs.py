"""Compressed logs (a rotated kern.log.2.gz, rank3.log.gz, nvidia-bug-report.log.gz) are read as
their plain twins would be: inflated, at most support.compressed.MAX_INFLATED bytes of them; a
stream cut short gives what it holds, with a warning; a damaged one is skipped with a warning;
a plain log named .gz is read as it is; archives (.tar.gz) stay unread."""

from __future__ import annotations

import gzip
import io
import tarfile
from pathlib import Path

import pytest

from detector.replay import replay_path
from detector.rules.engine import RuleSet
from detector.sources.runs import FileKind, discover
from detector.support import compressed
from detector.types import Cause

_STEPS = "".join(f"[rank3]:2026-11-30 10:00:{i % 60:02d},000 INFO step {i} | loss 1.0\n" for i in range(3000))
_ERROR = "[rank3]: RuntimeError: CUDA error: an illegal memory access was encountered\n"
_XID = "[1234567.890123] NVRM: Xid (PCI:0000:3b:00): 79, pid=2311, name=python, GPU has fallen off the bus.\n"


def test_a_compressed_rank_log_and_a_rotated_kernel_log_are_read(tmp_path: Path, ruleset: RuleSet) -> None:
    run = tmp_path / "run"
    (run / "gpu-node-7").mkdir(parents=True)
    (run / "gpu-node-7" / "rank3.log.gz").write_bytes(gzip.compress((_STEPS + _ERROR).encode()))
    (run / "gpu-node-7" / "kern.log.2.gz").write_bytes(gzip.compress(_XID.encode()))
    files, _ = discover(run)
    assert {(f.display.split("/")[-1], f.kind, f.compressed) for f in files} == {
        ("rank3.log.gz", FileKind.RANK_LOG, True), ("kern.log.2.gz", FileKind.KERNEL, True)}
    report = replay_path(run, ruleset)
    assert report.incidents[0].cause is Cause.GPU_HARDWARE
    assert report.incidents[0].initiator.node == "gpu-node-7"
    assert report.summary.lines == 3002


def test_a_cut_stream_gives_what_it_holds_and_says_so(tmp_path: Path, ruleset: RuleSet) -> None:
    whole = gzip.compress((_ERROR + _STEPS).encode())
    run = tmp_path / "run"
    run.mkdir()
    (run / "rank3.log.gz").write_bytes(whole[: len(whole) // 2])
    report = replay_path(run, ruleset)
    assert [(i.cause, i.initiator.rank) for i in report.incidents] == [(Cause.ILLEGAL_MEMORY_ACCESS, 3)]
    assert any("ends early" in w for w in report.warnings)


def test_damaged_is_skipped_plain_is_read_and_archives_stay_unread(tmp_path: Path, ruleset: RuleSet) -> None:
    run = tmp_path / "run"
    run.mkdir()
    (run / "rank2.log.gz").write_bytes(compressed.GZIP_MAGIC + b"\x08\x00garbage that does not inflate")
    (run / "rank3.log.gz").write_text(_ERROR)  # named .gz, plain text inside
    (run / "rank4.log").write_text(_ERROR.replace("rank3", "rank4"))
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tf:
        info = tarfile.TarInfo("rank5.log")
        data = _ERROR.replace("rank3", "rank5").encode()
        info.size = len(data)
        tf.addfile(info, io.BytesIO(data))
    (run / "logs.tar.gz").write_bytes(buf.getvalue())
    report = replay_path(run, ruleset)
    assert report.incidents[0].initiator.rank == 3 and 4 in report.incidents[0].collateral_ranks
    assert any("rank2.log.gz" in w and "gzip" in w for w in report.warnings)
    assert not any("rank5" in e.text for i in report.incidents for e in i.evidence)


def test_a_stream_cut_within_its_header_or_first_block_says_cut_not_foreign() -> None:
    whole = gzip.compress((_ERROR + _STEPS).encode())
    for cut in (12, 20):  # the header read, none of the text inflated yet
        with pytest.raises(OSError, match="cut short before any of its text"):
            compressed.inflate(io.BytesIO(whole[:cut]))
    for other in (b"", b"plain text, no gzip at all\n"):
        with pytest.raises(OSError, match=r"not a gzip file|not a readable gzip"):
            compressed.inflate(io.BytesIO(other))


def test_inflating_is_bounded(monkeypatch: object) -> None:
    bomb = gzip.compress(b"x" * (8 << 20))
    data, note = compressed.inflate(io.BytesIO(bomb), limit=1 << 20)
    assert len(data) == 1 << 20 and note is not None and "first 1 MiB" in note
    two = gzip.compress(b"a\n") + gzip.compress(b"b\n")  # members in a row (cat a.gz b.gz)
    assert compressed.inflate(io.BytesIO(two)) == (b"a\nb\n", None)


def test_a_utf16_log_is_read_as_its_text(tmp_path: Path, ruleset: RuleSet) -> None:
    """Windows PowerShell's ``>`` writes UTF-16 with a byte-order mark (and CRLF): read as the text
    it holds, with a warning, compressed or not, either byte order; before, "binary data"."""
    text = (_STEPS + _ERROR).replace("\n", "\r\n")
    run = tmp_path / "run"
    (run / "gpu-node-7").mkdir(parents=True)
    (run / "gpu-node-7" / "rank3.log").write_bytes(text.encode("utf-16"))
    report = replay_path(run, ruleset)
    assert (report.incidents[0].cause, report.incidents[0].initiator.rank) == (Cause.ILLEGAL_MEMORY_ACCESS, 3)
    assert report.summary.lines == 3001
    assert any("UTF-16" in w for w in report.warnings)
    (run / "gpu-node-7" / "rank3.log").unlink()
    (run / "gpu-node-7" / "rank3.log.gz").write_bytes(gzip.compress(b"\xfe\xff" + text.encode("utf-16-be")))
    report = replay_path(run, ruleset)
    assert report.incidents[0].cause is Cause.ILLEGAL_MEMORY_ACCESS


@pytest.mark.parametrize(("codec", "bom"), [("utf-16-le", b""), ("utf-16-be", b""), ("utf-32-le", b""),
                                           ("utf-32-be", b""), ("utf-32", None)])
def test_a_wide_log_without_a_byte_order_mark_or_in_utf32_is_read(tmp_path: Path, ruleset: RuleSet, codec: str,
                                                                   bom: bytes | None) -> None:
    """UTF-16 without its byte-order mark (a .NET or Java writer's UTF-16LE) and UTF-32 read as
    the text they hold, with a warning (found by a hostile-input review: both read as nothing)."""
    text = (_STEPS + _ERROR).replace("\n", "\r\n")
    run = tmp_path / "run"
    (run / "gpu-node-7").mkdir(parents=True)
    data = text.encode(codec) if bom is None else bom + text.encode(codec)
    (run / "gpu-node-7" / "rank3.log").write_bytes(data)
    report = replay_path(run, ruleset)
    assert (report.incidents[0].cause, report.incidents[0].initiator.rank) == (Cause.ILLEGAL_MEMORY_ACCESS, 3)
    assert report.summary.lines == 3001
    assert any("converted to UTF-8" in w for w in report.warnings), report.warnings


@pytest.mark.parametrize("data", [b"\x00\x01\x02\x03" * 64, bytes(range(256)), b"step 1\x00 loss\n" * 30,
                                  b"\x00" * 300, "step 1 loss 2.0 \u00e9\n".encode() * 20])
def test_binary_and_plain_text_are_not_taken_for_wide_text(data: bytes) -> None:
    assert compressed.wide_encoding(data) is None


def test_a_utf16_log_larger_than_the_limit_says_it_was_read_in_part(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(compressed, "MAX_INFLATED", 1 << 20)
    log = tmp_path / "rank0.log"
    log.write_bytes(("step 1 loss 2.0\r\n" * 40_000).encode("utf-16"))
    fh, _st, note = compressed.open_log(log, False)
    with fh:
        assert len(fh.read()) < 1 << 20
    assert note is not None and "converted to UTF-8" in note and "only its first 1 MiB read" in note
    small = tmp_path / "rank1.log"
    small.write_bytes("step 1\r\n".encode("utf-16"))
    assert compressed.open_log(small, False)[2] == "UTF-16 text (a Windows PowerShell redirect?), converted to UTF-8"


def test_a_utf16_log_of_no_log_name_is_read_when_nothing_else_is(tmp_path: Path, ruleset: RuleSet) -> None:
    """A folder whose only files have names of no log (a job's ``train.e`` and ``train.o``) has
    them read when they hold text; UTF-16 with its byte-order mark is text too (found by fuzzing
    the corpus: the folder was "no log files found"). An object file (.o) is still left out."""
    run = tmp_path / "run"
    run.mkdir()
    (run / "train.e").write_bytes(_ERROR.replace("\n", "\r\n").encode("utf-16"))
    (run / "train.o").write_bytes(b"step 1 loss 2.0\rstep 2 loss 1.9\r")
    (run / "messages.o").write_bytes(b"\x7fELF\x02\x01\x01" + b"\0" * 64)  # (no kernel log for its name)
    report = replay_path(run, ruleset)
    assert report.summary.files == 2
    assert (report.incidents[0].cause, report.incidents[0].initiator.rank) == (Cause.ILLEGAL_MEMORY_ACCESS, 3)
