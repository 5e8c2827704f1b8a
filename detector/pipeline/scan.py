"""Read one log file: find the lines that rules match (one prefilter scan per chunk, which also
says which rules may match each line), parse those lines into Events, and read the file's tail
(:mod:`detector.pipeline.tail`) for last activity and step lines.

Memory stays bounded whatever the file size: the file is read in chunks; only matched lines,
torchelastic summaries and the tail are kept. With an :class:`EvidenceCap` (the live sidecar's,
or one shared by a replay's files), the matched lines kept are bounded too, whatever their number.

Per-line Python work is for the lines that matter: candidate lines (the prefilter's), and in the
tail, rank prefixes (one cheap test for the usual ``[rankN]:`` and plain lines) and the lines the
last-activity walk visits; it is done once per file (:attr:`FileScan.activity`).
"""

from __future__ import annotations

import itertools
import os
import re
import stat
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime
from typing import BinaryIO

from detector.pipeline.evidence import EvidenceCap, Hit
from detector.pipeline.filescan import LOOKBACK_LINES, MAX_LINE, FileScan
from detector.pipeline.tail import _read_tail, last_activity, last_progress_line, notes_start
from detector.rules.engine import RuleMatch, RuleSet, Verified
from detector.sources.lines import LineParser
from detector.sources.prefixes import TRACEBACK_HEAD, Prefixed, PrefixStyle, detect_style, quick_prefix, strip_prefix
from detector.sources.runs import FileKind, LogFile
from detector.sources.timestamps import date_output, slashed_order, time_of_day
from detector.sources.torchelastic import ENTRY, NO_ENTRY_WITHIN, SUMMARY_FIELD, parse_summary, unstamped
from detector.support.compressed import open_log
from detector.support.text import decode_line, is_binary, plain_text
from detector.types import Event

# the bytes support.text.is_binary counts as control characters: a head that is ASCII and holds
# none of them is text (is_binary's count is 0), which one C call tells
_CONTROL_BYTES = bytes([*range(0, 9), *range(14, 27), *range(28, 32)])
# a kernel log's line in a file that holds the job's too (a logging service's export of the node,
# dmesg pasted above the trainer's output): not when the job began
_KERNELISH = re.compile(r" kernel: |\bNVRM: |nvidia-nvswitch[0-9]{0,3}: |\bSXid \(")

CHUNK = 8 << 20
LOOKAHEAD = 256 << 10  # following lines kept available for multi-line rules
TAIL_BYTES = 256 << 10


_CLOCK_HINT = re.compile(rb":[0-9]{2}:")  # (what every time of day, hh:mm:ss, holds: found fast, by its colon)


def _no_clock(buf: bytes, start: int, end: int) -> bool:
    """``buf[start:end]`` is ASCII and holds no time of day (``hh:mm:ss``): no stamp of it has a
    time (one in other digits than ASCII's is left to the parser)."""
    return _CLOCK_HINT.search(buf, start, end) is None and buf[start:end].isascii()


# a table's row of a GPU's state (nvidia-smi's GPU the driver can no longer query): the state
# when the table was printed, since some time before, no event at the time of a stamp above it
# (the table's header, printed an hour after the job's end): it takes no time from the lines before,
# where its text holds one table (a monitor's tables every half hour each tell their own time)
_STATE_ROWS = frozenset({"xid.smi_gpu_err", "xid.smi_gpu_ecc_err"})
# a traceback's header keeps the line before it (field line_before): a program's word that it
# caught the exception and retries ("upload failed (attempt 1/5), retrying in 30s"), read where
# the file's tail no longer holds it
_TRACEBACK = "python.traceback"
LINE_BEFORE_CHARS = 200
LOOKBACK_MEMO = 100_000  # lines whose stamp a buffer's look-backs remember (then forgotten, and read again)


