#!/usr/bin/env python3
"""Write the synthetic failed-run scenarios under ``replay_logs/``.

Each scenario is a folder with the log files of one run (rank logs, launcher console, kernel
log, metrics) and an ``expected.json`` whose format is in docs/architecture.md. The ground truth
in ``expected.json`` is what this script injected; the cause of each incident follows the cause
policy table of docs/architecture.md.

Deterministic: each scenario draws from its own ``random.Random`` seeded with a CRC of its
name, and every time is an offset from a fixed base time, so a re-run writes identical bytes.
The script deletes and rewrites only the folders named in ``SCENARIOS``; the ``torchrun_*``
folders belong to scripts/gen_torchrun_scenarios.py.

Usage::

    python scripts/make_scenarios.py [--out replay_logs] [--only NAME ...] [--quiet]
"""

from __future__ import annotations

import argparse
import json
import math
import random
import re
import shutil
import sys
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
MAX_SCENARIO_BYTES = 1_500_000
MAX_TOTAL_BYTES = 12_000_000

# GPU PCI addresses by NVML index for a few real board layouts.
DGX_H100 = ("0000:18:00.0", "0000:2a:00.0", "0000:3a:00.0", "0000:5d:00.0",
            "0000:9a:00.0", "0000:ab:00.0", "0000:ba:00.0", "0000:db:00.0")
HGX_B = ("0000:19:00.0", "0000:3b:00.0", "0000:4c:00.0", "0000:5d:00.0",
         "0000:9b:00.0", "0000:bb:00.0", "0000:cb:00.0", "0000:db:00.0")
DGX_A100 = ("0000:07:00.0", "0000:0f:00.0", "0000:47:00.0", "0000:4e:00.0",
            "0000:87:00.0", "0000:90:00.0", "0000:b7:00.0", "0000:bd:00.0")
WS_4GPU = ("0000:01:00.0", "0000:41:00.0", "0000:81:00.0", "0000:c1:00.0")
WS_4GPU_B = ("0000:17:00.0", "0000:65:00.0", "0000:ca:00.0", "0000:e3:00.0")


# --------------------------------------------------------------------------------------------
# timestamp forms
# --------------------------------------------------------------------------------------------

def ts_pylog(dt: datetime) -> str:
    """Python logging asctime: ``2026-11-29 12:00:01,123``."""
    return dt.strftime("%Y-%m-%d %H:%M:%S") + f",{dt.microsecond // 1000:03d}"


def ts_glog(level: str, dt: datetime, *, nanos: bool = False) -> str:
    """glog / c10 prefix: ``E1129 12:00:01.123456`` (nine fraction digits with ``nanos``)."""
    frac = f"{dt.microsecond:06d}"
    if nanos:
        frac += f"{(dt.microsecond * 7919 + dt.second * 31) % 1000:03d}"
    return f"{level}{dt:%m%d %H:%M:%S}.{frac}"


def ts_iso_z(dt: datetime) -> str:
    return dt.strftime("%Y-%m-%dT%H:%M:%S") + f".{dt.microsecond // 1000:03d}Z"


def ts_syslog(dt: datetime) -> str:
    return f"{dt:%b} {dt.day:2d} {dt:%H:%M:%S}"


def ts_ctime(dt: datetime) -> str:
    return f"{dt:%a %b} {dt.day:2d} {dt:%H:%M:%S %Y}"


def ts_journal(dt: datetime) -> str:
    return dt.strftime("%Y-%m-%dT%H:%M:%S") + "+0000"


def ts_seconds(dt: datetime) -> str:
    return dt.strftime("%Y-%m-%d %H:%M:%S")


def ts_summary(dt: datetime) -> str:
    """torchelastic's failure-summary time: ``2026-11-29_12:00:01``."""
    return dt.strftime("%Y-%m-%d_%H:%M:%S")


def nccl_busid(pci: str) -> str:
    """NCCL prints a bus id as the hex digits of ``dddd:bb:dd.f`` with leading zeros dropped."""
    return f"{int(pci.replace(':', '').replace('.', ''), 16):x}"


def pci_short(pci: str) -> str:
    """``0000:3b:00.0`` -> ``0000:3b:00`` (the kernel's and expected.json's form)."""
    return pci.rsplit(".", 1)[0]


def dcgm_pci(pci: str) -> str:
    """``0000:3b:00.0`` -> ``00000000:3B:00.0`` (DCGM / NVML form)."""
    return "0000" + pci.upper()


# --------------------------------------------------------------------------------------------
# the model of a job
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Node:
    name: str
    index: int
    pci: tuple[str, ...]
    ip: str
    skew: float = 0.0  # this node's wall clock minus true time, seconds
    uptime0: float = 250_000.0  # seconds since boot at scenario time 0


@dataclass(frozen=True)
class Proc:
    """One rank's process (in one attempt)."""

    rank: int
    local: int
    node: Node
    pid: int
    cuda_dev: int
    nvml_dev: int
    world: int

    @property
    def pci(self) -> str:
        return self.node.pci[self.nvml_dev]

    @property
    def busid(self) -> str:
        return nccl_busid(self.pci)


@dataclass(frozen=True)
class Era:
    """What one PyTorch/NCCL release prints."""

    torch: str
    nccl: str
    cuda: str
    site: str  # site-packages directory
    python: str  # interpreter path
    c10d_stamp: bool  # c10d log lines carry a glog time stamp
    rank_prefix: bool  # c10d lines and tracebacks carry ``[rankN]:``
    pg: str  # format of the process-group log prefix
    watchdog: str  # "2.1", "2.3", "2.4", "2.6": wording of the timeout summary lines
    agent: str  # "bracket" (torch 2.1-2.3) or "glog" (2.4+)
    init: str  # "comm", "initrank", "config": wording of NCCL's Init COMPLETE line

    def pgp(self, rank: int) -> str:
        return self.pg.format(r=rank)

    @property
    def nccl_short(self) -> str:
        return self.nccl.split("+")[0]


E21 = Era("2.1.2", "2.18.6+cuda12.1", "12.1", "/opt/conda/lib/python3.10/site-packages", "/opt/conda/bin/python",
          False, False, "[Rank {r}]", "2.1", "bracket", "comm")
E22 = Era("2.2.2", "2.19.3+cuda12.1", "12.1", "/usr/local/lib/python3.10/dist-packages", "/usr/bin/python3",
          False, True, "[Rank {r}]", "2.3", "bracket", "initrank")
E23 = Era("2.3.1", "2.20.5+cuda12.4", "12.4", "/opt/conda/lib/python3.10/site-packages", "/opt/conda/bin/python",
          False, True, "[PG 0 Rank {r}]", "2.3", "bracket", "initrank")
E24 = Era("2.4.1", "2.20.5+cuda12.4", "12.4", "/usr/local/lib/python3.10/dist-packages", "/usr/bin/python3",
          True, True, "[PG 0 (default_pg) Rank {r}]", "2.4", "glog", "initrank")
E25 = Era("2.5.1", "2.21.5+cuda12.4", "12.4", "/usr/local/lib/python3.11/site-packages", "/usr/local/bin/python3.11",
          True, True, "[PG ID 0 PG GUID 0(default_pg) Rank {r}]", "2.4", "glog", "initrank")
E26 = Era("2.6.0", "2.21.5+cuda12.6", "12.6", "/opt/venv/lib/python3.12/site-packages", "/opt/venv/bin/python",
          True, True, "[PG ID 0 PG GUID 0(default_pg) Rank {r}]", "2.6", "glog", "initrank")
E27 = Era("2.7.1", "2.26.2+cuda12.8", "12.8", "/usr/local/lib/python3.12/dist-packages", "/usr/bin/python3",
          True, True, "[PG ID 0 PG GUID 0(default_pg) Rank {r}]", "2.6", "glog", "config")
# torch 2.4 run against a pinned older NCCL (nvidia-nccl-cu12==2.19.3): old NET/IB wording
E24_NCCL219 = Era("2.4.1", "2.19.3+cuda12.4", "12.4", "/usr/local/lib/python3.10/dist-packages", "/usr/bin/python3",
                  True, True, "[PG 0 (default_pg) Rank {r}]", "2.4", "glog", "initrank")


class Out:
    """Every line of every file of a scenario, kept with a sort key (true time, insertion order)
    so that several writers can share a file (a combined console log) and still come out in
    time order, while a multi-line block written at one time stays together."""

    def __init__(self) -> None:
        self.files: dict[str, list[tuple[float, int, str]]] = {}
        self.blobs: dict[str, str] = {}
        self._n = 0

    def add(self, path: str, t: float, lines: Sequence[str]) -> None:
        items = self.files.setdefault(path, [])
        for line in lines:
            items.append((t, self._n, line))
            self._n += 1

    def blob(self, path: str, text: str) -> None:
        self.blobs[path] = text

    def write(self, root: Path) -> list[Path]:
        written: list[Path] = []
        for rel, items in sorted(self.files.items()):
            items.sort(key=lambda x: (x[0], x[1]))
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("".join(line + "\n" for _, _, line in items), encoding="utf-8")
            written.append(path)
        for rel, text in sorted(self.blobs.items()):
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            written.append(path)
        return written


class Sc:
    """A scenario under construction."""

    def __init__(self, name: str, base: datetime) -> None:
        self.name = name
        self.base = base
        self.rng = random.Random(zlib.crc32(name.encode()))
        self.out = Out()

    def wall(self, node: Node, t: float) -> datetime:
        return self.base + timedelta(seconds=t + node.skew)

    def hexs(self, n: int) -> str:
        return "".join(self.rng.choice("0123456789abcdef") for _ in range(n))

    def uuid(self) -> str:
        return f"GPU-{self.hexs(8)}-{self.hexs(4)}-{self.hexs(4)}-{self.hexs(4)}-{self.hexs(12)}"

    def nodes(self, names: Sequence[str], layout: Sequence[str], ips: Sequence[str] | None = None,
              skews: Sequence[float] | None = None) -> list[Node]:
        out = []
        for i, name in enumerate(names):
            out.append(Node(name, i, tuple(layout), ips[i] if ips else f"10.0.{i // 200}.{11 + i % 200}",
                            skews[i] if skews else 0.0, float(self.rng.randint(40_000, 2_400_000))))
        return out

    def procs(self, nodes: Sequence[Node], per_node: int, nvml_offset: int = 0,
              pin: dict[int, int] | None = None) -> list[Proc]:
        """Ranks node by node; a launcher starts its workers one after another, so pids nearly
        follow each other. ``pin`` fixes the pid of some ranks (the rest of their node follows)."""
        world = len(nodes) * per_node
        procs = []
        for node in nodes:
            steps = [0]
            for _ in range(per_node - 1):
                steps.append(steps[-1] + self.rng.randint(1, 3))
            base = self.rng.randint(12_000, 3_900_000)
            for rank, pid in (pin or {}).items():
                if rank // per_node == node.index:
                    base = pid - steps[rank % per_node]
            for local in range(per_node):
                procs.append(Proc(node.index * per_node + local, local, node, base + steps[local], local,
                                  local + nvml_offset, world))
        return procs

    def respawn(self, procs: Sequence[Proc]) -> list[Proc]:
        """The same ranks in a new attempt: new pids."""
        out = []
        by_node: dict[str, int] = {}
        for p in procs:
            pid = by_node.get(p.node.name) or self.rng.randint(12_000, 3_900_000)
            out.append(Proc(p.rank, p.local, p.node, pid, p.cuda_dev, p.nvml_dev, p.world))
            by_node[p.node.name] = pid + self.rng.randint(1, 3)
        return out


PyFormat = Callable[[str, str, str, str], str]  # (asctime, level, logger, message)

PY_STYLES: dict[str, PyFormat] = {
    "std": lambda ts, lv, lg, m: f"{ts} - {lv} - {lg} - {m}",
    "bracket": lambda ts, lv, lg, m: f"[{ts}] [{lv}] [{lg}] {m}",
    "hydra": lambda ts, lv, lg, m: f"[{ts}][{lg}][{lv}] - {m}",
    "hf": lambda ts, lv, lg, m: f"[{lv}|{lg}] {ts} >> {m}",
    "titan": lambda ts, lv, lg, m: f"[titan] {ts} - {lg} - {lv} - {m}",
    "plain": lambda ts, lv, lg, m: f"{ts} {lv} {m}",
}


class Stream:
    """The output of one rank's process into one file (``outer`` is a launcher's line prefix in a
    combined console log: ``[default2]:`` or an srun label)."""

    def __init__(self, sc: Sc, path: str, proc: Proc, era: Era, *, outer: str = "", py: str = "std",
                 logger: str = "train") -> None:
        self.sc = sc
        self.path = path
        self.p = proc
        self.era = era
        self.outer = outer
        self.pyfmt = PY_STYLES[py]
        self.logger = logger
        self.tid = proc.pid + sc.rng.randint(40, 400)
        self.proxy_tid = self.tid + sc.rng.randint(2, 30)

    def wall(self, t: float) -> datetime:
        return self.sc.wall(self.p.node, t)

    def raw(self, t: float, *lines: str) -> None:
        self.sc.out.add(self.path, t, [self.outer + line for line in lines])

    def py(self, t: float, level: str, msg: str, logger: str | None = None) -> None:
        self.raw(t, self.pyfmt(ts_pylog(self.wall(t)), level, logger or self.logger, msg))

    def nccl(self, t: float, msg: str, *, tid: int | None = None) -> None:
        p = self.p
        self.raw(t, f"{p.node.name}:{p.pid}:{tid or self.tid} [{p.cuda_dev}] NCCL INFO {msg}")

    def nccl_warn(self, t: float, src: str, msg: str, *, tid: int | None = None) -> None:
        p = self.p
        self.raw(t, "", f"{p.node.name}:{p.pid}:{tid or self.tid} [{p.cuda_dev}] {src} NCCL WARN {msg}")

    def c10d(self, t: float, level: str, loc: str, msg: str, *more: str) -> None:
        """A c10d (C++) log message; continuation lines carry no prefix of their own."""
        pre = f"[rank{self.p.rank}]:" if self.era.rank_prefix else ""
        if self.era.c10d_stamp:
            head = f"{pre}[{ts_glog(level, self.wall(t), nanos=True)} {loc}] {msg}"
        else:
            head = f"{pre}[{level} {loc}] {msg}"
        self.raw(t, head, *more)

    def tb(self, t: float, lines: Sequence[str]) -> None:
        """Lines of an uncaught exception (torch's excepthook prefixes each with ``[rankN]: ``)."""
        pre = f"[rank{self.p.rank}]: " if self.era.rank_prefix else ""
        self.raw(t, *[pre + line for line in lines])


# --------------------------------------------------------------------------------------------
# building blocks: start-up, NCCL init, training steps
# --------------------------------------------------------------------------------------------

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


def make_comm(sc: Sc, procs: Sequence[Proc], net: str = "IB") -> Comm:
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


# --------------------------------------------------------------------------------------------
# failure blocks
# --------------------------------------------------------------------------------------------

