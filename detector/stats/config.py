"""Settings of the statistical detectors: one frozen value, validated when it is made."""

from __future__ import annotations

from dataclasses import dataclass, fields


@dataclass(frozen=True, slots=True)
class StatsConfig:
    """Thresholds and windows of the step-time and GPU-metric detectors.

    The defaults are the ones the benchmark (bench/bench_stats.py) was run with.
    """

    # --- stall / hang -------------------------------------------------------------------
    k: float = 5.0  # no progress for k x the rolling median interval between step lines ...
    floor_s: float = 30.0  # ... and never less than this
    median_window: int = 50  # intervals per rank in the rolling median
    min_intervals: int = 5  # judge a silence only after this many intervals were seen
    long_factor: float = 3.0  # an interval this many medians long is a "pause" (learned)
    pause_margin: float = 2.0  # allowance = margin x the longest matching learned pause
    note_pause_s: float = 600.0  # allowance after a checkpoint/eval line, nothing learned yet
    boundary_multiple: int = 50  # steps that are multiples of this may checkpoint/evaluate ...
    boundary_pause_s: float = 300.0  # ... so the silence after one is allowed this long
    report_recovered_stalls: bool = True  # replay: also report silences that later resumed

    # --- straggler ----------------------------------------------------------------------
    window: int = 20  # step lines per window
    consecutive: int = 3  # windows in a row beyond the thresholds before a rank is flagged
    z_threshold: float = 4.0  # robust z against the peers (median/MAD over ranks)
    rel_threshold: float = 0.10  # and at least this much slower than the peers' median
    impact_fraction: float = 0.03  # and the excess at least this fraction of the wall step time
    rel_floor: float = 0.03  # MAD floor, as a fraction of the peers' median
    abs_floor_s: float = 1e-4  # MAD floor in seconds
    min_ranks: int = 3  # fewer ranks than this: no peer comparison
    baseline_windows: int = 3  # the rank's own history: its first windows
    collective_keys: tuple[str, ...] = (
        "bwd",
        "backward",
        "allreduce",
        "all_reduce",
        "reduce",
        "comm",
        "sync",
        "wait",
        "barrier",
        "optim",
        "step",
        "total",
        "iter",
        "elapsed",
    )  # local timings whose name contains one of these include a collective: not rank-local

    # --- job slowdown -------------------------------------------------------------------
    slowdown_warmup: int = 5  # step lines skipped at the start of each segment
    slowdown_baseline: int = 100  # step lines in the reference level
    slowdown_filter: int = 5  # trailing running median over this many lines
    slowdown_confirm: int = 25  # lines after the change whose median must show it ...
    slowdown_z: float = 4.0  # ... by this many standard errors of such a median
    slowdown_min_rel: float = 0.10  # smallest change reported (10 %)
    slowdown_drift: float = 0.04  # CUSUM allowance per line, log units (~4 %)
    slowdown_threshold: float = 0.5  # CUSUM alarm level, log units
    slowdown_sigma_drift: float = 2.0  # drift is at least this many baseline sigmas
    slowdown_sigma_threshold: float = 10.0  # threshold is at least this many baseline sigmas
    max_slowdowns: int = 3  # per segment
    job_ranks_sample: int = 64  # job-level step time = median over at most this many ranks

    # --- GPU outliers -------------------------------------------------------------------
    gpu_z_threshold: float = 4.0
    min_gpus: int = 4  # fewer GPUs of one model than this: no comparison
    min_metric_points: int = 3  # samples per series needed in the window

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, bool | tuple):
                continue
            if isinstance(value, int | float) and value < 0:
                raise ValueError(f"stats setting {f.name} must not be negative, got {value!r}")
        positive = ("k", "median_window", "window", "consecutive", "slowdown_baseline")
        for name in positive:
            if getattr(self, name) <= 0:
                raise ValueError(
                    f"stats setting {name} must be positive, got {getattr(self, name)!r}"
                )
        if self.slowdown_filter < 1:
            raise ValueError("stats setting slowdown_filter must be at least 1")
        if self.min_ranks < 2:
            raise ValueError("stats setting min_ranks must be at least 2")
        if self.min_gpus < 2:
            raise ValueError("stats setting min_gpus must be at least 2")
