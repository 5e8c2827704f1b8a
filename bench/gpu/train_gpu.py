"""A small, real DDP training job on NCCL and one GPU, with real GPU faults, for the device checks
(``bench/gpu/h200_check.sh``). Run it under torchrun::

    torchrun --standalone --nproc-per-node=1 bench/gpu/train_gpu.py --steps 40 \
        --fault illegal --fault-step 12

Every rank logs one line per step (the format of ``tests/jobs/train_ddp.py``). Faults fire on
every rank at ``--fault-step``; each is a real one, nothing printed by hand:

- ``illegal``: a CuPy kernel on the rank's CUDA stream writes through a bad device pointer; the
  GPU's MMU faults (the driver logs Xid 31 and NVML raises its Xid event) and torch's next
  synchronisation raises ``CUDA error: an illegal memory access was encountered``;
- ``spin``: a CuPy kernel on the rank's stream spins for ``--spin-s`` seconds (bounded by the
  GPU's clock), so DDP's gradient all-reduce enqueued behind it never starts: NCCL's watchdog
  times the collective out after ``--pg-timeout`` seconds, dumps the Flight Recorder (when
  ``TORCH_NCCL_DUMP_ON_TIMEOUT`` and ``TORCH_FR_DUMP_TEMP_FILE`` are set) and aborts the process;
- ``oom``: one allocation larger than the GPU: torch's ``CUDA out of memory`` error;
- ``none``: a healthy run.

With ``--same-device`` every rank uses GPU 0 (NCCL refuses two ranks of one communicator on one
GPU: a real start-up error).

This file is a device-check fixture, not part of the rankdoctor package.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import time
from datetime import timedelta

import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.elastic.multiprocessing.errors import record
from torch.nn.parallel import DistributedDataParallel

log = logging.getLogger("train_gpu")

_ILLEGAL = r"""
extern "C" __global__ void poke(int *bad) {
    bad[threadIdx.x * 4096] = 1;
}
"""

_SPIN = r"""
extern "C" __global__ void spin(long long cycles, int *out) {
    long long start = clock64();
    while (clock64() - start < cycles) { }
    out[0] = 1;
}
"""


def _cupy_stream():
    import cupy  # the device image has CuPy; only the fault paths need it

    return cupy, cupy.cuda.ExternalStream(torch.cuda.current_stream().cuda_stream)


def fault_illegal() -> None:
    cupy, stream = _cupy_stream()
    kernel = cupy.RawKernel(_ILLEGAL, "poke")
    with stream:
        # an address in no allocation: the MMU faults (Xid 31)
        kernel((1,), (32,), (cupy.uint64(0x10),))
    log.info("illegal write launched at %.6f", time.time())
    torch.cuda.synchronize()


def fault_spin(seconds: float) -> None:
    cupy, stream = _cupy_stream()
    kernel = cupy.RawKernel(_SPIN, "spin")
    out = cupy.zeros(1, dtype=cupy.int32)
    rate_khz = cupy.cuda.runtime.getDeviceProperties(torch.cuda.current_device())["clockRate"]
    with stream:
        kernel((1,), (1,), (cupy.int64(int(seconds * rate_khz * 1000)), out))
    log.info("spin kernel launched at %.6f for %.0f s", time.time(), seconds)


def fault_oom() -> None:
    total = torch.cuda.get_device_properties(torch.cuda.current_device()).total_memory
    torch.empty(int(total * 1.5), dtype=torch.uint8, device="cuda")


@record
def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=40)
    ap.add_argument("--fault", choices=("none", "illegal", "spin", "oom"), default="none")
    ap.add_argument("--fault-step", type=int, default=12)
    ap.add_argument("--spin-s", type=float, default=60.0)
    ap.add_argument("--pg-timeout", type=float, default=20.0)
    ap.add_argument("--step-ms", type=float, default=50.0)
    ap.add_argument("--same-device", action="store_true")
    args = ap.parse_args()

    rank = int(os.environ.get("RANK", "0"))
    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                        format=f"%(asctime)s %(levelname)s [rank{rank}] %(message)s")
    device = 0 if args.same_device else local_rank
    torch.cuda.set_device(device)
    dist.init_process_group("nccl", timeout=timedelta(seconds=args.pg_timeout),
                            device_id=torch.device("cuda", device))
    world = dist.get_world_size()
    log.info("started: world %d, GPU %s (%s), torch %s, NCCL %s", world, device,
             torch.cuda.get_device_name(device), torch.__version__,
             ".".join(map(str, torch.cuda.nccl.version())))
    torch.manual_seed(1234 + rank)
    model = DistributedDataParallel(
        nn.Sequential(nn.Linear(1024, 4096), nn.GELU(), nn.Linear(4096, 1024)).cuda(), device_ids=[device])
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    for step in range(1, args.steps + 1):
        t0 = time.perf_counter()
        x = torch.randn(64, 1024, device="cuda")
        if args.fault != "none" and step == args.fault_step:
            log.info("fault %s at step %d", args.fault, step)
            if args.fault == "illegal":
                fault_illegal()
            elif args.fault == "spin":
                fault_spin(args.spin_s)
            elif args.fault == "oom":
                fault_oom()
        loss = model(x).pow(2).mean()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        # an explicit collective every step (DDP may skip its own at world size 1)
        mean = loss.detach().clone()
        dist.all_reduce(mean)
        value = mean.item()  # synchronises: a spinning kernel holds the rank here
        time.sleep(max(0.0, args.step_ms / 1000 - (time.perf_counter() - t0)))
        log.info("step %d | loss %.4f | step_ms %.1f", step, value, (time.perf_counter() - t0) * 1000)
    dist.barrier()
    log.info("training finished")
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
