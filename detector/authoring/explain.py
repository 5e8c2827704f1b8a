"""Trying rules on text: which rules match the lines of a log (`rankdoctor rules test`), and
for one line, which rules match and, for the near misses, why not (`--explain`).

A *near miss* is a rule that does not match although the line holds one of the literal pieces
its pattern requires (four characters or more), or although a long prefix of the pattern
matches. For each, the longest prefix of the pattern that matches somewhere in the line is
found (patterns are cut between top-level items: characters, escapes, classes, groups, each
with its quantifier) and the reason says where matching stops and which literals are missing.
"""

from __future__ import annotations

import re
import re._constants as _c  # type: ignore[import-not-found,unused-ignore]  # the sre parser: no public API
import re._parser as _p  # type: ignore[import-not-found,unused-ignore]
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from detector.pipeline.scan import scan_file
from detector.rules.engine import MAX_MATCH_CHARS, RuleSet
from detector.rules.loader import PATTERN_FLAGS, CompiledRule
from detector.sources.prefixes import PrefixStyle, anchored_start, strip_prefix
from detector.sources.runs import FileKind, LogFile, classify
from detector.types import StreamKind

NEAR_LITERAL = 4  # a required literal this long that occurs in the line makes a near miss
NEAR_PREFIX = 8  # so does a matching pattern prefix that holds this many literal characters
# literals too common in error lines to make a rule a near miss by themselves
_GENERIC = {"error", "errors", "failed", "failure", "warning", "exception", "fatal", "info", "rank", "nccl"}
MAX_NEAR = 5

_KERNEL_LINE = re.compile(
    r"\s*(?:\[\s*\d+\.\d+\]|\d+,\d+,\d+,[^;]*;|\w{3}\s+\d+ \d\d:\d\d:\d\d \S+ kernel:|\S+T\S+ \S+ kernel:)|.*\bNVRM: "
)


@dataclass(frozen=True, slots=True)
class LineMatch:
    """One rule matching one line of a log."""

    file: str
    line: int
    rank: int | None
    kind: StreamKind
    rule_id: str
    role: str
    cause: str | None
    fields: tuple[tuple[str, str], ...]
    text: str


def match_log(path: Path, rules: RuleSet, *, kind: StreamKind | None = None, display: str | None = None) -> list[LineMatch]:
    """Every (line, rule) match in one log file, as the engine finds them (prefilter, fallback
    rules, windows). ``kind`` overrides the guess from the file's name and content."""
    found = classify(path, path.parent) if path.is_file() else None
    if found is None or found.kind not in (FileKind.RANK_LOG, FileKind.KERNEL):
        found = LogFile(path, path.name, FileKind.RANK_LOG, size=path.stat().st_size if path.exists() else 0)
    if kind is not None:
        found = replace(found, kind=FileKind.KERNEL if kind is StreamKind.KERNEL else FileKind.RANK_LOG)
    found = replace(found, display=display or str(path))
    scan = scan_file(found, rules, year=None)
    out: list[LineMatch] = []
    for hit in scan.hits:
        ev = hit.event
        for m in hit.matches:
            rank = ev.rank if ev.rank is not None else found.rank  # the file's own rank, from its name
            out.append(LineMatch(ev.file, ev.line, rank, ev.kind, m.rule.id, m.rule.role.value,
                                 m.rule.cause.value if m.rule.cause else None, m.fields, ev.text))
    return out


# -- explaining one line --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RuleHit:
    rule: CompiledRule
    fields: tuple[tuple[str, str], ...]
    counts: bool  # False: the regex matches but the engine would not count it here
    note: str


@dataclass(frozen=True, slots=True)
class NearMiss:
    rule: CompiledRule
    reason: str
    matched: str  # the text that the longest matching prefix of the pattern matched
    missing: tuple[str, ...]  # required literals that do not occur in the line


@dataclass(frozen=True, slots=True)
class Explanation:
    message: str  # the line with its rank prefix removed: what rules see
    rank: int | None
    kind: StreamKind
    kind_guessed: bool
    hits: tuple[RuleHit, ...]
    near: tuple[NearMiss, ...]


def guess_kind(message: str) -> StreamKind:
    return StreamKind.KERNEL if _KERNEL_LINE.match(message) else StreamKind.RANK_LOG


