"""Dependencies failing: Prometheus slow (10 s answers) or answering garbage, NVML raising on
every call, a remediation hook that hangs, fails or floods its output, the state databases
locked or corrupt. In every case a CUDA error written to a rank log still becomes an incident
within seconds, and the failure shows in ``/metrics`` (``rankdoctor_source_up`` 0) or, for
remediation, in the audit log. (Prometheus *down* is tests/sidecar/test_sidecar_survival.py.)"""

from __future__ import annotations

import http.server
import json
import re
import sqlite3
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest

from detector.remediation.exec.process import SubprocessRunner
from tests.support.nvml import RaisingNvml
from tests.support.sidecar import SidecarProc, inprocess, make_logs, metric, scrape

ERROR = "2026-11-29T12:00:09Z [rank1]: RuntimeError: CUDA error: an illegal memory access was encountered\n"


class _Prom(http.server.BaseHTTPRequestHandler):
    mode = "slow"
    answers: ClassVar[list[bytes]] = [b"<html>502 Bad Gateway</html>", b"\x00\xff\xfe garbage", b'{"status": "success"}',
               b'{"status": "success", "data": {"resultType": "vector", "result": [1, "x", null, {"metric": 5}]}}',
               b'{"status": "success", "data": {"resultType": "vector", "result": [{"metric": {}, "value": [1, "NaN"]}]}}',
               b'{"status": "error", "errorType": "bad_data", "error": "x"}', b"[" * 50_000, b"{}" * 10]
    served = 0

    def do_GET(self) -> None:
        _Prom.served += 1
        if _Prom.mode == "slow":
            time.sleep(10)
        body = _Prom.answers[_Prom.served % len(_Prom.answers)]
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_POST = do_GET

    def log_message(self, format: str, *args: object) -> None:
        return


@pytest.fixture()
def bad_prometheus() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Prom)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture()
def procs() -> Iterator[list[SidecarProc]]:
    started: list[SidecarProc] = []
    yield started
    for sc in started:
        sc.kill()


def _fail(logs: Path) -> None:
    with open(logs / "rank_1.log", "a") as fh:
        fh.write(ERROR)


@pytest.mark.parametrize("mode", ["slow", "garbage"])
def test_prometheus_slow_or_garbage(tmp_path: Path, procs: list[SidecarProc], bad_prometheus: str, mode: str) -> None:
    _Prom.mode = mode
    logs = make_logs(tmp_path)
    config = tmp_path / "watch.yaml"
    config.write_text(json.dumps({"logs": [str(logs)], "node": "node01", "nvml": False, "remediate": False,
                                  "processes": {"enabled": False}, "detection": {"settle_s": 0.2},
                                  "prometheus": {"url": bad_prometheus, "interval_s": 0.2, "timeout_s": 1.0}}))
    sc = SidecarProc(tmp_path, ["--config", str(config), "--state", str(tmp_path / "state")])
    procs.append(sc)
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and metric(sc.metrics(), "rankdoctor_source_up", source="prometheus") != 0:
        time.sleep(0.2)
    assert metric(sc.metrics(), "rankdoctor_source_up", source="prometheus") == 0  # visible
    started = time.monotonic()
    _fail(logs)
    (incident,) = sc.wait_incidents(1, timeout=15)
    assert time.monotonic() - started < 10  # detection goes on, not held up by the poller
    assert incident["cause"] == "illegal_memory_access"
    assert metric(sc.metrics(), "rankdoctor_source_up", source="logs") == 1
    assert sc.proc.poll() is None


def _incidents(tmp: Path, timeout: float) -> list[dict[str, Any]]:
    path = tmp / "incidents.jsonl"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and path.read_text().strip():
            return [json.loads(x) for x in path.read_text().splitlines() if x.strip()]
        time.sleep(0.1)
    return []


