"""The stall detector for replay: the rule of :mod:`stall`, vectorised over a StepGrid.

Every silence that exceeded its allowance is found, not only the last: a silence that later
resumed is what the live sidecar would have reported at the time (a *recovered* stall).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from .arrays import BoolArray, FloatArray, IntArray, nanmedian
from .config import StatsConfig
from .model import LogNote, NoteKind
from .series import StepGrid, job_rows
from .stall import StallEvent, evaluate, finish_split
from .stall_allowance import (
    MAX_PAUSES,
    Allowance,
    Pause,
    allowance,
    median_interval,
    notes_between,
)


def _recent(intervals: FloatArray, end_col: int, window: int) -> FloatArray:
    """Each row's last ``window`` finite intervals in columns before ``end_col``."""
    n_rows = intervals.shape[0]
    block = intervals[:, max(0, end_col - 4 * window) : end_col]
    out = np.full((n_rows, window), np.nan)
    if block.size == 0:
        return out
    finite = np.isfinite(block)
    if block.shape[1] >= window and bool(finite[:, -window:].all()):
        return block[:, -window:]
    for i in range(n_rows):
        values = block[i][finite[i]][-window:]
        out[i, : len(values)] = values
    return out


def _job_series(grid: StepGrid, config: StatsConfig) -> tuple[FloatArray, FloatArray]:
    """Job-level interval per column and its lagged rolling median."""
    rows = job_rows(grid.n_ranks, config.job_ranks_sample)
    job = nanmedian(grid.intervals[rows], axis=0) if grid.n_cols else np.empty(0)
    finite = np.flatnonzero(np.isfinite(job))
    rolling = np.full(grid.n_cols, np.nan)
    if finite.size:
        values = job[finite]
        w = config.median_window
        padded = np.r_[np.full(w, np.nan), values]
        windows = np.lib.stride_tricks.sliding_window_view(padded, w)[:-1]
        counts = np.isfinite(windows).sum(axis=1)
        med = nanmedian(windows, axis=1)
        med[counts < config.min_intervals] = np.nan
        rolling[finite] = med
    return job, rolling


def detect_stalls(
    grid: StepGrid,
    notes: Sequence[LogNote],
    *,
    end_time: float | None,
    config: StatsConfig,
) -> list[StallEvent]:
    """Silences longer than their allowance: those that resumed (when the config reports them)
    and the one still going on at ``end_time``."""
    if grid.n_ranks == 0 or grid.n_cols < 2:
        return []
    job, rolling = _job_series(grid, config)
    long_cols = np.flatnonzero(np.isfinite(rolling) & (job > config.long_factor * rolling))
    pauses_all = [Pause(int(grid.col_steps[c]), float(job[c])) for c in long_cols]
    pause_times = np.sort(np.array([n.time for n in notes if n.kind is NoteKind.PAUSE]))
    gaps = grid.step_gaps
    events: list[StallEvent] = []
    if config.report_recovered_stalls:
        base = np.maximum(config.floor_s, config.k * rolling)
        worst = np.fmax.reduce(grid.intervals, axis=0)  # NaN-ignoring maximum over ranks
        with np.errstate(invalid="ignore"):
            candidates = np.flatnonzero(np.isfinite(rolling) & (worst > 0.8 * base))
        for c in candidates:
            event = _history_event(
                grid, int(c), rolling, pauses_all, long_cols, pause_times, gaps, config
            )
            if event is not None:
                events.append(event)
    if end_time is not None:
        event = _end_event(grid, end_time, pauses_all, pause_times, notes, config)
        if event is not None:
            events.append(event)
    return events


def _increment(gaps: FloatArray, col: int) -> int:
    block = gaps[:, max(0, col - 10) : col]
    finite = block[np.isfinite(block)]
    return int(np.median(finite)) if finite.size else 1


