"""Bad input: a clear message or a warning, never a traceback, and the rest is still analysed."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from detector.cli.main import main
from detector.errors import InputError
from detector.replay import replay_path
from detector.rules.engine import RuleSet
from tests.support.paths import REPLAY_LOGS

EXCEPTION_RUN = REPLAY_LOGS / "torchrun_exception_4r"


def _copy_run(tmp_path: Path) -> Path:
    run = tmp_path / "run"
    shutil.copytree(EXCEPTION_RUN, run)
    (run / "expected.json").unlink()
    return run


def _initiator(report: object) -> tuple[str, int | None]:
    inc = report.incidents[0]  # type: ignore[attr-defined]
    return inc.cause.value, inc.initiator.rank


def test_missing_and_empty_paths(tmp_path: Path, ruleset: RuleSet, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(InputError, match="no such file"):
        replay_path(tmp_path / "nope", ruleset)
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(InputError, match="no log files"):
        replay_path(empty, ruleset)
    assert main(["replay", str(tmp_path / "nope")]) == 1
    err = capsys.readouterr().err
    assert "rankdoctor: error:" in err and "no such file" in err and "Traceback" not in err


def test_binary_invalid_utf8_huge_line_truncated_unreadable(tmp_path: Path, ruleset: RuleSet) -> None:
    run = _copy_run(tmp_path)
    (run / "core.log").write_bytes(os.urandom(1 << 16).replace(b"\n", b"\x00") + b"\x00" * 1000)
    (run / "latin1.log").write_bytes("2026-11-30 02:00:00,000 caf\xe9 ok\n".encode("latin-1") + b"\xff\xfe\n")
    (run / "huge.log").write_bytes(b"A" * (10 << 20) + b"\nRuntimeError: tail after huge line\n")
    (run / "truncated.log").write_bytes(b"2026-11-30 02:00:00,000 INFO [rank9] step 1 | loss 1.0 | st")
    unreadable = run / "secret.log"
    unreadable.write_text("x\n")
    unreadable.chmod(0)
    report = replay_path(run, ruleset)
    warnings = "\n".join(report.warnings)
    assert "core.log: binary data" in warnings
    assert "latin1.log:1: invalid UTF-8" in warnings
    assert "huge.log:1: line longer than" in warnings
    if os.geteuid() != 0:  # root can read anything
        assert "secret.log: not readable" in warnings
    # the real failure is still found
    assert _initiator(report) == ("python_exception", 2)


def test_ten_megabyte_line_does_not_hide_later_lines(tmp_path: Path, ruleset: RuleSet) -> None:
    log = tmp_path / "rank_0.log"
    log.write_bytes(b"x" * (10 << 20) + b"\n" + b"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.11 GiB of which 1.00 GiB is free.\n")
    report = replay_path(log, ruleset)
    assert report.incidents and report.incidents[0].cause.value == "cuda_oom"
    assert report.summary.lines == 2


def test_healthy_single_file(tmp_path: Path, ruleset: RuleSet) -> None:
    log = tmp_path / "rank_0.log"
    log.write_text("".join(f"2026-11-30 02:00:{i:02d},000 INFO step {i} | loss 1.0\n" for i in range(50)))
    report = replay_path(log, ruleset)
    assert report.incidents == ()
    assert report.summary.lines == 50 and report.summary.files == 1
