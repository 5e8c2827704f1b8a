"""Straggler: a rank persistently slower than its peers in its rank-local timings.

In synchronous data-parallel training every rank prints the same total step time, so the
straggler shows only in timings taken before the collective (forward, data loading, compute).
For each such timing the steps are cut into windows of ``window`` lines; per rank and window:

- the rank's value is its median over the window (jitter and single spikes vanish);
- the *relative* score compares it with the other ranks on the same steps: robust z against
  the median and MAD over ranks (the MAD floored at ``rel_floor`` of the median), and the
  relative excess;
- the *individual* score compares it with the rank's own first ``baseline_windows`` windows.

A rank is flagged once it is beyond all relative thresholds (z, relative excess, and an excess
worth at least ``impact_fraction`` of the job's wall time per step) for ``consecutive`` windows
in a row. The step where it began is then placed more finely than a window: the first step
from which the rank stays above the midpoint between its peers and its streak level.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from detector.types import RULE_STRAGGLER

from .arrays import FloatArray, IntArray, median_last, nanmedian
from .config import StatsConfig
from .series import StepGrid

RULE = RULE_STRAGGLER


@dataclass(frozen=True, slots=True)
class StragglerHit:
    rank: int
    row: int
    key: str  # the local timing, e.g. "fwd"
    start_step: int  # first step of the first window of the streak
    detected_step: int  # last step of the window where the streak reached `consecutive`
    detected_col: int
    detected_time: float
    windows: int  # length of the streak (windows in a row beyond the thresholds)
    value_s: float  # the rank's median over the streak
    peers_s: float  # the peers' median over the streak
    rel: float  # (value - peers) / peers
    z: float  # robust z against the peers (median over the streak)
    z_individual: float | None  # against the rank's own first windows
    baseline_s: float | None  # the rank's own early median
    ongoing: bool  # still beyond the thresholds in the last window
    window_steps: int  # step lines per window it was judged in (fewer in a short log)
    node: str | None = None
    group: int = 0  # judged with the other ranks of its node, slower as a whole: the node's ranks


# what a backward time may hold of the collectives (DDP's gradient all-reduce overlaps it) unless
# the trainer times its communication apart: then the backward is the rank's own computation
_BACKWARD_WORDS = frozenset({"bwd", "backward"})
_COMM_APART = ("allreduce", "all_reduce", "comm", "wait")
MIN_WINDOW = 5  # step lines a window holds at the least (a short log's windows are shorter)
# a log with fewer step lines than MIN_WINDOW x consecutive: single lines are judged, the rank
# beyond the thresholds in this many in a row up to the log's last, and slower than its peers by
# SHORT_REL at least (a line's value is not a window's median: no jitter is smoothed away)
SHORT_STREAK = 5
SHORT_REL = 0.25
# a log shorter still (a paste of three or four timing lines per rank): every line of the rank
# beyond the thresholds, two and a half times its peers' time at the least, and no node judged
# as a whole
TINY_STREAK = 3
TINY_REL = 1.5


def _times_comm_apart(keys: tuple[str, ...]) -> bool:
    """Whether the lines time the collective's wait apart ("allreduce_wait", "comm"; not a data
    wait)."""
    return any(any(word in key.lower() for word in _COMM_APART) and "data" not in key.lower() for key in keys)


def eligible_keys(keys: tuple[str, ...], config: StatsConfig) -> list[int]:
    """Indices of the local timings that are rank-local (do not include a collective): none of
    the collective words in the name, or only a backward's where the same lines time the
    communication apart ("fwd_bwd 8.1 s | allreduce 0.1 s")."""
    apart = _times_comm_apart(keys)
    out = []
    for i, key in enumerate(keys):
        name = key.lower()
        words = {word for word in config.collective_keys if word in name}
        if not words or (apart and words <= _BACKWARD_WORDS):
            out.append(i)
    return out


def window_for(n_cols: int, config: StatsConfig) -> tuple[int, int] | None:
    """Step lines per window and windows in a row a straggler must hold: the configured ones, or
    in a log too short for ``consecutive`` such windows, as many lines as make ``consecutive``
    windows of them (at least :data:`MIN_WINDOW`); in a log shorter still (a run that prints its
    timings every 50 steps), single lines, :data:`SHORT_STREAK` of them in a row; None when even
    those do not fit."""
    if n_cols >= config.window * config.consecutive:
        return config.window, config.consecutive
    win = n_cols // config.consecutive
    if win >= MIN_WINDOW:
        return win, config.consecutive
    if n_cols >= SHORT_STREAK:
        return 1, SHORT_STREAK
    return (1, TINY_STREAK) if n_cols >= TINY_STREAK else None


def _runs_over(beyond: np.ndarray, finite: np.ndarray) -> IntArray:
    """:func:`_runs` where the positions that are not ``finite`` (no value) neither extend nor end
    a run: each keeps the length reached before it."""
    out = np.zeros(beyond.shape, dtype=np.int64)
    cur = np.zeros(beyond.shape[0], dtype=np.int64)
    for j in range(beyond.shape[1]):
        cur = np.where(finite[:, j], np.where(beyond[:, j], cur + 1, 0), cur)
        out[:, j] = cur
    return out


def _runs(beyond: np.ndarray) -> IntArray:
    """Length of the run of True ending at each position, along the last axis."""
    as_int = beyond.astype(np.int64)
    cum = np.cumsum(as_int, axis=-1)
    reset = np.maximum.accumulate(np.where(beyond, 0, cum), axis=-1)
    return np.asarray(cum - reset, dtype=np.int64)


def _timed_step(grid: StepGrid) -> FloatArray | None:
    """Per column, the median over ranks of the sum of a line's timings, where the lines time
    the collective's wait apart ("data 0.02s fwd 0.47s bwd 0.91s opt 0.04s wait_allreduce 1.2s":
    the whole step accounted for); None where they do not."""
    if not grid.local_keys or not _times_comm_apart(grid.local_keys):
        return None
    stacked = np.stack(grid.local)  # (K, R, C)
    held = np.isfinite(stacked).any(axis=0)
    total = np.where(held, np.nansum(stacked, axis=0), np.nan)
    return nanmedian(total, axis=0)


def detect_stragglers(
    grid: StepGrid, wall_per_step: FloatArray, config: StatsConfig
) -> list[StragglerHit]:
    # the excess weighed against the step as its timings account for it, where that is shorter
    # than the wall time between the lines (timings of one step in fifty: the lines' stamps may
    # hold the evaluation, the logging, the checkpoints of the steps between)
    timed = _timed_step(grid)
    if timed is not None and timed.shape == wall_per_step.shape:
        wall_per_step = np.fmin(wall_per_step, timed)
    hits = _detect_all(grid, wall_per_step, config)
    if hits:
        return hits
    # the rank-local timings on fewer lines than the steps (a timing line every 80 steps beside a
    # step line every 20): no window of the columns holds half a window of them, so they are
    # judged on the columns that hold them, the hits placed back on the grid's columns
    keys = eligible_keys(grid.local_keys, config)
    if not keys:
        return []
    held = np.zeros(grid.n_cols, dtype=bool)
    for k in keys:
        held |= np.isfinite(grid.local[k]).any(axis=0)
    cols = np.flatnonzero(held)
    if cols.size == 0 or cols.size > grid.n_cols // 2:
        return []
    sub = dataclasses.replace(
        grid, col_steps=grid.col_steps[cols], col_segments=grid.col_segments[cols], times=grid.times[:, cols],
        durations=grid.durations[:, cols], local=tuple(a[:, cols] for a in grid.local),
        intervals=grid.intervals[:, cols], step_gaps=grid.step_gaps[:, cols])
    wall = wall_per_step[cols] if wall_per_step.size == grid.n_cols else wall_per_step
    return [dataclasses.replace(h, detected_col=int(cols[h.detected_col])) for h in _detect_all(sub, wall, config)]


def _detect_all(grid: StepGrid, wall_per_step: FloatArray, config: StatsConfig) -> list[StragglerHit]:
    shape = window_for(grid.n_cols, config)
    if shape is None:
        return []
    hits = _detect_shaped(grid, wall_per_step, config, *shape)
    if not hits and shape[0] > 1 and grid.n_cols < config.window * config.consecutive:
        # a short log's windows (a few lines each) may put the change in the middle of one: its
        # last lines judged one by one, as a shorter log's are (still slower at the log's end)
        hits = _detect_shaped(grid, wall_per_step, config, 1, SHORT_STREAK)
    if not hits and shape[1] > TINY_STREAK and grid.n_cols < config.window * config.consecutive:
        # the ranks' own lines fewer than the log's (their files end at different steps): each
        # rank's last few lines, 2.5 times its peers' time (a paste of three lines a rank)
        hits = _detect_shaped(grid, wall_per_step, config, 1, TINY_STREAK)
    return hits


def _detect_shaped(
    grid: StepGrid, wall_per_step: FloatArray, config: StatsConfig, win: int, streak: int
) -> list[StragglerHit]:
    best: dict[int, StragglerHit] = {}
    keys = eligible_keys(grid.local_keys, config)
    if grid.n_ranks >= config.min_ranks:
        for k in keys:
            for hit in _detect_key(grid, k, wall_per_step, config, win, streak):
                old = best.get(hit.rank)
                if old is None or (hit.detected_step, -hit.z) < (old.detected_step, -old.z):
                    best[hit.rank] = hit
    if not best and (win > 1 or streak >= SHORT_STREAK):  # no one rank stands out: a whole node (or one of two ranks) may
        medians: dict[int, tuple[int, int, FloatArray]] = {}  # (each timing's, once for every way of grouping)
        for groups, named in _group_sets(grid):
            for k in keys:
                for hit in _detect_group(grid, k, groups, wall_per_step, config, win, streak, named=named,
                                         medians=medians):
                    old = best.get(hit.rank)
                    if old is None or (hit.detected_step, -hit.z) < (old.detected_step, -old.z):
                        best[hit.rank] = hit
            if best:
                break
    return sorted(best.values(), key=lambda h: (h.detected_step, -h.z))


# a whole node slower than every other node (or one of two ranks slower than the other): its
# ranks' medians all at least this much above the other nodes' (the per-rank statistics cannot
# tell it: half of the ranks, or one of two, is no outlier among them)
GROUP_REL = 0.25
# and the others' wait for the collective longer by at least this share of the group's excess
# (they wait for it), where the lines time the wait apart; without such a timing, at least two
# other nodes that agree with each other
GROUP_WAIT_SHARE = 0.5


# where no rank's node is known: the blocks of consecutive ranks a node of this many GPUs runs
# (torchrun, srun and mpirun place a node's ranks together), tried in this order
BLOCK_SIZES = (8, 4)


def _group_sets(grid: StepGrid) -> list[tuple[list[IntArray], bool]]:
    """The ways to split the ranks into nodes to judge, each with whether its groups are named
    nodes: the nodes the logs name, else blocks of consecutive ranks of a node's size where no
    rank's node is known (the local ranks' count where the lines give it, else
    :data:`BLOCK_SIZES`; the finding then names the ranks, not a node)."""
    groups = _groups(grid)
    if groups is not None:
        return [(groups, True)]
    n = grid.n_ranks
    if n < 4 or any(grid.nodes) or not bool(np.array_equal(grid.ranks, np.arange(n))):
        return []
    locals_known = {lr for lr in grid.local_ranks if lr is not None}
    sizes: tuple[int, ...] = BLOCK_SIZES
    if locals_known:
        size = max(locals_known) + 1
        fits = all(lr is None or lr == r % size for r, lr in enumerate(grid.local_ranks))
        sizes = (size,) if fits else ()
    return [([np.arange(i, i + size, dtype=np.int64) for i in range(0, n, size)], False)
            for size in sizes if size >= 2 and n % size == 0 and n // size >= 2]


def _groups(grid: StepGrid) -> list[IntArray] | None:
    """The rows of each node where there are two nodes or more (the ranks of no known node
    together: a Ray head's workers print no address); each rank alone where there are two
    ranks; else None."""
    nodes = grid.nodes
    if grid.n_ranks >= 2 and any(nodes) and len(set(nodes)) >= 2:
        rows: dict[str | None, list[int]] = {}
        for i, node in enumerate(nodes):
            rows.setdefault(node, []).append(i)
        return [np.asarray(v, dtype=np.int64) for v in rows.values()]
    if grid.n_ranks == 2:
        return [np.asarray([0], dtype=np.int64), np.asarray([1], dtype=np.int64)]
    return None


def _wait_key(grid: StepGrid) -> int | None:
    for i, key in enumerate(grid.local_keys):
        name = key.lower()
        if any(word in name for word in _COMM_APART) and "data" not in name:
            return i
    return None


def _window_medians(grid: StepGrid, k: int, win: int) -> tuple[int, int, FloatArray]:
    """The first column of the windows, their number, and each rank's median of timing ``k`` in
    each window (R, W); a rank needs half a window of values for its median to count."""
    n_win = grid.n_cols // win
    start = grid.n_cols - n_win * win
    values = grid.local[k][:, start:]
    # float32 halves the sort's work; window medians of timings need no more precision
    blocks = values.astype(np.float32).reshape(grid.n_ranks, n_win, win)
    with np.errstate(invalid="ignore"):
        rank_med = median_last(blocks).astype(np.float64)
    if np.isnan(values).any():
        enough = np.count_nonzero(~np.isnan(blocks), axis=-1) >= max(1, win // 2)
        rank_med = np.where(enough, rank_med, np.nan)
    return start, n_win, rank_med


def _detect_group(
    grid: StepGrid, k: int, groups: list[IntArray], job_step: FloatArray, config: StatsConfig,
    win: int, streak: int, *, named: bool = True, medians: dict[int, tuple[int, int, FloatArray]] | None = None,
) -> list[StragglerHit]:
    if not np.isfinite(grid.local[k]).any():
        return []
    memo = medians if medians is not None else {}

    def window_medians(key: int) -> tuple[int, int, FloatArray]:
        if key not in memo:
            memo[key] = _window_medians(grid, key, win)
        return memo[key]

    start, n_win, rank_med = window_medians(k)
    wait_k = _wait_key(grid)
    if wait_k is None and len(groups) < 3:
        return []
    waits = window_medians(wait_k)[2] if wait_k is not None else None
    with np.errstate(invalid="ignore"):
        job = (median_last(job_step[start:].reshape(n_win, win)) if job_step.size else np.full(n_win, np.nan))
    with np.errstate(invalid="ignore", divide="ignore"):
        # each node's median per window, once: (G, W); the nodes slower than all others in some
        # window are the only candidates (one per window at most), so the work stays linear in
        # the nodes (a job of 12,500 nodes has no time for every node against every other)
        size = int(groups[0].size)
        if not named and size * len(groups) == grid.n_ranks:
            # blocks of consecutive rows of one size: one reshape, no loop over 25,000 blocks
            group_meds = median_last(rank_med.reshape(len(groups), size, n_win).transpose(0, 2, 1))
        else:
            group_meds = np.vstack([median_last(rank_med[r].T) for r in groups])
        filled = np.where(np.isfinite(group_meds), group_meds, -np.inf)
        top = np.argmax(filled, axis=0)
        floor = np.min(np.where(np.isfinite(group_meds), group_meds, np.inf), axis=0)
    hits: list[StragglerHit] = []
    for g in sorted(set(top.tolist())):
        rows = groups[g]
        if 2 * rows.size > grid.n_ranks or (named and rows.size > 1 and grid.nodes[int(rows[0])] is None):
            continue  # (a majority is the job's own pace; ranks of no known node are no node to name)
        others = np.concatenate([r for i, r in enumerate(groups) if i != g])
        with np.errstate(invalid="ignore", divide="ignore"):
            rest = np.delete(filled, g, axis=0)
            om = np.max(rest, axis=0)  # the slowest other node
            om = np.where(np.isfinite(om), om, np.nan)
            agree = (om - floor) <= config.rel_threshold * floor  # (the fastest node is another: g is the slowest)
            low = np.min(rank_med[rows], axis=0)
            value = median_last(rank_med[rows].T)
            excess = value - om
            beyond = (top == g) & (low >= (1.0 + GROUP_REL) * om) & agree & (om > 0)
            beyond &= ~(excess < config.impact_fraction * np.where(np.isfinite(job), job, 0.0))
            if waits is not None:
                wait_gap = median_last(waits[others].T) - median_last(waits[rows].T)
                beyond &= wait_gap >= GROUP_WAIT_SHARE * excess
        beyond = np.nan_to_num(beyond, nan=0).astype(bool)
        runs = _runs(beyond[None, :])[0]
        reached = bool((runs >= streak).any()) if win > 1 else bool(runs[-1] >= streak)
        if not reached:
            continue
        detect = int(np.argmax(runs >= streak))
        first, last = detect - streak + 1, detect
        while last + 1 < n_win and beyond[last + 1]:
            last += 1
        span = slice(first, last + 1)
        peer = float(np.median(om[span]))
        spread = rank_med[others][:, span]
        mad = 1.4826 * float(np.nanmedian(np.abs(spread - np.nanmedian(spread)))) if np.isfinite(spread).any() else 0.0
        scale = max(mad, config.rel_floor * abs(peer), config.abs_floor_s)
        detected_col = start + (detect + 1) * win - 1
        col_times = grid.times[:, detected_col]
        finite_times = col_times[np.isfinite(col_times)]
        for row in rows.tolist():
            mine = float(np.nanmedian(rank_med[row, span]))
            hits.append(StragglerHit(
                rank=int(grid.ranks[row]), row=row, key=grid.local_keys[k],
                start_step=int(grid.col_steps[start + first * win]),
                detected_step=int(grid.col_steps[detected_col]), detected_col=detected_col,
                detected_time=float(np.median(finite_times)) if finite_times.size else float("nan"),
                windows=last - first + 1, value_s=mine, peers_s=peer,
                rel=(mine - peer) / peer if peer > 0 else float("inf"), z=(mine - peer) / scale,
                z_individual=None, baseline_s=None, ongoing=bool(beyond[-1]), window_steps=win,
                node=grid.nodes[row], group=int(rows.size) if rows.size > 1 else 0,
            ))
    return hits


def _onset(
    values: FloatArray, row: int, first_col: int, win: int, level: float, peer: float
) -> int:
    """The first column, from a window before the streak to the end of its first window, from
    which the rank stays above the midpoint between its peers and its streak level in 80 % of
    the columns."""
    lo = max(0, first_col - win)
    hi = min(values.shape[1], first_col + win)
    peers = median_last(values[:, lo:hi].T)
    mid = (level + peer) / 2.0
    above = values[row, lo:hi] > np.maximum(mid, (peers + level) / 2.0)
    for offset in range(hi - lo):
        tail = above[offset:]
        if tail.size and tail[0] and tail.mean() >= 0.8:
            return lo + offset
    return first_col


def _still_slow_among_few(rank_med: FloatArray, counts: IntArray, peers: FloatArray, min_ranks: int,
                          rel: float) -> np.ndarray:
    """(R, W): the values in the windows fewer than ``min_ranks`` ranks have a value in (too few to
    judge anyone by) that are still ``rel`` over the others' there (their median; where the rank
    is alone, the peers' of the last window judged): such a window passes the rank by; a value no
    slower than that ends its streak (a rank that recovered while the others' logs had ended)."""
    out = np.zeros(rank_med.shape, dtype=bool)
    judged = counts >= min_ranks
    last_peer = np.nan
    for col in range(rank_med.shape[1]):
        if judged[col]:
            last_peer = float(peers[col])
            continue
        values = rank_med[:, col]
        rows = np.flatnonzero(np.isfinite(values))
        for row in rows.tolist():
            others = values[rows[rows != row]]
            ref = float(np.median(others)) if others.size else last_peer
            out[row, col] = not np.isfinite(ref) or bool(values[row] >= (1.0 + rel) * ref)
    return out


def _detect_key(
    grid: StepGrid, k: int, job_step: FloatArray, config: StatsConfig, win: int, streak: int
) -> list[StragglerHit]:
    if not np.isfinite(grid.local[k]).any():
        return []
    start, n_win, rank_med = _window_medians(grid, k, win)  # (R, W)
    by_window = rank_med.T  # (W, R)
    peers = median_last(by_window)  # (W,)
    mad = 1.4826 * median_last(np.abs(by_window - peers[:, None]))
    counts = np.count_nonzero(~np.isnan(by_window), axis=-1)
    scale = np.maximum(
        np.maximum(np.nan_to_num(mad), config.rel_floor * np.abs(peers)), config.abs_floor_s
    )
    with np.errstate(invalid="ignore", divide="ignore"):
        excess = rank_med - peers[None, :]
        z = excess / scale[None, :]
        rel = excess / peers[None, :]
        job = (
            median_last(job_step[start:].reshape(n_win, win))
            if job_step.size
            else np.full(n_win, np.nan)
        )
        impact_ok = ~(
            excess < config.impact_fraction * np.where(np.isfinite(job), job, 0.0)[None, :]
        )
        rel_needed = (config.rel_threshold if win > 1 else max(config.rel_threshold,
                                                                SHORT_REL if streak >= SHORT_STREAK else TINY_REL))
        beyond = (
            (z >= config.z_threshold)
            & (rel >= rel_needed)
            & impact_ok
            & (counts >= config.min_ranks)[None, :]
        )
    # (single lines: a rank's lines only count, the steps it printed no line for pass it by, as
    # where the ranks' files end at different steps; so do the steps too few ranks printed a line
    # for to judge anyone by, where the rank's line is still well over the few others' there: a
    # line no slower than theirs ends its streak, one alone says nothing)
    finite = np.isfinite(rank_med) & ~_still_slow_among_few(rank_med, counts, peers, config.min_ranks, rel_needed)
    runs = _runs(beyond) if win > 1 else _runs_over(beyond, finite)
    # (single lines: still slower at the log's end; a slow start is a warm-up, not a straggler)
    reached = (runs >= streak).any(axis=1) if win > 1 else runs[:, -1] >= streak
    flagged = np.flatnonzero(reached)
    if flagged.size == 0:
        return []
    b = min(config.baseline_windows, n_win)
    base = median_last(rank_med[:, :b])
    base_mad = 1.4826 * median_last(np.abs(rank_med[:, :b] - base[:, None]))
    base_scale = np.maximum(
        np.maximum(np.nan_to_num(base_mad), config.rel_floor * np.abs(base)), config.abs_floor_s
    )
    hits = []
    for row in flagged.tolist():
        detect = int(np.argmax(runs[row] >= streak))
        if win > 1:
            first = detect - streak + 1
            last = detect
            while last + 1 < n_win and beyond[row, last + 1]:
                last += 1
            held = last - first + 1
        else:  # the streak's lines are the rank's own: columns it printed nothing in are passed by
            own = np.flatnonzero(finite[row])
            at = int(np.searchsorted(own, detect))
            first = int(own[at - streak + 1])
            end = at
            while end + 1 < own.size and beyond[row, own[end + 1]]:
                end += 1
            last = int(own[end])
            held = end - (at - streak + 1) + 1
        span = slice(first, last + 1)
        value = float(np.nanmedian(rank_med[row, span]))
        peer = float(np.nanmedian(peers[span]))
        z_ind = None
        baseline = None
        if first >= b and np.isfinite(base[row]):  # the own history predates the streak
            baseline = float(base[row])
            z_ind = float((value - baseline) / base_scale[row])
        detected_col = start + (detect + 1) * win - 1
        col_times = grid.times[:, detected_col]
        finite_times = col_times[np.isfinite(col_times)]
        hits.append(
            StragglerHit(
                rank=int(grid.ranks[row]),
                row=row,
                key=grid.local_keys[k],
                start_step=int(
                    grid.col_steps[
                        _onset(grid.local[k], row, start + first * win, win, value, peer)
                    ]
                ),
                detected_step=int(grid.col_steps[detected_col]),
                detected_col=detected_col,
                detected_time=float(np.median(finite_times)) if finite_times.size else float("nan"),
                windows=held,
                value_s=value,
                peers_s=peer,
                rel=(value - peer) / peer if peer > 0 else float("inf"),
                z=float(np.nanmedian(z[row, span])),
                z_individual=z_ind,
                baseline_s=baseline,
                ongoing=bool(beyond[row, -1]) if win > 1 else bool(beyond[row, np.flatnonzero(finite[row])[-1]]),
                window_steps=win,
                node=grid.nodes[row],
            )
        )
    return hits
