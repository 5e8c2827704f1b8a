"""Step lines and GPU metrics of a run -> statistical findings (stalls, stragglers, outliers).

The step series come from the tail of each rank's log (the reader keeps the last part of every
file), so the cost does not grow with the size of the run.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Sequence

from detector.errors import RankdoctorError
from detector.pipeline.index import RunIndex, resolve_rank
from detector.pipeline.scan import FileScan, tail_event
from detector.sources.metrics import MetricSeries, load_metrics
from detector.sources.prefixes import strip_prefix
from detector.sources.runs import FileKind, LogFile
from detector.stats import (
    LogNote,
    Preset,
    StatsConfig,
    StepResolver,
    StepSample,
    analyze,
    choose_preset,
    make_note,
)
from detector.types import Finding

SAMPLE_LINES = 400


MAX_STEP_LINES = 160  # per file, from its end: enough history for every detector
_NOTE_HINT = re.compile(r"checkpoint|sav|eval|validat|sanity|finish|complete|done|ended|train_runtime|stopped")


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


def _preset(scans: Sequence[FileScan]) -> Preset | None:
    sample: list[str] = []
    for scan in scans:
        if scan.file.kind is not FileKind.RANK_LOG or scan.parser is None:
            continue
        for raw in scan.tail_lines[-SAMPLE_LINES:]:
            sample.append(strip_prefix(raw, scan.parser.style).message)
        if len(sample) >= 4 * SAMPLE_LINES:
            break
    return choose_preset(sample) if sample else None


def step_samples(scans: Sequence[FileScan], idx: RunIndex) -> tuple[list[StepSample], list[LogNote]]:
    """Per-rank step samples and checkpoint/eval notes from the tails of the rank logs. Lines are
    found with one regex pass over each tail; only those lines are parsed."""
    preset = _preset(scans)
    samples: list[StepSample] = []
    notes: list[LogNote] = []
    if preset is None:
        return samples, notes
    for scan in scans:
        if scan.file.kind is not FileKind.RANK_LOG or not scan.tail_lines:
            continue
        lines = scan.tail_lines
        search = preset.pattern.search
        step_lines: list[int] = []
        for i in range(len(lines) - 1, -1, -1):  # the last MAX_STEP_LINES step lines
            if search(lines[i]):
                step_lines.append(i)
                if len(step_lines) >= MAX_STEP_LINES:
                    break
        step_set = set(step_lines)
        start = min(step_lines) if step_lines else len(lines)
        note_lines = [i for i in _note_candidates(lines, start) if i not in step_set]
        resolvers: dict[int, StepResolver] = {}
        for i in sorted(step_set | set(note_lines)):
            ev = tail_event(scan, i)
            if ev.time is None:
                continue
            rank = resolve_rank(idx, scan.file, ev.rank, ev.local_rank)
            if rank is None:
                continue
            when = ev.time.timestamp()
            record = preset.parse(ev.message)
            if record is None:
                note = make_note(ev.message, rank=rank, time=when, file=ev.file, line=ev.line)
                if note is not None:
                    notes.append(note)
                continue
            resolver = resolvers.setdefault(rank, StepResolver())
            samples.append(resolver.sample(
                record, rank=rank, node=idx.rank_node.get(rank) or scan.file.node, time=when,
                file=ev.file, line=ev.line, text=ev.text, local_rank=idx.rank_local.get(rank),
            ))
    return samples, notes


def _median_step(samples: Sequence[StepSample]) -> float | None:
    durations = [s.duration_s for s in samples if s.duration_s is not None and s.duration_s > 0]
    return statistics.median(durations) if durations else None


def stats_findings(
    scans: Sequence[FileScan],
    idx: RunIndex,
    metric_files: Sequence[LogFile],
    *,
    config: StatsConfig | None = None,
) -> tuple[list[Finding], float | None, list[str]]:
    """Findings of the statistical detectors, the median step time (s) and warnings."""
    warnings: list[str] = []
    metrics: list[MetricSeries] = []
    for f in metric_files:
        try:
            metrics.extend(load_metrics(f.path))
        except (RankdoctorError, OSError) as exc:
            warnings.append(f"{f.display}: metrics not used ({exc})")
    samples, notes = step_samples(scans, idx)
    ends = [s.last_time.timestamp() for s in scans if s.last_time is not None and s.file.kind is FileKind.RANK_LOG]
    end_time = max(ends) if ends else None
    if not samples and not metrics:
        return [], None, warnings
    found = analyze(samples, metrics, end_time=end_time, config=config or StatsConfig(), notes=notes,
                    rank_gpus=dict(idx.rank_gpu) or None)
    return found, _median_step(samples), warnings
