"""``rankdoctor snapshot``: Python + native stacks of the local ranks now, where each main thread
is, and which rank is not where its peers are. Thin: arguments -> processes -> :class:`StackSampler`."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from detector.cli.argtypes import pid as pid_arg
from detector.cli.argtypes import positive
from detector.sidecar.config import ProcessConfig, StacksConfig
from detector.sidecar.sources.procs import local_ranks, read_environ
from detector.sidecar.sources.stack_places import Where
from detector.sidecar.sources.stacks import RankStack, Snapshot, StackSampler
from detector.support.numbers import small_int

DESCRIPTION = """\
Take a stack of every rank process on this host with py-spy (Python and native frames), say
where each main thread is -- in a collective, the data loader, checkpoint I/O, CUDA
synchronisation, a lock, a sleep or elsewhere in user code (file:line) -- and name the ranks
that are not where their peers are. The sidecar does the same when the stall rule fires.
Ranks: --pid PID ... (rank from the process's RANK variable), or every process whose torchrun
log folder is under --logs DIR, or by default every process with RANK and LOCAL_RANK.
Needs py-spy (pip install py-spy) and ptrace rights over the ranks (CAP_SYS_PTRACE, or the
ranks' own user with kernel.yama.ptrace_scope 0).
"""


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="rankdoctor snapshot", description=DESCRIPTION,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    who = p.add_mutually_exclusive_group()
    who.add_argument("--pid", type=pid_arg, nargs="+", action="extend", metavar="PID", help="these processes")
    who.add_argument("--logs", type=Path, nargs="+", action="extend", metavar="DIR",
                     help="the rank processes whose torchrun --log-dir is under DIR")
    p.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")
    p.add_argument("--stacks", "-v", action="store_true", help="print each rank's stack excerpt (text output)")
    p.add_argument("--tool", metavar="PATH", help="py-spy to run (default: on PATH, else beside this Python)")
    p.add_argument("--timeout", type=positive, default=10.0, metavar="SECONDS", help="per dump (default 10)")
    p.add_argument("--no-native", action="store_true", help="Python frames only (faster, less precise)")
    p.add_argument("--proc-root", type=Path, default=Path("/proc"), help=argparse.SUPPRESS)
    return p


def _targets(args: argparse.Namespace) -> dict[int, int]:
    """rank -> pid. A --pid without a RANK variable is keyed by its position (0, 1, ...)."""
    if args.pid:
        out: dict[int, int] = {}
        for i, pid in enumerate(dict.fromkeys(args.pid)):
            env = read_environ(args.proc_root, pid) or {}
            rank = small_int(env.get("RANK"))
            out[rank if rank is not None and rank not in out else 1_000_000 + i] = pid
        return out
    config = ProcessConfig(proc_root=args.proc_root)
    return {p.rank: p.pid for p in local_ranks(config, log_roots=args.logs or ())}


def _name(rank: int) -> str:
    return f"rank {rank}" if rank < 1_000_000 else f"pid #{rank - 1_000_000}"


def _where_dict(w: Where) -> dict[str, Any]:
    return {"place": str(w.place), "label": w.label, "frame": w.frame.where if w.frame else None,
            "function": w.frame.name if w.frame else None, "source": w.source, "note": w.note,
            "signature": w.signature(), "stack": list(w.excerpt)}


def _rank_dict(rank: int, s: RankStack) -> dict[str, Any]:
    return {"rank": rank if rank < 1_000_000 else None, "pid": s.pid, **_where_dict(s.where),
            "native": s.native, "seconds": round(s.seconds, 4),
            "workers": [{"pid": pid, **_where_dict(w)} for pid, w in s.workers]}


def to_json(snap: Snapshot, pids: dict[int, int], tool: str | None) -> dict[str, Any]:
    return {
        "schema": "rankdoctor.snapshot/v1",
        "tool": tool,
        "seconds": round(snap.seconds, 4),
        "ranks": [_rank_dict(r, s) for r, s in sorted(snap.stacks.items())],
        "errors": [{"rank": r if r < 1_000_000 else None, "pid": pids.get(r), "kind": e.kind, "message": str(e)}
                   for r, e in sorted(snap.errors.items())],
        "suspects": [{"rank": v.rank if v.rank < 1_000_000 else None, "pid": pids.get(v.rank),
                      "cause": v.cause.value, "place": str(v.where.place), "reason": v.reason}
                     for v in snap.verdicts()],
    }


def _print_text(snap: Snapshot, pids: dict[int, int], tool: str | None, verbose: bool) -> None:
    natives = [s.native for s in snap.stacks.values()]
    frames = "native and Python frames" if natives and all(natives) else "Python frames"
    print(f"rankdoctor snapshot: {len(snap.stacks)} of {len(pids)} ranks in {snap.seconds:.2f} s "
          f"({tool or 'no stack tool found: py-spy or pystack on PATH, or --tool'}, {frames})")
    for r, s in sorted(snap.stacks.items()):
        print(f"  {_name(r):>9}  pid {s.pid:<8} {s.where.place!s:<13} {s.where.describe()}  ({s.seconds:.2f} s)")
        if verbose:
            for line in s.where.excerpt:
                print(f"{'':16}{line}")
    for r, e in sorted(snap.errors.items()):
        print(f"  {_name(r):>9}  pid {pids.get(r)!s:<8} no stack: {e}")
    verdicts = snap.verdicts()
    if not verdicts:
        print("no rank stands out" if len(snap.stacks) >= 2 else "too few stacks to compare")
    for v in verdicts:
        print(f"suspect: {_name(v.rank)} ({v.cause.value}): {v.reason}")


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(list(argv) if argv is not None else None)
    if args.timeout <= 0:
        print("rankdoctor snapshot: error: --timeout must be positive", file=sys.stderr)
        return 2
    pids = _targets(args)
    if not pids:
        where = f" under {', '.join(map(str, args.logs))}" if args.logs else ""
        print(f"rankdoctor snapshot: no rank processes found{where}", file=sys.stderr)
        return 1
    sampler = StackSampler(StacksConfig(tool=args.tool, native=not args.no_native, timeout_s=args.timeout),
                           proc_root=args.proc_root)
    snap = sampler.snapshot(pids)
    tool = sampler.tool()
    if args.format == "json":
        print(json.dumps(to_json(snap, pids, tool), indent=2))
    else:
        _print_text(snap, pids, tool, args.stacks)
    if not snap.stacks:
        first = next(iter(snap.errors.values()), None)
        print(f"rankdoctor snapshot: error: no stack could be taken: {first}", file=sys.stderr)
        return 1
    return 0
