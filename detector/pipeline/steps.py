"""Step lines and GPU metrics of a run -> statistical findings (stalls, stragglers, outliers).

The step series come from the tail of each rank's log (the reader keeps the last part of every
file), so the cost does not grow with the size of the run: the last :data:`MAX_STEP_LINES` step
lines of each file (more, up to :data:`LONG_STEP_LINES`, when few files print steps: a budget of
:data:`STEP_LINE_BUDGET` per run, :func:`step_line_cap`), found with one regex search per line
from the end, and only those lines (and the checkpoint / eval notes among them) parsed. A parallel replay parses them in the process
that read the file (:func:`step_items`, with the preset it guessed); the run's preset is
chosen here from the first files, and a file read with another guess is parsed again.

The statistics (``detector.stats``: numpy) and the metrics reader are imported when used.
"""

from __future__ import annotations

import dataclasses
import re
import statistics
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from detector.pipeline.clocks import node_clock_offsets, shift_notes, shift_samples
from detector.pipeline.filescan import FileScan
from detector.pipeline.index import RunIndex, resolve_line_rank
from detector.pipeline.tail import tail_event, tail_message, tail_of
from detector.sources.prefixes import logger_rank, timing_rank
from detector.sources.runs import FileKind, LogFile
from detector.support.numbers import MAX_RANKS
from detector.types import RULE_SLOWDOWN, RULE_STRAGGLER, Event, Finding

if TYPE_CHECKING:
    from detector.sources.metrics import MetricSeries
    from detector.stats import LogNote, Preset, StatsConfig, StepRecord, StepSample

SAMPLE_LINES = 400


MAX_STEP_LINES = 160  # per file, from its end: the per-rank detectors' history (straggler windows, stall)
LONG_STEP_LINES = 1000  # per file at most, when few files print steps (see step_line_cap)
STEP_LINE_BUDGET = 128 * MAX_STEP_LINES  # step lines parsed per run, shared by the files that print steps
MANY_FILES_BUDGET = 64 * 1024  # step lines parsed per run at most, when many files print steps
MIN_STEP_LINES = 4  # per file at least: the last interval and step of each rank
PROBE_LINES = 200  # a file prints steps when one of its last this many lines is a step line
_NOTE_HINT = re.compile(r"checkpoint|sav|eval|validat|sanity|finish|complete|done|ended|train_runtime|stopped"
                        r"|完成|结束|完毕|結束|完了|終了|완료|종료")

StepItems = list[tuple[Event, "StepRecord | None"]]  # a tail's step and note lines, each with its record


def _note_candidates(lines: Sequence[str], start: int) -> list[int]:
    """Indices (>= start) of lines that may be checkpoint/eval/end notes; one regex pass over
    the joined, lower-cased text (make_note decides)."""
    text = "\n".join(lines[start:]).lower()
    out: list[int] = []
    line_no = 0
    pos = 0
    for m in _NOTE_HINT.finditer(text):
        line_no += text.count("\n", pos, m.start())
        pos = m.start()
        if not out or out[-1] != start + line_no:
            out.append(start + line_no)
    return out


STEP_LOOKBACK = 4000  # lines before a tail's last ones looked through for its last step line
LOOKBACK_FILES = 16  # files whose tails are looked back through for their steps, per question, at most


def _step_words(line: str) -> bool:
    """Whether a line holds a word some preset's step line holds (a substring test, before the
    presets' patterns: they cost a hundred times more, and a file of tracebacks has thousands of
    lines none of them reads)."""
    return ("step" in line or "iter" in line or "Step" in line or "Iter" in line or "poch" in line or "%|" in line
            or "it=" in line or "loss" in line or "batch" in line or "STEP" in line or "ITER" in line)


def steps_end(lines: Sequence[str], window: int, hit: Callable[[str], bool], *, lookback: bool = True) -> int:
    """Where the lines to look at for a file's steps end: the tail's end, or, with ``lookback``,
    where none of its last ``window`` lines is a step line (``hit``) but one of the
    :data:`STEP_LOOKBACK` lines before them is (training's last steps, then a teardown of every
    rank's tracebacks longer than the window), just after that last step line."""
    n = len(lines)
    if not lookback or n <= window or any(hit(line) for line in lines[n - window:]):
        return n
    for i in range(n - window - 1, max(-1, n - window - STEP_LOOKBACK - 1), -1):
        if hit(lines[i]):
            return i + 1
    return n


