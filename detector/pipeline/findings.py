"""Matched lines, exit codes and torchelastic error files -> findings, each placed on its rank,
node, pid and GPU through the :class:`~detector.pipeline.index.RunIndex`."""

from __future__ import annotations

import bisect
import dataclasses
import itertools
import json
import re
import statistics
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

from detector.pipeline.evidence import Hit
from detector.pipeline.filescan import FileScan
from detector.pipeline.index import RunIndex, _field, _num, _rank, global_of_local, resolve_line_rank, resolve_rank
from detector.pipeline.tail import (
    completed_before,
    completed_line,
    completions,
    is_progress,
    last_progress_line,
    line_local_rank,
    own_last_progress,
    own_progress_stamped_after,
    progress_between,
    progress_lines_after,
    says_completed,
    tail_event,
    tail_line,
    tail_of,
)
from detector.rules.engine import RuleSet
from detector.sources.pci import normalize_pci
from detector.sources.prefixes import WORKER_PID, WORKER_PID_SPAN, PrefixStyle, strip_prefix
from detector.sources.runs import FileKind, LogFile
from detector.sources.timestamps import nccl_header, parse_timestamp
from detector.sources.torchelastic import FailureRecord
from detector.support.hosts import expand_hostlist, host_key, is_address, names_a_host, placeholder_host, same_host
from detector.support.numbers import field_float, small_int
from detector.types import (
    GPU_FAULTS,
    RAISED,
    RULE_EXIT_CODE,
    RULE_MEGATRON_STRAGGLER,
    RULE_NCCL_TEARDOWN,
    RULE_RUN_UNFINISHED,
    RULE_SLOWEST_STRAGGLER,
    RULE_STACK_DUMP_MAIN,
    SIGNAL_SENT,
    Cause,
    Finding,
    Role,
    Severity,
    StreamKind,
    tells_a_lost_peer,
)


def findings_from_hit(hit: Hit, f: LogFile, idx: RunIndex) -> list[Finding]:
    ev = hit.event
    out: list[Finding] = []
    kernel_file = ev.kind is StreamKind.KERNEL
    # the line's own host and rank where a context rule read them (nccl-tests' "host: Test CUDA
    # failure", TensorRT-LLM's "Failed to initialize executor on rank 3: <the CUDA error>"); other
    # rules' host fields may name a peer or a store
    context = [m for m in hit.matches if m.rule.role is Role.CONTEXT]
    line_host = next((h for m in context if (h := _field(m.fields, "host"))), None)
    line_rank = next((r for m in context if (r := _rank(_field(m.fields, "rank"))) is not None), None)
    # the process a Ray actor's or vLLM worker's prefix names ("(VllmWorker rank=7 pid=9493) "): a
    # kernel line about that pid (a segfault, the OOM killer's victim) is this line's rank's
    actor = (WORKER_PID.match(ev.text, 0, WORKER_PID_SPAN)
             if not kernel_file and "pid=" in ev.text[:WORKER_PID_SPAN] else None)
    actor_pid = int(actor["pid"]) if actor else None
    for m in hit.matches:
        fields = m.fields
        pci = _field(fields, "pci")
        gpu = normalize_pci(pci) if pci else None
        pid = _num(_field(fields, "pid"))
        node = idx.node(ev.node or f.node)
        kernel = kernel_file or m.rule.source == "kernel"  # also a kernel line pasted into a rank log
        if kernel:
            rank = None
            if gpu is not None:
                rank = idx.gpu_rank.get((node, gpu))
                if rank is None and node is None:
                    cands = {r for (n, g), r in idx.gpu_rank.items() if g == gpu}
                    rank = cands.pop() if len(cands) == 1 else None
            if rank is None and pid is not None:
                rank = _rank_of_pid(idx, node, pid)  # (rank 0 is a rank: no "or" between lookups)
                if rank is None and node is not None:
                    # the pid a worker's prefix gave its rank on a node its lines name otherwise (an
                    # address, where the kernel log says the host name): that rank's, unless the
                    # rank's node has another name
                    rank = _rank_of_pid(idx, None, pid)
                    known = idx.rank_node.get(rank) if rank is not None else None
                    if (known is not None and not placeholder_host(known) and not is_address(known)
                            and not same_host(known, node)):
                        rank = None
            if node is None and rank is not None:
                node = idx.rank_node.get(rank)
        else:
            rank = resolve_line_rank(idx, f, node, ev.rank, ev.local_rank)
            if rank is None:  # a line no prefix or file places: the rank the line itself names
                rank = resolve_line_rank(idx, f, node, _rank(_field(fields, "rank")), _rank(_field(fields, "local_rank")))
            if rank is None and line_rank is not None:
                rank = line_rank
            if rank is None and actor_pid is not None:
                # a Ray worker's line: the rank its process is (Ray Train's table of workers, the
                # worker's "Setting up process group ... [rank=N" line)
                rank = _rank_of_pid(idx, node, actor_pid)
            if rank is None and pid is not None and m.rule.id == RULE_STACK_DUMP_MAIN:
                # a py-spy dump of a process the launcher named the pid of (DeepSpeed's "process N
                # spawned", torchrun's worker pids): that rank's stack
                rank = _rank_of_pid(idx, node, pid)
                if rank is None and node is not None:
                    rank = _rank_of_pid(idx, None, pid)
            if rank is None and pid is not None and m.rule.id in RAY_TASK_RULES:
                # Ray's report that a task raised names the worker's process and node ("ray::
                # RayTrainWorker...() (pid=18604, ip=10.19.1.62, ...)"): that process's rank
                host = _field(fields, "host")
                rank = _rank_of_pid(idx, idx.node(host) if host else None, pid)
                if rank is None and host:
                    rank = _rank_of_pid(idx, None, pid)
            head = nccl_header(ev.message) if rank is None or node is None else None
            if head is not None:
                # an NCCL line of a combined log (or behind a prefix the stamp parser did not know):
                # its header's host is the node, its pid a rank a communicator line named
                head_node = idx.node(head[0])
                if rank is None:  # (rank 0 is a rank: no "or" between the lookups)
                    rank = idx.pid_rank.get((head_node, head[1]))
                    if rank is None and node is not None:
                        rank = idx.pid_rank.get((node, head[1]))
                    if rank is None and len(idx.nodes) <= 1:
                        rank = idx.pid_rank.get((None, head[1]))
                node = node or head_node
            if rank is None and m.rule.role is Role.INITIATOR:  # srun's "task 28: Out Of Memory": one task, one rank
                rank = _rank(_field(fields, "task"))
            if (rank is None and m.rule.cause is Cause.CUDA_OOM and len(idx.nodes) <= 1 and node is None
                    and (idx.world_size is None or idx.world_size <= ONE_NODE_RANKS)):
                # "GPU 1 has a total capacity ...": one process per GPU, device = local rank (not
                # in a job of more ranks than a node has GPUs: the device names no rank there; a
                # node of 16 GPUs alone is read so too, and the rank is left to other lines)
                rank = resolve_rank(idx, f, None, _rank(_field(fields, "gpu")))
            elif rank is None and m.rule.cause is Cause.CUDA_OOM and node is not None:
                # the same in a node's combined log (a pod's), where torchrun's summary says which
                # global rank that local rank of the node was
                device = _rank(_field(fields, "gpu"))
                if device is not None:
                    rank = global_of_local(idx, node, device, f.attempt)
            if node is None and rank is not None:
                node = idx.rank_node.get(rank)
            if gpu is None:
                busid = _field(fields, "busid")
                gpu = normalize_pci(busid) if busid else None
        host = _field(fields, "host") or line_host  # else the line's own host, where a context rule read it
        if host and (node is None or m.rule.cause is Cause.PREEMPTION or (m.rule.role is Role.INITIATOR and rank is None)):
            node = idx.node(host)
        local = ev.local_rank if ev.local_rank is not None else (idx.rank_local.get(rank) if rank is not None else None)
        when = ev.time
        if when is None or ev.time_inferred:
            # a line that names its own time inside it (Slurm's "CANCELLED AT 2024-04-28T14:52:23")
            when = _own_time(fields) or when
        if pid is None and not kernel and (ev.rank is not None or rank is None):
            # (not where the line names another rank: the engine's "Worker proc VllmWorker-7 died")
            pid = actor_pid
        out.append(Finding(
            rule=m.rule.id, role=m.rule.role, cause=m.rule.cause, severity=m.rule.severity,
            text=ev.text, file=ev.file, line=ev.line, time=when, rank=rank, local_rank=local,
            node=node, pid=pid if pid is not None else (idx.rank_pid.get(rank) if rank is not None and not kernel else None),
            gpu=gpu, fields=fields, context=hit.context, attempt=f.attempt, confidence=m.rule.confidence,
        ))
    return out


# Ray's reports that a task or actor method raised, naming the worker's pid and node (rules/launchers.yaml;
# and its memory monitor's report of the worker it killed)
RAY_TASK_RULES = frozenset({"launcher.ray_task_error", "launcher.ray_task_gpu_error", "launcher.ray_task_dist_error",
                            "launcher.ray_memory_monitor", "torch.ray_task_out_of_memory"})


def _rank_of_pid(idx: RunIndex, node: str | None, pid: int) -> int | None:
    """The rank whose process ``pid`` is on ``node``; on no known node, the one rank of that pid
    where only one has it (process ids repeat across nodes' containers)."""
    if node is None and pid in idx.shared_pids:
        return None
    return idx.pid_rank.get((node, pid))


def _own_time(fields: Sequence[tuple[str, str]]) -> datetime | None:
    """The time a rule read from its line's text (its ``time`` field, a full date and time)."""
    value = _field(fields, "time")
    if not value or not value[:1].isdigit():
        return None
    stamp = parse_timestamp(value)
    return stamp.time if stamp is not None and stamp.end == len(value) else None


def expand_ranks(text: str) -> list[int]:
    """'16-18,20-23' -> [16, 17, 18, 20, 21, 22, 23] (bounded to 100000 ranks)."""
    out: list[int] = []
    for part in text.replace(" ", "").split(","):
        lo, _, hi = part.partition("-")
        a, b = small_int(lo), small_int(hi) if hi else small_int(lo)
        if a is None or b is None or b < a or b - a > 100000:
            continue
        out.extend(range(a, b + 1))
    return out


_SIGNAL_CODES = {
    "Killed": -9, "Aborted": -6, "Segmentation fault": -11, "Bus error": -7, "Terminated": -15,
    "Floating point exception": -8, "Illegal instruction": -4, "Hangup": -1, "Interrupt": -2,
}
_SIGNALS = {-4: "SIGILL", -6: "SIGABRT", -7: "SIGBUS", -8: "SIGFPE", -9: "SIGKILL", -11: "SIGSEGV", -15: "SIGTERM", -2: "SIGINT", -1: "SIGHUP"}


_SIGNAL_NAMES = {name: code for code, name in _SIGNALS.items()}


def exit_code(exitcode: str | None, signal: str | None) -> int | None:
    """An exit code as torchelastic prints it (negative: killed by that signal), from an exit
    code (a shell's 128+N is signal N), or from a signal name (``SIGKILL``, ``Killed``)."""
    code = _num(exitcode)
    if code is not None:
        return -(code - 128) if 128 < code < 160 else code
    if signal:
        name = signal.strip()
        if name.isdigit():  # a signal's number ("signaled ... with signal 6")
            return -int(name) if 0 < int(name) < 65 else None
        return _SIGNAL_NAMES.get(name.upper()) or _SIGNAL_CODES.get(name.capitalize() if name.islower() else name)
    return None


def _after_timeout(timeout: datetime | None, exit_time: datetime | None) -> bool:
    """An abort at or after the first collective timeout of its attempt is the watchdog's."""
    return timeout is not None and exit_time is not None and exit_time >= timeout - timedelta(seconds=1)


# the launcher tearing its other workers down after one failed: consequences, not evidence of
# what failed
SRUN_TEARDOWN_RULES = frozenset({"scheduler.srun_step_aborted", "scheduler.srun_terminating"})  # srun ending the step
TEARDOWN_RULES = SIGNAL_SENT | {"torch.elastic_force_kill"} | SRUN_TEARDOWN_RULES
# a launcher's line naming the process whose exit came first (mpirun's "The first process to do
# so was: Process name: [[jobid,1],N]")
FIRST_EXIT_RULES = frozenset({"launcher.mpirun_first_nonzero"})
MPIRUN_SIGNAL = "launcher.mpirun_signal"  # "mpirun noticed that process rank N ... exited on signal S": the first to end
# exit codes of a teardown (SIGTERM, SIGINT, SIGHUP), not of a failure
TEARDOWN_CODES = frozenset({-15, -2, -1})
OWN_CRASH_SIGNALS = frozenset({4, 7, 8, 11})  # SIGILL, SIGBUS, SIGFPE, SIGSEGV: a process's own crash
# an exit read from a launcher's lines: (code, pid, node, time, file, line, text, attempt)
_Exit = tuple[int, int | None, str | None, datetime | None, str, int, str, int | None]


def _summary_node(idx: RunIndex, fr: FailureRecord, fallback: str | None) -> str | None:
    """The node of a torchelastic summary entry: the host it names ("localhost" names none),
    else ``fallback`` (its file's node), else the node the run knows for its rank."""
    named = fr.host if fr.host and fr.host != "localhost" else fallback
    return idx.node(named) or (idx.rank_node.get(fr.rank) if fr.rank is not None else None)


KERNEL_LONG_BEFORE = timedelta(days=1)  # a kernel's fault this long before the job's lines is an earlier job's


def _kernel_rule(f: Finding) -> bool:
    return f.rule.startswith(("xid.", "system."))


def exit_findings(scans: Sequence[FileScan], idx: RunIndex, rank_findings: Sequence[Finding]) -> list[Finding]:
    """Turn exit codes (torchelastic summaries, agent lines) into evidence: death by a signal is
    initiator-grade (unless the rank was aborting on a watchdog timeout), SIGTERM is collateral."""
    aborting = {f.rank for f in rank_findings if f.role is Role.COLLATERAL and f.rank is not None}
    # attempts in which some rank timed out in a collective: an abort (-6) there is the watchdog's
    first_timeout: dict[int | None, datetime] = {}
    untimed_timeout: set[int | None] = set()  # attempts with a timeout whose line has no time (torch < 2.2)
    for tf in rank_findings:
        if tf.role is not Role.COLLATERAL or not ("timeout" in tf.rule or tf.rule == RULE_NCCL_TEARDOWN):
            continue
        if tf.time is None:
            untimed_timeout.add(tf.attempt)
        elif tf.attempt not in first_timeout or tf.time < first_timeout[tf.attempt]:
            first_timeout[tf.attempt] = tf.time
    records: dict[tuple[int | None, int | None], _Exit] = {}
    unplaced: list[_Exit] = []
    first_exit: set[tuple[int | None, int | None]] = set()  # the launcher says this exit came first
    noticed: set[tuple[int | None, int | None]] = set()  # mpirun names it as the first process to end
    srun_failed: dict[int | None, set[int]] = defaultdict(set)  # the srun tasks that exited with an error code
    group_aborts: set[tuple[int | None, int | None]] = set()  # tasks of a launcher line reporting several aborts
    srun_tasks: dict[int | None, set[int]] = defaultdict(set)  # every task srun (or mpirun) reported, by attempt
    for scan in scans:
        f = scan.file
        for fr in scan.failures:
            if fr.rank is None or fr.exitcode is None:
                continue
            node = _summary_node(idx, fr, f.node)
            records.setdefault((f.attempt, fr.rank), (fr.exitcode, fr.pid, node, fr.time, fr.file, fr.line, fr.text, f.attempt))
    for fnd in rank_findings:
        tasks = fnd.field("task")
        if tasks is not None:  # srun: "task 19: Aborted", "tasks 0-7: Exited with exit code 1"
            signal = fnd.field("signal")
            scode = _SIGNAL_CODES.get(signal or "") if signal else _num(fnd.field("exitcode"))
            if scode is None:
                continue
            task_ranks = expand_ranks(tasks)
            # (mpirun names the process's pid: "process rank 52 with PID 1147562 on node hgx051",
            # the pid the kernel's OOM killer names)
            task_pid = _num(fnd.field("pid")) if len(task_ranks) == 1 else None
            for task_rank in task_ranks:
                node = idx.node(fnd.field("host")) or idx.rank_node.get(task_rank)
                records.setdefault((fnd.attempt, task_rank), (scode, task_pid or None, node, fnd.time, fnd.file or "",
                                                              fnd.line or 0, fnd.text, fnd.attempt))
                srun_tasks[fnd.attempt].add(task_rank)
                if scode == -6 and len(task_ranks) > 1:
                    group_aborts.add((fnd.attempt, task_rank))
                if fnd.rule == MPIRUN_SIGNAL:
                    noticed.add((fnd.attempt, task_rank))
            if 0 < scode < 128 or scode - 128 in OWN_CRASH_SIGNALS:
                # (128 + N: the shell's word for a death by signal N - the task's own error for a
                # crash (SIGSEGV, SIGBUS, SIGILL, SIGFPE), not for a kill or an abort, which the
                # teardown after another's failure sends or makes)
                srun_failed[fnd.attempt].update(task_ranks)
            continue
        if fnd.cause is Cause.DATA_LOADER_STALL:  # the signal killed a loader worker, not the rank
            continue
        code = exit_code(fnd.field("exitcode"), fnd.field("signal"))
        if code is None:
            continue
        rank = _rank(fnd.field("rank"))
        local = _rank(fnd.field("local_rank"))
        if rank is None and local is not None:
            rank = global_of_local(idx, fnd.node, local, fnd.attempt)
            if rank is None and len(idx.nodes) <= 1 and len(idx.file_hosts.get(fnd.file or "", ())) < 2:
                rank = local
        if rank is None:
            rank = fnd.rank
        if rank is None:
            if code < 0 and code not in TEARDOWN_CODES:  # a death by signal no line places: still evidence
                unplaced.append((code, _num(fnd.field("pid")), fnd.node, fnd.time, fnd.file or "", fnd.line or 0, fnd.text, fnd.attempt))
            continue
        records.setdefault((fnd.attempt, rank), (code, _num(fnd.field("pid")), fnd.node or idx.rank_node.get(rank), fnd.time, fnd.file or "", fnd.line or 0, fnd.text, fnd.attempt))
        if fnd.rule in FIRST_EXIT_RULES:
            first_exit.add((fnd.attempt, rank))
    # attempts where a collective timed out (not only torn down: a peer's loss tears it down too)
    timed_out = {tf.attempt for tf in rank_findings if tf.role is Role.COLLATERAL and "timeout" in tf.rule}
    for att, failed in srun_failed.items():
        # the one task that exited with an error code, srun terminating the others; not after a
        # collective timed out (the first watchdog to fire ends its task first)
        if len(failed) == 1 and att not in timed_out:
            first_exit.add((att, next(iter(failed))))
    if not records and unplaced:
        first = unplaced[0]
        if first[2] is None:  # the node another exit line of the launcher names (MPICH's "PID n RUNNING AT host")
            named = {fnd.node for fnd in rank_findings if fnd.node and fnd.field("exitcode") is not None}
            if len(named) == 1:
                first = (first[0], first[1], named.pop(), *first[3:])
        records[(first[7], None)] = first
    # what else says a rank failed: initiator-grade lines, collateral other than a launcher tearing
    # its workers down after the failure, deaths by a signal other than the teardown's
    # srun killing what was left of the step after another task failed: where ranks had timed out
    # in a collective and the killed one had not, it was stuck outside the collective they gave up
    # on (the hang's rank); otherwise it was only torn down with the rest
    srun_kills = _srun_teardown_kills(records, rank_findings)
    stuck: set[tuple[int | None, int | None]] = set()
    own_timeouts = {(tf.attempt, tf.rank) for tf in rank_findings
                    if tf.role is Role.COLLATERAL and tf.rank is not None and "timeout" in tf.rule}
    # (where srun runs torchrun's agents, one a node: a task is a node's agent, not a rank)
    agents = any(scan.failures for scan in scans) or any(fnd.rule.startswith(("torch.elastic", "torchelastic."))
                                                          for fnd in rank_findings)
    if srun_kills:
        stuck = {key for key in srun_kills if key[0] in timed_out and key not in own_timeouts}
        # (the tasks terminated once the step was cancelled: the ranks whose watchdogs had not fired
        # yet, as well as a stuck one; only one such task left in its attempt stands out)
        terminated = Counter(key[0] for key in stuck if records[key][0] == -15)
        stuck = {key for key in stuck if records[key][0] != -15 or (terminated[key[0]] == 1 and not agents)}
    # (where srun reports every task of an attempt whose ranks timed out in a collective as aborted -
    # their watchdogs' aborts - but one, Killed, that never timed out itself: it ignored the stop,
    # stuck outside the collective, the rank the others waited for; not where srun's tasks are
    # torchrun's agents, a node each)
    # (nor where anything else says why a task was killed: the OOM killer, the kernel, the scheduler)
    explained = any(f.role is Role.INITIATOR and (f.cause is Cause.HOST_OOM_KILL or _kernel_rule(f)
                                                  or f.rule.startswith("scheduler."))
                    for f in rank_findings) or any(f.rule.startswith("scheduler.") and "CANCELLED" in f.text
                                                   for f in rank_findings)
    for att in timed_out if not (agents or explained) else ():
        killed = [(att, r) for r in srun_tasks.get(att, ()) if records.get((att, r), (0,))[0] == -9]
        others = [(att, r) for r in srun_tasks.get(att, ()) if (att, r) not in killed]
        if (len(killed) == 1 and len(others) >= 2 and killed[0] not in own_timeouts
                and all(records[k][0] == -6 for k in others)):
            stuck.add(killed[0])
    grace_kills = _grace_kills(records) | (srun_kills - stuck)
    signal_deaths = any(code < 0 and code not in TEARDOWN_CODES and key not in grace_kills
                        for key, (code, *_) in records.items())
    # (not a kernel's fault from days before the job's lines begin: an earlier job's, in the
    # node's log the operator attached; attribution sets it aside later)
    begun = min((f.time for f in rank_findings if f.time is not None and not _kernel_rule(f)), default=None)
    current = [f for f in rank_findings
               if not (begun is not None and _kernel_rule(f) and f.time is not None and f.time < begun - KERNEL_LONG_BEFORE)]
    evidence_elsewhere = (any(f.role is Role.INITIATOR or (f.role is Role.COLLATERAL and f.rule not in TEARDOWN_RULES)
                              for f in current)
                          or signal_deaths)
    # what else says what failed, beside the ranks that only failed as a consequence
    initiator_elsewhere = any(f.role is Role.INITIATOR for f in current) or signal_deaths
    aborts: dict[int | None, list[datetime | None]] = defaultdict(list)  # each attempt's SIGABRT exit times
    plain: dict[int | None, int] = defaultdict(int)  # each attempt's exits with an error code of a process's own
    for code, _pid, _node, when, _file, _line, _text, a in records.values():
        if code == -6:
            aborts[a].append(when)
        elif code > 0:
            plain[a] += 1
    wave = _abort_waves(aborts, rank_findings, plain)
    # one launcher line that reports several ranks' aborts ("srun: error: node07: tasks 0-3,5-7:
    # Aborted"): where some of them aborted on their watchdog, so did the others that left no log
    # of their own - unless the kernel reports a fault of the job's time (a rank that left no line
    # may be the one whose GPU failed: its abort is then its own)
    kernel_fault = any(f.role is Role.INITIATOR and _kernel_rule(f) for f in current)
    aborted_lines = ({(file, line) for (_a, rank), (code, _p, _n, _t, file, line, _x, _att) in records.items()
                      if code == -6 and rank in aborting}
                     if not kernel_fault else set())
    # (and in an attempt whose ranks timed out in a collective, a launcher line reporting several
    # tasks' aborts is their watchdogs', though none of them left a line of its own - a large job's
    # logs sample a few ranks - and the line has no time of its own, or one borrowed from a block
    # pasted above it)
    watchdog_groups = ({key for key in group_aborts if key[0] in first_timeout or key[0] in untimed_timeout}
                       if not kernel_fault else set())
    out = []
    for (_attempt, rank), (code, pid, node, time, file, line, text, att) in records.items():
        sig = _SIGNALS.get(code)
        # (after untimed timeouts, an abort is the watchdog's unless it came well before the others')
        first_alone = time is not None and any(t is not None and t - time > FIRST_ABORT_LEAD for t in aborts.get(att, ()))
        if code == -15 and (_attempt, rank) in noticed and not initiator_elsewhere:
            # mpirun names the first process to end, and it was terminated (SIGTERM) with nothing
            # failing before: stopped from outside (a preemption, a node reclaimed, an eviction)
            role, cause, conf = Role.INITIATOR, Cause.PREEMPTION, 0.45
        elif (_attempt, rank) in stuck:
            # (srun killed it after the others' watchdogs had given up on a collective it never
            # reached: it was stuck, not killed for what it did)
            role, cause, conf = Role.INITIATOR, Cause.HANG, 0.5
        elif code in TEARDOWN_CODES or (_attempt, rank) in grace_kills or (code == -6 and (att in wave or rank in aborting or (file, line) in aborted_lines
                                                      or (_attempt, rank) in watchdog_groups
                                                      or _after_timeout(first_timeout.get(att), time)
                                                      or (att in untimed_timeout and att not in first_timeout
                                                          and not first_alone))):
            role, cause, conf = Role.COLLATERAL, None, 1.0
        elif code == -9:
            role, cause, conf = Role.INITIATOR, Cause.CRASH_SIGNAL, 0.7
        elif code < 0:
            role, cause, conf = Role.INITIATOR, Cause.CRASH_SIGNAL, 0.8
        elif code == 1 and (not evidence_elsewhere or ((_attempt, rank) in first_exit and not initiator_elsewhere)):
            # Python's exit on an uncaught exception, when nothing else in the logs says what
            # failed (a failure table whose traceback the paste cut): the rank it names; also
            # when the launcher says this exit came first and the others only failed after it
            role, cause, conf = Role.INITIATOR, Cause.PYTHON_EXCEPTION, 0.35
        elif code > 1 and (_attempt, rank) in first_exit and not initiator_elsewhere:
            # another code of the process the launcher says exited first (sys.exit(3), a test
            # harness's error code) while nothing says what failed: that rank, cause unnamed
            role, cause, conf = Role.INITIATOR, Cause.UNKNOWN, 0.3
        elif code == 2 and not evidence_elsewhere:
            # the code argparse's usage error and sys.exit(2) leave, when nothing else in the logs
            # says what failed (a failure table whose worker's output the paste left out)
            role, cause, conf = Role.INITIATOR, Cause.PYTHON_EXCEPTION, 0.3
        else:
            role, cause, conf = Role.CONTEXT, None, 1.0
        who = f"rank {rank}" if rank is not None else "a worker"
        desc = f"{who} exited with code {code}" + (f" ({sig})" if sig else "") + (f", pid {pid}" if pid else "")
        quoted = " ".join(text.split())[:400] if text else ""
        if quoted:  # the launcher's own words after the summary: the line the finding was read from
            desc = f"{desc}: {quoted}"
        out.append(Finding(
            rule=RULE_EXIT_CODE, role=role, cause=cause, severity=Severity.ERROR, text=desc,
            file=file, line=line, time=time, rank=rank, local_rank=idx.rank_local.get(rank) if rank is not None else None, node=node,
            pid=pid, fields=(("exitcode", str(code)),) + ((("signal", sig),) if sig else ())
            + ((("abort_wave", "1"),) if code == -6 and att in wave else ()),
            attempt=att, confidence=conf,
        ))
    return out


