"""deploy/grafana: the dashboard is provisioning-ready JSON (a datasource variable, panels with
targets on a 24-column grid, every variable defined), every query is valid PromQL (promtool
parses it), and every metric name in it — and in the alerting rules — is one that a running
``rankdoctor watch`` exports (scraped from its /metrics), one of the DCGM exporter's, or one
Prometheus makes itself."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import yaml
from prometheus_client.parser import text_string_to_metric_families

from tests.deploy.promql import (
    DASHBOARD,
    DCGM_SERIES,
    DEPLOY,
    PROMETHEUS_SERIES,
    alert_exprs,
    dashboard_exprs,
    dashboard_targets,
    load_dashboard,
    metric_names,
    run_promtool,
    substitute,
)
from tests.support.sidecar import SidecarProc

PROVISIONING = DEPLOY / "grafana" / "provisioning"


@pytest.fixture(scope="module")
def dashboard() -> dict[str, Any]:
    return load_dashboard()


def variables(dashboard: dict[str, Any]) -> dict[str, str]:
    return {v["name"]: ".*" for v in dashboard["templating"]["list"]}


def test_dashboard_is_provisioning_ready(dashboard: dict[str, Any]) -> None:
    assert dashboard["uid"] == "rankdoctor-sidecar" and dashboard["title"]
    assert isinstance(dashboard["schemaVersion"], int) and dashboard["schemaVersion"] >= 36
    assert "id" not in dashboard or dashboard["id"] is None  # provisioning assigns the id
    templating = {v["name"]: v for v in dashboard["templating"]["list"]}
    ds = templating["datasource"]
    assert ds["type"] == "datasource" and ds["query"] == "prometheus"
    for name in ("training_job", "node"):
        assert templating[name]["type"] == "query" and templating[name]["includeAll"]
        assert templating[name]["datasource"]["uid"] == "${datasource}"
    ids: set[int] = set()
    cells: set[tuple[int, int]] = set()
    queries = 0
    for panel in dashboard["panels"]:
        assert panel["id"] not in ids, f"panel id {panel['id']} twice"
        ids.add(panel["id"])
        grid = panel["gridPos"]
        assert grid["x"] >= 0 and grid["x"] + grid["w"] <= 24 and grid["h"] > 0, panel["title"]
        for x in range(grid["x"], grid["x"] + grid["w"]):
            for y in range(grid["y"], grid["y"] + grid["h"]):
                assert (x, y) not in cells, f"panel {panel['title']!r} overlaps another at {x},{y}"
                cells.add((x, y))
        if panel["type"] == "row":
            continue
        assert panel["datasource"] == {"type": "prometheus", "uid": "${datasource}"}, panel["title"]
        assert panel["targets"], f"panel {panel['title']!r} has no query"
        refs = [t["refId"] for t in panel["targets"]]
        assert len(refs) == len(set(refs)), panel["title"]
        for target in panel["targets"]:
            assert target["expr"].strip() and target["datasource"]["uid"] == "${datasource}"
            queries += 1
    assert queries >= 20


def test_dashboard_covers_each_area(dashboard: dict[str, Any]) -> None:
    used = {name for _where, expr in dashboard_exprs(dashboard) for name in metric_names(substitute(expr, variables(dashboard)))}
    for name in ("rankdoctor_incidents_total", "rankdoctor_rank_last_step",
                 "rankdoctor_rank_last_progress_timestamp_seconds", "rankdoctor_rank_first_error_timestamp_seconds",
                 "rankdoctor_source_up", "rankdoctor_remediation_actions_total",
                 "rankdoctor_remediation_decisions_total", "rankdoctor_remediation_last_failure_timestamp_seconds",
                 "DCGM_FI_DEV_XID_ERRORS"):
        assert name in used, f"the dashboard does not show {name}"
    rows = [p["title"] for p in dashboard["panels"] if p["type"] == "row"]
    assert rows[:5] == ["Incidents", "Per-rank progress", "Source health", "Remediation", "Latency"]


def test_provisioning_files() -> None:
    provider = yaml.safe_load((PROVISIONING / "dashboards" / "rankdoctor.yaml").read_text())
    assert provider["apiVersion"] == 1
    (entry,) = provider["providers"]
    assert entry["type"] == "file" and entry["options"]["path"].startswith("/")
    datasource = yaml.safe_load((PROVISIONING / "datasources" / "prometheus.yaml").read_text())
    assert datasource["datasources"][0]["type"] == "prometheus"


def test_metric_names_are_read_from_promql() -> None:
    expr = ('sum by (a) (rate(x_total{b="c_total"}[5m])) / on () group_left () max(y offset 10m) '
            'or vector(0) and time() - z{q=~"$node"} > bool 3')
    assert metric_names(substitute(expr, {"node": ".*"})) == {"x_total", "y", "z"}
    with pytest.raises(KeyError, match="undefined variable"):
        substitute("up{job=\"$nope\"}", {})


def test_every_query_is_valid_promql(dashboard: dict[str, Any], tmp_path: Path) -> None:
    values = variables(dashboard)
    rules = [{"record": f"rankdoctor:dashboard:q{n}", "expr": substitute(expr, values)}
             for n, (_where, expr) in enumerate(dashboard_exprs(dashboard))]
    path = tmp_path / "dashboard-queries.yaml"
    path.write_text(yaml.safe_dump({"groups": [{"name": "dashboard", "rules": rules}]}))
    res = run_promtool("check", "rules", str(path))
    assert res.returncode == 0, res.stdout + res.stderr
    wheres = [w for w, _e in dashboard_exprs(dashboard)]
    assert f"SUCCESS: {len(wheres)} rules found" in res.stdout


# --- against a real sidecar's /metrics ---------------------------------------------------


def exported_names(text: str) -> set[str]:
    """The series names of a /metrics page: families with or without samples yet (a labelled
    counter has none before its first count); a counter's samples are NAME_total / _created."""
    names: set[str] = set()
    for family in text_string_to_metric_families(text):
        names.add(family.name)
        if family.type == "counter":
            names.update({f"{family.name}_total", f"{family.name}_created"})
        elif family.type in ("histogram", "summary"):
            names.update({f"{family.name}_bucket", f"{family.name}_sum", f"{family.name}_count"})
        names.update(s.name for s in family.samples)
    return names


