"""GPU metric series from Prometheus query results (JSON) and CSV exports.

Accepted inputs (each read by its own module, :mod:`detector.sources.metrics_prometheus` and
:mod:`detector.sources.metrics_csv`, into samples that :mod:`detector.sources.metric_samples`
reads):

- Prometheus HTTP API answers to range and instant queries:
  ``{"status":"success","data":{"resultType":"matrix","result":[{"metric":{...},"values":[[ts,"v"],...]}]}}``
  (``"vector"`` results carry ``"value": [ts, "v"]``), the ``data`` object alone, or the bare
  ``result`` list;
- CSV in long form (``timestamp,name,gpu,Hostname,pci_bus_id,value``: a time column, a metric
  name column, a value column, every other column a label) or wide form (a time column, label
  columns, one column per metric), including ``nvidia-smi --query-gpu=... --format=csv`` output
  (``clocks.sm [MHz]`` headers, ``1980 MHz`` values, ``0x...`` bitmasks).

DCGM's blank sentinels (values >= 9223372036854775792) and non-finite values are dropped.
Both the legacy DCGM names and the DCGM 4.6 names pass through unchanged; the detectors map
them (detector.stats.gpu_metrics.SPECS). Anything unusable raises InputError.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from detector.errors import InputError
from detector.sources.metric_samples import Labels, Sample
from detector.sources.metrics_csv import csv_samples
from detector.sources.metrics_prometheus import prometheus_samples
from detector.sources.pci import normalize_pci

_HOST_LABELS = ("Hostname", "hostname", "host", "node", "nodename", "instance")
_PCI_LABELS = ("pci_bus_id", "pci.bus_id", "busid", "bus_id", "pci")
_UUID_LABELS = ("UUID", "uuid", "gpu_uuid")
_MODEL_LABELS = ("modelName", "model_name", "name")


@dataclass(frozen=True, slots=True, eq=False)
class MetricSeries:
    """One metric of one GPU (or other entity) over time; ``times`` are epoch seconds."""

    name: str
    labels: tuple[tuple[str, str], ...]
    times: NDArray[np.float64]
    values: NDArray[np.float64]

    def label(self, key: str) -> str | None:
        for name, value in self.labels:
            if name == key:
                return value
        return None

    def _first(self, keys: Iterable[str]) -> str | None:
        for key in keys:
            value = self.label(key)
            if value:
                return value
        return None

    @property
    def host(self) -> str | None:
        """The node: ``Hostname`` (dcgm-exporter before 2026-05), ``hostname`` (after), or a
        ``host``/``node``/``instance`` label (the port of an instance is dropped)."""
        value = self._first(_HOST_LABELS)
        if value is None:
            return None
        if self.label("Hostname") is None and self.label("hostname") is None and ":" in value:
            value = value.rsplit(":", 1)[0]
        return value

    @property
    def gpu_index(self) -> int | None:
        value = self._first(("gpu", "index", "gpu_index", "minor_number"))
        if value is not None and value.strip().isdigit():
            return int(value)
        device = self.label("device")
        if device and (match := re.fullmatch(r"nvidia(\d+)", device.strip())):
            return int(match.group(1))
        return None

    @property
    def pci(self) -> str | None:
        value = self._first(_PCI_LABELS)
        return normalize_pci(value) if value else None

    @property
    def uuid(self) -> str | None:
        return self._first(_UUID_LABELS)

    @property
    def model(self) -> str | None:
        return self._first(_MODEL_LABELS)


def _collect(samples: Iterable[Sample]) -> list[MetricSeries]:
    """One series per (name, labels), its points sorted by time."""
    points: dict[tuple[str, Labels], list[tuple[float, float]]] = {}
    for name, labels, time, value in samples:
        points.setdefault((name, labels), []).append((time, value))
    out = []
    for (name, labels), pairs in points.items():
        array = np.array(sorted(pairs), dtype=np.float64).reshape(-1, 2)
        out.append(MetricSeries(name, labels, array[:, 0].copy(), array[:, 1].copy()))
    return out


def parse_prometheus_json(text: str, *, where: str = "<metrics>") -> list[MetricSeries]:
    return _collect(prometheus_samples(text, where=where))


def parse_metrics_csv(text: str, *, where: str = "<metrics>") -> list[MetricSeries]:
    return _collect(csv_samples(text, where=where))


# --- files --------------------------------------------------------------------------------


def parse_metrics_text(text: str, *, where: str = "<metrics>") -> list[MetricSeries]:
    """JSON or CSV, by content."""
    head = text.lstrip()[:1]
    if head in ("{", "["):
        return parse_prometheus_json(text, where=where)
    return parse_metrics_csv(text, where=where)


def load_metrics(path: Path) -> list[MetricSeries]:
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(str(path), f"not UTF-8 text ({exc.reason} at byte {exc.start})") from exc
    except OSError as exc:
        raise InputError(str(path), f"cannot read: {exc.strerror or exc}") from exc
    return parse_metrics_text(text, where=str(path))


def merge_series(series: Iterable[MetricSeries]) -> list[MetricSeries]:
    """One series per (name, labels): samples of several files joined, sorted, de-duplicated."""
    groups: dict[tuple[str, tuple[tuple[str, str], ...]], list[MetricSeries]] = {}
    for item in series:
        groups.setdefault((item.name, item.labels), []).append(item)
    out = []
    for (name, labels), items in groups.items():
        times = np.concatenate([s.times for s in items])
        values = np.concatenate([s.values for s in items])
        order = np.argsort(times, kind="stable")
        times, values = times[order], values[order]
        keep = np.r_[True, np.diff(times) > 0] if times.size else np.zeros(0, dtype=np.bool_)
        out.append(MetricSeries(name, labels, times[keep], values[keep]))
    return out
