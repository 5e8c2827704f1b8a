"""Remediation benchmark (issue #3): the whole loop on a real Slurm, timed.

Starts munged, slurmctld and two slurmd (n1, n2) under a temp dir (tests/slurm_harness.py), then
runs the whole-loop scenario of tests/test_remediation_slurm.py ``--repeat`` times: a torchrun
job (2 CPU ranks, gloo) on n1 checkpoints every 5 steps; one rank is SIGKILLed and a Xid 119 line
for its pid is written to n1's kernel log; detection (the replay engine, polled every 0.2 s)
names rank 1 and n1; rankdoctor drains n1, requeues the job (cred_expire=5 s delays its restart
by about 6 s), which resumes on n2 from the newest checkpoint; verification follows the new
attempt's logs until a step beyond the checkpoint.

Prints a Markdown table of the median (and min–max) seconds from the fault to: the incident,
the node drained, the job running again, resumption verified. Writes bench/out/remediation.json.
Needs root and the Debian packages slurmctld slurmd slurm-client munge.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.slurm import _stop, missing_binaries, start_cluster  # noqa: E402
from tests.support.slurm_loop import run_whole_loop  # noqa: E402

STAGES = (("incident", "fault → incident"), ("drained", "fault → node drained"),
          ("running", "fault → job running again"), ("verified", "fault → resumption verified"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    missing = missing_binaries()
    if missing:
        print(f"skipped: not installed: {', '.join(missing)}")
        return 0
    base = Path(tempfile.mkdtemp(prefix="rd-bench-slurm-"))
    cluster, pid_files = start_cluster(base / "slurm")
    samples: dict[str, list[float]] = {key: [] for key, _ in STAGES}
    try:
        for i in range(args.repeat):
            cluster.resume_all()
            loop = run_whole_loop(cluster, base / f"loop{i}", None)
            for key, _ in STAGES:
                samples[key].append(loop.times[key] - loop.times["fault"])
            cluster.cancel_all()
            print(f"run {i + 1}: " + ", ".join(f"{k} {v[-1]:.2f} s" for k, v in samples.items()),
                  file=sys.stderr)
    finally:
        _stop(pid_files[::-1])
        shutil.rmtree(base, ignore_errors=True)
    print(f"Whole remediation loop on a real Slurm (2 slurmd on one host, cred_expire=5), "
          f"{args.repeat} runs; seconds after the fault (SIGKILL of rank 1 + Xid 119):\n")
    print("| stage | median s | min–max s |")
    print("|---|---|---|")
    for key, label in STAGES:
        values = samples[key]
        print(f"| {label} | {statistics.median(values):.1f} | "
              f"{min(values):.1f}–{max(values):.1f} |")
    out = ROOT / "bench" / "out"
    out.mkdir(parents=True, exist_ok=True)
    (out / "remediation.json").write_text(json.dumps(samples, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
