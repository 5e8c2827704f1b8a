"""The run model that replay AND the sidecar build: who is who, the findings of every matched
line, exit code and error file, and each rank's last sign of life. The two differ only in what
they feed it (files read to their end vs. chunks as they arrive, plus the live facts) and in
their clock; the model is built by the same functions, so their diagnoses agree by construction."""

from __future__ import annotations

import bisect
import itertools
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta

from detector.pipeline.boot_clock import date_kernel_boots
from detector.pipeline.filescan import FileScan
from detector.pipeline.findings import (
    GROUP_SUCCEEDED,
    KERNEL_CRASHES,
    SRUN_TASK_LINES,
    SUCCEEDED,
    demote_abort_after_cpp_exception,
    demote_after_exit,
    demote_after_success,
    demote_answered_requests,
    demote_before_job_success,
    demote_bystander_ooms,
    demote_caught_exceptions,
    demote_caught_oom,
    demote_destroy_warnings,
    demote_exit_handler_errors,
    demote_faults_before_driver_load,
    demote_feeder_thread_errors,
    demote_foreign_app_faults,
    demote_kill_after_summary,
    demote_kill_after_watchdog,
    demote_launcher_reply_race,
    demote_mails_before_completion,
    demote_nccl_port_flaps,
    demote_orphaned_spawn_children,
    demote_other_jobs_oom_kills,
    demote_other_tenants,
    demote_peer_loss_after_destroy,
    demote_port_snapshots,
    demote_recovered_flaps,
    demote_repeated_actor_exceptions,
    demote_retried_exceptions,
    demote_secondary_xids,
    demote_shutdown_noise,
    demote_steps_that_did_not_start_training,
    demote_store_loss_after_completion,
    demote_store_loss_after_exit_warning,
    demote_store_loss_before_destroy,
    demote_survived_worker_kills,
    demote_teardown_errors,
    demote_tf_peer_aborts,
    demote_worker_deaths_after_takedown,
    demote_worker_wait_timeouts,
    elastic_error_findings,
    exit_findings,
    fabric_wide_link_loss,
    findings_from_hit,
    megatron_stragglers,
    nvrx_stragglers,
    oom_killed_loader_workers,
    place_gpu_faults,
    place_nccl_tests_failures,
    place_ray_tracebacks,
    place_sglang_tracebacks,
    place_spawn_tracebacks,
    place_summary_tracebacks,
    place_tgi_span_errors,
    ranks_of_group_watchdogs,
    ray_worker_nodes,
    read_health_checks,
    read_node_failures,
    refine_generic_nccl,
    slowest_rank_stragglers,
    srun_task_hosts,
    unfinished_benchmark,
    verl_worker_ranks,
)
from detector.pipeline.index import LiveFacts, RunIndex, apply_live, build_index, resolve_rank
from detector.pipeline.relaunch import demote_earlier_launches
from detector.pipeline.tail import (
    completed_line,
    is_progress,
    last_activity,
    last_progress_line,
    progress_between,
    says_completed,
    server_shut_down,
    tail_event,
    tail_line,
    tail_of,
)
from detector.rules.engine import RuleSet
from detector.sources.prefixes import Prefixed, PrefixStyle, strip_prefix
from detector.sources.runs import FileKind, LogFile
from detector.sources.timestamps import date_output, nccl_header
from detector.support.hosts import expand_hostlist
from detector.support.numbers import MAX_RANKS, small_int
from detector.types import (
    DEATHS_OF_PEERS,
    GPU_FAULTS,
    RULE_EXIT_CODE,
    RULE_LOCAL_CLOSE,
    Cause,
    Finding,
    RankInfo,
    Role,
    RunFacts,
    peer_gone,
)

JOB_OUTPUT_LINES = 20  # lines of a rank log, at least, for it to show how the job went
# rules whose lines only tell the index who is who (every rank prints them at start-up): no finding
INDEX_ONLY_RULES = frozenset({"torch.barrier_device_guess"})


@dataclass(frozen=True, slots=True)
class Activity:
    """A rank's last sign of life: its last line (replay) or last progress (the sidecar)."""

    last_time: datetime | None = None
    last_step: int | None = None


@dataclass
class RunModel:
    index: RunIndex
    findings: list[Finding]
    ranks: dict[int, RankInfo]
    warnings: list[str] = field(default_factory=list)
    last_file_attempt: int | None = None  # (numbered_file_attempts)
    last_attempt_ended_well: bool = False
    last_attempt_hosts: frozenset[str] = frozenset()
    last_attempt_nodes: frozenset[str] = frozenset()  # (the nodes its batch script echoed)

    @property
    def world_size(self) -> int | None:
        return self.index.world_size

    def facts(self, findings: Iterable[Finding] | None = None, median_step_s: float | None = None,
              seen_ranks: Iterable[int] = (), *, file_lines: Mapping[str, int] | None = None,
              ended: bool = False, last_progress: Mapping[str, int] | None = None,
              file_starts: Mapping[str, datetime] | None = None) -> RunFacts:
        return RunFacts(tuple(self.findings if findings is None else findings), self.ranks, self.index.world_size,
                        median_step_s, frozenset(seen_ranks), dict(file_lines or {}), ended, dict(last_progress or {}),
                        self.last_file_attempt, self.last_attempt_ended_well, self.last_attempt_hosts,
                        self.last_attempt_nodes, dict(file_starts or {}))


def log_activity(scans: Sequence[FileScan], idx: RunIndex) -> dict[int, Activity]:
    """Each rank's last line, from the tails of the files read to their end (replay)."""
    last: dict[int, datetime] = {}
    for scan in scans:
        if scan.file.kind is not FileKind.RANK_LOG:
            continue
        for prefix_rank, time in last_activity(scan).items():
            rank = resolve_rank(idx, scan.file, prefix_rank, None)
            if rank is None:
                continue
            if rank not in last or time > last[rank]:
                last[rank] = time
    return {r: Activity(t) for r, t in last.items()}


