"""A small, real DDP training job (gloo, CPU) with fault injection, for tests and scenarios.

Run it under torchrun::

    torchrun --standalone --nproc-per-node=4 tests/jobs/train_ddp.py --steps 20 \
        --fault exception --fault-rank 2 --fault-step 8

Every rank logs one line per step to stderr::

    2026-11-30 12:00:01,123 INFO [rank2] step 7 | loss 1.0312 | step_ms 61.2 | fwd_ms 0.4 \
        | bwd_ms 3.1 | data_ms 0.1

``fwd_ms`` and ``data_ms`` are rank-local (measured before the all-reduce that DDP runs inside
``backward``), so a straggler shows there; ``step_ms`` is the whole step and is about the same on
every rank. Faults (``--fault``, or ``RANKDOCTOR_FAULT`` / ``RANKDOCTOR_FAULT_RANK`` /
``RANKDOCTOR_FAULT_STEP`` / ``RANKDOCTOR_FAULT_ATTEMPT`` when the argument is not given) fire on one
rank at one step of one attempt (``TORCHELASTIC_RESTART_COUNT`` or ``SLURM_RESTART_COUNT``):

- ``exception``: ``RuntimeError("injected fault: bad batch at step S")``, uncaught;
- ``sigkill`` / ``sigsegv``: the rank sends itself the signal (faulthandler prints
  ``Fatal Python error: Segmentation fault`` for the latter);
- ``hang``: the rank sleeps forever before the all-reduce; the others time out in gloo
  after ``--pg-timeout`` seconds;
- ``sleep``: the rank sleeps forever before its forward pass, printing nothing (the others wait
  in DDP's gradient all-reduce);
- ``loader_stall``: the rank's data loader never delivers batch S: its dataset's ``__getitem__``
  blocks (as a read from a hung file system would), in a DataLoader worker process when
  ``--loader-workers`` is 1 or more, else in the rank's main thread; needs ``--loader-workers``;
- ``lock_wait``: a helper thread of the rank takes the lock that guards the step statistics and
  never lets it go (it waits for an event nobody sets); the main thread blocks on that lock
  before its forward pass;
- ``slow``: from step S on, the rank sleeps ``--slow-ms`` more in its rank-local forward section;
- ``oom_exit``: an uncaught ``torch.OutOfMemoryError`` with the CUDA out-of-memory message;
- ``exit1``: logs an error line and calls ``sys.exit(1)``;
- ``caught``: a ``FileNotFoundError`` the rank catches and logs with its traceback
  (``logging.exception``), then trains on (a healthy run with a scary traceback);
- ``caught_reset``: the same with a ``ConnectionResetError`` (a metrics upload's lost connection).

Repeat the ``--fault*`` options (or give comma-separated lists in the variables) to plan several
faults, e.g. one per attempt of a job run with ``torchrun --max-restarts 1``.

This file is a test fixture, not part of the rankdoctor package.
"""

from __future__ import annotations

import argparse
import faulthandler
import logging
import os
import re
import signal
import socket
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.elastic.multiprocessing.errors import record
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, Dataset

FAULTS = ("none", "exception", "sigkill", "sigsegv", "hang", "slow", "oom_exit", "exit1", "sleep",
          "loader_stall", "lock_wait", "caught", "caught_reset")
CKPT_DIR_RE = re.compile(r"^step_(\d{8})$")
IN_DIM, HIDDEN, BATCH = 32, 64, 16

log = logging.getLogger("train_ddp")
STATS_LOCK = threading.Lock()  # guards STATS; the step loop and helper threads take it
STATS: dict[str, float] = {"steps": 0.0}


@dataclass(frozen=True)
class Fault:
    kind: str
    rank: int
    step: int
    attempt: int


