"""A file read in another process (parallel replay): a :class:`FileScan` packed in a worker
(:func:`pack_scan`: rules by index, hits with their own cap's grades, no tail lines) and
unpacked or settled in the parent against the run's evidence cap, in the file's turn."""

from __future__ import annotations

import dataclasses
from collections import Counter
from dataclasses import dataclass
from typing import Any

from detector.pipeline.evidence import EvidenceCap, FileCap, Hit
from detector.pipeline.filescan import FileScan
from detector.rules.engine import RuleMatch, RuleSet
from detector.types import Event

PackedHit = tuple[Event, tuple[tuple[int, tuple[tuple[str, str], ...]], ...], tuple[str, ...]]


@dataclass
class PackedScan:
    """A :class:`FileScan` as a worker process sends it back: each match names its rule by its
    index in the RuleSet (both processes hold the same one), the hits come with the grades the
    file's own cap gave them, and what that cap dropped is counted by rule."""

    scan: FileScan
    hits: list[PackedHit]
    grades: list[tuple[bool, bool]]
    dropped: dict[str, int]
    # FileScan.steps with each Event and StepRecord as (its class, its fields): a tuple pickles
    # (and unpickles) about four times as fast as a dataclass
    steps: tuple[str, list[tuple[Any, Any]]] | None = None


def _flat(obj: Any) -> Any:
    return None if obj is None else (type(obj), tuple(getattr(obj, f.name) for f in dataclasses.fields(obj)))


def _unflat(flat: Any) -> Any:
    return None if flat is None else flat[0](*flat[1])


def pack_scan(scan: FileScan, rules: RuleSet) -> PackedScan:
    index = rules.rule_index
    hits = [(h.event, tuple((index(m.rule), m.fields) for m in h.matches), h.context) for h in scan.hits]
    cap = scan.cap
    grades = list(cap.grades) if isinstance(cap, FileCap) else []
    dropped = dict(cap.dropped_by_rule) if isinstance(cap, FileCap) else {}
    light = dataclasses.replace(scan, hits=[], cap=None, tail_keys=[], tail_lines=[], steps=None)
    steps = None if scan.steps is None else (scan.steps[0], [(_flat(ev), _flat(rec)) for ev, rec in scan.steps[1]])
    return PackedScan(light, hits, grades, dropped, steps)


def settle_scan(scan: FileScan, cap: EvidenceCap) -> FileScan:
    """A FileScan read with a :class:`FileCap` of its own, its hits settled against the run's
    ``cap``, in the file's turn."""
    own = scan.cap
    assert isinstance(own, FileCap)
    scan.hits = cap.take(scan.hits, own.grades, own.dropped_by_rule)
    scan.cap = cap
    return scan


def unpack_scan(packed: PackedScan, rules: RuleSet, cap: EvidenceCap) -> FileScan:
    """The FileScan of a worker, its hits (kept by the worker's :class:`FileCap`) settled
    against the run's ``cap``, in the file's turn."""
    scan = packed.scan
    table = rules.rules
    hits = [Hit(ev, tuple(RuleMatch(table[i], fields) for i, fields in matches), context)
            for ev, matches, context in packed.hits]
    scan.hits = cap.take(hits, packed.grades, Counter(packed.dropped))
    scan.cap = cap
    if packed.steps is not None:
        scan.steps = (packed.steps[0], [(_unflat(ev), _unflat(rec)) for ev, rec in packed.steps[1]])
    return scan
