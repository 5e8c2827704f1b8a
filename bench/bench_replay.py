"""Replay benchmark (issue: offline replay).

Generates a 128-rank run of about 1 GiB (bench/gen_run.py) and measures, in the same run:

(a) rule matching over every line of every file — rankdoctor's one-scan engine (prefilter, then
    each candidate line verified by the regexes of the rules the selector picks for it) against
    GNU ``grep -c -E -f`` with the same patterns
    (translated to POSIX ERE) over the same files; and the pure-``re`` prefilter for reference;
(b) the whole ``rankdoctor replay`` wall time and peak resident memory, for the 1 GiB run and a
    quarter-size run (memory must not grow with log size).

Each timing is the median of ``--repeat`` runs. Writes bench/out/replay.json and prints a
Markdown table.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.gen_run import generate  # noqa: E402
from detector.rules.engine import RuleSet  # noqa: E402
from detector.rules.loader import load_rules  # noqa: E402
from detector.rules.prefilter import prefilter_pattern  # noqa: E402
from detector.types import StreamKind  # noqa: E402

CHUNK = 8 << 20


def to_ere(pattern: str) -> str:
    """Translate a rule pattern (Python re) to GNU grep -E syntax."""
    p = prefilter_pattern(pattern)  # no leading ^, named groups -> (?:
    p = p.replace("(?:", "(")
    p = re.sub(r"(?<!\\)([*+?}])\?", r"\1", p)  # lazy -> greedy (same lines match)
    p = p.replace(r"\d", "[0-9]").replace(r"\s", "[[:space:]]").replace(r"\S", "[^[:space:]]")
    p = p.replace(r"\w", "[[:alnum:]_]").replace(r"\W", "[^[:alnum:]_]")
    # inside bracket expressions the class names above must not nest: [[0-9]a] -> [0-9a]
    p = re.sub(r"\[([^\]]*?)\[0-9\]", r"[\g<1>0-9", p)
    p = re.sub(r"\[([^\]]*?)\[\[:alnum:\]_\]", r"[\g<1>[:alnum:]_", p)
    p = re.sub(r"\[([^\]]*?)\[\[:space:\]\]", r"[\g<1>[:space:]", p)
    return p


def match_lines(files: list[Path], rules: RuleSet) -> int:
    """Lines matched by at least one rule, with rankdoctor's engine (prefilter + verify)."""
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
                for off in rules.candidates(buf, 0, end):
                    line_end = buf.find(b"\n", off, end)
                    line = buf[off : line_end if line_end >= 0 else end].decode("utf-8", "replace")
                    if rules.match(line, kind):
                        total += 1
                carry = buf[end:]
                if not data:
                    break
    return total


def grep_lines(files: list[Path], patterns_file: Path) -> int:
    out = subprocess.run(["grep", "-c", "-E", "-f", str(patterns_file), *map(str, files)],
                         capture_output=True, text=True, check=False)
    if out.returncode not in (0, 1):
        raise RuntimeError(out.stderr)
    return sum(int(line.rsplit(":", 1)[1]) for line in out.stdout.splitlines() if ":" in line)


def timed(fn, repeat: int):  # type: ignore[no-untyped-def]
    times = []
    result = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), result


_MEASURE = (
    "import resource, subprocess, sys; "
    "p = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE); "
    "sys.stdout.buffer.write(p.stdout); "
    "sys.stderr.write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)); "
    "sys.exit(p.returncode)"
)


