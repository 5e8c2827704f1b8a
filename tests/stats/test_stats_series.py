"""Per-rank step series: missing lines, restarts, progress-bar repeats (stats.series)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from detector.stats import StepSample, table_from_samples
from detector.stats.arrays import median_last
from detector.stats.series import build_grid, job_step_seconds


def _s(rank: int, time: float, step: int, **kw: object) -> StepSample:
    return StepSample(rank, None, time, step, **kw)  # type: ignore[arg-type]


def test_dense_grid_is_a_reshape() -> None:
    samples = [
        _s(r, 100.0 + s + 0.01 * r, s, duration_s=0.5, local=(("fwd", 0.2),))
        for r in range(3)
        for s in range(5)
    ]
    grid = build_grid(table_from_samples(samples))
    assert grid.times.shape == (3, 5)
    assert grid.local_keys == ("fwd",)
    assert np.isnan(grid.intervals[:, 0]).all()
    assert grid.intervals[:, 1:] == pytest.approx(np.ones((3, 4)))
    assert grid.sample_index(2, 4) == 14


def test_missing_lines_and_restart() -> None:
    rank0 = [(1, 1), (2, 2), (3, 3), (10, 2), (11, 3), (12, 4)]  # restarted from step 2
    rank1 = [(1, 1), (3, 3), (10, 2), (12, 4)]  # lost lines
    samples = [_s(0, t, s) for t, s in rank0] + [_s(1, t, s) for t, s in rank1]
    grid = build_grid(table_from_samples(samples))
    assert grid.col_steps.tolist() == [1, 2, 3, 2, 3, 4]
    assert grid.col_segments.tolist() == [0, 0, 0, 1, 1, 1]
    # no interval across the restart; a lost line makes a two-step interval
    assert np.isnan(grid.intervals[:, 3]).all()
    assert grid.intervals[1, 2] == 2.0
    assert grid.step_gaps[1, 2] == 2.0
    assert grid.last_col.tolist() == [5, 5]
    index = grid.sample_index(1, 5)
    assert index is not None
    assert samples[index].time == 12


def test_segments_line_up_from_the_end_when_tails_start_at_different_places() -> None:
    # rank 0's tail still shows the attempt before the restart; rank 1's tail does not
    samples = [_s(0, t, s) for t, s in [(1, 7), (2, 8), (10, 5), (11, 6)]] + [
        _s(1, t, s) for t, s in [(10, 5), (11, 6)]
    ]
    grid = build_grid(table_from_samples(samples))
    last = grid.col_segments == grid.col_segments.max()
    assert grid.col_steps[last].tolist() == [5, 6]
    assert np.isfinite(grid.times[:, last]).all()


def test_progress_bar_repeats_keep_the_first_time_and_eval_bars_are_not_steps() -> None:
    samples = [
        _s(0, 1.0, 10, total=100),
        _s(0, 1.5, 10, total=100),  # a refresh of the same step
        _s(0, 2.0, 11, total=100),
        _s(0, 3.0, 1, total=5),  # the evaluation bar
        _s(0, 4.0, 5, total=5),
        _s(0, 9.0, 12, total=100),
    ]
    grid = build_grid(table_from_samples(samples))
    assert grid.col_steps.tolist() == [10, 11, 12]
    assert grid.times[0].tolist() == [1.0, 2.0, 9.0]
    assert grid.col_segments.tolist() == [0, 0, 0]  # the evaluation bar did not look like a restart
    assert grid.last_time[0] == 9.0


def test_unsorted_input() -> None:
    samples = [_s(1, 2.0, 2), _s(0, 2.0, 2), _s(1, 1.0, 1), _s(0, 1.0, 1)]
    grid = build_grid(table_from_samples(samples))
    assert grid.ranks.tolist() == [0, 1]
    assert grid.times.tolist() == [[1.0, 2.0], [1.0, 2.0]]
    index = grid.sample_index(1, 0)
    assert index is not None
    assert samples[index] == samples[2]


def test_job_step_uses_printed_durations_else_intervals() -> None:
    printed = [_s(r, float(s), s, duration_s=0.25) for r in range(2) for s in range(4)]
    assert job_step_seconds(build_grid(table_from_samples(printed)), 64)[1:].tolist() == [0.25] * 3
    bare = [_s(r, 2.0 * s, 2 * s) for r in range(2) for s in range(4)]  # a line every 2 steps
    assert job_step_seconds(build_grid(table_from_samples(bare)), 64)[1:].tolist() == [1.0] * 3


def test_empty() -> None:
    grid = build_grid(table_from_samples([]))
    assert (grid.n_ranks, grid.n_cols) == (0, 0)


@given(
    hnp.arrays(
        np.float64,
        st.tuples(st.integers(1, 5), st.integers(1, 9)),
        elements=st.floats(-1e6, 1e6) | st.just(np.nan),
    )
)
def test_median_last_matches_nanmedian(values: np.ndarray) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        expected = np.nanmedian(values, axis=-1)
    assert np.allclose(median_last(values), expected, equal_nan=True)
