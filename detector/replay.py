"""Offline replay: the pipeline fed by the files of a failed run, clocked by event time."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from detector.attribution.attribute import attribute
from detector.pipeline.evidence import EvidenceCap
from detector.pipeline.model import build_model
from detector.pipeline.scan import TAIL_BYTES, FileScan, scan_file
from detector.pipeline.steps import stats_findings
from detector.rules.engine import RuleSet
from detector.sources.flight_recorder import FrDumpError, analyse, findings, read_dump
from detector.sources.runs import FileKind, LogFile, discover
from detector.sources.timestamps import find_year
from detector.types import Finding, Report, Summary


def flight_recorder_findings(files: Sequence[LogFile], world_size: int | None) -> tuple[list[Finding], list[str]]:
    """PyTorch Flight Recorder dumps of the run: who never entered the collective the others
    wait in, and mismatched collectives. A dump that cannot be read safely is a warning."""
    if not files:
        return [], []
    dumps, warnings = [], []
    for f in files:
        try:
            dumps.append(read_dump(f.path, rank=f.rank, display=f.display))
        except FrDumpError as exc:
            warnings.append(str(exc))
    if not dumps:
        return [], warnings
    analysis = analyse(dumps, world_size=world_size)
    found = findings(analysis, dumps)
    node_of = {f.display: f.node for f in files}
    found = [dataclasses.replace(x, node=x.node or node_of.get(x.file or "")) for x in found]
    return found, [*warnings, *analysis.warnings]


@dataclass(frozen=True, slots=True)
class ReplayOptions:
    follow_symlinks: bool = False
    tail_bytes: int = TAIL_BYTES


def _year_hint(files: Sequence[LogFile]) -> int | None:
    for f in files:
        if f.kind not in (FileKind.RANK_LOG, FileKind.KERNEL):
            continue
        try:
            with open(f.path, "rb") as fh:
                year = find_year(fh.read(16384).decode("utf-8", "replace"))
        except OSError:
            continue
        if year is not None:
            return year
    for f in files:
        try:
            return datetime.fromtimestamp(f.path.stat().st_mtime, tz=UTC).year
        except OSError:
            continue
    return None


def replay_path(
    path: Path,
    rules: RuleSet,
    *,
    options: ReplayOptions = ReplayOptions(),
    progress: Callable[[int], None] | None = None,
    on_total: Callable[[int], None] | None = None,
) -> Report:
    """Analyse a run directory (or one log file). Raises InputError for a missing or empty path;
    problems with single files become warnings in the report."""
    files, warnings = discover(path, follow_symlinks=options.follow_symlinks)
    if on_total is not None:
        on_total(sum(f.size for f in files if f.kind in (FileKind.RANK_LOG, FileKind.KERNEL)))
    year = _year_hint(files)
    scans: list[FileScan] = []
    cap = EvidenceCap()  # a cascade of 100,000 timeouts keeps each rank's first hits, counts the rest
    for f in files:
        if f.kind in (FileKind.RANK_LOG, FileKind.KERNEL):
            scan = scan_file(f, rules, year=year, tail_bytes=options.tail_bytes, progress=progress, cap=cap)
            warnings.extend(scan.warnings)
            scans.append(scan)
    dropped = cap.summary()
    if dropped is not None:
        warnings.append(dropped)
    elastic = [f for f in files if f.kind is FileKind.ELASTIC_ERROR]
    model = build_model(scans, rules, elastic_files=elastic)
    warnings.extend(model.warnings)
    findings: list[Finding] = list(model.findings)
    ranks = model.ranks
    found, warns = flight_recorder_findings([f for f in files if f.kind is FileKind.FR_DUMP], model.index.world_size)
    findings.extend(found)
    warnings.extend(warns)
    metric_files = [f for f in files if f.kind is FileKind.METRICS]
    extra, median_step, warns = stats_findings(scans, model.index, metric_files)
    findings.extend(extra)
    warnings.extend(warns)
    facts = model.facts(findings, median_step)
    incidents = attribute(facts)
    times = [t for s in scans for t in (s.first_time, s.last_time) if t is not None]
    summary = Summary(
        files=len(files),
        lines=sum(s.lines for s in scans),
        ranks=len(ranks),
        nodes=len({r.node for r in ranks.values() if r.node} | {s.file.node for s in scans if s.file.node}),
        start=min(times) if times else None,
        end=max(times) if times else None,
    )
    progress_rows = tuple((r.rank, r.last_time, r.last_step) for r in ranks.values())
    return Report(
        source=str(path),
        summary=summary,
        incidents=tuple(incidents),
        warnings=tuple(warnings),
        progress=progress_rows,
    )