def _history_event(
    grid: StepGrid,
    col: int,
    rolling: FloatArray,
    pauses_all: list[Pause],
    long_cols: IntArray,
    pause_times: FloatArray,
    gaps: FloatArray,
    config: StatsConfig,
) -> StallEvent | None:
    sample = grid.intervals[job_rows(grid.n_ranks, config.job_ranks_sample)]
    median = median_interval(_recent(sample, col, config.median_window))
    if median is None:
        return None
    pauses = [p for p, c in zip(pauses_all, long_cols.tolist(), strict=True) if c < col][
        -MAX_PAUSES:
    ]
    intervals = grid.intervals[:, col]
    ends = grid.times[:, col]
    starts = ends - intervals
    ok = np.isfinite(intervals)
    if not ok.any():
        return None
    prev_steps = grid.col_steps[col] - np.where(np.isfinite(gaps[:, col]), gaps[:, col], 0).astype(
        np.int64
    )
    notes = notes_between(pause_times, starts, ends)
    increment = _increment(gaps, col)
    stalled = np.zeros(grid.n_ranks, dtype=np.bool_)
    chosen: Allowance | None = None
    groups = np.unique(np.stack([prev_steps[ok], notes[ok].astype(np.int64)]), axis=1)
    for prev_step, note in groups.T.tolist():
        a = allowance(
            median_s=median,
            last_step=int(prev_step),
            step_increment=increment,
            pauses=pauses,
            pause_note=bool(note),
            config=config,
        )
        members = ok & (prev_steps == prev_step) & (notes == bool(note)) & (intervals > a.seconds)
        if members.any():
            stalled |= members
            chosen = chosen or a
    if chosen is None:
        return None
    rows = np.flatnonzero(stalled)
    lead = int(rows[np.argmax(intervals[rows])])
    progress = float(starts[lead])
    before = np.flatnonzero(np.isfinite(grid.times[lead, :col]))
    index = grid.sample_index(lead, int(before[-1])) if before.size else None
    return StallEvent(
        detected_at=progress + chosen.seconds,
        last_progress=progress,
        silence_s=float(intervals[lead]),
        last_step=int(prev_steps[lead]),
        allowance=chosen,
        median_s=median,
        stalled_ranks=tuple(int(r) for r in grid.ranks[rows]),
        first_ranks=(),
        ahead_step=None,
        recovered=True,
        n_ranks=grid.n_ranks,
        nodes=tuple((int(r), n) for r, n in zip(grid.ranks, grid.nodes, strict=True) if n),
        sample_index=index,
    )


LAG_STEPS = 50  # steps the others went on after the first ranks' last, beyond which those ranks' logs ended early
LAG_INCREMENTS = 5  # (and as many of the logs' steps between lines)


