"""Where `rankdoctor replay` writes its report, and what it says when it cannot: a folder or a
missing folder as --output, the log being replayed as --output, a full disk, a closed standard
output or input, file names that are not UTF-8 (found by a hostile-input review: each was a
traceback, and a failed write emptied the earlier report file)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from detector.cli.main import main
from tests.support.paths import REPLAY_LOGS

RUN = REPLAY_LOGS / "cuda_oom_8r"
OOM = "[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n"


def _replay(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["replay", "--no-progress", *argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


def test_output_that_is_a_folder_or_in_no_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _replay(capsys, str(RUN), "-o", str(tmp_path))
    assert code == 1 and "is a folder: give --output a file name" in err
    code, _, err = _replay(capsys, str(RUN), "-o", str(tmp_path / "nodir" / "r.json"))
    assert code == 1 and "cannot write: no folder" in err


def test_output_that_is_the_log_being_replayed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "w3.log"
    log.write_text(OOM)
    code, _, err = _replay(capsys, str(log), "-o", str(log))
    assert code == 1 and "is one of the logs being replayed" in err
    assert log.read_text() == OOM
    code, _, err = _replay(capsys, str(tmp_path), "-o", str(log))
    assert code == 1 and log.read_text() == OOM


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full here")
def test_a_full_disk_is_an_error_not_a_traceback(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _replay(capsys, str(RUN), "--format", "json", "-o", "/dev/full")
    assert code == 1 and "cannot write the report (No space left on device)" in err


def test_a_failed_write_keeps_the_earlier_report(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "report.json"
    out.write_text("PREVIOUS")

    def fail(src: object, dst: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", fail)
    code, _, err = _replay(capsys, str(RUN), "--format", "json", "-o", str(out))
    assert code == 1 and "No space left on device" in err
    assert out.read_text() == "PREVIOUS"
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]  # no temporary file left


def test_the_report_is_written_whole_with_a_new_file_s_mode(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "report.json"
    code, _, _ = _replay(capsys, str(RUN), "--format", "json", "-o", str(out))
    assert code == 0 and json.loads(out.read_text())["incidents"]
    umask = os.umask(0)
    os.umask(umask)
    assert out.stat().st_mode & 0o777 == 0o666 & ~umask


def test_a_file_name_that_is_not_utf8_gives_valid_json(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    (run / os.fsdecode(b"rank0\xff\xfe.log")).write_text(OOM)
    proc = subprocess.run([sys.executable, "-m", "detector.cli.main", "replay", str(run), "--format", "json"],
                          capture_output=True, env={**os.environ, "PYTHONIOENCODING": "utf-8:strict"}, timeout=120)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout.decode("utf-8"))
    assert report["incidents"][0]["evidence"][0]["file"] == os.fsdecode(b"rank0\xff\xfe.log")


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_a_closed_standard_output_or_input(fmt: str) -> None:
    proc = subprocess.run([sys.executable, "-m", "detector.cli.main", "replay", str(RUN), "--format", fmt],
                          capture_output=False, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=120,
                          preexec_fn=lambda: os.close(1))
    assert proc.returncode == 1 and b"standard output: closed" in proc.stderr
    assert b"Traceback" not in proc.stderr
    proc = subprocess.run([sys.executable, "-m", "detector.cli.main", "replay", "-"], stdin=subprocess.DEVNULL,
                          capture_output=True, timeout=120, preexec_fn=lambda: os.close(0))
    assert proc.returncode == 1 and b"standard input is closed" in proc.stderr
