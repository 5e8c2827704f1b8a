"""When no rank left initiator-grade evidence: the rank the collateral evidence points at (a peer
named by an error, the rank missing from a collective or with the lowest completed sequence
number, the rank whose log went silent first, a stalled rank) and the culprit of a collective
mismatch."""

from __future__ import annotations

import dataclasses
import itertools
import re
from collections import Counter, defaultdict
from collections.abc import Collection, Mapping, Sequence
from datetime import datetime, timedelta

from detector.attribution.advice import keyboard_interrupt
from detector.attribution.incident import (
    PEER_LOST_HINTS,
    TIMEOUT_HINTS,
    _build,
    _collateral,
    _initiator_for,
)
from detector.support.hosts import host_key, names_a_host, same_host
from detector.support.numbers import field_float, small_int
from detector.types import (
    RULE_DATA_PREP,
    RULE_EXIT_CODE,
    RULE_HOROVOD_STALL,
    RULE_LOCAL_CLOSE,
    RULE_MAIN_FIRST,
    RULE_NCCL_PROXY,
    RULE_NCCL_TEARDOWN,
    RULE_PROGRESS_AFTER_TIMEOUT,
    RULE_SLOWDOWN,
    RULE_STACK_COLLECTIVE,
    RULE_STACK_LOADER,
    RULE_STALL,
    RULE_STRAGGLER,
    SIGNAL_SENT,
    STALL_WARNING_RULES,
    TERMINAL_LINES,
    Cause,
    Finding,
    Incident,
    Initiator,
    Role,
    RunFacts,
    Severity,
    tells_a_lost_peer,
)

# ProcessGroupNCCL's "[Rank 15]" (torch < 2.2) and the default group's "[PG 0 Rank 2]" / "[PG ID 0 PG
# GUID 0(default_pg) Rank 2]" (a subgroup's rank is no global rank)
_RANK_TAG = re.compile(r"\[(?:PG (?:ID )?0 (?:PG GUID 0(?:\([A-Za-z_]{0,40}\))? )?)?Rank ([0-9]{1,6})\]")


def _tagged_rank(text: str) -> int | None:
    m = _RANK_TAG.search(text)
    return small_int(m[1]) if m else None


def _peer_votes(group: Sequence[Finding], facts: RunFacts) -> Counter[int]:
    """Ranks that collateral evidence points at ("Connection closed by localRank 3")."""
    local_to_global = {(r.node, r.local_rank): r.rank for r in facts.ranks.values() if r.local_rank is not None}
    votes: Counter[int] = Counter()
    for f in group:
        if f.role is not Role.COLLATERAL:
            continue
        peer = small_int(f.field("peer_rank"))
        if peer is not None:
            votes[peer] += 1
        peer_local = small_int(f.field("peer_local_rank"))
        if peer_local is not None:
            g = local_to_global.get((f.node, peer_local))
            if g is not None and g != f.rank:
                votes[g] += 1
    return votes


def _mismatch_culprit(group: Sequence[Finding]) -> int | None:
    """The rank the mismatch reports name most: each rank names the peer it disagrees with, so
    the odd one out is named by all the others."""
    votes: Counter[int] = Counter()
    for f in group:
        if f.cause is not Cause.COLLECTIVE_MISMATCH:
            continue
        for key in ("peer_rank", "culprit_rank"):
            value = small_int(f.field(key))
            if value is not None:
                votes[value] += 1
    if not votes:
        return None
    top = votes.most_common(2)
    if len(top) == 1 or top[0][1] > top[1][1]:
        return top[0][0]
    return None


def _barrier_wait_ran_out(collateral: Sequence[Finding], rank: int) -> bool:
    """A monitored barrier named ``rank`` as the peer it got errors from and a timeout is among
    the collateral (gloo's "Timed out waiting 1800000ms for send operation"): the wait for that
    rank ran out, it never came (a rank that died would have left its own error)."""
    named = any(f.rule == "torch.monitored_barrier_peer_error" and small_int(f.field("peer_rank")) == rank
                for f in collateral)
    return named and any(any(h in f.rule for h in TIMEOUT_HINTS) for f in collateral)


def _as_ranks(value: str | None) -> list[int]:
    if not value:
        return []
    out = []
    for tok in value.replace("{", " ").replace("}", " ").replace(",", " ").replace("[", " ").replace("]", " ").split():
        rank = small_int(tok)
        if rank is not None:
            out.append(rank)
    return out


SMALL_WORLD = 1024  # up to this many ranks, the highest rank seen tells the ranks below it
MISMATCH_SEQ_SPAN = 4  # timeouts this close in sequence number are about the same point of the program


def _point_to_point(op: str) -> bool:
    """SEND / RECV (and their coalesced forms): work between two ranks, not a collective."""
    return "SEND" in op.upper() or "RECV" in op.upper()


def _timeouts_in_different_collectives(collateral: Sequence[Finding], facts: RunFacts) -> Incident | None:
    """Ranks that timed out at (nearly) the same sequence number but in different collectives
    (rank 0 in ALLGATHER #532341, ranks 1-2 in BROADCAST #532339) issued different collectives:
    a collective mismatch; the rank(s) of the minority operation are the culprit."""
    last: dict[int, tuple[str, int, Finding]] = {}
    timed = [f for f in collateral if f.rank is not None and f.field("op") is not None
             and small_int(f.field("seq"), digits=18) is not None and any(h in f.rule for h in TIMEOUT_HINTS)
             and not _point_to_point(f.field("op") or "")]  # (one rank's send is its peer's receive)
    timeouts = Counter(t for f in timed if (t := f.field("timeout_ms")) is not None)
    if len(timeouts) > 1:
        # watchdogs of process groups with different timeouts: each group numbers its own
        # collectives; compare the ranks within the group most of them timed out in (a line cut
        # before its timeout is kept)
        common = timeouts.most_common(1)[0][0]
        timed = [f for f in timed if f.field("timeout_ms") in (common, None)]
    groups = _groups_named(timed, {f.rank for f in timed if f.rank is not None})
    named = Counter(g for gs in groups.values() for g in gs)
    if len(named) > 1:
        # (ranks of several process groups, each calling and numbering its own collectives:
        # compared within the group most of them name, on the lines that name it or none)
        main = max(sorted(named), key=lambda g: named[g])
        timed = [f for f in timed if f.rank is not None and (not groups.get(f.rank) or main in groups[f.rank])
                 and ((pg := _PG_ID.search(f.text)) is None or _group_key(pg) == main)]
    for f in timed:
        op, seq = f.field("op") or "", small_int(f.field("seq"), digits=18) or 0
        if f.rank is not None and (f.rank not in last or seq < last[f.rank][1]):
            last[f.rank] = (op.upper(), seq, f)
    groups = _groups_named(timed, last)
    uneven = _uneven_sizes(last, groups)
    if uneven is not None:
        seq, sizes = uneven
        evidence = [f for _op, _s, f in last.values()]
        sizes_text = ", ".join(f"rank {r}: {n}" for r, n in sorted(sizes.items()))
        counts = Counter(sizes.values())
        (major, n_major), = counts.most_common(1)
        odd = [r for r, n in sizes.items() if n != major]
        rank = odd[0] if n_major >= 2 and len(odd) == 1 else None  # the one rank whose size no other has
        initiator = _initiator_for(rank, None, facts, evidence) if rank is not None else Initiator()
        return _build(Cause.COLLECTIVE_MISMATCH, initiator, evidence, _collateral(collateral, rank, facts),
                      0.6 if rank is not None else 0.45, facts,
                      inferred_by=f"the ranks timed out in the same collective #{seq} with different sizes ({sizes_text}): "
                                  "they passed tensors of different sizes to it")
    # (an all-to-all's splits differ by design, a mixture of experts' token dispatch: its size tells
    # another collective only where every rank but one shares it, three or more of them)
    splits = Counter(f.field("numel_in") for op, _seq, f in last.values() if op.startswith("ALLTOALL"))
    one_odd = len(splits) == 2 and min(splits.values()) == 1 and max(splits.values()) >= 3
    sized = {r: (f"{op}({f.field('numel_in')})" if not op.startswith("ALLTOALL") or one_odd else op, seq, f)
             for r, (op, seq, f) in last.items() if f.field("numel_in") is not None}
    if len({seq for _op, seq, _f in last.values()}) == 1 and len(sized) >= 2:
        # all at one sequence number: the same collective with another size is another collective,
        # among the ranks whose lines say their size (a line cut before it, an older torch's, tells
        # none: such a rank is left out of the comparison, not taken for another collective)
        last = sized
    ops = Counter(op for op, _seq, _f in last.values())
    seqs = [seq for _op, seq, _f in last.values()]
    behind = _behind_with_another_size(timed, last)
    if behind is not None:
        rank, text = behind
        evidence = [f for _op, _s, f in last.values()]
        return _build(Cause.COLLECTIVE_MISMATCH, _initiator_for(rank, None, facts, evidence), evidence,
                      _collateral(collateral, rank, facts), 0.5, facts,
                      inferred_by=f"the ranks timed out a few collectives apart with different sizes ({text}): the "
                                  f"others completed the collectives rank {rank} waits in, so they paired "
                                  "different collectives")
    if len(last) < 2 or len(ops) < 2:
        return None
    if max(seqs) - min(seqs) > MISMATCH_SEQ_SPAN and not _one_group_apart(timed, last):
        return None
    if max(seqs) - min(seqs) == 1 and len({op for op, seq, _f in last.values() if seq == min(seqs)}) < 2:
        # one apart: the ranks ahead completed #N (a broadcast's root, an eager send) and wait
        # in #N+1 while the rest never finished #N: the usual hang, one side stopped or slow
        # (unless the ranks at #N themselves disagree on what #N is)
        return None
    (major, n_major), (_minor, n_minor) = ops.most_common(2)
    culprits = sorted(r for r, (op, _s, _f) in last.items() if op != major)
    rank = culprits[0] if n_major > n_minor and len(culprits) == 1 else None
    evidence = [f for _op, _s, f in last.values()]
    ops_text = ", ".join(f"rank {r}: {op} #{seq}" for r, (op, seq, _f) in sorted(last.items()))
    initiator = _initiator_for(rank, None, facts, evidence) if rank is not None else Initiator()
    return _build(Cause.COLLECTIVE_MISMATCH, initiator, evidence, _collateral(collateral, rank, facts),
                  0.6 if rank is not None else 0.4, facts,
                  inferred_by=f"the ranks timed out in different collectives at the same point ({ops_text})")


def _rooted(op: str) -> bool:
    """A collective with a root (broadcast, reduce, scatter, gather), whose ranks do not all wait
    for each other: the root's sends, or the senders to it, complete without a stuck peer."""
    return op.upper().lstrip("_").removesuffix("_BASE").removesuffix("_COALESCED") in ("BROADCAST", "REDUCE", "SCATTER", "GATHER")


def _behind_with_another_size(timed: Sequence[Finding], last: Mapping[int, tuple[str, int, Finding]]
                              ) -> tuple[int, str] | None:
    """One rank that timed out two to :data:`MISMATCH_SEQ_SPAN` collectives behind all the others,
    in a collective of another size than any of theirs (rank 0 in ALLREDUCE #959 of 544,997,376
    elements, ranks 1-5 in ALLREDUCE #963 of 2,560), where their lines name no process group (an
    older torch's: the job's one numbering) or each the same one: a collective completes only
    when every rank launches it, so the others completed the collectives that rank still waits
    in with other calls of theirs. (rank, the ranks' collectives as text), else None; one apart
    is the usual hang (:func:`_timeouts_in_different_collectives`)."""
    if len(last) < 3 or any(_rooted(op) for op, _seq, _f in last.values()):
        return None  # (a broadcast's root, a reduce's senders, run ahead of a stuck peer by themselves)
    groups = _groups_named(timed, last)
    if groups and not (len(set().union(*groups.values())) == 1 and all(groups.get(rank) for rank in last)):
        return None
    seqs = sorted(seq for _op, seq, _f in last.values())
    low, second = seqs[0], seqs[1]
    if not (second - low >= 2 and seqs[-1] - low <= MISMATCH_SEQ_SPAN):
        return None
    sizes = {r: f.field("numel_in") for r, (_op, _seq, f) in last.items()}
    if any(size is None for size in sizes.values()):
        return None
    rank = next(r for r, (_op, seq, _f) in last.items() if seq == low)
    if any(sizes[rank] == size for r, size in sizes.items() if r != rank):
        return None
    text = ", ".join(f"rank {r}: {op} #{seq} of {sizes[r]}" for r, (op, seq, _f) in sorted(last.items()))
    return rank, text


def _groups_named(findings: Sequence[Finding], ranks: Collection[int]) -> dict[int, set[str]]:
    """The process groups ("[PG ID 0 ...]") each of ``ranks`` names in its lines among ``findings``."""
    groups: dict[int, set[str]] = defaultdict(set)
    for f in findings:
        if f.rank is not None and f.rank in ranks and (pg := _PG_ID.search(f.text)) is not None:
            groups[f.rank].add(_group_key(pg))
    return groups


def _one_group_apart(timed: Sequence[Finding], last: Mapping[int, tuple[str, int, Finding]]) -> bool:
    """Ranks whose watchdogs each name the same process group (every one of their timeout lines
    that names one) and time out in different operations far apart in that group's sequence
    (rank 1 in ALLREDUCE #2635, rank 0 in _REDUCE_SCATTER_BASE #2667, both of the default group):
    a collective completes only when every rank of its group launches it, so rank 0 finished
    #2635 with some other operation of rank 1's; their collectives were paired out of order.
    Not where a broadcast is among them (its root's eager sends run ahead of a stuck peer); the
    caller has left point-to-point work out already."""
    groups = _groups_named(timed, last)
    named = set().union(*groups.values()) if groups else set()
    return (len(named) == 1 and all(groups.get(rank) for rank in last)
            and not any(op.startswith("BROADCAST") for op, _seq, _f in last.values()))


RULE_FAILED_STACK = "torch.failed_collective_stack"  # rules/torch.yaml: the frames follow as its context
_STACK_FRAME = re.compile(r"^(?:\[rank[0-9]{1,7}\]:)?#(?P<n>[0-9]{1,3}) (?P<fn>\S{1,200}) from (?P<path>.{1,600}):(?P<line>[0-9]{1,7})\s*$")
_P2P_CALLS = frozenset({"send", "recv", "isend", "irecv", "batch_isend_irecv", "P2POp"})


def _launch_site(context: Sequence[str]) -> tuple[str, str] | None:
    """The collective a failed-collective stack launched (its first frame's function) and the
    first frame of the program's own code above PyTorch's (function, file and line), or None."""
    frames = [m for line in context if (m := _STACK_FRAME.match(line)) is not None]
    if not frames or frames[0]["n"] != "0":
        return None
    for m in frames[1:]:
        path = m["path"].replace("\\", "/")
        if "/torch/" not in path and not path.startswith("torch/"):
            return frames[0]["fn"], f"{m['fn']} ({path.rsplit('/', 1)[-1]}:{m['line']})"
    return None


def _failed_collectives_launched_apart(group: Sequence[Finding], facts: RunFacts) -> Incident | None:
    """Ranks of one process group whose watchdogs printed the stack of the collective that timed
    out, launched from different places of the program (ranks 1 and 2 in the all_reduce after a
    graph capture, rank 3 in one inside the model's forward): they issued different collectives,
    a collective mismatch; a rank alone against two or more that agree is the culprit. Only where
    every such rank's lines name the same process group, and no stack is of point-to-point work."""
    sites: dict[int, tuple[str, str]] = {}
    stacks: list[Finding] = []
    for f in group:
        if f.rule == RULE_FAILED_STACK and f.rank is not None and f.rank not in sites:
            site = _launch_site(f.context)
            if site is None:
                continue
            if site[0] in _P2P_CALLS:
                return None
            sites[f.rank] = site
            stacks.append(f)
    if len(sites) < 2 or len(set(sites.values())) < 2:
        return None
    groups = _groups_named(group, sites)
    named = set().union(*groups.values()) if groups else set()
    if len(named) != 1:
        return None
    counts = Counter(sites.values())
    (major, n_major), = counts.most_common(1)
    odd = [r for r, site in sites.items() if site != major]
    rank = odd[0] if n_major >= 2 and len(odd) == 1 else None
    where = "; ".join(f"rank {r}: {fn} from {caller}" for r, (fn, caller) in sorted(sites.items()))
    initiator = _initiator_for(rank, None, facts, stacks) if rank is not None else Initiator()
    collateral = [f for f in group if f.role is Role.COLLATERAL]
    return _build(Cause.COLLECTIVE_MISMATCH, initiator, stacks + collateral[:8], _collateral(collateral, rank, facts),
                  0.55 if rank is not None else 0.45, facts,
                  inferred_by=f"the ranks' timed-out collectives were launched from different places in the program ({where})")


# collectives whose input is the same size on every rank (an all-to-all's splits may differ, and
# all_gather into a list of tensors of different sizes is legal: it runs as broadcasts)
_SAME_SIZE_OPS = frozenset({"_ALLGATHER_BASE", "ALLREDUCE", "ALLREDUCE_COALESCED",
                            "REDUCE_SCATTER", "_REDUCE_SCATTER_BASE", "BROADCAST", "REDUCE"})