def cpp_frames(s: Stream, origin: str) -> list[str]:
    lib = s.era.site + "/torch/lib"
    base = s.sc.rng.randint(0x7F0000000000, 0x7FFF00000000) & ~0xFFF
    if origin == "checkTimeout":
        fns = [
            ("c10::Error::Error(c10::SourceLocation, std::string) + 0x96", "libc10.so"),
            ("c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, "
             "std::ratio<1l, 1000l> > >) + 0x1d2", "libtorch_cuda.so"),
            ("c10d::ProcessGroupNCCL::watchdogHandler() + 0x233", "libtorch_cuda.so"),
            ("c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d", "libtorch_cuda.so"),
        ]
    elif origin == "checkForNCCLErrorsInternal":
        fns = [
            ("c10::Error::Error(c10::SourceLocation, std::string) + 0x96", "libc10.so"),
            ("c10d::ProcessGroupNCCL::checkForNCCLErrorsInternal(std::shared_ptr<c10d::NCCLComm>&) + 0x220",
             "libtorch_cuda.so"),
            ("c10d::ProcessGroupNCCL::WorkNCCL::checkAndSetException() + 0x7c", "libtorch_cuda.so"),
            ("c10d::ProcessGroupNCCL::watchdogHandler() + 0x213", "libtorch_cuda.so"),
            ("c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d", "libtorch_cuda.so"),
        ]
    else:  # c10_cuda_check_implementation
        fns = [
            ("c10::Error::Error(c10::SourceLocation, std::string) + 0x96", "libc10.so"),
            ("c10::detail::torchCheckFail(char const*, char const*, unsigned int, std::string const&) + 0x64",
             "libc10.so"),
            ("c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, int, bool) + 0x118",
             "libc10_cuda.so"),
            ("c10d::ProcessGroupNCCL::WorkNCCL::finishedGPUExecutionInternal() const + 0x56", "libtorch_cuda.so"),
            ("c10d::ProcessGroupNCCL::WorkNCCL::isCompleted() + 0xa0", "libtorch_cuda.so"),
            ("c10d::ProcessGroupNCCL::watchdogHandler() + 0x1f8", "libtorch_cuda.so"),
            ("c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d", "libtorch_cuda.so"),
        ]
    lines = []
    for i, (fn, so) in enumerate(fns):
        lines.append(f"frame #{i}: {fn} (0x{base + 0x1000 * (i + 3) + 0x2a6:x} in {lib}/{so})")
    n = len(fns)
    lines.append(f"frame #{n}: <unknown function> + 0x145c0 (0x{base + 0x9a5c0:x} in {lib}/libtorch.so)")
    lines.append(f"frame #{n + 1}: <unknown function> + 0x94ac3 (0x{base + 0x3294ac3:x} in /lib/x86_64-linux-gnu/libc.so.6)")
    lines.append(f"frame #{n + 2}: <unknown function> + 0x126850 (0x{base + 0x3326850:x} in "
                 "/lib/x86_64-linux-gnu/libc.so.6)")
    return lines


def watchdog_timeout(s: Stream, t: float, seq: int, enq: int, done: int, *, numel: int = 262_144_000,
                     op: str = "ALLREDUCE", ran_ms: int = 600_043, dump: str | None = "local") -> None:
    """A ProcessGroupNCCL watchdog timeout on this rank at time ``t``, up to the abort."""
    r, era = s.p.rank, s.era
    pg = era.pgp(r)
    work = (f"WorkNCCL(SeqNum={seq}, OpType={op}, NumelIn={numel}, NumelOut={numel}, Timeout(ms)=600000) "
            f"ran for {ran_ms} milliseconds before timing out.")
    caught = f"[Rank {r}] Watchdog caught collective operation timeout: {work}"
    if era.watchdog == "2.1":
        s.c10d(t, "E", "ProcessGroupNCCL.cpp:475", caught)
        s.c10d(t, "E", "ProcessGroupNCCL.cpp:489", "Some NCCL operations have failed or timed out. Due to the "
               "asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.")
        s.c10d(t, "E", "ProcessGroupNCCL.cpp:495", "To avoid data inconsistency, we are taking the entire process down.")
        term = f"[Rank {r}] NCCL watchdog thread terminated with exception: {caught}"
        s.c10d(t + 0.004, "E", "ProcessGroupNCCL.cpp:929", term)
        s.raw(t + 0.005, "terminate called after throwing an instance of 'std::runtime_error'", f"  what():  {term}")
        return
    if era.watchdog == "2.3":
        s.c10d(t, "E", "ProcessGroupNCCL.cpp:563", caught)
        s.c10d(t, "E", "ProcessGroupNCCL.cpp:1537", f"{pg} Timeout at NCCL work: {seq}, last enqueued NCCL work: {enq}, "
               f"last completed NCCL work: {done}.")
        s.c10d(t, "E", "ProcessGroupNCCL.cpp:577", f"[Rank {r}] Some NCCL operations have failed or timed out. Due to the "
               "asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.")
        s.c10d(t, "E", "ProcessGroupNCCL.cpp:583", f"[Rank {r}] To avoid data inconsistency, we are taking the entire "
               "process down.")
        term = f"{pg} NCCL watchdog thread terminated with exception: {caught}"
        frames = cpp_frames(s, "checkTimeout")
        s.c10d(t + 0.004, "E", "ProcessGroupNCCL.cpp:1414", term,
               "Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:565 "
               "(most recent call first):", *frames)
        s.raw(t + 0.005, "terminate called after throwing an instance of 'c10::DistBackendError'", f"  what():  {term}")
        return
    s.c10d(t, "E", "ProcessGroupNCCL.cpp:616", caught)
    if era.watchdog == "2.4":
        s.c10d(t, "E", "ProcessGroupNCCL.cpp:1785", f"{pg} Exception (either an error or timeout) detected by watchdog "
               f"at work: {seq}, last enqueued NCCL work: {enq}, last completed NCCL work: {done}.")
        s.c10d(t, "E", "ProcessGroupNCCL.cpp:1834", f"{pg} Timeout at NCCL work: {seq}, last enqueued NCCL work: {enq}, "
               f"last completed NCCL work: {done}.")
    else:
        s.c10d(t, "E", "ProcessGroupNCCL.cpp:1946", f"{pg} failure detected by watchdog at work sequence id: {seq} "
               f"PG status: last enqueued work: {enq}, last completed work: {done}")
    s.c10d(t, "E", "ProcessGroupNCCL.cpp:630", f"[Rank {r}] Some NCCL operations have failed or timed out. Due to the "
           "asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.")
    s.c10d(t, "E", "ProcessGroupNCCL.cpp:636", f"[Rank {r}] To avoid data inconsistency, we are taking the entire "
           "process down.")
    if era.watchdog == "2.4" and era.torch.startswith("2.5"):
        s.c10d(t, "E", "ProcessGroupNCCL.cpp:1575", f"{pg} Stack trace of the failed collective not found, potentially "
               "because FlightRecorder is disabled. You can enable it by setting TORCH_NCCL_TRACE_BUFFER_SIZE to a "
               "non-zero value.")
    if era.watchdog == "2.6" and dump == "local":
        s.c10d(t + 0.001, "E", "ProcessGroupNCCL.cpp:1663", f"{pg} Received a dump signal due to a collective timeout "
               f"from this local rank and we will try our best to dump the debug info. Last enqueued NCCL work: {enq}, "
               f"last completed NCCL work: {done}.")
        s.c10d(t + 0.002, "E", "ProcessGroupNCCL.cpp:1382", f"{pg} ProcessGroupNCCL preparing to dump debug info. "
               "Include stack trace: 1")
        s.c10d(t + 0.9, "I", "NCCLUtils.cpp:352", f"Finished writing NCCLPG debug info to /tmp/nccl_trace_rank_{r}")
    term = f"{pg} Process group watchdog thread terminated with exception: {caught}"
    frames = cpp_frames(s, "checkTimeout")
    te = t + (0.95 if era.watchdog == "2.6" and dump else 0.004)
    s.c10d(te, "E", "ProcessGroupNCCL.cpp:1595", term,
           "Exception raised from checkTimeout at /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:618 "
           "(most recent call first):", *frames, "")
    s.raw(te + 0.001, "terminate called after throwing an instance of 'c10::DistBackendError'", f"  what():  {term}",
          "Exception raised from checkTimeout at /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:618 "
          "(most recent call first):", *frames, "")


def remote_error(s: Stream, t: float, last_error: Sequence[str] = ()) -> None:
    """The watchdog surfaces ncclRemoteError (a peer exited or the network failed) and aborts."""
    r, era = s.p.rank, s.era
    pg = era.pgp(r)
    err = f"NCCL error: remote process exited or there was a network error, NCCL version {era.nccl_short}"
    detail = ["ncclRemoteError: A call failed possibly due to a network error or a remote process exiting "
              "prematurely.", "Last error:", *last_error]
    frames = cpp_frames(s, "checkForNCCLErrorsInternal")
    origin = ("Exception raised from checkForNCCLErrorsInternal at /pytorch/torch/csrc/distributed/c10d/"
              "ProcessGroupNCCL.cpp:2027 (most recent call first):")
    if era.watchdog in ("2.1",):
        term = f"[Rank {r}] NCCL watchdog thread terminated with exception: {err}"
        s.c10d(t, "E", "ProcessGroupNCCL.cpp:916", term, *detail)
        s.raw(t + 0.002, "terminate called after throwing an instance of 'std::runtime_error'", f"  what():  {term}",
              *detail)
        return
    word = "NCCL" if era.watchdog == "2.3" else "Process group"
    term = f"{pg} {word} watchdog thread terminated with exception: {err}"
    s.c10d(t, "E", "ProcessGroupNCCL.cpp:1895", term, *detail, origin, *frames, "")
    s.raw(t + 0.002, "terminate called after throwing an instance of 'c10::DistBackendError'", f"  what():  {term}",
          *detail, origin, *frames, "")


def conn_closed(s: Stream, t: float, dead_local: int) -> None:
    """NCCL's proxy service thread saw a local peer's process go away."""
    s.nccl(t, f"[Service thread] Connection closed by localRank {dead_local}", tid=s.proxy_tid)


def pg_not_destroyed(s: Stream, t: float) -> None:
    if not s.era.c10d_stamp:
        return
    s.c10d(t, "W", "ProcessGroupNCCL.cpp:1250", "Warning: WARNING: process group has NOT been destroyed before we "
           "destruct ProcessGroupNCCL. On normal program exit, the application should call destroy_process_group to "
           "ensure that any pending NCCL operations have finished in this process. In rare cases this process can exit "
           "before this point and block the progress of another member of the process group. This constraint has "
           "always been present,  but this warning has only been added since PyTorch 2.4 (function operator())")


def cuda_error_tail(msg: str) -> list[str]:
    return [
        f"CUDA error: {msg}",
        "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might "
        "be incorrect.",
        "For debugging consider passing CUDA_LAUNCH_BLOCKING=1",
        "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.",
        "",
    ]


def user_frames(s: Stream, script: str, chain: Sequence[tuple[str, int, str, str]]) -> list[str]:
    """Traceback lines from (file, line, function, source) tuples; ``{site}`` expands to site-packages."""
    out = ["Traceback (most recent call last):"]
    for fname, line, fn, src in chain:
        out.append(f'  File "{fname.format(site=s.era.site, script=script)}", line {line}, in {fn}')
        out.append(f"    {src}")
    return out


MODULE_CALL = [
    ("{site}/torch/nn/modules/module.py", 1736, "_wrapped_call_impl", "return self._call_impl(*args, **kwargs)"),
    ("{site}/torch/nn/modules/module.py", 1747, "_call_impl", "return forward_call(*args, **kwargs)"),
]


# --------------------------------------------------------------------------------------------
# kernel logs
# --------------------------------------------------------------------------------------------

class Kernel:
    """One node's kernel log in one of the forms the engine reads."""

    def __init__(self, sc: Sc, path: str, node: Node, style: str, driver: str = "550.90.07") -> None:
        self.sc, self.path, self.node, self.style, self.driver = sc, path, node, style, driver
        self.items: list[tuple[float, int, str]] = []
        self._seq = sc.rng.randint(1500, 4000)

    def add(self, t: float, msg: str, prio: int = 4) -> None:
        self.items.append((t, prio, msg))

    def boot(self, extra: Sequence[str] = ()) -> None:
        t0 = -self.node.uptime0 + self.sc.rng.uniform(0.0, 0.9)
        self.add(t0 + 0.0, "Linux version 5.15.0-122-generic (buildd@lcy02-amd64-034) (gcc (Ubuntu 11.4.0-1ubuntu1~22.04) "
                 "11.4.0, GNU ld (GNU Binutils for Ubuntu) 2.38) #132-Ubuntu SMP Thu Aug 29 13:45:52 UTC 2024", 5)
        self.add(t0 + 18.2, f"NVRM: loading NVIDIA UNIX x86_64 Kernel Module  {self.driver}  Fri May 31 09:35:42 UTC 2024",
                 6)
        self.add(t0 + 18.3, "nvidia-nvlink: Nvlink Core is being initialized, major device number 509", 6)
        self.add(t0 + 18.9, f"nvidia-modeset: Loading NVIDIA Kernel Mode Setting Driver for UNIX platforms  {self.driver}"
                 "  Fri May 31 09:31:04 UTC 2024", 6)
        self.add(t0 + 21.4, "EXT4-fs (nvme0n1p2): mounted filesystem with ordered data mode. Opts: (null). "
                 "Quota mode: none.", 6)
        self.add(t0 + 24.0, "IPv6: ADDRCONF(NETDEV_CHANGE): ib0: link becomes ready", 6)
        for i, line in enumerate(extra):
            self.add(t0 + 30.0 + i, line, 6)
        self.add(-3100.0 - self.sc.rng.uniform(0.0, 900.0), "perf: interrupt took too long (2503 > 2500), lowering kernel.perf_event_max_sample_rate to "
                 "79750", 6)

    def flush(self) -> None:
        lines = []
        for t, prio, msg in sorted(self.items, key=lambda x: x[0]):
            mono = self.node.uptime0 + t
            dt = self.sc.wall(self.node, t)
            if self.style == "dmesg":
                whole = int(mono)
                lines.append((t, f"[{whole:5d}.{round((mono - whole) * 1e6) % 1_000_000:06d}] {msg}"))
            elif self.style == "dmesg_T":
                lines.append((t, f"[{ts_ctime(dt)}] {msg}"))
            elif self.style == "journal":
                lines.append((t, f"{ts_journal(dt)} {self.node.name} kernel: {msg}"))
            elif self.style == "syslog":
                lines.append((t, f"{ts_syslog(dt)} {self.node.name} kernel: {msg}"))
            elif self.style == "kmsg":
                lines.append((t, f"{prio},{self._seq},{round(mono * 1e6)},-;{msg}"))
                self._seq += 1
            else:
                raise ValueError(self.style)
        for t, line in lines:
            self.sc.out.add(self.path, t, [line])


def gpu_id_lines(sc: Sc, pci: str) -> list[str]:
    return [f"NVRM: GPU at PCI:{pci_short(pci)}: {sc.uuid()}",
            f"NVRM: GPU Board Serial Number: 1652{sc.rng.randint(10**8, 10**9 - 1)}"]


def xid(pci: str, code: int, body: str, pid: int | None = None, name: str = "python3") -> str:
    who = f"pid={pid}, name={name}, " if pid is not None else "pid='<unknown>', name=<unknown>, "
    return f"NVRM: Xid (PCI:{pci_short(pci)}): {code}, {who}{body}"