def test_nvml_raising_on_every_call(tmp_path: Path) -> None:
    logs = make_logs(tmp_path)
    sidecar, thread, _err = inprocess(tmp_path, logs, nvml=True, nvml_poll_s=0.1)
    try:
        time.sleep(1.0)
        _fail(logs)
        found = _incidents(tmp_path, 10)
        assert found and found[0]["cause"] == "illegal_memory_access"  # detection goes on
        assert RaisingNvml.calls > 0
        assert metric(scrape(sidecar), "rankdoctor_source_up", source="nvml") == 0  # and it shows
    finally:
        sidecar.request_stop()
        thread.join(20)


# --- remediation hooks --------------------------------------------------------------------

HOOKS = {
    "hang": "import time; time.sleep(600)",
    "fail": "import sys; print('drain refused: permission denied', file=sys.stderr); sys.exit(3)",
    "garbage": "import os, sys; os.write(1, os.urandom(1 << 16)); os.write(2, b'\\xff\\xfe\\x00' * 1000)",
}


@pytest.mark.parametrize("kind", sorted(HOOKS))
def test_hook_that_hangs_fails_or_returns_garbage(tmp_path: Path, procs: list[SidecarProc], kind: str) -> None:
    """The hook runs off the detection path: the incident is reported at once, a second one
    (another rank, later) too; the hook's failure is in the audit log."""
    logs = make_logs(tmp_path)
    hook = tmp_path / "hook.py"
    hook.write_text(HOOKS[kind])
    config = tmp_path / "watch.yaml"
    config.write_text(json.dumps({
        "logs": [str(logs)], "node": "node01", "nvml": False, "processes": {"enabled": False}, "act": True,
        "detection": {"settle_s": 0.2, "recovery_s": 1.0},
        "remediation": {"state_dir": str(tmp_path / "rem"), "hook_retries": 0, "verify": {"enabled": False},
                        "hooks": [{"type": "command", "actions": ["notify"], "timeout_s": 2,
                                   "argv": [sys.executable, str(hook)]}]}}))
    sc = SidecarProc(tmp_path, ["--config", str(config), "--state", str(tmp_path / "state")])
    procs.append(sc)
    started = time.monotonic()
    _fail(logs)
    sc.wait_incidents(1, timeout=10)
    assert time.monotonic() - started < 5
    audit = tmp_path / "rem" / "audit.jsonl"
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and not (audit.exists() and audit.read_text().strip()):
        time.sleep(0.2)
    record = json.loads(audit.read_text().splitlines()[0])
    (action,) = record["actions"]
    assert action["status"] == {"hang": "timeout", "fail": "failed", "garbage": "ok"}[kind], action
    assert sc.proc.poll() is None


def test_hook_output_is_bounded(tmp_path: Path) -> None:
    """A hook that writes 256 MiB to stdout: the runner keeps only a bounded part of it (the
    whole output used to be held in memory, twice: bytes and decoded text)."""
    import resource

    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    result = SubprocessRunner()([sys.executable, "-c", "import os\nfor _ in range(256): os.write(1, b'x' * (1 << 20))"],
                                timeout=60)
    grown_mib = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert result.ok
    assert len(result.stdout) <= 2 << 20
    assert grown_mib < 100, f"peak memory grew by {grown_mib:.0f} MiB"


def test_hook_failures_show_in_metrics(tmp_path: Path, procs: list[SidecarProc]) -> None:
    logs = make_logs(tmp_path)
    hook = tmp_path / "hook.py"
    hook.write_text(HOOKS["fail"])
    config = tmp_path / "watch.yaml"
    config.write_text(json.dumps({
        "logs": [str(logs)], "node": "node01", "nvml": False, "processes": {"enabled": False}, "act": True,
        "detection": {"settle_s": 0.2},
        "remediation": {"state_dir": str(tmp_path / "rem"), "hook_retries": 0, "verify": {"enabled": False},
                        "hooks": [{"type": "command", "actions": ["notify"], "argv": [sys.executable, str(hook)]}]}}))
    sc = SidecarProc(tmp_path, ["--config", str(config), "--state", str(tmp_path / "state")])
    procs.append(sc)
    _fail(logs)
    sc.wait_incidents(1, timeout=10)
    time.sleep(1)
    assert re.search(r"^rankdoctor_remediation\w*\{[^}]*(failed|status)", sc.metrics(), re.M)


