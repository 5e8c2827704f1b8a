"""The whole remediation loop on a real Slurm (no tests here): a requeueable job runs a real
torchrun DDP job on n1 and checkpoints; one rank is killed and a Xid line for its pid is
written to n1's kernel log; the live sidecar names rank 1 and n1; the remediator drains n1,
requeues the job, which resumes on n2, and verification sees it progress. Run by
tests/remediation/test_remediation_slurm.py and ``bench/bench_remediation.py``."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from detector.remediation.build import build_remediator
from detector.remediation.config import load_remediation_config
from detector.remediation.exec.process import CommandResult, SubprocessRunner
from detector.remediation.model import Decision, Verification
from detector.remediation.remediator import Remediator
from detector.remediation.worker import RemediationWorker
from detector.report.jsonfmt import incident_from_dict
from detector.types import Cause, Incident
from tests.support.paths import ROOT
from tests.support.slurm import SlurmCluster

TRAIN = ROOT / "tests" / "jobs" / "train_ddp.py"
MACHINE = (Cause.GPU_HARDWARE, Cause.ECC_MEMORY, Cause.NVLINK)


class RecordingRunner:
    """The real runner, noting when each command finished (for the timings)."""

    def __init__(self, env: Mapping[str, str]) -> None:
        self._real = SubprocessRunner(base_env=env)
        self.done: list[tuple[float, tuple[str, ...], int]] = []

    def __call__(self, argv: Sequence[str], *, timeout: float, stdin: str | None = None,
                 env: Mapping[str, str] | None = None) -> CommandResult:
        res = self._real(argv, timeout=timeout, stdin=stdin, env=env)
        self.done.append((time.time(), tuple(argv), res.returncode))
        return res

    def changing(self) -> list[tuple[str, ...]]:
        return [a for _, a, _ in self.done if "show" not in a]


def write_config(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def remediator(cfg_path: Path, cluster: SlurmCluster, **kw: Any) -> tuple[Remediator,
                                                                           RecordingRunner]:
    runner = RecordingRunner(cluster.env)
    cfg = load_remediation_config(cfg_path, environ={})
    return build_remediator(cfg, environ={}, runner=runner, **kw), runner


def submit(cluster: SlurmCluster, script: Path, out: Path) -> str:
    return cluster.run("sbatch", "--parsable", "--requeue", f"--output={out}",
                       str(script)).stdout.strip()


@dataclass
class LoopResult:
    job: str
    incident: Incident
    decision: Decision
    verification: Verification
    times: dict[str, float] = field(default_factory=dict)
    runner: RecordingRunner | None = None
    config: Path | None = None
    run_dir: Path | None = None
    newest_checkpoint: int | None = None  # the newest complete one when the incident came


def job_script(work: Path) -> Path:
    """A requeueable batch job: torchrun with 2 CPU ranks on whichever node Slurm gives it; each
    node keeps its logs under run/<node>/ and its kernel log would be run/<node>/kern.log."""
    run = work / "run"
    script = work / "train.sh"
    script.write_text(f"""#!/bin/bash
set -u
node=$SLURMD_NODENAME
attempt=${{SLURM_RESTART_COUNT:-0}}
mkdir -p {run}/$node/torchrun
{sys.executable} -m torch.distributed.run --standalone --nproc-per-node=2 \\
    --log-dir {run}/$node/torchrun --redirects 3 {TRAIN} --steps 2000 \\
    --ckpt-dir {work}/ckpt --ckpt-every 5 --step-sleep 0.2 --pid-file-dir {work}/pids/$attempt \\
    > {run}/$node/launcher-$attempt.log 2>&1
""")
    return script


def rank_log(run: Path, node: str, rank: int) -> Path | None:
    found = sorted(run.glob(f"{node}/torchrun/*/attempt_0/{rank}/stderr.log"))
    return found[0] if found else None


def start_sidecar(run: Path, work: Path) -> tuple[subprocess.Popen[bytes], Path]:
    """The live sidecar of node n1: follows n1's log folder and kernel log file, writes each
    incident as a JSON line (remediation is handed over by the test, as the sidecar would)."""
    node_dir = run / "n1"
    node_dir.mkdir(parents=True, exist_ok=True)
    (node_dir / "kern.log").touch()
    incidents = work / "incidents.jsonl"
    log = (work / "sidecar.log").open("wb")
    proc = subprocess.Popen(
        [sys.executable, "-m", "detector.cli", "watch", "--logs", str(node_dir), "--kmsg", str(node_dir / "kern.log"),
         "--no-nvml", "--no-remediate", "--no-metrics", "--node", "n1", "--state", str(work / "sidecar-state"),
         "--incidents", str(incidents)],
        stdout=log, stderr=subprocess.STDOUT, cwd=ROOT, start_new_session=True,
    )
    return proc, incidents


def detect(incidents: Path, timeout: float) -> Incident | None:
    """The first machine incident the sidecar wrote that names a node and a rank."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if incidents.exists():
            for line in incidents.read_text().splitlines():
                incident = incident_from_dict(json.loads(line))
                if incident.cause in MACHINE and incident.initiator.node and incident.initiator.rank is not None:
                    return incident
        time.sleep(0.05)
    return None