# --------------------------------------------------------------------------------------------
# torchrun agent console
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Exit:
    proc: Proc
    t: float
    code: int


SIGNALS = {-6: "SIGABRT", -7: "SIGBUS", -9: "SIGKILL", -11: "SIGSEGV", -15: "SIGTERM"}


class Agent:
    """torchrun's own console output on one node."""

    def __init__(self, sc: Sc, path: str, node: Node, era: Era, script: str = "train.py",
                 outer: str = "") -> None:
        self.sc, self.path, self.node, self.era, self.script, self.outer = sc, path, node, era, script, outer
        self.pid = sc.rng.randint(9000, 3_000_000)

    def line(self, t: float, level: str, loc: str, msg: str) -> None:
        dt = self.sc.wall(self.node, t)
        if self.era.agent == "glog":
            text = f"{ts_glog(level[0], dt)} {self.pid} {loc}] {msg}"
        else:  # torch 2.1-2.3: "[asctime] module: [LEVEL] message", the module from the source path
            module = loc.split(":")[0].removesuffix(".py").replace("/", ".")
            text = f"[{ts_pylog(dt)}] {module}: [{level}] {msg}"
        self.sc.out.add(self.path, t, [text])

    def banner(self, t: float) -> None:
        loc = "torch/distributed/run.py:793"
        for msg in ("", "*****************************************",
                    "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your "
                    "system being overloaded, please further tune the variable for optimal performance in your "
                    "application as needed. ",
                    "*****************************************"):
            self.line(t, "WARNING", loc, msg)

    def sigterm(self, t: float, procs: Sequence[Proc]) -> None:
        for i, p in enumerate(sorted(procs, key=lambda q: q.local)):
            self.line(t + 0.0004 * i, "WARNING", "torch/distributed/elastic/multiprocessing/api.py:897",
                      f"Sending process {p.pid} closing signal SIGTERM")

    def unable(self, t: float, p: Proc) -> None:
        self.line(t, "WARNING", "torch/distributed/elastic/multiprocessing/api.py:916",
                  f"Unable to shutdown process {p.pid} via Signals.SIGTERM, forcefully exiting via Signals.SIGKILL")

    def failed(self, t: float, e: Exit) -> None:
        self.line(t, "ERROR", "torch/distributed/elastic/multiprocessing/api.py:869",
                  f"failed (exitcode: {e.code}) local_rank: {e.proc.local} (pid: {e.proc.pid}) of binary: "
                  f"{self.era.python}")

    def restart(self, t: float, left: int, total: int) -> None:
        self.line(t, "WARNING", "torch/distributed/elastic/agent/server/api.py:704",
                  f"[default] Worker group FAILED. {left}/{total} attempts left; will restart worker group")

    def child_failed(self, t: float, root: Exit, others: Sequence[Exit]) -> None:
        site = self.era.site
        lines = [
            "Traceback (most recent call last):",
            f'  File "{self.era.python.rsplit("/", 1)[0]}/torchrun", line 8, in <module>',
            "    sys.exit(main())",
            f'  File "{site}/torch/distributed/elastic/multiprocessing/errors/__init__.py", line 355, in wrapper',
            "    return f(*args, **kwargs)",
            f'  File "{site}/torch/distributed/run.py", line 919, in main',
            "    run(args)",
            f'  File "{site}/torch/distributed/run.py", line 910, in run',
            "    elastic_launch(",
            f'  File "{site}/torch/distributed/launcher/api.py", line 138, in __call__',
            "    return launch_agent(self._config, self._entrypoint, list(args))",
            f'  File "{site}/torch/distributed/launcher/api.py", line 269, in launch_agent',
            "    raise ChildFailedError(",
            "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
            "============================================================",
            f"{self.script} FAILED",
            "------------------------------------------------------------",
            "Failures:",
        ]
        if not others:
            lines.append("  <NO_OTHER_FAILURES>")
        for i, e in enumerate(sorted(others, key=lambda x: x.proc.local), start=1):
            lines += [f"[{i}]:", *self._entry(e)]
        lines += ["------------------------------------------------------------", "Root Cause (first observed failure):",
                  "[0]:", *self._entry(root), "============================================================"]
        self.sc.out.add(self.path, t, [self.outer + x for x in lines])

    def _entry(self, e: Exit) -> list[str]:
        p = e.proc
        out = [f"  time      : {ts_summary(self.sc.wall(self.node, e.t))}",
               f"  host      : {self.node.name}",
               f"  rank      : {p.rank} (local_rank: {p.local})",
               f"  exitcode  : {e.code} (pid: {p.pid})",
               "  error_file: <N/A>"]
        if e.code < 0:
            out.append(f"  traceback : Signal {-e.code} ({SIGNALS[e.code]}) received by PID {p.pid}")
        else:
            out.append("  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html")
        return out

    def teardown(self, exits: Sequence[Exit], alive: Sequence[Proc], *, stuck: Sequence[Proc] = (),
                 restart: tuple[int, int] | None = None, poll: float = 0.1) -> float:
        """The agent notices the first exit, SIGTERMs whatever still runs, reports the first failure
        and either restarts or prints the ChildFailedError summary. Returns when it is done."""
        first = min(exits, key=lambda e: (e.t, e.proc.local))
        t = first.t + poll
        done = [e for e in exits if e.t <= t]
        term = [*alive, *(e.proc for e in exits if e.t > t)]
        if term:
            self.sigterm(t, term)
        t_end = t + 0.02
        for p in stuck:
            self.unable(t + 30.0, p)
            t_end = t + 30.05
        self.failed(t_end, first)
        if restart:
            self.restart(t_end + 0.01, *restart)
            return t_end + 0.01
        self.child_failed(t_end + 0.02, first, [e for e in done if e is not first])
        return t_end + 0.02


# --------------------------------------------------------------------------------------------
# scenarios
# --------------------------------------------------------------------------------------------

@dataclass
class Scenario:
    name: str
    base: datetime
    build: Callable[[Sc], dict[str, Any]]


def expect(description: str, incidents: list[dict[str, Any]], **more: Any) -> dict[str, Any]:
    return {"description": description, "origin": "synthetic", "incidents": incidents, **more}


def incident(cause: str, *, rank: int | None, node: str | None = None, gpu: str | None = None,
             collateral: Sequence[int] | None = None, include: Sequence[int] | None = None,
             drain: bool | None = None, omit_node: bool = False) -> dict[str, Any]:
    ini: dict[str, Any] = {"rank": rank}
    if not omit_node:
        ini["node"] = node
    if gpu is not None:
        ini["gpu"] = gpu
    out: dict[str, Any] = {"cause": cause, "initiator": ini}
    if collateral is not None:
        out["collateral_ranks"] = sorted(collateral)
    if include is not None:
        out["collateral_ranks_include"] = sorted(include)
    if drain is not None:
        out["drain_node"] = drain
    return out


def others(procs: Sequence[Proc], *ranks: int) -> list[int]:
    return [p.rank for p in procs if p.rank not in ranks]


def std_run_start(sc: Sc, streams: Sequence[Stream], comm: Comm, job: str, *, t0: float = 2.0,
                  extra: Sequence[str] = (), brief: bool = False, no_ib_warn: bool = False) -> float:
    """Start-up and NCCL init on every rank; returns when training starts."""
    for s in streams:
        startup(s, t0 + sc.rng.uniform(0.0, 0.4), job, extra)
        nccl_init(s, t0 + 6.0 + sc.rng.uniform(0.0, 0.2), comm, brief=brief, no_ib_warn=no_ib_warn)
        s.py(t0 + 9.0 + sc.rng.uniform(0.0, 0.2), "INFO", "process group ready; building model")
    return t0 + 40.0


# 1 -----------------------------------------------------------------------------------------
def sc_xid79(sc: Sc) -> dict[str, Any]:
    era = E25
    nodes = sc.nodes(["node01", "node02"], HGX_B, ips=["10.0.0.11", "10.0.0.12"])
    procs = sc.procs(nodes, 8)
    comm = make_comm(sc, procs)
    bad = procs[9]
    streams = [Stream(sc, f"{p.node.name}/rank_{p.rank}.log", p, era) for p in procs]
    t_train = std_run_start(sc, streams, comm, "llama3-8b-pretrain",
                            extra=["resuming from /ckpt/llama3-8b/step_0 (fresh start)"])
    last = 2243
    sch = schedule(sc.rng, t_train, 1, last + 1, 812.0)
    every = 25
    for s in streams:
        train(s, "plain", sch, 1, last, every, 100_000)
    t_fail = sch.at(last) + 0.31
    seq = 3 * last + 12
    # kernel logs
    k1 = Kernel(sc, "node01/dmesg.log", nodes[0], "dmesg_T")
    k1.boot()
    k1.flush()
    k2 = Kernel(sc, "node02/kernel.log", nodes[1], "journal")
    k2.boot()
    k2.add(t_fail - 0.21, "pcieport 0000:37:01.0: AER: Uncorrected (Fatal) error received: 0000:3b:00.0", 3)
    k2.add(t_fail - 0.21, "nvidia 0000:3b:00.0: PCIe Bus Error: severity=Uncorrected (Fatal), type=Inaccessible, "
           "(Unregistered Agent ID)", 3)
    for line in gpu_id_lines(sc, bad.pci):
        k2.add(t_fail, line)
    k2.add(t_fail, xid(bad.pci, 79, "GPU has fallen off the bus."))
    k2.add(t_fail, f"NVRM: GPU {bad.pci}: GPU has fallen off the bus.")
    k2.add(t_fail + 0.4, "NVRM: nvGpuOpsReportFatalError: uvm encountered global fatal error 0x60, requiring os reboot "
           "to recover.")
    k2.flush()
    # collateral: everyone else times out ~600 s later; the rank on the lost GPU is stuck in the driver
    exits: dict[str, list[Exit]] = {"node01": [], "node02": []}
    for s in streams:
        p = s.p
        if p is bad:
            continue
        ran = 600_000 + sc.rng.randint(20, 900)
        t_to = t_fail + 0.05 + ran / 1000.0
        watchdog_timeout(s, t_to, seq + 1, seq + 1, seq, ran_ms=ran)
        exits[p.node.name].append(Exit(p, t_to + 0.3, -6))
    for node in nodes:
        ag = Agent(sc, f"{node.name}/launcher.log", node, era)
        ag.banner(0.5)
        local = [p for p in procs if p.node is node]
        stuck = [bad] if bad in local else []
        ag.teardown(exits[node.name], alive=stuck, stuck=stuck, poll=2.0)
    return expect(
        "2 nodes x 8 GPUs. At 08:31 node02's kernel journal shows a PCIe AER fatal error, then Xid 79 (GPU has fallen "
        "off the bus) for PCI 0000:3b:00. The rank on that GPU is found only through its NCCL init line "
        "(busId 3b000, rank 9); rank 9 never logs anything itself (it hangs in the driver and needs SIGKILL). Every "
        "other rank times out in the watchdog about 600 s later (SeqNum 6742) and aborts with -6; each node's "
        "torchrun names one of those collateral ranks as root cause.",
        [incident("gpu_hardware", rank=9, node="node02", gpu="0000:3b:00", collateral=others(procs, 9), drain=True)])


# 2 -----------------------------------------------------------------------------------------
def sc_xid48(sc: Sc) -> dict[str, Any]:
    era = E24
    (node,) = sc.nodes(["gpu-node-3"], DGX_H100)
    procs = sc.procs([node], 8)
    comm = make_comm(sc, procs)
    bad = procs[5]
    streams = [Stream(sc, f"gpu-node-3/rank_{p.rank}.log", p, era, py="bracket") for p in procs]
    t_train = std_run_start(sc, streams, comm, "gpt-13b (Megatron-LM core_r0.9.0)",
                            extra=["> building GPT model ...", "> number of parameters on (tensor, pipeline) model "
                                   "parallel rank (0, 0): 1628504064"])
    last = 1537
    sch = schedule(sc.rng, t_train, 1, last, 1953.0)
    for s in streams:
        train(s, "megatron", sch, 1, last, 10, 100_000)
    t_fail = sch.at(last) + 1.12
    kl = Kernel(sc, "gpu-node-3/kern.log", node, "syslog")
    kl.boot()
    for line in gpu_id_lines(sc, bad.pci):
        kl.add(t_fail, line)
    addr = sc.rng.randint(0x10000000, 0x7FFFFFFF) & ~0x7F
    kl.add(t_fail, xid(bad.pci, 48, f"An uncorrectable double bit error (DBE) has been detected on GPU in the "
                                    f"framebuffer at physAddr 0x{addr:08x} partition 16, subpartition 3."))
    kl.add(t_fail + 0.002, xid(bad.pci, 63, f"Row Remapper: New row (0x{addr:016x}) marked for remapping, reset gpu to "
                                            "activate.", pid=bad.pid))
    kl.add(t_fail + 0.004, xid(bad.pci, 94, "Contained: SM (0x1). RST: No, D-RST: No", pid=bad.pid))
    kl.flush()
    sb = streams[5]
    te = t_fail + 0.19
    sb.tb(te, [
        *user_frames(sb, "pretrain_gpt.py", [
            ("/workspace/Megatron-LM/pretrain_gpt.py", 243, "<module>", "pretrain("),
            ("/workspace/Megatron-LM/megatron/training/training.py", 347, "pretrain",
             "iteration, num_floating_point_operations_so_far = train("),
            ("/workspace/Megatron-LM/megatron/training/training.py", 1235, "train",
             "train_step(forward_step_func,"),
            ("/workspace/Megatron-LM/megatron/training/training.py", 705, "train_step",
             "losses_reduced = forward_backward_func("),
            ("/workspace/Megatron-LM/megatron/core/pipeline_parallel/schedules.py", 452,
             "forward_backward_no_pipelining", "output_tensor, num_tokens = forward_step("),
            ("/workspace/Megatron-LM/megatron/core/pipeline_parallel/schedules.py", 274, "forward_step",
             "output_tensor, loss_func = forward_step_func(data_iterator, model)"),
            ("/workspace/Megatron-LM/pretrain_gpt.py", 190, "forward_step",
             "output_tensor = model(tokens, position_ids, attention_mask,"),
        ]),
        *["RuntimeError: " + x if i == 0 else x for i, x in enumerate(cuda_error_tail("uncorrectable ECC error "
                                                                                     "encountered"))],
    ])
    pg_not_destroyed(sb, te + 0.3)
    for s in streams:
        if s.p is not bad and sc.rng.random() < 0.7:
            conn_closed(s, te + 0.55 + sc.rng.uniform(0, 0.05), bad.local)
    ag = Agent(sc, "gpu-node-3/launcher.log", node, era, "pretrain_gpt.py")
    ag.banner(0.5)
    ag.teardown([Exit(bad, te + 0.5, 1)], alive=[p for p in procs if p is not bad])
    return expect(
        "One DGX node. The syslog kern.log shows Xid 48 (uncorrectable double-bit ECC error) on PCI 0000:ab:00, then "
        "Xid 63 (row remap pending) and Xid 94 (contained) naming rank 5's pid; rank 5 (busId ab000) raises "
        "'CUDA error: uncorrectable ECC error encountered' 0.2 s later and exits 1. Its siblings print 'Connection "
        "closed by localRank 5' and are SIGTERMed by torchrun.",
        [incident("ecc_memory", rank=5, node="gpu-node-3", gpu="0000:ab:00", collateral=others(procs, 5), drain=True)])


