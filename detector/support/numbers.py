"""Numbers taken from log text: ranks, pids, sequence numbers. Log text can hold anything that
a regex's ``\\d`` accepts -- 5,000 digits, superscripts (``'²'.isdigit()`` is true and ``int('²')``
raises) -- so every such field goes through :func:`small_int`."""

from __future__ import annotations

from collections.abc import Iterable


def small_int(value: str | None, *, digits: int = 9, signed: bool = False) -> int | None:
    """The ASCII decimal ``value`` (optionally with a leading minus) as an int, when it has at
    most ``digits`` digits; None for anything else."""
    if value is None:
        return None
    text = value.strip()
    body = text[1:] if signed and text.startswith("-") else text
    if not body or len(body) > digits or not body.isascii() or not body.isdigit():
        return None
    return int(text)


def field_float(value: str | None) -> float:
    """A finding's numeric field (a change, a score, a clock) as a float; 0.0 when it is missing or
    not a number."""
    try:
        return float(value) if value is not None else 0.0
    except ValueError:
        return 0.0


MAX_RANKS = 1 << 20
"""Rank ids and world sizes a log may claim: at most about a million GPUs. A larger claim (one
init line saying ``nranks 99999999999``) is not believed, so nothing is ever sized by it."""


def consecutive_runs(values: Iterable[int]) -> list[tuple[int, int]]:
    """The runs of consecutive integers among ``values`` (each once, in order), as (first,
    last): ``[4, 0, 1, 2, 5, 2]`` -> ``[(0, 2), (4, 5)]``. Each report's rank list words them
    its own way."""
    ordered = sorted(set(values))
    runs: list[tuple[int, int]] = []
    for v in ordered:
        if runs and v == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], v)
        else:
            runs.append((v, v))
    return runs


def spelled_runs(values: Iterable[int]) -> list[str]:
    """Each run of three or more as ``first-last``, shorter runs as their numbers, one each:
    ``[0, 1, 2, 5, 7, 8]`` -> ``["0-2", "5", "7", "8"]``."""
    parts: list[str] = []
    for a, b in consecutive_runs(values):
        if b - a >= 2:
            parts.append(f"{a}-{b}")
        else:
            parts.extend(str(v) for v in range(a, b + 1))
    return parts


def rank_ranges(ranks: Iterable[int]) -> str:
    """``[4, 0, 1, 2, 5, 2]`` -> ``"0-2,4-5"``; an empty input gives ``""``."""
    return ",".join(str(a) if a == b else f"{a}-{b}" for a, b in consecutive_runs(ranks))
