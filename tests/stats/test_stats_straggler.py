"""Straggler and job-slowdown detection on synthetic runs (stats.straggler, stats.slowdown)."""

from __future__ import annotations

import pytest

from detector.stats import StatsConfig, analyze, analyze_table
from detector.types import Cause, Role, Severity
from tests.support.stats import run_table, samples_of


def _rules(findings: list, rule: str) -> list:  # type: ignore[type-arg]
    return [f for f in findings if f.rule == rule]


def test_slow_rank_is_flagged_with_its_numbers() -> None:
    table = run_table(ranks=16, steps=300, slow_rank=5, slow_from=121, slow_factor=1.3)
    samples = samples_of(table, {r: f"node{r // 4}" for r in range(16)})
    findings = analyze(samples, [], end_time=float(table.times.max()))
    stragglers = _rules(findings, "stats.straggler")
    assert [f.rank for f in stragglers] == [5]
    f = stragglers[0]
    assert (f.role, f.cause, f.severity, f.node, f.local_rank) == (
        Role.INITIATOR,
        Cause.STRAGGLER,
        Severity.WARNING,
        "node1",
        1,
    )
    assert f.field("metric") == "fwd_s"
    assert float(f.field("change") or 0) == pytest.approx(0.3, abs=0.05)
    assert float(f.field("score") or 0) >= StatsConfig().z_threshold
    assert abs(int(f.field("step") or 0) - 121) <= 5  # where it began, finer than a window
    assert int(f.field("detected_step") or 0) - 121 <= 80
    assert f.field("ongoing") == "true"
    assert f.text.startswith("rank 5 fwd_ms median ")
    assert "consecutive windows of 20 steps since step" in f.text
    assert "its own earlier median" in f.text  # the individual score, from its own history
    assert f.file == "rank5.log"
    assert f.line == int(f.field("detected_step") or 0)
    assert _rules(findings, "stats.stall") == []


def test_healthy_run_has_no_findings() -> None:
    for seed in range(5):
        table = run_table(ranks=32, steps=400, seed=seed, jitter=0.08)
        assert analyze_table(table, [], end_time=float(table.times.max())) == []


def test_a_short_slow_spell_is_not_a_straggler() -> None:
    # two windows slower, then back to normal: fewer than `consecutive` windows
    table = run_table(ranks=16, steps=300, slow_rank=2, slow_from=101, slow_factor=1.5)
    table.local[(table.ranks == 2) & (table.steps > 140), 0] /= 1.5
    assert (
        _rules(analyze_table(table, [], end_time=float(table.times.max())), "stats.straggler") == []
    )


def test_timings_that_include_the_collective_are_not_used() -> None:
    # every rank but the slow one waits in the all-reduce, so their backward looks slow
    table = run_table(ranks=8, steps=300, slow_rank=0, slow_from=1, slow_factor=1.6)
    findings = _rules(
        analyze_table(table, [], end_time=float(table.times.max())), "stats.straggler"
    )
    assert [f.rank for f in findings] == [0]
    assert findings[0].field("metric") == "fwd_s"


def test_too_few_ranks_for_peers() -> None:
    table = run_table(ranks=2, steps=300, slow_rank=0, slow_from=1, slow_factor=2.0)
    assert (
        _rules(analyze_table(table, [], end_time=float(table.times.max())), "stats.straggler") == []
    )


def test_several_slow_ranks_on_one_node_are_counted() -> None:
    table = run_table(ranks=16, steps=300, slow_rank=4, slow_from=1, slow_factor=1.4)
    for rank in (5, 6):
        table.local[table.ranks == rank, 0] *= 1.4
    samples = samples_of(table, {r: f"node{r // 4}" for r in range(16)})
    stragglers = _rules(analyze(samples, [], end_time=float(table.times.max())), "stats.straggler")
    assert sorted(f.rank for f in stragglers) == [4, 5, 6]
    assert all(f.field("node_flagged") == "3/4" for f in stragglers)
    assert "3 of 4 ranks on node1 are flagged" in stragglers[0].text


def test_job_slowdown_with_its_start() -> None:
    table = run_table(ranks=8, steps=500, job_slow_from=301, job_slow_factor=1.2, jitter=0.04)
    findings = analyze_table(table, [], end_time=float(table.times.max()))
    slow = _rules(findings, "stats.slowdown")
    assert len(slow) == 1
    f = slow[0]
    assert (f.role, f.cause, f.rank) == (Role.CONTEXT, Cause.STRAGGLER, None)
    assert abs(int(f.field("step") or 0) - 301) <= 3
    assert 0 <= int(f.field("detected_step") or 0) - 301 <= 50
    assert float(f.field("change") or 0) == pytest.approx(0.2, abs=0.04)
    assert "job step time rose +" in f.text
    assert _rules(findings, "stats.straggler") == []


def test_single_long_steps_are_not_a_slowdown() -> None:
    table = run_table(ranks=8, steps=500, jitter=0.04)
    for step in (150, 151, 300, 420):  # a few slow steps, e.g. garbage collection
        table.durations[table.steps == step] *= 4.0
    assert (
        _rules(analyze_table(table, [], end_time=float(table.times.max())), "stats.slowdown") == []
    )