# 3 -----------------------------------------------------------------------------------------
def sc_xid74(sc: Sc) -> dict[str, Any]:
    era = E26
    (node,) = sc.nodes(["dgx-a07"], DGX_H100)
    procs = sc.procs([node], 8)
    comm = make_comm(sc, procs)
    bad = procs[2]
    streams = [Stream(sc, f"dgx-a07/rank_{p.rank}.log", p, era, py="titan", logger="root") for p in procs]
    t_train = std_run_start(sc, streams, comm, "torchtitan llama3_70b (FSDP2, TP=8)")
    last = 906
    sch = schedule(sc.rng, t_train, 1, last, 2410.0)
    for s in streams:
        train(s, "titan", sch, 1, last, 10, 40_000)
    t_fail = sch.at(last) + 0.74
    kd = Kernel(sc, "dgx-a07/dmesg.txt", node, "dmesg")
    kd.boot()
    for line in gpu_id_lines(sc, bad.pci):
        kd.add(t_fail, line)
    kd.add(t_fail, xid(bad.pci, 74, "NVLink: fatal error detected on link 3(0x10000, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0)",
                       pid=bad.pid))
    kd.add(t_fail + 0.001, xid(bad.pci, 74, "NVLink: fatal error detected on link 5(0x10000, 0x0, 0x0, 0x0, 0x0, 0x0, "
                                            "0x0)", pid=bad.pid))
    kd.add(t_fail + 1.9, xid(bad.pci, 45, "Ch 00000010", pid=bad.pid))
    kd.flush()
    sb = streams[2]
    te = t_fail + 0.06
    sb.nccl_warn(te - 0.01, "enqueue.cc:1556", "Cuda failure 'uncorrectable NVLink error detected during the execution'")
    term = (f"{era.pgp(2)} Process group watchdog thread terminated with exception: CUDA error: uncorrectable NVLink "
            "error detected during the execution")
    tail = cuda_error_tail("x")[1:]
    frames = cpp_frames(sb, "c10_cuda")
    origin = ("Exception raised from c10_cuda_check_implementation at /pytorch/c10/cuda/CUDAException.cpp:43 "
              "(most recent call first):")
    sb.c10d(te, "E", "ProcessGroupNCCL.cpp:1895", term, *tail, origin, *frames, "")
    sb.raw(te + 0.001, "terminate called after throwing an instance of 'c10::DistBackendError'", f"  what():  {term}",
           *tail, origin, *frames, "")
    for s in streams:
        if s.p is not bad and sc.rng.random() < 0.6:
            conn_closed(s, te + 0.4 + sc.rng.uniform(0, 0.05), bad.local)
    ag = Agent(sc, "dgx-a07/launcher.log", node, era)
    ag.banner(0.5)
    ag.teardown([Exit(bad, te + 0.3, -6)], alive=[p for p in procs if p is not bad])
    return expect(
        "One node. Raw dmesg (seconds since boot) shows two Xid 74 NVLink fatal errors on PCI 0000:3a:00 naming rank "
        "2's pid; rank 2 (busId 3a000) logs NCCL 'Cuda failure uncorrectable NVLink error' and its watchdog aborts the "
        "process (exit -6). The later Xid 45 is cleanup after the kill. Siblings are SIGTERMed.",
        [incident("nvlink", rank=2, node="dgx-a07", gpu="0000:3a:00", collateral=others(procs, 2), drain=True)])


# 4 -----------------------------------------------------------------------------------------
def sc_xid31(sc: Sc) -> dict[str, Any]:
    era = E27
    (node,) = sc.nodes(["trn-node-12"], DGX_H100)
    procs = sc.procs([node], 4, nvml_offset=4)  # CUDA_VISIBLE_DEVICES=4,5,6,7
    comm = make_comm(sc, procs)
    bad = procs[1]
    streams = [Stream(sc, f"trn-node-12/rank_{p.rank}.log", p, era, py="hf", logger="sft.py:88") for p in procs]
    t_train = std_run_start(sc, streams, comm, "sft mistral-7b (transformers 4.46.2, CUDA_VISIBLE_DEVICES=4,5,6,7)",
                            extra=["***** Running training *****", "  Num examples = 182,113", "  Num Epochs = 3"])
    last = 1187
    sch = schedule(sc.rng, t_train, 1, last, 611.0)
    for s in streams:
        train(s, "hf", sch, 1, last, 10, 17_073)
    t_fail = sch.at(last) + 0.27
    kd = Kernel(sc, "trn-node-12/dmesg.log", node, "dmesg_T")
    kd.boot()
    for line in gpu_id_lines(sc, bad.pci):
        kd.add(t_fail, line)
    kd.add(t_fail, xid(bad.pci, 31, "channel 0x0000000a, intr 00000000. MMU Fault: ENGINE GRAPHICS GPC1 GPCCLIENT_T1_8 "
                       "faulted @ 0x7f3a_63e00000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_WRITE", pid=bad.pid))
    sb = streams[1]
    te = t_fail + 0.004
    term = (f"{era.pgp(1)} Process group watchdog thread terminated with exception: CUDA error: an illegal memory "
            "access was encountered")
    tail = cuda_error_tail("x")[1:]
    frames = cpp_frames(sb, "c10_cuda")
    origin = ("Exception raised from c10_cuda_check_implementation at /pytorch/c10/cuda/CUDAException.cpp:43 "
              "(most recent call first):")
    sb.c10d(te, "E", "ProcessGroupNCCL.cpp:1896", term, *tail, origin, *frames, "")
    sb.raw(te + 0.001, "terminate called after throwing an instance of 'c10::DistBackendError'", f"  what():  {term}",
           *tail, origin, *frames, "")
    ag = Agent(sc, "trn-node-12/launcher.log", node, era, "sft.py")
    ag.banner(0.5)
    t_done = ag.teardown([Exit(bad, te + 0.2, -6)], alive=[p for p in procs if p is not bad])
    for s in streams:
        if s.p is not bad:
            conn_closed(s, te + 0.25, bad.local)
            kd.add(t_done + 0.3 + 0.01 * s.p.local, xid(s.p.pci, 45, "Ch 00000008", pid=s.p.pid))
    kd.flush()
    return expect(
        "One node, job on GPUs 4-7 (CUDA_VISIBLE_DEVICES, so cudaDev 1 is nvmlDev 5). dmesg -T shows Xid 31 (MMU "
        "fault) on PCI 0000:ab:00 with pid= rank 1's pid (from its NCCL init line); rank 1's watchdog reports 'CUDA "
        "error: an illegal memory access was encountered' and aborts (-6). An application fault: do not drain. The "
        "Xid 45 lines on the other GPUs are channel cleanup after torchrun's SIGTERM.",
        [incident("illegal_memory_access", rank=1, node="trn-node-12", gpu="0000:ab:00", collateral=others(procs, 1),
                  drain=False)])


# 5 -----------------------------------------------------------------------------------------
def sc_cuda_oom(sc: Sc) -> dict[str, Any]:
    era = E25
    (node,) = sc.nodes(["node-gpu-07"], DGX_H100)
    procs = sc.procs([node], 8)
    comm = make_comm(sc, procs)
    bad = procs[3]
    streams = [Stream(sc, f"node-gpu-07/worker-{p.rank}.log", p, era, py="hydra") for p in procs]
    t_train = std_run_start(sc, streams, comm, "long-context finetune (seq_len ramps 8k -> 32k)")
    last = 880
    sch = schedule(sc.rng, t_train, 1, last, 1480.0, extra=lambda k: 0.0002 * k)
    for s in streams:
        train(s, "hydra", sch, 1, last, 5, 5_000)
    t_fail = sch.at(last) + 0.42
    sb = streams[3]
    sb.py(t_fail, "ERROR", "Uncaught exception at step 881 (seq_len=28672)")
    sb.tb(t_fail, [
        *user_frames(sb, "train.py", [
            ("/workspace/train.py", 412, "<module>", "main()"),
            ("/workspace/train.py", 398, "main", "loss = train_step(model, batch, optimizer)"),
            ("/workspace/train.py", 211, "train_step", 'logits = model(batch["input_ids"])'),
            *MODULE_CALL,
            ("/workspace/model.py", 141, "forward", "x = blk(x, freqs)"),
            *MODULE_CALL,
            ("/workspace/model.py", 88, "forward", "att = torch.softmax(scores.float(), dim=-1)"),
        ]),
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 3 has a total capacity of 79.11 GiB "
        "of which 1.19 GiB is free. Including non-PyTorch memory, this process has 77.90 GiB memory in use. Of the "
        "allocated memory 74.12 GiB is allocated by PyTorch, and 2.31 GiB is reserved by PyTorch but unallocated. If "
        "reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid "
        "fragmentation.  See documentation for Memory Management  "
        "(https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)",
    ])
    pg_not_destroyed(sb, t_fail + 0.6)
    for s in streams:
        if s.p is not bad and sc.rng.random() < 0.75:
            conn_closed(s, t_fail + 0.9 + sc.rng.uniform(0, 0.05), bad.local)
    ag = Agent(sc, "node-gpu-07/launcher.log", node, era)
    ag.banner(0.5)
    ag.teardown([Exit(bad, t_fail + 0.8, 1)], alive=[p for p in procs if p is not bad])
    return expect(
        "One node, per-rank files worker-N.log. Rank 3 raises torch.OutOfMemoryError ('CUDA out of memory. Tried to "
        "allocate 2.00 GiB. GPU 3 ...') as the sequence length ramps up and exits 1; siblings print 'Connection closed "
        "by localRank 3' and are SIGTERMed. A configuration problem: no drain.",
        [incident("cuda_oom", rank=3, node="node-gpu-07", collateral=others(procs, 3), drain=False)])


# 6 -----------------------------------------------------------------------------------------
def sc_python_exception_combined(sc: Sc) -> dict[str, Any]:
    era = E25
    (node,) = sc.nodes(["ml-box-2"], WS_4GPU)
    procs = sc.procs([node], 4)
    comm = make_comm(sc, procs, net="Socket")
    bad = procs[2]
    path = "train.log"
    ag = Agent(sc, path, node, era, "run_sft.py")
    ag.banner(0.2)
    streams = [Stream(sc, path, p, era, outer=f"[default{p.local}]:", py="hf", logger="run_sft.py:121")
               for p in procs]
    t_train = std_run_start(sc, streams, comm, "qwen2.5-1.5b sft")
    last = 412
    sch = schedule(sc.rng, t_train, 1, last, 702.0)
    for s in streams:
        train(s, "hf", sch, 1, last, 10, 3_000)
    t_fail = sch.at(last) + 0.33
    sb = streams[2]
    sb.tb(t_fail, [
        *user_frames(sb, "run_sft.py", [
            ("/home/ml/finetune/run_sft.py", 233, "<module>", "main()"),
            ("/home/ml/finetune/run_sft.py", 226, "main", "trainer.train()"),
            ("{site}/transformers/trainer.py", 2123, "train", "return inner_training_loop("),
            ("{site}/transformers/trainer.py", 2481, "_inner_training_loop",
             "tr_loss_step = self.training_step(model, inputs, num_items_in_batch)"),
            ("{site}/transformers/trainer.py", 3579, "training_step",
             "loss = self.compute_loss(model, inputs, num_items_in_batch=num_items_in_batch)"),
            ("/home/ml/finetune/run_sft.py", 98, "compute_loss",
             "loss = F.cross_entropy(logits.view(-1, logits.size(-1)), labels.view(-1))"),
            ("{site}/torch/nn/functional.py", 3479, "cross_entropy", "return torch._C._nn.cross_entropy_loss("),
        ]),
        "ValueError: Expected input batch_size (32) to match target batch_size (31).",
    ])
    pg_not_destroyed(sb, t_fail + 0.4)
    for s in streams:
        if s.p is not bad:
            conn_closed(s, t_fail + 0.7 + 0.002 * s.p.local, bad.local)
    ag.teardown([Exit(bad, t_fail + 0.6, 1)], alive=[p for p in procs if p is not bad])
    return expect(
        "One combined torchrun console log (train.log): every worker line starts with [default<local_rank>]:, the "
        "traceback lines also with [rank<N>]:. Rank 2 raises 'ValueError: Expected input batch_size (32) to match "
        "target batch_size (31).' and exits 1; ranks 0, 1 and 3 print 'Connection closed by localRank 2' and are "
        "SIGTERMed; the ChildFailedError summary names rank 2.",
        [incident("python_exception", rank=2, node="ml-box-2", collateral=others(procs, 2), drain=False)])


# 7 -----------------------------------------------------------------------------------------
def sc_host_oom(sc: Sc) -> dict[str, Any]:
    era = E26
    (node,) = sc.nodes(["gpu-node-11"], HGX_B)
    procs = sc.procs([node], 8)
    comm = make_comm(sc, procs)
    bad, invoker = procs[5], procs[2]
    streams = [Stream(sc, f"gpu-node-11/rank_{p.rank}.log", p, era) for p in procs]
    t_train = std_run_start(sc, streams, comm, "vit-h14 pretrain (16 dataloader workers per rank)")
    last = 2670
    sch = schedule(sc.rng, t_train, 1, last, 402.0)
    for s in streams:
        train(s, "plain", sch, 1, last, 20, 200_000)
        for i, pct in enumerate((71, 78, 84, 91)):
            s.py(t_train + 240.0 * (i + 1) + 0.5 * s.p.local, "WARNING",
                 f"host memory {pct}% used (rss of this rank {9.8 + 2.1 * i + 0.3 * (s.p.rank == 5) * i:.1f} GiB)",
                 "memwatch")
    t_fail = sch.at(last) + 0.18
    kj = Kernel(sc, "gpu-node-11/journal.log", node, "journal")
    kj.boot()
    kj.add(t_fail - 0.03, "python invoked oom-killer: gfp_mask=0x140dca(GFP_HIGHUSER_MOVABLE|__GFP_COMP|__GFP_ZERO), "
           "order=0, oom_score_adj=0")
    kj.add(t_fail - 0.03, f"CPU: 37 PID: {invoker.pid} Comm: python Not tainted 5.15.0-122-generic #132-Ubuntu")
    kj.add(t_fail - 0.02, "oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0-1,global_oom,"
           f"task_memcg=/user.slice/user-1000.slice/session-41.scope,task=python,pid={bad.pid},uid=1000")
    kj.add(t_fail, f"Out of memory: Killed process {bad.pid} (python) total-vm:98765432kB, anon-rss:19818086kB, "
           "file-rss:412316kB, shmem-rss:2097152kB, UID:1000 pgtables:61240kB oom_score_adj:0", 3)
    kj.add(t_fail + 0.9, f"oom_reaper: reaped process {bad.pid} (python), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB")
    kj.flush()
    for s in streams:
        if s.p is not bad and sc.rng.random() < 0.75:
            conn_closed(s, t_fail + 0.05 + sc.rng.uniform(0, 0.05), bad.local)
    ag = Agent(sc, "gpu-node-11/launcher.log", node, era)
    ag.banner(0.5)
    ag.teardown([Exit(bad, t_fail + 0.01, -9)], alive=[p for p in procs if p is not bad])
    return expect(
        "One node. The kernel journal shows the OOM killer invoked by rank 2's process but killing pid <rank 5's pid> "
        "('Out of memory: Killed process ... (python)'); rank 5's log just stops, torchrun reports exitcode -9 (SIGKILL) "
        "for local_rank 5, its siblings print 'Connection closed by localRank 5' and are SIGTERMed.",
        [incident("host_oom_kill", rank=5, node="gpu-node-11", collateral=others(procs, 5), drain=False)])


