"""`make bench`: run every benchmark under bench/ and print their tables.

Each bench_*.py is run as its own process (so one failing does not hide the others); its
stdout is kept in bench/out/<name>.md. Figures go into BENCHMARKS.md by hand, with the command.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    out = ROOT / "bench" / "out"
    out.mkdir(parents=True, exist_ok=True)
    only = set(sys.argv[1:])
    failed = []
    for script in sorted((ROOT / "bench").glob("bench_*.py")):
        name = script.stem
        if only and name not in only:
            continue
        print(f"\n## {name}\n", flush=True)
        t0 = time.perf_counter()
        proc = subprocess.run([sys.executable, str(script)], cwd=ROOT, capture_output=True, text=True, check=False)
        sys.stdout.write(proc.stdout)
        (out / f"{name}.md").write_text(proc.stdout)
        if proc.returncode != 0:
            failed.append(name)
            sys.stdout.write(proc.stderr[-4000:])
        print(f"\n({name}: {time.perf_counter() - t0:.0f} s, exit {proc.returncode})", flush=True)
    if failed:
        print(f"\nfailed: {', '.join(failed)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
