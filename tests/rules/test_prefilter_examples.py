"""The fast prefilter (hyperscan, one scan of a whole buffer) must find every example line of
every shipped rule and its selector try that rule on it: a pattern hyperscan reads differently
from ``re`` would otherwise be skipped silently in every replay. (One was: a bounded repeat before
an alternation whose branches shared a quoted word matched under ``re`` and never under hyperscan.)
The same check ``rankdoctor rules validate`` makes (authoring.validate.prefilter_misses)."""

from __future__ import annotations

import pytest

from detector.authoring.validate import prefilter_misses
from detector.rules.engine import RuleSet


def test_the_prefilter_finds_every_example_line(ruleset: RuleSet) -> None:
    if not ruleset.engine.startswith("hyperscan"):
        pytest.skip(f"the prefilter here is {ruleset.engine}, not hyperscan")
    missed = sorted((ruleset.rules[i].id, ruleset.rules[i].examples[n][0]) for i, n in prefilter_misses(ruleset.rules))
    assert not missed, missed
