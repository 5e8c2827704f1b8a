"""The sidecar process keeps working when parts of the world are missing, and obeys signals:
Prometheus unreachable (backoff, a down metric, a warning), NVML absent (one notice, off),
SIGHUP reloads config and rules, SIGTERM stops it cleanly with its offsets saved. And a real
Prometheus scraping a stand-in DCGM exporter turns an Xid into an incident."""

from __future__ import annotations

import re
import signal
import sqlite3
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.support.prometheus import PromServer, free_port, prometheus_server  # noqa: F401 - fixture
from tests.support.sidecar import SidecarProc, brief

TRACEBACK = (
    "2026-11-30 12:00:01,000 INFO [rank1] step 3 | loss 1.0 | step_ms 10\n"
    "[rank1]: Traceback (most recent call last):\n"
    '[rank1]:   File "train.py", line 9, in <module>\n'
    "[rank1]: RuntimeError: injected fault: bad batch at step 4\n"
)
EXTRA_RULE = """\
rules:
  - id: local.custom_marker
    description: a site-specific line
    source: rank_log
    role: context
    pattern: 'CUSTOM-MARKER-(?P<n>[0-9]+)'
    examples:
      - line: 'CUSTOM-MARKER-7'
        fields: {n: "7"}
"""


@pytest.fixture
def sidecars() -> Iterator[list[SidecarProc]]:
    items: list[SidecarProc] = []
    yield items
    for s in items:
        s.kill()


def test_prometheus_down_and_nvml_absent_are_survived(tmp_path: Path, sidecars: list[SidecarProc]) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "site.yaml").write_text(EXTRA_RULE.replace("custom_marker", "first_marker"))
    config = tmp_path / "watch.yaml"
    config.write_text(f"logs: [{logs}]\nnode: node01\nrules: [{rules}]\n"
                      f"prometheus: {{url: 'http://127.0.0.1:{free_port()}', interval_s: 0.2, timeout_s: 0.5}}\n"
                      "detection: {settle_s: 0.2}\nprocesses: {enabled: false}\n")
    sidecar = SidecarProc(tmp_path, ["--config", str(config), "--state", str(tmp_path / "state")])  # NVML on
    sidecars.append(sidecar)
    deadline = time.monotonic() + 20
    while "source prometheus is down" not in sidecar.stderr() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert "source prometheus is down" in sidecar.stderr()
    assert sidecar.stderr().count("NVML is not available") == 1
    (logs / "rank1.log").write_text(TRACEBACK)
    (incident,) = sidecar.wait_incidents(1, timeout=20)
    assert incident["cause"] == "python_exception" and incident["initiator"]["rank"] == 1, brief(incident)
    metrics = sidecar.metrics()
    assert re.search(r'rankdoctor_source_up\{node="node01",source="prometheus",training_job="default"\} 0\.0', metrics)
    assert re.search(r'rankdoctor_source_up\{node="node01",source="nvml",training_job="default"\} 0\.0', metrics)
    assert re.search(r'rankdoctor_source_up\{node="node01",source="logs",training_job="default"\} 1\.0', metrics)
    assert 'rankdoctor_incidents_total{cause="python_exception",node="node01",training_job="default"} 1.0' in metrics
    # SIGHUP: the config and the rules are read again
    before = sidecar.stderr().count("rules reloaded")
    (rules / "more.yaml").write_text(EXTRA_RULE)
    sidecar.proc.send_signal(signal.SIGHUP)
    deadline = time.monotonic() + 20
    while sidecar.stderr().count("rules reloaded") == before and time.monotonic() < deadline:
        time.sleep(0.1)
    assert sidecar.proc.poll() is None
    assert sidecar.stderr().count("rules reloaded") > before
    with open(logs / "rank1.log", "a") as fh:
        fh.write("CUSTOM-MARKER-7\n")
    time.sleep(0.5)
    assert sidecar.stop() == 0
    assert "Traceback" not in sidecar.stderr()
    with sqlite3.connect(tmp_path / "state" / "sidecar.sqlite3") as db:
        (offset,) = db.execute("SELECT offset FROM offsets WHERE path = ?", (str(logs / "rank1.log"),)).fetchone()
    assert offset == (logs / "rank1.log").stat().st_size
    assert len(sidecar.incidents()) == 1


class _Dcgm(BaseHTTPRequestHandler):
    xid = 0

    def do_GET(self) -> None:
        body = (
            "# TYPE DCGM_FI_DEV_XID_ERRORS gauge\n"
            f'DCGM_FI_DEV_XID_ERRORS{{gpu="0",UUID="GPU-1",pci_bus_id="00000000:3B:00.0",device="nvidia0",'
            f'modelName="NVIDIA H100 80GB HBM3",Hostname="node01"}} {type(self).xid}\n'
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/plain; version=0.0.4")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        return


def test_dcgm_xid_through_a_real_prometheus(tmp_path: Path, prometheus_server: PromServer,  # noqa: F811
                                            sidecars: list[SidecarProc]) -> None:
    """A stand-in DCGM exporter scraped by the real Prometheus; the sidecar queries DCGM series
    for its node; an Xid 79 on the GPU mapped to rank 2 becomes a gpu_hardware incident."""
    _Dcgm.xid = 0
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Dcgm)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        prometheus_server.set_targets([f"127.0.0.1:{server.server_address[1]}"])
        prometheus_server.wait_for('DCGM_FI_DEV_XID_ERRORS{Hostname="node01"}', timeout=30)
        logs = tmp_path / "logs"
        logs.mkdir()
        config = tmp_path / "watch.yaml"
        config.write_text(f"logs: [{logs}]\nnode: node01\nrank_gpus: ['2=0000:3b:00']\nnvml: false\n"
                          f"prometheus: {{url: '{prometheus_server.url}', interval_s: 0.5}}\n"
                          "processes: {enabled: false}\n")
        sidecar = SidecarProc(tmp_path, ["--config", str(config)])
        sidecars.append(sidecar)
        (logs / "rank2.log").write_text("2026-11-30 12:00:01,000 INFO [rank2] step 1 | loss 1.0\n")
        time.sleep(1.5)  # the sidecar's first answer is its baseline
        _Dcgm.xid = 79
        (incident,) = sidecar.wait_incidents(1, timeout=30)
        assert incident["cause"] == "gpu_hardware", brief(incident)
        assert incident["initiator"]["rank"] == 2 and incident["initiator"]["gpu"] == "0000:3b:00"
        assert sidecar.stop() == 0
    finally:
        server.shutdown()
        prometheus_server.set_targets([])
