"""The stall detector for the live sidecar: fed sample by sample, asked ``check(now)``.

It keeps, per rank, the last step line and the last ``median_window`` intervals, learns long
intervals as pauses, and hands its state to :func:`stall.evaluate`, the rule replay uses too.

Live, one thing differs: the ranks do not go quiet at one instant. When every rank stopped at the
same step (a hang: the waiters and the one that stopped all printed that step last), the rank
whose last line came a fraction of a second before its peers' crosses its allowance first, and
for that moment it alone looks stalled, "behind" peers that are not ahead of it. Such a report
is held back while the other ranks, at the same step and quiet themselves, are within
``JOIN_GRACE`` of their own allowance: a moment later they are stalled too and the stall is
the whole job's, for the hang discriminator to judge. Replay sees the whole log at once and is
not concerned.
"""

from __future__ import annotations

from collections import deque
from dataclasses import replace

import numpy as np

from detector.types import Finding

from .config import StatsConfig
from .model import LogNote, NoteKind, StepSample
from .series import job_rows
from .stall import evaluate, stall_findings
from .stall_allowance import MAX_PAUSES, Pause, median_interval

JOIN_GRACE_S = 2.0  # at least this long, ...
JOIN_GRACE_MEDIANS = 3.0  # ... or this many median intervals: the spread of one step's lines


class _RankState:
    __slots__ = ("gaps", "intervals", "last_activity", "last_sample", "last_step", "segment")

    def __init__(self, window: int) -> None:
        self.intervals: deque[float] = deque(maxlen=window)
        self.gaps: deque[int] = deque(maxlen=window)
        self.last_step: int | None = None
        self.last_activity = float("-inf")
        self.last_sample: StepSample | None = None
        self.segment = 0