def _srun_teardown_kills(records: Mapping[tuple[int | None, int | None], _Exit],
                         rank_findings: Sequence[Finding]) -> set[tuple[int | None, int | None]]:
    """The srun tasks reported "Killed" or "Terminated" after srun said it was ending the step ("srun:
    Terminating StepId=...", "Job step aborted", a cancel) in the same file, once another of its tasks was reported
    failing before that line: srun killing what was left of the step, not for anything the task
    did (the caller tells a task stuck outside the others' collective from one torn down with them).
    A task killed first, before srun ended the step, stays what it was: a kill nothing explains."""
    ends: dict[str, int] = {}  # each file's first line of srun ending the step
    for f in rank_findings:
        # (or slurmstepd's cancel of the step with no reason of its own, once a task failed:
        # srun's --kill-on-bad-exit, or the user's scancel after the failure)
        cancel = f.rule == "scheduler.slurm_step_ended" and "CANCELLED" in f.text and "DUE TO" not in f.text
        if (f.rule in SRUN_TEARDOWN_RULES or cancel) and f.file and f.line is not None:
            ends[f.file] = min(ends.get(f.file, f.line), f.line)
    if not ends:
        return set()
    failed_before: set[str] = set()  # files in which a task was reported failing before srun ended the step
    for f in rank_findings:
        if (f.field("task") is not None and f.file in ends and f.line is not None and f.line < ends[f.file]
                and f.field("signal") != "Killed"):
            failed_before.add(f.file)
    return {key for key, (code, _pid, _node, _when, file, line, text, _att) in records.items()
            if code in (-9, -15) and file in failed_before and line > ends[file] and text.lstrip().startswith("srun: ")}


GRACE_AFTER = timedelta(seconds=20)  # torchelastic's SIGTERM-to-SIGKILL grace is 30 s by default
GRACE_BEFORE = timedelta(minutes=2)  # (and its monitor polls every few seconds: not much later)
TEARDOWN_TOGETHER = timedelta(seconds=2)


def _grace_kills(records: Mapping[tuple[int | None, int | None], _Exit]) -> set[tuple[int | None, int | None]]:
    """The SIGKILL exits (-9) that are a launcher's teardown: 20 s to 2 min after a rank of the
    attempt failed with an error code of its own, and at the second another rank of it ended on
    SIGTERM (SIGINT, SIGHUP) or was killed too - or the attempt had no other worker left to end
    (torchelastic terminates the other workers, then kills those still alive when its grace period
    ends; a worker killed so is no initiator). Linear in the records: each attempt's first error
    exit and its exits' seconds are worked out once."""
    first_error: dict[int | None, datetime] = {}
    ends: dict[int | None, Counter[tuple[int, datetime]]] = defaultdict(Counter)  # (teardown or kill, second)
    workers: Counter[int | None] = Counter()
    for (att, _who), (code, _pid, _node, when, *_rest) in records.items():
        workers[att] += 1
        if when is None:
            continue
        if code > 0 and (att not in first_error or when < first_error[att]):
            first_error[att] = when
        if code in TEARDOWN_CODES or code == -9:
            ends[att][(-9 if code == -9 else -15, when.replace(microsecond=0))] += 1
    out: set[tuple[int | None, int | None]] = set()
    for key, (code, _pid, _node, when, *_rest) in records.items():
        att = key[0]
        if code != -9 or when is None or att not in first_error or not GRACE_AFTER <= when - first_error[att] <= GRACE_BEFORE:
            continue
        second = when.replace(microsecond=0)
        near = [second + timedelta(seconds=d) for d in range(-TEARDOWN_TOGETHER.seconds, TEARDOWN_TOGETHER.seconds + 1)]
        torn = sum(ends[att][(-15, s)] for s in near)
        killed = sum(ends[att][(-9, s)] for s in near) - 1  # (other kills at that second)
        if torn or killed or workers[att] == 2:
            out.add(key)
    return out


ABORT_WAVE = 3  # ranks of one attempt aborting together (see _abort_waves)
MANY_ABORTS = 8  # so many aborting together beside another's plain exit: a teardown, whatever else is said
FIRST_ABORT_LEAD = timedelta(seconds=60)  # an abort this long before another one came first
ABORT_WAVE_WITHIN = timedelta(seconds=2)


_STOP_SIGNALS = frozenset({"torch.elastic_received_signal"})  # rules/torch.yaml: "Received Signals.SIGTERM death signal"


def _abort_waves(aborts: Mapping[int | None, Sequence[datetime | None]],
                 rank_findings: Sequence[Finding], plain_exits: Mapping[int | None, int]) -> set[int | None]:
    """Attempts (of ``aborts``, each attempt's SIGABRT exit times) in which three or more ranks died
    of SIGABRT within two seconds while no line of the run says anything else: what NCCL's
    watchdog does to every waiting rank after a collective timeout (a paste that kept only the
    launcher's failure table). Also, whatever else the lines say, a wave of :data:`MANY_ABORTS` or
    more beside a process that exited with an error code of its own (srun's "task 109: Exited with
    exit code 1"): the others were torn down after it."""
    # (a stop from outside - a SIGTERM torchrun's agent or a worker got - says what happened too)
    said = any(f.role is Role.INITIATOR or f.cause is not None or f.rule in _STOP_SIGNALS for f in rank_findings)
    # (unless the wave is large and beside a plain exit, an abort's own words, a C++ exception's
    # what(), say what failed)
    waves = set()
    for att, ts in aborts.items():
        if said and not (plain_exits.get(att) and len(ts) >= MANY_ABORTS):
            continue
        stamped = [t for t in ts if t is not None]
        # (all stamped within the window, or none stamped: one failure table lists them together)
        if len(ts) >= ABORT_WAVE and (not stamped or (len(stamped) == len(ts)
                                                      and max(stamped) - min(stamped) <= ABORT_WAVE_WITHIN)):
            waves.add(att)
    return waves


def place_summary_tracebacks(findings: Sequence[Finding], scans: Sequence[FileScan], idx: RunIndex) -> list[Finding]:
    """``findings`` with those of a traceback that torchelastic's summary prints inside a failed
    rank's entry (its ``traceback :`` field, the error file's traceback, the exception last) given
    that entry's rank, node and (when they have none) time: the error is that rank's, whose own
    log may never have printed it."""
    entries = [(scan.file.display, fr) for scan in scans for fr in scan.failures
               if fr.rank is not None and fr.end > fr.line and "traceback: Traceback" in fr.text]
    if not entries:
        return list(findings)
    out = []
    for f in findings:
        if f.rank is None and f.line is not None:
            for file, fr in entries:
                if file == f.file and fr.line < f.line <= fr.end:
                    f = dataclasses.replace(f, rank=fr.rank, local_rank=fr.local_rank, node=_summary_node(idx, fr, None) or f.node,
                                            time=f.time or fr.time)
                    break
        out.append(f)
    return out


def elastic_error_findings(f: LogFile, rules: RuleSet, idx: RunIndex) -> tuple[list[Finding], list[str]]:
    """A torchelastic ``error.json``: the child's exception message, matched by the rules."""
    try:
        data = json.loads(Path(f.path).read_text(encoding="utf-8", errors="replace"))
    except (OSError, ValueError) as exc:
        return [], [f"{f.display}: unreadable torchelastic error file ({exc})"]
    msg = data.get("message") if isinstance(data, dict) else None
    if isinstance(msg, dict):
        text = msg.get("message")
        extra = msg.get("extraInfo") if isinstance(msg.get("extraInfo"), dict) else {}
    else:
        text, extra = msg, {}
    if not isinstance(text, str) or not text.strip():
        return [], []
    line = text.strip().splitlines()[-1]
    time = None
    stamp = extra.get("timestamp") if isinstance(extra, dict) else None
    if isinstance(stamp, str | int) and str(stamp).isdigit() and len(str(stamp)) <= 12:
        try:
            time = datetime.fromtimestamp(int(stamp), tz=UTC)
        except (OverflowError, OSError, ValueError):  # a nonsense stamp: keep the finding, not the time
            time = None
    rank = resolve_rank(idx, f, None, f.local_rank)
    out = []
    for m in rules.match(line, StreamKind.RANK_LOG):
        out.append(Finding(
            rule=m.rule.id, role=m.rule.role, cause=m.rule.cause, severity=m.rule.severity, text=line,
            file=f.display, line=1, time=time, rank=rank, local_rank=f.local_rank,
            node=idx.rank_node.get(rank) if rank is not None else f.node, pid=idx.rank_pid.get(rank) if rank is not None else None,
            fields=m.fields, attempt=f.attempt, confidence=m.rule.confidence,
        ))
    return out, []


# Xid 109 (context-switch timeout) and Xid 45 (channel torn down) follow other faults: with an
# application fault (Xid 13, 31, 43) on the same GPU shortly before or at the same time, they are
# its consequence, not a hardware fault of their own (the Xid catalog: 13/31/43 are the
# application's; 109's culprit is "driver / app / hw")
_SECONDARY_XIDS = frozenset({"109", "45"})
_APP_FAULT_XIDS = frozenset({"13", "31", "43"})
SECONDARY_WITHIN = timedelta(seconds=30)


# NCCL's error classes, raised with the class's words ("invalid usage", "unhandled cuda error");
# the WARN line or the "Last error:" detail beside them says what went wrong
GENERIC_NCCL = frozenset({"nccl.invalid_usage", "nccl.unhandled_cuda_error", "nccl.system_error", "nccl.internal_error"})
DETAIL_WITHIN = 40  # lines between an error class and its detail
CUDA_DETAIL_WITHIN = 10  # a CUDA error line (not NCCL's own) counts only this close


def refine_generic_nccl(findings: Sequence[Finding]) -> list[Finding]:
    """``findings`` with each NCCL error class taking the cause of the nearest specific NCCL or
    CUDA line of the same file and rank (a duplicate GPU, an NVLS bind failure, a verbs call, the
    CUDA error under an unhandled cuda error; a line of no rank, a program's own report of the
    class, takes any rank's detail there): the class alone is a guess; the detail is what NCCL saw."""
    details = [f for f in findings if f.role is Role.INITIATOR and f.rule.startswith(("nccl.", "cuda."))
               and f.rule not in GENERIC_NCCL and f.cause is not None and f.line is not None]
    if not details:
        return list(findings)
    out = []
    for f in findings:
        if f.rule in GENERIC_NCCL and f.role is Role.INITIATOR and f.line is not None:
            near = [d for d in details if d.file == f.file and (d.rank == f.rank or f.rank is None)
                    and abs((d.line or 0) - f.line) <= (CUDA_DETAIL_WITHIN if d.rule.startswith("cuda.") else DETAIL_WITHIN)]
            if near:
                best = min(near, key=lambda d: abs((d.line or 0) - (f.line or 0)))
                f = dataclasses.replace(f, cause=best.cause)
        out.append(f)
    return out


NCCL_INIT_RULES = frozenset({"nccl.init_start", "nccl.init_complete"})  # NCCL's set-up lines (rules/nccl.yaml)


# the shell's "Killed", in English and in the machine's own language (rules/generic.yaml)
SHELL_KILLED = "generic.shell_killed"
SHELL_KILLED_RULES = frozenset({SHELL_KILLED, "generic.shell_killed_localized"})
# watchdogs that kill the stuck server's processes themselves (rules/launchers.yaml), and how many
# lines after their report its shell's "Killed" follows
# (and SGLang's launcher ending its process tree after a child failed)
KILLING_WATCHDOGS = frozenset({"launcher.sglang_watchdog_timeout", "launcher.sglang_child_sigquit"})
KILL_WITHIN = 20


def _demote_after(findings: Sequence[Finding], marks: frozenset[str], within: int,
                  target: Callable[[Finding], bool], role: Role) -> list[Finding]:
    """``findings`` with each ``target`` finding that comes at most ``within`` lines after a line
    of a ``marks`` rule in the same file given ``role`` and no cause."""
    lines: dict[str | None, list[int]] = defaultdict(list)
    for f in findings:
        if f.rule in marks and f.line is not None:
            lines[f.file].append(f.line)
    if not lines:
        return list(findings)

    def after_a_mark(f: Finding) -> bool:
        return f.line is not None and any(0 < f.line - line <= within for line in lines.get(f.file, ()))

    return [dataclasses.replace(f, role=role, cause=None) if target(f) and after_a_mark(f) else f for f in findings]


# TensorFlow's errors of an aborted step, and its words that the abort came from a lost peer
# (rules/launchers.yaml)
TF_ABORT_ERRORS = re.compile(r"(?:^|\.)(?:Unavailable|Cancelled|Aborted|DeadlineExceeded)Error$")
TF_PEER_LOST = frozenset({"launcher.tf_collective_aborted_by_peer", "launcher.tf_cluster_check_peer_down",
                          "launcher.tf_collective_timeout", "launcher.tf_collective_socket_closed",
                          "launcher.tf_collective_socket_closed_message",
                          "launcher.tf_grpc_unavailable", "launcher.grpc_unreachable"})
TF_ABORT_WITHIN = 4  # lines from the exception's line to its message's words of the lost peer
UNCAUGHT_RULES = frozenset({"python.uncaught_exception", "python.uncaught_exception_indented"})


def demote_tf_peer_aborts(findings: Sequence[Finding]) -> list[Finding]:
    """``findings`` with a TensorFlow worker's uncaught UnavailableError, CancelledError,
    AbortedError or DeadlineExceededError made collateral (cause none) where its message, in the
    next :data:`TF_ABORT_WITHIN` lines, says the coordination service aborted the collectives over
    a lost peer ("Collective ops is aborted by: Task /job:worker/replica:0/task:1 heartbeat
    timeout"): what the peer's loss did to this worker; the peer's own log says what failed. An
    AbortedError of a storage call, a CancelledError over an input's end, stay the worker's own."""
    lost = {(f.file, f.line) for f in findings if f.rule in TF_PEER_LOST and f.line is not None}
    if not lost:
        return list(findings)

    def aborted(f: Finding) -> bool:
        return (f.rule in UNCAUGHT_RULES and f.line is not None and TF_ABORT_ERRORS.search(f.field("exc_type") or "") is not None
                and any((f.file, f.line + k) in lost for k in range(1, TF_ABORT_WITHIN + 1)))

    return [dataclasses.replace(f, role=Role.COLLATERAL, cause=None) if aborted(f) else f for f in findings]


# Slurm's mails about a job (rules/scheduler.yaml)
SLURM_MAIL_ENDS = frozenset({"scheduler.slurm_mail_stopped", "scheduler.slurm_mail_out_of_memory",
                             "scheduler.slurm_mail_node_fail"})
SLURM_MAIL_COMPLETED = "scheduler.slurm_mail_completed"


def demote_mails_before_completion(findings: Sequence[Finding]) -> list[Finding]:
    """``findings`` with Slurm's mail of a job's end (a time limit, a preemption, an OOM, a node's
    failure) made context where a later mail in its file says the same job then completed with
    exit code 0: it was requeued and finished."""
    done = [(f.file, f.field("job"), f.line) for f in findings if f.rule == SLURM_MAIL_COMPLETED and f.line is not None]
    if not done:
        return list(findings)

    def completed_later(f: Finding) -> bool:
        return (f.rule in SLURM_MAIL_ENDS and f.line is not None
                and any(file == f.file and job == f.field("job") and line > f.line for file, job, line in done))

    return [dataclasses.replace(f, role=Role.CONTEXT, cause=None) if completed_later(f) else f for f in findings]


def demote_kill_after_watchdog(findings: Sequence[Finding]) -> list[Finding]:
    """``findings`` with a shell's ``Killed`` a few lines after the report of a watchdog that kills
    the stuck server itself (SGLang's scheduler watchdog), or of SGLang's launcher hearing that a
    child failed (it then kills its process tree), made collateral (cause none): the server tore
    itself down; no OOM killer is needed to explain it."""
    return _demote_after(findings, KILLING_WATCHDOGS, KILL_WITHIN, lambda f: f.rule in SHELL_KILLED_RULES, Role.COLLATERAL)


# torchrun's failure summary (rules/torch.yaml), and how many lines after its "Root Cause" line a
# shell's "Killed" is taken to be the script's cleanup
ELASTIC_ROOT_CAUSE = "torch.elastic_root_cause"
CLEANUP_WITHIN = 40


def demote_kill_after_summary(findings: Sequence[Finding]) -> list[Finding]:
    """``findings`` with a shell's ``Killed`` that follows torchrun's failure summary in its file
    made context (cause none). torchrun printed the summary and exited with a code of its own, so
    the process the shell reports killed is another one: the job script's monitor or helper
    that the script ended once the job had failed, not the job's own death."""
    return _demote_after(findings, frozenset({ELASTIC_ROOT_CAUSE}), CLEANUP_WITHIN,
                         lambda f: f.rule in SHELL_KILLED_RULES, Role.CONTEXT)


# torchelastic's race: the agent read a worker's error file half written and crashed on it
REPLY_RACE = "torch.elastic_reply_file_unparsed"
UNCAUGHT = "python.uncaught_exception"
RACE_WITHIN = 200  # lines from the agent's report to its own traceback's last line


def demote_launcher_reply_race(findings: Sequence[Finding]) -> list[Finding]:
    """``findings`` with the torchrun agent's own ``JSONDecodeError`` traceback, a few lines after
    it reported a reply (error) file it could not parse, made collateral (cause none): the agent
    read the file of a worker that was failing while the worker still wrote it, and crashed on
    that; the job's failure is the worker's, not the agent's exception."""
    return _demote_after(findings, frozenset({REPLY_RACE}), RACE_WITHIN,
                         lambda f: f.rule == UNCAUGHT and f.rank is None and "JSONDecodeError" in f.text,
                         Role.COLLATERAL)


# vLLM's engine timing out on its workers' reply: the queue's read raises a bare TimeoutError
VLLM_SHM_READ = "launcher.vllm_shm_read_timeout"
VLLM_READ_WITHIN = 4  # lines from acquire_read's frame to the exception's line


def demote_worker_wait_timeouts(findings: Sequence[Finding]) -> list[Finding]:
    """``findings`` with the bare ``TimeoutError`` that vLLM's shared-memory queue raised when its
    workers stopped answering (a few lines after the ``acquire_read`` frame) made collateral (cause
    none): the engine's wait ran out because a worker hung; no exception of the program's says more."""
    return _demote_after(findings, frozenset({VLLM_SHM_READ}), VLLM_READ_WITHIN,
                         lambda f: f.rule == UNCAUGHT and f.field("exc_type") == "TimeoutError" and not f.field("exc_msg"),
                         Role.COLLATERAL)


ATEXIT = "python.atexit_error"
EXIT_BARRIER = "torch.elastic_exit_barrier_error"  # the agent's error at the exit barrier: its workers had finished
IGNORED = "python.exception_ignored"  # "Exception ignored in: <function ...__del__>": printed and dropped
IGNORED_WITHIN = 30  # lines from it to its exception's line (a finaliser's traceback is short)
TRACEBACK = "python.traceback"
FRAME = "python.traceback_frame"
ATEXIT_WITHIN = 60  # lines from "Error in atexit._run_exitfuncs:" to its exception's line


# an exception's own line ("[rank3]: RuntimeError: DataLoader worker (pid 812) is killed by ..."):
# another rule than python.uncaught_exception may have read it (a torch rule claims the words)
_EXCEPTION_LINE = re.compile(r"^(?:\[[a-z]+[0-9]*\]: ?){0,3}\s*[A-Za-z_][\w.]{0,120}(?:Error|Exception|Interrupt)\b")


def demote_exit_handler_errors(findings: Sequence[Finding]) -> list[Finding]:
    """``findings`` with the exception an exit handler raised (the first one of the same file and
    rank after Python's "Error in atexit._run_exitfuncs:") made context (cause none), and that
    traceback's header dropped: the program's main code had returned before it; a shutdown that
    failed is no failure of the run. Another rank's exception in between stays what it is. The
    same for the exception torchelastic's agent logs at its exit barrier (after its workers
    finished), and for one Python says it ignored (a finaliser's, an exit callback's)."""
    heads = [f for f in findings if f.rule in (ATEXIT, EXIT_BARRIER, IGNORED) and f.line is not None]
    if not heads:
        return list(findings)
    # (another rule's reading of an exception's line counts where it names no cause: one that
    # names one - a GPU's ECC error, a loader worker's OOM kill raised at exit - stays what it is)
    exceptions = sorted((f for f in findings if f.line is not None and (f.rule == UNCAUGHT or (
        f.role is Role.COLLATERAL and f.cause is None and _EXCEPTION_LINE.match(f.text) is not None))),
        key=lambda f: f.line or 0)
    tracebacks = [f for f in findings if f.rule == TRACEBACK and f.line is not None]
    demoted: set[int] = set()
    dropped: set[int] = set()
    for group in _head_groups(heads):
        head, count = group[0], len(group)
        line, last = head.line or 0, group[-1].line or 0
        within = IGNORED_WITHIN if head.rule == IGNORED else ATEXIT_WITHIN
        # (another traceback begun after the group's own headers: its exception is another's, and so
        # are those after it - the ignored ones' were cut)
        other = min((t.line or 0 for t in tracebacks if t.file == head.file and (t.line or 0) > last + 1 + count),
                    default=None) if head.rule == IGNORED else None
        firsts = [f for f in exceptions if f.file == head.file and f.rank == head.rank and id(f) not in demoted
                  and 0 < (f.line or 0) - line <= within + (last - line)
                  and (other is None or (f.line or 0) < other)][:count]
        demoted.update(id(f) for f in firsts)
        # (and every other reading of those lines: one exception, one line)
        lines = {(f.file, f.line) for f in firsts}
        demoted.update(id(f) for f in exceptions if (f.file, f.line) in lines)
        dropped.update(id(f) for f in findings if f.rule == TRACEBACK and f.file == head.file
                       and f.rank == head.rank and 0 < (f.line or 0) - line <= (last - line) + 1 + count)
    return [dataclasses.replace(f, role=Role.CONTEXT, cause=None) if id(f) in demoted else f
            for f in findings if id(f) not in dropped]


def _head_groups(heads: Sequence[Finding]) -> list[list[Finding]]:
    """``heads`` in groups of those of one file and rank on consecutive lines, of one kind: two
    processes' "Exception ignored in:" printed together (two data loaders' finalisers at exit),
    their tracebacks interleaved after them, each group's exceptions its own in order."""
    groups: list[list[Finding]] = []
    for f in sorted(heads, key=lambda f: (f.file or "", f.line or 0)):
        prev = groups[-1][-1] if groups else None
        if (prev is not None and prev.rule == f.rule == IGNORED and prev.file == f.file and prev.rank == f.rank
                and (f.line or 0) - (prev.line or 0) == 1):
            groups[-1].append(f)
        else:
            groups.append([f])
    return groups


# (and multiprocessing's resource tracker, a helper process of its own: "KeyError: '/psm_...'" when
# a shared-memory segment it was told of is unregistered twice, printed and dropped)
_FEEDER_FRAME = re.compile(r'multiprocessing/(?:queues\.py", line [0-9]{1,6}, in _feed|resource_tracker\.py", line [0-9]{1,6}, in main)\b')
FEEDER_WITHIN = 20  # lines from a queue feeder thread's traceback header to its exception's line


def _exception_of(tb: Finding, findings: Sequence[Finding], within: int) -> Finding | None:
    """The first Python finding of ``tb``'s file and rank within ``within`` lines after the
    traceback's header ``tb``: the exception its traceback ends in."""
    line = tb.line or 0
    return min((f for f in findings if f.file == tb.file and f.rank == tb.rank and f.role is not Role.CONTEXT
                and f.rule.startswith("python.") and 0 < (f.line or 0) - line <= within),
               key=lambda f: f.line or 0, default=None)


def demote_feeder_thread_errors(findings: Sequence[Finding]) -> list[Finding]:
    """``findings`` with the exception of a multiprocessing queue's feeder thread (a traceback
    whose first frame is ``multiprocessing/queues.py ... in _feed``: Python prints it from the
    background thread that writes to a pipe, most often a broken pipe once the reader - a data
    loader worker, a peer process - has gone) made context, and its traceback dropped: the
    thread's error, printed and dropped; the process goes on. So too multiprocessing's resource
    tracker's (``resource_tracker.py ... in main``), a helper process whose errors end nothing."""
    feeders = [f for f in findings if f.rule == TRACEBACK and f.line is not None
               and f.context and _FEEDER_FRAME.search(f.context[0])]
    if not feeders:
        return list(findings)
    demoted = {id(first) for tb in feeders if (first := _exception_of(tb, findings, FEEDER_WITHIN)) is not None}
    dropped = {id(tb) for tb in feeders}
    return [dataclasses.replace(f, role=Role.CONTEXT, cause=None) if id(f) in demoted else f
            for f in findings if id(f) not in dropped]


# a child started by multiprocessing's spawn (torch.multiprocessing.spawn, a DataLoader worker with
# the spawn start method) reads its start-up data from its parent first: these are what it raises
# when the parent died or closed the pipe before sending it all
_SPAWN_FRAME = re.compile(r'multiprocessing/spawn\.py", line [0-9]{1,6}, in (?:spawn_main|_main)\b')
_PARENT_GONE = re.compile(r"^(?:\[(?:rank|default)[0-9]{1,6}\]: ?)* ?(?:EOFError: Ran out of input"
                          r"|_pickle\.UnpicklingError: pickle data was truncated)\s*$")
SPAWN_WITHIN = 12  # lines from a spawned child's traceback header to its exception's line


def demote_orphaned_spawn_children(findings: Sequence[Finding]) -> list[Finding]:
    """``findings`` with the start-up failure of a spawned child whose parent was gone (a
    traceback through ``multiprocessing/spawn.py ... in spawn_main`` ending in "EOFError: Ran out
    of input" or "pickle data was truncated": its start-up data never fully arrived) made
    collateral: the parent's own failure is the cause. A child that could not unpickle what it
    got (an ``AttributeError: Can't get attribute ...``, the user's error) keeps its reading."""
    spawned = [f for f in findings if f.rule == TRACEBACK and f.line is not None
               and any(_SPAWN_FRAME.search(c) for c in f.context[:4])]
    if not spawned:
        return list(findings)
    demoted = {id(first) for tb in spawned
               if (first := _exception_of(tb, findings, SPAWN_WITHIN)) is not None and _PARENT_GONE.search(first.text)}
    return [dataclasses.replace(f, role=Role.COLLATERAL, cause=None) if id(f) in demoted else f for f in findings]


# the frames of a process group being torn down: the program's work is over when it destroys its
# process groups (vLLM's workers at engine shutdown, a trainer's last line)
_TEARDOWN_FUNCS = frozenset({"destroy_process_group", "_shutdown_backend"})
_FRAMES = frozenset({FRAME, "python.frame_in_collective"})  # (the second: a frame of torch.distributed, its prefix kept)
TEARDOWN_WITHIN = 6  # lines from a teardown frame to the error its traceback ends in
TEARDOWN_HEADER_WITHIN = 40  # lines from a traceback's header to its teardown frame (two processes' interleaved)


