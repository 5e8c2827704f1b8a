#!/usr/bin/env python3
"""gen_blind30.py - blind generator of synthetic GPU-training failure bundles.

Theme: supercomputer schedulers and MPI launchers beyond plain srun
(PBS Pro + Cray PALS mpiexec, Torque + Open MPI/Horovod, IBM LSF + jsrun,
SGE/UGE + Open MPI, HTCondor + torchrun, Flux + RCCL, PBS Pro + Intel
MPI/MPICH Hydra, Slurm srun --mpi=pmix).

Written without reading the diagnosis tool's code, rules, tests or corpus.
Standard library only.  Usage:

    python3 gen_blind30.py --out DIR --n 60 --seed S
"""
import argparse
import json
import os
import random
import shutil
import sys
from datetime import datetime, timedelta, timezone

CAUSES = ["gpu_hardware", "ecc_memory", "nvlink", "network", "cuda_oom",
          "illegal_memory_access", "python_exception", "host_oom_kill",
          "crash_signal", "preemption", "hang", "data_loader_stall",
          "collective_mismatch", "straggler", "unknown"]
LAYOUTS = ["pbs-pals", "torque-ompi", "lsf-jsrun", "sge-ompi", "htcondor",
           "flux-rccl", "pbs-hydra", "slurm-pmix"]
DRAIN_CAUSES = ("gpu_hardware", "ecc_memory", "nvlink", "network")

TORCH_VERSIONS = ["2.0.1", "2.1.2", "2.2.2", "2.3.1", "2.4.1", "2.5.1",
                  "2.6.0", "2.7.1", "2.8.0", "2.9.0"]
NCCL_FOR_TORCH = {"2.0.1": ["2.18.3", "2.18.5"], "2.1.2": ["2.18.5", "2.18.6"],
                  "2.2.2": ["2.19.3"], "2.3.1": ["2.20.5"],
                  "2.4.1": ["2.20.5", "2.21.5"], "2.5.1": ["2.21.5"],
                  "2.6.0": ["2.21.5", "2.23.4"], "2.7.1": ["2.26.2"],
                  "2.8.0": ["2.26.5", "2.27.3"], "2.9.0": ["2.27.5", "2.27.7"]}
CUDA_FOR_TORCH = {"2.0.1": "11.8", "2.1.2": "12.1", "2.2.2": "12.1",
                  "2.3.1": "12.1", "2.4.1": "12.4", "2.5.1": "12.4",
                  "2.6.0": "12.6", "2.7.1": "12.8", "2.8.0": "12.8",
                  "2.9.0": "12.9"}
ROCM_FOR_TORCH = {"2.0.1": "5.4.2", "2.1.2": "5.6", "2.2.2": "5.7",
                  "2.3.1": "6.0", "2.4.1": "6.1", "2.5.1": "6.2",
                  "2.6.0": "6.2.4", "2.7.1": "6.3", "2.8.0": "6.4",
                  "2.9.0": "6.4"}

MON = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct",
       "Nov", "Dec"]
DOW = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]

# time zones: (dst name, dst offset), (std name, std offset), hemisphere
TZS = {
    "chicago": (("CDT", -5), ("CST", -6), "N"),
    "newyork": (("EDT", -4), ("EST", -5), "N"),
    "sydney": (("AEDT", 11), ("AEST", 10), "S"),
    "rome": (("CEST", 2), ("CET", 1), "N"),
    "berlin": (("CEST", 2), ("CET", 1), "N"),
    "la": (("PDT", -7), ("PST", -8), "N"),
    "london": (("BST", 1), ("GMT", 0), "N"),
    "denver": (("MDT", -6), ("MST", -7), "N"),
}


def tz_at(key, t):
    dst, std, hemi = TZS[key]
    m = datetime.fromtimestamp(t, timezone.utc).month
    if hemi == "N":
        on = 4 <= m <= 10
    else:
        on = m >= 10 or m <= 3
    return dst if on else std


# ---------------------------------------------------------------------------
# site descriptions
# ---------------------------------------------------------------------------

