"""NCCL_DEBUG=INFO benchmark (issue 12): a run whose rank logs are mostly NCCL's INFO lines.

Workload (written here, deterministic): ``--ranks`` rank logs (default 256, 8 a node), each about
``--lines`` lines (default 2,000) of NCCL's initialisation under ``NCCL_DEBUG=INFO`` - several
communicators a rank, each with its ``Init START`` / ``comm ... nRanks`` / channel, ring and tree
lines / ``Init COMPLETE`` - untimed, as NCCL prints them; then rank 37's InfiniBand completion error
and every rank's aborted communicator (a network failure of rank 37's node). Measured in the same
run, page cache warm, each the median of ``--repeat`` runs:

(a) GNU ``grep -c -E -f`` with bench_replay's dozen error patterns (and NCCL WARN) over the files;
(b) the whole ``rankdoctor replay RUN --format json``, a new process of a plain install
    (bench/plain.py), rule cache warm.

Writes bench/out/nccl_info.json and prints a Markdown table with the ratio.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.bench_replay import PATTERNS, grep_lines, replay_cost, timed, verdict  # noqa: E402
from bench.plain import plain_python  # noqa: E402

BUS_IDS = ("18", "2a", "3a", "5d", "9a", "ab", "ba", "db")
FAILING = 37  # the rank whose InfiniBand completion fails (the last rank of a smaller run)


def failing_rank(ranks: int) -> int:
    return min(FAILING, ranks - 1)


def rank_log(rank: int, lines: int, ranks: int) -> str:
    node, local = divmod(rank, 8)
    host, pid = f"gpu-node{node:03d}", 40000 + rank
    out = [f"{host}:{pid}:{pid} [{local}] NCCL INFO Bootstrap : Using eth0:10.0.{node}.{local}<0>",
           f"{host}:{pid}:{pid} [{local}] NCCL INFO NET/Plugin: Loaded net plugin NCCL RDMA Plugin v7 (v7)",
           f"{host}:{pid}:{pid} [{local}] NCCL INFO cudaDriverVersion 12040",
           "NCCL version 2.21.5+cuda12.4"]
    comm = 0
    while len(out) < lines:
        h = f"{host}:{pid}:{pid + 100 + comm} [{local}]"
        cid = f"0x55d{rank:04x}{comm:02x}c0"
        out += [f"{h} NCCL INFO Using network IB",
                f"{h} NCCL INFO comm {cid} rank {rank} nranks {ranks} cudaDev {local} nvmlDev {local} "
                f"busId {BUS_IDS[local]}000 commId 0x{comm:x}abc - Init START",
                f"{h} NCCL INFO Setting affinity for GPU {local} to ffff,ffffffff",
                f"{h} NCCL INFO comm {cid} rank {rank} nRanks {ranks} nNodes {ranks // 8} localRanks 8 localRank {local} MNNVL 0"]
        out += [f"{h} NCCL INFO Channel {ch:02d}/32 :    0   1   2   3   4   5   6   7" for ch in range(32)]
        out += [f"{h} NCCL INFO Trees [0] {rank + 1}/-1/-1->{rank}->{rank - 1} [1] {rank + 1}/-1/-1->{rank}->{rank - 1}",
                f"{h} NCCL INFO P2P Chunksize set to 524288"]
        for ch in range(32):
            out += [f"{h} NCCL INFO Channel {ch:02d}/0 : {rank}[{local}] -> {(rank + 1) % ranks}[{(local + 1) % 8}] via P2P/IPC/read",
                    f"{h} NCCL INFO Channel {ch:02d}/0 : {rank}[{local}] -> {(rank + 8) % ranks}[{local}] [send] via NET/IB/{local}/GDRDMA"]
        out += [f"{h} NCCL INFO Connected all rings", f"{h} NCCL INFO Connected all trees",
                f"{h} NCCL INFO threadThresholds 8/8/64 | 2048/8/64 | 512 | 512",
                f"{h} NCCL INFO ncclCommInitRank comm {cid} rank {rank} nranks {ranks} cudaDev {local} nvmlDev {local} "
                f"busId {BUS_IDS[local]}000 commId 0x{comm:x}abc - Init COMPLETE"]
        comm += 1
    if rank == failing_rank(ranks):
        out.append(f"{host}:{pid}:{pid + 99} [{local}] transport/net_ib.cc:1295 NCCL WARN NET/IB : Got completion from peer "
                   f"10.0.{node + 1}.{local}<58046> with status=12 opcode=128 len=0 vendor err 129 (Send) localGid ::ffff:10.0.{node}.{local}")
    out += ["Traceback (most recent call last):", '  File "train.py", line 88, in <module>',
            f"torch.distributed.DistBackendError: NCCL communicator was aborted on rank {rank}."]
    return "\n".join(out) + "\n"


def generate(run: Path, ranks: int, lines: int) -> list[Path]:
    if run.exists():
        shutil.rmtree(run)
    run.mkdir(parents=True)
    files = []
    for rank in range(ranks):
        path = run / f"rank_{rank}.log"
        path.write_text(rank_log(rank, lines, ranks))
        files.append(path)
    return files


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ranks", type=int, default=256)
    parser.add_argument("--lines", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--data", type=Path, default=ROOT / "bench" / "data")
    args = parser.parse_args()
    run = args.data / f"nccl_info_{args.ranks}r"
    files = generate(run, args.ranks, args.lines)
    size = sum(p.stat().st_size for p in files)
    patterns = args.data / "nccl_info_patterns.txt"
    patterns.write_text("\n".join([*PATTERNS, "NCCL WARN"]) + "\n")
    grep_s, grep_n = timed(lambda: grep_lines(files, patterns), args.repeat)
    python = plain_python()
    env = {**os.environ, "RANKDOCTOR_NO_PROGRESS": "1"}
    replay_cost(python, run, env)  # (the rule cache warm, the files in the page cache)
    walls, peaks, report = [], [], {}
    for _ in range(args.repeat):
        wall, peak, report = replay_cost(python, run, env)
        walls.append(wall)
        peaks.append(peak)
    walls.sort()
    replay_s = walls[len(walls) // 2]
    said = verdict(report)
    print(f"Workload: {args.ranks} rank logs, {sum(1 for p in files for _ in p.open('rb')):,} lines, {size / 1e6:.0f} MB "
          f"(NCCL INFO lines; rank {failing_rank(args.ranks)}'s IB completion error at the end)\n")
    print(f"| measure | time (median of {args.repeat}) | ratio to grep |")
    print("|---|---|---|")
    print(f"| grep -c -E -f (13 patterns): {grep_n:,} lines | {grep_s:.3f} s | 1.0x |")
    print(f"| rankdoctor replay --format json (plain install) | {replay_s:.2f} s | {replay_s / grep_s:.0f}x |")
    print(f"\nverdict: {said}; peak RSS {max(peaks):.0f} MiB")
    out = ROOT / "bench" / "out"
    out.mkdir(parents=True, exist_ok=True)
    (out / "nccl_info.json").write_text(json.dumps({
        "ranks": args.ranks, "bytes": size, "grep_s": grep_s, "replay_s": replay_s, "verdict": said,
        "peak_rss_mib": max(peaks), "measured_at": time.strftime("%Y-%m-%d %H:%M:%S")}, indent=1))


if __name__ == "__main__":
    main()