def _lookback_time(buf: bytes, start: int, floor: int, parser: LineParser,
                   memo: dict[int, datetime | None] | None = None) -> datetime | None:
    """The time of the nearest stamped line among the :data:`LOOKBACK_LINES` before the line
    at ``start`` (not before ``floor``). ``memo``: each line's stamp by its offset, kept by the
    caller over one buffer (untimed lines close together look back over the same lines: each
    is parsed once)."""
    pos = start
    for _ in range(LOOKBACK_LINES):
        if pos <= floor:
            return None
        prev = buf.rfind(b"\n", floor, pos - 1)
        lstart = floor if prev < 0 else prev + 1
        if memo is not None and lstart in memo:
            time = memo[lstart]
        else:
            if _no_clock(buf, lstart, pos - 1):
                time = None  # (every stamp with a time holds a time of day: NCCL's untimed INFO lines by the thousand)
            else:
                raw = decode_line(buf[lstart : pos - 1])
                # (vLLM's header times, month and day only, are their own lines': not lent to others)
                stamp = parser.lent_stamp(strip_prefix(raw, parser.style).message)
                time = stamp.time if stamp is not None else None
            if memo is not None:
                if len(memo) >= LOOKBACK_MEMO:
                    memo.clear()
                memo[lstart] = time
        if time is not None:
            return time
        pos = lstart
    return None


# lines read after "ChildFailedError" for torchelastic's summary: eight entries and a root cause
# whose traceback field holds the error file's whole traceback (a hundred frames and more)
SUMMARY_LINES = 600
SUMMARY_RULE_WITHIN = 4  # lines from "ChildFailedError" to the summary's first "=====" rule
# what begins the summary's table: its rule (a paste may shorten it), the script's "FAILED", the
# failures' heading, the root cause's
_SUMMARY_MARKS = (b"====", b" FAILED", b"Failures:", b"Root Cause")


def _summary_follows(buf: bytes, line_end: int) -> bool:
    """torchelastic's summary table begins right after the line (its "=====" rule or its first
    lines within :data:`SUMMARY_RULE_WITHIN` lines, an entry's exit code within
    ``NO_ENTRY_WITHIN``): only then are its lines read (a file of thousands of
    lines naming ChildFailedError, a traceback's "raise ChildFailedError(" among them, costs
    a few lines each, not :data:`SUMMARY_LINES`)."""
    pos = line_end + 1
    for _ in range(SUMMARY_RULE_WITHIN):
        if pos >= len(buf):
            return False
        nl = buf.find(b"\n", pos)
        if nl < 0:
            nl = len(buf)
        if any(buf.find(mark, pos, nl) >= 0 for mark in _SUMMARY_MARKS):
            break
        pos = nl + 1
    else:
        return False
    # (and an entry's exit code comes within its first lines)
    end = line_end
    for _ in range(NO_ENTRY_WITHIN):
        nl = buf.find(b"\n", end + 1)
        if nl < 0:
            end = len(buf)
            break
        end = nl
    return buf.find(b"exitcode", line_end, end) >= 0


def _bare(message: str) -> str:
    """A summary table's line without a collector's stamp before it, stripped."""
    return unstamped(message).strip()


def _time_field_follows(buf: bytes, line_end: int, style: PrefixStyle) -> bool:
    """The line after an entry's "[5]:" is its "time :" field: a torchrun summary's entry."""
    nxt = _following(buf, line_end, 1)
    field = SUMMARY_FIELD.match(_bare(strip_prefix(nxt[0], style).message)) if nxt else None
    return field is not None and field.group(1) == "time"


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


FIRST_STAMP_LINES = 4000  # lines of a small file searched for its first stamp
STYLE_PROBE_BYTES = 64 << 10  # of a file whose first lines show no prefix, looked at again for one
STYLE_PROBE_LINES = 1000
# a line's start as srun's or MPI's task label ("  3: ", "[3] "), a host's label ("node07: ") or torchx's
# role and replica ("main/0 ") may
# begin it: a file with fewer such lines than the styles ask for is neither (detect_style)
_LABEL_LIKE = re.compile(rb"^(?:[ \t]{0,6}\[?[0-9]{1,6}[\]:] |[A-Za-z0-9][\w.-]{0,62}: |[A-Za-z][\w.-]{0,40}/[0-9]{1,6} )",
                         re.MULTILINE)
_LABELS_AT_LEAST = 3