def preset_sample(scan: FileScan, *, lookback: bool = False) -> list[str]:
    """The messages of the last :data:`SAMPLE_LINES` lines of a file's tail (with ``lookback``, of
    those up to its last step line, where a long teardown follows it: :func:`steps_end`)."""
    lines = tail_of(scan)
    end = len(lines)
    if lookback:
        from detector.stats import PRESETS

        searches = [preset.pattern.search for preset in PRESETS]
        end = steps_end(lines, SAMPLE_LINES, lambda line: _step_words(line) and any(search(line) for search in searches))
    return [tail_message(scan, i) for i in range(max(0, end - SAMPLE_LINES), end)]


def _preset(scans: Sequence[FileScan]) -> Preset | None:
    """The run's step preset, from the last lines of its first rank logs; where those read no
    step (each file ends in a teardown longer than the sample), from the lines before their
    teardowns, in the first :data:`LOOKBACK_FILES` files."""
    from detector.stats import choose_preset

    logs = [scan for scan in scans if scan.file.kind is FileKind.RANK_LOG and scan.parser is not None]
    for lookback in (False, True):
        sample: list[str] = []
        for scan in logs[:LOOKBACK_FILES] if lookback else logs:
            sample.extend(preset_sample(scan, lookback=lookback))
            if len(sample) >= 4 * SAMPLE_LINES:
                break
        chosen = choose_preset(sample) if sample else None
        if chosen is not None:
            return chosen
    return None


OWN_PRESET_FILES = 256  # files that may read their steps with a preset of their own


def _speaks_of_steps(line: str) -> bool:
    return "step" in line or "iter" in line or "Step" in line or "Iter" in line


def _own_preset(scan: FileScan, preset: Preset, *, lookback: bool = False) -> Preset | None:
    """The preset that reads the step lines of a file's last lines (with ``lookback``, of those
    before a teardown longer than the probe), where it is not ``preset`` and the lines speak of
    steps at all (most files that print none are a rank's errors only)."""
    lines = tail_of(scan)
    end = steps_end(lines, PROBE_LINES, _speaks_of_steps, lookback=lookback)
    if not any(_speaks_of_steps(m) for m in lines[max(0, end - PROBE_LINES):end]):
        return None  # (the raw lines first: their prefixes are only taken off where steps may be)
    messages = [tail_message(scan, i) for i in range(max(0, end - PROBE_LINES), end)]
    from detector.stats import choose_preset

    chosen = choose_preset(messages)
    return chosen if chosen is not None and chosen.name != preset.name else None