def demote_teardown_errors(findings: Sequence[Finding]) -> list[Finding]:
    """``findings`` with an error raised while a process group was being destroyed (a
    traceback whose last frames are ``destroy_process_group`` or ``_shutdown_backend``, the error
    within :data:`TEARDOWN_WITHIN` lines after that frame in its file, on its rank) made context,
    cause none: NCCL failing to free a communicator on the way out ("unhandled cuda error ...
    Cuda failure 'out of memory'" as vLLM's workers shut down after the batch finished) is the
    shutdown's, not what stopped the work, and the traceback's header is dropped. A GPU, its memory
    or its links failing is kept."""
    frames = [f for f in findings if f.rule in _FRAMES and f.line is not None and f.field("func") in _TEARDOWN_FUNCS]
    if not frames:
        return list(findings)

    def raised_there(f: Finding) -> bool:
        if f.role is Role.CONTEXT or f.line is None or f.cause in GPU_FAULTS:
            return False
        return any(t.file == f.file and t.rank == f.rank and 0 < f.line - (t.line or 0) <= TEARDOWN_WITHIN
                   for t in frames)

    def its_header(f: Finding) -> bool:  # (the traceback a teardown frame belongs to: dropped)
        return f.rule == TRACEBACK and f.line is not None and any(
            t.file == f.file and t.rank == f.rank and 0 < (t.line or 0) - f.line <= TEARDOWN_HEADER_WITHIN for t in frames)

    return [dataclasses.replace(f, role=Role.CONTEXT, cause=None) if raised_there(f) else f
            for f in findings if not its_header(f)]


RULE_PG_DESTROYING = "torch.pg_destroying"
RULE_COMM_RECLAIM = "nccl.comm_reclaim_failed"
RECLAIM_WITHIN = 3  # lines from NCCL's warning to its "commReclaim ... failed in destroy/abort"
DESTROY_TAIL = 10  # lines after the last "Destroy complete." still the teardown's (ranks destroying last)


def _nccl_pid(f: Finding) -> int | None:
    """The pid NCCL's own header on the finding's line names (``host:pid:tid [dev]``), else the
    finding's."""
    header = nccl_header(f.text or "")
    return header[1] if header is not None else f.pid


def _freeing_failed(f: Finding) -> bool:
    """NCCL's report of a CUDA call that failed (not a network, GPU or memory fault's words): what
    freeing a communicator's buffers prints when the handles are already gone."""
    return (f.rule.startswith("nccl.") and "Cuda failure" in (f.text or "")
            and f.cause not in (Cause.NETWORK, Cause.GPU_HARDWARE, Cause.ECC_MEMORY, Cause.CUDA_OOM))


def demote_destroy_warnings(findings: Sequence[Finding]) -> list[Finding]:
    """``findings`` with what NCCL reported while ProcessGroupNCCL destroyed its communicators
    made context, cause none, where a destroy then completed: in a file, NCCL's CUDA failures
    between the first "destroying NCCL communicators" and a few lines after the last "Destroy
    complete." ("NCCL WARN Cuda failure 1 'invalid argument'" as registered buffers are freed) are
    the shutdown's, after the work was done; so are the CUDA failures a process reported just before
    NCCL's own "commReclaim ... failed in destroy/abort" in the same process. A network, GPU or
    memory fault is kept (an abort after a real failure prints commReclaim too)."""
    reclaims = [f for f in findings if f.rule == RULE_COMM_RECLAIM and f.line is not None]
    if reclaims:
        # the warnings a process printed just before NCCL said its cleanup failed in destroy/abort
        # (an NVLS buffer's "Cuda failure 'invalid argument'" as the communicator is freed) are
        # that cleanup's
        def cleaning(f: Finding) -> bool:
            return (f.line is not None and _freeing_failed(f) and f.role is not Role.CONTEXT
                    and any(r.file == f.file and _same_process(f, r) and _nccl_pid(f) == _nccl_pid(r)
                            and 0 < (r.line or 0) - f.line <= RECLAIM_WITHIN for r in reclaims))

        findings = [dataclasses.replace(f, role=Role.CONTEXT, cause=None) if cleaning(f) else f for f in findings]
    marks = [f for f in findings if f.rule == RULE_PG_DESTROYING and f.line is not None]
    if not marks:
        return list(findings)
    # each file's span from its first "destroying" line to its last "Destroy complete." and a few
    # lines more (a paste cut while the last ranks were still destroying theirs)
    spans: dict[str | None, tuple[int, int]] = {}
    for file in {f.file for f in marks}:
        starts = [f.line for f in marks if f.file == file and "destroying" in (f.text or "") and f.line is not None]
        ends = [f.line for f in marks if f.file == file and "Destroy complete" in (f.text or "") and f.line is not None]
        if starts and ends and max(ends) > min(starts):
            spans[file] = (min(starts), max(ends) + DESTROY_TAIL)

    def during(f: Finding) -> bool:
        span = spans.get(f.file)
        return (span is not None and f.line is not None and span[0] < f.line <= span[1] and _freeing_failed(f)
                and f.role is not Role.CONTEXT)

    return [dataclasses.replace(f, role=Role.CONTEXT, cause=None) if during(f) else f for f in findings]


# a Ray actor's or worker's prefix, and the exception class its line raises
_ACTOR_PID = re.compile(r"\((?:[A-Za-z_][\w.()]{0,80} )?pid=(?P<pid>[0-9]{1,10})(?:, ip=[0-9A-Fa-f.:]{3,45})?\)")
_EXC_CLASS = re.compile(r"\b(?P<cls>[A-Za-z_][\w.]{0,80}(?:Error|Exception)):")
REPEATS_SURVIVED = 3  # the same exception this many times from one live process: it was caught and logged


# verl's colocated workers are Ray actors named "<prefix>WorkerDict_<placement group>:<local rank>";
# in the first placement group the local rank is the worker group's rank
_VERL_WORKER = re.compile(r"(?:^|[\s=])[A-Za-z0-9]{0,16}WorkerDict_0:(?P<rank>[0-9]{1,5})(?=$|[\s:,)])")
VERL_ACTOR_RULES = frozenset({"launcher.ray_worker_died", "launcher.ray_memory_monitor"})


def verl_worker_ranks(findings: Sequence[Finding]) -> list[Finding]:
    """``findings`` with the rank of a verl worker that Ray reports dead or killed for memory, read
    from the actor's name (``...WorkerDict_0:3``: rank 3 of the worker group) on the line or in the
    actor's description after it, where no prefix gave the line a rank. Only the first placement
    group's names are read: a later group's ranks start after the earlier groups' sizes, which
    these lines do not give."""
    out = []
    for f in findings:
        if f.rule in VERL_ACTOR_RULES and f.rank is None:
            m = next((m for text in (f.text, *f.context) if (m := _VERL_WORKER.search(text)) is not None), None)
            if m is not None:
                f = dataclasses.replace(f, rank=int(m["rank"]))
        out.append(f)
    return out


# Ray's words for the node of a worker it saw die: the raylet's "Worker IP address: 10.1.2.3" (on
# the line), the actor's description after an ActorDiedError ("\tip: 10.1.2.3" on a line of its
# own), the memory monitor's "node (ID: ..., IP: 10.1.2.3)" where a paste broke its line
_RAY_WORKER_IP = re.compile(r"(?:\bWorker IP address: |^\s*ip: |\bnode \(ID: [0-9a-f]{1,64}, IP: )"
                            r"(?P<ip>[0-9]{1,3}(?:\.[0-9]{1,3}){3})\b")
RAY_DEATH_RULES = frozenset({"launcher.ray_worker_died", "launcher.ray_raylet_oom"})


def ray_worker_nodes(findings: Sequence[Finding], node_of: Callable[[str | None], str | None]) -> list[Finding]:
    """``findings`` with the node of a Ray worker that the raylet or the driver reports dead (or
    killed for memory), read from the address Ray gives on the line or in the lines after it
    (the actor's description), where the line has no node. ``node_of`` reads a host as the run
    names it (an address the run knows by a host name)."""
    out = []
    for f in findings:
        if f.rule in RAY_DEATH_RULES and f.node is None:
            m = next((m for text in (f.text, *f.context[:RAY_DESCRIPTION_LINES])
                      if (m := _RAY_WORKER_IP.search(text)) is not None), None)
            if m is not None and names_a_host(m["ip"]) and not m["ip"].startswith("0."):
                f = dataclasses.replace(f, node=node_of(m["ip"]))
        out.append(f)
    return out


RAY_DESCRIPTION_LINES = 8  # (an ActorDiedError's description: class, id, pid, name, namespace, ip)


def demote_repeated_actor_exceptions(findings: Sequence[Finding], scans: Sequence[FileScan]) -> list[Finding]:
    """``findings`` with the exceptions one Ray actor raised again and again (the same class
    :data:`REPEATS_SURVIVED` times or more from one pid, the training's progress going on after
    the third of them in that file) made context, cause none: a process that raises the same
    error a third time has survived the first two - the program caught and logged them (a reward
    function that could not parse a sample), and they stopped nothing. Their tracebacks' headers
    are dropped."""
    progress = {s.file.display: s.last_progress for s in scans if s.last_progress is not None}
    seen: dict[tuple[str | None, str, str], list[Finding]] = defaultdict(list)
    for f in findings:
        if f.rule != UNCAUGHT or f.line is None or f.role is Role.CONTEXT or f.file not in progress:
            continue
        actor = _ACTOR_PID.search(f.text, 0, 200)
        cls = _EXC_CLASS.search(f.text, actor.end() if actor else 0) if actor else None
        if actor is not None and cls is not None:
            seen[(f.file, actor["pid"], cls["cls"])].append(f)
    caught = {id(f) for (file, _pid, _cls), found in seen.items()
              if len(found) >= REPEATS_SURVIVED and (progress.get(file or "") or 0) > (found[REPEATS_SURVIVED - 1].line or 0)
              for f in found}
    if not caught:
        return list(findings)
    by_pid: dict[tuple[str | None, str], list[Finding]] = defaultdict(list)
    for (file, pid, _cls), found in seen.items():
        by_pid[(file, pid)].extend(found)

    def its_traceback(f: Finding) -> bool:  # (a header whose exception was one of those: dropped)
        if f.rule != TRACEBACK or f.line is None or (actor := _ACTOR_PID.search(f.text, 0, 200)) is None:
            return False
        raised = by_pid.get((f.file, actor["pid"]), [])
        after = [e for e in raised if (e.line or 0) > (f.line or 0)]
        if not after:  # (the file cut inside one more of them)
            return any(id(e) in caught for e in raised)
        return id(min(after, key=lambda e: e.line or 0)) in caught

    return [dataclasses.replace(f, role=Role.CONTEXT, cause=None) if id(f) in caught else f
            for f in findings if not its_traceback(f)]


CAUGHT_PROGRESS = 100  # lines of training progress after an exception that say the program went on
CAUGHT_STEPS = 10  # a rank's step lines in its other file, stamped after its exception, that say so


# a web server's access log line for a request it answered with a client error (uvicorn's, under
# vLLM's, SGLang's and other OpenAI-style servers: 'INFO:     10.0.0.7:42384 - "POST /v1/chat/completions
# HTTP/1.1" 400 Bad Request')
_CLIENT_ERROR_REPLY = re.compile(r'"(?:GET|POST|PUT|DELETE|PATCH) \S{1,2000} HTTP/[0-9.]{1,3}" 4[0-9]{2}\b')
ANSWER_LINES = 5  # lines after an exception where the server's reply to the request counts
SERVED_ON_LINES = 200  # lines after the reply where the server's serving on shows
# an inference engine's or worker's process, named in its prefix: its exceptions are its own
_ENGINE_PROCESS = re.compile(r"\((?:EngineCore[\w-]*|VllmWorker[\w-]*|Worker_[\w]+|RayWorkerWrapper|MapWorker\S*)[ ,]")


def demote_answered_requests(findings: Sequence[Finding], scans: Sequence[FileScan]) -> list[Finding]:
    """``findings`` with a Python exception that the server's reply to the request follows within
    :data:`ANSWER_LINES` lines of its file, a client error (a 4xx status in the access log: a
    prompt longer than the model's context, a bad parameter), made context, cause none: the
    server logged the request's error and went on serving. Only the API server's own exceptions
    (not an engine's or a worker's, named by their prefix), and only where the file shows it serving
    on within :data:`SERVED_ON_LINES` lines and no engine dying."""
    by_file = {s.file.display: s for s in scans}

    def answered(f: Finding) -> bool:
        scan = by_file.get(f.file or "")
        if scan is None or f.line is None or _ENGINE_PROCESS.search(f.text[:300]) is not None:
            return False  # (an engine's or a worker's own exception: the request's reply comes from the server)
        if not any(_CLIENT_ERROR_REPLY.search(tail_line(scan, f.line + k)) is not None for k in range(1, ANSWER_LINES + 1)):
            return False
        # the server went on serving, and its engine did not die
        after = [tail_line(scan, f.line + k) for k in range(ANSWER_LINES + 1, ANSWER_LINES + SERVED_ON_LINES)]
        return not any("EngineDeadError" in line or ("EngineCore" in line and "fatal" in line) for line in after) and any(
            is_progress(line) for line in after)

    return [dataclasses.replace(f, role=Role.CONTEXT, cause=None)
            if f.rule == UNCAUGHT and f.role is Role.INITIATOR and f.cause is Cause.PYTHON_EXCEPTION and answered(f)
            else f for f in findings]


_BAR_UPDATE = re.compile(r"([0-9]{1,12})/([0-9]{1,12}) \[[0-9:]{4,12}<")  # tqdm's "57/300 [17:09<1:13:24"


def _bar_updates(scan: FileScan | None, after: int, before: int) -> int:
    """How many steps a progress bar advanced on the lines strictly between line numbers
    ``after`` and ``before`` of the file's tail (tqdm's "57/300 [17:09<1:13:24": from its first
    count there to its last, of the same total; a line where carriage returns joined several
    updates shows the last of them)."""
    if scan is None:
        return 0
    tail = tail_of(scan)
    counts = [(int(m[0]), m[1]) for i in range(max(0, after + 1 - scan.tail_first), min(len(tail), before - scan.tail_first))
              for m in _BAR_UPDATE.findall(tail[i])]
    if len(counts) < 2 or counts[0][1] != counts[-1][1]:
        return len(counts)
    return max(len(counts), counts[-1][0] - counts[0][0])


RAY_UNHANDLED = "launcher.ray_unhandled_error"  # rules/launchers.yaml
MPI_FRAME = "generic.mpi_backtrace_frame"  # rules/generic.yaml
_SHUTDOWN_NOISE = frozenset({RAY_UNHANDLED, MPI_FRAME})


VLLM_WORKER_DIED = "launcher.vllm_worker_died"  # rules/launchers.yaml
# a process's NCCL watchdog taking it down, or a fatal signal's handler: what ends a vLLM worker
# from inside before its executor sees it die
_WORKER_TAKEDOWNS = frozenset({"nccl.watchdog_timeout", "torch.nccl_teardown", "torch.watchdog_stuck",
                               "torch.watchdog_failure_detected", "generic.caught_signal", "python.fatal_signal"})


TAKEDOWN_BEFORE_DEATH = timedelta(minutes=5)  # a worker's takedown this long before the executor saw it die, at most


def demote_worker_deaths_after_takedown(findings: Sequence[Finding]) -> list[Finding]:
    """``findings`` with vLLM's "Worker proc VllmWorker-N died unexpectedly" made collateral
    (cause none) where an earlier line of its file, at most :data:`TAKEDOWN_BEFORE_DEATH` before
    it, says a worker was being taken down - its NCCL watchdog's timeout or teardown, a fatal
    signal's handler: the executor saw the death those
    lines already explain (a hang, a crash), not a death of its own with no reason."""
    takedowns: dict[str, list[Finding]] = defaultdict(list)
    for f in findings:
        if f.rule in _WORKER_TAKEDOWNS and f.role is not Role.CONTEXT and f.file is not None and f.line is not None:
            takedowns[f.file].append(f)
    if not takedowns:
        return list(findings)

    def after_takedown(f: Finding) -> bool:
        return f.line is not None and any(
            t.line is not None and t.line < f.line
            and (t.time is None or f.time is None or timedelta(0) <= f.time - t.time <= TAKEDOWN_BEFORE_DEATH)
            for t in takedowns.get(f.file or "", ()))

    return [dataclasses.replace(f, role=Role.COLLATERAL, cause=None)
            if f.rule == VLLM_WORKER_DIED and f.role is Role.INITIATOR and after_takedown(f) else f for f in findings]


def demote_shutdown_noise(findings: Sequence[Finding], scans: Sequence[FileScan]) -> list[Finding]:
    """``findings`` with a Ray error no caller collected after its file's word that training
    completed, and Open MPI's backtrace frames (both read as a failure where nothing else says one
    happened) in a file where torchrun's agent or a harness says the run succeeded, made context,
    cause none: what a finished job's teardown printed."""
    succeeded = {f.file for f in findings if f.rule in _SUCCESS}
    done = {s.file.display: line for s in scans if (line := completed_line(s)) is not None}

    def noise(f: Finding) -> bool:
        if f.rule == MPI_FRAME:  # (frames after a trainer's word that it finished may be a crash in its final save)
            return f.file in succeeded
        return f.rule == RAY_UNHANDLED and (f.file in succeeded or (f.line is not None and done.get(f.file or "", f.line) < f.line))

    return [dataclasses.replace(f, role=Role.CONTEXT, cause=None) if noise(f) else f for f in findings]


def _says_it_failed(f: Finding) -> bool:
    """``f`` says that something failed: a failure's consequence, or an initiator with a cause."""
    return f.role is Role.COLLATERAL or (f.role is Role.INITIATOR and f.cause is not None)


EXECVE_FAILED = "scheduler.slurm_execve_failed"  # rules/scheduler.yaml


def demote_steps_that_did_not_start_training(findings: Sequence[Finding], scans: Sequence[FileScan]) -> list[Finding]:
    """``findings`` with slurmstepd's failure to start a step's program made context, cause none,
    where training progress follows it in its file and nothing failed after it there: a step of the
    batch script other than the training one (a topology dump, a probe) failed to start, and the
    training ran."""
    progress = {s.file.display: s.last_progress for s in scans if s.last_progress is not None}
    failing: dict[str | None, int] = {}  # each file's last line that says something failed, besides these
    for f in findings:
        if f.line is not None and f.rule not in (EXECVE_FAILED, RULE_EXIT_CODE) and _says_it_failed(f):
            failing[f.file] = max(failing.get(f.file, 0), f.line)

    def trained_after(f: Finding) -> bool:  # (and nothing failed after it in its file)
        return (f.line is not None and progress.get(f.file or "", 0) > f.line
                and failing.get(f.file, 0) < f.line)

    return [dataclasses.replace(f, role=Role.CONTEXT, cause=None) if f.rule == EXECVE_FAILED and trained_after(f) else f
            for f in findings]


RAYLET_OOM = "launcher.ray_raylet_oom"  # rules/launchers.yaml
SURVIVED_FOR = timedelta(minutes=10)  # a job that went on this long after a worker's kill survived it
SURVIVED_PROGRESS = 3  # lines of progress between, at least


def demote_survived_worker_kills(findings: Sequence[Finding], scans: Sequence[FileScan]) -> list[Finding]:
    """``findings`` with Ray's memory monitor killing a worker made context, cause none, where the
    node went on after it: its file shows :data:`SURVIVED_PROGRESS` lines of that node's progress or
    more after it, the last of them stamped more than :data:`SURVIVED_FOR` after the kill, before
    any other failure of the file, and no later failure there names the node. Ray retried the
    task; what failed later failed for its own reason."""
    by_file = {s.file.display: s for s in scans}
    failures = [f for f in findings if f.line is not None and f.rule != RAYLET_OOM and _says_it_failed(f)]

    def survived(k: Finding) -> bool:
        scan = by_file.get(k.file or "")
        if (k.rule != RAYLET_OOM or k.role is not Role.INITIATOR or k.time is None or k.line is None or scan is None
                or k.node is None):
            return False
        later = [f for f in failures if f.file == k.file and (f.line or 0) > k.line]
        if any(f.node is not None and same_host(f.node, k.node) for f in later):
            return False  # (a later failure on the node: the kill's)
        until = min((f.line or 0 for f in later), default=scan.tail_first + len(tail_of(scan)))
        seen, latest = 0, k.time
        tail = tail_of(scan)
        for i in range(max(0, k.line + 1 - scan.tail_first), min(len(tail), until - scan.tail_first)):
            if is_progress(tail[i]):
                ev = tail_event(scan, i)
                if ev.node is None or not same_host(ev.node, k.node):
                    continue  # (the node's own engines' progress: another node's says nothing of it)
                seen += 1
                if ev.time is not None and not ev.time_inferred:
                    latest = max(latest, ev.time)
        return seen >= SURVIVED_PROGRESS and latest - k.time > SURVIVED_FOR

    return [dataclasses.replace(f, role=Role.CONTEXT, cause=None) if survived(f) else f for f in findings]


# a logger's word that the program goes on after the exception it is about to print
# (that introduces the traceback: a line that ends with a colon; a retry's count without one,
# "retrying in 16s [4/5]", may be followed by the last try's failure that ended the job)
_GOES_ON = re.compile(r"(?i)\b(?:continuing|will (?:retry|continue)|retrying|ignoring|skipping)\b[^:]{0,80}:\s*$")
ANNOUNCED_TRACEBACK = 80  # lines from a traceback's header to its exception line, at most


# an exception's line: its class (a module's path before it) and its message
_RAISED_LINE = re.compile(r"\s?(?:[A-Za-z_]\w{0,63}\.){0,10}[A-Za-z_]\w{0,100}(?:Error|Exception|Timeout|Reset|Refused): \S")


def _raised_line(f: Finding, styles: Mapping[str, PrefixStyle],
                 headers: Mapping[tuple[str | None, int | None], Sequence[int]]) -> bool:
    """``f`` is the exception's line of a Python traceback, or a line of its code (indented: the
    source of the frame that raised it, "raise ConnectionResetError(...)"): the line reads as one
    and a traceback's header of its rank lies up to :data:`ANNOUNCED_TRACEBACK` lines before it in
    its file."""
    line = f.line or 0
    lines = headers.get((f.file, f.rank), ())
    at = bisect.bisect_left(lines, line) - 1  # (the last header before the line)
    if at < 0 or lines[at] < line - ANNOUNCED_TRACEBACK:
        return False
    message = strip_prefix(f.text, styles.get(f.file or "", PrefixStyle.BRACKETS)).message
    return message.startswith(("    ", "\t")) or _RAISED_LINE.match(message) is not None


# what a program logs and may go on after, as after an exception it caught: an uncaught exception's
# line, and Megatron's result validation's verdicts (a spiky loss's validation lets the job go on)
LOGGED_FAILURES = frozenset({UNCAUGHT, "launcher.megatron_rerun_hardware", "launcher.megatron_rerun_persistent",
                             "launcher.megatron_rerun_application"})


def demote_caught_exceptions(findings: Sequence[Finding], scans: Sequence[FileScan],
                             file_rank: Mapping[str, int] | None = None) -> list[Finding]:
    """``findings`` with a Python exception that its file's training progress went on well after
    (the file's last line of progress more than :data:`CAUGHT_PROGRESS` lines later) made context,
    cause none: the program caught and logged it (a monitoring client that lost its server, a
    sample it could not parse) and trained on; a program that printed an error and went on for
    hundreds of lines of steps did not stop there. Not where anything else that failed follows it
    in its file (a launcher's report that a process exited with an error: the progress after it was
    a buffered stdout flushed at exit). In a file of several ranks the progress counted is the
    exception's own rank's (the file's may be another rank's), and progress up to the file's word
    that training completed counts however short. A rank's steps stamped after the exception in its
    own files (:data:`CAUGHT_STEPS` of them: torchrun's stdout.log beside the stderr.log that holds
    the traceback, or the rank's one log) say the same; in its own file, they say so whatever
    another rank or the launcher failed later, unless its own rank fails later there (or an exit
    names no rank). A traceback's exception line that a collateral rule reads (a connection reset
    the program caught and logged, then trained on) is an exception here too. The tracebacks'
    headers are dropped."""
    progress = {s.file.display: s.last_progress for s in scans if s.last_progress is not None}
    shared = {s.file.display: s for s in scans if len(s.prefix_ranks) >= 2}
    headers = sorted((f for f in findings if f.rule == TRACEBACK and f.line is not None), key=lambda f: f.line or 0)
    # a traceback's exception line that a collateral rule reads (a connection reset, a store or a
    # peer lost: "ConnectionResetError: [Errno 104] Connection reset by peer") is an exception too
    styles = {s.file.display: s.parser.style if s.parser is not None else PrefixStyle.BRACKETS for s in scans}
    header_lines: dict[tuple[str | None, int | None], list[int]] = defaultdict(list)
    for h in headers:
        header_lines[(h.file, h.rank)].append(h.line or 0)  # (headers are sorted by line)
    raised_lines = {(f.file, f.line) for f in findings if f.role is Role.COLLATERAL and f.line is not None
                    and (f.file in progress or f.rank is not None) and _raised_line(f, styles, header_lines)}
    if raised_lines:  # (marked: the live watch waits to see whether the job goes on after them)
        findings = [dataclasses.replace(f, fields=(*f.fields, (RAISED, "1")))
                    if f.role is Role.COLLATERAL and (f.file, f.line) in raised_lines else f for f in findings]
    exceptions = sorted((f for f in findings if f.line is not None and (
                            (f.rule in LOGGED_FAILURES and (f.file in progress or f.rank is not None)
                             and f.role is Role.INITIATOR and (f.rule != UNCAUGHT or f.cause is Cause.PYTHON_EXCEPTION))
                            or (f.role is Role.COLLATERAL and (f.file, f.line) in raised_lines))),
                        key=lambda f: (f.file or "", f.line or 0))
    if not exceptions:
        return list(findings)
    completed = {s.file.display for s in scans if s.last_progress is not None and says_completed(s)}

    def went_on_after(f: Finding) -> bool:
        line = f.line or 0
        last = progress.get(f.file or "") or 0
        if last <= line:
            return False
        if f.rank is not None and f.file in shared:
            # a file of several ranks: the exception's own rank's progress after it (the last
            # progress of the file may be another rank's)
            scan = shared[f.file]
            # (its local rank read where the file is one node's: two nodes' "[default0]:" are two ranks)
            local = line_local_rank(scan, line) if len(scan.hosts) <= 1 else None
            last = own_last_progress(scan, line, f.rank, local) or 0
        # progress for long after it (lines of it, or the steps a progress bar's counter advanced:
        # carriage returns keep many updates on one line), or up to the file's word that training
        # completed
        return (last - line > CAUGHT_PROGRESS or (last > line and f.file in completed)
                or _bar_updates(by_file.get(f.file or ""), line, last) > CAUGHT_PROGRESS)

    by_rank: dict[int, list[FileScan]] = defaultdict(list)
    by_file = {s.file.display: s for s in scans}
    for scan in scans:
        rank = scan.file.rank if scan.file.rank is not None else (file_rank or {}).get(scan.file.display)
        if rank is not None and scan.file.kind is FileKind.RANK_LOG:
            by_rank[rank].append(scan)

    def stepped_on_after(f: Finding) -> bool:
        if f.rank is None or f.time is None:
            return False
        # (not a later torchrun attempt's files: the workers restarted after it did not catch it)
        return any((scan.file.display != f.file or scan.file.display not in shared)
                   and (f.attempt is None or scan.file.attempt in (None, f.attempt))
                   and progress_lines_after(scan, f.time, enough=CAUGHT_STEPS) >= CAUGHT_STEPS
                   for scan in by_rank.get(f.rank, ()))

    def stamped_on_after(f: Finding) -> bool:
        # the rank's own steps after it in its file, stamped after it: the program went on, whatever
        # another rank or the launcher's teardown failed later in the file (its own later failure
        # still counts: stdout's buffered steps flushed at exit carry stamps after a traceback too)
        scan = by_file.get(f.file or "")
        if scan is None or f.time is None or f.line is None:
            return False
        rank = f.rank if f.file in shared else None
        return own_progress_stamped_after(scan, f.line, rank, f.time, enough=CAUGHT_STEPS) >= CAUGHT_STEPS

    def announced(f: Finding) -> bool:
        # the program's own word, on the line before the traceback, that it goes on ("hook failed
        # at step 48540, continuing training:", "upload failed, will retry:"): it logged the
        # exception it caught
        scan = by_file.get(f.file or "")
        line = f.line or 0
        header = next((h for h in reversed(headers) if h.file == f.file and h.rank == f.rank
                       and line - ANNOUNCED_TRACEBACK <= (h.line or 0) < line), None)
        if scan is None or header is None or header.line is None:
            return False
        return _GOES_ON.search(tail_line(scan, header.line - 1)[-200:]) is not None

    stamped = {id(f) for f in exceptions if stamped_on_after(f)}
    said = {id(f) for f in exceptions if announced(f)}
    trained_on = stamped | said
    went_on = [f for f in exceptions if id(f) in trained_on or went_on_after(f) or stepped_on_after(f)]
    if not went_on:
        return list(findings)
    # the last line of each file that says something failed, other than an exception and its traceback
    failing: dict[str | None, int] = {}
    failing_lines: dict[str | None, list[int]] = defaultdict(list)  # (each of them, but the kernel's)
    # and of each rank's own (a failure of its rank, or an exit with an error that names no rank)
    own_failing: dict[tuple[str | None, int | None], int] = {}
    for f in findings:
        if f.line is None or f.rule in LOGGED_FAILURES or f.rule in (TRACEBACK, FRAME):
            continue
        # (a process's exit with an error, which the exit's reading may have made context: a
        # launcher's report, srun's "task 0: Exited with exit code 1")
        exited = f.rule == RULE_EXIT_CODE and f.field("exitcode") not in (None, "0")
        if f.role is not Role.CONTEXT or exited:
            failing[f.file] = max(failing.get(f.file, 0), f.line)
            # (not the kernel's: another process's fault, or one the job's own error line follows)
            if not _kernel_rule(f):
                failing_lines[f.file].append(f.line)
            if f.rank is not None or exited:
                own_failing[(f.file, f.rank)] = max(own_failing.get((f.file, f.rank), 0), f.line)

    def after(f: Finding) -> int:
        # (a traceback's exception line that a collateral rule read is itself among the failing
        # lines: what failed after it is what comes after its own line)
        return (f.line or 0) + ((f.file, f.line) in raised_lines)

    def nothing_of_its_own_after(f: Finding) -> bool:
        # (the rank's steps stamped after it: what failed later in the file is another rank's, or
        # the launcher's teardown; its own failure or an exit naming no rank still counts)
        line = after(f)
        return (f.rank is not None and own_failing.get((f.file, f.rank), 0) < line
                and own_failing.get((f.file, None), 0) < line)

    borrowed = {(h.event.file, h.event.line) for scan in scans for h in scan.hits if h.event.time_inferred}

    def ran_on_before_the_next_failure(f: Finding) -> bool:
        # the job's steps stamped after it by the program itself, before anything else in its file
        # failed (a log platform's export of every node and service: the failure that ended the
        # job came long after the one it caught)
        scan = by_file.get(f.file or "")
        if scan is None or f.time is None or f.line is None or (f.file, f.line) in borrowed:
            return False  # (a time the exception's line took from a line before it says nothing)
        later = [n for n in failing_lines.get(f.file, ()) if n > (f.line or 0)]
        rank = f.rank if f.file in shared else None
        return own_progress_stamped_after(scan, f.line, rank, f.time, enough=CAUGHT_STEPS,
                                          before=min(later) if later else None, program_stamps=True) >= CAUGHT_STEPS

    # (a program that said it goes on, and whose progress after the exception shows it did, caught
    # it, whatever failed of its own later: that later failure has lines of its own)
    caught = {id(f) for f in went_on if failing.get(f.file, 0) < after(f)
              or (id(f) in trained_on and nothing_of_its_own_after(f))
              or (id(f) in said and (id(f) in stamped or went_on_after(f) or stepped_on_after(f)))
              or ran_on_before_the_next_failure(f)}
    if not caught:
        return list(findings)
    by_where: dict[tuple[str | None, int | None], list[Finding]] = defaultdict(list)
    for f in exceptions:
        by_where[(f.file, f.rank)].append(f)

    def its_traceback(f: Finding) -> bool:  # (the header of a caught one's traceback: dropped)
        if f.rule != TRACEBACK or f.line is None:
            return False
        after = [e for e in by_where.get((f.file, f.rank), []) if (e.line or 0) > (f.line or 0)]
        return bool(after) and id(after[0]) in caught

    return [dataclasses.replace(f, role=Role.CONTEXT, cause=None) if id(f) in caught else f
            for f in findings if not its_traceback(f)]


