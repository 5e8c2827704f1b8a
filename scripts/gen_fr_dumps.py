"""Generate PyTorch Flight Recorder dumps from real 4-rank ``torchrun`` gloo jobs (CPU).

What torch 2.13.0 (CPU build) can do, found by reading the installed package and trying it:

- The Flight Recorder is generic (``c10d::FlightRecorder<c10::Event>`` in libtorch_cpu) and the
  gloo backend records every collective into it when ``TORCH_FR_BUFFER_SIZE`` (or the older
  ``TORCH_NCCL_TRACE_BUFFER_SIZE``) is > 0: profiling name ``gloo:all_reduce``, collective
  sequence number, input/output sizes and dtypes, Python stack, ``retired`` and, per process
  group, ``pg_status`` (last enqueued / started / completed collective). Point-to-point ops
  (send/recv) are not recorded by gloo, entry ``state`` stays ``scheduled`` (gloo has no
  per-work start/complete events: ``retired`` and ``pg_status`` say what completed), and the
  ``pg_config`` that gloo records is unreliable (name ``''``, ranks ``'[]'`` or the world).
- Nothing in the CPU build writes a dump file by itself: ``TORCH_NCCL_DUMP_ON_TIMEOUT=1`` with
  ``TORCH_FR_DUMP_TEMP_FILE`` set wrote nothing when a gloo collective timed out (the dump on
  timeout lives in ProcessGroupNCCL's watchdog). After the gloo timeout the timed-out entry is
  marked retired and counted as completed, so a dump taken after the exception no longer shows
  the ranks waiting.
- What the CPU build offers is torch's own dump code, callable from Python:
  ``torch._C._distributed_c10d._dump_fr_trace(includeCollectives, includeStackTraces,
  onlyActive) -> bytes`` (the pickle format ``fr_trace`` reads, version ``"2.10"``) and
  ``_dump_fr_trace_json(includeCollectives, onlyActive) -> bytes`` (the same content as JSON;
  the per-rank worker HTTP server serves it as the ``fr_trace_json`` handler).

So each rank of the job runs a small *Flight Recorder watchdog* thread (it needs nothing from the
training loop): every 0.25 s it asks torch for ``pg_status`` (``_dump_fr_trace(False, False,
False)``); when no new collective was enqueued for ``--dump-after`` seconds (the ranks that
wait in a collective and the rank that never came), it calls ``_dump_fr_trace()`` and writes the
bytes torch returns, unchanged, to ``${TORCH_FR_DUMP_TEMP_FILE}<rank>`` (torch's own file naming;
the name used here is torch's default base name ``comm_lib_trace_rank_``). It also dumps when the
training loop raises and when torchrun sends SIGTERM (the thread wakes on the signal through
``signal.set_wakeup_fd``, dumps, then lets the signal kill the process). The dumps are therefore
written by torch's own dump code from real collectives; no pickle is made by hand.

Variants (``--variant``):

- ``hang``: rank 3 never enters the gradient all-reduce of step 8 (it sleeps); ranks 0-2 wait in
  it until the gloo timeout (``--pg-timeout``, 12 s) and torchrun SIGTERMs rank 3. Becomes the
  scenario ``replay_logs/torchrun_fr_hang_4r/``: the torchrun ``--log-dir`` tree
  (``scenario/attempt_0/<local_rank>/``), ``console.log``, ``fr_dumps/comm_lib_trace_rank_<R>``
  and ``expected.json``.
- ``mismatch``: at step 8 rank 2 calls ``all_gather`` for its loss metric where ranks 0, 1 and
  3 call ``all_reduce``. Written to ``--out`` only (not a replay scenario: without the Flight
  Recorder source wired into replay the logs alone do not name the mismatch).

Both variants also write the JSON form next to the pickle with ``--json``
(``comm_lib_trace_rank_<R>.json``).

Usage::

    .venv/bin/python scripts/gen_fr_dumps.py                      # the hang scenario
    .venv/bin/python scripts/gen_fr_dumps.py --variant mismatch --out /tmp/fr
    .venv/bin/python scripts/gen_fr_dumps.py --variant hang --out /tmp/fr --raw  # tree only

Machine-specific text in the *logs* is replaced as in gen_torchrun_scenarios.py (the virtualenv
becomes ``/opt/venv``, the repository ``/job``, the host ``node01``); the dumps are left byte for
byte as torch wrote them, so their stack frames keep this machine's paths.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
RUN_ID = "scenario"
NPROC = 4
DUMP_BASENAME = "comm_lib_trace_rank_"  # torch 2.13's default TORCH_FR_DUMP_TEMP_FILE base name
FAULT_RANK = {"hang": 3, "mismatch": 2}
FAULT_STEP = 8
SCENARIO_NAME = "torchrun_fr_hang_4r"
MAX_BYTES = 400 * 1024

DESCRIPTION = (
    "torchrun, 4 ranks on gloo with the Flight Recorder on (TORCH_FR_BUFFER_SIZE=2000): rank 3 "
    "stopped before the gradient all-reduce of step 8 and never entered it; ranks 0-2 waited in "
    "it until the 12 s gloo timeout and torchrun SIGTERMed rank 3. fr_dumps/ holds the four "
    "Flight Recorder dumps torch's _dump_fr_trace() wrote while the ranks were stalled "
    "(scripts/gen_fr_dumps.py)."
)


# --------------------------------------------------------------------------- worker (per rank)


class FrWatchdog:
    """Writes this rank's Flight Recorder dump (torch's own bytes) once, when collectives stall,
    when the training loop raises, or when the process gets SIGTERM."""

    def __init__(self, prefix: str, rank: int, stall_s: float, log: Callable[[str], None]) -> None:
        from torch._C._distributed_c10d import _dump_fr_trace  # type: ignore[attr-defined]  # not in the stubs

        self._dump_fr_trace = _dump_fr_trace
        self.path = Path(f"{prefix}{rank}")
        self.json_path = Path(f"{prefix}{rank}.json") if os.environ.get("RANKDOCTOR_FR_JSON") == "1" else None
        self.stall_s = stall_s
        self.log = log
        self._lock = threading.Lock()
        self._done = False
        self._rfd, self._wfd = os.pipe()
        os.set_blocking(self._wfd, False)
        signal.signal(signal.SIGTERM, self._on_sigterm)
        signal.set_wakeup_fd(self._wfd, warn_on_full_buffer=False)
        threading.Thread(target=self._run, name="fr-watchdog", daemon=True).start()

    def _on_sigterm(self, signum: int, frame: object) -> None:  # main thread, when it gets there
        self.dump("SIGTERM")
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTERM)

    def _enqueued(self) -> int:
        import pickle  # torch's own output, read back in the process that wrote it

        status = pickle.loads(self._dump_fr_trace(False, False, False)).get("pg_status", {})
        return sum(int(s.get("last_enqueued_collective", 0)) for s in status.values())

    def _run(self) -> None:
        import select

        last, since, armed = self._enqueued(), time.monotonic(), False
        while True:  # after its dump it stays, to act on SIGTERM while the main thread is blocked
            ready, _, _ = select.select([self._rfd], [], [], 0.25)
            if ready:
                if signal.SIGTERM in os.read(self._rfd, 64):
                    self.dump("SIGTERM")
                    signal.signal(signal.SIGTERM, signal.SIG_DFL)
                    os.kill(os.getpid(), signal.SIGTERM)
                continue
            if self._done:
                continue
            now = self._enqueued()
            if now != last:
                last, since, armed = now, time.monotonic(), True
            elif armed and time.monotonic() - since >= self.stall_s:
                self.dump(f"no new collective for {self.stall_s:.0f} s")

    def dump(self, why: str) -> None:
        with self._lock:
            if self._done:
                return
            self._done = True
            data = self._dump_fr_trace()  # pickle, includeCollectives and stack traces: torch's defaults
            tmp = self.path.with_name(self.path.name + ".tmp")
            tmp.write_bytes(data)
            tmp.replace(self.path)
            if self.json_path is not None:
                from torch._C._distributed_c10d import _dump_fr_trace_json  # type: ignore[attr-defined]

                self.json_path.write_bytes(_dump_fr_trace_json())
            self.log(f"flight recorder: {why}; wrote {len(data)} bytes to {self.path}")


def worker(argv: list[str]) -> None:
    """One rank of the job (run by torchrun); torchelastic's @record writes error.json."""
    p = argparse.ArgumentParser()
    p.add_argument("--variant", choices=("hang", "mismatch", "none"), required=True)
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--pg-timeout", type=float, default=12.0)
    p.add_argument("--dump-after", type=float, default=4.0)
    args = p.parse_args(argv)

    from torch.distributed.elastic.multiprocessing.errors import record

    record(_train)(args)


