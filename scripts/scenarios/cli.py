"""Write the synthetic failed-run scenarios under ``replay_logs/``.

The command line of ``python scripts/make_scenarios.py`` and ``python -m scenarios`` (run from
scripts/): ``[--out replay_logs] [--only NAME ...] [--quiet]``. Each scenario's folder is deleted
and rewritten; the ``torchrun_*`` folders belong to scripts/gen_torchrun_scenarios.py.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .catalog import SCENARIOS, ScenarioSpec
from .expected import dump_expected
from .writer import Scenario

REPO = Path(__file__).resolve().parents[2]
MAX_SCENARIO_BYTES = 1_500_000
MAX_TOTAL_BYTES = 12_000_000


@dataclass(frozen=True)
class Written:
    """What one scenario folder ended up holding, for the summary table."""

    name: str
    ranks: int
    files: int
    size: int
    expected: dict[str, Any]


def make(scenario: ScenarioSpec, out_root: Path) -> Written:
    if scenario.name.startswith("torchrun_"):
        raise ValueError(f"{scenario.name}: torchrun_* folders belong to gen_torchrun_scenarios.py")
    sc = Scenario(scenario.name, scenario.base)
    expected = scenario.build(sc)
    folder = out_root / scenario.name
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    files = sc.logs.write(folder)
    (folder / "expected.json").write_text(dump_expected(expected), encoding="utf-8")
    size = sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())
    if size > MAX_SCENARIO_BYTES:
        raise SystemExit(f"{scenario.name}: {size} bytes, over the {MAX_SCENARIO_BYTES} byte budget")
    ranks = int(scenario.name.rsplit("_", 1)[1].rstrip("r"))
    return Written(scenario.name, ranks, len(files), size, expected)


def describe(inc: dict[str, Any]) -> str:
    ini = inc.get("initiator", {})
    rank = ini.get("rank")
    return f"{inc['cause']} / rank {'null' if rank is None else rank} / {ini.get('node') or '-'}"


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=REPO / "replay_logs")
    ap.add_argument("--only", nargs="*", default=None, help="scenario names to (re)write")
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args(argv)
    known = {s.name for s in SCENARIOS}
    if args.only:
        unknown = sorted(set(args.only) - known)
        if unknown:
            ap.error(f"unknown scenario(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}")
    chosen = [s for s in SCENARIOS if not args.only or s.name in args.only]
    written = [make(s, args.out) for s in chosen]
    total = sum(m.size for m in written)
    if not args.only and total > MAX_TOTAL_BYTES:
        print(f"warning: {total} bytes in all, over the {MAX_TOTAL_BYTES} byte budget", file=sys.stderr)
    if not args.quiet:
        w = max(len(m.name) for m in written)
        print(f"{'scenario':<{w}}  ranks  files      size  expected (cause / rank / node)")
        for m in written:
            incs = m.expected["incidents"]
            exp = "; ".join(describe(i) for i in incs) if incs else "healthy (no incident)"
            print(f"{m.name:<{w}}  {m.ranks:5d}  {m.files:5d}  {m.size / 1024:7.0f}K  {exp}")
        print(f"{'total':<{w}}  {'':5}  {sum(m.files for m in written):5d}  {total / 1024:7.0f}K")
    return 0
