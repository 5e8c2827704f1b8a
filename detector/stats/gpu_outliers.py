"""GPU outliers: the GPU whose DCGM/NVML series deviate from the other GPUs of the job.

Per GPU and metric, one number over the time window (the median of a level; for the
clock-event bitmask, the share of samples with a slowdown bit set). Per metric, among GPUs of
the same model, a robust z: (value - median) / max(1.4826 MAD, floors). A GPU is an outlier on
a metric when |z| passes ``gpu_z_threshold`` in the harmful direction *and* the difference is
material (a few percent of clock, several degrees...). The finding quotes every deviating
metric with the GPU's value, its peers' median and the z.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from detector.sources.metrics import MetricSeries
from detector.types import RULE_GPU_OUTLIER

from .config import StatsConfig

RULE = RULE_GPU_OUTLIER

# clock-event reason bits that slow a GPU down (failure-signatures.md §2.2)
SLOWDOWN_BITS = {
    0x4: "power_cap",
    0x8: "hw_slowdown",
    0x20: "sw_thermal",
    0x40: "hw_thermal",
    0x80: "hw_power_brake",
}
_SLOWDOWN_MASK = sum(SLOWDOWN_BITS)
HARDWARE_REASONS = ("hw_slowdown", "hw_thermal", "hw_power_brake")


@dataclass(frozen=True, slots=True)
class MetricSpec:
    key: str
    names: tuple[str, ...]  # legacy DCGM, DCGM 4.6, nvidia-smi, NVML poller names
    label: str
    unit: str
    direction: int  # -1: low is harmful, +1: high is harmful, 0: either
    rel_floor: float  # MAD floor as a fraction of the median
    abs_floor: float  # MAD floor in the unit
    material_rel: float  # smallest relative difference reported
    material_abs: float  # smallest absolute difference reported
    performance: bool  # a deviation here slows the GPU (temperature alone does not)
    bits: bool = False  # a clock-event bitmask: summarised as a share of samples


SPECS: tuple[MetricSpec, ...] = (
    MetricSpec(
        "sm_clock",
        (
            "DCGM_FI_DEV_SM_CLOCK",
            "dcgm_sm_clock",
            "clocks.sm",
            "clocks.current.sm",
            "nvml_sm_clock_mhz",
            "sm_clock_mhz",
        ),
        "SM clock",
        "MHz",
        -1,
        0.01,
        5.0,
        0.05,
        0.0,
        True,
    ),
    MetricSpec(
        "clock_events",
        (
            "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS",
            "DCGM_FI_DEV_CLOCKS_EVENT_REASONS",
            "clocks_event_reasons.active",
            "clocks_throttle_reasons.active",
            "nvml_clocks_event_reasons",
        ),
        "slowdown clock-event reasons",
        "share of samples",
        1,
        0.0,
        0.02,
        0.0,
        0.1,
        True,
        bits=True,
    ),
    MetricSpec(
        "clock_event_count",
        ("DCGM_EXP_CLOCK_EVENTS_COUNT",),
        "slowdown clock events",
        "per window",
        1,
        0.0,
        0.5,
        0.0,
        1.0,
        True,
    ),
    MetricSpec(
        "power",
        (
            "DCGM_FI_DEV_POWER_USAGE",
            "DCGM_FI_DEV_BOARD_POWER_WATTS",
            "dcgm_power_usage",
            "power.draw",
            "nvml_power_w",
            "power_w",
        ),
        "power",
        "W",
        0,
        0.02,
        2.0,
        0.10,
        0.0,
        True,
    ),
    MetricSpec(
        "tensor_active",
        ("DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", "DCGM_FI_PROF_TENSOR_UTIL_RATIO"),
        "tensor activity",
        "ratio",
        0,
        0.0,
        0.02,
        0.10,
        0.05,
        True,
    ),
    MetricSpec(
        "gr_active",
        ("DCGM_FI_PROF_GR_ENGINE_ACTIVE", "DCGM_FI_PROF_GR_ENGINE_UTIL_RATIO"),
        "graphics engine activity",
        "ratio",
        0,
        0.0,
        0.02,
        0.10,
        0.05,
        True,
    ),
    MetricSpec(
        "sm_active",
        ("DCGM_FI_PROF_SM_ACTIVE", "DCGM_FI_PROF_SM_UTIL_RATIO"),
        "SM activity",
        "ratio",
        0,
        0.0,
        0.02,
        0.10,
        0.05,
        True,
    ),
    MetricSpec(
        "gpu_util",
        (
            "DCGM_FI_DEV_GPU_UTIL",
            "DCGM_FI_DEV_GPU_UTIL_RATIO",
            "dcgm_gpu_utilization",
            "utilization.gpu",
            "nvml_gpu_util",
        ),
        "GPU utilisation",
        "%",
        0,
        0.02,
        1.0,
        0.15,
        0.0,
        True,
    ),
    MetricSpec(
        "gpu_temp",
        (
            "DCGM_FI_DEV_GPU_TEMP",
            "DCGM_FI_DEV_GPU_TEMP_CELSIUS",
            "dcgm_gpu_temp",
            "temperature.gpu",
            "nvml_temperature_c",
        ),
        "GPU temperature",
        "°C",
        1,
        0.0,
        1.5,
        0.0,
        8.0,
        False,
    ),
    MetricSpec(
        "mem_temp",
        ("DCGM_FI_DEV_MEMORY_TEMP", "DCGM_FI_DEV_MEMORY_TEMP_CELSIUS", "temperature.memory"),
        "memory temperature",
        "°C",
        1,
        0.0,
        1.5,
        0.0,
        8.0,
        False,
    ),
)


def spec_for(name: str) -> MetricSpec | None:
    for spec in SPECS:
        if name in spec.names:
            return spec
    return None


@dataclass(frozen=True, slots=True, order=True)
class GpuId:
    host: str
    pci: str  # normalised PCI id, or "" when unknown
    index: int  # -1 when unknown
    uuid: str

    def describe(self) -> str:
        where = f" on {self.host}" if self.host else ""
        gpu = f"GPU {self.index}" if self.index >= 0 else "GPU"
        pci = f" ({self.pci})" if self.pci else ""
        return f"{gpu}{where}{pci}"


def gpu_id(series: MetricSeries) -> GpuId | None:
    host = short_host(series.host)
    pci = series.pci or ""
    index = series.gpu_index
    uuid = series.uuid or ""
    if not pci and index is None and not uuid:
        return None
    return GpuId(host, pci, -1 if index is None else index, uuid)


def short_host(host: str | None) -> str:
    """Host names compared without domain and case: ``Node07.cluster.local`` -> ``node07``."""
    if not host:
        return ""
    return host.strip().split(".")[0].lower()


@dataclass(frozen=True, slots=True)
class Deviation:
    key: str
    label: str
    unit: str
    value: float
    peers: float
    z: float
    performance: bool
    detail: str = ""  # e.g. which clock-event reasons


@dataclass(frozen=True, slots=True)
class GpuOutlier:
    gpu: GpuId
    model: str
    deviations: tuple[Deviation, ...]
    n_peers: int
    window: tuple[float, float]

    @property
    def hardware(self) -> bool:
        """Whether the GPU reported a hardware slowdown (HW slowdown, HW thermal or HW power
        brake clock-event reasons): evidence that the machine, not the job, is to blame."""
        return any(
            d.key in ("clock_events", "clock_event_count") and any(name in d.detail for name in HARDWARE_REASONS)
            for d in self.deviations
        )

    @property
    def primary(self) -> Deviation:
        perf = [d for d in self.deviations if d.performance] or list(self.deviations)
        return max(perf, key=lambda d: abs(d.z))


def _summarise(
    series: MetricSeries, spec: MetricSpec, start: float, end: float, min_points: int
) -> tuple[float, int] | None:
    mask = (series.times >= start) & (series.times <= end)
    values = series.values[mask]
    if values.size < min_points:
        return None
    if spec.bits:
        bits = values.astype(np.int64) & _SLOWDOWN_MASK
        share = float(np.mean(bits != 0))
        seen = int(np.bitwise_or.reduce(bits)) if bits.size else 0
        return share, seen
    return float(np.median(values)), 0


def detect_gpu_outliers(
    metrics: Sequence[MetricSeries], config: StatsConfig, window: tuple[float, float] | None = None
) -> list[GpuOutlier]:
    if not metrics:
        return []
    if window is not None:
        found = _detect(metrics, config, window)
        if found is not None:
            return found
    start = min((float(s.times[0]) for s in metrics if s.times.size), default=0.0)
    end = max((float(s.times[-1]) for s in metrics if s.times.size), default=0.0)
    return _detect(metrics, config, (start, end)) or []


def _detect(
    metrics: Sequence[MetricSeries], config: StatsConfig, window: tuple[float, float]
) -> list[GpuOutlier] | None:
    """None when the window holds too few samples to compare GPUs."""
    start, end = window
    # (spec key, model) -> gpu -> (value, bits)
    table: dict[tuple[str, str], dict[GpuId, tuple[float, int]]] = {}
    specs = {spec.key: spec for spec in SPECS}
    models: dict[GpuId, str] = {}
    for series in metrics:
        spec = spec_for(series.name)
        ident = gpu_id(series)
        if spec is None or ident is None:
            continue
        if (
            spec.key == "clock_event_count"
            and series.label("clock_event") not in SLOWDOWN_BITS.values()
        ):
            continue
        summary = _summarise(series, spec, start, end, config.min_metric_points)
        if summary is None:
            continue
        model = series.model or ""
        models.setdefault(ident, model)
        cell = table.setdefault((spec.key, model), {})
        if spec.key == "clock_event_count":
            # one series per reason: add them up, and remember which reasons occurred
            bit = next(b for b, name in SLOWDOWN_BITS.items() if name == series.label("clock_event"))
            seen = bit if summary[0] > 0 else 0
            old_value, old_bits = cell.get(ident, (0.0, 0))
            cell[ident] = (old_value + summary[0], old_bits | seen)
        else:
            cell.setdefault(ident, summary)
    if not any(len(cell) >= config.min_gpus for cell in table.values()):
        return None
    found: dict[GpuId, list[Deviation]] = {}
    peers_count: dict[GpuId, int] = {}
    for (key, _model), cell in sorted(table.items()):
        if len(cell) < config.min_gpus:
            continue
        spec = specs[key]
        ids = sorted(cell)
        values = np.array([cell[i][0] for i in ids])
        median = float(np.median(values))
        mad = 1.4826 * float(np.median(np.abs(values - median)))
        scale = max(mad, spec.rel_floor * abs(median), spec.abs_floor)
        z = (values - median) / scale
        diff = values - median
        for i, ident in enumerate(ids):
            harmful = z[i] if spec.direction == 0 else spec.direction * z[i]
            if spec.direction == 0:
                harmful = abs(harmful)
            if harmful < config.gpu_z_threshold:
                continue
            if abs(diff[i]) < spec.material_abs:
                continue
            if median != 0 and abs(diff[i]) / abs(median) < spec.material_rel:
                continue
            detail = ""
            if cell[ident][1]:
                detail = ",".join(
                    name for bit, name in sorted(SLOWDOWN_BITS.items()) if cell[ident][1] & bit
                )
            found.setdefault(ident, []).append(
                Deviation(
                    spec.key,
                    spec.label,
                    spec.unit,
                    float(values[i]),
                    median,
                    float(z[i]),
                    spec.performance,
                    detail,
                )
            )
            peers_count[ident] = max(peers_count.get(ident, 0), len(ids) - 1)
    outliers = [
        GpuOutlier(ident, models.get(ident, ""), tuple(devs), peers_count[ident], (start, end))
        for ident, devs in found.items()
    ]
    outliers.sort(key=lambda o: (not o.primary.performance, -abs(o.primary.z)))
    return outliers


def deviation_text(d: Deviation) -> str:
    """One metric's evidence: the GPU's value, its peers' median, the difference and the z."""
    z = f"robust z {d.z:.1f}"
    if d.key == "clock_events":
        reasons = f" ({d.detail})" if d.detail else ""
        return (
            f"slowdown clock-event reasons{reasons} in {d.value:.0%} of samples "
            f"vs {d.peers:.0%} on peers ({z})"
        )
    if d.unit == "ratio":
        return f"{d.label} {d.value:.2f} vs peers {d.peers:.2f} ({d.value - d.peers:+.2f}, {z})"
    if d.unit == "°C":
        diff = d.value - d.peers
        return f"{d.label} {d.value:.0f} °C vs peers {d.peers:.0f} °C ({diff:+.0f} °C, {z})"
    rel = f"{(d.value - d.peers) / d.peers:+.1%}, " if d.peers else ""
    return f"{d.label} {d.value:.4g} {d.unit} vs peers {d.peers:.4g} {d.unit} ({rel}{z})"
