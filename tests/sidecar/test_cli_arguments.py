"""`rankdoctor watch`, `snapshot` and `check` given values or places they cannot use: a usage error
or a one-line error, never a traceback (found by a hostile-input review: --hang-k 0, nan and inf
raised deep in the statistics; a taken metrics port, an unknown metrics host and a state path
that is a file raised from the sidecar's start)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.paths import REPLAY_LOGS

RUN = str(REPLAY_LOGS / "cuda_oom_8r")


def _cli(*argv: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "detector.cli.main", *argv], capture_output=True, text=True,
                          timeout=timeout)


@pytest.mark.parametrize(("argv", "says"), [
    (("watch", "--logs", RUN, "--hang-k", "0"), "argument --hang-k: must be from 0.1 to 1000"),
    (("watch", "--logs", RUN, "--hang-k", "1e308"), "argument --hang-k: must be from 0.1 to 1000"),
    (("watch", "--logs", RUN, "--hang-k", "nan"), "argument --hang-k: must be a finite number"),
    (("watch", "--logs", RUN, "--hang-floor", "-1"), "argument --hang-floor: must be from 0.1 to 86400"),
    (("watch", "--logs", RUN, "--settle", "inf"), "argument --settle: must be a finite number"),
    # (a config file's bounds: "--settle 1e308" was taken, and the watch never reported)
    (("watch", "--logs", RUN, "--settle", "1e308"), "argument --settle: must be at most 60 seconds"),
    (("watch", "--logs", RUN, "--hang-floor", "1e20"), "argument --hang-floor: must be from 0.1 to 86400"),
    (("watch", "--logs", RUN, "--history", "1e20"), "argument --history: must be at most 31536000 seconds"),
    (("snapshot", "--pid", "1", "--timeout", "nan"), "argument --timeout: must be a finite number"),
    (("snapshot", "--pid", "-5"), "argument --pid: a process id is above 0"),
    (("check", "--timeout", "inf"), "argument --timeout: must be a finite number"),
])
def test_a_number_no_detector_can_use_is_a_usage_error(argv: tuple[str, ...], says: str) -> None:
    proc = _cli(*argv)
    assert proc.returncode == 2, proc.stderr
    assert says in proc.stderr and "Traceback" not in proc.stderr


def test_a_taken_metrics_port(tmp_path: Path) -> None:
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen(1)
        port = held.getsockname()[1]
        proc = _cli("watch", "--logs", RUN, "--no-nvml", "--metrics-addr", f"127.0.0.1:{port}",
                    "--state", str(tmp_path / "state"))
    assert proc.returncode == 1
    assert "the metrics port is already in use" in proc.stderr and "Traceback" not in proc.stderr


def test_a_state_path_that_is_a_file(tmp_path: Path) -> None:
    (tmp_path / "state").write_text("")
    proc = _cli("watch", "--logs", RUN, "--no-nvml", "--no-metrics", "--state", str(tmp_path / "state"))
    assert proc.returncode == 1
    assert "is a file, not a folder" in proc.stderr and "Traceback" not in proc.stderr


def test_an_unknown_metrics_host(tmp_path: Path) -> None:
    proc = _cli("watch", "--logs", RUN, "--no-nvml", "--metrics-addr", "nosuchhost.invalid:9000",
                "--state", str(tmp_path / "state"))
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr and "metrics" in proc.stderr


def _said_at_start(*argv: str) -> str:
    """The sidecar runs until stopped: start it, read what it says up to "ready", stop it."""
    p = subprocess.Popen([sys.executable, "-m", "detector.cli.main", "watch", *argv],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    seen = ""
    try:
        deadline = time.monotonic() + 30
        assert p.stderr is not None
        while "ready" not in seen and time.monotonic() < deadline:
            seen += p.stderr.readline()
    finally:
        os.kill(p.pid, signal.SIGTERM)
        p.wait(timeout=30)
    return seen


def test_a_logs_folder_that_does_not_exist_yet_is_said(tmp_path: Path) -> None:
    seen = _said_at_start("--logs", str(tmp_path / "later"), "--no-nvml", "--no-metrics", "--state", str(tmp_path / "state"))
    assert f"{tmp_path / 'later'} does not exist (yet)" in seen


def test_a_kernel_log_file_that_does_not_exist_is_said(tmp_path: Path) -> None:
    """`--kmsg` naming a file that is not there (a typo) said nothing (`check` warns); a hostile
    tester of the fifty-fourth session."""
    seen = _said_at_start("--logs", RUN, "--kmsg", str(tmp_path / "typo.kmsg"), "--no-nvml", "--no-metrics",
                          "--state", str(tmp_path / "state"))
    assert f"kernel log {tmp_path / 'typo.kmsg'} does not exist yet" in seen


@pytest.mark.parametrize("where", ["full", "pipe"])
def test_the_watch_goes_on_when_its_stdout_fails(tmp_path: Path, where: str) -> None:
    """stdout on a full disk (/dev/full) or on a pipe whose reader left: the incident summaries
    stop (one warning), the watch does not (it wrote the incident to its file, and goes on until
    it is stopped, then exits 0)."""
    logs, incidents = tmp_path / "logs", tmp_path / "incidents.jsonl"
    logs.mkdir()
    (logs / "rank0.log").write_text("step 1 loss 2.0\n")
    command = [sys.executable, "-m", "detector.cli.main", "watch", "--logs", str(logs), "--no-nvml", "--no-metrics",
               "--state", str(tmp_path / "state"), "--incidents", str(incidents)]
    if where == "full":
        with open("/dev/full", "w") as full:
            p = subprocess.Popen(command, stdout=full, stderr=subprocess.PIPE, text=True)
    else:
        p = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert p.stdout is not None
        p.stdout.close()  # the reader leaves before the first summary
    err = ""
    try:
        deadline = time.monotonic() + 60
        assert p.stderr is not None
        while "ready" not in err and time.monotonic() < deadline:
            err += p.stderr.readline()
        (logs / "rank1.log").write_text("[rank1]: RuntimeError: boom\n")
        while time.monotonic() < deadline and not (incidents.exists() and incidents.read_text().strip()):
            time.sleep(0.2)
        time.sleep(3)  # (the summary's failed write came with the incident: the watch must outlive it)
        assert p.poll() is None, "the watch stopped"
    finally:
        os.kill(p.pid, signal.SIGTERM)
        rest = p.communicate(timeout=30)[1]
    lines = incidents.read_text().splitlines()
    assert len(lines) == 1 and '"python_exception"' in lines[0], lines
    assert p.returncode == 0, rest
    assert "Traceback" not in err + rest and "stopped printing" in err + rest


def test_snapshot_with_no_stack_tool_says_so(tmp_path: Path) -> None:
    """`snapshot --tool` naming no program printed "(None, Python frames)" (a hostile tester)."""
    proc = _cli("snapshot", "--pid", str(os.getpid()), "--tool", str(tmp_path / "py-spy"))
    assert proc.returncode == 1
    assert "None" not in proc.stdout and "no stack tool found" in proc.stdout and "Traceback" not in proc.stderr
