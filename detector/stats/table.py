"""Step samples column by column (:class:`StepTable`): one row per step line, NaN where a line
did not give a value; the input of :func:`detector.stats.series.build_grid`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from .arrays import FloatArray, IntArray
from .model import StepSample


@dataclass(frozen=True, slots=True, eq=False)
class StepTable:
    """Step samples, column by column. ``local`` has one column per name in ``local_keys``;
    NaN marks a value a line did not give. ``totals`` is -1 where a line shows no total."""

    ranks: IntArray
    steps: IntArray
    times: FloatArray
    durations: FloatArray
    local_keys: tuple[str, ...] = ()
    local: FloatArray = field(default_factory=lambda: np.empty((0, 0)))
    totals: IntArray | None = None
    nodes: tuple[tuple[int, str], ...] = ()  # rank -> node, where known
    local_ranks: tuple[tuple[int, int], ...] = ()  # rank -> local rank, where known

    def __len__(self) -> int:
        return int(self.ranks.shape[0])


def table_from_samples(samples: Sequence[StepSample]) -> StepTable:
    n = len(samples)
    ranks = np.empty(n, dtype=np.int64)
    steps = np.empty(n, dtype=np.int64)
    times = np.empty(n, dtype=np.float64)
    durations = np.full(n, np.nan)
    totals = np.full(n, -1, dtype=np.int64)
    keys: dict[str, int] = {}
    rows: list[list[int]] = []  # per key: sample indices ...
    values: list[list[float]] = []  # ... and their values
    nodes: dict[int, str] = {}
    local_ranks: dict[int, int] = {}
    for i, sample in enumerate(samples):
        ranks[i] = sample.rank
        steps[i] = sample.step
        times[i] = sample.time
        if sample.duration_s is not None:
            durations[i] = sample.duration_s
        if sample.total is not None:
            totals[i] = sample.total
        for key, value in sample.local:
            k = keys.setdefault(key, len(keys))
            if k == len(rows):
                rows.append([])
                values.append([])
            rows[k].append(i)
            values[k].append(value)
        if sample.node is not None:
            nodes.setdefault(sample.rank, sample.node)
        if sample.local_rank is not None:
            local_ranks.setdefault(sample.rank, sample.local_rank)
    local = np.full((n, len(keys)), np.nan)
    for k in range(len(keys)):
        local[np.array(rows[k], dtype=np.int64), k] = np.array(values[k], dtype=np.float64)
    return StepTable(
        ranks,
        steps,
        times,
        durations,
        tuple(keys),
        local,
        totals,
        tuple(sorted(nodes.items())),
        tuple(sorted(local_ranks.items())),
    )
