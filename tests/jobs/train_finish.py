"""A small, real DDP training job (gloo, CPU) that ends badly on one rank, for tests.

Run it under torchrun::

    torchrun --standalone --nproc-per-node=4 tests/jobs/train_finish.py --steps 30 \
        --mode teardown_hang --odd-rank 3

Every rank logs one line per step to stderr, like tests/jobs/train_ddp.py::

    2026-11-30 12:00:01,123 INFO [rank2] step 7 | loss 1.0312 | step_ms 61.2

and, when its loop is over, ``Training finished: N steps`` before it destroys the process group
and exits. ``--mode``:

- ``none``: every rank finishes;
- ``teardown_hang``: the odd rank finishes its loop but then waits forever for a helper thread
  that never flushes (it never prints ``Training finished``); the others finish and exit;
- ``uneven_data``: each rank reads an IterableDataset of its own shards; the odd rank's has
  ``--short-steps`` batches, the others' ``--steps``: its loop ends early, it prints ``Training
  finished`` and leaves while the others start the next step's all-reduce.

This file is a test fixture, not part of the rankdoctor package.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import threading
import time
from collections.abc import Iterator
from datetime import timedelta

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, IterableDataset

IN_DIM, HIDDEN, BATCH = 16, 32, 8
log = logging.getLogger("train_finish")


class Shards(IterableDataset[tuple[torch.Tensor, torch.Tensor]]):
    """``n`` batches of this rank's shards."""

    def __init__(self, rank: int, n: int) -> None:
        self.rank, self.n = rank, n

    def __iter__(self) -> Iterator[tuple[torch.Tensor, torch.Tensor]]:
        gen = torch.Generator().manual_seed(1000 + self.rank)
        for _ in range(self.n):
            x = torch.randn(BATCH, IN_DIM, generator=gen)
            yield x, x.sum(dim=1, keepdim=True).sin()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=30)
    p.add_argument("--short-steps", type=int, default=20)
    p.add_argument("--step-sleep", type=float, default=0.05)
    p.add_argument("--pg-timeout", type=float, default=60.0)
    p.add_argument("--mode", choices=("none", "teardown_hang", "uneven_data"), default="none")
    p.add_argument("--odd-rank", type=int, default=3)
    args = p.parse_args()
    rank = int(os.environ["RANK"])
    logging.basicConfig(stream=sys.stderr, level=logging.INFO,
                        format=f"%(asctime)s %(levelname)s [rank{rank}] %(message)s")
    torch.set_num_threads(1)
    dist.init_process_group("gloo", timeout=timedelta(seconds=args.pg_timeout))
    log.info("started rank %d world_size %s pid %d", rank, os.environ["WORLD_SIZE"], os.getpid())
    torch.manual_seed(1234)
    model = DistributedDataParallel(nn.Sequential(nn.Linear(IN_DIM, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, 1)))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    n = args.short_steps if args.mode == "uneven_data" and rank == args.odd_rank else args.steps
    loader = DataLoader(Shards(rank, n), batch_size=None)
    step = 0
    t0 = time.perf_counter()
    for step, (x, y) in enumerate(loader, 1):
        loss = nn.functional.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()  # DDP's gradient all-reduce
        opt.step()
        log.info("step %d | loss %.4f | step_ms %.1f", step, loss.item(), (time.perf_counter() - t0) * 1e3)
        time.sleep(args.step_sleep)
        t0 = time.perf_counter()
    if args.mode == "teardown_hang" and rank == args.odd_rank:
        log.info("waiting for the metrics uploader thread to flush")
        flushed = threading.Event()  # nobody ever sets it: the teardown hangs here
        flushed.wait()
    log.info("Training finished: %d steps", step)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