# a program's word, on the line before a traceback it logged, that it will try again or go on
# ("checkpoint write failed, will retry in 30s (attempt 1/5)", "upload failed; retrying",
# "tensorboard write failed (ignored):", "bad sample, skipping:")
# a word that it tries again or goes on (also in Chinese, Japanese and Korean: "retry", "continue
# training", "does not affect training"; "retry", "retry", "continue"; "retry")
_GOES_AGAIN = r"\b(?:will (?:retry|try again|continue)|retrying|retry in [0-9]|continuing)\b"
_GOES_AGAIN_CJK = r"|重试|继续训练|不影响训练|再試行|リトライ|続行|재시도"
_RETRIES = re.compile(r"(?i)" + _GOES_AGAIN + r"|\b(?:ignor(?:ed|ing)|skipping|fall(?:ing)? ?back (?:to|on))\b"
                      + _GOES_AGAIN_CJK + r"|忽略|무시")  # (or ignores, skips, falls back: 忽略 and 무시, "ignore")
# (after the exception, only a word that it tries again or goes on: not "ignored", which Python's
# own "Exception ignored in: <function ...__del__>" at a dying process's exit says, nor a
# message's advice to "fall back to eager")
_RETRIES_AFTER = re.compile(r"(?i)" + _GOES_AGAIN + _GOES_AGAIN_CJK)
RETRY_WORD_AFTER = 2  # lines after an exception's line where a program's word that it retries counts
RETRIED_STEPS = 3  # lines of the job's progress stamped after an exception its program said it retries: it went on
CUDA_OOM_ERROR = "torch.cuda_oom"  # rules/torch.yaml
OOM_RAISED = frozenset({CUDA_OOM_ERROR, "torch.out_of_memory_error"})  # (the allocator's message; the exception's line)
# the last of its tries ("attempt 5/5", "[20/20]"): no try follows it
_LAST_TRY = re.compile(r"(?:\battempt |\[)([0-9]{1,4})/\1\b")
# what says a process of the job ended with an error (torchrun's exit codes and summary, srun's
# task lines, mpirun's): after a retried exception, of its own rank or of none, the exception's end
_EXITS = frozenset({RULE_EXIT_CODE, "torch.elastic_child_failed", "torch.elastic_child_failed_bare", MPIRUN_SIGNAL,
                    "launcher.mpirun_first_nonzero", "scheduler.srun_task_exit", "scheduler.srun_task_signal"})


# the lines of a chained exception's traceback after its first exception line: "During handling
# of the above exception, another exception occurred:", a new header, a frame, its source line,
# the next exception's line
_CHAIN_LINE = re.compile(r"During handling of the above exception|The above exception was the direct cause"
                         r"|Traceback \(most recent call last\)|^\s+File \"|^\s{2,}\S|^[\w.]+(?:Error|Exception|Timeout|Interrupt)\b")
CHAIN_LINES = 60  # lines of a chained exception's traceback after its first exception, at most
_CHAINED_INTO = re.compile(r"During handling of the above exception|The above exception was the direct cause")


def _chain_end(scan: FileScan, line: int, text_of: Callable[[FileScan, int], str] = tail_line) -> int:
    """The last line of the exception chain whose first exception line is ``line`` (the line
    itself where no chained traceback follows it); ``text_of`` reads a line (before the file's
    tail, a line it cannot read ends the chain)."""
    end = line
    style = scan.parser.style if scan.parser is not None else PrefixStyle.BRACKETS
    for k in range(1, CHAIN_LINES + 1):
        raw = text_of(scan, line + k)
        if not raw and line + k < scan.tail_first:
            break
        text = strip_prefix(raw, style).message
        if not text.strip():
            continue
        if not _CHAIN_LINE.search(text):
            break
        end = line + k
    return end


def demote_retried_exceptions(findings: Sequence[Finding], scans: Sequence[FileScan]) -> list[Finding]:
    """``findings`` with a Python exception made context (and its traceback's header dropped)
    where the line before its traceback says the program will try again (or ignores it and goes
    on; not the last of its tries), the job's training progress stamped after it and before
    anything else in its file failed (:data:`RETRIED_STEPS` lines, in any of its logs: the stdout
    beside the stderr that holds the traceback) shows that it went on, and the job ended otherwise
    (training completed, or another failure later) with no process of its rank ending with an
    error after it: a checkpoint write or an upload that failed once and was retried, a metrics
    writer's error logged and ignored. (An uncaught exception hours after an old warning of a
    retry takes that warning's time: the launcher's word on its rank's exit, or the job's end
    with nothing else to explain it, keeps it the failure.) A chained exception's word is the one
    before its first traceback; before the file's tail, the lines a traceback's header kept (the
    one before it, the ones after it) are read for the word (its own rank's line) and for the
    progress after it (its own rank's lines, or lines of no rank). A process's end by a signal from
    outside (NCCL's watchdog's abort, srun's teardown after a crash elsewhere) is no end of the
    exception's where its own rank trained on after the exception; nor is an exception retried
    where the other ranks' watchdogs timed out later, each but its rank's (it was not there)."""
    by_file = {s.file.display: s for s in scans}
    headers = sorted((f for f in findings if f.rule == TRACEBACK and f.line is not None), key=lambda f: f.line or 0)

    def header_of(f: Finding) -> Finding | None:
        line = f.line or 0
        return next((h for h in reversed(headers) if h.file == f.file and h.rank == f.rank
                     and line - ANNOUNCED_TRACEBACK <= (h.line or 0) < line), None)

    kept_lines: dict[str, dict[int, str]] = {}

    def text_at(scan: FileScan, line: int) -> str:
        # (a line of the file's tail; or, before it, one that a traceback's header kept: the line
        # before it, or one of the lines after it)
        text = tail_line(scan, line)
        if text or line >= scan.tail_first:
            return text
        display = scan.file.display
        if display not in kept_lines:
            kept: dict[int, str] = {}
            for h in headers:
                if h.file == display and h.line is not None and h.line <= scan.tail_first:
                    kept.setdefault(h.line - 1, h.field("line_before") or "")
                    for k, context in enumerate(h.context, start=h.line + 1):
                        kept.setdefault(k, context)
            kept_lines[display] = kept
        return kept_lines[display].get(line, "")

    def rank_of(scan: FileScan, text: str) -> int | None:
        style = scan.parser.style if scan.parser is not None else PrefixStyle.BRACKETS
        return strip_prefix(text, style).rank

    def chain_start(header: Finding, scan: FileScan) -> Finding:
        # (the first traceback of a chain: "During handling of the above exception, another
        # exception occurred:" above a header is the header before it, whose line before says why)
        style = scan.parser.style if scan.parser is not None else PrefixStyle.BRACKETS
        while True:
            above = (header.line or 0) - 1
            while above > 0 and (header.line or 0) - above <= 3 and not text_at(scan, above).strip(" \t0123456789:"):
                above -= 1
            if not _CHAINED_INTO.search(strip_prefix(text_at(scan, above), style).message):
                return header
            before = next((h for h in reversed(headers) if h.file == header.file and h.rank == header.rank
                           and above - CHAIN_LINES <= (h.line or 0) < above), None)
            if before is None:
                return header
            header = before

    candidates: dict[int, Finding | None] = {}
    chain_ends: dict[int, int] = {}  # (the last line of each one's exception chain)
    for f in findings:
        # (an uncaught exception's line; or a CUDA out-of-memory error's, which a program that
        # catches it prints as an exception too: "OOM at eval batch size 64; retrying with 32")
        if ((f.rule != UNCAUGHT or f.cause is not Cause.PYTHON_EXCEPTION) and f.rule not in OOM_RAISED) or (
                f.role is not Role.INITIATOR or f.time is None or f.line is None
                or (scan := by_file.get(f.file or "")) is None):
            continue
        if f.rule in OOM_RAISED and header_of(f) is None:
            continue  # (an OOM that no traceback shows caught: its word alone says nothing)
        header = header_of(f)
        if header is not None:
            header = chain_start(header, scan)
        said = text_at(scan, header.line - 1) if header is not None and header.line is not None else ""
        if header is not None and header.rank is not None and rank_of(scan, said) not in (None, header.rank):
            said = ""  # (another rank's line, printed just before: "Rank 0 Skipping step" before rank 13's traceback)
        said = said[-200:]
        # (or its word right after the exception: "metrics upload failed, retrying later (training
        # is not affected)", a chained exception's last line before it)
        end = _chain_end(scan, f.line, text_at)
        after = [tail_line(scan, end + k)[-200:] for k in range(1, RETRY_WORD_AFTER + 1)]
        if (_RETRIES.search(said) and not _LAST_TRY.search(said)) or any(
                _RETRIES_AFTER.search(text) and not _LAST_TRY.search(text) for text in after):
            candidates[id(f)] = header
            chain_ends[id(f)] = end
    if not candidates:
        return list(findings)
    # what else fails in each file (the lines and times of it), besides these
    failing: dict[str | None, list[tuple[int, datetime | None]]] = defaultdict(list)
    for f in findings:
        if f.line is not None and f.role is not Role.CONTEXT and f.rule not in (UNCAUGHT, TRACEBACK, FRAME):
            failing[f.file].append((f.line, f.time))
    rank_logs = [s for s in scans if s.file.kind is FileKind.RANK_LOG]
    borrowed = {(h.event.file, h.event.line) for scan in scans for h in scan.hits if h.event.time_inferred}  # (a time taken from a line before)

    # a process's end with an error, of a rank (None: of no rank or any); not one the launcher's
    # SIGTERM ended (its teardown after whatever failed: no error of the process's own)
    ended = [f for f in findings if f.rule in _EXITS and f.field("exitcode") not in ("0", "-15")
             and f.field("signal") != "SIGTERM"]

    # how the job ended, where anything says: training completed, or another failure later
    finished = any(f.rule in _SUCCESS for f in findings) or any(
        (marks := completions(s)) and marks[-1][1] for s in scans if s.file.kind is FileKind.RANK_LOG)
    # (and what else failed, with a time of its own: another rank's error, the peers' timeouts)
    later_failures = [f for f in findings if f.time is not None and f.rule not in (UNCAUGHT, TRACEBACK, FRAME)
                      and (f.role is Role.COLLATERAL or (f.role is Role.INITIATOR and f.cause is not None))
                      and (f.file, f.line) not in borrowed]

    def signalled(end: Finding) -> bool:
        # (a process ended by a signal from outside: NCCL's watchdog's abort, a launcher's or the
        # scheduler's kill; an exception ends its process with an exit code of its own)
        code = small_int((end.field("exitcode") or "").lstrip("-"))
        return bool(end.field("signal")) or (end.field("exitcode") or "").startswith("-") or (code is not None and code >= 128)

    def own_progress(f: Finding, chain_end: int) -> int:
        # (the exception's own rank training on after it, in a file of several ranks' lines)
        scan = by_file.get(f.file or "")
        if scan is None or f.rank is None or f.time is None or not scan.prefix_ranks:
            return 0
        if chain_end >= scan.tail_first:
            return own_progress_stamped_after(scan, chain_end, f.rank, f.time, enough=RETRIED_STEPS)
        header = candidates.get(id(f))
        if header is None or header.line is None:
            return 0
        return sum(1 for k, text in enumerate(header.context, start=header.line + 1)
                   if k > chain_end and rank_of(scan, text) == f.rank and is_progress(text))

    def went_on(f: Finding) -> bool:
        # (the progress counted is what came before the next failure of its file with a time of
        # its own: steps went on after it, so what failed later without one was later too)
        if f.time is None:
            return False
        if not finished and not any(g.time is not None and g.time > f.time for g in later_failures) and not any(
                line > (f.line or 0) for line, _time in failing.get(f.file, ())):
            return False  # (nothing failed after it: not with a time of its own, nor later in its file)
        # (the others' watchdogs timed out later, each rank but the exception's: it was not there)
        waited = {g.rank for g in later_failures if g.time is not None and g.time > f.time and g.rank is not None
                  and "timeout" in g.rule}  # (a wait that ran out: not a peer's loss the watchdog reported)
        if len(waited) >= 2 and f.rank is not None and f.rank not in waited:
            return False
        # (what its own chain of exceptions holds, the chained exception's lines, is not another failure)
        chain_end = chain_ends.get(id(f), f.line or 0)
        own = None  # (its own rank's progress after it, counted where an end by a signal asks)
        for e in ended:
            if (e.rank is None or f.rank is None or e.rank == f.rank) and (
                    (e.file == f.file and (e.line or 0) > (f.line or 0)) or (e.time is not None and e.time > f.time)):
                if not signalled(e):
                    return False
                own = own_progress(f, chain_end) if own is None else own
                if own < RETRIED_STEPS:
                    return False  # (killed from outside with no step of its own after the exception)
        until = min((time for line, time in failing.get(f.file, ()) if line > chain_end and time is not None
                     and (f.file, line) not in borrowed), default=None)
        if any(progress_lines_after(s, f.time, enough=RETRIED_STEPS, before=until) >= RETRIED_STEPS for s in rank_logs):
            return True
        # (an exception before its file's tail: the lines its traceback's header kept after it, up
        # to the next failure of its file)
        header = candidates.get(id(f))
        scan = by_file.get(f.file or "")
        if header is None or header.line is None or scan is None or chain_end >= scan.tail_first:
            return False
        next_failure = min((line for line, _time in failing.get(f.file, ()) if line > chain_end), default=None)
        kept = [text for k, text in enumerate(header.context, start=header.line + 1)
                if chain_end < k and (next_failure is None or k < next_failure)
                and rank_of(scan, text) in (None, f.rank)]  # (its own rank's lines, or lines of no rank)
        return sum(map(is_progress, kept)) >= RETRIED_STEPS

    retried = {id(f) for f in findings if id(f) in candidates and went_on(f)}
    if not retried:
        return list(findings)
    dropped = {id(h) for k, h in candidates.items() if k in retried and h is not None}
    return [dataclasses.replace(f, role=Role.CONTEXT, cause=None) if id(f) in retried else f
            for f in findings if id(f) not in dropped]


COMM_DESTROYED = "nccl.comm_destroyed"
STORE_GONE = "torch.store_dump_flag_failed"


def demote_store_loss_before_destroy(findings: Sequence[Finding]) -> list[Finding]:
    """``findings`` with a rank's heartbeat failing to reach the store ("Failed to check the
    'should dump' flag on TCPStore") made context where that rank's communicator was then
    destroyed as the program asked (NCCL's "Destroy COMPLETE", not an abort): the store's host
    finished first and left, the others were on their way out."""
    destroyed = {_rank(f.field("rank")) for f in findings if f.rule == COMM_DESTROYED}
    if not destroyed:
        return list(findings)
    return [dataclasses.replace(f, role=Role.CONTEXT, cause=None)
            if f.rule == STORE_GONE and f.rank is not None and f.rank in destroyed else f for f in findings]


# a socket's loss of its peer as NCCL's and Python's lines tell it, and the trace of its error code up
# NCCL's calls (rules/nccl.yaml, rules/torch.yaml)
NCCL_INIT_COMPLETE = "nccl.init_complete"  # rules/nccl.yaml
SOCKET_PEER_LOST = frozenset({"nccl.socket_peer_lost", "nccl.socket_call_failed", "torch.connection_reset",
                              "nccl.error_trace_network"})


DESTROY_WITHIN = 20  # lines from a communicator's destruction to the socket errors of its teardown


# NCCL's header "host:pid:tid [dev] ", its host in any form (a user's "<hostname1>" too)
_HEADER_PID = re.compile(r":(?P<pid>[0-9]{1,10}):[0-9]{1,10} \[[0-9]{1,4}\] ")


def _header_pid(f: Finding) -> int | None:
    """The pid NCCL's header on the finding's line prints ("host:pid:tid [dev]"), or None."""
    m = _HEADER_PID.search(f.text or "")
    return int(m["pid"]) if m else None


def demote_peer_loss_after_destroy(findings: Sequence[Finding]) -> list[Finding]:
    """``findings`` with a socket's loss of its peer ("socketProgressOpt: Call to recv from ...
    failed : Connection reset by peer") made context where it comes at most
    :data:`DESTROY_WITHIN` lines after the same process (the pid NCCL's header prints) destroyed
    its communicator as the program asked (NCCL's "Destroy COMPLETE") in its file, every
    communicator it had set up destroyed by then and none set up again: the job was ending, its
    peers closed their sockets first. A process that destroyed one group and went on with
    another, or started a new one, keeps its errors."""
    destroyed = [(f.file, pid, f.line) for f in findings
                 if f.rule == COMM_DESTROYED and f.line is not None and (pid := _header_pid(f)) is not None]
    if not destroyed:
        return list(findings)
    inits = [(f.file, _header_pid(f), f.line) for f in findings if f.rule == NCCL_INIT_COMPLETE and f.line is not None]

    def after_destroy(f: Finding) -> bool:
        if f.rule not in SOCKET_PEER_LOST or f.role is not Role.COLLATERAL or f.line is None:
            return False
        pid = _header_pid(f)
        mine = [line for file, d_pid, line in destroyed if file == f.file and d_pid == pid and line < f.line]
        if pid is None or not mine or f.line > max(mine) + DESTROY_WITHIN:
            return False
        # (every communicator the process set up before it was destroyed: none is left to fail)
        set_up = [line for file, i_pid, line in inits if file == f.file and i_pid == pid and line < f.line]
        return not any(line > max(mine) for line in set_up) and len(set_up) <= len(mine)

    return [dataclasses.replace(f, role=Role.CONTEXT, cause=None) if after_destroy(f) else f for f in findings]


PG_NOT_DESTROYED = "torch.pg_not_destroyed_at_exit"  # rules/torch.yaml


def demote_store_loss_after_exit_warning(findings: Sequence[Finding]) -> list[Finding]:
    """``findings`` with a rank's loss of the store (:data:`STORE_GONE`, a reset of its store
    connection) made context where the same rank said before it, in the same file, that its
    process is exiting without destroy_process_group() (:data:`PG_NOT_DESTROYED`, printed at the
    interpreter's end): its heartbeat monitor lost the store as the others left, after its own
    work was done. (Whatever made it exit, an exception of its own or another rank's, is read from
    its other lines.)"""
    exiting: dict[tuple[str | None, int], int] = {}
    for f in findings:
        if f.rule == PG_NOT_DESTROYED and f.rank is not None and f.line is not None:
            key = (f.file, f.rank)
            exiting[key] = min(exiting.get(key, f.line), f.line)
    if not exiting:
        return list(findings)

    def after_exit(f: Finding) -> bool:
        return (f.rule in (STORE_GONE, RULE_RESET) and f.rank is not None and f.line is not None
                and f.role is not Role.CONTEXT and exiting.get((f.file, f.rank), f.line) < f.line)

    return [dataclasses.replace(f, role=Role.CONTEXT, cause=None) if after_exit(f) else f for f in findings]


def demote_store_loss_after_completion(findings: Sequence[Finding], scans: Sequence[FileScan]) -> list[Finding]:
    """``findings`` with a rank's heartbeat failing to reach the store made context where its
    file said before it that training completed, with no progress between: the store's host (rank
    0's process) finished and left first, the others on their way out. So is a launcher's own
    connection to the store reset (c10d's socket, "recvValue failed ... Connection reset by peer")
    stamped after a rank log's last word that training completed (its workers' logs apart from
    the launcher's output: a node's agent sees the store's host leave once its job is done)."""
    files = {f.file for f in findings if f.rule == STORE_GONE}
    done_at = _job_completed_at(scans) if any(_store_reset(f) for f in findings) else None
    if not files and done_at is None:
        return list(findings)
    marks = {s.file.display: completions(s) for s in scans if s.file.display in files}

    def after_completion(f: Finding) -> bool:
        if f.rule == STORE_GONE and f.line is not None and completed_before(marks.get(f.file or "", []), f.line, f.rank):
            return True
        return (done_at is not None and f.time is not None and _store_reset(f)
                and done_at <= f.time <= done_at + STORE_RESET_AFTER)

    gone = {id(f) for f in findings if after_completion(f)}
    # (and the other readings of a demoted heartbeat's line: its "Connection reset by peer")
    lines = {(f.file, f.line) for f in findings if id(f) in gone and f.rule == STORE_GONE and f.line is not None}
    gone |= {id(f) for f in findings if (f.file, f.line) in lines and f.role is not Role.INITIATOR}
    return [dataclasses.replace(f, role=Role.CONTEXT, cause=None) if id(f) in gone else f for f in findings]


RULE_RESET = "torch.connection_reset"
STORE_RESET_AFTER = timedelta(minutes=10)  # a launcher's store connection reset this soon after the job completed
STORE_RESET_SKEW = timedelta(minutes=1)  # another rank's progress this long after a completion: no end of the job


def _store_reset(f: Finding) -> bool:
    """A launcher's connection to the c10d store (its socket's own line, no worker's rank prefix)
    lost: the store's host gone. (A worker's own loss of the store, its heartbeat's, after rank 0
    finished is the others not being done: uneven data.)"""
    return f.rule == RULE_RESET and f.role is not Role.CONTEXT and "[rank" not in f.text and (
        "socket.cpp" in f.text or "TCPStore" in f.text or "SocketImpl(" in f.text)


def _job_completed_at(scans: Sequence[FileScan]) -> datetime | None:
    """When the first rank log's last lines said that training completed (stamped), or None; a
    completion another rank log trained on after (stamped later: a job's next stage, an earlier
    launch's log) is none of the job's end."""
    times = []
    progress = []
    for scan in scans:
        if scan.file.kind is not FileKind.RANK_LOG or scan.parser is None:
            continue
        line = completed_line(scan)
        if line is not None and (time := tail_event(scan, line - scan.tail_first).time) is not None:
            times.append(time)
        last = scan.last_progress if scan.last_progress is not None else last_progress_line(scan)
        if last is not None and scan.tail_first <= last and (time := tail_event(scan, last - scan.tail_first).time) is not None:
            progress.append(time)
    latest = max(progress, default=None)
    return min((t for t in times if latest is None or latest <= t + STORE_RESET_SKEW), default=None)


SUCCEEDED = "python.run_succeeded"
# torchrun's agent: its worker group finished well (after a restart, the earlier attempt's failures
# were recovered from); a span like the harness's success
GROUP_SUCCEEDED = "torch.elastic_group_succeeded"
_SUCCESS = frozenset({SUCCEEDED, GROUP_SUCCEEDED})
# what a run that ended well may still print on its way out, read as its failure only when nothing
# else is (the attribution's last resort): dropped after the run said it succeeded
_LAST_WORDS_ONLY = frozenset({TRACEBACK, "python.stack_dump_main_thread", "generic.gdb_thread_stack", "scheduler.slurm_step_ended"})


BOUNDARY = "python.run_boundary"


