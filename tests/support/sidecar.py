"""Helpers for the sidecar tests (no tests here): a ``rankdoctor watch`` subprocess and a real
``torchrun`` job (tests/jobs/train_ddp.py, gloo, CPU), both in their own process group and
always killed on the way out; an in-process sidecar whose NVML raises on every call, its
``/metrics`` scraped and read."""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from detector.sidecar.config import DetectionConfig, ProcessConfig, PrometheusConfig, SidecarConfig
from detector.sidecar.service import Outside, Sidecar
from tests.support.nvml import RaisingNvml
from tests.support.paths import ROOT

NOW = 1_796_000_000.0  # a fixed wall-clock time for the unit tests
REPO = ROOT
TRAIN = REPO / "tests" / "jobs" / "train_ddp.py"
PYTHON = sys.executable
TORCHRUN = str(Path(PYTHON).parent / "torchrun")
READY = re.compile(r"metrics on (http://[^ ;]+/metrics)")


def kill_group(proc: subprocess.Popen[bytes], sig: int = signal.SIGKILL) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, sig)


class SidecarProc:
    """``python -m detector.cli.main watch ARGS`` with --incidents and --metrics-addr set."""

    def __init__(self, tmp: Path, args: Sequence[str], *, name: str = "sidecar", incidents: Path | None = None,
                 metrics_addr: str = "127.0.0.1:0", ready_timeout: float = 60.0) -> None:
        self.tmp = tmp
        self.incidents_file = incidents or tmp / f"{name}-incidents.jsonl"
        self.stderr_file = tmp / f"{name}.stderr"
        self.stdout_file = tmp / f"{name}.stdout"
        argv = [PYTHON, "-m", "detector.cli", "watch", *args, "--incidents", str(self.incidents_file)]
        if metrics_addr:
            argv += ["--metrics-addr", metrics_addr]
        else:
            argv += ["--no-metrics"]
        self.argv = argv
        self.proc = subprocess.Popen(argv, cwd=REPO, stdout=open(self.stdout_file, "wb"),  # noqa: SIM115
                                     stderr=open(self.stderr_file, "wb"), stdin=subprocess.DEVNULL,  # noqa: SIM115
                                     start_new_session=True)
        self.metrics_url: str | None = None
        deadline = time.monotonic() + ready_timeout
        while time.monotonic() < deadline:
            text = self.stderr()
            if "; ready" in text:
                m = READY.search(text)
                self.metrics_url = m.group(1) if m else None
                return
            if self.proc.poll() is not None:
                raise AssertionError(f"sidecar exited with {self.proc.returncode}:\n{text}")
            time.sleep(0.05)
        self.kill()
        raise AssertionError(f"sidecar not ready within {ready_timeout} s:\n{self.stderr()}")

    def stderr(self) -> str:
        return self.stderr_file.read_text(errors="replace") if self.stderr_file.exists() else ""

    def incidents(self) -> list[dict[str, Any]]:
        if not self.incidents_file.exists():
            return []
        return [json.loads(line) for line in self.incidents_file.read_text().splitlines() if line.strip()]

    def wait_incidents(self, count: int = 1, timeout: float = 60.0) -> list[dict[str, Any]]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = self.incidents()
            if len(found) >= count:
                return found
            if self.proc.poll() is not None:
                break
            time.sleep(0.1)
        raise AssertionError(f"{len(self.incidents())} incidents after {timeout} s (wanted {count});\n"
                             f"stderr:\n{self.stderr()[-4000:]}")

    def metrics(self) -> str:
        assert self.metrics_url is not None
        with urllib.request.urlopen(self.metrics_url, timeout=5) as resp:
            text: str = resp.read().decode()
        return text

    def stop(self, timeout: float = 20.0) -> int:
        """SIGTERM, as a container runtime would; returns the exit status."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.kill()
                raise AssertionError("sidecar did not stop within its timeout after SIGTERM") from None
        return int(self.proc.returncode)

    def kill(self) -> None:
        if self.proc.poll() is None:
            kill_group(self.proc)
            self.proc.wait(timeout=10)


class TorchJob:
    """``torchrun ... tests/jobs/train_ddp.py`` with fault injection; console to a file."""

    def __init__(self, tmp: Path, *, fault: str = "none", rank: int = 0, step: int = 5, steps: int = 25,
                 step_sleep: float = 0.2, pg_timeout: float = 60.0, nproc: int = 4, ckpt_every: int = 5,
                 log_dir: Path | None = None, console: Path | None = None, nnodes: int = 1, node_rank: int = 0,
                 master_port: int | None = None, name: str = "job", extra: Sequence[str] = ()) -> None:
        self.log_dir = log_dir or tmp / "logs"
        self.console = console or tmp / "console.log"
        self.pid_dir = tmp / f"{name}-pids"
        self.log_dir.mkdir(parents=True, exist_ok=True)
        if nnodes == 1:
            launch = ["--standalone", f"--nproc-per-node={nproc}"]
        else:
            launch = [f"--nnodes={nnodes}", f"--node-rank={node_rank}", f"--nproc-per-node={nproc}",
                      "--master-addr=127.0.0.1", f"--master-port={master_port}", "--rdzv-backend=static"]
        argv = [TORCHRUN, *launch, "--log-dir", str(self.log_dir), "--redirects", "3", "--tee", "3",
                str(TRAIN), "--steps", str(steps), "--step-sleep", str(step_sleep),
                "--ckpt-dir", str(tmp / f"{name}-ckpt"), "--ckpt-every", str(ckpt_every),
                "--pid-file-dir", str(self.pid_dir), "--pg-timeout", str(pg_timeout), *extra]
        if fault != "none":
            argv += ["--fault", fault, "--fault-rank", str(rank), "--fault-step", str(step)]
        env = dict(os.environ, OMP_NUM_THREADS="1", TORCH_DISABLE_SHARE_RDZV_TCP_STORE="1")
        self.started = time.time()
        self.proc = subprocess.Popen(argv, cwd=REPO, stdout=open(self.console, "ab"),  # noqa: SIM115
                                     stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env,
                                     start_new_session=True)

    def wait(self, timeout: float = 120.0) -> int | None:
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None

    def console_text(self) -> str:
        return self.console.read_text(errors="replace") if self.console.exists() else ""

    def wait_for_step(self, step: int, timeout: float = 90.0) -> None:
        pattern = re.compile(rf"\] step {step} \|")
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if pattern.search(self.console_text()):
                return
            if self.proc.poll() is not None:
                raise AssertionError(f"job ended before step {step}:\n{self.console_text()[-3000:]}")
            time.sleep(0.1)
        raise AssertionError(f"no step {step} within {timeout} s:\n{self.console_text()[-3000:]}")

    def kill(self) -> None:
        if self.proc.poll() is None:
            kill_group(self.proc)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=10)
        for pid_file in self.pid_dir.glob("rank_*.pid") if self.pid_dir.exists() else []:
            with contextlib.suppress(ProcessLookupError, ValueError, PermissionError):
                os.kill(int(pid_file.read_text().strip()), signal.SIGKILL)


def brief(incident: dict[str, Any]) -> str:
    ini = incident["initiator"]
    return f"{incident['cause']} rank={ini['rank']} node={ini['node']} ({incident['explanation']})"


# --- /metrics and an in-process sidecar ---------------------------------------------------

STEP = "2026-11-29T12:00:01Z [rank{r}]: step {i} | loss 1.0\n"


def metric(text: str, name: str, **labels: str) -> float | None:
    for line in text.splitlines():
        if line.startswith(name + "{") and all(f'{k}="{v}"' in line for k, v in labels.items()):
            return float(line.rsplit(" ", 1)[1])
    return None


def make_logs(tmp: Path) -> Path:
    """``tmp/logs`` with two rank logs of five step lines each."""
    logs = tmp / "logs"
    logs.mkdir()
    for r in range(2):
        (logs / f"rank_{r}.log").write_text("".join(STEP.format(r=r, i=i) for i in range(5)))
    return logs


def inprocess(tmp: Path, logs: Path, **changes: Any) -> tuple[Sidecar, threading.Thread, io.StringIO]:
    config = SidecarConfig(logs=(str(logs),), node="node01", metrics_addr="127.0.0.1:0", remediate=False,
                           state_dir=tmp / "state", incidents=tmp / "incidents.jsonl",
                           processes=ProcessConfig(enabled=False), detection=DetectionConfig(settle_s=0.2),
                           prometheus=PrometheusConfig(), **changes)
    err = io.StringIO()
    sidecar = Sidecar(config, Outside(out=io.StringIO(), err=err, nvml_loader=RaisingNvml))
    thread = threading.Thread(target=sidecar.run, daemon=True)
    thread.start()
    return sidecar, thread, err


def scrape(sidecar: Sidecar) -> str:
    deadline = time.monotonic() + 10
    while sidecar.metrics_address is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert sidecar.metrics_address is not None
    host, port = sidecar.metrics_address
    with urllib.request.urlopen(f"http://{host}:{port}/metrics", timeout=5) as resp:
        return str(resp.read().decode())