def _train(args: argparse.Namespace) -> None:
    import logging
    from datetime import timedelta

    import torch
    import torch.distributed as dist
    from torch import nn
    from torch.nn.parallel import DistributedDataParallel

    rank, local_rank, world = (int(os.environ[k]) for k in ("RANK", "LOCAL_RANK", "WORLD_SIZE"))
    logging.basicConfig(stream=sys.stderr, level=logging.INFO,
                        format=f"%(asctime)s %(levelname)s [rank{rank}] %(message)s")
    log = logging.getLogger("train_fr")
    torch.set_num_threads(1)
    log.info("started rank %d local_rank %d world_size %d pid %d host %s attempt %d", rank, local_rank, world,
             os.getpid(), socket.gethostname(), int(os.environ.get("TORCHELASTIC_RESTART_COUNT", "0")))
    dist.init_process_group("gloo", timeout=timedelta(seconds=args.pg_timeout))
    prefix = os.environ["TORCH_FR_DUMP_TEMP_FILE"]
    watchdog = FrWatchdog(prefix, rank, args.dump_after, log.info)

    torch.manual_seed(1234)
    model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 1))
    ddp = DistributedDataParallel(model)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    loss_fn = nn.MSELoss()
    culprit = FAULT_RANK.get(args.variant)
    try:
        for step in range(1, args.steps + 1):
            t0 = time.perf_counter()
            gen = torch.Generator().manual_seed(1234 * 100_003 + rank * 1_009 + step)
            x = torch.randn(16, 32, generator=gen)
            y = x.sum(dim=1, keepdim=True).sin()
            loss = loss_fn(ddp(x), y)
            if args.variant == "hang" and rank == culprit and step == FAULT_STEP:
                while True:  # never enters this step's gradient all-reduce
                    time.sleep(3600)
            opt.zero_grad()
            loss.backward()  # DDP all-reduces the gradients here
            opt.step()
            metric = loss.detach().clone().reshape(1)
            if args.variant == "mismatch" and rank == culprit and step == FAULT_STEP:
                gathered = [torch.empty_like(metric) for _ in range(world)]
                dist.all_gather(gathered, metric)  # the others all_reduce here
                metric = torch.stack(gathered).sum(0)
            else:
                dist.all_reduce(metric)
            step_ms = (time.perf_counter() - t0) * 1e3
            log.info("step %d | loss %.4f | mean_loss %.4f | step_ms %.1f", step, loss.item(),
                     metric.item() / world, step_ms)
            time.sleep(0.05)
    except Exception:
        watchdog.dump("the training loop raised")
        raise
    log.info("training finished step %d", args.steps)
    dist.destroy_process_group()