# 8 -----------------------------------------------------------------------------------------
def sc_sigsegv(sc: Sc) -> dict[str, Any]:
    era = E23
    (node,) = sc.nodes(["ws-gpu-1"], WS_4GPU_B)
    procs = sc.procs([node], 4)
    comm = make_comm(sc, procs, net="Socket")
    bad = procs[1]
    streams = [Stream(sc, f"ws-gpu-1/rank{p.rank}.log", p, era, py="bracket") for p in procs]
    t_train = std_run_start(sc, streams, comm, "diffusion unet finetune (flash-attn 2.5.8)")
    last = 3311
    sch = schedule(sc.rng, t_train, 1, last, 288.0)
    for s in streams:
        train(s, "plain", sch, 1, last, 50, 20_000)
    t_fail = sch.at(last) + 0.11
    sb = streams[1]
    site = era.site
    sb.raw(t_fail, "Fatal Python error: Segmentation fault", "",
           "Current thread 0x00007f5e2bfff640 (most recent call first):",
           f'  File "{site}/flash_attn/flash_attn_interface.py", line 96 in _flash_attn_varlen_forward',
           f'  File "{site}/flash_attn/flash_attn_interface.py", line 475 in forward',
           f'  File "{site}/torch/autograd/function.py", line 598 in apply',
           '  File "/home/ws/unet/attention.py", line 64 in forward',
           f'  File "{site}/torch/nn/modules/module.py", line 1541 in _call_impl',
           '  File "/home/ws/unet/train.py", line 301 in train_step',
           '  File "/home/ws/unet/train.py", line 377 in main',
           '  File "/home/ws/unet/train.py", line 402 in <module>', "",
           "Thread 0x00007f5f6a1fe640 (most recent call first):",
           "  File \"/opt/conda/lib/python3.10/threading.py\", line 324 in wait",
           "  File \"/opt/conda/lib/python3.10/threading.py\", line 607 in wait",
           f'  File "{site}/tqdm/_monitor.py", line 60 in run', "",
           "Extension modules: numpy.core._multiarray_umath, numpy.core._multiarray_tests, numpy.linalg._umath_linalg, "
           "torch._C, torch._C._fft, torch._C._linalg, torch._C._nn, torch._C._sparse, torch._C._special, "
           "flash_attn_2_cuda (total: 21)")
    kd = Kernel(sc, "ws-gpu-1/dmesg.log", node, "dmesg_T")
    kd.boot()
    kd.add(t_fail + 0.01, f"python[{bad.pid}]: segfault at 10 ip 00007f5e5a3b1c2d sp 00007f5e2bffd0a0 error 4 in "
           "flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so[7f5e59e00000+1a00000] likely on CPU 12 (core 6, socket 0)",
           6)
    kd.add(t_fail + 0.01, "Code: 48 8b 47 10 48 85 c0 74 1d 48 8b 50 08 48 39 d6 72 14 <48> 8b 08 48 39 ce 73 0c", 6)
    kd.flush()
    for s in streams:
        if s.p is not bad:
            conn_closed(s, t_fail + 0.2 + 0.003 * s.p.local, bad.local)
    ag = Agent(sc, "ws-gpu-1/launcher.log", node, era)
    ag.banner(0.5)
    ag.teardown([Exit(bad, t_fail + 0.15, -11)], alive=[p for p in procs if p is not bad], poll=5.0)
    return expect(
        "One 4-GPU workstation, files rank0.log..rank3.log. Rank 1 prints 'Fatal Python error: Segmentation fault' in "
        "flash-attn; dmesg -T has the matching 'segfault at 10' line for its pid; torchrun reports exitcode -11 "
        "(SIGSEGV). No GPU hardware evidence.",
        [incident("crash_signal", rank=1, node="ws-gpu-1", collateral=others(procs, 1), drain=False)])


# 9 -----------------------------------------------------------------------------------------
def sc_preemption(sc: Sc) -> dict[str, Any]:
    era = E24
    nodes = sc.nodes(["node02", "node05"], DGX_H100)
    procs = sc.procs(nodes, 8)
    comm = make_comm(sc, procs)
    path = "slurm-81234.out"
    streams = [Stream(sc, path, p, era, outer=f"{p.rank:>2d}: ", py="std") for p in procs]
    t_train = std_run_start(sc, streams, comm, "pretrain-3b (srun, 1 task per GPU)")
    last = 2413
    sch = schedule(sc.rng, t_train, 1, last, 795.0)
    for s in streams:
        train(s, "plain", sch, 1, last, 50, 50_000)
    t_pre = sch.at(last) + 0.52
    cancel = ts_seconds(sc.wall(nodes[0], t_pre)).replace(" ", "T")
    sc.out.add(path, t_pre, [f"slurmstepd: error: *** JOB 81234 ON node02 CANCELLED AT {cancel} DUE TO PREEMPTION ***"])
    sc.out.add(path, t_pre + 0.01, ["srun: Job step aborted: Waiting up to 32 seconds for job step to finish."])
    for s in streams:
        tt = t_pre + 0.05 + sc.rng.uniform(0, 0.2)
        s.py(tt, "WARNING", f"received SIGTERM (signal 15) at step {last + 1}; exiting without checkpoint "
                            "(last checkpoint: step 2000)")
        pg_not_destroyed(s, tt + 0.3)
    sc.out.add(path, t_pre + 1.2, ["srun: error: node05: tasks 8-15: Terminated",
                                   "srun: error: node02: tasks 0-7: Terminated",
                                   "srun: Force Terminated JobId=81234"])
    return expect(
        "srun --label combined output (slurm-81234.out, ' 3: ' prefixes), 2 nodes x 8. slurmstepd prints '*** JOB 81234 "
        "ON node02 CANCELLED AT ... DUE TO PREEMPTION ***', then every task logs SIGTERM and srun reports all tasks "
        "Terminated. The scheduler ended the job: no rank is to blame (initiator rank null, node node02 from the "
        "notice); resubmit, do not drain.",
        [incident("preemption", rank=None, node="node02", drain=False)])


# 10 ----------------------------------------------------------------------------------------
def sc_hang_silent(sc: Sc) -> dict[str, Any]:
    era = E26
    (node,) = sc.nodes(["gpu-node-21"], DGX_H100)
    procs = sc.procs([node], 8)
    comm = make_comm(sc, procs)
    bad = procs[6]
    streams = [Stream(sc, f"gpu-node-21/rank_{p.rank}.log", p, era) for p in procs]
    t_train = std_run_start(sc, streams, comm, "resume from /ckpt/step_1600",
                            extra=["loaded checkpoint step 1600 in 31.2 s"])
    last = 2207
    sch = schedule(sc.rng, t_train, 1601, last, 951.0)
    for s in streams:
        train(s, "plain", sch, 1601, last - 1 if s.p is bad else last, 1, 100_000)
    seq = 4412
    t_enq = sch.at(last) + 0.41
    exits = []
    tos = []
    for s in streams:
        if s.p is bad:
            continue
        ran = 600_000 + sc.rng.randint(20, 900)
        t_to = t_enq + ran / 1000.0
        tos.append(t_to)
        watchdog_timeout(s, t_to, seq, seq, seq - 1, ran_ms=ran)
        exits.append(Exit(s.p, t_to + 1.1, -6))
    sb = streams[6]
    sb.c10d(min(tos) + 1.0, "E", "ProcessGroupNCCL.cpp:1417",
            f"{era.pgp(6)} Observed flight recorder dump signal from another rank via TCPStore.")
    ag = Agent(sc, "gpu-node-21/launcher.log", node, era)
    ag.banner(0.5)
    ag.teardown(exits, alive=[bad], poll=0.3)
    return expect(
        "One node, a step printed on every rank every step. Rank 6 prints its last step (2206) one step before the "
        "others (2207) and then nothing: it is stuck outside the collective (no watchdog timeout of its own; only "
        "'Observed flight recorder dump signal from another rank'). Ranks 0-5 and 7 time out ~600 s later in "
        "ALLREDUCE SeqNum 4412 with last completed work 4411 and abort; torchrun names one of them as root cause.",
        [incident("hang", rank=6, node="gpu-node-21", collateral=others(procs, 6), drain=False)])


# 11 ----------------------------------------------------------------------------------------
def sc_hang_lowest_seq(sc: Sc) -> dict[str, Any]:
    era = E24
    nodes = sc.nodes([f"node{i:02d}" for i in range(1, 17)], DGX_H100)
    procs = sc.procs(nodes, 8)
    comm = make_comm(sc, procs)
    bad = procs[77]
    streams = [Stream(sc, f"{p.node.name}/rank{p.rank}.log", p, era, py="plain") for p in procs]
    for s in streams:
        s.py(2.0 + sc.rng.uniform(0, 0.5), "INFO", f"rank {s.p.rank}/{s.p.world} on {s.p.node.name} "
                                                   f"(local {s.p.local}), torch {era.torch}")
        nccl_init(s, 8.0 + sc.rng.uniform(0, 0.3), comm, brief=True)
    last = 1500
    sch = schedule(sc.rng, 45.0, 1, last, 1312.0)
    for s in streams:
        train(s, "plain", sch, 1, last, 100, 100_000)
    seq_others = 9021
    t_enq = sch.at(last) + 0.9
    order = sorted(range(len(procs)), key=lambda _: sc.rng.random())
    jit = {r: 0.02 + 0.9 * i / len(procs) for i, r in enumerate(order)}
    jit[77] = 0.47
    for s in streams:
        r = s.p.rank
        ran = 600_000 + int(jit[r] * 1000)
        if s.p is bad:
            watchdog_timeout(s, t_enq + ran / 1000.0, seq_others - 1, seq_others, seq_others - 2, ran_ms=ran)
        else:
            watchdog_timeout(s, t_enq + ran / 1000.0, seq_others, seq_others, seq_others - 1, ran_ms=ran)
    return expect(
        "16 nodes x 8 GPUs (node01..node16/rankN.log, brief logs). Every rank, the culprit included, times out in the "
        "watchdog at about the same time. Rank 77 (node10, local 5) is the only one whose timed-out work is 9020 with "
        "last completed NCCL work 9019; all others completed 9020 and wait on 9021. The lowest last-completed sequence "
        "singles out rank 77; its timeout is not the earliest.",
        [incident("hang", rank=77, node="node10", collateral=others(procs, 77), drain=False)])


# 12 ----------------------------------------------------------------------------------------
def sc_skew(sc: Sc) -> dict[str, Any]:
    era = E25
    nodes = sc.nodes(["gpu-a01", "gpu-b07"], DGX_H100, ips=["10.1.0.11", "10.1.0.27"], skews=[0.0, -4.0])
    procs = sc.procs(nodes, 4)
    comm = make_comm(sc, procs, net="Socket")
    bad = procs[2]
    paths = {n.name: f"{n.name}/console.log" for n in nodes}
    agents = {n.name: Agent(sc, paths[n.name], n, era) for n in nodes}
    for ag in agents.values():
        ag.banner(0.3)
    streams = [Stream(sc, paths[p.node.name], p, era, outer=f"[default{p.local}]:") for p in procs]
    t_train = std_run_start(sc, streams, comm, "bert-large mlm (2 nodes, TCP sockets)")
    last = 2112
    sch = schedule(sc.rng, t_train, 1, last, 520.0)
    for s in streams:
        train(s, "plain", sch, 1, last, 8, 40_000)
    t_fail = sch.at(last) + 0.38
    sa = streams[2]
    # in the console of gpu-a01 the siblings' NCCL lines land before rank 2's traceback
    for s in streams[:4]:
        if s.p is not bad:
            conn_closed(s, t_fail - 0.0005, bad.local)
    sa.tb(t_fail, [
        *user_frames(sa, "train.py", [
            ("/srv/mlm/train.py", 288, "<module>", "main(cfg)"),
            ("/srv/mlm/train.py", 251, "main", "loss = step(model, batch)"),
            ("/srv/mlm/train.py", 170, "step", "out = model(**batch)"),
            *MODULE_CALL,
            ("/srv/mlm/model.py", 77, "forward", "h = self.embed(input_ids) + self.pos[: input_ids.size(1)]"),
        ]),
        "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:2 and cpu!",
    ])
    agents["gpu-a01"].teardown([Exit(bad, t_fail + 0.35, 1)], alive=[p for p in procs[:4] if p is not bad])
    # gpu-b07 (clock 4 s behind): the NCCL socket to the dead peer closes, the watchdog raises ncclRemoteError
    sb4, sb6 = streams[4], streams[6]
    sb4.nccl_warn(t_fail + 1.18, "misc/socket.cc:50", "socketProgress: Connection closed by remote peer "
                                                      "gpu-a01<35112>")
    remote_error(sb4, t_fail + 1.2, ["socketProgress: Connection closed by remote peer gpu-a01<35112>"])
    remote_error(sb6, t_fail + 1.26, ["socketProgress: Connection closed by remote peer gpu-a01<35118>"])
    for s in (streams[5], streams[7]):
        conn_closed(s, t_fail + 1.5, 0)
    agents["gpu-b07"].teardown([Exit(procs[4], t_fail + 1.45, -6), Exit(procs[6], t_fail + 1.5, -6)],
                               alive=[procs[5], procs[7]])
    return expect(
        "2 nodes x 4 GPUs, one torchrun console per node ([default<local_rank>]: prefixes). gpu-b07's clock is 4 s "
        "behind gpu-a01's (compare the step lines), so gpu-b07's collateral ncclRemoteError ('remote process exited') "
        "lines carry times ~3 s EARLIER than the real cause, and in gpu-a01's console the siblings' 'Connection closed "
        "by localRank 2' lines come before rank 2's traceback. The initiator is rank 2 on gpu-a01: 'RuntimeError: "
        "Expected all tensors to be on the same device'. Naive earliest-line attribution picks rank 4 (wrong).",
        [incident("python_exception", rank=2, node="gpu-a01", collateral=others(procs, 2), drain=False)])


