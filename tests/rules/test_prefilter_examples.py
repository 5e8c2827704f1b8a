"""The fast prefilter (hyperscan, one scan of a whole buffer) must find every example line of
every shipped rule and name that rule for it: a pattern hyperscan reads differently from ``re``
would otherwise be skipped silently in every replay. (One was: a bounded repeat before an
alternation whose branches shared a quoted word matched under ``re`` and never under hyperscan.)"""

from __future__ import annotations

from detector.rules.engine import RuleSet


def test_the_prefilter_finds_every_example_line(ruleset: RuleSet) -> None:
    missed = []
    for index, rule in enumerate(ruleset.rules):
        for line, _fields in rule.examples:
            data = ("a line before\n" + line + "\n").encode()
            found = list(ruleset.candidate_lines(data, 0, len(data)))
            start = len("a line before\n")
            if not any(off == start and (ids is None or index in ids) for off, ids in found):
                missed.append((rule.id, line))
    assert not missed, missed