def rank_infos(idx: RunIndex, activity: Mapping[int, Activity],
               external: Mapping[int, RankInfo] | None = None,
               hosts: Mapping[int, str] | None = None, placed: Iterable[int] = ()) -> dict[int, RankInfo]:
    """One :class:`RankInfo` per known rank; ``external`` (the coordinator's view of other
    nodes) fills in what this model does not know; ``hosts`` (where srun said it ran a task)
    places a rank no other line placed; ``placed``: ranks known from them alone."""
    external = external or {}
    hosts = hosts or {}
    ranks = {r for r in idx.ranks() | set(activity) | set(external) | set(placed) if 0 <= r < MAX_RANKS}
    out: dict[int, RankInfo] = {}
    for r in sorted(ranks):
        act = activity.get(r)
        node = idx.rank_node.get(r) or (idx.node(hosts[r]) or hosts[r] if r in hosts else None)
        info = RankInfo(rank=r, local_rank=idx.rank_local.get(r), node=node, pid=idx.rank_pid.get(r),
                        gpu=idx.rank_gpu.get(r), last_time=act.last_time if act else None,
                        last_step=act.last_step if act else None)
        ext = external.get(r)
        if ext is not None:
            info = RankInfo(r, ext.local_rank if ext.local_rank is not None else info.local_rank,
                            ext.node or info.node, ext.pid if ext.pid is not None else info.pid,
                            ext.gpu or info.gpu, ext.last_time or info.last_time,
                            ext.last_step if ext.last_step is not None else info.last_step)
        out[r] = info
    return out


def build_index_for(scans: Sequence[FileScan], live: LiveFacts | None = None) -> RunIndex:
    idx = build_index(scans)
    if live is not None:
        apply_live(idx, live, [s.file for s in scans])
    return idx


def run_findings(scans: Sequence[FileScan], idx: RunIndex, rules: RuleSet,
                 elastic_files: Sequence[LogFile] = (), *, relaunches: bool = False) -> tuple[list[Finding], list[str]]:
    """The findings of every kept hit, of the torchelastic error files and of the exit codes.
    ``relaunches`` (replay: the files are whole): an earlier launch appended to a file is told
    from its last one (:mod:`detector.pipeline.relaunch`); live, a new launch is a new episode."""
    findings: list[Finding] = []
    warnings: list[str] = []
    date_kernel_boots(scans)
    for scan in scans:
        for hit in scan.hits:
            findings.extend(f for f in findings_from_hit(hit, scan.file, idx) if f.rule not in INDEX_ONLY_RULES)
    findings = place_summary_tracebacks(findings, scans, idx)
    for f in elastic_files:
        found, warns = elastic_error_findings(f, rules, idx)
        findings.extend(found)
        warnings.extend(warns)
    # (a health check's word of a node not the run's, or of another time, is context before anything
    # reads the findings as a death: an unpinned time, a peer lost)
    findings = read_health_checks(findings, scans)
    if relaunches:  # (replay: the files are whole; live, a line's time is when it came)
        findings = _unpin_stale_inherited_times(findings, scans)
    findings = ranks_of_group_watchdogs(findings)
    findings.extend(exit_findings(scans, idx, [f for f in findings if f.file is not None]))
    starts = [s.first_time for s in scans if s.first_time is not None and s.file.kind.value == "rank_log"]
    if relaunches:
        findings = demote_earlier_launches(scans, findings, idx.file_rank)
    findings = demote_store_loss_after_completion(demote_store_loss_after_exit_warning(demote_store_loss_before_destroy(demote_peer_loss_after_destroy(demote_destroy_warnings(demote_teardown_errors(demote_orphaned_spawn_children(demote_feeder_thread_errors(demote_exit_handler_errors(demote_launcher_reply_race(demote_worker_wait_timeouts(refine_generic_nccl(findings))))))))))), scans)
    findings = place_tgi_span_errors(place_nccl_tests_failures(place_sglang_tracebacks(place_ray_tracebacks(place_spawn_tracebacks(
        demote_caught_oom(demote_abort_after_cpp_exception(findings)))))))
    ends = [t for s in scans if s.file.kind is FileKind.RANK_LOG and (t := s.last_time) is not None]
    ranks_logged = any(s.file.kind is FileKind.RANK_LOG and s.lines > 0 for s in scans)
    findings = fabric_wide_link_loss(demote_faults_before_driver_load(
        demote_nccl_port_flaps(demote_recovered_flaps(findings, max(ends) if ends else None), scans), ranks_logged))
    findings = _faults_long_before_the_run(findings, scans, min(starts) if starts else None)
    findings = read_node_failures(oom_killed_loader_workers(demote_bystander_ooms(demote_other_tenants(demote_other_jobs_oom_kills(findings, scans), scans))), scans)
    findings = demote_after_exit(demote_after_success(demote_secondary_xids(demote_mails_before_completion(demote_tf_peer_aborts(demote_kill_after_summary(demote_kill_after_watchdog(place_gpu_faults(findings, idx))))))))
    findings = demote_retried_exceptions(demote_caught_exceptions(
        demote_repeated_actor_exceptions(ray_worker_nodes(verl_worker_ranks(findings), idx.node), scans), scans, idx.file_rank), scans)
    findings = demote_worker_deaths_after_takedown(demote_survived_worker_kills(demote_steps_that_did_not_start_training(
        demote_shutdown_noise(demote_answered_requests(findings, scans), scans), scans), scans))
    findings = slowest_rank_stragglers(nvrx_stragglers(megatron_stragglers(findings, idx), idx), idx)
    # (the job's own output: a rank log of some length that shows ranks or training, not only a
    # kernel log or a node's report; and the time it ends)
    output = [s for s in scans if s.file.kind is FileKind.RANK_LOG and s.lines >= JOB_OUTPUT_LINES
              and (s.prefix_ranks or s.file.rank is not None or s.last_progress is not None)]
    output_end = max((s.last_time for s in output if s.last_time is not None), default=None)
    # (and, where the kernel's word of a crashed process asks whether the job went on after it,
    # the time by which every file of it that shows training had logged its last step -- a file of
    # nothing but step lines too, which has no findings: the training went on in each, not some
    # file's lines, an evaluator's polling or a script's next stage)
    progress_end = None
    if any(f.rule in KERNEL_CRASHES for f in findings):
        trained = [s for s in scans if s.file.kind is FileKind.RANK_LOG and s.lines >= JOB_OUTPUT_LINES
                   and (s in output or (not s.hits and last_progress_line(s) is not None))]
        progress_end = min((t for s in trained if (t := _last_progress_time(s)) is not None), default=None)
    # (an inference server's log that ends with its orderly shutdown is the job's output too)
    served = any(s.file.kind is FileKind.RANK_LOG and server_shut_down(s) for s in scans)
    findings = demote_foreign_app_faults(findings, idx, min(starts) if starts else None, bool(output) or served,
                                         output_end, served, progress_end)
    findings = demote_port_snapshots(demote_before_job_success(findings, scans))
    if relaunches:  # (replay: the files are whole)
        findings = unfinished_benchmark(demote_kernel_faults_of_a_finished_run(
            demote_faults_before_completion(findings, scans), scans), scans)
    return findings, warnings


