"""Super-linear patterns that :func:`safety.backtracking_risk` lets through.

``safety`` catches nested unbounded repeats (``(a+)+``). These checks add the other classic
shapes, each of which makes Python's backtracking ``re`` exponential or polynomial of a high
degree on a crafted (or just unlucky) log line:

- a repeated alternation whose branches start alike, also non-capturing and after sre has
  factored a common prefix out of the branches (``(?:a|b|ab)*``, ``(a|aa)+``);
- a repeat whose body ends in an optional part that can start like the body (``(ab?a?)+``);
- a bounded repeat of a body holding an unbounded repeat without a clear boundary between
  iterations (``(.*,){11}``, ``(.*a){20}``), or a repeat whose count varies widely holding one that
  does (``(?:[a-z]{1,40} ?){1,40}``: a run of letters splits into its iterations in very many ways);
- two adjacent unbounded repeats over overlapping characters (``\\s*\\s*``, ``.*.*=``).

`rules validate` and the sidecar's reloader refuse such patterns (see authoring.py).
"""

from __future__ import annotations

import itertools
import re
import re._constants as _c  # type: ignore[import-not-found,unused-ignore]  # the sre parser: no public API
import re._parser as _p  # type: ignore[import-not-found,unused-ignore]
from typing import Any

# safety.py knows single-character items and unbounded repeats; sharing its helpers keeps one
# notion of "character set" for both checks.
from detector.rules.safety import _charset, _has_unbounded

_UNBOUNDED = _c.MAXREPEAT
_REPEATS = {_c.MAX_REPEAT, _c.MIN_REPEAT} | ({_c.POSSESSIVE_REPEAT} if hasattr(_c, "POSSESSIVE_REPEAT") else set())
_ZERO_WIDTH = {_c.AT, _c.ASSERT, _c.ASSERT_NOT}

First = tuple[frozenset[int], bool]  # (characters a match can start with, can match empty)


def _first(items: Any) -> First | None:
    """The possible first characters of a sequence and whether it can match the empty string;
    None when not easy to know (backreferences, conditionals)."""
    out: set[int] = set()
    for item in items:
        op, av = item
        if op in _ZERO_WIDTH:
            continue
        chars = _charset(item)
        if chars is not None:
            return frozenset(out | chars), False
        sub: First | None
        if op == _c.SUBPATTERN:
            sub = _first(av[-1])
        elif op == _c.BRANCH:
            subs = [_first(b) for b in av[1]]
            if any(s is None for s in subs):
                return None
            sub = (frozenset().union(*(s[0] for s in subs if s)), any(s[1] for s in subs if s))
        elif op in _REPEATS:
            lo, _hi, body = av
            inner = _first(body)
            sub = None if inner is None else (inner[0], inner[1] or lo == 0)
        else:
            return None
        if sub is None:
            return None
        out |= sub[0]
        if not sub[1]:
            return frozenset(out), False
    return frozenset(out), True


def _unwrap(body: Any) -> list[Any]:
    items = list(body)
    while len(items) == 1 and items[0][0] == _c.SUBPATTERN:
        items = list(items[0][1][-1])
    return items


def _overlapping_branches(items: list[Any]) -> bool:
    if len(items) != 1 or items[0][0] != _c.BRANCH:
        return False
    seen: set[int] = set()
    for branch in items[0][1][1]:
        first = _first(branch)
        if first is None or first[1] or seen & first[0]:
            return True
        seen |= first[0]
    return False


def _ambiguous_tail(items: list[Any]) -> bool:
    """The body ends in optional items whose first characters overlap the body's own: one
    iteration can then end early or late, and the split between iterations is ambiguous."""
    body_first = _first(items)
    if body_first is None:
        return False
    cut = len(items)
    while cut > 0:
        f = _first(items[cut - 1 : cut])
        if f is None or not f[1]:
            break
        cut -= 1
    if cut == len(items) or cut == 0:
        return False
    tail = _first(items[cut:])
    return tail is not None and bool(tail[0] & body_first[0])


def _single_repeat_chars(item: Any) -> tuple[set[int], int] | None:
    """(characters, minimum count) of a repeat of one character class, else None."""
    op, av = item
    if op not in _REPEATS:
        chars = _charset(item)
        return (chars, 1) if chars is not None else None
    lo, _hi, body = av
    body = list(body)
    if len(body) != 1:
        return None
    chars = _charset(body[0])
    return (chars, lo) if chars is not None else None


WIDE_SPAN = 4  # a counted repeat whose count may vary this much ({1,40}) splits a run many ways