# (option, environment variable, default); each option may be repeated to plan several faults.
FAULT_OPTIONS = (
    ("fault", "RANKDOCTOR_FAULT", "none"),
    ("fault_rank", "RANKDOCTOR_FAULT_RANK", "0"),
    ("fault_step", "RANKDOCTOR_FAULT_STEP", "5"),
    ("fault_attempt", "RANKDOCTOR_FAULT_ATTEMPT", "0"),
)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description="Small DDP (gloo) training job with fault injection; run under torchrun.",
        epilog="Repeat the --fault* options (or give comma-separated lists in the RANKDOCTOR_* "
        "variables) to plan several faults: the i-th values form the i-th fault, an option "
        "given fewer times repeats its last value. An option given on the command line "
        "replaces its environment variable.",
    )
    p.add_argument("--steps", type=int, default=20, help="total number of steps (default 20)")
    p.add_argument("--step-sleep", type=float, default=0.05, help="seconds of sleep per step")
    p.add_argument("--pg-timeout", type=float, default=30.0, help="process-group timeout, s")
    p.add_argument("--seed", type=int, default=1234)
    p.add_argument("--ckpt-dir", type=Path, default=None, help="checkpoint folder (off if unset)")
    p.add_argument("--ckpt-every", type=int, default=10, help="save every N steps (rank 0)")
    p.add_argument("--fault", action="append", choices=FAULTS, help="default none")
    p.add_argument("--fault-rank", action="append", help="global rank (default 0)")
    p.add_argument("--fault-step", action="append", help="step (default 5)")
    p.add_argument("--fault-attempt", action="append", help="restart count (default 0)")
    p.add_argument("--slow-ms", type=float, default=30.0, help="extra ms per step for 'slow'")
    p.add_argument("--pid-file-dir", type=Path, default=None, help="write rank_<R>.pid here")
    p.add_argument("--save-on-sigterm", type=float, default=0.0, metavar="SECONDS",
                   help="on SIGTERM, say so and take this long to 'save a checkpoint' before exiting (what "
                   "trainers that checkpoint on preemption do; 0: Python's default, exit at once)")
    p.add_argument("--loader-workers", type=int, default=None,
                   help="load batches through a torch DataLoader with this many worker processes "
                   "(0: in the main process); default: batches are made inline")
    args = p.parse_args(argv)
    columns: list[list[str]] = []
    for name, var, default in FAULT_OPTIONS:
        given: list[str] | None = getattr(args, name)
        if given is None:
            given = [v.strip() for v in os.environ.get(var, default).split(",") if v.strip()]
        columns.append(given or [default])
    rows = [[c[min(i, len(c) - 1)] for c in columns] for i in range(max(map(len, columns)))]
    try:
        args.faults = [Fault(k, int(r), int(s), int(a)) for k, r, s, a in rows if k != "none"]
    except ValueError as e:
        p.error(f"fault rank, step and attempt must be integers: {e}")
    if bad := [f.kind for f in args.faults if f.kind not in FAULTS]:
        p.error(f"unknown fault {bad[0]!r}; choose from {', '.join(FAULTS)}")
    if args.loader_workers is None and any(f.kind == "loader_stall" for f in args.faults):
        p.error("the loader_stall fault needs --loader-workers N (0 or more)")
    return args


def restart_count() -> int:
    env = os.environ
    return int(env.get("TORCHELASTIC_RESTART_COUNT") or env.get("SLURM_RESTART_COUNT") or 0)


def latest_checkpoint(ckpt_dir: Path | None) -> tuple[int, Path] | None:
    """The newest complete checkpoint (a ``step_NNNNNNNN`` folder holding ``COMPLETE``)."""
    if ckpt_dir is None or not ckpt_dir.is_dir():
        return None
    found = [
        (int(m.group(1)), d)
        for d in ckpt_dir.iterdir()
        if (m := CKPT_DIR_RE.match(d.name)) and (d / "COMPLETE").is_file()
    ]
    return max(found) if found else None


def save_checkpoint(ckpt_dir: Path, step: int, model: nn.Module, opt: torch.optim.Optimizer) -> None:
    folder = ckpt_dir / f"step_{step:08d}"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "model.pt"
    torch.save({"step": step, "model": model.state_dict(), "optim": opt.state_dict()}, path)
    (folder / "COMPLETE").touch()  # last: a folder without it is an interrupted save
    log.info("checkpoint saved step %d path %s", step, path)


def make_batch(seed: int, rank: int, step: int) -> tuple[torch.Tensor, torch.Tensor]:
    gen = torch.Generator().manual_seed(seed * 100_003 + rank * 1_009 + step)
    x = torch.randn(BATCH, IN_DIM, generator=gen)
    return x, x.sum(dim=1, keepdim=True).sin()


