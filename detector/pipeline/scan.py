"""Read one log file: find the lines that rules match (one prefilter scan per chunk, which also
says which rules may match each line), parse those lines into Events, and read the file's tail
for last activity and step lines.

Memory stays bounded whatever the file size: the file is read in chunks; only matched lines,
torchelastic summaries and the tail are kept. With an :class:`EvidenceCap` (the live sidecar's,
or one shared by a replay's files), the matched lines kept are bounded too, whatever their number.

Per-line Python work is for the lines that matter: candidate lines (the prefilter's), and in the
tail, rank prefixes (one cheap test for the usual ``[rankN]:`` and plain lines) and the lines the
last-activity walk visits; it is done once per file (:attr:`FileScan.activity`).
"""

from __future__ import annotations

import dataclasses
import os
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, BinaryIO

from detector.pipeline.evidence import (
    Admission,
    EvidenceCap,
    FileCap,
    Hit,
)
from detector.rules.engine import RuleMatch, RuleSet, Verified
from detector.sources.lines import LineParser
from detector.sources.prefixes import Prefixed, PrefixStyle, detect_style, quick_prefix, strip_prefix
from detector.sources.runs import LogFile
from detector.sources.torchelastic import FailureRecord, parse_summary
from detector.support.text import decode_line, is_binary
from detector.types import Event

# the bytes support.text.is_binary counts as control characters: a head that is ASCII and holds
# none of them is text (is_binary's count is 0), which one C call tells
_CONTROL_BYTES = bytes([*range(0, 9), *range(14, 27), *range(28, 32)])

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
    # (rank, local rank) as the Event of every matched line would carry them, kept by the cap or
    # not: the ranks that produced evidence (the report's summary counts them all)
    evidence_ranks: set[tuple[int | None, int | None]] = field(default_factory=set)
    # last_activity() of a file read to its end, worked out once (None: not yet)
    activity: dict[int | None, datetime] | None = None
    # per tail line, (rank, hinted, message) where worked out (a bare rank where only that is
    # known); a cache for the tail's readers
    tail_keys: list[tuple[int | None, bool, str] | int | None] = field(default_factory=list, repr=False)
    # the tail's step lines as parsed where the file was read (a parallel replay's worker):
    # (name of the preset used, pipeline.steps.step_items' result)
    steps: tuple[str, list[Any]] | None = field(default=None, repr=False)
    # how the tail was read: (tail_bytes, the file's size then), and how many lines it has. A
    # file read in a worker process comes back without its tail lines (most are never looked
    # at again); tail_of() reads them again when they are
    tail_source: tuple[int, int] | None = field(default=None, repr=False)
    tail_count: int = 0


def tail_of(scan: FileScan) -> list[str]:
    """``scan.tail_lines``, read again from the file (the same bytes: up to the size it had)
    when the scan came back from a worker without them."""
    if not scan.tail_lines and scan.tail_count and scan.tail_source is not None:
        tail_bytes, size = scan.tail_source
        try:
            with open(scan.file.path, "rb") as fh:
                data = _tail_bytes(fh, tail_bytes, size)
        except OSError:
            return scan.tail_lines
        scan.tail_lines = _tail_text_lines(data, tail_bytes)
        scan.tail_first = max(1, scan.lines - len(scan.tail_lines) + 1)
    return scan.tail_lines


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
        if not (head.isascii() and len(head.translate(None, _CONTROL_BYTES)) == len(head)) and is_binary(head):
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
    scan.activity = last_activity(scan)
    for _rank, time in scan.activity.items():
        if scan.last_time is None or time > scan.last_time:
            scan.last_time = time
    return scan


def _tail_key(scan: FileScan, index: int, style: PrefixStyle) -> tuple[int | None, bool, str]:
    """(rank, hinted, message) of ``scan.tail_lines[index]`` (as :func:`strip_prefix` gives
    them), worked out once."""
    keys = scan.tail_keys
    key = keys[index] if index < len(keys) else None
    if key is None or isinstance(key, int):
        raw = tail_of(scan)[index]
        quick = quick_prefix(raw, style)
        if quick is not None:
            key = (quick[0], False, raw[quick[2]:] if quick[2] else raw)
        else:
            pre = strip_prefix(raw, style)
            key = (pre.rank, pre.hinted, pre.message)
        if index < len(keys):
            keys[index] = key
    return key


def tail_message(scan: FileScan, index: int) -> str:
    """The message of ``scan.tail_lines[index]`` (its rank prefix removed)."""
    parser = scan.parser
    return _tail_key(scan, index, parser.style if parser is not None else PrefixStyle.BRACKETS)[2]


def _tail_prefixed(scan: FileScan, index: int, style: PrefixStyle) -> Prefixed:
    raw = tail_of(scan)[index]
    quick = quick_prefix(raw, style)
    if quick is not None:
        return Prefixed(raw[quick[2]:] if quick[2] else raw, quick[0], quick[1])
    return strip_prefix(raw, style)


