#!/usr/bin/env python3
"""gen_blind58.py -- blind synthetic log-bundle generator, "blind58".

Theme: compiled and sharded PyTorch training stacks as of 2025-2026
(torch.compile / TorchInductor / Triton, FSDP2 + DTensor + DeviceMesh,
tensor / context parallel, float8, activation checkpointing, Flight Recorder,
NCCL 2.2x watchdog / heartbeat monitor / RAS) on torchtitan, torchtune,
Megatron-Core and Lightning ModelParallelStrategy.

Written blind: message formats come from general knowledge of what these
programs print, spot-checked against public issue threads.  Standard library
only.  Deterministic per seed.

    python3 gen_blind58.py --out DIR --n 60 --seed S
"""
from __future__ import annotations

import argparse
import heapq
import json
import math
import os
import random
import sys
import time
from datetime import datetime, timezone

CAUSES = [
    "gpu_hardware", "ecc_memory", "nvlink", "network", "cuda_oom",
    "illegal_memory_access", "python_exception", "host_oom_kill",
    "crash_signal", "preemption", "hang", "data_loader_stall",
    "collective_mismatch", "straggler", "unknown",
]
LAYOUTS = ["titan_slurm", "torchrun_logdir", "k8s_pytorchjob", "tune_local",
           "megatron_srun", "lightning_bundle"]
UNSUPPORTED = {"tune_local": {"network", "preemption"}}

GPUS = {
    "H100": dict(name="NVIDIA H100 80GB HBM3", cap=79.11, smem=232448, peak=9.89e14),
    "H200": dict(name="NVIDIA H200", cap=139.81, smem=232448, peak=9.89e14),
    "A100": dict(name="NVIDIA A100-SXM4-80GB", cap=79.15, smem=166912, peak=3.12e14),
    "B200": dict(name="NVIDIA B200", cap=178.36, smem=232448, peak=2.25e15),
}
BUS = ["18", "2a", "3a", "5d", "9a", "ab", "ba", "db"]
# (torch, nccl, cuda, python)
VERSIONS = [
    ("2.6.0+cu126", "2.21.5", "12.6", "3.11"),
    ("2.7.1+cu128", "2.26.2", "12.8", "3.11"),
    ("2.8.0+cu128", "2.27.3", "12.8", "3.12"),
    ("2.9.1+cu128", "2.27.5", "12.8", "3.12"),
    ("2.10.0+cu130", "2.28.7", "13.0", "3.12"),
]
OPNAMES = {"_ALLGATHER_BASE": "_all_gather_base", "_REDUCE_SCATTER_BASE": "_reduce_scatter_base",
           "ALLREDUCE": "all_reduce", "BROADCAST": "broadcast", "ALLTOALL_BASE": "all_to_all",
           "ALLGATHER": "all_gather"}
FR_TRACE_FN = {"_ALLGATHER_BASE": "all_gather_into_tensor", "_REDUCE_SCATTER_BASE": "reduce_scatter_tensor",
               "ALLREDUCE": "all_reduce", "BROADCAST": "broadcast", "ALLTOALL_BASE": "all_to_all_single",
               "ALLGATHER": "all_gather"}


def utc(t):
    return datetime.fromtimestamp(t, tz=timezone.utc)


def hexaddr(rng, hi="7f"):
    return "0x" + hi + "".join(rng.choice("0123456789abcdef") for _ in range(10))


def gib(x):
    return f"{x:.2f} GiB"


def bar(frac, width=10):
    full = int(frac * width)
    parts = " ▏▎▍▌▋▊▉"
    rem = int((frac * width - full) * 8)
    s = "█" * full
    if full < width:
        s += parts[rem] if rem else " "
        s += " " * (width - full - 1)
    return s


def hms(sec):
    sec = int(max(sec, 0))
    h, r = divmod(sec, 3600)
    m, s = divmod(r, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m:02d}:{s:02d}"


class Fate:
    __slots__ = ("t", "code", "reason")

    def __init__(self, t, code, reason):
        self.t, self.code, self.reason = t, code, reason


SIGNAME = {-6: "SIGABRT", -9: "SIGKILL", -11: "SIGSEGV", -15: "SIGTERM", -7: "SIGBUS"}


