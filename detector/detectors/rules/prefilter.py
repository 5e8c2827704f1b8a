"""How the one-scan prefilter sees a rule's pattern."""

from __future__ import annotations

import re

_NAMED_GROUP = re.compile(r"\(\?P<[A-Za-z_]\w*>")
_LEADING_FLAGS = re.compile(r"^\(\?([aiLmsux]+)\)")


def prefilter_pattern(pattern: str) -> str:
    """The pattern as the prefilter sees it: no leading ``^`` (the message starts after a rank
    prefix), named groups made plain, leading inline flags scoped (``(?i)x`` -> ``(?i:x)``) so
    that patterns can be joined into one alternation."""
    if pattern.startswith("^"):
        pattern = pattern[1:]
    m = _LEADING_FLAGS.match(pattern)
    if m:
        pattern = f"(?{m.group(1)}:{pattern[m.end():]})"
    return _NAMED_GROUP.sub("(?:", pattern)
