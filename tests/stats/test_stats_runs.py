"""The synthetic runs of tests/support/stats.py make what the other stats tests assume."""

from __future__ import annotations

import numpy as np

from tests.support.stats import run_table, samples_of


def test_run_table_is_synchronous_and_pauses_where_asked() -> None:
    table = run_table(ranks=3, steps=50, pauses={20: 40.0})
    assert len(table) == 150
    by_rank = table.times.reshape(3, 50)
    assert np.ptp(by_rank, axis=0).max() < 0.01  # every rank prints each step within ms
    gaps = np.diff(by_rank[0])
    assert gaps[19] > 40.0  # the line of step 21 comes after the pause
    assert np.median(gaps) < 2.0


def test_run_table_slow_rank_and_stopped_rank() -> None:
    table = run_table(ranks=4, steps=40, slow_rank=1, slow_from=21, slow_factor=2.0, stop_after={3: 30})
    fwd = table.local[:, 0]
    late = table.steps > 20
    assert np.median(fwd[(table.ranks == 1) & late]) > 1.8 * np.median(fwd[(table.ranks == 0) & late])
    assert table.steps[table.ranks == 3].max() == 30


def test_samples_of_is_in_time_order() -> None:
    samples = samples_of(run_table(ranks=2, steps=10), {0: "n0"})
    assert [s.time for s in samples] == sorted(s.time for s in samples)
    assert samples[0].node in ("n0", None)
    assert {s.local_rank for s in samples} == {0, 1}
