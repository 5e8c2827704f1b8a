"""Start-up benchmark (issue 12): ``rankdoctor replay PASTE --format json`` of a 7-line paste,
new processes of a plain install (bench/plain.py), against ``python -c pass`` with the same
interpreter, in the same run:

- warm: the compiled rules come from the rule cache (detector.rules.cache);
- cold: an empty cache directory for each run (the first use after an install or a change
  of the rule files: the rule files are read, checked and compiled, and the cache written).

Two pastes: a 7-line error paste (watchdog timeouts, a traceback, the CUDA error), and the same
with step lines instead of two of the timeouts (its step statistics import numpy). Each figure
is the median of ``--repeat`` runs; writes bench/out/startup.json and prints a Markdown table.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.plain import CLI, plain_python  # noqa: E402

TIMEOUT = ("[rank{r}]:[E1130 17:40:34.227531 ProcessGroupNCCL.cpp:563] [Rank {r}] Watchdog caught collective operation "
           "timeout: WorkNCCL(SeqNum=15, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for "
           "600037 milliseconds before timing out.")
ERROR_PASTE = "\n".join([
    TIMEOUT.format(r=3),
    TIMEOUT.format(r=1),
    "[rank0]:Traceback (most recent call last):",
    '[rank0]:  File "/workspace/train.py", line 212, in <module>',
    "[rank0]:    loss.backward()",
    "[rank0]:RuntimeError: CUDA error: an illegal memory access was encountered",
    TIMEOUT.format(r=2),
]) + "\n"
STEP_PASTE = "\n".join([
    "[rank0]:2026-11-30T17:29:58Z step 1201 | loss 2.31 | step_ms 812.4",
    "[rank1]:2026-11-30T17:29:58Z step 1201 | loss 2.30 | step_ms 811.9",
    "[rank0]:Traceback (most recent call last):",
    '[rank0]:  File "/workspace/train.py", line 212, in <module>',
    "[rank0]:    loss.backward()",
    "[rank0]:RuntimeError: CUDA error: an illegal memory access was encountered",
    TIMEOUT.format(r=1),
]) + "\n"


def _time(cmd: list[str], env: dict[str, str], cwd: Path) -> float:
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, check=False)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"{cmd}: exit {proc.returncode}\n{proc.stderr.decode()[-2000:]}")
    return wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=11)
    args = parser.parse_args()
    python = plain_python()
    work = Path(tempfile.mkdtemp(prefix="rankdoctor-startup-"))
    pastes = {"error paste (7 lines)": work / "error.log", "paste with step lines (7 lines)": work / "steps.log"}
    pastes["error paste (7 lines)"].write_text(ERROR_PASTE)
    pastes["paste with step lines (7 lines)"].write_text(STEP_PASTE)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "RANKDOCTOR_NO_CACHE")}
    warm_cache = work / "cache"
    rows: list[dict[str, object]] = []
    base = [_time([str(python), "-c", "pass"], env, work) for _ in range(args.repeat)]
    rows.append({"what": "`python -c pass` (same interpreter)", "median_s": statistics.median(base)})
    for name, paste in pastes.items():
        cmd = [str(python), "-c", CLI, "replay", str(paste), "--format", "json"]
        _time(cmd, {**env, "RANKDOCTOR_CACHE_DIR": str(warm_cache)}, work)  # fills the cache
        warm = [_time(cmd, {**env, "RANKDOCTOR_CACHE_DIR": str(warm_cache)}, work) for _ in range(args.repeat)]
        cold = []
        for n in range(max(3, args.repeat // 2)):
            cold.append(_time(cmd, {**env, "RANKDOCTOR_CACHE_DIR": str(work / f"cold{name[:5]}{n}")}, work))
        rows.append({"what": f"{name}, warm rule cache", "median_s": statistics.median(warm),
                     "min_s": min(warm), "max_s": max(warm)})
        rows.append({"what": f"{name}, cold rule cache (first use)", "median_s": statistics.median(cold),
                     "min_s": min(cold), "max_s": max(cold)})
    anchor = float(rows[0]["median_s"])  # type: ignore[arg-type]
    out = ROOT / "bench" / "out"
    out.mkdir(parents=True, exist_ok=True)
    (out / "startup.json").write_text(json.dumps({"interpreter": str(python), "repeat": args.repeat, "rows": rows}, indent=2))
    print(f"plain install: {python}; median of {args.repeat} (cold: of {max(3, args.repeat // 2)})")
    print("| measurement | wall (median) | min–max | vs `python -c pass` |")
    print("|---|---|---|---|")
    for row in rows:
        spread = f"{row['min_s']:.3f}–{row['max_s']:.3f} s" if "min_s" in row else ""
        ratio = float(row["median_s"]) / anchor  # type: ignore[arg-type]
        print(f"| {row['what']} | {row['median_s']:.3f} s | {spread} | {ratio:.1f}× |")


if __name__ == "__main__":
    main()
