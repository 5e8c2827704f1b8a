#!/usr/bin/env python3
"""gen_blind29.py - blind generator of synthetic failed / healthy GPU-training log bundles.

Theme: pretty and structured log formatters wrapped around real torch / NCCL / launcher /
kernel / scheduler messages (Rich tracebacks and progress bars, loguru, structlog, Hydra,
colorlog, absl, glog-style c10 lines, tqdm redraws, HF / ms-swift metric dicts, W&B).

Written without reading the diagnosis tool's code, rules, tests or corpus.
Standard library only.  Usage:
    python3 gen_blind29.py --out DIR --n 60 --seed S
"""
import argparse
import datetime as dt
import json
import os
import random
import re
import shutil
import sys

CAUSES = ["gpu_hardware", "ecc_memory", "nvlink", "network", "cuda_oom",
          "illegal_memory_access", "python_exception", "host_oom_kill", "crash_signal",
          "preemption", "hang", "data_loader_stall", "collective_mismatch", "straggler",
          "unknown"]
LAYOUTS = ["lightning-rich-slurm", "accelerate-loguru", "hydra-structlog-k8s",
           "titan-colorlog-slurm", "deepspeed-wandb-pdsh", "absl-glog-bare",
           "typer-swift-rich"]
DRAIN_CAUSES = ("gpu_hardware", "ecc_memory", "nvlink")

UTC = dt.timezone.utc


TZNAMES = {-8: "PST", -7: "MST", -5: "EST", 0: "UTC", 1: "CET", 2: "EET", 8: "CST", 9: "JST"}


def tz(hours):
    return dt.timezone(dt.timedelta(hours=hours), TZNAMES.get(hours))


def pick(rng, seq):
    return seq[rng.randrange(len(seq))]


def wpick(rng, items):
    tot = sum(w for _, w in items)
    x = rng.random() * tot
    for it, w in items:
        x -= w
        if x < 0:
            return it
    return items[-1][0]


def chance(rng, p):
    return rng.random() < p


def hexaddr(rng, lo=0x7f0000000000, hi=0x7fffffffffff):
    return "0x%012x" % rng.randrange(lo, hi)


# --------------------------------------------------------------------------------------
# time formatting
# --------------------------------------------------------------------------------------

def ts_c10(d, ns3):
    # torch >= 2.4 c10 logging: [E302 10:11:12.123456789 File.cpp:12]
    return "%d%02d %s.%06d%03d" % (d.month, d.day, d.strftime("%H:%M:%S"), d.microsecond, ns3)


def ts_glog(d):
    return "%02d%02d %s.%06d" % (d.month, d.day, d.strftime("%H:%M:%S"), d.microsecond)