def _run_marks(findings: Sequence[Finding]) -> dict[str | None, list[tuple[int, str]]]:
    """Per file, where its harness marked a run (:data:`BOUNDARY`: init_start, run_start,
    run_stop) and said one succeeded ("success"), by line."""
    marks: dict[str | None, list[tuple[int, str]]] = defaultdict(list)
    for f in findings:
        if f.line is None:
            continue
        if f.rule in _SUCCESS:
            marks[f.file].append((f.line, "success"))
        elif f.rule == BOUNDARY:
            marks[f.file].append((f.line, f.field("mark") or f.field("mll_mark") or ("run_start" if f.field("ray_job") else "")))
    return marks


def _succeeded_runs(findings: Sequence[Finding]) -> dict[str | None, list[tuple[int, float]]]:
    """Per file, the line spans of the runs its harness said succeeded: from the previous run's
    end (or the file's start) to the next run's start after the success (or the file's end)."""
    marks = _run_marks(findings)
    spans: dict[str | None, list[tuple[int, float]]] = {}
    for file, found in marks.items():
        for line, kind in found:
            if kind != "success":
                continue
            begin = max((at for at, k in found if k == "run_stop" and at < line), default=0)
            after = min((at for at, k in found if k in ("init_start", "run_start") and at > line), default=float("inf"))
            spans.setdefault(file, []).append((begin, after))
    return spans


JOB_SUCCEEDED = "scheduler.k8s_job_succeeded"  # rules/scheduler.yaml
JOB_FAILED = "scheduler.k8s_job_failed"
POD_PLACEMENT = "scheduler.k8s_pod_placement"
SACCT_STATE = "scheduler.slurm_accounting_row"
_SLURM_OUTPUT = re.compile(r"slurm-([0-9]{1,12})(?:_[0-9]{1,9})?\.(?:out|err|log)$")
# a training operator's pod: its job's name, its replica type and index ("gpt-train-worker-3")
_REPLICA = r"-(?:master|worker|launcher|leader|chief|ps)-[0-9]"
# a pod's earlier container's log (kubectl logs --previous): an earlier attempt of the job
_PREVIOUS_CONTAINER = re.compile(r"(?i)(?:^|[/._-])previous(?:[/._-]|$)")


def _k8s_job_succeeded(findings: Sequence[Finding], scans: Sequence[FileScan]) -> bool:
    """A Kubernetes training operator says the whole job completed successfully
    (:data:`JOB_SUCCEEDED`), and the job is this bundle's: every pod the bundle names (its logs'
    file names, `kubectl get pods` rows) is one of a job that succeeded, and no word says that a
    job of that name failed (:data:`JOB_FAILED`: a rerun under the same name; one that names no job
    leaves it unknown which)."""
    jobs = {job for f in findings if f.rule == JOB_SUCCEEDED and (job := f.field("job"))}
    if not jobs or any(f.rule == JOB_FAILED and (f.field("job") is None or f.field("job") in jobs) for f in findings):
        return False
    pods = {Path(s.file.display).name for s in scans if s.file.kind is FileKind.RANK_LOG}
    pods |= {pod for f in findings if f.rule == POD_PLACEMENT and (pod := f.field("pod"))}
    of_jobs = [re.compile(r"(?:^|[^a-z0-9])" + re.escape(job) + _REPLICA) for job in jobs]
    # (a pod of another job: a namespace's events, or several jobs' pods)
    return all(any(j.search(p) for j in of_jobs) for p in pods if re.search(_REPLICA, p))


def _slurm_job_completed(findings: Sequence[Finding], scans: Sequence[FileScan]) -> bool:
    """Slurm's accounting (:data:`SACCT_STATE`) shows one job, two rows of it or more (the job
    and its steps), every one COMPLETED with exit code 0:0, and the job is this bundle's (no
    slurm-JOBID.out of another job): it ended well, its steps as much as its batch script."""
    rows = [f for f in findings if f.rule == SACCT_STATE]
    if len(rows) < 2 or any(f.field("state") != "COMPLETED" or f.field("exit_code") != "0:0" for f in rows):
        return False
    jobs = {(f.field("job") or "").split("+")[0] for f in rows}
    outputs = {m.group(1) for s in scans if (m := _SLURM_OUTPUT.search(Path(s.file.display).name))}
    return len(jobs) == 1 and outputs <= jobs


GROUP_RESTART = "torch.elastic_group_restart"  # rules/torch.yaml: "Worker group FAILED. n/m attempts left"
EXIT_BARRIER_ERROR = "torch.elastic_exit_barrier_error"  # rules/torch.yaml: an agent waited for the others in vain
LAUNCH_BANNER = "torch.launcher_start_banner"  # rules/torch.yaml: torchrun starting (its OMP_NUM_THREADS notice)
AFTER_THE_AGENTS = timedelta(seconds=5)  # a failure stamped this long after the agents' last word is a later program's


def _torchrun_job_succeeded(findings: Sequence[Finding], scans: Sequence[FileScan]) -> bool:
    """torchrun's agent on every node of the run says its worker group finished well
    (:data:`GROUP_SUCCEEDED`) and none restarted its workers (:data:`GROUP_RESTART`): in the one
    attempt there was, every worker of every node exited 0 (a run of one node, or whose nodes are
    not known, needs one agent's word). Not where an agent waited at the exit barrier in vain
    (another's workers had not finished), where torchrun started again after the word in its file
    (a second launch), nor where a failure is stamped after it (a later program's: an evaluation
    run after the training)."""
    marks = [f for f in findings if f.rule == GROUP_SUCCEEDED]
    if not marks or any(f.rule in (GROUP_RESTART, EXIT_BARRIER_ERROR) for f in findings):
        return False
    last_line: dict[str | None, int] = {}
    for m in marks:
        last_line[m.file] = max(last_line.get(m.file, 0), m.line or 0)
    if any(f.rule == LAUNCH_BANNER and f.file in last_line and (f.line or 0) > last_line[f.file] for f in findings):
        return False
    last_time = max((m.time for m in marks if m.time is not None), default=None)
    if last_time is not None and any(
            f.time is not None and f.time > last_time + AFTER_THE_AGENTS and f.role is not Role.CONTEXT
            and f.cause is not None for f in findings):
        return False
    nodes = {host_key(n) for s in scans if s.file.kind is FileKind.RANK_LOG and (n := s.file.node)}
    # (an agent's own log holds no host in its lines: the node its file is named for, alone or
    # as a word of its name: "train-r11u05-gpu.log")
    names = {host_key(f.node or Path(f.file or "").stem) for f in marks}
    stems = [Path(f.file or "").stem.lower() for f in marks if f.node is None]
    return all(node in names or any(re.search(rf"(?<![a-z0-9]){re.escape(node.lower())}(?![a-z0-9])", stem)
                                    for stem in stems) for node in nodes)


def _launched_workers_succeeded(findings: Sequence[Finding]) -> list[Finding]:
    """DeepSpeed's launcher's words that worker processes exited with status 0
    (:data:`WORKER_SUCCEEDED`, two or more), where it says of none that it failed; else none."""
    marks = [f for f in findings if f.rule == WORKER_SUCCEEDED]
    return marks if len(marks) >= 2 and not any(f.rule in _WORKER_FAILED for f in findings) else []


LAST_STATE_LINES = 6  # lines from `kubectl describe pod`'s "Last State:" to its exit code, at most


def _in_last_state(f: Finding, by_file: Mapping[str, FileScan]) -> bool:
    """``f`` is read in `kubectl describe pod`'s "Last State:" block: the exit of the pod's
    earlier container, an earlier attempt's."""
    scan = by_file.get(f.file or "")
    if scan is None or f.line is None:
        return False
    for k in range(1, LAST_STATE_LINES + 1):
        text = tail_line(scan, f.line - k).strip()
        if text.startswith("Last State:"):
            return True
        if text.startswith("State:"):
            return False
    return False


def _a_process_failed(findings: Sequence[Finding], scans: Sequence[FileScan]) -> bool:
    """A launcher or the scheduler says a process of the job's last attempt (or of no known
    attempt) ended with an error (torchrun's exit codes and ChildFailedError, srun's task lines,
    mpirun's; not the SIGTERM of a teardown) or that the scheduler stopped it (its time limit, a
    preemption), not in a pod's earlier container's log (``--previous``) nor its "Last State"
    (:func:`_in_last_state`): whatever else says the job ended well (a batch script's last
    command, another stage's launcher) is not the word on this process."""
    last = max((f.attempt for f in findings if f.attempt is not None), default=None)
    by_file = {s.file.display: s for s in scans}
    return any(f.attempt in (None, last) and not _PREVIOUS_CONTAINER.search(f.file or "") and (
        f.rule in _OUTSIDE_STOPS or (f.rule in _EXITS and f.field("exitcode") not in ("0", "-15")
                                     and f.field("signal") not in ("SIGTERM", "Terminated")))
        and not _in_last_state(f, by_file) for f in findings)


# a fabric tool's snapshot of a port down (rules/system.yaml: ibstat's "State: Down" over a polling
# or disabled link), taken at a time nobody wrote down: the node's spare port reads so as well
PORT_SNAPSHOTS = frozenset({"system.ibstat_port_down"})
AGENT_RECEIVED_SIGNAL = "torch.elastic_received_signal"  # rules/torch.yaml
# what a job's own lines say failed it, which a port's snapshot does not explain (a process's exit
# code, an abort, a kernel's Xid are no such word: the network failing ends ranks so as well)
OWN_FAILURES = frozenset({Cause.PYTHON_EXCEPTION, Cause.CUDA_OOM, Cause.HOST_OOM_KILL, Cause.PREEMPTION,
                          Cause.DATA_LOADER_STALL, Cause.COLLECTIVE_MISMATCH, Cause.ILLEGAL_MEMORY_ACCESS})


def demote_port_snapshots(findings: Sequence[Finding]) -> list[Finding]:
    """``findings`` with a fabric tool's undated snapshot of a port down (:data:`PORT_SNAPSHOTS`)
    made context (cause none) where the job's own lines name another cause for its failure (an
    exception, an OOM, a device-side assert: :data:`OWN_FAILURES`), or where torchrun's agent
    was told to stop (a signal) and nothing of the job's shows its network failing: the port may
    be a spare nothing is cabled to, or went down after, and is no initiator over what the job
    said. Kept where the job's lines show its network failing, only waits running out, ranks
    ending (an abort, an exit code, a kernel's Xid: the network failing ends them so too), or
    nothing."""
    if not any(f.rule in PORT_SNAPSHOTS for f in findings):
        return list(findings)
    named = any(f.role is Role.INITIATOR and f.cause in OWN_FAILURES and f.field("xid") is None
                and f.field("exitcode") is None for f in findings)
    # (or the job was told to stop -- torchrun's agent received a signal -- and nothing of its own
    # shows its network failing: a preemption or a cancel, whatever a port read later)
    told_to_stop = (any(f.rule == AGENT_RECEIVED_SIGNAL for f in findings)
                    and not any(f.cause is Cause.NETWORK and f.rule not in PORT_SNAPSHOTS for f in findings))
    if not (named or told_to_stop):
        return list(findings)
    return [dataclasses.replace(f, role=Role.CONTEXT, cause=None) if f.rule in PORT_SNAPSHOTS else f
            for f in findings]


def job_ended_well(findings: Sequence[Finding], scans: Sequence[FileScan]) -> bool:
    """The job's orchestrator says the whole job ended well (a Kubernetes training operator,
    Slurm's accounting of every step, torchrun's agent on every node) and no launcher or
    scheduler says a process of it failed (as :func:`demote_before_job_success` reads them)."""
    return ((_k8s_job_succeeded(findings, scans) or _slurm_job_completed(findings, scans)
             or _torchrun_job_succeeded(findings, scans)) and not _a_process_failed(findings, scans))


# the Slurm job whose memory cgroup the OOM killer's victim was in ("task_memcg=/slurm/uid_1000/
# job_1234/step_0/task_3", systemd's ".../slurmstepd.scope/job_9300324/step_batch/...")
_MEMCG_JOB = re.compile(r"task_memcg=[^,\s]{0,300}?/job_([0-9]{1,12})(?:[/_,\s]|$)")
# (not an array task's, slurm-<array job>_<task>.out: its own job id is another number)
_SLURM_OUTPUT = re.compile(r"(?:^|/)slurm-([0-9]{1,12})(?:\.[0-9]{1,6})?\.(?:out|err|log|txt)$")
_KERNEL_OOM_RULES = frozenset({"system.oom_killed_process", "system.oom_kill_summary"})


def _own_slurm_jobs(findings: Sequence[Finding], scans: Sequence[FileScan]) -> set[str]:
    """The run's own Slurm job ids: its ``slurm-<id>.out`` files', the jobs its scheduler's lines name
    (not slurmctld's: the controller's log speaks of the whole cluster's jobs)."""
    own = {m.group(1) for s in scans if (m := _SLURM_OUTPUT.search(s.file.display))}
    return own | {job for f in findings if f.rule.startswith("scheduler.") and f.rule not in _CTLD_RULES
                  and (job := (f.field("job") or "").split("_")[0].split("+")[0]).isdigit()}


def demote_other_jobs_oom_kills(findings: Sequence[Finding], scans: Sequence[FileScan]) -> list[Finding]:
    """``findings`` with the OOM killer's kills of another Slurm job's processes made context
    (cause none): the kernel's summary names the memory cgroup of its victim, and a job's cgroup
    that is not this run's (the run's own job: its ``slurm-<id>.out`` file, the job its scheduler's
    lines name) held another tenant's process that hit its own job's limit - it cannot have taken
    this job's ranks. The victim's "Killed process" line (its pid, on that node) goes with it (not
    slurmstepd's "Detected 1 oom_kill event": written to the job's own output, it is always its
    own). Nothing changes where the run's own job is not known."""
    own = _own_slurm_jobs(findings, scans)
    if not own:
        return list(findings)
    foreign: set[tuple[str | None, int]] = set()
    for f in findings:
        if (f.rule == "system.oom_kill_summary" and f.pid is not None and (m := _MEMCG_JOB.search(f.text))
                and m.group(1) not in own):
            foreign.add((host_key(f.node) if f.node else None, f.pid))
    if not foreign:
        return list(findings)

    def other_jobs(f: Finding) -> bool:
        if f.rule not in _KERNEL_OOM_RULES or f.pid is None:
            return False
        node = host_key(f.node) if f.node else None
        return (node, f.pid) in foreign or (node is None and any(p == f.pid for _n, p in foreign))

    return [dataclasses.replace(f, role=Role.CONTEXT, cause=None) if other_jobs(f) else f for f in findings]


def demote_before_job_success(findings: Sequence[Finding], scans: Sequence[FileScan]) -> list[Finding]:
    """``findings`` made context (cause none) where the job's orchestrator says the whole job
    ended well: a Kubernetes training operator's word that it completed successfully
    (:func:`_k8s_job_succeeded`), Slurm's accounting of every step COMPLETED 0:0
    (:func:`_slurm_job_completed`) or torchrun's agent on every node
    (:func:`_torchrun_job_succeeded`: py-spy's dumps of a run that went on to finish are snapshots,
    no hang); or, for what came before them, DeepSpeed's launcher's words that every worker
    process it saw end exited well (:func:`_launched_workers_succeeded`: in their file, the lines
    before the last of them; in another, what is stamped no later). Whatever
    its processes printed on the way (a caught OOM, a store's reset at the end, a restarted pod's
    earlier failure) did not stop it. Not where a launcher or the scheduler says a process of it
    failed (:func:`_a_process_failed`). A GPU, its memory or its links failing is kept (the node is
    still bad for the next job), and so is a straggler (slow, not dead); a traceback's or a stack
    dump's last words, read as a failure only where nothing else is, go."""
    marks: list[Finding] = []
    if not (_k8s_job_succeeded(findings, scans) or _slurm_job_completed(findings, scans)
            or _torchrun_job_succeeded(findings, scans)):
        marks = _launched_workers_succeeded(findings)
        if not marks:
            return list(findings)
    if _a_process_failed(findings, scans):  # (read last: it may read files' tails again)
        return list(findings)
    last_line = {m.file: max(n.line or 0 for n in marks if n.file == m.file) for m in marks}
    last_time = max((m.time for m in marks if m.time is not None), default=None)

    def before(f: Finding) -> bool:
        if not marks:
            return True
        if f.file in last_line:
            return f.line is not None and f.line < last_line[f.file]
        return f.time is not None and last_time is not None and f.time <= last_time

    def failed(f: Finding) -> bool:
        if f.rule in PORT_SNAPSHOTS and f.time is None:
            return not marks  # (a port's undated snapshot from a job that ended well throughout)
        return (f.role is not Role.CONTEXT and f.cause not in GPU_FAULTS and f.cause is not Cause.STRAGGLER
                and before(f))

    return [dataclasses.replace(f, role=Role.CONTEXT, cause=None) if failed(f) else f
            for f in findings if not (f.rule in _LAST_WORDS_ONLY and before(f))]


def demote_after_success(findings: Sequence[Finding]) -> list[Finding]:
    """``findings`` with what a run holds besides the program's word that it succeeded (MLPerf's
    run_stop with status success, its verdict after training and evaluation: :data:`SUCCEEDED`)
    made context (cause none): errors before it did not stop the run (an InfiniBand device a
    library could not open, a helper step's exit), and after it they are the shutdown's (a process
    group torn down unevenly, a finaliser's traceback). The run spans from the previous run's end
    to the next run's start in the same file (:data:`BOUNDARY`: a file of several trials holds
    several runs). A GPU, its memory or its links failing is kept wherever it is (the node is
    still bad for the next job)."""
    spans = _succeeded_runs(findings)
    if not spans:
        return list(findings)
    held = _held_at_exit(findings, spans)
    cut = _stopped_before_success(findings)

    def covered(f: Finding) -> bool:
        if f.line is None or f.rule in _SUCCESS or f.rule == BOUNDARY or f.cause in GPU_FAULTS or id(f) in cut:
            return False
        return any(begin < f.line < after for begin, after in spans.get(f.file, ()))

    return [dataclasses.replace(f, role=Role.INITIATOR, cause=Cause.HANG, confidence=0.5, text=(
                f"rank {f.rank} held the run open after it reported success (no other rank's exit is"
                f" reported) until the scheduler stopped it: {f.text}")) if f is held
            else dataclasses.replace(f, role=Role.CONTEXT, cause=None) if covered(f) else f
            for f in findings if not (f.rule in _LAST_WORDS_ONLY and covered(f))]


# the scheduler stopping a job from outside: before the run's success, the job did not end by itself
_OUTSIDE_STOPS = frozenset({"scheduler.slurm_time_limit", "scheduler.slurm_preempted"})


def _stopped_before_success(findings: Sequence[Finding]) -> set[int]:
    """The ids of the scheduler's stops (its time limit, a preemption) printed before the run's
    success in the same file, with no run boundary between: the job was being ended while it still
    ran, and the harness's word came in the kill's grace period. Kept as what ended the job."""
    by_file: dict[str | None, list[Finding]] = defaultdict(list)
    for f in findings:
        if f.line is not None and (f.rule in _OUTSIDE_STOPS or f.rule in _SUCCESS or f.rule == BOUNDARY):
            by_file[f.file].append(f)
    out: set[int] = set()
    for found in by_file.values():
        succeeded = {f.line for f in found if f.rule in _SUCCESS}
        ahead = False  # (walking back from the file's end: a success comes before any boundary)
        for f in sorted(found, key=lambda f: f.line or 0, reverse=True):
            if f.line in succeeded:  # (the success's own run_stop line is no boundary before it)
                ahead = True
            elif f.rule == BOUNDARY:
                ahead = False
            elif ahead:
                out.add(id(f))
    return out


# the scheduler ending a step (its time limit, a cancel): after a run said it succeeded, the end of
# a process that did not exit by itself
_STEP_STOPS = frozenset({"scheduler.slurm_time_limit", "scheduler.slurm_preempted", "scheduler.slurm_step_ended"})
_HELD_GAP = timedelta(seconds=60)


def _held_at_exit(findings: Sequence[Finding], spans: Mapping[str | None, list[tuple[int, float]]]) -> Finding | None:
    """The one rank's exit that shows it held its run open after the harness said the run had
    succeeded: after the success, every other rank had left (no other exit is reported) and this
    one was stopped by a signal, the scheduler's cancel (its time limit, a user's scancel) coming
    a minute or more after the file's last timed line or the success's own stamp (a time limit
    right at the end is the allocation running out, not a hang; with no time to compare, nothing
    is read). MLPerf's exit-time barrier held by rank 0 for minutes: hang, on that rank. ``None``
    when the file shows no such rank."""
    by_file: dict[str | None, list[tuple[int, Finding]]] = defaultdict(list)
    for f in findings:
        if f.line is not None and f.file in spans:
            by_file[f.file].append((f.line, f))
    for file, ranges in spans.items():
        in_file = sorted(by_file.get(file, ()), key=lambda p: p[0])
        for at, f in in_file:
            if f.rule not in _SUCCESS:
                continue
            after = min((end for begin, end in ranges if begin < at < end), default=float("inf"))
            tail = [(line, g) for line, g in in_file if at < line < after]
            if any(g.cause in GPU_FAULTS or g.rule in _SUCCESS for _, g in tail):
                continue
            exits = [(line, g) for line, g in tail if g.rule == RULE_EXIT_CODE and g.rank is not None]
            if len({g.rank for _, g in exits}) != 1:
                continue
            exit_at, held = exits[0]
            if held.field("signal") not in ("SIGTERM", "SIGKILL"):
                continue
            stop_at, stop = next(((line, s) for line, s in tail if s.rule in _STEP_STOPS and line < exit_at), (0, None))
            if stop is None or stop.time is None:
                continue
            # the exit's own time is the file's last timestamp before it (an untimed srun line)
            before = [s.time for line, s in (*tail, (0, held)) if s.time is not None and (s is held or line < stop_at)]
            if (said := f.time or _mllog_time(f.text)) is not None:
                before.append(said)
            if not before or stop.time - max(before) < _HELD_GAP:
                continue
            return held
    return None


_MLLOG_MS = re.compile(r'"time_ms": ([0-9]{12,14})')


def _mllog_time(text: str) -> datetime | None:
    """The stamp of an MLPerf :::MLLOG line (milliseconds since the epoch, UTC), or None."""
    m = _MLLOG_MS.search(text)
    return datetime.fromtimestamp(int(m.group(1)) / 1000, UTC) if m else None


def unfinished_benchmark(findings: Sequence[Finding], scans: Sequence[FileScan]) -> list[Finding]:
    """``findings`` and, where a file's benchmark harness started its timed run (MLPerf's
    run_start) and the file ends without the run_stop that harness always prints, on success and
    on abort alike, a context line at the file's end saying so: the run did not finish. Where
    nothing else in the run is a failure, attribution reads it as one of unknown cause (a process
    killed without a word, a hang, a capture cut short). Replay only: a live run's log has not
    ended."""
    marks = _run_marks(findings)
    out = list(findings)
    if any(kind in ("run_stop", "success") for found in marks.values() for _, kind in found) and len(marks) > 1:
        return out  # (another file of the run holds its end: the harness's rank wrote it there)
    for scan in scans:
        found = sorted(marks.get(scan.file.display, ()))
        if not found or found[-1][1] != "run_start":
            continue
        started = found[-1][0]
        last = next((line.strip() for line in reversed(tail_of(scan)) if line.strip()), "")
        # a terminal's echo of Ctrl-C ending the capture: a person stopped the run
        interrupted = last.startswith("^C")
        out.append(Finding(
            rule=RULE_RUN_UNFINISHED, role=Role.CONTEXT, cause=None, severity=Severity.WARNING,
            text=(f"the benchmark started its timed run (run_start, line {started}) and the log ends at line "
                  f"{scan.lines} without its run_stop: the run did not finish, "
                  + ("and its last line is a terminal's ^C: it was interrupted" if interrupted else "and the logs do not say why")),
            file=scan.file.display, line=scan.lines, time=scan.last_time, confidence=0.2,
            fields=(("interrupted", "1"),) if interrupted else ()))
    return out


EXITING = "python.run_exiting"
WORKER_SUCCEEDED = "launcher.deepspeed_process_success"
_WORKER_FAILED = frozenset({"launcher.deepspeed_exit", "launcher.deepspeed_exit_wrapped", "launcher.deepspeed_exit_unplaced"})
_WAITS = ("timeout", "timed_out", "watchdog")


def demote_after_exit(findings: Sequence[Finding]) -> list[Finding]:
    """``findings`` with the collateral errors that came after the trainer said it was exiting as
    planned (:data:`EXITING`: Megatron's exit at an iteration, after a time budget or after its
    data ran out), or after a worker exited well where the launcher saw none fail
    (:data:`WORKER_SUCCEEDED`), made context (cause none): the other ranks losing the store or a peer as the
    processes leave is the shutdown, not a failure. After it in its file, or at or after its time
    in another file of the same attempt. A wait that ran out (a rank hung on the way out) and a
    GPU, its memory or its links failing are kept."""
    marks = [f for f in findings if f.rule == EXITING]
    if not any(f.rule in _WORKER_FAILED for f in findings):  # (every worker the launcher saw end ended well)
        marks.extend(f for f in findings if f.rule == WORKER_SUCCEEDED)
    if not marks:
        return list(findings)

    def after(f: Finding) -> bool:
        if f.role is not Role.COLLATERAL or f.cause in GPU_FAULTS or any(w in f.rule for w in _WAITS):
            return False
        return any((m.file == f.file and m.line is not None and f.line is not None and m.line < f.line)
                   or (m.time is not None and f.time is not None and m.attempt == f.attempt and m.time <= f.time)
                   for m in marks)

    return [dataclasses.replace(f, role=Role.CONTEXT, cause=None) if after(f) else f for f in findings]


CPP_TERMINATE = "torch.cpp_terminate"
RULE_CUDART_UNLOADING = "cuda.driver_shutting_down"
WHAT_WITHIN = 3  # lines from "terminate called after throwing ..." to its "what():" line
ABORT_WITHIN = 15  # lines from it to the abort's report (a signal handler's, a launcher's)
_ABORT_WORDS = re.compile(r"SIGABRT|Abort(?:ed)?\b|[Ss]ignal:? 6\b|code -6\b")


def _same_process(a: Finding, b: Finding) -> bool:
    """Two findings of one combined log that may come from the same process: no rank or pid of
    theirs tells them apart."""
    return (a.rank is None or b.rank is None or a.rank == b.rank) and (a.pid is None or b.pid is None or a.pid == b.pid)


def demote_abort_after_cpp_exception(findings: Sequence[Finding]) -> list[Finding]:
    """``findings`` with the abort that follows an uncaught C++ exception ("terminate called after
    throwing an instance of ...") made collateral (cause none) when the exception's ``what():``
    line names a failure of its own (an initiator finding of another cause just after it): the
    runtime aborted the process because of that exception, which is the cause (the abort, a
    SIGABRT exit or a signal handler's report, says nothing more). Where the ``what():`` line says
    the CUDA runtime was unloading ("driver shutting down"), the exception and its abort are the
    process's exit, no failure: context."""
    terminates = [f for f in findings if f.rule == CPP_TERMINATE and f.line is not None]
    if not terminates:
        return list(findings)
    # the exception was raised at the interpreter's exit, the CUDA runtime already unloading: the
    # process's work was done, its abort is the teardown's (a destructor's CUDA call), no failure
    at_exit = [t for t in terminates if any(
        f.rule == RULE_CUDART_UNLOADING and f.file == t.file and _same_process(f, t) and f.line is not None
        and 0 < f.line - (t.line or 0) <= WHAT_WITHIN for f in findings)]
    if at_exit:
        def after_exit(f: Finding) -> bool:
            return f.line is not None and (f.rule == CPP_TERMINATE or (
                f.cause is Cause.CRASH_SIGNAL and bool(_ABORT_WORDS.search(f.text or ""))
            )) and any(t.file == f.file and _same_process(f, t) and 0 <= f.line - (t.line or 0) <= ABORT_WITHIN
                       for t in at_exit)

        findings = [dataclasses.replace(f, role=Role.CONTEXT, cause=None) if after_exit(f) else f for f in findings]
        terminates = [t for t in terminates if t not in at_exit]
    explained = [t for t in terminates if any(
        f.role is Role.INITIATOR and f.cause not in (None, Cause.CRASH_SIGNAL) and f.file == t.file
        and _same_process(f, t) and f.line is not None and 0 < f.line - (t.line or 0) <= WHAT_WITHIN
        for f in findings)]
    if not explained:
        return list(findings)

    def an_abort_after(f: Finding) -> bool:
        return (f.cause is Cause.CRASH_SIGNAL and f.rule != CPP_TERMINATE and f.line is not None
                and bool(_ABORT_WORDS.search(f.text or ""))
                and any(t.file == f.file and _same_process(f, t) and 0 < f.line - (t.line or 0) <= ABORT_WITHIN
                        for t in explained))

    return [dataclasses.replace(f, role=Role.COLLATERAL, cause=None) if an_abort_after(f) else f for f in findings]


