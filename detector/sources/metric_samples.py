"""One sample of a GPU metric export: its value and its time, read leniently.

DCGM's blank sentinels (values >= :data:`DCGM_BLANK_MIN`), N/A cells and non-finite values are
no value; times are epoch seconds from numbers (or finer units), ISO-8601 or nvidia-smi's format.
"""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime

DCGM_BLANK_MIN = 9223372036854775792  # 0x7ffffffffffffff0: DCGM's int64 "blank" range starts here
_BLANK_FLOAT = float(DCGM_BLANK_MIN)

Labels = tuple[tuple[str, str], ...]
Sample = tuple[str, Labels, float, float]
"""(metric name, sorted labels, epoch seconds, value): what the format readers hand out."""


def _is_blank(number: float) -> bool:
    return number >= _BLANK_FLOAT


def sample_value(text: object) -> float | None:
    """A sample value; None for blanks, sentinels, N/A and non-finite values."""
    if isinstance(text, bool):
        return None
    if isinstance(text, int | float):
        number = float(text)
    elif isinstance(text, str):
        raw = text.strip()
        if not raw:
            return None
        if raw.isdigit() and int(raw) >= DCGM_BLANK_MIN:
            return None
        if raw.lower().startswith("0x"):
            try:
                return float(int(raw, 16))
            except ValueError:
                return None
        match = re.match(
            r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?|[-+]?(?:inf|nan)", raw, re.IGNORECASE
        )
        if match is None:
            return None
        number = float(match.group(0))
    else:
        return None
    if not math.isfinite(number) or _is_blank(number):
        return None
    return number


def sample_time(text: object) -> float | None:
    """Epoch seconds from a number (seconds, or ms/us/ns when that large), ISO-8601 or
    nvidia-smi's ``2026/11/30 12:00:01.123`` (times without a zone are UTC)."""
    if isinstance(text, int | float) and not isinstance(text, bool):
        number = float(text)
    elif isinstance(text, str):
        raw = text.strip()
        if not raw:
            return None
        try:
            number = float(raw)
        except ValueError:
            try:
                moment = datetime.fromisoformat(raw.replace("/", "-").replace("Z", "+00:00"))
            except ValueError:
                return None
            if moment.tzinfo is None:
                moment = moment.replace(tzinfo=UTC)
            return moment.timestamp()
    else:
        return None
    if not math.isfinite(number):
        return None
    # seconds since 1970 stay below 1e11 until the year 5138: larger numbers are finer units
    for limit, divisor in ((1e17, 1e9), (1e14, 1e6), (1e11, 1e3)):
        if abs(number) >= limit:
            return number / divisor
    return number
