#!/usr/bin/env python3
"""blind66 - "hangs and stalls that print almost nothing".

Synthetic log bundles of distributed training jobs (DDP / FSDP / DeepSpeed / Megatron /
HF Trainer / Lightning under torchrun, Slurm srun, Kubernetes, pdsh) that stop making
progress without a clear error, plus what the operator attached afterwards: the last step
lines, silence, watchdog timeouts (or none), py-spy / faulthandler / pystack / gdb stacks,
nvidia-smi, top/ps, dmesg, Flight Recorder summaries, launcher summaries and the user's own
words.

    python3 gen_blind66.py --out DIR --n 60 --seed S

Standard library only; deterministic per seed.
"""
import argparse
import json
import os
import random
import shutil
import sys
from collections import Counter
from datetime import datetime, timedelta

CAUSES = ["gpu_hardware", "ecc_memory", "nvlink", "network", "cuda_oom",
          "illegal_memory_access", "python_exception", "host_oom_kill", "crash_signal",
          "preemption", "hang", "data_loader_stall", "collective_mismatch", "straggler",
          "unknown"]

LAYOUTS = ["slurm", "torchrun_logdir", "k8s_pods", "deepspeed_pdsh", "paste"]

# layouts a cause may be drawn into (all causes work in all layouts except where noted)
CAUSE_LAYOUTS = {
    "preemption": ["slurm", "k8s_pods", "paste", "torchrun_logdir"],
}

MAX_RUN_BYTES = 900_000

# --------------------------------------------------------------------------------------
# small helpers
# --------------------------------------------------------------------------------------


def fmt_int(n):
    return f"{n:,}"


def hexaddr(rng, hi="7f"):
    return "0x" + hi + "".join(rng.choice("0123456789abcdef") for _ in range(10))


def rand_hex(rng, n):
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


def compress_nodelist(hosts):
    """Slurm style host list: gpu-a100-[017-019,031]."""
    import re
    groups = {}
    order = []
    for h in hosts:
        m = re.match(r"^(.*?)(\d+)$", h)
        if not m:
            key = (h, None)
            groups.setdefault(key, []).append(None)
            order.append(key)
            continue
        pre, num = m.group(1), m.group(2)
        key = (pre, len(num))
        if key not in groups:
            order.append(key)
        groups.setdefault(key, []).append(int(num))
    parts = []
    seen = set()
    for key in order:
        if key in seen:
            continue
        seen.add(key)
        pre, width = key
        if width is None:
            parts.append(pre)
            continue
        nums = sorted(groups[key])
        if len(nums) == 1:
            parts.append(f"{pre}{nums[0]:0{width}d}")
            continue
        ranges = []
        a = b = nums[0]
        for x in nums[1:]:
            if x == b + 1:
                b = x
            else:
                ranges.append((a, b))
                a = b = x
        ranges.append((a, b))
        inner = ",".join(f"{a:0{width}d}" if a == b else f"{a:0{width}d}-{b:0{width}d}"
                         for a, b in ranges)
        parts.append(f"{pre}[{inner}]")
    return ",".join(parts)


def rank_range_str(ranks):
    ranks = sorted(ranks)
    if not ranks:
        return ""
    out = []
    a = b = ranks[0]
    for x in ranks[1:]:
        if x == b + 1:
            b = x
        else:
            out.append(str(a) if a == b else f"{a}-{b}")
            a = b = x
    out.append(str(a) if a == b else f"{a}-{b}")
    return ",".join(out)


# --------------------------------------------------------------------------------------
# documents with tagged lines (to know which key lines survive trimming)
# --------------------------------------------------------------------------------------


class Doc:
    def __init__(self, path):
        self.path = path
        self.lines = []  # [text, tags]

    def add(self, text, *tags):
        for part in str(text).split("\n"):
            self.lines.append([part, tags])

    def extend(self, lines):
        for t, tags in lines:
            self.lines.append([t, tags])

    def size(self):
        return sum(len(t) + 1 for t, _ in self.lines)

    def cut(self, start, end, marker):
        """remove lines[start:end] and put one marker line there."""
        start = max(0, start)
        end = min(len(self.lines), end)
        if end - start <= 1:
            return
        n = end - start
        self.lines[start:end] = [[marker.format(n=fmt_int(n), raw=n), ()]]

    def render(self):
        return "\n".join(t for t, _ in self.lines) + ("\n" if self.lines else "")


TRIM_MARKERS = [
    "[... {n} lines omitted ...]",
    "... <{n} lines snipped> ...",
    "[truncated {n} lines]",
    "-- {n} more lines --",
    "<... trimmed: {n} lines ...>",
    "(... {n} similar lines removed ...)",
]

# --------------------------------------------------------------------------------------
# hosts, hardware, software versions
# --------------------------------------------------------------------------------------

PLATFORMS = [
    dict(name="NVIDIA H100 80GB HBM3", short="H100",
         bus=[("18", "00"), ("2a", "00"), ("3a", "00"), ("5d", "00"), ("9a", "00"),
              ("ab", "00"), ("ba", "00"), ("db", "00")], mem=81559, pwr=700, idle=68),
    dict(name="NVIDIA H100 80GB HBM3", short="H100",
         bus=[("1b", "00"), ("43", "00"), ("52", "00"), ("61", "00"), ("9d", "00"),
              ("c3", "00"), ("d1", "00"), ("df", "00")], mem=81559, pwr=700, idle=71),
    dict(name="NVIDIA A100-SXM4-80GB", short="A100",
         bus=[("07", "00"), ("0f", "00"), ("47", "00"), ("4e", "00"), ("87", "00"),
              ("90", "00"), ("b7", "00"), ("bd", "00")], mem=81920, pwr=400, idle=58),
    dict(name="NVIDIA A100-SXM4-40GB", short="A100",
         bus=[("10", "1c"), ("10", "1d"), ("20", "1c"), ("20", "1d"), ("90", "1c"),
              ("90", "1d"), ("a0", "1c"), ("a0", "1d")], mem=40960, pwr=400, idle=52),
    dict(name="NVIDIA H200", short="H200",
         bus=[("19", "00"), ("3b", "00"), ("4c", "00"), ("5d", "00"), ("9b", "00"),
              ("bb", "00"), ("cb", "00"), ("db", "00")], mem=143771, pwr=700, idle=75),
]

DRIVERS = [("535.129.03", "12.2"), ("535.183.01", "12.2"), ("550.54.15", "12.4"),
           ("550.90.07", "12.4"), ("560.35.03", "12.6"), ("570.124.06", "12.8"),
           ("570.133.20", "12.8")]

ERAS = {
    "2.1": dict(torch="2.1.2", nccl="2.18.1", cuda="12.1", py="3.10.12"),
    "2.3": dict(torch="2.3.1", nccl="2.20.5", cuda="12.1", py="3.10.14"),
    "2.4": dict(torch="2.4.1", nccl="2.20.5", cuda="12.4", py="3.11.9"),
    "2.5": dict(torch="2.5.1", nccl="2.21.5", cuda="12.4", py="3.11.10"),
    "2.6": dict(torch="2.6.0", nccl="2.21.5", cuda="12.6", py="3.12.8"),
    "2.7": dict(torch="2.7.1", nccl="2.26.2", cuda="12.8", py="3.12.10"),
}
ERA_ORDER = ["2.1", "2.3", "2.4", "2.5", "2.6", "2.7"]

# ProcessGroupNCCL.cpp line numbers per era: wd, exc, timeoutat, some, avoid, term
PGL = {
    "2.1": dict(wd=475, some=489, avoid=495, term=916, hb=None),
    "2.3": dict(wd=563, tat=1537, some=577, avoid=583, term=1414, hb=1266),
    "2.4": dict(wd=607, exc=1664, tat=1709, some=621, avoid=627, term=1587, hb=1375),
    "2.5": dict(wd=616, exc=1785, tat=1834, some=630, avoid=636, term=1601, hb=1423),
    "2.6": dict(wd=632, exc=1808, tat=1860, some=646, avoid=652, term=1638, hb=1446),
    "2.7": dict(wd=668, exc=2167, tat=2199, some=682, avoid=688, term=1938, hb=1531),
}


