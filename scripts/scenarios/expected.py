"""The ground truth of a scenario: ``expected.json`` (format in docs/architecture.md) and its writer."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from .model import Proc


def expect(description: str, incidents: list[dict[str, Any]], **more: Any) -> dict[str, Any]:
    return {"description": description, "origin": "synthetic", "incidents": incidents, **more}


def incident(cause: str, *, rank: int | None, node: str | None = None, gpu: str | None = None,
             collateral: Sequence[int] | None = None, include: Sequence[int] | None = None,
             drain: bool | None = None, omit_node: bool = False) -> dict[str, Any]:
    ini: dict[str, Any] = {"rank": rank}
    if not omit_node:
        ini["node"] = node
    if gpu is not None:
        ini["gpu"] = gpu
    out: dict[str, Any] = {"cause": cause, "initiator": ini}
    if collateral is not None:
        out["collateral_ranks"] = sorted(collateral)
    if include is not None:
        out["collateral_ranks_include"] = sorted(include)
    if drain is not None:
        out["drain_node"] = drain
    return out


def others(procs: Sequence[Proc], *ranks: int) -> list[int]:
    return [p.rank for p in procs if p.rank not in ranks]


def dump_expected(expected: dict[str, Any]) -> str:
    """JSON with two-space indents, but each list of ranks on one line."""
    text = json.dumps(expected, indent=2)
    text = re.sub(r"\[\s*(-?\d+(?:,\s*-?\d+)*)\s*\]", lambda m: "[" + ", ".join(m[1].split()).replace(",,", ",") + "]",
                  text)
    return text + "\n"
