"""The live engine: the replay pipeline (reader -> build_index -> findings -> attribution) fed
by live sources and clocked by the wall clock.

Everything that decides *what* happened is the replay engine's: rule hits come from the
reader's :func:`process_buffer`, who is who from :func:`build_index` (augmented with what only
a live sidecar sees: the rank processes' environment, NVML's processes per GPU, the config's
``rank_gpus``), findings from :func:`findings_from_hit` / :func:`exit_findings` /
:func:`elastic_error_findings`, stalls from the stats package's :class:`StallTracker`, and
incidents from :func:`attribute`. This module only decides *when* (through the
:class:`IncidentGate`) and keeps the per-rank evidence the metrics endpoint exports.

The hits kept are bounded by the line processor's :class:`EvidenceCap` (the first hits of each
rule on each rank always; :attr:`LiveEngine.evidence_dropped` counts those let go); when the
gate opens a new episode, the cap is told, so that the new episode's first hits are kept too.
"""

from __future__ import annotations

import dataclasses
import itertools
import os
import statistics
import time
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Protocol

from detector.attribution.attribute import attribute
from detector.attribution.incident import STRENGTH
from detector.pipeline.index import LiveFacts, RunIndex, resolve_rank
from detector.pipeline.model import Activity, build_index_for, rank_infos, run_findings
from detector.rules.engine import RuleSet
from detector.sidecar.config import HangConfig
from detector.sidecar.gate import IncidentGate, evidence_key
from detector.sidecar.lines import LineProcessor, LiveFile
from detector.sidecar.model import (
    Chunk,
    ElasticErrorFile,
    External,
    GpuProcesses,
    Item,
    LiveFindings,
    Processes,
    SourceStatus,
    Suspect,
)
from detector.sources.runs import FileKind, LogFile
from detector.stats.config import StatsConfig
from detector.stats.model import LogNote, NoteKind, StepSample
from detector.stats.stall_live import StallTracker
from detector.stats.steps import StepResolver
from detector.types import (
    RULE_PROCESS_EXITED,
    RULE_STALL_WHERE,
    Finding,
    Incident,
    RankInfo,
    RankProcess,
    Role,
    RunFacts,
)

STALL_CHECK_S = 0.5
STRAGGLER_CHECK_S = 10.0  # how often the step history is compared across ranks for a straggler
STEP_INTERVAL_SAMPLES = 20  # each rank's newest step lines that say how slow its steps are
STRAGGLER_SAMPLES = 256  # step lines kept per rank for that (the newest: 12 windows of 20)
STRAGGLER_BUDGET = 0.02  # of one core at most: a check that took t s waits t / this before the next


class HangDiscriminator(Protocol):
    def suspects(self, ranks: Sequence[int]) -> list[Suspect]:
        """Among stalled ``ranks``, those that stopped first, with the reason."""
        ...

    def signatures(self) -> dict[int, str]:
        """Where each rank waits now (exported for the coordinator)."""
        ...


@dataclass(frozen=True, slots=True)
class RankEvidence:
    """What one rank's sidecar knows about it (exported on /metrics for the coordinator)."""

    rank: int
    node: str | None
    local_rank: int | None
    gpu: str | None
    pid: int | None
    attempt: int | None
    last_progress: float | None
    last_step: int | None
    first_error: Finding | None
    first_collateral: Finding | None
    wait_state: str | None


@dataclass
class _Progress:
    last_step: int | None = None
    last_step_time: float | None = None
    last_activity: float | None = None
    attempt: int | None = None


def stats_config(hang: HangConfig) -> StatsConfig:
    return StatsConfig(k=hang.k, floor_s=hang.floor_s, min_intervals=hang.min_intervals,
                       boundary_multiple=hang.boundary_multiple, boundary_pause_s=hang.boundary_pause_s,
                       note_pause_s=hang.note_pause_s)


def _field_ranks(value: str | None) -> list[int]:
    return [int(x) for x in (value or "").split(",") if x.strip().isdigit()]


