"""Stall / hang detection: allowance, checkpoint pauses, live tracker and replay agree."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from detector.stats import (
    LogNote,
    NoteKind,
    StallTracker,
    StatsConfig,
    StepSample,
    analyze,
    analyze_table,
)
from detector.stats.stall import stopped_first
from detector.stats.stall_allowance import Pause, allowance, predict_pause
from detector.types import Cause, Finding, Role, Severity
from tests.support.stats import run_table, samples_of

CFG = StatsConfig()


def test_predict_pause_needs_a_recurring_pattern() -> None:
    pauses = [Pause(231, 40.0), Pause(431, 55.0), Pause(513, 300.0)]
    assert predict_pause(pauses, 631) == (200, 55.0)
    assert predict_pause(pauses, 632) is None
    assert predict_pause(pauses[:1], 431) is None  # one occurrence out of phase is no pattern
    # a pause at step N counted from the start (N + 1: the line after it) predicts 2N + 1
    assert predict_pause([Pause(71, 40.0)], 141) == (70, 40.0)


def test_allowance_floor_k_median_and_pauses() -> None:
    a = allowance(
        median_s=1.0, last_step=17, step_increment=1, pauses=[], pause_note=False, config=CFG
    )
    assert (a.seconds, a.reason) == (30.0, "floor 30 s (median interval 1 s)")
    a = allowance(
        median_s=10.0, last_step=17, step_increment=1, pauses=[], pause_note=False, config=CFG
    )
    assert a.seconds == 50.0
    assert a.reason.startswith("5 x median interval 10 s")
    periodic = [Pause(118, 80.0), Pause(218, 90.0)]
    a = allowance(
        median_s=1.0, last_step=317, step_increment=1, pauses=periodic, pause_note=False, config=CFG
    )
    assert a.seconds == 180.0
    assert "every 100 steps" in a.reason
    a = allowance(
        median_s=1.0, last_step=17, step_increment=1, pauses=[], pause_note=True, config=CFG
    )
    assert a.seconds == CFG.note_pause_s
    a = allowance(
        median_s=1.0, last_step=400, step_increment=1, pauses=[], pause_note=False, config=CFG
    )
    assert a.seconds == CFG.boundary_pause_s
    assert "multiple of 50" in a.reason


def test_stopped_first() -> None:
    stalled = np.array([True, True, True, True])
    assert stopped_first(np.array([9, 9, 8, 9]), stalled) == [2]
    assert stopped_first(np.array([9, 9, 9, 9]), stalled) == []  # everyone at the same step
    assert stopped_first(np.array([9, 12, 9, 12]), np.array([True, False, True, False])) == [0, 2]


def test_hang_at_the_end_is_an_initiator_finding() -> None:
    table = run_table(steps=203)  # not a round step: a checkpoint there gets a longer allowance
    end = float(table.times.max()) + 120.0
    findings = [f for f in analyze_table(table, [], end_time=end) if f.rule == "stats.stall"]
    assert len(findings) == 1
    f = findings[0]
    assert (f.role, f.cause, f.severity, f.rank) == (
        Role.INITIATOR,
        Cause.HANG,
        Severity.ERROR,
        None,
    )
    assert f.field("step") == "203"
    assert f.field("allowance") == "30"
    assert f.field("recovered") == "false"
    assert "no step progress for 120 s on all 8 ranks since step 203" in f.text
    assert f.time is not None
    assert f.time.timestamp() == pytest.approx(float(table.times.max()) + 30.0, abs=0.01)


def test_the_rank_behind_is_named() -> None:
    table = run_table(steps=120, stop_after={5: 117})
    end = float(table.times.max()) + 100.0
    findings = [f for f in analyze_table(table, [], end_time=end) if f.rule == "stats.stall"]
    assert [f.rank for f in findings] == [5]
    assert (
        "rank 5 stopped first, at step 117, while the others reached step 120" in findings[0].text
    )
    assert findings[0].field("first_ranks") == "5"


def test_no_stall_when_the_logs_end_with_the_run() -> None:
    table = run_table(steps=120)
    assert analyze_table(table, [], end_time=float(table.times.max()) + 2.0) == []


def test_end_of_training_line_is_not_a_stall() -> None:
    table = run_table(ranks=2, steps=120)
    last = float(table.times.max())
    notes = [LogNote(r, last + 1.0, NoteKind.END, "training finished") for r in range(2)]
    assert analyze_table(table, [], end_time=last + 900.0, notes=notes) == []


@pytest.mark.parametrize(
    ("pauses", "reported"),
    [
        # every 70 steps from the start: only the first could not be foreseen
        ({70: 45.0, 140: 50.0, 210: 60.0, 280: 55.0}, ["70"]),
        # every 100 steps from step 70: a pattern needs two pauses
        ({70: 45.0, 170: 50.0, 270: 60.0}, ["70", "170"]),
    ],
)
def test_periodic_pauses_are_learned(pauses: dict[int, float], reported: list[str]) -> None:
    # pauses longer than k x median and the floor, after steps that are not round numbers
    table = run_table(steps=330, pauses=pauses)
    findings = analyze_table(table, [], end_time=float(table.times.max()) + 1.0)
    recovered = [f for f in findings if f.rule == "stats.stall"]
    assert [f.field("step") for f in recovered] == reported
    assert all(f.role is Role.CONTEXT and f.field("recovered") == "true" for f in recovered)


def test_a_checkpoint_line_raises_the_allowance() -> None:
    table = run_table(steps=200, pauses={70: 45.0})
    note_time = float(table.times[(table.ranks == 0) & (table.steps == 70)][0]) + 0.5
    notes = [LogNote(0, note_time, NoteKind.PAUSE, "Saving model checkpoint to /ckpt")]
    assert analyze_table(table, [], end_time=float(table.times.max()) + 1.0, notes=notes) == []


def test_round_step_pause_is_not_a_stall() -> None:
    table = run_table(steps=200, pauses={100: 200.0})
    assert analyze_table(table, [], end_time=float(table.times.max()) + 1.0) == []


def test_recovered_stalls_can_be_left_out() -> None:
    table = run_table(steps=200, pauses={70: 45.0})
    quiet = StatsConfig(report_recovered_stalls=False)
    assert analyze_table(table, [], end_time=float(table.times.max()) + 1.0, config=quiet) == []


def _live(
    samples: list[StepSample], end: float, notes: Sequence[LogNote] = (), every: float = 5.0
) -> list[Finding]:
    """What the sidecar reports: samples and markers fed in time order, check() every few s."""
    tracker = StallTracker(CFG)
    found: list[Finding] = []
    pending = sorted(notes, key=lambda n: n.time)
    next_check = samples[0].time + every
    for sample in samples:
        while (pending and pending[0].time <= sample.time) or next_check <= sample.time:
            if pending and pending[0].time <= next_check:
                tracker.observe_note(pending.pop(0))
            else:
                found.extend(tracker.check(next_check))
                next_check += every
        tracker.observe(sample)
    while next_check <= end:
        found.extend(tracker.check(next_check))
        next_check += every
    return found


def test_live_tracker_and_replay_agree_on_a_hang() -> None:
    table = run_table(steps=150, stop_after={3: 148})
    end = float(table.times.max()) + 200.0
    samples = samples_of(table)
    live = _live(samples, end)
    replay = [f for f in analyze(samples, [], end_time=end) if f.rule == "stats.stall"]
    assert len(live) == 1  # reported once, not at every check
    assert [f.rank for f in live] == [f.rank for f in replay] == [3]
    assert live[0].field("allowance") == replay[0].field("allowance")
    assert live[0].file == replay[0].file == "rank3.log"
    assert live[0].line == replay[0].line == 148
    assert live[0].time is not None
    assert replay[0].time is not None
    assert abs(live[0].time.timestamp() - replay[0].time.timestamp()) < 0.01


def test_live_tracker_is_quiet_through_learned_pauses() -> None:
    table = run_table(steps=330, pauses={70: 45.0, 140: 50.0, 210: 60.0, 280: 55.0})
    samples = samples_of(table)
    live = _live(samples, float(table.times.max()) + 1.0)
    assert [f.field("step") for f in live] == ["70"]  # like replay: only the unforeseeable first
    assert live[0].role is Role.INITIATOR  # live, a silence is a stall until it resumes


def test_live_tracker_sees_a_checkpoint_line_in_time() -> None:
    table = run_table(steps=200, pauses={70: 45.0})
    note_time = float(table.times[(table.ranks == 0) & (table.steps == 70)][0]) + 0.5
    notes = [LogNote(0, note_time, NoteKind.PAUSE, "Saving model checkpoint to /ckpt")]
    samples = samples_of(table)
    assert _live(samples, samples[-1].time, notes) == []
    assert [f.field("step") for f in _live(samples, samples[-1].time)] == ["70"]


def _steps(rank: int, start: float, last: int, every: float = 0.2) -> list[StepSample]:
    return [StepSample(rank=rank, node="n1", time=start + every * s, step=s, file=f"rank{rank}.log", line=s)
            for s in range(1, last + 1)]


def _tracker_fed(peers_last_step: int) -> StallTracker:
    """A 4 s-floor tracker fed rank 0's steps 1-7 and, half a second later each, ranks 1-3's up
    to ``peers_last_step``."""
    tracker = StallTracker(StatsConfig(floor_s=4.0))
    samples = _steps(0, 1000.0, 7) + [s for r in (1, 2, 3) for s in _steps(r, 1000.5, peers_last_step)]
    for s in sorted(samples, key=lambda s: s.time):
        tracker.observe(s)
    return tracker


def test_live_a_rank_quiet_a_moment_before_its_peers_at_the_same_step_is_not_singled_out() -> None:
    """Every rank stopped at step 7 (a hang); rank 0 printed it half a second before the others,
    so it crosses the 4 s allowance first. Live, that moment alone is no evidence: the tracker
    waits for its peers (about to stall at the same step) and reports the whole job's stall.
    Before, rank 0 was reported as the one that stopped first, and a hang discriminator naming
    the real one then tied with it."""
    tracker = _tracker_fed(7)
    last0 = 1000.0 + 0.2 * 7
    assert tracker.check(last0 + 4.1) == []  # only rank 0 is past its allowance: held back
    (found,) = tracker.check(last0 + 4.6)  # every rank is: the job's stall, no rank named
    assert found.rank is None and found.field("stalled_ranks") == "0,1,2,3", found
    assert tracker.check(last0 + 6.0) == []  # once per episode


def test_live_a_rank_behind_peers_that_went_further_is_still_reported_at_once() -> None:
    tracker = _tracker_fed(8)
    (found,) = tracker.check(1000.0 + 0.2 * 7 + 4.1)  # the others reached step 8: rank 0 is behind
    assert found.rank == 0, found
