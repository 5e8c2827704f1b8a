"""Small synthetic runs for the stats tests (no tests here): synchronous ranks printing one line
per step."""

from __future__ import annotations

import numpy as np

from detector.stats import StepSample, StepTable

T0 = 1_796_000_000.0


def run_table(
    *,
    ranks: int = 8,
    steps: int = 300,
    step_s: float = 1.0,
    fwd_s: float = 0.5,
    jitter: float = 0.05,
    pauses: dict[int, float] | None = None,  # step -> seconds of pause after it
    slow_rank: int | None = None,
    slow_from: int = 0,
    slow_factor: float = 1.3,
    job_slow_from: int | None = None,
    job_slow_factor: float = 1.2,
    stop_after: dict[int, int] | None = None,  # rank -> last step it prints
    seed: int = 0,
) -> StepTable:
    rng = np.random.default_rng(seed)
    step_ids = np.arange(1, steps + 1)
    fwd = fwd_s * rng.lognormal(0.0, jitter, (ranks, steps))
    if slow_rank is not None:
        fwd[slow_rank, step_ids >= slow_from] *= slow_factor
    job = rng.lognormal(0.0, jitter / 2, steps) * step_s
    if job_slow_from is not None:
        job = np.where(step_ids >= job_slow_from, job * job_slow_factor, job)
    durations = np.maximum(job, fwd.max(axis=0) + 0.1)
    extra = np.zeros(steps)
    for step, seconds in (pauses or {}).items():
        extra[step] += seconds  # the line of step+1 comes late
    wall = T0 + np.cumsum(durations + extra)
    times = wall[None, :] + rng.uniform(0, 0.003, (ranks, steps))
    keep = np.ones((ranks, steps), dtype=bool)
    for rank, last in (stop_after or {}).items():
        keep[rank, step_ids > last] = False
    rank_ids = np.repeat(np.arange(ranks), steps).reshape(ranks, steps)
    return StepTable(
        ranks=rank_ids[keep].astype(np.int64),
        steps=np.broadcast_to(step_ids, (ranks, steps))[keep].astype(np.int64),
        times=times[keep],
        durations=np.broadcast_to(durations, (ranks, steps))[keep].copy(),
        local_keys=("fwd", "bwd"),
        local=np.stack(
            [fwd[keep], np.broadcast_to(durations, (ranks, steps))[keep] - fwd[keep]], axis=1
        ),
    )


def samples_of(table: StepTable, node_of: dict[int, str] | None = None) -> list[StepSample]:
    """The table as StepSamples in time order (what a live sidecar sees)."""
    order = np.argsort(table.times, kind="stable")
    out = []
    for i in order.tolist():
        rank = int(table.ranks[i])
        out.append(
            StepSample(
                rank=rank,
                node=(node_of or {}).get(rank),
                time=float(table.times[i]),
                step=int(table.steps[i]),
                duration_s=float(table.durations[i]),
                local=tuple((k, float(table.local[i, j])) for j, k in enumerate(table.local_keys)),
                file=f"rank{rank}.log",
                line=int(table.steps[i]),
                text=f"step {int(table.steps[i])}",
                local_rank=rank % 4,
            )
        )
    return out
