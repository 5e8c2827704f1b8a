"""Runs the forty-fourth session's review built, where a new reading had turned a right diagnosis
wrong: each must keep the diagnosis the earlier code gave, or name no host that is a word
(tests/replay/data/review44/)."""

from __future__ import annotations

from pathlib import Path

import pytest

from detector.rules.engine import RuleSet
from detector.types import Cause
from tests.support.replaying import incidents_of

DATA = Path(__file__).parent / "data" / "review44"

# the run -> its first incident's (cause, rank, node), or None where it raises none
EXPECTED: dict[str, tuple[Cause, int | None, str | None] | None] = {
    # a weight broadcast to inference engines: rank 3 two broadcasts behind the root and its peers,
    # of another size - a broadcast's root runs ahead of a stuck receiver by itself: a hang
    "bcast_eager_ahead": (Cause.HANG, 3, None),
    # the same with a reduce whose root is behind
    "reduce_root_behind": (Cause.HANG, 0, None),
    # "slowest rank 14 (node gpu63)": the word in the parentheses is no host
    "slowest_node_word": (Cause.STRAGGLER, 14, None),
    # rank 2 slow for nine lines, then back to its peers' time while two of them had stopped
    # logging (and, in the second, while it alone logged): recovered, no straggler at the end
    "straggler_recovered_two": None,
    "straggler_recovered_tail": None,
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_the_review_runs_keep_their_diagnosis(name: str, tmp_path: Path, ruleset: RuleSet) -> None:
    files = {str(p.relative_to(DATA / name)): p.read_text() for p in sorted((DATA / name).rglob("*")) if p.is_file()}
    seen = incidents_of(tmp_path, files, ruleset)
    want = EXPECTED[name]
    if want is None:
        assert not seen, seen[:2]
    else:
        assert seen and (seen[0].cause, seen[0].rank, seen[0].node) == want, seen[:2]
