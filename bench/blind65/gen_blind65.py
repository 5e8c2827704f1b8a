#!/usr/bin/env python3
"""blind65 - "the small lab's fine-tuning run, as pasted in an issue".

Synthetic log bundles of the kind individual users and small labs attach to GitHub issues
and forum threads about Hugging Face Trainer / accelerate / DeepSpeed / LLaMA-Factory /
axolotl / TRL / torchtune / ms-swift / unsloth fine-tuning runs on workstations (2-8
consumer or datacenter GPUs), a few cloud VMs, a small Slurm or Kubernetes cluster, or a
Colab/Kaggle-like notebook.

    python3 gen_blind65.py --out DIR --n 60 --seed S

Standard library only; deterministic per seed.  Every line is generated.
"""
import argparse
import datetime as _dt
import json
import os
import random
import shutil
import sys

CAUSES = ["gpu_hardware", "ecc_memory", "nvlink", "network", "cuda_oom",
          "illegal_memory_access", "python_exception", "host_oom_kill", "crash_signal",
          "preemption", "hang", "data_loader_stall", "collective_mismatch", "straggler",
          "unknown"]

LAYOUTS = ["issue", "paste", "torchrun_logdir", "deepspeed", "notebook", "slurm", "k8s"]

# which layouts can carry which cause (notebooks have no kernel log and at most 2 GPUs)
LAYOUTS_FOR = {
    "gpu_hardware": ["issue", "paste", "torchrun_logdir", "deepspeed", "slurm", "k8s"],
    "ecc_memory": ["issue", "paste", "torchrun_logdir", "deepspeed", "slurm", "k8s", "notebook"],
    "nvlink": ["issue", "paste", "torchrun_logdir", "deepspeed", "slurm", "k8s"],
    "network": ["issue", "paste", "torchrun_logdir", "deepspeed", "slurm", "k8s"],
    "cuda_oom": LAYOUTS,
    "illegal_memory_access": LAYOUTS,
    "python_exception": LAYOUTS,
    "host_oom_kill": LAYOUTS,
    "crash_signal": LAYOUTS,
    "preemption": LAYOUTS,
    "hang": ["issue", "paste", "torchrun_logdir", "deepspeed", "slurm", "k8s", "notebook"],
    "data_loader_stall": LAYOUTS,
    "collective_mismatch": ["issue", "paste", "torchrun_logdir", "deepspeed", "slurm", "k8s", "notebook"],
    "straggler": ["issue", "paste", "torchrun_logdir", "deepspeed", "slurm", "k8s"],
    "unknown": LAYOUTS,
    None: LAYOUTS,
}

MAX_RUN_BYTES = 900_000


# ----------------------------------------------------------------------------------------
# small helpers
# ----------------------------------------------------------------------------------------

def pick(rng, seq):
    return seq[rng.randrange(len(seq))]


def wpick(rng, pairs):
    tot = sum(w for _, w in pairs)
    x = rng.random() * tot
    for v, w in pairs:
        x -= w
        if x <= 0:
            return v
    return pairs[-1][0]


def hexs(rng, n):
    return "".join(pick(rng, "0123456789abcdef") for _ in range(n))


def fmt_int(n):
    return f"{n:,}"


def fmt_hms(sec):
    sec = int(max(0, sec))
    h, r = divmod(sec, 3600)
    m, s = divmod(r, 60)
    if h:
        return f"{h}:{m:02d}:{s:02d}"
    return f"{m:02d}:{s:02d}"


def uuid_like(rng):
    return f"{hexs(rng, 8)}-{hexs(rng, 4)}-{hexs(rng, 4)}-{hexs(rng, 4)}-{hexs(rng, 12)}"


class Clock:
    """Wall clock of one host: true job time t (s) -> datetime with the host's skew."""

    def __init__(self, start, skew):
        self.start = start
        self.skew = skew

    def at(self, t):
        return self.start + _dt.timedelta(seconds=t + self.skew)


def ts_iso(d, ms=True):  # 2024-06-10 10:11:12,345
    s = d.strftime("%Y-%m-%d %H:%M:%S")
    return s + f",{d.microsecond // 1000:03d}" if ms else s


def ts_glog(d, nanos=False):  # E0610 10:11:12.345678  (level letter added by caller)
    frac = f"{d.microsecond:06d}" + (f"{(d.microsecond * 7) % 1000:03d}" if nanos else "")
    return d.strftime("%m%d %H:%M:%S") + "." + frac


def ts_torchrun(d):  # 2024-06-10_10:11:12
    return d.strftime("%Y-%m-%d_%H:%M:%S")


def ts_syslog(d):
    return d.strftime("%b %d %H:%M:%S").replace(" 0", "  ", 1) if d.day < 10 else d.strftime("%b %d %H:%M:%S")


def ts_dmesg_T(d):
    return d.strftime("%a %b %d %H:%M:%S %Y").replace(" 0", "  ", 1) if d.day < 10 else d.strftime("%a %b %d %H:%M:%S %Y")


# ----------------------------------------------------------------------------------------
# hardware / software profiles
# ----------------------------------------------------------------------------------------

GPUS = {
    # name, memory MiB (nvidia-smi), GiB as torch prints, ecc capable, nvlink, power cap W
    "3090": ("NVIDIA GeForce RTX 3090", 24576, 23.69, False, "bridge", 350),
    "4090": ("NVIDIA GeForce RTX 4090", 24564, 23.65, False, None, 450),
    "5090": ("NVIDIA GeForce RTX 5090", 32607, 31.36, False, None, 575),
    "a6000": ("NVIDIA RTX A6000", 49140, 47.53, True, "bridge", 300),
    "l40s": ("NVIDIA L40S", 46068, 44.39, True, None, 350),
    "a100": ("NVIDIA A100-SXM4-80GB", 81920, 79.14, True, "sxm", 400),
    "a100_40": ("NVIDIA A100-SXM4-40GB", 40960, 39.39, True, "sxm", 400),
    "h100": ("NVIDIA H100 80GB HBM3", 81559, 79.11, True, "sxm", 700),
    "h100_pcie": ("NVIDIA H100 PCIe", 81559, 79.11, True, None, 350),
    "t4": ("Tesla T4", 15360, 14.74, True, None, 70),
    "a10g": ("NVIDIA A10G", 23028, 22.09, True, None, 300),
}

# era -> software stack; each era keeps consistent log formats
ERAS = [
    dict(era=0, year=2023, torch="2.0.1+cu118", nccl="2.14.3", cuda="11.8", tf="4.31.0",
         acc="0.21.0", ds="0.10.0", peft="0.4.0", trl="0.5.0", py="3.10.12", driver="535.86.05",
         datasets="2.14.3", lf="0.1.6", swift="1.0.0", axo="0.2.1", tt=None, bnb="0.41.1"),
    dict(era=1, year=2024, torch="2.2.2+cu121", nccl="2.19.3", cuda="12.1", tf="4.40.1",
         acc="0.29.3", ds="0.14.0", peft="0.10.0", trl="0.8.6", py="3.10.14", driver="545.23.08",
         datasets="2.19.0", lf="0.7.0", swift="2.0.4", axo="0.4.0", tt="0.1.1", bnb="0.43.1"),
    dict(era=2, year=2024, torch="2.5.1+cu124", nccl="2.21.5", cuda="12.4", tf="4.46.3",
         acc="1.1.1", ds="0.15.4", peft="0.13.2", trl="0.12.1", py="3.11.10", driver="550.127.05",
         datasets="3.1.0", lf="0.9.1", swift="2.6.1", axo="0.5.2", tt="0.4.0", bnb="0.44.1"),
    dict(era=3, year=2025, torch="2.7.1+cu128", nccl="2.26.2", cuda="12.8", tf="4.53.2",
         acc="1.8.1", ds="0.17.2", peft="0.16.0", trl="0.19.1", py="3.12.11", driver="570.158.01",
         datasets="3.6.0", lf="0.9.3", swift="3.6.2", axo="0.11.0", tt="0.6.1", bnb="0.46.1"),
]

FIRST = ["alex", "minh", "priya", "jonas", "wei", "sofia", "kenji", "omar", "lena", "tomas",
         "yuki", "ravi", "marta", "chen", "ana", "dmitri", "hugo", "aisha", "li", "sam"]

WS_HOSTS = ["ws-4090x4", "deeplearning-rig", "lambda-quad", "ubuntu-Z790", "gpu-box",
            "aurora", "dl-server01", "lab-3090", "titan", "epyc-llm", "tr-pro-7975wx",
            "bigboi", "hal9000", "octo-4090", "ml-ws02", "vision-lab-srv", "llm-train01",
            "rig2", "nlp-gpu3", "kestrel", "quasar", "falcon-ws"]


def cloud_hosts(rng, n):
    kind = rng.randrange(5)
    out = []
    if kind == 0:  # AWS
        base = [172, 31, rng.randrange(0, 64)]
        for i in range(n):
            out.append(f"ip-{base[0]}-{base[1]}-{base[2] + i // 200}-{rng.randrange(2, 254)}")
    elif kind == 1:  # GCP
        stem = pick(rng, ["ft-a100", "llama-sft", "spot-h100", "train-vm", "instance-2024"])
        for i in range(n):
            out.append(f"{stem}-{i}" if rng.random() < 0.6 else f"{stem}-{hexs(rng, 4)}")
    elif kind == 2:  # Lambda-style names
        for i in range(n):
            out.append(f"{rng.randrange(100, 210)}-{rng.randrange(1, 250)}-{rng.randrange(1, 250)}-{rng.randrange(2, 250)}")
    elif kind == 3:  # Azure
        stem = pick(rng, ["ndv5", "ndasr", "gpuvm"])
        for i in range(n):
            out.append(f"{stem}-{hexs(rng, 6)}{i:02d}")
    else:  # runpod-like containers
        for i in range(n):
            out.append(hexs(rng, 12))
    # unique
    seen = []
    for h in out:
        while h in seen:
            h = h + "x"
        seen.append(h)
    return seen


def cluster_hosts(rng, n):
    style = rng.randrange(6)
    if style == 0:
        stem, w = pick(rng, [("gpu", 2), ("gpu-node", 2), ("node", 3)]), None
        stem, w = stem[0], stem[1]
        start = rng.randrange(1, 40)
        return [f"{stem}{start + i:0{w}d}" for i in range(n)]
    if style == 1:
        rack = rng.randrange(1, 9)
        start = rng.randrange(1, 20)
        return [f"c{rack}-a100-{start + i:03d}" for i in range(n)]
    if style == 2:
        stem = pick(rng, ["ampere", "hopper", "volta", "turing"])
        start = rng.randrange(1, 30)
        return [f"{stem}{start + i:02d}" for i in range(n)]
    if style == 3:
        start = rng.randrange(100, 400)
        return [f"hpc-g{start + i}" for i in range(n)]
    if style == 4:
        start = rng.randrange(1, 10)
        return [f"dgx{start + i:02d}" for i in range(n)]
    start = rng.randrange(10, 90)
    return [f"gn{start + i:03d}.lab.internal" for i in range(n)]


def k8s_nodes(rng, n):
    stem = pick(rng, ["gke-lab-a100-pool", "gke-ml-h100-spot", "aks-gpupool", "ip-10-0"])
    if stem.startswith("gke"):
        grp = hexs(rng, 8)
        return [f"{stem}-{grp}-{hexs(rng, 4)}" for _ in range(n)]
    if stem.startswith("aks"):
        v = rng.randrange(10000000, 99999999)
        return [f"aks-gpupool-{v}-vmss{i:06d}" for i in range(n)]
    return [f"ip-10-0-{rng.randrange(1, 250)}-{rng.randrange(2, 250)}.ec2.internal" for _ in range(n)]


def bus_ids(rng, n, gpu):
    """PCI bus numbers for n GPUs in one box (lowercase hex bus)."""
    if gpu in ("a100", "a100_40", "h100"):
        pools = [[0x07, 0x0f, 0x47, 0x4e, 0x87, 0x90, 0xb7, 0xbd],
                 [0x18, 0x2a, 0x3a, 0x5d, 0x9a, 0xab, 0xba, 0xdb],
                 [0x19, 0x3b, 0x4c, 0x5d, 0x9b, 0xbb, 0xcb, 0xdb]]
    else:
        pools = [[0x01, 0x21, 0x41, 0x61, 0x81, 0xa1, 0xc1, 0xe1],
                 [0x01, 0x02, 0x41, 0x42, 0x81, 0x82, 0xc1, 0xc2],
                 [0x17, 0x31, 0x4b, 0x65, 0x98, 0xb1, 0xca, 0xe3],
                 [0x01, 0x05, 0x0b, 0x61, 0x62, 0x81, 0xc1, 0xe1]]
    p = pick(rng, pools)
    return p[:n]


# ----------------------------------------------------------------------------------------
# run context and the event story
# ----------------------------------------------------------------------------------------

class Ev:
    __slots__ = ("t", "src", "text", "tags", "seq", "tb")

    def __init__(self, t, src, text, tags, seq, tb=False):
        self.t, self.src, self.text, self.tags, self.seq, self.tb = t, src, text, tuple(tags), seq, tb


class Story:
    """Everything that happened, as per-source event lists; layouts decide how it is seen."""

    def __init__(self, ctx):
        self.ctx = ctx
        self.ev = []
        self.seq = 0
        self.rank_groups = []   # list of tag sets: initiator rank known if one group survives
        self.node_groups = []   # same for the host
        self.attach = []        # (kind, host_or_None, [(text, tags)])
        self.notes = ""
        self.user_text = []     # prose a user writes in the issue / report (list of (text, tags))
        self.fixed_by = ""      # follow-up comment text (optional)
        self.exit_summary = {}  # host -> dict for launcher summaries
        self.end_t = 0.0
        self.killed_at = {}

    def _add(self, t, src, text, tags, tb=False):
        for i, line in enumerate(text.split("\n")):
            self.seq += 1
            self.ev.append(Ev(t + i * 1e-6, src, line, tags, self.seq, tb))
        self.end_t = max(self.end_t, t)

    def r(self, g, t, text, tags=(), err=True, tb=False):
        self._add(t, ("r", g, "e" if err else "o"), text, tags, tb)

    def l(self, h, t, text, tags=()):
        self._add(t, ("l", h), text, tags)

    def k(self, h, t, text, tags=()):
        self._add(t, ("k", h), text, tags)

    def all_ranks(self, t, text, tags=(), err=True, ranks=None, jitter=0.3):
        rng = self.ctx.rng
        for g in (ranks if ranks is not None else self.ctx.detail_ranks):
            self.r(g, t + rng.random() * jitter, text, tags, err)

    def attach_file(self, kind, host, lines):
        self.attach.append((kind, host, lines))


class Ctx:
    def __init__(self, rng, idx, layout, cause, seed):
        self.rng = rng
        self.idx = idx
        self.layout = layout
        self.cause = cause
        self.seed = seed


def choose_topology(ctx):
    """Hosts, GPUs per host, GPU model, launcher and framework for this run."""
    rng, lay, cause = ctx.rng, ctx.layout, ctx.cause
    need_multi = cause in ("network",)
    consumer = ["3090", "4090", "4090", "5090", "3090", "a6000", "l40s"]
    dc = ["a100", "a100", "h100", "a100_40", "h100", "l40s", "a10g"]
    if lay == "notebook":
        gpu = wpick(rng, [("t4", 5), ("a100_40", 2), ("l40s", 1)])
        if cause in ("hang", "collective_mismatch", "data_loader_stall"):
            gpu = "t4"
        nhost, gpn = 1, (2 if gpu == "t4" else 1)
        if gpu == "t4" and cause is None and rng.random() < 0.3:
            gpn = 1
        kind = "notebook"
    elif lay in ("issue", "paste"):
        if need_multi or rng.random() < 0.25:
            nhost = pick(rng, [2, 2, 2, 3, 4])
            gpn = pick(rng, [4, 8, 8])
            gpu = pick(rng, dc)
            kind = "cloud"
        else:
            nhost = 1
            if rng.random() < 0.7:
                gpu = pick(rng, consumer)
                gpn = pick(rng, [2, 2, 3, 4, 4, 4, 6, 8])
                kind = "ws"
            else:
                gpu = pick(rng, dc)
                gpn = pick(rng, [2, 4, 8, 8])
                kind = "cloud"
    elif lay == "torchrun_logdir":
        nhost = 2 if (need_multi or rng.random() < 0.3) else 1
        gpn = pick(rng, [2, 4, 4, 8]) if nhost == 1 else pick(rng, [4, 8])
        gpu = pick(rng, consumer + dc)
        kind = "ws" if (nhost == 1 and gpu in consumer) else "cloud"
    elif lay == "deepspeed":
        nhost = pick(rng, [2, 2, 3, 4]) if (need_multi or rng.random() < 0.35) else 1
        gpn = pick(rng, [2, 4, 8]) if nhost == 1 else 8
        gpu = pick(rng, consumer) if nhost == 1 and rng.random() < 0.55 else pick(rng, dc)
        kind = "ws" if gpu in consumer else "cloud"
    elif lay == "slurm":
        nhost = wpick(rng, [(1, 2), (2, 4), (4, 4), (8, 3), (16, 2), (32, 1), (64, 1), (128, 1)])
        if need_multi and nhost == 1:
            nhost = 4
        gpn = 8 if nhost >= 16 else pick(rng, [4, 8, 8])
        gpu = pick(rng, ["a100", "a100", "h100", "a100_40", "a6000", "l40s"])
        kind = "cluster"
    else:  # k8s
        nhost = wpick(rng, [(1, 1), (2, 4), (4, 3), (8, 2), (16, 1), (32, 1)])
        if need_multi and nhost == 1:
            nhost = 2
        gpn = 8 if nhost > 1 else pick(rng, [4, 8])
        gpu = pick(rng, ["a100", "h100", "a10g", "l40s", "a100_40"])
        kind = "k8s"
    # cause constraints
    if cause == "ecc_memory" and not GPUS[gpu][3]:
        gpu = pick(rng, ["a100", "h100", "a6000", "a100_40"])
        if kind == "ws" and gpu in ("a100", "h100", "a100_40"):
            kind = "cloud"
    if cause == "nvlink":
        if lay == "notebook":
            pass
        elif kind == "ws":
            # consumer box: NVLink bridge (3090 / A6000 pairs) or PCIe-only P2P through IOMMU/ACS
            gpu = pick(rng, ["3090", "a6000", "4090", "5090", "4090"])
        elif GPUS[gpu][4] != "sxm":
            gpu = pick(rng, ["a100", "h100"])
        if gpu in ("3090", "a6000") and gpn > 4:
            gpn = 4
        if gpn < 2:
            gpn = 2
    if cause in ("hang", "collective_mismatch", "data_loader_stall", "straggler") and nhost * gpn < 2:
        gpn = 2
    if cause == "straggler" and kind not in ("ws",) and lay in ("issue", "paste", "deepspeed", "torchrun_logdir") and rng.random() < 0.6:
        kind, nhost = "ws", 1
        gpu = pick(rng, ["3090", "4090", "4090", "5090", "a6000"])
        gpn = pick(rng, [3, 4, 4, 6, 8])
    if kind == "ws" and nhost > 1:
        kind = "cloud"
    if cause == "preemption" and kind == "ws":
        kind = "cloud"
        gpu = pick(rng, dc)
    ctx.nhost, ctx.gpn, ctx.gpu, ctx.kind = nhost, gpn, gpu, kind
    ctx.world = nhost * gpn


def choose_software(ctx):
    rng = ctx.rng
    era = dict(pick(rng, ERAS))
    if ctx.gpu == "5090" and era["era"] < 3:
        era = dict(ERAS[3])
    if ctx.gpu == "h100" and era["era"] == 0 and rng.random() < 0.7:
        era = dict(ERAS[1])
    ctx.era = era
    ctx.E = era["era"]
    lay = ctx.layout
    if lay == "deepspeed":
        launcher = "deepspeed"
    elif lay == "notebook":
        launcher = "notebook"
    elif lay == "slurm":
        launcher = pick(rng, ["srun_torchrun", "srun_torchrun", "srun_accelerate", "srun_deepspeed"])
    elif lay == "k8s":
        launcher = "torchrun"
    elif lay == "torchrun_logdir":
        launcher = "torchrun"
    else:
        launcher = pick(rng, ["torchrun", "torchrun", "accelerate", "llamafactory", "deepspeed", "accelerate"])
    ctx.launcher = launcher
    fws = {
        "torchrun": ["hf", "hf", "trl", "llamafactory", "torchtune", "swift"],
        "accelerate": ["hf", "trl", "axolotl", "axolotl"],
        "llamafactory": ["llamafactory"],
        "deepspeed": ["hf", "llamafactory", "dschat", "hf"],
        "notebook": ["unsloth", "trl", "hf"],
        "srun_torchrun": ["hf", "torchtune", "trl", "llamafactory"],
        "srun_accelerate": ["hf", "axolotl", "trl"],
        "srun_deepspeed": ["hf", "llamafactory"],
    }[launcher]
    fw = pick(rng, fws)
    if fw == "torchtune" and era["tt"] is None:
        fw = "hf"
    ctx.fw = fw
    ctx.ds = launcher in ("deepspeed", "srun_deepspeed") or (fw in ("llamafactory", "axolotl", "hf") and rng.random() < 0.3)
    ctx.zero = pick(rng, [2, 3, 3]) if ctx.ds else 0
    ctx.rank_prefix = ctx.E >= 2 and launcher != "notebook"
    ctx.nccl_debug = rng.random() < 0.4 and launcher != "notebook"
    ctx.timeout_ms = 1800000 if (ctx.E == 0 or rng.random() < 0.3) else 600000
    if fw in ("hf", "trl", "llamafactory", "axolotl") and rng.random() < 0.25:
        ctx.timeout_ms = pick(rng, [1800000, 5400000, 7200000])
    ctx.wandb = rng.random() < 0.45
    ctx.p2p_disabled = ctx.gpu in ("4090", "5090") and rng.random() < 0.5
    ctx.acc_warn = launcher in ("accelerate", "srun_accelerate") and rng.random() < 0.6


def choose_names(ctx):
    rng = ctx.rng
    ctx.user = pick(rng, FIRST)
    if ctx.kind == "ws":
        ctx.hosts = [pick(rng, WS_HOSTS)]
        if rng.random() < 0.3 and ctx.gpn <= 2:
            ctx.hosts = [f"DESKTOP-{hexs(rng, 7).upper()}"]
            ctx.wsl = True
    elif ctx.kind == "cloud":
        ctx.hosts = cloud_hosts(rng, ctx.nhost)
    elif ctx.kind == "cluster":
        ctx.hosts = cluster_hosts(rng, ctx.nhost)
    elif ctx.kind == "k8s":
        ctx.hosts = k8s_nodes(rng, ctx.nhost)
    else:  # notebook
        ctx.hosts = [hexs(rng, 12) if rng.random() < 0.6 else f"{hexs(rng, 12)}"]
    if not hasattr(ctx, "wsl"):
        ctx.wsl = False
    # home, python path
    if ctx.kind in ("notebook", "k8s"):
        pyv = ctx.era["py"].rsplit(".", 1)[0] if ctx.kind == "k8s" else "3.10"
        ctx.pyroot = pick(rng, [f"/usr/local/lib/python{pyv}/dist-packages", f"/opt/conda/lib/python{pyv}/site-packages"])
        ctx.py = "/usr/bin/python3" if "/usr/local" in ctx.pyroot else "/opt/conda/bin/python"
        ctx.workdir = pick(rng, ["/content", "/kaggle/working"]) if ctx.kind == "notebook" else pick(rng, ["/workspace", "/app", "/workspace/LLaMA-Factory"])
        if ctx.kind == "k8s" and ctx.fw == "llamafactory":
            ctx.workdir = "/workspace/LLaMA-Factory"
    else:
        env = pick(rng, ["ft", "llm", "train", "lf", "axo", "py311", "torch"])
        pyv = ctx.era["py"].rsplit(".", 1)[0]
        style = rng.randrange(4)
        if style == 0:
            ctx.pyroot = f"/home/{ctx.user}/miniconda3/envs/{env}/lib/python{pyv}/site-packages"
            ctx.py = f"/home/{ctx.user}/miniconda3/envs/{env}/bin/python"
        elif style == 1:
            ctx.pyroot = f"/opt/conda/lib/python{pyv}/site-packages"
            ctx.py = "/opt/conda/bin/python"
        elif style == 2:
            ctx.pyroot = f"/usr/local/lib/python{pyv}/dist-packages"
            ctx.py = "/usr/bin/python"
        else:
            ctx.pyroot = f"/home/{ctx.user}/proj/.venv/lib/python{pyv}/site-packages"
            ctx.py = f"/home/{ctx.user}/proj/.venv/bin/python3"
        ctx.workdir = pick(rng, [f"/home/{ctx.user}/proj", f"/home/{ctx.user}/LLaMA-Factory", f"/data/{ctx.user}/sft",
                                 "/workspace", f"/mnt/nvme/{ctx.user}/ft", f"/scratch/{ctx.user}/llm"])
        if ctx.fw == "llamafactory":
            ctx.workdir = pick(rng, [f"/home/{ctx.user}/LLaMA-Factory", "/workspace/LLaMA-Factory", f"/data/{ctx.user}/LLaMA-Factory"])
    ctx.script = {"hf": pick(rng, ["train.py", "finetune.py", "sft_lora.py", "run_clm.py"]),
                  "trl": pick(rng, ["sft.py", "train_sft.py", "dpo.py"]),
                  "llamafactory": "src/train.py" if ctx.E < 2 else "src/llamafactory/launcher.py",
                  "torchtune": "recipes/lora_finetune_distributed.py" if ctx.E < 3 else "recipes/full_finetune_distributed.py",
                  "swift": "swift/cli/sft.py",
                  "axolotl": "-m axolotl.cli.train",
                  "dschat": "main.py",
                  "unsloth": "notebook",
                  }[ctx.fw]
    ctx.model = pick(rng, ["meta-llama/Meta-Llama-3-8B-Instruct", "Qwen/Qwen2.5-7B-Instruct", "mistralai/Mistral-7B-v0.1",
                           "meta-llama/Llama-2-7b-hf", "Qwen/Qwen2-1.5B", "google/gemma-2-9b", "meta-llama/Llama-3.2-3B",
                           "deepseek-ai/deepseek-llm-7b-base", "microsoft/phi-2", "Qwen/Qwen2.5-14B-Instruct",
                           "meta-llama/Llama-3.1-70B", "THUDM/chatglm3-6b"])
    if ctx.E == 0 and ("Llama-3" in ctx.model or "Qwen2" in ctx.model or "gemma-2" in ctx.model):
        ctx.model = pick(rng, ["meta-llama/Llama-2-7b-hf", "mistralai/Mistral-7B-v0.1", "tiiuae/falcon-7b", "EleutherAI/pythia-2.8b"])
    if ctx.kind == "notebook":
        ctx.model = pick(rng, ["Qwen/Qwen2-1.5B", "microsoft/phi-2", "unsloth/llama-3-8b-bnb-4bit", "meta-llama/Llama-3.2-3B", "unsloth/mistral-7b-v0.3-bnb-4bit"] if ctx.E >= 2 else ["microsoft/phi-2", "meta-llama/Llama-2-7b-hf", "EleutherAI/pythia-1.4b"])
    ctx.nshards = {"70B": 30, "14B": 8, "9b": 4, "8B": 4, "7B": 4, "7b": 2, "6b": 7, "3B": 2, "1.5B": 1, "2.8b": 1, "phi-2": 2}
    ns = 4
    for k, v in ctx.nshards.items():
        if k in ctx.model:
            ns = v
            break
    ctx.nshards = ns