QUIET = timedelta(minutes=10)
# what takes a process down, and its peers' connections to it with it: its own failure, or its
# GPU's, or the OOM killer
_LOST_PEERS = DEATHS_OF_PEERS | {Cause.GPU_HARDWARE, Cause.ECC_MEMORY, Cause.HOST_OOM_KILL}
DEATH_AFTER_BORROWED = timedelta(minutes=1)


def _unpin_stale_inherited_times(findings: list[Finding], scans: Sequence[FileScan]) -> list[Finding]:
    """``findings`` without the time an unstamped NCCL line of a peer gone or the network took
    from a stamped line before it where that stamp is its file's last and the run's other logs go on for more than
    :data:`QUIET` after it: a rank that prints its start-up lines, then nothing until NCCL's
    error hours later, does not fail at its start-up time (the error came at some time after
    it, untold). So too where a process died within :data:`DEATH_AFTER_BORROWED` after the
    borrowed stamp, or, the stamp being its file's last, at any time after it: a peer's "got
    completion with error" or "remote process exited" may have been printed after that death,
    which explains it (attribution does not place an untimed peer loss before a death); and so
    where the death came between that stamp and the next line its file stamped itself."""
    inherited = {(h.event.file, h.event.line) for scan in scans for h in scan.hits if h.event.time_inferred}
    if not inherited:
        return findings
    last = {scan.file.display: scan.last_time for scan in scans if scan.last_time is not None}
    ends = [t for scan in scans if scan.file.kind.value == "rank_log" and (t := scan.last_time) is not None]
    if not ends:
        return findings
    latest = max(ends)
    # the deaths of located processes (their own exception, OOM, fault or crash, a data loader's
    # worker killed, their GPU failing, the OOM killer), as timed as their lines are
    deaths = [f.time for f in findings if f.time is not None and f.role is Role.INITIATOR and f.cause in _LOST_PEERS
              and (f.rank is not None or f.node is not None)]
    # each file's lines that carry their own stamp (matched lines): what bounds an unstamped one
    stamped: dict[str | None, list[tuple[int, datetime]]] = defaultdict(list)
    for f in findings:
        if f.time is not None and f.line is not None and (f.file, f.line) not in inherited:
            stamped[f.file].append((f.line, f.time))
    for marks in stamped.values():
        marks.sort()

    def printed_by(f: Finding) -> datetime | None:
        """The time of its file's next stamped line: the line was printed before it."""
        marks = stamped.get(f.file, [])
        i = bisect.bisect_right(marks, (f.line or 0, datetime.max.replace(tzinfo=UTC)))
        return marks[i][1] if i < len(marks) else None

    def stale(f: Finding) -> bool:
        # (NCCL's own lines, never stamped, come from its threads whenever they fail: a line
        # continuing a stamped one, a wrapped message or a traceback, keeps its time)
        if (f.time is None or (f.file, f.line) not in inherited or nccl_header(f.text) is None
                or not peer_gone(f)):
            return False
        # a process died within a minute after the stamp it borrowed: the line, stamped no
        # earlier than that, may as well have come after the death it reports
        if any(timedelta(0) <= d - f.time <= DEATH_AFTER_BORROWED for d in deaths):
            return True
        # or a process died between that stamp and the next line its file stamped itself
        by = printed_by(f)
        if by is not None and any(f.time <= d <= by for d in deaths):
            return True
        file_last = last.get(f.file or "")
        if file_last is None or f.time < file_last:
            return False
        # the run went on long after the stamp it borrowed (its file's last), or a process died
        # later: the line may as well have come after that death
        return latest - f.time > QUIET or any(d >= f.time for d in deaths)

    # and the lines after such an NCCL line that took the same time (the error's later lines)
    first: dict[tuple[str | None, datetime], int] = {}
    for f in findings:
        if stale(f) and f.time is not None and f.line is not None:
            key = (f.file, f.time)
            first[key] = min(first.get(key, f.line), f.line)

    def after_stale(f: Finding) -> bool:
        start = first.get((f.file, f.time)) if f.time is not None else None
        return start is not None and (f.file, f.line) in inherited and f.line is not None and f.line >= start

    return [replace(f, time=None) if after_stale(f) else f for f in findings] if first else findings


def build_model(
    scans: Sequence[FileScan],
    rules: RuleSet,
    *,
    elastic_files: Sequence[LogFile] = (),
    live: LiveFacts | None = None,
    activity: Mapping[int, Activity] | None = None,
    external: Mapping[int, RankInfo] | None = None,
    index: RunIndex | None = None,
) -> RunModel:
    """The run model from scanned files. Replay passes the scans alone (activity from the logs'
    tails); the sidecar passes its live facts, the ranks' progress and the coordinator's ranks."""
    idx = index if index is not None else build_index_for(scans, live)
    findings, warnings = run_findings(scans, idx, rules, elastic_files, relaunches=True)
    findings, last_attempt, ended_well, last = (numbered_file_attempts(findings, scans) if live is None
                                                else (findings, None, False, ()))
    hosts: frozenset[str] = frozenset()
    given: frozenset[str] = frozenset()
    if last_attempt is not None:
        # (the hosts the last attempt's lines name; and, each attempt a file of its own, its file's)
        hosts = frozenset(f.node for f in findings if f.attempt == last_attempt and f.node)
        # (and apart, the nodes Slurm gave it, as its batch script echoed them: where it ran, not
        # what its lines name, which places an undated kernel fault)
        given = frozenset(h for f in findings if f.attempt == last_attempt and f.rule == SLURM_NODELIST
                          for h in expand_hostlist(f.field("nodelist") or ""))
        for scan in last:
            hosts |= frozenset((*scan.hosts, *((scan.file.node,) if scan.file.node else ())))
    act = activity if activity is not None else log_activity(scans, idx)
    task_hosts = _task_hosts(findings, last_attempt)
    # (where a job's attempts are known, a rank of the last attempt that srun alone places is a
    # rank of the run: its failure's node is where the last attempt ran it)
    # (and, no attempts known, a rank that srun places whose own failure its lines say)
    placed = {f.rank for f in findings if f.rank in task_hosts and (
        f.attempt == last_attempt if last_attempt is not None else f.role is Role.INITIATOR)}
    return RunModel(idx, findings, rank_infos(idx, act, external, task_hosts, placed), warnings,
                    last_attempt, ended_well, hosts, given)