def _uneven_sizes(last: Mapping[int, tuple[str, int, Finding]],
                  groups: Mapping[int, set[str]]) -> tuple[int, dict[int, str]] | None:
    """Two or more ranks that timed out in the same collective (sequence number and operation)
    with different input sizes, in a collective whose input is the same size on every rank:
    (its sequence number, each such rank's size), else None. Each process group numbers its own
    collectives: a rank's group is the one its timeout's line names, else the one its other
    watchdog lines name (``groups``, where they name one only)."""
    at: dict[tuple[str, int, str], dict[int, str]] = defaultdict(dict)
    for rank, (op, seq, f) in last.items():
        numel = f.field("numel_in")
        if numel is not None and op in _SAME_SIZE_OPS:
            pg = _PG_ID.search(f.text)
            named = groups.get(rank, set())
            if pg is None and len(named) > 1:
                continue  # (which of its groups timed out, its line does not say)
            at[(_group_key(pg) if pg else next(iter(named), ""), seq, op)][rank] = numel
    for (_pg, seq, _op), sizes in sorted(at.items()):
        if len(sizes) >= 2 and len(set(sizes.values())) >= 2:
            return seq, sizes
    return None


_PG_ID = re.compile(r"\[PG (?:ID )?(?P<pg>[0-9]{1,6})\b(?: PG GUID (?P<guid>[^\s\]]{1,80}))?[^\]]{0,80}\]")


def _group_key(m: re.Match[str]) -> str:
    """A process group as its watchdog's line names it: its GUID where the line gives one (the
    name every member knows it by: two data-parallel groups are both a process's "PG ID 1"), else
    its id."""
    return f"{m['pg']}/{m['guid']}" if m["guid"] else m["pg"]


def _completed_what_a_peer_waits_in(collateral: Sequence[Finding], facts: RunFacts) -> Incident | None:
    """A rank whose watchdog says it completed collective #N while another rank of the default
    process group waits in an earlier one (rank 1 completed #422, rank 0 is stuck in #420): a
    collective completes only when every rank launches it, so the two ranks paired different
    collectives; their sequences went apart (a data-dependent extra collective on one rank).
    Read from the watchdog's status lines that name the default process group (the work it
    waits in and the last it completed, one line, one numbering); one apart (the others
    completed #N and wait in #N+1 while one rank waits in #N) is the usual hang, not this."""
    stuck: dict[int, int] = {}
    completed: dict[int, int] = {}
    for f in collateral:
        if f.rank is None:
            continue
        if _point_to_point(f.field("op") or ""):  # numbered on its pair only (older torch)
            return None
        pg = _PG_ID.search(f.text)
        seq = small_int(f.field("seq"), digits=18)
        done = small_int(f.field("last_completed"), digits=18, signed=True)
        if pg is None or pg["pg"] != "0" or seq is None or done is None:
            continue
        stuck[f.rank] = min(stuck.get(f.rank, seq), seq)
        completed[f.rank] = min(completed.get(f.rank, done), done)
    pairs = sorted((a, b) for a, done in completed.items() for b, seq in stuck.items()
                   if a != b and stuck[a] > seq and done > seq)
    if not pairs:
        return None
    ahead, behind = pairs[0]
    evidence = [f for f in collateral if f.rank in (ahead, behind)]
    return _build(Cause.COLLECTIVE_MISMATCH, Initiator(), evidence, _collateral(collateral, None, facts), 0.4, facts,
                  inferred_by=f"rank {ahead} completed collective #{completed[ahead]} while rank {behind} timed out "
                              f"waiting in #{stuck[behind]}: the ranks paired different collectives")


def _op_of(tensor: str) -> str:
    """The collective a Horovod tensor name stands for (``broadcast.bool.sz`` -> broadcast,
    ``HorovodAllreduce_x`` -> allreduce, ``horovod_allreduce.0`` -> allreduce)."""
    low = tensor.lower()
    for op in ("allreduce", "broadcast", "allgather", "alltoall", "reducescatter"):
        if op in low:
            return op
    return low.split(".", 1)[0]


def _stall_reports_disagree(collateral: Sequence[Finding], facts: RunFacts) -> Incident | None:
    """Horovod's stall report lists the ranks missing each tensor: two ranks each missing a
    different kind of collective (rank 0 a broadcast, rank 1 allreduces) took different code
    paths, a collective mismatch; one rank missing everything has stopped (left to the votes)."""
    ops: dict[int, set[str]] = defaultdict(set)
    reports = []
    for f in collateral:
        tensor = f.field("tensor")
        if tensor is None:
            continue
        for r in _as_ranks(f.field("missing_ranks")):
            ops[r].add(_op_of(tensor))
            reports.append(f)
    if len(ops) < 2:
        return None
    if len({frozenset(v) for v in ops.values()}) < 2:
        return _stalled_apart(collateral, facts) or _many_missing(collateral, reports, facts)
    text = ", ".join(f"rank {r} misses {'/'.join(sorted(v))}" for r, v in sorted(ops.items()))
    return _build(Cause.COLLECTIVE_MISMATCH, Initiator(), reports, _collateral(collateral, None, facts), 0.5, facts,
                  inferred_by=f"the stall report shows ranks waiting in different collectives ({text})")


MANY_MISSING = 3  # ranks a stall report lists as missing the same collective
NODE_SIZES = (2, 4, 8, 16)  # ranks a node commonly holds (an aligned block of them may be one node)


def _initial_broadcast(tensor: str) -> bool:
    """A tensor of the broadcast of the variables at the start (a rank missing it never joined)."""
    return tensor.startswith(("HorovodBroadcast", "broadcast."))


def _whole_nodes(ranks: set[int], facts: RunFacts) -> bool:
    """``ranks`` are every rank of one or more nodes: by the nodes the run places them on, or,
    where it does not, an aligned block of a node's usual size (8-15 of 16)."""
    placed = {r: facts.ranks[r].node for r in ranks if r in facts.ranks and facts.ranks[r].node}
    if len(placed) == len(ranks):
        nodes = set(placed.values())
        return {r for r, info in facts.ranks.items() if info.node in nodes} == ranks
    low, n = min(ranks), len(ranks)
    return n in NODE_SIZES and ranks == set(range(low, low + n)) and low % n == 0


def _many_missing(collateral: Sequence[Finding], reports: Sequence[Finding], facts: RunFacts) -> Incident | None:
    """Horovod's stall report lists several ranks (three or more) missing the same collective,
    not the first broadcast of the variables and not the ranks of whole nodes: other ranks
    submitted a collective that these did not (ranks that ran more batches than the rest at an
    epoch's end, a layer called on some ranks only), a collective mismatch. One rank stopped is
    the one rank listed; a node stopped (hung, cut off, waiting on its storage) is its ranks."""
    missing: dict[tuple[str | None, str], set[int]] = defaultdict(set)  # (file, tensor): the ranks missing it
    for f in reports:
        tensor = f.field("tensor")
        if tensor is None:
            continue
        if _initial_broadcast(tensor):
            return None
        missing[(f.file, tensor)].update(_as_ranks(f.field("missing_ranks")))
    if not missing:
        return None
    (_file, tensor), ranks = max(missing.items(), key=lambda kv: len(kv[1]))
    if len(ranks) < MANY_MISSING or _whole_nodes(ranks, facts):
        return None
    said = ", ".join(str(r) for r in sorted(ranks)[:12]) + (", ..." if len(ranks) > 12 else "")
    return _build(Cause.COLLECTIVE_MISMATCH, Initiator(), list(dict.fromkeys(reports)), _collateral(collateral, None, facts),
                  0.4, facts,
                  inferred_by=f"the stall report lists {len(ranks)} ranks ({said}) missing {tensor}: the ranks that "
                              "submitted it ran a collective these did not (an extra batch, a layer called on some "
                              "ranks only); not the ranks of whole nodes, which a node that stopped would leave")


_STALLED_LIST = re.compile(r"(?:^|[\s:>])(?P<rank>[0-9]{1,6}): \[(?P<names>[^\[\]]{1,2000})\]\s*$")


def _stalled_apart(collateral: Sequence[Finding], facts: RunFacts) -> Incident | None:
    """Horovod's "Stalled ranks:" table lists each rank's missing tensors in full (when not cut
    with "..."): two ranks each missing a tensor the other submitted (rank 0 misses
    allreduce.noname.691941, ranks 1-7 miss allreduce.noname.691943) submitted different
    collectives in place of each other; a rank alone on its side is the odd one out."""
    missing: dict[int, frozenset[str]] = {}
    reports: dict[int, Finding] = {}
    for f in collateral:
        if f.field("tensor") is None:
            continue
        m = _STALLED_LIST.search(f.text)
        if m is None or "..." in m["names"]:
            continue
        names = frozenset(n.strip() for n in m["names"].split(",") if n.strip())
        rank = int(m["rank"])
        if names and rank not in missing:
            missing[rank] = names
            reports[rank] = f
    groups: dict[frozenset[str], list[int]] = defaultdict(list)
    for rank, names in missing.items():
        groups[names].append(rank)
    sets = list(groups)
    apart = [(a, b) for i, a in enumerate(sets) for b in sets[i + 1:] if a - b and b - a]
    if not apart:
        return None
    a, b = apart[0]
    small, large = (a, b) if len(groups[a]) <= len(groups[b]) else (b, a)
    odd = groups[small][0] if len(groups[small]) == 1 and len(groups[large]) > 1 and len(groups) == 2 else None
    evidence = [reports[r] for r in sorted(set(groups[small]) | set(groups[large]))]
    initiator = _initiator_for(odd, None, facts, evidence) if odd is not None else Initiator()
    said = ", ".join(str(r) for r in sorted(groups[small]))
    return _build(Cause.COLLECTIVE_MISMATCH, initiator, evidence, _collateral(collateral, odd, facts), 0.5, facts,
                  inferred_by=f"the stall report shows rank{'s' if len(groups[small]) > 1 else ''} {said} missing "
                              f"{', '.join(sorted(small))} while {len(groups[large])} other ranks miss "
                              f"{', '.join(sorted(large))}: each side submitted what the other lacks, "
                              "different collectives")


def _ready_sets_apart(collateral: Sequence[Finding], facts: RunFacts) -> Incident | None:
    """Horovod's stall report lists, for each stalled tensor, the ranks ready to reduce it: two
    tensors whose ready ranks have none in common were submitted by different ranks in place of
    each other (rank 3 reduces the loss while ranks 0-2 reduce the gradients), a collective
    mismatch whatever else the report says; a rank alone on its side is the odd one out."""
    ready: dict[frozenset[int], tuple[str, list[Finding]]] = {}
    for f in collateral:
        if f.field("ready_ranks") is None:
            continue
        # every stalled op of the line (the report lists them all on one line; the rule reads the first)
        for m in _READY_OP.finditer(f.text):
            ranks = frozenset(_as_ranks(m["ranks"]))
            if ranks:
                entry = ready.setdefault(ranks, (m["tensor"], []))
                if f not in entry[1]:
                    entry[1].append(f)
    sets = list(ready)
    apart = [(a, b) for i, a in enumerate(sets) for b in sets[i + 1:] if not a & b]
    if not apart:
        return None
    a, b = min(apart, key=lambda pair: min(len(pair[0]), len(pair[1])))
    small, large = (a, b) if len(a) <= len(b) else (b, a)
    odd = next(iter(small)) if len(small) == 1 and len(large) > 1 else None
    reports = list(dict.fromkeys([*ready[small][1], *ready[large][1]]))
    initiator = _initiator_for(odd, None, facts, reports) if odd is not None else Initiator()
    said = ", ".join(str(r) for r in sorted(small))
    others = ", ".join(str(r) for r in sorted(large))
    return _build(Cause.COLLECTIVE_MISMATCH, initiator, reports, _collateral(collateral, odd, facts), 0.5, facts,
                  inferred_by=f"the stall report shows rank{'s' if len(small) > 1 else ''} {said} ready for "
                              f"{ready[small][0]} while ranks {others} are ready for {ready[large][0]}: they "
                              "submitted different collectives")


_READY_OP = re.compile(r"(?P<tensor>[^\s,\[\]]{1,300}) \[ready ranks: (?P<ranks>[0-9][0-9, ]{0,2000})\]")


_TRANSIENT = re.compile(r"\bretrying\b|\bwill retry\b|\bretry(?:ing)? in \d|\battempt \d{1,3}/\d{1,3}\b"
                        r"|\bcontinuing (?:on|with|without)\b|\bfall(?:ing)? ?back to\b", re.I)
RECOVERED_AFTER = timedelta(minutes=10)
PROGRESS_AFTER = 100  # lines of a file between an untimed error and its last line of training progress


def _passing(f: Finding, facts: RunFacts) -> bool:
    """A collateral error the rank got over: the line says it will retry, or the rank went on
    writing for :data:`RECOVERED_AFTER` and more."""
    if _TRANSIENT.search(f.text):
        return True
    if (f.time is None and f.file is not None and f.line is not None and facts.ended
            and not any(h in f.rule for h in TIMEOUT_HINTS)):
        # untimed: training progress its file printed long after it (a stale line of an earlier
        # job at the top of a reused output file, an error the program got over). Not a timeout:
        # a block-buffered stdout flushes its step lines at exit, after the stderr's timeouts
        progress = facts.last_progress.get(f.file)
        if progress is not None and progress - f.line > PROGRESS_AFTER:
            return True
    info = facts.ranks.get(f.rank) if f.rank is not None else None
    return (info is not None and info.last_time is not None and f.time is not None
            and info.last_time - f.time > RECOVERED_AFTER)


def _peer_lost_first(f: Finding, stopping: Sequence[Finding]) -> bool:
    """A line saying a peer died or its link broke, from before the ranks began to time out or
    tear down: a peer was lost first. The same lines after the first timeout (its own abort
    closing the proxy's connections, the store going away) are the teardown."""
    if not any(h in f.rule for h in PEER_LOST_HINTS):
        return False
    if f.rule == RULE_LOCAL_CLOSE and f.time is None:
        # NCCL's INFO note that a process of the node closed its proxy connection: printed by
        # every abort and every clean exit alike; untimed, it cannot say it came first
        return False
    times = [s.time for s in stopping if s.time is not None]
    if f.time is not None and times:
        return f.time <= min(times)
    lines = [s.line for s in stopping if s.file == f.file and s.line is not None]
    if f.line is not None and lines:
        return f.line <= min(lines)
    return True


_STORE_WAITS = frozenset({"torch.store_wait_clients_timeout"})


_RAY_FOLDED = "across cluster]"  # Ray's log deduplication: "... [repeated 3x across cluster]"


def _collective_timeout(f: Finding) -> bool:
    """A rank timed out waiting in a collective (not a store server waiting for its clients)."""
    return any(h in f.rule for h in TIMEOUT_HINTS) and f.rule not in _STORE_WAITS


def _per_rank_lowest(findings: Sequence[Finding], key: str) -> dict[int, int]:
    """Each rank's lowest value of the numeric field ``key``."""
    out: dict[int, int] = {}
    for f in findings:
        value = small_int(f.field(key), digits=18, signed=True)
        if f.rank is not None and value is not None:
            out[f.rank] = min(out.get(f.rank, value), value)
    return out


def _sole_lowest(values: Mapping[int, int]) -> tuple[int, int] | None:
    """(rank, value) when two or more ranks have values and exactly one has the lowest."""
    if len(values) < 2:
        return None
    low = min(values.values())
    lows = [r for r, v in values.items() if v == low]
    return (lows[0], low) if len(lows) == 1 else None


def _node_behind(values: Mapping[int, int], facts: RunFacts) -> tuple[str, int, list[int]] | None:
    """(node, value, ranks) when the ranks with the lowest of ``values`` (two or more) are every rank
    the run places on one node, and the ranks with a higher value are all placed on other nodes: a
    whole node behind the others (its ranks never issued the collective the others wait in)."""
    if len(values) < 3:
        return None
    low = min(values.values())
    lows = sorted(r for r, v in values.items() if v == low)
    if len(lows) < 2 or len(lows) == len(values):
        return None
    node_of = {r: info.node for r, info in facts.ranks.items() if info.node}
    nodes = {node_of.get(r) for r in lows}
    if len(nodes) != 1 or None in nodes:
        return None
    node = next(iter(n for n in nodes if n is not None))
    ahead = {node_of.get(r) for r, v in values.items() if v != low}
    if None in ahead or node in ahead or any(n == node and r not in values for r, n in node_of.items()):
        return None
    return node, low, lows


STALL_REPORT_SPAN = timedelta(seconds=90)  # Horovod's inspector warns again each minute a stall lasts
STALL_BLOCK_GAP = 3  # lines of one report that no rule reads ("Stalled ops:", a wrapped header)


def _one_stall_report(collateral: Sequence[Finding]) -> bool:
    """The stall warnings are one report: one header line, one block of lines in each file (no
    training output between two reports), their stamps (where they have any) within
    :data:`STALL_REPORT_SPAN`."""
    headers = {(f.file, f.line) for f in collateral if f.rule == RULE_HOROVOD_STALL}
    times = [f.time for f in collateral if f.time is not None]
    lines: dict[str | None, set[int]] = defaultdict(set)
    for f in collateral:
        if f.line is not None:
            lines[f.file].add(f.line)
    one_block = all(max(ls) - min(ls) <= len(ls) + STALL_BLOCK_GAP for ls in lines.values())
    return len(headers) <= 1 and one_block and (not times or max(times) - min(times) <= STALL_REPORT_SPAN)