# 13 ----------------------------------------------------------------------------------------
def sc_dataloader(sc: Sc) -> dict[str, Any]:
    era = E24
    (node,) = sc.nodes(["ml-box-9"], WS_4GPU)
    procs = sc.procs([node], 4)
    comm = make_comm(sc, procs, net="Socket")
    bad = procs[1]
    streams = [Stream(sc, f"ml-box-9/rank_{p.rank}.log", p, era) for p in procs]
    t_train = std_run_start(sc, streams, comm, "speech encoder pretrain (webdataset on NFS, DataLoader(timeout=600))")
    last = 1902
    sch = schedule(sc.rng, t_train, 1, last, 734.0)
    for s in streams:
        train(s, "plain", sch, 1, last - 1 if s.p is bad else last, 10, 40_000)
    sb = streams[1]
    t_stall = sch.at(last - 1) + 0.02
    sb.py(t_stall + 30.2, "WARNING", "shard /mnt/nfs/speech/shard-00421.tar: read took 30.1 s (retrying)", "data")
    t_err = t_stall + 600.0
    sb.tb(t_err, [
        *user_frames(sb, "train.py", [
            (f"{era.site}/torch/utils/data/dataloader.py", 1243, "_try_get_data",
             "data = self._data_queue.get(timeout=timeout)"),
            ("/usr/lib/python3.10/multiprocessing/queues.py", 114, "get", "raise Empty"),
        ]),
        "_queue.Empty", "",
        "The above exception was the direct cause of the following exception:", "",
        *user_frames(sb, "train.py", [
            ("/home/asr/train.py", 355, "<module>", "main()"),
            ("/home/asr/train.py", 318, "main", "for batch in loader:"),
            (f"{era.site}/torch/utils/data/dataloader.py", 701, "__next__", "data = self._next_data()"),
            (f"{era.site}/torch/utils/data/dataloader.py", 1448, "_next_data", "idx, data = self._get_data()"),
            (f"{era.site}/torch/utils/data/dataloader.py", 1402, "_get_data", "success, data = self._try_get_data()"),
            (f"{era.site}/torch/utils/data/dataloader.py", 1256, "_try_get_data",
             "raise RuntimeError(f'DataLoader timed out after {timeout} seconds') from e"),
        ]),
        "RuntimeError: DataLoader timed out after 600 seconds",
    ])
    pg_not_destroyed(sb, t_err + 0.3)
    for s in streams:
        if s.p is not bad:
            conn_closed(s, t_err + 0.5 + 0.002 * s.p.local, bad.local)
    ag = Agent(sc, "ml-box-9/launcher.log", node, era)
    ag.banner(0.5)
    ag.teardown([Exit(bad, t_err + 0.4, 1)], alive=[p for p in procs if p is not bad])
    return expect(
        "One node, 4 ranks. Rank 1 stalls in its DataLoader at step 1902 while reading a shard from NFS (a 'read "
        "took 30.1 s' warning), and 600 s later raises 'RuntimeError: DataLoader timed out after 600 seconds'. The others wait in "
        "the next all-reduce and are SIGTERMed by torchrun before their own NCCL timeout fires.",
        [incident("data_loader_stall", rank=1, node="ml-box-9", collateral=others(procs, 1), drain=False)])


# 14 ----------------------------------------------------------------------------------------
def sc_mismatch(sc: Sc) -> dict[str, Any]:
    era = E25
    (node,) = sc.nodes(["dev-gpu-2"], WS_4GPU)
    procs = sc.procs([node], 4)
    comm = make_comm(sc, procs, net="Socket")
    streams = [Stream(sc, f"dev-gpu-2/rank_{p.rank}.log", p, era) for p in procs]
    t_train = std_run_start(sc, streams, comm, "ddp experiment (TORCH_DISTRIBUTED_DEBUG=DETAIL)",
                            extra=["TORCH_DISTRIBUTED_DEBUG=DETAIL: collectives are checked across ranks"])
    sch = schedule(sc.rng, t_train, 1, 4, 640.0)
    for s in streams:
        train(s, "plain", sch, 1, 3, 1, 1_000)
    t_fail = sch.at(3) + 0.21
    opts = ("TensorOptions(dtype=float (default), device=cuda, layout=Strided (default), requires_grad=false "
            "(default), pinned_memory=false (default), memory_format=(nullopt))")

    def fp(op: str) -> str:
        return f"CollectiveFingerPrint(SequenceNumber=12, OpType={op}, TensorShape=[1024], TensorDtypes=Float, " \
               f"TensorDeviceTypes={opts})"

    exits = []
    for s in streams:
        r = s.p.rank
        mine, peer, peer_op = ("BROADCAST", 0, "ALLREDUCE") if r == 3 else ("ALLREDUCE", 3, "BROADCAST")
        tt = t_fail + 0.002 + 0.003 * r
        msg = (f"RuntimeError: Detected mismatch between collectives on ranks. Rank {r} is running collective: "
               f"{fp(mine)}, but Rank {peer} is running collective: {fp(peer_op)}.Collectives differ in the following "
               f"aspects: \t Op type: {mine}vs {peer_op}")
        s.tb(tt, [
            *user_frames(s, "exp.py", [
                ("/home/dev/exp.py", 140, "<module>", "run()"),
                ("/home/dev/exp.py", 122, "run", "sync_stats(model)" if r == 3 else "loss.backward()"),
                *([("/home/dev/exp.py", 61, "sync_stats", "dist.broadcast(stats, src=3)"),
                   (f"{era.site}/torch/distributed/c10d_logger.py", 83, "wrapper", "return func(*args, **kwargs)"),
                   (f"{era.site}/torch/distributed/distributed_c10d.py", 2417, "broadcast",
                    "work = group.broadcast([tensor], opts)")] if r == 3 else
                  [(f"{era.site}/torch/_tensor.py", 581, "backward", "torch.autograd.backward("),
                   (f"{era.site}/torch/autograd/__init__.py", 347, "backward", "_engine_run_backward("),
                   (f"{era.site}/torch/autograd/graph.py", 825, "_engine_run_backward",
                    "return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward "
                    "pass")]),
            ]),
            msg,
        ])
        exits.append(Exit(s.p, tt + 0.4, 1))
    ag = Agent(sc, "dev-gpu-2/launcher.log", node, era, "exp.py")
    ag.banner(0.5)
    ag.teardown(exits, alive=[], poll=0.1)
    return expect(
        "One node, 4 ranks, TORCH_DISTRIBUTED_DEBUG=DETAIL. At collective SequenceNumber=12 ranks 0, 1 and 2 run "
        "ALLREDUCE but rank 3 runs BROADCAST (a rank-conditional dist.broadcast). All four raise 'Detected mismatch "
        "between collectives on ranks' within 10 ms, rank 0 first; ranks 0-2 each name Rank 3 as the other side and "
        "rank 3 names Rank 0. The initiator is the odd one out by majority: rank 3; the other three are collateral.",
        [incident("collective_mismatch", rank=3, node="dev-gpu-2", collateral=[0, 1, 2], drain=False)])


# 15 ----------------------------------------------------------------------------------------
def sc_nic_down(sc: Sc) -> dict[str, Any]:
    era = E24_NCCL219
    nodes = sc.nodes(["node01", "node02"], DGX_H100, ips=["10.0.0.11", "10.0.0.12"])
    procs = sc.procs(nodes, 8)
    comm = make_comm(sc, procs)
    streams = [Stream(sc, f"{p.node.name}/rank_{p.rank}.log", p, era) for p in procs]
    t_train = std_run_start(sc, streams, comm, "mixtral-8x7b pretrain (EP=8)")
    last = 3340
    sch = schedule(sc.rng, t_train, 1, last, 1104.0)
    for s in streams:
        train(s, "plain", sch, 1, last, 20, 200_000)
    t_down = sch.at(last) + 0.62
    kd = Kernel(sc, "node02/dmesg.log", nodes[1], "dmesg_T")
    kd.boot(["mlx5_core 0000:c1:00.0: firmware version: 28.39.1002",
             "mlx5_core 0000:c1:00.0: Rate limit: 127 rates are supported, range: 0Mbps to 97656Mbps"])
    kd.add(t_down, "mlx5_core 0000:c1:00.0: Port module event: module 0, Cable unplugged", 3)
    kd.add(t_down + 0.004, "mlx5_core 0000:c1:00.0 ib3: Link down", 3)
    kd.add(t_down + 143.0, "mlx5_core 0000:c1:00.0: Port module event: module 0, Cable plugged", 6)
    kd.add(t_down + 144.1, "mlx5_core 0000:c1:00.0 ib3: Link up", 6)
    kd.flush()
    k1 = Kernel(sc, "node01/dmesg.log", nodes[0], "dmesg_T")
    k1.boot()
    k1.flush()
    ib12 = "NET/IB : Got completion from peer 10.0.0.11<{port}> with error 12, opcode 48, len 32764, vendor err 129"
    first_ib = {11: 30.91, 14: 31.12}
    exits: dict[str, list[Exit]] = {"node01": [], "node02": []}
    for r, dt in first_ib.items():
        s = streams[r]
        line = ib12.format(port=47534 + r)
        s.nccl_warn(t_down + dt, "transport/net_ib.cc:1696", line)
        remote_error(s, t_down + dt + 0.05, [line])
        exits["node02"].append(Exit(s.p, t_down + dt + 0.35, -6))
    s3 = streams[3]
    flush = "NET/IB : Got completion from peer 10.0.0.12<47545> with error 5, opcode 32567, len 0, vendor err 249"
    s3.nccl_warn(t_down + 31.6, "transport/net_ib.cc:1696", flush)
    remote_error(s3, t_down + 31.65, [flush])
    exits["node01"].append(Exit(s3.p, t_down + 31.9, -6))
    for s in streams:
        p = s.p
        if p.rank in first_ib or p.rank == 3:
            continue
        if p.node is nodes[1]:
            conn_closed(s, t_down + 31.3, 3)
        else:
            tt = t_down + 31.8 + sc.rng.uniform(0.1, 0.9)
            remote_error(s, tt)
            exits["node01"].append(Exit(p, tt + 0.3, -6))
    for node in nodes:
        ag = Agent(sc, f"{node.name}/launcher.log", node, era)
        ag.banner(0.5)
        mine = [p for p in procs if p.node is node]
        ex = exits[node.name]
        dead = {e.proc.rank for e in ex}
        ag.teardown(ex, alive=[p for p in mine if p.rank not in dead])
    return expect(
        "2 nodes x 8. node02's dmesg -T shows 'mlx5_core 0000:c1:00.0: Port module event: module 0, Cable unplugged' "
        "and 'ib3: Link down' (a NIC, not a GPU); ~31 s later (IB retries exhausted) rank 11 on node02 is the first to "
        "log 'NET/IB : Got completion from peer 10.0.0.11<...> with error 12' (then rank 14). Rank 3 on node01 logs the "
        "follow-on error 5 (flush), the other ranks get ncclRemoteError or are SIGTERMed. The link flaps back up "
        "later. Network failure on node02: drain node02.",
        [incident("network", rank=11, node="node02", include=[0, 1, 2, 4, 5, 6, 7], drain=True)])


# 16 ----------------------------------------------------------------------------------------
def sc_unknown(sc: Sc) -> dict[str, Any]:
    era = E22
    (node,) = sc.nodes(["gpu-node-30"], DGX_A100)
    procs = sc.procs([node], 4)
    comm = make_comm(sc, procs)
    streams = [Stream(sc, f"gpu-node-30/rank_{p.rank}.log", p, era) for p in procs]
    t_train = std_run_start(sc, streams, comm, "t5-xl finetune")
    last = 1103
    sch = schedule(sc.rng, t_train, 1, last, 1020.0)
    for s in streams:
        train(s, "plain", sch, 1, last, 10, 10_000, jitter_ms=0.0)
    t_enq = sch.at(last) + 0.5
    exits = []
    for s in streams:
        ran = 600_041
        watchdog_timeout(s, t_enq + ran / 1000.0, 2207, 2207, 2206, ran_ms=ran)
        exits.append(Exit(s.p, t_enq + ran / 1000.0 + 0.2, -6))
    ag = Agent(sc, "gpu-node-30/launcher.log", node, era)
    ag.banner(0.5)
    ag.teardown(exits, alive=[], poll=5.0)
    return expect(
        "One node, 4 ranks (torch 2.2: watchdog lines carry no time stamp). All ranks print their last step (1100) at "
        "the same millisecond, then the identical watchdog timeout (ALLREDUCE SeqNum 2207, last completed 2206) and "
        "abort together; no kernel log, no exception. Nothing singles a rank out (torchrun's 'root cause' is just the "
        "first exit it saw): cause unknown, initiator rank null.",
        [incident("unknown", rank=None, drain=False, omit_node=True)])


# 17 ----------------------------------------------------------------------------------------
def sc_straggler(sc: Sc) -> dict[str, Any]:
    era = E25
    (node,) = sc.nodes(["node01"], DGX_H100)
    procs = sc.procs([node], 8)
    comm = make_comm(sc, procs)
    bad = procs[5]
    streams = [Stream(sc, f"node01/rank_{p.rank}.log", p, era, py="plain") for p in procs]
    t_train = std_run_start(sc, streams, comm, "ddp resnet-152 benchmark run")
    n, slow_from = 1000, 700
    fwd = {p.rank: 200.0 + sc.rng.uniform(-2, 2) for p in procs}
    bwd = {p.rank: 400.0 + sc.rng.uniform(-3, 3) for p in procs}
    t = t_train
    step_end: dict[int, float] = {}
    for k in range(1, n + 1):
        comp = {}
        for p in procs:
            f = fwd[p.rank] * (1 + sc.rng.gauss(0, 0.005))
            b = bwd[p.rank] * (1 + sc.rng.gauss(0, 0.005))
            if p is bad and k >= slow_from:
                f *= 1.25 + sc.rng.gauss(0, 0.01)
                b *= 1.25 + sc.rng.gauss(0, 0.01)
            comp[p.rank] = (f, b, 3.0 + abs(sc.rng.gauss(0, 0.4)))
        step_ms = max(f + b + d for f, b, d in comp.values()) + 195.0 + sc.rng.gauss(0, 2.0)
        t += step_ms / 1000.0
        step_end[k] = t
        for s in streams:
            f, b, d = comp[s.p.rank]
            s.py(t + sc.rng.uniform(0, 0.004), "INFO",
                 f"step {k} | step_ms {step_ms:.1f} | fwd_ms {f:.1f} | bwd_ms {b:.1f} | data_ms {d:.1f}")
    t_end = step_end[n] + 2.0
    for s in streams:
        s.py(t_end, "INFO", f"finished {n} steps; saving final checkpoint")
        s.py(t_end + 4.0, "INFO", "destroy_process_group(); exiting")
    ag = Agent(sc, "node01/launcher.log", node, era)
    ag.banner(0.5)
    # DCGM exporter metrics through Prometheus (range query, 15 s step)
    uuids = {p.rank: sc.uuid() for p in procs}
    t_slow = step_end[slow_from] - 6.0
    series = []
    start_epoch = sc.base.timestamp()
    for name in ("DCGM_FI_DEV_SM_CLOCK", "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS", "DCGM_FI_DEV_GPU_TEMP"):
        for p in procs:
            values = []
            tt = 0.0
            while tt <= t_end + 15.0:
                slow = p is bad and tt >= t_slow
                if name == "DCGM_FI_DEV_SM_CLOCK":
                    v = str(1575 if slow else 1980)
                elif name == "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS":
                    v = str(8 if slow else (1 if tt < t_train else 0))
                else:
                    v = str(round((71 if slow else 58) + sc.rng.uniform(-1.5, 1.5) + p.local * 0.4))
                values.append([round(start_epoch + tt, 3), v])
                tt += 15.0
            series.append({"metric": {"__name__": name, "gpu": str(p.nvml_dev), "UUID": uuids[p.rank],
                                      "pci_bus_id": dcgm_pci(p.pci), "device": f"nvidia{p.nvml_dev}",
                                      "modelName": "NVIDIA H100 80GB HBM3", "Hostname": node.name,
                                      "DCGM_FI_DRIVER_VERSION": "550.90.07", "instance": f"{node.name}:9400",
                                      "job": "dcgm-exporter"},
                           "values": values})
    sc.out.blob("metrics/dcgm.json", json.dumps({"status": "success", "data": {"resultType": "matrix",
                                                                               "result": series}},
                                                separators=(",", ":")) + "\n")
    return expect(
        "One node, a run that does not crash (1000 steps). Every rank prints the same step_ms each step, but from step "
        "700 rank 5's own fwd_ms/bwd_ms are ~25% above its peers' (the others wait for it in the all-reduce). "
        "metrics/dcgm.json (Prometheus range query of the DCGM exporter) shows GPU 5 (00000000:AB:00.0) SM clock "
        "falling from 1980 to 1575 MHz with clock-throttle reason 8 (HW_SLOWDOWN) from then on: hardware evidence, so "
        "drain.",
        [incident("straggler", rank=5, node="node01", gpu="0000:ab:00", drain=True)])


