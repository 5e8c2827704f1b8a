"""Replay benchmark (issue 12): a large torchrun run, whole `rankdoctor replay` against its anchors.

Workload: bench/gen_torchrun.py, 128 ranks on 16 nodes in torchrun ``--log-dir`` layout
(``nodeNN/<run_id>/attempt_0/<local_rank>/{stdout,stderr}.log``), about ``--mb`` MB, almost all
step lines with ``[rankN]:`` prefixes, an Xid 79 at the end (then watchdog timeouts elsewhere).
Measured in the same run, page cache warm, each the median of ``--repeat`` runs:

(a) GNU ``grep -c -E -f`` with a dozen error patterns over the same files (what a user would
    run first; :data:`PATTERNS`);
(b) raw hyperscan scanning the same bytes (8 MiB blocks, one core, database compiled before the
    clock starts): with the same dozen patterns, and with rankdoctor's rule set as its
    prefilter compiles it (the limit for one pass over the bytes);
(c) rankdoctor's rule matching alone, one process: the prefilter's scan and each candidate
    line verified by the rules the scan names for it (:func:`match_lines`);
(d) the whole ``rankdoctor replay RUN --format json``, a new process of a plain install
    (bench/plain.py), rule cache warm: the default (one worker process per core for a run
    this large) and ``RANKDOCTOR_JOBS=1``; wall time and peak RSS (the largest process).

Writes bench/out/replay.json and prints a Markdown table with each ratio.
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

from bench.gen_torchrun import generate  # noqa: E402
from bench.plain import CLI, plain_python  # noqa: E402

CHUNK = 8 << 20
# a dozen error patterns (POSIX ERE; hyperscan reads them the same way)
PATTERNS = [
    r"NVRM: Xid \(PCI:[0-9a-fA-F:.]+\): [0-9]+",
    r"fallen off the bus",
    r"CUDA error: [a-z ]+",
    r"CUDA out of memory",
    r"Watchdog caught collective operation timeout",
    r"NCCL error",
    r"Traceback \(most recent call last\)",
    r"Segmentation fault",
    r"ChildFailedError",
    r"uncorrectable ECC error",
    r"AER: Uncorrected \(Fatal\)",
    r"Killed process [0-9]+",
]


def timed(fn, repeat: int):  # type: ignore[no-untyped-def]
    times = []
    result = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), result


def grep_lines(files: list[Path], patterns_file: Path) -> int:
    out = subprocess.run(["grep", "-c", "-E", "-f", str(patterns_file), *map(str, files)],
                         capture_output=True, text=True, check=False, env={**os.environ, "LC_ALL": "C"})
    if out.returncode not in (0, 1):
        raise RuntimeError(out.stderr)
    return sum(int(line.rsplit(":", 1)[1]) for line in out.stdout.splitlines() if ":" in line)


def hyperscan_db(patterns: list[bytes]):  # type: ignore[no-untyped-def]
    import hyperscan

    db = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
    db.compile(expressions=patterns, ids=list(range(len(patterns))),
               flags=[hyperscan.HS_FLAG_MULTILINE] * len(patterns))
    return db, hyperscan.Scratch(db)


def hyperscan_scan(files: list[Path], db, scratch) -> int:  # type: ignore[no-untyped-def]
    """Matches reported over the files' bytes, 8 MiB at a time (one core)."""
    found = [0]

    def on_match(_id: int, _from: int, _to: int, _flags: int, _ctx: object) -> None:
        found[0] += 1

    for path in files:
        with path.open("rb") as fh:
            while data := fh.read(CHUNK):
                db.scan(data, match_event_handler=on_match, scratch=scratch)
    return found[0]


def match_lines(files: list[Path], rules) -> int:  # type: ignore[no-untyped-def]
    """Lines matched by at least one rule: rankdoctor's prefilter scan and verification (one
    process), as the reader does it (each line whole: the chunk ends at a line end)."""
    from detector.types import StreamKind

    total = 0
    for path in files:
        kind = StreamKind.KERNEL if "dmesg" in path.name else StreamKind.RANK_LOG
        with path.open("rb") as fh:
            carry = b""
            while True:
                data = fh.read(CHUNK)
                buf = carry + data
                if not buf:
                    break
                end = len(buf) if not data else buf.rfind(b"\n") + 1
                for off, ids in rules.candidate_lines(buf, 0, end):
                    line_end = buf.find(b"\n", off, end)
                    line = buf[off : line_end if line_end >= 0 else end].decode("utf-8", "replace")
                    if rules.verify(line, kind, ids):  # the whole line is the message here
                        total += 1
                carry = buf[end:]
                if not data:
                    break
    return total


_MEASURE = (
    "import resource, subprocess, sys; "
    "p = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE); "
    "sys.stdout.buffer.write(p.stdout); "
    "sys.stderr.write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)); "
    "sys.exit(p.returncode)"
)


def replay_cost(python: Path, run: Path, env: dict[str, str]) -> tuple[float, float, dict[str, object]]:
    """Wall time (s), peak RSS (MiB, the largest process) and the report of one new
    `rankdoctor replay --format json` process."""
    cmd = [str(python), "-c", CLI, "replay", str(run), "--format", "json", "--no-progress"]
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", _MEASURE, *cmd], capture_output=True, text=True, check=True,
                          cwd=ROOT, env=env)
    wall = time.perf_counter() - t0
    peak = int(proc.stderr.strip().splitlines()[-1]) / 1024
    return wall, peak, json.loads(proc.stdout)