def tail_event(scan: FileScan, index: int) -> Event:
    """The Event of ``scan.tail_lines[index]``; a line without a timestamp inherits the time of
    the nearest earlier stamped line of the tail."""
    parser = scan.parser
    assert parser is not None
    style = parser.style
    ev, stamp = parser.event_of(_tail_prefixed(scan, index, style), tail_of(scan)[index], scan.tail_first + index, None)
    if ev.time is None and (stamp is None or stamp.since_boot is None):
        for back in range(index - 1, max(-1, index - 1 - LOOKBACK_LINES), -1):
            prev = parser.stamp(_tail_key(scan, back, style)[2])
            if prev is not None and prev.time is not None:
                return Event(ev.file, ev.line, ev.kind, ev.text, ev.message, prev.time, True,
                             ev.rank, ev.local_rank, ev.node, ev.pid)
    return ev


ACTIVITY_LINES = 20000


def last_activity(scan: FileScan, *, max_lines: int = ACTIVITY_LINES) -> dict[int | None, datetime]:
    """The time of the last stamped line of the file, per rank prefix (None: lines without a
    prefix). Reads the tail backwards and stops once every prefix rank seen is placed. Worked
    out once per file read to its end (:attr:`FileScan.activity`)."""
    if scan.activity is not None and max_lines == ACTIVITY_LINES:
        return scan.activity
    parser = scan.parser
    out: dict[int | None, datetime] = {}
    if parser is None:
        return out
    style = parser.style
    stamp_of = parser.stamp
    keys = scan.tail_keys
    lines = tail_of(scan)
    if len(keys) != len(lines):
        keys[:] = [None] * len(lines)
    wanted = len(scan.prefix_ranks) + 1
    for i in range(len(lines) - 1, max(-1, len(lines) - 1 - max_lines), -1):
        key = keys[i]
        if isinstance(key, int):  # a line with the rank prefix of the one before (_read_tail)
            if key in out:
                continue
            key = _tail_key(scan, i, style)
        elif key is None:
            key = _tail_key(scan, i, style)
        rank = key[0]
        if rank in out:
            continue
        stamp = stamp_of(key[2])
        if stamp is not None and stamp.time is not None:
            out[rank] = stamp.time
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
        if not bad_utf8 and not buf.isascii():  # ASCII (most logs) is valid UTF-8: no decoding to check it
            try:
                str(memoryview(buf)[:end], "utf-8")
            except UnicodeDecodeError as exc:
                bad_utf8 = True
                ln = base_line + buf.count(b"\n", 0, exc.start)
                scan.warnings.append(f"{parser.f.display}:{ln}: invalid UTF-8, replaced with U+FFFD")
        newlines = count_newlines(buf) - buf.count(b"\n", end)
        process_buffer(buf, 0, end, base_line, scan, parser, rules, newlines=newlines)
        scan.lines += newlines + (1 if eof and end > 0 and not buf.endswith(b"\n") else 0)
        base_line += newlines
        carry = buf[end:]
        if eof:
            break


def count_newlines(buf: bytes) -> int:
    """The line feeds in ``buf``: ``bytes.replace`` finds them with memchr, about twice as fast
    as ``bytes.count`` of one byte (which compares byte by byte)."""
    return len(buf) - len(buf.replace(b"\n", b""))


