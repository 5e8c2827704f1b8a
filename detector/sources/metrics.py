"""GPU metric series from Prometheus query results (JSON) and CSV exports.

Accepted inputs:

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
them (detector.stats.gpu_outliers.SPECS). Anything unusable raises InputError.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from detector.errors import InputError
from detector.sources.pci import normalize_pci

DCGM_BLANK_MIN = 9223372036854775792  # 0x7ffffffffffffff0: DCGM's int64 "blank" range starts here
_BLANK_FLOAT = float(DCGM_BLANK_MIN)

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


def _is_blank(number: float) -> bool:
    return number >= _BLANK_FLOAT


def _value(text: object) -> float | None:
    """A sample value; None for blanks, sentinels, N/A and non-finite values."""
    if isinstance(text, bool):
        return None
    if isinstance(text, int | float):
        number = float(text)
    elif isinstance(text, str):
        raw = text.strip()
        if not raw:
            return None
        if raw.isdigit() and int(raw) >= DCGM_BLANK_MIN:
            return None
        if raw.lower().startswith("0x"):
            try:
                return float(int(raw, 16))
            except ValueError:
                return None
        match = re.match(
            r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?|[-+]?(?:inf|nan)", raw, re.IGNORECASE
        )
        if match is None:
            return None
        number = float(match.group(0))
    else:
        return None
    if not math.isfinite(number) or _is_blank(number):
        return None
    return number


def _timestamp(text: object) -> float | None:
    """Epoch seconds from a number (seconds, or ms/us/ns when that large), ISO-8601 or
    nvidia-smi's ``2026/11/30 12:00:01.123`` (times without a zone are UTC)."""
    if isinstance(text, int | float) and not isinstance(text, bool):
        number = float(text)
    elif isinstance(text, str):
        raw = text.strip()
        if not raw:
            return None
        try:
            number = float(raw)
        except ValueError:
            try:
                moment = datetime.fromisoformat(raw.replace("/", "-").replace("Z", "+00:00"))
            except ValueError:
                return None
            if moment.tzinfo is None:
                moment = moment.replace(tzinfo=UTC)
            return moment.timestamp()
    else:
        return None
    if not math.isfinite(number):
        return None
    # seconds since 1970 stay below 1e11 until the year 5138: larger numbers are finer units
    for limit, divisor in ((1e17, 1e9), (1e14, 1e6), (1e11, 1e3)):
        if abs(number) >= limit:
            return number / divisor
    return number


class _Collector:
    def __init__(self) -> None:
        self.points: dict[tuple[str, tuple[tuple[str, str], ...]], list[tuple[float, float]]] = {}

    def add(
        self, name: str, labels: tuple[tuple[str, str], ...], time: float, value: float
    ) -> None:
        self.points.setdefault((name, labels), []).append((time, value))

    def series(self) -> list[MetricSeries]:
        out = []
        for (name, labels), points in self.points.items():
            array = np.array(sorted(points), dtype=np.float64).reshape(-1, 2)
            out.append(MetricSeries(name, labels, array[:, 0].copy(), array[:, 1].copy()))
        return out


# --- Prometheus JSON ----------------------------------------------------------------------


def parse_prometheus_json(text: str, *, where: str = "<metrics>") -> list[MetricSeries]:
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(
            where, f"not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
        ) from exc
    except ValueError as exc:  # an integer of more than 4300 digits
        raise InputError(where, f"not usable JSON: {str(exc)[:120]}") from None
    except RecursionError:
        raise InputError(where, "JSON nested too deeply") from None
    result = _result_list(document, where)
    collector = _Collector()
    for index, item in enumerate(result):
        if not isinstance(item, dict) or not isinstance(item.get("metric", {}), dict):
            raise InputError(where, f"result[{index}] is not an object with a 'metric' object")
        metric = item.get("metric", {})
        name = str(metric.get("__name__", ""))
        labels = tuple(sorted((str(k), str(v)) for k, v in metric.items() if k != "__name__"))
        if "values" in item:
            pairs = item["values"]
        elif "value" in item:
            pairs = [item["value"]]
        else:
            raise InputError(where, f"result[{index}] has neither 'values' nor 'value'")
        if not isinstance(pairs, list):
            raise InputError(where, f"result[{index}]: 'values' is not a list")
        for pair in pairs:
            if not isinstance(pair, list | tuple) or len(pair) != 2:
                raise InputError(
                    where, f"result[{index}]: a sample is not a [time, value] pair: {pair!r:.80}"
                )
            moment = _timestamp(pair[0])
            if moment is None:
                raise InputError(where, f"result[{index}]: bad sample time {pair[0]!r:.40}")
            value = _value(pair[1])
            if value is not None:
                collector.add(name, labels, moment, value)
    return collector.series()


def _result_list(document: object, where: str) -> list[object]:
    if isinstance(document, list):
        return document
    if not isinstance(document, dict):
        raise InputError(where, "expected a Prometheus query result (an object or a list)")
    if document.get("status") == "error":
        kind = document.get("errorType", "error")
        raise InputError(where, f"the query failed ({kind}): {document.get('error', 'no message')}")
    data = document.get("data", document)
    if not isinstance(data, dict) or "result" not in data:
        raise InputError(where, "no 'data.result' in the document: not a Prometheus query result")
    if data.get("resultType") in ("scalar", "string"):
        raise InputError(where, f"a {data['resultType']} result has no series")
    result = data["result"]
    if not isinstance(result, list):
        raise InputError(where, "'data.result' is not a list")
    return result


