"""Logs as people export them from where they were collected, read as the records they hold.

A run's logs often reach the person who diagnoses it not as the files the programs wrote but as
an export of a log platform: ``gcloud logging read --format json`` (a JSON array, newest first),
the AWS CLI's ``logs filter-log-events`` / ``get-log-events`` (``{"events": [...]}``), Loki's
query API (``{"data": {"result": [{"stream": {...}, "values": [[ns, line], ...]}]}}``) or a
Grafana Explore download (a data frame: columns of labels, times and lines), a JSON array of
records of any structured logger, or a CSV download (Kibana Discover, Datadog, CloudWatch Logs
Insights) whose quoted messages span several lines.

:func:`export_records` turns such a document into JSON lines, one per line of each record's
message, oldest first, each ``{"time": ISO 8601, "host": ..., "log": line}`` - the records that
:mod:`detector.sources.prefixes` already reads in a ``.jsonl`` file - so every reader of a log
(the scan, the tail, the file's node) sees the same lines. A document that is none of these gives
None and is left to the other readers (metrics, an error file) or skipped.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterable, Iterator, Mapping
from datetime import UTC, datetime
from itertools import pairwise

# the fields that hold a record's text, its time and its host, in the order they are tried
_TEXT_KEYS = ("textPayload", "message", "@message", "msg", "log", "MESSAGE", "line", "Line", "text", "Content",
              "content", "Message", "_raw", "data")  # (_raw: Splunk's event; data: Kaggle's notebook log)
_TIME_KEYS = ("timestamp", "@timestamp", "time", "Time", "ts", "Date", "date", "eventTime", "receiveTimestamp",
              "ingestionTime", "__REALTIME_TIMESTAMP", "tsNs", "_time")
# a pod's name before the machine's at the same level of a record (a Kubernetes job's ranks live in
# pods; the rest of the run names them so)
_POD_KEYS = ("pod", "pod_name", "kubernetes.pod.name", "kubernetes.pod_name", "k8s.pod.name")
_HOST_KEYS = ("host", "Host", "hostname", "host.name", "node", "node_name", "nodename", "kubernetes.host", "instance",
              "compute.googleapis.com/resource_name", "instance_name", "_HOSTNAME", "@logStream", "logStreamName")
_WHERE_KEYS = (*_POD_KEYS, *_HOST_KEYS)
_NESTED = ("labels", "resource", "jsonPayload", "kubernetes", "stream", "fields", "attributes", "tags")
MAX_RECORDS = 2_000_000  # records of one export turned into lines (a larger one is read in part)

_KIBANA_TIME = re.compile(r"^(?P<mon>[A-Z][a-z]{2}) (?P<day>\d{1,2}), (?P<year>\d{4}) @ "
                          r"(?P<h>\d{1,2}):(?P<m>\d{2}):(?P<s>\d{2})(?:\.(?P<frac>\d{1,9}))?$")
_ISO = re.compile(r"^(?P<date>\d{4}-\d{2}-\d{2})[T ](?P<time>\d{2}:\d{2}:\d{2})(?:[.,](?P<frac>\d{1,9}))?"
                  r"(?P<zone>Z|[+-]\d{2}:?\d{2})?$")
_MONTHS = {m: i for i, m in enumerate(("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct",
                                       "Nov", "Dec"), start=1)}


def _epoch(value: float) -> datetime | None:
    """Seconds, milliseconds, microseconds or nanoseconds since the epoch, by magnitude."""
    for scale in (1, 1e3, 1e6, 1e9):
        seconds = value / scale
        if 946_684_800 <= seconds <= 4_102_444_800:  # 2000 to 2100
            return datetime.fromtimestamp(seconds, UTC)
    return None


def parse_time(value: object) -> datetime | None:
    """A record's time: ISO 8601 (any number of second fractions, a zone or none: UTC), Kibana's
    ``Oct 29, 2024 @ 13:08:12.721``, or a number of (milli-, micro-, nano-)seconds since the epoch."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        try:
            return _epoch(float(value))
        except (OverflowError, ValueError):  # (an integer past a float's range, a NaN)
            return None
    if not isinstance(value, str) or not value or len(value) > 64:
        return None
    text = value.strip()
    if text.isascii() and text.isdigit():
        return _epoch(float(text))
    m = _ISO.match(text)
    if m is not None:
        frac = (m["frac"] or "0")[:6].ljust(6, "0")
        zone = m["zone"] or "Z"
        zone = "+00:00" if zone == "Z" else (zone if ":" in zone else f"{zone[:3]}:{zone[3:]}")
        try:
            return datetime.fromisoformat(f"{m['date']}T{m['time']}.{frac}{zone}").astimezone(UTC)
        except (ValueError, OverflowError):  # (9999-12-31T23:59:59-01:00 is past the last UTC date)
            return None
    m = _KIBANA_TIME.match(text)
    if m is not None and m["mon"] in _MONTHS:
        frac = (m["frac"] or "0")[:6].ljust(6, "0")
        try:
            return datetime(int(m["year"]), _MONTHS[m["mon"]], int(m["day"]), int(m["h"]), int(m["m"]), int(m["s"]),
                            int(frac), tzinfo=UTC)
        except ValueError:
            return None
    return None


