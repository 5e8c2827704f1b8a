"""GPU outliers from DCGM/NVML series, and their join to ranks (stats.gpu_outliers)."""

from __future__ import annotations

import numpy as np
import pytest

from detector.sources.metrics import MetricSeries
from detector.stats import StatsConfig, analyze, analyze_table
from detector.stats.gpu_outliers import detect_gpu_outliers
from detector.types import Cause, Role, Severity
from tests.support.stats import T0, run_table, samples_of

PCI = ["00000000:1B:00.0", "00000000:43:00.0", "00000000:52:00.0", "00000000:61:00.0"]


def _fleet(
    *,
    bad: tuple[int, int] | None = (1, 2),
    legacy: bool = True,
    other_model: tuple[int, int] | None = None,
    seed: int = 0,
) -> list[MetricSeries]:
    """8 GPUs on node0/node1, 60 samples each (every 10 s) of clock, power, temperature, reasons."""
    rng = np.random.default_rng(seed)
    times = T0 + 10.0 * np.arange(60, dtype=np.float64)
    names = (
        (
            "DCGM_FI_DEV_SM_CLOCK",
            "DCGM_FI_DEV_POWER_USAGE",
            "DCGM_FI_DEV_GPU_TEMP",
            "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS",
        )
        if legacy
        else (
            "DCGM_FI_DEV_SM_CLOCK",
            "DCGM_FI_DEV_BOARD_POWER_WATTS",
            "DCGM_FI_DEV_GPU_TEMP_CELSIUS",
            "DCGM_FI_DEV_CLOCKS_EVENT_REASONS",
        )
    )
    host_label = "Hostname" if legacy else "hostname"
    out = []
    for node in range(2):
        for gpu in range(4):
            is_bad = bad == (node, gpu)
            a100 = other_model == (node, gpu)
            clock = rng.normal(1400 if is_bad or a100 else 1980, 8, 60)
            power = rng.normal(450 if is_bad else 650, 10, 60)
            temp = rng.normal(88 if is_bad else 66 + node * 3, 1.0, 60)
            reasons = np.where(rng.random(60) < (0.9 if is_bad else 0.0), 0x40, 0) | np.where(
                rng.random(60) < 0.05, 0x1, 0
            )
            labels = tuple(
                sorted(
                    {
                        "gpu": str(gpu),
                        "UUID": f"GPU-{node}{gpu}",
                        "pci_bus_id": PCI[gpu],
                        "device": f"nvidia{gpu}",
                        "modelName": "NVIDIA A100-SXM4-80GB" if a100 else "NVIDIA H100 80GB HBM3",
                        host_label: f"node{node}.cluster.local",
                    }.items()
                )
            )
            for name, values in zip(
                names, (clock, power, temp, reasons.astype(float)), strict=True
            ):
                out.append(MetricSeries(name, labels, times, np.asarray(values, dtype=np.float64)))
    return out


def test_the_throttled_gpu_is_the_outlier_with_its_numbers() -> None:
    [outlier] = detect_gpu_outliers(_fleet(), StatsConfig())
    assert (outlier.gpu.host, outlier.gpu.index, outlier.gpu.pci) == ("node1", 2, "0000:52:00")
    keys = {d.key for d in outlier.deviations}
    assert {"sm_clock", "clock_events", "power", "gpu_temp"} <= keys
    assert outlier.primary.key in {"sm_clock", "clock_events", "power"}
    clock = next(d for d in outlier.deviations if d.key == "sm_clock")
    assert clock.value == pytest.approx(1400, abs=10)
    assert clock.peers == pytest.approx(1980, abs=10)
    assert clock.z < -20
    reasons = next(d for d in outlier.deviations if d.key == "clock_events")
    assert reasons.detail == "hw_thermal"


def test_dcgm_4_6_names_and_lowercase_hostname() -> None:
    [outlier] = detect_gpu_outliers(_fleet(legacy=False), StatsConfig())
    assert (outlier.gpu.host, outlier.gpu.index) == ("node1", 2)


