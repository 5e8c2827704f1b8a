"""Findings -> incidents: which rank started the failure, why, and which ranks are collateral.

Pure functions over :class:`RunFacts`. The rules (docs/architecture.md): evidence has a role; the initiator
is the earliest initiator-grade evidence on a timeline aligned across ranks and nodes, within a
skew tolerance in which stronger (hardware) evidence wins; evidence on the same rank, GPU or pid
corroborates it; when no rank left initiator-grade evidence, collateral evidence points at it
(a peer named by an error, the rank missing from a collective or with the lowest completed
sequence number, the rank that went silent first).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime, timedelta

from detector.attribution.advice import killed_by_sigkill, local_adapter_evidence
from detector.attribution.finish import finish_incident
from detector.attribution.incident import (
    HARDWARE,
    SKEW,
    STRONG,
    TIE,
    _build,
    _collateral,
    _initiator_for,
    _same_origin,
    _strength,
    _ts,
    sole_host,
)
from detector.attribution.infer import (
    LAST_RESORT_CAUSE,
    SLURM_STEP_ENDED,
    _infer,
    _mismatch_culprit,
    _peer_votes,
    _spawned_traceback,
    checkpoint_save_straggler,
    crashed_rank,
    data_prep_straggler,
    interrupted,
    last_resort,
    loader_dump_behind,
    main_first_straggler,
    oom_victim_task,
    ras_rank_behind,
    slowed_then_stopped,
    stopped_in_a_test_sweep,
    storage_stall,
)
from detector.support.hosts import host_key, is_address, same_host
from detector.support.numbers import field_float, small_int
from detector.types import (
    DEATHS_OF_PEERS,
    GPU_FAULTS,
    PROCESS_DEATHS,
    RULE_EXIT_CODE,
    RULE_GPU_OUTLIER,
    RULE_MEGATRON_STRAGGLER,
    RULE_RUN_UNFINISHED,
    RULE_SLOWDOWN,
    RULE_SLOWEST_STRAGGLER,
    RULE_STALL,
    RULE_STRAGGLER,
    RULE_WEIGHT_LOADING,
    Cause,
    Finding,
    Incident,
    Role,
    RunFacts,
    peer_gone,
)

RULE_MONITORED_BARRIER_PEER = "torch.monitored_barrier_peer_error"  # rules/torch.yaml: names the faulty peer


def _time_key(f: Finding) -> datetime | None:
    return f.time


def _group_by_attempt(findings: Sequence[Finding], *, untimed_last: bool = False,
                      last_hosts: frozenset[str] = frozenset()) -> list[list[Finding]]:
    """Split findings by torchrun attempt; findings without an attempt (kernel logs, consoles)
    go to the attempt whose time span holds them, else the nearest earlier one, else the first;
    with ``untimed_last`` (the attempts are the job's, each in files of its own or marked in
    one), those with no time to the last (what was collected after the job: a pod's description,
    the scheduler's events, a kernel log whose boot is not dated), unless they name a node the
    last attempt did not run on (``last_hosts``: its hosts, where known)."""
    attempts = sorted({f.attempt for f in findings if f.attempt is not None})
    if len(attempts) <= 1:
        return [list(findings)] if findings else []
    spans: dict[int, tuple[datetime | None, datetime | None]] = {}
    for a in attempts:
        # (not a weight-loading bar's: it has no time of its own, only the line above it's)
        times = [f.time for f in findings if f.attempt == a and f.time is not None and f.rule != RULE_WEIGHT_LOADING]
        spans[a] = (min(times), max(times)) if times else (None, None)
    groups: dict[int, list[Finding]] = {a: [] for a in attempts}
    zones = _file_zones(findings)
    for f in findings:
        if f.attempt is not None:
            groups[f.attempt].append(f)
            continue
        left = bool(last_hosts) and f.node is not None and not any(same_host(f.node, h) for h in last_hosts)
        target = attempts[-1] if f.time is None and untimed_last and not left else attempts[0]
        if f.time is not None:
            when = f.time - zones.get(f.file or "", timedelta(0))
            for a in attempts:  # the latest attempt that had started by then
                lo, _hi = spans[a]
                if lo is not None and lo - TIE <= when:
                    target = a
        groups[target].append(f)
    return [groups[a] for a in attempts if groups[a]]


ZONE_PAIRS = 16  # faults of a file (and of the attempts, per cause) paired at most: bounded work
HOUR_S = 3600  # (a kernel log's zone: whole hours from the ranks' clock, within two minutes)
FILE_ZONE_SLACK_S = 120


def _file_zones(findings: Sequence[Finding]) -> dict[str, timedelta]:
    """How far the clock of a file whose findings have no attempt (a node's kernel log in local
    time beside the ranks' UTC) is ahead of the ranks', where one of its faults is a fault of an
    attempt's rank seen twice (the same cause, on that node or on no named one) a whole number of
    hours apart (within :data:`FILE_ZONE_SLACK_S`), and all such pairs of the file agree (a pair within
    minutes says the clocks agree: no shift)."""
    seen: dict[Cause, list[Finding]] = defaultdict(list)  # (the attempts' faults by cause, a few of each)
    for f in findings:
        if (f.attempt is not None and f.time is not None and f.role is Role.INITIATOR and f.cause is not None
                and f.cause is not Cause.UNKNOWN and len(seen[f.cause]) < ZONE_PAIRS):
            seen[f.cause].append(f)
    if not seen:
        return {}
    offsets: dict[str, set[int]] = defaultdict(set)
    tried: Counter[str] = Counter()
    for f in findings:
        if f.attempt is not None or f.time is None or f.role is not Role.INITIATOR or f.cause is None or not f.file:
            continue
        tried[f.file] += 1
        if tried[f.file] > ZONE_PAIRS:
            continue
        for g in seen.get(f.cause, ()):
            if g.time is None or (f.node and g.node and not same_host(f.node, g.node)):
                continue
            gap = f.time - g.time
            seconds = gap.total_seconds()
            off = abs(seconds) % HOUR_S
            if abs(seconds) <= ZONE_SLACK_S:
                offsets[f.file].add(0)  # (the same clock: the fault seen twice at once)
            elif HOUR_S - FILE_ZONE_SLACK_S <= abs(seconds) <= ZONE_SPAN.total_seconds() and min(
                    off, HOUR_S - off) <= FILE_ZONE_SLACK_S:
                offsets[f.file].add(round(seconds / HOUR_S))
    return {file: timedelta(seconds=next(iter(steps)) * HOUR_S) for file, steps in offsets.items()
            if len(steps) == 1 and 0 not in steps}


TIME_LIMIT = "scheduler.slurm_time_limit"


def _without_time_limits_after_failures(initiators: Sequence[Finding], facts: RunFacts) -> Sequence[Finding]:
    """``initiators`` without Slurm's time-limit cancellations that came after a failure the same
    log printed before them, untimed, with no training progress after that failure: the failure
    stopped the job, which then sat until its time limit. (A failure training went on after, a
    caught error, leaves the time limit the cause.)"""
    failed = [f for f in initiators if f.rule != TIME_LIMIT and f.cause is not Cause.PREEMPTION and f.time is None
              and f.line is not None and f.file is not None and f.line >= facts.last_progress.get(f.file, 0)]
    if not failed:
        return initiators
    ended = {id(f) for f in initiators if f.rule == TIME_LIMIT and f.line is not None
             and any(g.file == f.file and (g.line or 0) < (f.line or 0) for g in failed)}
    return [f for f in initiators if id(f) not in ended] if ended else initiators


HUNG_BEFORE_LIMIT = timedelta(minutes=30)  # ranks' collective timeouts this long before a time limit: a hung job


def _without_time_limits_long_after_timeouts(initiators: list[Finding], group: Sequence[Finding],
                                             facts: RunFacts) -> list[Finding]:
    """``initiators`` without Slurm's time-limit cancellations where they are the only initiators
    and came :data:`HUNG_BEFORE_LIMIT` or more after the ranks had timed out waiting in a collective
    (or after their untimed timeouts in the same file), with no training progress after those
    timeouts in their files: the job had hung (its ranks waiting on one that stopped) and sat until
    its time limit, which only ended it."""
    if not initiators or any(f.rule != TIME_LIMIT for f in initiators):
        return initiators
    if all(stopped_in_a_test_sweep(f, group) for f in initiators):
        return []  # (nccl-tests stopped in its sweep and sat until the time limit: a hang)
    timeouts = [f for f in group if f.role is Role.COLLATERAL and f.rule == RULE_WATCHDOG
                and f.line is not None and f.file is not None]
    if not timeouts:
        return initiators
    if any(facts.last_progress.get(f.file or "", 0) > (f.line or 0) for f in timeouts):
        return initiators  # (training went on after a timeout: a subgroup's, not the job's)
    timed = [f.time for f in timeouts if f.time is not None]

    def long_after(limit: Finding) -> bool:
        if limit.time is not None and timed:
            return limit.time - min(timed) >= HUNG_BEFORE_LIMIT
        # (untimed timeouts its file printed before it: the ranks had waited out their timeout and
        # died before the scheduler's word, which a stop that caused them would precede)
        return any(f.time is None and f.file == limit.file and (f.line or 0) < (limit.line or 0) for f in timeouts)

    return [] if all(long_after(f) for f in initiators) else initiators


def _printed_before(initiators: Sequence[Finding], group: Sequence[Finding]) -> list[Finding]:
    """``initiators``, each untimed one that its file printed just before a stamped line of a
    finding of the same rank (or of none: a launcher's) which is itself earlier than every
    stamped initiator given that line's time (a combined log's
    unstamped OOM traceback, then the launcher's stamped teardown and the peers' network errors):
    the order of one file's lines is the order of its events."""
    timed = [f.time for f in initiators if f.time is not None]
    untimed = [f for f in initiators if f.time is None and f.file is not None and f.line is not None]
    if not timed or not untimed:
        return list(initiators)
    earliest = min(timed)
    later: dict[tuple[str, int | None], list[tuple[int, datetime]]] = defaultdict(list)
    for g in group:
        if g.time is not None and g.file is not None and g.line is not None:
            later[(g.file, g.rank)].append((g.line, g.time))
    bounded: dict[int, datetime] = {}
    for f in untimed:
        # (the nearest stamped line after it of the same writer: a summary table at the end of
        # the file stamps its rows with earlier times, at a second's resolution, and the tasks
        # of srun's combined output flush their lines in their own order)
        # (a launcher's own line, no rank's, is printed after the worker's it reacts to)
        mine = [*later.get((f.file or "", f.rank), ()), *(later.get((f.file or "", None), ()) if f.rank is not None else ())]
        after = min(((line, t) for line, t in mine if line > (f.line or 0)), default=None)
        if after is not None and after[1] < earliest:
            bounded[id(f)] = after[1]
    return [replace(f, time=bounded[id(f)]) if id(f) in bounded else f for f in initiators]




ROOT_CAUSE = "torch.elastic_root_cause"  # torchelastic's "Root Cause (first observed failure):" header
SUMMARY_ENTRY = "torch.elastic_summary_entry"  # a rank's entry in that table ("rank : 2 (local_rank: 2)")
ROOT_ENTRY_WITHIN = 12  # lines from the header to the end of the entry under it


def _first_to_exit(exits: Sequence[Finding], group: Sequence[Finding] = ()) -> tuple[Finding | None, bool]:
    """Of a launcher's reports of its processes' exits, the one of the process that exited first,
    by itself (an exit status of its own, not a signal), before any other (in the order of the
    launcher's lines, one file's, or else of their stamps; in torchelastic's failure table, the
    entry under its "Root Cause (first observed failure)" header, which it prints after the
    others), and whether it came from that table (whose processes are ranks); None when no such
    report."""
    under = _under_root_cause(exits, group)
    if under is not None:
        order = [under]
    elif len(exits) < 2:
        return None, False
    elif len({f.file for f in exits}) == 1 and all(f.line is not None for f in exits):
        order = sorted(exits, key=lambda f: f.line or 0)
    elif all(f.time is not None for f in exits):
        order = sorted(exits, key=lambda f: f.time or datetime.min)
        if order[0].time == order[1].time:
            return None, False
    else:
        return None, False
    first = order[0]
    own = (small_int(first.field("exitcode") or "") or 0) > 0 and first.field("signal") is None
    return (first, under is not None) if own else (None, False)


def _under_root_cause(exits: Sequence[Finding], group: Sequence[Finding]) -> Finding | None:
    """The exit torchelastic's failure table lists under its root-cause header (the process it saw
    fail first): an exit within a few lines after the header whose rank the table's entry there
    names. Where several tables (several nodes' agents) name one, the earliest failure's."""
    roots = [f for f in group if f.rule == ROOT_CAUSE and f.line is not None]
    if not roots:
        return None
    entries = {(f.file, f.rank, f.line) for f in group if f.rule == SUMMARY_ENTRY and f.line is not None}
    found = []
    for root in roots:
        top = root.line or 0
        for f in exits:
            if f.file != root.file or f.line is None or not 0 < f.line - top <= ROOT_ENTRY_WITHIN:
                continue
            if any((f.file, f.rank, top + k) in entries for k in range(1, ROOT_ENTRY_WITHIN + 1)):
                found.append(f)
    if not found:
        return None
    return min(found, key=lambda f: (f.time is None, f.time or datetime.min, f.line or 0))


def _launcher_exits(group: Sequence[Finding]) -> list[Finding]:
    """A launcher's reports of its ranks' exits (:data:`RULE_EXIT_CODE`, the rank known)."""
    return [f for f in group if f.rule == RULE_EXIT_CODE and f.rank is not None]


def _exception_text(f: Finding) -> str:
    """An exception line's text from its class on (without the rank's prefix), to find its copies."""
    return f.text[f.text.find(f.field("exc_type") or f.text):]


def _exited_first(best: Finding, untimed: Sequence[Finding], group: Sequence[Finding]) -> Finding:
    """``best``, or the same exception (rule and text after the rank's prefix) of the rank the
    launcher saw exit first by itself, where the launcher's processes are the ranks (every rank
    that raised it is below the number of exits it reports, and the nodes agree where known: under
    one torchrun a node, srun's task is a node, not a rank)."""
    exits = _launcher_exits(group)
    first, tabled = _first_to_exit(exits, group)
    if first is None or first.rank == best.rank:
        return best
    text = _exception_text(best)
    alike = [f for f in untimed if f.rule == best.rule and f.text.endswith(text)]
    # (torchelastic's table lists its own workers, the ranks; another launcher's tasks may be nodes)
    if any(f.rank is None or (f.rank >= len(exits) and not tabled) for f in alike):
        return best  # (ranks beyond the processes the launcher reports: its tasks are nodes, not ranks)
    same = [f for f in alike if f.rank == first.rank and (f.node is None or first.node is None or same_host(f.node, first.node))]
    return min(same, key=lambda f: f.line or 0) if same else best


def _launcher_first_rank(group: Sequence[Finding]) -> int | None:
    """The rank the launcher saw exit first by itself (:func:`_first_to_exit`), or None."""
    first, _ = _first_to_exit(_launcher_exits(group), group)
    return first.rank if first is not None else None


def _rank_exited_first(best: Finding, group: Sequence[Finding]) -> int | None:
    """For an exception whose lines name no rank, printed alike by several of one launcher's
    processes on one node, untimed: the rank the launcher saw exit first by itself (its failure
    table's root cause), else None."""
    if best.rank is not None or best.time is not None or best.rule != UNCAUGHT_EXCEPTION or best.node is None:
        return None
    exits = _launcher_exits(group)
    first, tabled = _first_to_exit(exits, group)
    if first is None or first.node is None or not same_host(best.node, first.node):
        return None
    text = _exception_text(best)
    alike = [f for f in group if f.rule == best.rule and f.role is Role.INITIATOR and f.time is None and f.text.endswith(text)]
    most = len(alike) if tabled else len(exits)
    if not 2 <= len(alike) <= most or any(f.rank is not None or f.node is None or not same_host(f.node, first.node)
                                          for f in alike):
        return None
    return first.rank


def _pick_primary(initiators: Sequence[Finding], group: Sequence[Finding] = ()) -> Finding:
    """The earliest initiator-grade evidence; within the clock-skew window hardware-class
    evidence (and OOM kills, preemption) wins over software errors, whose time order may be an
    artefact of skewed clocks."""
    # (one file's line order is its events' order, stamped or not: a peer gone after a death a
    # rank printed first; a launcher's report of exits comes whenever the launcher gets to it)
    initiators = _without_peer_losses_after_a_death(initiators, own_only=True)
    timed = [f for f in initiators if f.time is not None]
    untimed = [f for f in initiators if f.time is None]
    if not timed:
        deaths = [f for f in untimed if f.cause in DEATHS_OF_PEERS and (f.rank is not None or f.node is not None)]
        if deaths:
            # nothing timed: a located process's death explains a peer's "peer gone or network
            # error" lines (an OOM'd rank's peers on another node report its EFA or IB transfers
            # failing) - they do not outrank it
            # - not one its own file printed before any death there (its order is exact)
            def printed_first(f: Finding) -> bool:
                own = [d.line for d in deaths if d.file == f.file and d.line is not None]
                return bool(own) and f.line is not None and f.line < min(own)

            # - nor one whose named peer is known to be none of the dead processes' hosts (their
            # names are addresses, an EC2 name is one): towards another host, it stays the network's
            dead_at = {host_key(d.node) for d in deaths if d.node}

            def elsewhere(f: Finding) -> bool:
                peer = _peer_host(f)
                return (peer is not None and is_address(peer) and bool(dead_at)
                        and all(is_address(h) for h in dead_at) and peer not in dead_at)

            untimed = [f for f in untimed if not peer_gone(f) or printed_first(f) or elsewhere(f)] or untimed
        # among the same exception on several ranks, the rank that exited first by itself (srun's
        # "task 1: Exited with exit code 1" before "task 0: Terminated"): the others were stopped
        # after it, whatever order their untimed lines came in
        best = max(untimed, key=lambda f: (f.rank is not None or f.node is not None or f.gpu is not None, _strength(f),
                                           f.confidence, -(f.line or 0)))
        return _exited_first(best, untimed, group) if best.rule == UNCAUGHT_EXCEPTION else best
    earliest = min(f.time for f in timed if f.time is not None)
    timed = _without_peer_losses_after_first_death(timed, earliest + SKEW)
    window = _without_peer_losses_after_a_death([f for f in timed if f.time is not None and f.time <= earliest + SKEW]) + untimed
    if any(f.cause in DEATHS_OF_PEERS for f in window if f.time is not None):
        # an untimed "peer gone or network error" line cannot be placed before a stamped death
        # of a process, which explains it
        window = [f for f in window if not (f.time is None and peer_gone(f))] or window
    strong = [f for f in window if f.cause in STRONG and (f.rank is not None or f.node is not None or f.gpu is not None)]
    if strong:
        return max(strong, key=lambda f: (_strength(f), f.rank is not None, f.confidence, -_ts(f)))
    # a GPU's own fault that no prefix places (the ROCm runtime's "HW Exception by GPU node-4"),
    # stamped, or placed by its file's order, before the processes died: the deaths are its
    # consequence, and the rank is found from them
    gpu_faults = [f for f in window if f.cause in GPU_FAULTS and f.time is not None]
    if gpu_faults:
        return max(gpu_faults, key=lambda f: (_strength(f), f.confidence, -_ts(f)))
    close = [f for f in timed if f.time is not None and f.time <= earliest + TIE]
    located = [f for f in timed if f.rank is not None or f.node is not None or f.gpu is not None]
    if not any(f.rank is not None or f.node is not None or f.gpu is not None for f in close) and located:
        # evidence nobody can place (a launcher's own error) does not outrank a rank's
        close = [f for f in located if f.time is not None and f.time <= min(g.time for g in located if g.time) + TIE]
    close = _without_peer_losses_after_a_death(close)
    return max(close, key=lambda f: (f.rank is not None or f.node is not None, _strength(f), f.confidence, -_ts(f)))




def _without_peer_losses_after_a_death(close: Sequence[Finding], *, own_only: bool = False) -> list[Finding]:
    """``close`` (initiators within seconds of each other) without the network errors that a
    peer's loss explains, where the same file printed a process's own death before them: one
    file's line order is exact where a tie of stamps, or skewed clocks, are not. ``own_only``:
    a death a rank printed itself, not a launcher's report of its exit."""
    deaths = [f for f in close if f.cause in PROCESS_DEATHS and f.file is not None and f.line is not None
              and not (own_only and f.rule == RULE_EXIT_CODE)]
    if not deaths:
        return list(close)

    def after_a_death(f: Finding) -> bool:
        return (peer_gone(f) and f.line is not None
                and any(d.file == f.file and (d.line or 0) < f.line for d in deaths))

    kept = [f for f in close if not after_a_death(f)]
    return kept or list(close)


def _without_peer_losses_after_first_death(timed: Sequence[Finding], until: datetime) -> list[Finding]:
    """``timed`` without the network errors that name a peer gone ("got completion from peer ...
    with error", "remote process exited", a reset connection) stamped after the first death of a
    located process stamped by ``until`` (its own exception, OOM, fault or crash, or its data
    loader's worker killed), on whatever node: a process that dies tears its connections down,
    and its peers report exactly these errors a moment later. Skewed clocks could reverse a real
    network failure and the exception it caused, but a network failure's own exception is a
    network error, not one of these deaths."""
    deaths = [f.time for f in timed if f.time is not None and f.time <= until and f.cause in DEATHS_OF_PEERS
              and (f.rank is not None or f.node is not None)]
    if not deaths:
        return list(timed)
    first = min(deaths)
    kept = [f for f in timed if not (f.time is not None and f.time > first and peer_gone(f))]
    return kept or list(timed)


SLOWDOWN_LEAD = timedelta(minutes=30)  # a GPU deviation may be seen up to this long before the slowdown is
CORROBORATION = timedelta(hours=1)  # a rank's own evidence further from the first is another event


def _near(f: Finding, primary: Finding) -> bool:
    return f.time is None or primary.time is None or abs(f.time - primary.time) <= CORROBORATION


UNCAUGHT_EXCEPTION = "python.uncaught_exception"  # rules/python.yaml
RULE_MPIRUN_SIGNAL = "launcher.mpirun_signal"  # rules/launchers.yaml
RULE_PALS_EXIT = "launcher.pals_rank_exit"  # rules/launchers.yaml
# the causes a process's own exit code follows from (not a kill: a signal's exit is negative)
_OWN_ERRORS = frozenset({Cause.PYTHON_EXCEPTION, Cause.CUDA_OOM, Cause.ILLEGAL_MEMORY_ACCESS, Cause.COLLECTIVE_MISMATCH,
                         Cause.DATA_LOADER_STALL, Cause.UNKNOWN})
RULE_MPI_ABORT = "launcher.mpi_abort_invoked"  # rules/launchers.yaml
# the launcher lines that name the one process that gave up (Open MPI's MPI_Abort, MS-MPI's summary)
MPI_ABORT_RULES = frozenset({RULE_MPI_ABORT, "launcher.msmpi_exited_without_finalize"})
RULE_LAUNCH_FAILURE = "cuda.launch_failure"  # rules/cuda.yaml
GPU_FAULT_AFTER = timedelta(hours=1)
MAX_ZONE_GAP = timedelta(hours=14)  # two clocks' zones at most this far apart
FAULT_ZONE_SLACK_S = 120  # a kernel's fault this close to a whole zone's gap from the rank's line
SAME_PROCESS_WITHIN = timedelta(days=1)


def _gpu_fault_behind(primary: Finding, initiators: Sequence[Finding], node: str | None = None,
                      pid: int | None = None) -> Finding:
    """A rank's "unspecified launch failure" is what a process sees when its GPU falls off the bus;
    the kernel's fault for a GPU of that node, logged later than the time the rank's line was
    given (an unstamped traceback takes the time of the last stamped line before it, often the
    start of the job), is the failure, not the application. So is a fatal error of its NVLink
    (Xid 74), and a kernel's fault stamped a whole number of time zones from the rank's line (a
    kernel log in the node's local time beside a program's UTC) - not another GPU's, nor one
    hours away where the kernel's fault of the rank's own process at its moment (an Xid 13)
    already explains it; and one that names the rank's own process (``pid``: the rank's, where
    its line names none), whatever the clocks make of its time."""
    nodes = {f.node for f in initiators if f.node is not None}
    node = primary.node or node or (next(iter(nodes)) if len(nodes) == 1 else None)  # (or the run's one node)
    if primary.rule != RULE_LAUNCH_FAILURE or node is None or primary.time is None:
        return primary
    one_node = all(same_host(n, node) for n in nodes)  # (a kernel paste without host names: this node's)

    def close(gap: timedelta) -> bool:
        # (a zone's gap to within two minutes: the rank's line may take its time from a line
        # before it, and a gap of hours a few minutes off a zone's is another event)
        seconds = abs(gap).total_seconds()
        off = seconds % ZONE_STEP_S
        in_zones = ZONE_STEP_S <= seconds <= MAX_ZONE_GAP.total_seconds()
        return timedelta(0) <= gap <= GPU_FAULT_AFTER or (in_zones and min(off, ZONE_STEP_S - off) <= FAULT_ZONE_SLACK_S)

    # (not another GPU's fault, and none where the kernel's application fault of the rank's own
    # process, at its moment, already explains the launch failure)
    explained = any(f.cause is Cause.ILLEGAL_MEMORY_ACCESS and f.field("xid") is not None and f.time is not None
                    and abs(f.time - primary.time) <= SKEW for f in initiators)
    pid = primary.pid or pid

    def its_process(f: Finding) -> bool:  # (the kernel's line names the rank's process, within a day)
        return (pid is not None and f.pid == pid and f.node is not None and f.time is not None and primary.time is not None
                and abs(f.time - primary.time) <= SAME_PROCESS_WITHIN)

    later = [f for f in initiators if f.cause in (Cause.GPU_HARDWARE, Cause.NVLINK) and f.time is not None
             and (same_host(f.node, node) if f.node is not None else one_node)
             and (primary.gpu is None or f.gpu is None or f.gpu == primary.gpu)
             and (its_process(f) or (close(f.time - primary.time) and not (explained and f.time - primary.time > GPU_FAULT_AFTER)))]
    return min(later, key=lambda f: (f.time, -_strength(f))) if later else primary


RULE_ROCM_HW_EXCEPTION = "system.amdgpu_uncorrectable"  # rules/system.yaml, with the runtime's node_index


def _memory_fault_behind(primary: Finding, initiators: Sequence[Finding]) -> Finding:
    """A GPU hardware fault (a runtime's "GPU Hang" exception, a reset) with an uncorrectable
    memory error of a GPU of the same node (or rank) within the hour around it: the memory error
    is what failed (the more precise diagnosis; the exception and the reset follow from it). The
    same for an AMD GPU's link (xGMI) errors behind the ROCm runtime's exception."""
    if primary.cause is not Cause.GPU_HARDWARE or (primary.node is None and primary.rank is None):
        return primary
    # (and behind the ROCm runtime's "HW Exception by GPU node-N ... reason :GPU Hang", which says
    # only that the driver reset the GPU: an uncorrectable error of its xGMI links as well; an
    # NVIDIA GPU that fell off the bus is not explained so by its peers' NVLink errors after it)
    causes = {Cause.ECC_MEMORY, Cause.NVLINK} if primary.rule == RULE_ROCM_HW_EXCEPTION and primary.field(
        "node_index") is not None else {Cause.ECC_MEMORY}
    ecc = [f for f in initiators if f.cause in causes
           and ((f.node is not None and primary.node is not None and same_host(f.node, primary.node))
                or (f.rank is not None and f.rank == primary.rank))
           and (f.time is None or primary.time is None or abs(f.time - primary.time) <= GPU_FAULT_AFTER)
           and (primary.gpu is None or f.gpu is None or f.gpu == primary.gpu)]
    return min(ecc, key=lambda f: (f.cause is not Cause.ECC_MEMORY, f.time is None, _ts(f))) if ecc else primary


def _at_once(f: Finding, primary: Finding) -> bool:
    """``f`` was stamped within clock skew of ``primary`` (both stamped)."""
    return f.time is not None and primary.time is not None and abs(f.time - primary.time) <= SKEW


def _one_node(facts: RunFacts, node: str) -> bool:
    """Every host the run's findings and ranks name is ``node`` (spelt short or in full)."""
    named = {f.node for f in facts.findings if f.node} | {r.node for r in facts.ranks.values() if r.node}
    return all(same_host(n, node) for n in named)


_LOCAL_GID = re.compile(r"localGids? ?::ffff:(\d{1,3}(?:\.\d{1,3}){3})")


def _peer_host(f: Finding) -> str | None:
    """The host a network failure names as its peer ("10.0.35.162<53154>", "[10.0.1.17]:22780")."""
    peer = (f.field("peer") or "").split("<", 1)[0]
    if peer.startswith("["):
        peer = peer[1:].split("]", 1)[0]
    elif peer.count(":") == 1:
        peer = peer.split(":", 1)[0]
    return host_key(peer) if peer else None


def _named_by_the_peers(primary: Finding, initiators: Sequence[Finding],
                        group: Sequence[Finding]) -> tuple[Finding, set[str]]:
    """Among network failures on several nodes, each naming the peer it lost (NCCL's "Got
    completion from peer 10.0.35.162"), the node that most of the other nodes name: a link that
    failed on one node breaks every path to it, so its peers all name it while it names each of
    them. Its own network failure is the primary (the first of that node's), where one node is
    named by twice as many nodes as any other (two at least) and a line of its own says its address
    (NCCL's "localGid ::ffff:10.0.35.162") or its name is the address; else ``primary``."""
    network = [f for f in group if f.cause is Cause.NETWORK and f.node]
    named: dict[str, set[str]] = defaultdict(set)
    address: dict[str, str] = {}
    for f in network:
        node = host_key(f.node or "")
        m = _LOCAL_GID.search(f.text)
        if m:
            address.setdefault(m[1], node)
        peer = _peer_host(f)
        if peer and peer != node:
            named[peer].add(node)
    if not named:
        return primary, set()
    ranked = sorted(named.items(), key=lambda kv: -len(kv[1]))
    top, voters = ranked[0]
    runner_up = len(ranked[1][1]) if len(ranked) > 1 else 0
    if len(voters) < 2 or len(voters) < 2 * runner_up:
        return primary, set()  # (peers named alike: a switch or the fabric, no one node)
    node = address.get(top, top)
    lost = {top, node} | {"voter:" + v for v in voters}
    if host_key(primary.node or "") == node:
        return primary, lost
    own = [f for f in initiators if f.cause is Cause.NETWORK and f.node and host_key(f.node) == node]
    return (min(own, key=_ts), lost) if own else (primary, set())


ZONE_SPAN = timedelta(hours=14)  # the widest gap two time zones make


def _gpu_fault_behind_an_unknown_error(primary: Finding, initiators: Sequence[Finding]) -> Finding:
    """For a rank's error of no known cause (CUDA's "unknown error"), the kernel's fault of that
    rank's GPU (the same rank, GPU or, where neither is told, node), at the same time or a time
    zone apart (a kernel log read in local time beside the ranks' UTC): what the GPU did is the
    cause, the rank's error its consequence."""
    if primary.cause is not Cause.UNKNOWN:
        return primary

    def same_place(f: Finding) -> bool:
        if f.rank is not None and primary.rank is not None:
            return f.rank == primary.rank
        if f.gpu and primary.gpu:
            return f.gpu == primary.gpu and f.node == primary.node
        return f.node is not None and f.node == primary.node

    def same_time(f: Finding) -> bool:
        if f.time is None or primary.time is None:
            return True
        gap = abs(f.time - primary.time)
        return gap <= SKEW or (gap <= ZONE_SPAN and _a_zone_apart(gap))

    faults = [f for f in initiators if f.cause in GPU_FAULTS and same_place(f) and same_time(f)]
    return max(faults, key=lambda f: (_strength(f), f.confidence)) if faults else primary


SLURM_OOM_EVENT = "scheduler.slurm_oom_kill_event"  # rules/scheduler.yaml: "Detected 1 oom_kill event in StepId=..."
KILL_AND_OOM = timedelta(minutes=5)  # a SIGKILL's line (often stamped with the last line before it) and the OOM kill
OWN_PID_SPAN = timedelta(hours=2)  # the same pid on the same node: no other process had it since


def _ranks_on(facts: RunFacts, node: str) -> bool:
    """Whether the logs place some rank on ``node``."""
    return any(r.node is not None and same_host(r.node, node) for r in facts.ranks.values())


def _oom_behind_a_kill(kill: Finding, rank: int | None, node: str | None, facts: RunFacts) -> list[Finding]:
    """The OOM killer's lines that account for a rank's death by SIGKILL, within
    :data:`KILL_AND_OOM` of the kill: the kernel's kill of the pid the launcher names; on the
    rank's node, of a process whose pid is not known to be another's; or Slurm's "Detected 1
    oom_kill event" of the job's step. The kill of the rank's own pid also where the two clocks
    read a whole number of half hours apart (the kernel's in another zone), or up to
    :data:`OWN_PID_SPAN` apart (a line stamped with the time of the last stamped line before it).
    None when another rank died by SIGKILL with them (the victim is then not told apart)."""
    def gap(f: Finding) -> timedelta | None:
        return None if f.time is None or kill.time is None else abs(f.time - kill.time)

    def near(f: Finding) -> bool:
        apart = gap(f)
        if apart is None or apart <= KILL_AND_OOM:
            return True
        own = f.pid is not None and (f.pid == kill.pid or (rank is not None and f.rank == rank))
        return own and (apart <= OWN_PID_SPAN or (apart <= ZONE_SPAN and _a_zone_apart(apart)))

    def another_process(f: Finding) -> bool:  # (both pids known, not the same process)
        return kill.pid is not None and f.pid is not None and f.pid != kill.pid

    ooms = [f for f in facts.findings if f.cause is Cause.HOST_OOM_KILL and f.role is Role.INITIATOR and near(f)
            and ((f.node is not None and node is not None and same_host(f.node, node) and f.rank in (None, rank)
                  and not another_process(f))
                 or (kill.pid is not None and f.pid == kill.pid and f.rank in (None, rank)
                     and (f.node is None or node is None or same_host(f.node, node)))
                 or (f.rule == SLURM_OOM_EVENT and f.node is None and f.rank is None)
                 # (a run that names no host but the kernel log's, or none: the OOM kill stamped
                 # with the rank's kill)
                 or (node is None and f.rank is None and (f.node is None or _one_node(facts, f.node))
                     and not another_process(f) and (apart := gap(f)) is not None and apart <= KILL_AND_OOM))]
    if not ooms:
        return []
    killed = {f.rank for f in facts.findings if f.rule == RULE_EXIT_CODE and f.role is Role.INITIATOR
              and f.rank is not None and killed_by_sigkill(f) and near(f)}
    return ooms if killed <= {rank} else []


LOADING_TO_KILL = timedelta(minutes=15)  # a weight-loading bar and a SIGKILL that ended the loading
LOADING_TO_KILL_LINES = 200  # (the same where either line has no time: lines of the same file apart)


def _killed_loading_weights(kill: Finding, facts: RunFacts) -> Finding | None:
    """The weight-loading bar (rules/torch.yaml: Hugging Face's "Loading checkpoint shards") a
    rank killed by SIGKILL was drawing or had just drawn, with no training after it: the host's
    memory peak, so the OOM killer most likely sent the SIGKILL. The bar before the kill in the
    kill's own file (on its line, a bar the kill was printed behind, or up to
    :data:`LOADING_TO_KILL_LINES` lines before it), or in a file of the killed rank's own; within :data:`LOADING_TO_KILL` where both are stamped; no line of training
    progress after the bar in its file (training that began, or went on after the kill, was no
    loading). None when there is none, or where the scheduler says it stopped the job."""

    def close(bar: Finding) -> bool:
        if bar.time is not None and kill.time is not None:
            return -SKEW <= kill.time - bar.time <= LOADING_TO_KILL
        return bar.file == kill.file  # (lines of one file, counted apart below)

    if any(f.rule.startswith("scheduler.") and ("CANCELLED" in f.text or f.cause is Cause.PREEMPTION)
           for f in facts.findings):
        return None  # (the scheduler stopped the job - a cancel, a time limit, a preemption: its SIGKILL)
    bars = [f for f in facts.findings if f.rule == RULE_WEIGHT_LOADING and f.file is not None and f.line is not None
            and ((f.file == kill.file and kill.line is not None and 0 <= kill.line - f.line <= LOADING_TO_KILL_LINES)
                 or (kill.rank is not None and f.rank == kill.rank and f.time is not None and kill.time is not None))
            and close(f)]
    if not bars:
        return None
    bar = max(bars, key=lambda f: (f.time or datetime.min, f.line or 0))
    progress = facts.last_progress.get(bar.file or "")
    return bar if progress is None or progress <= (bar.line or 0) else None


def _failure_incident(group: Sequence[Finding], initiators: Sequence[Finding], facts: RunFacts) -> tuple[Incident, set[int]]:
    kept = _without_time_limits_after_failures(initiators, facts)
    ended = {id(f) for f in initiators} - {id(f) for f in kept}  # time limits a failure came before
    placed = _printed_before(kept, group)
    primary = _pick_primary(placed, group)
    if primary not in kept:  # (an untimed line its file printed first: itself, not its placed copy)
        primary = kept[placed.index(primary)]
    primary = _gpu_fault_behind_an_unknown_error(primary, kept)
    # the address and name of the node the others lost, and ("voter:" + host) the nodes that lost it:
    # their losses of it are its failure's
    lost_to: set[str] = set()
    if primary.cause is Cause.NETWORK:
        primary, lost_to = _named_by_the_peers(primary, kept, group)
    seen_by = primary
    info = facts.ranks.get(primary.rank) if primary.rank is not None else None
    behind = _gpu_fault_behind(primary, kept, info.node if info else None, info.pid if info else None)
    primary = _memory_fault_behind(behind, kept)
    rank, node = primary.rank, primary.node
    if primary is not seen_by and rank is None and (primary.gpu is None or not any(r.gpu for r in facts.ranks.values())):
        rank, node = seen_by.rank, node or seen_by.node  # the rank whose kernel launch failed was on that GPU
    if rank is None and primary.gpu is not None:
        rank = next((r.rank for r in facts.ranks.values() if r.gpu == primary.gpu and (node is None or r.node == node)), None)
    if rank is None and primary.pid is not None:
        # a kernel line names the process (the OOM killer's victim, a segfault): the rank whose
        # own failure line names the same process on that node
        rank = next((f.rank for f in initiators if f.rank is not None and f.pid == primary.pid
                     and (node is None or f.node is None or f.node == node)), None)
        if rank is None:  # the rank whose NCCL lines ran in that process (a host spelt short or in full)
            rank = next((r.rank for r in facts.ranks.values() if r.pid == primary.pid and r.node is not None
                         and node is not None and same_host(r.node, node)), None)
        if rank is None:  # mpirun's "process rank 2 with PID 191880 on node node72 exited on signal 11"
            rank = next((small_int(f.field("task") or "") for f in group if f.rule == RULE_MPIRUN_SIGNAL
                         and f.field("pid") == str(primary.pid) and f.field("task")
                         and (node is None or f.node is None or f.node == node)), None)
    if rank is None and primary is seen_by:
        rank = _rank_exited_first(primary, group)
    if node is not None and not (rank is not None and primary.rule == UNCAUGHT_EXCEPTION and rank == _launcher_first_rank(group)):
        # several ranks of the node report the same failure (a NIC link down): the one the
        # others point at, else the first (an exception placed on its rank is that rank's: the
        # launcher's first exit chose among copies)
        same = [f for f in initiators if f.rank is not None and f.node == node and f.cause == primary.cause
                and (f.time is None or primary.time is None or abs(f.time - primary.time) <= SKEW)]
        if len({f.rank for f in same}) > 1 or (rank is None and same):
            votes = _peer_votes(group, facts)
            rank = max(same, key=lambda f: (votes.get(f.rank, 0) if f.rank is not None else 0, -_ts(f))).rank
    if rank is None and node is not None and primary.cause in HARDWARE:
        # hardware evidence for the node only (an Xid without pid or bus id): the rank of that
        # node that died first is the one on the failed part
        others = [f for f in initiators if f.rank is not None and f.node == node]
        if not others and _one_node(facts, node):
            # a run on one node whose rank logs name no host (the node only in its kernel log): the
            # rank whose own line reported a hardware fault at that moment
            others = [f for f in initiators if f.rank is not None and f.node is None and f.cause in HARDWARE
                      and _at_once(f, primary)]
        if others:
            votes = _peer_votes(group, facts)
            rank = max(others, key=lambda f: (votes.get(f.rank, 0) if f.rank is not None else 0, -_ts(f))).rank
    if rank is None and node is not None and primary.cause in HARDWARE | {Cause.CRASH_SIGNAL} and not _ranks_on(facts, node):
        # the kernel's fault on a node no log places a rank on, and one rank whose own line
        # reports the same fault at that moment, its node not told: that rank ran there
        reporting = {f.rank for f in initiators if f.rank is not None and f.node is None and f.cause is primary.cause
                     and _at_once(f, primary)}
        if len(reporting) == 1:
            rank = reporting.pop()
    if rank is None and node is None and primary.cause is not None:
        # an error line no prefix places, and the monitored barrier's report of the peers names
        # the rank they got errors from ("... while waiting for send/recv from rank 0. Please check
        # rank 0 logs for faulty rank"): that rank's, where every such report names the same
        named = {small_int(f.field("peer_rank")) for f in group if f.rule == RULE_MONITORED_BARRIER_PEER}
        if len(named) == 1 and None not in named:
            rank = next(iter(named))
    if rank is None and primary.cause is not None and primary.cause is not Cause.NETWORK:
        # an error line no prefix places, then the launcher names the one rank of that node that
        # exited with an error (DeepSpeed: "['--local_rank=5', ...] exits with return code = 1")
        exited = {f.rank for f in group if f.rule == RULE_EXIT_CODE and f.rank is not None and f.node == node
                  and f.field("exitcode") not in ("-15", "-2", "-1")
                  and (f.time is None or primary.time is None or f.time >= primary.time - TIE)}
        if not exited and node is None and primary.cause in _OWN_ERRORS:
            # the one rank that exited with an error code of its own (srun's "task 109: Exited with
            # exit code 1") while the others were killed by a signal (the teardown's aborts)
            exited = {f.rank for f in group if f.rule == RULE_EXIT_CODE and f.rank is not None
                      and (small_int(f.field("exitcode") or "") or 0) > 0}
            if len(exited) != 1:
                exited = set()
        if not exited and node is None:
            # Cray PALS names the one rank that exited with an error ("host: rank 110 exited with
            # code 1"; the others "died from signal 15"): the unplaced error line is that rank's
            pals = {(f.rank, f.node) for f in group if f.rule == RULE_PALS_EXIT and f.rank is not None
                    and (f.time is None or primary.time is None or f.time >= primary.time - TIE)}
            if len(pals) == 1:
                (pals_rank, node), = pals
                exited = {pals_rank}
        if not exited and node is None:
            # srun names the node of every task that exited with an error ("srun: error: ga007: task
            # 0: Exited with exit code 1"): all on one node, the unplaced error line is that node's
            hosts = {f.node for f in group if f.rule == RULE_EXIT_CODE and f.node is not None
                     and f.field("exitcode") not in ("-15", "-2", "-1", "0")}
            if len(hosts) == 1 and _one_node(facts, next(iter(hosts)) or ""):
                node = hosts.pop()
        if len(exited) == 1:
            rank = exited.pop()
        if rank is None and (node is None or _one_node(facts, node)):
            # Open MPI names the one process that called MPI_Abort ("MPI_ABORT was invoked on rank
            # 1 in communicator MPI_COMM_WORLD"): the unplaced error line before it is that rank's
            aborted = {small_int(f.field("abort_rank") or "") for f in group if f.rule in MPI_ABORT_RULES
                       and (f.time is None or primary.time is None or f.time >= primary.time - TIE)}
            if len(aborted) == 1:
                rank = aborted.pop()
    kernel_gpu = None
    if node is None and rank is not None and primary.cause in HARDWARE:
        # the rank's own hardware error, its host unnamed, and the kernel's fault of that moment
        # on the one node the run names: that node's (and that GPU's) fault
        seen = [f for f in initiators if f.node is not None and f.rank is None and f.cause in HARDWARE
                and _at_once(f, primary)]
        if seen and _one_node(facts, seen[0].node or ""):
            node, kernel_gpu = seen[0].node, next((f.gpu for f in seen if f.gpu), None)
    if primary.cause is Cause.COLLECTIVE_MISMATCH:
        rank = _mismatch_culprit(group) if _mismatch_culprit(group) is not None else rank
        node = None if rank != primary.rank else node
    info = facts.ranks.get(rank) if rank is not None else None
    gpu = primary.gpu or (info.gpu if info else None) or kernel_gpu
    pid = primary.pid if primary.pid is not None else (info.pid if info else None)
    node = node or (info.node if info else None)
    own = [f for f in group if f.role is not Role.COLLATERAL and _same_origin(f, rank, node, gpu, pid)
           and _near(f, primary)]
    if not any(f is primary for f in own):
        # the deciding line is always evidence, also when it cannot be placed on a rank or node
        own.insert(0, primary)
    own_initiators = [f for f in own if f.role is Role.INITIATOR and id(f) not in ended] or [primary]
    best = max(own_initiators, key=lambda f: (_strength(f), f.confidence))
    if primary is not behind and any(f is primary for f in own_initiators):
        best = primary  # (the memory or link fault behind a GPU's generic fault: the precise diagnosis)
    cause = best.cause or Cause.UNKNOWN
    unplaced_cause = False
    if cause is Cause.UNKNOWN:
        # the rank's own lines say only that it died (a launcher's "worker died"); lines that no
        # prefix places say what failed, all the same thing (vLLM's workers print "Failed: Cuda
        # error ... 'an illegal memory access was encountered'" with no rank): their cause
        said = [f for f in initiators if f.rank is None and f.node is None and f.gpu is None and _near(f, primary)
                and f.attempt == primary.attempt and f.cause is not None and f.cause is not Cause.UNKNOWN]
        if said and len({f.cause for f in said}) == 1:
            best = max(said, key=lambda f: (_strength(f), f.confidence))
            cause = best.cause or Cause.UNKNOWN
            own += [f for f in said if f not in own]
            unplaced_cause = True
    # an exit by SIGKILL with an OOM-killer line for that pid or node is an OOM kill; a SIGKILL
    # with nothing else said names the rank that was killed but not who killed it (the OOM killer
    # most often, else a person or the scheduler): the cause stays unknown, and the explanation
    # and advice say what to look at
    confidence = best.confidence * 0.9
    inferred: str | None = None
    if unplaced_cause:  # the rank's death and the error may not be the same process's
        confidence = min(confidence, 0.6)
    if cause is Cause.CRASH_SIGNAL and any(f.cause is Cause.HOST_OOM_KILL for f in own):
        cause = Cause.HOST_OOM_KILL
    elif cause is Cause.CRASH_SIGNAL and killed_by_sigkill(best) and (oom := _oom_behind_a_kill(best, rank, node, facts)):
        cause = Cause.HOST_OOM_KILL
        own += [f for f in oom if not any(f is g for g in own)]
    elif cause is Cause.CRASH_SIGNAL and killed_by_sigkill(best) and (bar := _killed_loading_weights(best, facts)):
        # no OOM-killer line read, but the rank was killed as it read its model's weights into host
        # memory (with nothing trained after): the OOM killer's most likely, said as inferred
        cause, confidence = Cause.HOST_OOM_KILL, min(confidence, 0.5)
        own.append(bar)
        inferred = ("no OOM-killer line was read, but it was killed while its process read the model's weights "
                    "into host memory (the host's memory peak), so the OOM killer most likely sent it")
    elif cause is Cause.CRASH_SIGNAL and killed_by_sigkill(best):
        cause, confidence = Cause.UNKNOWN, min(confidence, 0.5)
    kinds = {f.rule.split(".")[0] for f in own_initiators}
    if len(kinds) > 1:
        confidence += 0.08
    if rank is None and cause not in (Cause.PREEMPTION,) and node is None:
        confidence *= 0.6
    collateral = _collateral(group, rank, facts)
    if cause is Cause.PREEMPTION:
        rank = primary.rank
    initiator = _initiator_for(rank, node, facts, own)
    if initiator.gpu is None and gpu is not None:
        initiator = replace(initiator, gpu=gpu)
    if cause is Cause.NETWORK:  # the node's own NIC/IB lines corroborate (and decide the drain)
        mine = {(f.rule, f.file, f.line, f.text, f.rank) for f in own}  # (a set: a run of thousands of findings)
        own += [f for f in group if (f.rule, f.file, f.line, f.text, f.rank) not in mine
                and _near(f, primary) and local_adapter_evidence(f, node)]
    evidence = list(own) + [f for f in group if f.role is Role.COLLATERAL]
    incident = _build(cause, initiator, evidence, collateral, confidence, facts, inferred_by=inferred)
    used = {id(f) for f in own}
    if lost_to:  # the other nodes' losses of that node: its failure's, no incident of their own
        used |= {id(f) for f in group if f.cause is Cause.NETWORK and _near(f, primary) and (
            _peer_host(f) in lost_to or (f.field("peer") is None and "voter:" + host_key(f.node or "") in lost_to))}
    return incident, used


# torchrun's agent restarting its worker group (rules/torch.yaml), Ray Train's controller retrying
# (rules/launchers.yaml)
RULES_GROUP_RESTART = frozenset({"torch.elastic_group_restart", "launcher.ray_train_retry"})
RESTART_PROGRESS_LINES = 20  # lines of training progress after a restart that say the job recovered
RESTART_TEARDOWN = timedelta(seconds=60)
RECOVERED_FROM = "recovered_from"  # a field of a finding of an attempt the job recovered from


def _made_context(facts: RunFacts, recovered: Callable[[Finding], bool]) -> RunFacts:
    """``facts`` with the findings ``recovered`` says the job recovered from made context, cause
    none, and marked so (:data:`RECOVERED_FROM`): no reading of a failure takes them up again
    (a traceback of the attempt restarted from, its exception line missing)."""
    findings = tuple(replace(f, role=Role.CONTEXT, cause=None, fields=(*f.fields, (RECOVERED_FROM, f.role.value)))
                     if recovered(f) else f for f in facts.findings)
    return replace(facts, findings=findings)


def _recovered(facts: RunFacts) -> RunFacts:
    """``facts`` with the failures of an attempt that torchrun's agent (or Ray Train's controller)
    restarted from, where the training went on after the restart in that agent's output (its last progress line well after
    it), made context: the job recovered (a transient error, a worker the restart replaced). A
    GPU, memory or link fault is kept (the node is still suspect); failures after the restart
    are the next attempt's and stay."""
    restarts = [f for f in facts.findings if f.rule in RULES_GROUP_RESTART and f.line is not None
                and facts.last_progress.get(f.file or "", 0) > f.line + RESTART_PROGRESS_LINES]
    if not restarts:
        return _recovered_in_attempt_folders(facts)
    by_file = {f.file: max(r.line or 0 for r in restarts if r.file == f.file) for f in restarts}
    times = [r.time for r in restarts if r.time is not None]
    last_time = max(times) if times else None

    def before(f: Finding) -> bool:
        if (f.cause in HARDWARE and f.cause is not Cause.NETWORK) or f.role is Role.CONTEXT:
            return False
        if f.file in by_file and f.line is not None and f.line < by_file[f.file]:
            return True
        if f.file in by_file and f.role is not Role.COLLATERAL:
            return False  # (the restarted attempt's own failures, after the restart line)
        # (other agents' output: what they printed up to the restart, and its teardown around it)
        return last_time is not None and f.time is not None and f.time < last_time + RESTART_TEARDOWN

    return _recovered_in_attempt_folders(_made_context(facts, before))


MAX_RECOVERED = 5  # failures recovered from, said in a report at most


def recovered_from(facts: RunFacts) -> list[str]:
    """The failures the job recovered from (:func:`_recovered`: its workers restarted and trained
    on), one line each, in time order: what a report says beside its incidents, or in place of
    them ("no incident: the job recovered")."""
    seen: set[tuple[int | None, str]] = set()
    out: list[str] = []
    findings = _recovered(facts).findings
    marked = [f for f in findings if f.field(RECOVERED_FROM) == Role.INITIATOR.value]
    if not marked:  # (an attempt that failed in a collective timeout alone: its ranks' timeouts)
        marked = [f for f in findings if f.field(RECOVERED_FROM) == Role.COLLATERAL.value]
    # (by attempt, then time: the first attempt's lines may have no time, a later one's do)
    marked.sort(key=lambda f: (f.attempt or 0, f.time is None, f.time.timestamp() if f.time else 0.0, f.file or "", f.line or 0))
    for f in marked:
        if (f.rank, f.rule) in seen:
            continue
        seen.add((f.rank, f.rule))
        who = f"rank {f.rank}" if f.rank is not None else (f.node or "a process")
        where = f"{f.file}:{f.line}" if f.file and f.line is not None else (f.file or "")
        out.append(f"{who}: {f.rule} ({where}): {f.text.strip()[:200]}")
        if len(out) >= MAX_RECOVERED:
            break
    return out


# torchrun --log-dir's folder of one attempt of its worker group (sources/runs.py reads the same)
# (the innermost attempt folder, right above the local rank's: a requeue wrapper's own "attempt_1/"
# around torchrun's log dir is another thing)
_TORCHRUN_ATTEMPT = re.compile(r"(?:^|/)(?P<run>(?:[^/]*/)*?[^/]*)/?attempt_(?P<n>[0-9]{1,4})/[0-9]{1,5}/[^/]+$")


def _recovered_in_attempt_folders(facts: RunFacts) -> RunFacts:
    """``facts`` with the failures of torchrun's earlier attempts made context where its last
    attempt's folder (``<run_id>_<random>/attempt_N/<local_rank>/``, written after the agent
    restarted the workers) shows no failure and training went on in it
    (:data:`RESTART_PROGRESS_LINES` lines or more, a line of progress among them): the restart
    line :func:`_recovered` reads is logged at INFO only, which torchrun does not print by default,
    but its folders say the same. A GPU, memory or link fault is kept. Each torchrun run's folders
    apart (several jobs' side by side). The other files' failures (the console the agent and the
    workers wrote to, the kernel's) go with them where the run is one torchrun run and they came
    before its last attempt began - and nothing is read so where one of them fails after that (the
    last attempt's own failure, a worker killed without a word of its own); where there are
    several runs, only a console's copy of a line the earlier attempts' folders hold goes."""
    names = {*facts.file_lines, *(f.file for f in facts.findings if f.file)}  # (and torchrun's error.json)
    where = {name: m for name in names if (m := _TORCHRUN_ATTEMPT.search(name.replace("\\", "/")))}
    if not where:
        return facts
    runs: dict[str, dict[str, int]] = defaultdict(dict)
    for name, m in where.items():
        runs[m["run"]][name] = int(m["n"])
    failed = [f for f in facts.findings if f.role is not Role.CONTEXT and f.cause is not Cause.STRAGGLER]
    clean = {run for run, attempts in runs.items()
             if (last := max(attempts.values())) > 0 and not any(attempts.get(f.file or "") == last for f in failed)}
    trained = {run for run in clean if any(n == max(runs[run].values()) and facts.last_progress.get(name, 0) >= RESTART_PROGRESS_LINES
                                           for name, n in runs[run].items())}
    # (the other nodes' agents of a job whose last attempt trained on, where only its first rank
    # prints steps: their last attempt as far, and clean)
    lasts = {max(runs[run].values()) for run in trained}
    recovering = {run for run in clean if max(runs[run].values()) in lasts}
    recovered: set[str] = set()  # the files of the attempts a run recovered from
    starts: list[datetime] = []
    for run in recovering:
        attempts = runs[run]
        last = max(attempts.values())
        recovered |= {name for name, n in attempts.items() if n < last}
        starts += [t for name, n in attempts.items() if n == last and (t := facts.file_starts.get(name)) is not None]
    began = min(starts) if starts else None
    if not any(f.file in recovered for f in failed):
        return facts
    one_run = recovering == set(runs)  # (one job's agents all: its consoles are its own)

    def outside(f: Finding) -> bool | None:
        """Whether a finding outside the attempt folders came before the last attempt began:
        True, False, or None where nothing tells (no time to compare)."""
        if f.time is not None and began is not None:
            return f.time < began
        if f.line is not None and facts.last_progress.get(f.file or "", 0) > f.line + RESTART_PROGRESS_LINES:
            return True  # (training went on in its own file well after it)
        return None

    if one_run and any(f.file not in where and not outside(f) for f in failed):
        return facts
    copies = {(f.rank, f.rule, f.text.strip()[-200:]) for f in facts.findings if f.file in recovered}

    def before(f: Finding) -> bool:
        if f.cause in HARDWARE and f.cause is not Cause.NETWORK:
            return False
        if f.file in where:
            return f.file in recovered
        if one_run:
            return outside(f) is True
        return (f.rank, f.rule, f.text.strip()[-200:]) in copies

    return _made_context(facts, before)


# a folder of one attempt of a job, among its siblings: "attempt-2", "try_3", "restart1"; or a
# job id under a folder of attempts ("attempts/8875833/", "requeues/8875901/")
_ATTEMPT_DIR = re.compile(r"^(?:attempt|try|retry|restart|requeue|run)[-_]?(?P<n>[0-9]{1,6})$", re.IGNORECASE)
_ATTEMPTS_PARENT = re.compile(r"^(?:attempts|tries|retries|restarts|requeues|resubmits|jobs)$", re.IGNORECASE)


def _folder_attempt(path: str) -> tuple[str, int] | None:
    """(the folder holding the attempts, the attempt's number) of a file in a folder of one
    attempt of a job (several attempts of a requeued or resubmitted job side by side); None
    otherwise."""
    parts = path.replace("\\", "/").split("/")[:-1]
    for i, part in enumerate(parts):
        m = _ATTEMPT_DIR.match(part)
        if m:
            return "/".join(parts[:i]), int(m.group("n"))
        if i > 0 and _ATTEMPTS_PARENT.match(parts[i - 1]) and part.isdigit() and len(part) <= 12:
            return "/".join(parts[:i]), int(part)
    return None


def _with_folder_attempts(findings: Sequence[Finding]) -> tuple[list[Finding], int | None]:
    """``findings`` given the attempt their folder names (numbered from 0, in the order of the
    attempts' numbers or job ids) where the run holds the folders of two or more attempts of one
    job and no torchrun attempt is known; and the last attempt's number (None: no such folders).
    A finding outside them (a kernel log beside them) keeps no attempt: it goes with the attempt
    its time falls in."""
    if any(f.attempt is not None for f in findings):
        return list(findings), None
    where = {f.file: _folder_attempt(f.file) for f in findings if f.file}
    keys = {w for w in where.values() if w is not None}
    parents = {p for p, _n in keys}
    if len(parents) != 1 or len(keys) < 2:
        return list(findings), None
    order = {n: i for i, n in enumerate(sorted(n for _p, n in keys))}
    out = [replace(f, attempt=order[w[1]]) if f.file and (w := where.get(f.file)) is not None else f for f in findings]
    last = len(order) - 1
    (parent,) = parents
    if _PREVIOUS_DIR.search(parent):
        # the folders hold the earlier attempts only ("previous-attempts/restart-1/"): the logs
        # outside them that began after the last of those had ended are the current attempt's
        ended = max((f.time for f in out if f.attempt == last and f.time is not None), default=None)
        began: dict[str, datetime] = {}
        for f in out:
            if f.attempt is None and f.file and f.time is not None:
                began[f.file] = min(began.get(f.file, f.time), f.time)
        current = {file for file, t in began.items() if ended is not None and t > ended}
        if current:
            out = [replace(f, attempt=last + 1) if f.file in current else f for f in out]
            last += 1
    return out, last


# a run's own word that it ended well: torchrun's agent's "worker group successfully finished", a
# script's success line (rules/torch.yaml, rules/python.yaml)
_SUCCEEDED = frozenset({"torch.elastic_group_succeeded", "python.run_succeeded"})
RULE_RESTART_COUNT = "scheduler.slurm_restart_count"  # rules/scheduler.yaml: Slurm's requeue of the job
# a folder of a job's earlier attempts, kept beside the current one's logs
_PREVIOUS_DIR = re.compile(r"(?:^|/)(?:previous|prev|old|earlier|past)(?:[-_ ]?(?:attempts?|runs?|restarts?|logs?))?(?:/|$)", re.IGNORECASE)


RULE_IB_ASYNC = "nccl.ib_async_event"  # rules/nccl.yaml: an adapter's asynchronous event


def _after_a_clean_last_attempt(incidents: list[Incident], last_attempt: int, facts: RunFacts, *,
                                routine_only: bool = False) -> list[Incident]:
    """``incidents`` without the earlier attempts' where no failure of the job's last attempt is
    left (and it said it ended well): the job was resubmitted after them and its last attempt ran
    well; a node an earlier attempt's fault was on was replaced or is left to its own check. (An
    adapter's port error in the last attempt, which it trained on after to its good end, is a
    port that flapped and came back: no failure of it.) With ``routine_only`` (the job restarted
    by itself), only the earlier attempts' preemptions go."""
    def flapped(f: Finding) -> bool:
        return f.attempt == last_attempt and f.rule == RULE_IB_ASYNC and f.field("event") == "port error"

    incidents = [i for i in incidents if not (any(f.attempt == last_attempt for f in i.evidence) and all(
        flapped(f) for f in i.evidence if f.role is Role.INITIATOR))]
    if any(any(f.attempt == last_attempt for f in i.evidence) for i in incidents):
        return incidents
    if any(f.attempt == last_attempt and f.role is not Role.CONTEXT and f.cause is not Cause.STRAGGLER
           and not flapped(f) for f in facts.findings):
        return incidents
    # (but a GPU's, its memory's or its links' fault on a node the last attempt ran on again, or
    # where its lines name no host: still suspect, as after a restart torchrun's agent made)
    again = {h.split(".")[0].lower() for h in (*facts.last_attempt_hosts, *facts.last_attempt_nodes)}

    def nodes(i: Incident) -> set[str]:
        # (its initiator's node; else the nodes its own evidence names: a GPU lost on no named
        # node, its rank's NCCL lines naming the host)
        if i.initiator.node is not None:
            return {i.initiator.node.split(".")[0].lower()}
        return {f.node.split(".")[0].lower() for f in i.evidence if f.node and f.role is Role.INITIATOR}

    if routine_only:
        return [i for i in incidents if i.cause is not Cause.PREEMPTION]
    return [i for i in incidents if i.cause in GPU_FAULTS and (not again or not nodes(i) or nodes(i) & again)]


def attribute(facts: RunFacts) -> list[Incident]:
    """All incidents of a run, most important first (machine faults before others, then time;
    where the run holds several attempts of a job in folders of their own, the last attempt's
    first: the earlier ones failed before it was resubmitted)."""
    facts = _recovered(facts)
    incidents: list[Incident] = []
    attempted, last_attempt = _with_folder_attempts(facts.findings)
    in_folders = last_attempt is not None
    if last_attempt is None:
        last_attempt = facts.last_file_attempt  # (a requeued job's files, one an attempt)
    if last_attempt is not None:
        facts = replace(facts, findings=tuple(attempted))
    failure_findings = _peer_died_first(_aborts_by_the_watchdog(_deaths_after_timeouts(_crashes_after_a_lost_peer(
        _recovery_actions_after_a_fault(
            [f for f in facts.findings if f.cause is not Cause.STRAGGLER and not f.rule.startswith(RULE_GPU_OUTLIER)
             and f.field(RECOVERED_FROM) is None])))),
        facts)
    # (where a job's attempts are known, after its last attempt's workers exited: an earlier
    # attempt's exits say nothing of when the job ended)
    late = _after_the_job(failure_findings if last_attempt is None else
                          [f for f in failure_findings if f.attempt in (None, last_attempt)], facts)
    later_incidents: list[Incident] = []
    if late:
        # a machine fault after every worker had exited is no cause of this run's end: an incident
        # of its own (its node is still bad), after the run's
        later_incidents = [_failure_incident(late, late, facts)[0]]
        gone = {id(f) for f in late}
        failure_findings = [f for f in failure_findings if id(f) not in gone]
    for group in _group_by_attempt(failure_findings, untimed_last=facts.last_file_attempt is not None,
                                   last_hosts=facts.last_attempt_hosts):
        initiators = _without_time_limits_long_after_timeouts(
            [f for f in group if f.role is Role.INITIATOR and f.cause is not None and f.rule != RULE_STALL], group, facts)
        hung = finish_incident(group, facts, stopped_by=initiators) if initiators else None
        if hung is not None:
            # a rank hung on the way out until the scheduler ended the job (its time limit)
            incidents.append(hung)
        elif initiators:
            incident, used = _failure_incident(group, initiators, facts)
            incidents.append(incident)
            # an independent hardware fault on another node is its own incident
            rest = [f for f in initiators if id(f) not in used and f.cause in HARDWARE and f.node is not None
                    and f.node != incident.initiator.node
                    # (its peers' "remote process exited or network error" after a process died)
                    and not (incident.cause in PROCESS_DEATHS and peer_gone(f))]
            if rest:
                second, _ = _failure_incident([f for f in group if f.node != incident.initiator.node], rest, facts)
                incidents.append(second)
        else:
            # ranks that finished and a rank that did not (a teardown hang, a rank that ran out of
            # data) before what the collateral evidence alone points at
            inferred = finish_incident(group, facts) or _infer(group, facts)
            if inferred is None or (inferred.cause is Cause.UNKNOWN and inferred.initiator.rank is None
                                    and inferred.initiator.node in (None, sole_host(facts))):
                # (the run's one host names no more than that the failure happened there)
                # (collateral that says only that something failed, an NCCL "internal error": the
                # last words that name a cause say more - a peer refusing every connection)
                fallback = last_resort(group, facts)
                if fallback is not None and (inferred is None or _names_its_cause(fallback)
                                             or _spawned_child_raised(fallback, facts)):
                    inferred = fallback
            if inferred is not None:
                incidents.append(inferred)
    incidents = [ras_rank_behind(i, facts) or data_prep_straggler(i, facts) or main_first_straggler(i, facts)
                 or checkpoint_save_straggler(i, facts)
                 or interrupted(i, facts) or storage_stall(i, facts) or loader_dump_behind(i, facts) or oom_victim_task(i, facts)
                 or crashed_rank(i, facts)
                 or slowed_then_stopped(i, facts) or i for i in incidents]
    incidents = _joined_rank_and_node(incidents, facts)
    incidents.extend(_stragglers(facts))
    if not incidents:
        incidents.extend(_unfinished(facts))
    incidents.extend(later_incidents)
    late_faults = _faults_after_the_failure(incidents)
    incidents.sort(key=lambda i: (any(i is x for x in later_incidents),
                                  not i.remediation.drain_node or any(i is x for x in late_faults),
                                  i.cause is Cause.STRAGGLER,
                                  i.first_evidence_time.timestamp() if i.first_evidence_time else float("inf")))
    if last_attempt is not None:
        incidents.sort(key=lambda i: not any(f.attempt == last_attempt for f in i.evidence))
        if (last_attempt == facts.last_file_attempt and facts.last_attempt_ended_well) or (in_folders and any(
                f.attempt == last_attempt and f.rule in _SUCCEEDED for f in facts.findings)):
            # (a requeued job's last file, or its last attempt's folder, said it ended well; where
            # the scheduler or the orchestrator restarted it by itself, Slurm's requeue with its
            # restart count or a JobSet's restart, nobody mended anything between: only a
            # preemption before it was routine, another failure is still what went wrong)
            counts: dict[str | None, set[str | None]] = defaultdict(set)
            for f in facts.findings:
                if f.rule == RULE_RESTART_COUNT:
                    counts[f.file].add(f.field("n"))
            # (the requeues appended to one output: two restart counts or more in one file)
            routine = in_folders or any(len(n) >= 2 for n in counts.values())
            incidents = _after_a_clean_last_attempt(incidents, last_attempt, facts, routine_only=routine)
    return _straggler_before_a_stop(incidents, facts)


def _joined_rank_and_node(incidents: list[Incident], facts: RunFacts) -> list[Incident]:
    """``incidents`` with two readings of one fault made one: a rank's own line of a hardware
    fault or a crash (its node not told) and the kernel's line of the same fault on a node no log
    places a rank on, both at once (within :data:`SKEW`): that rank on that node, with both lines."""
    kinds = HARDWARE | {Cause.CRASH_SIGNAL}
    out = list(incidents)
    for ranked in incidents:
        if ranked.cause not in kinds or ranked.initiator.rank is None or ranked.initiator.node is not None:
            continue
        if ranked.first_evidence_time is None:
            continue
        placed = [i for i in out if i is not ranked and i.cause is ranked.cause and i.initiator.rank is None
                  and i.initiator.node is not None and i.first_evidence_time is not None
                  and abs(i.first_evidence_time - ranked.first_evidence_time) <= SKEW
                  and not _ranks_on(facts, i.initiator.node)]
        if len(placed) != 1 or not any(i is ranked for i in out):
            continue
        node = placed[0]
        initiator = replace(ranked.initiator, node=node.initiator.node, gpu=ranked.initiator.gpu or node.initiator.gpu)
        seen = {id(f) for f in node.evidence}
        evidence = [*node.evidence, *(f for f in ranked.evidence if id(f) not in seen)]
        joined = _build(ranked.cause, initiator, evidence, ranked.collateral_ranks, max(ranked.confidence, node.confidence),
                        facts)
        out = [joined if i is node else i for i in out if i is not ranked]
    return out


AFTER_THE_JOB = timedelta(minutes=5)  # a machine fault this long after the last worker's exit
ZONE_STEP_S = 1800  # clocks read in different zones differ by whole half hours
ZONE_SLACK_S = 300


def _after_the_job(findings: Sequence[Finding], facts: RunFacts) -> list[Finding]:
    """The machine faults (a GPU, its memory or links, a NIC) that came more than
    :data:`AFTER_THE_JOB` after the launcher saw every worker of the run exit (its exit records name
    every rank the run holds, each with its time): a GPU that fell off the bus a quarter of an hour
    after the job's workers were gone did not end it. None where an exit has no time or a rank
    none, and for a gap that clocks in different zones would make (the fault may have come first)."""
    exits = [f for f in findings if f.rule == RULE_EXIT_CODE]
    if not exits or any(f.rank is None for f in exits) or not facts.ranks:
        return []
    if not set(facts.ranks) <= {f.rank for f in exits}:
        return []
    ends = [f.time for f in exits if f.time is not None]
    if len(ends) < len(exits):
        # the launcher's records have no time (srun's "task 4: Exited with exit code 1"): Slurm's
        # own "*** STEP n ON host CANCELLED AT t ***" says when the step's workers were ended
        ends = [f.time for f in findings if f.rule == SLURM_STEP_ENDED and f.field("time") and f.time is not None]
        if not ends:
            return []
    end = max(ends)
    late = [f for f in findings if f.role is Role.INITIATOR and f.cause in HARDWARE and f.time is not None
            and f.time > end + AFTER_THE_JOB and not _a_zone_apart(f.time - end)]
    if not late:
        return []
    first_late = min(f.time for f in late if f.time is not None)
    return [f for f in findings if f.cause in HARDWARE and f.time is not None and f.time >= first_late
            and f.role is not Role.CONTEXT]


AFTER_THE_FAILURE = timedelta(minutes=2)  # a NIC fault this long after another failure began ...
WITHIN_THE_RUN = timedelta(hours=1)  # ... and not this long (an earlier attempt's failure, days before)


def _faults_after_the_failure(incidents: Sequence[Incident]) -> list[Incident]:
    """The network incidents that drain a node and began more than :data:`AFTER_THE_FAILURE`
    (and less than :data:`WITHIN_THE_RUN`) after another incident (not a straggler's) had: a NIC
    that lost its cable four minutes after a rank's data loader timed out did not start the run's
    failure, so it is not put first for being a machine's fault (it still drains its node). A NIC's
    link fails at once; a GPU's fault may be logged minutes after the ranks saw it (a heartbeat,
    a firmware timeout), so GPU faults keep their place. Not for a gap clocks in different zones
    would make."""
    starts = [i.first_evidence_time for i in incidents if not i.remediation.drain_node
              and i.cause is not Cause.STRAGGLER and i.first_evidence_time is not None]

    def late(i: Incident) -> bool:
        t = i.first_evidence_time
        return t is not None and any(AFTER_THE_FAILURE < t - s < WITHIN_THE_RUN and not _a_zone_apart(t - s)
                                     for s in starts)

    return [i for i in incidents if i.remediation.drain_node and i.cause is Cause.NETWORK and late(i)]


def _a_zone_apart(gap: timedelta) -> bool:
    """A gap that two clocks read in different time zones would make (a kernel log stamped with its
    zone, the launcher's times without one): within :data:`ZONE_SLACK_S` of a whole half hour."""
    seconds = gap.total_seconds()
    if seconds < ZONE_STEP_S - ZONE_SLACK_S:
        return False
    off = seconds % ZONE_STEP_S
    return min(off, ZONE_STEP_S - off) <= ZONE_SLACK_S


def _unfinished(facts: RunFacts) -> list[Incident]:
    """Where nothing in the run is a failure, a benchmark run its harness started and never said
    it stopped (:data:`RULE_RUN_UNFINISHED`): a failure of unknown cause, on no rank (a stop from
    outside where the capture ends on a terminal's ^C)."""
    ended = next((f for f in facts.findings if f.rule == RULE_RUN_UNFINISHED), None)
    if ended is None:
        return []
    lead = replace(ended, role=Role.INITIATOR, cause=Cause.PREEMPTION if ended.field("interrupted") else Cause.UNKNOWN)
    incident, _ = _failure_incident([lead], [lead], facts)
    return [incident]


def _names_its_cause(incident: Incident) -> bool:
    """A last-resort incident whose lines name a cause of their own (a peer refusing every
    connection, a port in use), not one read into them (a traceback cut before its exception: the
    collateral error's own, likely; a cancelled step: what ended the job, not what failed)."""
    return incident.cause is not Cause.UNKNOWN and all(
        f.rule not in LAST_RESORT_CAUSE and f.cause is incident.cause for f in incident.evidence if f.role is Role.CONTEXT)


def _spawned_child_raised(incident: Incident, facts: RunFacts) -> bool:
    """A last-resort incident read from a traceback that torch.multiprocessing.spawn printed under
    its "-- Process N terminated with the following error:" header: the parent's word that this
    child raised (the first of its children to fail), its traceback the child's own even where the
    paste cut it before the exception line -- not a collateral error's."""
    return incident.cause is Cause.PYTHON_EXCEPTION and _spawned_traceback(
        [f for f in incident.evidence if f.rule in LAST_RESORT_CAUSE], facts) is not None


def _straggler_before_a_stop(incidents: list[Incident], facts: RunFacts) -> list[Incident]:
    """``incidents`` with a rank's straggling first where the one failure is the job being stopped
    from outside with nothing failing before (a signal or a cancellation no rank is named for):
    a job that ran slow for a rank and was then ended (often by a person who saw it crawl) is
    told first what was wrong with it; the stop stays the second incident. The stop may name the
    node its word was printed on (the batch host's "CANCELLED ... DUE TO TIME LIMIT", the tasks
    srun saw terminated); the straggler names its rank, its node or its GPU, or is a GPU's own
    report of slowing its clocks (nvidia-smi's "HW Slowdown: Active" pasted beside the console), on
    a node of the job's where the logs say which nodes those are. Not where the scheduler says it
    preempted the job (the stop is then the scheduler's, whatever ran slow)."""
    if len(incidents) < 2 or incidents[0].cause is not Cause.PREEMPTION or incidents[0].remediation.drain_node:
        return incidents
    stop = incidents[0]
    if stop.initiator.rank is not None or any("preempt" in f.rule for f in stop.evidence if f.role is Role.INITIATOR):
        return incidents
    nodes = [r.node for r in facts.ranks.values() if r.node]

    def on_the_job(i: Incident) -> bool:
        node = i.initiator.node
        return node is None or not nodes or any(same_host(node, n) for n in nodes)

    slow = next((i for i in incidents if i.cause is Cause.STRAGGLER and _names_the_slow_one(i) and on_the_job(i)), None)
    if slow is None or any(i.cause not in (Cause.PREEMPTION, Cause.STRAGGLER) for i in incidents):
        return incidents
    return [slow, *(i for i in incidents if i is not slow)]


# rules/xid.yaml: nvidia-smi's clock event reasons (-q's words, a node check's report); not a row of
# --query-gpu's mask (one row of a periodic monitor may catch a passing slowdown) nor a narrowed PCIe
# link (two GPUs of a workstation split x8/x8 both show one)
CLOCK_SLOWDOWNS = frozenset({"xid.gpu_clock_slowdown_active", "xid.gpu_clock_slowdown_reported"})


def _names_the_slow_one(incident: Incident) -> bool:
    """A straggler incident that says which rank, node or GPU was slow, or rests on a GPU's own
    report of slowing down."""
    who = incident.initiator
    return (who.rank is not None or who.node is not None or who.gpu is not None
            or any(f.rule in CLOCK_SLOWDOWNS for f in incident.evidence))


# a process that died of its own failure: its peers' transfers to it fail after it
_OWN_DEATHS = frozenset({Cause.PYTHON_EXCEPTION, Cause.CUDA_OOM, Cause.ILLEGAL_MEMORY_ACCESS, Cause.CRASH_SIGNAL,
                         Cause.HOST_OOM_KILL, Cause.GPU_HARDWARE, Cause.ECC_MEMORY, Cause.DATA_LOADER_STALL})


RULE_RECOVERY_ACTION = "xid.recovery_action_reset"  # rules/xid.yaml: Xid 154, what the driver asks to be done
RECOVERY_AFTER = timedelta(minutes=2)  # a recovery action this soon after a GPU's fault is that fault's


def _recovery_actions_after_a_fault(findings: Sequence[Finding]) -> list[Finding]:
    """``findings`` with each Xid 154 (the driver asking for a GPU reset or a reboot) made context
    where an Xid of the same GPU (the same node when the GPU is not named) that says what failed
    - its NVLink, its memory, the GPU itself - came before it, in the same file or within
    :data:`RECOVERY_AFTER`: the action follows that fault and its cause is the fault's (an NVLink
    error that needs a reset is an NVLink fault); the fault still drains the node."""
    faults = [f for f in findings if f.role is Role.INITIATOR and f.cause in HARDWARE and f.rule != RULE_RECOVERY_ACTION
              and f.field("xid") is not None]
    if not faults:
        return list(findings)

    def follows(action: Finding) -> bool:
        for f in faults:
            if f.node != action.node or (f.gpu and action.gpu and f.gpu != action.gpu):
                continue
            if f.time is not None and action.time is not None:
                if timedelta(0) <= action.time - f.time <= RECOVERY_AFTER:
                    return True
            elif f.file == action.file and f.line is not None and action.line is not None and f.line < action.line:
                return True
        return False

    return [replace(f, role=Role.CONTEXT) if f.rule == RULE_RECOVERY_ACTION and f.role is Role.INITIATOR and follows(f)
            else f for f in findings]


_LOCAL_GID = re.compile(r"\blocalGid ::ffff:([0-9]{1,3}(?:\.[0-9]{1,3}){3})\b")


def _peer_died_first(findings: Sequence[Finding], facts: RunFacts) -> list[Finding]:
    """``findings`` with each network error that names its peer (an InfiniBand completion error
    "from peer 10.0.14.110<37564>") made collateral, cause none, when a rank on that peer's host
    has initiator-grade evidence of dying of its own failure (an exception, an OOM, a crash, a GPU
    fault; the rank's node from its line or from the run's index): the transfers to a dead process
    fail, and the survivors report its host as their peer. A peer named by its address is placed
    by the errors' own "localGid" (the address of the rank that printed it), or, in a job of two
    nodes, as the other one; there the death must have come first (:func:`_not_after`)."""
    died = [(host_key(node), f) for f in findings if f.role is Role.INITIATOR and f.cause in _OWN_DEATHS
            and (node := f.node or (facts.ranks[f.rank].node if f.rank is not None and f.rank in facts.ranks else None))]
    if not died:
        return list(findings)
    deaths = [(host, f.rule) for host, f in died]
    dead = {host for host, _rule in deaths}
    # (the host of an address: an InfiniBand error's line names its own, "localGid ::ffff:10.1.2.3";
    # a host known so is dead where its rank's own words say so, not a launcher's exit code alone:
    # a SIGABRT there is as often the watchdog's own abort after the peer's error)
    hosts = {m[1]: f.node for f in findings if f.node and f.field("peer") is not None
             and (m := _LOCAL_GID.search(f.text)) is not None}
    said = {host for host, rule in deaths if rule != RULE_EXIT_CODE}
    # (of a job of two nodes, a peer that is not the rank's own address is the other node)
    nodes = {host_key(r.node) for r in facts.ranks.values() if r.node}

    def to_the_dead(f: Finding) -> bool:
        peer = f.field("peer")
        if f.role is not Role.INITIATOR or f.cause is not Cause.NETWORK or peer is None:
            return False
        address = peer.split("<", 1)[0]
        if address not in hosts and len(nodes) == 2 and f.node and host_key(f.node) in nodes and is_address(address) and (
                (own := _LOCAL_GID.search(f.text)) is not None and own[1] != address):
            hosts[address] = next(n for n in nodes if n != host_key(f.node))
        where = host_key(hosts.get(address, address))
        if address in hosts and not any(host == where and _not_after(d, f) for host, d in died):
            return False  # (a host known by its address only: its death must come first, not at the teardown)
        # (a peer on the rank's own host: the dead process beside it)
        return where in (dead if address not in hosts else said) and (
            host_key(f.node or "") not in dead or where == host_key(f.node or ""))

    return [replace(f, role=Role.COLLATERAL, cause=None) if to_the_dead(f) else f for f in findings]


def _not_after(death: Finding, error: Finding) -> bool:
    """Whether ``death`` may have come before ``error``: stamped no later than a minute after it,
    or above it in the same file; unknown orders (no times, other files) may."""
    if death.time is not None and error.time is not None:
        return death.time <= error.time + LOST_PEER_WITHIN
    if death.file == error.file and death.line is not None and error.line is not None:
        return death.line < error.line
    return True


_LOST_PEER = ("closed", "reset", "peer_lost", "remote", "connection_lost")
LOST_PEER_WITHIN = timedelta(seconds=60)


RULE_WATCHDOG = "nccl.watchdog_timeout"  # rules/nccl.yaml
COLLECTIVE_TIMEOUTS = frozenset({RULE_WATCHDOG, "nccl.blocking_wait_timeout"})  # (the waiting call's own report too)
DEATH_AFTER_TIMEOUT = frozenset({"launcher.ray_worker_died"})  # rules/launchers.yaml


def _deaths_after_timeouts(findings: Sequence[Finding]) -> list[Finding]:
    """``findings`` with a launcher's report that a worker died, for no reason it gives, made
    collateral when it came after ranks of the attempt had already timed out in a collective:
    Ray's "actor died" after the NCCL watchdog took the workers down is that teardown, not
    what started it. A report without a time counts so when a timeout is above it in its file."""
    first: dict[int | None, datetime] = {}
    first_line: dict[tuple[str | None, int | None], int] = {}  # (a report without a time: a timeout above it in its file)
    for f in findings:
        if f.rule in COLLECTIVE_TIMEOUTS and f.time is not None and (f.attempt not in first or f.time < first[f.attempt]):
            first[f.attempt] = f.time
        if f.rule in COLLECTIVE_TIMEOUTS and f.line is not None:
            key = (f.file, f.attempt)
            first_line[key] = min(first_line.get(key, f.line), f.line)
    if not first and not first_line:
        return list(findings)

    def after(f: Finding) -> bool:
        if f.time is not None:
            return f.attempt in first and f.time >= first[f.attempt]
        line = first_line.get((f.file, f.attempt))
        return line is not None and f.line is not None and f.line > line

    return [replace(f, role=Role.COLLATERAL) if f.rule in DEATH_AFTER_TIMEOUT and f.role is Role.INITIATOR
            and after(f) else f for f in findings]


RULE_HEARTBEAT_ABORT = "torch.heartbeat_monitor_abort"  # rules/torch.yaml: the NCCL watchdog aborts its process
RULE_LIGHTNING_CRASH = "launcher.lightning_child_crashed"  # rules/launchers.yaml
# what a rank's NCCL watchdog prints as it takes its process down (after a timeout or an error)
_WATCHDOG_TAKEDOWN = frozenset({RULE_HEARTBEAT_ABORT, "torch.nccl_teardown", "torch.watchdog_thread_terminated"})
_SIGABRT = re.compile(r"\bSIGABRT\b|[Ss]ignal:? 6\b|code -6\b")
_CLOCK = re.compile(r"[0-9]{2}:[0-9]{2}:[0-9]{2}")  # a time of day in a line: the line's own stamp
WATCHDOG_ABORT_WITHIN = timedelta(minutes=1)  # a worker's SIGABRT this close to the ranks' collective timeouts is theirs


def _aborts_by_the_watchdog(findings: Sequence[Finding]) -> list[Finding]:
    """``findings`` with a report that a process died of SIGABRT (Lightning's code -6, the
    multiprocessing launcher's "terminated with signal SIGABRT") made collateral (cause none) when
    the NCCL watchdog of that rank said, earlier in the same file and attempt, that it was taking
    the process down: the abort is the watchdog's, after a timeout or a collective's error, as
    torchrun's -6 exits after a timeout are read. A report that names no rank (the launcher's
    process index) counts so after any rank's takedown above it in its file; one that names its
    rank, after that rank's takedown in another file (a notebook's cell output beside the server's
    log), where the two are on one node, in that order where both are stamped, and the report's
    own file said nothing else failed before it. torchrun's word that a worker died of SIGABRT
    (exit code -6) counts so within :data:`WATCHDOG_ABORT_WITHIN` of any rank's collective timeout
    (a crash that hung its peers comes a collective's timeout before theirs)."""
    taken_down: dict[tuple[str | None, int | None], list[tuple[int, int | None]]] = defaultdict(list)
    # (in another file: when, and on which node)
    rank_taken_down: dict[tuple[int, int | None], list[tuple[datetime | None, str | None]]] = defaultdict(list)
    for f in findings:
        if f.rule in _WATCHDOG_TAKEDOWN and f.line is not None:
            taken_down[(f.file, f.attempt)].append((f.line, f.rank))
            if f.rank is not None:
                rank_taken_down[(f.rank, f.attempt)].append((f.time, f.node))
    if not taken_down:
        return list(findings)

    def own_failure_before(f: Finding) -> bool:
        # (its file said first that its process failed by itself: "terminate called after throwing")
        return any(g.file == f.file and g.line is not None and g.line < (f.line or 0) and g is not f
                   and ((g.role is Role.INITIATOR and g.cause is not None and g.rule != f.rule)
                        or g.rule == "torch.cpp_terminate") for g in findings)

    # (the times of the ranks' collective timeouts, stamped on their own lines: a crash takes its
    # peers down at once too, by their NCCL errors, but no peer times out within a minute of it)
    timeout_times = [f.time for f in findings if f.rule == RULE_WATCHDOG and f.time is not None
                     and _CLOCK.search(f.text or "") is not None]

    def the_watchdogs(f: Finding) -> bool:
        if f.line is None or f.role is not Role.INITIATOR:
            return False
        if f.rule == RULE_EXIT_CODE:
            # torchrun's word that a worker died of SIGABRT within a minute of the ranks' collective
            # timeouts (its own watchdog's line perhaps not in what was kept)
            return (f.field("exitcode") == "-6" and f.time is not None
                    and any(abs(t - f.time) <= WATCHDOG_ABORT_WITHIN for t in timeout_times))
        if f.rule == RULE_LIGHTNING_CRASH:
            if f.field("exitcode") != "-6":
                return False
        elif f.cause is not Cause.CRASH_SIGNAL or f.rule == RULE_EXIT_CODE or not _SIGABRT.search(f.text or ""):
            return False
        if any(line < f.line and (f.rank is None or rank == f.rank) for line, rank in taken_down.get((f.file, f.attempt), ())):
            return True
        # the rank's own takedown in another file (its log, the launcher's report of its death in
        # the console): no later than the death where both are stamped, on the same node where both
        # name one, and the report's own file saying nothing else failed before it
        return (f.rank is not None and not own_failure_before(f)
                and any((t is None or f.time is None or t <= f.time)
                        and (node is None or f.node is None or same_host(node, f.node))
                        for t, node in rank_taken_down.get((f.rank, f.attempt), ())))

    return [replace(f, role=Role.COLLATERAL, cause=None) if the_watchdogs(f) else f for f in findings]


def _crashes_after_a_lost_peer(findings: Sequence[Finding]) -> list[Finding]:
    """``findings`` with each crash (a fatal signal) made collateral when its own rank said first
    that a peer was gone (gloo's "Connection closed by peer", a reset) and another rank of the
    attempt has initiator-grade evidence of its own: a process that segfaults or aborts while
    it tears down after losing its peer is the failure's consequence. (Said first: an earlier
    line of the same file, or a time no later than the crash's and within a minute of it.)"""
    lost = [f for f in findings if f.role is Role.COLLATERAL and f.rank is not None
            and any(h in f.rule for h in _LOST_PEER)]
    if not lost:
        return list(findings)

    def after_loss(f: Finding) -> bool:
        return any(g.rank == f.rank and g.attempt == f.attempt and (
            (g.file is not None and g.file == f.file and g.line is not None and f.line is not None and g.line < f.line)
            or (g.time is not None and f.time is not None and timedelta(0) <= f.time - g.time <= LOST_PEER_WITHIN))
            for g in lost)

    crashes = [f for f in findings if f.role is Role.INITIATOR and f.cause is Cause.CRASH_SIGNAL
               and f.rank is not None and after_loss(f)]
    others = [f for f in findings if f.role is Role.INITIATOR and f.cause is not None
              and not any(f is c for c in crashes)]
    demoted = {id(c) for c in crashes if any(o.rank != c.rank and o.attempt == c.attempt for o in others)}
    return [replace(f, role=Role.COLLATERAL, cause=None) if id(f) in demoted else f for f in findings]


def _stragglers(facts: RunFacts) -> list[Incident]:
    out = []
    # (a rule's evidence of a slow GPU, nvidia-smi's throttle reasons, may name no rank: one
    # incident for those; the step-time detectors' name their rank, or the node whose ranks are
    # all slower)
    flagged = [f for f in facts.findings if f.cause is Cause.STRAGGLER and f.role is Role.INITIATOR
               and (f.rank is not None or f.node is not None or not f.rule.startswith("stats.")
                    or (f.rule == RULE_STRAGGLER and f.field("ranks") is not None))]  # (a block of ranks no log places on a node)
    by_rank: dict[int | None, list[Finding]] = defaultdict(list)
    for f in flagged:
        by_rank[f.rank].append(f)
    outliers = [f for f in facts.findings if f.rule.startswith(RULE_GPU_OUTLIER)]
    for rank, found in sorted(by_rank.items(), key=lambda kv: (kv[0] is None, kv[0] or 0)):
        info = facts.ranks.get(rank) if rank is not None else None
        node = found[0].node or (info.node if info else None)
        gpu = found[0].gpu or (info.gpu if info else None)
        support = [o for o in outliers if (rank is not None and o.rank == rank) or (gpu is not None and o.gpu == gpu) or
                   (o.rank is None and o.gpu is None and node is not None and o.node == node)]
        if gpu is None:
            gpu = next((o.gpu for o in support if o.gpu), None)
        initiator = _initiator_for(rank, node, facts, found + support)
        if initiator.gpu is None and gpu is not None:
            initiator = replace(initiator, gpu=gpu)
        confidence = max(f.confidence for f in found) * (0.95 if support else 0.75)
        megatron = next((f for f in found if f.rule == RULE_MEGATRON_STRAGGLER), None)
        why = (f"Megatron's straggler detector named rank {rank} the slowest in {megatron.field('reports')} of its last "
               f"{megatron.field('of_reports')} reports, its round trip {megatron.field('spread')} times the fastest "
               "rank's" if megatron is not None else None)
        reported = next((f for f in found if f.rule == RULE_SLOWEST_STRAGGLER), None)
        if why is None and reported is not None:
            why = (f"the job's step-time reports named rank {rank} the slowest in {reported.field('reports')} of the last "
                   f"{reported.field('of_reports')}, its time {reported.field('spread')} times the ranks' typical time")
        block = next((f.field("ranks") for f in found if f.rule == RULE_STRAGGLER and f.rank is None and f.node is None
                      and f.field("ranks")), None)
        if why is None and block is not None and initiator.node is None:
            why = (f"ranks {block}, a node's worth of consecutive ranks, are slower together and the others wait "
                   "for them; no line says which node runs them")
        out.append(_build(Cause.STRAGGLER, initiator, found + support, (), confidence, facts, inferred_by=why))
    out.extend(_slow_job_on_a_deviating_gpu(facts, outliers, {i.initiator.gpu for i in out}))
    return out


def _slow_job_on_a_deviating_gpu(facts: RunFacts, outliers: Sequence[Finding], known: set[str | None]) -> list[Incident]:
    """In synchronous data parallel every rank slows down with the slowest GPU: the logs say that
    the job slowed (a slowdown, or a stall still going on at the end), only the GPU metrics say
    which GPU. A slowdown fused with a GPU that deviates on performance metrics (clocks,
    throttling, power) in the same period names that GPU, its node and its rank; drained only on
    hardware evidence.

    A pause that resumed (a checkpoint, an evaluation) is not a slowdown. The GPU must be able to
    account for the slowdown (:func:`_explains`): its SM clock down by at least half the job's
    slowdown, or a slowdown clock-event reason set in most of its samples; a few power-cap dips
    on a noisy GPU while the job slows for another reason (storage, network) name no GPU. When
    several GPUs qualify, those with hardware slowdown reasons are named, else all of them."""
    slow = [f for f in facts.findings
            if f.rule == RULE_SLOWDOWN or (f.rule == RULE_STALL and f.role is Role.INITIATOR)]
    if not slow:
        return []
    start = min((f.time for f in slow if f.time is not None), default=None)
    rel = max((field_float(f.field("change")) for f in slow if f.rule == RULE_SLOWDOWN), default=0.0)
    best: dict[str, Finding] = {}
    for o in sorted(outliers, key=lambda o: (-o.confidence, -abs(field_float(o.field("score"))))):
        if o.confidence < 0.7 or o.gpu is None or o.gpu in known or o.gpu in best:
            continue  # only performance or hardware deviations name a GPU
        if start is not None and o.time is not None and o.time < start - SLOWDOWN_LEAD:
            continue  # a deviation that ended before the job slowed down explains nothing
        if not _explains(o, rel):
            continue
        best[o.gpu] = o
    candidates = list(best.values())
    chosen = [o for o in candidates if o.field("hardware") == "true"] or candidates
    out = []
    for o in chosen:
        rank = o.rank if o.rank is not None else _rank_of_gpu(facts, o)
        initiator = _initiator_for(rank, o.node, facts, [o])
        initiator = replace(initiator, gpu=o.gpu, node=o.node or initiator.node)
        hw = o.field("hardware") == "true"
        out.append(_build(Cause.STRAGGLER, initiator, [o, *slow], (), 0.85 if hw else 0.6, facts,
                          inferred_by=_fusion_text(slow, o)))
    return out


MOST_SAMPLES = 0.5  # a slowdown reason set in at least this share of a GPU's samples more than its peers'
CLOCK_SHARE = 0.5  # or its SM clock down by at least this share of the job's slowdown ...
MIN_CLOCK_DEFICIT = 0.05  # ... and at least this much


def _explains(o: Finding, rel: float) -> bool:
    """Whether a GPU's deviation can account for a job slowdown of ``rel`` (0.18: 18 %; 0 for a
    stall): a GPU that holds every all-reduce back by that much runs its clock that much lower
    or sits throttled most of the time. Clock-event counters (DCGM_EXP_CLOCK_EVENTS_COUNT) carry
    no share: with a hardware reason they qualify."""
    clock, peers = field_float(o.field("sm_clock")), field_float(o.field("sm_clock_peers"))
    if clock > 0 and peers > 0 and 1.0 - clock / peers >= max(MIN_CLOCK_DEFICIT, CLOCK_SHARE * rel):
        return True
    share = field_float(o.field("clock_events")) - field_float(o.field("clock_events_peers"))
    if share >= MOST_SAMPLES:
        return True
    return o.field("clock_event_count") is not None and o.field("hardware") == "true"


def _rank_of_gpu(facts: RunFacts, o: Finding) -> int | None:
    """The one rank on the GPU: by PCI id (NCCL's busId in the logs), else by host and GPU index
    = local rank (one GPU per local rank)."""
    ranks = [r.rank for r in facts.ranks.values() if r.gpu == o.gpu and (o.node is None or r.node == o.node)]
    if not ranks:
        index = o.field("gpu_index")
        ranks = [r.rank for r in facts.ranks.values()
                 if index is not None and o.node is not None and r.node == o.node and r.gpu is None
                 and r.local_rank is not None and str(r.local_rank) == index]
    return ranks[0] if len(ranks) == 1 else None


def _fusion_text(slow: Sequence[Finding], o: Finding) -> str:
    slowdown = next((f for f in slow if f.rule == RULE_SLOWDOWN), None)
    if slowdown is not None:
        change = field_float(slowdown.field("change"))
        what = (f"every rank's step time rose {change:+.0%} from step {slowdown.field('step')} (in synchronous "
                "data parallel all ranks wait for the slowest GPU)")
    else:
        what = "the job stopped making progress"
    deviation = o.text.split(" peers: ", 1)[1] if " peers: " in o.text else o.text
    deviation = deviation.split("; it runs rank", 1)[0]
    peers = o.field("peers")
    return f"{what} while this GPU deviated from its {peers + ' ' if peers else ''}peers: {deviation}"
