"""Shared fixtures."""

from __future__ import annotations

from pathlib import Path

import pytest

from detector.replay import load_ruleset
from detector.rules.engine import RuleSet

ROOT = Path(__file__).resolve().parents[1]
REPLAY_LOGS = ROOT / "replay_logs"


@pytest.fixture(scope="session")
def ruleset() -> RuleSet:
    """The shipped rules, compiled once per session (default engine)."""
    return load_ruleset()


@pytest.fixture(scope="session")
def re_ruleset() -> RuleSet:
    """The shipped rules with the pure-re prefilter."""
    return load_ruleset(engine="re")
