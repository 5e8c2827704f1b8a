"""Pattern rewriting for hyperscan: :func:`trimmed` drops what no match needs at a pattern's end,
:func:`relaxed` opens large counted repeats. Each rewritten pattern matches the same lines (or,
relaxed, a superset: all a prefilter and a selector need) and compiles and scans faster."""

from __future__ import annotations

import re
import warnings

RELAX_REPEATS = 100
_COUNTED = re.compile(r"\{(\d+),(\d+)\}")


def relaxed(pattern: str, limit: int = RELAX_REPEATS) -> str:
    """``pattern`` with each counted repeat of more than ``limit`` (``x{0,600}``) made open
    (``x{0,}``): hyperscan matches a superset of the lines, which is all a prefilter (and a
    selector) needs, and compiles the rule set in about half the time (large counted repeats
    are what its compiler spends its time on)."""
    out: list[str] = []
    i = 0
    n = len(pattern)
    in_class = False
    while i < n:
        c = pattern[i]
        if c == "\\":
            out.append(pattern[i : i + 2])
            i += 2
            continue
        if in_class:
            in_class = c != "]"
            out.append(c)
            i += 1
            continue
        if c == "[":
            in_class = True
            out.append(c)
            i += 1
            for first in ("^", "]"):  # "[^]...]" / "[]...]": a leading "]" is a character
                if i < n and pattern[i] == first:
                    out.append(first)
                    i += 1
            continue
        if c == "{":
            m = _COUNTED.match(pattern, i)
            if m is not None and int(m.group(2)) > limit:
                out.append(f"{{{m.group(1)},}}")
                i = m.end()
                continue
        out.append(c)
        i += 1
    return "".join(out)


_QUANT = re.compile(r"(?:[*+?]|\{(\d+)(?:(,)(\d*))?\})[?+]?")
_ESCAPE_LEN = {"x": 4, "u": 6, "U": 10}
_LOOKAROUND = ("(?=", "(?!", "(?<=", "(?<!")


def _atom_end(p: str, i: int) -> int | None:
    """Where the atom starting at ``p[i]`` ends (a character, escape, class or group); None for
    what this reading does not know."""
    c = p[i]
    if c == "\\":
        if i + 1 >= len(p):
            return None
        e = p[i + 1]
        if e == "N":
            close = p.find("}", i)
            return None if close < 0 else close + 1
        if e.isdigit():
            return None  # a back-reference or an octal escape
        return i + _ESCAPE_LEN.get(e, 2)
    if c == "[":
        j = i + 1
        if j < len(p) and p[j] == "^":
            j += 1
        if j < len(p) and p[j] == "]":
            j += 1
        while j < len(p):
            if p[j] == "\\":
                j += 2
                continue
            if p[j] == "]":
                return j + 1
            j += 1
        return None
    if c == "(":
        depth = 0
        j = i
        while j < len(p):
            ch = p[j]
            if ch == "\\":
                j += 2
                continue
            if ch == "[":
                end = _atom_end(p, j)
                if end is None:
                    return None
                j = end
                continue
            if ch == "(":
                depth += 1
            elif ch == ")":
                depth -= 1
                if depth == 0:
                    return j + 1
            j += 1
        return None
    if c in ")|*+?{":
        return None
    return i + 1


def _items(p: str) -> list[tuple[str, str, int]] | None:
    """The sequence ``p`` as (atom, quantifier, least count) items; None when it is an
    alternation at this level or holds what this reading does not know."""
    out: list[tuple[str, str, int]] = []
    i = 0
    while i < len(p):
        if p[i] == "|":
            return None
        end = _atom_end(p, i)
        if end is None:
            return None
        atom = p[i:end]
        m = _QUANT.match(p, end)
        if m is None:
            out.append((atom, "", 1))
            i = end
            continue
        q = m.group(0)
        least = 0 if q[0] in "*?" else 1 if q[0] == "+" else int(m.group(1))
        out.append((atom, q, least))
        i = m.end()
    return out


def trimmed(pattern: str) -> str:
    """``pattern`` less what no match needs at its end: trailing optional parts are dropped and
    a trailing ``x+`` / ``x{2,5}`` keeps its least count (also inside a trailing plain group).
    A text holds a match of the pattern exactly when it holds a match of this one (a line
    matches both or neither), and hyperscan, which reports every end of a match, reports one or
    two a line instead of one per character of a ``[A-Z_]+`` at the end."""
    items = _items(pattern)
    if not items:
        return pattern
    while items:
        atom, quant, least = items[-1]
        if least == 0:
            items.pop()
            continue
        if atom in ("$", "^", "\\b", "\\B", "\\Z", "\\A") or atom.startswith(_LOOKAROUND):
            break  # an assertion at the end is kept: it decides which lines match
        if atom.startswith("(") and not quant and not atom.startswith(("(?P=", "(?#")):
            body_start = 1
            if atom.startswith("(?"):
                colon = atom.find(":")
                if colon < 0 or not re.fullmatch(r"\(\?(?:P<\w+>|[aiLmsux-]*)", atom[:colon]):
                    break
                body_start = colon + 1
            inner = trimmed(atom[body_start:-1])
            if inner == "" or (_items(atom[body_start:-1]) is not None and not _items(inner)):
                items.pop()
                continue
            items[-1] = (atom[:body_start] + inner + ")", "", 1)
            break
        if quant and least >= 1:
            items[-1] = (atom, "" if least == 1 else f"{{{least}}}", least)
        break
    if not items:
        return pattern  # everything in it may be empty: keep it whole
    out = "".join(atom + quant for atom, quant, _ in items)
    try:
        with warnings.catch_warnings():
            # a probe compile: Python's "possible nested set" FutureWarning for a literal
            # '[[' in a user's pattern is no reason to print anything here
            warnings.simplefilter("ignore", FutureWarning)
            re.compile(out)
    except re.error:
        return pattern
    return out