def make_hosts(rng, n, style):
    """n distinct host names in one naming family."""
    if style == "k8s":
        fam = rng.choice(["gke", "aks", "eks", "ocp"])
        if fam == "gke":
            pool = rng.choice(["a3mega", "a3-highgpu", "h100-spot", "train-a3"])
            clus = rng.choice(["llm", "research", "ml-prod", "pretrain"])
            hosts = []
            for _ in range(n):
                hosts.append(f"gke-{clus}-{pool}-pool-{rand_hex(rng, 8)}-{rand_hex(rng, 4)}")
            return hosts
        if fam == "aks":
            base = rng.randint(0, 40)
            tag = rng.randint(10000000, 99999999)
            return [f"aks-gpupool-{tag}-vmss{base + i:06x}" for i in range(n)]
        if fam == "eks":
            a = rng.choice([10, 172])
            b = rng.randint(0, 31)
            out, seen = [], set()
            while len(out) < n:
                h = f"ip-{a}-{b}-{rng.randint(0, 255)}-{rng.randint(2, 254)}.ec2.internal"
                if h not in seen:
                    seen.add(h)
                    out.append(h)
            return out
        base = rng.randint(1, 60)
        return [f"gpu-worker-{base + i:02d}.ocp.corp.local" for i in range(n)]
    fam = rng.choice(["gpua", "dgx", "hgx", "nid", "cn", "rackslot", "ipaws", "sh", "a3u",
                      "jz", "fqdn"])
    start = rng.randint(1, 300)
    step_gap = rng.random() < 0.35

    def nums():
        x = start
        out = []
        for _ in range(n):
            out.append(x)
            x += 1 + (rng.choice([0, 0, 0, 1, 2, 5]) if step_gap else 0)
        return out

    ns = nums()
    if fam == "gpua":
        pre = rng.choice(["gpu-a100-", "gpu-h100-", "g-h100-", "gpu"])
        return [f"{pre}{x:03d}" for x in ns]
    if fam == "dgx":
        pre = rng.choice(["dgx-h100-", "dgx", "dgxa100-", "sdgx-"])
        return [f"{pre}{x:03d}" for x in ns]
    if fam == "hgx":
        rack = rng.randint(1, 24)
        out = []
        for i in range(n):
            r = rack + (i // 8)
            out.append(f"hgx-r{r:02d}-n{(i % 8) + 1:02d}")
        return out
    if fam == "nid":
        return [f"nid{x + 5000:06d}" for x in ns]
    if fam == "cn":
        return [f"cn{x:04d}" for x in ns]
    if fam == "rackslot":
        out = []
        r = rng.randint(3, 30)
        for i in range(n):
            out.append(f"r{r + i // 4}u{(i % 4) * 8 + 4:02d}")
        return out
    if fam == "ipaws":
        b = rng.randint(0, 15)
        out, seen = [], set()
        while len(out) < n:
            h = f"ip-10-{b}-{rng.randint(0, 255)}-{rng.randint(2, 254)}"
            if h not in seen:
                seen.add(h)
                out.append(h)
        return out
    if fam == "sh":
        g = rng.randint(1, 20)
        return [f"sh{g:02d}-{12 + x // 16:02d}n{x % 16 + 1:02d}" for x in range(start, start + n)]
    if fam == "a3u":
        return [f"a3u-{x:04d}" for x in ns]
    if fam == "jz":
        return [f"jean-zay-iam{x:02d}" if x < 100 else f"jzxh{x:03d}" for x in ns]
    dom = rng.choice(["cluster.local", "hpc.example.edu", "ai.internal"])
    return [f"node{x:03d}.{dom}" for x in ns]


def short(host):
    return host.split(".")[0]


# --------------------------------------------------------------------------------------
# the run context
# --------------------------------------------------------------------------------------


class Ev:
    __slots__ = ("t", "host", "rank", "stream", "text", "tags", "seq")

    def __init__(self, t, host, rank, stream, text, tags, seq):
        self.t = t
        self.host = host
        self.rank = rank
        self.stream = stream
        self.text = text
        self.tags = tags
        self.seq = seq


class Ctx:
    def __init__(self, rng, idx, layout, cause, healthy):
        self.rng = rng
        self.idx = idx
        self.layout = layout
        self.cause = cause
        self.healthy = healthy
        self.events = []
        self.docs = {}
        self._seq = 0
        self.rank_proofs = []   # callables(surv) -> bool
        self.node_proofs = []
        self.init_rank = None
        self.init_node = None
        self.notes = ""
        self.virtual = Counter()

    # ---- events / docs ----
    def ev(self, t, host, rank, stream, text, *tags):
        self._seq += 1
        for part in str(text).split("\n"):
            self.events.append(Ev(t, host, rank, stream, part, tags, self._seq))
            self._seq += 1

    def doc(self, path):
        if path not in self.docs:
            self.docs[path] = Doc(path)
        return self.docs[path]

    # ---- topology ----
    def host_of(self, r):
        return self.hosts[r // self.gpn]

    def node_of(self, r):
        return r // self.gpn

    def local_of(self, r):
        return r % self.gpn

    def ranks_on(self, node_idx):
        return list(range(node_idx * self.gpn, (node_idx + 1) * self.gpn))

    # ---- clocks ----
    def clock(self, host, t):
        return self.t0 + timedelta(seconds=t + self.skew.get(host, 0.0))

    def ts(self, host, t, kind):
        d = self.clock(host, t)
        if kind == "iso":
            return d.strftime("%Y-%m-%d %H:%M:%S")
        if kind == "pylog":
            return d.strftime("%Y-%m-%d %H:%M:%S,") + f"{d.microsecond // 1000:03d}"
        if kind == "c10":
            ns = d.microsecond * 1000 + self.rng.randint(0, 999)
            return f"{d.month}{d.day:02d} {d.strftime('%H:%M:%S')}.{ns:09d}"
        if kind == "glogpy":
            return f"{d.month:02d}{d.day:02d} {d.strftime('%H:%M:%S')}.{d.microsecond // 1000:03d}000"
        if kind == "kmono":
            return f"[{self.boot[host] + t + self.skew.get(host, 0.0):12.6f}]"
        if kind == "kT":
            return "[" + d.strftime("%a %b ") + f"{d.day:2d} " + d.strftime("%H:%M:%S %Y") + "]"
        if kind == "journal":
            return d.strftime("%b %d %H:%M:%S")
        if kind == "rfc3339":
            return d.strftime("%Y-%m-%dT%H:%M:%S.") + f"{d.microsecond:06d}" + f"{int(t * 1e6) % 1000:03d}Z"
        if kind == "slurm":
            return d.strftime("%Y-%m-%dT%H:%M:%S")
        if kind == "trun":
            return d.strftime("%Y-%m-%d_%H:%M:%S")
        if kind == "hms":
            return d.strftime("%H:%M:%S")
        if kind == "smi":
            return d.strftime("%a %b ") + f"{d.day:2d} " + d.strftime("%H:%M:%S %Y")
        if kind == "csv":
            return d.strftime("%Y/%m/%d %H:%M:%S.") + f"{d.microsecond // 1000:03d}"
        raise ValueError(kind)

    # ---- GPU identifiers ----
    def bus(self, local):
        return self.plat["bus"][local % len(self.plat["bus"])]

    def pci_kernel(self, local):
        b, d = self.bus(local)
        return f"PCI:0000:{b}:{d}"

    def pci_smi(self, local):
        b, d = self.bus(local)
        return f"00000000:{b.upper()}:{d.upper()}.0"

    def pci_dev(self, local):
        b, d = self.bus(local)
        return f"0000:{b}:{d}.0"

    def nccl_busid(self, local):
        b, d = self.bus(local)
        return format(int(b + d + "0", 16), "x")

    def era_ge(self, e):
        return ERA_ORDER.index(self.era) >= ERA_ORDER.index(e)


# --------------------------------------------------------------------------------------
# job setup
# --------------------------------------------------------------------------------------

FRAMEWORKS = ["ddp", "fsdp", "megatron", "deepspeed", "hf", "lightning"]


def setup_job(ctx, need_multi=False, need_gpn2=False):
    rng = ctx.rng
    lay = ctx.layout
    gpn = rng.choice([8, 8, 8, 8, 8, 4, 4, 2, 1])
    if need_gpn2 and gpn < 2:
        gpn = 8
    nn_choices = [1, 2, 2, 2, 3, 4, 4, 4, 6, 8, 8, 12, 16, 16, 32, 64, 128]
    nnodes = rng.choice(nn_choices)
    if gpn == 1 and nnodes < 2:
        nnodes = rng.choice([2, 4, 8])
    if need_multi and nnodes < 2:
        nnodes = rng.choice([2, 2, 4, 8])
    if lay == "k8s_pods" and nnodes > 32:
        nnodes = rng.choice([8, 16, 32])
    if lay == "deepspeed_pdsh" and nnodes > 64:
        nnodes = 64
    while nnodes * gpn > 1024:
        nnodes //= 2
    ctx.gpn = gpn
    ctx.nnodes = nnodes
    ctx.world = gpn * nnodes
    ctx.hosts = make_hosts(rng, nnodes, "k8s" if lay == "k8s_pods" else "hpc")
    ctx.plat = rng.choice(PLATFORMS)
    ctx.driver, ctx.cuda_drv = rng.choice(DRIVERS)
    ctx.era = rng.choice(ERA_ORDER)
    if lay == "deepspeed_pdsh" and ctx.era == "2.7":
        ctx.era = "2.5"
    e = ERAS[ctx.era]
    ctx.torch, ctx.nccl, ctx.cuda, ctx.py = e["torch"], e["nccl"], e["cuda"], e["py"]
    if rng.random() < 0.25:  # user built their own NCCL
        ctx.nccl = rng.choice(["2.19.3", "2.21.5", "2.23.4", "2.25.1", "2.27.3"])
    ctx.nccl_tuple = tuple(int(x) for x in ctx.nccl.split("."))
    if lay == "deepspeed_pdsh":
        ctx.fw = rng.choice(["deepspeed", "deepspeed", "hf"])
        ctx.deepspeed = True
    else:
        ctx.fw = rng.choice(FRAMEWORKS)
        ctx.deepspeed = ctx.fw == "deepspeed"
    ctx.nccl_debug = rng.random() < 0.5
    # process-group timeout
    default_to = 1800 if ctx.era == "2.1" else 600
    ctx.timeout_s = rng.choice([default_to, default_to, default_to, 1800, 1800, 3600, 5400,
                                7200, 10800, 14400])
    ctx.huge_timeout = ctx.timeout_s >= 5400
    # time
    y = rng.choice([2023, 2024, 2024, 2025, 2025, 2026])
    ctx.t0 = datetime(y, rng.randint(1, 12), rng.randint(1, 28), rng.randint(0, 23),
                      rng.randint(0, 59), rng.randint(0, 59), rng.randint(0, 999999))
    ctx.skew = {}
    big = rng.random() < 0.3
    for h in ctx.hosts:
        s = rng.gauss(0, 1.2)
        ctx.skew[h] = round(max(-5, min(5, s)), 3)
    if big and nnodes > 1:
        h = rng.choice(ctx.hosts)
        ctx.skew[h] = round(rng.choice([-1, 1]) * rng.uniform(8, 45), 3)
    ctx.skew[ctx.hosts[0]] = ctx.skew.get(ctx.hosts[0], 0.0)
    ctx.boot = {h: rng.uniform(2e5, 6e6) for h in ctx.hosts}
    # identities
    ctx.pid = {}
    ctx.agent_pid = {}
    ctx.tids = {}
    for ni, h in enumerate(ctx.hosts):
        base = rng.randint(2000, 3900000)
        ctx.agent_pid[h] = base
        p = base + rng.randint(5, 40)
        for L in range(gpn):
            ctx.pid[ni * gpn + L] = p
            p += rng.randint(1, 6)
    ctx.ip = {}
    a, b = rng.randint(1, 250), rng.randint(0, 250)
    for i, h in enumerate(ctx.hosts):
        if h.startswith("ip-"):
            parts = h.split(".")[0].split("-")[1:]
            ctx.ip[h] = ".".join(parts)
        else:
            ctx.ip[h] = f"10.{a}.{(b + i // 250) % 256}.{(i % 250) + 3}"
    ctx.user = rng.choice(["alice", "bchen", "mkumar", "svc-train", "jdoe", "ykim", "rlopez",
                           "llm-ops", "tnguyen", "fmueller"])
    ctx.jobid = rng.randint(100000, 9999999)
    ctx.jobname = rng.choice(["pretrain-7b", "llama-ft", "gpt-moe", "vit-huge", "sft-70b",
                              "dpo-13b", "asr-conformer", "diffusion-xl", "mixtral-cpt",
                              "bert-mlm", "t5-xxl", "reward-model"])
    ctx.script = {"ddp": "train.py", "fsdp": rng.choice(["train_fsdp.py", "torchtitan/train.py"]),
                  "megatron": "pretrain_gpt.py", "deepspeed": rng.choice(["train_ds.py", "main.py"]),
                  "hf": rng.choice(["run_clm.py", "sft.py", "finetune.py"]),
                  "lightning": rng.choice(["fit.py", "train_pl.py"])}[ctx.fw]
    ctx.pybin = rng.choice(["/usr/bin/python3", "/opt/conda/bin/python",
                            f"/home/{ctx.user}/.venv/bin/python",
                            f"/opt/conda/envs/train/bin/python{ctx.py[:4].rstrip('.')}"])
    ctx.sitepk = rng.choice([f"/usr/local/lib/python{ctx.py[:4].rstrip('.')}/dist-packages",
                             f"/opt/conda/lib/python{ctx.py[:4].rstrip('.')}/site-packages",
                             f"/home/{ctx.user}/.venv/lib/python{ctx.py[:4].rstrip('.')}/site-packages"])
    ctx.workdir = rng.choice([f"/home/{ctx.user}/src/{ctx.jobname}", "/workspace",
                              f"/lustre/fsw/{ctx.user}/{ctx.jobname}",
                              f"/mnt/shared/{ctx.user}/repos/trainer", "/app"])
    # steps
    ctx.step_time = round(rng.choice([0.35, 0.6, 0.9, 1.3, 2.2, 3.4, 5.1, 7.8, 11.5]) *
                          rng.uniform(0.85, 1.2), 3)
    ctx.log_every = rng.choice([1, 1, 5, 10, 10, 20, 50, 100])
    if ctx.step_time * ctx.log_every > 400:
        ctx.log_every = 1
    ctx.s0 = rng.choice([0, 0, rng.randint(1, 400) * 500])
    ctx.max_steps = ctx.s0 + rng.randint(20, 400) * 1000
    ctx.seq_per_step = rng.choice([1, 2, 3, 4, 6])
    ctx.seq_base = rng.randint(2, 40)
    ctx.print_rank = ctx.world - 1 if ctx.fw == "megatron" else 0
    ctx.tee = rng.random() < 0.6
    ctx.use_faulthandler = rng.random() < 0.25
    ctx.fh_timeout = rng.choice([600, 900, 1200, 1800])
    return ctx


def op_for(ctx):
    rng = ctx.rng
    if ctx.fw == "fsdp":
        op = rng.choice(["_ALLGATHER_BASE", "_REDUCE_SCATTER_BASE", "ALLREDUCE"])
    elif ctx.fw == "megatron":
        op = rng.choice(["ALLREDUCE", "_REDUCE_SCATTER_BASE", "ALLREDUCE", "COALESCED"])
    elif ctx.fw == "deepspeed":
        op = rng.choice(["_REDUCE_SCATTER_BASE", "_ALLGATHER_BASE", "ALLREDUCE"])
    else:
        op = rng.choice(["ALLREDUCE", "ALLREDUCE", "BROADCAST", "ALLGATHER"])
    if op == "ALLREDUCE":
        n = rng.choice([1, 1, 2, 25690112, 26214400, 466119168, 9801523, 4096])
        return op, n, n
    if op == "_ALLGATHER_BASE":
        n = rng.choice([2097152, 7340032, 68124672, 131334144])
        return op, n, n * min(ctx.world, 64)
    if op == "_REDUCE_SCATTER_BASE":
        n = rng.choice([2097152, 7340032, 68124672, 131334144])
        return op, n * min(ctx.world, 64), n
    if op == "COALESCED":
        n = rng.choice([56320, 76800, 1048576])
        return op, n, n * 8
    n = rng.choice([1, 4096, 65536])
    if op == "ALLGATHER":
        return op, n, n * ctx.world
    return op, n, n


# --------------------------------------------------------------------------------------
# text builders: torch / NCCL / launchers
# --------------------------------------------------------------------------------------


def c10p(ctx, r, host, t, lvl, key):
    ln = PGL[ctx.era].get(key) or PGL[ctx.era]["wd"]
    if ctx.era == "2.1":
        return f"[{lvl} ProcessGroupNCCL.cpp:{ln}] "
    if ctx.era == "2.3":
        return f"[rank{r}]:[{lvl} ProcessGroupNCCL.cpp:{ln}] "
    return f"[rank{r}]:[{lvl}{ctx.ts(host, t, 'c10')} ProcessGroupNCCL.cpp:{ln}] "


def pgp(ctx, r):
    if ctx.era == "2.1":
        return ""
    if ctx.era in ("2.3", "2.4"):
        return f"[PG 0 Rank {r}] "
    return f"[PG ID 0 PG GUID 0(default_pg) Rank {r}] "


def rk(ctx, r):
    """prefix torch puts on a rank's python traceback lines."""
    return f"[rank{r}]: " if ctx.era_ge("2.3") else ""


def nccl_prefix(ctx, r, tid=None, warn_file=None, t=None):
    h = ctx.host_of(r)
    pid = ctx.pid[r]
    if tid is None:
        tid = pid
    p = f"{short(h)}:{pid}:{tid} [{ctx.local_of(r)}] "
    if warn_file:
        pre = ""
        if ctx.nccl_tuple >= (2, 26, 0) and t is not None:
            pre = "[" + ctx.ts(h, t, "iso") + "] "
        return pre + p + warn_file + " NCCL WARN "
    return p + "NCCL INFO "


def nccl_init_lines(ctx, r, t):
    """(dt, text, tags) for one rank's NCCL_DEBUG=INFO init."""
    rng = ctx.rng
    h = ctx.host_of(r)
    L = ctx.local_of(r)
    pid = ctx.pid[r]
    tid2 = pid + rng.randint(60, 400)
    P = nccl_prefix(ctx, r)
    P2 = nccl_prefix(ctx, r, tid2)
    out = []
    ifn = rng.choice(["eth0", "bond0", "ens3", "enp12s0"]) if r == 0 or True else "eth0"
    ip = ctx.ip[h]
    if L == 0 or ctx.world <= 16:
        out.append((0.0, P + f"Bootstrap : Using {ifn}:{ip}<0>", ()))
    if r == 0:
        out.append((0.01, P + f"NCCL version {ctx.nccl}+cuda{ctx.cuda}", ()))
    if L == 0 or ctx.world <= 16:
        out.append((0.02, P + f"cudaDriverVersion {ctx.cuda_drv.replace('.', '')}0", ()))
        nics = " ".join(f"[{i}]mlx5_{i}:1/IB" for i in range(min(ctx.gpn, 8)))
        if ctx.layout == "k8s_pods" and rng.random() < 0.4:
            nics = " ".join(f"[{i}]mlx5_{i}:1/RoCE" for i in range(min(ctx.gpn, 4)))
        out.append((0.4, P2 + f"NET/IB : Using {nics} ; OOB {ifn}:{ip}<0>", ()))
    comm = "0x" + rand_hex(rng, 12)
    cid = "0x" + rand_hex(rng, 16)
    bid = ctx.nccl_busid(L)
    fn = "ncclCommInitRankConfig" if ctx.nccl_tuple >= (2, 20, 0) else "ncclCommInitRank"
    out.append((0.5, P2 + f"{fn} comm {comm} rank {r} nranks {ctx.world} cudaDev {L} "
                f"nvmlDev {L} busId {bid} commId {cid} - Init START", ("BUSID", f"R:busid:{r}", f"RH:{r}")))
    if ctx.nccl_tuple >= (2, 19, 0):
        out.append((1.1, P2 + f"comm {comm} rank {r} nRanks {ctx.world} nNodes {ctx.nnodes} "
                    f"localRanks {ctx.gpn} localRank {L} MNNVL 0", ()))
    if r == 0:
        out.append((1.3, P2 + "Channel 00/16 :    " + " ".join(str(x) for x in range(min(ctx.world, 16))), ()))
    out.append((2.0 + rng.random(), P2 + f"{fn} comm {comm} rank {r} nranks {ctx.world} cudaDev {L} "
                f"nvmlDev {L} busId {bid} commId {cid} - Init COMPLETE", ("BUSID", f"R:busid:{r}", f"RH:{r}")))
    return out


def loss_at(ctx, step):
    import math
    base = 1.7 + 2.6 * math.exp(-step / 30000.0)
    return base + ctx.rng.uniform(-0.06, 0.06)


def lr_at(ctx, step):
    return 3e-4 * (0.1 + 0.9 * max(0.0, 1 - step / max(1, ctx.max_steps)))


def tqdm_bar(ctx, i, n, elapsed, rate_s, prefix="", post=""):
    frac = i / max(1, n)
    width = 10
    full = int(frac * width)
    bar = "█" * full + ("▌" if frac * width - full > 0.5 else " ") + " " * (width - full - 1)
    bar = bar[:width]

    def hms(s):
        s = int(s)
        h, rem = divmod(s, 3600)
        m, sec = divmod(rem, 60)
        return f"{h}:{m:02d}:{sec:02d}" if h else f"{m:02d}:{sec:02d}"
    remain = (n - i) * rate_s
    rate = f"{rate_s:.2f}s/it" if rate_s >= 1 else f"{1 / rate_s:.2f}it/s"
    return f"{prefix}{int(frac * 100):3d}%|{bar}| {i}/{n} [{hms(elapsed)}<{hms(remain)}, {rate}{post}]"


def step_line(ctx, step, t, host, st=None):
    rng = ctx.rng
    st = (st or ctx.step_time) * rng.uniform(0.97, 1.04)
    loss = loss_at(ctx, step)
    lr = lr_at(ctx, step)
    fw = ctx.fw
    if fw == "ddp":
        tok = int(ctx.world * 4096 * 8 / st)
        return f"step {step} | loss {loss:.4f} | lr {lr:.2e} | {st * 1000:.1f} ms/it | {tok / 1e6:.2f}M tok/s"
    if fw == "fsdp":
        mem = rng.uniform(55, 70)
        return (f"[titan] {ctx.ts(host, t, 'pylog')} - root - INFO - step: {step:5d}  loss: {loss:7.4f}  "
                f"memory: {mem:5.2f}GiB({mem / 79.1 * 100:.2f}%)  tps: {int(8192 / st):,}  "
                f"tflops: {rng.uniform(300, 420):.2f}  mfu: {rng.uniform(30, 42):.2f}%")
    if fw == "megatron":
        gbs = 1024
        return (f" [{ctx.ts(host, t, 'iso')}] iteration {step:8d}/{ctx.max_steps:8d} | consumed samples: "
                f"{step * gbs:12d} | elapsed time per iteration (ms): {st * 1000:.1f} | learning rate: "
                f"{lr:.6E} | global batch size: {gbs:5d} | lm loss: {loss:.6E} | loss scale: 1.0 | "
                f"grad norm: {rng.uniform(0.2, 1.4):.3f} | number of skipped iterations:   0 | "
                f"number of nan iterations:   0 |")
    if fw == "deepspeed":
        return (f"[{ctx.ts(host, t, 'pylog')}] [INFO] [logging.py:128:log_dist] [Rank 0] step={step}, "
                f"skipped=0, lr=[{lr:.8f}], mom=[(0.9, 0.95)]")
    if fw == "hf":
        ep = step / 12000.0
        return (f"{{'loss': {loss:.4f}, 'grad_norm': {rng.uniform(0.2, 2.0):.4f}, 'learning_rate': "
                f"{lr:.4e}, 'epoch': {ep:.2f}}}")
    # lightning
    n = 12000
    i = step % n
    return tqdm_bar(ctx, i, n, i * st, st, prefix=f"Epoch {step // n}: ",
                    post=f", v_num={ctx.jobid % 97}, train_loss={loss:.3f}")


def watchdog_block(ctx, r, t, seq, op, nin, nout, enq, comp, full=True):
    """(dt, stream, text, tags) lines of a waiting rank's watchdog timeout and abort."""
    rng = ctx.rng
    h = ctx.host_of(r)
    to = ctx.timeout_s * 1000
    ran = to + rng.randint(3, 120)
    numel = f", NumelIn={nin}, NumelOut={nout}" if ctx.era_ge("2.3") else ""
    work = f"WorkNCCL(SeqNum={seq}, OpType={op}{numel}, Timeout(ms)={to})"
    wdmsg = f"[Rank {r}] Watchdog caught collective operation timeout: {work} ran for {ran} milliseconds before timing out."
    out = [(0.0, "err", c10p(ctx, r, h, t, "E", "wd") + wdmsg, ("WD", f"WD:{r}"))]
    P = pgp(ctx, r)
    if ctx.era in ("2.4", "2.5", "2.6"):
        out.append((0.001, "err", c10p(ctx, r, h, t, "E", "exc") + P +
                    f"Exception (either an error or timeout) detected by watchdog at work: {seq}, "
                    f"last enqueued NCCL work: {enq}, last completed NCCL work: {comp}.", ("WDSEQ", f"SEQ:{r}:{enq}")))
    elif ctx.era == "2.7":
        out.append((0.001, "err", c10p(ctx, r, h, t, "E", "exc") + P +
                    f"failure detected by watchdog at work sequence id: {seq} PG status: last enqueued "
                    f"work: {enq}, last completed work: {comp}", ("WDSEQ", f"SEQ:{r}:{enq}")))
    if not full:
        return out
    if ctx.era_ge("2.3"):
        out.append((0.002, "err", c10p(ctx, r, h, t, "E", "tat") + P +
                    f"Timeout at NCCL work: {seq}, last enqueued NCCL work: {enq}, last completed NCCL work: {comp}.",
                    (f"SEQ:{r}:{enq}",)))
    if ctx.era in ("2.3", "2.4"):
        out.append((0.003, "err", c10p(ctx, r, h, t, "E", "tat") + P +
                    "Stack trace of the failed collective not found, potentially because FlightRecorder "
                    "is disabled. You can enable it by setting TORCH_NCCL_TRACE_BUFFER_SIZE to a non-zero value.", ()))
    out.append((0.004, "err", c10p(ctx, r, h, t, "E", "some") + f"[Rank {r}] Some NCCL operations have failed or "
                "timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might "
                "run on corrupted/incomplete data.", ()))
    out.append((0.005, "err", c10p(ctx, r, h, t, "E", "avoid") + f"[Rank {r}] To avoid data inconsistency, we "
                "are taking the entire process down.", ()))
    dump_wait = 0.0
    if ctx.era_ge("2.5"):
        dump_wait = rng.choice([15.0, 60.0])
    wname = "NCCL watchdog thread" if ctx.era in ("2.1", "2.3") else "Process group watchdog thread"
    term = c10p(ctx, r, h, t + dump_wait, "E", "term") + P + f"{wname} terminated with exception: {wdmsg}"
    out.append((dump_wait + 0.01, "err", term, ()))
    cls = "std::runtime_error" if ctx.era == "2.1" else "c10::DistBackendError"
    out.append((dump_wait + 0.02, "err", f"terminate called after throwing an instance of '{cls}'", ()))
    out.append((dump_wait + 0.02, "err", f"  what():  {P}{wname} terminated with exception: {wdmsg}", ()))
    src = "../torch/csrc" if not ctx.era_ge("2.6") else "/pytorch/torch/csrc"
    out.append((dump_wait + 0.02, "err", f"Exception raised from checkTimeout at {src}/distributed/c10d/"
                f"ProcessGroupNCCL.cpp:{PGL[ctx.era]['wd'] + 2} (most recent call first):", ()))
    lib = f"{ctx.sitepk}/torch/lib"
    frames = [f"c10::Error::Error(c10::SourceLocation, std::string) + 0x96 ({hexaddr(rng)} in {lib}/libc10.so)",
              f"c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, "
              f"std::ratio<1l, 1000l> > >) + 0x1d2 ({hexaddr(rng)} in {lib}/libtorch_cuda.so)",
              f"c10d::ProcessGroupNCCL::watchdogHandler() + 0x233 ({hexaddr(rng)} in {lib}/libtorch_cuda.so)",
              f"c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d ({hexaddr(rng)} in {lib}/libtorch_cuda.so)",
              f"<unknown function> + 0xdc253 ({hexaddr(rng)} in /lib/x86_64-linux-gnu/libstdc++.so.6)",
              f"<unknown function> + 0x94ac3 ({hexaddr(rng)} in /lib/x86_64-linux-gnu/libc.so.6)",
              f"clone + 0x44 ({hexaddr(rng)} in /lib/x86_64-linux-gnu/libc.so.6)"]
    for i, f in enumerate(frames):
        out.append((dump_wait + 0.03, "err", f"frame #{i}: {f}", ()))
    out.append((dump_wait + 0.03, "err", "", ()))
    return out


def stuck_rank_dump_lines(ctx, r, t, first_rank, enq, comp):
    """a rank that never enqueued the collective hears about the others' timeout (2.4+)."""
    h = ctx.host_of(r)
    P = pgp(ctx, r)
    out = []
    if not ctx.era_ge("2.4"):
        return out
    out.append((0.0, "err", c10p(ctx, r, h, t, "E", "hb") + P +
                "Observed flight recorder dump signal from another rank via TCPStore.", ("DUMPSIG", f"SEQ:{r}:{enq}")))
    out.append((0.01, "err", c10p(ctx, r, h, t, "E", "hb") + P +
                f"Received a dump signal due to a collective timeout from rank {first_rank} and we will try our "
                f"best to dump the debug info. Last enqueued NCCL work: {enq}, last completed NCCL work: {comp}.",
                ("DUMPSIG", f"SEQ:{r}:{enq}", f"R:seq:{r}")))
    out.append((ctx.rng.uniform(15, 62), "err", c10p(ctx, r, h, t, "E", "hb") + P +
                "Terminating the process after attempting to dump debug info, due to collective timeout or "
                "exception.", ()))
    return out


def heartbeat_stuck_lines(ctx, r, t):
    h = ctx.host_of(r)
    P = pgp(ctx, r)
    hb = 600 if ctx.era == "2.3" else 480
    lvl = "F" if ctx.era == "2.3" else "E"
    return [(0.0, "err", c10p(ctx, r, h, t, lvl, "hb") + P +
             f"ProcessGroupNCCL's watchdog got stuck for {hb} seconds without making progress in monitoring "
             "enqueued collectives. This typically indicates a NCCL/CUDA API (e.g., CudaEventDestroy) hang "
             "blocking the watchdog, and could be triggered by another thread holding the GIL inside a CUDA "
             "api (for example, CudaEventDestroy), or other deadlock-prone behaviors.If you suspect the "
             "watchdog is not actually stuck and a longer timeout would help, you can either increase the "
             "timeout (TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC) to a larger value or disable the heartbeat monitor "
             "(TORCH_NCCL_ENABLE_MONITORING=0).If either of aforementioned helps, feel free to file an issue "
             "to PyTorch about the short timeout or false positive abort; otherwise, please attempt to debug "
             "the hang.", ("HBSTUCK", f"R:wdstuck:{r}")),
            (ctx.rng.uniform(10, 60), "err", c10p(ctx, r, h, t, lvl, "hb") + P +
             "Terminating the process after attempting to dump debug info, due to ProcessGroupNCCL watchdog hang.", ())]


def py_traceback(ctx, r, frames, exc):
    """frames: list of (path, line, func, code). returns list of text lines."""
    p = rk(ctx, r)
    out = [p + "Traceback (most recent call last):"]
    for path, line, func, code in frames:
        out.append(p + f'  File "{path}", line {line}, in {func}')
        if code:
            out.append(p + f"    {code}")
    for e in exc.split("\n"):
        out.append(p + e)
    return out


def user_frames(ctx, inner):
    """outer frames of the training script down to `inner` (list of (path,line,func,code))."""
    w = ctx.workdir
    s = ctx.script
    fr = [(f"{w}/{s}", ctx.rng.randint(300, 420), "<module>", "main()"),
          (f"{w}/{s}", ctx.rng.randint(240, 299), "main", "trainer.fit()" if ctx.fw == "lightning" else "train(args)")]
    return fr + inner


# --------------------------------------------------------------------------------------
# torchrun agent / slurm / deepspeed launcher text
# --------------------------------------------------------------------------------------


def agent_line(ctx, host, t, lvl, msg, where="api"):
    paths = {"api": ("torch/distributed/elastic/multiprocessing/api.py", 897 if ctx.era_ge("2.5") else 833),
             "run": ("torch/distributed/run.py", 793),
             "agent": ("torch/distributed/elastic/agent/server/api.py", 683)}
    path, ln = paths[where]
    if ctx.era in ("2.1",):
        mod = path.replace("/", ".").replace(".py", "")
        name = {"W": "WARNING", "E": "ERROR", "I": "INFO"}[lvl]
        return f"[{ctx.ts(host, t, 'pylog')}] {mod}: [{name}] {msg}"
    return f"{lvl}{ctx.ts(host, t, 'glogpy')} {ctx.agent_pid[host]} {path}:{ln}] {msg}"


SIGNAMES = {-6: "SIGABRT", -9: "SIGKILL", -11: "SIGSEGV", -15: "SIGTERM", -7: "SIGBUS"}


def child_failed_block(ctx, host, failures):
    """failures: list of (t, rank, exitcode) (first is root cause). -> [(text, tags)]"""
    script = ctx.script.split("/")[-1]
    out = [(x, ()) for x in [
           "Traceback (most recent call last):",
           f'  File "{ctx.pybin.rsplit("/bin/", 1)[0]}/bin/torchrun", line 8, in <module>',
           "    sys.exit(main())",
           f'  File "{ctx.sitepk}/torch/distributed/run.py", line 919, in main',
           "    run(args)",
           f'  File "{ctx.sitepk}/torch/distributed/launcher/api.py", line 263, in launch_agent',
           "    raise ChildFailedError(",
           "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
           "============================================================",
           f"{script} FAILED",
           "------------------------------------------------------------",
           "Failures:"]]
    hostshown = short(host) if ctx.rng.random() < 0.8 else host

    def entry(i, f, root):
        t, r, code = f[0], f[1], f[2]
        pid = ctx.pid[r]
        tg = (f"CFE:{r}:{code}", f"RH:{r}") + ((f"CFEROOT:{r}:{code}",) if root else ())
        lines = [(f"[{i}]:", ()),
                 (f"  time      : {ctx.ts(host, t, 'trun')}", ()),
                 (f"  host      : {hostshown}", ()),
                 (f"  rank      : {r} (local_rank: {ctx.local_of(r)})", tg),
                 (f"  exitcode  : {code} (pid: {pid})", (f"PID:{r}",) + tg),
                 ("  error_file: <N/A>", ())]
        if code < 0:
            lines.append((f"  traceback : Signal {-code} ({SIGNAMES.get(code, 'SIG?')}) received by PID {pid}", ()))
        else:
            lines.append(("  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html", ()))
        return lines
    rest = failures[1:]
    if not rest:
        out.append(("  <NO_OTHER_FAILURES>", ()))
    for i, f in enumerate(rest):
        out += entry(i + 1, f, False)
    out.append(("------------------------------------------------------------", ()))
    out.append(("Root Cause (first observed failure):", ()))
    out += entry(0, failures[0], True)
    out.append(("============================================================", ()))
    return out


# --------------------------------------------------------------------------------------
# diagnostics the operator attaches: stacks, nvidia-smi, top/ps, dmesg, flight recorder
# --------------------------------------------------------------------------------------

def lib_frames(kind, ctx):
    """innermost-first python frames (func, path, line); path relative to site-packages
    unless it starts with '@' (= the user's work dir)."""
    S = "@" + ctx.script
    fw = ctx.fw
    if kind == "wait":
        if fw == "fsdp":
            return [("all_gather_into_tensor", "torch/distributed/distributed_c10d.py", 3441),
                    ("wrapper", "torch/distributed/c10d_logger.py", 83),
                    ("_all_gather_flat_param", "torch/distributed/fsdp/_flat_param.py", 1394),
                    ("unshard", "torch/distributed/fsdp/_flat_param.py", 1294),
                    ("_unshard", "torch/distributed/fsdp/_runtime_utils.py", 332),
                    ("_pre_forward_unshard", "torch/distributed/fsdp/_runtime_utils.py", 543),
                    ("_pre_forward", "torch/distributed/fsdp/_runtime_utils.py", 491),
                    ("forward", "torch/distributed/fsdp/fully_sharded_data_parallel.py", 849),
                    ("_call_impl", "torch/nn/modules/module.py", 1562),
                    ("_wrapped_call_impl", "torch/nn/modules/module.py", 1553),
                    ("train_step", S, 201), ("train", S, 266)]
        if fw == "megatron":
            return [("_communicate", "megatron/core/pipeline_parallel/p2p_communication.py", 346),
                    ("recv_forward", "megatron/core/pipeline_parallel/p2p_communication.py", 412),
                    ("forward_backward_pipelining_without_interleaving",
                     "megatron/core/pipeline_parallel/schedules.py", 1344),
                    ("train_step", "megatron/training/training.py", 720),
                    ("train", "megatron/training/training.py", 1180),
                    ("pretrain", "megatron/training/training.py", 330)]
        if fw == "deepspeed":
            return [("reduce_scatter_fn", "deepspeed/runtime/comm/coalesced_collectives.py", 128),
                    ("partition_grads", "deepspeed/runtime/zero/stage3.py", 1500),
                    ("wrapped_fn", "deepspeed/utils/nvtx.py", 18),
                    ("__reduce_and_partition_ipg_grads", "deepspeed/runtime/zero/stage3.py", 1309),
                    ("backward", "deepspeed/runtime/zero/stage3.py", 2247),
                    ("backward", "deepspeed/runtime/engine.py", 2020),
                    ("train_epoch", S, 188)]
        if fw == "hf":
            return [("_engine_run_backward", "torch/autograd/graph.py", 768),
                    ("backward", "torch/autograd/__init__.py", 289),
                    ("backward", "torch/_tensor.py", 521),
                    ("backward", "accelerate/accelerator.py", 2188),
                    ("training_step", "transformers/trainer.py", 3518),
                    ("_inner_training_loop", "transformers/trainer.py", 2279),
                    ("train", "transformers/trainer.py", 1938)]
        if fw == "lightning":
            return [("_engine_run_backward", "torch/autograd/graph.py", 768),
                    ("backward", "torch/autograd/__init__.py", 289),
                    ("backward", "torch/_tensor.py", 521),
                    ("backward", "lightning/pytorch/core/module.py", 1091),
                    ("backward", "lightning/pytorch/strategies/strategy.py", 213),
                    ("_run_optimization", "lightning/pytorch/loops/optimization/automatic.py", 186),
                    ("run", "lightning/pytorch/loops/fit_loop.py", 205),
                    ("fit", "lightning/pytorch/trainer/trainer.py", 538)]
        return [("_engine_run_backward", "torch/autograd/graph.py", 768),
                ("backward", "torch/autograd/__init__.py", 289),
                ("backward", "torch/_tensor.py", 521),
                ("train_step", S, 212), ("train", S, 271)]
    if kind == "item":
        return [("train_step", S, 219), ("train", S, 271)]
    if kind == "barrier":
        return [("barrier", "torch/distributed/distributed_c10d.py", 4159),
                ("wrapper", "torch/distributed/c10d_logger.py", 83),
                ("save_checkpoint", "@utils/checkpoint.py", 88), ("train", S, 290)]
    if kind == "broadcast":
        return [("broadcast", "torch/distributed/distributed_c10d.py", 2417),
                ("wrapper", "torch/distributed/c10d_logger.py", 83),
                ("broadcast_object_list", "torch/distributed/distributed_c10d.py", 3130),
                ("sync_stop_flag", "@utils/dist_utils.py", 41), ("train", S, 284)]
    if kind == "dataloader":
        return [("poll", "multiprocessing/connection.py", 440),
                ("_poll", "multiprocessing/connection.py", 257),
                ("get", "multiprocessing/queues.py", 113),
                ("_try_get_data", "torch/utils/data/dataloader.py", 1133),
                ("_get_data", "torch/utils/data/dataloader.py", 1294),
                ("_next_data", "torch/utils/data/dataloader.py", 1328),
                ("__next__", "torch/utils/data/dataloader.py", 631),
                ("train", S, 255)]
    if kind == "pipe":
        return [("log_metrics", "@utils/metrics.py", 63), ("train", S, 298)]
    if kind == "lock":
        return [("wait_for_previous_save", "@utils/async_ckpt.py", 142),
                ("maybe_save", "@utils/async_ckpt.py", 171), ("train", S, 293)]
    if kind == "eval":
        return [("_engine_run_backward", "torch/autograd/graph.py", 768)][:0] + [
                ("forward", "@model/attention.py", 118),
                ("_call_impl", "torch/nn/modules/module.py", 1562),
                ("evaluate", "@eval.py", 77), ("train", S, 302)]
    if kind == "compile":
        return [("result", "concurrent/futures/_base.py", 451),
                ("wait_futures", "torch/_inductor/async_compile.py", 283),
                ("compile_to_module", "torch/_inductor/graph.py", 1844),
                ("fx_codegen_and_compile", "torch/_inductor/compile_fx.py", 1043),
                ("compile_fx_inner", "torch/_inductor/compile_fx.py", 567),
                ("_compile", "torch/_dynamo/convert_frame.py", 750),
                ("__call__", "torch/_dynamo/convert_frame.py", 1164),
                ("_fn", "torch/_dynamo/eval_frame.py", 632),
                ("train_step", S, 198), ("train", S, 271)]
    if kind == "ckpt":
        return [("write", "@utils/checkpoint.py", 51),
                ("_write_files_from_queue", "torch/distributed/checkpoint/filesystem.py", 294),
                ("write_data", "torch/distributed/checkpoint/filesystem.py", 577),
                ("save", "torch/distributed/checkpoint/state_dict_saver.py", 149),
                ("save_checkpoint", "@utils/checkpoint.py", 92), ("train", S, 290)]
    if kind == "compute":
        return [("forward", "@model/mlp.py", 44), ("_call_impl", "torch/nn/modules/module.py", 1562),
                ("forward", "@model/block.py", 87), ("train_step", S, 204), ("train", S, 271)]
    raise ValueError(kind)


def side_threads(ctx, which):
    th = []
    if "pin" in which:
        th.append(("Thread-3 (_pin_memory_loop)", "idle",
                   [("wait", "threading.py", 331), ("get", "queue.py", 180),
                    ("do_one_step", "torch/utils/data/_utils/pin_memory.py", 31),
                    ("_pin_memory_loop", "torch/utils/data/_utils/pin_memory.py", 54),
                    ("run", "threading.py", 982), ("_bootstrap_inner", "threading.py", 1045),
                    ("_bootstrap", "threading.py", 1002)]))
    if "tqdm" in which:
        th.append(("Thread-1", "idle", [("wait", "threading.py", 324), ("wait", "threading.py", 607),
                                        ("run", "tqdm/_monitor.py", 60),
                                        ("_bootstrap_inner", "threading.py", 1016),
                                        ("_bootstrap", "threading.py", 973)]))
    if "wandb" in which:
        th.append(("MsgRouterThr", "idle", [("wait", "threading.py", 324),
                                            ("_read_message", "wandb/sdk/interface/router_queue.py", 36),
                                            ("message_loop", "wandb/sdk/interface/router.py", 79),
                                            ("run", "threading.py", 975)]))
    if "ckpt" in which:
        th.append(("AsyncCheckpointWriter", "idle",
                   [("_upload_shard", "@utils/async_ckpt.py", 97), ("_worker", "@utils/async_ckpt.py", 88),
                    ("run", "threading.py", 982)]))
    return th


def outer_frames(ctx):
    S = "@" + ctx.script
    if ctx.fw == "megatron":
        return [("<module>", S, 240)]
    return [("main", S, 318), ("<module>", S, 352)]


def fullpath(ctx, p):
    if p.startswith("@"):
        return f"{ctx.workdir}/{p[1:]}"
    if p.split("/")[0] in ("threading.py", "queue.py", "multiprocessing", "concurrent"):
        return f"/usr/lib/python{ctx.py[:4].rstrip('.')}/{p}"
    return f"{ctx.sitepk}/{p}"


def relpath(p):
    return p[1:] if p.startswith("@") else p


def pyspy_dump(ctx, r, main_kind, main_state="idle", native=False, threads=("pin",), tagline=()):
    """a py-spy dump of one rank; tagline tags are put on the innermost main-thread frame."""
    rng = ctx.rng
    pid = ctx.pid[r]
    oldfmt = getattr(ctx, "pyspy_old", False)
    cmd = f"{ctx.pybin} -u {ctx.script} --config configs/{ctx.jobname}.yaml"
    if ctx.layout != "deepspeed_pdsh" and not ctx.deepspeed:
        cmd += f" --local-rank={ctx.local_of(r)}" if rng.random() < 0.3 else ""
    out = [(f"Process {pid}: {cmd}", ("PIDMAP", f"PID:{r}")),
           (f"Python v{ctx.py} ({ctx.pybin})", ()), ("", ())]
    tidfmt = (lambda x: f"0x{x:X}") if oldfmt else (lambda x: str(x))
    main_tid = (0x7F0000000000 + rng.randint(0, 0xFFFFFF) * 0x1000 + 0x740) if oldfmt else pid
    out.append((f'Thread {tidfmt(main_tid)} ({main_state}): "MainThread"', ()))
    frames = lib_frames(main_kind, ctx) + outer_frames(ctx)
    if native:
        nat = {"wait": ["__futex_abstimed_wait_common (libc.so.6)", "pthread_cond_wait@@GLIBC_2.3.2 (libc.so.6)",
                        "c10::cuda::CUDACachingAllocator::Native::DeviceCachingAllocator::synchronize_and_free_events (libc10_cuda.so)"],
               "item": ["0x7f3c1d2a9e41 (libcuda.so." + ctx.driver + ")", "0x7f3c1d0fa2b7 (libcuda.so." + ctx.driver + ")",
                        "cudaStreamSynchronize (libcudart.so.12)", "at::native::_local_scalar_dense_cuda (libtorch_cuda.so)",
                        "at::_ops::_local_scalar_dense::call (libtorch_cpu.so)", "at::native::item (libtorch_cpu.so)"],
               "pipe": ["__GI___libc_write (libc.so.6)", "_Py_write (libpython3.so)", "_io_FileIO_write (libpython3.so)"],
               "dataloader": ["__GI___poll (libc.so.6)", "poll_poll (select.cpython-310-x86_64-linux-gnu.so)"],
               "lock": ["__futex_abstimed_wait_common (libc.so.6)", "PyThread_acquire_lock_timed (libpython3.so)"]}
        for f in nat.get(main_kind, []):
            out.append(("    " + f, ()))
    for i, (fn, p, ln) in enumerate(frames):
        out.append((f"    {fn} ({relpath(p)}:{ln})", tagline if i == 0 else ()))
    for name, st, fr in side_threads(ctx, threads):
        out.append((f'Thread {tidfmt(pid + rng.randint(40, 900))} ({st}): "{name}"', ()))
        for fn, p, ln in fr:
            out.append((f"    {fn} ({relpath(p)}:{ln})", ()))
    for _ in range(rng.randint(0, 3)):
        out.append((f"Thread {tidfmt(pid + rng.randint(900, 3000))} (idle)", ()))
    out.append(("", ()))
    return out


def faulthandler_dump(ctx, r, main_kind, tagline=(), threads=("pin",)):
    rng = ctx.rng
    to = ctx.fh_timeout
    out = [(f"Timeout ({to // 3600}:{(to % 3600) // 60:02d}:{to % 60:02d})!", ())]
    for name, st, fr in side_threads(ctx, threads):
        out.append((f"Thread 0x{0x7f0000000000 + rng.randint(0, 0xffffff) * 0x1000 + 0x640:016x} "
                    "(most recent call first):", ()))
        for fn, p, ln in fr:
            out.append((f'  File "{fullpath(ctx, p)}", line {ln} in {fn}', ()))
        out.append(("", ()))
    out.append((f"Thread 0x{0x7f0000000000 + rng.randint(0, 0xffffff) * 0x1000 + 0x740:016x} "
                "(most recent call first):", ()))
    frames = lib_frames(main_kind, ctx) + outer_frames(ctx)
    for i, (fn, p, ln) in enumerate(frames):
        out.append((f'  File "{fullpath(ctx, p)}", line {ln} in {fn}', tagline if i == 0 else ()))
    out.append(("", ()))
    return out


def pystack_dump(ctx, r, main_kind, native=True, tagline=()):
    pid = ctx.pid[r]
    frames = list(reversed(lib_frames(main_kind, ctx) + outer_frames(ctx)))
    out = [(f"Traceback for thread {pid} ({ctx.pybin.split('/')[-1]}) [Has the GIL] (most recent call last):"
            if main_kind not in ("item", "dataloader", "pipe", "lock", "wait") else
            f"Traceback for thread {pid} ({ctx.pybin.split('/')[-1]}) [] (most recent call last):", ("PIDMAP", f"PID:{r}"))]
    for i, (fn, p, ln) in enumerate(frames):
        out.append((f'    (Python) File "{fullpath(ctx, p)}", line {ln}, in {fn}',
                    tagline if i == len(frames) - 1 else ()))
    if native:
        nat = {"item": ["at::native::_local_scalar_dense_cuda(at::Tensor const&) (libtorch_cuda.so)",
                        "cudaStreamSynchronize (libcudart.so.12)", "0x00007f3c1d0fa2b7 (libcuda.so.1)",
                        "0x00007f3c1d2a9e41 (libcuda.so.1)"],
               "dataloader": ["__poll (libc.so.6)"],
               "pipe": ["__libc_write (libc.so.6)"],
               "lock": ["PyThread_acquire_lock_timed (python3)", "__futex_abstimed_wait_common (libc.so.6)"],
               "wait": ["c10d::ProcessGroupNCCL::WorkNCCL::synchronizeStream() (libtorch_cuda.so)",
                        "cudaStreamWaitEvent (libcudart.so.12)"]}
        for f in nat.get(main_kind, []):
            fn, lib = f.rsplit(" (", 1)
            out.append((f'    (C) File "???", line 0, in {fn} ({lib}', ()))
    out.append(("", ()))
    return out


def gdb_bt(ctx, r, kind):
    rng = ctx.rng
    pid = ctx.pid[r]
    out = [(f'Thread 1 (Thread 0x{0x7f0000000000 + rng.randint(0, 0xffffff) * 0x1000 + 0x740:x} '
            f'(LWP {pid}) "{ctx.pybin.split("/")[-1]}"):', ("PIDMAP", f"PID:{r}"))]
    if kind == "cuda":
        fr = [f"?? () from /lib/x86_64-linux-gnu/libcuda.so.1"] * 5 + [
            "cudaStreamSynchronize () from " + f"{ctx.sitepk}/nvidia/cuda_runtime/lib/libcudart.so.12",
            "at::native::_local_scalar_dense_cuda(at::Tensor const&) () from " + f"{ctx.sitepk}/torch/lib/libtorch_cuda.so"]
    elif kind == "futex":
        fr = ["__futex_abstimed_wait_common64 (private=0, cancel=true, abstime=0x0, op=393, expected=0, "
              "futex_word=0x55d5c2a7e3c8) at ./nptl/futex-internal.c:57",
              "__futex_abstimed_wait_common (cancel=true, private=0, abstime=0x0, clockid=0, expected=0, "
              "futex_word=0x55d5c2a7e3c8) at ./nptl/futex-internal.c:87",
              "__GI___futex_abstimed_wait_cancelable64 (...) at ./nptl/futex-internal.c:139",
              "0x00007f4b3a893a41 in do_futex_wait (sem=sem@entry=0x55d5c2a7e3c8, abstime=0x0, clockid=0) at ./nptl/sem_waitcommon.c:111",
              "0x00007f4b3a893ad4 in __new_sem_wait_slow64 (sem=0x55d5c2a7e3c8, abstime=0x0, clockid=0) at ./nptl/sem_waitcommon.c:183",
              "0x000055d5c09e2d3b in PyThread_acquire_lock_timed ()"]
    else:
        fr = ["0x00007f4b3a9147e2 in __GI___libc_write (fd=1, buf=0x55d5c3f11a30, nbytes=97) at ../sysdeps/unix/sysv/linux/write.c:26",
              "0x000055d5c0a1c5a7 in _Py_write ()", "0x000055d5c0a61d2c in _io_FileIO_write ()"]
    for i, f in enumerate(fr):
        if f.startswith("0x") or " in " in f[:40]:
            out.append((f"#{i:<2} {f}", ()))
        else:
            out.append((f"#{i:<2} 0x{0x7f0000000000 + rng.randint(0, 0xffffff) * 0x10:016x} in {f}", ()))
    out.append(("", ()))
    return out


def smi_table(ctx, host, t, rows, procs=True, fail_local=None, fail_kind=None):
    """rows: per local GPU dict(util, pwr, temp, mem, ecc, pstate)."""
    drv, cu = ctx.driver, ctx.cuda_drv
    out = [ctx.ts(host, t, "smi") + "       "]
    if fail_kind == "nodev":
        out.append(f"Unable to determine the device handle for GPU{ctx.pci_smi(fail_local)}: Unknown Error")
        return out
    sep = "+-----------------------------------------+------------------------+----------------------+"
    out.append("+" + "-" * 89 + "+")
    out.append(f"| NVIDIA-SMI {drv:<22} Driver Version: {drv:<14} CUDA Version: {cu:<9}|".ljust(90)[:90] + "|")
    out.append("|-----------------------------------------+------------------------+----------------------+")
    out.append("| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |")
    out.append("| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |")
    out.append("|                                         |                        |               MIG M. |")
    out.append("|=========================================+========================+======================|")
    for L, row in enumerate(rows):
        name = ctx.plat["name"]
        c1 = f"  {L:>2}  {name}".ljust(36) + "  On  "
        c1 = c1[:41].ljust(41)
        c2 = f"   {ctx.pci_smi(L)} Off ".rjust(24)
        ecc = row.get("ecc", "0")
        c3 = f"{ecc:>21} "
        out.append(f"|{c1}|{c2}|{c3}|")
        pw = f"{row['pwr']}W" if isinstance(row["pwr"], int) else row["pwr"]
        cap = f"{ctx.plat['pwr']}W"
        c1 = f" N/A   {row['temp']:>3}    {row.get('pstate', 'P0')}".ljust(28) + f"{pw:>6} / {cap:>5} "
        c1 = c1[:41].rjust(41)
        mem = f"{row['mem']}MiB /  {ctx.plat['mem']}MiB "
        c2 = mem.rjust(24)
        util = row["util"]
        c3 = f"{util:>8}      Default "
        c3 = c3.rjust(22)
        out.append(f"|{c1}|{c2}|{c3}|")
        out.append("|                                         |                        |             Disabled |")
        out.append(sep)
    if procs:
        out.append("")
        out.append("+" + "-" * 89 + "+")
        out.append("| Processes:".ljust(90) + "|")
        out.append("|  GPU   GI   CI        PID   Type   Process name                              GPU Memory |")
        out.append("|        ID   ID                                                               Usage      |")
        out.append("|" + "=" * 89 + "|")
        ni = ctx.hosts.index(host)
        for L, row in enumerate(rows):
            if row.get("noproc"):
                continue
            pid = ctx.pid[ni * ctx.gpn + L]
            pm = f"{max(0, row['mem'] - 14)}MiB"
            out.append(f"|  {L:>3}   N/A  N/A  {pid:>8}      C   {ctx.pybin[:40]:<40}{pm:>11} |")
        out.append("+" + "-" * 89 + "+")
    return out


def smi_rows(ctx, mode, special=None):
    """mode: 'busy' (training), 'spin' (NCCL kernels spinning: 100% util, low constant power),
    'idle' (0%), 'compile'."""
    rng = ctx.rng
    rows = []
    for L in range(ctx.gpn):
        m = mode
        if special and L in special:
            m = special[L]
        if m == "busy":
            row = dict(util=f"{rng.randint(88, 100)}%", pwr=rng.randint(int(ctx.plat['pwr'] * 0.6), int(ctx.plat['pwr'] * 0.95)),
                       temp=f"{rng.randint(55, 74)}C", mem=int(ctx.plat['mem'] * rng.uniform(0.75, 0.95)))
        elif m == "spin":
            row = dict(util="100%", pwr=rng.randint(int(ctx.plat['pwr'] * 0.16), int(ctx.plat['pwr'] * 0.22)),
                       temp=f"{rng.randint(36, 44)}C", mem=int(ctx.plat['mem'] * rng.uniform(0.75, 0.95)))
        elif m == "idle":
            row = dict(util="0%", pwr=ctx.plat["idle"] + rng.randint(0, 25), temp=f"{rng.randint(30, 38)}C",
                       mem=int(ctx.plat['mem'] * rng.uniform(0.75, 0.95)))
        elif m == "hot":
            row = dict(util="100%", pwr=rng.randint(int(ctx.plat['pwr'] * 0.45), int(ctx.plat['pwr'] * 0.55)),
                       temp=f"{rng.randint(86, 93)}C", mem=int(ctx.plat['mem'] * rng.uniform(0.75, 0.95)))
        elif m == "err":
            row = dict(util="ERR!", pwr="ERR!", temp="ERR!", mem=int(ctx.plat['mem'] * 0.9), ecc="ERR!",
                       pstate="ERR!")
        elif m == "ecc":
            row = dict(util="100%", pwr=rng.randint(int(ctx.plat['pwr'] * 0.16), int(ctx.plat['pwr'] * 0.22)),
                       temp=f"{rng.randint(36, 44)}C", mem=int(ctx.plat['mem'] * 0.9), ecc=str(rng.randint(1, 4)))
        else:
            raise ValueError(m)
        rows.append(row)
    return rows


def smi_csv(ctx, host, t, n, interval, per_gpu):
    """per_gpu: callable(L, i) -> (util, pwr, temp, sm_clock)."""
    out = ["timestamp, index, pci.bus_id, utilization.gpu [%], power.draw [W], temperature.gpu, clocks.sm [MHz]"]
    for i in range(n):
        tt = t + i * interval
        for L in range(ctx.gpn):
            u, p, tmp, clk = per_gpu(L, i)
            out.append(f"{ctx.ts(host, tt + L * 0.002, 'csv')}, {L}, {ctx.pci_smi(L)}, {u} %, {p:.2f} W, {tmp}, {clk} MHz")
    return out


def top_snapshot(ctx, host, t, states, extra=()):
    """states: per local rank (state letter, cpu%)."""
    rng = ctx.rng
    up_days = int(ctx.boot[host] // 86400)
    out = [f"top - {ctx.ts(host, t, 'hms')} up {up_days} days, {rng.randint(0, 23):2d}:{rng.randint(0, 59):02d},  "
           f"1 user,  load average: {rng.uniform(1, 12):.2f}, {rng.uniform(1, 12):.2f}, {rng.uniform(1, 12):.2f}",
           f"Tasks: {rng.randint(600, 1400)} total,   {rng.randint(1, 9)} running, {rng.randint(590, 1390)} sleeping,"
           f"   0 stopped,   0 zombie",
           f"%Cpu(s): {rng.uniform(1, 30):4.1f} us,  {rng.uniform(0, 3):3.1f} sy,  0.0 ni, {rng.uniform(60, 98):4.1f} id,"
           f"  {rng.uniform(0, 2):3.1f} wa,  0.0 hi,  0.1 si,  0.0 st",
           "MiB Mem : 2063788.0 total, 1312044.5 free, 501223.8 used, 250519.7 buff/cache",
           "MiB Swap:      0.0 total,      0.0 free,      0.0 used. 1562564.2 avail Mem",
           "",
           "    PID USER      PR  NI    VIRT    RES    SHR S  %CPU  %MEM     TIME+ COMMAND"]
    ni = ctx.hosts.index(host)
    rows = []
    for L, (st, cpu) in enumerate(states):
        r = ni * ctx.gpn + L
        rows.append((cpu, f"{ctx.pid[r]:>7} {ctx.user[:8]:<8}  20   0  {rng.randint(90, 140):>4}.{rng.randint(0, 9)}g  "
                     f"{rng.randint(20, 60):>3}.{rng.randint(0, 9)}g  {rng.randint(1, 9)}.{rng.randint(0, 9)}g {st} "
                     f"{cpu:5.1f}   {rng.uniform(1, 3):3.1f} {rng.randint(100, 2000):>5}:{rng.randint(0, 59):02d}.{rng.randint(0, 99):02d} "
                     f"{ctx.pybin.split('/')[-1]}", (f"PS:{r}:{st}",)))
    for pid, st, cpu, cmd in extra:
        rows.append((cpu, f"{pid:>7} {ctx.user[:8]:<8}  20   0  {rng.randint(20, 40):>4}.{rng.randint(0, 9)}g  "
                     f"{rng.randint(1, 9):>3}.{rng.randint(0, 9)}g  {rng.randint(1, 9)}.{rng.randint(0, 9)}g {st} "
                     f"{cpu:5.1f}   0.4 {rng.randint(10, 300):>5}:{rng.randint(0, 59):02d}.{rng.randint(0, 99):02d} {cmd}", ()))
    rows.sort(key=lambda x: -x[0])
    return [(l, ()) for l in out] + [(l, tg) for _, l, tg in rows]


def kmsg(ctx, host, t, msg, style):
    if style == "kmono":
        return f"{ctx.ts(host, t, 'kmono')} {msg}"
    if style == "kT":
        return f"{ctx.ts(host, t, 'kT')} {msg}"
    return f"{ctx.ts(host, t, 'journal')} {short(host)} kernel: {msg}"


def dmesg_noise(ctx, host, t_from, t_to, n):
    rng = ctx.rng
    pool = ["perf: interrupt took too long (3145 > 3126), lowering kernel.perf_event_max_sample_rate to 63500",
            "workqueue: drm_fb_helper_damage_work hogged CPU for >10000us 4 times, consider switching to WQ_UNBOUND",
            "audit: type=1400 audit({ts}:412): apparmor=\"DENIED\" operation=\"open\" profile=\"snap.lxd.daemon\" name=\"/proc/sys/kernel/osrelease\" pid=4411 comm=\"lxd\" requested_mask=\"r\" denied_mask=\"r\" fsuid=0 ouid=0",
            "IPv6: ADDRCONF(NETDEV_CHANGE): veth{x}: link becomes ready",
            "docker0: port 1(veth{x}) entered forwarding state",
            "nvidia-nvswitch3: open (major=506)",
            "Lustre: lustre-OST0012-osc-ffff9c2a8e1f1000: Connection restored to 10.4.0.21@o2ib (at 10.4.0.21@o2ib)",
            "TCP: request_sock_TCP: Possible SYN flooding on port 29500. Sending cookies.  Check SNMP counters.",
            "hrtimer: interrupt took 12345 ns",
            "nfs: server storage01 OK",
            "pcieport 0000:00:01.0: AER: Corrected error received: 0000:01:00.0",
            "mlx5_core 0000:0c:00.0: mlx5_pcie_event:301:(pid 1234): PCIe slot advertised sufficient power (75W).",
            "EXT4-fs (nvme0n1p2): re-mounted. Opts: errors=remount-ro. Quota mode: none."]
    out = []
    for _ in range(n):
        tt = rng.uniform(t_from, t_to)
        m = rng.choice(pool).format(h=rand_hex(rng, 32), ts=f"{rng.randint(1600000000, 1800000000)}.{rng.randint(100, 999)}",
                                    x=rand_hex(rng, 7))
        out.append((tt, m))
    return out


def fr_summary(ctx, seq, coll, missing, sizes, state="scheduled", culprit=None, err_type=None, err_detail=None):
    rec = seq - 1 if ctx.rng.random() < 0.7 else seq + ctx.rng.randint(2, 40)
    ex = ", ".join(str(x) for x in range(ctx.world))
    out = []
    if culprit is None:
        out.append((f"Not all ranks joining collective: sequence number: {seq}", ()))
        out.append((f"internal record id: {rec}", ()))
        out.append(("group info: 0:default_pg", ()))
        out.append((f"collective: {coll}", ()))
        out.append((f"missing ranks: {{{', '.join(str(x) for x in sorted(missing))}}}", ("FRMISS",) +
                    tuple(f"R:fr:{m}" for m in missing)))
        out.append((f"input sizes: [{sizes}]", ()))
        out.append((f"output sizes: [{sizes}]", ()))
        out.append((f"world size: {ctx.world}", ()))
        out.append((f"expected ranks: {{{ex}}}", ()))
        out.append((f"collective state: {state}", ()))
    else:
        out.append((f"Mismatch found for collective: sequence number: {seq}", ()))
        out.append((f"internal record id: {rec}", ()))
        out.append(("group info: 0:default_pg", ()))
        out.append((f"collective: {coll}", ()))
        out.append((f"input sizes: [{sizes}]", ()))
        out.append((f"world size: {ctx.world}", ()))
        out.append((f"expected ranks: {{{ex}}}", ()))
        out.append((f"collective state: {state}", ()))
        out.append((f"error msg: Culprit rank {culprit}; Error type: {err_type}, {err_detail}", ("FRCULPRIT", f"R:fr:{culprit}")))
    out.append(("collective stack trace:", ()))
    for fn, p, ln in (lib_frames("wait", ctx) + outer_frames(ctx))[:6]:
        out.append((f" {fn} at {fullpath(ctx, p)}:{ln}", ()))
    return out


# --------------------------------------------------------------------------------------
# proofs: what a careful reader needs to see to name the initiator
# --------------------------------------------------------------------------------------


def P_all(*tags):
    return lambda S: all(S[t] > 0 for t in tags)


def P_any(*tags):
    return lambda S: any(S[t] > 0 for t in tags)


def P_absent(ctx, r):
    """every other rank's watchdog timeout is visible and r's is not."""
    def f(S):
        seen = {x for x in range(ctx.world) if S[f"WD:{x}"] > 0}
        return len(seen) == ctx.world - 1 and r not in seen
    return f


def P_absent_node(ctx, ni):
    """the ranks without a visible watchdog timeout are exactly one node's (or a subset of it)."""
    def f(S):
        if ctx.world <= ctx.gpn:
            return False
        seen = {x for x in range(ctx.world) if S[f"WD:{x}"] > 0}
        missing = set(range(ctx.world)) - seen
        return bool(missing) and missing <= set(ctx.ranks_on(ni)) and len(seen) >= ctx.world - ctx.gpn
    return f


def P_lowseq(ctx, r, enq):
    """r reports a lower last-enqueued sequence than (several) others."""
    def f(S):
        if S[f"SEQ:{r}:{enq}"] == 0:
            return False
        others = sum(1 for x in range(ctx.world) if x != r and S[f"SEQ:{x}:{enq + 1}"] > 0)
        return others >= min(2, ctx.world - 1)
    return f


# --------------------------------------------------------------------------------------
# story: startup, steps, aftermath
# --------------------------------------------------------------------------------------


def startup(ctx):
    rng = ctx.rng
    ctx.t_init = rng.uniform(25, 160) + (0 if ctx.world < 256 else rng.uniform(60, 240))
    for h in ctx.hosts:
        t = rng.uniform(0.5, 3.0)
        if ctx.era == "2.1":
            ctx.ev(t, h, None, "agent", f"[{ctx.ts(h, t, 'pylog')}] torch.distributed.run: [WARNING] ")
            ctx.ev(t, h, None, "agent", f"[{ctx.ts(h, t, 'pylog')}] torch.distributed.run: [WARNING] *****************************************")
            ctx.ev(t, h, None, "agent", f"[{ctx.ts(h, t, 'pylog')}] torch.distributed.run: [WARNING] Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. ")
            ctx.ev(t, h, None, "agent", f"[{ctx.ts(h, t, 'pylog')}] torch.distributed.run: [WARNING] *****************************************")
        else:
            ctx.ev(t, h, None, "agent", agent_line(ctx, h, t, "W", "", "run"))
            ctx.ev(t, h, None, "agent", "*****************************************")
            ctx.ev(t, h, None, "agent", "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. ")
            ctx.ev(t, h, None, "agent", "*****************************************")
    # script banner / warnings from ranks
    r0 = ctx.print_rank
    h0 = ctx.host_of(r0)
    t = rng.uniform(8, 20)
    ctx.ev(t, ctx.host_of(0), 0, "out", f"torch {ctx.torch} cuda {ctx.cuda} nccl {ctx.nccl} | world_size={ctx.world} "
           f"nodes={ctx.nnodes} gpus_per_node={ctx.gpn}")
    noisy = [
        f"{ctx.sitepk}/torch/utils/checkpoint.py:1399: FutureWarning: `torch.cpu.amp.autocast(args...)` is deprecated. Please use `torch.amp.autocast('cpu', args...)` instead.",
        f"{ctx.sitepk}/torch/distributed/fsdp/_init_utils.py:440: UserWarning: FSDP is switching to use `NO_SHARD` instead of ShardingStrategy.FULL_SHARD since the world size is 1.",
        f"{ctx.sitepk}/transformers/training_args.py:1575: FutureWarning: `evaluation_strategy` is deprecated and will be removed in version 4.46 of Transformers. Use `eval_strategy` instead",
        "[W socket.cpp:663] [c10d] The client socket has failed to connect to [{m}]:29500 (errno: 99 - Cannot assign requested address).",
        "UserWarning: torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly.",
        f"{ctx.sitepk}/torch/_inductor/compile_fx.py:167: UserWarning: TensorFloat32 tensor cores for float32 matrix multiplication available but not enabled. Consider setting `torch.set_float32_matmul_precision('high')` for better performance.",
    ]
    for r in sorted(set([0, r0, rng.randrange(ctx.world)])):
        for line in rng.sample(noisy, 2):
            if "FSDP is switching" in line and (ctx.world > 1 or ctx.fw != "fsdp"):
                continue
            if "transformers" in line and ctx.fw != "hf":
                continue
            ctx.ev(t + rng.uniform(0, 10), ctx.host_of(r), r, "err", line.replace("{m}", short(ctx.hosts[0])))
    if ctx.era_ge("2.3") and rng.random() < 0.6:
        for r in rng.sample(range(ctx.world), min(ctx.world, 3)):
            ctx.ev(ctx.t_init - rng.uniform(1, 5), ctx.host_of(r), r, "err",
                   f"[rank{r}]:[W{ctx.ts(ctx.host_of(r), ctx.t_init, 'c10')} ProcessGroupNCCL.cpp:4115] [PG ID 0 PG GUID 0 Rank {r}]  using GPU {ctx.local_of(r)} to perform barrier as devices used by this process are currently unknown. This can potentially cause a hang if this rank to GPU mapping is incorrect.Specify device_ids in barrier() to force use of a particular device,or call init_process_group() with a device_id.")
    # NCCL init
    if ctx.nccl_debug:
        ranks = range(ctx.world)
        for r in ranks:
            base = ctx.t_init - rng.uniform(3, 12)
            for dt, text, tags in nccl_init_lines(ctx, r, base):
                if ctx.world > 128 and "Init START" in text:
                    continue
                ctx.ev(base + dt, ctx.host_of(r), r, "err" if rng.random() < 0.1 else "out", text,
                       *(tags + ((f"IPMAP:{ctx.host_of(r)}",) if "Bootstrap" in text else ())))


def train_steps(ctx, s_from, s_to, t_from, st=None, printer=None, every=None):
    """emit step lines for steps in (s_from, s_to]; returns time after last step."""
    st = st or ctx.step_time
    every = every or ctx.log_every
    pr = ctx.print_rank if printer is None else printer
    h = ctx.host_of(pr)
    t = t_from
    s = s_from
    while s < s_to:
        s += 1
        t += st * ctx.rng.uniform(0.985, 1.015)
        if s % every == 0:
            ctx.ev(t, h, pr, "out", step_line(ctx, s, t, h, st), "STEP")
    return t


def fates_default(ctx):
    ctx.fate = {r: dict(kind="wait") for r in range(ctx.world)}


def exit_rank(ctx, r, t, code, why=""):
    ctx.fate[r] = dict(kind="dead", t=t, code=code, why=why)


def aftermath(ctx, t_inc, seq, op, nin, nout, end=None, first_timeout_rank=None):
    """collateral damage after the incident. Returns the end time."""
    rng = ctx.rng
    ctx.seq = seq
    waiting = [r for r in range(ctx.world) if ctx.fate[r]["kind"] in ("wait", "mismatch")]
    stuck = [r for r in range(ctx.world) if ctx.fate[r]["kind"] == "stuck"]
    gpuhang = [r for r in range(ctx.world) if ctx.fate[r]["kind"] == "gpuhang"]
    dead = [r for r in range(ctx.world) if ctx.fate[r]["kind"] == "dead"]
    t_wd = t_inc + ctx.timeout_s
    if getattr(ctx, "launch", "torchrun") in ("torchrun", "ds"):
        for r in sorted(dead, key=lambda x: ctx.fate[x]["t"]):
            td = ctx.fate[r]["t"]
            for s2 in ctx.ranks_on(ctx.node_of(r)):
                f = ctx.fate[s2]
                if f["kind"] in ("wait", "stuck", "mismatch", "gpuhang"):
                    ctx.fate[s2] = dict(kind="killed", t=td + 1.0)
        waiting = [r for r in range(ctx.world) if ctx.fate[r]["kind"] in ("wait", "mismatch")]
        stuck = [r for r in range(ctx.world) if ctx.fate[r]["kind"] == "stuck"]
        gpuhang = [r for r in range(ctx.world) if ctx.fate[r]["kind"] == "gpuhang"]
    if end is None:
        if ctx.huge_timeout:
            end = rng.choice(["scancel", "scancel", "timelimit", "running"])
        else:
            end = rng.choice(["watchdog", "watchdog", "watchdog", "scancel", "running"])
            if end != "watchdog":
                # user gave up before the watchdog fired
                pass
    if ctx.layout == "k8s_pods" and end == "timelimit":
        end = "scancel"
    if ctx.layout == "deepspeed_pdsh" and end == "timelimit":
        end = "scancel"
    ctx.end = end
    if end == "watchdog":
        t_end_obs = t_wd + rng.uniform(60, 400)
    else:
        t_end_obs = t_inc + rng.uniform(0.35, 0.9) * (ctx.timeout_s if not ctx.huge_timeout else rng.uniform(1800, 5000))
        if end in ("scancel", "timelimit", "running") and not ctx.huge_timeout:
            t_end_obs = min(t_end_obs, t_wd - rng.uniform(30, 200))
    ctx.t_end = t_end_obs
    exits = {}  # rank -> (t, code)
    for r in dead:
        exits[r] = (ctx.fate[r]["t"], ctx.fate[r]["code"])
    # heartbeat monitor on GPU-hung ranks
    for r in gpuhang:
        if ctx.era_ge("2.3") and ctx.fate[r].get("hb", True):
            th = t_inc + (600 if ctx.era == "2.3" else 480) + rng.uniform(0, 5)
            if th < ctx.t_end:
                for dt, stream, text, tags in heartbeat_stuck_lines(ctx, r, th):
                    ctx.ev(th + dt, ctx.host_of(r), r, stream, text, *tags)
                exits[r] = (th + rng.uniform(15, 70), -6)
    # watchdog timeouts on waiting ranks
    first_to = None
    if end == "watchdog":
        big = ctx.world > 64
        full_set = set(rng.sample(waiting, min(len(waiting), 24))) if big else set(waiting)
        if first_timeout_rank is not None and first_timeout_rank in waiting:
            full_set.add(first_timeout_rank)
        order = []
        for r in waiting:
            tr = t_wd + rng.uniform(0.01, 2.5)
            if r == first_timeout_rank:
                tr = t_wd - 0.5
            order.append((tr, r))
        order.sort()
        first_to = order[0][1] if order else None
        for tr, r in order:
            mm = ctx.fate[r]
            o, a, b = (mm.get("op", op), mm.get("nin", nin), mm.get("nout", nout))
            enq = mm.get("enq", seq)
            comp = mm.get("comp", seq - 1)
            sq = mm.get("seq", seq)
            for dt, stream, text, tags in watchdog_block(ctx, r, tr, sq, o, a, b, enq, comp, full=r in full_set):
                ctx.ev(tr + dt, ctx.host_of(r), r, stream, text, *tags)
            if r not in exits:
                exits[r] = (tr + (60 if ctx.era_ge("2.5") else 0) + rng.uniform(0.05, 1.5), -6)
        # stuck ranks hear about it (2.4+)
        for r in stuck:
            ts_ = (order[0][0] if order else t_wd) + rng.uniform(0.3, 2.0)
            enq = ctx.fate[r].get("enq", seq - 1)
            for dt, stream, text, tags in stuck_rank_dump_lines(ctx, r, ts_, first_to if first_to is not None else 0,
                                                                 enq, enq):
                ctx.ev(ts_ + dt, ctx.host_of(r), r, stream, text, *tags)
            if ctx.era_ge("2.4"):
                exits[r] = (ts_ + rng.uniform(20, 65), -6)
    ctx.exits = exits
    ctx.first_to = first_to
    return end


def finish(ctx):
    """launcher / scheduler reaction to the exits and to the end mode."""
    rng = ctx.rng
    end = ctx.end
    exits = dict(ctx.exits)
    t_end = ctx.t_end
    per_node = {}
    for r, (t, code) in exits.items():
        if end != "watchdog" and t > t_end:
            continue
        per_node.setdefault(ctx.node_of(r), []).append((t, r, code))
    ctx.node_fail = {}
    mode = getattr(ctx, "launch", "torchrun")
    # torchrun agents: first failure on the node -> SIGTERM the rest
    skip = getattr(ctx, "no_cfe_nodes", set())
    if end == "preempted":
        if mode == "torchrun":
            for h in ctx.hosts:
                tt = ctx.t_inc + ctx.rng.uniform(0.01, 0.2)
                ctx.ev(tt, h, None, "agent", agent_line(ctx, h, tt, "W", "Received Signals.SIGTERM death signal, shutting down workers", "agent"))
        elif mode == "srun":
            for ni, h in enumerate(ctx.hosts):
                tt = ctx.t_inc + ctx.rng.uniform(1, 3)
                rr = ctx.ranks_on(ni)
                ctx.ev(tt, ctx.hosts[0], None, "srun", f"srun: error: {short(h)}: tasks {rank_range_str(rr)}: Terminated")
        return
    if mode == "torchrun":
        for ni, lst in sorted(per_node.items()):
            if ni in skip:
                continue
            lst.sort()
            h = ctx.hosts[ni]
            t1, r1, c1 = lst[0]
            ta = t1 + rng.uniform(0.1, 4.0)
            ctx.ev(ta, h, None, "agent", agent_line(ctx, h, ta, "E", f"failed (exitcode: {c1}) local_rank: "
                   f"{ctx.local_of(r1)} (pid: {ctx.pid[r1]}) of binary: {ctx.pybin}"), f"PID:{r1}", f"AGENTFAIL:{r1}")
            fails = [(t1, r1, c1)]
            for t, r, c in lst[1:]:
                if t <= ta + 0.5:
                    fails.append((t, r, c))
            failed = {r for _, r, _ in fails}
            for r in ctx.ranks_on(ni):
                if r in failed:
                    continue
                ctx.ev(ta + 0.01, h, None, "agent", agent_line(ctx, h, ta, "W", f"Sending process {ctx.pid[r]} closing signal SIGTERM"))
                code = -15
                if ctx.fate[r]["kind"] == "gpuhang" and rng.random() < 0.7:
                    ctx.ev(ta + 30.0, h, None, "agent", agent_line(ctx, h, ta + 30, "W",
                           f"Unable to shutdown process {ctx.pid[r]} via Signals.SIGTERM, forcefully exiting via Signals.SIGKILL"))
                    code = -9
                fails.append((ta + 0.2, r, code))
            fails = fails[:1] + sorted(fails[1:], key=lambda x: x[1])
            t_cf = ta + rng.uniform(1, 35)
            for line, tags in child_failed_block(ctx, h, fails):
                ctx.ev(t_cf, h, None, "agent", line, *tags)
            ctx.node_fail[ni] = (t1, r1, c1)
    elif mode == "srun":
        # srun reports each task exit grouped per node and signal
        for ni, lst in sorted(per_node.items()):
            h = ctx.hosts[ni]
            by = {}
            for t, r, c in lst:
                by.setdefault(c, []).append((t, r))
            for c, items in sorted(by.items(), key=lambda kv: min(x[0] for x in kv[1])):
                tmin = min(x[0] for x in items) + rng.uniform(0.2, 2)
                rr = sorted(r for _, r in items)
                what = {1: "Exited with exit code 1", -6: "Aborted (core dumped)", -9: "Killed",
                        -11: "Segmentation fault (core dumped)", -15: "Terminated", -7: "Bus error (core dumped)"}.get(c, f"Exited with exit code {c}")
                if c == -9 and getattr(ctx, "oom_task", None) in rr:
                    what = "Out Of Memory"
                tsk = "task" if len(rr) == 1 else "tasks"
                ctx.ev(tmin, ctx.hosts[0], None, "srun", f"srun: error: {short(h)}: {tsk} {rank_range_str(rr)}: {what}",
                       *([f"SRUN:{rr[0]}:{c}"] if len(rr) == 1 else []), *(["N:srunoom"] if what == "Out Of Memory" else []))
    elif mode == "ds":
        for ni, lst in sorted(per_node.items()):
            lst.sort()
            h = ctx.hosts[ni]
            t1, r1, c1 = lst[0]
            ta = t1 + rng.uniform(0.5, 5.0)
            for r in ctx.ranks_on(ni):
                ctx.ev(ta, h, None, "agent", f"[{ctx.ts(h, ta, 'pylog')}] [INFO] [launch.py:319:sigkill_handler] "
                       f"Killing subprocess {ctx.pid[r]}")
            cmd = f"['{ctx.pybin}', '-u', '{ctx.script}', '--local_rank={ctx.local_of(r1)}', '--deepspeed', '--deepspeed_config', 'ds_config.json']"
            ctx.ev(ta + 0.2, h, None, "agent", f"[{ctx.ts(h, ta + 0.2, 'pylog')}] [ERROR] [launch.py:325:sigkill_handler] "
                   f"{cmd} exits with return code = {c1}", f"CFEROOT:{r1}:{c1}", f"CFE:{r1}:{c1}")
            ctx.node_fail[ni] = (t1, r1, c1)
            ctx.ev(ta + 1.0, ctx.hosts[0], None, "launcher", f"pdsh@{short(ctx.hosts[0])}: {short(h)}: ssh exited with exit code 1")
    # end of observation: the scheduler / user signals the launchers
    if end in ("scancel", "timelimit") and mode == "torchrun":
        for h in ctx.hosts:
            tt = t_end + rng.uniform(0.01, 0.4)
            ctx.ev(tt, h, None, "agent", agent_line(ctx, h, tt, "W", "Received Signals.SIGTERM death signal, shutting down workers", "agent")
                   if ctx.era != "2.1" else f"[{ctx.ts(h, tt, 'pylog')}] torch.distributed.elastic.agent.server.api: [WARNING] "
                   "Received Signals.SIGTERM death signal, shutting down workers")
    if end in ("scancel", "timelimit"):
        ctx.ev(t_end, ctx.hosts[0], None, "end", end)
    return


def end_lines(ctx):
    """scheduler lines at the end of a cancelled / timed-out job (slurm)."""
    rng = ctx.rng
    h0 = ctx.hosts[0]
    t = ctx.t_end
    out = []
    if ctx.end == "scancel":
        out.append((t, f"slurmstepd: error: *** STEP {ctx.jobid}.0 ON {short(h0)} CANCELLED AT {ctx.ts(h0, t, 'slurm')} ***"))
        out.append((t + 0.1, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish."))
        out.append((t + 0.2, f"slurmstepd: error: *** JOB {ctx.jobid} ON {short(h0)} CANCELLED AT {ctx.ts(h0, t, 'slurm')} ***"))
    elif ctx.end == "timelimit":
        out.append((t, f"slurmstepd: error: *** JOB {ctx.jobid} ON {short(h0)} CANCELLED AT {ctx.ts(h0, t, 'slurm')} DUE TO TIME LIMIT ***"))
        out.append((t + 0.1, f"slurmstepd: error: *** STEP {ctx.jobid}.0 ON {short(h0)} CANCELLED AT {ctx.ts(h0, t, 'slurm')} DUE TO TIME LIMIT ***"))
        out.append((t + 0.3, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish."))
    return out


# --------------------------------------------------------------------------------------
# artifacts and shared incident helpers
# --------------------------------------------------------------------------------------


def art(ctx, kind, host, lines, rank=None, title=None, t=None, fname=None):
    ctx.arts.append(dict(kind=kind, host=host, lines=list(lines), rank=rank, title=title, t=t, fname=fname))


def pick_init(ctx, avoid0=True):
    rng = ctx.rng
    r = rng.randrange(ctx.world)
    if avoid0 and r == 0 and ctx.world > 1 and rng.random() < 0.75:
        r = rng.randrange(1, ctx.world)
    return r


def run_until_incident(ctx):
    rng = ctx.rng
    n_logged = rng.randint(6, 110)
    s_inc = ctx.s0 + n_logged * ctx.log_every + rng.randint(0, ctx.log_every - 1)
    t_first = ctx.t_init + rng.uniform(5, 40)
    t = train_steps(ctx, ctx.s0, s_inc, t_first)
    ctx.s_last = s_inc
    ctx.t_inc = t + rng.uniform(0.1, 0.9) * ctx.step_time
    seq = ctx.seq_base + (s_inc - ctx.s0 + 1) * ctx.seq_per_step + rng.randint(0, ctx.seq_per_step - 1)
    return seq


def base_run(ctx):
    fates_default(ctx)
    startup(ctx)
    seq = run_until_incident(ctx)
    op, nin, nout = op_for(ctx)
    return seq, op, nin, nout


def dmesg_art(ctx, host, items, noise=None):
    """items: (t, msg, tags). Writes one kernel-log artifact for host."""
    rng = ctx.rng
    style = ctx.kstyle
    tmin = min([x[0] for x in items] + [ctx.t_inc]) - rng.uniform(3000, 40000)
    tmax = max([x[0] for x in items] + [ctx.t_inc]) + rng.uniform(60, 1200)
    allit = [(t, m, tg) for t, m, tg in items]
    for t, m in dmesg_noise(ctx, host, tmin, tmax, noise if noise is not None else rng.randint(3, 14)):
        allit.append((t, m, ()))
    allit.sort(key=lambda x: x[0])
    lines = [(kmsg(ctx, host, t, m, style), tg) for t, m, tg in allit]
    art(ctx, "dmesg", host, lines)
    ctx.arts[-1]["style"] = style


def observe_time(ctx):
    rng = ctx.rng
    hi = ctx.t_end if ctx.end != "watchdog" else ctx.t_inc + ctx.timeout_s
    lo = ctx.t_inc + min(240, (hi - ctx.t_inc) * 0.3)
    return rng.uniform(lo, max(lo + 1, hi - 20))


def collect_stacks(ctx, t, ranks, kind_of, tool=None, note_host=True):
    """operator attaches stacks of `ranks`. kind_of(r) -> (main_kind, state, tagline)."""
    rng = ctx.rng
    if tool is None:
        tool = rng.choice(["pyspy", "pyspy", "pyspy", "pyspy_native", "pystack"])
    naming = rng.choice(["rank", "hostlocal", "hostpid", "hostpid"])
    ctx.pyspy_old = rng.random() < 0.3
    for r in ranks:
        mk, state, tagline = kind_of(r)
        attributable = naming in ("rank", "hostlocal")
        if not attributable:
            tagline = tuple(x.replace("R:stack:", "R:stackP:") for x in tagline)
        h = ctx.host_of(r)
        if tool.startswith("pyspy"):
            lines = pyspy_dump(ctx, r, mk, state, native=tool.endswith("native"),
                               threads=rng.choice([("pin",), ("pin", "tqdm"), ("wandb",), ("pin", "wandb")]),
                               tagline=tagline)
        else:
            lines = pystack_dump(ctx, r, mk, native=True, tagline=tagline)
        if naming == "rank":
            fn = f"rank{r:0{len(str(ctx.world - 1))}d}.txt"
        elif naming == "hostlocal":
            fn = f"{short(h)}_local{ctx.local_of(r)}.txt"
        else:
            fn = f"{short(h)}_{ctx.pid[r]}.txt"
        art(ctx, "stack", h, lines, rank=r, t=t, fname=fn,
            title=f"{'py-spy dump' if tool.startswith('pyspy') else 'pystack remote'}"
                  f"{' --native' if tool.endswith('native') else ''} --pid {ctx.pid[r]}")
    return naming


def stack_proofs(ctx, r):
    ctx.rank_proofs.append(P_any(f"R:stack:{r}"))
    ctx.rank_proofs.append(P_all(f"R:stackP:{r}", f"PID:{r}"))


def std_stack_sample(ctx, init, include_init, n_other=None):
    rng = ctx.rng
    others = [x for x in range(ctx.world) if x != init]
    if n_other is None:
        n_other = rng.randint(1, min(7, len(others))) if others else 0
    # usually the operator dumps one whole node
    if rng.random() < 0.5 and ctx.gpn > 1:
        ni = rng.randrange(ctx.nnodes)
        pick = [x for x in ctx.ranks_on(ni) if x != init][:8]
    else:
        pick = rng.sample(others, min(n_other, len(others)))
    if include_init:
        pick = sorted(set(pick + [init]))
    return sorted(pick)


def gpu_smi_art(ctx, host, t, rows, fail_local=None, fail_kind=None, tags=()):
    lines = smi_table(ctx, host, t, rows, procs=ctx.rng.random() < 0.7, fail_local=fail_local, fail_kind=fail_kind)
    out = []
    for l in lines:
        tg = tags if (fail_kind and "Unable" in l) or ("ERR!" in l) else ()
        for L in range(ctx.gpn):
            if ctx.pci_smi(L) in l and "Unable" not in l:
                tg = tg + (f"SMIMAP:{short(host)}:{L}",)
        out.append((l, tg))
    art(ctx, "smi", host, out, t=t)


def xid_idx_proof(ctx, r):
    """Xid names a PCI address; nvidia-smi (or the GSP line) turns it into a GPU index = local rank."""
    h, L = short(ctx.host_of(r)), ctx.local_of(r)
    return lambda S: S["N:xid"] > 0 and (S["N:xidgpu"] > 0 or S[f"SMIMAP:{h}:{L}"] > 0) and hostmap_ok(ctx, S, r)


def maybe_fr(ctx, seq, missing, coll="nccl:all_reduce", sizes="[25690112]", culprit=None, et=None, detail=None):
    lines = fr_summary(ctx, seq, coll, missing, sizes, culprit=culprit, err_type=et, err_detail=detail)
    head = [(f"$ torchfrtrace {rng_dir(ctx)} --prefix nccl_trace_rank_ -j", ()),
            (f"loaded {ctx.world} files in {ctx.rng.uniform(0.4, 20):.1f}s", ())]
    art(ctx, "fr", None, head + lines)


def fr_name(op):
    return "nccl:" + {"ALLREDUCE": "all_reduce", "ALLGATHER": "all_gather", "_ALLGATHER_BASE": "_allgather_base",
                      "_REDUCE_SCATTER_BASE": "_reduce_scatter_base", "BROADCAST": "broadcast",
                      "COALESCED": "coalesced", "BARRIER": "barrier"}.get(op, op.lower())


def rng_dir(ctx):
    return ctx.rng.choice(["/tmp/fr_dumps", f"{ctx.workdir}/fr", "./nccl_traces", f"/scratch/{ctx.user}/fr_{ctx.jobid}"])


def cuda_err_lines(ctx, r, t, msg, where="watchdog"):
    """a rank's CUDA error surfacing in the PG watchdog (abort) -> events."""
    h = ctx.host_of(r)
    P = pgp(ctx, r)
    wname = "NCCL watchdog thread" if ctx.era in ("2.1", "2.3") else "Process group watchdog thread"
    cls = "std::runtime_error" if ctx.era == "2.1" else "c10::DistBackendError"
    full = f"{P}{wname} terminated with exception: CUDA error: {msg}"
    lines = [(c10p(ctx, r, h, t, "E", "term") + full, ("OWN", "CAUSE", f"R:own:{r}")),
             ("CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.", ()),
             ("For debugging consider passing CUDA_LAUNCH_BLOCKING=1", ()),
             ("Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.", ()),
             ("", ()),
             (f"terminate called after throwing an instance of '{cls}'", ()),
             (f"  what():  {full}", ("CAUSE", f"R:own:{r}")),
             ("CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.", ()),
             (f"Exception raised from c10_cuda_check_implementation at {'/pytorch' if ctx.era_ge('2.6') else '..'}/c10/cuda/CUDAException.cpp:43 (most recent call first):", ())]
    lib = f"{ctx.sitepk}/torch/lib"
    for i, f in enumerate([f"c10::Error::Error(c10::SourceLocation, std::string) + 0x96 ({hexaddr(ctx.rng)} in {lib}/libc10.so)",
                           f"c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, int, bool) + 0x118 ({hexaddr(ctx.rng)} in {lib}/libc10_cuda.so)",
                           f"c10d::ProcessGroupNCCL::WorkNCCL::finishedGPUExecutionInternal() const + 0x56 ({hexaddr(ctx.rng)} in {lib}/libtorch_cuda.so)",
                           f"c10d::ProcessGroupNCCL::watchdogHandler() + 0x233 ({hexaddr(ctx.rng)} in {lib}/libtorch_cuda.so)"]):
        lines.append((f"frame #{i}: {f}", ()))
    for k, (text, tags) in enumerate(lines):
        ctx.ev(t + k * 0.0005, h, r, "err", text, *tags)


def exc_events(ctx, r, t, frames, exc, tag=True):
    h = ctx.host_of(r)
    lines = py_traceback(ctx, r, frames, exc)
    for k, text in enumerate(lines):
        tags = ()
        if tag and k == len(lines) - len(exc.split("\n")):
            tags = ("OWN", "CAUSE", f"R:own:{r}")
        ctx.ev(t + k * 0.0002, h, r, "err", text, *tags)


def kern_style(ctx):
    return ctx.rng.choice(["kmono", "kmono", "kT", "journal"])


def own_proofs(ctx, r):
    ctx.rank_proofs.append(P_any(f"R:own:{r}"))
    ctx.node_proofs.append(P_any(f"N:own:{r}"))


def cfe_proofs(ctx, r, code):
    """the launcher names r with this exit code as root cause / failure on its node."""
    ctx.rank_proofs.append(P_any(f"CFEROOT:{r}:{code}"))
    ctx.rank_proofs.append(P_any(f"SRUN:{r}:{code}"))


# --------------------------------------------------------------------------------------
# causes
# --------------------------------------------------------------------------------------


def gpu_uuid(rng):
    return f"GPU-{rand_hex(rng, 8)}-{rand_hex(rng, 4)}-{rand_hex(rng, 4)}-{rand_hex(rng, 4)}-{rand_hex(rng, 12)}"


def waiting_kind(ctx):
    if not hasattr(ctx, "wait_kind"):
        ctx.wait_kind = "item" if ctx.fw in ("ddp",) and ctx.rng.random() < 0.5 else "wait"
    return ctx.wait_kind


def c_gpu_hardware(ctx):
    rng = ctx.rng
    seq, op, nin, nout = base_run(ctx)
    r = pick_init(ctx)
    h, L = ctx.host_of(r), ctx.local_of(r)
    t = ctx.t_inc
    xid = rng.choice([119, 119, 79, 79, 109])
    ctx.fate[r] = dict(kind="gpuhang")
    pci = ctx.pci_kernel(L)
    pid = ctx.pid[r]
    items = [(t - 0.02, f"NVRM: GPU at {pci}: {gpu_uuid(rng)}", ()),
             (t - 0.02, f"NVRM: GPU Board Serial Number: {rng.randint(10 ** 12, 10 ** 13 - 1)}", ())]
    if xid == 119:
        fn = rng.choice([("76", "GSP_RM_CONTROL", "0x20801348 0x4"), ("103", "GSP_RM_ALLOC", "0x2081 0x4"),
                         ("10", "FREE", "0xc1d00060 0x0")])
        tx = t
        for k in range(rng.randint(1, 4)):
            items.append((tx, f"NVRM: Xid ({pci}): 119, pid={pid}, name=python3, Timeout after 6s of waiting for RPC "
                          f"response from GPU{L} GSP! Expected function {fn[0]} ({fn[1]}) ({fn[2]}).",
                          ("N:xid", "N:xidpid", "N:xidgpu")))
            if k == 0:
                items.append((tx + 0.001, f"NVRM: GPU{L} GSP RPC buffer contains function {fn[0]} ({fn[1]}) and data "
                              f"0x00000000{rand_hex(rng, 8)} 0x0000000000000004.", ()))
                items.append((tx + 0.001, f"NVRM: GPU{L} RPC history (CPU -> GSP):", ()))
                items.append((tx + 0.001, f"NVRM: GPU{L}     entry function                   data0              data1"
                              "              ts_start           ts_end             duration actively_polling", ()))
                for j in range(3):
                    items.append((tx + 0.001, f"NVRM: GPU{L}     {-j:>5} {fn[0]:<3} {fn[1]:<20}  0x00000000{rand_hex(rng, 8)} "
                                  f"0x0000000000000004 0x000{rand_hex(rng, 13)} 0x0000000000000000          y", ()))
            tx += rng.uniform(6, 45)
        ctx.notes = f"GPU {L} on {short(h)} stopped answering (Xid 119, GSP RPC timeout); rank {r} hung inside CUDA and every other rank waited in the collective."
    elif xid == 79:
        items.append((t - 0.3, f"pcieport 0000:{rand_hex(rng, 2)}:01.0: AER: Uncorrected (Fatal) error received: {ctx.pci_dev(L)}", ()))
        items.append((t, f"NVRM: Xid ({pci}): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.", ("N:xid",)))
        items.append((t, f"NVRM: GPU {ctx.pci_dev(L)}: GPU has fallen off the bus.", ("N:xid",)))
        items.append((t + 0.01, "NVRM: A GPU crash dump has been created. If possible, please run", ()))
        items.append((t + 0.01, "NVRM: nvidia-bug-report.sh as root to collect this data before", ()))
        items.append((t + 0.01, "NVRM: the NVIDIA kernel module is unloaded.", ()))
        if rng.random() < 0.6:
            items.append((t + 0.02, f"NVRM: Xid ({pci}): 154, GPU recovery action changed from 0x0 (None) to 0x2 (Node Reboot Required)", ("N:xid",)))
        if rng.random() < 0.5:
            ctx.fate[r] = dict(kind="dead", t=t + rng.uniform(0.5, 4), code=-6)
            cuda_err_lines(ctx, r, t + 0.4, "unspecified launch failure")
        ctx.notes = f"GPU {L} on {short(h)} fell off the bus (Xid 79); rank {r} stopped and the rest of the job waited in {op}."
    else:
        items.append((t, f"NVRM: Xid ({pci}): 109, pid={pid}, name=python3, Ch 000000{rng.randint(10, 99)}, errorString CTX "
                      f"SWITCH TIMEOUT, Info 0x{rand_hex(rng, 5)}", ("N:xid", "N:xidpid")))
        if ctx.driver >= "570":
            items.append((t + 0.01, f"NVRM: Xid ({pci}): 154, GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)", ("N:xid",)))
        ctx.notes = f"Context-switch timeout (Xid 109) on GPU {L} of {short(h)}; rank {r} never finished its kernel and the job hung."
    ctx.init_rank, ctx.init_node = r, h
    ctx.rank_proofs += [P_all("N:xid", f"R:busid:{r}"), P_any(f"R:wdstuck:{r}"), P_all("N:xidpid", f"PID:{r}"),
                        P_all("N:smibad", f"R:busid:{r}"), xid_idx_proof(ctx, r)]
    if ctx.fate[r]["kind"] == "dead":
        cfe_proofs(ctx, r, -6)
    ctx.node_proofs += [P_any("N:xid"), P_any("N:smibad")]
    own_proofs(ctx, r)
    aftermath(ctx, ctx.t_inc, seq, op, nin, nout)
    ctx.kstyle = kern_style(ctx)
    if rng.random() < 0.85:
        dmesg_art(ctx, h, items)
    else:
        ctx.hw_hidden = True
    to = observe_time(ctx)
    if rng.random() < 0.55:
        if xid == 79:
            gpu_smi_art(ctx, h, to, [], fail_local=L, fail_kind="nodev", tags=("N:smibad",))
        elif xid == 119 and rng.random() < 0.5:
            rows = smi_rows(ctx, "spin", special={L: "err"})
            gpu_smi_art(ctx, h, to, rows, tags=("N:smibad",))
        else:
            gpu_smi_art(ctx, h, to, smi_rows(ctx, "spin"))
    if rng.random() < 0.4:
        pick = std_stack_sample(ctx, r, rng.random() < 0.5)
        collect_stacks(ctx, to, pick, lambda x: (waiting_kind(ctx), "active" if x == r else "idle", ()))
    if getattr(ctx, "hw_hidden", False):
        # keep the cause readable: the user quotes the kernel line in the ticket
        ctx.user_quote = items[2][1] if len(items) > 2 else items[-1][1]


def c_ecc_memory(ctx):
    rng = ctx.rng
    seq, op, nin, nout = base_run(ctx)
    r = pick_init(ctx)
    h, L = ctx.host_of(r), ctx.local_of(r)
    t = ctx.t_inc
    pci = ctx.pci_kernel(L)
    phys = rng.randint(0x10000000, 0xfffffff00)
    items = [(t - 0.01, f"NVRM: GPU at {pci}: {gpu_uuid(rng)}", ()),
             (t - 0.01, f"NVRM: GPU Board Serial Number: {rng.randint(10 ** 12, 10 ** 13 - 1)}", ()),
             (t, f"NVRM: Xid ({pci}): 48, pid='<unknown>', name=<unknown>, An uncorrectable double bit error (DBE) has "
                 f"been detected on GPU in the framebuffer at physAddr 0x{phys:x} partition {rng.randint(0, 31)}, "
                 f"subpartition {rng.randint(0, 3)}.", ("N:xid",))]
    if rng.random() < 0.7:
        items.append((t + 0.003, f"NVRM: Xid ({pci}): 63, pid='<unknown>', name=<unknown>, Row Remapper: New row "
                      f"(0x{phys:016x}) marked for remapping, reset gpu to activate.", ("N:xid",)))
    cont = rng.choice(["94", "95"])
    if cont == "94":
        items.append((t + 0.005, f"NVRM: Xid ({pci}): 94, pid={ctx.pid[r]}, name=python3, Contained: SM (0x1). RST: No, D-RST: No",
                      ("N:xid", "N:xidpid")))
    else:
        items.append((t + 0.005, f"NVRM: Xid ({pci}): 95, pid={ctx.pid[r]}, name=python3, Uncontained: LTC TAG (0x2, 0x1). RST: Yes, D-RST: No",
                      ("N:xid", "N:xidpid")))
    if rng.random() < 0.55:
        ctx.fate[r] = dict(kind="dead", t=t + rng.uniform(0.3, 3), code=-6)
        cuda_err_lines(ctx, r, t + 0.2, "uncorrectable ECC error encountered")
        ctx.notes = f"Uncorrectable ECC error (Xid 48, {cont}) on GPU {L} of {short(h)}; rank {r} aborted and the other ranks sat in the collective until the timeout."
    else:
        ctx.fate[r] = dict(kind="gpuhang")
        ctx.notes = f"Uncorrectable ECC error (Xid 48/{cont}) on GPU {L} of {short(h)}; rank {r} wedged and the rest of the job hung."
    ctx.init_rank, ctx.init_node = r, h
    ctx.rank_proofs += [P_all("N:xid", f"R:busid:{r}"), P_all("N:xidpid", f"PID:{r}"), P_any(f"R:wdstuck:{r}"),
                        P_all("N:smiecc", f"R:busid:{r}"), xid_idx_proof(ctx, r),
                        lambda S, h=short(h), L=L, r=r: S["N:smiecc"] > 0 and S[f"SMIMAP:{h}:{L}"] > 0 and hostmap_ok(ctx, S, r)]
    if ctx.fate[r]["kind"] == "dead":
        cfe_proofs(ctx, r, -6)
    ctx.node_proofs += [P_any("N:xid"), P_any("N:smiecc")]
    own_proofs(ctx, r)
    aftermath(ctx, ctx.t_inc, seq, op, nin, nout)
    ctx.kstyle = kern_style(ctx)
    to = observe_time(ctx)
    shown = False
    if rng.random() < 0.8:
        dmesg_art(ctx, h, items)
        shown = True
    if rng.random() < 0.5 or not shown:
        rows = smi_rows(ctx, "spin", special={L: "ecc"})
        gpu_smi_art(ctx, h, to, rows)
        for a in ctx.arts[-1:]:
            a["lines"] = [(tx, tg + ("N:smiecc",) if ctx.pci_smi(L) in tx else tg) for tx, tg in a["lines"]]
        rem = [(f"$ nvidia-smi -q -i {L} -d ROW_REMAPPER", ()), ("", ()),
               ("==============NVSMI LOG==============", ()), ("", ()),
               (f"Timestamp                                 : {ctx.ts(h, to, 'smi')}", ()),
               (f"Driver Version                            : {ctx.driver}", ()),
               (f"CUDA Version                              : {ctx.cuda_drv}", ()), ("", ()),
               ("Attached GPUs                             : " + str(ctx.gpn), ()),
               (f"GPU {ctx.pci_smi(L)}", ("N:smiecc",)),
               ("    Remapped Rows", ()),
               ("        Correctable Error                 : 0", ()),
               ("        Uncorrectable Error               : 1", ("N:smiecc",)),
               ("        Pending                           : Yes", ()),
               ("        Remapping Failure Occurred        : No", ()),
               ("        Bank Remap Availability Histogram", ()),
               ("            Max                           : 639 bank(s)", ()),
               ("            High                          : 1 bank(s)", ()),
               ("            Partial                       : 0 bank(s)", ()),
               ("            Low                           : 0 bank(s)", ()),
               ("            None                          : 0 bank(s)", ())]
        art(ctx, "remap", h, rem, t=to)


def c_nvlink(ctx):
    rng = ctx.rng
    seq, op, nin, nout = base_run(ctx)
    r = pick_init(ctx)
    h, L = ctx.host_of(r), ctx.local_of(r)
    peerL = rng.choice([x for x in range(ctx.gpn) if x != L])
    t = ctx.t_inc
    link = rng.randint(0, 17)
    items = [(t - 0.01, f"NVRM: GPU at {ctx.pci_kernel(L)}: {gpu_uuid(rng)}", ()),
             (t, f"NVRM: Xid ({ctx.pci_kernel(L)}): 74, pid={ctx.pid[r]}, name=python3, NVLink: fatal error detected on link "
                 f"{link}(0x0, 0x0, 0x10000, 0x0, 0x0, 0x0, 0x0)", ("N:xid", "N:xidpid"))]
    if rng.random() < 0.6:
        items.append((t + rng.uniform(0.002, 0.05), f"NVRM: Xid ({ctx.pci_kernel(peerL)}): 74, pid={ctx.pid[ctx.node_of(r) * ctx.gpn + peerL]}, "
                      f"name=python3, NVLink: fatal error detected on link {rng.randint(0, 17)}(0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0)", ()))
    if ctx.driver >= "560" and rng.random() < 0.5:
        items.append((t + 0.06, f"NVRM: Xid ({ctx.pci_kernel(L)}): 154, GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)", ("N:xid",)))
    if rng.random() < 0.5:
        ctx.fate[r] = dict(kind="dead", t=t + rng.uniform(0.5, 3), code=-6)
        tid = ctx.pid[r] + rng.randint(100, 900)
        ctx.ev(t + 0.1, h, r, "err", "")
        ctx.ev(t + 0.1, h, r, "err", nccl_prefix(ctx, r, tid, "enqueue.cc:1556", t) +
               "Cuda failure 'uncorrectable NVLink error detected during the execution'", "OWN", "CAUSE")
        cuda_err_lines(ctx, r, t + 0.3, "uncorrectable NVLink error detected during the execution")
        ctx.notes = f"Fatal NVLink error (Xid 74) on GPU {L} of {short(h)}; rank {r} aborted with a CUDA NVLink error, the others waited in the collective."
    else:
        ctx.fate[r] = dict(kind="gpuhang")
        ctx.notes = f"Fatal NVLink error (Xid 74) on GPU {L} of {short(h)}; intra-node traffic stalled and the job hung."
    ctx.init_rank, ctx.init_node = r, h
    ctx.rank_proofs += [P_all("N:xid", f"R:busid:{r}"), P_all("N:xidpid", f"PID:{r}"), P_any(f"R:wdstuck:{r}"),
                        P_all("N:nvlinkst", f"R:busid:{r}"), xid_idx_proof(ctx, r),
                        lambda S, r=r: S["N:nvlinkst"] > 0 and hostmap_ok(ctx, S, r)]
    if ctx.fate[r]["kind"] == "dead":
        cfe_proofs(ctx, r, -6)
    ctx.node_proofs += [P_any("N:xid"), P_any("N:nvlinkst")]
    own_proofs(ctx, r)
    aftermath(ctx, ctx.t_inc, seq, op, nin, nout)
    ctx.kstyle = kern_style(ctx)
    to = observe_time(ctx)
    shown = False
    if rng.random() < 0.8:
        dmesg_art(ctx, h, items)
        shown = True
    if rng.random() < 0.45 or not shown:
        lines = [(f"$ nvidia-smi nvlink --status -i {L}", ()),
                 (f"GPU {L}: {ctx.plat['name']} (UUID: {gpu_uuid(rng)})", ("N:nvlinkst",))]
        for k in range(18 if ctx.plat["short"] != "A100" else 12):
            lines.append((f"\t Link {k}: " + ("<inactive>" if k == link else "26.562 GB/s"),
                          ("N:nvlinkst",) if k == link else ()))
        art(ctx, "nvlink", h, lines, t=to)


def c_network(ctx):
    rng = ctx.rng
    seq, op, nin, nout = base_run(ctx)
    ni = rng.randrange(ctx.nnodes)
    X = ctx.hosts[ni]
    t = ctx.t_inc
    roce = ctx.layout == "k8s_pods" or rng.random() < 0.3
    nicpci = f"0000:{rng.choice(['0c', '1a', '3f', '5e', '8d', 'a8', 'c1', 'db'])}:00.{rng.randint(0, 1)}"
    ifname = rng.choice(["ens8np0", "enp94s0f0np0", "ibp12s0", "ib3", "eth3", "rdma2"])
    variant = rng.choice(["linkdown", "linkdown", "txtimeout", "flap"])
    items = []
    if variant in ("linkdown", "flap"):
        items.append((t - rng.uniform(0.5, 20), f"mlx5_core {nicpci} {ifname}: Link down", ("N:link",)))
        if variant == "flap":
            for _ in range(rng.randint(2, 5)):
                tt = t + rng.uniform(1, 120)
                items.append((tt, f"mlx5_core {nicpci} {ifname}: Link up", ()))
                items.append((tt + rng.uniform(0.5, 9), f"mlx5_core {nicpci} {ifname}: Link down", ("N:link",)))
    else:
        items.append((t - rng.uniform(0.5, 10), f"NETDEV WATCHDOG: {ifname} (mlx5_core): transmit queue {rng.randint(0, 31)} "
                      f"timed out {rng.randint(5000, 9000)} ms", ("N:link",)))
        items.append((t - 0.2, f"mlx5_core {nicpci} {ifname}: TX timeout detected", ("N:link",)))
        items.append((t - 0.2, f"mlx5_core {nicpci} {ifname}: TX timeout on queue: {rng.randint(0, 31)}, SQ: 0x{rand_hex(rng, 4)}, "
                      f"CQ: 0x{rand_hex(rng, 4)}, SQ Cons: 0x{rand_hex(rng, 3)} SQ Prod: 0x{rand_hex(rng, 3)}, usecs since last trans: "
                      f"{rng.randint(5000000, 9000000)}", ()))
    ctx.init_rank, ctx.init_node = None, X
    ctx.node_proofs += [P_any("N:link"), P_any("N:ibasync"), P_any("N:ibstat"), P_all("N:ibpeer", f"IPMAP:{X}")]
    # NCCL on X notices the port error
    if not roce and rng.random() < 0.7:
        for rr in rng.sample(ctx.ranks_on(ni), min(ctx.gpn, rng.randint(1, 3))):
            tt = t + rng.uniform(0, 2)
            ctx.ev(tt, X, rr, "err", "")
            ctx.ev(tt, X, rr, "err", nccl_prefix(ctx, rr, ctx.pid[rr] + rng.randint(200, 900),
                                                 "transport/net_ib.cc:" + str(rng.choice([85, 104, 137])), tt) +
                   "NET/IB : Got async event : port error", "N:ibasync")
    # peers see completion errors naming X's address
    fast = rng.random() < 0.4 and ctx.nnodes > 1
    peers = [x for x in range(ctx.world) if ctx.node_of(x) != ni]
    if peers and rng.random() < 0.75:
        for p in rng.sample(peers, min(len(peers), rng.randint(1, 6))):
            tt = t + rng.uniform(20, 70)
            port = rng.randint(30000, 60000)
            peer = f"{ctx.ip[X]}<{port}>"
            if ctx.nccl_tuple < (2, 20, 0):
                msg = f"NET/IB : Got completion from peer {peer} with error 12, opcode {rng.choice([0, 1, 129])}, len 0, vendor err 129"
                wf = "transport/net_ib.cc:1296"
            elif ctx.nccl_tuple < (2, 24, 0):
                msg = (f"NET/IB : Got completion from peer {peer} with status=12 opcode=0 len=0 vendor err 129 (Send) "
                       f"localGid ::ffff:{ctx.ip[ctx.host_of(p)]} remoteGids::ffff:{ctx.ip[X]}")
                wf = "transport/net_ib.cc:1733"
            elif ctx.nccl_tuple < (2, 28, 0):
                msg = (f"NET/IB: Got completion from peer {peer} with status=12 opcode=0 len=0 vendor err 129 (Send) "
                       f"localGid ::ffff:{ctx.ip[ctx.host_of(p)]} remoteGids::ffff:{ctx.ip[X]} hca mlx5_{ctx.local_of(p)}")
                wf = "transport/net_ib/p2p.cc:497"
            else:
                msg = (f"NET/IB: Got completion from peer {peer} with status=IBV_WC_RETRY_EXC_ERR(12) opcode=IBV_WC_SEND(0) "
                       f"vendor_err=129 localGid ::ffff:{ctx.ip[ctx.host_of(p)]} remoteGids::ffff:{ctx.ip[X]} hca mlx5_{ctx.local_of(p)}")
                wf = "transport/net_ib/p2p.cc:512"
            hp = ctx.host_of(p)
            ctx.ev(tt, hp, p, "err", "")
            ctx.ev(tt, hp, p, "err", nccl_prefix(ctx, p, ctx.pid[p] + rng.randint(200, 900), wf, tt) + msg, "N:ibpeer")
            if fast:
                P = pgp(ctx, p)
                wname = "NCCL watchdog thread" if ctx.era in ("2.1", "2.3") else "Process group watchdog thread"
                ctx.ev(tt + 1, hp, p, "err", c10p(ctx, p, hp, tt + 1, "E", "term") + P + f"{wname} terminated with exception: "
                       f"NCCL error: remote process exited or there was a network error, NCCL version {ctx.nccl}")
                ctx.ev(tt + 1, hp, p, "err", "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.")
                ctx.ev(tt + 1, hp, p, "err", "Last error:")
                ctx.ev(tt + 1, hp, p, "err", msg)
                ctx.fate[p] = dict(kind="dead", t=tt + rng.uniform(1, 3), code=-6)
    aftermath(ctx, ctx.t_inc, seq, op, nin, nout)
    ctx.kstyle = kern_style(ctx)
    to = observe_time(ctx)
    shown = False
    if rng.random() < 0.7:
        dmesg_art(ctx, X, items)
        shown = True
    if rng.random() < 0.4 or not shown:
        dev = f"mlx5_{rng.randint(0, 7)}"
        lines = [("$ ibstat " + dev, ()), (f"CA '{dev}'", ()), ("\tCA type: MT4129", ()), ("\tNumber of ports: 1", ()),
                 ("\tFirmware version: 28.39.2048", ()), ("\tHardware version: 0", ()),
                 (f"\tNode GUID: 0x{rand_hex(rng, 16)}", ()), (f"\tSystem image GUID: 0x{rand_hex(rng, 16)}", ()),
                 ("\tPort 1:", ()), ("\t\tState: Down", ("N:ibstat",)), ("\t\tPhysical state: Polling", ("N:ibstat",)),
                 ("\t\tRate: 10", ()), ("\t\tBase lid: 65535", ()), ("\t\tLMC: 0", ()), ("\t\tSM lid: 1", ()),
                 ("\t\tCapability mask: 0xa751e848", ()), (f"\t\tPort GUID: 0x{rand_hex(rng, 16)}", ()),
                 ("\t\tLink layer: " + ("Ethernet" if roce else "InfiniBand"), ())]
        art(ctx, "ibstat", X, lines, t=to)
    if rng.random() < 0.3:
        gpu_smi_art(ctx, ctx.hosts[rng.randrange(ctx.nnodes)], to, smi_rows(ctx, "spin"))
    ctx.notes = (f"The fabric link of {short(X)} went down ({'flapping' if variant == 'flap' else variant}); its NCCL traffic "
                 f"stalled and every rank waited in {op} until the timeout.")


def c_cuda_oom(ctx):
    rng = ctx.rng
    seq, op, nin, nout = base_run(ctx)
    r = pick_init(ctx)
    h, L = ctx.host_of(r), ctx.local_of(r)
    t = ctx.t_inc
    tried = rng.choice(["1.50 GiB", "2.00 GiB", "3.91 GiB", "768.00 MiB", "10.25 GiB", "448.00 MiB"])
    cap = ctx.plat["mem"] / 1024.0 - 0.6
    free = rng.uniform(0.05, 1.2)
    if ctx.era_ge("2.3"):
        msg = (f"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate {tried}. GPU {L} has a total capacity of "
               f"{cap:.2f} GiB of which {free * 1024:.2f} MiB is free. Including non-PyTorch memory, this process has "
               f"{cap - free:.2f} GiB memory in use. Of the allocated memory {cap - free - 3.1:.2f} GiB is allocated by "
               f"PyTorch, and {rng.uniform(0.5, 2.9):.2f} GiB is reserved by PyTorch but unallocated. If reserved but "
               "unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid "
               "fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)")
        if not ctx.era_ge("2.4"):
            msg = msg.replace("torch.OutOfMemoryError", "torch.cuda.OutOfMemoryError")
    else:
        msg = (f"torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate {tried}. GPU {L} has a total capacty of "
               f"{cap:.2f} GiB of which {free * 1024:.2f} MiB is free. Including non-PyTorch memory, this process has "
               f"{cap - free:.2f} GiB memory in use. Of the allocated memory {cap - free - 3.1:.2f} GiB is allocated by "
               f"PyTorch, and {rng.uniform(0.5, 2.9):.2f} GiB is reserved by PyTorch but unallocated. If reserved but "
               "unallocated memory is large try setting max_split_size_mb to avoid fragmentation.  See documentation for "
               "Memory Management and PYTORCH_CUDA_ALLOC_CONF")
    variant = rng.choice(["exit", "exit", "skip"])
    ctx.init_rank, ctx.init_node = r, h
    if variant == "exit":
        fr = user_frames(ctx, [(f"{ctx.workdir}/{ctx.script}", rng.randint(150, 230), "train_step", "loss = model(batch).loss"),
                               (f"{ctx.sitepk}/torch/nn/modules/module.py", 1553, "_wrapped_call_impl", "return self._call_impl(*args, **kwargs)"),
                               (f"{ctx.workdir}/model/attention.py", rng.randint(80, 160), "forward",
                                "attn = torch.softmax(scores.float(), dim=-1).to(q.dtype)")])
        exc_events(ctx, r, t, fr, msg)
        ctx.fate[r] = dict(kind="dead", t=t + rng.uniform(0.5, 3), code=1)
        ctx.notes = f"Rank {r} ran out of GPU memory (a long batch) and exited; ranks on the other nodes waited in {op} until the watchdog."
        own_proofs(ctx, r)
        cfe_proofs(ctx, r, 1)
    else:
        ctx.ev(t, h, r, "out", f"[rank{r}] WARNING: CUDA OOM at step {ctx.s_last + 1} (seq_len={rng.choice([8192, 16384, 32768])}); "
               f"skipping batch and emptying cache", f"R:oomskip:{r}", "OOMSKIP", "CAUSE")
        ctx.ev(t + 0.001, h, r, "err", rk(ctx, r) + msg.split(" If reserved")[0], "OOMSKIP")
        ctx.rank_proofs.append(P_any(f"R:oomskip:{r}"))
        ctx.fate[r] = dict(kind="mismatch", nin=rng.choice([1, 2, 4096]), nout=None)
        ctx.fate[r]["nout"] = ctx.fate[r]["nin"]
        ctx.notes = (f"Rank {r} hit CUDA OOM, caught it and skipped the batch, so it issued the next step's collective "
                     f"while everyone else was still in this step's {op}; the job hung until the watchdog.")
    aftermath(ctx, ctx.t_inc, seq, op, nin, nout)
    to = observe_time(ctx)
    if rng.random() < 0.3:
        gpu_smi_art(ctx, rng.choice(ctx.hosts), to, smi_rows(ctx, "spin"))


def c_illegal_memory_access(ctx):
    rng = ctx.rng
    seq, op, nin, nout = base_run(ctx)
    r = pick_init(ctx)
    h, L = ctx.host_of(r), ctx.local_of(r)
    t = ctx.t_inc
    variant = rng.choice(["xid31", "xid31", "xid13", "assert"])
    items = []
    pci = ctx.pci_kernel(L)
    if variant == "xid31":
        items.append((t - 0.001, f"NVRM: Xid ({pci}): 31, pid={ctx.pid[r]}, name=python3, channel 0x{rng.randint(2, 60):08x}, intr 00000000. "
                      f"MMU Fault: ENGINE GRAPHICS GPC{rng.randint(0, 7)} GPCCLIENT_T1_{rng.randint(0, 15)} faulted @ "
                      f"0x{rand_hex(rng, 4)}_{rand_hex(rng, 8)}. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_{rng.choice(['READ', 'WRITE'])}",
                      ("N:xid", "N:xidpid")))
    elif variant == "xid13":
        items.append((t - 0.001, f"NVRM: Xid ({pci}): 13, pid={ctx.pid[r]}, name=python3, Graphics SM Warp Exception on "
                      f"(GPC {rng.randint(0, 7)}, TPC {rng.randint(0, 8)}, SM {rng.randint(0, 1)}): Out Of Range Address",
                      ("N:xid", "N:xidpid")))
        items.append((t - 0.001, f"NVRM: Xid ({pci}): 13, pid={ctx.pid[r]}, name=python3, Graphics Exception: ESR 0x{rand_hex(rng, 6)}=0x{rand_hex(rng, 8)}", ()))
    if variant == "assert":
        for k in range(rng.randint(3, 12)):
            ctx.ev(t + k * 0.0001, h, r, "err", f"/opt/pytorch/aten/src/ATen/native/cuda/IndexKernel.cu:92: operator(): block: "
                   f"[{rng.randint(0, 9000)},0,0], thread: [{rng.randint(0, 127)},0,0] Assertion `-sizes[i] <= index && index < sizes[i] "
                   "&& \"index out of bounds\"` failed.", *(("CAUSE",) if k == 0 else ()))
        fr = user_frames(ctx, [(f"{ctx.workdir}/{ctx.script}", rng.randint(150, 230), "train_step", "loss = loss_fn(logits, labels)"),
                               (f"{ctx.workdir}/model/loss.py", rng.randint(20, 80), "forward", "mask = labels.ne(self.ignore_index)")])
        exc_events(ctx, r, t + 0.01, fr, "RuntimeError: CUDA error: device-side assert triggered\nCUDA kernel errors might be "
                   "asynchronously reported at some other API call, so the stacktrace below might be incorrect.\nFor "
                   "debugging consider passing CUDA_LAUNCH_BLOCKING=1\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n")
        ctx.fate[r] = dict(kind="dead", t=t + rng.uniform(0.5, 3), code=1)
        ctx.notes = f"A device-side assert (index out of bounds) on rank {r} killed it; the ranks on other nodes hung in {op}."
    else:
        cuda_err_lines(ctx, r, t + rng.uniform(0.01, 0.4), "an illegal memory access was encountered")
        ctx.fate[r] = dict(kind="dead", t=t + rng.uniform(0.5, 3), code=-6)
        ctx.notes = f"An illegal memory access (Xid {variant[3:]}) in a kernel on rank {r} ({short(h)} GPU {L}) aborted it; the others waited in {op}."
    ctx.init_rank, ctx.init_node = r, h
    own_proofs(ctx, r)
    ctx.rank_proofs += [P_all("N:xidpid", f"PID:{r}"), P_all("N:xid", f"R:busid:{r}"), xid_idx_proof(ctx, r)]
    ctx.node_proofs += [P_any("N:xid")]
    cfe_proofs(ctx, r, ctx.fate[r]["code"])
    aftermath(ctx, ctx.t_inc, seq, op, nin, nout)
    ctx.kstyle = kern_style(ctx)
    if items and rng.random() < 0.6:
        dmesg_art(ctx, h, items)


PY_EXCS = [
    ("FileNotFoundError: [Errno 2] No such file or directory: '{data}/shard_{n:05d}.bin'", "data/packed.py", "_open_shard",
     "fh = open(path, 'rb')"),
    ("KeyError: 'input_ids'", "data/collate.py", "__call__", "ids = [ex['input_ids'] for ex in batch]"),
    ("ValueError: Expected input batch_size ({a}) to match target batch_size ({b}).", "model/loss.py", "forward",
     "return F.cross_entropy(logits, target)"),
    ("RuntimeError: stack expects each tensor to be equal size, but got [{a}] at entry 0 and [{b}] at entry 3",
     "data/collate.py", "__call__", "return torch.stack(items)"),
    ("UnicodeDecodeError: 'utf-8' codec can't decode byte 0x8b in position 1: invalid start byte", "data/jsonl.py",
     "__iter__", "for line in fh:"),
    ("AssertionError: loss is nan at step {s}", "{script}", "train_step", "assert torch.isfinite(loss), f'loss is nan at step {step}'"),
    ("OSError: [Errno 28] No space left on device", "utils/checkpoint.py", "save_checkpoint", "torch.save(state, tmp_path)"),
    ("ZeroDivisionError: division by zero", "utils/metrics.py", "log_metrics", "tps = tokens / (t1 - t0)"),
]


def c_python_exception(ctx):
    rng = ctx.rng
    seq, op, nin, nout = base_run(ctx)
    variant = rng.choice(["main", "main", "rank0_eval", "thread"])
    r = 0 if variant in ("rank0_eval", "thread") else pick_init(ctx)
    h = ctx.host_of(r)
    t = ctx.t_inc
    exc, path, func, code = rng.choice(PY_EXCS)
    data = rng.choice(["/lustre/datasets/pile_tok", "/mnt/data/mix-v3", "s3cache/fineweb-edu", "/datasets/c4_en"])
    exc = exc.format(data=data, n=rng.randint(0, 40000), a=rng.randint(2, 8), b=rng.randint(9, 16), s=ctx.s_last + 1)
    path = path.replace("{script}", ctx.script)
    fr = user_frames(ctx, [(f"{ctx.workdir}/{ctx.script}", rng.randint(150, 230), "train", "batch = next(it)" if "data" in path else "step_fn()"),
                           (f"{ctx.workdir}/{path}", rng.randint(20, 200), func, code)])
    ctx.init_rank, ctx.init_node = r, h
    if variant == "thread":
        tn = rng.choice(["Thread-7 (_upload_worker)", "Thread-4 (_writer_loop)", "ckpt-writer"])
        lines = [f"Exception in thread {tn}:", "Traceback (most recent call last):",
                 f'  File "/usr/lib/python{ctx.py[:4].rstrip(".")}/threading.py", line 1045, in _bootstrap_inner',
                 "    self.run()",
                 f'  File "{ctx.workdir}/utils/async_ckpt.py", line 88, in _worker',
                 "    self._upload_shard(item)",
                 f'  File "{ctx.workdir}/utils/async_ckpt.py", line 97, in _upload_shard',
                 "    shutil.copyfileobj(src, dst, length=64 << 20)",
                 "OSError: [Errno 28] No space left on device" if rng.random() < 0.6 else
                 "OSError: [Errno 5] Input/output error"]
        for k, l in enumerate(lines):
            ctx.ev(t + k * 0.0002, h, r, "err", l, *(("OWN", "CAUSE", f"R:own:{r}") if k == len(lines) - 1 else ()))
        ctx.fate[r] = dict(kind="stuck", enq=seq - 1)
        ctx.notes = (f"On rank 0 the async checkpoint writer thread died with an exception; the main thread then blocked "
                     f"waiting for it and never entered {op}, so every other rank hung.")
        own_proofs(ctx, r)
        ctx.rank_proofs.append(P_lowseq(ctx, r, seq - 1))
        aftermath(ctx, ctx.t_inc, seq, op, nin, nout)
        to = observe_time(ctx)
        if rng.random() < 0.5:
            pick = std_stack_sample(ctx, r, True)
            collect_stacks(ctx, to, pick, lambda x: ("lock", "idle", (f"R:stack:{x}",)) if x == r else
                           (waiting_kind(ctx), "idle", ()))
            stack_proofs(ctx, r)
        return
    exc_events(ctx, r, t, fr, exc)
    ctx.fate[r] = dict(kind="dead", t=t + rng.uniform(0.3, 2.5), code=1)
    own_proofs(ctx, r)
    cfe_proofs(ctx, r, 1)
    if variant == "rank0_eval":
        ctx.notes = f"Rank 0 raised an uncaught exception ({exc.split(':')[0]}) while the others waited in a barrier; ranks on other nodes hung."
    else:
        ctx.notes = f"Rank {r} raised an uncaught {exc.split(':')[0]} and exited; ranks on the other nodes waited in {op} until the timeout."
    aftermath(ctx, ctx.t_inc, seq, op, nin, nout)


def c_host_oom_kill(ctx):
    rng = ctx.rng
    seq, op, nin, nout = base_run(ctx)
    r = pick_init(ctx)
    h, L = ctx.host_of(r), ctx.local_of(r)
    t = ctx.t_inc
    variant = rng.choice(["rank", "rank", "worker"])
    cg = ctx.layout == "k8s_pods" or rng.random() < 0.3
    head = "Memory cgroup out of memory" if cg else "Out of memory"
    items = []
    if variant == "rank":
        victim, comm = ctx.pid[r], "python3"
        items.append((t - 0.05, f"python3 invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0", ()))
        items.append((t, f"{head}: Killed process {victim} ({comm}) total-vm:{rng.randint(90, 200) * 1048576}kB, "
                      f"anon-rss:{rng.randint(150, 400) * 1048576 // 1024}kB, file-rss:{rng.randint(100000, 900000)}kB, "
                      f"shmem-rss:{rng.randint(10000, 90000)}kB, UID:{rng.randint(1000, 60000)} pgtables:{rng.randint(200000, 800000)}kB "
                      "oom_score_adj:0", ("N:oom", "N:oompid")))
        items.append((t + 0.3, f"oom_reaper: reaped process {victim} ({comm}), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB", ()))
        ctx.fate[r] = dict(kind="dead", t=t, code=-9)
        ctx.oom_task = r
        ctx.notes = f"The kernel OOM killer killed rank {r}'s process on {short(h)} (host RAM); its log just stops and the other ranks waited in {op}."
        ctx.rank_proofs += [P_all("N:oompid", f"PID:{r}"), P_all("N:oom", f"CFEROOT:{r}:-9"), P_any(f"SRUN:{r}:-9"),
                            P_all("N:oom", f"AGENTFAIL:{r}")]
        cfe_proofs(ctx, r, -9)
    else:
        victim = ctx.pid[r] + rng.randint(1000, 9000)
        comm = rng.choice(["pt_data_worker", "python3"])
        items.append((t - 0.05, f"{comm} invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0", ()))
        items.append((t, f"{head}: Killed process {victim} ({comm}) total-vm:{rng.randint(20, 60) * 1048576}kB, "
                      f"anon-rss:{rng.randint(20, 90) * 1048576 // 1024}kB, file-rss:{rng.randint(10000, 90000)}kB, "
                      f"shmem-rss:{rng.randint(1000, 9000)}kB, UID:{rng.randint(1000, 60000)} pgtables:{rng.randint(20000, 80000)}kB "
                      "oom_score_adj:0", ("N:oom",)))
        fr = user_frames(ctx, [(f"{ctx.workdir}/{ctx.script}", rng.randint(150, 230), "train", "batch = next(train_iter)"),
                               (f"{ctx.sitepk}/torch/utils/data/dataloader.py", 631, "__next__", "data = self._next_data()"),
                               (f"{ctx.sitepk}/torch/utils/data/dataloader.py", 1328, "_next_data", "idx, data = self._get_data()"),
                               (f"{ctx.sitepk}/torch/utils/data/dataloader.py", 1146, "_try_get_data",
                                "raise RuntimeError(f'DataLoader worker (pid(s) {pids_str}) exited unexpectedly') from e")])
        exc_events(ctx, r, t + rng.uniform(1, 6), fr, f"RuntimeError: DataLoader worker (pid(s) {victim}) exited unexpectedly")
        ctx.fate[r] = dict(kind="dead", t=t + rng.uniform(6, 9), code=1)
        ctx.notes = (f"The OOM killer on {short(h)} killed a DataLoader worker of rank {r}; the rank died with 'worker exited "
                     f"unexpectedly' and the other ranks waited in {op}.")
        own_proofs(ctx, r)
        cfe_proofs(ctx, r, 1)
    ctx.init_rank, ctx.init_node = r, h
    ctx.node_proofs += [P_any("N:oom"), P_any("N:srunoom"), P_any("N:k8soom")]
    aftermath(ctx, ctx.t_inc, seq, op, nin, nout)
    ctx.kstyle = kern_style(ctx)
    if rng.random() < 0.75:
        dmesg_art(ctx, h, items)
    if getattr(ctx, "launch", "") == "srun" or ctx.layout == "slurm":
        ctx.ev(t + rng.uniform(1, 20), ctx.hosts[0], None, "srun",
               f"slurmstepd: error: Detected 1 oom_kill event in StepId={ctx.jobid}.0. Some of the step tasks have been OOM Killed.", "SLURMOOM")
    ctx.oom_host = h


def c_crash_signal(ctx):
    rng = ctx.rng
    seq, op, nin, nout = base_run(ctx)
    r = pick_init(ctx)
    h, L = ctx.host_of(r), ctx.local_of(r)
    t = ctx.t_inc
    variant = rng.choice(["segv", "segv", "bus", "abort"])
    items = []
    ctx.init_rank, ctx.init_node = r, h
    if variant == "segv":
        lib = rng.choice(["libnccl.so.2", "libtorch_cpu.so", "libc10.so", "_C.cpython-310-x86_64-linux-gnu.so", "libgomp.so.1"])
        items.append((t, f"python3[{ctx.pid[r]}]: segfault at {rng.choice(['0', '8', '18', rand_hex(rng, 12)])} ip "
                      f"0000{rand_hex(rng, 12)} sp 0000{rand_hex(rng, 12)} error {rng.choice([4, 6])} in "
                      f"{lib}[{rand_hex(rng, 12)}+{rand_hex(rng, 6)}] likely on CPU {rng.randint(0, 191)} (core "
                      f"{rng.randint(0, 47)}, socket {rng.randint(0, 1)})", ("N:segv", "N:segvpid")))
        if ctx.use_faulthandler or rng.random() < 0.4:
            ctx.ev(t, h, r, "err", "Fatal Python error: Segmentation fault", "OWN", "CAUSE", f"R:own:{r}")
            ctx.ev(t, h, r, "err", "")
            ctx.ev(t, h, r, "err", f"Thread 0x{0x7f0000000000 + rng.randint(0, 0xffffff) * 0x1000 + 0x740:016x} (most recent call first):")
            for fn, p, ln in (lib_frames("wait", ctx) + outer_frames(ctx))[:6]:
                ctx.ev(t, h, r, "err", f'  File "{fullpath(ctx, p)}", line {ln} in {fn}')
            ctx.ev(t, h, r, "err", "")
            ctx.ev(t, h, r, "err", "Extension modules: numpy.core._multiarray_umath, torch._C, torch._C._fft, "
                   "torch._C._linalg, torch._C._nested, torch._C._nn, torch._C._sparse, torch._C._special (total: 42)")
        code = -11
        ctx.notes = f"Rank {r} died of SIGSEGV in {lib} without a Python error; the job hung in {op} on the other ranks."
    elif variant == "bus":
        ctx.ev(t, h, r, "err", "ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).", "CAUSE")
        fr = user_frames(ctx, [(f"{ctx.workdir}/{ctx.script}", rng.randint(150, 230), "train", "batch = next(train_iter)"),
                               (f"{ctx.sitepk}/torch/utils/data/dataloader.py", 1133, "_try_get_data", "data = self._data_queue.get(timeout=timeout)"),
                               (f"{ctx.sitepk}/torch/utils/data/_utils/signal_handling.py", 73, "handler", "_error_if_any_worker_fails()")])
        exc_events(ctx, r, t + 0.2, fr, f"RuntimeError: DataLoader worker (pid {ctx.pid[r] + rng.randint(500, 4000)}) is killed by signal: Bus error. "
                   "It is possible that dataloader's workers are out of shared memory. Please try to raise your shared memory limit.")
        code = 1
        ctx.notes = f"A DataLoader worker of rank {r} died of SIGBUS (/dev/shm too small) and took the rank down; the others hung in {op}."
    else:
        ctx.ev(t, h, r, "err", f"python3: {ctx.workdir}/csrc/moe_dispatch.cu:211: void dispatch_tokens(const Tensor&, int64_t): "
               "Assertion `num_tokens <= capacity' failed.", "OWN", "CAUSE", f"R:own:{r}")
        ctx.ev(t, h, r, "err", "Fatal Python error: Aborted")
        code = -6
        ctx.notes = f"A C++ assertion in a custom extension aborted rank {r} (SIGABRT); the other ranks waited in {op}."
    ctx.fate[r] = dict(kind="dead", t=t + 0.05, code=code)
    own_proofs(ctx, r)
    cfe_proofs(ctx, r, code)
    ctx.rank_proofs.append(P_all("N:segvpid", f"PID:{r}"))
    ctx.node_proofs.append(P_any("N:segv"))
    aftermath(ctx, ctx.t_inc, seq, op, nin, nout)
    ctx.kstyle = kern_style(ctx)
    if items and rng.random() < 0.6:
        dmesg_art(ctx, h, items)


def c_preemption(ctx):
    rng = ctx.rng
    seq, op, nin, nout = base_run(ctx)
    t = ctx.t_inc
    if ctx.layout == "slurm" or (ctx.layout == "paste" and rng.random() < 0.5):
        # the scheduler preempts the whole job
        ctx.preempt_kind = "slurm"
        h0 = ctx.hosts[0]
        for r in range(ctx.world):
            ctx.fate[r] = dict(kind="dead", t=t + rng.uniform(0.5, 3), code=-15)
        if ctx.fw == "lightning":
            for rr in sorted(set([0, rng.randrange(ctx.world)])):
                ctx.ev(t + 0.2, ctx.host_of(rr), rr, "err", f"[rank: {rr}] Received SIGTERM: 15")
        ctx.preempt_lines = [(t, f"slurmstepd: error: *** STEP {ctx.jobid}.0 ON {short(h0)} CANCELLED AT {ctx.ts(h0, t, 'slurm')} DUE TO PREEMPTION ***", ("PREEMPT",)),
                             (t + 0.1, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.", ()),
                             (t + 0.2, f"slurmstepd: error: *** JOB {ctx.jobid} ON {short(h0)} CANCELLED AT {ctx.ts(h0, t, 'slurm')} DUE TO PREEMPTION ***", ("PREEMPT",))]
        ctx.init_rank, ctx.init_node = None, None
        ctx.notes = "The scheduler preempted the whole job (a higher-priority job needed the nodes); all ranks got SIGTERM at once."
        ctx.end = "preempted"
        ctx.exits = {r: (ctx.fate[r]["t"], -15) for r in range(ctx.world)}
        ctx.t_end = t + 40
        ctx.first_to = None
        return
    ni = rng.randrange(ctx.nnodes)
    X = ctx.hosts[ni]
    ctx.preempt_kind = "node"
    ctx.preempt_node = X
    for r in ctx.ranks_on(ni):
        ctx.fate[r] = dict(kind="dead", t=t + rng.uniform(0.3, 2.5), code=-15)
    if ctx.era == "2.1":
        ctx.ev(t + 0.05, X, None, "agent", f"[{ctx.ts(X, t, 'pylog')}] torch.distributed.elastic.agent.server.api: [INFO] "
               "Received Signals.SIGTERM death signal, shutting down workers", "N:sigterm")
    else:
        ctx.ev(t + 0.05, X, None, "agent", agent_line(ctx, X, t + 0.05, "W", "Received Signals.SIGTERM death signal, shutting down workers", "agent"),
               "N:sigterm")
    for r in ctx.ranks_on(ni):
        ctx.ev(t + 0.06, X, None, "agent", agent_line(ctx, X, t + 0.06, "W", f"Sending process {ctx.pid[r]} closing signal SIGTERM"))
    ctx.ev(t + 3, X, None, "agent", "torch.distributed.elastic.multiprocessing.api.SignalException: Process "
           f"{ctx.agent_pid[X]} got signal: 15")
    ctx.init_rank, ctx.init_node = None, X
    ctx.node_proofs += [P_any("N:preempt")]
    if ctx.layout in ("k8s_pods", "torchrun_logdir"):
        ctx.node_proofs.append(P_any("N:sigterm"))
    ctx.notes = (f"The cloud reclaimed spot node {short(X)} (termination notice, SIGTERM to its ranks); the remaining nodes "
                 f"kept waiting in {op} for the lost ranks.")
    ctx.spot = (t - rng.uniform(60, 118), X)
    ctx.launch_keep = True
    aftermath(ctx, ctx.t_inc, seq, op, nin, nout)
    # the node's agent exits by signal: it does not print a ChildFailedError summary
    ctx.no_cfe_nodes = {ni}


HANG_VARIANTS = ["pipe", "lock", "gil", "cpuloop"]


def c_hang(ctx):
    rng = ctx.rng
    seq, op, nin, nout = base_run(ctx)
    r = pick_init(ctx)
    h = ctx.host_of(r)
    t = ctx.t_inc
    var = rng.choice(HANG_VARIANTS)
    ctx.fate[r] = dict(kind="stuck", enq=seq - 1)
    ctx.init_rank, ctx.init_node = r, h
    ctx.rank_proofs += [P_lowseq(ctx, r, seq - 1), P_any(f"R:fr:{r}"), P_any(f"R:psstuck:{r}")]
    stack_proofs(ctx, r)
    ctx.notes = {
        "pipe": f"Rank {r} blocked writing to its stdout pipe (the log consumer on {short(h)} had died and the pipe filled), so it never entered {op}; everyone else waited.",
        "lock": f"Rank {r} deadlocked between its main thread and its async-checkpoint thread (a lock taken twice); it never entered {op}.",
        "gil": f"Rank {r} deadlocked on the GIL (a CUDA callback thread held it while the main thread waited); the others hung in {op}.",
        "cpuloop": f"Rank {r} spun at 100% CPU in a pathological tokenizer regex on one sample and never reached {op}; the others waited.",
    }[var]
    end = aftermath(ctx, ctx.t_inc, seq, op, nin, nout)
    to = observe_time(ctx)
    kind = {"pipe": "pipe", "lock": "lock", "gil": "lock", "cpuloop": "compute"}[var]
    if var == "cpuloop":
        ctx.cpuloop = True
    if rng.random() < 0.75:
        pick = std_stack_sample(ctx, r, rng.random() < 0.8)
        collect_stacks(ctx, to, pick, lambda x: (kind, "active+gil" if var == "cpuloop" else "idle", (f"R:stack:{x}",))
                       if x == r else (waiting_kind(ctx), "idle", ()),
                       tool="pyspy_native" if var == "gil" and rng.random() < 0.6 else None)
    if rng.random() < 0.4:
        ni = ctx.node_of(r)
        st = []
        for L in range(ctx.gpn):
            rr = ni * ctx.gpn + L
            if rr == r:
                st.append(("R", 99.7) if var == "cpuloop" else ("S", 0.0))
            else:
                st.append(("R", round(rng.uniform(98, 100.3), 1)))
        lines = top_snapshot(ctx, h, to, st)
        lines = [(tx, (f"R:psstuck:{r}",) if f"PS:{r}:" in " ".join(tg) and var != "cpuloop" else tg) for tx, tg in lines]
        art(ctx, "top", h, lines, t=to)
    if var == "pipe" and rng.random() < 0.6:
        lines = [(f"$ ps -o pid,stat,wchan:20,pcpu,etime,cmd -p {','.join(str(ctx.pid[x]) for x in ctx.ranks_on(ctx.node_of(r)))}", ()),
                 ("    PID STAT WCHAN                %CPU     ELAPSED CMD", ())]
        for x in ctx.ranks_on(ctx.node_of(r)):
            if x == r:
                lines.append((f"{ctx.pid[x]:>7} Sl   pipe_write            0.0    {rng.randint(5, 40):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d} "
                              f"{ctx.pybin} -u {ctx.script} --local-rank={ctx.local_of(x)}", (f"R:psstuck:{x}",)))
            else:
                lines.append((f"{ctx.pid[x]:>7} Rl   -                   99.{rng.randint(0, 9)}    {rng.randint(5, 40):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d} "
                              f"{ctx.pybin} -u {ctx.script} --local-rank={ctx.local_of(x)}", ()))
        art(ctx, "ps", h, lines, t=to)
    if ctx.era_ge("2.5") and end == "watchdog" and rng.random() < 0.5:
        maybe_fr(ctx, seq, [r], coll=fr_name(op), sizes=f"[{nin}]")
    if ctx.use_faulthandler and ctx.world <= 64 and ctx.fh_timeout < (ctx.t_end - ctx.t_inc):
        faulthandler_all(ctx, {r: kind})


def faulthandler_all(ctx, special):
    """every rank armed faulthandler.dump_traceback_later(); each dumps its stack when its step stalls."""
    rng = ctx.rng
    for x in range(ctx.world):
        f = ctx.fate[x]
        if f["kind"] in ("dead", "killed"):
            continue
        tt = ctx.t_inc + ctx.fh_timeout + rng.uniform(0, 3)
        kind = special.get(x, waiting_kind(ctx))
        tag = (f"R:stack:{x}",) if x in special else ()
        for text, tg in faulthandler_dump(ctx, x, kind, tagline=tag):
            ctx.ev(tt, ctx.host_of(x), x, "err", text, *tg)


def c_data_loader_stall(ctx):
    rng = ctx.rng
    seq, op, nin, nout = base_run(ctx)
    r = pick_init(ctx)
    h = ctx.host_of(r)
    t = ctx.t_inc
    fsname = rng.choice(["nfs", "lustre", "weka", "gcsfuse"])
    variant = rng.choice(["stuck", "stuck", "timeout"])
    ctx.init_rank, ctx.init_node = r, h
    items = []
    wpid = ctx.pid[r] + rng.randint(300, 3000)
    if fsname == "nfs":
        srv = rng.choice(["nas01", "fs-data02", "10.20.0.15", "filer-a"])
        items.append((t - rng.uniform(5, 60), f"nfs: server {srv} not responding, still trying", ("N:fs",)))
    elif fsname == "lustre":
        items.append((t - rng.uniform(5, 60), f"Lustre: {rand_hex(rng, 4)}-OST00{rng.randint(10, 99)}-osc-ffff{rand_hex(rng, 12)}: Connection to "
                      f"scratch-OST00{rng.randint(10, 99)} (at 10.4.{rng.randint(0, 9)}.{rng.randint(2, 250)}@o2ib) was lost; in progress operations "
                      "using this service will wait for recovery to complete", ("N:fs",)))
    elif fsname == "weka":
        items.append((t - rng.uniform(5, 60), "wekafs: frontend: IO to backend timed out, retrying", ("N:fs",)))
    else:
        items.append((t - rng.uniform(5, 60), "fuse: request to gcsfuse timed out (pid 4117)", ("N:fs",)))
    for k in range(rng.randint(1, 3)):
        tt = t + 120 + k * 120 + rng.uniform(0, 5)
        items.append((tt, f"INFO: task pt_data_worker:{wpid + k} blocked for more than {120 + k * 120 + rng.randint(0, 3)} seconds.", ("N:fs", "N:hungtask")))
        items.append((tt, f"      Tainted: P           OE      {rng.choice(['5.15.0-1063-nvidia', '6.5.0-35-generic', '5.14.0-427.el9.x86_64'])} #1", ()))
        items.append((tt, "\"echo 0 > /proc/sys/kernel/hung_task_timeout_secs\" disables this message.", ()))
        items.append((tt, f"task:pt_data_worker state:D stack:0     pid:{wpid + k}  ppid:{ctx.pid[r]} flags:0x00000002", ("N:hungtask", f"R:hungppid:{r}")))
    if variant == "timeout":
        dt = rng.choice([600, 900, 1200])
        if dt >= ctx.timeout_s:
            dt = int(ctx.timeout_s * 0.5)
        fr = user_frames(ctx, [(f"{ctx.workdir}/{ctx.script}", rng.randint(150, 230), "train", "batch = next(train_iter)"),
                               (f"{ctx.sitepk}/torch/utils/data/dataloader.py", 631, "__next__", "data = self._next_data()"),
                               (f"{ctx.sitepk}/torch/utils/data/dataloader.py", 1328, "_next_data", "idx, data = self._get_data()"),
                               (f"{ctx.sitepk}/torch/utils/data/dataloader.py", 1294, "_get_data", "success, data = self._try_get_data(self._timeout)"),
                               (f"{ctx.sitepk}/torch/utils/data/dataloader.py", 1145, "_try_get_data",
                                "raise RuntimeError(f'DataLoader timed out after {timeout} seconds') from e")])
        exc_events(ctx, r, t + dt, fr, f"RuntimeError: DataLoader timed out after {dt} seconds")
        ctx.fate[r] = dict(kind="dead", t=t + dt + 1, code=1)
        own_proofs(ctx, r)
        cfe_proofs(ctx, r, 1)
        ctx.notes = (f"Rank {r}'s DataLoader workers blocked on the {fsname} mount of {short(h)}; after {dt} s the DataLoader "
                     f"timeout fired on that rank while the others waited in {op}.")
    else:
        ctx.fate[r] = dict(kind="stuck", enq=seq - 1)
        ctx.notes = (f"Rank {r}'s DataLoader workers hung in uninterruptible I/O on the {fsname} mount of {short(h)}; "
                     f"the rank never reached {op} and the others waited.")
        ctx.rank_proofs.append(P_lowseq(ctx, r, seq - 1))
    stack_proofs(ctx, r)
    ctx.rank_proofs += [P_any(f"R:fr:{r}"), P_any(f"R:psstuck:{r}"), P_all("N:hungtask", f"R:hungppid:{r}", f"PID:{r}")]
    ctx.node_proofs += [P_any("N:fs")]
    aftermath(ctx, ctx.t_inc, seq, op, nin, nout)
    ctx.kstyle = kern_style(ctx)
    if rng.random() < 0.6:
        dmesg_art(ctx, h, items)
    to = observe_time(ctx)
    if rng.random() < 0.7:
        pick = std_stack_sample(ctx, r, rng.random() < 0.8)
        collect_stacks(ctx, to, pick, lambda x: ("dataloader", "idle", (f"R:stack:{x}",)) if x == r else
                       (waiting_kind(ctx), "idle", ()))
    if rng.random() < 0.5:
        lines = [(f"$ ps -eo pid,ppid,stat,wchan:24,pcpu,cmd --sort=ppid | grep -E 'python|pt_data' | head -40", ()),
                 ("    PID    PPID STAT WCHAN                    %CPU CMD", ())]
        wch = {"nfs": "rpc_wait_bit_killable", "lustre": "ll_file_read_iter", "weka": "wekafs_read_iter",
               "gcsfuse": "fuse_wait_answer"}[fsname]
        for x in ctx.ranks_on(ctx.node_of(r)):
            lines.append((f"{ctx.pid[x]:>7} {ctx.agent_pid[h]:>7} {'Sl' if x == r else 'Rl'}   "
                          f"{'futex_wait_queue' if x == r else '-':<24} {0.3 if x == r else 99.1:>4} {ctx.pybin} -u {ctx.script}",
                          ()))
            nw = rng.randint(2, 6)
            for k in range(nw):
                st = "D" if x == r else "S"
                lines.append((f"{(wpid + k) if x == r else ctx.pid[x] + 500 + k:>7} {ctx.pid[x]:>7} {st}    "
                              f"{wch if x == r else 'do_select':<24} {0.0:>4} pt_data_worker",
                              (f"R:psstuck:{r}", "N:fs") if x == r else ()))
        art(ctx, "ps", h, lines, t=to)


def c_collective_mismatch(ctx):
    rng = ctx.rng
    seq, op, nin, nout = base_run(ctx)
    r = pick_init(ctx)
    h = ctx.host_of(r)
    t = ctx.t_inc
    variant = rng.choice(["wdop", "wdop", "detail", "barrier", "fr"])
    if variant == "fr" and not ctx.era_ge("2.5"):
        variant = "wdop"
    ctx.init_rank, ctx.init_node = r, h
    if variant == "detail":
        # TORCH_DISTRIBUTED_DEBUG=DETAIL: the wrapper compares fingerprints and raises on every rank
        shp = rng.choice(["[1]", "[4096]", "[1024, 4096]", "[2048]"])
        other_op = rng.choice(["BROADCAST", "ALLGATHER", "BARRIER"])
        fp_major = (f"CollectiveFingerPrint(SequenceNumber={seq}, OpType=ALLREDUCE, TensorShape={shp}, TensorDtypes=Float, "
                    "TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda, layout=Strided (default), "
                    "requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt)))")
        fp_odd = (f"CollectiveFingerPrint(SequenceNumber={seq}, OpType={other_op}"
                  + (")" if other_op == "BARRIER" else f", TensorShape=[1], TensorDtypes=Long, TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt)))"))
        for x in range(ctx.world):
            tt = t + rng.uniform(0.05, 1.5)
            if x == r:
                msg = f"RuntimeError: Detected mismatch between collectives on ranks. Rank {r} is running collective: {fp_odd}, but Rank {0 if r else 1} is running collective: {fp_major}.Collectives differ in the following aspects: \t Op type: {other_op}vs ALLREDUCE"
                tags = ()
            else:
                msg = f"RuntimeError: Detected mismatch between collectives on ranks. Rank {x} is running collective: {fp_major}, but Rank {r} is running collective: {fp_odd}.Collectives differ in the following aspects: \t Op type: ALLREDUCEvs {other_op}"
                tags = (f"R:mm:{r}",)
            if ctx.world > 32 and x != r and rng.random() < 0.8:
                continue
            fr = user_frames(ctx, [(f"{ctx.workdir}/{ctx.script}", rng.randint(150, 230), "train", "dist.all_reduce(stats)"),
                                   (f"{ctx.sitepk}/torch/distributed/c10d_logger.py", 83, "wrapper", "return func(*args, **kwargs)"),
                                   (f"{ctx.sitepk}/torch/distributed/distributed_c10d.py", 2501, "all_reduce", "work = group.allreduce([tensor], opts)")])
            for k, text in enumerate(py_traceback(ctx, x, fr, msg)):
                ctx.ev(tt + k * 0.0001, ctx.host_of(x), x, "err", text, *(tags if "Detected mismatch" in text else ()))
            ctx.fate[x] = dict(kind="dead", t=tt + rng.uniform(0.2, 1), code=1)
        ctx.rank_proofs.append(lambda S, r=r: S[f"R:mm:{r}"] >= 2)
        ctx.notes = (f"Rank {r} took a different code path and issued {other_op} where the others issued ALLREDUCE; "
                     "TORCH_DISTRIBUTED_DEBUG=DETAIL caught the mismatch and every rank raised.")
        aftermath(ctx, ctx.t_inc, seq, op, nin, nout)
        return
    if variant in ("wdop", "fr"):
        odd = rng.choice(["op", "size"])
        if odd == "op" or op not in ("ALLREDUCE",):
            o2 = rng.choice([x for x in ["BROADCAST", "ALLREDUCE", "ALLGATHER", "_ALLGATHER_BASE"] if x != op])
            ctx.fate[r] = dict(kind="mismatch", op=o2, nin=rng.choice([1, 4096, nin]), nout=None)
            ctx.fate[r]["nout"] = ctx.fate[r]["nin"]
            det = f"issued {o2} where the others issued {op}"
            et, dd = "COLLECTIVE_TYPE_MISMATCH", f"Expected collective type: '{fr_name(op)}' does not match found collective type: '{fr_name(o2)}'"
        else:
            n2 = nin + rng.choice([1, 3, 1024]) if nin <= 4096 else nin - rng.choice([64, 4096, nin // 2])
            ctx.fate[r] = dict(kind="mismatch", nin=n2, nout=n2)
            det = f"all-reduced a tensor of {n2} elements where the others used {nin}"
            et, dd = "SIZE_OR_SYNTAX_MISMATCH", f"Expected input sizes: '[[{nin}]]' does not match found input sizes: '[[{n2}]]'"
        def wdodd(S, r=r):
            if S[f"WD:{r}"] == 0:
                return False
            return sum(1 for x in range(ctx.world) if x != r and S[f"WD:{x}"] > 0) >= 2
        ctx.rank_proofs.append(wdodd)
        ctx.rank_proofs.append(P_any(f"R:fr:{r}"))
        ctx.notes = f"Rank {r} {det} (a rank-dependent branch); NCCL hung until the watchdog fired."
        end = aftermath(ctx, ctx.t_inc, seq, op, nin, nout, end="watchdog" if rng.random() < 0.8 else None)
        if variant == "fr" and end == "watchdog":
            maybe_fr(ctx, seq, [], coll=fr_name(op), sizes=f"[{nin}]", culprit=r, et=et, detail=dd)
        return
    # barrier: rank r is in a barrier, everyone else in the next all_reduce
    ctx.fate[r] = dict(kind="mismatch", op="BARRIER" if ctx.era_ge("2.3") else "ALLREDUCE", nin=1, nout=1)
    ctx.notes = (f"Rank {r} called dist.barrier() inside a rank-dependent branch (checkpoint on one rank) while the others "
                 f"went on to {op}; the job hung until the watchdog.")
    def wdodd2(S, r=r):
        return S[f"WD:{r}"] > 0 and sum(1 for x in range(ctx.world) if x != r and S[f"WD:{x}"] > 0) >= 2 and ctx.era_ge("2.3")
    ctx.rank_proofs.append(wdodd2)
    stack_proofs(ctx, r)
    end = aftermath(ctx, ctx.t_inc, seq, op, nin, nout)
    to = observe_time(ctx)
    if rng.random() < 0.8:
        pick = std_stack_sample(ctx, r, True, n_other=rng.randint(2, 6))
        collect_stacks(ctx, to, pick, lambda x: ("barrier", "idle", (f"R:stack:{x}",)) if x == r else
                       (waiting_kind(ctx), "idle", ()))


def c_straggler(ctx):
    rng = ctx.rng
    fates_default(ctx)
    startup(ctx)
    r = pick_init(ctx)
    h = ctx.host_of(r)
    L = ctx.local_of(r)
    variant = rng.choice(["thermal", "thermal", "cpu", "power"])
    n_logged = rng.randint(10, 70)
    t = ctx.t_init + rng.uniform(5, 40)
    s_mid = ctx.s0 + rng.randint(3, 20) * ctx.log_every
    t = train_steps(ctx, ctx.s0, s_mid, t)
    slow = ctx.step_time * rng.uniform(1.8, 3.2)
    ctx.t_inc = t
    s_end = s_mid + n_logged * ctx.log_every
    every_rank_report = rng.choice([ctx.log_every * 5, ctx.log_every * 10, 100, 200])
    summary_style = ctx.world > 32 and rng.random() < 0.5
    tt = t
    s = s_mid
    while s < s_end:
        s += 1
        tt += slow * rng.uniform(0.97, 1.03)
        if s % ctx.log_every == 0:
            ctx.ev(tt, ctx.host_of(ctx.print_rank), ctx.print_rank, "out", step_line(ctx, s, tt, ctx.host_of(ctx.print_rank), slow), "STEP")
        if s % every_rank_report == 0:
            ranks = list(range(ctx.world)) if ctx.world <= 32 else sorted(set(rng.sample(range(ctx.world), 24) + [r]))
            if summary_style:
                ranks = None
            if ranks is None:
                # summary line printed by rank 0
                mx = slow * 1000 * rng.uniform(0.93, 0.99)
                mn = ctx.step_time * 1000 * rng.uniform(0.9, 1.0)
                ctx.ev(tt + 0.01, ctx.host_of(0), 0, "out", f"[step {s}] fwd+bwd compute ms: min {mn:.1f} (rank {rng.choice([x for x in range(ctx.world) if x != r])}) "
                       f"max {mx:.1f} (rank {r}) median {mn * 1.04:.1f}", f"R:timing:{r}")
            else:
                for x in ranks:
                    comp = (slow * 1000 * rng.uniform(0.9, 0.97)) if x == r else ctx.step_time * 1000 * rng.uniform(0.85, 0.95)
                    wait = max(1.0, slow * 1000 - comp + rng.uniform(-5, 5)) if x != r else rng.uniform(0.5, 4)
                    ctx.ev(tt + 0.01 + x * 1e-5, ctx.host_of(x), x, "out",
                           f"[rank{x}] step {s} timing: data {rng.uniform(1, 6):.1f} ms | compute {comp:.1f} ms | comm wait {wait:.1f} ms",
                           *((f"R:timing:{r}",) if x == r else ("TIMING",)))
    ctx.t_end = tt + rng.uniform(30, 600)
    ctx.init_rank, ctx.init_node = r, h
    ctx.rank_proofs.append(P_any(f"R:timing:{r}"))
    ctx.node_proofs.append(P_any("N:throttle"))
    ctx.node_proofs.append(P_any("N:cpuhog"))
    ctx.end = rng.choice(["scancel", "scancel", "running", "timelimit"]) if ctx.layout == "slurm" else rng.choice(["scancel", "running"])
    ctx.exits = {}
    ctx.first_to = None
    for x in range(ctx.world):
        ctx.fate[x] = dict(kind="wait")
    to = rng.uniform(ctx.t_inc + 60, ctx.t_end - 10)
    if variant in ("thermal", "power"):
        def per(Lx, i):
            if Lx == L:
                return (100, ctx.plat["pwr"] * (0.45 if variant == "thermal" else 0.38) + rng.uniform(-8, 8),
                        rng.randint(87, 93) if variant == "thermal" else rng.randint(55, 65), rng.choice([1095, 1110, 1200, 1245]))
            return (rng.randint(95, 100), ctx.plat["pwr"] * 0.8 + rng.uniform(-30, 30), rng.randint(58, 72), 1980)
        lines = [(f"$ nvidia-smi --query-gpu=timestamp,index,pci.bus_id,utilization.gpu,power.draw,temperature.gpu,clocks.sm --format=csv -l 5", ())]
        for l in smi_csv(ctx, h, to, rng.randint(3, 6), 5, per):
            tg = ()
            if f", {L}, {ctx.pci_smi(L)}," in l:
                tg = ("N:throttle",)
            lines.append((l, tg))
        art(ctx, "smicsv", h, lines, t=to)
        if rng.random() < 0.5:
            q = [(f"$ nvidia-smi -q -d PERFORMANCE -i {L}", ()), ("", ()), ("==============NVSMI LOG==============", ()), ("", ()),
                 (f"GPU {ctx.pci_smi(L)}", ("N:throttle",)), ("    Performance State                     : P0", ()),
                 ("    Clocks Event Reasons", ()), ("        Idle                              : Not Active", ()),
                 ("        Applications Clocks Setting       : Not Active", ()),
                 ("        SW Power Cap                      : Not Active", ()),
                 (f"        HW Slowdown                       : {'Active' if variant == 'thermal' else 'Not Active'}", ("N:throttle",) if variant == "thermal" else ()),
                 (f"            HW Thermal Slowdown           : {'Active' if variant == 'thermal' else 'Not Active'}", ()),
                 (f"            HW Power Brake Slowdown       : {'Active' if variant == 'power' else 'Not Active'}", ("N:throttle",) if variant == "power" else ()),
                 ("        Sync Boost                        : Not Active", ()),
                 (f"        SW Thermal Slowdown               : {'Active' if variant == 'thermal' else 'Not Active'}", ()),
                 ("        Display Clock Setting             : Not Active", ())]
            art(ctx, "smiq", h, q, t=to)
        ctx.rank_proofs.append(P_all("N:throttle", f"R:busid:{r}"))
        ctx.notes = (f"GPU {L} of {short(h)} (rank {r}) was {'thermally throttled' if variant == 'thermal' else 'held down by a power-brake signal'}; "
                     "the job did not hang, every step waited for that rank and ran ~2-3x slower.")
    else:
        hog = ctx.pid[r] + rng.randint(20000, 90000)
        lines = top_snapshot(ctx, h, to, [("R", round(rng.uniform(97, 100.2), 1)) for _ in range(ctx.gpn)],
                             extra=[(hog, "R", 3150.0 + rng.uniform(0, 200), rng.choice(["stress-ng", "python3 preprocess_shards.py", "pigz", "ffmpeg"]))])
        lines = [(tx, ("N:cpuhog",) if str(hog) in tx else tg) for tx, tg in lines]
        art(ctx, "top", h, lines, t=to)
        ctx.notes = (f"Another process was eating ~32 cores on {short(h)}; rank {r}'s input pipeline starved and the whole "
                     "job ran at its pace (slow, not hung).")
    if rng.random() < 0.4:
        pick = std_stack_sample(ctx, r, True)
        collect_stacks(ctx, to, pick, lambda x: ("compute", "active+gil", (f"R:stack:{x}",)) if x == r else
                       (waiting_kind(ctx), "active", ()))
        stack_proofs(ctx, r)


def c_unknown(ctx):
    rng = ctx.rng
    seq, op, nin, nout = base_run(ctx)
    ctx.init_rank, ctx.init_node = None, None
    end = aftermath(ctx, ctx.t_inc, seq, op, nin, nout)
    to = observe_time(ctx)
    if rng.random() < 0.5:
        pick = std_stack_sample(ctx, -1, False, n_other=rng.randint(2, 8))
        collect_stacks(ctx, to, pick, lambda x: (waiting_kind(ctx), "idle", ()))
    if rng.random() < 0.4:
        h = rng.choice(ctx.hosts)
        gpu_smi_art(ctx, h, to, smi_rows(ctx, "spin"))
    if ctx.use_faulthandler and ctx.world <= 64 and ctx.fh_timeout < (ctx.t_end - ctx.t_inc):
        faulthandler_all(ctx, {})
    ctx.notes = (f"The job stopped making progress in {op} at step ~{ctx.s_last + 1}; every rank waited and none left "
                 "initiator-grade evidence in what was collected.")


# --------------------------------------------------------------------------------------
# healthy runs with scary noise
# --------------------------------------------------------------------------------------


def agent_success(ctx, t):
    for h in ctx.hosts:
        tt = t + ctx.rng.uniform(0.5, 6)
        if ctx.era == "2.1":
            ctx.ev(tt, h, None, "agent", f"[{ctx.ts(h, tt, 'pylog')}] torch.distributed.elastic.agent.server.api: [INFO] "
                   "Local worker group finished (WorkerState.SUCCEEDED). Waiting 300 seconds for other agents to finish", "DONE")
        else:
            ctx.ev(tt, h, None, "agent", agent_line(ctx, h, tt, "I", "Local worker group finished (WorkerState.SUCCEEDED). "
                   "Waiting 300 seconds for other agents to finish", "agent"), "DONE")
            ctx.ev(tt + 0.3, h, None, "agent", agent_line(ctx, h, tt + 0.3, "I", f"Done waiting for other agents. Elapsed: "
                   f"{ctx.rng.uniform(0.01, 9):.4f} seconds", "agent"))


def h_healthy(ctx):
    rng = ctx.rng
    fates_default(ctx)
    variants = ["eval", "ckpt", "compile", "pyspy", "slowinit", "restart"]
    if ctx.layout == "deepspeed_pdsh":
        variants.remove("restart")
    v = rng.choice(variants)
    ctx.hvariant = v
    if v in ("eval", "ckpt"):
        ctx.timeout_s = max(ctx.timeout_s, 7200)
        ctx.huge_timeout = True
    startup(ctx)
    if v == "slowinit":
        for k in range(rng.randint(3, 9)):
            for x in rng.sample(range(ctx.world), min(ctx.world, 3)):
                tt = 5 + k * rng.uniform(10, 35)
                ctx.ev(tt, ctx.host_of(x), x, "err", f"[W socket.cpp:{rng.choice([464, 697, 752])}] [c10d] The client socket has failed to "
                       f"connect to [{short(ctx.hosts[0])}]:29500 (errno: 111 - Connection refused).")
        ctx.t_init += rng.uniform(120, 300)
    t = ctx.t_init + rng.uniform(5, 30)
    s = ctx.s0
    pr = ctx.print_rank
    hp = ctx.host_of(pr)
    if v == "compile":
        ctx.ev(t, hp, pr, "err", f"{rk(ctx, pr)}W{ctx.ts(hp, t, 'glogpy')} {ctx.pid[pr]} torch/_dynamo/convert_frame.py:906] "
               "[0/8] torch._dynamo hit config.cache_size_limit (8)")
        dt = rng.uniform(300, 780)
        ctx.ev(t + dt, hp, pr, "out", f"first step (torch.compile warm-up) took {dt:.1f} s")
        ctx.pause = (t, t + dt, "compile")
        t += dt
    n1 = rng.randint(5, 60)
    t = train_steps(ctx, s, s + n1 * ctx.log_every, t)
    s += n1 * ctx.log_every
    ctx.s_last = s
    ctx.t_inc = t
    if v == "eval":
        ctx.ev(t + 0.5, hp, pr, "out", f"Running evaluation at step {s} on {rng.choice([20000, 50000, 120000])} samples ...")
        dt = rng.uniform(900, 2700)
        ctx.ev(t + dt, hp, pr, "out", f"eval step {s}: loss {loss_at(ctx, s) + 0.05:.4f} ppl {2.718 ** (loss_at(ctx, s)):.2f} "
               f"(took {dt:.1f} s)")
        ctx.pause = (t, t + dt, "eval")
        t += dt
    elif v == "ckpt":
        path = rng.choice([f"/lustre/ckpt/{ctx.jobname}/step_{s}", f"s3://ml-ckpt/{ctx.jobname}/step_{s}",
                           f"/mnt/shared/ckpt/{ctx.jobname}/global_step{s}"])
        ctx.ev(t + 0.3, hp, pr, "out", f"Saving checkpoint at step {s} to {path}")
        dt = rng.uniform(480, 1500)
        ctx.ev(t + dt, hp, pr, "out", f"Saved checkpoint at step {s} ({rng.uniform(50, 900):.1f} GB) in {dt:.1f} s")
        ctx.pause = (t, t + dt, "ckpt")
        t += dt
    elif v == "restart":
        seq = ctx.seq_base + n1 * ctx.log_every * ctx.seq_per_step
        op, nin, nout = op_for(ctx)
        ctx.t_inc = t + rng.uniform(1, 30)
        aftermath(ctx, ctx.t_inc, seq, op, nin, nout, end="watchdog")
        finish(ctx)
        ctx.finished = True
        t_fail = max([tt for tt, _ in ctx.exits.values()] + [ctx.t_inc + ctx.timeout_s]) + 60
        ctx.restart_at = t_fail + rng.uniform(30, 240)
        ctx.ev(ctx.restart_at, ctx.hosts[0], None, "batch",
               f"[{ctx.ts(ctx.hosts[0], ctx.restart_at, 'iso')}] launcher exited with status 1; relaunching from the latest checkpoint (attempt 2/3)")
        fates_default(ctx)
        ctx.exits = {}
        s_ck = max(ctx.s0, s - rng.randint(1, 5) * ctx.log_every)
        t = ctx.restart_at + rng.uniform(40, 150)
        for h in ctx.hosts:
            tt = ctx.restart_at + rng.uniform(3, 9)
            if ctx.era == "2.1":
                ctx.ev(tt, h, None, "agent", f"[{ctx.ts(h, tt, 'pylog')}] torch.distributed.run: [WARNING] Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. ")
            else:
                ctx.ev(tt, h, None, "agent", agent_line(ctx, h, tt, "W", "", "run"))
                ctx.ev(tt, h, None, "agent", "*****************************************")
                ctx.ev(tt, h, None, "agent", "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. ")
                ctx.ev(tt, h, None, "agent", "*****************************************")
        ctx.ev(t - 3, ctx.host_of(0), 0, "out", f"resuming from checkpoint at step {s_ck}")
        ctx.ev(t - 2, ctx.host_of(ctx.print_rank), ctx.print_rank, "out", f"torch {ctx.torch} cuda {ctx.cuda} nccl {ctx.nccl} | world_size={ctx.world} "
               f"nodes={ctx.nnodes} gpus_per_node={ctx.gpn}")
        s = s_ck
    n2 = rng.randint(5, 60)
    t = train_steps(ctx, s, s + n2 * ctx.log_every, t)
    s += n2 * ctx.log_every
    ctx.ev(t + 1, hp, pr, "out", rng.choice([f"Training finished at step {s}.", f"Reached max_steps={s}; saving final model.",
                                             "Training completed. Do not forget to share your model on huggingface.co/models =)"
                                             if ctx.fw == "hf" else f"done: {s} steps"]), "DONE")
    ctx.t_end = t + rng.uniform(20, 90)
    ctx.end = "completed"
    ctx.exits = {}
    ctx.first_to = None
    agent_success(ctx, t + 5)
    ctx.init_rank, ctx.init_node = None, None
    # scary-but-harmless attachments
    if v in ("eval", "ckpt", "compile"):
        a, b, what = ctx.pause
        to = rng.uniform(a + 120, b - 30)
        if rng.random() < 0.6:
            hh = ctx.host_of(pr)
            mode = "idle" if what == "compile" else "spin"
            special = {ctx.local_of(pr): "busy"} if what == "eval" else None
            gpu_smi_art(ctx, hh, to, smi_rows(ctx, mode, special=special))
        if rng.random() < 0.6:
            kind = {"eval": "eval", "ckpt": "ckpt", "compile": "compile"}[what]
            pick = std_stack_sample(ctx, pr, True, n_other=rng.randint(1, 3))
            collect_stacks(ctx, to, pick, lambda x: (kind, "active+gil", ()) if x == pr else
                           (("barrier" if what != "compile" else "compile"), "idle", ()))
        if what == "ckpt" and rng.random() < 0.5:
            ctx.kstyle = kern_style(ctx)
            hh = rng.choice(ctx.hosts)
            srv = rng.choice(["nas01", "filer-b", "10.20.0.15"])
            dmesg_art(ctx, hh, [(a + 200, f"nfs: server {srv} not responding, still trying", ()),
                                (a + 260, f"nfs: server {srv} OK", ())])
        ctx.notes = {"eval": "Healthy: a long evaluation pass made the log go quiet for a while; training resumed and finished.",
                     "ckpt": "Healthy: a slow checkpoint save paused training for many minutes; it completed and training finished.",
                     "compile": "Healthy: the first step spent minutes in torch.compile; training then ran normally to the end."}[what]
    elif v == "pyspy":
        to = rng.uniform(ctx.t_init + 60, ctx.t_inc)
        pick = std_stack_sample(ctx, 0, True, n_other=rng.randint(2, 7))
        collect_stacks(ctx, to, pick, lambda x: (rng.choice(["wait", "compute"]), "active", ()))
        if rng.random() < 0.5:
            gpu_smi_art(ctx, ctx.host_of(pick[0]), to, smi_rows(ctx, "busy"))
        ctx.notes = "Healthy: the user took py-spy dumps of a job that was merely slow to log; it was progressing and finished."
    elif v == "slowinit":
        ctx.notes = "Healthy: rendezvous / NCCL initialisation took minutes (connection-refused retries) and then training ran to completion."
    else:
        ctx.notes = "Healthy: the first attempt died in a transient NCCL timeout, the job was restarted from its checkpoint and finished cleanly."
    if rng.random() < 0.25:
        ctx.kstyle = kern_style(ctx)
        hh = rng.choice(ctx.hosts)
        dmesg_art(ctx, hh, [(ctx.t_inc - 4000, f"NVRM: Xid ({ctx.pci_kernel(rng.randrange(ctx.gpn))}): 63, pid='<unknown>', name=<unknown>, "
                             f"Row Remapper: New row (0x0000000{rand_hex(ctx.rng, 9)}) marked for remapping, reset gpu to activate.", ())])


# --------------------------------------------------------------------------------------
# rendering helpers
# --------------------------------------------------------------------------------------


def text_names_rank(text, r):
    return (f"[rank{r}]" in text or f"[Rank {r}]" in text or f"Rank {r}]" in text or f"rank{r}]" in text
            or f"[rank: {r}]" in text)


def xtags(tags, r, rank_ok, node_ok):
    out = []
    for t in tags:
        if t.startswith("R:own:"):
            rr = int(t.split(":")[2])
            if rank_ok:
                out.append(t)
            elif node_ok:
                out.append(f"N:own:{rr}")
            continue
        out.append(t)
    return tuple(out)


def sorted_events(ctx, streams=None, after=None, before=None):
    evs = [e for e in ctx.events if (streams is None or e.stream in streams)]
    if after is not None:
        evs = [e for e in evs if e.t >= after]
    if before is not None:
        evs = [e for e in evs if e.t < before]
    evs.sort(key=lambda e: (round(e.t, 3), e.seq))
    return evs


def visible(ctx, e):
    """events after the end of observation are never seen (the job was killed)."""
    if ctx.end in ("scancel", "timelimit", "running", "preempted") and e.t > ctx.t_end + 0.5 and e.stream not in ("end",):
        return False
    return True


def trim_doc(ctx, doc, max_lines, cut_prob=0.35, protect_tail=25):
    rng = ctx.rng
    mk = rng.choice(TRIM_MARKERS)
    n = len(doc.lines)
    if n > max_lines:
        keep_head = max(10, int(max_lines * rng.uniform(0.15, 0.35)))
        keep_tail = max_lines - keep_head
        doc.cut(keep_head, n - keep_tail, mk)
    n = len(doc.lines)
    if n > 80 and rng.random() < cut_prob:
        a = rng.randint(8, max(9, n // 3))
        b = rng.randint(a + 5, max(a + 6, n - protect_tail))
        doc.cut(a, b, mk)


def slurm_header(ctx, doc):
    rng = ctx.rng
    h0 = ctx.hosts[0]
    t = -rng.uniform(2, 20)
    doc.add(f"Job {ctx.jobid} ({ctx.jobname}) started {ctx.clock(h0, t).strftime('%a %b %d %H:%M:%S %Z%Y').replace('  ', ' ')}")
    doc.add(f"SLURM_JOB_NODELIST={compress_nodelist([short(h) for h in ctx.hosts])}", "HOSTMAP")
    doc.add(f"SLURM_NNODES={ctx.nnodes} SLURM_NTASKS_PER_NODE={ctx.gpn if ctx.launch == 'srun' else 1} "
            f"SLURM_GPUS_ON_NODE={ctx.gpn}")
    doc.add(f"MASTER_ADDR={short(h0)} MASTER_PORT={rng.choice([29500, 12355, 6000, 29400])}")
    env = [f"NCCL_DEBUG={'INFO' if ctx.nccl_debug else 'WARN'}"]
    if rng.random() < 0.5:
        env.append(f"NCCL_IB_TIMEOUT={rng.choice([18, 20, 22, 23])}")
    if rng.random() < 0.4:
        env.append("TORCH_NCCL_ASYNC_ERROR_HANDLING=1")
    if ctx.era_ge("2.5") and rng.random() < 0.4:
        env.append("TORCH_NCCL_TRACE_BUFFER_SIZE=2000 TORCH_NCCL_DUMP_ON_TIMEOUT=1")
    doc.add("+ export " + " ".join(env))
    if ctx.launch == "srun":
        doc.add(f"+ srun {'--label ' if ctx.srun_label else ''}--kill-on-bad-exit=0 --cpu-bind=none {ctx.pybin} -u {ctx.script} "
                f"--config configs/{ctx.jobname}.yaml")
    else:
        doc.add(f"+ srun {'--label ' if ctx.srun_label else ''}torchrun --nnodes={ctx.nnodes} --nproc-per-node={ctx.gpn} "
                f"--rdzv-backend=c10d --rdzv-endpoint={short(h0)}:29500 {'--tee 3 ' if ctx.tee else ''}{ctx.script} "
                f"--config configs/{ctx.jobname}.yaml")


def render_rank_prefix(ctx, e, style):
    """style: srun_label, srun_plain, torchrun_label, torchrun_plain, plain."""
    r = e.rank
    if style == "srun_label":
        w = len(str(ctx.world - 1))
        return f"{r:>{w}}: ", True, True
    if style == "torchrun_label":
        w = len(str(ctx.nnodes - 1))
        pre = f"{ctx.node_of(r):>{w}}: "
        if ctx.tee:
            return pre + f"[default{ctx.local_of(r)}]:", True, True
        return pre, False, True
    if style == "torchrun_console":
        if ctx.tee:
            return f"[default{ctx.local_of(r)}]:", ctx.nnodes == 1, ctx.nnodes == 1
        return "", False, ctx.nnodes == 1
    return "", False, ctx.nnodes == 1


def emit_rank_event(ctx, doc, e, prefix, rank_ok, node_ok, ts_prefix=""):
    ok_r = rank_ok or text_names_rank(e.text, e.rank)
    ok_n = node_ok or ok_r or short(ctx.host_of(e.rank)) in e.text
    doc.add(ts_prefix + prefix + e.text, *xtags(e.tags, e.rank, ok_r, ok_n))


# --------------------------------------------------------------------------------------
# layouts
# --------------------------------------------------------------------------------------


def art_filename(ctx, a, layout):
    h = short(a["host"]) if a["host"] else None
    k = a["kind"]
    if k == "stack":
        return f"stacks/{a['fname']}"
    base = {"dmesg": "dmesg", "smi": "nvidia-smi", "smicsv": "nvidia-smi-query", "smiq": "nvidia-smi-q",
            "remap": "nvidia-smi-row-remapper", "nvlink": "nvlink-status", "top": "top", "ps": "ps",
            "ibstat": "ibstat", "fr": "fr_trace_summary"}[k]
    if k == "fr":
        return "fr_trace_summary.txt"
    if layout == "torchrun_logdir":
        return f"{h}/{base}.txt"
    if layout == "k8s_pods":
        return f"nodes/{h}/{base}.txt"
    return f"{base}-{h}.txt"


def write_arts(ctx, layout):
    for a in ctx.arts:
        fn = art_filename(ctx, a, layout)
        d = ctx.doc(fn)
        if d.lines and a["kind"] in ("smi", "top", "ps"):
            d.add("")
        if a["kind"] == "stack" and a.get("title"):
            d.add(f"# {a['title']}  ({short(a['host'])}, {ctx.ts(a['host'], a['t'], 'iso')})")
        d.extend(a["lines"])
        if a["kind"] == "dmesg" and len(d.lines) > 60:
            trim_doc(ctx, d, 400, cut_prob=0.2)


def render_slurm(ctx):
    rng = ctx.rng
    out = ctx.doc(f"slurm-{ctx.jobid}.out")
    split = rng.random() < 0.35
    err = ctx.doc(f"slurm-{ctx.jobid}.err") if split else out
    slurm_header(ctx, out)
    if ctx.launch == "srun":
        style = "srun_label" if ctx.srun_label else "srun_plain"
    else:
        style = "torchrun_label" if ctx.srun_label else "torchrun_console"
    for e in sorted_events(ctx):
        if not visible(ctx, e):
            continue
        if e.stream in ("out", "err"):
            pre, rok, nok = render_rank_prefix(ctx, e, style)
            emit_rank_event(ctx, err if e.stream == "err" else out, e, pre, rok, nok)
        elif e.stream == "agent":
            if ctx.launch != "torchrun":
                continue
            w = len(str(ctx.nnodes - 1))
            pre = f"{ctx.hosts.index(e.host):>{w}}: " if ctx.srun_label else ""
            tags = e.tags
            if not ctx.srun_label and ctx.nnodes > 1:
                tags = tuple(t for t in tags if not t.startswith("AGENTFAIL"))
            err.add(pre + e.text, *tags)
        elif e.stream in ("srun", "batch"):
            err.add(e.text, *e.tags)
        elif e.stream == "end":
            for t, l in end_lines(ctx):
                err.add(l)
    for t, l, tg in getattr(ctx, "preempt_lines", []):
        err.add(l, *tg)
    trim_doc(ctx, out, 2600)
    if split:
        trim_doc(ctx, err, 2600)
    # sacct
    if rng.random() < 0.55:
        d = ctx.doc("sacct.txt")
        d.add(f"$ sacct -j {ctx.jobid} --format=JobID,JobName%20,State%20,ExitCode,Elapsed,NodeList%40")
        d.add("JobID                     JobName                State ExitCode    Elapsed                                 NodeList ")
        d.add("------------ -------------------- -------------------- -------- ---------- ---------------------------------------- ")
        el = ctx.t_end
        elapsed = f"{int(el // 3600):02d}:{int(el % 3600 // 60):02d}:{int(el % 60):02d}"
        state = {"watchdog": "FAILED", "scancel": f"CANCELLED by {rng.randint(1000, 60000)}", "timelimit": "TIMEOUT",
                 "running": "RUNNING", "preempted": "PREEMPTED", "completed": "COMPLETED"}.get(ctx.end, "FAILED")
        code = {"FAILED": "1:0", "TIMEOUT": "0:0", "RUNNING": "0:0", "PREEMPTED": "0:0", "COMPLETED": "0:0"}.get(state.split()[0], "0:15")
        nl = compress_nodelist([short(h) for h in ctx.hosts])
        d.add(f"{ctx.jobid:<12} {ctx.jobname:>20} {state:>20} {code:>8} {elapsed:>10} {nl[:40]:>40} ")
        d.add(f"{str(ctx.jobid) + '.batch':<12} {'batch':>20} {state.split()[0] if state != 'TIMEOUT' else 'CANCELLED':>20} {code:>8} {elapsed:>10} {short(ctx.hosts[0]):>40} ")
        sstate = state.split()[0]
        if getattr(ctx, "oom_task", None) is not None and sstate == "FAILED":
            sstate = "OUT_OF_MEMORY"
        d.add(f"{str(ctx.jobid) + '.0':<12} {ctx.pybin.split('/')[-1] if ctx.launch == 'srun' else 'torchrun':>20} {sstate:>20} {code:>8} {elapsed:>10} {nl[:40]:>40} ")
    write_arts(ctx, "slurm")


def render_torchrun_logdir(ctx):
    rng = ctx.rng
    run_ids = [f"{ctx.jobname}-{rand_hex(rng, 8)}", f"{ctx.jobname}-{rand_hex(rng, 8)}"]
    ra = getattr(ctx, "restart_at", None)
    # which nodes the operator collected
    if ctx.nnodes <= 4 and rng.random() < 0.65:
        coll = list(range(ctx.nnodes))
    elif ctx.nnodes <= 4:
        coll = sorted({0, rng.randrange(ctx.nnodes)})
    else:
        k = rng.randint(2, min(8, ctx.nnodes))
        coll = set(rng.sample(range(ctx.nnodes), k - 1)) | {0}
        if ctx.init_node is not None and rng.random() < 0.6:
            coll.add(ctx.hosts.index(ctx.init_node))
        coll = sorted(coll)
    ctx.collected_nodes = coll
    ji = ctx.doc("job_info.txt")
    ji.add(f"# launch commands ({ctx.nnodes} nodes, {ctx.gpn} GPUs each); logs collected from {len(coll)} node(s)")
    for ni, h in enumerate(ctx.hosts):
        ji.add(f"{short(h)}: torchrun --nnodes={ctx.nnodes} --nproc-per-node={ctx.gpn} --node-rank={ni} "
               f"--master-addr={short(ctx.hosts[0])} --master-port=29500 --log-dir=/var/log/torchrun --redirects 3 "
               f"{'--tee 3 ' if ctx.tee else ''}{ctx.script}", "HOSTMAP")
    for ni in coll:
        for rid in run_ids[:2 if ra is not None else 1]:
            for L in range(ctx.gpn):
                for sfx in ("stdout", "stderr"):
                    p = f"{short(ctx.hosts[ni])}/{rid}/attempt_0/{L}/{sfx}.log"
                    ctx.doc(p)
                    ctx.keep_empty.add(p)
    for e in sorted_events(ctx):
        if not visible(ctx, e):
            continue
        if e.host not in ctx.hosts:
            continue
        ni = ctx.hosts.index(e.host)
        if ni not in coll:
            continue
        rid = run_ids[1] if (ra is not None and e.t >= ra) else run_ids[0]
        h = short(e.host)
        if e.stream in ("out", "err"):
            L = ctx.local_of(e.rank)
            d = ctx.doc(f"{h}/{rid}/attempt_0/{L}/{'stdout' if e.stream == 'out' else 'stderr'}.log")
            emit_rank_event(ctx, d, e, "", True, True)
        elif e.stream == "agent":
            ctx.doc(f"{h}/torchrun.log").add(e.text, *e.tags)
        elif e.stream == "batch":
            ctx.doc(f"{h}/torchrun.log").add(e.text, *e.tags)
    for p, d in list(ctx.docs.items()):
        if p.endswith(".log"):
            trim_doc(ctx, d, 1500, cut_prob=0.15)
    if getattr(ctx, "spot", None):
        tt, X = ctx.spot
        if ctx.hosts.index(X) in coll or rng.random() < 0.7:
            d = ctx.doc(f"{short(X)}/spot-termination.log")
            d.add(f"{ctx.ts(X, tt, 'slurm')}Z polling http://169.254.169.254/latest/meta-data/spot/instance-action")
            d.add(f'{ctx.ts(X, tt + 1, "slurm")}Z received: {{"action": "terminate", "time": "{ctx.clock(X, tt + 120).strftime("%Y-%m-%dT%H:%M:%SZ")}"}}', "N:preempt")
            d.add(f"{ctx.ts(X, tt + 1, 'slurm')}Z spot interruption notice for {short(X)}; signalling workload", "N:preempt")
    write_arts(ctx, "torchrun_logdir")


def pod_names(ctx):
    style = ctx.rng.choice(["pytorchjob", "jobset"])
    job = ctx.jobname
    if style == "pytorchjob":
        return [f"{job}-master-0"] + [f"{job}-worker-{i}" for i in range(ctx.nnodes - 1)]
    return [f"{job}-workers-0-{i}-{rand_hex(ctx.rng, 5)}" for i in range(ctx.nnodes)]


def render_k8s(ctx):
    rng = ctx.rng
    pods = pod_names(ctx)
    ns = rng.choice(["ml-train", "research", "default", "llm"])
    stamps = rng.random() < 0.4
    ra = getattr(ctx, "restart_at", None)
    if ctx.nnodes <= 8 and rng.random() < 0.7:
        coll = list(range(ctx.nnodes))
    else:
        coll = sorted(set(rng.sample(range(ctx.nnodes), min(ctx.nnodes, rng.randint(1, 6)))) | {0} |
                      ({ctx.hosts.index(ctx.init_node)} if ctx.init_node and rng.random() < 0.5 else set()))
    for e in sorted_events(ctx):
        if not visible(ctx, e) or e.host not in ctx.hosts:
            continue
        ni = ctx.hosts.index(e.host)
        if ni not in coll:
            continue
        fn = f"pods/{pods[ni]}.log"
        if ra is not None and e.t < ra:
            fn = f"pods/{pods[ni]}.previous.log"
        d = ctx.doc(fn)
        tsp = ctx.ts(e.host, e.t, "rfc3339") + " " if stamps else ""
        if e.stream in ("out", "err"):
            pre = f"[default{ctx.local_of(e.rank)}]:" if ctx.tee else ""
            emit_rank_event(ctx, d, e, pre, ctx.tee, True, tsp)
        elif e.stream in ("agent", "batch"):
            d.add(tsp + e.text, *e.tags)
    for p, d in list(ctx.docs.items()):
        if p.startswith("pods/"):
            trim_doc(ctx, d, 1800, cut_prob=0.15)
    # describe
    dd = ctx.doc("describe-pods.txt")
    oomh = getattr(ctx, "oom_host", None)
    image = rng.choice(['24.03', '24.07', '24.10', '25.01'])
    for ni, pod in enumerate(pods):
        if ctx.nnodes > 12 and ni not in coll and ctx.hosts[ni] != oomh:
            continue
        h = ctx.hosts[ni]
        dd.add(f"Name:             {pod}")
        dd.add(f"Namespace:        {ns}")
        dd.add(f"Node:             {h}/{ctx.ip[h]}", "HOSTMAP")
        dd.add(f"Start Time:       {ctx.clock(h, -30).strftime('%a, %d %b %Y %H:%M:%S +0000')}")
        dd.add(f"Labels:           training.kubeflow.org/job-name={ctx.jobname}")
        dd.add(f"                  training.kubeflow.org/replica-index={ni if pod.find('master') < 0 else 0}")
        status = "Running"
        preempted = getattr(ctx, "preempt_node", None) == h
        if preempted:
            status = "Failed"
        elif ctx.end == "completed":
            status = "Succeeded"
        elif ctx.end == "watchdog" and ni in ctx.node_fail:
            status = "Failed"
        dd.add(f"Status:           {status}")
        if preempted:
            dd.add("Reason:           Terminated")
            dd.add("Message:          Pod was terminated in response to imminent node shutdown.", "N:preempt")
        dd.add(f"IP:               {ctx.ip[h]}")
        dd.add("Containers:")
        dd.add("  pytorch:")
        dd.add(f"    Image:          nvcr.io/nvidia/pytorch:{image}-py3")
        if status == "Running":
            dd.add("    State:          Running")
            dd.add(f"      Started:      {ctx.clock(h, 0).strftime('%a, %d %b %Y %H:%M:%S +0000')}")
        else:
            code = {"Succeeded": 0}.get(status, 1 if not preempted else 143)
            reason = "Completed" if status == "Succeeded" else ("OOMKilled" if h == oomh else "Error")
            dd.add("    State:          Terminated")
            dd.add(f"      Reason:       {reason}", *(("N:k8soom",) if reason == "OOMKilled" else ()))
            dd.add(f"      Exit Code:    {code}")
        if ra is not None:
            dd.add("    Last State:     Terminated")
            dd.add("      Reason:       Error")
            dd.add("      Exit Code:    1")
            dd.add("    Ready:          False")
            dd.add("    Restart Count:  1")
        else:
            dd.add("    Restart Count:  0")
        dd.add("    Limits:")
        dd.add(f"      nvidia.com/gpu:  {ctx.gpn}")
        dd.add(f"      memory:          {rng.choice([960, 1600, 1800])}Gi")
        dd.add("")
    trim_doc(ctx, dd, 700, cut_prob=0.1)
    ev = ctx.doc("events.txt")
    ev.add("LAST SEEN   TYPE      REASON              OBJECT                                   MESSAGE")
    items = [(-rng.uniform(5, 40), "Normal", "Scheduled", f"pod/{pods[i]}", f"Successfully assigned {ns}/{pods[i]} to {ctx.hosts[i]}", ("HOSTMAP",))
             for i in range(min(ctx.nnodes, 6))]
    if oomh:
        items.append((ctx.t_inc, "Warning", "OOMKilling", f"node/{oomh}", f"Memory cgroup out of memory: Killed process "
                      f"{ctx.pid[ctx.init_rank]} (python3) total-vm:{rng.randint(90, 200) * 1048576}kB, anon-rss:{rng.randint(100, 300) * 1024}kB",
                      ("N:k8soom", "N:oompid") if ctx.fate.get(ctx.init_rank, {}).get("code") == -9 else ("N:k8soom",)))
    if getattr(ctx, "preempt_node", None):
        X = ctx.preempt_node
        items.append((ctx.t_inc, "Normal", "Killing", f"pod/{pods[ctx.hosts.index(X)]}", "Stopping container pytorch", ()))
        items.append((ctx.t_inc + rng.uniform(40, 120), "Warning", "NodeNotReady", f"pod/{pods[ctx.hosts.index(X)]}", "Node is not ready", ()))
    if ra is not None:
        items.append((ra + 20, "Normal", "Pulled", f"pod/{pods[0]}", "Container image already present on machine", ()))
        items.append((ra + 22, "Normal", "Started", f"pod/{pods[0]}", "Started container pytorch", ()))
    items.sort(key=lambda x: x[0])
    t_now = ctx.t_end + rng.uniform(60, 900)
    for t_ev, ty, rs, obj, msg, tg in items:
        age = max(1, int((t_now - t_ev) // 60))
        ages = f"{age}m" if age < 180 else f"{age // 60}h"
        ev.add(f"{ages:<11} {ty:<9} {rs:<19} {obj[:40]:<40} {msg}", *tg)
    write_arts(ctx, "k8s_pods")


def render_deepspeed(ctx):
    rng = ctx.rng
    d = ctx.doc("train.log")
    h0 = ctx.hosts[0]
    hf = ctx.doc("hostfile")
    for h in ctx.hosts:
        hf.add(f"{short(h)} slots={ctx.gpn}", "HOSTMAP")
    t = -rng.uniform(5, 15)
    d.add(f"[{ctx.ts(h0, t, 'pylog')}] [INFO] [runner.py:568:main] cmd = pdsh -S -f 1024 -w "
          f"{','.join(short(h) for h in ctx.hosts[:64])} export NCCL_DEBUG={'INFO' if ctx.nccl_debug else 'WARN'}; "
          f"cd {ctx.workdir}; {ctx.pybin} -u -m deepspeed.launcher.launch --world_info=eyJ{rand_hex(rng, 40)}= "
          f"--node_rank=%n --master_addr={short(h0)} --master_port=29500 {ctx.script} --deepspeed --deepspeed_config ds_config.json")
    for ni, h in enumerate(ctx.hosts):
        tt = t + rng.uniform(1, 3)
        d.add(f"{short(h)}: [{ctx.ts(h, tt, 'pylog')}] [INFO] [launch.py:146:main] WORLD INFO DICT: "
              f"{{{', '.join(repr(short(x)) + ': [' + ', '.join(str(i) for i in range(ctx.gpn)) + ']' for x in ctx.hosts[:3])}{', ...' if ctx.nnodes > 3 else ''}}}")
        d.add(f"{short(h)}: [{ctx.ts(h, tt, 'pylog')}] [INFO] [launch.py:152:main] nnodes={ctx.nnodes}, num_local_procs={ctx.gpn}, node_rank={ni}",
              "HOSTMAP")
        if ni < 3:
            d.add(f"{short(h)}: [{ctx.ts(h, tt, 'pylog')}] [INFO] [launch.py:163:main] global_rank_mapping=defaultdict(<class 'list'>, "
                  f"{{{', '.join(repr(short(x)) + ': [' + ', '.join(str(j) for j in ctx.ranks_on(i)) + ']' for i, x in enumerate(ctx.hosts[:2]))}"
                  f"{', ...' if ctx.nnodes > 2 else ''}}})")
        for L in range(ctx.gpn):
            if ctx.nnodes > 16 and L > 0:
                break
            d.add(f"{short(h)}: [{ctx.ts(h, tt, 'pylog')}] [INFO] [launch.py:256:main] process {ctx.pid[ni * ctx.gpn + L]} spawned with "
                  f"command: ['{ctx.pybin}', '-u', '{ctx.script}', '--local_rank={L}', '--deepspeed', '--deepspeed_config', 'ds_config.json']",
                  f"PID:{ni * ctx.gpn + L}")
    for e in sorted_events(ctx):
        if not visible(ctx, e):
            continue
        pre = f"{short(e.host)}: "
        if e.stream in ("out", "err"):
            emit_rank_event(ctx, d, e, pre, False, True)
        elif e.stream == "agent":
            if "torch/distributed" in e.text or "OMP_NUM_THREADS" in e.text or e.text.startswith("*****") or "ChildFailed" in e.text:
                continue
            d.add(pre + e.text, *e.tags)
        elif e.stream == "launcher":
            d.add(e.text, *e.tags)
        elif e.stream == "end":
            tt = ctx.t_end
            d.add(f"^Cpdsh@{short(h0)}: interrupt (one more within 1 sec to abort)")
            d.add(f"pdsh@{short(h0)}:  (^Z within 1 sec to cancel pending threads)")
    trim_doc(ctx, d, 3000)
    write_arts(ctx, "deepspeed_pdsh")


def stack_caption(ctx, a):
    fn = a["fname"]
    h = short(a["host"])
    r = a["rank"]
    if fn.startswith("rank"):
        who = f"rank {r} ({h})"
    elif "_local" in fn:
        who = f"{h}, local rank {ctx.local_of(r)}"
    else:
        who = f"{h}, pid {ctx.pid[r]}"
    return f"{a['title']} on {who}:"


ART_CAPTIONS = {"dmesg": "{dm} on {h}:", "smi": "nvidia-smi on {h}:", "smicsv": "GPU telemetry on {h}:",
                "smiq": "nvidia-smi -q on {h}:", "remap": "row remapper on {h}:", "nvlink": "nvlink status on {h}:",
                "top": "top on {h}:", "ps": "ps on {h}:", "ibstat": "ibstat on {h}:",
                "fr": "flight recorder analysis (all ranks' dumps):"}


def user_story(ctx):
    rng = ctx.rng
    h0 = ctx.hosts[0]
    when = ctx.ts(h0, ctx.t_inc, "iso")[:16]
    s = getattr(ctx, "s_last", ctx.s0) + 1
    fwname = {"ddp": "DDP", "fsdp": "FSDP", "megatron": "Megatron-LM", "deepspeed": "DeepSpeed ZeRO-3",
              "hf": "HF Trainer", "lightning": "Lightning"}[ctx.fw]
    if ctx.healthy:
        v = getattr(ctx, "hvariant", "")
        m = int(((ctx.pause[1] - ctx.pause[0]) if hasattr(ctx, "pause") else rng.uniform(600, 1800)) // 60)
        return rng.choice([
            f"Our {ctx.world}-GPU {fwname} run looked frozen for ~{m} minutes around step {s} ({when}). No errors, "
            f"GPUs showed utilization. Is this a hang? Logs and whatever I grabbed below.",
            f"Training on {ctx.nnodes} node(s) seemed stuck (nothing printed for {m} min, nvidia-smi says 100%). "
            f"Attaching what I collected - not sure if something is broken.",
            f"Possible hang? {fwname}, {ctx.world} ranks, torch {ctx.torch}. It went quiet at step {s}."])
    if ctx.cause == "straggler":
        return rng.choice([
            f"Our {ctx.world}-GPU {fwname} job looks stuck / extremely slow since ~{when}: steps that took "
            f"{ctx.step_time:.1f}s now take 2-3x longer and the log barely moves. No errors anywhere. I killed it.",
            f"Is the job hung? It still prints, but very rarely. {ctx.nnodes} nodes x {ctx.gpn} GPUs, torch {ctx.torch}."])
    endtxt = {"watchdog": f"until the NCCL watchdog killed everything ~{ctx.timeout_s // 60} min later",
              "scancel": "so I scancel'ed it after a while", "timelimit": "until it hit the Slurm time limit",
              "running": "and it is still hanging as I write this", "preempted": "and then the job was gone",
              }.get(ctx.end, "")
    guess = rng.choice(["", "", " I suspect the network (we had IB issues last week).",
                        f" Could {short(rng.choice(ctx.hosts))} be a bad node?", " Probably a deadlock in our code?",
                        " NCCL timeout again - maybe increase the timeout?"])
    return (f"{fwname} job with {ctx.world} ranks on {ctx.nnodes} node(s) (torch {ctx.torch}, NCCL {ctx.nccl}) got stuck "
            f"at step {s} around {when}, nothing printed after that {endtxt}.{guess}")


def console_lines(ctx, sub):
    """what the user sees on the console / in the merged log, as (text, tags)."""
    d = Doc("tmp")
    if sub == "srun_label":
        style = "srun_label" if ctx.launch == "srun" else "torchrun_label"
    else:
        style = "torchrun_console" if ctx.launch != "srun" else "srun_plain"
    for e in sorted_events(ctx):
        if not visible(ctx, e):
            continue
        if sub == "rank0":
            if e.stream in ("out", "err") and e.rank not in (0, ctx.print_rank):
                continue
            if e.stream == "agent" and e.host != ctx.hosts[0]:
                continue
        if e.stream in ("out", "err"):
            pre, rok, nok = render_rank_prefix(ctx, e, style)
            emit_rank_event(ctx, d, e, pre, rok, nok)
        elif e.stream == "agent" and ctx.launch == "torchrun":
            tags = e.tags
            if ctx.nnodes > 1 and style != "torchrun_label":
                tags = tuple(t for t in tags if not t.startswith("AGENTFAIL"))
            d.add(e.text, *tags)
        elif e.stream in ("srun", "batch", "launcher"):
            d.add(e.text, *e.tags)
        elif e.stream == "end" and ctx.layout in ("slurm", "paste") and ctx.launch == "srun":
            for t, l in end_lines(ctx):
                d.add(l)
    for t, l, tg in getattr(ctx, "preempt_lines", []):
        d.add(l, *tg)
    return d.lines


KEYISH = ("R:own", "N:", "WD", "OOMSKIP", "SRUN", "CFE", "R:mm", "R:timing", "DUMPSIG", "HBSTUCK", "PREEMPT")


def excerpt(ctx, lines, max_lines):
    rng = ctx.rng
    n = len(lines)
    if n <= max_lines:
        return lines
    marks = set()
    head = rng.randint(3, 12)
    marks.update(range(head))
    steps = [i for i, (t, tg) in enumerate(lines) if "STEP" in tg]
    if steps:
        last = steps[-1]
        marks.update(range(max(0, last - rng.randint(2, 8)), last + 1))
    keys = [i for i, (t, tg) in enumerate(lines) if any(str(x).startswith(KEYISH) for x in tg)]
    if keys and rng.random() < 0.7:
        k = keys[0] if rng.random() < 0.6 else rng.choice(keys)
        marks.update(range(max(0, k - rng.randint(1, 6)), min(n, k + rng.randint(3, 20))))
    else:
        k = rng.randint(int(n * 0.6), n - 1)
        marks.update(range(max(0, k - 5), min(n, k + 10)))
    marks.update(range(max(0, n - rng.randint(5, 25)), n))
    out = []
    prev = -1
    mk = rng.choice(["...", "[...]", "<snip>", "(...)"])
    budget = max_lines
    for i in sorted(marks):
        if prev != -1 and i != prev + 1:
            out.append((mk, ()))
        out.append(lines[i])
        prev = i
        budget -= 1
        if budget <= 0:
            break
    return out


def render_paste(ctx):
    rng = ctx.rng
    d = ctx.doc(rng.choice(["issue.md", "paste.txt", "ticket.md"]))
    title = rng.choice(["Training hangs", "Job stuck, no error", "NCCL hang?", "Run froze at step " + str(getattr(ctx, "s_last", 0) + 1),
                        "multi-node job stops making progress"])
    d.add(f"# {title}" if d.path.endswith(".md") else title)
    d.add("")
    d.add(user_story(ctx))
    q = getattr(ctx, "user_quote", None)
    if q:
        d.add("")
        d.add(f"Our admin found this in the kernel log of {short(ctx.init_node)}:", "N:xid")
        d.add(f"    {q}", "N:xid", *(("N:xidpid",) if "pid=" in q and "unknown" not in q else ()))
    d.add("")
    d.add(f"Env: torch {ctx.torch}, CUDA {ctx.cuda}, NCCL {ctx.nccl}, driver {ctx.driver}, {ctx.plat['name']} x {ctx.gpn} per node, "
          f"nodes: {', '.join(short(h) for h in ctx.hosts[:12])}{' ...' if ctx.nnodes > 12 else ''}",
          *(("HOSTMAP",) if ctx.launch == "srun" and ctx.nnodes <= 12 else ()))
    d.add("")
    sub = rng.choice(["srun_label", "console", "rank0", "rank0"]) if ctx.nnodes > 1 else rng.choice(["console", "rank0"])
    if ctx.launch != "srun" and sub == "srun_label":
        sub = "console"
    lines = console_lines(ctx, sub)
    ex = excerpt(ctx, lines, rng.randint(60, 240))
    d.add("Log (" + {"srun_label": "slurm output", "console": "console", "rank0": "rank 0 log"}[sub] + "):")
    d.add("```")
    d.extend(ex)
    d.add("```")
    arts = list(ctx.arts)
    rng.shuffle(arts)
    for a in arts[:rng.randint(1, 6)] if arts else []:
        d.add("")
        if a["kind"] == "stack":
            d.add(stack_caption(ctx, a))
        else:
            dm = {"kmono": "dmesg | tail -n 200", "kT": "dmesg -T", "journal": "journalctl -k"}[a.get("style", "kT")]
            d.add(ART_CAPTIONS[a["kind"]].format(h=short(a["host"]) if a["host"] else "?", dm=dm))
        d.add("```")
        L = a["lines"]
        if len(L) > 70:
            L = L[:30] + [("...", ())] + L[-30:]
        d.extend(L)
        d.add("```")
    if rng.random() < 0.3:
        d.add("")
        d.add(rng.choice(["Any idea what to look at next?", "Thanks!", "We lose hours to this every week.",
                          "Happy to run more diagnostics if needed."]))


RENDERERS = {"slurm": render_slurm, "torchrun_logdir": render_torchrun_logdir, "k8s_pods": render_k8s,
             "deepspeed_pdsh": render_deepspeed, "paste": render_paste}

CAUSE_FN = {"gpu_hardware": c_gpu_hardware, "ecc_memory": c_ecc_memory, "nvlink": c_nvlink, "network": c_network,
            "cuda_oom": c_cuda_oom, "illegal_memory_access": c_illegal_memory_access,
            "python_exception": c_python_exception, "host_oom_kill": c_host_oom_kill, "crash_signal": c_crash_signal,
            "preemption": c_preemption, "hang": c_hang, "data_loader_stall": c_data_loader_stall,
            "collective_mismatch": c_collective_mismatch, "straggler": c_straggler, "unknown": c_unknown}


# --------------------------------------------------------------------------------------
# one run
# --------------------------------------------------------------------------------------


def cap_size(ctx):
    rng = ctx.rng
    for _ in range(40):
        total = sum(d.size() for d in ctx.docs.values())
        if total <= MAX_RUN_BYTES:
            return
        big = max(ctx.docs.values(), key=lambda d: d.size())
        n = len(big.lines)
        if n < 40:
            return
        a = int(n * 0.2)
        b = int(n * 0.7)
        big.cut(a, b, rng.choice(TRIM_MARKERS))


def hostmap_ok(ctx, S, r):
    if ctx.layout in ("torchrun_logdir", "k8s_pods", "deepspeed_pdsh"):
        return S["HOSTMAP"] > 0 or S[f"RH:{r}"] > 0
    if ctx.layout == "slurm" and ctx.launch == "srun":
        return S["HOSTMAP"] > 0 or S[f"RH:{r}"] > 0
    if ctx.layout == "paste" and ctx.launch == "srun":
        return S["HOSTMAP"] > 0 or S[f"RH:{r}"] > 0
    return S[f"RH:{r}"] > 0 or ctx.nnodes == 1


def _pref(S, prefixes, suffixes=("",)):
    return any(S[k] > 0 and k.startswith(prefixes) and k.endswith(suffixes) for k in list(S))


CAUSE_OK = {
    "gpu_hardware": lambda c, S: S["N:xid"] > 0 or S["N:smibad"] > 0,
    "ecc_memory": lambda c, S: S["N:xid"] > 0 or S["N:smiecc"] > 0 or S["CAUSE"] > 0,
    "nvlink": lambda c, S: S["N:xid"] > 0 or S["N:nvlinkst"] > 0 or S["CAUSE"] > 0,
    "network": lambda c, S: S["N:link"] + S["N:ibasync"] + S["N:ibstat"] + S["N:ibpeer"] > 0,
    "cuda_oom": lambda c, S: S["CAUSE"] > 0,
    "illegal_memory_access": lambda c, S: S["CAUSE"] > 0 or S["N:xid"] > 0,
    "python_exception": lambda c, S: S["CAUSE"] > 0,
    "host_oom_kill": lambda c, S: S["N:oom"] + S["N:k8soom"] + S["N:srunoom"] + S["SLURMOOM"] > 0,
    "crash_signal": lambda c, S: S["CAUSE"] > 0 or S["N:segv"] > 0 or _pref(S, ("CFE:", "SRUN:"), (":-11", ":-7")),
    "preemption": lambda c, S: S["PREEMPT"] + S["N:preempt"] + S["N:sigterm"] > 0,
    "hang": lambda c, S: any(p(S) for p in c.rank_proofs),
    "data_loader_stall": lambda c, S: S["CAUSE"] + S["N:fs"] > 0 or any(p(S) for p in c.rank_proofs),
    "collective_mismatch": lambda c, S: any(p(S) for p in c.rank_proofs),
    "straggler": lambda c, S: _pref(S, ("R:timing",)) or S["N:throttle"] + S["N:cpuhog"] > 0,
    "unknown": lambda c, S: True,
}


def build_run(i, seed, order, attempt):
    rng = random.Random(f"blind66:{seed}:{i}" + (f":retry{attempt}" if attempt else ""))
    healthy = (i % 7 == 3)
    cause = None
    if not healthy:
        k = i - (i + 4) // 7  # index among the faulty runs
        cause = order[k % len(order)]
    layouts = CAUSE_LAYOUTS.get(cause, LAYOUTS)
    layout = random.Random(f"blind66:{seed}:{i}:layout").choice(layouts)
    ctx = Ctx(rng, i, layout, cause, healthy)
    ctx.arts = []
    ctx.keep_empty = set()
    setup_job(ctx, need_multi=cause in ("network", "preemption") and not (cause == "preemption" and layout == "slurm"),
              need_gpn2=cause == "nvlink")
    ctx.launch = {"slurm": rng.choice(["srun", "torchrun"]), "torchrun_logdir": "torchrun", "k8s_pods": "torchrun",
                  "deepspeed_pdsh": "ds", "paste": rng.choice(["srun", "torchrun", "torchrun"])}[layout]
    ctx.srun_label = rng.random() < 0.6
    ctx.kstyle = kern_style(ctx)
    if ctx.use_faulthandler and ctx.world > 64:
        ctx.use_faulthandler = False
    if healthy:
        h_healthy(ctx)
    else:
        CAUSE_FN[cause](ctx)
    if not getattr(ctx, "finished", False):
        finish(ctx)
    if ctx.init_rank is not None and cause not in ("straggler",):
        ctx.rank_proofs.append(P_absent(ctx, ctx.init_rank))
        ctx.node_proofs.append(P_absent_node(ctx, ctx.node_of(ctx.init_rank)))
    RENDERERS[layout](ctx)
    cap_size(ctx)
    S = Counter()
    for d in ctx.docs.values():
        for _, tags in d.lines:
            for t in tags:
                S[t] += 1
    ok = S["DONE"] > 0 if healthy else CAUSE_OK[cause](ctx, S)
    rank = node = None
    if not healthy:
        if ctx.init_rank is not None and any(p(S) for p in ctx.rank_proofs):
            rank = ctx.init_rank
        if ctx.init_node is not None:
            if any(p(S) for p in ctx.node_proofs):
                node = short(ctx.init_node)
            elif rank is not None and hostmap_ok(ctx, S, rank):
                node = short(ctx.init_node)
    truth = {"healthy": healthy, "cause": cause,
             "initiator": None if healthy else {"rank": rank, "node": node},
             "layout": layout, "notes": ctx.notes}
    ctx.S = S
    return ctx, truth, ok


def make_run(i, seed, order, outdir):
    for attempt in range(12):
        ctx, truth, ok = build_run(i, seed, order, attempt)
        if ok:
            break
    name = f"run-{i:03d}-{truth['layout']}"
    rdir = os.path.join(outdir, name)
    os.makedirs(rdir, exist_ok=True)
    for path in sorted(ctx.docs):
        d = ctx.docs[path]
        if not d.lines and path not in ctx.keep_empty:
            continue
        fp = os.path.join(rdir, path)
        os.makedirs(os.path.dirname(fp), exist_ok=True)
        with open(fp, "w", encoding="utf-8", newline="\n") as f:
            f.write(d.render())
    with open(os.path.join(rdir, "truth.json"), "w", encoding="utf-8") as f:
        json.dump(truth, f, indent=2)
        f.write("\n")
    return name, truth["cause"], ok


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--seed", default="1")
    a = ap.parse_args(argv)
    order = list(CAUSES)
    random.Random(f"blind66-order:{a.seed}").shuffle(order)
    if os.path.isdir(a.out):
        for e in sorted(os.listdir(a.out)):
            if e.startswith("run-"):
                shutil.rmtree(os.path.join(a.out, e))
    os.makedirs(a.out, exist_ok=True)
    counts = Counter()
    for i in range(a.n):
        _, cause, ok = make_run(i, a.seed, order, a.out)
        counts[cause or "healthy"] += 1
        if not ok:
            print(f"warning: run {i}: cause evidence did not survive", file=sys.stderr)
    out = {k: counts[k] for k in ["healthy"] + CAUSES if counts[k]}
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
