"""Matching every rule against every line in one scan.

A *prefilter* finds the lines that some rule may match, scanning a whole buffer at once:
hyperscan (all patterns in one database) where the package is installed, else one combined
Python ``re`` alternation. A *selector* then tells, for one candidate line's message, which
rules may match it: hyperscan again (a database of every rule's pattern under its own id,
reporting each id that matches once), else each rule's required literals (texts of which every
match holds one, found by parsing the pattern: ``"Watchdog caught collective operation timeout:
Work"``), looked for with one RE2 ``Set`` search where google-re2 is installed, else with
Python's ``in``. Each selected rule is then *verified* with its own ``re``. Selectors only ever
leave out rules that cannot match (each answers a superset), so all engines give identical
results; verifying one to four rules instead of ~90 is what keeps a burst of matched lines
cheap.

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

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from detector.rules.loader import CompiledRule, LazyRegex
from detector.rules.prefilter import required_literals
from detector.rules.scanners import (
    HyperscanPrefilter,
    MergedPrefilter,
    Prefilter,
    _re2,
    linear_twin,
    make_prefilter,
)
from detector.sources.prefixes import anchored_start, json_record_messages
from detector.types import StreamKind

MAX_MATCH_CHARS = 64 * 1024  # longer lines are matched on their first 64 KiB
SHORT_TEXT = 1024  # up to this length ``re`` searches directly (worst case ~1 ms per rule)
MAX_CONFIRMS = 8  # RE2 matches that ``re`` may reject (differing semantics) before giving up

# Structural markers the sources need to see even when no rule names them.
STRUCTURAL = (
    r"ChildFailedError",
    r"Root Cause \(first observed failure\)",
    r"Failures:\s*$",
    r"^\s*\[[0-9]{1,6}\]:\s*$",
    r"Traceback \(most recent call last\)",
)

_PY_ONLY = re.compile(r"\(\?P=|\(\?<[=!]|\(\?[=!]|\(\?>")


@dataclass(frozen=True, slots=True)
class RuleMatch:
    rule: CompiledRule
    fields: tuple[tuple[str, str], ...]


class Verified:
    """A rule that matched a message: :class:`RuleMatch`'s ``rule`` and ``fields``, the fields
    (named groups that took part) read from the match when first asked for."""

    __slots__ = ("_fields", "_match", "rule")

    def __init__(self, rule: CompiledRule, match: re.Match[str]) -> None:
        self.rule = rule
        self._match: re.Match[str] | None = match
        self._fields: tuple[tuple[str, str], ...] | None = None

    @property
    def fields(self) -> tuple[tuple[str, str], ...]:
        fields = self._fields
        if fields is None:
            assert self._match is not None
            fields = self._fields = tuple((k, v) for k, v in self._match.groupdict().items() if v is not None)
            self._match = None
        return fields

    def result(self) -> RuleMatch:
        return RuleMatch(self.rule, self.fields)


def linear_search(regex: re.Pattern[str] | LazyRegex, twin: Any | None, text: str) -> re.Match[str] | None:
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


class _IdScanner(Protocol):
    def ids(self, data: bytes) -> list[int]:
        """The ids of the patterns that match somewhere in ``data`` (a message: one line)."""
        ...


class _Re2Ids:
    """RE2's ``Set`` of each rule's required literals (as one alternation per rule, unanchored):
    one linear-time search of a message gives every rule whose literals it holds. Literals, not
    the whole patterns: a set of ~100 whole patterns with counted repeats outgrows RE2's DFA
    budget and falls back to its slow NFA (hundreds of µs a line); literals stay a small DFA."""

    def __init__(self, regex_set: Any, index: Sequence[int],
                 literals: Sequence[tuple[int, tuple[tuple[str, ...], bool]]] = ()) -> None:
        self._set = regex_set
        self._index = tuple(index)
        self._literals = tuple(literals)

    def __reduce__(self) -> tuple[Any, ...]:
        return _rebuild_re2_ids, (self._literals,)

    @classmethod
    def build(cls, literals: Sequence[tuple[int, tuple[tuple[str, ...], bool]]]) -> _Re2Ids | None:
        """None when RE2 is not installed (or refuses the set)."""
        found = _re2()
        if found is None:
            return None
        re2, options = found
        regex_set = re2.Set.SearchSet(options)
        try:
            for _i, (texts, nocase) in literals:
                body = "|".join(re.escape(t) for t in texts)
                regex_set.Add((f"(?i:{body})" if nocase else body).encode("utf-8"))
            regex_set.Compile()
        except Exception:  # re2.error or ValueError, by version
            return None
        return cls(regex_set, [i for i, _ in literals], literals)

    def ids(self, data: bytes) -> list[int]:
        index = self._index
        return [index[n] for n in self._set.Match(data) or ()]


def _rebuild_re2_ids(literals: Sequence[tuple[int, tuple[tuple[str, ...], bool]]]) -> _Re2Ids:
    built = _Re2Ids.build(literals)
    if built is None:  # a pickle from where RE2 was installed: not to be used without it
        raise ValueError("google-re2 is needed for this rule set")
    return built


LiteralTable = tuple[tuple[str, bool, tuple[int, ...]], ...]  # (text, lower-cased?, rule indices)


def _literal_table(literals: Sequence[tuple[int, tuple[tuple[str, ...], bool]]]) -> LiteralTable:
    by_text: dict[tuple[str, bool], list[int]] = {}
    for i, (texts, nocase) in literals:
        for t in texts:
            by_text.setdefault((t, nocase), []).append(i)
    return tuple((t, nocase, tuple(ids)) for (t, nocase), ids in by_text.items())


class RuleSelector:
    """Which rules may match a message: a superset of those that do, as a sorted list of rule
    indices. On short messages where byte-level matching means what ``re``'s does (ASCII, no
    vertical tab: ``\\s`` differs there between the engines), ``full`` (hyperscan) answers for the rules
    it holds and ``literal_set`` (RE2) for those others that have required literals; elsewhere,
    and for what neither holds, ``in`` checks of the required literals answer. A rule without
    required literals that no scanner holds is always selected."""

    def __init__(self, rules: Sequence[CompiledRule], *, full: _IdScanner | None = None,
                 full_ids: Sequence[int] = (), literal_set: bool = False) -> None:
        self.count = len(rules)
        self._patterns = tuple(r.pattern for r in rules)
        covered = set(full_ids) if full is not None else set()
        # the required literals of the rules no scanner holds now; of all of them (for lines the
        # scanners do not answer for) when first needed
        rest_literals = [(i, required_literals(p)) for i, p in enumerate(self._patterns) if i not in covered]
        rest = [(i, lit) for i, lit in rest_literals if lit is not None]
        self._full = full
        self._set = _Re2Ids.build(rest) if literal_set and rest else None
        self._everything: tuple[LiteralTable, tuple[int, ...]] | None = None
        self._table_rest = () if self._set is not None else _literal_table(rest)
        self._always_rest = tuple(i for i, lit in rest_literals if lit is None)
        self._scans = full is not None or self._set is not None
        self._full_only = full is not None and self._set is None and not self._always_rest and not self._table_rest
        if not covered and self._set is None:
            # (no scanner holds a rule: the literals just read are every rule's, kept - and pickled
            # with the set - rather than read again from the patterns, ~0.5 s for 600 rules)
            self._everything = (self._table_rest, self._always_rest)

    def _all(self) -> tuple[LiteralTable, tuple[int, ...]]:
        """Every rule's required literals (a table) and the rules without any."""
        if self._everything is None:
            literals = [required_literals(p) for p in self._patterns]
            self._everything = (_literal_table([(i, lit) for i, lit in enumerate(literals) if lit is not None]),
                                tuple(i for i, lit in enumerate(literals) if lit is None))
        return self._everything

    @property
    def engine(self) -> str:
        parts = (["hyperscan"] if self._full is not None else []) + (["re2-literals"] if self._set is not None else [])
        if self._table_rest or not parts:
            parts.append("literals")
        return "+".join(parts)

    def select(self, text: str, full_ids: Sequence[int] | None = None) -> Sequence[int]:
        """``full_ids``: what ``full`` would answer for ``text``, where the caller knows it (the
        prefilter's scan of the buffer saw those rules match in the line that ends with
        ``text``: a superset, which is all a selector needs)."""
        # (up to SHORT_TEXT: hyperscan reports every end of a match, ~one a character for a
        # pattern ending in ``.*``; literals cost the same whatever the line)
        if self._scans and len(text) <= SHORT_TEXT and text.isascii() and "\v" not in text:
            if full_ids is not None and self._full_only:  # hyperscan holds every rule: its answer is all
                return full_ids if len(full_ids) < 2 else sorted(full_ids)
            if self._full is None:
                found = []
            elif full_ids is not None:
                found = list(full_ids)
            else:
                found = self._full.ids(text.encode("ascii"))
            if self._set is not None:
                found.extend(self._set.ids(text.encode("ascii")))
            found.extend(self._always_rest)
            table = self._table_rest
        else:
            table, always = self._all()
            found = list(always)
        if table:
            lower: str | None = None
            for t, nocase, ids in table:
                if nocase:
                    if lower is None:
                        lower = text.lower()
                    if t in lower:
                        found.extend(ids)
                elif t in text:
                    found.extend(ids)
            return sorted(set(found))
        found.sort()
        return found