def ts_py(d):
    return "%s,%03d" % (d.strftime("%Y-%m-%d %H:%M:%S"), d.microsecond // 1000)


def ts_loguru(d):
    return "%s.%03d" % (d.strftime("%Y-%m-%d %H:%M:%S"), d.microsecond // 1000)


def ts_isoz(d):
    d = d.astimezone(UTC)
    return "%s.%06dZ" % (d.strftime("%Y-%m-%dT%H:%M:%S"), d.microsecond)


def ts_k8s(d, ns3):
    d = d.astimezone(UTC)
    return "%s.%06d%03dZ" % (d.strftime("%Y-%m-%dT%H:%M:%S"), d.microsecond, ns3)


def ts_dmesg_T(d):
    return "[%s %s %2d %s %d]" % (d.strftime("%a"), d.strftime("%b"), d.day,
                                  d.strftime("%H:%M:%S"), d.year)


def ts_iso_off(d, frac=6, sep="T"):
    off = d.strftime("%z")
    off = off[:3] + ":" + off[3:]
    if frac == 6:
        return "%s%s.%06d%s" % (d.strftime("%Y-%m-%d"), sep + d.strftime("%H:%M:%S"),
                                d.microsecond, off)
    return "%s%s%s" % (d.strftime("%Y-%m-%d"), sep + d.strftime("%H:%M:%S"), off)


def ts_slurm(d):
    return d.strftime("%Y-%m-%dT%H:%M:%S")


def fmt_dur(sec):
    sec = int(max(0, sec))
    h, r = divmod(sec, 3600)
    m, s = divmod(r, 60)
    return "%d:%02d:%02d" % (h, m, s)


def fmt_tqdm_dur(sec):
    sec = int(max(0, sec))
    h, r = divmod(sec, 3600)
    m, s = divmod(r, 60)
    if h:
        return "%d:%02d:%02d" % (h, m, s)
    return "%02d:%02d" % (m, s)


# --------------------------------------------------------------------------------------
# software stacks
# --------------------------------------------------------------------------------------

TORCH_STACKS = [
    # torch version, NCCL, CUDA, pythons
    ("2.1.2", "2.18.1", "12.1", ["3.10", "3.11"]),
    ("2.2.2", "2.19.3", "12.1", ["3.10", "3.11"]),
    ("2.3.1", "2.20.5", "12.1", ["3.10", "3.11"]),
    ("2.3.0a0+6ddf5cf85e.nv24.04", "2.21.5", "12.4", ["3.10"]),
    ("2.4.1", "2.20.5", "12.4", ["3.10", "3.11"]),
    ("2.5.1", "2.21.5", "12.4", ["3.10", "3.11", "3.12"]),
    ("2.6.0", "2.21.5", "12.4", ["3.11", "3.12"]),
    ("2.7.1", "2.26.2", "12.8", ["3.11", "3.12"]),
    ("2.8.0", "2.27.3", "12.8", ["3.11", "3.12"]),
    ("2.9.0", "2.27.5", "12.8", ["3.12"]),
]

# approximate source lines of ProcessGroupNCCL.cpp messages per torch minor
C10L = {
    (2, 1): dict(wd=475, some=489, avoid=495, term=916, chk=477, nccl_err=1331, reducer=1339),
    (2, 2): dict(wd=523, some=537, avoid=543, term=1182, chk=525, nccl_err=1691, reducer=1344),
    (2, 3): dict(wd=563, some=577, avoid=583, term=1414, chk=565, nccl_err=1970, reducer=1346,
                 barrier=3851),
    (2, 4): dict(wd=607, some=621, avoid=627, term=1515, chk=609, exc=1664, tmo=1709,
                 wdloop=1521, nccl_err=2006, barrier=4115, destroy=1250, reducer=1400),
    (2, 5): dict(wd=616, some=630, avoid=636, term=1595, chk=618, exc=1785, tmo=1834,
                 wdloop=1601, nccl_err=2027, barrier=4164, destroy=1250, dump=1424, fr=1386,
                 reducer=1400),
    (2, 6): dict(wd=632, some=646, avoid=652, term=1672, chk=634, exc=1862, tmo=1911,
                 wdloop=1678, nccl_err=2167, barrier=4416, destroy=1496, dump=1470, fr=1431,
                 reducer=1411),
    (2, 7): dict(wd=684, some=698, avoid=704, term=1902, chk=686, exc=2096, tmo=2146,
                 wdloop=1908, nccl_err=3353, barrier=4791, destroy=1538, dump=1732, fr=1690,
                 reducer=1431),
    (2, 8): dict(wd=708, some=722, avoid=728, term=1934, chk=710, exc=2150, tmo=2199,
                 wdloop=1940, nccl_err=3459, barrier=4852, destroy=1545, dump=1766, fr=1723,
                 reducer=1441),
    (2, 9): dict(wd=714, some=728, avoid=734, term=1951, chk=716, exc=2167, tmo=2216,
                 wdloop=1957, nccl_err=3472, barrier=4873, destroy=1549, dump=1782, fr=1739,
                 reducer=1441),
}

CUDA_ERR = {
    "ima": (700, "an illegal memory access was encountered"),
    "launch": (719, "unspecified launch failure"),
    "ecc": (214, "uncorrectable ECC error encountered"),
    "nvlink": (220, "uncorrectable NVLink error detected during the execution"),
    "unknown": (999, "unknown error"),
}

GPU_MODELS = [
    # name, torch capacity GiB, bus ids of the 8 GPUs, arch
    ("NVIDIA H100 80GB HBM3", 79.11, ["18", "2a", "3a", "5d", "9a", "ab", "ba", "db"], "H100"),
    ("NVIDIA A100-SXM4-80GB", 79.15, ["07", "0f", "47", "4e", "87", "90", "b7", "bd"], "A100"),
    ("NVIDIA H800", 79.11, ["19", "3b", "4c", "5d", "9b", "bb", "cb", "db"], "H800"),
    ("NVIDIA A800-SXM4-80GB", 79.15, ["0e", "13", "49", "4f", "8b", "90", "c6", "cb"], "A800"),
]

LOSS_PRESETS = [(10.9, 2.1), (2.6, 1.05), (1.9, 0.62), (7.4, 2.9), (3.2, 1.6)]


# --------------------------------------------------------------------------------------
# job model
# --------------------------------------------------------------------------------------

LAYOUT_FW = {
    "lightning-rich-slurm": ("lightning", "srun"),
    "accelerate-loguru": ("hf", "torchrun"),
    "hydra-structlog-k8s": ("custom", "torchrun"),
    "titan-colorlog-slurm": ("titan", "torchrun"),
    "deepspeed-wandb-pdsh": ("deepspeed", "deepspeed"),
    "absl-glog-bare": ("custom", "torchrun"),
    "typer-swift-rich": ("swift", "torchrun"),
}

TOPOLOGIES = [((1, 2), 3), ((1, 4), 4), ((1, 8), 10), ((2, 8), 10), ((4, 8), 9), ((8, 8), 7),
              ((16, 8), 5), ((32, 8), 3), ((64, 8), 2), ((2, 4), 3), ((4, 4), 2), ((3, 8), 2)]


class Job:
    def __init__(self, seed, idx, layout, cause):
        self.seed, self.idx, self.layout, self.cause = seed, idx, layout, cause
        self.healthy = cause is None
        rng = self.rng = random.Random("blind29|%s|%d|job" % (seed, idx))
        self.framework, self.agent = LAYOUT_FW[layout]
        # ---- software
        st = pick(rng, TORCH_STACKS)
        if layout == "titan-colorlog-slurm":
            st = pick(rng, [s for s in TORCH_STACKS if s[0] >= "2.5"])
        self.torch, self.nccl, self.cuda = st[0], st[1], st[2]
        self.py = pick(rng, st[3])
        self.tv = tuple(int(x) for x in self.torch.split("+")[0].split("a")[0].split(".")[:2])
        self.ngc = "nv" in self.torch
        self.nv = tuple(int(x) for x in self.nccl.split("."))
        if self.ngc:
            self.site = "/usr/local/lib/python%s/dist-packages" % self.py
            self.pybin = "/usr/bin/python"
        else:
            self.site = wpick(rng, [("/opt/conda/lib/python%s/site-packages" % self.py, 3),
                                    ("/opt/venv/lib/python%s/site-packages" % self.py, 2),
                                    ("/usr/local/lib/python%s/dist-packages" % self.py, 2)])
            self.pybin = {"/opt/conda": "/opt/conda/bin/python",
                          "/opt/venv/": "/opt/venv/bin/python3",
                          "/usr/local": "/usr/bin/python3"}[self.site[:10]]
        self.csrc = "/opt/pytorch/pytorch/torch/csrc" if self.ngc else (
            "/pytorch/torch/csrc" if self.tv >= (2, 6) else "../torch/csrc")
        self.user = pick(rng, ["mlops", "jchen", "akumar", "svc-train", "root", "ldupont", "mwang"])
        self.root = pick(rng, ["/workspace/llm-train", "/home/%s/proj/pretrain" % self.user,
                               "/mnt/shared/%s/sft" % self.user, "/app", "/workspace/recipes"])
        # ---- hardware / topology
        g = pick(rng, GPU_MODELS)
        self.gpu_name, self.gpu_cap, self.bus, self.arch = g
        topo = wpick(rng, TOPOLOGIES)
        if cause == "network" and topo[0] < 2:
            topo = pick(rng, [(2, 8), (4, 8), (8, 8), (2, 4)])
        if cause in ("nvlink",) and topo[1] < 4:
            topo = (topo[0], 8)
        self.nnodes, self.gpn = topo
        self.world = self.nnodes * self.gpn
        self.bus = self.bus[:self.gpn] if self.gpn == 8 else sorted(rng.sample(self.bus, self.gpn))
        self.c10l = C10L[self.tv if self.tv in C10L else (2, 9)]
        # ---- time
        base = dt.datetime(2024, 9, 1, tzinfo=UTC) + dt.timedelta(
            seconds=rng.randrange(0, 400 * 86400))
        self.t0 = base
        self.tz = tz(pick(rng, [-8, -7, -5, 0, 1, 2, 8, 9]))  # cluster local time
        if layout in ("accelerate-loguru", "hydra-structlog-k8s", "titan-colorlog-slurm"):
            self.tz = UTC          # cloud images / containers run in UTC
        if layout == "typer-swift-rich" and rng.random() < 0.7:
            self.tz = tz(8)
        self.skew = []
        for n in range(self.nnodes):
            s = rng.gauss(0, 0.25)
            self.skew.append(s)
        if self.nnodes >= 2 and chance(rng, 0.35):
            self.skew[rng.randrange(1, self.nnodes)] += pick(rng, [-1, 1]) * rng.uniform(20, 240)
        self.uptime = [rng.uniform(3 * 3600, 60 * 86400) for _ in range(self.nnodes)]
        # ---- processes
        self.agent_pid = [rng.randrange(2000, 400000) for _ in range(self.nnodes)]
        self.pids = []
        self.tids = []
        for n in range(self.nnodes):
            p = self.agent_pid[n] + rng.randint(5, 12)
            for l in range(self.gpn):
                self.pids.append(p)
                self.tids.append(p + rng.randrange(300, 900))
                p += pick(rng, [1, 2, 2, 3, 4])
        self.pthread = [rng.randrange(139600000000000, 140730000000000) for _ in range(self.world)]
        # ---- hosts (layout specific spellings)
        self._hosts(rng)
        # ---- comm / run params
        self.nccl_debug = "INFO" if (self.world <= 64 and chance(rng, 0.6)) else "WARN"
        if self.framework in ("hf", "swift"):
            self.timeout_ms = pick(rng, [1800000, 1800000, 600000, 5400000])
        else:
            self.timeout_ms = pick(rng, [600000, 600000, 1800000])
        if self.framework in ("deepspeed", "titan") or chance(rng, 0.3):
            self.op = pick(rng, ["_ALLGATHER_BASE", "_REDUCE_SCATTER_BASE", "ALLREDUCE"])
        else:
            self.op = "ALLREDUCE"
        self.numel = pick(rng, [6553600, 26214400, 13107200, 1048576, 4194304, 134217728])
        self.step_time = round(rng.uniform(0.35, 6.5), 3)
        self.log_every = pick(rng, [1, 5, 10, 10, 20, 25, 50, 100])
        n_logs = rng.randint(25, 110)
        self.fail_step = max(12, self.log_every * n_logs + rng.randint(1, self.log_every))
        self.max_steps = self.fail_step if self.healthy else int(
            self.fail_step * rng.uniform(1.3, 8) // 100 * 100 + 100)
        if self.healthy:
            self.max_steps = (self.fail_step // self.log_every) * self.log_every
            self.fail_step = self.max_steps
        self.t_train = rng.uniform(45, 420)      # model build / ckpt load
        self.loss0, self.loss_inf = pick(rng, LOSS_PRESETS)
        self.tau = self.max_steps * rng.uniform(0.15, 0.6)
        self.lr = pick(rng, [3e-4, 2e-5, 1e-4, 6e-4, 1.5e-4, 5e-5])
        self.gbs = pick(rng, [256, 512, 1024, 128, 64]) if self.world >= 8 else pick(rng, [32, 64, 16])
        self.seq = pick(rng, [2048, 4096, 8192, 4096])
        self.model_name = pick(rng, ["llama3-8b", "qwen2.5-7b", "mistral-7b", "gpt-1.3b",
                                     "llama2-13b", "olmo-1b", "qwen2-1.5b", "vit-h14"])
        self.run_name = "%s-%s-%s" % (self.model_name, pick(rng, ["pt", "sft", "cpt", "dpo"]),
                                      pick(rng, ["lr3e-4", "bs%d" % self.gbs, "v%d" % rng.randint(2, 19),
                                                 "ablate-rope", "long-ctx", "mix7"]))
        self.jobid = rng.randrange(120000, 9800000)
        self.seed_v = pick(rng, [42, 1234, 0, 17, 3407])
        self.run_id = pick(rng, ["%d" % self.jobid, "%s-%04x" % (self.model_name.split("-")[0], rng.randrange(1 << 16)), "none"])
        self.tmpid = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789_") for _ in range(8))
        self.tmpid2 = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789_") for _ in range(8))
        self.slow_onset = None
        self.slow_f = 1.0
        # notes accumulate while simulating
        self.notes = []
        self.decoys = []

    # ---------------------------------------------------------------------------
    def _hosts(self, rng):
        L, n = self.layout, self.nnodes
        self.hosts, self.fqdn, self.ips, self.aliases = [], [], [], []
        self.k8s_nodes, self.pods = [], []
        if L == "lightning-rich-slurm":
            rack = rng.randint(1, 24)
            start = rng.randint(1, 30)
            for i in range(n):
                r, k = rack + (start + i) // 40, (start + i) % 40 + 1
                h = "hgx-r%02d-n%02d" % (r, k)
                self.hosts.append(h)
                self.fqdn.append(h + ".hpc.internal")
                self.ips.append("10.%d.%d.%d" % (40 + r, 2, 10 + k))
        elif L == "accelerate-loguru":
            a = rng.randint(0, 15)
            for i in range(n):
                ip = "10.%d.%d.%d" % (a, rng.randint(0, 255), rng.randint(4, 250))
                h = "ip-" + ip.replace(".", "-")
                self.hosts.append(h)
                self.fqdn.append(h + ".ec2.internal")
                self.ips.append(ip)
        elif L == "hydra-structlog-k8s":
            job = pick(rng, ["llm-sft", "pt-run", "mm-pretrain", "rlhf-rm"]) + "-%s" % "".join(
                rng.choice("abcdefghjkmnpqrstuvwxyz23456789") for _ in range(5))
            pool = pick(rng, ["a3mega-pool", "a3-highgpu-pool", "h100-spot", "gpu-pool-2"])
            clus = pick(rng, ["train-usc1", "ml-prod-euw4", "research-use5"])
            hsh = "%08x" % rng.randrange(1 << 32)
            self.jobname = job
            for i in range(n):
                node = "gke-%s-%s-%s-%s" % (clus, pool, hsh, "".join(
                    rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(4)))
                pod = "%s-master-0" % job if i == 0 else "%s-worker-%d" % (job, i - 1)
                self.k8s_nodes.append(node)
                self.pods.append(pod)
                self.hosts.append(pod)
                self.fqdn.append(pod)
                self.ips.append("10.%d.%d.%d" % (rng.randint(40, 90), rng.randint(0, 255),
                                                 rng.randint(2, 250)))
        elif L == "titan-colorlog-slurm":
            kind = pick(rng, ["p548xlarge", "p5en48xlarge", "p4de24xlarge"])
            q = pick(rng, ["gpu-st", "train-dy", "compute-st"])
            self.pcluster = pick(rng, ["pcluster-h100", "llm-train-cluster", "research-pc3"])
            start = rng.randint(1, 60)
            for i in range(n):
                h = "%s-%s-%d" % (q, kind, start + i)
                self.hosts.append(h)
                self.fqdn.append("%s.%s.pcluster" % (h, self.pcluster))
                self.ips.append("10.%d.%d.%d" % (rng.randint(0, 3), rng.randint(0, 255),
                                                 rng.randint(4, 250)))
        elif L == "deepspeed-wandb-pdsh":
            kind = pick(rng, ["dgx-a100", "dgx-h100", "gpu"])
            start = rng.randint(1, 80)
            for i in range(n):
                h = "%s-%03d" % (kind, start + i)
                self.hosts.append(h)
                self.fqdn.append(h + ".dgx.lab")
                self.ips.append("192.168.%d.%d" % (rng.randint(10, 30), 10 + start + i))
        elif L == "absl-glog-bare":
            zone = pick(rng, ["sjc2", "ord1", "ams3", "iad4"])
            start = rng.randint(1, 200)
            for i in range(n):
                h = "gpu-%s-%03d" % (zone, start + i * pick(rng, [1, 1, 2]))
                self.hosts.append(h)
                self.fqdn.append(h + ".ml.corpnet")
                self.ips.append("172.%d.%d.%d" % (rng.randint(16, 31), rng.randint(0, 255),
                                                  rng.randint(4, 250)))
        else:  # typer-swift-rich
            pre = pick(rng, ["dx-h800", "gz-a800", "node", "bj-h20"])
            start = rng.randint(1, 60)
            for i in range(n):
                h = "%s-%02d" % (pre, start + i)
                self.hosts.append(h)
                self.fqdn.append(h)
                self.ips.append("192.168.%d.%d" % (rng.randint(1, 9), 100 + start + i))
        for i in range(n):
            al = []
            if self.k8s_nodes:
                al = [self.pods[i], self.ips[i]]
            else:
                if self.fqdn[i] != self.hosts[i]:
                    al.append(self.fqdn[i])
                al.append(self.ips[i])
            self.aliases.append(al)

    # ---------------------------------------------------------------------------
    def node_of(self, r):
        return r // self.gpn

    def local_of(self, r):
        return r % self.gpn

    def host_of(self, r):
        return self.hosts[r // self.gpn]

    def truth_host(self, node):
        if node is None:
            return None
        if self.k8s_nodes:
            return self.k8s_nodes[node]
        return self.hosts[node]

    def at(self, t, node=None, zone=None):
        d = self.t0 + dt.timedelta(seconds=t + (self.skew[node] if node is not None else 0.0))
        return d.astimezone(zone or self.tz)

    def uptime_at(self, t, node):
        return self.uptime[node] + t

    def nccl_prefix(self, r, tid=None):
        return "%s:%d:%d [%d]" % (self.host_of(r), self.pids[r],
                                   tid if tid is not None else self.tids[r], self.local_of(r))

    def loss_at(self, s, rng):
        v = self.loss_inf + (self.loss0 - self.loss_inf) * pow(2.718281828, -s / max(1.0, self.tau))
        v *= 1 + rng.gauss(0, 0.012)
        return max(0.01, v)

    def lr_at(self, s):
        warm = max(10, self.max_steps // 50)
        if s < warm:
            return self.lr * s / warm
        frac = (s - warm) / max(1, self.max_steps - warm)
        return self.lr * (0.1 + 0.9 * 0.5 * (1 + __import__("math").cos(3.14159265 * min(1, frac))))

    def step_t(self, s):
        on = getattr(self, "slow_onset", None)
        if on is None or s <= on:
            return self.t_train + s * self.step_time
        return self.t_train + on * self.step_time + (s - on) * self.step_time * self.slow_f


# --------------------------------------------------------------------------------------
# literal message builders (torch / NCCL / CUDA / kernel)
# --------------------------------------------------------------------------------------

def net_kind(job):
    if job.layout in ("accelerate-loguru", "titan-colorlog-slurm"):
        return "ofi"
    if job.layout in ("hydra-structlog-k8s", "absl-glog-bare"):
        return "roce"
    return "ib"


def iface(job):
    return {"ofi": "ens32", "roce": pick(random.Random(job.idx), ["eth0", "bond0", "enp86s0f0np0"]),
            "ib": pick(random.Random(job.idx + 1), ["ib0", "eno1", "bond0", "enp170s0f0"])}[net_kind(job)]


def gid(job, node):
    if net_kind(job) == "roce":
        return "::ffff:" + job.ips[node]
    r = random.Random("gid|%s|%d|%d" % (job.seed, job.idx, node))
    return "fe80::%x:%x:%x:%x" % (r.randrange(0xa000, 0xffff), r.randrange(0x1000, 0xffff),
                                  r.randrange(0x10, 0xff), r.randrange(0x1000, 0xffff))


def hca_of(job, local):
    return "mlx5_%d" % (local if job.gpn == 8 else local * 2)


def nccl_init_lines(job, r, rng):
    """NCCL_DEBUG=INFO lines printed by one rank during communicator init."""
    W, l, node = job.world, job.local_of(r), job.node_of(r)
    p0 = job.nccl_prefix(r, tid=job.pids[r])
    p = job.nccl_prefix(r)
    ip, ifc, nk = job.ips[node], iface(job), net_kind(job)
    comm = "0x%x" % rng.randrange(0x55d000000000, 0x56ffffffffff)
    cid = "0x%016x" % random.Random("cid|%s|%d" % (job.seed, job.idx)).randrange(1 << 63)
    bus = job.bus[l]
    out = ["%s NCCL INFO Bootstrap : Using %s:%s<0>" % (p0, ifc, ip)]
    if nk == "ofi":
        out.append("%s NCCL INFO NET/OFI Initializing aws-ofi-nccl %s" % (p0, pick(rng, ["1.9.1-aws", "1.11.0-aws", "1.13.2-aws"])))
        out.append("%s NCCL INFO NET/OFI Using Libfabric version 1.%d" % (p0, rng.randint(19, 22)))
        out.append("%s NCCL INFO NET/OFI Selected Provider is efa (found %d nics)" % (p0, 4 if job.arch == "A100" else 32))
    elif job.nv >= (2, 19):
        out.append("%s NCCL INFO NET/Plugin: No plugin found (libnccl-net.so)" % p0)
        out.append("%s NCCL INFO NET/Plugin: Plugin load returned 2 : libnccl-net.so: cannot open shared object file: No such file or directory : when loading libnccl-net.so" % p0)
    out.append("%s NCCL INFO cudaDriverVersion %d" % (p0, 12080 if job.cuda == "12.8" else 12040 if job.cuda == "12.4" else 12020))
    if r == 0:
        out.append("NCCL version %s+cuda%s" % (job.nccl, job.cuda))
    if nk == "ofi":
        out.append("%s NCCL INFO Using network AWS Libfabric" % p)
    else:
        devs = " ".join("[%d]mlx5_%d:1/%s" % (i, i, "RoCE" if nk == "roce" else "IB")
                        for i in range(min(8, max(2, job.gpn))))
        out.append("%s NCCL INFO NET/IB : Using %s ; OOB %s:%s<0>" % (p, devs, ifc, ip))
        out.append("%s NCCL INFO Using network IB" % p)
    out.append("%s NCCL INFO ncclCommInitRank comm %s rank %d nranks %d cudaDev %d nvmlDev %d busId %s000 commId %s - Init START"
               % (p, comm, r, W, l, l, bus, cid))
    out.append("%s NCCL INFO Setting affinity for GPU %d to %s" % (
        p, l, "ffffffff,00000000,ffffffff" if l < job.gpn // 2 else "ffffffff,00000000,ffffffff,00000000"))
    if job.nv >= (2, 19):
        out.append("%s NCCL INFO comm %s rank %d nRanks %d nNodes %d localRanks %d localRank %d MNNVL 0"
                   % (p, comm, r, W, job.nnodes, job.gpn, l))
    if r == 0 or rng.random() < 0.3:
        ring = list(range(W)) if W <= 16 else list(range(8)) + ["..."]
        out.append("%s NCCL INFO Channel 00/%02d :    %s" % (p, 32 if job.gpn == 8 else 16,
                                                          "   ".join(str(x) for x in ring)))
    nxt = (r + 1) % W
    out.append("%s NCCL INFO Trees [0] %d/%d/-1->%d->%d [1] %d/-1/-1->%d->%d" % (
        p, nxt, -1 if job.nnodes == 1 else (r + job.gpn) % W, r, (r - 1) % W, nxt, r, (r - 1) % W))
    out.append("%s NCCL INFO P2P Chunksize set to %d" % (p, pick(rng, [524288, 131072])))
    via = "P2P/CUMEM/read" if job.nv >= (2, 19) else "P2P/IPC/read"
    for ch in range(min(2, 1 + rng.randrange(3))):
        out.append("%s NCCL INFO Channel %02d/0 : %d[%d] -> %d[%d] via %s" % (
            p, ch, r, l, nxt, job.local_of(nxt), via if job.node_of(nxt) == node else
            ("NET/AWS Libfabric/%d/GDRDMA" % l if nk == "ofi" else "NET/IB/%d/GDRDMA" % l)))
    out.append("%s NCCL INFO Connected all rings" % p)
    out.append("%s NCCL INFO Connected all trees" % p)
    out.append("%s NCCL INFO threadThresholds 8/8/64 | %d/8/64 | 512 | 512" % (p, 8 * W))
    out.append("%s NCCL INFO %d coll channels, %d collnet channels, 0 nvls channels, %d p2p channels, %d p2p channels per peer"
               % (p, 32 if job.gpn == 8 else 16, 0, 32, 32 if W <= 8 else 2))
    out.append("%s NCCL INFO ncclCommInitRank comm %s rank %d nranks %d cudaDev %d nvmlDev %d busId %s000 commId %s - Init COMPLETE"
               % (p, comm, r, W, l, l, bus, cid))
    if job.nv >= (2, 23):
        out.append("%s NCCL INFO Init timings - ncclCommInitRank: rank %d nranks %d total %.2f (kernels %.2f, alloc %.2f, bootstrap %.2f, allgathers %.2f, topo %.2f, graphs %.2f, connections %.2f, rest %.2f)"
                   % (p, r, W, rng.uniform(0.8, 9), rng.uniform(0.1, .3), rng.uniform(0, .1),
                      rng.uniform(0.05, 4), rng.uniform(0, .4), rng.uniform(0.1, .5),
                      rng.uniform(0, .1), rng.uniform(0.1, 1.5), rng.uniform(0, .1)))
    return out


def pg_tag(job, r, pg=0):
    if job.tv >= (2, 5):
        return ("[PG ID %d PG GUID %d(default_pg) Rank %d]" % (pg, pg, r)) if pg == 0 else \
            "[PG ID %d PG GUID %d Rank %d]" % (pg, pg, r)
    if job.tv == (2, 4):
        return ("[PG %d (default_pg) Rank %d]" % (pg, r)) if pg == 0 else "[PG %d Rank %d]" % (pg, r)
    if job.tv == (2, 3):
        return "[PG %d Rank %d]" % (pg, r)
    return "[Rank %d]" % r


def work_desc(job, seq, op, nin, nout):
    return "WorkNCCL(SeqNum=%d, OpType=%s, NumelIn=%d, NumelOut=%d, Timeout(ms)=%d)" % (
        seq, op, nin, nout, job.timeout_ms)


def op_numels(job, op=None, numel=None):
    op = op or job.op
    n = numel or job.numel
    if op == "_ALLGATHER_BASE":
        return op, n // job.world or 1, (n // job.world or 1) * job.world
    if op == "_REDUCE_SCATTER_BASE":
        return op, n, n // job.world or 1
    return op, n, n


def cpp_frames(job, rng, kind):
    lib = job.site + "/torch/lib/"
    sysl = "/lib/x86_64-linux-gnu/" if job.py != "3.10" or job.ngc else "/usr/lib/x86_64-linux-gnu/"
    a = lambda: "0x%x" % rng.randrange(0x7f0000000000, 0x7fffffffffff)
    if kind == "timeout":
        fr = [("c10::Error::Error(c10::SourceLocation, std::string) + 0x96", lib + "libc10.so"),
              ("c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >) + 0x1d2", lib + "libtorch_cuda.so"),
              ("c10d::ProcessGroupNCCL::watchdogHandler() + 0x233", lib + "libtorch_cuda.so"),
              ("c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d", lib + "libtorch_cuda.so")]
    elif kind == "ncclerr":
        fr = [("c10::Error::Error(c10::SourceLocation, std::string) + 0x96", lib + "libc10.so"),
              ("c10d::ProcessGroupNCCL::checkForNCCLErrorsInternal(std::shared_ptr<c10d::NCCLComm>&) + 0x220", lib + "libtorch_cuda.so"),
              ("c10d::ProcessGroupNCCL::WorkNCCL::checkAndSetException() + 0x7c", lib + "libtorch_cuda.so"),
              ("c10d::ProcessGroupNCCL::watchdogHandler() + 0x213", lib + "libtorch_cuda.so"),
              ("c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d", lib + "libtorch_cuda.so")]
    elif kind == "cuda":
        fr = [("c10::Error::Error(c10::SourceLocation, std::string) + 0x96", lib + "libc10.so"),
              ("c10::detail::torchCheckFail(char const*, char const*, unsigned int, std::string const&) + 0x64", lib + "libc10.so"),
              ("c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, int, bool) + 0x118", lib + "libc10_cuda.so"),
              ("c10d::ProcessGroupNCCL::WorkNCCL::finishedGPUExecutionInternal() const + 0x56", lib + "libtorch_cuda.so"),
              ("c10d::ProcessGroupNCCL::WorkNCCL::isCompleted() + 0xa0", lib + "libtorch_cuda.so"),
              ("c10d::ProcessGroupNCCL::watchdogHandler() + 0x1f0", lib + "libtorch_cuda.so"),
              ("c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d", lib + "libtorch_cuda.so")]
    else:  # watchdog loop rethrow
        fr = [("c10::Error::Error(c10::SourceLocation, std::string) + 0x96", lib + "libc10.so"),
              ("<unknown function> + 0xe5aa84", lib + "libtorch_cuda.so")]
    fr += [("<unknown function> + 0xdc253", sysl + "libstdc++.so.6"),
           ("<unknown function> + 0x94ac3", sysl + "libc.so.6"),
           ("clone + 0x44" if sysl.startswith("/lib") else "clone + 0x43", sysl + "libc.so.6")]
    bases = {}
    out = []
    for i, (f, lib_) in enumerate(fr):
        if lib_ not in bases:
            bases[lib_] = rng.randrange(0x7f0000000000, 0x7fffff000000) & ~0xfff
        m = re.search(r"\+ (0x[0-9a-f]+)$", f)
        off = int(m.group(1), 16) if m else rng.randrange(0x1000, 0x400000)
        out.append("frame #%d: %s (0x%x in %s)" % (i, f, bases[lib_] + off + rng.randrange(0x10000, 0x2000000) * (0 if "unknown" in f else 1), lib_))
    return out


def terminate_block(job, rng, what, kind, raised_from, line):
    etype = "c10::DistBackendError" if job.tv >= (2, 2) and kind != "cuda" else (
        "c10::Error" if kind == "cuda" else "std::runtime_error")
    out = ["terminate called after throwing an instance of '%s'" % etype]
    w = what.split("\n")
    out.append("  what():  " + w[0])
    out += w[1:]
    if job.tv >= (2, 1):
        if kind == "cuda":
            c10root = job.csrc[:-len("torch/csrc")] if job.csrc.endswith("torch/csrc") else "../"
            loc = "%sc10/cuda/CUDAException.cpp:%d" % (c10root, line)
        else:
            loc = "%s/distributed/c10d/ProcessGroupNCCL.cpp:%d" % (job.csrc, line)
        out.append("Exception raised from %s at %s (most recent call first):" % (raised_from, loc))
        out += cpp_frames(job, rng, kind)
        out.append("")
        if job.tv >= (2, 4):
            out.append("Exception raised from ncclCommWatchdog at %s/distributed/c10d/ProcessGroupNCCL.cpp:%d (most recent call first):"
                       % (job.csrc, job.c10l["wdloop"]))
            out += cpp_frames(job, rng, "loop")
            out.append("")
    return out


def watchdog_recs(job, r, rng, seq, op, nin, nout, ran_ms, enq, comp):
    """c10 log records + raw terminate text for a collective timeout on rank r."""
    c, P = job.c10l, "ProcessGroupNCCL.cpp"
    caught = "[Rank %d] Watchdog caught collective operation timeout: %s ran for %d milliseconds before timing out." % (
        r, work_desc(job, seq, op, nin, nout), ran_ms)
    recs = [("E", P, c["wd"], caught)]
    tag = pg_tag(job, r)
    if job.tv >= (2, 4):
        recs.append(("E", P, c["exc"], "%s Exception (either an error or timeout) detected by watchdog at work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (tag, seq, enq, comp)))
        recs.append(("E", P, c["tmo"], "%s Timeout at NCCL work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (tag, seq, enq, comp)))
    some = "Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data."
    avoid = "To avoid data inconsistency, we are taking the entire process down."
    if job.tv >= (2, 4):
        some, avoid = "[Rank %d] %s" % (r, some), "[Rank %d] %s" % (r, avoid)
    recs += [("E", P, c["some"], some), ("E", P, c["avoid"], avoid)]
    if job.tv >= (2, 3):
        term = "%s Process group watchdog thread terminated with exception: %s" % (tag, caught)
    else:
        term = "[Rank %d] NCCL watchdog thread terminated with exception: %s" % (r, caught)
    recs.append(("E", P, c["term"], term))
    raw = terminate_block(job, rng, term, "timeout", "checkTimeout", c["chk"])
    return recs, raw


def dump_signal_recs(job, r, from_rank, enq, comp):
    """torch >= 2.5 flight-recorder dump signal lines (seen on every rank after a timeout)."""
    c, P = job.c10l, "ProcessGroupNCCL.cpp"
    tag = pg_tag(job, r)
    out = []
    if from_rank != r:
        out.append(("E", P, c["fr"], "%s Observed flight recorder dump signal from another rank via TCPStore." % tag))
        src = " rank %d" % from_rank
    else:
        src = "this local rank"
    out.append(("E", P, c["dump"], "%s Received a dump signal due to a collective timeout from %s and we will try our best to dump the debug info. Last enqueued NCCL work: %d, last completed NCCL work: %d.This is most likely caused by incorrect usages of collectives, e.g., wrong sizes used across ranks, the order of collectives is not same for all ranks or the scheduled collective, for some reason, didn't run. Additionally, this can be caused by GIL deadlock or other reasons such as network errors or bugs in the communications library (e.g. NCCL), etc. " % (tag, src, enq, comp)))
    return out


def nccl_error_text(job, kind, last):
    if job.tv >= (2, 4):
        path = "%s/distributed/c10d/NCCLUtils.hpp:%d" % (job.csrc, 268 if job.tv >= (2, 6) else 317)
    else:
        path = "%s/distributed/c10d/ProcessGroupNCCL.cpp:%d" % (job.csrc, job.c10l["nccl_err"])
    short, long_ = {
        "remote": ("remote process exited or there was a network error",
                   "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely."),
        "cuda": ("unhandled cuda error (run with NCCL_DEBUG=INFO for details)",
                 "ncclUnhandledCudaError: Call to CUDA function failed."),
        "system": ("unhandled system error (run with NCCL_DEBUG=INFO for details)",
                   "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. \nIt can be also caused by unexpected exit of a remote peer, you can check NCCL warnings for failure reason and see if there is connection closure by a peer."),
        "internal": ("internal error - please report this issue to the NCCL developers",
                     "ncclInternalError: Internal check failed."),
    }[kind]
    return "NCCL error in: %s, %s, NCCL version %s\n%s\nLast error:\n%s" % (path, short, job.nccl, long_, last)


def nccl_async_recs(job, r, rng, kind, last, seq, enq, comp):
    """NCCL error surfaced by the watchdog (async error handling) -> SIGABRT."""
    c, P = job.c10l, "ProcessGroupNCCL.cpp"
    tag = pg_tag(job, r)
    txt = nccl_error_text(job, kind, last).replace("NCCL error in: ", "NCCL error in: ", 1)
    # async path prints without the file location prefix on older versions
    if job.tv < (2, 4):
        txt = "NCCL error: " + txt.split(", ", 1)[1]
    recs = []
    if job.tv >= (2, 4):
        recs.append(("E", P, c["exc"], "%s Exception (either an error or timeout) detected by watchdog at work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (tag, seq, enq, comp)))
    some = "Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data."
    avoid = "To avoid data inconsistency, we are taking the entire process down."
    if job.tv >= (2, 4):
        some, avoid = "[Rank %d] %s" % (r, some), "[Rank %d] %s" % (r, avoid)
    recs += [("E", P, c["some"], some), ("E", P, c["avoid"], avoid)]
    if job.tv >= (2, 3):
        term = "%s Process group watchdog thread terminated with exception: %s" % (tag, txt)
    else:
        term = "[Rank %d] NCCL watchdog thread terminated with exception: %s" % (r, txt)
    recs.append(("E", P, c["term"], term))
    raw = terminate_block(job, rng, term, "ncclerr", "checkForNCCLErrorsInternal", c["chk"] + 1180)
    return recs, raw


def nccl_warn(job, r, rng, src, msg, tid=None):
    return "%s %s NCCL WARN %s" % (job.nccl_prefix(r, tid), src, msg)


def ib_completion_warn(job, r, rng, peer_node, status=12, vendor=129, opcode=0):
    """NET/IB completion error as printed by the NCCL version in use."""
    l = job.local_of(r)
    port = rng.randint(32768, 60999)
    peer = "%s<%d>" % (job.ips[peer_node], port)
    nk = net_kind(job)
    tid = job.tids[r] + 11
    if nk == "ofi":
        msg = "NET/OFI Request %s completed with error. RC: %d. Error: %d (%s). Completed length: 0" % (
            hexaddr(rng), 113 if status == 12 else 5, 2 if status == 12 else 13,
            "UNDELIVERABLE" if status == 12 else "Permission denied")
        return ["%s NCCL WARN %s" % (job.nccl_prefix(r, tid), msg),
                "%s NCCL INFO transport/net.cc:%d -> 6" % (job.nccl_prefix(r, tid), 1298 if job.nv < (2, 23) else 1340)], msg
    src = "transport/net_ib.cc:%d" % (1696 if job.nv < (2, 20) else 2360 if job.nv >= (2, 23) else 1969)
    if job.nv >= (2, 19):
        msg = "NET/IB : Got completion from peer %s with status=%d opcode=%d len=0 vendor err %d (%s) localGid %s remoteGids%s" % (
            peer, status, opcode, vendor, "Recv" if opcode == 0 else "Send", gid(job, job.node_of(r)), gid(job, peer_node))
        if job.nv >= (2, 23):
            msg += " hca %s" % hca_of(job, l)
    else:
        msg = "NET/IB : Got completion from peer %s with error %d, opcode %d, len 0, vendor err %d (%s)" % (
            peer, status, opcode, vendor, "Recv" if opcode == 0 else "Send")
    p = job.nccl_prefix(r, tid)
    return ["%s %s NCCL WARN %s" % (p, src, msg),
            "%s NCCL INFO transport/net.cc:%d -> 6" % (p, 1298 if job.nv < (2, 23) else 1340),
            "%s NCCL INFO proxy.cc:%d -> 6" % (p, 694 if job.nv < (2, 23) else 738),
            "%s NCCL INFO proxy.cc:%d -> 6 [Progress Thread]" % (p, 874 if job.nv < (2, 23) else 918)], msg


def socket_closed_warn(job, r, rng, peer_node):
    p = job.nccl_prefix(r, job.tids[r] + 3)
    port = rng.randint(32768, 60999)
    if job.nv >= (2, 19):
        m = "socketProgressOpt: Call to recv from %s<%d> failed : Connection reset by peer" % (job.ips[peer_node], port)
        src = "misc/socket.cc:%d" % (49 if job.nv >= (2, 20) else 47)
    else:
        m = "Net : Connection closed by remote peer %s<%d>" % (job.fqdn[peer_node], port)
        src = "misc/socket.cc:538"
    return ["%s %s NCCL WARN %s" % (p, src, m), "%s NCCL INFO misc/socket.cc:%d -> 6" % (p, 57 if job.nv >= (2, 19) else 535)], m


def cuda_failure_warn(job, r, key, src=None):
    code, s = CUDA_ERR[key]
    src = src or ("enqueue.cc:%d" % (1556 if job.nv < (2, 21) else 1664))
    if job.nv >= (2, 20):
        m = "Cuda failure %d '%s'" % (code, s)
    else:
        m = "Cuda failure '%s'" % s
    return "%s %s NCCL WARN %s" % (job.nccl_prefix(r), src, m), m


def cuda_rt_msg(job, key):
    s = CUDA_ERR[key][1]
    m = ("CUDA error: %s\nCUDA kernel errors might be asynchronously reported at some other API call, "
         "so the stacktrace below might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1" % s)
    if job.tv >= (2, 1):
        m += "\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n"
    return m


def oom_msg(job, rng, dev, pid):
    cap = job.gpu_cap
    tried = pick(rng, ["1.96 GiB", "512.00 MiB", "3.91 GiB", "784.00 MiB", "10.00 GiB", "1.25 GiB"])
    free = rng.uniform(0.1, 0.9)
    inuse = cap - free
    alloc = inuse - rng.uniform(1.0, 4.5)
    resv = inuse - alloc - rng.uniform(0.3, 0.8)
    if job.tv >= (2, 5):
        return "torch.OutOfMemoryError", (
            "CUDA out of memory. Tried to allocate %s. GPU %d has a total capacity of %.2f GiB of which %.2f MiB is free. "
            "Including non-PyTorch memory, this process has %.2f GiB memory in use. Of the allocated memory %.2f GiB is "
            "allocated by PyTorch, and %.2f GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory "
            "is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation "
            "for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)"
            % (tried, dev, cap, free * 1024, inuse, alloc, resv))
    if job.tv >= (2, 2):
        return "torch.cuda.OutOfMemoryError", (
            "CUDA out of memory. Tried to allocate %s. GPU %d has a total capacity of %.2f GiB of which %.2f MiB is free. "
            "Process %d has %.2f GiB memory in use. Of the allocated memory %.2f GiB is allocated by PyTorch, and %.2f GiB "
            "is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting "
            "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory "
            "Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)"
            % (tried, dev, cap, free * 1024, pid, inuse, alloc, resv))
    return "torch.cuda.OutOfMemoryError", (
        "CUDA out of memory. Tried to allocate %s. GPU %d has a total capacty of %.2f GiB of which %.2f MiB is free. "
        "Process %d has %.2f GiB memory in use. Of the allocated memory %.2f GiB is allocated by PyTorch, and %.2f GiB "
        "is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting max_split_size_mb "
        "to avoid fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF"
        % (tried, dev, cap, free * 1024, pid, inuse, alloc, resv))


def pname(job, rng):
    if job.tv >= (2, 2) and rng.random() < 0.5:
        return "pt_main_thread"
    return pick(rng, ["python", "python3", "python3.%s" % job.py.split(".")[1]])


def xid_line(job, local, code, pid, name, text):
    bus = job.bus[local]
    if pid is None:
        return "NVRM: Xid (PCI:0000:%s:00): %d, pid='<unknown>', name=<unknown>, %s" % (bus, code, text)
    return "NVRM: Xid (PCI:0000:%s:00): %d, pid=%d, name=%s, %s" % (bus, code, pid, name, text)


def kernel_oom_block(job, rng, node, victim_pid, victim_name, cgroup, invoker_pid, invoker):
    kver = pick(rng, ["5.15.0-105-generic #115-Ubuntu", "6.8.0-49-generic #49~22.04.1-Ubuntu",
                      "5.14.0-427.13.1.el9_4.x86_64 #1", "6.5.0-1024-aws #24~22.04.1-Ubuntu",
                      "6.1.0-26-cloud-amd64 #1 Debian 6.1.112-1"])
    anon = rng.randrange(180000000, 1900000000)
    lines = [
        "%s invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0" % invoker,
        "CPU: %d PID: %d Comm: %s Tainted: P           OE      %s" % (rng.randint(0, 191), invoker_pid, invoker[:15], kver),
        "Hardware name: %s" % pick(rng, ["Supermicro SYS-821GE-TNHR/X13DEG-OAD, BIOS 2.1 04/03/2024",
                                         "NVIDIA DGXH100/DGXH100, BIOS 1.5.0 05/30/2024",
                                         "Amazon EC2 p5.48xlarge/, BIOS 1.0 10/16/2017",
                                         "Dell Inc. PowerEdge XE9680/0K9FG7, BIOS 2.2.8 06/07/2024"]),
        "Call Trace:", " <TASK>", " dump_stack_lvl+0x4a/0x63", " dump_header+0x4a/0x1f4",
        " oom_kill_process.cold+0xb/0x10", " out_of_memory+0x106/0x2e0",
        " %s+0x%x/0x%x" % (pick(rng, ["mem_cgroup_out_of_memory", "__alloc_pages_slowpath.constprop.0"]),
                            rng.randrange(0x80, 0x9ff), rng.randrange(0xa00, 0xfff)),
        " handle_mm_fault+0xd8/0x2c0", " do_user_addr_fault+0x1c9/0x670", " exc_page_fault+0x77/0x170",
        " asm_exc_page_fault+0x27/0x30", " </TASK>",
    ]
    if cgroup:
        lines.append("memory: usage %dkB, limit %dkB, failcnt %d" % (anon + 4000000, anon + 4000000, rng.randint(1, 90)))
        lines.append("oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=%s,mems_allowed=0-1,oom_memcg=%s,task_memcg=%s,task=%s,pid=%d,uid=%d"
                     % (cgroup.split("/")[-1][:20], cgroup, cgroup, victim_name, victim_pid, rng.choice([0, 1000, 1001, 2345])))
        lines.append("Memory cgroup out of memory: Killed process %d (%s) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:%d pgtables:%dkB oom_score_adj:0"
                     % (victim_pid, victim_name, anon * 3 + 9000000, anon, rng.randrange(100000, 900000),
                        rng.randrange(1000, 90000), 1000, rng.randrange(100000, 900000)))
    else:
        lines.append("oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0-1,global_oom,task_memcg=/user.slice/user-1000.slice/session-%d.scope,task=%s,pid=%d,uid=1000"
                     % (rng.randint(2, 900), victim_name, victim_pid))
        lines.append("Out of memory: Killed process %d (%s) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:1000 pgtables:%dkB oom_score_adj:0"
                     % (victim_pid, victim_name, anon * 3 + 9000000, anon, rng.randrange(100000, 900000),
                        rng.randrange(1000, 90000), rng.randrange(100000, 900000)))
    lines.append("oom_reaper: reaped process %d (%s), now anon-rss:0kB, file-rss:0kB, shmem-rss:%dkB"
                 % (victim_pid, victim_name, rng.randrange(1000, 90000)))
    return lines


def segv_kernel_line(job, rng, pid, name, lib):
    ip = rng.randrange(0x7f0000000000, 0x7fffffffffff)
    base = ip - rng.randrange(0x10000, 0x400000)
    return ["%s[%d]: segfault at %x ip %012x sp %012x error %d in %s[%x+%x] likely on CPU %d (core %d, socket %d)"
            % (name, pid, pick(rng, [0, 8, 0x18, 0x7f3a00000010]), ip, rng.randrange(0x7ff000000000, 0x7fffffffffff),
               pick(rng, [4, 6, 4]), lib, base, rng.randrange(0x100000, 0x6000000), rng.randint(0, 191),
               rng.randint(0, 47), rng.randint(0, 1)),
            "Code: %s" % " ".join("%02x" % rng.randrange(256) for _ in range(20))]


def pywarn_lines(job, rng, which):
    s = job.site
    if which == "reentrant":
        return ["%s/torch/utils/checkpoint.py:%d: UserWarning: torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. In version 2.5 we will raise an exception if use_reentrant is not passed. use_reentrant=False is recommended, but if you need to preserve the current default behavior, you can pass use_reentrant=True. Refer to docs for more details on the differences between the two variants." % (s, pick(rng, [464, 1399, 87])),
                "  return fn(*args, **kwargs)"]
    if which == "lr":
        return ["%s/torch/optim/lr_scheduler.py:%d: UserWarning: Detected call of `lr_scheduler.step()` before `optimizer.step()`. In PyTorch 1.1.0 and later, you should call them in the opposite order: `optimizer.step()` before `lr_scheduler.step()`.  Failure to do this will result in PyTorch skipping the first value of the learning rate schedule. See more details at https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate" % (s, pick(rng, [143, 216, 224])),
                "  warnings.warn("]
    if which == "tf32":
        return ["%s/torch/backends/cuda/__init__.py:%d: UserWarning: Please use the new API settings to control TF32 behavior, such as torch.backends.cudnn.conv.fp32_precision = 'tf32' or torch.backends.cuda.matmul.fp32_precision = 'ieee'. Old settings, e.g, torch.backends.cuda.matmul.allow_tf32 = True, torch.backends.cudnn.allow_tf32 = True, allowTF32CuDNN() and allowTF32CuBLAS() will be deprecated after Pytorch 2.9." % (s, 131),
                "  return torch._C._get_cublas_allow_tf32()"]
    return ["%s/torch/distributed/fsdp/_init_utils.py:%d: UserWarning: FSDP is switching to use `NO_SHARD` instead of ShardingStrategy.FULL_SHARD since the world size is 1." % (s, 444),
            "  warnings.warn("]


# --------------------------------------------------------------------------------------
# Python frames and exception renderers (plain / Rich / loguru)
# --------------------------------------------------------------------------------------

def F(file, line, func, code, before=(), after=(), loc=(), ann=None, lib=False):
    return dict(file=file, line=line, func=func, code=code, before=list(before), after=list(after),
                loc=list(loc), ann=ann or {}, lib=lib)


def obj(rng, name):
    return "<%s object at %s>" % (name, hexaddr(rng, 0x7f0000000000, 0x7fffffffffff))


def user_script(job):
    return {"lightning": "train.py", "hf": "sft.py", "custom": "train.py", "titan": "torchtitan/train.py",
            "deepspeed": "pretrain.py", "swift": "cli.py"}[job.framework]


def outer_frames(job, rng, where):
    """frames from the entry point down to the user's training step."""
    S, R = job.site, job.root
    fw = job.framework
    fr = []
    if fw == "lightning":
        fr.append(F(R + "/train.py", 188, "<module>", "main()", ["", 'if __name__ == "__main__":'], [],
                    ann={"main": "<function main at %s>" % hexaddr(rng)}))
        fr.append(F(R + "/train.py", 181, "main", "trainer.fit(model, datamodule=dm, ckpt_path=cfg.resume)",
                    ["    )", "    model = LitCausalLM(cfg.model, cfg.optim)", "    dm = TokenDataModule(cfg.data)"],
                    ["", ""], loc=[("cfg", "{'model': {...}, 'optim': {...}, 'data': {...}, 'trainer': {...}}"),
                                   ("dm", obj(rng, "data.TokenDataModule")), ("model", "LitCausalLM(\n  (model): ...)"),
                                   ("trainer", obj(rng, "lightning.pytorch.trainer.trainer.Trainer"))],
                    ann={"trainer": obj(rng, "lightning.pytorch.trainer.trainer.Trainer"), "model": "LitCausalLM(...)",
                         "dm": obj(rng, "data.TokenDataModule")}))
        L = S + "/lightning/pytorch/"
        fr += [F(L + "trainer/trainer.py", 538, "fit", "call._call_and_handle_interrupt(", lib=True),
               F(L + "trainer/call.py", 46, "_call_and_handle_interrupt", "return trainer_fn(*args, **kwargs)", lib=True),
               F(L + "trainer/trainer.py", 574, "_fit_impl", "self._run(model, ckpt_path=ckpt_path)", lib=True),
               F(L + "trainer/trainer.py", 981, "_run", "results = self._run_stage()", lib=True),
               F(L + "trainer/trainer.py", 1025, "_run_stage", "self.fit_loop.run()", lib=True),
               F(L + "loops/fit_loop.py", 205, "run", "self.advance()", lib=True),
               F(L + "loops/fit_loop.py", 363, "advance", "self.epoch_loop.run(self._data_fetcher)", lib=True),
               F(L + "loops/training_epoch_loop.py", 140, "run", "self.advance(data_fetcher)", lib=True)]
        if where in ("data_worker", "data_timeout"):
            fr += [F(L + "loops/training_epoch_loop.py", 212, "advance", "batch, _, __ = next(data_fetcher)", lib=True),
                   F(L + "loops/fetchers.py", 133, "__next__", "batch = super().__next__()", lib=True),
                   F(L + "loops/fetchers.py", 60, "__next__", "batch = next(self.iterator)", lib=True),
                   F(L + "utilities/combined_loader.py", 341, "__next__", "out = next(self._iterator)", lib=True),
                   F(L + "utilities/combined_loader.py", 78, "__next__", "out[i] = next(self.iterators[i])", lib=True)]
        else:
            fr += [F(L + "loops/training_epoch_loop.py", 250, "advance",
                     "batch_output = self.automatic_optimization.run(trainer.optimizers[0], batch_idx, kwargs)", lib=True),
                   F(L + "loops/optimization/automatic.py", 190, "run", "self._optimizer_step(batch_idx, closure)", lib=True),
                   F(L + "loops/optimization/automatic.py", 268, "_optimizer_step", "call._call_lightning_module_hook(", lib=True),
                   F(L + "core/module.py", 1306, "optimizer_step", "optimizer.step(closure=optimizer_closure)", lib=True),
                   F(L + "strategies/ddp.py", 270, "optimizer_step", "optimizer_output = super().optimizer_step(optimizer, closure, model, **kwargs)", lib=True),
                   F(L + "plugins/precision/amp.py", 76, "optimizer_step", "closure_result = closure()", lib=True),
                   F(L + "loops/optimization/automatic.py", 144, "__call__", "self._result = self.closure(*args, **kwargs)", lib=True)]
            if where == "bwd":
                fr += [F(L + "loops/optimization/automatic.py", 138, "closure", "self._backward_fn(step_output.closure_loss)", lib=True),
                       F(L + "loops/optimization/automatic.py", 239, "backward_fn", "call._call_strategy_hook(self.trainer, \"backward\", loss, optimizer)", lib=True),
                       F(L + "trainer/call.py", 319, "_call_strategy_hook", "output = fn(*args, **kwargs)", lib=True),
                       F(L + "strategies/strategy.py", 212, "backward", "self.precision_plugin.backward(closure_loss, self.lightning_module, optimizer, *args, **kwargs)", lib=True),
                       F(L + "plugins/precision/precision.py", 72, "backward", "model.backward(tensor, *args, **kwargs)", lib=True),
                       F(L + "core/module.py", 1101, "backward", "loss.backward(*args, **kwargs)", lib=True)]
                return fr
            fr += [F(L + "loops/optimization/automatic.py", 129, "closure", "step_output = self._step_fn()", lib=True),
                   F(L + "loops/optimization/automatic.py", 317, "_training_step", "training_step_output = call._call_strategy_hook(trainer, \"training_step\", *kwargs.values())", lib=True),
                   F(L + "trainer/call.py", 319, "_call_strategy_hook", "output = fn(*args, **kwargs)", lib=True),
                   F(L + "strategies/strategy.py", 389, "training_step", "return self._forward_redirection(self.model, self.lightning_module, \"training_step\", *args, **kwargs)", lib=True),
                   F(L + "strategies/strategy.py", 640, "__call__", "wrapper_output = wrapper_module(*args, **kwargs)", lib=True)]
            fr += ddp_frames(job)
            fr.append(F(L + "strategies/strategy.py", 633, "wrapped_forward", "out = method(*_args, **_kwargs)", lib=True))
            fr.append(F(R + "/model.py", 97, "training_step", "logits = self.model(batch[\"input_ids\"])" if where == "fwd" else
                        "loss = self.loss_fn(logits.view(-1, logits.size(-1)), batch[\"labels\"].view(-1))",
                        ["    def training_step(self, batch, batch_idx):", "        self._maybe_log_grad_norm(batch_idx)"],
                        ["        self.log(\"train_loss\", loss, prog_bar=True, sync_dist=False)", "        return loss"],
                        loc=[("batch", "{'input_ids': tensor([[ 1212,   318, ...]], device='cuda:%d'), 'labels': ...}" % job.local_of(getattr(job, "_exc_rank", 0))),
                             ("batch_idx", str(job.fail_step % 5000)), ("self", "LitCausalLM(...)")],
                        ann={"self": "LitCausalLM(...)", "batch": "{'input_ids': tensor([[ 1212, ...]])}"}))
    elif fw in ("hf", "swift"):
        if fw == "swift":
            fr.append(F(R + "/cli.py", 142, "<module>", "app()", ["", 'if __name__ == "__main__":'], []))
            T = S + "/typer/"
            fr += [F(T + "main.py", 340, "__call__", "raise e", lib=True),
                   F(T + "main.py", 323, "__call__", "return get_command(self)(*args, **kwargs)", lib=True),
                   F(S + "/click/core.py", 1161, "__call__", "return self.main(*args, **kwargs)", lib=True),
                   F(T + "main.py", 743, "wrapper", "return callback(**use_params)", lib=True),
                   F(R + "/cli.py", 118, "sft", "sft_main(args)",
                     ["    args = build_args(cfg, overrides)", "    console.log(f\"[bold]launching[/] {args.model}\")"],
                     ["", ""], loc=[("cfg", "PosixPath('configs/%s.yaml')" % job.model_name), ("overrides", "['--max_steps', '%d']" % job.max_steps)]),
                   F(S + "/swift/llm/train/sft.py", 281, "sft_main", "return SwiftSft(args).main()", lib=True),
                   F(S + "/swift/llm/base.py", 47, "main", "result = self.run()", lib=True),
                   F(S + "/swift/llm/train/sft.py", 146, "run", "return self.train(trainer)", lib=True),
                   F(S + "/swift/llm/train/sft.py", 205, "train", "trainer.train(trainer.args.resume_from_checkpoint)", lib=True),
                   F(S + "/swift/trainers/mixin.py", 421, "train", "res = super().train(*args, **kwargs)", lib=True)]
        else:
            fr.append(F(R + "/sft.py", 231, "<module>", "main()", ["", 'if __name__ == "__main__":'], [],
                        ann={"main": "<function main at %s>" % hexaddr(rng)}))
            fr.append(F(R + "/sft.py", 224, "main", "trainer.train(resume_from_checkpoint=args.resume)",
                        ["        callbacks=[StepTimer(), GpuMemLogger()],", "    )", '    logger.info("starting training")'],
                        ["    trainer.save_model()", ""],
                        ann={"trainer": obj(rng, "transformers.trainer.Trainer"), "args": "Namespace(model='%s', ...)" % job.model_name,
                             "args.resume": "None"}))
        H = S + "/transformers/"
        fr += [F(H + "trainer.py", 2245, "train", "return inner_training_loop(", lib=True)]
        if where in ("data_worker", "data_timeout"):
            fr += [F(H + "trainer.py", 2514, "_inner_training_loop", "batch_samples, num_items_in_batch = self.get_batch_samples(epoch_iterator, num_batches)", lib=True),
                   F(H + "trainer.py", 5243, "get_batch_samples", "batch_samples += [next(epoch_iterator)]", lib=True),
                   F(S + "/accelerate/data_loader.py", 566, "__iter__", "current_batch = next(dataloader_iter)", lib=True)]
        elif where == "item":
            fr += [F(H + "trainer.py", 2569, "_inner_training_loop", "and (torch.isnan(tr_loss_step) or torch.isinf(tr_loss_step))", lib=True)]
        elif where == "optim":
            fr += [F(H + "trainer.py", 2623, "_inner_training_loop", "self.optimizer.step()", lib=True),
                   F(S + "/accelerate/optimizer.py", 171, "step", "self.optimizer.step(closure)", lib=True),
                   F(S + "/torch/optim/lr_scheduler.py", 130 if job.tv < (2, 5) else 137, "wrapper", "return func.__get__(opt, opt.__class__)(*args, **kwargs)", lib=True),
                   F(S + "/torch/optim/optimizer.py", 484 if job.tv < (2, 5) else 487, "wrapper", "out = func(*args, **kwargs)", lib=True),
                   F(S + "/torch/optim/adamw.py", 227 if job.tv < (2, 5) else 220, "step", "adamw(", lib=True),
                   F(S + "/torch/optim/adamw.py", 767 if job.tv < (2, 5) else 782, "adamw", "func(", lib=True),
                   F(S + "/torch/optim/adamw.py", 596 if job.tv < (2, 5) else 563, "_multi_tensor_adamw", "torch._foreach_lerp_(device_exp_avgs, device_grads, 1 - beta1)", lib=True)]
        else:
            fr += [F(H + "trainer.py", 2560, "_inner_training_loop", "tr_loss_step = self.training_step(model, inputs, num_items_in_batch)", lib=True)]
            if where == "bwd":
                fr += [F(H + "trainer.py", 3782, "training_step", "self.accelerator.backward(loss, **kwargs)", lib=True),
                       F(S + "/accelerate/accelerator.py", 2246, "backward", "loss.backward(**kwargs)", lib=True)]
            elif where in ("fwd", "user"):
                fr += [F(H + "trainer.py", 3740, "training_step", "loss = self.compute_loss(model, inputs, num_items_in_batch=num_items_in_batch)", lib=True),
                       F(R + "/sft.py" if fw == "hf" else S + "/swift/trainers/trainers.py", 141 if fw == "hf" else 289, "compute_loss",
                         "outputs = model(**inputs)" if where == "fwd" else "loss = self.token_loss(outputs.logits, inputs[\"labels\"], mask=inputs[\"loss_mask\"])",
                         ["    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):",
                          "        inputs = self._maybe_pack(inputs)"], ["        if self.state.global_step % 50 == 0:", ""],
                         ann={"model": "DistributedDataParallel(...)", "inputs": "{'input_ids': tensor([[...]]), 'attention_mask': ...}"},
                         lib=fw == "swift")]
                if where == "fwd":
                    fr += ddp_frames(job)
    elif fw == "titan":
        T = job.root + "/torchtitan/"
        fr += [F(S + "/torch/distributed/elastic/multiprocessing/errors/__init__.py", 355, "wrapper", "return f(*args, **kwargs)", lib=True),
               F(T + "train.py", 561, "train", "self.train_step(data_iterator)" if where not in ("data_worker", "data_timeout") else "batch = next(data_iterator)",
                 ["            self.step += 1", "            self.gc_handler.run(self.step)"],
                 ["", "            # log metrics"], loc=[("self", obj(rng, "torchtitan.train.Trainer"))])]
        if where not in ("data_worker", "data_timeout"):
            fr += [F(T + "train.py", 483, "train_step", "loss = self.forward_backward_step(input_dict, labels)",
                     ["        self.optimizers.zero_grad()", "        input_dict, labels = self.batch_generator(data_iterator)"], [""]),
                   F(T + "train.py", 458, "forward_backward_step",
                     "pred = model_parts[0](inputs)" if where == "fwd" else "loss.backward()",
                     ["            with self.maybe_enable_amp:", "                pred = model_parts[0](inputs)" if where != "fwd" else "                # (B, S, V)",
                      "                loss = self.loss_fn(pred, labels)"], ["", "        return loss"])]
    elif fw == "deepspeed":
        fr.append(F(R + "/pretrain.py", 402, "<module>", "main(args)", ["    args = parse_args()"], []))
        fr.append(F(R + "/pretrain.py", 341, "main", "loss = engine(batch)" if where == "fwd" else "engine.backward(loss)" if where == "bwd" else "batch = next(train_iter)" if where.startswith("data") else "engine.step()",
                    ["        for step, batch in enumerate(train_iter, start=start_step):" if not where.startswith("data") else "        while step < args.max_steps:",
                     "            batch = to_device(batch, engine.device)"], ["", "            if engine.global_rank == 0 and step % args.log_interval == 0:"],
                    loc=[("engine", obj(rng, "deepspeed.runtime.engine.DeepSpeedEngine")), ("step", str(job.fail_step))]))
        D = S + "/deepspeed/"
        if where == "fwd":
            fr += [F(S + "/torch/nn/modules/module.py", 1736, "_wrapped_call_impl", "return self._call_impl(*args, **kwargs)", lib=True),
                   F(S + "/torch/nn/modules/module.py", 1747, "_call_impl", "return forward_call(*args, **kwargs)", lib=True),
                   F(D + "utils/nvtx.py", 18, "wrapped_fn", "ret_val = func(*args, **kwargs)", lib=True),
                   F(D + "runtime/engine.py", 1914, "forward", "loss = self.module(*inputs, **kwargs)", lib=True)]
        elif where == "bwd":
            fr += [F(D + "utils/nvtx.py", 18, "wrapped_fn", "ret_val = func(*args, **kwargs)", lib=True),
                   F(D + "runtime/engine.py", 2020, "backward", "self.optimizer.backward(loss, retain_graph=retain_graph)", lib=True),
                   F(D + "runtime/zero/stage_1_and_2.py", 2063, "backward", "self.loss_scaler.backward(loss.float(), retain_graph=retain_graph)", lib=True),
                   F(D + "runtime/fp16/loss_scaler.py", 63, "backward", "scaled_loss.backward(retain_graph=retain_graph)", lib=True)]
        elif where in ("optim", "collective", "item"):
            fr += [F(D + "runtime/engine.py", 2213, "step", "self._take_model_step(lr_kwargs)", lib=True),
                   F(D + "runtime/engine.py", 2119, "_take_model_step", "self.optimizer.step()", lib=True),
                   F(D + "runtime/zero/stage_1_and_2.py", 1841, "step", "self.check_overflow()", lib=True),
                   F(D + "runtime/zero/stage_1_and_2.py", 2007, "check_overflow", "self.overflow = self.has_overflow(partition_gradients)", lib=True),
                   F(D + "runtime/zero/stage_1_and_2.py", 1989, "has_overflow", "dist.all_reduce(overflow_gpu, op=dist.ReduceOp.MAX, group=self.dp_process_group)", lib=True),
                   F(D + "comm/comm.py", 117, "log_wrapper", "return func(*args, **kwargs)", lib=True),
                   F(D + "comm/comm.py", 496, "all_reduce", "return cdb.all_reduce(tensor, op, group, async_op)", lib=True),
                   F(D + "comm/torch.py", 159, "all_reduce", "return torch.distributed.all_reduce(tensor=tensor, op=op, group=group, async_op=async_op)", lib=True)]
    else:  # custom (hydra / absl)
        if job.layout == "absl-glog-bare":
            fr += [F(R + "/main.py", 96, "<module>", "app.run(main)", ["", 'if __name__ == "__main__":'], []),
                   F(S + "/absl/app.py", 308, "run", "_run_main(main, args)", lib=True),
                   F(S + "/absl/app.py", 254, "_run_main", "sys.exit(main(argv))", lib=True),
                   F(R + "/main.py", 88, "main", "trainer.fit(train_ds, eval_ds)",
                     ["  trainer = Trainer(config, workdir=FLAGS.workdir)", "  logging.info('Starting training loop')"], [""])]
        else:
            fr += [F(R + "/train.py", 64, "main", "fit(cfg, model, optimizer, loaders)",
                     ["    model, optimizer = build(cfg)", "    loaders = build_loaders(cfg.data, rank=rank, world_size=world)"], ["", ""],
                     loc=[("cfg", "{'model': {...}, 'data': {...}, 'optim': {...}}")])]
        lp = R + "/src/trainer/loop.py" if job.layout != "absl-glog-bare" else R + "/trainer/loop.py"
        fr.append(F(lp, 212, "fit" if job.layout != "absl-glog-bare" else "fit",
                    "batch = next(it)" if where.startswith("data") else "loss, metrics = train_step(model, batch, optimizer, scaler)",
                    ["        for step in range(start_step, cfg.max_steps):", "            t0 = time.perf_counter()"],
                    ["            if step % cfg.log_every == 0:", "                log_metrics(step, metrics)"],
                    loc=[("step", str(job.fail_step)), ("start_step", "0")], ann={"it": obj(rng, "torch.utils.data.dataloader._MultiProcessingDataLoaderIter")}))
        if not where.startswith("data"):
            fr.append(F(lp, 141, "train_step", {"fwd": "logits = model(batch[\"input_ids\"])", "bwd": "scaler.scale(loss).backward()",
                                                 "optim": "scaler.step(optimizer)", "item": "metrics = {\"loss\": loss.item(), \"grad_norm\": gnorm.item()}",
                                                 "collective": "dist.all_reduce(gnorm_sq, op=dist.ReduceOp.SUM)", "user": "loss = criterion(logits, batch[\"labels\"], batch[\"loss_mask\"])",
                                                 "ckpt": "loss = criterion(logits, batch[\"labels\"])"}.get(where, "logits = model(batch[\"input_ids\"])"),
                        ["    with torch.autocast(\"cuda\", dtype=torch.bfloat16):", "        logits = model(batch[\"input_ids\"])" if where != "fwd" else "        # forward"],
                        ["    gnorm = clip_grad_norm_(model.parameters(), max_norm=1.0)" if where != "optim" else "    scaler.update()", ""],
                        loc=[("batch", "{'input_ids': tensor(...), 'labels': tensor(...)}")]))
            if where == "fwd":
                fr += ddp_frames(job)
    return fr


def ddp_frames(job):
    S = job.site + "/torch/nn/"
    return [F(S + "modules/module.py", 1553 if job.tv < (2, 5) else 1736, "_wrapped_call_impl", "return self._call_impl(*args, **kwargs)", lib=True),
            F(S + "modules/module.py", 1562 if job.tv < (2, 5) else 1747, "_call_impl", "return forward_call(*args, **kwargs)", lib=True),
            F(S + "parallel/distributed.py", 1636 if job.tv < (2, 5) else 1643, "forward", "else self._run_ddp_forward(*inputs, **kwargs)", lib=True),
            F(S + "parallel/distributed.py", 1454 if job.tv < (2, 5) else 1459, "_run_ddp_forward", "return self.module(*inputs, **kwargs)  # type: ignore[index]", lib=True),
            F(S + "modules/module.py", 1553 if job.tv < (2, 5) else 1736, "_wrapped_call_impl", "return self._call_impl(*args, **kwargs)", lib=True),
            F(S + "modules/module.py", 1562 if job.tv < (2, 5) else 1747, "_call_impl", "return forward_call(*args, **kwargs)", lib=True)]


def inner_frames(job, rng, where):
    S = job.site
    if where == "fwd":
        M = job.root + "/models/transformer.py" if job.framework not in ("hf", "swift") else S + "/transformers/models/llama/modeling_llama.py"
        return [F(M, 312 if "models/transformer" in M else 1190, "forward", "h = layer(h, freqs_cis)" if "models/transformer" in M else "outputs = self.model(", lib="transformers" in M),
                F(S + "/torch/nn/modules/module.py", 1736, "_wrapped_call_impl", "return self._call_impl(*args, **kwargs)", lib=True),
                F(S + "/torch/nn/modules/module.py", 1747, "_call_impl", "return forward_call(*args, **kwargs)", lib=True),
                F(M, 188 if "models/transformer" in M else 614, "forward",
                  "out = F.scaled_dot_product_attention(q, k, v, is_causal=True)" if "models/transformer" in M else
                  "attn_output = torch.nn.functional.scaled_dot_product_attention(",
                  ["        q, k = apply_rotary_emb(q, k, freqs_cis=freqs_cis)", "        k, v = repeat_kv(k, self.n_rep), repeat_kv(v, self.n_rep)"],
                  ["        out = out.transpose(1, 2).contiguous().view(bsz, seqlen, -1)", "        return self.wo(out)"],
                  lib="transformers" in M, loc=[("bsz", "4"), ("seqlen", str(job.seq))])]
    if where == "bwd":
        T = S + "/torch/"
        return [F(T + "_tensor.py", 521 if job.tv < (2, 5) else 581, "backward", "torch.autograd.backward(", lib=True),
                F(T + "autograd/__init__.py", 289 if job.tv < (2, 5) else 347, "backward", "_engine_run_backward(", lib=True),
                F(T + "autograd/graph.py", 768 if job.tv < (2, 5) else 825, "_engine_run_backward",
                  "return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass", lib=True)]
    if where == "optim":
        T = S + "/torch/"
        return [F(T + "amp/grad_scaler.py", 454, "step", "retval = self._maybe_opt_step(optimizer, optimizer_state, *args, **kwargs)", lib=True),
                F(T + "amp/grad_scaler.py", 351, "_maybe_opt_step", "if not sum(v.item() for v in optimizer_state[\"found_inf_per_device\"].values()):", lib=True),
                F(T + "amp/grad_scaler.py", 351, "<genexpr>", "if not sum(v.item() for v in optimizer_state[\"found_inf_per_device\"].values()):", lib=True)]
    if where == "collective":
        T = S + "/torch/distributed/"
        return [F(T + "c10d_logger.py", 83 if job.tv >= (2, 4) else 75, "wrapper", "return func(*args, **kwargs)", lib=True),
                F(T + "distributed_c10d.py", 2501 if job.tv < (2, 5) else 2806, "all_reduce", "work = group.allreduce([tensor], opts)", lib=True)]
    if where in ("data_worker", "data_timeout"):
        T = S + "/torch/utils/data/"
        fr = [F(T + "dataloader.py", 631 if job.tv < (2, 5) else 701, "__next__", "data = self._next_data()", lib=True)]
        if where == "data_timeout":
            fr += [F(T + "dataloader.py", 1327 if job.tv < (2, 5) else 1448, "_next_data", "idx, data = self._get_data()", lib=True),
                   F(T + "dataloader.py", 1283 if job.tv < (2, 5) else 1404, "_get_data", "raise RuntimeError(f'DataLoader timed out after {self._timeout} seconds')", lib=True)]
        else:
            fr += [F(T + "dataloader.py", 1344 if job.tv < (2, 5) else 1465, "_next_data", "return self._process_data(data)", lib=True),
                   F(T + "dataloader.py", 1370 if job.tv < (2, 5) else 1491, "_process_data", "data.reraise()", lib=True),
                   F(S + "/torch/_utils.py", 706 if job.tv < (2, 5) else 733, "reraise", "raise exception", lib=True)]
        return fr
    if where == "ckpt":
        T = S + "/torch/"
        return [F(T + "serialization.py", 651 if job.tv < (2, 5) else 943, "save", "with _open_zipfile_writer(f) as opened_zipfile:", lib=True),
                F(T + "serialization.py", 525 if job.tv < (2, 5) else 811, "__init__", "super().__init__(torch._C.PyTorchFileWriter(self.name))", lib=True)]
    return []


def worker_original_tb(job, rng, etype, emsg, wid, fnf=False):
    S = job.site + "/torch/utils/data/"
    R = job.root
    lines = ["Original Traceback (most recent call last):",
             '  File "%s_utils/worker.py", line %d, in _worker_loop' % (S, 308 if job.tv < (2, 5) else 349),
             "    data = fetcher.fetch(index)  # type: ignore[possibly-undefined]"]
    if fnf:
        lines += ['  File "%s_utils/fetch.py", line 33, in fetch' % S,
                  "    data.append(next(self.dataset_iter))",
                  '  File "%s/data/shards.py", line 88, in __iter__' % R,
                  "    table = pq.read_table(path, columns=self.columns, memory_map=True)",
                  '  File "%s/pyarrow/parquet/core.py", line 1793, in read_table' % job.site,
                  "    dataset = ParquetDataset(",
                  '  File "%s/pyarrow/parquet/core.py", line 1371, in __init__' % job.site,
                  "    self._dataset = ds.dataset(path_or_paths, filesystem=filesystem,"]
    else:
        lines += ['  File "%s_utils/fetch.py", line 54, in fetch' % S,
                  "    return self.collate_fn(data)",
                  '  File "%s/data/collate.py", line 47, in __call__' % R,
                  "    ids = [ex[\"input_ids\"][: self.max_len] for ex in batch]"]
        if job.py < "3.12":
            lines += ['  File "%s/data/collate.py", line 47, in <listcomp>' % R,
                      "    ids = [ex[\"input_ids\"][: self.max_len] for ex in batch]"]
    lines += ["%s: %s" % (etype, emsg), ""]
    return "Caught %s in DataLoader worker process %d.\n%s" % (etype, wid, "\n".join(lines))


def caret(code, py):
    if py < "3.11":
        return None
    c = code.strip()
    m = re.match(r"^(return |[A-Za-z_][\w\., \[\]\"]*\s*=\s*)(.+)$", c)
    if not m or c.endswith("(") or len(m.group(2)) < 6:
        return None
    lead = len(code) - len(code.lstrip())
    return " " * (4 + len(m.group(1))) + "^" * len(m.group(2))


def plain_tb(frames, etype, msg, py):
    out = ["Traceback (most recent call last):"]
    for f in frames:
        out.append('  File "%s", line %d, in %s' % (f["file"], f["line"], f["func"]))
        out.append("    " + f["code"].strip())
        c = caret(f["code"], py)
        if c and f["lib"]:
            out.append(c)
    m = msg.split("\n")
    out.append("%s: %s" % (etype, m[0]) if m[0] else etype + ": ")
    out += m[1:]
    return out


RICH_W = 100


def _rich_wrap(text, width):
    out = []
    while len(text) > width:
        out.append(text[:width])
        text = text[width:]
    out.append(text)
    return out


def rich_tb(frames, etype, msg, rng, width=RICH_W, show_locals=True, suppress_libs=True, max_frames=14):
    """Rich's boxed traceback (rich.traceback.install(show_locals=True))."""
    inner = width - 4
    out = []
    title = " Traceback (most recent call last) "
    left = (width - 2 - len(title)) // 2
    out.append("╭" + "─" * left + title + "─" * (width - 2 - left - len(title)) + "╮")

    def row(s=""):
        for piece in _rich_wrap(s, inner):
            out.append("│ " + piece.ljust(inner) + " │")
    shown = frames
    hidden = 0
    if len(frames) > max_frames:
        keep_head, keep_tail = max_frames // 2, max_frames - max_frames // 2
        hidden = len(frames) - max_frames
        shown = frames[:keep_head] + [None] + frames[-keep_tail:]
    first = True
    for f in shown:
        if not first:
            row()
        first = False
        if f is None:
            row("... %d frames hidden ..." % hidden)
            continue
        row("%s:%d in %s" % (f["file"], f["line"], f["func"]))
        if f["lib"] and suppress_libs:
            continue
        row()
        ln = f["line"]
        before = f["before"][-3:]
        after = f["after"][:2]
        num_w = len(str(ln + len(after)))

        def code_line(n, s, mark):
            s2 = s
            ind = len(s2) - len(s2.lstrip(" "))
            guides = ("│   " * (ind // 4)) + " " * (ind % 4)
            return ("❱ " if mark else "  ") + str(n).rjust(num_w) + " " + guides + s2.lstrip(" ")
        for k, s in enumerate(before):
            row(code_line(ln - len(before) + k, s, False))
        if f["code"].startswith(" "):
            cl = f["code"]
        else:
            prevl = before[-1] if before else ""
            ind = len(prevl) - len(prevl.lstrip(" "))
            if prevl.rstrip().endswith(":"):
                ind += 4
            cl = " " * max(4, ind) + f["code"]
        row(code_line(ln, cl, True))
        for k, s in enumerate(after):
            row(code_line(ln + 1 + k, s, False))
        if show_locals and f["loc"]:
            row()
            kw = max(len(k) for k, _ in f["loc"])
            lw = min(inner - 2, max(40, max(len(k) + 3 + len(v.split("\n")[0]) for k, v in f["loc"]) + 2))
            t = " locals "
            l2 = (lw - 2 - len(t)) // 2
            row("╭" + "─" * l2 + t + "─" * (lw - 2 - l2 - len(t)) + "╮")
            for k, v in f["loc"]:
                v1 = v.split("\n")[0]
                row("│ " + (k.rjust(kw) + " = " + v1)[:lw - 4].ljust(lw - 4) + " │")
            row("╰" + "─" * (lw - 2) + "╯")
    out.append("╰" + "─" * (width - 2) + "╯")
    short = etype.split(".")[-1]
    m = msg.split("\n")
    out.append("%s: %s" % (short, m[0]))
    out += m[1:]
    return out


def loguru_tb(frames, etype, msg, catch_idx, py):
    out = ["Traceback (most recent call last):", ""]
    for i, f in enumerate(frames):
        mark = "> " if i == catch_idx else "  "
        out.append('%sFile "%s", line %d, in %s' % (mark, f["file"], f["line"], f["func"]))
        code = "    " + f["code"].strip()
        out.append(code)
        ann = f["ann"]
        if ann:
            cols = []
            seen = set()
            for name, rep in ann.items():
                m = re.search(r"(?<![\w.])" + re.escape(name) + r"(?![\w])", code)
                if m:
                    col = m.start() + (name.rfind(".") + 1 if "." in name else 0)
                    if col not in seen:
                        seen.add(col)
                        cols.append((col, rep))
            cols.sort()
            # loguru annotates the right-most variable first
            for j in range(len(cols) - 1, -1, -1):
                line = [" "] * (cols[j][0] + 1)
                for k in range(j):
                    line[cols[k][0]] = "│"
                line[cols[j][0]] = "└"
                out.append("".join(line) + " " + cols[j][1])
        out.append("")
    m = msg.split("\n")
    out.append("%s: %s" % (etype, m[0]))
    out += m[1:]
    return out


# --------------------------------------------------------------------------------------
# simulation: what every rank / node / launcher did
# --------------------------------------------------------------------------------------

RANK_CAUSES = ("gpu_hardware", "ecc_memory", "nvlink", "cuda_oom", "illegal_memory_access",
               "python_exception", "host_oom_kill", "crash_signal", "hang", "data_loader_stall",
               "collective_mismatch", "straggler")


class Sim:
    def __init__(self, job):
        self.job = job
        self.rng = random.Random("blind29|%s|%d|sim" % (job.seed, job.idx))
        self.recs = {}
        self.exits = {}
        self.kern = {n: [] for n in range(job.nnodes)}
        self.kern_attached = []
        self.files = {}           # extra attachments: relname -> text
        self.sched = {"state": "COMPLETED", "reason": None, "t": None}
        self.counter = 0
        self.culprit = None
        self.cnode = None
        self.truth_node = None
        self.rank_inferable = False
        self.variant = ""
        self.killall = None        # (t, sig) scheduler / srun wide kill
        self.agent_sig = {}        # node -> t agent received SIGTERM
        self.mon = self.rng.choice([0.1, 0.1, 5.0]) if job.tv >= (2, 2) else 5.0
        self.end_ok = False
        self.t_end = None
        self.kill_on_bad_exit = self.rng.random() < 0.5
        self.seq_base = self.rng.randint(3, 40)
        self.cps = self.rng.choice([1, 2, 3, 4, 6])

    # -- visibility ----------------------------------------------------------------
    def set_visible(self, show_culprit):
        job, rng = self.job, self.rng
        n = job.nnodes
        if n <= 2:
            vis = list(range(n))
        else:
            k = min(n, pick(rng, [2, 3, 3, 4]) if job.gpn == 8 else pick(rng, [3, 4, 4]))
            vis = [0]
            if self.cnode is not None and show_culprit and self.cnode not in vis:
                vis.append(self.cnode)
            cand = [x for x in range(1, n) if x not in vis and x != self.cnode]
            rng.shuffle(cand)
            while len(vis) < k and cand:
                vis.append(cand.pop())
            vis.sort()
        if self.cnode is not None and not show_culprit and self.cnode in vis and n > 2:
            vis.remove(self.cnode)
        self.vis_nodes = vis
        self.show_culprit = self.cnode is None or self.cnode in vis
        for nd in vis:
            for l in range(job.gpn):
                self.recs[nd * job.gpn + l] = []

    def visible(self, r):
        return r in self.recs

    def add(self, r, t, kind, **d):
        if r in self.recs:
            self.counter += 1
            self.recs[r].append((t, self.counter, kind, d))

    def kmsg(self, node, t, lines):
        if isinstance(lines, str):
            lines = [lines]
        for i, s in enumerate(lines):
            self.kern[node].append((t + i * 0.000013, s))

    def set_exit(self, r, t, code):
        if r not in self.exits or self.exits[r][0] > t:
            self.exits[r] = (t, code)

    def seq_at(self, step):
        return self.seq_base + step * self.cps

    # -- generic failure reactions -----------------------------------------------------
    def timeout(self, r, t_block, seq, op=None, enq=None, comp=None, numel=None, first=None):
        job, rng = self.job, self.rng
        opn, nin, nout = op_numels(job, op, numel)
        ran = job.timeout_ms + rng.randint(2, 120)
        t = t_block + ran / 1000.0 + rng.uniform(0, 0.05)
        enq = seq + rng.choice([0, 0, 1, 2]) if enq is None else enq
        comp = seq - 1 if comp is None else comp
        recs, raw = watchdog_recs(job, r, rng, seq, opn, nin, nout, ran, enq, comp)
        for k, (lv, fl, ln, msg) in enumerate(recs):
            self.add(r, t + k * 0.0004, "c10", lvl=lv, file=fl, line=ln, msg=msg)
        if job.tv >= (2, 5) and first is not None and self.rng.random() < 0.7:
            for k, (lv, fl, ln, msg) in enumerate(dump_signal_recs(job, r, first, enq, comp)):
                self.add(r, t + 0.002 + k * 0.0003, "c10", lvl=lv, file=fl, line=ln, msg=msg)
        self.add(r, t + 0.01, "raw", lines=raw, stream="err")
        self.set_exit(r, t + rng.uniform(0.2, 1.5), -6)
        return t

    def remote_error(self, r, t, peer_node, seq, how="socket"):
        job, rng = self.job, self.rng
        if how == "ib":
            lines, last = ib_completion_warn(job, r, rng, peer_node, status=rng.choice([5, 12]),
                                             vendor=rng.choice([129, 249, 244]), opcode=rng.choice([0, 1]))
        else:
            lines, last = socket_closed_warn(job, r, rng, peer_node)
        self.add(r, t, "nccl", lines=lines)
        recs, raw = nccl_async_recs(job, r, rng, "remote", last, seq, seq + rng.choice([0, 1]), seq - 1)
        for k, (lv, fl, ln, msg) in enumerate(recs):
            self.add(r, t + 0.02 + k * 0.0004, "c10", lvl=lv, file=fl, line=ln, msg=msg)
        self.add(r, t + 0.03, "raw", lines=raw, stream="err")
        self.set_exit(r, t + rng.uniform(0.2, 1.2), -6)

    def py_remote(self, r, t, peer_node, seq):
        job, rng = self.job, self.rng
        lines, last = socket_closed_warn(job, r, rng, peer_node)
        self.add(r, t - 0.01, "nccl", lines=lines)
        self.add(r, t, "exc", etype="torch.distributed.DistBackendError",
                 msg=nccl_error_text(job, "remote", last), where="collective" if job.framework in ("custom", "deepspeed") else "bwd",
                 handled=False)
        self.set_exit(r, t + rng.uniform(0.8, 3), 1)

    def fallout(self, culprits, t_block, seq, mode, t_cexit=None, exclude=(), op=None, numel=None):
        """Reaction of every other rank once the culprit stops participating."""
        job, rng = self.job, self.rng
        cn = sorted(set(job.node_of(c) for c in culprits))
        first = None
        order = [r for r in range(job.world) if r not in culprits and r not in exclude]
        py_left = 1 if rng.random() < 0.35 else 0
        for r in order:
            if r in self.exits:
                continue
            if mode == "timeout" or t_cexit is None:
                if first is None:
                    first = r
                self.timeout(r, t_block + rng.uniform(0, 0.03), seq, op=op, numel=numel,
                             first=first)
            else:
                same = job.node_of(r) in cn
                near = same or (job.local_of(r) in [job.local_of(c) for c in culprits])
                d = rng.uniform(0.2, 3.0) if near else rng.uniform(2.5, 45)
                if not cn:
                    peer = (job.node_of(r) + rng.randrange(1, job.nnodes)) % job.nnodes if job.nnodes > 1 else 0
                elif not same or job.nnodes == 1:
                    peer = cn[0]
                else:
                    peer = (job.node_of(r) + 1) % job.nnodes
                if py_left and self.visible(r) and not same:
                    py_left -= 1
                    self.py_remote(r, t_cexit + d, peer, seq)
                else:
                    self.remote_error(r, t_cexit + d, peer, seq,
                                      how="ib" if (net_kind(job) != "ofi" and rng.random() < 0.5 and not same) else "socket")

    # -- launcher reactions --------------------------------------------------------------
    def agents(self):
        """torchrun / deepspeed launcher: after a local failure SIGTERM the rest of the node."""
        job, rng = self.job, self.rng
        if job.agent == "srun":
            failed = sorted((self.exits[r][0], r) for r in self.exits if self.exits[r][1] not in (0,))
            if failed and self.kill_on_bad_exit and self.killall is None:
                t = failed[0][0] + rng.uniform(0.3, 2.0)
                self.killall = (t, 15)
            return
        for n in range(job.nnodes):
            ranks = range(n * job.gpn, (n + 1) * job.gpn)
            own = sorted((self.exits[r][0], r) for r in ranks if r in self.exits and self.exits[r][1] != 0)
            if n in self.agent_sig:
                tk = self.agent_sig[n]
            elif own:
                tk = own[0][0] + (self.mon if job.agent == "torchrun" else rng.uniform(0.5, 2))
            else:
                continue
            for r in ranks:
                if r not in self.exits or self.exits[r][0] > tk:
                    code = -15 if job.agent == "torchrun" else -9
                    self.exits[r] = (tk + rng.uniform(0.01, 0.4), code)

    def finalize(self):
        job, rng = self.job, self.rng
        if job.agent == "srun" and not self.kill_on_bad_exit:
            failed = any(c != 0 for (_, c) in self.exits.values())
            stuck = any(r not in self.exits for r in range(job.world))
            if failed and stuck and not (job.cause == "straggler" and self.variant == "finish"):
                self.kill_on_bad_exit = True
        self.agents()
        if self.killall is not None:
            t, sig = self.killall
            for r in range(job.world):
                if r not in self.exits or self.exits[r][0] > t:
                    self.exits[r] = (t + rng.uniform(0.01, 0.5), -sig)
        t_end = job.step_t(job.max_steps) + rng.uniform(20, 90)
        for r in range(job.world):
            if r not in self.exits:
                self.exits[r] = (t_end + rng.uniform(0, 3), 0)
        self.end_ok = all(self.exits[r][1] == 0 for r in range(job.world))
        # trim records after each rank's exit
        for r, lst in self.recs.items():
            te = self.exits[r][0]
            lst[:] = [x for x in lst if x[0] <= te + 0.05]
            lst.sort(key=lambda x: (x[0], x[1]))
        self.t_end = max(e[0] for e in self.exits.values())


# --------------------------------------------------------------------------------------

def base_timeline(sim, last_step):
    """Initialisation, NCCL INFO, benign warnings, metrics and per-rank timings."""
    job, rng = sim.job, sim.rng
    vis = sorted(sim.recs)
    sim.t_init = {}
    for r in vis:
        ti = 4 + rng.uniform(0, 6) + job.node_of(r) * rng.uniform(0, 0.8)
        sim.t_init[r] = ti
        if job.tv <= (2, 1):
            sim.add(r, ti, "log", lvl="INFO", name="torch.distributed.distributed_c10d", msg="Added key: store_based_barrier_key:1 to store for rank: %d" % r,
                    file="distributed_c10d.py", line=432, func="_store_based_barrier")
            sim.add(r, ti + rng.uniform(0.5, 4), "log", lvl="INFO", name="torch.distributed.distributed_c10d",
                    msg="Rank %d: Completed store-based barrier for key:store_based_barrier_key:1 with %d nodes." % (r, job.world),
                    file="distributed_c10d.py", line=466, func="_store_based_barrier")
        if job.layout in ("lightning-rich-slurm", "titan-colorlog-slurm", "deepspeed-wandb-pdsh"):
            sim.add(r, ti + 0.4, "ulog", lvl="INFO", msg="worker up: host=%s local_rank=%d pid=%d device=cuda:%d" % (
                job.host_of(r), job.local_of(r), job.pids[r], job.local_of(r)),
                kv={"host": job.host_of(r), "local_rank": job.local_of(r), "pid": job.pids[r]}, func="setup", line=64)
        tn = ti + rng.uniform(8, 30)
        if job.nccl_debug == "INFO":
            sim.add(r, tn, "nccl", lines=nccl_init_lines(job, r, rng))
        if job.tv >= (2, 4) and sim.warn_barrier:
            sim.add(r, ti + 1.0, "c10", lvl="W", file="ProcessGroupNCCL.cpp", line=job.c10l["barrier"],
                    msg="[PG ID 0 PG GUID 0 Rank %d]  using GPU %d to perform barrier as devices used by this process are currently unknown. This can potentially cause a hang if this rank to GPU mapping is incorrect.Specify device_ids in barrier() to force use of a particular device,or call init_process_group() with a device_id." % (r, job.local_of(r)))
        if sim.warn_reentrant:
            sim.add(r, job.t_train + rng.uniform(1, 4), "raw", lines=pywarn_lines(job, rng, "reentrant"), stream="err")
        if sim.warn_unused:
            sim.add(r, job.t_train + job.step_time + rng.uniform(0.1, 1), "c10", lvl="W", file="reducer.cpp", line=job.c10l["reducer"],
                    msg="Warning: find_unused_parameters=True was specified in DDP constructor, but did not find any unused parameters in the forward pass. This flag results in an extra traversal of the autograd graph every iteration,  which can adversely affect performance. If your model indeed never has any unused parameters in the forward pass, consider turning this flag off. Note that this warning may be a false positive if your model has flow control causing later iterations to have unused parameters. (function operator())")
    # metrics from rank 0
    le = job.log_every
    spike = rng.randrange(le, max(le + 1, last_step)) // le * le if rng.random() < 0.5 else -1
    base_tps = job.gbs * job.seq / job.step_time
    s = le
    while s <= last_step:
        loss = job.loss_at(s, rng)
        gn = abs(rng.gauss(0.9, 0.25)) + 0.1
        if s == spike:
            loss *= rng.uniform(1.6, 2.6)
            gn *= rng.uniform(8, 40)
            job.decoys.append("loss/grad-norm spike at step %d (recovers)" % s)
        st = job.step_time * sim.slow_factor(s) * (1 + rng.gauss(0, 0.02))
        sim.add(0, job.step_t(s), "metric", step=s, loss=loss, lr=job.lr_at(s), grad_norm=gn,
                tps=base_tps / sim.slow_factor(s) * (1 + rng.gauss(0, 0.02)), step_time=st,
                mem=job.gpu_cap * rng.uniform(0.55, 0.8))
        s += le
    # per-rank timing lines (every few log intervals) for visible ranks
    te = le * pick(rng, [2, 5, 10]) if le < 50 else le
    te = max(te, (last_step // 40 // le + 1) * le)
    sim.timing_every = te
    for r in vis:
        s = te
        while s <= last_step:
            sf = sim.slow_factor(s)
            comp_t = job.step_time * 0.78 * (1 + rng.gauss(0, 0.015))
            if r == sim.straggler:
                comp_t *= sim.strag_mult(s)
            step_t = job.step_time * sf * (1 + rng.gauss(0, 0.01))
            data_t = abs(rng.gauss(0.004, 0.002))
            if r == sim.stall_rank and s > last_step - 4 * te:
                data_t = rng.uniform(3, 40) * (1 + (s - (last_step - 4 * te)) / max(1, te))
                step_t += data_t
            comm_t = max(0.01, step_t - comp_t - data_t)
            sim.add(r, job.step_t(s) + rng.uniform(0.001, 0.05), "timing", step=s, step_time=step_t,
                    fwd_bwd=comp_t, comm=comm_t, data=data_t)
            s += te


def add_decoys(sim, t_fail):
    job, rng = sim.job, sim.rng
    vis = sorted(sim.recs)
    cands = [r for r in vis if r != sim.culprit]
    # handled exception
    if cands and rng.random() < (0.8 if job.healthy else 0.45):
        r = pick(rng, cands)
        t = job.t_train + (t_fail - job.t_train) * rng.uniform(0.15, 0.8)
        kind = pick(rng, ["ckpt_upload", "eval_oom", "tokenizer", "hf_hub"] if job.healthy or job.cause != "cuda_oom"
                    else ["ckpt_upload", "tokenizer", "hf_hub"])
        sim.add(r, t, "handled", hk=kind)
        job.decoys.append("handled exception (%s) on rank %d" % (kind, r))
    # benign NCCL WARN
    if job.nccl_debug == "INFO" and net_kind(job) != "ofi" and rng.random() < 0.5:
        r = pick(rng, vis)
        t = job.t_train + (t_fail - job.t_train) * rng.uniform(0.05, 0.7)
        l = job.local_of(r)
        sim.add(r, t, "nccl", lines=["%s transport/net_ib.cc:%d NCCL WARN NET/IB : %s:1 Got async event : GID table change"
                                     % (job.nccl_prefix(r, job.tids[r] + 2), 96 if job.nv < (2, 20) else 122, hca_of(job, l))])
        job.decoys.append("benign NCCL WARN (GID table change) on rank %d" % r)
    # an old Xid on some other node (kernel log attached)
    others = [n for n in range(job.nnodes) if n != sim.cnode]
    if others and rng.random() < (0.7 if job.healthy else 0.4):
        n = pick(rng, others)
        t = -rng.uniform(1.5, 9) * 86400
        code, text = pick(rng, [(43, "Ch 00000010"), (13, "Graphics SM Warp Exception on (GPC 1, TPC 3, SM 0): Out Of Range Address"),
                                (31, "Ch 00000008, intr 00000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_2 faulted @ 0x7f2b_58000000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ"),
                                (45, "Ch 00000018")])
        ln = xid_line(job, rng.randrange(job.gpn), code, rng.randrange(3000, 90000), pick(rng, ["python", "python3"]), text)
        if t + job.uptime[n] > 100:
            sim.kmsg(n, t, ln)
            if n not in sim.kern_attached:
                sim.kern_attached.append(n)
            job.decoys.append("old Xid %d on %s %.1f days before the job" % (code, job.truth_host(n), -t / 86400))


def simulate(job):
    sim = Sim(job)
    rng = sim.rng
    cause = job.cause
    W = job.world
    sim.straggler = None
    sim.stall_rank = None
    sim.warn_barrier = rng.random() < 0.45
    sim.warn_reentrant = rng.random() < 0.35
    sim.warn_unused = job.framework in ("lightning", "hf", "custom") and rng.random() < 0.3
    strag_onset = [None]

    def slow_factor(s):
        if sim.straggler is None or strag_onset[0] is None or s < strag_onset[0]:
            return 1.0
        return sim.strag_mult(s) * 0.78 + 0.22

    def strag_mult(s):
        if strag_onset[0] is None or s < strag_onset[0]:
            return 1.0
        return sim._smult
    sim.slow_factor = slow_factor
    sim.strag_mult = strag_mult

    # ---- culprit ------------------------------------------------------------------
    if cause in RANK_CAUSES:
        if job.nnodes > 1 and rng.random() < 0.75:
            sim.cnode = rng.randrange(1, job.nnodes)
        else:
            sim.cnode = rng.randrange(job.nnodes)
        sim.culprit = sim.cnode * job.gpn + rng.randrange(job.gpn)
    elif cause == "network":
        sim.variant = "node" if rng.random() < 0.7 else "fabric"
        if sim.variant == "node":
            sim.cnode = rng.randrange(job.nnodes)
            sim.culprit = sim.cnode * job.gpn + rng.randrange(job.gpn)
    elif cause == "preemption":
        if job.layout in ("hydra-structlog-k8s", "accelerate-loguru", "absl-glog-bare"):
            sim.cnode = rng.randrange(job.nnodes)
    show = True
    hideable = cause in ("gpu_hardware", "ecc_memory", "nvlink", "host_oom_kill", "crash_signal") or (
        cause == "network" and sim.variant == "node")
    if hideable and job.nnodes >= 3 and rng.random() < 0.45:
        show = False
    sim.set_visible(show)
    c, cn = sim.culprit, sim.cnode
    F = job.fail_step
    last = F - 1 if not job.healthy else job.max_steps
    if cause == "straggler":
        sim.straggler = c
        strag_onset[0] = max(job.log_every, int(F * rng.uniform(0.0, 0.5)) // job.log_every * job.log_every)
        sim._smult = rng.uniform(1.35, 2.6)
        job.slow_onset = strag_onset[0]
        job.slow_f = sim._smult * 0.78 + 0.22
    if cause == "data_loader_stall":
        sim.stall_rank = c
    t_fail = job.step_t(F) - job.step_time * rng.uniform(0.1, 0.9) if not job.healthy else job.step_t(job.max_steps)
    if cause == "straggler":
        t_fail = job.step_t(F)
    base_timeline(sim, last)
    add_decoys(sim, t_fail)
    seq = sim.seq_at(F)
    l = job.local_of(c) if c is not None else 0
    pid = job.pids[c] if c is not None else 0
    pn = pname(job, rng)
    sim.truth_node = cn
    infer = sim.show_culprit and c is not None
    note = ""

    def attach_kern(n):
        if n not in sim.kern_attached:
            sim.kern_attached.append(n)

    def culprit_cuda(key, t, variant):
        """culprit rank surfaces a CUDA error: python / watchdog / NCCL flavour."""
        if variant == "py":
            where = pick(rng, ["item", "optim", "bwd"]) if job.framework != "lightning" else pick(rng, ["fwd", "bwd"])
            sim.add(c, t, "exc", etype="RuntimeError", msg=cuda_rt_msg(job, key), where=where, handled=False)
            sim.set_exit(c, t + rng.uniform(1, 4), 1)
        elif variant == "wd":
            tag = pg_tag(job, c)
            m = cuda_rt_msg(job, key).rstrip("\n")
            c10 = job.c10l
            sim.add(c, t, "c10", lvl="E", file="ProcessGroupNCCL.cpp", line=c10["term"],
                    msg="%s Process group watchdog thread terminated with exception: %s" % (tag, m) if job.tv >= (2, 3)
                    else "[Rank %d] NCCL watchdog thread terminated with exception: %s" % (c, m))
            raw = terminate_block(job, rng, "%s Process group watchdog thread terminated with exception: %s" % (tag, m)
                                  if job.tv >= (2, 3) else m, "cuda", "c10_cuda_check_implementation", 43)
            sim.add(c, t + 0.01, "raw", lines=raw, stream="err")
            sim.set_exit(c, t + rng.uniform(0.3, 1.5), -6)
        else:  # nccl
            w, last_err = cuda_failure_warn(job, c, key)
            sim.add(c, t, "nccl", lines=[w, "%s NCCL INFO enqueue.cc:%d -> 1" % (job.nccl_prefix(c), 1568 if job.nv < (2, 21) else 1676)])
            sim.add(c, t + 0.02, "exc", etype="torch.distributed.DistBackendError",
                    msg=nccl_error_text(job, "cuda", last_err), where="collective" if job.framework in ("custom", "deepspeed") else "bwd", handled=False)
            sim.set_exit(c, t + rng.uniform(1, 3), 1)

    remote_mode = pick(rng, ["timeout", "remote", "remote"]) if job.nnodes > 1 else pick(rng, ["timeout", "remote"])

    # ==================================================================================
    if cause is None:
        sim.variant = "healthy"
        note = "healthy run; finishes at step %d" % job.max_steps
        infer = False
    elif cause == "gpu_hardware":
        v = sim.variant = pick(rng, ["py", "wd", "nccl", "silent"])
        xkind = pick(rng, ["79", "79", "119", "62"])
        tk = t_fail - rng.uniform(0.05, 0.8)
        bus = job.bus[l]
        if xkind == "79":
            sim.kmsg(cn, tk, [xid_line(job, l, 79, None, None, "GPU has fallen off the bus."),
                              "NVRM: GPU 0000:%s:00.0: GPU has fallen off the bus." % bus,
                              "NVRM: GPU 0000:%s:00.0: GPU serial number is %d." % (bus, rng.randrange(1320000000000, 1659999999999)),
                              "NVRM: A GPU crash dump has been created. If possible, please run",
                              "NVRM: nvidia-bug-report.sh as root to collect this data before",
                              "NVRM: the NVIDIA kernel module is unloaded."])
        elif xkind == "119":
            for k in range(rng.randint(2, 4)):
                sim.kmsg(cn, tk + k * 6.01, xid_line(job, l, 119, pid, pn, "Timeout after 6s of waiting for RPC response from GPU%d GSP! Expected function %d (%s) (0x%x 0x%x)."
                                                     % (l, pick(rng, [76, 10, 103]), pick(rng, ["GSP_RM_CONTROL", "FREE", "UNLOADING_GUEST_DRIVER"]),
                                                        rng.randrange(0x20800000, 0x20809fff), pick(rng, [4, 0x10, 0x128]))))
            if rng.random() < 0.6:
                sim.kmsg(cn, tk + 30, xid_line(job, l, 154, None, None, "GPU recovery action changed from 0x0 (None) to 0x2 (Node Reboot Required)"))
        else:
            sim.kmsg(cn, tk, [xid_line(job, l, 62, pid, pn, "%08x %08x %08x %08x %08x %08x %08x %08x" % tuple(rng.randrange(1 << 32) for _ in range(8))),
                              xid_line(job, l, 45, pid, pn, "Ch 0000000%d" % rng.randint(1, 9))])
        attach_kern(cn)
        key = pick(rng, ["launch", "unknown"])
        if v == "silent":
            sim.fallout([c], t_fail, seq, "timeout")
            # the culprit itself is stuck in the driver; launcher kills it
            mapping = job.nccl_debug == "INFO"
            if rng.random() < 0.5:
                sim.files["nvidia-smi-%s.txt" % job.truth_host(cn)] = nvsmi_fallen(job, rng, l)
                mapping = True
            infer = mapping and sim.show_culprit
        else:
            culprit_cuda(key, t_fail, v)
            sim.fallout([c], t_fail, seq, remote_mode, t_cexit=sim.exits[c][0])
            if not sim.show_culprit:
                infer = False
                if rng.random() < 0.5:
                    sim.files["nvidia-smi-%s.txt" % job.truth_host(cn)] = nvsmi_fallen(job, rng, l)
        note = "Xid %s on GPU %d (PCI %s) of %s; culprit surfaced as %s" % (xkind, l, bus, job.truth_host(cn), v)
    elif cause == "ecc_memory":
        v = sim.variant = pick(rng, ["py", "wd", "nccl"])
        tk = t_fail - rng.uniform(0.02, 0.5)
        if job.arch in ("A100", "A800") and rng.random() < 0.6:
            sim.kmsg(cn, tk, [xid_line(job, l, 48, pid, pn, "An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition %d, subpartition %d." % (rng.randrange(8), rng.randrange(2))),
                              xid_line(job, l, 63, pid, pn, "Row Remapper: New row (0x%016x) marked for remapping, reset gpu to activate." % rng.randrange(1 << 40))])
            xk = "48+63"
        else:
            if rng.random() < 0.5:
                sim.kmsg(cn, tk, xid_line(job, l, 94, pid, pn, "Contained: SM (0x1). RST: No, D-RST: No"))
                xk = "94"
            else:
                sim.kmsg(cn, tk, [xid_line(job, l, 95, pid, pn, "Uncontained: FBHUB. RST: Yes, D-RST: No"),
                                  xid_line(job, l, 63, pid, pn, "Row Remapper: New row (0x%016x) marked for remapping, reset gpu to activate." % rng.randrange(1 << 40))])
                xk = "95+63"
        if rng.random() < 0.85 or not sim.show_culprit:
            attach_kern(cn)
        if rng.random() < 0.45 or not sim.show_culprit:
            sim.files["nvidia-smi-q-%s.txt" % job.truth_host(cn)] = nvsmi_ecc(job, rng, l)
        culprit_cuda("ecc", t_fail, v)
        sim.fallout([c], t_fail, seq, remote_mode, t_cexit=sim.exits[c][0])
        if not sim.show_culprit:
            infer = False
        note = "Xid %s (uncorrectable ECC) on GPU %d of %s, surfaced as %s" % (xk, l, job.truth_host(cn), v)
    elif cause == "nvlink":
        v = sim.variant = pick(rng, ["py", "wd", "nccl", "hang"])
        tk = t_fail - rng.uniform(0.01, 0.4)
        link = rng.randrange(18 if job.arch.startswith("H") else 12)
        sim.kmsg(cn, tk, xid_line(job, l, 74, pid, pn, "NVLink: fatal error detected on link %d(0x0, 0x0, 0x%x, 0x0, 0x0, 0x0, 0x0)" % (link, pick(rng, [0x10000, 0x20000, 0x100]))))
        if rng.random() < 0.4:
            sim.kmsg(cn, tk + 0.01, "nvidia-nvswitch%d: SXid (PCI:0000:%02x:00.0): 20034, Fatal, Link %d LTSSM Fault Up" % (rng.randrange(4), rng.choice([5, 6, 7, 8]), rng.randrange(64)))
        attach_kern(cn)
        if rng.random() < 0.4:
            sim.files["nvlink-errors-%s.txt" % job.truth_host(cn)] = nvlink_counters(job, rng, l, link)
        if v == "hang":
            sim.fallout([c], t_fail, seq, "timeout")
            infer = sim.show_culprit and (job.nccl_debug == "INFO" or ("nvlink-errors-%s.txt" % job.truth_host(cn)) in sim.files)
        else:
            culprit_cuda("nvlink", t_fail, v)
            sim.fallout([c], t_fail, seq, remote_mode, t_cexit=sim.exits[c][0])
        note = "Xid 74 NVLink fatal error link %d on GPU %d of %s (%s)" % (link, l, job.truth_host(cn), v)
    elif cause == "network":
        if sim.variant == "node":
            tk = t_fail - rng.uniform(0.2, 3)
            hca = hca_of(job, l)
            pci = "0000:%02x:00.0" % rng.choice([0x0c, 0x1a, 0x3c, 0x4d, 0x5e, 0x9a, 0xba, 0xc1, 0xda])
            if net_kind(job) == "ofi":
                sim.kmsg(cn, tk, ["efa %s: Failed to process command %s (opcode %d) comp_status %d err %d" % (pci, "DESTROY_QP", 6, 7, -5),
                                  "efa %s: Device reset required, reset reason: %s" % (pci, pick(rng, ["KEEP_ALIVE_TO", "ADMIN_TO"]))])
            else:
                sim.kmsg(cn, tk, ["mlx5_core %s: Port module event: module %d, Cable error, %s" % (pci, l, pick(rng, ["Bus stuck (I2C or data shorted)", "High Temperature", "Power budget exceeded"])),
                                  "mlx5_core %s %s: Port: 1 Link DOWN" % (pci, hca)])
                if rng.random() < 0.5:
                    sim.kmsg(cn, tk + rng.uniform(5, 40), "mlx5_core %s %s: Port: 1 Link ACTIVE" % (pci, hca))
            if rng.random() < 0.75 or not sim.show_culprit:
                attach_kern(cn)
            peers = [n for n in range(job.nnodes) if n != cn]
            # culprit node ranks using the bad NIC error first
            pn_ = pick(rng, peers)
            lines, last = ib_completion_warn(job, c, rng, pn_, status=12, vendor=129, opcode=rng.choice([0, 1]))
            sim.add(c, t_fail, "nccl", lines=lines)
            recs, raw = nccl_async_recs(job, c, rng, "remote", last, seq, seq, seq - 1)
            for k, (lv, fl, ln, msg) in enumerate(recs):
                sim.add(c, t_fail + 0.02 + k * 0.0004, "c10", lvl=lv, file=fl, line=ln, msg=msg)
            sim.add(c, t_fail + 0.03, "raw", lines=raw, stream="err")
            sim.set_exit(c, t_fail + rng.uniform(0.3, 1), -6)
            # ranks on other nodes that talk to the culprit node see retry-exceeded errors naming its IP
            for r in range(job.world):
                if r == c or r in sim.exits:
                    continue
                if job.node_of(r) != cn and (job.local_of(r) == l or rng.random() < 0.25):
                    t = t_fail + rng.uniform(0.05, 6)
                    lines, last = ib_completion_warn(job, r, rng, cn, status=rng.choice([12, 12, 5]), vendor=rng.choice([129, 249]))
                    sim.add(r, t, "nccl", lines=lines)
                    recs, raw = nccl_async_recs(job, r, rng, "remote", last, seq, seq + rng.choice([0, 1]), seq - 1)
                    for k, (lv, fl, ln, msg) in enumerate(recs):
                        sim.add(r, t + 0.02 + k * 0.0004, "c10", lvl=lv, file=fl, line=ln, msg=msg)
                    sim.add(r, t + 0.03, "raw", lines=raw, stream="err")
                    sim.set_exit(r, t + rng.uniform(0.2, 1.2), -6)
            sim.fallout([c], t_fail, seq, pick(rng, ["timeout", "remote"]), t_cexit=sim.exits[c][0])
            note = "%s link failure on %s (%s); first error on rank %d; peers report completion errors naming %s" % (
                hca, job.truth_host(cn), pci, c, job.ips[cn])
        else:
            nodes = list(range(job.nnodes))
            bad = sorted(rng.sample(nodes, max(2, min(len(nodes), rng.randint(2, 4)))))
            for n in bad:
                r = n * job.gpn + rng.randrange(job.gpn)
                if net_kind(job) != "ofi":
                    sim.kmsg(n, t_fail - rng.uniform(0, 0.5), "mlx5_core 0000:%02x:00.0 %s: Port: 1 Link DOWN" % (rng.choice([0x1a, 0x3c, 0x9a, 0xc1]), hca_of(job, job.local_of(r))))
                    sim.kmsg(n, t_fail + rng.uniform(3, 30), "mlx5_core 0000:%02x:00.0 %s: Port: 1 Link ACTIVE" % (rng.choice([0x1a, 0x3c, 0x9a, 0xc1]), hca_of(job, job.local_of(r))))
                    if rng.random() < 0.6:
                        attach_kern(n)
                peer = pick(rng, [x for x in nodes if x != n])
                lines, last = ib_completion_warn(job, r, rng, peer, status=12, vendor=129)
                t = t_fail + rng.uniform(0, 1.5)
                sim.add(r, t, "nccl", lines=lines)
                recs, raw = nccl_async_recs(job, r, rng, "remote", last, seq, seq, seq - 1)
                for k, (lv, fl, ln, msg) in enumerate(recs):
                    sim.add(r, t + 0.02 + k * 0.0004, "c10", lvl=lv, file=fl, line=ln, msg=msg)
                sim.add(r, t + 0.03, "raw", lines=raw, stream="err")
                sim.set_exit(r, t + rng.uniform(0.2, 1), -6)
            sim.fallout([], t_fail, seq, "remote", t_cexit=t_fail + 1)
            sim.truth_node = None
            note = "fabric-wide flap: retry-exceeded errors on nodes %s at the same moment (no single culprit)" % ",".join(job.hosts[n] for n in bad)
            infer = False
    elif cause == "cuda_oom":
        et, em = oom_msg(job, rng, l if job.agent != "srun" or rng.random() < 0.5 else 0, pid)
        sim.add(c, t_fail, "exc", etype=et, msg=em, where=pick(rng, ["fwd", "bwd"]), handled=False)
        sim.set_exit(c, t_fail + rng.uniform(1, 4), 1)
        sim.fallout([c], t_fail, seq, remote_mode, t_cexit=sim.exits[c][0])
        note = "CUDA OOM on rank %d (long packed sequence)" % c
    elif cause == "illegal_memory_access":
        v = sim.variant = pick(rng, ["py", "wd", "nccl"])
        xk = pick(rng, [13, 31])
        if xk == 13:
            g, tpc, sm = rng.randrange(8), rng.randrange(9), rng.randrange(2)
            sim.kmsg(cn, t_fail - 0.01, [xid_line(job, l, 13, pid, pn, "Graphics SM Warp Exception on (GPC %d, TPC %d, SM %d): Out Of Range Address" % (g, tpc, sm)),
                                        xid_line(job, l, 13, pid, pn, "Graphics SM Global Exception on (GPC %d, TPC %d, SM %d): Multiple Warp Errors" % (g, tpc, sm)),
                                        xid_line(job, l, 13, pid, pn, "Graphics Exception: ESR 0x%x=0x%x 0x%x=0x24 0x%x=0x%x 0x%x=0x174" % (
                                            rng.randrange(0x500000, 0x5fffff), rng.randrange(1 << 28), rng.randrange(0x500000, 0x5fffff),
                                            rng.randrange(0x500000, 0x5fffff), rng.randrange(1 << 28), rng.randrange(0x500000, 0x5fffff)))])
        else:
            sim.kmsg(cn, t_fail - 0.01, xid_line(job, l, 31, pid, pn, "Ch 0000000%d, intr 00000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_%d faulted @ 0x%x_%08x. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_%s"
                                                  % (rng.randint(1, 9), rng.randrange(8), rng.randrange(0x7f00, 0x7fff), rng.randrange(1 << 32) & 0xfff00000,
                                                     pick(rng, ["READ", "WRITE"]))))
        if rng.random() < 0.5:
            attach_kern(cn)
        culprit_cuda("ima", t_fail, v)
        sim.fallout([c], t_fail, seq, remote_mode, t_cexit=sim.exits[c][0])
        note = "illegal memory access in a custom kernel on rank %d (Xid %d, application fault, not hardware)" % (c, xk)
    elif cause == "python_exception":
        kind = pick(rng, ["worker_keyerror", "shape", "assert", "fnf", "json", "zerodiv", "valueerror"])
        sim.variant = kind
        if kind == "worker_keyerror":
            emsg = worker_original_tb(job, rng, "KeyError", "'input_ids'", rng.randrange(8))
            sim.add(c, t_fail, "exc", etype="KeyError", msg=emsg, where="data_worker", handled=False)
        elif kind == "shape":
            sim.add(c, t_fail, "exc", etype="RuntimeError", msg="The size of tensor a (%d) must match the size of tensor b (%d) at non-singleton dimension 1" % (job.seq, job.seq + 1), where="user", handled=False)
        elif kind == "assert":
            sim.add(c, t_fail, "exc", etype="AssertionError", msg="sequence length %d exceeds max_position_embeddings %d" % (job.seq + rng.randint(1, 900), job.seq), where="user", handled=False)
        elif kind == "fnf":
            emsg = worker_original_tb(job, rng, "FileNotFoundError", "[Errno 2] No such file or directory: '/data/shards/train-%05d-of-%05d.parquet'" % (rng.randrange(4096), 4096), rng.randrange(8), fnf=True)
            sim.add(c, t_fail, "exc", etype="FileNotFoundError", msg=emsg, where="data_worker", handled=False)
        elif kind == "json":
            sim.add(c, t_fail, "exc", etype="json.decoder.JSONDecodeError", msg="Unterminated string starting at: line 1 column %d (char %d)" % (rng.randint(100, 9000), rng.randint(100, 9000)), where="user", handled=False)
        elif kind == "zerodiv":
            sim.add(c, t_fail, "exc", etype="ZeroDivisionError", msg="float division by zero", where="user", handled=False)
        else:
            sim.add(c, t_fail, "exc", etype="ValueError", msg="Expected input batch_size (%d) to match target batch_size (%d)." % (8, 7), where="user", handled=False)
        sim.set_exit(c, t_fail + rng.uniform(1, 4), 1)
        sim.fallout([c], t_fail, seq, remote_mode, t_cexit=sim.exits[c][0])
        note = "python %s on rank %d" % (kind, c)
    elif cause == "host_oom_kill":
        v = sim.variant = pick(rng, ["main", "main", "worker"])
        cg = None
        if job.layout == "hydra-structlog-k8s":
            cg = "/kubepods.slice/kubepods-pod%s.slice/cri-containerd-%s.scope" % ("%08x_%04x" % (rng.randrange(1 << 32), rng.randrange(1 << 16)), "%016x" % rng.randrange(1 << 63))
        elif job.layout in ("lightning-rich-slurm", "titan-colorlog-slurm", "typer-swift-rich") and rng.random() < 0.7:
            cg = "/slurm/uid_%d/job_%d/step_0" % (rng.choice([1000, 21034, 5012]), job.jobid)
        # memory creeping up in the culprit's own log
        for k in range(3):
            tt = t_fail - (3 - k) * rng.uniform(60, 400)
            sim.add(c, tt, "ulog", lvl="WARNING", msg="host memory high: rss=%.1fGiB available=%.1fGiB" % (60 + k * 35 + rng.uniform(0, 9), 80 - k * 28 + rng.uniform(0, 3)),
                    kv={"rss_gib": round(60 + k * 35, 1)})
        if v == "main":
            sim.kmsg(cn, t_fail, kernel_oom_block(job, rng, cn, pid, pn, cg, pid + rng.randrange(40, 400), pick(rng, ["pt_data_worker", pn, "python3"])))
            sim.set_exit(c, t_fail + 0.05, -9)
        else:
            wpid = pid + rng.randrange(50, 900)
            sim.kmsg(cn, t_fail, kernel_oom_block(job, rng, cn, wpid, "pt_data_worker" if job.tv >= (2, 2) else pn, cg, wpid, "pt_data_worker"))
            sim.add(c, t_fail + rng.uniform(0.5, 5), "exc", etype="RuntimeError",
                    msg="DataLoader worker (pid(s) %d) exited unexpectedly" % wpid, where="data_worker_killed", handled=False,
                    chain=("RuntimeError", "DataLoader worker (pid %d) is killed by signal: Killed. " % wpid))
            sim.set_exit(c, t_fail + rng.uniform(6, 9), 1)
        sched_says = (job.layout == "hydra-structlog-k8s" and v == "main") or (
            cg and v == "main" and job.layout in ("lightning-rich-slurm", "titan-colorlog-slurm", "typer-swift-rich"))
        if not sched_says or not sim.show_culprit or rng.random() < 0.6:
            attach_kern(cn)
        sim.oom_cgroup = cg
        sim.fallout([c], t_fail, seq, remote_mode, t_cexit=sim.exits[c][0])
        if not sim.show_culprit:
            infer = False
        note = "host OOM killer (%s) killed %s of rank %d on %s" % ("cgroup" if cg else "global", "the main process" if v == "main" else "a DataLoader worker", c, job.truth_host(cn))
    elif cause == "crash_signal":
        v = sim.variant = pick(rng, ["segv", "segv", "bus", "abrt"]) if sim.show_culprit else "segv"
        lib = pick(rng, [job.site + "/flash_attn_2_cuda.cpython-%s-x86_64-linux-gnu.so" % job.py.replace(".", ""),
                         job.site + "/transformer_engine/libtransformer_engine.so",
                         job.site + "/apex/fused_layer_norm_cuda.cpython-%s-x86_64-linux-gnu.so" % job.py.replace(".", ""),
                         job.site + "/torch/lib/libtorch_cpu.so"])
        sim.add(c, t_fail, "raw", lines=fatal_python(job, rng, v, lib), stream="err")
        code = {"segv": -11, "bus": -7, "abrt": -6}[v]
        sim.set_exit(c, t_fail + 0.05, code)
        if v == "segv":
            sim.kmsg(cn, t_fail, segv_kernel_line(job, rng, pid, pn, os.path.basename(lib)))
            if rng.random() < 0.7 or not sim.show_culprit:
                attach_kern(cn)
                if not sim.show_culprit:
                    infer = False
        sim.fallout([c], t_fail, seq, remote_mode, t_cexit=sim.exits[c][0])
        if not sim.show_culprit:
            infer = False
        note = "rank %d died of %s inside %s" % (c, v.upper(), os.path.basename(lib))
    elif cause == "preemption":
        sim.truth_node = cn
        infer = False
        if job.layout in ("lightning-rich-slurm", "titan-colorlog-slurm", "deepspeed-wandb-pdsh", "typer-swift-rich"):
            sim.variant = "slurm"
            tp = t_fail
            sim.sched.update(state="PREEMPTED", reason="PREEMPTION", t=tp)
            for n in range(job.nnodes):
                sim.agent_sig[n] = tp + rng.uniform(0.01, 0.3)
            for r in range(job.world):
                sim.add(r, tp + rng.uniform(0.02, 0.4), "sig", sig=15)
            sim.killall = (tp + rng.uniform(0.5, 2), 15)
            note = "Slurm preempted the whole job at step ~%d (no culprit node)" % F
            sim.truth_node = None
        else:
            sim.variant = "node"
            tp = t_fail
            sim.agent_sig[cn] = tp + rng.uniform(0.05, 0.5)
            for r in range(cn * job.gpn, (cn + 1) * job.gpn):
                sim.add(r, tp + rng.uniform(0.1, 0.5), "sig", sig=15)
                sim.set_exit(r, tp + rng.uniform(1, 8), -15)
            sim.preempt_t = tp
            sim.fallout(list(range(cn * job.gpn, (cn + 1) * job.gpn)), t_fail, seq, remote_mode, t_cexit=tp + 3)
            note = "node %s reclaimed (spot/maintenance) at step ~%d" % (job.truth_host(cn), F)
    elif cause == "hang":
        v = sim.variant = pick(rng, ["pyspy", "faulthandler", "plain"])
        sim.fallout([c], t_fail, seq, "timeout")
        # the hung rank shows flight-recorder state with one fewer enqueued work (torch >= 2.5)
        if job.tv >= (2, 5):
            t1 = min(sim.exits[r][0] for r in sim.exits) - 0.3
            for k, (lv, fl, ln, msg) in enumerate(dump_signal_recs(job, c, 0 if c != 0 else 1, seq - 1, seq - 1)):
                sim.add(c, t1 + 0.05 + k * 0.001, "c10", lvl=lv, file=fl, line=ln, msg=msg)
        stack = hang_stack(job, rng)
        if v == "faulthandler":
            sim.add(c, t_fail + 300 + rng.uniform(0, 1), "raw", lines=["Timeout (0:05:00)!"] + faulthandler_text(job, rng, stack), stream="err")
        elif v == "pyspy":
            sim.files["py-spy-dump-rank%d.txt" % c] = pyspy_text(job, rng, c, stack)
        note = "rank %d stopped issuing collectives (blocked in %s); others time out at SeqNum %d" % (c, stack[-1][0], seq)
    elif cause == "data_loader_stall":
        v = sim.variant = pick(rng, ["dl_timeout", "nfs_stuck"])
        fs = pick(rng, ["fs01.%s" % "cluster.internal", "weka-fe-03", "10.20.0.15", "lustre-mds1"])
        for k in range(2):
            sim.add(c, t_fail - rng.uniform(30, 200) * (2 - k), "ulog", lvl="WARNING",
                    msg="slow batch fetch: waited %.1fs for batch (shard %s)" % (rng.uniform(8, 60), "s3://corpus/%s/part-%05d.tar" % (job.model_name.split("-")[0], rng.randrange(99999))),
                    kv={"wait_s": 0})
        if rng.random() < 0.7:
            sim.kmsg(cn, t_fail - rng.uniform(0, 20), "nfs: server %s not responding, still trying" % fs)
            sim.kmsg(cn, t_fail + 122 + rng.uniform(0, 20), ["INFO: task pt_data_worker:%d blocked for more than 122 seconds." % (pid + rng.randrange(50, 500)),
                                                             "      Tainted: P           OE      5.15.0-105-generic #115-Ubuntu",
                                                             "\"echo 0 > /proc/sys/kernel/hung_task_timeout_secs\" disables this message."])
            attach_kern(cn)
        if v == "dl_timeout":
            to = pick(rng, [300, 600, 120])
            if to * 1000 >= job.timeout_ms:
                to = job.timeout_ms // 2000
            sim.add(c, t_fail + to, "exc", etype="RuntimeError", msg="DataLoader timed out after %d seconds" % to, where="data_timeout", handled=False)
            sim.set_exit(c, t_fail + to + rng.uniform(1, 3), 1)
            sim.fallout([c], t_fail, seq, pick(rng, ["timeout", "remote"]), t_cexit=sim.exits[c][0])
        else:
            sim.fallout([c], t_fail, seq, "timeout")
            sim.files["py-spy-dump-rank%d.txt" % c] = pyspy_text(job, rng, c, data_stack(job, rng))
        note = "rank %d's input pipeline stalled (%s) at step %d" % (c, v, F)
    elif cause == "collective_mismatch":
        v = sim.variant = pick(rng, ["detail", "workdiff", "workdiff"])
        if v == "detail":
            tt = t_fail + rng.uniform(0.05, 2)
            fp_ok = fingerprint(job, seq, job.op if job.op == "ALLREDUCE" else "ALLREDUCE", "[1]" if rng.random() < 0.5 else "[%d]" % job.numel)
            fp_bad = fingerprint(job, seq, pick(rng, ["ALLGATHER", "BROADCAST", "_REDUCE_SCATTER_BASE"]), "[%d]" % rng.choice([8192, 4096, 1]))
            for r in range(job.world):
                if r == c:
                    m = "Detected mismatch between collectives on ranks. Rank %d is running collective: %s, but Rank %d is running collective: %s.%s" % (c, fp_bad, 0 if c != 0 else 1, fp_ok, differ(fp_bad, fp_ok))
                else:
                    m = "Detected mismatch between collectives on ranks. Rank %d is running collective: %s, but Rank %d is running collective: %s.%s" % (r, fp_ok, c, fp_bad, differ(fp_ok, fp_bad))
                sim.add(r, tt + rng.uniform(0, 0.3), "exc", etype="RuntimeError", msg=m, where="collective", handled=False)
                sim.set_exit(r, tt + rng.uniform(1, 4), 1)
            infer = True
            note = "TORCH_DISTRIBUTED_DEBUG=DETAIL caught rank %d issuing a different collective at SeqNum %d" % (c, seq)
        else:
            sim.fallout([c], t_fail, seq, "timeout")
            # culprit's own timeout shows another op / size at the same sequence number
            bop = pick(rng, ["ALLGATHER", "BROADCAST", "ALLREDUCE", "_ALLGATHER_BASE"])
            bnum = pick(rng, [1, 8192, 4096, 65536])
            if bop == job.op:
                bnum = bnum + 1
            sim.timeout(c, t_fail + rng.uniform(0.5, 2), seq, op=bop, numel=bnum, first=None)
            note = "rank %d issued %s(numel=%d) while the rest issued %s at SeqNum %d (rank-dependent branch)" % (c, bop, bnum, job.op, seq)
    elif cause == "straggler":
        v = sim.variant = pick(rng, ["finish", "finish", "timelimit", "watchdog"])
        if rng.random() < 0.6:
            sim.files["nvidia-smi-q-%s.txt" % job.truth_host(cn)] = nvsmi_thermal(job, rng, l)
        elif rng.random() < 0.5:
            for k in range(3):
                sim.kmsg(cn, job.t_train + rng.uniform(60, 3000) * (k + 1), "CPU%d: Core temperature above threshold, cpu clock throttled (total events = %d)" % (rng.randrange(96), rng.randint(100, 90000)))
            attach_kern(cn)
        if v == "finish":
            pass
        elif v == "timelimit":
            tl = t_fail + rng.uniform(10, 600)
            sim.sched.update(state="TIMEOUT", reason="TIME LIMIT", t=tl)
            for n in range(job.nnodes):
                sim.agent_sig[n] = tl + rng.uniform(0.01, 0.3)
            for r in range(job.world):
                sim.add(r, tl + rng.uniform(0.02, 0.4), "sig", sig=15)
            sim.killall = (tl + rng.uniform(0.5, 2), 15)
        else:
            sim.fallout([c], t_fail, seq, "timeout")
        note = "rank %d computes %.2fx slower from step %d (%s)" % (c, sim._smult, strag_onset[0], v)
    elif cause == "unknown":
        sim.variant = pick(rng, ["all_timeout", "all_timeout_same"])
        first = rng.randrange(W)
        for r in range(W):
            sim.timeout(r, t_fail + rng.uniform(0, 0.02), seq, enq=seq, comp=seq - 1, first=first)
        infer = False
        note = "every rank times out at SeqNum %d with identical enqueue/complete counters; nothing names an initiator" % seq
    if cause == "straggler" and sim.variant in ("finish",):
        pass
    if job.healthy or (cause == "straggler" and sim.variant == "finish"):
        noisy = rng.random() < 0.5
        for r in sorted(sim.recs):
            te = job.step_t(job.max_steps) + rng.uniform(2, 30)
            sim.add(r, te, "end")
            if job.tv >= (2, 4) and noisy:
                sim.add(r, te + 1.5, "c10", lvl="W", file="ProcessGroupNCCL.cpp", line=job.c10l["destroy"],
                        msg="Warning: WARNING: process group has NOT been destroyed before we destruct ProcessGroupNCCL. On normal program exit, the application should call destroy_process_group to ensure that any pending NCCL operations have finished in this process. In rare cases this process can exit before this point and block the progress of another member of the process group. This constraint has always been present,  but this warning has only been added since PyTorch 2.4 (function operator())")
            if r == 0 and rng.random() < 0.5:
                S = job.site + "/torch/utils/data/dataloader.py"
                sim.add(r, te + 1.6, "raw", stream="err", lines=[
                    "Exception ignored in: <function _MultiProcessingDataLoaderIter.__del__ at %s>" % hexaddr(rng),
                    "Traceback (most recent call last):",
                    '  File "%s", line %d, in __del__' % (S, 1477 if job.tv < (2, 5) else 1618),
                    "    self._shutdown_workers()",
                    '  File "%s", line %d, in _shutdown_workers' % (S, 1441 if job.tv < (2, 5) else 1582),
                    "    if self._persistent_workers or self._workers_status[worker_id]:",
                    "AttributeError: '_MultiProcessingDataLoaderIter' object has no attribute '_workers_status'"])
                job.decoys.append("'Exception ignored in ... __del__' traceback at interpreter exit on rank 0")
    sim.finalize()
    if cause in RANK_CAUSES or (cause == "network" and sim.variant == "node"):
        sim.rank_inferable = bool(infer)
    else:
        sim.rank_inferable = False
    job.notes.append(note)
    return sim


def fingerprint(job, seq, op, shape):
    dtype = "BFloat16" if job.framework in ("titan", "deepspeed") else "Float"
    opts = "TensorOptions(dtype=%s, device=cuda, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt))" % (
        "c10::BFloat16" if dtype == "BFloat16" else "float (default)")
    return "CollectiveFingerPrint(SequenceNumber=%d, OpType=%s, TensorShape=%s, TensorDtypes=%s, TensorDeviceTypes=%s)" % (seq, op, shape, dtype, opts)


def differ(a, b):
    oa = re.search(r"OpType=(\w+)", a).group(1)
    ob = re.search(r"OpType=(\w+)", b).group(1)
    out = "\nCollectives differ in the following aspects: "
    if oa != ob:
        out += "\t Op type: %svs %s" % (oa, ob)
    sa = re.search(r"TensorShape=(\[[^\]]*\])", a).group(1)
    sb = re.search(r"TensorShape=(\[[^\]]*\])", b).group(1)
    if sa != sb:
        out += "  Tensor Tensor shapes: %svs %s" % (sa, sb)
    return out


def fatal_python(job, rng, v, lib):
    head = {"segv": "Fatal Python error: Segmentation fault", "bus": "Fatal Python error: Bus error",
            "abrt": "Fatal Python error: Aborted"}[v]
    pre = []
    if v == "abrt":
        pre = [pick(rng, ["double free or corruption (!prev)", "free(): invalid pointer", "corrupted size vs. prev_size"])]
    S = job.site
    tid = lambda: "0x%016x" % rng.randrange(0x7f0000000000, 0x7fffffffffff)
    out = pre + [head, ""]
    for _ in range(rng.randint(1, 3)):
        out += ["Thread %s (most recent call first):" % tid(),
                '  File "/usr/lib/python%s/threading.py", line %d in wait' % (job.py, 331 if job.py < "3.12" else 355),
                '  File "/usr/lib/python%s/threading.py", line %d in wait' % (job.py, 629),
                '  File "%s/tqdm/_monitor.py", line 60 in run' % S if rng.random() < 0.5 else
                '  File "%s/torch/utils/data/_utils/pin_memory.py", line 55 in do_one_step' % S,
                '  File "/usr/lib/python%s/threading.py", line %d in _bootstrap_inner' % (job.py, 1045 if job.py < "3.12" else 1073),
                '  File "/usr/lib/python%s/threading.py", line %d in _bootstrap' % (job.py, 1002 if job.py < "3.12" else 1030), ""]
    if "flash_attn" in lib:
        inner = ['  File "%s/flash_attn/flash_attn_interface.py", line 96 in _flash_attn_forward' % S,
                 '  File "%s/flash_attn/flash_attn_interface.py", line 832 in forward' % S,
                 '  File "%s/torch/autograd/function.py", line 575 in apply' % S]
    elif "transformer_engine" in lib:
        inner = ['  File "%s/transformer_engine/pytorch/cpp_extensions/gemm.py", line 118 in general_gemm' % S,
                 '  File "%s/transformer_engine/pytorch/module/linear.py", line 301 in forward' % S]
    elif "apex" in lib:
        inner = ['  File "%s/apex/normalization/fused_layer_norm.py", line 61 in forward' % S]
    else:
        inner = ['  File "%s/torch/utils/data/_utils/collate.py", line 171 in collate' % S,
                 '  File "%s/torch/utils/data/_utils/fetch.py", line 54 in fetch' % S]
    out += ["Current thread %s (most recent call first):" % tid()] + inner + [
        '  File "%s/torch/nn/modules/module.py", line 1747 in _call_impl' % S,
        '  File "%s/torch/nn/modules/module.py", line 1736 in _wrapped_call_impl' % S,
        '  File "%s/%s", line 141 in train_step' % (job.root, "trainer/loop.py" if job.framework == "custom" else user_script(job)),
        "  ...", ""]
    if job.py >= "3.10":
        mods = ["numpy.core._multiarray_umath", "numpy.core._multiarray_tests", "numpy.linalg._umath_linalg", "torch._C",
                "torch._C._dynamo.autograd_compiler", "torch._C._dynamo.eval_frame", "torch._C._dynamo.guards",
                "torch._C._dynamo.utils", "torch._C._fft", "torch._C._linalg", "torch._C._nested", "torch._C._nn",
                "torch._C._sparse", "torch._C._special", "yaml._yaml", "pyarrow.lib", "pandas._libs.tslibs.np_datetime"]
        out.append("Extension modules: %s (total: %d)" % (", ".join(mods[:rng.randint(9, len(mods))]), rng.randint(60, 180)))
    return out


def hang_stack(job, rng):
    """innermost-first (func, file, line) of the blocked main thread"""
    S, R = job.site, job.root
    py = "/usr/lib/python%s/" % job.py
    opts = [
        [("wait", py + "threading.py", 331 if job.py < "3.12" else 355), ("get", py + "queue.py", 180),
         ("_next_result", R + "/src/utils/async_ckpt.py", 74), ("maybe_wait_for_checkpoint", R + "/src/utils/async_ckpt.py", 51),
         ("on_step_end", R + "/src/callbacks.py", 143)],
        [("_wait_for_tstate_lock", py + "threading.py", 1119 if job.py < "3.12" else 1147), ("join", py + "threading.py", 1096 if job.py < "3.12" else 1124),
         ("stop", R + "/src/metrics/exporter.py", 88), ("on_step_end", R + "/src/callbacks.py", 143)],
        [("acquire", S + "/filelock/_api.py", 344), ("__enter__", S + "/filelock/_api.py", 376),
         ("load_shard_index", R + "/data/index.py", 61), ("maybe_refresh_index", R + "/data/index.py", 97)],
    ]
    return pick(rng, opts)


def data_stack(job, rng):
    S = job.site + "/torch/utils/data/dataloader.py"
    py = "/usr/lib/python%s/" % job.py
    return [("wait", py + "threading.py", 335 if job.py < "3.12" else 359),
            ("get", py + "multiprocessing/queues.py", 113),
            ("_try_get_data", S, 1133 if job.tv < (2, 5) else 1251),
            ("_get_data", S, 1294 if job.tv < (2, 5) else 1412),
            ("_next_data", S, 1327 if job.tv < (2, 5) else 1448),
            ("__next__", S, 631 if job.tv < (2, 5) else 701)]


def faulthandler_text(job, rng, stack):
    out = ["Thread 0x%016x (most recent call first):" % rng.randrange(0x7f0000000000, 0x7fffffffffff)]
    for fn, fl, ln in stack:
        out.append('  File "%s", line %d in %s' % (fl, ln, fn))
    out.append('  File "%s/%s", line %d in %s' % (job.root, user_script(job), 212, "fit" if job.framework == "custom" else "main"))
    out.append("")
    return out


def pyspy_text(job, rng, r, stack):
    pid = job.pids[r]
    out = ["Process %d: %s -u %s %s" % (pid, job.pybin, job.root + "/" + user_script(job), "--config configs/%s.yaml" % job.model_name),
           "Python v%s.%d (%s)" % (job.py, rng.randint(4, 14), job.pybin), ""]
    out.append("Thread %d (idle): \"MainThread\"" % pid)
    for fn, fl, ln in stack:
        out.append("    %s (%s:%d)" % (fn, fl.replace("/usr/lib/python%s/" % job.py, ""), ln))
    out.append("    %s (%s/%s:%d)" % ("fit" if job.framework == "custom" else "main", job.root, user_script(job), 212))
    out += ["Thread %d (idle): \"Thread-%d (_pin_memory_loop)\"" % (pid + rng.randrange(30, 90), rng.randint(2, 5)),
            "    select (selectors.py:415)", "    wait (multiprocessing/connection.py:1136)",
            "    _poll (multiprocessing/connection.py:440)", "    poll (multiprocessing/connection.py:257)",
            "    get (multiprocessing/queues.py:113)",
            "Thread %d (idle): \"Thread-%d\"" % (pid + rng.randrange(100, 300), rng.randint(6, 9)),
            "    wait (threading.py:%d)" % (335 if job.py < "3.12" else 359),
            "    wait (threading.py:%d)" % 629, "    run (tqdm/_monitor.py:60)",
            "    _bootstrap_inner (threading.py:%d)" % (1045 if job.py < "3.12" else 1073), ""]
    return "\n".join(out) + "\n"


def nvsmi_fallen(job, rng, l):
    bus = job.bus[l]
    return ("$ nvidia-smi\nUnable to determine the device handle for GPU0000:%s:00.0: Unknown Error\n\n$ nvidia-smi -L\n%s\n"
            % (bus.upper(), "\n".join("GPU %d: %s (UUID: GPU-%08x-%04x-%04x-%04x-%012x)" % (
                i, job.gpu_name, rng.randrange(1 << 32), rng.randrange(1 << 16), rng.randrange(1 << 16), rng.randrange(1 << 16),
                rng.randrange(1 << 48)) if i != l else
                "Unable to determine the device handle for gpu 0000:%s:00.0: Unknown Error" % bus for i in range(job.gpn))))


def nvsmi_ecc(job, rng, l):
    out = ["", "==============NVSMI LOG==============", "",
           "Timestamp                                 : %s" % "(see file mtime)",
           "Driver Version                            : %s" % pick(rng, ["535.183.06", "550.90.07", "560.35.03", "570.124.06"]),
           "CUDA Version                              : %s" % job.cuda, "",
           "Attached GPUs                             : %d" % job.gpn]
    for i in range(job.gpn):
        bad = i == l
        out += ["GPU 00000000:%s:00.0" % job.bus[i].upper(),
                "    Product Name                          : %s" % job.gpu_name,
                "    Minor Number                          : %d" % i,
                "    ECC Errors",
                "        Volatile",
                "            SRAM Correctable              : 0",
                "            SRAM Uncorrectable            : %d" % (rng.randint(1, 3) if bad and rng.random() < 0.3 else 0),
                "            DRAM Correctable              : %d" % (rng.randint(0, 40) if bad else 0),
                "            DRAM Uncorrectable            : %d" % (rng.randint(1, 4) if bad else 0),
                "        Aggregate",
                "            SRAM Correctable              : 0",
                "            SRAM Uncorrectable            : 0",
                "            DRAM Correctable              : %d" % (rng.randint(10, 400) if bad else rng.choice([0, 0, 2])),
                "            DRAM Uncorrectable            : %d" % (rng.randint(1, 6) if bad else 0),
                "    Remapped Rows",
                "        Correctable Error                 : 0",
                "        Uncorrectable Error               : %d" % (rng.randint(1, 3) if bad else 0),
                "        Pending                           : %s" % ("Yes" if bad else "No"),
                "        Remapping Failure Occurred        : No", ""]
    return "\n".join(out) + "\n"


def nvsmi_thermal(job, rng, l):
    out = ["$ nvidia-smi -q -d PERFORMANCE,TEMPERATURE,CLOCK", "", "==============NVSMI LOG==============", ""]
    for i in range(job.gpn):
        bad = i == l
        out += ["GPU 00000000:%s:00.0" % job.bus[i].upper(),
                "    Performance",
                "        Clocks Event Reasons" if rng.random() < 0.7 else "        Clocks Throttle Reasons",
                "            Idle                              : Not Active",
                "            Applications Clocks Setting       : Not Active",
                "            SW Power Cap                      : %s" % ("Active" if (not bad and rng.random() < 0.2) else "Not Active"),
                "            HW Slowdown                       : %s" % ("Active" if bad else "Not Active"),
                "                HW Thermal Slowdown           : %s" % ("Active" if bad else "Not Active"),
                "                HW Power Brake Slowdown       : Not Active",
                "            Sync Boost                        : Not Active",
                "            SW Thermal Slowdown               : %s" % ("Active" if bad else "Not Active"),
                "            Display Clock Setting             : Not Active",
                "    Temperature",
                "        GPU Current Temp                  : %d C" % (rng.randint(88, 94) if bad else rng.randint(41, 63)),
                "        GPU T.Limit Temp                  : %d C" % (rng.randint(-3, 1) if bad else rng.randint(25, 45)),
                "        Memory Current Temp               : %d C" % (rng.randint(90, 99) if bad else rng.randint(45, 70)),
                "    Clocks",
                "        Graphics                          : %d MHz" % (rng.randint(690, 1100) if bad else 1980),
                "        SM                                : %d MHz" % (rng.randint(690, 1100) if bad else 1980), ""]
    return "\n".join(out) + "\n"


def nvlink_counters(job, rng, l, link):
    out = ["$ nvidia-smi nvlink -e"]
    for i in range(job.gpn):
        out.append("GPU %d: %s (UUID: GPU-%08x-%04x-%04x-%04x-%012x)" % (i, job.gpu_name, rng.randrange(1 << 32), rng.randrange(1 << 16), rng.randrange(1 << 16), rng.randrange(1 << 16), rng.randrange(1 << 48)))
        for k in range(min(4, 18)):
            lk = k if not (i == l and k == 3) else link
            bad = i == l and lk == link
            out.append("\t Link %d: Replay Errors: %d" % (lk, rng.randint(200, 9000) if bad else 0))
            out.append("\t Link %d: Recovery Errors: %d" % (lk, rng.randint(3, 90) if bad else 0))
            out.append("\t Link %d: CRC Errors: %d" % (lk, rng.randint(1000, 90000) if bad else 0))
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------------------
# shared rendering helpers
# --------------------------------------------------------------------------------------

SIGNAMES = {-6: "SIGABRT", -9: "SIGKILL", -11: "SIGSEGV", -7: "SIGBUS", -15: "SIGTERM"}


class Console:
    """A captured console: ordered lines, progress redraws joined by \\r on one physical line."""

    def __init__(self, join="\r", append_after_bar=True):
        self.items = []
        self.n = 0
        self.join = join
        self.append_after_bar = append_after_bar

    def add(self, t, text, prog=False):
        for i, s in enumerate(text.split("\n") if not prog else [text]):
            self.n += 1
            self.items.append((t, self.n, s, prog))

    def addlines(self, t, lines):
        for s in lines:
            self.n += 1
            self.items.append((t, self.n, s, False))

    def render(self):
        self.items.sort(key=lambda x: (x[0], x[1]))
        out, cur = [], None
        for t, n, s, prog in self.items:
            if prog:
                cur = s if cur is None else cur + self.join + re.sub(r"^(\[rank\d+\]:| *\d+: )", "", s)
                continue
            if cur is not None:
                if self.append_after_bar:
                    out.append(cur + s)
                    cur = None
                    continue
                out.append(cur)
                cur = None
            out.append(s)
        if cur is not None:
            out.append(cur)
        return "\n".join(out) + "\n"


def c10_text(job, r, t, d, rng):
    if job.tv >= (2, 4):
        dtl = job.at(t, job.node_of(r))
        return "[%s%s %s:%d] %s" % (d["lvl"], ts_c10(dtl, rng.randrange(1000)), d["file"], d["line"], d["msg"])
    return "[%s %s:%d] %s" % (d["lvl"], d["file"], d["line"], d["msg"])


def rank_prefix(job, r):
    return "[rank%d]:" % r if job.tv >= (2, 2) else ""


def elastic_path(job, mod):
    p = mod.replace(".", "/") + ".py"
    if job.site.endswith("site-packages") and job.site.startswith("/opt/conda"):
        return "site-packages/" + p
    return p


def elastic_lines(job, node, t, lvl, mod, line, msg, zone=None):
    """torch.distributed.elastic / run.py logger output in the version's format."""
    dtl = job.at(t, node, zone)
    out = []
    L = {"W": "WARNING", "E": "ERROR", "I": "INFO"}[lvl]
    for i, m in enumerate(msg.split("\n")):
        if job.tv >= (2, 4):
            out.append("%s%s %d %s:%d] %s" % (lvl, "%02d%02d %s.%03d000" % (dtl.month, dtl.day, dtl.strftime("%H:%M:%S"), dtl.microsecond // 1000),
                                              job.agent_pid[node], elastic_path(job, mod), line, m))
        elif job.tv >= (2, 2):
            out.append("[%s] %s: [%s] %s" % (ts_py(dtl), mod, L, m))
        else:
            out.append(("%s:%s:%s" % (L, mod, m)) if i == 0 else m)
    return out


OMP_MSG = ("\n*****************************************\nSetting OMP_NUM_THREADS environment variable for each process to be 1 in default, "
           "to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. \n"
           "*****************************************")


def torchrun_start(job, node, t):
    return elastic_lines(job, node, t, "W", "torch.distributed.run", 793 if job.tv >= (2, 4) else 757, OMP_MSG)


def node_failures(job, sim, node):
    """(root_cause, other_failures, kill_time) as torchrun would report them."""
    ranks = list(range(node * job.gpn, (node + 1) * job.gpn))
    own = sorted((sim.exits[r][0], r) for r in ranks if sim.exits[r][1] not in (0, -15))
    if not own:
        return None, [], None
    first_t, first_r = own[0]
    others = [r for (t, r) in own[1:] if t <= first_t + max(sim.mon, 0.5) + 0.6]
    return first_r, others, first_t


def torchrun_failure(job, sim, node, script, rng, outer="torchrun", zone=None, error_tb=None):
    """Agent lines after a worker failure + the ChildFailedError summary.  Returns (t, lines) chunks."""
    chunks = []
    root, others, t1 = node_failures(job, sim, node)
    if root is None:
        return chunks
    ranks = list(range(node * job.gpn, (node + 1) * job.gpn))
    tk = t1 + sim.mon
    killed = [r for r in ranks if sim.exits[r][1] == -15]
    L = []
    for r in killed:
        if job.tv >= (2, 6):
            L += elastic_lines(job, node, tk, "W", "torch.distributed.elastic.multiprocessing.api", 766, "Closing process %d via signal SIGTERM" % job.pids[r], zone)
        else:
            L += elastic_lines(job, node, tk, "W", "torch.distributed.elastic.multiprocessing.api", 897 if job.tv >= (2, 4) else 836,
                               "Sending process %d closing signal SIGTERM" % job.pids[r], zone)
    if killed and rng.random() < 0.15 and job.tv >= (2, 2):
        r = pick(rng, killed)
        L += elastic_lines(job, node, tk + 30, "W", "torch.distributed.elastic.multiprocessing.api", 919 if job.tv >= (2, 4) else 856,
                           "Unable to shutdown process %d via Signals.SIGTERM, forcefully exiting via Signals.SIGKILL" % job.pids[r], zone)
    chunks.append((tk, L))
    te = max(sim.exits[r][0] for r in ranks) + 0.3
    code = sim.exits[root][1]
    L = elastic_lines(job, node, te, "E", "torch.distributed.elastic.multiprocessing.api", 869 if job.tv >= (2, 4) else 828,
                      "failed (exitcode: %d) local_rank: %d (pid: %d) of binary: %s" % (code, job.local_of(root), job.pids[root], job.pybin), zone)
    S = job.site
    if outer == "accelerate":
        L += ["Traceback (most recent call last):",
              '  File "%s/accelerate", line 8, in <module>' % os.path.dirname(job.pybin), "    sys.exit(main())",
              '  File "%s/accelerate/commands/accelerate_cli.py", line 48, in main' % S, "    args.func(args)",
              '  File "%s/accelerate/commands/launch.py", line 1182, in launch_command' % S, "    multi_gpu_launcher(args)",
              '  File "%s/accelerate/commands/launch.py", line 809, in multi_gpu_launcher' % S, "    distrib_run.run(args)",
              '  File "%s/torch/distributed/run.py", line %d, in run' % (S, 910 if job.tv >= (2, 4) else 797), "    elastic_launch(",
              '  File "%s/torch/distributed/launcher/api.py", line 138, in __call__' % S, "    return launch_agent(self._config, self._entrypoint, list(args))",
              '  File "%s/torch/distributed/launcher/api.py", line %d, in launch_agent' % (S, 269 if job.tv >= (2, 4) else 264), "    raise ChildFailedError("]
    elif outer == "torchrun":
        L += ["Traceback (most recent call last):",
              '  File "%s/torchrun", line 8, in <module>' % os.path.dirname(job.pybin), "    sys.exit(main())",
              '  File "%s/torch/distributed/elastic/multiprocessing/errors/__init__.py", line %d, in wrapper' % (S, 355 if job.tv >= (2, 4) else 346), "    return f(*args, **kwargs)",
              '  File "%s/torch/distributed/run.py", line %d, in main' % (S, 919 if job.tv >= (2, 4) else 806), "    run(args)",
              '  File "%s/torch/distributed/run.py", line %d, in run' % (S, 910 if job.tv >= (2, 4) else 797), "    elastic_launch(",
              '  File "%s/torch/distributed/launcher/api.py", line 138, in __call__' % S, "    return launch_agent(self._config, self._entrypoint, list(args))",
              '  File "%s/torch/distributed/launcher/api.py", line %d, in launch_agent' % (S, 269 if job.tv >= (2, 4) else 264), "    raise ChildFailedError("]
    summary = child_failed_summary(job, sim, node, script, root, others, error_tb)
    if outer != "none":
        L.append("torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ")
    L += summary
    chunks.append((te, L))
    return chunks


def child_failed_summary(job, sim, node, script, root, others, error_tb=None):
    def entry(i, r):
        t, code = sim.exits[r]
        d = job.at(t, node)
        ef = "<N/A>"
        if code < 0:
            tb = ["Signal %d (%s) received by PID %d" % (-code, SIGNAMES.get(code, "SIG?"), job.pids[r])]
        elif error_tb and r in error_tb:
            ef = "/tmp/torchelastic_%s/%s_%s/attempt_0/%d/error.json" % (
                job.tmpid, job.run_id, job.tmpid2, job.local_of(r))
            tb = error_tb[r]
        else:
            tb = ["To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"]
        out = ["[%d]:" % i,
               "  time      : %s" % d.strftime("%Y-%m-%d_%H:%M:%S"),
               "  host      : %s" % job.fqdn[node],
               "  rank      : %d (local_rank: %d)" % (r, job.local_of(r)),
               "  exitcode  : %d (pid: %d)" % (code, job.pids[r]),
               "  error_file: %s" % ef,
               "  traceback : %s" % tb[0]]
        out += ["  " + x for x in tb[1:]]
        return out
    w = 60
    L = ["=" * w, "%s FAILED" % script, "-" * w, "Failures:"]
    if others:
        for i, r in enumerate(others):
            L += entry(i + 1, r)
    else:
        L.append("  <NO_OTHER_FAILURES>")
    L += ["-" * w, "Root Cause (first observed failure):"]
    L += entry(0, root)
    L.append("=" * w)
    return L


def signal_exception_lines(job, node, t, outer="torchrun", zone=None):
    S = job.site
    L = elastic_lines(job, node, t, "W", "torch.distributed.elastic.agent.server.api", 719 if job.tv >= (2, 4) else 704,
                      "Received 15 death signal, shutting down workers", zone)
    for l in range(job.gpn):
        r = node * job.gpn + l
        if job.tv >= (2, 6):
            L += elastic_lines(job, node, t + 0.001, "W", "torch.distributed.elastic.multiprocessing.api", 766, "Closing process %d via signal SIGTERM" % job.pids[r], zone)
        else:
            L += elastic_lines(job, node, t + 0.001, "W", "torch.distributed.elastic.multiprocessing.api", 897 if job.tv >= (2, 4) else 836,
                               "Sending process %d closing signal SIGTERM" % job.pids[r], zone)
    L += ["Traceback (most recent call last):",
          '  File "%s/%s", line 8, in <module>' % (os.path.dirname(job.pybin), "accelerate" if outer == "accelerate" else "torchrun"),
          "    sys.exit(main())",
          '  File "%s/torch/distributed/elastic/multiprocessing/errors/__init__.py", line %d, in wrapper' % (S, 355 if job.tv >= (2, 4) else 346), "    return f(*args, **kwargs)",
          '  File "%s/torch/distributed/run.py", line %d, in main' % (S, 919 if job.tv >= (2, 4) else 806), "    run(args)",
          '  File "%s/torch/distributed/run.py", line %d, in run' % (S, 910 if job.tv >= (2, 4) else 797), "    elastic_launch(",
          '  File "%s/torch/distributed/launcher/api.py", line 138, in __call__' % S, "    return launch_agent(self._config, self._entrypoint, list(args))",
          '  File "%s/torch/distributed/launcher/api.py", line %d, in launch_agent' % (S, 260 if job.tv >= (2, 4) else 255),
          "    result = agent.run()",
          '  File "%s/torch/distributed/elastic/metrics/api.py", line 137, in wrapper' % S,
          "    result = f(*args, **kwargs)",
          '  File "%s/torch/distributed/elastic/agent/server/api.py", line %d, in run' % (S, 696 if job.tv >= (2, 4) else 680),
          "    result = self._invoke_run(role)",
          '  File "%s/torch/distributed/elastic/agent/server/api.py", line %d, in _invoke_run' % (S, 855 if job.tv >= (2, 4) else 835),
          "    time.sleep(monitor_interval)",
          '  File "%s/torch/distributed/elastic/multiprocessing/api.py", line %d, in _terminate_process_handler' % (S, 84 if job.tv >= (2, 4) else 62),
          "    raise SignalException(f\"Process {os.getpid()} got signal: {sigval}\", sigval=sigval)",
          "torch.distributed.elastic.multiprocessing.api.SignalException: Process %d got signal: 15" % job.agent_pid[node]]
    return L


def kernel_noise(job, rng, node, t_lo, t_hi):
    """benign kernel chatter around the job window"""
    msgs = ["nvidia-peermem nv_get_p2p_free_callback:127 ERROR detected invalid context, skipping further processing",
            "perf: interrupt took too long (2508 > 2500), lowering kernel.perf_event_max_sample_rate to 79750",
            "EXT4-fs (nvme0n1p2): re-mounted. Opts: (null). Quota mode: none.",
            "IPv6: ADDRCONF(NETDEV_CHANGE): %s: link becomes ready" % iface(job),
            "audit: type=1400 audit(%d.%03d:%d): apparmor=\"DENIED\" operation=\"open\" class=\"file\" profile=\"snap.lxd.daemon\" name=\"/proc/%d/mounts\" pid=%d comm=\"lxd\" requested_mask=\"r\" denied_mask=\"r\" fsuid=0 ouid=0"
            % (1700000000 + rng.randrange(90000000), rng.randrange(1000), rng.randrange(100, 9000), rng.randrange(1000, 90000), rng.randrange(1000, 90000)),
            "NVRM: GPU at PCI:0000:%s:00: GPU-%08x-%04x-%04x-%04x-%012x" % (pick(rng, job.bus), rng.randrange(1 << 32), rng.randrange(1 << 16), rng.randrange(1 << 16), rng.randrange(1 << 16), rng.randrange(1 << 48)),
            "nvidia-nvswitch%d: open (major=%d)" % (rng.randrange(4), rng.randrange(200, 511)),
            "TCP: request_sock_TCP: Possible SYN flooding on port 29500. Sending cookies.  Check SNMP counters."]
    out = []
    for _ in range(rng.randint(3, 8)):
        out.append((rng.uniform(t_lo, t_hi), pick(rng, msgs)))
    return out


def kernel_file(job, sim, node, fmt, rng):
    """kernel log of one node: fmt in dmesgT | raw | iso | journal | syslog | journal_iso"""
    items = list(sim.kern[node]) + kernel_noise(job, rng, node, -3600, sim.t_end + 60)
    items.sort(key=lambda x: x[0])
    host = job.truth_host(node)
    zone = UTC if job.layout in ("accelerate-loguru", "hydra-structlog-k8s", "titan-colorlog-slurm") else job.tz
    out = []
    for t, s in items:
        up = job.uptime_at(t, node)
        if up < 0:
            continue
        d = job.at(t, node, zone)
        raw = "[%12.6f]" % up
        if fmt == "dmesgT":
            out.append("%s %s" % (ts_dmesg_T(d), s))
        elif fmt == "raw":
            out.append("%s %s" % (raw, s))
        elif fmt == "iso":
            out.append("%s,%06d%s %s" % (d.strftime("%Y-%m-%dT%H:%M:%S"), d.microsecond, d.strftime("%z")[:3] + ":" + d.strftime("%z")[3:], s))
        elif fmt == "journal":
            out.append("%s %s kernel: %s" % (d.strftime("%b %d %H:%M:%S"), host, s))
        elif fmt == "journal_iso":
            out.append("%s %s kernel: %s" % (d.strftime("%Y-%m-%dT%H:%M:%S%z"), host, s))
        else:  # syslog (rsyslog high precision)
            out.append("%s %s kernel: %s %s" % (ts_iso_off(d), host, raw, s))
    return "\n".join(out) + "\n"


def srun_task_ranges(tasks):
    tasks = sorted(tasks)
    parts, i = [], 0
    while i < len(tasks):
        j = i
        while j + 1 < len(tasks) and tasks[j + 1] == tasks[j] + 1:
            j += 1
        parts.append(str(tasks[i]) if i == j else "%d-%d" % (tasks[i], tasks[j]))
        i = j + 1
    return ",".join(parts)


def slurm_nodelist(hosts):
    m = re.match(r"^(.*?)(\d+)$", hosts[0])
    if not m or len(hosts) == 1:
        return hosts[0] if len(hosts) == 1 else ",".join(hosts)
    pre, w = m.group(1), len(m.group(2))
    nums = []
    for h in hosts:
        mm = re.match(r"^(.*?)(\d+)$", h)
        if not mm or mm.group(1) != pre:
            return ",".join(hosts)
        nums.append(int(mm.group(2)))
    rng_s = srun_task_ranges(nums)
    rng_s = ",".join("-".join(str(int(x)).zfill(w) for x in p.split("-")) for p in rng_s.split(","))
    return "%s[%s]" % (pre, rng_s)


SRUN_WHY = {1: "Exited with exit code 1", -6: "Aborted (core dumped)", -11: "Segmentation fault (core dumped)",
            -9: "Killed", -7: "Bus error (core dumped)", -15: "Terminated", 2: "Exited with exit code 2"}


def srun_end_lines(job, sim, per_task="rank", oom=False):
    """srun / slurmstepd messages at the end of a step."""
    L = []
    tfirst = None
    if per_task == "rank":
        groups = {}
        for r in range(job.world):
            t, code = sim.exits[r]
            if code == 0:
                continue
            key = (job.node_of(r), code)
            groups.setdefault(key, []).append((t, r))
        for (n, code), lst in sorted(groups.items(), key=lambda kv: min(x[0] for x in kv[1])):
            t = min(x[0] for x in lst)
            tasks = [r for _, r in lst]
            why = SRUN_WHY.get(code, "Exited with exit code %d" % abs(code))
            if oom and code == -9:
                why = "Out Of Memory"
            L.append((t + 0.5, "srun: error: %s: task%s %s: %s" % (job.hosts[n], "s" if len(tasks) > 1 else "", srun_task_ranges(tasks), why)))
    else:
        for n in range(job.nnodes):
            ranks = range(n * job.gpn, (n + 1) * job.gpn)
            bad = [sim.exits[r] for r in ranks if sim.exits[r][1] != 0]
            if not bad:
                continue
            t = max(sim.exits[r][0] for r in ranks) + 1.0
            sig = sim.agent_sig.get(n)
            if sig is not None and sim.killall is not None:
                why = "Terminated"
            else:
                why = "Exited with exit code 1"
            L.append((t, "srun: error: %s: task %d: %s" % (job.hosts[n], n, why)))
    return L


def exc_frames(job, rng, where):
    fw, w = job.framework, where
    if fw == "lightning" and w in ("item", "optim", "collective"):
        w = "fwd" if w == "item" else "bwd"
    if fw in ("hf", "swift") and w == "collective":
        w = "bwd"
    if fw == "titan" and w in ("item", "optim", "collective", "user"):
        w = "bwd" if w in ("optim", "collective") else "fwd"
    if fw == "deepspeed" and w in ("optim", "item"):
        w = "collective"
    if fw == "deepspeed" and w == "user":
        w = "fwd"
    if w == "data_worker_killed":
        fr = outer_frames(job, rng, "data_worker") + inner_frames(job, rng, "data_timeout")[:2]
        T = job.site + "/torch/utils/data/dataloader.py"
        fr.append(F(T, 1146 if job.tv < (2, 5) else 1264, "_try_get_data",
                    "raise RuntimeError(f'DataLoader worker (pid(s) {pids_str}) exited unexpectedly') from e", lib=True))
        py = "/usr/lib/python%s/" % job.py
        cause = [F(T, 1133 if job.tv < (2, 5) else 1251, "_try_get_data", "data = self._data_queue.get(timeout=timeout)", lib=True),
                 F(py + "multiprocessing/queues.py", 113, "get", "if not self._poll(timeout):", lib=True),
                 F(py + "multiprocessing/connection.py", 257, "poll", "return self._poll(timeout)", lib=True),
                 F(py + "multiprocessing/connection.py", 440, "_poll", "r = wait([self], timeout)", lib=True),
                 F(py + "multiprocessing/connection.py", 1136, "wait", "ready = selector.select(timeout)", lib=True),
                 F(py + "selectors.py", 415, "select", "fd_event_list = self._selector.poll(timeout)", lib=True),
                 F(job.site + "/torch/utils/data/_utils/signal_handling.py", 73 if job.tv >= (2, 5) else 66, "handler", "_error_if_any_worker_fails()", lib=True)]
        return fr, cause
    fr = outer_frames(job, rng, w)
    if not (fw in ("hf", "swift") and w in ("item", "optim")):
        fr += inner_frames(job, rng, w)
    return fr, None


def handled_spec(job, rng, kind):
    """(level, pre-message, frames, etype, emsg, follow-up message, follow-up delay)"""
    S, R = job.site, job.root
    if kind == "ckpt_upload":
        step = job.log_every * rng.randint(2, 20)
        fr = [F(R + "/src/utils/ckpt_sync.py", 58, "upload", "self.client.upload_file(local, bucket, key, Config=self.tcfg)",
                ["        for attempt in range(self.retries):", "            try:"], ["            except (ReadTimeoutError, EndpointConnectionError) as e:"],
                ann={"self": obj(rng, "src.utils.ckpt_sync.S3Sync"), "local": "'/scratch/ckpt/step_%d/shard_00.distcp'" % step}),
              F(S + "/boto3/s3/inject.py", 145, "upload_file", "return transfer.upload_file(", lib=True),
              F(S + "/boto3/s3/transfer.py", 371, "upload_file", "future.result()", lib=True),
              F(S + "/s3transfer/futures.py", 103, "result", "return self._coordinator.result()", lib=True),
              F(S + "/s3transfer/futures.py", 266, "result", "raise self._exception", lib=True)]
        return ("WARNING", "checkpoint upload failed (attempt 1/5), retrying in 30s", fr, "botocore.exceptions.ReadTimeoutError",
                'Read timeout on endpoint URL: "https://s3.us-east-1.amazonaws.com/llm-ckpts/%s/step_%d/shard_00.distcp"' % (job.run_name, step),
                "uploaded checkpoint step_%d in %.1fs (attempt 2/5)" % (step, rng.uniform(30, 120)), rng.uniform(40, 160))
    if kind == "eval_oom":
        et, em = oom_msg(job, rng, 0, 1234)
        fr = [F(R + "/src/eval.py", 77, "evaluate", "out = model(**batch)", ["    for batch in loader:", "        with torch.no_grad():"], ["        losses.append(out.loss.float())"]),
              F(S + "/torch/nn/modules/module.py", 1736, "_wrapped_call_impl", "return self._call_impl(*args, **kwargs)", lib=True)]
        return ("WARNING", "CUDA OOM during evaluation (eval_batch_size=16); freeing cache and retrying with eval_batch_size=8", fr, et, em,
                "evaluation finished: eval_loss=%.4f (eval_batch_size=8)" % (job.loss_inf * rng.uniform(1.05, 1.3)), rng.uniform(20, 90))
    if kind == "hf_hub":
        fr = [F(R + "/src/utils/hub.py", 31, "push_metrics_card", "api.upload_file(path_or_fileobj=buf, path_in_repo=\"README.md\", repo_id=repo)", [], []),
              F(S + "/huggingface_hub/utils/_validators.py", 114, "_inner_fn", "return fn(*args, **kwargs)", lib=True),
              F(S + "/huggingface_hub/utils/_http.py", 477, "hf_raise_for_status", "raise _format(HfHubHTTPError, str(e), response) from e", lib=True)]
        return ("WARNING", "could not update model card on the Hub (non-fatal)", fr, "huggingface_hub.errors.HfHubHTTPError",
                "429 Client Error: Too Many Requests for url: https://huggingface.co/api/models/acme/%s/commit/main" % job.run_name, None, 0)
    # tokenizer warning (no traceback)
    return ("WARNING", "Token indices sequence length is longer than the specified maximum sequence length for this model (%d > %d). Running this sequence through the model will result in indexing errors" % (job.seq + rng.randint(10, 9000), job.seq), None, None, None, None, 0)


class Style:
    """default per-rank record formatting; layouts subclass it."""
    prefix = True

    def __init__(self, job, sim, rng):
        self.job, self.sim, self.rng = job, sim, rng

    # defaults ---------------------------------------------------------------
    def k_nccl(self, r, t, d):
        return [("out", x) for x in d["lines"]]

    def k_c10(self, r, t, d):
        return [("err", c10_text(self.job, r, t, d, self.rng))]

    def k_raw(self, r, t, d):
        return [(d.get("stream", "err"), x) for x in d["lines"]]

    def k_log(self, r, t, d):
        return [("err", "%s:%s:%s" % (d["lvl"], d["name"], d["msg"]))]

    def k_ulog(self, r, t, d):
        return self.user(r, t, d["lvl"], d["msg"], d.get("kv", {}), d.get("func", "train"), d.get("line", 0))

    def user(self, r, t, lvl, msg, kv, func="fit", line=0):
        return [("err", "%s %s" % (lvl, msg))]

    def timing_msg(self, r, base):
        return "rank=%d %s" % (r, base)

    def k_timing(self, r, t, d):
        return self.user(r, t, "INFO", self.timing_msg(r, "step=%d step_time=%.3fs fwd_bwd=%.3fs comm_wait=%.3fs data_wait=%.3fs"
                         % (d["step"], d["step_time"], d["fwd_bwd"], d["comm"], d["data"])),
                         {"rank": r, "step": d["step"], "step_s": round(d["step_time"], 4), "fwd_bwd_s": round(d["fwd_bwd"], 4),
                          "comm_wait_s": round(d["comm"], 4), "data_wait_s": round(d["data"], 4)}, "on_step_end", 57)

    def k_metric(self, r, t, d):
        return []

    def render(self, r, rec):
        self.job._exc_rank = r
        return self._render(r, rec)

    def _render(self, r, rec):
        t, n, kind, d = rec
        f = getattr(self, "k_" + kind, None)
        if f is None:
            return []
        return f(r, t, d)

    def k_exc(self, r, t, d):
        fr, cause = exc_frames(self.job, self.rng, d["where"])
        return [("err", x) for x in self.tb(r, fr, d, cause)]

    def tb(self, r, frames, d, cause):
        out = []
        if cause is not None:
            ce, cm = d["chain"]
            out += plain_tb(cause, ce, cm, self.job.py)
            out += ["", "The above exception was the direct cause of the following exception:", ""]
        return out + plain_tb(frames, d["etype"], d["msg"], self.job.py)

    def k_handled(self, r, t, d):
        lvl, pre, fr, et, em, follow, delay = handled_spec(self.job, self.rng, d["hk"])
        out = self.handled(r, t, lvl, pre, fr, et, em)
        if follow:
            out2 = self.user(r, t + delay, "INFO", follow, {})
            # follow-up lines are emitted later: stash for the console merge
            self.later = getattr(self, "later", [])
            self.later.append((r, t + delay, out2))
        return out

    def handled(self, r, t, lvl, pre, fr, et, em):
        out = self.user(r, t, lvl, pre, {})
        if fr:
            out += [("err", x) for x in plain_tb(fr, et, em, self.job.py)]
        return out

    def k_sig(self, r, t, d):
        return []

    def k_end(self, r, t, d):
        return []


def build_console(job, sim, style, ranks, con, rank_filter=None, prefix=True, stream=None, extra=None):
    """merge records of `ranks` into Console `con`; optional [rankN]: prefix."""
    for r in ranks:
        if r not in sim.recs:
            continue
        if rank_filter and not rank_filter(r):
            continue
        pre = rank_prefix(job, r) if (prefix and style.prefix) else ""
        for rec in sim.recs[r]:
            t = rec[0]
            lines = style.render(r, rec)
            for st, s in lines:
                if stream and st != stream:
                    continue
                if st == "prog":
                    con.add(t, pre + s, prog=True)
                else:
                    for s1 in s.split("\n"):
                        con.add(t, pre + s1)
    for (r, t, lines) in getattr(style, "later", []):
        if r in ranks and (not rank_filter or rank_filter(r)) and t <= sim.exits[r][0]:
            pre = rank_prefix(job, r) if (prefix and style.prefix) else ""
            for st, s in lines:
                if stream and st != stream:
                    continue
                con.add(t, pre + s)
    style.later = []


# --------------------------------------------------------------------------------------
# layout helpers
# --------------------------------------------------------------------------------------

def tqdm_bar(s, total, elapsed, per_it, desc=""):
    frac = min(1.0, s / max(1, total))
    pct = int(frac * 100)
    full = int(frac * 10)
    rem = frac * 10 - full
    parts = " ▏▎▍▌▋▊▉"
    bar = "█" * full + (parts[int(rem * 8)] if full < 10 else "")
    bar = bar.ljust(10)
    remaining = (total - s) * per_it
    rate = ("%5.2fs/it" % per_it) if per_it >= 1 else ("%5.2fit/s" % (1 / per_it))
    return "%s%3d%%|%s| %d/%d [%s<%s, %s]" % (desc, pct, bar, s, total, fmt_tqdm_dur(elapsed), fmt_tqdm_dur(remaining), rate)


def rich_bar(s, total, elapsed, per_it, loss, vnum):
    w = 40
    frac = min(1.0, s / max(1, total))
    filled = int(frac * w)
    done = "\x1b[38;2;249;38;114m" + "━" * filled + "\x1b[0m"
    todo = ("\x1b[38;5;237m" + "╺" + "━" * (w - filled - 1) + "\x1b[0m") if filled < w else ""
    return "Epoch 0/0  %s%s %d/%d %s • %s %.2fit/s v_num: %d train_loss: %.3f" % (
        done, todo, s, total, fmt_dur(elapsed), fmt_dur((total - s) * per_it), 1 / per_it, vnum, loss)


def pyrepr(v):
    return repr(v)


def hf_dict(job, d, rng):
    ep = d["step"] / max(1, job.max_steps) * rng.choice([1, 1, 2, 3]) if False else d["step"] / max(1, job.max_steps)
    return "{'loss': %s, 'grad_norm': %s, 'learning_rate': %s, 'epoch': %s}" % (
        repr(round(d["loss"], 4)), repr(d["grad_norm"]), repr(float("%.6g" % d["lr"])), repr(round(ep, 2)))


def write(outdir, rel, text):
    p = os.path.join(outdir, rel)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)


def add_extras(job, sim, outdir, written, prefix=""):
    for name in sorted(sim.files):
        write(outdir, prefix + name, sim.files[name])
        written.append(prefix + name)


def excerpt_note(job, sim):
    if len(sim.vis_nodes) == job.nnodes:
        return None
    ranks = []
    for n in sim.vis_nodes:
        ranks.append("%d-%d" % (n * job.gpn, n * job.gpn + job.gpn - 1))
    return ranks


# ======================================================================================
# L1: Lightning + Rich on Slurm (srun launches every rank directly)
# ======================================================================================

class LightningStyle(Style):
    prefix = False

    def __init__(self, job, sim, rng):
        Style.__init__(self, job, sim, rng)
        self.last_ts = {}

    def rich_log(self, r, t, lvl, msg, path):
        d = self.job.at(t, self.job.node_of(r))
        ts = d.strftime("[%m/%d/%y %H:%M:%S]")
        show = ts if self.last_ts.get(r) != ts else " " * len(ts)
        self.last_ts[r] = ts
        width = 120
        body_w = width - len(ts) - 1 - 9 - len(path) - 1
        msg_lines = []
        for ml in msg.split("\n"):
            while len(ml) > body_w:
                msg_lines.append(ml[:body_w])
                ml = ml[body_w:]
            msg_lines.append(ml)
        out = [("err", "%s %-8s %s %s" % (show, lvl, msg_lines[0].ljust(body_w), path))]
        for ml in msg_lines[1:]:
            out.append(("err", " " * (len(ts) + 10) + ml))
        return out

    def timing_msg(self, r, base):
        return "[rank %d] %s" % (r, base.replace("step_time=", "t=").replace("comm_wait=", "comm=").replace("data_wait=", "data="))

    def user(self, r, t, lvl, msg, kv, func="fit", line=0):
        path = {"on_step_end": "callbacks.py:57", "on_train_batch_end": "callbacks.py:57"}.get(func, "train.py:%d" % (line or 142))
        m = ("[rank %d] " % r if (r != 0 and func != "on_step_end") else "") + msg
        return self.rich_log(r, t, lvl, m, path)

    def k_log(self, r, t, d):
        return self.rich_log(r, t, d["lvl"], d["msg"], "%s:%d" % (d["file"], d["line"]))

    def k_exc(self, r, t, d):
        fr, cause = exc_frames(self.job, self.rng, d["where"])
        out = []
        if cause is not None:
            out += rich_tb(cause, d["chain"][0], d["chain"][1], self.rng, show_locals=False)
            out += ["", "The above exception was the direct cause of the following exception:", ""]
        out += rich_tb(fr, d["etype"], d["msg"], self.rng, show_locals=True)
        return [("err", x) for x in out]

    def handled(self, r, t, lvl, pre, fr, et, em):
        out = self.user(r, t, lvl, pre, {})
        if fr:
            out += [("err", x) for x in rich_tb(fr, et, em, self.rng, show_locals=False)]
        return out

    def k_sig(self, r, t, d):
        return [("err", "[rank: %d] Received SIGTERM: 15" % r)]

    def k_end(self, r, t, d):
        if r == 0:
            return [("err", "`Trainer.fit` stopped: `max_steps=%d` reached." % self.job.max_steps)]
        return []


def render_lightning(job, sim, outdir, rng):
    st = LightningStyle(job, sim, rng)
    written = []
    label = job.world > 16 or rng.random() < 0.4
    width = len(str(job.world - 1))
    con = Console(join="\r\x1b[2K", append_after_bar=False)
    head = job.hosts[0]
    t0l = job.at(-3, 0)
    vis = sorted(sim.recs)
    con.addlines(-3, ["START %s" % t0l.strftime("%a %b %d %H:%M:%S %Z %Y").replace("UTC", "UTC"),
                      "+ export NCCL_DEBUG=%s" % job.nccl_debug,
                      "+ export TORCH_NCCL_ASYNC_ERROR_HANDLING=1" if job.tv >= (2, 2) else "+ export NCCL_ASYNC_ERROR_HANDLING=1",
                      "+ srun %s--cpu-bind=none --ntasks-per-node=%d python %s/train.py --config configs/%s.yaml" % (
                          "--kill-on-bad-exit=1 " if sim.kill_on_bad_exit else "", job.gpn, job.root, job.model_name)])
    note = excerpt_note(job, sim)
    if note:
        con.addlines(-3, ["# [attached excerpt: output of tasks %s only; full file was %d MB]" % (",".join(note), rng.randint(90, 900))])

    def lab(r, s):
        return ("%*d: " % (width, r) + s) if label else s
    # Lightning banners
    ti0 = min(sim.t_init.values())
    con.addlines(ti0 - 2, [lab(0, "Using bfloat16 Automatic Mixed Precision (AMP)"), lab(0, "GPU available: True (cuda), used: True"),
                           lab(0, "TPU available: False, using: 0 TPU cores"), lab(0, "HPU available: False, using: 0 HPUs")])
    for r in vis:
        con.add(sim.t_init[r] - 0.5, lab(r, "[rank: %d] Seed set to %d" % (r, job.seed_v)))
        con.add(sim.t_init[r], lab(r, "Initializing distributed: GLOBAL_RANK: %d, MEMBER: %d/%d" % (r, r + 1, job.world)))
    tall = max(sim.t_init.values()) + 0.5
    if 0 in sim.recs:
        con.addlines(tall, [lab(0, "-" * 100), lab(0, "distributed_backend=nccl"),
                            lab(0, "All distributed processes registered. Starting with %d processes" % job.world), lab(0, "-" * 100), lab(0, "")])
        con.add(tall + 1, lab(0, "You are using a CUDA device ('%s') that has Tensor Cores. To properly utilize them, you should set `torch.set_float32_matmul_precision('medium' | 'high')` which will trade-off precision for performance. For more details, read https://pytorch.org/docs/stable/generated/torch.set_float32_matmul_precision.html#torch.set_float32_matmul_precision" % job.gpu_name))
        con.add(tall + 1.5, lab(0, "SLURM auto-requeueing enabled. Setting signal handlers."))
    for r in vis:
        con.add(tall + 2 + 0.01 * r, lab(r, "LOCAL_RANK: %d - CUDA_VISIBLE_DEVICES: [%s]" % (job.local_of(r), ",".join(str(i) for i in range(job.gpn)))))
    if 0 in sim.recs:
        params = pick(rng, ["8.0 B", "1.3 B", "7.2 B", "13.0 B", "632 M"])
        tbl = ["┏━━━┳━━━━━━━━━┳━━━━━━━━━━━━━━━━━━┳━━━━━━━━┳━━━━━━━┓",
               "┃   ┃ Name    ┃ Type             ┃ Params ┃ Mode  ┃",
               "┡━━━╇━━━━━━━━━╇━━━━━━━━━━━━━━━━━━╇━━━━━━━━╇━━━━━━━┩",
               "│ 0 │ model   │ Transformer      │ %6s │ train │" % params,
               "│ 1 │ loss_fn │ CrossEntropyLoss │      0 │ train │",
               "└───┴─────────┴──────────────────┴────────┴───────┘",
               "Trainable params: %s" % params, "Non-trainable params: 0", "Total params: %s" % params,
               "Total estimated model params size (MB): %d" % rng.randint(2000, 52000),
               "Modules in train mode: %d" % rng.randint(120, 600), "Modules in eval mode: 0"]
        con.addlines(job.t_train - 1, [lab(0, x) for x in tbl])
    # per-rank records
    for r in vis:
        for rec in sim.recs[r]:
            t, n, kind, d = rec
            if kind == "metric":
                per = d["step_time"]
                con.add(t, lab(0, rich_bar(d["step"], job.max_steps, t - job.t_train, per, d["loss"], job.idx % 9)), prog=True)
                continue
            for stream, s in st.render(r, rec):
                con.add(t, lab(r, s))
    for (r, t, lines) in getattr(st, "later", []):
        if t <= sim.exits[r][0]:
            for _, s in lines:
                con.add(t, lab(r, s))
    # srun / slurmstepd epilogue
    oom = job.cause == "host_oom_kill" and sim.variant == "main" and bool(getattr(sim, "oom_cgroup", None))
    if oom:
        con.add(sim.exits[sim.culprit][0] + 0.3, "slurmstepd: error: Detected 1 oom_kill event in StepId=%d.0. Some of the step tasks have been OOM Killed." % job.jobid)
    if sim.sched["state"] in ("PREEMPTED", "TIMEOUT"):
        tp = sim.sched["t"]
        con.add(tp, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO %s ***" % (job.jobid, head, ts_slurm(job.at(tp, 0)), sim.sched["reason"]))
        con.add(tp + 0.2, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.")
        con.add(tp + 0.1, "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s DUE TO %s ***" % (job.jobid, head, ts_slurm(job.at(tp, 0)), sim.sched["reason"]))
    elif sim.killall is not None:
        tk = sim.killall[0]
        con.add(tk - 0.2, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.")
        con.add(tk, "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s ***" % (job.jobid, head, ts_slurm(job.at(tk, 0))))
    for t, s in srun_end_lines(job, sim, "rank", oom=oom):
        con.add(t, s)
    if sim.end_ok:
        con.add(sim.t_end + 1, "END %s" % job.at(sim.t_end + 1, 0).strftime("%a %b %d %H:%M:%S %Z %Y"))
    fname = "slurm-%d.out" % job.jobid
    write(outdir, fname, con.render())
    written.append(fname)
    # CSVLogger metrics
    rows = ["epoch,grad_norm,lr-AdamW,step,train_loss"]
    for rec in sim.recs.get(0, []):
        if rec[2] == "metric":
            d = rec[3]
            rows.append("0,%.6f,%.8g,%d,%.6f" % (d["grad_norm"], d["lr"], d["step"] - 1, d["loss"]))
    v = job.idx % 9
    write(outdir, "lightning_logs/version_%d/metrics.csv" % v, "\n".join(rows) + "\n")
    write(outdir, "lightning_logs/version_%d/hparams.yaml" % v,
          "model:\n  name: %s\n  seq_len: %d\noptim:\n  lr: %g\n  weight_decay: 0.1\ndata:\n  global_batch_size: %d\ntrainer:\n  max_steps: %d\n  precision: bf16-mixed\n  devices: %d\n  num_nodes: %d\n"
          % (job.model_name, job.seq, job.lr, job.gbs, job.max_steps, job.gpn, job.nnodes))
    written += ["lightning_logs/version_%d/metrics.csv" % v, "lightning_logs/version_%d/hparams.yaml" % v]
    write(outdir, "sacct.txt", sacct_text(job, sim, rng, "python"))
    written.append("sacct.txt")
    for n in sorted(sim.kern_attached):
        nm = "dmesg-%s.txt" % job.hosts[n]
        write(outdir, nm, kernel_file(job, sim, n, "dmesgT", rng))
        written.append(nm)
    add_extras(job, sim, outdir, written)
    return written


def sacct_text(job, sim, rng, stepname):
    elapsed = fmt_dur(sim.t_end + 5)
    nl = slurm_nodelist(job.hosts)
    codes = [sim.exits[r][1] for r in range(job.world)]
    st = sim.sched["state"]
    if st == "COMPLETED" and not sim.end_ok:
        st = "FAILED"
    if job.cause == "host_oom_kill" and st == "FAILED" and sim.variant == "main":
        st = "OUT_OF_MEMORY"
    if st == "COMPLETED":
        ec, sst, sec = "0:0", "COMPLETED", "0:0"
    elif st in ("PREEMPTED", "TIMEOUT"):
        ec, sst, sec = "0:0", "CANCELLED", "0:15"
    elif st == "OUT_OF_MEMORY":
        ec, sst, sec = "0:125", "OUT_OF_MEMORY", "0:125"
    else:
        ec = "1:0" if 1 in codes else "0:%d" % -min(codes)
        sst, sec = ("FAILED", ec) if sim.killall is None else ("CANCELLED", "0:15" if 1 not in codes else ec)
    w = max(15, len(nl))
    hdr = "%-12s %10s %10s %10s %-13s %8s %10s %*s" % ("JobID", "JobName", "Partition", "AllocCPUS", "State", "ExitCode", "Elapsed", w, "NodeList")
    sep = " ".join("-" * x for x in (12, 10, 10, 10, 13, 8, 10, w))
    rows = [hdr, sep]
    part = pick(rng, ["gpu", "h100", "a100-long", "batch"])
    rows.append("%-12s %10s %10s %10d %-13s %8s %10s %*s" % (job.jobid, job.run_name[:10], part, job.nnodes * 96, st, ec, elapsed, w, nl))
    rows.append("%-12s %10s %10s %10d %-13s %8s %10s %*s" % ("%d.batch" % job.jobid, "batch", "", 96, st if st != "OUT_OF_MEMORY" else "FAILED", ec, elapsed, w, job.hosts[0]))
    rows.append("%-12s %10s %10s %10d %-13s %8s %10s %*s" % ("%d.extern" % job.jobid, "extern", "", job.nnodes * 96, "COMPLETED", "0:0", elapsed, w, nl))
    rows.append("%-12s %10s %10s %10d %-13s %8s %10s %*s" % ("%d.0" % job.jobid, stepname, "", job.nnodes * 96, sst, sec, fmt_dur(sim.t_end), w, nl))
    return "$ sacct -j %d --format=JobID,JobName,Partition,AllocCPUS,State,ExitCode,Elapsed,NodeList%%%d\n" % (job.jobid, w) + "\n".join(rows) + "\n"


# ======================================================================================
# L2: HF accelerate launch + loguru (AWS)
# ======================================================================================

class LoguruStyle(Style):
    def timing_msg(self, r, base):
        return "[rank %02d] %s" % (r, base)

    def lg(self, r, t, lvl, where, msg):
        d = self.job.at(t, self.job.node_of(r), UTC)
        return "%s | %-8s | %s - %s" % (ts_loguru(d), lvl, where, msg)

    def user(self, r, t, lvl, msg, kv, func="main", line=0):
        where = {"on_step_end": "callbacks:on_step_end:57", "fit": "__main__:main:%d" % (line or 188)}.get(func, "__main__:%s:%d" % (func, line or 188))
        return [("err", self.lg(r, t, lvl, where, msg))]

    def k_log(self, r, t, d):
        dd = self.job.at(t, self.job.node_of(r), UTC)
        return [("err", "%s - %s - %s - %s" % (dd.strftime("%m/%d/%Y %H:%M:%S"), d["lvl"], d["name"], d["msg"]))]

    def k_exc(self, r, t, d):
        job = self.job
        fr, cause = exc_frames(job, self.rng, d["where"])
        catch = 1 if len(fr) > 1 else 0
        hdr = self.lg(r, t, "ERROR", "__main__:<module>:%d" % 231,
                      "An error has been caught in function 'main', process 'MainProcess' (%d), thread 'MainThread' (%d):" % (job.pids[r], job.pthread[r]))
        out = [hdr]
        if cause is not None:
            out += loguru_tb(cause, d["chain"][0], d["chain"][1], -1, job.py)
            out += ["", "The above exception was the direct cause of the following exception:", ""]
        out += loguru_tb(fr, d["etype"], d["msg"], catch, job.py)
        # reraise=True -> the interpreter prints the standard traceback as well
        out += self.tb(r, fr, d, cause)
        return [("err", x) for x in out]

    def handled(self, r, t, lvl, pre, fr, et, em):
        out = [("err", self.lg(r, t, lvl, "ckpt_sync:upload:61" if "checkpoint" in pre else "__main__:main:201", pre))]
        if fr:
            out += [("err", x) for x in loguru_tb(fr, et, em, 0, self.job.py)]
        return out

    def k_metric(self, r, t, d):
        return []


def render_accelerate(job, sim, outdir, rng):
    st = LoguruStyle(job, sim, rng)
    written = []
    script = "sft.py"
    for n in sim.vis_nodes:
        con = Console(join="\r", append_after_bar=True)
        ranks = list(range(n * job.gpn, (n + 1) * job.gpn))
        con.addlines(-2, ["The following values were not passed to `accelerate launch` and had defaults used instead:",
                          "\t`--dynamo_backend` was set to a value of `'no'`",
                          "To avoid this warning pass in values for each of the problematic parameters or run `accelerate config`."])
        con.addlines(-1, torchrun_start(job, n, -1))
        for r in ranks:
            pre = rank_prefix(job, r)
            ti = sim.t_init[r]
            if rng.random() < 0.5 or r == ranks[0]:
                con.add(ti - 1, pre + "Detected kernel version 5.4.0, which is below the recommended minimum of 5.5.0; this can cause the process to hang. It is recommended to upgrade the kernel to the minimum version or higher.")
            con.addlines(ti + 0.2, [pre + x for x in st.user(r, ti + 0.2, "INFO", "rank %d/%d on %s (local_rank=%d) - model=%s" % (r, job.world, job.hosts[n], job.local_of(r), job.model_name), {}, "main", 141)[0][1:]])
        if 0 in ranks:
            pre = rank_prefix(job, 0)
            tt = job.t_train - 40
            for k in range(4):
                con.add(tt + k * 3, pre + "Loading checkpoint shards: %3d%%|%s| %d/4 [00:%02d<00:%02d, %.2fs/it]" % (
                    (k + 1) * 25, ("█" * int((k + 1) * 2.5)).ljust(10), k + 1, (k + 1) * 3, (3 - k) * 3, 3.0 + rng.random()), prog=True)
            con.add(tt + 14, pre + "`use_cache=True` is incompatible with gradient checkpointing. Setting `use_cache=False`.")
        build_console(job, sim, st, ranks, con)
        # HF progress + dicts from rank 0
        if 0 in ranks:
            pre = rank_prefix(job, 0)
            last_t = job.t_train
            for rec in sim.recs[0]:
                if rec[2] != "metric":
                    continue
                t, d = rec[0], rec[3]
                con.add(t - 0.001, pre + tqdm_bar(d["step"], job.max_steps, t - job.t_train, d["step_time"]), prog=True)
                con.add(t, hf_dict(job, d, rng))
                last_t = t
            if sim.end_ok:
                te = job.step_t(job.max_steps) + 2
                con.add(te, pre + tqdm_bar(job.max_steps, job.max_steps, te - job.t_train, job.step_time), prog=True)
                rt = te - job.t_train
                con.add(te + 0.5, "{'train_runtime': %s, 'train_samples_per_second': %s, 'train_steps_per_second': %s, 'train_loss': %s, 'epoch': 1.0}" % (
                    repr(round(rt, 4)), repr(round(job.gbs * job.max_steps / rt, 3)), repr(round(job.max_steps / rt, 3)), repr(job.loss_inf * 1.08)))
                con.add(te + 0.6, pre + tqdm_bar(job.max_steps, job.max_steps, te - job.t_train, job.step_time))
        # launcher epilogue
        if n in sim.agent_sig and job.cause == "preemption":
            con.addlines(sim.agent_sig[n], signal_exception_lines(job, n, sim.agent_sig[n], "accelerate", UTC))
        else:
            for tt, lines in torchrun_failure(job, sim, n, script, rng, outer="accelerate", zone=UTC):
                con.addlines(tt, lines)
        nm = "node%d-%s.log" % (n, job.hosts[n])
        write(outdir, nm, con.render())
        written.append(nm)
    # loguru file sinks for a few ranks
    keep = [0]
    if sim.culprit is not None and sim.culprit in sim.recs:
        keep.append(sim.culprit)
    others = [r for r in sorted(sim.recs) if r not in keep]
    rng.shuffle(others)
    keep += others[:rng.randint(1, 3)]
    for r in sorted(set(keep)):
        con = Console()
        for rec in sim.recs[r]:
            t, n_, kind, d = rec
            if kind in ("ulog", "timing", "handled"):
                for _, s in st.render(r, rec):
                    con.add(t, s)
            elif kind == "exc":
                fr, cause = exc_frames(job, rng, d["where"])
                con.add(t, st.lg(r, t, "ERROR", "__main__:<module>:231", "An error has been caught in function 'main', process 'MainProcess' (%d), thread 'MainThread' (%d):" % (job.pids[r], job.pthread[r])))
                con.addlines(t, loguru_tb(fr, d["etype"], d["msg"], 1, job.py))
        for (rr, t, lines) in getattr(st, "later", []):
            if rr == r and t <= sim.exits[r][0]:
                for _, s in lines:
                    con.add(t, s)
        st.later = []
        con.add(sim.t_init[r], st.lg(r, sim.t_init[r], "INFO", "__main__:main:141", "rank %d/%d on %s (local_rank=%d) - model=%s" % (r, job.world, job.host_of(r), job.local_of(r), job.model_name)))
        nm = "logs/train_rank%02d.log" % r
        write(outdir, nm, con.render())
        written.append(nm)
    # trainer_state.json of the last checkpoint
    save = max(job.log_every, (job.fail_step // 3) // job.log_every * job.log_every)
    last_ck = (min(job.fail_step - 1, job.max_steps) // save) * save
    hist = []
    for rec in sim.recs.get(0, []):
        if rec[2] == "metric" and rec[3]["step"] <= last_ck:
            d = rec[3]
            hist.append({"epoch": round(d["step"] / job.max_steps, 4), "grad_norm": d["grad_norm"],
                         "learning_rate": float("%.6g" % d["lr"]), "loss": round(d["loss"], 4), "step": d["step"]})
    if last_ck > 0:
        state = {"best_metric": None, "best_model_checkpoint": None, "epoch": round(last_ck / job.max_steps, 4),
                 "eval_steps": 500, "global_step": last_ck, "is_hyper_param_search": False, "is_local_process_zero": True,
                 "is_world_process_zero": True, "log_history": hist, "logging_steps": job.log_every, "max_steps": job.max_steps,
                 "num_input_tokens_seen": 0, "num_train_epochs": 1, "save_steps": save, "total_flos": float("%.4e" % (last_ck * 1.7e15)),
                 "train_batch_size": max(1, job.gbs // job.world), "trial_name": None, "trial_params": None}
        nm = "checkpoint-%d/trainer_state.json" % last_ck
        write(outdir, nm, json.dumps(state, indent=2, sort_keys=True) + "\n")
        written.append(nm)
    for n in sorted(sim.kern_attached):
        nm = "journal-%s.txt" % job.hosts[n]
        write(outdir, nm, kernel_file(job, sim, n, "journal", rng))
        written.append(nm)
    if job.cause == "preemption" and sim.cnode is not None:
        tp = sim.preempt_t
        d = job.at(tp + 0.5, sim.cnode, UTC)
        write(outdir, "spot-notice-%s.txt" % job.hosts[sim.cnode],
              "$ curl -s http://169.254.169.254/latest/meta-data/spot/instance-action\n"
              '{"action": "terminate", "time": "%s"}\n\n$ journalctl --since -10min | tail -3\n'
              "%s %s systemd-logind[1402]: Power key pressed short.\n%s %s systemd-logind[1402]: Powering off...\n%s %s systemd-logind[1402]: System is powering down.\n"
              % (d.strftime("%Y-%m-%dT%H:%M:%SZ"),
                 job.at(tp, sim.cnode, UTC).strftime("%b %d %H:%M:%S"), job.hosts[sim.cnode],
                 job.at(tp + 0.1, sim.cnode, UTC).strftime("%b %d %H:%M:%S"), job.hosts[sim.cnode],
                 job.at(tp + 0.2, sim.cnode, UTC).strftime("%b %d %H:%M:%S"), job.hosts[sim.cnode]))
        written.append("spot-notice-%s.txt" % job.hosts[sim.cnode])
    add_extras(job, sim, outdir, written)
    return written


# ======================================================================================
# L3: Hydra + structlog JSON in a Kubeflow PyTorchJob on GKE
# ======================================================================================

class HydraStyle(Style):
    def hydra(self, r, t, name, lvl, msg):
        d = self.job.at(t, self.job.node_of(r), UTC)
        return "[%s][%s][%s] - %s" % (ts_py(d), name, lvl, msg)

    def sj(self, r, t, event, lvl, kv, logger="trainer"):
        d = self.job.at(t, self.job.node_of(r), UTC)
        obj_ = {}
        for k in ("rank",):
            obj_[k] = r
        for k, v in kv.items():
            obj_[k] = v
        obj_["event"] = event
        obj_["level"] = lvl.lower() if lvl != "WARNING" else "warning"
        obj_["logger"] = logger
        obj_["timestamp"] = ts_isoz(d)
        return json.dumps(obj_)

    def user(self, r, t, lvl, msg, kv, func="fit", line=0):
        if func == "on_step_end":
            return [("out", self.sj(r, t, "step_timing", lvl, kv, "trainer.perf"))]
        return [("out", self.sj(r, t, msg, lvl, kv))]

    def k_log(self, r, t, d):
        return [("err", self.hydra(r, t, d["name"], d["lvl"], d["msg"]))]

    def k_metric(self, r, t, d):
        job = self.job
        out = [("out", self.sj(r, t, "train_step", "INFO", {"step": d["step"], "loss": round(d["loss"], 4), "lr": float("%.4g" % d["lr"]),
                                                             "grad_norm": round(d["grad_norm"], 4), "tok_per_s": round(d["tps"], 1),
                                                             "mem_gib": round(d["mem"], 2)}))]
        if (d["step"] // job.log_every) % 10 == 0:
            out.append(("err", self.hydra(r, t, "src.trainer.loop", "INFO", "step %d/%d | loss %.4f | lr %.2e | %.0f tok/s" % (
                d["step"], job.max_steps, d["loss"], d["lr"], d["tps"]))))
        return out

    def k_exc(self, r, t, d):
        job = self.job
        fr, cause = exc_frames(job, self.rng, d["where"])
        # Hydra strips its own frames: the traceback starts at the task function
        fr = [f for f in fr if "/hydra/" not in f["file"]]
        out = ["Error executing job with overrides: %s" % self.overrides]
        out += self.tb(r, fr, d, cause)
        out += ["", "Set the environment variable HYDRA_FULL_ERROR=1 for a complete stack trace."]
        return [("err", x) for x in out]

    def handled(self, r, t, lvl, pre, fr, et, em):
        kv = {}
        if fr:
            kv["exception"] = "\n".join(plain_tb(fr, et, em, self.job.py))
        return [("out", self.sj(r, t, pre, lvl, kv))]

    def k_end(self, r, t, d):
        if r == 0:
            return [("err", self.hydra(r, t, "src.trainer.loop", "INFO", "training finished: %d steps in %s" % (self.job.max_steps, fmt_dur(t - self.job.t_train))))]
        return []


def render_k8s(job, sim, outdir, rng):
    st = HydraStyle(job, sim, rng)
    st.overrides = "[%s]" % ", ".join("'%s'" % x for x in ["model=%s" % job.model_name.replace("-", "_"), "trainer.max_steps=%d" % job.max_steps,
                                                          "data=%s" % pick(rng, ["mix_v7", "web_en_v3", "code_mix"]), "optim.lr=%g" % job.lr])
    written = []
    ns = pick(rng, ["training", "ml-research", "default"])
    for n in sim.vis_nodes:
        con = Console()
        ranks = list(range(n * job.gpn, (n + 1) * job.gpn))
        con.addlines(-1, torchrun_start(job, n, -1))
        build_console(job, sim, st, ranks, con)
        for r in ranks:
            con.add(sim.t_init[r] + 0.3, rank_prefix(job, r) + st.hydra(r, sim.t_init[r] + 0.3, "__main__", "INFO", "rank %d/%d local_rank=%d node=%s" % (r, job.world, job.local_of(r), job.k8s_nodes[n])))
        if n in sim.agent_sig and job.cause == "preemption":
            con.addlines(sim.agent_sig[n], signal_exception_lines(job, n, sim.agent_sig[n], "torchrun", UTC))
        else:
            for tt, lines in torchrun_failure(job, sim, n, "train.py", rng, zone=UTC):
                con.addlines(tt, lines)
        # kubectl logs --timestamps
        body = con.render().rstrip("\n").split("\n")
        times = sorted(x[0] for x in con.items)
        out = []
        items = sorted(con.items, key=lambda x: (x[0], x[1]))
        # rebuild with timestamps (one per physical line, the time of its first item)
        tl = [it[0] for it in items if not it[3]]
        prev = None
        for i, line in enumerate(body):
            t = tl[min(i, len(tl) - 1)] if tl else 0
            d = job.at(t, n, UTC)
            nsec = d.microsecond * 1000 + rng.randrange(1000)
            if prev is not None and (d.replace(microsecond=0), nsec) <= prev:
                d, nsec = prev[0], prev[1] + rng.randint(3, 900)
                if nsec >= 10 ** 9:
                    d, nsec = d + dt.timedelta(seconds=1), nsec - 10 ** 9
            d = d.replace(microsecond=0)
            prev = (d, nsec)
            out.append("%s.%09dZ %s" % (d.strftime("%Y-%m-%dT%H:%M:%S"), nsec, line))
        nm = "pods/%s.log" % job.pods[n]
        write(outdir, nm, "\n".join(out) + "\n")
        written.append(nm)
    # hydra run dir (master pod, rank 0 python logging)
    d0 = job.at(0, 0, UTC)
    rd = "outputs/%s/%s" % (d0.strftime("%Y-%m-%d"), d0.strftime("%H-%M-%S"))
    if 0 in sim.recs:
        con = Console()
        for rec in sim.recs[0]:
            for stream, s in st.render(0, rec):
                if s.startswith("[") and "][" in s[:40]:
                    con.add(rec[0], s)
        con.add(sim.t_init[0] + 0.3, st.hydra(0, sim.t_init[0] + 0.3, "__main__", "INFO", "rank 0/%d local_rank=0 node=%s" % (job.world, job.k8s_nodes[0])))
        write(outdir, rd + "/train.log", con.render())
        written.append(rd + "/train.log")
        write(outdir, rd + "/.hydra/overrides.yaml", "".join("- %s\n" % x.strip("'") for x in st.overrides.strip("[]").split(", ")))
        written.append(rd + "/.hydra/overrides.yaml")
    # kubectl describe of the failing pod(s) and events
    fail_nodes = []
    for n in range(job.nnodes):
        codes = [sim.exits[r][1] for r in range(n * job.gpn, (n + 1) * job.gpn)]
        if any(c not in (0,) for c in codes):
            fail_nodes.append((min(sim.exits[r][0] for r in range(n * job.gpn, (n + 1) * job.gpn) if sim.exits[r][1] != 0), n))
    fail_nodes.sort()
    desc_nodes = []
    if sim.cnode is not None:
        desc_nodes.append(sim.cnode)
    if fail_nodes and fail_nodes[0][1] not in desc_nodes:
        desc_nodes.append(fail_nodes[0][1])
    if not desc_nodes:
        desc_nodes = [0]
    for n in desc_nodes:
        write(outdir, "describe-pod-%s.txt" % job.pods[n], describe_pod(job, sim, n, ns, rng))
        written.append("describe-pod-%s.txt" % job.pods[n])
    write(outdir, "events.txt", k8s_events(job, sim, ns, rng, fail_nodes))
    written.append("events.txt")
    for n in sorted(sim.kern_attached):
        nm = "node-%s-journal.txt" % job.k8s_nodes[n]
        write(outdir, nm, kernel_file(job, sim, n, "journal", rng))
        written.append(nm)
    add_extras(job, sim, outdir, written)
    return written


def pod_state(job, sim, n):
    ranks = range(n * job.gpn, (n + 1) * job.gpn)
    codes = [sim.exits[r][1] for r in ranks]
    t_end = max(sim.exits[r][0] for r in ranks) + 1
    if all(c == 0 for c in codes):
        return "Succeeded", "Completed", 0, t_end, None
    if job.cause == "preemption" and n == sim.cnode:
        return "Failed", "Terminated", 143, t_end, "Pod was terminated in response to imminent node shutdown."
    if job.cause == "host_oom_kill" and n == sim.cnode and sim.variant == "main":
        return "Failed", "OOMKilled", 137, t_end, None
    return "Failed", "Error", 1, t_end, None


def describe_pod(job, sim, n, ns, rng):
    phase, reason, code, t_end, msg = pod_state(job, sim, n)
    st = job.at(-20, n, UTC)
    fin = job.at(t_end, n, UTC)
    rtype = "master" if n == 0 else "worker"
    idx = 0 if n == 0 else n - 1
    img = "us-docker.pkg.dev/%s/train/trainer:%s" % (pick(rng, ["acme-ml", "research-prod"]), pick(rng, ["2025.02.1", "v0.14.3", "nightly-%s" % st.strftime("%Y%m%d")]))
    L = ["Name:             %s" % job.pods[n], "Namespace:        %s" % ns, "Priority:         0",
         "Service Account:  default", "Node:             %s/%s" % (job.k8s_nodes[n], "10.128.%d.%d" % (rng.randrange(256), rng.randrange(2, 250))),
         "Start Time:       %s" % st.strftime("%a, %d %b %Y %H:%M:%S +0000"),
         "Labels:           training.kubeflow.org/job-name=%s" % job.jobname,
         "                  training.kubeflow.org/operator-name=pytorchjob-controller",
         "                  training.kubeflow.org/replica-index=%d" % idx,
         "                  training.kubeflow.org/replica-type=%s" % rtype,
         "Annotations:      <none>", "Status:           %s" % phase]
    if msg:
        L += ["Reason:           Terminated", "Message:          %s" % msg]
    L += ["IP:               %s" % job.ips[n], "Controlled By:  PyTorchJob/%s" % job.jobname, "Containers:", "  pytorch:",
          "    Container ID:  containerd://%064x" % rng.randrange(1 << 255),
          "    Image:         %s" % img, "    Port:          23456/TCP", "    Host Port:     0/TCP",
          "    Command:", "      torchrun", "    Args:", "      --nnodes=%d" % job.nnodes, "      --nproc_per_node=%d" % job.gpn,
          "      train.py", "      %s" % " ".join(x.strip("'") for x in ["model=%s" % job.model_name.replace("-", "_")]),
          "    State:          Terminated", "      Reason:       %s" % reason, "      Exit Code:    %d" % code,
          "      Started:      %s" % st.strftime("%a, %d %b %Y %H:%M:%S +0000"),
          "      Finished:     %s" % fin.strftime("%a, %d %b %Y %H:%M:%S +0000"),
          "    Ready:          False", "    Restart Count:  0", "    Limits:", "      memory:          %dGi" % pick(rng, [1000, 1600, 1800]),
          "      nvidia.com/gpu:  %d" % job.gpn, "    Requests:", "      cpu:             %d" % pick(rng, [96, 180, 200]),
          "      memory:          %dGi" % pick(rng, [900, 1500]), "      nvidia.com/gpu:  %d" % job.gpn,
          "    Environment:", "      NCCL_DEBUG:                %s" % job.nccl_debug,
          "      PYTHONUNBUFFERED:          1", "      MASTER_ADDR:               %s" % job.pods[0],
          "Conditions:", "  Type              Status", "  Initialized       True", "  Ready             False",
          "  ContainersReady   False", "  PodScheduled      True",
          "QoS Class:                   Burstable", "Node-Selectors:              cloud.google.com/gke-accelerator=nvidia-h100-80gb",
          "Tolerations:                 nvidia.com/gpu:NoSchedule op=Exists",
          "Events:", "  Type     Reason     Age    From               Message", "  ----     ------     ----   ----               -------"]
    age = lambda t: "%dm" % max(1, int((sim.t_end + 600 - t) / 60)) if (sim.t_end + 600 - t) < 7200 else "%dh" % int((sim.t_end + 600 - t) / 3600)
    L.append("  Normal   Scheduled  %-6s default-scheduler  Successfully assigned %s/%s to %s" % (age(-25), ns, job.pods[n], job.k8s_nodes[n]))
    L.append("  Normal   Pulled     %-6s kubelet            Container image \"%s\" already present on machine" % (age(-22), img))
    L.append("  Normal   Created    %-6s kubelet            Created container pytorch" % age(-21))
    L.append("  Normal   Started    %-6s kubelet            Started container pytorch" % age(-20))
    if reason == "Terminated":
        L.append("  Warning  NodeNotReady  %-6s node-controller  Node is not ready" % age(t_end))
    return "$ kubectl describe pod %s -n %s\n" % (job.pods[n], ns) + "\n".join(L) + "\n"


def k8s_events(job, sim, ns, rng, fail_nodes):
    rows = []
    end = sim.t_end + 600

    def age(t):
        s = end - t
        return "%dm" % max(1, int(s / 60)) if s < 7200 else "%dh" % int(s / 3600)
    for n in range(min(job.nnodes, 6)):
        rows.append((-25, "Normal", "Scheduled", "pod/%s" % job.pods[n], "Successfully assigned %s/%s to %s" % (ns, job.pods[n], job.k8s_nodes[n])))
    rows.append((-26, "Normal", "SuccessfulCreatePod", "pytorchjob/%s" % job.jobname, "Created pod: %s" % job.pods[0]))
    if job.cause == "host_oom_kill" and sim.cnode is not None:
        kl = [s for t, s in sim.kern[sim.cnode] if "Killed process" in s]
        if kl:
            rows.append((sim.exits[sim.culprit][0], "Warning", "OOMKilling", "node/%s" % job.k8s_nodes[sim.cnode], kl[0]))
    if job.cause == "preemption" and sim.cnode is not None:
        rows.append((sim.preempt_t, "Normal", "NodeNotReady", "node/%s" % job.k8s_nodes[sim.cnode], "Node %s status is now: NodeNotReady" % job.k8s_nodes[sim.cnode]))
    if job.cause in ("gpu_hardware",) and sim.cnode is not None and rng.random() < 0.5:
        rows.append((sim.exits.get(sim.culprit, (sim.t_end, 0))[0] + 20, "Warning", "XidCriticalError", "node/%s" % job.k8s_nodes[sim.cnode],
                     "Node condition XidCriticalError is now: True, reason: XidCriticalError"))
    if fail_nodes:
        t, n = fail_nodes[0]
        rtype = "Master" if n == 0 else "Worker"
        rows.append((sim.t_end + 2, "Normal", "ExitedWithCode", "pytorchjob/%s" % job.jobname,
                     "Pod: %s.%s exited with code %d" % (ns, job.pods[n], pod_state(job, sim, n)[2])))
        rows.append((sim.t_end + 3, "Warning", "PyTorchJobFailed", "pytorchjob/%s" % job.jobname,
                     "PyTorchJob %s/%s is failed because 1 %s replica(s) failed." % (ns, job.jobname, rtype)))
    else:
        rows.append((sim.t_end + 3, "Normal", "PyTorchJobSucceeded", "pytorchjob/%s" % job.jobname,
                     "PyTorchJob %s/%s successfully completed." % (ns, job.jobname)))
    rows.sort(key=lambda x: x[0])
    w = max(len(r[3]) for r in rows) + 2
    out = ["$ kubectl get events -n %s --sort-by=.lastTimestamp" % ns,
           "LAST SEEN   TYPE      REASON                 %s MESSAGE" % "OBJECT".ljust(w)]
    for t, ty, rs, ob, msg in rows:
        out.append("%-11s %-9s %-22s %s %s" % (age(t), ty, rs, ob.ljust(w), msg))
    return "\n".join(out) + "\n"


# ======================================================================================
# L4: torchtitan + colorlog under srun torchrun (AWS ParallelCluster)
# ======================================================================================

C_RESET, C_RED, C_GREEN, C_YELLOW, C_BLUE, C_MAGENTA, C_CYAN = "\033[39m", "\033[31m", "\033[32m", "\033[33m", "\033[34m", "\033[35m", "\033[36m"
CLOG = {"DEBUG": "\033[37m", "INFO": "\033[32m", "WARNING": "\033[33m", "ERROR": "\033[31m", "CRITICAL": "\033[01;31m"}


class TitanStyle(Style):
    def titan(self, r, t, name, lvl, msg):
        d = self.job.at(t, self.job.node_of(r), UTC)
        return "[titan] %s - %s - %s - %s" % (ts_py(d), name, lvl, msg)

    def user(self, r, t, lvl, msg, kv, func="fit", line=0):
        name = "perf" if func == "on_step_end" else "datapipe"
        out = [("err", "%s%s:%s:%s\033[0m" % (CLOG.get(lvl, ""), lvl, name, msg))]
        if self.dup:
            out.append(("err", self.titan(r, t, name, lvl, msg)))
        return out

    def k_log(self, r, t, d):
        return [("err", self.titan(r, t, d["name"], d["lvl"], d["msg"]))]

    def step_line(self, r, t, d):
        job = self.job
        mem = d["mem"]
        tf = d["tps"] * 6 * 8e9 / job.world / 1e12 if job.world else 0
        mfu = tf / 989 * 100
        s = "%sstep: %2d  %sloss: %7.4f  " % (C_RED, d["step"], C_GREEN, d["loss"])
        if job.tv >= (2, 7):
            s += "%sgrad_norm: %7.4f  " % (C_MAGENTA, d["grad_norm"])
        s += "%smemory: %5.2fGiB(%.2f%%)  %stps: %s  %stflops: %s  %smfu: %.2f%%%s" % (
            C_YELLOW, mem, mem / job.gpu_cap * 100, C_BLUE, "{:,}".format(int(d["tps"] / job.world)), C_CYAN,
            "{:,.2f}".format(tf), C_MAGENTA, mfu, C_RESET)
        return self.titan(r, t, "root", "INFO", s)

    def k_metric(self, r, t, d):
        return [("err", self.step_line(r, t, d))]

    def k_end(self, r, t, d):
        return [("err", self.titan(r, t, "root", "INFO", "Training completed")),
                ("err", self.titan(r, t + 0.1, "root", "INFO", "Sleeping 2 seconds for other ranks to complete")),
                ("err", self.titan(r, t + 2.2, "root", "INFO", "Process group destroyed."))]

    def handled(self, r, t, lvl, pre, fr, et, em):
        out = [("err", self.titan(r, t, "root", lvl, pre))]
        if fr:
            out += [("err", x) for x in plain_tb(fr, et, em, self.job.py)]
        return out


def titan_banner(job, st, r, t):
    L = [("Starting job: %s training" % job.model_name.replace("-", " ").title(), 0),
         ("Building %d-D device mesh with ['dp_shard'], [%d]" % (1, job.world), 0.5),
         ("[GC] Initial GC collection. 0.00 seconds.", 0.6),
         ("CUDA capacity: %s with %.2fGiB memory" % (job.gpu_name, job.gpu_cap), 0.9),
         ("Model %s %s size: %s total parameters" % (job.model_name.split("-")[0], job.model_name.split("-")[-1].upper(), "{:,}".format({"llama3-8b": 8030261248, "qwen2.5-7b": 7615616512, "mistral-7b": 7241732096, "gpt-1.3b": 1315575808, "llama2-13b": 13015864320, "olmo-1b": 1176764416, "qwen2-1.5b": 1543714304, "vit-h14": 632045800}[job.model_name])), 3),
         ("Applied selective activation checkpointing to the model", 3.2),
         ("Applied FSDP to the model", 3.3),
         ("Peak FLOPS used for computing MFU: 9.890e+14", 3.4),
         ("CUDA memory usage for model: %.2fGiB(%.2f%%)" % (job.gpu_cap * 0.05, 5.0), 3.5),
         ("Training starts at step 1, with local batch size 1, global batch size %d, sequence length %d, total steps %d (warmup %d)" % (job.world, job.seq, job.max_steps, max(10, job.max_steps // 50)), job.t_train - t)]
    return [(t + dt_, st.titan(r, t + dt_, "root", "INFO", m)) for m, dt_ in L]


def render_titan(job, sim, outdir, rng):
    st = TitanStyle(job, sim, rng)
    st.dup = rng.random() < 0.5
    written = []
    con = Console()
    head = job.hosts[0]
    con.addlines(-3, ["+ srun --nodes=%d --ntasks-per-node=1 torchrun --nnodes %d --nproc_per_node %d --rdzv_id %s --rdzv_backend c10d --rdzv_endpoint %s:29500 --local-ranks-filter 0 --role rank --tee 3 --log-dir /fsx/%s/torchrun_logs -m torchtitan.train --job.config_file ./torchtitan/models/llama3/train_configs/%s.toml"
                      % (job.nnodes, job.nnodes, job.gpn, job.jobid, head, job.user, job.model_name.replace("-", "_"))])
    note = excerpt_note(job, sim)
    if note:
        con.add(-3, "# [excerpt: agent + rank output of %d of %d nodes kept]" % (len(sim.vis_nodes), job.nnodes))
    leaders = [n * job.gpn for n in sim.vis_nodes]
    for n in sim.vis_nodes:
        con.addlines(-1 + 0.01 * n, torchrun_start(job, n, -1 + 0.01 * n))
        r = n * job.gpn
        for t, s in titan_banner(job, st, r, sim.t_init[r] + 1):
            con.add(t, rank_prefix(job, r) + s)
    build_console(job, sim, st, leaders, con)
    # titan logs metrics on every rank; the console shows local rank 0 of every node
    for r in leaders:
        if r == 0:
            continue
        for rec in sim.recs.get(0, []):
            if rec[2] == "metric" and rec[0] <= sim.exits[r][0]:
                d = dict(rec[3])
                d["mem"] = d["mem"] * rng.uniform(0.98, 1.02)
                con.add(rec[0] + rng.uniform(0, 0.05), rank_prefix(job, r) + st.step_line(r, rec[0], d))
    for n in sim.vis_nodes:
        tbs = {}
        root, others, _ = node_failures(job, sim, n)
        for r in ([root] + others) if root is not None else []:
            for rec in sim.recs.get(r, []):
                if rec[2] == "exc":
                    fr, cause = exc_frames(job, rng, rec[3]["where"])
                    tbs[r] = plain_tb(fr, rec[3]["etype"], rec[3]["msg"], job.py)
        if n in sim.agent_sig and sim.killall is not None:
            con.addlines(sim.agent_sig[n], signal_exception_lines(job, n, sim.agent_sig[n], "torchrun", UTC))
        else:
            for tt, lines in torchrun_failure(job, sim, n, "torchtitan.train", rng, zone=UTC, error_tb=tbs):
                con.addlines(tt, lines)
    if sim.sched["state"] in ("PREEMPTED", "TIMEOUT"):
        tp = sim.sched["t"]
        con.add(tp, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO %s ***" % (job.jobid, head, ts_slurm(job.at(tp, 0, UTC)), sim.sched["reason"]))
        con.add(tp + 0.1, "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s DUE TO %s ***" % (job.jobid, head, ts_slurm(job.at(tp, 0, UTC)), sim.sched["reason"]))
    if job.cause == "host_oom_kill" and sim.variant == "main" and getattr(sim, "oom_cgroup", None):
        con.add(sim.exits[sim.culprit][0] + 0.4, "slurmstepd: error: Detected 1 oom_kill event in StepId=%d.0. Some of the step tasks have been OOM Killed." % job.jobid)
    for t, s in srun_end_lines(job, sim, "node"):
        con.add(t, s)
    write(outdir, "slurm-%d.out" % job.jobid, con.render())
    written.append("slurm-%d.out" % job.jobid)
    # torchrun --tee per-rank files
    files_nodes = [0]
    if sim.cnode is not None and sim.cnode in sim.vis_nodes:
        files_nodes.append(sim.cnode)
    for n in sorted(set(files_nodes)):
        if n not in sim.vis_nodes:
            continue
        base = "torchrun_logs/%s/%s_%s/attempt_0" % (job.hosts[n], job.jobid, job.tmpid)
        lranks = range(job.gpn) if (n == sim.cnode or job.gpn <= 4) else sorted(set([0, 1, rng.randrange(job.gpn)]))
        for l in lranks:
            r = n * job.gpn + l
            for stream, nm in (("err", "stderr.log"), ("out", "stdout.log")):
                c2 = Console()
                if stream == "err" and l == 0:
                    for t, s in titan_banner(job, st, r, sim.t_init[r] + 1):
                        c2.add(t, s)
                build_console(job, sim, st, [r], c2, prefix=False, stream=stream)
                if stream == "err" and r != 0:
                    for rec in sim.recs.get(0, []):
                        if rec[2] == "metric" and rec[0] <= sim.exits[r][0]:
                            c2.add(rec[0], st.step_line(r, rec[0], rec[3]))
                txt = c2.render()
                write(outdir, "%s/%d/%s" % (base, l, nm), txt if txt.strip() else "")
                written.append("%s/%d/%s" % (base, l, nm))
    write(outdir, "sacct.txt", sacct_text(job, sim, rng, "torchrun"))
    written.append("sacct.txt")
    for n in sorted(sim.kern_attached):
        nm = "dmesg-%s.log" % job.hosts[n]
        write(outdir, nm, kernel_file(job, sim, n, "iso", rng))
        written.append(nm)
    add_extras(job, sim, outdir, written)
    return written


# ======================================================================================
# L5: DeepSpeed launcher over pdsh + structlog console + W&B
# ======================================================================================

class DSStyle(Style):
    prefix = False

    def ds(self, r, t, lvl, src, msg):
        d = self.job.at(t, self.job.node_of(r))
        return "[%s] [%s] [%s] %s" % (ts_py(d), lvl, src, msg)

    def sl(self, r, t, lvl, event, kv):
        d = self.job.at(t, self.job.node_of(r))
        kvs = " ".join("%s=%s" % (k, v) for k, v in sorted(kv.items()))
        return "%s [%-9s] %-30s %s" % (d.strftime("%Y-%m-%d %H:%M:%S"), lvl.lower(), event, kvs)

    def user(self, r, t, lvl, msg, kv, func="fit", line=0):
        if func == "on_step_end":
            return [("out", self.sl(r, t, lvl, "step_timing", kv))]
        kv2 = dict(kv)
        kv2["rank"] = r
        return [("out", self.sl(r, t, lvl, msg, kv2))]

    def k_log(self, r, t, d):
        if d["lvl"] == "INFO":
            return []
        return [("err", "%s:%s:%s" % (d["lvl"], d["name"], d["msg"]))]

    def k_metric(self, r, t, d):
        job = self.job
        ms = d["step"]
        out = [("out", self.ds(r, t, "INFO", "logging.py:128:log_dist", "[Rank 0] step=%d, skipped=%d, lr=[%.10g], mom=[(0.9, 0.95)]" % (ms, self.skipped, d["lr"]))),
               ("out", self.ds(r, t + 0.001, "INFO", "timer.py:264:stop", "epoch=0/micro_step=%d/global_step=%d, RunningAvgSamplesPerSec=%.2f, CurrSamplesPerSec=%.2f, MemAllocated=%.2fGB, MaxMemAllocated=%.2fGB" % (
                   ms * self.gas, ms, job.gbs / job.step_time, job.gbs / d["step_time"], d["mem"] * 0.6, d["mem"]))),
               ("out", self.sl(r, t + 0.002, "INFO", "train", {"grad_norm": round(d["grad_norm"], 4), "loss": round(d["loss"], 4), "lr": float("%.4g" % d["lr"]), "step": ms}))]
        if self.fp16 and self.rng.random() < 0.06:
            self.skipped += 1
            out.insert(0, ("out", self.ds(r, t - 0.3, "INFO", "loss_scaler.py:183:update_scale", "[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: %d, reducing to %d" % (65536, 32768))))
        return out

    def handled(self, r, t, lvl, pre, fr, et, em):
        out = [("out", self.sl(r, t, lvl, pre, {"rank": r}))]
        if fr:
            out += [("out", x) for x in plain_tb(fr, et, em, self.job.py)]
        return out


def wandb_start(job, rng, rid, t0l):
    proj = pick(rng, ["llm-pretrain", "ds-experiments", "scaling"])
    ent = pick(rng, ["acme-research", "ml-team", job.user])
    return ["wandb: Currently logged in as: %s (%s). Use `wandb login --relogin` to force relogin" % (job.user, ent),
            "wandb: Tracking run with wandb version %s" % pick(rng, ["0.16.6", "0.17.5", "0.18.7", "0.19.1"]),
            "wandb: Run data is saved locally in %s/wandb/run-%s-%s" % (job.root, t0l.strftime("%Y%m%d_%H%M%S"), rid),
            "wandb: Run `wandb offline` to turn off syncing.",
            "wandb: Syncing run %s" % job.run_name,
            "wandb: ⭐️ View project at https://wandb.ai/%s/%s" % (ent, proj),
            "wandb: 🚀 View run at https://wandb.ai/%s/%s/runs/%s" % (ent, proj, rid)], ent, proj


def sparkline(vals):
    ch = "▁▂▃▄▅▆▇█"
    if not vals:
        return ""
    lo, hi = min(vals), max(vals)
    step = max(1, len(vals) // 40)
    vv = vals[::step]
    return "".join(ch[int((v - lo) / (hi - lo + 1e-12) * 7.999)] for v in vv)


def render_deepspeed(job, sim, outdir, rng):
    st = DSStyle(job, sim, rng)
    st.fp16 = rng.random() < 0.4
    st.skipped = 0
    st.gas = pick(rng, [1, 2, 4, 8])
    written = []
    head = job.hosts[0]
    con = Console()
    rid = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(8))
    t0l = job.at(0, 0)
    dsv = pick(rng, ["0.14.4", "0.15.4", "0.16.2", "0.13.1"])
    hd = lambda t, lvl, src, msg: "[%s] [%s] [%s] %s" % (ts_py(job.at(t, 0)), lvl, src, msg)
    con.addlines(-6, [hd(-6, "INFO", "real_accelerator.py:203:get_accelerator", "Setting ds_accelerator to cuda (auto detect)"),
                      hd(-5.5, "INFO", "runner.py:463:main", "Using IP address of %s for node %s" % (job.ips[0], head)),
                      hd(-5.4, "INFO", "multinode_runner.py:80:get_cmd", "Running on the following workers: %s" % ",".join(job.hosts)),
                      hd(-5.3, "INFO", "runner.py:568:main", "cmd = pdsh -S -f 1024 -w %s export PYTHONPATH=%s; export NCCL_DEBUG=%s;  cd %s; %s -u -m deepspeed.launcher.launch --world_info=%s --node_rank=%%n --master_addr=%s --master_port=29500 pretrain.py --deepspeed ds_config.json"
                         % (",".join(job.hosts), job.root, job.nccl_debug, job.root, job.pybin, "eyJ" + "".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789") for _ in range(40)) + "fQ==", job.ips[0]))])
    note = excerpt_note(job, sim)
    if note:
        con.add(-5, "# [excerpt: pdsh output of %s only]" % ", ".join(job.hosts[n] for n in sim.vis_nodes))
    wi = "{%s}" % ", ".join("'%s': [%s]" % (h, ", ".join(str(i) for i in range(job.gpn))) for h in job.hosts)
    out0 = Console()   # wandb output.log = rank 0 console without the pdsh prefix
    for n in sim.vis_nodes:
        h = job.hosts[n]
        p = h + ": "
        ln = lambda t, lvl, src, msg: p + "[%s] [%s] [%s] %s" % (ts_py(job.at(t, n)), lvl, src, msg)
        con.addlines(-4 + 0.01 * n, [ln(-4, "INFO", "real_accelerator.py:203:get_accelerator", "Setting ds_accelerator to cuda (auto detect)"),
                                     ln(-3.5, "INFO", "launch.py:146:main", "WORLD INFO DICT: %s" % wi),
                                     ln(-3.5, "INFO", "launch.py:152:main", "nnodes=%d, num_local_procs=%d, node_rank=%d" % (job.nnodes, job.gpn, n)),
                                     ln(-3.5, "INFO", "launch.py:164:main", "dist_world_size=%d" % job.world),
                                     ln(-3.5, "INFO", "launch.py:168:main", "Setting CUDA_VISIBLE_DEVICES=%s" % ",".join(str(i) for i in range(job.gpn)))])
        for l in range(job.gpn):
            r = n * job.gpn + l
            con.add(-3.4, ln(-3.4, "INFO", "launch.py:256:main", "process %d spawned with command: ['%s', '-u', 'pretrain.py', '--local_rank=%d', '--deepspeed', 'ds_config.json']" % (job.pids[r], job.pybin, l)))
            ti = sim.t_init[r]
            con.add(ti - 0.5, p + st.ds(r, ti - 0.5, "INFO", "comm.py:652:init_distributed", "cdb=None"))
            if l == 0 and n == 0:
                con.add(ti - 0.4, p + st.ds(r, ti - 0.4, "INFO", "comm.py:683:init_distributed", "Initializing TorchBackend in DeepSpeed with backend nccl"))
        ranks = list(range(n * job.gpn, (n + 1) * job.gpn))
        c2 = Console()
        build_console(job, sim, st, ranks, c2)
        for t, nn, s, prog in c2.items:
            con.add(t, p + s)
        if 0 in ranks:
            wl, ent, proj = wandb_start(job, rng, rid, t0l)
            for k, s in enumerate(wl):
                con.add(job.t_train - 20 + k * 0.01, p + s)
                out0.add(job.t_train - 20 + k * 0.01, s)
            con.add(job.t_train - 10, p + st.ds(0, job.t_train - 10, "INFO", "logging.py:128:log_dist", "[Rank 0] DeepSpeed info: version=%s, git-hash=unknown, git-branch=unknown" % dsv))
            con.add(job.t_train - 9, p + st.ds(0, job.t_train - 9, "INFO", "config.py:1004:print", "  zero_optimization_stage ...... %d" % pick(rng, [1, 2, 3])))
            for t, nn, s, prog in c2.items:
                if s.startswith("[rank") is False:
                    pass
            for rec in sim.recs[0]:
                for stream, s in st.render(0, rec) if rec[2] in ("metric", "ulog", "timing", "exc", "handled") else []:
                    out0.add(rec[0], s)
            if sim.exits[0][1] in (0, 1):
                te = sim.exits[0][0] - 0.5
                losses = [rec[3]["loss"] for rec in sim.recs[0] if rec[2] == "metric"]
                lrs = [rec[3]["lr"] for rec in sim.recs[0] if rec[2] == "metric"]
                tail = []
                if sim.exits[0][1] == 0:
                    tail = ["wandb: ", "wandb: Run history:", "wandb:   train/loss %s" % sparkline(losses), "wandb:     train/lr %s" % sparkline(lrs),
                            "wandb: ", "wandb: Run summary:", "wandb:   train/loss %.5f" % (losses[-1] if losses else 0), "wandb:     train/lr %.5g" % (lrs[-1] if lrs else 0), "wandb: "]
                tail += ["wandb: 🚀 View run %s at: https://wandb.ai/%s/%s/runs/%s" % (job.run_name, ent, proj, rid),
                         "wandb: Synced 5 W&B file(s), 0 media file(s), 2 artifact file(s) and 0 other file(s)",
                         "wandb: Find logs at: ./wandb/run-%s-%s/logs" % (t0l.strftime("%Y%m%d_%H%M%S"), rid)]
                for k, s in enumerate(tail):
                    con.add(te + k * 0.001, p + s)
                    out0.add(te + k * 0.001, s)
            rd = "wandb/run-%s-%s/files/" % (t0l.strftime("%Y%m%d_%H%M%S"), rid)
            lastm = [rec for rec in sim.recs[0] if rec[2] == "metric"]
            summ = {"_runtime": round(sim.exits[0][0] - job.t_train, 3), "_step": len(lastm),
                    "_timestamp": round((job.t0 + dt.timedelta(seconds=lastm[-1][0] if lastm else 0)).timestamp(), 6),
                    "_wandb": {"runtime": int(sim.exits[0][0] - job.t_train)}}
            if lastm:
                summ["train/loss"] = round(lastm[-1][3]["loss"], 6)
                summ["train/lr"] = lastm[-1][3]["lr"]
                summ["train/grad_norm"] = lastm[-1][3]["grad_norm"]
            write(outdir, rd + "output.log", out0.render())
            write(outdir, rd + "wandb-summary.json", json.dumps(summ, sort_keys=True) + "\n")
            written += [rd + "output.log", rd + "wandb-summary.json"]
        # launcher epilogue on this node
        codes = [sim.exits[r][1] for r in ranks]
        if all(c == 0 for c in codes):
            for r in ranks:
                con.add(sim.exits[r][0] + 0.2, ln(sim.exits[r][0] + 0.2, "INFO", "launch.py:351:main", "Process %d exits successfully." % job.pids[r]))
        else:
            own = sorted((sim.exits[r][0], r) for r in ranks if sim.exits[r][1] not in (0, -9) or (job.cause == "host_oom_kill" and r == sim.culprit))
            if own and n not in sim.agent_sig:
                t1, r1 = own[0]
                for r in ranks:
                    if r != r1:
                        con.add(t1 + 0.3, ln(t1 + 0.3, "INFO", "launch.py:319:sigkill_handler", "Killing subprocess %d" % job.pids[r]))
                con.add(t1 + 0.5, ln(t1 + 0.5, "ERROR", "launch.py:325:sigkill_handler", "['%s', '-u', 'pretrain.py', '--local_rank=%d', '--deepspeed', 'ds_config.json'] exits with return code = %d" % (job.pybin, job.local_of(r1), sim.exits[r1][1])))
                con.add(t1 + 1.0, "pdsh@%s: %s: ssh exited with exit code %d" % (head, h, 1 if sim.exits[r1][1] > 0 else 128 - sim.exits[r1][1]))
            elif n in sim.agent_sig:
                ta = sim.agent_sig[n]
                for r in ranks:
                    con.add(ta + 0.2, ln(ta + 0.2, "INFO", "launch.py:319:sigkill_handler", "Killing subprocess %d" % job.pids[r]))
                con.add(ta + 0.5, "pdsh@%s: %s: ssh exited with exit code 143" % (head, h))
    if sim.sched["state"] in ("PREEMPTED", "TIMEOUT"):
        tp = sim.sched["t"]
        con.add(tp, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO %s ***" % (job.jobid, head, ts_slurm(job.at(tp, 0)), sim.sched["reason"]))
    write(outdir, "ds_launch.log", con.render())
    written.append("ds_launch.log")
    write(outdir, "hostfile", "".join("%s slots=%d\n" % (h, job.gpn) for h in job.hosts))
    written.append("hostfile")
    for n in sorted(sim.kern_attached):
        nm = "kern-%s.log" % job.hosts[n]
        write(outdir, nm, kernel_file(job, sim, n, "syslog", rng))
        written.append(nm)
    add_extras(job, sim, outdir, written)
    return written


# ======================================================================================
# L6: absl logging + glog-style C++ lines, bare-metal torchrun
# ======================================================================================

class AbslStyle(Style):
    def absl(self, r, t, lvl, where, msg):
        d = self.job.at(t, self.job.node_of(r))
        ls = msg.split("\n")
        out = ["%s%s %d %s] %s" % (lvl[0], ts_glog(d), self.job.pthread[r], where, ls[0])]
        return out + ls[1:]

    def user(self, r, t, lvl, msg, kv, func="fit", line=0):
        where = "perf.py:41" if func == "on_step_end" else "loop.py:%d" % (line or 188)
        return [("err", x) for x in self.absl(r, t, lvl, where, msg)]

    def k_log(self, r, t, d):
        return [("err", x) for x in self.absl(r, t, d["lvl"], "%s:%d" % (d["file"], d["line"]), d["msg"])]

    def k_metric(self, r, t, d):
        return [("err", x) for x in self.absl(r, t, "INFO", "loop.py:231", "step=%d loss=%.4f lr=%.3e grad_norm=%.3f tokens/s=%s step_time=%.3fs" % (
            d["step"], d["loss"], d["lr"], d["grad_norm"], "{:,}".format(int(d["tps"])), d["step_time"]))]

    def k_exc(self, r, t, d):
        job = self.job
        fr, cause = exc_frames(job, self.rng, d["where"])
        tb = self.tb(r, fr, d, cause)
        out = self.absl(r, t, "ERROR", "main.py:91", "Training failed at step %d\n%s" % (job.fail_step, "\n".join(tb)))
        return [("err", x) for x in out + tb]

    def handled(self, r, t, lvl, pre, fr, et, em):
        msg = pre
        if fr:
            msg += "\n" + "\n".join(plain_tb(fr, et, em, self.job.py))
        return [("err", x) for x in self.absl(r, t, lvl, "ckpt_sync.py:61" if "checkpoint" in pre else "loop.py:203", msg)]

    def k_end(self, r, t, d):
        return [("err", x) for x in self.absl(r, t, "INFO", "main.py:93", "Training finished after %d steps" % self.job.max_steps)]


def render_absl(job, sim, outdir, rng):
    st = AbslStyle(job, sim, rng)
    written = []
    for n in sim.vis_nodes:
        con = Console()
        ranks = list(range(n * job.gpn, (n + 1) * job.gpn))
        con.add(-2, "$ torchrun --nnodes=%d --nproc-per-node=%d --node-rank=%d --master-addr=%s --master-port=29500 main.py --config=configs/%s.py --workdir=/scratch/%s/%s --alsologtostderr --log_dir=/scratch/%s/%s/absl"
                % (job.nnodes, job.gpn, n, job.hosts[0], job.model_name.replace("-", "_"), job.user, job.run_name, job.user, job.run_name))
        con.addlines(-1, torchrun_start(job, n, -1))
        for r in ranks:
            pre = rank_prefix(job, r)
            ti = sim.t_init[r]
            d = job.at(ti + 0.7, n)
            con.add(ti + 0.7, pre + "W%s %d fused_ops.cc:77] multi_tensor_apply chunk size 2097152 exceeds recommended 1048576 for %s; falling back" % (ts_glog(d), job.pids[r], job.arch))
            for x in st.absl(r, ti + 0.8, "INFO", "main.py:71", "process %d/%d on %s (local %d), torch %s, cuda %s" % (r, job.world, job.hosts[n], job.local_of(r), job.torch, job.cuda)):
                con.add(ti + 0.8, pre + x)
        build_console(job, sim, st, ranks, con)
        if job.cause == "preemption" and n == sim.cnode:
            tb = sim.preempt_t - 300
            d = job.at(tb, n)
            con.addlines(tb, ["", "Broadcast message from root@%s on pts/3 (%s):" % (job.hosts[n], d.strftime("%a %Y-%m-%d %H:%M:%S %Z")), "",
                              "The system will reboot at %s!" % job.at(sim.preempt_t, n).strftime("%a %Y-%m-%d %H:%M:%S %Z"), ""])
            con.addlines(sim.agent_sig[n], signal_exception_lines(job, n, sim.agent_sig[n], "torchrun"))
        else:
            for tt, lines in torchrun_failure(job, sim, n, "main.py", rng):
                con.addlines(tt, lines)
        nm = "launcher/%s.log" % job.hosts[n]
        write(outdir, nm, con.render())
        written.append(nm)
    # per-rank absl files for a few ranks
    keep = [0]
    if sim.culprit is not None and sim.culprit in sim.recs:
        keep.append(sim.culprit)
    others = [r for r in sorted(sim.recs) if r not in keep]
    rng.shuffle(others)
    keep += others[:rng.randint(1, 2)]
    for r in sorted(set(keep)):
        con = Console()
        for rec in sim.recs[r]:
            t, _, kind, d = rec
            if kind in ("log", "ulog", "timing", "metric", "handled", "end"):
                for _, s in st.render(r, rec):
                    con.add(t, s)
            elif kind == "exc":
                fr, cause = exc_frames(job, rng, d["where"])
                tb = st.tb(r, fr, d, cause)
                for s in st.absl(r, t, "ERROR", "main.py:91", "Training failed at step %d\n%s" % (job.fail_step, "\n".join(tb))):
                    con.add(t, s)
        for (rr, t, lines) in getattr(st, "later", []):
            if rr == r and t <= sim.exits[r][0]:
                for _, s in lines:
                    con.add(t, s)
        st.later = []
        d = job.at(sim.t_init[r], job.node_of(r))
        nm = "absl/rank%d/main.%s.%s.log.INFO.%s.%d" % (r, job.host_of(r), job.user, d.strftime("%Y%m%d-%H%M%S"), job.pids[r])
        write(outdir, nm, con.render())
        written.append(nm)
    if 0 in sim.recs:
        rows = []
        for rec in sim.recs[0]:
            if rec[2] == "metric":
                d = rec[3]
                rows.append(json.dumps({"step": d["step"], "loss": round(d["loss"], 5), "lr": float("%.5g" % d["lr"]),
                                        "grad_norm": round(d["grad_norm"], 4), "tokens_per_sec": round(d["tps"], 1),
                                        "wall": round((job.t0 + dt.timedelta(seconds=rec[0] + job.skew[0])).timestamp(), 3)}))
        write(outdir, "metrics.jsonl", "\n".join(rows) + "\n")
        written.append("metrics.jsonl")
    for n in sorted(sim.kern_attached):
        nm = "journal-%s.txt" % job.hosts[n]
        write(outdir, nm, kernel_file(job, sim, n, "journal_iso", rng))
        written.append(nm)
    add_extras(job, sim, outdir, written)
    return written


# ======================================================================================
# L7: typer CLI (Rich pretty exceptions) driving ms-swift through in-process torchrun
# ======================================================================================

class SwiftStyle(Style):
    def timing_msg(self, r, base):
        return "[rank%d] %s" % (r, base)

    def user(self, r, t, lvl, msg, kv, func="fit", line=0):
        return [("err", "[%s:swift] %s" % (lvl, msg))]

    def k_log(self, r, t, d):
        return [("err", "[%s:%s] %s" % (d["lvl"], d["name"].split(".")[0], d["msg"]))]

    def k_exc(self, r, t, d):
        fr, cause = exc_frames(self.job, self.rng, d["where"])
        out = []
        if cause is not None:
            out += rich_tb(cause, d["chain"][0], d["chain"][1], self.rng, show_locals=False)
            out += ["", "The above exception was the direct cause of the following exception:", ""]
        out += rich_tb(fr, d["etype"], d["msg"], self.rng, show_locals=True)
        return [("err", x) for x in out]

    def handled(self, r, t, lvl, pre, fr, et, em):
        out = [("err", "[%s:swift] %s" % (lvl, pre))]
        if fr:
            out += [("err", x) for x in rich_tb(fr, et, em, self.rng, show_locals=False)]
        return out

    def swift_metric(self, d, t):
        job = self.job
        el = t - job.t_train
        rem = (job.max_steps - d["step"]) * d["step_time"]

        def hm(s):
            s = int(s)
            h, m = s // 3600, (s % 3600) // 60
            return ("%dh %dm %ds" % (h, m, s % 60)) if h else ("%dm %ds" % (m, s % 60)) if m else "%ds" % s
        o = {"loss": round(d["loss"], 5), "token_acc": round(max(0.08, min(0.97, 0.93 - d["loss"] / 11.0)), 5), "grad_norm": round(d["grad_norm"], 6),
             "learning_rate": float("%.4g" % d["lr"]), "memory(GiB)": round(d["mem"], 2), "train_speed(iter/s)": round(1 / d["step_time"], 6),
             "epoch": round(d["step"] / job.max_steps, 2), "global_step/max_steps": "%d/%d" % (d["step"], job.max_steps),
             "percentage": "%.2f%%" % (100.0 * d["step"] / job.max_steps), "elapsed_time": hm(el), "remaining_time": hm(rem)}
        return o

    def k_end(self, r, t, d):
        if r != 0:
            return []
        ov = "/output/%s/v%d-%s" % (self.job.model_name, self.job.idx % 7, self.job.at(0, 0).strftime("%Y%m%d-%H%M%S"))
        return [("err", "[INFO:swift] last_model_checkpoint: %s/checkpoint-%d" % (ov, self.job.max_steps)),
                ("err", "[INFO:swift] best_model_checkpoint: None"),
                ("err", "[INFO:swift] images_dir: %s/images" % ov),
                ("err", "[INFO:swift] End time of running main: %s" % self.job.at(t, 0).strftime("%Y-%m-%d %H:%M:%S.%f"))]


def rich_console_log(job, t, node, msg, path, last):
    d = job.at(t, node)
    ts = d.strftime("[%H:%M:%S]")
    show = ts if last.get("ts") != ts else " " * len(ts)
    last["ts"] = ts
    w = 120 - len(ts) - 2 - len(path)
    return "%s %s %s" % (show, msg[:w].ljust(w), path)


def render_swift(job, sim, outdir, rng):
    st = SwiftStyle(job, sim, rng)
    written = []
    ov = "/output/%s/v%d-%s" % (job.model_name, job.idx % 7, job.at(0, 0).strftime("%Y%m%d-%H%M%S"))
    for n in sim.vis_nodes:
        con = Console(join="\r", append_after_bar=True)
        ranks = list(range(n * job.gpn, (n + 1) * job.gpn))
        last = {}
        con.add(-4, rich_console_log(job, -4, n, "llmctl 0.%d.%d · config configs/%s.yaml" % (rng.randint(2, 9), rng.randint(0, 20), job.model_name), "cli.py:96", last))
        con.add(-3.9, rich_console_log(job, -3.9, n, "launching %d node(s) x %d GPU(s), node_rank=%d, master=%s:29500" % (job.nnodes, job.gpn, n, job.hosts[0]), "cli.py:112", last))
        con.addlines(-1, torchrun_start(job, n, -1))
        for r in ranks:
            pre = rank_prefix(job, r)
            ti = sim.t_init[r]
            con.addlines(ti, [pre + "[INFO:swift] Successfully registered `%s/swift/llm/dataset/data/dataset_info.json`." % job.site,
                              pre + "[INFO:swift] rank: %d, local_rank: %d, world_size: %d, local_world_size: %d" % (r, job.local_of(r), job.world, job.gpn),
                              pre + "[INFO:swift] Global seed set to %d" % job.seed_v])
        if 0 in ranks:
            pre = rank_prefix(job, 0)
            con.addlines(sim.t_init[0] + 1, [pre + "[INFO:swift] The SftArguments will be saved in: %s/args.json" % ov,
                                             pre + "[INFO:swift] The logging file will be saved in: %s/logging.jsonl" % ov,
                                             pre + "[INFO:swift] model_parameter_info: PeftModelForCausalLM: %.4fM Params (%.4fM Trainable [%.4f%%]), 0.0001M Buffers." % (7615.6, 40.37, 0.53)])
        build_console(job, sim, st, ranks, con)
        if 0 in ranks:
            pre = rank_prefix(job, 0)
            for rec in sim.recs[0]:
                if rec[2] != "metric":
                    continue
                t, d = rec[0], rec[3]
                con.add(t - 0.001, pre + tqdm_bar(d["step"], job.max_steps, t - job.t_train, d["step_time"], desc="Train: "), prog=True)
                con.add(t, repr(st.swift_metric(d, t)))
            if sim.end_ok:
                te = job.step_t(job.max_steps) + 1
                con.add(te, pre + tqdm_bar(job.max_steps, job.max_steps, te - job.t_train, job.step_time, desc="Train: "))
        # launcher: torchrun inside the typer process -> typer pretty exception box
        if n in sim.agent_sig and sim.killall is not None:
            con.addlines(sim.agent_sig[n], signal_exception_lines(job, n, sim.agent_sig[n], "torchrun"))
        else:
            chunks = torchrun_failure(job, sim, n, "swift/cli/sft.py", rng, outer="none")
            if chunks:
                for tt, lines in chunks[:-1]:
                    con.addlines(tt, lines)
                tt, lines = chunks[-1]
                k = [i for i, s in enumerate(lines) if s.startswith("=" * 20)]
                agent_lines = lines[:k[0]] if k else lines
                summary = lines[k[0]:] if k else []
                con.addlines(tt, agent_lines)
                S = job.site
                frs = [F(job.root + "/llmctl/cli.py", 131, "sft", "torchrun_main(argv)",
                         ["    argv = build_torchrun_argv(nnodes, nproc, node_rank, master)", "    console.log(f\"launching {nnodes} node(s) x {nproc} GPU(s)\")"],
                         ["", ""], loc=[("master", "'%s'" % job.hosts[0]), ("nnodes", str(job.nnodes)), ("node_rank", str(n)), ("nproc", str(job.gpn))]),
                       F(S + "/torch/distributed/elastic/multiprocessing/errors/__init__.py", 355, "wrapper", "return f(*args, **kwargs)", lib=True),
                       F(S + "/torch/distributed/run.py", 919, "main", "run(args)", lib=True),
                       F(S + "/torch/distributed/run.py", 910, "run", "elastic_launch(", lib=True),
                       F(S + "/torch/distributed/launcher/api.py", 138, "__call__", "return launch_agent(self._config, self._entrypoint, list(args))", lib=True),
                       F(S + "/torch/distributed/launcher/api.py", 269, "launch_agent", "raise ChildFailedError(", lib=True)]
                box = rich_tb(frs, "ChildFailedError", "\n".join([""] + summary), rng, show_locals=True)
                con.addlines(tt + 0.2, box)
        nm = "run-%s.log" % job.hosts[n]
        write(outdir, nm, con.render())
        written.append(nm)
    if 0 in sim.recs:
        rows = [json.dumps(st.swift_metric(rec[3], rec[0])) for rec in sim.recs[0] if rec[2] == "metric"]
        write(outdir, ov.lstrip("/") + "/logging.jsonl", "\n".join(rows) + "\n")
        written.append(ov.lstrip("/") + "/logging.jsonl")
    # slurm stderr of the wrapper step
    sl = Console()
    head = job.hosts[0]
    if sim.sched["state"] in ("PREEMPTED", "TIMEOUT"):
        tp = sim.sched["t"]
        sl.add(tp, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO %s ***" % (job.jobid, head, ts_slurm(job.at(tp, 0)), sim.sched["reason"]))
        sl.add(tp + 0.1, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.")
    if job.cause == "host_oom_kill" and sim.variant == "main" and getattr(sim, "oom_cgroup", None):
        sl.add(sim.exits[sim.culprit][0] + 0.5, "slurmstepd: error: Detected 1 oom_kill event in StepId=%d.0. Some of the step tasks have been OOM Killed." % job.jobid)
    for t, s in srun_end_lines(job, sim, "node"):
        sl.add(t, s)
    sl.add(-5, "srun --nodes=%d --ntasks-per-node=1 bash -c 'llmctl sft configs/%s.yaml 2>&1 | tee run-$(hostname).log'" % (job.nnodes, job.model_name))
    write(outdir, "slurm-%d.out" % job.jobid, sl.render())
    written.append("slurm-%d.out" % job.jobid)
    for n in sorted(sim.kern_attached):
        nm = "kernel-%s.txt" % job.hosts[n]
        write(outdir, nm, kernel_file(job, sim, n, "dmesgT", rng))
        written.append(nm)
    add_extras(job, sim, outdir, written)
    return written


# ======================================================================================
# driver
# ======================================================================================

RENDER = {
    "lightning-rich-slurm": render_lightning,
    "accelerate-loguru": render_accelerate,
    "hydra-structlog-k8s": render_k8s,
    "titan-colorlog-slurm": render_titan,
    "deepspeed-wandb-pdsh": render_deepspeed,
    "absl-glog-bare": render_absl,
    "typer-swift-rich": render_swift,
}

MAX_BYTES = 1000 * 1000 - 24 * 1024


def plan(seed, n):
    rng = random.Random("blind29|%s|plan" % seed)
    order = CAUSES[:]
    rng.shuffle(order)
    causes, k = [], 0
    for i in range(n):
        if i % 7 == 3:
            causes.append(None)
        else:
            causes.append(order[k % len(order)])
            k += 1
    layouts, b = [], 0
    while len(layouts) < n:
        blk = LAYOUTS[:]
        random.Random("blind29|%s|layouts|%d" % (seed, b)).shuffle(blk)
        layouts += blk
        b += 1
    return list(zip(causes, layouts[:n]))


def folder_size(d):
    tot = 0
    for root, dirs, files in os.walk(d):
        for f in files:
            tot += os.path.getsize(os.path.join(root, f))
    return tot


def trim_to_fit(d):
    """The uploader trims the middle of the biggest log (as people do) until the bundle fits."""
    guard = 0
    while folder_size(d) > MAX_BYTES and guard < 20:
        guard += 1
        big, bs = None, -1
        for root, dirs, files in os.walk(d):
            for f in sorted(files):
                p = os.path.join(root, f)
                s = os.path.getsize(p)
                if s > bs and f != "truth.json":
                    big, bs = p, s
        with open(big, encoding="utf-8") as fh:
            lines = fh.read().split("\n")
        excess = folder_size(d) - MAX_BYTES
        n = len(lines)
        a = int(n * 0.15)
        cut, b = 0, a
        while b < int(n * 0.8) and cut < excess + 2048:
            cut += len(lines[b].encode("utf-8")) + 1
            b += 1
        if b <= a:
            break
        lines = lines[:a] + ["[... %d lines trimmed before upload ...]" % (b - a)] + lines[b:]
        with open(big, "w", encoding="utf-8", newline="\n") as fh:
            fh.write("\n".join(lines))


def truth_for(job, sim):
    cause = job.cause
    rank = None
    node = None
    if cause in RANK_CAUSES:
        rank = sim.culprit
        node = sim.cnode
    elif cause == "network" and sim.variant == "node":
        rank = sim.culprit
        node = sim.cnode
    elif cause == "preemption" and sim.variant == "node":
        node = sim.cnode
    drain = cause in DRAIN_CAUSES or (cause == "network" and sim.variant == "node")
    host = job.truth_host(node) if node is not None else None
    aliases = list(job.aliases[node]) if node is not None else []
    if node is not None and job.k8s_nodes:
        aliases = [job.pods[node], job.ips[node]]
    skew = ["%s %+.1fs" % (job.truth_host(i), job.skew[i]) for i in range(job.nnodes) if abs(job.skew[i]) > 5]
    vis = "all nodes" if len(sim.vis_nodes) == job.nnodes else "nodes %s of %d" % (
        ",".join(job.truth_host(n) for n in sim.vis_nodes), job.nnodes)
    notes = ("world=%d (%d nodes x %d GPUs, %s); torch %s, NCCL %s, CUDA %s, python %s; NCCL_DEBUG=%s; timeout=%ds. "
             "Injected: %s%s. Logs attached for %s%s. Decoys: %s.%s" % (
                 job.world, job.nnodes, job.gpn, job.gpu_name, job.torch, job.nccl, job.cuda, job.py, job.nccl_debug,
                 job.timeout_ms // 1000, "; ".join(x for x in job.notes if x),
                 (" [variant %s]" % sim.variant) if sim.variant else "", vis,
                 ("; kernel log attached for %s" % ",".join(job.truth_host(n) for n in sorted(sim.kern_attached))) if sim.kern_attached else "",
                 "; ".join(job.decoys) if job.decoys else "none beyond benign warnings",
                 (" Clock skew: %s." % ", ".join(skew)) if skew else ""))
    if rank is not None and not sim.rank_inferable:
        notes += " Culprit rank is not recoverable from the attached files (only its node is)."
    return {"cause": cause, "healthy": job.healthy, "rank": rank, "node": host, "drain": bool(drain),
            "rank_inferable": bool(sim.rank_inferable) if rank is not None else False,
            "node_aliases": aliases if host else [], "layout": job.layout, "notes": notes}


def main(argv=None):
    ap = argparse.ArgumentParser(description="blind29: pretty/structured-formatter GPU training failure bundles")
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--seed", default="1")
    a = ap.parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    counts = {}
    for i, (cause, layout) in enumerate(plan(a.seed, a.n)):
        job = Job(a.seed, i, layout, cause)
        sim = simulate(job)
        d = os.path.join(a.out, "run-%03d-%s" % (i, layout))
        if os.path.isdir(d):
            shutil.rmtree(d)
        os.makedirs(d)
        rrng = random.Random("blind29|%s|%d|render" % (a.seed, i))
        RENDER[layout](job, sim, d, rrng)
        trim_to_fit(d)
        t = truth_for(job, sim)
        with open(os.path.join(d, "truth.json"), "w", encoding="utf-8") as fh:
            json.dump(t, fh, indent=2)
            fh.write("\n")
        key = cause or "healthy"
        counts[key] = counts.get(key, 0) + 1
    print(json.dumps({k: counts[k] for k in sorted(counts)}, indent=None))


if __name__ == "__main__":
    main()
