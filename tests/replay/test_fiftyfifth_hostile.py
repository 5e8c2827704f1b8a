"""A hostile tester's findings (each one line now, never a traceback): a file name longer than the
file system takes in an option (--output, rules validate / test), a log file rules test cannot
read (it said "no rule matched any line"), and a run whose every file is empty (it read as a
healthy run, with no word)."""

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
LONG = "q" * 300


def _run(cwd: Path, *args: str, prefix: tuple[str, ...] = ()) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([*prefix, sys.executable, "-m", "detector.cli.main", *args], env=env, cwd=cwd,
                          capture_output=True, text=True, timeout=120, check=False)


@pytest.mark.parametrize("args", [
    ("replay", str(ROOT / "replay_logs" / "cuda_oom_8r"), "--no-progress", "-o", LONG + ".json"),
    ("rules", "validate", LONG + ".yaml"),
    ("rules", "test", LONG + ".log"),
])
def test_a_name_too_long_is_one_line(tmp_path: Path, args: tuple[str, ...]) -> None:
    done = _run(tmp_path, *args)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr[-2000:]
    assert done.stderr.startswith("rankdoctor: error: ") and "too long" in done.stderr


@pytest.mark.skipif(shutil.which("setpriv") is None, reason="setpriv (util-linux) drops root's file capabilities")
def test_rules_test_says_it_cannot_read_the_file(tmp_path: Path) -> None:
    log = tmp_path / "rank3.log"
    log.write_text("[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n")
    log.chmod(0)
    done = _run(tmp_path, "rules", "test", str(log), prefix=("setpriv", "--inh-caps=-all", "--bounding-set=-all"))
    if os.geteuid() != 0 and os.access(log, os.R_OK):
        pytest.skip("the file stayed readable")
    assert done.returncode == 1 and "cannot read (Permission denied)" in done.stderr, (done.stdout, done.stderr)
    assert "no rule matched" not in done.stdout


def test_a_run_of_empty_files_says_so(tmp_path: Path, ruleset: RuleSet) -> None:
    for rank in range(4):
        (tmp_path / f"rank{rank}.log").write_text("")
    report = replay_path(tmp_path, ruleset)
    assert not report.incidents
    assert any("empty: there is nothing to diagnose" in w for w in report.warnings), report.warnings