def process_buffer(buf: bytes, start: int, end: int, base_line: int, scan: FileScan, parser: LineParser, rules: RuleSet,
                   *, newlines: int | None = None) -> None:
    """Match the candidate lines of ``buf[start:end]`` and add their hits to ``scan`` (those its
    cap admits: a line the cap turns down costs no timestamp parsing, no Event and no fields).
    ``rules`` gives the candidate lines (``candidate_lines``: with the ids of the rules the
    prefilter saw match in each, where it knows them) and verifies them (``verify``,
    ``search_next``). ``newlines``: the line feeds in buf[start:end] where the caller counted
    them; a candidate's line number is then counted from the nearer end (candidates at the start
    and the end of a large buffer cost two short counts, not one over all of it)."""
    last_off = start
    line_no = base_line
    f = scan.file
    display = f.display
    style = parser.style
    kind = parser.kind
    count = buf.count
    find = buf.find
    own_rank = f.rank is not None
    for off, ids in rules.candidate_lines(buf, start, end):
        if newlines is not None and off - last_off > end - off:
            line_no = base_line + newlines - count(b"\n", off, end)
        else:
            line_no += count(b"\n", last_off, off)
        last_off = off
        line_end = find(b"\n", off)
        if line_end < 0:
            line_end = len(buf)
        raw = buf[off:line_end].decode("utf-8", "replace")
        if "\r" in raw:
            raw = decode_line(buf[off:line_end])
        quick = quick_prefix(raw, style)
        pre: Prefixed | None
        if quick is None:
            pre = strip_prefix(raw, style)
            rank, local, hinted, message = pre.rank, pre.local_rank, pre.hinted, pre.message
        else:
            pre = None
            rank, local, hinted = quick[0], quick[1], False
            message = raw[quick[2]:] if quick[2] else raw
        if rank is not None and not hinted:  # a rank named inside a message is no prefix
            scan.prefix_ranks.add(rank)
        if "ChildFailedError" in message:
            follow = _following(buf, line_end, 120)
            scan.failures.extend(parse_summary(follow, style, parser.f.display, line_no + 1))
        if ids is not None and (line_end - off != len(raw) or not raw.endswith(message)):
            ids = None  # the prefilter saw other bytes than the message: the selector looks itself
        matches = rules.verify(message, kind, ids)
        if not matches:
            stamp = parser.stamp(message)
            if stamp is not None and stamp.host:
                scan.hosts.add(stamp.host)
            continue
        context_n = window_n = 0
        windowed = False
        for m in matches:
            rule = m.rule
            if rule.context_lines > context_n:
                context_n = rule.context_lines
            if rule.window_within > window_n:
                window_n = rule.window_within
            windowed = windowed or rule.window_next is not None
        following = _following(buf, line_end, max(context_n, window_n)) if (context_n or window_n) else []
        kept: Sequence[Verified | RuleMatch] = matches
        extra_context: list[str] = []
        if windowed:
            windowed_kept: list[Verified | RuleMatch] = []
            kept = windowed_kept
            for m in matches:
                if m.rule.window_next is None:
                    windowed_kept.append(m)
                    continue
                found = None
                for i, nxt in enumerate(following[: m.rule.window_within]):
                    wm = rules.search_next(m.rule, strip_prefix(nxt, style).message)
                    if wm:
                        found = (i, wm)
                        break
                if found is None:
                    continue
                i, wm = found
                extra = tuple((k, v) for k, v in wm.groupdict().items() if v is not None)
                windowed_kept.append(RuleMatch(m.rule, m.fields + extra))
                extra_context.extend(following[: i + 1])
        if not kept:
            stamp = parser.stamp(message)
            if stamp is not None and stamp.host:
                scan.hosts.add(stamp.host)
            continue
        # as LineParser.event_of places the line: a rank hinted in the message is not the rank
        # of a file that has its own
        scan.evidence_ranks.add((None if hinted and own_rank else rank, local if local is not None else f.local_rank))
        if scan.cap is not None and not scan.cap.admit(display, line_no, rank, kept):
            continue
        if pre is None:
            pre = Prefixed(message, rank, local)
        ev, stamp = parser.event_of(pre, raw, line_no, None)
        if stamp is not None and stamp.host:
            scan.hosts.add(stamp.host)
        if ev.time is None and (stamp is None or stamp.since_boot is None):
            inherited = _lookback_time(buf, off, start, parser)
            if inherited is not None:
                ev = Event(ev.file, ev.line, ev.kind, ev.text, ev.message, inherited, True,
                           ev.rank, ev.local_rank, ev.node, ev.pid)
        context = tuple(following[:context_n]) if context_n else tuple(extra_context)
        scan.hits.append(Hit(ev, tuple(m if isinstance(m, RuleMatch) else m.result() for m in kept), context))


def tail_lines(data: bytes) -> list[str]:
    """The lines of a file's tail (whole lines), as :func:`decode_line` gives each: one decoding
    and one split for all of them (a line feed is never part of a UTF-8 sequence, so decoding
    the whole equals decoding each line)."""
    text = data.decode("utf-8", "replace")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if "\r" in text:  # tqdm redraws: the line as decode_line gives it
        lines = [decode_line(line.encode("utf-8")) if "\r" in line else line for line in lines]
    return lines


def _tail_bytes(fh: BinaryIO, tail_bytes: int, size: int) -> bytes:
    """The whole lines of the last ``tail_bytes`` of the file's first ``size`` bytes."""
    start = max(0, size - tail_bytes)
    fh.seek(start)
    data = fh.read(size - start)
    if start > 0:
        nl = data.find(b"\n")
        data = data[nl + 1 :] if nl >= 0 else b""
    return data


def _tail_text_lines(data: bytes, tail_bytes: int) -> list[str]:
    if tail_bytes <= MAX_LINE:
        return tail_lines(data)
    raws = data.split(b"\n")
    if raws and raws[-1] == b"":
        raws.pop()
    return [decode_line(raw[:MAX_LINE]) for raw in raws]


