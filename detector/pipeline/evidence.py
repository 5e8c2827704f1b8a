"""Which matched lines are kept as evidence: a :class:`Hit` is one matched line; the
:class:`EvidenceCap` bounds how many are kept across a run's files (or a sidecar's lifetime)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from detector.rules.engine import RuleMatch
from detector.rules.loader import CompiledRule
from detector.types import Event, Role

MAX_SURPLUS_HITS = 4096  # hits kept beyond the first of their kind (below), across all files
KEEP_FIRST = 8  # per file, prefix rank and rules: the first collateral/context hits, always kept
KEEP_FIRST_INITIATOR = 64  # … the first initiator-grade and who-is-who (NCCL init) hits


@dataclass(frozen=True, slots=True)
class Hit:
    event: Event
    matches: tuple[RuleMatch, ...]
    context: tuple[str, ...] = ()


HitKey = tuple[str, int | None, tuple[str, ...]]


class MatchLike(Protocol):
    """A matched rule as the cap reads it: :class:`RuleMatch`, or the reader's
    :class:`~detector.rules.engine.Verified` (its fields read when asked for)."""

    @property
    def rule(self) -> CompiledRule: ...

    @property
    def fields(self) -> tuple[tuple[str, str], ...]: ...


def is_index_match(matches: Sequence[MatchLike]) -> bool:
    """Matches that say who is who (NCCL's init lines: rank, bus id, pid, host), which
    :func:`build_index` reads whatever their time."""
    return any(k == "busid" for m in matches for k, _ in m.fields)


def is_index_hit(hit: Hit) -> bool:
    return is_index_match(hit.matches)


class Admission(Protocol):
    """What decides whether a hit is kept (:class:`EvidenceCap`, or the sidecar's wrapper that
    knows the lines already looked at)."""

    def admit(self, file: str, line: int, rank: int | None, matches: Sequence[MatchLike]) -> bool: ...


class EvidenceCap:
    """A bound on the matched lines kept, across files, so that a burst (100,000 watchdog
    timeouts from 512 ranks) costs bounded memory: the first :data:`KEEP_FIRST` hits of each
    (file, prefix rank, rules) are always kept (:data:`KEEP_FIRST_INITIATOR` when initiator-grade
    or who-is-who: attribution's timeline, each rank's first error and first collateral, its GPU
    and pid come from these); later ones ("surplus", the same rule again on the same rank) are
    kept while fewer than ``limit`` are, and dropped after, counted in :attr:`dropped` (and per
    rule) so that a report can say so. A hard bound of ``4 * limit`` applies to the always-kept
    collateral and context hits as well (a log with ever new prefix ranks); initiator-grade
    first hits are never dropped."""

    def __init__(self, limit: int = MAX_SURPLUS_HITS, *, first: int = KEEP_FIRST,
                 first_initiator: int = KEEP_FIRST_INITIATOR) -> None:
        self.limit = limit
        self.first = first
        self.first_initiator = first_initiator
        self.surplus = 0  # surplus hits kept
        self.protected = 0  # first hits of their key kept (not initiator-grade)
        self.dropped = 0
        self.dropped_by_rule: Counter[str] = Counter()
        self._seen: dict[HitKey, int] = {}
        self._grades: dict[tuple[str, ...], tuple[bool, bool]] = {}  # rule ids -> (initiator, may say who is who)
        self._single: dict[str, tuple[str, ...]] = {}

    def _first(self, ids: tuple[str, ...], matches: Sequence[MatchLike]) -> tuple[int, bool]:
        """How many first hits of these matches' key are kept; whether they are initiator-grade."""
        grade = self._grades.get(ids)
        if grade is None:
            initiator = any(m.rule.role is Role.INITIATOR for m in matches)
            may_index = any("busid" in m.rule.regex.groupindex for m in matches)
            grade = self._grades[ids] = (initiator, may_index)
        initiator, may_index = grade
        return (self.first_initiator if initiator or (may_index and is_index_match(matches)) else self.first), initiator

    def admit(self, file: str, line: int, rank: int | None, matches: Sequence[MatchLike]) -> bool:
        """Whether to keep the hit of line ``line`` of ``file`` (prefix rank ``rank``), a line not
        offered before; counts it either way."""
        first, initiator = self.grade(file, rank, matches)
        return self.settle(first, initiator, matches)

    def grade(self, file: str, rank: int | None, matches: Sequence[MatchLike]) -> tuple[bool, bool]:
        """Whether a hit is one of the first of its key (counting it) and initiator-grade."""
        ids: tuple[str, ...] | None
        if len(matches) == 1:  # the usual case: one rule, its ids tuple made once
            rule_id = matches[0].rule.id
            ids = self._single.get(rule_id)
            if ids is None:
                ids = self._single[rule_id] = (rule_id,)
        else:
            ids = tuple(m.rule.id for m in matches)
        key = (file, rank, ids)
        n = self._seen.get(key, 0)
        first, initiator = self._first(ids, matches)
        if n < first:
            self._seen[key] = n + 1
            return True, initiator
        return False, initiator

    def settle(self, first: bool, initiator: bool, matches: Sequence[MatchLike]) -> bool:
        """Keep or drop a graded hit (:meth:`grade`), against the run-wide bounds."""
        if first:
            if initiator:
                return True
            if self.protected < 4 * self.limit:
                self.protected += 1
                return True
        if self.surplus < self.limit:
            self.surplus += 1
            return True
        self.dropped += 1
        for m in matches:
            self.dropped_by_rule[m.rule.id] += 1
        return False

    def file_cap(self) -> FileCap:
        """A cap with the same bounds for one file read apart from the others (a worker process
        of a parallel replay); :meth:`take` settles what it kept against this one."""
        return FileCap(self.limit, first=self.first, first_initiator=self.first_initiator)

    def take(self, hits: Sequence[Hit], grades: Sequence[tuple[bool, bool]], dropped: Counter[str]) -> list[Hit]:
        """The hits of one file that a :class:`FileCap` kept (with their grades), settled as if
        this cap had been offered the file's lines itself, after those of the files before it:
        a hit the file's own cap dropped would have been dropped here too (its bounds are the
        same and its counts never higher), so the result is the same. ``dropped``: the file
        cap's drops by rule."""
        kept = [hit for hit, (first, initiator) in zip(hits, grades, strict=True)
                if self.settle(first, initiator, hit.matches)]
        self.dropped += sum(dropped.values())
        self.dropped_by_rule.update(dropped)
        return kept

    def recount(self, hits: Iterable[tuple[str, Hit]]) -> None:
        """Start counting afresh over the hits still kept (after some were let go): first hits
        are those of each key from now on. The dropped counts stay."""
        self._seen.clear()
        self.surplus = self.protected = 0
        for file, hit in hits:
            ids = tuple(m.rule.id for m in hit.matches)
            key = (file, hit.event.rank, ids)
            n = self._seen.get(key, 0)
            first, initiator = self._first(ids, hit.matches)
            if n < first:
                self._seen[key] = n + 1
                self.protected += 0 if initiator else 1
            else:
                self.surplus += 1

    def summary(self) -> str | None:
        """What was not kept, for a report; None when nothing was dropped."""
        if not self.dropped:
            return None
        top = ", ".join(f"{rule} {n}" for rule, n in self.dropped_by_rule.most_common(5))
        return (f"{self.dropped} matched lines not kept as evidence (the first of each rule on each rank "
                f"were; {self.limit} repeats kept in all): {top}")


class FileCap(EvidenceCap):
    """:class:`EvidenceCap` for one file read on its own: it also remembers the grade of each
    hit it keeps (:attr:`grades`, in order), for :meth:`EvidenceCap.take`."""

    def __init__(self, limit: int = MAX_SURPLUS_HITS, *, first: int = KEEP_FIRST,
                 first_initiator: int = KEEP_FIRST_INITIATOR) -> None:
        super().__init__(limit, first=first, first_initiator=first_initiator)
        self.grades: list[tuple[bool, bool]] = []

    def admit(self, file: str, line: int, rank: int | None, matches: Sequence[MatchLike]) -> bool:
        grade = self.grade(file, rank, matches)
        if self.settle(*grade, matches):
            self.grades.append(grade)
            return True
        return False
