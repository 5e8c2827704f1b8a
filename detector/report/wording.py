"""How the reports say things, the same in the terminal and in HTML: cause labels, who the
initiator is, the verdict line, counts, UTC clock times, evidence in time order."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import UTC, datetime

from detector.report.safe_text import clean_line
from detector.types import RULE_STRAGGLER, Cause, Finding, Incident, amd_gpu_evidence

CAUSE_LABELS: dict[Cause, str] = {
    Cause.GPU_HARDWARE: "GPU hardware fault",
    Cause.ECC_MEMORY: "GPU memory (ECC) error",
    Cause.NVLINK: "NVLink / NVSwitch error",
    Cause.NETWORK: "network failure",
    Cause.CUDA_OOM: "CUDA out of memory",
    Cause.ILLEGAL_MEMORY_ACCESS: "application GPU fault",
    Cause.PYTHON_EXCEPTION: "uncaught Python exception",
    Cause.HOST_OOM_KILL: "killed by the host OOM killer",
    Cause.CRASH_SIGNAL: "crashed on a signal",
    Cause.PREEMPTION: "preempted",
    Cause.HANG: "hang",
    Cause.DATA_LOADER_STALL: "data loader stall",
    Cause.COLLECTIVE_MISMATCH: "mismatched collectives",
    Cause.STRAGGLER: "straggler",
    Cause.UNKNOWN: "unknown cause",
}

def as_utc(value: datetime) -> datetime:
    """Aware UTC; a naive time (from a report written elsewhere) is taken as UTC."""
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    try:
        return value.astimezone(UTC)
    except OverflowError:
        return value.replace(tzinfo=UTC)


def offset_seconds(value: datetime, origin: datetime) -> float:
    return (as_utc(value) - as_utc(origin)).total_seconds()


def clock(value: datetime, *, date: bool = True) -> str:
    """``2026-11-29 12:00:01.123`` (UTC), or only the time of day."""
    v = as_utc(value)
    day = f"{v.year:04d}-{v.month:02d}-{v.day:02d} " if date else ""
    return f"{day}{v.hour:02d}:{v.minute:02d}:{v.second:02d}.{v.microsecond // 1000:03d}"


def plural(count: int, word: str) -> str:
    """``1 file``, ``1,200 lines``."""
    return f"{count:,} {word}{'' if count == 1 else 's'}"


def cause_label(cause: Cause) -> str:
    return CAUSE_LABELS.get(cause, cause.value)


def incident_cause_label(incident: Incident) -> str:
    """The cause's label, in the vendor's words where they differ: an AMD GPU's link fault is xGMI
    (Infinity Fabric), not NVLink."""
    if incident.cause is Cause.NVLINK and any(f.cause is Cause.NVLINK and amd_gpu_evidence(f) for f in incident.evidence):
        return "xGMI (Infinity Fabric) link error"
    return cause_label(incident.cause)


def initiator_phrase(incident: Incident) -> str:
    """``rank 3, node02, GPU 0000:2b:00`` with whatever is known."""
    ini = incident.initiator
    parts: list[str] = []
    if ini.rank is not None:
        parts.append(f"rank {ini.rank}")
    if ini.node:
        parts.append(ini.node)
    if ini.gpu:
        parts.append(f"GPU {ini.gpu}")
    if not parts:
        # a block of ranks slower together that no log places on a node (stats.straggler)
        block = next((f.field("ranks") for f in incident.evidence if f.rule == RULE_STRAGGLER
                      and f.rank is None and f.node is None and f.field("ranks") is not None), None)
        if block is not None:
            return f"ranks {block} (a node's worth; the node is not named)"
    return ", ".join(parts) if parts else "an unknown rank"


NODE_FROM = {
    "folder": "from its folder",
    "pod": "from its pod folder",
    "file": "from its file's lines",
    "lines": "from log lines",
}
_NODES_FROM = {"folder": "folders", "pod": "pod folders", "file": "own lines", "lines": "log lines"}


def node_origin(report_sources: Sequence[tuple[str, str]], node: str | None) -> str | None:
    """Where ``node``'s name came from, in words (``Summary.node_sources``), or None."""
    if not node:
        return None
    for name, how in report_sources:
        if name == node:
            return NODE_FROM.get(how)
    return None


def node_sources_line(report_sources: Sequence[tuple[str, str]]) -> str | None:
    """``names: 16 from folders, 2 from log lines`` (None: no node named)."""
    if not report_sources:
        return None
    counts: dict[str, int] = {}
    for _name, how in report_sources:
        counts[how] = counts.get(how, 0) + 1
    order = [h for h in NODE_FROM if h in counts] + sorted(h for h in counts if h not in NODE_FROM)
    return "names: " + ", ".join(f"{counts[h]} from {_NODES_FROM.get(h, h)}" for h in order)


def verdict_line(incident: Incident) -> str:
    """``gpu_hardware on rank 3, node02, GPU 0000:2b:00 (confidence 0.95)``"""
    return (
        f"{incident.cause.value} on {clean_line(initiator_phrase(incident), 200)} "
        f"(confidence {incident.confidence:.2f})"
    )


def evidence_order(evidence: Sequence[Finding]) -> list[Finding]:
    """By time, untimed last; the sort is stable so equal times keep the attribution order."""

    def key(f: Finding) -> tuple[int, datetime]:
        if f.time is None:
            return (1, datetime.min.replace(tzinfo=UTC))
        return (0, as_utc(f.time))

    return sorted(evidence, key=key)


def first_time(evidence: Iterable[Finding]) -> datetime | None:
    times = [as_utc(f.time) for f in evidence if f.time is not None]
    return min(times) if times else None