def _first(record: Mapping[str, object], keys: Iterable[str]) -> object:
    for key in keys:
        value = record.get(key)
        if value not in (None, ""):
            return value
    return None


def _nested(record: Mapping[str, object], keys: tuple[str, ...], depth: int = 2) -> object:
    """A field of the record or of its label, resource or payload objects (two levels deep)."""
    found = _first(record, keys)
    if found is not None or depth == 0:
        return found
    for name in _NESTED:
        inner = record.get(name)
        if isinstance(inner, Mapping):
            found = _nested(inner, keys, depth - 1)
            if found is not None:
                return found
    return None


def _where(record: Mapping[str, object]) -> object:
    """The pod or host a record names, the nearest first (a record of the node itself, a kernel
    line, names only the machine; one of a container names the machine at the same level as the
    pod and keeps them apart in the same way, so lines of the same node read alike). An Elastic
    document's host is an object: its name."""
    found = _nested(record, _WHERE_KEYS)
    if isinstance(found, Mapping):
        return _first(found, ("name", "hostname"))
    return found


def platform_record(record: Mapping[str, object], labels: Mapping[str, object] | None = None) -> tuple[datetime | None, str | None, str] | None:
    """One record of a log platform: its time, the pod or host it names, its text (also for a JSON
    line that no plainer reader knows); None when it holds no text."""
    text = _first(record, _TEXT_KEYS)
    if text is None and isinstance(result := record.get("result"), Mapping) and "_raw" in result:
        return platform_record(result, labels)  # Splunk's JSON export: {"preview": false, "result": {...}}
    if text is None and isinstance(source := record.get("_source"), Mapping):
        return platform_record(source, labels)  # an Elasticsearch document (elasticdump, a search's hits)
    if text is None and isinstance(payload := record.get("jsonPayload"), Mapping):
        text = _first(payload, _TEXT_KEYS)
    if not isinstance(text, str):
        return None
    when = parse_time(_first(record, _TIME_KEYS))
    host = _where(record)
    if host is None and labels is not None:
        host = _where(labels)
    return when, host if isinstance(host, str) and 0 < len(host) <= 253 else None, text


def _records_of(doc: object) -> Iterator[tuple[datetime | None, str | None, str]]:
    """The log records of a JSON export, in the document's order."""
    if isinstance(doc, list):
        for item in doc:
            if isinstance(item, Mapping) and (rec := platform_record(item)) is not None:
                yield rec
        return
    if not isinstance(doc, Mapping):
        return
    events = doc.get("events") if "events" in doc else doc.get("entries")
    if isinstance(events, list):  # the AWS CLI's logs events, gcloud's API entries
        yield from _records_of(events)
        return
    data = doc.get("data")
    if isinstance(data, Mapping):
        result = data.get("result")
        if isinstance(result, list):  # Loki's query API: streams of [time in ns, line]
            for stream in result:
                if not isinstance(stream, Mapping) or not isinstance(stream.get("values"), list):
                    continue
                labels = stream.get("stream")
                host = _where(labels) if isinstance(labels, Mapping) else None
                for pair in stream["values"]:
                    if isinstance(pair, list) and len(pair) >= 2 and isinstance(pair[1], str):
                        yield parse_time(pair[0]), host if isinstance(host, str) else None, pair[1]
            return
        yield from _frame(doc)