class RankBatches(Dataset[tuple[torch.Tensor, torch.Tensor]]):
    """Item i is the batch of step ``first + i`` (what :func:`make_batch` gives); the item of
    ``stall_step`` never comes: reading it blocks, as a read from a hung file system would."""

    def __init__(self, seed: int, rank: int, first: int, last: int, stall_step: int | None) -> None:
        self.seed, self.rank, self.first, self.last, self.stall_step = seed, rank, first, last, stall_step

    def __len__(self) -> int:
        return max(0, self.last - self.first + 1)

    def __getitem__(self, index: int) -> tuple[torch.Tensor, torch.Tensor]:
        step = self.first + index
        if step == self.stall_step:
            read_stuck_shard(step)
        return make_batch(self.seed, self.rank, step)


def read_stuck_shard(step: int) -> None:
    while True:  # the injected stall: the shard for this step never arrives
        time.sleep(3600)


def batches(args: argparse.Namespace, rank: int, first: int,
            stall_step: int | None) -> Iterator[tuple[int, tuple[torch.Tensor, torch.Tensor]]]:
    """(step, (x, y)) for each step from ``first``: inline, or through a DataLoader."""
    if args.loader_workers is None:
        for step in range(first, args.steps + 1):
            yield step, make_batch(args.seed, rank, step)
        return
    data = RankBatches(args.seed, rank, first, args.steps, stall_step)
    loader = DataLoader(data, batch_size=None, shuffle=False, num_workers=args.loader_workers)
    yield from enumerate(loader, first)


def hold_stats_lock_forever() -> None:
    """The lock_wait fault: a helper thread takes STATS_LOCK and waits for an event that
    never comes, so the next ``with STATS_LOCK`` of the step loop blocks for good."""
    taken = threading.Event()

    def flusher() -> None:
        with STATS_LOCK:
            taken.set()
            threading.Event().wait()  # waits for a flush acknowledgement nobody sends

    threading.Thread(target=flusher, name="stats-flusher", daemon=True).start()
    taken.wait()


def count_step() -> None:
    with STATS_LOCK:
        STATS["steps"] += 1


def oom_error(local_rank: int) -> torch.OutOfMemoryError:
    return torch.OutOfMemoryError(
        f"CUDA out of memory. Tried to allocate 2.00 GiB. GPU {local_rank} has a total capacity "
        "of 139.81 GiB of which 1.12 GiB is free. Including non-PyTorch memory, this process has "
        "138.68 GiB memory in use. Of the allocated memory 135.20 GiB is allocated by PyTorch, "
        "and 2.31 GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory "
        "is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid "
        "fragmentation.  See documentation for Memory Management  "
        "(https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)"
    )


def inject_fault(fault: str, step: int, local_rank: int) -> None:
    """Fire a fault that ends (or stalls) this rank, after its forward and before the all-reduce."""
    if fault == "sigkill":
        os.kill(os.getpid(), signal.SIGKILL)
    elif fault == "sigsegv":
        os.kill(os.getpid(), signal.SIGSEGV)  # faulthandler prints the Python stacks
    elif fault == "hang":
        while True:  # the others wait in the all-reduce until the gloo timeout
            time.sleep(3600)
    elif fault == "oom_exit":
        raise oom_error(local_rank)
    elif fault == "exit1":
        log.error("injected fault: exiting with status 1 at step %d", step)
        sys.exit(1)
    elif fault == "caught":
        try:
            open("/nonexistent/ckpt/latest.json")  # noqa: SIM115 (it fails: the file is not there)
        except FileNotFoundError:
            log.exception("could not read the checkpoint marker at step %d, training on", step)
    elif fault == "caught_reset":
        try:
            raise ConnectionResetError(104, "Connection reset by peer")
        except ConnectionResetError:
            log.exception("metrics upload failed at step %d, will retry", step)


