"""Building blocks of a normal run: start-up lines, NCCL init, the step schedule and step lines."""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from .formats import ts_iso_z, ts_seconds
from .model import Proc
from .writer import Scenario, Stream


def startup(s: Stream, t: float, job: str, extra: Sequence[str] = ()) -> None:
    p = s.p
    s.py(t, "INFO", f"Starting {job} on {p.node.name}: world_size={p.world} rank={p.rank} local_rank={p.local}")
    s.py(t + 0.003, "INFO", f"torch {s.era.torch} | CUDA {s.era.cuda} | NCCL {s.era.nccl_short} | "
                           f"device cuda:{p.cuda_dev}")
    for i, line in enumerate(extra):
        s.py(t + 0.01 + 0.002 * i, "INFO", line)


@dataclass
class Comm:
    addr: dict[int, str]
    comm_id: str
    nnodes: int
    net: str = "IB"  # "IB" or "Socket"


def make_comm(sc: Scenario, procs: Sequence[Proc], net: str = "IB") -> Comm:
    addr = {p.rank: "0x" + ("55" + sc.hexs(10)) for p in procs}
    return Comm(addr, "0x" + sc.hexs(16), len({p.node.name for p in procs}), net)


def nccl_init(s: Stream, t: float, comm: Comm, *, brief: bool = False, no_ib_warn: bool = False) -> None:
    p, era = s.p, s.era
    iface = "ib0" if comm.net == "IB" else "eth0"
    s.nccl(t, f"Bootstrap : Using {iface}:{p.node.ip}<0>", tid=p.pid)
    if p.rank == 0:
        s.nccl(t, f"NCCL version {era.nccl}", tid=p.pid)
    ident = (f"comm {comm.addr[p.rank]} rank {p.rank} nranks {p.world} cudaDev {p.cuda_dev} nvmlDev {p.nvml_dev} "
             f"busId {p.busid} commId {comm.comm_id}")
    verb = {"comm": "", "initrank": "ncclCommInitRank ", "config": "ncclCommInitRankConfig "}[era.init]
    if brief:
        s.nccl(t + 0.6, f"Using network {comm.net}")
        s.nccl(t + 1.4, f"{verb}{ident} - Init COMPLETE")
        return
    s.nccl(t, "NET/Plugin: No plugin found (libnccl-net.so), using internal implementation", tid=p.pid)
    s.nccl(t, "cudaDriverVersion 12040", tid=p.pid)
    if comm.net == "IB":
        nics = " ".join(f"[{i}]mlx5_{i}:1/IB" for i in range(8))
        s.nccl(t + 0.2, f"NET/IB : Using {nics} ; OOB ib0:{p.node.ip}<0>")
    else:
        if no_ib_warn:
            s.nccl_warn(t + 0.2, "transport/net_ib.cc:315", "NET/IB : No device found.")
        else:
            s.nccl(t + 0.2, "NET/IB : No device found.")
        s.nccl(t + 0.2, f"NET/Socket : Using [0]eth0:{p.node.ip}<0>")
    s.nccl(t + 0.2, "Using non-device net plugin version 0")
    s.nccl(t + 0.2, f"Using network {comm.net}")
    s.nccl(t + 0.3, f"{verb}{ident} - Init START")
    s.nccl(t + 0.4, f"Setting affinity for GPU {p.nvml_dev} to ffffffff,00000000,ffffffff")
    local_ranks = p.world // comm.nnodes
    s.nccl(t + 0.5, f"comm {comm.addr[p.rank]} rank {p.rank} nRanks {p.world} nNodes {comm.nnodes} "
                    f"localRanks {local_ranks} localRank {p.local} MNNVL 0")
    nxt = p.rank + 1 if p.local + 1 < local_ranks else p.rank + 1 - local_ranks
    for ch in range(2):
        s.nccl(t + 0.6, f"Channel {ch:02d}/0 : {p.rank}[{p.cuda_dev}] -> {nxt}[{(p.cuda_dev + 1) % local_ranks}] "
                        f"via P2P/IPC")
    s.nccl(t + 0.9, "Connected all rings")
    s.nccl(t + 0.9, "Connected all trees")
    s.nccl(t + 1.0, "threadThresholds 8/8/64 | 128/8/64 | 512 | 512")
    s.nccl(t + 1.0, "32 coll channels, 32 collnet channels, 0 nvls channels, 32 p2p channels, 32 p2p channels per peer")
    s.nccl(t + 1.1, f"{verb}{ident} - Init COMPLETE")


@dataclass
class Schedule:
    """When each training step ends (true time), ``ends[k]`` for k in first..last."""

    ends: dict[int, float] = field(default_factory=dict)
    ms: dict[int, float] = field(default_factory=dict)

    def at(self, k: int) -> float:
        return self.ends[k]


