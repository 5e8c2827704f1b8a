"""Shared by attribution: how strong each cause is, how an incident is put together (its
evidence in order, its collateral ranks, its initiator's facts, its stable id)."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from datetime import datetime, timedelta

from detector.attribution.advice import explain, local_adapter_evidence, remediation_for
from detector.support.hosts import host_key, same_host
from detector.types import (
    GPU_FAULTS,
    RULE_GPU_OUTLIER,
    Cause,
    Finding,
    Incident,
    Initiator,
    Role,
    RunFacts,
)

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
# collateral evidence that a peer died or its link broke (not a hang): remote errors, closed or
# reset connections, a lost socket peer, a killed subprocess
PEER_LOST_HINTS = ("remote", "closed", "reset", "peer_lost", "connection_lost", "killing", "proxy", "ib_completion", "ofi_completion", "system_error")


def _strength(f: Finding) -> int:
    return STRENGTH.get(f.cause, 0) if f.cause is not None else 0


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
    ranks |= facts.seen_ranks
    if facts.world_size:
        ranks |= set(range(facts.world_size))
    return tuple(sorted(r for r in ranks if r is not None and r != exclude))


# causes that name no node by themselves: the whole job stopped from outside, a slow job, ranks
# that called different collectives
_NOT_ON_A_NODE = frozenset({Cause.PREEMPTION, Cause.STRAGGLER, Cause.COLLECTIVE_MISMATCH})


def sole_host(facts: RunFacts) -> str | None:
    """The one host the run's findings and ranks name (spelt short or in full: its longest
    spelling), or None where they name none or several."""
    named = {f.node for f in facts.findings if f.node} | {r.node for r in facts.ranks.values() if r.node}
    if not named:
        return None
    longest = max(sorted(named), key=len)
    return longest if all(same_host(n, longest) for n in named) else None


# a Ray actor's line from the driver's own node, which Ray prints without its address
_LOCAL_ACTOR = re.compile(r"^\((?:[A-Za-z_][\w.]{0,80} )?pid=[0-9]{1,10}\) ")
_KERNEL_RULE_FAMILIES = ("xid.", "system.", "dcgm.")  # (rules/xid.yaml, system.yaml: the kernel's and DCGM's words)


def _the_run_host(cause: Cause, facts: RunFacts, evidence: Sequence[Finding]) -> str | None:
    """The host an incident that names no rank happened on, where the job ran on one host only:
    the one host the run names (:func:`sole_host`), named by the job's own lines (a rank's NCCL
    header, its file's folder; not a kernel log alone, which may be another node's beside the
    job's unnamed ones), the job no larger than the ranks the logs show (a world size above them:
    other hosts the logs do not name), no Ray actor printed without its address (the driver's
    own node, unnamed), and no peer named on another host. Never for a GPU's fault (which drains)."""
    if cause in GPU_FAULTS:
        return None
    sole = sole_host(facts)
    if sole is None or _peer_elsewhere(evidence, sole):
        return None
    if not (any(r.node for r in facts.ranks.values())
            or any(f.node and not f.rule.startswith(_KERNEL_RULE_FAMILIES) for f in facts.findings)):
        return None
    if facts.world_size:
        seen = set(facts.ranks) | set(facts.seen_ranks) | {f.rank for f in facts.findings if f.rank is not None}
        if len(seen) < facts.world_size:
            return None
    addressed = any(", ip=" in f.text[:200] for f in facts.findings)
    if addressed and any(_LOCAL_ACTOR.match(f.text) for f in facts.findings):
        return None
    return sole


def _peer_elsewhere(evidence: Sequence[Finding], host: str) -> bool:
    """Whether a line of ``evidence`` names a peer on another host than ``host`` (a connection
    to 10.0.1.17 lost): the failure may be that peer's, whose logs are not here."""
    for f in evidence:
        peer = (f.field("peer") or "").split("<", 1)[0]
        if peer.startswith("["):
            peer = peer[1:].split("]", 1)[0]
        elif peer.count(":") == 1:
            peer = peer.split(":", 1)[0]
        if peer and not same_host(host_key(peer), host):
            return True
    return False


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
    placed = initiator  # (what the evidence placed: the remediation's; a node the run's one host fills drains none)
    if initiator.rank is None and initiator.node is None and cause not in _NOT_ON_A_NODE:
        sole = _the_run_host(cause, facts, evidence)
        if sole is not None:
            # no rank to name, but the job ran on one host, the one its own lines name: there
            initiator = replace(initiator, node=sole)
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
    hw_context = any(f.rule.startswith(RULE_GPU_OUTLIER) and f.field("hardware") == "true" for f in evidence)
    local_nic = any(local_adapter_evidence(f, placed.node) for f in evidence)
    remediation = remediation_for(cause, placed, has_hardware_evidence=has_hw or hw_context, anchor=anchor,
                                  local_adapter=local_nic)
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
    if node is None and rank is not None:
        node = first_block_node(rank, facts)
    return Initiator(rank=rank, local_rank=local, node=node, gpu=gpu, pid=pid)


def first_block_node(rank: int, facts: RunFacts) -> str | None:
    """The node that holds ``rank`` when the logs place it nowhere but one node holds the run's
    first ranks: every rank known on it has its local rank as its global rank (node rank 0, as a
    failure table's "host: node15, rank: 4 (local_rank: 4)" says), no other node's does, and
    ``rank`` is not above the highest local rank seen there (a node's ranks are 0 .. N-1)."""
    first: set[str] = set()
    top: dict[str, int] = {}
    for info in facts.ranks.values():
        if info.node is None or info.local_rank is None:
            continue
        if info.rank == info.local_rank:
            first.add(info.node)
            top[info.node] = max(top.get(info.node, 0), info.local_rank)
    if len(first) != 1:
        return None
    node = next(iter(first))
    if any(i.node == node and i.local_rank is not None and i.rank != i.local_rank for i in facts.ranks.values()):
        return None  # (its ranks do not start at 0: not the first block)
    return node if rank <= top[node] else None
