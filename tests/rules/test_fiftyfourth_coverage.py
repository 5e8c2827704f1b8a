"""`rules coverage` bounded (a hostile tester of the fifty-fourth session)."""

from __future__ import annotations

from pathlib import Path

import pytest


def test_rules_coverage_clusters_a_bounded_number_of_lines(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`rules coverage` on a log of ever new unmatched error lines took time quadratic in them (a
    hostile tester: 40,000 lines in 117 s, 300,000 in hours); past MAX_MINED they are counted in
    one cluster of their own, which makes no rule stub."""
    from detector.authoring import coverage as cov
    from detector.authoring.stubs import make_stubs
    from detector.rules.compile import load_ruleset

    monkeypatch.setattr(cov, "MAX_MINED", 5)
    run = tmp_path / "run"
    run.mkdir()
    words = ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet")
    (run / "train.log").write_text("".join(f"ERROR {w} {v} unit stalled badly\n" for w in words for v in words[:2]))
    got = cov.coverage(run, load_ruleset())
    assert got.unmatched == 20
    overflow = [c for c in got.clusters if not c.mined]
    assert len(overflow) == 1 and overflow[0].count == 15
    assert all(s.cluster.mined for s in make_stubs(got.clusters)) and len(make_stubs(got.clusters)) == len(got.clusters) - 1
