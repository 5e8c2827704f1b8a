"""A job slowdown fused with a GPU outlier (issue 13 item 3): in synchronous data parallel every
rank slows with the slowest GPU, so the logs say that the job slowed and only the GPU metrics say
which GPU. The fused incident names that GPU's rank, node and PCI id (straggler), drained only
with hardware evidence; a GPU whose deviation cannot account for the slowdown (a few power-cap
dips) is not named, and a pause that resumed is no slowdown."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from detector.attribution.attribute import attribute
from detector.pipeline.steps import MANY_FILES_BUDGET, MAX_STEP_LINES, MIN_STEP_LINES, STEP_LINE_BUDGET, step_line_cap
from detector.replay import replay_path
from detector.rules.engine import RuleSet
from detector.types import (
    RULE_GPU_OUTLIER,
    RULE_SLOWDOWN,
    RULE_STALL,
    Cause,
    Finding,
    RankInfo,
    Role,
    RunFacts,
    Severity,
)
from tests.support.paths import REPLAY_LOGS

T = datetime(2026, 12, 2, 9, 30, tzinfo=UTC)


def _slowdown(change: float = 0.18, step: int = 1010) -> Finding:
    return Finding(RULE_SLOWDOWN, Role.CONTEXT, Cause.STRAGGLER, Severity.WARNING,
                   f"job step time rose {change:+.1%}", time=T,
                   fields=(("change", str(change)), ("step", str(step)), ("detected_step", str(step + 120))))


def _outlier(gpu: str, node: str, index: int, *, clock: float | None = None, share: float | None = None,
             reasons: str = "", hardware: bool = False, power: float | None = None, rank: int | None = None,
             time: datetime = T + timedelta(minutes=10)) -> Finding:
    fields: list[tuple[str, str]] = [("hardware", "true" if hardware else "false"), ("gpu_index", str(index)),
                                     ("peers", "63")]
    parts = []
    if share is not None:
        fields += [("clock_events", str(share)), ("clock_events_peers", "0")]
        parts.append(f"slowdown clock-event reasons ({reasons}) in {share:.0%} of samples vs 0% on peers (robust z 9)")
    if clock is not None:
        fields += [("sm_clock", str(clock)), ("sm_clock_peers", "1980")]
        parts.append(f"SM clock {clock:.0f} MHz vs peers 1980 MHz")
    if power is not None:
        fields += [("power", str(power)), ("power_peers", "620")]
        parts.append(f"power {power:.0f} W vs peers 620 W")
    fields.append(("score", "9"))
    confidence = 0.9 if hardware else 0.7
    text = f"GPU {index} on {node} ({gpu}) deviates from its 63 peers: " + "; ".join(parts)
    return Finding(RULE_GPU_OUTLIER, Role.CONTEXT, Cause.STRAGGLER, Severity.WARNING, text, time=time,
                   rank=rank, node=node, gpu=gpu, fields=tuple(fields), confidence=confidence)


RANKS = {
    r: RankInfo(r, local_rank=r % 8, node=f"gpu-{17 + r // 8:03d}", gpu=None)
    for r in range(64)
}


def _facts(*findings: Finding, ranks: dict[int, RankInfo] = RANKS) -> RunFacts:
    return RunFacts(tuple(findings), ranks, 64)


def test_a_throttled_gpu_names_its_rank_node_and_pci_id_and_is_drained() -> None:
    hot = _outlier("0000:ab:00", "gpu-020", 5, clock=1353, share=1.0, reasons="sw_thermal,hw_thermal", hardware=True)
    [incident] = attribute(_facts(_slowdown(), hot))
    assert incident.cause is Cause.STRAGGLER
    ini = incident.initiator
    assert (ini.rank, ini.node, ini.gpu) == (29, "gpu-020", "0000:ab:00")  # joined by host + GPU index
    assert incident.remediation.drain_node
    assert "every rank's step time rose +18% from step 1010" in incident.explanation
    assert "hw_thermal" in incident.explanation
    assert {f.rule for f in incident.evidence} == {RULE_SLOWDOWN, RULE_GPU_OUTLIER}


def test_the_rank_comes_from_nccl_bus_ids_when_the_logs_give_them() -> None:
    ranks = dict(RANKS)
    ranks[44] = RankInfo(44, local_rank=4, node="gpu-022", gpu="0000:9a:00")
    hot = _outlier("0000:9a:00", "gpu-022", 7, clock=1353, share=1.0, reasons="hw_thermal", hardware=True)
    [incident] = attribute(_facts(_slowdown(), hot, ranks=ranks))
    assert incident.initiator.rank == 44  # the bus id wins over the index


def test_a_slow_clock_without_hardware_reasons_is_named_but_not_drained() -> None:
    slow = _outlier("0000:3a:00", "gpu-018", 2, clock=1500, share=0.9, reasons="sw_thermal")
    [incident] = attribute(_facts(_slowdown(), slow))
    assert incident.initiator.gpu == "0000:3a:00"
    assert not incident.remediation.drain_node


@pytest.mark.parametrize(
    "noise",
    [
        {"share": 0.12, "reasons": "power_cap"},  # a few power-cap dips in a short window
        {"clock": 1940},  # 2 % under its peers: cannot hold an 18 % slowdown back
        {"power": 540},  # power alone
    ],
)
def test_a_gpu_that_cannot_account_for_the_slowdown_is_not_named(noise: dict[str, object]) -> None:
    quiet = _outlier("0000:ba:00", "gpu-021", 6, **noise)  # type: ignore[arg-type]
    assert attribute(_facts(_slowdown(), quiet)) == []


def test_only_the_hardware_throttled_gpu_is_named_beside_a_noisy_one() -> None:
    hot = _outlier("0000:ab:00", "gpu-020", 5, clock=1353, share=1.0, reasons="hw_thermal", hardware=True)
    warm = _outlier("0000:18:00", "gpu-017", 0, clock=1700, share=0.6, reasons="sw_thermal")
    incidents = attribute(_facts(_slowdown(), warm, hot))
    assert [i.initiator.gpu for i in incidents] == ["0000:ab:00"]


def test_a_pause_that_resumed_is_no_slowdown() -> None:
    recovered = Finding(RULE_STALL, Role.CONTEXT, Cause.HANG, Severity.WARNING, "step progress paused 300 s",
                        time=T, fields=(("recovered", "true"),), confidence=0.3)
    slow = _outlier("0000:3a:00", "gpu-018", 2, clock=1500, share=0.9, reasons="sw_thermal")
    assert attribute(_facts(recovered, slow)) == []


def test_a_deviation_that_ended_long_before_the_slowdown_explains_nothing() -> None:
    old = _outlier("0000:ab:00", "gpu-020", 5, clock=1353, share=1.0, reasons="hw_thermal", hardware=True,
                   time=T - timedelta(hours=2))
    assert attribute(_facts(_slowdown(), old)) == []


def test_no_slowdown_no_incident() -> None:
    hot = _outlier("0000:ab:00", "gpu-020", 5, clock=1353, share=1.0, reasons="hw_thermal", hardware=True)
    assert attribute(_facts(hot)) == []


# --- the step history replay keeps ------------------------------------------------------------


def test_few_printing_files_keep_a_long_history() -> None:
    assert step_line_cap(0) == MAX_STEP_LINES
    assert step_line_cap(128) == MAX_STEP_LINES  # the large-run cost is unchanged
    assert step_line_cap(64) == STEP_LINE_BUDGET // 64
    assert step_line_cap(8) == 1000
    assert step_line_cap(1) == 1000


def test_many_printing_files_share_a_bounded_budget() -> None:
    assert step_line_cap(MANY_FILES_BUDGET // MAX_STEP_LINES) == MAX_STEP_LINES
    assert step_line_cap(1024) == 64  # three straggler windows of 20 each rank
    assert step_line_cap(16_384) == MIN_STEP_LINES
    assert step_line_cap(200_000) == MIN_STEP_LINES
    for files in (500, 1024, 4096, 16_384):  # the lines parsed stay within the budget
        assert files * step_line_cap(files) <= MANY_FILES_BUDGET


# --- the committed scenarios, through the whole replay -----------------------------------------


def test_throttled_gpu_scenario(ruleset: RuleSet) -> None:
    report = replay_path(REPLAY_LOGS / "throttled_gpu_sync_slowdown_64r", ruleset)
    [incident] = report.incidents
    assert incident.cause is Cause.STRAGGLER
    ini = incident.initiator
    assert (ini.rank, ini.node, ini.gpu) == (29, "gpu-020", "0000:ab:00")
    assert incident.remediation.drain_node
    slowdown = next(f for f in incident.evidence if f.rule == RULE_SLOWDOWN)
    onset = 1000
    assert 0 <= int(slowdown.field("detected_step") or 0) - onset <= 200
    outlier = next(f for f in incident.evidence if f.rule == RULE_GPU_OUTLIER)
    assert outlier.field("hardware") == "true"
    assert float(outlier.field("sm_clock") or 0) == pytest.approx(1350, abs=30)


def test_healthy_noisy_metrics_scenario(ruleset: RuleSet) -> None:
    assert replay_path(REPLAY_LOGS / "healthy_gpu_metric_noise_64r", ruleset).incidents == ()


def test_a_job_slowed_elsewhere_names_no_gpu(ruleset: RuleSet, tmp_path: Path) -> None:
    """The same run whose job slows 18 % for a reason outside the GPUs, with power-cap dips
    and a briefly hot GPU: a slowdown is seen, no GPU is blamed."""
    import sys

    from tests.support.paths import ROOT

    sys.path.insert(0, str(ROOT / "scripts"))
    from scenarios.throttle import ThrottleRun, build_throttle_run
    from scenarios.writer import Scenario

    sc = Scenario("test_fusion_elsewhere", datetime(2026, 12, 7, 8, 0, tzinfo=UTC))
    build_throttle_run(sc, ThrottleRun(gpu_cause=False, clock_dips=0.03))
    sc.logs.write(tmp_path / "run")
    report = replay_path(tmp_path / "run", ruleset)
    assert report.incidents == ()


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_stalled_rank_among_many_per_rank_logs_is_found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          ruleset: RuleSet, jobs: str) -> None:
    """450 per-rank logs (past the many-files budget: each file's history is cut to 145 step
    lines, by the workers too): the rank whose steps stop first is the hang's initiator."""
    monkeypatch.setenv("RANKDOCTOR_JOBS", jobs)
    files = 450
    assert step_line_cap(files) < MAX_STEP_LINES
    for r in range(files):
        node = tmp_path / "run" / f"node{r // 8:03d}"
        node.mkdir(parents=True, exist_ok=True)
        # (the others wait for it a step later, until their watchdog gives up: no rank of a
        # synchronous job falls far behind the others and lives)
        last = 190 if r == 123 else 191
        (node / f"rank{r}.log").write_text("".join(
            f"[rank{r}]:2026-11-30 10:{i // 60:02d}:{i % 60:02d},000 INFO step {i} | loss 1.0 | step_ms 800\n"
            for i in range(last)) + ("" if r == 123 else f"[rank{r}]:2026-11-30 10:13:10,000 INFO waiting for the all-reduce\n"))
    report = replay_path(tmp_path / "run", ruleset)
    assert report.summary.ranks == files
    [incident] = report.incidents
    assert incident.cause is Cause.HANG
    assert incident.initiator.rank == 123
    assert incident.initiator.node == "node015"
    assert len(incident.collateral_ranks) == files - 1
