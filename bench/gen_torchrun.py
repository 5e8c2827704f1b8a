"""Generate a failed run in torchrun ``--log-dir`` layout for the replay benchmark (issue 12):
``nodeNN/<run_id>/attempt_0/<local_rank>/{stdout,stderr}.log`` for N ranks on N/8 nodes, about
``mb`` MB in all, almost every line a step line with rank-local timings, each line carrying
torchrun's ``[rankN]:`` prefix (``--tee`` / ``log_line_prefix_template``), the NCCL init lines
at the start, a warning now and then. The failure at the end: an Xid 79 on the GPU of one rank
(in its node's ``dmesg.log``; that rank's log just stops), then on every other rank a watchdog
timeout and the watchdog's teardown (a C++ stack without timestamps, all prefixed).

    python bench/gen_torchrun.py OUT_DIR [--ranks 128] [--mb 750] [--seed 1]

Deterministic for given arguments; rewrites OUT_DIR only when its stamp differs.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

BASE = datetime(2026, 11, 29, 8, 0, 0, tzinfo=UTC)
GPU_BUS = ["18", "2a", "3a", "5d", "9a", "ab", "ba", "db"]
RUN_ID = "none_7f3a2c1b"
STEP_MS = 820

TEARDOWN = [
    "[rank{r}]:[E{t} ProcessGroupNCCL.cpp:1595] [PG ID 0 PG GUID 0(default_pg) Rank {r}] Exception (either an error or timeout) detected by watchdog at work: {seq}, last enqueued NCCL work: {seq}, last completed NCCL work: {prev}.",
    "[rank{r}]:[E{t} ProcessGroupNCCL.cpp:1634] [PG ID 0 PG GUID 0(default_pg) Rank {r}] Timeout at NCCL work: {seq}, last enqueued NCCL work: {seq}, last completed NCCL work: {prev}.",
    "[rank{r}]:[E{t} ProcessGroupNCCL.cpp:630] [Rank {r}] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.",
    "[rank{r}]:[E{t} ProcessGroupNCCL.cpp:636] [Rank {r}] To avoid data inconsistency, we are taking the entire process down.",
    "[rank{r}]:terminate called after throwing an instance of 'c10::DistBackendError'",
    "[rank{r}]:  what():  [PG ID 0 PG GUID 0(default_pg) Rank {r}] Process group watchdog thread terminated with exception: [Rank {r}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum={seq}, OpType=ALLREDUCE, NumelIn=262144, NumelOut=262144, Timeout(ms)=600000) ran for 600031 milliseconds before timing out.",
    "[rank{r}]:Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:618 (most recent call first):",
] + [
    f"[rank{{r}}]:frame #{i}: c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >) + 0x{0x1d2 + i * 7:x} (0x7f4c{i:04x}b2c in /usr/local/lib/python3.11/site-packages/torch/lib/libtorch_cuda.so)"
    for i in range(12)
]


def _stamp(t: datetime) -> str:
    return t.strftime("%Y-%m-%d %H:%M:%S,") + f"{t.microsecond // 1000:03d}"


def _glog(t: datetime) -> str:
    return f"{t:%m%d %H:%M:%S}.{t.microsecond:06d}"


def _steps(rank: int, step: int, t: datetime, rng: random.Random) -> list[str]:
    p = f"[rank{rank}]:"
    ms = STEP_MS - 8 + rng.random() * 16
    out = [f"{p}{_stamp(t)} INFO step {step} | loss {2.5 - step * 1e-5:.4f} | step_ms {ms:.1f} | fwd_ms {ms * 0.3:.1f} | bwd_ms {ms * 0.5:.1f}"]
    if step % 40 == 0:
        out.append(f"{p}{_stamp(t)} INFO throughput {3200 + rng.randint(0, 99)} tokens/s/gpu | lr 3.0e-04 | grad_norm {0.8 + rng.random():.3f}")
    if step % 500 == 0:
        out.append(f"{p}{_stamp(t)} WARNING UserWarning: torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly")
    return out


def generate(out: Path, ranks: int = 128, mb: float = 750.0, seed: int = 1) -> Path:
    stamp = {"layout": "torchrun", "ranks": ranks, "mb": mb, "seed": seed, "version": 1}
    marker = out / "stamp.json"
    if marker.exists() and json.loads(marker.read_text()) == stamp:
        return out
    if out.exists():
        shutil.rmtree(out)
    rng = random.Random(seed)
    per_rank = int(mb * 1e6 / ranks)
    victim = ranks - 11 if ranks > 11 else ranks - 1
    victim_node = f"node{victim // 8 + 1:02d}"
    victim_local = victim % 8
    end_step = 0
    for rank in range(ranks):
        node = f"node{rank // 8 + 1:02d}"
        local = rank % 8
        d = out / node / RUN_ID / "attempt_0" / str(local)
        d.mkdir(parents=True, exist_ok=True)
        (d / "stdout.log").write_text("")
        p = f"[rank{rank}]:"
        nccl = f"{p}{node}:{4000 + local}:{4100 + local} [{local}] NCCL INFO"
        lines = [
            f"{p}{_stamp(BASE)} INFO starting rank {rank} local_rank {local} world_size {ranks}",
            f"{nccl} Bootstrap : Using eth0:10.0.{rank // 8}.{local + 10}<0>",
            f"{nccl} NET/IB : Using [0]mlx5_{local}:1/IB ; OOB eth0:10.0.{rank // 8}.{local + 10}<0>",
            f"{nccl} ncclCommInitRankConfig comm 0x55d0c8a0 rank {rank} nranks {ranks} cudaDev {local} nvmlDev {local} busId {GPU_BUS[local]}000 commId 0x4a3e2f - Init COMPLETE",
        ]
        lines += [f"{nccl} Channel {c:02d}/32 : {rank} -> {(rank + 1) % ranks} via P2P/CUMEM/read" for c in range(32)]
        size = sum(len(x) + 1 for x in lines)
        step = 0
        with (d / "stderr.log").open("w", encoding="utf-8") as fh:
            fh.write("\n".join(lines) + "\n")
            block: list[str] = []
            while size < per_rank:
                step += 1
                new = _steps(rank, step, BASE + timedelta(milliseconds=STEP_MS * step), rng)
                size += sum(len(x) + 1 for x in new)
                block.extend(new)
                if len(block) > 4096:
                    fh.write("\n".join(block) + "\n")
                    block = []
            if block:
                fh.write("\n".join(block) + "\n")
            end_step = max(end_step, step)
            if rank != victim:
                tt = BASE + timedelta(milliseconds=STEP_MS * (step + 1)) + timedelta(minutes=10)
                seq = step * 3
                fh.write(
                    f"{p}[E{_glog(tt)} ProcessGroupNCCL.cpp:632] [Rank {rank}] Watchdog caught collective operation timeout: "
                    f"WorkNCCL(SeqNum={seq}, OpType=ALLREDUCE, NumelIn=262144, NumelOut=262144, Timeout(ms)=600000) ran for 600031 milliseconds before timing out.\n"
                )
                fh.write("\n".join(x.format(r=rank, t=_glog(tt), seq=seq, prev=seq - 1) for x in TEARDOWN) + "\n")
    t_xid = BASE + timedelta(milliseconds=STEP_MS * (end_step + 1))
    bus = GPU_BUS[victim_local]
    (out / victim_node / "dmesg.log").write_text(
        f"[{t_xid:%a %b %d %H:%M:%S %Y}] pcieport 0000:{bus}:00.0: AER: Uncorrected (Fatal) error received: 0000:{bus}:00.0\n"
        f"[{t_xid:%a %b %d %H:%M:%S %Y}] NVRM: Xid (PCI:0000:{bus}:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n"
        f"[{t_xid:%a %b %d %H:%M:%S %Y}] NVRM: GPU 0000:{bus}:00.0: GPU has fallen off the bus.\n"
    )
    (out / "truth.json").write_text(json.dumps({"rank": victim, "node": victim_node, "gpu": f"0000:{bus}:00",
                                                "cause": "gpu_hardware"}))
    marker.write_text(json.dumps(stamp))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", type=Path)
    parser.add_argument("--ranks", type=int, default=128)
    parser.add_argument("--mb", type=float, default=750.0)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    generate(args.out, args.ranks, args.mb, args.seed)
    files = list(args.out.rglob("*.log"))
    total = sum(p.stat().st_size for p in files)
    print(f"{args.out}: {len(files)} files, {total / 1e6:.0f} MB")


if __name__ == "__main__":
    main()
