"""Hostile-file benchmark (issues 12 and 7): one rank's log built to make per-line work pile up.

Three files of 20,000 lines each, every line a candidate for the rules:

- ``childfailed``: every line names torchelastic's ``ChildFailedError`` (a line that, in a real
  log, begins the failure summary: the lines after it are read as its table);
- ``childfailed_rules``: the same with a "=====" rule on each line (what begins a table);
- ``untimed``: every line an untimed NCCL error, so that each looks back for the time of an
  earlier line.

Each: the whole ``rankdoctor replay FILE_DIR --format json`` (a new process of a plain install,
bench/plain.py), the median of ``--repeat`` runs, against GNU ``grep -c`` for the same word on
the same file, in the same run. Prints a Markdown table; writes bench/out/hostile.json.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.plain import CLI, plain_python  # noqa: E402

LINES = 20_000
CASES = {
    "childfailed": ("torch.distributed.elastic.multiprocessing.errors.ChildFailedError: {i}", "ChildFailedError"),
    "childfailed_rules": ("torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ======= {i}", "ChildFailedError"),
    "untimed": ("node07:2231:2301 [3] NCCL WARN NET/IB : Got completion from peer 10.0.0.{j}<4000> with error 12, "
                "opcode 0, len 0, vendor err 129 ({i})", "NCCL WARN"),
}


def _time(cmd: list[str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - t0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    python = str(plain_python())
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, (template, word) in CASES.items():
            run = Path(tmp) / name
            run.mkdir()
            log = run / "rank0.log"
            log.write_text("".join(template.format(i=i, j=i % 250) + "\n" for i in range(LINES)))
            ours = [_time([python, "-c", CLI, "replay", str(run), "--format", "json"]) for _ in range(args.repeat)]
            grep = [_time(["grep", "-c", word, str(log)]) for _ in range(args.repeat)]
            rows.append({"file": name, "lines": LINES, "replay_s": statistics.median(ours),
                         "grep_s": statistics.median(grep)})
    out = ROOT / "bench" / "out"
    out.mkdir(parents=True, exist_ok=True)
    (out / "hostile.json").write_text(json.dumps(rows, indent=1) + "\n")
    print("| file (20,000 lines, one rank) | whole replay (median) | grep -c (median) |")
    print("|---|---|---|")
    for r in rows:
        print(f"| {r['file']} | {r['replay_s']:.2f} s | {r['grep_s']:.3f} s |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