# an out-of-memory error the program says it caught and went on from (fairseq: "| WARNING: ran
# out of memory with exception: CUDA out of memory. ...", "Skipping batch", "attempting to
# recover from OOM in forward/backward pass")
_CAUGHT_OOM = re.compile(r"out of memory with exception: |attempting to recover from OOM|Skipping batch", re.I)


def demote_caught_oom(findings: Sequence[Finding]) -> list[Finding]:
    """``findings`` with each out-of-memory error a program says it caught made context unless a
    failure follows it in its file on its rank (or on a line that names no rank): fairseq skipped
    the batch and trained on. Where its recovery failed (in distributed training it often does)
    the error or traceback that follows leaves it an initiator: the out-of-memory error is then
    the cause. A failure elsewhere (another rank, another file) says nothing of this one."""
    caught = [f for f in findings
              if f.cause is Cause.CUDA_OOM and f.role is Role.INITIATOR and _CAUGHT_OOM.search(f.text or "")]
    if not caught:
        return list(findings)
    ids = {id(c) for c in caught}
    failures = [f for f in findings if id(f) not in ids and f.file is not None and f.line is not None
                and (f.role is not Role.CONTEXT or f.rule == "python.traceback")]

    def recovered(c: Finding) -> bool:
        return c.file is None or c.line is None or not any(
            f.file == c.file and (f.line or 0) > c.line and (f.rank is None or c.rank is None or f.rank == c.rank)
            for f in failures)

    return [dataclasses.replace(f, role=Role.CONTEXT) if id(f) in ids and recovered(f) else f for f in findings]


LINK_DOWN = frozenset({"system.nic_link_down", "system.ib_link_down"})  # rules/system.yaml
LINK_UP = "system.link_up"
FLAP_LINES = 20  # lines from a link's "down" to its "up" in a kernel log
FLAP_UP_WITHIN = timedelta(seconds=60)  # a link back up within this flapped and recovered
FLAP_LEAD = timedelta(minutes=10)  # a failure this long after a flap may be its consequence
FLAP_SKEW = timedelta(minutes=1)
LINK_IDLE = timedelta(hours=1)  # a job's failure this long after a link went down did not wait on that link


MODULE_EVENT = "system.nic_module_event"  # rules/system.yaml: a NIC's cable module unplugged or failing


def _cable_unplugged(f: Finding) -> bool:
    """A NIC's cable module reported unplugged: its link is down until "Cable plugged"."""
    return f.rule == MODULE_EVENT and "unplugged" in (f.field("event") or "")


def _success_lines(findings: Sequence[Finding]) -> dict[str, int]:
    """Per file, the last line where it says the run or its worker group succeeded."""
    last: dict[str, int] = {}
    for g in findings:
        if g.rule in _SUCCESS and g.file is not None and g.line is not None and g.line > last.get(g.file, -1):
            last[g.file] = g.line
    return last


def _before_success(f: Finding, success: Mapping[str, int]) -> bool:
    """Whether ``f``'s own file says, after it, that the run or its worker group succeeded
    (``success``: :func:`_success_lines`); the teardown's closed connections and store losses
    before that are the shutdown's."""
    return f.file is not None and f.line is not None and f.line < success.get(f.file, -1)


def _link_iface(f: Finding) -> str | None:  # (a cable module's events name the NIC's PCI address)
    return f.field("iface") or f.field("ib_iface") or f.field("nic_pci")


def _link_back_up(down: Finding, ups: Sequence[Finding]) -> bool:
    """The link ``down`` went down on came back up (one of ``ups``, :data:`LINK_UP`) within
    :data:`FLAP_LINES` lines of its file and :data:`FLAP_UP_WITHIN`: a flap that recovered."""
    return any(u.file == down.file and 0 < (u.line or 0) - (down.line or 0) <= FLAP_LINES
               and _link_iface(u) == _link_iface(down)
               and (u.time is None or down.time is None or u.time - down.time <= FLAP_UP_WITHIN) for u in ups)


def demote_recovered_flaps(findings: Sequence[Finding], ranks_until: datetime | None = None) -> list[Finding]:
    """``findings`` with each link that went down and came back up within a minute (a flap that
    recovered) made context, cause none, when it explains nothing the job shows: another failure
    of the job's is not within minutes after it (an exception, an OOM, another node's fault, or
    timed evidence of the job's end hours later), or nothing of the job's is timed and some other
    failure says what happened. A flap just before the job's errors stays its cause. A link that
    went down and stayed down is made context too when the job's own failure, of another cause,
    came more than :data:`FLAP_LEAD` after it and no rank saw a network error (an unused port).
    ``ranks_until``: the time of the ranks' last line; a flap that recovered with nothing of the
    job's failing anywhere, the ranks writing on for more than :data:`FLAP_LEAD` after it, did
    the job no harm either."""
    downs = [f for f in findings if (f.rule in LINK_DOWN or _cable_unplugged(f)) and f.role is Role.INITIATOR
             and f.file and f.line is not None]
    if not downs:
        return list(findings)
    ups = [f for f in findings if f.rule == LINK_UP and f.file and f.line is not None]

    def recovered(d: Finding) -> bool:
        return _link_back_up(d, ups)

    # (NCCL's word that a port failed and came right back up is this flap as a rank saw it: no other failure)
    port_ups = [f for f in findings if f.rule == NCCL_PORT_ACTIVE and f.file and f.line is not None]
    same_flap = {id(f) for f in findings if f.rule == NCCL_PORT_ERROR and f.field("event") == "port error"
                 and _port_came_back(f, port_ups)}
    others = [f for f in findings if f.role is Role.INITIATOR and f.cause is not None and f.rule not in LINK_DOWN
              and not _cable_unplugged(f) and id(f) not in same_flap]
    # network errors the ranks saw (a transfer, a socket, NCCL's own; a peer's death reads so too)
    rank_network = [f.time for f in findings if f.cause is Cause.NETWORK and f.rule not in LINK_DOWN
                    and not f.rule.startswith("system.")]

    def long_before(d: Finding) -> bool:
        """A link that went down (no "up" seen) long before the job's own failure, which is of
        another cause, and no rank saw a network error in the minutes after it: a port the job
        did not use (the ranks' network errors when that failure took their peers down, hours
        later, are that failure's)."""
        if d.time is None:
            return False
        soon = any(t is not None and -FLAP_SKEW <= t - d.time <= FLAP_LEAD for t in rank_network)
        if soon:
            return False
        # (another cause before it is an event of its own: a decoy days before, or the cause)
        later = [f for f in others if f.time is not None and f.time >= d.time - FLAP_SKEW]
        if later:
            # (a failure on the link's own node keeps it: that node is the one to look at)
            return all(f.time is not None and f.time - d.time > FLAP_LEAD and not (f.node and d.node and same_host(f.node, d.node))
                       for f in later)
        # nothing else names a cause: the job's own failure lines (its ranks' timeouts and
        # errors) all came more than an hour after the link went down, longer than any
        # collective's timeout would wait on a link the job used
        failing = [f.time for f in findings if f.time is not None and not f.rule.startswith("system.")
                   and (f.role is Role.COLLATERAL or (f.role is Role.INITIATOR and f.cause is not None))]
        return bool(failing) and all(t - d.time > LINK_IDLE for t in failing)

    flaps = [d for d in downs if recovered(d)]
    idle = {id(d) for d in downs if not recovered(d) and long_before(d)}
    if not flaps:
        return [dataclasses.replace(f, role=Role.CONTEXT, cause=None) if id(f) in idle else f for f in findings]
    timed = [f.time for f in findings if f.time is not None and f.rule not in LINK_DOWN and f.rule != LINK_UP
             and not _cable_unplugged(f) and id(f) not in same_flap
             and (f.role is Role.COLLATERAL or (f.role is Role.INITIATOR and f.cause is not None))]

    def after(d: Finding, t: datetime) -> bool:
        return d.time is not None and -FLAP_SKEW <= t - d.time <= FLAP_LEAD

    success = _success_lines(findings)
    failed = bool(others) or any(f.role is Role.COLLATERAL and not _before_success(f, success) for f in findings)

    def unrelated(d: Finding) -> bool:
        if not failed and (d.time is None or ranks_until is None):
            # a link that came back and nothing of the job's failed, where the logs cannot tell the
            # ranks stopped right after it (the kernel's log in seconds since boot, or the ranks'
            # lines without times): no harm done
            return True
        if d.time is not None and timed:
            return not any(after(d, t) for t in timed)
        if not timed and not others and d.time is not None and ranks_until is not None:
            # the ranks wrote on for long after it, or had all stopped before it went down
            return ranks_until - d.time > FLAP_LEAD or (not failed and d.time - ranks_until > FLAP_SKEW)
        return bool(others)

    demoted = {id(d) for d in flaps if unrelated(d)} | idle
    return [dataclasses.replace(f, role=Role.CONTEXT, cause=None) if id(f) in demoted else f for f in findings]


NCCL_PORT_ERROR = "nccl.ib_async_event"  # rules/nccl.yaml, its event "port error"
NCCL_PORT_ACTIVE = "nccl.ib_port_active"
FLAP_WENT_ON = 3  # lines of training progress after a port's flap, in its file
FLAP_WENT_ON_UNTIMED = 6  # ... where no time tells how long before the failure it was


def _port_came_back(d: Finding, ups: Sequence[Finding]) -> bool:
    """NCCL's word of a port error ``d`` is followed by its port's "port active" (``ups``) within
    :data:`FLAP_LINES` lines of its file and :data:`FLAP_UP_WITHIN`."""
    return any(u.file == d.file and 0 < (u.line or 0) - (d.line or 0) <= FLAP_LINES
               and (u.field("hca"), u.field("port")) == (d.field("hca"), d.field("port"))
               and u.rank == d.rank and (u.time is None or d.time is None or u.time - d.time <= FLAP_UP_WITHIN)
               for u in ups)


def demote_nccl_port_flaps(findings: Sequence[Finding], scans: Sequence[FileScan]) -> list[Finding]:
    """``findings`` with NCCL's word of an InfiniBand port error made context, cause none, where the
    same port came back up right after it ("Got async event : port active", within
    :data:`FLAP_LINES` lines of its file and :data:`FLAP_UP_WITHIN`), training went on after it
    (:data:`FLAP_WENT_ON` lines of progress in its file before anything else there failed) and
    nothing of the job's failed within :data:`FLAP_LEAD` after it (in a log without times: nothing
    of the job's failed at all): a flap that recovered, which the job trained on through (the job's
    failure hours later is another's). Not a port that flapped more than once."""
    errors = [f for f in findings if f.rule == NCCL_PORT_ERROR and f.field("event") == "port error"
              and f.role is Role.INITIATOR and f.file and f.line is not None]
    if not errors:
        return list(findings)
    ups = [f for f in findings if f.rule == NCCL_PORT_ACTIVE and f.file and f.line is not None]
    failed = [f for f in findings if f.rule != NCCL_PORT_ERROR
              and (f.role is Role.COLLATERAL or (f.role is Role.INITIATOR and f.cause is not None))]
    failing = [f.time for f in failed if f.time is not None]
    by_file = {s.file.display: s for s in scans}

    def went_on(d: Finding, enough: int = FLAP_WENT_ON) -> bool:
        scan = by_file.get(d.file or "")
        if scan is None or d.line is None:
            return False
        later = [f.line for f in findings if f.file == d.file and f.line is not None and f.line > d.line
                 and f.rule not in (NCCL_PORT_ERROR, NCCL_PORT_ACTIVE)
                 and (f.role is Role.COLLATERAL or (f.role is Role.INITIATOR and f.cause is not None))]
        end = min(later) if later else scan.lines + 1
        return progress_between(scan, d.line, end, enough=enough) >= enough

    def network_next(d: Finding) -> bool:
        later = [f for f in failed if f.file == d.file and f.line is not None and d.line is not None and f.line > d.line
                 and f.rule != NCCL_PORT_ACTIVE]
        first = min(later, key=lambda f: f.line or 0, default=None)
        return first is not None and (first.cause is Cause.NETWORK or tells_a_lost_peer(first)
                                      or "network error" in first.text)

    def flapped(d: Finding) -> bool:
        if d.time is None:
            # (a log without times: training went on after it, in its file, before any failure
            # there - not a failure of the network, which may be the flap's own)
            return _port_came_back(d, ups) and went_on(d, FLAP_WENT_ON_UNTIMED) and not network_next(d)
        return (_port_came_back(d, ups) and not any(-FLAP_SKEW <= t - d.time <= FLAP_LEAD for t in failing)
                and went_on(d))

    # (a port that flapped again and again is the suspect, whatever the job trained on between)
    def port(d: Finding) -> tuple[str | None, int | None, str | None, str | None, str | None]:
        return d.file, d.rank, d.node, d.field("hca"), d.field("port")

    flaps = Counter(port(d) for d in errors)
    demoted = {id(d) for d in errors if flaps[port(d)] == 1 and flapped(d)}
    return [dataclasses.replace(f, role=Role.CONTEXT, cause=None) if id(f) in demoted else f for f in findings]


FABRIC_NODES = 3  # nodes whose links went down at once: the switch or the fabric between them
FABRIC_WITHIN = timedelta(seconds=30)


def fabric_wide_link_loss(findings: Sequence[Finding]) -> list[Finding]:
    """``findings`` with the links that went down, and stayed down, on :data:`FABRIC_NODES` nodes or
    more within :data:`FABRIC_WITHIN` of each other placed on no node: a switch, a cable tray or the
    fabric failed between them, not each node's adapter, and no node is to be drained for it (each
    line says so, and which nodes). A link back up within a minute (a flap) counts no node."""
    ups = [f for f in findings if f.rule == LINK_UP and f.file and f.line is not None]

    downs = sorted((f for f in findings if f.rule in LINK_DOWN and f.role is Role.INITIATOR and f.node is not None
                    and f.time is not None and not _link_back_up(f, ups)),  # (a flap is no fabric's loss)
                   key=lambda f: f.time or datetime.min.replace(tzinfo=UTC))
    if len({host_key(f.node or "") for f in downs}) < FABRIC_NODES:
        return list(findings)
    times = [f.time or datetime.min.replace(tzinfo=UTC) for f in downs]
    wide: set[int] = set()
    start = 0
    for end in range(len(downs)):
        while times[end] - times[start] > FABRIC_WITHIN:
            start += 1
        window = downs[start:end + 1]
        if len({host_key(f.node or "") for f in window}) >= FABRIC_NODES:
            wide.update(id(f) for f in window)
    if not wide:
        return list(findings)
    nodes = sorted({f.node or "" for f in downs if id(f) in wide})
    named = ", ".join(nodes[:6]) + (f" and {len(nodes) - 6} more" if len(nodes) > 6 else "")
    note = f" [links of {len(nodes)} nodes went down together ({named}): a switch or the fabric, not this node]"
    return [dataclasses.replace(f, node=None, text=f.text + note) if id(f) in wide else f for f in findings]


DRIVER_LOADED = "system.nvidia_driver_loaded"  # rules/system.yaml


def demote_faults_before_driver_load(findings: Sequence[Finding], ranks_logged: bool) -> list[Finding]:
    """``findings`` with each GPU fault (an Xid) that its kernel log shows before a later load of
    the NVIDIA driver made context, where the ranks' own logs are there (``ranks_logged``) and
    nothing of the job's failed: the driver was loaded again after that fault (a reboot or a GPU
    reset), so the fault was of the GPU's life before the job that ran well on it (a kernel log
    read in seconds since boot gives no date to tell it by). A kernel log alone keeps its faults:
    the reboot may have been what they called for."""
    loads = [(f.file, f.line) for f in findings if f.rule == DRIVER_LOADED and f.file and f.line is not None]
    if not loads or not ranks_logged:
        return list(findings)
    success = _success_lines(findings)
    if any(f.field("xid") is None and not f.rule.startswith("system.")
           and ((f.role is Role.COLLATERAL and not _before_success(f, success))
                or (f.role is Role.INITIATOR and f.cause is not None)) for f in findings):
        return list(findings)

    def before_load(f: Finding) -> bool:
        return f.line is not None and any(file == f.file and f.line < line for file, line in loads)

    return [dataclasses.replace(f, role=Role.CONTEXT, cause=None)
            if f.field("xid") is not None and f.role is Role.INITIATOR and before_load(f) else f for f in findings]


OOM_KILLED = "system.oom_killed_process"  # rules/system.yaml
# a node's own services, which the kernel's OOM killer may pick when the node runs short of memory
# (a training process is python, pt_main_thread, a launcher or a data worker: none of these)
_NODE_DAEMONS = re.compile(r"^(?:node_exporter|dcgm-exporter|dcgm_exporter|nv-hostengine|prometheus|telegraf|"
                           r"fluent-bit|fluentd|td-agent|filebeat|promtail|vector|datadog-agent|otelcol\S*|"
                           r"containerd|dockerd|kubelet|sshd|systemd\S*|rsyslogd|journald|snapd|"
                           r"nvidia-persiste\S*|slurmd|munged|crond?|irqbalance|multipathd|tuned|gpustat)$")


def demote_bystander_ooms(findings: Sequence[Finding]) -> list[Finding]:
    """``findings`` with each OOM kill of a node's own service (an exporter, a log shipper, the
    container runtime) made context, cause none, when it came more than an hour before the job's
    own first failure line: memory ran short on that node then (a previous job, the service
    itself), which killed none of this job's processes; and each where no line of the job shows a
    failure at all."""
    kills = [f for f in findings if f.rule == OOM_KILLED and f.role is Role.INITIATOR and f.time is not None
             and _NODE_DAEMONS.match(f.field("comm") or "")]
    if not kills:
        return list(findings)
    failing = [f.time for f in findings if f.time is not None and not f.rule.startswith("system.")
               and (f.role is Role.COLLATERAL or (f.role is Role.INITIATOR and f.cause is not None))]
    if failing:
        idle = {id(k) for k in kills if k.time is not None and min(failing) - k.time > LINK_IDLE}
    elif not any(f.role is not Role.CONTEXT and not _kernel_rule(f) for f in findings):
        idle = {id(k) for k in kills}  # (nothing of the job failed at all: the service's kill stopped none of it)
    else:
        return list(findings)
    return [dataclasses.replace(f, role=Role.CONTEXT, cause=None) if id(f) in idle else f for f in findings]


# another tenant's program on a shared node, which a training job does not run (its processes are
# python, pt_main_thread, a launcher, a data worker or a serving engine's workers): the OOM killer's
# choice of one of them killed none of the job's
_OTHER_PROGRAMS = re.compile(r"^(?:R|Rscript|rsession|rstudio\S*|java|julia|jupyter\S*|tensorboard|code-server|"
                             r"spark\S*|node|matlab|MATLAB|octave\S*|chrome|firefox|Xorg|gnome-shell)$")
EVICTED_MEMORY = "system.kubernetes_evicted_memory"  # rules/system.yaml
# a Kubernetes events table's row: the reason, then the object it is about ("pod/name" or the name)
_EVICTED_OBJECT = re.compile(r"\bEvicted\s+(?:pod/)?(?P<pod>[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?)\s+\S")
_AGE = re.compile(r"^(?:[0-9]+[smhd])+$")  # `kubectl describe`'s events give an age in that column
_JOB_POD = re.compile(r"(?P<job>[a-z0-9](?:[a-z0-9.-]{0,200}[a-z0-9])?)" + _REPLICA)


def _job_pod_prefixes(scans: Sequence[FileScan]) -> set[str]:
    """The names of the training operator's jobs whose pods the job's output files are named for
    (a pod's log "kubectl-logs/gpt-x7-worker-3.log": "gpt-x7"; a file of no rank or training line -
    a service's log, a description - names none)."""
    return {m.group("job") for s in scans
            if s.file.kind is FileKind.RANK_LOG and (s.prefix_ranks or s.last_progress is not None)
            for part in Path(s.file.display).parts if (m := _JOB_POD.search(part.lower()))}


def demote_other_tenants(findings: Sequence[Finding], scans: Sequence[FileScan]) -> list[Finding]:
    """``findings`` with what happened to another tenant of the job's nodes made context (cause
    none): the OOM killer's kill of a program the job does not run (:data:`_OTHER_PROGRAMS`: a
    notebook, an R session, a JVM; not a pid a rank's lines name, not where the kernel puts it in
    the run's own Slurm job's memory cgroup, and a kill for the node's own shortage, not a cgroup's
    limit, only where a rank's own lines say what failed), and Kubernetes' eviction of a pod for
    memory where the events table names a pod of no job of the bundle's (the job's output files
    are named for its pods; a "prom-..." or "jupyter-..." pod of another namespace is not one of
    them). The node ran short of memory, which killed or evicted someone else's process, not a rank."""
    prefixes: set[str] | None = None
    own_jobs: set[str] | None = None
    rank_pids = {f.pid for f in findings if f.rank is not None and f.pid is not None}
    # (the Slurm job whose memory cgroup the kernel's summary puts each victim in)
    memcg_jobs = {f.pid: m.group(1) for f in findings
                  if f.rule == "system.oom_kill_summary" and f.pid is not None and (m := _MEMCG_JOB.search(f.text))}
    displays = "\n".join(s.file.display for s in scans)
    own_failure = any(f.role is Role.INITIATOR and f.cause is not None and f.rank is not None
                      and not _kernel_rule(f) and f.cause is not Cause.HOST_OOM_KILL for f in findings)

    def foreign(f: Finding) -> bool:
        nonlocal prefixes, own_jobs
        if f.rule == OOM_KILLED:
            if not _OTHER_PROGRAMS.match(f.field("comm") or "") or f.pid in rank_pids:
                return False
            if own_jobs is None:
                own_jobs = _own_slurm_jobs(findings, scans)
            # (unless the kernel's summary puts it in the run's own Slurm job's memory cgroup; and a
            # kill by the node's own shortage, not a cgroup's limit, only where the job's own lines
            # say what failed: the ranks may have starved too)
            return ((f.pid is None or memcg_jobs.get(f.pid, "") not in own_jobs)
                    and ((f.field("scope") or "").startswith("Memory cgroup") or own_failure))
        if f.rule != EVICTED_MEMORY or not (m := _EVICTED_OBJECT.search(f.text)) or _AGE.match(m["pod"]):
            return False
        if prefixes is None:
            prefixes = _job_pod_prefixes(scans)
        pod = m["pod"]
        job = m2["job"] if (m2 := _JOB_POD.search(pod)) else None
        return bool(prefixes) and not any(pod == p or pod.startswith(p + "-") or (job and (p == job or p.endswith("-" + job)))
                                          for p in prefixes) and pod not in displays

    return [dataclasses.replace(f, role=Role.CONTEXT, cause=None)
            if f.role is Role.INITIATOR and foreign(f) else f for f in findings]


KILLED_ON_FAILED_NODE = "scheduler.slurmctld_killed_on_failed_node"  # rules/scheduler.yaml
NODE_UPDATED = "scheduler.slurmctld_node_updated"
NODE_NOT_RESPONDING = "scheduler.slurmctld_node_not_responding"
SRUN_NODE_FAILURE = "scheduler.srun_node_failure"
JOB_NODE_FAILURE = "scheduler.slurm_node_failure"
CTLD_JOB_OOM = "scheduler.slurmctld_job_oom"
_CTLD_RULES = frozenset({KILLED_ON_FAILED_NODE, NODE_UPDATED, NODE_NOT_RESPONDING, CTLD_JOB_OOM})
# slurmctld logs an administrator's "reason set to" before its kills of the node's jobs and the
# "state set to DOWN" just after them: the node's updates this long before a kill, or a few
# seconds after it, are the ones that caused it
UPDATED_BEFORE = timedelta(minutes=10)
UPDATED_AFTER = timedelta(seconds=10)
NODE_FAILURE_KILLS_WITHIN = 2000  # lines below Slurm's word of a node failure in which its kills of the tasks come
# slurmctld gives up on a silent node after SlurmdTimeout (300 s by default) and its retries: its
# peers' errors about losing it come this long before, at most
LOST_NODE_NOTICED = timedelta(minutes=15)
# a reason for a node's DOWN that says an administrator took it for maintenance, and one that
# names a fault (a health check's, a person's "node hung"): only the first, without the second,
# is the job taken away
_MAINTENANCE_REASON = re.compile(r"(?i)maint|upgrad|updat|reboot|reserv|firmware|kernel|patch|decommission|swap|"
                                 r"\bmov(?:e|ing)\b|schedul|planned|reimag|reinstall|\bos\b|\bpdu\b|rack")
_FAULT_REASON = re.compile(r"(?i)xid|ecc|dbe|sbe|error|fail|fault|not respond|\bhung\b|\bhang|panic|crash|unreach|"
                           r"\bbad\b|broken|\boom\b|out of memory|\brma\b|remap|overheat|thermal|temperat|flap|"
                           r"kill task|unexpected|health|nhc|dcgm|degrad|\blost\b|dead|died|investigat")
_KILLED_WORDS = re.compile(r"SIGKILL|\bKilled\b|code -9\b|[Ss]ignal:? 9\b")
_SIGKILL_ONLY = re.compile(r"SIGKILL|code -9\b|[Ss]ignal:? 9\b")
_PEER_LOSS = ("nccl.", "gloo.", "torch.", "c10d.", "ucx.")  # the ranks' own transport errors' rules


def _hosts_of(text: str) -> list[str]:
    """The hosts a slurmctld line's host or hostlist names ("dgx031", "nid[000610-000626,000630]")."""
    return expand_hostlist(text) or ([text] if text else [])


def _job_ids(f: Finding) -> set[str]:
    """The job ids a Slurm line names: its job, an array task's own id beside it ("1225231_4(1225236)")."""
    return {j for j in (f.field("job"), f.field("raw_job")) if j}