def _varies(av: Any) -> bool:
    """A repeat whose count may vary at all ({1,3}, unbounded)."""
    lo, hi, _body = av
    return bool(hi == _UNBOUNDED or hi > lo)


def _has_varying(items: Any) -> bool:
    for op, av in items:
        if op in _REPEATS:
            if _varies(av) or _has_varying(av[2]):
                return True
        elif (op == _c.SUBPATTERN and _has_varying(av[-1])) or (op == _c.BRANCH and any(_has_varying(b) for b in av[1])):
            return True
    return False


def _fenced(items: list[Any], i: int, chars: set[int]) -> bool:
    """Between the repeat at ``i`` and its next turn (cyclically: the body repeats) a mandatory
    item it cannot match: where one iteration ends is then fixed ("0x[0-9a-f]{1,16} ?": the "x")."""
    for k in range(1, len(items)):
        got = _single_repeat_chars(items[(i + k) % len(items)])
        if got is None:
            return False  # (a group or an alternation there: not easy to know)
        if got[1] >= 1 and not got[0] & chars:
            return True
    return False


def _cyclic_separated(items: list[Any], *, wide: bool = False) -> bool:
    """Every unbounded repeat repeats one character class and is followed (cyclically, since
    the body repeats) by a mandatory item it cannot match: iterations split one way only.
    ``wide`` (the body of a repeat whose count varies widely): every repeat whose count varies
    at all, and a mandatory item it cannot match anywhere before its next turn will do."""
    for i, (op, av) in enumerate(items):
        if op in _REPEATS and (av[1] == _UNBOUNDED or (wide and _varies(av))):
            here = _single_repeat_chars((op, av))
            if here is None:
                return False
            if wide:
                if not _fenced(items, i, here[0]):
                    return False
                continue
            nxt = _single_repeat_chars(items[(i + 1) % len(items)])
            if nxt is None or nxt[1] < 1 or here[0] & nxt[0]:
                return False
        elif op in (_c.SUBPATTERN, _c.BRANCH) and (_has_varying([(op, av)]) if wide else _has_unbounded([(op, av)])):
            return False
    return True


def _adjacent_overlap(items: list[Any]) -> bool:
    for a, b in itertools.pairwise(items):
        if a[0] in _REPEATS and b[0] in _REPEATS and a[1][1] == _UNBOUNDED and b[1][1] == _UNBOUNDED:
            ca, cb = _single_repeat_chars(a), _single_repeat_chars(b)
            if ca is None or cb is None or ca[0] & cb[0]:
                return True
    return False


def _walk(items: Any) -> str | None:
    items = list(items)
    if _adjacent_overlap(items):
        return "two adjacent unbounded repeats can match the same characters"
    for op, av in items:
        if op in _REPEATS:
            _lo, hi, body = av
            inner = _unwrap(body)
            if hi == _UNBOUNDED:
                if _overlapping_branches(inner):
                    return "an unbounded repeat of an alternation whose branches can start alike"
                if _ambiguous_tail(inner):
                    return "an unbounded repeat whose body ends in an optional part that can start like the body"
            elif hi > 1 and _has_unbounded(body) and not _cyclic_separated(inner):
                return f"a repeat of up to {hi} holds an unbounded repeat without a clear boundary between iterations"
            elif hi - _lo >= WIDE_SPAN and _overlapping_branches(inner):
                return f"a repeat of up to {hi} of an alternation whose branches can start alike"
            elif hi - _lo >= WIDE_SPAN and _ambiguous_tail(inner):
                return f"a repeat of up to {hi} whose body ends in an optional part that can start like the body"
            elif hi - _lo >= WIDE_SPAN and _has_varying(body) and not _cyclic_separated(inner, wide=True):
                return (f"a repeat of up to {hi} holds a repeat of varying count without a clear boundary between "
                        "iterations: a run of its characters splits into them in very many ways")
            found = _walk(body)
        elif op == _c.SUBPATTERN:
            found = _walk(av[-1])
        elif op == _c.BRANCH:
            found = next((f for f in (_walk(b) for b in av[1]) if f), None)
        elif op in (_c.ASSERT, _c.ASSERT_NOT):
            found = _walk(av[1])
        else:
            found = None
        if found:
            return found
    return None


def superlinear_risk(pattern: str) -> str | None:
    """Why ``pattern`` may take super-linear time beyond what ``backtracking_risk`` reports,
    or None."""
    try:
        parsed = _p.parse(pattern, re.ASCII)
    except re.error:
        return None  # reported by the compile check
    return _walk(list(parsed))