def run_whole_loop(cluster: SlurmCluster, work: Path, pager_url: str | None) -> LoopResult:
    """The loop on a real cluster (tests/remediation/test_remediation_slurm.py); also run by
    bench/bench_remediation.py for its timings."""
    run = work / "run"
    run.mkdir(parents=True)
    cfg = write_config(work / "rankdoctor.yaml", f"""\
remediation:
  act: true
  state_dir: {work / 'state'}
  hook_timeout_s: 20
  budget: {{max_drains_per_hour: 2, max_drain_fraction: 0.25}}
  verify:
    logs: ["{run}/*/torchrun/*/attempt_*/*/stderr.log"]
    deadline_s: 180
    poll_s: 0.2
  hooks:
    - {{type: checkpoint, dir: "{work / 'ckpt'}", pattern: "step_*"}}
    - {{type: slurm, job_id: "JOB", resubmit: requeue}}
""" + (f'    - {{type: webhook, url: "{pager_url}"}}\n' if pager_url else ""))
    times: dict[str, float] = {}
    sidecar, incidents = start_sidecar(run, work)
    job = submit(cluster, job_script(work), work / "slurm-%j.out")
    cfg.write_text(cfg.read_text().replace('"JOB"', f'"{job}"'))
    rem, runner = remediator(cfg, cluster)
    results: list[tuple[Decision, Verification | None]] = []
    verified = threading.Event()

    def on_result(d: Decision, v: Verification | None) -> None:
        results.append((d, v))
        if v is not None:
            times["verified"] = time.time()
            verified.set()

    worker = RemediationWorker(rem, on_result=on_result)
    try:
        # wait for a checkpoint and a few more steps on n1, then the fault
        cluster.wait_for("rank 1 at step 12 on n1", lambda: (
            (log := rank_log(run, "n1", 1)) is not None and " step 12 |" in log.read_text()),
            timeout=120)
        pid = int((work / "pids" / "0" / "rank_1.pid").read_text())
        times["fault"] = time.time()
        os.kill(pid, signal.SIGKILL)
        stamp = datetime.now(UTC).isoformat(timespec="microseconds")
        with (run / "n1" / "kern.log").open("a") as kern:
            kern.write(f"{stamp} n1 kernel: NVRM: Xid (PCI:0000:3b:00): 119, pid={pid}, "
                       "name=python3, Timeout after 6s of waiting for RPC response from GPU0 "
                       "GSP! Expected function 76 (GSP_RM_CONTROL) (0x20801348 0x4).\n")
        incident = detect(incidents, timeout=60)
        assert incident is not None, "the sidecar did not name a node and a rank: " + (
            (work / "sidecar.log").read_text(errors="replace")[-3000:])
        times["incident"] = time.time()
        newest = newest_complete(work / "ckpt")
        assert worker.submit(incident)
        cluster.wait_for("job running on n2", lambda: (
            cluster.job_field(job, "JobState") == "RUNNING"
            and cluster.job_field(job, "NodeList") == "n2"), timeout=120, interval=0.1)
        times["running"] = time.time()
        assert verified.wait(200), f"no verification: {results}"
    finally:
        worker.close(timeout=5)
        sidecar.terminate()
        try:
            sidecar.wait(timeout=10)
        except subprocess.TimeoutExpired:
            sidecar.kill()
    decision, verification = results[0][0], results[-1][1]
    assert verification is not None
    drain_done = next(t for t, argv, _ in runner.done if "State=DRAIN" in argv)
    times["drained"] = drain_done
    times["requeued"] = next(t for t, argv, _ in runner.done if "requeue" in argv)
    return LoopResult(job, incident, decision, verification, times, runner, cfg, run, newest)


def newest_complete(ckpt: Path) -> int | None:
    steps = [int(p.name[5:]) for p in ckpt.glob("step_*") if (p / "COMPLETE").is_file()]
    return max(steps) if steps else None
