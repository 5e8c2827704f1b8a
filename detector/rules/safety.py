"""Static check for patterns at risk of catastrophic backtracking in Python's ``re``: an
unbounded repeat whose body holds another unbounded repeat (``(a+)+``, ``(\\s*\\w+)*``), or an
unbounded repeat of an alternation whose branches can match the same text (``(a|a)*``)."""

from __future__ import annotations

import re
from typing import Any

try:  # Python 3.11+
    import re._constants as _c  # type: ignore[import-not-found,unused-ignore]
    import re._parser as _p  # type: ignore[import-not-found,unused-ignore]
except ImportError:  # pragma: no cover
    import sre_constants as _c  # type: ignore[no-redef,unused-ignore]
    import sre_parse as _p  # type: ignore[no-redef,unused-ignore]

_UNBOUNDED = _c.MAXREPEAT
_REPEATS = {_c.MAX_REPEAT, _c.MIN_REPEAT}
_POSSESSIVE = getattr(_c, "POSSESSIVE_REPEAT", None)
if _POSSESSIVE is not None:
    _REPEATS.add(_POSSESSIVE)


def _has_unbounded(items: Any) -> bool:
    for op, av in items:
        if op in _REPEATS:
            _lo, hi, body = av
            if hi == _UNBOUNDED or hi > 1000:
                return True
            if _has_unbounded(body):
                return True
        elif (op == _c.SUBPATTERN and _has_unbounded(av[-1])) or (op == _c.BRANCH and any(_has_unbounded(b) for b in av[1])):
            return True
    return False


def _first_literals(items: Any) -> set[int] | None:
    """The set of possible first characters when easy to know, else None (unknown)."""
    for op, av in items:
        if op == _c.LITERAL:
            return {av}
        if op == _c.SUBPATTERN:
            return _first_literals(av[-1])
        return None
    return None


_ASCII = range(128)


def _category(cat: Any) -> set[int]:
    name = str(cat).upper()
    if "DIGIT" in name:
        base = {c for c in _ASCII if chr(c).isdigit()}
    elif "WORD" in name:
        base = {c for c in _ASCII if chr(c).isalnum() or c == ord("_")}
    elif "SPACE" in name:
        base = {c for c in _ASCII if chr(c) in " \t\n\r\f\v"}
    else:
        base = set(_ASCII)
    return set(_ASCII) - base if "NOT" in name else base


def _charset(item: Any) -> set[int] | None:
    """The characters a single-character item can match (ASCII), or None if not single-char."""
    op, av = item
    if op == _c.LITERAL:
        return {av}
    if op == _c.NOT_LITERAL:
        return set(_ASCII) - {av}
    if op == _c.ANY:
        return set(_ASCII) - {10}
    if op == _c.IN:
        out: set[int] = set()
        negate = False
        for sop, sav in av:
            if sop == _c.NEGATE:
                negate = True
            elif sop == _c.LITERAL:
                out.add(sav)
            elif sop == _c.RANGE:
                out |= set(range(sav[0], min(sav[1], 127) + 1))
            elif sop == _c.CATEGORY:
                out |= _category(sav)
            else:
                return None
        return set(_ASCII) - out if negate else out
    if op == _c.SUBPATTERN and len(av[-1]) == 1:
        return _charset(av[-1][0])
    return None


def _separated(body: Any) -> bool:
    """True when every unbounded repeat inside ``body`` repeats one character class and is
    followed by a mandatory character it cannot match (``[a-z]\\w*\\.``): the split between
    iterations is then unambiguous and matching stays linear."""
    items = list(body)
    if len(items) == 1 and items[0][0] == _c.SUBPATTERN:
        items = list(items[0][1][-1])
    found = False
    for i, (op, av) in enumerate(items):
        if op in _REPEATS:
            _lo, hi, inner = av
            if hi != _UNBOUNDED:
                if _has_unbounded(inner):
                    return False
                continue
            found = True
            inner_items = list(inner)
            chars = _charset(inner_items[0]) if len(inner_items) == 1 else None
            if chars is None or i + 1 >= len(items):
                return False
            following = _charset(items[i + 1])
            if following is None or chars & following:
                return False
        elif op in (_c.SUBPATTERN, _c.BRANCH) and _has_unbounded([(op, av)]):
            return False
    return found


def _alternations(body: Any) -> list[Any]:
    """The branch lists of the alternations a repeat's body holds in its own sequence (through
    groups, not into nested repeats). The parser factors a common prefix out of an alternation:
    ``(x|x)`` is read as ``x`` then a choice of two empty branches, ``(a|ab)`` as ``a`` then
    ``(|b)``: the choice is then not the group's only item."""
    out: list[Any] = []
    for op, av in body:
        if op == _c.BRANCH:
            out.append(av[1])
        elif op == _c.SUBPATTERN:
            out.extend(_alternations(av[-1]))
    return out


def _walk(items: Any) -> str | None:
    for op, av in items:
        if op in _REPEATS:
            _lo, hi, body = av
            if hi == _UNBOUNDED and _has_unbounded(body) and not _separated(body):
                return "an unbounded repeat contains another unbounded repeat"
            if hi == _UNBOUNDED:
                for branches in _alternations(body):
                    firsts = [_first_literals(b) for b in branches]
                    if any(f is None for f in firsts):
                        return "an unbounded repeat of an alternation whose branches may overlap"
                    seen: set[int] = set()
                    for f in firsts:
                        assert f is not None
                        if seen & f:
                            return "an unbounded repeat of an alternation whose branches overlap"
                        seen |= f
            found = _walk(body)
            if found:
                return found
        elif op == _c.SUBPATTERN:
            found = _walk(av[-1])
            if found:
                return found
        elif op == _c.BRANCH:
            for b in av[1]:
                found = _walk(b)
                if found:
                    return found
        elif op in (_c.ASSERT, _c.ASSERT_NOT):
            found = _walk(av[1])
            if found:
                return found
    return None


def backtracking_risk(pattern: str) -> str | None:
    """Why ``pattern`` may backtrack catastrophically, or None if it looks linear."""
    try:
        parsed = _p.parse(pattern, re.ASCII)
    except re.error:
        return None  # compile errors are reported elsewhere
    return _walk(list(parsed))