def _hyperscan_part(prefilter: Prefilter) -> HyperscanPrefilter | None:
    if isinstance(prefilter, HyperscanPrefilter):
        return prefilter
    if isinstance(prefilter, MergedPrefilter):
        return _hyperscan_part(prefilter.fast)
    return None


def make_selector(rules: Sequence[CompiledRule], engine: str, prefilter: Prefilter) -> RuleSelector:
    """The prefilter's hyperscan database where it has one (its first ``len(rules)`` pattern ids
    are the rules' indices), RE2 for the required literals of the rules it lacks (unless the
    engine is re), Python's ``in`` for the rest."""
    literal_set = engine != "re"
    hs = _hyperscan_part(prefilter)
    if hs is not None:
        held = [i for i in hs.pattern_ids if i < len(rules)]
        return RuleSelector(rules, full=_RulesOnly(hs, len(rules)), full_ids=held, literal_set=literal_set)
    return RuleSelector(rules, literal_set=literal_set)


class _RulesOnly:
    """A scanner's ids less those past the rules (the structural patterns)."""

    def __init__(self, scanner: _IdScanner, count: int) -> None:
        self._scanner = scanner
        self._count = count

    def ids(self, data: bytes) -> list[int]:
        count = self._count
        return [i for i in self._scanner.ids(data) if i < count]