def _style_past_preamble(fh: BinaryIO, style: PrefixStyle) -> PrefixStyle:
    """The prefix style of the first :data:`STYLE_PROBE_LINES` lines where that is srun's or a
    host's labels (else ``style``, what the first lines showed)."""
    try:
        fh.seek(0)
        probe = fh.read(STYLE_PROBE_BYTES)
    except OSError:
        return style
    if len(_LABEL_LIKE.findall(probe, 0, len(probe))) < _LABELS_AT_LEAST:
        return style  # (too few lines begin as a label could: NCCL's INFO lines by the thousand)
    found = detect_style([decode_line(x) for x in probe.split(b"\n")[:STYLE_PROBE_LINES]])
    return found if found in (PrefixStyle.SRUN_LABEL, PrefixStyle.HOST_LABEL, PrefixStyle.TASK_LABEL) else style


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
        fh, st, note = open_log(f.path, f.compressed)
    except OSError as exc:
        scan.warnings.append(f"{f.display}: cannot open ({exc.strerror or exc}), skipped")
        return scan
    with fh:
        if f.ident is not None and (st.st_dev, st.st_ino) != f.ident:
            scan.warnings.append(f"{f.display}: replaced since the run was listed (by a link or another file), skipped")
            return scan
        if note is not None:
            scan.warnings.append(f"{f.display}: {note}")
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
        if style is PrefixStyle.NONE and len(head) >= 8192:
            # a batch script's preamble (its environment, its "set -x" trace) fills the first
            # lines; srun's labelled output of hundreds of tasks follows, each label seen once
            # before any comes back: a longer look
            style = _style_past_preamble(fh, style)
        parser = LineParser(f, style, year)
        parser.day_first = slashed_order(head_lines)
        scan.first_time = _first_stamp(head_lines, parser)
        if scan.first_time is None:
            # a batch script's "+ date" before anything stamped: when the job started
            scan.first_time = next((t for raw in head_lines if (t := date_output(raw)) is not None), None)
        fh.seek(0)
        size = st.st_size if _is_file(fh) and stat.S_ISREG(st.st_mode) else None
        _scan_body(fh, scan, parser, rules, progress, size)
        if size is not None and _grew(fh, size):
            scan.warnings.append(f"{f.display}: written to while read: read up to its size when opened "
                                 f"({size:,} bytes)")
        _read_tail(fh, scan, parser, tail_bytes, size)
        if scan.first_time is None and scan.tail_first == 1:
            # no stamp in the first lines (a launcher's banner, NCCL's untimed INFO), but the
            # tail holds the whole file: its first stamped line
            first = scan.tail_lines[:FIRST_STAMP_LINES]
            if len(first) > 200 and time_of_day("\n".join(first)) is None:
                first = []  # (no time of day in any of them: one search, not one a line)
            scan.first_time = _first_stamp(first, parser)  # (a kernel line's time only where no other)
        elif scan.first_time is None and f.kind is FileKind.RANK_LOG:
            scan.first_time = _first_dated_line(fh, parser)
    scan.parser = parser
    scan.activity = last_activity(scan)
    # (only a file's findings ask for it, and a later torchrun attempt's files: whether the
    # restarted workers trained on)
    if f.kind is FileKind.RANK_LOG and (scan.hits or scan.failures or (f.attempt or 0) > 0):
        scan.last_progress = last_progress_line(scan)
        scan.notes_start = notes_start(scan)
    for _rank, time in scan.activity.items():
        if scan.last_time is None or time > scan.last_time:
            scan.last_time = time
    return scan

def _is_file(fh: BinaryIO) -> bool:
    """The stream is the log file itself (not a converted or inflated copy in memory)."""
    try:
        fh.fileno()
    except (OSError, ValueError):  # (io.UnsupportedOperation: a BytesIO)
        return False
    return True


def _grew(fh: BinaryIO, size: int) -> bool:
    try:
        return os.fstat(fh.fileno()).st_size > size
    except OSError:
        return False


