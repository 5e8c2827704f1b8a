"""Diagnosis accuracy (issue 11): the real-log corpus by split, and runs of the independent
generator (bench/blind), in one table beside the naive "first error-looking line" reader.

- real logs (replay_logs/real, bench/diagnosis.py): ``dev`` (built against), ``held`` (the third
  set aside before any rule was written), and the ``fresh`` sets (diagnosis.ASIDES: gathered later by
  someone who did not run the tool, set aside the same way);
- blind runs (bench/blind/gen_blind.py, written without reading the tool): seeds 1, 3, 4, 6 and 7 were
  looked at while changing the tool (9 and 10 in the fifth session); seeds 2, 8, 11, 12 and 13 never were (only their
  figures are read);
- blind2 runs (bench/blind2/gen_blind2.py, a second generator written in the fourteenth session by
  someone who read neither the tool nor the first generator): seeds 1-3 looked at, 4 and 5 never;
- blind3 runs (bench/blind3/gen_blind3.py, a third, fifteenth session, by someone who read neither the
  tool nor the two earlier generators): seeds 1-3 looked at, 4 and 5 never;
- blind4 runs (bench/blind4/gen_blind4.py, a fourth, sixteenth session, by someone who read neither the
  tool nor the three earlier generators; runs as users hand them over: partial collections, recent
  message forms, decoys): seeds 1-3 looked at, 4 and 5 never;
- blind5 runs (bench/blind5/gen_blind5.py, a fifth, seventeenth session, by someone who read neither the
  tool nor the four earlier generators; logs as exported from where they were collected - kubectl,
  Loki, Elastic, CloudWatch, Cloud Logging, journald, CI - and stacks beside PyTorch on NVIDIA, multi-node
  inference and RL under Ray): seeds 1-3 looked at, 4 and 5 never;
- blind6 runs (bench/blind6/gen_blind6.py, a sixth, eighteenth session, by someone who read neither the
  tool nor the five earlier generators; logs as people paste them into threads and chats - Markdown
  fences, quoting, hard wraps, HTML entities, elisions, redactions, one rank's or one node's view,
  several attempts, OCR slips - and hostile bits beside them): seeds 1-3 looked at, 4 and 5 never;
- blind7 runs (bench/blind7/gen_blind7.py, a seventh, twentieth session, by someone who read neither the
  tool nor the six earlier generators; whole job folders of long runs as a cluster leaves them - the
  failure thousands of lines in, 16-512 ranks, rotated logs, requeued attempts, faults seen in timing or
  a node's kernel log, decoys from earlier jobs): seeds 1-3 looked at, 4 and 5 never;
- blind8 runs (bench/blind8/gen_blind8.py, an eighth, twenty-first session, by two helpers who read neither
  the tool nor the seven earlier generators; multi-process jobs that are not plain data-parallel
  training - vLLM, SGLang, TGI and TensorRT-LLM serving, RL post-training under Ray - and stacks beyond
  CUDA and NCCL: Intel XPU, Ascend, Neuron, Gaudi, Horovod): no seed looked at (the session ended first).

Writes bench/out/diagnosis.json and prints a Markdown table.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.diagnosis import SPLITS, figures, score  # noqa: E402

BLIND_SEEDS = {1: "looked at", 3: "looked at", 4: "looked at", 6: "looked at", 7: "looked at", 9: "looked at",
               10: "looked at", 2: "set aside",
               8: "set aside (fifth session)", 11: "set aside (sixth session)", 12: "set aside (seventh session)",
               13: "set aside (eighth session)", 14: "set aside (ninth session)"}


# the second independent generator (bench/blind2, fourteenth session: written by someone who read
# neither the tool nor the first generator): seeds 1-3 looked at, 4 and 5 set aside
BLIND2_SEEDS = {1: "looked at", 2: "looked at", 3: "looked at", 4: "set aside", 5: "set aside"}
# the third (bench/blind3, fifteenth session: written by someone who read neither the tool nor the
# two earlier generators): seeds 1-3 looked at, 4 and 5 set aside
BLIND3_SEEDS = {1: "looked at", 2: "looked at", 3: "looked at", 4: "set aside", 5: "set aside"}
# the fourth (bench/blind4, sixteenth session: written by someone who read neither the tool nor the
# three earlier generators): seeds 1-3 looked at, 4 and 5 set aside
BLIND4_SEEDS = {1: "looked at", 2: "looked at", 3: "looked at", 4: "set aside", 5: "set aside"}
# the fifth (bench/blind5, seventeenth session: written by someone who read neither the tool nor the
# four earlier generators): seeds 1-3 looked at, 4 and 5 set aside
BLIND5_SEEDS = {1: "looked at", 2: "looked at", 3: "looked at", 4: "set aside", 5: "set aside"}
# the sixth (bench/blind6, eighteenth session: written by someone who read neither the tool nor the
# five earlier generators): seeds 1-3 looked at, 4 and 5 set aside
BLIND6_SEEDS = {1: "looked at", 2: "looked at", 3: "looked at", 4: "set aside", 5: "set aside"}
# the seventh (bench/blind7, twentieth session: written by someone who read neither the tool nor the
# six earlier generators): seeds 1-3 looked at, 4 and 5 set aside
BLIND7_SEEDS = {1: "looked at", 2: "looked at", 3: "looked at", 4: "set aside", 5: "set aside"}
# the eighth (bench/blind8, twenty-first session: written by two helpers who read neither the tool nor
# the seven earlier generators): none looked at
BLIND8_SEEDS = {1: "set aside", 2: "set aside", 3: "set aside", 4: "set aside", 5: "set aside"}
GENERATORS = {"blind": "gen_blind.py", "blind2": "gen_blind2.py", "blind3": "gen_blind3.py", "blind4": "gen_blind4.py",
              "blind5": "gen_blind5.py", "blind6": "gen_blind6.py", "blind7": "gen_blind7.py", "blind8": "gen_blind8.py"}


def _blind(seed: int, runs: int, work: Path, generator: str = "blind") -> dict[str, object]:
    out = work / f"{generator}-seed{seed}"
    subprocess.run([sys.executable, str(ROOT / "bench" / generator / GENERATORS[generator]), "--out", str(out),
                    "--n", str(runs), "--seed", str(seed)], check=True, capture_output=True)
    rows_file = work / f"{generator}-seed{seed}.json"
    subprocess.run([sys.executable, str(ROOT / "bench" / "blind" / "score_blind.py"), str(out), "--json", str(rows_file),
                    "--rankdoctor", str(Path(sys.executable).parent / "rankdoctor")], check=True, capture_output=True)
    rows = json.loads(rows_file.read_text())
    rows = rows["runs"] if isinstance(rows, dict) else rows
    failed = [r for r in rows if not r["truth"]["healthy"]]
    healthy = [r for r in rows if r["truth"]["healthy"]]
    app = [r for r in rows if r["init_applicable"]]
    secs = sorted(r["seconds"] for r in rows)
    return {
        "cause": (sum(r["cause_ok"] for r in failed), len(failed)),
        "initiator": (sum(bool(r["init_ok"]) for r in app), len(app)),
        "benign": (sum(r["n_incidents"] == 0 for r in healthy), len(healthy)),
        "false_drains": (sum(bool(r["drain_any"]) and not r["truth"]["drain"] for r in rows), len(rows)),
        "median_s": secs[len(secs) // 2] if secs else None,
    }


def _cell(pair: object) -> str:
    n, d = pair  # type: ignore[misc]
    return f"{n}/{d} ({100 * n / d:.0f}%)" if d else "-"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=60, help="blind runs per seed")
    args = ap.parse_args(argv)
    table: dict[str, dict[str, object]] = {}
    for split in SPLITS:
        ours, naive = score(split)
        table[f"real logs, {split} ({len(ours)})"] = {**figures(ours), "naive_cause": figures(naive)["cause"]}
    with tempfile.TemporaryDirectory() as tmp:
        for seed, how in BLIND_SEEDS.items():
            table[f"blind seed {seed}, {how} ({args.runs})"] = _blind(seed, args.runs, Path(tmp))
        for seed, how in BLIND2_SEEDS.items():
            table[f"blind2 seed {seed}, {how} ({args.runs})"] = _blind(seed, args.runs, Path(tmp), "blind2")
        for seed, how in BLIND3_SEEDS.items():
            table[f"blind3 seed {seed}, {how} ({args.runs})"] = _blind(seed, args.runs, Path(tmp), "blind3")
        for seed, how in BLIND4_SEEDS.items():
            table[f"blind4 seed {seed}, {how} ({args.runs})"] = _blind(seed, args.runs, Path(tmp), "blind4")
        for seed, how in BLIND5_SEEDS.items():
            table[f"blind5 seed {seed}, {how} ({args.runs})"] = _blind(seed, args.runs, Path(tmp), "blind5")
        for seed, how in BLIND6_SEEDS.items():
            table[f"blind6 seed {seed}, {how} ({args.runs})"] = _blind(seed, args.runs, Path(tmp), "blind6")
        for seed, how in BLIND7_SEEDS.items():
            table[f"blind7 seed {seed}, {how} ({args.runs})"] = _blind(seed, args.runs, Path(tmp), "blind7")
        for seed, how in BLIND8_SEEDS.items():
            table[f"blind8 seed {seed}, {how} ({args.runs})"] = _blind(seed, args.runs, Path(tmp), "blind8")
    print("| inputs | cause | initiator | healthy: no incident | false drains | naive reader's cause |")
    print("|---|---|---|---|---|---|")
    for name, f in table.items():
        naive = _cell(f["naive_cause"]) if "naive_cause" in f else "-"
        print(f"| {name} | {_cell(f['cause'])} | {_cell(f['initiator'])} | {_cell(f['benign'])} | "
              f"{f['false_drains'][0]} | {naive} |")  # type: ignore[index]
    out = ROOT / "bench" / "out"
    out.mkdir(parents=True, exist_ok=True)
    (out / "diagnosis.json").write_text(json.dumps(table, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