OLD_KERNEL_FAULT = timedelta(days=2)  # a kernel's fault this long before the run's first stamped line is another run's
OLD_KERNEL_FAULT_MAX = timedelta(days=200)  # (farther, a year guessed for a stamp without one may be off)


def _faults_long_before_the_run(findings: list[Finding], scans: Sequence[FileScan], start: datetime | None) -> list[Finding]:
    """``findings`` with a kernel log's evidence stamped days before the run's first stamped line
    made context: a rotated kern.log, a collected journal, hold the node's earlier days (an Xid
    of a run a week before is the node's history, not this run's failure)."""
    if start is None:
        return findings
    kernel = {s.file.display for s in scans if s.file.kind is FileKind.KERNEL}

    def old(f: Finding) -> bool:
        return (f.file in kernel and f.time is not None and f.role is not Role.CONTEXT
                and OLD_KERNEL_FAULT < start - f.time < OLD_KERNEL_FAULT_MAX)

    return [replace(f, role=Role.CONTEXT, cause=None) if old(f) else f for f in findings]


def _task_hosts(findings: Sequence[Finding], last_attempt: int | None) -> dict[int, str]:
    """Where srun said it ran each task, the last attempt's word first where a job's attempts
    are known (a node excluded after an attempt moves the tasks after it to other hosts)."""
    hosts = srun_task_hosts(findings)
    if last_attempt is not None:
        hosts.update(srun_task_hosts([f for f in findings if f.attempt == last_attempt]))
    return hosts


# a job's attempts in files of their own, named by the attempt's number after a word for one
# ("train.attempt2.log", "run_retry3.log"): the stem the files share, and the number (a rank's or
# a task's number, "train_0.log", "log_rank1.txt", names files side by side, no attempts)
_NUMBERED_FILE = re.compile(r"^(?P<stem>.*?(?i:attempt|retry|restart|requeue|resubmit|try)[._-]?)(?P<n>[0-9]{1,3})"
                            r"(?P<ext>(?:\.[A-Za-z]{1,4})?)$")
# a wrapper's or the scheduler's word, at the end of an attempt's output, that it ended well
_ENDED_WELL = re.compile(r"(?i)\bexit(?:ed)?(?: with)? (?:code|status):? 0\b|\brc=0\b|worker group successfully finished")
# a resubmission's word, in its output's first lines, that it carries on the job before it (a
# job of another id in the same folder is otherwise another job: a conversion, an evaluation)
_RESUMES = re.compile(r"(?i)resum|restart|requeue|from (?:the )?(?:last |latest )?checkpoint|found checkpoint|loading checkpoint")
RESUME_LINES = 300
ENDED_WELL_LINES = 30
ATTEMPT_GAP = timedelta(seconds=30)  # one numbered file's last line before the next one's first, at least
ATTEMPT_START_GAP = timedelta(hours=1)  # or its first line before the next one's, where that one resumes
MAX_CLOCK_GAP = timedelta(hours=14)  # (two clocks' zones at most this far apart)
DATE_LINES = 50  # a file's first lines, where a batch script's "+ date" is
# a requeued job's own word that it was requeued or resumes its run (not a model's "Loading
# checkpoint shards", which every fine-tune prints, nor a command line's flags, "--resume auto",
# "#SBATCH --requeue")
_REQUEUED = re.compile(r"(?i)SLURM_RESTART_COUNT=[1-9]|\brequeued\b|resum(?:e|es|ed|ing) (?:from|training|at)"
                       r"|found checkpoint|restart(?:ing|ed)? from")
# a log and logrotate's older copies of it beside it ("train.log", "train.log.1", "train.log.2.gz"):
# launches of a job one after another where each began after the one before it had ended
_ROTATED_FILE = re.compile(r"^(?P<stem>.+?\.(?:log|out|err|txt))(?:\.(?P<n>[0-9]{1,3}))?(?:\.(?:gz|bz2|xz))?$", re.IGNORECASE)
# Slurm's outputs of one job's restarts ("slurm-5746418_3.out") and of its resubmission under a new id
_SLURM_OUTPUT = re.compile(r"^slurm-(?P<job>[0-9]{1,12})(?:_(?P<n>[0-9]{1,4}))?(?P<ext>\.(?:out|err|log))$")


def _progress_end(scan: FileScan) -> datetime | None:
    """When a file's training progress ended (its last progress line's time; its last stamped
    line's where it shows none): the end of the attempt, whatever clock the scheduler's lines
    after it keep (slurmstepd's local time beside a program's UTC)."""
    line = scan.last_progress
    if line is not None and scan.tail_first <= line < scan.tail_first + len(tail_of(scan)) and scan.parser is not None:
        time = tail_event(scan, line - scan.tail_first).time
        if time is not None:
            return time
    return scan.last_time


ATTEMPT_MARKER = "launcher.attempt_marker"  # rules/launchers.yaml
SLURM_NODELIST = "scheduler.slurm_nodelist"  # rules/scheduler.yaml
RESTART_COUNT = "scheduler.slurm_restart_count"  # rules/scheduler.yaml
ATTEMPT_LINES = 20  # lines of a file after its last attempt's mark, at least: that attempt ran
ATTEMPT_MIN_LINES = 5  # lines from one attempt's mark to the next one's, at least


