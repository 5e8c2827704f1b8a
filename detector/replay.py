"""Offline replay: the pipeline fed by the files of a failed run, clocked by event time.

A large run's files are read by several processes at once (one per core, where the platform
forks: each inherits the compiled rules): each reads whole files with a cap of its own (the
same bounds as the run's) and parses its files' step lines; the files come back in their order
and their hits are settled against the run's :class:`EvidenceCap` one file after the other, so
the report is the one a single process gives. ``RANKDOCTOR_JOBS`` sets the number of processes
(1: none; unset: one per core for runs of :data:`PARALLEL_BYTES` or more).
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from detector.attribution.attribute import attribute, recovered_from
from detector.errors import InputError, RankdoctorError
from detector.pipeline.boot_clock import audit_year
from detector.pipeline.clocks import shift_findings, shift_ranks
from detector.pipeline.evidence import EvidenceCap
from detector.pipeline.filescan import FileScan
from detector.pipeline.findings import job_ended_well
from detector.pipeline.index import RunIndex, resolve_rank
from detector.pipeline.model import build_model
from detector.pipeline.scan import TAIL_BYTES, scan_file
from detector.pipeline.steps import MAX_STEP_LINES, preset_sample, stats_findings, step_items, step_line_cap
from detector.pipeline.transport import PackedScan, pack_scan, settle_scan, unpack_scan
from detector.rules.engine import RuleSet
from detector.sources.runs import FileKind, LogFile, discover
from detector.sources.timestamps import find_year
from detector.support.compressed import open_log
from detector.support.numbers import MAX_RANKS
from detector.types import RULE_STALL, Finding, Incident, Report, Summary

if TYPE_CHECKING:
    from detector.stats import Preset

PARALLEL_BYTES = 64 << 20  # runs at least this large are read by one process per core
MAX_JOBS = 16  # at most (unless RANKDOCTOR_JOBS says more): beyond, memory bandwidth is the limit
JOBS_ENV = "RANKDOCTOR_JOBS"


def flight_recorder_findings(files: Sequence[LogFile], world_size: int | None) -> tuple[list[Finding], list[str]]:
    """PyTorch Flight Recorder dumps of the run: who never entered the collective the others
    wait in, and mismatched collectives. A dump that cannot be read safely is a warning."""
    if not files:
        return [], []
    import dataclasses

    from detector.sources.flight_recorder import FrDumpError, analyse, findings, read_dump

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
    # raise InputError when no file could be read at all (each one binary, compressed in a format
    # not read, unreadable): the command's "no incident" would say the run is clean
    unread_is_error: bool = False


YEAR_HEAD = 16384
YEAR_SEARCH = 4 << 20  # bytes read at most in the second look for a year
YEAR_FIRST_RANK_LOGS = 64  # ranks' logs looked at before the kernel logs



def _year_hint(files: Sequence[LogFile]) -> int | None:
    """The year for stamps that lack one (glog, syslog): the first full date in a log's first
    16 KiB; else in more of each (a launcher's glog lines can fill a combined log's head), up
    to :data:`YEAR_SEARCH` bytes in all; else a kernel log's audit records' year; else the files'
    modification year. The ranks' logs are read first: a kernel log begins at its node's boot,
    weeks before the job and maybe in the year before it."""
    # (a notebook's outputs last: the dates of an nvidia-smi cell or of a table of runs are not the run's)
    ranks = sorted((f for f in files if f.kind is FileKind.RANK_LOG), key=lambda f: f.path.suffix.lower() == ".ipynb")
    # (a few of the ranks' logs, then the kernel logs, then the rest: 200,000 ranks' glog-only
    # logs are not all opened before a kernel log that has the year)
    logs = ranks[:YEAR_FIRST_RANK_LOGS] + [f for f in files if f.kind is FileKind.KERNEL] + ranks[YEAR_FIRST_RANK_LOGS:]
    for f in logs:
        try:
            fh, _st, _note = open_log(f.path, f.compressed)
            with fh:
                year = find_year(fh.read(YEAR_HEAD).decode("utf-8", "replace"))
        except OSError:
            continue
        if year is not None:
            return year
    budget = YEAR_SEARCH
    for f in logs:
        if budget <= 0:
            break
        try:
            fh, _st, _note = open_log(f.path, f.compressed)
            with fh:
                fh.seek(YEAR_HEAD)
                data = fh.read(min(budget, 1 << 20))
        except OSError:
            continue
        budget -= len(data) or YEAR_HEAD
        year = find_year(data.decode("utf-8", "replace"))
        if year is not None:
            return year
    for f in files:  # a kernel's audit record carries its Unix time: the year the node lived in
        if f.kind is FileKind.KERNEL:
            year = audit_year(f, YEAR_SEARCH)
            if year is not None:
                return year
    for f in files:
        try:
            return datetime.fromtimestamp(f.path.stat().st_mtime, tz=UTC).year
        except OSError:
            continue
    return None


def _jobs(files: int, size: int) -> int:
    """How many processes read the files: ``RANKDOCTOR_JOBS`` if set (at most one per core; a
    value that is no number is ignored, with a warning), else one per core for a run of
    :data:`PARALLEL_BYTES` or more; never more than the files; 1 where the platform cannot fork."""
    wanted = os.environ.get(JOBS_ENV, "").strip()
    n = None
    if wanted:
        try:
            n = min(int(wanted), _cores())  # (RANKDOCTOR_JOBS=99999 forked towards 99,999 workers)
        except ValueError:
            import sys

            print(f"rankdoctor: warning: {JOBS_ENV}={wanted[:40]!r} is not a whole number; ignored", file=sys.stderr)
    if n is None:
        if size < PARALLEL_BYTES:
            return 1
        n = min(_cores(), MAX_JOBS)
    n = min(n, files)
    if n > 1:
        import multiprocessing

        if "fork" not in multiprocessing.get_all_start_methods():
            return 1
    return max(1, n)


def _cores() -> int:
    """The cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


