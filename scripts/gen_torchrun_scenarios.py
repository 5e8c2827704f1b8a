"""Generate replay scenarios from real torchrun jobs with injected faults.

Each scenario runs ``tests/jobs/train_ddp.py`` under ``torchrun`` (4 ranks, gloo, CPU) with one or
more faults and becomes ``replay_logs/torchrun_<name>/``:

- ``scenario/attempt_N/<local_rank>/{stdout.log,stderr.log[,error.json]}``: the torchrun
  ``--log-dir`` tree (``--redirects 3 --tee 3``; run id fixed to ``scenario``),
- ``console.log``: the agent's console (its own stderr plus the teed worker output),
- ``expected.json``: the injected truth, written to the cause policy in docs/architecture.md.

The launch is what ``--standalone`` expands to (c10d rendezvous on ``localhost:0``, one node), but
spelled out so that the run id is ``scenario`` rather than a random uuid. Machine-specific text is
replaced: the log dir becomes ``/logs``, the checkpoint dir ``/ckpt``, the virtualenv
``/opt/venv``, the repository ``/job``, the host name ``node01``. torchrun's own ``host :
localhost`` in the failure summary is left as torchrun wrote it.

Usage::

    .venv/bin/python scripts/gen_torchrun_scenarios.py [--only NAME ...] [--out replay_logs]

Runs the jobs one after another (they need both cores). Measured on the 2-core development VM
(2026-11-30): the whole set takes about 80 s (exception 11 s, sigkill 9 s, hang 30 s because it
waits out the 20 s gloo timeout, sigsegv 9-11 s, two attempts 20 s); each job reaches its first
step 3-4 s after start. Each folder is 20-40 KB.

The restart scenario sets ``TORCH_DISABLE_SHARE_RDZV_TCP_STORE=1``: with torch 2.13's default
(the agent's TCPStore shared with the workers for the whole run) attempt 1 never reached training,
because its early ranks read the gloo addresses that attempt 0's dead ranks had published and failed
in init with ``Gloo connectFullMesh failed ... Connection refused`` (3 runs out of 3).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
TRAIN = REPO / "tests" / "jobs" / "train_ddp.py"
RUN_ID = "scenario"
NPROC = 4
MAX_BYTES = 200 * 1024
COMMON_TRAIN_ARGS = ["--steps", "20", "--pg-timeout", "20", "--ckpt-every", "5", "--seed", "1234"]


@dataclass(frozen=True)
class Fault:
    kind: str
    rank: int
    step: int
    attempt: int = 0


@dataclass(frozen=True)
class Scenario:
    name: str
    description: str
    faults: tuple[Fault, ...]
    incidents: list[dict[str, Any]]
    max_restarts: int = 0
    extra: dict[str, Any] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)


def incident(cause: str, rank: int) -> dict[str, Any]:
    others = [r for r in range(NPROC) if r != rank]
    return {
        "cause": cause,
        "initiator": {"rank": rank},
        "collateral_ranks": others,
        "drain_node": False,
    }


SCENARIOS = (
    Scenario(
        "exception_4r",
        "torchrun, 4 ranks on gloo: rank 2 raised an uncaught RuntimeError at step 8; the other "
        "ranks failed in the all-reduce (gloo connection closed) or were SIGTERMed by torchrun.",
        (Fault("exception", 2, 8),),
        [incident("python_exception", 2)],
    ),
    Scenario(
        "sigkill_4r",
        "torchrun, 4 ranks on gloo: rank 1 was SIGKILLed at step 8 with no OOM evidence (a bare "
        "SIGKILL names the killed rank but not who killed it: unknown, at low confidence); the other ranks lost their gloo "
        "connections or were SIGTERMed by torchrun.",
        (Fault("sigkill", 1, 8),),
        [incident("unknown", 1)],
    ),
    Scenario(
        "hang_4r",
        "torchrun, 4 ranks on gloo: rank 3 stopped before the all-reduce of step 8 and went "
        "silent; the others timed out in gloo after 20 s and torchrun SIGTERMed rank 3.",
        (Fault("hang", 3, 8),),
        [incident("hang", 3)],
    ),
    Scenario(
        "sigsegv_4r",
        "torchrun, 4 ranks on gloo: rank 0 died of SIGSEGV at step 8 (faulthandler printed "
        "'Fatal Python error: Segmentation fault'); the other ranks were collateral.",
        (Fault("sigsegv", 0, 8),),
        [incident("crash_signal", 0)],
    ),
    Scenario(
        "two_attempts_4r",
        "torchrun --max-restarts 1, 4 ranks on gloo: attempt 0 failed with an uncaught exception "
        "on rank 1 at step 8, the restarted attempt 1 resumed from the step 5 checkpoint and "
        "failed when rank 3 was SIGKILLed at step 8; two incidents, in the order they happened.",
        (Fault("exception", 1, 8, attempt=0), Fault("sigkill", 3, 8, attempt=1)),
        [incident("python_exception", 1), incident("unknown", 3)],
        max_restarts=1,
        extra={"allow_more_incidents": False},
        # By default the agent shares one TCPStore with the workers for the whole run, so the
        # gloo addresses that attempt 0 published are still there when attempt 1 starts: an early
        # rank of attempt 1 reads a dead peer's address and init fails ("Gloo connectFullMesh
        # failed ... Connection refused"). Unshared, worker rank 0 hosts a fresh store per attempt.
        env={"TORCH_DISABLE_SHARE_RDZV_TCP_STORE": "1"},
    ),
)


def torchrun_command(sc: Scenario, log_dir: Path, ckpt_dir: Path) -> list[str]:
    torchrun = Path(sys.executable).with_name("torchrun")
    cmd = [
        str(torchrun) if torchrun.exists() else "torchrun",
        "--nnodes=1",
        f"--nproc-per-node={NPROC}",
        "--rdzv-backend=c10d",
        "--rdzv-endpoint=localhost:0",
        f"--rdzv-id={RUN_ID}",
        f"--max-restarts={sc.max_restarts}",
        f"--log-dir={log_dir}",
        "--redirects=3",
        "--tee=3",
        str(TRAIN),
        *COMMON_TRAIN_ARGS,
        "--ckpt-dir",
        str(ckpt_dir),
    ]
    for f in sc.faults:
        cmd += ["--fault", f.kind, "--fault-rank", str(f.rank), "--fault-step", str(f.step)]
        cmd += ["--fault-attempt", str(f.attempt)]
    return cmd


def replacements(work: Path, run_dir: Path) -> list[tuple[re.Pattern[str], str]]:
    """Machine-specific text -> neutral placeholders, most specific first."""
    pairs: dict[str, str] = {}
    for real, neutral in (
        (run_dir, f"/logs/{RUN_ID}"),
        (work / "logs", "/logs"),
        (work / "ckpt", "/ckpt"),
        (work, "/tmp/job"),
        (Path(sys.prefix), "/opt/venv"),
        (REPO, "/job"),
    ):
        for variant in {str(real), os.path.realpath(real)}:
            pairs.setdefault(variant, neutral)
    subs = [(re.compile(re.escape(k) + r"(?![\w.-])"), v) for k, v in sorted(pairs.items(), key=lambda kv: -len(kv[0]))]
    hosts = {socket.gethostname(), socket.getfqdn()} - {"localhost", "localhost.localdomain", ""}
    for host in sorted(hosts, key=len, reverse=True):
        subs.append((re.compile(rf"(?<![\w.-]){re.escape(host)}(?![\w-])"), "node01"))
    return subs


def normalise_tree(root: Path, subs: list[tuple[re.Pattern[str], str]]) -> None:
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        text = path.read_text(encoding="utf-8", errors="surrogateescape")
        for pattern, neutral in subs:
            text = pattern.sub(neutral, text)
        path.write_text(text, encoding="utf-8", errors="surrogateescape")


def generate(sc: Scenario, out_root: Path, keep_tmp: bool) -> float:
    dest = out_root / f"torchrun_{sc.name}"
    work = Path(tempfile.mkdtemp(prefix=f"rankdoctor_{sc.name}_"))
    log_dir, ckpt_dir = work / "logs", work / "ckpt"
    log_dir.mkdir()
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("RANKDOCTOR_", "TORCHELASTIC_", "SLURM_", "TORCH_"))
    } | sc.env
    cmd = torchrun_command(sc, log_dir, ckpt_dir)
    started = time.monotonic()
    with (work / "console.log").open("wb") as console:
        proc = subprocess.run(
            cmd,
            stdout=console,
            stderr=subprocess.STDOUT,
            env=env,
            cwd=work,
            timeout=300,
            check=False,
        )
    elapsed = time.monotonic() - started
    if proc.returncode == 0:
        raise SystemExit(f"{sc.name}: torchrun succeeded, but a fault was injected")
    run_dirs = [d for d in log_dir.iterdir() if d.is_dir() and d.name.startswith(f"{RUN_ID}_")]
    if len(run_dirs) != 1:
        raise SystemExit(f"{sc.name}: expected one run folder in {log_dir}, found {run_dirs}")

    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    shutil.copytree(run_dirs[0], dest / RUN_ID)
    shutil.copy2(work / "console.log", dest / "console.log")
    normalise_tree(dest, replacements(work, run_dirs[0]))
    expected = {
        "description": sc.description,
        "origin": "torchrun",
        "incidents": sc.incidents,
        **sc.extra,
    }
    (dest / "expected.json").write_text(json.dumps(expected, indent=2) + "\n", encoding="utf-8")

    size = sum(p.stat().st_size for p in dest.rglob("*") if p.is_file())
    if size > MAX_BYTES:
        raise SystemExit(f"{sc.name}: {size} bytes is over the {MAX_BYTES}-byte budget")
    leaks = [
        str(p.relative_to(dest))
        for p in dest.rglob("*")
        if p.is_file() and any(s in p.read_text(errors="replace") for s in (str(work), str(REPO)))
    ]
    if leaks:
        raise SystemExit(f"{sc.name}: machine paths left in {leaks}")
    if not keep_tmp:
        shutil.rmtree(work)
    print(f"{sc.name}: rc={proc.returncode} {elapsed:.1f} s {size // 1024} KiB -> {dest}")
    return elapsed


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--out", type=Path, default=REPO / "replay_logs")
    p.add_argument("--only", nargs="*", choices=[s.name for s in SCENARIOS], default=None)
    p.add_argument("--keep-tmp", action="store_true", help="keep the raw run folders in /tmp")
    args = p.parse_args(argv)
    chosen = [s for s in SCENARIOS if args.only is None or s.name in args.only]
    started = time.monotonic()
    for sc in chosen:
        generate(sc, args.out, args.keep_tmp)
    print(f"{len(chosen)} scenarios in {time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    main()
