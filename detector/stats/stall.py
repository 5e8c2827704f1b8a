"""Stall / hang: no step progress for k times the rolling median interval between step lines.

One decision rule serves the live sidecar (:class:`StallTracker`, fed line by line and asked
``check(now)``) and replay (:func:`detect_stalls`, vectorised over a :class:`StepGrid`):

- the *allowance* for a silence is ``max(floor_s, k x median interval)`` (:func:`allowance`),
  raised when a pause is expected: the step about to come continues a pattern of long
  intervals recurring every N steps (learned from the history, :func:`predict_pause`), a
  checkpoint/eval line was printed since the last step, or the last step is a round number
  (a multiple of ``boundary_multiple``, where trainers checkpoint and evaluate);
- the median is the median over ranks of each rank's median of its last ``median_window``
  intervals (:func:`median_interval`);
- the ranks named are those that stopped first: the stalled ranks that are behind the others
  (:func:`stopped_first`); when every rank stopped at the same step none is singled out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from detector.types import RULE_STALL, Cause, Finding, Role, Severity

from . import evidence as ev
from .arrays import BoolArray, FloatArray, IntArray, median_last
from .config import StatsConfig
from .model import StepSample

RULE = RULE_STALL
MAX_PAUSES = 64
_MAX_NAMED = 8


@dataclass(frozen=True, slots=True)
class Pause:
    """A long interval seen before: the step line that ended it, and its length."""

    step: int
    seconds: float


@dataclass(frozen=True, slots=True)
class Allowance:
    seconds: float
    base_s: float
    reason: str


def predict_pause(pauses: Sequence[Pause], next_step: int) -> tuple[int, float] | None:
    """(period, longest pause on that pattern) when ``next_step`` continues pauses recurring
    every ``period`` steps: at least two earlier pauses fall on ``next_step - i * period``, and
    at least 80 % of the pattern's steps since its first pause were pauses (so checkpoints every
    200 and evaluations every 250 steps do not make a pattern every 50).

    Step 0 and step 1 count as such a pause (trainers save every N steps counting from the
    start), so one checkpoint at step N already predicts the one at 2N."""
    earlier = [p for p in pauses if p.step < next_step]
    steps = {p.step for p in earlier}
    best: tuple[int, float] | None = None
    for anchor in steps | {0, 1}:
        period = next_step - anchor
        if period <= 0:
            continue
        hits = sorted(step for step in steps if (next_step - step) % period == 0)
        if not hits:
            continue
        expected = (next_step - hits[0]) // period
        virtual = any(
            v < hits[0] and (hits[0] - v) % period == 0 and (hits[0] - v) // period == 1
            for v in (0, 1)
        )
        if len(hits) + virtual < 2 or len(hits) < 0.8 * expected:
            continue
        longest = max(p.seconds for p in earlier if p.step in hits)
        if best is None or longest > best[1]:
            best = (period, longest)
    return best


def allowance(
    *,
    median_s: float,
    last_step: int,
    step_increment: int,
    pauses: Sequence[Pause],
    pause_note: bool,
    config: StatsConfig,
) -> Allowance:
    """How long a rank may print nothing after ``last_step`` before it counts as stalled."""
    base = max(config.floor_s, config.k * median_s)
    if config.k * median_s >= config.floor_s:
        reason = f"{ev.num(config.k)} x median interval {ev.num(median_s)} s"
    else:
        reason = f"floor {ev.num(config.floor_s)} s (median interval {ev.num(median_s)} s)"
    seconds = base
    predicted = predict_pause(pauses, last_step + max(step_increment, 1))
    if predicted is not None and config.pause_margin * predicted[1] > seconds:
        seconds = config.pause_margin * predicted[1]
        reason = (
            f"expected pause: long intervals recur every {predicted[0]} steps "
            f"(longest {ev.num(predicted[1])} s)"
        )
    if pause_note:
        learned = max((p.seconds for p in pauses), default=0.0)
        note_s = max(config.pause_margin * learned, config.note_pause_s)
        if note_s > seconds:
            seconds = note_s
            reason = "a checkpoint/evaluation line was printed since the last step"
    multiple = config.boundary_multiple
    if (
        multiple > 0
        and step_increment * 5 <= multiple
        and (last_step % multiple == 0 or (last_step + 1) % multiple == 0)
        and config.boundary_pause_s > seconds
    ):
        seconds = config.boundary_pause_s
        reason = (
            f"step {last_step} is a multiple of {multiple}, where trainers checkpoint and evaluate"
        )
    return Allowance(seconds, base, reason)


def median_interval(recent: FloatArray) -> float | None:
    """Median over ranks of each rank's median recent interval; ``recent`` is (ranks, window)
    with NaN padding. None when fewer than one full rank has history."""
    if recent.size == 0:
        return None
    per_rank = median_last(recent)
    per_rank = per_rank[np.isfinite(per_rank)]
    if per_rank.size == 0:
        return None
    return float(np.median(per_rank))


def stopped_first(last_keys: IntArray, stalled: BoolArray) -> list[int]:
    """Rows (indices) of the stalled ranks that are behind: all stalled ranks when some ranks
    still progress, else the stalled ranks at the lowest last step when that is not all."""
    rows = np.flatnonzero(stalled)
    if rows.size == 0:
        return []
    if rows.size < stalled.size:
        behind = rows[last_keys[rows] == last_keys[rows].min()]
        return [int(r) for r in behind]
    low = last_keys.min()
    behind = np.flatnonzero(last_keys == low)
    if behind.size == last_keys.size:
        return []
    return [int(r) for r in behind]


@dataclass(frozen=True, slots=True)
class StallEvent:
    """A silence longer than its allowance: ongoing at ``now`` or ``recovered`` later."""

    detected_at: float  # last progress + allowance
    last_progress: float
    silence_s: float
    last_step: int
    allowance: Allowance
    median_s: float
    stalled_ranks: tuple[int, ...]
    first_ranks: tuple[int, ...]
    ahead_step: int | None  # the step the other ranks reached, when the named ranks are behind
    recovered: bool
    n_ranks: int
    nodes: tuple[tuple[int, str], ...] = ()
    sample_index: int | None = None  # the last step line before the silence (replay)


def stall_findings(event: StallEvent, source: StepSample | None = None) -> list[Finding]:
    """Findings for a stall: one per rank that stopped first, or one for the job."""
    a = event.allowance
    plural = "s" if len(event.stalled_ranks) > 1 else ""
    scope = (
        f"all {event.n_ranks} ranks"
        if len(event.stalled_ranks) == event.n_ranks
        else f"rank{plural} {ev.ranks_text(event.stalled_ranks)}"
    )
    if event.recovered:
        text = (
            f"step progress paused {ev.num(event.silence_s)} s on {scope} after step "
            f"{event.last_step} (allowance {ev.num(a.seconds)} s: {a.reason}), then resumed"
        )
    else:
        text = (
            f"no step progress for {ev.num(event.silence_s)} s on {scope} since step "
            f"{event.last_step} (allowance {ev.num(a.seconds)} s: {a.reason})"
        )
    if event.first_ranks and event.ahead_step is not None:
        first = "s" if len(event.first_ranks) > 1 else ""
        text += (
            f"; rank{first} {ev.ranks_text(event.first_ranks)} stopped first, at step "
            f"{event.last_step}, while the others reached step {event.ahead_step}"
        )
    nodes = dict(event.nodes)
    fields = ev.pairs(
        metric="seconds_without_progress",
        value=event.silence_s,
        baseline=event.median_s,
        allowance=a.seconds,
        allowance_reason=a.reason,
        score=event.silence_s / a.seconds if a.seconds > 0 else None,
        step=event.last_step,
        ahead_step=event.ahead_step,
        last_progress=ev.iso(event.last_progress),
        stalled_ranks=",".join(str(r) for r in event.stalled_ranks),
        first_ranks=",".join(str(r) for r in event.first_ranks) or None,
        recovered=event.recovered,
    )
    role = Role.CONTEXT if event.recovered else Role.INITIATOR
    severity = Severity.WARNING if event.recovered else Severity.ERROR
    named = event.first_ranks[:_MAX_NAMED] if event.first_ranks else (None,)
    # a silence that resumed is weak evidence of a hang; one rank behind the others is strong
    confidence = 0.3 if event.recovered else (0.8 if event.first_ranks else 0.6)
    return [
        Finding(
            rule=RULE,
            role=role,
            cause=Cause.HANG,
            severity=severity,
            confidence=confidence,
            text=text,
            file=source.file if source and (rank is None or rank == source.rank) else None,
            line=source.line if source and (rank is None or rank == source.rank) else None,
            time=ev.utc(event.detected_at),
            rank=rank,
            node=nodes.get(rank) if rank is not None else None,
            fields=fields,
        )
        for rank in named
    ]


def notes_between(note_times: FloatArray, starts: FloatArray, ends: FloatArray) -> BoolArray:
    """Whether a pause line falls in (start, end] of each interval; note_times sorted."""
    if note_times.size == 0:
        return np.zeros(len(starts), dtype=np.bool_)
    ordered = np.sort(note_times)
    before_end = np.searchsorted(ordered, np.nan_to_num(ends, nan=-np.inf), side="right")
    before_start = np.searchsorted(ordered, np.nan_to_num(starts, nan=np.inf), side="right")
    return np.asarray(before_end > before_start, dtype=np.bool_)


def evaluate(
    *,
    now: float,
    ranks: IntArray,
    last_keys: IntArray,
    last_steps: IntArray,
    last_times: FloatArray,
    activity: FloatArray,
    ended: BoolArray,
    median_s: float,
    step_increment: int,
    pauses: Sequence[Pause],
    pause_notes: FloatArray,
    config: StatsConfig,
) -> StallEvent | None:
    """The stall at ``now``, if any: the shared core of the live and the replay detector."""
    notes = notes_between(pause_notes, last_times, np.full(len(ranks), now))
    silence = now - np.maximum(activity, last_times)
    allowances: dict[tuple[int, bool], Allowance] = {}
    limit = np.empty(len(ranks))
    keys = list(zip(last_steps.tolist(), notes.tolist(), strict=True))
    for i, key in enumerate(keys):
        a = allowances.get(key)
        if a is None:
            a = allowances[key] = allowance(
                median_s=median_s,
                last_step=key[0],
                step_increment=step_increment,
                pauses=pauses,
                pause_note=key[1],
                config=config,
            )
        limit[i] = a.seconds
    stalled = (silence > limit) & ~ended
    per_rank = [allowances[key] for key in keys]
    if not stalled.any():
        return None
    first = stopped_first(last_keys, stalled)
    rows = np.flatnonzero(stalled)
    lead = first[0] if first else int(rows[np.argmax(last_times[rows])])
    a = per_rank[lead]
    progress = float(last_times[rows].max()) if not first else float(last_times[first].max())
    ahead = int(last_steps[np.argmax(last_keys)]) if first else None
    return StallEvent(
        detected_at=progress + a.seconds,
        last_progress=progress,
        silence_s=now - progress,
        last_step=int(last_steps[lead]),
        allowance=a,
        median_s=median_s,
        stalled_ranks=tuple(int(r) for r in ranks[rows]),
        first_ranks=tuple(int(ranks[r]) for r in first),
        ahead_step=ahead,
        recovered=False,
        n_ranks=len(ranks),
    )