def _marked_attempts(findings: list[Finding], lines: Mapping[str, int],
                     mark: str = ATTEMPT_MARKER) -> tuple[list[Finding], int] | None:
    """``findings`` given the attempt a wrapper script's marks in their file say ("attempt 2/8:";
    or the findings of rule ``mark``, whose field ``n`` numbers them: a requeued job's restart count),
    where one file holds two or more marks whose numbers rise (a retry loop around the launcher,
    its attempts one after another in one output) and its last attempt ran (lines of it follow
    its mark), and the last attempt's; None otherwise. Lines before the first mark go with the
    first attempt."""
    marks = sorted((f for f in findings if f.rule == mark and f.line is not None), key=lambda f: f.line or 0)
    files = {f.file for f in marks}
    # (the last mark, where it repeats the one before it, is the wrapper's word on how that
    # attempt ended, "attempt 4/5 failed; giving up", not an attempt of its own; a number repeated
    # before it is a retry loop's own count, "Attempt 1/10: uploading", "Attempt 1/10: ... retrying")
    if len(marks) >= 2 and marks[-1].field("n") == marks[-2].field("n"):
        marks = marks[:-1]
    if any(a.field("n") == b.field("n") for a, b in itertools.pairwise(marks)):
        return None
    if len(files) != 1 or len(marks) < 2:
        return None
    if lines.get(next(iter(files)) or "", 0) - max(f.line or 0 for f in marks) < ATTEMPT_LINES:
        return None
    # (a mark a few lines before the next one: an attempt that failed at once, "Unable to create
    # step", goes with the next; a retry loop's tries a few lines apart, an upload's, leave one)
    marks = [f for i, f in enumerate(marks) if i + 1 == len(marks) or (marks[i + 1].line or 0) - (f.line or 0) >= ATTEMPT_MIN_LINES]
    if len(marks) < 2:
        return None
    numbers = [small_int(f.field("n") or "") or 0 for f in marks]
    if any(b <= a for a, b in itertools.pairwise(numbers)):
        return None
    (file,) = files
    starts = [f.line or 0 for f in marks]
    out = [replace(f, attempt=max(0, bisect.bisect_right(starts, f.line) - 1))
           if f.file == file and f.line is not None else f for f in findings]
    return out, len(marks) - 1


def _ended_well(scan: FileScan, findings: Sequence[Finding], attempt: int) -> bool:
    """Whether the last attempt, whose output ends ``scan``, said it ended well: training's word
    that it completed, torchrun's group's success, or a wrapper's or the scheduler's exit code 0
    among the file's last lines."""
    if says_completed(scan) or any(f.attempt == attempt and f.rule in (SUCCEEDED, GROUP_SUCCEEDED) for f in findings):
        return True
    return any(_ENDED_WELL.search(line) for line in tail_of(scan)[-ENDED_WELL_LINES:])


def _attempt_files(scans: Sequence[FileScan]) -> list[tuple[tuple[int, int], FileScan]]:
    """The rank logs of one folder that differ only in an attempt's number, in its order (one
    set of them; none where there are several or none)."""
    stems: dict[tuple[str, str, str], list[tuple[tuple[int, int], FileScan]]] = defaultdict(list)
    for scan in scans:
        if scan.file.kind is not FileKind.RANK_LOG or scan.first_time is None or scan.last_time is None:
            continue
        folder, _, base = scan.file.display.replace("\\", "/").rpartition("/")
        if (job := _SLURM_OUTPUT.match(base)) is not None:
            # (Slurm's outputs of one job's restarts, and of the job resubmitted under a new id)
            stems[(folder, "slurm-", job["ext"])].append(((int(job["job"]), int(job["n"] or 0)), scan))
        elif (m := _NUMBERED_FILE.match(base)) is not None:
            stems[(folder, m["stem"], m["ext"])].append(((int(m["n"]), 0), scan))
        elif (m := _ROTATED_FILE.match(base)) is not None:
            # (logrotate's: "train.log" the newest, "train.log.1", "train.log.2.gz" ever older)
            stems[(folder, m["stem"], "rotated")].append(((-int(m["n"] or 0), 0), scan))
    groups = {k: v for k, v in stems.items() if len(v) >= 2}
    if any(k[2] != "rotated" for k in groups):  # (a scheduler's or a wrapper's numbering says more)
        groups = {k: v for k, v in groups.items() if k[2] != "rotated"}
    runs = [sorted(v, key=lambda x: x[0]) for v in groups.values()]
    if len(runs) != 1:
        return []
    # (logrotate cuts one launch's output anywhere, a hang's silence included: its copies are
    # launches of their own only where each newer one begins with a launch's start)
    # (and the log itself, the newest, among them: its older copies alone say nothing of the end)
    rotated = next(iter(groups))[2] == "rotated"
    return runs[0] if not rotated or (runs[0][-1][0] == (0, 0) and all(
        _starts_a_launch(scan) for _n, scan in runs[0][1:])) else []


# a launch's first lines: torchrun's banner, a shell's trace of the launch command, a trainer's
# word that it starts
_LAUNCH_START = re.compile(r"Setting OMP_NUM_THREADS environment variable|torch/distributed/run\.py:[0-9]+\] \*{5}"
                           r"|^\+ (?:torchrun|srun|deepspeed|accelerate launch|mpirun|python[0-9.]* )"
                           r"|(?i:\bstarting (?:run|training|job)\b)")
LAUNCH_START_LINES = 60  # a file's first lines where a launch's start counts


def _starts_a_launch(scan: FileScan) -> bool:
    """Whether the file, read whole in its tail, begins with a launch's start (:data:`_LAUNCH_START`)."""
    return scan.tail_first == 1 and any(_LAUNCH_START.search(line) for line in tail_of(scan)[:LAUNCH_START_LINES])


# a container's log from before its restart, saved beside its current one ("kubectl logs
# --previous" into "worker-1.previous.log", "master-0-prev.log")
_PREVIOUS_FILE = re.compile(r"^(?P<stem>.+?)[._-](?:previous|prev)(?P<ext>(?:\.[A-Za-z]{1,4})?)$", re.IGNORECASE)


