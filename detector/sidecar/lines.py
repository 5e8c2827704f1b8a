"""Chunks of live lines -> rule hits (the reader's one-scan matcher, :func:`process_buffer`) and
step samples (the stats presets), per followed file.

What differs from replay is only that a file arrives in pieces:

- a multi-line rule (``window``, ``context_lines``) or torchelastic's failure summary may have
  its following lines in the next piece: the tail of a piece from a line near its end that
  needs following lines (a window or context rule matched it, or it starts the summary) is kept
  and scanned again with the next piece; hits already found are not repeated (they are
  replaced when the second look found more context);
- a live line's time is its own timestamp when it has one close to the wall clock, else the time
  it was read (kernel records count seconds since boot; a trainer may log local time);
- step lines are parsed only where cheap: every line of a small piece, the last few lines of a
  large one at most twice a second (a rank printing 1,000 lines a second does not need every
  one for progress; where steps are that fast the hang allowance is its floor anyway);
- the hits kept are bounded across all files by one :class:`EvidenceCap` (a burst of watchdog
  timeouts keeps the first of each rule on each rank, a few thousand repeats, and counts the
  rest); when an episode closes, hits older than its start (no longer attributed) are let go
  if the cap is half used, and each rule on each rank gets its first hits kept afresh.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import cast

from detector.pipeline.evidence import EvidenceCap, Hit, MatchLike, is_index_hit
from detector.pipeline.filescan import FileScan
from detector.pipeline.scan import HEADED_LINES, process_buffer
from detector.rules.engine import RuleSet, Verified
from detector.rules.loader import CompiledRule
from detector.sidecar.model import Chunk
from detector.sources.lines import LineParser
from detector.sources.prefixes import TRACEBACK_HEAD, PrefixStyle, detect_style, strip_prefix
from detector.sources.runs import FileKind, LogFile
from detector.sources.torchelastic import FailureRecord
from detector.stats.model import NoteKind, StepRecord
from detector.stats.steps import PRESETS, Preset, choose_preset, parse_note
from detector.support.compressed import without_terminal_codes
from detector.support.text import decode_line
from detector.types import StreamKind

SMALL_CHUNK_LINES = 32  # parse every line of a piece this small for steps and notes
LAST_LINES = 8  # else the last lines only,
SAMPLE_S = 0.5  # and at most this often per file
SUMMARY_LINES = 120  # torchelastic's failure summary follows its ChildFailedError line
MAX_CARRY = 512 << 10
MAX_CARRY_ROUNDS = 64
PRESET_SAMPLE = 16
# a step line's first bytes: the step and its numbers come first; a longer line (a 200 MB line
# that is no step's, flushed in 1 MiB pieces) is read that far for steps, not searched whole by
# every preset's pattern (0.2 s a MiB)
STEP_LINE_BYTES = 8 << 10
STEP_HEAD_BYTES = 1 << 10  # (a redrawn bar's line: its prefix, before the first redraw, kept with its last redraws)


def _step_part(raw: bytes) -> bytes:
    """What of a line is read for a step: all of it up to :data:`STEP_LINE_BYTES`; of a longer
    one, its first bytes - or, where a progress bar redrew itself on it (carriage returns: the
    line reads as its last redraw), its prefix and its last redraws."""
    if len(raw) <= STEP_LINE_BYTES:
        return raw
    tail = raw[-STEP_LINE_BYTES:]
    cr = tail.find(b"\r")
    if cr < 0:
        return raw[:STEP_LINE_BYTES]
    first = raw.find(b"\r")
    return raw[:min(first, STEP_HEAD_BYTES)] + tail[cr:]


@dataclass(frozen=True, slots=True)
class StepLine:
    """A step line of a file, before its rank is resolved against the run's index."""

    rank: int | None  # from a [rankN] prefix
    local_rank: int | None  # from a [defaultN] prefix
    record: StepRecord
    time: float
    line: int
    text: str


@dataclass(frozen=True, slots=True)
class NoteLine:
    rank: int | None
    local_rank: int | None
    kind: NoteKind
    time: float
    line: int
    text: str


