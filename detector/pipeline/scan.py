"""Read one log file: find the lines that rules match (one prefilter scan per chunk), parse
those lines into Events, and read the file's tail for last activity and step lines.

Memory stays bounded whatever the file size: the file is read in chunks; only matched lines,
torchelastic summaries and the tail are kept. With an :class:`EvidenceCap` (the live sidecar's,
or one shared by a replay's files), the matched lines kept are bounded too, whatever their number.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import BinaryIO

from detector.pipeline.evidence import (
    Admission,
    EvidenceCap,
    Hit,
)
from detector.rules.engine import RuleMatch, RuleSet
from detector.sources.lines import LineParser
from detector.sources.prefixes import PrefixStyle, detect_style, strip_prefix
from detector.sources.runs import LogFile
from detector.sources.torchelastic import FailureRecord, parse_summary
from detector.support.text import decode_line, is_binary
from detector.types import Event

CHUNK = 8 << 20
LOOKAHEAD = 256 << 10  # following lines kept available for multi-line rules
MAX_LINE = 1 << 20  # longer lines are matched on their first MiB and reported
TAIL_BYTES = 256 << 10
LOOKBACK_LINES = 64


@dataclass
class FileScan:
    file: LogFile
    lines: int = 0
    first_time: datetime | None = None
    last_time: datetime | None = None
    hits: list[Hit] = field(default_factory=list)
    failures: list[FailureRecord] = field(default_factory=list)
    tail_lines: list[str] = field(default_factory=list)  # the file's last lines, raw
    tail_first: int = 1  # line number of tail_lines[0]
    parser: LineParser | None = None
    prefix_ranks: set[int] = field(default_factory=set)
    warnings: list[str] = field(default_factory=list)
    hosts: set[str] = field(default_factory=set)
    cap: Admission | None = None  # where set, the hits it turns down are counted, not kept


def _lookback_time(buf: bytes, start: int, floor: int, parser: LineParser) -> datetime | None:
    pos = start
    for _ in range(LOOKBACK_LINES):
        if pos <= floor:
            return None
        prev = buf.rfind(b"\n", floor, pos - 1)
        lstart = floor if prev < 0 else prev + 1
        raw = decode_line(buf[lstart : pos - 1])
        stamp = parser.stamp(strip_prefix(raw, parser.style).message)
        if stamp is not None and stamp.time is not None:
            return stamp.time
        pos = lstart
    return None


def _following(buf: bytes, line_end: int, count: int) -> list[str]:
    out: list[str] = []
    pos = line_end + 1
    while len(out) < count and pos < len(buf):
        nl = buf.find(b"\n", pos)
        if nl < 0:
            nl = len(buf)
        out.append(decode_line(buf[pos:nl]))
        pos = nl + 1
    return out


def scan_file(
    f: LogFile,
    rules: RuleSet,
    *,
    year: int | None,
    tail_bytes: int = TAIL_BYTES,
    progress: Callable[[int], None] | None = None,
    cap: EvidenceCap | None = None,
) -> FileScan:
    """Scan one rank or kernel log. Never raises for bad content; I/O errors become warnings.
    ``cap`` (shared by the files of a run) bounds the hits kept; without it every hit is."""
    scan = FileScan(f, cap=cap)
    try:
        fh = open(f.path, "rb")  # noqa: SIM115 - closed below
    except OSError as exc:
        scan.warnings.append(f"{f.display}: cannot open ({exc.strerror or exc}), skipped")
        return scan
    with fh:
        if f.ident is not None:
            st = os.fstat(fh.fileno())
            if (st.st_dev, st.st_ino) != f.ident:
                scan.warnings.append(f"{f.display}: replaced since the run was listed (by a link or another file), skipped")
                return scan
        try:
            head = fh.read(8192)
        except OSError as exc:
            scan.warnings.append(f"{f.display}: read error ({exc.strerror or exc}), skipped")
            return scan
        if is_binary(head):
            scan.warnings.append(f"{f.display}: binary data, not a text log; skipped")
            return scan
        head_lines = [decode_line(x) for x in head.split(b"\n")[:50]]
        style = detect_style(head_lines)
        parser = LineParser(f, style, year)
        for raw in head_lines:
            stamp = parser.stamp(strip_prefix(raw, style).message)
            if stamp is not None and stamp.time is not None:
                scan.first_time = stamp.time
                break
        fh.seek(0)
        _scan_body(fh, scan, parser, rules, progress)
        _read_tail(fh, scan, parser, tail_bytes)
    scan.parser = parser
    for _rank, time in last_activity(scan).items():
        if scan.last_time is None or time > scan.last_time:
            scan.last_time = time
    return scan


def tail_event(scan: FileScan, index: int) -> Event:
    """The Event of ``scan.tail_lines[index]``; a line without a timestamp inherits the time of
    the nearest earlier stamped line of the tail."""
    parser = scan.parser
    assert parser is not None
    ev, stamp = parser.event(scan.tail_lines[index], scan.tail_first + index, None)
    if ev.time is None and (stamp is None or stamp.since_boot is None):
        for back in range(index - 1, max(-1, index - 1 - LOOKBACK_LINES), -1):
            prev = parser.stamp(strip_prefix(scan.tail_lines[back], parser.style).message)
            if prev is not None and prev.time is not None:
                return Event(ev.file, ev.line, ev.kind, ev.text, ev.message, prev.time, True,
                             ev.rank, ev.local_rank, ev.node, ev.pid)
    return ev


def last_activity(scan: FileScan, *, max_lines: int = 20000) -> dict[int | None, datetime]:
    """The time of the last stamped line of the file, per rank prefix (None: lines without a
    prefix). Reads the tail backwards and stops once every prefix rank seen is placed."""
    parser = scan.parser
    out: dict[int | None, datetime] = {}
    if parser is None:
        return out
    wanted = len(scan.prefix_ranks) + 1
    for i in range(len(scan.tail_lines) - 1, max(-1, len(scan.tail_lines) - 1 - max_lines), -1):
        pre = strip_prefix(scan.tail_lines[i], parser.style)
        if pre.rank in out:
            continue
        stamp = parser.stamp(pre.message)
        if stamp is not None and stamp.time is not None:
            out[pre.rank] = stamp.time
            if len(out) >= wanted:
                break
    return out


def _scan_body(fh: BinaryIO, scan: FileScan, parser: LineParser, rules: RuleSet,
               progress: Callable[[int], None] | None) -> None:
    read = fh.read
    carry = b""
    base_line = 1
    skipping_long = False
    bad_utf8 = False
    while True:
        data = read(CHUNK)
        eof = not data
        if progress is not None and data:
            progress(len(data))
        if skipping_long:
            nl = data.find(b"\n")
            if nl < 0 and not eof:
                continue
            data = b"" if nl < 0 else data[nl + 1 :]
            skipping_long = False
            base_line += 1
        buf = carry + data
        if not buf:
            break
        if eof:
            end = len(buf)
        else:
            limit = max(0, len(buf) - LOOKAHEAD)
            nl = buf.rfind(b"\n", 0, limit)
            end = nl + 1 if nl >= 0 else 0
            if end == 0:
                if len(buf) < MAX_LINE + LOOKAHEAD:
                    carry = buf
                    continue
                first_nl = buf.find(b"\n")
                if first_nl < 0 or first_nl >= MAX_LINE:
                    # one huge line: match its first MiB, drop the rest of it
                    piece = buf[:MAX_LINE] + b"\n"
                    scan.warnings.append(f"{parser.f.display}:{base_line}: line longer than {MAX_LINE} bytes, truncated")
                    process_buffer(piece, 0, len(piece), base_line, scan, parser, rules)
                    scan.lines += 1
                    rest = buf[MAX_LINE:]
                    nl2 = rest.find(b"\n")
                    if nl2 < 0:
                        skipping_long = True
                        carry = b""
                    else:
                        carry = rest[nl2 + 1 :]
                        base_line += 1
                    continue
                end = first_nl + 1
        if not bad_utf8:
            try:
                buf[:end].decode("utf-8")
            except UnicodeDecodeError as exc:
                bad_utf8 = True
                ln = base_line + buf.count(b"\n", 0, exc.start)
                scan.warnings.append(f"{parser.f.display}:{ln}: invalid UTF-8, replaced with U+FFFD")
        process_buffer(buf, 0, end, base_line, scan, parser, rules)
        newlines = buf.count(b"\n", 0, end)
        scan.lines += newlines + (1 if eof and end > 0 and not buf.endswith(b"\n") else 0)
        base_line += newlines
        carry = buf[end:]
        if eof:
            break


def process_buffer(buf: bytes, start: int, end: int, base_line: int, scan: FileScan, parser: LineParser, rules: RuleSet) -> None:
    """Match the candidate lines of ``buf[start:end]`` and add their hits to ``scan`` (those its
    cap admits: a line the cap turns down costs no timestamp parsing and no Event)."""
    last_off = start
    line_no = base_line
    display = scan.file.display
    for off in rules.candidates(buf, start, end):
        line_no += buf.count(b"\n", last_off, off)
        last_off = off
        line_end = buf.find(b"\n", off)
        if line_end < 0:
            line_end = len(buf)
        raw = decode_line(buf[off:line_end])
        pre = strip_prefix(raw, parser.style)
        if pre.rank is not None:
            scan.prefix_ranks.add(pre.rank)
        if "ChildFailedError" in pre.message:
            follow = _following(buf, line_end, 120)
            scan.failures.extend(parse_summary(follow, parser.style, parser.f.display, line_no + 1))
        matches = rules.match(pre.message, parser.kind)
        kept: list[RuleMatch] = []
        extra_context: list[str] = []
        following: list[str] = []
        context_n = 0
        if matches:
            context_n = max((m.rule.context_lines for m in matches), default=0)
            window_n = max((m.rule.window_within for m in matches), default=0)
            following = _following(buf, line_end, max(context_n, window_n)) if (context_n or window_n) else []
        for m in matches:
            if m.rule.window_next is None:
                kept.append(m)
                continue
            found = None
            for i, nxt in enumerate(following[: m.rule.window_within]):
                wm = rules.search_next(m.rule, strip_prefix(nxt, parser.style).message)
                if wm:
                    found = (i, wm)
                    break
            if found is None:
                continue
            i, wm = found
            extra = tuple((k, v) for k, v in wm.groupdict().items() if v is not None)
            kept.append(RuleMatch(m.rule, m.fields + extra))
            extra_context.extend(following[: i + 1])
        if not kept:
            stamp = parser.stamp(pre.message)
            if stamp is not None and stamp.host:
                scan.hosts.add(stamp.host)
            continue
        if scan.cap is not None and not scan.cap.admit(display, line_no, pre.rank, kept):
            continue
        ev, stamp = parser.event_of(pre, raw, line_no, None)
        if stamp is not None and stamp.host:
            scan.hosts.add(stamp.host)
        if ev.time is None and (stamp is None or stamp.since_boot is None):
            inherited = _lookback_time(buf, off, start, parser)
            if inherited is not None:
                ev = Event(ev.file, ev.line, ev.kind, ev.text, ev.message, inherited, True,
                           ev.rank, ev.local_rank, ev.node, ev.pid)
        context = tuple(following[:context_n]) if context_n else tuple(extra_context)
        scan.hits.append(Hit(ev, tuple(kept), context))


def _read_tail(fh: BinaryIO, scan: FileScan, parser: LineParser, tail_bytes: int) -> None:
    try:
        size = os.fstat(fh.fileno()).st_size
        start = max(0, size - tail_bytes)
        fh.seek(start)
        data = fh.read(tail_bytes)
    except OSError as exc:
        scan.warnings.append(f"{parser.f.display}: cannot read its end ({exc.strerror or exc})")
        return
    if start > 0:
        nl = data.find(b"\n")
        data = data[nl + 1 :] if nl >= 0 else b""
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    scan.tail_first = max(1, scan.lines - len(lines) + 1)
    scan.tail_lines = [decode_line(raw[:MAX_LINE]) for raw in lines]
    for raw in scan.tail_lines:
        if raw.startswith("[") or parser.style is PrefixStyle.SRUN_LABEL:
            pre = strip_prefix(raw, parser.style)
            if pre.rank is not None:
                scan.prefix_ranks.add(pre.rank)