# --- CSV ----------------------------------------------------------------------------------

_TIME_COLUMNS = ("timestamp", "time", "ts", "datetime", "date", "@timestamp", "epoch")
_NAME_COLUMNS = ("__name__", "metric", "name", "metric_name", "field")
_VALUE_COLUMNS = ("value", "val", "sample")
_LABEL_COLUMNS = frozenset(
    {
        "gpu",
        "index",
        "gpu_index",
        "hostname",
        "host",
        "node",
        "instance",
        "pci_bus_id",
        "pci.bus_id",
        "busid",
        "bus_id",
        "uuid",
        "gpu_uuid",
        "device",
        "modelname",
        "model_name",
        "name",
        "job",
        "pod",
        "namespace",
        "container",
        "gpu_i_profile",
        "gpu_i_id",
        "driver_version",
        "dcgm_fi_driver_version",
        "err_code",
        "err_msg",
        "clock_event",
        "xid",
        "window_size_in_ms",
    }
)
_HEADER_UNIT = re.compile(r"\s*\[[^\]]*\]\s*$")


def _header(name: str) -> str:
    return _HEADER_UNIT.sub("", name.strip())


def _pick(headers: Sequence[str], choices: Sequence[str]) -> int | None:
    lowered = [h.lower() for h in headers]
    for choice in choices:
        if choice in lowered:
            return lowered.index(choice)
    return None


def parse_metrics_csv(text: str, *, where: str = "<metrics>") -> list[MetricSeries]:
    try:
        rows = list(csv.reader(io.StringIO(text, newline="")))
    except csv.Error as exc:
        raise InputError(where, f"not readable as CSV: {exc}") from exc
    rows = [r for r in rows if r and any(cell.strip() for cell in r)]
    if not rows:
        raise InputError(where, "empty CSV: expected a header row and samples")
    headers = [_header(h) for h in rows[0]]
    t_col = _pick(headers, _TIME_COLUMNS)
    if t_col is None:
        raise InputError(
            where, f"no time column (one of {', '.join(_TIME_COLUMNS)}) in header {rows[0]!r:.200}"
        )
    n_col = _pick(headers, _NAME_COLUMNS[:2] + _NAME_COLUMNS[3:])
    v_col = _pick(headers, _VALUE_COLUMNS)
    if n_col is None and v_col is not None:
        n_col = _pick(headers, ("name",))
    collector = _Collector()
    body = rows[1:]
    if n_col is not None and v_col is not None:
        label_cols = [i for i in range(len(headers)) if i not in (t_col, n_col, v_col)]
        for number, row in enumerate(body, start=2):
            if len(row) != len(headers):
                raise InputError(
                    f"{where}:{number}", f"{len(row)} columns, the header has {len(headers)}"
                )
            moment = _row_time(row[t_col], where, number)
            value = _value(row[v_col])
            if value is None:
                continue
            labels = tuple(
                sorted((headers[i], row[i].strip()) for i in label_cols if row[i].strip())
            )
            collector.add(row[n_col].strip(), labels, moment, value)
        return collector.series()
    metric_cols = _wide_metric_columns(headers, body, t_col)
    if not metric_cols:
        raise InputError(
            where,
            "no metric columns: expected a 'value' and a 'name' column or numeric metric "
            f"columns; header {rows[0]!r:.200}",
        )
    label_cols = [i for i in range(len(headers)) if i != t_col and i not in metric_cols]
    for number, row in enumerate(body, start=2):
        if len(row) != len(headers):
            raise InputError(
                f"{where}:{number}", f"{len(row)} columns, the header has {len(headers)}"
            )
        moment = _row_time(row[t_col], where, number)
        labels = tuple(
            sorted((_label_name(headers[i]), row[i].strip()) for i in label_cols if row[i].strip())
        )
        for i in metric_cols:
            value = _value(row[i])
            if value is not None:
                collector.add(headers[i], labels, moment, value)
    return collector.series()


def _label_name(header: str) -> str:
    """nvidia-smi's column names as the exporter's label names."""
    return {"index": "gpu", "pci.bus_id": "pci_bus_id", "name": "modelName", "uuid": "UUID"}.get(
        header, header
    )


def _row_time(cell: str, where: str, number: int) -> float:
    moment = _timestamp(cell)
    if moment is None:
        raise InputError(f"{where}:{number}", f"cannot read the time {cell!r:.60}")
    return moment


def _wide_metric_columns(
    headers: Sequence[str], body: Sequence[Sequence[str]], t_col: int
) -> list[int]:
    out = []
    for i, header in enumerate(headers):
        if i == t_col or header.lower() in _LABEL_COLUMNS:
            continue
        if header.upper().startswith("DCGM_"):
            out.append(i)
            continue
        cells = [row[i].strip() for row in body if i < len(row) and row[i].strip()]
        known = [c for c in cells if c.upper() not in ("N/A", "[N/A]", "[NOT SUPPORTED]", "NAN")]
        if known and all(_value(c) is not None for c in known[:50]):
            out.append(i)
    return out


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
