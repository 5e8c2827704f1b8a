"""Argument templates: ``["--resume-from", "{checkpoint}"]`` filled from a fixed set of names.

Only ``{name}`` placeholders from an allowed set are recognised (no attribute access, no format
specs); an unknown one is a config error. Each template element stays one argument.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from detector.support.settings import Settings

_PLACEHOLDER = re.compile(r"\{([^{}]*)\}")


def check_template(settings: Settings, key: str, args: Sequence[str],
                   allowed: Sequence[str]) -> tuple[str, ...]:
    for arg in args:
        for name in _PLACEHOLDER.findall(arg):
            if name not in allowed:
                raise settings.error(key, f"unknown placeholder {{{name}}} in {arg!r} "
                                          f"(known: {', '.join('{' + a + '}' for a in allowed)})")
    return tuple(args)


def render(args: Sequence[str], values: Mapping[str, str | None]) -> tuple[str, ...]:
    """Fill the placeholders; a value that is unknown (None) becomes an empty string."""
    return tuple(_PLACEHOLDER.sub(lambda m: values.get(m.group(1)) or "", a) for a in args)