def finish_ctx(ctx):
    rng = ctx.rng
    ctx.node_rank = {h: i for i, h in enumerate(ctx.hosts)}
    y = ctx.era["year"]
    start = _dt.datetime(y, rng.randrange(1, 13), rng.randrange(1, 28), rng.randrange(0, 24),
                         rng.randrange(0, 60), rng.randrange(0, 60), rng.randrange(0, 1000000))
    ctx.start = start
    ctx.clock = []
    for i, _ in enumerate(ctx.hosts):
        if i == 0:
            sk = 0.0
        elif ctx.kind in ("cloud", "k8s"):
            sk = rng.uniform(-0.8, 0.8)
        else:
            sk = rng.uniform(-4, 4) if rng.random() < 0.7 else rng.uniform(-95, 95)
        ctx.clock.append(Clock(start, sk))
    ctx.uptime0 = [rng.uniform(3000, 2_500_000) for _ in ctx.hosts]
    # pids & bus ids
    ctx.pid = {}
    ctx.busid = []
    ctx.agent_pid = []
    for h in range(ctx.nhost):
        base = rng.randrange(2000, 3_900_000)
        ctx.agent_pid.append(base - rng.randrange(2, 40))
        cur = base
        for l in range(ctx.gpn):
            ctx.pid[h * ctx.gpn + l] = cur
            cur += pick(rng, [1, 1, 1, 2, 7, 19])
        ctx.busid.append(bus_ids(rng, ctx.gpn, ctx.gpu) if ctx.gpn <= 8 else bus_ids(rng, 8, ctx.gpu))
    ctx.gpu_uuid = {}
    # detailed ranks: all ranks for small jobs, a sample of hosts for big ones
    ctx.detail_hosts = list(range(ctx.nhost))
    if ctx.world > 32:
        keep = [0, ctx.nhost - 1]
        while len(keep) < 4:
            keep.append(rng.randrange(ctx.nhost))
        ctx.detail_hosts = sorted(dict.fromkeys(keep))
    ctx.ips = []
    sub = pick(rng, ["10.0.{}.{}", "192.168.{}.{}", "172.31.{}.{}", "10.10.{}.{}"])
    a = rng.randrange(0, 60)
    for i in range(ctx.nhost):
        ctx.ips.append(sub.format(a + (i + 10) // 250, 10 + (i * 3 + rng.randrange(3)) % 240))
    # unique ips
    seen = []
    for i, ip in enumerate(ctx.ips):
        while ip in seen:
            p = ip.split(".")
            p[3] = str((int(p[3]) + 1) % 250 + 2)
            ip = ".".join(p)
        seen.append(ip)
        ctx.ips[i] = ip
    ctx.cuda_drv = {"535": "12020", "545": "12030", "550": "12040", "570": "12080"}[ctx.era["driver"].split(".")[0]]
    ctx.master_port = pick(rng, [29500, 29500, 29501, 12355, 20001, 6000, 29400, 23456])
    ctx.iface = pick(rng, {"ws": ["eno1", "enp5s0", "enp6s0", "enp68s0", "eno2"], "cloud": ["eth0", "ens5", "ens4", "eth0"],
                           "k8s": ["eth0", "eth0", "ens5"], "cluster": ["ib0", "bond0", "eno1", "ens1f0np0", "enp65s0f0"],
                           "notebook": ["eth0"]}[ctx.kind])
    if ctx.kind == "ws":
        ctx.ips = [f"192.168.{pick(rng, [0, 1, 1, 10, 178])}.{rng.randrange(2, 250)}"]
    ctx.ib = ctx.kind == "cluster" and rng.random() < 0.7
    ctx.init_rank = None
    ctx.init_host = None


def rank_host(ctx, g):
    return g // ctx.gpn


def rank_local(ctx, g):
    return g % ctx.gpn


def detail_ranks(ctx):
    out = []
    for h in ctx.detail_hosts:
        out.extend(range(h * ctx.gpn, (h + 1) * ctx.gpn))
    return out


def make_ctx(rng, idx, layout, cause, seed):
    ctx = Ctx(rng, idx, layout, cause, seed)
    choose_topology(ctx)
    choose_software(ctx)
    choose_names(ctx)
    finish_ctx(ctx)
    ctx.detail_ranks = detail_ranks(ctx)
    return ctx


def busid_str(ctx, h, l):
    """NCCL-style busId (hex without separators, leading zeros dropped)."""
    b = ctx.busid[h][l % len(ctx.busid[h])]
    return f"{b:x}000"


def pci_short(ctx, h, l):
    return f"0000:{ctx.busid[h][l % len(ctx.busid[h])]:02x}:00"


def pci_full(ctx, h, l, upper=False):
    s = f"00000000:{ctx.busid[h][l % len(ctx.busid[h])]:02X}:00.0"
    return s


# ----------------------------------------------------------------------------------------
# text building blocks: tqdm, warnings, tracebacks, torch / NCCL / launcher lines
# ----------------------------------------------------------------------------------------

BLOCKS = " ▏▎▍▌▋▊▉"


def tqdm_bar(n, total, elapsed, width=10, desc="", unit="it", postfix=""):
    frac = n / total if total else 0
    pct = int(frac * 100)
    full = int(frac * width)
    rem = int((frac * width - full) * 8)
    bar = "█" * full
    if full < width:
        bar += (BLOCKS[rem] if rem else " ") + " " * (width - full - 1)
    if n > 0 and elapsed > 0:
        rate = n / elapsed
        eta = (total - n) / rate if rate > 0 else 0
        if unit == "it":
            rs = f"{rate:5.2f}it/s" if rate >= 1 else f"{1 / rate:5.2f}s/it"
        else:
            rs = f"{rate:5.2f} {unit}/s"
        tail = f" {n}/{total} [{fmt_hms(elapsed)}<{fmt_hms(eta)}, {rs}{postfix}]"
    else:
        tail = f" {n}/{total} [00:00<?, ?{unit}/s{postfix}]"
    d = f"{desc}: " if desc else ""
    return f"{d}{pct:3d}%|{bar}|{tail}"


def tqdm_cr(steps, total, t_of, width=10, desc="", unit="it", every=1):
    """One physical line with carriage returns (what `| tee` captures)."""
    parts = []
    for n in steps[::every]:
        parts.append(tqdm_bar(n, total, t_of(n), width, desc, unit))
    return "\r".join(parts)


def warn_line(ctx, mod, line, cat, msg):
    return f"{ctx.pyroot}/{mod}:{line}: {cat}: {msg}\n  warnings.warn("


def noise_warnings(ctx):
    """(text, who) pairs: who='all' printed by every rank, 'r0' by rank 0 only."""
    rng, E, P = ctx.rng, ctx.E, ctx.pyroot
    pool = [
        (warn_line(ctx, "transformers/training_args.py", pick(rng, [1474, 1525, 1545, 1568]), "FutureWarning",
                   "`evaluation_strategy` is deprecated and will be removed in version 4.46 of 🤗 Transformers. Use `eval_strategy` instead"), "all", (1, 2)),
        (f"{P}/torch/utils/checkpoint.py:{pick(rng, [91, 429, 460, 464])}: UserWarning: torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. In version 2.4 we will raise an exception if use_reentrant is not passed. use_reentrant=False is recommended, but if you need to preserve the current default behavior, you can pass use_reentrant=True. Refer to docs for more details on the differences between the two variants.\n  warnings.warn(", "all", (1, 2)),
        ("`use_cache=True` is incompatible with gradient checkpointing. Setting `use_cache=False`.", "all", (1, 2, 3)),
        (f"{P}/torch/_utils.py:831: UserWarning: TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the only storage class. This should only matter to you if you are using storages directly.  To access UntypedStorage directly, use tensor.untyped_storage() instead of tensor.storage()\n  return self.fget.__get__(instance, owner)()", "all", (0, 1)),
        ("huggingface/tokenizers: The current process just got forked, after parallelism has already been used. Disabling parallelism to avoid deadlocks...\nTo disable this warning, you can either:\n\t- Avoid using `tokenizers` before the fork if possible\n\t- Explicitly set the environment variable TOKENIZERS_PARALLELISM=(true | false)", "r0", (0, 1, 2, 3)),
        ("Token indices sequence length is longer than the specified maximum sequence length for this model (5121 > 4096). Running this sequence through the model will result in indexing errors", "r0", (0, 1, 2, 3)),
        (f"{P}/transformers/optimization.py:{pick(rng, [391, 411, 429])}: FutureWarning: This implementation of AdamW is deprecated and will be removed in a future version. Use the PyTorch implementation torch.optim.AdamW instead, or set `no_deprecation_warning=True` to disable this warning\n  warnings.warn(", "all", (0,)),
        (f"{P}/torch/cuda/__init__.py:{pick(rng, [54, 61, 63])}: FutureWarning: The pynvml package is deprecated. Please install nvidia-ml-py instead. If you did not install pynvml directly, please report this to the maintainers of the package that installed pynvml for you.\n  import pynvml  # type: ignore[import]", "all", (2, 3)),
        ("Could not estimate the number of tokens of the input, floating-point operations will not be computed", "r0", (1, 2, 3)),
        (f"{P}/torch/distributed/fsdp/_state_dict_utils.py:{pick(rng, [773, 827])}: UserWarning: When using ``NO_SHARD`` for ``ShardingStrategy``, full_state_dict will be returned.\n  warnings.warn(", "all", (1, 2)),
        (f"{P}/transformers/trainer.py:{pick(rng, [3098, 3147, 3398])}: FutureWarning: `tokenizer` is deprecated and will be removed in version 5.0.0 for `Trainer.__init__`. Use `processing_class` instead.\n  trainer = Trainer(", "all", (2, 3)),
        ("The attention mask and the pad token id were not set. As a consequence, you may observe unexpected behavior. Please pass your input's `attention_mask` to obtain reliable results.\nSetting `pad_token_id` to `eos_token_id`:2 for open-end generation.", "r0", (0, 1, 2)),
        (f"{P}/torch/nn/modules/module.py:{pick(rng, [1877, 1898])}: UserWarning: Positional args are being deprecated, use kwargs instead. Refer to https://pytorch.org/docs/master/generated/torch.nn.Module.html#torch.nn.Module.state_dict for details.\n  warnings.warn(", "all", (0, 1)),
        (f"{P}/accelerate/accelerator.py:{pick(rng, [432, 449, 494])}: FutureWarning: `torch.cuda.amp.GradScaler(args...)` is deprecated. Please use `torch.amp.GradScaler('cuda', args...)` instead.\n  self.scaler = torch.cuda.amp.GradScaler(**kwargs)", "all", (2,)),
        (f"{P}/torch/utils/data/dataloader.py:{pick(rng, [557, 617, 624])}: UserWarning: This DataLoader will create 16 worker processes in total. Our suggested max number of worker in current system is 12, which is smaller than what this DataLoader is going to create. Please be aware that excessive worker creation might get DataLoader running slow or even freeze, lower the worker number to avoid potential slowness/freeze if necessary.\n  warnings.warn(_create_warning_msg(", "all", (0, 1, 2, 3)),
        ("You are using the default legacy behaviour of the <class 'transformers.models.llama.tokenization_llama.LlamaTokenizer'>. This is expected, and simply means that the `legacy` (previous) behavior will be used so nothing changes for you. If you want to use the new behaviour, set `legacy=False`. This should only be set if you understand what it means, and thoroughly read the reason why this was added as explained in https://github.com/huggingface/transformers/pull/24565", "all", (0, 1)),
        ("Special tokens have been added in the vocabulary, make sure the associated word embeddings are fine-tuned or trained.", "all", (0, 1, 2, 3)),
        (f"{P}/torch/autograd/graph.py:{pick(rng, [744, 768, 825])}: UserWarning: c10d::broadcast_: an autograd kernel was not registered to the Autograd key(s) but we are trying to backprop through it. This may lead to silently incorrect behavior. This behavior is deprecated and will be removed in a future version of PyTorch. If your operator is differentiable, please ensure you have registered an autograd kernel to the correct Autograd key (e.g. DispatchKey::Autograd, DispatchKey::CompositeImplicitAutograd). If your operator is not differentiable, or to squash this warning and use the previous behavior, please register torch::CppFunction::makeFallthrough() to DispatchKey::Autograd. (Triggered internally at ../torch/csrc/autograd/autograd_not_implemented_fallback.cpp:63.)\n  return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass", "all", (1, 2, 3)),
        (f"[W socket.cpp:{pick(rng, [436, 464, 663])}] [c10d] The server socket cannot be initialized on [::]:{ctx.master_port} (errno: 97 - Address family not supported by protocol).", "r0", (0, 1)),
        (f"[W Utils.hpp:{pick(rng, [133, 135])}] Warning: Environment variable NCCL_ASYNC_ERROR_HANDLING is deprecated; use TORCH_NCCL_ASYNC_ERROR_HANDLING instead (function getCvarInt)", "all", (1, 2)),
    ]
    out = [(txt, who) for txt, who, eras in pool if E in eras]
    rng.shuffle(out)
    return out[:rng.randrange(3, 8)]


def caret(ctx, code, start=None):
    """Python >= 3.11 prints ^^^^ under the failing expression (sometimes)."""
    if ctx.era["py"] < "3.11" or ctx.rng.random() < 0.5:
        return ""
    n = max(3, len(code) - (start or 0))
    return "\n    " + " " * (start or 0) + "^" * n


def tb_frames(ctx, frames):
    out = []
    for path, line, fn, code in frames:
        out.append(f'  File "{path}", line {line}, in {fn}')
        out.append(f"    {code}" + caret(ctx, code))
    return "\n".join(out)


def entry_frames(ctx):
    P, W, rng = ctx.pyroot, ctx.workdir, ctx.rng
    fw = ctx.fw
    if fw == "llamafactory":
        return [(f"{W}/src/train.py", 28 if ctx.E < 3 else 33, "<module>", "main()"),
                (f"{W}/src/train.py", 19 if ctx.E < 3 else 24, "main", "run_exp()"),
                (f"{W}/src/llamafactory/train/tuner.py", pick(rng, [50, 93, 110]), "run_exp" if ctx.E < 3 else "_training_function",
                 "run_sft(model_args, data_args, training_args, finetuning_args, generating_args, callbacks)"),
                (f"{W}/src/llamafactory/train/sft/workflow.py", pick(rng, [96, 101, 127]), "run_sft",
                 "train_result = trainer.train(resume_from_checkpoint=training_args.resume_from_checkpoint)")]
    if fw == "axolotl":
        return [(f"{P}/axolotl/cli/train.py", pick(rng, [72, 38]), "<module>", "fire.Fire(do_cli)"),
                (f"{P}/axolotl/cli/train.py", pick(rng, [39, 60]), "do_cli", "return do_train(parsed_cfg, parsed_cli_args)"),
                (f"{P}/axolotl/train.py", pick(rng, [169, 190, 206]), "train", "trainer.train(resume_from_checkpoint=resume_from_checkpoint)")]
    if fw == "trl":
        return [(f"{W}/{ctx.script}", pick(rng, [118, 151, 187]), "<module>", "trainer.train()")]
    if fw == "swift":
        return [(f"{P}/swift/cli/sft.py", 5, "<module>", "sft_main()"),
                (f"{P}/swift/llm/train/sft.py", pick(rng, [255, 283]), "sft_main", "return SwiftSft(args).main()"),
                (f"{P}/swift/llm/base.py", 47, "main", "result = self.run()"),
                (f"{P}/swift/llm/train/sft.py", pick(rng, [140, 164]), "run", "return self.train(trainer)"),
                (f"{P}/swift/llm/train/sft.py", pick(rng, [196, 211]), "train", "trainer.train(trainer.args.resume_from_checkpoint)"),
                (f"{P}/swift/trainers/mixin.py", pick(rng, [261, 412]), "train", "res = super().train(*args, **kwargs)")]
    if fw == "dschat":
        return [(f"{W}/main.py", pick(rng, [392, 398]), "<module>", "main()"),
                (f"{W}/main.py", pick(rng, [358, 365]), "main", "model.backward(loss)")]
    if fw == "torchtune":
        return None
    return [(f"{W}/{ctx.script}", pick(rng, [212, 240, 318, 96]), "<module>", "main()"),
            (f"{W}/{ctx.script}", pick(rng, [198, 205, 301, 88]), "main", "trainer.train()")]


def trainer_frames(ctx, where):
    """Frames from Trainer.train down to `where` in ('forward', 'backward', 'data', 'step', 'save', 'eval')."""
    P, rng, E = ctx.pyroot, ctx.rng, ctx.E
    tl = {0: (1539, 1809), 1: (1859, 2203), 2: (2123, 2481), 3: (2206, 2548)}[E]
    fr = [(f"{P}/transformers/trainer.py", tl[0], "train", "return inner_training_loop(")]
    if where == "data":
        fr.append((f"{P}/transformers/trainer.py", tl[1] - 40, "_inner_training_loop",
                   "for step, inputs in enumerate(epoch_iterator):" if E < 2 else "batch_samples, num_items_in_batch = self.get_batch_samples(epoch_iterator, num_batches)"))
        if E >= 2:
            fr.append((f"{P}/transformers/trainer.py", tl[1] + 2660 if E == 2 else tl[1] + 2800, "get_batch_samples", "batch_samples += [next(epoch_iterator)]"))
        fr.append((f"{P}/accelerate/data_loader.py", pick(rng, [454, 550, 567]), "__iter__", "current_batch = next(dataloader_iter)"))
        fr.append((f"{P}/torch/utils/data/dataloader.py", pick(rng, [630, 631, 701, 708]), "__next__", "data = self._next_data()"))
        fr.append((f"{P}/torch/utils/data/dataloader.py", pick(rng, [1328, 1344, 1448, 1465]), "_next_data", "idx, data = self._get_data()"))
        return fr
    if where == "save":
        fr.append((f"{P}/transformers/trainer.py", tl[1] + 600, "_inner_training_loop",
                   "self._maybe_log_save_evaluate(tr_loss, grad_norm, model, trial, epoch, ignore_keys_for_eval)"))
        fr.append((f"{P}/transformers/trainer.py", tl[1] + 960, "_maybe_log_save_evaluate", "self._save_checkpoint(model, trial)"))
        fr.append((f"{P}/transformers/trainer.py", tl[1] + 1010, "_save_checkpoint", "self.save_model(output_dir, _internal_call=True)"))
        return fr
    if where == "eval":
        fr.append((f"{P}/transformers/trainer.py", tl[1] + 600, "_inner_training_loop",
                   "self._maybe_log_save_evaluate(tr_loss, grad_norm, model, trial, epoch, ignore_keys_for_eval)"))
        fr.append((f"{P}/transformers/trainer.py", tl[1] + 930, "_maybe_log_save_evaluate", "metrics = self._evaluate(trial, ignore_keys_for_eval)"))
        fr.append((f"{P}/transformers/trainer.py", tl[1] + 3700, "evaluation_loop", "logits = self.accelerator.gather_for_metrics((logits))"))
        return fr
    fr.append((f"{P}/transformers/trainer.py", tl[1], "_inner_training_loop",
               "tr_loss_step = self.training_step(model, inputs)" if E < 2 else "tr_loss_step = self.training_step(model, inputs, num_items_in_batch)"))
    ts = tl[1] + pick(rng, [1100, 1131, 1150])
    if where == "backward":
        if ctx.ds:
            fr.append((f"{P}/transformers/trainer.py", ts, "training_step", "self.accelerator.backward(loss, **kwargs)"))
            fr.append((f"{P}/accelerate/accelerator.py", pick(rng, [1995, 2117, 2233]), "backward", "self.deepspeed_engine_wrapped.backward(loss, **kwargs)"))
            fr.append((f"{P}/accelerate/utils/deepspeed.py", pick(rng, [166, 175]), "backward", "self.engine.backward(loss, **kwargs)"))
            fr.append((f"{P}/deepspeed/runtime/engine.py", pick(rng, [1976, 2020, 2213]), "backward", "self.optimizer.backward(loss, retain_graph=retain_graph)"))
        else:
            fr.append((f"{P}/transformers/trainer.py", ts, "training_step", "self.accelerator.backward(loss)" if E < 2 else "self.accelerator.backward(loss, **kwargs)"))
            fr.append((f"{P}/accelerate/accelerator.py", pick(rng, [1905, 2013, 2151, 2241]), "backward", "loss.backward(**kwargs)"))
        fr.append((f"{P}/torch/_tensor.py", pick(rng, [487, 522, 581, 626]), "backward", "torch.autograd.backward("))
        fr.append((f"{P}/torch/autograd/__init__.py", pick(rng, [200, 266, 289, 347]), "backward",
                   "Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass" if E < 2 else "_engine_run_backward("))
        if E >= 2:
            fr.append((f"{P}/torch/autograd/graph.py", pick(rng, [768, 825, 823]), "_engine_run_backward",
                       "return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass"))
        return fr
    if where == "step":
        fr.append((f"{P}/transformers/trainer.py", tl[1] + 120, "_inner_training_loop", "self.optimizer.step()"))
        fr.append((f"{P}/accelerate/optimizer.py", pick(rng, [145, 159, 171]), "step", "self.optimizer.step(closure)"))
        return fr
    # forward
    fr.append((f"{P}/transformers/trainer.py", ts - 30, "training_step", "loss = self.compute_loss(model, inputs)" if E < 2 else "loss = self.compute_loss(model, inputs, num_items_in_batch=num_items_in_batch)"))
    fr.append((f"{P}/transformers/trainer.py", ts + 60, "compute_loss", "outputs = model(**inputs)"))
    fr.append((f"{P}/torch/nn/modules/module.py", pick(rng, [1511, 1532, 1553, 1736, 1751]), "_wrapped_call_impl", "return self._call_impl(*args, **kwargs)"))
    fr.append((f"{P}/torch/nn/modules/module.py", pick(rng, [1520, 1541, 1562, 1747, 1762]), "_call_impl", "return forward_call(*args, **kwargs)"))
    if ctx.ds:
        fr.append((f"{P}/deepspeed/utils/nvtx.py", 15 if E < 2 else 18, "wrapped_fn", "ret_val = func(*args, **kwargs)"))
        fr.append((f"{P}/deepspeed/runtime/engine.py", pick(rng, [1846, 1899, 1914]), "forward", "loss = self.module(*inputs, **kwargs)"))
    else:
        fr.append((f"{P}/torch/nn/parallel/distributed.py", pick(rng, [1519, 1593, 1643]), "forward", "else self._run_ddp_forward(*inputs, **kwargs)"))
        fr.append((f"{P}/torch/nn/parallel/distributed.py", pick(rng, [1355, 1411, 1459]), "_run_ddp_forward", "return self.module(*inputs, **kwargs)  # type: ignore[index]"))
    return fr


def model_forward_frames(ctx, leaf):
    P, rng = ctx.pyroot, ctx.rng
    arch = "llama"
    m = ctx.model.lower()
    for a in ("qwen2", "mistral", "gemma2", "phi", "chatglm", "falcon", "gpt_neox"):
        if a.split("2")[0] in m:
            arch = a
            break
    cls = {"llama": "Llama", "qwen2": "Qwen2", "mistral": "Mistral", "gemma2": "Gemma2", "phi": "Phi", "chatglm": "ChatGLM", "falcon": "Falcon", "gpt_neox": "GPTNeoX"}[arch]
    f = f"{P}/transformers/models/{arch}/modeling_{arch}.py"
    fr = []
    if rng.random() < 0.5:
        fr.append((f"{P}/peft/peft_model.py", pick(rng, [1129, 1577, 1719]), "forward", "return self.base_model("))
        fr.append((f"{P}/peft/tuners/tuners_utils.py", pick(rng, [161, 188, 197]), "forward", "return self.model.forward(*args, **kwargs)"))
    fr.append((f, pick(rng, [1164, 1189, 816, 1208]), "forward", "outputs = self.model("))
    fr.append((f"{P}/torch/nn/modules/module.py", 1736, "_wrapped_call_impl", "return self._call_impl(*args, **kwargs)"))
    fr.append((f"{P}/torch/nn/modules/module.py", 1747, "_call_impl", "return forward_call(*args, **kwargs)"))
    if leaf == "embed":
        fr.append((f, pick(rng, [945, 901, 550]), "forward", "inputs_embeds = self.embed_tokens(input_ids)"))
        fr.append((f"{P}/torch/nn/modules/sparse.py", pick(rng, [163, 190]), "forward", "return F.embedding("))
        fr.append((f"{P}/torch/nn/functional.py", pick(rng, [2233, 2264, 2551]), "embedding", "return torch.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)"))
    elif leaf == "attn":
        fr.append((f, pick(rng, [985, 1001, 579]), "forward", "layer_outputs = decoder_layer("))
        fr.append((f, pick(rng, [731, 745, 300]), "forward", "hidden_states, self_attn_weights, present_key_value = self.self_attn("))
        fr.append((f, pick(rng, [491, 567, 257]), "forward", "attn_output = _flash_attention_forward("))
        fr.append((f"{P}/transformers/modeling_flash_attention_utils.py", pick(rng, [296, 311]), "_flash_attention_forward", "attn_output = flash_attn_varlen_func("))
        fr.append((f"{P}/flash_attn/flash_attn_interface.py", pick(rng, [1124, 1178, 1448]), "flash_attn_varlen_func", "return FlashAttnVarlenFunc.apply("))
    elif leaf == "lmhead":
        fr.append((f, pick(rng, [1195, 1220, 830]), "forward", "logits = logits.float()"))
    else:  # mlp
        fr.append((f, pick(rng, [985, 1001, 579]), "forward", "layer_outputs = decoder_layer("))
        fr.append((f, pick(rng, [744, 761, 319]), "forward", "hidden_states = self.mlp(hidden_states)"))
        fr.append((f, pick(rng, [177, 206, 58]), "forward", "down_proj = self.down_proj(self.act_fn(self.gate_proj(x)) * self.up_proj(x))"))
    return fr


def torchtune_frames(ctx, where):
    P, W, rng = ctx.pyroot, ctx.workdir, ctx.rng
    rp = f"{P}/recipes/{'lora_finetune_distributed' if 'lora' in ctx.script else 'full_finetune_distributed'}.py"
    fr = [(rp, pick(rng, [911, 938, 984]), "<module>", "sys.exit(recipe_main())"),
          (f"{P}/torchtune/config/_parse.py", 99, "wrapper", "sys.exit(recipe_main(conf))"),
          (rp, pick(rng, [906, 930]), "recipe_main", "recipe.train()"),
          ]
    if where == "data":
        fr.append((rp, pick(rng, [680, 721]), "train", "for idx, batch in enumerate(self._dataloader):"))
        fr.append((f"{P}/torch/utils/data/dataloader.py", 701, "__next__", "data = self._next_data()"))
        fr.append((f"{P}/torch/utils/data/dataloader.py", 1448, "_next_data", "idx, data = self._get_data()"))
    elif where == "backward":
        fr.append((rp, pick(rng, [755, 790]), "train", "current_loss.backward()"))
        fr.append((f"{P}/torch/_tensor.py", 626, "backward", "torch.autograd.backward("))
        fr.append((f"{P}/torch/autograd/__init__.py", 347, "backward", "_engine_run_backward("))
        fr.append((f"{P}/torch/autograd/graph.py", 823, "_engine_run_backward",
                   "return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass"))
    else:
        fr.append((rp, pick(rng, [733, 760]), "train", "logits = self._model(**batch)"))
        fr.append((f"{P}/torch/nn/modules/module.py", 1751, "_wrapped_call_impl", "return self._call_impl(*args, **kwargs)"))
        fr.append((f"{P}/torch/nn/modules/module.py", 1762, "_call_impl", "return forward_call(*args, **kwargs)"))
        fr.append((f"{P}/torchtune/modules/transformer.py", pick(rng, [648, 661]), "forward", "h = layer("))
    return fr


def build_tb(ctx, where, leaf=None, extra=None):
    """Full 'Traceback (most recent call last):' text down to the failing call."""
    if ctx.fw == "torchtune":
        fr = torchtune_frames(ctx, where)
    else:
        fr = (entry_frames(ctx) or []) + trainer_frames(ctx, where)
        if where == "forward":
            fr += model_forward_frames(ctx, leaf or "mlp")
    if extra:
        fr += extra
    return "Traceback (most recent call last):\n" + tb_frames(ctx, fr)


def gib(x):
    if x < 1:
        return f"{x * 1024:.2f} MiB"
    return f"{x:.2f} GiB"


def oom_message(ctx, dev, tried, total, free, inuse, alloc, reserved):
    E = ctx.E
    if E == 0:
        return ("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate "
                f"{gib(tried)} (GPU {dev}; {gib(total)} total capacity; {gib(alloc)} already allocated; "
                f"{gib(free)} free; {gib(alloc + reserved)} reserved in total by PyTorch) If reserved memory is >> allocated "
                "memory try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF")
    cls = "torch.cuda.OutOfMemoryError" if E == 1 else "torch.OutOfMemoryError"
    return (f"{cls}: CUDA out of memory. Tried to allocate {gib(tried)}. GPU {dev} has a total capacity of {gib(total)} "
            f"of which {gib(free)} is free. Including non-PyTorch memory, this process has {gib(inuse)} memory in use. "
            f"Of the allocated memory {gib(alloc)} is allocated by PyTorch, and {gib(reserved)} is reserved by PyTorch but "
            "unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True "
            "to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)")


def cuda_err_cls(ctx):
    return "torch.AcceleratorError" if ctx.E >= 3 and ctx.rng.random() < 0.5 else "RuntimeError"


def cuda_error(ctx, what, search=None):
    txt = (f"{cuda_err_cls(ctx)}: CUDA error: {what}\n"
           "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\n"
           "For debugging consider passing CUDA_LAUNCH_BLOCKING=1")
    if ctx.E >= 1:
        txt += "\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side assertions."
    return txt


def glog(ctx, g, t, lvl, src, line, msg):
    """c10 log line as printed by ranks (era dependent prefix)."""
    E = ctx.E
    if E == 0:
        return f"[{lvl} {src}:{line}] {msg}"
    if E == 1:
        return f"[rank{g}]:[{lvl} {src}:{line}] {msg}"
    d = ctx.clock[rank_host(ctx, g)].at(t)
    return f"[rank{g}]:[{lvl}{ts_glog(d, nanos=True)} {src}:{line}] {msg}"


def pg_prefix(ctx, g):
    if ctx.E <= 1:
        return f"[PG 0 Rank {g}]" if ctx.E == 1 else f"[Rank {g}]"
    return f"[PG ID 0 PG GUID 0(default_pg) Rank {g}]"


def cxx_frames(ctx, what):
    rng = ctx.rng
    lib = f"{ctx.pyroot}/torch/lib"
    b = 0x7f0000000000 + rng.randrange(0x100000000, 0xfff00000000)
    fr = [f"frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x{pick(rng, ['57', '96', '98'])} (0x{b + 0x96:x} in {lib}/libc10.so)"]
    if what == "timeout":
        fr.append(f"frame #1: c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >) + 0x{pick(rng, ['1d2', '282', '23d'])} (0x{b + 0x1a2d6a0:x} in {lib}/libtorch_cuda.so)")
        fr.append(f"frame #2: c10d::ProcessGroupNCCL::watchdogHandler() + 0x{pick(rng, ['233', '1a0', '6fc'])} (0x{b + 0x1a2d7bb:x} in {lib}/libtorch_cuda.so)")
    else:
        fr.append(f"frame #1: c10d::ProcessGroupNCCL::WorkNCCL::checkAndSetException() + 0x{pick(rng, ['8b', '6d'])} (0x{b + 0x1a2c1f0:x} in {lib}/libtorch_cuda.so)")
        fr.append(f"frame #2: c10d::ProcessGroupNCCL::watchdogHandler() + 0x{pick(rng, ['233', '1a0', '6fc'])} (0x{b + 0x1a2d7bb:x} in {lib}/libtorch_cuda.so)")
    fr.append(f"frame #3: c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x{pick(rng, ['10c', '14d'])} (0x{b + 0x1a2e61d:x} in {lib}/libtorch_cuda.so)")
    fr.append(f"frame #4: <unknown function> + 0x{pick(rng, ['dc253', 'e6c20', '145c0'])} (0x{b + 0x5c253:x} in /lib/x86_64-linux-gnu/libstdc++.so.6)")
    fr.append(f"frame #5: <unknown function> + 0x{pick(rng, ['94ac3', '8609', '94b43'])} (0x{b + 0x7094ac3:x} in /lib/x86_64-linux-gnu/libc.so.6)")
    fr.append(f"frame #6: clone + 0x44 (0x{b + 0x7125a04:x} in /lib/x86_64-linux-gnu/libc.so.6)")
    return "\n".join(fr)


def watchdog_timeout(st, g, t, seq, op, numel, last_done=None, tags=()):
    """The PyTorch watchdog abort sequence on one rank (collateral on waiting ranks)."""
    ctx = st.ctx
    E = ctx.E
    to = ctx.timeout_ms
    ran = to + ctx.rng.randrange(5, 900)
    tg = tuple(tags) + (f"W{g}",)
    if last_done is None:
        last_done = seq - 1
    if E == 0:
        work = f"WorkNCCL(SeqNum={seq}, OpType={op}, Timeout(ms)={to})"
    else:
        work = f"WorkNCCL(SeqNum={seq}, OpType={op}, NumelIn={numel}, NumelOut={numel if op != 'ALLGATHER' and op != '_ALLGATHER_BASE' else numel * ctx.world}, Timeout(ms)={to})"
    msg = f"[Rank {g}] Watchdog caught collective operation timeout: {work} ran for {ran} milliseconds before timing out."
    line = {0: 828, 1: 523, 2: 616, 3: 632}[E]
    st.r(g, t, glog(ctx, g, t, "E", "ProcessGroupNCCL.cpp", line, msg), tg)
    if E == 1:
        st.r(g, t + 0.001, glog(ctx, g, t, "E", "ProcessGroupNCCL.cpp", 1537, f"[Rank {g}] Timeout at NCCL work: {seq}, last enqueued NCCL work: {seq}, last completed NCCL work: {last_done}."), tg)
    elif E == 2:
        st.r(g, t + 0.001, glog(ctx, g, t, "E", "ProcessGroupNCCL.cpp", 1785, f"{pg_prefix(ctx, g)} Exception (either an error or timeout) detected by watchdog at work: {seq}, last enqueued NCCL work: {seq}, last completed NCCL work: {last_done}."), tg)
        st.r(g, t + 0.002, glog(ctx, g, t, "E", "ProcessGroupNCCL.cpp", 1834, f"{pg_prefix(ctx, g)} Timeout at NCCL work: {seq}, last enqueued NCCL work: {seq}, last completed NCCL work: {last_done}."), tg)
        st.r(g, t + 0.003, glog(ctx, g, t, "E", "ProcessGroupNCCL.cpp", 1593, "Stack trace of the failed collective not found, potentially because FlightRecorder is disabled. You can enable it by setting TORCH_NCCL_TRACE_BUFFER_SIZE to a non-zero value."), tg)
    elif E == 3:
        st.r(g, t + 0.001, glog(ctx, g, t, "E", "ProcessGroupNCCL.cpp", 2268, f"{pg_prefix(ctx, g)}  failure detected by watchdog at work sequence id: {seq} PG status: last enqueued work: {seq}, last completed work: {last_done}"), tg)
        fn = {"ALLREDUCE": "all_reduce", "_ALLGATHER_BASE": "_all_gather_base", "ALLGATHER": "all_gather", "BROADCAST": "broadcast", "_REDUCE_SCATTER_BASE": "_reduce_scatter_base"}.get(op, "all_reduce")
        st.r(g, t + 0.002, glog(ctx, g, t, "E", "ProcessGroupNCCL.cpp", 670, f"Stack trace of the failed collective: \n#0 {fn} from ??:0\n#1 wrapper from ??:0\n#2 backward from ??:0"), tg)
    pre = f"[Rank {g}] " if E >= 2 else ""
    st.r(g, t + 0.004, glog(ctx, g, t, "E", "ProcessGroupNCCL.cpp", {0: 455, 1: 537, 2: 630, 3: 684}[E], f"{pre}Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data."), tg)
    st.r(g, t + 0.005, glog(ctx, g, t, "E", "ProcessGroupNCCL.cpp", {0: 460, 1: 543, 2: 636, 3: 690}[E], f"{pre}To avoid data inconsistency, we are taking the entire process down."), tg)
    if E == 0:
        term = f"terminate called after throwing an instance of 'std::runtime_error'\n  what():  {msg}"
        st.r(g, t + 0.006, term, tg)
    else:
        wd = "NCCL watchdog thread terminated with exception" if E == 1 else "Process group watchdog thread terminated with exception"
        st.r(g, t + 0.006, glog(ctx, g, t, "E", "ProcessGroupNCCL.cpp", {1: 1182, 2: 1595, 3: 2102}[E], f"{pg_prefix(ctx, g)} {wd}: {msg}"), tg)
        chk = {1: 525, 2: 618, 3: 634}[E]
        st.r(g, t + 0.007, f"Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:{chk} (most recent call first):\n" + cxx_frames(ctx, "timeout"), tg)
        st.r(g, t + 0.008, f"terminate called after throwing an instance of 'c10::DistBackendError'\n  what():  {pg_prefix(ctx, g)} {wd}: {msg}", tg)
        st.r(g, t + 0.009, f"Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:{chk} (most recent call first):\n" + cxx_frames(ctx, "timeout").split("\n", 1)[0] + "\n...", tg)
    return t + 0.01


def nccl_async_error(st, g, t, detail_lines, tags=()):
    """Watchdog terminated by an asynchronous NCCL error (remote peer gone / network)."""
    ctx = st.ctx
    E = ctx.E
    nv = ctx.era["nccl"]
    tg = tuple(tags) + (f"W{g}",)
    body = f"NCCL error: remote process exited or there was a network error, NCCL version {nv}\nncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.\nLast error:\n{detail_lines}"
    if E == 0:
        body = f"NCCL error: unhandled system error, NCCL version {nv}\nncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. It can be also caused by unexpected exit of a remote peer, you can check NCCL warnings for failure information.\nLast error:\n{detail_lines}"
    wd = "NCCL watchdog thread terminated with exception" if E <= 1 else "Process group watchdog thread terminated with exception"
    st.r(g, t, glog(ctx, g, t, "E", "ProcessGroupNCCL.cpp", {0: 1205, 1: 1316, 2: 1595, 3: 2102}[E], f"{pg_prefix(ctx, g)} {wd}: {body}"), tg)
    st.r(g, t + 0.001, "Exception raised from checkForNCCLErrorsInternal at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:{} (most recent call first):\n".format({0: 1436, 1: 1723, 2: 2027, 3: 2180}[E]) + cxx_frames(ctx, "err"), tg)
    cls = "std::runtime_error" if E == 0 else "c10::DistBackendError"
    st.r(g, t + 0.002, f"terminate called after throwing an instance of '{cls}'\n  what():  {pg_prefix(ctx, g)} {wd}: {body.splitlines()[0]}", tg)


def nccl_prefix(ctx, g, tid=None):
    h = rank_host(ctx, g)
    pid = ctx.pid[g]
    return f"{ctx.hosts[h].split('.')[0]}:{pid}:{tid if tid else pid} [{rank_local(ctx, g)}]"


def nccl_warn(ctx, g, t, file_line, msg):
    """NCCL WARN line (timestamp prefix on NCCL >= 2.26)."""
    pre = ""
    if ctx.era["nccl"] >= "2.26":
        d = ctx.clock[rank_host(ctx, g)].at(t)
        pre = "[" + d.strftime("%Y-%m-%d %H:%M:%S") + "] "
    tid = ctx.pid[g] + 150 + rank_local(ctx, g) * 3
    if ctx.era["nccl"] >= "2.26":
        return f"\n{pre}{nccl_prefix(ctx, g, tid)} {file_line} NCCL WARN {msg}"
    return f"\n{nccl_prefix(ctx, g, tid)} {file_line} NCCL WARN {msg}"


def emit_nccl_init(st, t):
    """NCCL_DEBUG=INFO init lines for every detailed rank; tags B<g> bind rank to busId."""
    ctx = st.ctx
    rng = ctx.rng
    nv, cu = ctx.era["nccl"], ctx.era["cuda"].replace(".", "")
    for g in ctx.detail_ranks:
        h, l = rank_host(ctx, g), rank_local(ctx, g)
        tt = t + rng.random() * 2
        p = nccl_prefix(ctx, g)
        tid = ctx.pid[g] + 100 + l
        pt = nccl_prefix(ctx, g, tid)
        ifc, ip = ctx.iface, ctx.ips[h]
        lines = [f"{p} NCCL INFO Bootstrap : Using {ifc}:{ip}<0>"]
        st.r(g, tt - 0.01, lines.pop(), ("nccl", f"IP{h}"), err=False)
        if ctx.E >= 2:
            lines.append(f"{p} NCCL INFO cudaDriverVersion {ctx.cuda_drv}")
        if ctx.E <= 2:
            lines.append(f"{p} NCCL INFO NET/Plugin : dlerror=libnccl-net.so: cannot open shared object file: No such file or directory No plugin found (libnccl-net.so), using internal implementation")
        else:
            lines.append(f"{p} NCCL INFO NET/Plugin: Could not find: libnccl-net.so. Using internal net plugin.")
        if g == 0:
            lines.append(f"NCCL version {nv}+cuda{ctx.era['cuda']}")
        if ctx.p2p_disabled:
            lines.append(f"{pt} NCCL INFO NCCL_P2P_DISABLE set by environment to 1")
            lines.append(f"{pt} NCCL INFO NCCL_IB_DISABLE set by environment to 1.")
        if ctx.ib and ctx.nhost > 1:
            lines.append(f"{pt} NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [2]mlx5_2:1/IB [3]mlx5_3:1/IB ; OOB {ifc}:{ip}<0>")
            lines.append(f"{pt} NCCL INFO Using network IB")
        else:
            lines.append(f"{pt} NCCL INFO Failed to open libibverbs.so[.1]")
            lines.append(f"{pt} NCCL INFO NET/Socket : Using [0]{ifc}:{ip}<0>")
            lines.append(f"{pt} NCCL INFO Using network Socket")
        comm = f"0x{hexs(rng, 12)}"
        cid = f"0x{hexs(rng, 16)}"
        st.r(g, tt, "\n".join(lines), ("nccl",), err=False)
        init = "ncclCommInitRank" if ctx.E < 3 else "ncclCommInitRankConfig"
        st.r(g, tt + 0.3, f"{pt} NCCL INFO {init} comm {comm} rank {g} nranks {ctx.world} cudaDev {l} nvmlDev {l} busId {busid_str(ctx, h, l)} commId {cid} - Init START", ("nccl", f"B{g}"), err=False)
        more = []
        if l == 0 or rng.random() < 0.3:
            more.append(f"{pt} NCCL INFO Setting affinity for GPU {l} to {pick(rng, ['ffff,ffffffff', 'ff00ff', '0fffffff,ffffffff', 'ffffffff'])}")
        nxt = (g + 1) % ctx.world
        if ctx.nhost == 1 or rank_host(ctx, nxt) == h:
            via = "SHM/direct/direct" if (ctx.p2p_disabled or GPUS[ctx.gpu][4] is None and ctx.gpu in ("4090", "5090")) else pick(rng, ["P2P/IPC/read", "P2P/IPC", "P2P/CUMEM/read", "P2P/direct pointer"])
            if ctx.era["nccl"] < "2.19" and via.startswith("P2P/CUMEM"):
                via = "P2P/IPC/read"
            ctx.p2p_via = via
        else:
            via = "NET/IB/0/GDRDMA" if ctx.ib else "NET/Socket/0"
        for ch in range(2):
            more.append(f"{pt} NCCL INFO Channel {ch:02d}/0 : {g}[{l}] -> {nxt}[{rank_local(ctx, nxt)}] via {via}")
        more.append(f"{pt} NCCL INFO Connected all rings")
        more.append(f"{pt} NCCL INFO Connected all trees")
        more.append(f"{pt} NCCL INFO {init} comm {comm} rank {g} nranks {ctx.world} cudaDev {l} nvmlDev {l} busId {busid_str(ctx, h, l)} commId {cid} - Init COMPLETE")
        st.r(g, tt + 1.1 + rng.random(), "\n".join(more), ("nccl", f"B{g}"), err=False)


# ---- launcher (agent) lines ------------------------------------------------------------

def agent_log(ctx, h, t, lvl, where, msg):
    """torch.distributed.elastic logger line, era dependent."""
    E = ctx.E
    d = ctx.clock[h].at(t)
    mod = {"api": "torch.distributed.elastic.multiprocessing.api", "run": "torch.distributed.run"}[where]
    path = {"api": "torch/distributed/elastic/multiprocessing/api.py", "run": "torch/distributed/run.py"}[where]
    lno = {"api": {"W": 897, "E": 869, "I": 908}, "run": {"W": 793, "E": 793, "I": 793}}[where][lvl]
    if E == 0:
        return f"{ {'W': 'WARNING', 'E': 'ERROR', 'I': 'INFO'}[lvl]}:{mod}:{msg}"
    if E == 1:
        return f"[{ts_iso(d)}] {mod}: [{ {'W': 'WARNING', 'E': 'ERROR', 'I': 'INFO'}[lvl]}] {msg}"
    if E == 3:
        path = "site-packages/" + path
    return f"{lvl}{d.strftime('%m%d %H:%M:%S')}.{d.microsecond:06d} {ctx.agent_pid[h]} {path}:{lno}] {msg}"


def torchrun_banner(ctx, h, t):
    E = ctx.E
    msg = ("Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being "
           "overloaded, please further tune the variable for optimal performance in your application as needed. ")
    if E == 0:
        return "WARNING:torch.distributed.run:\n*****************************************\n" + msg + "\n*****************************************"
    return "\n".join(agent_log(ctx, h, t, "W", "run", m) for m in ["", "*****************************************", msg, "*****************************************"])


def child_failed_block(ctx, h, t, failures, script):
    """torchrun ChildFailedError summary. failures: list of (g, exitcode) in observed order."""
    d = ctx.clock[h].at(t)
    lines = ["torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
             "============================================================",
             f"{script} FAILED",
             "------------------------------------------------------------",
             "Failures:"]
    root = failures[0]
    others = failures[1:]
    host_disp = ctx.hosts[h] if ctx.kind not in ("ws",) or ctx.rng.random() < 0.7 else "localhost"
    if ctx.kind == "notebook":
        host_disp = "localhost"

    def block(i, g, code):
        sig = {-6: "SIGABRT", -9: "SIGKILL", -15: "SIGTERM", -11: "SIGSEGV", -7: "SIGBUS"}.get(code)
        pid = ctx.pid[g]
        b = [f"[{i}]:",
             f"  time      : {ts_torchrun(d)}",
             f"  host      : {host_disp}",
             f"  rank      : {g} (local_rank: {rank_local(ctx, g)})",
             f"  exitcode  : {code} (pid: {pid})",
             "  error_file: <N/A>"]
        if sig:
            b.append(f"  traceback : Signal {-code} ({sig}) received by PID {pid}")
        else:
            b.append("  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html")
        return b
    if not others:
        lines.append("  <NO_OTHER_FAILURES>")
    else:
        for i, (g, c) in enumerate(others, 1):
            lines += block(i, g, c)
    lines.append("------------------------------------------------------------")
    lines.append("Root Cause (first observed failure):")
    lines += block(0, root[0], root[1])
    lines.append("============================================================")
    return "\n".join(lines)


def torchrun_traceback(ctx, launcher):
    P = ctx.pyroot
    bindir = ctx.py.rsplit("/", 1)[0]
    fr = []
    if launcher in ("accelerate", "srun_accelerate"):
        fr.append((f"{bindir}/accelerate", 8, "<module>", "sys.exit(main())"))
        fr.append((f"{P}/accelerate/commands/accelerate_cli.py", pick(ctx.rng, [46, 48, 50]), "main", "args.func(args)"))
        fr.append((f"{P}/accelerate/commands/launch.py", pick(ctx.rng, [1008, 1082, 1159, 1194]), "launch_command", "multi_gpu_launcher(args)"))
        fr.append((f"{P}/accelerate/commands/launch.py", pick(ctx.rng, [666, 733, 793, 825]), "multi_gpu_launcher", "distrib_run.run(args)"))
    else:
        fr.append((f"{bindir}/torchrun", 8, "<module>", "sys.exit(main())"))
        fr.append((f"{P}/torch/distributed/elastic/multiprocessing/errors/__init__.py", {0: 346, 1: 347, 2: 355, 3: 355}[ctx.E], "wrapper", "return f(*args, **kwargs)"))
        fr.append((f"{P}/torch/distributed/run.py", {0: 794, 1: 812, 2: 919, 3: 892}[ctx.E], "main", "run(args)"))
    fr.append((f"{P}/torch/distributed/run.py", {0: 785, 1: 803, 2: 910, 3: 883}[ctx.E], "run", "elastic_launch("))
    fr.append((f"{P}/torch/distributed/launcher/api.py", {0: 134, 1: 135, 2: 138, 3: 139}[ctx.E], "__call__", "return launch_agent(self._config, self._entrypoint, list(args))"))
    fr.append((f"{P}/torch/distributed/launcher/api.py", {0: 250, 1: 268, 2: 269, 3: 270}[ctx.E], "launch_agent", "raise ChildFailedError("))
    return "Traceback (most recent call last):\n" + tb_frames(ctx, fr)


def ds_log(ctx, h, t, lvl, where, msg):
    d = ctx.clock[h].at(t)
    return f"[{ts_iso(d)}] [{lvl}] [{where}] {msg}"


def ds_launch_lines(ctx):
    """(file:line) strings used by deepspeed launcher versions."""
    E = ctx.E
    return {0: dict(kill="launch.py:428:sigkill_handler", err="launch.py:434:sigkill_handler", ok="launch.py:347:main", spawn="launch.py:247:main"),
            1: dict(kill="launch.py:316:sigkill_handler", err="launch.py:322:sigkill_handler", ok="launch.py:351:main", spawn="launch.py:256:main"),
            2: dict(kill="launch.py:319:sigkill_handler", err="launch.py:325:sigkill_handler", ok="launch.py:351:main", spawn="launch.py:256:main"),
            3: dict(kill="launch.py:337:sigkill_handler", err="launch.py:343:sigkill_handler", ok="launch.py:369:main", spawn="launch.py:274:main")}[E]


def user_cmd_args(ctx):
    rng = ctx.rng
    fw = ctx.fw
    if fw == "llamafactory":
        return ["--stage", "sft", "--do_train", "--model_name_or_path", ctx.model, "--dataset", pick(rng, ["alpaca_en_demo", "identity,alpaca_zh", "my_data"]),
                "--template", pick(rng, ["llama3", "qwen", "mistral", "default"]), "--finetuning_type", pick(rng, ["lora", "full"]),
                "--output_dir", "saves/sft", "--per_device_train_batch_size", str(pick(rng, [1, 2, 4])), "--gradient_accumulation_steps", "8",
                "--cutoff_len", str(pick(rng, [1024, 2048, 4096])), "--bf16"] + (["--deepspeed", "examples/deepspeed/ds_z3_config.json"] if ctx.ds else [])
    if fw == "dschat":
        return ["--data_path", "Dahoas/rm-static", "--model_name_or_path", ctx.model, "--per_device_train_batch_size", "4",
                "--max_seq_len", "512", "--zero_stage", str(ctx.zero or 2), "--deepspeed", "--output_dir", "./output"]
    return ["--model_name_or_path", ctx.model, "--output_dir", pick(rng, ["./out", "output/sft", "ckpt/run1"]),
            "--per_device_train_batch_size", str(pick(rng, [1, 2, 4, 8])), "--bf16", "True"] + (["--deepspeed", pick(rng, ["ds_z3.json", "ds_config_zero2.json", "configs/zero3.json"])] if ctx.ds else [])


# ----------------------------------------------------------------------------------------
# the common part of every run: start-up, model load, NCCL init, training progress
# ----------------------------------------------------------------------------------------

def hf_log(ctx, g, t, lvl, where, msg):
    """transformers / llamafactory logger line formats."""
    d = ctx.clock[rank_host(ctx, g)].at(t)
    if ctx.fw == "llamafactory" and ctx.E >= 2 and where.startswith("llamafactory"):
        return f"[{lvl}|{d.strftime('%Y-%m-%d %H:%M:%S')}] {where} >> {msg}"
    if where.endswith(".py") or ":" in where:
        return f"[{lvl}|{where}] {ts_iso(d)} >> {msg}"
    return f"{d.strftime('%m/%d/%Y %H:%M:%S')} - {lvl} - {where} - {msg}"


def axo_log(ctx, g, t, lvl, where, msg):
    d = ctx.clock[rank_host(ctx, g)].at(t)
    return f"[{ts_iso(d)}] [{lvl}] [{where}] [PID:{ctx.pid[g]}] [RANK:{g}] {msg}"


def emit_startup(st, t_base=0.0):
    """Everything until the first optimizer step. Returns t when training starts."""
    ctx = st.ctx
    rng, E = ctx.rng, ctx.E
    t = t_base + 4.0 + rng.random() * 3
    W = ctx.world
    dranks = ctx.detail_ranks
    # noise printed at import time
    warns = noise_warnings(ctx)
    if E == 0 and rng.random() < 0.5:
        bnb = ("\n===================================BUG REPORT===================================\n"
               "Welcome to bitsandbytes. For bug reports, please run\n\npython -m bitsandbytes\n\n"
               " and submit this information together with your error trace to: https://github.com/TimDettmers/bitsandbytes/issues\n"
               "================================================================================\n"
               f"bin {ctx.pyroot}/bitsandbytes/libbitsandbytes_cuda118.so\n"
               "CUDA SETUP: CUDA runtime path found: /usr/local/cuda/lib64/libcudart.so.11.0\n"
               f"CUDA SETUP: Highest compute capability among GPUs detected: {'8.6' if ctx.gpu in ('3090', 'a6000') else '8.0'}\n"
               "CUDA SETUP: Detected CUDA version 118\n"
               f"CUDA SETUP: Loading binary {ctx.pyroot}/bitsandbytes/libbitsandbytes_cuda118.so...")
        st.all_ranks(t, bnb, err=False)
    if ctx.ds:
        for g in dranks:
            h = rank_host(ctx, g)
            st.r(g, t + rng.random(), ds_log(ctx, h, t, "INFO", "real_accelerator.py:{}:get_accelerator".format({0: 110, 1: 191, 2: 219, 3: 239}[E]), "Setting ds_accelerator to cuda (auto detect)"))
    t += 2 + rng.random() * 4
    for txt, who in warns[: len(warns) // 2]:
        if who == "all":
            st.all_ranks(t, txt, jitter=1.5)
        else:
            st.r(0, t, txt)
        t += rng.random() * 2
    # per-rank identity lines
    fw = ctx.fw
    for g in dranks:
        l = rank_local(ctx, g)
        tt = t + rng.random() * 2
        if fw == "llamafactory":
            if E >= 2:
                st.r(g, tt, hf_log(ctx, g, tt, "INFO", f"llamafactory.hparams.parser:{pick(rng, [355, 383, 406])}",
                                   f"Process rank: {g}, world size: {W}, device: cuda:{l}, distributed training: True, compute dtype: torch.bfloat16"), ("ident",))
            else:
                d = ctx.clock[rank_host(ctx, g)].at(tt)
                st.r(g, tt, f"{d.strftime('%m/%d/%Y %H:%M:%S')} - INFO - llmtuner.hparams.parser - Process rank: {g}, device: cuda:{l}, n_gpu: 1\n  distributed training: True, compute dtype: torch.bfloat16", ("ident",))
        elif fw in ("hf", "trl"):
            d = ctx.clock[rank_host(ctx, g)].at(tt)
            st.r(g, tt, f"{d.strftime('%m/%d/%Y %H:%M:%S')} - WARNING - __main__ - Process rank: {l}, device: cuda:{l}, n_gpu: 1, distributed training: True, 16-bits training: False", ("ident",))
        elif fw == "axolotl":
            st.r(g, tt, axo_log(ctx, g, tt, "INFO", "axolotl.normalize_config:{}".format(pick(rng, [169, 182, 183])), f"GPU memory usage baseline: 0.000GB (+{rng.uniform(0.3, 0.9):.3f}GB misc)"), ("ident",))
        elif fw == "swift" and g == 0:
            d = ctx.clock[0].at(tt)
            st.r(g, tt, f"[INFO:swift] Start time of running main: {d.strftime('%Y-%m-%d %H:%M:%S.%f')}\n[INFO:swift] Setting args.lazy_tokenize: False\n[INFO:swift] Global seed set to 42", err=False)
        elif fw == "torchtune" and g == 0:
            st.r(g, tt, f"INFO:torchtune.utils._logging:Running {'LoRAFinetuneRecipeDistributed' if 'lora' in ctx.script else 'FullFinetuneRecipeDistributed'} with resolved config:\n\nbatch_size: {pick(rng, [2, 4, 8])}\ncheckpointer:\n  _component_: torchtune.training.FullModelHFCheckpointer\n  checkpoint_dir: /tmp/{ctx.model.split('/')[-1]}\n  model_type: LLAMA3\ndevice: cuda\ndtype: bf16\nenable_activation_checkpointing: true\nepochs: 1\ngradient_accumulation_steps: 1\nlog_every_n_steps: 1\nlog_peak_memory_stats: true\noutput_dir: /tmp/torchtune/out")
    t += 3 + rng.random() * 5
    if fw == "axolotl":
        st.r(0, t, axo_log(ctx, 0, t, "INFO", "axolotl.load_tokenizer:{}".format(pick(rng, [279, 294])), "EOS: 2 / </s>"))
        st.r(0, t + 0.1, axo_log(ctx, 0, t, "INFO", "axolotl.load_tokenizer:{}".format(pick(rng, [280, 295])), "BOS: 1 / <s>"))
        st.r(0, t + 0.2, axo_log(ctx, 0, t, "INFO", "axolotl.utils.data.sft.load_tokenized_prepared_datasets:{}".format(pick(rng, [194, 211])), "Loading prepared dataset from disk at last_run_prepared/"))
    # model load
    ns = ctx.nshards
    load_dt = rng.uniform(0.6, 9.0)
    for g in dranks:
        tt = t + rng.random() * 3
        if ns > 1:
            bar = tqdm_cr(list(range(0, ns + 1)), ns, lambda n: n * load_dt, 10, "Loading checkpoint shards")
            st.r(g, tt + ns * load_dt, bar)
    t += ns * load_dt + 4
    if rng.random() < 0.35:
        msg = (f"Some weights of {pick(rng, ['LlamaForSequenceClassification', 'Qwen2ForSequenceClassification', 'MistralForSequenceClassification'])} were not initialized from the model checkpoint at {ctx.model} and are newly initialized: ['score.weight']\n"
               "You should probably TRAIN this model on a down-stream task to be able to use it for predictions and inference.")
        st.all_ranks(t, msg, jitter=2)
    t += 1
    # NCCL init happens at the first collective (DDP broadcast / deepspeed init)
    if ctx.ds:
        for g in dranks:
            h = rank_host(ctx, g)
            tt = t + rng.random()
            st.r(g, tt, ds_log(ctx, h, tt, "INFO", f"comm.py:{pick(rng, [637, 652, 658])}:init_distributed", "cdb=None"))
        st.r(0, t + 1, ds_log(ctx, 0, t + 1, "INFO", f"comm.py:{pick(rng, [668, 683, 689])}:init_distributed", "Initializing TorchBackend in DeepSpeed with backend nccl"))
    ctx.t_nccl = t + 2
    if ctx.nccl_debug:
        emit_nccl_init(st, t + 2)
    t += 6 + rng.random() * 5
    if ctx.ds:
        st.r(0, t, ds_log(ctx, 0, t, "INFO", "logging.py:96:log_dist", f"[Rank 0] DeepSpeed info: version={ctx.era['ds']}, git-hash=unknown, git-branch=unknown"))
        if ctx.zero == 3:
            st.r(0, t + 2, ds_log(ctx, 0, t + 2, "INFO", f"partition_parameters.py:{pick(rng, [343, 348])}:__exit__", f"finished initializing model - num_params = {pick(rng, [291, 323, 339])}, num_elems = {rng.uniform(1.5, 8.1):.2f}B"))
            st.r(0, t + 3, f"Parameter Offload: Total persistent parameters: {rng.randrange(100000, 900000)} in {rng.randrange(60, 200)} params")
        st.r(0, t + 4, ds_log(ctx, 0, t + 4, "INFO", "logging.py:96:log_dist", f"[Rank 0] Creating torch.bfloat16 ZeRO stage {ctx.zero} optimizer"))
        t += 6
    for txt, who in warns[len(warns) // 2:]:
        if who == "all":
            st.all_ranks(t, txt, jitter=1.5)
        else:
            st.r(0, t, txt)
        t += rng.random() * 2
    return t + 2


def pick_dt(ctx):
    rng = ctx.rng
    base = {"3090": 3.2, "4090": 2.2, "5090": 1.6, "a6000": 2.6, "l40s": 2.0, "a100": 1.2, "a100_40": 1.6,
            "h100": 0.7, "h100_pcie": 1.0, "t4": 9.0, "a10g": 3.5}[ctx.gpu]
    return base * rng.uniform(0.5, 2.2)


def train_banner(st, t):
    ctx = st.ctx
    rng = ctx.rng
    W = ctx.world
    bs = pick(rng, [1, 2, 4, 8])
    ga = pick(rng, [1, 2, 4, 8, 16])
    nex = rng.randrange(2000, 400000)
    epochs = pick(rng, [1, 2, 3, 3, 5])
    steps = max(30, nex * epochs // (bs * ga * W))
    steps = min(steps, rng.randrange(300, 12000))
    if ctx.kind == "notebook":
        steps = min(steps, int(rng.uniform(4000, 30000) / max(0.5, getattr(ctx, "dt", 5.0))))
    ctx.total_steps = steps
    ctx.epochs = epochs
    ntrain = pick(rng, [4194304, 6553600, 20971520, 41943040, 83886080, rng.randrange(10**9, 8 * 10**9)])
    lines = ["***** Running training *****",
             f"  Num examples = {fmt_int(nex)}",
             f"  Num Epochs = {epochs}",
             f"  Instantaneous batch size per device = {bs}",
             f"  Total train batch size (w. parallel, distributed & accumulation) = {bs * ga * W}",
             f"  Gradient Accumulation steps = {ga}",
             f"  Total optimization steps = {fmt_int(steps)}",
             f"  Number of trainable parameters = {fmt_int(ntrain)}"]
    fw = ctx.fw
    if fw == "torchtune":
        st.r(0, t, f"INFO:torchtune.utils._logging:Model is initialized with precision torch.bfloat16.\nINFO:torchtune.utils._logging:Memory stats after model init:\n\tGPU peak memory allocation: {rng.uniform(4, 18):.2f} GiB\n\tGPU peak memory reserved: {rng.uniform(4, 19):.2f} GiB\n\tGPU peak memory active: {rng.uniform(4, 18):.2f} GiB\nINFO:torchtune.utils._logging:Optimizer and loss are initialized.\nINFO:torchtune.utils._logging:Dataset and Sampler are initialized.\nINFO:torchtune.utils._logging:Learning rate scheduler is initialized.")
        return
    if fw == "llamafactory" and ctx.E >= 2:
        d = ctx.clock[0].at(t)
        lines = [f"[INFO|trainer.py:{pick(rng, [2243, 2314, 2369])}] {ts_iso(d)} >> {x}" for x in lines]
    elif fw == "axolotl":
        st.r(0, t - 1, axo_log(ctx, 0, t - 1, "INFO", "axolotl.train.train:{}".format(pick(rng, [173, 190])), "Starting trainer..."))
    if fw == "unsloth":
        lines = ["==((====))==  Unsloth - 2x faster free finetuning | Num GPUs = 1",
                 f"   \\\\   /|    Num examples = {fmt_int(nex)} | Num Epochs = {epochs}",
                 f"O^O/ \\_/ \\    Batch size per device = {bs} | Gradient Accumulation steps = {ga}",
                 f"\\        /    Total batch size = {bs * ga} | Total steps = {fmt_int(steps)}",
                 f" \"-____-\"     Number of trainable parameters = {fmt_int(ntrain)}"]
    st.r(0, t, "\n".join(lines))
    if ctx.wandb:
        rid = hexs(rng, 8)
        d = ctx.clock[0].at(t)
        proj = pick(rng, ["huggingface", "llm-sft", f"{ctx.user}-ft", "llama-factory"])
        st.r(0, t + 2, f"wandb: Currently logged in as: {ctx.user} ({ctx.user}-lab). Use `wandb login --relogin` to force relogin\n"
                       f"wandb: Tracking run with wandb version {pick(rng, ['0.15.12', '0.16.6', '0.17.4', '0.18.7', '0.19.1'])}\n"
                       f"wandb: Run data is saved locally in {ctx.workdir}/wandb/run-{d.strftime('%Y%m%d_%H%M%S')}-{rid}\n"
                       "wandb: Run `wandb offline` to turn off syncing.\n"
                       f"wandb: Syncing run {pick(rng, ['./output', 'sft-run', 'lora-r16', 'saves/sft'])}\n"
                       f"wandb: ⭐️ View project at https://wandb.ai/{ctx.user}-lab/{proj}\n"
                       f"wandb: 🚀 View run at https://wandb.ai/{ctx.user}-lab/{proj}/runs/{rid}")
        ctx.wandb_run = (proj, rid)


def loss_dict(ctx, step, loss, lr, epoch, gn):
    fw = ctx.fw
    if fw == "swift":
        return (f"{{'loss': {loss:.5f}, 'acc': {min(0.99, 0.5 + 0.4 * (1 - loss / 3)):.5f}, 'grad_norm': {gn:.4f}, 'learning_rate': {lr:.4e}, "
                f"'memory(GiB)': {ctx.rng.uniform(10, GPUS[ctx.gpu][2] * 0.95):.2f}, 'train_speed(iter/s)': {1 / ctx.dt:.6f}, 'epoch': {epoch:.2f}, "
                f"'global_step/max_steps': '{step}/{ctx.total_steps}', 'percentage': '{100 * step / ctx.total_steps:.2f}%', "
                f"'elapsed_time': '{int(step * ctx.dt // 60)}m {int(step * ctx.dt % 60)}s', 'remaining_time': '{int((ctx.total_steps - step) * ctx.dt // 60)}m {int((ctx.total_steps - step) * ctx.dt % 60)}s'}}")
    if ctx.E == 0:
        return f"{{'loss': {loss:.4f}, 'learning_rate': {lr:.4e}, 'epoch': {epoch:.2f}}}"
    return f"{{'loss': {loss:.4f}, 'grad_norm': {gn:.{pick(ctx.rng, [4, 15])}f}, 'learning_rate': {lr:.4e}, 'epoch': {epoch:.2f}}}"


def emit_training(st, t0, t_stop, finish=False, slow_factor=1.0, start_step=0):
    """Rank-0 progress from t0 to t_stop. Returns the last step reached (and sets ctx.dt)."""
    ctx = st.ctx
    rng = ctx.rng
    if not hasattr(ctx, "dt"):
        ctx.dt = pick_dt(ctx) * slow_factor
    train_banner(st, t0)
    dt = ctx.dt
    total = ctx.total_steps
    if finish:
        t_stop = t0 + 5 + total * dt
    n_end = min(total, max(1, int((t_stop - t0 - 5) / dt)))
    ctx.last_step = n_end
    width = pick(rng, [10, 10, 10, 40, 80, 120]) if ctx.layout not in ("notebook",) else 10
    ctx.bar_width = width
    log_every = pick(rng, [1, 5, 10, 10, 25, 50])
    if total / log_every > 400:
        log_every = max(log_every, total // 300)
    ts = t0 + 5
    lr0 = pick(rng, [2e-5, 5e-5, 1e-4, 2e-4, 1e-5])
    loss = rng.uniform(1.4, 3.2)
    floor = rng.uniform(0.25, 1.1)
    desc = ""
    unit = "it"
    if ctx.fw == "swift":
        desc = "Train"
    # build segments: bars between log steps joined with \r; log dict lines in between
    n = start_step
    ts -= start_step * dt
    seg = [tqdm_bar(start_step, total, 0, width, desc)]
    # sparse in the middle to keep things small
    dense_head, dense_tail = 40, 60
    while n < n_end:
        n += 1
        tn = ts + n * dt + rng.uniform(-0.2, 0.2) * dt
        if n <= dense_head or n > n_end - dense_tail or n % log_every == 0:
            if ctx.fw == "torchtune":
                seg.append(f"1|{n}|Loss: {loss:.{pick(rng, [4, 16])}f}: " + tqdm_bar(n, total, n * dt, width))
            else:
                seg.append(tqdm_bar(n, total, n * dt, width, desc, unit))
        if n % log_every == 0 and ctx.fw not in ("torchtune",):
            st.r(0, tn, "\r".join(seg))
            seg = []
            loss = floor + (loss - floor) * rng.uniform(0.9, 1.0) + rng.uniform(-0.04, 0.04) * floor
            lr = lr0 * (1 - n / total)
            ep = ctx.epochs * n / total
            if ctx.fw == "dschat":
                st.r(0, tn + 0.01, f"Epoch {int(ep) + 1}/{ctx.epochs} with loss {loss:.4f}", err=False)
            else:
                st.r(0, tn + 0.01, loss_dict(ctx, n, loss, lr, ep, rng.uniform(0.2, 2.5)), err=False)
            if ctx.ds and rng.random() < 0.15:
                st.r(0, tn + 0.02, ds_log(ctx, 0, tn, "INFO", "logging.py:96:log_dist", f"[Rank 0] step={n}, skipped=0, lr=[{lr:.12f}], mom=[[0.9, 0.999]]"), err=False)
                if ctx.zero == 3 and rng.random() < 0.5:
                    st.r(0, tn + 0.03, ds_log(ctx, 0, tn, "WARNING", "stage3.py:{}:step".format(pick(rng, [1998, 2069, 2106])), f"{rng.randrange(1, 9)} pytorch allocator cache flushes since last step. this happens when there is high memory pressure and is detrimental to performance. if this is happening frequently consider adjusting settings to reduce memory consumption. If you are unable to make the cache flushes go away consider adding get_accelerator().empty_cache() calls in your training loop to ensure that all ranks flush their caches at the same time"))
        elif ctx.fw == "torchtune" and n % 20 == 0:
            st.r(0, tn, "\r".join(seg))
            seg = []
    if seg:
        st.r(0, ts + n_end * dt, "\r".join(seg))
    ctx.t_last_step = ts + n_end * dt
    return n_end


def emit_finish(st, t):
    """A clean end of training (rank 0 summary, every rank exits 0)."""
    ctx = st.ctx
    rng = ctx.rng
    rt = ctx.total_steps * ctx.dt
    fw = ctx.fw
    if fw == "torchtune":
        st.r(0, t, f"INFO:torchtune.utils._logging:Model checkpoint of size {rng.uniform(4, 16):.2f} GB saved to /tmp/torchtune/out/epoch_0/model-00001-of-00004.safetensors\nINFO:torchtune.utils._logging:Saving final epoch checkpoint.\nINFO:torchtune.utils._logging:The full model checkpoint, including all weights and configurations, has been saved successfully.You can now use this checkpoint for further training or inference.")
    else:
        st.r(0, t, "\n\nTraining completed. Do not forget to share your model on huggingface.co/models =)\n\n")
        st.r(0, t + 0.1, f"{{'train_runtime': {rt:.4f}, 'train_samples_per_second': {rng.uniform(2, 60):.3f}, 'train_steps_per_second': {1 / ctx.dt:.3f}, 'train_loss': {rng.uniform(0.4, 1.6):.{pick(rng, [4, 16])}f}, 'epoch': {float(ctx.epochs):.1f}}}", err=False)
        st.r(0, t + 0.2, tqdm_bar(ctx.total_steps, ctx.total_steps, rt, ctx.bar_width))
        st.r(0, t + 1, f"Saving model checkpoint to {pick(rng, ['./out', 'saves/sft', 'output'])}")
        st.r(0, t + 3, f"***** train metrics *****\n  epoch                    = {float(ctx.epochs):.1f}\n  total_flos               = {rng.uniform(10, 900):.0f}GF\n  train_loss               = {rng.uniform(0.4, 1.6):.4f}\n  train_runtime            = {fmt_hms(rt)}.{rng.randrange(10, 99)}\n  train_samples_per_second = {rng.uniform(2, 60):.3f}\n  train_steps_per_second   = {1 / ctx.dt:.3f}", err=False)
    if ctx.wandb and getattr(ctx, "wandb_run", None):
        proj, rid = ctx.wandb_run
        st.r(0, t + 5, "wandb: \nwandb: Run history:\nwandb:               train/epoch ▁▁▂▂▂▃▃▃▄▄▄▅▅▅▆▆▆▇▇▇██\nwandb:         train/global_step ▁▁▂▂▂▃▃▃▄▄▄▅▅▅▆▆▆▇▇▇██\n"
                       f"wandb:                train/loss █▆▅▄▄▃▃▃▂▂▂▂▂▂▁▁▁▁▁▁▁\nwandb: \nwandb: 🚀 View run {pick(rng, ['sft-run', 'lora-r16', 'output'])} at: https://wandb.ai/{ctx.user}-lab/{proj}/runs/{rid}\n"
                       f"wandb: Find logs at: ./wandb/run-{ctx.clock[0].at(0).strftime('%Y%m%d_%H%M%S')}-{rid}/logs", err=False)
    if ctx.E >= 2:
        for g in ctx.detail_ranks:
            if rng.random() < 0.8:
                st.r(g, t + 6 + rng.random(), glog(ctx, g, t + 6, "W", "ProcessGroupNCCL.cpp", pick(rng, [1168, 1250, 1496]),
                                                    "Warning: WARNING: process group has NOT been destroyed before we destruct ProcessGroupNCCL. On normal program exit, the application should call destroy_process_group to ensure that any pending NCCL operations have finished in this process. In rare cases this process can exit before this point and block the progress of another member of the process group. This constraint has always been present,  but this warning has only been added since PyTorch 2.4 (function operator())"))
    return t + 8


# ----------------------------------------------------------------------------------------
# the end of a failed run: launchers react, summaries name (possibly the wrong) first failure
# ----------------------------------------------------------------------------------------

def set_init(ctx, g=None, h=None):
    ctx.init_rank = g
    if g is not None and h is None:
        h = rank_host(ctx, g)
    ctx.init_host = h
    if h is not None and h not in ctx.detail_hosts:
        ctx.detail_hosts = sorted(ctx.detail_hosts + [h])
        ctx.detail_ranks = detail_ranks(ctx)


def launcher_start(st):
    """Launcher console lines at t=0 on each host."""
    ctx = st.ctx
    rng = ctx.rng
    L = ctx.launcher
    for h in ctx.detail_hosts:
        t = 0.2 + rng.random() * 0.5
        if L in ("torchrun", "accelerate", "llamafactory", "srun_torchrun", "srun_accelerate"):
            if ctx.acc_warn:
                st.l(h, t - 0.1, "The following values were not passed to `accelerate launch` and had defaults used instead:\n"
                                 f"\t`--num_processes` was set to a value of `{ctx.gpn}`\n\t\tMore than one GPU was found, enabling multi-GPU training.\n"
                                 f"\t\tIf this was unintended please pass in `--num_processes=1`.\n\t`--num_machines` was set to a value of `1`\n"
                                 "\t`--mixed_precision` was set to a value of `'no'`\n\t`--dynamo_backend` was set to a value of `'no'`\n"
                                 "To avoid this warning pass in values for each of the problematic parameters or run `accelerate config`.")
            if L == "llamafactory":
                d = ctx.clock[h].at(t)
                if ctx.E >= 2:
                    st.l(h, t - 0.1, f"[INFO|{d.strftime('%Y-%m-%d %H:%M:%S')}] llamafactory.cli:{pick(rng, [157, 94, 111])} >> Initializing {ctx.gpn} distributed tasks at: 127.0.0.1:{ctx.master_port}")
                else:
                    st.l(h, t - 0.1, f"{d.strftime('%m/%d/%Y %H:%M:%S')} - INFO - llamafactory.cli - Initializing distributed tasks at: 127.0.0.1:{ctx.master_port}")
            st.l(h, t, torchrun_banner(ctx, h, t))
        elif L in ("deepspeed", "srun_deepspeed"):
            W = ctx.world
            hostsd = {("localhost" if ctx.nhost == 1 else ctx.hosts[i]): list(range(ctx.gpn)) for i in range(ctx.nhost)}
            import base64
            wi = base64.urlsafe_b64encode(json.dumps(hostsd).encode()).decode()
            if h == 0:
                st.l(h, t, ds_log(ctx, h, t, "INFO", "real_accelerator.py:{}:get_accelerator".format({0: 110, 1: 191, 2: 219, 3: 239}[ctx.E]), "Setting ds_accelerator to cuda (auto detect)"), ("runner",))
                if ctx.nhost == 1:
                    st.l(h, t + 0.5, ds_log(ctx, h, t + 0.5, "WARNING", "runner.py:{}:fetch_hostfile".format(pick(rng, [196, 202, 212])), "Unable to find hostfile, will proceed with training with local resources only."))
                    st.l(h, t + 0.6, ds_log(ctx, h, t + 0.6, "INFO", "runner.py:{}:main".format(pick(rng, [555, 568, 585])), f"cmd = {ctx.py} -u -m deepspeed.launcher.launch --world_info={wi} --master_addr=127.0.0.1 --master_port={ctx.master_port} --enable_each_rank_log=None {ctx.script} " + " ".join(user_cmd_args_cached(ctx))))
                else:
                    st.l(h, t + 0.5, ds_log(ctx, h, t + 0.5, "INFO", "multinode_runner.py:{}:get_cmd".format(pick(rng, [70, 80, 81])), "Running on the following workers: " + ",".join(ctx.hosts)), ("runner",))
                    st.l(h, t + 0.6, ds_log(ctx, h, t + 0.6, "INFO", "runner.py:{}:main".format(pick(rng, [555, 568, 585])), f"cmd = pdsh -S -f 1024 -w {','.join(ctx.hosts)} export PYTHONPATH={ctx.workdir}; cd {ctx.workdir}; {ctx.py} -u -m deepspeed.launcher.launch --world_info={wi} --node_rank=%n --master_addr={ctx.ips[0]} --master_port={ctx.master_port} {ctx.script} " + " ".join(user_cmd_args_cached(ctx))))
            t2 = t + 2 + rng.random()
            ll = ds_launch_lines(ctx)
            st.l(h, t2, ds_log(ctx, h, t2, "INFO", "launch.py:{}:main".format({0: 138, 1: 145, 2: 146, 3: 164}[ctx.E]), f"WORLD INFO DICT: {hostsd}"))
            st.l(h, t2, ds_log(ctx, h, t2, "INFO", "launch.py:{}:main".format({0: 144, 1: 151, 2: 152, 3: 170}[ctx.E]), f"nnodes={ctx.nhost}, num_local_procs={ctx.gpn}, node_rank={h}"))
            gm = {k: list(range(i * ctx.gpn, (i + 1) * ctx.gpn)) for i, k in enumerate(hostsd)}
            st.l(h, t2, ds_log(ctx, h, t2, "INFO", "launch.py:{}:main".format({0: 155, 1: 162, 2: 163, 3: 181}[ctx.E]), f"global_rank_mapping=defaultdict(<class 'list'>, {gm})"))
            st.l(h, t2, ds_log(ctx, h, t2, "INFO", "launch.py:{}:main".format({0: 156, 1: 163, 2: 164, 3: 182}[ctx.E]), f"dist_world_size={W}"))
            st.l(h, t2, ds_log(ctx, h, t2, "INFO", "launch.py:{}:main".format({0: 158, 1: 165, 2: 168, 3: 186}[ctx.E]), "Setting CUDA_VISIBLE_DEVICES=" + ",".join(str(i) for i in range(ctx.gpn))))
            if ctx.E >= 2:
                for l in range(ctx.gpn):
                    g = h * ctx.gpn + l
                    st.l(h, t2 + 0.01 * l, ds_log(ctx, h, t2, "INFO", ll["spawn"], f"process {ctx.pid[g]} spawned with command: {ds_cmd(ctx, l)}"), (f"P{g}",))


def ds_cmd(ctx, l):
    return str([ctx.py, "-u", ctx.script, f"--local_rank={l}"] + user_cmd_args_cached(ctx))


def user_cmd_args_cached(ctx):
    if not hasattr(ctx, "_uargs"):
        ctx._uargs = user_cmd_args(ctx)
    return ctx._uargs


def finish_failure(st, exits, stuck=(), gone_hosts=(), tag_root=None):
    """Launcher reaction per host.

    exits: {g: (t, code)} ranks that died on their own (initiator and collateral).
    tag_root: the initiator rank; summary lines naming it get tag 'R'.
    Returns {h: (t_end, exit_code_of_launcher)}.
    """
    ctx = st.ctx
    rng = ctx.rng
    L = ctx.launcher
    E = ctx.E
    result = {}
    window = 5.0 if E <= 1 else 0.6
    if L == "notebook":
        if not exits:
            return result
        if ctx.world == 1:
            return result
        t1 = min(t for t, _ in exits.values())
        within = sorted([(g, c) for g, (t, c) in exits.items() if t <= t1 + 5], key=lambda x: x[0])
        for g in ctx.detail_ranks:
            if g not in [x[0] for x in within]:
                st.killed_at[g] = t1 + 0.8
        P = ctx.pyroot
        cell = rng.randrange(5, 40)
        txt = ["---------------------------------------------------------------------------",
               "ChildFailedError                          Traceback (most recent call last)",
               f"Cell In[{cell}], line 3", "      1 from accelerate import notebook_launcher", "----> 3 notebook_launcher(train_fn, args=(), num_processes=2)", "",
               f"File {P}/accelerate/launchers.py:{pick(rng, [231, 244, 262])}, in notebook_launcher(function, args, num_processes, mixed_precision, use_port, master_addr, node_rank, num_nodes, rdzv_backend, rdzv_endpoint, rdzv_conf, rdzv_id, max_restarts, monitor_interval, log_line_prefix_template)",
               "    243 try:", "--> 244     elastic_launch(config=launch_config, entrypoint=function)(*args)", "    245 except ProcessRaisedException as e:", "",
               f"File {P}/torch/distributed/launcher/api.py:{ {0: 134, 1: 135, 2: 138, 3: 139}[E]}, in elastic_launch.__call__(self, *args)",
               "--> 138     return launch_agent(self._config, self._entrypoint, list(args))", "",
               f"File {P}/torch/distributed/launcher/api.py:{ {0: 250, 1: 268, 2: 269, 3: 270}[E]}, in launch_agent(config, entrypoint, args)",
               "    262     raise ChildFailedError(", "    263         name=entrypoint_name,", "    264         failures=result.failures,", "    265     )", ""]
        blk = child_failed_block(ctx, 0, t1 + 1, within, "train_fn").replace("torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ", "ChildFailedError: ")
        st.l(0, t1 + 1, "\n".join(txt) + "\n" + blk, ("launcher", "K") + (("R",) if tag_root is not None and within[0][0] == tag_root else ()))
        result[0] = (t1 + 1.1, 1)
        return result
    for h in ctx.detail_hosts:
        if h in gone_hosts:
            continue
        local = sorted([(t, g, c) for g, (t, c) in exits.items() if rank_host(ctx, g) == h])
        if not local:
            continue
        t1 = local[0][0]
        td = t1 + (rng.uniform(0.05, 1.0) if E >= 2 else rng.uniform(0.5, 5.0))
        within = [(g, c) for (t, g, c) in local if t <= t1 + window]
        within.sort(key=lambda x: rank_local(ctx, x[0]))
        exited = set(g for (tt, g, c) in local if tt <= td)
        alive = [g for g in range(h * ctx.gpn, (h + 1) * ctx.gpn) if g not in exited]
        if L in ("deepspeed", "srun_deepspeed"):
            ll = ds_launch_lines(ctx)
            first = within[0]
            for l in range(ctx.gpn):
                g = h * ctx.gpn + l
                if g not in exited:
                    st.killed_at[g] = td + 0.05
                st.l(h, td + 0.01 * l, ds_log(ctx, h, td, "INFO", ll["kill"], f"Killing subprocess {ctx.pid[g]}"))
            tags = ("K", "launcher") + (("R",) if (tag_root is not None and first[0] == tag_root) else ())
            st.l(h, td + 0.2, ds_log(ctx, h, td + 0.2, "ERROR", ll["err"], f"{ds_cmd(ctx, rank_local(ctx, first[0]))} exits with return code = {first[1]}"), tags)
            result[h] = (td + 0.3, 1)
            continue
        # torchrun family
        for g in alive:
            st.killed_at[g] = td + 0.3
            st.l(h, td + 0.001 * rank_local(ctx, g), agent_log(ctx, h, td, "W", "api", f"Sending process {ctx.pid[g]} closing signal SIGTERM"))
        root = within[0]
        tf = td + rng.uniform(0.2, 3.0) if alive else td
        st.l(h, tf, agent_log(ctx, h, tf, "E", "api", f"failed (exitcode: {root[1]}) local_rank: {rank_local(ctx, root[0])} (pid: {ctx.pid[root[0]]}) of binary: {ctx.py}"),
             ("launcher", f"P{root[0]}") + (("Rloc",) if (tag_root is not None and root[0] == tag_root) else ()))
        script = ctx.script if not ctx.script.startswith("-m") else ctx.script.split()[-1]
        if L in ("llamafactory",):
            script = f"{ctx.workdir}/src/llamafactory/launcher.py" if E >= 2 else f"{ctx.workdir}/src/train.py"
        blk = child_failed_block(ctx, h, tf, [(g, c) for g, c in within], script)
        rtag = ("launcher", "K") + tuple(f"P{g}" for g, _ in within)
        if tag_root is not None and root[0] == tag_root:
            rtag += ("R",)
        st.l(h, tf + 0.05, torchrun_traceback(ctx, L) + "\n" + blk, rtag)
        if L == "llamafactory":
            cmd = ["torchrun", "--nnodes", str(ctx.nhost), "--node_rank", str(h), "--nproc_per_node", str(ctx.gpn),
                   "--master_addr", "127.0.0.1", "--master_port", str(ctx.master_port), script, pick(rng, ["examples/train_lora/llama3_lora_sft.yaml", "train.yaml", "qwen_full_sft.yaml"])]
            st.l(h, tf + 0.2, "Traceback (most recent call last):\n" + tb_frames(ctx, [
                (f"{ctx.py.rsplit('/', 1)[0]}/llamafactory-cli", 8, "<module>", "sys.exit(main())"),
                (f"{ctx.workdir}/src/llamafactory/cli.py", pick(rng, [94, 95, 130]), "main", "process = subprocess.run("),
(f"/usr/lib/python{ctx.era['py'].rsplit('.', 1)[0]}/subprocess.py", {"3.10": 526, "3.11": 571, "3.12": 573}[ctx.era['py'].rsplit('.', 1)[0]], "run", "raise CalledProcessError(retcode, process.args,")])
                 + f"\nsubprocess.CalledProcessError: Command '{cmd}' returned non-zero exit status 1.")
        result[h] = (tf + 0.3, 1)
    return result


def collateral_remote(st, t_dead, dead_hosts, mode, exits, seq, op="ALLREDUCE", numel=None, peer_host=None, init=None):
    """Ranks on hosts other than dead_hosts notice the loss: async NCCL error or watchdog timeout."""
    ctx = st.ctx
    rng = ctx.rng
    numel = numel or rng.randrange(10**6, 3 * 10**8)
    for g in ctx.detail_ranks:
        h = rank_host(ctx, g)
        if h in dead_hosts or g in exits or g == init:
            continue
        if mode == "async":
            ph = peer_host if peer_host is not None else dead_hosts[0]
            tt = t_dead + rng.uniform(0.5, 40)
            peer = f"{ctx.ips[ph]}<{rng.randrange(30000, 60000)}>"
            if ctx.ib:
                det = f"NET/IB : Got completion from peer {peer} with error 12, opcode {pick(rng, [0, 1, 129])}, len {rng.randrange(0, 65536)}, vendor err 129" if ctx.era["nccl"] < "2.20" else \
                      f"NET/IB : Got completion from peer {peer} with status=12 opcode=0 len=0 vendor err 129 (Send)"
                file_line = "transport/net_ib.cc:{}".format(pick(rng, [1295, 1696, 2080]))
            else:
                det = pick(rng, [f"socketProgress: Connection closed by remote peer {ctx.hosts[ph].split('.')[0]}<{rng.randrange(30000, 60000)}>",
                                 f"socketProgressOpt: Call to recv from {peer} failed : Connection reset by peer"])
                file_line = "misc/socket.cc:{}".format(pick(rng, [49, 538, 580]))
            st.r(g, tt - 0.01, nccl_warn(ctx, g, tt, file_line, det), ("nccl", "C"))
            nccl_async_error(st, g, tt, det, ("C",))
            exits[g] = (tt + 0.01, -6)
        else:
            tt = ctx.t_last_step + ctx.timeout_ms / 1000 + rng.uniform(0, 3)
            watchdog_timeout(st, g, tt, seq, op, numel, tags=("C",))
            exits[g] = (tt + 0.01, -6)
    return exits


# ----------------------------------------------------------------------------------------
# attachments: kernel log, nvidia-smi, env, pip freeze
# ----------------------------------------------------------------------------------------

def kernel_noise(st, h, t_from, t_to, n):
    ctx = st.ctx
    rng = ctx.rng
    drv = ctx.era["driver"]
    pool = [
        "perf: interrupt took too long (2508 > 2500), lowering kernel.perf_event_max_sample_rate to 79500",
        f"IPv6: ADDRCONF(NETDEV_CHANGE): {ctx.iface}: link becomes ready",
        f"docker0: port 1(veth{hexs(rng, 7)}) entered forwarding state",
        f"audit: type=1400 audit({rng.randrange(1600000000, 1760000000)}.{rng.randrange(100, 999)}:{rng.randrange(100, 999)}): apparmor=\"STATUS\" operation=\"profile_replace\" info=\"same as current profile, skipping\" profile=\"unconfined\" name=\"snap-update-ns.lxd\" pid={rng.randrange(1000, 9000)} comm=\"apparmor_parser\"",
        "nvidia-uvm: Loaded the UVM driver, major device number 508.",
        f"NVRM: loading NVIDIA UNIX x86_64 Kernel Module  {drv}  Release Build  (dvs-builder@U16-I3-B03-4-3)  Tue Oct  8 15:02:28 UTC {ctx.era['year']}",
        "nvidia-nvlink: Nvlink Core is being initialized, major device number 511",
        "EXT4-fs (nvme0n1p2): re-mounted. Opts: errors=remount-ro. Quota mode: none.",
        f"br-{hexs(rng, 12)}: port 2(veth{hexs(rng, 7)}) entered disabled state",
        "systemd-journald[612]: /dev/kmsg buffer overrun, some messages lost.",
        "[UFW BLOCK] IN=eno1 OUT= MAC=01:00:5e:00:00:fb SRC=192.168.1.23 DST=224.0.0.251 LEN=32 TOS=0x00 PREC=0x00 TTL=1 ID=0 DF PROTO=2",
        "TCP: request_sock_TCP: Possible SYN flooding on port 29500. Sending cookies.  Check SNMP counters.",
    ]
    for i in range(n):
        st.k(h, t_from + (t_to - t_from) * rng.random(), pick(rng, pool))


def render_kernel(ctx, st, h, style, t_max=None, t_min=None):
    """Kernel events of host h as lines (text, tags) in the chosen style."""
    evs = sorted([e for e in st.ev if e.src == ("k", h)], key=lambda e: (e.t, e.seq))
    out = []
    host = ctx.hosts[h].split(".")[0]
    for e in evs:
        if t_max is not None and e.t > t_max:
            continue
        if t_min is not None and e.t < t_min:
            continue
        up = ctx.uptime0[h] + e.t
        if style == "dmesg":
            txt = f"[{up:12.6f}] {e.text}"
        elif style == "dmesg_T":
            txt = f"[{ts_dmesg_T(ctx.clock[h].at(e.t))}] {e.text}"
        else:  # journal
            txt = f"{ts_syslog(ctx.clock[h].at(e.t))} {host} kernel: {e.text}"
        out.append((txt, e.tags))
    return out


def smi_header_lines(ctx, d):
    drv = ctx.era["driver"]
    cu = {"535": "12.2", "545": "12.3", "550": "12.4", "570": "12.8"}[drv.split(".")[0]]
    new = drv >= "550"
    lines = [d.strftime("%a %b %d %H:%M:%S %Y") + "       "]
    if new:
        lines.append("+-----------------------------------------------------------------------------------------+")
        lines.append(f"| NVIDIA-SMI {drv:<22}Driver Version: {drv:<15}CUDA Version: {cu:<9}|")
        lines.append("|-----------------------------------------+------------------------+----------------------+")
        lines.append("| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |")
        lines.append("| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |")
        lines.append("|                                         |                        |               MIG M. |")
        lines.append("|=========================================+========================+======================|")
    else:
        lines.append("+---------------------------------------------------------------------------------------+")
        lines.append(f"| NVIDIA-SMI {drv:<22}Driver Version: {drv:<14}CUDA Version: {cu:<8}|")
        lines.append("|-----------------------------------------+----------------------+----------------------+")
        lines.append("| GPU  Name                 Persistence-M | Bus-Id        Disp.A | Volatile Uncorr. ECC |")
        lines.append("| Fan  Temp   Perf          Pwr:Usage/Cap |         Memory-Usage | GPU-Util  Compute M. |")
        lines.append("|                                         |                      |               MIG M. |")
        lines.append("|=========================================+======================+======================|")
    return lines, new


def nvidia_smi(ctx, h, t, rows=None, lost=None, procs=True, tags_for=None):
    """nvidia-smi default table for host h at time t.

    rows: {local: dict(util=, temp=, mem=, pwr=, ecc=, perf=)} overrides.
    lost: local index of a GPU that fell off the bus (nvidia-smi then fails).
    tags_for: {local: tags} tags attached to that GPU's lines.
    """
    rng = ctx.rng
    d = ctx.clock[h].at(t)
    if lost is not None:
        return [(f"Unable to determine the device handle for GPU{pci_full(ctx, h, lost)[4:] if rng.random() < 0.5 else ' ' + pci_full(ctx, h, lost)[4:]}: Unknown Error",
                 ("K", "X") + tuple((tags_for or {}).get(lost, ())))]
    name, memtot, _, ecc, _, cap = GPUS[ctx.gpu]
    lines, new = smi_header_lines(ctx, d)
    out = [(x, ()) for x in lines]
    rows = rows or {}
    for l in range(ctx.gpn):
        r = rows.get(l, {})
        util = r.get("util", rng.randrange(92, 101))
        temp = r.get("temp", rng.randrange(52, 78))
        mem = r.get("mem", int(memtot * rng.uniform(0.55, 0.96)))
        pwr = r.get("pwr", int(cap * rng.uniform(0.55, 0.98)))
        perf = r.get("perf", "P2" if "RTX" in name or "GeForce" in name else "P0")
        eccs = r.get("ecc", "0" if ecc else ("Off" if ("GeForce" in name and rng.random() < 0.5) else "N/A"))
        fan = f"{r.get('fan', rng.randrange(30, 90))}%" if ("GeForce" in name or "RTX A" in name) else "N/A"
        bus = pci_full(ctx, h, l)
        nm = name if len(name) <= 26 else name[:22] + "..."
        tg = tuple((tags_for or {}).get(l, ()))
        if new:
            out.append((f"| {l:>3}  {nm:<26}{'On' if ctx.kind != 'ws' else 'Off':>10} |   {bus} Off | {eccs:>20} |", tg))
            out.append((f"| {fan:>3}   {temp:>2}C    {perf:<12}{pwr:>6}W / {cap:>4}W | {mem:>8}MiB / {memtot:>6}MiB | {util:>6}%      Default |", tg))
            out.append(("|                                         |                        |                  N/A |", ()))
            out.append(("+-----------------------------------------+------------------------+----------------------+", ()))
        else:
            out.append((f"| {l:>3}  {nm:<26}{'On' if ctx.kind != 'ws' else 'Off':>10} | {bus} Off | {eccs:>20} |", tg))
            out.append((f"| {fan:>3}   {temp:>2}C    {perf:<12}{pwr:>6}W / {cap:>3}W | {mem:>6}MiB / {memtot:>6}MiB | {util:>6}%      Default |", tg))
            out.append(("|                                         |                      |                  N/A |", ()))
            out.append(("+-----------------------------------------+----------------------+----------------------+", ()))
    if procs:
        w = 89 if new else 87
        out.append(("", ()))
        out.append(("+" + "-" * (w) + "+", ()))
        out.append(("| Processes:" + " " * (w - 11) + "|", ()))
        out.append(("|  GPU   GI   CI        PID   Type   Process name" + " " * (w - 60) + "GPU Memory |", ()))
        out.append(("|        ID   ID" + " " * (w - 26) + "Usage      |", ()))
        out.append(("|" + "=" * w + "|", ()))
        for l in range(ctx.gpn):
            g = h * ctx.gpn + l
            r = rows.get(l, {})
            if r.get("noproc"):
                continue
            mem = r.get("pmem", int(memtot * rng.uniform(0.5, 0.9)))
            pn = ctx.py if len(ctx.py) < 40 else "..." + ctx.py[-37:]
            out.append((f"|  {l:>3}   N/A  N/A  {ctx.pid[g]:>9}      C   {pn:<40}{mem:>8}MiB |", (f"P{g}",) + tuple((tags_for or {}).get(l, ()))))
        out.append(("+" + "-" * w + "+", ()))
    return out


def pip_list(ctx):
    e = ctx.era
    rows = [("accelerate", e["acc"]), ("bitsandbytes", e["bnb"]), ("datasets", e["datasets"]), ("deepspeed", e["ds"]),
            ("flash-attn", pick(ctx.rng, ["2.3.3", "2.5.8", "2.6.3", "2.7.4.post1"])), ("peft", e["peft"]),
            ("safetensors", pick(ctx.rng, ["0.3.3", "0.4.3", "0.4.5", "0.5.3"])), ("tokenizers", pick(ctx.rng, ["0.13.3", "0.19.1", "0.20.3", "0.21.2"])),
            ("torch", e["torch"].split("+")[0]), ("transformers", e["tf"]), ("trl", e["trl"]),
            ("wandb", pick(ctx.rng, ["0.15.12", "0.16.6", "0.18.7", "0.19.1"]))]
    if ctx.fw == "llamafactory":
        rows.append(("llamafactory", e["lf"]))
    if ctx.fw == "axolotl":
        rows.append(("axolotl", e["axo"]))
    if ctx.fw == "swift":
        rows.append(("ms-swift", e["swift"]))
    if ctx.fw == "torchtune" and e["tt"]:
        rows.append(("torchtune", e["tt"]))
    rows.sort()
    return rows


def env_dump(ctx, h):
    """`env | sort` style dump (partial), as some users attach."""
    rng = ctx.rng
    lines = [f"CUDA_HOME=/usr/local/cuda-{ctx.era['cuda']}", f"HOME=/home/{ctx.user}" if ctx.kind != "k8s" else "HOME=/root",
             f"HOSTNAME={ctx.hosts[h]}", "LANG=C.UTF-8",
             f"LD_LIBRARY_PATH=/usr/local/cuda-{ctx.era['cuda']}/lib64:/usr/local/nvidia/lib64",
             f"MASTER_ADDR={ctx.ips[0] if ctx.nhost > 1 else '127.0.0.1'}", f"MASTER_PORT={ctx.master_port}"]
    if ctx.nccl_debug:
        lines.append("NCCL_DEBUG=INFO")
    if ctx.p2p_disabled:
        lines.append("NCCL_P2P_DISABLE=1")
        lines.append("NCCL_IB_DISABLE=1")
    if ctx.nhost > 1 and rng.random() < 0.6:
        lines.append(f"NCCL_SOCKET_IFNAME={ctx.iface}")
    lines.append(f"PATH={ctx.py.rsplit('/', 1)[0]}:/usr/local/cuda/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin")
    lines.append("PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True" if rng.random() < 0.3 else "OMP_NUM_THREADS=8")
    lines.append("TOKENIZERS_PARALLELISM=false" if rng.random() < 0.5 else "TRANSFORMERS_CACHE=/data/hf_cache")
    if ctx.wandb:
        lines.append(f"WANDB_PROJECT={pick(rng, ['llm-sft', 'huggingface'])}")
        lines.append("WANDB_API_KEY=<redacted>")
    lines.append("HF_TOKEN=hf_***")
    lines.sort()
    return lines


# ----------------------------------------------------------------------------------------
# cause scenarios
# ----------------------------------------------------------------------------------------

def pick_rank(ctx, prefer0=False):
    rng = ctx.rng
    if prefer0 and rng.random() < 0.6:
        return 0
    if ctx.world > 32:
        h = rng.randrange(ctx.nhost)
        return h * ctx.gpn + rng.randrange(ctx.gpn)
    return rng.randrange(ctx.world)


def begin(st, g=None, h=None):
    ctx = st.ctx
    set_init(ctx, g, h)
    launcher_start(st)
    return emit_startup(st)


def peers_notice_local_death(st, g, t):
    """NCCL INFO proxy lines on local peers when a local rank's process died."""
    ctx = st.ctx
    if not ctx.nccl_debug:
        return
    h = rank_host(ctx, g)
    for p in range(h * ctx.gpn, (h + 1) * ctx.gpn):
        if p == g or p not in ctx.detail_ranks:
            continue
        if ctx.rng.random() < 0.6:
            st.r(p, t + ctx.rng.uniform(0.01, 0.3), f"{nccl_prefix(ctx, p, ctx.pid[p] + 211)} NCCL INFO [Service thread] Connection closed by localRank {rank_local(ctx, g)}", ("nccl", "C", "Rloc"), err=False)


def remote_fallout(st, g_or_none, t_dead, dead_hosts, exits, seq=None):
    """Multi-node: ranks on the other hosts fail by async error or by watchdog timeout."""
    ctx = st.ctx
    if ctx.nhost == 1:
        return exits
    mode = "async" if ctx.rng.random() < 0.6 else "timeout"
    seq = seq or (ctx.last_step * pick(ctx.rng, [1, 2, 4]) + ctx.rng.randrange(1, 50))
    return collateral_remote(st, t_dead, dead_hosts, mode, exits, seq, init=g_or_none)


def sc_cuda_oom(st):
    ctx = st.ctx
    rng = ctx.rng
    variant = pick(rng, ["train", "train", "train", "eval"])
    g = 0 if variant == "eval" else pick_rank(ctx)
    if ctx.world == 1:
        g = 0
    t0 = begin(st, g)
    t_fail = t0 + rng.uniform(40, 5000)
    emit_training(st, t0, t_fail)
    t_fail = ctx.t_last_step + rng.uniform(0.5, ctx.dt)
    l = rank_local(ctx, g)
    total = GPUS[ctx.gpu][2]
    tried = rng.choice([0.25, 0.5, 0.98, 1.96, 3.91, 7.83, rng.uniform(0.1, 6)])
    free = rng.uniform(0.01, min(tried * 0.9, 1.5))
    inuse = total - free - rng.uniform(0, 0.4)
    alloc = inuse * rng.uniform(0.75, 0.95)
    resv = max(0.01, inuse - alloc - rng.uniform(0.2, 0.6))
    if variant == "eval":
        tb = build_tb(ctx, "eval", extra=[(f"{ctx.pyroot}/accelerate/accelerator.py", pick(rng, [2257, 2415]), "gather_for_metrics", "data = self.gather(input_data)"),
                                          (f"{ctx.pyroot}/accelerate/utils/operations.py", pick(rng, [376, 431]), "gather", "return _gpu_gather(tensor)"),
                                          (f"{ctx.pyroot}/accelerate/utils/operations.py", pick(rng, [309, 375]), "_gpu_gather_one", "output_tensors = torch.empty(")])
        st.r(g, t_fail - 200, tqdm_bar(rng.randrange(20, 300), 500, rng.uniform(60, 190), 10), err=True)
    else:
        where = pick(rng, ["forward", "backward", "forward"])
        tb = build_tb(ctx, where, leaf=pick(rng, ["lmhead", "mlp", "attn"]))
    msg = oom_message(ctx, l, tried, total, free, inuse, alloc, resv)
    st.r(g, t_fail, tb, ("Rid",), tb=True)
    st.r(g, t_fail + 0.001, msg, ("K", "Rid", "Rloc"), tb=True)
    peers_notice_local_death(st, g, t_fail + 0.2)
    exits = {g: (t_fail + rng.uniform(0.5, 4), 1)}
    remote_fallout(st, g, t_fail + 1, [rank_host(ctx, g)], exits)
    finish_failure(st, exits, tag_root=g)
    st.notes = (f"Rank {g} ran out of GPU memory ({'evaluation gather of logits on the main process' if variant == 'eval' else 'a long batch in the training step'}) on a "
                f"{GPUS[ctx.gpu][0]}; the other ranks were torn down by the launcher" + (" or failed on the lost peer." if ctx.nhost > 1 else "."))
    st.user_text.append(("Training runs fine for a while and then dies with CUDA out of memory. Other GPUs have memory left, why only one?", ()))


def sc_illegal_memory_access(st):
    ctx = st.ctx
    rng = ctx.rng
    g = pick_rank(ctx)
    variant = pick(rng, ["illegal", "illegal", "assert", "misaligned"])
    t0 = begin(st, g)
    t_fail = t0 + rng.uniform(30, 4000)
    emit_training(st, t0, t_fail)
    t_fail = ctx.t_last_step + rng.uniform(0.5, ctx.dt)
    h, l = rank_host(ctx, g), rank_local(ctx, g)
    xid = None
    if variant == "assert":
        idx = rng.randrange(100, 400)
        kind = pick(rng, ["index", "nll"])
        for i in range(rng.randrange(4, 40)):
            if kind == "index":
                ln = f"../aten/src/ATen/native/cuda/Indexing.cu:{pick(rng, [1141, 1236, 1289, 1308])}: indexSelectLargeIndex: block: [{idx + i // 8},0,0], thread: [{(i * 32) % 128 + rng.randrange(32)},0,0] Assertion `srcIndex < srcSelectDimSize` failed."
            else:
                ln = f"../aten/src/ATen/native/cuda/Loss.cu:{pick(rng, [240, 250])}: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [{i},0,0] Assertion `t >= 0 && t < n_classes` failed."
            st.r(g, t_fail - 0.01 + i * 1e-5, ln, ("K", "Rid") if i == 0 else ("Rid",))
        tb = build_tb(ctx, "forward", leaf="embed" if kind == "index" else "lmhead")
        err = cuda_error(ctx, "device-side assert triggered")
        code = 1
        if rng.random() < 0.3:
            xid = (43, f"pid={ctx.pid[g]}, name=python, Ch {rng.randrange(8, 40):08x}")
    else:
        what = "an illegal memory access was encountered" if variant == "illegal" else "misaligned address"
        tb = build_tb(ctx, pick(rng, ["forward", "backward"]), leaf="attn")
        err = cuda_error(ctx, what)
        if ctx.E >= 3 and rng.random() < 0.5:
            err += f"\nSearch for `{'cudaErrorIllegalAddress' if variant == 'illegal' else 'cudaErrorMisalignedAddress'}' in https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html for more information."
        code = 1 if rng.random() < 0.6 else -6
        gpc = rng.randrange(0, 8)
        if variant == "illegal":
            xid = (31, f"pid={ctx.pid[g]}, name=python, channel 0x{rng.randrange(8, 64):08x}, intr 00000000. MMU Fault: ENGINE GRAPHICS GPC{gpc} GPCCLIENT_T1_{rng.randrange(0, 16)} faulted @ 0x{hexs(rng, 4)}_{hexs(rng, 8)}. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_{pick(rng, ['READ', 'WRITE'])}")
        else:
            xid = (13, f"pid={ctx.pid[g]}, name=python, Graphics SM Warp Exception on (GPC {gpc}, TPC {rng.randrange(0, 9)}, SM {rng.randrange(0, 2)}): Misaligned Address")
    if code == 1:
        st.r(g, t_fail, tb, ("Rid",), tb=True)
        st.r(g, t_fail + 0.001, err, ("K", "Rid"), tb=True)
    else:
        st.r(g, t_fail - 0.002, nccl_warn(ctx, g, t_fail, "enqueue.cc:{}".format(pick(rng, [1556, 1890])), f"Cuda failure '{err.splitlines()[0].split('CUDA error: ')[1]}'"), ("K", "Rid"))
        wd = "NCCL watchdog thread terminated with exception" if ctx.E <= 1 else "Process group watchdog thread terminated with exception"
        st.r(g, t_fail, glog(ctx, g, t_fail, "E", "ProcessGroupNCCL.cpp", {0: 1205, 1: 1316, 2: 1595, 3: 2102}[ctx.E], f"{pg_prefix(ctx, g)} {wd}: CUDA error: {err.splitlines()[0].split('CUDA error: ')[1]}\n" + "\n".join(err.splitlines()[1:])), ("K", f"W{g}", "R"))
        st.r(g, t_fail + 0.001, "Exception raised from c10_cuda_check_implementation at ../c10/cuda/CUDAException.cpp:43 (most recent call first):\n" + cxx_frames(ctx, "err"), ("Rid",))
        st.r(g, t_fail + 0.002, f"terminate called after throwing an instance of '{'std::runtime_error' if ctx.E == 0 else 'c10::DistBackendError'}'\n  what():  {pg_prefix(ctx, g)} {wd}: CUDA error: {err.splitlines()[0].split('CUDA error: ')[1]}", ("Rid",))
    if xid:
        kernel_noise(st, h, -3000, t_fail, rng.randrange(2, 6))
        st.k(h, t_fail - 0.002, f"NVRM: GPU at PCI:{pci_short(ctx, h, l)}: GPU-{uuid_like(rng)}", ("X", "Nid"))
        st.k(h, t_fail - 0.002, f"NVRM: GPU Board Serial Number: {rng.randrange(10**12, 10**13) if GPUS[ctx.gpu][3] else 0}", ())
        st.k(h, t_fail - 0.001, f"NVRM: Xid (PCI:{pci_short(ctx, h, l)}): {xid[0]}, {xid[1]}", ("K", "X", "Xp", "Nid"))
        if rng.random() < 0.5:
            st.k(h, t_fail + 1.5, f"NVRM: Xid (PCI:{pci_short(ctx, h, l)}): 45, pid={ctx.pid[g]}, name=python, Ch {rng.randrange(8, 40):08x}", ("Nid",))
        st.rank_groups += [{"X", f"B{g}"}, {"Xp", f"P{g}"}]
    peers_notice_local_death(st, g, t_fail + 0.3)
    exits = {g: (t_fail + rng.uniform(0.2, 3), code)}
    remote_fallout(st, g, t_fail + 1, [h], exits)
    finish_failure(st, exits, tag_root=g)
    what = {"illegal": "an illegal memory access in a fused attention kernel", "misaligned": "a misaligned-address fault in a custom kernel",
            "assert": "a device-side assert (token / label index out of range)"}[variant]
    st.notes = f"Rank {g} hit {what}; application GPU fault" + (f" (Xid {xid[0]} in the kernel log)" if xid else "") + ", not a hardware problem; the other ranks were collateral."
    st.user_text.append(("Random crash after some steps with CUDA error. Same data works on 1 GPU?", ()))


PY_EXC = [
    ("KeyError", "KeyError: 'output'", "data"),
    ("ValueError", "ValueError: Unable to create tensor, you should probably activate truncation and/or padding with 'padding=True' 'truncation=True' to have batched tensors with the same length. Perhaps your features (`labels` in this case) have excessive nesting (inputs type `list` where type `int` is expected).", "data"),
    ("json", "json.decoder.JSONDecodeError: Expecting ',' delimiter: line 1 column 2291 (char 2290)", "data"),
    ("disk", "RuntimeError: [enforce fail at inline_container.cc:{}] . unexpected pos {} vs {}", "save"),
    ("nospace", "OSError: [Errno 28] No space left on device", "save"),
    ("perm", "PermissionError: [Errno 13] Permission denied: '{}/checkpoint-{}/trainer_state.json'", "save"),
    ("zero", "ZeroDivisionError: division by zero", "eval"),
    ("typeerr", "TypeError: forward() got an unexpected keyword argument 'num_items_in_batch'", "forward"),
    ("assert", "AssertionError: No inf checks were recorded for this optimizer.", "step"),
]


def sc_python_exception(st):
    ctx = st.ctx
    rng = ctx.rng
    kind, line, where = pick(rng, PY_EXC)
    g = 0 if where in ("save", "eval") else pick_rank(ctx)
    t0 = begin(st, g)
    t_fail = t0 + rng.uniform(30, 6000)
    emit_training(st, t0, t_fail)
    t_fail = ctx.t_last_step + rng.uniform(0.3, ctx.dt)
    W = ctx.workdir
    if where == "data":
        extra = [(f"{ctx.pyroot}/torch/utils/data/_utils/fetch.py", pick(rng, [52, 54]), "fetch", "return self.collate_fn(data)"),
                 (f"{W}/{ctx.script if not ctx.script.startswith('-m') else 'collate.py'}", pick(rng, [61, 88, 132]), "__call__" if kind != "KeyError" else "formatting_prompts_func",
                  "text = f\"### Instruction:\\n{ex['instruction']}\\n\\n### Response:\\n{ex['output']}\"" if kind == "KeyError" else "batch = self.tokenizer.pad(features, return_tensors='pt')")]
        if kind == "ValueError":
            extra.append((f"{ctx.pyroot}/transformers/tokenization_utils_base.py", pick(rng, [759, 777, 797]), "convert_to_tensors", "raise ValueError("))
        if kind == "json":
            extra = [(f"{W}/data.py", 44, "__getitem__", "rec = json.loads(self.lines[idx])"),
                     ("/usr/lib/python3.10/json/__init__.py", 346, "loads", "return _default_decoder.decode(s)"),
                     ("/usr/lib/python3.10/json/decoder.py", 337, "decode", "obj, end = self.raw_decode(s, idx=_w(s, 0).end())"),
                     ("/usr/lib/python3.10/json/decoder.py", 353, "raw_decode", "obj, end = self.scan_once(s, idx)")]
        tb = build_tb(ctx, "data", extra=extra)
    elif where == "save":
        step = (ctx.last_step // 500 + 1) * 500 if ctx.last_step >= 100 else 100
        extra = [(f"{ctx.pyroot}/transformers/trainer.py", pick(rng, [3235, 3300, 3471]), "_save_checkpoint", "self._save_optimizer_and_scheduler(output_dir)"),
                 (f"{ctx.pyroot}/transformers/trainer.py", pick(rng, [3375, 3407, 3576]), "_save_optimizer_and_scheduler", "torch.save(self.optimizer.state_dict(), os.path.join(output_dir, OPTIMIZER_NAME))"),
                 (f"{ctx.pyroot}/torch/serialization.py", pick(rng, [628, 850, 965]), "save", "with _open_zipfile_writer(f) as opened_zipfile:")]
        tb = build_tb(ctx, "save", extra=extra)
        if kind == "disk":
            pos = rng.randrange(10**8, 4 * 10**9)
            line = line.format(pick(rng, [419, 588, 603, 778]), pos, pos - rng.randrange(50, 200))
        elif kind == "perm":
            line = line.format("/mnt/shared/out", step)
    elif where == "eval":
        tb = build_tb(ctx, "eval", extra=[(f"{W}/{ctx.script}", pick(rng, [77, 103]), "compute_metrics", "return {'f1': tp / (tp + fp)}")])
    elif where == "step":
        tb = build_tb(ctx, "step", extra=[(f"{ctx.pyroot}/torch/amp/grad_scaler.py", pick(rng, [451, 454]), "step", "len(optimizer_state[\"found_inf_per_device\"]) > 0")])
    else:
        tb = build_tb(ctx, "forward", leaf="mlp")
    st.r(g, t_fail, tb, ("Rid",), tb=True)
    st.r(g, t_fail + 0.001, line, ("K", "Rid"), tb=True)
    peers_notice_local_death(st, g, t_fail + 0.2)
    exits = {g: (t_fail + rng.uniform(0.3, 3), 1)}
    remote_fallout(st, g, t_fail + 1, [rank_host(ctx, g)], exits)
    finish_failure(st, exits, tag_root=g)
    st.notes = f"Uncaught Python exception ({line.split(':')[0]}) on rank {g} while {dict(save='saving a checkpoint', data='collating a batch', eval='computing evaluation metrics', step='stepping the optimizer').get(where, 'running the forward pass')}; everything else is teardown."


def sc_host_oom_kill(st):
    ctx = st.ctx
    rng = ctx.rng
    g = pick_rank(ctx, prefer0=True)
    h = rank_host(ctx, g)
    t0 = begin(st, g)
    phase = pick(rng, ["load", "train", "train"])
    if phase == "load":
        t_fail = t0 - rng.uniform(5, 30)
        ctx.t_last_step = t_fail
        ctx.last_step = 0
        ctx.dt = pick_dt(ctx)
        ctx.total_steps = 1000
        ctx.bar_width = 10
    else:
        t_fail = t0 + rng.uniform(60, 5000)
        emit_training(st, t0, t_fail)
        t_fail = ctx.t_last_step + rng.uniform(0.5, ctx.dt)
    pid = ctx.pid[g]
    cg = ctx.kind in ("k8s",) or (ctx.kind == "cloud" and rng.random() < 0.3) or ctx.layout == "slurm"
    kernel_noise(st, h, -4000, t_fail, rng.randrange(2, 5))
    total_vm = rng.randrange(60, 300) * 1024 * 1024
    rss = rng.randrange(20, 120) * 1024 * 1024
    st.k(h, t_fail - 0.05, f"python invoked oom-killer: gfp_mask=0x{pick(rng, ['140cca', '100cca', '1100dca'])}(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0", ("Nid",))
    st.k(h, t_fail - 0.04, f"CPU: {rng.randrange(0, 64)} PID: {pid + rng.randrange(1, 30)} Comm: python Not tainted 5.15.0-{rng.randrange(80, 130)}-generic #{rng.randrange(90, 140)}-Ubuntu", ())
    if cg:
        lim = rng.randrange(60, 500) * 1048576
        st.k(h, t_fail - 0.02, f"memory: usage {lim}kB, limit {lim}kB, failcnt {rng.randrange(1, 9000)}", ())
        pre = "Memory cgroup out of memory"
    else:
        st.k(h, t_fail - 0.02, "Mem-Info:", ())
        pre = "Out of memory"
    st.k(h, t_fail, f"{pre}: Killed process {pid} (python) total-vm:{total_vm}kB, anon-rss:{rss}kB, file-rss:{rng.randrange(10000, 900000)}kB, shmem-rss:{rng.randrange(0, 90000)}kB, UID:{pick(rng, [0, 1000, 1001])} pgtables:{rng.randrange(50000, 300000)}kB oom_score_adj:0",
         ("K", "Kp", "Nid"))
    st.k(h, t_fail + 1.2, f"oom_reaper: reaped process {pid} (python), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB", ("Nid",))
    st.rank_groups.append({"Kp", f"P{g}"})
    if ctx.layout == "slurm":
        st.slurm_oom = (h, t_fail + 2)
    exits = {g: (t_fail + 0.01, -9)}
    if ctx.launcher == "notebook" and ctx.world == 1:
        pass
    peers_notice_local_death(st, g, t_fail + 0.1)
    remote_fallout(st, g, t_fail + 1, [h], exits)
    finish_failure(st, exits, tag_root=g)
    st.cgroup_oom = cg
    st.notes = (f"The {'cgroup memory limit' if cg else 'Linux OOM killer'} killed rank {g} (pid {pid}) on {ctx.hosts[h]} "
                f"{'while every rank loaded the full checkpoint into host RAM' if phase == 'load' else 'as host memory grew during training (CPU offload / dataloader workers)'}; exit -9 is the signature.")
    st.user_text.append(("The process just dies with exitcode -9, no Python error at all. GPU memory is fine.", ()))


def sc_crash_signal(st):
    ctx = st.ctx
    rng = ctx.rng
    g = pick_rank(ctx)
    h, l = rank_host(ctx, g), rank_local(ctx, g)
    variant = pick(rng, ["segv", "segv", "bus", "abort"])
    t0 = begin(st, g)
    t_fail = t0 + rng.uniform(30, 5000)
    emit_training(st, t0, t_fail)
    t_fail = ctx.t_last_step + rng.uniform(0.3, ctx.dt)
    P = ctx.pyroot
    if variant == "segv":
        lib = pick(rng, [("bitsandbytes/libbitsandbytes_cuda121.so", "bitsandbytes/functional.py", "optimizer_update_8bit_blockwise"),
                         ("deepspeed/ops/adam/cpu_adam_op.so" if ctx.ds else "torch/lib/libtorch_cpu.so", "deepspeed/ops/adam/cpu_adam.py" if ctx.ds else "torch/optim/adamw.py", "step"),
                         ("tokenizers/tokenizers.cpython-310-x86_64-linux-gnu.so", "transformers/tokenization_utils_fast.py", "_batch_encode_plus")])
        if rng.random() < 0.6:
            tid = f"0x{hexs(rng, 12)}"
            st.r(g, t_fail, "Fatal Python error: Segmentation fault\n\n"
                            f"Thread {tid} (most recent call first):\n"
                            f"  File \"/usr/lib/python3.10/threading.py\", line 324 in wait\n"
                            f"  File \"/usr/lib/python3.10/threading.py\", line 607 in wait\n"
                            f"  File \"{P}/tqdm/_monitor.py\", line 60 in run\n"
                            "  File \"/usr/lib/python3.10/threading.py\", line 1016 in _bootstrap_inner\n"
                            "  File \"/usr/lib/python3.10/threading.py\", line 973 in _bootstrap\n\n"
                            f"Current thread 0x{hexs(rng, 12)} (most recent call first):\n"
                            f"  File \"{P}/{lib[1]}\", line {rng.randrange(200, 2000)} in {lib[2]}\n"
                            f"  File \"{P}/torch/optim/optimizer.py\", line {pick(rng, [385, 487])} in wrapper\n"
                            f"  File \"{P}/accelerate/optimizer.py\", line {pick(rng, [145, 171])} in step\n"
                            f"  File \"{P}/transformers/trainer.py\", line {pick(rng, [2007, 2328, 2593])} in _inner_training_loop\n"
                            f"  File \"{P}/transformers/trainer.py\", line {pick(rng, [1539, 1859, 2123])} in train\n"
                            f"  File \"{ctx.workdir}/{ctx.script if not ctx.script.startswith('-m') else 'train.py'}\", line {rng.randrange(80, 300)} in main\n\n"
                            "Extension modules: numpy.core._multiarray_umath, torch._C, torch._C._fft, yaml._yaml, sentencepiece._sentencepiece (total: 74)", ("K", "Rid"))
        kernel_noise(st, h, -3000, t_fail, rng.randrange(1, 4))
        ip = hexs(rng, 12)
        st.k(h, t_fail + 0.01, f"python[{ctx.pid[g]}]: segfault at {pick(rng, ['0', '18', '8', hexs(rng, 12)])} ip 00007f{ip[:10]} sp 00007ff{hexs(rng, 9)} error {pick(rng, [4, 6, 14])} in {lib[0].split('/')[-1]}[7f{ip[:4]}00000+{hexs(rng, 5)}] likely on CPU {rng.randrange(0, 64)} (core {rng.randrange(0, 32)}, socket 0)",
             ("K", "Kp", "Nid"))
        st.k(h, t_fail + 0.011, "Code: " + " ".join(hexs(rng, 2) for _ in range(24)) + " <" + hexs(rng, 2) + "> " + " ".join(hexs(rng, 2) for _ in range(12)), ())
        st.rank_groups.append({"Kp", f"P{g}"})
        code = -11
        note = f"Rank {g} died of SIGSEGV inside {lib[0].split('/')[-1]} (no GPU or kernel hardware evidence)."
    elif variant == "bus":
        wpid = ctx.pid[g] + rng.randrange(200, 3000)
        st.r(g, t_fail - 0.3, "ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).\n", ("K",))
        tb = build_tb(ctx, "data", extra=[(f"{P}/torch/utils/data/dataloader.py", pick(rng, [1133, 1243, 1251]), "_try_get_data", "data = self._data_queue.get(timeout=timeout)"),
                                           ("/usr/lib/python3.10/multiprocessing/queues.py", 113, "get", "if not self._poll(timeout):"),
                                           (f"{P}/torch/utils/data/_utils/signal_handling.py", 66 if ctx.E < 2 else 73, "handler", "_error_if_any_worker_fails()")])
        st.r(g, t_fail, tb, ("Rid",), tb=True)
        st.r(g, t_fail + 0.001, f"RuntimeError: DataLoader worker (pid {wpid}) is killed by signal: Bus error. It is possible that dataloader's workers are out of shared memory. Please try to raise your shared memory limit.", ("K", "Rid"), tb=True)
        code = 1
        note = f"A DataLoader worker of rank {g} died of SIGBUS (container /dev/shm too small); rank {g} raised and the rest were torn down."
        st.user_text.append(("Running inside docker (`docker run --gpus all -it ...`).", ()))
    else:
        st.r(g, t_fail, pick(rng, ["free(): invalid pointer", "double free or corruption (!prev)", "malloc(): unsorted double linked list corrupted", "corrupted size vs. prev_size"]), ("K", "Rid"))
        code = -6
        note = f"Rank {g} aborted (SIGABRT) on heap corruption in a native extension; no hardware evidence."
    peers_notice_local_death(st, g, t_fail + 0.2)
    exits = {g: (t_fail + 0.05, code)}
    remote_fallout(st, g, t_fail + 1, [h], exits)
    finish_failure(st, exits, tag_root=g)
    st.notes = note


def agent_signal_lines(ctx, h, t, sig=15):
    """torchrun agent receiving a death signal (preemption / scancel)."""
    E = ctx.E
    d = ctx.clock[h].at(t)
    name = {15: "SIGTERM", 2: "SIGINT", 1: "SIGHUP"}[sig]
    if E == 0:
        first = f"WARNING:torch.distributed.elastic.agent.server.api:Received {sig} death signal, shutting down workers"
    elif E == 1:
        first = f"[{ts_iso(d)}] torch.distributed.elastic.agent.server.api: [WARNING] Received {sig} death signal, shutting down workers"
    else:
        path = ("site-packages/" if E == 3 else "") + "torch/distributed/elastic/agent/server/api.py"
        first = f"W{d.strftime('%m%d %H:%M:%S')}.{d.microsecond:06d} {ctx.agent_pid[h]} {path}:{pick(ctx.rng, [704, 719])}] Received Signals.{name} death signal, shutting down workers"
    return first


def sc_preemption(st):
    ctx = st.ctx
    rng = ctx.rng
    L = ctx.layout
    if L == "slurm":
        mode = "slurm"
    elif L == "k8s":
        mode = "k8s"
    elif L == "notebook":
        mode = "notebook"
    else:
        mode = "cloud"
    if mode in ("cloud", "k8s") and ctx.nhost > 1:
        h = rng.randrange(ctx.nhost)
    else:
        h = 0
    if mode == "slurm" or mode == "notebook":
        t0 = begin(st, None, None)
    else:
        t0 = begin(st, None, h)
    t_fail = t0 + rng.uniform(600, 30000)
    emit_training(st, t0, t_fail)
    t_fail = ctx.t_last_step + rng.uniform(0.3, ctx.dt)
    exits = {}
    provider = "gcp"
    if mode == "slurm":
        job = ctx.jobid
        d = ctx.clock[0].at(t_fail)
        # every node's slurmstepd cancels the step; the batch host prints the JOB line
        st.slurm_cancel = (t_fail, f"slurmstepd: error: *** JOB {job} ON {ctx.hosts[0]} CANCELLED AT {d.strftime('%Y-%m-%dT%H:%M:%S')} DUE TO PREEMPTION ***")
        for hh in ctx.detail_hosts:
            if ctx.launcher in ("deepspeed", "srun_deepspeed"):
                ll = ds_launch_lines(ctx)
                st.l(hh, t_fail + 0.05, ds_log(ctx, hh, t_fail + 0.05, "INFO", ll["kill"].replace("sigkill_handler", "sigkill_handler"), "Main process received SIGTERM, exiting"), ("K",))
                for l in range(ctx.gpn):
                    g = hh * ctx.gpn + l
                    st.l(hh, t_fail + 0.06, ds_log(ctx, hh, t_fail + 0.06, "INFO", ll["kill"], f"Killing subprocess {ctx.pid[g]}"))
                continue
            st.l(hh, t_fail + 0.05, agent_signal_lines(ctx, hh, t_fail + 0.05), ("K",))
            for l in range(ctx.gpn):
                g = hh * ctx.gpn + l
                st.l(hh, t_fail + 0.06, agent_log(ctx, hh, t_fail + 0.06, "W", "api", f"Sending process {ctx.pid[g]} closing signal SIGTERM"))
        note = "The lab's Slurm preempted the job (preemptible partition): every node got SIGTERM from slurmstepd; no rank failed on its own."
    elif mode == "notebook":
        st.r(0, t_fail, "", ())
        st.notebook_killed = t_fail
        note = "The notebook session was ended by the platform (session time limit) while training was healthy; the output simply stops / shows the kernel being stopped."
        st.user_text.append(("Training was going fine and then the session ended, I lost ~9 hours of training. Is this a bug in the trainer?", ()))
    else:
        provider = {"ip-": "aws"}.get(ctx.hosts[h][:3], "gcp" if ctx.kind in ("cloud",) else "k8s")
        if mode == "k8s":
            provider = "k8s"
        # the agent on the reclaimed VM gets SIGTERM (ACPI shutdown), then the VM is gone
        st.l(h, t_fail, agent_signal_lines(ctx, h, t_fail), ("K", "Nid"))
        for l in range(ctx.gpn):
            g = h * ctx.gpn + l
            st.l(h, t_fail + 0.01, agent_log(ctx, h, t_fail, "W", "api", f"Sending process {ctx.pid[g]} closing signal SIGTERM"), ("Nid",))
        if rng.random() < 0.6:
            P = ctx.pyroot
            st.l(h, t_fail + rng.uniform(0.5, 8), torchrun_traceback(ctx, ctx.launcher).rsplit("\n", 2)[0] + "\n" + tb_frames(ctx, [
                (f"{P}/torch/distributed/launcher/api.py", {0: 241, 1: 255, 2: 260, 3: 260}[ctx.E], "launch_agent", "result = agent.run()"),
                (f"{P}/torch/distributed/elastic/metrics/api.py", 123 if ctx.E < 2 else 137, "wrapper", "result = f(*args, **kwargs)"),
                (f"{P}/torch/distributed/elastic/agent/server/api.py", {0: 723, 1: 727, 2: 696, 3: 711}[ctx.E], "run", "result = self._invoke_run(role)"),
                (f"{P}/torch/distributed/elastic/agent/server/api.py", {0: 864, 1: 868, 2: 855, 3: 870}[ctx.E], "_invoke_run", "time.sleep(monitor_interval)"),
                (f"{P}/torch/distributed/elastic/multiprocessing/api.py", {0: 62, 1: 62, 2: 84, 3: 84}[ctx.E], "_terminate_process_handler", "raise SignalException(f\"Process {os.getpid()} got signal: {sigval}\", sigval=sigval)")])
                 + f"\ntorch.distributed.elastic.multiprocessing.api.SignalException: Process {ctx.agent_pid[h]} got signal: 15", ("K", "Nid"))
        st.gone = (h, t_fail + rng.uniform(5, 30))
        for l in range(ctx.gpn):
            g = h * ctx.gpn + l
            if rng.random() < 0.3 and g in ctx.detail_ranks:
                st.r(g, t_fail + 0.02, f"wandb: WARNING Received signal SIGTERM" if (g == 0 and ctx.wandb) else "", ())
        collateral_remote(st, t_fail + 2, [h], "async" if rng.random() < 0.7 else "timeout", exits,
                          ctx.last_step * 2 + rng.randrange(1, 20), peer_host=h)
        for g, (t, c) in list(exits.items()):
            pass
        note = (f"{'Spot VM' if provider != 'k8s' else 'Spot node'} {ctx.hosts[h]} was reclaimed by the cloud provider: its agent got SIGTERM and the VM vanished; "
                "ranks on the other hosts failed on the lost peers.")
        st.user_text.append(("We are using spot instances to save money. The job died in the middle of the night.", ()))
    ctx.preempt = (mode, h, t_fail, provider)
    finish_failure(st, exits, gone_hosts=[h] if mode in ("cloud", "k8s") else [])
    st.notes = note


def pyspy_dump(ctx, g, stack, status="idle", cmd=None):
    pid = ctx.pid[g]
    if cmd is None:
        cmd = " ".join([ctx.py, "-u", ctx.script] + ([f"--local_rank={rank_local(ctx, g)}"] if ctx.launcher in ("deepspeed", "srun_deepspeed") else []) + user_cmd_args_cached(ctx)[:6])
    lines = [f"Process {pid}: {cmd}", f"Python v{ctx.era['py']} ({ctx.py})", "",
             f"Thread {pid} ({status}): \"MainThread\""]
    for fn, loc in stack:
        lines.append(f"    {fn} ({loc})")
    return lines


STACK_ALLREDUCE = [("all_reduce", "torch/distributed/distributed_c10d.py:2501"),
                   ("wrapper", "torch/distributed/c10d_logger.py:83"),
                   ("_reduce_grads", "accelerate/accelerator.py:2203"),
                   ("backward", "torch/_tensor.py:581")]


def sc_hang(st):
    ctx = st.ctx
    rng = ctx.rng
    variant = pick(rng, ["wandb_prompt", "deadlock", "deadlock", "cuda_spin"]) if ctx.layout != "notebook" else "deadlock"
    if variant == "wandb_prompt" and ctx.fw in ("torchtune", "dschat", "swift"):
        variant = "deadlock"
    g = 0 if variant == "wandb_prompt" else pick_rank(ctx)
    if ctx.world > 32 and variant != "wandb_prompt":
        g = pick_rank(ctx)
    h, l = rank_host(ctx, g), rank_local(ctx, g)
    t0 = begin(st, g)
    if variant == "wandb_prompt":
        ctx.wandb = False
        t_stuck = t0 - 1
        st.r(0, t_stuck, "wandb: (1) Create a W&B account\nwandb: (2) Use an existing W&B account\nwandb: (3) Don't visualize my results\nwandb: Enter your choice: ", ("K", "R"), err=False)
        ctx.dt = pick_dt(ctx)
        ctx.total_steps = 1000
        ctx.last_step = 0
        ctx.t_last_step = t_stuck
        ctx.bar_width = 10
        seq = 1 if ctx.E >= 1 else 2
        op, numel = "ALLREDUCE", rng.randrange(10**7, 2 * 10**8)
        note = "Rank 0 blocked on the interactive W&B login prompt (no TTY) before the first step; every other rank timed out in the first all-reduce."
        st.user_text.append(("It gets stuck at the very beginning, GPUs show 100% utilization but no progress, then after 30 minutes it crashes with NCCL timeout.", ()))
    else:
        t_stuck = t0 + rng.uniform(100, 6000)
        emit_training(st, t0, t_stuck)
        seq = ctx.last_step * pick(rng, [1, 2]) + rng.randrange(1, 30)
        op, numel = pick(rng, [("ALLREDUCE", rng.randrange(10**6, 3 * 10**8)), ("_ALLGATHER_BASE", rng.randrange(10**5, 10**8)), ("_REDUCE_SCATTER_BASE", rng.randrange(10**6, 3 * 10**8))]) if ctx.ds else ("ALLREDUCE", rng.randrange(10**6, 3 * 10**8))
        if variant == "deadlock":
            note = f"Rank {g} stopped progressing (Python-level deadlock in a logging/queue thread) while every other rank waited in collective {seq} and hit the watchdog timeout."
        else:
            note = f"Rank {g} stopped progressing (kernel spinning forever in a custom loss op, GPU busy but no progress) while the others waited in collective {seq} and hit the watchdog timeout."
        st.user_text.append(("Training freezes randomly after a few hours. No error until the NCCL timeout.", ()))
    exits = {}
    t_to = ctx.t_last_step + ctx.timeout_ms / 1000
    for p in ctx.detail_ranks:
        if p == g:
            continue
        tt = t_to + rng.uniform(0, 2.5)
        watchdog_timeout(st, p, tt, seq, op, numel, last_done=seq - 1, tags=("C",))
        exits[p] = (tt + 0.02, -6)
    # evidence: py-spy of the stuck rank, nvidia-smi, per-rank silence
    spy = []
    if variant == "deadlock":
        stack = [("wait", "threading.py:320"), ("get", "queue.py:171"), ("log_metrics", f"{ctx.workdir}/utils/logging_cb.py:58"),
                 ("on_log", f"{ctx.workdir}/utils/logging_cb.py:91"), ("call_event", "transformers/trainer_callback.py:504"),
                 ("_maybe_log_save_evaluate", "transformers/trainer.py:3022"), ("_inner_training_loop", "transformers/trainer.py:2524"), ("train", "transformers/trainer.py:2123")]
        spy = pyspy_dump(ctx, g, stack, "idle")
    elif variant == "cuda_spin":
        stack = [("synchronize", "torch/cuda/__init__.py:954"), ("compute_loss", f"{ctx.workdir}/losses.py:77"),
                 ("training_step", "transformers/trainer.py:3612"), ("_inner_training_loop", "transformers/trainer.py:2481"), ("train", "transformers/trainer.py:2123")]
        spy = pyspy_dump(ctx, g, stack, "active")
    else:
        stack = [("readline", "<frozen codecs>:322"), ("_prompt_api_key", "wandb/sdk/wandb_login.py:210"), ("login", "wandb/sdk/wandb_login.py:79"),
                 ("setup", "transformers/integrations/integration_utils.py:820"), ("on_train_begin", "transformers/integrations/integration_utils.py:846"),
                 ("train", "transformers/trainer.py:2123")]
        spy = pyspy_dump(ctx, g, stack, "idle")
    st.pyspy = [(x, (("Rloc", "Kp") if "--local_rank" in x else ("Kp",)) if i == 0 else ()) for i, x in enumerate(spy)]
    st.rank_groups.append({"Kp", f"P{g}"})
    other = next((p for p in ctx.detail_ranks if p != g and rank_host(ctx, p) == h), None)
    if other is not None:
        st.pyspy_other = pyspy_dump(ctx, other, [(a, b) for a, b in STACK_ALLREDUCE], "active")
    rows = {l: dict(util=0 if variant != "cuda_spin" else 100, pwr=int(GPUS[ctx.gpu][5] * 0.2), temp=rng.randrange(35, 50))}
    st.smi_rows = (h, t_to - rng.uniform(60, 400), rows, {l: ("Rloc",)} if variant != "cuda_spin" else {})
    if ctx.world <= 8:
        st.rank_groups.append({f"W{p}" for p in ctx.detail_ranks if p != g})
    finish_failure(st, exits, stuck=[g], tag_root=None)
    st.notes = note


def sc_data_loader_stall(st):
    ctx = st.ctx
    rng = ctx.rng
    variant = pick(rng, ["preprocess", "preprocess", "nfs", "timeout"])
    g = 0 if variant == "preprocess" else pick_rank(ctx)
    h, l = rank_host(ctx, g), rank_local(ctx, g)
    t0 = begin(st, g)
    exits = {}
    if variant == "preprocess":
        # main_process_first(): rank 0 tokenizes, everybody else waits in a barrier (ALLREDUCE of 1 element)
        t_bar = t0 - rng.uniform(20, 60)
        ctx.dt = pick_dt(ctx)
        ctx.total_steps = 1000
        ctx.last_step = 0
        ctx.t_last_step = t_bar
        ctx.bar_width = 10
        n = rng.randrange(300000, 3000000)
        rate = n / (ctx.timeout_ms / 1000 * rng.uniform(1.3, 3.0))
        npr = pick(rng, [8, 16, 32, 64])
        desc = "Running tokenizer on dataset (num_proc={})".format(npr) if ctx.fw == "llamafactory" else "Map (num_proc={})".format(npr)
        steps = [int(n * f) for f in [x / 200 for x in range(0, 200)] if f * n / rate < ctx.timeout_ms / 1000 + 30]
        bar = "\r".join(tqdm_bar(k, n, k / rate, 10, desc, "examples") for k in steps[::3])
        st.r(0, t_bar + ctx.timeout_ms / 1000 + 20, bar, ("K", "Rid"))
        seq = 1 if ctx.E >= 1 else 2
        for p in ctx.detail_ranks:
            if p == g:
                continue
            tt = t_bar + ctx.timeout_ms / 1000 + rng.uniform(0, 2)
            watchdog_timeout(st, p, tt, seq, "ALLREDUCE", 1, last_done=seq - 1 if seq > 1 else -1 if ctx.E >= 3 else 0, tags=("C",))
            exits[p] = (tt + 0.02, -6)
        if ctx.world <= 8:
            st.rank_groups.append({f"W{p}" for p in ctx.detail_ranks if p != g})
        note = (f"Rank 0 was still tokenizing the dataset inside main_process_first() when the {ctx.timeout_ms // 60000}-minute collective timeout expired; "
                "every other rank timed out in the barrier (ALLREDUCE, NumelIn=1).")
        st.user_text.append(("Works with a small dataset. With the full dataset (2M samples) it always crashes with NCCL timeout after 30 min, before training starts.", ()))
    else:
        t_s = t0 + rng.uniform(200, 8000)
        emit_training(st, t0, t_s)
        seq = ctx.last_step * pick(rng, [1, 2]) + rng.randrange(1, 20)
        numel = rng.randrange(10**6, 3 * 10**8)
        t_to = ctx.t_last_step + ctx.timeout_ms / 1000
        for p in ctx.detail_ranks:
            if p == g:
                continue
            tt = t_to + rng.uniform(0, 2.5)
            watchdog_timeout(st, p, tt, seq, "ALLREDUCE", numel, tags=("C",))
            exits[p] = (tt + 0.02, -6)
        srv = pick(rng, ["nas01", "filer2", "10.0.0.250", "storage-1.lab.internal"])
        if variant == "nfs":
            kernel_noise(st, h, -2000, ctx.t_last_step, 2)
            st.k(h, ctx.t_last_step + rng.uniform(5, 60), f"nfs: server {srv} not responding, still trying", ("K", "Nid"))
            wpid = ctx.pid[g] + rng.randrange(100, 900)
            st.k(h, ctx.t_last_step + 245, f"INFO: task pt_data_worker:{wpid} blocked for more than 241 seconds.", ("K", "Nid"))
            st.k(h, ctx.t_last_step + 245.001, f"      Not tainted 5.15.0-{rng.randrange(80, 130)}-generic #{rng.randrange(90, 140)}-Ubuntu", ())
            st.k(h, ctx.t_last_step + 245.002, "\"echo 0 > /proc/sys/kernel/hung_task_timeout_secs\" disables this message.", ())
            stack = [("_poll", "multiprocessing/connection.py:424"), ("poll", "multiprocessing/connection.py:257"), ("get", "multiprocessing/queues.py:113"),
                     ("_try_get_data", "torch/utils/data/dataloader.py:1133"), ("_get_data", "torch/utils/data/dataloader.py:1294"),
                     ("_next_data", "torch/utils/data/dataloader.py:1328"), ("__next__", "torch/utils/data/dataloader.py:631"),
                     ("__iter__", "accelerate/data_loader.py:454"), ("_inner_training_loop", "transformers/trainer.py:2440")]
            spy = pyspy_dump(ctx, g, stack, "idle")
            st.pyspy = [(x, (("Rloc", "Kp") if "--local_rank" in x else ("Kp",)) if i == 0 else ()) for i, x in enumerate(spy)]
            st.rank_groups.append({"Kp", f"P{g}"})
            note = f"Rank {g}'s DataLoader workers blocked on an unresponsive NFS server ({srv}); the other ranks waited in the gradient all-reduce until the watchdog fired."
            st.user_text.append((f"Dataset is on our NFS share ({srv}). Training hangs at a random step then NCCL timeout.", ()))
        else:
            tsec = pick(rng, [120, 300, 600])
            tf = ctx.t_last_step + tsec
            tb = build_tb(ctx, "data", extra=[(f"{ctx.pyroot}/torch/utils/data/dataloader.py", pick(rng, [1146, 1256]), "_try_get_data", "raise RuntimeError(f'DataLoader timed out after {self._timeout} seconds') from e")])
            st.r(g, tf, tb, ("Rid",), tb=True)
            st.r(g, tf + 0.001, f"RuntimeError: DataLoader timed out after {tsec} seconds", ("K", "Rid"), tb=True)
            exits[g] = (tf + 0.5, 1)
            note = f"Rank {g}'s DataLoader (streaming from a remote bucket) stalled and hit its own {tsec}s DataLoader timeout; the others were waiting in the all-reduce."
        if ctx.world <= 8:
            st.rank_groups.append({f"W{p}" for p in ctx.detail_ranks if p != g})
    finish_failure(st, exits, tag_root=g if variant == "timeout" else None)
    st.notes = note


def fingerprint(op, shape, dtype="BFloat16"):
    return (f"CollectiveFingerPrint(SequenceNumber={{seq}}, OpType={op}, TensorShape=[{shape}], TensorDtypes={dtype}, TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda, "
            "layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt)))")


def sc_collective_mismatch(st):
    ctx = st.ctx
    rng = ctx.rng
    variant = pick(rng, ["detail", "timeouts", "uneven"])
    if ctx.world > 8 and variant != "detail":
        variant = pick(rng, ["detail", "timeouts"])
    g = 0 if variant in ("detail",) and rng.random() < 0.7 else pick_rank(ctx)
    if variant == "detail" and g != 0 and rng.random() < 0.5:
        g = 0
    t0 = begin(st, g)
    t_m = t0 + rng.uniform(100, 5000)
    emit_training(st, t0, t_m)
    seq = ctx.last_step * pick(rng, [1, 2]) + rng.randrange(1, 10)
    big = rng.randrange(10**7, 3 * 10**8)
    exits = {}
    if variant == "detail":
        odd = (pick(rng, ["ALLGATHER", "BROADCAST", "_ALLGATHER_BASE"]), str(rng.randrange(1, 64)), "Long")
        norm = ("ALLREDUCE", str(big), "BFloat16")
        t_e = ctx.t_last_step + rng.uniform(0.2, 3)
        for p in ctx.detail_ranks:
            if p == g:
                continue
            a, b = (g, p) if rng.random() < 0.5 else (p, g)
            fa = fingerprint(*(odd if a == g else norm)).replace("{seq}", str(seq))
            fb = fingerprint(*(odd if b == g else norm)).replace("{seq}", str(seq))
            diff = f"Collectives differ in the following aspects: \t Op type: {odd[0] if a == g else norm[0]}vs {odd[0] if b == g else norm[0]}  Tensor Tensor shapes: {odd[1] if a == g else norm[1]}vs {odd[1] if b == g else norm[1]}"
            msg = f"RuntimeError: Detected mismatch between collectives on ranks. Rank {a} is running collective: {fa}, but Rank {b} is running collective: {fb}.{diff}"
            tb = build_tb(ctx, "backward" if p != g else "eval")
            tt = t_e + rng.uniform(0, 0.5)
            st.r(p, tt, tb, (), tb=True)
            st.r(p, tt + 0.001, msg, ("K", f"M{p}"), tb=True)
            exits[p] = (tt + 0.3, 1)
        note = (f"Rank {g} issued an extra {odd[0]} (metrics gathered only on the main process) while the other ranks were in the gradient ALLREDUCE; "
                "TORCH_DISTRIBUTED_DEBUG=DETAIL reported the mismatch.")
        st.code_snippet = ("if trainer.is_world_process_zero():\n    metrics = trainer.evaluate()   # only rank 0 evaluates\n    print(metrics)" if g == 0 else
                           f"if dist.get_rank() == {g}:\n    all_scores = accelerator.gather(scores)  # debug print on one rank")
        st.rank_groups.append({"snippet"})
        st.env_extra = ["TORCH_DISTRIBUTED_DEBUG=DETAIL"]
        if 3 <= ctx.world <= 8:
            st.rank_groups.append({f"M{p}" for p in ctx.detail_ranks if p != g})
    else:
        t_to = ctx.t_last_step + ctx.timeout_ms / 1000
        if variant == "timeouts":
            odd_op, odd_n = pick(rng, [("BROADCAST", rng.randrange(1, 100)), ("ALLGATHER", rng.randrange(1, 64)), ("ALLREDUCE", 1)])
            note = f"Rank {g} entered a different collective ({odd_op}, {odd_n} elements) at sequence {seq} than its peers (ALLREDUCE of {big} gradients); all ranks timed out, rank {g} is the odd one out."
        else:
            odd_op, odd_n = "ALLREDUCE", 1
            note = f"Rank {g} ran out of batches (unevenly sharded IterableDataset) and entered the end-of-epoch ALLREDUCE of one element while its peers were still all-reducing gradients; every rank timed out."
            st.user_text.append(("I use an IterableDataset with `split_dataset_by_node`. It hangs at the end of the first epoch.", ()))
        for p in ctx.detail_ranks:
            tt = t_to + rng.uniform(0, 2.5)
            if p == g:
                watchdog_timeout(st, p, tt, seq, odd_op, odd_n, tags=("C", "odd"))
            else:
                watchdog_timeout(st, p, tt, seq, "ALLREDUCE", big, tags=("C",))
            exits[p] = (tt + 0.02, -6)
        if 3 <= ctx.world <= 8:
            st.rank_groups.append({f"W{p}" for p in ctx.detail_ranks} | {"odd"})
    finish_failure(st, exits, tag_root=None)
    st.notes = note


def sc_straggler(st):
    ctx = st.ctx
    rng = ctx.rng
    variant = pick(rng, ["thermal", "thermal", "pcie_x4"]) if ctx.kind == "ws" else pick(rng, ["thermal", "clocks"])
    g = pick_rank(ctx)
    if ctx.kind == "ws" and ctx.gpn > 2 and variant == "thermal" and rng.random() < 0.6:
        g = ctx.gpn // 2  # the card sandwiched in the middle
    h, l = rank_host(ctx, g), rank_local(ctx, g)
    t0 = begin(st, g)
    slow = rng.uniform(1.5, 2.6)
    finish = rng.random() < 0.5
    t_end = t0 + rng.uniform(1500, 9000)
    n = emit_training(st, t0, t_end, finish=finish, slow_factor=slow)
    t_end = ctx.t_last_step + 2
    # per-rank timing printed by a user callback every N steps (rank-local, before the all-reduce)
    if rng.random() < 0.75:
        every = pick(rng, [50, 100, 200])
        base = ctx.dt / slow * rng.uniform(0.8, 0.95)
        for s in range(every, n + 1, every):
            ts = t0 + 5 + s * ctx.dt
            for p in ctx.detail_ranks:
                f = slow * rng.uniform(0.95, 1.05) if p == g else rng.uniform(0.97, 1.03)
                txt = f"[rank {p}] step {s}: data {rng.uniform(0.005, 0.03):.3f}s fwd {base * 0.35 * f:.3f}s bwd {base * 0.6 * f:.3f}s"
                st.r(p, ts + rng.random() * 0.05, txt, (f"T{p}",) + (("R", "K") if p == g else ()), err=False)
    rows = {}
    tags_for = {}
    extra = []
    if variant == "thermal":
        for ll in range(ctx.gpn):
            rows[ll] = dict(temp=rng.randrange(58, 74), util=100, pwr=int(GPUS[ctx.gpu][5] * rng.uniform(0.8, 0.97)))
        rows[l] = dict(temp=rng.randrange(86, 92), util=100, pwr=int(GPUS[ctx.gpu][5] * rng.uniform(0.45, 0.6)), fan=100)
        tags_for[l] = ("Rloc", "K")
        q = ["index, temperature.gpu, clocks.sm [MHz], clocks.max.sm [MHz], power.draw [W], clocks_throttle_reasons.active"]
        mx = {"3090": 2100, "4090": 2790, "5090": 2900, "a6000": 2100, "a100": 1410, "a100_40": 1410, "h100": 1980, "l40s": 2520, "a10g": 1710, "h100_pcie": 1755, "t4": 1590}[ctx.gpu]
        for ll in range(ctx.gpn):
            if ll == l:
                q.append((f"{ll}, {rows[ll]['temp']}, {int(mx * rng.uniform(0.42, 0.6))}, {mx}, {rows[ll]['pwr']:.2f}, 0x{pick(rng, ['0000000000000060', '0000000000000020', '0000000000000040'])}"))
            else:
                q.append(f"{ll}, {rows[ll]['temp']}, {int(mx * rng.uniform(0.9, 1.0))}, {mx}, {rows[ll]['pwr']:.2f}, 0x0000000000000000")
        extra = [(x, ("Rloc", "K") if i == l + 1 else ()) for i, x in enumerate(q)]
        note = f"GPU {l} on {ctx.hosts[h]} (rank {g}) is thermally throttled (~90C, SM clock roughly halved), so every synchronous step waits for it."
        st.user_text.append(("4 GPUs are barely faster than 2. One card seems to run hotter, the fans are at 100%. Is this expected with DDP?", ()))
    elif variant == "pcie_x4":
        q = ["$ nvidia-smi -q | grep -A 3 'Link Width'"]
        for ll in range(ctx.gpn):
            cur = "4x" if ll == l else "16x"
            q += [f"            Link Width", f"                Max                               : 16x", f"                Current                           : {cur}"]
        extra = [(x, ("Rloc", "K") if "4x" in x else ()) for x in q]
        extra.append((f"$ sudo lspci -vv -s {pci_short(ctx, h, l)[5:]}.0 | grep LnkSta:", ()))
        extra.append(("\t\tLnkSta:\tSpeed 16GT/s, Width x4 (downgraded)", ("K",)))
        note = f"GPU {l} (rank {g}) sits in a chipset slot running PCIe x4; its all-reduce traffic makes every step wait for it (communication straggler)."
        st.user_text.append(("Scaling from 2 to 4 GPUs makes it slower. NCCL is using SHM, P2P is disabled (RTX 4090).", ()))
    else:
        for ll in range(ctx.gpn):
            rows[ll] = dict(util=100)
        rows[l] = dict(util=100, pwr=int(GPUS[ctx.gpu][5] * 0.5), perf="P0")
        q = [f"$ nvidia-smi -q -d PERFORMANCE -i {l}", "", f"==============NVSMI LOG==============", "",
             f"GPU {pci_full(ctx, h, l)}", "    Clocks Event Reasons" if ctx.E >= 2 else "    Clocks Throttle Reasons",
             "        Idle                              : Not Active", "        Applications Clocks Setting       : Not Active",
             "        SW Power Cap                      : Not Active", "        HW Slowdown                       : Active",
             "            HW Thermal Slowdown           : Not Active", "            HW Power Brake Slowdown       : Active",
             "        Sync Boost                        : Not Active", "        SW Thermal Slowdown               : Not Active"]
        extra = [(x, ("Rloc", "K") if i == 0 or "Active" in x and "Not" not in x else ()) for i, x in enumerate(q)]
        tags_for[l] = ()
        note = f"GPU {l} on {ctx.hosts[h]} (rank {g}) is held at low clocks by HW power-brake slowdown; the whole job runs at its pace."
    st.smi_rows = (h, t_end - rng.uniform(100, 1000), rows, tags_for)
    st.straggler_extra = (h, extra)
    if finish:
        emit_finish(st, ctx.t_last_step + 2)
    else:
        # the user stopped it with Ctrl-C
        tt = ctx.t_last_step + 3
        for hh in ctx.detail_hosts:
            if ctx.launcher in ("torchrun", "accelerate", "llamafactory", "srun_torchrun", "srun_accelerate"):
                st.l(hh, tt, agent_signal_lines(ctx, hh, tt, 2))
        st.r(0, tt + 0.2, "^C", ())
        for p in ctx.detail_ranks[:4]:
            st.r(p, tt + 0.3, "KeyboardInterrupt", (), tb=True)
    st.ctrl_c = not finish
    st.notes = note + (" The run finished, only slowly." if finish else " The user stopped it by hand.")


def xid_header(st, h, l, t):
    ctx = st.ctx
    rng = ctx.rng
    st.k(h, t, f"NVRM: GPU at PCI:{pci_short(ctx, h, l)}: GPU-{uuid_like(rng)}", ("X", "Nid"))
    st.k(h, t + 1e-4, f"NVRM: GPU Board Serial Number: {rng.randrange(10**12, 10**13) if GPUS[ctx.gpu][3] else 0}", ())


def sc_gpu_hardware(st):
    ctx = st.ctx
    rng = ctx.rng
    dc = GPUS[ctx.gpu][3] and ctx.gpu not in ("a6000",)
    variant = pick(rng, ["xid79", "xid79", "xid119"]) if dc else "xid79"
    g = pick_rank(ctx)
    h, l = rank_host(ctx, g), rank_local(ctx, g)
    t0 = begin(st, g)
    t_f = t0 + rng.uniform(200, 20000)
    emit_training(st, t0, t_f)
    t_f = ctx.t_last_step + rng.uniform(0.2, ctx.dt)
    kernel_noise(st, h, -5000, t_f, rng.randrange(2, 6))
    pcis = pci_short(ctx, h, l)
    exits = {}
    if variant == "xid79":
        if rng.random() < 0.5:
            st.k(h, t_f - 0.4, f"pcieport 0000:{max(0, ctx.busid[h][l] - 1):02x}:01.0: AER: Uncorrected (Fatal) error received: {pcis}.0", ("Nid",))
            st.k(h, t_f - 0.39, f"nvidia {pcis}.0: PCIe Bus Error: severity=Uncorrected (Fatal), type=Inaccessible, (Unregistered Agent ID)", ("Nid",))
        xid_header(st, h, l, t_f)
        st.k(h, t_f + 0.001, f"NVRM: Xid (PCI:{pcis}): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.", ("K", "X", "Nid"))
        st.k(h, t_f + 0.002, f"NVRM: GPU {pcis}.0: GPU has fallen off the bus.", ("K", "X", "Nid"))
        if rng.random() < 0.5:
            st.k(h, t_f + 0.01, "NVRM: nvGpuOpsReportFatalError: uvm encountered global fatal error 0x60, requiring os reboot to recover.", ("Nid",))
        what = "unspecified launch failure"
        t_e = t_f + rng.uniform(0.1, 2)
        st.r(g, t_e - 0.01, nccl_warn(ctx, g, t_e, "proxy.cc:{}".format(pick(rng, [1493, 1556])) if ctx.era["nccl"] < "2.20" else "enqueue.cc:1890", f"Cuda failure '{what}'"), ("K", "Rid"))
        wd = "NCCL watchdog thread terminated with exception" if ctx.E <= 1 else "Process group watchdog thread terminated with exception"
        st.r(g, t_e, glog(ctx, g, t_e, "E", "ProcessGroupNCCL.cpp", {0: 1205, 1: 1316, 2: 1595, 3: 2102}[ctx.E], f"{pg_prefix(ctx, g)} {wd}: CUDA error: {what}\nCUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1"), ("K", "R", f"W{g}"))
        st.r(g, t_e + 0.01, f"terminate called after throwing an instance of '{'std::runtime_error' if ctx.E == 0 else 'c10::DistBackendError'}'\n  what():  {pg_prefix(ctx, g)} {wd}: CUDA error: {what}", ("Rid",))
        exits[g] = (t_e + 0.05, -6)
        st.smi_lost = (h, t_e + rng.uniform(30, 600), l)
        note = f"GPU {l} ({pcis}) on {ctx.hosts[h]} fell off the bus (Xid 79{', preceded by a fatal PCIe AER error' if 'AER' in str([e.text for e in st.ev[-8:]]) else ''}); rank {g} died with 'unspecified launch failure' and took the job down."
        st.user_text.append(("After the crash nvidia-smi shows an error for one card and I have to reboot the machine. Happens every few hours.", ()))
    else:
        xid_header(st, h, l, t_f)
        fn = pick(rng, [(76, "GSP_RM_CONTROL", "0x20803039 0x8"), (103, "GSP_RM_ALLOC", "0x2081 0x4"), (10, "FREE", "0x0 0x0")])
        for k in range(rng.randrange(2, 6)):
            st.k(h, t_f + k * 6.01, f"NVRM: Xid (PCI:{pcis}): 119, pid={ctx.pid[g]}, name=python, Timeout after 6s of waiting for RPC response from GPU{l} GSP! Expected function {fn[0]} ({fn[1]}) ({fn[2]}).",
                 ("K", "X", "Xp", "Nid"))
        st.k(h, t_f + 0.002, f"NVRM: GPU{l} GSP RPC buffer contains function {fn[0]} ({fn[1]}) and data 0x{hexs(rng, 16)} 0x{hexs(rng, 16)}.", ("Nid",))
        st.k(h, t_f + 0.003, f"NVRM: GPU{l} RPC history (CPU -> GSP):", ())
        st.k(h, t_f + 0.004, "NVRM:     entry function                   data0              data1              ts_start           ts_end             duration actively_polling", ())
        if ctx.era["driver"] >= "550" and rng.random() < 0.5:
            st.k(h, t_f + 40, f"NVRM: Xid (PCI:{pcis}): 154, GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)", ("K", "X", "Nid"))
        st.rank_groups.append({"Xp", f"P{g}"})
        # the rank hangs inside a CUDA call; its heartbeat monitor fires, the others time out
        seq = ctx.last_step * 2 + rng.randrange(1, 9)
        t_to = ctx.t_last_step + ctx.timeout_ms / 1000
        hb = 480 if ctx.E >= 3 else 600
        if ctx.E >= 1 and hb < ctx.timeout_ms / 1000:
            tt = ctx.t_last_step + hb + rng.uniform(1, 20)
            hbmsg = (f"ProcessGroupNCCL's watchdog got stuck for {hb} seconds without making progress in monitoring enqueued collectives. "
                     "This typically indicates a NCCL/CUDA API (e.g., CudaEvent query) hang blocking the watchdog, and could be triggered by another thread holding the GIL inside a CUDA api (for example, CudaEvent query), or other deadlock-prone behaviors."
                     "If you suspect the watchdog is not actually stuck and a longer timeout would help, you can either increase the timeout (TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC) to a larger value or disable the heartbeat monitor (TORCH_NCCL_ENABLE_MONITORING=0)."
                     "If either of aforementioned helps, feel free to file an issue to PyTorch about the short timeout or false positive abort; otherwise, please attempt to debug the hang. ")
            st.r(g, tt, glog(ctx, g, tt, "F", "ProcessGroupNCCL.cpp", {1: 1224, 2: 1399, 3: 1556}[ctx.E], f"{pg_prefix(ctx, g)} {hbmsg}"),
                 ("R", "K"))
            exits[g] = (tt + 0.1, -6)
        for p in ctx.detail_ranks:
            if p == g:
                continue
            tt = t_to + rng.uniform(0, 2.5)
            if g in exits and exits[g][0] < tt and rank_host(ctx, p) == h:
                continue
            watchdog_timeout(st, p, tt, seq, "ALLREDUCE", rng.randrange(10**6, 10**8), tags=("C",))
            exits[p] = (tt + 0.02, -6)
        note = f"GPU {l} ({pcis}) on {ctx.hosts[h]} stopped answering its GSP firmware (Xid 119, pid {ctx.pid[g]} = rank {g}); rank {g} hung inside CUDA and the others timed out."
    remote_fallout(st, g, t_f + 1, [h], exits)
    finish_failure(st, exits, tag_root=g if variant == "xid79" else None)
    st.rank_groups.append({"X", f"B{g}"})
    st.notes = note


def sc_ecc_memory(st):
    ctx = st.ctx
    rng = ctx.rng
    g = pick_rank(ctx)
    h, l = rank_host(ctx, g), rank_local(ctx, g)
    t0 = begin(st, g)
    t_f = t0 + rng.uniform(200, 30000)
    emit_training(st, t0, t_f)
    t_f = ctx.t_last_step + rng.uniform(0.2, ctx.dt)
    pcis = pci_short(ctx, h, l)
    exits = {}
    dram = ctx.gpu in ("a100", "a100_40", "h100", "h100_pcie")
    if ctx.kind != "notebook":
        kernel_noise(st, h, -6000, t_f, rng.randrange(2, 5))
        xid_header(st, h, l, t_f - 0.01)
        addr = hexs(rng, 8)
        st.k(h, t_f - 0.005, f"NVRM: Xid (PCI:{pcis}): 48, pid={pick(rng, [str(ctx.pid[g]), chr(39) + '<unknown>' + chr(39)])}, name={pick(rng, ['python', '<unknown>'])}, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at physAddr 0x{addr.lstrip('0') or '0'} partition {rng.randrange(0, 24)}, subpartition {rng.randrange(0, 4)}.",
             ("K", "X", "Nid"))
        if dram and rng.random() < 0.7:
            st.k(h, t_f - 0.004, f"NVRM: Xid (PCI:{pcis}): 63, pid='<unknown>', name=<unknown>, Row Remapper: New row (0x00000000{addr}) marked for remapping, reset gpu to activate.", ("K", "X", "Nid"))
        if dram and rng.random() < 0.6:
            st.k(h, t_f - 0.003, f"NVRM: Xid (PCI:{pcis}): {pick(rng, [94, 94, 95])}, pid={ctx.pid[g]}, name=python, {pick(rng, ['Contained: SM (0x1). RST: No, D-RST: No', 'Uncontained: LTC TAG (0x2, 0x1). RST: Yes, D-RST: No'])}", ("K", "X", "Xp", "Nid"))
            st.rank_groups.append({"Xp", f"P{g}"})
        st.rank_groups.append({"X", f"B{g}"})
    what = "uncorrectable ECC error encountered"
    if rng.random() < 0.5:
        tb = build_tb(ctx, pick(rng, ["forward", "backward"]), leaf="mlp")
        st.r(g, t_f, tb, ("Rid",), tb=True)
        st.r(g, t_f + 0.001, cuda_error(ctx, what), ("K", "Rid"), tb=True)
        code = 1
    else:
        st.r(g, t_f - 0.01, nccl_warn(ctx, g, t_f, "enqueue.cc:{}".format(pick(rng, [1556, 1890])), f"Cuda failure '{what}'"), ("K", "Rid"))
        wd = "NCCL watchdog thread terminated with exception" if ctx.E <= 1 else "Process group watchdog thread terminated with exception"
        st.r(g, t_f, glog(ctx, g, t_f, "E", "ProcessGroupNCCL.cpp", {0: 1205, 1: 1316, 2: 1595, 3: 2102}[ctx.E], f"{pg_prefix(ctx, g)} {wd}: CUDA error: {what}"), ("K", "R", f"W{g}"))
        code = -6
    exits[g] = (t_f + 0.3, code)
    rows = {l: dict(ecc=str(rng.randrange(1, 5)))}
    st.smi_rows = (h, t_f + rng.uniform(60, 900), rows, {l: ("Rloc", "K")})
    if dram and rng.random() < 0.6:
        st.remap = (h, l)
    peers_notice_local_death(st, g, t_f + 0.4)
    remote_fallout(st, g, t_f + 1, [h], exits)
    finish_failure(st, exits, tag_root=g)
    st.notes = f"Uncorrectable ECC (double-bit) error in GPU {l} memory on {ctx.hosts[h]}; rank {g}, which owns that GPU, died with 'uncorrectable ECC error encountered'."


def sc_nvlink(st):
    ctx = st.ctx
    rng = ctx.rng
    kind = "xid74" if (GPUS[ctx.gpu][4] in ("sxm", "bridge") and not (ctx.gpu in ("3090", "a6000") and rng.random() < 0.3)) else "iommu"
    if kind == "xid74" and GPUS[ctx.gpu][4] == "bridge":
        ctx.gpn = min(ctx.gpn, 4)
    g = pick_rank(ctx)
    if kind == "iommu":
        ctx.p2p_disabled = False
        ctx.nccl_debug = ctx.nccl_debug or rng.random() < 0.6
    h, l = rank_host(ctx, g), rank_local(ctx, g)
    t0 = begin(st, g)
    exits = {}
    pcis = pci_short(ctx, h, l)
    if kind == "xid74":
        t_f = t0 + rng.uniform(300, 20000)
        emit_training(st, t0, t_f)
        t_f = ctx.t_last_step + rng.uniform(0.2, ctx.dt)
        kernel_noise(st, h, -5000, t_f, rng.randrange(2, 5))
        xid_header(st, h, l, t_f)
        link = rng.randrange(0, 12 if ctx.gpu != "3090" else 4)
        st.k(h, t_f + 0.001, f"NVRM: Xid (PCI:{pcis}): 74, pid={ctx.pid[g]}, name=python, NVLink: fatal error detected on link {link}(0x0, 0x0, 0x{pick(rng, ['10000', '20000', '100000'])}, 0x0, 0x0, 0x0, 0x0)",
             ("K", "X", "Xp", "Nid"))
        peer_l = (l + 1) % ctx.gpn
        if rng.random() < 0.6:
            st.k(h, t_f + 0.05, f"NVRM: Xid (PCI:{pci_short(ctx, h, peer_l)}): 74, pid={ctx.pid[h * ctx.gpn + peer_l]}, name=python, NVLink: fatal error detected on link {rng.randrange(0, 12)}(0x0, 0x0, 0x10000, 0x0, 0x0, 0x0, 0x0)", ("Nid",))
        what = "uncorrectable NVLink error detected during the execution"
        st.r(g, t_f + 0.2, nccl_warn(ctx, g, t_f + 0.2, "enqueue.cc:{}".format(pick(rng, [1556, 1890])), f"Cuda failure '{what}'"), ("K", "Rid"))
        tb = build_tb(ctx, "backward")
        st.r(g, t_f + 0.3, tb, ("Rid",), tb=True)
        st.r(g, t_f + 0.301, cuda_error(ctx, what), ("K", "Rid"), tb=True)
        exits[g] = (t_f + 0.6, 1)
        st.rank_groups += [{"X", f"B{g}"}, {"Xp", f"P{g}"}]
        st.nvlink_status = (h, l, link)
        note = f"NVLink fatal error (Xid 74, link {link}) on GPU {l} of {ctx.hosts[h]} (rank {g}); the peer GPU's Xid 74 is sympathetic."
        st.user_text.append(("The run crashes after a few hours with 'uncorrectable NVLink error'. Is it my code?", ()))
    else:
        # PCIe-only box: IOMMU / ACS blocks GPU peer-to-peer DMA; NCCL's P2P transport hangs in the first collective
        ctx.dt = pick_dt(ctx)
        ctx.total_steps = 1000
        ctx.last_step = 0
        ctx.bar_width = 10
        ctx.t_last_step = ctx.t_nccl + 3
        t_fault = ctx.t_nccl + rng.uniform(2.5, 4)
        kernel_noise(st, h, -2000, t_fault, rng.randrange(1, 4))
        amd = rng.random() < 0.6
        dom = f"0x{rng.randrange(16, 64):04x}"
        for k in range(rng.randrange(3, 12)):
            a = f"0x{hexs(rng, 2)}{hexs(rng, 4)}000"
            if amd:
                txt = f"nvidia {pcis}.0: AMD-Vi: Event logged [IO_PAGE_FAULT domain={dom} address={a} flags=0x0020]"
            else:
                txt = f"DMAR: [DMA Write NO_PASID] Request device [{pcis[5:]}.0] fault addr {a} [fault reason 0x05] PTE Write access is not set"
            st.k(h, t_fault + k * 0.0003, txt, ("K", "IO", "Nid"))
        if not amd:
            st.k(h, t_fault - 0.0001, "DMAR: DRHD: handling fault status reg 2", ("Nid",))
        st.rank_groups.append({"IO", f"B{g}"})
        seq = 1
        for p in ctx.detail_ranks:
            tt = ctx.t_last_step + ctx.timeout_ms / 1000 + rng.uniform(0, 2)
            watchdog_timeout(st, p, tt, seq, "ALLREDUCE" if not ctx.ds else "BROADCAST", rng.randrange(10**5, 10**8) if not ctx.ds else 1, last_done=0 if ctx.E < 3 else -1, tags=("C",))
            exits[p] = (tt + 0.02, -6)
        st.p2p_matrix = (h, l)
        note = (f"PCIe-only box with the IOMMU on: GPU {l} ({pcis}) faults on peer-to-peer DMA (IO_PAGE_FAULT / DMAR), so NCCL's P2P transport never completes the first collective; "
                "all ranks time out. Fix: iommu=pt / disable ACS, or NCCL_P2P_DISABLE=1.")
        st.user_text.append(("Multi-GPU training hangs at the very first step, single GPU works. nccl-tests all_reduce_perf also hangs. Setting NCCL_P2P_DISABLE=1 makes it work but slow.", ()))
    finish_failure(st, exits, tag_root=g if kind == "xid74" else None)
    st.notes = note


def sc_network(st):
    ctx = st.ctx
    rng = ctx.rng
    h = rng.randrange(ctx.nhost)
    variant = pick(rng, ["link", "link", "ifname"]) if not ctx.ib else "ib"
    t0 = begin(st, None, h)
    exits = {}
    ip = ctx.ips[h]
    if variant == "ifname":
        # host h picked docker0 / virbr0 for the bootstrap; peers cannot connect, init fails on everyone
        bad_if, bad_ip = pick(rng, [("docker0", "172.17.0.1"), ("virbr0", "192.168.122.1"), ("br-" + hexs(rng, 12), "172.18.0.1")])
        ctx.nccl_debug = True
        t_i = ctx.t_nccl
        for g in ctx.detail_ranks:
            hh = rank_host(ctx, g)
            if hh == h:
                st.r(g, t_i + 0.01, f"{nccl_prefix(ctx, g)} NCCL INFO Bootstrap : Using {bad_if}:{bad_ip}<0>", ("K", "Nid"), err=False)
        for g in ctx.detail_ranks:
            hh = rank_host(ctx, g)
            tt = t_i + rng.uniform(20, 130)
            dest = f"{bad_ip}<{rng.randrange(30000, 60000)}>"
            if hh != h:
                w = nccl_warn(ctx, g, tt, "misc/socket.cc:{}".format(pick(rng, [484, 538, 621])), f"socketStartConnect: Connect to {dest} failed : {pick(rng, ['Software caused connection abort', 'Connection timed out', 'No route to host'])}")
            else:
                w = nccl_warn(ctx, g, tt, "misc/socket.cc:{}".format(pick(rng, [484, 538])), f"socketPollConnect: Connect return : {pick(rng, ['Connection refused', 'Connection timed out'])}")
            st.r(g, tt, w, ("C",))
            ver = ctx.era["nccl"]
            line = {0: 1207, 1: 1691, 2: 2027, 3: 2212}[ctx.E]
            cls = "RuntimeError" if ctx.E == 0 else "torch.distributed.DistBackendError"
            msg = (f"{cls}: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:{line}, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version {ver}\n"
                   "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. \nLast error:\n" + w.strip().split("NCCL WARN ", 1)[1])
            st.r(g, tt + 0.1, "Traceback (most recent call last):\n" + tb_frames(ctx, (entry_frames(ctx) or [])[:1] + [
                (f"{ctx.pyroot}/torch/nn/parallel/distributed.py", pick(rng, [795, 825, 857]), "__init__", "_verify_param_shape_across_processes(self.process_group, parameters)"),
                (f"{ctx.pyroot}/torch/distributed/utils.py", pick(rng, [282, 294]), "_verify_param_shape_across_processes", "return dist._verify_params_across_processes(process_group, tensors, logger)")]), (), tb=True)
            st.r(g, tt + 0.101, msg, ("K",), tb=True)
            exits[g] = (tt + 0.5, 1)
        note = f"{ctx.hosts[h]} bootstrapped NCCL on {bad_if} ({bad_ip}) instead of the cluster network; peers could not connect and every rank failed at communicator init. NCCL_SOCKET_IFNAME was not set on that host."
        st.user_text.append(("Single node works on both machines. Two nodes: NCCL error at init. Firewall is off.", ()))
        st.ifname = (h, bad_if, bad_ip)
    else:
        t_f = t0 + rng.uniform(300, 20000)
        emit_training(st, t0, t_f)
        t_f = ctx.t_last_step + rng.uniform(0.2, ctx.dt)
        kernel_noise(st, h, -4000, t_f, rng.randrange(1, 4))
        pcid = f"0000:{rng.randrange(0x05, 0xe0):02x}:00.0"
        if variant == "ib":
            dev = f"ibp{rng.randrange(20, 220)}s0"
            st.k(h, t_f - 0.5, f"mlx5_core {pcid}: Port module event: module 0, Cable unplugged", ("K", "Nid"))
            st.k(h, t_f - 0.4, f"mlx5_core {pcid} {dev}: Link down", ("K", "Nid"))
            if rng.random() < 0.5:
                st.k(h, t_f + 70, f"mlx5_core {pcid}: Port module event: module 0, Cable plugged", ("Nid",))
                st.k(h, t_f + 72, f"mlx5_core {pcid} {dev}: Link up", ("Nid",))
            nic = f"HCA port {dev}"
        else:
            if ctx.hosts[h].startswith("ip-"):
                drv, nm = "ena", ctx.iface
            elif ctx.kind == "cloud":
                drv, nm = "mlx5_core", pick(rng, ["enP1p0s2", "eth1", "ens1f0np0"])
            else:
                drv, nm = pick(rng, [("mlx5_core", "ens1f0np0"), ("ixgbe", "enp59s0f0"), ("igb", "enp5s0"), ("i40e", "enp94s0f0")])
            if drv == "ena":
                st.k(h, t_f - 1.5, f"ena {pcid} {nm}: Keep alive watchdog timeout.", ("K", "Nid"))
                st.k(h, t_f - 1.4, f"ena {pcid} {nm}: Trigger reset is on", ("K", "Nid"))
                st.k(h, t_f + rng.uniform(20, 200), f"ena {pcid} {nm}: Device reset completed successfully, Driver info: Elastic Network Adapter (ENA) v2.{rng.randrange(6, 13)}.{rng.randrange(0, 9)}g", ("Nid",))
            elif drv == "mlx5_core":
                st.k(h, t_f - 0.8, f"mlx5_core {pcid} {nm}: Link down", ("K", "Nid"))
                st.k(h, t_f + rng.uniform(10, 300), f"mlx5_core {pcid} {nm}: Link up", ("Nid",))
            else:
                st.k(h, t_f - 0.8, f"{drv} {pcid} {nm}: NIC Link is Down", ("K", "Nid"))
                st.k(h, t_f + rng.uniform(5, 120), f"{drv} {pcid} {nm}: NIC Link is Up 10 Gbps Full Duplex, Flow Control: RX/TX" if drv != "igb" else f"igb {pcid} {nm}: igb: {nm} NIC Link is Up 1000 Mbps Full Duplex, Flow Control: RX", ("Nid",))
            nic = f"NIC {nm}"
        # peers report errors naming host h's address; host h's ranks report their own send errors
        for g in ctx.detail_ranks:
            hh = rank_host(ctx, g)
            tt = t_f + rng.uniform(0.5, 30)
            port = rng.randrange(30000, 60000)
            if ctx.ib:
                if hh != h:
                    peer, tags = f"{ip}<{port}>", ("C", "NipH")
                else:
                    oh = (h + 1) % ctx.nhost
                    peer, tags = f"{ctx.ips[oh]}<{port}>", ("C",)
                det = (f"NET/IB : Got completion from peer {peer} with error 12, opcode {pick(rng, [0, 1, 129])}, len {rng.randrange(0, 65536)}, vendor err 129" if ctx.era["nccl"] < "2.20" else
                       f"NET/IB : Got completion from peer {peer} with status=12 opcode=0 len=0 vendor err 129 (Send){' localGid ::ffff:' + ctx.ips[hh] + ' remoteGids::ffff:' + peer.split('<')[0] if ctx.era['nccl'] >= '2.21' else ''}")
                fl = "transport/net_ib.cc:{}".format(pick(rng, [1295, 1696, 2080]))
            else:
                if hh != h:
                    det, tags = pick(rng, [f"socketProgressOpt: Call to recv from {ip}<{port}> failed : Connection reset by peer",
                                           f"socketProgress: Connection closed by remote peer {ctx.hosts[h].split('.')[0]}<{port}>",
                                           f"socketProgressOpt: Call to recv from {ip}<{port}> failed : Connection timed out"]), ("C", "NipH")
                else:
                    oh = (h + 1) % ctx.nhost
                    det, tags = f"socketProgressOpt: Call to send to {ctx.ips[oh]}<{port}> failed : Broken pipe", ("C",)
                fl = "misc/socket.cc:{}".format(pick(rng, [49, 538, 580]))
            if "Connection closed by remote peer" in det:
                tags = tags + ("N",)
            st.r(g, tt - 0.01, nccl_warn(ctx, g, tt, fl, det), ("nccl",) + tags)
            nccl_async_error(st, g, tt, det, tags)
            exits[g] = (tt + 0.01, -6)
        note = f"The {nic} on {ctx.hosts[h]} went down; ranks on the other hosts lost their connections to it ({ip}) and aborted."
        st.user_text.append(("2-node training (each 8 GPUs). Random NCCL errors after a few hours, sometimes connection reset.", ()))
    st.node_groups.append({"NipH", f"IP{h}"})
    finish_failure(st, exits, tag_root=None)
    st.notes = note


def sc_unknown(st):
    ctx = st.ctx
    rng = ctx.rng
    opts = ["reboot", "killed", "collateral_only"]
    if ctx.nhost > 1:
        opts = ["master_only", "master_only", "collateral_only"]
    if ctx.kind == "notebook":
        opts = ["killed"]
    variant = pick(rng, opts)
    exits = {}
    if variant == "master_only":
        dead = pick(rng, list(range(1, ctx.nhost)))
        t0 = begin(st, None, None)
        t_f = t0 + rng.uniform(300, 20000)
        emit_training(st, t0, t_f)
        t_f = ctx.t_last_step + rng.uniform(0.2, ctx.dt)
        ctx.only_hosts = [h for h in ctx.detail_hosts if h != dead]
        collateral_remote(st, t_f, [dead], "async", exits, ctx.last_step * 2 + 3, peer_host=dead)
        # lines naming the dead peer by host name are node evidence (socketProgress: ... remote peer <host>)
        for e in st.ev:
            if "remote peer" in e.text and ctx.hosts[dead].split(".")[0] in e.text:
                e.tags = e.tags + ("N",)
            elif ctx.ips[dead] in e.text:
                e.tags = e.tags + ("NipH",)
        st.node_groups.append({"NipH", f"IP{dead}"})
        ctx.unknown_dead = dead
        finish_failure(st, exits, tag_root=None)
        ctx.init_host = dead
        st.notes = f"Only the logs of the other node(s) were attached: every visible rank failed on the lost connection to {ctx.hosts[dead]}; what happened there is not in the files."
        st.user_text.append((f"I only have the log from the master node, the other node's terminal was closed.", ()))
        return
    t0 = begin(st, None, 0 if variant in ("reboot", "killed", "collateral_only") and ctx.nhost == 1 else None)
    t_f = t0 + rng.uniform(300, 20000)
    emit_training(st, t0, t_f)
    t_f = ctx.t_last_step + rng.uniform(0.2, ctx.dt)
    if variant == "reboot":
        st.reboot = t_f
        st.notes = f"The whole machine ({ctx.hosts[0]}) rebooted mid-training; the console just stops and the previous boot's journal ends without an error. No evidence of what caused it."
        st.user_text.append(("PC suddenly restarts during training. No error message. Happens after 1-3 hours. Temps look OK.", ()))
        ctx.init_host = 0
        return
    if variant == "killed":
        for g in ctx.detail_ranks:
            exits[g] = (t_f + rng.uniform(0, 0.05), -9)
        st.notes = "Every rank received SIGKILL at the same moment; no kernel log or scheduler message was attached, so who or what killed them is unknown."
        st.user_text.append(("The training got Killed. No more info. Any idea?", ()))
        finish_failure(st, exits, tag_root=None)
        ctx.init_host = 0 if ctx.nhost == 1 else None
        return
    # collateral_only: every rank times out at the same sequence number, nothing else visible
    seq = ctx.last_step * 2 + rng.randrange(1, 9)
    numel = rng.randrange(10**6, 10**8)
    for g in ctx.detail_ranks:
        tt = ctx.t_last_step + ctx.timeout_ms / 1000 + rng.uniform(0, 2)
        watchdog_timeout(st, g, tt, seq, "ALLREDUCE", numel, last_done=seq - 1, tags=("C",))
        exits[g] = (tt + 0.02, -6)
    st.last_screen = True
    finish_failure(st, exits, tag_root=None)
    st.notes = "Only the final screen was pasted: every rank reports the same watchdog timeout on the same collective, no rank is missing and no initiating error is visible."
    st.user_text.append(("Got this NCCL timeout, how to fix? (this is the end of the output)", ()))
    ctx.init_host = 0 if ctx.nhost == 1 else None


def sc_healthy(st):
    ctx = st.ctx
    rng = ctx.rng
    opts = ["clean", "clean", "old_xid", "rerun", "scary_info"]
    if ctx.launcher in ("torchrun", "srun_torchrun") and ctx.layout != "notebook":
        opts.append("restart")
    variant = pick(rng, opts)
    st.healthy_variant = variant
    t0 = begin(st, None, None)
    if rng.random() < 0.3 and ctx.launcher in ("accelerate", "srun_accelerate", "torchrun") and ctx.fw in ("hf", "axolotl", "trl"):
        st.all_ranks(3.0, f"Detected kernel version {pick(rng, ['5.4.0', '4.18.0', '5.4.0'])}, which is below the recommended minimum of 5.5.0; this can cause the process to hang. It is recommended to upgrade the kernel to the minimum version or higher.")
    if variant == "rerun":
        # first attempt OOMs, the user lowers the batch size and runs again: that second run finishes
        g = pick_rank(ctx)
        t_f = t0 + rng.uniform(20, 300)
        emit_training(st, t0, t_f)
        t_f = ctx.t_last_step + 0.5
        st.r(g, t_f, build_tb(ctx, "forward", leaf="lmhead"), (), tb=True)
        total = GPUS[ctx.gpu][2]
        st.r(g, t_f + 0.001, oom_message(ctx, rank_local(ctx, g), 1.96, total, 0.8, total - 0.9, total - 2.5, 1.3), (), tb=True)
        finish_failure(st, {g: (t_f + 1, 1)})
        t1 = t_f + rng.uniform(60, 600)
        st.rerun_at = t1
        for h in ctx.detail_hosts:
            st.l(h, t1 - 0.5, f"$ {rerun_cmd(ctx)}")
        launcher_start_at(st, t1)
        t2 = emit_startup(st, t1)
        ctx.total_steps = ctx.total_steps * 2
        emit_training(st, t2, 0, finish=True)
        emit_finish(st, ctx.t_last_step + 2)
        st.notes = f"The first attempt ran out of GPU memory on rank {g}; the user halved the batch size and the second run trained to completion. Healthy."
        return
    if variant == "restart":
        t_f = t0 + rng.uniform(300, 4000)
        n = emit_training(st, t0, t_f)
        t_f = ctx.t_last_step + 0.5
        g = pick_rank(ctx)
        exits = {}
        seq = n * 2 + 3
        for p in ctx.detail_ranks:
            if p == g:
                continue
            tt = ctx.t_last_step + ctx.timeout_ms / 1000 + rng.uniform(0, 2)
            watchdog_timeout(st, p, tt, seq, "ALLREDUCE", rng.randrange(10**6, 10**8), tags=("C",))
            exits[p] = (tt + 0.02, -6)
        t_r = max(t for t, _ in exits.values()) + 1 if exits else t_f + 5
        st.restart_t = t_r
        for h in ctx.detail_hosts:
            st.l(h, t_r, agent_log(ctx, h, t_r, "I", "api", "[default] Worker group FAILED. 3/3 attempts left; will restart worker group").replace("multiprocessing/api.py", "agent/server/api.py").replace("torch.distributed.elastic.multiprocessing.api", "torch.distributed.elastic.agent.server.api"))
            for l in range(ctx.gpn):
                st.l(h, t_r + 0.01, agent_log(ctx, h, t_r, "W", "api", f"Sending process {ctx.pid[h * ctx.gpn + l]} closing signal SIGTERM"))
        # new pids for attempt 1
        for p in list(ctx.pid):
            ctx.pid[p] += rng.randrange(500, 5000)
        t2 = emit_startup(st, t_r + 5)
        st.r(0, t2 - 1, f"Resuming training from checkpoint-{max(1, (n // 100) * 100)}" if ctx.fw != "torchtune" else "INFO:torchtune.utils._logging:Resuming from checkpoint", ())
        emit_training(st, t2, 0, finish=True, start_step=max(0, (n // 100) * 100))
        emit_finish(st, ctx.t_last_step + 2)
        st.notes = "Attempt 0 hit a collective timeout and torchrun restarted the worker group (--max-restarts); attempt 1 resumed from the checkpoint and finished. Healthy."
        return
    emit_training(st, t0, 0, finish=True)
    t_end = emit_finish(st, ctx.t_last_step + 2)
    if ctx.launcher in ("deepspeed", "srun_deepspeed"):
        ll = ds_launch_lines(ctx)
        for h in ctx.detail_hosts:
            for l in range(ctx.gpn):
                g = h * ctx.gpn + l
                st.l(h, t_end + 0.5 + 0.05 * l, ds_log(ctx, h, t_end + 0.5, "INFO", ll["ok"], f"Process {ctx.pid[g]} exits successfully."))
    if variant == "old_xid":
        h = rng.randrange(ctx.nhost) if ctx.nhost > 1 else 0
        l = rng.randrange(ctx.gpn)
        told = -rng.uniform(86400, 6 * 86400)
        st.k(h, told, f"NVRM: GPU at PCI:{pci_short(ctx, h, l)}: GPU-{uuid_like(rng)}")
        st.k(h, told + 0.001, f"NVRM: Xid (PCI:{pci_short(ctx, h, l)}): {pick(rng, [13, 31, 43])}, pid={rng.randrange(2000, 90000)}, name=python3, {pick(rng, ['Graphics SM Warp Exception on (GPC 2, TPC 1, SM 0): Out Of Range Address', 'Ch 00000010'])}")
        kernel_noise(st, h, -3000, t_end, rng.randrange(3, 8))
        st.old_xid = h
        st.notes = "Training finished normally; the Xid line in the attached dmesg is days old, from another process, and application-caused. Healthy."
        st.user_text.append(("Training finishes but I see an Xid error in dmesg and lots of warnings. Is my GPU broken?", ()))
    elif variant == "scary_info":
        ctx.nccl_debug = True
        st.notes = "Healthy run; the user worried about warnings (deprecations, NCCL INFO chatter, 'Some weights ... newly initialized') that are harmless."
        st.user_text.append(("Training works but there are so many warnings. Are these errors? Especially the NCCL ones.", ()))
    else:
        st.notes = "Healthy run: finished normally; the warnings (FutureWarning, use_cache, tokenizer fork notice, destroy_process_group) are noise."
        st.user_text.append(("Is it normal that training prints all these warnings? The loss looks fine.", ()))


def rerun_cmd(ctx):
    L = ctx.launcher
    if L in ("deepspeed", "srun_deepspeed"):
        return f"deepspeed --num_gpus {ctx.gpn} {ctx.script} " + " ".join(user_cmd_args_cached(ctx)).replace("--per_device_train_batch_size 4", "--per_device_train_batch_size 2")
    if L == "llamafactory":
        return "FORCE_TORCHRUN=1 llamafactory-cli train examples/train_lora/llama3_lora_sft.yaml per_device_train_batch_size=1"
    if L in ("accelerate", "srun_accelerate"):
        return f"accelerate launch --num_processes {ctx.gpn} {ctx.script if not ctx.script.startswith('-m') else ctx.script} --per_device_train_batch_size 1"
    return f"torchrun --nproc_per_node {ctx.gpn} {ctx.script} --per_device_train_batch_size 1"


def launcher_start_at(st, t):
    """Launcher banner of a second attempt (re-run by the user)."""
    ctx = st.ctx
    for h in ctx.detail_hosts:
        if ctx.launcher in ("torchrun", "accelerate", "llamafactory", "srun_torchrun", "srun_accelerate"):
            st.l(h, t + 0.2, torchrun_banner(ctx, h, t + 0.2))
        elif ctx.launcher in ("deepspeed", "srun_deepspeed"):
            st.l(h, t + 0.2, ds_log(ctx, h, t + 0.2, "INFO", "launch.py:{}:main".format({0: 138, 1: 145, 2: 146, 3: 164}[ctx.E]), "WORLD INFO DICT: {'localhost': " + str(list(range(ctx.gpn))) + "}"))
    for p in list(ctx.pid):
        ctx.pid[p] += ctx.rng.randrange(300, 3000)


SCENARIOS = {
    "gpu_hardware": sc_gpu_hardware, "ecc_memory": sc_ecc_memory, "nvlink": sc_nvlink, "network": sc_network,
    "cuda_oom": sc_cuda_oom, "illegal_memory_access": sc_illegal_memory_access, "python_exception": sc_python_exception,
    "host_oom_kill": sc_host_oom_kill, "crash_signal": sc_crash_signal, "preemption": sc_preemption, "hang": sc_hang,
    "data_loader_stall": sc_data_loader_stall, "collective_mismatch": sc_collective_mismatch, "straggler": sc_straggler,
    "unknown": sc_unknown, None: sc_healthy,
}


# ----------------------------------------------------------------------------------------
# rendering: streams -> files (each file is a list of (text, tags) lines)
# ----------------------------------------------------------------------------------------

def conv(ctx, e, tags, rank_ident, host_ident):
    out = list(tags)
    if "Rid" in tags and (rank_ident or (e is not None and e.tb and ctx.rank_prefix) or ctx.world == 1):
        out.append("R")
    if "Rloc" in tags and (host_ident or ctx.nhost == 1):
        out.append("R")
    if "Nid" in tags and host_ident:
        out.append("N")
    return tuple(out)


def ev_text(ctx, e):
    if e.src[0] == "r" and e.tb and ctx.rank_prefix:
        return f"[rank{e.src[1]}]: " + e.text
    return e.text


def visible(st, e):
    """False for events lost with a vanished host / rebooted machine."""
    ctx = st.ctx
    if e.src[0] in ("r", "l"):
        h = rank_host(ctx, e.src[1]) if e.src[0] == "r" else e.src[1]
        g = getattr(st, "gone", None)
        if g and h == g[0] and e.t > g[1]:
            return False
        if getattr(st, "reboot", None) is not None and e.t > st.reboot:
            return False
        if getattr(st, "notebook_killed", None) is not None and e.t > st.notebook_killed:
            return False
        if e.src[0] == "r" and e.src[1] in st.killed_at and e.t > st.killed_at[e.src[1]]:
            return False
    return True


def merged(st, hosts, launcher=True, rank_ident=False, host_ident=True, pdsh=False, prefix_tee=False, streams=("o", "e"), t_from=None):
    ctx = st.ctx
    evs = []
    for e in st.ev:
        if e.src[0] == "r" and rank_host(ctx, e.src[1]) in hosts and e.src[2] in streams:
            evs.append(e)
        elif launcher and e.src[0] == "l" and e.src[1] in hosts:
            evs.append(e)
    evs = [e for e in evs if visible(st, e) and (t_from is None or e.t >= t_from)]
    evs.sort(key=lambda e: (e.t, e.seq))
    out = []
    for e in evs:
        txt = ev_text(ctx, e)
        h = rank_host(ctx, e.src[1]) if e.src[0] == "r" else e.src[1]
        ri = rank_ident
        if prefix_tee and e.src[0] == "r":
            txt = f"[default{rank_local(ctx, e.src[1])}]:" + txt
            ri = True
        if pdsh and not (e.src[0] == "l" and h == 0 and ("runner.py" in e.text or "runner" in e.tags)):
            txt = f"{ctx.hosts[h]}: " + txt
        out.append((txt, conv(ctx, e, e.tags, ri, host_ident)))
    return out


def rank_file(st, g, stream, attempt=None):
    ctx = st.ctx
    evs = [e for e in st.ev if e.src == ("r", g, stream) and visible(st, e)]
    if attempt is not None:
        tr = getattr(st, "restart_t", 0)
        evs = [e for e in evs if (e.t < tr) == (attempt == 0)]
    evs.sort(key=lambda e: (e.t, e.seq))
    return [(ev_text(ctx, e), conv(ctx, e, e.tags, True, True)) for e in evs]


def splice_noise(ctx, lines, n):
    """Interleave damage: two processes writing to one terminal."""
    rng = ctx.rng
    for _ in range(n):
        if len(lines) < 10:
            return lines
        i = rng.randrange(2, len(lines) - 2)
        a, b = lines[i], lines[i + 1]
        if "K" in a[1] or "K" in b[1] or len(a[0]) < 30 or "\r" in a[0] or "\r" in b[0] or not b[0].strip():
            continue
        k = rng.randrange(10, len(a[0]) - 5)
        lines[i:i + 2] = [(a[0][:k] + b[0], a[1] + b[1]), (a[0][k:], a[1])]
    return lines


def last_segment(lines):
    """What a terminal shows for tqdm lines (only the last \\r segment)."""
    out = []
    for t, tg in lines:
        if "\r" in t:
            segs = [s for s in t.split("\r") if s.strip()]
            t = segs[-1] if segs else ""
        out.append((t, tg))
    return out


MARKERS = ["...", "[...]", "<snip>", "......", "(truncated)", "# ... lots of the same ...", "[... {n} lines omitted ...]", "... ({n} lines)"]


def trim_middle(ctx, lines, head, tail, marker=None):
    if len(lines) <= head + tail + 5:
        return lines
    m = marker or pick(ctx.rng, MARKERS)
    keep = set(range(head)) | set(range(len(lines) - tail, len(lines)))
    for i, (t, tg) in enumerate(lines):
        if "K" in tg:
            for j in range(max(0, i - 2), min(len(lines), i + 3)):
                keep.add(j)
    out = []
    gap = 0
    for i, x in enumerate(lines):
        if i in keep:
            if gap:
                out.append((m.replace("{n}", str(gap)), ("trim",)))
                gap = 0
            out.append(x)
        else:
            gap += 1
    if gap:
        out.append((m.replace("{n}", str(gap)), ("trim",)))
    return out


def last_screen(ctx, lines, n):
    if len(lines) <= n:
        return lines
    start = len(lines) - n
    while start > 0 and not any("K" in tg for _, tg in lines[start:]):
        start -= 10
    return lines[max(0, start):]


def size_of(lines):
    return sum(len(t) + 1 for t, _ in lines)


def cap_size(ctx, lines, limit):
    """Cut the middle until the text fits `limit` characters."""
    head, tail = 200, 400
    while size_of(lines) > limit and head > 5:
        lines = trim_middle(ctx, lines, head, tail, "[... {n} lines removed to fit the upload limit ...]")
        head, tail = head // 2, tail // 2
    if size_of(lines) > limit:
        # long single lines (\\r progress) : keep only their last segment
        lines = last_segment(lines)
    return lines


def text_lines(text, tags=()):
    return [(x, tags) for x in text.split("\n")]


def kernel_file(st, h, style=None, host_ident=True, t_min=None, t_max=None):
    ctx = st.ctx
    style = style or pick(ctx.rng, ["dmesg", "dmesg", "dmesg_T", "journal"])
    evs = render_kernel(ctx, st, h, style, t_max=t_max, t_min=t_min)
    hi = host_ident or style == "journal"
    return [(t, conv(ctx, None, tg, False, hi)) for t, tg in evs]


def has_kernel(st, h):
    return any(e.src == ("k", h) for e in st.ev)


def kernel_key(st, h):
    return any(e.src == ("k", h) and "K" in e.tags for e in st.ev)


def attachments(st, host_named):
    """Extra files a user / admin would attach. Returns [(name, lines)]."""
    ctx = st.ctx
    rng = ctx.rng
    out = []
    nh = ctx.nhost
    for h in ctx.detail_hosts:
        if getattr(ctx, "only_hosts", None) is not None and h not in ctx.only_hosts:
            continue
        if has_kernel(st, h) and (kernel_key(st, h) or rng.random() < 0.5 or getattr(st, "old_xid", None) == h):
            cmd = pick(rng, ["sudo dmesg | tail -n 60", "sudo dmesg -T | grep -i -E 'nvrm|xid|nvidia|oom|error'", "journalctl -k --since today", "dmesg"])
            if ctx.kind == "k8s":
                cmd = f"kubectl debug node/{ctx.hosts[h]} -it --image=ubuntu -- chroot /host dmesg -T"
            style = "dmesg_T" if "-T" in cmd else ("journal" if "journalctl" in cmd else "dmesg")
            lines = [(f"$ {cmd}", ())] + kernel_file(st, h, style, host_ident=(nh == 1 or host_named))
            name = f"dmesg_{ctx.hosts[h].split('.')[0]}.txt" if (nh > 1 or host_named) else pick(rng, ["dmesg.txt", "dmesg.log", "kernel.log"])
            if nh > 1 and not host_named:
                name = f"dmesg_node{h}.txt"
                lines = [(t, tuple(x for x in tg if x != "N")) for t, tg in lines]
                if style == "journal":
                    lines = [(t, tg + (("N",) if "Nid" in tg else ())) for t, tg in lines]
            out.append((name, lines))
    if getattr(st, "smi_lost", None):
        h, t, l = st.smi_lost
        lines = [("$ nvidia-smi", ())] + nvidia_smi(ctx, h, t, lost=l)
        out.append((f"nvidia-smi_{ctx.hosts[h].split('.')[0]}.txt" if nh > 1 else "nvidia-smi.txt", lines))
    elif getattr(st, "smi_rows", None) and rng.random() < 0.9:
        h, t, rows, tags_for = st.smi_rows
        lines = [("$ nvidia-smi", ())] + nvidia_smi(ctx, h, t, rows=rows, tags_for=tags_for)
        if nh > 1 and not host_named:
            lines = [(x, tuple(y for y in tg if y != "Rloc")) for x, tg in lines]
        out.append((f"nvidia-smi_{ctx.hosts[h].split('.')[0]}.txt" if nh > 1 else "nvidia-smi.txt", lines))
    elif ctx.cause is None and rng.random() < 0.3:
        out.append(("nvidia-smi.txt", [("$ nvidia-smi", ())] + nvidia_smi(ctx, 0, ctx.t_last_step * 0.6 if hasattr(ctx, "t_last_step") else 100)))
    if getattr(st, "pyspy", None):
        lines = [(f"$ py-spy dump --pid {ctx.pid[ctx.init_rank]}", ())] + st.pyspy
        if getattr(st, "pyspy_other", None):
            lines += [("", ()), (f"$ py-spy dump --pid {st.pyspy_other[0].split(':')[0].split()[-1]}", ())] + [(x, ()) for x in st.pyspy_other]
        out.append(("py-spy.txt", lines))
    if getattr(st, "straggler_extra", None):
        h, extra = st.straggler_extra
        lines = extra
        if nh > 1 and not host_named:
            lines = [(x, tuple(y for y in tg if y != "Rloc")) for x, tg in lines]
        nm = "gpu_query.txt" if nh == 1 else f"gpu_query_{ctx.hosts[h].split('.')[0]}.txt"
        if extra and extra[0][0].startswith("index,"):
            lines = [("$ nvidia-smi --query-gpu=index,temperature.gpu,clocks.sm,clocks.max.sm,power.draw,clocks_throttle_reasons.active --format=csv", ())] + lines
        out.append((nm, lines))
    if getattr(st, "remap", None):
        h, l = st.remap
        out.append((f"row_remap_gpu{l}.txt", [(f"$ nvidia-smi -q -d ROW_REMAPPER -i {l}", ("Rloc",) if (nh == 1 or host_named) else ()), ("", ()),
                                              ("==============NVSMI LOG==============", ()), ("", ()),
                                              (f"GPU {pci_full(ctx, h, l)}", ()), ("    Remapped Rows", ()),
                                              ("        Correctable Error                 : 0", ()),
                                              (f"        Uncorrectable Error               : {rng.randrange(1, 4)}", ("K",)),
                                              ("        Pending                           : Yes", ("K",)),
                                              ("        Remapping Failure Occurred        : No", ()),
                                              ("        Bank Remap Availability Histogram", ()),
                                              (f"            Max                           : {rng.randrange(600, 640)} bank(s)", ()),
                                              ("            High                          : 0 bank(s)", ()),
                                              ("            Partial                       : 0 bank(s)", ()),
                                              ("            Low                           : 0 bank(s)", ()),
                                              ("            None                          : 0 bank(s)", ())]))
    if getattr(st, "nvlink_status", None):
        h, l, link = st.nvlink_status
        lines = [(f"$ nvidia-smi nvlink -s -i {l}", ()), (f"GPU {l}: {GPUS[ctx.gpu][0]} (UUID: GPU-{uuid_like(rng)})", ("Rloc",) if (nh == 1 or host_named) else ())]
        nl = 12 if ctx.gpu in ("a100", "a100_40") else (18 if ctx.gpu == "h100" else 4)
        for k in range(nl):
            lines.append((f"\t Link {k}: " + ("<inactive>" if k == link else f"{25 if ctx.gpu != '3090' else 14.062} GB/s"), ("K",) if k == link else ()))
        out.append(("nvlink_status.txt", lines))
    if getattr(st, "p2p_matrix", None):
        h, l = st.p2p_matrix
        lines = [("$ python -c \"import torch; n=torch.cuda.device_count(); print([[torch.cuda.can_device_access_peer(i,j) if i!=j else None for j in range(n)] for i in range(n)])\"", ())]
        lines.append((str([[None if i == j else True for j in range(ctx.gpn)] for i in range(ctx.gpn)]), ()))
        lines.append(("$ ./build/all_reduce_perf -b 8M -e 128M -f 2 -g " + str(ctx.gpn), ()))
        lines.append((f"# nThread 1 nGpus {ctx.gpn} minBytes 8388608 maxBytes 134217728 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0", ()))
        lines.append(("#", ()))
        lines.append(("# Using devices", ()))
        tpid = rng.randrange(10000, 99999)
        for k in range(ctx.gpn):
            lines.append((f"#  Rank  {k} Group  0 Pid {tpid:>6} on {ctx.hosts[h]} device  {k} [0x{ctx.busid[h][k]:02x}] {GPUS[ctx.gpu][0]}", ()))
        lines.append(("(hangs here, had to Ctrl-C)", ()))
        out.append(("p2p_check.txt", lines))
    if getattr(ctx, "preempt", None) and ctx.preempt[0] in ("cloud",):
        mode, h, t, prov = ctx.preempt
        d = ctx.clock[h].at(t)
        host = ctx.hosts[h]
        if host.startswith("ip-"):
            lines = [("$ aws ec2 describe-instances --instance-ids i-0" + hexs(rng, 16) + " --query 'Reservations[].Instances[].[PrivateDnsName,InstanceLifecycle,State.Name,StateReason]'", ()),
                     ("[", ()), ("    [", ()), (f"        \"{host}.ec2.internal\",", ("N",)), ("        \"spot\",", ()), ("        \"terminated\",", ()),
                     ("        {", ()), ("            \"Code\": \"Server.SpotInstanceTermination\",", ("K",)),
                     ("            \"Message\": \"Server.SpotInstanceTermination: Spot instance termination\"", ("K",)), ("        }", ()), ("    ]", ()), ("]", ())]
            out.append(("aws_instance.txt", lines))
        else:
            zone = pick(rng, ["us-central1-a", "us-east1-c", "europe-west4-a", "asia-southeast1-b"])
            lines = [("$ gcloud compute operations list --filter=\"operationType=compute.instances.preempted\" --limit 5", ()),
                     ("NAME                                                  TYPE                         TARGET                                     HTTP_STATUS  STATUS  TIMESTAMP", ()),
                     (f"systemevent-{int(d.timestamp() * 1000)}-{hexs(rng, 13)}-{hexs(rng, 8)}-{hexs(rng, 8)}  compute.instances.preempted  {zone}/instances/{host}  200          DONE    {d.strftime('%Y-%m-%dT%H:%M:%S')}.{d.microsecond // 1000:03d}-07:00", ("K", "N"))]
            out.append(("gcloud_operations.txt", lines))
    if getattr(st, "reboot", None) is not None:
        h = 0
        t = st.reboot
        host = ctx.hosts[0]
        jl = [(f"$ journalctl -b -1 -n 12 --no-pager", ())]
        for k in range(10):
            tt = t - (10 - k) * rng.uniform(20, 200)
            d = ctx.clock[0].at(tt)
            jl.append((f"{ts_syslog(d)} {host} {pick(rng, ['systemd[1]: Started Daily apt download activities.', 'kernel: perf: interrupt took too long (3128 > 3126), lowering kernel.perf_event_max_sample_rate to 63750', f'CRON[{rng.randrange(1000, 99999)}]: pam_unix(cron:session): session closed for user root', 'systemd-resolved[812]: Using degraded feature set UDP instead of UDP+EDNS0 for DNS server 192.168.1.1.', 'gnome-shell[2211]: Window manager warning: last_user_time (12734) is greater than comparison timestamp'])}", ()))
        jl.append(("$ last -x | head -4", ()))
        d1 = ctx.clock[0].at(t + rng.uniform(60, 300))
        d0 = ctx.clock[0].at(-rng.uniform(3600, 50000))
        jl.append((f"reboot   system boot  5.15.0-{rng.randrange(80, 130)}-gener {d1.strftime('%a %b %d %H:%M')}   still running", ()))
        jl.append((f"{ctx.user:<8} pts/0        192.168.1.{rng.randrange(2, 250):<7}  {d0.strftime('%a %b %d %H:%M')} - crash  ({fmt_hms(t - (-3600))[:5]})", ("K",)))
        jl.append((f"runlevel (to lvl 5)   5.15.0-{rng.randrange(80, 130)}-gener {d0.strftime('%a %b %d %H:%M')} - {d1.strftime('%H:%M')}  (1+02:11)", ()))
        out.append(("journal_prev_boot.txt", jl))
    if getattr(st, "code_snippet", None) and ctx.layout != "issue":
        out.append(("snippet.py", [(x, ("snippet",)) for x in st.code_snippet.split("\n")]))
    if nh == 1 or host_named:
        out = [(name, [(t, tg + (("R",) if "Rloc" in tg else ())) for t, tg in lines]) for name, lines in out]
    if getattr(st, "ifname", None) and rng.random() < 0.6:
        h, bif, bip = st.ifname
        lines = [(f"$ ip -br addr   # on {ctx.hosts[h]}", ("N",)),
                 ("lo               UNKNOWN        127.0.0.1/8 ::1/128", ()),
                 (f"{bif:<16} UP             {bip}/16", ("K",)),
                 (f"{ctx.iface:<16} UP             {ctx.ips[h]}/24", ())]
        out.append(("ip_addr.txt", lines))
    return out


# ----------------------------------------------------------------------------------------
# layouts
# ----------------------------------------------------------------------------------------

def launch_cmd(ctx, h=0):
    rng = ctx.rng
    L, fw = ctx.launcher, ctx.fw
    args = " ".join(user_cmd_args_cached(ctx))
    if fw == "torchtune":
        return f"tune run --nproc_per_node {ctx.gpn} {'lora_finetune_distributed' if 'lora' in ctx.script else 'full_finetune_distributed'} --config {pick(rng, ['llama3_1/8B_lora', 'llama3_2/3B_full', 'qwen2_5/7B_lora'])}"
    if fw == "swift":
        return f"NPROC_PER_NODE={ctx.gpn} CUDA_VISIBLE_DEVICES={','.join(str(i) for i in range(ctx.gpn))} swift sft --model {ctx.model} --train_type lora --dataset {pick(rng, ['AI-ModelScope/alpaca-gpt4-data-en', 'data/train.jsonl'])} --num_train_epochs 1"
    if L == "llamafactory":
        return ("FORCE_TORCHRUN=1 " if ctx.E >= 2 else f"CUDA_VISIBLE_DEVICES={','.join(str(i) for i in range(ctx.gpn))} ") + f"llamafactory-cli train {pick(rng, ['examples/train_lora/llama3_lora_sft.yaml', 'train_qwen.yaml', 'examples/train_full/llama3_full_sft_ds3.yaml'])}"
    if L in ("accelerate", "srun_accelerate"):
        if fw == "axolotl":
            return f"accelerate launch -m axolotl.cli.train {pick(rng, ['config.yml', 'examples/llama-3/lora-8b.yml', 'qlora.yml'])}"
        return f"accelerate launch {pick(rng, ['', '--config_file fsdp.yaml ', '--num_processes ' + str(ctx.gpn) + ' '])}{ctx.script} {args}"
    if L in ("deepspeed", "srun_deepspeed"):
        if ctx.nhost > 1:
            return f"deepspeed --hostfile hostfile --master_addr {ctx.ips[0]} {ctx.script} {args}"
        return f"deepspeed --num_gpus {ctx.gpn} {ctx.script} {args}"
    if ctx.nhost > 1:
        return f"torchrun --nnodes {ctx.nhost} --node_rank {h} --nproc_per_node {ctx.gpn} --master_addr {ctx.ips[0]} --master_port {ctx.master_port} {ctx.script} {args}"
    return f"torchrun --nproc_per_node {ctx.gpn} {ctx.script} {args}"


def shell_prompt(ctx, h):
    host = ctx.hosts[h].split(".")[0]
    user = ctx.user if ctx.kind in ("ws", "cluster") else pick(ctx.rng, ["ubuntu", "root", ctx.user])
    env = "(" + ctx.py.split("/envs/")[1].split("/")[0] + ") " if "/envs/" in ctx.py else ""
    return f"{env}{user}@{host}:{ctx.workdir.replace('/home/' + ctx.user, '~')}$ "


def console_for(st, h, tee=False, host_ident=True):
    ctx = st.ctx
    lines = merged(st, [h], host_ident=host_ident)
    return lines


def finalize_console(ctx, lines, keep_cr=True, splice=True):
    if not keep_cr:
        lines = last_segment(lines)
    if splice and ctx.rng.random() < 0.5 and ctx.world > 1:
        lines = splice_noise(ctx, lines, ctx.rng.randrange(1, 4))
    return lines


def user_trim(ctx, lines, st, mode=None):
    """How the reporter cut the paste."""
    rng = ctx.rng
    mode = mode or wpick(rng, [("full", 3), ("middle", 4), ("last", 2)])
    if getattr(st, "last_screen", False):
        mode = "last"
    if mode == "middle":
        lines = trim_middle(ctx, lines, rng.randrange(15, 80), rng.randrange(60, 220))
    elif mode == "last":
        lines = last_screen(ctx, lines, rng.randrange(45, 160))
    return lines


def layout_paste(st):
    ctx = st.ctx
    rng = ctx.rng
    files = []
    hosts = getattr(ctx, "only_hosts", None) or ctx.detail_hosts
    multi = ctx.nhost > 1
    for h in hosts:
        head = [(shell_prompt(ctx, h) + launch_cmd(ctx, h), ())] if rng.random() < 0.7 else []
        lines = head + merged(st, [h], host_ident=(not multi) or True)
        lines = finalize_console(ctx, lines, keep_cr=rng.random() < 0.7)
        lines = user_trim(ctx, lines, st)
        name = "console.txt" if not multi else f"console_{ctx.hosts[h].split('.')[0]}.txt"
        if not multi:
            name = pick(rng, ["console.txt", "output.log", "terminal.txt", "train_output.txt"])
        files.append((name, lines))
    files += attachments(st, host_named=True)
    if rng.random() < 0.3:
        files.append(("env.txt", [(x, ()) for x in env_dump(ctx, 0) + getattr(st, "env_extra", [])]))
    if rng.random() < 0.3:
        files.append(("pip_list.txt", [("Package                  Version", ()), ("------------------------ ------------", ())] + [(f"{a:<24} {b}", ()) for a, b in pip_list(ctx)]))
    if st.user_text:
        files.append(("README.txt", [(t, tg) for t, tg in st.user_text]))
    return files


def sysinfo_block(ctx):
    e = ctx.era
    rng = ctx.rng
    plat = f"Linux-{pick(rng, ['5.15.0-105-generic', '6.5.0-41-generic', '5.4.0-182-generic', '6.8.0-52-generic', '5.14.0-427.el9.x86_64'])}-x86_64-with-glibc{pick(rng, ['2.35', '2.31', '2.39'])}"
    gname = GPUS[ctx.gpu][0]
    fw = ctx.fw
    if fw == "llamafactory":
        return [f"- `llamafactory` version: {e['lf']}", f"- Platform: {plat}", f"- Python version: {e['py']}",
                f"- PyTorch version: {e['torch']} (GPU)", f"- Transformers version: {e['tf']}", f"- Datasets version: {e['datasets']}",
                f"- Accelerate version: {e['acc']}", f"- PEFT version: {e['peft']}", f"- TRL version: {e['trl']}",
                f"- GPU type: {gname}"] + ([f"- DeepSpeed version: {e['ds']}"] if ctx.ds else [])
    return [f"- `transformers` version: {e['tf']}", f"- Platform: {plat}", f"- Python version: {e['py']}",
            f"- Huggingface_hub version: {['0.16.4', '0.23.0', '0.26.2', '0.33.1'][ctx.E]}",
            f"- Safetensors version: {['0.3.1', '0.4.3', '0.4.5', '0.5.3'][ctx.E]}", f"- Accelerate version: {e['acc']}",
            "- Accelerate config: \tnot found" if (ctx.launcher != "accelerate" or getattr(ctx, "acc_warn", False)) else f"- Accelerate config: \t- compute_environment: LOCAL_MACHINE\n\t- distributed_type: {'DEEPSPEED' if ctx.ds else 'MULTI_GPU'}\n\t- mixed_precision: bf16\n\t- num_processes: {ctx.world}",
            f"- PyTorch version (GPU?): {e['torch']} (True)", "- Tensorflow version (GPU?): not installed (NA)",
            f"- Using distributed or parallel set-up in script?: yes, {ctx.world} GPUs" + (f" on {ctx.nhost} nodes" if ctx.nhost > 1 else ""),
            "- Using GPU in script?: yes", f"- GPU type: {gname}"]


def layout_issue(st):
    ctx = st.ctx
    rng = ctx.rng
    fw = ctx.fw
    hosts = getattr(ctx, "only_hosts", None) or ctx.detail_hosts
    md = []
    title = pick(rng, ["Training crashes with NCCL timeout", "RuntimeError during multi-GPU training", "Process killed during training",
                       "Multi-GPU training hangs", "Help: error when fine-tuning with LoRA on multiple GPUs", "training stopped with exitcode",
                       "ChildFailedError when training", "Is this warning a problem?", "Distributed training fails after some steps"])
    if ctx.cause is None:
        title = pick(rng, ["Are these warnings a problem?", "Lots of warnings during training, is my setup OK?", "NCCL messages during training - is something wrong?"])
    md.append((f"# {title}", ()))
    md.append(("", ()))
    if fw == "llamafactory":
        md += [("### Reminder", ()), ("", ()), ("- [X] I have read the above rules and searched the existing issues.", ()), ("", ())]
    md += [("### System Info", ()), ("", ())]
    md += [(x, ()) for x in "\n".join(sysinfo_block(ctx)).split("\n")]
    md.append(("", ()))
    if fw not in ("llamafactory",):
        md += [("### Who can help?", ()), ("", ()), (pick(rng, ["@muellerzr @SunMarc", "@ArthurZucker", "@younesbelkada", "@lewtun @kashif", "_No response_"]), ()), ("", ())]
        md += [("### Information", ()), ("", ()), ("- [ ] The official example scripts", ()), ("- [x] My own modified scripts", ()), ("", ())]
    md += [("### Reproduction", ()), ("", ())]
    for t, tg in st.user_text:
        md.append((t, tg))
        md.append(("", ()))
    md += [("```bash", ()), (launch_cmd(ctx, hosts[0]), ()), ("```", ()), ("", ())]
    if getattr(st, "code_snippet", None):
        md += [("the relevant part of my script:", ()), ("", ()), ("```python", ())] + [(x, ("snippet",)) for x in st.code_snippet.split("\n")] + [("```", ()), ("", ())]
    attach_full = []
    for i, h in enumerate(hosts[:3]):
        raw = merged(st, [h], host_ident=True)
        log = finalize_console(ctx, raw, keep_cr=False)
        cut = user_trim(ctx, log, st)
        if size_of(cut) > 40000:
            cut = cap_size(ctx, cut, 40000)
        if cut is not log and rng.random() < 0.4:
            attach_full.append((f"full_log_{ctx.hosts[h].split('.')[0]}.txt" if len(hosts) > 1 else "full_log.txt", finalize_console(ctx, raw, keep_cr=True, splice=False)))
        if len(hosts) > 1:
            md.append((f"log on node {h} ({ctx.hosts[h]}):" if rng.random() < 0.7 else f"**{ctx.hosts[h]}**", ("N",) if False else ()))
        if rng.random() < 0.4:
            md += [("<details><summary>log</summary>", ()), ("", ())]
            md += [("```", ())] + cut + [("```", ()), ("</details>", ()), ("", ())]
        else:
            md += [("```", ())] + cut + [("```", ()), ("", ())]
    md += [("### Expected behavior", ()), ("", ()),
           (pick(rng, ["Training should finish without errors.", "The training should run normally on all GPUs.", "No crash.", "I expect the multi-GPU run to behave like the single-GPU one."]) if ctx.cause else
            "I'd like to know whether these messages mean something is wrong with my setup.", ()), ("", ())]
    if fw == "llamafactory":
        md += [("### Others", ()), ("", ()), ("_No response_", ()), ("", ())]
    atts = attachments(st, host_named=True)
    files = []
    # some attachments are pasted as follow-up comments
    extra = []
    for name, lines in atts:
        if size_of(lines) < 6000 and rng.random() < 0.6:
            md += [("---", ()), ("", ()), (f"**{ctx.user}** commented:", ()), ("", ()), (pick(rng, [f"Here is `{name.split('.')[0]}` output:", f"{name.split('.')[0]}:", "More info:"]), ()), ("", ()), ("```", ())] + lines + [("```", ()), ("", ())]
        else:
            extra.append((name, lines))
    if size_of(md) > 65000:
        md = cap_size(ctx, md, 65000)
    files.append(("issue.md", md))
    files += attach_full + extra
    return files


def layout_torchrun_logdir(st):
    ctx = st.ctx
    rng = ctx.rng
    files = []
    hosts = getattr(ctx, "only_hosts", None) or ctx.detail_hosts
    run_id = pick(rng, ["none_", "", "sft_"]) + hexs(rng, 8) if rng.random() < 0.7 else f"{ctx.user}_run{rng.randrange(1, 40)}"
    tee = rng.random() < 0.5
    multi = ctx.nhost > 1
    restart = getattr(st, "healthy_variant", "") == "restart"
    for h in hosts:
        base = f"{ctx.hosts[h].split('.')[0]}/" if multi else ""
        cons = merged(st, [h], launcher=True, host_ident=True, prefix_tee=tee) if tee else \
            [(ev_text(ctx, e), conv(ctx, e, e.tags, False, True)) for e in sorted([e for e in st.ev if e.src == ("l", h) and visible(st, e)], key=lambda e: (e.t, e.seq))]
        head = [(shell_prompt(ctx, h) + launch_cmd(ctx, h).replace("torchrun ", f"torchrun --log-dir logs --redirects 3 {'--tee 3 ' if tee else ''}", 1), ())]
        files.append((base + "launcher_console.txt", head + cons))
        attempts = [0, 1] if restart else [0]
        for a in attempts:
            for l in range(ctx.gpn):
                g = h * ctx.gpn + l
                if g not in ctx.detail_ranks:
                    continue
                for stream, fn in (("o", "stdout.log"), ("e", "stderr.log")):
                    lines = rank_file(st, g, stream, attempt=(a if restart else None))
                    files.append((f"{base}logs/{run_id}/attempt_{a}/{l}/{fn}", lines))
    files += attachments(st, host_named=True)
    if st.user_text:
        files.append(("notes.txt", list(st.user_text)))
    return files


def layout_deepspeed(st):
    ctx = st.ctx
    rng = ctx.rng
    hosts = getattr(ctx, "only_hosts", None) or ctx.detail_hosts
    files = []
    if ctx.nhost == 1:
        lines = [(shell_prompt(ctx, 0) + launch_cmd(ctx), ())] + merged(st, [0], host_ident=True)
    else:
        lines = [(shell_prompt(ctx, 0) + launch_cmd(ctx), ())] + merged(st, hosts, host_ident=True, pdsh=True)
        # pdsh reports remote exits at the end
        for h in hosts[1:]:
            if any(e.src == ("l", h) and "exits with return code" in e.text for e in st.ev):
                lines.append((f"pdsh@{ctx.hosts[0].split('.')[0]}: {ctx.hosts[h]}: ssh exited with exit code 1", ()))
        files.append(("hostfile", [(f"{ctx.hosts[h]} slots={ctx.gpn}", ()) for h in range(min(ctx.nhost, 64))]))
    lines = finalize_console(ctx, lines, keep_cr=rng.random() < 0.6)
    lines = user_trim(ctx, lines, st, mode=wpick(rng, [("full", 5), ("middle", 3), ("last", 1)]))
    files.insert(0, (pick(rng, ["train.log", "ds_train.log", "output.log"]), lines))
    cfg = {"bf16": {"enabled": "auto"}, "zero_optimization": {"stage": ctx.zero or 2, "overlap_comm": True, "contiguous_gradients": True,
                                                            "reduce_bucket_size": "auto"}, "gradient_accumulation_steps": "auto",
           "train_micro_batch_size_per_gpu": "auto", "gradient_clipping": "auto", "steps_per_print": pick(rng, [10, 100, 2000]),
           "wall_clock_breakdown": False}
    if ctx.zero == 3:
        cfg["zero_optimization"].update({"stage3_prefetch_bucket_size": "auto", "stage3_param_persistence_threshold": "auto", "stage3_gather_16bit_weights_on_model_save": True})
        if rng.random() < 0.4:
            cfg["zero_optimization"]["offload_optimizer"] = {"device": "cpu", "pin_memory": True}
    files.append(("ds_config.json", [(x, ()) for x in json.dumps(cfg, indent=2).split("\n")]))
    files += attachments(st, host_named=True)
    if st.user_text:
        files.append(("description.txt", list(st.user_text)))
    return files


def layout_notebook(st):
    ctx = st.ctx
    rng = ctx.rng
    kaggle = ctx.gpu == "t4" and rng.random() < 0.6
    lines = merged(st, [0], host_ident=False)
    files = []
    if kaggle:
        arr = []
        t = 0.0
        for txt, tg in lines:
            stream = "stderr" if ("%|" in txt or "Warning" in txt or "Error" in txt or txt.startswith("[") or "Traceback" in txt) else "stdout"
            t += ctx.rng.uniform(0.001, 2.0)
            arr.append((stream, round(t, 3), txt + "\n", tg))
        if getattr(st, "notebook_killed", None) is not None or getattr(ctx, "preempt", None):
            arr.append(("stderr", round(t + 5, 3), "Traceback (most recent call last):\n", ()))
            arr.append(("stderr", round(t + 5.001, 3), f"  File \"{ctx.pyroot}/torch/distributed/elastic/multiprocessing/api.py\", line 62, in _terminate_process_handler\n", ()))
            arr.append(("stderr", round(t + 5.002, 3), f"torch.distributed.elastic.multiprocessing.api.SignalException: Process {rng.randrange(100, 900)} got signal: 15\n", ("K",)))
        if ctx.cause == "host_oom_kill" and ctx.world == 1:
            arr.append(("stderr", round(t + 3, 3), "Your notebook tried to allocate more memory than is available. It has restarted.\n", ("K", "R")))
        out = [("[", ())]
        for i, (s, tt, d, tg) in enumerate(arr):
            out.append(("  " + json.dumps({"stream_name": s, "time": tt, "data": d}, ensure_ascii=False) + ("," if i < len(arr) - 1 else ""), tg))
        out.append(("]", ()))
        out = cap_size(ctx, out, 600000)
        files.append(("kaggle_log.json", out))
    else:
        head = [("%%time", ()), ("trainer.train()" if ctx.world == 1 else "notebook_launcher(train_fn, args=(), num_processes=2)", ()), ("", ())]
        if ctx.world > 1:
            head.append(("Launching training on 2 GPUs.", ()))
        body = head + finalize_console(ctx, lines, keep_cr=False, splice=False)
        body = user_trim(ctx, body, st, mode=wpick(rng, [("full", 2), ("middle", 2)]))
        if ctx.cause == "host_oom_kill" and ctx.world == 1:
            body.append(("", ()))
            body.append(("(Colab popup) Your session crashed after using all available RAM.", ("K", "R")))
        if getattr(ctx, "preempt", None):
            body.append(("", ()))
            body.append(("(the runtime disconnected here - 'Runtime disconnected' banner, session ended)", ("K",)))
        files.append(("notebook_output.txt", body))
        if rng.random() < 0.5:
            files.append(("nvidia-smi_cell.txt", [("!nvidia-smi", ())] + nvidia_smi(ctx, 0, 30, procs=False)))
    if st.user_text:
        files.append(("question.md", list(st.user_text)))
    return files


def layout_slurm(st):
    ctx = st.ctx
    rng = ctx.rng
    hosts = getattr(ctx, "only_hosts", None) or ctx.detail_hosts
    job = ctx.jobid
    style = wpick(rng, [("merged", 5), ("label", 3), ("pernode", 2)])
    files = []
    nodelist = compress_nodelist(ctx.hosts)
    sb = ["#!/bin/bash", f"#SBATCH --job-name={pick(rng, ['llama-sft', 'ft-qwen', 'lora', 'pretrain-small'])}",
          f"#SBATCH --nodes={ctx.nhost}", "#SBATCH --ntasks-per-node=1", f"#SBATCH --gres=gpu:{ctx.gpn}",
          f"#SBATCH --cpus-per-task={pick(rng, [32, 48, 64, 96])}", f"#SBATCH --partition={pick(rng, ['gpu', 'a100', 'preempt', 'lab-gpu'])}",
          f"#SBATCH --time={pick(rng, ['24:00:00', '48:00:00', '3-00:00:00'])}", f"#SBATCH --output=slurm-%j{'-%N' if style == 'pernode' else ''}.out", "",
          "export MASTER_ADDR=$(scontrol show hostnames $SLURM_JOB_NODELIST | head -n 1)", f"export MASTER_PORT={ctx.master_port}",
          "export NCCL_DEBUG=INFO" if ctx.nccl_debug else "# export NCCL_DEBUG=INFO", "",
          f"srun {'-l ' if style == 'label' else ''}" + launch_cmd(ctx).replace("--node_rank 0", "--node_rank $SLURM_NODEID").replace(f"--master_addr {ctx.ips[0]}", "--master_addr $MASTER_ADDR")]
    files.append(("job.sbatch", [(x, ()) for x in sb]))
    hdr = [(f"Job {job} started on {ctx.hosts[0]} at {ctx.clock[0].at(0).strftime('%a %b %d %H:%M:%S %Y')}", ()),
           (f"Nodes: {nodelist}", ())]
    if style in ("merged", "label"):
        out = list(hdr)
        lines = merged(st, hosts, host_ident=(len(hosts) == 1 or style == "label"))
        if style == "label":
            # srun -l prefixes each line with the task id (= node index here)
            lab = []
            for (txt, tg), e in zip(lines, sorted([e for e in st.ev if ((e.src[0] == "r" and rank_host(ctx, e.src[1]) in hosts) or (e.src[0] == "l" and e.src[1] in hosts)) and visible(st, e)], key=lambda e: (e.t, e.seq))):
                h = rank_host(ctx, e.src[1]) if e.src[0] == "r" else e.src[1]
                lab.append((f"{h}: " + txt.replace("\n", f"\n{h}: "), tg))
            lines = lab
        out += lines
        out += slurm_tail(st, hosts)
        if len(ctx.hosts) > len(hosts):
            out.insert(len(hdr), (f"# (output of {len(ctx.hosts) - len(hosts)} more nodes omitted, same messages)", ("trim",)))
        out = finalize_console(ctx, out, keep_cr=True)
        out = cap_size(ctx, out, 550000)
        files.insert(0, (f"slurm-{job}.out", out))
    else:
        for h in hosts:
            lines = hdr + merged(st, [h], host_ident=True) + slurm_tail(st, [h])
            lines = cap_size(ctx, finalize_console(ctx, lines, keep_cr=True), 550000 // max(1, len(hosts)))
            files.append((f"slurm-{job}-{ctx.hosts[h].split('.')[0]}.out", lines))
    files.append(("sacct.txt", sacct_lines(st)))
    files += attachments(st, host_named=True)
    if st.user_text:
        files.append(("ticket.txt", [("Message to the cluster admins:", ())] + list(st.user_text)))
    return files


def compress_nodelist(hosts):
    if len(hosts) == 1:
        return hosts[0]
    import re
    m = [re.match(r"^(.*?)(\d+)(\D*)$", h) for h in hosts]
    if all(m) and len(set(x.group(1) for x in m)) == 1 and len(set(x.group(3) for x in m)) == 1 and not m[0].group(3):
        w = len(m[0].group(2))
        nums = [int(x.group(2)) for x in m]
        return f"{m[0].group(1)}[{nums[0]:0{w}d}-{nums[-1]:0{w}d}]"
    return ",".join(hosts[:8]) + ("..." if len(hosts) > 8 else "")


def slurm_tail(st, hosts):
    ctx = st.ctx
    rng = ctx.rng
    out = []
    job = ctx.jobid
    if getattr(st, "slurm_cancel", None):
        t, line = st.slurm_cancel
        out.append((line, ("K",)))
        d = ctx.clock[0].at(t)
        for h in hosts[:6]:
            out.append((f"slurmstepd: error: *** STEP {job}.0 ON {ctx.hosts[h]} CANCELLED AT {d.strftime('%Y-%m-%dT%H:%M:%S')} DUE TO PREEMPTION ***", ()))
        return out
    if ctx.cause is None and getattr(st, "healthy_variant", "") != "rerun":
        return out
    if getattr(st, "slurm_oom", None):
        h, t = st.slurm_oom
        out.append((f"slurmstepd: error: Detected 1 oom_kill event in StepId={job}.0. Some of the step tasks have been OOM Killed.", ("K",)))
        out.append((f"srun: error: {ctx.hosts[h]}: task {h}: Out Of Memory", ("K", "N")))
    for h in hosts:
        if any(e.src == ("l", h) and "ChildFailedError" in e.text or (e.src == ("l", h) and "exits with return code" in e.text) for e in st.ev):
            out.append((f"srun: error: {ctx.hosts[h]}: task {h}: Exited with exit code 1", ()))
            if len(out) < 3:
                out.append(("srun: Job step aborted: Waiting up to 32 seconds for job step to finish.", ()))
    return out


def sacct_lines(st):
    ctx = st.ctx
    job = ctx.jobid
    cause = ctx.cause
    if getattr(st, "slurm_cancel", None):
        state, code = "PREEMPTED", "0:15"
    elif getattr(st, "slurm_oom", None):
        state, code = "OUT_OF_ME+", "0:125"
    elif cause is None or (cause == "straggler" and not getattr(st, "ctrl_c", False)):
        state, code = "COMPLETED", "0:0"
    elif cause == "straggler":
        state, code = "CANCELLED+", "0:0"
    else:
        state, code = "FAILED", "1:0"
    name = "llama-sft"
    out = ["JobID           JobName  Partition    Account  AllocCPUS      State ExitCode ",
           "------------ ---------- ---------- ---------- ---------- ---------- -------- ",
           f"{job:<12} {name:>10} {'gpu':>10} {'nlp-lab':>10} {ctx.nhost * 64:>10} {state:>10} {code:>8} ",
           f"{str(job) + '.batch':<12} {'batch':>10} {'':>10} {'nlp-lab':>10} {64:>10} {state:>10} {code:>8} ",
           f"{str(job) + '.0':<12} {'torchrun' if 'deepspeed' not in ctx.launcher else 'python':>10} {'':>10} {'nlp-lab':>10} {ctx.nhost * 64:>10} {state:>10} {code:>8} "]
    return [("$ sacct -j " + str(job), ())] + [(x, ("K",) if state in x and state != "COMPLETED" else ()) for x in out]


def layout_k8s(st):
    ctx = st.ctx
    rng = ctx.rng
    hosts = getattr(ctx, "only_hosts", None) or ctx.detail_hosts
    job = pick(rng, ["llama-sft", "qwen-lora", "ft-run", "sft-7b", "pretrain-test"]) + f"-{hexs(rng, 4)}"
    files = []
    pods = {h: (f"{job}-master-0" if h == 0 else f"{job}-worker-{h - 1}") for h in range(ctx.nhost)}
    image = pick(rng, [{0: "nvcr.io/nvidia/pytorch:23.06-py3", 1: "nvcr.io/nvidia/pytorch:24.02-py3", 2: "pytorch/pytorch:2.5.1-cuda12.4-cudnn9-devel", 3: "pytorch/pytorch:2.7.1-cuda12.8-cudnn9-devel"}[ctx.E],
                       f"ghcr.io/{ctx.user}-lab/llm-train:{pick(rng, ['latest', 'v3', '2024-06'])}"])
    ctx.pods = pods
    for h in hosts:
        lines = merged(st, [h], host_ident=True)
        lines = cap_size(ctx, finalize_console(ctx, lines, keep_cr=True), 500000 // max(1, len(hosts)))
        files.append((f"logs/{pods[h]}.log", lines))
    # describe the pods that ended abnormally
    desc = []
    for h in hosts:
        ended = any(e.src == ("l", h) and ("ChildFailedError" in e.text or "SignalException" in e.text) for e in st.ev)
        if not ended and ctx.cause is not None and not (getattr(ctx, "preempt", None) and ctx.preempt[1] == h):
            continue
        reason, code = ("Completed", 0) if ctx.cause is None else ("Error", 1)
        if getattr(ctx, "preempt", None) and ctx.preempt[1] == h:
            reason, code = "Error", 143
        if ctx.cause == "host_oom_kill" and ctx.init_host == h and rng.random() < 0.5:
            reason, code = "OOMKilled", 137
        d = ctx.clock[h].at(0)
        d2 = ctx.clock[h].at(st.end_t)
        desc += [f"Name:             {pods[h]}", f"Namespace:        {pick(rng, ['default', 'ml', 'training'])}", f"Node:             {ctx.hosts[h]}/{ctx.ips[h]}",
                 f"Start Time:       {d.strftime('%a, %d %b %Y %H:%M:%S')} +0000", "Labels:           training.kubeflow.org/job-name=" + job,
                 f"                  training.kubeflow.org/replica-type={'master' if h == 0 else 'worker'}", "Status:           " + ("Succeeded" if code == 0 else "Failed"),
                 "Containers:", "  pytorch:", f"    Image:         {image}",
                 "    State:          Terminated", f"      Reason:       {reason}", f"      Exit Code:    {code}",
                 f"      Started:      {d.strftime('%a, %d %b %Y %H:%M:%S')} +0000", f"      Finished:     {d2.strftime('%a, %d %b %Y %H:%M:%S')} +0000",
                 "    Limits:", f"      memory:          {pick(rng, ['256Gi', '480Gi', '900Gi'])}", f"      nvidia.com/gpu:  {ctx.gpn}", "Events:"]
        if getattr(ctx, "preempt", None) and ctx.preempt[1] == h and ctx.preempt[0] == "k8s":
            desc += ["  Type     Reason        Age   From     Message", "  ----     ------        ----  ----     -------",
                     f"  Warning  NodeShutdown  {rng.randrange(2, 50)}m   kubelet  Pod was terminated in response to imminent node shutdown."]
        else:
            desc += ["  <none>"]
        desc.append("")
    if desc:
        files.append(("kubectl_describe_pods.txt", [(x, ("K", "N") if "imminent node shutdown" in x else (("K",) if "OOMKilled" in x else ())) for x in desc]))
    if getattr(ctx, "preempt", None) and ctx.preempt[0] == "k8s":
        h = ctx.preempt[1]
        files.append(("events.txt", [("$ kubectl get events --field-selector involvedObject.kind=Node", ()),
                                     ("LAST SEEN   TYPE      REASON                    OBJECT                      MESSAGE", ()),
                                     (f"{rng.randrange(5, 59)}m         Normal    NodeNotReady              node/{ctx.hosts[h]}   Node {ctx.hosts[h]} status is now: NodeNotReady", ("N",))]))
    files += attachments(st, host_named=True)
    if st.user_text:
        files.append(("issue_comment.txt", list(st.user_text)))
    return files


LAYOUT_FUNCS = {"issue": layout_issue, "paste": layout_paste, "torchrun_logdir": layout_torchrun_logdir, "deepspeed": layout_deepspeed,
                "notebook": layout_notebook, "slurm": layout_slurm, "k8s": layout_k8s}


# ----------------------------------------------------------------------------------------
# truth, writing, main
# ----------------------------------------------------------------------------------------

def compute_truth(st, files):
    ctx = st.ctx
    surv = set()
    alltext = []
    for _, lines in files:
        for t, tg in lines:
            surv.update(tg)
            alltext.append(t)
    if ctx.cause is None:
        return None, surv
    rank = None
    if ctx.init_rank is not None:
        if "R" in surv or any(gr and gr <= surv for gr in st.rank_groups):
            rank = ctx.init_rank
    node = None
    if ctx.init_host is not None:
        host = ctx.hosts[ctx.init_host]
        if ctx.nhost == 1:
            blob = "\n".join(alltext)
            if host.split(".")[0] in blob:
                node = host
        elif "N" in surv or any(gr and gr <= surv for gr in st.node_groups):
            node = host
        elif rank is not None:
            # a rank that is pinned down implies its host (global rank -> node rank -> host list in the files)
            blob = "\n".join(alltext)
            if host.split(".")[0] in blob:
                node = host
    return {"rank": rank, "node": node}, surv


def choose_layout(rng, cause, used):
    allowed = LAYOUTS_FOR[cause]
    m = min(used[x] for x in allowed)
    cands = [x for x in allowed if used[x] == m]
    return pick(rng, cands)


def write_run(path, files):
    os.makedirs(path, exist_ok=True)
    for name, lines in files:
        fp = os.path.join(path, name)
        os.makedirs(os.path.dirname(fp), exist_ok=True)
        with open(fp, "w", encoding="utf-8", newline="") as f:
            f.write("\n".join(t for t, _ in lines))
            f.write("\n")


def run_size(files):
    return sum(len("\n".join(t for t, _ in lines).encode("utf-8")) + 1 for _, lines in files)


def gen_one(seed, i, cause, layout):
    rng = random.Random(f"blind65:{seed}:run:{i}")
    ctx = make_ctx(rng, i, layout, cause, seed)
    ctx.jobid = rng.randrange(100000, 9999999)
    st = Story(ctx)
    SCENARIOS[cause](st)
    files = LAYOUT_FUNCS[layout](st)
    # de-duplicate file names (keep first)
    seen = []
    uniq = []
    for name, lines in files:
        if name in seen:
            continue
        seen.append(name)
        uniq.append((name, lines))
    files = uniq
    guard = 0
    while run_size(files) > MAX_RUN_BYTES and guard < 12:
        guard += 1
        k = max(range(len(files)), key=lambda j: run_size([files[j]]))
        name, lines = files[k]
        files[k] = (name, cap_size(ctx, lines, int(run_size([files[k]]) * 0.6)))
    init, surv = compute_truth(st, files)
    truth = {"healthy": cause is None, "cause": cause, "initiator": init, "layout": layout, "notes": st.notes}
    return files, truth, ctx


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--seed", default="1")
    a = ap.parse_args(argv)
    rng = random.Random(f"blind65:{a.seed}")
    order = list(CAUSES)
    rng.shuffle(order)
    used = {x: 0 for x in LAYOUTS}
    counts = {"healthy": 0}
    for c in CAUSES:
        counts[c] = 0
    os.makedirs(a.out, exist_ok=True)
    k = 0
    for i in range(a.n):
        if i % 7 == 3:
            cause = None
        else:
            cause = order[k % len(order)]
            k += 1
        layout = choose_layout(rng, cause, used)
        used[layout] += 1
        files, truth, ctx = gen_one(a.seed, i, cause, layout)
        d = os.path.join(a.out, f"run-{i:03d}-{layout}")
        if os.path.isdir(d):
            shutil.rmtree(d)
        files.append(("truth.json", [(json.dumps(truth, indent=2), ())]))
        write_run(d, files)
        counts["healthy" if cause is None else cause] += 1
    print(json.dumps(counts, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
