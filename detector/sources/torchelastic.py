"""torchelastic's failure summary (the ``ChildFailedError`` block torchrun prints when a worker
fails): one :class:`FailureRecord` per failed rank, with its exit code, pid, host and time."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from detector.sources.prefixes import PrefixStyle, strip_prefix
from detector.sources.timestamps import parse_timestamp
from detector.support.numbers import small_int


@dataclass(frozen=True, slots=True)
class FailureRecord:
    """One entry of torchelastic's ChildFailedError summary."""

    rank: int | None
    local_rank: int | None
    host: str | None
    exitcode: int | None
    pid: int | None
    time: datetime | None
    root_cause: bool
    file: str
    line: int
    text: str
    end: int = 0  # the entry's last line (its traceback's, where the entry holds one); 0: not known


SUMMARY_FIELD = re.compile(r"^\s*(time|host|rank|exitcode|error_file|traceback)\s*:\s*(.*)$")  # an entry's field
_RANK_LOCAL = re.compile(r"(-?\d+)\s*\(local_rank:\s*(\d+)\)")
# the pid is missing where a paste was cut right after the exit code
_EXIT_PID = re.compile(r"^(-?\d+)(?:\s*\(pid:\s*(\d+)\)|\s*\([^)]*$|\s*$)")  # (a pid cut too: none)
ENTRY = re.compile(r"^\s*\[\d+\]:\s*$")  # an entry of the table begins: "[0]:"


NO_ENTRY_WITHIN = 30  # lines after ChildFailedError in which the table's first entry or field must come


def unstamped(message: str) -> str:
    """A summary table's line without a collector's stamp before it (GitHub Actions', ``kubectl
    logs --timestamps``')."""
    if message[:1].isdigit() or message[:1] == "[":
        lead = parse_timestamp(message, year=2000)
        if lead is not None and lead.time is not None:
            return message[lead.end:]
    return message


def parse_summary(lines: list[str], style: PrefixStyle, file: str, first_line: int,
                  opened: bool = False) -> list[FailureRecord]:
    """Parse the lines after ``ChildFailedError:`` into failure records; ``opened``: the lines
    begin inside the table (its "Failures:" or "Root Cause" line, its opening rule cut away), so
    the next "=====" rule closes it."""
    out: list[FailureRecord] = []
    root = False
    current: dict[str, str] = {}
    start = first_line
    rules_seen = 1 if opened else 0

    def flush(line_no: int, end: int) -> None:
        if not current:
            return
        rank = local = exitcode = pid = None
        m = _RANK_LOCAL.search(current.get("rank", ""))
        if m:
            rank, local = small_int(m.group(1)), small_int(m.group(2))
        m = _EXIT_PID.search(current.get("exitcode", ""))
        if m:
            exitcode, pid = small_int(m.group(1), signed=True), small_int(m.group(2) or "")
        stamp = parse_timestamp(current.get("time", ""))
        host = current.get("host") or None
        text = "; ".join(f"{k}: {v}" for k, v in current.items())
        out.append(FailureRecord(rank, local, host, exitcode, pid, stamp.time if stamp else None, root, file, line_no, text, end))
        current.clear()

    entries = 0  # entries begun ("[0]:")
    for offset, raw in enumerate(lines):
        if offset >= NO_ENTRY_WITHIN and not entries and not current:
            break  # (no table here: a line that names ChildFailedError in another sense)
        here = first_line + offset - 1  # (the line before this one: the end of an entry it closes)
        msg = unstamped(strip_prefix(raw, style).message)
        if msg.strip().startswith("====="):
            rules_seen += 1
            if rules_seen >= 2:
                flush(start, here)
                break
            continue
        if "Root Cause (first observed failure)" in msg:
            flush(start, here)
            root = True
            continue
        if msg.strip() == "Failures:":
            flush(start, here)
            root = False
            continue
        if ENTRY.match(msg):
            flush(start, here)
            start = first_line + offset + 1
            entries += 1
            continue
        m = SUMMARY_FIELD.match(msg)
        if m:
            current[m.group(1)] = m.group(2).strip()
    else:
        flush(start, first_line + len(lines) - 1)
    return out
