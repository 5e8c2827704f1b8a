#!/usr/bin/env python3
"""Independent generator of synthetic failed distributed-GPU-training runs ("blind2").

It writes one folder per run, ``DIR/run-NNN-<layout>/``, holding the log files a user of that
launcher would actually have (per-node consoles, one interleaved Slurm file, per-task files,
mpirun tagged output, pdsh-prefixed DeepSpeed output, Kubernetes pod logs, a Ray driver log, a
partial issue paste, kernel logs) and a ``truth.json`` naming the injected cause and the
initiating rank/node.

How it works: a run is a simulated job on 1-8 nodes (2-64 ranks) with a randomly drawn
software era (PyTorch 2.1/2.3/2.5/2.7 message formats), launcher, clock skew per node and
noise (tqdm carriage returns, ANSI colour, warnings, HF Trainer dicts, NCCL INFO dumps, W&B,
DeepSpeed config dumps, very long lines).  Every log line is first produced as an event with a
true time, a node and (when it comes from a worker) a rank; the failure scenario injects the
initiator's own error, then the collateral cascade (watchdog timeouts, remote-peer errors,
launcher teardown, kernel Xid / OOM-killer / NIC lines).  A launcher model then decides which
ranks the agent or scheduler kills and when, drops lines a dead process could not have
printed, and renders the events into the layout's files with its prefixes.  Message wording
follows real PyTorch, NCCL, torchelastic, DeepSpeed, Slurm, Open MPI, Ray, Lightning,
Kubernetes and Linux kernel output.

Usage: ``python3 gen_blind2.py --out DIR --n 60 --seed 1``.  Standard library only and
deterministic: the same ``--seed`` writes the same bytes.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import os
import random
from dataclasses import dataclass

CAUSES = [
    "gpu_hardware",
    "ecc_memory",
    "nvlink",
    "network",
    "host_oom_kill",
    "cuda_oom",
    "python_exception",
    "crash_signal",
    "hang",
    "collective_mismatch",
    "data_loader_stall",
    "preemption",
    "straggler",
]
LAYOUTS = [
    "torchrun_console",
    "torchrun_tee",
    "srun_label",
    "sbatch_per_task",
    "mpirun_tag",
    "mpirun_timestamp",
    "deepspeed_pdsh",
    "accelerate",
    "lightning_slurm",
    "k8s_pytorchjob",
    "ray_train",
    "issue_paste",
]
FAMILY = {
    "torchrun_console": "elastic",
    "torchrun_tee": "elastic",
    "accelerate": "elastic",
    "k8s_pytorchjob": "elastic",
    "issue_paste": "elastic",
    "srun_label": "srun",
    "sbatch_per_task": "srun",
    "lightning_slurm": "srun",
    "mpirun_tag": "mpirun",
    "mpirun_timestamp": "mpirun",
    "deepspeed_pdsh": "ds",
    "ray_train": "ray",
}
ERAS = {
    "A": {"torch": "2.1.2", "nccl": "2.18.1", "cuda": "12.1", "timeout": 1800000, "py": "3.10"},
    "B": {"torch": "2.3.1", "nccl": "2.20.5", "cuda": "12.1", "timeout": 600000, "py": "3.10"},
    "C": {"torch": "2.5.1", "nccl": "2.21.5", "cuda": "12.4", "timeout": 600000, "py": "3.11"},
    "D": {"torch": "2.7.1", "nccl": "2.26.2", "cuda": "12.8", "timeout": 600000, "py": "3.12"},
}
GPU_MODELS = [
    ("NVIDIA H100 80GB HBM3", "79.11 GiB", 80),
    ("NVIDIA H200", "139.72 GiB", 141),
    ("NVIDIA A100-SXM4-80GB", "79.15 GiB", 80),
    ("NVIDIA A100-SXM4-40GB", "39.39 GiB", 40),
]
BUS_SETS = [
    ["0000:18:00", "0000:2a:00", "0000:3a:00", "0000:5d:00",
     "0000:9a:00", "0000:ab:00", "0000:ba:00", "0000:db:00"],
    ["0000:1b:00", "0000:43:00", "0000:52:00", "0000:61:00",
     "0000:9d:00", "0000:c3:00", "0000:d1:00", "0000:df:00"],
    ["0000:07:00", "0000:0f:00", "0000:47:00", "0000:4e:00",
     "0000:87:00", "0000:90:00", "0000:b7:00", "0000:bd:00"],
    ["0000:19:00", "0000:3b:00", "0000:4c:00", "0000:5d:00",
     "0000:9b:00", "0000:bb:00", "0000:cb:00", "0000:db:00"],
]
NIC_BUS = ["0000:0c:00.0", "0000:4c:00.0", "0000:8b:00.0", "0000:c9:00.0"]
SIG = {
    -6: ("SIGABRT", "Aborted"),
    -9: ("SIGKILL", "Killed"),
    -11: ("SIGSEGV", "Segmentation fault"),
    -7: ("SIGBUS", "Bus error"),
    -15: ("SIGTERM", "Terminated"),
}
ADJ = ["fluent", "dainty", "glorious", "vivid", "polished", "autumn", "crimson", "snowy", "misty"]
NOUN = ["sun", "river", "forest", "meadow", "firefly", "night", "wave", "cloud", "galaxy"]
UTC = dt.UTC
MODEL_CLASS = {"llama": "LlamaForCausalLM", "gpt": "GPT2LMHeadModel", "mistral": "MistralForCausalLM",
               "vit": "ViTForImageClassification", "t5": "T5ForConditionalGeneration"}


# ----------------------------------------------------------------------------- time formats
def _d(t: float) -> dt.datetime:
    return dt.datetime.fromtimestamp(t, UTC)


def _frac(t: float) -> float:
    return t - math.floor(t)


def f_py(t: float) -> str:
    """Python logging asctime: 2025-03-04 12:00:01,234."""
    return _d(t).strftime("%Y-%m-%d %H:%M:%S,") + f"{int(_frac(t) * 1000):03d}"


def f_sec(t: float) -> str:
    return _d(t).strftime("%Y-%m-%d %H:%M:%S")


def f_iso(t: float) -> str:
    return _d(t).strftime("%Y-%m-%dT%H:%M:%S")


def f_glog(t: float, level: str) -> str:
    """c10 glog style used by PyTorch >= 2.4: E0304 12:00:01.123456789."""
    return f"{level}{_d(t):%m%d %H:%M:%S}.{int(_frac(t) * 1e9):09d}"


def f_elastic_w(t: float, level: str) -> str:
    """torchelastic >= 2.4 logger: W0304 12:00:01.123000."""
    return f"{level}{_d(t):%m%d %H:%M:%S}.{int(_frac(t) * 1000):03d}000"


def f_ctime(t: float) -> str:
    d = _d(t)
    return d.strftime("%a %b ") + f"{d.day:2d}" + d.strftime(" %H:%M:%S %Y")


def f_syslog(t: float) -> str:
    d = _d(t)
    return d.strftime("%b ") + f"{d.day:2d}" + d.strftime(" %H:%M:%S")


def f_journal(t: float) -> str:
    return _d(t).strftime("%b %d %H:%M:%S")


def f_hms(sec: float) -> str:
    sec = int(sec)
    h, rem = divmod(sec, 3600)
    m, s = divmod(rem, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m:02d}:{s:02d}"


def nccl_busid(bus: str) -> str:
    """'0000:1b:00' -> '1b000' (NCCL prints the PCI id digits as one hex number)."""
    return format(int(bus.replace(":", "") + "0", 16), "x")


def short(name: str) -> str:
    """Short host name (a.b.c -> a); IP addresses stay whole."""
    return name if name.replace(".", "").isdigit() else name.split(".")[0]


def ranges(nums: list[int]) -> str:
    """[0,1,2,5] -> '0-2,5' (Slurm style task lists)."""
    nums = sorted(nums)
    out = []
    i = 0
    while i < len(nums):
        j = i
        while j + 1 < len(nums) and nums[j + 1] == nums[j] + 1:
            j += 1
        out.append(str(nums[i]) if i == j else f"{nums[i]}-{nums[j]}")
        i = j + 1
    return ",".join(out)


# ----------------------------------------------------------------------------- events
@dataclass
class Line:
    t: float
    seq: int
    node: int
    rank: int | None
    src: str  # "rank" | "agent" | "launcher"
    text: str
    stream: str = "stderr"
    noise: bool = False


@dataclass
class KLine:
    t: float
    seq: int
    node: int
    text: str
    prio: int = 3


@dataclass
class Exit:
    t: float
    code: int  # 1 exception, 0 ok, negative signal
    own: bool = True  # the rank's own failure (vs. killed by the launcher)


class Ctx:
    """Everything about one simulated run: topology, era, clocks, events and the truth."""

    def __init__(self, rng: random.Random, idx: int, layout: str, cause: str | None):
        self.rng = rng
        self.idx = idx
        self.layout = layout
        self.family = FAMILY[layout]
        self.cause = cause
        self.lines: list[Line] = []
        self.klines: list[KLine] = []
        self.extra: dict[str, str] = {}
        self._seq = 0
        self.exits: dict[int, Exit] = {}
        self.notes = ""
        self.init_rank: int | None = None
        self.init_node: int | None = None
        self.rank_inferable = True
        self.kernel_nodes: set[int] = set()
        self.kernel_style = rng.choice(["dmesg", "dmesg_T", "journal", "syslog", "journal_iso"])
        self.t_job = 0.0
        self.node_fail: tuple[int, float] | None = None
        self.k8s_shutdown: tuple[int, float] | None = None
        self.sigterm_all: float | None = None
        self.sigterm_node: tuple[int, float] | None = None
        self.still_running = False
        self.restart: tuple[int, float] | None = None
        self.healthy_end = 0.0
        self.deaths: dict[int, Exit] = {}
        self.k8s_job = "job"
        self._topology()
        self._software()

    # -- topology -----------------------------------------------------------------------
    def _topology(self) -> None:
        r = self.rng
        lay, cause = self.layout, self.cause
        nn = r.choice([1, 1, 2, 2, 2, 3, 4, 4, 6, 8])
        if lay in ("k8s_pytorchjob", "deepspeed_pdsh", "ray_train"):
            nn = max(2, min(nn, 4))
        if cause in ("network", "preemption", "straggler") and nn < 2:
            nn = 2
        if lay == "issue_paste":
            nn = min(nn, 4)
        gpn = r.choice([2, 4, 8, 8, 8])
        if cause == "nvlink":
            gpn = 8
        while nn * gpn > 64:
            gpn //= 2
        if nn * gpn < 2:
            gpn = 2
        self.nn, self.gpn, self.world = nn, gpn, nn * gpn
        style = r.randrange(9)
        base = r.randint(1, 120)
        rack = r.choice(["a", "b", "c", "r07", "r12"])
        self.aliases: list[list[str]] = [[] for _ in range(nn)]
        names = []
        k = base
        for i in range(nn):
            k += r.choice([1, 1, 1, 2, 3]) if i else 0
            if style == 0:
                names.append(f"gpu-node-{k:03d}")
            elif style == 1:
                names.append(f"node{k:02d}")
            elif style == 2:
                names.append(f"hgx-{rack}-{k:02d}")
            elif style == 3:
                names.append(f"ip-10-{r.randint(0, 3)}-{r.randint(1, 250)}-{r.randint(2, 250)}")
            elif style == 4:
                names.append(f"nid{k + 1000:06d}")
            elif style == 5:
                short = f"c{r.randint(300, 700)}-{k:03d}"
                names.append(f"{short}.hpc.example.edu")
                self.aliases[i].append(short)
            elif style == 6:
                names.append(f"dgx-h200-{k:02d}")
            elif style == 7:
                names.append(f"a3-megagpu-8g-{r.randrange(16 ** 4):04x}")
            else:
                names.append(f"trn-{rack}{k}")
        if lay in ("k8s_pytorchjob", "ray_train"):
            self.aliases = [[] for _ in range(nn)]
        if lay == "k8s_pytorchjob":
            job = r.choice(["llama-ft", "pretrain-7b", "mixtral-sft", "dpo-run", "vit-g"])
            self.k8s_job = job
            pool = r.choice(["gke-a3-pool-", "aks-gpunp-", "ip-10-"])
            names = [f"{job}-master-0"] + [f"{job}-worker-{i}" for i in range(nn - 1)]
            for i in range(nn):
                if pool == "ip-10-":
                    kn = f"ip-10-{r.randint(0, 9)}-{r.randint(1, 250)}-{r.randint(2, 250)}.ec2.internal"
                elif pool == "aks-gpunp-":
                    kn = f"aks-gpunp-{r.randint(10000000, 99999999)}-vmss{r.randrange(36 ** 6):06x}"
                else:
                    kn = f"gke-a3-pool-{r.randrange(16 ** 8):08x}-{r.randrange(36 ** 4):04x}"
                self.aliases[i].append(kn)
        if lay == "ray_train":
            names = [f"ray-gpu-{r.randrange(16 ** 5):05x}" for _ in range(nn)]
        if r.random() < 0.35 and lay not in ("k8s_pytorchjob",):
            r.shuffle(names)  # c10d rendezvous assigns node ranks in arrival order
        self.nodes = names
        self.ips = [f"10.{r.randint(0, 200)}.{r.randint(0, 255)}.{r.randint(2, 250)}" for _ in range(nn)]
        if lay == "ray_train":
            for i in range(nn):
                self.aliases[i].append(self.ips[i])
        bus = r.choice(BUS_SETS)
        off = 0 if gpn == 8 else r.choice([0, 0, 8 - gpn])
        self.nvml_off = off
        self.bus = [[bus[off + j] for j in range(gpn)] for _ in range(nn)]
        self.gpu = r.choice(GPU_MODELS)
        self.skew = [0.0] + [r.uniform(-35.0, 35.0) for _ in range(nn - 1)]
        if r.random() < 0.3:
            self.skew = [s + r.uniform(-8, 8) for s in self.skew]
        self.uptime0 = [r.uniform(2, 60) * 86400 for _ in range(nn)]
        self.agent_pid = [r.randint(2000, 400000) for _ in range(nn)]
        self.pid = {}
        for n in range(nn):
            p = self.agent_pid[n] + r.randint(40, 400)
            for lr in range(gpn):
                p += r.choice([1, 1, 2, 7])
                self.pid[n * gpn + lr] = p
        self.job_id = r.randint(100000, 9999999)
        self.comm_id = f"0x{r.randrange(16 ** 16):016x}"
        self.uuid_done: set[tuple[int, int]] = set()
        self.image = f"nvcr.io/nvidia/pytorch:{r.choice(['24.05', '24.10', '25.01'])}-py3"
        self.cgroup_oom_rank: int | None = None
        self.mapping_based = False
        self.seed_val = r.choice([42, 1234, 3407, 0])

    def _software(self) -> None:
        r = self.rng
        self.era = r.choice("ABCCDD")
        e = ERAS[self.era]
        self.torch_v, self.nccl_v, self.cuda_v, self.py_v = e["torch"], e["nccl"], e["cuda"], e["py"]
        self.timeout_ms = e["timeout"]
        if r.random() < 0.3:
            self.timeout_ms = r.choice([300000, 1800000, 3600000, 7200000])
        self.site = r.choice([
            f"/usr/local/lib/python{self.py_v}/dist-packages",
            f"/opt/conda/lib/python{self.py_v}/site-packages",
            (f"/home/{r.choice(['jdoe', 'mlops', 'ychen', 'svc-train'])}/miniconda3/envs/"
             f"{r.choice(['train', 'llm', 'py' + self.py_v.replace('.', '')])}/lib/python{self.py_v}/site-packages"),
            f"/workspace/.venv/lib/python{self.py_v}/site-packages",
        ])
        self.python = r.choice(["/usr/bin/python3", "/opt/conda/bin/python", "/usr/bin/python"])
        self.script = r.choice(["train.py", "pretrain_gpt.py", "finetune.py", "main.py", "train_lm.py"])
        self.workdir = r.choice(["/workspace", "/home/jdoe/proj", "/scratch/mlops/run", "/app"])
        self.nccl_debug = r.choice([None, None, "WARN", "INFO", "INFO"])
        self.nccl_subsys_net_only = r.random() < 0.3
        self.ifname = r.choice(["eth0", "bond0", "ibp12s0", "ens5", "enp75s0f0"])
        self.ib = r.random() < 0.75
        self.parallel = r.choice(["ddp", "ddp", "fsdp", "zero"])
        self.wandb = r.random() < 0.45
        self.tqdm = r.random() < 0.5
        self.model = r.choice(["llama", "gpt", "mistral", "vit", "t5"])
        self.ansi = r.random() < 0.3
        self.tee_prefix = self.layout == "torchrun_tee"
        self.sched = "none"
        if self.family == "srun":
            self.sched = "slurm"
        elif self.layout == "k8s_pytorchjob":
            self.sched = "k8s"
        elif self.family in ("elastic", "mpirun") and r.random() < 0.55:
            self.sched = "slurm"
        self.kill_on_bad_exit = r.random() < 0.4
        self.desync_debug = r.random() < 0.15
        self.timestamps_k8s = r.random() < 0.4

    # -- helpers --------------------------------------------------------------------------
    def node_of(self, rank: int) -> int:
        return rank // self.gpn

    def local_of(self, rank: int) -> int:
        return rank % self.gpn

    def ranks_on(self, node: int) -> list[int]:
        return list(range(node * self.gpn, (node + 1) * self.gpn))

    def lt(self, t: float, node: int) -> float:
        """The node's wall clock (with skew) at true time t."""
        return t + self.skew[node]

    def next_seq(self) -> int:
        self._seq += 1
        return self._seq

    def emit(self, t: float, node: int, rank: int | None, text: str, stream: str = "stderr",
             src: str | None = None, noise: bool = False) -> None:
        if src is None:
            src = "rank" if rank is not None else "agent"
        self.lines.append(Line(t, self.next_seq(), node, rank, src, text, stream, noise))

    def emit_block(self, t: float, node: int, rank: int | None, texts: list[str],
                   stream: str = "stderr", src: str | None = None, step: float = 0.0002,
                   noise: bool = False) -> float:
        for i, tx in enumerate(texts):
            self.emit(t + i * step, node, rank, tx, stream, src, noise)
        return t + len(texts) * step

    def launcher(self, t: float, text: str, node: int = 0, stream: str = "stderr") -> None:
        self.lines.append(Line(t, self.next_seq(), node, None, "launcher", text, stream))

    def kemit(self, t: float, node: int, text: str, prio: int = 3) -> None:
        self.kernel_nodes.add(node)
        if text.startswith("NVRM: Xid (PCI:"):
            bus = text[15:25]
            lr = self.bus[node].index(bus) if bus in self.bus[node] else -1
            if (node, lr) not in self.uuid_done:
                self.uuid_done.add((node, lr))
                r = self.rng
                uuid = (f"GPU-{r.randrange(16 ** 8):08x}-{r.randrange(16 ** 4):04x}-{r.randrange(16 ** 4):04x}-"
                        f"{r.randrange(16 ** 4):04x}-{r.randrange(16 ** 12):012x}")
                self.klines.append(KLine(t - 0.0002, self.next_seq(), node, f"NVRM: GPU at PCI:{bus}: {uuid}", prio))
                self.klines.append(KLine(t - 0.0001, self.next_seq(), node, f"NVRM: GPU Board Serial Number: {r.randint(1320000000000, 1660000000000)}", prio))
        self.klines.append(KLine(t, self.next_seq(), node, text, prio))

    def rp(self, rank: int) -> str:
        """Prefix PyTorch >= 2.3 puts on uncaught-exception lines and c10 log lines."""
        return f"[rank{rank}]: " if self.era != "A" else ""

    def glog(self, rank: int, t: float, level: str, file: str, line: int) -> str:
        node = self.node_of(rank)
        if self.era == "A":
            return f"[{level} {file}:{line}] "
        if self.era == "B":
            return f"[rank{rank}]:[{level} {file}:{line}] "
        return f"[rank{rank}]:[{f_glog(self.lt(t, node), level)} {file}:{line}] "

    def pg(self, rank: int) -> str:
        return {"A": f"[Rank {rank}]", "B": f"[PG 0 Rank {rank}]"}.get(
            self.era, f"[PG ID 0 PG GUID 0(default_pg) Rank {rank}]")

    def exit(self, rank: int, t: float, code: int, own: bool = True) -> None:
        old = self.exits.get(rank)
        if old is None or t < old.t:
            self.exits[rank] = Exit(t, code, own)


# ----------------------------------------------------------------------------- text builders
def cpp_frames(ctx: Ctx, where: str) -> list[str]:
    lib = f"{ctx.site}/torch/lib"
    r = ctx.rng
    a = r.randrange(0x7F0000000000, 0x7FFF00000000)
    fr = [
        "c10::Error::Error(c10::SourceLocation, std::string) + 0x96",
        (f"c10d::ProcessGroupNCCL::WorkNCCL::{where}(std::optional<std::chrono::duration<long, "
         "std::ratio<1l, 1000l> > >) + 0x282"),
        "c10d::ProcessGroupNCCL::watchdogHandler() + 0x233",
        "c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d",
        "<unknown function> + 0xd6df4",
        "<unknown function> + 0x94ac3",
        "<unknown function> + 0x126850",
    ]
    libs = ["libc10.so", "libtorch_cuda.so", "libtorch_cuda.so", "libtorch_cuda.so",
            "libstdc++.so.6", "libc.so.6", "libc.so.6"]
    out = []
    for i, (f, so) in enumerate(zip(fr, libs, strict=False)):
        path = f"{lib}/{so}" if so.startswith("libt") or so == "libc10.so" else (
            f"/lib/x86_64-linux-gnu/{so}")
        out.append(f"frame #{i}: {f} (0x{a + i * 0x1d3f7:x} in {path})")
    return out