def _first_stamp(lines: Sequence[str], parser: LineParser) -> datetime | None:
    """The time of the first stamped line of ``lines`` that is not a kernel line, else of the
    first kernel line's (a combined export keeps the node's earlier days in its kernel lines, and
    a kernel line pasted among the job's is not when the job began)."""
    kernel_time = None
    for raw in lines:
        if time_of_day(raw) is None:
            continue  # (no wall-clock stamp without a time of day)
        stamp = parser.stamp(strip_prefix(raw, parser.style).message)
        if stamp is not None and stamp.time is not None:
            if _KERNELISH.search(raw) is None:
                return stamp.time
            kernel_time = kernel_time or stamp.time
    return kernel_time


FIRST_STAMP_BYTES = 8 << 20  # of a large file without a stamp in its first lines, searched for its first date
_DATE = re.compile(rb"(?<![0-9])(?:19|20)[0-9]{2}-[01][0-9]-[0-3][0-9][T ][0-2][0-9]:[0-5][0-9]:[0-5][0-9]")
FIRST_DATE_TRIES = 32


def _first_dated_line(fh: BinaryIO, parser: LineParser) -> datetime | None:
    """The time of the first line stamped with a full date in the first :data:`FIRST_STAMP_BYTES`
    of a file whose first lines hold none and whose tail is not the whole file (thousands of
    NCCL start-up lines before the program's first stamped line): one regex search over the
    bytes for a date, then that line's stamp read as any line's is (a date inside a message is
    no stamp: the next one is tried)."""
    try:
        fh.seek(0)
        data = fh.read(FIRST_STAMP_BYTES)
    except OSError:
        return None
    for m in itertools.islice(_DATE.finditer(data), FIRST_DATE_TRIES):
        start = data.rfind(b"\n", 0, m.start()) + 1
        if m.start() - start > 512:
            continue  # a date deep inside a line (a message, a path): no stamp
        end = data.find(b"\n", m.end(), start + 4096)
        raw = decode_line(data[start : end if end >= 0 else min(len(data), start + 4096)])
        stamp = parser.stamp(strip_prefix(raw, parser.style).message)
        if stamp is not None and stamp.time is not None:
            return stamp.time
    return None


def _scan_body(fh: BinaryIO, scan: FileScan, parser: LineParser, rules: RuleSet,
               progress: Callable[[int], None] | None, size: int | None = None) -> None:
    """``size``: the file's size when it was opened - what is read (a log still written to as
    fast as it is read would otherwise never end)."""
    read = fh.read
    carry = b""
    base_line = 1
    skipping_long = False
    bad_utf8 = False
    left = size
    while True:
        if left is None:
            data = read(CHUNK)
        else:
            data = read(min(CHUNK, left)) if left > 0 else b""
            left -= len(data)
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


NUMPY_COUNT_BYTES = 1 << 20  # from this size numpy counts a buffer's line feeds


def count_newlines(buf: bytes) -> int:
    """The line feeds in ``buf``: ``bytes.replace`` finds them with memchr, about twice as fast
    as ``bytes.count`` of one byte (which compares byte by byte), but it writes a copy of the
    buffer; a large buffer's are counted by numpy's vectorised compare, twice as fast again (its
    boolean array is as large as the copy; a run that large loads numpy for its step statistics
    anyway)."""
    if len(buf) >= NUMPY_COUNT_BYTES:
        import numpy as np  # (only for large buffers: a paste does not pay for its import)

        return int(np.count_nonzero(np.frombuffer(buf, np.uint8) == 10))
    return len(buf) - len(buf.replace(b"\n", b""))


# a traceback a logger or a collector wrote a header before each line of ("2025-03-01
# 10:00:02,311 ERROR Traceback (most recent call last):", the same header before each frame and
# before the exception's line): its exception's line is read without the header, as a plain
# traceback's is (rules anchored at a message's start see it)
HEADED_LINES = 240  # lines from such a header to its exception's line, at most
HEADED_OTHERS = 8  # lines of another shape (another process's) that may lie among them
HEADER_CHARS = 200  # a header longer than this is no logger's
# a header's digits that vary from line to line (a time's, a counter's): those after a separator;
# a word's own digits ("rank3", "node07") are the header's
_HEADER_DIGITS = re.compile(r"(?:(?<=[\s:.,/T-])|^)[0-9]+")


