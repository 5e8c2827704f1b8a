#!/usr/bin/env python3
"""blind28 -- synthetic log bundles from small labs and workstations.

Multi-GPU training in one box or a handful of boxes, the way students,
start-ups and hobbyists run it and paste it: 2-8 consumer/workstation GPUs
(RTX 3090/4090/5090, A6000, L40S, mixed models in one box), PCIe without
NVLink, risers and tired power supplies, thermal throttling, WSL2/Windows with
gloo, two boxes over plain 1/10 GbE with NCCL sockets, torchrun / accelerate /
deepspeed / mp.spawn / notebook_launcher from a terminal, nohup.out, tmux
captures and Jupyter notebooks.

Written blind: without reading the diagnosis tool's code, rules or tests.
Standard library only.  Deterministic for a given --seed.

usage: python3 gen_blind28.py --out DIR --n 60 --seed S
"""
import argparse
import base64
import datetime as dt
import json
import os
import random
import sys

NAME = "blind28"

CAUSES = ["gpu_hardware", "ecc_memory", "nvlink", "network", "cuda_oom",
          "illegal_memory_access", "python_exception", "host_oom_kill",
          "crash_signal", "preemption", "hang", "data_loader_stall",
          "collective_mismatch", "straggler", "unknown"]

LAYOUTS = ["tmux-torchrun", "nohup-accelerate", "deepspeed-pdsh",
           "windows-gloo", "jupyter-notebook", "twobox-socket",
           "mixedbox-spawn"]

# (layout, cause) pairs that cannot happen and are re-dealt (swapped with a
# neighbouring run's layout).  Windows/WSL2 has no CUDA peer-to-peer, so an
# NVLink bridge is never on the data path of a gloo/WSL job.
INCOMPATIBLE = [("windows-gloo", "nvlink")]

DRAIN_CAUSES = ("gpu_hardware", "ecc_memory", "nvlink")

# --------------------------------------------------------------------------
# versions
# --------------------------------------------------------------------------
TORCH = [("2.1.2", (2, 1)), ("2.2.2", (2, 2)), ("2.3.1", (2, 3)),
         ("2.4.1", (2, 4)), ("2.5.1", (2, 5)), ("2.6.0", (2, 6)),
         ("2.7.1", (2, 7)), ("2.8.0", (2, 8)), ("2.9.0", (2, 9))]
NCCL_FOR = {(2, 1): "2.18.1", (2, 2): "2.19.3", (2, 3): "2.20.5",
            (2, 4): "2.20.5", (2, 5): "2.21.5", (2, 6): "2.21.5",
            (2, 7): "2.26.2", (2, 8): "2.27.3", (2, 9): "2.27.5"}
CUDA_FOR = {(2, 1): "12.1", (2, 2): "12.1", (2, 3): "12.1", (2, 4): "12.4",
            (2, 5): "12.4", (2, 6): "12.6", (2, 7): "12.8", (2, 8): "12.8",
            (2, 9): "12.8"}
# release window of each torch minor (year, month) .. (year, month)
DATE_FOR = {(2, 1): (2023, 11, 2024, 2), (2, 2): (2024, 2, 2024, 5),
            (2, 3): (2024, 5, 2024, 8), (2, 4): (2024, 8, 2024, 11),
            (2, 5): (2024, 11, 2025, 2), (2, 6): (2025, 2, 2025, 5),
            (2, 7): (2025, 5, 2025, 8), (2, 8): (2025, 8, 2025, 10),
            (2, 9): (2025, 10, 2026, 1)}
DRIVERS = [("535.183.01", "12.2"), ("545.29.06", "12.3"), ("550.120", "12.4"),
           ("550.54.15", "12.4"), ("555.42.06", "12.5"), ("560.35.03", "12.6"),
           ("565.57.01", "12.7"), ("570.133.07", "12.8"), ("575.64.03", "12.9"),
           ("580.82.07", "13.0")]
DRV_DATE = {"535.183.01": "Sun May 12 19:39:15 UTC 2024", "545.29.06": "Thu Nov 16 01:59:08 UTC 2023",
            "550.120": "Fri Sep 13 10:10:01 UTC 2024", "550.54.15": "Tue Mar  5 22:23:56 UTC 2024",
            "555.42.06": "Sat Jun  1 00:16:33 UTC 2024", "560.35.03": "Fri Aug 16 21:39:15 UTC 2024",
            "565.57.01": "Thu Oct 10 12:29:05 UTC 2024", "570.133.07": "Fri Mar 14 13:12:07 UTC 2025",
            "575.64.03": "Wed Jun 25 19:10:09 UTC 2025", "580.82.07": "Wed Aug 27 02:04:53 UTC 2025"}
WIN_DRIVERS = [("551.86", "12.4"), ("560.94", "12.6"), ("566.36", "12.7"),
               ("572.83", "12.8"), ("576.88", "12.9"), ("581.29", "13.0")]

# ProcessGroupNCCL.cpp line numbers per torch minor (approximate, per release)
PGN = {(2, 1): dict(wd=475, exc=0, some=489, take=495, term=916, chk=477),
       (2, 2): dict(wd=523, exc=0, some=537, take=543, term=1182, chk=525),
       (2, 3): dict(wd=563, exc=1316, some=577, take=583, term=1418, chk=565),
       (2, 4): dict(wd=607, exc=1664, some=621, take=627, term=1537, chk=609),
       (2, 5): dict(wd=616, exc=1785, some=630, take=636, term=1601, chk=618),
       (2, 6): dict(wd=632, exc=2027, some=646, take=652, term=1615, chk=634),
       (2, 7): dict(wd=632, exc=2063, some=646, take=652, term=1664, chk=635),
       (2, 8): dict(wd=673, exc=2202, some=687, take=693, term=1773, chk=676),
       (2, 9): dict(wd=684, exc=2241, some=698, take=704, term=1811, chk=687)}

# --------------------------------------------------------------------------
# GPUs
# --------------------------------------------------------------------------
# name: (nvidia-smi name, MiB, TDP W, ecc, nvlink-bridge capable, speed, pci id,
#        max sm clock, max mem clock)
GPUS = {
    "3090": ("NVIDIA GeForce RTX 3090", 24576, 350, False, True, 1.00, "2204", 2100, 9751),
    "3090ti": ("NVIDIA GeForce RTX 3090 Ti", 24564, 450, False, True, 1.12, "2203", 2100, 10501),
    "3080": ("NVIDIA GeForce RTX 3080", 10240, 320, False, False, 0.86, "2206", 2100, 9501),
    "3060": ("NVIDIA GeForce RTX 3060", 12288, 170, False, False, 0.42, "2504", 2100, 7501),
    "4080": ("NVIDIA GeForce RTX 4080", 16376, 320, False, False, 1.35, "2704", 3105, 11201),
    "4090": ("NVIDIA GeForce RTX 4090", 24564, 450, False, False, 1.85, "2684", 3120, 10501),
    "5090": ("NVIDIA GeForce RTX 5090", 32607, 575, False, False, 2.55, "2b85", 3090, 14001),
    "a6000": ("NVIDIA RTX A6000", 49140, 300, True, True, 1.05, "2230", 2100, 8001),
    "a5000": ("NVIDIA RTX A5000", 24564, 230, True, True, 0.80, "2231", 2100, 8001),
    "6000ada": ("NVIDIA RTX 6000 Ada Generation", 49140, 300, True, False, 1.80, "26b1", 3105, 10001),
    "l40s": ("NVIDIA L40S", 46068, 350, True, False, 1.90, "26b9", 2520, 9001),
}
CONSUMER = ["3090", "3090ti", "3080", "3060", "4080", "4090", "5090"]
PRO_ECC = ["a6000", "a5000", "6000ada", "l40s"]
BRIDGEABLE = ["3090", "3090ti", "a6000", "a5000"]

# box recipes: list of gpu keys, bridged pairs (indices) allowed
BOXES = [
    ["4090", "4090"], ["4090"] * 4, ["4090"] * 8, ["3090", "3090"], ["3090"] * 4,
    ["3090"] * 6, ["5090", "5090"], ["a6000", "a6000"], ["a6000"] * 4,
    ["l40s", "l40s"], ["l40s"] * 4, ["6000ada"] * 4, ["a5000"] * 2,
    ["4090", "3090"], ["4090", "3090", "3090"], ["3090", "3080"],
    ["4090", "4080"], ["a6000", "4090"], ["3090ti", "3090"],
    ["4090", "4090", "3090", "3090"], ["5090", "4090"],
]

LINUX_HOSTS = ["ubuntu-4090", "dl-box", "deeplearn01", "gpu-rig", "threadripper",
               "trx40", "lambda-quad", "ryzen-3090", "epyc-a6000", "pop-os",
               "archbox", "homelab-gpu", "labpc-02", "wks-l40s", "stablediff",
               "lab-ws3", "ml-server", "rig2", "bigboi", "node-a", "node-b",
               "workstation", "ai-box", "z690", "x570-rig", "hedt", "tower1",
               "tower2", "b650-ml", "w790", "garage-rig", "den-pc"]
USERS = ["alex", "ubuntu", "kim", "jdoe", "ml", "sam", "priya", "wei", "admin",
         "tom", "marta", "yuki", "omar", "lena", "dev", "chris"]
PROJECTS = ["llm-ft", "sd-lora", "vit-train", "proj/asr", "code/tts", "nanoGPT",
            "yolo-custom", "thesis/seg", "work/rec", "lora-sdxl", "minGPT-ddp",
            "research/diffusion", "qwen-sft", "llama-factory-run", "detr-exp"]
TZS = [("UTC", 0), ("CEST", 120), ("CET", 60), ("BST", 60), ("PDT", -420),
       ("PST", -480), ("EDT", -240), ("CST", 480), ("KST", 540), ("IST", 330),
       ("-03", -180), ("JST", 540), ("AEST", 600), ("EEST", 180)]
NICS = [  # driver, pci, iface, speed text, link-up text
    ("igc", "0000:06:00.0", "enp6s0", "2500 Mbps Full Duplex, Flow Control: RX/TX"),
    ("r8169", "0000:05:00.0", "enp5s0", "1Gbps/Full - flow control rx/tx"),
    ("e1000e", "0000:00:1f.6", "eno1", "1000 Mbps Full Duplex, Flow Control: None"),
    ("ixgbe", "0000:03:00.0", "enp3s0f0", "10 Gbps, Flow Control: RX/TX"),
    ("atlantic", "0000:07:00.0", "enp7s0", "10000"),
    ("igb", "0000:04:00.0", "enp4s0", "1000 Mbps Full Duplex, Flow Control: RX/TX"),
]

EPOCH0 = dt.datetime(1970, 1, 1)


def hx(rng, n):
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


def uuid(rng):
    return "GPU-%s-%s-%s-%s-%s" % (hx(rng, 8), hx(rng, 4), hx(rng, 4), hx(rng, 4), hx(rng, 12))


def gib(mib):
    return mib / 1024.0


def fmt_gib(x):
    if x < 1.0:
        return "%.2f MiB" % (x * 1024)
    return "%.2f GiB" % x


class GPU:
    def __init__(self, idx, key, bus, rng):
        self.idx = idx          # nvidia-smi / PCI order index
        self.key = key
        (self.name, self.mib, self.tdp, self.ecc, self.bridgeable, self.speed,
         self.pciid, self.maxclk, self.memclk) = GPUS[key]
        self.bus = bus          # 0000:01:00.0
        self.uuid = uuid(rng)
        self.nvlink_peer = None
        self.serial = "".join(rng.choice("0123456789") for _ in range(13)) if self.ecc else "N/A"

    @property
    def short(self):
        return self.name.replace("NVIDIA ", "").replace("GeForce ", "")

    def xid_pci(self):          # "0000:01:00"
        return self.bus[:-2]

    def nccl_busid(self):       # "1000" / "41000"
        b = int(self.bus.split(":")[1], 16)
        return "%x000" % b

    def win_gpuid(self):        # nvlddmkm "GPUID: 100" / "2d00"
        b = int(self.bus.split(":")[1], 16)
        return "%x00" % b


class Host:
    def __init__(self):
        self.name = ""
        self.aliases = []
        self.fqdn = ""
        self.ip = ""
        self.iface = ""
        self.nic = None
        self.os = "linux"       # linux | wsl | win
        self.tzname, self.tz = "UTC", 0
        self.skew = 0.0
        self.boot = 0.0
        self.gpus = []
        self.cuda_order = []    # cuda device index -> GPU
        self.user = "alex"
        self.proj = "proj"
        self.py = "3.10"
        self.site = ""
        self.bin = ""
        self.script = ""
        self.kernel = []        # (t, text)
        self.kver = ""
        self.board = ""
        self.ram_gb = 64
        self.ncpu = 16
        self.ranks = []
        self.agent_pid = 0

    def local(self, t):
        return EPOCH0 + dt.timedelta(seconds=t + self.skew + self.tz * 60)


class Rank:
    def __init__(self, r, local, host, gpu, cuda_dev, pid):
        self.r = r
        self.local = local
        self.host = host
        self.gpu = gpu
        self.dev = cuda_dev
        self.pid = pid
        self.tid = pid + 60 + (local * 7) % 40


class Exit:
    def __init__(self, t, code, how):
        self.t = t
        self.code = code        # 0, 1, -6, -9, -11, -15, 3221225477 ...
        self.how = how          # ok | error | signal | killed | oom


class Line:
    __slots__ = ("t", "seq", "host", "src", "text", "kind")

    def __init__(self, t, seq, host, src, text, kind):
        self.t, self.seq, self.host, self.src, self.text, self.kind = t, seq, host, src, text, kind


# --------------------------------------------------------------------------
# time formats
# --------------------------------------------------------------------------
def f_c10(d, level, frac_rng):
    """torch c10 log prefix (2.4+): E1015 12:34:56.789012345"""
    return "%s%d%02d %s.%09d" % (level, d.month, d.day, d.strftime("%H:%M:%S"),
                                 d.microsecond * 1000 + frac_rng.randint(0, 999))


