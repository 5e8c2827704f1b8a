"""Generate a large failed run for the replay benchmark: N ranks on N/8 nodes, a realistic mix of
step lines, NCCL INFO lines and warnings, and one failure near the end (an Xid 79 on one GPU,
then NCCL watchdog timeouts on every other rank).

    python bench/gen_run.py OUT_DIR [--ranks 128] [--gb 1.0] [--seed 1]

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


def _stamp(t: datetime) -> str:
    return t.strftime("%Y-%m-%d %H:%M:%S,") + f"{t.microsecond // 1000:03d}"


def _block(rank: int, node: str, local: int, step: int, t: datetime, rng: random.Random) -> list[str]:
    """One training step's worth of lines for one rank (about 1.4 KB)."""
    ms = 812.4 + rng.random() * 20
    out = [
        f"{_stamp(t)} INFO [rank{rank}] step {step} | loss {2.5 - step * 1e-5:.4f} | step_ms {ms:.1f} | fwd_ms {ms * 0.3:.1f} | bwd_ms {ms * 0.5:.1f} | data_ms 2.{rng.randint(0, 9)}",
        f"{node}:{4000 + local}:{4100 + local} [{local}] NCCL INFO Channel {step % 32:02d}/32 : {rank} -> {(rank + 1) % 128} via P2P/CUMEM/read",
        f"{node}:{4000 + local}:{4100 + local} [{local}] NCCL INFO Connected all rings, use ring PXN 0 GDR 1",
        f"{_stamp(t)} INFO [rank{rank}] throughput {3200 + rng.randint(0, 99)} tokens/s/gpu | lr 3.0e-04 | grad_norm {0.8 + rng.random():.3f}",
        f"{node}:{4000 + local}:{4100 + local} [{local}] NCCL INFO AllReduce: opCount {step:x} sendbuff 0x7f00 recvbuff 0x7f00 count 262144 datatype 7 op 0 root 0 comm 0x55d0 [nranks=128] stream 0x5600",
        f"{_stamp(t)} DEBUG [rank{rank}] dataloader prefetch queue depth {rng.randint(1, 8)} of 8, worker pids ok",
        f"{_stamp(t)} INFO [rank{rank}] memory allocated {61.2 + rng.random():.2f} GiB reserved 70.00 GiB peak 71.3 GiB",
    ]
    if step % 50 == 0:
        out.append(f"{_stamp(t)} WARNING [rank{rank}] UserWarning: torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly")
    if step % 200 == 0:
        out.append(f"{node}:{4000 + local}:{4100 + local} [{local}] NCCL INFO NET/IB : Got async event : GID table change")
    return out


def generate(out: Path, ranks: int = 128, gb: float = 1.0, seed: int = 1) -> Path:
    stamp = {"ranks": ranks, "gb": gb, "seed": seed, "version": 3}
    marker = out / "stamp.json"
    if marker.exists() and json.loads(marker.read_text()) == stamp:
        return out
    if out.exists():
        shutil.rmtree(out)
    rng = random.Random(seed)
    per_rank = int(gb * (1 << 30) / ranks)
    victim = ranks - 11  # a rank on the last-but-one node
    victim_node = f"node{victim // 8 + 1:02d}"
    victim_local = victim % 8
    end_step = 0
    for rank in range(ranks):
        node = f"node{rank // 8 + 1:02d}"
        local = rank % 8
        d = out / node
        d.mkdir(parents=True, exist_ok=True)
        path = d / f"rank_{rank}.log"
        size = 0
        step = 0
        t = BASE
        with path.open("w", encoding="utf-8") as fh:
            header = [
                f"{_stamp(t)} INFO [rank{rank}] starting rank {rank} local_rank {local} world_size {ranks}",
                f"{node}:{4000 + local}:{4100 + local} [{local}] NCCL INFO ncclCommInitRankConfig comm 0x55d0c8a0 rank {rank} nranks {ranks} cudaDev {local} nvmlDev {local} busId {GPU_BUS[local]}000 commId 0x4a3e2f - Init COMPLETE",
            ]
            fh.write("\n".join(header) + "\n")
            while size < per_rank:
                step += 1
                t = BASE + timedelta(milliseconds=820 * step)
                text = "\n".join(_block(rank, node, local, step, t, rng)) + "\n"
                fh.write(text)
                size += len(text)
            end_step = max(end_step, step)
            t_fail = BASE + timedelta(milliseconds=820 * (step + 1))
            if rank == victim:
                fh.write(f"{_stamp(t_fail)} INFO [rank{rank}] step {step + 1} | loss 2.1 | step_ms 820.0\n")
            else:
                tt = t_fail + timedelta(minutes=10)
                fh.write(
                    f"[rank{rank}]:[E{tt:%m%d %H:%M:%S}.123456 ProcessGroupNCCL.cpp:632] [Rank {rank}] Watchdog caught collective operation timeout: "
                    f"WorkNCCL(SeqNum={step * 3}, OpType=ALLREDUCE, NumelIn=262144, NumelOut=262144, Timeout(ms)=600000) ran for 600031 milliseconds before timing out.\n"
                )
    kernel = out / victim_node / "dmesg.log"
    t_xid = BASE + timedelta(milliseconds=820 * (end_step + 1))
    kernel.write_text(
        f"[{t_xid:%a %b %d %H:%M:%S %Y}] pcieport 0000:{GPU_BUS[victim_local]}:00.0: AER: Uncorrected (Fatal) error received: 0000:{GPU_BUS[victim_local]}:00.0\n"
        f"[{t_xid:%a %b %d %H:%M:%S %Y}] NVRM: Xid (PCI:0000:{GPU_BUS[victim_local]}:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n"
        f"[{t_xid:%a %b %d %H:%M:%S %Y}] NVRM: GPU 0000:{GPU_BUS[victim_local]}:00.0: GPU has fallen off the bus.\n"
    )
    (out / "truth.json").write_text(json.dumps({"rank": victim, "node": victim_node, "gpu": f"0000:{GPU_BUS[victim_local]}:00"}))
    marker.write_text(json.dumps(stamp))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", type=Path)
    parser.add_argument("--ranks", type=int, default=128)
    parser.add_argument("--gb", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    generate(args.out, args.ranks, args.gb, args.seed)
    total = sum(p.stat().st_size for p in args.out.rglob("*.log"))
    print(f"{args.out}: {total / (1 << 30):.2f} GiB")


if __name__ == "__main__":
    main()