class StallTracker:
    """The stall detector for a live stream: ``observe`` each step sample (and ``observe_note``
    each checkpoint/eval/end line) as it arrives, call ``check(now)`` periodically. A stall is
    reported once per episode (until some stalled rank progresses again)."""

    def __init__(self, config: StatsConfig | None = None) -> None:
        self._config = config or StatsConfig()
        self._ranks: dict[int, _RankState] = {}
        self._pauses: deque[Pause] = deque(maxlen=MAX_PAUSES)
        self._pause_notes: list[float] = []  # times of checkpoint/eval lines (job-wide)
        self._ended: dict[int, float] = {}
        self._reported: set[tuple[int, ...]] = set()
        self._median: float | None = None
        self._fresh = 0  # intervals added since the median was computed

    def observe(self, sample: StepSample) -> None:
        state = self._ranks.get(sample.rank)
        if state is None:
            state = self._ranks[sample.rank] = _RankState(self._config.median_window)
        state.last_activity = max(state.last_activity, sample.time)
        if state.last_step is not None and sample.step < state.last_step:
            state.segment += 1  # a restart: the interval across it is not a step
        elif (
            state.last_step is not None
            and state.last_sample is not None
            and sample.step > state.last_step
        ):
            interval = sample.time - state.last_sample.time
            median = self._median_now()
            if median is not None and interval > self._config.long_factor * median:
                self._add_pause(Pause(sample.step, interval))
            state.intervals.append(interval)
            state.gaps.append(sample.step - state.last_step)
            self._fresh += 1
            if self._fresh >= len(self._ranks):  # about one new interval per rank: recompute
                self._median = None
        elif state.last_step is not None and sample.step == state.last_step:
            return  # another update of the same step
        state.last_step = sample.step
        state.last_sample = sample
        self._ended.pop(sample.rank, None)
        self._reported = {key for key in self._reported if sample.rank not in key}

    def observe_note(self, note: LogNote) -> None:
        if note.kind is NoteKind.END and note.rank is not None:
            self._ended[note.rank] = note.time
        elif note.kind is NoteKind.PAUSE:
            self._pause_notes.append(note.time)
            del self._pause_notes[:-16]
        if note.rank is not None and note.rank in self._ranks:
            state = self._ranks[note.rank]
            state.last_activity = max(state.last_activity, note.time)

    def _add_pause(self, pause: Pause) -> None:
        if self._pauses and self._pauses[-1].step == pause.step:
            if pause.seconds > self._pauses[-1].seconds:
                self._pauses[-1] = pause
            return
        self._pauses.append(pause)

    def _median_now(self) -> float | None:
        if self._median is None:
            self._fresh = 0
            ready = [
                rank
                for rank in sorted(self._ranks)
                if len(self._ranks[rank].intervals) >= self._config.min_intervals
            ]
            if not ready:
                return None
            # the ranks replay uses too: at most job_ranks_sample, spread over the ranks
            chosen = job_rows(len(ready), self._config.job_ranks_sample).tolist()
            states = [self._ranks[ready[i]] for i in chosen]
            window = self._config.median_window
            recent = np.full((len(states), window), np.nan)
            for i, state in enumerate(states):
                values = list(state.intervals)
                recent[i, : len(values)] = values
            self._median = median_interval(recent)
        return self._median

    def check(self, now: float) -> list[Finding]:
        if self._fresh:
            self._median = None
        median = self._median_now()
        ranks = sorted(r for r, s in self._ranks.items() if s.last_sample is not None)
        if median is None or not ranks:
            return []
        states = [self._ranks[r] for r in ranks]
        keys = np.array([(s.segment, s.last_step or 0) for s in states], dtype=np.int64)
        last_keys = keys[:, 0] * (1 << 40) + keys[:, 1]
        last_times = np.array([s.last_sample.time if s.last_sample else now for s in states])
        activity = np.array([s.last_activity for s in states])
        increments = [g for s in states for g in list(s.gaps)[-5:]]
        increment = int(np.median(increments)) if increments else 1
        ended = np.array([r in self._ended for r in ranks])
        event = evaluate(
            now=now,
            ranks=np.array(ranks, dtype=np.int64),
            last_keys=last_keys,
            last_steps=keys[:, 1],
            last_times=last_times,
            activity=activity,
            ended=ended,
            median_s=median,
            step_increment=increment,
            pauses=list(self._pauses),
            pause_notes=np.array(self._pause_notes),
            config=self._config,
        )
        if event is None:
            return []
        if event.first_ranks and self._peers_about_to_stall(event.first_ranks, event.stalled_ranks,
                                                            event.allowance.seconds, median, now):
            return []  # the same step's peers cross their allowance in a moment: judge the job then
        # one report per episode: the same first ranks (or, when none is singled out, the same
        # stalled ranks) are not reported again until one of them progresses
        key = event.first_ranks or event.stalled_ranks
        if key in self._reported:
            return []
        self._reported.add(key)
        lead = event.first_ranks[0] if event.first_ranks else event.stalled_ranks[0]
        nodes = tuple(
            (r, s.last_sample.node)
            for r, s in zip(ranks, states, strict=True)
            if s.last_sample is not None and s.last_sample.node
        )
        return stall_findings(replace(event, nodes=nodes), self._ranks[lead].last_sample)

    def _peers_about_to_stall(self, first: tuple[int, ...], stalled: tuple[int, ...], limit_s: float,
                              median: float, now: float) -> bool:
        """Whether every rank not (yet) stalled nor finished is at the first ranks' step or
        behind it, and quiet to within the grace of ``limit_s``: no peer is ahead of them."""
        lead = self._ranks[first[0]]
        lead_key = (lead.segment, lead.last_step or 0)
        grace = max(JOIN_GRACE_S, JOIN_GRACE_MEDIANS * median)
        waiting = [s for r, s in self._ranks.items()
                   if r not in stalled and r not in self._ended and s.last_sample is not None]
        if not waiting:
            return False
        for state in waiting:
            if (state.segment, state.last_step or 0) > lead_key:
                return False  # a peer went further: the first ranks are behind it
            assert state.last_sample is not None
            if now - max(state.last_activity, state.last_sample.time) + grace <= limit_s:
                return False  # a peer spoke recently: not about to stall
        return True
