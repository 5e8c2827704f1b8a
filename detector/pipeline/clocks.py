"""Nodes whose clocks are off, read from the step lines of a synchronous job, and the run's times
put back on one clock.

In data-parallel training every rank finishes step N at the same moment, give or take the
collective's last message: the ranks of one node that print step N at 12:00:05 while the others'
say 12:05:38 are on a clock 333 s ahead. The offset of each node is the median, over the steps
several nodes printed, of its time for the step less the median of all nodes' times for it;
an offset is kept only when the steps agree on it (a node whose ranks merely ran slower drifts,
step by step, and is no offset). Its lines' times (the rank logs' and its kernel log's, one
clock) are then moved back by it, before attribution orders the run's evidence by time.
"""

from __future__ import annotations

import dataclasses
import itertools
import statistics
from collections import defaultdict
from collections.abc import Mapping, Sequence
from datetime import timedelta
from typing import TYPE_CHECKING

from detector.support.hosts import host_key
from detector.types import Finding, RankInfo

if TYPE_CHECKING:  # (the statistics package imports numpy: not for a paste's replay)
    from detector.stats.model import LogNote, StepSample

MIN_OFFSET_S = 5.0  # smaller offsets are within what the attribution's skew window allows for
MIN_COMMON_STEPS = 5  # steps a node shares with the others, at least
MAX_SPREAD = 0.1  # the node's per-step offsets' spread (median absolute deviation), as a share of the offset
MAX_SPREAD_S = 2.0  # and in seconds, at most
MIN_TWO_NODE_OFFSET_S = 30.0  # of two nodes, the smallest offset read as a clock's
TWO_NODE_STEPS = 3  # (and at least this many steps' time)


def node_clock_offsets(samples: Sequence[StepSample]) -> dict[str, float]:
    """Host key -> seconds the node's clock is ahead of the others' (only the nodes whose offset
    is clear: at least :data:`MIN_OFFSET_S`, agreed on by :data:`MIN_COMMON_STEPS` steps or
    more). Of two nodes, which one is off cannot be told: the one of the lower ranks (rank 0's,
    the job's first node) is read as right and the other put on its clock."""
    per_node: dict[str, dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    lowest: dict[str, int] = {}
    for s in samples:
        if s.node:
            key = host_key(s.node)
            per_node[key][s.step].append(s.time)
            lowest[key] = min(lowest.get(key, s.rank), s.rank)
    if len(per_node) == 2:
        return _second_node_offset(per_node, lowest)
    if len(per_node) < 3:
        return {}
    at: dict[str, dict[int, float]] = {node: {step: statistics.median(ts) for step, ts in steps.items()}
                                       for node, steps in per_node.items()}
    by_step: dict[int, list[float]] = defaultdict(list)
    for steps in at.values():
        for step, t in steps.items():
            by_step[step].append(t)
    reference = {step: statistics.median(ts) for step, ts in by_step.items() if len(ts) >= 3}
    out: dict[str, float] = {}
    for node, steps in at.items():
        diffs = [t - reference[step] for step, t in steps.items() if step in reference]
        if len(diffs) < MIN_COMMON_STEPS:
            continue
        offset = statistics.median(diffs)
        if abs(offset) < MIN_OFFSET_S:
            continue
        spread = statistics.median(abs(d - offset) for d in diffs)
        if spread <= min(MAX_SPREAD_S, MAX_SPREAD * abs(offset)):
            out[node] = offset
    # a majority of nodes "off" by the same amount is the reference being wrong, not them
    return out if len(out) * 2 < len(at) else {}


def _second_node_offset(per_node: Mapping[str, Mapping[int, list[float]]], lowest: Mapping[str, int]) -> dict[str, float]:
    """Of two nodes, the other node's offset from the clock of the node of the lower ranks, where
    the steps they share agree on one (as above)."""
    first, other = sorted(per_node, key=lambda n: (lowest[n], n))
    diffs = [statistics.median(ts) - statistics.median(per_node[first][step])
             for step, ts in per_node[other].items() if step in per_node[first]]
    if len(diffs) < MIN_COMMON_STEPS:
        return {}
    offset = statistics.median(diffs)
    # (with no third node to tell a clock from a node that prints its steps later - a straggler
    # that logs before it waits for the others - only an offset of many steps' length is a clock's)
    steps = sorted(per_node[first])
    gaps = [(statistics.median(per_node[first][b]) - statistics.median(per_node[first][a])) / (b - a)
            for a, b in itertools.pairwise(steps) if b > a]  # (seconds a step)
    if abs(offset) < max(MIN_TWO_NODE_OFFSET_S, TWO_NODE_STEPS * (statistics.median(gaps) if gaps else 0.0)):
        return {}
    spread = statistics.median(abs(d - offset) for d in diffs)
    return {other: offset} if spread <= min(MAX_SPREAD_S, MAX_SPREAD * abs(offset)) else {}


def _offset(node: str | None, offsets: Mapping[str, float]) -> float | None:
    return offsets.get(host_key(node)) if node else None


def shift_samples(samples: Sequence[StepSample], offsets: Mapping[str, float]) -> list[StepSample]:
    if not offsets:
        return list(samples)
    return [dataclasses.replace(s, time=s.time - off) if (off := _offset(s.node, offsets)) is not None else s
            for s in samples]


def shift_notes(notes: Sequence[LogNote], rank_node: Mapping[int, str],
                offsets: Mapping[str, float]) -> list[LogNote]:
    """``notes`` (checkpoint and eval lines) of the ranks of a node whose clock is off put back
    on the run's clock."""
    if not offsets:
        return list(notes)
    return [dataclasses.replace(n, time=n.time - off)
            if n.rank is not None and (off := _offset(rank_node.get(n.rank), offsets)) is not None else n
            for n in notes]


def shift_findings(findings: Sequence[Finding], offsets: Mapping[str, float]) -> list[Finding]:
    """``findings`` with the times of the lines of a node whose clock is off put back on the run's
    clock."""
    if not offsets:
        return list(findings)
    out = []
    for f in findings:
        off = _offset(f.node, offsets)
        if off is not None and f.time is not None:
            f = dataclasses.replace(f, time=f.time - timedelta(seconds=off))
        out.append(f)
    return out


def shift_ranks(ranks: Mapping[int, RankInfo], offsets: Mapping[str, float]) -> dict[int, RankInfo]:
    if not offsets:
        return dict(ranks)
    out = {}
    for r, info in ranks.items():
        off = _offset(info.node, offsets)
        if off is not None and info.last_time is not None:
            info = dataclasses.replace(info, last_time=info.last_time - timedelta(seconds=off))
        out[r] = info
    return out