@dataclass(frozen=True, slots=True)
class _Job:
    files: Sequence[LogFile]
    rules: RuleSet
    year: int | None
    tail_bytes: int
    cap: EvidenceCap  # for its bounds
    step_cap: int  # step lines parsed per file (pipeline.steps.step_line_cap)


_JOB: _Job | None = None  # what the worker processes inherit (fork)
_GUESS: list[Preset] = []  # a worker's step preset, from the first of its files that has step lines


def _guess_preset(scan: FileScan) -> Preset | None:
    if not _GUESS:
        sample = preset_sample(scan)
        if sample:
            from detector.stats import choose_preset

            preset = choose_preset(sample)
            if preset is not None:
                _GUESS.append(preset)
    return _GUESS[0] if _GUESS else None


def _read_file(index: int) -> FileScan:
    """One file of :data:`_JOB` read with a cap of its own, its step lines parsed with this
    process's guess of the run's preset."""
    job = _JOB
    assert job is not None
    f = job.files[index]
    scan = scan_file(f, job.rules, year=job.year, tail_bytes=job.tail_bytes, cap=job.cap.file_cap())
    if f.kind is FileKind.RANK_LOG and scan.tail_lines and scan.parser is not None:
        preset = _guess_preset(scan)
        if preset is not None:  # most often the run's: then the parent does not parse them again
            scan.steps = (preset.name, step_items(scan, preset, job.step_cap))
    return scan


def _scan_in_worker(index: int) -> tuple[int, PackedScan]:
    job = _JOB
    assert job is not None
    return index, pack_scan(_read_file(index), job.rules)


def _worker(conn: Any) -> None:
    """A worker process: scans the files whose indices the parent sends, sends each back; stops
    at None. A failure goes back as ("error", text) for the parent to raise."""
    try:
        while True:
            index = conn.recv()
            if index is None:
                break
            conn.send(_scan_in_worker(index))
    except (EOFError, KeyboardInterrupt, BrokenPipeError):  # the parent went away, or was interrupted
        pass
    except BaseException:
        import traceback

        with contextlib.suppress(Exception):
            conn.send(("error", traceback.format_exc()))
    finally:
        conn.close()