def schedule(rng: random.Random, t0: float, first: int, last: int, ms: float, sd: float = 0.012,
             extra: Callable[[int], float] | None = None) -> Schedule:
    sch = Schedule()
    t = t0
    for k in range(first, last + 1):
        d = ms * (1.0 + rng.gauss(0.0, sd))
        sch.ms[k] = d
        t += d / 1000.0 + (extra(k) if extra else 0.0)
        sch.ends[k] = t
    return sch


def loss_at(rng: random.Random, k: int, floor: float = 1.85) -> float:
    return floor + 7.0 * math.exp(-k / 900.0) + rng.gauss(0.0, 0.015)


def lr_at(k: int, peak: float = 3e-4, warm: int = 500) -> float:
    return peak * min(1.0, k / warm) if k < warm else peak * (0.5 + 0.5 * math.cos(math.pi * min(1.0, k / 60_000)))


def step_line(s: Stream, fmt: str, t: float, k: int, total: int, ms: float, every: int = 1) -> None:
    """One progress line in a trainer's own format."""
    rng = s.sc.rng
    loss = loss_at(rng, k)
    lr = lr_at(k)
    gn = abs(rng.gauss(0.9, 0.12))
    if fmt == "plain":
        tps = int(1000.0 * 8 * 4096 / ms)
        s.py(t, "INFO", f"step {k} | loss {loss:.4f} | lr {lr:.3e} | grad_norm {gn:.3f} | step_time_ms {ms:.1f} "
                        f"| tok/s {tps:,}")
    elif fmt == "hydra":
        s.py(t, "INFO", f"step={k} loss={loss:.4f} lr={lr:.3e} step_time_ms={ms:.1f}")
    elif fmt == "megatron":
        gbs = 512
        s.raw(t, f" [{ts_seconds(s.wall(t))}] iteration {k:8d}/{total:8d} | consumed samples: {k * gbs:12d} | "
                 f"elapsed time per iteration (ms): {ms:.1f} | learning rate: {lr:.6E} | global batch size: {gbs:5d} | "
                 f"lm loss: {loss:.6E} | loss scale: 1.0 | grad norm: {gn:.3f} | number of skipped iterations:   0 | "
                 f"number of nan iterations:   0 |")
    elif fmt == "titan":
        mem = 61.2 + rng.gauss(0.0, 0.05)
        tps = int(3211 * 812.0 / ms)
        s.py(t, "INFO", f"step: {k:5d}  loss: {loss:7.4f}  memory: {mem:5.2f}GiB({mem / 79.11 * 100:.2f}%)  "
                        f"tps: {tps:,}  tflops: {412.3 * 812.0 / ms:.2f}  mfu: {41.69 * 812.0 / ms:.2f}%", "root")
    elif fmt == "hf":
        s.py(t, "INFO", f"step {k}/{total} | {ms / 1000.0:.2f} s/it", "progress.py:57")
        if s.p.rank == 0:
            s.raw(t, f"{{'loss': {loss:.4f}, 'grad_norm': {gn:.4f}, 'learning_rate': {lr / 10:.4e}, "
                     f"'epoch': {k / total * 3:.2f}}}")
    elif fmt == "stdout_iso":
        s.raw(t, f"[{ts_iso_z(s.wall(t))}] it {k}/{total} loss {loss:.4f} | {ms:.1f} ms/it | "
                 f"{8 * 4096 / ms:.1f}k tok/s")
    else:
        raise ValueError(fmt)


def train(s: Stream, fmt: str, sch: Schedule, first: int, last: int, every: int, total: int,
          jitter_ms: float = 12.0) -> None:
    """Progress lines for steps first..last (those divisible by ``every``)."""
    rng = s.sc.rng
    for k in range(first, last + 1):
        if k % every:
            continue
        mean = sum(sch.ms[j] for j in range(max(first, k - every + 1), k + 1)) / min(every, k - first + 1)
        step_line(s, fmt, sch.at(k) + rng.uniform(0.0, jitter_ms) / 1000.0, k, total, mean, every)


def std_run_start(sc: Scenario, streams: Sequence[Stream], comm: Comm, job: str, *, t0: float = 2.0,
                  extra: Sequence[str] = (), brief: bool = False, no_ib_warn: bool = False) -> float:
    """Start-up and NCCL init on every rank; returns when training starts."""
    for s in streams:
        startup(s, t0 + sc.rng.uniform(0.0, 0.4), job, extra)
        nccl_init(s, t0 + 6.0 + sc.rng.uniform(0.0, 0.2), comm, brief=brief, no_ib_warn=no_ib_warn)
        s.py(t0 + 9.0 + sc.rng.uniform(0.0, 0.2), "INFO", "process group ready; building model")
    return t0 + 40.0