# 18 ----------------------------------------------------------------------------------------
def sc_healthy_scary(sc: Sc) -> dict[str, Any]:
    era = E25
    (node,) = sc.nodes(["gpu-node-5"], DGX_H100, ips=["10.1.4.5"])
    procs = sc.procs([node], 8)
    comm = make_comm(sc, procs, net="Socket")
    streams = [Stream(sc, f"gpu-node-5/rank_{p.rank}.log", p, era, py="hf", logger="run_clm.py:412") for p in procs]
    t_train = std_run_start(sc, streams, comm, "gpt2-xl continued pretraining", no_ib_warn=True)
    total = 1500
    sch = schedule(sc.rng, t_train, 1, total, 540.0)
    site = era.site
    for s in streams:
        r = s.p.rank
        s.raw(t_train - 5.0, f"{site}/torch/utils/checkpoint.py:1399: UserWarning: torch.utils.checkpoint: the "
                             "use_reentrant parameter should be passed explicitly. In version 2.5 we will raise an "
                             "exception if use_reentrant is not passed. use_reentrant=False is recommended, but if you "
                             "need to preserve the current default behavior, you can pass use_reentrant=True. Refer to "
                             "docs for more details on the differences between the two variants.",
              "  return CheckpointFunction.apply(function, preserve, *args)")
        s.c10d(t_train + 2.0 + sc.rng.uniform(0.0, 0.3), "W", "reducer.cpp:1400", "Warning: find_unused_parameters=True was specified in DDP "
               "constructor, but did not find any unused parameters in the forward pass. This flag results in an extra "
               "traversal of the autograd graph every iteration,  which can adversely affect performance. If your "
               "model indeed never has any unused parameters in the forward pass, consider turning this flag off. Note "
               "that this warning may be a false positive if your model has flow control causing later iterations to "
               "have unused parameters. (function operator())")
        train(s, "hf", sch, 1, total, 10, total)
        for k in (37, 38, 412):
            s.py(sch.at(k), "WARNING", f"Gradient overflow. Skipping step, loss scaler 0 reducing loss scale to "
                                       f"{65536 // (2 ** (k % 3 + 1))}", "loss_scaler.py:183")
        s.py(sch.at(903), "WARNING", "Grad norm is nan, skipping step 903", "run_clm.py:288")
        if r == 0:
            s.py(sch.at(500) + 1.0, "INFO", "Saving model checkpoint to /ckpt/gpt2-xl/checkpoint-500", "trainer.py:3705")
            s.py(sch.at(1000) + 1.0, "INFO", "Saving model checkpoint to /ckpt/gpt2-xl/checkpoint-1000",
                 "trainer.py:3705")
        t_end = sch.at(total) + 1.5
        s.raw(t_end, "", "", "Training completed. Do not forget to share your model on huggingface.co/models =)", "", "")
        if r == 0:
            s.raw(t_end, "{'train_runtime': %.4f, 'train_samples_per_second': 59.12, 'train_steps_per_second': 1.848, "
                         "'train_loss': 2.4518, 'epoch': 3.0}" % (t_end - t_train))
    kd = Kernel(sc, "gpu-node-5/dmesg.log", node, "dmesg")
    kd.boot()
    kd.add(sch.at(300), "pcieport 0000:17:01.0: AER: Corrected error received: 0000:18:00.0", 4)
    kd.add(sch.at(300), "nvidia 0000:18:00.0: PCIe Bus Error: severity=Corrected, type=Data Link Layer, "
           "(Transmitter ID)", 4)
    kd.add(sch.at(300), "nvidia 0000:18:00.0:   device [10de:2330] error status/mask=00001000/0000e000", 4)
    kd.add(sch.at(300), "nvidia 0000:18:00.0:    [12] Timeout", 4)
    p1 = procs[1]
    for line in gpu_id_lines(sc, p1.pci):
        kd.add(sch.at(777), line)
    kd.add(sch.at(777), xid(p1.pci, 63, "Row Remapper: New row (0x00000000a7f32c80) marked for remapping, reset gpu to "
                                        "activate.", pid=p1.pid))
    kd.flush()
    ag = Agent(sc, "gpu-node-5/launcher.log", node, era, "run_clm.py")
    ag.banner(0.5)
    return expect(
        "A healthy run (exits 0) full of scary lines: 'NCCL WARN NET/IB : No device found.' then the socket transport, "
        "UserWarnings, a c10d [W...] DDP warning, 'Gradient overflow. Skipping step', 'Grad norm is nan, skipping "
        "step', a corrected PCIe AER error on GPU 0000:18:00, and Xid 63 (row remap pending, no DBE) on GPU "
        "0000:2a:00. None of it is a failure: no incident.",
        [])


# 19 ----------------------------------------------------------------------------------------
def sc_healthy_ckpt(sc: Sc) -> dict[str, Any]:
    era = E24
    nodes = sc.nodes(["hgx-017", "hgx-018"], DGX_H100)
    procs = sc.procs(nodes, 8)
    comm = make_comm(sc, procs)
    streams = [Stream(sc, f"{p.node.name}/rank_{p.rank}.log", p, era, py="bracket") for p in procs]
    t_train = std_run_start(sc, streams, comm, "gpt-3b (Megatron-LM core_r0.8.0)")
    total, every = 3000, 20
    step_ms = 1190.0

    def pause(k: int) -> float:
        if k % 1000 == 0:
            return 10 * step_ms / 1000.0 + 25.0
        if k % 500 == 0:
            return 10 * step_ms / 1000.0
        return 0.0

    sch = schedule(sc.rng, t_train, 1, total, step_ms)
    # the pause after step k delays step k+1: shift every later end
    shift = 0.0
    for k in range(1, total + 1):
        sch.ends[k] += shift
        shift += pause(k)
    for s in streams:
        train(s, "megatron", sch, 1, total, every, total)
        for k in range(500, total + 1, 500):
            t = sch.at(k) + 0.05
            if k % 1000 == 0:
                s.raw(t, "-" * 100, f" validation loss at iteration {k} | lm loss value: {loss_at(sc.rng, k):.6E} | "
                      f"lm loss PPL: {math.exp(loss_at(sc.rng, k)):.6E} | ", "-" * 100)
                t += 25.0
            s.raw(t, f"saving checkpoint at iteration {k:7d} to /lustre/ckpt/gpt-3b in torch_dist format")
            s.raw(t + 10 * step_ms / 1000.0 - 0.2, f"  successfully saved checkpoint from iteration {k:7d} to "
                                                    "/lustre/ckpt/gpt-3b [ t 1/1, p 1/1 ]")
        t_end = sch.at(total) + 10 * step_ms / 1000.0 + 30.0
        s.raw(t_end, f"[after training is done] datetime: {ts_seconds(s.wall(t_end))} ")
    for node in nodes:
        Agent(sc, f"{node.name}/launcher.log", node, era, "pretrain_gpt.py").banner(0.5)
    return expect(
        "A healthy 2-node Megatron run: every 500 iterations a checkpoint save pauses training for ~10 step times, and "
        "every 1000 an evaluation adds ~25 s more (the gaps show in the wall clock, not in 'elapsed time per "
        "iteration'). It finishes normally: no incident.",
        [])


# 20 ----------------------------------------------------------------------------------------
def sc_two_failures(sc: Sc) -> dict[str, Any]:
    era = E27
    nodes = sc.nodes(["node17", "node18"], HGX_B, ips=["10.0.2.17", "10.0.2.18"])
    procs0 = sc.procs(nodes, 8, pin={4: 2024380})
    bad0 = procs0[4]
    procs1 = sc.respawn(procs0)
    run_dir = {"node17": "81234_k2j9x0qa", "node18": "81234_7tq3vz1m"}

    def streams_for(procs: Sequence[Proc], attempt: int) -> tuple[list[Stream], list[Stream]]:
        outs, errs = [], []
        for p in procs:
            d = f"{p.node.name}/{run_dir[p.node.name]}/attempt_{attempt}/{p.local}"
            outs.append(Stream(sc, f"{d}/stdout.log", p, era))
            errs.append(Stream(sc, f"{d}/stderr.log", p, era))
        return outs, errs

    agents = {n.name: Agent(sc, f"{n.name}/agent.log", n, era) for n in nodes}
    for ag in agents.values():
        ag.banner(0.5)
    # attempt 0: Xid 119 (GSP RPC timeout) on node17 GPU 4
    out0, err0 = streams_for(procs0, 0)
    comm0 = make_comm(sc, procs0)
    for o, e in zip(out0, err0, strict=True):
        startup(e, 2.0 + sc.rng.uniform(0, 0.4), "llama-13b pretrain (max_restarts=1)")
        nccl_init(o, 8.0 + sc.rng.uniform(0, 0.2), comm0)
    last0 = 1977
    sch0 = schedule(sc.rng, 45.0, 1, last0, 1210.0)
    for o in out0:
        train(o, "stdout_iso", sch0, 1, last0, 10, 40_000)
    t1 = sch0.at(last0) + 0.64
    km = Kernel(sc, "node17/kmsg.txt", nodes[0], "kmsg", driver="570.133.20")
    km.boot()
    km.add(t1, xid(bad0.pci, 119, "Timeout after 6s of waiting for RPC response from GPU4 GSP! Expected function 103 "
                                  "(GSP_RM_ALLOC) (0x2081 0x4).", pid=bad0.pid), 4)
    km.add(t1 + 0.001, "NVRM: GPU4 GSP RPC buffer contains function 103 (GSP_RM_ALLOC) and data 0x0000000000002081 "
           "0x0000000000000004.", 4)
    km.add(t1 + 0.001, "NVRM: GPU4 RPC history (CPU -> GSP):", 4)
    km.add(t1 + 0.001, "NVRM:     entry function                   data0              data1              ts_start"
           "           ts_end             duration actively_polling", 4)
    km.add(t1 + 0.001, "NVRM:      0    103   GSP_RM_ALLOC       0x0000000000002081 0x0000000000000004 "
           "0x0006236b0c9f44a5 0x0000000000000000          y", 4)
    km.add(t1 + 0.001, "NVRM:     -1    76    GSP_RM_CONTROL     0x000000002080205b 0x0000000000000004 "
           "0x0006236b0c9f4377 0x0006236b0c9f43c4     77us  ", 4)
    km.add(t1 + 6.2, xid(bad0.pci, 154, "GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)",
                         pid=None).replace("pid='<unknown>', name=<unknown>, ", ""), 4)
    # rank 4 hangs in the driver; its heartbeat monitor kills it after 480 s
    eb = err0[4]
    t_hb = t1 + 480.6
    eb.c10d(t_hb, "E", "ProcessGroupNCCL.cpp:1396", f"{era.pgp(4)} ProcessGroupNCCL's watchdog got stuck for 480 "
            "seconds without making progress in monitoring enqueued collectives. This typically indicates a NCCL/CUDA "
            "API (e.g., CudaEvent.query/synchronize) hang blocking the watchdog, and could be triggered by another "
            "thread holding the GIL inside a CUDA api (for example, CudaEvent.elapsed_time(event)), or other "
            "deadlock-prone behaviors.If you suspect the watchdog is not actually stuck and a longer timeout would help, "
            "you can either increase the timeout (TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC) to a larger value or disable the "
            "heartbeat monitor (TORCH_NCCL_ENABLE_MONITORING=0).If either of aforementioned helps, feel free to file an "
            "issue to PyTorch about the short timeout or false positive abort; otherwise, please attempt to debug the "
            "hang. ")
    eb.c10d(t_hb + 10.0, "F", "ProcessGroupNCCL.cpp:1306", f"{era.pgp(4)} {era.pgp(4)} Terminating the process after "
            "attempting to dump debug info, due to ProcessGroupNCCL watchdog hang.")
    t_dead = t_hb + 10.2
    for o in out0[:8]:
        if o.p is not bad0:
            conn_closed(o, t_dead + 0.05, 4)
    agents["node17"].teardown([Exit(bad0, t_dead, -6)], alive=[p for p in procs0[:8] if p is not bad0],
                              restart=(1, 1))
    ex18 = []
    for e in err0[8:]:
        tt = t_dead + 1.0 + sc.rng.uniform(0, 0.4)
        remote_error(e, tt)
        ex18.append(Exit(e.p, tt + 0.2, -6))
    agents["node18"].teardown(ex18, alive=[], restart=(1, 1))
    # attempt 1: starts ~40 s later, runs, then rank 13 runs out of GPU memory
    t_a1 = t_dead + 40.0
    out1, err1 = streams_for(procs1, 1)
    comm1 = make_comm(sc, procs1)
    for o, e in zip(out1, err1, strict=True):
        startup(e, t_a1 + sc.rng.uniform(0, 0.4), "llama-13b pretrain (max_restarts=1)",
                ["resuming from /ckpt/llama-13b/iter_0001500"])
        nccl_init(o, t_a1 + 6.0 + sc.rng.uniform(0, 0.2), comm1)
    last1 = 2384
    sch1 = schedule(sc.rng, t_a1 + 60.0, 1501, last1, 1212.0)
    for o in out1:
        train(o, "stdout_iso", sch1, 1501, last1, 10, 40_000)
    t2 = sch1.at(last1) + 0.71
    e13 = err1[13]
    oom = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.50 GiB. GPU 5 has a total capacity of "
           "79.10 GiB of which 2.87 GiB is free. Including non-PyTorch memory, this process has 76.22 GiB memory in use. "
           "Of the allocated memory 71.64 GiB is allocated by PyTorch, and 3.05 GiB is reserved by PyTorch but "
           "unallocated. If reserved but unallocated memory is large try setting "
           "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory "
           "Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)")
    frames = user_frames(e13, "pretrain.py", [
        ("/job/pretrain.py", 311, "<module>", "main()"),
        (f"{era.site}/torch/distributed/elastic/multiprocessing/errors/__init__.py", 355, "wrapper",
         "return f(*args, **kwargs)"),
        ("/job/pretrain.py", 290, "main", "loss = model(batch).loss"),
        *MODULE_CALL,
        ("/job/modeling.py", 412, "forward", "logits = self.lm_head(hidden).float()"),
    ])
    e13.py(t2, "ERROR", "iteration 2385 failed")
    e13.tb(t2, [*frames, oom])
    pg_not_destroyed(e13, t2 + 0.4)
    sc.out.blob(f"node18/{run_dir['node18']}/attempt_1/5/error.json", json.dumps({
        "message": {"message": "OutOfMemoryError: " + oom.split(": ", 1)[1],
                    "extraInfo": {"py_callstack": "\n".join(frames) + "\n" + oom + "\n",
                                  "timestamp": str(int(sc.wall(nodes[1], t2).timestamp()))}}}, indent=4) + "\n")
    for o in out1[8:]:
        if o.p.rank != 13:
            conn_closed(o, t2 + 0.7, 5)
    agents["node18"].teardown([Exit(procs1[13], t2 + 0.6, 1)], alive=[p for p in procs1[8:] if p.rank != 13])
    ex17 = []
    for e in err1[:8]:
        tt = t2 + 1.4 + sc.rng.uniform(0, 0.4)
        remote_error(e, tt)
        ex17.append(Exit(e.p, tt + 0.2, -6))
    agents["node17"].teardown(ex17, alive=[])
    km.flush()
    return expect(
        "torchrun --log-dir trees for 2 nodes (node17/, node18/ each with <run_id>/attempt_N/<local_rank>/"
        "{stdout,stderr}.log), max_restarts=1. Attempt 0: node17's kmsg.txt (raw /dev/kmsg records) shows Xid 119 "
        "(GSP RPC timeout) on PCI 0000:9b:00 with pid=2024380 = rank 4, then Xid 154 (GPU Reset Required); rank 4 "
        "hangs until its heartbeat monitor aborts it (watchdog hang), the rest are SIGTERMed or see ncclRemoteError. "
        "Attempt 1 resumes and ~18 min later rank 13 (node18, local 5) hits torch.OutOfMemoryError (also in its "
        "error.json). Two incidents, the hardware one first.",
        [incident("gpu_hardware", rank=4, node="node17", gpu="0000:9b:00", collateral=others(procs0, 4), drain=True),
         incident("cuda_oom", rank=13, node="node18", collateral=others(procs1, 13), drain=False)],
        allow_more_incidents=False)


