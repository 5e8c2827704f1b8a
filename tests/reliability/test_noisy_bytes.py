"""Bytes around the text of a log: a log that was being written when its node crashed or lost
power comes back with blocks of NUL bytes where its last writes were (and a preallocated log
starts with them): the text around them is still the log, and the error written after them is
found; a real binary file is still skipped with a warning. Terminal colour codes (colorlog,
rich, loguru) around a rank prefix or an exception do not hide either."""

from __future__ import annotations

import os
from pathlib import Path

from detector.replay import replay_path
from detector.rules.engine import RuleSet
from detector.types import Cause

_ERROR = b"[rank3]: RuntimeError: CUDA error: an illegal memory access was encountered\n"
_STEPS = "".join(f"[rank3]:2026-11-30 10:00:{i % 60:02d},000 INFO step {i} | loss 1.0\n" for i in range(2000)).encode()


def _replay(tmp_path: Path, name: str, data: bytes, ruleset: RuleSet,
            file: str = "rank3.log") -> tuple[list[tuple[Cause, int | None]], list[str]]:
    run = tmp_path / name
    run.mkdir()
    (run / file).write_bytes(data)
    report = replay_path(run, ruleset)
    return [(i.cause, i.initiator.rank) for i in report.incidents], list(report.warnings)


def test_an_error_written_right_after_a_long_run_of_nuls_is_found(tmp_path: Path, ruleset: RuleSet) -> None:
    # longer than the 64 KiB of a line that is matched, and glued to the error's line
    got, warnings = _replay(tmp_path, "body", _STEPS + b"\0" * 70_000 + _ERROR, ruleset)
    assert got == [(Cause.ILLEGAL_MEMORY_ACCESS, 3)]
    assert not any("binary" in w for w in warnings)


def test_a_short_log_that_starts_with_nuls_is_read_not_skipped_as_binary(tmp_path: Path, ruleset: RuleSet) -> None:
    got, warnings = _replay(tmp_path, "head", b"\0" * 5000 + _ERROR, ruleset)
    assert got == [(Cause.ILLEGAL_MEMORY_ACCESS, 3)]
    assert not any("binary" in w for w in warnings)


def test_random_bytes_are_still_skipped_as_binary(tmp_path: Path, ruleset: RuleSet) -> None:
    got, warnings = _replay(tmp_path, "random", os.urandom(20_000) + _ERROR, ruleset)
    assert got == []
    assert any("binary data, not a text log; skipped" in w for w in warnings)


def test_colour_codes_hide_neither_the_rank_prefix_nor_the_exception(tmp_path: Path, ruleset: RuleSet) -> None:
    coloured = b"\x1b[1;31m[rank3]: RuntimeError: CUDA error: an illegal memory access was encountered\x1b[0m\n"
    assert _replay(tmp_path, "prefix", coloured, ruleset, "train.log")[0] == [(Cause.ILLEGAL_MEMORY_ACCESS, 3)]
    exc = (b"[rank2]: Traceback (most recent call last):\n[rank2]:   File \"t.py\", line 1, in <module>\n"
           b"[rank2]: \x1b[31mValueError\x1b[0m: bad config key lr\n")
    assert _replay(tmp_path, "exception", exc, ruleset, "train.log")[0] == [(Cause.PYTHON_EXCEPTION, 2)]
    bare = b"\x1b[31mValueError: bad config key lr\x1b[0m\n"
    assert [c for c, _ in _replay(tmp_path, "bare", bare, ruleset, "train.log")[0]] == [Cause.PYTHON_EXCEPTION]
