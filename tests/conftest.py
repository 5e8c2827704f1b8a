"""Shared fixtures."""

from __future__ import annotations

import pytest

from detector.rules.compile import load_ruleset
from detector.rules.engine import RuleSet
from tests.support.paths import REPLAY_LOGS, ROOT  # noqa: F401 - still importable from here


@pytest.fixture(scope="session")
def ruleset() -> RuleSet:
    """The shipped rules, compiled once per session (default engine)."""
    return load_ruleset()


@pytest.fixture(scope="session")
def re_ruleset() -> RuleSet:
    """The shipped rules with the pure-re prefilter."""
    return load_ruleset(engine="re")
