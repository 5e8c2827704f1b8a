"""Matching every rule against every line in one scan.

A *prefilter* finds the lines that some rule may match, scanning a whole buffer at once:
hyperscan (all patterns in one database) where the package is installed, else one combined
Python ``re`` alternation. Each candidate line is then *verified* with each rule's own ``re``
(the prefilter only decides which lines to look at), so both engines give identical results.

Linear time. Python's ``re`` backtracks: even a pattern the loader's static checks pass
(``\\S+ kernel:``) takes time quadratic in the length of a line it is *searched* in, because a
failed attempt at each start position rescans the rest of the line (a 64 KiB line: ~20 s for
one rule). So a message longer than :data:`SHORT_TEXT` is first searched with the rule's RE2
twin (``google-re2``, the ``fast`` extra; linear time), and ``re`` only confirms the match at the
position RE2 found, to give the same fields. Where RE2 is not installed, or cannot run a pattern
(look-arounds, back-references), ``re`` searches as before. Without hyperscan, the prefilter
likewise scans with RE2 where it can.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from detector.detectors.rules.loader import CompiledRule
from detector.detectors.rules.prefilter import prefilter_pattern
from detector.types import StreamKind

MAX_MATCH_CHARS = 64 * 1024  # longer lines are matched on their first 64 KiB
SHORT_TEXT = 1024  # up to this length ``re`` searches directly (worst case ~1 ms per rule)
MAX_CONFIRMS = 8  # RE2 matches that ``re`` may reject (differing semantics) before giving up

# Structural markers the sources need to see even when no rule names them.
STRUCTURAL = (
    r"ChildFailedError",
    r"Root Cause \(first observed failure\)",
    r"Traceback \(most recent call last\)",
)

_PY_ONLY = re.compile(r"\(\?P=|\(\?<[=!]|\(\?[=!]|\(\?>")


@dataclass(frozen=True, slots=True)
class RuleMatch:
    rule: CompiledRule
    fields: tuple[tuple[str, str], ...]


def linear_twin(pattern: str | bytes) -> Any | None:
    """``pattern`` compiled by RE2 (linear-time matching), or None when google-re2 is not
    installed or cannot run the pattern (look-arounds, back-references, atomic groups)."""
    try:
        import re2
    except ImportError:
        return None
    options = re2.Options()
    options.log_errors = False
    try:
        return re2.compile(pattern, options)
    except re2.error:
        return None


def linear_search(regex: re.Pattern[str], twin: Any | None, text: str) -> re.Match[str] | None:
    """``regex.search(text)`` in time linear in ``len(text)`` when ``twin`` (RE2) is given:
    RE2 finds where the leftmost match starts, ``re`` matches there (same fields as its own
    search, since both find the leftmost start). Short texts go to ``re`` directly."""
    if twin is None or len(text) <= SHORT_TEXT:
        return regex.search(text)
    probe = text
    try:
        probe.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates (from JSON escapes): same length, encodable
        probe = text.encode("utf-8", "replace").decode("utf-8")
    pos = 0
    for _ in range(MAX_CONFIRMS):
        found = twin.search(probe, pos)
        if found is None:
            return None
        m = regex.match(text, found.start())
        if m is not None:
            return m
        pos = found.start() + 1
        if pos > len(text):
            return None
    return None


class Prefilter(Protocol):
    name: str

    def candidates(self, buf: bytes, start: int, end: int) -> Iterator[int]:
        """Offsets of the starts of lines in buf[start:end] that some pattern may match,
        in increasing order, each line once."""
        ...


def _line_start(buf: bytes, offset: int, floor: int) -> int:
    nl = buf.rfind(b"\n", floor, offset)
    return floor if nl < 0 else nl + 1


def _search_candidates(search: Any, buf: bytes, start: int, end: int) -> Iterator[int]:
    """Line starts of the matches of a joined-alternation ``search`` (re or RE2), each line
    once: after a match the search resumes at the next line."""
    pos = start
    while pos < end:
        m = search(buf, pos, end)
        if m is None:
            return
        line = _line_start(buf, m.start(), start)
        yield line
        nl = buf.find(b"\n", max(m.start(), line), end)
        if nl < 0:
            return
        pos = nl + 1


class RePrefilter:
    """Pure-``re`` prefilter: one alternation of all patterns, searched over the buffer."""

    name = "re"

    def __init__(self, patterns: Sequence[str]) -> None:
        body = "|".join(f"(?:{prefilter_pattern(p)})" for p in patterns) or "(?!x)x"
        self._regex = re.compile(body.encode("utf-8"), re.MULTILINE)

    def candidates(self, buf: bytes, start: int, end: int) -> Iterator[int]:
        return _search_candidates(self._regex.search, buf, start, end)


class Re2Prefilter:
    """RE2 prefilter: one alternation of all patterns, searched over the buffer in linear time
    (for when hyperscan is not installed, or refuses a pattern). Build with :meth:`build`."""

    name = "re2"

    def __init__(self, twin: Any) -> None:
        self._twin = twin

    @classmethod
    def build(cls, patterns: Sequence[str]) -> Re2Prefilter | None:
        """None when RE2 is not installed or cannot run one of the patterns."""
        if not patterns:
            return None
        body = "(?m)" + "|".join(f"(?:{prefilter_pattern(p)})" for p in patterns)
        twin = linear_twin(body.encode("utf-8"))
        return cls(twin) if twin is not None else None

    def candidates(self, buf: bytes, start: int, end: int) -> Iterator[int]:
        return _search_candidates(self._twin.search, buf, start, end)


def _slow_prefilter(patterns: Sequence[str], engine: str) -> Prefilter:
    """For the patterns hyperscan cannot take: RE2 (linear) where it can run them all, else
    RE2 for those it can and ``re`` for the rest; ``re`` alone when asked for (engine "re")."""
    if engine == "re":
        return RePrefilter(patterns)
    whole = Re2Prefilter.build(patterns)
    if whole is not None:
        return whole
    linear = [p for p in patterns if Re2Prefilter.build([p]) is not None]
    rest = [p for p in patterns if p not in linear]
    fast = Re2Prefilter.build(linear) if linear else None
    if fast is None:
        return RePrefilter(patterns)
    return MergedPrefilter(fast, RePrefilter(rest), name="re2+re")


class HyperscanPrefilter:
    """hyperscan prefilter: a block-mode database of all patterns. A scan stops at the first
    match; the next scan resumes at the following line, so each candidate line costs one call."""

    name = "hyperscan"

    def __init__(self, patterns: Sequence[str]) -> None:
        import hyperscan

        self._hs: Any = hyperscan
        exprs = [prefilter_pattern(p).encode("utf-8") for p in patterns]
        flags = [hyperscan.HS_FLAG_MULTILINE] * len(exprs)
        self._db = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
        self._db.compile(expressions=exprs, ids=list(range(len(exprs))), flags=flags)
        self._scratch = hyperscan.Scratch(self._db)
        self._hit = -1

    def _on_match(self, _id: int, _from: int, to: int, _flags: int, _ctx: Any) -> bool:
        self._hit = to
        return True  # stop scanning: the caller resumes after this line

    def candidates(self, buf: bytes, start: int, end: int) -> Iterator[int]:
        view = memoryview(buf)
        pos = start
        while pos < end:
            self._hit = -1
            with contextlib.suppress(self._hs.ScanTerminated):
                self._db.scan(view[pos:end], match_event_handler=self._on_match, scratch=self._scratch)  # type: ignore[type-var]  # hyperscan scans any buffer
            if self._hit < 0:
                return
            last = pos + max(self._hit, 1) - 1  # the match's last byte
            if last > pos and buf[last : last + 1] == b"\n":
                last -= 1
            nl = buf.rfind(b"\n", pos, last)
            yield pos if nl < 0 else nl + 1
            nl = buf.find(b"\n", last, end)
            if nl < 0:
                return
            pos = nl + 1


def _hyperscan_available() -> bool:
    try:
        import hyperscan  # noqa: F401
    except ImportError:
        return False
    return True


def _hyperscan_accepts(pattern: str) -> bool:
    if _PY_ONLY.search(pattern):
        return False
    try:
        HyperscanPrefilter([pattern])
    except Exception:  # hyperscan's own error types vary by version
        return False
    return True


class MergedPrefilter:
    """hyperscan for the patterns it supports, one ``re`` alternation for the rest; candidate
    lines of both, merged in order."""

    name = "hyperscan+re"

    def __init__(self, fast: Prefilter, slow: Prefilter, *, name: str | None = None) -> None:
        self._fast = fast
        self._slow = slow
        if name is not None:
            self.name = name
        elif slow.name != "re":
            self.name = f"hyperscan+{slow.name}"

    def candidates(self, buf: bytes, start: int, end: int) -> Iterator[int]:
        return iter(sorted(set(self._fast.candidates(buf, start, end)) | set(self._slow.candidates(buf, start, end))))


def make_prefilter(patterns: Sequence[str], engine: str) -> Prefilter:
    if engine == "re":
        return RePrefilter(patterns)
    if engine == "auto" and not _hyperscan_available():
        return _slow_prefilter(patterns, engine)
    if engine not in ("auto", "hyperscan"):
        raise ValueError(f"unknown engine {engine!r} (known: auto, hyperscan, re)")
    try:
        return HyperscanPrefilter(patterns)
    except Exception:
        if engine == "hyperscan" and not any(_hyperscan_accepts(p) for p in patterns):
            raise
    accepted = [p for p in patterns if _hyperscan_accepts(p)]
    refused = [p for p in patterns if p not in accepted]
    if not accepted:
        return _slow_prefilter(refused, engine)
    return MergedPrefilter(HyperscanPrefilter(accepted), _slow_prefilter(refused, engine))


class RuleSet:
    """A compiled set of rules, ready to scan buffers and verify lines."""

    def __init__(self, rules: Sequence[CompiledRule], *, engine: str = "auto") -> None:
        self.rules: tuple[CompiledRule, ...] = tuple(rules)
        patterns = [r.pattern for r in self.rules] + list(STRUCTURAL)
        self.prefilter: Prefilter = make_prefilter(patterns, engine)
        # each rule's RE2 twin (None: ``re`` only), and its window.next's
        twins = {r.id: linear_twin(r.pattern) for r in self.rules}
        self._next_twins = {r.id: linear_twin(r.window_next.pattern) for r in self.rules
                            if r.window_next is not None}
        self._by_kind = {
            kind: tuple((r, twins[r.id]) for r in self.rules if r.applies_to(kind)) for kind in StreamKind
        }

    @property
    def engine(self) -> str:
        return self.prefilter.name

    def match(self, message: str, kind: StreamKind) -> list[RuleMatch]:
        """All rules that match one message (fallback rules only when nothing else did)."""
        text = message if len(message) <= MAX_MATCH_CHARS else message[:MAX_MATCH_CHARS]
        found: list[RuleMatch] = []
        fallbacks: list[RuleMatch] = []
        short = len(text) <= SHORT_TEXT  # the common case: plain re, no wrapper call per rule
        for rule, twin in self._by_kind[kind]:
            m = rule.regex.search(text) if short or twin is None else linear_search(rule.regex, twin, text)
            if m is None:
                continue
            fields = tuple((k, v) for k, v in m.groupdict().items() if v is not None)
            (fallbacks if rule.fallback else found).append(RuleMatch(rule, fields))
        return found if found else fallbacks

    def search_next(self, rule: CompiledRule, text: str) -> re.Match[str] | None:
        """A multi-line rule's ``window.next`` searched in a following line (same limits)."""
        if rule.window_next is None:
            return None
        text = text if len(text) <= MAX_MATCH_CHARS else text[:MAX_MATCH_CHARS]
        return linear_search(rule.window_next, self._next_twins.get(rule.id), text)

    def candidates(self, buf: bytes, start: int, end: int) -> Iterator[int]:
        return self.prefilter.candidates(buf, start, end)