def work_str(ctx: Ctx, seq: int, op: str, nin: int, nout: int) -> str:
    return (f"WorkNCCL(SeqNum={seq}, OpType={op}, NumelIn={nin}, NumelOut={nout}, "
            f"Timeout(ms)={ctx.timeout_ms})")


def watchdog_block(ctx: Ctx, rank: int, t: float, seq: int, op: str, nin: int, nout: int,
                   last_enq: int, last_done: int, frames: bool) -> list[tuple[float, str]]:
    """What ProcessGroupNCCL prints on one rank when a collective times out."""
    r = ctx.rng
    ran = ctx.timeout_ms + r.randint(2, 450)
    caught = (f"[Rank {rank}] Watchdog caught collective operation timeout: "
              f"{work_str(ctx, seq, op, nin, nout)} ran for {ran} milliseconds before timing out.")
    g = ctx.glog
    out: list[tuple[float, str]] = []
    if ctx.era == "A":
        out.append((0, g(rank, t, "E", "ProcessGroupNCCL.cpp", 475) + caught))
        out.append((0, g(rank, t, "E", "ProcessGroupNCCL.cpp", 489) + "Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data."))
        out.append((0, g(rank, t, "E", "ProcessGroupNCCL.cpp", 495) + "To avoid data inconsistency, we are taking the entire process down."))
        wd = f"[Rank {rank}] NCCL watchdog thread terminated with exception: {caught}"
        out.append((0.01, g(rank, t, "E", "ProcessGroupNCCL.cpp", 916) + wd))
        out.append((0.02, "terminate called after throwing an instance of 'std::runtime_error'"))
        out.append((0.02, f"  what():  {wd}"))
        return out
    pgp = ctx.pg(rank)
    out.append((0, g(rank, t, "E", "ProcessGroupNCCL.cpp", {"B": 563, "C": 616, "D": 632}[ctx.era]) + caught))
    if ctx.era == "B":
        out.append((0, g(rank, t, "E", "ProcessGroupNCCL.cpp", 1537) + f"{pgp} Timeout at NCCL work: {seq}, last enqueued NCCL work: {last_enq}, last completed NCCL work: {last_done}."))
    elif ctx.era == "C":
        out.append((0, g(rank, t, "E", "ProcessGroupNCCL.cpp", 1785) + f"{pgp} Exception (either an error or timeout) detected by watchdog at work: {seq}, last enqueued NCCL work: {last_enq}, last completed NCCL work: {last_done}."))
        out.append((0, g(rank, t, "E", "ProcessGroupNCCL.cpp", 1834) + f"{pgp} Timeout at NCCL work: {seq}, last enqueued NCCL work: {last_enq}, last completed NCCL work: {last_done}."))
    else:
        out.append((0, g(rank, t, "E", "ProcessGroupNCCL.cpp", 2168) + f"{pgp}  failure detected by watchdog at work sequence id: {seq} PG status: last enqueued work: {last_enq}, last completed work: {last_done}"))
        out.append((0, g(rank, t, "E", "ProcessGroupNCCL.cpp", 667) + "Stack trace of the failed collective not found, potentially because FlightRecorder is disabled. You can enable it by setting TORCH_NCCL_TRACE_BUFFER_SIZE to a non-zero value."))
    out.append((0, g(rank, t, "E", "ProcessGroupNCCL.cpp", {"B": 577, "C": 630, "D": 681}[ctx.era]) + f"[Rank {rank}] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data."))
    out.append((0, g(rank, t, "E", "ProcessGroupNCCL.cpp", {"B": 583, "C": 636, "D": 687}[ctx.era]) + f"[Rank {rank}] To avoid data inconsistency, we are taking the entire process down."))
    word = "NCCL watchdog thread" if ctx.era == "B" else "Process group watchdog thread"
    wd = f"{pgp} {word} terminated with exception: {caught}"
    out.append((0.01, g(rank, t + 0.01, "E", "ProcessGroupNCCL.cpp", {"B": 1414, "C": 1595, "D": 1901}[ctx.era]) + wd))
    if frames:
        out.append((0.01, f"Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:{ {'B': 565, 'C': 618, 'D': 634}[ctx.era]} (most recent call first):"))
        out += [(0.01, x) for x in cpp_frames(ctx, "checkTimeout")]
        out.append((0.01, ""))
    out.append((0.02, "terminate called after throwing an instance of 'c10::DistBackendError'"))
    out.append((0.02, f"  what():  {wd}"))
    if frames:
        out.append((0.02, f"Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:{ {'B': 565, 'C': 618, 'D': 634}[ctx.era]} (most recent call first):"))
        out += [(0.02, x) for x in cpp_frames(ctx, "checkTimeout")]
    return out


def emit_pairs(ctx: Ctx, t: float, rank: int, pairs: list[tuple[float, str]], noise: bool = False) -> float:
    node = ctx.node_of(rank)
    last = t
    for i, (d, text) in enumerate(pairs):
        last = t + d + i * 0.00005
        ctx.emit(last, node, rank, text, noise=noise)
    return last


def nccl_prefix(ctx: Ctx, rank: int, t: float, warn: bool, tid: int | None = None) -> str:
    node = ctx.node_of(rank)
    pid = ctx.pid[rank]
    tid = tid if tid is not None else pid + 60 + ctx.local_of(rank) * 3
    ts = f"[{f_sec(ctx.lt(t, node))}] " if (warn and ctx.era == "D") else ""
    return f"{ts}{ctx.nodes[node]}:{pid}:{tid} [{ctx.local_of(rank)}] "


def remote_error_block(ctx: Ctx, rank: int, t: float, peer: str, kind: str,
                       frames: bool) -> list[tuple[float, str]]:
    """Collateral on a rank whose peer vanished or whose fabric failed."""
    r = ctx.rng
    nv = ctx.nccl_v
    out: list[tuple[float, str]] = []
    if kind == "ib":
        status = r.choice([12, 12, 5])
        if nv.startswith("2.18"):
            last = f"NET/IB : Got completion from peer {peer}<{r.randint(30000, 60000)}> with error {status}, opcode {r.choice([0, 1, 48])}, len 0, vendor err {r.choice([129, 244, 249])}"
        else:
            last = (f"NET/IB : Got completion from peer {peer}<{r.randint(30000, 60000)}> with status={status} "
                    f"opcode={r.choice([0, 1])} len=0 vendor err {r.choice([129, 244])} (Send) localGid ::ffff:"
                    f"{ctx.ips[ctx.node_of(rank)]} remoteGids::ffff:{peer}")
        src = "transport/net_ib.cc:1696" if not nv.startswith("2.26") else "transport/net_ib/p2p.cc:491"
    elif kind == "socket":
        last = f"socketProgress: Connection closed by remote peer {peer}<{r.randint(30000, 60000)}>"
        src = "misc/socket.cc:50"
    else:
        last = f"socketProgressOpt: Call to recv from {peer}<{r.randint(30000, 60000)}> failed : Connection reset by peer"
        src = "misc/socket.cc:578"
    if ctx.nccl_debug:
        out.append((0, ""))
        out.append((0, nccl_prefix(ctx, rank, t, True) + f"{src} NCCL WARN {last}"))
    msg = f"NCCL error: remote process exited or there was a network error, NCCL version {nv}"
    pgp = ctx.pg(rank)
    word = "NCCL watchdog thread" if ctx.era in "AB" else "Process group watchdog thread"
    head = ctx.glog(rank, t, "E", "ProcessGroupNCCL.cpp", {"A": 916, "B": 1414, "C": 1595, "D": 1901}[ctx.era])
    if ctx.era == "A":
        pgp = f"[Rank {rank}]"
    out.append((0.001, head + f"{pgp} {word} terminated with exception: {msg}"))
    out.append((0.001, "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely. "))
    out.append((0.001, "Last error:"))
    out.append((0.001, last))
    if frames and ctx.era != "A":
        out.append((0.001, "Exception raised from checkForNCCLErrorsInternal at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:2027 (most recent call first):"))
        out += [(0.001, x) for x in cpp_frames(ctx, "checkAndSetException")[:4]]
    exc = "std::runtime_error" if ctx.era == "A" else "c10::DistBackendError"
    out.append((0.002, f"terminate called after throwing an instance of '{exc}'"))
    out.append((0.002, f"  what():  {pgp} {word} terminated with exception: {msg}"))
    return out


def py_traceback(ctx: Ctx, rank: int | None, frames: list[tuple[str, int, str, str]],
                 exc_lines: list[str], chained: list[str] | None = None) -> list[str]:
    pre = ctx.rp(rank) if rank is not None else ""
    out = []
    if chained:
        out += [pre + x for x in chained]
        out += [pre, pre + "The above exception was the direct cause of the following exception:", pre]
    out.append(pre + "Traceback (most recent call last):")
    for f, ln, fn, code in frames:
        out.append(pre + f'  File "{f}", line {ln}, in {fn}')
        if code:
            out.append(pre + "    " + code)
    out += [pre + x for x in exc_lines]
    return out


def user_frames(ctx: Ctx, tail: str) -> list[tuple[str, int, str, str]]:
    r = ctx.rng
    s = f"{ctx.workdir}/{ctx.script}"
    fr = [(s, r.randint(380, 700), "<module>", "main()"),
          (s, r.randint(300, 380), "main", "train(cfg, model, train_loader, optimizer, scheduler)")]
    if tail == "forward":
        fr.append((s, r.randint(180, 300), "train", "loss = model(**batch).loss" if ctx.model != "vit" else "loss = criterion(model(images), labels)"))
    elif tail == "backward":
        fr.append((s, r.randint(180, 300), "train", "loss.backward()" if ctx.parallel != "zero" else "model_engine.backward(loss)"))
    elif tail == "data":
        fr.append((s, r.randint(180, 300), "train", "batch = next(data_iter)"))
    elif tail == "step":
        fr.append((s, r.randint(180, 300), "train", "metrics = reduce_metrics(loss, step)"))
    return fr


def lib_frames_forward(ctx: Ctx) -> list[tuple[str, int, str, str]]:
    st = ctx.site
    r = ctx.rng
    m = {"llama": "llama", "gpt": "gpt2", "mistral": "mistral", "vit": "vit", "t5": "t5"}[ctx.model]
    return [
        (f"{st}/torch/nn/modules/module.py", 1736, "_wrapped_call_impl", "return self._call_impl(*args, **kwargs)"),
        (f"{st}/torch/nn/modules/module.py", 1747, "_call_impl", "return forward_call(*args, **kwargs)"),
        (f"{st}/torch/nn/parallel/distributed.py", 1643, "forward", "else self._run_ddp_forward(*inputs, **kwargs)"),
        (f"{st}/transformers/models/{m}/modeling_{m}.py", r.randint(300, 1200), "forward", "attn_weights = torch.matmul(query_states, key_states.transpose(2, 3)) / math.sqrt(self.head_dim)"),
    ]


def oom_message(ctx: Ctx, local: int) -> str:
    r = ctx.rng
    total = ctx.gpu[1]
    tot = float(total.split()[0])
    want = r.choice([1.0, 2.0, 3.5, 4.0, 7.82, 16.0, 896.0])
    unit = "MiB" if want > 100 else "GiB"
    free = r.uniform(0.05, 1.9)
    used = tot - free
    alloc = used - r.uniform(1.0, 6.0)
    resv = r.uniform(0.2, 3.0)
    if ctx.era == "A":
        return (f"CUDA out of memory. Tried to allocate {want:.2f} {unit}. GPU {local} has a total capacty of {total} "
                f"of which {free:.2f} GiB is free. Process {ctx.rng.randint(1000, 99999)} has {used:.2f} GiB memory in use. "
                f"Of the allocated memory {alloc:.2f} GiB is allocated by PyTorch, and {resv:.2f} GiB is reserved by PyTorch "
                "but unallocated. If reserved but unallocated memory is large try setting max_split_size_mb to avoid "
                "fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF")
    return (f"CUDA out of memory. Tried to allocate {want:.2f} {unit}. GPU {local} has a total capacity of {total} of which "
            f"{free:.2f} GiB is free. Including non-PyTorch memory, this process has {used:.2f} GiB memory in use. Of the "
            f"allocated memory {alloc:.2f} GiB is allocated by PyTorch, and {resv:.2f} GiB is reserved by PyTorch but "
            "unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True "
            "to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)")


def cuda_error_lines(ctx: Ctx, what: str) -> list[str]:
    cls = "RuntimeError" if ctx.era in "AB" else "torch.AcceleratorError"
    out = [f"{cls}: CUDA error: {what}",
           "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
           "For debugging consider passing CUDA_LAUNCH_BLOCKING=1"]
    out.append("Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.")
    out.append("")
    return out


def elastic_line(ctx: Ctx, node: int, t: float, level: str, module: str, lineno: int, msg: str) -> str:
    """torchelastic agent log line, by era."""
    lt = ctx.lt(t, node)
    lvl = {"W": "WARNING", "E": "ERROR", "I": "INFO"}[level]
    if ctx.era == "A" and ctx.rng.random() < 0.3:
        return f"{lvl}:{module}:{msg}"
    if ctx.era in "AB":
        return f"[{f_py(lt)}] {module}: [{lvl}] {msg}"
    path = module.replace(".", "/") + ".py"
    pre = "site-packages/" if "site-packages" in ctx.site else ""
    return f"{f_elastic_w(lt, level)} {ctx.agent_pid[node]} {pre}{path}:{lineno}] {msg}"


# ----------------------------------------------------------------------------- noise
WARNINGS = [
    ("torch/utils/checkpoint.py", 464, "UserWarning: torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. In version 2.4 we will raise an exception if use_reentrant is not passed. use_reentrant=False is recommended, but if you need to preserve the current default behavior, you can pass use_reentrant=True. Refer to docs for more details on the differences between the two variants.", "  return fn(*args, **kwargs)"),
    ("torch/nn/modules/module.py", 1747, "FutureWarning: `torch.cuda.amp.autocast(args...)` is deprecated. Please use `torch.amp.autocast('cuda', args...)` instead.", "  return forward_call(*args, **kwargs)"),
    ("transformers/training_args.py", 1525, "FutureWarning: `evaluation_strategy` is deprecated and will be removed in version 4.46 of 🤗 Transformers. Use `eval_strategy` instead", "  warnings.warn("),
    ("torch/distributed/fsdp/_init_utils.py", 444, "UserWarning: FSDP is switching to use `NO_SHARD` instead of ShardingStrategy.FULL_SHARD since the world size is 1.", "  warnings.warn("),
    ("torch/optim/lr_scheduler.py", 224, "UserWarning: Detected call of `lr_scheduler.step()` before `optimizer.step()`. In PyTorch 1.1.0 and later, you should call them in the opposite order: `optimizer.step()` before `lr_scheduler.step()`.  Failure to do this will result in PyTorch skipping the first value of the learning rate schedule. See more details at https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate", "  warnings.warn("),
]


def noise_warnings(ctx: Ctx, t: float, rank: int, k: int = 2) -> None:
    r = ctx.rng
    node = ctx.node_of(rank)
    for w in r.sample(WARNINGS, k):
        ctx.emit(t, node, rank, f"{ctx.site}/{w[0]}:{w[1]}: {w[2]}", noise=True)
        ctx.emit(t + 0.0001, node, rank, w[3], noise=True)
        t += r.uniform(0.01, 0.4)


def tokenizers_warning() -> list[str]:
    return ["huggingface/tokenizers: The current process just got forked, after parallelism has already been used. Disabling parallelism to avoid deadlocks...",
            "To disable this warning, you can either:",
            "\t- Avoid using `tokenizers` before the fork if possible",
            "\t- Explicitly set the environment variable TOKENIZERS_PARALLELISM=(true | false)"]


