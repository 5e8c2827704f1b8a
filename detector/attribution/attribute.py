"""Findings -> incidents: which rank started the failure, why, and which ranks are collateral.

Pure functions over :class:`RunFacts`. The rules (DESIGN.md): evidence has a role; the initiator
is the earliest initiator-grade evidence on a timeline aligned across ranks and nodes, within a
skew tolerance in which stronger (hardware) evidence wins; evidence on the same rank, GPU or pid
corroborates it; when no rank left initiator-grade evidence, collateral evidence points at it
(a peer named by an error, the rank missing from a collective or with the lowest completed
sequence number, the rank that went silent first).
"""

from __future__ import annotations

import hashlib
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta

from detector.attribution.advice import explain, remediation_for
from detector.support.numbers import small_int
from detector.types import Cause, Finding, Incident, Initiator, Role

SKEW = timedelta(seconds=10)
MAX_EVIDENCE = 40

HARDWARE = frozenset({Cause.GPU_HARDWARE, Cause.ECC_MEMORY, Cause.NVLINK, Cause.NETWORK})
STRENGTH: Mapping[Cause, int] = {
    Cause.GPU_HARDWARE: 10,
    Cause.ECC_MEMORY: 10,
    Cause.NVLINK: 9,
    Cause.HOST_OOM_KILL: 8,
    Cause.PREEMPTION: 8,
    Cause.NETWORK: 7,
    Cause.CUDA_OOM: 6,
    Cause.ILLEGAL_MEMORY_ACCESS: 6,
    Cause.COLLECTIVE_MISMATCH: 5,
    Cause.DATA_LOADER_STALL: 5,
    Cause.CRASH_SIGNAL: 4,
    Cause.PYTHON_EXCEPTION: 3,
    Cause.HANG: 2,
    Cause.STRAGGLER: 1,
    Cause.UNKNOWN: 0,
}
TIMEOUT_HINTS = ("timeout", "timed_out", "watchdog", "heartbeat")


@dataclass(frozen=True, slots=True)
class RankInfo:
    rank: int
    local_rank: int | None = None
    node: str | None = None
    pid: int | None = None
    gpu: str | None = None
    last_time: datetime | None = None  # last line the rank wrote
    last_step: int | None = None


@dataclass(frozen=True, slots=True)
class RunFacts:
    findings: tuple[Finding, ...]
    ranks: Mapping[int, RankInfo] = field(default_factory=dict)
    world_size: int | None = None
    median_step_s: float | None = None


def _strength(f: Finding) -> int:
    return STRENGTH.get(f.cause, 0) if f.cause is not None else 0


def _time_key(f: Finding) -> datetime | None:
    return f.time


def _group_by_attempt(findings: Sequence[Finding]) -> list[list[Finding]]:
    """Split findings by torchrun attempt; findings without an attempt (kernel logs, consoles)
    go to the attempt whose time span holds them, else the nearest earlier one, else the first."""
    attempts = sorted({f.attempt for f in findings if f.attempt is not None})
    if len(attempts) <= 1:
        return [list(findings)] if findings else []
    spans: dict[int, tuple[datetime | None, datetime | None]] = {}
    for a in attempts:
        times = [f.time for f in findings if f.attempt == a and f.time is not None]
        spans[a] = (min(times), max(times)) if times else (None, None)
    groups: dict[int, list[Finding]] = {a: [] for a in attempts}
    for f in findings:
        if f.attempt is not None:
            groups[f.attempt].append(f)
            continue
        target = attempts[0]
        if f.time is not None:
            for a in attempts:  # the latest attempt that had started by then
                lo, _hi = spans[a]
                if lo is not None and lo - TIE <= f.time:
                    target = a
        groups[target].append(f)
    return [groups[a] for a in attempts if groups[a]]


def _same_origin(a: Finding, rank: int | None, node: str | None, gpu: str | None, pid: int | None) -> bool:
    if rank is not None and a.rank == rank:
        return True
    if gpu is not None and a.gpu == gpu and (a.node is None or node is None or a.node == node):
        return True
    if pid is not None and a.pid == pid and (a.node is None or node is None or a.node == node):
        return True
    return rank is None and node is not None and a.node == node and a.rank is None