# --- state databases ------------------------------------------------------------------------


def test_remediation_state_locked(tmp_path: Path, procs: list[SidecarProc]) -> None:
    """Another process holds the remediation database's write lock: detection and the
    incident file are unaffected; the decision waits (or fails into the audit log)."""
    logs = make_logs(tmp_path)
    rem = tmp_path / "rem"
    config = tmp_path / "watch.yaml"
    config.write_text(json.dumps({
        "logs": [str(logs)], "node": "node01", "nvml": False, "processes": {"enabled": False}, "act": True,
        "detection": {"settle_s": 0.2},
        "remediation": {"state_dir": str(rem), "verify": {"enabled": False},
                        "hooks": [{"type": "command", "actions": ["notify"], "argv": ["/bin/true"]}]}}))
    sc = SidecarProc(tmp_path, ["--config", str(config), "--state", str(tmp_path / "state")])
    procs.append(sc)
    lock = sqlite3.connect(rem / "state.sqlite3", isolation_level=None)
    lock.execute("BEGIN EXCLUSIVE")
    try:
        started = time.monotonic()
        _fail(logs)
        sc.wait_incidents(1, timeout=10)
        assert time.monotonic() - started < 5
        assert metric(sc.metrics(), "rankdoctor_source_up", source="logs") == 1
    finally:
        lock.execute("ROLLBACK")
        lock.close()


def test_sidecar_state_locked(tmp_path: Path, procs: list[SidecarProc]) -> None:
    logs = make_logs(tmp_path)
    sc = SidecarProc(tmp_path, ["--logs", str(logs), "--no-nvml", "--no-remediate", "--state", str(tmp_path / "state")])
    procs.append(sc)
    lock = sqlite3.connect(tmp_path / "state" / "sidecar.sqlite3", isolation_level=None)
    lock.execute("BEGIN EXCLUSIVE")
    try:
        time.sleep(1.1)  # one offset save (every 1 s) is waiting on the lock
        started = time.monotonic()
        _fail(logs)
        sc.wait_incidents(1, timeout=4)
        assert time.monotonic() - started < 5
        text = sc.metrics()
        assert metric(text, "rankdoctor_source_up", source="logs") == 1
        assert metric(text, "rankdoctor_source_up", source="state") == 0  # the failure is visible
    finally:
        lock.execute("ROLLBACK")
        lock.close()


@pytest.mark.parametrize("which", ["sidecar", "remediation"])
def test_corrupt_state_database(tmp_path: Path, procs: list[SidecarProc], which: str) -> None:
    logs = make_logs(tmp_path)
    state, rem = tmp_path / "state", tmp_path / "rem"
    state.mkdir()
    rem.mkdir()
    target = state / "sidecar.sqlite3" if which == "sidecar" else rem / "state.sqlite3"
    target.write_bytes(b"SQLite format 3\x00" + b"\xde\xad\xbe\xef" * 4096)
    config = tmp_path / "watch.yaml"
    config.write_text(json.dumps({
        "logs": [str(logs)], "node": "node01", "nvml": False, "processes": {"enabled": False},
        "detection": {"settle_s": 0.2},
        "remediation": {"state_dir": str(rem), "verify": {"enabled": False},
                        "hooks": [{"type": "command", "actions": ["notify"], "argv": ["/bin/true"]}]}}))
    sc = SidecarProc(tmp_path, ["--config", str(config), "--state", str(state)], ready_timeout=20)
    procs.append(sc)
    _fail(logs)
    assert sc.wait_incidents(1, timeout=10)
    assert "corrupt" in sc.stderr() or "malformed" in sc.stderr() or "not a database" in sc.stderr()
