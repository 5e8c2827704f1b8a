"""CSV metric exports -> samples: long form (``timestamp,name,gpu,Hostname,pci_bus_id,value``: a
time column, a metric name column, a value column, every other column a label) or wide form (a
time column, label columns, one column per metric), including ``nvidia-smi --query-gpu=...
--format=csv`` output (``clocks.sm [MHz]`` headers, ``1980 MHz`` values, ``0x...`` bitmasks).
Anything unusable raises InputError."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator, Sequence

from detector.errors import InputError
from detector.sources.metric_samples import Sample, sample_time, sample_value

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
HEADER_SEARCH_ROWS = 5  # opening rows where the header may stand, below a command or a note
_HEADER_UNIT = re.compile(r"\s*\[[^\]]*\]\s*$")


def _header(name: str) -> str:
    return _HEADER_UNIT.sub("", name.strip())


def _pick(headers: Sequence[str], choices: Sequence[str]) -> int | None:
    lowered = [h.lower() for h in headers]
    for choice in choices:
        if choice in lowered:
            return lowered.index(choice)
    return None


def csv_samples(text: str, *, where: str = "<metrics>") -> Iterator[Sample]:
    numbered: list[tuple[int, list[str]]] = []  # each row that holds something, with its line in the file
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        for row in reader:
            if row and any(cell.strip() for cell in row):
                numbered.append((reader.line_num, row))
    except csv.Error as exc:
        raise InputError(where, f"not readable as CSV: {exc}") from exc
    rows = [row for _n, row in numbered]
    if not rows:
        raise InputError(where, "empty CSV: expected a header row and samples")
    # the command or a note above the header ("# nvidia-smi --query-gpu=... --format=csv -l 10",
    # "$ dcgmi dmon ..."): the header is the first of the opening rows that names a time column
    first = next((i for i, row in enumerate(rows[:HEADER_SEARCH_ROWS])
                  if _pick([_header(h) for h in row], _TIME_COLUMNS) is not None), 0)
    rows, lines = rows[first:], [n for n, _row in numbered[first:]]
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
    body = rows[1:]
    if n_col is not None and v_col is not None:
        label_cols = [i for i in range(len(headers)) if i not in (t_col, n_col, v_col)]
        for number, row in zip(lines[1:], body, strict=True):
            if len(row) != len(headers):
                raise InputError(
                    f"{where}:{number}", f"{len(row)} columns, the header has {len(headers)}"
                )
            moment = _row_time(row[t_col], where, number)
            value = sample_value(row[v_col])
            if value is None:
                continue
            labels = tuple(
                sorted((headers[i], row[i].strip()) for i in label_cols if row[i].strip())
            )
            yield row[n_col].strip(), labels, moment, value
        return
    metric_cols = _wide_metric_columns(headers, body, t_col)
    if not metric_cols:
        raise InputError(
            where,
            "no metric columns: expected a 'value' and a 'name' column or numeric metric "
            f"columns; header {rows[0]!r:.200}",
        )
    label_cols = [i for i in range(len(headers)) if i != t_col and i not in metric_cols]
    for number, row in zip(lines[1:], body, strict=True):
        if len(row) != len(headers):
            raise InputError(
                f"{where}:{number}", f"{len(row)} columns, the header has {len(headers)}"
            )
        moment = _row_time(row[t_col], where, number)
        labels = tuple(
            sorted((_label_name(headers[i]), row[i].strip()) for i in label_cols if row[i].strip())
        )
        for i in metric_cols:
            value = sample_value(row[i])
            if value is not None:
                yield headers[i], labels, moment, value


def _label_name(header: str) -> str:
    """nvidia-smi's column names as the exporter's label names."""
    return {"index": "gpu", "pci.bus_id": "pci_bus_id", "name": "modelName", "uuid": "UUID"}.get(
        header, header
    )


def _row_time(cell: str, where: str, number: int) -> float:
    moment = sample_time(cell)
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
        if known and all(sample_value(c) is not None for c in known[:50]):
            out.append(i)
    return out

