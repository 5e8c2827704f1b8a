"""Host names a paste redacted or never filled in (``xxxxxxxx``, ``<hostname>``, ``host``): no
node of the run, so never a node to name or drain."""

from __future__ import annotations

import re

_PLACEHOLDERS = frozenset({
    "host", "hostname", "host-name", "host_name", "node", "nodename", "node-name", "node_name",
    "your-host", "yourhost", "your_host", "myhost", "redacted", "removed", "hidden", "masked",
})
_MASK = re.compile(r"[x*#?._-]{2,}", re.IGNORECASE)  # "xxx", "XXXX", "***", "x.x.x.x"


def placeholder_host(name: str) -> bool:
    """True for a name that stands for a host rather than naming one: all masking characters,
    a run of ``xxx`` or ``***`` inside it, a ``<...>`` slot, or a generic word."""
    low = name.strip().lower()
    if not low:
        return True
    if low.startswith("<") or low.endswith(">") or low.startswith("$") or low.startswith("{"):
        return True
    return low in _PLACEHOLDERS or bool(_MASK.fullmatch(low)) or "xxx" in low or "***" in low