STRONG = HARDWARE | {Cause.HOST_OOM_KILL, Cause.PREEMPTION}
TIE = timedelta(seconds=1)


def _ts(f: Finding) -> float:
    return f.time.timestamp() if f.time is not None else float("inf")


def _pick_primary(initiators: Sequence[Finding]) -> Finding:
    """The earliest initiator-grade evidence; within the clock-skew window hardware-class
    evidence (and OOM kills, preemption) wins over software errors, whose time order may be an
    artefact of skewed clocks."""
    timed = [f for f in initiators if f.time is not None]
    untimed = [f for f in initiators if f.time is None]
    if not timed:
        return max(untimed, key=lambda f: (f.rank is not None or f.node is not None, _strength(f), f.confidence, -(f.line or 0)))
    earliest = min(f.time for f in timed if f.time is not None)
    window = [f for f in timed if f.time is not None and f.time <= earliest + SKEW] + untimed
    strong = [f for f in window if f.cause in STRONG and (f.rank is not None or f.node is not None or f.gpu is not None)]
    if strong:
        return max(strong, key=lambda f: (_strength(f), f.rank is not None, f.confidence, -_ts(f)))
    close = [f for f in timed if f.time is not None and f.time <= earliest + TIE]
    located = [f for f in timed if f.rank is not None or f.node is not None or f.gpu is not None]
    if not any(f.rank is not None or f.node is not None or f.gpu is not None for f in close) and located:
        # evidence nobody can place (a launcher's own error) does not outrank a rank's
        close = [f for f in located if f.time is not None and f.time <= min(g.time for g in located if g.time) + TIE]
    return max(close, key=lambda f: (f.rank is not None or f.node is not None, _strength(f), f.confidence, -_ts(f)))


def _incident_id(cause: Cause, ini: Initiator, first: datetime | None, anchor: Finding | None) -> str:
    basis = "|".join(
        str(x)
        for x in (
            cause.value,
            ini.rank,
            ini.node,
            first.isoformat() if first else None,
            anchor.text if anchor is not None else None,
        )
    )
    return "inc-" + hashlib.sha256(basis.encode("utf-8", "replace")).hexdigest()[:12]


def _order_evidence(evidence: Iterable[Finding]) -> tuple[Finding, ...]:
    role_rank = {Role.INITIATOR: 0, Role.CONTEXT: 1, Role.COLLATERAL: 2}
    seen: set[tuple[str | None, int | None, str]] = set()
    unique = []
    for f in evidence:
        key = (f.file, f.line, f.rule)
        if key in seen:
            continue
        seen.add(key)
        unique.append(f)
    unique.sort(key=lambda f: (f.time is None, f.time.timestamp() if f.time else 0.0, role_rank[f.role]))
    initiators = [f for f in unique if f.role is Role.INITIATOR]
    others = [f for f in unique if f.role is not Role.INITIATOR]
    # keep all initiator evidence, the first piece per collateral rank, then the rest
    picked: list[Finding] = list(initiators)
    per_rank: set[int | None] = set()
    rest: list[Finding] = []
    for f in others:
        if f.rank not in per_rank:
            per_rank.add(f.rank)
            picked.append(f)
        else:
            rest.append(f)
    picked.extend(rest[: max(0, MAX_EVIDENCE - len(picked))])
    picked = picked[: max(MAX_EVIDENCE, len(initiators))]
    picked.sort(key=lambda f: (f.time is None, f.time.timestamp() if f.time else 0.0, role_rank[f.role]))
    return tuple(picked)


def _collateral(group: Sequence[Finding], exclude: int | None, facts: RunFacts) -> tuple[int, ...]:
    """Every other rank of a failed job is collateral: it stopped because the initiator did,
    whether it logged a timeout, was torn down silently, or raised a follow-on error."""
    ranks = {f.rank for f in group if f.rank is not None}
    ranks |= set(facts.ranks)
    if facts.world_size:
        ranks |= set(range(facts.world_size))
    return tuple(sorted(r for r in ranks if r is not None and r != exclude))


