"""Small helpers shared by the detectors to write findings: times, numbers, field tuples."""

from __future__ import annotations

import math
from collections.abc import Iterable
from datetime import UTC, datetime


def utc(epoch: float | None) -> datetime | None:
    if epoch is None or not math.isfinite(epoch):
        return None
    return datetime.fromtimestamp(epoch, tz=UTC)


def iso(epoch: float | None) -> str:
    moment = utc(epoch)
    return moment.isoformat().replace("+00:00", "Z") if moment else ""


def num(value: float, digits: int = 4) -> str:
    """A number as a short string: 4 significant digits, no exponent for everyday sizes."""
    if not math.isfinite(value):
        return str(value)
    if value == 0:
        return "0"
    magnitude = abs(value)
    if 1e-3 <= magnitude < 1e7:
        decimals = max(0, digits - 1 - math.floor(math.log10(magnitude)))
        text = f"{value:.{decimals}f}"
        if "." in text:
            text = text.rstrip("0").rstrip(".")
        return text
    return f"{value:.{digits - 1}e}"


def ms(seconds: float) -> str:
    return f"{seconds * 1e3:.1f}"


def pct(fraction: float) -> str:
    return f"{fraction * 100:+.1f}%"


def ranks_text(ranks: Iterable[int], limit: int = 12) -> str:
    items = sorted(ranks)
    shown = ", ".join(str(r) for r in items[:limit])
    if len(items) > limit:
        shown += f" and {len(items) - limit} more"
    return shown


def pairs(**values: object) -> tuple[tuple[str, str], ...]:
    """Fields for a Finding, skipping None; numbers formatted with num()."""
    out: list[tuple[str, str]] = []
    for key, value in values.items():
        if value is None:
            continue
        if isinstance(value, bool):
            out.append((key, "true" if value else "false"))
        elif isinstance(value, float):
            out.append((key, num(value)))
        else:
            out.append((key, str(value)))
    return tuple(out)
