"""Verifying only the rules that may match a line: the selector (hyperscan's per-pattern ids,
RE2's set of required literals, Python's ``in``) must give what verifying every rule gives."""

from __future__ import annotations

import random
import re
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import detector.rules.scanners as scanners
from detector.rules.engine import RuleSet
from detector.rules.loader import CompiledRule, load_rules
from detector.rules.prefilter import required_literals
from detector.types import StreamKind

LINE = ("[E1129 12:59:01.000000 ProcessGroupNCCL.cpp:563] [Rank 3] Watchdog caught collective operation "
        "timeout: WorkNCCL(SeqNum=15735, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) "
        "ran for 600037 milliseconds before timing out.")


# several rules match the same line; one has no required literal; one has a look-ahead that
# hyperscan refuses; one is case-insensitive; one is a fallback
OVERLAP_TEMPLATE = """\
rules:
  - id: t.watchdog
    description: watchdog
    role: collateral
    pattern: 'Watchdog caught collective operation timeout: Work[A-Z]*\\(SeqNum=(?P<seq>[0-9]+)'
    examples: [{line: "EXAMPLE"}]
  - id: t.seq
    description: seq
    role: context
    pattern: 'SeqNum=(?P<seq>[0-9]+), OpType=(?P<op>[A-Z]+)'
    examples: [{line: "EXAMPLE"}]
  - id: t.nocase
    description: case-insensitive
    role: collateral
    pattern: '(?i)COLLECTIVE operation TIMEOUT'
    examples: [{line: "EXAMPLE"}]
  - id: t.noliteral
    description: no literal of 3 characters
    role: context
    pattern: '(?:ab|cd|Ra)n[a-z]'
    examples: [{line: "EXAMPLE"}]
  - id: t.lookahead
    description: hyperscan refuses look-arounds
    role: context
    pattern: 'milliseconds(?= before)'
    examples: [{line: "EXAMPLE"}]
  - id: t.kernel
    description: kernel only
    source: kernel
    role: context
    pattern: 'ran for [0-9]+ milliseconds'
    examples: [{line: "EXAMPLE"}]
  - id: t.fallback
    description: fallback
    role: initiator
    cause: python_exception
    fallback: true
    pattern: '(?P<exc>[A-Za-z]+Error): '
    examples: [{line: "ValueError: x"}]
"""
OVERLAP = OVERLAP_TEMPLATE.replace("EXAMPLE", LINE)


def _engines(rules: list[CompiledRule]) -> dict[str, RuleSet]:
    out = {"auto": RuleSet(rules), "re": RuleSet(rules, engine="re")}
    with mock.patch.object(scanners, "_hyperscan_available", lambda: False):
        out["no-hyperscan"] = RuleSet(rules)
    return out


def _ids(rs: RuleSet, text: str, kind: StreamKind, *, every: bool = False) -> list[tuple[str, tuple[tuple[str, str], ...]]]:
    found = rs.match_all(text, kind) if every else rs.match(text, kind)
    return [(m.rule.id, m.fields) for m in found]


def test_a_line_matching_several_rules_gets_all_of_them(tmp_path: Path) -> None:
    (tmp_path / "p.yaml").write_text(OVERLAP)
    result = load_rules([tmp_path])
    assert not result.problems, [p.format() for p in result.problems]
    for name, rs in _engines(result.rules).items():
        got = _ids(rs, LINE, StreamKind.RANK_LOG)
        assert [g[0] for g in got] == ["t.watchdog", "t.seq", "t.nocase", "t.noliteral", "t.lookahead", "t.kernel"], name
        assert got == _ids(rs, LINE, StreamKind.RANK_LOG, every=True), name
        assert [g[0] for g in _ids(rs, LINE, StreamKind.KERNEL)] == [
            "t.watchdog", "t.seq", "t.nocase", "t.noliteral", "t.lookahead", "t.kernel"], name
        # not ASCII, a vertical tab, other case: the literal checks answer, the same way
        for variant in (LINE + " ü", LINE.replace(" before", "\v before"), LINE.upper(), LINE.lower()):
            assert _ids(rs, variant, StreamKind.RANK_LOG) == _ids(rs, variant, StreamKind.RANK_LOG, every=True), (name, variant)
        assert _ids(rs, "ValueError: x", StreamKind.RANK_LOG) == [("t.fallback", (("exc", "ValueError"),))]
        # the selector leaves most rules out of a line that matches few
        assert len(rs.selector.select("RuntimeError: nothing else")) <= 2