def _build(
    cause: Cause,
    initiator: Initiator,
    evidence: Sequence[Finding],
    collateral: Sequence[int],
    confidence: float,
    facts: RunFacts,
    *,
    inferred_by: str | None = None,
) -> Incident:
    failure_times = [f.time for f in evidence if f.time is not None and f.role is not Role.CONTEXT]
    if failure_times:
        # context lines (NCCL init, summaries) from long before the failure are not evidence of it
        start = min(failure_times) - SKEW
        evidence = [f for f in evidence if f.role is not Role.CONTEXT or f.time is None or f.time >= start]
    ordered = _order_evidence(evidence)
    times = [f.time for f in ordered if f.time is not None and f.role is not Role.CONTEXT] or [
        f.time for f in ordered if f.time is not None]
    first = min(times) if times else None
    anchor = next((f for f in ordered if f.role is Role.INITIATOR), ordered[0] if ordered else None)
    has_hw = any(f.cause in HARDWARE and f.role is Role.INITIATOR for f in evidence)
    hw_context = any(f.rule.startswith("stats.gpu_outlier") and f.field("hardware") == "true" for f in evidence)
    remediation = remediation_for(cause, initiator, has_hardware_evidence=has_hw or hw_context, anchor=anchor)
    explanation = explain(cause, initiator, anchor, len(collateral), inferred_by=inferred_by)
    return Incident(
        id=_incident_id(cause, initiator, first, anchor),
        cause=cause,
        initiator=initiator,
        collateral_ranks=tuple(collateral),
        confidence=max(0.0, min(1.0, confidence)),
        first_evidence_time=first,
        explanation=explanation,
        evidence=ordered,
        remediation=remediation,
    )


def _initiator_for(rank: int | None, node: str | None, facts: RunFacts, evidence: Sequence[Finding]) -> Initiator:
    info = facts.ranks.get(rank) if rank is not None else None
    gpu = next((f.gpu for f in evidence if f.gpu and (f.rank == rank or rank is None)), None)
    pid = next((f.pid for f in evidence if f.pid is not None and f.rank == rank), None)
    local = next((f.local_rank for f in evidence if f.local_rank is not None and f.rank == rank), None)
    if info is not None:
        gpu = gpu or info.gpu
        pid = pid if pid is not None else info.pid
        local = local if local is not None else info.local_rank
        node = node or info.node
    if node is None:
        node = next((f.node for f in evidence if f.node and (f.rank == rank)), None)
    return Initiator(rank=rank, local_rank=local, node=node, gpu=gpu, pid=pid)


def _failure_incident(group: Sequence[Finding], initiators: Sequence[Finding], facts: RunFacts) -> tuple[Incident, set[int]]:
    primary = _pick_primary(initiators)
    rank, node = primary.rank, primary.node
    if rank is None and primary.gpu is not None:
        rank = next((r.rank for r in facts.ranks.values() if r.gpu == primary.gpu and (node is None or r.node == node)), None)
    if node is not None:
        # several ranks of the node report the same failure (a NIC link down): the one the
        # others point at, else the first
        same = [f for f in initiators if f.rank is not None and f.node == node and f.cause == primary.cause
                and (f.time is None or primary.time is None or abs(f.time - primary.time) <= SKEW)]
        if len({f.rank for f in same}) > 1 or (rank is None and same):
            votes = _peer_votes(group, facts)
            rank = max(same, key=lambda f: (votes.get(f.rank, 0) if f.rank is not None else 0, -_ts(f))).rank
    if rank is None and node is not None and primary.cause in HARDWARE:
        # hardware evidence for the node only (an Xid without pid or bus id): the rank of that
        # node that died first is the one on the failed part
        others = [f for f in initiators if f.rank is not None and f.node == node]
        if others:
            votes = _peer_votes(group, facts)
            rank = max(others, key=lambda f: (votes.get(f.rank, 0) if f.rank is not None else 0, -_ts(f))).rank
    if primary.cause is Cause.COLLECTIVE_MISMATCH:
        rank = _mismatch_culprit(group) if _mismatch_culprit(group) is not None else rank
        node = None if rank != primary.rank else node
    info = facts.ranks.get(rank) if rank is not None else None
    gpu = primary.gpu or (info.gpu if info else None)
    pid = primary.pid if primary.pid is not None else (info.pid if info else None)
    node = node or (info.node if info else None)
    own = [f for f in group if f.role is not Role.COLLATERAL and _same_origin(f, rank, node, gpu, pid)]
    own_initiators = [f for f in own if f.role is Role.INITIATOR] or [primary]
    best = max(own_initiators, key=lambda f: (_strength(f), f.confidence))
    cause = best.cause or Cause.UNKNOWN
    # an exit by SIGKILL with an OOM-killer line for that pid or node is an OOM kill
    if cause is Cause.CRASH_SIGNAL and any(f.cause is Cause.HOST_OOM_KILL for f in own):
        cause = Cause.HOST_OOM_KILL
    confidence = best.confidence * 0.9
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
    evidence = list(own) + [f for f in group if f.role is Role.COLLATERAL]
    incident = _build(cause, initiator, evidence, collateral, confidence, facts)
    used = {id(f) for f in own}
    return incident, used


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


