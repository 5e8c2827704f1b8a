"""Flight Recorder dumps -> per process group, where each rank stands, the collective the others
wait in and the rank(s) that never entered it, and the first collective the ranks disagree about
(:func:`analyse`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from detector.sources.flight_recorder.collectives import FrSignature, comparable, mismatch_kind, signature
from detector.sources.flight_recorder.dump import MAX_RANK, FrDump, FrEntry
from detector.support.numbers import spelled_runs


@dataclass(frozen=True, slots=True)
class FrRankProgress:
    """Where one rank stands in one process group."""

    rank: int
    entered: int  # last collective sequence number it entered (enqueued); 0 when none
    completed: int | None  # last one it completed, when the dump says
    waiting: bool  # it entered a collective that it had not completed when it dumped
    last_op: str | None  # the op of its last entered collective, when in its buffer
    has_dump: bool = True


@dataclass(frozen=True, slots=True)
class FrHang:
    """Ranks wait in collective ``seq`` that ``missing`` never entered."""

    seq: int
    op: str
    waiting: tuple[int, ...]
    missing: tuple[int, ...]  # ranks with a dump that never entered it
    no_dump: tuple[int, ...]  # members that left no dump
    since_ns: int | None  # when the first waiting rank entered it
    confidence: float
    note: str = ""
    alone: bool = False  # the job's only rank waits: nothing but its own work can hold it


@dataclass(frozen=True, slots=True)
class FrMismatch:
    """Ranks issued different collectives as the same sequence number."""

    seq: int
    kind: Literal["type", "size", "dtype"]
    expected: FrSignature | None  # the majority's call; None when no majority
    majority: tuple[int, ...]
    culprits: tuple[tuple[int, FrSignature], ...]  # the minority (all calls when no majority)
    completed: bool  # every rank completed it anyway (then it is not what stopped the job)
    times_ns: tuple[tuple[int, int], ...] = ()  # rank -> time_created_ns of its call


@dataclass(frozen=True, slots=True)
class FrGroupAnalysis:
    name: str
    desc: str
    members: tuple[int, ...]
    members_inferred: bool  # no usable pg_config: members are the ranks seen using the group
    progress: tuple[FrRankProgress, ...]
    hang: FrHang | None = None
    lagging: tuple[int, ...] = ()  # behind the others while nobody waits (dump timing, or a hang)
    mismatch: FrMismatch | None = None
    dumps: tuple[tuple[int, str], ...] = ()  # rank -> dump path

    @property
    def label(self) -> str:
        desc = self.desc if self.desc and self.desc != "undefined" else ""
        return f"process group {self.name}" + (f" ({desc})" if desc else "")


@dataclass(frozen=True, slots=True)
class FrAnalysis:
    groups: tuple[FrGroupAnalysis, ...]
    ranks: tuple[int, ...]  # ranks with a dump
    world: tuple[int, ...]  # every rank known to exist
    warnings: tuple[str, ...] = ()
    dumps: tuple[tuple[int, str], ...] = field(default=())


def _known_world(dumps: Sequence[FrDump], world_size: int | None) -> tuple[int, ...]:
    ranks = {d.rank for d in dumps}
    for d in dumps:
        for cfg in d.configs:
            if cfg.ranks and d.rank in cfg.ranks and len(cfg.ranks) <= MAX_RANK:
                ranks |= set(cfg.ranks)
    if world_size is not None and 0 < world_size <= MAX_RANK:
        ranks |= set(range(world_size))
    return tuple(sorted(ranks))


def _dedupe(dumps: Sequence[FrDump]) -> tuple[list[FrDump], list[str]]:
    """One dump per rank: the one that saw the most (a pickle and its JSON twin, or an older dump)."""
    by_rank: dict[int, list[FrDump]] = {}
    for d in dumps:
        by_rank.setdefault(d.rank, []).append(d)
    kept: list[FrDump] = []
    warnings: list[str] = []
    for rank in sorted(by_rank):
        group = by_rank[rank]

        def score(d: FrDump) -> tuple[int, int, int]:
            enq = max((s.last_enqueued or 0 for s in d.status), default=0)
            seq = max((e.collective_seq_id for e in d.entries), default=0)
            return (max(enq, seq), len(d.entries), d.format == "pickle")

        best = max(group, key=score)
        kept.append(best)
        if len(group) > 1:
            others = ", ".join(d.path for d in group if d is not best)
            warnings.append(f"{len(group)} Flight Recorder dumps for rank {rank}: used {best.path}, not {others}")
    return kept, warnings


def _progress(dump: FrDump, name: str, entries: Sequence[FrEntry], pg_ids: set[str]) -> FrRankProgress:
    """``pg_ids``: the ids the group has in the dumps' entries (torch keys pg_status by pg id)."""
    colls = [e for e in entries if not e.is_p2p]
    seq_max = max((e.collective_seq_id for e in colls), default=0)
    statuses = [s for s in dump.status if s.pg_id in pg_ids] or [s for s in dump.status if s.pg_id == name]
    enq = max((s.last_enqueued for s in statuses if s.last_enqueued is not None), default=None)
    comp_status = max((s.last_completed for s in statuses if s.last_completed is not None), default=None)
    entered = max(seq_max, enq or 0, 0)
    done = [e.collective_seq_id for e in colls if e.state == "completed"]
    if comp_status is not None:
        completed: int | None = max(comp_status, 0)
    elif done or any(e.retired for e in colls):
        completed = max(done + [e.collective_seq_id for e in colls if e.retired], default=0)
    else:
        completed = None
    last = [e for e in colls if e.collective_seq_id == entered]
    in_flight = any(e.state != "completed" and not e.retired for e in last) if last else False
    waiting = entered > 0 and ((completed is not None and completed < entered) or (completed is None and in_flight))
    return FrRankProgress(dump.rank, entered, completed, waiting, last[0].op if last else None)


