"""Per-rank step series as numpy arrays: the ranks x steps grid and the job-level series.

:func:`build_grid` aligns the samples of a :class:`~detector.stats.table.StepTable` into a
ranks x steps grid that survives what real logs do:

- missing lines (a rank that skipped or lost a line has a NaN cell; intervals span the gap and
  are divided by the step difference where a per-step figure is needed);
- restarts (the step index going back starts a new *segment*; segments are numbered from the
  end of the logs, so ranks whose tail windows begin at different places still line up);
- progress bars (several updates of the same step keep the first time; an evaluation bar,
  whose total differs from the rank's usual one, is activity but not a step).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .arrays import BoolArray, FloatArray, IntArray, nanmedian
from .table import StepTable


@dataclass(frozen=True, slots=True, eq=False)
class StepGrid:
    """Samples aligned on (segment, step) columns; rows are ranks in ascending order.

    ``times`` is when a rank first showed a step; ``intervals`` the wall time since the rank's
    previous line in the same segment (NaN at a segment's first line); ``step_gaps`` the step
    difference over that interval. ``last_time``/``last_col`` describe each rank's last line.
    """

    ranks: IntArray  # (R,)
    col_steps: IntArray  # (S,)
    col_segments: IntArray  # (S,) 0 = the oldest segment seen
    times: FloatArray  # (R, S)
    durations: FloatArray  # (R, S)
    local_keys: tuple[str, ...]
    local: tuple[FloatArray, ...]  # one (R, S) array per key
    intervals: FloatArray  # (R, S)
    step_gaps: FloatArray  # (R, S)
    last_time: FloatArray  # (R,) time of the rank's last line, evaluation bars included
    last_col: IntArray  # (R,) column of the rank's last step line (-1: none)
    nodes: tuple[str | None, ...]  # (R,)
    local_ranks: tuple[int | None, ...]  # (R,)
    # where each cell came from, to quote evidence: the sorted sample order (None: the table's
    # own) and each sorted sample's column (None: dense, the column is the position in the row)
    order: IntArray | None
    row_starts: IntArray
    sample_cols: IntArray | None

    @property
    def n_ranks(self) -> int:
        return int(self.ranks.shape[0])

    @property
    def n_cols(self) -> int:
        return int(self.col_steps.shape[0])

    def sample_index(self, row: int, col: int) -> int | None:
        """Index into the table (and the caller's sample list) of the cell's first sample."""
        start, end = int(self.row_starts[row]), int(self.row_starts[row + 1])
        if self.sample_cols is None:
            pos = start + col
            if pos >= end:
                return None
        else:
            pos = start + int(np.searchsorted(self.sample_cols[start:end], col))
            if pos >= end or int(self.sample_cols[pos]) != col:
                return None
        return pos if self.order is None else int(self.order[pos])

    def row_of(self, rank: int) -> int | None:
        pos = int(np.searchsorted(self.ranks, rank))
        if pos < self.n_ranks and int(self.ranks[pos]) == rank:
            return pos
        return None


def _sorted(table: StepTable) -> tuple[IntArray, bool]:
    r, t = table.ranks, table.times
    if len(r) < 2:
        return np.empty(0, dtype=np.int64), True
    same = r[1:] == r[:-1]
    if bool(np.all(r[1:] >= r[:-1])) and bool(np.all(~same | (t[1:] >= t[:-1]))):
        return np.empty(0, dtype=np.int64), True
    return np.lexsort((t, r)).astype(np.int64), False


def _eval_bar_rows(ranks: IntArray, totals: IntArray) -> BoolArray:
    """Rows whose progress-bar total is not their rank's most common one."""
    has = totals >= 0
    if not bool(has.any()):
        return np.zeros(len(ranks), dtype=np.bool_)
    pairs, counts = np.unique(np.stack([ranks[has], totals[has]]), axis=1, return_counts=True)
    modal: dict[int, tuple[int, int]] = {}
    for (rank, total), count in zip(pairs.T.tolist(), counts.tolist(), strict=True):
        if rank not in modal or count > modal[rank][1]:
            modal[rank] = (total, count)
    usual = np.array([modal.get(int(r), (-1, 0))[0] for r in ranks[has]], dtype=np.int64)
    out = np.zeros(len(ranks), dtype=np.bool_)
    out[np.flatnonzero(has)[totals[has] != usual]] = True
    return out


def empty_grid() -> StepGrid:
    e2 = np.empty((0, 0))
    ei = np.empty(0, dtype=np.int64)
    return StepGrid(
        ei,
        ei,
        ei,
        e2,
        e2,
        (),
        (),
        e2,
        e2,
        np.empty(0),
        ei,
        (),
        (),
        None,
        np.zeros(1, dtype=np.int64),
        None,
    )


def build_grid(table: StepTable) -> StepGrid:
    n = len(table)
    if n == 0:
        return empty_grid()
    order, identity = _sorted(table)
    ranks_all = table.ranks if identity else table.ranks[order]
    times_all = table.times if identity else table.times[order]
    rank_change = np.flatnonzero(ranks_all[1:] != ranks_all[:-1]) + 1
    starts_all = np.r_[0, rank_change]
    uniq_ranks = ranks_all[starts_all]
    last_time = np.maximum.reduceat(times_all, starts_all)

    keep: BoolArray | None = None
    if table.totals is not None:
        evals = _eval_bar_rows(ranks_all, table.totals if identity else table.totals[order])
        if bool(evals.any()):
            keep = ~evals
    if keep is None and identity:
        fast = _dense_grid(table, uniq_ranks, last_time)
        if fast is not None:
            return fast
    if keep is not None:
        order = (np.arange(n, dtype=np.int64) if identity else order)[keep]
        identity = False
    return _general_grid(table, order, identity, uniq_ranks, last_time)


def _dense_grid(table: StepTable, uniq_ranks: IntArray, last_time: FloatArray) -> StepGrid | None:
    """Every rank printed the same increasing steps, in order (generated and healthy runs):
    the grid is a reshape of the table, no copies."""
    n, n_rows = len(table), len(uniq_ranks)
    if n % n_rows:
        return None
    n_cols = n // n_rows
    steps = table.steps.reshape(n_rows, n_cols)
    first = steps[0]
    if n_cols > 1 and not bool(np.all(first[1:] > first[:-1])):
        return None
    if not bool(np.all(table.ranks.reshape(n_rows, n_cols)[:, 0] == uniq_ranks)):
        return None  # rank blocks of unequal sizes
    if not bool((steps == first).all()):
        return None
    times = table.times.reshape(n_rows, n_cols)
    col_seg = np.zeros(n_cols, dtype=np.int64)
    intervals, gaps = _intervals(times, first.astype(np.int64), col_seg, None)
    node_map = dict(table.nodes)
    lr_map = dict(table.local_ranks)
    local = tuple(table.local[:, k].reshape(n_rows, n_cols) for k in range(len(table.local_keys)))
    return StepGrid(
        ranks=uniq_ranks.astype(np.int64),
        col_steps=first.astype(np.int64),
        col_segments=col_seg,
        times=times,
        durations=table.durations.reshape(n_rows, n_cols),
        local_keys=table.local_keys,
        local=local,
        intervals=intervals,
        step_gaps=gaps,
        last_time=last_time.astype(np.float64),
        last_col=np.full(n_rows, n_cols - 1, dtype=np.int64),
        nodes=tuple(node_map.get(int(r)) for r in uniq_ranks),
        local_ranks=tuple(lr_map.get(int(r)) for r in uniq_ranks),
        order=None,
        row_starts=np.arange(0, n + 1, n_cols, dtype=np.int64),
        sample_cols=None,
    )


def _general_grid(
    table: StepTable, order: IntArray, identity: bool, uniq_ranks: IntArray, last_time: FloatArray
) -> StepGrid:
    def take(values: NDArray[Any]) -> NDArray[Any]:
        return values if identity else values[order]

    ranks = take(table.ranks)
    steps = take(table.steps)
    times = take(table.times)
    m = len(ranks)
    n_rows = len(uniq_ranks)
    left = np.searchsorted(ranks, uniq_ranks, side="left")
    counts = (np.searchsorted(ranks, uniq_ranks, side="right") - left).astype(np.int64)
    row_starts = np.r_[0, np.cumsum(counts)].astype(np.int64)
    row = np.repeat(np.arange(n_rows, dtype=np.int64), counts)

    # segments: a new one where the step index goes back within a rank
    same = np.r_[False, ranks[1:] == ranks[:-1]]
    back = np.r_[False, steps[1:] < steps[:-1]] & same
    if bool(back.any()):
        cum = np.cumsum(back)
        first_rows = np.minimum(row_starts[:-1], m - 1)
        within = cum - cum[first_rows][row]
        last_seg = within[np.maximum(row_starts[1:] - 1, 0)]
        from_end = last_seg[row] - within
        seg = int(from_end.max()) - from_end
        n_seg = int(seg.max()) + 1
        lo = np.array([steps[seg == g].min() for g in range(n_seg)], dtype=np.int64)
        hi = np.array([steps[seg == g].max() for g in range(n_seg)], dtype=np.int64)
        seg_lo = lo[seg]
        seg_off_base = seg
    else:
        seg = np.zeros(m, dtype=np.int64)
        n_seg = 1
        lo = np.array([steps.min()], dtype=np.int64)
        hi = np.array([steps.max()], dtype=np.int64)
        seg_lo = lo[0]
        seg_off_base = None
    spans = hi - lo + 1
    offsets = np.r_[0, np.cumsum(spans)[:-1]].astype(np.int64)
    total_span = int(spans.sum())
    if total_span <= 4 * m + 4096:
        key = (steps - seg_lo) if seg_off_base is None else offsets[seg_off_base] + (steps - seg_lo)
        present = np.zeros(total_span, dtype=np.bool_)
        present[key] = True
        col_of_key = np.cumsum(present) - 1
        col = col_of_key[key].astype(np.int64)
        keys_present = np.flatnonzero(present)
        col_seg = (np.searchsorted(offsets, keys_present, side="right") - 1).astype(np.int64)
        col_steps = (keys_present - offsets[col_seg] + lo[col_seg]).astype(np.int64)
    else:
        pairs, inverse = np.unique(np.stack([seg, steps]), axis=1, return_inverse=True)
        col = inverse.reshape(-1).astype(np.int64)
        col_seg = pairs[0].astype(np.int64)
        col_steps = pairs[1].astype(np.int64)
    n_cols = len(col_steps)

    grid_times = np.full((n_rows, n_cols), np.nan)
    first = np.r_[True, (col[1:] != col[:-1]) | ~same[1:]]
    grid_times[row[first], col[first]] = times[first]
    grid_dur = _fill(row, col, take(table.durations), n_rows, n_cols)
    grid_local = tuple(
        _fill(row, col, take(table.local[:, k]), n_rows, n_cols)
        for k in range(len(table.local_keys))
    )
    intervals, gaps = _intervals(grid_times, col_steps, col_seg, ~np.isnan(grid_times))
    last_col = np.full(n_rows, -1, dtype=np.int64)
    has_rows = counts > 0
    last_col[has_rows] = col[row_starts[1:][has_rows] - 1]
    node_map = dict(table.nodes)
    lr_map = dict(table.local_ranks)
    return StepGrid(
        ranks=uniq_ranks.astype(np.int64),
        col_steps=col_steps,
        col_segments=col_seg,
        times=grid_times,
        durations=grid_dur,
        local_keys=table.local_keys,
        local=grid_local,
        intervals=intervals,
        step_gaps=gaps,
        last_time=last_time.astype(np.float64),
        last_col=last_col,
        nodes=tuple(node_map.get(int(r)) for r in uniq_ranks),
        local_ranks=tuple(lr_map.get(int(r)) for r in uniq_ranks),
        order=None if identity else order,
        row_starts=row_starts,
        sample_cols=col,
    )


def _fill(row: IntArray, col: IntArray, values: FloatArray, n_rows: int, n_cols: int) -> FloatArray:
    grid = np.full((n_rows, n_cols), np.nan)
    ok = ~np.isnan(values)
    grid[row[ok], col[ok]] = values[ok]
    return grid


def _intervals(
    times: FloatArray, col_steps: IntArray, col_seg: IntArray, present: BoolArray | None
) -> tuple[FloatArray, FloatArray]:
    n_rows, n_cols = times.shape
    if n_cols == 0:
        return np.empty((n_rows, 0)), np.empty((n_rows, 0))
    steps = col_steps.astype(np.float64)
    new_seg = np.r_[True, col_seg[1:] != col_seg[:-1]]
    if present is None:
        intervals = np.empty_like(times)
        intervals[:, 0] = np.nan
        np.subtract(times[:, 1:], times[:, :-1], out=intervals[:, 1:])
        gap_row = np.r_[np.nan, np.diff(steps)]
        gap_row[new_seg] = np.nan
        if bool(new_seg[1:].any()):
            intervals[:, new_seg] = np.nan
        return intervals, np.broadcast_to(gap_row, times.shape)
    idx = np.where(present, np.arange(n_cols), -1)
    filled = np.maximum.accumulate(idx, axis=1)
    prev = np.empty_like(filled)
    prev[:, 0] = -1
    prev[:, 1:] = filled[:, :-1]
    valid = present & (prev >= 0)
    safe = np.maximum(prev, 0)
    prev_times = np.take_along_axis(times, safe, axis=1)
    intervals = np.where(valid, times - prev_times, np.nan)
    gaps = np.where(valid, steps[None, :] - steps[safe], np.nan)
    same_seg = col_seg[None, :] == col_seg[safe]
    intervals = np.where(same_seg, intervals, np.nan)
    gaps = np.where(same_seg, gaps, np.nan)
    return intervals, gaps


def job_rows(n_ranks: int, limit: int) -> IntArray:
    """At most ``limit`` rows spread over the ranks: the job-level series are medians over these."""
    if n_ranks <= limit:
        return np.arange(n_ranks, dtype=np.int64)
    return np.unique(np.linspace(0, n_ranks - 1, limit).round().astype(np.int64))


def job_wall_per_step(grid: StepGrid, limit: int) -> FloatArray:
    """Per column, the median over ranks of the wall time per step since the previous line."""
    rows = job_rows(grid.n_ranks, limit)
    if grid.n_cols == 0:
        return np.empty(0)
    gaps = grid.step_gaps[rows]
    per_step = grid.intervals[rows] / np.where(gaps > 0, gaps, np.nan)
    return nanmedian(per_step, axis=0)


def job_step_seconds(grid: StepGrid, limit: int) -> FloatArray:
    """Per column, the job's step time: the median over ranks of the printed step duration,
    or of the wall interval per step where the lines print none."""
    rows = job_rows(grid.n_ranks, limit)
    dur = grid.durations[rows]
    per_step = grid.intervals[rows] / np.where(
        grid.step_gaps[rows] > 0, grid.step_gaps[rows], np.nan
    )
    printed = bool(dur.size) and float(np.isfinite(dur).mean()) >= 0.5
    values = np.where(np.isfinite(dur), dur, per_step) if printed else per_step
    return nanmedian(values, axis=0) if values.size else np.empty(0)
