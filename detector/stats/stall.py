"""Stall / hang: no step progress for k times the rolling median interval between step lines.

One decision rule serves the live sidecar (:class:`StallTracker`, fed line by line and asked
``check(now)``) and replay (:func:`detect_stalls`, vectorised over a :class:`StepGrid`):

- the *allowance* for a silence is ``max(floor_s, k x median interval)`` (:func:`allowance`),
  raised when a pause is expected: the step about to come continues a pattern of long
  intervals recurring every N steps (learned from the history, :func:`predict_pause`), a
  checkpoint/eval line was printed since the last step, or the last step is a round number
  (a multiple of ``boundary_multiple``, where trainers checkpoint and evaluate);
- the median is the median over ranks of each rank's median of its last ``median_window``
  intervals (:func:`median_interval`);
- the ranks named are those that stopped first: the stalled ranks that are behind the others
  (:func:`stopped_first`); when every rank stopped at the same step none is singled out;
- the end of training: a rank that printed an end-of-training line (a :class:`NoteKind.END`
  note) after its last step is not stalled. When some ranks finished and the others did not
  (:func:`finish_split`), the odd side is named: most ranks finished and exited while the rest
  sit silent (a *teardown hang*: the unfinished ranks), or a few ranks finished first while the
  others had not and stopped (they *left early*, an uneven IterableDataset: the finished ranks).
  Replay also reports such a split when nobody is silent long enough yet, as a context finding
  (``stats.finish``): attribution uses it when the unfinished ranks fail right after.

The allowance and the median interval are worked out in :mod:`detector.stats.stall_allowance`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from detector.support.numbers import spelled_runs
from detector.types import RULE_FINISH, RULE_STALL, Cause, Finding, Role, Severity

from . import evidence as ev
from .arrays import BoolArray, FloatArray, IntArray
from .config import StatsConfig
from .model import LogNote, StepSample
from .stall_allowance import Allowance, Pause, allowance, notes_between

RULE = RULE_STALL
# the split between ranks that finished training and ranks that did not, when none is silent
# beyond its allowance (yet): context for attribution (it reads the same id)
_MAX_NAMED = 8


def stopped_first(last_keys: IntArray, stalled: BoolArray) -> list[int]:
    """Rows (indices) of the stalled ranks that are behind: all stalled ranks when some ranks
    still progress, else the stalled ranks at the lowest last step when that is not all."""
    rows = np.flatnonzero(stalled)
    if rows.size == 0:
        return []
    if rows.size < stalled.size:
        behind = rows[last_keys[rows] == last_keys[rows].min()]
        return [int(r) for r in behind]
    low = last_keys.min()
    behind = np.flatnonzero(last_keys == low)
    if behind.size == last_keys.size:
        return []
    return [int(r) for r in behind]


def finish_split(n_finished: int, n_unfinished: int) -> bool:
    """Whether the ranks that finished are the odd ones (they *left early*, e.g. their data ran
    out, while the others still trained): fewer finished than did not. Otherwise, a tie
    included, the unfinished ranks are the odd ones (a teardown hang)."""
    return 0 < n_finished < n_unfinished


def ranks_span(ranks: Sequence[int]) -> str:
    """``rank 3``, ``ranks 0-2``, ``ranks 0, 1, 3``, ``ranks 0-5, 7``."""
    items = sorted(set(ranks))
    parts = spelled_runs(items)
    if len(parts) > 12:
        parts = [*parts[:12], f"and {len(parts) - 12} more"]
    word = "rank" if len(items) == 1 else "ranks"
    return f"{word} {', '.join(parts)}"


@dataclass(frozen=True, slots=True)
class StallEvent:
    """A silence longer than its allowance: ongoing at ``now`` or ``recovered`` later.

    ``finished_ranks``: ranks that printed an end-of-training line after their last step; when
    there are some, ``left_early`` says which side is named (see :func:`finish_split`), and
    ``context_only`` marks a split with nobody silent beyond the allowance (a context finding).
    """

    detected_at: float  # last progress + allowance
    last_progress: float
    silence_s: float
    last_step: int
    allowance: Allowance
    median_s: float
    stalled_ranks: tuple[int, ...]
    first_ranks: tuple[int, ...]
    ahead_step: int | None  # the step the other ranks reached, when the named ranks are behind
    recovered: bool
    n_ranks: int
    nodes: tuple[tuple[int, str], ...] = ()
    sample_index: int | None = None  # the last step line before the silence (replay)
    finished_ranks: tuple[int, ...] = ()
    unfinished_ranks: tuple[int, ...] = ()
    left_early: bool = False
    context_only: bool = False
    finished_step: int | None = None  # the last step the finished ranks printed
    end_note: LogNote | None = None  # the end-of-training line of the first finished rank


def stall_findings(event: StallEvent, source: StepSample | None = None) -> list[Finding]:
    """Findings for a stall: one per rank that stopped first, or one for the job."""
    if event.context_only:
        return [_finish_finding(event)]
    a = event.allowance
    plural = "s" if len(event.stalled_ranks) > 1 else ""
    scope = (
        f"all {event.n_ranks} ranks"
        if len(event.stalled_ranks) == event.n_ranks
        else f"rank{plural} {ev.ranks_text(event.stalled_ranks)}"
    )
    if event.recovered:
        text = (
            f"step progress paused {ev.num(event.silence_s)} s on {scope} after step "
            f"{event.last_step} (allowance {ev.num(a.seconds)} s: {a.reason}), then resumed"
        )
    elif event.finished_ranks and not event.left_early:
        its = "its" if len(event.stalled_ranks) == 1 else "their"
        text = (
            f"{ranks_span(event.finished_ranks)} finished training and exited; "
            f"{ranks_span(event.stalled_ranks)} did not finish: no end-of-training line "
            f"{ev.num(event.silence_s)} s after {its} last step, {event.last_step} "
            f"(allowance {ev.num(a.seconds)} s: {a.reason})"
        )
    elif event.finished_ranks:
        who = ranks_span(event.finished_ranks)
        text = (
            f"{who} finished training after step {event.finished_step} and left while "
            f"{ranks_span(event.stalled_ranks)} had not finished: no step progress on them for "
            f"{ev.num(event.silence_s)} s since step {event.last_step} (allowance {ev.num(a.seconds)} s: "
            f"{a.reason}); {who} ran out of work first (uneven data?)"
        )
    else:
        text = (
            f"no step progress for {ev.num(event.silence_s)} s on {scope} since step "
            f"{event.last_step} (allowance {ev.num(a.seconds)} s: {a.reason})"
        )
    if event.first_ranks and event.ahead_step is not None and not event.finished_ranks:
        first = "s" if len(event.first_ranks) > 1 else ""
        text += (
            f"; rank{first} {ev.ranks_text(event.first_ranks)} stopped first, at step "
            f"{event.last_step}, while the others reached step {event.ahead_step}"
        )
    nodes = dict(event.nodes)
    fields = ev.pairs(
        metric="seconds_without_progress",
        value=event.silence_s,
        baseline=event.median_s,
        allowance=a.seconds,
        allowance_reason=a.reason,
        score=event.silence_s / a.seconds if a.seconds > 0 else None,
        step=event.last_step,
        ahead_step=event.ahead_step,
        last_progress=ev.iso(event.last_progress),
        stalled_ranks=",".join(str(r) for r in event.stalled_ranks),
        first_ranks=",".join(str(r) for r in event.first_ranks) or None,
        recovered=event.recovered,
        **_finish_fields(event),
    )
    role = Role.CONTEXT if event.recovered else Role.INITIATOR
    severity = Severity.WARNING if event.recovered else Severity.ERROR
    named = event.first_ranks[:_MAX_NAMED] if event.first_ranks else (None,)
    # a silence that resumed is weak evidence of a hang; one rank behind the others is strong
    confidence = 0.3 if event.recovered else (0.8 if event.first_ranks else 0.6)
    note = event.end_note if event.left_early else None
    out = []
    for rank in named:
        here = source if source and (rank is None or rank == source.rank) else None
        if here is None and note is not None and rank == note.rank:
            where: tuple[str | None, int | None] = (note.file, note.line)
        else:
            where = (here.file, here.line) if here else (None, None)
        out.append(
            Finding(
                rule=RULE,
                role=role,
                cause=Cause.HANG,
                severity=severity,
                confidence=confidence,
                text=text,
                file=where[0],
                line=where[1],
                time=ev.utc(event.detected_at),
                rank=rank,
                node=nodes.get(rank) if rank is not None else None,
                fields=fields,
            )
        )
    return out


def _finish_fields(event: StallEvent) -> dict[str, object]:
    if not event.finished_ranks:
        return {}
    return {
        "finish": "left_early" if event.left_early else "teardown",
        "finished_ranks": ",".join(str(r) for r in event.finished_ranks),
        "unfinished_ranks": ",".join(str(r) for r in event.unfinished_ranks),
        "finished_step": event.finished_step,
    }


def _finish_finding(event: StallEvent) -> Finding:
    """The split between finished and unfinished ranks, nobody silent beyond the allowance yet."""
    finished, unfinished = ranks_span(event.finished_ranks), ranks_span(event.unfinished_ranks)
    text = (
        f"{finished} printed the end of training (after step {event.finished_step}) and "
        f"{unfinished} did not (last step {event.last_step}; the logs end "
        f"{ev.num(event.silence_s)} s after it)"
    )
    named = event.first_ranks[0] if event.first_ranks else None
    note = event.end_note
    nodes = dict(event.nodes)
    return Finding(
        rule=RULE_FINISH,
        role=Role.CONTEXT,
        cause=Cause.HANG,
        severity=Severity.INFO,
        confidence=0.4,
        text=text,
        file=note.file if note is not None and note.rank == named else None,
        line=note.line if note is not None and note.rank == named else None,
        time=ev.utc(event.detected_at),
        rank=named,
        node=nodes.get(named) if named is not None else None,
        fields=ev.pairs(
            step=event.last_step,
            last_progress=ev.iso(event.last_progress),
            first_ranks=",".join(str(r) for r in event.first_ranks) or None,
            **_finish_fields(event),
        ),
    )


def evaluate(
    *,
    now: float,
    ranks: IntArray,
    last_keys: IntArray,
    last_steps: IntArray,
    last_times: FloatArray,
    activity: FloatArray,
    ended: BoolArray,
    median_s: float,
    step_increment: int,
    pauses: Sequence[Pause],
    pause_notes: FloatArray,
    config: StatsConfig,
) -> StallEvent | None:
    """The stall at ``now``, if any: the shared core of the live and the replay detector."""
    notes = notes_between(pause_notes, last_times, np.full(len(ranks), now))
    silence = now - np.maximum(activity, last_times)
    allowances: dict[tuple[int, bool], Allowance] = {}
    limit = np.empty(len(ranks))
    keys = list(zip(last_steps.tolist(), notes.tolist(), strict=True))
    for i, key in enumerate(keys):
        a = allowances.get(key)
        if a is None:
            a = allowances[key] = allowance(
                median_s=median_s,
                last_step=key[0],
                step_increment=step_increment,
                pauses=pauses,
                pause_note=key[1],
                config=config,
            )
        limit[i] = a.seconds
    stalled = (silence > limit) & ~ended
    per_rank = [allowances[key] for key in keys]
    if not stalled.any():
        return None
    rows = np.flatnonzero(stalled)
    done = np.flatnonzero(ended)
    left_early = finish_split(int(done.size), int((~ended).sum()))
    if left_early:
        # a few ranks finished while the others had not and stopped: those few left early
        first = [int(r) for r in done]
        lead = int(rows[np.argmax(last_times[rows])])
        progress = float(last_times[rows].max())
    else:
        first = stopped_first(last_keys, stalled)
        lead = first[0] if first else int(rows[np.argmax(last_times[rows])])
        progress = float(last_times[rows].max()) if not first else float(last_times[first].max())
    a = per_rank[lead]
    ahead = int(last_steps[np.argmax(last_keys)]) if first and not done.size else None
    return StallEvent(
        detected_at=progress + a.seconds,
        last_progress=progress,
        silence_s=now - progress,
        last_step=int(last_steps[lead]),
        allowance=a,
        median_s=median_s,
        stalled_ranks=tuple(int(r) for r in ranks[rows]),
        first_ranks=tuple(int(ranks[r]) for r in first),
        ahead_step=ahead,
        recovered=False,
        n_ranks=len(ranks),
        finished_ranks=tuple(int(r) for r in ranks[done]),
        unfinished_ranks=tuple(int(r) for r in ranks[~ended]),
        left_early=left_early,
        finished_step=int(last_steps[done].max()) if done.size else None,
    )