def test_healthy_fleet_and_node_temperature_differences_are_quiet() -> None:
    for seed in range(5):
        assert detect_gpu_outliers(_fleet(bad=None, seed=seed), StatsConfig()) == []


def test_gpus_are_compared_within_their_model() -> None:
    # one A100 among H100s runs a lower clock by design: it has no peers of its model
    assert detect_gpu_outliers(_fleet(bad=None, other_model=(1, 3)), StatsConfig()) == []


def test_gpu_finding_fields() -> None:
    findings = analyze([], _fleet(), end_time=None)
    [f] = findings
    assert (f.rule, f.role, f.cause, f.severity) == (
        "stats.gpu_outlier",
        Role.CONTEXT,
        Cause.STRAGGLER,
        Severity.WARNING,
    )
    assert (f.node, f.gpu, f.field("gpu_index"), f.field("pci")) == (
        "node1",
        "0000:52:00",
        "2",
        "0000:52:00",
    )
    assert float(f.field("sm_clock_peers") or 0) == pytest.approx(1980, abs=10)
    assert float(f.field("clock_events") or 0) == pytest.approx(0.9, abs=0.1)
    assert float(f.field("score") or 0) != 0
    assert (
        "GPU 2 on node1 (0000:52:00) (NVIDIA H100 80GB HBM3) deviates from its 7 peers: " in f.text
    )
    assert "SM clock" in f.text
    assert "hw_thermal" in f.text


def test_hardware_reasons_mark_hardware_evidence() -> None:
    [thermal] = analyze([], _fleet(), end_time=None)
    assert thermal.field("hardware") == "true"  # HW thermal slowdown: the machine is to blame
    assert thermal.confidence >= 0.9
    capped = _fleet()
    for i, series in enumerate(capped):
        if series.name == "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS" and series.values.max() > 0x1:
            bits = series.values.astype(np.int64)
            bits = np.where(bits & 0x40, (bits & ~0x40) | 0x4, bits)  # a software power cap instead
            capped[i] = MetricSeries(series.name, series.labels, series.times, bits.astype(np.float64))
    [power_cap] = analyze([], capped, end_time=None)
    assert power_cap.field("hardware") == "false"
    assert "power_cap" in power_cap.text


def _straggler_on_node1_gpu2() -> list:  # type: ignore[type-arg]
    # ranks 0-7 on node0/node1, local rank = rank % 4; rank 6 is node1's local rank 2
    table = run_table(ranks=8, steps=300, slow_rank=6, slow_from=1, slow_factor=1.4)
    return samples_of(table, {r: f"node{r // 4}" for r in range(8)})


def test_straggler_points_at_its_gpu_by_host_and_local_rank() -> None:
    samples = _straggler_on_node1_gpu2()
    findings = analyze(samples, _fleet(), end_time=samples[-1].time)
    straggler = next(f for f in findings if f.rule == "stats.straggler")
    assert (straggler.rank, straggler.node, straggler.gpu) == (6, "node1", "0000:52:00")
    assert straggler.field("gpu_metric") in {"sm_clock", "clock_events", "power"}
    assert "its GPU 2 on node1 (0000:52:00) deviates:" in straggler.text
    gpu = next(f for f in findings if f.rule == "stats.gpu_outlier")
    assert gpu.rank == 6
    assert "it runs rank 6" in gpu.text


def test_straggler_points_at_its_gpu_by_pci_from_the_logs() -> None:
    samples = _straggler_on_node1_gpu2()
    # NCCL said rank 6 sits on busId 52000: the join uses it even if local ranks were unknown
    findings = analyze(samples, _fleet(), end_time=samples[-1].time, rank_gpus={6: "52000"})
    straggler = next(f for f in findings if f.rule == "stats.straggler")
    assert straggler.gpu == "0000:52:00"
    assert straggler.field("gpu_score") is not None


def test_no_metrics_no_gpu_findings() -> None:
    table = run_table(ranks=8, steps=120)
    assert analyze_table(table, [], end_time=float(table.times.max())) == []
