"""The table-printing commands (`rules`, `check`) with a standard output that fails, a Prometheus
URL no request can use, and a logs folder deeper than Python's recursion limit: one line on
standard error and status 1, never a traceback (found by a hostile-input review: each raised)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.paths import REPLAY_LOGS

RUN = str(REPLAY_LOGS / "cuda_oom_8r")


def _cli(*argv: str, stdout: int | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "detector.cli.main", *argv], stdout=stdout,
                          stderr=subprocess.PIPE, text=True, timeout=timeout)


COMMANDS = [("rules", "list"), ("rules", "validate"), ("rules", "coverage", RUN),
            ("check", "--no-nvml", "--no-metrics", "--logs", RUN)]


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("argv", COMMANDS, ids=lambda a: " ".join(a[:2]))
def test_a_full_standard_output_is_one_error_line(argv: tuple[str, ...]) -> None:
    with open("/dev/full", "w") as full:
        proc = _cli(*argv, stdout=full.fileno())
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr and "Exception ignored" not in proc.stderr, proc.stderr
    assert "standard output: cannot write (No space left on device)" in proc.stderr


@pytest.mark.parametrize("argv", COMMANDS, ids=lambda a: " ".join(a[:2]))
def test_a_closed_standard_output_is_one_error_line(argv: tuple[str, ...]) -> None:
    proc = subprocess.run(
        ["sh", "-c", 'exec "$0" -m detector.cli.main "$@" >&-', sys.executable, *argv],
        stderr=subprocess.PIPE, text=True, timeout=120)
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr and "standard output: closed" in proc.stderr, proc.stderr


def test_the_printed_table_is_unchanged_by_the_guard() -> None:
    proc = _cli("rules", "list", stdout=subprocess.PIPE)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].split()[:3] == ["ID", "ROLE", "CAUSE"] and len(lines) > 400


@pytest.mark.parametrize("url", ["http://[::1", "http://prom:abc", "ftp://prom", "prom:9090"])
def test_watch_refuses_a_prometheus_url_no_request_can_use(url: str, tmp_path: Path) -> None:
    proc = _cli("watch", "--no-nvml", "--no-metrics", "--logs", str(tmp_path), "--prometheus", url,
                "--state", str(tmp_path / "st"), stdout=subprocess.PIPE, timeout=60)
    assert proc.returncode == 1, proc.stderr
    assert f"Prometheus URL {url!r}" in proc.stderr and "Traceback" not in proc.stderr, proc.stderr


@pytest.mark.parametrize("url", ["http://[::1", "http://prom:abc"])
def test_check_says_a_malformed_prometheus_url(url: str) -> None:
    proc = _cli("check", "--no-nvml", "--no-metrics", "--prometheus", url, stdout=subprocess.PIPE)
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr and f"Prometheus URL {url!r} is not a valid URL" in proc.stderr, proc.stderr


def test_check_walks_a_logs_folder_deeper_than_the_recursion_limit(tmp_path: Path) -> None:
    fd = os.open(tmp_path, os.O_RDONLY)
    for _ in range(1200):  # deeper than PATH_MAX lets one path name: made a level at a time
        os.mkdir("d", dir_fd=fd)
        below = os.open("d", os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = below
    os.close(fd)
    (tmp_path / "rank0.log").write_text("step 1\n")
    try:
        proc = _cli("check", "--no-nvml", "--no-metrics", "--logs", str(tmp_path), stdout=subprocess.PIPE)
    finally:
        _remove_deep(tmp_path, 1200)
    assert "Traceback" not in proc.stderr and "RecursionError" not in proc.stderr, proc.stderr
    assert any(line.startswith("OK") and str(tmp_path) in line for line in proc.stdout.splitlines()), proc.stdout


def _remove_deep(top: Path, depth: int) -> None:
    """Remove the chain of "d" folders under ``top`` bottom up, a level at a time (shutil.rmtree,
    pytest's clean-up of old temporary folders, recurses and would fail on it)."""
    fds = [os.open(top, os.O_RDONLY)]
    for _ in range(depth - 1):
        fds.append(os.open("d", os.O_RDONLY, dir_fd=fds[-1]))
    while fds:
        fd = fds.pop()
        os.rmdir("d", dir_fd=fd)
        os.close(fd)


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/null", "/dev/urandom"])
def test_a_device_that_is_not_the_kernel_log_is_refused(device: str, tmp_path: Path) -> None:
    """/dev/zero as --kmsg was read as kernel records without end (80 MB a poll)."""
    proc = _cli("watch", "--no-nvml", "--no-metrics", "--logs", str(tmp_path), "--kmsg", device,
                "--state", str(tmp_path / "st"), stdout=subprocess.PIPE, timeout=60)
    assert proc.returncode == 1, proc.stderr
    assert f"--kmsg {device}: a device that is not the kernel's log" in proc.stderr, proc.stderr