def f_glog(d, level):
    """python-side torch logging (2.3+): W0514 02:13:07.123000"""
    return "%s%02d%02d %s.%06d" % (level, d.month, d.day, d.strftime("%H:%M:%S"),
                                   (d.microsecond // 1000) * 1000)


def f_pylog(d):
    return "%s,%03d" % (d.strftime("%Y-%m-%d %H:%M:%S"), d.microsecond // 1000)


def f_ctime(d):
    return d.strftime("%a %b ") + ("%2d" % d.day) + d.strftime(" %H:%M:%S %Y")


def f_hms(sec):
    sec = int(max(0, sec))
    h, rem = divmod(sec, 3600)
    m, s = divmod(rem, 60)
    if h:
        return "%d:%02d:%02d" % (h, m, s)
    return "%02d:%02d" % (m, s)


def tqdm_bar(n, total, elapsed, rate_it_s, desc="", postfix="", width=10):
    frac = n / float(total) if total else 0.0
    pct = int(frac * 100)
    full = int(frac * width)
    part = int((frac * width - full) * 8)
    blocks = " ▏▎▍▌▋▊▉"
    bar = "█" * full
    if full < width:
        bar += (blocks[part] if part else " ") + " " * (width - full - 1)
    remaining = (total - n) / rate_it_s if rate_it_s > 0 else 0
    if rate_it_s >= 1:
        rate = "%.2fit/s" % rate_it_s
    else:
        rate = "%.2fs/it" % (1.0 / rate_it_s if rate_it_s else 0)
    s = "%s%3d%%|%s| %d/%d [%s<%s, %s%s]" % (
        (desc + ": ") if desc else "", pct, bar, n, total, f_hms(elapsed),
        f_hms(remaining), rate, (", " + postfix) if postfix else "")
    return s


# --------------------------------------------------------------------------
# the job
# --------------------------------------------------------------------------
class Job:
    def __init__(self, seed, idx, layout, cause):
        self.seed, self.idx, self.layout, self.cause = seed, idx, layout, cause
        self.healthy = cause is None
        self.rng = random.Random("%s:%s:%d:%s:%s" % (NAME, seed, idx, layout, cause))
        self.frng = random.Random("%s:frac:%s:%d" % (NAME, seed, idx))
        self.lines = []
        self.seq = 0
        self.exits = {}
        self.files = {}          # extra artifacts: name -> text
        self.notes = []
        self.decoys = []
        self.truth = dict(cause=cause, healthy=self.healthy, rank=None, node=None,
                          drain=False, rank_inferable=False, node_aliases=[],
                          layout=layout, notes="")
        self.culprit = None      # Rank
        self.culprit_host = None
        self.progress_end = None
        self.end_kind = None
        self.remote_mode = "remote_error"
        self.timeout_pending = []
        self.stall_dump = None

    # ---------------- emit helpers ----------------
    def emit(self, host, t, src, text, kind="line"):
        self.seq += 1
        self.lines.append(Line(t, self.seq, host.name, src, text, kind))

    def remit(self, rank, t, text, kind="line"):
        self.emit(rank.host, t, "r%d" % rank.r, text, kind)

    def kern(self, host, t, text):
        host.kernel.append((t, text))

    # ---------------- choices ----------------
    def pick(self, seq):
        return self.rng.choice(seq)

    def chance(self, p):
        return self.rng.random() < p

    def ver_ge(self, *v):
        return self.tv >= v


def win_name(rng):
    pre = rng.choice(["DESKTOP-", "DESKTOP-", "DESKTOP-", "LAPTOP-", "WIN-"])
    n = 7 if pre != "WIN-" else 11
    return pre + "".join(rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZ0123456789") for _ in range(n))


BUS_SETS = {
    "consumer": ["0000:01:00.0", "0000:02:00.0", "0000:05:00.0", "0000:06:00.0",
                 "0000:08:00.0", "0000:09:00.0", "0000:0a:00.0", "0000:0b:00.0"],
    "hedt": ["0000:01:00.0", "0000:21:00.0", "0000:41:00.0", "0000:61:00.0",
             "0000:81:00.0", "0000:a1:00.0", "0000:c1:00.0", "0000:e1:00.0"],
    "w790": ["0000:16:00.0", "0000:38:00.0", "0000:5a:00.0", "0000:7c:00.0",
             "0000:9e:00.0", "0000:b0:00.0", "0000:c2:00.0", "0000:d4:00.0"],
    "am5": ["0000:01:00.0", "0000:03:00.0", "0000:0c:00.0", "0000:0d:00.0"],
}
BOARDS = {
    "consumer": ["Micro-Star International Co., Ltd. MS-7D25/PRO Z690-A DDR4(MS-7D25), BIOS 1.90 12/13/2022",
                 "ASUS System Product Name/ROG STRIX Z790-E GAMING WIFI, BIOS 1663 11/10/2023",
                 "Gigabyte Technology Co., Ltd. X570 AORUS MASTER/X570 AORUS MASTER, BIOS F36e 11/01/2022",
                 "ASRock X570 Taichi/X570 Taichi, BIOS P5.00 10/19/2022"],
    "hedt": ["ASUS System Product Name/Pro WS WRX80E-SAGE SE WIFI, BIOS 1201 05/17/2023",
             "Gigabyte Technology Co., Ltd. TRX40 AORUS PRO WIFI/TRX40 AORUS PRO WIFI, BIOS F7 01/28/2022",
             "Supermicro Super Server/H12SSL-i, BIOS 2.6 12/11/2023",
             "ASRock Rack ROMED8-2T/ROMED8-2T, BIOS P3.50 07/18/2023"],
    "w790": ["ASUS System Product Name/Pro WS W790-ACE, BIOS 1102 01/05/2024"],
    "am5": ["ASUS System Product Name/ProArt X670E-CREATOR WIFI, BIOS 1904 01/19/2024",
            "Micro-Star International Co., Ltd. MS-7E12/MAG B650 TOMAHAWK WIFI (MS-7E12), BIOS 1.I0 03/12/2024"],
}
KERNELS = {"22.04": ["5.15.0-105-generic", "6.5.0-35-generic", "6.8.0-40-generic"],
           "24.04": ["6.8.0-48-generic", "6.8.0-60-generic", "6.11.0-26-generic"],
           "arch": ["6.9.7-arch1-1", "6.12.10-arch1-1"],
           "wsl": ["5.15.153.1-microsoft-standard-WSL2", "5.15.167.4-microsoft-standard-WSL2",
                   "6.6.87.2-microsoft-standard-WSL2"]}


def choose_box(job, role):
    """role: culprit box or other box. returns list of gpu keys."""
    rng = job.rng
    c = job.cause
    if role == "culprit":
        if c == "ecc_memory":
            return rng.choice([["a6000", "a6000"], ["a6000"] * 4, ["l40s", "l40s"],
                               ["l40s"] * 4, ["6000ada"] * 4, ["a5000"] * 2,
                               ["6000ada", "6000ada"], ["a6000", "4090"]])
        if c == "nvlink":
            return rng.choice([["3090", "3090"], ["3090"] * 4, ["a6000", "a6000"],
                               ["a6000"] * 4, ["3090ti", "3090ti"], ["a5000"] * 2,
                               ["3090", "3090", "4090"]])
        if c == "straggler" and job.strag_kind == "mixed":
            return rng.choice([["4090", "3090"], ["4090", "3090", "3090"], ["4090", "4090", "3090"],
                               ["3090", "3080"], ["4090", "4080"], ["a6000", "4090"],
                               ["5090", "4090"], ["4090", "4090", "4090", "3090"],
                               ["3090", "3090", "3060"]])
        if c == "cuda_oom" and job.oom_kind == "mixed":
            return rng.choice([["3090", "3080"], ["4090", "4080"], ["4090", "3090", "3080"],
                               ["5090", "4090"], ["a6000", "4090"], ["3090", "3090", "3060"]])
    near_equal = [["3090ti", "3090"], ["3090", "a6000"], ["4090", "6000ada"], ["4090", "l40s"], ["3090", "3090ti", "3090"],
                  ["a6000", "3090", "3090"], ["4090", "4090", "6000ada"]]
    if job.healthy and (job.layout == "mixedbox-spawn" or rng.random() < 0.2):
        return list(rng.choice(near_equal))
    if job.os in ("win", "wsl"):
        return rng.choice([["4090", "4090"], ["3090", "3090"], ["4090", "3090"],
                           ["3090", "3090", "3090"], ["5090", "5090"], ["4090", "4080"],
                           ["a6000", "a6000"]])
    if job.layout == "mixedbox-spawn" and role == "culprit":
        return rng.choice([["4090", "3090"], ["4090", "3090", "3090"], ["4090", "4090", "3090", "3090"],
                           ["3090ti", "3090"], ["a6000", "4090"], ["5090", "4090"],
                           ["4090", "4080"], ["3090", "3090", "3080"]])
    return list(rng.choice(BOXES))


def setup(job):
    rng = job.rng
    L, C = job.layout, job.cause
    job.strag_kind = rng.choice(["mixed", "mixed", "thermal", "lanes"])
    if L == "mixedbox-spawn":
        job.strag_kind = "mixed" if rng.random() < 0.7 else "thermal"
    job.oom_kind = rng.choice(["mixed", "display", "batch"])
    # ------------ OS / launcher / backend
    job.os = "linux"
    job.launcher = {"tmux-torchrun": "torchrun", "nohup-accelerate": "accelerate",
                    "deepspeed-pdsh": "deepspeed", "windows-gloo": "torchrun",
                    "jupyter-notebook": "notebook", "twobox-socket": "torchrun",
                    "mixedbox-spawn": "spawn"}[L]
    job.backend = "nccl"
    if L == "windows-gloo":
        job.os = "wsl" if (C == "host_oom_kill" or rng.random() < 0.4) else "win"
        if job.os == "win":
            job.backend = "gloo"
            job.launcher = "torchrun" if rng.random() < 0.7 else "spawn"
        else:
            job.backend = "gloo" if rng.random() < 0.5 else "nccl"
            job.launcher = "torchrun" if rng.random() < 0.75 else "accelerate"
    if L == "twobox-socket" and rng.random() < 0.3:
        job.launcher = "accelerate"
    # ------------ versions
    cand = TORCH[:]
    if job.layout == "deepspeed-pdsh":
        cand = TORCH[:8]
    tver, tv = rng.choice(cand)
    job.tver, job.tv = tver, tv
    job.nccl = NCCL_FOR[tv]
    job.cuda = CUDA_FOR[tv]
    if tv in ((2, 4), (2, 5)) and rng.random() < 0.4:
        job.cuda = "12.1"
    if tv in ((2, 6), (2, 7)) and rng.random() < 0.3:
        job.cuda = "12.6" if tv == (2, 7) else "12.4"
    job.cu = "cu" + job.cuda.replace(".", "")
    y1, m1, y2, m2 = DATE_FOR[tv]
    start = dt.datetime(y1, m1, 1)
    end = dt.datetime(y2, m2, 1) + dt.timedelta(days=120)
    span = (end - start).total_seconds()
    job.t_launch = (start - EPOCH0).total_seconds() + rng.random() * span
    # ------------ hosts
    nh = 1
    if L == "twobox-socket":
        nh = rng.choice([2, 2, 2, 3, 4])
    elif L == "deepspeed-pdsh":
        nh = rng.choice([1, 1, 1, 2, 2, 3])
    elif L in ("tmux-torchrun",):
        nh = 1 if rng.random() < 0.8 else 2
    elif L == "nohup-accelerate":
        nh = 1 if rng.random() < 0.85 else 2
    elif L == "windows-gloo":
        nh = 1 if rng.random() < 0.8 else 2
    if C == "network" and nh < 2:
        nh = 2 if rng.random() < 0.8 else 3
    if C == "preemption" and L in ("twobox-socket",):
        nh = max(nh, 2)
    job.nhosts = nh
    # which host holds the culprit
    job.culprit_hidx = 0 if nh == 1 else rng.randrange(nh)
    if C in ("ecc_memory", "nvlink", "gpu_hardware") and nh > 1 and rng.random() < 0.3:
        job.culprit_hidx = 0
    job.hosts = []
    names_used = []
    ip_base = rng.choice(["192.168.1.", "192.168.0.", "10.0.0.", "192.168.178.", "10.10.10."])
    ip_last = rng.sample(range(10, 250), nh)
    tzname, tz = rng.choice(TZS)
    distro = rng.choice(["22.04", "22.04", "24.04", "24.04", "arch"])
    same_box = rng.random() < 0.5
    first_box = None
    for h in range(nh):
        host = Host()
        host.os = job.os
        host.tzname, host.tz = tzname, tz
        if h > 0:
            # second box: often nobody set the time zone (UTC) or the clock drifts
            if rng.random() < 0.35:
                host.tzname, host.tz = "UTC", 0
            host.skew = rng.choice([0.0, 0.0, rng.uniform(-4, 4), rng.uniform(-420, 420),
                                    rng.uniform(20, 190)])
        if job.os == "wsl" and rng.random() < 0.5:
            host.tzname, host.tz = "UTC", 0
            host.skew += rng.choice([0.0, rng.uniform(30, 900)])  # WSL2 clock drift after sleep
        if job.os in ("win", "wsl"):
            nm = win_name(rng)
        else:
            while True:
                nm = rng.choice(LINUX_HOSTS)
                if nm not in names_used:
                    break
        names_used.append(nm)
        host.name = nm
        host.user = rng.choice(USERS)
        host.proj = rng.choice(PROJECTS)
        host.ip = ip_base + str(ip_last[h])
        nic = rng.choice(NICS)
        host.nic = nic
        host.iface = nic[2]
        if job.os == "wsl":
            host.iface = "eth0"
            host.ip = "172.%d.%d.%d" % (rng.randint(17, 31), rng.randint(0, 255), rng.randint(2, 250))
            host.win_ip = ip_base + str(ip_last[h])
        if job.os == "win":
            host.iface = rng.choice(["Ethernet", "Ethernet 2", "Ethernet0"])
        role = "culprit" if h == job.culprit_hidx else "other"
        if h > 0 and same_box and first_box is not None and role != "culprit":
            keys = list(first_box)
        else:
            keys = choose_box(job, role)
        if h == 0:
            first_box = keys
        plat = "consumer"
        if len(keys) > 4 or any(k in PRO_ECC for k in keys) and rng.random() < 0.7:
            plat = rng.choice(["hedt", "hedt", "w790"])
        elif any(k == "5090" for k in keys):
            plat = rng.choice(["am5", "consumer"])
        buses = BUS_SETS[plat][:]
        if plat == "consumer" and len(keys) > 4:
            buses = BUS_SETS["consumer"]
        host.plat = plat
        host.board = rng.choice(BOARDS[plat])
        host.ram_gb = rng.choice([32, 64, 64, 128, 128, 256]) if plat != "consumer" else rng.choice([32, 64, 64, 96, 128])
        host.ncpu = rng.choice([12, 16, 24, 32]) if plat == "consumer" else rng.choice([24, 32, 48, 64, 128])
        host.gpus = [GPU(i, k, buses[i], rng) for i, k in enumerate(keys)]
        if job.os == "linux":
            toks = [x for x in ("4090", "3090", "a6000", "l40s") if x in host.name]
            if toks and toks[0] not in keys:
                nm = "%s-%s" % (rng.choice(["ubuntu", "dl", "ml", "box", "gpu"]), keys[0])
                while nm in names_used:
                    nm += "b"
                names_used[-1] = nm
                host.name = nm
        # bridged pairs
        for i in range(0, len(host.gpus) - 1, 2):
            a, b = host.gpus[i], host.gpus[i + 1]
            if a.bridgeable and a.key == b.key and (C == "nvlink" and role == "culprit" or rng.random() < 0.35):
                a.nvlink_peer, b.nvlink_peer = b.idx, a.idx
        mixed = len(set(g.key for g in host.gpus)) > 1
        host.pci_order = (not mixed) or rng.random() < 0.3
        order = list(host.gpus)
        if not host.pci_order:
            order = sorted(host.gpus, key=lambda g: (-g.speed, g.idx))
        host.cuda_order = order
        host.mixed = mixed
        if job.os == "linux":
            host.kver = rng.choice(KERNELS[distro])
            host.distro = distro
        else:
            host.kver = rng.choice(KERNELS["wsl"])
            host.distro = "wsl"
        host.fqdn = host.name
        if job.os == "linux" and rng.random() < 0.3:
            host.fqdn = host.name + rng.choice([".local", ".lan", ".localdomain", ".fritz.box", ".home"])
        host.boot = job.t_launch - rng.uniform(3600 * 2, 3600 * 24 * 20)
        host.agent_pid = rng.randint(2100, 390000) if job.os != "win" else rng.randrange(1000, 40000) // 4 * 4
        # python / paths
        if job.os == "win":
            host.py = rng.choice(["3.10", "3.11", "3.12"])
            env = rng.choice(["ml", "torch", "sd", "llm", "pt"])
            root = rng.choice([r"C:\Users\%s\miniconda3\envs\%s" % (host.user, env),
                               r"C:\Users\%s\anaconda3\envs\%s" % (host.user, env),
                               r"C:\Users\%s\Documents\%s\venv" % (host.user, host.proj.split("/")[-1])])
            host.site = root + r"\lib\site-packages"
            host.bin = root + r"\Scripts"
            host.pyexe = root + r"\python.exe"
            host.script_dir = r"C:\Users\%s\Documents\%s" % (host.user, host.proj.replace("/", "\\"))
            host.stdlib = root + r"\lib"
            host.sep = "\\"
        else:
            host.py = {"22.04": "3.10", "24.04": "3.12", "arch": "3.12", "wsl": "3.10"}[host.distro]
            if rng.random() < 0.35:
                host.py = "3.11"
            if rng.random() < 0.5:
                env = rng.choice(["ml", "torch", "pt2", "llm", "ft", "dl"])
                root = "/home/%s/miniconda3/envs/%s" % (host.user, env)
            else:
                root = "/home/%s/%s/.venv" % (host.user, host.proj)
            host.site = root + "/lib/python%s/site-packages" % host.py
            host.stdlib = (root + "/lib/python%s" % host.py) if "miniconda" in root else "/usr/lib/python%s" % host.py
            host.bin = root + "/bin"
            host.pyexe = root + "/bin/python"
            host.script_dir = "/home/%s/%s" % (host.user, host.proj)
            host.sep = "/"
        host.aliases = []
        if host.fqdn != host.name:
            host.aliases.append(host.fqdn)
        host.aliases.append(host.ip if job.os != "wsl" else host.win_ip)
        if job.os in ("win", "wsl"):
            host.aliases.append(host.name.lower())
        job.hosts.append(host)
    if any(g.key == "5090" for h in job.hosts for g in h.gpus) and job.tv < (2, 7):
        tver, tv = rng.choice(TORCH[6:])
        job.tver, job.tv = tver, tv
        job.nccl, job.cuda = NCCL_FOR[tv], CUDA_FOR[tv]
        job.cu = "cu" + job.cuda.replace(".", "")
        y1, m1, y2, m2 = DATE_FOR[tv]
        start = dt.datetime(y1, m1, 1)
        span = (dt.datetime(y2, m2, 1) + dt.timedelta(days=120) - start).total_seconds()
        old = job.t_launch
        job.t_launch = (start - EPOCH0).total_seconds() + rng.random() * span
        for h in job.hosts:
            h.boot += job.t_launch - old
    job.head = job.hosts[0]
    job.master_addr = job.head.ip if job.os != "wsl" else job.head.win_ip
    if job.nhosts == 1 and job.chance(0.6):
        job.master_addr = "127.0.0.1" if job.chance(0.6) else "localhost"
    job.master_port = job.pick([29500, 29500, 29500, 12355, 29400, 23456, 8888, 29501])
    # ------------ ranks
    job.ranks = []
    r = 0
    for host in job.hosts:
        host.ranks = []
        nproc = len(host.gpus)
        pid0 = host.agent_pid + job.rng.randint(8, 60)
        for i in range(nproc):
            if job.os == "win":
                pid = job.rng.randrange(1000, 40000) // 4 * 4
            else:
                pid = pid0 + i * job.rng.choice([1, 1, 2, 3, 12])
                pid0 = pid
            rk = Rank(r, i, host, host.cuda_order[i], i, pid)
            job.ranks.append(rk)
            host.ranks.append(rk)
            r += 1
    job.world = len(job.ranks)
    # ------------ flags
    job.nccl_debug = None
    if job.backend == "nccl":
        p = {"twobox-socket": 0.85, "deepspeed-pdsh": 0.35}.get(L, 0.3)
        if job.chance(p):
            job.nccl_debug = "INFO"
        elif job.chance(0.15):
            job.nccl_debug = "WARN"
    job.dist_debug = job.chance(0.25)        # TORCH_DISTRIBUTED_DEBUG=DETAIL
    if C == "collective_mismatch" and job.chance(0.35):
        job.dist_debug = True
    job.timeout_ms = job.pick([600000, 600000, 1800000, 1800000, 300000, 3600000])
    if job.backend == "gloo":
        job.timeout_ms = job.pick([1800000, 1800000, 600000])
    job.flavor = job.pick(["hf", "custom", "custom", "accel"])
    if job.launcher == "accelerate" or job.launcher == "notebook":
        job.flavor = job.pick(["accel", "accel", "hf"])
    if job.launcher == "deepspeed":
        job.flavor = job.pick(["hf", "custom", "ds"])
    if job.launcher == "spawn":
        job.flavor = "custom"
    job.per_rank = job.chance(0.3) or C == "straggler" or (C == "hang" and job.chance(0.5))
    if C != "straggler":
        for h in job.hosts:
            sp = [g.speed for g in h.gpus]
            if max(sp) / min(sp) > 1.3:
                job.per_rank = False   # a mixed box would show a persistent straggler
    job.tqdm = job.chance(0.8) if job.flavor != "hf" else True
    job.model = job.pick(["Llama-3.2-1B", "Qwen2.5-1.5B", "Mistral-7B-v0.3 (LoRA r=16)", "gpt2-medium",
                          "vit_base_patch16_224", "resnet50", "whisper-small", "sdxl-unet (LoRA)",
                          "TinyLlama-1.1B", "nanoGPT-124M", "phi-2", "deberta-v3-large", "yolov8m"])
    # ------------ timeline
    job.t_init = job.t_launch + job.rng.uniform(4, 25)
    job.t_train = job.t_init + job.rng.uniform(8, 160)
    base = job.rng.choice([0.18, 0.25, 0.4, 0.6, 0.9, 1.3, 2.1, 3.2])
    job.step_s = base
    job.total_steps = job.pick([1200, 2436, 3000, 5000, 7812, 10000, 15000, 20000, 30000])
    while job.total_steps * job.step_s > 36 * 3600:
        job.total_steps //= 2
    while job.total_steps * job.step_s < 1800:
        job.total_steps *= 2
    job.log_every = job.pick([10, 20, 25, 50, 100])
    while job.total_steps / job.log_every > 600:
        job.log_every *= 2
    job.epochs = job.pick([1, 2, 3, 3, 5, 10])
    frac = job.rng.uniform(0.04, 0.85)
    job.t_fail = job.t_train + max(90.0, frac * job.total_steps * job.step_s)
    job.seqnum0 = job.rng.randint(3, 9)      # collectives before training
    job.coll_per_step = job.pick([1, 1, 2, 3, 4])
    return job


def seq_at(job, t):
    """NCCL sequence number in flight at time t (synchronous DDP)."""
    if t < job.t_train:
        return job.seqnum0
    steps = int((t - job.t_train) / job.step_s)
    return job.seqnum0 + steps * job.coll_per_step + 1


def step_at(job, t):
    if t < job.t_train:
        return 0
    return min(job.total_steps, int((t - job.t_train) / job.step_s))


# --------------------------------------------------------------------------
# torch / NCCL / gloo message builders
# --------------------------------------------------------------------------
def _vi(job, table):
    """pick a per-version value from a dict keyed by minor version (closest <=)."""
    best = None
    for k in sorted(table):
        if job.tv >= k:
            best = table[k]
    return best if best is not None else table[min(table)]


def rpfx(job, rank):
    if rank is None or job.tv < (2, 2) or job.launcher == "spawn":
        return ""
    return "[rank%d]:" % rank.r


def c10(job, rank, t, level, fileline, msg, host=None):
    """C++ (c10) log line."""
    host = host or rank.host
    d = host.local(t)
    if job.tv >= (2, 4):
        if host.os == "win":
            ts = "%s%d%02d %s.000000000" % (level, d.month, d.day, d.strftime("%H:%M:%S"))
        else:
            ts = f_c10(d, level, job.frng)
        return "%s[%s %s] %s" % (rpfx(job, rank), ts, fileline, msg)
    return "%s[%s %s] %s" % (rpfx(job, rank), level, fileline, msg)


def elog(job, host, t, level, mod, line, msg):
    """torch python-side logging (torchrun / elastic / spawn)."""
    d = host.local(t)
    lvname = {"W": "WARNING", "E": "ERROR", "I": "INFO"}[level]
    if job.tv < (2, 3):
        return "[%s] %s: [%s] %s" % (f_pylog(d), mod, lvname, msg)
    path = mod.replace(".", "/") + ".py"
    if host.os == "win":
        path = path.replace("/", "\\")
        if job.elog_site:
            path = "site-packages\\" + path
    elif job.elog_site:
        path = "site-packages/" + path
    return "%s %d %s:%d] %s" % (f_glog(d, level), host.agent_pid, path, line, msg)


def lib(host, rel):
    if host.os == "win":
        return host.site + "\\" + rel.replace("/", "\\")
    return host.site + "/" + rel


def user(host, name):
    return host.script_dir + host.sep + name


ASSIGN = __import__("re").compile(r"^([A-Za-z_][\w\.\[\]'\", ]*?\s*(?:\+|-|\*)?=)(?!=)")


def carets(code, py):
    if py < "3.11" or code.strip().startswith(("for ", "return ", "raise ", "if ")):
        return None
    m = ASSIGN.match(code)
    if not m:
        return None
    lhs = m.group(1)[:-1]
    rhs = code[len(m.group(1)):]
    start = len(lhs) + 1 + (len(rhs) - len(rhs.lstrip()))
    width = len(code.rstrip()) - start
    if width <= 0:
        return None
    return " " * start + "^" * width


def py_tb(job, rank, frames, exc_lines, host=None, prefix=None, header=True):
    host = host or rank.host
    if prefix is None:
        prefix = ""
        if rank is not None and job.tv >= (2, 3) and job.launcher in ("torchrun", "accelerate", "deepspeed"):
            prefix = "[rank%d]: " % rank.r
    out = []
    if header:
        out.append(prefix + "Traceback (most recent call last):")
    for (f, ln, fn, code) in frames:
        out.append('%s  File "%s", line %d, in %s' % (prefix, f, ln, fn))
        out.append("%s    %s" % (prefix, code))
        c = carets(code, host.py)
        if c and job.frng.random() < 0.7:
            out.append("%s    %s" % (prefix, c))
    for e in exc_lines:
        out.append(prefix + e)
    return "\n".join(out)


def cpp_frames(job, host, kind):
    """'frame #N: ...' block of a c10::Error."""
    r = job.frng
    libdir = lib(host, "torch/lib/")
    a = lambda: "0x7f%010x" % r.randrange(16 ** 10)
    if kind == "timeout":
        fr = [("c10::Error::Error(c10::SourceLocation, std::string) + 0x96", "libc10.so"),
              ("c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >) + 0x1d2", "libtorch_cuda.so"),
              ("c10d::ProcessGroupNCCL::watchdogHandler() + 0x233", "libtorch_cuda.so"),
              ("c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d", "libtorch_cuda.so")]
    elif kind == "nccl":
        fr = [("c10::Error::Error(c10::SourceLocation, std::string) + 0x96", "libc10.so"),
              ("c10d::ProcessGroupNCCL::checkForNCCLErrorsInternal(std::shared_ptr<c10d::NCCLComm>&) + 0x220", "libtorch_cuda.so"),
              ("c10d::ProcessGroupNCCL::WorkNCCL::checkAndSetException() + 0x7c", "libtorch_cuda.so"),
              ("c10d::ProcessGroupNCCL::watchdogHandler() + 0x213", "libtorch_cuda.so"),
              ("c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d", "libtorch_cuda.so")]
    else:  # cuda check from watchdog
        fr = [("c10::Error::Error(c10::SourceLocation, std::string) + 0x96", "libc10.so"),
              ("c10::detail::torchCheckFail(char const*, char const*, unsigned int, std::string const&) + 0x64", "libc10.so"),
              ("c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, int, bool) + 0x118", "libc10_cuda.so"),
              ("c10d::ProcessGroupNCCL::WorkNCCL::finishedGPUExecutionInternal() const + 0x56", "libtorch_cuda.so"),
              ("c10d::ProcessGroupNCCL::WorkNCCL::isCompleted() + 0xa0", "libtorch_cuda.so"),
              ("c10d::ProcessGroupNCCL::watchdogHandler() + 0x1da", "libtorch_cuda.so"),
              ("c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x10c", "libtorch_cuda.so")]
    out = []
    for i, (sym, so) in enumerate(fr):
        out.append("frame #%d: %s (%s in %s%s)" % (i, sym, a(), libdir, so))
    n = len(fr)
    out.append("frame #%d: <unknown function> + 0xdc253 (%s in /lib/x86_64-linux-gnu/libstdc++.so.6)" % (n, a()))
    out.append("frame #%d: <unknown function> + 0x94ac3 (%s in /lib/x86_64-linux-gnu/libc.so.6)" % (n + 1, a()))
    out.append("frame #%d: <unknown function> + 0x126850 (%s in /lib/x86_64-linux-gnu/libc.so.6)" % (n + 2, a()))
    return out


def pg_tag(job, rank, pgid=0):
    if job.tv >= (2, 5):
        return "[PG ID %d PG GUID %d(default_pg) Rank %d]" % (pgid, pgid, rank.r)
    if job.tv >= (2, 3):
        return "[PG %d Rank %d]" % (pgid, rank.r)
    return "[Rank %d]" % rank.r


def src_path(job, rel):
    if job.tv >= (2, 5):
        return "/pytorch/" + rel
    return "../" + rel


def work_desc(job, seq, op, numel, timeout_ms, ran_ms):
    if job.tv >= (2, 1):
        return ("WorkNCCL(SeqNum=%d, OpType=%s, NumelIn=%d, NumelOut=%d, Timeout(ms)=%d) ran for %d "
                "milliseconds before timing out." % (seq, op, numel, numel if op != "_ALLGATHER_BASE" else numel * 2,
                                                     timeout_ms, ran_ms))
    return "WorkNCCL(SeqNum=%d, OpType=%s, Timeout(ms)=%d) ran for %d milliseconds before timing out." % (
        seq, op, timeout_ms, ran_ms)


def nccl_timeout_block(job, rank, t, seq, op, numel, last_enq=None, abort=True):
    """Watchdog timeout lines of one rank, emitted at t.  Returns exit time."""
    P = PGN[job.tv]
    ran = job.timeout_ms + job.frng.randint(5, 95)
    wd = "[Rank %d] Watchdog caught collective operation timeout: %s" % (rank.r, work_desc(job, seq, op, numel, job.timeout_ms, ran))
    le = last_enq if last_enq is not None else seq + job.frng.choice([0, 1, 2])
    out = [c10(job, rank, t, "E", "ProcessGroupNCCL.cpp:%d" % P["wd"], wd)]
    if job.tv >= (2, 3):
        out.append(c10(job, rank, t, "E", "ProcessGroupNCCL.cpp:%d" % P["exc"],
                       "%s Exception (either an error or timeout) detected by watchdog at work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (pg_tag(job, rank), seq, le, seq - 1)))
    if job.tv >= (2, 4):
        out.append(c10(job, rank, t, "E", "ProcessGroupNCCL.cpp:%d" % (P["exc"] + 49),
                       "%s Timeout at NCCL work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (pg_tag(job, rank), seq, le, seq - 1)))
    rk = "[Rank %d] " % rank.r if job.tv >= (2, 2) else ""
    out.append(c10(job, rank, t, "E", "ProcessGroupNCCL.cpp:%d" % P["some"],
                   rk + "Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data."))
    out.append(c10(job, rank, t, "E", "ProcessGroupNCCL.cpp:%d" % P["take"],
                   rk + "To avoid data inconsistency, we are taking the entire process down."))
    if job.tv >= (2, 6):
        out.append(c10(job, rank, t, "E", "ProcessGroupNCCL.cpp:%d" % (P["exc"] - 380),
                       "%s First PG on this rank to signal dumping." % pg_tag(job, rank)))
        out.append(c10(job, rank, t + 0.01, "E", "ProcessGroupNCCL.cpp:%d" % (P["exc"] - 340),
                       "%s Received a dump signal due to a collective timeout from this local rank and we will try our best to dump the debug info. Last enqueued NCCL work: %d, last completed NCCL work: %d.This is most likely caused by incorrect usages of collectives, e.g., wrong sizes used across ranks, the order of collectives is not same for all ranks or the scheduled collective, for some reason, didn't run. Additionally, this can be caused by GIL deadlock or other reasons such as network errors or bugs in the communications library (e.g. NCCL), etc. " % (pg_tag(job, rank), le, seq - 1)))
        out.append(c10(job, rank, t + 0.01, "E", "ProcessGroupNCCL.cpp:%d" % (P["exc"] - 710),
                       "%s ProcessGroupNCCL preparing to dump debug info. Include stack trace: 1" % pg_tag(job, rank)))
    job.remit(rank, t, "\n".join(out))
    if not abort:
        return t
    t2 = t + job.frng.uniform(0.2, 60.0 if job.tv >= (2, 6) else 1.5)
    if job.tv >= (2, 4):
        term = "%s Process group watchdog thread terminated with exception: %s" % (pg_tag(job, rank), wd)
    else:
        term = "%sNCCL watchdog thread terminated with exception: %s" % ("[Rank %d] " % rank.r, wd)
    blk = [c10(job, rank, t2, "E", "ProcessGroupNCCL.cpp:%d" % P["term"], term)]
    chk = "Exception raised from checkTimeout at %s:%d (most recent call first):" % (
        src_path(job, "torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp"), P["chk"])
    frames = cpp_frames(job, rank.host, "timeout")
    if job.tv >= (2, 2):
        blk.append(chk)
        blk.extend(frames)
        blk.append("")
    ex = "c10::DistBackendError" if job.tv >= (2, 2) else "std::runtime_error"
    blk.append("terminate called after throwing an instance of '%s'" % ex)
    blk.append("  what():  " + term)
    if job.tv >= (2, 2):
        blk.append(chk)
        blk.extend(frames)
        blk.append("")
        blk.append("Exception raised from ncclCommWatchdog at %s:%d (most recent call first):" % (
            src_path(job, "torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp"), P["term"] + 4))
        blk.extend(cpp_frames(job, rank.host, "timeout")[:1])
        blk.append("")
    # printed only if the launcher has not killed the process first
    job.deferred.append((t2, rank, "\n".join(blk)))
    return t2 + 0.05


def nccl_sock_warn(job, rank, t, peer_ip, peer_name, kind):
    """NCCL_DEBUG WARN/INFO lines of a socket failure."""
    h = rank.host
    tid = rank.tid + 9
    pre = "%s:%d:%d [%d]" % (h.name, rank.pid, tid, rank.dev)
    port = job.frng.randint(32768, 60999)
    peer = peer_ip if job.frng.random() < 0.6 else peer_name
    if job.nccl < "2.19":
        if kind == "reset":
            w = "misc/socket.cc:538 NCCL WARN Net : Call to recv from %s<%d> failed : Connection reset by peer" % (peer, port)
        else:
            w = "misc/socket.cc:49 NCCL WARN socketProgress: Connection closed by remote peer %s<%d>" % (peer, port)
    else:
        if kind == "reset":
            w = "misc/socket.cc:46 NCCL WARN socketProgressOpt: Call to recv from %s<%d> failed : Connection reset by peer" % (peer, port)
        elif kind == "timeout":
            w = "misc/socket.cc:46 NCCL WARN socketProgressOpt: Call to recv from %s<%d> failed : Connection timed out" % (peer, port)
        else:
            w = "misc/socket.cc:71 NCCL WARN socketProgress: Connection closed by remote peer %s<%d>" % (peer, port)
    out = ["", "%s %s" % (pre, w),
           "%s NCCL INFO misc/socket.cc:%d -> 6" % (pre, 64 if job.nccl >= "2.19" else 535),
           "%s NCCL INFO transport/net_socket.cc:%d -> 6" % (pre, job.frng.choice([474, 570, 368])),
           "%s NCCL INFO transport/net.cc:%d -> 6" % (pre, job.frng.choice([1200, 1302, 1137])),
           "%s NCCL INFO proxy.cc:%d -> 6 [Progress Thread]" % (pre, job.frng.choice([698, 894, 912]))]
    if job.nccl_debug == "INFO" or job.nccl_debug == "WARN":
        job.remit(rank, t, "\n".join(out if job.nccl_debug == "INFO" else out[:2]))
    return w.split("NCCL WARN ", 1)[1]


def nccl_remote_error(job, rank, t, last_error, seq):
    """Rank notices a dead peer / broken network through NCCL's async error."""
    P = PGN[job.tv]
    msg = ("NCCL error: remote process exited or there was a network error, NCCL version %s\n"
           "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.\n"
           "Last error:\n%s" % (job.nccl, last_error))
    out = []
    if job.tv >= (2, 3):
        out.append(c10(job, rank, t, "E", "ProcessGroupNCCL.cpp:%d" % P["exc"],
                       "%s Exception (either an error or timeout) detected by watchdog at work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (pg_tag(job, rank), seq, seq, seq - 1)))
    rk = "[Rank %d] " % rank.r if job.tv >= (2, 2) else ""
    out.append(c10(job, rank, t, "E", "ProcessGroupNCCL.cpp:%d" % P["some"],
                   rk + "Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data."))
    out.append(c10(job, rank, t, "E", "ProcessGroupNCCL.cpp:%d" % P["take"],
                   rk + "To avoid data inconsistency, we are taking the entire process down."))
    if job.tv >= (2, 4):
        term = "%s Process group watchdog thread terminated with exception: %s" % (pg_tag(job, rank), msg)
    else:
        term = "[Rank %d] NCCL watchdog thread terminated with exception: %s" % (rank.r, msg)
    out.append(c10(job, rank, t, "E", "ProcessGroupNCCL.cpp:%d" % P["term"], term))
    raised = "Exception raised from checkForNCCLErrorsInternal at %s:%d (most recent call first):" % (
        src_path(job, "torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp"), P["exc"] + 360)
    fr = cpp_frames(job, rank.host, "nccl")
    out += [raised] + fr + ["", "terminate called after throwing an instance of 'c10::DistBackendError'",
                             "  what():  " + term, raised] + fr + [""]
    job.remit(rank, t, "\n".join(out))
    return t + 0.05


def frame_tables(job):
    tv = job.tv
    mod = _vi(job, {(2, 1): (1518, 1527), (2, 3): (1532, 1541), (2, 4): (1553, 1562),
                    (2, 5): (1736, 1747), (2, 6): (1739, 1750), (2, 7): (1751, 1762), (2, 8): (1773, 1784)})
    ddp = _vi(job, {(2, 1): (1519, 1355), (2, 3): (1593, 1411), (2, 4): (1636, 1454), (2, 5): (1643, 1459),
                    (2, 7): (1657, 1483)})
    bwd = _vi(job, {(2, 1): (492, 251, 0), (2, 3): (522, 266, 744), (2, 4): (521, 289, 768),
                    (2, 5): (581, 347, 825), (2, 6): (626, 353, 823), (2, 7): (648, 354, 824)})
    c10d = _vi(job, {(2, 1): (47, 2050), (2, 3): (75, 2195), (2, 4): (79, 2288), (2, 5): (83, 2501),
                     (2, 6): (81, 2806), (2, 8): (81, 2891)})
    dl = _vi(job, {(2, 1): (630, 1345, 1371, 694), (2, 3): (631, 1329, 1355, 722), (2, 4): (630, 1344, 1370, 706),
                   (2, 5): (701, 1465, 1491, 733), (2, 6): (708, 1480, 1506, 733), (2, 7): (733, 1515, 1541, 750)})
    return dict(mod=mod, ddp=ddp, bwd=bwd, c10d=c10d, dl=dl)


def fr_module(job, host):
    T = frame_tables(job)
    return [(lib(host, "torch/nn/modules/module.py"), T["mod"][0], "_wrapped_call_impl", "return self._call_impl(*args, **kwargs)"),
            (lib(host, "torch/nn/modules/module.py"), T["mod"][1], "_call_impl", "return forward_call(*args, **kwargs)")]


def fr_ddp_forward(job, host):
    T = frame_tables(job)
    return fr_module(job, host) + [
        (lib(host, "torch/nn/parallel/distributed.py"), T["ddp"][0], "forward", "else self._run_ddp_forward(*inputs, **kwargs)"),
        (lib(host, "torch/nn/parallel/distributed.py"), T["ddp"][1], "_run_ddp_forward", "return self.module(*inputs, **kwargs)  # type: ignore[index]")] + fr_module(job, host)


def fr_backward(job, host):
    T = frame_tables(job)
    a, b, c = T["bwd"]
    out = [(lib(host, "torch/_tensor.py"), a, "backward", "torch.autograd.backward(")]
    if c:
        out.append((lib(host, "torch/autograd/__init__.py"), b, "backward", "_engine_run_backward("))
        out.append((lib(host, "torch/autograd/graph.py"), c, "_engine_run_backward",
                    "return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass"))
    else:
        out.append((lib(host, "torch/autograd/__init__.py"), b, "backward",
                    "Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass"))
    return out


def fr_allreduce(job, host):
    T = frame_tables(job)
    return [(lib(host, "torch/distributed/c10d_logger.py"), T["c10d"][0], "wrapper", "return func(*args, **kwargs)"),
            (lib(host, "torch/distributed/distributed_c10d.py"), T["c10d"][1], "all_reduce", "work = group.allreduce([tensor], opts)")]


def fr_dataloader(job, host):
    T = frame_tables(job)
    a, b, c, d = T["dl"]
    out = []
    if job.tqdm:
        out.append((lib(host, "tqdm/std.py"), 1181, "__iter__", "for obj in iterable:"))
    if job.flavor == "accel":
        out.append((lib(host, "accelerate/data_loader.py"), job.pick([552, 561, 577]), "__iter__", "current_batch = next(dataloader_iter)"))
    out += [(lib(host, "torch/utils/data/dataloader.py"), a, "__next__", "data = self._next_data()"),
            (lib(host, "torch/utils/data/dataloader.py"), b, "_next_data", "return self._process_data(data)"),
            (lib(host, "torch/utils/data/dataloader.py"), c, "_process_data", "data.reraise()"),
            (lib(host, "torch/_utils.py"), d, "reraise", "raise exception")]
    return out


def fr_user_top(job, rank, where):
    """frames from the user's entry point down to the training loop."""
    h = rank.host
    s = user(h, job.script_name)
    rng = job.frng
    out = []
    if job.launcher == "spawn":
        out.append((lib(h, "torch/multiprocessing/spawn.py"), _vi(job, {(2, 1): 74, (2, 3): 75, (2, 4): 90}),
                    "_wrap", "fn(i, *args)"))
        out.append((s, rng.randint(120, 260), "main_worker", "train(model, loader, optimizer, scaler, epoch, rank, args)"))
    elif job.launcher == "notebook":
        if job.nb_elastic:
            return [(lib(h, "torch/distributed/elastic/multiprocessing/errors/__init__.py"), _vi(job, {(2, 3): 347, (2, 4): 348, (2, 5): 355}), "wrapper", "return f(*args, **kwargs)"),
                    (lib(h, "accelerate/utils/launch.py"), rng.choice([610, 626, 649]), "__call__", "self.launcher(*args)")]
        out = [(lib(h, "torch/multiprocessing/spawn.py"), _vi(job, {(2, 1): 74, (2, 3): 75, (2, 4): 90}), "_wrap", "fn(i, *args)")]
        if job.nb_api == "accelerate":
            out.append((lib(h, "accelerate/utils/launch.py"), rng.choice([610, 626, 649]), "__call__", "self.launcher(*args)"))
        return out
    else:
        out.append((s, rng.randint(300, 520), "<module>", "main()"))
        if job.flavor == "hf":
            out.append((s, rng.randint(200, 290), "main", "trainer.train(resume_from_checkpoint=args.resume)"))
            tr = job.pick([(2123, 2481, 3579), (2052, 2388, 3485), (2241, 2548, 3740), (1938, 2279, 3318)])
            out.append((lib(h, "transformers/trainer.py"), tr[0], "train", "return inner_training_loop("))
            out.append((lib(h, "transformers/trainer.py"), tr[1], "_inner_training_loop",
                        "tr_loss_step = self.training_step(model, inputs, num_items_in_batch)"))
            job._hf_ts = tr[2]
            return out
        out.append((s, rng.randint(200, 290), "main", "train_one_epoch(model, train_loader, optimizer, lr_sched, epoch, args)"))
    return out


def fr_call(job, rank, what):
    """frames of the failing statement inside the training step."""
    h = rank.host
    s = user(h, job.script_name)
    rng = job.frng
    fn = "train_one_epoch" if job.launcher != "spawn" else "train"
    if job.launcher == "notebook":
        s = "/tmp/ipykernel_%d/%d.py" % (job.nb_kernel_pid, job.nb_cell_hash)
        fn = "training_function" if job.nb_api == "accelerate" else "train_worker"
    if job.flavor == "hf" and job.launcher != "notebook":
        ts = job._hf_ts if hasattr(job, "_hf_ts") else 3579
        if what == "forward":
            return [(lib(h, "transformers/trainer.py"), ts, "training_step", "loss = self.compute_loss(model, inputs, num_items_in_batch=num_items_in_batch)"),
                    (lib(h, "transformers/trainer.py"), ts + 54, "compute_loss", "outputs = model(**inputs)")] + fr_ddp_forward(job, h)
        if what == "backward":
            return [(lib(h, "transformers/trainer.py"), ts + 42, "training_step", "self.accelerator.backward(loss, **kwargs)"),
                    (lib(h, "accelerate/accelerator.py"), job.pick([2151, 2196, 2246, 2473]), "backward", "loss.backward(**kwargs)")] + fr_backward(job, h)
        if what == "data":
            return [(lib(h, "transformers/trainer.py"), ts - 1100, "_inner_training_loop", "batch_samples, num_items_in_batch = self.get_batch_samples(epoch_iterator, num_batches)")] + fr_dataloader(job, h)[1 if job.tqdm else 0:]
        if what == "item":
            return [(lib(h, "transformers/trainer.py"), ts - 1085, "_inner_training_loop", "and (torch.isnan(tr_loss_step) or torch.isinf(tr_loss_step))")]
        if what == "allreduce":
            return [(lib(h, "transformers/trainer.py"), ts - 1060, "_inner_training_loop", "self._maybe_log_save_evaluate(")]
    ln = rng.randint(120, 240)
    if what == "forward":
        return [(s, ln, fn, job.pick(["loss = model(input_ids=input_ids, labels=labels).loss",
                                       "logits = model(images)", "out = model(x, y)",
                                       "loss = criterion(model(inputs), targets)"]))] + fr_ddp_forward(job, h)
    if what == "backward":
        if job.flavor == "accel":
            return [(s, ln, fn, "accelerator.backward(loss)"),
                    (lib(h, "accelerate/accelerator.py"), job.pick([2151, 2196, 2246]), "backward", "loss.backward(**kwargs)")] + fr_backward(job, h)
        return [(s, ln, fn, job.pick(["scaler.scale(loss).backward()", "loss.backward()"]))] + fr_backward(job, h)
    if what == "item":
        return [(s, ln, fn, job.pick(["running_loss += loss.item()", "loss_val = loss.detach().item()",
                                       "if not torch.isfinite(loss).item():"]))]
    if what == "data":
        return [(s, ln - 30, fn, job.pick(["for step, batch in enumerate(pbar):", "for i, (images, target) in enumerate(train_loader):",
                                            "for batch in train_dataloader:"]))] + fr_dataloader(job, h)
    if what == "allreduce":
        return [(s, ln, fn, job.pick(["dist.all_reduce(loss_t, op=dist.ReduceOp.SUM)",
                                       "dist.all_reduce(metrics, op=dist.ReduceOp.AVG)"]))] + fr_allreduce(job, h)
    if what == "barrier":
        return [(s, ln, fn, "dist.barrier()"),
                (lib(h, "torch/distributed/c10d_logger.py"), frame_tables(job)["c10d"][0], "wrapper", "return func(*args, **kwargs)"),
                (lib(h, "torch/distributed/distributed_c10d.py"), frame_tables(job)["c10d"][1] + 1500, "barrier", "work.wait()")]
    if what == "step":
        return [(s, ln, fn, "optimizer.step()")]
    return [(s, ln, fn, what)]


def rank_traceback(job, rank, what, exc_lines, extra_frames=None):
    frames = fr_user_top(job, rank, what) + fr_call(job, rank, what) + (extra_frames or [])
    return py_tb(job, rank, frames, exc_lines)


def cuda_err_lines(job, what):
    out = ["RuntimeError: CUDA error: %s" % what,
           "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
           "For debugging consider passing CUDA_LAUNCH_BLOCKING=1."]
    if job.tv >= (2, 1):
        out.append("Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.")
    out.append("")
    return out


def watchdog_cuda_error(job, rank, t, what):
    """CUDA error surfacing in the NCCL watchdog thread -> SIGABRT."""
    P = PGN[job.tv]
    body = "\n".join(cuda_err_lines(job, what)[0:-1]).replace("RuntimeError: ", "")
    if job.tv >= (2, 4):
        term = "%s Process group watchdog thread terminated with exception: %s" % (pg_tag(job, rank), body)
    else:
        term = "[Rank %d] NCCL watchdog thread terminated with exception: %s" % (rank.r, body)
    raised = "Exception raised from c10_cuda_check_implementation at %s:43 (most recent call first):" % src_path(job, "c10/cuda/CUDAException.cpp")
    fr = cpp_frames(job, rank.host, "cuda")
    out = [c10(job, rank, t, "E", "ProcessGroupNCCL.cpp:%d" % P["term"], term), "", raised] + fr + [
        "", "terminate called after throwing an instance of 'c10::DistBackendError'", "  what():  " + term, "", raised] + fr + [""]
    job.remit(rank, t, "\n".join(out))
    return t + 0.1


def oom_lines(job, rank, req_gib, other_proc=None):
    g = rank.gpu
    total = gib(g.mib) - (0.31 if g.mib > 20000 else 0.18)
    free = job.frng.uniform(0.02, min(req_gib * 0.9, 1.2))
    inuse = total - free - (other_proc[1] if other_proc else 0)
    alloc = inuse - job.frng.uniform(0.4, 1.9)
    reserved_unalloc = job.frng.uniform(0.05, 0.9)
    alloc_pt = alloc - reserved_unalloc
    cls = "torch.OutOfMemoryError" if job.tv >= (2, 5) else "torch.cuda.OutOfMemoryError"
    if job.tv < (2, 2):
        return [("%s: CUDA out of memory. Tried to allocate %s (GPU %d; %.2f GiB total capacity; %.2f GiB already "
                 "allocated; %s free; %.2f GiB reserved in total by PyTorch) If reserved memory is >> allocated memory "
                 "try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory Management and "
                 "PYTORCH_CUDA_ALLOC_CONF") % (cls, fmt_gib(req_gib), rank.dev, total, alloc_pt, fmt_gib(free), alloc)]
    proc = ""
    if other_proc:
        proc = "Process %d has %s memory in use. " % (other_proc[0], fmt_gib(other_proc[1]))
    return [("%s: CUDA out of memory. Tried to allocate %s. GPU %d has a total capacity of %.2f GiB of which %s is free. "
             "%sIncluding non-PyTorch memory, this process has %.2f GiB memory in use. Of the allocated memory %.2f GiB is "
             "allocated by PyTorch, and %s is reserved by PyTorch but unallocated. If reserved but unallocated memory is "
             "large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation "
             "for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)")
            % (cls, fmt_gib(req_gib), rank.dev, total, fmt_gib(free), proc, inuse, alloc_pt, fmt_gib(reserved_unalloc))]


def gloo_path(job, host, f):
    if host.os == "win":
        base = r"C:\actions-runner\_work\pytorch\pytorch\pytorch\third_party\gloo\gloo\transport\uv" + "\\" + f
        return base
    if job.tv >= (2, 5):
        return "/pytorch/third_party/gloo/gloo/transport/tcp/" + f
    return "../third_party/gloo/gloo/transport/tcp/" + f


def gloo_error(job, rank, kind, peer_ip=None):
    h = rank.host
    port = job.frng.randint(10000, 65000)
    if kind == "closed":
        if h.os == "win":
            return "RuntimeError: [%s:%d] Connection closed by peer [%s]:%d" % (gloo_path(job, h, "pair.cc"), 333, peer_ip, port)
        return "RuntimeError: [%s:534] Connection closed by peer [%s]:%d" % (gloo_path(job, h, "pair.cc"), peer_ip, port)
    if kind == "reset":
        if h.os == "win":
            return "RuntimeError: [%s:%d] Read error [%s]:%d: An existing connection was forcibly closed by the remote host." % (gloo_path(job, h, "pair.cc"), 401, peer_ip, port)
        return "RuntimeError: [%s:589] Read error [%s]:%d: Connection reset by peer" % (gloo_path(job, h, "pair.cc"), peer_ip, port)
    if kind == "timeout":
        ln = 67 if h.os == "win" else 81
        return "RuntimeError: [%s:%d] Timed out waiting %dms for recv operation to complete" % (gloo_path(job, h, "unbound_buffer.cc"), ln, job.timeout_ms)
    raise ValueError(kind)


# --------------------------------------------------------------------------
# startup / noise
# --------------------------------------------------------------------------
def transport(job, a, b):
    """NCCL transport string between two ranks."""
    if a.host is not b.host:
        return None
    if job.os == "wsl":
        return "SHM/direct/direct"
    if job.p2p_disable:
        return "SHM/direct/direct"
    if a.gpu.nvlink_peer == b.gpu.idx:
        return "P2P/CUMEM/read" if job.nccl >= "2.19" else "P2P/IPC/read"
    if a.gpu.ecc and b.gpu.ecc:
        return "P2P/CUMEM" if job.nccl >= "2.19" else "P2P/IPC"
    return "SHM/direct/direct"


def nccl_init(job):
    if job.backend != "nccl" or job.nccl_debug != "INFO":
        return
    rng = job.frng
    W = job.world
    commid = hx(rng, 16)
    nnodes = job.nhosts
    cdv = {"12.1": "12020", "12.4": "12040", "12.6": "12060", "12.8": "12080"}.get(job.cuda, "12040")
    for rk in job.ranks:
        h = rk.host
        t = job.t_init + rng.uniform(0.0, 2.5)
        pre0 = "%s:%d:%d [%d]" % (h.name, rk.pid, rk.pid, rk.dev)
        pre = "%s:%d:%d [%d]" % (h.name, rk.pid, rk.tid, rk.dev)
        ifc = job.sock_ifname or h.iface
        ipl = h.ip
        out = []
        if job.sock_ifname:
            out.append("%s NCCL INFO NCCL_SOCKET_IFNAME set by environment to %s" % (pre0, job.sock_ifname))
        out.append("%s NCCL INFO Bootstrap : Using %s:%s<0>" % (pre0, ifc, ipl))
        if job.nccl < "2.19":
            out.append("%s NCCL INFO NET/Plugin : dlerror=libnccl-net.so: cannot open shared object file: No such file or directory No plugin found (libnccl-net.so), using internal implementation" % pre0)
        elif job.nccl < "2.23":
            out.append("%s NCCL INFO NET/Plugin: Could not find: libnccl-net.so. Using internal network plugin." % pre0)
        else:
            out.append("%s NCCL INFO NET/Plugin: Could not find: libnccl-net.so." % pre0)
        out.append("%s NCCL INFO cudaDriverVersion %s" % (pre0, cdv))
        if rk.r == 0:
            out.append("NCCL version %s+cuda%s" % (job.nccl, job.cuda))
        if job.p2p_disable:
            out.append("%s NCCL INFO NCCL_P2P_DISABLE set by environment to 1" % pre)
        if job.os == "wsl" and rng.random() < 0.7:
            dom = "%04x" % rng.randrange(0x1000, 0xffff)
            out.append("")
            out.append("%s graph/xml.cc:%d NCCL WARN Could not find real path of /sys/class/pci_bus/%s:00/../../%s:00:00.0 (/sys/class/pci_bus/%s:00/../../%s:00:00.0)" % (pre, rng.choice([88, 326]), dom, dom, dom, dom))
            out.append("%s NCCL INFO graph/topo.cc:%d -> 2" % (pre, rng.choice([318, 345])))
        out.append("%s NCCL INFO Failed to open libibverbs.so[.1]" % pre)
        extra = ""
        if not job.sock_ifname and h.os == "linux" and rng.random() < 0.35:
            extra = " [1]%s" % rng.choice(["virbr0:192.168.122.1<0>", "tailscale0:100.%d.%d.%d<0>" % (rng.randint(64, 127), rng.randint(0, 255), rng.randint(1, 254)), "wg0:10.8.0.2<0>"])
        out.append("%s NCCL INFO NET/Socket : Using [0]%s:%s<0>%s" % (pre, ifc, ipl, extra))
        if job.nccl >= "2.19":
            out.append("%s NCCL INFO Using non-device net plugin version 0" % pre)
        out.append("%s NCCL INFO Using network Socket" % pre)
        ptr = "0x%x" % rng.randrange(0x5500000000, 0x56ffffffff)
        rk.commptr = ptr
        out.append("%s NCCL INFO comm %s rank %d nranks %d cudaDev %d nvmlDev %d busId %s commId 0x%s - Init START" % (
            pre, ptr, rk.r, W, rk.dev, rk.gpu.idx, rk.gpu.nccl_busid(), commid))
        if rng.random() < 0.5:
            out.append("%s NCCL INFO Setting affinity for GPU %d to %s" % (pre, rk.dev, rng.choice(["ffff,ffffffff", "ffffffff", "ff00ff", "0fff"])))
        if job.nccl >= "2.20":
            out.append("%s NCCL INFO comm %s rank %d nRanks %d nNodes %d localRanks %d localRank %d MNNVL 0" % (
                pre, ptr, rk.r, W, nnodes, len(h.ranks), rk.local))
        if rk.r == 0:
            ring = " ".join("%3d" % x.r for x in job.ranks)
            out.append("%s NCCL INFO Channel 00/02 : %s" % (pre, ring))
            out.append("%s NCCL INFO Channel 01/02 : %s" % (pre, ring))
        nxt = job.ranks[(rk.r + 1) % W]
        prv = job.ranks[(rk.r - 1) % W]
        out.append("%s NCCL INFO Trees [0] %d/-1/-1->%d->%d [1] %d/-1/-1->%d->%d" % (
            pre, nxt.r if rk.r < W - 1 else -1, rk.r, prv.r if rk.r > 0 else -1,
            nxt.r if rk.r < W - 1 else -1, rk.r, prv.r if rk.r > 0 else -1))
        out.append("%s NCCL INFO P2P Chunksize set to %d" % (pre, 131072 if transport(job, rk, nxt) != "P2P/CUMEM/read" else 524288))
        for ch in (0, 1):
            tr = transport(job, rk, nxt)
            if job.nccl < "2.19":
                a, b = rk.gpu.nccl_busid(), nxt.gpu.nccl_busid()
            else:
                a, b = str(rk.dev), str(nxt.dev)
            if tr is None:
                out.append("%s NCCL INFO Channel %02d/0 : %d[%s] -> %d[%s] [send] via NET/Socket/0" % (pre, ch, rk.r, a, nxt.r, b))
                pa = prv.gpu.nccl_busid() if job.nccl < "2.19" else str(prv.dev)
                out.append("%s NCCL INFO Channel %02d/0 : %d[%s] -> %d[%s] [receive] via NET/Socket/0" % (pre, ch, prv.r, pa, rk.r, a))
            else:
                out.append("%s NCCL INFO Channel %02d%s : %d[%s] -> %d[%s] via %s" % (
                    pre, ch, "/0" if tr.startswith("P2P") else "", rk.r, a, nxt.r, b, tr))
        out.append("%s NCCL INFO Connected all rings" % pre)
        out.append("%s NCCL INFO Connected all trees" % pre)
        out.append("%s NCCL INFO threadThresholds 8/8/64 | %d/8/64 | 512 | 512" % (pre, 8 * W))
        if job.nccl >= "2.19":
            out.append("%s NCCL INFO 2 coll channels, 2 collnet channels, 0 nvls channels, 2 p2p channels, 2 p2p channels per peer" % pre)
        else:
            out.append("%s NCCL INFO 2 coll channels, 0 nvls channels, 2 p2p channels, 2 p2p channels per peer" % pre)
        out.append("%s NCCL INFO comm %s rank %d nranks %d cudaDev %d nvmlDev %d busId %s commId 0x%s - Init COMPLETE" % (
            pre, ptr, rk.r, W, rk.dev, rk.gpu.idx, rk.gpu.nccl_busid(), commid))
        if job.nccl >= "2.23":
            out.append("%s NCCL INFO Init timings - ncclCommInitRankConfig: rank %d nranks %d total %.2f (kernels 0.%02d, alloc 0.01, bootstrap 0.%02d, allgathers 0.00, topo 0.%02d, graphs 0.00, connections 0.%02d, rest 0.00)" % (
                pre, rk.r, W, rng.uniform(0.3, 2.5), rng.randint(10, 60), rng.randint(1, 40), rng.randint(5, 40), rng.randint(3, 80)))
        job.remit(rk, t, "\n".join(out))


def startup(job):
    """launcher banners and per-rank startup output."""
    rng = job.frng
    t = job.t_launch
    nproc = len(job.head.ranks)
    for h in job.hosts:
        ta = t + (h.skew * 0 if h is job.head else rng.uniform(1, 40))
        h.t_start = ta
        if job.launcher in ("torchrun", "accelerate") or (job.launcher == "notebook" and job.nb_elastic):
            if job.launcher == "accelerate" and not job.acc_config and job.nhosts == 1:
                job.emit(h, ta, "agent", "The following values were not passed to `accelerate launch` and had defaults used instead:\n"
                         "\t`--num_processes` was set to a value of `%d`\n"
                         "\t\tMore than one GPU was found, enabling multi-GPU training.\n"
                         "\t\tIf this was unintended please pass in `--num_processes=1`.\n"
                         "\t`--num_machines` was set to a value of `1`\n"
                         "\t`--mixed_precision` was set to a value of `'no'`\n"
                         "\t`--dynamo_backend` was set to a value of `'no'`\n"
                         "To avoid this warning pass in values for each of the problematic parameters or run `accelerate config`." % len(h.ranks))
            if h.os == "win":
                job.emit(h, ta + 0.3, "agent", elog(job, h, ta + 0.3, "W", "torch.distributed.elastic.multiprocessing.redirects", 27 if job.tv < (2, 6) else 29,
                                                   "NOTE: Redirects are currently not supported in Windows or MacOs."))
            if len(h.ranks) > 1 and not job.omp_set:
                ln = _vi(job, {(2, 3): 757, (2, 4): 793, (2, 6): 792, (2, 7): 766, (2, 8): 774})
                stars = "*****************************************"
                msg = ("Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system "
                       "being overloaded, please further tune the variable for optimal performance in your application as needed. ")
                out = [elog(job, h, ta + 0.5, "W", "torch.distributed.run", ln, x) for x in ("", stars, msg, stars)]
                job.emit(h, ta + 0.5, "agent", "\n".join(out))
        elif job.launcher == "deepspeed" and h is job.head:
            ds_start(job, ta)
        elif job.launcher == "spawn":
            pass
        if h.os == "win" and job.launcher in ("torchrun", "spawn") and job.win_sock_warn:
            for k in range(job.win_sock_warn):
                ln = _vi(job, {(2, 1): 663, (2, 2): 697, (2, 5): 720, (2, 7): 758})
                job.emit(h, ta + 0.8 + k * 0.01, "agent", c10(job, None, ta + 0.8, "W", "socket.cpp:%d" % ln,
                         "[c10d] The client socket has failed to connect to [%s]:%d (system error: 10049 - The requested address is not valid in its context.)." % (job.head.name, job.master_port), host=h))
    # per-rank script startup
    for rk in job.ranks:
        h = rk.host
        tt = job.t_init - rng.uniform(0.5, 3.0)
        if job.flavor == "hf":
            d = h.local(tt)
            job.remit(rk, tt, "%s - WARNING - __main__ - Process rank: %d, device: cuda:%d, n_gpu: 1, distributed training: True, 16-bits training: %s" % (
                d.strftime("%m/%d/%Y %H:%M:%S"), rk.r, rk.dev, "True" if job.mixed_prec != "no" else "False"))
        elif job.flavor == "accel":
            d = h.local(tt)
            job.remit(rk, tt, "%s - INFO - __main__ - Distributed environment: %s  Backend: %s\nNum processes: %d\nProcess index: %d\nLocal process index: %d\nDevice: cuda:%d\n\nMixed precision type: %s\n" % (
                d.strftime("%m/%d/%Y %H:%M:%S"), "MULTI_GPU" if job.backend == "nccl" or True else "MULTI_GPU",
                job.backend, job.world, rk.r, rk.local, rk.dev, job.mixed_prec))
        elif job.flavor == "ds":
            job.remit(rk, tt, "[%s] [INFO] [comm.py:%d:init_distributed] cdb=None" % (f_pylog(h.local(tt)), job.pick([637, 652, 658])))
            if rk.r == 0:
                job.remit(rk, tt + 0.01, "[%s] [INFO] [comm.py:%d:init_distributed] Initializing TorchBackend in DeepSpeed with backend nccl" % (f_pylog(h.local(tt)), 668))
        else:
            if job.launcher == "spawn":
                job.remit(rk, tt, "%s [rank%d] INFO: Running DDP on rank %d / %d, device cuda:%d (%s)%s" % (
                    f_pylog(h.local(tt)), rk.r, rk.r, job.world, rk.dev, rk.gpu.name,
                    (" on %s" % h.name) if (job.nhosts > 1 or h.os == "win") else ""))
            elif job.dist_init_print or h.os == "win":
                job.remit(rk, tt, "| distributed init (rank %d): env://, gpu %d%s" % (rk.r, rk.dev, (", host %s" % h.name) if (job.nhosts > 1 or h.os == "win") else ""))
    nccl_init(job)
    # benign startup warnings (rank 0 or all)
    benign_startup(job)


def benign_startup(job):
    rng = job.frng
    t = job.t_init + 3
    for rk in job.ranks:
        h = rk.host
        if job.tv >= (2, 2) and job.nccl_async_env and job.backend == "nccl":
            job.remit(rk, t, c10(job, rk, t, "W", "Utils.hpp:%d" % _vi(job, {(2, 2): 133, (2, 3): 135, (2, 5): 164}),
                                 "Warning: Environment variable NCCL_ASYNC_ERROR_HANDLING is deprecated; use TORCH_NCCL_ASYNC_ERROR_HANDLING instead (function getCvarInt)"))
        if job.tv in ((2, 4), (2, 5)) and job.backend == "nccl" and job.barrier_warn:
            job.remit(rk, t + 1, c10(job, rk, t + 1, "W", "ProcessGroupNCCL.cpp:%d" % (4115 if job.tv == (2, 4) else 4561),
                                     "%s using GPU %d to perform barrier as devices used by this process are currently unknown. This can potentially cause a hang if this rank to GPU mapping is incorrect.Specify device_ids in barrier() to force use of a particular device,or call init_process_group() with a device_id." % (
                                         ("[PG 0 Rank %d] " % rk.r) if job.tv == (2, 4) else ("[PG ID 0 PG GUID 0 Rank %d] " % rk.r), rk.dev)))
        if job.find_unused and job.tv >= (2, 1):
            job.remit(rk, job.t_train + 5, c10(job, rk, job.t_train + 5, "W", "reducer.cpp:%d" % _vi(job, {(2, 1): 1346, (2, 3): 1360, (2, 5): 1400}),
                      "Warning: find_unused_parameters=True was specified in DDP constructor, but did not find any unused parameters in the forward pass. This flag results in an extra traversal of the autograd graph every iteration,  which can adversely affect performance. If your model indeed never has any unused parameters in the forward pass, consider turning this flag off. Note that this warning may be a false positive if your model has flow control causing later iterations to have unused parameters. (function operator())"))
        if job.dl_warn and rk.local == 0:
            job.remit(rk, job.t_train - 2, "%s:%d: UserWarning: This DataLoader will create %d worker processes in total. Our suggested max number of worker in current system is %d, which is smaller than what this DataLoader is going to create. Please be aware that excessive worker creation might get DataLoader running slow or even freeze, lower the worker number to avoid potential slowness/freeze if necessary.\n  warnings.warn(" % (
                lib(h, "torch/utils/data/dataloader.py"), 557, job.num_workers, max(2, h.ncpu // 2)))
        if job.amp_warn and job.tv >= (2, 4):
            job.remit(rk, job.t_train - 1, "%s:%d: FutureWarning: `torch.cuda.amp.GradScaler(args...)` is deprecated. Please use `torch.amp.GradScaler('cuda', args...)` instead.\n  scaler = torch.cuda.amp.GradScaler()" % (
                user(h, job.script_name), rng.randint(80, 160)))
        if h.os in ("win", "wsl") and job.expandable and rk.local == 0:
            job.remit(rk, job.t_train - 1, c10(job, rk, job.t_train - 1, "W", "CUDAAllocatorConfig.h:%d" % _vi(job, {(2, 1): 28, (2, 4): 28, (2, 6): 30}),
                                               "Warning: expandable_segments not supported on this platform (function operator())"))


DS_VER = ["0.12.6", "0.13.5", "0.14.4", "0.15.4", "0.16.3", "0.16.9"]


def ds_start(job, t):
    h = job.head
    rng = job.frng
    p = lambda tt, lvl, where, msg: "[%s] [%s] [%s] %s" % (f_pylog(h.local(tt)), lvl, where, msg)
    out = [p(t, "INFO", "real_accelerator.py:%d:get_accelerator" % rng.choice([161, 191, 219]), "Setting ds_accelerator to cuda (auto detect)")]
    hosts = job.hosts
    if len(hosts) == 1:
        out.append(p(t + 0.4, "WARNING", "runner.py:%d:fetch_hostfile" % rng.choice([196, 202, 215]),
                     "Unable to find hostfile, will proceed with training with local resources only."))
        key = "localhost"
    wi = {}
    for hh in hosts:
        wi["localhost" if len(hosts) == 1 else job.ds_name(hh)] = [r.local for r in hh.ranks]
    b64 = base64.urlsafe_b64encode(json.dumps(wi).encode()).decode()
    if len(hosts) > 1:
        out.append(p(t + 0.5, "INFO", "multinode_runner.py:%d:get_cmd" % rng.choice([70, 80, 81]),
                     "Running on the following workers: %s" % ",".join(job.ds_name(hh) for hh in hosts)))
        cmd = ("pdsh -S -f 1024 -w %s export PYTHONPATH=%s;  cd %s; %s -u -m deepspeed.launcher.launch --world_info=%s "
               "--node_rank=%%n --master_addr=%s --master_port=%d %s %s" % (
                   ",".join(job.ds_name(hh) for hh in hosts), h.script_dir, h.script_dir, h.pyexe, b64,
                   job.master_addr, job.master_port, job.script_name, job.script_args))
    else:
        cmd = ("%s -u -m deepspeed.launcher.launch --world_info=%s --master_addr=127.0.0.1 --master_port=%d "
               "--enable_each_rank_log=None %s %s" % (h.pyexe, b64, job.master_port, job.script_name, job.script_args))
    out.append(p(t + 0.6, "INFO", "runner.py:%d:main" % rng.choice([568, 571, 607]), "cmd = " + cmd))
    job.emit(h, t, "agent", "\n".join(out))
    job.ds_wi = wi
    for hh in hosts:
        ta = t + 1.5 + rng.uniform(0, 1.5)
        lp = lambda tt, lvl, where, msg: "[%s] [%s] [%s] %s" % (f_pylog(hh.local(tt)), lvl, where, msg)
        o = [lp(ta, "INFO", "real_accelerator.py:%d:get_accelerator" % rng.choice([161, 191, 219]), "Setting ds_accelerator to cuda (auto detect)")]
        ni = hosts.index(hh)
        for k, v in job.ds_env:
            o.append(lp(ta + 0.1, "INFO", "launch.py:%d:main" % rng.choice([138, 146]), "%d %s=%s" % (ni, k, v)))
        o.append(lp(ta + 0.1, "INFO", "launch.py:%d:main" % 145, "WORLD INFO DICT: %s" % repr(wi)))
        o.append(lp(ta + 0.1, "INFO", "launch.py:%d:main" % 151, "nnodes=%d, num_local_procs=%d, node_rank=%d" % (len(hosts), len(hh.ranks), ni)))
        grm = {}
        for kk, hh2 in zip(wi.keys(), hosts):
            grm[kk] = [r.r for r in hh2.ranks]
        o.append(lp(ta + 0.1, "INFO", "launch.py:%d:main" % 162, "global_rank_mapping=defaultdict(<class 'list'>, %s)" % repr(grm)))
        o.append(lp(ta + 0.1, "INFO", "launch.py:%d:main" % 163, "dist_world_size=%d" % job.world))
        o.append(lp(ta + 0.1, "INFO", "launch.py:%d:main" % 165, "Setting CUDA_VISIBLE_DEVICES=%s" % ",".join(str(r.local) for r in hh.ranks)))
        for r in hh.ranks:
            cmdl = [hh.pyexe, "-u", job.script_name, "--local_rank=%d" % r.local] + job.script_args.split()
            o.append(lp(ta + 0.2, "INFO", "launch.py:%d:main" % 256, "process %d spawned with command: %s" % (r.pid, repr(cmdl))))
        job.emit(hh, ta, "agent", "\n".join(o))
        hh.ds_last_cmd = [hh.pyexe, "-u", job.script_name, "--local_rank=%d" % hh.ranks[-1].local] + job.script_args.split()


def setup2(job):
    rng = job.rng
    job.p2p_disable = (job.os == "linux" and any(g.key in ("4090", "5090", "4080") for g in job.head.gpus)
                       and rng.random() < 0.4)
    job.sock_ifname = None
    if job.nhosts > 1 and job.os == "linux" and rng.random() < 0.75:
        job.sock_ifname = job.head.iface if all(h.iface == job.head.iface for h in job.hosts) else None
    job.omp_set = rng.random() < 0.2
    job.acc_config = rng.random() < 0.6
    job.nb_elastic = job.tv >= (2, 3) and rng.random() < 0.6
    job.win_sock_warn = rng.choice([1, 1, 2, 4]) if job.os == "win" else 0
    job.mixed_prec = rng.choice(["bf16", "fp16", "no", "bf16"])
    job.nccl_async_env = rng.random() < 0.3
    job.barrier_warn = rng.random() < 0.6
    job.find_unused = rng.random() < 0.2
    job.num_workers = rng.choice([2, 4, 8, 8, 12, 16]) * len(job.head.ranks)
    job.dl_warn = job.num_workers > job.head.ncpu and rng.random() < 0.8
    job.amp_warn = rng.random() < 0.4
    job.expandable = rng.random() < 0.4
    job.elog_site = rng.random() < 0.35
    job.script_name = rng.choice(["train.py", "train_ddp.py", "main.py", "finetune.py", "run_train.py", "pretrain.py"])
    if job.flavor == "hf":
        job.script_name = rng.choice(["train.py", "run_clm.py", "sft.py", "finetune.py", "train_lora.py"])
    job.script_args = rng.choice(["--config configs/base.yaml", "--bs 8 --lr 3e-4 --epochs 3",
                                  "--model_name_or_path %s --output_dir out" % job.model.split(" ")[0],
                                  "--deepspeed ds_config.json", "--data /mnt/data/shards --amp"])
    if job.launcher == "deepspeed" and "--deepspeed" not in job.script_args:
        job.script_args += " --deepspeed ds_config.json"
    job.ds_style = rng.choice(["host", "ip"])
    job.ds_name = (lambda h: h.name) if job.ds_style == "host" else (lambda h: h.ip)
    job.ds_env = []
    if job.nccl_debug:
        job.ds_env.append(("NCCL_DEBUG", job.nccl_debug))
    if job.sock_ifname:
        job.ds_env.append(("NCCL_SOCKET_IFNAME", job.sock_ifname))
    if job.p2p_disable:
        job.ds_env.append(("NCCL_P2P_DISABLE", "1"))
    job.ds_ver = rng.choice(DS_VER)
    job.nb_kernel_pid = rng.randint(1200, 90000)
    job.nb_cell_hash = rng.randint(100000000, 4294967295)
    job.accel_ver = rng.choice(["0.27.2", "0.30.1", "0.34.2", "1.0.1", "1.2.1", "1.6.0", "1.10.1"])
    job.tf_ver = rng.choice(["4.38.2", "4.41.2", "4.44.2", "4.46.3", "4.48.1", "4.51.3", "4.55.4"])


def loss_at(job, step):
    r = job.frng
    x = max(0.0, step / float(max(1, job.total_steps)))
    base = job.loss0 * (0.35 + 0.65 * (2.718 ** (-4.0 * x))) + job.loss_floor
    return max(0.01, base * (1 + r.uniform(-0.06, 0.06)))


def lr_at(job, step):
    warm = job.total_steps * 0.03
    if step < warm:
        return job.lr * step / max(1.0, warm)
    x = (step - warm) / max(1.0, job.total_steps - warm)
    return job.lr * (0.1 + 0.9 * 0.5 * (1 + __import__("math").cos(3.14159 * x)))


def main_rank(job):
    return job.ranks[0]


def progress(job, t_end, finished):
    """rank-0 (and optionally per-rank) progress until t_end."""
    r0 = main_rank(job)
    h = r0.host
    rng = job.frng
    job.loss0 = rng.uniform(1.5, 6.5)
    job.loss_floor = rng.uniform(0.05, 0.6)
    job.lr = rng.choice([1e-4, 2e-4, 3e-4, 5e-5, 2e-5, 1e-3])
    step_s = job.step_s
    last = max(0, min(job.total_steps, int((t_end - job.t_train) / step_s)))
    if finished:
        last = job.total_steps
    spe = max(1, job.total_steps // job.epochs)
    # bar updates
    if job.tqdm:
        nupd = min(220, max(2, last))
        pts = sorted(set([int(last * k / float(nupd)) for k in range(nupd + 1)]))
        for s in pts:
            tt = job.t_train + s * step_s + rng.uniform(0, step_s * 0.5)
            if job.flavor in ("hf",) or job.launcher == "notebook":
                tot, n, el = job.total_steps, s, s * step_s
                desc = ""
            else:
                ep = min(job.epochs - 1, s // spe)
                n = s - ep * spe
                tot = spe
                el = n * step_s
                desc = job.bar_desc % (ep + 1 if "%d" in job.bar_desc else 0) if "%d" in job.bar_desc else job.bar_desc
            rate = 1.0 / step_s * (1 + rng.uniform(-0.03, 0.03))
            post = ""
            if job.bar_post:
                post = "loss=%.4f, lr=%.2e" % (loss_at(job, s), lr_at(job, s))
            job.remit(r0, tt, tqdm_bar(n, tot, el, rate, desc, post), kind="bar")
    # log lines
    s = job.log_every
    while s <= last:
        tt = job.t_train + s * step_s + rng.uniform(0, step_s * 0.4)
        job.remit(r0, tt, fmt_log(job, r0, tt, s))
        s += job.log_every
    # per-rank timing lines
    if job.per_rank:
        every = job.log_every * rng.choice([1, 2, 5])
        while last / float(every) * job.world > 1400:
            every *= 2
        s = every
        while s <= last:
            for rk in job.ranks:
                tt = job.t_train + s * step_s + rng.uniform(0, step_s * 0.3)
                job.remit(rk, tt, fmt_rank_timing(job, rk, tt, s))
            s += every
    if finished:
        tt = job.t_train + job.total_steps * step_s + 2
        fin = []
        if job.flavor == "hf":
            rt = job.total_steps * step_s
            fin.append("\n\nTraining completed. Do not forget to share your model on huggingface.co/models =)\n\n")
            fin.append("{'train_runtime': %.4f, 'train_samples_per_second': %.3f, 'train_steps_per_second': %.3f, 'train_loss': %.10f, 'epoch': %.1f}" % (
                rt, job.total_steps * 8 * job.world / rt, job.total_steps / rt, loss_at(job, job.total_steps // 2), float(job.epochs)))
        elif job.flavor == "ds":
            fin.append("[%s] [INFO] [launch.py:%d:main] Process %d exits successfully." % (f_pylog(h.local(tt)), 351, r0.pid))
        else:
            fin.append("training done in %s, best val_loss %.4f" % (f_hms(job.total_steps * step_s), loss_at(job, job.total_steps) * 1.05))
        job.remit(r0, tt, "\n".join(fin))
        if job.tqdm:
            hfb = job.flavor in ("hf",) or job.launcher == "notebook"
            n = job.total_steps if hfb else spe
            desc = "" if hfb else (job.bar_desc % job.epochs if "%d" in job.bar_desc else job.bar_desc)
            job.remit(r0, tt - 1, tqdm_bar(n, n, n * step_s, 1.0 / step_s, desc), kind="bar")
    return last


def fmt_log(job, rk, t, s):
    h = rk.host
    l = loss_at(job, s)
    lr = lr_at(job, s)
    spe = max(1, job.total_steps // job.epochs)
    ep = min(job.epochs - 1e-9, s / float(spe))
    if job.flavor == "hf":
        if job.tv >= (2, 2):
            return "{'loss': %.4f, 'grad_norm': %s, 'learning_rate': %s, 'epoch': %.2f}" % (
                l, repr(round(job.frng.uniform(0.2, 3.5), 6)), repr(float("%.6g" % lr)), ep)
        return "{'loss': %.4f, 'learning_rate': %s, 'epoch': %.2f}" % (l, repr(float("%.6g" % lr)), ep)
    if job.flavor == "accel":
        d = h.local(t)
        return "%s - INFO - __main__ - epoch %d: step %d loss %.4f lr %.3e" % (d.strftime("%m/%d/%Y %H:%M:%S"), int(ep), s, l, lr)
    if job.flavor == "ds":
        d = h.local(t)
        a = "[%s] [INFO] [logging.py:%d:log_dist] [Rank 0] step=%d, skipped=%d, lr=[%s], mom=[(0.9, 0.95)]" % (
            f_pylog(d), job.pick([96, 107, 128]), s, job.frng.choice([0, 0, 1, 2]), repr(float("%.6g" % lr)))
        b = "[%s] [INFO] [timer.py:%d:stop] epoch=%d/micro_step=%d/global_step=%d, RunningAvgSamplesPerSec=%.2f, CurrSamplesPerSec=%.2f, MemAllocated=%.2fGB, MaxMemAllocated=%.2fGB" % (
            f_pylog(d), job.pick([258, 259, 264]), int(ep), s, s, 8 * job.world / job.step_s, 8 * job.world / job.step_s * job.frng.uniform(0.9, 1.1),
            job.frng.uniform(4, 14), job.frng.uniform(14, 21))
        return a + "\n" + b
    if job.launcher == "spawn":
        return "%s [rank0] INFO: epoch %d step %d/%d loss %.4f lr %.2e %.1fms/step" % (
            f_pylog(h.local(t)), int(ep) + 1, s, job.total_steps, l, lr, job.step_s * 1000 * job.frng.uniform(0.97, 1.03))
    return "epoch %d | step %d/%d | loss %.4f | lr %.2e | %.1f ms/step" % (
        int(ep) + 1, s, job.total_steps, l, lr, job.step_s * 1000 * job.frng.uniform(0.97, 1.03))


def fmt_rank_timing(job, rk, t, s):
    r = job.frng
    comp = job.base_compute * (1.0 / rk.gpu.speed) * job.slowness.get(rk.r, 1.0) * r.uniform(0.96, 1.04)
    slowest = max(job.base_compute * (1.0 / x.gpu.speed) * job.slowness.get(x.r, 1.0) for x in job.ranks)
    wait = max(0.004, slowest - comp) * r.uniform(0.9, 1.1) + r.uniform(0.005, 0.03)
    data = r.uniform(0.001, 0.02)
    if job.launcher == "spawn":
        return "%s [rank%d] INFO: step %d data %.3fs fwd_bwd %.3fs allreduce %.3fs" % (
            f_pylog(rk.host.local(t)), rk.r, s, data, comp, wait)
    return "[rank %d] step %d | data %.3fs | fwd+bwd %.3fs | allreduce %.3fs | %.1f samples/s" % (
        rk.r, s, data, comp, wait, job.local_bs / max(0.01, comp + wait + data))


# --------------------------------------------------------------------------
# kernel message builders
# --------------------------------------------------------------------------
def xid_line(g, xid, pid, name, text):
    if pid is None:
        return "NVRM: Xid (PCI:%s): %d, pid='<unknown>', name=<unknown>, %s" % (g.xid_pci(), xid, text)
    return "NVRM: Xid (PCI:%s): %d, pid=%d, name=%s, %s" % (g.xid_pci(), xid, pid, name, text)


def proc_comm(job):
    return job.proc_comm


def aer_lines(job, h, g, t, n):
    rng = job.frng
    port = rng.choice(["0000:00:01.1", "0000:00:03.1", "0000:40:01.1", "0000:00:1c.4", "0000:00:01.0"])
    for k in range(n):
        tt = t - rng.uniform(5, 3000)
        job.kern(h, tt, "pcieport %s: AER: Corrected error received: %s" % (port, g.bus))
        job.kern(h, tt, "nvidia %s: PCIe Bus Error: severity=Corrected, type=Physical Layer, (Receiver ID)" % g.bus)
        job.kern(h, tt, "nvidia %s:   device [10de:%s] error status/mask=00000001/0000a000" % (g.bus, g.pciid))
        job.kern(h, tt, "nvidia %s:    [ 0] RxErr                  (First)" % g.bus)


def kernel_noise(job):
    rng = job.frng
    for h in job.hosts:
        if h.os == "win":
            continue
        b = h.boot
        drv = job.driver
        if h.os == "linux":
            job.kern(h, b + 2.1, "Linux version %s (buildd@lcy02-amd64-%03d) (x86_64-linux-gnu-gcc-12 (Ubuntu 12.3.0-1ubuntu1~22.04) 12.3.0, GNU ld (GNU Binutils for Ubuntu) 2.38) #%d SMP PREEMPT_DYNAMIC" % (h.kver, rng.randint(1, 120), rng.randint(20, 60)))
            job.kern(h, b + 2.3, "DMI: %s" % h.board)
            job.kern(h, b + 6.8, "nvidia: loading out-of-tree module taints kernel.")
            job.kern(h, b + 6.8, "nvidia: module license 'NVIDIA' taints kernel.")
            job.kern(h, b + 6.9, "nvidia-nvlink: Nvlink Core is being initialized, major device number %d" % rng.choice([234, 235, 236, 509]))
            for g in h.gpus:
                job.kern(h, b + 7.0, "nvidia %s: vgaarb: VGA decodes changed: olddecodes=io+mem,decodes=none:owns=none" % g.bus)
            job.kern(h, b + 7.2, "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  %s  %s" % (drv, DRV_DATE.get(drv, "Tue Mar  5 22:23:56 UTC 2024")))
            job.kern(h, b + 7.5, "nvidia-modeset: Loading NVIDIA Kernel Mode Setting Driver for UNIX platforms  %s" % drv)
            job.kern(h, b + 8.0, "nvidia-uvm: Loaded the UVM driver, major device number %d." % rng.choice([508, 509, 510, 511]))
            nic = h.nic
            if nic[0] == "atlantic":
                job.kern(h, b + 9.0, "atlantic 0000:07:00.0 %s: atlantic: link change old 0 new 10000" % nic[2])
            elif nic[0] == "r8169":
                job.kern(h, b + 9.0, "r8169 %s %s: Link is Up - %s" % (nic[1], nic[2], nic[3]))
            else:
                job.kern(h, b + 9.0, "%s %s %s: NIC Link is Up %s" % (nic[0], nic[1], nic[2], nic[3]))
            job.kern(h, b + 9.2, "IPv6: ADDRCONF(NETDEV_CHANGE): %s: link becomes ready" % nic[2])
            if rng.random() < 0.5:
                job.kern(h, b + 30, "docker0: port 1(veth%s) entered forwarding state" % hx(rng, 7))
            for k in range(rng.randint(2, 8)):
                tt = b + rng.uniform(60, max(120, job.t_launch - b))
                job.kern(h, tt, rng.choice([
                    "audit: type=1400 audit(%d.%03d:%d): apparmor=\"DENIED\" operation=\"open\" class=\"file\" profile=\"snap.firefox.firefox\" name=\"/proc/pressure/memory\" pid=%d comm=\"firefox\" requested_mask=\"r\" denied_mask=\"r\" fsuid=1000 ouid=0" % (int(tt), rng.randint(0, 999), rng.randint(100, 900), rng.randint(2000, 90000)),
                    "usb 1-%d: new full-speed USB device number %d using xhci_hcd" % (rng.randint(1, 9), rng.randint(2, 20)),
                    "ucsi_acpi USBC000:00: possible UCSI driver bug 2",
                    "Bluetooth: hci0: Opcode 0x0c03 failed: -110",
                    "EXT4-fs (nvme0n1p2): re-mounted. Quota mode: none.",
                    "perf: interrupt took too long (2504 > 2500), lowering kernel.perf_event_max_sample_rate to 79750",
                    "workqueue: drm_fb_helper_damage_work hogged CPU for >10000us 4 times, consider switching to WQ_UNBOUND",
                    "[UFW BLOCK] IN=%s OUT= MAC=01:00:5e:00:00:01 SRC=%s DST=224.0.0.1 LEN=36 TOS=0x00 PREC=0xC0 TTL=1 ID=0 DF PROTO=2" % (h.iface, h.ip.rsplit(".", 1)[0] + ".1"),
                ]))
        else:  # wsl
            job.kern(h, b + 0.0, "Linux version %s (root@%s) (gcc (GCC) 11.2.0, GNU ld (GNU Binutils) 2.37) #1 SMP Thu Oct  5 21:02:42 UTC 2023" % (h.kver, hx(rng, 12)))
            job.kern(h, b + 0.5, "Hyper-V: privilege flags low 0xae7f, high 0x3b8030, hints 0x9e4e24, misc 0x31e1bf2")
            job.kern(h, b + 2.2, "hv_vmbus: registering driver hv_pci")
            job.kern(h, b + 2.9, "misc dxg: dxgk: dxgkio_query_adapter_info: Ioctl failed: -22")
            for k in range(rng.randint(2, 6)):
                tt = b + rng.uniform(60, max(120, job.t_launch - b))
                job.kern(h, tt, rng.choice(["misc dxg: dxgk: dxgkio_query_adapter_info: Ioctl failed: -22",
                                            "hv_balloon: Max. dynamic memory size: %d MB" % (h.ram_gb * 512),
                                            "WSL (%d) ERROR: CheckConnection: getaddrinfo() failed: -5" % rng.randint(2, 400),
                                            "mini_init (%d): drop_caches: 1" % rng.randint(100, 999)]))


# --------------------------------------------------------------------------
# failure primitives
# --------------------------------------------------------------------------
def spawn_like(job):
    return job.launcher == "spawn" or (job.launcher == "notebook" and not job.nb_elastic)


def rank_fail(job, rk, t, what, exc_lines, code=1, extra_frames=None, frames=None):
    """a rank dies from a Python exception."""
    if frames is not None:
        tb_frames = frames
    else:
        tb_frames = fr_user_top(job, rk, what) + fr_call(job, rk, what) + (extra_frames or [])
    if spawn_like(job):
        job.spawn_exc[rk.r] = py_tb(job, rk, tb_frames, exc_lines, prefix="")
    else:
        job.remit(rk, t, py_tb(job, rk, tb_frames, exc_lines))
    set_exit(job, rk, t + 0.3, code, "error")


def set_exit(job, rk, t, code, how):
    if rk.r in job.exits and job.exits[rk.r].t <= t:
        return
    job.exits[rk.r] = Exit(t, code, how)


def fail_op(job):
    if job.launcher == "deepspeed" or job.flavor == "ds":
        op = job.pick(["_REDUCE_SCATTER_BASE", "ALLREDUCE", "_ALLGATHER_BASE"])
    else:
        op = "ALLREDUCE"
    numel = job.pick([1, 6553600, 13107200, 25165824, 466119168 // 8, 2049, 8388608, 22806528])
    if op == "ALLREDUCE" and numel == 1 and job.rng.random() < 0.5:
        numel = 6553600
    return op, numel


def schedule_timeouts(job, ranks, t_block, seq=None, op=None, numel=None, jitter=3.0):
    if op is None:
        op, numel = fail_op(job)
    if seq is None:
        seq = seq_at(job, t_block)
    for rk in ranks:
        tt = t_block + job.timeout_ms / 1000.0 + job.frng.uniform(0.0, jitter)
        job.timeouts.append((tt, rk, seq, op, numel))
    return seq, op, numel


def pick_culprit(job, pred=None):
    h = job.hosts[job.culprit_hidx]
    cands = [r for r in h.ranks if pred is None or pred(r)]
    if not cands:
        cands = h.ranks
    return job.rng.choice(cands)


def mapping_visible(job, rk, pid_in_kernel=False):
    """can a careful reader map this GPU (bus id, or the pid in an Xid line) to the rank?"""
    if job.nccl_debug == "INFO" or len(rk.host.ranks) == 1:
        return True
    if pid_in_kernel and job.launcher == "deepspeed":
        return True     # "process <pid> spawned with command: [... --local_rank=N ...]"
    if rk.host.pci_order and (job.want_smi or job.want_dmesg):
        return True     # bus order == nvidia-smi index == CUDA index == local rank
    return False


# --------------------------------------------------------------------------
# causes
# --------------------------------------------------------------------------
def inj_gpu_hardware(job):
    rng = job.rng
    rk = pick_culprit(job)
    h, g = rk.host, rk.gpu
    t = job.t_fail
    job.culprit, job.culprit_host = rk, h
    if h.os == "win":
        variant = "tdr"
    else:
        variant = rng.choice(["xid79", "xid79", "xid79", "gsp", "xid62"])
        if variant == "gsp" and not (job.driver >= "535" and g.key in ("4090", "5090", "l40s", "6000ada", "4080")):
            variant = "xid79"
    comm = proc_comm(job)
    stuck = rng.random() < 0.4
    errmsg = rng.choice(["unspecified launch failure", "unknown error", "unspecified launch failure"])
    if variant == "xid79":
        if rng.random() < 0.6:
            aer_lines(job, h, g, t, rng.randint(1, 4))
        job.kern(h, t, "NVRM: GPU at PCI:%s: %s" % (g.xid_pci(), g.uuid))
        job.kern(h, t, "NVRM: GPU Board Serial Number: %s" % ("0" if not g.ecc else g.serial))
        job.kern(h, t, xid_line(g, 79, rk.pid, comm, "GPU has fallen off the bus."))
        job.kern(h, t, "NVRM: GPU %s: GPU has fallen off the bus." % g.bus)
        job.kern(h, t, "NVRM: GPU %s: GPU serial number is %s." % (g.bus, "0" if not g.ecc else g.serial))
        if job.driver >= "545":
            job.kern(h, t, "NVRM: krcRcAndNotifyAllChannels_IMPL: RC all channels for critical error 79.")
            for k in range(rng.randint(2, 6)):
                job.kern(h, t + 0.001 * k, "NVRM: _threadNodeCheckTimeout: API_GPU_ATTACHED_SANITY_CHECK failed!")
        job.kern(h, t, "NVRM: A GPU crash dump has been created. If possible, please run")
        job.kern(h, t, "NVRM: nvidia-bug-report.sh as root to collect this data before")
        job.kern(h, t, "NVRM: the NVIDIA kernel module is unloaded.")
        job.smi_lost = g
        job.notes.append("Xid 79 (fallen off the bus) on %s %s %s" % (h.name, g.short, g.bus))
    elif variant == "gsp":
        gi = h.gpus.index(g)
        job.kern(h, t, xid_line(g, 119, rk.pid, comm, "Timeout after 6s of waiting for RPC response from GPU%d GSP! Expected function 76 (GSP_RM_CONTROL) (0x20802a02 0x8)." % gi))
        job.kern(h, t, "NVRM: GPU%d GSP RPC buffer contains function 76 (GSP_RM_CONTROL) and data 0x0000000020802a02 0x0000000000000008." % gi)
        job.kern(h, t, "NVRM: GPU%d RPC history (CPU -> GSP):" % gi)
        job.kern(h, t, "NVRM:     entry function                   data0              data1              ts_start           ts_end             duration actively_polling")
        job.kern(h, t, "NVRM:      0    76   GSP_RM_CONTROL        0x0000000020802a02 0x0000000000000008 0x000%s 0x0000000000000000          y" % hx(job.frng, 13))
        job.kern(h, t + 6, xid_line(g, 119, rk.pid, comm, "Timeout after 6s of waiting for RPC response from GPU%d GSP! Expected function 10 (FREE) (0xa55a0040 0x0)." % gi))
        if job.driver >= "550":
            job.kern(h, t + 6.2, xid_line(g, 154, None, None, "GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)").replace("pid='<unknown>', name=<unknown>, ", ""))
        job.smi_err = g
        job.notes.append("Xid 119 GSP RPC timeout on %s %s %s" % (h.name, g.short, g.bus))
    elif variant == "xid62":
        job.kern(h, t, xid_line(g, 62, rk.pid, comm, "%s(%s) 00000000 00000000" % (hx(job.frng, 4), hx(job.frng, 4))))
        job.kern(h, t + 0.4, xid_line(g, 45, rk.pid, comm, "Ch 000000%02x" % job.frng.randint(8, 60)))
        job.smi_err = g
        job.notes.append("Xid 62 (micro-controller halt) on %s %s" % (h.name, g.bus))
    else:  # tdr on windows
        job.winevents.append((t, "Error", "nvlddmkm", 153, "\\Device\\Video%d\nError occurred on GPUID: %s" % (job.frng.randint(3, 9), g.win_gpuid())))
        job.winevents.append((t + 2, "Error", "nvlddmkm", 14, "The description for Event ID 14 from source nvlddmkm cannot be found. Either the component that raises this event is not installed on your local computer or the installation is corrupted. You can install or repair the component on the local computer.\n\nIf the event originated on another computer, the display information had to be saved with the event.\n\nThe following information was included with the event: \n\n\\Device\\Video%d\nCMDre 00000000 00000080 00000000 00000000 00000000\n\nThe message resource is present but the message was not found in the message table" % job.frng.randint(3, 9)))
        job.winevents.append((t + 4, "Warning", "Display", 4101, "Display driver nvlddmkm stopped responding and has successfully recovered."))
        job.smi_lost = g
        errmsg = rng.choice(["unspecified launch failure", "the launch timed out and was terminated", "unknown error"])
        job.notes.append("TDR / nvlddmkm 153 on %s GPUID %s (%s)" % (h.name, g.win_gpuid(), g.short))
    emitted = False
    if stuck and variant != "tdr":
        job.hung.append(rk)
        schedule_timeouts(job, [x for x in job.ranks if x is not rk], t)
        job.notes.append("culprit process wedged in the driver (no CUDA error printed)")
    else:
        td = t + job.frng.uniform(0.05, 3.0)
        if job.backend == "nccl" and rng.random() < 0.5:
            te = watchdog_cuda_error(job, rk, td, errmsg)
            set_exit(job, rk, te, -6, "signal")
        else:
            rank_fail(job, rk, td, rng.choice(["item", "backward", "forward"]), cuda_err_lines(job, errmsg))
        emitted = True
    job.want_smi = job.want_smi or rng.random() < 0.7
    job.want_dmesg = True if h.os != "win" else False
    job.want_events = h.os == "win"
    job.progress_end = t
    vis = mapping_visible(job, rk, pid_in_kernel=(variant != "tdr"))
    job.truth.update(rank=rk.r, node=h.name, drain=True, rank_inferable=bool(emitted or vis))
    if not emitted and not vis:
        job.notes.append("no file maps bus %s to a rank" % g.bus)


def inj_ecc(job):
    rng = job.rng
    rk = pick_culprit(job, lambda r: r.gpu.ecc)
    h, g = rk.host, rk.gpu
    t = job.t_fail
    job.culprit, job.culprit_host = rk, h
    comm = proc_comm(job)
    if h.os != "win":
        v = rng.choice(["94", "95", "48"])
        if v == "94":
            job.kern(h, t, xid_line(g, 94, rk.pid, comm, "Contained: SM (0x1). RST: No, D-RST: No"))
        elif v == "95":
            job.kern(h, t, xid_line(g, 95, rk.pid, comm, "Uncontained: LTC TAG (0x2,0x0). RST: Yes, D-RST: No"))
        else:
            job.kern(h, t, xid_line(g, 48, rk.pid, comm, "An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition %d, subpartition %d." % (job.frng.randint(0, 11), job.frng.randint(0, 1))))
        job.kern(h, t + 0.2, xid_line(g, 63, None, None, "Row Remapper: New row (0x%016x) is marked for remapping, reset gpu to activate." % job.frng.randrange(0x10000, 0x3ffffff)))
        job.notes.append("Xid %s + 63 (row remap pending) on %s %s" % (v, h.name, g.bus))
    job.smi_ecc[g.idx] = rng.randint(1, 4)
    job.ecc_q = g
    td = t + job.frng.uniform(0.01, 2.0)
    if job.backend == "nccl" and rng.random() < 0.35:
        te = watchdog_cuda_error(job, rk, td, "uncorrectable ECC error encountered")
        set_exit(job, rk, te, -6, "signal")
    else:
        rank_fail(job, rk, td, rng.choice(["item", "forward", "backward"]), cuda_err_lines(job, "uncorrectable ECC error encountered"))
    # decoy: correctable counts on another GPU
    others = [x for x in h.gpus if x is not g and x.ecc]
    if others and rng.random() < 0.5:
        o = rng.choice(others)
        job.smi_ecc_corr[o.idx] = rng.randint(1, 40)
        job.decoys.append("correctable ECC counts on %s GPU %d" % (h.name, o.idx))
    job.want_smi = True
    job.want_dmesg = h.os != "win"
    job.progress_end = t
    job.truth.update(rank=rk.r, node=h.name, drain=True, rank_inferable=True)


def inj_nvlink(job):
    rng = job.rng
    rk = pick_culprit(job, lambda r: r.gpu.nvlink_peer is not None and any(x.gpu.idx == r.gpu.nvlink_peer for x in r.host.ranks))
    h, g = rk.host, rk.gpu
    if g.nvlink_peer is None:   # fallback: make a bridge
        peer_g = [x for x in h.gpus if x is not g][0]
        g.nvlink_peer, peer_g.nvlink_peer = peer_g.idx, g.idx
    peer = [x for x in h.ranks if x.gpu.idx == g.nvlink_peer][0]
    t = job.t_fail
    job.culprit, job.culprit_host = rk, h
    comm = proc_comm(job)
    link = rng.randint(0, 3)
    job.kern(h, t, xid_line(g, 74, rk.pid, comm, "NVLink: fatal error detected on link %d(0x%x, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0)" % (link, rng.choice([0x10000, 0x20000, 0x100]))))
    if rng.random() < 0.6:
        job.kern(h, t + 0.3, xid_line(g, 45, rk.pid, comm, "Ch 000000%02x" % job.frng.randint(8, 60)))
        job.kern(h, t + 0.35, xid_line(peer.gpu, 45, peer.pid, comm, "Ch 000000%02x" % job.frng.randint(8, 60)))
    job.nvlink_bad = (g, link)
    msg = ("NCCL error: unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version %s\n"
           "ncclUnhandledCudaError: Call to CUDA function failed.\nLast error:\nCuda failure 'unspecified launch failure'" % job.nccl)
    for who, dly in ((rk, 0.02), (peer, rng.uniform(-0.4, 1.5))):
        tt = t + 0.3 + dly
        if job.nccl_debug:
            pre = "%s:%d:%d [%d]" % (h.name, who.pid, who.tid + 11, who.dev)
            job.remit(who, tt - 0.01, "\n%s transport/p2p.cc:%d NCCL WARN Cuda failure 'unspecified launch failure'\n%s NCCL INFO proxy.cc:%d -> 1 [Progress Thread]" % (
                pre, rng.choice([275, 344, 462]), pre, rng.choice([698, 894])))
        P = PGN[job.tv]
        if job.tv >= (2, 4):
            term = "%s Process group watchdog thread terminated with exception: %s" % (pg_tag(job, who), msg)
        else:
            term = "[Rank %d] NCCL watchdog thread terminated with exception: %s" % (who.r, msg)
        raised = "Exception raised from checkForNCCLErrorsInternal at %s:%d (most recent call first):" % (
            src_path(job, "torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp"), P["exc"] + 360)
        fr = cpp_frames(job, h, "nccl")
        job.remit(who, tt, "\n".join([c10(job, who, tt, "E", "ProcessGroupNCCL.cpp:%d" % P["term"], term), raised] + fr +
                                    ["", "terminate called after throwing an instance of 'c10::DistBackendError'", "  what():  " + term, raised] + fr + [""]))
        set_exit(job, who, tt + 0.1, -6, "signal")
    job.want_nvlink = True
    job.want_smi = job.want_smi or rng.random() < 0.5
    job.want_dmesg = True
    job.progress_end = t
    job.notes.append("Xid 74 NVLink fatal on %s %s (bridged to GPU %d); both bridge ends abort" % (h.name, g.bus, peer.gpu.idx))
    job.truth.update(rank=rk.r, node=h.name, drain=True, rank_inferable=bool(mapping_visible(job, rk, pid_in_kernel=True)))


def inj_network(job):
    rng = job.rng
    t = job.t_fail
    variant = "nic" if rng.random() < 0.75 else "switch"
    h = job.hosts[job.culprit_hidx]
    job.culprit_host = h if variant == "nic" else None
    down_hosts = [h] if variant == "nic" else list(job.hosts)
    for hh in down_hosts:
        tt = t + (0 if hh is h else rng.uniform(0, 1.2))
        nic = hh.nic
        if hh.os == "win":
            job.winevents.append((tt, "Warning", rng.choice(["e1dexpress", "e2fexpress", "rt640x64"]), 27,
                                  "%s\n Network link is disconnected." % rng.choice(["Intel(R) Ethernet Connection (17) I219-V", "Intel(R) Ethernet Controller (3) I225-V", "Realtek PCIe 2.5GbE Family Controller"])))
            continue
        iface = hh.iface
        if nic[0] == "igc" and variant == "nic" and rng.random() < 0.5:
            job.kern(hh, tt, "igc %s %s: PCIe link lost, device now detached" % (nic[1], iface))
            job.kern(hh, tt + 0.01, "------------[ cut here ]------------")
            job.kern(hh, tt + 0.01, "igc: Failed to read reg 0xc030!")
            job.kern(hh, tt + 0.02, "WARNING: CPU: %d PID: %d at drivers/net/ethernet/intel/igc/igc_main.c:6482 igc_rd32+0x91/0xa0 [igc]" % (rng.randint(0, 15), rng.randint(100, 900)))
        elif nic[0] == "atlantic":
            job.kern(hh, tt, "atlantic %s %s: atlantic: link change old 10000 new 0" % (nic[1], iface))
        elif nic[0] == "r8169":
            job.kern(hh, tt, "r8169 %s %s: Link is Down" % (nic[1], iface))
        else:
            job.kern(hh, tt, "%s %s %s: NIC Link is Down" % (nic[0], nic[1], iface))
        if rng.random() < 0.6:   # flapping
            for k in range(rng.randint(1, 4)):
                t2 = tt + rng.uniform(2, 400)
                if nic[0] == "r8169":
                    job.kern(hh, t2, "r8169 %s %s: Link is Up - %s" % (nic[1], iface, nic[3]))
                    job.kern(hh, t2 + rng.uniform(1, 30), "r8169 %s %s: Link is Down" % (nic[1], iface))
                elif nic[0] == "atlantic":
                    job.kern(hh, t2, "atlantic %s %s: atlantic: link change old 0 new 10000" % (nic[1], iface))
                    job.kern(hh, t2 + rng.uniform(1, 30), "atlantic %s %s: atlantic: link change old 10000 new 0" % (nic[1], iface))
                else:
                    job.kern(hh, t2, "%s %s %s: NIC Link is Up %s" % (nic[0], nic[1], iface, nic[3]))
                    job.kern(hh, t2 + rng.uniform(1, 30), "%s %s %s: NIC Link is Down" % (nic[0], nic[1], iface))
    # everybody blocks; ranks on the far side may log socket errors first
    seq, op, numel = schedule_timeouts(job, job.ranks, t, jitter=4.0)
    if job.backend == "nccl":
        for rk in job.ranks:
            if rk.host is h and variant == "nic":
                continue
            if rng.random() < 0.5:
                peer_h = h if variant == "nic" else rng.choice([x for x in job.hosts if x is not rk.host])
                nccl_sock_warn(job, rk, t + rng.uniform(60, job.timeout_ms / 1000.0 - 5), peer_h.ip, peer_h.name,
                               rng.choice(["timeout", "reset"]))
    job.want_dmesg = True
    job.progress_end = t
    if variant == "nic":
        job.notes.append("NIC %s (%s) link down on %s; collectives time out everywhere" % (h.iface, h.nic[0], h.name))
        job.truth.update(rank=None, node=h.name, drain=True, rank_inferable=False)
    else:
        job.notes.append("link down on all %d boxes at once (switch / direct cable); no single node at fault" % len(job.hosts))
        job.truth.update(rank=None, node=None, drain=False, rank_inferable=False)
    job.remote_mode = "timeout"


def inj_oom(job):
    rng = job.rng
    kind = job.oom_kind
    h = job.hosts[job.culprit_hidx]
    other = None
    if kind == "mixed" and h.mixed:
        rk = min(h.ranks, key=lambda r: (r.gpu.mib, r.r))
    elif kind == "display":
        rk = [r for r in h.ranks if r.gpu.idx == 0][0] if any(r.gpu.idx == 0 for r in h.ranks) else h.ranks[0]
        other = (rng.randint(1200, 4000), rng.choice([0.30, 0.45, 0.61, 0.88, 1.32]))
        job.smi_xorg = (rk.gpu, other)
        job.notes.append("GPU %d also drives the desktop (Xorg/gnome-shell)" % rk.gpu.idx)
    else:
        rk = pick_culprit(job)
    job.culprit, job.culprit_host = rk, h
    t = job.t_fail
    req = rng.choice([0.25, 0.5, 1.0, 1.96, 2.0, 3.91, 0.16, 7.81])
    what = rng.choice(["forward", "backward", "forward"])
    extra = []
    if what == "forward":
        if "Llama" in job.model or "Qwen" in job.model or "Mistral" in job.model or "TinyLlama" in job.model:
            mdl = "llama" if "Qwen" not in job.model else "qwen2"
            extra = [(lib(h, "transformers/models/%s/modeling_%s.py" % (mdl, mdl)), rng.choice([1189, 1164, 823]), "forward", "outputs = self.model("),
                     (lib(h, "transformers/models/%s/modeling_%s.py" % (mdl, mdl)), rng.choice([1001, 945, 571]), "forward", "layer_outputs = decoder_layer(")] + fr_module(job, h) + [
                     (lib(h, "transformers/models/%s/modeling_%s.py" % (mdl, mdl)), rng.choice([327, 398, 260]), "forward", "attn_weights = torch.matmul(query_states, key_states.transpose(2, 3)) / math.sqrt(self.head_dim)")]
        else:
            extra = [(user(h, "model.py"), rng.randint(40, 200), "forward", rng.choice(["x = self.blocks(x)", "att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))", "h = torch.cat([h, skip], dim=1)"]))]
    rank_fail(job, rk, t, what, oom_lines(job, rk, req, other), extra_frames=extra)
    if job.launcher == "deepspeed" and rng.random() < 0.6:
        for k in range(rng.randint(1, 3)):
            tt = t - rng.uniform(30, 900)
            job.remit(rk, tt, "[%s] [WARNING] [stage3.py:%d:step] %d pytorch allocator cache flushes since last step. this happens when there is high memory pressure and is detrimental to performance. if this is happening frequently consider adjusting settings to reduce memory consumption. If you are unable to make the cache flushes go away consider adding get_accelerator().empty_cache() calls in your training loop to ensure that all ranks flush their caches at the same time" % (
                f_pylog(h.local(tt)), rng.choice([2069, 2117, 2171]), rng.randint(1, 6)))
    job.progress_end = t
    job.want_smi = job.want_smi or kind == "display" or rng.random() < 0.3
    job.notes.append("CUDA OOM on rank %d (%s, %s)" % (rk.r, rk.gpu.short, kind))
    job.truth.update(rank=rk.r, node=h.name, drain=False, rank_inferable=True)


def inj_ima(job):
    rng = job.rng
    rk = pick_culprit(job)
    h, g = rk.host, rk.gpu
    t = job.t_fail
    job.culprit, job.culprit_host = rk, h
    msg = rng.choice(["an illegal memory access was encountered"] * 4 + ["misaligned address"])
    if job.backend == "nccl" and rng.random() < 0.3:
        te = watchdog_cuda_error(job, rk, t + 0.2, msg)
        set_exit(job, rk, te, -6, "signal")
    else:
        rank_fail(job, rk, t + 0.2, rng.choice(["item", "backward", "step"]), cuda_err_lines(job, msg))
    if h.os != "win" and rng.random() < 0.55:
        comm = proc_comm(job)
        if rng.random() < 0.6:
            job.kern(h, t, xid_line(g, 31, rk.pid, comm, "Ch 000000%02x, intr 10000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_%d faulted @ 0x7f%02x_%08x. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ" % (
                job.frng.randint(8, 40), job.frng.randint(0, 7), job.frng.randint(0, 255), job.frng.randrange(0, 0xffffffff) & 0xfffff000)))
        else:
            job.kern(h, t, xid_line(g, 13, rk.pid, comm, "Graphics SM Warp Exception on (GPC %d, TPC %d, SM %d): Out Of Range Address" % (job.frng.randint(0, 6), job.frng.randint(0, 5), job.frng.randint(0, 1))))
            job.kern(h, t, xid_line(g, 13, rk.pid, comm, "Graphics Exception: ESR 0x5%05x=0x201000e 0x5%05x=0x24 0x5%05x=0x4c1eb72 0x5%05x=0x1174" % tuple(job.frng.randrange(0, 0xfffff) for _ in range(4))))
        job.want_dmesg = True
        job.decoys.append("Xid %s from the faulting kernel (application bug, not hardware)" % ("31/13"))
    job.progress_end = t
    job.notes.append("CUDA '%s' on rank %d" % (msg, rk.r))
    job.truth.update(rank=rk.r, node=h.name, drain=False, rank_inferable=True)


PY_ERRORS = [
    ("data", ["KeyError: Caught KeyError in DataLoader worker process %(w)d.", "Original Traceback (most recent call last):",
              '  File "%(site)s/torch/utils/data/_utils/worker.py", line 308, in _worker_loop',
              "    data = fetcher.fetch(index)  # type: ignore[possibly-undefined]",
              '  File "%(site)s/torch/utils/data/_utils/fetch.py", line 51, in fetch',
              "    data = [self.dataset[idx] for idx in possibly_batched_index]",
              '  File "%(dir)s/data.py", line %(ln)d, in __getitem__',
              "    label = self.label_map[row[\"label\"]]",
              "KeyError: 'unknown'", ""]),
    ("data", ["PIL.UnidentifiedImageError: Caught UnidentifiedImageError in DataLoader worker process %(w)d.",
              "Original Traceback (most recent call last):",
              '  File "%(site)s/torch/utils/data/_utils/worker.py", line 308, in _worker_loop',
              "    data = fetcher.fetch(index)  # type: ignore[possibly-undefined]",
              '  File "%(site)s/torch/utils/data/_utils/fetch.py", line 51, in fetch',
              "    data = [self.dataset[idx] for idx in possibly_batched_index]",
              '  File "%(dir)s/dataset.py", line %(ln)d, in __getitem__',
              "    img = Image.open(path).convert(\"RGB\")",
              '  File "%(site)s/PIL/Image.py", line 3498, in open',
              "    raise UnidentifiedImageError(msg)",
              "PIL.UnidentifiedImageError: cannot identify image file '/mnt/nas/datasets/%(ds)s/%(img)s'", ""]),
    ("forward", ["ValueError: Expected input batch_size (%(a)d) to match target batch_size (%(b)d)."]),
    ("forward", ["RuntimeError: The size of tensor a (%(n1)d) must match the size of tensor b (%(n2)d) at non-singleton dimension 1"]),
    ("data", ["FileNotFoundError: Caught FileNotFoundError in DataLoader worker process %(w)d.",
              "Original Traceback (most recent call last):",
              '  File "%(site)s/torch/utils/data/_utils/worker.py", line 308, in _worker_loop',
              "    data = fetcher.fetch(index)  # type: ignore[possibly-undefined]",
              '  File "%(site)s/torch/utils/data/_utils/fetch.py", line 51, in fetch',
              "    data = [self.dataset[idx] for idx in possibly_batched_index]",
              '  File "%(dir)s/data.py", line %(ln)d, in __getitem__',
              "    with open(self.files[idx], \"rb\") as f:",
              "FileNotFoundError: [Errno 2] No such file or directory: '/mnt/data/shards/shard_%(shard)05d.bin'", ""]),
    ("metric", ["ZeroDivisionError: division by zero"]),
    ("metric", ["TypeError: 'NoneType' object is not subscriptable"]),
    ("data", ["UnicodeDecodeError: Caught UnicodeDecodeError in DataLoader worker process %(w)d.",
              "Original Traceback (most recent call last):",
              '  File "%(site)s/torch/utils/data/_utils/worker.py", line 308, in _worker_loop',
              "    data = fetcher.fetch(index)  # type: ignore[possibly-undefined]",
              '  File "%(site)s/torch/utils/data/_utils/fetch.py", line 51, in fetch',
              "    data = [self.dataset[idx] for idx in possibly_batched_index]",
              '  File "%(dir)s/data.py", line %(ln)d, in __getitem__',
              "    text = f.read()",
              '  File "<frozen codecs>", line 322, in decode',
              "UnicodeDecodeError: 'utf-8' codec can't decode byte 0x8b in position 1: invalid start byte", ""]),
]


def inj_pyexc(job):
    rng = job.rng
    rk = pick_culprit(job)
    h = rk.host
    t = job.t_fail
    job.culprit, job.culprit_host = rk, h
    what, tmpl = rng.choice(PY_ERRORS)
    sep = h.sep
    d = dict(w=rng.randint(0, 7), site=h.site.replace("\\", "/") if h.os != "win" else h.site, dir=h.script_dir, ln=rng.randint(30, 140),
             ds=rng.choice(["laion-aes", "coco2017/train2017", "danbooru", "custom_v3"]),
             img="%012d.jpg" % rng.randint(0, 999999999), a=rng.choice([12, 16, 8, 24]), b=rng.choice([8, 7, 15, 11]),
             n1=rng.choice([2049, 1025, 513, 77]), n2=rng.choice([2048, 1024, 512, 76]), shard=rng.randint(0, 2047))
    if h.os == "win":
        tmpl = [x.replace("%(site)s/", "%(site)s\\").replace("/", "\\") if x.startswith("  File") else x for x in tmpl]
    exc = [x % d for x in tmpl]
    extra = None
    if what == "metric":
        frames = fr_user_top(job, rk, "item") + [(user(h, job.script_name), rng.randint(120, 260), "evaluate", "acc = compute_accuracy(preds, labels)"),
                                                 (user(h, "utils.py"), rng.randint(10, 90), "compute_accuracy",
                                                  "return correct / total" if "Zero" in exc[0] else "n = len(batch[\"labels\"][0])")]
        rank_fail(job, rk, t, None, exc, frames=frames)
    elif what == "forward" and "batch_size" in exc[0]:
        extra = [(lib(h, "torch/nn/modules/loss.py"), rng.choice([1188, 1179, 1295]), "forward", "return F.cross_entropy("),
                 (lib(h, "torch/nn/functional.py"), rng.choice([3104, 3086, 3479]), "cross_entropy", "return torch._C._nn.cross_entropy_loss(")]
        rank_fail(job, rk, t, "forward", exc, extra_frames=fr_module(job, h) + extra)
    else:
        rank_fail(job, rk, t, what if what != "metric" else "forward", exc)
    # decoy: a handled error on another rank
    oth = [x for x in job.ranks if x is not rk]
    if oth and rng.random() < 0.5:
        o = rng.choice(oth)
        tt = t - rng.uniform(200, 4000)
        if tt > job.t_train:
            job.remit(o, tt, "WARNING: skipping corrupt sample idx=%d: OSError('image file is truncated (%d bytes not processed)')" % (rng.randint(1000, 900000), rng.randint(3, 90)))
            job.decoys.append("handled corrupt-sample warning on rank %d" % o.r)
    job.progress_end = t
    job.notes.append("Python exception on rank %d: %s" % (rk.r, exc[0][:80]))
    job.truth.update(rank=rk.r, node=h.name, drain=False,
                     rank_inferable=bool(job.tv >= (2, 3) or spawn_like(job) or job.launcher in ("torchrun", "accelerate", "deepspeed") or len(job.ranks) == 1))


def oom_kill_lines(job, h, t, pid, comm, anon_kb, cg):
    rng = job.frng
    out = [(t, "%s invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0" % rng.choice(["python3", "pt_main_thread", "pt_data_worker", "gnome-shell"])),
           (t, ("CPU: %d PID: %d Comm: %s Tainted: P           OE      %s #%d~22.04.1-Ubuntu" % (rng.randint(0, h.ncpu - 1), pid + rng.randint(1, 50), comm, h.kver, rng.randint(20, 60)))
            if h.os != "wsl" else ("CPU: %d PID: %d Comm: %s Not tainted %s #1" % (rng.randint(0, h.ncpu - 1), pid + rng.randint(1, 50), comm, h.kver))),
           (t, "Hardware name: %s" % (h.board if h.os != "wsl" else "Microsoft Corporation Virtual Machine/Virtual Machine, BIOS Hyper-V UEFI Release v4.1 04/06/2022")),
           (t, "Call Trace:"), (t, " <TASK>"), (t, " dump_stack_lvl+0x48/0x70"), (t, " dump_header+0x50/0x220"),
           (t, " oom_kill_process+0x10d/0x1c0"), (t, " out_of_memory+0x101/0x2d0"), (t, " __alloc_pages_slowpath.constprop.0+0xa1e/0xe30"),
           (t, " </TASK>"), (t, "Mem-Info:"),
           (t, "active_anon:%d inactive_anon:%d isolated_anon:0" % (rng.randint(1000, 90000), anon_kb // 4)),
           (t, "oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0,global_oom,task_memcg=%s,task=%s,pid=%d,uid=1000" % (cg, comm, pid)),
           (t, "Out of memory: Killed process %d (%s) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:1000 pgtables:%dkB oom_score_adj:0" % (
               pid, comm, anon_kb * 3 + rng.randint(0, 9999999), anon_kb, rng.randint(50000, 900000), rng.randint(1000, 4000000), anon_kb // 500)),
           (t + 0.6, "oom_reaper: reaped process %d (%s), now anon-rss:0kB, file-rss:0kB, shmem-rss:%dkB" % (pid, comm, rng.randint(1000, 40000)))]
    for tt, x in out:
        job.kern(h, tt, x)


def inj_host_oom(job):
    rng = job.rng
    h = job.hosts[job.culprit_hidx]
    t = job.t_fail
    variant = rng.choice(["proc", "proc", "worker", "oomd"])
    if h.os != "linux" or job.layout != "nohup-accelerate":
        variant = rng.choice(["proc", "worker"])
    if job.launcher in ("deepspeed",) and variant == "oomd":
        variant = "proc"
    cg = "/user.slice/user-1000.slice/session-%d.scope" % rng.randint(2, 40)
    if h.os == "wsl":
        cg = "/"
    if variant == "oomd":
        job.journal.append((h, t - 25, "systemd-oomd[%d]" % rng.randint(700, 1500),
                            "Killed /user.slice/user-1000.slice/user@1000.service/app.slice/app-org.gnome.Terminal.slice/vte-spawn-%s.scope due to memory pressure for /user.slice/user-1000.slice/user@1000.service being %.2f%% > 50.00%% for > 20s with reclaim activity" % (
                                "%s-%s-%s-%s-%s" % (hx(rng, 8), hx(rng, 4), hx(rng, 4), hx(rng, 4), hx(rng, 12)), rng.uniform(55, 92))))
        for rk in h.ranks:
            set_exit(job, rk, t, -9, "oom")
        job.oomd_host = h
        job.agent_dead.append(h.name)
        job.culprit_host = h
        job.progress_end = t - 25
        job.notes.append("systemd-oomd killed the whole terminal scope on %s (launcher and all ranks)" % h.name)
        job.truth.update(rank=None, node=h.name, drain=False, rank_inferable=False)
        job.want_journal = True
        return
    rk = pick_culprit(job)
    job.culprit, job.culprit_host = rk, h
    anon = int(h.ram_gb * 1024 * 1024 * rng.uniform(0.35, 0.8))
    if variant == "proc":
        oom_kill_lines(job, h, t, rk.pid, proc_comm(job), anon, cg)
        set_exit(job, rk, t + 0.05, -9, "oom")
        job.notes.append("kernel OOM killer killed rank %d (pid %d) on %s (%d GB RAM)" % (rk.r, rk.pid, h.name, h.ram_gb))
        inferable = True
    else:
        wpid = rk.pid + rng.randint(20, 400)
        oom_kill_lines(job, h, t, wpid, "pt_data_worker" if job.tv >= (2, 2) else "python3", anon // 4, cg)
        extra = [(lib(h, "torch/utils/data/dataloader.py"), frame_tables(job)["dl"][1] - 20, "_next_data", "idx, data = self._get_data()"),
                 (lib(h, "torch/utils/data/dataloader.py"), 1295, "_get_data", "success, data = self._try_get_data()"),
                 (lib(h, "torch/utils/data/dataloader.py"), 1146, "_try_get_data", "raise RuntimeError(f'DataLoader worker (pid(s) {pids_str}) exited unexpectedly') from e")]
        frames = fr_user_top(job, rk, "data") + fr_call(job, rk, "data")[:1] + fr_dataloader(job, h)[1 if job.tqdm else 0:2 if job.tqdm else 1] + extra
        exc = ["RuntimeError: DataLoader worker (pid(s) %d) exited unexpectedly" % wpid]
        pre_tb = py_tb(job, rk, [(lib(h, "torch/utils/data/dataloader.py"), 1133, "_try_get_data", "data = self._data_queue.get(timeout=timeout)"),
                                  (h.stdlib + "/multiprocessing/queues.py", 113, "get", "if not self._poll(timeout):"),
                                  (lib(h, "torch/utils/data/_utils/signal_handling.py"), 67, "handler", "_error_if_any_worker_fails()")],
                     ["RuntimeError: DataLoader worker (pid %d) is killed by signal: Killed. " % wpid, "",
                      "The above exception was the direct cause of the following exception:", ""])
        if not spawn_like(job):
            job.remit(rk, t + 0.5, pre_tb)
        rank_fail(job, rk, t + 0.5, None, exc, frames=frames)
        job.notes.append("OOM killer took a DataLoader worker (pid %d) of rank %d on %s" % (wpid, rk.r, h.name))
        inferable = True
    if h.os == "wsl":
        job.files[".wslconfig"] = "[wsl2]\nmemory=%dGB\nprocessors=%d\nswap=0\n" % (rng.choice([16, 24, 32]), h.ncpu)
        job.notes.append("WSL2 VM memory cap (.wslconfig)")
    job.want_dmesg = True
    job.progress_end = t
    job.truth.update(rank=rk.r, node=h.name, drain=False, rank_inferable=inferable)


def inj_crash(job):
    rng = job.rng
    rk = pick_culprit(job)
    h = rk.host
    t = job.t_fail
    job.culprit, job.culprit_host = rk, h
    if h.os == "win":
        code = 3221225477
        if rng.random() < 0.6:
            job.remit(rk, t, "Windows fatal exception: access violation\n\nThread 0x%08x (most recent call first):\n  File \"%s\", line %d in __getitem__\n  File \"%s\", line 51 in fetch\n\nMain thread:\nCurrent thread 0x%08x (most recent call first):\n  File \"%s\", line %d in train_one_epoch" % (
                rng.randrange(0x1000, 0xffff), user(h, "dataset.py"), rng.randint(40, 120), lib(h, "torch/utils/data/_utils/fetch.py"),
                rng.randrange(0x1000, 0xffff), user(h, job.script_name), rng.randint(100, 300)))
        set_exit(job, rk, t + 0.1, code, "signal")
        job.notes.append("access violation (0xC0000005) in rank %d" % rk.r)
    else:
        v = rng.choice(["segv", "segv", "abort", "bus"])
        pyv = h.py.replace(".", "")
        lib_so = rng.choice(["libdecord.so", "libavcodec.so.58", "_C.cpython-%s-x86_64-linux-gnu.so" % pyv, "libopencv_imgproc.so.4.5d",
                             "flash_attn_2_cuda.cpython-%s-x86_64-linux-gnu.so" % pyv, "libtorch_cpu.so", "libgomp-a34b3233.so.1"])
        if v == "segv":
            code = -11
            if rng.random() < 0.6:
                job.kern(h, t, "%s[%d]: segfault at %x ip %016x sp %016x error %d in %s[%x+%x] likely on CPU %d (core %d, socket 0)" % (
                    proc_comm(job), rk.pid, rng.choice([0, 8, 0x10, 0x7f00deadbeef]), rng.randrange(0x7f0000000000, 0x7fffffffffff),
                    rng.randrange(0x7ff000000000, 0x7fffffffffff), rng.choice([4, 6, 14]), lib_so,
                    rng.randrange(0x7f0000000000, 0x7fffffffffff) & ~0xfff, rng.randrange(0x10000, 0x900000) & ~0xfff,
                    rng.randint(0, h.ncpu - 1), rng.randint(0, h.ncpu // 2)))
                job.kern(h, t, "Code: %s" % " ".join(hx(job.frng, 2) for _ in range(32)))
            if rng.random() < 0.5:
                job.remit(rk, t, "Fatal Python error: Segmentation fault\n\nThread 0x%012x (most recent call first):\n  File \"%s\", line %d in __getitem__\n  File \"%s\", line 51 in fetch\n\nCurrent thread 0x%012x (most recent call first):\n  File \"%s\", line %d in train_one_epoch\n  File \"%s\", line %d in main\n  File \"%s\", line %d in <module>\n\nExtension modules: numpy.core._multiarray_umath, torch._C, torch._C._fft, torch._C._linalg, torch._C._nn, torch._C._sparse, torch._C._special (total: %d)" % (
                    rng.randrange(0x7f0000000000, 0x7fffffffffff), user(h, "dataset.py"), rng.randint(40, 120), lib(h, "torch/utils/data/_utils/fetch.py"),
                    rng.randrange(0x7f0000000000, 0x7fffffffffff), user(h, job.script_name), rng.randint(100, 300), user(h, job.script_name), rng.randint(300, 400),
                    user(h, job.script_name), rng.randint(400, 520), rng.randint(30, 120)))
            desc = "SIGSEGV in %s" % lib_so
        elif v == "abort":
            code = -6
            job.remit(rk, t, rng.choice(["free(): invalid pointer", "double free or corruption (!prev)", "corrupted size vs. prev_size",
                                         "malloc(): unaligned tcache chunk detected"]))
            desc = "glibc abort"
        else:
            code = -7
            job.kern(h, t, "%s[%d]: potentially unexpected fatal signal 7." % (proc_comm(job), rk.pid))
            desc = "SIGBUS"
        set_exit(job, rk, t + 0.05, code, "signal")
        job.want_dmesg = job.want_dmesg or rng.random() < 0.7
        job.notes.append("%s on rank %d" % (desc, rk.r))
    job.progress_end = t
    job.truth.update(rank=rk.r, node=h.name, drain=False, rank_inferable=True)


def inj_preempt(job):
    rng = job.rng
    h = job.hosts[job.culprit_hidx]
    t = job.t_fail
    job.culprit_host = h
    if h.os == "win":
        v = "winupdate"
    elif h.os == "wsl":
        v = rng.choice(["winupdate", "wslshutdown"])
    else:
        v = rng.choice(["reboot", "timeout", "kill", "suspend"] if job.nhosts > 1 else ["reboot", "timeout", "kill"])
        if job.layout == "tmux-torchrun" and v == "reboot":
            v = rng.choice(["timeout", "kill"])
        if job.layout == "jupyter-notebook" and v in ("timeout", "suspend"):
            v = rng.choice(["reboot", "kill"])
    sig = "SIGTERM"
    if v == "reboot":
        job.journal.append((h, t - 60, "unattended-upgrade-shutdown[%d]" % rng.randint(800, 3000), "Unattended-upgrades in progress, will reboot when done"))
        job.journal.append((h, t - 2, "systemd-logind[%d]" % rng.randint(700, 1500), "The system will reboot now!"))
        job.journal.append((h, t - 1, "systemd-logind[%d]" % rng.randint(700, 1500), "System is rebooting."))
        job.journal.append((h, t, "systemd[1]", "Stopping Session %d of User %s..." % (rng.randint(2, 40), h.user)))
        job.journal.append((h, t + 1, "systemd[1]", "Stopping user@1000.service - User Manager for UID 1000..."))
        desc = "unattended-upgrades automatic reboot"
        job.want_journal = True
    elif v == "timeout":
        job.shell_timeout = rng.choice(["8h", "12h", "24h", "6h"])
        desc = "`timeout %s` wrapper sent SIGTERM" % job.shell_timeout
    elif v == "kill":
        job.journal.append((h, t - 1, "sudo[%d]" % rng.randint(5000, 90000), "   %s : TTY=pts/%d ; PWD=/home/%s ; USER=root ; COMMAND=/usr/bin/pkill -f python" % (
            rng.choice([x for x in USERS if x != h.user]), rng.randint(1, 9), rng.choice([x for x in USERS if x != h.user]))))
        desc = "a labmate ran `sudo pkill -f python`"
        job.want_journal = True
    elif v == "suspend":
        job.journal.append((h, t - 1, "systemd-logind[%d]" % rng.randint(700, 1500), "The system will suspend now!"))
        job.journal.append((h, t, "kernel", "PM: suspend entry (deep)"))
        job.journal.append((h, t + 3600, "kernel", "PM: suspend exit"))
        desc = "box suspended (idle power settings); peers time out"
        job.want_journal = True
    elif v == "winupdate":
        job.winevents.append((t - 5, "Information", "User32", 1074, "The process C:\\WINDOWS\\uus\\AMD64\\MoUsoCoreWorker.exe (%s) has initiated the restart of computer %s on behalf of user NT AUTHORITY\\SYSTEM for the following reason: Operating System: Service pack (Planned)\n Reason Code: 0x80020010\n Shutdown Type: restart\n Comment: " % (h.name, h.name)))
        job.winevents.append((t + 30, "Information", "EventLog", 6006, "The Event log service was stopped."))
        desc = "Windows Update restart (Event 1074)"
        job.want_events = True
    else:
        desc = "`wsl --shutdown` from a Docker Desktop update"
        job.winevents.append((t - 3, "Information", "Docker Desktop", 0, "Stopping WSL distributions for update"))
        job.want_events = True
    job.preempt = (h, t, sig, v)
    if job.layout == "jupyter-notebook" and h is job.head:
        job.agent_dead.append(h.name)
    job.progress_end = t
    if v == "suspend":
        others = [x for x in job.ranks if x.host is not h]
        schedule_timeouts(job, others, t)
        job.preempt = None
        job.suspended = (h, t + 3600)
        for rk in h.ranks:
            job.hung.append(rk)
    job.notes.append("preemption: %s on %s" % (desc, h.name))
    job.truth.update(rank=None, node=h.name, drain=False, rank_inferable=False)


def inj_hang(job):
    rng = job.rng
    rk = pick_culprit(job)
    h = rk.host
    t = job.t_fail
    job.culprit, job.culprit_host = rk, h
    job.hung.append(rk)
    others = [x for x in job.ranks if x is not rk]
    if job.backend == "nccl":
        schedule_timeouts(job, others, t)
    else:
        for x in others:
            job.gloo_timeouts.append((t + job.timeout_ms / 1000.0 + job.frng.uniform(0, 2), x))
    where = rng.choice(["generate", "lock", "barrier_io", "cuda_sync"])
    stack = {
        "generate": [("_sample", lib(h, "transformers/generation/utils.py"), rng.choice([3254, 3217, 2808])),
                     ("generate", lib(h, "transformers/generation/utils.py"), rng.choice([2215, 2024, 1914])),
                     ("decorate_context", lib(h, "torch/utils/_contextlib.py"), 116),
                     ("log_samples", user(h, job.script_name), rng.randint(80, 200))],
        "lock": [("wait", h.stdlib + "/threading.py", 320), ("wait", h.stdlib + "/threading.py", 607),
                 ("_flush", user(h, "logger_utils.py"), rng.randint(20, 90)), ("log_metrics", user(h, job.script_name), rng.randint(80, 200))],
        "barrier_io": [("write", "<frozen _io>", 0), ("save", lib(h, "torch/serialization.py"), rng.choice([651, 850, 964])),
                       ("save_checkpoint", user(h, "utils.py"), rng.randint(20, 90))],
        "cuda_sync": [("synchronize", lib(h, "torch/cuda/__init__.py"), rng.choice([792, 892, 985])),
                      ("profile_step", user(h, job.script_name), rng.randint(80, 200))],
    }[where]
    if rng.random() < 0.55 and h.os != "win":
        lines = ["Process %d: %s -u %s %s" % (rk.pid, h.pyexe, job.script_name, job.script_args),
                 "Python v%s.%d (%s)" % (h.py, rng.randint(4, 14), "/usr/bin/python" + h.py), "",
                 'Thread %d (%s): "MainThread"' % (rk.pid, "active" if where in ("generate", "cuda_sync") else "idle")]
        for fn, f, ln in stack:
            lines.append("    %s (%s:%d)" % (fn, f, ln) if ln else "    %s (%s)" % (fn, f))
        lines.append("    train_one_epoch (%s:%d)" % (user(h, job.script_name), rng.randint(150, 300)))
        lines.append("    main (%s:%d)" % (user(h, job.script_name), rng.randint(300, 400)))
        lines.append("    <module> (%s:%d)" % (user(h, job.script_name), rng.randint(400, 520)))
        lines.append('Thread %d (idle): "Thread-2 (_pin_memory_loop)"' % (rk.pid + rng.randint(30, 90)))
        lines.append("    wait (threading.py:324)")
        lines.append("    get (queue.py:180)")
        lines.append("    do_one_step (torch/utils/data/_utils/pin_memory.py:31)")
        job.pyspy = (rk, "\n".join(lines))
        job.notes.append("py-spy dump of the stuck rank attached (%s)" % where)
    job.smi_util = {x.gpu.idx: (100 if x is not rk else 0) for x in h.ranks}
    job.want_smi = job.want_smi or rng.random() < 0.5
    job.smi_t = t + rng.uniform(120, job.timeout_ms / 1000.0 - 30)
    job.progress_end = t
    inferable = job.pyspy is not None or job.want_smi and mapping_visible(job, rk) or job.nhosts == 1
    job.notes.append("rank %d silently stops (%s); others hit the %d ms timeout" % (rk.r, where, job.timeout_ms))
    job.truth.update(rank=rk.r, node=h.name, drain=False, rank_inferable=bool(inferable))


def inj_dl_stall(job):
    rng = job.rng
    rk = pick_culprit(job)
    h = rk.host
    t = job.t_fail
    job.culprit, job.culprit_host = rk, h
    v = rng.choice(["timeout", "io", "deadlock"])
    others = [x for x in job.ranks if x is not rk]
    if v == "timeout":
        dlt = rng.choice([120, 300, 600])
        if dlt * 1000 >= job.timeout_ms:
            dlt = job.timeout_ms // 2000
        frames = fr_user_top(job, rk, "data") + fr_call(job, rk, "data")[:1] + [
            (lib(h, "torch/utils/data/dataloader.py"), frame_tables(job)["dl"][0], "__next__", "data = self._next_data()"),
            (lib(h, "torch/utils/data/dataloader.py"), frame_tables(job)["dl"][1] - 20, "_next_data", "idx, data = self._get_data()"),
            (lib(h, "torch/utils/data/dataloader.py"), 1285, "_get_data", "success, data = self._try_get_data()"),
            (lib(h, "torch/utils/data/dataloader.py"), 1146, "_try_get_data", "raise RuntimeError(f'DataLoader timed out after {self._timeout} seconds') from e")]
        pre = py_tb(job, rk, [(lib(h, "torch/utils/data/dataloader.py"), 1133, "_try_get_data", "data = self._data_queue.get(timeout=timeout)"),
                               (h.stdlib + "/multiprocessing/queues.py", 114, "get", "raise Empty")],
                    ["_queue.Empty", "", "The above exception was the direct cause of the following exception:", ""])
        if not spawn_like(job):
            job.remit(rk, t + dlt, pre)
        rank_fail(job, rk, t + dlt, None, ["RuntimeError: DataLoader timed out after %d seconds" % dlt], frames=frames)
        job.notes.append("DataLoader(timeout=%d) fires on rank %d" % (dlt, rk.r))
    else:
        job.hung.append(rk)
        if job.backend == "nccl":
            schedule_timeouts(job, others, t)
        else:
            for x in others:
                job.gloo_timeouts.append((t + job.timeout_ms / 1000.0 + job.frng.uniform(0, 2), x))
        if v == "io" and h.os != "win":
            wpid = rk.pid + rng.randint(20, 300)
            nas = rng.choice(["nas.local", "192.168.1.5", "synology", "truenas.lan"])
            if rng.random() < 0.5:
                job.kern(h, t + 30, "nfs: server %s not responding, still trying" % nas)
            else:
                job.kern(h, t + 30, "CIFS: VFS: \\\\%s has not responded in 180 seconds. Reconnecting..." % nas)
            job.kern(h, t + 150, "INFO: task %s:%d blocked for more than %d seconds." % ("pt_data_worker" if job.tv >= (2, 2) else "python3", wpid, rng.choice([120, 122, 241])))
            job.kern(h, t + 150, "      Tainted: P           OE      %s #%d-Ubuntu" % (h.kver, rng.randint(30, 60)))
            job.kern(h, t + 150, "\"echo 0 > /proc/sys/kernel/hung_task_timeout_secs\" disables this message.")
            job.kern(h, t + 150, "task:%s  state:D stack:0     pid:%d  ppid:%d  flags:0x00004002" % ("pt_data_worker" if job.tv >= (2, 2) else "python3", wpid, rk.pid))
            job.want_dmesg = True
            job.notes.append("rank %d DataLoader worker pid %d stuck in D state on %s" % (rk.r, wpid, nas))
        lines = ["Process %d: %s -u %s %s" % (rk.pid, h.pyexe, job.script_name, job.script_args),
                 "Python v%s.%d (%s)" % (h.py, rng.randint(4, 14), "/usr/bin/python" + h.py), "",
                 'Thread %d (idle): "MainThread"' % rk.pid,
                 "    select (selectors.py:415)", "    wait (multiprocessing/connection.py:1136)",
                 "    poll (multiprocessing/connection.py:440)", "    _poll (multiprocessing/connection.py:257)",
                 "    get (multiprocessing/queues.py:113)",
                 "    _try_get_data (torch/utils/data/dataloader.py:1133)",
                 "    _get_data (torch/utils/data/dataloader.py:1295)",
                 "    _next_data (torch/utils/data/dataloader.py:1325)",
                 "    __next__ (torch/utils/data/dataloader.py:630)",
                 "    train_one_epoch (%s:%d)" % (job.script_name, rng.randint(120, 240)),
                 "    main (%s:%d)" % (job.script_name, rng.randint(300, 400))]
        if rng.random() < 0.6 or v == "deadlock":
            job.pyspy = (rk, "\n".join(lines))
        if job.per_rank:
            job.stall_rank = rk
        job.progress_end = t
        if v == "deadlock":
            job.notes.append("rank %d DataLoader workers deadlocked (fork after OpenCV threads)" % rk.r)
    job.progress_end = t
    inferable = v == "timeout" or job.pyspy is not None or (v == "io" and job.nccl_debug == "INFO") or job.per_rank
    job.truth.update(rank=rk.r, node=h.name, drain=False, rank_inferable=bool(inferable))


def inj_mismatch(job):
    rng = job.rng
    rk = pick_culprit(job)
    h = rk.host
    t = job.t_fail
    job.culprit, job.culprit_host = rk, h
    seq = seq_at(job, t)
    others = [x for x in job.ranks if x is not rk]
    story = rng.choice(["rank0_eval", "uneven", "save"])
    if story == "rank0_eval":
        rk = job.ranks[0]
        job.culprit, job.culprit_host = rk, rk.host
        h = rk.host
        others = [x for x in job.ranks if x is not rk]
    op_c, numel_c = rng.choice([("BROADCAST", 1), ("ALLGATHER", 1), ("_ALLGATHER_BASE", 2 * 4096), ("BARRIER", 1), ("ALLREDUCE", 1)])
    op_o, numel_o = fail_op(job)
    if op_c == op_o == "ALLREDUCE":
        numel_o = max(numel_o, 6553600)
    tensor = lambda dtype, shape: ("CollectiveFingerPrint(SequenceNumber=%d, OpType=%s, TensorShape=[%s], TensorDtypes=%s, "
                                   "TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda, layout=Strided (default), "
                                   "requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt)))")
    if job.backend == "gloo" and rng.random() < 0.5:
        recv = rng.choice(others)
        big, small = rng.choice([(8773632, 8386560), (4096, 2048), (1572864, 1048576)])
        rank_fail(job, recv, t, "allreduce", ["RuntimeError: [enforce fail at %s:446] op.preamble.length <= op.nbytes. %d vs %d" % (
            gloo_path(job, recv.host, "pair.cc"), big, small)])
        job.notes.append("gloo size mismatch surfaced on rank %d; sender rank %d had a longer tensor" % (recv.r, rk.r))
        job.progress_end = t
        job.truth.update(rank=rk.r, node=h.name, drain=False, rank_inferable=False)
        return
    if job.dist_debug:
        fp = lambda r, op, n: "CollectiveFingerPrint(SequenceNumber=%d, OpType=%s, TensorShape=[%d], TensorDtypes=%s, TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt)))" % (
            seq, op, n, "Long" if n == 1 else "Float")
        for x in others:
            diff = "Collectives differ in the following aspects: \t Op type: %svs %s" % (op_o, op_c) if op_o != op_c else \
                "Collectives differ in the following aspects: \t Tensor Tensor shapes: %dvs %d" % (numel_o, numel_c)
            msg = "RuntimeError: Detected mismatch between collectives on ranks. Rank %d is running collective: %s, but Rank %d is running collective: %s.%s" % (
                x.r, fp(x.r, op_o, numel_o), rk.r, fp(rk.r, op_c, numel_c), diff)
            rank_fail(job, x, t + job.frng.uniform(0, 0.5), "allreduce" if op_o == "ALLREDUCE" else "backward", [msg])
        what = {"BROADCAST": "broadcast", "ALLGATHER": "all_gather", "_ALLGATHER_BASE": "all_gather_into_tensor", "BARRIER": "barrier", "ALLREDUCE": "all_reduce"}[op_c]
        msg = "RuntimeError: Detected mismatch between collectives on ranks. Rank %d is running collective: %s, but Rank %d is running collective: %s.%s" % (
            rk.r, fp(rk.r, op_c, numel_c), others[0].r, fp(others[0].r, op_o, numel_o),
            "Collectives differ in the following aspects: \t Op type: %svs %s" % (op_c, op_o) if op_o != op_c else "Collectives differ in the following aspects: \t Tensor Tensor shapes: %dvs %d" % (numel_c, numel_o))
        frames = fr_user_top(job, rk, "item") + [(user(h, job.script_name), rng.randint(120, 260), "evaluate" if story == "rank0_eval" else "train_one_epoch",
                                                  "dist.%s(%s)" % (what, "obj_list, src=0" if what == "broadcast" else "t")),
                                                 (lib(h, "torch/distributed/c10d_logger.py"), frame_tables(job)["c10d"][0], "wrapper", "return func(*args, **kwargs)")]
        rank_fail(job, rk, t + job.frng.uniform(0, 0.5), None, [msg], frames=frames)
        job.notes.append("TORCH_DISTRIBUTED_DEBUG=DETAIL: rank %d runs %s while others run %s (%s)" % (rk.r, op_c, op_o, story))
    else:
        if job.backend == "nccl":
            schedule_timeouts(job, others, t, seq=seq, op=op_o, numel=numel_o)
            schedule_timeouts(job, [rk], t, seq=seq, op=op_c, numel=numel_c)
        else:
            for x in job.ranks:
                job.gloo_timeouts.append((t + job.timeout_ms / 1000.0 + job.frng.uniform(0, 2), x))
        job.notes.append("rank %d enqueues %s (numel %d) where the others enqueue %s at SeqNum %d (%s)" % (rk.r, op_c, numel_c, op_o, seq, story))
    job.progress_end = t
    inferable = job.dist_debug or job.backend == "nccl"
    job.truth.update(rank=rk.r, node=h.name, drain=False, rank_inferable=bool(inferable))


def inj_straggler(job):
    rng = job.rng
    h = job.hosts[job.culprit_hidx]
    kind = job.strag_kind
    if kind == "mixed" and h.mixed:
        rk = min(h.ranks, key=lambda r: (r.gpu.speed, -r.r))
        factor = 1.0
        desc = "slowest card in a mixed box (%s)" % rk.gpu.short
    else:
        rk = pick_culprit(job)
        factor = rng.uniform(1.6, 2.8)
        kind = "thermal" if kind == "mixed" else kind
        desc = {"thermal": "thermal throttling (HW/SW Thermal Slowdown)", "lanes": "card behind a x4 chipset slot / riser"}[kind]
    job.culprit, job.culprit_host = rk, h
    job.slowness[rk.r] = factor
    # recompute step time: everyone waits for the slowest
    old = job.step_s
    slow = max(1.0 / x.gpu.speed * job.slowness.get(x.r, 1.0) for x in job.ranks)
    fast = sorted(1.0 / x.gpu.speed for x in job.ranks)[0]
    job.base_compute = old * 0.8 / max(1.0 / x.gpu.speed for x in job.ranks)
    job.step_s = job.base_compute * slow + old * 0.2
    nominal = job.base_compute * min(1.0 / x.gpu.speed for x in job.ranks) + old * 0.2
    job.per_rank = True
    end = rng.choice(["finish", "finish", "ctrlc", "timeout"])
    job.strag_end = end
    if kind == "thermal":
        job.q_perf = rk.gpu
        job.dmon_slow = (rk.gpu, "thermal")
    elif kind == "lanes":
        job.lspci = rk.gpu
        job.dmon_slow = (rk.gpu, "lanes")
    else:
        job.dmon_slow = (rk.gpu, "mixed")
    job.want_dmon = True
    if end == "finish":
        job.progress_end = job.t_train + job.total_steps * job.step_s
    elif end == "ctrlc":
        job.progress_end = job.t_train + rng.uniform(0.1, 0.4) * job.total_steps * job.step_s
    else:
        job.timeout_ms = rng.choice([120000, 180000, 300000])
        job.progress_end = job.t_fail
        others = [x for x in job.ranks if x is not rk]
        if job.backend == "nccl":
            schedule_timeouts(job, others, job.t_fail)
        else:
            for x in others:
                job.gloo_timeouts.append((job.t_fail + job.timeout_ms / 1000.0 + job.frng.uniform(0, 2), x))
        job.hung.append(rk)
        job.notes.append("user lowered the process-group timeout to %ds; the straggler falls behind during eval" % (job.timeout_ms // 1000))
    job.notes.append("straggler rank %d: %s, step time %.2fs vs %.2fs if every card kept up; ends by %s" % (rk.r, desc, job.step_s, nominal, end))
    job.truth.update(rank=rk.r, node=h.name, drain=False, rank_inferable=True)


def inj_unknown(job):
    rng = job.rng
    v = rng.choice(["acs", "alltimeout", "alltimeout"])
    if job.layout == "jupyter-notebook" and rng.random() < 0.4:
        v = "kernel"
    if v == "acs":
        t = job.t_init + rng.uniform(3, 20)
        job.t_fail = t
        job.t_train = t + 10 ** 7       # never trains
        if job.backend == "nccl":
            schedule_timeouts(job, job.ranks, t, seq=1, op=rng.choice(["BROADCAST", "ALLREDUCE"]), numel=rng.choice([1, 31138304, 6553600]))
        else:
            for x in job.ranks:
                job.gloo_timeouts.append((t + job.timeout_ms / 1000.0 + job.frng.uniform(0, 2), x))
        job.progress_end = t
        job.notes.append("every rank stuck at the first collective after init (P2P/ACS-style hang); nothing names a rank")
    elif v == "kernel":
        t = job.t_fail
        for x in job.ranks:
            set_exit(job, x, t, -9, "oom")
        job.nb_kernel_died = True
        job.progress_end = t
        job.notes.append("notebook kernel restarted with no message")
    else:
        t = job.t_fail
        if job.backend == "nccl":
            schedule_timeouts(job, job.ranks, t, jitter=2.0)
        else:
            for x in job.ranks:
                job.gloo_timeouts.append((t + job.timeout_ms / 1000.0 + job.frng.uniform(0, 2), x))
        job.progress_end = t
        job.notes.append("all ranks time out on the same SeqNum; no Xid, no traceback, no straggler")
    job.truth.update(rank=None, node=None, drain=False, rank_inferable=False)


INJECT = {"gpu_hardware": inj_gpu_hardware, "ecc_memory": inj_ecc, "nvlink": inj_nvlink, "network": inj_network,
          "cuda_oom": inj_oom, "illegal_memory_access": inj_ima, "python_exception": inj_pyexc,
          "host_oom_kill": inj_host_oom, "crash_signal": inj_crash, "preemption": inj_preempt, "hang": inj_hang,
          "data_loader_stall": inj_dl_stall, "collective_mismatch": inj_mismatch, "straggler": inj_straggler,
          "unknown": inj_unknown}


# --------------------------------------------------------------------------
# propagation: launcher reactions, collateral ranks
# --------------------------------------------------------------------------
def alive_at(job, rk, t):
    e = job.exits.get(rk.r)
    return e is None or e.t > t


def remote_collateral(job, rk, t, dead_host):
    """a rank on another box notices its peers are gone."""
    rng = job.frng
    if job.backend == "gloo":
        kind = rng.choice(["closed", "reset"])
        rank_fail(job, rk, t, rng.choice(["allreduce", "backward"]), [gloo_error(job, rk, kind, dead_host.ip if dead_host.os != "wsl" else dead_host.win_ip)])
        return
    last = nccl_sock_warn(job, rk, t - 0.01, dead_host.ip, dead_host.name, rng.choice(["closed", "reset", "reset"]))
    if job.tv >= (2, 4) and dead_host is job.head and rng.random() < 0.6:
        P = PGN[job.tv]
        job.remit(rk, t - 0.005, c10(job, rk, t - 0.005, "W", "TCPStore.cpp:%d" % rng.choice([106, 125, 131]),
                                     "[c10d] recvVector failed on SocketImpl(fd=%d, addr=[%s]:%d, remote=[%s]:%d): failed to recv, got 0 bytes" % (
                                         rng.randint(40, 200), rk.host.name, rng.randint(33000, 60000), job.master_addr, job.master_port)))
        job.remit(rk, t - 0.004, c10(job, rk, t - 0.004, "E", "ProcessGroupNCCL.cpp:%d" % (P["exc"] - 250),
                                     "%s Failed to check the \"should dump\" flag on TCPStore, (maybe TCPStore server has shut down too early), with error: Failed to recv, got 0 bytes. Connection was likely closed. Did the remote server shutdown or crash?" % pg_tag(job, rk)))
    seq = seq_at(job, min(t, job.progress_end or t))
    if rng.random() < 0.6:
        te = nccl_remote_error(job, rk, t, last, seq)
        set_exit(job, rk, te, -6, "signal")
    else:
        exc = ["torch.distributed.DistBackendError: NCCL error in: %s:%d, remote process exited or there was a network error, NCCL version %s" % (
            src_path(job, "torch/csrc/distributed/c10d/NCCLUtils.hpp" if job.tv >= (2, 2) else "torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp"),
            _vi(job, {(2, 1): 1970, (2, 2): 219, (2, 4): 275, (2, 5): 317, (2, 6): 268, (2, 7): 275}), job.nccl),
               "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.",
               "Last error:", last]
        rank_fail(job, rk, t, rng.choice(["backward", "allreduce", "item"]), exc)


def propagate(job):
    rng = job.frng
    mon = {"torchrun": 0.1 if job.tv >= (2, 2) else 5.0, "accelerate": 0.1 if job.tv >= (2, 2) else 5.0,
           "deepspeed": 1.0, "spawn": 0.2, "notebook": 0.2}[job.launcher]
    handled = []
    job.agent_events = []
    remote_q = []
    timeouts = sorted(job.timeouts, key=lambda x: (x[0], x[1].r))
    gloo_to = sorted(job.gloo_timeouts, key=lambda x: (x[0], x[1].r))
    for _ in range(10000):
        cands = []
        for h in job.hosts:
            if h.name in handled:
                continue
            fails = [job.exits[r.r] for r in h.ranks if r.r in job.exits and job.exits[r.r].code != 0]
            if fails:
                cands.append((min(e.t for e in fails) + mon, 0, "agent", h))
        if job.preempt and job.preempt[0].name not in handled:
            cands.append((job.preempt[1], 1, "preempt", job.preempt[0]))
        for item in timeouts:
            if alive_at(job, item[1], item[0]):
                cands.append((item[0], 2, "wd", item))
                break
        for item in gloo_to:
            if alive_at(job, item[1], item[0]):
                cands.append((item[0], 2, "gloo", item))
                break
        for item in remote_q:
            if alive_at(job, item[1], item[0]):
                cands.append((item[0], 3, "remote", item))
                break
        if not cands:
            break
        cands.sort(key=lambda c: (c[0], c[1]))
        t, _, kind, obj = cands[0]
        if kind == "wd":
            timeouts.remove(obj)
            tt, rk, seq, op, numel = obj
            te = nccl_timeout_block(job, rk, tt, seq, op, numel)
            set_exit(job, rk, te, -6, "signal")
        elif kind == "gloo":
            gloo_to.remove(obj)
            tt, rk = obj
            rank_fail(job, rk, tt, rng.choice(["allreduce", "backward"]), [gloo_error(job, rk, "timeout")])
        elif kind == "remote":
            remote_q.remove(obj)
            tt, rk, dead = obj
            remote_collateral(job, rk, tt, dead)
        else:
            h = obj
            handled.append(h.name)
            fails = sorted([(job.exits[r.r].t, r) for r in h.ranks if r.r in job.exits and job.exits[r.r].code != 0 and job.exits[r.r].t <= t],
                           key=lambda x: (x[0], x[1].local))
            killed = []
            for r in h.ranks:
                if alive_at(job, r, t):
                    job.exits[r.r] = Exit(t + rng.uniform(0.05, 1.5), -15 if h.os != "win" else 1, "killed")
                    killed.append(r)
            job.agent_events.append(dict(host=h, t=t, fails=[r for _, r in fails], killed=killed,
                                         kind="preempt" if kind == "preempt" else "fail", dead=h.name in job.agent_dead))
            # other boxes
            if job.nhosts > 1 and job.remote_mode == "remote_error":
                for hh in job.hosts:
                    if hh is h:
                        continue
                    for r in hh.ranks:
                        if alive_at(job, r, t):
                            tr = t + rng.uniform(0.3, 9.0)
                            if job.suspended and job.suspended[0] is hh:
                                tr = max(tr, job.suspended[1] + rng.uniform(2.0, 20.0))
                            remote_q.append((tr, r, h))
                remote_q.sort(key=lambda x: (x[0], x[1].r))
    # user interrupt for anything still alive
    alive = [r for r in job.ranks if r.r not in job.exits]
    if alive:
        tint = job.user_interrupt or (max([e.t for e in job.exits.values()] + [job.progress_end or job.t_fail]) + rng.uniform(300, 5000))
        job.user_interrupt = tint
        for r in alive:
            job.exits[r.r] = Exit(tint + rng.uniform(0, 0.3), -2, "sigint")
        for h in job.hosts:
            if h.name not in handled:
                job.agent_events.append(dict(host=h, t=tint, fails=[], killed=[r for r in h.ranks if r in alive],
                                             kind="sigint", dead=False))


def sig_name(code):
    return {-2: "SIGINT", -6: "SIGABRT", -7: "SIGBUS", -9: "SIGKILL", -11: "SIGSEGV", -15: "SIGTERM"}.get(code, "SIG%d" % -code)


def sig_num(code):
    return -code


def torchrun_frames(job, h, accel=False):
    T = lambda d: _vi(job, d)
    run_main = T({(2, 1): 806, (2, 2): 812, (2, 3): 879, (2, 4): 919, (2, 5): 919, (2, 6): 918, (2, 7): 892, (2, 8): 901})
    run_run = T({(2, 1): 797, (2, 2): 803, (2, 3): 870, (2, 4): 910, (2, 5): 910, (2, 6): 909, (2, 7): 883, (2, 8): 892})
    api_call = T({(2, 1): 134, (2, 3): 133, (2, 4): 138, (2, 6): 138, (2, 7): 139})
    api_la = T({(2, 1): 264, (2, 3): 263, (2, 4): 260, (2, 6): 260, (2, 7): 270})
    err_wr = T({(2, 1): 346, (2, 2): 347, (2, 3): 347, (2, 4): 348, (2, 5): 355, (2, 7): 357})
    if accel:
        fr = [(h.bin + h.sep + ("accelerate" if h.os != "win" else "accelerate.exe\\__main__.py"), 8 if h.os != "win" else 7, "<module>", "sys.exit(main())"),
              (lib(h, "accelerate/commands/accelerate_cli.py"), job.pick([46, 48, 50]), "main", "args.func(args)"),
              (lib(h, "accelerate/commands/launch.py"), job.pick([1066, 1159, 1168, 1220]), "launch_command", "multi_gpu_launcher(args)"),
              (lib(h, "accelerate/commands/launch.py"), job.pick([733, 763, 793]), "multi_gpu_launcher", "distrib_run.run(args)"),
              (lib(h, "torch/distributed/run.py"), run_run, "run", "elastic_launch(")]
    else:
        if h.os == "win":
            fr = [("<frozen runpy>" if h.py >= "3.11" else r"%s\lib\runpy.py" % h.site.rsplit("\\", 2)[0], 198 if h.py >= "3.11" else 196, "_run_module_as_main", "return _run_code(code, main_globals, None,"),
                  ("<frozen runpy>" if h.py >= "3.11" else r"%s\lib\runpy.py" % h.site.rsplit("\\", 2)[0], 88 if h.py >= "3.11" else 86, "_run_code", "exec(code, run_globals)"),
                  (h.bin + "\\torchrun.exe\\__main__.py", 7, "<module>", "")]
        else:
            fr = [(h.bin + "/torchrun", 8, "<module>", "sys.exit(main())")]
        fr += [(lib(h, "torch/distributed/elastic/multiprocessing/errors/__init__.py"), err_wr, "wrapper", "return f(*args, **kwargs)"),
               (lib(h, "torch/distributed/run.py"), run_main, "main", "run(args)"),
               (lib(h, "torch/distributed/run.py"), run_run, "run", "elastic_launch(")]
    fr += [(lib(h, "torch/distributed/launcher/api.py"), api_call, "__call__", "return launch_agent(self._config, self._entrypoint, list(args))"),
           (lib(h, "torch/distributed/launcher/api.py"), api_la, "launch_agent", "raise ChildFailedError(")]
    if h.os == "win" and not accel:
        fr = [x if x[3] else (x[0], x[1], x[2], "sys.exit(main())") for x in fr]
    return fr


def failure_block(job, h, rk, t, first):
    e = job.exits[rk.r]
    d = h.local(t)
    if e.code < 0:
        tb = "Signal %d (%s) received by PID %d" % (sig_num(e.code), sig_name(e.code), rk.pid)
    else:
        tb = "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"
    return ["[%d]:" % (0 if first else 1),
            "  time      : %s" % d.strftime("%Y-%m-%d_%H:%M:%S"),
            "  host      : %s" % h.fqdn,
            "  rank      : %d (local_rank: %d)" % (rk.r, rk.local),
            "  exitcode  : %d (pid: %d)" % (e.code, rk.pid),
            "  error_file: <N/A>",
            "  traceback : %s" % tb]


def child_failed(job, h, ev):
    fails = ev["fails"]
    if not fails:
        return ""
    # root cause = first observed; ties inside one monitor poll go to the lowest local rank
    # every failure seen in one monitor poll gets the same timestamp, and the
    # first one in local-rank order is reported as the root cause
    root = sorted(fails, key=lambda r: r.local)[0]
    rest = [r for r in fails if r is not root]
    sep = "=" * 60
    dash = "-" * 60
    out = ["torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ", sep, "%s FAILED" % job.script_name, dash, "Failures:"]
    if rest:
        for i, r in enumerate(rest):
            b = failure_block(job, h, r, ev["t"], False)
            b[0] = "[%d]:" % (i + 1)
            out += b
    else:
        out.append("  <NO_OTHER_FAILURES>")
    out += [dash, "Root Cause (first observed failure):"] + failure_block(job, h, root, ev["t"], True) + [sep]
    return "\n".join(out)


def agent_output(job):
    rng = job.frng
    for ev in job.agent_events:
        h, t = ev["host"], ev["t"]
        if ev["dead"]:
            continue
        L = job.launcher
        if L == "notebook" and job.nb_elastic:
            L = "torchrun"
        if L in ("torchrun", "accelerate"):
            out = []
            if ev["kind"] in ("preempt", "sigint"):
                sig = "SIGTERM" if ev["kind"] == "preempt" else "SIGINT"
                num = 15 if sig == "SIGTERM" else 2
                msg = ("Received Signals.%s death signal, shutting down workers" % sig) if job.tv < (2, 6) else ("Received %d death signal, shutting down workers" % num)
                out.append(elog(job, h, t, "W", "torch.distributed.elastic.agent.server.api", _vi(job, {(2, 1): 722, (2, 3): 704, (2, 4): 704, (2, 6): 719, (2, 7): 727}), msg))
            for r in ev["killed"]:
                sg = "CTRL_C_EVENT" if h.os == "win" else ("SIGTERM" if ev["kind"] != "sigint" else "SIGINT")
                if job.tv >= (2, 7):
                    msg = "Closing process %d via signal %s" % (r.pid, sg)
                else:
                    msg = "Sending process %d closing signal %s" % (r.pid, sg)
                out.append(elog(job, h, t + 0.001, "W", "torch.distributed.elastic.multiprocessing.api", _vi(job, {(2, 1): 835, (2, 3): 760, (2, 4): 897, (2, 7): 766, (2, 8): 772}), msg))
            if ev["kind"] == "fail":
                root = sorted(ev["fails"], key=lambda r: r.local)[0]
                e = job.exits[root.r]
                tend = max([job.exits[r.r].t for r in ev["killed"]] + [t]) + rng.uniform(0.1, 2.0)
                out.append(elog(job, h, tend, "E", "torch.distributed.elastic.multiprocessing.api",
                                _vi(job, {(2, 1): 779, (2, 3): 826, (2, 4): 869, (2, 7): 874, (2, 8): 880}),
                                "failed (exitcode: %d) local_rank: %d (pid: %d) of binary: %s" % (e.code, root.local, root.pid, h.pyexe)))
                tb = py_tb(job, None, torchrun_frames(job, h, accel=(job.launcher == "accelerate")), [child_failed(job, h, ev)], host=h, prefix="")
                out.append(tb)
            else:
                sig = {"preempt": 15, "sigint": 2}[ev["kind"]]
                tb = py_tb(job, None, torchrun_frames(job, h, accel=(job.launcher == "accelerate"))[:-1] + [
                    (lib(h, "torch/distributed/launcher/api.py"), _vi(job, {(2, 1): 255, (2, 4): 251, (2, 7): 261}), "launch_agent", "result = agent.run()"),
                    (lib(h, "torch/distributed/elastic/metrics/api.py"), 137 if job.tv < (2, 6) else 138, "wrapper", "result = f(*args, **kwargs)"),
                    (lib(h, "torch/distributed/elastic/agent/server/api.py"), _vi(job, {(2, 1): 727, (2, 4): 696, (2, 6): 711}), "run", "result = self._invoke_run(role)"),
                    (lib(h, "torch/distributed/elastic/agent/server/api.py"), _vi(job, {(2, 1): 868, (2, 4): 855, (2, 6): 870}), "_invoke_run", "time.sleep(monitor_interval)"),
                    (lib(h, "torch/distributed/elastic/multiprocessing/api.py"), _vi(job, {(2, 1): 62, (2, 4): 84}), "_terminate_process_handler", "raise SignalException(f\"Process {os.getpid()} got signal: {sigval}\", sigval=sigval)")],
                    ["torch.distributed.elastic.multiprocessing.api.SignalException: Process %d got signal: %d" % (h.agent_pid, sig)], host=h, prefix="")
                out.append(tb)
            if ev["kind"] == "fail":
                if out[:-2]:
                    job.emit(h, t + 0.001, "agent", "\n".join(out[:-2]))
                job.emit(h, tend, "agent", "\n".join(out[-2:]))
            else:
                job.emit(h, t + 0.5, "agent", "\n".join(out))
        elif L == "deepspeed":
            lp = lambda tt, lvl, where, msg: "[%s] [%s] [%s] %s" % (f_pylog(h.local(tt)), lvl, where, msg)
            out = []
            if ev["kind"] == "fail":
                code = job.exits[ev["fails"][0].r].code
                for r in h.ranks:
                    out.append(lp(t, "INFO", "launch.py:%d:sigkill_handler" % 315, "Killing subprocess %d" % r.pid))
                job.emit(h, t + 0.2, "agent", "\n".join(out))
                tend = max(job.exits[r.r].t for r in h.ranks) + 0.3
                out = [lp(tend, "ERROR", "launch.py:%d:sigkill_handler" % 321, "%s exits with return code = %d" % (repr(h.ds_last_cmd), code))]
                t = tend - 0.2
            else:
                for r in h.ranks:
                    out.append(lp(t, "INFO", "launch.py:%d:sigkill_handler" % 315, "Killing subprocess %d" % r.pid))
                out.append(lp(t + 0.8, "INFO", "launch.py:%d:sigkill_handler" % 324, "Main process received %s, exiting" % ("SIGTERM" if ev["kind"] == "preempt" else "SIGINT")))
            job.emit(h, t + 0.2, "agent", "\n".join(out))
            if h is not job.head:
                job.emit(job.head, t + rng.uniform(0.9, 3.0), "pdsh", "pdsh@%s: %s: ssh exited with exit code %d" % (job.head.name, job.ds_name(h), 1 if ev["kind"] != "sigint" else 255))
        else:  # spawn / notebook fork
            out = []
            for r in ev["killed"]:
                if job.tv >= (2, 3):
                    out.append(elog(job, h, t, "W", "torch.multiprocessing.spawn", _vi(job, {(2, 3): 146, (2, 4): 160, (2, 6): 165}),
                                    "Terminating process %d via signal SIGTERM" % r.pid))
            if ev["kind"] == "fail":
                root = sorted(ev["fails"], key=lambda r: r.local)[0]
                e = job.exits[root.r]
                if root.r in job.spawn_exc and e.code >= 0:
                    exc = ["torch.multiprocessing.spawn.ProcessRaisedException: ", "", "-- Process %d terminated with the following error:" % root.local,
                           job.spawn_exc[root.r]]
                    last = "raise ProcessRaisedException(msg, error_index, failed_process.pid)"
                elif e.code < 0:
                    exc = ["torch.multiprocessing.spawn.ProcessExitedException: process %d terminated with signal %s" % (root.local, sig_name(e.code))]
                    last = "raise ProcessExitedException("
                else:
                    exc = ["torch.multiprocessing.spawn.ProcessExitedException: process %d terminated with exit code %d" % (root.local, e.code)]
                    last = "raise ProcessExitedException("
                job.spawn_result[h.name] = (exc, last)
                if job.launcher == "spawn":
                    fr = [(user(h, job.script_name), rng.randint(300, 520), "<module>", "mp.spawn(main_worker, args=(world_size, args), nprocs=%s, join=True)" % ("ngpus" if job.nhosts > 1 else "world_size")),
                          (lib(h, "torch/multiprocessing/spawn.py"), _vi(job, {(2, 1): 241, (2, 3): 282, (2, 4): 328, (2, 6): 340}), "spawn", "return start_processes(fn, args, nprocs, join, daemon, start_method=\"spawn\")"),
                          (lib(h, "torch/multiprocessing/spawn.py"), _vi(job, {(2, 1): 197, (2, 3): 238, (2, 4): 284, (2, 6): 296}), "start_processes", "while not context.join():"),
                          (lib(h, "torch/multiprocessing/spawn.py"), _vi(job, {(2, 1): 158, (2, 3): 189, (2, 4): 203, (2, 6): 215}), "join", last)]
                    out.append(py_tb(job, None, fr, exc, host=h, prefix=""))
            if out:
                job.emit(h, t + 0.3, "agent", "\n".join(out))


# --------------------------------------------------------------------------
# artifacts: nvidia-smi, -q, dmon, nvlink, lspci, py-spy, journal, events
# --------------------------------------------------------------------------
CHIP = {"3090": "GA102 [GeForce RTX 3090]", "3090ti": "GA102 [GeForce RTX 3090 Ti]", "3080": "GA102 [GeForce RTX 3080]",
        "3060": "GA106 [GeForce RTX 3060 Lite Hash Rate]", "4080": "AD103 [GeForce RTX 4080]", "4090": "AD102 [GeForce RTX 4090]",
        "5090": "GB202 [GeForce RTX 5090]", "a6000": "GA102GL [RTX A6000]", "a5000": "GA102GL [RTX A5000]",
        "6000ada": "AD102GL [RTX 6000 Ada Generation]", "l40s": "AD102GL [L40S]"}


def smi_table(job, h, t, during=True):
    rng = job.frng
    new = job.driver >= "545"
    mid = 24 if new else 22
    W = 41 + mid + 22 + 4
    d = h.local(t)
    out = [f_ctime(d) + "       "]
    if job.smi_lost is not None and job.smi_lost in h.gpus and t > job.t_fail:
        g = job.smi_lost
        if rng.random() < 0.5 or len(h.gpus) == 1:
            if h.os == "win" or rng.random() < 0.5:
                return "Unable to determine the device handle for GPU%s: GPU is lost.  Reboot the system to recover this GPU\n" % g.bus.replace("0000:", "0000:")
            return "Unable to determine the device handle for GPU%s: Unknown Error\n" % g.bus
        out = ["Unable to determine the device handle for GPU%s: Unknown Error" % g.bus] + out
    border = "+" + "-" * (W - 2) + "+"
    out.append(border)
    smiv = job.driver
    if h.os == "wsl":
        smiv = {"551.86": "550.65", "560.94": "560.35.02", "566.36": "565.77.01", "572.83": "570.124.03",
                "576.88": "575.64.01", "581.29": "580.88"}.get(job.driver, "570.124.03")
    hdr = "| NVIDIA-SMI %-22s Driver Version: %-14s CUDA Version: %-9s" % (smiv, job.driver, job.driver_cuda)
    out.append(hdr.ljust(W - 1) + "|")
    out.append("|" + "-" * 41 + "+" + "-" * mid + "+" + "-" * 22 + "+")
    busw = "Bus-Id          Disp.A" if new else "Bus-Id        Disp.A"
    memw = "          Memory-Usage" if new else "        Memory-Usage"
    pers = "TCC/WDDM" if h.os == "win" else "Persistence-M"
    out.append("| GPU  Name                 %13s | %s | Volatile Uncorr. ECC |" % (pers, busw.rjust(mid - 2)))
    out.append("| Fan  Temp   Perf          Pwr:Usage/Cap | %s | GPU-Util  Compute M. |" % memw.strip().rjust(mid - 2))
    out.append("|" + " " * 41 + "|" + " " * mid + "|               MIG M. |")
    out.append("|" + "=" * 41 + "+" + "=" * mid + "+" + "=" * 22 + "|")
    ranks_on = {r.gpu.idx: r for r in h.ranks}
    for g in h.gpus:
        if job.smi_lost is g and t > job.t_fail:
            continue
        pm = ("WDDM" if h.os == "win" else job.pick(["On", "Off"]))
        nmw = 31 if pm != "WDDM" else 29
        nm = g.name if len(g.name) <= nmw - 1 else g.name[:nmw - 4] + "..."
        left1 = "%4d  %-*s%-3s " % (g.idx, nmw, nm, pm) if pm != "WDDM" else "%4d  %-*s%s  " % (g.idx, nmw, nm, pm)
        disp = "On" if (g.idx == 0 and job.display_gpu0) else "Off"
        mid1 = ("   " if new else " ") + "00000000:" + g.bus[5:] + " " + disp.rjust(3) + " "
        if g.ecc:
            eccv = str(job.smi_ecc.get(g.idx, 0)) if t > job.t_fail or job.smi_ecc.get(g.idx, 0) == 0 else "0"
            if t <= job.t_fail:
                eccv = "0"
        else:
            eccv = "Off" if g.key in ("4090", "4080", "5090") else "N/A"
        right1 = eccv.rjust(21) + " "
        busy = during and g.idx in ranks_on
        util = job.smi_util.get(g.idx, rng.randint(88, 100) if busy else 0) if busy else 0
        if job.smi_err is g and t > job.t_fail:
            left2 = " ERR!  ERR! ERR!" .ljust(28) + "ERR! /  ERR! "
            left2 = left2.ljust(41)
            mid2 = ("%dMiB / %6dMiB" % (1, g.mib)).rjust(mid - 1) + " "
            right2 = "    ERR!      Default "
            right1 = "ERR!".rjust(21) + " "
        else:
            temp = rng.randint(58, 82) if busy else rng.randint(30, 45)
            if job.q_perf is g:
                temp = rng.randint(87, 92)
            fan = "%d%%" % (rng.randint(30, 100) if busy else 30) if g.key in CONSUMER else " N/A"
            if g.key in ("l40s",):
                fan = " N/A"
            pw = int(g.tdp * (rng.uniform(0.55, 0.98) if busy else rng.uniform(0.04, 0.09)))
            if util == 0 and during and g.idx in ranks_on:
                pw = int(g.tdp * rng.uniform(0.2, 0.3))
            perf = "P2" if busy else "P8"
            pwr = "%dW / %dW" % (pw, g.tdp) if not new else "%dW / %4dW" % (pw, g.tdp)
            left2 = (" %-4s %4s    %s" % (fan.strip(), "%dC" % temp, perf)).ljust(40 - len(pwr)) + pwr + " "
            used = int(g.mib * rng.uniform(0.55, 0.97)) if g.idx in ranks_on and during else rng.randint(1, 20)
            if job.smi_xorg and job.smi_xorg[0] is g:
                used = min(g.mib - 5, used + int(job.smi_xorg[1][1] * 1024))
            mid2 = ("%dMiB / %6dMiB" % (used, g.mib)).rjust(mid - 1) + " "
            right2 = ("%d%%" % util).rjust(8) + "      Default "
        out.append("|" + left1 + "|" + mid1 + "|" + right1 + "|")
        out.append("|" + left2 + "|" + mid2 + "|" + right2 + "|")
        out.append("|" + " " * 41 + "|" + " " * mid + "|" + "N/A".rjust(21) + " |")
        out.append("+" + "-" * 41 + "+" + "-" * mid + "+" + "-" * 22 + "+")
    out.append("")
    out.append(border)
    out.append("| Processes:".ljust(W - 1) + "|")
    out.append("|  GPU   GI   CI        PID   Type   Process name".ljust(W - 12) + "GPU Memory |")
    out.append("|        ID   ID".ljust(W - 12) + "Usage      |")
    out.append("|" + "=" * (W - 2) + "|")
    procs = []
    if h.os == "wsl":
        procs = None
    else:
        if (job.display_gpu0 or job.smi_xorg) and not (job.smi_lost is not None and job.smi_lost.idx == 0 and job.smi_lost in h.gpus and t > job.t_fail):
            xp = job.smi_xorg[1][0] if job.smi_xorg else rng.randint(1200, 4000)
            procs.append((0, xp, "G", "/usr/lib/xorg/Xorg" if h.os != "win" else "C:\\Windows\\System32\\dwm.exe", int((job.smi_xorg[1][1] if job.smi_xorg else 0.3) * 1024)))
            if h.os != "win":
                procs.append((0, xp + rng.randint(100, 900), "G", "/usr/bin/gnome-shell", rng.randint(40, 300)))
        if during:
            for r in h.ranks:
                if job.smi_lost is r.gpu and t > job.t_fail:
                    continue
                procs.append((r.gpu.idx, r.pid, "C", h.pyexe, int(r.gpu.mib * rng.uniform(0.5, 0.95))))
    if procs is None or not procs:
        out.append("|  No running processes found".ljust(W - 1) + "|")
    else:
        for gi, pid, ty, name, mem in sorted(procs):
            nmw = W - 50 - 12
            if len(name) > nmw:
                name = "..." + name[-(nmw - 3):]
            memtxt = "%dMiB" % mem if h.os != "win" or ty == "C" and False else ("N/A" if h.os == "win" else "%dMiB" % mem)
            line = "| %4d   N/A  N/A  %8d    %3s   %-*s" % (gi, pid, ty, nmw, name)
            out.append(line.ljust(W - 12) + memtxt.rjust(10) + " |")
    out.append(border)
    return "\n".join(out) + "\n"


def smi_q(job, h, t, sections):
    rng = job.frng
    d = h.local(t)
    out = ["", "==============NVSMI LOG==============", "",
           "Timestamp                                 : %s" % f_ctime(d),
           "Driver Version                            : %s" % job.driver,
           "CUDA Version                              : %s" % job.driver_cuda, "",
           "Attached GPUs                             : %d" % len(h.gpus)]
    for g in h.gpus:
        out.append("GPU 00000000:%s" % g.bus[5:])
        out.append("    Product Name                          : %s" % g.name)
        out.append("    Product Brand                         : %s" % ("GeForce" if g.key in CONSUMER else "NVIDIA RTX"))
        out.append("    Serial Number                         : %s" % (g.serial if g.ecc else "N/A"))
        out.append("    GPU UUID                              : %s" % g.uuid)
        if "PERFORMANCE" in sections:
            hot = job.q_perf is g
            out.append("    Performance State                     : P2")
            out.append("    Clocks Event Reasons")
            out.append("        Idle                              : Not Active")
            out.append("        Applications Clocks Setting       : Not Active")
            out.append("        SW Power Cap                      : %s" % ("Active" if (not hot and rng.random() < 0.4) else "Not Active"))
            out.append("        HW Slowdown                       : %s" % ("Active" if hot and rng.random() < 0.6 else "Not Active"))
            out.append("            HW Thermal Slowdown           : %s" % ("Active" if hot and rng.random() < 0.6 else "Not Active"))
            out.append("            HW Power Brake Slowdown       : Not Active")
            out.append("        Sync Boost                        : Not Active")
            out.append("        SW Thermal Slowdown               : %s" % ("Active" if hot or (job.thermal_decoy is g) else "Not Active"))
            out.append("        Display Clock Setting             : Not Active")
        if "ECC" in sections:
            bad = job.smi_ecc.get(g.idx, 0) if t > job.t_fail else 0
            corr = job.smi_ecc_corr.get(g.idx, 0)
            if not g.ecc:
                out.append("    ECC Mode")
                out.append("        Current                           : N/A")
                out.append("        Pending                           : N/A")
            else:
                out.append("    ECC Mode")
                out.append("        Current                           : Enabled")
                out.append("        Pending                           : Enabled")
                out.append("    ECC Errors")
                for agg in ("Volatile", "Aggregate"):
                    out.append("        %s" % agg)
                    out.append("            SRAM Correctable              : 0")
                    out.append("            SRAM Uncorrectable Parity     : 0")
                    out.append("            SRAM Uncorrectable SEC-DED    : 0")
                    out.append("            DRAM Correctable              : %d" % corr)
                    out.append("            DRAM Uncorrectable            : %d" % bad)
                out.append("    Retired Pages")
                out.append("        Single Bit ECC                    : N/A")
                out.append("        Double Bit ECC                    : N/A")
                out.append("        Pending Page Blacklist            : N/A")
                out.append("    Remapped Rows")
                out.append("        Correctable Error                 : 0")
                out.append("        Uncorrectable Error               : %d" % (1 if bad else 0))
                out.append("        Pending                           : %s" % ("Yes" if bad else "No"))
                out.append("        Remapping Failure Occurred        : No")
                out.append("        Bank Remap Availability Histogram")
                out.append("            Max                           : %d bank(s)" % (191 if bad else 192))
                out.append("            High                          : 0 bank(s)")
                out.append("            Partial                       : %d bank(s)" % (1 if bad else 0))
                out.append("            Low                           : 0 bank(s)")
                out.append("            None                          : 0 bank(s)")
        if "TEMPERATURE" in sections:
            hot = job.q_perf is g
            out.append("    Temperature")
            out.append("        GPU Current Temp                  : %d C" % (rng.randint(87, 91) if hot else rng.randint(55, 78)))
            out.append("        GPU T.Limit Temp                  : %d C" % (rng.randint(-3, 1) if hot else rng.randint(8, 30)))
            out.append("        GPU Shutdown Temp                 : %d C" % (98 if g.key in CONSUMER else 95))
            out.append("        GPU Slowdown Temp                 : %d C" % (95 if g.key in CONSUMER else 92))
            out.append("        GPU Max Operating Temp            : %d C" % (90 if g.key in CONSUMER else 88))
            out.append("        GPU Target Temperature            : 84 C")
            out.append("        Memory Current Temp               : N/A")
            out.append("        Memory Max Operating Temp         : N/A")
        if "CLOCK" in sections:
            hot = job.q_perf is g
            clk = int(g.maxclk * (rng.uniform(0.45, 0.62) if hot else rng.uniform(0.86, 0.97)))
            out.append("    Clocks")
            out.append("        Graphics                          : %d MHz" % clk)
            out.append("        SM                                : %d MHz" % clk)
            out.append("        Memory                            : %d MHz" % g.memclk)
            out.append("        Video                             : %d MHz" % int(clk * 0.9))
            out.append("    Max Clocks")
            out.append("        Graphics                          : %d MHz" % g.maxclk)
            out.append("        SM                                : %d MHz" % g.maxclk)
            out.append("        Memory                            : %d MHz" % g.memclk)
            out.append("        Video                             : %d MHz" % int(g.maxclk * 0.9))
        out.append("")
    return "\n".join(out) + "\n"


def smi_dmon(job, h, t, n):
    rng = job.frng
    out = ["# gpu    pwr  gtemp  mtemp     sm    mem    enc    dec    jpg    ofa   mclk   pclk ",
           "# Idx      W      C      C      %      %      %      %      %      %    MHz    MHz "]
    slow = getattr(job, "dmon_slow", None)
    for k in range(n):
        if k and k % 20 == 0:
            out += out[:2]
        for g in h.gpus:
            base_clk = int(g.maxclk * rng.uniform(0.88, 0.97))
            pw = int(g.tdp * rng.uniform(0.6, 0.95))
            temp = rng.randint(60, 80)
            sm = rng.randint(85, 100)
            if slow and slow[0] is g:
                if slow[1] == "thermal":
                    temp = rng.randint(86, 91)
                    base_clk = int(g.maxclk * rng.uniform(0.42, 0.6))
                    pw = int(g.tdp * rng.uniform(0.45, 0.6))
                elif slow[1] == "lanes":
                    sm = rng.randint(40, 70)
            out.append("%5d %6d %6d %6s %6d %6d %6d %6d %6d %6d %6d %6d " % (
                g.idx, pw, temp, "-", sm, rng.randint(20, 60), 0, 0, 0, 0, g.memclk, base_clk))
    return "\n".join(out) + "\n"


def smi_query_csv(job, h, t, n):
    """Windows: nvidia-smi --query-gpu ... -l 2 (dmon is not available there)."""
    rng = job.frng
    slow = getattr(job, "dmon_slow", None)
    out = ["index, temperature.gpu, clocks.sm [MHz], power.draw [W], utilization.gpu [%], memory.used [MiB]"]
    for k in range(n):
        for g in h.gpus:
            clk = int(g.maxclk * rng.uniform(0.88, 0.97))
            pw = g.tdp * rng.uniform(0.6, 0.95)
            temp = rng.randint(60, 80)
            if slow and slow[0] is g and slow[1] == "thermal":
                temp, clk, pw = rng.randint(86, 91), int(g.maxclk * rng.uniform(0.42, 0.6)), g.tdp * rng.uniform(0.45, 0.6)
            out.append("%d, %d, %d MHz, %.2f W, %d %%, %d MiB" % (g.idx, temp, clk, pw, rng.randint(85, 100), int(g.mib * rng.uniform(0.6, 0.9))))
    return "\n".join(out) + "\n"


def nvlink_dump(job, h):
    g_bad, link = job.nvlink_bad
    out = ["$ nvidia-smi nvlink -s"]
    for g in h.gpus:
        if g.nvlink_peer is None:
            continue
        out.append("GPU %d: %s (UUID: %s)" % (g.idx, g.name, g.uuid))
        for l in range(4):
            bad = (g is g_bad or g.idx == g_bad.nvlink_peer) and l == link
            out.append("\t Link %d: %s" % (l, "<inactive>" if bad else "14.062 GB/s"))
    out.append("")
    out.append("$ nvidia-smi nvlink -e")
    for g in h.gpus:
        if g.nvlink_peer is None:
            continue
        out.append("GPU %d: %s (UUID: %s)" % (g.idx, g.name, g.uuid))
        for l in range(4):
            bad = g is g_bad and l == link
            out.append("\t Link %d: Replay Errors: %d" % (l, job.frng.randint(3, 40) if bad else 0))
            out.append("\t Link %d: Recovery Errors: %d" % (l, job.frng.randint(2, 9) if bad else 0))
            out.append("\t Link %d: CRC Errors: %d" % (l, job.frng.randint(800, 90000) if bad else 0))
    return "\n".join(out) + "\n"


def lspci_dump(job, h):
    out = []
    for g in h.gpus:
        bad = job.lspci is g
        gen = {"3": "8GT/s", "4": "16GT/s", "5": "32GT/s"}["5" if g.key == "5090" else ("4" if g.key not in ("a5000",) else "4")]
        out.append("%s VGA compatible controller: NVIDIA Corporation %s (rev a1) (prog-if 00 [VGA controller])" % (g.bus[5:], CHIP[g.key]))
        out.append("\t\tLnkCap:\tPort #0, Speed %s, Width x16, ASPM L0s L1, Exit Latency L0s <1us, L1 <4us" % gen)
        if bad:
            out.append("\t\tLnkSta:\tSpeed %s (downgraded), Width x4 (downgraded)" % job.pick(["2.5GT/s", "8GT/s", "5GT/s"]))
        else:
            out.append("\t\tLnkSta:\tSpeed %s, Width x16" % gen if job.frng.random() < 0.7 else "\t\tLnkSta:\tSpeed 2.5GT/s (downgraded), Width x16")
        out.append("")
    return "$ sudo lspci -vv -d 10de: | grep -E '^[0-9a-f]|LnkCap:|LnkSta:'\n" + "\n".join(out)


def render_kernel(job, h, style, tail=None, grep=False):
    ks = sorted(h.kernel, key=lambda x: x[0])
    if grep:
        ks = [k for k in ks if any(w in k[1] for w in ("NVRM", "Xid", "nvidia", "Out of memory", "oom", "segfault", "Link", "link", "nfs", "CIFS", "blocked", "AER", "igc", "r8169"))]
    if tail:
        ks = ks[-tail:]
    out = []
    for t, x in ks:
        if style == "raw":
            out.append("[%12.6f] %s" % (t - h.boot, x))
        elif style == "T":
            out.append("[%s] %s" % (f_ctime(h.local(t)), x))
        else:
            d = h.local(t)
            out.append("%s %s kernel: %s" % (d.strftime("%b ") + ("%2d" % d.day) + d.strftime(" %H:%M:%S"), h.name, x))
    return "\n".join(out) + "\n"


def render_journal(job, h):
    items = [(t, "kernel", x) for t, x in h.kernel if t > job.t_launch - 3600]
    items += [(t, ident, msg) for (hh, t, ident, msg) in job.journal if hh is h]
    items.sort(key=lambda x: x[0])
    out = []
    for t, ident, msg in items[-80:]:
        d = h.local(t)
        out.append("%s %s %s: %s" % (d.strftime("%b ") + ("%2d" % d.day) + d.strftime(" %H:%M:%S"), h.name, ident, msg))
    return "\n".join(out) + "\n"


def render_winevents(job, h):
    out = ["PS C:\\Users\\%s> Get-WinEvent -LogName System -MaxEvents 60 | Where-Object { $_.LevelDisplayName -ne 'Information' -or $_.Id -eq 1074 } | Format-List TimeCreated,ProviderName,Id,LevelDisplayName,Message" % h.user, ""]
    evs = sorted(job.winevents + job.win_noise(h), key=lambda x: -x[0])
    for t, lvl, src, eid, msg in evs[:30]:
        d = h.local(t)
        hr = d.hour % 12 or 12
        ts = "%d/%d/%d %d:%02d:%02d %s" % (d.month, d.day, d.year, hr, d.minute, d.second, "AM" if d.hour < 12 else "PM")
        out.append("TimeCreated      : %s" % ts)
        out.append("ProviderName     : %s" % src)
        out.append("Id               : %d" % eid)
        out.append("LevelDisplayName : %s" % lvl)
        m = msg.split("\n")
        out.append("Message          : %s" % m[0])
        for x in m[1:]:
            out.append("                   %s" % x)
        out.append("")
    return "\n".join(out) + "\n"


def win_noise(job):
    def f(h):
        rng = job.frng
        out = []
        for k in range(rng.randint(3, 8)):
            t = job.t_launch - rng.uniform(600, 86400 * 2)
            out.append(rng.choice([
                (t, "Warning", "DistributedCOM", 10016, "The application-specific permission settings do not grant Local Activation permission for the COM Server application with CLSID \n{2593F8B9-4EAF-457C-B68A-50F6B8EA6B54}\n and APPID \n{15C20B67-12E7-4BB6-92BB-7AFF07997402}\n to the user %s\\%s SID (S-1-5-21-%d) from address LocalHost (Using LRPC) running in the application container Unavailable SID (Unavailable). This security permission can be modified using the Component Services administrative tool." % (h.name, h.user, rng.randint(10 ** 8, 10 ** 9))),
                (t, "Warning", "Microsoft-Windows-Kernel-Power", 172, "Connectivity state in standby: Disconnected, Reason: NIC compliance"),
                (t, "Error", "Microsoft-Windows-WHEA-Logger", 17, "A corrected hardware error has occurred.\n\nComponent: PCI Express Root Port\nError Source: Advanced Error Reporting (PCI Express)\n\nPrimary Bus:Device:Function: 0x0:0x1:0x1\nSecondary Bus:Device:Function: 0x0:0x0:0x0\nPrimary Device Name:PCI\\VEN_1022&DEV_1483&SUBSYS_87C01043&REV_00\nSecondary Device Name:"),
                (t, "Warning", "Microsoft-Windows-Time-Service", 134, "NtpClient was unable to set a manual peer to use as a time source because of DNS resolution error on 'time.windows.com,0x9'. NtpClient will try again in 15 minutes and double the reattempt interval thereafter. The error was: No such host is known. (0x80072AF9)"),
            ]))
        return out
    return f


def pyspy_text(job):
    rk, body = job.pyspy
    h = rk.host
    return "%s@%s:~$ sudo %s/py-spy dump --pid %d\n%s\n" % (h.user, h.name, h.bin, rk.pid, body)


# --------------------------------------------------------------------------
# decoys and healthy-exit noise
# --------------------------------------------------------------------------
def init_state(job):
    rng = job.rng
    job.smi_lost = None
    job.smi_err = None
    job.smi_ecc = {}
    job.smi_ecc_corr = {}
    job.smi_util = {}
    job.smi_xorg = None
    job.display_gpu0 = job.os != "linux" or rng.random() < 0.45
    job.q_perf = None
    job.thermal_decoy = None
    job.lspci = None
    job.nvlink_bad = None
    job.want_smi = rng.random() < 0.35
    job.want_dmesg = rng.random() < 0.2
    job.want_events = False
    job.want_journal = False
    job.want_nvlink = False
    job.want_dmon = False
    job.winevents = []
    job.journal = []
    job.win_noise = win_noise(job)
    job.hung = []
    job.deferred = []
    job.suspended = None
    job.timeouts = []
    job.gloo_timeouts = []
    job.preempt = None
    job.spawn_exc = {}
    job.spawn_result = {}
    job.agent_dead = []
    job.user_interrupt = None
    job.slowness = {}
    job.local_bs = rng.choice([4, 8, 16, 32, 64])
    job.bar_desc = rng.choice(["Epoch %d", "train", "", "Training"])
    job.bar_post = job.flavor in ("custom", "accel") and rng.random() < 0.6
    job.dist_init_print = rng.random() < 0.6
    job.pyspy = None
    job.stall_rank = None
    job.oomd_host = None
    job.nb_kernel_died = False
    job.shell_timeout = None
    job.smi_t = None
    job.proc_comm = rng.choice(["python3", "python", "pt_main_thread"]) if job.tv >= (2, 2) else rng.choice(["python3", "python"])
    # driver
    if job.os in ("win", "wsl"):
        cands = [d for d in WIN_DRIVERS if d[1] >= job.cuda]
    else:
        cands = [d for d in DRIVERS if d[1] >= job.cuda]
    if any(g.key == "5090" for h in job.hosts for g in h.gpus):
        cands = [d for d in cands if d[1] >= "12.8"] or cands[-1:]
    job.driver, job.driver_cuda = rng.choice(cands)
    # base compute per step, nominal
    slow = max(1.0 / x.gpu.speed for x in job.ranks)
    job.base_compute = job.step_s * 0.8 / slow


def decoys(job):
    rng = job.rng
    linux_hosts = [h for h in job.hosts if h.os != "win"]
    cul_g = job.culprit.gpu if job.culprit else None

    def old_xid():
        if not linux_hosts:
            return
        h = rng.choice(linux_hosts)
        gs = [g for g in h.gpus if g is not cul_g]
        if not gs:
            return
        g = rng.choice(gs)
        t = max(h.boot + 900, job.t_launch - rng.uniform(1800, 3 * 86400))
        if t >= job.t_launch - 600:
            return
        xid = rng.choice([13, 31, 43])
        pid = rng.randint(2000, 300000)
        txt = {13: "Graphics SM Warp Exception on (GPC 1, TPC 0, SM 0): Out Of Range Address",
               31: "Ch 00000018, intr 00000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_2 faulted @ 0x7f3c_a2e00000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ",
               43: "Ch 00000010"}[xid]
        job.kern(h, t, xid_line(g, xid, pid, rng.choice(["python3", "python", "blender", "ollama_llama_se"]), txt))
        job.want_dmesg = True
        job.decoys.append("old benign Xid %d on %s GPU %s from an earlier process (pid %d)" % (xid, h.name, g.bus, pid))

    def aer():
        if not linux_hosts or job.cause == "gpu_hardware":
            return
        h = rng.choice(linux_hosts)
        gs = [g for g in h.gpus if g is not cul_g]
        if not gs:
            return
        g = rng.choice(gs)
        aer_lines(job, h, g, job.t_launch + rng.uniform(600, 7200), rng.randint(1, 3))
        job.want_dmesg = True
        job.decoys.append("corrected PCIe AER errors on %s %s" % (h.name, g.bus))

    def thermal():
        if job.cause == "straggler" or job.thermal_decoy is not None:
            return
        job.thermal_decoy = rng.choice(job.head.gpus)
        job.want_q = True
        job.decoys.append("SW Thermal Slowdown Active on GPU %d (%s) with no slowdown in step times" % (job.thermal_decoy.idx, job.head.name))

    def handled_oom():
        if job.cause == "cuda_oom":
            return
        rk = rng.choice(job.ranks)
        t = job.t_train + rng.uniform(0.1, 0.6) * max(600, (job.progress_end or job.t_fail) - job.t_train)
        job.remit(rk, t, "WARNING: caught OOM in eval step on rank %d (CUDA out of memory. Tried to allocate %.2f GiB. GPU %d has a total capacity of %.2f GiB of which %.2f MiB is free.), emptying cache and skipping batch" % (
            rk.r, rng.choice([0.5, 1.0, 2.0]), rk.dev, gib(rk.gpu.mib) - 0.31, rng.uniform(2, 90)))
        job.decoys.append("handled OOM warning on rank %d" % rk.r)

    def nccl_warn():
        if job.backend != "nccl" or not job.nccl_debug:
            return
        rk = rng.choice(job.ranks)
        t = job.t_init + rng.uniform(5, 30)
        pre = "%s:%d:%d [%d]" % (rk.host.name, rk.pid, rk.tid + 3, rk.dev)
        txt = "%s misc/nvmlwrap.cc:%d NCCL WARN nvmlDeviceGetNvLinkRemoteDeviceType() failed: Not Supported" % (pre, rng.choice([181, 183, 190]))
        job.remit(rk, t, txt)
        job.decoys.append("benign NCCL WARN on rank %d" % rk.r)

    def sock_warn():
        h = job.head
        if h.os == "win":
            job.win_sock_warn = max(job.win_sock_warn, 2)
            job.decoys.append("c10d client socket 10049 warnings (Windows)")
        elif job.launcher in ("torchrun", "accelerate") and job.tv >= (2, 2):
            r0 = h.ranks[0]
            t = job.t_init - 1
            job.emit(h, t, "agent", c10(job, None, t, "W", "socket.cpp:%d" % _vi(job, {(2, 2): 464, (2, 5): 559, (2, 7): 588}),
                     "[c10d] The server socket cannot be initialized on [::]:%d (errno: 97 - Address family not supported by protocol)." % job.master_port, host=h))
            job.emit(h, t + 0.01, "agent", c10(job, None, t, "W", "socket.cpp:%d" % _vi(job, {(2, 2): 697, (2, 5): 752, (2, 7): 793}),
                     "[c10d] The client socket cannot be initialized to connect to [%s]:%d (errno: 97 - Address family not supported by protocol)." % ("localhost" if job.nhosts == 1 else job.master_addr, job.master_port), host=h))
            job.decoys.append("c10d IPv6 socket warnings (errno 97)")

    picks = [(old_xid, 0.3), (aer, 0.2), (thermal, 0.12), (handled_oom, 0.15), (nccl_warn, 0.2), (sock_warn, 0.15)]
    for fn, p in picks:
        if rng.random() < p:
            fn()
    if job.healthy:
        order = [x[0] for x in picks]
        rng.shuffle(order)
        for fn in order:
            if len(job.decoys) >= 2:
                break
            fn()


def healthy_exit(job, t_done):
    rng = job.frng
    for rk in job.ranks:
        e = t_done + rng.uniform(0.5, 6.0)
        if job.tv >= (2, 4) and job.backend == "nccl" and rng.random() < 0.7 and job.launcher != "spawn":
            job.remit(rk, e - 0.1, c10(job, rk, e - 0.1, "W", "ProcessGroupNCCL.cpp:%d" % _vi(job, {(2, 4): 1168, (2, 5): 1250, (2, 6): 1496, (2, 7): 1538}),
                                      "Warning: WARNING: process group has NOT been destroyed before we destruct ProcessGroupNCCL. On normal program exit, the application should call destroy_process_group to ensure that any pending NCCL operations have finished in this process. In rare cases this process can exit before this point and block the progress of another member of the process group. This constraint has always been present,  but this warning has only been added since PyTorch 2.4 (function operator())"))
        if rk.local == 0 and rng.random() < 0.25 and rk.host.os != "win":
            h = rk.host
            job.remit(rk, e - 0.2, "Exception ignored in: <function _MultiProcessingDataLoaderIter.__del__ at 0x7f%010x>\nTraceback (most recent call last):\n  File \"%s\", line %d, in __del__\n    self._shutdown_workers()\n  File \"%s\", line %d, in _shutdown_workers\n    if w.is_alive():\n  File \"%s/multiprocessing/process.py\", line 160, in is_alive\n    assert self._parent_pid == os.getpid(), 'can only test a child process'\nAssertionError: can only test a child process" % (
                rng.randrange(16 ** 10), lib(h, "torch/utils/data/dataloader.py"), rng.choice([1477, 1479, 1604, 1618]),
                lib(h, "torch/utils/data/dataloader.py"), rng.choice([1460, 1443, 1587, 1601]), h.stdlib))
            job.decoys.append("'Exception ignored' DataLoader shutdown traceback at exit")
        job.exits[rk.r] = Exit(e, 0, "ok")
    if job.launcher == "deepspeed":
        for h in job.hosts:
            lp = lambda tt, msg: "[%s] [INFO] [launch.py:%d:main] %s" % (f_pylog(h.local(tt)), 351, msg)
            job.emit(h, t_done + 7, "agent", "\n".join(lp(t_done + 7, "Process %d exits successfully." % r.pid) for r in h.ranks))


def interrupt_output(job):
    """KeyboardInterrupt text of ranks killed by the user's Ctrl-C."""
    if not job.user_interrupt:
        return
    rng = job.frng
    shown = 0
    for rk in job.ranks:
        e = job.exits.get(rk.r)
        if e is None or e.how != "sigint" or shown >= 6:
            continue
        shown += 1
        if spawn_like(job):
            continue
        job.remit(rk, e.t, py_tb(job, rk, fr_user_top(job, rk, "forward") + fr_call(job, rk, rng.choice(["allreduce", "item", "backward"])), ["KeyboardInterrupt"]))


# --------------------------------------------------------------------------
# rendering
# --------------------------------------------------------------------------
def host_lines(job, h, pred=None):
    ls = [l for l in job.lines if l.host == h.name and (pred is None or pred(l))]
    ls.sort(key=lambda l: (l.t, l.seq))
    return ls


def to_text(lines, mode, prefix_fn=None, wrap=None):
    if mode == "raw":
        buf = []
        for l in lines:
            p = prefix_fn(l) if prefix_fn else ""
            if l.kind == "bar":
                buf.append("\r" + p + l.text)
            else:
                for x in l.text.split("\n"):
                    buf.append(p + x + "\n")
        return "".join(buf)
    out = []
    cur = ""
    for l in lines:
        p = prefix_fn(l) if prefix_fn else ""
        if l.kind == "bar":
            cur = p + l.text
            continue
        parts = [p + x for x in l.text.split("\n")]
        parts[0] = cur + parts[0]
        cur = ""
        out.extend(parts)
    if cur:
        out.append(cur)
    if wrap:
        w = []
        for x in out:
            while len(x) > wrap:
                w.append(x[:wrap])
                x = x[wrap:]
            w.append(x)
        out = w
    return "\n".join(out) + "\n"


def env_prefix(job, h):
    e = []
    if job.nccl_debug and job.launcher != "deepspeed":
        e.append("NCCL_DEBUG=%s" % job.nccl_debug)
    if job.p2p_disable:
        e.append("NCCL_P2P_DISABLE=1")
    if job.sock_ifname:
        e.append("NCCL_SOCKET_IFNAME=%s" % job.sock_ifname)
    if job.dist_debug:
        e.append("TORCH_DISTRIBUTED_DEBUG=DETAIL")
    if h.mixed and h.pci_order:
        e.append("CUDA_DEVICE_ORDER=PCI_BUS_ID")
    if job.nccl_async_env:
        e.append("NCCL_ASYNC_ERROR_HANDLING=1")
    if job.backend == "gloo" and job.nhosts > 1 and h.os != "win":
        e.append("GLOO_SOCKET_IFNAME=%s" % h.iface)
    return " ".join(e) + (" " if e else "")


def prompt(job, h):
    if h.os == "win":
        if job.win_shell == "ps":
            return "(%s) PS %s>" % (job.conda_env, h.script_dir)
        return "(%s) %s>" % (job.conda_env, h.script_dir)
    return "%s%s@%s:~/%s$" % ("(%s) " % job.conda_env if "miniconda" in h.site else "(.venv) ", h.user, h.name, h.proj)


def launch_cmd(job, h):
    n = len(h.ranks)
    ni = job.hosts.index(h)
    L = job.launcher
    if L == "torchrun" or (L == "notebook"):
        if job.nhosts == 1:
            c = "torchrun --nproc_per_node=%d %s %s" % (n, job.script_name, job.script_args)
            if job.rng.random() < 0.3:
                c = "torchrun --standalone --nproc-per-node %d %s %s" % (n, job.script_name, job.script_args)
        else:
            c = "torchrun --nnodes=%d --node_rank=%d --nproc_per_node=%d --master_addr=%s --master_port=%d %s %s" % (
                job.nhosts, ni, n, job.master_addr, job.master_port, job.script_name, job.script_args)
        if h.os == "win":
            c = c.replace("torchrun", "torchrun" if job.win_shell == "ps" else "torchrun")
    elif L == "accelerate":
        if job.acc_config:
            c = "accelerate launch --config_file accelerate_config.yaml %s %s" % (job.script_name, job.script_args)
        else:
            c = "accelerate launch %s %s" % (job.script_name, job.script_args)
        if job.nhosts > 1:
            c = "accelerate launch --multi_gpu --num_machines %d --machine_rank %d --num_processes %d --main_process_ip %s --main_process_port %d %s %s" % (
                job.nhosts, ni, job.world, job.master_addr, job.master_port, job.script_name, job.script_args)
    elif L == "deepspeed":
        if job.nhosts > 1:
            c = "deepspeed --hostfile hostfile --master_addr %s %s %s" % (job.master_addr, job.script_name, job.script_args)
        else:
            c = "deepspeed --num_gpus %d %s %s" % (n, job.script_name, job.script_args)
    else:
        if job.nhosts > 1:
            c = "python %s --nodes %d --node-rank %d --master %s:%d %s" % (job.script_name, job.nhosts, ni, job.master_addr, job.master_port, job.script_args)
        else:
            c = "python %s --world-size %d %s" % (job.script_name, n, job.script_args)
    if job.shell_timeout and h is job.culprit_host:
        c = "timeout %s %s" % (job.shell_timeout, c)
    return c


def eaddrinuse_block(job, h):
    t = job.t_launch - job.rng.uniform(20, 200)
    port = job.port_fail
    w = lambda lvl, ln, msg: c10(job, None, t, lvl, "socket.cpp:%d" % ln, msg, host=h)
    lines = [w("W", _vi(job, {(2, 1): 436, (2, 3): 464, (2, 5): 559}), "[c10d] The server socket has failed to bind to [::]:%d (errno: 98 - Address already in use)." % port),
             w("W", _vi(job, {(2, 1): 436, (2, 3): 464, (2, 5): 559}), "[c10d] The server socket has failed to bind to 0.0.0.0:%d (errno: 98 - Address already in use)." % port),
             w("E", _vi(job, {(2, 1): 472, (2, 3): 500, (2, 5): 595}), "[c10d] The server socket has failed to listen on any local network address.")]
    tb = py_tb(job, None, torchrun_frames(job, h)[:-1] + [
        (lib(h, "torch/distributed/launcher/api.py"), _vi(job, {(2, 1): 255, (2, 4): 251}), "launch_agent", "result = agent.run()"),
        (lib(h, "torch/distributed/elastic/rendezvous/static_tcp_rendezvous.py"), 55, "next_rendezvous", "self._store = TCPStore(  # type: ignore[call-arg]")],
        ["torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. The server socket has failed to bind to [::]:%d (errno: 98 - Address already in use). The server socket has failed to bind to 0.0.0.0:%d (errno: 98 - Address already in use)." % (port, port)],
        host=h, prefix="")
    return "\n".join(lines) + "\n" + tb + "\n"


def attachments(job, names):
    """common attachments; names: dict kind->filename pattern with {host}."""
    files = {}
    rng = job.frng
    tf = job.t_fail if not job.healthy else job.t_train + 0.5 * job.total_steps * job.step_s
    for h in job.hosts:
        multi = job.nhosts > 1
        suf = ("-" + h.name) if multi else ""
        if job.want_smi and (not multi or h is (job.culprit_host or job.head) or rng.random() < 0.4):
            t = job.smi_t or (tf + rng.uniform(60, 1800) if not job.healthy else tf)
            during = job.healthy or job.cause in ("hang", "straggler", "data_loader_stall") or t < tf
            files[names["smi"].format(host=suf)] = ("%s nvidia-smi\n" % prompt(job, h) if h.os != "win" else "") + smi_table(job, h, t, during=during)
        if job.want_dmesg and h.os != "win" and h.kernel and (not multi or h is job.culprit_host or any("Xid" in x or "Link" in x for _, x in h.kernel[-40:]) or rng.random() < 0.5):
            style = job.dmesg_style
            if h.os == "wsl":
                style = "raw"
            body = render_kernel(job, h, style, tail=rng.choice([None, 60, 120, 200]), grep=rng.random() < 0.25)
            files[names["dmesg"].format(host=suf)] = body
        if job.want_journal and h.os == "linux" and (job.culprit_host is h or not multi):
            files[names["journal"].format(host=suf)] = render_journal(job, h)
        if job.want_events and h.os in ("win", "wsl") and (job.culprit_host is h or not multi):
            files[names["events"].format(host=suf)] = render_winevents(job, h)
        if (job.q_perf is not None and job.q_perf in h.gpus) or (job.thermal_decoy is not None and job.thermal_decoy in h.gpus):
            t = tf - rng.uniform(60, 600)
            files[names["q"].format(host=suf)] = ("%s nvidia-smi -q -d PERFORMANCE,TEMPERATURE,CLOCK\n" % prompt(job, h)) + smi_q(job, h, t, ["PERFORMANCE", "TEMPERATURE", "CLOCK"])
        if job.ecc_q is not None and job.ecc_q in h.gpus:
            files[names["ecc"].format(host=suf)] = ("%s nvidia-smi -q -d ECC\n" % prompt(job, h)) + smi_q(job, h, tf + rng.uniform(60, 900), ["ECC"])
        if job.want_nvlink and job.nvlink_bad and job.nvlink_bad[0] in h.gpus:
            files[names["nvlink"].format(host=suf)] = nvlink_dump(job, h)
        if job.want_dmon and (job.culprit_host is h or not multi):
            t = tf - rng.uniform(120, 900)
            if h.os == "win":
                files[names["dmon"].format(host=suf)] = "%s nvidia-smi --query-gpu=index,temperature.gpu,clocks.sm,power.draw,utilization.gpu,memory.used --format=csv -l 2\n" % prompt(job, h) + smi_query_csv(job, h, t, rng.randint(6, 20))
            else:
                files[names["dmon"].format(host=suf)] = "%s nvidia-smi dmon -d 2\n" % prompt(job, h) + smi_dmon(job, h, t, rng.randint(6, 20))
        if job.lspci is not None and job.lspci in h.gpus:
            files[names["lspci"].format(host=suf)] = lspci_dump(job, h)
    if job.pyspy:
        files[names["pyspy"].format(rank=job.pyspy[0].r)] = pyspy_text(job)
    for k, v in job.files.items():
        files[k] = v
    return files


STD_NAMES = dict(smi="nvidia-smi{host}.txt", dmesg="dmesg{host}.txt", journal="journalctl{host}.txt", events="eventlog{host}.txt",
                 q="nvidia-smi-q{host}.txt", ecc="nvidia-smi-ecc{host}.txt", nvlink="nvlink{host}.txt", dmon="dmon{host}.txt",
                 lspci="lspci{host}.txt", pyspy="py-spy-rank{rank}.txt")


def render_tmux(job):
    files = {}
    width = job.rng.choice([None, None, 160, 200, 238])
    for h in job.hosts:
        head = []
        if job.eaddrinuse and h is job.head:
            head.append("%s %storchrun --nproc_per_node=%d %s %s" % (prompt(job, h), env_prefix(job, h), len(h.ranks), job.script_name, job.script_args))
            head.append(eaddrinuse_block(job, h).rstrip("\n"))
        head.append("%s %s%s" % (prompt(job, h), env_prefix(job, h), launch_cmd(job, h)))
        body = to_text(host_lines(job, h), "screen", wrap=width)
        if job.user_interrupt:
            body = body.rstrip("\n") + "\n^C" + "\n"
        tail = prompt(job, h) + " "
        text = "\n".join(head) + "\n" + body + tail + "\n"
        lines = text.split("\n")
        hist = job.tmux_hist
        if len(lines) > hist:
            lines = lines[-hist:]
        files["tmux-%s.txt" % h.name if job.nhosts > 1 else "tmux_capture.txt"] = "\n".join(lines)
    files.update(attachments(job, STD_NAMES))
    return files


def render_nohup(job):
    files = {}
    for h in job.hosts:
        body = to_text(host_lines(job, h), "raw")
        name = job.nohup_name if job.nhosts == 1 else job.nohup_name.replace(".", "-%s." % h.name, 1)
        files[name] = "nohup: ignoring input\n" + body
        if job.oomd_host is h:
            files[name] = files[name]
    if job.acc_config:
        h = job.head
        files["accelerate_config.yaml"] = ("compute_environment: LOCAL_MACHINE\ndebug: false\ndistributed_type: MULTI_GPU\ndowncast_bf16: 'no'\n"
                                           "enable_cpu_affinity: false\ngpu_ids: all\nmachine_rank: 0\nmain_training_function: main\n"
                                           "mixed_precision: %s\nnum_machines: %d\nnum_processes: %d\nrdzv_backend: static\nsame_network: true\n"
                                           "tpu_env: []\ntpu_use_cluster: false\ntpu_use_sudo: false\nuse_cpu: false\n" % (job.mixed_prec, job.nhosts, job.world))
    if job.frng.random() < 0.6 or (job.truth["node"] and not any(job.truth["node"] in v for v in files.values())):
        h = job.head
        files["accelerate-env.txt"] = (
            "%s accelerate env\n\nCopy-and-paste the text below in your GitHub issue\n\n- `Accelerate` version: %s\n- Platform: Linux-%s-x86_64-with-glibc%s\n"
            "- `accelerate` bash location: %s/accelerate\n- Python version: %s.%d\n- Numpy version: %s\n- PyTorch version (GPU?): %s+%s (True)\n"
            "- PyTorch XPU available: False\n- PyTorch NPU available: False\n- System RAM: %.2f GB\n- GPU type: %s\n- `Accelerate` default config:\n"
            "\t- compute_environment: LOCAL_MACHINE\n\t- distributed_type: MULTI_GPU\n\t- mixed_precision: %s\n\t- use_cpu: False\n\t- debug: False\n"
            "\t- num_processes: %d\n\t- machine_rank: 0\n\t- num_machines: %d\n\t- gpu_ids: all\n\t- rdzv_backend: static\n\t- same_network: True\n"
            "\t- main_training_function: main\n\t- enable_cpu_affinity: False\n\t- downcast_bf16: no\n" % (
                prompt(job, h), job.accel_ver, h.kver, "2.35" if h.distro == "22.04" else "2.39", h.bin, h.py, job.frng.randint(4, 14),
                job.frng.choice(["1.26.4", "2.1.3", "1.24.4"]), job.tver, job.cu, h.ram_gb * 0.98, h.gpus[0].name, job.mixed_prec,
                job.world, job.nhosts))
    files.update(attachments(job, dict(STD_NAMES, dmesg="syslog-kernel{host}.txt" if job.dmesg_style == "journal" else "dmesg{host}.txt")))
    return files


def render_deepspeed(job):
    files = {}
    head = job.head
    pfx = {}
    for h in job.hosts:
        pfx[h.name] = ("%s: " % job.ds_name(h)) if job.nhosts > 1 else ""
    lines = []
    for h in job.hosts:
        lines += host_lines(job, h)
    lines.sort(key=lambda l: (l.t, l.seq))
    # pdsh relays remote lines; tqdm bars from the head node only
    if job.nhosts > 1:
        lines = [l for l in lines if not (l.kind == "bar" and l.host != head.name)]
    fn = lambda l: pfx.get(l.host, "") if l.src != "pdsh" else ""
    files["train.log"] = "%s %s%s 2>&1 | tee train.log\n" % (prompt(job, head), env_prefix(job, head) if job.nhosts == 1 else "", launch_cmd(job, head)) + to_text(lines, "raw", prefix_fn=fn)
    if job.nhosts > 1:
        files["hostfile"] = "".join("%s slots=%d\n" % (job.ds_name(h), len(h.ranks)) for h in job.hosts)
        if job.ds_env:
            files[".deepspeed_env"] = "".join("%s=%s\n" % kv for kv in job.ds_env)
    stage = job.pick([1, 2, 2, 3])
    files["ds_config.json"] = json.dumps({
        "train_micro_batch_size_per_gpu": job.local_bs, "gradient_accumulation_steps": job.pick([1, 2, 4, 8]),
        "bf16": {"enabled": job.mixed_prec == "bf16"}, "fp16": {"enabled": job.mixed_prec == "fp16"},
        "zero_optimization": {"stage": stage, "overlap_comm": True, "contiguous_gradients": True,
                              "offload_optimizer": {"device": job.pick(["none", "cpu"])}},
        "gradient_clipping": 1.0, "steps_per_print": job.log_every, "wall_clock_breakdown": False}, indent=2) + "\n"
    files.update(attachments(job, STD_NAMES))
    return files


def render_windows(job):
    files = {}
    for h in job.hosts:
        if h.os == "win":
            head = []
            if job.tv in ((2, 4), (2, 5)) and job.launcher == "torchrun":
                if job.libuv_fail:
                    head.append("%s %s" % (prompt(job, h), launch_cmd(job, h)))
                    head.append(py_tb(job, None, torchrun_frames(job, h)[:-1] + [
                        (lib(h, "torch/distributed/launcher/api.py"), 251, "launch_agent", "result = agent.run()"),
                        (lib(h, "torch/distributed/elastic/rendezvous/static_tcp_rendezvous.py"), 55, "next_rendezvous", "self._store = TCPStore(  # type: ignore[call-arg]")],
                        ["RuntimeError: use_libuv was requested but PyTorch was build without libuv support"], host=h, prefix=""))
                head.append(("%s $env:USE_LIBUV=0" % prompt(job, h)) if job.win_shell == "ps" else ("%s set USE_LIBUV=0" % prompt(job, h)))
            if job.backend == "gloo" and job.nhosts > 1:
                head.append(("%s $env:GLOO_SOCKET_IFNAME=\"%s\"" % (prompt(job, h), h.iface)) if job.win_shell == "ps" else ("%s set GLOO_SOCKET_IFNAME=%s" % (prompt(job, h), h.iface)))
            head.append("%s %s" % (prompt(job, h), launch_cmd(job, h)))
            body = to_text(host_lines(job, h), "screen")
            name = "console.txt" if job.nhosts == 1 else "console-%s.txt" % h.name
            files[name] = "\n".join(head) + "\n" + body + prompt(job, h) + "\n"
        else:
            head = "%s %s%s" % (prompt(job, h), env_prefix(job, h), launch_cmd(job, h))
            body = to_text(host_lines(job, h), "screen")
            name = "wsl-terminal.txt" if job.nhosts == 1 else "wsl-%s.txt" % h.name
            files[name] = head + "\n" + body + prompt(job, h) + "\n"
    files.update(attachments(job, dict(STD_NAMES, dmesg="wsl-dmesg{host}.txt")))
    return files


def ansi_tb(job, h, exc_name, exc_lines, child_tb):
    R = "\u001b[0;31m"
    G = "\u001b[0;32m"
    N = "\u001b[0m"
    B = "\u001b[1;32m"
    out = [R + "---------------------------------------------------------------------------" + N,
           R + exc_name.ljust(42) + N + "Traceback (most recent call last)",
           "Cell " + B + "In[%d], line %d" % (job.nb_exec, job.nb_call_line) + N,
           G + "      1" + N + " from accelerate import notebook_launcher" if job.nb_api == "accelerate" else G + "      1" + N + " import torch.multiprocessing as mp",
           R + "----> %d" % job.nb_call_line + N + " " + job.nb_call]
    site = h.site.replace("/home/%s" % h.user, "~")
    if job.nb_api == "accelerate":
        out.append("")
        job.nb_ln = job.pick([245, 257, 264])
        out.append("File " + G + "%s/accelerate/launchers.py:%d" % (site, job.nb_ln) + N + ", in " + B + "notebook_launcher" + N + "(function, args, num_processes, mixed_precision, use_port, master_addr, node_rank, num_nodes, rdzv_backend, rdzv_endpoint, rdzv_conf, rdzv_id, max_restarts, monitor_interval, log_line_prefix_template)")
        if job.nb_elastic:
            out.append(R + "--> %d" % job.nb_ln + N + "         elastic_launch(config=launch_config, entrypoint=function)(*args)")
        else:
            out.append(R + "--> %d" % job.nb_ln + N + "     start_processes(launcher, args=args, nprocs=num_processes, start_method=\"fork\")")
    out.append("")
    if job.nb_elastic:
        a = _vi(job, {(2, 3): 133, (2, 4): 138, (2, 7): 139})
        b = _vi(job, {(2, 3): 263, (2, 4): 260, (2, 7): 270})
        out.append("File " + G + "%s/torch/distributed/launcher/api.py:%d" % (site, a) + N + ", in " + B + "elastic_launch.__call__" + N + "(self, *args)")
        out.append(R + "--> %d" % a + N + "     return launch_agent(self._config, self._entrypoint, list(args))")
        out.append("")
        out.append("File " + G + "%s/torch/distributed/launcher/api.py:%d" % (site, b) + N + ", in " + B + "launch_agent" + N + "(config, entrypoint, args)")
        out.append(R + "--> %d" % b + N + "     raise ChildFailedError(")
    else:
        a = _vi(job, {(2, 1): 197, (2, 3): 238, (2, 4): 284, (2, 6): 296})
        b = _vi(job, {(2, 1): 158, (2, 3): 189, (2, 4): 203, (2, 6): 215})
        out.append("File " + G + "%s/torch/multiprocessing/spawn.py:%d" % (site, a) + N + ", in " + B + "start_processes" + N + "(fn, args, nprocs, join, daemon, start_method)")
        out.append(R + "--> %d" % a + N + "     while not context.join():")
        out.append("")
        out.append("File " + G + "%s/torch/multiprocessing/spawn.py:%d" % (site, b) + N + ", in " + B + "ProcessContext.join" + N + "(self, timeout)")
        out.append(R + "--> %d" % b + N + ("     raise ProcessRaisedException(msg, error_index, failed_process.pid)" if "Raised" in exc_name else "     raise ProcessExitedException("))
    out.append("")
    out.extend([R + exc_lines[0] + N] + exc_lines[1:])
    return out


def render_notebook(job):
    files = {}
    h = job.head
    rng = job.frng
    cells = []
    ec = rng.randint(3, 20)

    def cell(src, outputs, n):
        return {"cell_type": "code", "execution_count": n, "id": hx(rng, 8), "metadata": {}, "outputs": outputs,
                "source": [x + "\n" for x in src.split("\n")[:-1]] + [src.split("\n")[-1]]}

    cells.append(cell("import os, math, socket, torch\nimport torch.distributed as dist\nprint(socket.gethostname(), torch.__version__, torch.cuda.device_count())",
                      [{"name": "stdout", "output_type": "stream", "text": ["%s %s+%s %d\n" % (h.name, job.tver, job.cu, len(h.gpus))]}], ec))
    if job.want_smi:
        smi = smi_table(job, h, job.t_launch - 60, during=False)
        cells.append(cell("!nvidia-smi", [{"name": "stdout", "output_type": "stream", "text": [x + "\n" for x in smi.rstrip("\n").split("\n")]}], ec + 1))
        job.want_smi = False
    if job.nb_api == "accelerate":
        cells.append(cell("def training_function(model_name=%r, lr=%g, epochs=%d):\n    accelerator = Accelerator(mixed_precision=%r)\n    ...\n    for epoch in range(epochs):\n        for step, batch in enumerate(train_dataloader):\n            outputs = model(**batch)\n            accelerator.backward(outputs.loss)\n            optimizer.step(); lr_scheduler.step(); optimizer.zero_grad()" % (
            job.model.split(" ")[0], job.lr if hasattr(job, "lr") else 3e-4, job.epochs, job.mixed_prec), [], ec + 2))
    else:
        cells.append(cell("def train_worker(rank, world_size, cfg):\n    os.environ.setdefault(\"MASTER_ADDR\", \"127.0.0.1\")\n    os.environ.setdefault(\"MASTER_PORT\", \"%d\")\n    dist.init_process_group(\"nccl\", rank=rank, world_size=world_size)\n    torch.cuda.set_device(rank)\n    model = DDP(build_model().cuda(rank), device_ids=[rank])\n    for epoch in range(cfg[\"epochs\"]):\n        for step, (x, y) in enumerate(tqdm(loader, disable=rank != 0)):\n            loss = F.cross_entropy(model(x.cuda(rank)), y.cuda(rank))\n            loss.backward(); opt.step(); opt.zero_grad()\n            if rank == 0 and step %% %d == 0:\n                print(f\"epoch {epoch+1} | step {step} | loss {loss.item():.4f}\")" % (job.master_port, job.log_every), [], ec + 2))
    job.nb_exec = ec + 3
    job.nb_call_line = rng.choice([3, 4, 5])
    outputs = []
    if job.nhosts > 1:
        job.nb_call = "!torchrun --nnodes=%d --node_rank=0 --nproc_per_node=%d --master_addr=%s --master_port=%d %s %s" % (
            job.nhosts, len(h.ranks), job.master_addr, job.master_port, job.script_name, job.script_args)
        src = job.nb_call
    elif job.nb_api == "accelerate":
        job.nb_call = "notebook_launcher(training_function, args, num_processes=%d)" % len(h.ranks)
        src = "from accelerate import notebook_launcher\n\nargs = (%r, %g, %d)\n" % (job.model.split(" ")[0], 3e-4, job.epochs) + "\n" * (job.nb_call_line - 4) + job.nb_call
    else:
        job.nb_call = "mp.start_processes(train_worker, args=(%d, cfg), nprocs=%d, start_method=\"fork\")" % (len(h.ranks), len(h.ranks))
        src = "import torch.multiprocessing as mp\n\ncfg = dict(lr=3e-4, epochs=%d)\n" % job.epochs + "\n" * (job.nb_call_line - 4) + job.nb_call
    # stream outputs: stdout/stderr chunks in time order
    ls = host_lines(job, h)
    if job.nb_api == "accelerate" and job.nhosts == 1:
        outputs.append({"name": "stdout", "output_type": "stream", "text": ["Launching training on %d GPUs.\n" % len(h.ranks)]})
    cur_name, cur = None, []

    def flush():
        if cur:
            outputs.append({"name": cur_name, "output_type": "stream", "text": cur[:]})

    for l in ls:
        name = "stderr" if (l.kind == "bar" or l.src == "agent" or "Traceback" in l.text or "[E" in l.text or "[W" in l.text or "NCCL" in l.text or "Error" in l.text) else "stdout"
        if name != cur_name:
            flush()
            cur_name, cur = name, []
        if l.kind == "bar":
            cur.append("\r" + l.text)
        else:
            for x in l.text.split("\n"):
                cur.append(x + "\n")
    flush()
    # error output
    ev = [e for e in job.agent_events if e["host"] is h and e["kind"] == "fail" and not e["dead"]]
    if ev and job.nhosts == 1:
        if job.nb_elastic:
            cf = child_failed(job, h, ev[0]).split("\n")
            exc_lines = ["ChildFailedError" + cf[0].split("ChildFailedError", 1)[1]] + cf[1:]
            ename = "ChildFailedError"
        else:
            res = job.spawn_result.get(h.name)
            if res:
                exc_lines = [res[0][0].replace("torch.multiprocessing.spawn.", "")] + res[0][1:]
                ename = exc_lines[0].split(":", 1)[0]
            else:
                exc_lines, ename = ["ProcessExitedException: process 0 terminated with signal SIGABRT"], "ProcessExitedException"
        tb = ansi_tb(job, h, ename, exc_lines, None)
        outputs.append({"ename": ename, "evalue": "\n".join(exc_lines[1:]) if len(exc_lines) > 1 else exc_lines[0].split(": ", 1)[-1],
                        "output_type": "error", "traceback": tb})
    cells.append(cell(src, outputs, job.nb_exec))
    cells.append({"cell_type": "code", "execution_count": None, "id": hx(rng, 8), "metadata": {}, "outputs": [], "source": []})
    nb = {"cells": cells, "metadata": {"kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"},
                                       "language_info": {"codemirror_mode": {"name": "ipython", "version": 3}, "file_extension": ".py",
                                                         "mimetype": "text/x-python", "name": "python", "nbconvert_exporter": "python",
                                                         "pygments_lexer": "ipython3", "version": "%s.%d" % (h.py, rng.randint(4, 14))}},
          "nbformat": 4, "nbformat_minor": 5}
    files[job.nb_name] = json.dumps(nb, indent=1, ensure_ascii=False) + "\n"
    # server log
    if job.nb_kernel_died or job.cause in ("host_oom_kill", "preemption") or rng.random() < 0.3:
        kid = "%s-%s-%s-%s-%s" % (hx(rng, 8), hx(rng, 4), hx(rng, 4), hx(rng, 4), hx(rng, 12))
        t0 = job.t_launch - rng.uniform(600, 7200)
        d = lambda t: h.local(t).strftime("%Y-%m-%d %H:%M:%S.") + "%03d" % (h.local(t).microsecond // 1000)
        lg = ["[I %s ServerApp] Jupyter Server 2.%d.%d is running at:" % (d(t0), rng.randint(10, 14), rng.randint(0, 5)),
              "[I %s ServerApp] http://localhost:8888/lab?token=..." % d(t0),
              "[I %s ServerApp] Kernel started: %s" % (d(t0 + 40), kid),
              "[I %s ServerApp] Saving file at /%s" % (d(job.t_launch - 5), job.nb_name)]
        if job.nb_kernel_died or (job.cause == "host_oom_kill" and job.oomd_host is None and rng.random() < 0.5):
            te = job.t_fail + 1
            lg.append("[W %s ServerApp] AsyncIOLoopKernelRestarter: restarting kernel (1/5), keep random ports" % d(te))
            lg.append("[I %s ServerApp] Kernel restarted: %s" % (d(te + 2), kid))
            lg.append("[I %s ServerApp] Starting buffering for %s:%s" % (d(te + 2.5), kid, hx(rng, 8)))
        elif job.cause == "preemption" and job.nhosts == 1:
            te = job.t_fail + 0.2
            lg.append("[C %s ServerApp] received signal 15, stopping" % d(te))
            lg.append("[I %s ServerApp] Shutting down %d extensions" % (d(te + 0.01), rng.randint(3, 7)))
            lg.append("[I %s ServerApp] Shutting down 1 kernel" % d(te + 0.02))
            lg.append("[I %s ServerApp] Kernel shutdown: %s" % (d(te + 0.4), kid))
        else:
            lg.append("[I %s ServerApp] Saving file at /%s" % (d((job.progress_end or job.t_fail) + 600), job.nb_name))
        files["jupyter-server.log"] = "\n".join(lg) + "\n"
    # second box (multi-node)
    for hh in job.hosts[1:]:
        files["other-box-%s.txt" % hh.name] = "%s %s%s\n" % (prompt(job, hh), env_prefix(job, hh), launch_cmd(job, hh)) + to_text(host_lines(job, hh), "screen") + prompt(job, hh) + "\n"
    files.update(attachments(job, STD_NAMES))
    return files


def render_twobox(job):
    files = {}
    for h in job.hosts:
        if h.name in job.missing_hosts:
            continue
        body = to_text(host_lines(job, h), "raw")
        files["%s.log" % h.name] = "%s %s%s 2>&1 | tee %s.log\n" % (prompt(job, h), env_prefix(job, h), launch_cmd(job, h), h.name) + body
        if job.frng.random() < 0.6:
            e = ["%s env | grep -E 'NCCL|MASTER|CUDA_VISIBLE|GLOO' ; ip -br a" % prompt(job, h)]
            for kv in env_prefix(job, h).split():
                e.append(kv)
            e.append("lo               UNKNOWN        127.0.0.1/8 ::1/128 ")
            e.append("%-16s UP             %s/24 fe80::%s:%s:%s:%s/64 " % (h.iface, h.ip, hx(job.frng, 4), hx(job.frng, 4), hx(job.frng, 4), hx(job.frng, 4)))
            if job.frng.random() < 0.5:
                e.append("docker0          DOWN           172.17.0.1/16 ")
            if job.frng.random() < 0.3:
                e.append("tailscale0       UNKNOWN        100.%d.%d.%d/32 fd7a:115c:a1e0::%s/128 " % (job.frng.randint(64, 127), job.frng.randint(0, 255), job.frng.randint(1, 254), hx(job.frng, 4)))
            files["env-%s.txt" % h.name] = "\n".join(e) + "\n"
    if job.frng.random() < 0.4:
        a, b = job.hosts[0], job.hosts[1]
        sp = {"igc": 2.35, "r8169": 0.94, "e1000e": 0.94, "igb": 0.94, "ixgbe": 9.41, "atlantic": 9.38}[a.nic[0]]
        if {"igc", "r8169", "e1000e", "igb"} & {b.nic[0]}:
            sp = min(sp, 0.94 if b.nic[0] != "igc" else 2.35)
        out = ["%s iperf3 -c %s" % (prompt(job, a), b.ip), "Connecting to host %s, port 5201" % b.ip,
               "[  5] local %s port %d connected to %s port 5201" % (a.ip, job.frng.randint(40000, 60000), b.ip),
               "[ ID] Interval           Transfer     Bitrate         Retr  Cwnd"]
        for k in range(10):
            out.append("[  5]   %d.00-%d.00   sec  %s  %.2f Gbits/sec  %3d   %s" % (k, k + 1, "%.2f GBytes" % (sp / 8 * job.frng.uniform(0.95, 1.0)) if sp > 8 else "%d MBytes" % int(sp * 1000 / 8 * job.frng.uniform(0.9, 1.0)),
                                                                              sp * job.frng.uniform(0.93, 0.99), job.frng.choice([0, 0, 0, 2, 17]), job.frng.choice(["1.41 MBytes", "3.01 MBytes", "402 KBytes"])))
        out.append("- - - - - - - - - - - - - - - - - - - - - - - - -")
        out.append("[  5]   0.00-10.00  sec  %s  %.2f Gbits/sec   %d             sender" % ("%.1f GBytes" % (sp * 10 / 8 * 0.97), sp * 0.96, job.frng.randint(0, 60)))
        out.append("[  5]   0.00-10.00  sec  %s  %.2f Gbits/sec                  receiver" % ("%.1f GBytes" % (sp * 10 / 8 * 0.965), sp * 0.955))
        out.append("")
        out.append("iperf Done.")
        files["iperf3.txt"] = "\n".join(out) + "\n"
    files.update(attachments(job, STD_NAMES))
    return files


def render_mixedbox(job):
    files = {}
    for h in job.hosts:
        suf = "" if job.nhosts == 1 else "-%s" % h.name
        ls = host_lines(job, h)
        log_l = [l for l in ls if l.kind != "bar" and l.src != "agent" and len(l.text) > 24 and l.text[4] == "-" and l.text[10] == " " and "[rank" in l.text[:40]]
        con_l = [l for l in ls if l not in log_l]
        files["train%s.log" % suf] = to_text(log_l, "raw")
        files["console%s.txt" % suf] = "%s %s%s\n" % (prompt(job, h), env_prefix(job, h), launch_cmd(job, h)) + to_text(con_l, "screen") + prompt(job, h) + "\n"
    files.update(attachments(job, dict(STD_NAMES, smi="nvidia-smi{host}.txt", dmon="nvidia-smi-dmon{host}.txt")))
    return files


RENDER = {"tmux-torchrun": render_tmux, "nohup-accelerate": render_nohup, "deepspeed-pdsh": render_deepspeed,
          "windows-gloo": render_windows, "jupyter-notebook": render_notebook, "twobox-socket": render_twobox,
          "mixedbox-spawn": render_mixedbox}


# --------------------------------------------------------------------------
# assembly
# --------------------------------------------------------------------------
def setup3(job):
    rng = job.rng
    job.win_shell = rng.choice(["ps", "cmd"])
    job.conda_env = rng.choice(["ml", "torch", "base", "llm", "sd", "pt2"])
    job.tmux_hist = rng.choice([2000, 2000, 5000, 50000])
    job.nohup_name = rng.choice(["nohup.out", "train.log", "nohup.out", "run.log"])
    job.dmesg_style = rng.choice(["raw", "T", "journal"])
    job.libuv_fail = rng.random() < 0.5
    job.nb_api = "accelerate" if rng.random() < 0.7 else "mp"
    if job.nb_api == "mp":
        job.nb_elastic = False
        if job.layout == "jupyter-notebook":
            job.flavor = "custom"
    job.nb_name = rng.choice(["train_ddp.ipynb", "finetune.ipynb", "Untitled3.ipynb", "multi_gpu.ipynb", "lora_train.ipynb"])
    job.missing_hosts = []
    job.want_q = False
    job.ecc_q = None
    job.eaddrinuse = job.launcher == "torchrun" and job.os == "linux" and job.layout == "tmux-torchrun" and rng.random() < 0.2
    job.port_fail = job.master_port
    if job.eaddrinuse:
        job.master_port = job.master_port + rng.choice([1, 11, 100])
        job.decoys.append("first launch failed with EADDRINUSE on port %d (stale process), relaunched on %d" % (job.port_fail, job.master_port))
    if job.layout == "jupyter-notebook" and job.nhosts == 1:
        job.launcher = "notebook"
    if job.layout == "jupyter-notebook" and job.nhosts > 1:
        job.launcher = "torchrun"
    if job.launcher == "notebook" and job.flavor not in ("accel", "hf", "custom"):
        job.flavor = "accel"


def build(job):
    setup(job)
    init_state(job)
    setup2(job)
    setup3(job)
    kernel_noise(job)
    if job.healthy:
        job.progress_end = job.t_train + job.total_steps * job.step_s
    else:
        INJECT[job.cause](job)
    startup(job)
    decoys(job)
    finished = job.healthy or (job.cause == "straggler" and job.strag_end == "finish")
    if job.cause == "straggler" and job.strag_end == "ctrlc":
        job.user_interrupt = job.progress_end + job.frng.uniform(20, 600)
    last = progress(job, job.progress_end, finished)
    if finished:
        t_done = job.t_train + job.total_steps * job.step_s + 5
        healthy_exit(job, t_done)
    propagate(job)
    for t2, rk, text in job.deferred:
        if job.exits[rk.r].t >= t2:
            job.remit(rk, t2, text)
    interrupt_output(job)
    agent_output(job)
    if job.nhosts > 1 and job.layout == "twobox-socket" and job.cause in (
            "cuda_oom", "python_exception", "illegal_memory_access", "crash_signal", "ecc_memory") and job.frng.random() < 0.25:
        cands = [h for h in job.hosts if h is not job.culprit_host and h is not job.head]
        if cands:
            job.missing_hosts = [cands[0].name]
            job.notes.append("log of %s not attached" % cands[0].name)
    if job.want_q and job.thermal_decoy is None and job.q_perf is None:
        job.want_q = False
    files = RENDER[job.layout](job)
    # truth
    t = job.truth
    if t["node"]:
        h = [x for x in job.hosts if x.name == t["node"]][0]
        blob = "\n".join(files.values())
        spell = [x for x in [h.name] + h.aliases if x in blob]
        if spell:
            t["node"] = spell[0]
        else:
            job.notes.append("WARNING: culprit host name not spelled in any file")
        t["node_aliases"] = [a for a in [h.name] + h.aliases if a != t["node"] and a in blob]
    if t["rank"] is None:
        t["rank_inferable"] = False
    hw = "; ".join("%s: %s" % (h.name, "+".join(g.short for g in h.gpus)) for h in job.hosts)
    notes = ["world %d (%d box%s; %s)" % (job.world, job.nhosts, "es" if job.nhosts > 1 else "", hw),
             "torch %s / NCCL %s / driver %s / %s / %s backend" % (job.tver, job.nccl, job.driver, job.launcher, job.backend)]
    notes += job.notes
    if job.decoys:
        notes.append("decoys: " + "; ".join(job.decoys))
    if job.nhosts > 1 and any(h.skew for h in job.hosts) or any(h.tz != job.head.tz for h in job.hosts):
        notes.append("clocks: " + ", ".join("%s %s%+.0fs" % (h.name, h.tzname, h.skew) for h in job.hosts))
    if job.healthy:
        notes.append("healthy: finishes after %d steps" % job.total_steps)
    t["notes"] = ". ".join(notes)
    files["truth.json"] = json.dumps(t, indent=2) + "\n"
    return files


def plan(seed, n):
    prng = random.Random("%s-plan-%s" % (NAME, seed))
    order = CAUSES[:]
    prng.shuffle(order)
    causes = []
    k = 0
    for i in range(n):
        if i % 7 == 3:
            causes.append(None)
        else:
            causes.append(order[k % len(order)])
            k += 1
    layouts = []
    b = 0
    while len(layouts) < n:
        blk = LAYOUTS[:]
        random.Random("%s-layouts-%s-%d" % (NAME, seed, b)).shuffle(blk)
        layouts += blk
        b += 1
    layouts = layouts[:n]
    bad = lambda L, C: (L, C) in INCOMPATIBLE
    for i in range(n):
        if not bad(layouts[i], causes[i]):
            continue
        for d in list(range(1, n)) + [-x for x in range(1, n)]:
            j = i + d
            if 0 <= j < n and not bad(layouts[i], causes[j]) and not bad(layouts[j], causes[i]):
                layouts[i], layouts[j] = layouts[j], layouts[i]
                break
    return list(zip(causes, layouts))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--seed", default="1")
    a = ap.parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    counts = {}
    lay_counts = {}
    for i, (cause, layout) in enumerate(plan(a.seed, a.n)):
        job = Job(a.seed, i, layout, cause)
        files = build(job)
        d = os.path.join(a.out, "run-%03d-%s" % (i, layout))
        os.makedirs(d, exist_ok=True)
        for name in sorted(files):
            with open(os.path.join(d, name), "w", encoding="utf-8", newline="") as f:
                f.write(files[name])
        key = cause or "healthy"
        counts[key] = counts.get(key, 0) + 1
        lay_counts[layout] = lay_counts.get(layout, 0) + 1
    print(json.dumps({"causes": dict(sorted(counts.items())), "layouts": dict(sorted(lay_counts.items())), "runs": a.n}, indent=1))


if __name__ == "__main__":
    main()