def _frame(doc: Mapping[str, object]) -> Iterator[tuple[datetime | None, str | None, str]]:
    """A Grafana data frame (Explore's download): a schema naming the columns, columns of values."""
    schema, data = doc.get("schema"), doc.get("data")
    if not isinstance(schema, Mapping) or not isinstance(data, Mapping):
        return
    fields, values = schema.get("fields"), data.get("values")
    if not isinstance(fields, list) or not isinstance(values, list) or len(fields) != len(values):
        return
    names = [f.get("name") if isinstance(f, Mapping) else None for f in fields]
    columns = dict(zip(names, values, strict=True))
    lines = next((columns[k] for k in ("Line", "line", "body", "message", "Message") if isinstance(columns.get(k), list)), None)
    if lines is None:
        return
    times = next((columns[k] for k in ("tsNs", "Time", "time", "timestamp") if isinstance(columns.get(k), list)), None)
    labels = columns.get("labels") if isinstance(columns.get("labels"), list) else None
    for i, line in enumerate(lines):
        if not isinstance(line, str):
            continue
        when = parse_time(times[i]) if times is not None and i < len(times) else None
        lab = labels[i] if labels is not None and i < len(labels) and isinstance(labels[i], Mapping) else None
        host = _where(lab) if lab is not None else None
        yield when, host if isinstance(host, str) else None, line


def _csv_records(text: str) -> Iterator[tuple[datetime | None, str | None, str]] | None:
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(reader)
    except (StopIteration, csv.Error):
        return None
    names = [h.strip().strip("\ufeff") for h in header]
    text_col = next((names.index(k) for k in _TEXT_KEYS if k in names), None)
    if text_col is None:
        return None
    time_col = next((names.index(k) for k in _TIME_KEYS if k in names), None)
    host_col = next((names.index(k) for k in _WHERE_KEYS if k in names), None)

    def rows() -> Iterator[tuple[datetime | None, str | None, str]]:
        try:
            for row in reader:
                if len(row) <= text_col:
                    continue
                when = parse_time(row[time_col]) if time_col is not None and time_col < len(row) else None
                host = row[host_col] if host_col is not None and host_col < len(row) and row[host_col] else None
                yield when, host, row[text_col]
        except csv.Error:
            return

    return rows()


def looks_like_csv_export(head: bytes) -> bool:
    """Whether a CSV file's first line is a header with a log message column (not DCGM's metrics)."""
    first = head.split(b"\n", 1)[0].decode("utf-8", "replace")
    try:
        names = {h.strip().strip("\ufeff") for h in next(csv.reader([first]))}
    except (StopIteration, csv.Error):
        return False
    return any(k in names for k in _TEXT_KEYS)


# gcloud logging read's default output: one YAML document per entry, "---" between them
_YAML_ENTRY_KEYS = (b"textPayload:", b"jsonPayload:")
_YAML_META_KEYS = (b"logName:", b"insertId:", b"receiveTimestamp:")


def looks_like_yaml_export(head: bytes) -> bool:
    """Whether a YAML file begins as ``gcloud logging read``'s entries (a log name or insert id, a
    text or JSON payload at the top level of an entry)."""
    lines = head.split(b"\n")[:200]
    return (any(line.startswith(_YAML_ENTRY_KEYS) for line in lines)
            and any(line.startswith(_YAML_META_KEYS) for line in lines))


def _yaml_records(text: str) -> Iterator[tuple[datetime | None, str | None, str]] | None:
    import yaml  # (only for such an export)

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    # an anchor or alias of YAML, which gcloud's entries never use (a hostile file would, to nest a
    # few lines into gigabytes of copies): the parser's events tell them, without building anything
    try:
        for event in yaml.parse(text, Loader=loader):
            if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
                return None
    except yaml.YAMLError:
        pass  # (the entries before a cut or broken one are still read below)

    def rows() -> Iterator[tuple[datetime | None, str | None, str]]:
        try:
            for doc in yaml.load_all(text, Loader=loader):
                if isinstance(doc, Mapping) and (rec := platform_record(doc)) is not None:
                    yield rec
        except yaml.YAMLError:
            return  # (the entries before a cut or broken one)

    return rows()


_JSONL_HEAD_LINES = 20  # the first lines of a JSON-lines file looked at to tell an export