HOROVOD_MISSING_RANK = "launcher.horovod_missing_rank"  # rules/launchers.yaml: "12: [tensor]" under the header


def _trained_after(found: Sequence[Finding], facts: RunFacts) -> bool:
    """Each file of ``found`` shows training progress after its last line of them (a step, an
    epoch's progress, the end of training), in logs read to their end."""
    last: dict[str, int] = {}
    for f in found:
        if f.file is not None and f.line is not None:
            last[f.file] = max(last.get(f.file, 0), f.line)
    return facts.ended and bool(last) and all((facts.last_progress.get(file) or 0) > line for file, line in last.items())


def _progressed(group: Sequence[Finding]) -> bool:
    """A console progress bar was drawn again, further on, after a watchdog reported a timeout."""
    for f in group:
        if f.rule == RULE_PROGRESS_AFTER_TIMEOUT and f.field("later_total") == f.field("total"):
            before, after = small_int(f.field("n")), small_int(f.field("later"))
            if before is not None and after is not None and after > before:
                return True
    return False


# why the ranks' timeouts read as a straggler (_progressed); a timeout set far below the defaults is
# no such sign: real hangs under short test timeouts look the same
PROGRESSED_WHY = "a progress bar was still advancing after the watchdogs fired: slow, not stuck"


RULE_RECEIVED_SIGNAL = "torch.elastic_received_signal"  # rules/torch.yaml
RULE_HEARTBEAT_ABORT = "torch.heartbeat_monitor_abort"  # rules/torch.yaml
RULE_WATCHDOG_STUCK = "torch.watchdog_stuck"  # rules/torch.yaml
RULE_HCCL_NOTIFY = "hccl.notify_wait_timeout"  # rules/nccl.yaml: EI0002, "... from remote rank: [29]"
RULE_PADDLE_SIGTERM = "launcher.paddle_termination_signal"  # rules/launchers.yaml: a trainer got SIGTERM
RULE_GLOG_SIGTERM = "generic.glog_terminated_by_signal"  # rules/generic.yaml: glog's handler, the signal's sender named
# the trainer's own signal handler said it was sent SIGTERM (Paddle's, older Paddle's glog one): these
# go to every trainer the launcher tears down, not only on a stop from outside
_TRAINER_SIGTERM = frozenset({RULE_PADDLE_SIGTERM, RULE_GLOG_SIGTERM})
RECEIVED_SIGNAL = frozenset({RULE_RECEIVED_SIGNAL}) | _TRAINER_SIGTERM
# what a rank's own teardown prints after it got the signal (its data loader's workers ended with it)
_SIGNAL_TEARDOWN = frozenset({"launcher.paddle_loader_terminated"})
STOP_TOLERANCE = timedelta(seconds=2)  # teardown lines stamped this much before the SIGTERM line


def _stopped_from_outside(collateral: Sequence[Finding], timeouts: Sequence[Finding], facts: RunFacts) -> str | None:
    """What says the job was told to stop (torchrun's agent, or the workers' own handlers,
    "received SIGTERM") when that is the first thing that went wrong: no collective had timed
    out, and every other line of the failure is the teardown that came after it (the launcher
    passing the signal on, teardown exits, peers losing the ranks that had already gone)."""
    received = [f for f in collateral if f.rule in RECEIVED_SIGNAL and _sigterm(f)]
    # (the sidecar reads logs still being written and knows no file's end: the signal is the
    # stop it is, as in the replay of the same lines, once nothing but its teardown came before)
    if not received or timeouts or not (any(terminal(f, facts) for f in received) or not facts.ended):
        return None
    if all(f.rule in _TRAINER_SIGTERM for f in received) and (
            set(facts.ranks) - {f.rank for f in received}
            or (not facts.ranks and all(f.rule == RULE_GLOG_SIGTERM for f in received))):
        # Paddle's launcher also sends SIGTERM to the other trainers when one dies: a rank that
        # did not get it had already gone (a kill that left no line), not a stop from outside;
        # where glog's report alone says it and no line names the ranks, nothing says that every
        # trainer got it
        return None
    first = min((f.time for f in received if f.time is not None), default=None)
    if _stalled_long_before(first, facts):
        return None  # (the job had stopped making progress long before: it was stopped because it hung)
    for f in collateral:
        if (f.rule in SIGNAL_SENT or f.rule in RECEIVED_SIGNAL or f.rule in _SIGNAL_TEARDOWN
                or (f.rule == RULE_EXIT_CODE and _teardown_exit(f))):
            continue
        if first is None or f.time is None or f.time < first - STOP_TOLERANCE:
            return None
    who = "torchrun's agent" if any("death signal" in f.text for f in received) else "the workers"
    return f"{who} received SIGTERM"


# a job whose ranks made no progress for this long before a stop from outside (a SIGTERM, a
# scancel) was stopped because it hung (a person or a watchdog script killed it), not preempted
STALLED_BEFORE_THE_STOP = timedelta(minutes=10)
STALL_ALLOWANCES = 3  # ... and at least this many times the stall's allowance
# the stall's allowance stretched for a pause the log announced or that recurs (stats.stall_allowance)
_PAUSE_REASONS = ("expected pause", "a checkpoint/evaluation line", "step ")


def _stalled_long_before(stop: datetime | None, facts: RunFacts) -> bool:
    """Whether the step-time statistics saw the ranks stop progressing (an unresolved stall, its
    steps' interval known) at least :data:`STALLED_BEFORE_THE_STOP` before ``stop``, and no
    rank was found slow (a straggler's steps outlast the stall's allowance)."""
    if stop is None or any(f.cause is Cause.STRAGGLER and f.role is Role.INITIATOR for f in facts.findings):
        return False  # (a slow rank's steps, each longer, outlast the stall's allowance: no hang)
    for f in facts.findings:
        if f.rule != RULE_STALL or f.role is not Role.INITIATOR or not (last := f.field("last_progress")):
            continue
        if not field_float(f.field("baseline")) > 0:
            continue  # (steps that took their times from one stamped line above them: no interval is known)
        if (f.field("allowance_reason") or "").startswith(_PAUSE_REASONS):
            continue  # (a checkpoint, an evaluation or a pause that recurs: the stop may have come in it)
        try:
            when = datetime.fromisoformat(last.replace("Z", "+00:00"))
        except ValueError:
            continue
        # (silent for longer than the stall's allowance several times over, and never less than
        # STALLED_BEFORE_THE_STOP: a preemption that comes in a pause of a little over the allowance is one)
        allowance = timedelta(seconds=field_float(f.field("allowance")))
        if (when.tzinfo is not None and stop.tzinfo is not None
                and when <= stop - max(STALLED_BEFORE_THE_STOP, STALL_ALLOWANCES * allowance)):
            return True
    return False


EXITED_AHEAD = timedelta(minutes=1)  # an exit this long before the first collective timeout came first
EXIT_LOOKBACK_MS = 3 * 3600 * 1000  # and no more than the collective's timeout (or this) before it


def _exited_before_the_timeouts(group: Sequence[Finding], timeouts: Sequence[Finding]) -> tuple[Finding, str] | None:
    """The launcher's record of the one worker that exited with code 1 (Python's exit on an
    uncaught exception) at least :data:`EXITED_AHEAD` before the first collective timeout of the
    other ranks, and the time between; None where none did, several did at once, or it timed out
    itself."""
    times = [t.time for t in timeouts if t.time is not None]
    if not times:
        return None
    first = min(times)
    # (no earlier than the collective's timeout before the first timeout, and some slack: an exit
    # long before it is another launch's)
    waited = max((ms for t in timeouts if (ms := small_int(t.field("timeout_ms"), digits=12)) is not None),
                 default=EXIT_LOOKBACK_MS)
    earliest_allowed = first - timedelta(milliseconds=min(waited, EXIT_LOOKBACK_MS)) - EXITED_AHEAD * 5
    exits = [f for f in group if f.rule == RULE_EXIT_CODE and f.rank is not None and f.time is not None
             and f.field("exitcode") == "1" and earliest_allowed <= f.time <= first - EXITED_AHEAD]
    if not exits:
        return None
    earliest = min(f.time for f in exits if f.time is not None)
    ranks = {f.rank for f in exits if f.time == earliest}
    if len(ranks) != 1 or ranks & {t.rank for t in timeouts}:
        return None
    found = next(f for f in exits if f.time == earliest)
    minutes = (first - earliest).total_seconds() / 60
    return found, (f"{minutes:.0f} minutes" if minutes >= 2 else f"{minutes * 60:.0f} s")


def _sigterm(f: Finding) -> bool:
    return (f.rule == RULE_PADDLE_SIGTERM or (f.field("signal") or f.field("lightning_signal") or f.field("app_signal") or "") in ("SIGTERM", "15")
            or f.field("signum") == "15")


def _teardown_exit(f: Finding) -> bool:
    """An exit code that only says the process was terminated or killed (srun's "Terminated")."""
    return ((f.field("signal") or "").upper() in ("SIGTERM", "SIGKILL", "TERMINATED", "KILLED")
            or f.field("exitcode") in ("-15", "-9", "143", "137"))


SLURM_STEP_ENDED = "scheduler.slurm_step_ended"  # a step or job cancelled with no reason given: scancel
ENDLESS_WAIT_MS = 7 * 24 * 3600 * 1000  # a timeout set this long (to "disable" it) never runs out


def _endless(ms: str | None) -> bool:
    """A timeout in milliseconds too long to have run out (set that long to turn it off)."""
    text = (ms or "").strip()
    return text.isdigit() and (len(text) > 15 or int(text) >= ENDLESS_WAIT_MS)


UNIQUE_ID_STORE = "torch.nccl_unique_id_store_error"
ROOT_LATE_WHY = ("the others waited the store's whole timeout for its NCCL id at their first collective and no line "
                 "says it failed: it was late to that collective (most often still preparing data or loading)")


def _waited_for_the_root(collateral: Sequence[Finding], rank: int) -> bool:
    """Every rank's failure is a store timeout waiting for ``rank``'s NCCL unique id (the
    first collective of a communicator): the root rank had not reached it when their wait ran
    out, and nothing says it died (a dead root's store fails at once: a reset, a refusal)."""
    waits = [f for f in collateral if f.rule == UNIQUE_ID_STORE]
    if not waits or not all(small_int(f.field("peer_rank")) == rank and _TIMEOUT_WORDS.search(f.text) for f in waits):
        return False
    return all(f.rule == UNIQUE_ID_STORE or (f.cause is None and f.rule not in SIGNAL_SENT) for f in collateral)


def _spared_by_teardown(collateral: Sequence[Finding], facts: RunFacts) -> int | None:
    """The one rank of a node whose process the node's launcher did not tear down when it tore
    down all the others (torchrun's "Sending process PID closing signal SIGTERM" goes to the
    workers still running): it ended first. Only when every signalled pid is a rank of that node
    the logs or the live processes place (the same attempt), and exactly one such rank was spared."""
    signalled: dict[str | None, set[int]] = defaultdict(set)
    for f in collateral:
        pid = f.field("pid") if f.rule in SIGNAL_SENT else None
        if pid is not None and pid.isdigit():
            signalled[f.node].add(int(pid))
    spared: set[int] = set()
    for node, pids in signalled.items():
        placed = [r for r in facts.ranks.values() if node is None or r.node in (None, node)]
        if any(r.pid is None for r in placed):
            continue  # a rank of the node whose pid nothing gives may be the one spared
        ranks = {r.pid: r.rank for r in placed if r.pid is not None}
        if not pids <= set(ranks):
            continue
        left = [rank for pid, rank in ranks.items() if pid not in pids]
        if len(left) == 1:
            spared.add(left[0])
    return next(iter(spared)) if len(spared) == 1 else None


# frames of torch.distributed a dump may show a rank in that are no collective of their own:
# set-up, teardown, the logger's wrapper around every call (and private helpers, named with "_")
_NOT_A_WAIT = frozenset({"wrapper", "init_process_group", "destroy_process_group", "new_group", "barrier_wrapper"})
# the object collectives run a tensor collective of the same kind inside
_OBJECT_CALLS = {"broadcast_object_list": "broadcast", "all_gather_object": "all_gather", "gather_object": "gather",
                 "scatter_object_list": "scatter", "send_object_list": "send", "recv_object_list": "recv"}
STACK_BLOCK_GAP = 3  # lines between two frames of one stack dump (without --locals)


def _innermost_collectives(dumped: Sequence[Finding]) -> list[str]:
    """The collectives each dumped stack (a run of frames within a few lines of each other in
    one file) is in, as one name per stack joined by "+" when it shows several (the object
    collectives read as the tensor collective they run). Stacks whose sets of names share none
    waited in different collectives."""
    out: list[set[str]] = []
    prev: tuple[str | None, int] | None = None
    for f in sorted(dumped, key=lambda f: (f.file or "", f.line or 0)):
        func = f.field("func") or f.field("ffunc") or ""
        if prev is None or prev[0] != f.file or (f.line or 0) - prev[1] > STACK_BLOCK_GAP:
            out.append(set())
        prev = (f.file, f.line or 0)
        if func and not func.startswith("_") and func not in _NOT_A_WAIT:
            out[-1].add(_OBJECT_CALLS.get(func, func))
    return ["+".join(sorted(names)) for names in out if names]


def _different_collectives(dumped: Sequence[Finding]) -> list[str]:
    """Two stacks that wait in collectives with no name in common (all_reduce against
    reduce_scatter_tensor), sorted; [] when every pair shares one (the frames of one stack split
    by --locals' lines still share the call)."""
    stacks = [set(s.split("+")) for s in _innermost_collectives(dumped)]
    for i, a in enumerate(stacks):
        for b in stacks[i + 1:]:
            if not a & b:
                return sorted({"+".join(sorted(a)), "+".join(sorted(b))})
    return []


MAIN_THREAD_DUMP = "python.stack_dump_main_thread"  # rules/python.yaml: py-spy's "Thread N (active): "MainThread""
DUMPS_APART = 2  # dumps of other processes waiting in a collective, at least, for one not waiting to stand out


def _dump_apart(group: Sequence[Finding], dumped: Sequence[Finding], facts: RunFacts) -> tuple[Finding, str] | None:
    """The one process whose stack dump (py-spy's, one file a process) is not waiting in a
    collective while the dumps of :data:`DUMPS_APART` or more other processes are: the others wait
    for it. Its rank is the dump's own, or that of the pid the dump names (the main thread's id),
    and where it is, its dump's first frame. None unless exactly one dump stands apart."""
    mains = [f for f in group if f.rule == MAIN_THREAD_DUMP and f.file is not None and terminal(f, facts)]
    waiting = {f.file for f in dumped}
    if len(waiting) < DUMPS_APART or len({f.file for f in mains}) != len(mains):  # (one dump a file)
        return None
    # (a launcher's dump, the torchrun agent's own, waits in no collective and is no rank)
    apart = [f for f in mains if f.file not in waiting and not _launcher_dump(f)]
    if len(apart) != 1:
        return None
    odd = apart[0]
    if odd.rank is None and odd.pid is not None:
        rank = next((r.rank for r in facts.ranks.values() if r.pid == odd.pid and (odd.node is None or r.node == odd.node)), None)
        if rank is not None:
            odd = dataclasses.replace(odd, rank=rank, node=odd.node or facts.ranks[rank].node)
    if odd.rank is None:  # (a process no line makes a rank: nothing says the others wait for it)
        return None
    frame = next((line.strip() for line in odd.context if line.strip()), "")
    return odd, f"in {frame[:120]}" if frame else "elsewhere"


def _launcher_dump(f: Finding) -> bool:
    """A main-thread dump whose first frames are a launcher's own (the torchrun agent's
    ``_invoke_run``: :data:`_LAUNCHER_FRAMES`, as for a launcher's traceback)."""
    return any(p in line for line in f.context for p in _LAUNCHER_FRAMES)


_HCCL_GROUP = re.compile(r"group_name_[0-9]|group:\[(?!hccl_world_group\])")


def _hccl_subgroup(text: str) -> bool:
    """An HCCL line about a communicator other than the world group (torch_npu's "group_name_N"
    tags, a "group:[...]" that is not hccl_world_group): its ranks are that group's."""
    return _HCCL_GROUP.search(text) is not None


def _dumped_outside_a_collective(group: Sequence[Finding], collateral: Sequence[Finding]) -> int | None:
    """The one rank whose main thread someone dumped (py-spy), that is not waiting in a collective
    and timed out in none, while other ranks timed out waiting in one: the process they waited
    for, caught where it stopped (a lock, a save that never returns); None where several such dumps
    or none."""
    if not any(_collective_timeout(f) for f in collateral):
        return None
    timed = {f.rank for f in collateral if _collective_timeout(f) and f.rank is not None}
    in_collective = {f.rank for f in group if f.rule == RULE_STACK_COLLECTIVE and f.rank is not None}
    dumps = [f for f in group if f.rule == MAIN_THREAD_DUMP]
    if len(dumps) != 1 or dumps[0].rank is None:
        return None  # (a file of several processes' dumps: one of a node's, its name's number no rank of each)
    rank = dumps[0].rank
    return rank if rank not in in_collective and rank not in timed else None