def _previous_containers(findings: list[Finding], scans: Sequence[FileScan]
                         ) -> tuple[list[Finding], int, bool, tuple[FileScan, ...]] | None:
    """``findings`` given two attempts where a folder holds containers' logs from before their
    restart beside their current ones (a pod's "worker-1.previous.log" and "worker-1.log"): the
    previous logs the first attempt's, the current ones the last's, a current log with no
    previous one the last's too where it began after a previous log ended (a pod created for the
    restart); None where no such pair is found, a previous log began after its current one, or a
    log without a previous one ran through the restart (one pod's container restarted, not the
    job). The last attempt ended well where each of its paired logs said so."""
    logs = {s.file.display.replace("\\", "/"): s for s in scans if s.file.kind is FileKind.RANK_LOG}
    pairs: dict[str, tuple[FileScan, FileScan]] = {}
    for name, scan in logs.items():
        folder, _, base = name.rpartition("/")
        m = _PREVIOUS_FILE.match(base)
        if m is None:
            continue
        current = logs.get(f"{folder}/{m['stem']}{m['ext']}" if folder else f"{m['stem']}{m['ext']}")
        if current is not None:
            pairs[name] = (scan, current)
    if not pairs:
        return None
    for earlier, later in pairs.values():
        if earlier.first_time is not None and later.first_time is not None and earlier.first_time > later.first_time:
            return None
    folders = {name.rpartition("/")[0] for name in pairs}
    ends = [t for e, _later in pairs.values() if (t := e.last_time) is not None]
    attempt: dict[str, int] = {}
    for name, scan in logs.items():
        folder, _, base = name.rpartition("/")
        if folder not in folders:
            continue
        if _PREVIOUS_FILE.match(base) is not None:
            attempt[scan.file.display] = 0
        elif any(later is scan for _e, later in pairs.values()) or (
                ends and scan.first_time is not None and scan.first_time > min(ends)):
            attempt[scan.file.display] = 1
        else:
            return None  # (a container that ran through the others' restart)
    out = [replace(f, attempt=attempt[f.file]) if f.file in attempt else f for f in findings]
    ended = all(_ended_well(later, out, 1) for _e, later in pairs.values())
    return out, 1, ended, ()


LAUNCH_MARK = "launcher.shell_launch"  # rules/launchers.yaml
LAUNCH_GAP = timedelta(minutes=10)  # one attempt's launches on its hosts: their spans at most this far apart (skew)
LAUNCH_TIME_LINES = 40  # lines at a launch's start and end in which stamped lines are looked for


_PROGRAM = re.compile(r"(?:^|[\s/=])([\w.-]{1,120}\.(?:py|sh))\b|\s-m\s+(?!torch\.distributed\.)([\w.]{1,120})")


def _program(command: str) -> str:
    """What a traced launch command runs: its script's name, or the module after "-m"; the
    command without its numbers where it names neither."""
    m = _PROGRAM.search(command)
    if m is not None:
        return m.group(1) or m.group(2)
    return re.sub(r"[0-9]+", "N", command.strip())


def _launch_span(scan: FileScan | None, mark: int, end: int | None,
                 findings: Sequence[Finding]) -> tuple[datetime, datetime] | None:
    """When the launch a file's mark (its line ``mark``; the next mark's line ``end``) ran, as far
    as the file shows it: its first and last stamped lines of the file's tail (near its start and
    its end) and its findings' times; None where none of them has a time."""
    times = [f.time for f in findings if f.line is not None and f.line > mark and (end is None or f.line < end)
             and f.time is not None]
    if scan is not None and scan.parser is not None:
        lines = tail_of(scan)
        first = max(0, mark - scan.tail_first + 1)
        last = len(lines) if end is None else min(len(lines), end - scan.tail_first)
        near = (*range(first, min(last, first + LAUNCH_TIME_LINES)), *range(max(first, last - LAUNCH_TIME_LINES), last))
        for i in near:
            stamp = scan.parser.stamp(lines[i])
            if stamp is not None and stamp.time is not None:
                times.append(stamp.time)
    return (min(times), max(times)) if times else None


def _launched_attempts(findings: list[Finding], scans: Sequence[FileScan]
                       ) -> tuple[list[Finding], int, bool, tuple[FileScan, ...]] | None:
    """``findings`` given the attempt a shell's trace of its launch command says ("+ torchrun
    ...", a console log that ``tee -a`` kept across the job's launches by hand, one per host),
    where a file holds two or more such marks, all of one program (a script's stages, pretraining
    then an evaluation, are no attempts): the hosts' launches that ran at the same time
    (their spans within :data:`LAUNCH_GAP` of each other) are one attempt, the attempts in the
    order they ran, each file's launches later attempts one after another; lines before a
    file's first mark go with its first launch. Returns the last attempt's number, whether it
    said it ended well (one of its files) and the files of the last attempt; None where no file
    holds two marks, a launch shows no time, or two launches of one file would be one attempt."""
    marks: dict[str, list[int]] = defaultdict(list)
    programs: set[str] = set()
    for f in findings:
        if f.rule == LAUNCH_MARK and f.file and f.line is not None:
            marks[f.file].append(f.line)
            programs.add(_program(f.text))
    if not any(len(v) >= 2 for v in marks.values()) or len(programs) != 1:
        return None  # (a script's stages, one program after another, are no attempts)
    by_name = {s.file.display: s for s in scans}
    by_file: dict[str, list[Finding]] = defaultdict(list)
    for f in findings:
        if f.file in marks:
            by_file[f.file].append(f)
    spans: list[tuple[datetime, datetime, str, int]] = []  # (from, to, file, the launch's index in it)
    for file, lines in marks.items():
        lines.sort()
        for i, line in enumerate(lines):
            span = _launch_span(by_name.get(file), line, lines[i + 1] if i + 1 < len(lines) else None, by_file[file])
            if span is None:
                return None
            spans.append((*span, file, i))
    spans.sort()
    attempt_of: dict[tuple[str, int], int] = {}
    attempt = 0
    until = spans[0][1]
    members: set[str] = set()
    for start, end, file, i in spans:
        if start - until > LAUNCH_GAP:
            attempt, until, members = attempt + 1, end, set()
        if file in members:
            return None  # (two launches of one file at once: no launches one after another)
        members.add(file)
        until = max(until, end)
        attempt_of[(file, i)] = attempt
    if attempt == 0:
        return None

    began = {(file, i): start for start, _end, file, i in spans}

    def numbered(f: Finding) -> Finding:
        lines = marks.get(f.file or "")
        if not lines or f.line is None:
            return f
        key = (f.file or "", max(0, bisect.bisect_right(lines, f.line) - 1))
        if f.rule == LAUNCH_MARK:  # (its time the launch's first, not the line before it's: the launch before)
            return replace(f, attempt=attempt_of[key], time=began[key])
        return replace(f, attempt=attempt_of[key])

    out = [numbered(f) for f in findings]
    last_files = tuple(by_name[file] for file, lines in marks.items()
                       if attempt_of[(file, len(lines) - 1)] == attempt and file in by_name)
    return out, attempt, any(_ended_well(scan, out, attempt) for scan in last_files), last_files