def _one_rank_job(name: str, dumps: Sequence[FrDump], world_size: int | None) -> bool:
    """Whether the job is known to have one rank: the logs say so, or the dump's own default
    group lists that rank alone (rank 0). A lone dump says nothing of the ranks that left none."""
    if world_size is not None:
        return world_size == 1
    return any(cfg.name == name and cfg.desc == "default_pg" and cfg.ranks == (0,) and d.rank == 0
               for d in dumps for cfg in d.configs)


def _members(name: str, desc: str, dumps: Sequence[FrDump], using: set[int], world: tuple[int, ...]
             ) -> tuple[tuple[int, ...], bool]:
    for d in dumps:
        for cfg in d.configs:
            if cfg.name == name and cfg.ranks and d.rank in cfg.ranks:
                return cfg.ranks, False
    if desc == "default_pg" or (name == "0" and desc in ("", "undefined")):
        return world, False
    return tuple(sorted(using)), True


def _analyse_hang(name: str, progress: Sequence[FrRankProgress], no_dump: Sequence[int],
                  by_rank: Mapping[int, Sequence[FrEntry]], inferred: bool) -> tuple[FrHang | None, tuple[int, ...]]:
    if not progress:
        return None, ()
    top = max(p.entered for p in progress)
    if top <= 0:
        return None, ()
    at_top = [p for p in progress if p.entered == top]
    waiting = tuple(sorted(p.rank for p in at_top if p.waiting))
    behind = tuple(sorted(p.rank for p in progress if p.entered < top))
    if not waiting:
        return None, behind
    op = next((e.op for p in at_top for e in by_rank.get(p.rank, ()) if e.collective_seq_id == top and not e.is_p2p),
              next((p.last_op for p in at_top if p.last_op), "") or "")
    since = min((e.time_created_ns for r in waiting for e in by_rank.get(r, ())
                 if e.collective_seq_id == top and not e.is_p2p and e.time_created_ns), default=None)
    if behind:
        confidence = 0.9
        note = ""
        if len(behind) > len(waiting):
            confidence = 0.55
            note = (f"more ranks are behind than waiting: rank(s) {rank_list(waiting)} may instead have issued "
                    "an extra collective")
        if inferred:
            confidence = min(confidence, 0.6)
        return FrHang(top, op, waiting, behind, tuple(no_dump), since, confidence, note), ()
    if no_dump:
        return FrHang(top, op, waiting, (), tuple(no_dump), since, 0.6,
                      "every rank with a dump waits; the rank(s) without one are the suspects"), ()
    return FrHang(top, op, waiting, (), (), since, 0.3, "every rank entered it and none completed it"), ()


def _analyse_mismatch(by_rank: Mapping[int, Sequence[FrEntry]], progress: Mapping[int, FrRankProgress]
                      ) -> FrMismatch | None:
    per_seq: dict[int, dict[int, list[FrEntry]]] = {}
    for rank, entries in by_rank.items():
        for e in entries:
            if not e.is_p2p and e.collective_seq_id > 0:
                per_seq.setdefault(e.collective_seq_id, {}).setdefault(rank, []).append(e)
    for seq in sorted(per_seq):
        calls = per_seq[seq]
        if len(calls) < 2:
            continue
        sigs = {rank: signature(entries) for rank, entries in calls.items()}
        votes = Counter(comparable(s) for s in sigs.values())
        if len(votes) < 2:
            continue
        (top_key, top_n), (_second_key, second_n) = votes.most_common(2)
        times = tuple(sorted((r, min((e.time_created_ns or 0) for e in es)) for r, es in calls.items()))
        completed = all((progress[r].completed or 0) >= seq for r in calls if r in progress)
        if top_n > second_n:
            majority = tuple(sorted(r for r, s in sigs.items() if comparable(s) == top_key))
            expected = sigs[majority[0]]
            culprits = tuple((r, s) for r, s in sorted(sigs.items()) if comparable(s) != top_key)
            kind = mismatch_kind(expected, culprits[0][1])
            return FrMismatch(seq, kind, expected, majority, culprits, completed, times)
        sig_list = sorted(sigs.items())
        kind = mismatch_kind(sig_list[0][1], next(s for _r, s in sig_list if comparable(s) != comparable(sig_list[0][1])))
        return FrMismatch(seq, kind, None, (), tuple(sig_list), completed, times)
    return None