def test_selector_engines_are_what_was_asked_for(tmp_path: Path) -> None:
    (tmp_path / "p.yaml").write_text(OVERLAP)
    rs = _engines(load_rules([tmp_path]).rules)
    assert rs["re"].selector.engine == "literals"
    try:
        import re2  # noqa: F401
        assert rs["no-hyperscan"].selector.engine == "re2-literals"
    except ImportError:
        assert rs["no-hyperscan"].selector.engine == "literals"
    if scanners._hyperscan_available():
        assert rs["auto"].selector.engine.startswith("hyperscan")  # + literals for the look-ahead


def test_shipped_rules_selected_match_equals_verifying_all() -> None:
    rules = load_rules().rules
    examples = [ex for r in rules for ex, _ in r.examples] + [c for r in rules for c in r.counterexamples]
    rng = random.Random(11)
    lines = list(examples)
    lines += [f"{a} {b}" for a, b in zip(rng.sample(examples, 200), rng.sample(examples, 200), strict=True)]
    lines += [x.upper() for x in examples[:100]] + [x.lower() for x in examples[:100]]
    lines += ["[rank3]: " + x + " ünï" for x in examples[:100]] + [x + "\v" for x in examples[:50]]
    lines += ["x" * 70_000 + x for x in examples[:5]]  # past the 64 KiB that is matched
    for name, rs in _engines(rules).items():
        for line in lines:
            for kind in (StreamKind.RANK_LOG, StreamKind.KERNEL):
                assert _ids(rs, line, kind) == _ids(rs, line, kind, every=True), (name, kind, line[:120])


@pytest.mark.parametrize(("pattern", "literals"), [
    ("abc", (("abc",), False)),
    ("a(?i:bcd)", (("abcd",), True)),
    ("(?i)FOO|bar", (("foo", "bar"), True)),
    ("x(ab|cd)y", None),  # every text shorter than 3 characters
    ("foo(?:bar)?baz", (("foo",), False)),
    ("(?:abc){2,}", (("abc",), False)),
    ("(?:abc)?def", (("def",), False)),
    ("(?:abc|)xyz", (("xyz",), False)),
    ("(?=abcd)de", None),
    (r"\bOOMKilled\b", (("OOMKilled",), False)),
    ("(?:abc|(?:xyz|qqq)|deff)", (("abc", "xyz", "qqq", "deff"), False)),
])
def test_required_literals(pattern: str, literals: tuple[tuple[str, ...], bool] | None) -> None:
    assert required_literals(pattern) == literals


def test_required_literals_hold_in_every_example_of_the_shipped_rules() -> None:
    for rule in load_rules().rules:
        found = required_literals(rule.pattern)
        if found is None:
            continue
        texts, nocase = found
        for ex, _ in rule.examples:
            m = re.search(rule.pattern, ex, re.ASCII)
            assert m is not None
            hay = ex.lower() if nocase else ex
            assert any(t in hay for t in texts), (rule.id, texts, ex)


# --- property: a required literal is in every text a pattern matches ---------------------------

_ATOMS = st.sampled_from(["abc", "NCCL", "error", "x", "de", r"\d+", r"[a-z]{2,5}", r"\s", ".", r"\w*", "Xid",
                          "(?:foo|barbaz)", "(?:qux)?", "timeout", "[0-9a-f]+", "(?i:WARN)"])


def _pattern(parts: list[str], alt: list[str] | None, nocase: bool) -> str:
    body = "".join(parts)
    if alt:
        body = f"(?:{body}|{''.join(alt)})"
    return ("(?i)" if nocase else "") + body


@settings(max_examples=300, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
@given(st.data(), st.lists(_ATOMS, min_size=1, max_size=6), st.none() | st.lists(_ATOMS, min_size=1, max_size=4),
       st.booleans())
def test_required_literals_are_in_every_match(data: st.DataObject, parts: list[str], alt: list[str] | None,
                                              nocase: bool) -> None:
    """Soundness, on patterns built at random: whatever text ``re`` matches holds one of the
    required literals (lower-cased where marked), or the selector would drop a rule that matches."""
    pattern = _pattern(parts, alt, nocase)
    found = required_literals(pattern)
    if found is None:
        return
    texts, lowered = found
    compiled = re.compile(pattern, re.ASCII)
    for _ in range(5):
        text = data.draw(st.from_regex(compiled) | st.text(max_size=30).map(lambda s, p=pattern: s + p.replace("\\", "")))
        if compiled.search(text):
            haystack = text.lower() if lowered else text
            assert any(t in haystack for t in texts), (pattern, texts, text)