def replay_cost(run: Path) -> tuple[float, float, str]:
    """Wall time (s) and peak RSS (MiB) of one `rankdoctor replay --format json` process."""
    cmd = [sys.executable, "-m", "detector.cli", "replay", str(run), "--format", "json", "--no-progress"]
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", _MEASURE, *cmd], capture_output=True, text=True, check=True, cwd=ROOT)
    wall = time.perf_counter() - t0
    peak = int(proc.stderr.strip().splitlines()[-1]) / 1024
    report = json.loads(proc.stdout)
    inc = report["incidents"][0] if report["incidents"] else {}
    ini = inc.get("initiator", {})
    verdict = f"{inc.get('cause')} rank {ini.get('rank')} {ini.get('node')} {ini.get('gpu')}"
    return wall, peak, verdict


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gb", type=float, default=1.0)
    parser.add_argument("--ranks", type=int, default=128)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--data", type=Path, default=ROOT / "bench" / "data")
    args = parser.parse_args()
    big = generate(args.data / f"run_{args.ranks}r_{args.gb}g", args.ranks, args.gb)
    small = generate(args.data / f"run_{args.ranks}r_{args.gb / 4}g", args.ranks, args.gb / 4)
    files = sorted(big.rglob("*.log"))
    size = sum(p.stat().st_size for p in files)
    lines = 0
    for p in files:
        with p.open("rb") as fh:
            lines += sum(chunk.count(b"\n") for chunk in iter(lambda fh=fh: fh.read(CHUNK), b""))

    result = load_rules()
    fast = RuleSet(result.rules)
    slow = RuleSet(result.rules, engine="re")
    patterns = args.data / "patterns.ere"
    patterns.write_text("\n".join(to_ere(r.pattern) for r in result.rules) + "\n")
    # warm the page cache once so every contender reads from memory
    for p in files:
        p.read_bytes()
    t_grep, n_grep = timed(lambda: grep_lines(files, patterns), args.repeat)
    t_fast, n_fast = timed(lambda: match_lines(files, fast), args.repeat)
    # the pure-re prefilter is ~two orders slower: time it on a sample of files and scale
    sample = files[:: max(1, len(files) // 8)]
    sample_bytes = sum(p.stat().st_size for p in sample)
    t_re_sample, n_re = timed(lambda: match_lines(sample, slow), 1)
    t_re = t_re_sample * size / sample_bytes
    replay_big = [replay_cost(big) for _ in range(args.repeat)]
    replay_small = [replay_cost(small) for _ in range(args.repeat)]
    truth = json.loads((big / "truth.json").read_text())
    res = {
        "workload": {"ranks": args.ranks, "files": len(files), "bytes": size, "lines": lines, "rules": len(result.rules),
                     "engine": fast.engine, "truth": truth},
        "matching": {
            "grep_s": t_grep, "grep_matching_lines": n_grep,
            "rankdoctor_s": t_fast, "rankdoctor_matching_lines": n_fast,
            "re_prefilter_s_scaled": t_re, "re_sample_files": len(sample), "re_sample_matching_lines": n_re,
            "ratio_grep_over_rankdoctor": t_grep / t_fast,
        },
        "replay": {
            "wall_s_median": statistics.median(w for w, _, _ in replay_big),
            "peak_rss_mib": max(m for _, m, _ in replay_big),
            "verdict": replay_big[0][2],
            "small_wall_s_median": statistics.median(w for w, _, _ in replay_small),
            "small_peak_rss_mib": max(m for _, m, _ in replay_small),
            "small_bytes": sum(p.stat().st_size for p in small.rglob("*.log")),
        },
    }
    out = ROOT / "bench" / "out"
    out.mkdir(parents=True, exist_ok=True)
    (out / "replay.json").write_text(json.dumps(res, indent=2))
    m = res["matching"]
    r = res["replay"]
    print(f"workload: {len(files)} files, {size / (1 << 30):.2f} GiB, {lines:,} lines, {len(result.rules)} rules, engine {fast.engine}")
    print("| measurement | time (median) | matching lines |")
    print("|---|---|---|")
    print(f"| GNU grep -c -E -f (same patterns, ERE) | {m['grep_s']:.2f} s | {m['grep_matching_lines']:,} |")
    print(f"| rankdoctor rule matching ({fast.engine} prefilter + re verify) | {m['rankdoctor_s']:.2f} s | {m['rankdoctor_matching_lines']:,} |")
    print(f"| rankdoctor rule matching (pure re prefilter; timed on {m['re_sample_files']} files, scaled) | {m['re_prefilter_s_scaled']:.1f} s | ({m['re_sample_matching_lines']:,} in the sample) |")
    print(f"| ratio grep / rankdoctor | {m['ratio_grep_over_rankdoctor']:.2f} | |")
    print(f"| whole `rankdoctor replay` (1 GiB) | {r['wall_s_median']:.2f} s, peak RSS {r['peak_rss_mib']:.0f} MiB | {r['verdict']} (truth: rank {truth['rank']} {truth['node']}) |")
    print(f"| whole `rankdoctor replay` (1/4 GiB) | {r['small_wall_s_median']:.2f} s, peak RSS {r['small_peak_rss_mib']:.0f} MiB | |")


if __name__ == "__main__":
    main()