# ---------------------------------------------------------------------------
#   The run model
# ---------------------------------------------------------------------------
class Run:
    def __init__(self, seed, idx, cause, layout):
        self.seed, self.idx, self.cause, self.layout = seed, idx, cause, layout
        self.healthy = cause is None
        self.rng = random.Random(f"blind58|{seed}|{idx}|{layout}|{cause}")
        self.seq = 0
        self.rl = {}            # rank -> list of [t, seq, text, kind, stream]
        self.kern = {}          # node -> list of (t, text)
        self.agent = {}         # node -> list of (t, seq, text, kind)
        self.joblines = []      # (t, seq, text, kind)  sbatch/srun level
        self.files = {}         # extra artifact files: relpath -> text
        self.art = {}           # artifact name -> (text, ranks it names)
        self.notes = []
        self.seen_key = set()
        self.seen_kern = set()
        self.seen_art = set()
        self.seen_summary_root = set()
        self.seen_node_ev = set()
        self.materialized = set()
        self.origin = []
        self.origin_node = None
        self.init_kind = "none"
        self.origin_dead = {}
        self.origin_stuck = {}
        self.stuck_selfkill = {}
        self.dstate = set()
        self.fates = {}
        self.node_state = {}
        self.remote_err_p = 0.3
        self.ext_kill = None
        self.no_watchdog = set()
        self.coll_override = {}
        self.summary_identifies = True
        self.progress_end = {}
        self.t_block = None
        self.t_fail = None
        self.first_timeout = None
        self.store_dead_t = None
        self.fr_dump = False
        self.fr_enabled = False
        self.truncated_running = False
        self.node_ev_nodes = set()
        self.extra_rank_lines = {}
        self.setup()

    # ------------------------------------------------------------------ setup
    def setup(self):
        rng = self.rng
        L = self.layout
        self.stack = {"titan_slurm": "titan", "tune_local": "tune", "megatron_srun": "megatron",
                      "lightning_bundle": "lightning"}.get(L) or rng.choice(["titan", "lightning", "titan"])
        vi = rng.choice([0, 1, 1, 2, 2, 3, 3, 4])
        self.torch_ver, self.nccl_ver, self.cuda_ver, self.pyver = VERSIONS[vi]
        self.tminor = int(self.torch_ver.split(".")[1])
        self.gpu_kind = rng.choice(["H100", "H100", "H100", "H200", "B200", "A100"])
        self.gpu = GPUS[self.gpu_kind]
        # topology
        if L == "titan_slurm":
            nn, gpn = rng.choice([2, 4, 4, 8, 16, 32, 64, 128]), 8
        elif L == "torchrun_logdir":
            nn, gpn = rng.choice([(1, 2), (1, 4), (1, 8), (2, 4), (2, 8), (4, 8), (4, 4), (8, 4)])
        elif L == "k8s_pytorchjob":
            nn, gpn = rng.choice([2, 4, 8, 16, 32]), rng.choice([8, 8, 4])
        elif L == "tune_local":
            nn, gpn = 1, rng.choice([2, 4, 8, 8])
        elif L == "megatron_srun":
            nn, gpn = rng.choice([2, 4, 8, 16, 32, 64, 128]), 8
        else:
            nn, gpn = rng.choice([1, 2, 4, 8, 16]), rng.choice([4, 8, 8])
        if self.cause == "network" and nn == 1:
            nn = 2
        if self.cause == "preemption" and L == "k8s_pytorchjob" and nn < 2:
            nn = 2
        self.nnodes, self.gpn = nn, gpn
        self.world = nn * gpn
        self.setup_hosts()
        self.setup_mesh()
        self.setup_env()
        self.setup_timing()

    def setup_hosts(self):
        rng, nn = self.rng, self.nnodes
        L = self.layout
        self.jobid = rng.randrange(200000, 9800000)
        self.user = rng.choice(["mlops", "jchen", "aparikh", "svc-train", "kmiller", "root", "dgarcia"])
        if L in ("titan_slurm", "megatron_srun", "lightning_bundle"):
            pref = rng.choice(["gpu", "hgx", "dgx-h", "node", "cr1-gpu", "a3m"])
            start = rng.randrange(1, 300)
            nums, cur = [], start
            for _ in range(nn):
                nums.append(cur)
                cur += 1 if rng.random() < 0.85 else rng.randrange(2, 6)
            self.hosts = [f"{pref}-{x:03d}" for x in nums]
            self.slurm_nodelist = self.compress_nodelist(pref, nums)
        elif L == "k8s_pytorchjob":
            self.jobname = rng.choice(["llama3-70b-sft", "titan-8b-pretrain", "moe16b-ablation", "qwen3-32b-cpt",
                                       "fsdp2-tp-run"]) + "-" + "".join(rng.choice("abcdefghjkmnpqrstuvwxyz23456789") for _ in range(5))
            self.hosts = [f"{self.jobname}-master-0"] + [f"{self.jobname}-worker-{i}" for i in range(nn - 1)]
            pool = rng.choice(["gke-train-a3mega-pool", "aks-h100pool", "ip"])
            if pool == "ip":
                self.k8s_nodes = [f"ip-10-{rng.randrange(0, 255)}-{rng.randrange(0, 255)}-{rng.randrange(1, 254)}.ec2.internal" for _ in range(nn)]
            else:
                h = "".join(rng.choice("0123456789abcdef") for _ in range(8))
                self.k8s_nodes = [f"{pool}-{h}-{''.join(rng.choice('bcdfghjklmnpqrstvwxz0123456789') for _ in range(4))}" for _ in range(nn)]
        elif L == "tune_local":
            self.hosts = [rng.choice(["ws-h100x8", "lambda-hyperplane-03", "gpu-box", "dgx01", "ml-a100-2", "finetune-vm-1"])]
        else:
            style = rng.choice(["ip", "plain"])
            if style == "ip":
                self.hosts = [f"ip-172-31-{rng.randrange(0, 64)}-{rng.randrange(2, 254)}" for _ in range(nn)]
            else:
                p = rng.choice(["trn", "node", "h100"])
                self.hosts = [f"{p}{i:02d}" for i in range(nn)]
        self.ips = [f"10.{rng.randrange(1, 250)}.{rng.randrange(0, 250)}.{rng.randrange(2, 250)}" for _ in range(nn)]
        # clock skew per node (seconds); most NTP-synced, some off
        self.skew = []
        for n in range(nn):
            s = rng.gauss(0, 0.8)
            if rng.random() < 0.12:
                s += rng.choice([-1, 1]) * rng.uniform(8, 140)
            self.skew.append(0.0 if n == 0 else s)
        self.agent_pid = [rng.randrange(3000, 400000) for _ in range(nn)]
        self.pids = []
        for n in range(nn):
            cur = self.agent_pid[n] + rng.randrange(40, 90)
            for lr in range(self.gpn):
                self.pids.append(cur)
                cur += rng.randrange(1, 9)
        self.boot = [rng.uniform(2e5, 4e6) for _ in range(nn)]
        self.ib_if = rng.choice(["ibp26s0", "ibs1", "ib0", "ibp154s0"])
        self.hca = rng.choice(["mlx5_0", "mlx5_1", "mlx5_3", "mlx5_4"])
        self.transport = rng.choice(["IB", "IB", "RoCE", "Socket"]) if self.nnodes > 1 else "P2P"

    @staticmethod
    def compress_nodelist(pref, nums):
        if len(nums) == 1:
            return f"{pref}-{nums[0]:03d}"
        ranges, a, b = [], nums[0], nums[0]
        for x in nums[1:]:
            if x == b + 1:
                b = x
            else:
                ranges.append((a, b))
                a = b = x
        ranges.append((a, b))
        parts = [f"{x:03d}" if x == y else f"{x:03d}-{y:03d}" for x, y in ranges]
        return f"{pref}-[{','.join(parts)}]"

    def setup_mesh(self):
        rng, W, gpn = self.rng, self.world, self.gpn
        st = self.stack
        dims = []
        if st == "titan":
            tp = rng.choice([t for t in (1, 2, 4, 8) if t <= gpn and W % t == 0 and (W // t >= 2 or W < 4)])
            rest = W // tp
            cp = 2 if (rest >= 4 and rng.random() < 0.25) else 1
            rest //= cp
            pp = 1
            if self.nnodes >= 4 and rest >= 4 and rng.random() < 0.3:
                pp = rng.choice([2, 4])
                rest //= pp
            rep = 1
            if rest >= 8 and self.nnodes >= 4 and rng.random() < 0.35:
                rep = rng.choice([2, 4])
                while rest % rep:
                    rep //= 2
                rest //= rep
            dims = [("pp", pp), ("dp_replicate", rep), ("dp_shard", rest), ("cp", cp), ("tp", tp)]
        elif st == "lightning":
            tp = rng.choice([t for t in (1, 2, 4, 8) if t <= gpn])
            dims = [("data_parallel", W // tp), ("tensor_parallel", tp)]
        elif st == "tune":
            tp = rng.choice([1, 1, 1, 2]) if gpn >= 4 else 1
            dims = [("dp", W // tp), ("tp", tp)]
        else:  # megatron
            tp = rng.choice([t for t in (1, 2, 4, 8) if t <= gpn])
            rest = W // tp
            pp = rng.choice([1, 1, 2, 4]) if rest >= 4 else 1
            while rest % pp:
                pp //= 2
            rest //= pp
            cp = rng.choice([1, 1, 2]) if rest >= 4 else 1
            rest //= cp
            dims = [("pp", pp), ("dp", rest), ("cp", cp), ("tp", tp)]
        self.full_dims = dims
        self.dims = [(n, s) for n, s in dims if s > 1] or [dims[-1]]
        self.dimsize = dict(dims)

    def coord(self, r):
        c = {}
        rem = r
        sizes = [s for _, s in self.full_dims]
        for i, (name, s) in enumerate(self.full_dims):
            stride = 1
            for s2 in sizes[i + 1:]:
                stride *= s2
            c[name] = (rem // stride) % s
        return c

    def group_of(self, r, dim):
        """global ranks in r's group along mesh dim (list) and group rank."""
        if dim is None:
            return list(range(self.world)), r
        names = [n for n, _ in self.full_dims]
        if dim not in names:
            return list(range(self.world)), r
        sizes = [s for _, s in self.full_dims]
        i = names.index(dim)
        stride = 1
        for s2 in sizes[i + 1:]:
            stride *= s2
        c = self.coord(r)[dim]
        base = r - c * stride
        members = [base + k * stride for k in range(sizes[i])]
        return members, c

    def setup_env(self):
        rng = self.rng
        st = self.stack
        self.sp = rng.choice([f"/usr/local/lib/python{self.pyver}/site-packages",
                              f"/opt/conda/lib/python{self.pyver}/site-packages",
                              f"/usr/local/lib/python{self.pyver}/dist-packages",
                              f"/home/{self.user}/.venv/lib/python{self.pyver}/site-packages"])
        self.pyexe = "/usr/bin/python3" if "dist-packages" in self.sp else (
            "/opt/conda/bin/python3.11" if "conda" in self.sp else (
                f"/home/{self.user}/.venv/bin/python3" if ".venv" in self.sp else f"/usr/local/bin/python{self.pyver}"))
        self.tlsp = "site-packages/torch" if "site-packages" in self.sp else "dist-packages/torch"
        if rng.random() < 0.5:
            self.tlsp = "torch"
        self.compile = st in ("titan", "tune", "lightning") and rng.random() < 0.85
        if st == "megatron":
            self.compile = False
        self.float8 = st in ("titan", "lightning") and self.gpu_kind != "A100" and rng.random() < 0.4
        self.ac = rng.choice(["selective", "full", "none", "selective"])
        self.nccl_info = rng.random() < 0.45
        self.fr_enabled = (self.tminor >= 7 or rng.random() < 0.6) and rng.random() < 0.8
        self.fr_dump = self.fr_enabled and rng.random() < 0.85
        self.cudagraphs = st in ("lightning", "tune") and self.compile and rng.random() < 0.2
        self.expandable = rng.random() < 0.55
        self.torch_logs = rng.choice(["", "", "recompiles", "graph_breaks", "recompiles,graph_breaks"]) if self.compile else ""
        self.max_autotune = self.compile and rng.random() < 0.3
        self.nccl_ras = self.nccl_ver >= "2.24"
        self.kill_on_bad_exit = rng.random() < 0.55
        self.async_tp = st == "titan" and self.dimsize.get("tp", 1) > 1 and self.compile and rng.random() < 0.4
        # model
        if st == "titan":
            self.model = rng.choice([
                ("llama3", "8B", 8030261248, 4096, 32, 14336, 128256),
                ("llama3", "70B", 70553706496, 8192, 80, 28672, 128256),
                ("llama3", "405B", 405853388800, 16384, 126, 53248, 128256),
                ("deepseek_v3", "16B", 15706484224, 2048, 27, 10944, 102400),
                ("qwen3", "32B", 32762123264, 5120, 64, 25600, 151936),
            ])
            if self.world < 32 and self.model[1] in ("405B", "70B"):
                self.model = ("llama3", "8B", 8030261248, 4096, 32, 14336, 128256)
        elif st == "tune":
            self.model = rng.choice([("llama3_1", "8B", 8030261248, 4096, 32, 14336, 128256),
                                     ("qwen2_5", "7B", 7615616512, 3584, 28, 18944, 152064),
                                     ("llama3_2", "3B", 3212749824, 3072, 28, 8192, 128256),
                                     ("gemma2", "9B", 9241705984, 3584, 42, 14336, 256000)])
        elif st == "megatron":
            self.model = rng.choice([("gpt", "8B", 8030261248, 4096, 32, 14336, 128256),
                                     ("gpt", "70B", 70553706496, 8192, 80, 28672, 128256),
                                     ("mixtral", "8x7B", 46702792704, 4096, 32, 14336, 32000),
                                     ("gpt", "175B", 174600000000, 12288, 96, 49152, 50304)])
        else:
            self.model = rng.choice([("llama", "1B", 1235814400, 2048, 16, 8192, 128256),
                                     ("llama", "7B", 6738415616, 4096, 32, 11008, 32000),
                                     ("vit", "H/14", 632045800, 1280, 32, 5120, 1000),
                                     ("llama", "13B", 13015864320, 5120, 40, 13824, 32000)])
        self.hidden = self.model[3]
        self.nlayers = self.model[4]
        self.seq_len = rng.choice([2048, 4096, 8192, 8192])
        self.lbs = rng.choice([1, 1, 2, 4])
        self.script = {"titan": "torchtitan/train.py", "tune": "recipes/full_finetune_distributed.py",
                       "megatron": "pretrain_gpt.py", "lightning": "train.py"}[st]
        self.workdir = {"titan": "/workspace/torchtitan", "tune": f"/home/{self.user}/torchtune",
                        "megatron": "/workspace/Megatron-LM", "lightning": f"/home/{self.user}/proj"}[st]
        if st == "tune":
            self.workdir = self.sp
        self.pg_timeout = {"titan": 100, "tune": 600, "megatron": 600, "lightning": 1800}[st]
        if st == "megatron" and rng.random() < 0.3:
            self.pg_timeout = rng.choice([1200, 1800])
        if st == "lightning" and rng.random() < 0.3:
            self.pg_timeout = rng.choice([600, 900])
        self.init_timeout = 300 if st == "titan" else self.pg_timeout
        # PGs
        self.pgs = {None: dict(id=0, guid=0, desc="default_pg")}
        pid = 1
        for name, s in self.dims:
            if st == "megatron":
                desc = {"tp": "TENSOR_MODEL_PARALLEL_GROUP", "dp": "DATA_PARALLEL_GROUP",
                        "pp": "PIPELINE_MODEL_PARALLEL_GROUP", "cp": "CONTEXT_PARALLEL_GROUP"}[name]
            else:
                desc = f"mesh_{name}"
            self.pgs[name] = dict(id=pid, guid=pid, desc=desc)
            pid += 1
        self.ln = self.pgnccl_lines()

    def pgnccl_lines(self):
        base = dict(timeout=632, failure=2268, stack=670, first=1863, dumpsig=1627, prep=1696,
                    someops=684, avoid=690, wdterm=1905, hbstuck=1781, hbterm=1810, storeflag=1493,
                    observed=1610, dumping=1702, ncclerr=2118, excraised=2024, destroy=1521,
                    wdexc=1956, avoid_rs=981, commabort=1340)
        shift = {6: -40, 7: 0, 8: 37, 9: 61, 10: 88}.get(self.tminor, 0)
        return {k: v + (shift if v > 700 else shift // 4) for k, v in base.items()}

    def setup_timing(self):
        rng = self.rng
        y = rng.choice([2025, 2025, 2025, 2026])
        mo = rng.randrange(1, 13) if y == 2025 else rng.randrange(1, 7)
        self.t_launch = datetime(y, mo, rng.randrange(1, 28), rng.randrange(0, 24), rng.randrange(0, 60),
                                 rng.randrange(0, 60), tzinfo=timezone.utc).timestamp() + rng.random()
        p = self.model[2]
        base = {"titan": 0.9, "tune": 0.6, "megatron": 1.1, "lightning": 0.45}[self.stack]
        self.step_time = base * max(0.4, min(9.0, (p / 8e9) ** 0.6 * (64 / max(self.world, 8)) ** 0.15)) * rng.uniform(0.8, 1.3)
        self.init_dur = rng.uniform(45, 150) + (0.2 * self.world ** 0.5)
        self.compile_dur = rng.uniform(40, 260) if self.compile else rng.uniform(3, 12)
        self.t_train0 = self.t_launch + self.init_dur
        self.t_nccl = self.t_launch + min(self.init_dur * 0.6, rng.uniform(14, 30))
        self.total_steps = rng.choice([1000, 2000, 3000, 5000, 10000, 30000])
        self.slow_from = None
        self.slow_factor = 1.0

    # ------------------------------------------------------------------ time formatting
    def lt(self, n, t):
        return t + self.skew[n]

    def node(self, r):
        return r // self.gpn

    def lr(self, r):
        return r % self.gpn

    def f_glog(self, n, t, lvl):
        x = self.lt(n, t)
        d = utc(x)
        return f"{lvl}{d.month}{d.day:02d} {d:%H:%M:%S}.{int((x % 1) * 1e9):09d}"

    def f_py(self, n, t, lvl):
        x = self.lt(n, t)
        d = utc(x)
        return f"{lvl}{d.month:02d}{d.day:02d} {d:%H:%M:%S}.{int((x % 1) * 1e6):06d}"

    def f_titan(self, n, t):
        x = self.lt(n, t)
        d = utc(x)
        return f"{d:%Y-%m-%d %H:%M:%S},{int((x % 1) * 1000):03d}"

    def f_iso(self, n, t, sep=" "):
        d = utc(self.lt(n, t))
        return d.strftime(f"%Y-%m-%d{sep}%H:%M:%S")

    def f_elastic(self, n, t):
        return utc(self.lt(n, t)).strftime("%Y-%m-%d_%H:%M:%S")

    # ------------------------------------------------------------------ emitters
    def out(self, r, t, text, kind="n", stream="err"):
        lst = self.rl.setdefault(r, [])
        for line in text.split("\n"):
            self.seq += 1
            lst.append([t, self.seq, line, kind, stream])

    def aout(self, n, t, text, kind="a"):
        lst = self.agent.setdefault(n, [])
        for line in text.split("\n"):
            self.seq += 1
            lst.append([t, self.seq, line, kind, "err"])

    def jout(self, t, text, kind="a"):
        for line in text.split("\n"):
            self.seq += 1
            self.joblines.append([t, self.seq, line, kind, "err"])

    def kout(self, n, t, text):
        self.kern.setdefault(n, []).append((t, text))

    def g(self, r, t, lvl, msg, src=None, prefix=True):
        """C++ glog line from ProcessGroupNCCL etc."""
        n = self.node(r)
        src = src or "ProcessGroupNCCL.cpp:%d" % self.ln["timeout"]
        pre = f"[rank{r}]:" if prefix else ""
        return f"{pre}[{self.f_glog(n, t, lvl)} {src}] {msg}"

    def tl(self, r, t, lvl, path, line, msg, frame=None, prefix=True):
        n = self.node(r)
        pre = f"[rank{r}]:" if prefix else ""
        fr = f" [{frame}]" if frame else ""
        out = []
        for i, m in enumerate(msg.split("\n")):
            out.append(f"{pre}{self.f_py(n, t, lvl)} {self.pids[r]} {self.tlsp}/{path}:{line}]{fr} {m}")
        return "\n".join(out)

    def al(self, n, t, lvl, path, line, msg):
        return f"{self.f_py(n, t, lvl)} {self.agent_pid[n]} {self.tlsp}/{path}:{line}] {msg}"

    def pgtag(self, dim, r):
        pg = self.pgs.get(dim) or self.pgs[None]
        _, gr = self.group_of(r, dim)
        return f"[PG ID {pg['id']} PG GUID {pg['guid']}({pg['desc']}) Rank {gr}]", gr

    def nccl(self, r, t, msg, lvl="INFO"):
        n = self.node(r)
        tid = self.pids[r] + 200 + (self.seq % 97)
        return f"{self.hosts[n]}:{self.pids[r]}:{tid} [{self.lr(r)}] NCCL {lvl} {msg}"

    # ------------------------------------------------------------------ stack helpers
    def loss_at(self, k):
        x = 2.1 + (10.8 - 2.1) * math.exp(-k / (80 + self.total_steps * 0.05)) + 0.9 * math.exp(-k / 2500)
        return x + self.rng.gauss(0, 0.04)

    def step_t(self, k):
        t = self.t_train0 + self.compile_dur + k * self.step_time
        if self.slow_from is not None and k > self.slow_from:
            t += (k - self.slow_from) * self.step_time * (self.slow_factor - 1)
        return t

    def step_of(self, t):
        k = int((t - self.t_train0 - self.compile_dur) / self.step_time)
        if self.slow_from is not None and k > self.slow_from:
            k0 = self.slow_from
            k = k0 + int((t - self.step_t(k0)) / (self.step_time * self.slow_factor))
        return max(k, 0)

    def tb(self, r, frames, exc, prefix=True, carets=None):
        """python traceback text. frames: list of (file, line, func, code)."""
        carets = self.pyver >= "3.11" and self.rng.random() < 0.5 if carets is None else carets
        lines = ["Traceback (most recent call last):"]
        for f, ln, fn, code in frames:
            lines.append(f'  File "{f}", line {ln}, in {fn}')
            if code:
                lines.append(f"    {code}")
                if carets and "(" in code and len(code) < 90 and self.rng.random() < 0.4:
                    ind = len(code) - len(code.lstrip())
                    lines.append("    " + " " * ind + "^" * max(3, len(code.strip())))
        lines += exc.split("\n")
        if prefix:
            return "\n".join(f"[rank{r}]: {x}" for x in lines)
        return "\n".join(lines)

    def entry_frames(self):
        sp, st, wd = self.sp, self.stack, self.workdir
        rec = (f"{sp}/torch/distributed/elastic/multiprocessing/errors/__init__.py", 357 if self.tminor >= 7 else 355,
               "wrapper", "return f(*args, **kwargs)")
        if st == "titan":
            return [(f"{wd}/torchtitan/train.py", 699 + self.tminor, "<module>", "trainer.train()"), rec,
                    (f"{wd}/torchtitan/train.py", 575 + self.tminor, "train", "self.train_step(data_iterator)"),
                    (f"{wd}/torchtitan/train.py", 497 + self.tminor, "train_step", "loss = self.forward_backward_step(input_dict, labels)"),
                    (f"{wd}/torchtitan/train.py", 463 + self.tminor, "forward_backward_step", "pred = model_parts[0](inputs)")]
        if st == "tune":
            rp = f"{sp}/recipes/full_finetune_distributed.py"
            return [(rp, 1101, "<module>", "sys.exit(recipe_main())"),
                    (f"{sp}/torchtune/config/_parse.py", 99, "wrapper", "sys.exit(recipe_main(conf))"),
                    (rp, 1096, "recipe_main", "recipe.train()"),
                    (rp, 912, "train", "current_loss = self._loss_step(batch) * current_num_tokens"),
                    (rp, 817, "_loss_step", "outputs = self._model(**batch)")]
        if st == "megatron":
            return [(f"{wd}/pretrain_gpt.py", 318, "<module>", "pretrain("),
                    (f"{wd}/megatron/training/training.py", 407, "pretrain", "iteration, num_floating_point_operations_so_far = train("),
                    (f"{wd}/megatron/training/training.py", 1583, "train", "train_step(forward_step_func,"),
                    (f"{wd}/megatron/training/training.py", 781, "train_step", "losses_reduced = forward_backward_func("),
                    (f"{wd}/megatron/core/pipeline_parallel/schedules.py", 471, "forward_backward_no_pipelining", "output_tensor, num_tokens = forward_step("),
                    (f"{wd}/megatron/core/pipeline_parallel/schedules.py", 275, "forward_step", "output_tensor, loss_func = forward_step_func(data_iterator, model)"),
                    (f"{wd}/pretrain_gpt.py", 232, "forward_step", "output_tensor = model(tokens, position_ids, attention_mask,")]
        lp = f"{sp}/lightning/pytorch"
        return [(f"{wd}/train.py", 188, "<module>", "main(args)"),
                (f"{wd}/train.py", 171, "main", "trainer.fit(model, datamodule=dm)"),
                (f"{lp}/trainer/trainer.py", 561, "fit", "call._call_and_handle_interrupt("),
                (f"{lp}/trainer/call.py", 47, "_call_and_handle_interrupt", "return trainer_fn(*args, **kwargs)"),
                (f"{lp}/trainer/trainer.py", 599, "_fit_impl", "self._run(model, ckpt_path=ckpt_path)"),
                (f"{lp}/trainer/trainer.py", 1012, "_run", "results = self._run_stage()"),
                (f"{lp}/trainer/trainer.py", 1056, "_run_stage", "self.fit_loop.run()"),
                (f"{lp}/loops/fit_loop.py", 216, "run", "self.advance()"),
                (f"{lp}/loops/training_epoch_loop.py", 251, "advance", "batch_output = self.automatic_optimization.run(trainer.optimizers[0], batch_idx, kwargs)"),
                (f"{lp}/loops/optimization/automatic.py", 319, "_training_step", "training_step_output = call._call_strategy_hook(trainer, \"training_step\", *kwargs.values())"),
                (f"{lp}/strategies/model_parallel.py", 299, "training_step", "return self.lightning_module.training_step(*args, **kwargs)"),
                (f"{wd}/train.py", 96, "training_step", "logits = self.model(input_ids)")]

    def module_frames(self):
        sp = self.sp
        a = 1751 if self.tminor >= 7 else 1739
        return [(f"{sp}/torch/nn/modules/module.py", a, "_wrapped_call_impl", "return self._call_impl(*args, **kwargs)"),
                (f"{sp}/torch/nn/modules/module.py", a + 11, "_call_impl", "return forward_call(*args, **kwargs)")]

    def compiled_frames(self, kern_line):
        sp = self.sp
        h = "".join(self.rng.choice("abcdefghijklmnopqrstuvwxyz234567") for _ in range(50))
        d = h[:2]
        fr = [(f"{sp}/torch/_dynamo/eval_frame.py", 655 + 30 * (self.tminor - 6), "_fn", "return fn(*args, **kwargs)")]
        fr += self.module_frames()
        fr += [(f"{sp}/torch/_functorch/aot_autograd.py", 1201, "forward", "return compiled_fn(full_args)"),
               (f"{sp}/torch/_functorch/_aot_autograd/runtime_wrappers.py", 328, "runtime_wrapper", "all_outs = call_func_at_runtime_with_args("),
               (f"{sp}/torch/_functorch/_aot_autograd/utils.py", 126, "call_func_at_runtime_with_args", "out = normalize_as_list(f(args))"),
               (f"{sp}/torch/_functorch/_aot_autograd/runtime_wrappers.py", 689, "inner_fn", "outs = compiled_fn(args)"),
               (f"{sp}/torch/_inductor/output_code.py", 460 + 20 * (self.tminor - 6), "__call__", "return self.current_callable(inputs)"),
               (f"{sp}/torch/_inductor/utils.py", 2404, "run", "return model(new_inputs)"),
               (f"/tmp/torchinductor_{self.user}/{d}/c{h}.py", self.rng.randrange(400, 4000), "call", kern_line)]
        return fr

    # ------------------------------------------------------------------ collective helpers
    def coll_for(self, dim, kind=None):
        rng = self.rng
        H = self.hidden
        size = self.dimsize.get(dim, self.world) if dim else self.world
        if kind is None:
            if dim in ("dp_shard", "data_parallel", "dp"):
                kind = rng.choice(["_ALLGATHER_BASE", "_ALLGATHER_BASE", "_REDUCE_SCATTER_BASE"])
            elif dim in ("tp", "tensor_parallel", "cp"):
                kind = rng.choice(["ALLREDUCE", "_ALLGATHER_BASE", "_REDUCE_SCATTER_BASE"])
            elif dim == "pp":
                kind = "ALLREDUCE"
            else:
                kind = "ALLREDUCE"
        if dim in ("dp_shard", "data_parallel", "dp"):
            full = 4 * H * H * rng.choice([3, 4, 6]) + H
            shard = full // max(size, 1)
            nin, nout = (shard, shard * size) if kind == "_ALLGATHER_BASE" else (shard * size, shard)
            if kind == "ALLREDUCE":
                nin = nout = full
        else:
            act = self.lbs * self.seq_len * H
            if kind == "ALLREDUCE":
                nin = nout = act if rng.random() < 0.8 else 1
            elif kind == "_ALLGATHER_BASE":
                nin, nout = act // max(size, 1), act
            else:
                nin, nout = act, act // max(size, 1)
        seq = rng.randrange(800, 90000)
        return dict(dim=dim, op=kind, nin=nin, nout=nout, seq=seq, enq=seq + rng.choice([0, 1, 2, 2, 3, 6]))

    def rank_coll(self, r):
        if r in self.coll_override:
            return self.coll_override[r]
        c = self.coll
        if self.coll_group and r not in self.coll_group and self.coll2:
            return self.coll2
        return c

    # ------------------------------------------------------------------ collateral blocks
    def frames_cpp(self, top, r):
        sp = self.sp
        rng = random.Random(f"{self.seed}|{self.idx}|frames|{top}")
        lib = f"{sp}/torch/lib"
        fr = [f"frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x{rng.randrange(0x80, 0xb0):x} ({hexaddr(rng)} in {lib}/libc10.so)"]
        if top == "timeout":
            fr.append(f"frame #1: c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >) + 0x{rng.randrange(0x1a0, 0x260):x} ({hexaddr(rng)} in {lib}/libtorch_cuda.so)")
            fr.append(f"frame #2: c10d::ProcessGroupNCCL::watchdogHandler() + 0x{rng.randrange(0x200, 0xd00):x} ({hexaddr(rng)} in {lib}/libtorch_cuda.so)")
            fr.append(f"frame #3: c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x{rng.randrange(0x100, 0x160):x} ({hexaddr(rng)} in {lib}/libtorch_cuda.so)")
        elif top == "ncclerr":
            fr.append(f"frame #1: c10d::ProcessGroupNCCL::WorkNCCL::checkAndSetException() + 0x{rng.randrange(0x40, 0x90):x} ({hexaddr(rng)} in {lib}/libtorch_cuda.so)")
            fr.append(f"frame #2: c10d::ProcessGroupNCCL::watchdogHandler() + 0x{rng.randrange(0x200, 0xd00):x} ({hexaddr(rng)} in {lib}/libtorch_cuda.so)")
            fr.append(f"frame #3: c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x{rng.randrange(0x100, 0x160):x} ({hexaddr(rng)} in {lib}/libtorch_cuda.so)")
        elif top == "cuda":
            fr.append(f"frame #1: c10::detail::torchCheckFail(char const*, char const*, unsigned int, std::string const&) + 0x{rng.randrange(0x60, 0x80):x} ({hexaddr(rng)} in {lib}/libc10.so)")
            fr.append(f"frame #2: c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, int, bool) + 0x{rng.randrange(0x100, 0x400):x} ({hexaddr(rng)} in {lib}/libc10_cuda.so)")
            fr.append(f"frame #3: c10d::ProcessGroupNCCL::WorkNCCL::finishedGPUExecutionInternal() const + 0x{rng.randrange(0x40, 0x80):x} ({hexaddr(rng)} in {lib}/libtorch_cuda.so)")
            fr.append(f"frame #4: c10d::ProcessGroupNCCL::WorkNCCL::isCompleted() + 0x{rng.randrange(0x50, 0x70):x} ({hexaddr(rng)} in {lib}/libtorch_cuda.so)")
            fr.append(f"frame #5: c10d::ProcessGroupNCCL::watchdogHandler() + 0x{rng.randrange(0x200, 0xd00):x} ({hexaddr(rng)} in {lib}/libtorch_cuda.so)")
        else:  # watchdog thread wrapper
            fr.append(f"frame #1: <unknown function> + 0x{rng.randrange(0xe00000, 0xf00000):x} ({hexaddr(rng)} in {lib}/libtorch_cuda.so)")
        k = len(fr)
        fr.append(f"frame #{k}: <unknown function> + 0x{rng.randrange(0xd0000, 0xe0000):x} ({hexaddr(rng)} in /lib/x86_64-linux-gnu/libstdc++.so.6)")
        fr.append(f"frame #{k+1}: <unknown function> + 0x94ac3 ({hexaddr(rng)} in /lib/x86_64-linux-gnu/libc.so.6)")
        fr.append(f"frame #{k+2}: <unknown function> + 0x126850 ({hexaddr(rng)} in /lib/x86_64-linux-gnu/libc.so.6)")
        return "\n".join(fr)

    def wd_timeout_block(self, r, t, c, kind="c"):
        """watchdog collective-timeout block of rank r at time t (detection)."""
        ln = self.ln
        dim = c["dim"]
        tag, gr = self.pgtag(dim, r)
        to = int(self.rank_timeout(r) * 1000)
        ran = to + self.rng.randrange(5, 120)
        work = f"WorkNCCL(SeqNum={c['seq']}, OpType={c['op']}, NumelIn={c['nin']}, NumelOut={c['nout']}, Timeout(ms)={to})"
        msg = f"[Rank {gr}] Watchdog caught collective operation timeout: {work} ran for {ran} milliseconds before timing out."
        L = [self.g(r, t, "E", msg, f"ProcessGroupNCCL.cpp:{ln['timeout']}")]
        if self.tminor >= 6:
            L.append(self.g(r, t + 0.0003, "E", f"{tag}  failure detected by watchdog at work sequence id: {c['seq']} PG status: last enqueued work: {c['enq']}, last completed work: {c['seq'] - 1}", f"ProcessGroupNCCL.cpp:{ln['failure']}"))
        else:
            L.append(self.g(r, t + 0.0003, "E", f"{tag} Exception (either an error or timeout) detected by watchdog at work: {c['seq']}, last enqueued NCCL work: {c['enq']}, last completed NCCL work: {c['seq'] - 1}.", f"ProcessGroupNCCL.cpp:{ln['failure']}"))
        if self.fr_enabled:
            L.append(self.g(r, t + 0.0005, "E", "Stack trace of the failed collective: ", f"ProcessGroupNCCL.cpp:{ln['stack']}"))
            L += self.collective_stack(c).split("\n")
        else:
            L.append(self.g(r, t + 0.0005, "E", "Stack trace of the failed collective not found, potentially because FlightRecorder is disabled. You can enable it by setting TORCH_NCCL_TRACE_BUFFER_SIZE to a non-zero value.", f"ProcessGroupNCCL.cpp:{ln['stack']}"))
        return "\n".join(L), msg

    def collective_stack(self, c):
        sp = self.sp
        fn = FR_TRACE_FN.get(c["op"], "all_reduce")
        dl = {"all_gather_into_tensor": 3870, "reduce_scatter_tensor": 4330, "all_reduce": 2810,
              "broadcast": 2714, "all_to_all_single": 4520, "all_gather": 3609}[fn]
        out = [f"#0 {fn} from {sp}/torch/distributed/distributed_c10d.py:{dl + 20 * (self.tminor - 6)}",
               f"#1 wrapper from {sp}/torch/distributed/c10d_logger.py:81"]
        st = self.stack
        if c["op"] in ("_ALLGATHER_BASE",) and st in ("titan", "tune", "lightning") and c["dim"] not in ("tp", "tensor_parallel"):
            out += [f"#2 foreach_all_gather from {sp}/torch/distributed/fsdp/_fully_shard/_fsdp_collectives.py:240",
                    f"#3 decorate_context from {sp}/torch/utils/_contextlib.py:116",
                    f"#4 all_gather from {sp}/torch/distributed/fsdp/_fully_shard/_fsdp_param_group.py:300",
                    f"#5 pre_forward from {sp}/torch/distributed/fsdp/_fully_shard/_fsdp_param_group.py:361",
                    f"#6 _pre_forward from {sp}/torch/distributed/fsdp/_fully_shard/_fsdp_state.py:234"]
        elif c["op"] == "_REDUCE_SCATTER_BASE" and st in ("titan", "tune", "lightning") and c["dim"] not in ("tp", "tensor_parallel"):
            out += [f"#2 foreach_reduce from {sp}/torch/distributed/fsdp/_fully_shard/_fsdp_collectives.py:430",
                    f"#3 decorate_context from {sp}/torch/utils/_contextlib.py:116",
                    f"#4 post_backward from {sp}/torch/distributed/fsdp/_fully_shard/_fsdp_param_group.py:459",
                    f"#5 _root_post_backward_final_callback from {sp}/torch/distributed/fsdp/_fully_shard/_fsdp_state.py:303"]
        elif st == "megatron":
            out += [f"#2 start_grad_sync from {self.workdir}/megatron/core/distributed/param_and_grad_buffer.py:370",
                    f"#3 finish_grad_sync from {self.workdir}/megatron/core/distributed/distributed_data_parallel.py:419",
                    f"#4 forward_backward_no_pipelining from {self.workdir}/megatron/core/pipeline_parallel/schedules.py:498",
                    f"#5 train_step from {self.workdir}/megatron/training/training.py:781"]
        elif c["dim"] in ("tp", "tensor_parallel"):
            out += [f"#2 _all_reduce from {sp}/torch/distributed/_functional_collectives.py:1079",
                    f"#3 all_reduce from {sp}/torch/distributed/_functional_collectives.py:213",
                    f"#4 _reduce_value from {sp}/torch/distributed/tensor/placement_types.py:622",
                    f"#5 redistribute_local_tensor from {sp}/torch/distributed/tensor/_redistribute.py:231"]
        else:
            out += [f"#2 dist_mean from {self.workdir}/torchtitan/distributed/utils.py:51" if st == "titan" else
                    f"#2 reduce from {sp}/lightning/fabric/utilities/distributed.py:231",
                    f"#3 train_step from {self.workdir}/torchtitan/train.py:520" if st == "titan" else
                    f"#3 log from {sp}/lightning/pytorch/core/module.py:508"]
        return "\n".join(out)

    def abort_block(self, r, t, what, top):
        """terminate called after throwing ... (raw stderr, no prefix)."""
        ln = self.ln
        lines = ["terminate called after throwing an instance of 'c10::DistBackendError'",
                 "  what():  " + what.split("\n")[0]] + what.split("\n")[1:]
        src = {"timeout": ("checkTimeout", ln["timeout"]), "ncclerr": ("checkForNCCLErrorsInternal", ln["ncclerr"]),
               "cuda": ("c10_cuda_check_implementation", 43)}[top]
        path = "/pytorch/c10/cuda/CUDAException.cpp" if top == "cuda" else "/pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp"
        lines.append(f"Exception raised from {src[0]} at {path}:{src[1]} (most recent call first):")
        lines += self.frames_cpp(top, r).split("\n")
        lines.append("")
        lines.append(f"Exception raised from ncclCommWatchdog at /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:{ln['wdexc']} (most recent call first):")
        lines += self.frames_cpp("wd", r).split("\n")
        lines.append("")
        return "\n".join(lines)

    def rank_timeout(self, r):
        return self.pg_timeout if (self.t_block or 0) > self.t_train0 + self.compile_dur + 1 else self.init_timeout

    def dump_lines(self, r, t, reason, src_rank=None):
        """flight recorder dump lines on rank r."""
        ln = self.ln
        tag = f"[PG ID 0 PG GUID 0(default_pg) Rank {r}]"
        L = []
        if reason == "local":
            c = self.rank_coll(r)
            L.append(self.g(r, t, "E", f"{tag} First PG on this rank to signal dumping.", f"ProcessGroupNCCL.cpp:{ln['first']}"))
            L.append(self.g(r, t + 0.35, "E", f"{tag} Received a dump signal due to a collective timeout from this local rank and we will try our best to dump the debug info. Last enqueued NCCL work: {c['enq']}, last completed NCCL work: {c['seq'] - 1}.This is most likely caused by incorrect usages of collectives, e.g., wrong sizes used across ranks, the order of collectives is not same for all ranks or the scheduled collective, for some reason, didn't run. Additionally, this can be caused by GIL deadlock or other reasons such as network errors or bugs in the communications library (e.g. NCCL), etc. ", f"ProcessGroupNCCL.cpp:{ln['dumpsig']}"))
        elif reason == "remote":
            L.append(self.g(r, t, "E", f"{tag} Observed flight recorder dump signal from another rank via TCPStore.", f"ProcessGroupNCCL.cpp:{ln['observed']}"))
            L.append(self.g(r, t + 0.2, "E", f"{tag} Received a dump signal due to a collective timeout from  rank {src_rank} and we will try our best to dump the debug info. Last enqueued NCCL work: -1, last completed NCCL work: -1.This is most likely caused by incorrect usages of collectives, e.g., wrong sizes used across ranks, the order of collectives is not same for all ranks or the scheduled collective, for some reason, didn't run. Additionally, this can be caused by GIL deadlock or other reasons such as network errors or bugs in the communications library (e.g. NCCL), etc. ", f"ProcessGroupNCCL.cpp:{ln['dumpsig']}"))
        if self.fr_dump:
            L.append(self.g(r, t + 0.5, "E", f"{tag} ProcessGroupNCCL preparing to dump debug info. Include stack trace: 1", f"ProcessGroupNCCL.cpp:{ln['prep']}"))
            L.append(self.g(r, t + 1.4, "I", f"{tag} ProcessGroupNCCL dumping nccl trace to {self.fr_dir}/nccl_trace_rank_{r}", f"ProcessGroupNCCL.cpp:{ln['dumping']}"))
        return "\n".join(L)

    # ------------------------------------------------------------------ simulation
    def simulate(self):
        rng = self.rng
        H = []
        cnt = [0]

        def push(t, kind, a, b=None, c=None):
            cnt[0] += 1
            heapq.heappush(H, (t, cnt[0], kind, a, b, c))

        alive = set(range(self.world))
        for r, (t, code, reason) in self.origin_dead.items():
            push(t, "die", r, code, reason)
        for r, (t, code, reason) in self.stuck_selfkill.items():
            push(t, "die", r, code, reason)
        if self.ext_kill:
            push(self.ext_kill[0], "ext", None, self.ext_kill[1])
        if self.t_block is not None:
            for r in range(self.world):
                if r in self.origin_dead or r in self.origin_stuck or r in self.no_watchdog:
                    continue
                tb = self.t_block + (0 if (not self.coll_group or r in self.coll_group) else rng.uniform(0.3, 4))
                tw = tb + self.rank_timeout(r) + rng.uniform(0.0, 1.2)
                wait = rng.uniform(58, 62) if self.fr_dump else rng.uniform(0.3, 2.5)
                push(tw + wait, "die", r, -6, "watchdog")
                if self.first_timeout is None or tw < self.first_timeout[0]:
                    self.first_timeout = (tw, r)
        self.node_state = {n: dict(first=None, others=[], acted=None, exit=None, ext=None, sigkill=[]) for n in range(self.nnodes)}
        has_agent = self.stack != "megatron" and self.layout != "lightning_bundle"
        self.has_agent = has_agent
        job_killed = [False]
        first_death = [None]
        while H:
            t, _, kind, a, b, c = heapq.heappop(H)
            if kind == "die":
                r = a
                if r not in alive:
                    continue
                alive.discard(r)
                self.fates[r] = Fate(t, b, c)
                n = self.node(r)
                ns = self.node_state[n]
                if c not in ("agent_sigterm", "ext_sigterm", "agent_sigkill"):
                    if ns["first"] is None:
                        ns["first"] = r
                        if has_agent and ns["acted"] is None:
                            push(t + rng.uniform(0.2, 2.2), "agent", n)
                    elif ns["acted"] is None:
                        ns["others"].append(r)
                    if first_death[0] is None:
                        first_death[0] = t
                        if self.cause not in ("preemption",) and self.nnodes > 1:
                            for r2 in range(self.world):
                                if self.node(r2) != n and r2 not in self.origin_stuck and rng.random() < self.remote_err_p:
                                    push(t + rng.uniform(2.5, 45), "die", r2, -6, "remote_err")
                    if not has_agent and not job_killed[0] and self.layout in ("megatron_srun", "lightning_bundle") and self.kill_on_bad_exit:
                        job_killed[0] = True
                        push(t + rng.uniform(0.3, 2.0), "job", n)
            elif kind == "agent":
                n = a
                ns = self.node_state[n]
                if ns["acted"] is not None:
                    continue
                ns["acted"] = t
                last = t
                for r in range(n * self.gpn, (n + 1) * self.gpn):
                    if r in alive:
                        if r in self.dstate:
                            push(t + 30 + rng.uniform(0, 0.5), "die", r, -9, "agent_sigkill")
                            ns["sigkill"].append(r)
                            last = max(last, t + 31)
                        else:
                            push(t + rng.uniform(0.05, 1.5), "die", r, -15, "agent_sigterm")
                            last = max(last, t + 1.6)
                ns["exit"] = last + rng.uniform(0.2, 1.5)
                if n == 0 and self.store_dead_t is None:
                    self.store_dead_t = ns["exit"]
                if self.kill_on_bad_exit and not job_killed[0] and self.layout in ("titan_slurm", "k8s_pytorchjob", "torchrun_logdir"):
                    job_killed[0] = True
                    push(ns["exit"] + rng.uniform(0.5, 4.0), "job", n)
            elif kind in ("job", "ext"):
                reason = "ext_sigterm"
                for n in range(self.nnodes):
                    ns = self.node_state[n]
                    if ns["acted"] is not None and kind == "job":
                        continue
                    ns["ext"] = t
                    if ns["acted"] is None:
                        ns["acted"] = t
                    last = t
                    for r in range(n * self.gpn, (n + 1) * self.gpn):
                        if r in alive:
                            if r in self.dstate:
                                push(t + 30 + rng.uniform(0, 1), "die", r, -9, "agent_sigkill")
                                last = max(last, t + 31)
                            else:
                                push(t + rng.uniform(0.1, 2.0), "die", r, -15, reason)
                                last = max(last, t + 2.1)
                    ns["exit"] = last + rng.uniform(0.2, 1.0)
                if kind == "job":
                    self.job_kill_t = t
                    self.job_kill_node = a
        for r in list(alive):
            self.fates[r] = None
        if self.store_dead_t is None and (not has_agent) and self.fates.get(0):
            self.store_dead_t = self.fates[0].t
        if 0 in self.vanished:
            self.store_dead_t = self.t_fail

    # ------------------------------------------------------------------ per-rank materialization
    def materialize(self, r):
        if r in self.materialized:
            return
        self.materialized.add(r)
        getattr(self, "normal_" + self.stack)(r)
        self.compile_noise(r)
        self.fate_lines(r)

    def fate_lines(self, r):
        f = self.fates.get(r)
        rng = self.rng
        ln = self.ln
        if self.healthy:
            self.healthy_tail(r)
            return
        if f is None and not self.origin_stuck and r not in self.origin_stuck:
            return
        if r in self.origin_stuck:
            ts = self.origin_stuck[r]
            # dump signal from other ranks
            if self.first_timeout and (f is None or self.first_timeout[0] < f.t):
                self.out(r, self.first_timeout[0] + rng.uniform(0.8, 2.5), self.dump_lines(r, self.first_timeout[0] + 1, "remote", self.first_timeout[1]), "c")
            return
        if f is None:
            return
        reason = f.reason
        if reason == "watchdog":
            c = self.rank_coll(r)
            tw = f.t - (59 if self.fr_dump else 1.2)
            block, msg = self.wd_timeout_block(r, tw, c, "k" if r in self.coll_override else "c")
            self.out(r, tw, block, "k" if r in self.coll_override else "c")
            if self.first_timeout and self.first_timeout[1] == r:
                self.out(r, tw + 0.4, self.dump_lines(r, tw + 0.4, "local"), "c")
            elif self.first_timeout:
                t2 = max(tw + 0.3, self.first_timeout[0] + rng.uniform(0.5, 2))
                self.out(r, t2, self.dump_lines(r, t2, "remote", self.first_timeout[1]), "c")
            tag, gr = self.pgtag(c["dim"], r)
            t3 = f.t - 0.3
            self.out(r, t3, "\n".join([
                self.g(r, t3, "E", f"{tag} Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.", f"ProcessGroupNCCL.cpp:{ln['someops']}"),
                self.g(r, t3 + 0.0001, "E", f"{tag} To avoid data inconsistency, we are taking the entire process down.", f"ProcessGroupNCCL.cpp:{ln['avoid']}"),
                self.g(r, t3 + 0.0002, "E", f"{tag} Process group watchdog thread terminated with exception: {msg}", f"ProcessGroupNCCL.cpp:{ln['wdterm']}")]), "c")
            self.out(r, t3 + 0.0003, self.abort_block(r, t3, f"{tag} Process group watchdog thread terminated with exception: {msg}", "timeout"), "c")
        elif reason == "remote_err":
            peer_n = self.remote_peer_node(r)
            self.out(r, f.t - 0.4, self.remote_error_block(r, f.t - 0.4, peer_n), "c")
        elif reason in ("agent_sigterm", "ext_sigterm"):
            if self.stack == "lightning" and reason == "ext_sigterm" and r % self.gpn == 0:
                self.out(r, f.t - 0.05, f"[rank: {r}] Received SIGTERM: 15", "c")
            if self.stack == "megatron" and reason == "ext_sigterm" and r == 0 and self.cause == "preemption":
                pass
        # store gone: heartbeat monitor warnings on survivors
        if self.store_dead_t and f.t > self.store_dead_t + 1 and self.node(r) != 0 and self.nnodes > 1:
            tag = f"[PG ID 0 PG GUID 0(default_pg) Rank {r}]"
            t4 = self.store_dead_t + rng.uniform(0.5, 3)
            if t4 < f.t:
                self.out(r, t4, self.g(r, t4, "W", f"{tag} Failed to check the \"should dump\" flag on TCPStore, (maybe TCPStore server has shut down too early), with error: Connection reset by peer", f"ProcessGroupNCCL.cpp:{ln['storeflag']}"), "c")

    def healthy_tail(self, r):
        rng = self.rng
        te = self.t_end
        if r != 0 and self.nnodes > 1 and self.node(r) != 0 and rng.random() < 0.5:
            tag = f"[PG ID 0 PG GUID 0(default_pg) Rank {r}]"
            t = te - rng.uniform(0.2, 1.5)
            self.out(r, t, self.g(r, t, "W", f"{tag} Failed to check the \"should dump\" flag on TCPStore, (maybe TCPStore server has shut down too early), with error: Connection reset by peer", f"ProcessGroupNCCL.cpp:{self.ln['storeflag']}"), "n")
        if rng.random() < 0.35:
            t = te - rng.uniform(0.1, 0.6)
            self.out(r, t, self.g(r, t, "W", "Warning: WARNING: destroy_process_group() was not called before program exit, which can leak resources. For more info, please see https://pytorch.org/docs/stable/distributed.html#shutdown (function operator())", f"ProcessGroupNCCL.cpp:{self.ln['destroy']}"), "n")
        if self.transport in ("IB", "RoCE") and rng.random() < 0.04:
            t = self.t_train0 + rng.uniform(100, max(200, te - self.t_train0 - 100))
            self.out(r, t, self.nccl(r, t, f"NET/IB : mlx5_{self.lr(r)}:1 Got async event : GID table change", "WARN"), "n", "out")

    def remote_peer_node(self, r):
        n = self.node(r)
        cands = [x for x in self.dead_nodes_order() if x != n]
        return cands[0] if cands else (n + 1) % self.nnodes

    def dead_nodes_order(self):
        firsts = []
        for n, ns in self.node_state.items():
            if ns["first"] is not None:
                firsts.append((self.fates[ns["first"]].t, n))
        if self.origin_node is not None:
            firsts.append((-1, self.origin_node))
        return [n for _, n in sorted(firsts)]

    def remote_error_block(self, r, t, peer_n, net=False):
        rng = self.rng
        n = self.node(r)
        tag, gr = self.pgtag(self.rank_coll(r)["dim"], r)
        peer_ip = self.ips[peer_n]
        port = rng.randrange(32768, 60999)
        if self.transport in ("IB", "RoCE"):
            op = rng.choice([0, 1, 32768 + 1])
            dirn = rng.choice(["(Recv)", "(Send)"])
            last = (f"NET/IB : Got completion from peer {peer_ip}<{port}> with status=12 opcode={op} len=0 vendor err 129 {dirn} "
                    f"localGid ::ffff:{self.ips[n]} remoteGids::ffff:{peer_ip} hca {self.hca}")
            warn = self.nccl(r, t, last, "WARN")
            info = [self.nccl(r, t, f"transport/net.cc:{rng.choice([1298, 1363, 1423])} -> 6"),
                    self.nccl(r, t, f"proxy.cc:{rng.choice([697, 729, 906])} -> 6"),
                    self.nccl(r, t, f"proxy.cc:{rng.choice([893, 929])} -> 6 [Progress Thread]")]
        elif self.transport == "Socket":
            last = f"socketProgressOpt: Call to recv from {peer_ip}<{port}> failed : Connection reset by peer"
            warn = self.nccl(r, t, last, "WARN")
            info = [self.nccl(r, t, f"misc/socket.cc:{rng.choice([65, 80])} -> 6"),
                    self.nccl(r, t, "transport/net_socket.cc:" + str(rng.choice([488, 512])) + " -> 6"),
                    self.nccl(r, t, f"proxy.cc:{rng.choice([893, 929])} -> 6 [Progress Thread]")]
        else:
            last = "Cuda failure 'peer access is not supported between these two devices'"
            warn = self.nccl(r, t, last, "WARN")
            info = []
        err = (f"NCCL error: remote process exited or there was a network error, NCCL version {self.nccl_ver}\n"
               "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.\n"
               f"Last error:\n{last}")
        c = self.rank_coll(r)
        L = [warn] + info
        L.append(self.g(r, t + 0.01, "E", f"{tag} {err.split(chr(10))[0]}", f"ProcessGroupNCCL.cpp:{self.ln['ncclerr']}"))
        L += err.split("\n")[1:]
        if self.tminor >= 6:
            L.append(self.g(r, t + 0.012, "E", f"{tag}  failure detected by watchdog at work sequence id: {c['seq']} PG status: last enqueued work: {c['enq']}, last completed work: {c['seq'] - 1}", f"ProcessGroupNCCL.cpp:{self.ln['failure']}"))
        if self.fr_dump and rng.random() < 0.5:
            L.append(self.g(r, t + 0.02, "E", f"[PG ID 0 PG GUID 0(default_pg) Rank {r}] ProcessGroupNCCL preparing to dump debug info. Include stack trace: 1", f"ProcessGroupNCCL.cpp:{self.ln['prep']}"))
        L.append(self.g(r, t + 0.03, "E", f"{tag} Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.", f"ProcessGroupNCCL.cpp:{self.ln['someops']}"))
        L.append(self.g(r, t + 0.031, "E", f"{tag} To avoid data inconsistency, we are taking the entire process down.", f"ProcessGroupNCCL.cpp:{self.ln['avoid']}"))
        L.append(self.g(r, t + 0.032, "E", f"{tag} Process group watchdog thread terminated with exception: {err.splitlines()[0]}", f"ProcessGroupNCCL.cpp:{self.ln['wdterm']}"))
        L += err.split("\n")[1:]
        L.append(self.abort_block(r, t, f"{tag} Process group watchdog thread terminated with exception: " + err, "ncclerr"))
        return "\n".join(L)

    # ------------------------------------------------------------------ normal per-stack output
    def first_nccl(self, r, t):
        t = self.t_nccl + random.Random(f"{self.seed}|{self.idx}|nt|{r}").uniform(0, 2.5)
        if not self.nccl_info:
            return
        n, lr = self.node(r), self.lr(r)
        L = []
        if r == 0:
            L.append(f"NCCL version {self.nccl_ver}+cuda{self.cuda_ver}")
        L.append(self.nccl(r, t, f"Bootstrap: Using eth0:{self.ips[n]}<0>"))
        if self.nccl_ver >= "2.24":
            L.append(self.nccl(r, t, "RAS client listening socket at ::1<28028>"))
        if self.transport in ("IB", "RoCE"):
            devs = " ".join(f"[{i}]mlx5_{i}:1/{'IB' if self.transport == 'IB' else 'RoCE'}" for i in range(min(8, self.gpn)))
            L.append(self.nccl(r, t, f"NET/IB : Using {devs} [RO]; OOB eth0:{self.ips[n]}<0>"))
            L.append(self.nccl(r, t, "Using network IB"))
        elif self.transport == "Socket":
            L.append(self.nccl(r, t, f"NET/Socket : Using [0]eth0:{self.ips[n]}<0>"))
            L.append(self.nccl(r, t, "Using network Socket"))
        crng = random.Random(f"{self.seed}|{self.idx}|cid")
        cid = "0x" + "".join(crng.choice("0123456789abcdef") for _ in range(16))
        L.append(self.nccl(r, t + 1.1, f"ncclCommInitRankConfig comm 0x{55000000 + r * 4097:x} rank {r} nranks {self.world} cudaDev {lr} nvmlDev {lr} busId {BUS[lr % 8]}000 commId {cid} - Init COMPLETE"))
        if self.nccl_ver >= "2.23":
            L.append(self.nccl(r, t + 1.11, f"Init timings - ncclCommInitRankConfig: rank {r} nranks {self.world} total {self.rng.uniform(0.6, 4.5):.2f} (kernels 0.{self.rng.randrange(10, 40)}, alloc 0.0{self.rng.randrange(1, 9)}, bootstrap 0.{self.rng.randrange(10, 99)}, allgathers 0.0{self.rng.randrange(1, 9)}, topo 0.{self.rng.randrange(10, 40)}, graphs 0.0{self.rng.randrange(1, 9)}, connections 0.{self.rng.randrange(10, 60)}, rest 0.0{self.rng.randrange(1, 9)})"))
        kind = "k" if (r in self.origin and self.cause in ("gpu_hardware", "ecc_memory", "nvlink")) else "n"
        self.out(r, t, "\n".join(L), kind, "out")

    def end_time(self, r):
        """last time rank r makes training progress."""
        if r in self.progress_end:
            return self.progress_end[r]
        if self.healthy or self.cause == "straggler":
            return self.t_end
        f = self.fates.get(r)
        te = f.t if f else float("inf")
        if self.t_block is not None:
            te = min(te, self.t_block)
        if self.t_fail is not None and r in self.origin:
            te = min(te, self.t_fail)
        if self.truncated_running:
            te = min(te, self.t_end)
        return te

    def metric_steps(self, t_end):
        k_end = min(self.step_of(t_end), self.total_steps)
        le = self.log_every
        ks = [1] + list(range(le, k_end + 1, le))
        return [k for k in ks if self.step_t(k) <= t_end]

    def normal_titan(self, r):
        rng = self.rng
        n, lr = self.node(r), self.lr(r)
        t = self.t_launch + rng.uniform(3, 9)
        te = self.end_time(r)
        M = self.model
        mesh_names = [x for x, _ in self.dims]
        mesh_sizes = [s for _, s in self.dims]

        def T(tt, msg, lvl="INFO", kind="n"):
            self.out(r, tt, f"[titan] {self.f_titan(n, tt)} - root - {lvl} - {msg}", kind)
        T(t, f"Starting job: {M[0].capitalize()} {M[1]} training")
        T(t + 0.01, "ENV[TORCH_NCCL_ASYNC_ERROR_HANDLING] = 1 will be overridden to 3 based on job config", "WARNING")
        if self.tminor >= 7 and self.tminor < 9 and r % 3 == 0 and rng.random() < 0.3:
            self.out(r, t + 0.3, self.g(r, t + 0.3, "W", "Warning: TORCH_NCCL_AVOID_RECORD_STREAMS is the default now, this environment variable is thus deprecated. (function operator())", f"ProcessGroupNCCL.cpp:{self.ln['avoid_rs']}"))
        if self.variant == "mesh_shape" and n == self.origin_node and getattr(self, "bad_tp", None):
            wtp = self.dimsize.get("tp", 1)
            mesh_names = [x for x in mesh_names if x != "tp"] + ["tp"]
            mesh_sizes = [s2 for x, s2 in self.dims if x != "tp"] + [self.bad_tp]
            if "dp_shard" in mesh_names:
                mesh_sizes[mesh_names.index("dp_shard")] = max(1, self.dimsize.get("dp_shard", 1) * wtp // self.bad_tp)
        T(t + 1.2, f"Building {len(mesh_names)}-D device mesh with {mesh_names}, {mesh_sizes}")
        T(t + 1.3, "[GC] Initial GC collection 0.00 seconds")
        self.first_nccl(r, t + rng.uniform(2, 8))
        T(t + 9, "Loading tokenizer from tokenizer.json")
        T(t + 9.2, rng.choice(["Preparing c4 dataset from allenai/c4", "Preparing fineweb_edu dataset from HuggingFaceFW/fineweb-edu",
                               "Preparing c4_test dataset from tests/assets/c4_test"]))
        T(t + 11, f"Building {M[0]} {M[1]} with TransformerModelArgs(_enforced='This field is used to enforce all fields have defaults.', dim={M[3]}, n_layers={M[4]}, n_heads={M[3] // 128}, n_kv_heads=8, vocab_size={M[6]}, multiple_of=1024, ffn_dim_multiplier=1.3, norm_eps=1e-05, rope_theta=500000, max_seq_len={self.seq_len}, depth_init=True, use_flex_attn={rng.choice(['False', 'True'])}, attn_mask_type='causal', eos_id=0)")
        gpu = GPUS["A100"] if getattr(self, "hetero_node", None) == n else self.gpu
        T(t + 13, f"CUDA capacity: {gpu['name']} with {gpu['cap']:.2f}GiB memory")
        T(t + 13.5, f"Model {M[0]} {M[1]} size: {M[2]:,} total parameters")
        if self.float8:
            T(t + 13.6, f"Float8 training active with recipe {rng.choice(['tensorwise', 'rowwise'])}")
        if self.dimsize.get("tp", 1) > 1:
            T(t + 13.8, "Applied Tensor Parallelism to the model")
            if self.async_tp:
                T(t + 13.81, "Async TP is enabled")
        if self.dimsize.get("cp", 1) > 1:
            T(t + 13.9, "Applied Context Parallel to the model")
        if self.ac != "none":
            T(t + 14, f"Applied {self.ac} activation checkpointing to the model")
        if self.compile:
            T(t + 14.1, "Compiling each TransformerBlock with torch.compile")
        T(t + 14.3, "Applied HSDP to the model" if self.dimsize.get("dp_replicate", 1) > 1 else "Applied FSDP to the model")
        if self.dimsize.get("pp", 1) > 1:
            T(t + 14.4, f"Pipeline Parallelism is enabled with schedule {rng.choice(['1F1B', 'Interleaved1F1B', 'ZBVZeroBubble'])} and {self.dimsize['pp']} stages")
        T(t + 14.6, f"Peak FLOPS used for computing MFU: {self.gpu['peak']:.3e}")
        mem0 = rng.uniform(2, 9)
        T(t + 15, f"CUDA memory usage for model: {mem0:.2f}GiB({100 * mem0 / self.gpu['cap']:.2f}%)")
        if self.want_memsnap:
            T(t + 15.1, "Memory profiler active. Snapshot will be saved at ./outputs/memory_snapshot")
        T(t + 15.3, "Mixed precision training is handled by fully_shard")
        gbs = self.lbs * self.dimsize.get("dp_shard", 1) * self.dimsize.get("dp_replicate", 1)
        T(t + 15.5, f"Trainer is initialized with local batch size {self.lbs}, global batch size {gbs}, gradient accumulation steps 1, sequence length {self.seq_len}, total steps {self.total_steps} (warmup {min(2000, self.total_steps // 10)})")
        T(self.t_train0, "Training starts at step 1")
        if self.want_profiler:
            T(self.t_train0 + 0.1, "Profiling active. Traces will be saved at ./outputs/profile_trace")
        if self.t_train0 > te:
            return
        self.memp = rng.uniform(0.45, 0.82)
        tps0 = int(self.seq_len * self.lbs / self.step_time)
        ckpt_every = self.ckpt_every
        for k in self.metric_steps(te):
            tk = self.step_t(k)
            st = self.step_time * (self.slow_factor if (self.slow_from is not None and k > self.slow_from) else 1.0)
            if k == 1:
                st = self.compile_dur + self.step_time
            tps = int(self.seq_len * self.lbs / st * rng.uniform(0.97, 1.03))
            tfl = 6 * M[2] / self.mp * tps / 1e12
            mem = self.gpu["cap"] * (self.memp + rng.uniform(-0.003, 0.003))
            T(tk, f"step: {k:2d}  loss: {self.loss_at(k):7.4f}  grad_norm: {rng.uniform(0.2, 1.6) if k > 5 else rng.uniform(3, 12):7.4f}  memory: {mem:5.2f}GiB({100 * mem / self.gpu['cap']:.2f}%)  tps: {tps:,}  tflops: {tfl:,.2f}  mfu: {100 * tfl * 1e12 / self.gpu['peak']:.2f}%")
            if k == 1:
                T(tk + 0.02, f"Synchronizing and adjusting timeout for all ProcessGroups to 0:0{self.pg_timeout // 60}:{self.pg_timeout % 60:02d}")
            if k > 1 and k % 1000 < self.log_every and rng.random() < 0.6:
                T(tk + 0.3, f"[GC] Peforming periodical GC collection {rng.uniform(0.03, 0.09):.2f} seconds")
            if ckpt_every and k > 1 and k % ckpt_every < self.log_every and k < self.total_steps:
                T(tk + 0.5, "Saving the checkpoint (or staging if async is enabled).")
                if not (self.cause == "host_oom_kill" and r in self.origin and abs(tk - self.t_fail) < 3 * self.step_time + 5):
                    T(tk + 0.5 + rng.uniform(4, 40), f"Finished saving the checkpoint (or staging if async is enabled)in {rng.uniform(4, 40):.2f} seconds.")
        if self.completes_run() and te >= self.t_end - 1:
            T(self.t_end - 4, "Training completed")
            if r == 0 or rng.random() < 0.3:
                T(self.t_end - 3.5, "Sleeping 2 seconds for other ranks to complete")
            T(self.t_end - 1.2, "Process group destroyed.")

    def normal_tune(self, r):
        rng = self.rng
        t = self.t_launch + rng.uniform(4, 8)
        te = self.end_time(r)
        M = self.model
        if r == 0:
            cfg = self.tune_config()
            self.out(r, t, "INFO:torchtune.utils._logging:Running FullFinetuneRecipeDistributed with resolved config:\n\n" + cfg + "\n")
        if r == 0:
            self.out(r, t + 0.4, f"DEBUG:torchtune.utils._logging:Setting manual seed to local seed {1234 + r}. Local seed is seed + rank = 1234 + {r}")
        self.first_nccl(r, t + 1)
        if r == 0:
            self.out(r, t + 1.5, f"Writing logs to /tmp/torchtune/{M[0]}_{M[1]}/full/logs/log_{int(t)}.txt")
            self.out(r, t + 1.7, "INFO:torchtune.utils._logging:Distributed training is enabled. Instantiating model and loading checkpoint on Rank 0 ...")
            if self.compile:
                self.out(r, t + 2, "INFO:torchtune.utils._logging:Compiling model layers with torch.compile...")
            self.out(r, t + 14, f"INFO:torchtune.utils._logging:Instantiating model and loading checkpoint took {rng.uniform(8, 40):.2f} secs")
            a = rng.uniform(1.5, 9)
            self.out(r, t + 14.1, f"INFO:torchtune.utils._logging:Memory stats after model init:\n\tGPU peak memory allocation: {a:.2f} GiB\n\tGPU peak memory reserved: {a + 0.06:.2f} GiB\n\tGPU peak memory active: {a:.2f} GiB")
            self.out(r, t + 14.5, "INFO:torchtune.utils._logging:Optimizer is initialized.")
            if self.compile:
                self.out(r, t + 14.6, "INFO:torchtune.utils._logging:Compiling loss with torch.compile...")
            self.out(r, t + 14.8, "INFO:torchtune.utils._logging:Loss is initialized.")
            self.out(r, t + 17, f"Generating train split: 100%|██████████| {self.tune_ds_n}/{self.tune_ds_n} [00:0{rng.randrange(1, 9)}<00:00, {rng.uniform(9000, 90000):.2f} examples/s]")
            self.out(r, t + 18, "INFO:torchtune.utils._logging:Dataset and Sampler are initialized.")
            self.out(r, t + 18.1, "INFO:torchtune.utils._logging:No learning rate scheduler configured. Using constant learning rate." if rng.random() < 0.3 else "INFO:torchtune.utils._logging:Learning rate scheduler is initialized.")
            self.out(r, t + 18.2, "WARNING:torchtune.utils._logging: Profiling disabled.")
            self.out(r, t + 18.3, "INFO:torchtune.utils._logging: Profiler config after instantiation: {'enabled': False}")
        if self.t_train0 > te:
            return
        if r == 0:
            total = self.total_steps
            segs = []
            ks = self.metric_steps(te)
            for i, k in enumerate(ks):
                tk = self.step_t(k)
                el = tk - self.t_train0
                rate = el / max(k, 1)
                segs.append((tk, f"1|{k}|Loss: {self.loss_at(k) / 5.2:.10f}: {int(100 * k / total):3d}%|{bar(k / total)}| {k}/{total} [{hms(el)}<{hms(rate * (total - k))}, {rate:.2f}s/it]"))
            # tqdm writes \r-separated updates; flush a physical line every ~8 updates
            buf = []
            for tk, s in segs:
                buf.append(s)
                if len(buf) >= 8:
                    self.out(r, tk, "\r" + "\r".join(buf))
                    buf = []
            if buf:
                self.out(r, segs[-1][0], "\r" + "\r".join(buf))
            if self.completes_run() and te >= self.t_end - 1:
                self.out(r, self.t_end - 60, "")
                self.out(r, self.t_end - 59, "INFO:torchtune.utils._logging:Saving checkpoint. This may take some time. Retrieving full model state dict...")
                self.out(r, self.t_end - 40, f"INFO:torchtune.utils._logging:Getting full model state dict took {rng.uniform(9, 25):.2f} secs")
                nsh = 4
                for i in range(nsh):
                    self.out(r, self.t_end - 30 + i * 5, f"INFO:torchtune.utils._logging:Model checkpoint of size {rng.uniform(1.1, 4.99):.2f} GiB saved to /tmp/torchtune/{M[0]}_{M[1]}/full/epoch_0/model-0000{i + 1}-of-0000{nsh}.safetensors")
                self.out(r, self.t_end - 8, f"INFO:torchtune.utils._logging:Saving checkpoint took {rng.uniform(25, 60):.2f} secs")

    def tune_config(self):
        M = self.model
        st = "true" if self.compile else "false"
        return "\n".join([
            "batch_size: %d" % self.lbs,
            "checkpointer:",
            "  _component_: torchtune.training.FullModelHFCheckpointer",
            f"  checkpoint_dir: /tmp/{M[0]}_{M[1]}",
            f"  output_dir: /tmp/torchtune/{M[0]}_{M[1]}/full",
            "  model_type: LLAMA3" if "llama" in M[0] else "  model_type: QWEN2",
            f"compile: {st}",
            "dataset:",
            "  _component_: torchtune.datasets.alpaca_dataset",
            "  packed: false",
            "device: cuda",
            "dtype: bf16",
            f"enable_activation_checkpointing: {'true' if self.ac != 'none' else 'false'}",
            "enable_activation_offloading: false",
            "epochs: 1",
            "gradient_accumulation_steps: 1",
            "log_every_n_steps: 1",
            "loss:",
            "  _component_: torchtune.modules.loss.LinearCrossEntropyLoss",
            "model:",
            f"  _component_: torchtune.models.{M[0]}.{M[0]}_{M[1].lower()}",
            "optimizer:",
            "  _component_: torch.optim.AdamW",
            "  fused: true",
            "  lr: 2.0e-05",
            "seed: 1234",
            "shuffle: true",
        ]) + (f"\ntensor_parallel_dim: {self.dimsize.get('tp', 1)}" if self.dimsize.get("tp", 1) > 1 else "")

    def normal_megatron(self, r):
        rng = self.rng
        t = self.t_launch + rng.uniform(5, 12)
        te = self.end_time(r)
        W = self.world
        tp, pp, cp, dp = self.dimsize["tp"], self.dimsize["pp"], self.dimsize["cp"], self.dimsize["dp"]
        last = W - 1
        if r == 0:
            args = ["------------------------ arguments ------------------------",
                    "  accumulate_allreduce_grads_in_fp32 .............. True",
                    "  bf16 ............................................ True",
                    f"  context_parallel_size ........................... {cp}",
                    f"  distributed_timeout_minutes ..................... {self.pg_timeout // 60}",
                    f"  fp8 ............................................. {'hybrid' if self.gpu_kind != 'A100' and rng.random() < 0.5 else 'None'}",
                    f"  global_batch_size ............................... {self.gbs}",
                    f"  hidden_size ..................................... {self.hidden}",
                    f"  log_interval .................................... {self.log_every}",
                    f"  log_straggler ................................... {self.mg_straggler}",
                    f"  micro_batch_size ................................ {self.lbs}",
                    f"  num_layers ...................................... {self.nlayers}",
                    "  overlap_grad_reduce ............................. True",
                    "  overlap_param_gather ............................ True",
                    f"  pipeline_model_parallel_size .................... {pp}",
                    f"  recompute_granularity ........................... {'selective' if self.ac == 'selective' else ('full' if self.ac == 'full' else 'None')}",
                    f"  seq_length ...................................... {self.seq_len}",
                    f"  tensor_model_parallel_size ...................... {tp}",
                    f"  train_iters ..................................... {self.total_steps}",
                    "  use_distributed_optimizer ....................... True",
                    f"  world_size ...................................... {W}",
                    "-------------------- end of arguments ---------------------"]
            self.out(r, t, "\n".join(args), stream="out")
            self.out(r, t + 0.1, f"using world size: {W}, data-parallel size: {dp}, context-parallel size: {cp}, hierarchical context-parallel sizes: None, tensor-model-parallel size: {tp}, encoder-tensor-model-parallel size: 0, pipeline-model-parallel size: {pp}, encoder-pipeline-model-parallel size: 0", stream="out")
            self.out(r, t + 0.2, "> initializing torch distributed ...", stream="out")
        self.first_nccl(r, t + 2)
        if r == 0:
            self.out(r, t + 3, f"> initialized tensor model parallel with size {tp}\n> initialized pipeline model parallel with size {pp}\n> setting random seeds to 1234 ...\n> compiling dataset index builder ...\nmake: Entering directory '{self.workdir}/megatron/core/datasets'\nmake: Nothing to be done for 'default'.\nmake: Leaving directory '{self.workdir}/megatron/core/datasets'\n>>> done with dataset index builder. Compilation time: 0.0{rng.randrange(30, 99)} seconds\n> compiling and loading fused kernels ...\n>>> done with compiling and loading fused kernels. Compilation time: {rng.uniform(1, 9):.3f} seconds", stream="out")
            self.out(r, t + 12, f"time to initialize megatron (seconds): {rng.uniform(20, 60):.3f}\n[after megatron is initialized] datetime: {self.f_iso(0, t + 12)} \nbuilding GPT model ...", stream="out")
        c = self.coord(r)
        if c["dp"] == 0 and c["cp"] == 0:
            self.out(r, t + 14 + rng.uniform(0, 1), f" > number of parameters on (tensor, pipeline) model parallel rank ({c['tp']}, {c['pp']}): {self.model[2] // (tp * pp) + rng.randrange(-5000000, 5000000)}", stream="out")
        if r == 0:
            self.out(r, t + 16, "INFO:megatron.core.distributed.distributed_data_parallel:Setting up DistributedDataParallel with config DistributedDataParallelConfig(grad_reduce_in_fp32=True, overlap_grad_reduce=True, overlap_param_gather=True, align_param_gather=False, use_distributed_optimizer=True, num_distributed_optimizer_instances=1, check_for_nan_in_grad=True, check_for_large_grads=False, bucket_size=40000000, pad_buckets_for_high_nccl_busbw=False, average_in_collective=False, fp8_param_gather=False, use_custom_fsdp=False, data_parallel_sharding_strategy='no_shard', gradient_reduce_div_fusion=True, suggested_communication_unit_size=None, preserve_fp32_weights=True, keep_fp8_transpose_cache_when_using_custom_fsdp=False)")
            nb = rng.randrange(3, 9)
            self.out(r, t + 16.1, f"INFO:megatron.core.distributed.param_and_grad_buffer:Number of buckets for gradient all-reduce / reduce-scatter: {nb}\nParams for bucket 1 ({40108032 + rng.randrange(0, 999999)} elements, {40108032 + rng.randrange(0, 999999)} padded size):\n\tmodule.decoder.layers.{self.nlayers - 1}.mlp.linear_fc2.weight\n\tmodule.decoder.layers.{self.nlayers - 1}.mlp.linear_fc1.weight\n\tmodule.output_layer.weight\n\tmodule.decoder.final_layernorm.weight")
            self.out(r, t + 16.5, f"INFO:megatron.core.optimizer:Setting up optimizer with config OptimizerConfig(optimizer='adam', lr=0.0003, min_lr=3e-05, decoupled_lr=None, decoupled_min_lr=None, weight_decay=0.1, fp16=False, bf16=True, params_dtype=torch.bfloat16, use_precision_aware_optimizer=False, main_grads_dtype=torch.float32, main_params_dtype=torch.float32, exp_avg_dtype=torch.float32, exp_avg_sq_dtype=torch.float32, loss_scale=None, initial_loss_scale=4294967296, min_loss_scale=1.0, loss_scale_window=1000, hysteresis=2, adam_beta1=0.9, adam_beta2=0.95, adam_eps=1e-08, sgd_momentum=0.9, use_distributed_optimizer=True, overlap_param_gather_with_optimizer_step=False, clip_grad=1.0, log_num_zeros_in_grad=False, barrier_with_L1_time=True, timers=<megatron.core.timers.Timers object at {hexaddr(rng)}>, config_logger_dir='')")
            self.out(r, t + 17, f"> learning rate decay style: cosine\n[after model, optimizer, and learning rate scheduler are built] datetime: {self.f_iso(0, t + 17)} \n> building train, validation, and test datasets ...\n > datasets target sizes (minimum size):\n    train:      {self.total_steps * self.gbs}\n    validation: {self.gbs * 100}\n    test:       {self.gbs * 10}", stream="out")
            self.out(r, t + 30, f"> finished creating GPT datasets ...\n[after dataloaders are built] datetime: {self.f_iso(0, t + 30)} \ndone with setup ...\n(min, max) time across ranks (ms):\n    model-and-optimizer-setup ......................: ({rng.uniform(900, 3000):.2f}, {rng.uniform(3000, 5000):.2f})\n    train/valid/test-data-iterators-setup ..........: ({rng.uniform(2000, 9000):.2f}, {rng.uniform(9000, 15000):.2f})\ntraining ...\n[before the start of training step] datetime: {self.f_iso(0, self.t_train0)} ", stream="out")
        if self.world <= 128 or r % max(1, self.world // 64) == 0:
            self.out(r, self.t_train0 + rng.uniform(3, 9), f"{self.sp}/torch/distributed/c10d_logger.py:81: FutureWarning: `torch.distributed._all_gather_base` is a private function and will be deprecated. Please use `torch.distributed.all_gather_into_tensor` instead.\n  return func(*args, **kwargs)")
        if self.t_train0 > te:
            return
        first = True
        for k in self.metric_steps(te):
            if k == 1:
                continue
            tk = self.step_t(k)
            st = self.step_time * (self.slow_factor if (self.slow_from is not None and k > self.slow_from) else 1.0)
            thr = 6 * self.model[2] * self.seq_len * self.gbs / (st * W) / 1e12 * rng.uniform(0.97, 1.02)
            if r == last:
                self.out(r, tk, f" [{self.f_iso(self.node(r), tk)}] iteration {k:8d}/{self.total_steps:8d} | consumed samples: {k * self.gbs:12d} | elapsed time per iteration (ms): {st * 1000:.1f} | throughput per GPU (TFLOP/s/GPU): {thr:.1f} | learning rate: {min(3e-4, 3e-4 * k / 2000):.6E} | global batch size: {self.gbs:5d} | lm loss: {self.loss_at(k):.6E} | loss scale: 1.0 | grad norm: {rng.uniform(0.15, 1.4):.3f} | number of skipped iterations:   0 | number of nan iterations:   0 |", stream="out")
                if first:
                    a = rng.uniform(20000, 50000)
                    self.out(r, tk + 0.01, f"[Rank {r}] (after {k} iterations) memory (MB) | allocated: {a:.2f} | max allocated: {a * 1.6:.2f} | reserved: {a * 1.75:.2f} | max reserved: {a * 1.75:.2f}", stream="out")
                    first = False
            if r == 0 and self.mg_straggler and k % (self.log_every * 2) == 0:
                self.out(r, tk + 0.02, self.straggler_line(tk, k))
            if r == 0 and self.ckpt_every and k % self.ckpt_every < self.log_every and k > 1:
                self.out(r, tk + 0.5, f"saving checkpoint at iteration {k:7d} to /ckpt/{self.model[0]}-{self.model[1]} in torch_dist format", stream="out")
                self.out(r, tk + rng.uniform(10, 40), f"  successfully saved checkpoint from iteration {k:7d} to /ckpt/{self.model[0]}-{self.model[1]} [ t 1/{tp}, p 1/{pp} ]", stream="out")
        if self.completes_run() and te >= self.t_end - 1 and r == 0:
            self.out(r, self.t_end - 30, f"[after training is done] datetime: {self.f_iso(0, self.t_end - 30)} ", stream="out")
            self.out(r, self.t_end - 25, f"saving checkpoint at iteration {self.total_steps:7d} to /ckpt/{self.model[0]}-{self.model[1]} in torch_dist format", stream="out")
            self.out(r, self.t_end - 5, f"  successfully saved checkpoint from iteration {self.total_steps:7d} to /ckpt/{self.model[0]}-{self.model[1]} [ t 1/{tp}, p 1/{pp} ]", stream="out")
        if self.completes_run() and te >= self.t_end - 1 and r == last:
            self.out(r, self.t_end - 20, "-" * 100 + f"\n validation loss at iteration {self.total_steps} on validation set | lm loss value: {self.loss_at(self.total_steps):.6E} | lm loss PPL: {math.exp(self.loss_at(self.total_steps)):.6E} | \n" + "-" * 100, stream="out")

    def straggler_line(self, tk, k):
        rng = self.rng
        W = self.world
        base = self.step_time * 1000 * rng.uniform(0.97, 1.0)
        slow = self.cause == "straggler" and self.slow_from is not None and k > self.slow_from
        mxr = self.origin[0] if slow else rng.randrange(W)
        mxt = base * (self.slow_factor if slow else rng.uniform(1.01, 1.05))
        mnclk_r = self.origin[0] if (slow and self.strag_variant == "thermal") else rng.randrange(W)
        mnclk = rng.choice([1095, 1155, 1230]) if (slow and self.strag_variant == "thermal") else rng.choice([1920, 1935, 1950, 1965])
        mxtmp_r = self.origin[0] if (slow and self.strag_variant == "thermal") else rng.randrange(W)
        mxtmp = rng.randrange(86, 92) if (slow and self.strag_variant == "thermal") else rng.randrange(58, 71)
        et = 6 * self.model[2] * self.seq_len * self.gbs / (base / 1000 * W) / 1e12
        mnet = et / (self.slow_factor if slow else 1.02)
        s = (f"INFO:megatron.core.utils:[{self.f_iso(0, tk)}] | MnRtt/Rnk: {base:.2f}ms/{rng.randrange(W)} | MxRtt/Rnk: {mxt:.2f}ms/{mxr} | "
             f"MnPwr/Rnk: {rng.randrange(540000, 620000)}W/{rng.randrange(W)} | MxPwr/Rnk: {rng.randrange(660000, 700000)}W/{rng.randrange(W)} | "
             f"MnTmp/Rnk: {rng.randrange(44, 55)}C/{rng.randrange(W)} | MxTmp/Rnk: {mxtmp}C/{mxtmp_r} | MnUtl/Rnk: {rng.randrange(88, 99)}%/{rng.randrange(W)} | "
             f"MxUtl/Rnk: 100%/{rng.randrange(W)} | MnClk/Rnk: {mnclk}MHz/{mnclk_r} | MxClk/Rnk: 1980MHz/{rng.randrange(W)} | "
             f"MnDRtt/Rnk: {rng.uniform(5, 20):.2f}ms/{rng.randrange(W)} | MxDRtt/Rnk: {rng.uniform(25, 140):.2f}ms/{rng.randrange(W)} | "
             f"MnEtpt/Rnk: {mnet:.2f}TF/{mxr} | MxEtpt/Rnk: {et:.2f}TF/{rng.randrange(W)}")
        return s

    def normal_lightning(self, r):
        rng = self.rng
        t = self.t_launch + rng.uniform(4, 9)
        te = self.end_time(r)
        W = self.world
        lr = self.lr(r)
        if r == 0:
            self.out(r, t, f"Using {'bfloat16 Automatic Mixed Precision (AMP)' if rng.random() < 0.5 else 'bf16-true precision'}\nGPU available: True (cuda), used: True\nTPU available: False, using: 0 TPU cores\nHPU available: False, using: 0 HPUs")
        self.out(r, t + 0.5, f"Initializing distributed: GLOBAL_RANK: {r}, MEMBER: {r + 1}/{W}")
        if r == 0:
            self.out(r, t + 3, "-" * 100 + f"\ndistributed_backend=nccl\nAll distributed processes registered. Starting with {W} processes\n" + "-" * 100 + "\n")
        self.out(r, t + 3.2, f"LOCAL_RANK: {lr} - CUDA_VISIBLE_DEVICES: [{','.join(str(i) for i in range(self.gpn))}]")
        self.first_nccl(r, t + 4)
        if r == 0:
            p = self.model[2] / 1e9
            self.out(r, t + 8, f"\n  | Name  | Type        | Params | Mode \n----------------------------------------------\n0 | model | Transformer | {p:.1f} B  | train\n----------------------------------------------\n{p:.1f} B     Trainable params\n0         Non-trainable params\n{p:.1f} B     Total params\n{p * 4000:,.3f}  Total estimated model params size (MB)\n{self.nlayers * 9 + 4}       Modules in train mode\n0         Modules in eval mode")
            self.out(r, t + 9, f"{self.sp}/lightning/pytorch/trainer/connectors/data_connector.py:425: The 'train_dataloader' does not have many workers which may be a bottleneck. Consider increasing the value of the `num_workers` argument` to `num_workers={rng.choice([15, 23, 31])}` in the `DataLoader` to improve performance.")
        if self.ac != "none" and rng.random() < 0.5:
            self.out(r, t + 10, f"{self.sp}/torch/utils/checkpoint.py:87: UserWarning: None of the inputs have requires_grad=True. Gradients will be None\n  warnings.warn(")
        if self.t_train0 > te or r != 0:
            if r == 0 and self.healthy:
                pass
            return
        total = self.total_steps
        ks = self.metric_steps(te)
        buf = []
        for k in ks:
            tk = self.step_t(k)
            el = tk - self.t_train0
            rate = max(k, 1) / max(el, 1e-3)
            buf.append(f"Epoch 0: {int(100 * k / total):3d}%|{bar(k / total)}| {k}/{total} [{hms(el)}<{hms((total - k) / max(rate, 1e-6))}, {rate:5.2f}it/s, v_num={self.idx % 20}, train_loss={self.loss_at(k):.3f}]")
            if len(buf) >= 6:
                self.out(r, tk, "\r" + "\r".join(buf))
                buf = []
        if buf:
            self.out(r, self.step_t(ks[-1]) if ks else te, "\r" + "\r".join(buf))
        if self.completes_run() and te >= self.t_end - 1:
            self.out(r, self.t_end - 3, f"`Trainer.fit` stopped: `max_steps={total}` reached.")

    # ------------------------------------------------------------------ compile noise (all ranks)
    def compile_noise(self, r):
        if not self.compile:
            return
        rng = self.rng
        te = self.end_time(r)
        t = self.t_train0 + rng.uniform(5, 30)
        if t > te:
            return
        sp_model = {"titan": f"{self.workdir}/torchtitan/models/{self.model[0]}/model/model.py",
                    "tune": f"{self.sp}/torchtune/modules/transformer.py",
                    "lightning": f"{self.workdir}/model.py", "megatron": ""}[self.stack]
        pre = self.stack != "tune" or True
        if self.stack == "tune" and rng.random() < 0.6:
            pass
        if rng.random() < 0.55:
            fr = f"{rng.randrange(1, 6)}/0"
            line = rng.choice(["n_tokens = (labels != -100).sum().item()", "if torch.isnan(loss).any().item():",
                               "num_tokens = int(mask.sum().item())"])
            src = {"titan": f"{self.workdir}/torchtitan/train.py", "tune": f"{self.sp}/recipes/full_finetune_distributed.py",
                   "lightning": f"{self.workdir}/train.py", "megatron": ""}[self.stack]
            msg = ("Graph break from `Tensor.item()`, consider setting:\n    torch._dynamo.config.capture_scalar_outputs = True\nor:\n    env TORCHDYNAMO_CAPTURE_SCALAR_OUTPUTS=1\nto include these operations in the captured graph.\n\n"
                   f"Graph break: from user code at:\n  File \"{src}\", line {rng.randrange(200, 700)}, in forward_backward_step\n    {line}\n")
            self.out(r, t, self.tl(r, t, "W", "_dynamo/variables/tensor.py", 1047 + 8 * (self.tminor - 6), msg, fr), "n")
        if "graph_breaks" in self.torch_logs:
            for i in range(rng.randrange(1, 4)):
                fr = f"{rng.randrange(0, 6)}/0"
                reason = rng.choice([
                    ("Dynamic shape operator", "Operator `aten.nonzero.default`'s output shape depends on input Tensor data.", "Enable tracing of dynamic shape operators with `torch._dynamo.config.capture_dynamic_output_shape_ops = True`"),
                    ("Unsupported Tensor.item() call with capture_scalar_outputs=False", "Dynamo does not support tracing `Tensor.item()` with config.capture_scalar_outputs=False.", "Set `torch._dynamo.config.capture_scalar_outputs = True` or `export TORCHDYNAMO_CAPTURE_SCALAR_OUTPUTS=1` to include these operations in the captured graph."),
                    ("Attempted to call function marked as skipped", "Dynamo developers have intentionally marked that the function `current_stream` in file `torch/cuda/__init__.py` should not be traced.", "Avoid calling the function `current_stream`."),
                ])
                ln = rng.randrange(100, 600)
                msg = (f"[__graph_breaks] Graph break in user code at {sp_model}:{ln}\n[__graph_breaks] Graph Break Reason: {reason[0]}\n"
                       f"[__graph_breaks]   Explanation: {reason[1]}\n[__graph_breaks]   Hint: {reason[2]}\n[__graph_breaks] ")
                self.out(r, t + 1 + i, self.tl(r, t + 1 + i, "V", "_dynamo/symbolic_convert.py", 445, msg, fr), "n")
        if "recompiles" in self.torch_logs and rng.random() < 0.6:
            fr = f"{rng.randrange(1, 5)}/1"
            t2 = t + rng.uniform(40, 400)
            if t2 < te:
                gf = rng.choice(['___check_obj_id(G["torch"].is_grad_enabled, 12345)', "tensor 'x' requires_grad mismatch. expected requires_grad=1", "L['self'].training == True"])
                msg = (f"[__recompiles] Recompiling function forward in {sp_model}:{rng.randrange(300, 500)}\n[__recompiles]     triggered by the following guard failure(s):\n"
                       f"[__recompiles]     - {fr.split('/')[0]}/0: {gf}")
                self.out(r, t2, self.tl(r, t2, "V", "_dynamo/guards.py", 3006, msg, fr), "n")
        if self.cudagraphs and rng.random() < 0.7:
            self.out(r, t + 3, self.tl(r, t + 3, "W", "_inductor/cudagraph_trees.py", 2418, "skipping cudagraphs due to mutated inputs (2 instances). Found from : \n   File \"" + sp_model + f"\", line {rng.randrange(100, 400)}, in forward\n    self.cache.update(k, v)\n", "0/0"), "n")
        if self.max_autotune and rng.random() < 0.7:
            req = rng.choice([262144, 245760, 294912])
            msg = (f"Exception out of resource: shared memory, Required: {req}, Hardware limit: {self.gpu['smem']}. Reducing block sizes or `num_stages` may help. for benchmark choice "
                   f"TritonTemplateCaller(/tmp/torchinductor_{self.user}/{rng.choice('abcdefgh')}{rng.choice('abcdefgh')}/c{''.join(rng.choice('abcdefghijklmnopqrstuvwxyz234567') for _ in range(20))}.py, ACC_TYPE='tl.float32', ALLOW_TF32=False, BLOCK_K=128, BLOCK_M=128, BLOCK_N=256, EVEN_K=True, GROUP_M=8, num_stages=5, num_warps=8)")
            self.out(r, t + 5, self.tl(r, t + 5, "E", "_inductor/select_algorithm.py", 1855 + 40 * (self.tminor - 6), msg, "0/0"), "n")
            if r % self.gpn == 0 or rng.random() < 0.2:
                m, k, nn = self.lbs * self.seq_len, self.hidden, self.model[5] // max(1, self.dimsize.get("tp", 1))
                self.out(r, t + 8, f"AUTOTUNE mm({m}x{k}, {k}x{nn})\n  triton_mm_{rng.randrange(10, 90)} {rng.uniform(0.5, 2):.4f} ms 100.0% ACC_TYPE='tl.float32', ALLOW_TF32=False, BLOCK_K=64, BLOCK_M=128, BLOCK_N=256, EVEN_K=True, GROUP_M=8, num_stages=3, num_warps=8\n  mm {rng.uniform(0.5, 2) * 1.04:.4f} ms {rng.uniform(90, 99):.1f}% \nSingleProcess AUTOTUNE benchmarking takes {rng.uniform(1.5, 9):.4f} seconds and {rng.uniform(0, 0.5):.4f} seconds precompiling for {rng.randrange(12, 24)} choices", "n")
        if self.healthy_recompile_noise and rng.random() < 0.7:
            t3 = self.t_train0 + rng.uniform(200, 2000)
            if t3 < te:
                self.out(r, t3, self.recompile_limit_warn(r, t3, "evaluate", "L['batch']['input_ids'] size mismatch at index 1. expected 2048, actual 1536", rng.randrange(5, 9)), "n")

    def recompile_limit_warn(self, r, t, fn, reason, fid):
        name = "recompile_limit" if self.tminor >= 7 else "cache_size_limit"
        src = {"titan": f"{self.workdir}/torchtitan/models/{self.model[0]}/model/model.py",
               "tune": f"{self.sp}/torchtune/modules/transformer.py", "lightning": f"{self.workdir}/model.py",
               "megatron": f"{self.workdir}/megatron/core/transformer/transformer_block.py"}[self.stack]
        if fn == "evaluate":
            src = {"titan": f"{self.workdir}/torchtitan/components/validate.py", "lightning": f"{self.workdir}/train.py"}.get(self.stack, src)
        fr = f"{fid}/8"
        url = "https://pytorch.org/docs/main/compile/programming_model.recompilation.html" if self.tminor >= 9 else "https://pytorch.org/docs/main/torch.compiler_troubleshooting.html"
        msg = (f"torch._dynamo hit config.{name} (8)\n   function: '{fn}' ({src}:{self.rng.randrange(80, 500)})\n   last reason: {fid}/7: {reason}\n"
               f"To log all recompilation reasons, use TORCH_LOGS=\"recompiles\".\nTo diagnose recompilation issues, see {url}")
        return self.tl(r, t, "W", "_dynamo/convert_frame.py", 1550 if self.tminor >= 8 else 1355, msg, fr)

    # ======================================================================
    #   Stories
    # ======================================================================
    def build(self):
        rng = self.rng
        st = self.stack
        self.want_memsnap = st == "titan" and rng.random() < 0.3
        self.want_profiler = st == "titan" and rng.random() < 0.2
        self.ckpt_every = rng.choice([0, 500, 1000, 250]) if st in ("titan", "megatron") else 0
        dpsize = self.world // max(1, self.dimsize.get("tp", 1) * self.dimsize.get("pp", 1) * self.dimsize.get("cp", 1))
        self.gbs = self.lbs * dpsize * rng.choice([1, 2, 4, 8])
        self.mg_straggler = st == "megatron" and rng.random() < 0.5
        self.tune_ds_n = rng.choice([51760, 52002, 15011, 9846])
        self.fr_dir = rng.choice(["/tmp", "/workspace/fr_dumps", f"/scratch/{self.user}/fr", "/shared/nccl_trace"])
        self.healthy_recompile_noise = False
        self.coll = None
        self.coll_group = None
        self.coll2 = None
        self.strag_variant = None
        self.variant = None
        self.pyspy = {}
        self.nvsmi = {}
        self.want_fr_report = False
        self.want_ras = False
        self.want_dmesg = set()
        self.force_diag = set()
        self.force_nvsmi = set()
        self.titan_filter = rng.random() < 0.5
        self.k8s_oom_pod = None
        self.vanished = set()
        self.slurm_state = None
        self.slurm_msgs = []
        self.error_json = {}
        self.no_record = st == "lightning" or (st == "tune" and rng.random() < 0.5)
        self.job_kill_t = None
        self.job_kill_node = None
        self.preempt_node = None
        # step time from a model-FLOPs-utilisation model
        if st == "tune":
            self.seq_len = rng.choice([1024, 2048, 2048, 4096])
        mp = self.dimsize.get("tp", 1) * self.dimsize.get("pp", 1) * self.dimsize.get("cp", 1) * self.dimsize.get("tensor_parallel", 1)
        self.mp = max(1, mp)
        self.mfu0 = rng.uniform(0.24, 0.5) * (0.75 if self.gpu_kind == "B200" else 1.0)
        N = self.model[2]
        if st == "megatron":
            fl = 6 * N * self.gbs * self.seq_len / self.world
        else:
            fl = 6 * N * self.lbs * self.seq_len / self.mp
        self.step_time = min(90.0, max(0.25, fl / (self.gpu["peak"] * self.mfu0)))
        self.fail_step = self.pick_fail_step()
        if self.healthy:
            self.story_healthy()
        else:
            getattr(self, "story_" + self.cause)()
        if self.origin_stuck and self.layout in ("megatron_srun", "lightning_bundle"):
            self.kill_on_bad_exit = True
        if not self.healthy and self.cause != "straggler":
            self.simulate()
        else:
            self.fates = {r: None for r in range(self.world)}
            self.node_state = {n: dict(first=None, others=[], acted=None, exit=None, ext=None, sigkill=[]) for n in range(self.nnodes)}
            self.has_agent = self.stack != "megatron" and self.layout != "lightning_bundle"
        if not self.healthy and self.cause != "straggler":
            ends = [f.t for f in self.fates.values() if f]
            self.t_end = max(ends) + 3 if ends else self.t_fail + 600
        # logging cadence to keep files realistic and small
        if self.healthy or self.cause == "straggler":
            last_k = self.step_of(self.t_end)
        else:
            last_k = self.step_of(min(self.t_end, max((self.t_fail or self.t_end), self.t_train0 + 1)))
        target = {"titan_slurm": rng.randint(25, 60), "torchrun_logdir": max(6, 360 // self.world),
                  "k8s_pytorchjob": max(8, 260 // (self.gpn if st == "titan" else 1)) if st == "titan" else rng.randint(25, 60),
                  "tune_local": rng.randint(40, 120), "megatron_srun": rng.randint(25, 70),
                  "lightning_bundle": rng.randint(40, 120)}[self.layout]
        self.log_every = self.nice(max(1, last_k // max(target, 1)))
        if self.stack == "megatron":
            self.log_every = max(self.log_every, 1)
        self.ensure_evidence()
        self.post_story()

    def ensure_evidence(self):
        rng = self.rng
        c = self.cause
        on = self.origin_node
        if self.healthy or on is None:
            return
        if c == "gpu_hardware":
            if on in self.nvsmi and rng.random() < 0.4:
                self.force_nvsmi.add(on)
            else:
                self.force_diag.add(on)
        if c == "host_oom_kill" and self.layout in ("torchrun_logdir", "tune_local"):
            self.force_diag.add(on)
        if c == "straggler" and self.strag_variant == "thermal":
            self.force_nvsmi.add(on)
        if c == "data_loader_stall" and self.variant == "nfs":
            if rng.random() < 0.5 or not self.pyspy:
                self.force_diag.add(on)
            else:
                self.force_pyspy = True
        if self.layout == "titan_slurm" and self.titan_filter and self.init_kind == "rank" and self.origin and self.lr(self.origin[0]) != 0:
            sensitive = ("illegal_memory_access", "data_loader_stall", "collective_mismatch", "straggler", "crash_signal",
                         "gpu_hardware", "ecc_memory", "nvlink")
            if c in sensitive:
                if c in ("gpu_hardware", "ecc_memory", "nvlink", "illegal_memory_access") and self.kern.get(on) and rng.random() < 0.5:
                    self.force_diag.add(on)
                elif c == "collective_mismatch" and self.fr_dump and self.variant != "debug_detail" and rng.random() < 0.5:
                    self.want_fr_report = True
                else:
                    self.titan_filter = False

    @staticmethod
    def nice(x):
        for v in (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000):
            if v >= x:
                return v
        return 10000

    def pick_fail_step(self):
        rng = self.rng
        return int(rng.choice([rng.uniform(3, 40), rng.uniform(40, 600), rng.uniform(300, 0.9 * self.total_steps),
                               rng.uniform(300, 0.9 * self.total_steps)]))

    def pick_rank(self, prefer_visible=None, avoid0=True):
        rng = self.rng
        if prefer_visible is None:
            prefer_visible = rng.random() < 0.55
        W = self.world
        if self.layout == "titan_slurm":
            if prefer_visible:
                n = rng.randrange(self.nnodes)
                return n * self.gpn
            r = rng.randrange(W)
            if r % self.gpn == 0:
                r += rng.randrange(1, self.gpn)
            return r
        r = rng.randrange(W)
        if avoid0 and r == 0 and W > 2 and rng.random() < 0.7:
            r = rng.randrange(1, W)
        return r

    def set_origin(self, ranks, kind="rank"):
        self.origin = list(ranks)
        self.origin_node = self.node(self.origin[0]) if self.origin else None
        self.init_kind = kind

    def setup_block(self, t, dim=None, r=None, same_seq=True):
        """others start blocking in a collective shortly after t."""
        rng = self.rng
        r = self.origin[0] if r is None else r
        if dim is None:
            cands = [d for d, _ in self.dims if d not in ("pp",)]
            dim = rng.choice(cands) if cands else None
        self.coll = self.coll_for(dim)
        self.coll["seq"] = self.seq_at(dim, t)
        self.coll["enq"] = self.coll["seq"] + rng.choice([0, 1, 2, 2, 3, 6])
        members, _ = self.group_of(r, dim)
        self.coll_group = set(members) if dim else None
        others = [d for d, _ in self.dims if d != dim and d != "pp"]
        d2 = rng.choice(others) if others else dim
        self.coll2 = self.coll_for(d2)
        self.coll2["seq"] = self.seq_at(d2, t)
        self.coll2["enq"] = self.coll2["seq"] + rng.choice([0, 1, 2])
        self.t_block = t + rng.uniform(0.05, 1.5)

    def seq_at(self, dim, t):
        L = self.nlayers
        per = {"dp_shard": 2 * L + 2, "data_parallel": 2 * L + 2, "dp": 6, "tp": 4 * L, "tensor_parallel": 4 * L,
               "cp": 2 * L, "dp_replicate": 3, "pp": 2}.get(dim, 3)
        k = self.step_of(t) if t > self.t_train0 + self.compile_dur else 0
        base = 2 + (per if t >= self.t_train0 else 0)
        return max(2, int(base + k * per + self.rng.randrange(0, per)))

    def step_time_of_fail(self, k=None):
        k = self.fail_step if k is None else k
        return self.step_t(k) + self.rng.uniform(0.1, 0.9) * self.step_time

    def exc_cuda(self, msg):
        cls = "torch.AcceleratorError" if self.tminor >= 8 else "RuntimeError"
        return (f"{cls}: CUDA error: {msg}\nCUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\n"
                "For debugging consider passing CUDA_LAUNCH_BLOCKING=1\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n")

    def cuda_abort(self, r, t, errmsg):
        """watchdog hits a CUDA error while querying events -> abort (-6)."""
        tag = f"[PG ID 0 PG GUID 0(default_pg) Rank {r}]"
        what = (f"{tag} Process group watchdog thread terminated with exception: CUDA error: {errmsg}\n"
                "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\n"
                "For debugging consider passing CUDA_LAUNCH_BLOCKING=1\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n")
        head = self.g(r, t, "E", what.split("\n")[0], f"ProcessGroupNCCL.cpp:{self.ln['wdterm']}")
        return head + "\n" + "\n".join(what.split("\n")[1:]) + "\n" + self.abort_block(r, t, what, "cuda")

    def pci(self, r):
        return f"0000:{BUS[self.lr(r) % 8]}:00"

    def gpu_uuid(self, r):
        rr = random.Random(f"{self.seed}|{self.idx}|uuid|{r}")
        h = "".join(rr.choice("0123456789abcdef") for _ in range(32))
        return f"GPU-{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"

    # --------------------------------------------------------------- healthy
    def story_healthy(self):
        rng = self.rng
        self.total_steps = rng.choice([500, 1000, 2000, 3000])
        self.t_end = self.step_t(self.total_steps) + rng.uniform(20, 90)
        self.healthy_recompile_noise = self.compile and rng.random() < 0.6
        self.notes.append("Training ran to completion; exit code 0 on all ranks.")
        self.notes.append("Any warnings present are benign: torch.compile graph breaks / recompiles (incl. a recompile limit on an eval function), "
                          "Inductor max-autotune 'out of resource: shared memory' benchmark-choice errors, startup c10d socket retries, "
                          "NCCL async-event notices, and TCPStore 'should dump' / destroy_process_group warnings at teardown.")
        self.teardown_noise = True

    # --------------------------------------------------------------- gpu_hardware
    def story_gpu_hardware(self):
        rng = self.rng
        v = rng.choice(["xid79_err", "xid79_hang", "gsp119", "xid62"])
        self.variant = v
        r = self.pick_rank()
        self.set_origin([r])
        n = self.node(r)
        t = self.step_time_of_fail()
        self.t_fail = t
        pci = self.pci(r)
        self.kout(n, t - rng.uniform(0, 1), f"NVRM: GPU at PCI:{pci}: {self.gpu_uuid(r)}")
        self.kout(n, t - rng.uniform(0, 1), f"NVRM: GPU Board Serial Number: 16523{rng.randrange(10000000, 99999999)}")
        self.want_dmesg.add(n)
        if v.startswith("xid79"):
            self.kout(n, t, f"NVRM: Xid (PCI:{pci}): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.")
            self.kout(n, t + 0.001, f"NVRM: GPU {pci}.0: GPU has fallen off the bus.")
            self.kout(n, t + 0.002, "NVRM: A GPU crash dump has been created. If possible, please run\nNVRM: nvidia-bug-report.sh as root to collect this data before\nNVRM: the NVIDIA kernel module is unloaded.")
            self.nvsmi[n] = f"Unable to determine the device handle for GPU{pci.upper()}.0: Unknown Error\n" if rng.random() < 0.5 else \
                f"Unable to determine the device handle for gpu {pci}.0: GPU is lost.  Reboot the system to recover this GPU\n"
            self.notes.append(f"Xid 79 (GPU fallen off the bus) on {self.hosts[n]} GPU {self.lr(r)} ({pci}) -> rank {r}.")
        elif v == "gsp119":
            for i in range(3):
                self.kout(n, t + 6 * i, f"NVRM: Xid (PCI:{pci}): 119, pid={self.pids[r]}, name=python3, Timeout after 6s of waiting for RPC response from GPU{self.lr(r)} GSP! Expected function 76 (GSP_RM_CONTROL) (0x20800a4c 0x4).")
            self.kout(n, t + 18.2, f"NVRM: GPU{self.lr(r)} GSP RPC buffer contains function 76 (GSP_RM_CONTROL) and data 0x0000000020800a4c 0x0000000000000004.")
            self.kout(n, t + 18.3, f"NVRM: Xid (PCI:{pci}): 154, GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)")
            self.nvsmi[n] = "No devices were found\n" if rng.random() < 0.4 else f"Unable to determine the device handle for GPU{pci.upper()}.0: Unknown Error\n"
            self.notes.append(f"Xid 119 GSP RPC timeout on {self.hosts[n]} GPU {self.lr(r)}; the rank hangs inside the driver.")
        else:
            self.kout(n, t, f"NVRM: Xid (PCI:{pci}): 62, pid='<unknown>', name=<unknown>, 2023b230 20238a3a 2023e8b6 2023eac4 2023ec3c 2023ea86 00000000 00000000")
            for i in range(4):
                self.kout(n, t + 1 + i * 4, f"NVRM: Xid (PCI:{pci}): 45, pid='<unknown>', name=<unknown>, Ch 000000{8 + i:02x}")
            self.notes.append(f"Xid 62 (internal micro-controller halt) on {self.hosts[n]} GPU {self.lr(r)}.")
        if v in ("xid79_err", "xid62"):
            err = rng.choice(["unspecified launch failure", "unknown error"]) if v == "xid79_err" else "unspecified launch failure"
            t1 = t + rng.uniform(0.2, 3)
            self.out(r, t1, self.nccl(r, t1, f"Cuda failure {719 if 'launch' in err else 999} '{err}'", "WARN"), "k", "out")
            self.out(r, t1 + 0.1, self.cuda_abort(r, t1 + 0.1, err), "k")
            self.origin_dead[r] = (t1 + 0.6, -6, "origin")
        else:
            self.origin_stuck[r] = t
            self.dstate.add(r)
            t_hb = t + 480 + rng.uniform(0, 25)
            tag = f"[PG ID 0 PG GUID 0(default_pg) Rank {r}]"
            hb = [self.g(r, t_hb, "E", f"{tag} ProcessGroupNCCL's watchdog got stuck for 480 seconds without making progress in monitoring enqueued collectives. This typically indicates a NCCL/CUDA API (e.g., CudaEventDestroy) hang blocking the watchdog, and could be triggered by another thread holding the GIL inside a CUDA api (for example, CudaEventDestroy), or other deadlock-prone behaviors.If you suspect the watchdog is not actually stuck and a longer timeout would help, you can either increase the timeout (TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC) to a larger value or disable the heartbeat monitor (TORCH_NCCL_ENABLE_MONITORING=0).If either of aforementioned helps, feel free to file an issue to PyTorch about the short timeout or false positive abort; otherwise, please attempt to debug the hang. ", f"ProcessGroupNCCL.cpp:{self.ln['hbstuck']}"),
                  self.g(r, t_hb + 0.001, "E", f"{tag} ProcessGroupNCCL preparing to dump debug info. Include stack trace: 1", f"ProcessGroupNCCL.cpp:{self.ln['prep']}")]
            t_term = t_hb + 480
            hb2 = self.g(r, t_term, "F", f"{tag} {tag} Terminating the process after attempting to dump debug info, due to ProcessGroupNCCL watchdog hang.", f"ProcessGroupNCCL.cpp:{self.ln['hbterm']}")
            self.extra_rank_lines[r] = [(t_hb, "\n".join(hb), "k"), (t_term, hb2, "k")]
            self.stuck_selfkill[r] = (t_term + 0.5, -6, "heartbeat")
        self.setup_block(t)
        self.remote_err_p = 0.25

    # --------------------------------------------------------------- ecc
    def story_ecc_memory(self):
        rng = self.rng
        r = self.pick_rank()
        self.set_origin([r])
        n = self.node(r)
        t = self.step_time_of_fail()
        self.t_fail = t
        pci = self.pci(r)
        self.want_dmesg.add(n)
        part = rng.randrange(0, 12)
        self.kout(n, t, f"NVRM: Xid (PCI:{pci}): 48, pid={self.pids[r]}, name=python3, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition {part}, subpartition {rng.randrange(0, 2)}.")
        if rng.random() < 0.6:
            self.kout(n, t + 0.3, f"NVRM: Xid (PCI:{pci}): 63, pid='<unknown>', name=<unknown>, Row Remapper: New row (0x{rng.randrange(0x100000, 0xfffffff):016x}) marked for remapping, reset gpu to activate.")
            pend, fail = "Yes", "No"
        else:
            self.kout(n, t + 0.3, f"NVRM: Xid (PCI:{pci}): 64, pid='<unknown>', name=<unknown>, Row Remapper: Failed to remap row (0x{rng.randrange(0x100000, 0xfffffff):016x}); row remapping failure.")
            pend, fail = "No", "Yes"
        self.nvsmi[n] = (f"==============NVSMI LOG==============\n\nGPU 0000{pci.upper()}.0\n    Product Name                          : {self.gpu['name']}\n"
                         f"    ECC Mode\n        Current                           : Enabled\n        Pending                           : Enabled\n    ECC Errors\n        Volatile\n"
                         f"            SRAM Correctable                  : 0\n            SRAM Uncorrectable Parity         : 0\n            SRAM Uncorrectable SEC-DED        : 0\n"
                         f"            DRAM Correctable                  : {rng.randrange(0, 40)}\n            DRAM Uncorrectable                : {rng.randrange(1, 4)}\n"
                         f"    Remapped Rows\n        Correctable Error                 : 0\n        Uncorrectable Error               : 1\n"
                         f"        Pending                           : {pend}\n        Remapping Failure Occurred        : {fail}\n")
        err = "uncorrectable ECC error encountered"
        t1 = t + rng.uniform(0.05, 1.5)
        if rng.random() < 0.5:
            fr = self.entry_frames() + self.module_frames()[:1] + [(f"{self.sp}/torch/nn/functional.py", 2551, "linear" if False else "scaled_dot_product_attention" if False else "silu", "return torch._C._nn.silu(input)")]
            self.out(r, t1, self.tb(r, fr, self.exc_cuda(err)), "k")
            self.out(r, t1 + 0.2, self.cuda_abort(r, t1 + 0.2, err), "k")
            self.origin_dead[r] = (t1 + 0.8, -6 if rng.random() < 0.6 else 1, "origin")
        else:
            self.out(r, t1, self.cuda_abort(r, t1, err), "k")
            self.origin_dead[r] = (t1 + 0.5, -6, "origin")
        self.notes.append(f"Uncorrectable DRAM ECC error (Xid 48 + row remapping) on {self.hosts[n]} GPU {self.lr(r)} -> rank {r} dies with 'uncorrectable ECC error encountered'.")
        self.setup_block(t1)
        self.remote_err_p = 0.3

    # --------------------------------------------------------------- nvlink
    def story_nvlink(self):
        rng = self.rng
        r = self.pick_rank()
        self.set_origin([r])
        n = self.node(r)
        t = self.step_time_of_fail()
        self.t_fail = t
        pci = self.pci(r)
        self.want_dmesg.add(n)
        link = rng.randrange(0, 18)
        self.kout(n, t, f"NVRM: Xid (PCI:{pci}): 74, pid={self.pids[r]}, name=python3, NVLink: fatal error detected on link {link}(0x0, 0x0, {rng.choice(['0x10000', '0x20000', '0x8000'])}, 0x0, 0x0, 0x0, 0x0)")
        if rng.random() < 0.5:
            sw = rng.randrange(0, 4)
            self.kout(n, t + 0.01, f"nvidia-nvswitch{sw}: SXid (PCI:0000:{rng.choice(['05', '06', '07', '08'])}:00.0): 24007, Fatal, Link {rng.randrange(0, 64)} sourcetrack timeout error (First)")
            self.kout(n, t + 0.02, f"nvidia-nvswitch{sw}: SXid (PCI:0000:{rng.choice(['05', '06', '07', '08'])}:00.0): 24007, Severity 1 Engine instance {rng.randrange(0, 64)} Sub-engine instance 00")
        err = "an uncorrectable NVLink error was detected during the execution"
        t1 = t + rng.uniform(0.1, 2)
        tag = f"[PG ID 0 PG GUID 0(default_pg) Rank {r}]"
        what = (f"NCCL error: unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version {self.nccl_ver}\n"
                f"ncclUnhandledCudaError: Call to CUDA function failed.\nLast error:\nCuda failure '{err}'")
        L = [self.nccl(r, t1, f"Cuda failure '{err}'", "WARN"),
             self.nccl(r, t1, f"transport/p2p.cc:{rng.choice([275, 316])} -> 1"),
             self.g(r, t1 + 0.01, "E", f"{tag} Process group watchdog thread terminated with exception: {what.splitlines()[0]}", f"ProcessGroupNCCL.cpp:{self.ln['wdterm']}")]
        L += what.split("\n")[1:]
        L.append(self.abort_block(r, t1, f"{tag} Process group watchdog thread terminated with exception: " + what, "ncclerr"))
        self.out(r, t1, "\n".join(L), "k")
        self.origin_dead[r] = (t1 + 0.6, -6, "origin")
        # an NVLink peer on the same node also sees it shortly after
        if self.gpn > 1 and rng.random() < 0.6:
            p = self.node(r) * self.gpn + (self.lr(r) + rng.randrange(1, self.gpn)) % self.gpn
            t2 = t1 + rng.uniform(0.3, 3)
            tagp = f"[PG ID 0 PG GUID 0(default_pg) Rank {p}]"
            Lp = [self.nccl(p, t2, f"Cuda failure '{err}'", "WARN"),
                  self.g(p, t2 + 0.01, "E", f"{tagp} Process group watchdog thread terminated with exception: {what.splitlines()[0]}", f"ProcessGroupNCCL.cpp:{self.ln['wdterm']}")]
            Lp += what.split("\n")[1:]
            Lp.append(self.abort_block(p, t2, f"{tagp} Process group watchdog thread terminated with exception: " + what, "ncclerr"))
            self.out(p, t2, "\n".join(Lp), "c")
            self.origin_dead[p] = (t2 + 0.5, -6, "peer_nvlink")
        self.notes.append(f"Xid 74 NVLink fatal error on {self.hosts[n]} GPU {self.lr(r)} (link {link}); rank {r} fails first with an uncorrectable NVLink error, a local NVLink peer may follow.")
        self.setup_block(t1)
        self.remote_err_p = 0.3

    # --------------------------------------------------------------- network
    def story_network(self):
        rng = self.rng
        n = rng.randrange(self.nnodes)
        if self.layout == "titan_slurm" and rng.random() < 0.5:
            n = rng.randrange(1, self.nnodes)
        ranks = list(range(n * self.gpn, (n + 1) * self.gpn))
        self.set_origin(ranks, "node")
        t = self.step_time_of_fail()
        self.t_fail = t
        self.want_dmesg.add(n)
        bus = rng.choice(["1a", "3c", "4d", "9c", "bc", "cc"])
        if self.transport == "Socket":
            self.transport = "IB"
        if self.transport in ("IB", "RoCE"):
            ifn = self.ib_if if self.transport == "IB" else rng.choice(["ens1f0np0", "enp26s0np0"])
            self.kout(n, t - rng.uniform(1, 8), f"mlx5_core 0000:{bus}:00.0 {ifn}: Link down")
            if rng.random() < 0.6:
                self.kout(n, t + rng.uniform(30, 300), f"mlx5_core 0000:{bus}:00.0 {ifn}: Link up")
            if rng.random() < 0.5:
                self.kout(n, t - rng.uniform(8, 20), f"mlx5_core 0000:{bus}:00.0: mlx5_port_module_event:{rng.choice([1140, 1196])}:(pid 0): Port module event[error]: module {rng.randrange(0, 8)}, Cable error, High Temperature")
        else:
            self.kout(n, t - 2, "ena 0000:00:06.0 eth1: Reset reason: ENA_REGS_RESET_KEEP_ALIVE_TO\nena 0000:00:06.0: ENA device version: 0.10")
        dead = ranks[:]
        neigh = [m for m in range(self.nnodes) if m != n]
        rng.shuffle(neigh)
        for m in neigh[:rng.randint(1, min(3, len(neigh)))]:
            dead += rng.sample(range(m * self.gpn, (m + 1) * self.gpn), rng.randint(1, self.gpn))
        for r in dead:
            self.origin_dead[r] = (t + rng.uniform(2, 25), -6, "net_err")
        self.remote_err_p = 0.2
        self.setup_block(t, r=ranks[0])
        self.notes.append(f"{self.transport} link on {self.hosts[n]} ({self.ips[n]}) went down; NCCL completion errors on that node and on peers that talk to {self.ips[n]} (status=12 retry-exceeded / connection resets).")

    # --------------------------------------------------------------- cuda_oom
    def story_cuda_oom(self):
        rng = self.rng
        r = self.pick_rank()
        self.set_origin([r])
        t = self.step_time_of_fail()
        self.t_fail = t
        lr = self.lr(r)
        cap = self.gpu["cap"]
        used = cap - rng.uniform(0.05, 0.6)
        alloc = used - rng.uniform(0.8, 4)
        req = rng.choice([0.25, 0.5, 1.0, 1.75, 2.0, 3.5, 448 / 1024, 224 / 1024])
        free_mib = (cap - used) * 1024
        reqs = f"{req:.2f} GiB" if req >= 1 else f"{req * 1024:.2f} MiB"
        resv = (used - alloc) * 1024
        exc = (f"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate {reqs}. GPU {lr} has a total capacity of {cap:.2f} GiB of which {free_mib:.2f} MiB is free. "
               f"Including non-PyTorch memory, this process has {used:.2f} GiB memory in use. Of the allocated memory {alloc:.2f} GiB is allocated by PyTorch, and "
               f"{resv:.2f} MiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  "
               "See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)")
        v = rng.choice(["compiled_fwd", "fsdp_ag", "compiled_bwd"]) if self.stack != "megatron" else "te"
        self.variant = v
        sp = self.sp
        if v == "compiled_fwd" and self.compile:
            fr = self.entry_frames() + self.compiled_frames(f"buf{rng.randrange(3, 40)} = empty_strided_cuda(({self.lbs * self.seq_len}, {self.model[5] // max(1, self.dimsize.get('tp', 1))}), ({self.model[5] // max(1, self.dimsize.get('tp', 1))}, 1), torch.bfloat16)")
        elif v == "compiled_bwd" and self.compile:
            fr = self.entry_frames()[:-1] + [
                (f"{sp}/torch/_tensor.py", 648, "backward", "torch.autograd.backward("),
                (f"{sp}/torch/autograd/__init__.py", 353, "backward", "_engine_run_backward("),
                (f"{sp}/torch/autograd/graph.py", 824, "_engine_run_backward", "return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass"),
                (f"{sp}/torch/autograd/function.py", 307, "apply", "return user_fn(self, *args)"),
                (f"{sp}/torch/_functorch/_aot_autograd/runtime_wrappers.py", 2111, "backward", "return impl_fn()"),
                (f"{sp}/torch/_functorch/_aot_autograd/runtime_wrappers.py", 2097, "impl_fn", "out = CompiledFunction._backward_impl(ctx, all_args)"),
                (f"{sp}/torch/_functorch/_aot_autograd/runtime_wrappers.py", 2217, "_backward_impl", "out = call_func_at_runtime_with_args("),
                (f"{sp}/torch/_inductor/output_code.py", 460, "__call__", "return self.current_callable(inputs)"),
                (f"/tmp/torchinductor_{self.user}/{rng.choice('abcdef')}{rng.choice('xyz')}/c{''.join(rng.choice('abcdefghijklmnopqrstuvwxyz234567') for _ in range(40))}.py", rng.randrange(900, 6000), "call",
                 f"buf{rng.randrange(20, 90)} = empty_strided_cuda(({self.lbs * self.seq_len}, {self.hidden}), ({self.hidden}, 1), torch.float32)")]
        elif v == "te":
            fr = self.entry_frames() + self.module_frames() + [
                (f"{self.workdir}/megatron/core/transformer/transformer_block.py", 549, "forward", "hidden_states, context = layer("),
                (f"{self.workdir}/megatron/core/transformer/transformer_layer.py", 502, "forward", "mlp_output_with_bias = self.mlp(pre_mlp_layernorm_output)"),
                (f"{self.workdir}/megatron/core/transformer/mlp.py", 142, "forward", "intermediate_parallel, bias_parallel = self.linear_fc1(hidden_states)"),
                (f"{self.sp}/transformer_engine/pytorch/module/layernorm_linear.py", 1504, "forward", "out = fwd_fn(*args)"),
                (f"{self.sp}/transformer_engine/pytorch/module/layernorm_linear.py", 285, "forward", "gemm_out, *_, reduce_scatter_out = general_gemm(")]
        else:
            fr = self.entry_frames() + self.module_frames() + [
                (f"{sp}/torch/distributed/fsdp/_fully_shard/_fsdp_state.py", 234, "_pre_forward", "args, kwargs = self._fsdp_param_group.pre_forward(module, args, kwargs)"),
                (f"{sp}/torch/distributed/fsdp/_fully_shard/_fsdp_param_group.py", 357, "pre_forward", "self.wait_for_unshard()"),
                (f"{sp}/torch/distributed/fsdp/_fully_shard/_fsdp_param_group.py", 322, "wait_for_unshard", "foreach_all_gather_copy_out("),
                (f"{sp}/torch/utils/_contextlib.py", 116, "decorate_context", "return func(*args, **kwargs)"),
                (f"{sp}/torch/distributed/fsdp/_fully_shard/_fsdp_collectives.py", 351, "foreach_all_gather_copy_out", "fsdp_param.init_all_gather_outputs("),
                (f"{sp}/torch/distributed/fsdp/_fully_shard/_fsdp_param.py", 472, "init_all_gather_outputs", "torch.empty(torch.Size([numel * world_size]), dtype=dtype, device=device)")]
        t1 = t
        if self.stack == "titan" and self.want_memsnap:
            self.out(r, t1 - 0.6, f"[titan] {self.f_titan(self.node(r), t1 - 0.6)} - root - INFO - Dumping memory snapshot at step {self.fail_step}", "k")
            self.out(r, t1 - 0.1, f"[titan] {self.f_titan(self.node(r), t1 - 0.1)} - root - INFO - Finished dumping memory snapshot in {rng.uniform(0.8, 4):.2f} seconds", "k")
        elif self.stack == "lightning" and rng.random() < 0.4:
            self.out(r, t1 - 0.3, f"Saved CUDA memory snapshot to /scratch/{self.user}/snapshots/rank{r}_oom_step{self.fail_step}.pickle (torch.cuda.memory._dump_snapshot)", "k", "out")
        self.out(r, t1, self.tb(r, fr, exc), "k")
        self.error_json[r] = (exc, fr)
        self.origin_dead[r] = (t1 + rng.uniform(0.8, 3), 1, "origin")
        why = rng.choice(["a longer-than-average packed sequence", "MoE routing imbalance sending most tokens to its local experts",
                          "its data shard containing max-length samples", "activation-checkpointing being disabled for the last blocks"])
        self.notes.append(f"CUDA OOM on rank {r} only ({why}) inside {'a torch.compile region' if 'compiled' in v and self.compile else ('FSDP2 all-gather' if v == 'fsdp_ag' else 'a Transformer Engine layer' if v == 'te' else 'forward')}; others then block.")
        self.setup_block(t1)
        self.remote_err_p = 0.3

    # --------------------------------------------------------------- illegal memory access
    def story_illegal_memory_access(self):
        rng = self.rng
        r = self.pick_rank()
        self.set_origin([r])
        n = self.node(r)
        t = self.step_time_of_fail()
        self.t_fail = t
        v = rng.choice(["inductor_ima", "device_assert", "inductor_assert", "cudagraph_ima"])
        if not self.compile and v != "device_assert":
            v = "device_assert"
        self.variant = v
        pci = self.pci(r)
        if v in ("inductor_ima", "cudagraph_ima"):
            kname = rng.choice(["triton_red_fused__to_copy_add_mean_mul_pow_rsqrt_7", "triton_per_fused__log_softmax_gather_3",
                                "triton_poi_fused_index_put_12", "triton_tem_fused_mm_4"])
            fr = self.entry_frames() + self.compiled_frames(f"{kname}.run(buf{rng.randrange(2, 30)}, primals_{rng.randrange(2, 9)}, buf{rng.randrange(30, 60)}, {self.lbs * self.seq_len}, {self.hidden}, stream=stream{self.lr(r)})")
            if v == "cudagraph_ima":
                fr = self.entry_frames() + [(f"{self.sp}/torch/_inductor/cudagraph_trees.py", 1185, "run", "out = self._run(new_inputs, function_id)"),
                                            (f"{self.sp}/torch/_inductor/cudagraph_trees.py", 1320, "_run", "return self.run_eager(new_inputs, function_id)" if False else "self.graph.replay()"),
                                            (f"{self.sp}/torch/cuda/graphs.py", 86, "replay", "super().replay()")]
            exc = self.exc_cuda("an illegal memory access was encountered")
            if rng.random() < 0.3:
                exc = "RuntimeError: Triton Error [CUDA]: an illegal memory access was encountered"
            self.kout(n, t + 0.01, f"NVRM: Xid (PCI:{pci}): 13, pid={self.pids[r]}, name=python3, Graphics SM Warp Exception on (GPC {rng.randrange(0, 8)}, TPC {rng.randrange(0, 9)}, SM {rng.randrange(0, 2)}): Out Of Range Address")
            self.kout(n, t + 0.011, f"NVRM: Xid (PCI:{pci}): 13, pid={self.pids[r]}, name=python3, Graphics Exception: ESR 0x{rng.randrange(0x500000, 0x5fffff):x}=0x{rng.randrange(0x100000, 0xffffff):x} 0x0 0x0 0x0")
            err = "an illegal memory access was encountered"
            self.notes.append(f"Illegal memory access in an Inductor-generated Triton kernel ({kname}{', replayed inside a CUDA graph' if v == 'cudagraph_ima' else ''}) on rank {r}.")
        else:
            if v == "inductor_assert" and self.model[0] == "vit":
                v = "device_assert"
                self.variant = v
            if v == "inductor_assert":
                path = f"/tmp/torchinductor_{self.user}/{rng.choice('abcdef')}{rng.choice('xyz')}/c{''.join(rng.choice('abcdefghijklmnopqrstuvwxyz234567') for _ in range(40))}.py"
                V = self.model[6]
                asserts = [f"{path}:{rng.randrange(20, 40)}: triton_poi_fused_embedding_0: block: [{rng.randrange(0, 4096)},0,0], thread: [{rng.randrange(0, 128)},0,0] Assertion `index out of bounds: 0 <= tmp{rng.randrange(2, 6)} < {V}` failed." for _ in range(rng.randint(6, 24))]
                kname = "triton_poi_fused_embedding_0"
                fr = self.entry_frames() + self.compiled_frames(f"{kname}.run(primals_1, primals_2, buf0, {self.lbs * self.seq_len * self.hidden}, stream=stream{self.lr(r)})")
                self.notes.append(f"Inductor bounds-check device assert (token id >= vocab size {V}) in compiled embedding kernel on rank {r} (bad sample in its shard).")
            else:
                if rng.random() < 0.5:
                    asserts = [f"/pytorch/aten/src/ATen/native/cuda/Indexing.cu:1369: indexSelectLargeIndex: block: [{rng.randrange(0, 2048)},0,0], thread: [{rng.randrange(0, 128)},0,0] Assertion `srcIndex < srcSelectDimSize` failed." for _ in range(rng.randint(6, 30))]
                    what = "embedding lookup with out-of-range token id"
                else:
                    asserts = [f"/pytorch/aten/src/ATen/native/cuda/Loss.cu:242: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [{rng.randrange(0, 32)},0,0] Assertion `t >= 0 && t < n_classes` failed." for _ in range(rng.randint(3, 12))]
                    what = "cross-entropy target outside [0, n_classes)"
                fr = self.entry_frames() + self.module_frames()
                self.notes.append(f"CUDA device-side assert on rank {r}: {what}.")
            self.out(r, t, "\n".join(asserts), "k")
            exc = self.exc_cuda("device-side assert triggered")
            err = "device-side assert triggered"
            self.kout(n, t + 0.02, f"NVRM: Xid (PCI:{pci}): 43, pid={self.pids[r]}, name=python3, Ch 000000{rng.randrange(8, 0x40):02x}")
        self.want_dmesg.add(n) if rng.random() < 0.6 else None
        t1 = t + rng.uniform(0.02, 0.6)
        order = rng.random()
        if order < 0.45:
            self.out(r, t1, self.tb(r, fr, exc), "k")
            self.error_json[r] = (exc.split("\n")[0], fr)
            if rng.random() < 0.6:
                self.out(r, t1 + 0.05, self.cuda_abort(r, t1 + 0.05, err), "k")
                self.origin_dead[r] = (t1 + 0.5, -6, "origin")
            else:
                self.origin_dead[r] = (t1 + 1.2, 1, "origin")
        else:
            self.out(r, t1, self.cuda_abort(r, t1, err), "k")
            self.origin_dead[r] = (t1 + 0.4, -6, "origin")
        self.setup_block(t1)
        self.remote_err_p = 0.3

    # --------------------------------------------------------------- python_exception
    def story_python_exception(self):
        rng = self.rng
        st = self.stack
        opts = ["data_keyerror", "dcp_load", "mesh_assert"]
        if self.compile:
            opts += ["recompile_fullgraph", "inductor_smem"]
        if st in ("titan", "lightning") and any(d in ("tp", "tensor_parallel") for d, _ in self.dims):
            opts.append("dtensor_mixed")
        if self.nnodes < 2:
            opts = [o for o in opts if o not in ("mesh_assert", "inductor_smem")] or ["data_keyerror"]
        v = rng.choice(opts)
        self.variant = v
        sp = self.sp
        if v in ("mesh_assert", "inductor_smem"):
            n = rng.randrange(1, self.nnodes)
            ranks = list(range(n * self.gpn, (n + 1) * self.gpn))
            self.set_origin(ranks, "node")
            if v == "mesh_assert":
                t = self.t_launch + rng.uniform(14, 30)
                self.t_fail = t
                self.fail_step = 0
                wtp = self.dimsize.get("tp", self.dimsize.get("tensor_parallel", 1))
                bad_tp = rng.choice([x for x in (2, 4, 8, 16) if x != wtp])
                W = self.world
                for i, r in enumerate(ranks):
                    tt = t + i * 0.01 + rng.uniform(0, 0.3)
                    if st == "titan":
                        dps = self.dimsize.get("dp_shard", 1)
                        exc = f"AssertionError: Invalid parallel dims: dp_replicate({self.dimsize.get('dp_replicate', 1)}) * dp_shard({dps}) * cp({self.dimsize.get('cp', 1)}) * tp({bad_tp}) * pp({self.dimsize.get('pp', 1)}) != WORLD_SIZE({W})"
                        fr = [(f"{self.workdir}/torchtitan/train.py", 699, "<module>", "trainer = Trainer(config)"),
                              (f"{sp}/torch/distributed/elastic/multiprocessing/errors/__init__.py", 357, "wrapper", "return f(*args, **kwargs)"),
                              (f"{self.workdir}/torchtitan/train.py", 94, "__init__", "self.parallel_dims = parallel_dims = ParallelDims("),
                              ("<string>", 12, "__init__", ""),
                              (f"{self.workdir}/torchtitan/distributed/parallel_dims.py", 35, "__post_init__", "self._validate()"),
                              (f"{self.workdir}/torchtitan/distributed/parallel_dims.py", 57, "_validate", "assert dp_replicate * dp_shard * cp * tp * pp == self.world_size, (")]
                    elif st == "lightning":
                        exc = f"RuntimeError: The sizes `data_parallel_size={W // bad_tp // 2}` and `tensor_parallel_size={bad_tp}` multiplied should equal the world size ({W})."
                        fr = self.entry_frames()[:5] + [(f"{sp}/lightning/pytorch/trainer/trainer.py", 973, "_run", "self.strategy.setup_environment()"),
                                                        (f"{sp}/lightning/pytorch/strategies/model_parallel.py", 184, "setup_environment", "self._device_mesh = _setup_device_mesh(")]
                    elif st == "tune":
                        exc = f"AssertionError: Invalid parallel dims: dp_replicate(1) * dp_shard({W // bad_tp}) * tp({bad_tp}) * cp(1) != WORLD_SIZE({W})"
                        fr = self.entry_frames()[:3] + [(f"{sp}/recipes/full_finetune_distributed.py", 152, "__init__", "self.parallel_dims = training.ParallelDims("),
                                                       (f"{sp}/torchtune/training/_distributed.py", 93, "_validate", "assert dp_replicate * dp_shard * tp * cp == self.world_size, (")]
                    else:
                        exc = f"RuntimeError: world_size ({W}) is not divisible by tensor_model_parallel_size ({bad_tp}) x pipeline_model_parallel_size ({self.dimsize['pp'] + 1}) x context_parallel_size ({self.dimsize['cp']})"
                        fr = [(f"{self.workdir}/pretrain_gpt.py", 318, "<module>", "pretrain("),
                              (f"{self.workdir}/megatron/training/training.py", 310, "pretrain", "initialize_megatron("),
                              (f"{self.workdir}/megatron/training/initialize.py", 90, "initialize_megatron", "finish_mpu_init()"),
                              (f"{self.workdir}/megatron/training/initialize.py", 345, "_initialize_distributed", "mpu.initialize_model_parallel("),
                              (f"{self.workdir}/megatron/core/parallel_state.py", 614, "initialize_model_parallel", "raise RuntimeError(")]
                    if st == "titan":
                        self.out(r, tt - 0.2, f"[titan] {self.f_titan(n, tt - 0.2)} - root - INFO - Starting job: {self.model[0].capitalize()} {self.model[1]} training", "n")
                    self.out(r, tt, self.tb(r, fr, exc), "k")
                    self.error_json[r] = (exc, fr)
                    self.origin_dead[r] = (tt + rng.uniform(0.5, 2), 1, "origin")
                self.notes.append(f"Ranks on {self.hosts[n]} picked up a different TP size ({bad_tp}) from a stale node-local env/config; the ParallelDims / DeviceMesh validation raised on those ranks only -> python_exception (not collective_mismatch: no mismatched collective was ever issued).")
                self.setup_block(t, dim=None, r=0)
                self.t_block = t + rng.uniform(1, 6)
                return
            # inductor_smem: one node got A100s in an H100 pool
            t = self.t_train0 + rng.uniform(20, 120)
            self.t_fail = t
            self.fail_step = 1
            self.hetero_node = n
            req = rng.choice([196608, 180224, 229376])
            lim = GPUS["A100"]["smem"]
            if self.tminor >= 7:
                exc = (f"torch._inductor.exc.InductorError: OutOfResources: out of resource: shared memory, Required: {req}, Hardware limit: {lim}. Reducing block sizes or `num_stages` may help.\n\n"
                       "Set TORCHDYNAMO_VERBOSE=1 for the internal stack trace (please do this especially if you're reporting a bug to PyTorch). For even more developer context, set TORCH_LOGS=\"+dynamo\"\n")
            else:
                exc = (f"torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:\nOutOfResources: out of resource: shared memory, Required: {req}, Hardware limit: {lim}. Reducing block sizes or `num_stages` may help.\n\n"
                       "Set TORCH_LOGS=\"+dynamo\" and TORCHDYNAMO_VERBOSE=1 for more information\n\n\nYou can suppress this exception and fall back to eager by setting:\n    import torch._dynamo\n    torch._dynamo.config.suppress_errors = True\n")
            fr = self.entry_frames() + self.module_frames() + [
                (f"{sp}/torch/_dynamo/eval_frame.py", 699, "_fn", "raise e.with_traceback(None) from e.__cause__  # User compiler error" if self.tminor >= 7 else "return fn(*args, **kwargs)")]
            for r in ranks:
                tt = t + rng.uniform(0, 6)
                self.out(r, tt, self.tb(r, fr, exc), "k")
                self.error_json[r] = (exc.split("\n")[0], fr)
                self.origin_dead[r] = (tt + rng.uniform(0.5, 2), 1, "origin")
            self.notes.append(f"{self.hosts[n]} is an A100 node scheduled into an {self.gpu_kind} pool; Inductor-generated Triton kernels tuned for the larger shared memory fail to compile there -> InductorError on that node's ranks (python_exception).")
            self.setup_block(t, r=0)
            return
        if v == "dtensor_mixed":
            self.set_origin([0], "none")
            t = self.t_train0 + rng.uniform(15, 90)
            self.t_fail = t
            self.fail_step = 1
            exc = "RuntimeError: aten.mm.default: got mixed torch.Tensor and DTensor, need to convert all torch.Tensor to DTensor before calling distributed operators!"
            fr = self.entry_frames() + self.module_frames() + [
                (f"{self.workdir}/torchtitan/models/{self.model[0]}/model/model.py" if st == "titan" else f"{self.workdir}/model.py", rng.randrange(200, 500), "forward", "h = h + self.rope_scale * self.extra_proj(x)"),
                (f"{sp}/torch/_compile.py", 51, "inner", "return disable_fn(*args, **kwargs)"),
                (f"{sp}/torch/distributed/tensor/_api.py", 346, "__torch_dispatch__", "return DTensor._op_dispatcher.dispatch("),
                (f"{sp}/torch/distributed/tensor/_dispatch.py", 167, "dispatch", "op_info = self.unwrap_to_op_info(op_call, args, kwargs)"),
                (f"{sp}/torch/distributed/tensor/_dispatch.py", 400, "unwrap_to_op_info", "raise RuntimeError(")]
            for r in range(self.world):
                tt = t + rng.uniform(0, 2.5)
                self.out(r, tt, self.tb(r, fr, exc), "k")
                self.error_json[r] = (exc, fr)
                self.origin_dead[r] = (tt + rng.uniform(0.3, 1.5), 1, "origin")
            self.notes.append("A newly added projection (plain nn.Linear, not covered by the TP plan) mixes a plain Tensor with DTensor activations: every rank raises the same DTensor error at step 1 (python_exception, no single initiator).")
            self.t_block = t + 30
            self.setup_block(t, r=0)
            self.t_block = None
            return
        r = self.pick_rank()
        self.set_origin([r])
        t = self.step_time_of_fail()
        self.t_fail = t
        if v == "data_keyerror":
            col = rng.choice(["output", "input_ids", "text", "messages"])
            wid = rng.randrange(0, 8)
            ds = {"tune": (f"{sp}/torchtune/datasets/_sft.py", 117, "__getitem__", "return self._prepare_sample(sample)"),
                  "titan": (f"{self.workdir}/torchtitan/datasets/hf_datasets.py", 128, "__iter__", "sample_text = self._text_processor(sample)"),
                  "lightning": (f"{self.workdir}/data.py", 77, "__getitem__", "ids = self.tok(row[\"text\"])"),
                  "megatron": (f"{self.workdir}/megatron/core/datasets/gpt_dataset.py", 224, "__getitem__", "text, _ = self._query_document_sample_shuffle_indices(idx)")}[st]
            orig = (f"Original Traceback (most recent call last):\n  File \"{sp}/torch/utils/data/_utils/worker.py\", line 349, in _worker_loop\n    data = fetcher.fetch(index)  # type: ignore[possibly-undefined]\n"
                    f"  File \"{sp}/torch/utils/data/_utils/fetch.py\", line 52, in fetch\n    data = [self.dataset[idx] for idx in possibly_batched_index]\n"
                    f"  File \"{ds[0]}\", line {ds[1]}, in {ds[2]}\n    {ds[3]}\n"
                    f"  File \"{sp}/torchtune/data/_messages.py\" if False else \"{ds[0]}\", line {ds[1] + 9}, in _prepare_sample\n    content=sample[self._column_map[\"{col}\"]],\nKeyError: '{col}'\n").replace(f"\"{sp}/torchtune/data/_messages.py\" if False else \"", "")
            exc = f"KeyError: Caught KeyError in DataLoader worker process {wid}.\n" + orig
            fr = self.entry_frames()[:3] + [
                (f"{sp}/torch/utils/data/dataloader.py", 733, "__next__", "data = self._next_data()"),
                (f"{sp}/torch/utils/data/dataloader.py", 1515, "_next_data", "return self._process_data(data, worker_id)"),
                (f"{sp}/torch/utils/data/dataloader.py", 1550, "_process_data", "data.reraise()"),
                (f"{sp}/torch/_utils.py", 750, "reraise", "raise exception")]
            self.notes.append(f"Malformed sample (missing '{col}') in rank {r}'s data shard -> KeyError in a DataLoader worker re-raised in rank {r}.")
        elif v == "dcp_load":
            self.fail_step = 0
            t = self.t_train0 - rng.uniform(5, 30)
            self.t_fail = t
            step = rng.choice([2000, 4000, 6500, 12000])
            exc = (f"torch.distributed.checkpoint.api.CheckpointException: CheckpointException ranks:dict_keys([{r}])\nTraceback: (RANK {r})\n"
                   f"Traceback (most recent call last):\n  File \"{sp}/torch/distributed/checkpoint/utils.py\", line 193, in reduce_scatter\n    local_data = map_fun()\n"
                   f"  File \"{sp}/torch/distributed/checkpoint/state_dict_loader.py\", line 241, in read_data\n    all_reads = storage_reader.read_data(final_local_plan, planner)\n"
                   f"  File \"{sp}/torch/distributed/checkpoint/filesystem.py\", line 705, in read_data\n    with self.fs.create_stream(new_path, \"rb\") as stream:\n"
                   f"  File \"/usr/lib/python{self.pyver}/contextlib.py\", line 137, in __enter__\n    return next(self.gen)\n"
                   f"  File \"{sp}/torch/distributed/checkpoint/filesystem.py\", line 476, in create_stream\n    with path.open(mode) as stream:\n"
                   f"FileNotFoundError: [Errno 2] No such file or directory: '/checkpoints/{self.model[0]}/step-{step}/__{r}_0.distcp'")
            fr = self.entry_frames()[:2] + [
                (f"{self.workdir}/torchtitan/components/checkpoint.py" if st == "titan" else f"{self.workdir}/train.py", 571, "load", "dcp.load(states, checkpoint_id=checkpoint_id)"),
                (f"{sp}/torch/distributed/checkpoint/logger.py", 87, "wrapper", "result = func(*args, **kwargs)"),
                (f"{sp}/torch/distributed/checkpoint/state_dict_loader.py", 176, "load", "_load_state_dict("),
                (f"{sp}/torch/distributed/checkpoint/state_dict_loader.py", 246, "_load_state_dict", "_ = distW.all_gather(\"read\", read_data)"),
                (f"{sp}/torch/distributed/checkpoint/utils.py", 258, "all_gather", "raise CheckpointException(step, node_failures)")]
            for r2 in range(self.world):
                if r2 == r:
                    continue
                tt = t + rng.uniform(0.1, 2)
                self.out(r2, tt, self.tb(r2, fr, exc), "k")
                self.error_json[r2] = (exc.split("\n")[0], fr)
                self.origin_dead[r2] = (tt + rng.uniform(0.3, 1.5), 1, "dcp_peer")
            self.notes.append(f"Resume from DCP checkpoint step-{step}: shard file for rank {r} missing; DCP gathers the failure and every rank raises CheckpointException naming rank {r}.")
        else:  # recompile_fullgraph
            fid = rng.randrange(1, 5)
            for i in range(1, 8):
                tt = t - (8 - i) * self.step_time
                self.out(r, tt, self.tl(r, tt, "V", "_dynamo/guards.py", 3006,
                                        f"[__recompiles] Recompiling function forward in {self.workdir}/model.py:412\n[__recompiles]     triggered by the following guard failure(s):\n[__recompiles]     - {fid}/{i - 1}: tensor 'x' size mismatch at index 1. expected {self.seq_len - 128 * i}, actual {self.seq_len - 128 * (i + 1)}",
                                        f"{fid}/{i}"), "k")
            exc = ("torch._dynamo.exc.FailOnRecompileLimitHit: " + ("recompile_limit" if self.tminor >= 7 else "cache_size_limit") +
                   " reached with fullgraph=True. Excessive recompilations can degrade performance due to the compilation overhead of each recompilation. To monitor recompilations, enable TORCH_LOGS=recompiles. If recompilations are expected, consider increasing torch._dynamo.config.cache_size_limit to an appropriate value.")
            self.out(r, t - 0.1, self.recompile_limit_warn(r, t - 0.1, "forward", f"tensor 'x' size mismatch at index 1. expected {self.seq_len - 896}, actual {self.seq_len - 1024}", fid), "k")
            fr = self.entry_frames() + self.module_frames() + [
                (f"{sp}/torch/_dynamo/eval_frame.py", 655, "_fn", "return fn(*args, **kwargs)"),
                (f"{sp}/torch/_dynamo/convert_frame.py", 1452, "__call__", "return self._torchdynamo_orig_callable("),
                (f"{sp}/torch/_dynamo/convert_frame.py", 1233, "__call__", "result = self._inner_convert("),
                (f"{sp}/torch/_dynamo/convert_frame.py", 984, "_compile", "raise FailOnRecompileLimitHit(")]
            self.notes.append(f"Rank {r}'s shard has variable sequence lengths (no padding to seq_len) -> 8 recompiles of a fullgraph=True block then FailOnRecompileLimitHit on rank {r} only.")
        t1 = t + rng.uniform(0.05, 0.6)
        if v != "dcp_load":
            self.out(r, t1, self.tb(r, fr, exc), "k")
            self.error_json[r] = (exc.split("\n")[0], fr)
        self.origin_dead[r] = (t1 + rng.uniform(0.5, 2.5), 1, "origin")
        self.setup_block(t1)
        if v == "dcp_load":
            self.t_block = None

    # --------------------------------------------------------------- host oom
    def story_host_oom_kill(self):
        rng = self.rng
        st = self.stack
        v = rng.choice(["ckpt_staging", "dataloader", "rank0_fullstate"])
        if v == "rank0_fullstate" and st not in ("lightning", "tune"):
            v = "ckpt_staging"
        if st == "megatron" and v == "ckpt_staging":
            v = "dataloader"
        self.variant = v
        if v == "rank0_fullstate":
            r = 0
        else:
            r = self.pick_rank()
        self.set_origin([r])
        n = self.node(r)
        if v == "ckpt_staging" and self.ckpt_every == 0:
            self.ckpt_every = rng.choice([250, 500, 1000])
        if v == "ckpt_staging":
            k = max(self.ckpt_every, (self.fail_step // self.ckpt_every) * self.ckpt_every)
            self.fail_step = k
            t = self.step_t(k) + rng.uniform(2, 9)
        else:
            t = self.step_time_of_fail()
        self.t_fail = t
        pid = self.pids[r]
        total_vm = rng.randrange(300_000_000, 900_000_000)
        anon = rng.randrange(150_000_000, 240_000_000)
        cg = rng.random() < 0.6 or self.layout == "k8s_pytorchjob"
        comm = rng.choice(["python3", "pt_autograd_0", "pt_data_worker"])
        kt = "6.8.0-" + str(rng.choice([49, 52, 57, 60])) + "-generic"
        lines = [f"{comm} invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0",
                 f"CPU: {rng.randrange(0, 192)} PID: {pid + rng.randrange(0, 90)} Comm: {comm} Tainted: P           OE      {kt} #{rng.randrange(50, 70)}~22.04.1-Ubuntu",
                 "Call Trace:", " <TASK>", " dump_stack_lvl+0x76/0xa0", " dump_header+0x4a/0x240", " oom_kill_process+0xf9/0x190", " out_of_memory+0x256/0x540",
                 " mem_cgroup_out_of_memory+0x13f/0x160" if cg else " __alloc_pages_slowpath.constprop.0+0xb5c/0xe10", " </TASK>"]
        if cg:
            if self.layout == "k8s_pytorchjob":
                memcg = f"/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod{''.join(rng.choice('0123456789abcdef') for _ in range(8))}.slice"
            else:
                memcg = f"/system.slice/slurmstepd.scope/job_{self.jobid}"
            lines.append(f"memory: usage {anon * 4 // 4 + 1048576}kB, limit {anon + 1048576}kB, failcnt {rng.randrange(1, 999)}")
            lines.append(f"oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset={memcg.split('/')[-1]},mems_allowed=0-1,oom_memcg={memcg},task_memcg={memcg}/step_0/user/task_0,task=python3,pid={pid},uid=1000")
            lines.append(f"Memory cgroup out of memory: Killed process {pid} (python3) total-vm:{total_vm}kB, anon-rss:{anon}kB, file-rss:{rng.randrange(100000, 2000000)}kB, shmem-rss:{rng.randrange(0, 4000000)}kB, UID:1000 pgtables:{rng.randrange(300000, 600000)}kB oom_score_adj:0")
        else:
            lines.append(f"oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0-1,global_oom,task_memcg=/user.slice/user-1000.slice/session-{rng.randrange(3, 90)}.scope,task=python3,pid={pid},uid=1000")
            lines.append(f"Out of memory: Killed process {pid} (python3) total-vm:{total_vm}kB, anon-rss:{anon}kB, file-rss:{rng.randrange(100000, 2000000)}kB, shmem-rss:{rng.randrange(0, 4000000)}kB, UID:1000 pgtables:{rng.randrange(300000, 600000)}kB oom_score_adj:0")
        for i, l in enumerate(lines):
            self.kout(n, t - 0.2 + i * 0.0001, l)
        self.want_dmesg.add(n)
        self.origin_dead[r] = (t, -9, "origin")
        self.slurm_msgs.append((t + rng.uniform(1, 5), n, f"slurmstepd: error: Detected 1 oom_kill event in StepId={self.jobid}.0. Some of the step tasks have been OOM Killed."))
        if self.layout == "k8s_pytorchjob":
            self.k8s_oom_pod = n
            # whole container is killed (memory.oom.group); agent dies with it
            for r2 in range(n * self.gpn, (n + 1) * self.gpn):
                if r2 != r:
                    self.origin_dead[r2] = (t + rng.uniform(0.01, 0.3), -9, "vanish")
            self.vanished.add(n)
        if v == "ckpt_staging":
            self.notes.append(f"Async checkpoint staging into pinned host memory at step {self.fail_step} pushed {self.hosts[n]} over its memory limit; the kernel OOM killer SIGKILLed rank {r} (pid {pid}).")
        elif v == "dataloader":
            self.notes.append(f"DataLoader workers (high num_workers x prefetch_factor) grew host RSS on {self.hosts[n]}; kernel OOM killer SIGKILLed rank {r} (pid {pid}).")
        else:
            self.notes.append(f"Rank 0 gathers the full (unsharded) state dict to CPU for saving; host RAM on {self.hosts[n]} exhausted and the OOM killer SIGKILLed rank 0 (pid {pid}).")
        self.setup_block(t)
        self.remote_err_p = 0.35

    # --------------------------------------------------------------- crash_signal
    def story_crash_signal(self):
        rng = self.rng
        v = rng.choice(["segv", "abrt", "bus"])
        self.variant = v
        r = self.pick_rank()
        self.set_origin([r])
        n = self.node(r)
        t = self.step_time_of_fail()
        self.t_fail = t
        sp = self.sp
        pv = self.pyver
        thr = f"0x{rng.randrange(0x7f0000000000, 0x7fffffffffff):012x}"
        main = f"0x{rng.randrange(0x7f0000000000, 0x7fffffffffff):012x}"
        if v in ("segv", "bus"):
            name = "Segmentation fault" if v == "segv" else "Bus error"
            if v == "segv":
                cur = [(f"{sp}/torch/autograd/graph.py", 824, "_engine_run_backward"), (f"{sp}/torch/autograd/__init__.py", 353, "backward"),
                       (f"{sp}/torch/_tensor.py", 648, "backward")]
                self.notes.append(f"SIGSEGV in the autograd engine on rank {r} (native crash in a custom CUDA extension's backward); no Xid / ECC / NCCL evidence.")
            else:
                cur = [(f"{sp}/numpy/_core/memmap.py" if False else f"{self.workdir}/megatron/core/datasets/indexed_dataset.py", 510, "get"),
                       (f"{self.workdir}/megatron/core/datasets/gpt_dataset.py", 682, "_query_document_sample_shuffle_indices"),
                       (f"{self.workdir}/megatron/core/datasets/gpt_dataset.py", 224, "__getitem__")]
                self.notes.append(f"SIGBUS on rank {r}: the memory-mapped dataset .bin file was truncated/replaced on shared storage while training (mmap read past EOF).")
            L = [f"Fatal Python error: {name}", "", f"Thread {thr} (most recent call first):",
                 f"  File \"/usr/lib/python{pv}/threading.py\", line 359 in wait", f"  File \"/usr/lib/python{pv}/threading.py\", line 655 in wait",
                 f"  File \"{sp}/tqdm/_monitor.py\", line 60 in run", f"  File \"/usr/lib/python{pv}/threading.py\", line 1045 in _bootstrap_inner",
                 f"  File \"/usr/lib/python{pv}/threading.py\", line 1002 in _bootstrap", "", f"Current thread {main} (most recent call first):"]
            for f, ln, fn in cur:
                L.append(f"  File \"{f}\", line {ln} in {fn}")
            for f, ln, fn, _ in reversed(self.entry_frames()):
                L.append(f"  File \"{f}\", line {ln} in {fn}")
            L += ["", "Extension modules: numpy._core._multiarray_umath, numpy.linalg._umath_linalg, torch._C, torch._C._dynamo.autograd_compiler, torch._C._dynamo.eval_frame, torch._C._dynamo.guards, torch._C._dynamo.utils, torch._C._fft, torch._C._linalg, torch._C._nested, torch._C._nn, torch._C._sparse, torch._C._special, yaml._yaml, markupsafe._speedups, PIL._imaging, psutil._psutil_linux, zstandard.backend_c, charset_normalizer.md, pyarrow.lib (total: " + str(rng.randrange(70, 130)) + ")"]
            code = -11 if v == "segv" else -7
            self.out(r, t, "\n".join(L), "k")
            if v == "segv":
                self.kout(n, t + 0.01, f"python3[{self.pids[r]}]: segfault at {rng.choice(['0', '18', '8', '7f0c00000010'])} ip 00007f{rng.randrange(0x1000000000, 0xfffffffff0):010x} sp 00007ffd{rng.randrange(0x10000000, 0xffffffff):08x} error {rng.choice([4, 6])} in libfused_rope_cuda.so[7f{rng.randrange(0x1000000000, 0xfffffffff0):010x}+{rng.randrange(0x10000, 0x99999):x}] likely on CPU {rng.randrange(0, 128)} (core {rng.randrange(0, 64)}, socket {rng.randrange(0, 2)})")
                self.kout(n, t + 0.011, "Code: 48 8b 47 08 48 85 c0 74 0b 48 8b 40 10 c3 0f 1f 44 00 00 <48> 8b 07 c3 66 2e 0f 1f 84 00 00 00 00 00 90 f3 0f 1e fa 48 8b 07")
                if rng.random() < 0.5:
                    self.want_dmesg.add(n)
        else:
            msg = rng.choice(["free(): invalid pointer", "double free or corruption (!prev)", "corrupted size vs. prev_size",
                              "malloc(): unsorted double linked list corrupted"])
            self.out(r, t, msg, "k")
            code = -6
            self.notes.append(f"glibc heap corruption abort on rank {r} ('{msg}') from a native extension; SIGABRT with no CUDA/NCCL/hardware evidence.")
        self.origin_dead[r] = (t + rng.uniform(0.05, 0.5), code, "origin")
        self.setup_block(t)
        self.remote_err_p = 0.35

    # --------------------------------------------------------------- preemption
    def story_preemption(self):
        rng = self.rng
        t = self.step_time_of_fail()
        self.t_fail = t
        if self.layout == "k8s_pytorchjob":
            n = rng.randrange(1, self.nnodes)
            ranks = list(range(n * self.gpn, (n + 1) * self.gpn))
            self.set_origin(ranks, "node")
            self.preempt_node = n
            for r in ranks:
                self.origin_dead[r] = (t + rng.uniform(0.1, 1.5), -15, "preempt_sigterm")
            self.notes.append(f"Spot/preemptible node {self.k8s_nodes[n]} was reclaimed: kubelet graceful node shutdown terminated pod {self.hosts[n]}; the other pods then fail on NCCL errors/timeouts.")
            self.setup_block(t, r=ranks[0])
            self.remote_err_p = 0.35
            return
        v = rng.choice(["preempt", "preempt", "timelimit"])
        self.variant = v
        self.set_origin([], "none")
        self.origin_node = None
        self.ext_kill = (t, v)
        self.slurm_state = "PREEMPTED" if v == "preempt" else "TIMEOUT"
        why = "DUE TO PREEMPTION" if v == "preempt" else "DUE TO TIME LIMIT"
        self.slurm_cancel_msg = why
        if v == "preempt":
            self.notes.append("Slurm preempted the whole job for a higher-priority reservation: SIGTERM to every task at the same time (no rank-level root cause).")
        else:
            self.notes.append("The job hit its Slurm wall-clock time limit: SIGTERM to every task (scheduler-initiated stop).")

    # --------------------------------------------------------------- hang
    def story_hang(self):
        rng = self.rng
        v = rng.choice(["compile_pool", "gil_deadlock", "long_compile"]) if self.compile else "gil_deadlock"
        self.variant = v
        r = self.pick_rank()
        self.set_origin([r])
        n = self.node(r)
        sp = self.sp
        if v == "long_compile":
            self.fail_step = 1
            t = self.t_train0 + rng.uniform(5, 30)
            self.t_fail = t
            self.init_timeout = min(self.init_timeout, rng.choice([300, 600]))
            self.origin_stuck[r] = t
            for i in range(rng.randint(4, 9)):
                tt = t + 60 * (i + 1) + rng.uniform(0, 40)
                m, k2 = self.lbs * self.seq_len, self.hidden
                self.out(r, tt, f"AUTOTUNE mm({m}x{k2}, {k2}x{self.model[5] // max(1, self.dimsize.get('tp', 1))})\n  triton_mm_{rng.randrange(10, 90)} {rng.uniform(0.5, 2):.4f} ms 100.0% ACC_TYPE='tl.float32', ALLOW_TF32=False, BLOCK_K=64, BLOCK_M=128, BLOCK_N=256, EVEN_K=True, GROUP_M=8, num_stages=3, num_warps=8\nSingleProcess AUTOTUNE benchmarking takes {rng.uniform(30, 90):.4f} seconds and {rng.uniform(20, 120):.4f} seconds precompiling for {rng.randrange(18, 30)} choices", "k")
            self.notes.append(f"Cold Inductor/Triton cache on {self.hosts[n]} (node-local /tmp, max-autotune): rank {r} spends many minutes compiling/autotuning step 1 while every other rank waits in the first FSDP collective and hits the {self.init_timeout}s init timeout -> classified as hang (rank never joined the collective in time).")
            self.max_autotune = True
        else:
            t = self.step_time_of_fail()
            self.t_fail = t
            self.origin_stuck[r] = t
            if v == "compile_pool":
                self.out(r, t + rng.uniform(5, 60), self.tl(r, t + 30, "W", "_inductor/compile_worker/subproc_pool.py", 321, "SubprocPool unclean exit"), "k")
                h = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz234567") for _ in range(50))
                self.pyspy[r] = [("MainThread", "idle", [("wait", f"/usr/lib/python{self.pyver}/threading.py", 355),
                                                         ("result", f"/usr/lib/python{self.pyver}/concurrent/futures/_base.py", 451),
                                                         ("result", f"{sp}/torch/_inductor/codecache.py", 3316),
                                                         ("wait", f"{sp}/torch/_inductor/async_compile.py", 402),
                                                         ("<module>", f"/tmp/torchinductor_{self.user}/{h[:2]}/c{h}.py", rng.randrange(900, 4000)),
                                                         ("load_by_key_path", f"{sp}/torch/_inductor/codecache.py", 2905),
                                                         ("compile_to_module", f"{sp}/torch/_inductor/graph.py", 2090),
                                                         ("codegen_and_compile", f"{sp}/torch/_inductor/compile_fx.py", 1189),
                                                         ("fx_codegen_and_compile", f"{sp}/torch/_inductor/compile_fx.py", 1525),
                                                         ("_compile", f"{sp}/torch/_dynamo/convert_frame.py", 1079),
                                                         ("__call__", f"{sp}/torch/_dynamo/convert_frame.py", 1452),
                                                         ("forward_backward_step", f"{self.workdir}/torchtitan/train.py" if self.stack == "titan" else f"{self.workdir}/train.py", 468)]),
                                 ("Thread-3 (_feed)", "idle", [("wait", f"/usr/lib/python{self.pyver}/threading.py", 355),
                                                               ("_feed", f"/usr/lib/python{self.pyver}/multiprocessing/queues.py", 251)])]
                self.notes.append(f"A dynamic-shape recompile on rank {r} waits forever on Inductor's compile-worker SubprocPool (worker died; SubprocPool unclean exit); the other ranks block in the next collective and time out.")
            else:
                self.pyspy[r] = [("MainThread", "active+gil" if False else "idle", [("_acquire_restore", f"/usr/lib/python{self.pyver}/threading.py", 287),
                                                                                    ("wait", f"/usr/lib/python{self.pyver}/threading.py", 359),
                                                                                    ("put", f"/usr/lib/python{self.pyver}/queue.py", 140),
                                                                                    ("_log_metrics", f"{self.workdir}/utils/metrics_logger.py", 88),
                                                                                    ("log", f"{self.workdir}/utils/metrics_logger.py", 61),
                                                                                    ("train_step", f"{self.workdir}/torchtitan/train.py" if self.stack == "titan" else f"{self.workdir}/train.py", 531)]),
                                 ("Thread-7 (_upload_loop)", "active+gil", [("_flush", f"{self.workdir}/utils/metrics_logger.py", 131),
                                                                            ("_upload_loop", f"{self.workdir}/utils/metrics_logger.py", 117),
                                                                            ("run", f"/usr/lib/python{self.pyver}/threading.py", 1012)])]
                self.notes.append(f"Rank {r} deadlocks between its training thread and an in-process metrics-upload thread holding a lock (py-spy shows the main thread parked in queue.put); it never issues its next collective and the others time out.")
        self.setup_block(t if v != "long_compile" else t + 1)
        if v == "long_compile":
            self.t_block = self.t_train0 + rng.uniform(2, 10)
        self.want_fr_report = self.fr_dump and rng.random() < 0.75
        self.want_ras = self.nccl_ras and rng.random() < 0.4
        if self.fr_dump and not self.want_fr_report and rng.random() < 0.5:
            self.want_ras = self.nccl_ras

    # --------------------------------------------------------------- data loader stall
    def story_data_loader_stall(self):
        rng = self.rng
        opts = ["nfs", "hf_stream"]
        if self.pg_timeout > 700:
            opts.append("dl_timeout")
        v = rng.choice(opts)
        self.variant = v
        r = self.pick_rank()
        self.set_origin([r])
        n = self.node(r)
        t = self.step_time_of_fail()
        self.t_fail = t
        sp = self.sp
        fs = rng.choice(["fs01-nfs", "10.20.0.15", "vast-data-vip", "filestore-1"])
        if v == "nfs":
            for i in range(rng.randint(3, 8)):
                self.kout(n, t + 20 + i * rng.uniform(60, 200), f"nfs: server {fs} not responding, still trying")
            self.kout(n, t + 130, f"INFO: task pt_data_worker:{self.pids[r] + rng.randrange(100, 400)} blocked for more than 122 seconds.")
            self.kout(n, t + 130.001, f"      Tainted: P           OE      6.8.0-52-generic #53~22.04.1-Ubuntu\n\"echo 0 > /proc/sys/kernel/hung_task_timeout_secs\" disables this message.")
            self.want_dmesg.add(n)
            self.dstate.add(r)
            self.pyspy[r] = [("MainThread", "idle", [("wait", f"/usr/lib/python{self.pyver}/threading.py", 359),
                                                     ("get", f"/usr/lib/python{self.pyver}/queue.py", 180),
                                                     ("_try_get_data", f"{sp}/torch/utils/data/dataloader.py", 1284),
                                                     ("_get_data", f"{sp}/torch/utils/data/dataloader.py", 1446),
                                                     ("_next_data", f"{sp}/torch/utils/data/dataloader.py", 1492),
                                                     ("__next__", f"{sp}/torch/utils/data/dataloader.py", 733),
                                                     ("next_batch", f"{self.workdir}/torchtitan/train.py" if self.stack == "titan" else f"{self.workdir}/train.py", 402)]),
                             ("pt_data_worker (pid %d)" % (self.pids[r] + 211), "idle", [("read", f"{sp}/pyarrow/parquet/core.py" if False else f"/usr/lib/python{self.pyver}/_pyio.py" if False else f"{sp}/numpy/_core/memmap.py", 287),
                                                                                           ("__getitem__", f"{self.workdir}/data.py", 61)])]
            self.notes.append(f"NFS server {fs} stopped responding for {self.hosts[n]}: rank {r}'s DataLoader workers sit in uninterruptible reads, the rank never reaches its next collective; others time out. The stuck rank ignores SIGTERM and is SIGKILLed.")
        elif v == "hf_stream":
            host = rng.choice(["cdn-lfs-us-1.hf.co", "cas-bridge.xethub.hf.co", "huggingface.co"])
            ds = rng.choice(["allenai/c4/resolve/1588ec454efa1a09f29cd18ddd04fe05fc8653a2/en/c4-train.%05d-of-01024.json.gz",
                             "HuggingFaceFW/fineweb-edu/resolve/main/data/CC-MAIN-2024-10/%03d_00000.parquet"])
            k = 0
            tt = t
            while tt < t + 700:
                k = k % 5 + 1
                fid = rng.randrange(0, 1000)
                rid = "".join(rng.choice("0123456789abcdef") for _ in range(8)) + "-" + "".join(rng.choice("0123456789abcdef") for _ in range(4))
                self.out(r, tt, f"'(ReadTimeoutError(\"HTTPSConnectionPool(host='{host}', port=443): Read timed out. (read timeout=10)\"), '(Request ID: {rid})')' thrown while requesting GET https://huggingface.co/datasets/{ds % fid}", "k")
                self.out(r, tt + 0.001, f"Retrying in {min(2 ** (k - 1), 8)}s [Retry {k}/5].", "k")
                tt += 10 + min(2 ** (k - 1), 8) + rng.uniform(0, 3)
            self.notes.append(f"Rank {r} streams its shard from the Hugging Face Hub; the CDN stalls for this rank (read timeouts and retries), so it stops producing batches while the others block in the next collective.")
        else:
            dlt = 600
            tt = t + dlt
            exc = f"RuntimeError: DataLoader timed out after {dlt} seconds"
            fr = self.entry_frames()[:3] + [(f"{sp}/torch/utils/data/dataloader.py", 733, "__next__", "data = self._next_data()"),
                                            (f"{sp}/torch/utils/data/dataloader.py", 1492, "_next_data", "idx, data = self._get_data()"),
                                            (f"{sp}/torch/utils/data/dataloader.py", 1444, "_get_data", "success, data = self._try_get_data()"),
                                            (f"{sp}/torch/utils/data/dataloader.py", 1288, "_try_get_data", "raise RuntimeError(")]
            self.out(r, tt, self.tb(r, fr, exc), "k")
            self.error_json[r] = (exc, fr)
            self.stuck_selfkill[r] = (tt + 1.5, 1, "dl_timeout")
            self.notes.append(f"Rank {r}'s input pipeline stalled (object-store reads hanging); its DataLoader(timeout=600) fires before the {self.pg_timeout}s NCCL timeout. Root cause is the data stall, surfaced as a DataLoader timeout exception.")
        self.origin_stuck[r] = t
        self.setup_block(t)
        self.want_fr_report = self.fr_dump and rng.random() < 0.5
        self.want_ras = self.nccl_ras and rng.random() < 0.3

    # --------------------------------------------------------------- collective mismatch
    def story_collective_mismatch(self):
        rng = self.rng
        opts = ["uneven_eval", "skip_step", "debug_detail"]
        if self.nnodes >= 2 and self.stack in ("titan", "lightning"):
            opts.append("mesh_shape")
        v = rng.choice(opts)
        self.variant = v
        if v == "mesh_shape":
            n = rng.randrange(1, self.nnodes)
            ranks = list(range(n * self.gpn, (n + 1) * self.gpn))
            self.set_origin(ranks, "node")
            r = ranks[0]
        else:
            r = self.pick_rank()
            gd = [d for d, _ in self.dims if d not in ("pp", "tp", "tensor_parallel", "cp")]
            dim = gd[0] if gd else None
            members, gr = self.group_of(r, dim)
            if gr == 0 and len(members) > 1:
                r = members[rng.randrange(1, len(members))]
            self.set_origin([r])
        t = self.step_time_of_fail()
        self.t_fail = t
        dims_dp = [d for d, _ in self.dims if d in ("dp_shard", "data_parallel", "dp")]
        dim = dims_dp[0] if dims_dp else None
        self.setup_block(t, dim=dim, r=r)
        base = self.coll
        if v in ("uneven_eval", "skip_step"):
            other = dict(base)
            if v == "uneven_eval":
                other["op"] = "ALLREDUCE"
                other["nin"] = other["nout"] = rng.choice([1, 2, 4])
                self.notes.append(f"Uneven validation split: rank {r} ran out of eval batches one step early and called the metric all_reduce while the rest of its data-parallel group issued the next FSDP all-gather (same sequence number, different collective).")
            else:
                other["op"] = "_REDUCE_SCATTER_BASE" if base["op"] != "_REDUCE_SCATTER_BASE" else "_ALLGATHER_BASE"
                other["nin"], other["nout"] = base["nout"], base["nin"]
                self.notes.append(f"Rank {r} skipped the backward of step {self.fail_step} after a local-only inf/NaN check and went on to the next forward: its group waits in reduce-scatter while it issues all-gather (collective mismatch).")
            self.coll_override[r] = other
            self.mm_kind = "type"
            for q in self.coll_group or []:
                if q != r and rng.random() < 0.0:
                    pass
        elif v == "mesh_shape":
            wtp = self.dimsize.get("tp", self.dimsize.get("tensor_parallel", 1))
            bad = wtp * 2 if wtp * 2 <= self.gpn else max(1, wtp // 2)
            if bad == wtp:
                bad = 2 if wtp != 2 else 4
            self.bad_tp = bad
            for q in self.origin:
                o = dict(base)
                o["nin"] = max(1, base["nin"] * wtp // bad)
                o["nout"] = max(1, base["nout"] * wtp // bad)
                self.coll_override[q] = o
            self.mm_kind = "size"
            self.notes.append(f"Ranks on {self.hosts[self.origin_node]} built the DeviceMesh with tp={bad} (stale env) while the rest used tp={wtp}; both shapes are valid on their own so nothing raised, but the sharded tensors differ in size and the first FSDP collectives mismatch -> collective_mismatch (not python_exception: no rank raised).")
        else:
            # TORCH_DISTRIBUTED_DEBUG=DETAIL catches it at the call site on all ranks
            other_op = rng.choice(["ALLREDUCE", "BROADCAST"])
            self.coll_override[r] = dict(base, op=other_op, nin=1, nout=1)
            fp = lambda op, shape: (f"CollectiveFingerPrint(SequenceNumber={base['seq']}, OpType={op}, TensorShape=[{shape}], TensorDtypes=BFloat16, "
                                    "TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt)))")
            fr = self.entry_frames() + [(f"{self.sp}/torch/distributed/c10d_logger.py", 81, "wrapper", "return func(*args, **kwargs)"),
                                        (f"{self.sp}/torch/distributed/distributed_c10d.py", 2810, "all_reduce", "work = group.allreduce([tensor], opts)")]
            members = sorted(self.coll_group) if self.coll_group else list(range(self.world))
            for q in members:
                tt = t + rng.uniform(0.05, 1.0)
                if q == r:
                    other = members[0]
                    exc = f"RuntimeError: Detected mismatch between collectives on ranks. Rank {q} is running collective: {fp(other_op, 1)}, but Rank {other} is running collective: {fp(base['op'], base['nin'])}.Collectives differ in the following aspects: \t Op type: {other_op}vs {base['op']}  Tensor Tensor shapes: 1vs {base['nin']}"
                else:
                    exc = f"RuntimeError: Detected mismatch between collectives on ranks. Rank {q} is running collective: {fp(base['op'], base['nin'])}, but Rank {r} is running collective: {fp(other_op, 1)}.Collectives differ in the following aspects: \t Op type: {base['op']}vs {other_op}  Tensor Tensor shapes: {base['nin']}vs 1"
                self.out(q, tt, self.tb(q, fr, exc), "k")
                self.error_json[q] = (exc, fr)
                self.origin_dead[q] = (tt + rng.uniform(0.3, 1.5), 1, "detail_peer" if q != r else "origin")
            self.mm_kind = "type"
            self.notes.append(f"TORCH_DISTRIBUTED_DEBUG=DETAIL was set: the wrapper process group compares collective fingerprints and every rank of the group raises 'Detected mismatch between collectives' naming rank {r}, which issued {other_op} instead of {base['op']}.")
        self.want_fr_report = self.fr_dump and v != "debug_detail" and rng.random() < 0.7
        self.want_ras = self.nccl_ras and v != "debug_detail" and rng.random() < 0.3

    # --------------------------------------------------------------- straggler
    def story_straggler(self):
        rng = self.rng
        v = rng.choice(["recompile", "thermal"]) if self.compile else "thermal"
        if self.stack == "megatron":
            self.mg_straggler = True
        self.strag_variant = v
        self.variant = v
        r = self.pick_rank(prefer_visible=rng.random() < 0.7)
        self.set_origin([r])
        n = self.node(r)
        k0 = max(20, int(self.fail_step * 0.5))
        self.slow_from = k0
        self.slow_factor = rng.uniform(1.3, 2.4)
        t0 = self.step_t(k0)
        self.t_fail = t0
        if v == "recompile":
            fid = rng.randrange(2, 6)
            for i in range(1, 8):
                tt = t0 - (8 - i) * self.step_time * rng.uniform(1, 4)
                self.out(r, tt, self.tl(r, tt, "V", "_dynamo/guards.py", 3006,
                                        f"[__recompiles] Recompiling function forward in {self.workdir}/torchtitan/models/{self.model[0]}/model/model.py:361\n[__recompiles]     triggered by the following guard failure(s):\n[__recompiles]     - {fid}/{i - 1}: tensor 'L['x']' size mismatch at index 1. expected {self.seq_len - 64 * i}, actual {self.seq_len - 64 * (i + 1)}",
                                        f"{fid}/{i}"), "k") if "recompiles" in self.torch_logs else None
            self.out(r, t0, self.recompile_limit_warn(r, t0, "forward", f"tensor 'L['x']' size mismatch at index 1. expected {self.seq_len - 448}, actual {self.seq_len - 512}", fid), "k")
            self.notes.append(f"Rank {r} receives variable-length (unpadded) batches from a misconfigured dataloader shard: its compiled TransformerBlock recompiles 8 times, hits the recompile limit and falls back to eager for that frame, running ~{self.slow_factor:.1f}x slower; every other rank waits on it in FSDP collectives (job-wide throughput drop, no crash).")
        else:
            lr = self.lr(r)
            temp = rng.randrange(87, 93)
            clk = rng.choice([1095, 1155, 1230, 1305])
            self.nvsmi[n] = (f"==============NVSMI LOG==============\n\nTimestamp                                 : {utc(self.lt(n, t0 + 3600)).strftime('%a %b %d %H:%M:%S %Y')}\nDriver Version                            : 570.133.20\nCUDA Version                              : {self.cuda_ver}\n\n"
                             f"GPU 00000000:{BUS[lr % 8].upper()}:00.0\n    Product Name                          : {self.gpu['name']}\n    Performance State                     : P0\n"
                             "    Clocks Event Reasons\n        Idle                              : Not Active\n        Applications Clocks Setting       : Not Active\n"
                             "        SW Power Cap                      : Not Active\n        HW Slowdown                       : Active\n            HW Thermal Slowdown           : Active\n"
                             "            HW Power Brake Slowdown       : Not Active\n        Sync Boost                        : Not Active\n        SW Thermal Slowdown               : Active\n"
                             f"        Display Clock Setting             : Not Active\n    Temperature\n        GPU Current Temp                  : {temp} C\n        GPU T.Limit Temp                  : -{rng.randrange(1, 4)} C\n"
                             f"        GPU Shutdown Temp                 : 92 C\n        GPU Slowdown Temp                 : 87 C\n        Memory Current Temp               : {temp + 4} C\n"
                             f"    Clocks\n        Graphics                          : {clk} MHz\n        SM                                : {clk} MHz\n        Memory                            : 2619 MHz\n")
            self.notes.append(f"GPU {lr} on {self.hosts[n]} (rank {r}) is thermally throttled (failed fan / blocked airflow): HW + SW thermal slowdown, SM clock ~{clk} MHz; that rank is persistently ~{self.slow_factor:.1f}x slower and the whole job runs at its pace.")
        # outcome: still running (user attached logs mid-run) or completed slowly
        if rng.random() < 0.6:
            self.truncated_running = True
            self.t_end = self.step_t(int(k0 + rng.uniform(40, 400)))
            self.notes.append("Job was still running (slowly) when the logs were collected; no crash.")
        else:
            self.total_steps = max(self.total_steps, k0 + 200)
            self.total_steps = min(self.total_steps, k0 + 3000)
            self.t_end = self.step_t(self.total_steps) + rng.uniform(20, 60)
            self.notes.append("Job finished, but far slower than planned.")
        self.healthy_like_end = not self.truncated_running

    # --------------------------------------------------------------- unknown
    def story_unknown(self):
        rng = self.rng
        v = rng.choice(["sigkill", "exit1_silent", "node_vanish"])
        if self.nnodes < 2 and v == "node_vanish":
            v = "sigkill"
        self.variant = v
        t = self.step_time_of_fail()
        self.t_fail = t
        if v == "node_vanish":
            n = rng.randrange(1, self.nnodes)
            ranks = list(range(n * self.gpn, (n + 1) * self.gpn))
            self.set_origin(ranks, "node")
            for r in ranks:
                self.origin_dead[r] = (t + rng.uniform(0, 0.01), -9, "vanish")
            self.vanished.add(n)
            self.slurm_state = "NODE_FAIL"
            self.notes.append(f"{self.hosts[n]} stopped producing any output at once (no kernel log or error captured from it); survivors report connection resets / NCCL errors toward it. Why the node died is not in the logs.")
            self.setup_block(t, r=ranks[0])
            self.remote_err_p = 0.45
            return
        r = self.pick_rank()
        self.set_origin([r])
        if v == "sigkill":
            self.origin_dead[r] = (t, -9, "origin")
            self.notes.append(f"Rank {r} was SIGKILLed with no OOM-killer, Xid or scheduler record in the collected logs; the cause of the kill is not visible.")
        else:
            self.origin_dead[r] = (t, 1, "origin")
            self.no_record = True
            self.notes.append(f"Rank {r} exited with code 1 without printing a traceback (sys.exit from a library check, stderr not captured); the reason is not in the logs.")
        self.setup_block(t)
        self.remote_err_p = 0.35

    # ======================================================================
    #   post-story: per-rank extra lines, artifacts
    # ======================================================================
    def post_story(self):
        for r, items in self.extra_rank_lines.items():
            f = self.fates.get(r)
            for t, text, kind in items:
                if f is None or t <= f.t + 0.5:
                    self.out(r, t, text, kind)
        # net_err ranks: NCCL completion error blocks
        for r, (t, code, reason) in self.origin_dead.items():
            if reason == "net_err":
                f = self.fates.get(r)
                if f and f.reason == "net_err":
                    peer = self.origin_node if self.node(r) != self.origin_node else (self.origin_node + 1 + self.rng.randrange(max(1, self.nnodes - 1))) % self.nnodes
                    if peer == self.node(r):
                        peer = (peer + 1) % self.nnodes
                    self.out(r, f.t - 0.5, self.remote_error_block(r, f.t - 0.5, peer), "k")
        # kernel background noise
        for n in range(self.nnodes):
            self.kern_noise(n)
        if self.want_fr_report:
            self.art["fr"] = self.fr_report()
        if self.want_ras:
            self.art["ras"] = self.ras_report()
        for r in self.pyspy:
            if self.rng.random() < 0.75 or self.cause == "hang" or getattr(self, "force_pyspy", False):
                self.art[f"pyspy_{r}"] = (self.pyspy_text(r), [r])

    def kern_noise(self, n):
        rng = self.rng
        t0 = self.t_launch - rng.uniform(3600, 86400 * 3)
        self.kout(n, t0, f"NVRM: loading NVIDIA UNIX {'Open ' if rng.random() < 0.6 else ''}Kernel Module for x86_64  {rng.choice(['570.133.20', '570.148.08', '575.57.08', '580.65.06'])}  Release Build  (dvs-builder@U22-I3-AE18-23-3)  {rng.choice(['Tue Mar 11', 'Fri May 30', 'Thu Jul 17'])} 2025")
        self.kout(n, t0 + 20, "nvidia-peermem nv_mem_register_client: nvidia-peermem registered")
        for _ in range(rng.randint(1, 4)):
            tt = self.t_launch + rng.uniform(-600, (self.t_end if hasattr(self, "t_end") else self.t_launch + 3600) - self.t_launch)
            self.kout(n, tt, rng.choice([
                "perf: interrupt took too long (2503 > 2500), lowering kernel.perf_event_max_sample_rate to 79750",
                f"audit: type=1400 audit({int(tt)}.{rng.randrange(100, 999)}:{rng.randrange(100, 999)}): apparmor=\"DENIED\" operation=\"open\" class=\"file\" profile=\"snap.lxd.activate\" name=\"/proc/{rng.randrange(1000, 99999)}/cgroup\" pid={rng.randrange(1000, 99999)} comm=\"snap-exec\" requested_mask=\"r\" denied_mask=\"r\" fsuid=0 ouid=0",
                f"IPv6: ADDRCONF(NETDEV_CHANGE): veth{''.join(rng.choice('0123456789abcdef') for _ in range(7))}: link becomes ready",
                f"EXT4-fs (nvme{rng.randrange(0, 8)}n1): mounted filesystem with ordered data mode. Quota mode: none.",
                f"mlx5_core 0000:{rng.choice(['1a', '3c', '4d'])}:00.0: mlx5_pcie_event:301:(pid {rng.randrange(100, 900)}): PCIe slot advertised sufficient power (75W).",
                "workqueue: drm_fb_helper_damage_work hogged CPU for >10000us 4 times, consider switching to WQ_UNBOUND",
            ]))

    def fr_report(self):
        rng = self.rng
        c = self.coll
        dim = c["dim"]
        pg = self.pgs.get(dim) or self.pgs[None]
        members = sorted(self.coll_group) if self.coll_group else list(range(self.world))
        exp = "{" + ", ".join(str(x) for x in members) + "}"
        frames = []
        for line in self.collective_stack(c).split("\n"):
            parts = line.split(" ", 1)[1]
            fn, loc = parts.split(" from ")
            frames.append(f"{fn} at {loc}")
        head = f"$ torchfrtrace {self.fr_dir} --prefix nccl_trace_rank_\n" if self.tminor >= 7 else f"$ python tools/flight_recorder/fr_trace.py {self.fr_dir} --prefix nccl_trace_rank_\n"
        name = "nccl:" + OPNAMES.get(c["op"], "all_reduce")
        ins = f"[[{c['nin']}]]"
        outs = f"[[{c['nout']}]]"
        L = [head.rstrip()]
        names = []
        dumped = set(range(self.world))
        for r, f in self.fates.items():
            if f and f.reason in ("origin", "vanish", "net_err") and r not in self.origin_stuck:
                dumped.discard(r)
        if self.cause in ("hang", "data_loader_stall"):
            miss = [x for x in self.origin if x in members]
            L += [f"Not all ranks joining collective, sequence number: {c['seq']}", f"internal record id: {c['seq'] - 1 + rng.randrange(0, 3)}",
                  f"group info: {pg['id']}:{pg['desc']}", f"collective: {name}", f"missing ranks: {{{', '.join(str(x) for x in miss)}}}",
                  f"input sizes: {ins}", f"output sizes: {outs}", f"world size: {len(members)}", f"expected ranks: {exp}",
                  "collective state: scheduled", "collective stack trace: ", " " + "\n".join(frames)]
            names = miss
        elif self.cause == "collective_mismatch":
            culprits = [x for x in self.origin if x in members] or self.origin
            errs = []
            for q in culprits:
                o = self.coll_override.get(q, c)
                if self.mm_kind == "type":
                    e = f"Culprit rank {q}; Error type: COLLECTIVE_TYPE_MISMATCH, Expected collective type: '{OPNAMES.get(c['op'])}' does not match found collective type: '{OPNAMES.get(o['op'])}'"
                else:
                    e = f"Culprit rank {q}; Error type: SIZE_OR_SYNTAX_MISMATCH, Expected input sizes: '[[{c['nin']}]]' does not match found input sizes: '[[{o['nin']}]]'"
                errs.append(e)
            L += [f"Collective sequence number: {c['seq']} has errors", f"internal record id: {c['seq'] - 1}",
                  f"group info: {pg['id']}:{pg['desc']}", f"collective: {name}", f"input sizes: {ins}", f"output sizes: {outs}",
                  f"world size: {len(members)}", f"expected ranks: {exp}", "collective state: scheduled",
                  "error msg: " + ", ".join(errs), "collective stack trace: ", " " + "\n".join(frames)]
            names = culprits
        else:
            miss = sorted(set(members) - dumped)
            if miss:
                L.append(f"We cannot decide what's wrong with this collective entry because we missed FR dumps from ranks ({{{', '.join(str(x) for x in miss)}}}) so we don't have enough information. If you want to debug further use -j to dump all raw trace")
                names = miss
            else:
                L.append("No errors found for this collective entry, There could be some other reasons why we see collective timeout.")
        return ("\n".join(L) + "\n", names)

    def ras_report(self):
        rng = self.rng
        W = self.world
        c = self.coll
        opname = {"_ALLGATHER_BASE": "AllGather", "_REDUCE_SCATTER_BASE": "ReduceScatter", "ALLREDUCE": "AllReduce"}.get(c["op"], "AllReduce")
        members = sorted(self.coll_group) if self.coll_group else list(range(W))
        lag = [x for x in self.origin if x in members] or self.origin[:1]
        per_node = min(self.gpn, len(members))
        cnt = max(1, c["seq"] - rng.randrange(0, 3))
        L = [f"NCCL version {self.nccl_ver} compiled with CUDA {self.cuda_ver}", f"CUDA runtime version {self.cuda_int()}, driver version {self.cuda_int(drv=True)}", "",
             "Job summary", "===========", "", "  Nodes  Processes         GPUs  Processes     GPUs",
             "(total)   per node  per process    (total)  (total)",
             f"{self.nnodes:7d} {self.gpn:10d} {1:12d} {W:10d} {W:8d}", "",
             "Communicators... (0.00s)", "=============", "",
             "Group     Comms     Nodes     Ranks     Ranks     Ranks    Status  Errors",
             "    #  in group  per comm  per node  per comm  in group",
             f"    0         1 {self.nnodes:9d} {self.gpn:9d} {W:9d} {W:9d}   RUNNING      OK",
             f"    1 {max(1, W // len(members)):9d} {max(1, len(members) // self.gpn):9d} {per_node:9d} {len(members):9d} {len(members):9d}   RUNNING  MISMATCH",
             "", "Errors", "======", "", "Warnings", "========", "",
             f"#1-0 ({''.join(rng.choice('0123456789abcdef') for _ in range(16))}) MISMATCH",
             f"  Communicator ranks have different {opname} operation counts",
             f"  {len(members) - len(lag)} ranks have launched up to operation {cnt + 1}",
             f"  {len(lag)} rank{'s' if len(lag) > 1 else ''} {'have' if len(lag) > 1 else 'has'} launched up to operation {cnt}"]
        for q in lag:
            L.append(f"  Rank {members.index(q)} -- GPU {self.lr(q)} managed by process {self.pids[q]} on node {self.ips[self.node(q)]}")
        return ("\n".join(L) + "\n", lag)

    def cuda_int(self, drv=False):
        a, b = self.cuda_ver.split(".")
        v = int(a) * 1000 + int(b) * 10
        if drv:
            v = max(v, 12080 if int(a) < 13 else 13000)
        return v

    def pyspy_text(self, r):
        L = [f"Process {self.pids[r]}: {self.pyexe} -u {self.script} " + ("--job.config_file ./train_configs/llama3_8b.toml" if self.stack == "titan" else ""),
             f"Python v{self.pyver}.{self.rng.randrange(3, 12)} ({self.pyexe})", ""]
        for name, state, frames in self.pyspy[r]:
            tid = self.pids[r] if name == "MainThread" else self.pids[r] + self.rng.randrange(40, 300)
            L.append(f"Thread {tid} ({state}): \"{name}\"")
            for fn, f, ln in frames:
                L.append(f"    {fn} ({f}:{ln})")
            L.append("")
        return "\n".join(L)

    # ======================================================================
    #   launcher (torchrun agent) output
    # ======================================================================
    def failure_entry(self, idx, q):
        f = self.fates[q]
        n = self.node(q)
        L = [f"[{idx}]:", f"  time      : {self.f_elastic(n, f.t)}", f"  host      : {self.hosts[n]}",
             f"  rank      : {q} (local_rank: {self.lr(q)})", f"  exitcode  : {f.code} (pid: {self.pids[q]})"]
        if f.code < 0:
            L += ["  error_file: <N/A>", f"  traceback : Signal {-f.code} ({SIGNAME.get(f.code, 'SIG?')}) received by PID {self.pids[q]}"]
        elif q in self.error_json and not self.no_record:
            exc, frames = self.error_json[q]
            L.append(f"  error_file: /tmp/torchelastic_{self.elastic_tag(n)}/{self.rdzv_id}_{self.elastic_tag(n, 2)}/attempt_0/{self.lr(q)}/error.json")
            tbt = self.tb(q, frames, exc, prefix=False, carets=False).split("\n")
            L.append("  traceback : " + tbt[0])
            for x in tbt[1:]:
                L.append("  " + x)
        else:
            L += ["  error_file: <N/A>", "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"]
        return L

    def elastic_tag(self, n, k=1):
        rr = random.Random(f"{self.seed}|{self.idx}|etag|{n}|{k}")
        return "".join(rr.choice("abcdefghijklmnopqrstuvwxyz0123456789_") for _ in range(8))

    def torchrun_tb(self):
        sp = self.sp
        return "\n".join([
            "Traceback (most recent call last):",
            f"  File \"{os.path.dirname(self.pyexe)}/torchrun\", line 8, in <module>", "    sys.exit(main())",
            f"  File \"{sp}/torch/distributed/elastic/multiprocessing/errors/__init__.py\", line {357 if self.tminor >= 7 else 355}, in wrapper", "    return f(*args, **kwargs)",
            f"  File \"{sp}/torch/distributed/run.py\", line {919 + 3 * (self.tminor - 6)}, in main", "    run(args)",
            f"  File \"{sp}/torch/distributed/run.py\", line {910 + 3 * (self.tminor - 6)}, in run", "    elastic_launch(",
            f"  File \"{sp}/torch/distributed/launcher/api.py\", line 138, in __call__", "    return launch_agent(self._config, self._entrypoint, list(args))",
        ])

    def agent_rows(self, n):
        if getattr(self, "_agent_built", None) is None:
            self._agent_built = set()
        if n in self._agent_built:
            return [(a[0], a[1], a[2], a[3], a[4]) for a in self.agent.get(n, [])]
        self._agent_built.add(n)
        rng = self.rng
        t = self.t_launch + rng.uniform(0.3, 1.5)
        rl = 766 + 3 * (self.tminor - 6)
        for m in ["", "*****************************************",
                  "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. ",
                  "*****************************************"]:
            self.aout(n, t, self.al(n, t, "W", "distributed/run.py", rl, m))
        if n > 0 and rng.random() < 0.35:
            for i in range(rng.randint(1, 3)):
                tt = t + 0.5 + i * 1.0
                self.aout(n, tt, f"[{self.f_glog(n, tt, 'W')} socket.cpp:{rng.choice([752, 759, 764])}] [c10d] The client socket has failed to connect to [{self.hosts[0]}]:29500 (errno: 111 - Connection refused).")
        ns = self.node_state.get(n) or {}
        if n in self.vanished or self.healthy or not ns:
            return self.agent_rows(n)
        api = "distributed/elastic/multiprocessing/api.py"
        if (self.preempt_node == n) or (ns.get("ext") is not None and ns.get("first") is None):
            te = self.t_fail if self.preempt_node == n else ns["ext"]
            self.aout(n, te, self.al(n, te, "W", "distributed/elastic/agent/server/api.py", 704 + 10 * (self.tminor - 6), "Received Signals.SIGTERM death signal, shutting down workers"))
            for r in range(n * self.gpn, (n + 1) * self.gpn):
                self.aout(n, te + 0.001, self.al(n, te + 0.001, "W", api, 897 + 3 * (self.tminor - 6), f"Sending process {self.pids[r]} closing signal SIGTERM"))
            tt = te + rng.uniform(1.5, 8)
            self.aout(n, tt, self.torchrun_tb() + "\n" + "\n".join([
                f"  File \"{self.sp}/torch/distributed/launcher/api.py\", line 260, in launch_agent", "    result = agent.run()",
                f"  File \"{self.sp}/torch/distributed/elastic/metrics/api.py\", line 137, in wrapper", "    result = f(*args, **kwargs)",
                f"  File \"{self.sp}/torch/distributed/elastic/agent/server/api.py\", line 711, in run", "    result = self._invoke_run(role)",
                f"  File \"{self.sp}/torch/distributed/elastic/agent/server/api.py\", line 870, in _invoke_run", "    time.sleep(monitor_interval)",
                f"  File \"{self.sp}/torch/distributed/elastic/multiprocessing/api.py\", line 84, in _terminate_process_handler",
                "    raise SignalException(f\"Process {os.getpid()} got signal: {sigval}\", sigval=sigval)",
                f"torch.distributed.elastic.multiprocessing.api.SignalException: Process {self.agent_pid[n]} got signal: 15"]))
            return self.agent_rows(n)
        if ns.get("first") is None:
            return self.agent_rows(n)
        ta = ns["acted"]
        killed = [r for r in range(n * self.gpn, (n + 1) * self.gpn) if self.fates.get(r) and self.fates[r].reason in ("agent_sigterm", "agent_sigkill")]
        for r in killed:
            self.aout(n, ta, self.al(n, ta, "W", api, 897 + 3 * (self.tminor - 6), f"Sending process {self.pids[r]} closing signal SIGTERM"))
        for r in killed:
            if self.fates[r].reason == "agent_sigkill":
                self.aout(n, ta + 30, self.al(n, ta + 30, "W", api, 920, f"Unable to shutdown process {self.pids[r]} via Signals.SIGTERM, forcefully exiting via Signals.SIGKILL"))
        root = ns["first"]
        fr = self.fates[root]
        te = ns["exit"] or ta + 2
        self.aout(n, te - 0.5, self.al(n, te - 0.5, "E", api, 869 + 3 * (self.tminor - 6), f"failed (exitcode: {fr.code}) local_rank: {self.lr(root)} (pid: {self.pids[root]}) of binary: {self.pyexe}"))
        L = [self.torchrun_tb(),
             f"  File \"{self.sp}/torch/distributed/launcher/api.py\", line 269, in launch_agent", "    raise ChildFailedError(",
             "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ", "=" * 60, f"{self.script} FAILED", "-" * 60, "Failures:"]
        others = [q for q in ns["others"] if self.fates.get(q)]
        if others:
            for i, q in enumerate(others[:7]):
                L += self.failure_entry(i + 1, q)
        else:
            L.append("  <NO_OTHER_FAILURES>")
        L += ["-" * 60, "Root Cause (first observed failure):"]
        self.aout(n, te - 0.4, "\n".join(L))
        root_lines = self.failure_entry(0, root) + ["=" * 60]
        self.aout(n, te - 0.39, "\n".join(root_lines), "S%d" % root)
        if self.store_dead_t and n != 0 and te > self.store_dead_t:
            self.aout(n, te - 0.3, self.al(n, te - 0.3, "W", "distributed/elastic/rendezvous/dynamic_rendezvous.py", 1287,
                                           f"The node '{self.hosts[n]}_{self.agent_pid[n]}_0' has failed to shutdown the rendezvous '{self.rdzv_id}' due to an error of type RendezvousConnectionError."))
        return self.agent_rows(n)

    # ======================================================================
    #   Slurm / srun lines
    # ======================================================================
    def srun_lines(self, per_task="node"):
        """list of (t, text, node_or_None, rank_for_S or None)."""
        rng = self.rng
        L = []
        h0 = self.hosts[0]
        for t, n, msg in self.slurm_msgs:
            L.append((t, msg, n, None))
        if self.healthy or self.cause == "straggler":
            return L
        if self.cause == "preemption" and self.ext_kill:
            t = self.ext_kill[0]
            why = self.slurm_cancel_msg
            L.append((t - 0.3, f"slurmstepd: error: *** JOB {self.jobid} ON {h0} CANCELLED AT {self.f_iso(0, t - 0.3, 'T')} {why} ***", 0, None))
            L.append((t - 0.2, f"slurmstepd: error: *** STEP {self.jobid}.0 ON {h0} CANCELLED AT {self.f_iso(0, t - 0.2, 'T')} {why} ***", 0, None))
            L.append((t + 0.1, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.", None, None))
            L.append((t + 0.2, "srun: got SIGCONT", None, None))
            L.append((t + 0.3, "srun: forcing job termination", None, None))
            return L
        if self.vanished and self.cause == "unknown":
            n = min(self.vanished)
            t = self.t_fail + rng.uniform(60, 300)
            L.append((t, f"srun: error: Node failure on {self.hosts[n]}", None, None))
            L.append((t + 0.5, f"slurmstepd: error: *** JOB {self.jobid} ON {h0} CANCELLED AT {self.f_iso(0, t + 0.5, 'T')} DUE TO NODE FAILURE, SEE SLURMCTLD LOG FOR DETAILS ***", 0, None))
        # task exits
        word = {1: "Exited with exit code 1", -6: "Aborted (core dumped)", -11: "Segmentation fault (core dumped)",
                -9: "Killed", -15: "Terminated", -7: "Bus error (core dumped)"}
        if per_task == "node":
            for n in range(self.nnodes):
                ns = self.node_state[n]
                if n in self.vanished:
                    continue
                if ns.get("first") is not None and ns.get("exit"):
                    L.append((ns["exit"] + 0.2, f"srun: error: {self.hosts[n]}: task {n}: Exited with exit code 1", None, None))
                elif ns.get("ext") is not None and ns.get("exit"):
                    L.append((ns["exit"] + 0.2, f"srun: error: {self.hosts[n]}: task {n}: Exited with exit code 1", None, None))
        else:
            groups = {}
            for r, f in sorted(self.fates.items()):
                if not f or self.node(r) in self.vanished:
                    continue
                key = (self.node(r), f.code)
                groups.setdefault(key, []).append((r, f.t))
            for (n, code), lst in groups.items():
                rs = [x[0] for x in lst]
                tmax = max(x[1] for x in lst)
                if len(rs) == 1:
                    L.append((lst[0][1] + 0.3, f"srun: error: {self.hosts[n]}: task {rs[0]}: {word.get(code, 'Exited with exit code %d' % code)}", None, rs[0] if code not in (-15,) else None))
                else:
                    L.append((tmax + 0.3, f"srun: error: {self.hosts[n]}: tasks {self.ranges(rs)}: {word.get(code, 'Exited with exit code %d' % code)}", None, None))
        if self.job_kill_t:
            t = self.job_kill_t
            L.append((t - 0.1, f"srun: Terminating StepId={self.jobid}.0", None, None))
            L.append((t, f"slurmstepd: error: *** STEP {self.jobid}.0 ON {h0} CANCELLED AT {self.f_iso(0, t, 'T')} ***", 0, None))
        return L

    @staticmethod
    def ranges(xs):
        xs = sorted(xs)
        out, a, b = [], xs[0], xs[0]
        for x in xs[1:]:
            if x == b + 1:
                b = x
            else:
                out.append((a, b))
                a = b = x
        out.append((a, b))
        return ",".join(str(x) if x == y else f"{x}-{y}" for x, y in out)

    def sacct_text(self):
        st = self.slurm_state
        if not st:
            if self.healthy or (self.cause == "straggler" and not self.truncated_running):
                st = "COMPLETED"
            elif self.cause == "straggler":
                st = "RUNNING"
            elif self.cause == "host_oom_kill":
                st = "OUT_OF_MEMORY"
            elif self.job_kill_t:
                st = "FAILED"
            else:
                st = "FAILED"
        end = self.t_end
        el = int(end - self.t_launch)
        ec = {"COMPLETED": "0:0", "RUNNING": "0:0", "FAILED": "1:0", "OUT_OF_MEMORY": "0:125", "PREEMPTED": "0:15",
              "TIMEOUT": "0:0", "NODE_FAIL": "1:0"}[st]
        name = getattr(self, "slurm_jobname", "train")
        nl = getattr(self, "slurm_nodelist", self.hosts[0])
        stepst = {"PREEMPTED": "CANCELLED", "TIMEOUT": "CANCELLED", "OUT_OF_MEMORY": "OUT_OF_ME+"}.get(st, st)
        rows = [("JobID", "JobName", "Partition", "State", "ExitCode", "Elapsed", "NodeList"),
                ("-" * 12, "-" * 10, "-" * 10, "-" * 10, "-" * 8, "-" * 10, "-" * 15),
                (str(self.jobid), name[:10], "gpu", st[:10], ec, hms(el) if el < 86400 else f"{el // 86400}-{hms(el % 86400)}", nl[:15]),
                (f"{self.jobid}.batch", "batch", "", ("CANCELLED" if st in ("PREEMPTED", "TIMEOUT") else stepst)[:10], "0:15" if st in ("PREEMPTED", "TIMEOUT") else ec, hms(el), self.hosts[0][:15]),
                (f"{self.jobid}.extern", "extern", "", "COMPLETED" if st != "RUNNING" else "RUNNING", "0:0", hms(el), nl[:15]),
                (f"{self.jobid}.0", "torchrun" if self.stack != "megatron" and self.layout != "lightning_bundle" else "python", "", stepst[:10], ec if st != "PREEMPTED" else "0:15", hms(max(0, el - 20)), nl[:15])]
        if st == "RUNNING":
            rows[2] = rows[2][:5] + (hms(el),) + rows[2][6:]
        return "\n".join(f"{a:<12} {b:>10} {c:>10} {d:>10} {e:>8} {f:>10} {g:>15} " for a, b, c, d, e, f, g in rows) + "\n"

    # ======================================================================
    #   kernel log rendering
    # ======================================================================
    def dmesg_text(self, n, style=None):
        style = style or self.dmesg_style
        items = sorted(self.kern.get(n, []), key=lambda x: x[0])
        if self.truncated_running:
            items = [x for x in items if x[0] <= self.t_end]
        out = []
        boot = self.t_launch - self.boot[n]
        for t, text in items:
            for line in text.split("\n"):
                x = self.lt(n, t)
                if style == "T":
                    d = utc(x)
                    out.append(f"[{d:%a %b} {d.day:>2} {d:%H:%M:%S %Y}] {line}")
                elif style == "raw":
                    out.append(f"[{x - boot:12.6f}] {line}")
                else:
                    d = utc(x)
                    out.append(f"{d:%b %d %H:%M:%S} {self.hosts[n] if self.layout != 'k8s_pytorchjob' else self.k8s_nodes[n].split('.')[0]} kernel: {line}")
        self.seen_kern.add(n)
        return "\n".join(out) + "\n"

    # ======================================================================
    #   row collection / trimming
    # ======================================================================
    def cut_time(self, r):
        n = self.node(r)
        if n in self.vanished:
            return self.t_fail + 0.02
        if self.truncated_running:
            return self.t_end
        f = self.fates.get(r)
        return f.t + 0.5 if f else float("inf")

    def rank_rows(self, ranks, prefix=None, stream=None):
        out = []
        for r in ranks:
            self.materialize(r)
            cut = self.cut_time(r)
            p = prefix(r) if prefix else ""
            for t, s, text, kind, st in self.rl.get(r, []):
                if stream and st != stream:
                    continue
                if t > cut:
                    continue
                out.append((t, s, p + text, kind, r))
        return out

    def agent_rows_for(self, n):
        rows = []
        for t, s, text, kind, _ in self.agent_rows(n):
            if self.truncated_running and t > self.t_end:
                continue
            if kind.startswith("S"):
                rows.append((t, s, text, "S", int(kind[1:])))
            else:
                rows.append((t, s, text, "a", None))
        return rows

    def finish(self, rows, budget, keep=()):
        rows = sorted(rows, key=lambda x: (x[0], x[1]))
        size = sum(len(x[2]) + 1 for x in rows)
        drop = [False] * len(rows)
        keep = set(keep) | set(self.origin)
        if size > budget:
            # pass 1: collateral from ranks not kept
            for i, x in enumerate(rows):
                if x[3] == "c" and x[4] is not None and x[4] not in keep:
                    drop[i] = True
                    size -= len(x[2]) + 1
                    if size <= budget * 0.9:
                        break
        if size > budget:
            # pass 2: normal lines in the middle
            idx = [i for i, x in enumerate(rows) if x[3] == "n" and not drop[i]]
            lo, hi = len(idx) // 5, len(idx) - len(idx) // 4
            for i in idx[lo:hi]:
                drop[i] = True
                size -= len(rows[i][2]) + 1
                if size <= budget * 0.9:
                    break
        if size > budget:
            for i, x in enumerate(rows):
                if not drop[i] and x[3] in ("c", "n", "a") and (x[4] is None or x[4] not in self.origin):
                    drop[i] = True
                    size -= len(x[2]) + 1
                    if size <= budget * 0.85:
                        break
        out = []
        gap = 0
        for i, x in enumerate(rows):
            if drop[i]:
                gap += 1
                continue
            if gap:
                out.append(self.trim_marker.format(n=gap))
                gap = 0
            out.append(x[2])
            if x[3] == "k" and x[4] is not None:
                self.seen_key.add(x[4])
            if x[3] == "S" and x[4] is not None:
                self.seen_summary_root.add(x[4])
        if gap:
            out.append(self.trim_marker.format(n=gap))
        return "\n".join(out) + "\n"

    # ======================================================================
    #   Layouts
    # ======================================================================
    def render(self):
        rng = self.rng
        self.image = rng.choice(["nvcr.io/nvidia/pytorch:25.01-py3", "nvcr.io/nvidia/pytorch:25.03-py3", "nvcr.io/nvidia/pytorch:25.06-py3",
                                 "nvcr.io/nvidia/pytorch:25.09-py3", f"us-docker.pkg.dev/ml-infra/train/{self.stack}:2025.{rng.randrange(1, 12)}.{rng.randrange(0, 9)}"])
        self.rdzv_id = rng.choice([str(rng.randrange(100, 99999)), f"{self.model[0]}-{rng.randrange(1000, 9999)}", "none"])
        self.dmesg_style = rng.choice(["T", "raw", "journal"])
        self.trim_marker = rng.choice(["[... {n} lines trimmed ...]", "<<< snip: {n} lines >>>", "... ({n} more lines omitted) ...",
                                       "# --- {n} lines removed to fit the upload limit ---"])
        self.slurm_jobname = {"titan": f"titan-{self.model[0]}-{self.model[1].lower()}", "megatron": f"mcore-{self.model[0]}-{self.model[1].lower()}",
                              "lightning": "pl-mp-train", "tune": "tune"}[self.stack]
        files = getattr(self, "render_" + self.layout)()
        return files

    def add_artifacts(self, files, base, names=None):
        rng = self.rng
        for key, (text, ranks) in self.art.items():
            if key == "fr":
                files[f"{base}fr_trace_analysis.txt"] = text
            elif key == "ras":
                tt = utc(self.lt(0, (self.first_timeout[0] if self.first_timeout else self.t_fail) - rng.uniform(10, 60)))
                files[f"{base}ncclras_{tt:%Y%m%d-%H%M%S}.txt"] = f"$ ncclras\n" + text
            elif key.startswith("pyspy_"):
                r = int(key.split("_")[1])
                files[f"{base}py-spy-dump_rank{r}_{self.hosts[self.node(r)]}.txt"] = f"$ py-spy dump --pid {self.pids[r]}\n" + text
            self.seen_art.add(key)

    def env_echo(self):
        rng = self.rng
        L = []
        if self.expandable:
            L.append("PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True")
        if self.fr_enabled:
            L.append(("TORCH_FR_BUFFER_SIZE" if self.tminor >= 9 else "TORCH_NCCL_TRACE_BUFFER_SIZE") + "=2000")
        if self.fr_dump:
            L.append("TORCH_NCCL_DUMP_ON_TIMEOUT=1")
            L.append(f"TORCH_NCCL_DEBUG_INFO_TEMP_FILE={self.fr_dir}/nccl_trace_rank_")
        if self.nccl_info:
            L.append("NCCL_DEBUG=INFO")
            L.append("NCCL_DEBUG_SUBSYS=INIT,NET")
        if self.torch_logs:
            L.append(f"TORCH_LOGS={self.torch_logs}")
        if self.transport in ("IB", "RoCE"):
            L.append(f"NCCL_IB_HCA={','.join('mlx5_%d' % i for i in range(min(8, self.gpn)))}")
        if rng.random() < 0.5:
            L.append("CUDA_DEVICE_MAX_CONNECTIONS=1")
        if rng.random() < 0.4:
            L.append("TORCHINDUCTOR_FX_GRAPH_CACHE=1")
        return L

    def budget(self):
        return self.rng.randint(700_000, 880_000)

    # ---------------------------------------------------------------- titan_slurm
    def render_titan_slurm(self):
        rng = self.rng
        files = {}
        nn = self.nnodes
        if nn <= 8:
            show = list(range(nn))
        else:
            s = {0, nn - 1}
            if self.origin_node is not None:
                s.add(self.origin_node)
            order = sorted([(self.fates[ns["first"]].t, n) for n, ns in self.node_state.items() if ns.get("first") is not None])
            for _, n in order[:2]:
                s.add(n)
            while len(s) < min(nn, rng.randint(4, 7)):
                s.add(rng.randrange(nn))
            show = sorted(s)
        budget = self.budget() // max(1, len(show) + 1)
        for n in show:
            r0 = n * self.gpn
            if self.titan_filter:
                rows = self.rank_rows([r0], prefix=lambda r: "[rank0]:")
            else:
                rows = self.rank_rows(list(range(r0, r0 + self.gpn)), prefix=lambda r: f"[rank{self.lr(r)}]:")
            rows += self.agent_rows_for(n)
            for t, msg, nd, _ in self.srun_lines():
                if nd == n and msg.startswith("slurmstepd: error: Detected"):
                    rows.append((t, 0, msg, "a", None))
                    self.seen_node_ev.add(n)
            files[f"logs/{self.slurm_jobname}-{self.jobid}-{self.hosts[n]}.out"] = self.finish(rows, budget, keep={r0})
        # main sbatch output
        t0 = self.t_launch
        head = [f"+ export {e}" for e in self.env_echo()]
        head += [f"Nodes: {self.slurm_nodelist}", f"Head node: {self.hosts[0]} ({self.ips[0]})",
                 f"START TIME: {utc(t0).strftime('%a %b %d %H:%M:%S UTC %Y')}",
                 f"+ srun --kill-on-bad-exit={1 if self.kill_on_bad_exit else 0} --output=logs/%x-%j-%N.out torchrun --nnodes {nn} --nproc_per_node {self.gpn} --rdzv_id {self.rdzv_id} --rdzv_backend c10d --rdzv_endpoint {self.hosts[0]}:29500 {'--local-ranks-filter 0 ' if self.titan_filter else ''}--role rank --tee 3 -m torchtitan.train --job.config_file ./torchtitan/models/{self.model[0]}/train_configs/{self.model[0]}_{self.model[1].lower()}.toml"]
        rows = [(t0 - 1 + i * 0.001, i, x, "a", None) for i, x in enumerate(head)]
        for t, msg, nd, rr in self.srun_lines():
            rows.append((t, 0, msg, "S" if rr is not None else "a", rr))
        if self.completes_run():
            rows.append((self.t_end + 2, 0, f"END TIME: {utc(self.t_end + 2).strftime('%a %b %d %H:%M:%S UTC %Y')}", "a", None))
        files[f"slurm-{self.jobid}.out"] = self.finish(rows, 200_000)
        if rng.random() < 0.55 or self.cause in ("preemption", "host_oom_kill"):
            files[f"sacct-{self.jobid}.txt"] = f"$ sacct -j {self.jobid} --format=JobID,JobName,Partition,State,ExitCode,Elapsed,NodeList\n" + self.sacct_text()
        self.add_node_diag(files, "diag/")
        self.add_artifacts(files, "diag/")
        return files

    def add_node_diag(self, files, base):
        rng = self.rng
        for n in sorted(self.want_dmesg | self.force_diag):
            p = 0.9 if self.cause in ("gpu_hardware", "ecc_memory", "nvlink", "host_oom_kill") else 0.7
            if self.layout in ("tune_local",) or n in self.force_diag or rng.random() < p:
                host = self.hosts[n] if self.layout != "k8s_pytorchjob" else self.k8s_nodes[n].split(".")[0]
                files[f"{base}dmesg-{host}.txt"] = self.dmesg_text(n)
        for n, text in sorted(self.nvsmi.items()):
            if n in self.force_nvsmi or rng.random() < 0.8:
                host = self.hosts[n] if self.layout != "k8s_pytorchjob" else self.k8s_nodes[n].split(".")[0]
                cmd = "nvidia-smi -q" if "NVSMI LOG" in text else "nvidia-smi"
                files[f"{base}nvidia-smi-{host}.txt"] = f"$ {cmd}\n" + text
                self.seen_node_ev.add(n)
        # a healthy node's dmesg sometimes attached as a decoy
        if rng.random() < 0.25 and self.nnodes > 1:
            n = rng.randrange(self.nnodes)
            if n not in self.want_dmesg:
                host = self.hosts[n] if self.layout != "k8s_pytorchjob" else self.k8s_nodes[n].split(".")[0]
                saved = set(self.seen_kern)
                files[f"{base}dmesg-{host}.txt"] = self.dmesg_text(n)
                self.seen_kern = saved | ({n} if self.kern_evidence(n) else set())

    def kern_evidence(self, n):
        return n in self.want_dmesg

    def completes_run(self):
        return self.healthy or (self.cause == "straggler" and not self.truncated_running)

    # ---------------------------------------------------------------- torchrun_logdir
    def render_torchrun_logdir(self):
        rng = self.rng
        files = {}
        logroot = f"logs/{self.rdzv_id}"
        W = self.world
        budget = self.budget()
        per = budget // (W * 3 + self.nnodes * 4 + 2)
        for n in range(self.nnodes):
            h = self.hosts[n]
            rows = self.agent_rows_for(n)
            for t, msg, nd, _ in self.srun_lines() if self.cause == "preemption" and self.ext_kill else []:
                if nd == 0 or nd is None:
                    rows.append((t, 0, msg, "a", None))
            cmd = (f"+ torchrun --nnodes={self.nnodes} --nproc-per-node={self.gpn} --rdzv-backend=c10d --rdzv-endpoint={self.hosts[0]}:29400 "
                   f"--rdzv-id={self.rdzv_id} --log-dir={logroot} --redirects=3 {self.script}" + (" --job.config_file train.toml" if self.stack == "titan" else ""))
            rows.insert(0, (self.t_launch - 0.5, 0, cmd, "a", None))
            files[f"{h}/torchrun_console.log"] = self.finish(rows, per * 4)
            sub = f"{h}/{logroot}/{self.rdzv_id}_{self.elastic_tag(n, 2)}/attempt_0"
            for lr in range(self.gpn):
                r = n * self.gpn + lr
                files[f"{sub}/{lr}/stdout.log"] = self.finish(self.rank_rows([r], stream="out"), per, keep={r})
                files[f"{sub}/{lr}/stderr.log"] = self.finish(self.rank_rows([r], stream="err"), per * 2, keep={r})
                f = self.fates.get(r)
                if f and f.code == 1 and r in self.error_json and not self.no_record:
                    exc, frames = self.error_json[r]
                    tbt = self.tb(r, frames, exc, prefix=False, carets=False)
                    files[f"{sub}/{lr}/error.json"] = json.dumps({"message": {"message": exc.split("\n")[0], "extraInfo": {"py_callstack": tbt + "\n", "timestamp": str(int(f.t))}}}) + "\n"
                    self.seen_key.add(r)
        if rng.random() < 0.35 or (self.cause == "preemption"):
            files["sacct.txt"] = f"$ sacct -j {self.jobid}\n" + self.sacct_text()
        self.add_node_diag(files, "node_diag/")
        self.add_artifacts(files, "debug/")
        return files

    # ---------------------------------------------------------------- k8s
    def render_k8s_pytorchjob(self):
        rng = self.rng
        files = {}
        nn = self.nnodes
        s = {0}
        if self.origin_node is not None:
            s.add(self.origin_node)
        order = sorted([(self.fates[ns["first"]].t, n) for n, ns in self.node_state.items() if ns.get("first") is not None and self.fates.get(ns["first"])])
        for _, n in order[:2]:
            s.add(n)
        while len(s) < min(nn, rng.randint(2, 5)):
            s.add(rng.randrange(nn))
        show = sorted(s)
        budget = self.budget() // (len(show) + 1)
        for n in show:
            ranks = list(range(n * self.gpn, (n + 1) * self.gpn))
            rows = self.rank_rows(ranks) + self.agent_rows_for(n)
            files[f"pods/{self.hosts[n]}.log"] = self.finish(rows, budget, keep={n * self.gpn})
        # pod status / events / describe
        files["kubectl_get_pods.txt"] = self.k8s_pods()
        files["events.txt"] = self.k8s_events()
        for n in self.k8s_describe_nodes():
            files[f"describe_{self.hosts[n]}.txt"] = self.k8s_describe(n)
        self.add_node_diag(files, "node_diag/")
        self.add_artifacts(files, "debug/")
        return files

    def pod_status(self, n):
        if self.healthy or (self.cause == "straggler" and not self.truncated_running):
            return "Completed", 0, "Completed"
        if self.cause == "straggler":
            return "Running", None, None
        if n == self.k8s_oom_pod:
            return "OOMKilled", 137, "OOMKilled"
        if n == self.preempt_node:
            return "Error", 143, "Terminated"
        if n in self.vanished:
            return "Unknown", None, None
        ns = self.node_state[n]
        if ns.get("first") is not None:
            return "Error", 1, "Error"
        if ns.get("ext") is not None:
            return "Error", 143, "Error"
        return "Running", None, None

    def k8s_pods(self):
        L = ["NAME" + " " * 36 + "READY   STATUS      RESTARTS   AGE"]
        age = self.t_end - self.t_launch + self.rng.uniform(60, 900)
        for n in range(self.nnodes):
            st, _, _ = self.pod_status(n)
            L.append(f"{self.hosts[n]:<40}{'1/1' if st == 'Running' else '0/1':<8}{st:<12}{0:<11}{self.k8s_age(age)}")
        return "$ kubectl get pods -l training.kubeflow.org/job-name=" + self.jobname + "\n" + "\n".join(L) + "\n"

    @staticmethod
    def k8s_age(sec):
        sec = int(sec)
        if sec < 3600:
            return f"{sec // 60}m{sec % 60}s" if sec < 600 else f"{sec // 60}m"
        if sec < 86400:
            return f"{sec // 3600}h{(sec % 3600) // 60}m"
        return f"{sec // 86400}d{(sec % 86400) // 3600}h"

    def k8s_describe_nodes(self):
        out = set()
        for n in range(self.nnodes):
            st, _, _ = self.pod_status(n)
            if st in ("OOMKilled",) or n == self.preempt_node:
                out.add(n)
        firsts = sorted([(self.fates[ns["first"]].t, n) for n, ns in self.node_state.items() if ns.get("first") is not None and self.fates.get(ns["first"])])
        if firsts:
            out.add(firsts[0][1])
        if self.rng.random() < 0.4:
            out.add(0)
        return sorted(out)

    def k8s_describe(self, n):
        rng = self.rng
        st, code, reason = self.pod_status(n)
        start = utc(self.t_launch - rng.uniform(20, 90))
        fin = self.t_end
        ns = self.node_state.get(n, {})
        if ns.get("exit"):
            fin = ns["exit"]
        if n in self.vanished and self.fates.get(n * self.gpn):
            fin = self.fates[n * self.gpn].t
        if n == self.preempt_node:
            fin = self.t_fail + rng.uniform(5, 25)
        L = [f"Name:             {self.hosts[n]}", "Namespace:        training", "Priority:         0",
             "Service Account:  default", f"Node:             {self.k8s_nodes[n]}/{self.ips[n]}",
             f"Start Time:       {start.strftime('%a, %d %b %Y %H:%M:%S +0000')}",
             f"Labels:           training.kubeflow.org/job-name={self.jobname}",
             "                  training.kubeflow.org/operator-name=pytorchjob-controller",
             f"                  training.kubeflow.org/replica-index={0 if n == 0 else n - 1}",
             f"                  training.kubeflow.org/replica-type={'master' if n == 0 else 'worker'}",
             f"Status:           {'Failed' if st not in ('Running', 'Completed') else ('Succeeded' if st == 'Completed' else 'Running')}"]
        if n == self.preempt_node:
            L += ["Reason:           Terminated", "Message:          Pod was terminated in response to imminent node shutdown."]
            self.seen_node_ev.add(n)
        L += [f"IP:               {self.ips[n]}", "Containers:", "  pytorch:",
              f"    Image:         {self.image}",
              "    Command:", "      torchrun", f"      --nnodes={self.nnodes}", f"      --nproc-per-node={self.gpn}",
              f"      {self.script}"]
        if reason:
            L += [f"    State:          Terminated", f"      Reason:       {reason}", f"      Exit Code:    {code}",
                  f"      Started:      {start.strftime('%a, %d %b %Y %H:%M:%S +0000')}",
                  f"      Finished:     {utc(fin).strftime('%a, %d %b %Y %H:%M:%S +0000')}"]
            if reason == "OOMKilled":
                self.seen_node_ev.add(n)
        else:
            L += ["    State:          Running", f"      Started:      {start.strftime('%a, %d %b %Y %H:%M:%S +0000')}"]
        L += ["    Ready:          False" if reason else "    Ready:          True", "    Restart Count:  0", "    Limits:",
              f"      cpu:             {rng.choice([88, 96, 180])}", f"      memory:          {rng.choice([900, 1600, 1800])}Gi",
              f"      nvidia.com/gpu:  {self.gpn}", "    Environment:"]
        for e in self.env_echo():
            k, v = e.split("=", 1)
            L.append(f"      {k}:  {v}")
        L += ["Conditions:", "  Type              Status", "  Initialized       True", f"  Ready             {'False' if reason else 'True'}",
              "Events:          <none>" if rng.random() < 0.6 else "Events:\n  Type    Reason   Age   From     Message\n  ----    ------   ----  ----     -------\n  Normal  Killing  2m    kubelet  Stopping container pytorch"]
        return f"$ kubectl describe pod {self.hosts[n]}\n" + "\n".join(L) + "\n"

    def k8s_events(self):
        rng = self.rng
        now = self.t_end + rng.uniform(60, 600)
        ev = []
        for n in range(self.nnodes):
            t = self.t_launch - rng.uniform(15, 60)
            ev.append((t, "Normal", "Scheduled", f"pod/{self.hosts[n]}", f"Successfully assigned training/{self.hosts[n]} to {self.k8s_nodes[n]}"))
            ev.append((t + 2, "Normal", "Pulled", f"pod/{self.hosts[n]}", f"Container image \"{self.image}\" already present on machine"))
            ev.append((t + 3, "Normal", "Created", f"pod/{self.hosts[n]}", "Created container: pytorch"))
            ev.append((t + 4, "Normal", "Started", f"pod/{self.hosts[n]}", "Started container pytorch"))
        if self.preempt_node is not None:
            n = self.preempt_node
            ev.append((self.t_fail - 25, "Warning", "NodeShutdown", f"node/{self.k8s_nodes[n]}", "Shutdown manager detected shutdown event"))
            ev.append((self.t_fail - 0.5, "Normal", "Killing", f"pod/{self.hosts[n]}", "Stopping container pytorch"))
            ev.append((self.t_fail + 40, "Normal", "NodeNotReady", f"node/{self.k8s_nodes[n]}", f"Node {self.k8s_nodes[n]} status is now: NodeNotReady"))
            self.seen_node_ev.add(n)
        if self.vanished and self.cause == "unknown":
            n = min(self.vanished)
            ev.append((self.t_fail + 45, "Normal", "NodeNotReady", f"node/{self.k8s_nodes[n]}", f"Node {self.k8s_nodes[n]} status is now: NodeNotReady"))
            ev.append((self.t_fail + 50, "Warning", "NodeNotReady", f"pod/{self.hosts[n]}", "Node is not ready"))
            self.seen_node_ev.add(n)
        failed = [n for n in range(self.nnodes) if self.pod_status(n)[0] in ("Error", "OOMKilled")]
        for n in failed:
            st, code, _ = self.pod_status(n)
            ns = self.node_state.get(n, {})
            t = ns.get("exit") or self.t_fail + 1
            if n in self.vanished and self.fates.get(n * self.gpn):
                t = self.fates[n * self.gpn].t
            ev.append((t + 1, "Normal", "ExitedWithCode", f"pytorchjob/{self.jobname}", f"Pod: training.{self.hosts[n]} exited with code {code}"))
        if failed:
            t0 = min((self.node_state[n].get("exit") or self.t_fail) for n in failed) + 2
            first_failed = min(failed, key=lambda n: (self.node_state[n].get("exit") or self.t_fail))
            who = "1 Worker replica(s)" if first_failed > 0 else "1 Master replica(s)"
            ev.append((t0, "Warning", "PyTorchJobFailed", f"pytorchjob/{self.jobname}", f"PyTorchJob training/{self.jobname} is failed because {who} failed."))
        if self.completes_run():
            ev.append((self.t_end, "Normal", "PyTorchJobSucceeded", f"pytorchjob/{self.jobname}", f"PyTorchJob training/{self.jobname} successfully completed."))
        ev.sort()
        L = ["LAST SEEN   TYPE      REASON                   OBJECT                                              MESSAGE"]
        for t, ty, rs, obj, msg in ev:
            if now - t > 3600 * 3 and rs in ("Scheduled", "Pulled", "Created", "Started"):
                continue
            L.append(f"{self.k8s_age(max(1, now - t)):<12}{ty:<10}{rs:<25}{obj:<52}{msg}")
        if len(L) == 1:
            L.append("No events found (events older than 1h are garbage-collected).")
        return "$ kubectl get events --sort-by=.lastTimestamp\n" + "\n".join(L) + "\n"

    # ---------------------------------------------------------------- tune_local
    def render_tune_local(self):
        rng = self.rng
        files = {}
        cfg = rng.choice([f"{self.model[0]}/{self.model[1]}_full", f"./configs/{self.model[0]}_{self.model[1].lower()}_full.yaml"])
        rows = [(self.t_launch - 1, 0, f"$ tune run --nproc_per_node {self.gpn} full_finetune_distributed --config {cfg}", "a", None),
                (self.t_launch - 0.9, 1, "Running with torchrun...", "a", None)]
        rows += self.agent_rows_for(0)
        rows += self.rank_rows(list(range(self.world)))
        files["tune_run.log"] = self.finish(rows, self.budget())
        self.add_node_diag(files, "")
        if "dmesg-" + self.hosts[0] + ".txt" in files:
            files["dmesg.txt"] = files.pop("dmesg-" + self.hosts[0] + ".txt")
        if "nvidia-smi-" + self.hosts[0] + ".txt" in files:
            files["nvidia-smi.txt"] = files.pop("nvidia-smi-" + self.hosts[0] + ".txt")
        self.add_artifacts(files, "")
        return files

    # ---------------------------------------------------------------- megatron_srun
    def render_megatron_srun(self):
        rng = self.rng
        files = {}
        w = len(str(self.world - 1))
        rows = self.rank_rows(list(range(self.world)), prefix=lambda r: f"{r:>{w}}: ")
        for t, msg, nd, rr in self.srun_lines(per_task="rank"):
            rows.append((t, 0, msg, "S" if rr is not None else "a", rr))
        head = [f"+ export {e}" for e in self.env_echo()]
        head.append(f"+ srun -l --kill-on-bad-exit={1 if self.kill_on_bad_exit else 0} --ntasks-per-node={self.gpn} --cpu-bind=none python -u {self.script} --tensor-model-parallel-size {self.dimsize['tp']} --pipeline-model-parallel-size {self.dimsize['pp']} --context-parallel-size {self.dimsize['cp']} --use-mcore-models --use-distributed-optimizer --overlap-grad-reduce --overlap-param-gather --bf16 ...")
        rows += [(self.t_launch - 1 + i * 0.001, i, x, "a", None) for i, x in enumerate(head)]
        keep = {0, self.world - 1}
        files[f"{self.slurm_jobname}_{self.jobid}.out"] = self.finish(rows, self.budget(), keep=keep)
        if rng.random() < 0.5 or self.cause in ("preemption", "host_oom_kill"):
            files[f"sacct_{self.jobid}.txt"] = f"$ sacct -j {self.jobid} -o JobID,JobName,Partition,State,ExitCode,Elapsed,NodeList\n" + self.sacct_text()
        self.add_node_diag(files, "node_logs/")
        self.add_artifacts(files, "node_logs/")
        return files

    # ---------------------------------------------------------------- lightning_bundle
    def render_lightning_bundle(self):
        rng = self.rng
        files = {}
        rows = self.rank_rows(list(range(self.world)))
        for t, msg, nd, rr in self.srun_lines(per_task="rank"):
            rows.append((t, 0, msg, "S" if rr is not None else "a", rr))
        head = [f"+ export {e}" for e in self.env_echo()]
        head.append(f"+ srun --ntasks-per-node={self.gpn} --kill-on-bad-exit={1 if self.kill_on_bad_exit else 0} python {self.script} --strategy model_parallel --tp {self.dimsize.get('tensor_parallel', 1)} --compile {str(self.compile).lower()}")
        rows += [(self.t_launch - 1 + i * 0.001, i, x, "a", None) for i, x in enumerate(head)]
        files[f"slurm-{self.jobid}.out"] = self.finish(rows, self.budget(), keep={0})
        if rng.random() < 0.4 or self.cause == "preemption":
            files["sacct.txt"] = f"$ sacct -j {self.jobid}\n" + self.sacct_text()
        self.add_node_diag(files, "debug/")
        self.add_artifacts(files, "debug/")
        return files

    # ======================================================================
    #   truth
    # ======================================================================
    def truth(self):
        if self.healthy:
            return {"healthy": True, "cause": None, "initiator": None, "layout": self.layout,
                    "notes": " ".join(self.notes) + f" Stack: {self.stack}, {self.world} ranks on {self.nnodes} node(s), mesh {self.dims}."}
        kind = self.init_kind
        rank = node = None
        art_names = set()
        for k in self.seen_art:
            if k in self.art:
                art_names |= set(self.art[k][1])
        if kind == "rank" and self.origin:
            r = self.origin[0]
            rank_ok = (r in self.seen_key or r in art_names or (r in self.seen_summary_root and self.summary_identifies_now()))
            if self.cause == "straggler" and self.stack == "megatron" and self.mg_straggler:
                rank_ok = True
            if rank_ok:
                rank = r
                node = self.hosts[self.node(r)]
            elif self.origin_node in self.seen_kern or self.origin_node in self.seen_node_ev:
                node = self.hosts[self.origin_node]
        elif kind == "node" and self.origin_node is not None:
            n = self.origin_node
            ok = n in self.seen_kern or n in self.seen_node_ev or any(q in self.seen_key for q in self.origin) or bool(set(self.origin) & art_names)
            if self.cause == "network":
                ok = n in self.seen_kern or (self.nccl_info and bool(self.seen_key))
            if self.cause == "unknown" and self.variant == "node_vanish":
                ok = True
            if ok:
                node = self.hosts[n]
        init = None if (rank is None and node is None) else {"rank": rank, "node": node}
        notes = " ".join(self.notes)
        notes += f" Stack: {self.stack} ({self.torch_ver}, NCCL {self.nccl_ver}), {self.world} ranks on {self.nnodes} node(s), mesh {self.dims}."
        if init is None and kind != "none":
            notes += " Initiator not establishable from the collected files."
        return {"healthy": False, "cause": self.cause, "initiator": init, "layout": self.layout, "notes": notes}

    def summary_identifies_now(self):
        return self.cause not in ("hang", "data_loader_stall", "collective_mismatch", "straggler")


# ---------------------------------------------------------------------------
def main(argv=None):
    ap = argparse.ArgumentParser(description="blind58 synthetic log-bundle generator")
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--seed", default="1")
    a = ap.parse_args(argv)
    seed = str(a.seed)
    os.makedirs(a.out, exist_ok=True)
    order = CAUSES[:]
    random.Random(f"blind58|{seed}|order").shuffle(order)
    lrng = random.Random(f"blind58|{seed}|layouts")
    queues = {}
    hq = []
    counts = {c: 0 for c in CAUSES}
    counts["healthy"] = 0
    k = 0
    for i in range(a.n):
        if i % 7 == 3:
            cause = None
            if not hq:
                hq = LAYOUTS[:]
                lrng.shuffle(hq)
            layout = hq.pop()
        else:
            cause = order[k % len(order)]
            k += 1
            q = queues.setdefault(cause, [])
            if not q:
                q.extend([l for l in LAYOUTS if cause not in UNSUPPORTED.get(l, set())])
                lrng.shuffle(q)
            layout = q.pop()
        run = Run(seed, i, cause, layout)
        run.build()
        files = run.render()
        truth = run.truth()
        d = os.path.join(a.out, f"run-{i:03d}-{layout}")
        if os.path.isdir(d):
            for root, dirs, fs in os.walk(d, topdown=False):
                for f in fs:
                    os.remove(os.path.join(root, f))
                for dd in dirs:
                    os.rmdir(os.path.join(root, dd))
        os.makedirs(d, exist_ok=True)
        for rel in sorted(files):
            p = os.path.join(d, rel)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "w", encoding="utf-8") as fh:
                fh.write(files[rel])
        with open(os.path.join(d, "truth.json"), "w", encoding="utf-8") as fh:
            json.dump(truth, fh, indent=2)
            fh.write("\n")
        counts["healthy" if cause is None else cause] += 1
    print(json.dumps(counts, indent=None))


if __name__ == "__main__":
    main()