def nccl_init_dump(ctx: Ctx, t: float, rank: int) -> float:
    """NCCL_DEBUG=INFO lines a rank prints while creating its communicator."""
    r = ctx.rng
    node = ctx.node_of(rank)
    lr = ctx.local_of(rank)
    pid = ctx.pid[rank]
    tid = pid + r.randint(50, 400)
    host = ctx.nodes[node]
    p0 = f"{host}:{pid}:{pid} [{lr}] NCCL INFO "
    p1 = f"{host}:{pid}:{tid} [{lr}] NCCL INFO "
    ip = ctx.ips[node]
    lines = [p0 + f"cudaDriverVersion {r.choice([12020, 12040, 12080])}",
             p0 + f"Bootstrap : Using {ctx.ifname}:{ip}<0>"]
    if ctx.ib:
        hcas = " ".join(f"[{i}]mlx5_{i}:1/IB" for i in range(r.choice([1, 4, 8])))
        lines.append(p1 + f"NET/IB : Using {hcas} [RO]; OOB {ctx.ifname}:{ip}<0>")
        lines.append(p1 + "Using network IB")
    else:
        lines.append(p1 + f"NET/Socket : Using [0]{ctx.ifname}:{ip}<0>")
        lines.append(p1 + "Using network Socket")
    comm = f"0x{r.randrange(0x550000000000, 0x56ffffffffff):x}"
    cid = ctx.comm_id
    bus = nccl_busid(ctx.bus[node][lr])
    nvml = lr + ctx.nvml_off
    if not ctx.nccl_subsys_net_only:
        if ctx.era == "A":
            start = f"comm {comm} rank {rank} nranks {ctx.world} cudaDev {lr} nvmlDev {nvml} busId {bus} commId {cid} - Init START"
            done = f"comm {comm} rank {rank} nranks {ctx.world} cudaDev {lr} busId {bus} - Init COMPLETE"
        elif ctx.era == "D":
            start = f"[Rank {rank}] ncclCommInitRankConfig comm {comm} rank {rank} nranks {ctx.world} cudaDev {lr} nvmlDev {nvml} busId {bus} commId {cid} - Init START"
            done = f"ncclCommInitRankConfig comm {comm} rank {rank} nranks {ctx.world} cudaDev {lr} nvmlDev {nvml} busId {bus} commId {cid} - Init COMPLETE"
        else:
            start = f"ncclCommInitRank comm {comm} rank {rank} nranks {ctx.world} cudaDev {lr} nvmlDev {nvml} busId {bus} commId {cid} - Init START"
            done = f"ncclCommInitRank comm {comm} rank {rank} nranks {ctx.world} cudaDev {lr} nvmlDev {nvml} busId {bus} commId {cid} - Init COMPLETE"
        lines.append(p1 + start)
        lines.append(p1 + f"comm {comm} rank {rank} nRanks {ctx.world} nNodes {ctx.nn} localRanks {ctx.gpn} localRank {lr} MNNVL 0")
        if rank % max(1, ctx.world // 4) == 0:
            ring = " ".join(f"{x:3d}" for x in range(ctx.world))
            lines.append(p1 + f"Channel 00/{r.choice([16, 24, 32])} : {ring}")
        lines.append(p1 + "Connected all rings")
        lines.append(p1 + done)
    else:
        hca = r.randint(0, 7)
        lines.append(p1 + f"NET/IB : GPU Direct RDMA Enabled for HCA {hca} 'mlx5_{hca}'" if ctx.ib else p1 + "NET/Socket : 1 interfaces found")
    for i, x in enumerate(lines):
        ctx.emit(t + i * 0.003, node, rank, x, noise=True)
    return t + len(lines) * 0.003


# ----------------------------------------------------------------------------- job start
def preamble(ctx: Ctx, t: float) -> float:
    """Launcher start-up, per-rank init, NCCL dumps, config dumps.  Returns training start."""
    r = ctx.rng
    fam = ctx.family
    W, gpn = ctx.world, ctx.gpn
    if ctx.sched == "slurm":
        ctx.launcher(t, f"SLURM_JOB_ID={ctx.job_id} SLURM_NNODES={ctx.nn} SLURM_JOB_NODELIST={','.join(ctx.nodes)}", stream="stdout")
        ctx.launcher(t + 0.01, f"MASTER_ADDR={ctx.nodes[0]} MASTER_PORT={r.choice([29500, 12355, 6000, 29400])} WORLD_SIZE={W}", stream="stdout")
        if r.random() < 0.4:
            ctx.launcher(t + 0.02, "Lmod has detected the following error: The following module(s) are unknown: \"cuda/12.1\"", stream="stderr")
    if ctx.layout == "ray_train":
        ctx.launcher(t, f"{f_py(t)}\tINFO worker.py:1654 -- Connecting to existing Ray cluster at address: {ctx.ips[0]}:6379...", stream="stdout")
        ctx.launcher(t + 0.3, f"{f_py(t + 0.3)}\tINFO worker.py:1832 -- Connected to Ray cluster. View the dashboard at \x1b[1m\x1b[32m127.0.0.1:8265 \x1b[39m\x1b[22m", stream="stdout")
    if ctx.layout == "deepspeed_pdsh":
        hosts = ",".join(ctx.nodes)
        ctx.launcher(t, f"[{f_py(t)}] [INFO] [runner.py:463:main] Using IP address of {ctx.ips[0]} for node {ctx.nodes[0]}", stream="stdout")
        ctx.launcher(t + 0.01, f"[{f_py(t + 0.01)}] [INFO] [multinode_runner.py:80:get_cmd] Running on the following workers: {hosts}", stream="stdout")
        wi = "eyJ" + "".join(r.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789") for _ in range(40 + 12 * ctx.nn))
        ctx.launcher(t + 0.02, f"[{f_py(t + 0.02)}] [INFO] [runner.py:568:main] cmd = pdsh -S -f 1024 -w {hosts} export PYTHONPATH={ctx.workdir}; export NCCL_IB_HCA=mlx5; export NCCL_SOCKET_IFNAME={ctx.ifname}; export CUDA_DEVICE_MAX_CONNECTIONS=1; cd {ctx.workdir}; {ctx.python} -u -m deepspeed.launcher.launch --world_info={wi} --node_rank=%n --master_addr={ctx.ips[0]} --master_port=29500 {ctx.script} --deepspeed --deepspeed_config ds_config.json --model_name_or_path /models/{ctx.model}-7b --per_device_train_batch_size 4 --gradient_accumulation_steps 8 --learning_rate 2e-5 --num_train_epochs 3 --bf16 --output_dir /checkpoints/run{ctx.idx:03d}", stream="stdout")
    if ctx.layout == "accelerate":
        for n in range(ctx.nn):
            tl = t + r.uniform(0, 2)
            ctx.emit(tl, n, None, "The following values were not passed to `accelerate launch` and had defaults used instead:")
            ctx.emit(tl + 0.001, n, None, "\t`--dynamo_backend` was set to a value of `'no'`")
            ctx.emit(tl + 0.002, n, None, "To avoid this warning pass in values for each of the problematic parameters or run `accelerate config`.")
            if r.random() < 0.6:
                ctx.emit(tl + 0.1, n, None, "Detected kernel version 5.4.0, which is below the recommended minimum of 5.5.0; this can cause the process to hang. It is recommended to upgrade the kernel to the minimum version or higher.")
    if fam == "elastic":
        for n in range(ctx.nn):
            tl = t + r.uniform(0.3, 3)
            for j, msg in enumerate(["", "*****************************************",
                                     "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. ",
                                     "*****************************************"]):
                ctx.emit(tl + j * 0.0001, n, None, elastic_line(ctx, n, tl, "W", "torch.distributed.run", 793, msg))
    if fam == "ds":
        for n in range(ctx.nn):
            tl = t + 1.5 + r.uniform(0, 1)
            info = {h: list(range(gpn)) for h in ctx.nodes}
            gmap = {h: list(range(i * gpn, (i + 1) * gpn)) for i, h in enumerate(ctx.nodes)}
            ll = [f"[{f_py(ctx.lt(tl, n))}] [INFO] [launch.py:146:main] WORLD INFO DICT: {info}",
                  f"[{f_py(ctx.lt(tl, n))}] [INFO] [launch.py:152:main] nnodes={ctx.nn}, num_local_procs={gpn}, node_rank={n}",
                  f"[{f_py(ctx.lt(tl, n))}] [INFO] [launch.py:163:main] global_rank_mapping=defaultdict(<class 'list'>, {gmap})",
                  f"[{f_py(ctx.lt(tl, n))}] [INFO] [launch.py:164:main] dist_world_size={W}",
                  f"[{f_py(ctx.lt(tl, n))}] [INFO] [launch.py:168:main] Setting CUDA_VISIBLE_DEVICES={','.join(str(i) for i in range(gpn))}",
                  f"[{f_py(ctx.lt(tl, n))}] [INFO] [launch.py:256:main] process {ctx.pid[n * gpn]} spawned with command: ['{ctx.python}', '-u', '{ctx.script}', '--local_rank=0', '--deepspeed', '--deepspeed_config', 'ds_config.json']"]
            ctx.emit_block(tl, n, None, ll)
    if ctx.layout == "ray_train":
        tl = t + 4
        tpid = r.randint(3000, 9000)
        ctx.launcher(tl, f"\x1b[36m(TorchTrainer pid={tpid})\x1b[0m Started distributed worker processes: ", stream="stdout")
        for k in range(W):
            n = ctx.node_of(k)
            ctx.launcher(tl + 0.001 * k, f"\x1b[36m(TorchTrainer pid={tpid})\x1b[0m - (ip={ctx.ips[n]}, pid={ctx.pid[k]}) rank={k}, local_rank={ctx.local_of(k)}, node_rank={n}", stream="stdout")
    t_ranks = t + r.uniform(3, 12)
    # per rank start-up
    for k in range(W):
        n = ctx.node_of(k)
        tk = t_ranks + r.uniform(0, 2.5)
        if ctx.layout == "ray_train":
            ctx.emit(tk, n, k, f"Setting up process group for: env:// [rank={k}, world_size={W}]", stream="stdout")
        if ctx.layout == "lightning_slurm":
            ctx.emit(tk, n, k, f"Initializing distributed: GLOBAL_RANK: {k}, MEMBER: {k + 1}/{W}", stream="stderr")
            if k == 0:
                ctx.emit(tk - 0.5, n, k, "GPU available: True (cuda), used: True", stream="stderr")
                ctx.emit(tk - 0.49, n, k, "TPU available: False, using: 0 TPU cores", stream="stderr")
                ctx.emit(tk - 0.48, n, k, "HPU available: False, using: 0 HPUs", stream="stderr")
            if ctx.era != "A":
                ctx.emit(tk - 0.6, n, k, f"[rank: {k}] Seed set to {ctx.seed_val}", stream="stderr")
        if ctx.layout == "accelerate" and r.random() < 0.5:
            ctx.emit_block(tk, n, k, ["Distributed environment: MULTI_GPU  Backend: nccl", f"Num processes: {W}",
                                      f"Process index: {k}", f"Local process index: {ctx.local_of(k)}",
                                      f"Device: cuda:{ctx.local_of(k)}", "", "Mixed precision type: bf16", ""], stream="stdout")
        if r.random() < 0.5:
            noise_warnings(ctx, tk + 0.2, k, 1)
    if ctx.layout == "lightning_slurm":
        tl = t_ranks + 3
        ctx.emit_block(tl, 0, 0, ["-" * 100, "distributed_backend=nccl", f"All distributed processes registered. Starting with {W} processes", "-" * 100, ""])
        for n in range(ctx.nn):
            ctx.emit(tl + 0.1 + n * 0.01, n, n * gpn, f"LOCAL_RANK: 0 - CUDA_VISIBLE_DEVICES: [{','.join(str(i) for i in range(gpn))}]")
        ctx.emit_block(tl + 0.5, 0, 0, ["", "  | Name  | Type             | Params | Mode ", "---------------------------------------------------",
                                        f"0 | model | {MODEL_CLASS[ctx.model]} | {r.choice(['6.7 B', '1.3 B', '13.0 B', '354 M'])} | train", "---------------------------------------------------"], stream="stdout")
    t_nccl = t_ranks + r.uniform(4, 15)
    if ctx.nccl_debug == "INFO":
        for k in range(W):
            nccl_init_dump(ctx, t_nccl + r.uniform(0, 1.5), k)
        ctx.emit(t_nccl - 0.01, 0, 0, f"NCCL version {ctx.nccl_v}+cuda{ctx.cuda_v}", stream="stdout", noise=True)
    elif r.random() < 0.3:
        ctx.emit(t_nccl, 0, 0, f"NCCL version {ctx.nccl_v}+cuda{ctx.cuda_v}", stream="stdout", noise=True)
    if ctx.era in "CD" and r.random() < 0.35:
        for k in range(W):
            tk = t_nccl - r.uniform(0.5, 2)
            ctx.emit(tk, ctx.node_of(k), k, ctx.glog(k, tk, "W", "ProcessGroupNCCL.cpp", 4561) + f"{ctx.pg(k)} using GPU {ctx.local_of(k)} to perform barrier as devices used by this process are currently unknown. This can potentially cause a hang if this rank to GPU mapping is incorrect. Specify device_ids in barrier() to force use of a particular device,or call init_process_group() with a device_id.", noise=True)
    t_cfg = t_nccl + r.uniform(3, 20)
    if ctx.family == "ds" or (ctx.parallel == "zero" and r.random() < 0.5):
        ds = [f"[{f_py(ctx.lt(t_cfg, 0))}] [INFO] [logging.py:96:log_dist] [Rank 0] DeepSpeed info: version={r.choice(['0.12.6', '0.14.4', '0.15.4', '0.16.2'])}, git-hash=unknown, git-branch=unknown",
              f"[{f_py(ctx.lt(t_cfg, 0))}] [INFO] [config.py:999:print] DeepSpeedEngine configuration:",
              f"[{f_py(ctx.lt(t_cfg, 0))}] [INFO] [config.py:1003:print]   activation_checkpointing_config  {{",
              '    "partition_activations": false, ', '    "contiguous_memory_optimization": false, ',
              '    "cpu_checkpointing": false, ', '    "number_checkpoints": null, ', '    "synchronize_checkpoint_boundary": false, ',
              '    "profile": false', "}"]
        for key, val in [("aio_config", "{'block_size': 1048576, 'queue_depth': 8, 'thread_count': 1, 'single_submit': False, 'overlap_events': True, 'use_gds': False}"),
                         ("amp_enabled", "False"), ("bfloat16_enabled", "True"), ("communication_data_type", "None"),
                         ("gradient_accumulation_steps", "8"), ("gradient_clipping", "1.0"),
                         ("train_batch_size", str(4 * 8 * W)), ("train_micro_batch_size_per_gpu", "4"),
                         ("zero_config", "stage=3 contiguous_gradients=True reduce_scatter=True reduce_bucket_size=500000000 use_multi_rank_bucket_allreduce=True allgather_partitions=True allgather_bucket_size=500000000 overlap_comm=True load_from_fp32_weights=True elastic_checkpoint=False offload_param=None offload_optimizer=None sub_group_size=1000000000 cpu_offload_param=None cpu_offload_use_pin_memory=None cpu_offload=None prefetch_bucket_size=50000000 param_persistence_threshold=100000 model_persistence_threshold=9223372036854775807 max_live_parameters=1000000000 max_reuse_distance=1000000000 gather_16bit_weights_on_model_save=True use_all_reduce_for_fetch_params=False stage3_gather_fp16_weights_on_model_save=False ignore_unused_parameters=True legacy_stage1=False round_robin_gradients=False zero_hpz_partition_size=1 zero_quantized_weights=False zero_quantized_nontrainable_weights=False zero_quantized_gradients=False mics_shard_size=-1 mics_hierarchical_params_gather=False memory_efficient_linear=True pipeline_loading_checkpoint=False override_module_apply=True"),
                         ("zero_enabled", "True"), ("zero_optimization_stage", "3")]:
            ds.append(f"[{f_py(ctx.lt(t_cfg, 0))}] [INFO] [config.py:1003:print]   {key} {'.' * max(2, 29 - len(key))} {val}")
        ctx.emit_block(t_cfg, 0, 0, ds, stream="stdout", noise=True)
    if ctx.wandb:
        rid = "".join(r.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(8))
        proj = r.choice(["llm-pretrain", "sft", "vision", "scaling"])
        team = r.choice(["acme-ml", "research", "jdoe"])
        d = _d(ctx.lt(t_cfg, 0)).strftime("%Y%m%d_%H%M%S")
        wl = [f"wandb: Currently logged in as: {r.choice(['jdoe', 'mlops-bot', 'ychen'])} ({team}). Use `wandb login --relogin` to force relogin",
              f"wandb: Tracking run with wandb version {r.choice(['0.16.6', '0.17.5', '0.18.7', '0.19.1'])}",
              f"wandb: Run data is saved locally in {ctx.workdir}/wandb/run-{d}-{rid}",
              "wandb: Run `wandb offline` to turn off syncing.",
              f"wandb: Syncing run {r.choice(ADJ)}-{r.choice(NOUN)}-{r.randint(1, 400)}",
              f"wandb: ⭐️ View project at https://wandb.ai/{team}/{proj}",
              f"wandb: 🚀 View run at https://wandb.ai/{team}/{proj}/runs/{rid}"]
        ctx.emit_block(t_cfg + 1, 0, 0, wl, noise=True)
    if r.random() < 0.4:
        ns = ", ".join(f"{k}={v}" for k, v in [
            ("model_name_or_path", f"'/models/{ctx.model}-7b'"), ("dataset", "'/data/mix-v3'"), ("seq_len", "4096"),
            ("micro_batch_size", "4"), ("global_batch_size", str(4 * 8 * W)), ("lr", "0.0003"), ("min_lr", "3e-05"),
            ("weight_decay", "0.1"), ("adam_beta1", "0.9"), ("adam_beta2", "0.95"), ("warmup_steps", "2000"),
            ("max_steps", "200000"), ("log_interval", "10"), ("save_interval", "1000"), ("eval_interval", "2000"),
            ("bf16", "True"), ("grad_clip", "1.0"), ("activation_checkpointing", "True"), ("compile", "False"),
            ("num_workers", "8"), ("pin_memory", "True"), ("seed", "1234"), ("tokenizer", f"'/models/{ctx.model}-7b'"),
            ("wandb_project", "'pretrain'"), ("output_dir", f"'/checkpoints/run{ctx.idx:03d}'"), ("resume", "True")])
        ctx.emit(t_cfg + 1.5, 0, 0, f"Namespace({ns})", stream="stdout", noise=True)
    if r.random() < 0.3:
        for k in ctx.ranks_on(0)[: max(1, gpn // 2)]:
            ctx.emit_block(t_cfg + 2, 0, k, tokenizers_warning(), noise=True)
    return t_cfg + r.uniform(5, 40)


# ----------------------------------------------------------------------------- training
class Train:
    """Step timing, logging style and collective sequence numbers of one run."""

    def __init__(self, ctx: Ctx, t0: float, per_rank: bool):
        r = ctx.rng
        self.ctx = ctx
        self.t0 = t0
        self.period = r.uniform(0.7, 5.5)
        self.s0 = r.choice([0, 0, r.randint(1, 60) * 500])
        self.per_rank = per_rank
        if per_rank:
            self.style = r.choice(["pipe", "kv", "loguru"])
            self.n_logged = max(8, min(60, 1100 // ctx.world))
            self.every = r.choice([1, 1, 2, 5, 10])
        else:
            self.style = r.choice(["pipe", "megatron", "hf", "ds", "lightning", "kv"])
            if ctx.layout == "lightning_slurm":
                self.style = "lightning"
            if ctx.family == "ds" and r.random() < 0.7:
                self.style = "ds"
            self.n_logged = r.randint(15, 70)
            self.every = r.choice([10, 20, 50, 100])
        self.coll = r.choice([1, 2, 17, 24, 37, 96, 130])
        self.seq0 = r.randint(8, 90)
        self.total = r.choice([20000, 50000, 100000, 200000, 143051])
        self.extra: dict[int, float] = {}  # step -> extra seconds (straggler slow-down)
        self.ramp: dict[int, float] = {}  # step -> extra slow-down factor of the slow ranks
        self.lr = r.choice([3e-4, 2e-5, 1e-4, 6e-4])

    def t_of(self, s: int) -> float:
        base = self.t0 + (s - self.s0) * self.period
        return base + sum(v for k, v in self.extra.items() if k <= s)

    def seq_of(self, s: int) -> int:
        return self.seq0 + (s - self.s0) * self.coll

    def loss(self, s: int) -> float:
        return 1.7 + 6.0 * math.exp(-(s + 300) / 4000.0) + self.ctx.rng.uniform(-0.05, 0.05)

    def steps(self, upto: int) -> list[int]:
        first = max(self.s0 + self.every, upto - self.every * (self.n_logged - 1))
        first -= (first - self.s0) % self.every
        return list(range(first, upto + 1, self.every))

    def line(self, rank: int, s: int, t: float, fwd_ms: float, comm_ms: float, data_s: float) -> str:
        ctx = self.ctx
        lt = ctx.lt(t, ctx.node_of(rank))
        loss = self.loss(s)
        it = (fwd_ms + comm_ms) / 1000.0 + data_s
        tok = int(4096 * 4 / max(it, 1e-3))
        if self.style == "pipe":
            return (f"{f_py(lt)} | INFO | rank {rank:>2} | step {s:>7} | loss {loss:.4f} | lr {self.lr:.3e} | "
                    f"fwd_bwd {fwd_ms:7.1f} ms | allreduce {comm_ms:7.1f} ms | data {data_s:.3f} s | {tok} tok/s")
        if self.style == "kv":
            return (f"[{f_sec(lt)}][rank{rank}] it={s} loss={loss:.4f} data_time={data_s:.3f}s "
                    f"compute_time={fwd_ms / 1000:.3f}s comm_time={comm_ms / 1000:.3f}s iter_time={it:.3f}s")
        if self.style == "loguru":
            lvl = "\x1b[1mINFO    \x1b[0m" if ctx.ansi else "INFO    "
            ts = f"\x1b[32m{f_py(lt).replace(',', '.')}\x1b[0m" if ctx.ansi else f_py(lt).replace(",", ".")
            return (f"{ts} | {lvl} | trainer:train_step:{212} - [rank {rank}] step={s} loss={loss:.4f} "
                    f"fwd_bwd_ms={fwd_ms:.1f} wait_ms={comm_ms:.1f} data_s={data_s:.3f}")
        if self.style == "megatron":
            return (f" [{f_sec(lt)}] iteration {s:>8}/{self.total:>8} | consumed samples: {s * 512:>12} | "
                    f"elapsed time per iteration (ms): {it * 1000:.1f} | learning rate: {self.lr:.6E} | global batch size: "
                    f"  512 | lm loss: {loss:.6E} | loss scale: 1.0 | grad norm: {ctx.rng.uniform(0.2, 1.5):.3f} | "
                    "number of skipped iterations:   0 | number of nan iterations:   0 |")
        if self.style == "hf":
            return f"{{'loss': {loss:.4f}, 'grad_norm': {ctx.rng.uniform(0.2, 2.0):.4f}, 'learning_rate': {self.lr:.4e}, 'epoch': {s / 6000:.2f}}}"
        if self.style == "ds":
            return (f"[{f_py(lt)}] [INFO] [logging.py:96:log_dist] [Rank 0] step={s}, skipped=0, lr=[{self.lr}], "
                    f"mom=[(0.9, 0.95)]")
        return f"step {s} | loss {loss:.4f} | {it:.3f} s/it"

    def tqdm_line(self, a: int, b: int, t0: float) -> str:
        segs = []
        n_up = min(12, max(1, b - a))
        for i in range(n_up + 1):
            s = a + (b - a) * i // n_up
            frac = s / self.total
            full = int(frac * 10)
            part = " ▏▎▍▌▋▊▉"[int((frac * 10 - full) * 8)]
            bar = ("█" * full + (part if full < 10 else "")).ljust(10)
            per = self.period * self.ctx.rng.uniform(0.97, 1.03)
            el = (s - self.s0) * self.period
            rem = (self.total - s) * per
            if self.style == "lightning":
                segs.append(f"Epoch 0: {int(frac * 100):3d}%|{bar}| {s}/{self.total} [{f_hms(el)}<{f_hms(rem)}, {1 / self.period:.2f}it/s, v_num={self.ctx.idx}, train_loss={self.loss(s):.3f}]")
            else:
                segs.append(f"{int(frac * 100):3d}%|{bar}| {s}/{self.total} [{f_hms(el)}<{f_hms(rem)}, {per:.2f}s/it]")
        return "\r" + "\r".join(segs)


def run_steps(ctx: Ctx, tr: Train, upto: int, last_step: dict[int, int] | None = None,
              fwd: dict[int, float] | None = None, data: dict[int, dict[int, float]] | None = None) -> None:
    """Emit step log lines up to step `upto` (inclusive); some ranks may stop earlier."""
    r = ctx.rng
    last_step = last_step or {}
    fwd = fwd or {}
    steps = tr.steps(upto)
    prev = steps[0] - tr.every
    base_ms = tr.period * 1000 * r.uniform(0.72, 0.85)
    for s in steps:
        t = tr.t_of(s)
        if tr.per_rank:
            f_all = {k: base_ms * fwd.get(k, 1.0) * (tr.ramp.get(s, 1.0) if k in fwd else 1.0) * r.uniform(0.97, 1.03)
                     for k in range(ctx.world)}
            slowest = max(f_all.values())
            for k in range(ctx.world):
                if s > last_step.get(k, 10 ** 12):
                    continue
                ds = (data or {}).get(k, {}).get(s, r.uniform(0.001, 0.02))
                comm = max(3.0, slowest - f_all[k]) + r.uniform(20, 60)
                ctx.emit(t + r.uniform(0, 0.05) + ds, ctx.node_of(k), k, tr.line(k, s, t, f_all[k], comm, ds), stream="stdout")
        else:
            if s > last_step.get(0, 10 ** 12):
                continue
            if ctx.tqdm or tr.style in ("hf", "lightning"):
                ctx.emit(t - 0.01, 0, 0, tr.tqdm_line(prev, s, t), stream="stderr", noise=True)
            if tr.style != "lightning":
                ctx.emit(t, 0, 0, tr.line(0, s, t, base_ms * r.uniform(0.97, 1.04), r.uniform(25, 70), r.uniform(0.002, 0.03)), stream="stdout")
            if tr.style == "ds" and r.random() < 0.5:
                ctx.emit(t + 0.001, 0, 0, f"[{f_py(ctx.lt(t, 0))}] [INFO] [timer.py:260:stop] epoch=0/micro_step={s * 8}/global_step={s}, RunningAvgSamplesPerSec={r.uniform(40, 300):.3f}, CurrSamplesPerSec={r.uniform(40, 300):.3f}, MemAllocated={r.uniform(10, 60):.2f}GB, MaxMemAllocated={r.uniform(60, 75):.2f}GB", stream="stdout")
        prev = s
        if ctx.rng.random() < 0.05:
            k = r.randrange(ctx.world)
            if s <= last_step.get(k, 10 ** 12):
                noise_warnings(ctx, t + 0.2, k, 1)


# ----------------------------------------------------------------------------- scenario helpers
def coll_desc(ctx: Ctx) -> tuple[str, int, int]:
    r = ctx.rng
    if ctx.parallel == "fsdp":
        shard = r.choice([26214400, 65536000, 131072000]) // ctx.world
        return r.choice([("_ALLGATHER_BASE", shard, shard * ctx.world), ("_REDUCE_SCATTER_BASE", shard * ctx.world, shard)])
    if ctx.parallel == "zero":
        n = r.choice([50000000, 125000000])
        return r.choice([("ALLGATHER", n // ctx.world, n), ("REDUCE_SCATTER", n, n // ctx.world)])
    n = r.choice([6553600, 13107200, 26214400, 1])
    return ("ALLREDUCE", n, n)


def attributable(ctx: Ctx) -> bool:
    """Can a rank's own stderr lines be tied to its global rank?"""
    if ctx.era != "A":
        return True
    return ctx.layout in ("torchrun_tee", "srun_label", "sbatch_per_task", "mpirun_tag",
                          "mpirun_timestamp", "ray_train")


def busid_visible(ctx: Ctx) -> bool:
    return ctx.nccl_debug == "INFO" and not ctx.nccl_subsys_net_only


def pid_visible(ctx: Ctx) -> bool:
    return ctx.nccl_debug == "INFO" or ctx.layout == "ray_train"


def begin(ctx: Ctx, per_rank: bool = False) -> Train:
    t_train = preamble(ctx, ctx.t_job)
    return Train(ctx, t_train, per_rank)


def fail_point(ctx: Ctx, tr: Train) -> tuple[int, float]:
    r = ctx.rng
    upto = tr.s0 + tr.every * tr.n_logged
    s_fail = upto + r.randint(1, max(1, tr.every))
    t_fail = tr.t_of(s_fail) - tr.period * r.uniform(0.05, 0.9)
    return upto, t_fail


def service_thread_closed(ctx: Ctx, dead: int, t: float) -> None:
    """NCCL INFO on the dead rank's local peers ("Connection closed by localRank")."""
    if ctx.nccl_debug != "INFO":
        return
    n = ctx.node_of(dead)
    for k in ctx.ranks_on(n):
        if k != dead:
            tt = t + ctx.rng.uniform(0.001, 0.05)
            ctx.emit(tt, n, k, nccl_prefix(ctx, k, tt, False, tid=ctx.pid[k] + 900) + f"NCCL INFO [Service thread] Connection closed by localRank {ctx.local_of(dead)}")


def collateral_timeouts(ctx: Ctx, ranks: list[int], t_enter: float, seq: int, desc: tuple[str, int, int],
                        last_enq: int | None = None, last_done: int | None = None, spread: float = 2.0,
                        desc_for: dict[int, tuple[str, int, int]] | None = None,
                        early: set[int] | None = None) -> None:
    r = ctx.rng
    loud = set(r.sample(ranks, min(len(ranks), 4))) | (early or set())
    for k in ranks:
        op, nin, nout = (desc_for or {}).get(k, desc)
        jit = r.uniform(0.0, 0.3) if early and k in early else r.uniform(0.0, spread)
        t = t_enter + ctx.timeout_ms / 1000.0 + jit
        le = last_enq if last_enq is not None else seq + r.choice([0, 0, 1, 2])
        ld = last_done if last_done is not None else seq - 1
        end = emit_pairs(ctx, t, k, watchdog_block(ctx, k, t, seq, op, nin, nout, le, ld, k in loud))
        ctx.exit(k, end + r.uniform(0.05, 0.4), -6)


def collateral_remote(ctx: Ctx, ranks: list[int], t0: float, peer_nodes: list[int], kind: str,
                      window: float = 25.0) -> None:
    r = ctx.rng
    loud = set(r.sample(ranks, min(len(ranks), 3)))
    for k in ranks:
        t = t0 + r.uniform(0.3, window)
        peer = ctx.ips[r.choice(peer_nodes)]
        end = emit_pairs(ctx, t, k, remote_error_block(ctx, k, t, peer, kind, k in loud))
        ctx.exit(k, end + r.uniform(0.05, 0.3), -6)


def cascade_after_death(ctx: Ctx, dead: int, t_dead: float, seq: int) -> None:
    """Other ranks after rank `dead` vanished: remote errors soon, or watchdog timeouts later."""
    r = ctx.rng
    n = ctx.node_of(dead)
    service_thread_closed(ctx, dead, t_dead)
    others = [k for k in range(ctx.world) if ctx.node_of(k) != n]
    local = [k for k in ctx.ranks_on(n) if k != dead]
    desc = coll_desc(ctx)
    if ctx.nn == 1:
        # a single node: the agent / launcher reacts; peers blocked in the collective may time out
        if ctx.family in ("srun",) and not ctx.kill_on_bad_exit:
            collateral_timeouts(ctx, local, t_dead, seq, desc)
        return
    if r.random() < 0.5:
        collateral_remote(ctx, others, t_dead, [n], "ib" if ctx.ib else r.choice(["socket", "reset"]))
    else:
        collateral_timeouts(ctx, others, t_dead, seq, desc)
    if ctx.family == "srun" and not ctx.kill_on_bad_exit:
        collateral_timeouts(ctx, local, t_dead, seq, desc)


def xid_line(ctx: Ctx, node: int, local: int, code: int, msg: str, pid: int | None,
             name: str = "python3") -> str:
    bus = ctx.bus[node][local]
    style = ctx.rng.random()
    who = ("pid='<unknown>', name=<unknown>, " if style < 0.6 else "") if pid is None else f"pid={pid}, name={name}, "
    return f"NVRM: Xid (PCI:{bus}): {code}, {who}{msg}"


def kernel_noise(ctx: Ctx, node: int, t0: float, t1: float, k: int = 8) -> None:
    r = ctx.rng
    pool = [
        "perf: interrupt took too long (2503 > 2500), lowering kernel.perf_event_max_sample_rate to 79750",
        f"IPv6: ADDRCONF(NETDEV_CHANGE): {ctx.ifname}: link becomes ready",
        "nvidia-peermem nv_mem_get_pages_common:86 ERROR detected invalid context, skipping further registration",
        "audit: type=1400 audit(@AUDIT@): apparmor=\"DENIED\" operation=\"open\" profile=\"snap.lxd.activate\" name=\"/proc/sys/kernel/osrelease\"",
        "EXT4-fs (nvme0n1p1): mounted filesystem with ordered data mode. Quota mode: none.",
        "nvidia-nvswitch2: open (major=507)",
        f"mlx5_core {r.choice(NIC_BUS)}: mlx5_fw_tracer_handle_traces:740:(pid 0): FWTracer: Events were lost",
        "systemd-journald[823]: Data hash table of /var/log/journal/0f3b/system.journal has a fill level at 75.0 (8534 of 11377 items), suggesting rotation.",
        "Adding 8388604k swap on /swap.img.  Priority:-2 extents:10 across:10543104k SS",
        "nvidia_uvm: module uses symbols nvUvmInterfaceDisableAccessCntr from proprietary module nvidia, inheriting taint.",
        "bond0: (slave ens2f1np1): link status definitely up, 100000 Mbps full duplex",
    ]
    ts = sorted(r.uniform(t0, t1) for _ in range(k))
    for t in ts:
        text = r.choice(pool).replace("@AUDIT@", f"{ctx.lt(t, node):.3f}:{r.randint(100, 9999)}")
        ctx.kemit(t, node, text, prio=6)


def xid45_after(ctx: Ctx, node: int, t: float) -> None:
    """Driver cleaning up channels of killed processes: harmless Xid 45 (decoy)."""
    r = ctx.rng
    for lr in r.sample(range(ctx.gpn), min(ctx.gpn, r.randint(1, 3))):
        k = node * ctx.gpn + lr
        ctx.kemit(t + r.uniform(0.5, 8), node, xid_line(ctx, node, lr, 45, f"Ch 000000{r.randint(8, 40):02x}", ctx.pid[k]))


def old_app_xid(ctx: Ctx, node: int) -> None:
    """An application Xid from somebody else's job days earlier (decoy, never drains)."""
    r = ctx.rng
    lr = r.randrange(ctx.gpn)
    t = ctx.t_job - r.uniform(2, 6) * 86400
    code = r.choice([13, 31, 43])
    msg = {13: f"Graphics SM Warp Exception on (GPC {r.randint(0, 7)}, TPC {r.randint(0, 8)}, SM 0): Out Of Range Address",
           31: f"Ch 0000000{r.randint(2, 9)}, intr 00000000. MMU Fault: ENGINE GRAPHICS GPC{r.randint(0, 7)} GPCCLIENT_T1_{r.randint(0, 15)} faulted @ 0x7f3a_{r.randrange(16 ** 8):08x}. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ",
           43: f"Ch 000000{r.randint(10, 40):02x}, engmask 00000101"}[code]
    ctx.kemit(t, node, xid_line(ctx, node, lr, code, msg, r.randint(1000, 90000), name=r.choice(["python", "pt_main_thread", "vllm"])))


# ----------------------------------------------------------------------------- scenarios
def sc_cuda_oom(ctx: Ctx) -> None:
    r = ctx.rng
    tr = begin(ctx)
    upto, t_fail = fail_point(ctx, tr)
    run_steps(ctx, tr, upto)
    k = r.randrange(ctx.world)
    n = ctx.node_of(k)
    where = r.choice(["forward", "backward"])
    frames = user_frames(ctx, where)
    if where == "forward":
        frames += lib_frames_forward(ctx)
    else:
        frames += [(f"{ctx.site}/torch/_tensor.py", 581, "backward", "torch.autograd.backward("),
                   (f"{ctx.site}/torch/autograd/__init__.py", 347, "backward", "_engine_run_backward("),
                   (f"{ctx.site}/torch/autograd/graph.py", 825, "_engine_run_backward", "return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass")]
    cls = "torch.cuda.OutOfMemoryError" if ctx.era in "AB" else r.choice(["torch.OutOfMemoryError", "torch.cuda.OutOfMemoryError"])
    tb = py_traceback(ctx, k, frames, [f"{cls}: {oom_message(ctx, ctx.local_of(k))}"])
    end = ctx.emit_block(t_fail, n, k, tb)
    ctx.exit(k, end + r.uniform(0.3, 2.0), 1)
    cascade_after_death(ctx, k, end + 1.0, tr.seq_of(upto + 1) + r.randint(0, tr.coll))
    ctx.init_rank = k
    ctx.notes = f"rank {k} raised CUDA out of memory during {where} at step ~{upto + 1}; peers lost it and timed out or errored"


PY_EXC = [
    ("data", ["KeyError: Caught KeyError in DataLoader worker process 3.", "Original Traceback (most recent call last):",
              '  File "{site}/torch/utils/data/_utils/worker.py", line 351, in _worker_loop',
              "    data = fetcher.fetch(index)  # type: ignore[possibly-undefined]",
              '  File "{wd}/data/dataset.py", line 88, in __getitem__',
              "    text = sample['text']", "KeyError: 'text'", ""]),
    ("data", ["FileNotFoundError: Caught FileNotFoundError in DataLoader worker process 1.", "Original Traceback (most recent call last):",
              '  File "{wd}/data/shards.py", line 142, in _open_shard',
              "    return np.memmap(path, dtype=np.uint16, mode='r')",
              "FileNotFoundError: [Errno 2] No such file or directory: '/data/tokenized/shard-01734.bin'", ""]),
    ("forward", ["RuntimeError: The size of tensor a (4096) must match the size of tensor b (4097) at non-singleton dimension 1"]),
    ("step", ["ValueError: loss is nan at step {step}; aborting (set --skip_nan to ignore)"]),
    ("step", ["AssertionError: grad norm is inf"]),
    ("data", ["UnicodeDecodeError: 'utf-8' codec can't decode byte 0x8b in position 1: invalid start byte"]),
]


def sc_python_exception(ctx: Ctx) -> None:
    r = ctx.rng
    tr = begin(ctx)
    upto, t_fail = fail_point(ctx, tr)
    run_steps(ctx, tr, upto)
    k = r.randrange(ctx.world)
    n = ctx.node_of(k)
    tail, exc = r.choice(PY_EXC)
    frames = user_frames(ctx, tail)
    if tail == "data":
        frames += [(f"{ctx.site}/torch/utils/data/dataloader.py", 701, "__next__", "data = self._next_data()"),
                   (f"{ctx.site}/torch/utils/data/dataloader.py", 1465, "_next_data", "return self._process_data(data)"),
                   (f"{ctx.site}/torch/utils/data/dataloader.py", 1491, "_process_data", "data.reraise()"),
                   (f"{ctx.site}/torch/_utils.py", 715, "reraise", "raise exception")]
    elif tail == "forward":
        frames += lib_frames_forward(ctx)[:3]
    exc = [x.format(site=ctx.site, wd=ctx.workdir, step=upto + 1) for x in exc]
    tb = py_traceback(ctx, k, frames, exc)
    end = ctx.emit_block(t_fail, n, k, tb)
    ctx.exit(k, end + r.uniform(0.2, 1.5), 1)
    cascade_after_death(ctx, k, end + 0.8, tr.seq_of(upto + 1))
    ctx.init_rank = k
    ctx.notes = f"rank {k} raised an uncaught {exc[0].split(':')[0]} ({tail}); the other ranks are collateral"


def sc_crash_signal(ctx: Ctx) -> None:
    r = ctx.rng
    tr = begin(ctx)
    upto, t_fail = fail_point(ctx, tr)
    run_steps(ctx, tr, upto)
    k = r.randrange(ctx.world)
    n = ctx.node_of(k)
    pid = ctx.pid[k]
    kind = r.choice(["segv", "segv", "bus", "abort"])
    if kind == "segv":
        tid = r.randrange(0x7F0000000000, 0x7FFF00000000)
        lines = ["Fatal Python error: Segmentation fault", "",
                 f"Thread 0x{tid:016x} (most recent call first):",
                 f'  File "{ctx.site}/torch/utils/data/_utils/pin_memory.py", line 54 in do_one_step',
                 f'  File "{ctx.site}/torch/utils/data/_utils/pin_memory.py", line 58 in _pin_memory_loop',
                 '  File "/usr/lib/python3.10/threading.py", line 953 in run', "",
                 f"Current thread 0x{tid + 0x4a000:016x} (most recent call first):",
                 f'  File "{ctx.site}/flash_attn/flash_attn_interface.py", line 96 in _flash_attn_varlen_forward',
                 f'  File "{ctx.site}/torch/_ops.py", line 1116 in __call__',
                 f'  File "{ctx.workdir}/{ctx.script}", line {r.randint(180, 300)} in train',
                 f'  File "{ctx.workdir}/{ctx.script}", line {r.randint(300, 380)} in main', "",
                 "Extension modules: numpy.core._multiarray_umath, numpy.core._multiarray_tests, numpy.linalg._umath_linalg, torch._C, torch._C._dynamo.autograd_compiler, torch._C._dynamo.eval_frame, torch._C._dynamo.guards, torch._C._dynamo.utils, torch._C._fft, torch._C._linalg, torch._C._nested, torch._C._nn, torch._C._sparse, torch._C._special, yaml._yaml, sentencepiece._sentencepiece, pyarrow.lib, pandas._libs.tslibs.np_datetime, pandas._libs.tslibs.dtypes (total: 86)"]
        code = -11
        ctx.kemit(t_fail + 0.01, n, f"{ctx.script.split('.')[0][:15]}[{pid}]: segfault at {r.choice(['0', '10', '18', '7f2a0c000000'])} ip 00007f{r.randrange(16 ** 10):010x} sp 00007ff{r.randrange(16 ** 9):09x} error {r.choice([4, 6])} in libflash_attn_cuda.so[7f{r.randrange(16 ** 10):010x}+{r.randrange(16 ** 7):x}] likely on CPU {r.randint(0, 95)} (core {r.randint(0, 47)}, socket {r.randint(0, 1)})", prio=6)
        ctx.kemit(t_fail + 0.011, n, "Code: 48 8b 45 18 48 85 c0 74 0c 48 8b 40 08 <8b> 50 10 85 d2 0f 8e 2a 01 00 00 48 89 df e8 1c f3 ff ff", prio=6)
        note = "segmentation fault in a native extension"
    elif kind == "bus":
        wpid = pid + r.randint(100, 900)
        lines = ["ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm)."]
        lines2 = py_traceback(ctx, k, [*user_frames(ctx, "data"), (f"{ctx.site}/torch/utils/data/dataloader.py", 701, "__next__", "data = self._next_data()"), (f"{ctx.site}/torch/utils/data/dataloader.py", 1448, "_next_data", "idx, data = self._get_data()"), (f"{ctx.site}/torch/utils/data/dataloader.py", 1412, "_get_data", "success, data = self._try_get_data()"), (f"{ctx.site}/torch/utils/data/dataloader.py", 1256, "_try_get_data", "raise RuntimeError(f'DataLoader worker (pid(s) {pids_str}) exited unexpectedly') from e")],
            [f"RuntimeError: DataLoader worker (pid(s) {wpid}) exited unexpectedly"],
            chained=["Traceback (most recent call last):",
                     f'  File "{ctx.site}/torch/utils/data/dataloader.py", line 1243, in _try_get_data',
                     "    data = self._data_queue.get(timeout=timeout)",
                     f'  File "{ctx.site}/torch/utils/data/_utils/signal_handling.py", line 73, in handler',
                     "    _error_if_any_worker_fails()",
                     f"RuntimeError: DataLoader worker (pid {wpid}) is killed by signal: Bus error. It is possible that dataloader's workers are out of shared memory. Please try to raise your shared memory limit."])
        end = ctx.emit_block(t_fail, n, k, lines)
        ctx.emit_block(end + 0.05, n, k, lines2)
        ctx.exit(k, end + 1.0, 1)
        cascade_after_death(ctx, k, end + 1.5, tr.seq_of(upto + 1))
        ctx.init_rank = k
        ctx.notes = f"a DataLoader worker of rank {k} died of SIGBUS (shm exhausted); rank {k} raised, the rest are collateral"
        return
    else:
        lines = [r.choice(["double free or corruption (!prev)", "free(): invalid pointer", "corrupted size vs. prev_size"])]
        code = -6
        note = "glibc heap corruption abort (SIGABRT) in the main process"
    end = ctx.emit_block(t_fail, n, k, lines)
    ctx.exit(k, end + 0.05, code)
    cascade_after_death(ctx, k, end + 0.2, tr.seq_of(upto + 1))
    ctx.init_rank = k
    ctx.notes = f"rank {k} died of a signal: {note}"


def sc_host_oom(ctx: Ctx) -> None:
    r = ctx.rng
    tr = begin(ctx)
    upto, t_fail = fail_point(ctx, tr)
    run_steps(ctx, tr, upto)
    k = r.randrange(ctx.world)
    n = ctx.node_of(k)
    pid = ctx.pid[k]
    victim_is_worker = r.random() < 0.35
    cgroup = ctx.sched in ("slurm", "k8s") and r.random() < 0.6
    kpid = pid + r.randint(100, 900) if victim_is_worker else pid
    comm = "pt_data_worker" if victim_is_worker else r.choice(["python3", "python", "pt_main_thread"])
    inv = ctx.pid[r.choice(ctx.ranks_on(n))]
    t = t_fail
    kern = [f"{r.choice(['python3', 'pt_main_thread', 'python'])} invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0",
            f"CPU: {r.randint(0, 95)} PID: {inv} Comm: pt_main_thread Tainted: P           OE      5.15.0-{r.randint(90, 130)}-generic #{r.randint(100, 140)}-Ubuntu",
            "Hardware name: Supermicro SYS-821GE-TNHR/X13DEG-OAD, BIOS 2.1 04/03/2024",
            "Mem-Info:",
            f"active_anon:{r.randint(10 ** 7, 10 ** 8)} inactive_anon:{r.randint(10 ** 6, 10 ** 7)} isolated_anon:0",
            ("oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0-1,oom_memcg=/slurm/uid_1000/job_" + str(ctx.job_id)
             if cgroup else "oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0-1,global_oom,task_memcg=/user.slice/user-1000.slice/session-3.scope")
            + f",task={comm},pid={kpid},uid=1000",
            f"{'Memory cgroup out of memory' if cgroup else 'Out of memory'}: Killed process {kpid} ({comm}) total-vm:{r.randint(3 * 10 ** 8, 6 * 10 ** 8)}kB, anon-rss:{r.randint(10 ** 8, 2 * 10 ** 8)}kB, file-rss:{r.randint(10 ** 5, 10 ** 6)}kB, shmem-rss:{r.randint(10 ** 6, 10 ** 7)}kB, UID:1000 pgtables:{r.randint(10 ** 5, 10 ** 6)}kB oom_score_adj:0",
            f"oom_reaper: reaped process {kpid} ({comm}), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB"]
    for i, x in enumerate(kern):
        ctx.kemit(t + i * 0.0003, n, x, prio=4 if i < 6 else 3)
    if victim_is_worker:
        tb = py_traceback(ctx, k, [*user_frames(ctx, "data"), (f"{ctx.site}/torch/utils/data/dataloader.py", 701, "__next__", "data = self._next_data()"), (f"{ctx.site}/torch/utils/data/dataloader.py", 1256, "_try_get_data", "raise RuntimeError(f'DataLoader worker (pid(s) {pids_str}) exited unexpectedly') from e")],
            [f"RuntimeError: DataLoader worker (pid(s) {kpid}) exited unexpectedly"],
            chained=["Traceback (most recent call last):",
                     f'  File "{ctx.site}/torch/utils/data/dataloader.py", line 1243, in _try_get_data',
                     "    data = self._data_queue.get(timeout=timeout)",
                     f"RuntimeError: DataLoader worker (pid {kpid}) is killed by signal: Killed. "])
        end = ctx.emit_block(t + 0.4, n, k, tb)
        ctx.exit(k, end + 0.8, 1)
        dead_t = end + 1.0
    else:
        ctx.exit(k, t + 0.002, -9)
        dead_t = t + 0.01
    if cgroup and not victim_is_worker:
        ctx.cgroup_oom_rank = k
    if cgroup and ctx.sched == "slurm":
        ctx.launcher(dead_t + r.uniform(1, 20), f"slurmstepd: error: Detected 1 oom_kill event in StepId={ctx.job_id}.0. Some of the step tasks have been OOM Killed.", node=n)
    cascade_after_death(ctx, k, dead_t, tr.seq_of(upto + 1))
    ctx.init_rank = k
    ctx.notes = (f"the {'cgroup' if cgroup else 'kernel'} OOM killer killed "
                 f"{'a DataLoader worker of ' if victim_is_worker else ''}rank {k} (pid {kpid}) on {ctx.nodes[n]}")


def sc_gpu_hardware(ctx: Ctx) -> None:
    r = ctx.rng
    tr = begin(ctx)
    upto, t_fail = fail_point(ctx, tr)
    run_steps(ctx, tr, upto)
    k = r.randrange(ctx.world)
    n = ctx.node_of(k)
    lr = ctx.local_of(k)
    bus = ctx.bus[n][lr]
    variant = r.choice(["xid79", "xid79", "xid119", "nodefail"]) if (ctx.sched == "slurm" and ctx.nn > 1) else r.choice(["xid79", "xid119"])
    seq = tr.seq_of(upto + 1) + r.randint(0, tr.coll)
    desc = coll_desc(ctx)
    if variant in ("xid79", "nodefail"):
        ctx.kemit(t_fail - r.uniform(0.01, 0.5), n, f"pcieport 0000:{r.choice(['15', '48', '97', 'c8'])}:01.0: AER: Uncorrected (Fatal) error received: {bus}.0", prio=3)
        ctx.kemit(t_fail, n, xid_line(ctx, n, lr, 79, "GPU has fallen off the bus.", None))
        ctx.kemit(t_fail + 0.0004, n, f"NVRM: GPU {bus}.0: GPU has fallen off the bus.")
        ctx.kemit(t_fail + 0.002, n, "NVRM: A GPU crash dump has been created. If possible, please run")
        ctx.kemit(t_fail + 0.0021, n, "NVRM: nvidia-bug-report.sh as root to collect this data before")
        ctx.kemit(t_fail + 0.0022, n, "NVRM: the NVIDIA kernel module is unloaded.")
        if r.random() < 0.5:
            ctx.kemit(t_fail + 0.01, n, "NVRM: nvGpuOpsReportFatalError: uvm encountered global fatal error 0x60, requiring os reboot to recover.")
    if variant == "xid79":
        where = r.choice(["watchdog", "python"])
        if where == "watchdog":
            word = "NCCL watchdog thread" if ctx.era in "AB" else "Process group watchdog thread"
            pgp = ctx.pg(k) if ctx.era != "A" else f"[Rank {k}]"
            msg = f"{pgp} {word} terminated with exception: CUDA error: unspecified launch failure"
            lines = [ctx.glog(k, t_fail, "E", "ProcessGroupNCCL.cpp", {"A": 916, "B": 1414, "C": 1595, "D": 1901}[ctx.era]) + msg,
                     "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
                     "For debugging consider passing CUDA_LAUNCH_BLOCKING=1", "",
                     f"terminate called after throwing an instance of '{'std::runtime_error' if ctx.era == 'A' else 'c10::DistBackendError'}'",
                     f"  what():  {msg}"]
            code = -6
        else:
            lines = py_traceback(ctx, k, user_frames(ctx, "step"), cuda_error_lines(ctx, "unspecified launch failure"))
            code = 1
        end = ctx.emit_block(t_fail + r.uniform(0.05, 2.0), n, k, lines)
        ctx.exit(k, end + 0.2, code)
        cascade_after_death(ctx, k, end + 0.5, seq)
        ctx.rank_inferable = True
        ctx.notes = f"GPU {bus} of rank {k} fell off the bus (Xid 79); rank {k} hit 'unspecified launch failure', the rest are collateral"
    elif variant == "xid119":
        pid = ctx.pid[k]
        ctx.kemit(t_fail, n, xid_line(ctx, n, lr, 119, f"Timeout after 6s of waiting for RPC response from GPU{lr} GSP! Expected function 76 (GSP_RM_CONTROL) (0x20800a4c 0x4).", pid if r.random() < 0.6 else None))
        ctx.kemit(t_fail + 0.0005, n, f"NVRM: GPU{lr} GSP RPC buffer contains function 76 (GSP_RM_CONTROL) and data 0x0000000020800a4c 0x0000000000000004.")
        ctx.kemit(t_fail + 0.0007, n, f"NVRM: GPU{lr} RPC history (CPU -> GSP):")
        ctx.kemit(t_fail + 0.0009, n, "NVRM:     entry function                   data0              data1              ts_start           ts_end             duration actively_polling")
        ctx.kemit(t_fail + r.uniform(3, 40), n, xid_line(ctx, n, lr, 154, "GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)", None))
        # the rank is stuck in the driver; everybody (including it) waits for the collective
        collateral_timeouts(ctx, list(range(ctx.world)), t_fail, seq, desc, last_enq=seq, last_done=seq - 1)
        ctx.rank_inferable = busid_visible(ctx) or pid_visible(ctx)
        ctx.mapping_based = True
        ctx.notes = f"GSP RPC timeout (Xid 119) on GPU {bus} of rank {k}: the rank hung, every rank including it hit the watchdog timeout"
    else:
        # the node hard-hangs after Xid 79: its ranks print nothing more, Slurm declares NODE_FAIL
        for q in ctx.ranks_on(n):
            ctx.exit(q, t_fail + 0.1, -9, own=False)
        others = [q for q in range(ctx.world) if ctx.node_of(q) != n]
        if r.random() < 0.5:
            collateral_remote(ctx, others, t_fail, [n], "ib" if ctx.ib else "socket", window=40)
        else:
            collateral_timeouts(ctx, others, t_fail, seq, desc)
        ctx.node_fail = (n, t_fail + r.uniform(60, 400))
        ctx.rank_inferable = busid_visible(ctx)
        ctx.mapping_based = True
        ctx.notes = f"Xid 79 on GPU {bus} (rank {k}) hard-hung {ctx.nodes[n]}; Slurm marked NODE_FAIL, its ranks went silent"
    ctx.init_rank = k


def sc_ecc(ctx: Ctx) -> None:
    r = ctx.rng
    tr = begin(ctx)
    upto, t_fail = fail_point(ctx, tr)
    run_steps(ctx, tr, upto)
    k = r.randrange(ctx.world)
    n = ctx.node_of(k)
    lr = ctx.local_of(k)
    pid = ctx.pid[k]
    addr = r.randrange(0x10000000, 0xffffffff)
    ctx.kemit(t_fail, n, xid_line(ctx, n, lr, 48, f"An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at physAddr 0x{addr:x} partition {r.randint(0, 23)}, subpartition {r.randint(0, 3)}.", pid if r.random() < 0.5 else None))
    ctx.kemit(t_fail + 0.003, n, xid_line(ctx, n, lr, 63, f"Row Remapper: New row (0x{addr:016x}) marked for remapping, reset gpu to activate.", pid))
    if r.random() < 0.6:
        ctx.kemit(t_fail + 0.01, n, xid_line(ctx, n, lr, 94, "Contained: SM (0x1). RST: No, D-RST: No", pid))
    if r.random() < 0.5:
        line = ctx.glog(k, t_fail, "E", "ProcessGroupNCCL.cpp", {"A": 916, "B": 1414, "C": 1595, "D": 1901}[ctx.era])
        word = "NCCL watchdog thread" if ctx.era in "AB" else "Process group watchdog thread"
        pgp = ctx.pg(k) if ctx.era != "A" else f"[Rank {k}]"
        msg = f"{pgp} {word} terminated with exception: CUDA error: uncorrectable ECC error encountered"
        lines = [line + msg, "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
                 "For debugging consider passing CUDA_LAUNCH_BLOCKING=1", "",
                 f"terminate called after throwing an instance of '{'std::runtime_error' if ctx.era == 'A' else 'c10::DistBackendError'}'", f"  what():  {msg}"]
        code = -6
    else:
        lines = py_traceback(ctx, k, user_frames(ctx, "forward") + lib_frames_forward(ctx)[:2], cuda_error_lines(ctx, "uncorrectable ECC error encountered"))
        code = 1
    end = ctx.emit_block(t_fail + r.uniform(0.01, 1.0), n, k, lines)
    ctx.exit(k, end + 0.2, code)
    cascade_after_death(ctx, k, end + 0.4, tr.seq_of(upto + 1))
    if r.random() < 0.5:
        ctx.extra[f"nvidia-smi-q-ecc-{ctx.nodes[n].split('.')[0]}.txt"] = "\n".join([
            "==============NVSMI LOG==============", "", f"Timestamp                                 : {f_ctime(ctx.lt(end + 900, n))}",
            f"Driver Version                            : {r.choice(['535.183.01', '550.90.07', '570.124.06'])}", "",
            f"GPU 0000{ctx.bus[n][lr].upper()}.0", "    ECC Mode", "        Current                           : Enabled", "        Pending                           : Enabled",
            "    ECC Errors", "        Volatile", "            SRAM Correctable              : 0", "            SRAM Uncorrectable            : 0",
            "            DRAM Correctable              : 0", f"            DRAM Uncorrectable            : {r.randint(1, 4)}",
            "    Remapped Rows", "        Correctable Error                 : 0", "        Uncorrectable Error               : 1",
            "        Pending                           : Yes", "        Remapping Failure Occurred        : No", ""])
    ctx.init_rank = k
    ctx.notes = f"uncorrectable ECC (Xid 48/63) on GPU {ctx.bus[n][lr]} of rank {k}; its CUDA calls failed and the job collapsed"


def sc_nvlink(ctx: Ctx) -> None:
    r = ctx.rng
    tr = begin(ctx)
    upto, t_fail = fail_point(ctx, tr)
    run_steps(ctx, tr, upto)
    k = r.randrange(ctx.world)
    n = ctx.node_of(k)
    lr = ctx.local_of(k)
    link = r.randint(0, 17)
    regs = r.choice(["0x0, 0x0, 0x10000, 0x0, 0x0, 0x0, 0x0", "0x10000, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0", "0x0, 0x0, 0x0, 0x200000, 0x0, 0x0, 0x0"])
    ctx.kemit(t_fail, n, xid_line(ctx, n, lr, 74, f"NVLink: fatal error detected on link {link}({regs})", ctx.pid[k] if r.random() < 0.4 else None))
    peers = [q for q in ctx.ranks_on(n) if q != k]
    sym = r.sample(peers, min(len(peers), r.randint(1, 3)))
    for j, q in enumerate(sym):
        ctx.kemit(t_fail + 0.4 + j * 0.2 + r.uniform(0, 0.5), n, xid_line(ctx, n, ctx.local_of(q), 45, f"Ch 000000{r.randint(1, 30):02x} caused by previous Xid 74" if ctx.era == "D" else f"Ch 000000{r.randint(1, 30):02x}", ctx.pid[q]))
    lines = py_traceback(ctx, k, user_frames(ctx, "backward"), cuda_error_lines(ctx, "uncorrectable NVLink error detected during the execution"))
    end = ctx.emit_block(t_fail + r.uniform(0.05, 0.8), n, k, lines)
    ctx.exit(k, end + 0.2, 1)
    # sympathetic errors on peers that talked to the broken GPU, a bit later
    for q in sym:
        tq = end + r.uniform(0.3, 3.0)
        if ctx.nccl_debug:
            ctx.emit(tq - 0.01, n, q, nccl_prefix(ctx, q, tq, True) + "misc/strongstream.cc:395 NCCL WARN Cuda failure 'uncorrectable NVLink error detected during the execution'")
        e2 = ctx.emit_block(tq, n, q, py_traceback(ctx, q, user_frames(ctx, "backward"), cuda_error_lines(ctx, "uncorrectable NVLink error detected during the execution")))
        ctx.exit(q, e2 + 0.2, 1)
    cascade_after_death(ctx, k, end + 0.5, tr.seq_of(upto + 1))
    ctx.init_rank = k
    ctx.notes = f"fatal NVLink error (Xid 74, link {link}) on GPU {ctx.bus[n][lr]} of rank {k}; local peers failed sympathetically later"


def sc_network(ctx: Ctx) -> None:
    r = ctx.rng
    tr = begin(ctx)
    upto, t_fail = fail_point(ctx, tr)
    run_steps(ctx, tr, upto)
    n = r.randrange(ctx.nn)
    nic = r.choice(NIC_BUS)
    if ctx.ib:
        ctx.kemit(t_fail - r.uniform(1, 20), n, f"mlx5_core {nic}: Port module event[error]: module {r.randint(0, 7)}, Cable error, Bus stuck (I2C or data shorted)", prio=3)
        ctx.kemit(t_fail - r.uniform(0.1, 1), n, f"mlx5_core {nic} ibp{int(nic[5:7], 16)}s0: Link down" if r.random() < 0.5 else f"mlx5_core {nic}: Port module event: module {r.randint(0, 7)}, Cable unplugged", prio=4)
        kind = "ib"
    else:
        ctx.kemit(t_fail - r.uniform(0.5, 5), n, f"NETDEV WATCHDOG: {ctx.ifname} (ena): transmit queue {r.randint(0, 15)} timed out {r.randint(5000, 9000)} ms", prio=4)
        ctx.kemit(t_fail - r.uniform(0.1, 0.5), n, f"ena 0000:00:{r.randint(5, 9):02x}.0 {ctx.ifname}: TX hang detected", prio=4)
        kind = r.choice(["socket", "reset"])
    local = ctx.ranks_on(n)
    others = [q for q in range(ctx.world) if ctx.node_of(q) != n]
    first = min(local)
    if ctx.ib and ctx.nccl_debug:
        for q in local[: r.randint(1, len(local))]:
            tq = t_fail + r.uniform(0, 0.2)
            ctx.emit(tq, n, q, nccl_prefix(ctx, q, tq, True, tid=ctx.pid[q] + 1200) + "transport/net_ib.cc:93 NCCL WARN NET/IB : Got async event : port error")
    # the broken node sees errors from many peers first; then every peer names the broken node
    t_local = t_fail + 0.2
    for j, q in enumerate(local):
        tq = t_local + (0 if q == first else r.uniform(0.05, 4.0))
        peer = ctx.ips[r.choice([x for x in range(ctx.nn) if x != n])]
        end = emit_pairs(ctx, tq, q, remote_error_block(ctx, q, tq, peer, kind, j < 2))
        ctx.exit(q, end + 0.1, -6)
    collateral_remote(ctx, others, t_local + r.uniform(0.5, 3.0), [n], kind, window=30)
    ctx.init_rank = first
    ctx.init_node = n
    ctx.rank_inferable = False
    ctx.notes = f"{'InfiniBand cable/port' if ctx.ib else 'NIC TX hang'} on {ctx.nodes[n]} broke every connection of its ranks; all peers name its address"


def sc_preemption(ctx: Ctx) -> None:
    r = ctx.rng
    tr = begin(ctx)
    upto, t_fail = fail_point(ctx, tr)
    run_steps(ctx, tr, upto)
    if ctx.sched == "slurm":
        why = r.choice(["TIME LIMIT", "PREEMPTION", "PREEMPTION"])
        host = ctx.nodes[0].split(".")[0]
        ctx.launcher(t_fail, f"slurmstepd: error: *** JOB {ctx.job_id} ON {host} CANCELLED AT {f_iso(ctx.lt(t_fail, 0))} DUE TO {why} ***")
        if ctx.family == "srun" or r.random() < 0.6:
            ctx.launcher(t_fail + 0.01, f"srun: Job step aborted: Waiting up to {r.choice([32, 62, 122])} seconds for job step to finish.")
            ctx.launcher(t_fail + 0.02, f"slurmstepd: error: *** STEP {ctx.job_id}.0 ON {host} CANCELLED AT {f_iso(ctx.lt(t_fail, 0))} DUE TO {why} ***")
        for q in range(ctx.world):
            ctx.exit(q, t_fail + r.uniform(0.05, 1.5), -15, own=False)
        ctx.sigterm_all = t_fail
        # a few ranks notice their peers going away before they get killed themselves (decoy)
        late = r.sample(range(ctx.world), min(ctx.world, r.randint(0, 3)))
        for q in late:
            tq = t_fail + r.uniform(0.3, 1.2)
            if ctx.nccl_debug:
                peer = ctx.ips[r.randrange(ctx.nn)]
                ctx.emit(tq, ctx.node_of(q), q, nccl_prefix(ctx, q, tq, True) + f"misc/socket.cc:50 NCCL WARN socketProgress: Connection closed by remote peer {peer}<{r.randint(30000, 60000)}>")
            ctx.exit(q, tq + 0.2, -15, own=False)
        if ctx.layout == "lightning_slurm":
            for q in range(ctx.world):
                ctx.emit(t_fail + 0.02, ctx.node_of(q), q, f"[rank: {q}] Received SIGTERM: 15")
        ctx.init_rank = None
        ctx.init_node = None
        ctx.notes = f"Slurm cancelled the whole job DUE TO {why}; every rank got SIGTERM"
    else:
        n = r.randrange(1, ctx.nn) if ctx.nn > 1 else 0
        if ctx.sched == "k8s":
            ctx.k8s_shutdown = (n, t_fail)
        else:
            ctx.kemit(t_fail - 0.5, n, "systemd-logind[1204]: Power key pressed short." if r.random() < 0.5 else "systemd-logind[1204]: Power key pressed.", prio=6)
            ctx.kemit(t_fail - 0.4, n, "systemd-logind[1204]: Powering off...", prio=6)
            ctx.kemit(t_fail - 0.3, n, "systemd-logind[1204]: System is powering down.", prio=6)
            ctx.kemit(t_fail, n, "systemd[1]: Stopping Session 3 of User ubuntu...", prio=6)
            ctx.kemit(t_fail + 0.1, n, f"systemd[1]: session-3.scope: Killing process {ctx.agent_pid[n]} ({'deepspeed' if ctx.family == 'ds' else 'python3'}) with signal SIGTERM.", prio=6)
        for q in ctx.ranks_on(n):
            ctx.exit(q, t_fail + r.uniform(0.2, 2.0), -15, own=False)
        ctx.sigterm_node = (n, t_fail)
        others = [q for q in range(ctx.world) if ctx.node_of(q) != n]
        if r.random() < 0.6:
            collateral_remote(ctx, others, t_fail + 2.0, [n], "ib" if ctx.ib else "socket", window=30)
        else:
            collateral_timeouts(ctx, others, t_fail, tr.seq_of(upto + 1), coll_desc(ctx))
        ctx.init_rank = min(ctx.ranks_on(n))
        ctx.init_node = n
        ctx.notes = f"{'spot node shutdown (kubelet graceful shutdown)' if ctx.sched == 'k8s' else 'cloud spot reclaim powered off'} {ctx.nodes[n]}; its ranks got SIGTERM, the rest lost them"
    ctx.rank_inferable = False


def sc_hang(ctx: Ctx) -> None:
    r = ctx.rng
    tr = begin(ctx, per_rank=True)
    h = r.randrange(ctx.world)
    upto = tr.s0 + tr.every * tr.n_logged
    last = {h: upto - tr.every}
    run_steps(ctx, tr, upto, last_step=last)
    t_enter = tr.t_of(upto) + tr.period * r.uniform(0.3, 0.9)
    seq = tr.seq_of(upto) + r.randint(0, max(0, tr.coll - 1))
    desc = coll_desc(ctx)
    waiting = [q for q in range(ctx.world) if q != h]
    collateral_timeouts(ctx, waiting, t_enter, seq, desc, last_enq=seq, last_done=seq - 1)
    ctx.exit(h, t_enter + ctx.timeout_ms / 1000 + 30, 0, own=False)  # never fails on its own
    if r.random() < 0.5:
        # somebody ran py-spy on the stuck node
        nh = ctx.node_of(h)
        out = []
        for q in ctx.ranks_on(nh):
            out.append(f"Process {ctx.pid[q]}: {ctx.python} -u {ctx.script} --config configs/run.yaml")
            out.append(f"Python v{ctx.py_v}.{r.randint(4, 14)} ({ctx.python})")
            out.append("")
            if q == h:
                out += [f'Thread {ctx.pid[q]} (active+gil): "MainThread"',
                        f"    _pad_and_gather (eval/metrics.py:{r.randint(40, 120)})",
                        f"    compute_rank_local_metrics (eval/metrics.py:{r.randint(120, 200)})",
                        f"    train ({ctx.script}:{r.randint(200, 300)})", f"    main ({ctx.script}:{r.randint(300, 380)})",
                        f"    <module> ({ctx.script}:{r.randint(380, 700)})"]
            else:
                out += [f'Thread {ctx.pid[q]} (idle): "MainThread"',
                        "    synchronize (torch/cuda/__init__.py:954)", "    item (torch/_tensor.py:1062)",
                        f"    train ({ctx.script}:{r.randint(200, 300)})", f"    main ({ctx.script}:{r.randint(300, 380)})"]
            out += [f'Thread {ctx.pid[q] + 97} (idle): "Thread-2 (_pin_memory_loop)"', "    select (selectors.py:415)", ""]
        ctx.extra[f"py-spy-dump-{ctx.nodes[nh].split('.')[0]}.txt"] = "\n".join(out) + "\n"
    ctx.init_rank = h
    ctx.notes = f"rank {h} stopped progressing after step {upto - tr.every} (stuck in rank-local Python code); every other rank timed out in the collective"


def sc_data_stall(ctx: Ctx) -> None:
    r = ctx.rng
    tr = begin(ctx, per_rank=True)
    h = r.randrange(ctx.world)
    n = ctx.node_of(h)
    upto = tr.s0 + tr.every * tr.n_logged
    last = {h: upto - tr.every}
    data = {h: {}}
    for i, s in enumerate(tr.steps(upto)[-5:]):
        data[h][s] = r.uniform(0.5, 3.0) * (i + 1) if r.random() < 0.6 else r.uniform(0.001, 0.02)
    run_steps(ctx, tr, upto, last_step=last, data=data)
    t_enter = tr.t_of(upto) + tr.period * r.uniform(0.3, 0.9)
    t_stall = tr.t_of(upto - tr.every) + 0.5
    seq = tr.seq_of(upto) + r.randint(0, max(0, tr.coll - 1))
    desc = coll_desc(ctx)
    variant = r.choice(["dl_timeout", "nfs", "nfs"])
    waiting = [q for q in range(ctx.world) if q != h]
    if variant == "dl_timeout" and ctx.timeout_ms >= 1200000:
        dlto = r.choice([600, 900])
        tb = py_traceback(ctx, h, [*user_frames(ctx, "data"), (f"{ctx.site}/torch/utils/data/dataloader.py", 701, "__next__", "data = self._next_data()"), (f"{ctx.site}/torch/utils/data/dataloader.py", 1448, "_next_data", "idx, data = self._get_data()"), (f"{ctx.site}/torch/utils/data/dataloader.py", 1402, "_get_data", "success, data = self._try_get_data()"), (f"{ctx.site}/torch/utils/data/dataloader.py", 1256, "_try_get_data", "raise RuntimeError(f'DataLoader timed out after {self._timeout} seconds') from e")],
            [f"RuntimeError: DataLoader timed out after {dlto} seconds"])
        end = ctx.emit_block(t_stall + dlto, n, h, tb)
        ctx.exit(h, end + 0.5, 1)
        cascade_after_death(ctx, h, end + 1, seq)
        ctx.notes = f"rank {h}'s DataLoader stopped delivering batches; it raised 'DataLoader timed out' before the NCCL timeout"
    else:
        srv = r.choice(["nfs01", "fs-data.internal", "10.20.0.5", "vast-vip"])
        ctx.kemit(t_stall + r.uniform(5, 60), n, f"nfs: server {srv} not responding, still trying", prio=4)
        wpid = ctx.pid[h] + r.randint(100, 900)
        tk = t_stall + 123 + r.uniform(0, 5)
        for i, x in enumerate([f"INFO: task pt_data_worker:{wpid} blocked for more than 122 seconds.",
                               f"      Tainted: P           OE     5.15.0-{r.randint(90, 130)}-generic #{r.randint(100, 140)}-Ubuntu",
                               '"echo 0 > /proc/sys/kernel/hung_task_timeout_secs" disables this message.',
                               f"task:pt_data_worker  state:D stack:0     pid:{wpid}  ppid:{ctx.pid[h]} flags:0x00004002",
                               "Call Trace:", " <TASK>", " __schedule+0x2cd/0x8a0", " schedule+0x4e/0xc0",
                               " rpc_wait_bit_killable+0x1e/0x90 [sunrpc]", " nfs4_proc_read+0x6a/0x100 [nfsv4]", " </TASK>"]):
            ctx.kemit(tk + i * 0.0002, n, x, prio=3)
        collateral_timeouts(ctx, waiting, t_enter, seq, desc, last_enq=seq, last_done=seq - 1)
        ctx.exit(h, t_enter + ctx.timeout_ms / 1000 + 30, 0, own=False)
        if r.random() < 0.5:
            ctx.extra[f"py-spy-dump-rank{h}.txt"] = "\n".join([
                f"Process {ctx.pid[h]}: {ctx.python} -u {ctx.script}", f"Python v{ctx.py_v}.9 ({ctx.python})", "",
                f'Thread {ctx.pid[h]} (idle): "MainThread"', "    poll (multiprocessing/connection.py:440)",
                "    _poll (multiprocessing/connection.py:257)", "    get (multiprocessing/queues.py:113)",
                "    _try_get_data (torch/utils/data/dataloader.py:1243)", "    _get_data (torch/utils/data/dataloader.py:1402)",
                "    _next_data (torch/utils/data/dataloader.py:1448)", "    __next__ (torch/utils/data/dataloader.py:701)",
                f"    train ({ctx.script}:{r.randint(200, 300)})", f"    main ({ctx.script}:{r.randint(300, 380)})", ""])
        ctx.notes = f"rank {h}'s data loader blocked on NFS ({srv}) on {ctx.nodes[n]}; the others waited in the collective until the watchdog fired"
    ctx.init_rank = h


def sc_mismatch(ctx: Ctx) -> None:
    r = ctx.rng
    tr = begin(ctx, per_rank=r.random() < 0.5)
    upto, t_fail = fail_point(ctx, tr)
    run_steps(ctx, tr, upto)
    m = r.randrange(ctx.world)
    seq = tr.seq_of(upto + 1) + r.randint(0, tr.coll)
    if ctx.rng.random() < 0.4 and ctx.era != "A":
        # TORCH_DISTRIBUTED_DEBUG=DETAIL: ProcessGroupWrapper compares fingerprints
        shape_ok = r.choice(["[1]", "[26214400]", "[4096, 4096]"])
        kind = r.choice(["op", "shape"])
        opa = "ALLREDUCE"
        opb = r.choice(["BROADCAST", "ALLGATHER", "BARRIER"]) if kind == "op" else "ALLREDUCE"
        first = int(shape_ok.strip("[]").split(",")[0])
        shape_b = shape_ok if kind == "op" else "[" + str(first + r.choice([1, 64] + ([-1] if first > 1 else []))) + "]"

        def fp(op: str, shape: str) -> str:
            if op == "BARRIER":
                return f"CollectiveFingerPrint(SequenceNumber={seq}OpType=BARRIER)"
            return (f"CollectiveFingerPrint(SequenceNumber={seq}, OpType={op}, TensorShape={shape}, TensorDtypes=Float, "
                    "TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt)))")
        for q in range(ctx.world):
            if q == m:
                other = 0 if m != 0 else 1
                msg = f"RuntimeError: Detected mismatch between collectives on ranks. Rank {q} is running collective: {fp(opb, shape_b)}, but Rank {other} is running collective: {fp(opa, shape_ok)}."
            else:
                msg = f"RuntimeError: Detected mismatch between collectives on ranks. Rank {q} is running collective: {fp(opa, shape_ok)}, but Rank {m} is running collective: {fp(opb, shape_b)}."
            if kind == "op":
                msg += f"Collectives differ in the following aspects: \t Op type: {opa}vs {opb}" if q != m else f"Collectives differ in the following aspects: \t Op type: {opb}vs {opa}"
            else:
                msg += f"Collectives differ in the following aspects: \t Tensor Tensor shapes: {shape_ok.strip('[]')}vs {shape_b.strip('[]')}" if q != m else f"Collectives differ in the following aspects: \t Tensor Tensor shapes: {shape_b.strip('[]')}vs {shape_ok.strip('[]')}"
            tq = t_fail + (r.uniform(0.5, 1.5) if q == m else r.uniform(0, 0.5))
            tb = py_traceback(ctx, q, [*user_frames(ctx, "step"), (f"{ctx.site}/torch/distributed/c10d_logger.py", 81, "wrapper", "return func(*args, **kwargs)"), (f"{ctx.site}/torch/distributed/distributed_c10d.py", 2501, "all_reduce", "work = group.allreduce([tensor], opts)")], [msg])
            end = ctx.emit_block(tq, ctx.node_of(q), q, tb)
            ctx.exit(q, end + r.uniform(0.2, 1.0), 1)
        ctx.notes = f"rank {m} issued a different collective ({opb} {shape_b}) at SeqNum {seq}; DETAIL debug reported the mismatch on every rank"
    else:
        op, nin, nout = coll_desc(ctx)
        if r.random() < 0.5:
            odd = (r.choice(["BROADCAST", "ALLGATHER", "_ALLGATHER_BASE"]), 1, 1 if r.random() < 0.5 else ctx.world)
        else:
            odd = (op, nin + r.choice([1, 1024, 4096]), nout + r.choice([1, 1024, 4096]))
        collateral_timeouts(ctx, list(range(ctx.world)), t_fail, seq, (op, nin, nout), desc_for={m: odd}, spread=3.0,
                            early={m})
        ctx.notes = f"rank {m} enqueued {odd[0]} (NumelIn={odd[1]}) while the others ran {op} (NumelIn={nin}) at SeqNum {seq}; all ranks timed out"
    ctx.init_rank = m


def sc_straggler(ctx: Ctx) -> None:
    r = ctx.rng
    tr = begin(ctx, per_rank=True)
    node_level = r.random() < 0.3
    n = r.randrange(ctx.nn)
    h = r.choice(ctx.ranks_on(n))
    slow_set = ctx.ranks_on(n) if node_level else [h]
    factor = r.uniform(1.35, 2.6)
    upto = tr.s0 + tr.every * tr.n_logged
    onset = tr.steps(upto)[r.randint(0, 3)]
    fwd = {q: factor for q in slow_set}
    for s in range(onset, upto + 1):
        tr.extra[s] = tr.period * (factor - 1) * 0.8
    ending = r.choice(["running", "running", "timeout"])
    if ending == "timeout":
        # a short user-set timeout and a GPU that keeps throttling harder
        ctx.timeout_ms = r.choice([60000, 120000, 180000])
        for i, s in enumerate(tr.steps(upto)[-5:]):
            tr.ramp[s] = 1.6 ** (i + 1)
            tr.extra[s] = tr.extra.get(s, 0) + tr.period * factor * (1.6 ** (i + 1) - 1)
    run_steps(ctx, tr, upto, fwd=fwd)
    if ending == "timeout":
        # the slow GPU keeps degrading until one collective waits longer than the timeout
        t_enter = tr.t_of(upto) + tr.period
        seq = tr.seq_of(upto + 1)
        waiting = [q for q in range(ctx.world) if q not in slow_set]
        collateral_timeouts(ctx, waiting, t_enter, seq, coll_desc(ctx), last_enq=seq, last_done=seq - 1)
        peers = sorted({ctx.node_of(q) for q in waiting}) or [n]
        collateral_remote(ctx, slow_set, t_enter + ctx.timeout_ms / 1000 + r.uniform(20, 60), peers,
                          "ib" if ctx.ib else "socket", window=10)
    else:
        ctx.still_running = True
    if not node_level and r.random() < 0.5:
        rows = ["index, pci.bus_id, temperature.gpu, clocks.sm [MHz], power.draw [W], clocks_event_reasons.hw_thermal_slowdown, clocks_event_reasons.sw_thermal_slowdown"]
        for lr in range(ctx.gpn):
            hot = (lr == ctx.local_of(h))
            rows.append(f"{lr}, 0000{ctx.bus[n][lr].upper()}.0, {r.randint(88, 94) if hot else r.randint(55, 70)}, {r.randint(900, 1300) if hot else r.randint(1755, 1980)}, {r.uniform(300, 450) if hot else r.uniform(550, 690):.2f} W, {'Active' if hot else 'Not Active'}, {'Active' if hot else 'Not Active'}")
        ctx.extra[f"nvidia-smi-{ctx.nodes[n].split('.')[0]}.csv"] = "\n".join(rows) + "\n"
    if node_level:
        ctx.init_rank = min(slow_set)
        ctx.init_node = n
        ctx.rank_inferable = False
        ctx.notes = f"every rank on {ctx.nodes[n]} computes {factor:.1f}x slower (node-level straggler); the job {'keeps running slowly' if ending == 'running' else 'eventually timed out'}"
    else:
        ctx.init_rank = h
        ctx.notes = f"rank {h} computes {factor:.1f}x slower than its peers from step {onset}; the others wait in all-reduce; the job {'keeps running slowly' if ending == 'running' else 'eventually timed out'}"


def sc_healthy(ctx: Ctx) -> None:
    r = ctx.rng
    tr = begin(ctx, per_rank=r.random() < 0.3)
    upto = tr.s0 + tr.every * tr.n_logged
    if ctx.family == "elastic" and ctx.layout != "issue_paste":
        variant = r.choice(["restart", "restart", "scary", "oom_retry", "xid_info"])
    else:
        variant = r.choice(["scary", "oom_retry", "xid_info"])
    if variant == "restart":
        mid = tr.steps(upto)[len(tr.steps(upto)) // 2]
        run_steps(ctx, tr, mid)
        k = r.randrange(ctx.world)
        tf = tr.t_of(mid) + 2
        tb = py_traceback(ctx, k, user_frames(ctx, "data"), ["OSError: [Errno 116] Stale file handle: '/data/tokenized/shard-00412.bin'"])
        ctx.emit_block(tf, ctx.node_of(k), k, tb)
        ctx.restart = (k, tf + 0.5)
        tr.s0 = mid - (mid % 500)
        tr.t0 = tf + r.uniform(60, 120)
        tr.extra = {}
        ctx.emit(tr.t0 - 5, 0, 0, f"Resuming from checkpoint /checkpoints/run{ctx.idx:03d}/step_{tr.s0} (global step {tr.s0})", stream="stdout")
        run_steps(ctx, tr, upto)
        ctx.notes = f"rank {k} hit a transient 'Stale file handle'; torchelastic restarted the worker group, which resumed and finished"
    else:
        run_steps(ctx, tr, upto)
        if variant == "restart":
            variant = "scary"
        if variant == "scary":
            t = tr.t_of(upto) - tr.period * 30
            if ctx.wandb:
                ctx.emit(t, 0, 0, "wandb: Network error (ReadTimeout), entering retry loop.")
                ctx.emit(t + 41.6, 0, 0, f"wandb: Network error resolved after 0:00:{r.randint(10, 59)}.{r.randint(100000, 999999)}, resuming normal operation.")
            if ctx.ib:
                for q in r.sample(range(ctx.world), min(ctx.world, 4)):
                    ctx.emit(t + 3, ctx.node_of(q), q, "")
                    ctx.emit(t + 3.001, ctx.node_of(q), q, nccl_prefix(ctx, q, t + 3, True) + "transport/net_ib.cc:93 NCCL WARN NET/IB : Got async event : client reregistration")
            ctx.notes = "harmless NCCL async-event warnings and W&B retries; training finished normally"
        elif variant == "oom_retry":
            k = r.randrange(ctx.world)
            t = tr.t_of(tr.steps(upto)[2]) + 1
            ctx.emit(t, ctx.node_of(k), k, f"{f_py(ctx.lt(t, ctx.node_of(k)))} - WARNING - auto_batch - caught torch.OutOfMemoryError: {oom_message(ctx, ctx.local_of(k))}")
            ctx.emit(t + 0.01, ctx.node_of(k), k, f"{f_py(ctx.lt(t, ctx.node_of(k)))} - WARNING - auto_batch - retrying step with micro_batch_size=2 (was 4)")
            ctx.notes = f"rank {k} caught a CUDA OOM and retried with a smaller micro-batch; training finished normally"
        else:
            n = r.randrange(ctx.nn)
            lr = r.randrange(ctx.gpn)
            ctx.kemit(ctx.t_job - r.uniform(3600, 86400), n, xid_line(ctx, n, lr, 63, "Row Remapper: New row marked for remapping, reset gpu to activate.", None))
            old_app_xid(ctx, r.randrange(ctx.nn))
            ctx.notes = "an informational row-remap Xid 63 before the job and an old application Xid from another job; training finished normally"
    t_end = tr.t_of(upto) + r.uniform(5, 60)
    if tr.style == "hf":
        ctx.emit(t_end - 1, 0, 0, f"{{'train_runtime': {t_end - tr.t0:.4f}, 'train_samples_per_second': {r.uniform(10, 500):.3f}, 'train_steps_per_second': {1 / tr.period:.3f}, 'train_loss': {tr.loss(upto):.6f}, 'epoch': 3.0}}", stream="stdout")
    elif ctx.layout == "lightning_slurm":
        ctx.emit(t_end - 1, 0, 0, f"`Trainer.fit` stopped: `max_steps={upto}` reached.")
    else:
        ctx.emit(t_end - 1, 0, 0, f"{f_py(ctx.lt(t_end - 1, 0))} | INFO | training finished: {upto} steps in {f_hms(t_end - tr.t0)}, final loss {tr.loss(upto):.4f}", stream="stdout")
    if ctx.era in "CD":
        for q in range(ctx.world):
            tq = t_end + r.uniform(0, 2)
            ctx.emit(tq, ctx.node_of(q), q, ctx.glog(q, tq, "W", "ProcessGroupNCCL.cpp", 1250) + "Warning: WARNING: process group has NOT been destroyed before we destruct ProcessGroupNCCL. On normal program exit, the application should call destroy_process_group to ensure that any pending NCCL operations have finished in this process. In rare cases this process can exit before this point and block the progress of another member of the process group. This constraint has always been present,  but this warning has only been added since PyTorch 2.4 (function operator())", noise=True)
    for q in range(ctx.world):
        ctx.exit(q, t_end + r.uniform(2, 4), 0)
    ctx.healthy_end = t_end + 4


SCENARIOS = {
    "gpu_hardware": sc_gpu_hardware, "ecc_memory": sc_ecc, "nvlink": sc_nvlink, "network": sc_network,
    "host_oom_kill": sc_host_oom, "cuda_oom": sc_cuda_oom, "python_exception": sc_python_exception,
    "crash_signal": sc_crash_signal, "hang": sc_hang, "collective_mismatch": sc_mismatch,
    "data_loader_stall": sc_data_stall, "preemption": sc_preemption, "straggler": sc_straggler,
}


# ----------------------------------------------------------------------------- launcher teardown
def sig_of(code: int) -> tuple[str, str]:
    return SIG.get(code, ("SIGKILL", "Killed"))


def child_failed(ctx: Ctx, n: int, fails: list[tuple[float, int, int]], accelerate: bool) -> list[str]:
    """torchelastic agent's traceback and ChildFailedError summary for node n."""
    st = ctx.site
    binp = os.path.dirname(ctx.python)
    if accelerate:
        out = ["Traceback (most recent call last):", f'  File "{binp}/accelerate", line 8, in <module>', "    sys.exit(main())",
               f'  File "{st}/accelerate/commands/accelerate_cli.py", line 48, in main', "    args.func(args)",
               f'  File "{st}/accelerate/commands/launch.py", line 1168, in launch_command', "    multi_gpu_launcher(args)",
               f'  File "{st}/accelerate/commands/launch.py", line 763, in multi_gpu_launcher', "    distrib_run.run(args)"]
    else:
        out = ["Traceback (most recent call last):", f'  File "{binp}/torchrun", line 8, in <module>', "    sys.exit(main())",
               f'  File "{st}/torch/distributed/elastic/multiprocessing/errors/__init__.py", line 355, in wrapper', "    return f(*args, **kwargs)",
               f'  File "{st}/torch/distributed/run.py", line 919, in main', "    run(args)"]
    out += [f'  File "{st}/torch/distributed/run.py", line 910, in run', "    elastic_launch(",
            f'  File "{st}/torch/distributed/launcher/api.py", line 138, in __call__', "    return launch_agent(self._config, self._entrypoint, list(args))",
            f'  File "{st}/torch/distributed/launcher/api.py", line 269, in launch_agent', "    raise ChildFailedError(",
            "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ", "=" * 60, f"{ctx.script} FAILED", "-" * 60, "Failures:"]

    def entry(i: int, t: float, q: int, code: int) -> list[str]:
        e = [f"[{i}]:", f"  time      : {_d(ctx.lt(t, n)).strftime('%Y-%m-%d_%H:%M:%S')}", f"  host      : {ctx.nodes[n]}",
             f"  rank      : {q} (local_rank: {ctx.local_of(q)})", f"  exitcode  : {code} (pid: {ctx.pid[q]})", "  error_file: <N/A>"]
        if code < 0:
            e.append(f"  traceback : Signal {-code} ({sig_of(code)[0]}) received by PID {ctx.pid[q]}")
        else:
            e.append("  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html")
        return e
    if len(fails) == 1:
        out.append("  <NO_OTHER_FAILURES>")
    for i, (t, q, code) in enumerate(fails[1:], start=1):
        out += entry(i, t, q, code)
    out += ["-" * 60, "Root Cause (first observed failure):", *entry(0, *fails[0]), "=" * 60]
    return out


def agent_signal_exc(ctx: Ctx, n: int) -> list[str]:
    st = ctx.site
    return ["Traceback (most recent call last):", f'  File "{os.path.dirname(ctx.python)}/torchrun", line 8, in <module>', "    sys.exit(main())",
            f'  File "{st}/torch/distributed/run.py", line 910, in run', "    elastic_launch(",
            f'  File "{st}/torch/distributed/launcher/api.py", line 260, in launch_agent', "    result = agent.run()",
            f'  File "{st}/torch/distributed/elastic/agent/server/api.py", line 696, in run', "    result = self._invoke_run(role)",
            f'  File "{st}/torch/distributed/elastic/agent/server/api.py", line 855, in _invoke_run', "    time.sleep(monitor_interval)",
            f'  File "{st}/torch/distributed/elastic/multiprocessing/api.py", line 84, in _terminate_process_handler',
            '    raise SignalException(f"Process {os.getpid()} got signal: {sigval}", sigval=sigval)',
            f"torch.distributed.elastic.multiprocessing.api.SignalException: Process {ctx.agent_pid[n]} got signal: 15"]


def agent_kill_lines(ctx: Ctx, n: int, t: float, victims: list[int]) -> float:
    r = ctx.rng
    for q in victims:
        if ctx.era == "D":
            msg = f"Closing process {ctx.pid[q]} via signal SIGTERM"
        else:
            msg = f"Sending process {ctx.pid[q]} closing signal SIGTERM"
        ctx.emit(t, n, None, elastic_line(ctx, n, t, "W", "torch.distributed.elastic.multiprocessing.api", 897, msg))
        t += r.uniform(0.0001, 0.002)
    return t


def td_elastic(ctx: Ctx) -> dict[int, Exit]:
    r = ctx.rng
    deaths: dict[int, Exit] = {}
    accel = ctx.layout == "accelerate"
    for n in range(ctx.nn):
        local = ctx.ranks_on(n)
        silent = all(q in ctx.exits and not ctx.exits[q].own and ctx.exits[q].code == -9 for q in local)
        if silent:  # the node died (power loss / hard hang): nothing more from it
            for q in local:
                deaths[q] = ctx.exits[q]
            continue
        sig_node = getattr(ctx, "sigterm_node", None)
        sig_t = getattr(ctx, "sigterm_all", None)
        if sig_node and sig_node[0] == n:
            sig_t = sig_node[1]
        if sig_t is not None:
            t = sig_t + r.uniform(0.001, 0.05)
            ctx.emit(t, n, None, elastic_line(ctx, n, t, "W", "torch.distributed.elastic.agent.server.api", 719, "Received 15 death signal, shutting down workers"))
            t = agent_kill_lines(ctx, n, t + 0.001, local)
            for q in local:
                deaths[q] = Exit(t + r.uniform(0.01, 1.0), -15, False)
            ctx.emit_block(t + r.uniform(0.5, 3), n, None, agent_signal_exc(ctx, n))
            continue
        own = sorted((ctx.exits[q].t, q, ctx.exits[q].code) for q in local
                     if q in ctx.exits and ctx.exits[q].own and ctx.exits[q].code != 0)
        if not own:
            for q in local:
                if q in ctx.exits and ctx.exits[q].code != 0:
                    deaths[q] = ctx.exits[q]
            continue
        t_f = own[0][0]
        t_kill = t_f + r.uniform(0.1, 4.5)
        fails = [f for f in own if f[0] <= t_kill]
        failed = {f[1] for f in fails}
        for t, q, code in fails:
            deaths[q] = Exit(t, code, True)
        victims = [q for q in local if q not in failed]
        t = agent_kill_lines(ctx, n, t_kill, victims)
        for q in victims:
            deaths[q] = Exit(t_kill + r.uniform(0.01, 0.6), -15, False)
        t_rep = t + r.uniform(0.3, 30 if victims else 0.5)
        q0 = fails[0][1]
        ctx.emit(t_rep, n, None, elastic_line(ctx, n, t_rep, "E", "torch.distributed.elastic.multiprocessing.api", 869,
                                              f"failed (exitcode: {fails[0][2]}) local_rank: {ctx.local_of(q0)} (pid: {ctx.pid[q0]}) of binary: {ctx.python}"))
        ctx.emit_block(t_rep + 0.05, n, None, child_failed(ctx, n, fails, accel))
    return deaths


SRUN_REASON = {1: "Exited with exit code 1", -6: "Aborted (core dumped)", -9: "Killed", -11: "Segmentation fault (core dumped)",
               -7: "Bus error (core dumped)", -15: "Terminated"}


def td_srun(ctx: Ctx) -> dict[int, Exit]:
    r = ctx.rng
    deaths: dict[int, Exit] = {}
    alive_forever = [q for q in range(ctx.world) if q in ctx.exits and ctx.exits[q].code == 0 and not ctx.exits[q].own]
    for q in range(ctx.world):
        if q in ctx.exits and q not in alive_forever:
            deaths[q] = ctx.exits[q]
    nf = getattr(ctx, "node_fail", None)
    own = sorted((e.t, q) for q, e in deaths.items() if e.own and e.code != 0)
    if getattr(ctx, "sigterm_all", None) is None and own and ctx.kill_on_bad_exit:
        t_f = own[0][0]
        t_k = t_f + r.uniform(0.2, 1.5)
        ctx.launcher(t_k, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.")
        ctx.launcher(t_k + 0.01, f"slurmstepd: error: *** STEP {ctx.job_id}.0 ON {ctx.nodes[0].split('.')[0]} CANCELLED AT {f_iso(ctx.lt(t_k, 0))} ***")
        for q in range(ctx.world):
            if q not in deaths or deaths[q].t > t_k + 0.3:
                deaths[q] = Exit(t_k + r.uniform(0.05, 0.3), -15, False)
        alive_forever = []
    if nf:
        n, t_nf = nf
        ctx.launcher(t_nf, f"srun: error: Node failure on {ctx.nodes[n].split('.')[0]}")
        ctx.launcher(t_nf + 0.01, f"slurmstepd: error: *** JOB {ctx.job_id} ON {ctx.nodes[0].split('.')[0]} CANCELLED AT {f_iso(ctx.lt(t_nf, 0))} DUE TO NODE FAILURE, SEE SLURMCTLD LOG FOR DETAILS ***")
        for q in range(ctx.world):
            if q not in deaths or deaths[q].t > t_nf:
                deaths[q] = Exit(t_nf + r.uniform(0.05, 0.5), -15, False)
        alive_forever = []
    if alive_forever:
        t_last = max([e.t for e in deaths.values()] or [ctx.t_job])
        t_c = t_last + r.uniform(300, 3000)
        ctx.launcher(t_c, f"slurmstepd: error: *** STEP {ctx.job_id}.0 ON {ctx.nodes[0].split('.')[0]} CANCELLED AT {f_iso(ctx.lt(t_c, 0))} ***")
        for q in alive_forever:
            deaths[q] = Exit(t_c + r.uniform(0.05, 0.4), -15, False)
    # "srun: error: host: tasks a-b: reason" grouped per node and reason
    groups: dict[tuple[int, int], list[tuple[float, int]]] = {}
    for q, e in deaths.items():
        if nf and ctx.node_of(q) == nf[0]:
            continue
        groups.setdefault((ctx.node_of(q), e.code), []).append((e.t, q))
    for (n, code), items in sorted(groups.items(), key=lambda kv: max(x[0] for x in kv[1])):
        if code == 0:
            continue
        tq = max(x[0] for x in items) + r.uniform(0.05, 1.0)
        qs = [x[1] for x in items]
        word = "task" if len(qs) == 1 else "tasks"
        why = "Out Of Memory" if ctx.cgroup_oom_rank in qs and code == -9 else SRUN_REASON.get(code, "Killed")
        ctx.launcher(tq, f"srun: error: {ctx.nodes[n].split('.')[0]}: {word} {ranges(qs)}: {why}")
    return deaths


def td_mpirun(ctx: Ctx) -> dict[int, Exit]:
    r = ctx.rng
    deaths: dict[int, Exit] = {}
    cands = sorted((e.t, q, e.code) for q, e in ctx.exits.items() if e.code != 0)
    if not cands:
        return deaths
    t_f, q0, c0 = cands[0]
    own_first = [c for c in cands if ctx.exits[c[1]].own]
    if own_first and getattr(ctx, "sigterm_all", None) is None:
        t_f, q0, c0 = own_first[0]
    t_k = t_f + r.uniform(0.2, 1.5)
    for t, q, c in cands:
        if t <= t_k:
            deaths[q] = Exit(t, c, ctx.exits[q].own)
    for q in range(ctx.world):
        if q not in deaths:
            deaths[q] = Exit(t_k + r.uniform(0.01, 0.5), -15, False)
    bar = "-" * 74
    dead_nodes = [n for n in range(ctx.nn) if all(q in ctx.exits and not ctx.exits[q].own and ctx.exits[q].code in (-9, -15)
                                                  for q in ctx.ranks_on(n)) and (ctx.node_fail or ctx.sigterm_node)]
    if dead_nodes:
        n = dead_nodes[0]
        tl = min(ctx.exits[q].t for q in ctx.ranks_on(n)) + r.uniform(20, 90)
        if tl < t_k:
            for i, x in enumerate([bar, "ORTE has lost communication with a remote daemon.", "",
                                   f"  HNP daemon   : [[{ctx.job_id % 65536},0],0] on node {short(ctx.nodes[0])}",
                                   f"  Remote daemon: [[{ctx.job_id % 65536},0],{n}] on node {short(ctx.nodes[n])}", "",
                                   "This is usually due to either a failure of the TCP network", "connection to the node, or possibly an internal failure of",
                                   "the daemon itself. We cannot recover from this failure, and", "therefore will terminate the job.", bar]):
                ctx.launcher(tl + i * 0.0001, x)
            for q in range(ctx.world):
                if q not in deaths or deaths[q].t > tl:
                    deaths[q] = Exit(tl + r.uniform(0.05, 0.5), -15, False)
            return deaths
    if c0 == 1:
        block = [bar, "Primary job  terminated normally, but 1 process returned", "a non-zero exit code. Per user-direction, the job has been aborted.", bar,
                 bar, "mpirun detected that one or more processes exited with non-zero status, thus causing", "the job to be terminated. The first process to do so was:", "",
                 f"  Process name: [[{ctx.job_id % 65536},1],{q0}]", "  Exit code:    1", bar]
    else:
        n0 = ctx.node_of(q0)
        block = [bar, f"mpirun noticed that process rank {q0} with PID {ctx.pid[q0]} on node {ctx.nodes[n0].split('.')[0]} exited on signal {-c0} ({sig_of(c0)[1]}).", bar]
        if r.random() < 0.5:
            block.append(f"{ctx.world - 1} total processes killed (some possibly by mpirun during cleanup)")
    for i, x in enumerate(block):
        ctx.launcher(t_k + 0.5 + i * 0.0001, x)
    return deaths


def td_ds(ctx: Ctx) -> dict[int, Exit]:
    r = ctx.rng
    deaths: dict[int, Exit] = {}
    host0 = ctx.nodes[0]
    for n in range(ctx.nn):
        local = ctx.ranks_on(n)
        sig_node = getattr(ctx, "sigterm_node", None)
        if (sig_node and sig_node[0] == n) or all(q in ctx.exits and not ctx.exits[q].own and ctx.exits[q].code == -9 for q in local):
            for q in local:
                deaths[q] = ctx.exits[q]
            tq = max(ctx.exits[q].t for q in local) + r.uniform(1, 20)
            ctx.launcher(tq, f"pdsh@{host0}: {ctx.nodes[n]}: ssh exited with exit code 255")
            continue
        own = sorted((ctx.exits[q].t, q, ctx.exits[q].code) for q in local if q in ctx.exits and ctx.exits[q].own and ctx.exits[q].code != 0)
        if not own:
            continue
        t_f, q0, c0 = own[0]
        t_k = t_f + r.uniform(0.05, 2.0)
        deaths[q0] = Exit(t_f, c0, True)
        t = t_k
        for q in local:
            ctx.emit(t, n, None, f"[{f_py(ctx.lt(t, n))}] [INFO] [launch.py:315:sigkill_handler] Killing subprocess {ctx.pid[q]}")
            if q != q0:
                if q in ctx.exits and ctx.exits[q].own and ctx.exits[q].t <= t:
                    deaths[q] = ctx.exits[q]
                else:
                    deaths[q] = Exit(t + r.uniform(0.01, 0.2), -15, False)
            t += r.choice([0.001, 0.002, 30.0]) if r.random() < 0.15 else r.uniform(0.0005, 0.01)
        cmd = f"['{ctx.python}', '-u', '{ctx.script}', '--local_rank={ctx.local_of(q0)}', '--deepspeed', '--deepspeed_config', 'ds_config.json']"
        ctx.emit(t + 0.01, n, None, f"[{f_py(ctx.lt(t + 0.01, n))}] [ERROR] [launch.py:321:sigkill_handler] {cmd} exits with return code = {c0}")
        ctx.launcher(t + r.uniform(0.2, 2), f"pdsh@{host0}: {ctx.nodes[n]}: ssh exited with exit code 1")
    return deaths


def td_ray(ctx: Ctx) -> dict[int, Exit]:
    r = ctx.rng
    deaths: dict[int, Exit] = {}
    cands = sorted((e.t, q, e.code) for q, e in ctx.exits.items() if e.code != 0 and e.own)
    if not cands:
        cands = sorted((e.t, q, e.code) for q, e in ctx.exits.items() if e.code != 0)
        if not cands:
            return deaths
    t_f, q0, c0 = cands[0]
    t_k = t_f + r.uniform(0.5, 3.0)
    for t, q, c in cands:
        if t <= t_k:
            deaths[q] = Exit(t, c, True)
    for q in range(ctx.world):
        if q not in deaths:
            deaths[q] = Exit(t_k + r.uniform(0.01, 0.5), -9, False)
    n0 = ctx.node_of(q0)
    ip = ctx.ips[n0]
    if c0 != 1:
        ctx.launcher(t_f + 0.8, f"\x1b[33m(raylet, ip={ip})\x1b[0m A worker died or was killed while executing a task by an unexpected system error. To troubleshoot the problem, check the logs for the dead worker. RayTask ID: ffffffffffffffff{r.randrange(16 ** 24):024x} Worker ID: {r.randrange(16 ** 56):056x} Node ID: {r.randrange(16 ** 56):056x} Worker IP address: {ip} Worker port: {r.randint(10000, 10100)} Worker PID: {ctx.pid[q0]} Worker exit type: SYSTEM_ERROR Worker exit detail: Worker unexpectedly exits with a connection error code 2. End of file. There are some potential root causes. (1) The process is killed by SIGKILL by OOM killer due to high memory usage. (2) ray stop --force is called. (3) The worker is crashed unexpectedly due to SIGSEGV or other unexpected errors.")
        err = ["ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.", "\tclass_name: RayTrainWorker",
               f"\tactor_id: {r.randrange(16 ** 32):032x}", f"\tpid: {ctx.pid[q0]}", f"\tnamespace: {r.randrange(16 ** 8):08x}-{r.randrange(16 ** 4):04x}-4{r.randrange(16 ** 3):03x}-a{r.randrange(16 ** 3):03x}-{r.randrange(16 ** 12):012x}",
               f"\tip: {ip}", "The actor is dead because its worker process has died. Worker exit type: SYSTEM_ERROR Worker exit detail: Worker unexpectedly exits with a connection error code 2. End of file."]
    else:
        err = [f"ray.exceptions.RayTaskError({r.choice(['RuntimeError', 'DistBackendError', 'OutOfMemoryError'])}): \x1b[36mray::_RayTrainWorker__execute.get_next()\x1b[39m (pid={ctx.pid[q0]}, ip={ip}, actor_id={r.randrange(16 ** 32):032x}, repr=<ray.train._internal.worker_group.RayTrainWorker object at 0x7f{r.randrange(16 ** 10):010x}>)",
               "  File \"{ctx.site}/ray/train/_internal/worker_group.py\", line 33, in __execute", "    raise skipped from exception_cause(skipped)",
               f"  File \"{ctx.workdir}/{ctx.script}\", line {r.randint(180, 300)}, in train_func", "    ...", "(see worker output above)"]
    t = t_k + 1.5
    ctx.launcher(t, f"{f_py(ctx.lt(t, 0))}\tERROR tune_controller.py:1331 -- Trial task failed for trial TorchTrainer_{r.randrange(16 ** 5):05x}_00000")
    tb = ["Traceback (most recent call last):", f'  File "{ctx.site}/ray/air/execution/_internal/event_manager.py", line 110, in resolve_future', "    result = ray.get(future)", f'  File "{ctx.site}/ray/_private/worker.py", line 2782, in get', "    values, debugger_breakpoint = worker.get_objects(object_refs, timeout=timeout)", f'  File "{ctx.site}/ray/_private/worker.py", line 931, in get_objects', "    raise value", *err]
    for i, x in enumerate(tb):
        ctx.launcher(t + 0.001 + i * 0.0001, x)
    t2 = t + r.uniform(1, 5)
    for i, x in enumerate(["", "The above exception was the direct cause of the following exception:", "", "Traceback (most recent call last):",
                           f'  File "{ctx.workdir}/launch_ray.py", line {r.randint(40, 120)}, in <module>', "    result = trainer.fit()",
                           f'  File "{ctx.site}/ray/train/base_trainer.py", line 638, in fit', "    raise TrainingFailedError(",
                           "ray.train.base_trainer.TrainingFailedError: The Ray Train run failed. Please inspect the previous error messages for a cause. After fixing the issue (assuming that the error is not caused by your own application logic, but rather an error such as OOM), you can restart the run from scratch or continue this run."]):
        ctx.launcher(t2 + i * 0.0001, x)
    return deaths


def td_healthy(ctx: Ctx) -> None:
    r = ctx.rng
    t = ctx.healthy_end
    rs = getattr(ctx, "restart", None)
    if rs and ctx.family == "elastic":
        k, tf = rs
        nk = ctx.node_of(k)
        for n in range(ctx.nn):
            tt = tf + (1 if n == nk else r.uniform(2, 9))
            if n == nk:
                msgs = [("E", "torch.distributed.elastic.multiprocessing.api", 869, f"failed (exitcode: 1) local_rank: {ctx.local_of(k)} (pid: {ctx.pid[k]}) of binary: {ctx.python}"),
                        ("I", "torch.distributed.elastic.agent.server.api", 889, "[default] Worker group FAILED. 3/3 attempts left; will restart worker group")]
            else:
                msgs = [("I", "torch.distributed.elastic.agent.server.api", 906, f"[default] Detected 1 new nodes from group_rank={nk}; will restart worker group")]
            msgs += [("I", "torch.distributed.elastic.agent.server.api", 720, "[default] Stopping worker group")]
            for lvl, mod, ln, m in msgs:
                ctx.emit(tt, n, None, elastic_line(ctx, n, tt, lvl, mod, ln, m))
                tt += 0.01
            tt = agent_kill_lines(ctx, n, tt, [q for q in ctx.ranks_on(n) if q != k])
            ctx.emit(tt + 0.5, n, None, elastic_line(ctx, n, tt + 0.5, "I", "torch.distributed.elastic.agent.server.api", 528, "[default] Rendezvous'ing worker group"))
            tt += r.uniform(5, 40)
            ctx.emit_block(tt, n, None, [elastic_line(ctx, n, tt, "I", "torch.distributed.elastic.agent.server.api", 674, "[default] Rendezvous complete for workers. Result:"),
                                     "  restart_count=1", f"  master_addr={ctx.nodes[0]}", "  master_port=29500", f"  group_rank={n}",
                                     f"  group_world_size={ctx.nn}", f"  local_ranks={list(range(ctx.gpn))}", f"  role_ranks={ctx.ranks_on(n)}",
                                     f"  global_ranks={ctx.ranks_on(n)}", f"  role_world_sizes={[ctx.world] * ctx.gpn}", f"  global_world_sizes={[ctx.world] * ctx.gpn}", ""])
    if ctx.family == "elastic" and ctx.era in "CD" and r.random() < 0.6:
        for n in range(ctx.nn):
            tn = t + r.uniform(0, 2)
            ctx.emit(tn, n, None, elastic_line(ctx, n, tn, "I", "torch.distributed.elastic.agent.server.api", 879, "[default] worker group successfully finished. Waiting 300 seconds for other agents to finish."))
            ctx.emit(tn + 0.01, n, None, elastic_line(ctx, n, tn + 0.01, "I", "torch.distributed.elastic.agent.server.api", 932, "Local worker group finished (WorkerState.SUCCEEDED). Waiting 300 seconds for other agents to finish"))
            ctx.emit(tn + 0.02, n, None, elastic_line(ctx, n, tn + 0.02, "I", "torch.distributed.elastic.agent.server.api", 946, f"Done waiting for other agents. Elapsed: {r.uniform(0.0003, 2.5):.5f} seconds"))
    if ctx.wandb:
        ctx.emit_block(t - 0.5, 0, 0, ["wandb: ", "wandb: Run history:", "wandb:   train/loss █▆▅▄▄▃▃▂▂▂▂▁▁▁▁▁▁▁▁▁", "wandb: ", "wandb: 🚀 View run at https://wandb.ai/", "wandb: Find logs at: ./wandb/latest-run/logs"], noise=True)


def teardown(ctx: Ctx) -> dict[int, Exit]:
    r = ctx.rng
    if getattr(ctx, "still_running", False):
        return {}
    if ctx.cause is None:
        td_healthy(ctx)
        return {q: e for q, e in ctx.exits.items()}
    fam = ctx.family
    if fam in ("elastic", "mpirun"):
        deaths = td_elastic(ctx) if fam == "elastic" else td_mpirun(ctx)
        nf = ctx.node_fail
        if nf and ctx.sched == "slurm":
            ctx.launcher(nf[1], f"srun: error: Node failure on {short(ctx.nodes[nf[0]])}")
            ctx.launcher(nf[1] + 0.01, f"slurmstepd: error: *** JOB {ctx.job_id} ON {short(ctx.nodes[0])} CANCELLED AT {f_iso(ctx.lt(nf[1], 0))} DUE TO NODE FAILURE, SEE SLURMCTLD LOG FOR DETAILS ***")
        if fam == "elastic" and ctx.sched == "slurm" and ctx.sigterm_all is None:
            # one torchrun per node launched by srun: srun reports *tasks* = node indices, not ranks
            for n in range(ctx.nn):
                if nf and nf[0] == n:
                    continue
                ds = [deaths[q] for q in ctx.ranks_on(n) if q in deaths]
                if ds and any(e.code != 0 for e in ds):
                    tq = max(e.t for e in ds) + r.uniform(1, 35)
                    ctx.launcher(tq, f"srun: error: {short(ctx.nodes[n])}: task {n}: Exited with exit code 1")
        return deaths
    if fam == "srun":
        return td_srun(ctx)
    if fam == "ds":
        return td_ds(ctx)
    return td_ray(ctx)


# ----------------------------------------------------------------------------- rendering
def apply_deaths(ctx: Ctx, deaths: dict[int, Exit]) -> None:
    """Drop what a dead process could not have printed."""
    keep = []
    for ln in ctx.lines:
        if ln.rank is not None and ln.rank in deaths and ln.t > deaths[ln.rank].t + 0.001:
            continue
        keep.append(ln)
    ctx.lines = keep
    ctx.deaths = deaths


def node_end(ctx: Ctx, n: int) -> float | None:
    nf = getattr(ctx, "node_fail", None)
    if nf and nf[0] == n:
        return max(ctx.exits[q].t for q in ctx.ranks_on(n))
    sn = getattr(ctx, "sigterm_node", None)
    if sn and sn[0] == n and ctx.sched == "none":
        return sn[1] + 3
    return None


def sorted_lines(ctx: Ctx) -> list[Line]:
    return sorted(ctx.lines, key=lambda x: (x.t, x.seq))


def console_text(ctx: Ctx, ln: Line, tee: bool) -> str:
    if ln.src == "rank" and tee:
        return f"[default{ctx.local_of(ln.rank)}]:{ln.text}"
    return ln.text


def render_node_consoles(ctx: Ctx, tee: bool) -> dict[str, list[str]]:
    r = ctx.rng
    style = r.choice(["host", "train-host", "nodeN", "job-host"])
    files: dict[str, list[str]] = {}
    names = []
    for n in range(ctx.nn):
        h = short(ctx.nodes[n])
        if ctx.layout == "k8s_pytorchjob":
            names.append(f"{ctx.nodes[n]}.log")
        elif style == "host":
            names.append(f"{h}.log")
        elif style == "train-host":
            names.append(f"train-{ctx.job_id}-{h}.out")
        elif style == "nodeN":
            names.append(f"logs/node{n}.log")
        else:
            names.append(f"{ctx.script.split('.')[0]}_{h}.txt")
        files[names[-1]] = []
    for ln in sorted_lines(ctx):
        if ln.src == "launcher":
            name = names[ln.node if ln.node < ctx.nn else 0]
            text = ln.text
        else:
            name = names[ln.node]
            text = console_text(ctx, ln, tee)
        if ctx.layout == "k8s_pytorchjob" and ctx.timestamps_k8s:
            d = _d(ctx.lt(ln.t, ln.node))
            text = d.strftime("%Y-%m-%dT%H:%M:%S.") + f"{int(_frac(ln.t) * 1e9):09d}Z " + text
        files[name].append(text)
    return files


def render_single(ctx: Ctx, prefix_fn) -> list[str]:
    out = []
    for ln in sorted_lines(ctx):
        out.append(prefix_fn(ln))
    return out


def ray_dedup(lines: list[tuple[float, str, str]]) -> list[str]:
    """Ray's log deduplication: repeats within a few seconds collapse into '[repeated Nx across cluster]'."""
    out: list[str] = []
    pending: dict[str, list] = {}
    for t, prefix, text in lines:
        key = text
        if not prefix:
            out.append(text)
            continue
        if text.strip() and key in pending and t - pending[key][0] < 5.0:
            pending[key][1] += 1
            pending[key][2] = prefix
            continue
        for k in [k for k, v in pending.items() if t - v[0] >= 5.0]:
            v = pending.pop(k)
            if v[1] > 0:
                out.append(f"{v[2]}{k} [repeated {v[1]}x across cluster]")
        pending[key] = [t, 0, prefix]
        out.append(prefix + text)
    for k, v in pending.items():
        if v[1] > 0:
            out.append(f"{v[2]}{k} [repeated {v[1]}x across cluster]")
    return out


def render_layout(ctx: Ctx) -> dict[str, str]:
    r = ctx.rng
    lay = ctx.layout
    files: dict[str, list[str]] = {}
    if lay in ("torchrun_console", "torchrun_tee", "accelerate", "k8s_pytorchjob"):
        files = render_node_consoles(ctx, lay == "torchrun_tee")
    elif lay in ("srun_label", "lightning_slurm"):
        w = len(str(ctx.world - 1))

        def pf(ln: Line) -> str:
            if ln.src == "rank" and lay == "srun_label":
                return f"{ln.rank:>{w}}: {ln.text}"
            return ln.text
        files[f"slurm-{ctx.job_id}.out"] = render_single(ctx, pf)
    elif lay == "sbatch_per_task":
        jn = r.choice(["llm-pretrain", "sft", "train", "bench"])
        for q in range(ctx.world):
            files[f"{jn}-{ctx.job_id}-{q}.out"] = []
        for ln in sorted_lines(ctx):
            q = ln.rank if ln.rank is not None else 0
            files[f"{jn}-{ctx.job_id}-{q}.out"].append(ln.text)
    elif lay in ("mpirun_tag", "mpirun_timestamp"):
        def pf(ln: Line) -> str:
            if ln.src != "rank":
                return ln.text
            tag = f"[1,{ln.rank}]<{ln.stream}>:"
            if lay == "mpirun_timestamp":
                return f_ctime(ctx.lt(ln.t, 0)) + tag + ln.text
            return tag + ln.text
        files[r.choice(["mpirun.log", f"job-{ctx.job_id}.out", "run.log"])] = render_single(ctx, pf)
    elif lay == "deepspeed_pdsh":
        def pf(ln: Line) -> str:
            if ln.src == "launcher":
                return ln.text
            return f"{ctx.nodes[ln.node]}: {ln.text}"
        files["train.log"] = render_single(ctx, pf)
    elif lay == "ray_train":
        items = []
        for ln in sorted_lines(ctx):
            if ln.src == "rank":
                ip = "" if ln.node == 0 else f", ip={ctx.ips[ln.node]}"
                pre = f"\x1b[36m(RayTrainWorker pid={ctx.pid[ln.rank]}{ip})\x1b[0m "
                items.append((ln.t, pre, ln.text))
            else:
                items.append((ln.t, "", ln.text))
        files["driver.log"] = ray_dedup(items)
    elif lay == "issue_paste":
        files = {"pasted_log.txt": issue_paste(ctx)}
    return {k: "\n".join(v) + "\n" for k, v in files.items()}


def issue_paste(ctx: Ctx) -> list[str]:
    r = ctx.rng
    n = ctx.init_node if ctx.init_node is not None else (ctx.node_of(ctx.init_rank) if ctx.init_rank is not None else 0)
    tee = r.random() < 0.4
    lines = [ln for ln in sorted_lines(ctx) if ln.node == n or ln.src == "launcher"]
    texts = [console_text(ctx, ln, tee) for ln in lines]
    start_t = None
    for ln in lines:
        e = ctx.exits.get(ln.rank) if ln.rank is not None else None
        if e is not None and e.own and e.code != 0 and ln.t >= e.t - 30:
            start_t = ln.t
            break
    if ctx.init_rank is not None:
        own = [ln.t for ln in lines if ln.rank == ctx.init_rank]
        if own:
            cand = own[-1] - 1 if ctx.cause in ("hang", "data_loader_stall", "straggler") else None
            if cand is not None:
                start_t = min(start_t or cand, cand - 60)
    idx = 0
    if start_t is not None:
        idx = next((i for i, ln in enumerate(lines) if ln.t >= start_t), 0)
    idx = max(0, idx - r.randint(5, 40))
    body = texts[idx:]
    if len(body) > 600:
        body = body[:150] + body[-450:]
    if ctx.mapping_based and ctx.init_rank is not None:
        k = ctx.init_rank
        bus = nccl_busid(ctx.bus[n][ctx.local_of(k)])
        pid = str(ctx.pid[k])
        ctx.rank_inferable = any(f"busId {bus}" in x for x in body) or (
            ctx.nccl_debug == "INFO" and any(f":{pid}:" in x for x in body))
    host = ctx.nodes[n]
    intro = r.choice([f"Training crashed after a few hours. Here is the log from {host} (the node that failed first, I think):",
                      f"log from {host}, last part only (full log is 300MB):",
                      f"Multi-node run ({ctx.nn} nodes x {ctx.gpn} GPUs), torch {ctx.torch_v}, NCCL {ctx.nccl_v}. Output of {host}:"])
    out = [intro, "", "```", *body, "```"]
    hw = ctx.cause in ("gpu_hardware", "ecc_memory", "nvlink", "network")
    if ctx.kernel_nodes and n in ctx.kernel_nodes and (hw or r.random() < 0.7):
        kl = [k for k in sorted(ctx.klines, key=lambda x: (x.t, x.seq)) if k.node == n and k.prio <= 4]
        if kl:
            out += ["", f"`sudo dmesg -T | tail` on {short(host)} afterwards:", "```"]
            out += [f"[{f_ctime(ctx.lt(k.t, n))}] {k.text}" for k in kl[-12:]]
            out += ["```"]
    if r.random() < 0.5:
        out += ["", "Any idea what is going on? It worked fine on a single node."]
    return out


def kernel_files(ctx: Ctx) -> dict[str, str]:
    r = ctx.rng
    out: dict[str, str] = {}
    nodes = set(ctx.kernel_nodes)
    if ctx.layout == "issue_paste":
        return out
    if r.random() < 0.45:
        extra = r.sample(range(ctx.nn), min(ctx.nn, r.randint(1, 2)))
        nodes.update(extra)
        if r.random() < 0.5:
            old_app_xid(ctx, extra[0])
    t_end = max([ln.t for ln in ctx.lines] + [k.t for k in ctx.klines] + [ctx.t_job])
    for n in sorted(nodes):
        end = node_end(ctx, n) or t_end + r.uniform(10, 600)
        kernel_noise(ctx, n, ctx.t_job - r.uniform(600, 7200), end, k=r.randint(5, 14))
        if getattr(ctx, "deaths", None) and ctx.cause not in (None, "preemption", "straggler") and r.random() < 0.4 and not node_end(ctx, n):
            xid45_after(ctx, n, max([e.t for q, e in ctx.deaths.items() if ctx.node_of(q) == n] or [t_end]))
    style = ctx.kernel_style
    if getattr(ctx, "sigterm_node", None) and ctx.sched == "none":
        style = "journal"
    for n in sorted(nodes):
        host = short(ctx.aliases[n][0]) if ctx.aliases[n] and ctx.layout == "k8s_pytorchjob" else short(ctx.nodes[n])
        if ctx.aliases[n] and ctx.layout not in ("k8s_pytorchjob", "ray_train") and r.random() < 0.7:
            host = ctx.aliases[n][0]
        end = node_end(ctx, n)
        ks = sorted((k for k in ctx.klines if k.node == n and (end is None or k.t <= end + 0.5)), key=lambda x: (x.t, x.seq))
        boot = ctx.lt(ctx.t_job, n) - ctx.uptime0[n]
        lines = []
        for k in ks:
            lt = ctx.lt(k.t, n)
            up = lt - boot
            proc = "kernel"
            text = k.text
            if text.startswith("systemd"):
                proc, text = text.split(": ", 1)
                if style in ("dmesg", "dmesg_T", "syslog"):
                    continue
            if style == "dmesg":
                lines.append(f"[{up:12.6f}] {text}")
            elif style == "dmesg_T":
                lines.append(f"[{f_ctime(lt)}] {text}")
            elif style == "journal":
                lines.append(f"{f_journal(lt)} {host} {proc}: {text}")
            elif style == "journal_iso":
                lines.append(f"{_d(lt).strftime('%Y-%m-%dT%H:%M:%S')}.{int(_frac(lt) * 1e6):06d}+0000 {host} {proc}: {text}")
            else:
                lines.append(f"{f_syslog(lt)} {host} {proc}: [{up:12.6f}] {text}")
        name = {"dmesg": f"dmesg-{host}.txt", "dmesg_T": f"dmesg-T-{host}.txt", "journal": f"journalctl-{host}.log",
                "journal_iso": f"journal-{host}.log", "syslog": f"kern.log.{host}"}[style]
        if ctx.layout == "ray_train" and r.random() < 0.5:
            name = name.replace(host, ctx.ips[n])
        out["kernel/" + name if r.random() < 0.5 else name] = "\n".join(lines) + "\n"
    return out


def k8s_files(ctx: Ctx) -> dict[str, str]:
    r = ctx.rng
    out = {}
    deaths = getattr(ctx, "deaths", {})
    t_end = max([ln.t for ln in ctx.lines] + [ctx.t_job])
    age = f_hms(t_end - ctx.t_job + r.uniform(60, 600)).split(":")[0] + "h"
    rows = ["NAME                                READY   STATUS      RESTARTS   AGE    IP             NODE                                              NOMINATED NODE   READINESS GATES"]
    sd = getattr(ctx, "k8s_shutdown", None)
    for n in range(ctx.nn):
        codes = [deaths[q].code for q in ctx.ranks_on(n) if q in deaths]
        if getattr(ctx, "still_running", False):
            st, ready = "Running", "1/1"
        elif sd and sd[0] == n:
            st, ready = "Terminated", "0/1"
        elif codes and all(c == 0 for c in codes):
            st, ready = "Completed", "0/1"
        else:
            st, ready = "Error", "0/1"
        pod_ip = ctx.ips[n]
        rows.append(f"{ctx.nodes[n]:<35} {ready:<7} {st:<11} {0:<10} {age:<6} {pod_ip:<14} {ctx.aliases[n][0]:<49} <none>           <none>")
    out["kubectl-get-pods-o-wide.txt"] = "\n".join(rows) + "\n"
    ev = ["LAST SEEN   TYPE      REASON                  OBJECT                                   MESSAGE"]
    for n in range(ctx.nn):
        ev.append(f"{age:<11} Normal    Scheduled               pod/{ctx.nodes[n]:<36} Successfully assigned default/{ctx.nodes[n]} to {ctx.aliases[n][0]}")
        ev.append(f"{age:<11} Normal    Pulled                  pod/{ctx.nodes[n]:<36} Container image \"{ctx.image}\" already present on machine")
        ev.append(f"{age:<11} Normal    Started                 pod/{ctx.nodes[n]:<36} Started container pytorch")
    if sd:
        n = sd[0]
        mins = f"{max(1, int((t_end - sd[1]) / 60))}m"
        ev.append(f"{mins:<11} Warning   NodeNotReady            pod/{ctx.nodes[n]:<36} Node is not ready")
        out[f"describe-pod-{ctx.nodes[n]}.txt"] = "\n".join([
            f"Name:             {ctx.nodes[n]}", "Namespace:        default", "Priority:         0",
            f"Node:             {ctx.aliases[n][0]}/10.{r.randint(1, 9)}.{r.randint(0, 255)}.{r.randint(2, 250)}",
            f"IP:               {ctx.ips[n]}", f"Labels:           training.kubeflow.org/job-name={ctx.k8s_job}",
            f"                  training.kubeflow.org/replica-index={max(0, n - 1)}", f"                  training.kubeflow.org/replica-type={'master' if n == 0 else 'worker'}",
            "Status:           Failed", "Reason:           Terminated", "Message:          Pod was terminated in response to imminent node shutdown.",
            "Containers:", "  pytorch:", "    State:          Terminated", "      Reason:       Error", "      Exit Code:    143", ""])
    if ctx.cause is not None and not getattr(ctx, "still_running", False):
        failed_rt = "Worker" if any(st for st in rows[1:] if "Error" in st and "worker" in st) else "Master"
        ev.append(f"{'2m':<11} Normal    PyTorchJobFailed        pytorchjob/{ctx.k8s_job:<29} PyTorchJob default/{ctx.k8s_job} is failed because 1 {failed_rt} replica(s) failed.")
    out["kubectl-get-events.txt"] = "\n".join(ev) + "\n"
    return out


# ----------------------------------------------------------------------------- run assembly
def trim_noise(ctx: Ctx, budget: int) -> None:
    """Keep a run to a few hundred KB by dropping noise lines (never evidence)."""
    size = sum(len(ln.text) + 12 for ln in ctx.lines)
    if size <= budget:
        return
    noisy = [i for i, ln in enumerate(ctx.lines) if ln.noise]
    ctx.rng.shuffle(noisy)
    drop = set()
    for i in noisy:
        if size <= budget:
            break
        size -= len(ctx.lines[i].text) + 12
        drop.add(i)
    ctx.lines = [ln for i, ln in enumerate(ctx.lines) if i not in drop]


def build_run(idx: int, seed: int, layout: str, cause: str | None) -> tuple[dict[str, str], dict, Ctx]:
    rng = random.Random(seed * 1000003 + idx * 7919 + 17)
    ctx = Ctx(rng, idx, layout, cause)
    ctx.t_job = dt.datetime(2024, 3, 1, tzinfo=UTC).timestamp() + rng.uniform(0, 950) * 86400 + rng.uniform(0, 86400)
    if cause is None:
        sc_healthy(ctx)
    else:
        SCENARIOS[cause](ctx)
    deaths = teardown(ctx)
    apply_deaths(ctx, deaths)
    trim_noise(ctx, 280000)
    files = render_layout(ctx)
    files.update(kernel_files(ctx))
    if ctx.layout == "k8s_pytorchjob":
        files.update(k8s_files(ctx))
    for name, text in ctx.extra.items():
        files[name] = text
    node = None
    if cause is not None:
        if ctx.init_node is not None:
            node = ctx.init_node
        elif ctx.init_rank is not None:
            node = ctx.node_of(ctx.init_rank)
    truth = {
        "cause": cause,
        "healthy": cause is None,
        "rank": ctx.init_rank if cause is not None else None,
        "node": ctx.nodes[node] if node is not None else None,
        "drain": cause in ("gpu_hardware", "ecc_memory", "nvlink", "network"),
        "rank_inferable": bool(ctx.rank_inferable) if cause is not None else True,
        "node_aliases": list(ctx.aliases[node]) if node is not None else [],
        "layout": layout,
        "notes": ctx.notes or "healthy run",
    }
    return files, truth, ctx


def schedule(n: int, seed: int) -> list[tuple[str, str | None]]:
    rng = random.Random(seed * 31 + 5)
    causes: list[str | None] = []
    pool: list[str] = []
    for i in range(n):
        if i % 8 == 5:
            causes.append(None)
            continue
        if not pool:
            pool = CAUSES[:]
            rng.shuffle(pool)
        causes.append(pool.pop())
    layouts: list[str] = []
    lpool: list[str] = []
    for _ in range(n):
        if not lpool:
            lpool = LAYOUTS[:]
            rng.shuffle(lpool)
        layouts.append(lpool.pop())
    return list(zip(layouts, causes, strict=False))


def write_run(out: str, idx: int, files: dict[str, str], truth: dict, ctx: Ctx) -> str:
    d = os.path.join(out, f"run-{idx:03d}-{truth['layout']}")
    os.makedirs(d, exist_ok=True)
    names = sorted(files)
    for name in names:
        p = os.path.join(d, name)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(files[name])
    with open(os.path.join(d, "truth.json"), "w", encoding="utf-8") as fh:
        fh.write(json.dumps(truth, indent=2) + "\n")
    # modification times are not in time order (copied off nodes in some arbitrary order)
    base = ctx.t_job + 86400
    order = names[:]
    ctx.rng.shuffle(order)
    for i, name in enumerate(order):
        t = base + i * 7.0
        os.utime(os.path.join(d, name), (t, t))
    return d


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="output folder")
    ap.add_argument("--n", type=int, default=60, help="number of runs")
    ap.add_argument("--seed", type=int, default=1, help="random seed (same seed, same bytes)")
    a = ap.parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    for idx, (layout, cause) in enumerate(schedule(a.n, a.seed)):
        files, truth, ctx = build_run(idx, a.seed, layout, cause)
        write_run(a.out, idx, files, truth, ctx)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
