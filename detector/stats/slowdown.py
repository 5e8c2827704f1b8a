"""Job slowdown: a change point in the job's step time (one-sided CUSUM on log step time).

Per segment (restarts start a new one, which may run on other nodes), on the job-level step
time (series.job_step_seconds):

1. skip ``slowdown_warmup`` lines, take logs, and smooth with a trailing running median of
   ``slowdown_filter`` lines, so that single long steps (a checkpoint, an evaluation, a spike)
   do not count;
2. the reference level is the median of the next ``slowdown_baseline`` lines, its spread their
   MAD;
3. CUSUM: ``S = max(0, S + x - level - drift)``; an alarm when ``S > threshold``. Drift and
   threshold are in log units (a fraction of the step time) and never below a few sigmas of
   the reference, so noisy jobs need a larger change;
4. the change began after the last line where S was 0; it is reported when the median of the
   ``slowdown_confirm`` lines from there is at least ``slowdown_min_rel`` above the level and
   ``slowdown_z`` standard errors of such medians (bursts of slow steps do not pass); the level
   then moves to the new one.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from detector.types import RULE_SLOWDOWN

from .arrays import FloatArray, IntArray, median_last
from .config import StatsConfig
from .series import StepGrid

RULE = RULE_SLOWDOWN


@dataclass(frozen=True, slots=True)
class SlowdownHit:
    start_step: int
    detected_step: int
    start_col: int
    detected_col: int
    start_time: float
    detected_time: float
    baseline_s: float
    value_s: float
    rel: float
    cusum: float
    threshold: float
    sigma: float  # spread of the reference level, log units


def _running_median(x: FloatArray, width: int) -> FloatArray:
    if width <= 1 or x.size == 0:
        return x.copy()
    padded = np.r_[np.full(width - 1, x[0]), x]
    return median_last(np.lib.stride_tricks.sliding_window_view(padded, width))


def _cusum_alarms(
    x: FloatArray, xf: FloatArray, config: StatsConfig
) -> list[tuple[int, int, float, float, float, float]]:
    """(start, detection, level, new level, S, threshold) per confirmed change, indices into x.

    An alarm is confirmed when the median of the ``slowdown_confirm`` raw lines from the change
    on is at least ``slowdown_min_rel`` above the level; the detection is then at the later of
    the alarm and the end of that confirmation window. An unconfirmed alarm only resets S."""
    b = config.slowdown_baseline
    confirm = config.slowdown_confirm
    out: list[tuple[int, int, float, float, float, float]] = []
    if x.size < b + config.slowdown_filter:
        return out
    ref = xf[:b]
    level = float(np.median(ref))
    sigma = float(1.4826 * np.median(np.abs(ref - level)))
    raw = x[:b]
    raw_sigma = float(1.4826 * np.median(np.abs(raw - np.median(raw))))
    # a median of m lines varies by about 1.25 sigma / sqrt(m): the shift must stand out of both
    noise = 1.2533 * raw_sigma * float(np.sqrt(1.0 / confirm + 1.0 / b))
    drift = max(config.slowdown_drift, config.slowdown_sigma_drift * sigma)
    threshold = max(config.slowdown_threshold, config.slowdown_sigma_threshold * sigma)
    min_shift = float(np.log1p(config.slowdown_min_rel))
    s = 0.0
    last_zero = b - 1
    n = x.size
    t = b
    while t < n and len(out) < config.max_slowdowns:
        s = max(0.0, s + float(xf[t]) - level - drift)
        if s == 0.0:
            last_zero = t
        elif s > threshold:
            start = last_zero + 1
            if start + confirm > n:
                break  # not enough lines after the change to confirm it
            new_level = float(np.median(x[start : start + confirm]))
            if new_level - level >= max(min_shift, config.slowdown_z * noise):
                detected = max(t, start + confirm - 1)
                out.append((start, detected, level, new_level, s, threshold))
                level = new_level  # the new normal: look for further changes from here
                t = detected
            s = 0.0
            last_zero = t
        t += 1
    return out


SHORT_BASELINE = 10  # the fewest step lines a reference level is taken from
SHORT_CONFIRM = 8  # the fewest lines after a change that confirm it


def _scaled(config: StatsConfig, n: int) -> StatsConfig:
    """The settings for a segment of ``n`` step lines: a log too short for the full reference
    level (a job that logs every 50 steps, a paste) takes its first third as the reference and
    a quarter of its lines to confirm a change, never fewer than 10 and 8."""
    if n >= config.slowdown_baseline + config.slowdown_filter:
        return config
    baseline = max(SHORT_BASELINE, min(config.slowdown_baseline, n // 3))
    confirm = max(SHORT_CONFIRM, min(config.slowdown_confirm, n // 4))
    return replace(config, slowdown_baseline=baseline, slowdown_confirm=confirm)


def detect_slowdowns(
    grid: StepGrid, job_step: FloatArray, config: StatsConfig
) -> list[SlowdownHit]:
    hits: list[SlowdownHit] = []
    if grid.n_cols == 0:
        return hits
    finite = np.isfinite(job_step) & (job_step > 0)
    for segment in np.unique(grid.col_segments).tolist():
        cols: IntArray = np.flatnonzero(finite & (grid.col_segments == segment))[
            config.slowdown_warmup :
        ]
        config = _scaled(config, cols.size)
        if cols.size < config.slowdown_baseline + config.slowdown_filter:
            continue
        x = np.log(job_step[cols])
        xf = _running_median(x, config.slowdown_filter)
        b = config.slowdown_baseline
        sigma = float(1.4826 * np.median(np.abs(xf[:b] - np.median(xf[:b]))))
        for start, alarm, level, new_level, s, threshold in _cusum_alarms(x, xf, config):
            c0, c1 = int(cols[start]), int(cols[alarm])
            hits.append(
                SlowdownHit(
                    start_step=int(grid.col_steps[c0]),
                    detected_step=int(grid.col_steps[c1]),
                    start_col=c0,
                    detected_col=c1,
                    start_time=_col_time(grid, c0),
                    detected_time=_col_time(grid, c1),
                    baseline_s=float(np.exp(level)),
                    value_s=float(np.exp(new_level)),
                    rel=float(np.expm1(new_level - level)),
                    cusum=s,
                    threshold=threshold,
                    sigma=sigma,
                )
            )
    return hits


def _col_time(grid: StepGrid, col: int) -> float:
    times = grid.times[:, col]
    finite = times[np.isfinite(times)]
    return float(np.median(finite)) if finite.size else float("nan")