def launch_folder(f: LogFile) -> str | None:
    """The run folder of the torchrun launch a rank log of ``--log-dir`` belongs to
    (``<run_id>/attempt_N/<local_rank>/stderr.log``: ``<run_id>``), or None for another file."""
    if f.attempt is None or f.local_rank is None:
        return None
    parents = f.path.parents
    if len(parents) < 3 or not parents[1].name.startswith("attempt_"):
        return None
    return str(parents[2])


def _began(folder: str) -> float | None:
    """When a torchrun launch began: its run folder's modification time when first seen (its
    first attempt's folder was made in it then), or None where it cannot be read."""
    try:
        return os.stat(folder).st_mtime
    except OSError:
        return None


class LiveEngine:
    def __init__(self, rules: RuleSet, processor: LineProcessor, gate: IncidentGate, *, node: str | None,
                 hang: HangConfig, rank_gpus: Mapping[int, str] = {},
                 discriminator: HangDiscriminator | None = None) -> None:
        self.rules = rules
        self.node = node
        self._lines = processor
        self.gate = gate
        self._hang = hang
        self._rank_gpus = dict(rank_gpus)
        self._discriminator = discriminator
        self._tracker = StallTracker(stats_config(hang)) if hang.enabled else None
        self._files: dict[str, LiveFile] = {}
        self._launches: dict[str, float | None] = {}  # a torchrun launch's run folder -> when it began
        self._elastic: dict[str, LogFile] = {}
        self._live: list[Finding] = []
        self._external: tuple[Finding, ...] = ()
        self._external_ranks: dict[int, RankInfo] = {}
        self._processes: dict[tuple[int | None, int], RankProcess] = {}  # (attempt, rank) -> latest
        self._alive: tuple[RankProcess, ...] = ()
        self._restarted = False  # processes of a later attempt (or of a new launch) appeared
        self._attempt_high: int | None = None  # the highest attempt of the current launch's processes
        self._gpu_pids: tuple[tuple[str, tuple[int, ...]], ...] = ()
        self._progress: dict[int, _Progress] = {}
        self._resolvers: dict[int, StepResolver] = {}
        self._ended: set[int] = set()
        self._signatures: dict[int, str] = {}
        self._index: RunIndex | None = None
        self._findings: list[Finding] = []
        self._dirty = True
        self._next_stall = 0.0
        self._samples: dict[int, deque[StepSample]] = {}
        self._next_straggler = 0.0
        self._stragglers_said: set[tuple[str, int | None, str | None]] = set()
        self.statuses: dict[str, SourceStatus] = {}
        self.lines_read = 0
        self.evidence: tuple[RankEvidence, ...] = ()
        self._episode = gate.episode_start

    @property
    def evidence_dropped(self) -> int:
        """Matched lines not kept as evidence (repeats beyond the cap), since start."""
        return self._lines.cap.dropped

    @property
    def evidence_dropped_by_rule(self) -> dict[str, int]:
        return dict(self._lines.cap.dropped_by_rule)

    # --- input ---

    def dispatch(self, item: Item) -> None:
        if isinstance(item, Chunk):
            self.on_chunk(item)
        elif isinstance(item, LiveFindings):
            self.on_findings(item.findings)
        elif isinstance(item, Processes):
            self.on_processes(item.alive)
        elif isinstance(item, GpuProcesses):
            self._gpu_pids = item.by_gpu
            self._index = None
            self._dirty = True
        elif isinstance(item, ElasticErrorFile):
            self._elastic[str(item.file.path)] = item.file
            self._dirty = True
        elif isinstance(item, External):
            self._external = item.findings
            self._external_ranks = {r.rank: r for r in item.ranks}
            self._dirty = True
        elif isinstance(item, SourceStatus):
            self.statuses[item.source] = item

    def on_chunk(self, chunk: Chunk) -> None:
        key = str(chunk.file.path)
        lf = self._files.get(key)
        if lf is None:
            lf = self._files[key] = self._lines.open(chunk.file)
            self._index = None
            launch = launch_folder(chunk.file)
            if launch is not None and launch not in self._launches:
                self._launches[launch] = _began(launch)
        result = self._lines.process(lf, chunk)
        self.lines_read += chunk.line_count()
        if result.new_hits or result.new_failures:
            self._index = None
            self._dirty = True
        if not (result.steps or result.notes):
            return
        idx = self.index()
        for step in result.steps:
            rank = resolve_rank(idx, lf.file, step.rank, step.local_rank)
            if rank is None:
                continue
            attempt = lf.file.attempt if lf.file.attempt is not None else self._attempt_of(rank)
            resolver = self._resolvers.setdefault(rank, StepResolver())
            sample = resolver.sample(step.record, rank=rank, node=lf.file.node, time=step.time,
                                     file=lf.file.display, line=step.line, text=step.text,
                                     local_rank=step.local_rank if step.local_rank is not None else lf.file.local_rank)
            launch = launch_folder(lf.file)
            self._observe_step(sample, attempt, self._launches.get(launch) if launch is not None else None)
        for note in result.notes:
            rank = resolve_rank(idx, lf.file, note.rank, note.local_rank)
            if note.kind is NoteKind.END and rank is not None:
                self._ended.add(rank)
            if self._tracker is not None:
                self._tracker.observe_note(LogNote(rank, note.time, note.kind, note.text, lf.file.display, note.line))

    def _observe_step(self, sample: StepSample, attempt: int | None, launch_started: float | None = None) -> None:
        p = self._progress.setdefault(sample.rank, _Progress())
        if p.attempt is not None and attempt is not None and attempt > p.attempt and self._tracker is not None:
            self._tracker = StallTracker(stats_config(self._hang))  # a new attempt starts afresh
        p.last_step, p.last_step_time, p.attempt = sample.step, sample.time, attempt
        p.last_activity = max(p.last_activity or sample.time, sample.time)
        self._ended.discard(sample.rank)
        self._signatures.pop(sample.rank, None)
        self._samples.setdefault(sample.rank, deque(maxlen=STRAGGLER_SAMPLES)).append(sample)
        if self._tracker is not None:
            self._tracker.observe(sample)
        self.gate.progress(sample.rank, attempt, sample.time, max(1, len(self._progress)), launch_started=launch_started,
                           file=sample.file)

    def on_findings(self, findings: Sequence[Finding]) -> None:
        self._live.extend(findings)
        self._dirty = True

    def on_processes(self, alive: Sequence[RankProcess]) -> None:
        self._alive = tuple(alive)
        attempts = [p.attempt for p in alive if p.attempt is not None]
        if attempts:
            top = max(attempts)
            pids = {p.pid for p in self._processes.values()}
            if self._attempt_high is not None and top > self._attempt_high:
                self._restarted = True  # (a later attempt's workers: told to the gate at the next tick)
            elif (self._attempt_high is not None and top < self._attempt_high
                  and not any(p.pid in pids for p in alive)):
                self._restarted = True  # (the job launched again - a requeue, a rerun: attempts count afresh)
            if self._attempt_high is None or top > self._attempt_high or self._restarted:
                self._attempt_high = top
        for proc in alive:
            self._processes[(proc.attempt, proc.rank)] = proc
        self._index = None
        self._dirty = True

    def _attempt_of(self, rank: int) -> int | None:
        attempts = [a for (a, r) in self._processes if r == rank and a is not None]
        return max(attempts) if attempts else None

    # --- who is who ---

    def index(self) -> RunIndex:
        if self._index is None:
            self._index = self._build_index()
        return self._index

    def _build_index(self) -> RunIndex:
        live = LiveFacts(node=self.node, processes=tuple(self._processes.values()), gpu_pids=self._gpu_pids,
                         rank_gpus=self._rank_gpus)
        return build_index_for([lf.scan for lf in self._files.values()], live)

    # --- evidence ---

    def _compute(self) -> list[Finding]:
        out, _warnings = run_findings([lf.scan for lf in self._files.values()], self.index(), self.rules,
                                      list(self._elastic.values()))
        out.extend(f for f in self._live if not (f.rank in self._ended and f.rule == RULE_PROCESS_EXITED))
        out.extend(self._external)
        start = self.gate.episode_start
        if len(self._live) > 1000:  # long runs: forget live evidence of closed episodes
            self._live = [f for f in self._live if f.time is None or f.time.timestamp() >= start]
        return [f for f in out if f.time is None or f.time.timestamp() >= start]

    def rank_infos(self) -> dict[int, RankInfo]:
        activity = {
            r: Activity(datetime.fromtimestamp(p.last_activity, tz=UTC) if p.last_activity is not None else None,
                        p.last_step)
            for r, p in self._progress.items()
        }
        return rank_infos(self.index(), activity, self._external_ranks)

    # --- the clock ---

    def tick(self, now: float) -> list[Incident]:
        if self._tracker is not None and now >= self._next_stall:
            self._next_stall = now + STALL_CHECK_S
            self._check_stalls(now)
        if now >= self._next_straggler:
            started = time.perf_counter()
            self._check_stragglers()
            took = time.perf_counter() - started
            self._next_straggler = now + max(STRAGGLER_CHECK_S, took / STRAGGLER_BUDGET)
        if self._restarted:
            self._restarted = False
            self.gate.new_attempt(now)
        if self.gate.episode_start != self._episode:
            self._episode = self.gate.episode_start
            if self._lines.new_episode(self._files.values(), self._episode):
                self._index = None
                self._dirty = True
        if self._dirty:
            self._findings = self._compute()
            self.gate.observe(self._findings, now)
            self._dirty = False
            self._refresh_evidence()
        due = self.gate.due(now)
        if due is None:
            return []
        if due.exits_only and not any(p.attempt == self._latest_attempt() for p in self._alive):
            self.gate.consume(due)  # the ranks ended together and no line says why: the job ended
            return []
        idx = self.index()
        findings = self._findings
        if self.gate.caught:  # (exceptions the job went on after, seen before: context)
            findings = [dataclasses.replace(f, role=Role.CONTEXT, cause=None) if evidence_key(f) in self.gate.caught
                        else f for f in findings]
        facts = RunFacts(tuple(findings), self.rank_infos(), idx.world_size, None)
        try:
            incidents = attribute(facts)
        except Exception:
            self.gate.consume(due)  # do not try the same evidence again and again
            raise
        held = self.gate.held_until(incidents)
        if held is not None:  # (and longer where the steps are slow: read only then)
            held = self.gate.held_until(incidents, self._step_interval())
        if held is not None:
            if self.gate.went_on(incidents):
                self.gate.drop_caught(incidents, due)  # caught and logged: the job trained on
                self._dirty = True  # (what else was due is attributed again, without them)
                return []
            if now < held:
                self.gate.hold(held, incidents)  # (an exception the job may have caught: does it go on?)
                return []
        return self.gate.select(incidents, due, now)

    def _step_interval(self) -> float | None:
        """The median time between two step lines of a rank, over the ranks' newest
        :data:`STEP_INTERVAL_SAMPLES`; None before two of a rank were seen."""
        gaps: list[float] = []
        for samples in self._samples.values():
            newest = list(samples)[-STEP_INTERVAL_SAMPLES:]
            gaps += [b.time - a.time for a, b in itertools.pairwise(newest) if b.time > a.time]
        return statistics.median(gaps) if gaps else None

    def _latest_attempt(self) -> int | None:
        attempts = [p.attempt for p in self._alive if p.attempt is not None]
        return max(attempts) if attempts else None

    def next_deadline(self) -> float | None:
        return self.gate.deadline()

    def _check_stragglers(self) -> None:
        """The step-time statistics replay runs over a whole log, run over the step lines seen so
        far (the newest :data:`STRAGGLER_SAMPLES` of each rank): a rank or a node persistently
        slower than its peers is evidence as it is in replay, each said once."""
        config = stats_config(self._hang)
        if len(self._samples) < config.min_ranks:
            return
        if min(len(d) for d in self._samples.values()) < config.window * config.consecutive:
            return
        from detector.stats.findings import straggler_findings
        from detector.stats.series import build_grid, job_wall_per_step
        from detector.stats.straggler import detect_stragglers
        from detector.stats.table import table_from_samples

        samples = [x for rank in sorted(self._samples) for x in self._samples[rank]]
        grid = build_grid(table_from_samples(samples))
        hits = detect_stragglers(grid, job_wall_per_step(grid, config.job_ranks_sample), config)
        if not hits:
            return
        fresh = []
        for f in straggler_findings(hits, grid, samples, [], self._rank_gpus, config):
            key = (f.rule, f.rank, f.node)
            if key not in self._stragglers_said:
                self._stragglers_said.add(key)
                fresh.append(f)
        if fresh:
            self.on_findings(fresh)

    def _check_stalls(self, now: float) -> None:
        assert self._tracker is not None
        lasts = [p.last_activity for p in self._progress.values() if p.last_activity is not None]
        if not lasts or now - min(lasts) < self._hang.floor_s:
            return  # no rank has been quiet for the floor: no stall is possible yet
        found = self._tracker.check(now)
        if not found:
            return
        extra: list[Finding] = []
        if all(f.rank is None for f in found) and self._discriminator is not None:
            stalled = _field_ranks(found[0].field("stalled_ranks"))
            try:
                suspects = self._discriminator.suspects(stalled)
                self._signatures = {r: s for r, s in self._discriminator.signatures().items() if r in stalled}
            except OSError:
                suspects = []
            template = found[0]
            for s in suspects:
                # a stack that names another cause (a data-loader stall) is initiator evidence of
                # its own (RULE_STALL_WHERE); attribution reads stats.stall findings as hangs
                said = tuple((k, v) for k, v in (("place", s.place), ("stack", " < ".join(s.excerpt))) if v)
                extra.append(dataclasses.replace(
                    template, rule=template.rule if s.cause is template.cause else RULE_STALL_WHERE, cause=s.cause,
                    rank=s.rank, node=self.index().rank_node.get(s.rank, self.node), file=None, line=None,
                    text=f"{template.text}; rank {s.rank} stopped first: {s.reason}",
                    fields=(*template.fields, ("first_ranks", str(s.rank)), ("basis", s.basis), *said),
                ))
        self.on_findings(list(found) + extra)

    def _refresh_evidence(self) -> None:
        infos = self.rank_infos()
        first_error: dict[int, Finding] = {}
        first_collateral: dict[int, Finding] = {}
        initiators: dict[int, list[Finding]] = {}
        for f in sorted(self._findings, key=lambda f: f.time.timestamp() if f.time else float("inf")):
            if f.rank is None:
                continue
            if f.role is Role.INITIATOR and f.cause is not None:
                initiators.setdefault(f.rank, []).append(f)
            elif f.role is Role.COLLATERAL:
                first_collateral.setdefault(f.rank, f)
        for rank, found in initiators.items():
            # the time of the rank's first evidence, the cause of its strongest (as attribution weighs it)
            best = max(found, key=lambda f: (STRENGTH.get(f.cause, 0) if f.cause else 0, f.confidence))
            first_error[rank] = dataclasses.replace(best, time=found[0].time)
        rows = []
        for r, info in infos.items():
            p = self._progress.get(r)
            rows.append(RankEvidence(
                rank=r, node=info.node or self.node, local_rank=info.local_rank, gpu=info.gpu, pid=info.pid,
                attempt=p.attempt if p else None,
                last_progress=p.last_step_time if p else None, last_step=p.last_step if p else None,
                first_error=first_error.get(r), first_collateral=first_collateral.get(r),
                wait_state=self._signatures.get(r),
            ))
        self.evidence = tuple(rows)

    def followed_files(self) -> list[Path]:
        return [lf.file.path for lf in self._files.values() if lf.file.kind is not FileKind.ELASTIC_ERROR]