# --------------------------------------------------------------------------- driver


def torchrun_command(variant: str, log_dir: Path, pg_timeout: float, dump_after: float) -> list[str]:
    torchrun = Path(sys.executable).with_name("torchrun")
    return [
        str(torchrun) if torchrun.exists() else "torchrun",
        "--nnodes=1",
        f"--nproc-per-node={NPROC}",
        "--rdzv-backend=c10d",
        "--rdzv-endpoint=localhost:0",
        f"--rdzv-id={RUN_ID}",
        "--max-restarts=0",
        f"--log-dir={log_dir}",
        "--redirects=3",
        "--tee=3",
        str(Path(__file__).resolve()),
        "worker",
        "--variant",
        variant,
        "--pg-timeout",
        str(pg_timeout),
        "--dump-after",
        str(dump_after),
    ]


def replacements(work: Path, run_dir: Path) -> list[tuple[re.Pattern[str], str]]:
    """Machine-specific text -> neutral placeholders, most specific first (logs only)."""
    pairs: dict[str, str] = {}
    for real, neutral in (
        (run_dir, f"/logs/{RUN_ID}"),
        (work / "logs", "/logs"),
        (work / "fr_dumps", "/fr_dumps"),
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


def normalise_logs(root: Path, subs: list[tuple[re.Pattern[str], str]]) -> None:
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        text = path.read_text(encoding="utf-8", errors="surrogateescape")
        for pattern, neutral in subs:
            text = pattern.sub(neutral, text)
        path.write_text(text, encoding="utf-8", errors="surrogateescape")


def run_job(variant: str, work: Path, *, pg_timeout: float, dump_after: float, json_too: bool) -> dict[str, Any]:
    """Run the job in ``work``; returns what happened (the raw tree stays in ``work``)."""
    log_dir, dump_dir = work / "logs", work / "fr_dumps"
    log_dir.mkdir(parents=True)
    dump_dir.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RANKDOCTOR_", "TORCHELASTIC_", "SLURM_", "TORCH_"))}
    env |= {
        "TORCH_FR_BUFFER_SIZE": "2000",
        "TORCH_FR_DUMP_TEMP_FILE": str(dump_dir / DUMP_BASENAME),
        "RANKDOCTOR_FR_JSON": "1" if json_too else "0",
        "PYTHONUNBUFFERED": "1",
    }
    cmd = torchrun_command(variant, log_dir, pg_timeout, dump_after)
    started = time.monotonic()
    with (work / "console.log").open("wb") as console:
        proc = subprocess.run(cmd, stdout=console, stderr=subprocess.STDOUT, env=env, cwd=work, timeout=240, check=False)
    elapsed = time.monotonic() - started
    dumps = sorted(p.name for p in dump_dir.iterdir() if not p.name.endswith(".tmp"))
    return {"returncode": proc.returncode, "seconds": round(elapsed, 1), "dumps": dumps}


def build_scenario(work: Path, dest: Path) -> int:
    run_dirs = [d for d in (work / "logs").iterdir() if d.is_dir() and d.name.startswith(f"{RUN_ID}_")]
    if len(run_dirs) != 1:
        raise SystemExit(f"expected one run folder in {work / 'logs'}, found {run_dirs}")
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    shutil.copytree(run_dirs[0], dest / RUN_ID)
    shutil.copy2(work / "console.log", dest / "console.log")
    normalise_logs(dest, replacements(work, run_dirs[0]))  # text only: the dumps are copied after
    (dest / "fr_dumps").mkdir()
    for p in sorted((work / "fr_dumps").iterdir()):
        if not p.name.endswith(".tmp"):
            shutil.copy2(p, dest / "fr_dumps" / p.name)
    expected = {
        "description": DESCRIPTION,
        "origin": "torchrun",
        "incidents": [{"cause": "hang", "initiator": {"rank": FAULT_RANK["hang"]},
                       "collateral_ranks": [r for r in range(NPROC) if r != FAULT_RANK["hang"]], "drain_node": False}],
    }
    (dest / "expected.json").write_text(json.dumps(expected, indent=2) + "\n", encoding="utf-8")
    size = sum(p.stat().st_size for p in dest.rglob("*") if p.is_file())
    if size > MAX_BYTES:
        raise SystemExit(f"{dest.name}: {size} bytes is over the {MAX_BYTES}-byte budget")
    leaks = [str(p.relative_to(dest)) for p in dest.rglob("*")
             if p.is_file() and p.parent.name != "fr_dumps" and str(work) in p.read_text(errors="replace")]
    if leaks:
        raise SystemExit(f"{dest.name}: machine paths left in {leaks}")
    return size


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["worker"]:
        worker(argv[1:])
        return
    p = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    p.add_argument("--variant", choices=("hang", "mismatch"), default="hang")
    p.add_argument("--out", type=Path, default=REPO / "replay_logs",
                   help="hang: the scenario goes to OUT/torchrun_fr_hang_4r (default replay_logs); "
                        "mismatch: the raw run goes to OUT/fr_mismatch_4r")
    p.add_argument("--raw", action="store_true", help="write the raw run tree (logs/, fr_dumps/, console.log) only")
    p.add_argument("--json", action="store_true", help="also write the JSON form of each dump")
    p.add_argument("--pg-timeout", type=float, default=12.0)
    p.add_argument("--dump-after", type=float, default=4.0)
    args = p.parse_args(argv)
    raw = args.raw or args.variant != "hang"
    work = Path(tempfile.mkdtemp(prefix=f"rankdoctor_fr_{args.variant}_"))
    try:
        result = run_job(args.variant, work, pg_timeout=args.pg_timeout, dump_after=args.dump_after, json_too=args.json)
        if result["returncode"] == 0:
            raise SystemExit(f"{args.variant}: torchrun succeeded, but a fault was injected")
        if raw:
            dest = args.out / f"fr_{args.variant}_{NPROC}r"
            if dest.exists():
                shutil.rmtree(dest)
            shutil.copytree(work, dest)
            print(json.dumps({**result, "out": str(dest)}))
        else:
            dest = args.out / SCENARIO_NAME
            size = build_scenario(work, dest)
            print(json.dumps({**result, "out": str(dest), "bytes": size}))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