def _scan_parallel(files: Sequence[LogFile], jobs: int,
                   progress: Callable[[int], None] | None) -> dict[int, PackedScan | FileScan]:
    """Read the files in ``jobs`` processes: this one and ``jobs - 1`` forked workers (each
    inherits :data:`_JOB`). The files go largest first; each worker holds four (the next ones
    wait in its pipe), and a worker that sends a file back gets the next; this process reads
    one of the others in between. A thread per worker takes its results off the pipe as they
    come (the read waits without the GIL), so that a worker never waits for this process to
    finish a file before it can send its own; they are unpickled here, between files."""
    import multiprocessing
    import pickle
    import queue
    import threading
    from collections import deque

    ctx = multiprocessing.get_context("fork")
    pending = sorted(range(len(files)), key=lambda i: files[i].size)  # pop() takes the largest
    workers: list[tuple[Any, Any]] = []
    packed: dict[int, PackedScan | FileScan] = {}  # from the workers / read here
    queued: dict[Any, deque[int]] = {}
    arrived: queue.SimpleQueue[tuple[Any, bytes | None]] = queue.SimpleQueue()

    def give(conn: Any) -> None:
        while pending and len(queued[conn]) < 4:
            index = pending.pop()
            queued[conn].append(index)
            conn.send(index)

    def take_off(conn: Any) -> None:
        try:
            while True:
                arrived.put((conn, conn.recv_bytes()))
        except (EOFError, OSError):
            arrived.put((conn, None))

    def receive(conn: Any, data: bytes | None) -> None:
        if not queued[conn]:
            return  # the end of a worker that was told to stop
        index = queued[conn][0]
        if data is None:
            raise RankdoctorError(f"a replay worker process died reading {files[index].display} (killed: out of "
                                  "memory, or a signal from outside); rerun with RANKDOCTOR_JOBS=1 to read in one process")
        result = pickle.loads(data)
        if result[0] == "error":
            raise RuntimeError(f"a replay worker failed reading {files[index].display}:\n{result[1]}")
        queued[conn].popleft()
        packed[result[0]] = result[1]
        if progress is not None:
            progress(files[result[0]].size)
        give(conn)

    try:
        for _ in range(jobs - 1):
            parent_end, child_end = ctx.Pipe()
            proc = ctx.Process(target=_worker, args=(child_end,), daemon=True)
            try:
                proc.start()
            except OSError:  # no more processes to be had: this one reads the rest
                parent_end.close()
                child_end.close()
                break
            child_end.close()
            workers.append((proc, parent_end))
            queued[parent_end] = deque()
            give(parent_end)
            threading.Thread(target=take_off, args=(parent_end,), daemon=True).start()
        while pending:
            while not arrived.empty():
                receive(*arrived.get())
            if pending:
                index = pending.pop()
                packed[index] = _read_file(index)
                if progress is not None:
                    progress(files[index].size)
        while any(queued.values()):
            receive(*arrived.get())
        for _proc, conn in workers:
            conn.send(None)
    finally:
        for proc, _conn in workers:
            proc.join(timeout=5)
            if proc.is_alive():
                proc.terminate()
                proc.join()
        for _proc, conn in workers:
            conn.close()
    return packed


def scan_files(files: Sequence[LogFile], rules: RuleSet, *, year: int | None, tail_bytes: int = TAIL_BYTES,
               progress: Callable[[int], None] | None = None, cap: EvidenceCap,
               step_cap: int = MAX_STEP_LINES) -> list[FileScan]:
    """Read each file (in several processes when the run is large); the scans in file order.
    A worker parses the last ``step_cap`` step lines of each rank log it reads."""
    global _JOB
    jobs = _jobs(len(files), sum(f.size for f in files))
    if jobs <= 1:
        return [scan_file(f, rules, year=year, tail_bytes=tail_bytes, progress=progress, cap=cap) for f in files]
    _JOB = _Job(files, rules, year, tail_bytes, cap, step_cap)
    _GUESS.clear()  # this run's preset is guessed from this run's files
    try:
        packed = _scan_parallel(files, jobs, progress)
    finally:
        _JOB = None
    return [settle_scan(p, cap) if isinstance(p, FileScan) else unpack_scan(p, rules, cap)
            for p in (packed[i] for i in range(len(files)))]


def _evidence_ranks(scans: Sequence[FileScan], idx: RunIndex) -> set[int]:
    """The ranks of every matched line of the rank logs, kept as evidence or not."""
    out: set[int] = set()
    for scan in scans:
        if scan.file.kind is not FileKind.RANK_LOG:
            continue
        unplaced = []
        for rank, local in scan.evidence_ranks:
            if rank is not None:  # resolve_rank's answer for a line with a rank of its own
                if 0 <= rank < MAX_RANKS:
                    out.add(rank)
            else:
                unplaced.append(local)
        for local in unplaced:
            resolved = resolve_rank(idx, scan.file, None, local)
            if resolved is not None:
                out.add(resolved)
    return out


_NODE_FROM_ORDER = ("folder", "pod", "file", "lines")


def node_sources(files: Sequence[LogFile], rank_nodes: set[str]) -> tuple[tuple[str, str], ...]:
    """Each node name of a run and where it came from (``Summary.node_sources``): the files' own
    (their folders, pod folders or lines; a folder first when several files say), then the
    nodes the lines tie ranks to."""
    how: dict[str, str] = {}
    for f in files:
        if f.node and f.node_from:
            old = how.get(f.node)
            if old is None or _NODE_FROM_ORDER.index(f.node_from) < _NODE_FROM_ORDER.index(old):
                how[f.node] = f.node_from
    for node in rank_nodes:
        how.setdefault(node, "lines")
    return tuple(sorted(how.items()))