# a header that logs the traceback at a level below an error's (Python's WARNING, INFO, DEBUG), or
# as glog's records (PyTorch's own loggers head every line of the exceptions they catch and log:
# "[rank4]:W0412 22:16:09.399000 91330 torch/_inductor/codecache.py:1021] [0/6] Traceback ..."):
# an exception the program caught, not the one that ended it
# (a level's word in capitals or in small letters, not a host's or a worker's name: "trace-worker-0")
_CAUGHT_HEADER = re.compile(r"(?:^|[\s\[|:(<])(?:WARNING|WARN|INFO|DEBUG|TRACE|NOTICE|warning|warn|info|debug|trace|notice"
                            r"|Warning|Info|Debug)(?:$|[\s\]|:)>])"
                            r"|(?:^|[\s\[:\]])[IWE][0-9]{4} [0-9]{2}:[0-9]{2}:[0-9]{2}"
                            # (SkyPilot's and vLLM's one-letter levels: "W 09-12 22:00:40 train.py:99] ")
                            r"|(?:^|[\s\[:\]])[IWD] [0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}")
_HEADER_RANK = re.compile(r"\[rank([0-9]{1,6})\]:")  # torchrun's prefix after a collector's stamp


def _header_shape(header: str) -> re.Pattern[str]:
    parts = _HEADER_DIGITS.split(header)
    return re.compile("[0-9]+".join(re.escape(p) for p in parts))