def analyse(dumps: Sequence[FrDump], *, world_size: int | None = None) -> FrAnalysis:
    """Per process group: where each rank stands, the collective the others wait in and the
    rank(s) that never entered it, and the first collective the ranks disagree about.

    ``world_size`` (from the logs, when known) lets a rank that left no dump count as a member of
    the default group."""
    kept, warnings = _dedupe(dumps)
    for d in kept:
        warnings.extend(d.warnings)
    world = _known_world(kept, world_size)
    # group entries by process group name (pg names agree across ranks: torch assigns them in the
    # same order on every rank)
    groups: dict[str, dict[int, list[FrEntry]]] = {}
    descs: dict[str, str] = {}
    for d in kept:
        for e in d.entries:
            groups.setdefault(e.pg_name, {}).setdefault(d.rank, []).append(e)
            if e.pg_desc and descs.get(e.pg_name) in (None, "", "undefined"):
                descs[e.pg_name] = e.pg_desc
    # pg ids are assigned in the same order on every rank: one map for all dumps
    ids_of: dict[str, set[str]] = {}
    for d in kept:
        for e in d.entries:
            if e.pg_id is not None:
                ids_of.setdefault(e.pg_name, set()).add(str(e.pg_id))
    mapped = set().union(*ids_of.values()) if ids_of else set()
    for d in kept:  # groups known only from pg_status (their entries rotated out of every ring)
        for st in d.status:
            if st.pg_id not in mapped and st.pg_id not in groups and (st.last_enqueued or 0) > 0:
                groups.setdefault(st.pg_id, {})
    out: list[FrGroupAnalysis] = []
    dump_of = {d.rank: d for d in kept}
    for name in sorted(groups, key=lambda n: (not n.isdigit(), int(n) if n.isdigit() else 0, n)):
        by_rank = groups[name]
        desc = descs.get(name, "")
        ids = ids_of.get(name, set()) | ({name} if not by_rank else set())
        using = set(by_rank) | {
            d.rank for d in kept for st in d.status if st.pg_id in ids and (st.last_enqueued or 0) > 0
        }
        members, inferred = _members(name, desc, kept, using, world)
        pg_ids = ids_of.get(name, set())
        progress = [_progress(dump_of[r], name, by_rank.get(r, ()), pg_ids) for r in members if r in dump_of]
        no_dump = tuple(r for r in members if r not in dump_of)
        prog_map = {p.rank: p for p in progress}
        hang, lagging = _analyse_hang(name, progress, no_dump, by_rank, inferred)
        if hang is not None and not hang.missing and not hang.no_dump and len(world) == 1 \
                and tuple(members) == world == hang.waiting and _one_rank_job(name, kept, world_size):
            # a job of one rank has no peer to wait for: what it waits in, its own stream holds
            hang = replace(hang, alone=True, confidence=0.7,
                           note="no peer can hold it: its own GPU work did not finish")
        mismatch = _analyse_mismatch(by_rank, prog_map)
        progress += [FrRankProgress(r, 0, None, False, None, has_dump=False) for r in no_dump]
        out.append(FrGroupAnalysis(
            name=name,
            desc=desc,
            members=tuple(members),
            members_inferred=inferred,
            progress=tuple(sorted(progress, key=lambda p: p.rank)),
            hang=hang,
            lagging=lagging,
            mismatch=mismatch,
            dumps=tuple(sorted((r, dump_of[r].path) for r in members if r in dump_of)),
        ))
    return FrAnalysis(
        groups=tuple(out),
        ranks=tuple(sorted(dump_of)),
        world=world,
        warnings=tuple(warnings),
        dumps=tuple(sorted((d.rank, d.path) for d in kept)),
    )


def rank_list(ranks: Iterable[int]) -> str:
    """``0-2, 5, 7-9``."""
    parts = spelled_runs(ranks)
    return ", ".join(parts)