def polaris_hosts(rng, n):
    start = rng.randint(3001, 3210 - (n // 14) - 1)
    slots = [1, 7, 13, 19, 25, 31, 37]
    out = []
    rack = start
    si = rng.randint(0, 6)
    b = rng.randint(0, 1)
    while len(out) < n:
        out.append("x%dc0s%db%dn0" % (rack, slots[si], b))
        b += 1
        if b > 1:
            b = 0
            si += 1
            if si >= len(slots):
                si = 0
                rack += 1
    return out


def summit_hosts(rng, n):
    rows = "abcdefgh"
    ri = rng.randint(0, 7)
    col = rng.randint(1, 36)
    node = rng.randint(1, 18)
    out = []
    while len(out) < n:
        out.append("%s%02dn%02d" % (rows[ri], col, node))
        node += 1
        if node > 18:
            node = 1
            col += 1
            if col > 50:
                col = 1
                ri = (ri + 1) % 8
    return out


def seq_hosts(rng, n, fmt, lo, hi, gap=0.15):
    start = rng.randint(lo, max(lo, hi - n * 2))
    out = []
    k = start
    while len(out) < n:
        out.append(fmt % k)
        k += 1
        if rng.random() < gap:
            k += rng.randint(1, 4)
    return out


def pick_nodes(rng, choices):
    return rng.choice(choices)


class Site:
    pass


def make_site(rng, layout, cause=None):
    s = Site()
    s.layout = layout
    s.vendor = "nvidia"
    if layout == "pbs-pals":
        s.machine = "polaris"
        s.tz = "chicago"
        s.gpu = "NVIDIA A100-SXM4-40GB"
        s.cap = 39.39
        s.gpn = 4
        s.nnodes = pick_nodes(rng, [2, 2, 4, 4, 8, 8, 10, 16, 24, 32, 64, 128])
        s.hosts = polaris_hosts(rng, s.nnodes)
        s.domain = ".hsn.cm.polaris.alcf.anl.gov"
        s.bus = ["0000:07:00", "0000:46:00", "0000:85:00", "0000:c7:00"]
        s.net = "ofi"
        s.fs = "/lus/eagle/projects"
        s.home = "/home"
        s.ipbase = "10.140."
        s.python = "/soft/applications/conda/2024-04-29/mconda3/bin/python"
        s.site_pkgs = "/soft/applications/conda/2024-04-29/mconda3/lib/python3.11/site-packages"
    elif layout == "torque-ompi":
        s.machine = rng.choice(["owens-like", "cluster"])
        s.tz = "denver"
        s.gpu, s.cap, s.gpn = rng.choice([
            ("Tesla V100-SXM2-32GB", 31.74, 4),
            ("NVIDIA A100-PCIE-40GB", 39.39, 2),
            ("NVIDIA A100-SXM4-80GB", 79.15, 4)] if cause != "nvlink" else [
            ("Tesla V100-SXM2-32GB", 31.74, 4), ("NVIDIA A100-SXM4-80GB", 79.15, 4)])
        s.nnodes = pick_nodes(rng, [1, 2, 2, 2, 3, 4, 4, 6, 8])
        s.hosts = seq_hosts(rng, s.nnodes, "gpu%03d", 1, 96)
        s.domain = ".cm.cluster"
        s.bus = ["0000:18:00", "0000:3b:00", "0000:86:00", "0000:af:00"][:s.gpn]
        s.net = "ib"
        s.fs = "/scratch"
        s.home = "/home"
        s.ipbase = "10.149."
        s.python = "/apps/python/3.10/bin/python3"
        s.site_pkgs = "/home/{user}/venvs/hvd/lib/python3.10/site-packages"
    elif layout == "lsf-jsrun":
        s.machine = "summit"
        s.tz = "newyork"
        s.gpu = "Tesla V100-SXM2-16GB"
        s.cap = 15.78
        s.gpn = 6
        s.nnodes = pick_nodes(rng, [2, 2, 4, 4, 8, 8, 16, 20, 32, 64])
        s.hosts = summit_hosts(rng, s.nnodes)
        s.domain = ".summit.olcf.ornl.gov"
        s.bus = ["0004:04:00", "0004:05:00", "0004:06:00", "0035:03:00",
                 "0035:04:00", "0035:05:00"]
        s.net = "ib"
        s.fs = "/gpfs/alpine/proj-shared"
        s.home = "/ccs/home"
        s.ipbase = "10.41."
        s.python = "/sw/summit/open-ce/anaconda-base/envs/open-ce-1.9.1-py39-0/bin/python"
        s.site_pkgs = "/sw/summit/open-ce/anaconda-base/envs/open-ce-1.9.1-py39-0/lib/python3.9/site-packages"
    elif layout == "sge-ompi":
        s.machine = "rocks"
        s.tz = "london"
        s.gpu, s.cap, s.gpn = rng.choice([
            ("NVIDIA A40", 44.34, 4), ("NVIDIA RTX A6000", 47.53, 8),
            ("NVIDIA H100 80GB HBM3", 79.11, 4), ("Tesla V100-PCIE-32GB", 31.74, 2)] if cause != "nvlink" else [
            ("NVIDIA H100 80GB HBM3", 79.11, 4), ("NVIDIA A100-SXM4-80GB", 79.15, 8)])
        s.nnodes = pick_nodes(rng, [1, 1, 2, 2, 3, 4, 4, 8])
        s.hosts = ["compute-%d-%d" % (rng.randint(0, 3), k) for k in
                   range(rng.randint(0, 20), 40)][:s.nnodes]
        s.domain = ".local"
        s.bus = ["0000:1b:00", "0000:1c:00", "0000:3d:00", "0000:3e:00",
                 "0000:88:00", "0000:89:00", "0000:b1:00", "0000:b2:00"][:s.gpn]
        s.net = "ib"
        s.fs = "/data/scratch"
        s.home = "/home"
        s.ipbase = "10.1."
        s.python = "/opt/miniforge3/envs/torch/bin/python"
        s.site_pkgs = "/opt/miniforge3/envs/torch/lib/python3.11/site-packages"
    elif layout == "htcondor":
        s.machine = "chtc"
        s.tz = "chicago"
        s.gpu, s.cap, s.gpn = rng.choice([
            ("NVIDIA A100-SXM4-80GB", 79.15, 4), ("NVIDIA A100-SXM4-80GB", 79.15, 8),
            ("NVIDIA H100 80GB HBM3", 79.11, 4), ("NVIDIA L40S", 44.39, 2),
            ("NVIDIA RTX A6000", 47.53, 4)] if cause != "nvlink" else [
            ("NVIDIA A100-SXM4-80GB", 79.15, 4), ("NVIDIA H100 80GB HBM3", 79.11, 8)])
        s.nnodes = 1 if (rng.random() < 0.6 and cause != "network") else rng.choice([2, 2, 3, 4])
        s.hosts = seq_hosts(rng, s.nnodes, "gpu%04d", 2000, 4050)
        s.domain = ".chtc.wisc.edu"
        s.bus = ["0000:07:00", "0000:0f:00", "0000:47:00", "0000:4e:00",
                 "0000:87:00", "0000:90:00", "0000:b7:00", "0000:bd:00"][:s.gpn]
        s.net = "ib" if s.nnodes > 1 else "none"
        s.fs = "/staging"
        s.home = "/home"
        s.ipbase = "128.105."
        s.python = "/usr/bin/python3"
        s.site_pkgs = "/usr/local/lib/python3.10/dist-packages"
    elif layout == "flux-rccl":
        s.vendor = "amd"
        m = rng.choice(["tioga", "tuolumne", "elcap"])
        s.machine = m
        s.tz = "la"
        if m == "tioga":
            s.gpu, s.cap, s.gpn = "AMD Instinct MI250X", 63.98, 8
        else:
            s.gpu, s.cap, s.gpn = "AMD Instinct MI300A", 128.0, 4
        s.nnodes = pick_nodes(rng, [1, 2, 2, 4, 4, 8, 16, 32, 64])
        hi = {"tioga": 32, "tuolumne": 1150, "elcap": 11130}[m]
        s.hosts = seq_hosts(rng, s.nnodes, m + "%d", 1, hi)
        s.domain = ".llnl.gov"
        if s.gpn == 8:
            s.bus = ["0000:c1:00", "0000:c6:00", "0000:c9:00", "0000:ce:00",
                     "0000:d1:00", "0000:d6:00", "0000:d9:00", "0000:de:00"]
        else:
            s.bus = ["0000:02:00", "0001:02:00", "0002:02:00", "0003:02:00"]
        s.net = "ofi"
        s.fs = "/p/lustre5"
        s.home = "/g/g20"
        s.ipbase = "192.168."
        s.python = "/usr/WS1/{user}/venvs/rocm-torch/bin/python3"
        s.site_pkgs = "/usr/WS1/{user}/venvs/rocm-torch/lib/python3.11/site-packages"
    elif layout == "pbs-hydra":
        s.machine = "gadi"
        s.tz = "sydney"
        if rng.random() < 0.55:
            s.gpu, s.cap, s.gpn = "Tesla V100-SXM2-32GB", 31.74, 4
            fmt = "gadi-gpu-v100-%04d"
            hi = 160
        else:
            s.gpu, s.cap, s.gpn = "NVIDIA A100-SXM4-80GB", 79.15, 8
            fmt = "gadi-dgx-a100-%04d"
            hi = 20
        s.nnodes = pick_nodes(rng, [1, 1, 2, 2, 4, 4, 8, 16] if s.gpn == 4 else [1, 2, 2, 4, 8])
        s.hosts = seq_hosts(rng, s.nnodes, fmt, 1, hi)
        s.domain = ".gadi.nci.org.au"
        s.bus = ["0000:3d:00", "0000:3e:00", "0000:b1:00", "0000:b2:00",
                 "0000:c7:00", "0000:c8:00", "0000:e0:00", "0000:e1:00"][:s.gpn]
        s.net = "ib"
        s.fs = "/scratch"
        s.home = "/home"
        s.ipbase = "10.6."
        s.python = "/apps/pytorch/2.1.2/bin/python3"
        s.site_pkgs = "/apps/pytorch/2.1.2/lib/python3.10/site-packages"
    else:  # slurm-pmix
        m = rng.choice(["juwels", "leonardo"])
        s.machine = m
        s.tz = "berlin" if m == "juwels" else "rome"
        s.gpu, s.cap, s.gpn = (("NVIDIA A100-SXM4-40GB", 39.39, 4) if m == "juwels"
                               else ("NVIDIA A100-SXM-64GB", 63.43, 4))
        s.nnodes = pick_nodes(rng, [2, 2, 4, 4, 8, 16, 32, 64, 128])
        if m == "juwels":
            s.hosts = seq_hosts(rng, s.nnodes, "jwb%04d", 1, 936)
            s.domain = ".juwels"
            s.fs = "/p/scratch"
            s.home = "/p/home/jusers"
        else:
            s.hosts = seq_hosts(rng, s.nnodes, "lrdn%04d", 1, 3456)
            s.domain = ".leonardo.local"
            s.fs = "/leonardo_scratch/large/userexternal"
            s.home = "/leonardo/home/userexternal"
        s.bus = ["0000:03:00", "0000:44:00", "0000:84:00", "0000:c4:00"]
        s.net = "ib"
        s.ipbase = "10.12."
        s.python = "/p/software/stages/2024/software/Python/3.11.3-GCCcore-12.3.0/bin/python3" if m == "juwels" else "/leonardo/prod/opt/libraries/python/3.11.6/bin/python3"
        s.site_pkgs = "/p/project/{proj}/{user}/venv/lib/python3.11/site-packages" if m == "juwels" else "/leonardo_work/{proj}/{user}/venv/lib/python3.11/site-packages"
    return s


USERS = ["jdoe", "mkhan", "apatel", "lchen", "rsmith", "tnguyen", "kmueller",
         "sgarcia", "yli", "bwilson", "hkim", "pmartin", "erossi", "dwang"]
PROJECTS = {"pbs-pals": ["FoundEpi", "AIHEP_scale", "datascience", "LLMscaling", "MatGen_AI"],
            "torque-ompi": ["PAS2134", "PZS0712", "PAS1984"],
            "lsf-jsrun": ["CSC499", "BIF136", "STF218", "GEN150"],
            "sge-ompi": ["ml-group", "vision", "nlp-lab"],
            "htcondor": ["BMI_Lab", "CHTC_GPU", "Physics_DL"],
            "flux-rccl": ["llmdev", "aihpc", "cmgpu"],
            "pbs-hydra": ["xy12", "pq87", "ab34", "wb00"],
            "slurm-pmix": ["jureap59", "training2405", "AIFAC_L01", "IscrC_LLMT"]}
MODELS = [("llama-7b", 6.7e9), ("gpt-neox-1.3b", 1.3e9), ("vit-h14", 6.3e8),
          ("unet-3d", 1.9e8), ("resnet152", 6.0e7), ("gpt2-xl", 1.5e9),
          ("mae-vit-l", 3.0e8), ("graphcast-mini", 3.7e7), ("esm2-650m", 6.5e8),
          ("llama-13b", 1.3e10), ("mistral-7b", 7.2e9), ("bert-large", 3.4e8)]


# ---------------------------------------------------------------------------
# job model
# ---------------------------------------------------------------------------

class Job:
    def __init__(self, rng, layout, cause, idx):
        self.rng = rng
        self.layout = layout
        self.cause = cause
        self.idx = idx
        s = make_site(rng, layout, cause)
        while cause == "network" and len(s.hosts) < 2:
            s = make_site(rng, layout, cause)
        self.s = s
        self.hosts = s.hosts
        self.gpn = s.gpn
        # a few jobs use fewer ranks per node than GPUs
        self.ppn = s.gpn
        if layout in ("torque-ompi", "sge-ompi", "htcondor") and s.gpn >= 4 and rng.random() < 0.15:
            self.ppn = s.gpn // 2
        self.world = self.ppn * len(self.hosts)
        if self.world < 2:
            self.ppn = 2
            self.world = 2
        self.user = rng.choice(USERS)
        self.proj = rng.choice(PROJECTS[layout])
        self.uid = rng.randint(20000, 65000)
        self.model, self.nparams = rng.choice(MODELS)
        self.tv = rng.choice(TORCH_VERSIONS if layout != "lsf-jsrun" else TORCH_VERSIONS[:4])
        if "MI300A" in s.gpu:
            self.tv = rng.choice(TORCH_VERSIONS[3:])
        self.tvt = tuple(int(x) for x in self.tv.split(".")[:2])
        self.nccl = rng.choice(NCCL_FOR_TORCH[self.tv])
        self.cuda = CUDA_FOR_TORCH[self.tv]
        self.rocm = ROCM_FOR_TORCH[self.tv]
        self.amd = s.vendor == "amd"
        if layout == "torque-ompi":
            self.fw = "horovod"
        else:
            self.fw = rng.choice(["ddp", "ddp", "deepspeed", "megatron"])
        self.nccl_info = rng.random() < 0.7
        # timestamps
        base = datetime(2023, 3, 1, tzinfo=timezone.utc).timestamp()
        self.t0 = base + rng.randint(0, 850) * 86400 + rng.randint(0, 86399) + rng.random()
        self.tzname, self.tzoff = tz_at(s.tz, self.t0)
        self.skew = {}
        for h in self.hosts:
            sk = rng.uniform(-1.5, 1.5)
            if rng.random() < 0.06:
                sk = rng.choice([-1, 1]) * rng.uniform(25, 190)
            self.skew[h] = sk
        self.ips = {}
        for h in self.hosts:
            self.ips[h] = "%s%d.%d" % (s.ipbase, rng.randint(0, 63), rng.randint(2, 250))
        self.pid = {}
        used = set()
        for r in range(self.world):
            while True:
                p = rng.randint(11000, 399000)
                if p not in used:
                    used.add(p)
                    break
            self.pid[r] = p
        self.lines = []
        self.seq = 0
        self.kern = {}
        self.files = {}
        self.clues = []
        self.notes = []
        self.decoys = []
        self.sched = {}
        self.culprit = None
        self.visible = None
        self.labels = False
        self.label_style = None
        self.jobid = None
        self.timeout_ms = rng.choice([600000, 600000, 1800000, 1800000, 3600000, 7200000])
        self.walltime_s = rng.choice([6, 12, 12, 24, 24, 48]) * 3600
        self.step_time = rng.uniform(0.35, 4.5)
        self.gbs = rng.choice([256, 512, 1024, 2048, 4096])
        self.proj_dir = "%s/%s/%s/%s" % (s.fs, self.proj, self.user, rng.choice(["llm-pretrain", "run", "scaling", "exp", "train"]))
        if layout == "slurm-pmix" and s.machine == "leonardo":
            self.proj_dir = "%s/%s/%s" % (s.fs, self.user, rng.choice(["llm-pretrain", "exp"]))
        if layout in ("torque-ompi", "sge-ompi", "htcondor"):
            self.proj_dir = "%s/%s/%s" % (s.fs, self.user, rng.choice(["dl", "proj", "train"]))
        if layout == "pbs-hydra":
            self.proj_dir = "/scratch/%s/%s/%s" % (self.proj, self.user, rng.choice(["dl", "llm", "run"]))
        self.script = rng.choice(["train.py", "pretrain.py", "main.py", "train_ddp.py"])
        if self.fw == "megatron":
            self.script = "pretrain_gpt.py"
        if self.fw == "horovod":
            self.script = rng.choice(["hvd_train.py", "train_hvd.py"])
        self.python = s.python.replace("{user}", self.user).replace("{proj}", self.proj)
        self.site_pkgs = s.site_pkgs.replace("{user}", self.user).replace("{proj}", self.proj)
        self.ckpt_dir = self.proj_dir + "/checkpoints"
        self.start_step = 0 if rng.random() < 0.6 else rng.choice([2000, 5000, 12000, 30000, 44000])
        self.total_steps = self.start_step + rng.choice([20000, 50000, 100000, 250000])

    # ---- topology helpers -------------------------------------------------
    def host_of(self, r):
        return self.hosts[r // self.ppn]

    def lr(self, r):
        return r % self.ppn

    def ranks_on(self, h):
        i = self.hosts.index(h)
        return list(range(i * self.ppn, (i + 1) * self.ppn))

    def fqdn(self, h):
        return h + self.s.domain

    def bus(self, r):
        return self.s.bus[self.lr(r) % len(self.s.bus)]

    # ---- time helpers -----------------------------------------------------
    def loc(self, t, h=None, utc=False):
        off = 0 if utc else self.tzoff * 3600
        sk = self.skew.get(h, 0.0) if h else 0.0
        return datetime.fromtimestamp(t + sk + off, timezone.utc).replace(tzinfo=None)

    def pyts(self, t, h=None):
        d = self.loc(t, h)
        return d.strftime("%Y-%m-%d %H:%M:%S") + ",%03d" % (d.microsecond // 1000)

    def isots(self, t, h=None):
        d = self.loc(t, h)
        return d.strftime("%Y-%m-%dT%H:%M:%S")

    def ctime(self, t, h=None, utc=False):
        d = self.loc(t, h, utc)
        return "%s %s %2d %s %d" % (DOW[d.weekday()], MON[d.month - 1], d.day,
                                    d.strftime("%H:%M:%S"), d.year)

    def glog(self, t, h, lvl, f, ln):
        if self.tvt >= (2, 4):
            d = self.loc(t, h)
            ns = d.microsecond * 1000 + self.rng.randint(0, 999)
            return "[%s%02d%02d %s.%09d %s:%d]" % (lvl, d.month, d.day, d.strftime("%H:%M:%S"), ns, f, ln)
        return "[%s %s:%d]" % (lvl, f, ln)

    def rp(self, r):
        return ("[rank%d]:" % r) if self.tvt >= (2, 2) else ""

    def pg(self, r):
        if self.tvt >= (2, 4):
            return "[PG ID 0 PG GUID 0(default_pg) Rank %d]" % r
        if self.tvt >= (2, 2):
            return "[PG 0 Rank %d]" % r
        return "[Rank %d]" % r

    # ---- emission -----------------------------------------------------------
    def emit(self, t, r, text, stream="err"):
        """a line (or block) printed by rank r's process"""
        self.seq += 1
        self.lines.append((t, self.seq, "rank", r, stream, text))

    def emit_l(self, t, text, stream="err"):
        """a line (or block) printed by the launcher / job script"""
        self.seq += 1
        self.lines.append((t, self.seq, "launch", -1, stream, text))

    def kmsg(self, h, t, text):
        self.kern.setdefault(h, []).append((t, text))

    def clue(self, why):
        self.clues.append(why)

    def nccl_pfx(self, r, tid=None):
        h = self.host_of(r)
        p = self.pid[r]
        return "%s:%d:%d [%d]" % (h, p, tid if tid else p, self.lr(r))


# ---------------------------------------------------------------------------
# message builders (formats of real programs)
# ---------------------------------------------------------------------------

def so_path(J, lib):
    return "%s/torch/lib/%s" % (J.site_pkgs, lib)


def cpp_frames(J, kind):
    rng = J.rng
    a = 0x7f0000000000 + rng.randint(0, 0xfffffff) * 0x1000
    libc10 = so_path(J, "libc10.so")
    tcu = so_path(J, "libtorch_cuda.so" if not J.amd else "libtorch_hip.so")
    lines = []
    src = "/pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp" if J.tvt >= (2, 4) else "../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp"
    if kind == "timeout":
        lines.append("Exception raised from checkTimeout at %s:%d (most recent call first):" % (src, 618 if J.tvt >= (2, 4) else 525))
        fr = ["c10::Error::Error(c10::SourceLocation, std::string) + 0x96",
              "c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >) + 0x1d2",
              "c10d::ProcessGroupNCCL::watchdogHandler() + 0x233",
              "c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d"]
    else:
        lines.append("Exception raised from ncclCommWatchdog at %s:%d (most recent call first):" % (src, 1601 if J.tvt >= (2, 4) else 1418))
        fr = ["c10::Error::Error(c10::SourceLocation, std::string) + 0x96",
              "<unknown function> + 0x%x" % rng.randint(0xe00000, 0xfffff0),
              "<unknown function> + 0x%x" % rng.randint(0x1000000, 0x1fffff0)]
    libs = [libc10, tcu, tcu, tcu]
    for i, f in enumerate(fr):
        lines.append("frame #%d: %s (0x%x in %s)" % (i, f, a + rng.randint(0, 0xffffff), libs[min(i, 3)]))
    n = len(fr)
    lines.append("frame #%d: <unknown function> + 0x%x (0x%x in /lib64/libstdc++.so.6)" % (n, rng.randint(0xc0000, 0xdffff), a + 0x5000000))
    lines.append("frame #%d: <unknown function> + 0x%x (0x%x in /lib64/libc.so.6)" % (n + 1, rng.randint(0x80000, 0x9ffff), a + 0x6000000))
    lines.append("frame #%d: clone + 0x%x (0x%x in /lib64/libc.so.6)" % (n + 2, rng.randint(0x30, 0x50), a + 0x6100000))
    lines.append("")
    return lines


def workstr(seq, op, numel, tmo):
    return "WorkNCCL(SeqNum=%d, OpType=%s, NumelIn=%d, NumelOut=%d, Timeout(ms)=%d)" % (seq, op, numel, numel, tmo)


def watchdog_block(J, r, t, seq, op, numel, enq=None, comp=None, frames=True):
    """collective timeout printed by rank r's ProcessGroupNCCL watchdog"""
    h = J.host_of(r)
    tmo = J.timeout_ms
    ran = tmo + J.rng.randint(3, 900)
    enq = seq if enq is None else enq
    comp = seq - 1 if comp is None else comp
    P = J.rp(r)
    w = workstr(seq, op, numel, tmo)
    wd = "[Rank %d] Watchdog caught collective operation timeout: %s ran for %d milliseconds before timing out." % (r, w, ran)
    L = []
    if J.tvt < (2, 2):
        L.append("%s%s %s" % (P, J.glog(t, h, "E", "ProcessGroupNCCL.cpp", 475), wd))
        L.append("%s %s" % (J.glog(t, h, "E", "ProcessGroupNCCL.cpp", 489), "Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data."))
        L.append("%s %s" % (J.glog(t, h, "E", "ProcessGroupNCCL.cpp", 495), "To avoid data inconsistency, we are taking the entire process down."))
        L.append("%s [Rank %d] NCCL watchdog thread terminated with exception: %s" % (J.glog(t, h, "E", "ProcessGroupNCCL.cpp", 929), r, wd))
        L.append("terminate called after throwing an instance of '%s'" % ("std::runtime_error" if J.tvt < (2, 1) else "c10::DistBackendError"))
        L.append("  what():  [Rank %d] NCCL watchdog thread terminated with exception: %s" % (r, wd))
        if frames and J.tvt >= (2, 1):
            L += cpp_frames(J, "timeout")
    elif J.tvt < (2, 4):
        L.append("%s%s %s" % (P, J.glog(t, h, "E", "ProcessGroupNCCL.cpp", 523), wd))
        L.append("%s%s %s Timeout at NCCL work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (P, J.glog(t, h, "E", "ProcessGroupNCCL.cpp", 1537), J.pg(r), seq, enq, comp))
        L.append("%s%s %s" % (P, J.glog(t, h, "E", "ProcessGroupNCCL.cpp", 537), "Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data."))
        L.append("%s%s %s" % (P, J.glog(t, h, "E", "ProcessGroupNCCL.cpp", 543), "To avoid data inconsistency, we are taking the entire process down."))
        L.append("%s%s %s Process group watchdog thread terminated with exception: %s" % (P, J.glog(t, h, "E", "ProcessGroupNCCL.cpp", 1414), J.pg(r), wd))
        if frames:
            L += cpp_frames(J, "timeout")
        L.append("terminate called after throwing an instance of 'c10::DistBackendError'")
        L.append("  what():  %s Process group watchdog thread terminated with exception: %s" % (J.pg(r), wd))
    else:
        L.append("%s%s %s" % (P, J.glog(t, h, "E", "ProcessGroupNCCL.cpp", 616), wd))
        L.append("%s%s %s Exception (either an error or timeout) detected by watchdog at work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (P, J.glog(t, h, "E", "ProcessGroupNCCL.cpp", 1785), J.pg(r), seq, enq, comp))
        L.append("%s%s %s Timeout at NCCL work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (P, J.glog(t, h, "E", "ProcessGroupNCCL.cpp", 1834), J.pg(r), seq, enq, comp))
        L.append("%s%s [Rank %d] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data." % (P, J.glog(t, h, "E", "ProcessGroupNCCL.cpp", 630), r))
        L.append("%s%s [Rank %d] To avoid data inconsistency, we are taking the entire process down." % (P, J.glog(t, h, "E", "ProcessGroupNCCL.cpp", 636), r))
        L.append("%s%s %s Process group watchdog thread terminated with exception: %s" % (P, J.glog(t, h, "E", "ProcessGroupNCCL.cpp", 1595), J.pg(r), wd))
        if frames:
            L += cpp_frames(J, "timeout")
        L.append("terminate called after throwing an instance of 'c10::DistBackendError'")
        L.append("  what():  %s Process group watchdog thread terminated with exception: %s" % (J.pg(r), wd))
    return "\n".join(L)


def nccl_ver_str(J):
    if J.amd:
        return "%s" % J.nccl
    return J.nccl


def remote_err_lasterr(J, r, peer_h, kind):
    """the 'Last error:' detail NCCL prints when a peer vanished"""
    if kind == "socket":
        port = J.rng.randint(32768, 60999)
        name = J.fqdn(peer_h) if J.layout == "pbs-pals" else J.ips.get(peer_h, "10.0.0.1")
        if J.nccl >= "2.19":
            return "socketProgress: Connection closed by remote peer %s<%d>" % (name, port)
        return "socketProgressOpt: Connection closed by remote peer %s<%d>" % (name, port)
    if kind == "ib":
        h = J.host_of(r)
        return ib_completion(J, h, peer_h)
    return "NET/OFI Request completed with error. RC: 5. Error: 5 (Input/output error). Completed length: 0"


def ib_completion(J, h, peer_h):
    port = J.rng.randint(32768, 60999)
    if J.nccl >= "2.19":
        return "NET/IB : Got completion from peer %s<%d> with status=12 opcode=0 len=0 vendor err 129 (Recv) localGid ::ffff:%s remoteGids::ffff:%s hca mlx5_0" % (J.ips[peer_h], port, J.ips[h], J.ips[peer_h])
    return "NET/IB : Got completion from peer %s<%d> with error 12, opcode 0, len 0, vendor err 129 (Recv) localGid ::ffff:%s remoteGid ::ffff:%s" % (J.ips[peer_h], port, J.ips[h], J.ips[peer_h])


def hvd_tb(J, msg):
    fr = user_frames(J, "backward")[:3] + [
        (J.site_pkgs + "/horovod/torch/optimizer.py", 262, "synchronize", "output = synchronize(handle)"),
        (J.site_pkgs + "/horovod/torch/mpi_ops.py", 967, "synchronize", "raise HorovodInternalError(e)")]
    return py_tb(J, fr, "horovod.common.exceptions.HorovodInternalError: " + msg)


HVD_SHUTDOWN = ("Horovod has been shut down. This was caused by an exception on one of the ranks or an attempt to allreduce, "
                "allgather or broadcast a tensor after one of the ranks finished execution. If the shutdown was caused by an "
                "exception, you should see the exception in the log before the first shutdown message.")


def remote_error_block(J, r, t, peer_h, kind="socket", seq=None):
    """what a surviving rank prints when its NCCL comm sees a dead peer"""
    h = J.host_of(r)
    P = J.rp(r)
    le = remote_err_lasterr(J, r, peer_h, kind)
    lines = []
    if J.fw == "horovod":
        if kind in ("ib", "ofi"):
            src = "transport/net_ib.cc:%d" % J.rng.choice([1696, 1700]) if kind == "ib" else "nccl_ofi_rdma.c:1564"
            lines.append("%s %s NCCL WARN %s" % (J.nccl_pfx(r, J.pid[r] + 61), src, le))
            lines.append(hvd_tb(J, "ncclAllReduce failed: remote process exited or there was a network error"))
        else:
            lines.append(hvd_tb(J, HVD_SHUTDOWN))
        return "\n".join(lines)
    if J.nccl_info or J.rng.random() < 0.5:
        src = {"socket": "misc/socket.cc:%d" % J.rng.choice([47, 49, 57]),
               "ib": "transport/net_ib.cc:%d" % J.rng.choice([1696, 1700, 2185]),
               "ofi": "nccl_ofi_rdma.c:%d" % J.rng.choice([1420, 1564])}[kind]
        lines.append("%s %s NCCL WARN %s" % (J.nccl_pfx(r, J.pid[r] + 61), src, le))
    ver = J.nccl
    if J.tvt >= (2, 2):
        lines.append("%s%s %s NCCL watchdog thread terminated with exception: NCCL error: remote process exited or there was a network error, NCCL version %s" % (P, J.glog(t, h, "E", "ProcessGroupNCCL.cpp", 1595 if J.tvt >= (2, 4) else 1182), J.pg(r), ver))
        lines.append("ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.")
        lines.append("Last error:")
        lines.append(le)
        lines.append("terminate called after throwing an instance of 'c10::DistBackendError'")
        lines.append("  what():  %s NCCL watchdog thread terminated with exception: NCCL error: remote process exited or there was a network error, NCCL version %s" % (J.pg(r), ver))
    else:
        lines.append("%s [Rank %d] NCCL watchdog thread terminated with exception: NCCL error: remote process exited or there was a network error, NCCL version %s" % (J.glog(t, h, "E", "ProcessGroupNCCL.cpp", 929), r, ver))
        lines.append("ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.")
        lines.append("Last error:")
        lines.append(le)
        lines.append("terminate called after throwing an instance of 'std::runtime_error'")
        lines.append("  what():  [Rank %d] NCCL watchdog thread terminated with exception: NCCL error: remote process exited or there was a network error, NCCL version %s" % (r, ver))
    return "\n".join(lines)


def py_tb(J, frames, exc, r=None, prefix_rank=False):
    """python traceback; frames: list of (file, line, func, code)"""
    L = ["Traceback (most recent call last):"]
    for f, ln, fn, code in frames:
        L.append('  File "%s", line %d, in %s' % (f, ln, fn))
        if code:
            L.append("    " + code)
    L += exc.split("\n")
    if prefix_rank and r is not None:
        L = ["[rank%d]: %s" % (r, x) for x in L]
    return "\n".join(L)


def user_frames(J, deep="step"):
    sp = J.proj_dir + "/" + J.script
    pk = J.site_pkgs
    rng = J.rng
    fr = [(sp, rng.randint(600, 900), "<module>", "main(args)"),
          (sp, rng.randint(400, 590), "main", "train(model, loader, optimizer, args)")]
    if deep == "step":
        fr.append((sp, rng.randint(200, 390), "train", "loss = model(batch)" if J.fw != "deepspeed" else "loss = engine(batch)"))
        fr.append((pk + "/torch/nn/modules/module.py", 1736 if J.tvt >= (2, 5) else 1518, "_wrapped_call_impl", "return self._call_impl(*args, **kwargs)"))
        fr.append((pk + "/torch/nn/modules/module.py", 1747 if J.tvt >= (2, 5) else 1527, "_call_impl", "return forward_call(*args, **kwargs)"))
    elif deep == "backward":
        fr.append((sp, rng.randint(200, 390), "train", "loss.backward()" if J.fw != "deepspeed" else "engine.backward(loss)"))
        fr.append((pk + "/torch/_tensor.py", 626 if J.tvt >= (2, 5) else 522, "backward", "torch.autograd.backward("))
        fr.append((pk + "/torch/autograd/__init__.py", 347 if J.tvt >= (2, 5) else 266, "backward", "_engine_run_backward("))
    elif deep == "data":
        fr.append((sp, rng.randint(200, 390), "train", "for step, batch in enumerate(loader, start=start_step):"))
        fr.append((pk + "/torch/utils/data/dataloader.py", 701 if J.tvt >= (2, 4) else 630, "__next__", "data = self._next_data()"))
        fr.append((pk + "/torch/utils/data/dataloader.py", 1465 if J.tvt >= (2, 4) else 1345, "_next_data", "return self._process_data(data)"))
        fr.append((pk + "/torch/utils/data/dataloader.py", 1491 if J.tvt >= (2, 4) else 1371, "_process_data", "data.reraise()"))
        fr.append((pk + "/torch/_utils.py", 715 if J.tvt >= (2, 4) else 694, "reraise", "raise exception"))
    elif deep == "allreduce":
        fr.append((sp, rng.randint(200, 390), "train", "dist.all_reduce(metrics, op=dist.ReduceOp.SUM)"))
        fr.append((pk + "/torch/distributed/c10d_logger.py", 83 if J.tvt >= (2, 4) else 72, "wrapper", "return func(*args, **kwargs)"))
        fr.append((pk + "/torch/distributed/distributed_c10d.py", 2501 if J.tvt >= (2, 4) else 2050, "all_reduce", "work = group.allreduce([tensor], opts)"))
    return fr


def oom_msg(J, r, alloc_gib):
    cap = J.s.cap
    free = round(J.rng.uniform(0.05, min(alloc_gib * 0.8, 1.9)), 2)
    inuse = round(cap - free, 2)
    alloc_t = round(inuse - J.rng.uniform(0.8, 3.5), 2)
    resv = round(J.rng.uniform(0.1, 2.8), 2)
    dev = J.lr(r)
    kind = "HIP" if J.amd else "CUDA"
    conf = "PYTORCH_HIP_ALLOC_CONF" if J.amd else "PYTORCH_CUDA_ALLOC_CONF"
    if J.tvt >= (2, 2):
        cls = "torch.OutOfMemoryError" if J.tvt >= (2, 5) else "torch.cuda.OutOfMemoryError"
        return ("%s: %s out of memory. Tried to allocate %.2f GiB. GPU %d has a total capacity of %.2f GiB of which %s free. "
                "Including non-PyTorch memory, this process has %.2f GiB memory in use. Of the allocated memory %.2f GiB is allocated by PyTorch, "
                "and %.2f GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting %s=expandable_segments:True "
                "to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)"
                % (cls, kind, alloc_gib, dev, cap, ("%.2f GiB" % free) if free >= 1 else ("%d.%02d MiB" % (int(free * 1024), J.rng.randint(0, 99))),
                   inuse, alloc_t, resv, conf))
    return ("torch.cuda.OutOfMemoryError: %s out of memory. Tried to allocate %.2f GiB (GPU %d; %.2f GiB total capacity; %.2f GiB already allocated; "
            "%.2f GiB free; %.2f GiB reserved in total by PyTorch) If reserved memory is >> allocated memory try setting max_split_size_mb to avoid "
            "fragmentation.  See documentation for Memory Management and %s" % (kind, alloc_gib, dev, cap, alloc_t, free, alloc_t + resv, conf))


def cuda_err_tail(J):
    if J.amd:
        return ("HIP kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\n"
                "For debugging consider passing AMD_SERIALIZE_KERNEL=3\n"
                "Compile with `TORCH_USE_HIP_DSA` to enable device-side assertions.")
    return ("CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\n"
            "For debugging consider passing CUDA_LAUNCH_BLOCKING=1\n"
            "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.")


def xid_line(J, r, xid, msg):
    b = J.bus(r)
    return "NVRM: Xid (PCI:%s): %d, pid=%d, name=python, %s" % (b, xid, J.pid[r], msg)


# ---------------------------------------------------------------------------
# preamble, noise and training logs
# ---------------------------------------------------------------------------

def choose_visible(J):
    if J.world <= 48:
        J.visible = list(range(J.world))
        return
    rng = J.rng
    vis = set(range(J.ppn))
    vis.update(J.ranks_on(J.hosts[-1]))
    if J.culprit is not None:
        vis.update(J.ranks_on(J.host_of(J.culprit)))
    for _ in range(14):
        vis.add(rng.randrange(J.world))
    J.visible = sorted(vis)


def nccl_init(J, t):
    """NCCL_DEBUG=INFO lines of communicator setup for the visible ranks"""
    if not J.nccl_info:
        return
    rng = J.rng
    commid = "0x%016x" % rng.getrandbits(64)
    plug = rng.choice(["1.6.0", "1.7.4", "1.9.1"])
    drv = rng.choice([12020, 12040, 12060, 12080])
    show = J.visible if len(J.visible) <= 24 else sorted(set(J.visible[:12] + ([J.culprit] if J.culprit is not None else [])
                                                             + rng.sample(J.visible, 8)))
    for r in show:
        h = J.host_of(r)
        tt = t + rng.uniform(0, 4)
        P = J.nccl_pfx(r)
        tid = J.pid[r] + rng.randint(80, 400)
        P2 = J.nccl_pfx(r, tid)
        L = []
        if r == 0:
            if J.amd:
                L.append("%s NCCL INFO RCCL version %s+hip%s" % (P, J.nccl, J.rocm))
            else:
                L.append("%s NCCL INFO cudaDriverVersion %d" % (P, drv))
                L.append("%s NCCL INFO NCCL version %s+cuda%s" % (P, J.nccl, J.cuda))
        if J.s.net == "ofi":
            L.append("%s NCCL INFO Bootstrap : Using hsn0:%s<0>" % (P, J.ips[h]))
            L.append("%s NCCL INFO NET/OFI Using aws-ofi-%s %s" % (P, "rccl" if J.amd else "nccl", plug))
            L.append("%s NCCL INFO NET/OFI Selected Provider is cxi (found %d nics)" % (P, 4 if J.amd else 2))
            L.append("%s NCCL INFO Using network AWS Libfabric" % P)
        elif J.s.net == "ib":
            L.append("%s NCCL INFO Bootstrap : Using ib0:%s<0>" % (P, J.ips[h]))
            L.append("%s NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB ; OOB ib0:%s<0>" % (P, J.ips[h]))
            L.append("%s NCCL INFO Using network IB" % P)
        else:
            L.append("%s NCCL INFO Bootstrap : Using eth0:%s<0>" % (P, J.ips[h]))
            L.append("%s NCCL INFO NET/Socket : Using [0]eth0:%s<0>" % (P, J.ips[h]))
            L.append("%s NCCL INFO Using network Socket" % P)
        cptr = 0x55d000000000 + rng.getrandbits(32) // 16 * 16
        L.append("%s NCCL INFO comm 0x%x rank %d nranks %d cudaDev %d nvmlDev %d busId %s commId %s - Init START" % (
            P2, cptr, r, J.world, J.lr(r), J.lr(r), J.bus(r).split(":", 1)[1].replace(":", "") + "0", commid))
        nxt = (r + 1) % J.world
        L.append("%s NCCL INFO Channel 00/0 : %d[%d] -> %d[%d] via %s" % (
            P2, r, J.lr(r), nxt, J.lr(nxt), "P2P/IPC" if J.host_of(nxt) == h else ("NET/AWS Libfabric/0" if J.s.net == "ofi" else "NET/IB/0")))
        L.append("%s NCCL INFO comm 0x%x rank %d nranks %d cudaDev %d nvmlDev %d busId %s commId %s - Init COMPLETE" % (
            P2, cptr, r, J.world, J.lr(r), J.lr(r), J.bus(r).split(":", 1)[1].replace(":", "") + "0", commid))
        J.emit(tt, r, "\n".join(L), "out" if rng.random() < 0.5 else "err")


def benign_warnings(J, t):
    rng = J.rng
    out = []
    hv = J.fw == "horovod"
    if rng.random() < 0.5 and J.layout != "htcondor" and not hv:
        out.append(("[W socket.cpp:464] [c10d] The server socket cannot be initialized on [::]:29500 (errno: 97 - Address family not supported by protocol).", 0))
    if rng.random() < 0.5 and J.tvt >= (2, 2) and not hv:
        out.append(("[W Utils.hpp:133] Warning: Environment variable NCCL_ASYNC_ERROR_HANDLING is deprecated; use TORCH_NCCL_ASYNC_ERROR_HANDLING instead (function getCvarInt)", None))
    if rng.random() < 0.4:
        out.append(("%s/torch/utils/checkpoint.py:464: UserWarning: torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. In version 2.4 we will raise an exception if use_reentrant is not passed. use_reentrant=False is recommended, but if you need to preserve the current default behavior, you can pass use_reentrant=True. Refer to docs for more details on the differences between the two variants.\n  warnings.warn(" % J.site_pkgs, None))
    if J.amd and rng.random() < 0.7:
        out.append(('NCCL_WARN_IOMMU', None))
    if J.layout in ("torque-ompi", "sge-ompi") and rng.random() < 0.6:
        out.append(("OPENIB", None))
    for text, who in out:
        if text == "NCCL_WARN_IOMMU":
            for r in J.visible[:min(len(J.visible), 8)]:
                J.emit(t + rng.uniform(0, 3), r, '%s init.cc:%d NCCL WARN Missing "iommu=pt" from kernel command line which can lead to system instablity or hang!' % (J.nccl_pfx(r), rng.choice([165, 176, 189])), "err")
            J.decoys.append('RCCL WARN about missing iommu=pt (benign)')
            continue
        if text == "OPENIB":
            h = J.hosts[0]
            J.emit_l(t - 5, "--------------------------------------------------------------------------\n"
                     "WARNING: There was an error initializing an OpenFabrics device.\n\n"
                     "  Local host:   %s\n  Local device: mlx5_0\n"
                     "--------------------------------------------------------------------------" % h)
            J.decoys.append("Open MPI openib init warning (benign)")
            continue
        if who is None:
            for r in J.visible[:min(len(J.visible), rng.choice([1, 4, 8]))]:
                J.emit(t + rng.uniform(0, 3), r, text, "err")
        else:
            J.emit(t + rng.uniform(0, 3), who, text, "err")


def lossval(J, step):
    import math
    return 2.0 + 6.0 * (0.6 ** (step / 4000.0)) + 0.05 * J.rng.uniform(-1, 1)


def step_line(J, t, step, st):
    rng = J.rng
    h = J.host_of(0)
    loss = lossval(J, step)
    lr = 3e-4 * min(1.0, step / 2000.0 + 0.01)
    sps = J.gbs / st
    if J.fw == "deepspeed":
        return ("[%s] [INFO] [logging.py:96:log_dist] [Rank 0] step=%d, skipped=%d, lr=[%.6e], mom=[(0.9, 0.95)]\n"
                "[%s] [INFO] [timer.py:260:stop] epoch=0/micro_step=%d/global_step=%d, RunningAvgSamplesPerSec=%.2f, CurrSamplesPerSec=%.2f, MemAllocated=%.1fGB, MaxMemAllocated=%.1fGB"
                % (J.pyts(t, h), step, J.sk, lr, J.pyts(t, h), step * 4, step, sps * rng.uniform(0.97, 1.02), sps * rng.uniform(0.9, 1.08),
                   J.s.cap * 0.45, J.s.cap * 0.82))
    if J.fw == "megatron":
        d = J.loc(t, h)
        return (" [%s] iteration %8d/%8d | consumed samples: %12d | elapsed time per iteration (ms): %.1f | learning rate: %.6E | global batch size: %5d | lm loss: %.6E | loss scale: 1.0 | grad norm: %.3f | number of skipped iterations:   0 | number of nan iterations:   0 |"
                % (d.strftime("%Y-%m-%d %H:%M:%S"), step, J.total_steps, step * J.gbs, st * 1000, lr, J.gbs, loss, rng.uniform(0.2, 1.4)))
    if J.fw == "horovod":
        return "[%s] Epoch %d [%d/%d] loss=%.4f img/sec per GPU=%.1f total img/sec=%.1f" % (
            J.pyts(t, h), step // 5000, step % 5000, 5000, loss, sps / J.world, sps)
    return "%s | INFO | train | step %d/%d | loss %.4f | lr %.3e | %.1f samples/s | %.3f s/it" % (
        J.pyts(t, h), step, J.total_steps, loss, lr, sps, st)


def train_logs(J, t_start, t_end, every=None, slow=None, stall_from=None):
    """rank-0 progress lines between t_start and t_end; returns (last step, time)"""
    rng = J.rng
    st = J.step_time
    span = max(t_end - t_start, 1.0)
    nsteps = int(span / st)
    if every is None:
        every = max(1, nsteps // rng.randint(25, 70))
        for e in (10, 20, 25, 50, 100, 200, 250, 500, 1000):
            if e >= every:
                every = e
                break
    J.sk = 0
    step = J.start_step
    t = t_start
    last = (step, t)
    while True:
        step += every
        dtp = every * st * rng.uniform(0.98, 1.03)
        if slow:
            dtp *= slow
        t += dtp
        if t > t_end:
            break
        if rng.random() < 0.05 and J.fw == "deepspeed":
            J.sk += 1
            J.emit(t - 1, 0, "[%s] [INFO] [loss_scaler.py:183:update_scale] [deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: %d, reducing to %d" % (
                J.pyts(t - 1, J.host_of(0)), 2 ** 16, 2 ** 15), "out")
        J.emit(t, 0, step_line(J, t, step, dtp / every), "out")
        last = (step, t)
    return last


def preamble(J):
    """job-script echo lines, launcher start, NCCL init, model setup; returns time training starts"""
    rng = J.rng
    t = J.t0 + rng.uniform(3, 25)
    J.t_launch = t
    h0 = J.hosts[0]
    J.emit_l(t, "Job started at %s on %s" % (J.ctime(t, h0), h0) if rng.random() < 0.5 else
             "NUM_OF_NODES= %d TOTAL_NUM_RANKS= %d RANKS_PER_NODE= %d" % (len(J.hosts), J.world, J.ppn), "out")
    t += rng.uniform(8, 40)
    nccl_init(J, t)
    t += rng.uniform(5, 20)
    benign_warnings(J, t)
    h = J.host_of(0)
    J.emit(t + 2, 0, "%s | INFO | train | world_size=%d nodes=%d model=%s params=%.2fB global_batch=%d torch=%s%s" % (
        J.pyts(t + 2, h), J.world, len(J.hosts), J.model, J.nparams / 1e9, J.gbs,
        J.tv, ("+rocm" + J.rocm) if J.amd else ("+cu" + J.cuda.replace(".", ""))), "out")
    if J.start_step:
        J.emit(t + 20, 0, "%s | INFO | train | Resuming from checkpoint %s/step_%08d (step %d)" % (
            J.pyts(t + 20, h), J.ckpt_dir, J.start_step, J.start_step), "out")
    if J.fw == "deepspeed":
        J.emit(t + 6, 0, "[%s] [INFO] [comm.py:637:init_distributed] Initializing TorchBackend in DeepSpeed with backend nccl" % J.pyts(t + 6, h), "out")
    if J.fw == "megatron":
        J.emit(t + 6, 0, "> initializing torch distributed ...\n> initialized tensor model parallel with size %d\n> initialized pipeline model parallel with size %d" % (
            min(J.ppn, 4), 1 if J.world < 16 else 2), "out")
    if J.fw == "horovod":
        J.emit(t + 4, 0, "[%s] Horovod initialized: size=%d local_size=%d" % (J.pyts(t + 4, h), J.world, J.ppn), "out")
    return t + rng.uniform(30, 150)


def handled_exception_decoy(J, t):
    """a traceback the program catches and survives"""
    rng = J.rng
    r = rng.choice(J.visible)
    h = J.host_of(r)
    kind = rng.choice(["ckpt", "tb", "oomretry"])
    if kind == "ckpt":
        fr = [(J.proj_dir + "/utils/ckpt.py", rng.randint(40, 120), "save_checkpoint", "torch.save(state, tmp_path)"),
              (J.site_pkgs + "/torch/serialization.py", 850 if J.tvt >= (2, 4) else 628, "save", "with _open_zipfile_writer(f) as opened_zipfile:")]
        tb = py_tb(J, fr, "OSError: [Errno 5] Input/output error")
        J.emit(t, 0, "%s | WARNING | ckpt | checkpoint write failed, will retry in 30s (attempt 1/5)\n%s" % (J.pyts(t, J.host_of(0)), tb), "err")
        J.emit(t + 34, 0, "%s | INFO | ckpt | saved checkpoint to %s/step_%08d (attempt 2/5)" % (J.pyts(t + 34, J.host_of(0)), J.ckpt_dir, rng.randint(1, 9) * 1000), "out")
        J.decoys.append("handled OSError during checkpoint save (retried, succeeded)")
    elif kind == "tb":
        fr = [(J.site_pkgs + "/torch/utils/tensorboard/writer.py", 117, "add_event", "self.event_writer.add_event(event)"),
              (J.site_pkgs + "/tensorboard/summary/writer/event_file_writer.py", 117, "add_event", "self._async_writer.write(event.SerializeToString())")]
        tb = py_tb(J, fr, "OSError: [Errno 122] Disk quota exceeded")
        J.emit(t, 0, "Exception ignored in thread started by: <function EventFileWriter._run>\n%s" % tb if False else
               "%s | WARNING | logger | tensorboard write failed (ignored):\n%s" % (J.pyts(t, J.host_of(0)), tb), "err")
        J.decoys.append("handled tensorboard OSError (disk quota) - ignored")
    else:
        msg = oom_msg(J, r, round(rng.uniform(0.5, 4.0), 2))
        J.emit(t, r, "%s | WARNING | eval | [rank %d] OOM during eval batch (%s); emptying cache and retrying with half batch" % (J.pyts(t, h), r, msg.split(".")[0] + "." + msg.split(".")[1]), "err")
        J.decoys.append("handled CUDA OOM in eval on rank %d (retried with smaller batch)" % r)


def old_xid_decoy(J, exclude=None):
    rng = J.rng
    cands = [h for h in J.hosts if h != exclude]
    if not cands or J.amd:
        if J.amd and cands:
            h = rng.choice(cands)
            t = J.t0 - rng.uniform(2, 20) * 86400
            J.kmsg(h, t, "amdgpu 0000:%s.0: amdgpu: [gfxhub0] no-retry page fault (src_id:0 ring:24 vmid:9 pasid:32771, for process python3 pid %d thread python3 pid %d)" % (
                rng.choice(J.s.bus).split(":", 1)[1], rng.randint(1000, 99999), rng.randint(1000, 99999)))
            J.decoys.append("old amdgpu page fault from a previous job on %s" % h)
        return
    h = rng.choice(cands)
    t = J.t0 - rng.uniform(0.3, 20) * 86400
    b = rng.choice(J.s.bus)
    xid = rng.choice([13, 31, 43])
    p = rng.randint(1000, 99999)
    if xid == 13:
        m = "Graphics SM Warp Exception on (GPC 1, TPC 2, SM 0): Out Of Range Address"
    elif xid == 31:
        m = "Ch 00000010, intr 00000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_3 faulted @ 0x7f2c_1e000000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ"
    else:
        m = "Ch 00000008, errorString CTX SWITCH TIMEOUT, Info 0x1c020"
    J.kmsg(h, t, "NVRM: Xid (PCI:%s): %d, pid=%d, name=%s, %s" % (b, xid, p, rng.choice(["python", "pt_main_thread", "cp2k.psmp"]), m))
    J.decoys.append("old Xid %d on %s from a previous job (%.1f days before)" % (xid, h, (J.t0 - t) / 86400))


# ---------------------------------------------------------------------------
# launcher reactions (per layout) to a rank that died
# ---------------------------------------------------------------------------

SIGNAME = {6: "Aborted", 7: "Bus error", 9: "Killed", 11: "Segmentation fault", 15: "Terminated"}
SIGABBR = {6: "SIGABRT", 7: "SIGBUS", 9: "SIGKILL", 11: "SIGSEGV", 15: "SIGTERM"}


def hostlist(hosts):
    """compress host names like Slurm/Flux do: tioga[12-19]"""
    import re
    groups = []
    for h in hosts:
        m = re.match(r"^(.*?)(\d+)$", h)
        if not m:
            groups.append((h, None, None))
            continue
        pre, num = m.group(1), m.group(2)
        if groups and groups[-1][0] == pre and groups[-1][1] is not None and int(num) == groups[-1][2][-1][1] + 1 and len(num) == groups[-1][1]:
            groups[-1][2][-1][1] = int(num)
        elif groups and groups[-1][0] == pre and groups[-1][1] == len(num):
            groups[-1][2].append([int(num), int(num)])
        else:
            groups.append((pre, len(num), [[int(num), int(num)]]))
    out = []
    for pre, w, rngs in groups:
        if w is None:
            out.append(pre)
            continue
        parts = []
        for a, b in rngs:
            parts.append(("%0*d" % (w, a)) if a == b else ("%0*d-%0*d" % (w, a, w, b)))
        if len(parts) == 1 and "-" not in parts[0]:
            out.append(pre + parts[0])
        else:
            out.append("%s[%s]" % (pre, ",".join(parts)))
    return ",".join(out)


def launcher_names_rank(J):
    if J.layout in ("pbs-pals", "torque-ompi", "sge-ompi", "htcondor", "slurm-pmix"):
        return True
    if J.layout == "pbs-hydra":
        return J.mpi_flavor == "intel"
    return False


def flux_el(J, t):
    return t - J.t_launch + 0.35


def torchrun_log(J, t, h, lvl, msg, ln):
    """torch.distributed.elastic log line in the version's format"""
    mod = "torch.distributed.elastic.multiprocessing.api"
    if J.tvt >= (2, 4):
        d = J.loc(t, h)
        return "%s%02d%02d %s.%06d %d torch/distributed/elastic/multiprocessing/api.py:%d] %s" % (
            lvl[0], d.month, d.day, d.strftime("%H:%M:%S"), d.microsecond, J.agent_pid.get(h, 4242), ln, msg)
    if J.tvt >= (2, 2):
        return "[%s] %s: [%s] %s" % (J.pyts(t, h), mod, lvl, msg)
    return "%s:%s:%s" % (lvl, mod, msg)


def rank_dies(J, t, r, how, val, first=True, culprit_is=None):
    """launcher-side report of rank r ending (how: exit|signal)."""
    h = J.host_of(r)
    rng = J.rng
    L = J.layout
    named = False
    if L == "pbs-pals":
        if how == "exit":
            J.emit_l(t, "%s: rank %d exited with code %d" % (J.fqdn(h), r, val))
        else:
            core = " and dumped core" if val in (6, 11) and J.core else ""
            J.emit_l(t, "%s: rank %d died from signal %d%s" % (J.fqdn(h), r, val, core))
        named = True
    elif L in ("torque-ompi", "sge-ompi"):
        if first:
            if how == "exit":
                J.emit_l(t, "--------------------------------------------------------------------------\n"
                         "Primary job  terminated normally, but 1 process returned\n"
                         "a non-zero exit code. Per user-direction, the job has been aborted.\n"
                         "--------------------------------------------------------------------------")
                J.emit_l(t + 0.5, "--------------------------------------------------------------------------\n"
                         "mpirun detected that one or more processes exited with non-zero status, thus causing\n"
                         "the job to be terminated. The first process to do so was:\n\n"
                         "  Process name: [[%d,1],%d]\n  Exit code:    %d\n"
                         "--------------------------------------------------------------------------" % (J.ompi_jobfam, r, val))
            else:
                pid = 0 if rng.random() < 0.5 else J.pid[r]
                J.emit_l(t, "--------------------------------------------------------------------------\n"
                         "mpirun noticed that process rank %d with PID %d on node %s exited on signal %d (%s).\n"
                         "--------------------------------------------------------------------------" % (r, pid, h, val, SIGNAME[val]))
            named = True
    elif L == "lsf-jsrun":
        if first and how == "signal":
            J.emit_l(t, "ERROR:  One or more process terminated with signal %d" % val)
    elif L == "pbs-hydra":
        if first:
            if J.mpi_flavor == "intel":
                body = "=   RANK %d PID %d RUNNING AT %s\n" % (r, J.pid[r], h)
                body += ("=   KILLED BY SIGNAL: %d (%s)\n" % (val, SIGNAME[val])) if how == "signal" else ("=   EXIT STATUS: %d\n" % val)
                J.emit_l(t, "\n===================================================================================\n"
                         "=   BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES\n" + body +
                         "===================================================================================")
                named = True
            else:
                J.emit_l(t, "\n===================================================================================\n"
                         "=   BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES\n"
                         "=   PID %d RUNNING AT %s\n=   EXIT CODE: %d\n"
                         "=   CLEANING UP REMAINING PROCESSES\n=   YOU CAN IGNORE THE BELOW CLEANUP MESSAGES\n"
                         "===================================================================================" % (J.pid[r], h, val))
                if how == "signal":
                    J.emit_l(t + 0.1, "YOUR APPLICATION TERMINATED WITH THE EXIT STRING: %s (signal %d)\n"
                             "This typically refers to a problem with your application.\n"
                             "Please see the FAQ page for debugging suggestions" % (SIGNAME[val], val))
    elif L == "slurm-pmix":
        if how == "exit":
            J.emit_l(t, "srun: error: %s: task %d: Exited with exit code %d" % (h, r, val))
        else:
            s = SIGNAME[val] + (" (core dumped)" if val in (6, 7, 11) and J.core else "")
            J.emit_l(t, "srun: error: %s: task %d: %s" % (h, r, s))
        named = True
    elif L == "htcondor":
        ag = J.agent_pid.setdefault(h, rng.randint(2000, 9000))
        code = val if how == "exit" else -val
        if first:
            others = [x for x in J.ranks_on(h) if x != r]
            for o in others:
                J.emit(t + 0.2, -1 - J.hosts.index(h), torchrun_log(J, t + 0.2, h, "WARNING", "Sending process %d closing signal SIGTERM" % J.pid[o], 897 if J.tvt >= (2, 4) else 0), "err")
            J.emit(t + 1.5, -1 - J.hosts.index(h), torchrun_log(J, t + 1.5, h, "ERROR", "failed (exitcode: %d) local_rank: %d (pid: %d) of binary: %s" % (code, J.lr(r), J.pid[r], J.python), 869 if J.tvt >= (2, 4) else 0), "err")
            tb = child_failed(J, t + 1.6, r, code)
            J.emit(t + 1.6, -1 - J.hosts.index(h), tb, "err")
            named = True
    elif L == "flux-rccl":
        pass  # flux reports via doom / final status (see flux_finish)
    if named and culprit_is is not None and r == culprit_is:
        J.clue("launcher names rank %d" % r)
    return named


def child_failed(J, t, r, code):
    h = J.host_of(r)
    d = J.loc(t, h)
    fr = [("/usr/local/bin/torchrun", 8, "<module>", "sys.exit(main())"),
          (J.site_pkgs + "/torch/distributed/elastic/multiprocessing/errors/__init__.py", 355 if J.tvt >= (2, 4) else 346, "wrapper", "return f(*args, **kwargs)"),
          (J.site_pkgs + "/torch/distributed/run.py", 919 if J.tvt >= (2, 4) else 806, "main", "run(args)"),
          (J.site_pkgs + "/torch/distributed/run.py", 910 if J.tvt >= (2, 4) else 797, "run", "elastic_launch("),
          (J.site_pkgs + "/torch/distributed/launcher/api.py", 138 if J.tvt >= (2, 4) else 134, "__call__", "return launch_agent(self._config, self._entrypoint, list(args))"),
          (J.site_pkgs + "/torch/distributed/launcher/api.py", 269 if J.tvt >= (2, 4) else 264, "launch_agent", "raise ChildFailedError(")]
    if code < 0:
        tbtxt = "Signal %d (%s) received by PID %d" % (-code, SIGABBR[-code], J.pid[r])
    else:
        tbtxt = "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"
    exc = ("torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n"
           "============================================================\n"
           "%s FAILED\n"
           "------------------------------------------------------------\n"
           "Failures:\n  <NO_OTHER_FAILURES>\n"
           "------------------------------------------------------------\n"
           "Root Cause (first observed failure):\n[0]:\n"
           "  time      : %s\n  host      : %s\n  rank      : %d (local_rank: %d)\n"
           "  exitcode  : %d (pid: %d)\n  error_file: <N/A>\n  traceback : %s\n"
           "============================================================") % (
        J.script, d.strftime("%Y-%m-%d_%H:%M:%S"), J.fqdn(h), r, J.lr(r), code, J.pid[r], tbtxt)
    return py_tb(J, fr, exc)


def kill_rest(J, t, exclude, sig=15, n=None):
    """launcher terminates the surviving ranks"""
    rng = J.rng
    L = J.layout
    survivors = [r for r in J.visible if r not in exclude]
    if L == "pbs-pals":
        k = survivors if len(survivors) <= 12 else sorted(rng.sample(survivors, 12))
        for r in k:
            J.emit_l(t + rng.uniform(0.1, 3), "%s: rank %d died from signal %d" % (J.fqdn(J.host_of(r)), r, sig))
    elif L == "slurm-pmix":
        h0 = J.hosts[0]
        J.emit_l(t, "srun: launch/slurm: _step_signal: Terminating StepId=%s.0" % J.jobid)
        J.emit_l(t + 0.3, "slurmstepd: error: *** STEP %s.0 ON %s CANCELLED AT %s ***" % (J.jobid, h0, J.isots(t + 0.3, h0)))
        J.emit_l(t + 0.4, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.")
        byhost = {}
        for r in survivors:
            byhost.setdefault(J.host_of(r), []).append(r)
        for h in J.hosts:
            if h in byhost:
                rs = byhost[h]
                txt = ("task %d" % rs[0]) if len(rs) == 1 else ("tasks %d-%d" % (rs[0], rs[-1]) if rs[-1] - rs[0] == len(rs) - 1 else "tasks " + ",".join(str(x) for x in rs))
                J.emit_l(t + rng.uniform(1, 6), "srun: error: %s: %s: %s" % (h, txt, SIGNAME.get(sig, "Terminated")))
    elif L == "pbs-hydra" and J.mpi_flavor == "intel" and rng.random() < 0.5:
        r = rng.choice(survivors) if survivors else None
        if r is not None:
            J.emit_l(t + 0.5, "\n===================================================================================\n"
                     "=   BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES\n"
                     "=   RANK %d PID %d RUNNING AT %s\n=   KILLED BY SIGNAL: 9 (Killed)\n"
                     "===================================================================================" % (r, J.pid[r], J.host_of(r)))
    elif L == "htcondor":
        for i, h in enumerate(J.hosts):
            if any(J.host_of(x) == h for x in exclude):
                continue
            for o in J.ranks_on(h):
                J.emit(t + 0.3, -1 - i, torchrun_log(J, t + 0.3, h, "WARNING", "Sending process %d closing signal SIGTERM" % J.pid[o], 897 if J.tvt >= (2, 4) else 0), "err")
    elif L in ("torque-ompi", "sge-ompi") and rng.random() < 0.3:
        J.emit_l(t + 1, "[%s:%05d] 1 more process has sent help message help-mpi-runtime.txt / mpi_init:warn-fork\n"
                 "[%s:%05d] Set MCA parameter \"orte_base_help_aggregate\" to 0 to see all help / error messages" % (
                     J.hosts[0], J.mpirun_pid, J.hosts[0], J.mpirun_pid))


def flux_first_exit(J, t_exit, r, how, val, lingering):
    """flux doom plugin: fires if other tasks linger 30s after the first exit"""
    h = J.host_of(r)
    if lingering:
        tt = t_exit + 30.0
        J.emit_l(tt, "%.3fs: flux-shell[0]: FATAL: doom: rank %d on host %s exited and exit-timeout=30s has expired" % (flux_el(J, tt), r, h))
        J.emit_l(tt + 0.3, "%.3fs: job.exception type=exec severity=0 rank %d on host %s exited and exit-timeout=30s has expired" % (flux_el(J, tt + 0.3), r, h))
        return True
    return False


def finish_fail(J, t_end, code, kind="fail"):
    J.sched.update(kind=kind, end_t=t_end, exit=code)
    if J.layout == "flux-rccl":
        if kind == "fail":
            if code > 128:
                J.emit_l(t_end, "flux-job: task(s) %s" % SIGNAME.get(code - 128, "Killed"))
            else:
                J.emit_l(t_end, "flux-job: task(s) exited with exit code %d" % code)


def culprit_exit(J, t, c, how, val, peers_react=True, peer_kind="socket", linger=False):
    """culprit process ends; peers notice; launcher cleans up."""
    rng = J.rng
    h = J.host_of(c)
    # peers: a few visible ranks on other hosts print NCCL remote errors
    reacted = []
    if peers_react and J.world > 1:
        cands = [r for r in J.visible if r != c]
        k = min(len(cands), rng.choice([0, 1, 2, 3, 5, 8]))
        for r in sorted(rng.sample(cands, k)):
            tt = t + rng.uniform(0.1, 1.4)
            J.emit(tt, r, remote_error_block(J, r, tt, h, peer_kind if J.host_of(r) != h or peer_kind != "ib" else "socket"), "err")
            reacted.append(r)
    code = val if how == "exit" else 128 + val
    if J.layout == "flux-rccl":
        fired = flux_first_exit(J, t, c, how, val, linger or bool(reacted) and rng.random() < 0.5)
        if fired:
            J.clue("flux doom names rank %d" % c)
        tend = t + (31 if fired else rng.uniform(1, 8))
        finish_fail(J, tend, code if not fired else (code if code <= 128 else code))
        return tend
    rank_dies(J, t + rng.uniform(1.5, 2.5), c, how, val, first=True, culprit_is=c)
    kill_rest(J, t + rng.uniform(3, 6), exclude=[c] + reacted)
    tend = t + rng.uniform(5, 40)
    finish_fail(J, tend, code)
    return tend


def collateral_first(J, t, r, how, val):
    """a collateral (non-culprit) rank is the first to die (e.g. watchdog abort)"""
    rng = J.rng
    code = val if how == "exit" else 128 + val
    if J.layout == "flux-rccl":
        fired = flux_first_exit(J, t, r, how, val, True)
        tend = t + 31.5
        finish_fail(J, tend, code)
        if r != J.culprit:
            J.decoys.append("flux doom names rank %d (first to exit, collateral)" % r)
        else:
            J.clue("flux doom names rank %d" % r)
        return tend
    rank_dies(J, t + rng.uniform(0.2, 1.5), r, how, val, first=True)
    if launcher_names_rank(J) and r != J.culprit:
        J.decoys.append("launcher reports rank %d (%s %d) first - collateral" % (r, how, val))
    kill_rest(J, t + rng.uniform(1, 5), exclude=[r])
    tend = t + rng.uniform(5, 35)
    finish_fail(J, tend, code)
    return tend


def all_timeouts(J, t_hang, seq, op, numel, skip=(), culprit_row=None, max_frames=4):
    """every visible rank not in skip prints a watchdog timeout; returns first (rank, time)"""
    rng = J.rng
    first = None
    nfr = 0
    base = t_hang + J.timeout_ms / 1000.0
    for r in J.visible:
        if r in skip:
            continue
        tt = base + rng.uniform(0.05, 2.5)
        if culprit_row and r in culprit_row:
            s2, op2, n2 = culprit_row[r]
            txt = watchdog_block(J, r, tt, s2, op2, n2, frames=nfr < max_frames)
        else:
            txt = watchdog_block(J, r, tt, seq, op, numel, frames=nfr < max_frames)
        nfr += 1
        J.emit(tt, r, txt, "err")
        if first is None or tt < first[1]:
            first = (r, tt)
    return first


def hvd_stall_warnings(J, tt, miss):
    """Horovod's stall inspector repeats its warning every check interval"""
    pip = ("%08x" % J.rng.getrandbits(32), "%08x" % J.rng.getrandbits(32))
    wall_end = J.t0 + J.walltime_s
    k = 0
    while tt < wall_end and k < 60:
        J.emit(tt, 0, "[%s.%06d: W /tmp/pip-install-%s/horovod_%s/horovod/common/stall_inspector.cc:107] One or more tensors were submitted to be reduced, gathered or broadcasted by subset of ranks and are waiting for remainder of ranks for more than 60 seconds. This may indicate that different ranks are trying to submit different tensors or that only subset of ranks is submitting tensors, which will cause deadlock. \nMissing ranks:\n%s" % (
            J.loc(tt, J.host_of(0)).strftime("%Y-%m-%d %H:%M:%S"), J.rng.randint(0, 999999), pip[0], pip[1], miss), "err")
        tt += J.hvd_stall_check
        k += 1


def collective_stall(J, t_hang, seq, op, numel, skip=(), culprit_row=None):
    """all ranks block in a collective. torch: watchdog timeouts then the first
    aborting rank is reported by the launcher. Horovod: no watchdog; the stall
    inspector lists ranks that never submitted (if any) and the job runs into walltime."""
    if J.fw == "horovod":
        if skip:
            miss = "\n".join("%d: [DistributedAllreduce.noname.%d, DistributedAllreduce.noname.%d ...]" % (
                r, J.rng.randint(100, 900), J.rng.randint(900, 999)) for r in skip)
            hvd_stall_warnings(J, t_hang + 60 + J.rng.uniform(0, 5), miss)
            if J.culprit in skip:
                J.clue("horovod stall inspector names the missing rank")
        return walltime_end(J)
    first = all_timeouts(J, t_hang, seq, op, numel, skip=skip, culprit_row=culprit_row)
    return collateral_first(J, first[1], first[0], "signal", 6)


def seq_at(J, step):
    return step * J.coll_per_step + J.rng.randint(1, J.coll_per_step)


# ---------------------------------------------------------------------------
# scheduler-level ends that are not a rank dying
# ---------------------------------------------------------------------------

def walltime_end(J, note=""):
    t_end = J.t0 + J.walltime_s + J.rng.uniform(5, 40)
    J.sched.update(kind="walltime", end_t=t_end, exit=271)
    if J.layout == "pbs-pals":
        k = J.visible if len(J.visible) <= 8 else sorted(J.rng.sample(J.visible, 8))
        for r in k:
            J.emit_l(t_end - 30 + J.rng.uniform(0, 4), "%s: rank %d died from signal 15" % (J.fqdn(J.host_of(r)), r))
    if J.layout == "flux-rccl":
        J.emit_l(t_end, "%.3fs: job.exception type=timeout severity=0 resource allocation expired" % flux_el(J, t_end))
        J.emit_l(t_end + 1, "flux-job: task(s) %s" % "Alarm clock")
    return t_end


# ---------------------------------------------------------------------------
# causes
# ---------------------------------------------------------------------------

def pick_fail_time(J, t_train, lo=0.05, hi=0.75):
    budget = J.walltime_s - (t_train - J.t0) - J.timeout_ms / 1000.0 - 600
    budget = max(budget, 1800)
    return t_train + max(1500.0, J.rng.uniform(lo, hi) * budget)


def culprit_text_clue(J, c):
    """does culprit's own stderr identify it? (labels or [rankN] prefix)"""
    if J.labels:
        J.clue("culprit output is rank-labelled")
        return True
    return False


def kernel_time(J, t):
    return t


def sc_gpu_hardware(J, t_train):
    rng = J.rng
    c = J.culprit
    h = J.host_of(c)
    t_f = pick_fail_time(J, t_train)
    step, _ = train_logs(J, t_train, t_f)
    seq = seq_at(J, step + 1)
    numel = J.numel
    variant = rng.choice(["error", "error", "hang"])
    if not J.amd:
        xid = rng.choice([79, 79, 79, 119, 120]) if J.s.gpu.startswith("NVIDIA") else rng.choice([79, 79, 62])
        b = J.bus(c)
        if xid == 79:
            J.kmsg(h, t_f, xid_line(J, c, 79, "GPU has fallen off the bus."))
            J.kmsg(h, t_f + 0.01, "NVRM: GPU %s.0: GPU has fallen off the bus." % b)
            J.kmsg(h, t_f + 0.02, "NVRM: A GPU crash dump has been created. If possible, please run\nNVRM: nvidia-bug-report.sh as root to collect this data before\nNVRM: the NVIDIA kernel module is unloaded.")
            err = "CUDA error: unspecified launch failure"
        elif xid == 62:
            J.kmsg(h, t_f, xid_line(J, c, 62, "0000(0000) 00000000 00000000"))
            err = "CUDA error: unspecified launch failure"
        elif xid == 119:
            J.kmsg(h, t_f, xid_line(J, c, 119, "Timeout after 6s of waiting for RPC response from GPU%d GSP! Expected function 76 (GSP_RM_CONTROL) (0x20801348 0x410)." % J.lr(c)))
            J.kmsg(h, t_f + 6, "NVRM: Rate limiting GSP RPC error prints for GPU at PCI:%s (printing 1 of every 30).  The GPU likely needs to be reset." % b)
            err = "CUDA error: unknown error"
            variant = "hang"
        else:
            J.kmsg(h, t_f, xid_line(J, c, 120, "GSP task timeout @ pc:0x%x, task: 1" % rng.randint(0x1000, 0xfffff)))
            err = "CUDA error: unknown error"
        J.inject = "Xid %d on %s GPU %d (%s)" % (xid, h, J.lr(c), b)
        if J.nccl_info:
            J.clue("Xid pid/bus matches culprit's NCCL INFO line")
    else:
        b = J.bus(c)
        node = J.lr(c) + 4
        J.kmsg(h, t_f - 3, "amdgpu %s.0: amdgpu: ring comp_1.%d.0 timeout, signaled seq=%d, emitted seq=%d" % (b, rng.randint(0, 3), rng.randint(10 ** 5, 10 ** 6), rng.randint(10 ** 6, 2 * 10 ** 6)))
        J.kmsg(h, t_f - 2.9, "amdgpu %s.0: amdgpu: Process information: process python3 pid %d thread python3 pid %d" % (b, J.pid[c], J.pid[c]))
        J.kmsg(h, t_f - 2.5, "amdgpu %s.0: amdgpu: GPU reset begin!" % b)
        J.kmsg(h, t_f + 4, "amdgpu %s.0: amdgpu: GPU reset(2) failed" % b)
        J.kmsg(h, t_f + 4.1, "amdgpu %s.0: amdgpu: GPU reset end with ret = -110" % b)
        err = None
        J.inject = "amdgpu GPU hang/reset failure on %s GCD %d (%s)" % (h, J.lr(c), b)
        if J.nccl_info:
            J.clue("amdgpu process pid matches culprit's NCCL INFO line")
    if J.amd:
        J.emit(t_f, c, "HW Exception by GPU node-%d (Agent handle: 0x%x) reason :GPU Hang" % (J.lr(c) + 4, 0x55d000000000 + rng.getrandbits(32)), "err")
        culprit_text_clue(J, c)
        tend = culprit_exit(J, t_f + 0.5, c, "signal", 6, peer_kind="ofi")
    elif variant == "error":
        tb = py_tb(J, user_frames(J, "backward"), "RuntimeError: %s\n%s" % (err, cuda_err_tail(J)))
        J.emit(t_f + rng.uniform(0.5, 5), c, tb, "err")
        culprit_text_clue(J, c)
        tend = culprit_exit(J, t_f + 6, c, "exit", 1, peer_kind="ib" if J.s.net == "ib" else "socket")
    else:
        # GPU wedged: every rank, the culprit included, times out in the collective
        tend = collective_stall(J, t_f, seq, "ALLREDUCE", numel)
    J.hw_evidence = True
    return tend


def sc_ecc(J, t_train):
    rng = J.rng
    c = J.culprit
    h = J.host_of(c)
    t_f = pick_fail_time(J, t_train)
    train_logs(J, t_train, t_f)
    b = J.bus(c)
    if not J.amd:
        v = rng.choice(["48", "94", "95"] if ("A100" in J.s.gpu or "H100" in J.s.gpu) else ["48", "48"])
        if v == "48":
            J.kmsg(h, t_f, xid_line(J, c, 48, "An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition %d, subpartition %d." % (rng.randint(0, 7), rng.randint(0, 1))))
            J.kmsg(h, t_f + 0.2, xid_line(J, c, 63, "Row Remapping: New row (0x%08x) marked for remapping, reset gpu to activate." % rng.randint(0, 0xffffff)) if "V100" not in J.s.gpu else
                   xid_line(J, c, 63, "ECC page retirement or row remapping recording event"))
        elif v == "94":
            J.kmsg(h, t_f, xid_line(J, c, 94, "Contained: SM (0x1). RST: No, D-RST: No"))
        else:
            J.kmsg(h, t_f, xid_line(J, c, 95, "Uncontained: FBHUB. RST: Yes, D-RST: No"))
        J.inject = "Xid %s (uncorrectable ECC) on %s GPU %d" % (v, h, J.lr(c))
        if J.nccl_info:
            J.clue("Xid pid matches culprit's NCCL INFO line")
    else:
        J.kmsg(h, t_f, "amdgpu %s.0: amdgpu: %d uncorrectable hardware errors detected in umc block" % (b, rng.randint(1, 4)))
        J.kmsg(h, t_f + 0.1, "amdgpu %s.0: amdgpu: GPU reset begin!" % b)
        J.inject = "amdgpu uncorrectable UMC (HBM ECC) error on %s GCD %d" % (h, J.lr(c))
    kind = "HIP" if J.amd else "CUDA"
    if rng.random() < 0.6 or J.fw == "horovod":
        tb = py_tb(J, user_frames(J, rng.choice(["step", "backward"])), "RuntimeError: %s error: uncorrectable ECC error encountered\n%s" % (kind, cuda_err_tail(J)))
    else:
        tb = ("%s%s %s NCCL watchdog thread terminated with exception: %s error: uncorrectable ECC error encountered\n%s\n"
              "terminate called after throwing an instance of 'c10::DistBackendError'" % (J.rp(c), J.glog(t_f, h, "E", "ProcessGroupNCCL.cpp", 1595 if J.tvt >= (2, 4) else 1182), J.pg(c), kind, cuda_err_tail(J)))
    J.emit(t_f + rng.uniform(0.2, 3), c, tb, "err")
    culprit_text_clue(J, c)
    if "terminate called" in tb:
        if J.tvt >= (2, 2):
            J.clue("culprit's watchdog line names its rank")
        tend = culprit_exit(J, t_f + 4, c, "signal", 6)
    else:
        tend = culprit_exit(J, t_f + 4, c, "exit", 1)
    J.hw_evidence = True
    return tend


def sc_nvlink(J, t_train):
    rng = J.rng
    c = J.culprit
    h = J.host_of(c)
    t_f = pick_fail_time(J, t_train)
    step, _ = train_logs(J, t_train, t_f)
    if not J.amd:
        link = rng.randint(0, 11)
        J.kmsg(h, t_f, xid_line(J, c, 74, "NVLink: fatal error detected on link %d(0x0, 0x0, 0x%x, 0x0, 0x0, 0x0, 0x0)" % (link, rng.choice([0x10000, 0x20000, 0x100]))))
        peer = [x for x in J.ranks_on(h) if x != c]
        if peer and rng.random() < 0.4:
            J.kmsg(h, t_f + 0.05, "NVRM: Xid (PCI:%s): 74, pid=%d, name=python, NVLink: fatal error detected on link %d(0x0, 0x0, 0x10000, 0x0, 0x0, 0x0, 0x0)" % (J.bus(peer[0]), J.pid[peer[0]], rng.randint(0, 11)))
        J.inject = "Xid 74 NVLink fatal error on %s GPU %d link %d" % (h, J.lr(c), link)
        J.nvlink_link = link
        last = "Cuda failure 'unspecified launch failure'"
    else:
        J.kmsg(h, t_f, "amdgpu %s.0: amdgpu: %d uncorrectable hardware errors detected in xgmi_wafl block" % (J.bus(c), rng.randint(1, 6)))
        J.inject = "xGMI (inter-GCD link) uncorrectable errors on %s GCD %d" % (h, J.lr(c))
        last = "Cuda failure 'unspecified launch failure'" if not J.amd else "HIP failure 'unspecified launch failure'"
    J.emit(t_f + 0.3, c, "%s transport/p2p.cc:%d NCCL WARN %s" % (J.nccl_pfx(c, J.pid[c] + 77), rng.choice([275, 301, 337]), last), "err")
    if J.fw == "horovod":
        tb = hvd_tb(J, "ncclAllReduce failed: unhandled cuda error (run with NCCL_DEBUG=INFO for details)")
    else:
      tb = py_tb(J, user_frames(J, "backward") if J.fw != "megatron" else user_frames(J, "allreduce"),
               "torch.distributed.DistBackendError: NCCL error in: %s:%d, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version %s\n"
               "ncclUnhandledCudaError: Call to CUDA function failed.\nLast error:\n%s" % (
                   "/pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp" if J.tvt >= (2, 4) else "../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp",
                   rng.choice([1970, 2027, 3357, 3690]), J.nccl, last))
    J.emit(t_f + rng.uniform(0.5, 3), c, tb, "err")
    if J.nccl_info:
        J.clue("NCCL WARN prefix host:pid maps to culprit rank")
    culprit_text_clue(J, c)
    tend = culprit_exit(J, t_f + 4, c, "exit", 1)
    J.hw_evidence = True
    return tend


def sc_network(J, t_train):
    rng = J.rng
    c = J.culprit
    h = J.host_of(c)
    J.culprit_rank_truth = None
    t_f = pick_fail_time(J, t_train)
    step, _ = train_logs(J, t_train, t_f)
    seq = seq_at(J, step + 1)
    if J.s.net == "ib" or J.s.net == "none":
        dev = rng.choice(["41:00", "c1:00", "0c:00", "4b:00"])
        J.kmsg(h, t_f - 1.5, "mlx5_core 0000:%s.0: mlx5_port_module_event:%d:(pid 0): Port module event[error]: module 0, Cable error, %s" % (
            dev, rng.choice([1138, 1153, 1158]), rng.choice(["Bus stuck (I2C or data shorted)", "High Temperature", "Bad or shorted cable/module"])))
        J.kmsg(h, t_f - 1.4, "mlx5_core 0000:%s.0: mlx5_core_health_check:%d:(pid 0): device's health compromised - reached miss count" % (dev, rng.choice([788, 802])) if rng.random() < 0.3 else
               "ib0: Lost carrier")
        J.inject = "InfiniBand port on %s went down (mlx5 port module event)" % h
        kind = "ib"
    else:
        nic = rng.randint(0, 3 if J.amd else 1)
        J.kmsg(h, t_f - 1.5, "cxi_core 0000:%s.0: cxi%d[hsn%d] Link down" % (rng.choice(["21:00", "41:00", "c1:00", "e1:00"]), nic, nic))
        J.kmsg(h, t_f + 95, "cxi_core 0000:%s.0: cxi%d[hsn%d] Link up" % (rng.choice(["21:00", "41:00"]), nic, nic))
        J.inject = "Slingshot NIC hsn%d on %s lost link" % (nic, h)
        kind = "ofi"
    local = J.ranks_on(h)
    if kind == "ib":
        for r in local[:2]:
            J.emit(t_f + rng.uniform(0, 1), r, "%s transport/net_ib.cc:%d NCCL WARN NET/IB : %s:1 Got async event : port error" % (
                J.nccl_pfx(r, J.pid[r] + 61), rng.choice([94, 116, 135]), "mlx5_0"), "err")
    if rng.random() < 0.6:
        # peers on other nodes report completion errors naming the dead host's address
        peers = [r for r in J.visible if J.host_of(r) != h]
        k = min(len(peers), rng.randint(2, 6))
        for r in sorted(rng.sample(peers, k)):
            tt = t_f + rng.uniform(1, 20)
            J.emit(tt, r, remote_error_block(J, r, tt, h, kind), "err")
        first = sorted(rng.sample(peers, 1))[0] if peers else local[0]
        tend = collateral_first(J, t_f + rng.uniform(22, 40), first, "signal", 6)
    else:
        tend = collective_stall(J, t_f, seq, "ALLREDUCE", J.numel)
    J.hw_evidence = True
    return tend


def sc_cuda_oom(J, t_train):
    rng = J.rng
    c = J.culprit
    t_f = pick_fail_time(J, t_train)
    train_logs(J, t_train, t_f)
    alloc = round(rng.choice([0.25, 0.5, 1.0, 1.95, 2.0, 3.91, 4.0, 8.0]) * (J.s.cap / 40.0), 2)
    alloc = max(alloc, 0.1)
    tb = py_tb(J, user_frames(J, rng.choice(["step", "backward"])), oom_msg(J, c, alloc),
               r=c, prefix_rank=(J.layout == "htcondor" and J.tvt >= (2, 4)))
    if J.layout == "htcondor" and J.tvt >= (2, 4):
        J.clue("[rankN]: traceback prefix")
    if rng.random() < 0.35:
        J.emit(t_f - 2, c, "%s | WARNING | train | [rank %d] long sequence batch: max_len=%d (bucket overflow)" % (J.pyts(t_f - 2, J.host_of(c)), c, rng.choice([8192, 16384, 32768])), "err")
        J.clue("culprit's own warning names rank")
    J.emit(t_f, c, tb, "err")
    culprit_text_clue(J, c)
    J.inject = "CUDA OOM on rank %d (tried to allocate %.2f GiB)" % (c, alloc)
    return culprit_exit(J, t_f + rng.uniform(1, 4), c, "exit", 1)


def sc_ima(J, t_train):
    rng = J.rng
    c = J.culprit
    h = J.host_of(c)
    t_f = pick_fail_time(J, t_train)
    train_logs(J, t_train, t_f)
    if J.amd:
        J.emit(t_f, c, "Memory access fault by GPU node-%d (Agent handle: 0x%x) on address 0x%x. Reason: Page not present or supervisor privilege." % (
            J.lr(c) + 4, 0x55d000000000 + rng.getrandbits(32), 0x7f0000000000 + rng.getrandbits(36)), "err")
        if rng.random() < 0.6:
            J.kmsg(h, t_f - 0.1, "amdgpu %s.0: amdgpu: [gfxhub0] retry page fault (src_id:0 ring:0 vmid:%d pasid:%d, for process python3 pid %d thread python3 pid %d)" % (
                J.bus(c), rng.randint(1, 15), rng.randint(32768, 32800), J.pid[c], J.pid[c]))
            J.kmsg(h, t_f - 0.09, "amdgpu %s.0: amdgpu:   in page starting at address 0x%012x from client 0x1b (UTCL2)" % (J.bus(c), rng.getrandbits(44)))
            if J.nccl_info:
                J.clue("kernel page fault pid maps to culprit via NCCL INFO")
        culprit_text_clue(J, c)
        J.inject = "GPU memory access fault (page not present) on rank %d" % c
        return culprit_exit(J, t_f + 0.3, c, "signal", 6)
    if rng.random() < 0.55:
        xid = rng.choice([13, 31])
        if xid == 13:
            J.kmsg(h, t_f - 0.05, xid_line(J, c, 13, "Graphics SM Warp Exception on (GPC %d, TPC %d, SM %d): Out Of Range Address" % (rng.randint(0, 7), rng.randint(0, 8), rng.randint(0, 1))))
            J.kmsg(h, t_f - 0.04, xid_line(J, c, 13, "Graphics Exception: ESR 0x%x=0x%x 0x%x=0x0 0x%x=0x%x 0x%x=0x174" % (0x50e648, 0x20e, 0x50e650, 0x50e644, 0xd3eff2, 0x50e64c)))
        else:
            J.kmsg(h, t_f - 0.05, xid_line(J, c, 31, "Ch 00000008, intr 00000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_%d faulted @ 0x7f%02x_%08x. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ" % (rng.randint(0, 15), rng.randint(0, 255), rng.getrandbits(32))))
        J.clue("Xid 13/31 pid names culprit process") if J.nccl_info else None
    if rng.random() < 0.5 or J.fw == "horovod":
        tb = py_tb(J, user_frames(J, "step"), "RuntimeError: CUDA error: an illegal memory access was encountered\n" + cuda_err_tail(J))
        J.emit(t_f, c, tb, "err")
        culprit_text_clue(J, c)
        J.inject = "illegal memory access in a custom kernel on rank %d" % c
        return culprit_exit(J, t_f + 2, c, "exit", 1)
    P = J.rp(c)
    txt = ("%s%s %s Process group watchdog thread terminated with exception: CUDA error: an illegal memory access was encountered\n%s\n" % (
        P, J.glog(t_f, h, "E", "ProcessGroupNCCL.cpp", 1595 if J.tvt >= (2, 4) else 1182), J.pg(c), cuda_err_tail(J)))
    txt += "\n".join(cpp_frames(J, "error"))
    txt += "\nterminate called after throwing an instance of 'c10::DistBackendError'\n  what():  %s Process group watchdog thread terminated with exception: CUDA error: an illegal memory access was encountered" % J.pg(c)
    J.emit(t_f, c, txt, "err")
    J.clue("watchdog text names rank [Rank %d]" % c)
    J.inject = "illegal memory access surfaced in NCCL watchdog on rank %d" % c
    return culprit_exit(J, t_f + 0.5, c, "signal", 6)


PY_EXC = [
    ("data", "RuntimeError: Caught RuntimeError in DataLoader worker process {w}.\nOriginal Traceback (most recent call last):\n"
             "  File \"{pk}/torch/utils/data/_utils/worker.py\", line 308, in _worker_loop\n    data = fetcher.fetch(index)  # type: ignore[possibly-undefined]\n"
             "  File \"{pk}/torch/utils/data/_utils/fetch.py\", line 55, in fetch\n    return self.collate_fn(data)\n"
             "  File \"{pk}/torch/utils/data/_utils/collate.py\", line 317, in default_collate\n    return collate(batch, collate_fn_map=default_collate_fn_map)\n"
             "  File \"{pk}/torch/utils/data/_utils/collate.py\", line 155, in collate\n    return collate_fn_map[elem_type](batch, collate_fn_map=collate_fn_map)\n"
             "  File \"{pk}/torch/utils/data/_utils/collate.py\", line 272, in collate_tensor_fn\n    return torch.stack(batch, 0, out=out)\n"
             "RuntimeError: stack expects each tensor to be equal size, but got [3, 224, 224] at entry 0 and [1, 224, 224] at entry {e}\n"),
    ("data", "FileNotFoundError: Caught FileNotFoundError in DataLoader worker process {w}.\nOriginal Traceback (most recent call last):\n"
             "  File \"{pk}/torch/utils/data/_utils/worker.py\", line 308, in _worker_loop\n    data = fetcher.fetch(index)  # type: ignore[possibly-undefined]\n"
             "  File \"{pk}/torch/utils/data/_utils/fetch.py\", line 52, in fetch\n    data = [self.dataset[idx] for idx in possibly_batched_index]\n"
             "  File \"{pd}/data/shards.py\", line 88, in __getitem__\n    with open(self.files[shard], \"rb\") as f:\n"
             "FileNotFoundError: [Errno 2] No such file or directory: '{pd}/data/tokenized/shard_{s:05d}.bin'\n"),
    ("step", "KeyError: 'attention_mask'"),
    ("step", "AssertionError: loss is nan at step {st}"),
    ("step", "ValueError: Expected input batch_size ({a}) to match target batch_size ({b})."),
    ("data", "json.decoder.JSONDecodeError: Caught JSONDecodeError in DataLoader worker process {w}.\nOriginal Traceback (most recent call last):\n"
             "  File \"{pk}/torch/utils/data/_utils/worker.py\", line 308, in _worker_loop\n    data = fetcher.fetch(index)  # type: ignore[possibly-undefined]\n"
             "  File \"{pd}/data/jsonl.py\", line 41, in __getitem__\n    rec = json.loads(line)\n"
             "  File \"/usr/lib64/python3.11/json/__init__.py\", line 346, in loads\n    return _default_decoder.decode(s)\n"
             "json.decoder.JSONDecodeError: Unterminated string starting at: line 1 column {col} (char {ch})\n"),
]


def sc_python_exception(J, t_train):
    rng = J.rng
    c = J.culprit
    t_f = pick_fail_time(J, t_train)
    step, _ = train_logs(J, t_train, t_f)
    deep, tmpl = rng.choice(PY_EXC)
    col = rng.randint(100, 9000)
    exc = tmpl.format(w=rng.randint(0, 7), pk=J.site_pkgs, e=rng.randint(1, 15), pd=J.proj_dir, s=rng.randint(0, 2047),
                      st=step + rng.randint(1, 9), a=rng.choice([8, 16, 32]), b=rng.choice([7, 15, 31]), col=col, ch=col - 1).rstrip("\n")
    tb = py_tb(J, user_frames(J, deep), exc, r=c, prefix_rank=(J.layout == "htcondor" and J.tvt >= (2, 4)))
    if J.layout == "htcondor" and J.tvt >= (2, 4):
        J.clue("[rankN]: traceback prefix")
    J.emit(t_f, c, tb, "err")
    culprit_text_clue(J, c)
    J.inject = "uncaught %s on rank %d" % (exc.split("\n")[-1].split(":")[0], c)
    return culprit_exit(J, t_f + rng.uniform(0.5, 3), c, "exit", 1)


def oom_kernel_lines(J, h, t, victim_pid, comm, cgroup):
    rng = J.rng
    kern = {"pbs-pals": "5.14.21-150400.24.46_12.0.83-cray_shasta_c", "flux-rccl": "4.18.0-513.24.1.1toss.t4.x86_64",
            "lsf-jsrun": "4.18.0-193.46.1.el8_2.ppc64le", "pbs-hydra": "4.18.0-553.16.1.el8.x86_64"}.get(J.layout, "5.14.0-427.22.1.el9_4.x86_64")
    gfp = "0xcc0(GFP_KERNEL)" if cgroup else "0x100cca(GFP_HIGHUSER_MOVABLE)"
    J.kmsg(h, t, "%s invoked oom-killer: gfp_mask=%s, order=0, oom_score_adj=0" % (comm, gfp))
    J.kmsg(h, t + 0.001, "CPU: %d PID: %d Comm: %s Kdump: loaded Tainted: P           OE    --------- -  - %s #1" % (rng.randint(0, 63), victim_pid + rng.randint(1, 40), comm, kern))
    tot = rng.randint(200, 900) * 1024 * 1024
    anon = int(tot * rng.uniform(0.4, 0.8))
    if cgroup:
        J.kmsg(h, t + 0.01, "memory: usage %dkB, limit %dkB, failcnt %d" % (anon + 4096, anon + 4096, rng.randint(1, 900)))
        J.kmsg(h, t + 0.02, "Memory cgroup out of memory: Killed process %d (%s) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:%d pgtables:%dkB oom_score_adj:0" % (
            victim_pid, comm, tot, anon, rng.randint(10 ** 5, 10 ** 6), rng.randint(10 ** 4, 10 ** 7), J.uid, rng.randint(10 ** 4, 10 ** 6)))
    else:
        J.kmsg(h, t + 0.01, "oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0-%d,global_oom,task_memcg=/user.slice,task=%s,pid=%d,uid=%d" % (
            rng.choice([1, 3, 7]), comm, victim_pid, J.uid))
        J.kmsg(h, t + 0.02, "Out of memory: Killed process %d (%s) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:%d pgtables:%dkB oom_score_adj:0" % (
            victim_pid, comm, tot, anon, rng.randint(10 ** 5, 10 ** 6), rng.randint(10 ** 4, 10 ** 7), J.uid, rng.randint(10 ** 4, 10 ** 6)))
    J.kmsg(h, t + 0.4, "oom_reaper: reaped process %d (%s), now anon-rss:0kB, file-rss:0kB, shmem-rss:%dkB" % (victim_pid, comm, rng.randint(0, 10 ** 6)))


def sc_host_oom(J, t_train):
    rng = J.rng
    c = J.culprit
    h = J.host_of(c)
    t_f = pick_fail_time(J, t_train)
    train_logs(J, t_train, t_f)
    cgroup = J.layout in ("slurm-pmix", "htcondor", "flux-rccl", "lsf-jsrun") or rng.random() < 0.3
    worker = rng.random() < 0.35
    J.kernel_attached_hint = True
    if worker:
        wpid = J.pid[c] + rng.randint(50, 400)
        oom_kernel_lines(J, h, t_f, wpid, "pt_data_worker" if J.tvt >= (2, 3) else "python", cgroup)
        msg = "RuntimeError: DataLoader worker (pid %d) is killed by signal: Killed. " % wpid
        fr = user_frames(J, "data")[:3] + [(J.site_pkgs + "/torch/utils/data/dataloader.py", 1284 if J.tvt >= (2, 4) else 1133, "_try_get_data", "data = self._data_queue.get(timeout=timeout)"),
                                           (J.site_pkgs + "/torch/utils/data/_utils/signal_handling.py", 73 if J.tvt >= (2, 4) else 66, "handler", "_error_if_any_worker_fails()")]
        J.emit(t_f + rng.uniform(0.1, 2), c, py_tb(J, fr, msg), "err")
        culprit_text_clue(J, c)
        J.inject = "host OOM killer killed a DataLoader worker of rank %d on %s" % (c, h)
        return culprit_exit(J, t_f + 3, c, "exit", 1)
    oom_kernel_lines(J, h, t_f, J.pid[c], "python", cgroup)
    J.inject = "host OOM killer (%s) killed rank %d's python on %s" % ("cgroup" if cgroup else "global", c, h)
    if J.nccl_info:
        J.clue("OOM-killed pid matches culprit in NCCL INFO")
    if J.layout == "slurm-pmix":
        J.emit_l(t_f + 1, "slurmstepd: error: Detected 1 oom_kill event in StepId=%s.0. Some of the step tasks have been OOM Killed." % J.jobid)
        J.emit_l(t_f + 1.2, "srun: error: %s: task %d: Out Of Memory" % (h, c))
        J.clue("srun names task")
        kill_rest(J, t_f + 3, exclude=[c], sig=15)
        finish_fail(J, t_f + 20, 137, kind="mem")
        return t_f + 20
    if J.layout == "flux-rccl":
        J.emit_l(t_f + 0.4, "%.3fs: flux-shell[%d]: ERROR: oom: Memory cgroup out of memory: killed 1 task on %s." % (flux_el(J, t_f + 0.4), J.hosts.index(h), h))
        J.emit_l(t_f + 0.45, "%.3fs: flux-shell[%d]: ERROR: oom: memory.peak = %.3fG" % (flux_el(J, t_f + 0.45), J.hosts.index(h), rng.uniform(200, 500)))
        flux_first_exit(J, t_f + 0.5, c, "signal", 9, True)
        J.clue("flux doom names rank")
        finish_fail(J, t_f + 31, 137, kind="mem")
        return t_f + 31
    if J.layout == "htcondor":
        J.sched["mem_hold"] = True
    if J.layout == "lsf-jsrun" and rng.random() < 0.5:
        J.sched["lsf_memlimit"] = True
    if J.layout == "pbs-hydra" and rng.random() < 0.5:
        J.sched["pbs_mem"] = True
    return culprit_exit(J, t_f + 0.5, c, "signal", 9, peers_react=rng.random() < 0.5)


def sc_crash(J, t_train):
    rng = J.rng
    c = J.culprit
    h = J.host_of(c)
    t_f = pick_fail_time(J, t_train)
    train_logs(J, t_train, t_f)
    sig = rng.choice([11, 11, 11, 6, 7])
    J.core = rng.random() < 0.5
    if sig == 11:
        lib = rng.choice(["libtorch_cpu.so", "libtorch_cuda.so", "_C.cpython-311-x86_64-linux-gnu.so", "libnccl.so.2", "libfabric.so.1"])
        thread = "0x%012x" % (0x7f0000000000 + rng.getrandbits(36))
        fault = ["Fatal Python error: Segmentation fault", "",
                 "Thread %s (most recent call first):" % ("0x%012x" % (0x7f0000000000 + rng.getrandbits(36))),
                 '  File "/usr/lib64/python3.11/threading.py", line 331 in wait',
                 '  File "%s/torch/utils/data/_utils/pin_memory.py", line 53 in _pin_memory_loop' % J.site_pkgs, "",
                 "Current thread %s (most recent call first):" % thread,
                 '  File "%s/torch/autograd/graph.py", line 825 in _engine_run_backward' % J.site_pkgs,
                 '  File "%s/torch/autograd/__init__.py", line 347 in backward' % J.site_pkgs,
                 '  File "%s/%s", line %d in train' % (J.proj_dir, J.script, rng.randint(200, 390)),
                 '  File "%s/%s", line %d in main' % (J.proj_dir, J.script, rng.randint(400, 590)),
                 '  File "%s/%s", line %d in <module>' % (J.proj_dir, J.script, rng.randint(600, 900)), ""]
        J.emit(t_f, c, "\n".join(fault), "err")
        if rng.random() < 0.6:
            J.kmsg(h, t_f, "python[%d]: segfault at %x ip %016x sp %016x error 4 in %s[%x+%x]" % (
                J.pid[c], rng.choice([0, 8, 0x18, 0x40]), 0x7f0000000000 + rng.getrandbits(36), 0x7ffd00000000 + rng.getrandbits(32), lib,
                0x7f0000000000 + rng.getrandbits(36), rng.randint(0x100000, 0x8000000)))
            if J.nccl_info:
                J.clue("segfault pid matches culprit")
        if J.layout in ("torque-ompi", "sge-ompi"):
            J.emit(t_f + 0.01, c, "[%s:%05d] *** Process received signal ***\n[%s:%05d] Signal: Segmentation fault (11)\n[%s:%05d] Signal code: Address not mapped (1)\n[%s:%05d] Failing at address: 0x18\n[%s:%05d] *** End of error message ***" % (
                (h, J.pid[c]) * 5), "err")
        J.inject = "SIGSEGV in %s on rank %d" % (lib, c)
    elif sig == 6:
        msg = rng.choice(["double free or corruption (!prev)", "free(): invalid pointer", "corrupted size vs. prev_size",
                          "python: /opt/deepspeed/csrc/adam/cpu_adam_impl.cpp:112: void Adam_Optimizer::Step_1(float*, float*, float*, float*, size_t, ds_half_precision_t*, bool): Assertion `_param_size > 0' failed."])
        J.emit(t_f, c, msg, "err")
        J.inject = "SIGABRT (%s) on rank %d" % (msg.split(":")[0][:40], c)
    else:
        J.emit(t_f, c, "Fatal Python error: Bus error\n\nCurrent thread 0x%012x (most recent call first):\n  File \"%s/torch/storage.py\", line 1185 in _new_shared_filename_cpu\n  File \"%s/torch/multiprocessing/reductions.py\", line 545 in reduce_storage\n" % (
            0x7f0000000000 + rng.getrandbits(36), J.site_pkgs, J.site_pkgs), "err")
        J.inject = "SIGBUS (shared memory exhausted in /dev/shm) on rank %d" % c
    culprit_text_clue(J, c)
    return culprit_exit(J, t_f + rng.uniform(0.1, 1.0), c, "signal", sig)


def sc_preemption(J, t_train):
    rng = J.rng
    t_f = pick_fail_time(J, t_train, 0.1, 0.7)
    train_logs(J, t_train, t_f)
    J.inject = "scheduler preempted the job"
    if rng.random() < 0.6:
        J.emit(t_f + 0.5, 0, "%s | WARNING | train | received SIGTERM, attempting emergency checkpoint ..." % J.pyts(t_f + 0.5, J.host_of(0)), "err")
    t_end = t_f + rng.uniform(20, 60)
    if J.layout == "slurm-pmix":
        J.emit_l(t_f, "slurmstepd: error: *** JOB %s ON %s CANCELLED AT %s DUE TO PREEMPTION ***" % (J.jobid, J.hosts[0], J.isots(t_f, J.hosts[0])))
        J.emit_l(t_f + 0.2, "slurmstepd: error: *** STEP %s.0 ON %s CANCELLED AT %s DUE TO PREEMPTION ***" % (J.jobid, J.hosts[0], J.isots(t_f + 0.2, J.hosts[0])))
        J.emit_l(t_f + 0.4, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.")
        J.emit_l(t_f + 1, "srun: got SIGCONT")
        J.emit_l(t_f + 1.1, "srun: forcing job termination")
    elif J.layout == "pbs-pals":
        k = J.visible if len(J.visible) <= 10 else sorted(rng.sample(J.visible, 10))
        for r in k:
            J.emit_l(t_f + rng.uniform(2, 6), "%s: rank %d died from signal 15" % (J.fqdn(J.host_of(r)), r))
        J.decoys.append("PALS reports ranks dying from signal 15 (all ranks, preemption)")
    elif J.layout == "pbs-hydra":
        J.emit_l(t_f + 3, "[mpiexec@%s] Sending Ctrl-C to processes as requested\n[mpiexec@%s] Press Ctrl-C again to force abort" % (J.hosts[0], J.hosts[0]))
    elif J.layout in ("torque-ompi", "sge-ompi"):
        if J.layout == "sge-ompi":
            J.emit_l(t_f - 60, "[%s] caught SIGUSR2 from SGE (-notify): job %s is about to be killed" % (J.ctime(t_f - 60, J.hosts[0]), J.jobid), "out")
        J.emit_l(t_f + 2, "mpirun: Forwarding signal 18 to job" if rng.random() < 0.3 else
                 "--------------------------------------------------------------------------\nmpirun noticed that process rank %d with PID 0 on node %s exited on signal 15 (Terminated).\n--------------------------------------------------------------------------" % (
                     J.visible[0], J.hosts[0]))
    elif J.layout == "flux-rccl":
        J.emit_l(t_f, "%.3fs: job.exception type=preempt severity=0 preempted for higher priority job" % flux_el(J, t_f))
        J.emit_l(t_f + 3, "flux-job: task(s) Terminated")
    elif J.layout == "htcondor":
        for i, h in enumerate(J.hosts):
            J.emit(t_f + 0.2, -1 - i, torchrun_log(J, t_f + 0.2, h, "WARNING", "Received Signals.SIGTERM death signal, shutting down workers", 705 if J.tvt >= (2, 4) else 0), "err")
            for o in J.ranks_on(h):
                J.emit(t_f + 0.3, -1 - i, torchrun_log(J, t_f + 0.3, h, "WARNING", "Sending process %d closing signal SIGTERM" % J.pid[o], 897 if J.tvt >= (2, 4) else 0), "err")
    J.sched.update(kind="preempt", end_t=t_end, exit=143, preempt_t=t_f)
    return t_end


def pyspy_dump(J, r, where):
    rng = J.rng
    h = J.host_of(r)
    lines = ["Process %d: %s %s --config configs/%s.yaml" % (J.pid[r], J.python, J.script, J.model),
             "Python v3.11.%d (%s)" % (rng.randint(4, 9), J.python), "",
             'Thread %d (idle): "MainThread"' % J.pid[r]]
    if where == "lock":
        lines += ["    _wait_for_tstate_lock (threading.py:1132)", "    join (threading.py:1112)",
                  "    wait_for_async_save (%s/utils/ckpt.py:%d)" % (J.proj_dir, rng.randint(60, 140)),
                  "    train (%s/%s:%d)" % (J.proj_dir, J.script, rng.randint(200, 390))]
    elif where == "file":
        lines += ["    exists (<frozen genericpath>:19)", "    wait_for_file (%s/utils/sync.py:%d)" % (J.proj_dir, rng.randint(20, 60)),
                  "    train (%s/%s:%d)" % (J.proj_dir, J.script, rng.randint(200, 390))]
    elif where == "data":
        lines += ["    wait (threading.py:331)", "    get (queue.py:180)",
                  "    _try_get_data (%s/torch/utils/data/dataloader.py:1133)" % J.site_pkgs,
                  "    _get_data (%s/torch/utils/data/dataloader.py:1294)" % J.site_pkgs,
                  "    _next_data (%s/torch/utils/data/dataloader.py:1328)" % J.site_pkgs,
                  "    __next__ (%s/torch/utils/data/dataloader.py:630)" % J.site_pkgs,
                  "    train (%s/%s:%d)" % (J.proj_dir, J.script, rng.randint(200, 390))]
    else:
        lines += ["    synchronize (%s/torch/cuda/__init__.py:954)" % J.site_pkgs,
                  "    log_metrics (%s/utils/metrics.py:%d)" % (J.proj_dir, rng.randint(30, 90)),
                  "    train (%s/%s:%d)" % (J.proj_dir, J.script, rng.randint(200, 390))]
    lines += ["    main (%s/%s:%d)" % (J.proj_dir, J.script, rng.randint(400, 590)),
              "    <module> (%s/%s:%d)" % (J.proj_dir, J.script, rng.randint(600, 900)), ""]
    lines.append('Thread %d (idle): "Thread-2 (_pin_memory_loop)"' % (J.pid[r] + rng.randint(100, 300)))
    lines += ["    wait (threading.py:331)", "    get (queue.py:180)", "    do_one_step (%s/torch/utils/data/_utils/pin_memory.py:31)" % J.site_pkgs, ""]
    return "\n".join(lines)


def sc_hang(J, t_train):
    rng = J.rng
    c = J.culprit
    h = J.host_of(c)
    t_f = pick_fail_time(J, t_train)
    step, _ = train_logs(J, t_train, t_f)
    seq = seq_at(J, step + 1)
    where = rng.choice(["lock", "file", "sync"])
    J.inject = "rank %d stopped entering collectives at step ~%d (stuck in %s)" % (c, step + 1, {"lock": "async checkpoint join", "file": "a user file-wait loop", "sync": "a metrics sync"}[where])
    pyspy = rng.random() < 0.35
    if pyspy:
        J.files["py-spy-%s-%d.txt" % (h, J.pid[c])] = "$ py-spy dump --pid %d   # on %s, the one python still at 100%% CPU idle in MainThread\n%s\n" % (J.pid[c], h, pyspy_dump(J, c, where))
        if J.nccl_info:
            J.clue("py-spy dump of culprit pid")
    watchdog = (J.timeout_ms / 1000.0 < (J.t0 + J.walltime_s - t_f - 300) and rng.random() < 0.85) or J.fw == "horovod"
    if not watchdog:
        if not pyspy:
            J.notes.append("no timeout fired before walltime; output simply stops")
        return walltime_end(J)
    if J.world <= 16 and len(J.visible) == J.world and J.fw != "horovod":
        J.clue("every rank except the culprit reports the timeout (small world)")
    return collective_stall(J, t_f, seq, rng.choice(["ALLREDUCE", "ALLREDUCE", "_ALLGATHER_BASE", "REDUCE_SCATTER"]), J.numel, skip=(c,))


def lustre_lines(J, h, t):
    rng = J.rng
    fsname = {"pbs-pals": "eagle", "flux-rccl": "lustre5", "pbs-hydra": "scratch", "slurm-pmix": "scratch"}.get(J.layout, "lustre")
    ost = "%s-OST%04x" % (fsname, rng.randint(0, 160))
    nid = "10.%d.%d.%d@o2ib" % (rng.randint(100, 200), rng.randint(0, 255), rng.randint(1, 254))
    if J.layout in ("pbs-pals", "flux-rccl"):
        nid = "10.%d.%d.%d@kfi" % (rng.randint(100, 200), rng.randint(0, 255), rng.randint(1, 254))
    cli = "%s-osc-ffff%08x" % (ost, rng.getrandbits(32))
    J.kmsg(h, t, "Lustre: %d:0:(client.c:2310:ptlrpc_expire_one_request()) @@@ Request sent has timed out for slow reply: [sent %d/real %d]  req@%016x x%d/t0(0) o3->%s@%s:6/4 lens 488/440 e 0 to 1 dl %d ref 2 fl Rpc:Xr/0/ffffffff rc 0/-1 job:'python.%d'" % (
        rng.randint(2000, 9000), int(t - 100), int(t - 100), rng.getrandbits(63), rng.getrandbits(50), cli, nid, int(t), J.uid))
    J.kmsg(h, t + 0.01, "Lustre: %s: Connection to %s (at %s) was lost; in progress operations using this service will wait for recovery to complete" % (cli, ost, nid))
    J.kmsg(h, t + 120, "INFO: task pt_data_worker:%d blocked for more than 120 seconds." % (J.culprit_pid_worker))
    J.kmsg(h, t + 120.01, "      Tainted: P           OE     -------  ---  5.14.0-284.30.1.el9_2.x86_64 #1")
    J.kmsg(h, t + 120.02, '"echo 0 > /proc/sys/kernel/hung_task_timeout_secs" disables this message.')
    return ost


def sc_data_stall(J, t_train):
    rng = J.rng
    c = J.culprit
    h = J.host_of(c)
    t_f = pick_fail_time(J, t_train)
    step, _ = train_logs(J, t_train, t_f)
    seq = seq_at(J, step + 1)
    J.culprit_pid_worker = J.pid[c] + rng.randint(40, 300)
    ost = None
    if rng.random() < 0.7:
        ost = lustre_lines(J, h, t_f + rng.uniform(5, 30))
    J.inject = "rank %d's DataLoader blocked on %s" % (c, ("Lustre OST %s" % ost) if ost else "a stuck shard read")
    # user-level data wait warning (a common custom watchdog)
    if rng.random() < 0.6:
        for k in range(1, rng.randint(2, 4)):
            tt = t_f + 300 * k
            if tt - t_f > J.timeout_ms / 1000.0:
                break
            J.emit(tt, c, "%s | WARNING | data | [rank %d] no batch from DataLoader for %d s (step %d); workers alive: %d/%d" % (
                J.pyts(tt, h), c, 300 * k, step + 1, rng.randint(0, 3), rng.choice([4, 6, 8])), "err")
        J.clue("culprit warns that it waits for data")
    loader_tmo = rng.random() < 0.4 and J.timeout_ms > 600000
    if loader_tmo:
        dlt = rng.choice([300, 600])
        tb = py_tb(J, user_frames(J, "data")[:4] + [(J.site_pkgs + "/torch/utils/data/dataloader.py", 1146 if J.tvt >= (2, 4) else 1146, "_try_get_data", "raise RuntimeError(f'DataLoader timed out after {timeout} seconds') from e")],
                   "RuntimeError: DataLoader timed out after %d seconds" % dlt)
        J.emit(t_f + dlt, c, tb, "err")
        culprit_text_clue(J, c)
        return culprit_exit(J, t_f + dlt + 1, c, "exit", 1)
    if rng.random() < 0.3:
        J.files["py-spy-%s-%d.txt" % (h, J.pid[c])] = "$ py-spy dump --pid %d   # ssh'ed to %s while the job was stuck\n%s\n" % (J.pid[c], h, pyspy_dump(J, c, "data"))
        if J.nccl_info:
            J.clue("py-spy dump of culprit")
    if J.world <= 16 and len(J.visible) == J.world and J.fw != "horovod":
        J.clue("culprit is the only rank without a timeout")
    return collective_stall(J, t_f, seq, "ALLREDUCE", J.numel, skip=(c,))


def fingerprint(seq, op, shape, dtype="Float"):
    dt = {"Float": "float", "BFloat16": "c10::BFloat16", "Half": "c10::Half"}[dtype]
    return ("CollectiveFingerPrint(SequenceNumber=%d, OpType=%s, TensorShape=[%s], TensorDtypes=%s, TensorDeviceTypes=TensorOptions(dtype=%s (default), device=cuda, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt)))"
            % (seq, op, ", ".join(str(x) for x in shape), dtype, dt))


def sc_mismatch(J, t_train):
    rng = J.rng
    c = J.culprit
    t_f = pick_fail_time(J, t_train)
    step, _ = train_logs(J, t_train, t_f)
    seq = seq_at(J, step + 1)
    if J.fw == "horovod":
        if rng.random() < 0.5:
            hvd_stall_warnings(J, t_f + 60 + rng.uniform(0, 5), "%d: [DistributedAllreduce.grad.head.weight]" % c)
            J.clue("stall inspector names rank")
            J.inject = "rank %d submitted a differently named tensor (skipped head on that rank)" % c
            return walltime_end(J)
        msg = "Mismatched allreduce tensor shapes: One rank sent a tensor of rank %d, but another rank sent a tensor of rank %d." % (2, 1)
        for r in J.visible:
            tt = t_f + rng.uniform(0, 1)
            J.emit(tt, r, py_tb(J, user_frames(J, "backward")[:3] + [(J.site_pkgs + "/horovod/torch/mpi_ops.py", 967, "synchronize", "raise HorovodInternalError(e)")],
                                "horovod.common.exceptions.HorovodInternalError: %s" % msg), "err")
        J.inject = "rank %d allreduced a tensor of different rank (Horovod mismatch)" % c
        if rng.random() < 0.5:
            J.emit(t_f - 1, c, "%s | DEBUG | train | [rank %d] head output reshaped to %s" % (J.pyts(t_f - 1, J.host_of(c)), c, "[%d]" % rng.choice([512, 1000])), "err")
            J.clue("culprit debug line differs")
        first = rng.choice(J.visible)
        return collateral_first(J, t_f + 1.5, first, "exit", 1)
    shape = [rng.choice([1, 4, 1024, 4096, 50304])]
    op = "ALLREDUCE"
    variant = rng.choice(["debug", "debug", "timeout"])
    if variant == "debug":
        J.notes.append("TORCH_DISTRIBUTED_DEBUG=DETAIL")
        cop, cshape = rng.choice([("BROADCAST", shape), ("ALLREDUCE", [shape[0] + rng.choice([1, 8, 128])]), ("BARRIER", [])])
        fp_ok = fingerprint(seq, op, shape)
        fp_bad = fingerprint(seq, cop, cshape) if cop != "BARRIER" else "CollectiveFingerPrint(SequenceNumber=%d, OpType=BARRIER)" % seq
        for r in J.visible:
            tt = t_f + rng.uniform(0, 2)
            if r == c:
                other = 0 if c != 0 else 1
                m = "Detected mismatch between collectives on ranks. Rank %d is running collective: %s, but Rank %d is running collective: %s." % (c, fp_bad, other, fp_ok)
            else:
                m = "Detected mismatch between collectives on ranks. Rank %d is running collective: %s, but Rank %d is running collective: %s." % (r, fp_ok, c, fp_bad)
            if cop != op:
                m += "Collectives differ in the following aspects: \t Op type: %svs %s" % (op if r != c else cop, cop if r != c else op)
            elif cshape != shape:
                m += "Collectives differ in the following aspects: \t Tensor Tensor shapes: %svs %s" % (shape[0] if r != c else cshape[0], cshape[0] if r != c else shape[0])
            J.emit(tt, r, py_tb(J, user_frames(J, "allreduce"), "RuntimeError: " + m), "err")
        J.clue("mismatch message names the odd rank")
        J.inject = "rank %d issued %s%s while others issued ALLREDUCE%s" % (c, cop, cshape, shape)
        first = min(J.visible, key=lambda x: (x != 0, x))
        return collateral_first(J, t_f + 2.5, first, "exit", 1)
    # no debug: everybody (culprit too) hangs and times out; culprit's WorkNCCL differs
    cop = rng.choice(["BROADCAST", "ALLGATHER", "ALLREDUCE"])
    cnumel = J.numel if cop != "ALLREDUCE" else J.numel + rng.choice([1024, 4096, 65536])
    row = {c: (seq, cop, cnumel)}
    J.clue("culprit's timed-out WorkNCCL differs (OpType/Numel)")
    J.inject = "rank %d entered %s(numel=%d) while the rest entered ALLREDUCE(numel=%d)" % (c, cop, cnumel, J.numel)
    return collective_stall(J, t_f, seq, op, J.numel, culprit_row=row)


def sc_straggler(J, t_train):
    rng = J.rng
    c = J.culprit
    h = J.host_of(c)
    factor = rng.uniform(1.35, 2.6)
    reason = rng.choice(["thermal", "cpu", "pcie", "nothing"])
    J.inject = "rank %d persistently %.1fx slower (%s)" % (c, factor, reason)
    finish = rng.random() < 0.5
    t_end_train = t_train + (J.walltime_s * rng.uniform(0.3, 0.7) if finish else J.walltime_s + 600)
    st_normal = J.step_time
    J.step_time = st_normal * factor * 0.97
    if finish:
        J.total_steps = J.start_step + int((t_end_train - t_train) / J.step_time)
    last_step, last_t = train_logs(J, t_train, min(t_end_train, J.t0 + J.walltime_s - 5))
    # per-rank timing lines
    every = max(50, (last_step - J.start_step) // 12 // 50 * 50) if last_step > J.start_step else 50
    style = rng.choice(["perrank", "perrank", "megatron"]) if J.fw == "megatron" else "perrank"
    s = J.start_step
    t = t_train
    k = 0
    while k < 14:
        s += every
        t += every * J.step_time
        if t > last_t:
            break
        k += 1
        if style == "megatron":
            mn = rng.choice([x for x in J.visible if x != c])
            J.emit(t + 0.5, 0, " [%s] | MnRtt/Rnk: %.2fms/%d | MxRtt/Rnk: %.2fms/%d | MnPwr/Rnk: %dW/%d | MxPwr/Rnk: %dW/%d | MnTmp/Rnk: %dC/%d | MxTmp/Rnk: %dC/%d | MnUtl/Rnk: %d%%/%d | MxUtl/Rnk: %d%%/%d | MnClk/Rnk: %dMHz/%d | MxClk/Rnk: %dMHz/%d | MnDRTm/Rnk: %.2fms/%d | MxDRTm/Rnk: %.2fms/%d | MnEtpt/Rnk: %.2fTF/%d | MxEtpt/Rnk: %.2fTF/%d" % (
                J.loc(t, J.host_of(0)).strftime("%Y-%m-%d %H:%M:%S"),
                st_normal * 1000 * 0.93, mn, st_normal * 1000 * factor, c,
                rng.randint(180, 260), c, rng.randint(330, 400), mn,
                rng.randint(38, 50), mn, rng.randint(80, 91) if reason == "thermal" else rng.randint(60, 70), c if reason == "thermal" else rng.choice(J.visible),
                rng.randint(55, 80), c, 100, mn,
                rng.randint(900, 1150) if reason == "thermal" else rng.randint(1350, 1410), c if reason == "thermal" else mn, 1410, rng.choice(J.visible),
                rng.uniform(5, 20), mn, rng.uniform(200, 900) if reason == "cpu" else rng.uniform(20, 40), c if reason == "cpu" else rng.choice(J.visible),
                rng.uniform(40, 80) / factor, c, rng.uniform(120, 160), mn), "out")
        else:
            for r in J.visible if len(J.visible) <= 24 else sorted(set(rng.sample(J.visible, 16) + [c])):
                comp = st_normal * rng.uniform(0.55, 0.62) * 1000
                if r == c:
                    comp *= factor
                    wait = rng.uniform(2, 15)
                else:
                    wait = st_normal * (factor - 1) * 1000 * rng.uniform(0.8, 1.0)
                data = rng.uniform(3, 25) if not (r == c and reason == "cpu") else rng.uniform(200, 900)
                J.emit(t + rng.uniform(0, 2), r, "[rank %d] step %d | fwd %.1f ms | bwd %.1f ms | comm-wait %.1f ms | data %.1f ms" % (
                    r, s, comp * 0.35, comp * 0.65, wait, data), "out")
    J.clue("per-rank timing shows the slow rank")
    if reason == "thermal" and not J.amd:
        J.files["nvidia-smi-q-%s.txt" % h] = nvsmi_perf(J, c)
    elif reason == "cpu":
        for i in range(3):
            J.kmsg(h, t_train + 600 * (i + 1), "CPU%d: Package temperature above threshold, cpu clock throttled (total events = %d)" % (rng.randint(0, 63), rng.randint(1000, 90000)))
    if finish:
        return finish_ok(J, last_t + 30)
    return walltime_end(J)


def nvsmi_perf(J, r):
    rng = J.rng
    lines = ["==============NVSMI LOG==============", "",
             "Timestamp                                 : %s" % J.ctime(J.t0 + 3600, J.host_of(r)),
             "Driver Version                            : %s" % rng.choice(["535.154.05", "550.54.15", "525.125.06"]),
             "CUDA Version                              : %s" % J.cuda, "",
             "Attached GPUs                             : %d" % J.gpn]
    for i in range(J.gpn):
        slow = i == J.lr(r)
        lines += ["GPU %s.0" % J.s.bus[i].replace("0000:", "00000000:").upper(),
                  "    Product Name                          : %s" % J.s.gpu,
                  "    Clocks Event Reasons",
                  "        Idle                              : Not Active",
                  "        Applications Clocks Setting       : Not Active",
                  "        SW Power Cap                      : Not Active",
                  "        HW Slowdown                       : %s" % ("Active" if slow else "Not Active"),
                  "            HW Thermal Slowdown           : %s" % ("Active" if slow else "Not Active"),
                  "            HW Power Brake Slowdown       : Not Active",
                  "        Sync Boost                        : Not Active",
                  "        SW Thermal Slowdown               : %s" % ("Active" if slow else "Not Active"),
                  "    Temperature",
                  "        GPU Current Temp                  : %d C" % (rng.randint(86, 93) if slow else rng.randint(45, 62)),
                  "        GPU Shutdown Temp                 : 92 C" if "V100" not in J.s.gpu else "        GPU Shutdown Temp                 : 90 C",
                  "    Clocks",
                  "        SM                                : %d MHz" % (rng.randint(705, 1005) if slow else rng.randint(1380, 1410)), ""]
    return "\n".join(lines) + "\n"


def sc_unknown(J, t_train):
    rng = J.rng
    t_f = pick_fail_time(J, t_train)
    step, _ = train_logs(J, t_train, t_f)
    seq = seq_at(J, step + 1)
    J.inject = "all ranks time out in the same collective; nothing identifies an initiator"
    return collective_stall(J, t_f, seq, rng.choice(["ALLREDUCE", "_ALLGATHER_BASE", "_REDUCE_SCATTER_BASE"]), J.numel)


def finish_ok(J, t):
    rng = J.rng
    h0 = J.host_of(0)
    if J.fw == "deepspeed":
        J.emit(t, 0, "[%s] [INFO] [engine.py:3470:_save_checkpoint] Saving model checkpoint: %s/global_step%d/mp_rank_00_model_states.pt" % (J.pyts(t, h0), J.ckpt_dir, J.total_steps), "out")
    J.emit(t + 5, 0, "%s | INFO | train | training finished: %d steps, final loss %.4f, wall %.2f h" % (J.pyts(t + 5, h0), J.total_steps - J.start_step, lossval(J, J.total_steps), (t - J.t0) / 3600.0), "out")
    if J.tvt >= (2, 4) and rng.random() < 0.6 and J.fw != "horovod":
        for r in J.visible[:min(8, len(J.visible))]:
            J.emit(t + 8 + rng.uniform(0, 1), r, "%s%s Warning: WARNING: process group has NOT been destroyed before we destruct ProcessGroupNCCL. On normal program exit, the application should call destroy_process_group to ensure that any pending NCCL operations have finished in this process. In rare cases this process can exit before this point and block the progress of another member of the process group. This constraint has always been present,  but this warning has only been added since PyTorch 2.4 (function operator())" % (
                J.rp(r), J.glog(t + 8, J.host_of(r), "W", "ProcessGroupNCCL.cpp", 1250 if J.tvt < (2, 6) else 1496)), "err")
        J.decoys.append("PyTorch>=2.4 'process group has NOT been destroyed' warnings at exit")
    J.sched.update(kind="ok", end_t=t + 15, exit=0)
    return t + 15


def sc_healthy(J, t_train):
    rng = J.rng
    t_done = t_train + J.walltime_s * rng.uniform(0.2, 0.8)
    J.total_steps = J.start_step + int((t_done - t_train) / J.step_time)
    train_logs(J, t_train, t_done)
    J.inject = "none (healthy run)"
    return finish_ok(J, t_done + 5)


SCENARIOS = {"gpu_hardware": sc_gpu_hardware, "ecc_memory": sc_ecc, "nvlink": sc_nvlink, "network": sc_network,
             "cuda_oom": sc_cuda_oom, "illegal_memory_access": sc_ima, "python_exception": sc_python_exception,
             "host_oom_kill": sc_host_oom, "crash_signal": sc_crash, "preemption": sc_preemption, "hang": sc_hang,
             "data_loader_stall": sc_data_stall, "collective_mismatch": sc_mismatch, "straggler": sc_straggler,
             "unknown": sc_unknown, None: sc_healthy}


# ---------------------------------------------------------------------------
# rendering helpers
# ---------------------------------------------------------------------------

def label(J, r, stream, text):
    if r < 0 or not J.labels:
        return text
    st = J.label_style
    if st == "ompi":
        pre = "[1,%d]<%s>:" % (r, "stdout" if stream == "out" else "stderr")
    elif st == "colon":
        pre = "%d: " % r
    elif st == "bracket":
        pre = "[%d] " % r
    else:
        pre = "[default%d]:" % J.lr(r)
    return "\n".join(pre + x for x in text.split("\n"))


def streams(J, route):
    out = {}
    vis = set(J.visible)
    for t, seq, src, r, stream, text in sorted(J.lines, key=lambda x: (x[0], x[1])):
        if src == "rank" and r >= 0 and r not in vis:
            continue
        fn = route(src, r, stream)
        if fn is None:
            continue
        out.setdefault(fn, []).append(label(J, r, stream, text) if src == "rank" else text)
    return out


def join(lines):
    return "\n".join(lines) + "\n" if lines else ""


def trim_note(J):
    if J.world > 48:
        return ("### NOTE: the full log is %.1f GB (%d ranks with NCCL_DEBUG=INFO); this copy keeps only the "
                "lines from a subset of ranks plus launcher output ###" % (J.rng.uniform(0.4, 3.5), J.world))
    return None


KNOISE = ["systemd-logind[%d]: New session %d of user root.",
          "audit: type=1400 audit(%d.%03d:%d): apparmor=\"STATUS\" operation=\"profile_replace\"",
          "nvidia-peermem: module verification failed: signature and/or required key missing - tainting kernel",
          "IPv6: ADDRCONF(NETDEV_CHANGE): ib0: link becomes ready",
          "EXT4-fs (nvme0n1p1): mounted filesystem with ordered data mode. Quota mode: none.",
          "Lustre: Mounted %s-client",
          "perf: interrupt took too long (%d > %d), lowering kernel.perf_event_max_sample_rate to %d",
          "hrtimer: interrupt took %d ns",
          "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  %d.%d.%02d",
          "mlx5_core 0000:41:00.0: mlx5_pcie_event:299:(pid %d): PCIe slot advertised sufficient power (75W).",
          "amdgpu: SRAT table not found",
          "cxi_core 0000:21:00.0: cxi0[hsn0] Link up"]


def kern_noise(J, h, t):
    rng = J.rng
    pool = []
    for k in KNOISE:
        if "amdgpu" in k and not J.amd:
            continue
        if ("nvidia" in k) and J.amd:
            continue
        if ("ib0" in k or "mlx5" in k) and J.s.net != "ib":
            continue
        if "cxi_core" in k and J.s.net != "ofi":
            continue
        if "Lustre" in k and J.layout not in ("pbs-pals", "flux-rccl", "pbs-hydra", "slurm-pmix"):
            continue
        pool.append(k)
    tmpl = rng.choice(pool)
    n = tmpl.count("%")
    vals = []
    for i in range(n):
        vals.append(rng.randint(1, 9999))
    if tmpl.startswith("audit"):
        vals = [int(t), rng.randint(0, 999), rng.randint(100, 999)]
    elif tmpl.startswith("NVRM: loading"):
        vals = [rng.choice([535, 550]), rng.choice([54, 104, 127, 154]), rng.choice([3, 5, 14, 15])]
        if J.layout == "lsf-jsrun":
            return (tmpl % tuple(vals)).replace("x86_64", "ppc64le")
    elif tmpl.startswith("Lustre"):
        return tmpl % {"pbs-pals": "eagle", "flux-rccl": "lustre5", "pbs-hydra": "scratch", "slurm-pmix": "scratch"}[J.layout]
    elif tmpl.startswith("perf"):
        a = rng.randint(2500, 9000)
        vals = [a, rng.randint(2000, a - 100), rng.randint(20000, 60000)]
    try:
        return tmpl % tuple(vals)
    except TypeError:
        return tmpl.replace("%", "")


def kernel_file(J, h, style):
    """render kernel messages of host h in a given style"""
    rng = J.rng
    ev = list(J.kern.get(h, []))
    if not ev:
        return None
    tmin = min(t for t, _ in ev)
    tmax = max(t for t, _ in ev)
    seen = {}
    for i in range(rng.randint(5, 14)):
        tt = rng.uniform(min(tmin, J.t0) - 3600, max(tmax, J.t0) + 600)
        ln = kern_noise(J, h, tt)
        key = ln[:24]
        if seen.get(key, 0) >= (1 if ("module verification" in ln or "Mounted" in ln or "loading NVIDIA" in ln) else 2):
            continue
        seen[key] = seen.get(key, 0) + 1
        ev.append((tt, ln))
    ev.sort(key=lambda x: x[0])
    boot = J.t0 - rng.uniform(2, 40) * 86400
    out = []
    for t, text in ev:
        for ln in text.split("\n"):
            up = t - boot
            if style == "dmesgT":
                out.append("[%s] %s" % (J.ctime(t, h), ln))
            elif style == "syslog":
                d = J.loc(t, h)
                out.append("%s %2d %s %s kernel: %s" % (MON[d.month - 1], d.day, d.strftime("%H:%M:%S"), h, ln))
            elif style == "console_utc":
                d = J.loc(t, h, utc=True)
                out.append("%s.%06d+00:00 %s kernel: [%12.6f] %s" % (d.strftime("%Y-%m-%dT%H:%M:%S"), d.microsecond, h, up, ln))
            elif style == "journal":
                d = J.loc(t, h)
                out.append("%s%+03d00 %s kernel: %s" % (d.strftime("%Y-%m-%dT%H:%M:%S"), J.tzoff, h, ln))
            else:
                out.append("[%12.6f] %s" % (up, ln))
    return join(out)


def wrap_pbs(key, val, width=79):
    s = "    %s = %s" % (key, val)
    if len(s) <= width:
        return s
    out = [s[:width]]
    rest = s[width:]
    while rest:
        out.append("\t" + rest[:width - 8])
        rest = rest[width - 8:]
    return "\n".join(out)


def hms(sec):
    sec = int(max(sec, 0))
    return "%02d:%02d:%02d" % (sec // 3600, (sec % 3600) // 60, sec % 60)


def env_lines(J):
    L = []
    if J.nccl_info:
        L.append("export NCCL_DEBUG=INFO")
    if "TORCH_DISTRIBUTED_DEBUG=DETAIL" in J.notes:
        L.append("export TORCH_DISTRIBUTED_DEBUG=DETAIL")
    if J.tvt >= (2, 2):
        L.append("export TORCH_NCCL_ASYNC_ERROR_HANDLING=1")
    else:
        L.append("export NCCL_ASYNC_ERROR_HANDLING=1")
    return L


def app_args(J):
    return "%s --config configs/%s.yaml --global-batch %d --ckpt-dir %s --dist-timeout-min %d" % (
        J.script, J.model, J.gbs, J.ckpt_dir, J.timeout_ms // 60000)


# ---------------------------------------------------------------------------
# layouts
# ---------------------------------------------------------------------------

def render_pbs_pals(J):
    rng = J.rng
    F = {}
    o = "%s.o%d" % (J.jobname, J.jobnum)
    e = "%s.e%d" % (J.jobname, J.jobnum)
    S = streams(J, lambda src, r, st: o if st == "out" else e)
    ol, el = S.get(o, []), S.get(e, [])
    note = trim_note(J)
    if note:
        el.insert(0, note)
    k = J.sched["kind"]
    if k == "walltime":
        el.append("=>> PBS: job killed: walltime %d exceeded limit %d" % (J.walltime_s + rng.randint(5, 40), J.walltime_s))
    queue = "preemptable" if k == "preempt" else ("debug-scaling" if len(J.hosts) <= 10 and rng.random() < 0.3 else "prod")
    script = ["#!/bin/bash -l", "#PBS -N %s" % J.jobname, "#PBS -l select=%d:system=polaris" % len(J.hosts),
              "#PBS -l place=scatter", "#PBS -l walltime=%s" % hms(J.walltime_s), "#PBS -l filesystems=home:eagle",
              "#PBS -q %s" % queue, "#PBS -A %s" % J.proj, "", "module use /soft/modulefiles", "module load conda/2024-04-29",
              "conda activate base", "cd ${PBS_O_WORKDIR}", "",
              "NNODES=`wc -l < $PBS_NODEFILE`", "NRANKS_PER_NODE=%d" % J.ppn, "NDEPTH=8",
              "NTOTRANKS=$(( NNODES * NRANKS_PER_NODE ))",
              'echo "NUM_OF_NODES= ${NNODES} TOTAL_NUM_RANKS= ${NTOTRANKS} RANKS_PER_NODE= ${NRANKS_PER_NODE}"', "",
              "export NCCL_NET_GDR_LEVEL=PHB", "export NCCL_CROSS_NIC=1", "export NCCL_COLLNET_ENABLE=1",
              'export NCCL_NET="AWS Libfabric"', "export FI_CXI_DISABLE_HOST_REGISTER=1",
              "export FI_MR_CACHE_MONITOR=userfaultfd", "export FI_CXI_DEFAULT_CQ_SIZE=131072"] + env_lines(J) + [
              "export MASTER_ADDR=$(head -1 $PBS_NODEFILE)", "",
              "mpiexec -n ${NTOTRANKS} --ppn ${NRANKS_PER_NODE} --depth=${NDEPTH} --cpu-bind depth --env OMP_NUM_THREADS=${NDEPTH} \\",
              "    ./set_affinity_gpu_polaris.sh python %s" % app_args(J), ""]
    F["submit.pbs"] = join(script)
    F[o] = join(ol)
    F[e] = join(el)
    srv = "polaris-pbs-01.hsn.cm.polaris.alcf.anl.gov"
    login = "polaris-login-%02d.hsn.cm.polaris.alcf.anl.gov" % rng.randint(1, 4)
    ts = J.t0
    if k != "preempt" and rng.random() < 0.7:
        te = J.sched["end_t"]
        exit_status = {"ok": 0, "walltime": -29}.get(k, J.sched.get("exit", 1))
        L = ["Job Id: %s" % J.jobid, wrap_pbs("Job_Name", J.jobname), wrap_pbs("Job_Owner", "%s@%s" % (J.user, login)),
             wrap_pbs("resources_used.cpupercent", rng.randint(90, 900)),
             wrap_pbs("resources_used.cput", hms((te - ts) * rng.uniform(2, 30))),
             wrap_pbs("resources_used.mem", "%dkb" % rng.randint(10 ** 7, 5 * 10 ** 8)),
             wrap_pbs("resources_used.ncpus", 64 * len(J.hosts)),
             wrap_pbs("resources_used.vmem", "%dkb" % rng.randint(10 ** 8, 10 ** 9)),
             wrap_pbs("resources_used.walltime", hms(te - ts)), wrap_pbs("job_state", "F"), wrap_pbs("queue", queue),
             wrap_pbs("server", srv), wrap_pbs("Account_Name", J.proj), wrap_pbs("ctime", J.ctime(ts - rng.uniform(60, 7200))),
             wrap_pbs("Error_Path", "%s:%s/%s" % (login, J.proj_dir, e)),
             wrap_pbs("exec_host", "+".join("%s/0*64" % h for h in J.hosts)),
             wrap_pbs("exec_vnode", "+".join("(%s:ncpus=64)" % h for h in J.hosts)),
             wrap_pbs("Join_Path", "n"), wrap_pbs("Output_Path", "%s:%s/%s" % (login, J.proj_dir, o)),
             wrap_pbs("Resource_List.filesystems", "home:eagle"), wrap_pbs("Resource_List.ncpus", 64 * len(J.hosts)),
             wrap_pbs("Resource_List.nodect", len(J.hosts)), wrap_pbs("Resource_List.place", "scatter"),
             wrap_pbs("Resource_List.select", "%d:system=polaris" % len(J.hosts)),
             wrap_pbs("Resource_List.walltime", hms(J.walltime_s)), wrap_pbs("stime", J.ctime(ts)),
             wrap_pbs("obittime", J.ctime(te)), wrap_pbs("session_id", rng.randint(10000, 99999)),
             wrap_pbs("comment", "Job run at %s %s %d at %s on (%s:ncpus=64)%s and %s" % (
                 DOW[J.loc(ts).weekday()], MON[J.loc(ts).month - 1], J.loc(ts).day, J.loc(ts).strftime("%H:%M"), J.hosts[0],
                 "+..." if len(J.hosts) > 1 else "", "finished" if k == "ok" else "failed")),
             wrap_pbs("run_count", 1), wrap_pbs("Exit_status", exit_status), wrap_pbs("Submit_arguments", "submit.pbs"),
             wrap_pbs("project", J.proj), ""]
        F["qstat-xf-%d.txt" % J.jobnum] = join(L)
    if k == "preempt":
        pt = J.sched["preempt_t"]

        def tl(t, src, msg):
            d = J.loc(t)
            return "%s  %s    %s" % (d.strftime("%m/%d/%Y %H:%M:%S"), src, msg)
        L = ["Job: %s" % J.jobid, "",
             tl(ts - 1800, "S", "enqueuing into preemptable, state Q hop 1"),
             tl(ts - 1800, "A", "queue=preemptable"),
             tl(ts, "L", "Considering job to run"),
             tl(ts, "S", "Job Run at request of Scheduler@%s on exec_vnode %s" % (srv, "+".join("(%s:ncpus=64)" % h for h in J.hosts[:4]) + ("+..." if len(J.hosts) > 4 else ""))),
             tl(pt - 1, "L", "Job preempted by requeuing"),
             tl(pt, "S", "Job to be rerun"),
             tl(pt + 40, "S", "Obit received momhop:1 serverhop:1 state:R substate:42"),
             tl(pt + 41, "S", "Job requeued, execution node %s down" % J.hosts[0] if False else "Job requeued"),
             tl(pt + 41, "A", "requeue"), ""]
        F["tracejob-%d.txt" % J.jobnum] = join(L)
    for h in sorted(J.kern):
        txt = kernel_file(J, h, rng.choice(["console_utc", "console_utc", "journal"]))
        if txt:
            F["console-%s.log" % h] = "# from ALCF support ticket: console log for %s\n%s" % (h, txt)
    if getattr(J, "hw_evidence", False) and J.culprit is not None and rng.random() < 0.4:
        h = J.host_of(J.culprit)
        F["pbsnodes-%s.txt" % h] = join([h, "     Mom = %s" % J.fqdn(h), "     Port = 15002", "     pbs_version = 2022.1.3.20230504120107",
                                        "     ntype = PBS", "     state = offline", "     pcpus = 64",
                                        "     resources_available.host = %s" % h, "     resources_available.ngpus = 4",
                                        "     comment = %s" % rng.choice(["HW: node health check failed", "offlined by epilogue: gpu/network health check failed"]),
                                        "     resv_enable = True", "     sharing = default_excl", ""])
    return F


def render_torque(J):
    rng = J.rng
    F = {}
    o = "%s.o%d" % (J.jobname, J.jobnum)
    S = streams(J, lambda src, r, st: o)
    ol = S.get(o, [])
    k = J.sched["kind"]
    te = J.sched["end_t"]
    ol.insert(0, "Running on %d nodes: %s" % (len(J.hosts), " ".join(J.hosts)))
    if k == "walltime":
        ol.append("=>> PBS: job killed: walltime %d exceeded limit %d" % (J.walltime_s + rng.randint(5, 60), J.walltime_s))
        ol.append("mpirun: abort is already in progress...hit ctrl-c again to forcibly terminate")
    if k == "preempt":
        ol.append("mpirun: abort is already in progress...hit ctrl-c again to forcibly terminate")
    code = {"ok": 0, "walltime": 271, "preempt": 271}.get(k, J.sched.get("exit", 1))
    ol += ["----------------------------------------",
           "Begin Torque Epilogue (%s)" % J.ctime(te + 2),
           "Job ID:           %s" % J.jobid, "Username:         %s" % J.user, "Group:            %s" % J.proj,
           "Job Name:         %s" % J.jobname, "Session:          %d" % rng.randint(10000, 99999),
           "Limits:           walltime=%s,nodes=%d:ppn=%d:gpus=%d,neednodes=%d:ppn=%d:gpus=%d" % (
               hms(J.walltime_s), len(J.hosts), 40, J.gpn, len(J.hosts), 40, J.gpn),
           "Resources:        cput=%s,vmem=%dkb,walltime=%s,mem=%dkb,energy_used=0" % (
               hms((te - J.t0) * rng.uniform(4, 30)), rng.randint(10 ** 8, 10 ** 9), hms(te - J.t0), rng.randint(10 ** 7, 10 ** 8)),
           "Job Queue:        %s" % ("gpuparallel" if len(J.hosts) > 1 else "gpuserial"), "Account:          %s" % J.proj,
           "Exit Code:        %d" % code, "End Torque Epilogue", "----------------------------------------"]
    note = trim_note(J)
    if note:
        ol.insert(0, note)
    F[o] = join(ol)
    F["job.pbs"] = join(["#!/bin/bash", "#PBS -N %s" % J.jobname, "#PBS -l nodes=%d:ppn=40:gpus=%d" % (len(J.hosts), J.gpn),
                         "#PBS -l walltime=%s" % hms(J.walltime_s), "#PBS -A %s" % J.proj, "#PBS -j oe", "",
                         "module load openmpi/4.1.5-cuda cuda/%s" % J.cuda, "source ~/venvs/hvd/bin/activate",
                         "cd $PBS_O_WORKDIR"] + env_lines(J) + ["export HOROVOD_STALL_CHECK_TIME_SECONDS=%d" % J.hvd_stall_check, "",
                         "mpirun -np %d -npernode %d %s-bind-to none -map-by slot -x NCCL_DEBUG -x LD_LIBRARY_PATH -x PATH \\" % (
                             J.world, J.ppn, "--tag-output " if J.labels else ""),
                         "    -mca pml ob1 -mca btl ^openib python %s" % app_args(J), ""])
    if k == "preempt":
        F["checkjob-%d.txt" % J.jobnum] = join(["job %d" % J.jobnum, "", "AName: %s" % J.jobname, "State: Idle",
                                               "Creds:  user:%s  group:%s  account:%s  class:gpuparallel" % (J.user, J.proj, J.proj),
                                               "WallTime:   00:00:00 of %s" % hms(J.walltime_s), "",
                                               "Message[0]  job %d was preempted by job %d at %s" % (J.jobnum, J.jobnum + rng.randint(50, 900), J.ctime(J.sched["preempt_t"])),
                                               "Message[1]  job requeued", ""])
    for h in sorted(J.kern):
        txt = kernel_file(J, h, "syslog")
        if txt:
            F["messages-%s.txt" % h] = txt
    return F


def render_lsf(J):
    rng = J.rng
    F = {}
    o = "%s.%d" % (J.jobname, J.jobnum)
    e = "%s.%d.err" % (J.jobname, J.jobnum)
    S = streams(J, lambda src, r, st: o if st == "out" else e)
    ol, el = S.get(o, []), S.get(e, [])
    note = trim_note(J)
    if note:
        el.insert(0, note)
    k = J.sched["kind"]
    te = J.sched["end_t"]
    batch = "batch%d" % rng.randint(1, 5)
    script = ["#!/bin/bash", "#BSUB -P %s" % J.proj, "#BSUB -W %d:%02d" % (J.walltime_s // 3600, 0), "#BSUB -nnodes %d" % len(J.hosts),
              "#BSUB -J %s" % J.jobname, "#BSUB -o %s.%%J" % J.jobname, "#BSUB -e %s.%%J.err" % J.jobname, "#BSUB -alloc_flags \"gpumps smt4\"",
              "", "module load open-ce/1.9.1-py39-0", "conda activate %s/envs/ocetorch" % J.proj_dir] + env_lines(J) + [
              "export MASTER_ADDR=$(cat $LSB_DJOB_HOSTFILE | sort | uniq | grep -v batch | grep -v login | head -1)", "",
              "jsrun -n %d -a 1 -c 7 -g 1 -r 6 --bind=proportional-packed:7 --launch_distribution=packed \\" % J.world,
              "    stdbuf -o0 python %s" % app_args(J)]
    if k == "ok":
        subj, endl = "Done", ["Successfully completed."]
    elif k == "walltime":
        subj, endl = "Exited", ["TERM_RUNLIMIT: job killed after reaching LSF run time limit.", "Exited with exit code 140."]
    elif k == "preempt":
        subj, endl = "Exited", ["TERM_PREEMPT: job killed after preemption.", "Exited with exit code 143."]
    elif J.sched.get("lsf_memlimit"):
        subj, endl = "Exited", ["TERM_MEMLIMIT: job killed after reaching LSF memory usage limit.", "Exited with exit code 137."]
    else:
        subj, endl = "Exited", ["Exited with exit code %d." % J.sched.get("exit", 1)]
    rep = ["", "------------------------------------------------------------",
           "Sender: LSF System <lsfadmin@%s>" % batch,
           "Subject: Job %d: <%s> in cluster <summit> %s" % (J.jobnum, J.jobname, subj), "",
           "Job <%s> was submitted from host <login%d> by user <%s> in cluster <summit> at %s" % (J.jobname, rng.randint(1, 5), J.user, J.ctime(J.t0 - rng.uniform(300, 30000))),
           "Job was executed on host(s) <1*%s>, in queue <batch>, as user <%s> in cluster <summit> at %s" % (batch, J.user, J.ctime(J.t0))]
    for h in J.hosts:
        rep.append("                            <42*%s>" % h)
    rep += ["<%s/%s> was used as the home directory." % (J.s.home, J.user), "<%s> was used as the working directory." % J.proj_dir,
            "Started at %s" % J.ctime(J.t0), "Terminated at %s" % J.ctime(te), "Results reported at %s" % J.ctime(te + 1), "",
            "Your job looked like:", "", "------------------------------------------------------------", "# LSBATCH: User input"] + script + [
            "------------------------------------------------------------", ""] + endl + ["", "Resource usage summary:", "",
            "    CPU time :                                   %.2f sec." % rng.uniform(1, 9),
            "    Max Memory :                                 %d MB" % rng.randint(60, 140),
            "    Average Memory :                             %.2f MB" % rng.uniform(50, 90),
            "    Total Requested Memory :                     -", "    Delta Memory :                               -",
            "    Max Swap :                                   -", "    Max Processes :                              %d" % rng.randint(3, 6),
            "    Max Threads :                                %d" % rng.randint(15, 30),
            "    Run time :                                   %d sec." % int(te - J.t0),
            "    Turnaround time :                            %d sec." % int(te - J.t0 + rng.uniform(300, 30000)), "",
            "The output (if any) is above this job summary.", "", "", "", "PS:", "", "Read file <%s> for stderr output of this job." % e, ""]
    F[o] = join(ol + rep)
    F[e] = join(el)
    F["job.lsf"] = join(script)
    for h in sorted(J.kern):
        txt = kernel_file(J, h, "syslog")
        if txt:
            F["syslog-%s.txt" % h] = "# lines from /var/log/messages on %s, provided by OLCF user assistance\n%s" % (h, txt)
    return F


def render_sge(J):
    rng = J.rng
    F = {}
    merged = rng.random() < 0.35
    o = "%s.o%d" % (J.jobname, J.jobnum)
    e = o if merged else "%s.e%d" % (J.jobname, J.jobnum)
    S = streams(J, lambda src, r, st: o if st == "out" else e)
    ol = S.get(o, [])
    el = S.get(e, []) if not merged else []
    note = trim_note(J)
    if note:
        ol.insert(0, note)
    k = J.sched["kind"]
    te = J.sched["end_t"]
    F[o] = join(ol)
    if not merged:
        F[e] = join(el)
    po = ["-catch_rsh /opt/gridengine/default/spool/%s/active_jobs/%d.1/pe_hostfile" % (J.hosts[0], J.jobnum)]
    for h in J.hosts:
        po += [h] * J.ppn
    F["%s.po%d" % (J.jobname, J.jobnum)] = join(po)
    F["job.sh"] = join(["#!/bin/bash", "#$ -N %s" % J.jobname, "#$ -cwd", "#$ -pe mpi %d" % J.world, "#$ -l gpu=%d" % J.ppn,
                        "#$ -l h_rt=%s" % hms(J.walltime_s), "#$ -l h_vmem=%dG" % rng.choice([8, 12, 16]), "#$ -notify" if k == "preempt" or rng.random() < 0.3 else "#$ -V",
                        "#$ -j y" if merged else "#$ -j n", "", "source /opt/miniforge3/etc/profile.d/conda.sh", "conda activate torch",
                        "module load mpi/openmpi-4.1.6"] + env_lines(J) + ["trap 'echo \"[$(date)] caught SIGUSR2 from SGE (-notify): job $JOB_ID is about to be killed\"' USR2", "",
                        "mpirun -np $NSLOTS %s--map-by ppr:%d:node -x NCCL_DEBUG -x PATH -x LD_LIBRARY_PATH python %s" % (
                            "--tag-output " if J.labels else "", J.ppn, app_args(J)), ""])
    failed = "0"
    exitst = J.sched.get("exit", 0)
    if k == "walltime":
        failed = "37  : qmaster enforced h_rt, h_cpu, or h_vmem limit"
        exitst = 137
    elif k == "preempt":
        failed = "100 : assumedly after job"
        exitst = 137
    elif k == "ok":
        exitst = 0
    q = ["==============================================================",
         "qname        gpu.q", "hostname     %s%s" % (J.hosts[0], J.s.domain), "group        %s" % J.proj, "owner        %s" % J.user,
         "project      NONE", "department   defaultdepartment", "jobname      %s" % J.jobname, "jobnumber    %d" % J.jobnum,
         "taskid       undefined", "account      sge", "priority     0",
         "qsub_time    %s" % J.ctime(J.t0 - rng.uniform(60, 20000)), "start_time   %s" % J.ctime(J.t0), "end_time     %s" % J.ctime(te),
         "granted_pe   mpi", "slots        %d" % J.world, "failed       %s" % failed, "exit_status  %d" % exitst,
         "ru_wallclock %ds" % int(te - J.t0), "ru_utime     %.3fs" % rng.uniform(1, 50), "ru_stime     %.3fs" % rng.uniform(1, 20),
         "ru_maxrss    %.3fMB" % rng.uniform(20, 300), "cpu          %.3fs" % ((te - J.t0) * rng.uniform(2, 20)),
         "mem          %.3fGBs" % rng.uniform(1e4, 9e5), "io           %.3fGB" % rng.uniform(1, 900), "iow          0.000s",
         "maxvmem      %.3fG" % rng.uniform(20, 200), "arid         undefined", "ar_sub_time  undefined", "category     -u %s -l gpu=%d,h_rt=%d,h_vmem=16G -pe mpi %d" % (
             J.user, J.ppn, J.walltime_s, J.world)]
    if rng.random() < 0.75 or k in ("walltime", "preempt"):
        F["qacct-%d.txt" % J.jobnum] = join(q)
    for h in sorted(J.kern):
        txt = kernel_file(J, h, "dmesgT")
        if txt:
            F["dmesg-%s.txt" % h] = txt
    return F


def condor_hdr(J, code, t):
    d = J.loc(t)
    return "%03d (%d.000.000) %s" % (code, J.jobnum, d.strftime("%Y-%m-%d %H:%M:%S") if J.condor_iso else d.strftime("%m/%d %H:%M:%S"))


def dhms(sec):
    sec = int(max(sec, 0))
    return "%d %s" % (sec // 86400, hms(sec % 86400))


def usage_block(J, te):
    rng = J.rng
    u = dhms((te - J.t0) * rng.uniform(2, 16))
    sy = dhms(rng.uniform(100, 3000))
    return ["\t\tUsr %s, Sys %s  -  Run Remote Usage" % (u, sy),
            "\t\tUsr 0 00:00:00, Sys 0 00:00:00  -  Run Local Usage",
            "\t\tUsr %s, Sys %s  -  Total Remote Usage" % (u, sy),
            "\t\tUsr 0 00:00:00, Sys 0 00:00:00  -  Total Local Usage",
            "\t%d  -  Run Bytes Sent By Job" % rng.randint(1000, 10 ** 7), "\t%d  -  Run Bytes Received By Job" % rng.randint(1000, 10 ** 6),
            "\t%d  -  Total Bytes Sent By Job" % rng.randint(1000, 10 ** 7), "\t%d  -  Total Bytes Received By Job" % rng.randint(1000, 10 ** 6)]


def render_condor(J):
    rng = J.rng
    F = {}
    par = len(J.hosts) > 1
    base = J.jobname

    def route(src, r, st):
        if src == "launch":
            i = 0
        elif r < 0:
            i = -1 - r
        else:
            i = J.hosts.index(J.host_of(r))
        if par:
            return "%s_%d.%s.%d" % (base, J.jobnum, "out" if st == "out" else "err", i)
        return "%s_%d.%s" % (base, J.jobnum, "out" if st == "out" else "err")
    S = streams(J, route)
    for k2, v in S.items():
        F[k2] = join(v)
    k = J.sched["kind"]
    te = J.sched["end_t"]
    mem_mb = rng.choice([65536, 131072, 196608, 262144])
    ips = {h: J.ips[h] for h in J.hosts}
    sub_ip = "128.105.%d.%d" % (rng.randint(240, 250), rng.randint(2, 250))
    ev = []
    t_sub = J.t0 - rng.uniform(60, 4 * 3600)
    ev.append([condor_hdr(J, 0, t_sub) + " Job submitted from host: <%s:9618?addrs=%s-9618&alias=ap%d.chtc.wisc.edu&noUDP&sock=schedd_%d_%04x>" % (
        sub_ip, sub_ip, rng.randint(2000, 2002), rng.randint(1000, 9999), rng.getrandbits(16))])
    h0 = J.hosts[0]
    ev.append([condor_hdr(J, 1, J.t0) + " Job executing on host: <%s:9618?addrs=%s-9618&alias=%s%s&noUDP&sock=startd_%d_%04x>" % (
        ips[h0], ips[h0], h0, J.s.domain, rng.randint(1000, 9999), rng.getrandbits(16)),
        "\tSlotName: slot1_1@%s%s" % (h0, J.s.domain),
        '\tCondorScratchDir = "/var/lib/condor/execute/slot1/dir_%d"' % rng.randint(10000, 999999),
        "\tCpus = %d" % (J.ppn * 8), "\tDisk = %d" % rng.randint(10 ** 7, 10 ** 8), "\tGPUs = %d" % J.ppn, "\tMemory = %d" % mem_mb])
    if par:
        for i, h in enumerate(J.hosts):
            ev.append([condor_hdr(J, 14, J.t0 + i * 0.5) + " Node %d executing on host: <%s:9618?addrs=%s-9618&alias=%s%s&noUDP&sock=startd_%d_%04x>" % (
                i, ips[h], ips[h], h, J.s.domain, rng.randint(1000, 9999), rng.getrandbits(16))])
    t = J.t0 + 300
    size = rng.randint(10 ** 6, 5 * 10 ** 6)
    while t < te - 60:
        size = int(size * rng.uniform(1.0, 1.3))
        ev.append([condor_hdr(J, 6, t) + " Image size of job updated: %d" % size, "\t%d  -  MemoryUsage of job (MB)" % (size // 1024),
                   "\t%d  -  ResidentSetSize of job (KB)" % int(size * 0.98)])
        t += rng.choice([300, 900, 1800, 3600, 7200])
        if len(ev) > 14:
            break
    slot = "slot1_1@%s%s" % (h0 if J.culprit is None else J.host_of(J.culprit), J.s.domain)
    if (k == "ok" or k == "fail") and not J.sched.get("mem_hold"):
        code = J.sched.get("exit", 0)
        if par:
            for i, h in enumerate(J.hosts):
                ev.append([condor_hdr(J, 15, te - 1) + " Node %d terminated." % i,
                           "\t(1) Normal termination (return value %d)" % (0 if k == "ok" else (code if code < 128 else 1))] + usage_block(J, te))
        if code >= 128 and rng.random() < 0.3:
            term = ["\t(0) Abnormal termination (signal %d)" % (code - 128), "\t(0) No core file"]
        else:
            term = ["\t(1) Normal termination (return value %d)" % (code if code < 128 else 1)]
        ev.append([condor_hdr(J, 5, te) + " Job terminated."] + term + usage_block(J, te) + [
            "\tPartitionable Resources :    Usage  Request Allocated",
            "\t   Cpus                 :    %5.2f %8d %9d" % (rng.uniform(1, J.ppn * 8), J.ppn * 8, J.ppn * 8),
            "\t   Disk (KB)            : %8d %8d %9d" % (rng.randint(10 ** 5, 10 ** 7), 10485760, rng.randint(10 ** 7, 10 ** 8)),
            "\t   GPUs                 :          %8d %9d" % (J.ppn, J.ppn),
            "\t   Memory (MB)          : %8d %8d %9d" % (rng.randint(mem_mb // 4, mem_mb - 1000), mem_mb, mem_mb)])
    elif k == "mem" or J.sched.get("mem_hold"):
        msg = "Error from %s: Job has gone over memory limit of %d megabytes. Peak usage: %d megabytes." % (slot, mem_mb, mem_mb + rng.randint(1, 900))
        ev.append([condor_hdr(J, 7, te) + " Shadow exception!", "\t" + msg, "\t0  -  Run Bytes Sent By Job", "\t%d  -  Run Bytes Received By Job" % rng.randint(1000, 10 ** 6)])
        ev.append([condor_hdr(J, 12, te + 1) + " Job was held.", "\t" + msg, "\tCode 34 Subcode 0"])
    elif k == "walltime":
        ev.append([condor_hdr(J, 12, te) + " Job was held.", "\tThe job exceeded allowed execute duration of %s" % hms(J.walltime_s), "\tCode 47 Subcode 0"])
    elif k == "preempt":
        ev.append([condor_hdr(J, 4, te) + " Job was evicted.", "\t(0) Job was not checkpointed."] + usage_block(J, te)[:2] + usage_block(J, te)[4:6])
        t2 = te + rng.uniform(600, 7200)
        ev.append([condor_hdr(J, 1, t2) + " Job executing on host: <%s:9618?addrs=%s-9618&alias=gpu%04d%s&noUDP&sock=startd_%d_%04x>" % (
            "128.105.%d.%d" % (rng.randint(0, 255), rng.randint(2, 250)), "128.105.%d.%d" % (rng.randint(0, 255), rng.randint(2, 250)), rng.randint(2000, 4000), J.s.domain, rng.randint(1000, 9999), rng.getrandbits(16))])
    F["%s.log" % base] = join(["\n".join(x) + "\n..." for x in ev])
    if k == "fail" and J.sched.get("mem_hold"):
        pass
    sub = ["universe = %s" % ("parallel" if par else "vanilla"), "executable = run_%s.sh" % ("torchrun_mn" if par else "torchrun"),
           "arguments = %s" % app_args(J), "log = %s.log" % base,
           "output = %s_$(Cluster).out%s" % (base, ".$(Node)" if par else ""), "error = %s_$(Cluster).err%s" % (base, ".$(Node)" if par else ""),
           "request_gpus = %d" % J.ppn, "request_cpus = %d" % (J.ppn * 8), "request_memory = %dMB" % mem_mb, "request_disk = 10GB",
           "require_gpus = (Capability >= 8.0)" if "V100" not in J.s.gpu else "require_gpus = (Capability >= 7.0)",
           "+WantGPULab = true", '+GPUJobLength = "%s"' % ("long" if J.walltime_s > 12 * 3600 else "medium"),
           "should_transfer_files = YES", "transfer_input_files = %s, configs/" % J.script]
    if par:
        sub.append("machine_count = %d" % len(J.hosts))
    sub.append("queue")
    F["%s.sub" % base] = join(sub)
    F["run_%s.sh" % ("torchrun_mn" if par else "torchrun")] = join(["#!/bin/bash"] + env_lines(J) + [
        "torchrun %s--nnodes=%d --nproc_per_node=%d %s\"$@\"" % (
            "--tee 3 " if J.labels else "", len(J.hosts), J.ppn,
            "--node_rank=$_CONDOR_PROCNO --master_addr=$(condor_chirp get_job_attr ParallelMasterAddr) --master_port=29500 " if par else "--standalone "), ""])
    for h in sorted(J.kern):
        txt = kernel_file(J, h, "dmesgT")
        if txt:
            F["dmesg-%s.txt" % h] = "# sent by CHTC facilitators after we asked about %s\n%s" % (h, txt)
    return F


B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"


def render_flux(J):
    rng = J.rng
    F = {}
    o = "flux-f%s.out" % J.fid
    S = streams(J, lambda src, r, st: o)
    ol = S.get(o, [])
    note = trim_note(J)
    if note:
        ol.insert(0, note)
    F[o] = join(ol)
    k = J.sched["kind"]
    te = J.sched["end_t"]
    q = "pbatch" if len(J.hosts) > 2 else "pdebug"
    F["job.sh"] = join(["#!/bin/bash", "#flux: -N %d" % len(J.hosts), "#flux: -t %dh" % (J.walltime_s // 3600), "#flux: -q %s" % q,
                        "#flux: --job-name=%s" % J.jobname, "#flux: --exclusive", "", "module load rocm/%s" % J.rocm,
                        "source /usr/WS1/%s/venvs/rocm-torch/bin/activate" % J.user,
                        "export NCCL_NET_GDR_LEVEL=3", "export FI_CXI_ATS=0", "export NCCL_SOCKET_IFNAME=hsi0"] + env_lines(J) + [
                        "export MASTER_ADDR=$(flux hostlist -n 0 local)", "",
                        "flux run -N %d -n %d -g 1 %s-o gpu-affinity=per-task -o cpu-affinity=per-task -o exit-timeout=30s \\" % (
                            len(J.hosts), J.world, "-l " if J.labels else ""),
                        "    python %s" % app_args(J), ""])
    status = {"ok": 0, "fail": 256 * J.sched.get("exit", 1), "walltime": 256 * 142, "mem": 256 * 137, "preempt": 256 * 143}.get(k, 256)
    if rng.random() < 0.6:
        ts = J.t0
        L = ["%.6f submit userid=%d urgency=16 flags=0 version=1" % (ts - rng.uniform(30, 3600), J.uid),
             "%.6f validate" % (ts - 29), "%.6f depend" % (ts - 29), "%.6f priority priority=%d" % (ts - 29, rng.randint(1000, 90000)),
             "%.6f alloc" % (ts - 2), '%.6f prolog-start description="job-manager.prolog"' % (ts - 1.9),
             '%.6f prolog-finish description="job-manager.prolog" status=0' % (ts - 0.2), "%.6f start" % ts]
        if k == "walltime":
            L.append('%.6f exception type="timeout" severity=0 note="resource allocation expired" userid=%d' % (te - 1, J.uid))
        elif k == "preempt":
            L.append('%.6f exception type="preempt" severity=0 note="preempted for higher priority job" userid=0' % (te - 30))
        L += ["%.6f finish status=%d" % (te, status), '%.6f epilog-start description="job-manager.epilog"' % (te + 0.3),
              '%.6f epilog-finish description="job-manager.epilog" status=0' % (te + rng.uniform(5, 30)),
              "%.6f free" % (te + 31), "%.6f clean" % (te + 31.2)]
        F["flux-job-eventlog-f%s.txt" % J.fid] = "$ flux job eventlog \u0192%s\n%s" % (J.fid, join(L))
    if rng.random() < 0.5:
        st = {"ok": "CD", "walltime": "TO", "preempt": "CA"}.get(k, "F")
        F["flux-jobs.txt"] = join(["$ flux jobs -a -n --format=\"{id.f58:>12} {username:<8.8} {name:<10.10+} {status_abbrev:>2.2} {ntasks:>6} {nnodes:>6h} {runtime!F:>8h} {contextual_info}\"",
                                   "%12s %-8s %-10s %2s %6d %6d %8s %s" % ("\u0192" + J.fid, J.user, J.jobname[:10], st, J.world, len(J.hosts),
                                                                           "%.3fh" % ((te - J.t0) / 3600.0), hostlist(J.hosts))])
    for h in sorted(J.kern):
        txt = kernel_file(J, h, "dmesgT")
        if txt:
            F["dmesg-%s.txt" % h] = txt
    return F


def render_gadi(J):
    rng = J.rng
    F = {}
    o = "job.sh.o%d" % J.jobnum
    e = "job.sh.e%d" % J.jobnum
    S = streams(J, lambda src, r, st: o if st == "out" else e)
    ol, el = S.get(o, []), S.get(e, [])
    note = trim_note(J)
    if note:
        el.insert(0, note)
    k = J.sched["kind"]
    te = J.sched["end_t"]
    if k == "walltime":
        el.append("=>> PBS: job killed: walltime %d exceeded limit %d" % (J.walltime_s + rng.randint(5, 60), J.walltime_s))
    if J.sched.get("pbs_mem"):
        lim = J.memreq_gb * 1024 * 1024
        el.append("=>> PBS: job killed: mem %dkb exceeded limit %dkb" % (lim + rng.randint(1000, 10 ** 6), lim))
    ncpus = (12 if J.gpn == 4 else 16) * J.ppn * len(J.hosts)
    ngpu = J.ppn * len(J.hosts)
    if k == "ok":
        ex = "0"
    elif k in ("walltime", "preempt") or J.sched.get("pbs_mem"):
        ex = "271 (Linux Signal 15 SIGTERM Termination)"
    else:
        c = J.sched.get("exit", 1)
        ex = "%d" % c
    wall = te - J.t0
    ol += ["", "======================================================================================",
           "                  Resource Usage on %s:" % J.loc(te + 5).strftime("%Y-%m-%d %H:%M:%S"),
           "   Job Id:             %s" % J.jobid, "   Project:            %s" % J.proj, "   Exit Status:        %s" % ex,
           "   Service Units:      %.2f" % (wall / 3600.0 * ngpu * 3 * 12 / 4),
           "   NCPUs Requested:    %-6d                 NCPUs Used: %-6d" % (ncpus, ncpus),
           "                                           CPU Time Used: %s" % hms(wall * rng.uniform(2, 20)),
           "   Memory Requested:   %.1fGB               Memory Used: %.2fGB" % (J.memreq_gb, rng.uniform(30, J.memreq_gb * 0.8)),
           "   NGPUs Requested:    %-6d            GPU Utilisation: %d%%" % (ngpu, rng.randint(40, 98) * ngpu),
           "                                         GPU Memory Used: %.1fGB" % (rng.uniform(0.5, 0.9) * J.s.cap * ngpu),
           "   Walltime requested: %s            Walltime Used: %s" % (hms(J.walltime_s), hms(wall)),
           "   JobFS requested:    100.0MB                JobFS used: 0B",
           "======================================================================================"]
    F[o] = join(ol)
    F[e] = join(el)
    q = "gpuvolta" if J.gpn == 4 else "dgxa100"
    mpirun = ("mpirun -np %d -ppn %d %s-genv I_MPI_PIN_DOMAIN=socket" % (J.world, J.ppn, "-l " if J.labels else "")) if J.mpi_flavor == "intel" else (
        "mpiexec.hydra -n %d -ppn %d %s-f $PBS_NODEFILE" % (J.world, J.ppn, "-prepend-rank " if J.labels else ""))
    F["job.sh"] = join(["#!/bin/bash", "#PBS -P %s" % J.proj, "#PBS -q %s" % q,
                        "#PBS -l ngpus=%d,ncpus=%d,mem=%dGB,walltime=%s,jobfs=100MB" % (ngpu, ncpus, J.memreq_gb, hms(J.walltime_s)),
                        "#PBS -l storage=scratch/%s+gdata/%s" % (J.proj, J.proj), "#PBS -l wd", "",
                        "module load %s pytorch/%s" % ("intel-mpi/2021.10.0" if J.mpi_flavor == "intel" else "mpich/4.1.2", J.tv)] + env_lines(J) + [
                        "export MASTER_ADDR=$(head -n1 $PBS_NODEFILE)", "", mpirun + " \\", "    python3 %s" % app_args(J), ""])
    for h in sorted(J.kern):
        txt = kernel_file(J, h, "dmesgT")
        if txt:
            F["nci-help-%s.txt" % h] = ("From: NCI Help Desk\nSubject: Re: [NCI #%d] job %s failed\n\nHi %s,\n\nWe looked at %s for the time of your job. The relevant kernel messages are below.\n"
                                        "The node has been %s.\n\nRegards,\nNCI User Services\n\n----\n%s" % (
                                            rng.randint(200000, 299999), J.jobid, J.user, h,
                                            "taken offline for hardware checks" if getattr(J, "hw_evidence", False) and J.culprit is not None and h == J.host_of(J.culprit) else "returned to service", txt))
    return F


def render_slurm(J):
    rng = J.rng
    F = {}
    o = "%s-%s.out" % (J.jobname, J.jobid)
    e = "%s-%s.err" % (J.jobname, J.jobid)
    split = rng.random() < 0.6
    S = streams(J, lambda src, r, st: o if (st == "out" or not split) else e)
    ol = S.get(o, [])
    el = S.get(e, []) if split else []
    note = trim_note(J)
    if note:
        ol.insert(0, note)
    k = J.sched["kind"]
    te = J.sched["end_t"]
    h0 = J.hosts[0]
    tgt = el if split else ol
    if k == "walltime":
        tgt.append("slurmstepd: error: *** STEP %s.0 ON %s CANCELLED AT %s DUE TO TIME LIMIT ***" % (J.jobid, h0, J.isots(te, h0)))
        tgt.append("slurmstepd: error: *** JOB %s ON %s CANCELLED AT %s DUE TO TIME LIMIT ***" % (J.jobid, h0, J.isots(te, h0)))
        tgt.append("srun: Job step aborted: Waiting up to 32 seconds for job step to finish.")
    F[o] = join(ol)
    if split:
        F[e] = join(el)
    part = "booster" if J.s.machine == "juwels" else "boost_usr_prod"
    mpi = "pspmix" if J.s.machine == "juwels" else "pmix"
    F["job.sbatch"] = join(["#!/bin/bash", "#SBATCH --job-name=%s" % J.jobname, "#SBATCH --account=%s" % J.proj,
                            "#SBATCH --partition=%s" % part, "#SBATCH --nodes=%d" % len(J.hosts), "#SBATCH --ntasks-per-node=%d" % J.ppn,
                            "#SBATCH --gres=gpu:4", "#SBATCH --cpus-per-task=%d" % (12 if J.s.machine == "juwels" else 8),
                            "#SBATCH --time=%s" % hms(J.walltime_s), "#SBATCH --output=%x-%j.out"] + (["#SBATCH --error=%x-%j.err"] if split else []) + [
                            "", "module load Stages/2024 GCC OpenMPI PyTorch" if J.s.machine == "juwels" else "module load profile/deeplrn cineca-ai",
                            "source $PROJECT/%s/venv/bin/activate" % J.user] + env_lines(J) + [
                            "export MASTER_ADDR=$(scontrol show hostnames $SLURM_JOB_NODELIST | head -n 1)%s" % ("i" if J.s.machine == "juwels" else ""),
                            "export MASTER_PORT=29500", "",
                            "srun --mpi=%s --cpu-bind=none %spython -u %s" % (mpi, "-l " if J.labels else "", app_args(J)), ""])
    if rng.random() < 0.55 or k in ("preempt", "mem"):
        state = {"ok": "COMPLETED", "walltime": "TIMEOUT", "preempt": "PREEMPTED", "mem": "OUT_OF_ME+"}.get(k, "FAILED")
        ex = J.sched.get("exit", 0)
        ec = "0:0" if k == "ok" else ("0:15" if k in ("walltime", "preempt") else ("%d:0" % ex if ex < 128 else "0:%d" % (ex - 128)))
        if k == "mem":
            ec = "0:125"
        rows = [("%s" % J.jobid, J.jobname[:10], part[:10], J.proj[:10], len(J.hosts) * 48, state, ec),
                ("%s.bat+" % J.jobid, "batch", "", J.proj[:10], 48, state if k != "ok" else "COMPLETED", ec),
                ("%s.ext+" % J.jobid, "extern", "", J.proj[:10], len(J.hosts) * 48, "COMPLETED", "0:0"),
                ("%s.0" % J.jobid, "python", "", J.proj[:10], len(J.hosts) * 48, {"walltime": "CANCELLED", "preempt": "CANCELLED"}.get(k, state), ec)]
        L = ["       JobID    JobName  Partition    Account  AllocCPUS      State ExitCode ",
             "------------ ---------- ---------- ---------- ---------- ---------- -------- "]
        for r in rows:
            L.append("%12s %10s %10s %10s %10d %10s %8s " % r)
        F["sacct-%s.txt" % J.jobid] = join(L)
    for h in sorted(J.kern):
        txt = kernel_file(J, h, "journal")
        if txt:
            F["journal-%s.txt" % h] = "# journalctl -k -o short-iso (sent by %s support)\n%s" % ("JSC" if J.s.machine == "juwels" else "CINECA", txt)
    return F


RENDER = {"pbs-pals": render_pbs_pals, "torque-ompi": render_torque, "lsf-jsrun": render_lsf, "sge-ompi": render_sge,
          "htcondor": render_condor, "flux-rccl": render_flux, "pbs-hydra": render_gadi, "slurm-pmix": render_slurm}


# ---------------------------------------------------------------------------
# per-run driver
# ---------------------------------------------------------------------------

def setup_ids(J):
    rng = J.rng
    L = J.layout
    short = J.model.split("-")[0]
    J.jobname = rng.choice(["%s_pretrain" % short, "%s_%s" % (short, J.fw), "train_%s" % short, "%s_run%d" % (short, rng.randint(1, 40))])
    if L == "pbs-pals":
        J.jobnum = rng.randint(1100000, 2999999)
        J.jobid = "%d.polaris-pbs-01.hsn.cm.polaris.alcf.anl.gov" % J.jobnum
    elif L == "torque-ompi":
        J.jobnum = rng.randint(100000, 9999999)
        J.jobid = "%d.batch01" % J.jobnum
    elif L == "lsf-jsrun":
        J.jobnum = rng.randint(1000000, 3999999)
        J.jobid = str(J.jobnum)
    elif L == "sge-ompi":
        J.jobnum = rng.randint(100000, 9999999)
        J.jobid = str(J.jobnum)
    elif L == "htcondor":
        J.jobnum = rng.randint(100000, 29999999)
        J.jobid = "%d.0" % J.jobnum
        J.condor_iso = rng.random() < 0.7
    elif L == "flux-rccl":
        J.fid = "".join(rng.choice(B58) for _ in range(rng.randint(9, 11)))
        J.jobid = "\u0192" + J.fid
        J.jobnum = 0
    elif L == "pbs-hydra":
        J.jobnum = rng.randint(90000000, 139999999)
        J.jobid = "%d.gadi-pbs" % J.jobnum
        J.memreq_gb = (380 if J.gpn == 4 else 1900) * len(J.hosts) // 1
    else:
        J.jobnum = rng.randint(1000000, 19999999)
        J.jobid = str(J.jobnum)


def setup_labels(J):
    rng = J.rng
    p = {"pbs-pals": 0.0, "torque-ompi": 0.5, "lsf-jsrun": 0.0, "sge-ompi": 0.35, "htcondor": 0.45,
         "flux-rccl": 0.5, "pbs-hydra": 0.4, "slurm-pmix": 0.5}[J.layout]
    J.labels = rng.random() < p
    J.label_style = {"torque-ompi": "ompi", "sge-ompi": "ompi", "htcondor": "torchrun", "flux-rccl": "colon",
                     "pbs-hydra": "bracket", "slurm-pmix": "colon"}.get(J.layout, "colon")


def simulate(rng, layout, cause, idx):
    J = Job(rng, layout, cause, idx)
    J.core = rng.random() < 0.4
    J.mpi_flavor = rng.choice(["intel", "intel", "mpich"])
    J.ompi_jobfam = rng.randint(1000, 65000)
    J.mpirun_pid = rng.randint(1000, 99999)
    J.agent_pid = dict((h, rng.randint(2000, 9000)) for h in J.hosts)
    J.numel = rng.choice([1048576, 26214400, 52428800, 134217728, 25690112, 4194304])
    J.coll_per_step = rng.choice([2, 3, 4, 8, 16, 24, 48])
    J.hw_evidence = False
    J.inject = ""
    J.hvd_stall_check = rng.choice([60, 300, 600])
    if cause in (None, "preemption", "unknown"):
        J.culprit = None
    else:
        if rng.random() < 0.1:
            J.culprit = 0
        else:
            J.culprit = rng.randrange(1, J.world)
    choose_visible(J)
    setup_ids(J)
    setup_labels(J)
    t_train = preamble(J)
    healthy = cause is None
    # decoys placed early in the run (before any failure)
    if healthy or rng.random() < 0.4:
        handled_exception_decoy(J, t_train + rng.uniform(200, 1200))
    if healthy and rng.random() < 0.4 and J.layout in ("pbs-pals", "flux-rccl", "pbs-hydra", "slurm-pmix"):
        J.culprit_pid_worker = J.pid[0] + rng.randint(40, 300)
        h = rng.choice(J.hosts)
        tl = t_train + rng.uniform(1500, 5000)
        ost = lustre_lines(J, h, tl)
        J.kern[h] = [x for x in J.kern[h] if "blocked for more than" not in x[1] and "hung_task" not in x[1] and "Tainted" not in x[1]]
        J.kmsg(h, tl + rng.uniform(20, 90), "Lustre: %s-osc-ffff%08x: Connection restored to %s (at 10.%d.%d.%d@o2ib)" % (
            ost, rng.getrandbits(32), ost, rng.randint(100, 200), rng.randint(0, 255), rng.randint(1, 254)))
        J.decoys.append("transient Lustre OST timeout on %s that recovered" % h)
    if rng.random() < (0.55 if healthy else 0.3):
        old_xid_decoy(J, exclude=J.host_of(J.culprit) if J.culprit is not None else None)
    if healthy and rng.random() < 0.5 and J.nccl_info:
        r = rng.choice(J.visible)
        J.emit(t_train + rng.uniform(100, 900), r, "%s transport/net_ib.cc:%d NCCL WARN NET/IB : Got async event : GID table change" % (J.nccl_pfx(r, J.pid[r] + 61), rng.choice([94, 116])) if J.s.net == "ib"
               else "%s NCCL INFO NET/OFI Libfabric provider associates MRs with domains" % J.nccl_pfx(r), "err")
        if J.s.net == "ib":
            J.decoys.append("benign NCCL WARN 'Got async event : GID table change'")
    SCENARIOS[cause](J, t_train)
    return J


def truth_of(J):
    c = J.cause
    rank = None
    node = None
    if c is not None and c not in ("preemption", "unknown", "network"):
        rank = J.culprit
        node = J.host_of(J.culprit)
    if c == "network":
        node = J.host_of(J.culprit)
    aliases = []
    if node:
        aliases.append(J.fqdn(node))
        if J.layout == "htcondor":
            aliases.append("slot1_1@" + J.fqdn(node))
            aliases.append(J.ips[node])
        if J.layout == "sge-ompi":
            aliases = [node + ".local"]
    inferable = bool(J.clues) if rank is not None else False
    notes = ["world_size=%d (%d nodes x %d ranks, %s)" % (J.world, len(J.hosts), J.ppn, J.s.gpu),
             "machine=%s torch=%s %s=%s fw=%s" % (J.s.machine, J.tv, "rccl" if J.amd else "nccl", J.nccl, J.fw),
             "injected: %s" % (J.inject or "-"),
             "end: %s exit=%s" % (J.sched.get("kind"), J.sched.get("exit"))]
    if J.labels:
        notes.append("output rank-labelled (%s)" % J.label_style)
    if J.world > 48:
        notes.append("only %d of %d ranks' lines shown" % (len(J.visible), J.world))
    if J.clues:
        notes.append("rank clues: " + "; ".join(sorted(set(J.clues))))
    if J.decoys:
        notes.append("decoys: " + "; ".join(J.decoys))
    bad = [h for h in J.hosts if abs(J.skew[h]) > 20]
    if bad:
        notes.append("clock skew: " + ", ".join("%s %+.0fs" % (h, J.skew[h]) for h in bad[:4]))
    notes.append("tz=%s (UTC%+d)" % (J.tzname, J.tzoff))
    notes += J.notes
    return {"cause": c, "healthy": c is None, "rank": rank, "node": node,
            "drain": c in DRAIN_CAUSES, "rank_inferable": inferable, "node_aliases": aliases,
            "layout": J.layout, "notes": "; ".join(notes)}


def plan(seed, n):
    prng = random.Random("blind30-plan:%s" % seed)
    order = list(CAUSES)
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
    while len(layouts) < n:
        blk = list(LAYOUTS)
        prng.shuffle(blk)
        layouts += blk
    return list(zip(causes, layouts[:n]))


MAX_BYTES = 1000 * 1000 - 20000


def shrink(files):
    """keep a run folder under 1 MB by trimming the biggest text file's middle"""
    tot = sum(len(v.encode("utf-8")) for v in files.values())
    while tot > MAX_BYTES:
        big = max(files, key=lambda k: len(files[k]))
        lines = files[big].split("\n")
        n = len(lines)
        cut = max(10, int(n * min(0.9, (tot - MAX_BYTES) / max(1, tot) + 0.1)))
        a = (n - cut) // 3
        lines = lines[:a] + ["[... %d lines removed by the user before attaching ...]" % cut] + lines[a + cut:]
        files[big] = "\n".join(lines)
        tot = sum(len(v.encode("utf-8")) for v in files.values())
    return files


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--seed", default="1")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    counts = {}
    for i, (cause, layout) in enumerate(plan(a.seed, a.n)):
        rng = random.Random("blind30:%s:%d" % (a.seed, i))
        J = simulate(rng, layout, cause, i)
        files = RENDER[layout](J)
        files = shrink(files)
        d = os.path.join(a.out, "run-%03d-%s" % (i, layout))
        if os.path.isdir(d):
            shutil.rmtree(d)
        os.makedirs(d)
        for name in sorted(files):
            with open(os.path.join(d, name), "w", encoding="utf-8") as f:
                f.write(files[name])
        with open(os.path.join(d, "truth.json"), "w", encoding="utf-8") as f:
            json.dump(truth_of(J), f, indent=2, sort_keys=True)
            f.write("\n")
        key = cause if cause else "healthy"
        counts[key] = counts.get(key, 0) + 1
    print(json.dumps(dict(sorted(counts.items())), indent=1))


if __name__ == "__main__":
    main()
