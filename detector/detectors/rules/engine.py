"""Matching every rule against every line in one scan.

A *prefilter* finds the lines that some rule may match, scanning a whole buffer at once:
hyperscan (all patterns in one database) where the package is installed, else one combined
Python ``re`` alternation. Each candidate line is then *verified* with each rule's own ``re``
(the prefilter only decides which lines to look at), so both engines give identical results.
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


class Prefilter(Protocol):
    name: str

    def candidates(self, buf: bytes, start: int, end: int) -> Iterator[int]:
        """Offsets of the starts of lines in buf[start:end] that some pattern may match,
        in increasing order, each line once."""
        ...


def _line_start(buf: bytes, offset: int, floor: int) -> int:
    nl = buf.rfind(b"\n", floor, offset)
    return floor if nl < 0 else nl + 1


class RePrefilter:
    """Pure-``re`` prefilter: one alternation of all patterns, searched over the buffer."""

    name = "re"

    def __init__(self, patterns: Sequence[str]) -> None:
        body = "|".join(f"(?:{prefilter_pattern(p)})" for p in patterns) or "(?!x)x"
        self._regex = re.compile(body.encode("utf-8"), re.MULTILINE)

    def candidates(self, buf: bytes, start: int, end: int) -> Iterator[int]:
        pos = start
        search = self._regex.search
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

    def __init__(self, fast: Prefilter, slow: Prefilter) -> None:
        self._fast = fast
        self._slow = slow

    def candidates(self, buf: bytes, start: int, end: int) -> Iterator[int]:
        return iter(sorted(set(self._fast.candidates(buf, start, end)) | set(self._slow.candidates(buf, start, end))))


def make_prefilter(patterns: Sequence[str], engine: str) -> Prefilter:
    if engine == "re" or (engine == "auto" and not _hyperscan_available()):
        return RePrefilter(patterns)
    if engine not in ("auto", "hyperscan"):
        raise ValueError(f"unknown engine {engine!r} (known: auto, hyperscan, re)")
    try:
        return HyperscanPrefilter(patterns)
    except Exception:
        if engine == "hyperscan" and not any(_hyperscan_accepts(p) for p in patterns):
            raise
    accepted = [p for p in patterns if _hyperscan_accepts(p)]
    refused = [p for p in patterns if p not in accepted]
    return MergedPrefilter(HyperscanPrefilter(accepted), RePrefilter(refused)) if accepted else RePrefilter(refused)


class RuleSet:
    """A compiled set of rules, ready to scan buffers and verify lines."""

    def __init__(self, rules: Sequence[CompiledRule], *, engine: str = "auto") -> None:
        self.rules: tuple[CompiledRule, ...] = tuple(rules)
        patterns = [r.pattern for r in self.rules] + list(STRUCTURAL)
        self.prefilter: Prefilter = make_prefilter(patterns, engine)
        self._by_kind = {
            kind: tuple(r for r in self.rules if r.applies_to(kind)) for kind in StreamKind
        }

    @property
    def engine(self) -> str:
        return self.prefilter.name

    def match(self, message: str, kind: StreamKind) -> list[RuleMatch]:
        """All rules that match one message (fallback rules only when nothing else did)."""
        text = message if len(message) <= MAX_MATCH_CHARS else message[:MAX_MATCH_CHARS]
        found: list[RuleMatch] = []
        fallbacks: list[RuleMatch] = []
        for rule in self._by_kind[kind]:
            m = rule.regex.search(text)
            if m is None:
                continue
            fields = tuple((k, v) for k, v in m.groupdict().items() if v is not None)
            (fallbacks if rule.fallback else found).append(RuleMatch(rule, fields))
        return found if found else fallbacks

    def candidates(self, buf: bytes, start: int, end: int) -> Iterator[int]:
        return self.prefilter.candidates(buf, start, end)
