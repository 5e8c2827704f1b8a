"""deploy/prometheus: the alerting rules pass ``promtool check rules`` and their unit tests
(``promtool test rules``), the unit tests catch a broken rule, and in a real Prometheus that
scrapes a running ``rankdoctor watch`` the incident alert fires after a failure line is written
into a followed log. Skips, saying why, where promtool or prometheus is missing."""

from __future__ import annotations

import contextlib
import json
import shutil
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from tests.deploy.promql import ALERT_TESTS, ALERTS, run_promtool
from tests.support.prometheus import free_port
from tests.support.sidecar import SidecarProc

PROM_CONFIG = """\
global:
  scrape_interval: 1s
  scrape_timeout: 900ms
  evaluation_interval: 1s
rule_files: ["{rules}"]
scrape_configs:
  - job_name: rankdoctor
    static_configs:
      - targets: ["{target}"]
"""


def test_promtool_check_rules() -> None:
    res = run_promtool("check", "rules", str(ALERTS))
    assert res.returncode == 0, res.stdout + res.stderr
    assert "SUCCESS: 6 rules found" in res.stdout


def test_promtool_unit_tests_pass() -> None:
    res = run_promtool("test", "rules", str(ALERT_TESTS))
    assert res.returncode == 0, res.stdout + res.stderr
    assert "SUCCESS" in res.stdout


@pytest.mark.parametrize("broken", [
    # increase() alone misses a cause's first incident (a new series, already at 1)
    ("(rankdoctor_incidents_total unless rankdoctor_incidents_total offset 10m)\n            or\n", ""),
    # a source down alerts after a minute, not ten
    ("expr: rankdoctor_source_up == 0\n        for: 1m", "expr: rankdoctor_source_up == 0\n        for: 10m"),
])
def test_the_unit_tests_catch_a_broken_rule(broken: tuple[str, str], tmp_path: Path) -> None:
    old, new = broken
    text = ALERTS.read_text()
    assert old in text
    (tmp_path / ALERTS.name).write_text(text.replace(old, new))
    shutil.copy(ALERT_TESTS, tmp_path / ALERT_TESTS.name)
    res = run_promtool("test", "rules", str(tmp_path / ALERT_TESTS.name))
    assert res.returncode != 0 and "FAILED" in res.stdout + res.stderr, res.stdout


# --- a real Prometheus scraping a real sidecar ---------------------------------------------


class Prometheus:
    def __init__(self, base: Path, target: str, rules: Path) -> None:
        binary = shutil.which("prometheus")
        if binary is None:
            pytest.skip("the 'prometheus' binary is missing (Debian package prometheus; "
                        "scripts/setup-system.sh installs it)")
        self.url = f"http://127.0.0.1:{free_port()}"
        config = base / "prometheus.yml"
        config.write_text(PROM_CONFIG.format(rules=rules, target=target))
        self.log = base / "prometheus.log"
        with self.log.open("wb") as log:
            self.proc = subprocess.Popen(
                [binary, f"--config.file={config}", f"--storage.tsdb.path={base / 'data'}",
                 f"--web.listen-address={self.url.removeprefix('http://')}", "--log.level=warn"],
                stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
        self.wait(lambda: self.get("/-/ready") is not None, 20, "ready")

    def get(self, path: str) -> Any:
        try:
            with urllib.request.urlopen(self.url + path, timeout=5) as resp:
                body = resp.read()
        except (urllib.error.URLError, OSError):
            return None
        return json.loads(body) if path.startswith("/api/") else body

    def query(self, promql: str) -> list[dict[str, Any]]:
        data = self.get("/api/v1/query?" + urllib.parse.urlencode({"query": promql}))
        return list(data["data"]["result"]) if data else []

    def alerts(self) -> list[dict[str, Any]]:
        data = self.get("/api/v1/alerts")
        return list(data["data"]["alerts"]) if data else []

    def wait(self, done: Any, timeout: float, what: str) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"prometheus exited: {self.log.read_text()[-2000:]}")
            if done():
                return
            time.sleep(0.25)
        raise AssertionError(f"prometheus: not {what} within {timeout} s; log:\n{self.log.read_text()[-2000:]}")

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=5)


@pytest.fixture
def sidecar(tmp_path: Path) -> Iterator[tuple[SidecarProc, Path]]:
    logs = tmp_path / "logs"
    logs.mkdir()
    now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    for rank in range(2):
        (logs / f"rank_{rank}.log").write_text("".join(f"{now} [rank{rank}]: step {i} | loss 1.0\n" for i in range(6)))
    proc = SidecarProc(tmp_path, ["--logs", str(logs), "--no-nvml", "--no-remediate", "--state", str(tmp_path / "state"),
                                  "--node", "node01", "--job", "train-42", "--settle", "0.2"])
    try:
        yield proc, logs
    finally:
        proc.stop()


def test_incident_alert_fires_in_a_real_prometheus(sidecar: tuple[SidecarProc, Path], tmp_path: Path) -> None:
    proc, logs = sidecar
    assert proc.metrics_url is not None
    target = urllib.parse.urlsplit(proc.metrics_url).netloc
    rules = tmp_path / ALERTS.name
    shutil.copy(ALERTS, rules)
    prom = Prometheus(tmp_path, target, rules)
    try:
        prom.wait(lambda: [r for r in prom.query('up{job="rankdoctor"}') if r["value"][1] == "1"], 60, "scraping the sidecar")
        prom.wait(lambda: prom.query('rankdoctor_source_up{source="logs"}'), 30, "holding the sidecar's series")
        assert not [a for a in prom.alerts() if a["labels"]["alertname"] == "RankdoctorIncident"]

        with (logs / "rank_1.log").open("a") as fh:  # rank 1 fails
            now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
            fh.write(f"{now} [rank1]: RuntimeError: CUDA error: an illegal memory access was encountered\n")
        (incident,) = proc.wait_incidents(1, timeout=60)

        def firing() -> list[dict[str, Any]]:
            return [a for a in prom.alerts()
                    if a["labels"]["alertname"] == "RankdoctorIncident" and a["state"] == "firing"]

        started = time.monotonic()
        prom.wait(firing, 60, "firing RankdoctorIncident")
        (alert,) = firing()
        assert alert["labels"]["cause"] == incident["cause"] == "illegal_memory_access"
        assert alert["labels"]["node"] == "node01" and alert["labels"]["training_job"] == "train-42"
        assert alert["labels"]["severity"] == "critical"
        assert "illegal_memory_access incident in job train-42" in alert["annotations"]["summary"]
        assert time.monotonic() - started < 30  # scrape 1 s + evaluation 1 s, with room for a busy machine
        others = {a["labels"]["alertname"] for a in prom.alerts()} - {"RankdoctorIncident"}
        assert not others, f"unexpected alerts: {others}"
    finally:
        with contextlib.suppress(Exception):
            prom.stop()
