"""Replay every scenario in replay_logs/ and compare the structured result with expected.json."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from detector.replay import replay_path
from detector.report.jsonfmt import report_to_dict
from detector.rules.engine import RuleSet
from tests.support.paths import REPLAY_LOGS

SCENARIOS = sorted(p for p in REPLAY_LOGS.iterdir() if (p / "expected.json").is_file())


def compare(report: dict[str, Any], expected: dict[str, Any]) -> list[str]:
    """Differences between a report and a scenario's expected.json (empty when it passes)."""
    problems: list[str] = []
    got = report["incidents"]
    want = expected["incidents"]
    if len(got) < len(want) or (len(got) > len(want) and not expected.get("allow_more_incidents")):
        problems.append(f"{len(got)} incidents, expected {len(want)}: " + ", ".join(
            f"{i['cause']}@rank {i['initiator']['rank']}" for i in got))
    for n, (g, w) in enumerate(zip(got, want, strict=False)):
        if g["cause"] != w["cause"]:
            problems.append(f"incident {n}: cause {g['cause']!r}, expected {w['cause']!r}")
        for key, value in (w.get("initiator") or {}).items():
            if g["initiator"].get(key) != value:
                problems.append(f"incident {n}: initiator.{key} {g['initiator'].get(key)!r}, expected {value!r}")
        if "collateral_ranks" in w and set(g["collateral_ranks"]) != set(w["collateral_ranks"]):
            problems.append(f"incident {n}: collateral {g['collateral_ranks']}, expected {w['collateral_ranks']}")
        if "collateral_ranks_include" in w and not set(w["collateral_ranks_include"]) <= set(g["collateral_ranks"]):
            problems.append(f"incident {n}: collateral {g['collateral_ranks']} lacks {w['collateral_ranks_include']}")
        if "drain_node" in w and g["remediation"]["drain_node"] != w["drain_node"]:
            problems.append(f"incident {n}: drain_node {g['remediation']['drain_node']}, expected {w['drain_node']}")
    return problems


def test_there_are_enough_scenarios() -> None:
    assert len(SCENARIOS) >= 20
    causes = {i["cause"] for p in SCENARIOS for i in json.loads((p / "expected.json").read_text())["incidents"]}
    from detector.types import Cause

    assert {c.value for c in Cause} <= causes, f"causes without a scenario: {sorted({c.value for c in Cause} - causes)}"
    healthy = [p for p in SCENARIOS if not json.loads((p / "expected.json").read_text())["incidents"]]
    assert len(healthy) >= 2


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[p.name for p in SCENARIOS])
def test_scenario(scenario: Path, ruleset: RuleSet) -> None:
    expected = json.loads((scenario / "expected.json").read_text())
    report = report_to_dict(replay_path(scenario, ruleset))
    assert report["schema"] == "rankdoctor.report/v1"
    problems = compare(report, expected)
    assert not problems, f"{scenario.name}: " + "; ".join(problems)


@pytest.mark.parametrize("scenario", SCENARIOS[::4], ids=[p.name for p in SCENARIOS[::4]])
def test_re_engine_gives_identical_reports(scenario: Path, ruleset: RuleSet, re_ruleset: RuleSet) -> None:
    a = report_to_dict(replay_path(scenario, ruleset))
    b = report_to_dict(replay_path(scenario, re_ruleset))
    assert a == b


def test_compare_detects_a_wrong_report() -> None:
    expected = {"incidents": [{"cause": "gpu_hardware", "initiator": {"rank": 3}, "drain_node": True}]}
    report = {"incidents": [{"cause": "python_exception", "initiator": {"rank": 2}, "collateral_ranks": [],
                             "remediation": {"drain_node": False}}]}
    problems = compare(report, expected)
    assert len(problems) == 3
