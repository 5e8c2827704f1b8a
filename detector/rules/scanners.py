"""Prefilters: one scan of a whole buffer for the lines that some rule may match — hyperscan (all
patterns in one database), RE2 (a joined alternation, linear time), or Python's ``re`` (the
fallback, said once) — and the RE2 twin of a pattern (linear-time search). hyperscan gets each
pattern as :mod:`detector.rules.rewrite` rewrites it."""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator, Sequence
from typing import Any, Protocol

from detector.rules.prefilter import prefilter_pattern
from detector.rules.rewrite import relaxed, trimmed

_PY_ONLY = re.compile(r"\(\?P=|\(\?<[=!]|\(\?[=!]|\(\?>")


def _re2() -> tuple[Any, Any] | None:
    """google-re2 and quiet options for it, or None when it is not installed."""
    try:
        import re2
    except ImportError:
        return None
    options = re2.Options()
    options.log_errors = False
    # room for the prefilter's one alternation of every rule (RE2's default of 8 MiB held ~490
    # rules' counted repeats only just); the program takes what it needs, not this much
    options.max_mem = RE2_MAX_MEM
    return re2, options


RE2_MAX_MEM = 32 << 20


def linear_twin(pattern: str | bytes) -> Any | None:
    """``pattern`` compiled by RE2 (linear-time matching), or None when google-re2 is not
    installed or cannot run the pattern (look-arounds, back-references, atomic groups)."""
    found = _re2()
    if found is None:
        return None
    re2, options = found
    try:
        return re2.compile(pattern, options)
    except re2.error:
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
    """Pure-``re`` prefilter: one alternation of all patterns, searched over the buffer. Built, it
    is compiled (a pattern that does not compile fails here); it pickles (the rule cache of a
    paste's set) as its pattern, compiled again when first a range of :data:`EVERY_LINE_BELOW`
    bytes or more is searched (compiling the alternation of ~600 rules takes ~0.4 s, more than a
    paste's whole replay): a smaller range yields every line, which the rule selector's literals
    then sort out."""

    name = "re"
    EVERY_LINE_BELOW = 64 << 10

    def __init__(self, patterns: Sequence[str]) -> None:
        self._body = ("|".join(f"(?:{prefilter_pattern(p)})" for p in patterns) or "(?!x)x").encode("utf-8")
        self._regex: re.Pattern[bytes] | None = re.compile(self._body, re.MULTILINE)

    def __getstate__(self) -> dict[str, object]:
        return {"_body": self._body, "_regex": None}

    def __setstate__(self, state: dict[str, object]) -> None:
        self.__dict__.update(state)

    def candidates(self, buf: bytes, start: int, end: int) -> Iterator[int]:
        if self._regex is None:
            if end - start < self.EVERY_LINE_BELOW:
                return _every_line(buf, start, end)
            self._regex = re.compile(self._body, re.MULTILINE)
        return _search_candidates(self._regex.search, buf, start, end)


def _every_line(buf: bytes, start: int, end: int) -> Iterator[int]:
    """The start of every non-empty line of buf[start:end]."""
    pos = start
    while pos < end:
        nl = buf.find(b"\n", pos, end)
        stop = end if nl < 0 else nl
        if stop > pos and buf[pos:stop].strip():
            yield pos
        if nl < 0:
            return
        pos = nl + 1


class Re2Prefilter:
    """RE2 prefilter: one alternation of all patterns, searched over the buffer in linear time
    (for when hyperscan is not installed, or refuses a pattern). Build with :meth:`build`."""

    name = "re2"

    def __init__(self, twin: Any, body: bytes = b"") -> None:
        self._twin = twin
        self._body = body

    @classmethod
    def build(cls, patterns: Sequence[str]) -> Re2Prefilter | None:
        """None when RE2 is not installed or cannot run one of the patterns."""
        if not patterns:
            return None
        body = ("(?m)" + "|".join(f"(?:{prefilter_pattern(p)})" for p in patterns)).encode("utf-8")
        twin = linear_twin(body)
        return cls(twin, body) if twin is not None else None

    def __reduce__(self) -> tuple[Any, ...]:
        return _rebuild_re2_prefilter, (self._body,)

    def candidates(self, buf: bytes, start: int, end: int) -> Iterator[int]:
        return _search_candidates(self._twin.search, buf, start, end)


