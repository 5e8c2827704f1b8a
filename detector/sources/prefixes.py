"""Rank prefixes of combined logs: ``[rank3]:``, ``[default3]:``, ``[default0]:[rank12]:``,
srun ``--label`` ``3: ``, ``[rank=3] ||`` — recognised and removed, giving the message rules see."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum


class PrefixStyle(StrEnum):
    NONE = "none"
    BRACKETS = "brackets"  # [rankN]: / [defaultN]: / [rank=N] ||
    SRUN_LABEL = "srun_label"  # "N: " at the start of every line


@dataclass(frozen=True, slots=True)
class Prefixed:
    message: str
    rank: int | None
    local_rank: int | None


_BRACKET = re.compile(r"\[(?:rank(?P<rank>\d{1,6})|default(?P<local>\d{1,4})|rank=(?P<rank_eq>\d{1,6}))\](?::|\s*\|\|)\s?")
_SRUN = re.compile(r"\s{0,6}(?P<task>\d{1,6}): ")


def strip_prefix(line: str, style: PrefixStyle = PrefixStyle.BRACKETS) -> Prefixed:
    """Remove rank prefixes from the start of ``line``. ``[defaultN]`` gives a local rank,
    ``[rankN]``/``[rank=N]``/srun labels a global rank."""
    rank: int | None = None
    local: int | None = None
    pos = 0
    if style is PrefixStyle.SRUN_LABEL:
        m = _SRUN.match(line)
        if m:
            rank = int(m["task"])
            pos = m.end()
    while True:
        m = _BRACKET.match(line, pos)
        if not m:
            break
        if m["local"] is not None:
            local = int(m["local"])
        else:
            rank = int(m["rank"] if m["rank"] is not None else m["rank_eq"])
        pos = m.end()
    if pos == 0:
        return Prefixed(line, None, None)
    return Prefixed(line[pos:], rank, local)


def detect_style(sample: Iterable[str]) -> PrefixStyle:
    """Guess a file's prefix style from some of its lines: srun labels only when most lines
    carry one (a message may begin with ``12: `` by chance)."""
    lines = [s for s in sample if s.strip()]
    if not lines:
        return PrefixStyle.NONE
    labelled = sum(1 for s in lines if _SRUN.match(s))
    if labelled >= max(3, int(0.8 * len(lines))):
        return PrefixStyle.SRUN_LABEL
    bracketed = sum(1 for s in lines if _BRACKET.match(s))
    return PrefixStyle.BRACKETS if bracketed else PrefixStyle.NONE