def _as_ranks(value: str | None) -> list[int]:
    if not value:
        return []
    out = []
    for tok in value.replace("{", " ").replace("}", " ").replace(",", " ").replace("[", " ").replace("]", " ").split():
        rank = small_int(tok)
        if rank is not None:
            out.append(rank)
    return out


def _infer(group: Sequence[Finding], facts: RunFacts) -> Incident | None:
    """No rank left initiator-grade evidence: let the collateral evidence point at one."""
    collateral = [f for f in group if f.role is Role.COLLATERAL]
    stalls = [f for f in group if f.rule == "stats.stall"]
    if not collateral and not stalls:
        return None
    votes: Counter[int] = Counter()
    reasons: dict[int, list[str]] = defaultdict(list)
    local_to_global = {(r.node, r.local_rank): r.rank for r in facts.ranks.values() if r.local_rank is not None}
    hang_signal = False
    for f in collateral:
        peer = small_int(f.field("peer_rank"))
        if peer is not None:
            votes[peer] += 2
            reasons[peer].append(f"named as the failed peer by rank {f.rank}")
        peer_local = small_int(f.field("peer_local_rank"))
        if peer_local is not None:
            g = local_to_global.get((f.node, peer_local))
            if g is None and len({r.node for r in facts.ranks.values()}) <= 1:
                g = local_to_global.get((None, peer_local))
            if g is not None and g != f.rank:
                votes[g] += 2
                reasons[g].append(f"its connection closed first (named by rank {f.rank})")
        for r in _as_ranks(f.field("missing_ranks")):
            votes[r] += 3
            hang_signal = True
            reasons[r].append("missing from a collective")
    # lowest last-completed collective
    completed: dict[int, int] = {}
    for f in collateral:
        value = small_int(f.field("last_completed"), digits=18, signed=True)
        if f.rank is not None and value is not None:
            completed[f.rank] = min(completed.get(f.rank, value), value)
    if len(completed) >= 2:
        low = min(completed.values())
        lows = [r for r, v in completed.items() if v == low]
        if len(lows) == 1 and sorted(completed.values())[1] > low:
            votes[lows[0]] += 3
            hang_signal = True
            reasons[lows[0]].append(f"lowest last completed collective ({low})")
    # ranks that never reported the collective timeout everyone else reported
    timed_out = {f.rank for f in collateral if f.rank is not None and any(h in f.rule for h in TIMEOUT_HINTS)}
    known = set(facts.ranks)
    if facts.world_size:
        known |= set(range(facts.world_size))
    silent_ranks = known - timed_out
    if timed_out and 0 < len(silent_ranks) <= max(1, len(known) // 4) and len(timed_out) >= len(known) // 2:
        for r in silent_ranks:
            if r in facts.ranks:
                votes[r] += 3
                hang_signal = True
                reasons[r].append("did not report the collective timeout the others reported")
    # the rank whose log went silent first
    lasts = {r.rank: r.last_time for r in facts.ranks.values() if r.last_time is not None}
    if len(lasts) >= 2:
        ordered = sorted(lasts.items(), key=lambda kv: kv[1])
        margin = timedelta(seconds=max(5.0, 3 * (facts.median_step_s or 0.0)))
        if ordered[1][1] - ordered[0][1] > margin and not any(f.rank == ordered[0][0] and any(h in f.rule for h in TIMEOUT_HINTS) for f in collateral):
            votes[ordered[0][0]] += 2
            hang_signal = True
            reasons[ordered[0][0]].append("its log went silent first")
    for f in stalls:
        if f.rank is not None:
            votes[f.rank] += 2
            hang_signal = True
            reasons[f.rank].append("stopped making progress first")
    if votes:
        top = votes.most_common(2)
        if len(top) == 1 or top[0][1] > top[1][1]:
            rank = top[0][0]
            cause = Cause.HANG if hang_signal else Cause.UNKNOWN
            confidence = min(0.85, 0.45 + 0.1 * top[0][1])
            evidence = [f for f in group if f.rank == rank or f.role is Role.COLLATERAL or f in stalls]
            initiator = _initiator_for(rank, None, facts, evidence)
            return _build(cause, initiator, evidence, _collateral(group, rank, facts), confidence, facts,
                          inferred_by="; ".join(dict.fromkeys(reasons[rank])))
    live_stalls = [f for f in stalls if f.role is Role.INITIATOR]
    if not collateral and live_stalls:
        # every rank stopped at the same step and nothing singles one out: still a hang
        return _build(Cause.HANG, Initiator(), live_stalls, _collateral(group, None, facts), 0.4, facts,
                      inferred_by="every rank stopped making progress together; none stands out")
    if not collateral:
        return None
    return _build(Cause.UNKNOWN, Initiator(), collateral, _collateral(group, None, facts), 0.3, facts,
                  inferred_by="no rank left initiator-grade evidence and none stands out")


def attribute(facts: RunFacts) -> list[Incident]:
    """All incidents of a run, most important first (machine faults before others, then time)."""
    incidents: list[Incident] = []
    failure_findings = [f for f in facts.findings if f.cause is not Cause.STRAGGLER and not f.rule.startswith("stats.gpu_outlier")]
    for group in _group_by_attempt(failure_findings):
        initiators = [f for f in group if f.role is Role.INITIATOR and f.cause is not None and f.rule != "stats.stall"]
        if initiators:
            incident, used = _failure_incident(group, initiators, facts)
            incidents.append(incident)
            # an independent hardware fault on another node is its own incident
            rest = [f for f in initiators if id(f) not in used and f.cause in HARDWARE and f.node is not None
                    and f.node != incident.initiator.node]
            if rest:
                second, _ = _failure_incident([f for f in group if f.node != incident.initiator.node], rest, facts)
                incidents.append(second)
        else:
            inferred = _infer(group, facts)
            if inferred is not None:
                incidents.append(inferred)
    incidents.extend(_stragglers(facts))
    incidents.sort(key=lambda i: (not i.remediation.drain_node, i.cause is Cause.STRAGGLER,
                                  i.first_evidence_time.timestamp() if i.first_evidence_time else float("inf")))
    return incidents


def _stragglers(facts: RunFacts) -> list[Incident]:
    out = []
    flagged = [f for f in facts.findings if f.cause is Cause.STRAGGLER and f.role is Role.INITIATOR and f.rank is not None]
    by_rank: dict[int, list[Finding]] = defaultdict(list)
    for f in flagged:
        assert f.rank is not None
        by_rank[f.rank].append(f)
    outliers = [f for f in facts.findings if f.rule.startswith("stats.gpu_outlier")]
    for rank, found in sorted(by_rank.items()):
        info = facts.ranks.get(rank)
        node = found[0].node or (info.node if info else None)
        gpu = found[0].gpu or (info.gpu if info else None)
        support = [o for o in outliers if (o.rank == rank) or (gpu is not None and o.gpu == gpu) or
                   (o.rank is None and o.gpu is None and node is not None and o.node == node)]
        if gpu is None:
            gpu = next((o.gpu for o in support if o.gpu), None)
        initiator = _initiator_for(rank, node, facts, found + support)
        if initiator.gpu is None and gpu is not None:
            initiator = replace(initiator, gpu=gpu)
        confidence = max(f.confidence for f in found) * (0.95 if support else 0.75)
        out.append(_build(Cause.STRAGGLER, initiator, found + support, (), confidence, facts))
    return out