@pytest.fixture(scope="module")
def sidecar_metrics(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The /metrics page of ``rankdoctor watch`` following two ranks, one of which failed."""
    tmp = tmp_path_factory.mktemp("sidecar")
    logs = tmp / "logs"
    logs.mkdir()
    now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    for rank in range(2):
        (logs / f"rank_{rank}.log").write_text("".join(f"{now} [rank{rank}]: step {i} | loss 1.0\n" for i in range(6)))
    sidecar = SidecarProc(tmp, ["--logs", str(logs), "--no-nvml", "--no-remediate", "--state", str(tmp / "state"),
                                "--node", "node01", "--job", "train-42", "--settle", "0.2"])
    try:
        with (logs / "rank_1.log").open("a") as fh:
            fh.write(f"{now} [rank1]: RuntimeError: CUDA error: an illegal memory access was encountered\n")
        sidecar.wait_incidents(1, timeout=60)
        deadline = time.monotonic() + 10
        text = sidecar.metrics()
        while "rankdoctor_incidents_total{" not in text and time.monotonic() < deadline:
            time.sleep(0.1)
            text = sidecar.metrics()
        yield text
    finally:
        sidecar.stop()


def test_the_sidecar_exports_what_the_checks_expect(sidecar_metrics: str) -> None:
    names = exported_names(sidecar_metrics)
    assert "rankdoctor_incidents_total" in {s.name for f in text_string_to_metric_families(sidecar_metrics)
                                            for s in f.samples}
    assert {"rankdoctor_source_up", "rankdoctor_rank_info", "rankdoctor_remediation_actions_total"} <= names
    assert "rankdoctor_incident_total" not in names  # a typo is not waved through


@pytest.mark.parametrize("source", ["dashboard", "alerts"])
def test_every_metric_used_is_exported(source: str, sidecar_metrics: str, dashboard: dict[str, Any]) -> None:
    exported = exported_names(sidecar_metrics)
    exprs = dashboard_exprs(dashboard) if source == "dashboard" else alert_exprs()
    unknown = []
    for where, expr in exprs:
        for name in metric_names(substitute(expr, variables(dashboard))):
            if name.startswith("rankdoctor_"):
                ok = name in exported
            elif name.startswith("DCGM_"):
                ok = name in DCGM_SERIES
            else:
                ok = name in PROMETHEUS_SERIES
            if not ok:
                unknown.append(f"{where}: {name}")
    assert not unknown, "metric names nobody exports:\n" + "\n".join(unknown)


def test_legend_labels_exist(dashboard: dict[str, Any]) -> None:
    """A legend names only labels its query keeps (a `by (...)` list, or all of a raw series)."""
    for title, target in dashboard_targets(dashboard):
        legend = set(re.findall(r"\{\{\s*(\w+)\s*\}\}", target.get("legendFormat", "")))
        grouped = re.search(r"\bby \(([^)]*)\)", target["expr"])
        if legend and grouped and target["expr"].lstrip().startswith(("sum", "max", "min", "avg", "count")):
            kept = {label.strip() for label in grouped.group(1).split(",")}
            assert legend <= kept, f"{title!r}: legend {sorted(legend)} but the query keeps {sorted(kept)}"
    assert DASHBOARD.read_text().endswith("\n")