# 21 ----------------------------------------------------------------------------------------
def sc_sbatch_abort(sc: Sc) -> dict[str, Any]:
    era = E24
    nodes = sc.nodes([f"a100-node{i:02d}" for i in range(1, 5)], DGX_A100)
    procs = sc.procs(nodes, 8)
    comm = make_comm(sc, procs)
    bad = procs[19]
    streams = [Stream(sc, f"job-90417-{p.rank}.out", p, era, py="bracket") for p in procs]
    t_train = std_run_start(sc, streams, comm, "tokenize-on-the-fly pretrain (srun --output=job-%j-%t.out)")
    last = 1644
    sch = schedule(sc.rng, t_train, 1, last, 905.0)
    for s in streams:
        train(s, "plain", sch, 1, last, 20, 100_000)
    t_fail = sch.at(last) + 0.37
    sb = streams[19]
    sb.py(t_fail - 0.11, "INFO", "opening shard /data/web/shard-00731.jsonl.zst (1.2 GiB)", "data")
    sb.raw(t_fail, "terminate called after throwing an instance of 'std::bad_alloc'", "  what():  std::bad_alloc",
           "Fatal Python error: Aborted", "",
           "Thread 0x00007fa1e2ffd640 (most recent call first):",
           '  File "/opt/tok/fast_tokenize.py", line 88 in encode_batch',
           '  File "/opt/job/data.py", line 142 in _fill_buffer',
           '  File "/usr/lib/python3.10/threading.py", line 953 in run',
           '  File "/usr/lib/python3.10/threading.py", line 1016 in _bootstrap_inner',
           '  File "/usr/lib/python3.10/threading.py", line 973 in _bootstrap', "",
           "Current thread 0x00007fa2f1e4b740 (most recent call first):",
           '  File "/opt/job/train.py", line 233 in train_step',
           '  File "/opt/job/train.py", line 301 in main',
           '  File "/opt/job/train.py", line 320 in <module>', "",
           "Extension modules: numpy.core._multiarray_umath, torch._C, torch._C._nn, zstandard.backend_c, "
           "fast_tokenize_ext (total: 17)")
    for s in streams[16:24]:
        if s.p is not bad:
            conn_closed(s, t_fail + 0.08, bad.local)
    seq = 2 * last + 9
    for s in streams:
        if s.p is bad:
            continue
        ran = 600_000 + sc.rng.randint(20, 900)
        watchdog_timeout(s, t_fail + 0.3 + ran / 1000.0, seq + 1, seq + 1, seq, ran_ms=ran)
    path = "slurm-90417.out"
    sc.out.add(path, 1.0, ["+ srun --ntasks-per-node=8 --gpus-per-task=1 --output=job-%j-%t.out python train.py"])
    sc.out.add(path, t_fail + 0.2, ["srun: error: a100-node03: task 19: Aborted (core dumped)"])
    t_ab = t_fail + 0.3 + 601.2
    sc.out.add(path, t_ab, ["srun: error: a100-node01: tasks 0-7: Aborted (core dumped)",
                            "srun: error: a100-node02: tasks 8-15: Aborted (core dumped)",
                            "srun: error: a100-node04: tasks 24-31: Aborted (core dumped)",
                            "srun: error: a100-node03: tasks 16-18,20-23: Aborted (core dumped)"])
    return expect(
        "32 ranks on 4 nodes, one file per task (job-90417-<rank>.out, from srun --output=job-%j-%t.out) plus the batch "
        "output slurm-90417.out. Rank 19 (a100-node03) aborts with \"terminate called after throwing an instance of "
        "'std::bad_alloc'\" / 'Fatal Python error: Aborted' and srun reports 'task 19: Aborted (core dumped)'. Its "
        "node-mates print 'Connection closed by localRank 3'; every other rank hits the watchdog timeout ~600 s later "
        "and also aborts (the later 'Aborted' lines are watchdog aborts, collateral). No hardware evidence.",
        [incident("crash_signal", rank=19, node="a100-node03", collateral=others(procs, 19), drain=False)])


# 22 ----------------------------------------------------------------------------------------
def sc_device_assert(sc: Sc) -> dict[str, Any]:
    era = E24
    (node,) = sc.nodes(["ws-gpu-3"], WS_4GPU)
    procs = sc.procs([node], 2)
    comm = make_comm(sc, procs, net="Socket")
    bad = procs[1]
    streams = [Stream(sc, f"ws-gpu-3/rank_{p.rank}.log", p, era) for p in procs]
    t_train = std_run_start(sc, streams, comm, "token classifier finetune (2 GPUs)")
    last = 2718
    sch = schedule(sc.rng, t_train, 1, last, 212.0)
    for s in streams:
        train(s, "plain", sch, 1, last, 50, 6_000)
    t_fail = sch.at(last) + 0.09
    sb = streams[1]
    asserts = []
    for i in range(6):
        asserts.append(f"/pytorch/aten/src/ATen/native/cuda/IndexKernel.cu:93: operator(): block: [{61 + i // 3},0,0], "
                       f"thread: [{32 * (i % 3) + 64},0,0] Assertion `-sizes[i] <= index && index < sizes[i] && "
                       "\"index out of bounds\"` failed.")
    sb.raw(t_fail, *asserts)
    sb.py(t_fail + 0.02, "ERROR", "batch 2719 failed (labels max=9, num_labels=9)")
    sb.tb(t_fail + 0.02, [
        *user_frames(sb, "finetune.py", [
            ("/home/nlp/finetune.py", 201, "<module>", "main()"),
            ("/home/nlp/finetune.py", 177, "main", "total += loss.item()"),
        ]),
        *["RuntimeError: " + x if i == 0 else x for i, x in enumerate(cuda_error_tail("device-side assert triggered"))],
    ])
    pg_not_destroyed(sb, t_fail + 0.3)
    kl = Kernel(sc, "ws-gpu-3/kern.log", node, "syslog")
    kl.boot()
    kl.add(t_fail + 0.001, xid(bad.pci, 43, "Ch 00000018", pid=bad.pid, name="python"))
    kl.flush()
    conn_closed(streams[0], t_fail + 0.5, bad.local)
    ag = Agent(sc, "ws-gpu-3/launcher.log", node, era, "finetune.py")
    ag.banner(0.5)
    ag.teardown([Exit(bad, t_fail + 0.45, 1)], alive=[procs[0]])
    return expect(
        "One workstation, 2 ranks. Rank 1 prints six 'IndexKernel.cu:93 ... Assertion ... index out of bounds failed' "
        "lines, then 'RuntimeError: CUDA error: device-side assert triggered' (a label outside the class range), and the "
        "kernel log has Xid 43 for PCI 0000:41:00 with rank 1's pid. Xid 43 is an application fault: fix the code, do "
        "not drain. Rank 0 sees 'Connection closed by localRank 1' and is SIGTERMed.",
        [incident("illegal_memory_access", rank=1, node="ws-gpu-3", gpu="0000:41:00", collateral=[0], drain=False)])


SCENARIOS: list[Scenario] = [
    Scenario("xid79_fallen_off_bus_16r", datetime(2026, 11, 14, 8, 0, 0, tzinfo=UTC), sc_xid79),
    Scenario("xid48_ecc_dbe_8r", datetime(2026, 11, 29, 11, 20, 0, tzinfo=UTC), sc_xid48),
    Scenario("xid74_nvlink_8r", datetime(2026, 11, 8, 19, 0, 0, tzinfo=UTC), sc_xid74),
    Scenario("xid31_app_fault_nodrain_4r", datetime(2026, 11, 5, 14, 0, 0, tzinfo=UTC), sc_xid31),
    Scenario("cuda_oom_8r", datetime(2026, 11, 3, 9, 0, 0, tzinfo=UTC), sc_cuda_oom),
    Scenario("python_exception_combined_4r", datetime(2026, 11, 10, 16, 0, 0, tzinfo=UTC), sc_python_exception_combined),
    Scenario("host_oom_kill_8r", datetime(2026, 11, 17, 2, 0, 0, tzinfo=UTC), sc_host_oom),
    Scenario("sigsegv_crash_4r", datetime(2026, 11, 21, 13, 0, 0, tzinfo=UTC), sc_sigsegv),
    Scenario("preemption_slurm_16r", datetime(2026, 11, 20, 2, 40, 0, tzinfo=UTC), sc_preemption),
    Scenario("hang_silent_rank_8r", datetime(2026, 11, 12, 22, 0, 0, tzinfo=UTC), sc_hang_silent),
    Scenario("hang_lowest_seq_128r", datetime(2026, 11, 25, 4, 0, 0, tzinfo=UTC), sc_hang_lowest_seq),
    Scenario("collateral_first_skew_8r", datetime(2026, 12, 3, 10, 0, 0, tzinfo=UTC), sc_skew),
    Scenario("data_loader_stall_4r", datetime(2026, 11, 27, 7, 0, 0, tzinfo=UTC), sc_dataloader),
    Scenario("collective_mismatch_4r", datetime(2026, 11, 16, 15, 0, 0, tzinfo=UTC), sc_mismatch),
    Scenario("network_nic_down_16r", datetime(2026, 11, 19, 21, 0, 0, tzinfo=UTC), sc_nic_down),
    Scenario("unknown_all_timeout_4r", datetime(2026, 11, 26, 18, 0, 0, tzinfo=UTC), sc_unknown),
    Scenario("straggler_rank_local_timings_8r", datetime(2026, 11, 22, 10, 0, 0, tzinfo=UTC), sc_straggler),
    Scenario("healthy_scary_warnings_8r", datetime(2026, 11, 30, 6, 0, 0, tzinfo=UTC), sc_healthy_scary),
    Scenario("healthy_with_checkpoint_pauses_16r", datetime(2026, 11, 23, 0, 0, 0, tzinfo=UTC), sc_healthy_ckpt),
    Scenario("two_failures_xid119_and_oom_16r", datetime(2026, 11, 18, 3, 0, 0, tzinfo=UTC), sc_two_failures),
    Scenario("sbatch_out_named_ranks_32r", datetime(2026, 11, 26, 9, 0, 0, tzinfo=UTC), sc_sbatch_abort),
    Scenario("xid43_device_assert_2r", datetime(2026, 11, 28, 20, 0, 0, tzinfo=UTC), sc_device_assert),
]


# --------------------------------------------------------------------------------------------
# driver
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Made:
    name: str
    ranks: int
    files: int
    size: int
    expected: dict[str, Any]


def make(scenario: Scenario, out_root: Path) -> Made:
    if scenario.name.startswith("torchrun_"):
        raise ValueError(f"{scenario.name}: torchrun_* folders belong to gen_torchrun_scenarios.py")
    sc = Sc(scenario.name, scenario.base)
    expected = scenario.build(sc)
    folder = out_root / scenario.name
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    files = sc.out.write(folder)
    (folder / "expected.json").write_text(dump_expected(expected), encoding="utf-8")
    size = sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())
    if size > MAX_SCENARIO_BYTES:
        raise SystemExit(f"{scenario.name}: {size} bytes, over the {MAX_SCENARIO_BYTES} byte budget")
    ranks = int(scenario.name.rsplit("_", 1)[1].rstrip("r"))
    return Made(scenario.name, ranks, len(files), size, expected)


def dump_expected(expected: dict[str, Any]) -> str:
    """JSON with two-space indents, but each list of ranks on one line."""
    text = json.dumps(expected, indent=2)
    text = re.sub(r"\[\s*(-?\d+(?:,\s*-?\d+)*)\s*\]", lambda m: "[" + ", ".join(m[1].split()).replace(",,", ",") + "]",
                  text)
    return text + "\n"


def describe(inc: dict[str, Any]) -> str:
    ini = inc.get("initiator", {})
    rank = ini.get("rank")
    return f"{inc['cause']} / rank {'null' if rank is None else rank} / {ini.get('node') or '-'}"


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=REPO / "replay_logs")
    ap.add_argument("--only", nargs="*", default=None, help="scenario names to (re)write")
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args(argv)
    known = {s.name for s in SCENARIOS}
    if args.only:
        unknown = sorted(set(args.only) - known)
        if unknown:
            ap.error(f"unknown scenario(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}")
    chosen = [s for s in SCENARIOS if not args.only or s.name in args.only]
    made = [make(s, args.out) for s in chosen]
    total = sum(m.size for m in made)
    if not args.only and total > MAX_TOTAL_BYTES:
        print(f"warning: {total} bytes in all, over the {MAX_TOTAL_BYTES} byte budget", file=sys.stderr)
    if not args.quiet:
        w = max(len(m.name) for m in made)
        print(f"{'scenario':<{w}}  ranks  files      size  expected (cause / rank / node)")
        for m in made:
            incs = m.expected["incidents"]
            exp = "; ".join(describe(i) for i in incs) if incs else "healthy (no incident)"
            print(f"{m.name:<{w}}  {m.ranks:5d}  {m.files:5d}  {m.size / 1024:7.0f}K  {exp}")
        print(f"{'total':<{w}}  {'':5}  {sum(m.files for m in made):5d}  {total / 1024:7.0f}K")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