def headed_exception(buf: bytes, line_end: int, header: str, style: PrefixStyle) -> tuple[int, int, int, str] | None:
    """The exception's line of a traceback whose header line (ending at ``line_end``) has
    ``header`` before "Traceback (most recent call last):", where the lines after it carry a
    header of the same shape (digits aside): (lines after the header's, the line's offset and end,
    its message without the header). None where no frame and exception line follow in that shape
    within :data:`HEADED_LINES` lines, or more than :data:`HEADED_OTHERS` lines of other shapes
    lie among them."""
    shape = _header_shape(header)
    pos, after, others, frames = line_end + 1, 0, 0, 0
    size = len(buf)
    while after < HEADED_LINES and pos < size:
        nl = buf.find(b"\n", pos)
        if nl < 0:
            nl = size
        after += 1
        message = strip_prefix(decode_line(buf[pos:nl]), style).message
        lead = shape.match(message)
        if lead is None:
            others += 1
            if others > HEADED_OTHERS:
                return None
        else:
            body = message[lead.end():]
            if body[:1] in (" ", "\t"):
                frames += 1
            elif body.strip():
                return (after, pos, nl, body) if frames else None
        pos = nl + 1
    return None


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
    summary_until = 0  # the last line of the last torchelastic summary read
    lookback_memo: dict[int, datetime | None] = {}
    untimed = None  # (whether the buffer holds no time of day at all: looked at once, when first asked)
    # exceptions' lines read without their header (headed_exception), kept until the lines before
    # them are read: (offset, line number, line, message, its matches)
    headed: list[tuple[int, int, str, str, list[Verified]]] = []
    headed_at: set[int] = set()

    def add_headed(upto: int) -> None:
        while headed and headed[0][0] < upto:
            _, number, text, body, found = headed.pop(0)
            if scan.cap is not None and not scan.cap.admit(display, number, None, found):
                continue
            lead = strip_prefix(text, style)
            named = _HEADER_RANK.search(lead.message, 0, len(lead.message) - len(body)) if lead.rank is None else None
            if named is not None:
                lead = Prefixed(lead.message, int(named.group(1)), lead.local_rank, lead.host)
            ev, stamp = parser.event_of(lead, text, number, None)
            if stamp is not None and stamp.host:
                scan.hosts.add(stamp.host)
            scan.evidence_ranks.add((ev.rank, ev.local_rank))
            scan.hits.append(Hit(replace(ev, message=body), tuple(m.result() for m in found), ()))

    for off, ids in rules.candidate_lines(buf, start, end):
        if headed:
            add_headed(off)
        if newlines is not None and off - last_off > end - off:
            line_no = base_line + newlines - count(b"\n", off, end)
        else:
            line_no += count(b"\n", last_off, off)
        last_off = off
        line_end = find(b"\n", off)
        if line_end < 0:
            line_end = len(buf)
        raw = buf[off:line_end].decode("utf-8", "replace")
        if not plain_text(raw):
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
            if local is not None:
                scan.prefix_pairs.add((local, rank))
        if "ChildFailedError" in message and line_no > summary_until and _summary_follows(buf, line_end):
            summary = parse_summary(_following(buf, line_end, SUMMARY_LINES), style, parser.f.display, line_no + 1)
            scan.failures.extend(summary)
            summary_until = max((r.end for r in summary), default=line_no)  # (a line in it is not read again)
        elif "Root Cause (first observed failure)" in message and line_no > summary_until:
            # (a paste of the summary's table that begins at its root cause: its header, the
            # ChildFailedError line, cut away - the entries' own times are still its)
            summary = parse_summary([raw, *_following(buf, line_end, SUMMARY_LINES)], style, parser.f.display, line_no,
                                    opened=True)
            scan.failures.extend(summary)
            # (no entry read: the lines below were read for nothing, and are not read again for the
            # next such line - thousands of them must not cost a window each)
            summary_until = max((r.end for r in summary), default=line_no + SUMMARY_LINES)
        elif line_no > summary_until and (
                ("Failures:" in message and _bare(message) == "Failures:"
                 and any(ENTRY.match(_bare(strip_prefix(nxt, style).message)) for nxt in _following(buf, line_end, 2)))
                or (ENTRY.match(_bare(message)) and _time_field_follows(buf, line_end, style))):
            # (the same from its "Failures:" line, or from an entry's "[5]:" where a paste of the
            # table begins in its middle: each failed rank's entry, with its time)
            summary = parse_summary([raw, *_following(buf, line_end, SUMMARY_LINES)], style, parser.f.display, line_no,
                                    opened=True)
            scan.failures.extend(summary)
            # (no entry read: the lines below were read for nothing, and are not read again for the
            # next such line - thousands of them must not cost a window each)
            summary_until = max((r.end for r in summary), default=line_no + SUMMARY_LINES)
        at = message.find(TRACEBACK_HEAD) if "Traceback" in message else -1
        if 0 < at <= HEADER_CHARS and message[:at].strip() and not _CAUGHT_HEADER.search(message, 0, at) and (
                found_line := headed_exception(buf, line_end, message[:at], style)) is not None:
            after, exc_off, exc_end, body = found_line
            exc_text = decode_line(buf[exc_off:exc_end])
            if exc_off not in headed_at and not rules.verify(strip_prefix(exc_text, style).message, kind, None):
                found_rules = rules.verify(body, kind, None)
                if found_rules:
                    headed_at.add(exc_off)
                    headed.append((exc_off, line_no + after, exc_text, body, found_rules))
                    headed.sort(key=lambda h: h[0])
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
        if ev.time is None and (stamp is None or stamp.since_boot is None) and not (
                all(m.rule.id in _STATE_ROWS for m in kept) and buf.count(b"NVIDIA-SMI ", start, end) <= 1):
            if untimed is None:
                untimed = _no_clock(buf, start, end)
            inherited = None if untimed else _lookback_time(buf, off, start, parser, lookback_memo)
            if inherited is not None:
                ev = Event(ev.file, ev.line, ev.kind, ev.text, ev.message, inherited, True,
                           ev.rank, ev.local_rank, ev.node, ev.pid)
        context = tuple(following[:context_n]) if context_n else tuple(extra_context)
        results = tuple(m if isinstance(m, RuleMatch) else m.result() for m in kept)
        if off > start and any(m.rule.id == _TRACEBACK for m in results):
            before = decode_line(buf[buf.rfind(b"\n", start, off - 1) + 1:off - 1])[-LINE_BEFORE_CHARS:]
            results = tuple(RuleMatch(m.rule, (*m.fields, ("line_before", before))) if m.rule.id == _TRACEBACK else m
                            for m in results)
        scan.hits.append(Hit(ev, results, context))
    if headed:
        add_headed(len(buf) + 1)
