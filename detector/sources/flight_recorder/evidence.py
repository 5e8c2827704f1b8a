"""A Flight Recorder analysis in words: the findings (:func:`findings`) that name the rank that
never entered the collective the others wait in, or that issued a different one, and a
one-line-per-group summary."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime

from detector.sources.flight_recorder.analysis import FrAnalysis, rank_list
from detector.sources.flight_recorder.collectives import op_type
from detector.sources.flight_recorder.dump import FrDump, FrEntry
from detector.types import Cause, Finding, Role, Severity

RULE_MISSING = "flight_recorder.missing_rank"
RULE_WAITING = "flight_recorder.waiting"
RULE_MISMATCH = "flight_recorder.mismatch"
RULE_MISMATCH_PEER = "flight_recorder.mismatch_peer"
RULE_LAGGING = "flight_recorder.lagging_rank"


def _ranks_phrase(ranks: Sequence[int]) -> str:
    return f"rank {ranks[0]}" if len(ranks) == 1 else f"ranks {rank_list(ranks)}"


def _time(ns: int | None) -> datetime | None:
    if not ns or ns <= 0:
        return None
    try:
        return datetime.fromtimestamp(ns / 1e9, tz=UTC)
    except (OverflowError, OSError, ValueError):
        return None


def _entry_time(by_rank: Mapping[int, Mapping[int, FrEntry]], rank: int, seq: int) -> datetime | None:
    e = by_rank.get(rank, {}).get(seq)
    return _time(e.time_created_ns) if e is not None else None


def _user_frame(entry: FrEntry | None) -> str | None:
    """The innermost frame outside torch, where the program called the collective."""
    if entry is None or not entry.frames:
        return None
    for fr in entry.frames:
        if "/torch/" not in fr.filename.replace("\\", "/"):
            return f"{fr.filename}:{fr.line} in {fr.name}"
    fr = entry.frames[0]
    return f"{fr.filename}:{fr.line} in {fr.name}"


def _first_pending(entries: Mapping[int, FrEntry], completed: int | None, top: int) -> FrEntry | None:
    """The first collective after ``completed`` that the rank's buffer holds and did not see
    complete, when it is before ``top`` (the last one entered); None when that is ``top`` itself
    or the buffer no longer holds it."""
    if completed is None:
        return None
    pending = [e for seq, e in entries.items() if completed < seq < top and e.state != "completed" and not e.retired]
    return min(pending, key=lambda e: e.collective_seq_id) if pending else None


def findings(analysis: FrAnalysis, dumps: Sequence[FrDump] = ()) -> list[Finding]:
    """Evidence from an analysis, in words:

    - ``flight_recorder.missing_rank`` (initiator, hang): a rank that never entered the collective
      the others wait in (or, with lower confidence, a member that left no dump while every other
      rank waits);
    - ``flight_recorder.waiting`` (collateral, hang): each rank waiting in it (the initiator when it is
      the job's only rank: nothing but its own work can hold it), with
      ``missing_ranks`` / ``last_completed`` / ``peer_rank`` fields for attribution;
    - ``flight_recorder.mismatch`` (initiator, collective_mismatch): the minority rank of the
      first collective the ranks disagree about (op, sizes or dtypes), with ``culprit_rank``;
      context instead when every rank completed it anyway, rank-less when no majority;
    - ``flight_recorder.mismatch_peer`` (collateral): each rank of the majority;
    - ``flight_recorder.lagging_rank`` (context): a rank behind the others while nobody waited.

    A missing-rank finding becomes context when a mismatch in the same group explains the stall.
    ``dumps`` (optional) adds the program's own frame of the stuck call to the finding's context."""
    entries_of: dict[str, dict[int, dict[int, FrEntry]]] = {}
    for d in dumps:
        for e in d.entries:
            if not e.is_p2p:
                entries_of.setdefault(e.pg_name, {}).setdefault(d.rank, {}).setdefault(e.collective_seq_id, e)
    out: list[Finding] = []
    for g in analysis.groups:
        by_rank = entries_of.get(g.name, {})
        paths = dict(g.dumps)
        prog = {p.rank: p for p in g.progress}
        label = g.label
        inferred = " (members inferred from the dumps)" if g.members_inferred else ""
        mismatch_explains = g.mismatch is not None and not g.mismatch.completed
        if g.hang is not None:
            h = g.hang
            what = f"{op_type(h.op)} #{h.seq} of {label}"
            base = [("pg", g.name), ("pg_desc", g.desc), ("seq", str(h.seq)), ("op", op_type(h.op)),
                    ("profiling_op", h.op), ("waiting_ranks", rank_list(h.waiting))]
            suspects = h.missing or h.no_dump
            when = _time(h.since_ns)
            for r in suspects:
                p = prog.get(r)
                has_dump = p is not None and p.has_dump
                if has_dump and p is not None:
                    last = by_rank.get(r, {}).get(p.entered)
                    last_txt = f"#{p.entered}" + (f" ({op_type(last.op)})" if last is not None else "")
                    state = "completed" if p.completed is not None and p.completed >= p.entered else "not completed"
                    text = (f"rank {r} never entered {what} that {_ranks_phrase(h.waiting)} wait in; its last "
                            f"collective there was {last_txt}, {state}{inferred}")
                    if p.entered == 0:
                        text = f"rank {r} never entered {what} that {_ranks_phrase(h.waiting)} wait in; it entered no collective there{inferred}"
                else:
                    text = (f"rank {r} left no Flight Recorder dump while {_ranks_phrase(h.waiting)} wait in {what}; "
                            f"it probably never entered it")
                if h.note:
                    text += f" ({h.note})"
                role = Role.INITIATOR
                confidence = h.confidence if has_dump else min(h.confidence, 0.6)
                if mismatch_explains:
                    role, confidence = Role.CONTEXT, min(confidence, 0.4)
                    text += f"; probably a consequence of the mismatched collective #{g.mismatch.seq}"  # type: ignore[union-attr]
                fields = [*base, ("missing_ranks", rank_list(suspects)), ("has_dump", "true" if has_dump else "false")]
                if p is not None and has_dump:
                    fields += [("last_entered", str(p.entered)), ("last_completed", str(p.completed if p.completed is not None else ""))]
                out.append(Finding(
                    rule=RULE_MISSING, role=role, cause=Cause.HANG,
                    severity=Severity.ERROR if role is Role.INITIATOR else Severity.INFO, text=text,
                    file=paths.get(r) or (paths.get(h.waiting[0]) if h.waiting else None), time=when, rank=r,
                    fields=tuple(fields), confidence=confidence,
                ))
            for w in () if mismatch_explains else h.waiting:  # the mismatch findings cover them
                p = prog[w]
                entry = by_rank.get(w, {}).get(h.seq)
                own = f"{op_type(entry.op)} #{h.seq} of {label}" if entry is not None else what
                # with several collectives enqueued, the rank waits in the first it did not complete
                first = _first_pending(by_rank.get(w, {}), p.completed, h.seq)
                if first is not None:
                    own = f"{op_type(first.op)} #{first.collective_seq_id} of {label}"
                if h.missing:
                    tail = f"; {_ranks_phrase(h.missing)} never entered #{h.seq}"
                elif h.no_dump:
                    tail = f"; {_ranks_phrase(h.no_dump)} left no dump"
                elif h.alone:
                    tail = f"; it is the job's only rank: {h.note}"
                else:
                    tail = "; every rank entered it"
                upto = f", entered up to #{h.seq}" if first is not None else ""
                text = (f"rank {w} waits in {own} (entered, not completed; last completed "
                        f"#{p.completed if p.completed is not None else '?'}{upto}){tail}")
                fields = [*base, ("missing_ranks", rank_list(suspects)),
                          ("last_completed", str(p.completed) if p.completed is not None else ""),
                          ("last_entered", str(p.entered))]
                if len(suspects) == 1:
                    fields.append(("peer_rank", str(suspects[0])))
                where = _user_frame(entry)
                out.append(Finding(
                    rule=RULE_WAITING, role=Role.INITIATOR if h.alone else Role.COLLATERAL, cause=Cause.HANG,
                    severity=Severity.ERROR if h.alone else Severity.WARNING,
                    text=text, file=paths.get(w), time=_entry_time(by_rank, w, h.seq) or when, rank=w,
                    fields=tuple(fields), context=(f"called at {where}",) if where else (),
                    confidence=h.confidence,
                ))
        elif g.lagging:
            top = max(p.entered for p in g.progress)
            ahead = [p.rank for p in g.progress if p.entered == top and p.has_dump]
            for r in g.lagging:
                p = prog[r]
                out.append(Finding(
                    rule=RULE_LAGGING, role=Role.CONTEXT, cause=None, severity=Severity.INFO,
                    text=(f"rank {r}'s last collective in {label} was #{p.entered} while {_ranks_phrase(ahead)} "
                          f"reached #{top}; no rank was waiting in a collective when the dumps were written"),
                    file=paths.get(r), rank=r,
                    fields=(("pg", g.name), ("seq", str(top)), ("last_entered", str(p.entered)),
                            ("last_completed", str(p.completed) if p.completed is not None else "")),
                    confidence=0.4,
                ))
        if g.mismatch is not None:
            m = g.mismatch
            where_txt = f"collective #{m.seq} of {label}"
            times = dict(m.times_ns)
            if m.expected is not None:
                for r, sig in m.culprits:
                    text = (f"rank {r} issued {sig.describe()} as {where_txt} where {_ranks_phrase(m.majority)} "
                            f"issued {m.expected.describe()}")
                    role, conf = Role.INITIATOR, 0.9 if len(m.culprits) == 1 else 0.75
                    if m.completed:
                        role, conf = Role.CONTEXT, 0.4
                        text += "; every rank completed it, so it is not what stopped the job"
                    if g.members_inferred:
                        conf = min(conf, 0.6)
                        text += inferred
                    out.append(Finding(
                        rule=RULE_MISMATCH, role=role, cause=Cause.COLLECTIVE_MISMATCH,
                        severity=Severity.ERROR if role is Role.INITIATOR else Severity.INFO, text=text,
                        file=paths.get(r), time=_time(times.get(r)), rank=r,
                        fields=(("pg", g.name), ("pg_desc", g.desc), ("seq", str(m.seq)), ("kind", m.kind),
                                ("op", op_type(sig.op)), ("expected_op", op_type(m.expected.op)),
                                ("culprit_rank", str(r)), ("majority_ranks", rank_list(m.majority)),
                                ("input_sizes", str([list(s) for s in sig.input_sizes])),
                                ("output_sizes", str([list(s) for s in sig.output_sizes])),
                                ("input_dtypes", ",".join(sig.input_dtypes)),
                                ("output_dtypes", ",".join(sig.output_dtypes))),
                        confidence=conf,
                    ))
                if not m.completed:
                    culprit_ranks = [r for r, _s in m.culprits]
                    for r in m.majority:
                        fields = [("pg", g.name), ("seq", str(m.seq)), ("kind", m.kind),
                                  ("op", op_type(m.expected.op))]
                        if len(culprit_ranks) == 1:
                            fields += [("culprit_rank", str(culprit_ranks[0])), ("peer_rank", str(culprit_ranks[0]))]
                        out.append(Finding(
                            rule=RULE_MISMATCH_PEER, role=Role.COLLATERAL, cause=Cause.COLLECTIVE_MISMATCH,
                            severity=Severity.WARNING,
                            text=(f"rank {r} issued {m.expected.describe()} as {where_txt}; "
                                  f"{_ranks_phrase(culprit_ranks)} issued something else"),
                            file=paths.get(r), time=_time(times.get(r)), rank=r, fields=tuple(fields),
                            confidence=0.9,
                        ))
            else:
                calls = "; ".join(f"rank {r}: {s.describe()}" for r, s in m.culprits)
                out.append(Finding(
                    rule=RULE_MISMATCH, role=Role.CONTEXT if m.completed else Role.INITIATOR,
                    cause=Cause.COLLECTIVE_MISMATCH, severity=Severity.ERROR,
                    text=f"the ranks issued different collectives as {where_txt} and no majority names the culprit: {calls}",
                    file=next(iter(paths.values()), None),
                    time=_time(min((t for t in times.values() if t), default=None)),
                    fields=(("pg", g.name), ("seq", str(m.seq)), ("kind", m.kind)),
                    confidence=0.4,
                ))
    return out


def summarise(analysis: FrAnalysis) -> list[str]:
    """One line per process group: last entered/completed collective per rank (for reports and
    debugging)."""
    lines = []
    for g in analysis.groups:
        cells = ", ".join(
            f"{p.rank}: {p.entered}/{p.completed if p.completed is not None else '?'}{' waiting' if p.waiting else ''}"
            if p.has_dump else f"{p.rank}: no dump"
            for p in g.progress
        )
        lines.append(f"{g.label}: last entered/completed collective per rank: {cells}")
    return lines