def _rebuild_re2_prefilter(body: bytes) -> Re2Prefilter:
    twin = linear_twin(body)
    if twin is None:  # a pickle from where RE2 was installed
        raise ValueError("google-re2 is needed for this prefilter")
    return Re2Prefilter(twin, body)


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
        _say_slow_once()
        return RePrefilter(patterns)
    return MergedPrefilter(fast, RePrefilter(rest), name="re2+re")


_SAID_SLOW: list[bool] = []  # the fallback notice is printed once per process


def _say_slow_once() -> None:
    """Neither hyperscan nor google-re2 could be used (both are ordinary dependencies where
    wheels exist): say once that matching falls back to Python's ``re``."""
    if not _SAID_SLOW:
        _SAID_SLOW.append(True)
        print("rankdoctor: note: hyperscan and google-re2 are unavailable on this platform; matching falls "
              "back to Python's re (correct, but slow on runs of hundreds of MB)", file=sys.stderr)


class HyperscanPrefilter:
    """hyperscan prefilter: a block-mode database of all patterns, each under its own id
    (``ids``: by default its position). A scan stops at the first match; the next scan resumes
    at the following line, so each candidate line costs one call. The same database tells which
    patterns match a message (:meth:`ids`). (Not ``HS_FLAG_SINGLEMATCH``, which would report
    each pattern once: it makes the buffer scans ~30% slower.)"""

    name = "hyperscan"

    def __init__(self, patterns: Sequence[str], ids: Sequence[int] | None = None) -> None:
        import hyperscan

        self._hs: Any = hyperscan
        exprs = [relaxed(trimmed(prefilter_pattern(p))).encode("utf-8") for p in patterns]
        self.pattern_ids: tuple[int, ...] = tuple(range(len(exprs)) if ids is None else ids)
        flags = [hyperscan.HS_FLAG_MULTILINE] * len(exprs)
        self._db = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
        self._db.compile(expressions=exprs, ids=list(self.pattern_ids), flags=flags)
        self._scratch = hyperscan.Scratch(self._db)
        self._hit = -1

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as hyperscan serialises its database (``dumpb``): no compiling again."""
        return _load_hyperscan, (self.pattern_ids, self._hs.dumpb(self._db))

    def _on_match(self, _id: int, _from: int, to: int, _flags: int, _ctx: Any) -> bool:
        self._hit = to
        return True  # stop scanning: the caller resumes after this line

    @staticmethod
    def _on_id(id_: int, _from: int, _to: int, _flags: int, found: Any) -> None:
        found.add(id_)  # once per end of a match: a pattern ending in ``.{0,160}`` reports many

    def ids(self, data: bytes) -> list[int]:
        """The ids of the patterns that match somewhere in ``data`` (one message), each once."""
        found: set[int] = set()
        self._db.scan(data, match_event_handler=self._on_id, context=found, scratch=self._scratch)
        return list(found)

    def lines(self, buf: bytes, start: int, end: int, below: int | None = None) -> list[tuple[int, list[int]]]:
        """Every line of buf[start:end] where some pattern matches: (its start, the ids of the
        patterns with a match that ends in it, those under ``below`` where given), in order; one
        scan of the whole range. (A match that ends with a line feed belongs to the line before,
        as in :meth:`candidates`.)"""
        reports: list[tuple[int, int]] = []
        add = reports.append
        below = sys.maxsize if below is None else below

        def on_match(id_: int, _from: int, to: int, _flags: int, _ctx: Any) -> None:
            add((to, id_ if id_ < below else -1))

        self._db.scan(memoryview(buf)[start:end], match_event_handler=on_match, scratch=self._scratch)  # type: ignore[type-var]
        if not reports:
            return []
        grouped = _by_line(buf, start, end, reports)
        if grouped is None:  # block mode reports by end offset; should one come earlier, sort them
            grouped = _by_line(buf, start, end, sorted(reports))
        assert grouped is not None
        return grouped

    def candidates(self, buf: bytes, start: int, end: int) -> Iterator[int]:
        view = memoryview(buf)
        pos = start
        scan, on_match, scratch, terminated = self._db.scan, self._on_match, self._scratch, self._hs.ScanTerminated
        while pos < end:
            self._hit = -1
            try:  # noqa: SIM105 - not contextlib.suppress: this runs once per candidate line
                scan(view[pos:end], match_event_handler=on_match, scratch=scratch)  # type: ignore[type-var]  # hyperscan scans any buffer
            except terminated:
                pass
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


def _load_hyperscan(pattern_ids: tuple[int, ...], blob: bytes) -> HyperscanPrefilter:
    import hyperscan

    prefilter = HyperscanPrefilter.__new__(HyperscanPrefilter)
    prefilter._hs = hyperscan
    prefilter.pattern_ids = tuple(pattern_ids)
    prefilter._db = hyperscan.loadb(blob, hyperscan.HS_MODE_BLOCK)
    prefilter._scratch = hyperscan.Scratch(prefilter._db)
    prefilter._hit = -1
    return prefilter


def _by_line(buf: bytes, start: int, end: int, reports: Sequence[tuple[int, int]]) -> list[tuple[int, list[int]]] | None:
    """(end of a match relative to ``start``, pattern id or -1) reports, in order, grouped by
    the line the match ends in; None when a report comes before the line of the one before."""
    out: list[tuple[int, list[int]]] = []
    line_start = line_end = -1
    current: list[int] = []
    find, rfind = buf.find, buf.rfind
    for to, id_ in reports:
        last = start + (to if to > 0 else 1) - 1  # the match's last byte
        if last > start and buf[last] == 10:
            last -= 1
        if last < line_end:
            if last < line_start:
                return None
            if id_ >= 0 and id_ not in current:
                current.append(id_)
            continue
        nl = rfind(b"\n", start, last)
        line_start = start if nl < 0 else nl + 1
        line_end = find(b"\n", last, end)
        if line_end < 0:
            line_end = end
        current = [id_] if id_ >= 0 else []
        out.append((line_start, current))
    return out


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
        self.fast = fast
        self._slow = slow
        if name is not None:
            self.name = name
        elif slow.name != "re":
            self.name = f"hyperscan+{slow.name}"

    def candidates(self, buf: bytes, start: int, end: int) -> Iterator[int]:
        return iter(sorted(set(self.fast.candidates(buf, start, end)) | set(self._slow.candidates(buf, start, end))))

    def lines(self, buf: bytes, start: int, end: int, below: int | None = None) -> list[tuple[int, list[int] | None]]:
        """As :meth:`HyperscanPrefilter.lines` where the fast part is hyperscan (a line only the
        slow part finds: no hyperscan id), else every line with ids None."""
        fast_lines = getattr(self.fast, "lines", None)
        if fast_lines is None:
            return [(off, None) for off in self.candidates(buf, start, end)]
        found: dict[int, list[int] | None] = dict(fast_lines(buf, start, end, below))
        for off in self._slow.candidates(buf, start, end):
            found.setdefault(off, [])
        return sorted(found.items())


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
    accepted = [(i, p) for i, p in enumerate(patterns) if _hyperscan_accepts(p)]
    taken = {i for i, _ in accepted}
    refused = [p for i, p in enumerate(patterns) if i not in taken]
    if not accepted:
        return _slow_prefilter(refused, engine)
    fast = HyperscanPrefilter([p for _, p in accepted], ids=[i for i, _ in accepted])
    return MergedPrefilter(fast, _slow_prefilter(refused, engine))
