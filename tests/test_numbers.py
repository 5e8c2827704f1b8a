"""Rank-like numbers from log text (peer ranks, missing ranks, last completed collectives) never
crash attribution: 5,000 digits and Unicode digits that ``str.isdigit`` accepts and ``int`` does
not (found while fuzzing; ``int`` refuses more than 4,300 digits)."""

from __future__ import annotations

from pathlib import Path

import pytest

from detector.pipeline.runmodel import expand_ranks
from detector.replay import load_ruleset, replay_path
from detector.support.numbers import small_int


@pytest.mark.parametrize(("text", "kwargs", "want"), [
    ("12", {}, 12), (" 7 ", {}, 7), ("-1", {"signed": True}, -1), ("-1", {}, None), ("9" * 5000, {}, None),
    ("²", {}, None), ("٣", {}, None), ("", {}, None), (None, {}, None), ("1_000", {}, None), ("+3", {}, None),
    ("123456789", {}, 123456789), ("1234567890", {}, None), ("1234567890", {"digits": 10}, 1234567890),
])
def test_small_int(text: str | None, kwargs: dict[str, object], want: int | None) -> None:
    assert small_int(text, **kwargs) == want  # type: ignore[arg-type]


def test_rank_ranges_with_absurd_numbers_are_skipped() -> None:
    assert expand_ranks("1-3,²,4," + "9" * 5000 + ",5-" + "9" * 5000) == [1, 2, 3, 4]


RULE = """\
rules:
  - id: site.peer_named
    description: a site wrapper names the peer it lost (loose captures, as user rules have)
    source: rank_log
    role: collateral
    cause: null
    severity: error
    pattern: 'lost peer rank (?P<peer_rank>[^,]+), missing ranks (?P<missing_ranks>\\S+) last completed (?P<last_completed>\\S+)'
    examples:
      - line: 'lost peer rank 3, missing ranks 3,4, last completed 17'
        fields: {peer_rank: "3", missing_ranks: "3,4,", last_completed: "17"}
"""


def test_attribution_survives_huge_and_unicode_rank_fields(tmp_path: Path) -> None:
    rules = tmp_path / "site.yaml"
    rules.write_text(RULE)
    ruleset = load_ruleset([rules])
    run = tmp_path / "run"
    run.mkdir()
    huge = "9" * 5000
    (run / "rank_0.log").write_text(f"2026-11-29T12:00:05Z lost peer rank {huge}, missing ranks {huge},²,1, last completed -{huge}\n")
    (run / "rank_2.log").write_text("2026-11-29T12:00:05Z lost peer rank ², missing ranks ٣, last completed ²\n")
    (run / "rank_3.log").write_text("2026-11-29T12:00:05Z lost peer rank 1, missing ranks 1, last completed 3\n")
    (run / "rank_1.log").write_text("2026-11-29T12:00:01Z step 3 | loss 1.0\n")
    report = replay_path(run, ruleset)
    assert len(report.incidents) == 1
    assert report.incidents[0].initiator.rank == 1  # the only sane votes point at rank 1