def _infer(group: Sequence[Finding], facts: RunFacts) -> Incident | None:
    """No rank left initiator-grade evidence: let the collateral evidence point at one."""
    # (a stack dump that training went on after is no evidence: someone looked at a running job)
    collateral = [f for f in group if f.role is Role.COLLATERAL and not _passing(f, facts)
                  and (f.rule != RULE_STACK_COLLECTIVE or terminal(f, facts))]
    stalls = [f for f in group if f.rule == RULE_STALL]
    if not collateral and all(f.role is Role.CONTEXT for f in stalls):
        return None  # (a pause that training resumed after, alone, is no failure)
    if (all(f.role is Role.CONTEXT for f in stalls)
            and all(f.rule in (RULE_NCCL_PROXY, RULE_LOCAL_CLOSE) for f in collateral)):
        # only NCCL's proxy service noting or complaining that a local peer closed its socket: what
        # every process prints when its neighbours exit first at the end of a run, no failure by itself
        # (beside it at most a pause that training resumed after)
        return None
    apart = _ready_sets_apart(collateral, facts)
    if apart is not None:
        return apart
    if (not stalls and all(f.rule in STALL_WARNING_RULES or f.rule == HOROVOD_MISSING_RANK for f in collateral)
            and not any(_initial_broadcast(f.field("tensor") or "") for f in collateral)
            and _one_stall_report(collateral)
            and (all(f.rule in STALL_WARNING_RULES for f in collateral) or _trained_after(collateral, facts))
            and not all(at_the_end(f, facts) for f in collateral)):
        # only one report of Horovod's stall inspector, in the middle of training: ranks waited a
        # minute for others (one rank checkpointing or evaluating), and nothing failed. Reports
        # repeated over minutes (the inspector warns again while the stall lasts) are a hang; so
        # is a stall at the initial broadcast of the variables (the missing rank never joined). A
        # report that lists its ranks one a line ("Missing ranks:" / "Stalled ranks:", then "12:
        # [tensor]") counts so only when training went on after it.
        return None
    mismatch = (_timeouts_in_different_collectives(collateral, facts) or _stall_reports_disagree(collateral, facts)
                or _completed_what_a_peer_waits_in(collateral, facts) or _failed_collectives_launched_apart(group, facts))
    if mismatch is not None:
        return mismatch
    votes: Counter[int] = Counter()
    reasons: dict[int, list[str]] = defaultdict(list)
    local_to_global = {(r.node, r.local_rank): r.rank for r in facts.ranks.values() if r.local_rank is not None}
    hang_signal = False
    absent: set[int] = set()  # ranks a report lists as missing from a collective the others wait in
    # ranks whose own watchdog timed out or tore their communicators down: their closed
    # connections are that teardown's, no sign they failed first
    torn_down = {r for f in collateral if _collective_timeout(f) or f.rule == RULE_NCCL_TEARDOWN
                 for r in (f.rank if f.rank is not None else _tagged_rank(f.text),) if r is not None}
    for f in collateral:
        peer = small_int(f.field("peer_rank"))
        if peer is not None and f.rule == RULE_HCCL_NOTIFY and _hccl_subgroup(f.text):
            peer = None  # (a rank of a sub-communicator: which job rank it is, the line does not say)
        if peer is not None:
            votes[peer] += 2
            waited = _collective_timeout(f)  # (the peer a collective's wait timed out on never came: it hung)
            hang_signal = hang_signal or waited
            what = "the peer whose data a collective timed out waiting for" if waited else "the failed peer"
            if f.rank is not None:
                reasons[peer].append(f"named as {what} by rank {f.rank}")
            elif not reasons[peer]:
                reasons[peer].append(f"named as {what} by another rank")
        peer_local = small_int(f.field("peer_local_rank"))
        if peer_local is not None:
            g = local_to_global.get((f.node, peer_local))
            if g is None and len({r.node for r in facts.ranks.values()}) <= 1:
                g = local_to_global.get((None, peer_local))
            if g is not None and g != f.rank and g not in torn_down:
                votes[g] += 2
                reasons[g].append(f"its connection closed first (named by rank {f.rank})" if f.rank is not None
                                  else "its connection closed first (named by another rank)")
        for r in _as_ranks(f.field("missing_ranks")):
            votes[r] += 3
            if not _endless(f.field("timeout_ms")):
                hang_signal = True
                absent.add(r)
                reasons[r].append("missing from a collective")
            else:  # a wait of weeks cannot have run out: the rank failed to answer (it had died or erred)
                reasons[r].append("failed to answer a monitored barrier whose wait cannot have run out")
        ready = _as_ranks(f.field("ready_ranks"))
        if ready:  # the ranks a collective waits on are those of the job not listed ready
            every = set(range(facts.world_size)) if facts.world_size else set(range(max(ready) + 1)) | set(facts.ranks)
            for r in sorted(every - set(ready))[:8]:
                votes[r] += 3
                hang_signal = True
                reasons[r].append("not among the ranks ready for a collective")
    # the one rank behind the others: the lowest last completed collective; else the fewest
    # enqueued (it never issued the one they wait in: PyTorch's "last enqueued NCCL work" of a
    # watchdog or dump signal); else, when the ranks' completed counts say nothing, the earliest
    # collective its watchdog timed out in (the others had finished it and wait in the next)
    completed = _per_rank_lowest(collateral, "last_completed")
    enqueued = _per_rank_lowest(collateral, "last_enqueued")
    timed_seq = _per_rank_lowest([f for f in collateral if any(h in f.rule for h in TIMEOUT_HINTS)], "seq")
    behind = [(completed, "lowest last completed collective ({})"),
              (enqueued, "enqueued fewer collectives ({}) than the others")]
    if len(completed) < 2:
        behind.append((timed_seq, "timed out at an earlier collective (#{}) than the others"))
    for values, why in behind:
        sole = _sole_lowest(values)
        if sole is not None:
            votes[sole[0]] += 3
            hang_signal = True
            reasons[sole[0]].append(why.format(sole[1]))
    # ranks that never reported the collective timeout everyone else reported
    # (a store server's wait for clients that never connected is no collective: the client that
    # stayed away did not hang in one, it most often could not reach the server)
    # (a rank whose heartbeat monitor fired with no collective in flight, workMetaList_.size()=0,
    # did not wait in one: its watchdog's complaints are no collective timeout)
    idle = {f.rank for f in collateral if f.rule == RULE_HEARTBEAT_ABORT and f.field("work_items") == "0"}
    timed_out = {f.rank for f in collateral if f.rank is not None and _collective_timeout(f)
                 and not (f.rank in idle and f.rule in (RULE_HEARTBEAT_ABORT, RULE_WATCHDOG_STUCK))}
    known = set(facts.ranks)
    if facts.world_size:
        known |= set(range(facts.world_size))
    elif (known := known | timed_out) and max(known) < SMALL_WORLD:
        known |= set(range(max(known) + 1))  # ranks count from 0: every rank below the highest seen is one
    silent_ranks = known - timed_out
    # (Ray folds the same line of several workers into one, "[repeated 3x across cluster]": a rank
    # whose timeout is not shown may have reported it in a line folded away)
    folded = any(_RAY_FOLDED in (f.text or "") for f in collateral)
    if (timed_out and not folded and 0 < len(silent_ranks) <= max(1, len(known) // 4)
            and len(timed_out) >= len(known) // 2):
        # one silent rank stands out (ranks 1-3 time out in a broadcast, rank 0 is busy
        # evaluating); among several, silence says less than a rank behind the rest
        for r in silent_ranks:
            if r in facts.ranks:
                votes[r] += 3 if len(silent_ranks) == 1 else 1
            elif len(silent_ranks) == 1:  # a rank no line of the logs shows: said with less weight
                votes[r] += 2
            else:
                continue
            hang_signal = True
            reasons[r].append("did not report the collective timeout the others reported")
            if r in idle:
                reasons[r].append("its heartbeat monitor fired with no collective in flight (workMetaList_.size()=0)")
    # the rank whose log went silent first
    lasts = {r.rank: r.last_time for r in facts.ranks.values() if r.last_time is not None}
    if len(lasts) >= 2:
        ordered = sorted(lasts.items(), key=lambda kv: kv[1])
        margin = timedelta(seconds=max(5.0, 3 * (facts.median_step_s or 0.0)))
        if ordered[1][1] - ordered[0][1] > margin and not any(f.rank == ordered[0][0] and any(h in f.rule for h in TIMEOUT_HINTS) for f in collateral):
            votes[ordered[0][0]] += 2
            hang_signal = True
            reasons[ordered[0][0]].append("its log went silent first")
    outside = _dumped_outside_a_collective(group, collateral)
    if outside is not None:
        votes[outside] += 3
        hang_signal = True
        reasons[outside].append("its stack dump (the only one taken) is not waiting in a collective, while the others "
                                "timed out waiting in one")
    for f in stalls:
        if f.rank is not None:
            # the step lines of every rank set the one behind apart: surer than the last stamps of
            # the tails read (a combined log's tail holds the last lines of only some ranks)
            votes[f.rank] += 3 if len(stalls) == 1 else 2
            hang_signal = True
            reasons[f.rank].append("stopped making progress first")
    if not votes and not any(any(h in f.rule for h in TIMEOUT_HINTS) for f in collateral):
        # nothing else points anywhere and no collective timed out (in a hang, the worker that
        # ends first is a waiter whose watchdog fired first, not the one that stopped)
        spared = _spared_by_teardown(collateral, facts)
        if spared is not None and any(f.rank == spared and tells_a_lost_peer(f) for f in collateral):
            # it ended first because its connection to a peer closed under it ("Connection closed
            # by peer"): the peer - on another node, where these logs do not reach - ended before it
            spared = None
        if spared is not None:
            votes[spared] += 3
            reasons[spared].append("the launcher sent its teardown signal to every other worker of its node, "
                                   "not to this one: it had already ended")
    if not votes:
        for values, what in ((completed, "completed"), (enqueued, "enqueued")):
            behind_node = _node_behind(values, facts)
            if behind_node is None:
                continue
            host, value, lows = behind_node
            shown = ", ".join(str(r) for r in lows[:16]) + (" ..." if len(lows) > 16 else "")
            return _build(Cause.HANG, Initiator(node=host), collateral,
                          tuple(r for r in _collateral(group, None, facts) if r not in lows), 0.45, facts,
                          inferred_by=f"ranks {shown}, every rank of {host}, {what} fewer collectives ({value}) "
                                      f"than the ranks of the other nodes: that node stopped issuing the collective "
                                      f"the others wait in")
    if votes:
        top = votes.most_common(2)
        if len(top) == 1 or top[0][1] > top[1][1]:
            rank = top[0][0]
            cause = Cause.HANG if hang_signal else Cause.UNKNOWN
            if cause is Cause.UNKNOWN and _barrier_wait_ran_out(collateral, rank):
                cause = Cause.HANG
                reasons[rank].append("the monitored barrier's wait for it ran out")
            if cause is Cause.UNKNOWN and _waited_for_the_root(collateral, rank):
                cause = Cause.STRAGGLER
                reasons[rank].append(ROOT_LATE_WHY)
            if cause is Cause.HANG and _progressed(group):
                cause = Cause.STRAGGLER
                reasons[rank].append(PROGRESSED_WHY)
            exited = _exited_before_the_timeouts(group, [f for f in collateral if _collective_timeout(f)])
            if cause in (Cause.HANG, Cause.UNKNOWN) and exited is not None and exited[0].rank == rank:
                # it did not hang: it ended, on an error of its own, and the others waited for it
                cause = Cause.PYTHON_EXCEPTION
                reasons[rank].append(f"its worker exited with code 1 (an uncaught error, its traceback not in these "
                                     f"logs) {exited[1]} before the other ranks timed out waiting in a collective")
            confidence = min(0.85, 0.45 + 0.1 * top[0][1])
            evidence = [f for f in group if f.rank == rank or f.role is Role.COLLATERAL or f in stalls]
            initiator = _initiator_for(rank, None, facts, evidence)
            return _build(cause, initiator, evidence, _collateral(group, rank, facts), confidence, facts,
                          inferred_by="; ".join(dict.fromkeys(reasons[rank])))
        if set(r for r, _n in top) <= absent and all(f.cause is None for f in collateral):
            # several ranks missing from a collective the others wait in, none more than another
            # (the Flight Recorder analyser's "missing ranks: {3, 4, 5, 6, 7}"): a hang, whose
            # initiator is one of them
            named = ", ".join(str(r) for r in sorted(absent)[:16]) + (" ..." if len(absent) > 16 else "")
            return _build(Cause.HANG, Initiator(), collateral, _collateral(group, None, facts), 0.35, facts,
                          inferred_by=f"ranks {named} never joined a collective the others wait in; "
                                      "none stands out as the one that stopped")
    live_stalls = [f for f in stalls if f.role is Role.INITIATOR]
    if not collateral and live_stalls:
        # every rank stopped at the same step and nothing singles one out: still a hang
        return _build(Cause.HANG, Initiator(), live_stalls, _collateral(group, None, facts), 0.4, facts,
                      inferred_by="every rank stopped making progress together; none stands out")
    if not collateral:
        return None
    timeouts = [f for f in collateral if _collective_timeout(f)]
    if live_stalls and not timeouts:
        stops = [f.time for f in collateral if f.time is not None and f.rule in RECEIVED_SIGNAL and _sigterm(f)]
        # (a user's or an administrator's scancel: not "CANCELLED ... DUE TO TASK FAILURE", a requeue's)
        stops += [f.time for f in group if f.time is not None and f.rule == SLURM_STEP_ENDED and "CANCELLED" in f.text
                  and "DUE TO" not in f.text]
        if _stalled_long_before(min(stops, default=None), facts):
            # every rank stopped making progress long before the job was stopped from outside (a
            # SIGTERM, a scancel): a person or a script killed a job that hung, no preemption
            return _build(Cause.HANG, Initiator(), [*live_stalls, *collateral], _collateral(group, None, facts), 0.4,
                          facts, inferred_by="every rank stopped making progress long before the job was stopped "
                                             "from outside (a job that hung, killed); none stands out")
    # (a rank told of another's collective timeout, Flight Recorder's dump signal, is one too; so is
    # a wave of SIGABRT exits, the watchdog's teardown: pipeline.findings._abort_waves)
    stopping = timeouts or [f for f in collateral if f.rule in (RULE_NCCL_TEARDOWN, "torch.dump_signal")
                            or f.field("abort_wave")]
    dumped = [f for f in collateral if f.rule == RULE_STACK_COLLECTIVE]  # (terminal ones: above)
    if not stopping and dumped and all(f.rule == RULE_STACK_COLLECTIVE or f.cause is None for f in collateral):
        # stack dumps of the stopped job (the logs' last words) show its ranks waiting in
        # collectives, nothing else failed; a rank whose dump waits for its data loader starves them
        loader = next((f for f in group if f.rule == RULE_STACK_LOADER and terminal(f, facts)), None)
        if loader is not None:
            return _build(Cause.DATA_LOADER_STALL, _initiator_for(loader.rank, loader.node, facts, [loader]),
                          [loader, *collateral], _collateral(group, loader.rank, facts), 0.45, facts,
                          inferred_by="its stack dump waits for the data loader's next batch while the other "
                                      "ranks' dumps wait in a collective")
        waits = _different_collectives(dumped)
        if waits:
            # the dumps wait in different collectives: the ranks issued different ones (a rank
            # in all_reduce while others are in reduce_scatter waits for a call that never comes)
            return _build(Cause.COLLECTIVE_MISMATCH, Initiator(), collateral, _collateral(group, None, facts), 0.4,
                          facts, inferred_by=f"stack dumps show ranks waiting in different collectives "
                                             f"({', '.join(waits[:4])}): they issued different collectives")
        dump_apart = _dump_apart(group, dumped, facts)
        if dump_apart is not None:
            odd, where = dump_apart
            return _build(Cause.HANG, _initiator_for(odd.rank, odd.node, facts, [odd]), [odd, *collateral],
                          _collateral(group, odd.rank, facts), 0.45, facts,
                          inferred_by=f"its stack dump is the only one not waiting in a collective ({where}) while "
                                      f"the other {len({f.file for f in dumped})} dumps wait in one: the others "
                                      "wait for it")
        return _build(Cause.HANG, Initiator(), collateral, _collateral(group, None, facts), 0.35, facts,
                      inferred_by="stack dumps show the ranks waiting in a collective "
                                  f"({', '.join(sorted({f.field('func') or f.field('ffunc') or '?' for f in dumped}))}) "
                                  "and none left evidence of failing; none stands out as the one that stopped")
    early = _exited_before_the_timeouts(group, timeouts)
    if early is not None:
        exit_f, ahead = early
        return _build(Cause.PYTHON_EXCEPTION, _initiator_for(exit_f.rank, exit_f.node, facts, [exit_f]),
                      [exit_f, *collateral], _collateral(group, exit_f.rank, facts), 0.5, facts,
                      inferred_by=f"its worker exited with code 1 (an uncaught error, its traceback not in these logs) "
                                  f"{ahead} before the other ranks timed out waiting in a collective: they waited for it")
    if stopping and not any(_peer_lost_first(f, stopping) for f in collateral):
        # ranks timed out waiting in a collective (the rest of the collateral is their own teardown)
        # and no line says a peer died or its connection broke: the collective hung (some rank
        # never entered it); which one, nothing here says
        if _progressed(group):
            return _build(Cause.STRAGGLER, Initiator(), collateral, _collateral(group, None, facts), 0.35, facts,
                          inferred_by=f"the ranks timed out waiting in a collective and {PROGRESSED_WHY}; "
                                      "which rank was slow, nothing here says")
        if all(f.field("abort_wave") for f in stopping):
            how = ("the ranks all aborted at once (SIGABRT), as NCCL's watchdog takes every waiting rank down "
                   "after a collective timeout,")
        else:
            how = "the ranks timed out waiting in a collective"
        return _build(Cause.HANG, Initiator(), collateral, _collateral(group, None, facts), 0.35, facts,
                      inferred_by=f"{how} and none left evidence of failing; none stands out as the one that stopped")
    reporting = {f.rank for f in collateral if f.rank is not None}
    quiet = set(facts.ranks) - reporting if reporting else set()
    if not timeouts and any(f.cause is Cause.NETWORK for f in collateral) and not quiet:
        # the only failures are the network's (flushed InfiniBand work requests, broken sockets),
        # no rank left evidence of dying and every rank that logged reports them (a rank that fell
        # silent while the others saw sockets break is more likely dead than the network): the
        # fabric or a link, which one unknown
        return _build(Cause.NETWORK, Initiator(), collateral, _collateral(group, None, facts), 0.35, facts,
                      inferred_by="the ranks saw only network errors and none left evidence of failing")
    sent = [f for f in collateral if f.rule in SIGNAL_SENT]
    if (sent and all(f.field("signal") == "SIGHUP" for f in sent)
            and all(f.rule in SIGNAL_SENT or (f.rule == RULE_EXIT_CODE and _teardown_exit(f)) for f in collateral)):
        # torchrun tears its workers down with SIGTERM after one failed; it passes SIGHUP on only
        # when it got one itself (its terminal or ssh session closed, no nohup): nothing failed
        return _build(Cause.PREEMPTION, Initiator(), collateral, _collateral(group, None, facts), 0.4, facts,
                      inferred_by="the launcher passed a SIGHUP on to its workers: it got one itself (the terminal "
                                  "or ssh session it ran in closed) and no line says anything failed before")
    stopped = _stopped_from_outside(collateral, timeouts, facts)
    if stopped is not None:
        return _build(Cause.PREEMPTION, Initiator(), collateral, _collateral(group, None, facts), 0.4, facts,
                      inferred_by=f"{stopped} and no line says that anything failed before: the job was stopped "
                                  "from outside (a scheduler's preemption or eviction, a time limit, a user)")
    tearing = [f for f in collateral if f.rule in SIGNAL_SENT and f.node]
    if tearing and len(tearing) == len(collateral) and len({f.node for f in tearing}) == 1:
        # the only lines: one node's launcher tearing its workers down; one of them failed there
        node = tearing[0].node
        return _build(Cause.UNKNOWN, _initiator_for(None, node, facts, []), collateral,
                      _collateral(group, None, facts), 0.3, facts,
                      inferred_by=f"the launcher on {node} tore its workers down (one of them failed there) and "
                                  "no line says what failed")
    cancelled = [f for f in group if f.rule == SLURM_STEP_ENDED and f.field("time") and not f.field("reason")
                 and "CANCELLED" in f.text and terminal(f, facts)]
    # (data preparation the job was still in when cancelled is a straggler's wait, not a cancel;
    # preparation that training went on after is not)
    preparing = any(f.rule == RULE_DATA_PREP and (f.line or 0) >= facts.last_progress.get(f.file or "", 0)
                    for f in group)
    # (a last word that names what failed before the cancel, a store's host that never resolved
    # to its end, is the last resort's to read: the job was cancelled because it was stuck there;
    # a launcher's own traceback as it was stopped names nothing)
    said = (cancelled and any(f.role is Role.CONTEXT and f.rule in LAST_RESORT_RULES and f.rule != SLURM_STEP_ENDED
                              for f in group)
            and (words := last_resort(group, facts)) is not None
            and words.cause not in (Cause.PREEMPTION, Cause.UNKNOWN))
    if (cancelled and not timeouts and not preparing and not said
            and not _stalled_long_before(min((f.time for f in cancelled if f.time is not None), default=None), facts)
            and all(f.rule.startswith("scheduler.") or f.rule in SIGNAL_SENT or f.rule in RECEIVED_SIGNAL
                    or (f.rule == RULE_EXIT_CODE and _teardown_exit(f)) for f in collateral)):
        # the only other lines are the step's own teardown: someone cancelled the job (scancel),
        # nothing failed before it
        return _build(Cause.PREEMPTION, _initiator_for(None, None, facts, []), [*cancelled, *collateral],
                      _collateral(group, None, facts), 0.35, facts,
                      inferred_by="Slurm cancelled the job (scancel, by a user or an administrator) and no line "
                                  "says that anything failed before")
    if (all(f.rule in SIGNAL_SENT or f.rule in (RULE_LOCAL_CLOSE, RULE_NCCL_PROXY)
            or (f.rule == RULE_EXIT_CODE and _teardown_exit(f)) for f in collateral)
            and any(f.rule == "python.traceback" and terminal(f, facts) and f.line is not None
                    and all(c.file != f.file or (c.line or 0) > f.line for c in collateral) for f in group)):
        # only the launcher's teardown (its SIGTERMs, NCCL's proxies seeing local peers close) after
        # a rank's traceback whose exception line the paste cut: that traceback, printed before any of
        # it, says more (the last resort); one printed during the teardown is the teardown's
        return None
    silent_one = _the_one_rank_the_others_lost(group, collateral, facts)
    if silent_one is not None:
        # every other rank lost its connection to a peer and this one's log simply stops, with no
        # line of its own: its process ended without a word (killed: SIGKILL, the OOM killer)
        return _build(Cause.UNKNOWN, _initiator_for(silent_one, None, facts, []), collateral,
                      _collateral(group, silent_one, facts), 0.35, facts,
                      inferred_by=f"every other rank lost its connection to a peer, and rank {silent_one}'s log stops "
                                  "before that with no error of its own: its process ended without a word (a "
                                  "SIGKILL, the OOM killer, a crash that printed nothing)")
    lost_to = _the_one_peer_lost(collateral, facts)
    if lost_to is not None:
        # the ranks lost their connection to one host (gloo's "Connection closed by peer
        # [10.0.1.17]:22780") and no line of that host's own is here: what ended there, its
        # process or its link, is not said, but that is where to look
        return _build(Cause.UNKNOWN, _initiator_for(None, lost_to, facts, []), collateral,
                      _collateral(group, None, facts), 0.3, facts,
                      inferred_by=f"every rank that failed lost its connection to {lost_to} and no line from there "
                                  "says why (its process died or its link failed)")
    return _build(Cause.UNKNOWN, Initiator(), collateral, _collateral(group, None, facts), 0.3, facts,
                  inferred_by="no rank left initiator-grade evidence and none stands out")


def _peer_host(f: Finding) -> str:
    """The host of the peer a lost connection names, as the line names it ("10.0.14.110<37564>",
    "[10.0.1.17]"), or ""."""
    return (f.field("peer") or "").split("<", 1)[0].strip("[]")


def _the_one_rank_the_others_lost(group: Sequence[Finding], collateral: Sequence[Finding],
                                  facts: RunFacts) -> int | None:
    """The one rank of the logs that left no line of evidence at all while every other rank lost
    its connection to a peer (gloo's "Connection closed by peer", NCCL's remote errors), its log
    ending no later than the first of those losses; else None. (Ranks launched one by one, each
    with its own log: no launcher says which process died.)"""
    lost = [f for f in collateral if f.rank is not None and any(h in f.rule for h in PEER_LOST_HINTS)]
    known = set(facts.ranks)
    if not lost or len(known) < 2 or (facts.world_size and facts.world_size != len(known)):
        return None
    # (every loss naming a peer on another machine, one none of these ranks runs on: the logs are
    # one node's of a bigger job and the peer is where to look, not a rank of this node that was
    # only torn down)
    peers = {host_key(p) for f in lost if (p := _peer_host(f))}
    if any(names_a_host(p) for p in peers):
        return None
    said = {f.rank for f in group if f.rank is not None}
    quiet = known - said
    if len(quiet) != 1 or {f.rank for f in lost} != known - quiet:
        return None
    rank = next(iter(quiet))
    last = facts.ranks[rank].last_time
    first_loss = min((f.time for f in lost if f.time is not None), default=None)
    # (a loss's traceback lines bear no stamp of their own: the file's last stamp stands for them,
    # a step that each rank logged in the same second)
    if last is None or first_loss is None or last > first_loss + QUIET_SLACK:
        return None
    return rank


QUIET_SLACK = timedelta(seconds=5)


def _the_one_peer_lost(collateral: Sequence[Finding], facts: RunFacts) -> str | None:
    """The one peer host (an address or a name) that every collateral line naming a lost peer
    names, where each such line names one and no rank of the logs runs on it; else None."""
    lost = [f for f in collateral if any(h in f.rule for h in PEER_LOST_HINTS)]
    # (the host as a line names it: "10.0.14.110<37564>", "[10.0.1.17]")
    peers = [_peer_host(f) for f in lost]
    if not lost or not all(peers) or len({host_key(p) for p in peers}) != 1 or not names_a_host(peers[0]):
        return None  # (a loopback address: a process of the same host, no node to name)
    if any(r.node is not None and host_key(r.node) == host_key(peers[0]) for r in facts.ranks.values()):
        return None
    return peers[0]


DUMP_BEFORE_TIMEOUTS = 60  # lines from a stalled rank's stack dump to the first collective timeout after it


def _last_words_or_before_the_timeouts(f: Finding, facts: RunFacts) -> bool:
    """``f`` is among its file's last words (:func:`terminal`), or, in a log the others' long
    teardown ends (a combined log of many ranks: their stack traces, the launcher's), no line of
    training progress is among the file's last lines and ``f`` came at most
    :data:`DUMP_BEFORE_TIMEOUTS` lines before the file's first collective timeout: the others gave
    up waiting right after it."""
    if terminal(f, facts):
        return True
    if not facts.ended or f.file is None or f.line is None or facts.last_progress.get(f.file) is not None:
        return False
    first = min((g.line for g in facts.findings if g.file == f.file and g.line is not None and g.line > f.line
                 and _collective_timeout(g)), default=None)
    return first is not None and first - f.line <= DUMP_BEFORE_TIMEOUTS


def terminal(f: Finding, facts: RunFacts) -> bool:
    """``f`` is among the last words of its file, in logs read to their end (a replay): after the
    file's last line of training progress (a step, a progress bar, the end of training) and
    among its last :data:`TERMINAL_LINES` lines. A retry, a dump or a traceback that training went
    on after is no failure."""
    if not facts.ended or f.file is None or f.line is None:
        return False
    total = facts.file_lines.get(f.file)
    progress = facts.last_progress.get(f.file)
    return total is not None and 0 <= total - f.line < TERMINAL_LINES and (progress is None or f.line >= progress)


# a line printed just before the first collective: a failure only as a log's very last line
SETUP_LAST_WORDS = "launcher.setup_last_words"
NCCL_TESTS_HEADER = "launcher.nccl_tests_header_last"  # (the last line itself: no result row after it)
NCCL_TESTS_ROW = "launcher.nccl_tests_row"  # (a row of its table: the sweep got this far)
NCCL_TESTS_SUMMARY = "launcher.nccl_tests_summary"  # (its average bus bandwidth: the sweep ended)
SWEEP_END_WITHIN = 12  # lines from nccl-tests' last row to the scheduler's end of the job (its teardown's lines)
# Slurm ending a job from outside: its time limit, a user's scancel
SCHEDULER_ENDS = frozenset({"scheduler.slurm_time_limit", SLURM_STEP_ENDED})
STORE_BARRIER_WAITING = "torch.store_barrier_waiting"  # (a rank waiting for the others to join the group)
LAST_LINES = 3


def stopped_in_a_test_sweep(f: Finding, group: Sequence[Finding]) -> bool:
    """``f`` (a row of nccl-tests' table, or the scheduler's end of the job) lies in a file whose
    last nccl-tests row before the scheduler's end has no summary after it: the sweep stopped in
    its next collective and sat there until the scheduler ended the job (its time limit). A
    table that ends with no scheduler's word after it (a paste cut by its user) says nothing."""
    if f.file is None or f.line is None:
        return False
    same = [g for g in group if g.file == f.file and g.line is not None]
    # (a requeue or a task's failure is no end from outside that a stopped test sat until)
    ends = [g.line for g in same if g.rule in SCHEDULER_ENDS and g.line is not None and not g.field("reason")]
    if f.rule == NCCL_TESTS_ROW:
        ends = [e for e in ends if e > f.line]
    elif f.rule in SCHEDULER_ENDS and not f.field("reason"):
        ends = [f.line]
    else:
        return False
    if not ends:
        return False
    end = min(ends)
    rows = sorted((g.line, small_int(g.field("size"), digits=13)) for g in same
                  if g.rule == NCCL_TESTS_ROW and g.line is not None and g.line < end)
    if not rows or (f.rule == NCCL_TESTS_ROW and f.line != rows[-1][0]):
        return False
    if end - rows[-1][0] > SWEEP_END_WITHIN:
        return False  # (lines after the table: a test cut by its own timeout, then training went on)
    if any(g.rule == NCCL_TESTS_SUMMARY for g in same if (g.line or 0) < end):
        return False  # (a sweep of this file finished: a loop of sweeps, which the limit cut)
    sizes = [size for _line, size in rows]
    # (sizes that fall back: the sweep ran again, "-N 0" or "-n" cycles of a burn-in)
    return all(a is not None and b is not None and a <= b for a, b in itertools.pairwise(sizes))


def at_the_end(f: Finding, facts: RunFacts, lines: int = LAST_LINES) -> bool:
    """``f`` is one of the last ``lines`` lines of its file, in logs read to their end."""
    total = facts.file_lines.get(f.file or "") if facts.ended else None
    return total is not None and f.line is not None and 0 <= total - f.line < lines


# last-resort rules that count only near the very end of their file (a report a healthy run also
# prints: a host at 95% memory is normal for ZeRO-inference; a log that stops soon after is not)
# rules/python.yaml: a frame a paste that began and stopped inside a traceback ends on (its last or
# next-to-last line: the frame and its code line)
TRACEBACK_FRAME = "python.traceback_frame"
# vLLM's engine waiting for its workers (a minute each): its last line, not yet stopped
VLLM_SHM_WAIT = "launcher.vllm_shm_broadcast_wait"
NEAR_THE_END = {SETUP_LAST_WORDS: LAST_LINES, VLLM_SHM_WAIT: LAST_LINES, NCCL_TESTS_HEADER: 1, STORE_BARRIER_WAITING: 30, "launcher.deepspeed_host_memory_full": 10,
               "nccl.connect_retry_refused": 5, TRACEBACK_FRAME: 2, "torch.store_wait_poll_timeout": 10,
               "torch.store_key_wait_timeout": LAST_LINES}
# last-resort rules that count only repeated among a file's last words: a peer refusing one
# connection is start-up; refusing it again and again to the end, the job never formed
REPEATED_LAST_WORDS = {"nccl.connect_retry_refused": 2, "torch.store_bind6_in_use": 2, VLLM_SHM_WAIT: 2,
                       "torch.store_socket_timeout_retry": 2}


# last-resort rules (warnings) that count only with a failure reported after them in their file: a
# run that went on without what they lack (NCCL over sockets) prints them too
BEFORE_A_FAILURE = frozenset({"rdma.verbs_no_provider"})


# what NCCL (and the programs on it) report when a transport could not be set up or used
_NET_FAILURE = re.compile(r"internal error|system error|remote process exited|NET/(?:IB|Socket)|ibv_|network", re.IGNORECASE)


def _failed_after(f: Finding, group: Sequence[Finding]) -> bool:
    """Another line of ``f``'s file, after it, reports a failure of the network's kind (NCCL's
    internal or system error, a remote error, its IB transport's); a set-up error of another kind
    (invalid usage, a device ordinal) is no sign of the missing driver."""
    return f.line is not None and any(
        g.file == f.file and g.line is not None and g.line > f.line and g.severity is Severity.ERROR
        and (g.cause is Cause.NETWORK or _NET_FAILURE.search(g.text) is not None) for g in group)


# an abort or a driver fault that other evidence usually explains (the C++ abort after a watchdog
# error, a fault handler's SIGABRT), connection retries that may yet succeed: context while anything
# else says what failed, the incident's cause when nothing does
GDB_THREAD_STACK = "generic.gdb_thread_stack"  # rules/generic.yaml: gdb's "Thread 16 (Thread 0x... (LWP n) "name"):"
NCCL_KERNEL_STACK = "nccl.device_kernel_stack"  # rules/nccl.yaml: cuda-gdb's threads of a kernel in NCCL's prims_ll.h
WRAPPED_LAUNCHER_EXIT = "launcher.wrapped_launcher_exit"  # rules/launchers.yaml
LAST_RESORT_RULES = frozenset({"python.fatal_abort", "torch.c10_fatal_abort", "torch.cpp_terminate", "generic.caught_signal_abort",
                               "generic.mpi_signal_abort", "generic.mpi_error_message_end", "generic.mpi_signal_received", "generic.ucx_backtrace",
                               "generic.mpi_backtrace_frame",
                               "python.hydra_job_error",
                               "xid.uvm_fatal",
                               "python.traceback", TRACEBACK_FRAME, "launcher.sglang_process_exception",
                               "nccl.connect_retry_unreachable", "nccl.connect_retry_refused",
                               "torch.store_connect_unreachable", "torch.store_socket_timeout_retry", "torch.store_wait_poll_timeout",
                               "torch.store_key_wait_timeout",
                               "python.stack_dump_main_thread", GDB_THREAD_STACK, NCCL_KERNEL_STACK, RULE_STACK_LOADER, SETUP_LAST_WORDS,
                               "launcher.deepspeed_host_memory_full", "launcher.pals_rank_abort",
                               "torch.store_bind_in_use", "torch.store_bind6_in_use", "generic.address_in_use",
                               "torch.store_addr_unresolved", "generic.storage_errno_logged",
                               NCCL_TESTS_HEADER, NCCL_TESTS_ROW, STORE_BARRIER_WAITING, "launcher.msrun_worker_exit",
                               WRAPPED_LAUNCHER_EXIT,
                               "launcher.tpu_init_waiting", SLURM_STEP_ENDED, VLLM_SHM_WAIT, "rdma.verbs_no_provider"})
# a last-resort rule that names no cause of its own: the cause it stands for (a traceback whose
# exception line the paste cut)
LAST_RESORT_CAUSE = {"python.traceback": Cause.PYTHON_EXCEPTION, TRACEBACK_FRAME: Cause.PYTHON_EXCEPTION,
                     "launcher.sglang_process_exception": Cause.PYTHON_EXCEPTION,
                     "python.stack_dump_main_thread": Cause.HANG, GDB_THREAD_STACK: Cause.HANG,
                     NCCL_KERNEL_STACK: Cause.HANG}


# frames of the launchers' own code (torch.distributed.launch / torchrun, DeepSpeed's and
# accelerate's launchers) and of the interpreter's entry
_LAUNCHER_FRAMES = ("torch/distributed/launch.py", "torch/distributed/run.py", "torch/distributed/elastic/",
                    "torch/distributed/launcher/", "/runpy.py", "/bin/torchrun", "/bin/deepspeed", "deepspeed/launcher/",
                    "/bin/accelerate", "accelerate/commands/", "oneflow/distributed/launch.py",
                    "paddle/distributed/launch/", "paddle/distributed/fleet/launch")
_FRAME_FILE = re.compile(r'File "([^"]{1,500})"')


def _launcher_traceback(f: Finding) -> bool:
    """A traceback (its following lines) whose frames are all a launcher's own: the launcher
    raising (CalledProcessError, ChildFailedError) because a worker failed."""
    frames = _FRAME_FILE.findall("\n".join(f.context))
    return bool(frames) and all(any(p in frame for p in _LAUNCHER_FRAMES) for frame in frames)


def _cancelled_step(f: Finding) -> bool:
    """Slurm's "*** STEP|JOB n ON host CANCELLED AT t ***" (not "FAILED", not "DUE TO TASK
    FAILURE"): the scheduler or a user ended the job. Alone among a log's last words, with
    nothing failing before it, that is the cause: a preemption, a time limit or an scancel."""
    return f.rule == SLURM_STEP_ENDED and f.field("time") is not None and f.field("reason") != "TASK FAILURE"


def _ranks_claimed_twice(group: Sequence[Finding]) -> list[Finding]:
    """The lines of a global rank that two processes claimed as they joined (Lightning's
    "initializing ddp: GLOBAL_RANK: k"), in one attempt; [] when none was."""
    by: dict[tuple[int | None, str | None], list[Finding]] = defaultdict(list)
    for f in group:
        if f.rule == "launcher.lightning_init_rank":
            by[(f.attempt, f.field("global_rank"))].append(f)
    # (claims all from one task its prefix names, an srun label, are one process joining again:
    # a second program of the same job, an evaluation after the training)
    return next((fs for fs in by.values() if len(fs) >= 2
                 and not (fs[0].rank is not None and all(f.rank == fs[0].rank for f in fs))), [])


SPAWN_RAISED = "launcher.mp_spawn_raised"  # "-- Process 3 terminated with the following error:"


def _spawned_traceback(seen: Sequence[Finding], facts: RunFacts) -> Finding | None:
    """A traceback that torch.multiprocessing.spawn printed under its "-- Process N terminated
    with the following error:" header (the header's line or the one after it), given rank N when
    the traceback names none."""
    heads = [f for f in facts.findings if f.rule == SPAWN_RAISED and f.line is not None
             and (f.rank is not None or f.local_rank is not None)]
    for tb in seen:
        if tb.rule not in LAST_RESORT_CAUSE or tb.line is None:
            continue
        head = next((h for h in heads if h.file == tb.file and 0 < tb.line - (h.line or 0) <= 2), None)
        if head is not None:
            return tb if tb.rank is not None else dataclasses.replace(tb, rank=head.rank, local_rank=head.local_rank)
    return None


# a traceback a logger wrote at warning or info level (glog's "W0412 22:16:09.399000 91330
# codecache.py:1021] Traceback", logging's "WARNING ... Traceback"): an exception the program
# caught and went on after (a cache entry it could not load), no last word of a failure
_LOGGED_WARNING = re.compile(r"(?:^|[\]:\s])[WI][01][0-9][0-3][0-9] [0-9:.]{8,15} +[0-9]{1,10} [^\s\]]{1,200}\] (?:\[[0-9/]{1,20}\] )?Traceback"
                             r"|\bWARNING\b.{0,200}Traceback")


STORE_WAIT_TIMEOUT = "torch.store_wait_poll_timeout"
STORE_KEY_WAIT = "torch.store_key_wait_timeout"  # rules/torch.yaml: "DistStoreError: wait timeout after ..."
RAISED_WITHIN = 3  # lines from a store's wait running out to the traceback it raised


def _raised_from_the_wait(f: Finding, group: Sequence[Finding], facts: RunFacts) -> bool:
    """A store wait that ran out (``f``), then at once the traceback of the wait's exception on the
    same rank, whose lines end the file with its exception line cut: the wait is the failure's
    last word as much as if the log had ended on it (the traceback says only where it waited). Not
    the launcher's own wait (its frames all the launcher's: the rendezvous of a job that never
    formed, not a rank waiting for a peer)."""
    if f.rule != STORE_WAIT_TIMEOUT or f.line is None:
        return False
    tb = next((g for g in group if g.rule == "python.traceback" and g.file == f.file and g.rank == f.rank
               and g.line is not None and 0 < g.line - f.line <= RAISED_WITHIN), None)
    if tb is None or tb.line is None or not terminal(tb, facts) or _launcher_traceback(tb):
        return False  # (the launcher's own wait: its rendezvous, the job never formed)
    return not any(g.file == f.file and g.line is not None and g.line > tb.line and g.rule != TRACEBACK_FRAME for g in group)


def last_resort(group: Sequence[Finding], facts: RunFacts) -> Incident | None:
    """An incident from the context lines that name a failure (a process aborted on an uncaught
    C++ exception, a fault handler's abort) when no rank left other evidence: what was seen, at
    low confidence, on the rank or node the first such line names. Only lines among the last
    words of their file count (:func:`terminal`): a retry or a dump that training went on after
    is no failure."""
    twice = _ranks_claimed_twice(group)
    if twice and all(terminal(f, facts) for f in twice):  # (and nothing trained after them)
        return _build(Cause.HANG, Initiator(), twice, (), 0.4, facts,
                      inferred_by=f"two processes joined the process group as global rank {twice[0].field('global_rank')} "
                                  "(every node computed the same ranks: the node rank or the launcher's settings): "
                                  "the group cannot form, the job waits at its start")
    repeats = Counter((f.rule, f.file) for f in group if f.rule in REPEATED_LAST_WORDS and terminal(f, facts))
    # a file whose traceback frames follow other evidence (a traceback's header, a launcher's
    # error it belongs to): those readings decide, not the frames; the frames count where the
    # paste began and ended inside one traceback
    last_frame: dict[str, int] = {}
    for g in group:
        if g.rule == TRACEBACK_FRAME and g.file is not None:
            last_frame[g.file] = max(last_frame.get(g.file, 0), g.line or 0)
    headed = {f.file for f in group if f.rule != TRACEBACK_FRAME and f.file is not None and f.line is not None
              and last_frame.get(f.file, 0) > f.line}
    # (each file's last nccl-tests row, where its sweep stopped until the scheduler ended the job:
    # looked at once, not once a row)
    rows_of: dict[str, list[Finding]] = defaultdict(list)
    for g in group:
        if g.rule == NCCL_TESTS_ROW and g.file is not None and g.line is not None:
            rows_of[g.file].append(g)
    last_rows = []  # (the last row before each of the scheduler's ends in the file)
    for file, rows in rows_of.items():
        for end in {g.line for g in group if g.file == file and g.rule in SCHEDULER_ENDS and g.line is not None}:
            before = [r for r in rows if (r.line or 0) < end]
            if before:
                last_rows.append(max(before, key=lambda r: r.line or 0))
    stalled_rows = {id(g) for g in last_rows if stopped_in_a_test_sweep(g, group)}
    seen = sorted((f for f in group if f.role is Role.CONTEXT and f.rule in LAST_RESORT_RULES
                   and ((f.cause or LAST_RESORT_CAUSE.get(f.rule)) is not None or _cancelled_step(f))
                   and not (f.rule == "python.traceback" and _LOGGED_WARNING.search(f.text, 0, 400))
                   and terminal(f, facts)
                   and (f.rule not in NEAR_THE_END or at_the_end(f, facts, NEAR_THE_END[f.rule])
                        or _raised_from_the_wait(f, group, facts))
                   and not (f.rule == TRACEBACK_FRAME and f.file in headed)
                   and (f.rule not in BEFORE_A_FAILURE or _failed_after(f, group))
                   and (f.rule != NCCL_TESTS_ROW or id(f) in stalled_rows)
                   and repeats[(f.rule, f.file)] >= REPEATED_LAST_WORDS.get(f.rule, 0)),
                  key=lambda f: (f.time is None, f.time.timestamp() if f.time else 0.0, f.rule in LAST_RESORT_CAUSE,
                                 f.file or "", f.line or 0))
    if any(f.rule != WRAPPED_LAUNCHER_EXIT for f in seen):
        # (a wrapper's word that the launcher failed says least of all: a cut traceback of a rank,
        # a stack dump, anything else says more)
        seen = [f for f in seen if f.rule != WRAPPED_LAUNCHER_EXIT]
    if any(not _cancelled_step(f) for f in seen):
        # the scheduler's cancellation is the cause only when no other last word says what failed
        # (a cut traceback, a stack dump of a hang the user then cancelled)
        seen = [f for f in seen if not _cancelled_step(f)]
    if not seen:
        return None
    first = seen[0]
    spawned = _spawned_traceback(seen, facts) if first.rule in LAST_RESORT_CAUSE else None
    if spawned is not None:  # the failing child's own traceback, under the parent's header naming it
        first = spawned
    cause = first.cause or (Cause.PREEMPTION if first.rule == SLURM_STEP_ENDED else LAST_RESORT_CAUSE[first.rule])
    launcher_own = first.rule == "python.traceback" and _launcher_traceback(first)
    if launcher_own:  # the launcher raising after a worker failed says nothing of what failed
        cause = Cause.UNKNOWN
    evidence = [f for f in seen if f.rank == first.rank and f.rule == first.rule]
    if first not in evidence:  # (the spawned child's traceback, given the rank its header names)
        evidence.insert(0, first)
    initiator = _initiator_for(first.rank, first.node, facts, evidence)
    if first.rule == NCCL_TESTS_ROW:  # (rank 0 prints the table: no sign it is the one that stopped)
        initiator = _initiator_for(None, None, facts, [])
    if first.rule == SLURM_STEP_ENDED:  # (the node the step ran on did nothing wrong)
        initiator = _initiator_for(None, None, facts, [])
        why = "Slurm cancelled the job (a user's scancel, a time limit or a preemption) and no line before it says anything failed"
    elif first.rule in (STORE_WAIT_TIMEOUT, STORE_KEY_WAIT):  # (the rank that waited is not the one that stopped)
        initiator = _initiator_for(None, None, facts, [])
        who = f"rank {first.rank}" if first.rank is not None else "a rank"
        why = (f"{who} waited in the store for a peer past its timeout and the log ends there (or in the traceback "
               "of that wait): a peer stopped before it reached the same point; no line says which one or why")
    elif first.rule == NCCL_TESTS_ROW:
        why = (f"nccl-tests' sweep stopped after its {first.field('size')}-byte row (no summary followed) and the "
               "scheduler ended the job later: the next collective never returned")
    elif first.rule in (SETUP_LAST_WORDS, NCCL_TESTS_HEADER):
        why = "the log ends on the line the job prints just before its first collective: it never got past it"
    elif first.rule == STORE_BARRIER_WAITING:
        why = (f"the log ends with a rank waiting for the others to join the process group ({first.field('worker_count')} of "
               f"{first.field('world_size')} had joined): the group never formed; check that every node started and "
               "that the world size, node count and node rank agree")
    elif first.rule == "launcher.tpu_init_waiting":
        why = ("the log ends on JAX's warning that the TPU backend is still waiting to initialise, for hosts of the "
               "slice that have not started the program (it must run on every host)")
    elif first.rule == "python.stack_dump_main_thread":
        why = "a stack dump of the stopped job (py-spy) and no line says what failed"
    elif first.rule == GDB_THREAD_STACK:
        why = "a native stack dump of the stopped job (gdb's backtrace of its threads) and no line says what failed"
    elif first.rule == NCCL_KERNEL_STACK:
        why = ("cuda-gdb shows the job's GPU kernel waiting inside an NCCL collective (its device code) and no line says "
               "what failed: a peer never sent its part")
    elif first.rule == RULE_STACK_LOADER:
        why = "a stack dump of the stopped job waits for its data loader's next batch and no line says what failed"
    elif launcher_own:
        why = ("the launcher's own traceback (it raises once a worker has failed), cut before its last line, and no "
               "line says what failed in the worker")
    elif first.rule in LAST_RESORT_CAUSE:
        why = "a Python traceback whose exception line is missing, and no other line says what failed"
    elif first.cause is Cause.HOST_OOM_KILL:
        why = "the host's memory was all but full in the log's last report and nothing after says what failed"
    elif first.rule in ("torch.store_bind_in_use", "torch.store_bind6_in_use", "generic.address_in_use"):
        why = "the store's port was held by another process and the log ends there"
    elif first.rule == "torch.store_addr_unresolved":
        why = (f"the store's host name ({first.field('store_host')}) could not be resolved and the log ends there: fix the "
               "name (MASTER_ADDR, /etc/hosts, DNS) or give the address")
    elif first.rule == VLLM_SHM_WAIT:
        why = ("vLLM's engine waited minute after minute for its workers to take the next step, and the log ends "
               "there: a worker is stuck (in a collective, a kernel, or on a peer that hung); no line says which")
    elif first.rule in BEFORE_A_FAILURE:
        why = (f"libibverbs found an RDMA device ({first.field('device')}) without its user-space driver (the provider "
               "library, libmlx5 and its kin, missing - most often from a container) just before the job failed: NCCL "
               "could not use the NIC; no other line says what failed")
    elif first.cause is Cause.NETWORK:
        why = "connections kept failing to reach a peer or the store and no other line says what failed"
    elif first.rule == WRAPPED_LAUNCHER_EXIT:
        why = ("the program that ran the launcher as a subprocess raised when the launcher failed, and no line of the "
               "launcher's or its workers' output says what failed: read the launcher's own output")
    else:
        what = first.field("exc_type")
        why = "a process aborted" + (f" on an uncaught {what}" if what else "") + " and no other line says what failed"
    return _build(cause, initiator, evidence, _collateral(group, first.rank, facts), 0.3, facts, inferred_by=why)


_WAIT_MS = re.compile(r"(?:timed out after|wait timeout after|Timeout\(ms\)=) ?(?P<ms>[0-9]{1,12}) ?(?:ms|\))")
DEFAULT_WAITS_S = (600.0, 1800.0)  # PyTorch's NCCL and store / Hugging Face's ddp_timeout defaults
MIN_PREP_S = 300.0  # a preparation shorter than five minutes says little of a wait that ran out
BAR_BEFORE = 5  # lines between the bar and the incident's first line (0: the same line, glued)
_TIMEOUT_WORDS = re.compile(r"time(?:d)? ?out|timeout|Timeout", re.IGNORECASE)


def _seconds(clock: str | None) -> float | None:
    """``"30:09"`` or ``"1:02:11"`` (a tqdm elapsed time) in seconds."""
    if not clock:
        return None
    total = 0.0
    for part in clock.split(":"):
        if not part.isdigit():
            return None
        total = total * 60 + int(part)
    return total


_LINE_PREFIX_RANK = re.compile(r"\s*\[(?:rank|default)([0-9]{1,6})\]:")


def _unfinished(bar: Finding) -> bool:
    """A progress bar short of its total (tqdm rounds 99.9% up to "100%")."""
    n, total = small_int(bar.field("n")), small_int(bar.field("total"))
    if n is not None and total:
        return n < total
    return (small_int(bar.field("pct")) or 0) < 100


RULE_RAS_MISMATCH = "nccl.ras_operation_mismatch"  # rules/nccl.yaml
RULE_RAS_COUNTS = "nccl.ras_operation_counts"


def ras_rank_behind(incident: Incident, facts: RunFacts) -> Incident | None:
    """An incident of NCCL's RAS mismatch report that names no initiator, given the one rank the
    report lists as having launched fewer operations than every other rank ("Rank 1 has launched
    up to operation 100 -- GPU 0 managed by process 6247 on node 10.0.109.86" beside "3 ranks have
    launched up to operation 101"): the others wait in the collective it never launched. Ranks
    listed ahead of the rest (two ranks at 641, thirty at 640) name none."""
    if incident.initiator.rank is not None or incident.initiator.node is not None:
        return None
    if not any(f.rule == RULE_RAS_MISMATCH for f in incident.evidence):
        return None
    lines = [f for f in facts.findings if f.rule == RULE_RAS_COUNTS and small_int(f.field("count"), digits=12) is not None]
    counts = [small_int(f.field("count"), digits=12) or 0 for f in lines]
    if len(lines) < 2 or len(set(counts)) < 2:
        return None
    low = min(counts)
    at_low = [f for f, c in zip(lines, counts, strict=True) if c == low]
    if len(at_low) != 1 or at_low[0].field("ras_rank") is None:
        return None
    behind = at_low[0]
    rank = small_int(behind.field("ras_rank"))
    if rank is None:
        return None
    ahead = max(counts)
    initiator = Initiator(rank=rank, node=behind.field("ras_node"), pid=small_int(behind.field("ras_pid")))
    return _build(incident.cause, initiator, [behind, *incident.evidence],
                  tuple(r for r in incident.collateral_ranks if r != rank), max(incident.confidence, 0.5), facts,
                  inferred_by=f"NCCL's RAS report lists rank {rank} as having launched up to operation {low} while "
                              f"the other ranks launched up to {ahead}: it is behind, and they wait in the "
                              "collective it never launched")


def data_prep_straggler(incident: Incident, facts: RunFacts) -> Incident | None:
    """The incident read again as a straggler when a data-preparation progress bar (tokenizing,
    a dataset map), unfinished and drawn just before the incident's first line (or on it), had
    run for as long as the others' wait when it ran out: the rank preparing the data was slow,
    the others gave up on it (the classic rank-0-tokenizes-first barrier). A python_exception is
    read again only when it is a timeout or a traceback the paste cut."""
    bars = [f for f in facts.findings if f.rule == RULE_DATA_PREP and _unfinished(f)]
    if not bars or incident.cause not in (Cause.HANG, Cause.PYTHON_EXCEPTION, Cause.UNKNOWN):
        return None
    if incident.cause is Cause.PYTHON_EXCEPTION and incident.confidence > 0.35 and not any(
            _TIMEOUT_WORDS.search(f.text or "") for f in incident.evidence):
        return None
    starts = [(f.file, f.line) for f in incident.evidence if f.file and f.line is not None and f.rule != RULE_DATA_PREP]
    waits = set(DEFAULT_WAITS_S)
    for f in facts.findings:
        ms = small_int(f.field("timeout_ms"))
        if ms:
            waits.add(ms / 1000)
        m = _WAIT_MS.search(f.text or "")
        if m:
            waits.add(int(m["ms"]) / 1000)
    for bar in sorted(bars, key=lambda f: (f.file or "", -(f.line or 0))):
        elapsed = _seconds(bar.field("elapsed"))
        if elapsed is None or bar.line is None:
            continue
        if not any(file == bar.file and 0 <= line - bar.line <= BAR_BEFORE for file, line in starts if line is not None):
            continue  # drawn long before the failure: the preparation had ended
        # a bar cut by another process's watchdog timeout on the same console line was being drawn
        # when that wait ran out (the bar's rank was working; an earlier step of its preparation
        # may have taken the rest of the wait)
        glued = "Watchdog caught" in (bar.text or "")
        owner = _LINE_PREFIX_RANK.match(bar.text or "")  # the bar's own rank prefix begins the line
        owned = (glued and owner is not None and int(owner[1]) in (bar.rank, bar.local_rank) and bar.rank is not None
                 and f"[Rank {bar.rank}]" not in (bar.text or ""))  # (not the bar's rank's own timeout)
        wait = next((w for w in sorted(waits) if w > 0 and abs(elapsed - w) <= max(30.0, 0.05 * w)), None)
        if not owned and (wait is None or elapsed < MIN_PREP_S):
            continue
        when = ", still drawn when another rank's watchdog timeout cut its line" if owned else \
            f" when the others' wait of {wait:g} s ran out"
        why = (f"'{(bar.field('desc') or 'data preparation').strip()}' was {bar.field('pct')}% done after "
               f"{bar.field('elapsed')}{when}: the rank preparing the data was slow, not stuck")
        # (a finding glued onto a bar whose own rank prefix begins the line is another process's
        # output, given the bar's rank by that prefix)
        waiting = {f.rank for f in incident.evidence if f.rank is not None and f is not bar
                   and not (owned and f.file == bar.file and f.line == bar.line)}
        waiting |= {r for r in incident.collateral_ranks if not owned or r != bar.rank}
        # (a rank on the bar's line that is one of those waiting is the timeout's, glued to the bar)
        rank = bar.rank if bar.rank not in waiting else None
        if rank is None and waiting and 0 not in waiting:
            rank = 0  # the bar names no rank; the ranks that gave up waiting are the others
            why += " (the main process, rank 0, prepares the data while the others wait)"
        elif (rank is None and not waiting and len({r.node for r in facts.ranks.values() if r.node}) <= 1
              and any(f.rule == RULE_MAIN_FIRST and f.rank != 0 and not (f.field("fn") or "").startswith("local")
                      for f in facts.findings)):
            # no line names a rank, but a traceback (of a rank other than 0, or of none) waits in a
            # main-process-first barrier of a one-node run: the ranks that wait there are the
            # others, and the main process is rank 0 (a local variant, or several nodes: each
            # node's first process prepares, so no global rank follows)
            rank = 0
            why += " (a traceback waits in a main-process-first barrier: the main process, rank 0, prepares the data)"
        initiator = _initiator_for(rank, None, facts, [bar]) if rank is not None else Initiator()
        collateral = tuple(r for r in incident.collateral_ranks if r != rank)
        return _build(Cause.STRAGGLER, initiator, [bar, *incident.evidence], collateral, 0.5, facts, inferred_by=why)
    return None


MAIN_FIRST_BEFORE = 40  # lines from a traceback's main-process-first frame to its last line

_WAIT_EXCEPTIONS = frozenset({"KeyboardInterrupt", "RuntimeError", "DistBackendError", "DistStoreError",
                              "torch.distributed.DistBackendError", "torch.distributed.DistStoreError"})


_STORE_GAVE_UP = frozenset({"torch.store_unanswered", "torch.dist_error"})


def main_first_straggler(incident: Incident, facts: RunFacts) -> Incident | None:
    """The incident read again as a straggler of rank 0 when a rank's traceback shows it waiting
    in a main-process-first barrier (Hugging Face's ``main_process_first``, Ultralytics'
    ``torch_distributed_zero_first``: the main process prepares the data, the others wait) and
    what the incident holds is that wait running out: collective timeouts, or an exception that
    names a timeout or was an interrupt. Rank 0's own failure (an initiator finding of rank 0)
    keeps the incident as it is. A store's socket timing out there (the network's only when
    nothing else failed) is that wait too."""
    if incident.cause not in (Cause.HANG, Cause.PYTHON_EXCEPTION, Cause.UNKNOWN) and not (
            incident.cause is Cause.NETWORK and all(f.rule in _STORE_GAVE_UP for f in incident.evidence)):
        return None
    if incident.initiator.rank == 0 or 0 in incident.collateral_ranks or any(f.rank == 0 for f in incident.evidence):
        return None  # rank 0 failed, timed out or waited too: it was not the one the others waited for
    # a wait in the barrier just before one of the incident's lines (the traceback that ends in it)
    lines = [(f.file, f.line) for f in incident.evidence if f.file and f.line is not None]
    waits = [f for f in facts.findings if f.rule == RULE_MAIN_FIRST and f.rank != 0 and f.line is not None
             and any(file == f.file and 0 < line - (f.line or 0) <= MAIN_FIRST_BEFORE for file, line in lines)]
    if not waits:
        return None
    if any(f.role is Role.INITIATOR and f.cause is Cause.PYTHON_EXCEPTION and f.field("exc_type") not in _WAIT_EXCEPTIONS
           and not _TIMEOUT_WORDS.search(f.text or "") for f in incident.evidence):
        return None  # a failure of its own (not the wait running out)
    timed_out = any(_TIMEOUT_WORDS.search(f.text or "") or f.field("exc_type") == "KeyboardInterrupt"
                    for f in incident.evidence)
    if not timed_out:
        return None
    fn = waits[0].field("fn") or "main_process_first"
    why = (f"a rank waited in {fn} (the main process prepares the data while the others wait in a barrier) "
           "when its wait ran out or was interrupted: rank 0 was slow, not stuck")
    return _build(Cause.STRAGGLER, _initiator_for(0, None, facts, [waits[0]]), [*incident.evidence, waits[0]],
                  incident.collateral_ranks, 0.45, facts, inferred_by=why)


RULES_SAVING = frozenset({"torch.checkpoint_saving", "torch.checkpoint_saving_line"})
SAVE_BEFORE = 8  # lines between the save's last line and the first timeout
_SAVE_WAITS = frozenset({Cause.HANG, Cause.UNKNOWN})


def checkpoint_save_straggler(incident: Incident, facts: RunFacts) -> Incident | None:
    """The incident read again as a straggler when the others' collective timed out within
    :data:`SAVE_BEFORE` lines after a checkpoint save began (or reported one of its gathering
    steps) in the same log, no rank's own failure is among the evidence and the saving rank is
    not one of those that timed out: the rank writing the checkpoint was slow (a save that
    outlasts the collective timeout), the others gave up waiting in their next collective."""
    if incident.cause not in _SAVE_WAITS or any(f.role is Role.INITIATOR for f in incident.evidence):
        return None  # (a rank's own failure - a kill, an exception - during the save is that failure)
    saves = [f for f in facts.findings if f.rule in RULES_SAVING and f.line is not None]
    timeouts = [f for f in incident.evidence if f.file and f.line is not None and _TIMEOUT_WORDS.search(f.text or "")]
    if not saves or not timeouts:
        return None
    first = min(timeouts, key=lambda f: (f.time is None, f.time.timestamp() if f.time else 0.0, f.line or 0))
    before = [f for f in saves if f.file == first.file and 0 < (first.line or 0) - (f.line or 0) <= SAVE_BEFORE]
    if not before:
        return None
    save = max(before, key=lambda f: f.line or 0)
    waiting = {f.rank for f in incident.evidence if f.rank is not None} | set(incident.collateral_ranks)
    rank = save.rank if save.rank is not None and save.rank not in waiting else None
    why = ("the others' collective timed out while a checkpoint was being saved "
           f"({save.text.strip()[:120]!r}): the saving rank was slow, not stuck")
    if rank is None and save.rank is None and waiting and 0 not in waiting:
        rank = 0
        why += " (the main process, rank 0, writes the checkpoint while the others wait)"
    if rank is None:
        return None  # the saving rank timed out with the others (or no rank tells): stuck, not slow
    collateral = tuple(r for r in incident.collateral_ranks if r != rank)
    return _build(Cause.STRAGGLER, _initiator_for(rank, None, facts, [save]), [save, *incident.evidence], collateral,
                  0.45, facts, inferred_by=why)


# a frame of the main loop waiting for its data loader's next batch (torch's DataLoader, fairseq's
# iterators): the frames python.stack_in_data_loader reads in py-spy's dumps, in a traceback's words
_LOADER_FRAME = re.compile(r"(?:torch/utils/data/dataloader|fairseq/data/iterators)\.py$")
_LOADER_WAITS = frozenset({"_next_data", "_get_data", "_try_get_data", "__next__"})


def interrupted(incident: Incident, facts: RunFacts) -> Incident | None:
    """The incident read again as the job stopped from outside when all it holds that failed is
    ranks raising ``KeyboardInterrupt`` (Ctrl-C, a shell or a launcher's SIGINT), with no
    collective timeout before: nothing failed on its own. (A rank's own exception or crash keeps
    the incident as it is; so do timeouts, a hung job someone interrupted.)"""
    if incident.cause is Cause.UNKNOWN:
        return _launcher_interrupted(incident, facts)
    if incident.cause is not Cause.PYTHON_EXCEPTION:
        return None
    raised = [f for f in incident.evidence if f.role is Role.INITIATOR]
    keys = [f for f in raised if f.field("exc_type") == "KeyboardInterrupt"]

    def after_the_interrupt(f: Finding) -> bool:
        # (what the interrupted process raised on its way out, after its KeyboardInterrupt: a
        # framework's abort on "terminate called without an active exception")
        return f.line is not None and any(k.file == f.file and k.rank == f.rank and (k.line or 0) < f.line for k in keys)

    interrupts = {id(k) for k in keys}
    if not keys or any(id(f) not in interrupts and not after_the_interrupt(f) for f in raised):
        return None
    if any(any(h in f.rule for h in TIMEOUT_HINTS) for f in incident.evidence):
        return None
    frames = [f for f in facts.findings if f.rule == RULE_FRAME_COLLECTIVE and f.line is not None and f.file]
    waited = [w for w in frames for k in raised
              if w.file == k.file and k.line is not None and 0 < k.line - (w.line or 0) <= INTERRUPT_FRAMES]
    if waited:
        # interrupted while waiting in a collective: someone stopped a job that had stopped progressing
        func = waited[-1].field("func") or "a collective"
        return _build(Cause.HANG, Initiator(), [*incident.evidence, waited[-1]], incident.collateral_ranks, 0.35, facts,
                      inferred_by=f"the ranks were interrupted (KeyboardInterrupt) while waiting in {func}: the job "
                                  "had stopped progressing and someone stopped it; which rank it waited for, nothing "
                                  "here says")
    alone = {f.rank for f in facts.findings if f.role is Role.INITIATOR and f.field("exc_type") == "KeyboardInterrupt"}
    others = (set(facts.ranks) | set(incident.collateral_ranks)) - alone
    if len(alone) == 1 and None not in alone and (others or (facts.world_size or 0) > 1):
        # one rank of many interrupted: the SIGINT reaches every rank, and only a rank in Python code
        # raises it - the others were blocked in collectives (native code, which does not see it),
        # waiting for that rank, stuck somewhere else
        rank = next(iter(alone))
        key = keys[0]
        frames = [f for f in facts.findings if f.rule == TRACEBACK_FRAME and f.file == key.file and f.rank == rank
                  and f.line is not None and key.line is not None and 0 < key.line - f.line <= INTERRUPT_FRAMES
                  and f.field("func")]
        where = frames[-1].field("func") if frames else None
        if any(_LOADER_FRAME.search(f.field("path") or "") and f.field("func") in _LOADER_WAITS for f in frames):
            # (interrupted while its main loop waited for the data loader's next batch: starved of input)
            return _build(Cause.DATA_LOADER_STALL, _initiator_for(rank, key.node, facts, [key]), incident.evidence,
                          incident.collateral_ranks, 0.4, facts,
                          inferred_by=f"only rank {rank} was interrupted (KeyboardInterrupt) when the job was stopped, "
                                      f"in {where}, waiting for the data loader's next batch: the others were blocked "
                                      "in collectives (native code, which does not see the interrupt) waiting for it, "
                                      "and it was starved of its input (slow storage, a stuck or dead loader worker)")
        return _build(Cause.HANG, _initiator_for(rank, key.node, facts, [key]), incident.evidence,
                      incident.collateral_ranks, 0.4, facts,
                      inferred_by=f"only rank {rank} was interrupted (KeyboardInterrupt) when the job was stopped"
                                  + (f", in {where}" if where else "") + ": the others were blocked in collectives "
                                  "(native code, which does not see the interrupt) waiting for it, and it was stuck "
                                  "elsewhere")
    # (a dump among its file's last words: taken of the stopped job, not of one running earlier)
    dumps = [f for f in facts.findings if f.rule == RULE_STACK_LOADER]
    if dumps and len({(f.file, f.rank, f.pid) for f in dumps}) == 1 and terminal(dumps[-1], facts):
        # a stack dump someone took before stopping the job (py-spy's) shows its main loop waiting
        # for the data loader's next batch: the job had stopped progressing, starved of its input
        dump = dumps[0]
        who = f"rank {dump.rank}" if dump.rank is not None else (f"process {dump.pid}" if dump.pid else "the job's main loop")
        return _build(Cause.DATA_LOADER_STALL, _initiator_for(dump.rank, dump.node, facts, [dump]) if dump.rank is not None
                      else Initiator(node=dump.node, pid=dump.pid), [*incident.evidence, dump], incident.collateral_ranks,
                      0.4, facts,
                      inferred_by=f"the job was interrupted (KeyboardInterrupt) with no failure before, and the stack "
                                  f"dump taken of {who} waits for the data loader's next batch: the job had stopped "
                                  "progressing, starved of its input (slow storage, a stuck or dead loader worker), "
                                  "and someone stopped it")
    return _build(Cause.PREEMPTION, Initiator(), incident.evidence, incident.collateral_ranks, 0.35, facts,
                  inferred_by="the ranks were interrupted (KeyboardInterrupt: Ctrl-C or a SIGINT from the shell or "
                              "the launcher) and no line says any of them failed before")


# the lines that say why a job was stopped from outside (a scheduler's preemption or time limit, a
# cloud reclaiming a node): with one of them, the stop is the cause whatever the speed before it
_STOP_REASON_RULES = frozenset({
    "launcher.ray_node_preempted", "scheduler.slurm_preempted", "scheduler.slurm_time_limit", "scheduler.lsf_run_limit",
    "scheduler.pbs_walltime", "scheduler.cloud_preemption", "scheduler.vm_power_key", "scheduler.k8s_pod_preempted", "scheduler.k8s_job_evicted",
    "scheduler.submitit_preempted", "scheduler.autoscaler_node_terminated", "scheduler.lsf_preempted",
    "scheduler.sacct_time_limit", "scheduler.sacct_preempted"})
SLOWED_BEFORE_STOP = 0.5  # a job slowdown of at least this much (+50 %) before a stop with no reason given


def slowed_then_stopped(incident: Incident, facts: RunFacts) -> Incident | None:
    """A job stopped from outside (a user's scancel, a SIGTERM or an interrupt) with no reason given,
    after its step time had risen by half or more and stayed there: the job slowed down and
    someone stopped it - the slowdown is what went wrong (in synchronous training every rank waits
    for the slowest GPU, node or link), read as a straggler that nothing here names."""
    if incident.cause is not Cause.PREEMPTION or any(f.rule in _STOP_REASON_RULES for f in incident.evidence):
        return None
    end = max((f.time for f in incident.evidence if f.time is not None), default=None)
    slow = [f for f in facts.findings if f.rule == RULE_SLOWDOWN and field_float(f.field("change")) >= SLOWED_BEFORE_STOP
            and (end is None or f.time is None or f.time <= end)]
    if not slow:
        return None
    first = slow[0]
    return _build(Cause.STRAGGLER, Initiator(), [first, *incident.evidence], incident.collateral_ranks, 0.4, facts,
                  inferred_by=f"the job's step time rose {field_float(first.field('change')):+.0%} from step {first.field('step')} and "
                              "stayed there until the job was stopped from outside, with no reason given: it slowed "
                              "down (in synchronous training every rank waits for the slowest GPU, node or link) and "
                              "was stopped; which rank held it back, nothing here says")


_AGENT_SIGNAL_RULES = frozenset({"torch.elastic_received_signal", "torch.elastic_sending_signal"})


def _launcher_interrupted(incident: Incident, facts: RunFacts) -> Incident | None:
    """An incident of nothing but torchrun's agent receiving SIGINT (and passing it on to its
    workers): someone interrupted the launcher, and nothing had failed before; a job people stop
    that way had most often stopped progressing (the logs pasted with a '^C' are of hung jobs)."""
    evidence = [f for f in incident.evidence if f.role is not Role.CONTEXT]
    if not evidence or any(f.rule not in _AGENT_SIGNAL_RULES for f in evidence):
        return None
    received = [f for f in evidence if f.rule == "torch.elastic_received_signal"]
    if not received or not all(keyboard_interrupt(f) for f in received):
        return None
    ordered = [*received, *(f for f in incident.evidence if f not in received)]
    return _build(Cause.HANG, Initiator(), ordered, incident.collateral_ranks, 0.3, facts,
                  inferred_by="the launcher was interrupted (SIGINT: Ctrl-C) while its workers ran, and no line says "
                              "anything failed before: someone stopped a job that had most likely stopped "
                              "progressing; where its ranks waited, nothing here says")


RULE_FRAME_COLLECTIVE = "python.frame_in_collective"
INTERRUPT_FRAMES = 40  # lines from a frame in a collective to the interrupt that ends its traceback


RULE_NFS_STALL = "system.nfs_not_responding"  # rules/system.yaml
RULE_LUSTRE_STALL = "system.lustre_connection_lost"  # rules/system.yaml
RULE_HUNG_TASK = "system.hung_task"
_LOADER_TASK = re.compile(r"^(?:pt_data_worker|pt_data_pin|dataloader|data_loader|DataLoader)", re.IGNORECASE)
STORAGE_BEFORE = timedelta(hours=2)  # a storage stall this long before the hang may still be it
STORAGE_AFTER = timedelta(minutes=10)  # (the kernel says so only after its own retries; clocks differ)


STORAGE_ZONES = timedelta(hours=14)  # clocks of different zones: a storage stall this far from the hang
STARVED_WITHIN = timedelta(minutes=30)  # a data-loader worker blocked this near its node's storage stall


def _starved_a_process(f: Finding, findings: Sequence[Finding]) -> bool:
    """A storage stall of a node whose kernel also says a data-loader worker of it was blocked
    near the stall's own time (both on the kernel's clock): the stall reached a training job's
    input. (A blocked rsync, or the trainer itself blocked in the GPU driver, says nothing of its
    input; nor does a server that stopped answering for a moment.)"""
    if f.time is None:
        return False
    return any(g.rule == RULE_HUNG_TASK and g.node == f.node and _LOADER_TASK.match(g.field("comm") or "")
               and g.time is not None and abs(g.time - f.time) <= STARVED_WITHIN for g in findings)


def storage_stall(incident: Incident, facts: RunFacts) -> Incident | None:
    """A hang read again as a data-loading stall when the kernel of the hung rank's node (or, where
    no rank was singled out, of the one node whose kernel says so) reports its NFS server not
    answering, its Lustre client's connection to a target lost, or a data-loader worker blocked in
    the kernel, around the time the others gave up
    waiting: the rank did not stop on its own, its input did."""
    if incident.cause is not Cause.HANG:
        return None
    stalls = [f for f in facts.findings
              if f.rule in (RULE_NFS_STALL, RULE_LUSTRE_STALL)
              or (f.rule == RULE_HUNG_TASK and _LOADER_TASK.match(f.field("comm") or ""))]
    end = max((f.time for f in incident.evidence if f.time is not None and f.role is not Role.CONTEXT), default=None)
    if end is not None:
        near = [f for f in stalls if f.time is None or end - STORAGE_BEFORE <= f.time <= end + STORAGE_AFTER]
        # (or hours away, where the kernel's own words say its storage starved a process: its log
        # stamped in the node's local time, the ranks' in UTC, "dmesg -T" with no zone)
        stalls = near or [f for f in stalls if f.time is not None and abs(f.time - end) <= STORAGE_ZONES
                          and _starved_a_process(f, facts.findings)]
    node = incident.initiator.node
    if node is not None:
        stalls = [f for f in stalls if f.node is not None and same_host(f.node, node)]
    elif len({f.node for f in stalls}) != 1 or stalls[0].node is None:
        return None  # several nodes' storage, or none named: which rank it starved, nothing says
    if not stalls:
        return None
    stall = stalls[0]
    rank = incident.initiator.rank
    initiator = incident.initiator if node is not None else _initiator_for(rank, stall.node, facts, [stall])
    what = (f"its NFS server {stall.field('server')} stopped answering" if stall.rule == RULE_NFS_STALL
            else f"its Lustre target {stall.field('server')} stopped answering" if stall.rule == RULE_LUSTRE_STALL
            else f"a data-loader worker ({stall.field('comm')}) was blocked in the kernel")
    who = f"rank {rank}'s node" if rank is not None else f"node {stall.node}"
    return _build(Cause.DATA_LOADER_STALL, initiator, [*incident.evidence, *stalls[:3]], incident.collateral_ranks,
                  max(incident.confidence, 0.5), facts,
                  inferred_by=f"the ranks waited for one that stopped, and on {who} {what} before they gave up: "
                              "it was starved of its input")


# rules/python.yaml: faulthandler's frame of the data loader (only for a rank a hang was found on:
# the same frames print when a process dies of a signal)
FAULTHANDLER_LOADER = "python.faulthandler_in_data_loader"
WAITED_FOR_BATCH = "python.waited_for_batch"  # a program's word that a rank waited long for its next batch
WAITED_LONG_S = 60.0  # (a wait of seconds says the batch came late, not that the loader stalled)


def _waited_long(f: Finding) -> bool:
    try:
        return f.rule == WAITED_FOR_BATCH and float(f.field("secs") or f.field("secs2") or 0) >= WAITED_LONG_S
    except ValueError:
        return False
ONE_DUMP_LINES = 80  # a stack dump's frames of the data loader span at most this many lines


def loader_dump_behind(incident: Incident, facts: RunFacts) -> Incident | None:
    """A hang on a rank read again as a data-loading stall when a stack dump of that rank (its
    rank, or the process id its lines gave; py-spy's or faulthandler's) shows its main loop waiting
    for the data loader's next batch: the rank the others waited for was starved of its input, not
    stuck in its own code."""
    if incident.cause is not Cause.HANG:
        return None
    if incident.initiator.rank is None:
        return _loader_dump_of_one_rank(incident, facts)
    rank, pid = incident.initiator.rank, incident.initiator.pid
    # (faulthandler's only among the rank's last words: a watchdog that dumps every few minutes
    # also dumps a healthy rank waiting for a batch, and training goes on after it; the others'
    # teardown may follow it at length in a combined log)
    # (and the program's own word that the rank waits for its next batch, among its last words)
    loader = [f for f in facts.findings if f.rule in (RULE_STACK_LOADER, FAULTHANDLER_LOADER) or _waited_long(f)]
    dumps = [f for f in loader if (f.rank == rank or (pid is not None and f.pid == pid))
             and (f.rule == RULE_STACK_LOADER or _last_words_or_before_the_timeouts(f, facts))]
    if (not dumps and loader and all(f.rank is None and f.pid is None for f in loader)
            and len({f.file for f in loader}) == 1
            and max(f.line or 0 for f in loader) - min(f.line or 0 for f in loader) <= ONE_DUMP_LINES
            and terminal(max(loader, key=lambda f: f.line or 0), facts)):
        # a dump no prefix places (faulthandler's "Timeout (0:05:00)!" of the one process that
        # stopped, printed where the launcher gathers every rank's output): the rank that
        # stopped is the one it is about, where it is the run's only dump of the data loader and
        # among its file's last words (a watchdog that dumps every few minutes dumps a rank that
        # waits for a batch and goes on)
        dumps = loader
    if not dumps:
        # (or its own step lines: its time to load a batch far above its peers' before it stopped)
        # (still slow when it stopped; and no stack dump of the rank shows it anywhere else)
        slow = [f for f in facts.findings if f.rule == RULE_STRAGGLER and f.rank == rank and f.field("ongoing") == "true"
                and _DATA_TIME.match(f.field("metric") or "") is not None]
        if not slow or any(f.rank == rank and f.rule in _STACK_DUMPS for f in facts.findings):
            return None
        return _build(Cause.DATA_LOADER_STALL, incident.initiator, [*incident.evidence, slow[0]], incident.collateral_ranks,
                      max(incident.confidence, 0.5), facts,
                      inferred_by=f"the ranks waited for rank {rank}, whose own step lines had shown its wait for the data "
                                  "loader's next batch far above its peers' before it stopped: it was starved of its "
                                  "input (slow storage, a stuck or dead loader worker)")
    return _build(Cause.DATA_LOADER_STALL, incident.initiator, [*incident.evidence, dumps[0]], incident.collateral_ranks,
                  max(incident.confidence, 0.5), facts,
                  inferred_by=f"the ranks waited for rank {rank}, and its stack dump waits for the data loader's next "
                              "batch: it was starved of its input (slow storage, a stuck or dead loader worker)")


# a stack dump of a process's threads (py-spy's, faulthandler's, gdb's): where the rank was
_STACK_DUMPS = frozenset({"python.stack_dump_main_thread", RULE_STACK_COLLECTIVE, "generic.gdb_thread_stack"})
# the step lines' time of loading a batch, as the straggler statistics name it ("data 44.3s",
# "data_time=", "dataloader_ms", "batch load"): a rank slow there waits for its input
_DATA_TIME = re.compile(r"^(?:data|dataloader|data_?load(?:er|ing)?|data_wait|data_fetch|batch_?load|load_batch|input|fetch)"
                        r"(?:_time)?(?:_[mu]?s)?$", re.IGNORECASE)


def _loader_dump_of_one_rank(incident: Incident, facts: RunFacts) -> Incident | None:
    """A hang no rank was found for, read again as a data-loading stall when the run's stack dumps
    of the data loader (py-spy's, a file a process) are all of one rank, named by the dump, that
    never reported a collective's timeout of its own: the rank someone took the stack of, and the
    one the others waited for, was waiting for its next batch. So is the program's own word, among
    its last words before the timeouts, that one rank waits long for its next batch."""
    dumps = [f for f in facts.findings if f.rule == RULE_STACK_LOADER] or [
        f for f in facts.findings if _waited_long(f) and _last_words_or_before_the_timeouts(f, facts)]
    ranks = {f.rank for f in dumps}
    if not dumps or len(ranks) != 1 or None in ranks:
        return None
    rank = dumps[0].rank
    assert rank is not None
    if any(f.rank == rank and _collective_timeout(f) for f in facts.findings):
        return None  # (it timed out in a collective itself: it waited for another)
    collateral = tuple(r for r in incident.collateral_ranks if r != rank)
    return _build(Cause.DATA_LOADER_STALL, _initiator_for(rank, dumps[0].node, facts, [dumps[0]]),
                  [*incident.evidence, dumps[0]], collateral, max(incident.confidence, 0.45), facts,
                  inferred_by=f"the ranks waited in a collective, and the stack dump taken of rank {rank} waits for "
                              "the data loader's next batch: it was starved of its input (slow storage, a stuck or "
                              "dead loader worker)")


RULE_SRUN_SIGNAL = "scheduler.srun_task_signal"  # rules/scheduler.yaml
RULE_MPIRUN_SIGNAL = "launcher.mpirun_signal"  # rules/launchers.yaml: mpirun's ranks are the job's
OOM_TASK_WITHIN = timedelta(minutes=5)


_EXITED_WITH = re.compile(r"exited with code (?P<code>-?[0-9]{1,4})")
CRASH_EXIT_CODES = frozenset({"-11", "-7", "-4", "-8", "139", "135", "132", "136"})  # SIGSEGV, SIGBUS, SIGILL, SIGFPE


def crashed_rank(incident: Incident, facts: RunFacts) -> Incident | None:
    """A crash the kernel logged on a node ("python3[36073]: segfault at ..."), its pid a thread's
    (the kernel names the thread that faulted: an async checkpoint writer, a data loader's thread,
    not the rank's process that torchrun lists), read with torchrun's summary: the one rank of
    that node (or of no node named) whose process ended on a crash signal within minutes of it is
    the one that crashed."""
    ini = incident.initiator
    if incident.cause is not Cause.CRASH_SIGNAL or ini.rank is not None or ini.node is None:
        return None
    anchor = next((f for f in incident.evidence if f.role is Role.INITIATOR and f.rule.startswith("system.")), None)
    if anchor is None or anchor.time is None:
        return None
    crashed: set[int] = set()
    for f in facts.findings:
        if f.rule != RULE_EXIT_CODE or f.rank is None or f.time is None or abs(f.time - anchor.time) > OOM_TASK_WITHIN:
            continue
        if f.node is not None and not same_host(f.node, ini.node):
            continue
        m = _EXITED_WITH.search(f.text or "")
        code = f.field("exitcode") or (m["code"] if m else None)
        if code in CRASH_EXIT_CODES:
            crashed.add(f.rank)
    if len(crashed) != 1:
        return None
    rank = next(iter(crashed))
    info = facts.ranks.get(rank)
    if info is not None and info.node is not None and not same_host(info.node, ini.node):
        return None
    local = info.local_rank if info is not None else ini.local_rank
    collateral = tuple(r for r in incident.collateral_ranks if r != rank)
    return dataclasses.replace(incident, initiator=dataclasses.replace(ini, rank=rank, local_rank=local),
                               collateral_ranks=collateral)


def oom_victim_task(incident: Incident, facts: RunFacts) -> Incident | None:
    """A host OOM kill that names its node but no rank, read with srun's (or mpirun's) report of
    the node's tasks: the one task srun saw ``Killed`` (SIGKILL) there, while the others were
    terminated after it, is the rank the killer took (srun's task ids are the ranks when it
    launched one task per rank, which the run's ranks on that node confirm; mpirun's are the MPI
    ranks)."""
    ini = incident.initiator
    if incident.cause is not Cause.HOST_OOM_KILL or ini.rank is not None or ini.node is None:
        return None
    anchor = next((f for f in incident.evidence if f.role is Role.INITIATOR), None)
    killed: set[int] = set()
    for f in facts.findings:
        host = f.field("host")
        if f.rule not in (RULE_SRUN_SIGNAL, RULE_MPIRUN_SIGNAL) or f.field("signal") != "Killed" or not host \
                or not same_host(host, ini.node):
            continue
        if anchor is not None and anchor.time is not None and f.time is not None and abs(f.time - anchor.time) > OOM_TASK_WITHIN:
            continue
        task = f.field("task") or ""
        if not task.isdigit():
            return None  # several tasks killed: which one the killer took, nothing says
        killed.add(int(task))
    if len(killed) != 1:
        return None
    rank = next(iter(killed))
    info = facts.ranks.get(rank)
    if info is not None and info.node is not None and not same_host(info.node, ini.node):
        return None  # srun's task ids are not this run's ranks (one task per node, a torchrun each)
    if info is None and rank not in incident.collateral_ranks and rank not in facts.seen_ranks:
        return None  # no rank of the run has that number
    collateral = tuple(r for r in incident.collateral_ranks if r != rank)
    local = info.local_rank if info is not None else None
    return _build(incident.cause, dataclasses.replace(ini, rank=rank, local_rank=local),
                  incident.evidence, collateral, incident.confidence, facts,
                  inferred_by=f"the launcher saw task {rank} on {ini.node} killed (SIGKILL) when the OOM killer struck there")