@dataclass
class ChunkResult:
    new_hits: int = 0
    new_failures: int = 0
    steps: list[StepLine] = field(default_factory=list)
    notes: list[NoteLine] = field(default_factory=list)


@dataclass
class LiveFile:
    """One followed file: the reader's accumulator plus what is needed to read it in pieces."""

    file: LogFile
    scan: FileScan
    parser: LineParser | None = None
    preset: Preset | None = None
    preset_sample: list[str] = field(default_factory=list)
    carry: bytes = b""
    carry_line: int = 0
    carry_rounds: int = 0
    hit_lines: dict[int, int] = field(default_factory=dict)  # line -> index in scan.hits
    dropped_lines: set[int] = field(default_factory=set)  # hits the cap dropped, still in the carry
    failure_keys: set[tuple[int, int | None, int | None]] = field(default_factory=set)
    last_received: float | None = None
    last_step_parse: float | None = None


class _Recorder:
    """A RuleSet that remembers the candidate lines the prefilter gave (scanned once) and how
    many following lines each needs: a multi-line rule's window or context, torchelastic's
    failure summary after a ``ChildFailedError`` line; none for the others."""

    def __init__(self, rules: RuleSet) -> None:
        self.rules = rules
        self.needs: list[tuple[int, int]] = []  # (offset of a candidate line, following lines it needs)
        self._last = -1

    def candidate_lines(self, buf: bytes, start: int, end: int) -> Iterator[tuple[int, list[int] | None]]:
        for off, ids in self.rules.candidate_lines(buf, start, end):
            self._last = off
            yield off, ids

    def verify(self, message: str, kind: StreamKind, ids: Sequence[int] | None = None) -> list[Verified]:
        found = self.rules.verify(message, kind, ids)  # called once per candidate, after it is given
        need = SUMMARY_LINES if "ChildFailedError" in message else 0
        at = message.find(TRACEBACK_HEAD) if "Traceback" in message else -1
        if at > 0 and message[:at].strip():
            need = HEADED_LINES  # (a traceback headed on every line: its exception's line may come later)
        for m in found:
            need = max(need, m.rule.window_within, m.rule.context_lines)
        if need:
            self.needs.append((self._last, need))
        return found

    def search_next(self, rule: CompiledRule, text: str) -> re.Match[str] | None:
        return self.rules.search_next(rule, text)


class _Admission:
    """The cap, for lines of one file that may be looked at again (a carried tail): a line
    already kept is taken again (to be merged), a line already dropped is dropped again without
    being counted twice."""

    def __init__(self, cap: EvidenceCap, lf: LiveFile) -> None:
        self.cap = cap
        self.lf = lf

    def admit(self, file: str, line: int, rank: int | None, matches: Sequence[MatchLike]) -> bool:
        lf = self.lf
        if line in lf.hit_lines:
            return True
        if line in lf.dropped_lines:
            return False
        if self.cap.admit(file, line, rank, matches):
            return True
        lf.dropped_lines.add(line)
        return False


