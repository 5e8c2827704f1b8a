"""How the one-scan prefilter sees a rule's pattern, and the literal text a rule's every match holds."""

from __future__ import annotations

import re
import re._constants as _c  # type: ignore[import-not-found,unused-ignore]  # the sre parser: no public API
import re._parser as _p  # type: ignore[import-not-found,unused-ignore]
from typing import Any

_REPEATS = {_c.MAX_REPEAT, _c.MIN_REPEAT} | ({_c.POSSESSIVE_REPEAT} if hasattr(_c, "POSSESSIVE_REPEAT") else set())
_ATOMIC = getattr(_c, "ATOMIC_GROUP", None)

_NAMED_GROUP = re.compile(r"\(\?P<[A-Za-z_]\w*>")
_LEADING_FLAGS = re.compile(r"^\(\?([aiLmsux]+)\)")


def prefilter_pattern(pattern: str) -> str:
    """The pattern as the prefilter sees it: no leading ``^`` (the message starts after a rank
    prefix), named groups made plain, leading inline flags scoped (``(?i)x`` -> ``(?i:x)``) so
    that patterns can be joined into one alternation."""
    if pattern.startswith("^"):
        pattern = pattern[1:]
    m = _LEADING_FLAGS.match(pattern)
    if m:
        pattern = f"(?{m.group(1)}:{pattern[m.end():]})"
    return _NAMED_GROUP.sub("(?:", pattern)



MIN_LITERAL = 3  # shorter required literals narrow too little to be worth a check

Need = list[str]  # texts of which every match holds at least one


def _flush(current: list[str], needs: list[Need]) -> None:
    if current:
        needs.append(["".join(current)])
        current.clear()


def _collect(items: Any, needs: list[Need], current: list[str]) -> None:
    """What every match of the sequence ``items`` must hold: runs of characters matched exactly
    once and in a row (through plain groups: a group matches once, so its literals continue the
    run), the same inside repeats of at least one iteration, and for an alternation one text per
    branch. Optional parts, classes and look-arounds end a run; ``current`` is flushed by the
    caller (a group's last literals may go on after it)."""
    for op, av in items:
        if op == _c.LITERAL:
            current.append(chr(av))
            continue
        if op == _c.SUBPATTERN:
            _collect(av[-1], needs, current)
            continue
        _flush(current, needs)
        if op in _REPEATS and av[0] >= 1:
            best = _best(av[2])
        elif op == _ATOMIC:
            best = _best(av)
        elif op == _c.BRANCH:
            needs_of = [_best(branch) for branch in av[1]]
            # a branch that needs nothing: the alternation needs nothing
            best = None if any(n is None for n in needs_of) else [t for n in needs_of if n for t in n]
        else:
            best = None
        if best is not None:
            needs.append(best)


def _score(need: Need) -> tuple[int, int]:
    return min(len(x) for x in need), -len(need)


def _best(items: Any) -> Need | None:
    needs: list[Need] = []
    current: list[str] = []
    _collect(items, needs, current)
    _flush(current, needs)
    return max(needs, key=_score) if needs else None


def required_literals(pattern: str, flags: int = re.ASCII) -> tuple[tuple[str, ...], bool] | None:
    """Texts of which every match of ``pattern`` holds one (often a single text), and whether
    they are to be compared case-insensitively (lower-cased: wherever ``(?i)`` applies in the
    pattern, conservatively for all of it); None when each would be shorter than
    :data:`MIN_LITERAL` characters or the pattern cannot be analysed. ``any(t in text)`` is then
    necessary for ``re.search(pattern, text)`` (compared lower-cased when so marked)."""
    try:
        parsed = _p.parse(pattern, flags)
        best = _best(parsed)
        if best is None or _score(best)[0] < MIN_LITERAL:
            return None
        nocase = bool(parsed.state.flags & re.IGNORECASE) or _has_ignorecase(parsed)
    except Exception:  # whatever the parser refuses, or nests too deeply to walk (RecursionError):
        return None  # the rule is just not narrowed
    texts = tuple(dict.fromkeys(x.lower() for x in best)) if nocase else tuple(dict.fromkeys(best))
    return texts, nocase


def _has_ignorecase(items: Any) -> bool:
    for op, av in items:
        if op == _c.SUBPATTERN:
            if av[1] & re.IGNORECASE or _has_ignorecase(av[-1]):
                return True
        elif op in _REPEATS:
            if _has_ignorecase(av[2]):
                return True
        elif op == _c.BRANCH:
            if any(_has_ignorecase(b) for b in av[1]):
                return True
        elif op in (_c.ASSERT, _c.ASSERT_NOT):
            if _has_ignorecase(av[1]):
                return True
        elif op == _ATOMIC and _has_ignorecase(av):
            return True
    return False