def _escape_end(pattern: str, i: int) -> int:
    """Index just past the escape that starts at ``pattern[i]`` (a backslash)."""
    kind = pattern[i + 1 : i + 2]
    width = {"x": 2, "u": 4, "U": 8}.get(kind)
    if width is not None:
        return min(len(pattern), i + 2 + width)
    if kind == "N" and pattern[i + 2 : i + 3] == "{":
        close = pattern.find("}", i)
        return len(pattern) if close < 0 else close + 1
    if kind.isdigit():
        m = re.compile(r"\\\d{1,3}").match(pattern, i)
        return m.end() if m else i + 2
    return i + 2


def _class_end(pattern: str, i: int) -> int:
    """Index just past the character class that starts at ``pattern[i]`` ('[')."""
    n = len(pattern)
    j = i + 1
    if pattern[j : j + 1] == "^":
        j += 1
    if pattern[j : j + 1] == "]":
        j += 1
    while j < n:
        if pattern[j] == "\\":
            j = _escape_end(pattern, j)
        elif pattern[j] == "]":
            return j + 1
        else:
            j += 1
    return n


def _group_end(pattern: str, i: int) -> int:
    """Index just past the group that starts at ``pattern[i]`` ('(')."""
    depth = 0
    j = i
    while j < len(pattern):
        ch = pattern[j]
        if ch == "\\":
            j = _escape_end(pattern, j)
            continue
        if ch == "[":
            j = _class_end(pattern, j)
            continue
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return j + 1
        j += 1
    return len(pattern)


_QUANT = re.compile(r"(?:[*+?]|\{\d*(?:,\d*)?\})[?+]?")


def pattern_atoms(pattern: str) -> list[int] | None:
    """The end offsets of the top-level items of ``pattern``, or None when it has a top-level
    alternation (no single sequence to cut)."""
    ends: list[int] = []
    i = 0
    n = len(pattern)
    while i < n:
        ch = pattern[i]
        if ch == "|":
            return None
        if ch == "\\":
            j = _escape_end(pattern, i)
        elif ch == "[":
            j = _class_end(pattern, i)
        elif ch == "(":
            j = _group_end(pattern, i)
        else:
            j = i + 1
        q = _QUANT.match(pattern, j)
        if q:
            j = q.end()
        ends.append(j)
        i = j
    return ends


def literal_runs(pattern: str) -> tuple[list[str], bool]:
    """Runs of literal characters every match must contain (longest first), and whether the
    pattern ignores case."""
    try:
        parsed = _p.parse(pattern, PATTERN_FLAGS)
    except re.error:
        return [], False
    runs: list[str] = []
    current: list[str] = []

    def flush() -> None:
        if current:
            runs.append("".join(current))
            current.clear()

    def walk(items: object) -> None:
        for op, av in items:  # type: ignore[attr-defined]
            if op == _c.LITERAL:
                current.append(chr(av))
            elif op == _c.SUBPATTERN:
                walk(av[-1])
            elif op in (_c.MAX_REPEAT, _c.MIN_REPEAT) and av[0] >= 1:
                flush()
                walk(av[2])
                flush()
            else:
                flush()

    walk(list(parsed))
    flush()
    ignore_case = bool(parsed.state.flags & re.IGNORECASE)
    return sorted({r for r in runs if r.strip()}, key=len, reverse=True), ignore_case


def _longest_prefix(pattern: str, message: str) -> tuple[str, re.Match[str] | None]:
    """The longest prefix of ``pattern`` (cut between top-level items) that matches somewhere
    in ``message``, and its match. Matching prefixes are prefix-closed, so a binary search."""
    ends = pattern_atoms(pattern)
    if not ends:
        return "", None
    best: tuple[str, re.Match[str] | None] = ("", None)
    lo, hi = 1, len(ends)
    while lo <= hi:
        mid = (lo + hi) // 2
        prefix = pattern[: ends[mid - 1]]
        try:
            m = re.compile(prefix, PATTERN_FLAGS).search(message)
        except re.error:
            m = None
        if m is not None:
            best = (prefix, m)
            lo = mid + 1
        else:
            hi = mid - 1
    return best


