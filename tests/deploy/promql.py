"""Helpers for the deploy tests (no tests here): the PromQL of the Grafana dashboard and of the
alerting rules, the metric names it uses, and ``promtool``."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.support.paths import ROOT

DEPLOY = ROOT / "deploy"
DASHBOARD = DEPLOY / "grafana" / "dashboards" / "rankdoctor.json"
ALERTS = DEPLOY / "prometheus" / "rankdoctor-alerts.yaml"
ALERT_TESTS = DEPLOY / "prometheus" / "rankdoctor-alerts.test.yaml"

# Grafana's built-in variables, with a value that makes the query valid PromQL
GRAFANA_BUILTINS = {"__rate_interval": "1m", "__interval": "1m", "__range": "1h", "__range_s": "3600"}
# series Prometheus makes itself (scrape health, alert state), not exported by any target
PROMETHEUS_SERIES = {"up", "scrape_duration_seconds", "scrape_samples_scraped", "ALERTS", "ALERTS_FOR_STATE"}
# the DCGM exporter's series the dashboard shows, legacy and DCGM 4.6 names (dcgm-exporter's
# default-counters.csv; shared/reference/failure-signatures.md section 2.2)
DCGM_SERIES = {
    "DCGM_FI_DEV_XID_ERRORS", "DCGM_FI_DEV_XID_ERROR", "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL",
    "DCGM_FI_DEV_ROW_REMAP_FAILURE", "DCGM_FI_DEV_ROW_REMAP_FAILED", "DCGM_FI_DEV_PCIE_REPLAY_COUNTER",
    "DCGM_FI_DEV_GPU_TEMP", "DCGM_FI_DEV_POWER_USAGE", "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE",
    "DCGM_FI_PROF_GR_ENGINE_ACTIVE",
}
_KEYWORDS = {"and", "or", "unless", "by", "without", "on", "ignoring", "group_left", "group_right", "offset",
             "bool", "inf", "nan", "atan2"}
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|`[^`]*`')
_LABEL_LIST = re.compile(r"\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^()]*\)")
_IDENT = re.compile(r"(?<![A-Za-z0-9_:.$])[A-Za-z_:][A-Za-z0-9_:]*")
_VARIABLE = re.compile(r"\$\{(\w+)(?::\w+)?\}|\$(\w+)")


def load_dashboard() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(DASHBOARD.read_text(encoding="utf-8"))
    return data


def dashboard_targets(dashboard: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """(panel title, target) for every query of every panel, rows' nested panels included."""
    for panel in dashboard["panels"]:
        for inner in [panel, *panel.get("panels", [])]:
            for target in inner.get("targets", []):
                yield inner["title"], target


def dashboard_exprs(dashboard: dict[str, Any]) -> list[tuple[str, str]]:
    """(where, PromQL) of every query: panel targets, template variables, annotations."""
    out = [(f"panel {title!r} {t['refId']}", t["expr"]) for title, t in dashboard_targets(dashboard)]
    for var in dashboard["templating"]["list"]:
        if var["type"] == "query":
            query = var["query"]["query"] if isinstance(var["query"], dict) else var["query"]
            m = re.fullmatch(r"label_values\((.*),\s*\w+\)", query)
            assert m, f"variable {var['name']}: not a label_values() query: {query}"
            out.append((f"variable {var['name']}", m.group(1)))
    for ann in dashboard["annotations"]["list"]:
        if "expr" in ann:
            out.append((f"annotation {ann['name']!r}", ann["expr"]))
    return out


def alert_exprs() -> list[tuple[str, str]]:
    data = yaml.safe_load(ALERTS.read_text(encoding="utf-8"))
    return [(f"alert {rule['alert']}", rule["expr"]) for group in data["groups"] for rule in group["rules"]]


def substitute(expr: str, variables: dict[str, str]) -> str:
    """Grafana variables replaced by values (defined ones by ``.*``); an unknown one raises."""
    def value(m: re.Match[str]) -> str:
        name = m.group(1) or m.group(2)
        if name in GRAFANA_BUILTINS:
            return GRAFANA_BUILTINS[name]
        if name in variables:
            return variables[name]
        raise KeyError(f"undefined variable ${name} in {expr!r}")

    return _VARIABLE.sub(value, expr)


def metric_names(expr: str) -> set[str]:
    """The metric names a PromQL expression selects (strings, label matchers, ranges, label
    lists, functions, aggregations and keywords taken out)."""
    text = _STRING.sub('""', expr)
    text = re.sub(r"\{[^{}]*\}", " ", text)
    text = re.sub(r"\[[^\[\]]*\]", " ", text)
    text = _LABEL_LIST.sub(" ", text)
    names = set()
    for m in _IDENT.finditer(text):
        word = m.group(0)
        if text[m.end():].lstrip().startswith("(") or word.lower() in _KEYWORDS:
            continue  # a function or aggregation call, or a keyword
        names.add(word)
    return names


def promtool() -> str:
    tool = shutil.which("promtool")
    if tool is None:
        pytest.skip("promtool is missing (it ships with the Debian package prometheus; "
                    "scripts/setup-system.sh installs it)")
    return tool


def run_promtool(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([promtool(), *args], capture_output=True, text=True, timeout=120, cwd=cwd,
                          stdin=subprocess.DEVNULL, check=False)
