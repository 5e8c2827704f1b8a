"""GPU outliers: the GPU whose DCGM/NVML series deviate from the other GPUs of the job.

Per GPU and metric, one number over the time window (the median of a level; for the
clock-event bitmask, the share of samples with a slowdown bit set). Per metric, among GPUs of
the same model, a robust z: (value - median) / max(1.4826 MAD, floors). A GPU is an outlier on
a metric when |z| passes ``gpu_z_threshold`` in the harmful direction *and* the difference is
material (a few percent of clock, several degrees...). The finding quotes every deviating
metric with the GPU's value, its peers' median and the z. Which metrics are compared, under
which names and with which floors: :mod:`detector.stats.gpu_metrics`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from detector.sources.metrics import MetricSeries
from detector.types import RULE_GPU_OUTLIER

from .config import StatsConfig
from .gpu_metrics import HARDWARE_REASONS, SLOWDOWN_BITS, SLOWDOWN_MASK, SPECS, MetricSpec, spec_for

RULE = RULE_GPU_OUTLIER


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
        bits = values.astype(np.int64) & SLOWDOWN_MASK
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
