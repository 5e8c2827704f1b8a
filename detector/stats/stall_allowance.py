"""How long a rank may print nothing before it counts as stalled: the *allowance* for a silence
(:func:`allowance`: ``max(floor_s, k x median interval)``, raised for an expected pause learned
from the history (:func:`predict_pause`), a checkpoint/eval line since the last step
(:func:`notes_between`) or a round step number), and the median interval it scales
(:func:`median_interval`). Pure helpers of the stall rule (:mod:`detector.stats.stall`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from . import evidence as ev
from .arrays import BoolArray, FloatArray, median_last
from .config import StatsConfig

MAX_PAUSES = 64


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



def notes_between(note_times: FloatArray, starts: FloatArray, ends: FloatArray) -> BoolArray:
    """Whether a pause line falls in (start, end] of each interval; note_times sorted."""
    if note_times.size == 0:
        return np.zeros(len(starts), dtype=np.bool_)
    ordered = np.sort(note_times)
    before_end = np.searchsorted(ordered, np.nan_to_num(ends, nan=-np.inf), side="right")
    before_start = np.searchsorted(ordered, np.nan_to_num(starts, nan=np.inf), side="right")
    return np.asarray(before_end > before_start, dtype=np.bool_)