def step_line_cap(files_with_steps: int) -> int:
    """Step lines taken from the end of each file: the run's budget shared by the files that
    print steps. A job whose steps only a few ranks print (the first rank of each node) keeps a
    long history, up to LONG_STEP_LINES, so that a job slowdown from the middle of the run still
    has its reference level before the change (the slowdown detector's ``slowdown_baseline``
    lines); a run of 128 printing ranks costs what it did (MAX_STEP_LINES each); past
    MANY_FILES_BUDGET / MAX_STEP_LINES printing files (a job of thousands of ranks, each with its
    own log) the files share MANY_FILES_BUDGET lines, MIN_STEP_LINES each at least: the parse
    stays within the budget up to 16,384 files (1,024 files: 64 lines each, three straggler
    windows; 16,384: 4) and grows by MIN_STEP_LINES a file beyond."""
    if files_with_steps <= 0:
        return MAX_STEP_LINES
    if files_with_steps * MAX_STEP_LINES > MANY_FILES_BUDGET:
        return max(MIN_STEP_LINES, MANY_FILES_BUDGET // files_with_steps)
    return max(MAX_STEP_LINES, min(LONG_STEP_LINES, STEP_LINE_BUDGET // files_with_steps))


def _prints_steps(scan: FileScan, preset: Preset, *, lookback: bool = False) -> bool:
    parsed = scan.steps
    if parsed is not None and parsed[0] == preset.name:
        return any(record is not None for _ev, record in parsed[1])
    search = preset.pattern.search
    lines = tail_of(scan)
    end = steps_end(lines, PROBE_LINES, lambda line: search(line) is not None, lookback=lookback)
    return any(search(line) for line in lines[max(0, end - PROBE_LINES):end])


def step_items(scan: FileScan, preset: Preset, cap: int = MAX_STEP_LINES) -> StepItems:
    """The last ``cap`` step lines of a file's tail and the note candidates among them, in
    order, each with its Event and ``preset``'s record (None: not a step line; perhaps a note);
    of the lines without a time, the step lines (:func:`step_samples` keeps them apart) and a
    "training finished" note are kept."""
    from detector.stats import NoteKind, parse_note

    lines = tail_of(scan)
    search = preset.pattern.search
    step_lines: list[int] = []
    for i in range(len(lines) - 1, -1, -1):  # the last `cap` step lines
        if search(lines[i]):
            step_lines.append(i)
            if len(step_lines) >= cap:
                break
    step_set = set(step_lines)
    start = min(step_lines) if step_lines else 0  # a file without step lines: its notes anywhere in the tail
    note_lines = [i for i in _note_candidates(lines, start) if i not in step_set]
    items: StepItems = []
    for i in sorted(step_set | set(note_lines)):
        ev = tail_event(scan, i)
        if ev.time is None and i not in step_set and parse_note(ev.message) is not NoteKind.END:
            continue  # an untimed "training finished" line is kept: the rank finished after its steps
        items.append((ev, preset.parse_found(ev.message) if i in step_set else preset.parse(ev.message)))
    return items


# a JSON record's own time: an ISO stamp or Unix seconds under a logger's usual keys
_RECORD_TIME = re.compile(r'\\?"(?:timestamp|time|ts|@timestamp|asctime|created)\\?"\s*:\s*(?:\\?"(?P<iso>[0-9]{4}-[0-9]{2}-[0-9]{2}'
                          r'[T ][0-9]{2}:[0-9]{2}:[0-9]{2}(?:[.,][0-9]{1,9})?(?:Z|[+-][0-9]{2}:?[0-9]{2})?)\\?"'
                          r'|(?P<epoch>1[0-9]{9}(?:\.[0-9]{1,9})?))')


def record_time(message: str) -> datetime | None:
    """The time a JSON record names for itself (:data:`_RECORD_TIME`), or None."""
    m = _RECORD_TIME.search(message)
    if m is None:
        return None
    if m["epoch"]:
        return datetime.fromtimestamp(float(m["epoch"]), UTC)
    text = m["iso"].replace(",", ".").replace("Z", "+00:00")
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        return None
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


def step_samples(scans: Sequence[FileScan], idx: RunIndex, *, parsed_cap: int = MAX_STEP_LINES,
                 unranked: list[StepSample] | None = None,
                 untimed: list[StepSample] | None = None) -> tuple[list[StepSample], list[LogNote]]:
    """Per-rank step samples and checkpoint/eval notes from the tails of the rank logs. Lines are
    found with one regex pass over each tail; only those lines are parsed. ``parsed_cap``: the
    cap with which the scans' own step lines (``FileScan.steps``, parsed where the file was
    read) were taken. ``unranked``, when given, receives the step lines no rank can be told
    for (a job's log that only one rank writes, unprefixed), one series per file (numbered
    from 0 in place of a rank). ``untimed``, when given, receives the step lines of the ranks
    whose step lines carry no time at all (a console paste, print() timings), on a clock of their
    own: each line the rank's step time after its previous one (:func:`_untimed_samples`)."""
    preset = _preset(scans)
    samples: list[StepSample] = []
    notes: list[LogNote] = []
    if preset is None:
        return samples, notes
    from detector.stats import StepResolver, make_note

    untimed_ends: list[tuple[int, Event]] = []
    no_time: dict[int, list[tuple[Event, StepRecord, str | None]]] = {}  # a rank's step lines without a time
    logs = [scan for scan in scans if scan.file.kind is FileKind.RANK_LOG and (scan.tail_lines or scan.tail_count)]
    n_series = 0
    # a file the run's preset reads no step in may print its steps in another trainer's words
    # (the ranks' own timing lines beside a launcher's log in the run's format): its own preset
    own: dict[int, Preset] = {}
    printing = 0
    lookbacks = LOOKBACK_FILES  # (a file whose last lines are a long teardown: the lines before it)
    for i, scan in enumerate(logs):
        if _prints_steps(scan, preset):
            printing += 1
        elif len(own) < OWN_PRESET_FILES and (other := _own_preset(scan, preset)) is not None:
            own[i] = other
            printing += 1
        elif lookbacks > 0:
            lookbacks -= 1
            if _prints_steps(scan, preset, lookback=True):
                printing += 1
            elif len(own) < OWN_PRESET_FILES and (other := _own_preset(scan, preset, lookback=True)) is not None:
                own[i] = other
                printing += 1
    cap = step_line_cap(printing)
    for i, scan in enumerate(logs):
        file_preset = own.get(i, preset)
        parsed = scan.steps
        if parsed is not None and parsed[0] == file_preset.name and cap <= parsed_cap:
            items = parsed[1]  # (the workers' cap counts every rank log: never below the run's)
        else:
            items = step_items(scan, file_preset, cap)
        resolvers: dict[int, StepResolver] = {}
        series: StepResolver | None = None
        file_notes: list[LogNote] = []  # notes no rank printed ("training finished: 60 steps")
        for ev, record in items:
            if record is not None and (ev.time is None or ev.time_inferred) and ev.message.lstrip().startswith("{"):
                # (a JSON step record's own time, not the stamped line's before it)
                ev = dataclasses.replace(ev, time=record_time(ev.message), time_inferred=False)
            rank = resolve_line_rank(idx, scan.file, idx.node(ev.node), ev.rank, ev.local_rank)
            worded = False  # the rank from the line's own words, not its prefix or file
            if not rank and record is not None and "rank" in ev.message:
                # a timing line about another rank than the one that printed it (rank 0's, or srun
                # task 0's, line per rank of timings gathered: "0: ... rank=2 step=7300 fwd_bwd=..."):
                # the logger's rank field says whose step it is
                field = logger_rank(ev.message)
                if field is None:
                    field = timing_rank(ev.message)
                if field is not None and field < MAX_RANKS:
                    rank, worded = field, field != rank
            if rank is None:
                if record is None and ev.time is not None:
                    note = make_note(ev.message, rank=None, time=ev.time.timestamp(), file=ev.file, line=ev.line)
                    if note is not None:
                        file_notes.append(note)
                    continue
                if unranked is not None and record is not None and ev.time is not None:
                    if series is None:
                        series, n_series = StepResolver(), n_series + 1
                    unranked.append(series.sample(record, rank=n_series - 1, node=scan.file.node,
                                                  time=ev.time.timestamp(), file=ev.file, line=ev.line, text=ev.text))
                continue
            if ev.time is None or (worded and ev.time_inferred):
                # "training finished" with no time of its own (a stdout dict); a step line with none,
                # of a rank its words name (the time of the stamped line before it is another's)
                if record is not None:
                    no_time.setdefault(rank, []).append((ev, record, scan.file.node))
                else:
                    untimed_ends.append((rank, ev))
                continue
            when = ev.time.timestamp()
            if record is None:
                note = make_note(ev.message, rank=rank, time=when, file=ev.file, line=ev.line)
                if note is not None:
                    notes.append(note)
                continue
            resolver = resolvers.setdefault(rank, StepResolver())
            samples.append(resolver.sample(
                record, rank=rank, node=idx.rank_node.get(rank) or scan.file.node or ev.node, time=when,
                file=ev.file, line=ev.line, text=ev.text, local_rank=idx.rank_local.get(rank),
            ))
        # a note no rank printed (the job's end of training, a checkpoint) where the file's step
        # lines name their ranks: the whole job's
        if resolvers:
            notes.extend(file_notes)
    if untimed_ends:  # such a rank finished after its last step line: the note goes just after it
        last: dict[int, float] = {}
        for sample in samples:
            last[sample.rank] = max(last.get(sample.rank, sample.time), sample.time)
        for rank, ev in untimed_ends:
            if rank in last:
                note = make_note(ev.message, rank=rank, time=last[rank] + 1.0, file=ev.file, line=ev.line)
                if note is not None:
                    notes.append(note)
    if untimed is not None and no_time:
        timed = {sample.rank for sample in samples}
        untimed.extend(_untimed_samples({r: lines for r, lines in no_time.items() if r not in timed}, idx))
    return samples, notes


def _untimed_samples(lines: dict[int, list[tuple[Event, StepRecord, str | None]]], idx: RunIndex) -> list[StepSample]:
    """The step lines of ranks that print them without a time, each on a clock of its own that
    starts at 0 and advances by the line's step time (its rank-local times added up where it prints
    no step time) for each step since the rank's previous line (a line every 50 steps: 50 step
    times): what the straggler detector needs, the ranks' local times on the same steps and the
    job's time per step; no stall or slowdown can be told from them."""
    from detector.stats import StepResolver

    out: list[StepSample] = []
    for rank, found in sorted(lines.items()):
        resolver = StepResolver()
        clock = 0.0
        previous: int | None = None
        for ev, record, node in found:
            sample = resolver.sample(record, rank=rank, node=idx.rank_node.get(rank) or node, time=clock,
                                     file=ev.file, line=ev.line, text=ev.text, local_rank=idx.rank_local.get(rank))
            steps = sample.step - previous if previous is not None and sample.step > previous else 1
            previous = sample.step if previous is None else max(previous, sample.step)
            clock += (record.duration_s or sum(v for _k, v in record.local) or 1.0) * min(steps, MAX_STEP_GAP)
            out.append(dataclasses.replace(sample, time=clock))
    return out


MAX_STEP_GAP = 10_000  # steps between two of a rank's untimed lines that advance its clock, at most


def _no_intervals(samples: Sequence[StepSample]) -> bool:
    """No rank has two step lines (a paste of a few lines): no interval between steps, so no
    stall, straggler or slowdown to find."""
    seen: set[int] = set()
    for sample in samples:
        if sample.rank in seen:
            return False
        seen.add(sample.rank)
    return True


def _median_step(samples: Sequence[StepSample]) -> float | None:
    durations = [s.duration_s for s in samples if s.duration_s is not None and s.duration_s > 0]
    return statistics.median(durations) if durations else None


def stats_findings(
    scans: Sequence[FileScan],
    idx: RunIndex,
    metric_files: Sequence[LogFile],
    *,
    config: StatsConfig | None = None,
    parsed_cap: int = MAX_STEP_LINES,
) -> tuple[list[Finding], float | None, list[str], dict[str, float]]:
    """Findings of the statistical detectors, the median step time (s), warnings, and the clock
    offsets of the nodes whose clocks the step lines show to be off (host key -> seconds ahead:
    :func:`detector.pipeline.clocks.node_clock_offsets`; the samples are read on one clock)."""
    warnings: list[str] = []
    metrics: list[MetricSeries] = []
    if metric_files:
        from detector.errors import RankdoctorError
        from detector.sources.metrics import load_metrics

        for f in metric_files:
            try:
                metrics.extend(load_metrics(f.path))
            except (RankdoctorError, OSError) as exc:
                warnings.append(f"{f.display}: metrics not used ({exc})")
    unranked: list[StepSample] = []
    untimed: list[StepSample] = []
    samples, notes = step_samples(scans, idx, parsed_cap=parsed_cap, unranked=unranked, untimed=untimed)
    found, median, warnings, offsets = _timed_findings(scans, idx, samples, notes, unranked, metrics, warnings, config)
    if untimed and not any(f.rule == RULE_STRAGGLER for f in found):
        found.extend(_untimed_stragglers(untimed, warnings, config))
    return found, median, warnings, offsets


def _untimed_stragglers(untimed: list[StepSample], warnings: list[str], config: StatsConfig | None) -> list[Finding]:
    """The straggler findings of the ranks whose step lines carry no time (:func:`_untimed_samples`),
    placed in no time: their clock is the lines' own."""
    if _no_intervals(untimed):
        return []
    from detector.stats import StatsConfig, analyze

    found = _guarded(warnings, lambda: analyze(untimed, [], end_time=None, config=config or StatsConfig()))
    return [dataclasses.replace(f, time=None) for f in found if f.rule == RULE_STRAGGLER]


def _timed_findings(scans: Sequence[FileScan], idx: RunIndex, samples: list[StepSample], notes: list[LogNote],
                    unranked: list[StepSample], metrics: list[MetricSeries], warnings: list[str],
                    config: StatsConfig | None) -> tuple[list[Finding], float | None, list[str], dict[str, float]]:
    offsets = node_clock_offsets(samples)
    if offsets:
        samples = shift_samples(samples, offsets)
        notes = shift_notes(notes, idx.rank_node, offsets)
    ends = [s.last_time.timestamp() for s in scans if s.last_time is not None and s.file.kind is FileKind.RANK_LOG]
    end_time = max(ends) if ends else None
    if not metrics and _no_intervals(samples):  # nothing a detector could judge: numpy's import spared
        if _no_intervals(unranked):
            return [], _median_step(samples), warnings, offsets
        # step lines no rank can be told for (one rank's progress in the job's log): they say
        # whether the job slowed down, not which rank stalled or lagged
        from detector.stats import StatsConfig, analyze

        slowed = [f for f in _guarded(warnings, lambda: analyze(unranked, [], end_time=end_time,
                                                                config=config or StatsConfig()))
                  if f.rule == RULE_SLOWDOWN]
        return slowed, _median_step(samples), warnings, offsets
    from detector.stats import StatsConfig, analyze

    found = _guarded(warnings, lambda: analyze(samples, metrics, end_time=end_time, config=config or StatsConfig(),
                                               notes=notes, rank_gpus=dict(idx.rank_gpu) or None))
    return found, _median_step(samples), warnings, offsets


def _guarded(warnings: list[str], run: Callable[[], list[Finding]]) -> list[Finding]:
    """The statistics' findings, or none with a warning where they fail on this run (a fault of
    rankdoctor's, to report): the diagnosis goes on from the rules' findings without them."""
    try:
        return run()
    except Exception as exc:
        warnings.append(f"step statistics skipped: they failed on this run ({type(exc).__name__}: {str(exc)[:200]}); "
                        "the diagnosis uses the rules' findings only - please report this with the run")
        return []

