"""No rule can make matching super-linear: patterns with catastrophic shapes are refused when
loaded (also in ``window.next``), and patterns that pass those checks but are quadratic when
*searched* in a long line (``(?P<host>\\S+) kernel:``) are run through RE2, in linear time, with
the same results as Python's ``re``."""

from __future__ import annotations

import random
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import detector.rules.engine as engine
import detector.rules.scanners as scanners
from detector.replay import replay_path
from detector.rules.compile import load_ruleset
from detector.rules.engine import RuleSet
from detector.rules.loader import load_rules
from detector.rules.scanners import linear_twin
from detector.types import StreamKind

RULE = """\
rules:
  - id: site.{name}
    description: a site rule
    source: any
    role: context
    pattern: '{pattern}'
    examples:
      - line: '{example}'
{extra}"""

QUADRATIC_WHEN_SEARCHED = [  # pass the static checks; ~20 s on one 64 KiB line with plain re
    (r"(?P<host>\S+) kernel: site-marker", "node01 kernel: site-marker"),
    (r"\w+=(?P<v>\d+) site-marker", "key=1 site-marker"),
    (r"[a-z]+Q", "abcQ"),
]


def _site(tmp_path: Path, pattern: str, example: str, extra: str = "", name: str = "r") -> Path:
    path = tmp_path / f"{name}.yaml"
    path.write_text(RULE.format(name=name, pattern=pattern, example=example, extra=extra))
    return path


@pytest.mark.parametrize("pattern", [r"(a+)+$", r"(\s*\w+)*x", r"(.*)*y", r"(x+x+)+y", r"(a|aa)+b",
                                     r"(?:a|b|ab)*c", r"(.*,){11}P", r"\s*\s*=", r".*.*=x", r"(ab?a?)+c"])
def test_catastrophic_patterns_are_refused(tmp_path: Path, pattern: str) -> None:
    problems = load_rules([], [_site(tmp_path, pattern, "x")]).problems
    assert any("catastrophic backtracking" in p.format() for p in problems), [p.format() for p in problems]


@pytest.mark.parametrize("pattern", [r"(a+)+$", r"(x+x+)+y", r".*.*=x"])
def test_catastrophic_window_next_is_refused(tmp_path: Path, pattern: str) -> None:
    """``window.next`` is searched in the lines after a match; it was only compiled, never
    checked, so ``(a+)+$`` there was accepted."""
    extra = f"    window: {{next: '{pattern}', within: 3}}\n"
    problems = load_rules([], [_site(tmp_path, "site-marker", "site-marker", extra)]).problems
    assert any("window.next risks catastrophic backtracking" in p.format() for p in problems)


def test_search_quadratic_user_rules_run_in_linear_time(tmp_path: Path) -> None:
    """A log line that a shipped rule flags, padded to the 64 KiB the engine matches: each user
    rule above used to cost ~10-25 s on it (quadratic re search); now milliseconds."""
    site = tmp_path / "site"
    site.mkdir()
    for n, (pattern, example) in enumerate(QUADRATIC_WHEN_SEARCHED):
        _site(site, pattern, example, name=f"r{n}")
    rules = load_ruleset([site])
    assert len([r for r in rules.rules if r.id.startswith("site.")]) == len(QUADRATIC_WHEN_SEARCHED)
    run = tmp_path / "run"
    run.mkdir()
    line = "[rank0]: RuntimeError: CUDA error: an illegal memory access was encountered " + "a" * 65_000
    (run / "rank_0.log").write_text((line + "\n") * 3)
    started = time.monotonic()
    report = replay_path(run, rules)
    assert time.monotonic() - started < 5
    assert [i.cause.value for i in report.incidents] == ["illegal_memory_access"]


def test_prefilter_without_hyperscan_is_linear(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without hyperscan, the one-scan prefilter was a Python ``re`` alternation over whole
    buffers: quadratic in a line's length (a 1 MiB line and ``[a-z]+Q``: hours). It now scans
    with RE2 where RE2 can run every pattern (so shipped rules keep their counted repeats within
    RE2's limit of 1,000)."""
    monkeypatch.setattr(scanners, "_hyperscan_available", lambda: False)
    rules = load_ruleset([_site(tmp_path, r"[a-z]+Q", "abcQ")])
    assert rules.engine == "re2"
    buf = b"a" * 200_000 + b"\nxyzQ\n"
    started = time.monotonic()
    assert list(rules.candidates(buf, 0, len(buf))) == [200_001]
    # quadratic would be hours; RE2 with ~270 patterns takes 3-4 s here on a loaded machine, so
    # the bound leaves room for a slower CI machine (one rule whose leading character class had a
    # long counted repeat once added 1-2 s to this scan by itself)
    assert time.monotonic() - started < 20


def test_every_shipped_rule_is_linear_on_adversarial_lines(ruleset: RuleSet) -> None:
    """Each shipped rule's example, cut at every separator and repeated to 64 KiB (the shape
    that makes backtracking searches quadratic), through the whole rule set."""
    worst = 0.0
    for rule in ruleset.rules:
        example = rule.examples[0][0]
        cuts = {example[: i + 1] for i, c in enumerate(example) if c in " :=(,["} | {example}
        for unit in sorted(cuts, key=len)[-3:]:
            line = (unit * (65_536 // len(unit) + 1))[:65_536]
            started = time.perf_counter()
            ruleset.match(line, StreamKind.KERNEL)
            ruleset.match(line, StreamKind.RANK_LOG)
            worst = max(worst, time.perf_counter() - started)
    assert worst < 1.0, f"slowest adversarial line: {worst:.2f} s"


_RULES = load_rules().rules
_PIECES = [ex for r in _RULES for ex, _ in r.examples] + ["x" * 700, "\x0b", "ünï", "K", "\u212a", " ", "0x1f"]


@settings(max_examples=60, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.sampled_from(_PIECES), min_size=2, max_size=30), st.integers(0, 2**32))
def test_linear_verification_gives_the_same_matches(pieces: list[str], seed: int) -> None:
    """Long lines (over SHORT_TEXT) verified through RE2 give exactly the fields and positions
    plain ``re`` gives."""
    rng = random.Random(seed)
    text = " ".join(pieces)
    if len(text) <= engine.SHORT_TEXT:
        text += " " + "y" * (engine.SHORT_TEXT + 1 - len(text)) + rng.choice(_PIECES)
    for rule in _RULES:
        plain = rule.regex.search(text)
        linear = engine.linear_search(rule.regex, linear_twin(rule.pattern), text)
        assert (plain is None) == (linear is None), rule.id
        if plain is not None and linear is not None:
            assert (plain.span(), plain.groupdict()) == (linear.span(), linear.groupdict()), rule.id