def _head_records(head: bytes) -> list[Mapping[str, object]]:
    out = []
    for raw in head.split(b"\n")[:_JSONL_HEAD_LINES]:
        raw = raw.strip()
        if raw[:1] != b"{":
            continue
        try:
            doc = json.loads(raw)
        except (ValueError, RecursionError):
            continue
        if isinstance(doc, Mapping):
            out.append(doc)
    return out


def looks_like_jsonl_export(head: bytes) -> bool:
    """Whether a JSON-lines file is a log platform's export that lines read one by one would
    misread: documents that wrap their record (Elasticsearch's "_source", Splunk's "result"),
    Loki's records of labels and a line (logcli -o jsonl, which lists the newest first), or
    records listed newest first."""
    docs = _head_records(head)
    if len(docs) < 2:
        return False
    if any((isinstance(src := d.get("_source"), Mapping) and ("@timestamp" in src or "message" in src))
           or ("preview" in d and isinstance(res := d.get("result"), Mapping) and "_raw" in res) for d in docs):
        return True
    if all(isinstance(d.get("labels"), Mapping) and isinstance(d.get("line"), str) for d in docs):
        return True
    times = [t for d in docs if (rec := platform_record(d)) is not None and (t := rec[0]) is not None]
    return len(times) >= 3 and sum(a > b for a, b in pairwise(times)) > len(times) // 2


JSONL_STRAY_LINES = 2  # lines of a JSON-lines export that are no record (logcli's query URL), at most


def _jsonl_records(text: str) -> list[tuple[datetime | None, str | None, str]] | None:
    """The records of a JSON-lines export, one a line; a line or two that are no JSON record
    (logcli's query URL above them) are passed by; more (a program's traceback written into its
    logger's file) and the file is no export: None, read line by line."""
    out = []
    stray = 0
    for raw in text.splitlines():
        raw = raw.strip()
        if not raw:
            continue
        try:
            doc = json.loads(raw) if raw[:1] == "{" else None
        except (ValueError, RecursionError):
            doc = None
        if not isinstance(doc, Mapping):
            stray += 1
            if stray > JSONL_STRAY_LINES:
                return None
            continue
        if (rec := platform_record(doc)) is not None:
            out.append(rec)
    return out


def export_records(data: bytes, kind: str) -> bytes | None:
    """The records of an export (``kind`` "json", "jsonl", "csv" or "yaml") as JSON lines, oldest first
    (exports often list the newest first; records of the same moment keep their order), one line
    per line of each message; None when ``data`` holds no log records."""
    text = data.decode("utf-8", "replace")
    records: Iterable[tuple[datetime | None, str | None, str]] | None
    if kind == "csv":
        records = _csv_records(text)
    elif kind == "yaml":
        records = _yaml_records(text)
    elif kind == "jsonl":
        records = _jsonl_records(text)
    else:
        try:
            records = _records_of(json.loads(text))
        except (ValueError, RecursionError):
            return None
    if records is None:
        return None
    kept: list[tuple[datetime | None, str | None, str]] = []
    for rec in records:
        kept.append(rec)
        if len(kept) >= MAX_RECORDS:
            break
    if not kept:
        return None
    timed = [r[0] for r in kept if r[0] is not None]
    descending = sum(a > b for a, b in pairwise(timed))
    ascending = sum(a < b for a, b in pairwise(timed))
    # (an export listed newest first lists the records of one moment - a traceback's lines, a stack
    # dump's - newest first too: reversed before the sort by time, which keeps their order)
    order = list(range(len(kept)))[::-1] if descending > ascending else list(range(len(kept)))
    if len(timed) == len(kept):
        order.sort(key=lambda i: kept[i][0])  # type: ignore[arg-type,return-value]
    out = io.StringIO()
    for i in order:
        when, host, message = kept[i]
        stamp = when.strftime("%Y-%m-%dT%H:%M:%S.%fZ") if when is not None else None
        for line in message.rstrip("\n").split("\n"):
            line = line.rstrip("\r")
            out_rec: dict[str, str] = {}
            if stamp is not None:
                out_rec["time"] = stamp
            if host is not None:
                out_rec["host"] = host
            out_rec["log"] = line
            out.write(json.dumps(out_rec, ensure_ascii=False))
            out.write("\n")
    return out.getvalue().encode("utf-8")