def _begins_with_a_date(scan: FileScan) -> bool:
    """The file's first time is a wrapper's date(1) before anything stamped ("+ date" in a batch
    script): its clock may be another zone's than the program's stamps in the file before it."""
    return scan.first_time is not None and any(
        date_output(line) == scan.first_time for line in tail_of(scan)[:DATE_LINES])


def numbered_file_attempts(findings: list[Finding], scans: Sequence[FileScan]
                           ) -> tuple[list[Finding], int | None, bool, tuple[FileScan, ...]]:
    """``findings`` given the attempt their file's number names, the last attempt's, whether it
    said it ended well (:func:`_ended_well`) and its files (where known), where two
    or more rank logs of one folder differ only in an attempt's number (Slurm's outputs of a job's
    restarts and resubmissions, "train.attempt2.log") and each began after the one before it had
    ended (a job array's tasks run side by side and are no such files), where a wrapper marked
    its attempts in one file ("attempt 2/8:"), or where containers' logs from before their restart
    lie beside their current ones (:func:`_previous_containers`), or where a shell's trace of the
    launch command marks a host's launches in its console log (:func:`_launched_attempts`), and no
    attempt is known from the files' folders (torchrun's attempt_N); (findings, None, False, ())
    otherwise."""
    if any(f.attempt is not None for f in findings):
        return findings, None, False, ()
    by_name = {s.file.display: s for s in scans}
    lines = {s.file.display: s.lines for s in scans}
    for mark in (ATTEMPT_MARKER, RESTART_COUNT):  # (a wrapper's marks; else a requeued job's restart counts)
        marked = _marked_attempts(findings, lines, mark)
        if marked is not None:
            out, last = marked
            file = next(f.file for f in out if f.rule == mark)
            return out, last, file is not None and _ended_well(by_name[file], out, last), ()
    previous = _previous_containers(findings, scans)
    if previous is not None:
        return previous
    launched = _launched_attempts(findings, scans)
    if launched is not None:
        return launched
    files = _attempt_files(scans)
    if not files:
        return findings, None, False, ()
    for (a, earlier), (b, later) in itertools.pairwise(files):
        end = _progress_end(earlier)
        if later.first_time is None or end is None:
            return findings, None, False, ()
        if later.first_time - end < ATTEMPT_GAP and not (
                earlier.first_time is not None and later.first_time - earlier.first_time >= ATTEMPT_START_GAP
                and end - later.first_time <= MAX_CLOCK_GAP and _begins_with_a_date(later)
                and any(_REQUEUED.search(line) for line in tail_of(later)[:RESUME_LINES])):
            # (side by side, or one ran into the next: no attempts; but one that began hours after
            # the one before it, on its wrapper's date, and says it was requeued is the job's next
            # attempt, whatever a wrapper's local time and the program's UTC make of their ends)
            return findings, None, False, ()
        if a[0] != b[0] and _SLURM_OUTPUT.match(later.file.display.rpartition("/")[2]) is not None and not any(
                _RESUMES.search(line) for line in tail_of(later)[:RESUME_LINES]):
            return findings, None, False, ()  # (another job's output, not the job resubmitted)
    order = {scan.file.display: i for i, (_n, scan) in enumerate(files)}
    out = [replace(f, attempt=order[f.file]) if f.file in order else f for f in findings]
    return out, len(files) - 1, _ended_well(files[-1][1], out, len(files) - 1), (files[-1][1],)


def _closing(f: Finding) -> bool:
    """NCCL's proxy and service threads seeing the node's other processes close their
    connections: what ranks that finish at different moments print on their way out."""
    if f.rule == RULE_LOCAL_CLOSE:
        return True
    return f.rule == "nccl.proxy_error" and "Close" in (f.field("proxy_op"), f.field("op"))


# a word of completion that is no verdict: "Job finished (or failed).", a script's echo of it, its
# "Job done." after whatever ran; detectron2's "Total training time", which its hooks print as the
# trainer stops, also on an exception
_UNSURE_END = re.compile(r"fail|error|\(or |\becho\b|\bdone\b|total training time", re.IGNORECASE)
_DONE = re.compile(r"\bdone\b", re.IGNORECASE)


def _own(scan: FileScan, line: str) -> Prefixed:
    """``line`` of ``scan``'s file read for the rank whose line it is, in its file's prefix style."""
    return strip_prefix(line, scan.parser.style if scan.parser is not None else PrefixStyle.BRACKETS)


def _unsure_end(scan: FileScan, line: str) -> bool:
    """Whether a file's word that training completed may be a script's echo: its doubtful words;
    a rank's own ("[rank0]: training done", behind torchrun's or srun's prefixes too) may say "done"."""
    pre = _own(scan, line)
    if pre.rank is not None or pre.local_rank is not None:
        return _UNSURE_END.search(_DONE.sub("", pre.message)) is not None
    return _UNSURE_END.search(line) is not None