def _ended_by_oom(findings: Sequence[Finding]) -> list[Finding]:
    """``findings`` read under slurmctld's word that the run's job ended by an OOM failure (its
    memory cgroup's OOM killer took a process of it): a rank killed by SIGKILL is the one the OOM
    killer took (host_oom_kill, the controller's line made context beside it), and then the ranks'
    SIGABRT exits are their NCCL watchdogs' aborts after that peer vanished (collateral), not
    crashes of their own."""
    killed = {id(f) for f in findings if f.role is Role.INITIATOR and f.cause in (Cause.UNKNOWN, Cause.CRASH_SIGNAL)
              and f.rank is not None and not f.rule.startswith("scheduler.") and _SIGKILL_ONLY.search(f.text or "")}
    if not killed:
        return list(findings)
    out = []
    for f in findings:
        if f.role is Role.INITIATOR and f.cause is Cause.CRASH_SIGNAL and f.field("exitcode") == "-6":
            f = dataclasses.replace(f, role=Role.COLLATERAL, cause=None)
        elif id(f) in killed:
            f = dataclasses.replace(f, cause=Cause.HOST_OOM_KILL,
                                    text=f"{f.text} [slurmctld says the job ended by an OOM failure: its memory cgroup's OOM killer]")
        elif f.rule == CTLD_JOB_OOM and f.role is Role.INITIATOR:
            f = dataclasses.replace(f, role=Role.CONTEXT)
        out.append(f)
    return out


def read_node_failures(findings: Sequence[Finding], scans: Sequence[FileScan]) -> list[Finding]:
    """``findings`` with Slurm's word that a node of the job failed read together (and slurmctld's
    word of another job's OOM failure made context): slurmctld's kill of the job on a failed node
    (:data:`KILLED_ON_FAILED_NODE`) or srun's "Node failure on X" (:data:`SRUN_NODE_FAILURE`) names
    the node. The controller's lines are the whole cluster's: one is the run's where it names the
    run's own job (its ``slurm-<id>.out``, its scheduler's lines), or, where that is not known, where
    its node is one of the run's; else it is context. On a node an administrator set DOWN for
    maintenance (a reason that names maintenance and no fault, :data:`UPDATED_BEFORE` the kill or
    :data:`UPDATED_AFTER` it, no word that the node stopped responding) the job was taken away
    (preemption - resubmit); else the node failed, cause unknown, on it. Then slurmstepd's
    "CANCELLED ... DUE TO NODE FAILURE" (whose node is the batch host that reports it) is context
    beside it, the ranks on that node that were killed (SIGKILL) and every rank's kill below
    Slurm's word in the job's output are collateral (Slurm killed them), and where the node failed
    the other nodes' ranks' transport errors of the minutes before are too (they lost their peer
    with it); srun's word beside slurmctld's of the same node is context (the controller's line is
    stamped; srun's takes the time of the line above it)."""
    named = [f for f in findings if f.rule in (KILLED_ON_FAILED_NODE, SRUN_NODE_FAILURE) and f.role is Role.INITIATOR]
    ctld_ooms = [f for f in findings if f.rule == CTLD_JOB_OOM and f.role is Role.INITIATOR]
    if not named and not ctld_ooms:
        return list(findings)
    own = _own_slurm_jobs(findings, scans)
    run_nodes = {host_key(n) for f in findings if f.rank is not None and (n := f.node)}
    run_nodes |= {host_key(n) for s in scans if s.file.kind is FileKind.RANK_LOG and (n := s.file.node)}

    def the_runs(f: Finding) -> bool:
        if own and _job_ids(f):
            return bool(_job_ids(f) & own)
        host = f.field("host")
        return host is not None and any(host_key(h) in run_nodes for h in _hosts_of(host))

    changed: dict[int, Finding] = {}
    if ctld_ooms:  # (the controller's word of another job's OOM failure; its job's, only where the job is known)
        others = {id(f) for f in ctld_ooms if not (own and _job_ids(f) & own)}
        changed.update({i: dataclasses.replace(f, role=Role.CONTEXT, cause=None)
                        for f in ctld_ooms if (i := id(f)) in others})
        if len(others) < len(ctld_ooms):
            findings = _ended_by_oom([changed.get(id(f), f) for f in findings])
            changed = {}
    if not named:
        return [changed.get(id(f), f) for f in findings]
    # (each node's updates, its hostlists expanded once)
    updates: dict[str, list[Finding]] = defaultdict(list)
    for u in findings:
        if u.rule in (NODE_UPDATED, NODE_NOT_RESPONDING):
            for h in _hosts_of(u.field("host") or ""):
                updates[host_key(h)].append(u)
    failed: list[tuple[Finding, Finding]] = []  # (the finding, as read)
    for k in named:
        if k.rule == KILLED_ON_FAILED_NODE and not the_runs(k):
            changed[id(k)] = dataclasses.replace(k, role=Role.CONTEXT, cause=None)
            continue
        host = k.field("host") or ""
        near = [u for u in updates.get(host_key(host), ())
                if u.time is None or k.time is None or -UPDATED_AFTER <= k.time - u.time <= UPDATED_BEFORE]
        reasons = [r for u in near if u.rule == NODE_UPDATED and (r := u.field("reason"))]
        read = k
        if (any(u.rule == NODE_UPDATED and u.field("state") in ("DOWN", "FAIL", "FAILING", "REBOOT") for u in near)
                and not any(u.rule == NODE_NOT_RESPONDING for u in near)
                and any(_MAINTENANCE_REASON.search(r) for r in reasons) and not any(_FAULT_REASON.search(r) for r in reasons)):
            read = changed[id(k)] = dataclasses.replace(
                k, cause=Cause.PREEMPTION,
                text=f"{k.text} [an administrator set node {host} DOWN for maintenance ({reasons[-1]}): the job was taken away]")
        failed.append((k, read))
    if not failed:
        return [changed.get(id(f), f) for f in findings]
    hosts = {host_key(read.field("host") or "") for _k, read in failed}
    taken = any(read.cause is Cause.PREEMPTION for _k, read in failed)
    # (srun's word of a node that slurmctld's kill names too: the controller's line says it)
    ctld_hosts = {host_key(read.field("host") or "") for _k, read in failed if read.rule == KILLED_ON_FAILED_NODE}
    for k, read in failed:
        if read.rule == SRUN_NODE_FAILURE and host_key(read.field("host") or "") in ctld_hosts:
            changed[id(k)] = dataclasses.replace(read, role=Role.CONTEXT, cause=None)
    # (in the job's output, below Slurm's word of the node failure: srun's "tasks 328-335: Killed"
    # of every node, Slurm's kill of the whole job)
    said_at = {(f.file, f.line) for f in findings if f.rule in (JOB_NODE_FAILURE, SRUN_NODE_FAILURE)
               and f.line is not None and (not own or not _job_ids(f) or _job_ids(f) & own)}
    lost = [read for _k, read in failed if read.cause is Cause.UNKNOWN and read.time is not None]

    def below_the_word(f: Finding) -> bool:
        return f.line is not None and any(file == f.file and 0 < f.line - line <= NODE_FAILURE_KILLS_WITHIN
                                          for file, line in said_at)

    def slurms_kill(f: Finding) -> bool:
        return (f.cause in (Cause.UNKNOWN, Cause.CRASH_SIGNAL) and not f.rule.startswith("scheduler.")
                and _KILLED_WORDS.search(f.text or "") is not None
                and ((f.node is not None and host_key(f.node) in hosts) or below_the_word(f)))

    def peers_of_the_lost(f: Finding) -> bool:
        # (another node's rank losing its peers in the minutes before slurmctld gave up on the
        # node: its ranks went silent with it; not a node's own link event)
        return (f.cause is Cause.NETWORK and f.time is not None and f.node is not None and f.rank is not None
                and f.rule.startswith(_PEER_LOSS)
                and any(host_key(f.node) != host_key(k.field("host") or "") and k.time is not None
                        and timedelta(0) <= k.time - f.time <= LOST_NODE_NOTICED for k in lost))

    for f in findings:
        if id(f) in changed or f.role is not Role.INITIATOR:
            continue
        if f.rule == JOB_NODE_FAILURE and (not own or not _job_ids(f) or _job_ids(f) & own):
            changed[id(f)] = dataclasses.replace(f, role=Role.CONTEXT, cause=None)
        elif slurms_kill(f) or peers_of_the_lost(f):
            changed[id(f)] = dataclasses.replace(f, role=Role.COLLATERAL, cause=None)
        elif taken and f.cause is Cause.UNKNOWN and f.rule.startswith("scheduler.") and f.rule not in _CTLD_RULES \
                and f.rule != SRUN_NODE_FAILURE:
            changed[id(f)] = dataclasses.replace(f, role=Role.CONTEXT, cause=None)
    return [changed.get(id(f), f) for f in findings]


NHC_XID_HARDWARE = "system.nhc_xid_hardware"  # rules/system.yaml
NHC_PREFIX = "system.nhc_"  # rules/system.yaml: Node Health Check's rules (its initiators: a fault it took a node offline for)
# where a line of Node Health Check's names the node it took offline: slurmctld's update, NHC's
# offline mark, an operator's note, sinfo -R's row (its NODELIST last, its time before it; or, in
# a site's variant, the node first)
_NHC_HOST = re.compile(r"update_node: node (?P<a>\S{1,128}) reason|Marking \S{1,16} (?P<b>\S{1,128}) offline|"
                       r"node-mark-offline:? (?P<c>[A-Za-z0-9][-A-Za-z0-9_.]{0,127}) |took out of rotation (?P<d>\S{1,128})")
_NHC_ROW_END = re.compile(r" (?P<time>[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2})\]? {1,40}"
                          r"(?P<host>[A-Za-z0-9][-A-Za-z0-9_.\[\],]{0,255})\s*$")
_NHC_ROW_START = re.compile(r"^(?P<host>[A-Za-z0-9][-A-Za-z0-9_.]{0,63}) {2,40}[a-z*~#$@^+!%-]{3,20} {2,40}(?:NHC|nhc|Nhc):")
_NHC_STAMP = re.compile(r"\[root@(?P<time>[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2})\]"
                        # (NHC's own log: "20250314 14:36:09 /usr/libexec/nhc/node-mark-offline ...")
                        r"|^(?P<y>(?:19|20)[0-9]{2})(?P<m>[01][0-9])(?P<d>[0-3][0-9]) (?P<hms>[0-2][0-9]:[0-5][0-9]:[0-5][0-9]) ")
# a health check's mark this long before the run's first line is of an earlier time (the node was
# drained then, and put back before this run started on it)
NHC_BEFORE_RUN = timedelta(minutes=10)
# and a mark this long after the run's last line is of a later time (a node's log or slurmctld's
# keeps days; NHC runs every few minutes and in the epilog; hours of slack for a host's time zone)
NHC_AFTER_RUN = timedelta(hours=12)
# NHC's word that a node is back (node-mark-online's "Marking HOST online and clearing note (NHC:
# ...)") or that it left a node alone ("Skipping drain node"): the fault named is over, or not acted on
_NHC_CLEARED = re.compile(r"mark-online|\bonline\b|clearing note|\b[Ss]kipping\b|\b[Cc]leared\b")
# an NHC log named for its node ("nhc-gpu-a02.log", "nhc_dgx-07.txt")
_NHC_FILE = re.compile(r"^nhc[-_.](?P<host>[A-Za-z0-9][-A-Za-z0-9_.]{0,127}?)(?:\.(?:log|txt|out))?$", re.I)
_NHC_XID_RULES = frozenset({"system.nhc_xid_memory", "system.nhc_xid_nvlink", "system.nhc_xid_application"})
NHC_LINES_TOGETHER = 3  # lines apart that NHC writes of one failed check (its error, its offline mark)


def read_health_checks(findings: Sequence[Finding], scans: Sequence[FileScan]) -> list[Finding]:
    """``findings`` with Node Health Check's word that it took a node offline for a fault (an
    Xid, an InfiniBand port down, a GPU's memory errors, an NVLink down, a GPU lost) read as the
    run's only where it is: the node it names (in the line: slurmctld's update, NHC's offline
    mark, sinfo -R's row; else the file's node, an ``nhc-<host>.log``) is one of the run's, where
    the run's nodes are known, and the mark came no earlier than :data:`NHC_BEFORE_RUN` before
    the run's first line, and the run does not say it completed with no rank failing. A listing
    of the cluster's drained nodes (sinfo -R, scontrol show node) holds other nodes' reasons:
    those, and a reason whose node is not known, are context."""
    checks = [f for f in findings if f.rule.startswith(NHC_PREFIX) and f.role is Role.INITIATOR]
    if not checks:
        return list(findings)
    # (an Xid another NHC rule reads by its kind: not the generic one's too)
    kinds = {(f.file, f.line) for f in findings if f.rule in _NHC_XID_RULES}
    run_nodes = {host_key(n) for f in findings if f.rank is not None and (n := f.node)}
    run_nodes |= {host_key(n) for s in scans if s.file.kind is FileKind.RANK_LOG and (n := s.file.node)
                  and s.file.rank is not None}
    ranked = [s for s in scans if s.file.kind is FileKind.RANK_LOG and (s.prefix_ranks or s.file.rank is not None)]
    start = min((t for s in ranked if (t := s.first_time) is not None), default=None)
    end = max((t for s in ranked if (t := s.last_time) is not None), default=None)
    # a run that says it completed, whose ranks show no failure: a node drained after it is the
    # next job's concern (NHC runs between jobs), not this run's failure
    finished = (any(s.file.kind is FileKind.RANK_LOG and says_completed(s) for s in scans)
                and not any(f.role is not Role.CONTEXT and f.rank is not None for f in findings))
    read: list[tuple[Finding, str | None, datetime | None]] = []  # (the check, the host it names, its time)
    for f in checks:
        text = f.text or ""
        host: str | None = None
        when = f.time
        m = _NHC_HOST.search(text)
        if m is not None:
            host = m["a"] or m["b"] or m["c"] or m["d"]
        elif (row := _NHC_ROW_END.search(text)) is not None:
            host = row["host"]
            when = _own_time((("time", row["time"]),)) or when
        elif (row := _NHC_ROW_START.match(text)) is not None:
            host = row["host"]
        if (stamp := _NHC_STAMP.search(text)) is not None and f.time is None:
            own = stamp["time"] or f"{stamp['y']}-{stamp['m']}-{stamp['d']}T{stamp['hms']}"
            when = _own_time((("time", own),)) or when
        read.append((f, host, when))
    file_nodes = {s.file.display: s.file.node for s in scans if s.file.node}  # (the file's, not its line's)
    # (NHC's log stamps one of the lines it writes for a failed check: the others beside it are of its time)
    stamped: dict[str | None, tuple[list[int], list[datetime]]] = defaultdict(lambda: ([], []))  # by file, in line order
    for f, _h, when in sorted(read, key=lambda r: r[0].line or 0):
        if when is not None and f.line is not None:
            stamped[f.file][0].append(f.line)
            stamped[f.file][1].append(when)
    changed: dict[int, Finding] = {}
    for f, host, when in read:
        if when is None and f.line is not None and f.file in stamped:
            lines, times = stamped[f.file]
            i = bisect.bisect_left(lines, f.line - NHC_LINES_TOGETHER)
            when = times[i] if i < len(lines) and lines[i] <= f.line + NHC_LINES_TOGETHER else None
        # (where the run's nodes are unknown, only the file's own node: a controller's or a
        # listing's line names its node in its own host field; else that field too, as a
        # cluster's aggregated syslog names each line's host)
        own = (file_nodes.get(f.file or "") or (f.node if run_nodes else None)
               or ((named := _NHC_FILE.match(Path(f.file or "").name)) is not None
                   and names_a_host(named["host"]) and named["host"]) or None)
        hosts = _hosts_of(host) if host else ([own] if own else [])
        if run_nodes:
            hosts = [h for h in hosts if host_key(h) in run_nodes]
        elif host is not None:
            # (the run's nodes unknown: only a node's own log's word of itself, not a listing's
            # of the cluster's drained nodes)
            hosts = [h for h in hosts if own is not None and same_host(h, own)]
        stale = when is not None and ((start is not None and when < start - NHC_BEFORE_RUN)
                                      or (end is not None and when > end + NHC_AFTER_RUN))
        cleared = _NHC_CLEARED.search(f.text or "") is not None
        if len(hosts) != 1 or stale or finished or cleared or (f.rule == NHC_XID_HARDWARE and (f.file, f.line) in kinds):
            changed[id(f)] = dataclasses.replace(f, role=Role.CONTEXT, cause=None)
        else:  # (a node's word: no rank's, whatever number its file's name ends in, "nhc-ip-10-2-196-249.log")
            changed[id(f)] = dataclasses.replace(f, node=hosts[0], time=when, rank=None, local_rank=None, pid=None)
    return [changed.get(id(f), f) for f in findings]


LOADER_DIED = "torch.dataloader_worker_died"  # rules/torch.yaml


def oom_killed_loader_workers(findings: Sequence[Finding]) -> list[Finding]:
    """``findings`` with a rank's "DataLoader worker (pid N) is killed by signal" read as a host
    OOM kill when the kernel's OOM killer names that pid (the worker's memory, not a stall of the
    loader), and the kernel's line made context beside it (the rank's line places the kill)."""
    killed = {f.pid: f for f in findings if f.rule == OOM_KILLED and f.pid is not None and f.role is Role.INITIATOR}
    if not killed:
        return list(findings)
    placed: set[int] = set()
    out = []
    for f in findings:
        if f.rule == LOADER_DIED and f.role is Role.INITIATOR:
            pids = {int(p) for p in re.findall(r"[0-9]+", (f.field("worker_pid") or "") + " " + (f.field("worker_pids") or ""))}
            kill = next((k for k in (killed.get(p) for p in sorted(pids)) if k is not None
                         and (k.node is None or f.node is None or same_host(k.node, f.node))), None)
            if kill is not None:
                placed.add(id(kill))
                f = dataclasses.replace(f, cause=Cause.HOST_OOM_KILL,
                                        text=f"{f.text} [the kernel's OOM killer took that worker: {kill.text.strip()[:200]}]")
        out.append(f)
    return [dataclasses.replace(f, role=Role.CONTEXT) if id(f) in placed else f for f in out]


RAY_TASK_ERRORS = frozenset({"launcher.ray_task_error", "launcher.ray_task_gpu_error", "launcher.ray_unhandled_error"})  # rules/launchers.yaml
RAY_TRACE_WITHIN = 400  # lines from Ray's error header to the end of the traceback it introduces


def _headers_by_file(findings: Sequence[Finding], keep: Callable[[Finding], bool]) -> dict[str, list[Finding]]:
    """The findings ``keep`` accepts that have a file and a line, by file, in line order: the
    headers whose traceback lines the placements below look up."""
    by_file: dict[str, list[Finding]] = defaultdict(list)
    for h in sorted((f for f in findings if f.file is not None and f.line is not None and keep(f)),
                    key=lambda f: f.line or 0):
        by_file[h.file or ""].append(h)
    return by_file


RAY_NESTED_WITHIN = 60  # lines from an outer task's error header to the inner one it wraps
_RAY_HEADERS = RAY_TASK_ERRORS | {"torch.ray_task_out_of_memory"}


def _outer_ray_errors_dropped(findings: Sequence[Finding]) -> list[Finding]:
    """``findings`` with the error header of a Ray task that only passed on another task's error
    made context: Ray prints a driver's ``ray.get`` of a failed task as the outer task's header
    ("RayTaskError(OutOfMemoryError): ray::TaskRunner.run() (pid=51306, ...)"), then the worker's
    own below it within :data:`RAY_NESTED_WITHIN` lines, with the same error class - the inner
    one names the process that failed."""
    heads = sorted((f for f in findings if f.rule in _RAY_HEADERS and f.role is Role.INITIATOR and f.line is not None),
                   key=lambda f: (f.file or "", f.line or 0))
    tracebacks = {(f.file, f.line) for f in findings if f.rule == TRACEBACK}

    def error_class(f: Finding) -> str | None:
        return f.field("exc_type") or ("OutOfMemoryError" if f.rule == "torch.ray_task_out_of_memory" else None)

    # (the inner header inside the outer one's traceback: no new traceback begins between them)
    outer = {id(a) for a, b in itertools.pairwise(heads)
             if a.file == b.file and 0 < (b.line or 0) - (a.line or 0) <= RAY_NESTED_WITHIN
             and a.pid != b.pid and error_class(a) is not None and error_class(a) == error_class(b)
             and not any((a.file, line) in tracebacks for line in range((a.line or 0) + 1, b.line or 0))}
    if not outer:
        return list(findings)
    return [dataclasses.replace(f, role=Role.CONTEXT) if id(f) in outer else f for f in findings]


def place_ray_tracebacks(findings: Sequence[Finding]) -> list[Finding]:
    """``findings`` with each failure line of a traceback Ray printed under its error header
    ("ray.exceptions.RayTaskError(ValueError): ray::Worker.init_model() (pid=239450,
    ip=192.168.100.8, ...)") placed on the header's node and process, when nothing else places
    it: the exception at the traceback's end (a CUDA or a KV-cache out-of-memory error, an
    illegal address) is that worker's, and says more than the header's class."""
    findings = _outer_ray_errors_dropped(findings)
    by_file = _headers_by_file(findings, lambda f: f.rule in RAY_TASK_ERRORS and f.node is not None)
    if not by_file:
        return list(findings)

    def placed(f: Finding) -> Finding | None:
        if (f.rule in RAY_TASK_ERRORS or f.role is not Role.INITIATOR or f.cause is None or f.line is None
                or f.rank is not None or f.node is not None or f.file not in by_file):
            return None
        before = [h for h in by_file[f.file] if h.line is not None and 0 < f.line - h.line <= RAY_TRACE_WITHIN]
        if not before:
            return None
        header = before[-1]
        return dataclasses.replace(f, node=header.node, pid=f.pid if f.pid is not None else header.pid)

    return [placed(f) or f for f in findings]


SPAWN_RAISED = "launcher.mp_spawn_raised"  # rules/launchers.yaml: "-- Process 3 terminated with the following error:"
SPAWN_TRACE_WITHIN = 60  # lines from that header to the exception its traceback ends in


def place_spawn_tracebacks(findings: Sequence[Finding]) -> list[Finding]:
    """``findings`` with each failure line of the traceback torch.multiprocessing.spawn re-raised
    under its "-- Process N terminated with the following error:" header (the nearest header
    before it, within :data:`SPAWN_TRACE_WITHIN` lines) given that process's rank, when nothing
    else places it: the spawn index is the process's local rank, and the exception is its own."""
    by_file = _headers_by_file(findings, lambda f: f.rule == SPAWN_RAISED and (f.rank is not None or f.local_rank is not None))
    if not by_file:
        return list(findings)

    # each header's own exception: the first failure line after it (its traceback's last line),
    # not a later error of the same file
    first: dict[int, Finding] = {}
    for f in sorted((f for f in findings if f.rule != SPAWN_RAISED and f.role is Role.INITIATOR and f.cause is not None
                     and f.line is not None and f.file in by_file), key=lambda f: f.line or 0):
        before = [h for h in by_file[f.file or ""] if h.line is not None and 0 < (f.line or 0) - h.line <= SPAWN_TRACE_WITHIN]
        if before:
            first.setdefault(id(before[-1]), f)
    headers = {id(h): h for hs in by_file.values() for h in hs}
    owner = {id(f): headers[h] for h, f in first.items()}

    def placed(f: Finding) -> Finding | None:
        header = owner.get(id(f))
        if header is None or f.rank is not None or f.local_rank is not None:
            return None
        return dataclasses.replace(f, rank=header.rank, local_rank=header.local_rank,
                                   node=f.node if f.node is not None else header.node)

    return [placed(f) or f for f in findings]


NCCL_TESTS_FAILURE = "launcher.nccl_tests_failure"  # rules/launchers.yaml
NCCL_TESTS_WITHIN = 3  # lines from an error to nccl-tests' "host pid N: Test failure" after it


def place_nccl_tests_failures(findings: Sequence[Finding]) -> list[Finding]:
    """``findings`` with each error nccl-tests printed ("node0: Test CUDA failure common.cu:389
    'an illegal memory access was encountered'") placed on the host and process its failure
    report names on the same line or the next few ("node0 pid 62767: Test failure ..."), when
    nothing else places it; the rank table the tests print places the process."""
    reports = [f for f in findings if f.rule == NCCL_TESTS_FAILURE and f.file is not None and f.line is not None
               and f.field("host")]
    if not reports:
        return list(findings)

    def placed(f: Finding) -> Finding | None:
        if f.role is not Role.INITIATOR or f.cause is None or f.line is None or f.rank is not None or f.pid is not None:
            return None
        near = [r for r in reports if r.file == f.file and 0 <= (r.line or 0) - f.line <= NCCL_TESTS_WITHIN
                and (f.node is None or f.node == (r.node or r.field("host")))]
        r = min(near, key=lambda r: (r.field("pid") is None, r.line or 0), default=None)
        if r is None:
            return None
        return dataclasses.replace(f, node=f.node or r.node or r.field("host"), pid=small_int(r.field("pid") or ""))

    return [placed(f) or f for f in findings]


TGI_SPAN_RANK = "launcher.tgi_span_rank"  # rules/launchers.yaml: " rank=0" ending a shard's error
TGI_SPAN_WITHIN = 2  # lines from the error to the span's rank line after it


def place_tgi_span_errors(findings: Sequence[Finding]) -> list[Finding]:
    """``findings`` with each unplaced error of a Text Generation Inference shard given the rank
    its shard manager prints on a line of its own just after the error (" rank=0")."""
    marks = [f for f in findings if f.rule == TGI_SPAN_RANK and f.rank is not None and f.line is not None]
    if not marks:
        return list(findings)

    def placed(f: Finding) -> Finding | None:
        if f.role is not Role.INITIATOR or f.cause is None or f.line is None or f.rank is not None:
            return None
        m = next((m for m in marks if m.file == f.file and 0 < (m.line or 0) - f.line <= TGI_SPAN_WITHIN), None)
        return dataclasses.replace(f, rank=m.rank) if m is not None else None

    return [placed(f) or f for f in findings]


SGLANG_EXCEPTION = "launcher.sglang_process_exception"  # rules/launchers.yaml


def place_sglang_tracebacks(findings: Sequence[Finding]) -> list[Finding]:
    """``findings`` with each failure line of a traceback SGLang printed under its header
    ("[time TP3] Scheduler hit an exception: Traceback ...", the frames and the exception line
    unprefixed after it, or an unstamped line right before it) given the header's rank, when
    nothing else places it."""
    by_file = _headers_by_file(findings, lambda f: f.rule == SGLANG_EXCEPTION and f.rank is not None)
    if not by_file:
        return list(findings)

    def owner(f: Finding) -> Finding | None:
        if (f.role is not Role.INITIATOR or f.cause is None or f.line is None or f.rank is not None
                or f.node is not None or f.file not in by_file):
            return None
        # (the traceback's lines borrow the header's stamp: a line stamped later, "[time] Killed" as
        # the server tears itself down, is no longer the traceback's)
        before = [h for h in by_file[f.file] if h.line is not None and 0 <= f.line - h.line <= RAY_TRACE_WITHIN
                  and (f.time is None or f.time == h.time)]
        if before:
            return before[-1]
        # (an unprefixed line right before the header: the same process's, "Starting GPU coredump
        # generation" as the CUDA error kills it)
        return next((h for h in by_file[f.file] if f.time is None and h.line == f.line + 1), None)

    out = []
    for f in findings:
        header = owner(f)
        out.append(dataclasses.replace(f, rank=header.rank, local_rank=f.local_rank if f.local_rank is not None
                                       else header.local_rank) if header else f)
    return out


# what a rank's own log says when its GPU failed under it: a CUDA error of the device or its memory
_OWN_GPU_FAILED = frozenset({Cause.GPU_HARDWARE, Cause.ECC_MEMORY, Cause.NVLINK, Cause.ILLEGAL_MEMORY_ACCESS})
GPU_FAILED_WITHIN = timedelta(minutes=10)  # the kernel's report and the rank's CUDA error, apart at most
ONE_NODE_RANKS = 8  # ranks a run may have and still be one node's, where nothing names its hosts
SRUN_TASK_LINES = frozenset({"scheduler.srun_task_exit", "scheduler.srun_task_signal"})  # "srun: error: node07: task 7: ..."


