"""Many-rank cascades (issue 12): one combined log in which every rank prints watchdog timeouts
after one rank's CUDA error, replayed by new `rankdoctor replay --format json` processes of a
plain install (bench/plain.py), rule cache warm. In the same run, for each file, GNU
``grep -c 'Watchdog caught collective operation timeout'`` over it (the anchor).

- 16,384 ranks x 6 timeouts (98,304 lines, ~27 MB): target 2 s, summary ``ranks`` exact;
- 25,000 / 50,000 / 100,000 / 200,000 distinct ranks, one timeout each: 200,000 in 10 s at most,
  time and peak memory linear in the ranks (per-rank cost and RSS printed);
- ``--files``: the 16,384-rank cascade as one log per rank (128 node folders of 128 files, 20
  step lines and the timeout each, rank 7,777's CUDA error instead), the layout of a job that
  writes per-rank files; anchor ``grep -r -c`` over the folder.

Each time is the median of ``--repeat`` runs. Writes bench/out/cascade.json and prints a
Markdown table.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.bench_replay import replay_cost  # noqa: E402
from bench.plain import plain_python  # noqa: E402

INITIATOR = "[rank7]:2026-11-30T17:30:00Z RuntimeError: CUDA error: an illegal memory access was encountered\n"
TIMEOUT = ("[rank{r}]:[E1130 17:40:{s:02d}.227531 ProcessGroupNCCL.cpp:632] [PG ID 0 PG GUID 0(default_pg) Rank {r}] "
           "Watchdog caught collective operation timeout: WorkNCCL(SeqNum={seq}, OpType=ALLREDUCE, NumelIn=262144, "
           "NumelOut=262144, Timeout(ms)=600000) ran for 600031 milliseconds before timing out.\n")


def cascade(path: Path, ranks: int, per_rank: int) -> Path:
    """A combined log: the initiator's error, then ``per_rank`` rounds of every rank's timeout."""
    stamp = path.with_suffix(".stamp")
    want = f"{ranks} {per_rank} v1"
    if path.exists() and stamp.exists() and stamp.read_text() == want:
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w") as fh:
        fh.write(INITIATOR)
        for k in range(per_rank):
            fh.writelines(TIMEOUT.format(r=r, s=34 + k, seq=6742 + k) for r in range(ranks))
    stamp.write_text(want)
    return path


def grep_count(path: Path) -> tuple[float, int]:
    t0 = time.perf_counter()
    if path.is_dir():
        out = subprocess.run(["grep", "-r", "-h", "-c", "Watchdog caught collective operation timeout", str(path)],
                             capture_output=True, text=True, check=False, env={**os.environ, "LC_ALL": "C"})
        return time.perf_counter() - t0, sum(int(n) for n in out.stdout.split())
    out = subprocess.run(["grep", "-c", "Watchdog caught collective operation timeout", str(path)],
                         capture_output=True, text=True, check=False, env={**os.environ, "LC_ALL": "C"})
    return time.perf_counter() - t0, int(out.stdout.strip() or 0)


FILE_TIMEOUT = ("[rank{r}]:[E1130 10:10:00.000000 1 ProcessGroupNCCL.cpp:632] [Rank {r}] Watchdog caught collective "
                "operation timeout: WorkNCCL(SeqNum=21, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) "
                "ran for 600005 milliseconds before timing out.\n")
FILE_INITIATOR = "[rank{r}]: RuntimeError: CUDA error: an illegal memory access was encountered\n"


def per_rank_files(root: Path, nodes: int = 128, per_node: int = 128, bad: int = 7777) -> Path:
    """One log per rank in node folders: 20 step lines, then the timeout (``bad``: its CUDA error)."""
    stamp = root / ".stamp"
    want = f"{nodes} {per_node} {bad} v1"
    if stamp.exists() and stamp.read_text() == want:
        return root
    for n in range(nodes):
        node = root / f"node{n:03d}"
        node.mkdir(parents=True, exist_ok=True)
        for local in range(per_node):
            r = n * per_node + local
            steps = "".join(f"[rank{r}]:2026-11-30 10:00:{i:02d},000 INFO step {i} | loss 1.0 | step_ms 800\n"
                            for i in range(20))
            last = FILE_INITIATOR.format(r=r) if r == bad else FILE_TIMEOUT.format(r=r)
            (node / f"rank{r}.log").write_text(steps + last)
    stamp.write_text(want)
    return root


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--data", type=Path, default=ROOT / "bench" / "data")
    parser.add_argument("--files", action="store_true", help="only the 16,384 per-rank files workload")
    args = parser.parse_args()
    python = plain_python()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "RANKDOCTOR_JOBS", "RANKDOCTOR_NO_CACHE")}
    env["RANKDOCTOR_CACHE_DIR"] = str(args.data / "rule-cache")
    cases = [("16,384 ranks × 6 timeouts", 16_384, 6, 2.0)] + [
        (f"{n:,} distinct ranks × 1 timeout", n, 1, 10.0 if n == 200_000 else None) for n in (25_000, 50_000, 100_000, 200_000)
    ]
    if args.files:
        cases = [("16,384 ranks, one file each", 16_384, 21, None)]
    rows = []
    for label, ranks, per, target in cases:
        if args.files:
            path = per_rank_files(args.data / "cascade" / "per_rank_16384")
            for f in path.rglob("*.log"):
                f.read_bytes()
        else:
            path = cascade(args.data / "cascade" / f"cascade_{ranks}x{per}.log", ranks, per)
            path.read_bytes()
        replay_cost(python, path, env)  # warm
        costs = [replay_cost(python, path, env) for _ in range(args.repeat)]
        greps = [grep_count(path) for _ in range(args.repeat)]
        report = costs[0][2]
        inc = report["incidents"][0] if report["incidents"] else {}
        rows.append({
            "case": label, "ranks": ranks, "lines": ranks * per + (0 if args.files else 1),
            "bytes": sum(f.stat().st_size for f in path.rglob("*.log")) if args.files else path.stat().st_size,
            "replay_s": statistics.median(c[0] for c in costs), "peak_rss_mib": max(c[1] for c in costs),
            "grep_s": statistics.median(g[0] for g in greps), "grep_lines": greps[0][1],
            "summary_ranks": report["summary"]["ranks"], "target_s": target,
            "verdict": f"{inc.get('cause')}, rank {inc.get('initiator', {}).get('rank')}",
            "collateral": len(inc.get("collateral_ranks", [])),
        })
    out = ROOT / "bench" / "out"
    out.mkdir(parents=True, exist_ok=True)
    (out / ("cascade_files.json" if args.files else "cascade.json")).write_text(
        json.dumps({"repeat": args.repeat, "rows": rows}, indent=2))
    print(f"plain install, rule cache warm; median of {args.repeat}")
    print("| workload | file | whole replay | target | grep -c (anchor) | replay / grep | peak RSS | each rank more (vs the row above) | summary ranks | verdict |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for n, r in enumerate(rows):
        target = f"≤ {r['target_s']:.0f} s" if r["target_s"] else ""
        prev = rows[n - 1] if n >= 2 else None  # the distinct-rank series: marginal cost per rank
        per_rank = (f"{(r['replay_s'] - prev['replay_s']) / (r['ranks'] - prev['ranks']) * 1e6:.1f} µs, "
                    f"{(r['peak_rss_mib'] - prev['peak_rss_mib']) * 1024 / (r['ranks'] - prev['ranks']):.2f} KiB"
                    if prev is not None else "")
        print(f"| {r['case']} | {r['lines']:,} lines, {r['bytes'] / 1e6:.0f} MB | {r['replay_s']:.2f} s | {target} | "
              f"{r['grep_s']:.3f} s | {r['replay_s'] / r['grep_s']:.0f}× | {r['peak_rss_mib']:.0f} MiB | {per_rank} | "
              f"{r['summary_ranks']:,} | {r['verdict']} ({r['collateral']:,} collateral) |")


if __name__ == "__main__":
    main()