class LineProcessor:
    def __init__(self, rules: RuleSet, *, year: int | None, tolerance_s: float,
                 preset: Preset | None = None, cap: EvidenceCap | None = None) -> None:
        self.year = year
        self.tolerance_s = tolerance_s
        self.fixed_preset = preset
        self.cap = cap if cap is not None else EvidenceCap()
        self.set_rules(rules)

    def set_rules(self, rules: RuleSet) -> None:
        """Swap the rule set (hot reload); later pieces are matched with the new one."""
        self.rules = rules

    def open(self, f: LogFile) -> LiveFile:
        return LiveFile(file=f, scan=FileScan(f), preset=self.fixed_preset)

    # --- one piece ---

    def process(self, lf: LiveFile, chunk: Chunk) -> ChunkResult:
        result = ChunkResult()
        # (a console captured with colours: its codes taken off as replay takes them off, so that
        # a rule anchored at a line's first word reads a coloured "ValueError: ..." the same)
        data = without_terminal_codes(chunk.data)
        if not data:
            return result
        if lf.parser is None:
            head = [decode_line(x) for x in data[:8192].split(b"\n")[:50]]
            style = detect_style(head) if lf.file.kind is not FileKind.KERNEL else PrefixStyle.NONE
            lf.parser = LineParser(lf.file, style, self.year)
        parser = lf.parser
        if lf.carry:
            buf, base = lf.carry + data, lf.carry_line
        else:
            buf, base = data, chunk.base_line
        tmp = FileScan(lf.file, cap=_Admission(self.cap, lf))
        recorder = _Recorder(self.rules)
        # the recorder stands in for the RuleSet: process_buffer only calls candidate_lines(), verify(), search_next()
        process_buffer(buf, 0, len(buf), base, tmp, parser, cast(RuleSet, recorder))
        result.new_hits = self._merge_hits(lf, tmp.hits, chunk)
        result.new_failures = self._merge_failures(lf, tmp.failures)
        scan = lf.scan
        scan.prefix_ranks |= tmp.prefix_ranks
        scan.prefix_pairs |= tmp.prefix_pairs
        scan.hosts |= tmp.hosts
        scan.lines += chunk.line_count()
        received = datetime.fromtimestamp(chunk.received, tz=UTC)
        if scan.first_time is None:
            scan.first_time = received
        scan.last_time = received
        lf.last_received = chunk.received
        self._set_carry(lf, buf, base, recorder.needs)
        if lf.file.kind is FileKind.RANK_LOG:
            self._steps(lf, chunk, result)
        return result

    def _fix_time(self, hit: Hit, chunk: Chunk) -> Hit:
        ev = hit.event
        if chunk.backlog and ev.time is not None:
            return hit
        if ev.time is not None and abs(ev.time.timestamp() - chunk.received) <= self.tolerance_s:
            return hit
        if chunk.backlog:
            return hit  # an old line without a time: leave it unknown, as replay would
        event = dataclasses.replace(ev, time=datetime.fromtimestamp(chunk.received, tz=UTC), time_inferred=False)
        return Hit(event, hit.matches, hit.context)

    def _merge_hits(self, lf: LiveFile, hits: Sequence[Hit], chunk: Chunk) -> int:
        new = 0
        scan = lf.scan
        for hit in hits:
            line = hit.event.line
            index = lf.hit_lines.get(line)
            if index is None:  # admitted by the cap (_Admission)
                lf.hit_lines[line] = len(scan.hits)
                scan.hits.append(self._fix_time(hit, chunk))
                new += 1
                continue
            hit = self._fix_time(hit, chunk)
            old = scan.hits[index]
            old_rules = {m.rule.id for m in old.matches}
            if {m.rule.id for m in hit.matches} - old_rules:
                new += 1
            elif len(hit.context) <= len(old.context):
                continue
            # a second look with more following lines: keep the first look's time
            scan.hits[index] = Hit(dataclasses.replace(hit.event, time=old.event.time), hit.matches, hit.context)
        return new

    def new_episode(self, files: Iterable[LiveFile], start: float) -> bool:
        """An episode closed and another starts at ``start``: each rule on each rank gets its
        first hits kept afresh; when the cap is half used, the hits older than ``start`` (no
        longer attributed) are let go first, except who-is-who lines. True when hits were let go."""
        files = list(files)
        cap = self.cap
        dropped = False
        if cap.surplus + cap.protected > cap.limit // 2:
            for lf in files:
                kept = [h for h in lf.scan.hits
                        if h.event.time is None or h.event.time.timestamp() >= start or is_index_hit(h)]
                if len(kept) < len(lf.scan.hits):
                    dropped = True
                    if lf.carry:  # not to be taken again when the carried lines are looked at again
                        gone = {h.event.line for h in lf.scan.hits} - {h.event.line for h in kept}
                        lf.dropped_lines |= {n for n in gone if n >= lf.carry_line}
                    lf.scan.hits = kept
                    lf.hit_lines = {h.event.line: i for i, h in enumerate(kept)}
        cap.recount((lf.file.display, h) for lf in files for h in lf.scan.hits
                    if h.event.time is not None and h.event.time.timestamp() >= start)
        cap.surplus += sum(1 for lf in files for h in lf.scan.hits
                           if h.event.time is None or h.event.time.timestamp() < start)
        return dropped

    def _merge_failures(self, lf: LiveFile, failures: Sequence[FailureRecord]) -> int:
        new = 0
        for fr in failures:
            key = (fr.line, fr.rank, fr.local_rank)
            if key in lf.failure_keys:
                continue
            lf.failure_keys.add(key)
            lf.scan.failures.append(fr)
            new += 1
        return new

    def _set_carry(self, lf: LiveFile, buf: bytes, base: int, needs: Sequence[tuple[int, int]]) -> None:
        """Keep the tail from the first candidate line whose following lines may not all be here
        (a line that needs none is not looked at again: a burst of watchdog timeouts carries
        nothing)."""
        lf.carry, lf.carry_line = b"", 0
        first: int | None = None
        total = buf.count(b"\n")
        before = prev = 0
        for off, need in needs:  # newlines after ``off``: counted once in all, not once per candidate
            before += buf.count(b"\n", prev, off)
            prev = off
            if len(buf) - off <= 4096 * need and total - before <= need:
                first = off
                break
        if first is None or len(buf) - first > MAX_CARRY or lf.carry_rounds >= MAX_CARRY_ROUNDS:
            lf.carry_rounds = 0
            lf.dropped_lines.clear()  # no line is looked at again
            return
        lf.carry = buf[first:]
        lf.carry_line = base + buf.count(b"\n", 0, first)
        lf.carry_rounds += 1
        if lf.dropped_lines:
            lf.dropped_lines = {n for n in lf.dropped_lines if n >= lf.carry_line}

    # --- steps ---

    def _steps(self, lf: LiveFile, chunk: Chunk, result: ChunkResult) -> None:
        data = chunk.data
        count = chunk.line_count()
        if count <= SMALL_CHUNK_LINES:
            lines = data.split(b"\n")[:-1]
            first = chunk.base_line
            indexed = list(enumerate(lines))
            notes = True
        else:
            if lf.last_step_parse is not None and chunk.received - lf.last_step_parse < SAMPLE_S:
                return  # a fast writer: progress is sampled, not every line parsed
            lf.last_step_parse = chunk.received
            tail_start = len(data) - 1
            for _ in range(LAST_LINES):
                tail_start = data.rfind(b"\n", 0, tail_start)
                if tail_start < 0:
                    break
            tail = data[tail_start + 1 :] if tail_start >= 0 else data
            lines = tail.split(b"\n")[:-1]
            first = chunk.base_line + count - len(lines)
            indexed = list(enumerate(lines))[::-1]  # newest first; stop at the first step line
            notes = False
        for i, raw in indexed:
            found = self._step_line(lf, raw, first + i, chunk, result, notes)
            if found and not notes:
                break

    def _step_line(self, lf: LiveFile, raw_b: bytes, line: int, chunk: Chunk, result: ChunkResult,
                   notes: bool) -> bool:
        parser = lf.parser
        assert parser is not None
        raw = decode_line(_step_part(raw_b))
        pre = strip_prefix(raw, parser.style)
        message = pre.message
        record = self._parse(lf, message)
        kind = parse_note(message) if record is None and notes else None
        if record is None and kind is None:
            return False
        stamp = parser.stamp(message)
        time = chunk.received
        if stamp is not None and stamp.time is not None:
            own = stamp.time.timestamp()
            if chunk.backlog or abs(own - chunk.received) <= self.tolerance_s:
                time = own
        if record is not None:
            result.steps.append(StepLine(pre.rank, pre.local_rank, record, time, line, raw))
            return True
        assert kind is not None
        result.notes.append(NoteLine(pre.rank, pre.local_rank, kind, time, line, raw))
        return False

    def _parse(self, lf: LiveFile, message: str) -> StepRecord | None:
        if lf.preset is not None:
            return lf.preset.parse(message)
        for preset in PRESETS:
            record = preset.parse(message)
            if record is not None:
                lf.preset_sample.append(message)
                if len(lf.preset_sample) >= PRESET_SAMPLE:
                    lf.preset = choose_preset(lf.preset_sample) or preset
                    lf.preset_sample.clear()
                return record
        return None