def on_kubernetes_node(incident: Incident, pod_node: Mapping[str, str]) -> Incident:
    """``incident`` with its initiator's node named as the Kubernetes node its pod ran on, where
    `kubectl get pods -o wide` or `kubectl describe pod` says which (the host a cordon and a drain name; the explanation
    keeps the pod's name beside it)."""
    pod = incident.initiator.node
    node = pod_node.get(pod) if pod else None
    if pod is None or node is None:
        return incident
    verify = incident.remediation.verify
    return dataclasses.replace(
        incident, initiator=dataclasses.replace(incident.initiator, node=node),
        explanation=incident.explanation.replace(pod, f"{pod} (on node {node})", 1),
        remediation=dataclasses.replace(incident.remediation, verify=verify.replace(pod, node) if verify else verify))


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
    readable = [f for f in files if f.kind in (FileKind.RANK_LOG, FileKind.KERNEL)]
    if on_total is not None:
        on_total(sum(f.size for f in readable))
    year = _year_hint(files)
    cap = EvidenceCap()  # a cascade of 100,000 timeouts keeps each rank's first hits, counts the rest
    # the workers' step-line cap, with every rank log counted as printing steps: the cap the
    # statistics choose later (for the files that do) is this or larger (then parsed again)
    step_cap = step_line_cap(sum(1 for f in readable if f.kind is FileKind.RANK_LOG))
    scans = scan_files(readable, rules, year=year, tail_bytes=options.tail_bytes, progress=progress, cap=cap,
                       step_cap=step_cap)
    for scan in scans:
        warnings.extend(scan.warnings)
    if options.unread_is_error and scans and len(readable) == len(files) and all(s.parser is None for s in scans):
        # every file skipped before its first line (scan_file sets a parser on each file it reads)
        shown = "; ".join(warnings[:8]) + (f"; ... ({len(warnings)} in all)" if len(warnings) > 8 else "")
        raise InputError(str(path), f"nothing could be read: {shown}")
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
    extra, median_step, warns, offsets = stats_findings(scans, model.index, metric_files, parsed_cap=step_cap)
    if offsets:  # nodes whose clocks the step lines show to be off: their lines' times on the run's clock
        findings = shift_findings(findings, offsets)
        warnings.append("clocks off by more than a few seconds, corrected from the step lines (seconds ahead): "
                        + ", ".join(f"{node} {off:+.0f}" for node, off in sorted(offsets.items())))
    if any(f.rule == RULE_STALL for f in extra) and job_ended_well(findings, scans):
        # (a pause in the steps - a validation's rerun, a long evaluation - of a job that every
        # launcher or the scheduler says ended well stopped nothing)
        extra = [f for f in extra if f.rule != RULE_STALL]
    findings.extend(extra)
    warnings.extend(warns)
    # every rank the run is known to hold: its index and activity, every finding's rank and every
    # matched line's, also those the evidence cap did not keep
    matched = _evidence_ranks(scans, model.index)
    known = set(ranks) | {f.rank for f in findings if f.rank is not None} | matched
    facts = model.facts(findings, median_step, seen_ranks=matched - set(ranks),
                        file_lines={s.file.display: s.lines if s.notes_start is None else s.notes_start - 1 for s in scans}, ended=True,
                        last_progress={s.file.display: s.last_progress for s in scans if s.last_progress is not None},
                        file_starts={s.file.display: s.first_time for s in scans if s.first_time is not None})
    if offsets:
        facts = dataclasses.replace(facts, ranks=shift_ranks(facts.ranks, offsets))
    incidents = [on_kubernetes_node(i, model.index.pod_node) for i in attribute(facts)]
    recovered = recovered_from(facts)
    if scans and not any(s.lines for s in scans) and not incidents:
        # (no incident is then no word that the run was healthy: a copy that failed, a pod
        # recreated before its logs were taken, a collector that truncated them)
        warnings.append(f"every one of the {len(scans)} log files read is empty: there is nothing to diagnose")
    times = [t for s in scans for t in (s.first_time, s.last_time) if t is not None]
    sources = node_sources([s.file for s in scans], {r.node for r in ranks.values() if r.node})
    summary = Summary(
        files=len(files),
        lines=sum(s.lines for s in scans),
        ranks=len({r for r in known if 0 <= r < MAX_RANKS}),
        nodes=len(sources),
        start=min(times) if times else None,
        end=max(times) if times else None,
        node_sources=sources,
    )
    progress_rows = tuple((r.rank, r.last_time, r.last_step) for r in ranks.values())
    return Report(
        source=str(path),
        summary=summary,
        incidents=tuple(incidents),
        warnings=tuple(warnings),
        progress=progress_rows,
        recovered=tuple(recovered),
    )
