"""The fast prefilter (hyperscan, one scan of a whole buffer) must find every example line of
every shipped rule and its selector try that rule on it: a pattern hyperscan reads differently
from ``re`` would otherwise be skipped silently in every replay. (One was: a bounded repeat before
an alternation whose branches shared a quoted word matched under ``re`` and never under hyperscan.)"""

from __future__ import annotations

import pytest

from detector.rules.engine import RuleSet


def test_the_prefilter_finds_every_example_line(ruleset: RuleSet) -> None:
    if not ruleset.engine.startswith("hyperscan"):
        pytest.skip(f"the prefilter here is {ruleset.engine}, not hyperscan")
    missed = []
    start = len("a line before\n")
    for index, rule in enumerate(ruleset.rules):
        for line, _fields in rule.examples:
            data = ("a line before\n" + line + "\n").encode()
            if not any(off == start and index in set(ruleset.selector.select(line, ids))
                       for off, ids in ruleset.candidate_lines(data, 0, len(data))):
                missed.append((rule.id, line))
    assert not missed, missed