def _near_miss(rule: CompiledRule, message: str) -> NearMiss | None:
    literals, ignore_case = literal_runs(rule.pattern)
    haystack = message.lower() if ignore_case else message

    def present(lit: str) -> bool:
        return (lit.lower() if ignore_case else lit) in haystack

    found = [lit for lit in literals if _distinctive(lit) and present(lit)]
    prefix, m = _longest_prefix(rule.pattern, message)
    matched = m.group(0) if m is not None else ""
    if not found and sum(map(len, literal_runs(prefix)[0])) < NEAR_PREFIX:
        return None
    missing = tuple(lit for lit in literals if not present(lit))
    parts: list[str] = []
    if m is not None and prefix:
        rest = rule.pattern[len(prefix):]
        following = message[m.end(): m.end() + 40]
        parts.append(
            f"the pattern matches up to {_short(prefix, tail=True)} (the text {_short(matched, tail=True)} at column "
            f"{m.start() + 1}), then expects {_short(rest)} where the line has {_short(following) if following else 'its end'}"
        )
    elif pattern_atoms(rule.pattern) is None:
        parts.append("no branch of the pattern's top-level alternation matches")
    else:
        parts.append("the pattern's first item does not match")
    if missing:
        parts.append("missing literal text: " + ", ".join(_short(x) for x in missing[:3]))
    return NearMiss(rule, "; ".join(parts), matched, missing)


def _distinctive(literal: str) -> bool:
    """Long enough, not a common word: 'NVRM: Xid (' and 'monitoredBarrier' are, ' with ' is not."""
    word = literal.strip(" :.,;()[]=-_")
    if len(word) < NEAR_LITERAL or word.lower() in _GENERIC:
        return False
    return len(word) >= 6 or not word.islower()


def _short(text: str, limit: int = 40, *, tail: bool = False) -> str:
    if len(text) > limit:
        text = "…" + text[-limit:] if tail else text[:limit] + "…"
    return repr(text)


def explain_line(line: str, rules: Sequence[CompiledRule], *, kind: StreamKind | None = None) -> Explanation:
    """Which rules match ``line`` (its rank prefix removed, as the engine does) and, for rules
    that almost match, why not."""
    pre = strip_prefix(line, PrefixStyle.BRACKETS)
    message = pre.message[:MAX_MATCH_CHARS]
    read_as = kind if kind is not None else guess_kind(message)
    hits: list[RuleHit] = []
    misses: list[tuple[int, NearMiss]] = []
    # as the engine reads it: a rule anchored at the start ('^') also after a collector's stamp
    # or a progress bar
    start = anchored_start(message)
    body = message[start:] if start else message
    for rule in rules:
        subject = body if rule.pattern.startswith("^") else message
        m = rule.regex.search(subject)
        if m is None and subject is not message:
            subject = message
            m = rule.regex.search(subject)
        if m is None:
            near = _near_miss(rule, message)
            if near is not None:
                misses.append((len(near.matched), near))
            continue
        fields = tuple((k, v) for k, v in m.groupdict().items() if v is not None)
        notes: list[str] = []
        counts = True
        if not rule.applies_to(read_as):
            counts = False
            notes.append(f"only for {rule.source} lines; this line was read as {read_as.value} (use --kind)")
        if rule.unless is not None and rule.unless.search(subject) is not None:
            counts = False
            notes.append(f"not counted: the line matches the rule's 'unless' ({rule.unless.pattern!r})")
        if rule.window_next is not None:
            notes.append(f"counts only if one of the next {rule.window_within} lines matches {rule.window_next.pattern!r}")
        hits.append(RuleHit(rule, fields, counts, "; ".join(notes)))
    primary = [h for h in hits if h.counts and not h.rule.fallback]
    final: list[RuleHit] = []
    for h in hits:
        if h.rule.fallback and h.counts and primary:
            h = RuleHit(h.rule, h.fields, False, "; ".join(filter(None, [h.note, "fallback rule: not counted, another rule matched"])))
        final.append(h)
    misses.sort(key=lambda t: -t[0])
    return Explanation(message, pre.rank, read_as, kind is None, tuple(final), tuple(n for _, n in misses[:MAX_NEAR]))
