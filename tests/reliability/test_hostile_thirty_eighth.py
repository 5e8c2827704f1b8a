"""Hostile inputs found in the thirty-eighth session's review: a progress bar redrawn over an
error line before its newline, a text report's reader closing the pipe, '-o -', an incident sink
that is a folder, and more log files than the open-file limit."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from detector.cli import check as check_cli
from detector.cli.main import main
from detector.rules.engine import RuleSet
from detector.support.text import decode_line
from detector.types import Cause
from tests.support.replaying import incidents_of

ERROR = "[rank1]: RuntimeError: CUDA error: an illegal memory access was encountered"


@pytest.mark.parametrize("raw, kept", [
    # (another process's bar redrawn over the error line before its newline: the error is kept)
    (ERROR + "\r 50%|#####     | 50/100 [00:05<00:05]", ERROR),
    # (a bar redrawn three times is what a terminal shows: its last redraw)
    ("  0%|  | 0/10 [00:00<?, ?it/s]\r 10%|#  | 1/10 [00:01<00:09, 1.0it/s]\r 20%|## | 2/10",
     " 20%|## | 2/10"),
    ("  0%|  | 0/10 [00:00<?, ?it/s]\r" + ERROR, ERROR),
])
def test_a_progress_bar_redrawn_over_an_error_line_keeps_the_error(raw: str, kept: str) -> None:
    assert decode_line(raw.encode()) == kept


def test_an_error_line_a_bar_was_redrawn_over_is_diagnosed(tmp_path: Path, ruleset: RuleSet) -> None:
    log = "[rank0]: step 1\n" + ERROR + "\r 50%|#####     | 50/100 [00:05<00:05]\n"
    seen = incidents_of(tmp_path / "run", {"train.log": log}, ruleset)
    assert seen and seen[0].cause is Cause.ILLEGAL_MEMORY_ACCESS and seen[0].rank == 1, seen


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_a_closed_pipe_ends_the_report_the_same_way_in_both_formats(tmp_path: Path, fmt: str) -> None:
    log = tmp_path / "one.log"
    log.write_text(ERROR + "\n")
    proc = subprocess.Popen([sys.executable, "-m", "detector.cli.main", "replay", str(log), "--format", fmt],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # (the reader is gone before the report is written: `| head -0`)
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 0 and "Traceback" not in err, err


def test_output_dash_is_standard_output(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    log = tmp_path / "one.log"
    log.write_text(ERROR + "\n")
    monkeypatch.chdir(tmp_path)
    main(["replay", str(log), "--format", "json", "-o", "-"])
    assert '"illegal_memory_access"' in capsys.readouterr().out
    assert not (tmp_path / "-").exists()


def test_an_incident_sink_that_is_a_folder_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    logs, sink = tmp_path / "logs", tmp_path / "sink"
    logs.mkdir()
    sink.mkdir()
    common = ["--logs", str(logs), "--incidents", str(sink), "--no-nvml", "--node", "n1"]
    # (in a process of its own, with a time limit: a sidecar that accepted it would run on)
    proc = subprocess.run([sys.executable, "-m", "detector.cli.main", "watch", *common, "--state",
                           str(tmp_path / "state"), "--no-metrics"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "is a folder" in proc.stderr, (proc.returncode, proc.stderr)
    check_cli.main(common)
    out = capsys.readouterr().out
    assert "FAIL  incidents" in out and "is a folder" in out, out


def test_more_log_files_than_the_open_file_limit_is_a_warning(tmp_path: Path) -> None:
    """(in a process of its own: a limit lowered here could not be raised again)"""
    logs = tmp_path / "logs"
    logs.mkdir()
    for i in range(8):
        (logs / f"rank{i}.log").write_text("step 1\n")
    code = ("import resource, sys\n"
            "resource.setrlimit(resource.RLIMIT_NOFILE, (70, 70))\n"
            "from detector.sidecar.preflight.files import probe_open_files\n"
            "p = probe_open_files([sys.argv[1]])\n"
            "print(p.level.value if p else None, p.detail if p else '')\n"
            "resource.setrlimit(resource.RLIMIT_NOFILE, (70, 70))\n"
            "print(probe_open_files([sys.argv[2]]))\n")
    out = subprocess.run([sys.executable, "-c", code, str(logs), str(logs / "rank0.log")], capture_output=True,
                         text=True, timeout=120, check=True).stdout.splitlines()
    assert out[0].startswith("WARN 8 log files against an open-file limit of 70"), out
    assert out[1] == "None", out  # (one file is well within it)