def _end_event(
    grid: StepGrid,
    end_time: float,
    pauses_all: list[Pause],
    pause_times: FloatArray,
    notes: Sequence[LogNote],
    config: StatsConfig,
) -> StallEvent | None:
    sample = grid.intervals[job_rows(grid.n_ranks, config.job_ranks_sample)]
    median = median_interval(_recent(sample, grid.n_cols, config.median_window))
    if median is None:
        return None
    has = grid.last_col >= 0
    rows = np.flatnonzero(has)
    if rows.size == 0:
        return None
    last_col = grid.last_col[rows]
    last_steps = grid.col_steps[last_col]
    last_keys = grid.col_segments[last_col] * (1 << 40) + last_steps
    last_times = grid.times[rows, last_col]
    end_notes: dict[int, LogNote] = {}
    for n in notes:
        if n.kind is NoteKind.END and n.rank is not None and n.rank not in end_notes:
            end_notes[n.rank] = n
    ends = {n.rank: n.time for n in notes if n.kind is NoteKind.END and n.rank is not None}
    ended = np.array(
        [ends.get(int(grid.ranks[r]), -np.inf) >= last_times[i] for i, r in enumerate(rows)]
    )
    # (or by a rank that printed no step of its own: rank 0's "training finished" where the last
    # rank prints the steps, Megatron's way, speaks for the job)
    stepped = {int(grid.ranks[r]) for r in rows}
    job_end = max((n for n in notes if n.kind is NoteKind.END and (n.rank is None or n.rank not in stepped)),
                  key=lambda n: n.time, default=None)
    if job_end is not None:
        # the job's own end of training, printed by no rank ("training finished: 60 steps"): every
        # rank whose last step came before it finished with it (that line its end note)
        by_job = (job_end.time >= last_times) & ~ended
        for i in np.flatnonzero(by_job):
            end_notes.setdefault(int(grid.ranks[rows[i]]), job_end)
        ended = ended | by_job
    times = np.where(np.isfinite(last_times), last_times, grid.last_time[rows])
    event = evaluate(
        now=end_time,
        ranks=grid.ranks[rows],
        last_keys=last_keys,
        last_steps=last_steps,
        last_times=times,
        activity=grid.last_time[rows],
        ended=ended,
        median_s=median,
        step_increment=_increment(grid.step_gaps, grid.n_cols),
        pauses=pauses_all[-MAX_PAUSES:],
        pause_notes=pause_times,
        config=config,
    )
    nodes = tuple((int(r), n) for r, n in zip(grid.ranks, grid.nodes, strict=True) if n)
    finished = [int(grid.ranks[r]) for r in rows[ended]]
    end_note = end_notes.get(finished[0]) if finished else None
    ahead = None if event is None else event.ahead_step if event.ahead_step is not None else event.finished_step
    if (event is not None and ahead is not None
            and ahead - event.last_step > max(LAG_STEPS, LAG_INCREMENTS * _increment(grid.step_gaps, grid.n_cols))):
        # the others went on (or trained to their end) many steps after the first ranks' last:
        # in synchronous training no rank falls that far behind and lives; their logs end early
        # (a fetch's byte limit, a copy made before the end), not their training
        return None
    if event is None:
        if not finished or ended.all():
            return None
        if int(last_steps[ended].max()) - int(last_steps[~ended].max()) > max(
                LAG_STEPS, LAG_INCREMENTS * _increment(grid.step_gaps, grid.n_cols)):
            return None  # (the unfinished ranks' logs end long before the others' end: cut, as above)
        return _finish_split_event(grid, rows, ended, times, last_steps, end_time, end_notes, nodes)
    lead_rank = event.first_ranks[0] if event.first_ranks else event.stalled_ranks[0]
    lead_row = grid.row_of(lead_rank)
    index = None
    if lead_row is not None and grid.last_col[lead_row] >= 0:
        index = grid.sample_index(lead_row, int(grid.last_col[lead_row]))
    return replace(event, nodes=nodes, sample_index=index, end_note=end_note)


def _finish_split_event(
    grid: StepGrid,
    rows: IntArray,
    ended: BoolArray,
    times: FloatArray,
    last_steps: IntArray,
    end_time: float,
    end_notes: dict[int, LogNote],
    nodes: tuple[tuple[int, str], ...],
) -> StallEvent:
    """Some ranks printed the end of training and the others did not, none silent beyond its
    allowance: a context event (:data:`stall.RULE_FINISH`) naming the odd side."""
    ranks = grid.ranks[rows]
    finished = tuple(int(r) for r in ranks[ended])
    unfinished = tuple(int(r) for r in ranks[~ended])
    left_early = finish_split(len(finished), len(unfinished))
    named = finished if left_early else unfinished
    progress = float(times[~ended].max())
    first_end = min(end_notes[r].time for r in finished)
    return StallEvent(
        detected_at=max(end_notes[r].time for r in finished),
        last_progress=progress,
        silence_s=end_time - progress,
        last_step=int(last_steps[~ended].max()),
        allowance=Allowance(0.0, 0.0, "not exceeded"),
        median_s=float("nan"),
        stalled_ranks=(),
        first_ranks=named,
        ahead_step=None,
        recovered=False,
        n_ranks=grid.n_ranks,
        nodes=nodes,
        finished_ranks=finished,
        unfinished_ranks=unfinished,
        left_early=left_early,
        context_only=True,
        finished_step=int(last_steps[ended].max()),
        end_note=next((end_notes[r] for r in finished if end_notes[r].time == first_end), None),
    )
