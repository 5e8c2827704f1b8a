"""Rules from files to a compiled :class:`RuleSet`, all problems reported at once."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from detector.errors import RuleLoadError
from detector.rules.engine import RuleSet
from detector.rules.loader import load_rules


def load_ruleset(user_rules: Sequence[Path] = (), *, engine: str = "auto", shipped: Sequence[Path] | None = None) -> RuleSet:
    """Load and compile every rule up front; any problem stops here with every message."""
    result = load_rules(shipped, user_rules)
    if result.problems:
        raise RuleLoadError(result.problems)
    return RuleSet(result.rules, engine=engine)