def verdict(report: dict[str, object]) -> str:
    incidents = report["incidents"]
    assert isinstance(incidents, list)
    if not incidents:
        return "no incident"
    ini = incidents[0]["initiator"]
    return f"{incidents[0]['cause']}, rank {ini.get('rank')}, {ini.get('node')}, GPU {ini.get('gpu')}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mb", type=float, default=750.0)
    parser.add_argument("--ranks", type=int, default=128)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--data", type=Path, default=ROOT / "bench" / "data")
    args = parser.parse_args()
    run = generate(args.data / f"torchrun_{args.ranks}r_{args.mb:g}mb", args.ranks, args.mb)
    files = sorted(run.rglob("*.log"))
    size = sum(p.stat().st_size for p in files)
    lines = 0
    for p in files:
        with p.open("rb") as fh:
            lines += sum(chunk.count(b"\n") for chunk in iter(lambda fh=fh: fh.read(CHUNK), b""))
    truth = json.loads((run / "truth.json").read_text())
    python = plain_python()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "RANKDOCTOR_JOBS", "RANKDOCTOR_NO_CACHE")}
    env["RANKDOCTOR_CACHE_DIR"] = str(args.data / "rule-cache")

    from detector.rules.compile import load_ruleset
    from detector.rules.prefilter import prefilter_pattern
    from detector.rules.rewrite import relaxed, trimmed

    rules = load_ruleset()
    patterns_file = args.data / "patterns12.ere"
    patterns_file.write_text("\n".join(PATTERNS) + "\n")
    for p in files:  # the page cache holds every file for every contender
        p.read_bytes()
    replay_cost(python, run, env)  # fills the rule cache; warms the interpreter's files

    rows: dict[str, dict[str, object]] = {}
    t, n = timed(lambda: grep_lines(files, patterns_file), args.repeat)
    rows["grep"] = {"s": t, "matching_lines": n}
    db12, scratch12 = hyperscan_db([p.encode() for p in PATTERNS])
    t, n = timed(lambda: hyperscan_scan(files, db12, scratch12), args.repeat)
    rows["hyperscan_12"] = {"s": t, "matches": n}
    rule_patterns = [relaxed(trimmed(prefilter_pattern(r.pattern))).encode() for r in rules.rules]
    dbr, scratchr = hyperscan_db(rule_patterns)
    t, n = timed(lambda: hyperscan_scan(files, dbr, scratchr), args.repeat)
    rows["hyperscan_rules"] = {"s": t, "matches": n, "patterns": len(rule_patterns)}
    t, n = timed(lambda: match_lines(files, rules), args.repeat)
    rows["matching"] = {"s": t, "matching_lines": n, "engine": rules.engine}
    for name, extra in (("replay", {}), ("replay_one_process", {"RANKDOCTOR_JOBS": "1"})):
        costs = [replay_cost(python, run, {**env, **extra}) for _ in range(args.repeat)]
        rows[name] = {"s": statistics.median(c[0] for c in costs), "peak_rss_mib": max(c[1] for c in costs),
                      "verdict": verdict(costs[0][2]), "summary": costs[0][2]["summary"]}

    res = {"workload": {"ranks": args.ranks, "files": len(files), "bytes": size, "lines": lines,
                        "rules": len(rules.rules), "cores": len(os.sched_getaffinity(0)), "truth": truth,
                        "interpreter": str(python), "repeat": args.repeat},
           "rows": rows}
    out = ROOT / "bench" / "out"
    out.mkdir(parents=True, exist_ok=True)
    (out / "replay.json").write_text(json.dumps(res, indent=2, default=str))

    grep_s = float(rows["grep"]["s"])  # type: ignore[arg-type]
    hs_s = float(rows["hyperscan_12"]["s"])  # type: ignore[arg-type]
    rep = rows["replay"]
    print(f"workload: {len(files)} files, {size / 1e6:.0f} MB, {lines:,} lines ({lines // args.ranks:,} a rank), "
          f"{len(rules.rules)} rules, {res['workload']['cores']} cores; median of {args.repeat}")
    print("| measurement | time | vs grep | vs raw hyperscan (12 patterns) | result |")
    print("|---|---|---|---|---|")

    def row(label: str, key: str, result: str) -> None:
        s = float(rows[key]["s"])  # type: ignore[arg-type]
        print(f"| {label} | {s:.2f} s | {s / grep_s:.2f}× | {s / hs_s:.2f}× | {result} |")

    row("GNU `grep -c -E -f` (12 error patterns), `LC_ALL=C`", "grep", f"{rows['grep']['matching_lines']:,} lines")
    row("raw hyperscan scan, 12 patterns (one core, compiled beforehand)", "hyperscan_12",
        f"{rows['hyperscan_12']['matches']:,} matches")
    row(f"raw hyperscan scan, the rule set's {len(rule_patterns)} prefilter patterns (one core)", "hyperscan_rules",
        f"{rows['hyperscan_rules']['matches']:,} matches")
    row(f"rankdoctor rule matching alone ({rules.engine} scan + verify, one core)", "matching",
        f"{rows['matching']['matching_lines']:,} lines")
    row(f"**whole `rankdoctor replay --format json`** (new process, {res['workload']['cores']} workers)", "replay",
        f"{rep['verdict']} (truth: rank {truth['rank']}, {truth['node']}, GPU {truth['gpu']}); peak RSS "
        f"{rep['peak_rss_mib']:.0f} MiB")
    row("whole replay, `RANKDOCTOR_JOBS=1`", "replay_one_process",
        f"peak RSS {rows['replay_one_process']['peak_rss_mib']:.0f} MiB")


if __name__ == "__main__":
    main()
