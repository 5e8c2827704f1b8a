"""Findings for the straggler, slowdown and GPU-outlier results, with the numbers that make
them convincing; GPUs joined to ranks through host names, GPU indices and PCI ids."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

import numpy as np

from detector.sources.pci import normalize_pci
from detector.support.numbers import rank_ranges
from detector.types import Cause, Finding, Role, Severity

from . import evidence as ev
from . import gpu_outliers, slowdown, straggler
from .config import StatsConfig
from .gpu_outliers import GpuOutlier, deviation_text, short_host
from .model import StepSample
from .series import StepGrid
from .slowdown import SlowdownHit
from .straggler import StragglerHit


def _unit(seconds: float) -> tuple[str, float]:
    return ("ms", 1e3) if seconds < 10 else ("s", 1.0)


def rank_gpu(
    rank: int,
    node: str | None,
    local_rank: int | None,
    outliers: Sequence[GpuOutlier],
    rank_gpus: Mapping[int, str],
) -> tuple[str | None, GpuOutlier | None]:
    """The rank's GPU (normalised PCI id, where known) and its outlier record, if it is one.

    Joined by the PCI id the logs gave for the rank (NCCL's busId), else by host name and
    GPU index = local rank (the usual one-GPU-per-local-rank placement)."""
    pci = normalize_pci(rank_gpus[rank]) if rank in rank_gpus else None
    host = short_host(node)
    for outlier in outliers:
        same_host = not host or not outlier.gpu.host or outlier.gpu.host == host
        if pci and outlier.gpu.pci == pci and same_host:
            return pci, outlier
        if (
            (not pci or not outlier.gpu.pci)
            and host
            and outlier.gpu.host == host
            and local_rank is not None
            and outlier.gpu.index == local_rank
        ):
            return outlier.gpu.pci or None, outlier
    return pci, None


def straggler_findings(
    hits: Sequence[StragglerHit],
    grid: StepGrid,
    samples: Sequence[StepSample] | None,
    outliers: Sequence[GpuOutlier],
    rank_gpus: Mapping[int, str],
    config: StatsConfig,
) -> list[Finding]:
    per_node = Counter(n for n in grid.nodes if n)
    flagged_node = Counter(h.node for h in hits if h.node)
    out = [_node_finding(group, grid, samples, config) for group in _node_groups(hits)]
    for hit in hits:
        if hit.group:
            continue
        unit, factor = _unit(hit.peers_s)
        text = (
            f"rank {hit.rank} {hit.key}_{unit} median {hit.value_s * factor:.1f} vs peers "
            f"{hit.peers_s * factor:.1f} ({ev.pct(hit.rel)}, robust z {hit.z:.1f}) for {_streak(hit)}"
        )
        if hit.baseline_s is not None and hit.z_individual is not None:
            text += (
                f"; its own earlier median {hit.baseline_s * factor:.1f} (z {hit.z_individual:.1f})"
            )
        if not hit.ongoing:
            text += "; not slower in the last window"
        if hit.node and flagged_node[hit.node] > 1:
            flagged = flagged_node[hit.node]
            text += f"; {flagged} of {per_node[hit.node]} ranks on {hit.node} are flagged"
        local_rank = grid.local_ranks[hit.row]
        pci, outlier = rank_gpu(hit.rank, hit.node, local_rank, outliers, rank_gpus)
        gpu_fields: dict[str, object] = {}
        if outlier is not None:
            text += f"; its {outlier.gpu.describe()} deviates: {deviation_text(outlier.primary)}"
            gpu_fields = {
                "gpu_metric": outlier.primary.key,
                "gpu_value": outlier.primary.value,
                "gpu_baseline": outlier.primary.peers,
                "gpu_score": outlier.primary.z,
            }
        source = _sample(grid, samples, hit.row, hit.detected_col)
        out.append(
            Finding(
                rule=straggler.RULE,
                role=Role.INITIATOR,
                cause=Cause.STRAGGLER,
                confidence=_straggler_confidence(hit, config, outlier is not None),
                severity=Severity.WARNING,
                text=text,
                file=source.file if source else None,
                line=source.line if source else None,
                time=ev.utc(hit.detected_time),
                rank=hit.rank,
                local_rank=local_rank,
                node=hit.node,
                gpu=pci,
                fields=ev.pairs(
                    metric=f"{hit.key}_s",
                    value=hit.value_s,
                    baseline=hit.peers_s,
                    change=hit.rel,
                    score=hit.z,
                    individual_score=hit.z_individual,
                    own_baseline=hit.baseline_s,
                    step=hit.start_step,
                    detected_step=hit.detected_step,
                    windows=hit.windows,
                    window_steps=hit.window_steps,
                    ongoing=hit.ongoing,
                    node=hit.node,
                    node_flagged=f"{flagged_node[hit.node]}/{per_node[hit.node]}"
                    if hit.node
                    else None,
                    gpu=pci,
                    **gpu_fields,
                ),
                context=(source.text,) if source and source.text else (),
            )
        )
    return out


def _streak(hit: StragglerHit) -> str:
    """How long the straggler was slower: its windows of steps (or single lines), and since when."""
    span = (f"{hit.windows} consecutive windows of {hit.window_steps} steps" if hit.window_steps > 1
            else f"{hit.windows} step lines in a row")
    return f"{span} since step {hit.start_step}"


def _node_groups(hits: Sequence[StragglerHit]) -> list[list[StragglerHit]]:
    groups: dict[str | None, list[StragglerHit]] = {}
    for hit in hits:
        if hit.group:
            groups.setdefault(hit.node, []).append(hit)
    return list(groups.values())


def _node_finding(group: list[StragglerHit], grid: StepGrid, samples: Sequence[StepSample] | None,
                  config: StatsConfig) -> Finding:
    """One finding for a node whose ranks are all slower than every other node's: the node, not
    one of its ranks, is what the logs single out."""
    key = Counter(h.key for h in group).most_common(1)[0][0]  # (one timing: a median of one kind)
    group = [h for h in group if h.key == key]
    first = min(group, key=lambda h: h.rank)
    ranks = sorted(h.rank for h in group)
    value = float(np.median([h.value_s for h in group]))
    unit, factor = _unit(first.peers_s)
    rel = (value - first.peers_s) / first.peers_s if first.peers_s > 0 else float("inf")
    if first.node is not None:
        who = f"all {len(ranks)} ranks on {first.node} (ranks {rank_ranges(ranks)})"
        others = "the other nodes'"
    else:  # a block of consecutive ranks, a node's worth, where the logs place no rank on a node
        who = f"ranks {rank_ranges(ranks)} (a node's worth of consecutive ranks; the logs do not say which node runs them)"
        others = "the other ranks'"
    text = (
        f"{who} {first.key}_{unit} median {value * factor:.1f} vs {others} {first.peers_s * factor:.1f} "
        f"({ev.pct(rel)}) for {_streak(first)}; the other ranks wait for them"
    )
    if not first.ongoing:
        text += "; not slower in the last window"
    source = _sample(grid, samples, first.row, first.detected_col)
    return Finding(
        rule=straggler.RULE,
        role=Role.INITIATOR,
        cause=Cause.STRAGGLER,
        confidence=_straggler_confidence(first, config, False),
        severity=Severity.WARNING,
        text=text,
        file=source.file if source else None,
        line=source.line if source else None,
        time=ev.utc(first.detected_time),
        rank=None,
        node=first.node,
        fields=ev.pairs(
            metric=f"{first.key}_s", value=value, baseline=first.peers_s, change=rel,
            step=first.start_step, detected_step=first.detected_step, windows=first.windows,
            window_steps=first.window_steps, ongoing=first.ongoing, node=first.node,
            node_flagged=f"{len(ranks)}/{len(ranks)}", ranks=rank_ranges(ranks),
        ),
        context=(source.text,) if source and source.text else (),
    )


def _straggler_confidence(hit: StragglerHit, config: StatsConfig, gpu_backed: bool) -> float:
    """0.6 at the first flag, more the longer the streak; less when it has passed; a deviating
    GPU behind the rank makes it near certain."""
    need = config.consecutive if hit.window_steps > 1 else straggler.SHORT_STREAK
    value = 0.6 + 0.05 * (hit.windows - need)
    if not hit.ongoing:
        value -= 0.15
    if gpu_backed:
        value += 0.2
    return round(max(0.3, min(0.95, value)), 2)


def slowdown_findings(
    hits: Sequence[SlowdownHit],
    grid: StepGrid,
    samples: Sequence[StepSample] | None,
    outliers: Sequence[GpuOutlier],
) -> list[Finding]:
    out = []
    for hit in hits:
        unit, factor = _unit(hit.baseline_s)
        text = (
            f"job step time rose {ev.pct(hit.rel)} from {hit.baseline_s * factor:.1f} {unit} to "
            f"{hit.value_s * factor:.1f} {unit} from step {hit.start_step} "
            f"(CUSUM {hit.cusum:.2f} > {hit.threshold:.2f} at step {hit.detected_step})"
        )
        perf = [o for o in outliers if o.primary.performance]
        if perf:
            text += "; deviating GPUs: " + ", ".join(o.gpu.describe() for o in perf[:4])
        source = _sample(grid, samples, 0, hit.detected_col)
        out.append(
            Finding(
                rule=slowdown.RULE,
                role=Role.CONTEXT,
                cause=Cause.STRAGGLER,
                confidence=0.5,
                severity=Severity.WARNING,
                text=text,
                file=source.file if source else None,
                line=source.line if source else None,
                time=ev.utc(hit.detected_time),
                node=perf[0].gpu.host or None if len(perf) == 1 else None,
                gpu=perf[0].gpu.pci or None if len(perf) == 1 else None,
                fields=ev.pairs(
                    metric="job_step_time_s",
                    value=hit.value_s,
                    baseline=hit.baseline_s,
                    change=hit.rel,
                    score=hit.cusum,
                    threshold=hit.threshold,
                    step=hit.start_step,
                    detected_step=hit.detected_step,
                    start=ev.iso(hit.start_time),
                ),
            )
        )
    return out


def gpu_findings(
    outliers: Sequence[GpuOutlier],
    grid: StepGrid,
    rank_gpus: Mapping[int, str],
) -> list[Finding]:
    out = []
    for outlier in outliers:
        primary = outlier.primary
        ranks = [
            int(grid.ranks[row])
            for row in range(grid.n_ranks)
            if rank_gpu(
                int(grid.ranks[row]), grid.nodes[row], grid.local_ranks[row], [outlier], rank_gpus
            )[1]
            is not None
        ]
        model = f" ({outlier.model})" if outlier.model else ""
        text = (
            f"{outlier.gpu.describe()}{model} deviates from its {outlier.n_peers} peers: "
            + "; ".join(deviation_text(d) for d in outlier.deviations)
        )
        if len(ranks) == 1:
            text += f"; it runs rank {ranks[0]}"
        extra = {f"{d.key}": d.value for d in outlier.deviations}
        extra.update({f"{d.key}_peers": d.peers for d in outlier.deviations})
        extra.update({f"{d.key}_z": d.z for d in outlier.deviations})
        out.append(
            Finding(
                rule=gpu_outliers.RULE,
                role=Role.CONTEXT,
                cause=Cause.STRAGGLER,
                confidence=0.9 if outlier.hardware else (0.7 if primary.performance else 0.4),
                severity=Severity.WARNING if primary.performance else Severity.INFO,
                text=text,
                time=ev.utc(outlier.window[1]),
                rank=ranks[0] if len(ranks) == 1 else None,
                node=outlier.gpu.host or None,
                gpu=outlier.gpu.pci or None,
                fields=ev.pairs(
                    metric=primary.key,
                    value=primary.value,
                    baseline=primary.peers,
                    score=primary.z,
                    node=outlier.gpu.host or None,
                    hardware=outlier.hardware,
                    gpu_index=outlier.gpu.index if outlier.gpu.index >= 0 else None,
                    pci=outlier.gpu.pci or None,
                    uuid=outlier.gpu.uuid or None,
                    model=outlier.model or None,
                    peers=outlier.n_peers,
                    window_start=ev.iso(outlier.window[0]),
                    window_end=ev.iso(outlier.window[1]),
                    **extra,
                ),
            )
        )
    return out


def _sample(
    grid: StepGrid, samples: Sequence[StepSample] | None, row: int, col: int
) -> StepSample | None:
    if samples is None or grid.n_ranks == 0:
        return None
    index = grid.sample_index(row, col)
    if index is None or index >= len(samples):
        return None
    return samples[index]