def _read_tail(fh: BinaryIO, scan: FileScan, parser: LineParser, tail_bytes: int) -> None:
    try:
        size = os.fstat(fh.fileno()).st_size
        data = _tail_bytes(fh, tail_bytes, size)
    except OSError as exc:
        scan.warnings.append(f"{parser.f.display}: cannot read its end ({exc.strerror or exc})")
        return
    lines = _tail_text_lines(data, tail_bytes)
    scan.tail_first = max(1, scan.lines - len(lines) + 1)
    scan.tail_lines = lines
    scan.tail_source = (tail_bytes, size)
    scan.tail_count = len(lines)
    # the rank prefixes of the tail's lines (those that may carry one): one test for the usual
    # shapes, strip_prefix for the rest; each line's rank (and message, where worked out) kept
    # for last_activity. A line that begins with the same "[rankN]:" as the one before and has
    # no other "[" has that rank (every prefix that could name another begins with "["):
    # str.startswith and str.find are all it costs.
    style = parser.style
    srun = style is PrefixStyle.SRUN_LABEL
    plain = style is PrefixStyle.BRACKETS or style is PrefixStyle.NONE
    ranks = scan.prefix_ranks
    keys: list[tuple[int | None, bool, str] | int | None] = [None] * len(lines)
    scan.tail_keys = keys
    same = ""  # the "[rankN]:" of the last line read with one
    same_rank = -1
    for i, raw in enumerate(lines):
        if srun or raw.startswith("["):
            if same and raw.startswith(same) and raw.find("[", len(same)) < 0:
                keys[i] = same_rank
                continue
            quick = quick_prefix(raw, style)
            if quick is not None:
                rank = quick[0]
                keys[i] = (rank, False, raw[quick[2]:])
                if rank is not None:
                    ranks.add(rank)
                    if plain:
                        same, same_rank = raw[: quick[2]].rstrip(), rank
                continue
            pre = strip_prefix(raw, style)
            keys[i] = (pre.rank, pre.hinted, pre.message)
            if pre.rank is not None and not pre.hinted:
                ranks.add(pre.rank)


# --- a file read in another process (parallel replay) -------------------------------------------

PackedHit = tuple[Event, tuple[tuple[int, tuple[tuple[str, str], ...]], ...], tuple[str, ...]]


@dataclass
class PackedScan:
    """A :class:`FileScan` as a worker process sends it back: each match names its rule by its
    index in the RuleSet (both processes hold the same one), the hits come with the grades the
    file's own cap gave them, and what that cap dropped is counted by rule."""

    scan: FileScan
    hits: list[PackedHit]
    grades: list[tuple[bool, bool]]
    dropped: dict[str, int]
    # FileScan.steps with each Event and StepRecord as (its class, its fields): a tuple pickles
    # (and unpickles) about four times as fast as a dataclass
    steps: tuple[str, list[tuple[Any, Any]]] | None = None


def _flat(obj: Any) -> Any:
    return None if obj is None else (type(obj), tuple(getattr(obj, f.name) for f in dataclasses.fields(obj)))


def _unflat(flat: Any) -> Any:
    return None if flat is None else flat[0](*flat[1])


def pack_scan(scan: FileScan, rules: RuleSet) -> PackedScan:
    index = rules.rule_index
    hits = [(h.event, tuple((index(m.rule), m.fields) for m in h.matches), h.context) for h in scan.hits]
    cap = scan.cap
    grades = list(cap.grades) if isinstance(cap, FileCap) else []
    dropped = dict(cap.dropped_by_rule) if isinstance(cap, FileCap) else {}
    light = dataclasses.replace(scan, hits=[], cap=None, tail_keys=[], tail_lines=[], steps=None)
    steps = None if scan.steps is None else (scan.steps[0], [(_flat(ev), _flat(rec)) for ev, rec in scan.steps[1]])
    return PackedScan(light, hits, grades, dropped, steps)


def settle_scan(scan: FileScan, cap: EvidenceCap) -> FileScan:
    """A FileScan read with a :class:`FileCap` of its own, its hits settled against the run's
    ``cap``, in the file's turn."""
    own = scan.cap
    assert isinstance(own, FileCap)
    scan.hits = cap.take(scan.hits, own.grades, own.dropped_by_rule)
    scan.cap = cap
    return scan


def unpack_scan(packed: PackedScan, rules: RuleSet, cap: EvidenceCap) -> FileScan:
    """The FileScan of a worker, its hits (kept by the worker's :class:`FileCap`) settled
    against the run's ``cap``, in the file's turn."""
    scan = packed.scan
    table = rules.rules
    hits = [Hit(ev, tuple(RuleMatch(table[i], fields) for i, fields in matches), context)
            for ev, matches, context in packed.hits]
    scan.hits = cap.take(hits, packed.grades, Counter(packed.dropped))
    scan.cap = cap
    if packed.steps is not None:
        scan.steps = (packed.steps[0], [(_unflat(ev), _unflat(rec)) for ev, rec in packed.steps[1]])
    return scan
