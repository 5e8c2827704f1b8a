"""Number arguments that argparse checks itself, so a bad value is a usage error naming the option
(``nan``, ``inf``, ``0`` or a negative value used to reach the code that raised on it)."""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable


def finite(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be a finite number, not {text!r}")
    return value


def positive(text: str) -> float:
    value = finite(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be above 0, not {text!r}")
    return value


def not_negative(text: str) -> float:
    value = finite(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, not {text!r}")
    return value


def between(low: float, high: float) -> Callable[[str], float]:
    """A number from ``low`` to ``high``, the bounds a config file's value of the setting has."""
    def check(text: str) -> float:
        value = finite(text)
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be from {low:g} to {high:g}, not {text!r}")
        return value

    check.__name__ = "number"
    return check


def seconds_up_to(limit: float, *, above_zero: bool = False) -> Callable[[str], float]:
    """A duration of 0 (or, ``above_zero``, more) up to ``limit`` seconds: the bounds a config
    file's value of the same setting has (``--settle 1e308`` was taken, and nothing was reported)."""
    def check(text: str) -> float:
        value = positive(text) if above_zero else not_negative(text)
        if value > limit:
            raise argparse.ArgumentTypeError(f"must be at most {limit:.0f} seconds, not {text!r}")
        return value

    check.__name__ = "seconds"  # (argparse names the type in its message when the value is refused)
    return check


def pid(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a process id: {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"a process id is above 0, not {text!r}")
    return value