def setup(args: argparse.Namespace) -> tuple[int, int]:
    """Logging, pid file and process group; returns (rank, local_rank)."""
    rank, local_rank = int(os.environ["RANK"]), int(os.environ["LOCAL_RANK"])
    logging.basicConfig(
        stream=sys.stderr,
        level=logging.INFO,
        format=f"%(asctime)s %(levelname)s [rank{rank}] %(message)s",
    )
    faulthandler.enable(all_threads=True)
    torch.set_num_threads(1)
    if args.pid_file_dir is not None:
        args.pid_file_dir.mkdir(parents=True, exist_ok=True)
        (args.pid_file_dir / f"rank_{rank}.pid").write_text(f"{os.getpid()}\n")
    log.info(
        "started rank %d local_rank %d world_size %s pid %d host %s attempt %d",
        *(rank, local_rank, os.environ["WORLD_SIZE"], os.getpid()),
        *(socket.gethostname(), restart_count()),
    )
    timeout = timedelta(seconds=args.pg_timeout)
    if restart_count() > 0 and os.environ.get("TORCHELASTIC_RUN_ID"):
        # a worker torchrun restarted: the store it shares with the earlier attempt still holds
        # that attempt's gloo addresses under the same keys, and a new worker that reads them
        # first fails to connect ("Connection refused"); this attempt's keys under a prefix of its own
        store, _, _ = next(dist.rendezvous("env://", rank, int(os.environ["WORLD_SIZE"]), timeout=timeout))
        store = dist.PrefixStore(f"attempt{restart_count()}/", store)
        dist.init_process_group("gloo", store=store, rank=rank, world_size=int(os.environ["WORLD_SIZE"]), timeout=timeout)
    else:
        dist.init_process_group("gloo", timeout=timeout)
    return rank, local_rank


@record
def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    rank, local_rank = setup(args)
    if args.save_on_sigterm > 0:
        def saving(signum: int, _frame: object) -> None:
            log.info("received SIGTERM: saving a checkpoint before exiting")
            time.sleep(args.save_on_sigterm)
            os._exit(143)

        signal.signal(signal.SIGTERM, saving)
    mine = [f for f in args.faults if f.rank == rank and f.attempt == restart_count()]
    fault_at = {f.step: f.kind for f in mine if f.kind != "slow"}
    slow_from = min((f.step for f in mine if f.kind == "slow"), default=None)

    torch.manual_seed(args.seed)
    model = nn.Sequential(nn.Linear(IN_DIM, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    start = 1
    if (latest := latest_checkpoint(args.ckpt_dir)) is not None:
        state = torch.load(latest[1] / "model.pt", map_location="cpu", weights_only=True)
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["optim"])
        start = latest[0] + 1
        log.info("resumed from checkpoint step %d", latest[0])
    ddp = DistributedDataParallel(model)
    loss_fn = nn.MSELoss()

    step = start - 1
    stall_step = next((s for s, kind in fault_at.items() if kind == "loader_stall"), None)
    t0 = time.perf_counter()
    for step, (x, y) in batches(args, rank, start, stall_step):
        fault = fault_at.get(step)
        if fault == "exception":
            raise RuntimeError(f"injected fault: bad batch at step {step}")
        t1 = time.perf_counter()
        if fault == "sleep":
            while True:  # silently, before the forward pass; the others wait in the all-reduce
                time.sleep(3600)
        if fault == "lock_wait":
            hold_stats_lock_forever()
        count_step()
        loss = loss_fn(ddp(x), y)
        if slow_from is not None and step >= slow_from:
            time.sleep(args.slow_ms / 1000.0)
        if fault is not None:
            inject_fault(fault, step, local_rank)
        t2 = time.perf_counter()
        opt.zero_grad()
        loss.backward()  # DDP all-reduces the gradients here
        opt.step()
        t3 = time.perf_counter()
        times_ms = [(b - a) * 1e3 for a, b in ((t0, t3), (t1, t2), (t2, t3), (t0, t1))]
        log.info(
            "step %d | loss %.4f | step_ms %.1f | fwd_ms %.1f | bwd_ms %.1f | data_ms %.1f",
            step,
            loss.item(),
            *times_ms,
        )
        if args.ckpt_dir and args.ckpt_every > 0 and rank == 0 and step % args.ckpt_every == 0:
            save_checkpoint(args.ckpt_dir, step, model, opt)
        time.sleep(args.step_sleep)
        t0 = time.perf_counter()  # the next batch's wait (data_ms) starts now
    log.info("training finished step %d", step)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
