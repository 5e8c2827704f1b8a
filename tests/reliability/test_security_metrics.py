"""The metrics endpoint binds to loopback unless configured, and nothing else listens: the
sockets a running ``rankdoctor watch`` holds are read from /proc (TCP and UDP over IPv4 and
IPv6, and Unix sockets)."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from detector.sidecar.config import SidecarConfig, load_config
from tests.support.sidecar import REPO, SidecarProc

LISTEN_TCP = "0A"
UNIX_ACCEPTING = 0x10000


def _socket_inodes(pid: int) -> set[str]:
    out = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        with contextlib.suppress(OSError):
            target = os.readlink(fd)
            if target.startswith("socket:["):
                out.add(target[8:-1])
    return out


def _addr(hex_addr: str) -> str:
    ip, port = hex_addr.split(":")
    raw = bytes.fromhex(ip)
    if len(raw) == 4:
        host = socket.inet_ntop(socket.AF_INET, raw[::-1])
    else:
        host = socket.inet_ntop(socket.AF_INET6, b"".join(raw[i:i + 4][::-1] for i in range(0, 16, 4)))
    return f"{host}:{int(port, 16)}"


def listening(pid: int) -> list[str]:
    """What the process listens on: ``tcp 127.0.0.1:9108``, ``udp ...``, ``unix /path``."""
    inodes = _socket_inodes(pid)
    found = []
    for proto in ("tcp", "tcp6", "udp", "udp6"):
        table = Path(f"/proc/{pid}/net/{proto}")
        for line in table.read_text().splitlines()[1:]:
            cols = line.split()
            if cols[9] not in inodes:
                continue
            if proto.startswith("tcp") and cols[3] != LISTEN_TCP:
                continue  # a connection, not a listener
            found.append(f"{proto} {_addr(cols[1])}")
    for line in Path(f"/proc/{pid}/net/unix").read_text().splitlines()[1:]:
        cols = line.split()
        if cols[6] in inodes and int(cols[3], 16) & UNIX_ACCEPTING:
            found.append(f"unix {cols[7] if len(cols) > 7 else '(abstract)'}")
    return sorted(found)


@pytest.fixture()
def procs() -> Iterator[list[SidecarProc]]:
    started: list[SidecarProc] = []
    yield started
    for sc in started:
        sc.kill()


def test_default_metrics_address_is_loopback(tmp_path: Path) -> None:
    default = SidecarConfig().metrics_addr
    assert default is not None and default.startswith("127.0.0.1:")
    config = tmp_path / "watch.yaml"
    config.write_text("logs: [/tmp]\n")
    assert load_config(config, environ={}).metrics_endpoint() == ("127.0.0.1", 9108)


def _everything(tmp: Path) -> Path:
    """A sidecar with every source and a remediation section (with a webhook): still one
    listener."""
    logs = tmp / "logs"
    logs.mkdir()
    (logs / "rank_0.log").write_text("[rank0]: step 1 | loss 1\n")
    kern = tmp / "kern.log"
    kern.write_text("")
    config = tmp / "watch.yaml"
    config.write_text(json.dumps({
        "logs": [str(logs)], "kmsg": str(kern), "node": "node01",
        "prometheus": {"url": "http://127.0.0.1:9", "interval_s": 1, "timeout_s": 0.5},
        "remediation": {"state_dir": str(tmp / "rem"), "hooks": [{"type": "webhook", "url": "http://127.0.0.1:9/x"}]},
    }))
    return config


def test_only_the_metrics_endpoint_listens_on_loopback(tmp_path: Path, procs: list[SidecarProc]) -> None:
    sc = SidecarProc(tmp_path, ["--config", str(_everything(tmp_path)), "--state", str(tmp_path / "state")])
    procs.append(sc)
    time.sleep(1.0)  # every source started (NVML thread, pollers, watchdog)
    assert sc.metrics_url is not None
    port = sc.metrics_url.split(":")[2].split("/")[0]
    assert listening(sc.proc.pid) == [f"tcp 127.0.0.1:{port}"]
    assert "rankdoctor_source_up" in sc.metrics()


def test_no_metrics_means_no_listener(tmp_path: Path, procs: list[SidecarProc]) -> None:
    sc = SidecarProc(tmp_path, ["--config", str(_everything(tmp_path)), "--state", str(tmp_path / "state")],
                     metrics_addr="")
    procs.append(sc)
    time.sleep(1.0)
    assert listening(sc.proc.pid) == []


def test_default_address_when_nothing_is_configured(tmp_path: Path) -> None:
    """No --metrics-addr and none in the config: 127.0.0.1:9108."""
    with socket.socket() as probe:
        if probe.connect_ex(("127.0.0.1", 9108)) == 0:
            pytest.skip("port 9108 is taken on this machine")
    logs = tmp_path / "logs"
    logs.mkdir()
    proc = subprocess.Popen([sys.executable, "-m", "detector.cli", "watch", "--logs", str(logs), "--no-nvml",
                             "--no-remediate"], cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True)
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and listening(proc.pid) == []:
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            time.sleep(0.1)
        assert listening(proc.pid) == ["tcp 127.0.0.1:9108"]
    finally:
        os.killpg(proc.pid, 9)
        proc.wait(10)
