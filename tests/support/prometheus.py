"""A real Prometheus (Debian package ``prometheus``) for the tests, on 127.0.0.1 in a temp dir.

Use the session-scoped ``prometheus_server`` fixture (import it into the test module). Targets
are given per test through file-based service discovery (:meth:`PromServer.set_targets`):
Prometheus hands new targets to its scrapers at most every 5 s, so the first sample of a new
target arrives 5-6 s after it is set — start what it scrapes early. Scrapes every second.
Skips only when the ``prometheus`` binary is missing (CI installs it: scripts/setup-system.sh).
"""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

CONFIG = """\
global:
  scrape_interval: 1s
  scrape_timeout: 900ms
  evaluation_interval: 1s
scrape_configs:
  - job_name: sidecars
    file_sd_configs:
      - files: ["{targets}"]
        refresh_interval: 1s
"""


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class PromServer:
    def __init__(self, base: Path, port: int, proc: subprocess.Popen[bytes]) -> None:
        self.base = base
        self.port = port
        self.proc = proc
        self.url = f"http://127.0.0.1:{port}"
        self.targets_file = base / "targets.json"

    def set_targets(self, targets: Sequence[str], labels: dict[str, str] | None = None) -> None:
        """Scrape these ``host:port`` endpoints (replaces the previous list)."""
        tmp = self.targets_file.with_suffix(".tmp")
        tmp.write_text(json.dumps([{"targets": list(targets), "labels": labels or {}}]))
        tmp.replace(self.targets_file)

    def query(self, promql: str) -> list[dict[str, Any]]:
        url = f"{self.url}/api/v1/query?" + urllib.parse.urlencode({"query": promql})
        with urllib.request.urlopen(url, timeout=5) as resp:
            data = json.loads(resp.read())
        result: list[dict[str, Any]] = data["data"]["result"]
        return result

    def wait_for(self, promql: str, timeout: float = 30.0) -> list[dict[str, Any]]:
        """Poll until the query returns something."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                result = self.query(promql)
            except (urllib.error.URLError, OSError):
                result = []
            if result:
                return result
            time.sleep(0.25)
        raise AssertionError(f"Prometheus returned nothing for {promql!r} within {timeout} s")


def start_prometheus(base: Path) -> PromServer:
    binary = shutil.which("prometheus")
    if binary is None:
        raise FileNotFoundError("prometheus")
    port = free_port()
    targets = base / "targets.json"
    targets.write_text("[]")
    config = base / "prometheus.yml"
    config.write_text(CONFIG.format(targets=targets))
    log = open(base / "prometheus.log", "wb")  # noqa: SIM115 - the process writes it until stopped
    proc = subprocess.Popen(
        [binary, f"--config.file={config}", f"--storage.tsdb.path={base / 'data'}",
         f"--web.listen-address=127.0.0.1:{port}", "--log.level=warn"],
        stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True,
    )
    server = PromServer(base, port, proc)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"prometheus exited with {proc.returncode}: {(base / 'prometheus.log').read_text()[-2000:]}")
        try:
            with urllib.request.urlopen(f"{server.url}/-/ready", timeout=1) as resp:
                if resp.status == 200:
                    return server
        except (urllib.error.URLError, OSError):
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError("prometheus did not become ready within 20 s")


def stop_prometheus(server: PromServer) -> None:
    server.proc.terminate()
    try:
        server.proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        server.proc.kill()
        server.proc.wait(timeout=5)


@pytest.fixture(scope="session")
def prometheus_server() -> Iterator[PromServer]:
    if shutil.which("prometheus") is None:
        pytest.skip("the 'prometheus' binary is missing (Debian package prometheus; CI installs it "
                    "with scripts/setup-system.sh)")
    base = Path(tempfile.mkdtemp(prefix="rankdoctor-prom-"))
    server = start_prometheus(base)
    try:
        yield server
    finally:
        stop_prometheus(server)
        shutil.rmtree(base, ignore_errors=True)