_UNSET: Any = object()


class RuleSet:
    """A compiled set of rules, ready to scan buffers and verify lines.

    A RuleSet pickles (the rule cache of :mod:`detector.rules.cache`): hyperscan's database as
    hyperscan serialises it, RE2 objects as what rebuilds them. Each rule's RE2 twin (for lines
    over :data:`SHORT_TEXT` characters) is compiled when first needed."""

    def __init__(self, rules: Sequence[CompiledRule], *, engine: str = "auto") -> None:
        rules = tuple(rules)
        patterns = [r.pattern for r in rules] + list(STRUCTURAL)
        prefilter = make_prefilter(patterns, engine)
        self._setup(rules, prefilter, make_selector(rules, engine, prefilter))

    def _setup(self, rules: tuple[CompiledRule, ...], prefilter: Prefilter, selector: RuleSelector) -> None:
        self.rules: tuple[CompiledRule, ...] = rules
        self.prefilter: Prefilter = prefilter
        self.selector = selector
        self._index = {id(r): i for i, r in enumerate(rules)}
        # each rule's RE2 twin (None: ``re`` only), and those of its window.next and unless (by
        # "next:"/"unless:" and its id), compiled when first needed
        self._twins: list[Any] = [_UNSET] * len(rules)
        self._extra_twins: dict[str, Any] = {}
        # per stream kind, by rule index: the rule where it applies, else None
        self._by_kind = {kind: tuple(r if r.applies_to(kind) else None for r in rules) for kind in StreamKind}
        # rules anchored at the message's start ('^'): tried after a collector's leading stamp, then
        # on the whole message (a pattern may begin with the program's own stamp)
        self._anchored = frozenset(i for i, r in enumerate(rules) if r.pattern.startswith("^"))

    def __reduce__(self) -> tuple[Any, ...]:
        return _restore_ruleset, (self.rules, self.prefilter, self.selector)

    def _twin(self, index: int) -> Any | None:
        twin = self._twins[index]
        if twin is _UNSET:
            twin = self._twins[index] = linear_twin(self.rules[index].pattern)
        return twin

    @property
    def engine(self) -> str:
        return self.prefilter.name

    def rule_index(self, rule: CompiledRule) -> int:
        """The position of one of this set's rules in :attr:`rules`."""
        return self._index[id(rule)]

    def match(self, message: str, kind: StreamKind, ids: Sequence[int] | None = None) -> list[RuleMatch]:
        """All rules that match one message (fallback rules only when nothing else did).
        ``ids``: the rules the prefilter's scan saw match in the line ending with ``message``
        (from :meth:`candidate_lines`), which spares the selector a scan of its own."""
        return [v.result() for v in self.verify(message, kind, ids)]

    def verify(self, message: str, kind: StreamKind, ids: Sequence[int] | None = None) -> list[Verified]:
        """:meth:`match`, each rule's fields read from its match when first asked for (a line
        the evidence cap turns down never needs them)."""
        text = message if len(message) <= MAX_MATCH_CHARS else message[:MAX_MATCH_CHARS]
        return self._verify(text, kind, self.selector.select(text, ids))

    def match_all(self, message: str, kind: StreamKind) -> list[RuleMatch]:
        """:meth:`match` verifying every rule (no selector): the reference the selectors are
        tested against."""
        text = message if len(message) <= MAX_MATCH_CHARS else message[:MAX_MATCH_CHARS]
        return [v.result() for v in self._verify(text, kind, range(len(self.rules)))]

    def _verify(self, text: str, kind: StreamKind, selected: Iterable[int]) -> list[Verified]:
        found: list[Verified] = []
        fallbacks: list[Verified] = []
        short = len(text) <= SHORT_TEXT  # the common case: plain re, no wrapper call per rule
        by_index = self._by_kind[kind]
        # a log collector's stamp before the program's text (Kubernetes, fluentd, `ts`): the
        # rules anchored at the start of the message read what follows it
        # (or a console progress bar the line was written right after: tqdm ends its bar with no newline)
        anchored = self._anchored
        body: str | None = None  # (looked for when a selected rule is anchored: most lines have none)
        for i in selected:
            rule = by_index[i]
            if rule is None:
                continue
            if i in anchored:
                if body is None:
                    start = anchored_start(text)
                    body = text[start:] if start else text
                subject = body
            else:
                subject = text
            m = rule.regex.search(subject) if short else linear_search(rule.regex, self._twin(i), subject)
            if m is None and subject is not text:  # an anchored rule whose pattern starts with the stamp itself
                subject = text
                m = rule.regex.search(subject) if short else linear_search(rule.regex, self._twin(i), subject)
            if m is None or (rule.unless is not None and self._excluded(rule, subject, short)):
                continue
            (fallbacks if rule.fallback else found).append(Verified(rule, m))
        return found if found else fallbacks

    def _excluded(self, rule: CompiledRule, text: str, short: bool) -> bool:
        """Whether ``rule.unless`` matches ``text`` (in linear time on a long line, as the
        pattern is searched)."""
        unless = rule.unless
        assert unless is not None
        if short:
            return unless.search(text) is not None
        twin = self._extra_twin("unless:" + rule.id, unless.pattern)
        return linear_search(unless, twin, text) is not None

    def search_next(self, rule: CompiledRule, text: str) -> re.Match[str] | None:
        """A multi-line rule's ``window.next`` searched in a following line (same limits)."""
        if rule.window_next is None:
            return None
        text = text if len(text) <= MAX_MATCH_CHARS else text[:MAX_MATCH_CHARS]
        if len(text) <= SHORT_TEXT:
            return rule.window_next.search(text)
        return linear_search(rule.window_next, self._extra_twin("next:" + rule.id, rule.window_next.pattern), text)

    def _extra_twin(self, key: str, pattern: str) -> Any | None:
        twin = self._extra_twins.get(key, _UNSET)
        if twin is _UNSET:
            twin = self._extra_twins[key] = linear_twin(pattern)
        return twin

    def candidates(self, buf: bytes, start: int, end: int) -> Iterator[int]:
        return self.prefilter.candidates(buf, start, end)

    def candidate_lines(self, buf: bytes, start: int, end: int) -> Iterator[tuple[int, list[int] | None]]:
        """The candidate lines of buf[start:end] (their starts, in order) with, where the
        prefilter knows them (hyperscan: one scan of the whole range), the indices of the rules
        with a match that ends in each line; else None (the selector will look). A range of JSON
        log records is looked at as the messages they hold (:func:`json_record_messages`), each
        line where it was."""
        if buf[start:start + 2] == b'{"' and _mostly_records(buf, start, end):
            return self._record_lines(buf, start, end)
        lines = getattr(self.prefilter, "lines", None)
        if lines is None:
            return ((off, None) for off in self.prefilter.candidates(buf, start, end))
        return iter(lines(buf, start, end, len(self.rules)))

    def _record_lines(self, buf: bytes, start: int, end: int) -> Iterator[tuple[int, list[int] | None]]:
        shadow = json_record_messages(buf[start:end])
        at, seen = start, 0  # the start of the range's line number ``seen`` in ``buf``
        last = 0
        find = buf.find
        lines = getattr(self.prefilter, "lines", None)  # (hyperscan: one scan of the whole range)
        offsets = ([off for off, _ids in lines(shadow, 0, len(shadow), len(self.rules))] if lines is not None
                   else self.prefilter.candidates(shadow, 0, len(shadow)))
        for off in offsets:
            line = seen + shadow.count(b"\n", last, off)  # (each record one line in both)
            last = off
            while seen < line:
                at = find(b"\n", at, end) + 1
                seen += 1
            yield at, None  # (the selector looks at the message itself)


RECORDS_SHARE = 0.5  # of a range's lines, at least, JSON records for it to be read as records


def _mostly_records(buf: bytes, start: int, end: int) -> bool:
    """Whether at least :data:`RECORDS_SHARE` of buf[start:end]'s lines begin a JSON record (a
    plain log's range that happens to start with one is read as it is)."""
    lines = buf.count(b"\n", start, end) + 1
    return buf.count(b'\n{"', start, end) + 1 >= RECORDS_SHARE * lines


def _restore_ruleset(rules: tuple[CompiledRule, ...], prefilter: Prefilter, selector: RuleSelector) -> RuleSet:
    ruleset = RuleSet.__new__(RuleSet)
    ruleset._setup(rules, prefilter, selector)
    return ruleset