def demote_faults_before_completion(findings: list[Finding], scans: Sequence[FileScan]) -> list[Finding]:
    """A failure (or a peer's loss) in a file that later says training completed (its last word,
    no progress after it: :func:`completed_line`) made context where training progress followed
    it in that file (:data:`WENT_ON` lines of it, between the failure and the word), nothing in
    the file fails after the word and no process of it exited with an error: the run went on
    past it to its end (a task the scheduler's OOM killer took and retried, an error a library
    caught and logged, a connection an uploader retried). A script's "Job finished" right after a
    traceback is no such end. A fault of a GPU, its memory, its links or the node's network is
    kept (the node is still suspect for the next job), and so is a straggler."""
    ends = {s.file.display: (s, line) for s in scans if s.file.kind is FileKind.RANK_LOG
            and (line := completed_line(s)) is not None and not _unsure_end(s, tail_line(s, line))}
    if not ends:
        return findings
    # (nor in a file where a process exited with an error, before or after the word: a script's
    # "Job done." echoed whatever the job did)
    # (an exit that the ranks' training went on after for long, up to the word, was an earlier
    # launch's: torchrun restarted the workers - its console shows them start again - or a wrapper
    # resubmitted the step, and the run completed)
    # - and a word that it resumed or restarted came between, or the exited rank's own lines did (a
    # concurrent step that trained on to its end while the other failed is no restart); each file's
    # lines read once
    marks: dict[str, tuple[int, list[int], dict[int, list[int]]]] = {}

    def marks_of(file: str) -> tuple[int, list[int], dict[int, list[int]]]:
        if file not in marks:
            scan, end = ends[file]
            tail = tail_of(scan)
            lines = range(scan.tail_first, min(end, scan.tail_first + len(tail)))
            progress = [n for n in lines if is_progress(tail[n - scan.tail_first])]
            # (the line after which RESTARTED_ON lines of progress come before the word)
            bound = progress[-RESTARTED_ON] if len(progress) >= RESTARTED_ON else -1
            resumed = [n for n in lines if _RESUMES.search(tail[n - scan.tail_first])]
            own: dict[int, list[int]] = defaultdict(list)
            for n in lines:
                rank = _own(scan, tail[n - scan.tail_first]).rank
                if rank is not None:
                    own[rank].append(n)
            marks[file] = (bound, resumed, own)
        return marks[file]

    def restarted_after(f: Finding) -> bool:
        if f.line is None:
            return False
        bound, resumed, own = marks_of(f.file or "")
        if f.line >= bound:
            return False
        later = bisect.bisect_right(resumed, f.line) < len(resumed)
        mine = own.get(f.rank, []) if f.rank is not None else []
        return later or bisect.bisect_right(mine, f.line) < len(mine)

    failing_after = {f.file for f in findings if f.file in ends and f.line is not None and (
        (f.line > ends[f.file][1] and f.role in (Role.INITIATOR, Role.COLLATERAL))
        or (f.rule in SRUN_TASK_LINES and not restarted_after(f))
        or (f.rule == RULE_EXIT_CODE and f.field("exitcode") not in (None, "0") and not restarted_after(f)))}

    def before(f: Finding) -> bool:
        if f.file not in ends or f.file in failing_after or f.line is None:
            return False
        scan, end = ends[f.file]
        return (f.line < end and f.role in (Role.INITIATOR, Role.COLLATERAL)
                and (f.cause not in _KEPT_AT_THE_END or (f.rule in _SURVIVED_EVENTS and f.field("event") == "port error"))
                and progress_between(scan, f.line, end, enough=WENT_ON) >= WENT_ON)

    return [replace(f, role=Role.CONTEXT, cause=None) if before(f) else f for f in findings]


WENT_ON = 3  # lines of training progress after a failure, before the word that training completed
RESTARTED_ON = 12  # ... after a worker's exit with an error: the launcher restarted the workers
# what stays however the run ended: a fault of the node's hardware (drained for the next job) and
# a slow rank (a run with a straggler completes)
_KEPT_AT_THE_END = GPU_FAULTS | {Cause.NETWORK, Cause.STRAGGLER}
# but an adapter's asynchronous port error ("NET/IB : mlx5_6:1 Got async event : port error") that
# training went on after to its end: a port that flapped and came back, the job untouched by it (a
# catastrophic error of the adapter is kept: the node's adapter is bad whatever the job survived)
_SURVIVED_EVENTS = frozenset({"nccl.ib_async_event"})


def demote_kernel_faults_of_a_finished_run(findings: list[Finding], scans: Sequence[FileScan]) -> list[Finding]:
    """A kernel's GPU fault with no wall-clock time (dmesg's seconds since boot, the boot's date
    unknown) made context where the ranks' logs show no error at all (NCCL's closed connections of
    ranks on their way out aside) and one of them says that training completed, or torchrun that
    its worker group succeeded: a fault that hit the run would have left its mark in the ranks'
    logs (a CUDA error, a timeout, an exit), so this one is an earlier job's that the kernel log
    kept. So is an application's GPU fault (Xid 13, 31, 43: a bad address of the process that
    made it, no fault of the GPU) with a time: a process of the job that made one would have
    failed with it, so another process made it (a user's other job, a pid not the job's)."""
    kernel = [f for f in findings if f.role is Role.INITIATOR and f.field("xid") is not None
              and (f.time is None or f.cause is Cause.ILLEGAL_MEMORY_ACCESS)]
    if not kernel:
        return findings
    rank_logs = {s.file.display for s in scans if s.file.kind is FileKind.RANK_LOG}
    drop = {id(f) for f in kernel}
    # (a journal's export holds the kernel's lines beside the ranks': the fault itself is no rank's error)
    if any(f.role in (Role.INITIATOR, Role.COLLATERAL) and f.file in rank_logs and not _closing(f)
           and id(f) not in drop for f in findings):
        return findings
    if not any(f.rule in (SUCCEEDED, GROUP_SUCCEEDED) for f in findings) and not any(
            s.file.kind is FileKind.RANK_LOG and says_completed(s) for s in scans):
        return findings
    return [replace(f, role=Role.CONTEXT, cause=None) if id(f) in drop else f for f in findings]


def _last_progress_time(scan: FileScan) -> datetime | None:
    """The time of the file's last line that shows training progress, where its tail has one."""
    line = scan.last_progress if scan.last_progress is not None else last_progress_line(scan)
    if line is None or not scan.tail_first <= line < scan.tail_first + len(tail_of(scan)):
        return None
    return tail_event(scan, line - scan.tail_first).time