def srun_task_hosts(findings: Sequence[Finding]) -> dict[int, str]:
    """The host srun names for each task (a rank) it reports ending ("srun: error: node07: tasks
    0-7: Killed"); a task named on two hosts keeps the first."""
    out: dict[int, str] = {}
    for f in findings:
        if f.rule in SRUN_TASK_LINES and (host := f.field("host")) and (tasks := f.field("task")):
            for task in expand_ranks(tasks):
                out.setdefault(task, host)
    return out


def _unplaced_gpu_fault(f: Finding) -> bool:
    """A GPU, memory or NVLink fault the kernel reported on a named node, on no rank (an NVIDIA
    Xid; an AMD GPU's RAS report, which names its GPU's PCI address)."""
    return (f.rank is None and f.node is not None and f.role is Role.INITIATOR and f.cause in GPU_FAULTS
            and (f.field("xid") is not None or (f.rule.startswith("system.amdgpu") and f.gpu is not None)))


def place_gpu_faults(findings: Sequence[Finding], idx: RunIndex) -> list[Finding]:
    """``findings`` with a GPU fault the kernel reported on a node, whose GPU no line maps to a
    rank, given the one rank of that node whose own log shows a CUDA error of its device at about
    that time ("unspecified launch failure", an uncorrectable ECC error): its GPU is the one that
    failed. Unchanged where no rank of the node, or more than one, shows one."""
    faults = [f for f in findings if _unplaced_gpu_fault(f)]
    if not faults:
        return list(findings)
    # where srun says which node ran a task (a rank), when no other line placed it
    task_host = srun_task_hosts(findings)
    own: dict[str, list[Finding]] = defaultdict(list)
    unplaced: list[Finding] = []
    for f in findings:
        if f.rank is not None and f.field("xid") is None and f.role is Role.INITIATOR and f.cause in _OWN_GPU_FAILED:
            node = f.node or idx.rank_node.get(f.rank) or task_host.get(f.rank)
            if node is not None:
                own[idx.node(node) or node].append(f)
            else:
                unplaced.append(f)
    # ranks no line places, where the run names one node only: that node's
    # (the kernel's own lines do not count: its file's name is where the fault's node came from)
    named = {idx.node(n) or n for n in [*(f.node for f in findings if f.node and f.field("xid") is None
                                          and f.rule.split(".")[0] not in ("xid", "system")),
                                        *idx.rank_node.values(), *task_host.values()]}
    world = idx.world_size or max([*idx.ranks(), *(f.rank for f in unplaced if f.rank is not None)], default=-1) + 1
    if not named and 0 < world <= ONE_NODE_RANKS:
        # no host named but the kernel log's: a run of a node's worth of ranks ran on that node
        named = {idx.node(f.node) or f.node for f in faults if f.node}
    if len(named) == 1:
        own[next(iter(named))].extend(unplaced)
    out = []
    for f in findings:
        if _unplaced_gpu_fault(f) and f.node is not None:
            near = {g.rank for g in own.get(idx.node(f.node) or f.node, ())
                    if f.time is None or g.time is None or abs(g.time - f.time) <= GPU_FAILED_WITHIN}
            if len(near) == 1:
                f = dataclasses.replace(f, rank=near.pop())
        out.append(f)
    return out


def demote_secondary_xids(findings: Sequence[Finding]) -> list[Finding]:
    """``findings`` with each secondary Xid that follows an application fault on the same GPU
    made context (cause none): it no longer reads as, or drains for, a hardware fault."""
    app = [(f.gpu, f.node, f.time) for f in findings
           if f.gpu is not None and f.field("xid") in _APP_FAULT_XIDS and f.cause is Cause.ILLEGAL_MEMORY_ACCESS]
    if not app:
        return list(findings)
    out = []
    for f in findings:
        if f.gpu is not None and f.field("xid") in _SECONDARY_XIDS and f.role is Role.INITIATOR:
            for gpu, node, time in app:
                if gpu == f.gpu and (node is None or f.node is None or node == f.node) and (
                        time is None or f.time is None or timedelta(0) <= f.time - time <= SECONDARY_WITHIN):
                    f = dataclasses.replace(f, role=Role.CONTEXT, cause=None)
                    break
        out.append(f)
    return out


BEFORE_JOB = timedelta(minutes=10)
HARDWARE_BEFORE_JOB = timedelta(hours=1)  # a hardware Xid this long before the job's first line is an earlier job's
HARDWARE_BEFORE_FAILURE = timedelta(hours=6)  # or this long before its first timed failure, where its start is unknown
ALIVE_AFTER = timedelta(minutes=1)
# the kernel's word of a process that crashed (rules/system.yaml), and how long a quiet job's output
# must go on after it for the process to be another's
KERNEL_CRASHES = frozenset({"system.segfault", "system.trap"})
QUIET_AFTER_CRASH = timedelta(minutes=10)
OWN_PID_BEFORE_JOB = timedelta(hours=14)  # the widest gap two time zones make


def _alive_at(f: Finding) -> datetime | None:
    """When a line shows the rank's process alive: it set up NCCL on its GPU then, the collective
    its watchdog timed out in began then (the line's time less the time it ran, else less its
    timeout), or the launcher sent the still-running process its teardown signal then. (A report
    of the rank's exit is no such sign.)"""
    if f.time is None:
        return None
    if f.rule in NCCL_INIT_RULES or f.rule in SIGNAL_SENT:
        return f.time
    if f.role is not Role.COLLATERAL:
        return None
    if "watchdog" not in f.rule and "timeout" not in f.rule:
        return None
    ran = _num(f.field("ran_ms")) or _num(f.field("timeout_ms"))
    return f.time - timedelta(milliseconds=ran) if ran is not None and ran >= 0 else None


# processes an application Xid may name that are no training job's ranks: NVIDIA's tools (the
# kernel cuts a name to 15 characters: "nvidia-persiste", "gpu-feature-dis"), a notebook, a desktop
TOOL_PROCESSES = frozenset({"dcgmi", "nv-hostengine", "nvidia-smi", "dcgmproftester", "dcgmproftester1", "dcgmproftester12",
                            "nvidia-persiste", "nvidia-persistenced", "gpu-feature-dis", "gpud", "nvvs",
                            "jupyter-lab", "jupyter-noteboo", "xorg", "gnome-shell"})


# a rank's failures of the application's own making (no GPU, memory or fabric behind them)
APP_FAILURES = frozenset({Cause.PYTHON_EXCEPTION, Cause.CUDA_OOM, Cause.DATA_LOADER_STALL, Cause.COLLECTIVE_MISMATCH})


def demote_foreign_app_faults(findings: Sequence[Finding], idx: RunIndex, start: datetime | None,
                              job_output: bool = False, output_end: datetime | None = None,
                              served_to_the_end: bool = False, progress_end: datetime | None = None) -> list[Finding]:
    """Application Xids (13, 31, 43 ...) that are not this job's made context: one logged more
    than :data:`BEFORE_JOB` before the ranks' first line (a kernel log keeps earlier jobs'
    faults); and where the node's kernel log and its ranks share a pid namespace, one whose pid
    is not that of the rank on its GPU, or none of the node's ranks when every one is known; and
    one whose GPU's rank was alive :data:`ALIVE_AFTER` or more after it (set up NCCL, began a
    collective, as its watchdog timeout tells, or was still there to be sent the launcher's
    teardown signal): a
    fault of the rank's own process ends its CUDA context at once, so the fault was another
    process's on that GPU. Where the namespaces are not known to be shared, one whose pid is not
    the rank's, when the rank's own log shows no fault and another rank's says what failed; and
    one whose process is a tool's (:data:`TOOL_PROCESSES`: a DCGM diagnostic, nvidia-smi). An OOM
    kill logged more than :data:`BEFORE_JOB` before the ranks' first line is context too, and so
    is a GPU, memory or NVLink Xid logged more than :data:`HARDWARE_BEFORE_JOB` before it, or one
    with no date where a rank's own log shows the application failing by itself
    (:data:`APP_FAILURES`) and the Xid is a tool's process's, or of a node none of whose ranks
    shows a failure of its own. Where the job's own output is there (``job_output``), shows no
    failure at all and goes on past the fault (``output_end``, its last stamped line), an
    application Xid naming a pid that none of the job's known processes has is context too; and
    so is any application Xid where such a quiet job is an inference server that shut down in
    order (``served_to_the_end``): a fault of its own would have failed requests or its engine."""
    alive: dict[int, datetime] = {}
    signalled: set[int] = set()  # ranks whose process the launcher sent its teardown signal
    for f in findings:
        began = _alive_at(f)
        if began is not None and f.rank is not None and (f.rank not in alive or began > alive[f.rank]):
            alive[f.rank] = began
        if f.rule in SIGNAL_SENT and f.pid is not None:
            rank = f.rank if f.rank is not None else _rank_of_pid(idx, f.node, f.pid)
            if rank is None and f.node is not None:
                rank = _rank_of_pid(idx, None, f.pid)
            if rank is not None:
                signalled.add(rank)
    pids: dict[str | None, set[int]] = defaultdict(set)
    ranks_on: dict[str | None, int] = defaultdict(int)
    for rank, node in idx.rank_node.items():
        ranks_on[node] += 1
        pid = idx.rank_pid.get(rank)
        if pid is not None:
            pids[node].add(pid)
    # pids tell processes apart only where the kernel and the ranks see the same pid namespace
    # (a container's ranks print their own pids): some kernel line of the node names a rank's pid
    shared = {f.node for f in findings if f.pid is not None and f.field("xid") is not None and f.pid in pids.get(f.node, ())}
    # ranks whose own log shows a GPU fault or a crash (a fault of the rank's process shows there
    # too), and whether some rank's log says what failed
    own_fault = {f.rank for f in findings if f.rank is not None and f.field("xid") is None and f.role is Role.INITIATOR
                 and f.cause in (Cause.ILLEGAL_MEMORY_ACCESS, Cause.CRASH_SIGNAL)}
    rank_log_initiators = {f.rank for f in findings if f.rank is not None and f.field("xid") is None
                           and f.role is Role.INITIATOR and f.cause is not None
                           and f.cause not in (Cause.ILLEGAL_MEMORY_ACCESS, Cause.CRASH_SIGNAL, Cause.UNKNOWN)}
    # the job's first timed failure other than a GPU fault's (an OOM kill, a rank's error)
    failed_at = min((f.time for f in findings if f.time is not None and f.role is not Role.CONTEXT
                     and f.field("xid") is None and (f.role is Role.COLLATERAL or f.cause is not None)
                     and f.cause not in GPU_FAULTS), default=None)
    # ranks whose own log shows the application failing by itself
    app_failures = [f for f in findings if f.rank is not None and f.field("xid") is None and f.role is Role.INITIATOR
                    and f.cause in APP_FAILURES]
    app_failure = bool(app_failures)
    rank_pids = set(idx.rank_pid.values())  # (an Xid naming one of them struck while the job ran)
    job_pids = rank_pids | {pid for _node, pid in idx.pid_rank}
    # the job's processes its own lines name: the launchers' word of one that died ("failed (exitcode:
    # -9) local_rank: 1 (pid: 3412355)"), a worker's prefix ("(EngineCore_0 pid=2001) ERROR ...")
    exited_pids = {f.pid for f in findings if f.pid is not None and f.field("xid") is None and not f.rule.startswith("system.")}
    app_nodes = {idx.node(f.node) for f in app_failures if f.node is not None}
    # nodes where some rank's own log shows it failing (what a GPU lost under a rank shows there)
    failing_nodes = {idx.node(f.node) for f in findings if f.node is not None and f.rank is not None
                     and f.field("xid") is None and f.role is Role.INITIATOR and f.cause is not None}
    # the nodes the job's ranks ran on
    job_nodes = {idx.node(n) for n in idx.rank_node.values()} | failing_nodes
    # the job's output shows no failure at all (no error, no timeout, no exit of a rank): nothing
    # but the kernel's GPU faults says anything went wrong
    quiet = job_output and not any(f.role is not Role.CONTEXT and f.field("xid") is None for f in findings)
    # (the same, the kernel's word of crashed processes aside)
    # (``progress_end`` is there only where the job's output shows its training)
    quiet_but_crashes = not any(f.role is not Role.CONTEXT and f.field("xid") is None
                                and f.rule not in KERNEL_CRASHES for f in findings)
    out = []
    for f in findings:
        if f.cause is Cause.ILLEGAL_MEMORY_ACCESS and f.role is Role.INITIATOR and f.field("xid") is not None:
            before = start is not None and f.time is not None and f.time < start - BEFORE_JOB
            known = pids.get(f.node, set())
            own_pid = idx.rank_pid.get(f.rank) if f.rank is not None else None
            foreign = f.pid is not None and f.node in shared and (
                (own_pid is not None and own_pid != f.pid)  # the GPU's rank is another process
                or (f.rank is None and f.node is not None and ranks_on.get(f.node, 0) > 0
                    and len(known) >= ranks_on[f.node] and f.pid not in known))
            # the GPU's rank alive well after the fault, or still running when the launcher tore the
            # job down (a process its own fault killed exits and is reported, not signalled)
            lived_on = f.rank is not None and (
                (f.time is not None and f.rank in alive and alive[f.rank] - f.time > ALIVE_AFTER) or f.rank in signalled)
            # pid namespaces unknown: another pid than the rank's, no fault in the rank's own log,
            # and another rank's log says what failed
            unbacked = (f.pid is not None and own_pid is not None and own_pid != f.pid and f.rank not in own_fault
                        and bool(rank_log_initiators - {f.rank}))
            # a tool's process faulted (a DCGM diagnostic, nvidia-smi, a notebook): not a rank's
            tool = (f.field("name") or "").strip().lower() in TOOL_PROCESSES
            # a node's where no rank of the job ran, while some rank's own log shows it failing on
            # another node (a fleet's merged kernel log holds other jobs' faults)
            elsewhere = (f.rank is None and f.node is not None and bool(failing_nodes)
                         and idx.node(f.node) not in job_nodes and not any(same_host(f.node, n) for n in job_nodes if n)
                         and (f.pid is None or f.pid not in rank_pids))
            # no rank of the job failed (an application fault ends its process, and its peers time
            # out) and its output went on after the fault: another process's, whose pid is none of
            # the job's known processes'
            went_on = f.time is None or output_end is None or output_end - f.time > ALIVE_AFTER
            unfelt = quiet and went_on and ((f.pid is not None and bool(job_pids) and f.pid not in job_pids)
                                            or (served_to_the_end and (f.pid is None or f.pid not in job_pids)))
            if before or foreign or lived_on or unbacked or tool or elsewhere or unfelt:
                f = dataclasses.replace(f, role=Role.CONTEXT)
        elif (f.rule in KERNEL_CRASHES and f.role is Role.INITIATOR and quiet_but_crashes and f.time is not None
              and progress_end is not None and progress_end - f.time > QUIET_AFTER_CRASH
              and (f.pid is None or f.pid not in job_pids)):
            # the kernel saw a process crash (a segfault, a trap) while the job's output shows no
            # failure at all and its training goes on long after (``progress_end``: its last step
            # line's time): a crashed rank ends and its peers time out, so the process was
            # another's (a monitor's, a notebook's, a tool's)
            f = dataclasses.replace(f, role=Role.CONTEXT, cause=None)
        elif (f.rule == OOM_KILLED and f.role is Role.INITIATOR and start is not None and f.time is not None
              and f.time < start - BEFORE_JOB and not (f.pid is not None and (f.pid in job_pids or f.pid in exited_pids)
                                                       and start - f.time <= OWN_PID_BEFORE_JOB)):
            # the OOM killer took a process before the ranks' first line: not one of this job's
            # (unless the pid it names is a rank's, within half a day: the kernel's clock is then in
            # another zone; days before, the pid was another process's)
            f = dataclasses.replace(f, role=Role.CONTEXT, cause=None)
        elif (f.role is Role.INITIATOR and f.field("xid") is not None and f.cause in GPU_FAULTS and f.time is not None
              and not (f.pid is not None and (f.pid in job_pids or f.pid in exited_pids) and (start or failed_at) is not None
                       and (start or failed_at or f.time) - f.time <= OWN_PID_BEFORE_JOB)  # (a job's process: another zone)
              and ((start is not None and f.time < start - HARDWARE_BEFORE_JOB)
                   or (start is None and failed_at is not None and f.time < failed_at - HARDWARE_BEFORE_FAILURE))):
            # a GPU, memory or NVLink fault the kernel logged hours before the ranks' first line: an
            # earlier job's (the node was reset since, or the job would not have started on it); or,
            # where no rank's line has a time, long before the job's first timed failure (the ranks
            # on a GPU lost or failing fail within the hour, as their collectives time out)
            f = dataclasses.replace(f, role=Role.CONTEXT, cause=None)
        elif (f.role is Role.INITIATOR and f.field("xid") is not None and f.cause in GPU_FAULTS and f.time is None
              and app_failure and ((f.field("name") or "").strip().lower() in TOOL_PROCESSES
                                   or (f.node is not None and idx.node(f.node) not in failing_nodes
                                       and (f.pid is None or f.pid not in rank_pids)
                                       and bool(app_nodes) and idx.node(f.node) not in app_nodes))):
            # an undated GPU fault where a rank's own log shows the application failing by itself
            # (an uncaught exception, out of memory): one a DCGM diagnostic or nvidia-smi met (a
            # diagnostic runs on an idle GPU: not while the job held it), or one on another node
            # than that failure's, whose ranks show no failure of their own (a GPU lost under a rank
            # fails it there) and whose process is none of the ranks': the fault is the node's, of
            # another time
            f = dataclasses.replace(f, role=Role.CONTEXT)
        out.append(f)
    return out


_GROUP_RANK = re.compile(r"\[(?:PG [^\]]{0,80}? )?Rank (?P<rank>[0-9]{1,7})\]")
_PREFIXED_RANK = re.compile(r"^(?:[^\s:\[]{1,64}: )?\[rank[0-9]{1,7}\]:")


def ranks_of_group_watchdogs(findings: Sequence[Finding]) -> list[Finding]:
    """``findings`` without the rank a watchdog's "[Rank 1]" gave lines of no rank prefix where that
    number is not a global rank: the same "[Rank N]" on two nodes in one attempt (a process group's
    own numbering: torch before 2.3 prints the rank in the group that timed out, a pipeline's
    two-rank groups each with a rank 0 and 1). Which global ranks they were, the lines do not say."""
    told: dict[tuple[int | None, int], set[str]] = defaultdict(set)
    own = []
    for f in findings:
        if f.rank is None or f.node is None or _PREFIXED_RANK.match(f.text or ""):
            continue
        m = _GROUP_RANK.search(f.text or "")
        if m is not None and int(m["rank"]) == f.rank:
            told[(f.attempt, f.rank)].add(host_key(f.node))
            own.append(f)
    grouped = {f.attempt for f in own if len(told[(f.attempt, f.rank or 0)]) >= 2}
    if not grouped:
        return list(findings)
    unranked = {id(f) for f in own if f.attempt in grouped}
    return [dataclasses.replace(f, rank=None, local_rank=None) if id(f) in unranked else f for f in findings]


MEGATRON_REPORT = "launcher.megatron_straggler_report"  # rules/launchers.yaml
MEGATRON_MIN_REPORTS = 3  # reports that name the same slowest rank, at least
MEGATRON_SHARE = 0.6  # of the last reports
MEGATRON_LAST = 20  # the reports looked at: the last this many
MEGATRON_SPREAD = 1.10  # the slowest rank's round trip over the fastest's (median of its reports)


def megatron_stragglers(findings: Sequence[Finding], idx: RunIndex) -> list[Finding]:
    """``findings`` and, where Megatron's straggler detector named one rank the slowest in most of
    its last reports (:data:`MEGATRON_SHARE` of the last :data:`MEGATRON_LAST`, at least
    :data:`MEGATRON_MIN_REPORTS`) by a clear margin (its round trip :data:`MEGATRON_SPREAD` times
    the fastest rank's, the median of those reports), a straggler finding for that rank: the
    detector's own verdict, read from the lines rank 0 prints. Each report's natural jitter is a
    fraction of a percent and names a different rank each time."""
    reports = sorted((f for f in findings if f.rule == MEGATRON_REPORT), key=lambda f: (f.file or "", f.line or 0))
    if len(reports) < MEGATRON_MIN_REPORTS:
        return list(findings)
    last = reports[-MEGATRON_LAST:]
    slowest = Counter(f.field("mx_rank") for f in last)
    rank_s, n = slowest.most_common(1)[0]
    rank = small_int(rank_s or "")
    if rank is None or n < MEGATRON_MIN_REPORTS or n < MEGATRON_SHARE * len(last):
        return list(findings)
    spreads = []
    for f in last:
        lo, hi = field_float(f.field("mn_rtt")), field_float(f.field("mx_rtt"))
        if f.field("mx_rank") == rank_s and lo and hi and lo > 0:
            spreads.append(hi / lo)
    spread = statistics.median(spreads) if spreads else 0.0
    if spread < MEGATRON_SPREAD:
        return list(findings)
    at = last[-1]
    verdict = dataclasses.replace(
        at, rule=RULE_MEGATRON_STRAGGLER, role=Role.INITIATOR, cause=Cause.STRAGGLER, severity=Severity.WARNING,
        rank=rank, local_rank=idx.rank_local.get(rank), node=idx.rank_node.get(rank), pid=None, gpu=None,
        confidence=0.6, fields=(*at.fields, ("reports", str(n)), ("of_reports", str(len(last))),
                                ("spread", f"{spread:.2f}")))
    return [*findings, verdict]


SLOWEST_REPORT = "launcher.slowest_rank_report"  # rules/launchers.yaml
# the same report in other words: min/median/max in one triple, or the longest and shortest times' ranks
MAX_MIN_REPORT = "launcher.max_min_rank_report"  # rules/launchers.yaml
SLOWEST_REPORTS = frozenset({SLOWEST_REPORT, "launcher.slowest_rank_spread_report", "launcher.slowest_rank_vs_median_report",
                             MAX_MIN_REPORT})
SLOWEST_SPREAD = 1.3  # the slowest rank's time over the typical (median, mean) time, median of its reports
# the slowest rank's over the fastest's, where a report gives only those two: jitter alone puts the
# extremes of a few dozen ranks further apart than either is from the median
EXTREMES_SPREAD = 1.45
_TO_SECONDS = {"s": 1.0, "ms": 0.001}


def _report_spread(f: Finding) -> float:
    unit = f.field("slow_unit") or "s"
    typical = field_float(f.field("typical")) * _TO_SECONDS.get(f.field("typical_unit") or unit, 1.0)
    slow = field_float(f.field("slow")) * _TO_SECONDS.get(unit, 1.0)
    return slow / typical if typical > 0 else 0.0


def slowest_rank_stragglers(findings: Sequence[Finding], idx: RunIndex) -> list[Finding]:
    """``findings`` and, where a trainer's own step-time reports ("median 2.20s ... slowest rank
    14 (gpu63) 4.72s") named one rank the slowest in most of their last reports (as
    :func:`megatron_stragglers` reads Megatron's), at :data:`SLOWEST_SPREAD` times the typical
    time or more (the median over its reports), a straggler finding for that rank, its node
    from the index or from the report's own words."""
    reports = sorted((f for f in findings if f.rule in SLOWEST_REPORTS), key=lambda f: (f.file or "", f.line or 0))
    if len(reports) < MEGATRON_MIN_REPORTS:
        return list(findings)
    last = reports[-MEGATRON_LAST:]
    rank_s, n = Counter(f.field("rank") for f in last).most_common(1)[0]
    if n < MEGATRON_SHARE * len(last):
        # (or the rank each of the last reports names: a straggler since a step in the middle)
        streak = {f.field("rank") for f in last[-MEGATRON_MIN_REPORTS:]}
        if len(streak) != 1:
            return list(findings)
        rank_s = streak.pop()
        n = sum(1 for f in last if f.field("rank") == rank_s)
    rank = small_int(rank_s or "")
    if rank is None or n < MEGATRON_MIN_REPORTS:
        return list(findings)
    mine = [f for f in last if f.field("rank") == rank_s]
    spread = statistics.median(_report_spread(f) for f in mine)
    if spread < (EXTREMES_SPREAD if all(f.rule == MAX_MIN_REPORT for f in mine) else SLOWEST_SPREAD):
        return list(findings)
    at = mine[-1]
    host = next((h for f in reversed(mine) if (h := f.field("host"))), None)
    verdict = dataclasses.replace(
        at, rule=RULE_SLOWEST_STRAGGLER, role=Role.INITIATOR, cause=Cause.STRAGGLER, severity=Severity.WARNING,
        rank=rank, local_rank=idx.rank_local.get(rank), node=idx.rank_node.get(rank) or host, pid=None, gpu=None,
        confidence=0.6, fields=(*at.fields, ("reports", str(n)), ("of_reports", str(len(last))),
                                ("spread", f"{spread:.2f}")))
    return [*findings, verdict]


NVRX_WARNING = "launcher.nvrx_straggler_warning"  # rules/launchers.yaml
NVRX_LOW_SCORE = "launcher.nvrx_low_score"  # rules/launchers.yaml
RULE_NVRX_STRAGGLER = "launcher.nvrx_straggler"
_NVRX_RANK = re.compile(r"\b([0-9]{1,7})\b")
_NVRX_ID = re.compile(r"\brank=([0-9]{1,7})\b")


def _nvrx_ranks(text: str) -> list[int]:
    """The ranks of NVRx's "Affected ranks": its set of StragglerId(rank=5, node='gpu-017'), or
    the plain list of its documentation."""
    found = _NVRX_ID.findall(text) if "rank=" in text else _NVRX_RANK.findall(text)
    return [r for tok in found if (r := small_int(tok)) is not None]


def nvrx_stragglers(findings: Sequence[Finding], idx: RunIndex) -> list[Finding]:
    """``findings`` and, where NVIDIA Resiliency Extension's straggler detector warned that some
    GPUs' performance scores fell below its threshold ("STRAGGLER DETECTION WARNING: ... Affected
    ranks: {StragglerId(rank=5, node='gpu-017')}", printed by rank 0 about the others), a
    straggler finding for the rank its warnings name most often (on the last warning that names
    it): the detector's own verdict, about the rank it names, not the rank that printed it; less
    sure where a warning names several."""
    warnings = [f for f in findings if f.rule == NVRX_WARNING]
    named = [(f, _nvrx_ranks(f.field("ranks") or "")) for f in warnings]
    # its report's worst ranks, where one scored below the detector's threshold
    named += [(f, [rank]) for f in findings if f.rule == NVRX_LOW_SCORE and (rank := _rank(f.field("rank"))) is not None]
    counts = Counter(r for _f, ranks in named for r in set(ranks))
    if not counts:
        return list(findings)
    rank, times = counts.most_common(1)[0]
    at = next(f for f, ranks in reversed(named) if rank in ranks)
    several = any(len(set(ranks)) > 1 for _f, ranks in named)
    verdict = dataclasses.replace(
        at, rule=RULE_NVRX_STRAGGLER, role=Role.INITIATOR, cause=Cause.STRAGGLER, severity=Severity.WARNING,
        rank=rank, local_rank=idx.rank_local.get(rank),
        node=idx.rank_node.get(rank) or (at.field("host") if at.rule == NVRX_LOW_SCORE else None), pid=None, gpu=None,
        confidence=min(0.8, 0.55 + 0.05 * times) - (0.1 if several else 0.0),
        fields=(*at.fields, ("warnings", str(times))))
    return [*findings, verdict]
