#!/usr/bin/env python3
# -*- coding: utf-8 -*-
"""
gen_blind36.py -- blind synthetic generator of log bundles from failed (and healthy)
multi-node GPU training jobs.  Theme: NAMES AND IDENTITIES.

Every bundle makes the reader join identities across files: pod names vs pod
hostnames vs Kubernetes node names, Slurm task ids, hostname.pid file names,
torchrun per-node folders that only know local ranks, FQDN vs short name vs IP,
Slurm compressed node lists, PCI bus ids in three spellings, GPU UUIDs, CUDA
device indices remapped by CUDA_VISIBLE_DEVICES, Megatron tp/pp/dp coordinates.

Written blind (without reading the diagnosis tool or the other generators).
Standard library only.  Deterministic per --seed.

usage: python3 gen_blind36.py --out DIR --n 60 --seed S
"""
import argparse
import datetime
import json
import os
import random
import re
import shutil
import sys
import time as _time

CAUSES = ["gpu_hardware", "ecc_memory", "nvlink", "network", "cuda_oom",
          "illegal_memory_access", "python_exception", "host_oom_kill",
          "crash_signal", "preemption", "hang", "data_loader_stall",
          "collective_mismatch", "straggler", "unknown"]
LAYOUTS = ["k8s_pods", "slurm_task_files", "host_pid_files", "torchrun_logdir",
           "combined_megatron"]

MON = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
DOW = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
UTC = datetime.timezone.utc
K8S_ALNUM = "bcdfghjklmnpqrstvwxz2456789"


# ----------------------------------------------------------------------------
# time formatting
# ----------------------------------------------------------------------------
def _d(t):
    return datetime.datetime.fromtimestamp(int(t), UTC)


def _frac(t, digits):
    v = int((t - int(t)) * (10 ** digits))
    return max(0, min(v, 10 ** digits - 1))


def f_py(t):          # python logging asctime
    return "%s,%03d" % (_d(t).strftime("%Y-%m-%d %H:%M:%S"), _frac(t, 3))


def f_c10(t):         # c10 glog prefix in torch>=2.2 ([E304 12:00:01.123456789)
    d = _d(t)
    return "%d%02d %s.%09d" % (d.month, d.day, d.strftime("%H:%M:%S"), _frac(t, 9))


def f_glogpy(t):      # torch elastic logging in 2.3+ (W0304 12:00:01.123000)
    d = _d(t)
    return "%02d%02d %s.%06d" % (d.month, d.day, d.strftime("%H:%M:%S"), _frac(t, 3) * 1000)


def f_k8s(t):
    d = _d(t)
    return "%sZ" % (d.strftime("%Y-%m-%dT%H:%M:%S") + ".%09d" % _frac(t, 9))


def f_rfc1123(t):
    return _d(t).strftime("%a, %d %b %Y %H:%M:%S +0000")


def f_syslog(t):
    d = _d(t)
    return "%s %2d %s" % (MON[d.month - 1], d.day, d.strftime("%H:%M:%S"))


def f_journal(t):
    d = _d(t)
    return "%s %02d %s" % (MON[d.month - 1], d.day, d.strftime("%H:%M:%S"))


def f_dmesg_up(u):
    return "[%5d.%06d]" % (int(u), _frac(u, 6))


def f_dmesg_T(t):
    d = _d(t)
    return "[%s %s %2d %s %d]" % (DOW[d.weekday()], MON[d.month - 1], d.day,
                                  d.strftime("%H:%M:%S"), d.year)


def f_ctime(t):
    d = _d(t)
    return "%s %s %2d %s %d" % (DOW[d.weekday()], MON[d.month - 1], d.day,
                                d.strftime("%H:%M:%S"), d.year)


def f_date(t):        # date(1)
    d = _d(t)
    return "%s %s %2d %s UTC %d" % (DOW[d.weekday()], MON[d.month - 1], d.day, d.strftime("%H:%M:%S"), d.year)


def f_slurm(t):
    return _d(t).strftime("%Y-%m-%dT%H:%M:%S")


def f_tr(t):
    return _d(t).strftime("%Y-%m-%d_%H:%M:%S")


def f_hms(sec):
    sec = int(sec)
    return "%02d:%02d:%02d" % (sec // 3600, (sec % 3600) // 60, sec % 60)


def f_tqdm(sec):
    sec = int(sec)
    if sec >= 3600:
        return "%d:%02d:%02d" % (sec // 3600, (sec % 3600) // 60, sec % 60)
    return "%02d:%02d" % (sec // 60, sec % 60)


def f_elapsed_slurm(sec):
    sec = int(sec)
    if sec >= 86400:
        return "%d-%s" % (sec // 86400, f_hms(sec % 86400))
    return f_hms(sec)


def f_age(sec):
    sec = int(max(1, sec))
    if sec < 120:
        return "%ds" % sec
    m = sec // 60
    if m < 10:
        return "%dm%ds" % (m, sec % 60)
    if m < 180:
        return "%dm" % m
    h = m // 60
    if h < 8:
        return "%dh%dm" % (h, m % 60)
    if h < 48:
        return "%dh" % h
    return "%dd" % (h // 24)


# ----------------------------------------------------------------------------
# small helpers
# ----------------------------------------------------------------------------
def hx(rng, n):
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


def k8s_suffix(rng, n=5):
    return "".join(rng.choice(K8S_ALNUM) for _ in range(n))


def gpu_uuid(rng):
    return "GPU-%s-%s-%s-%s-%s" % (hx(rng, 8), hx(rng, 4), hx(rng, 4), hx(rng, 4), hx(rng, 12))


def compress_nodelist(names):
    """gpu-a17,gpu-a18,gpu-a21 -> gpu-a[17-18,21] (Slurm hostlist style)."""
    groups = []
    idx = {}
    for nm in names:
        m = re.match(r"^(.*?)(\d+)$", nm)
        if not m:
            groups.append((nm, None))
            continue
        dg = m.group(2)
        key = (m.group(1), len(dg) if (dg.startswith("0") and len(dg) > 1) or m.group(1).endswith(("node", "cn", "gpu", "dgx", "hgx-b")) else 0)
        if key not in idx:
            idx[key] = len(groups)
            groups.append((key, []))
        groups[idx[key]][1].append(int(m.group(2)))
    out = []
    for key, nums in groups:
        if nums is None:
            out.append(key)
            continue
        prefix, width = key
        nums = sorted(nums)
        if len(nums) == 1:
            out.append("%s%0*d" % (prefix, width, nums[0]))
            continue
        parts = []
        a = b = nums[0]
        for x in nums[1:]:
            if x == b + 1:
                b = x
            else:
                parts.append((a, b))
                a = b = x
        parts.append((a, b))
        ps = []
        for a, b in parts:
            ps.append("%0*d" % (width, a) if a == b else "%0*d-%0*d" % (width, a, width, b))
        out.append("%s[%s]" % (prefix, ",".join(ps)))
    return ",".join(out)


def task_ranges(ids):
    ids = sorted(ids)
    if not ids:
        return ""
    parts = []
    a = b = ids[0]
    for x in ids[1:]:
        if x == b + 1:
            b = x
        else:
            parts.append((a, b))
            a = b = x
    parts.append((a, b))
    s = ",".join(str(a) if a == b else "%d-%d" % (a, b) for a, b in parts)
    return ("task %s" if len(ids) == 1 else "tasks %s") % s


SIGNAMES = {6: "SIGABRT", 7: "SIGBUS", 9: "SIGKILL", 11: "SIGSEGV", 15: "SIGTERM"}
SIGTEXT = {6: "Aborted", 7: "Bus error", 9: "Killed", 11: "Segmentation fault", 15: "Terminated"}


# ----------------------------------------------------------------------------
# hardware platforms
# ----------------------------------------------------------------------------
PLATFORMS = {
    "dgx_h100": dict(model="NVIDIA H100 80GB HBM3", short="H100", mem="79.11", mib=81559,
                     buses=[("18", "00"), ("2a", "00"), ("3a", "00"), ("5d", "00"),
                            ("9a", "00"), ("ab", "00"), ("ba", "00"), ("db", "00")],
                     net="IB", nics=[("mlx5_0", "0000:1a:00.0", "ibp26s0"), ("mlx5_3", "0000:40:00.0", "ibp64s0"),
                                     ("mlx5_4", "0000:4f:00.0", "ibp79s0"), ("mlx5_5", "0000:5e:00.0", "ibp94s0"),
                                     ("mlx5_6", "0000:9c:00.0", "ibp156s0"), ("mlx5_9", "0000:ce:00.0", "ibp206s0")],
                     tdp=700, driver="535.161.08", cuda="12.2"),
    "dgx_a100": dict(model="NVIDIA A100-SXM4-80GB", short="A100", mem="79.15", mib=81920,
                     buses=[("07", "00"), ("0f", "00"), ("47", "00"), ("4e", "00"),
                            ("87", "00"), ("90", "00"), ("b7", "00"), ("bd", "00")],
                     net="IB", nics=[("mlx5_0", "0000:0c:00.0", "ibp12s0"), ("mlx5_1", "0000:12:00.0", "ibp18s0"),
                                     ("mlx5_2", "0000:4b:00.0", "ibp75s0"), ("mlx5_3", "0000:54:00.0", "ibp84s0"),
                                     ("mlx5_6", "0000:8d:00.0", "ibp141s0"), ("mlx5_7", "0000:94:00.0", "ibp148s0")],
                     tdp=400, driver="535.129.03", cuda="12.2"),
    "roce_h100": dict(model="NVIDIA H100 80GB HBM3", short="H100", mem="79.11", mib=81559,
                      buses=[("19", "00"), ("3b", "00"), ("4c", "00"), ("5d", "00"),
                             ("9b", "00"), ("bb", "00"), ("cb", "00"), ("db", "00")],
                      net="RoCE", nics=[("mlx5_0", "0000:1a:00.0", "ens21f0np0"), ("mlx5_1", "0000:3c:00.0", "ens22f0np0"),
                                        ("mlx5_2", "0000:4d:00.0", "ens23f0np0"), ("mlx5_3", "0000:5e:00.0", "ens24f0np0")],
                      tdp=700, driver="550.54.15", cuda="12.4"),
    "p4d": dict(model="NVIDIA A100-SXM4-40GB", short="A100", mem="39.39", mib=40960,
                buses=[("10", "1c"), ("10", "1d"), ("20", "1c"), ("20", "1d"),
                       ("90", "1c"), ("90", "1d"), ("a0", "1c"), ("a0", "1d")],
                net="EFA", nics=[("rdmap16s27", "0000:10:1b.0", "eth0"), ("rdmap32s27", "0000:20:1b.0", "eth1"),
                                 ("rdmap144s27", "0000:90:1b.0", "eth2"), ("rdmap160s27", "0000:a0:1b.0", "eth3")],
                tdp=400, driver="535.183.01", cuda="12.2"),
    "p5": dict(model="NVIDIA H100 80GB HBM3", short="H100", mem="79.11", mib=81559,
               buses=[("53", "00"), ("64", "00"), ("75", "00"), ("86", "00"),
                      ("97", "00"), ("a8", "00"), ("b9", "00"), ("ca", "00")],
               net="EFA", nics=[("rdmap79s0", "0000:4f:00.0", "eth0"), ("rdmap80s0", "0000:50:00.0", "eth1"),
                                ("rdmap81s0", "0000:51:00.0", "eth2"), ("rdmap82s0", "0000:52:00.0", "eth3")],
               tdp=700, driver="550.90.07", cuda="12.4"),
    "a3": dict(model="NVIDIA H100 80GB HBM3", short="H100", mem="79.11", mib=81559,
               buses=[("04", "00"), ("05", "00"), ("0a", "00"), ("0b", "00"),
                      ("84", "00"), ("85", "00"), ("8a", "00"), ("8b", "00")],
               net="Socket", nics=[("eth0", "0000:06:00.0", "eth0"), ("eth1", "0000:0c:00.0", "eth1")],
               tdp=700, driver="535.104.12", cuda="12.2"),
}

NVSWITCH_PCI = ["0000:05:00.0", "0000:06:00.0", "0000:07:00.0", "0000:08:00.0"]


class GPU(object):
    def __init__(self, phys, bus, dev, uuid, serial):
        self.phys = phys
        self.bus = bus
        self.dev = dev
        self.uuid = uuid
        self.serial = serial

    @property
    def kern(self):      # NVRM Xid form
        return "0000:%s:%s" % (self.bus, self.dev)

    @property
    def full(self):      # sysfs / lspci -D form
        return "0000:%s:%s.0" % (self.bus, self.dev)

    @property
    def smi(self):       # nvidia-smi form
        return "00000000:%s:%s.0" % (self.bus.upper(), self.dev.upper())

    @property
    def nccl(self):      # NCCL busId form
        return "%x" % int(self.bus + self.dev + "0", 16)


class Node(object):
    def __init__(self, idx):
        self.idx = idx          # node_rank / group_rank order in the job
        self.hostname = ""      # socket.gethostname() inside the trainer (truth form)
        self.short = ""         # NCCL's name (gethostname truncated at first '.')
        self.fqdn = ""          # socket.getfqdn()
        self.ip = ""            # address NCCL/bootstrap uses
        self.sched = ""         # Slurm NodeName or Kubernetes node name
        self.kern_host = ""     # host name in kernel/syslog lines
        self.pod = ""           # Kubernetes pod name
        self.node_ip = ""       # Kubernetes node InternalIP
        self.folder = ""        # user-chosen folder name (torchrun_logdir)
        self.skew = 0.0
        self.boot = 0.0
        self.gpus = []
        self.nics = []
        self.ifname = "eth0"
        self.agent_pid = 0
        self.ranks = []
        self.extra_aliases = []


class Rank(object):
    def __init__(self, r, node, lr):
        self.r = r
        self.node = node
        self.lr = lr
        self.gpu = None
        self.cuda = 0
        self.nvml = 0
        self.pid = 0            # pid as the process itself / the launcher sees it
        self.hpid = 0           # pid as the host kernel sees it (differs inside a pod's pid namespace)
        self.tid = 0


class Job(object):
    pass


# ----------------------------------------------------------------------------
# job construction: names per layout
# ----------------------------------------------------------------------------
TORCH_STYLES = {
    # style: version, nccl version, glog line numbers, PG label format, elastic log style
    "2.1": dict(ver="2.1.2", nccl="2.18.1", l_to=475, l_some=489, l_down=495, l_term=916,
                l_exc=None, l_at=None, pg=None, elog="old", mon=5.0),
    "2.3": dict(ver="2.3.1", nccl="2.20.5", l_to=565, l_some=577, l_down=583, l_term=1418,
                l_exc=1537, l_at=571, pg="[PG 0 Rank %d]", elog="glog", mon=0.1),
    "2.4": dict(ver="2.4.1", nccl="2.20.5", l_to=607, l_some=627, l_down=633, l_term=1515,
                l_exc=1664, l_at=621, pg="[PG 0 (default_pg) Rank %d]", elog="glog", mon=0.1),
    "2.5": dict(ver="2.5.1", nccl="2.21.5", l_to=616, l_some=636, l_down=642, l_term=1601,
                l_exc=1785, l_at=630, pg="[PG ID 0 PG GUID 0(default_pg) Rank %d]", elog="glog", mon=0.1),
}

SITES = [
    ("/usr/local/lib/python3.10/dist-packages", "/usr/bin/python", "3.10"),
    ("/opt/conda/lib/python3.10/site-packages", "/opt/conda/bin/python3.10", "3.10"),
    ("/home/%(user)s/miniconda3/envs/%(env)s/lib/python3.11/site-packages",
     "/home/%(user)s/miniconda3/envs/%(env)s/bin/python", "3.11"),
]

PROJECTS = [("llm-pretrain", "train.py"), ("vit-huge", "main.py"), ("speech-ssl", "train_ssl.py"),
            ("gpt-neox", "train.py"), ("diffusion-xl", "train_unet.py"), ("recsys-dlrm", "dlrm_main.py"),
            ("moe-research", "pretrain.py"), ("codegen-ft", "finetune.py")]
USERS = ["akumar", "jli", "mrossi", "svc-train", "tnguyen", "ebrown", "hpark", "ochen"]


def _mk_gpus(rng, plat, count, start=0):
    gs = []
    for i in range(start, start + count):
        bus, dev = plat["buses"][i]
        gs.append(GPU(i, bus, dev, gpu_uuid(rng), "16529%08d" % rng.randint(0, 99999999)))
    return gs


def build_job(rng, layout, cause):
    J = Job()
    J.layout = layout
    J.rng_tag = hx(rng, 6)
    J.style_key = rng.choice(["2.1", "2.3", "2.4", "2.4", "2.5"])
    J.st = TORCH_STYLES[J.style_key]
    J.new = J.style_key != "2.1"
    J.nccl_debug = rng.choice([None, "WARN", "INFO", "INFO"])
    J.timeout_s = rng.choice([600, 600, 1800, 1200])
    J.user = rng.choice(USERS)
    env = rng.choice(["torch", "train", "py311", "llm"])
    site, pybin, pyver = rng.choice(SITES)
    J.site = site % {"user": J.user, "env": env}
    J.pybin = pybin % {"user": J.user, "env": env}
    J.pyver = pyver
    J.project, J.script = rng.choice(PROJECTS)
    J.workdir = rng.choice(["/workspace/%s" % J.project, "/home/%s/%s" % (J.user, J.project),
                            "/lustre/fsw/%s/%s" % (J.user, J.project)])
    J.flavor = rng.choice(["plain", "hf", "lightning"])
    J.T0 = 1704700800 + rng.randint(0, 520 * 86400) + rng.random()
    J.cvd = None
    J.bind = "all"          # all: cuda index == local rank; cgroup1: every task sees cuda:0
    J.tee = False
    J.timestamps = False
    J.launch = "torchrun"
    J.variant = ""
    J.tp = J.pp = 1
    if layout == "k8s_pods":
        _names_k8s(rng, J)
    elif layout == "slurm_task_files":
        _names_slurm(rng, J)
    elif layout == "host_pid_files":
        _names_hostpid(rng, J)
    elif layout == "torchrun_logdir":
        _names_torchrun(rng, J)
    else:
        _names_megatron(rng, J)
    J.dp = J.W // (J.tp * J.pp)
    J.comm_id = hx(rng, 16)
    for n in J.nodes:
        rnd = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789_") for _ in range(8))
        if layout == "torchrun_logdir":
            n.tr_sub = "%s_%s" % (J.run_id, rnd)
            n.tr_dir = "%s/logs/%s" % (J.workdir, n.tr_sub)
        else:
            n.tr_dir = "/tmp/torchelastic_%s/none_%s" % ("".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789_") for _ in range(8)), rnd)
    J.loglevel_info = layout == "torchrun_logdir" or rng.random() < 0.4
    J.logdir_base = "%s/logs" % J.workdir if layout == "torchrun_logdir" else "None"
    if layout == "combined_megatron" and not J.label:
        J.style_key = rng.choice(["2.4", "2.5"])
        J.st = TORCH_STYLES[J.style_key]
        J.new = True
    # clocks
    big = rng.random() < 0.45
    bigidx = rng.randrange(len(J.nodes))
    for n in J.nodes:
        n.skew = rng.gauss(0.0, 1.2)
        if big and n.idx == bigidx:
            n.skew = rng.choice([-1, 1]) * rng.uniform(18, 150)
        n.boot = J.T0 - rng.uniform(2, 70) * 86400
        n.agent_pid = rng.randint(2000, 400000)
    # ranks
    J.ranks = []
    for n in J.nodes:
        if layout == "k8s_pods":
            n.agent_pid = rng.choice([1, 1, 7, 13])
        base = n.agent_pid + rng.randint(20, 300)
        hbase = rng.randint(30000, 400000)
        for lr in range(J.gpn):
            rk = Rank(n.idx * J.gpn + lr, n, lr)
            phys = lr if J.cvd is None else J.cvd[lr]
            rk.gpu = n.gpus[phys]
            if J.bind == "cgroup1":
                rk.cuda = 0
                rk.nvml = 0
            elif layout == "k8s_pods":
                rk.cuda = lr
                rk.nvml = lr          # NVML inside the container only sees the allocated GPUs
            else:
                rk.cuda = lr
                rk.nvml = phys
            step = rng.randint(1, 6) if lr else 0
            rk.pid = base + step
            base = rk.pid
            hbase += step
            rk.hpid = hbase if layout == "k8s_pods" else rk.pid
            rk.tid = rk.pid + rng.randint(150, 2400)
            n.ranks.append(rk)
            J.ranks.append(rk)
    J.W = len(J.ranks)
    J.job_id = rng.randint(100000, 9999999)
    return J


def _platform(rng, names):
    key = rng.choice(names)
    return key, PLATFORMS[key]


def _finish_nodes(rng, J, plat, nnodes, gpn, physstart=0):
    J.gpn = gpn
    J.plat = plat
    J.W = nnodes * gpn
    for n in J.nodes:
        n.gpus = _mk_gpus(rng, plat, 8 if len(plat["buses"]) >= 8 else len(plat["buses"]))
        n.nics = list(plat["nics"])
        if not n.short:
            n.short = n.hostname.split(".")[0]


def _names_k8s(rng, J):
    J.variant = rng.choice(["jobset", "pytorchjob"])
    nn = rng.choice([2, 2, 3, 4])
    J.ns = rng.choice(["default", "ml-research", "team-llm", "training"])
    J.tee = rng.random() < 0.5
    J.timestamps = rng.random() < 0.5
    J.half_node = rng.random() < 0.3
    J.nodes = [Node(i) for i in range(nn)]
    if J.variant == "jobset":
        key, plat = _platform(rng, ["a3", "dgx_h100"])
        J.jobname = rng.choice(["llm-pt", "pretrain-7b", "mixtral-sft", "gemma-ft"]) + "-" + k8s_suffix(rng, 4)
        J.rjob = rng.choice(["workers", "trainer", "node"])
        cluster = rng.choice(["a3-train", "ml-prod", "gpu-us-c1"])
        pool = rng.choice(["a3-pool", "h100-spot", "gpu-pool-1"])
        poolhash = hx(rng, 8)
        for n in J.nodes:
            n.hostname = "%s-%s-0-%d" % (J.jobname, J.rjob, n.idx)
            n.pod = n.hostname + "-" + k8s_suffix(rng)
            n.fqdn = "%s.%s.%s.svc.cluster.local" % (n.hostname, J.jobname, J.ns)
            n.sched = "gke-%s-%s-%s-%s" % (cluster, pool, poolhash, "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(4)))
            n.ip = "10.%d.%d.%d" % (rng.randint(40, 120), rng.randint(0, 15), rng.randint(2, 250))
            n.node_ip = "10.128.0.%d" % rng.randint(3, 250)
            n.kern_host = n.sched
    else:
        key, plat = _platform(rng, ["p4d", "p5", "dgx_a100"])
        J.jobname = rng.choice(["bert-large", "llama-ft", "resnet-dist", "t5-xl"]) + "-" + str(rng.randint(1, 40))
        region = rng.choice(["us-west-2", "us-east-1", "eu-west-1"])
        for n in J.nodes:
            n.pod = "%s-master-0" % J.jobname if n.idx == 0 else "%s-worker-%d" % (J.jobname, n.idx - 1)
            n.hostname = n.pod
            n.fqdn = n.pod
            a, b = rng.randint(0, 255), rng.randint(1, 254)
            if key == "dgx_a100":
                n.sched = "dgxa100-%02d" % rng.randint(1, 40)
                n.node_ip = "172.16.%d.%d" % (rng.randint(0, 8), rng.randint(2, 250))
            else:
                n.sched = "ip-192-168-%d-%d.%s.compute.internal" % (a, b, region)
                n.node_ip = "192.168.%d.%d" % (a, b)
            n.ip = "192.168.%d.%d" % (rng.randint(0, 255), rng.randint(1, 254))
            n.kern_host = n.sched
    J.platkey = key
    gpn = 8
    if J.half_node:
        gpn = 4
        J.cvd_host = rng.choice([[0, 1, 2, 3], [4, 5, 6, 7]])
    else:
        J.cvd_host = None
    _finish_nodes(rng, J, plat, nn, gpn)
    # inside the container the device plugin exposes only the allocated GPUs; the
    # container sees them as cuda:0..3 while DCGM / kernel talk about the host GPUs
    J.cvd = J.cvd_host
    J.launch = "torchrun"
    J.nproc = gpn


def _names_slurm(rng, J):
    key, plat = _platform(rng, ["dgx_h100", "dgx_a100", "roce_h100"])
    J.platkey = key
    style = rng.choice(["gpu-a", "node", "dgx", "hgx-b"])
    domain = rng.choice(["cluster.local", "hpc.example.edu", "ib.cluster", "cm.cluster"])
    nn = rng.choice([2, 2, 3, 4])
    nums = sorted(rng.sample(range(1, 64), nn))
    if rng.random() < 0.6 and nn > 1:
        start = rng.randint(1, 60 - nn)
        nums = list(range(start, start + nn - 1)) + [start + nn + rng.randint(1, 5)]
    J.nodes = [Node(i) for i in range(nn)]
    subnet = rng.randint(100, 200)
    for n, num in zip(J.nodes, nums):
        if style == "gpu-a":
            s = "gpu-a%d" % num
        elif style == "node":
            s = "node%03d" % num
        elif style == "dgx":
            s = "dgx%02d" % num
        else:
            s = "hgx-b%02d" % num
        n.hostname = s
        n.short = s
        n.fqdn = s + "." + domain
        n.sched = s
        n.kern_host = s
        n.ip = "10.%d.%d.%d" % (subnet, num // 250, num % 250 + 1)
    gpn = rng.choice([8, 8, 4])
    _finish_nodes(rng, J, plat, nn, gpn)
    J.bind = rng.choice(["cgroup1", "all"])
    J.launch = "srun"
    J.kill_on_bad_exit = rng.random() < 0.5
    J.partition = rng.choice(["gpu", "batch", "a100", "h100-long", "train"])
    J.nodelist = compress_nodelist([n.sched for n in J.nodes])
    for n in J.nodes:
        n.ifname = "ib0" if plat["net"] == "IB" else plat["nics"][0][2]
    J.print_fqdn = rng.random() < 0.5


def _names_hostpid(rng, J):
    J.variant = rng.choice(["onprem_fqdn", "pcluster"])
    nn = rng.choice([2, 2, 3, 4])
    J.nodes = [Node(i) for i in range(nn)]
    if J.variant == "onprem_fqdn":
        key, plat = _platform(rng, ["dgx_a100", "dgx_h100", "roce_h100"])
        domain = rng.choice(["hpc.example.org", "cs.uni-example.de", "ai.corp.internal"])
        pref = rng.choice(["gpu-b", "gn", "ai"])
        nums = sorted(rng.sample(range(1, 48), nn))
        sub = rng.randint(20, 60)
        for n, num in zip(J.nodes, nums):
            s = "%s%02d" % (pref, num)
            n.short = s
            n.fqdn = s + "." + domain
            n.hostname = n.fqdn          # hostname(1) returns the FQDN on this cluster
            n.sched = s
            n.kern_host = s
            n.ip = "10.%d.%d.%d" % (sub, num // 200, num % 200 + 10)
            n.ifname = "ib0" if plat["net"] == "IB" else plat["nics"][0][2]
    else:
        key, plat = _platform(rng, ["p4d", "p5"])
        q = rng.choice(["train", "gpu", "compute"])
        cr = "p4d24xlarge" if key == "p4d" else "p548xlarge"
        nums = sorted(rng.sample(range(1, 16), nn))
        for n, num in zip(J.nodes, nums):
            a, b = rng.randint(0, 15), rng.randint(2, 250)
            n.short = "ip-10-0-%d-%d" % (a, b)
            n.hostname = n.short
            n.fqdn = n.short + ".ec2.internal"
            n.sched = "%s-st-%s-%d" % (q, cr, num)
            n.kern_host = n.short
            n.ip = "10.0.%d.%d" % (a, b)
            n.ifname = "ens32" if key == "p4d" else "enp71s0"
    J.platkey = key
    gpn = 8
    _finish_nodes(rng, J, plat, nn, gpn)
    J.launch = "mpirun"
    J.mpi_jobid = rng.randint(10000, 65000)
    J.partition = rng.choice(["gpu", "train", "queue1"])
    J.nodelist = compress_nodelist([n.sched for n in J.nodes])
    J.tag_output = rng.random() < 0.7


def _names_torchrun(rng, J):
    key, plat = _platform(rng, ["a3", "dgx_h100", "roce_h100"])
    J.platkey = key
    nn = rng.choice([2, 3, 4])
    J.nodes = [Node(i) for i in range(nn)]
    J.gce = key == "a3" or rng.random() < 0.4
    proj = rng.choice(["ml-sandbox-3812", "research-gpu", "acme-train"])
    zone = rng.choice(["us-central1-a", "us-east5-b", "europe-west4-c"])
    J.gce_zone = zone
    J.gce_project = proj
    pref = rng.choice(["trainer", "a3-train-w", "gpu-vm", "llm-node"])
    nums = rng.sample(range(0, 30), nn)
    for n, num in zip(J.nodes, nums):
        if J.gce:
            s = "%s-%d" % (pref, num)
            n.fqdn = "%s.%s.c.%s.internal" % (s, zone, proj)
        else:
            s = "hgx-r%02d-%02d" % (rng.randint(1, 12), num)
            n.fqdn = s + ".lab.internal"
        n.hostname = s
        n.short = s
        n.sched = s
        n.kern_host = s
        n.ip = "10.%d.0.%d" % (rng.randint(1, 9), rng.randint(2, 250))
        n.ifname = plat["nics"][0][2] if plat["net"] != "IB" else "ib0"
    cvd = rng.random() < 0.35
    if cvd:
        J.cvd = rng.choice([[4, 5, 6, 7], [2, 3, 4, 5], [0, 1, 2, 3]])
        gpn = 4
    else:
        gpn = 8
    _finish_nodes(rng, J, plat, nn, gpn)
    J.launch = "torchrun"
    J.tee = rng.random() < 0.5
    J.run_id = rng.choice(["none", "job%d" % rng.randint(10, 999), "exp-" + hx(rng, 6)])
    J.run_rand = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789_") for _ in range(8))
    # the order the user collected folders in is NOT the c10d group_rank order
    J.folder_style = rng.choice(["index", "ip", "host"])
    order = list(range(nn))
    rng.shuffle(order)
    for pos, ni in enumerate(order):
        n = J.nodes[ni]
        if J.folder_style == "index":
            n.folder = "node%d" % pos
        elif J.folder_style == "ip":
            n.folder = n.ip
        else:
            n.folder = n.hostname
    J.nproc = gpn


def _names_megatron(rng, J):
    key, plat = _platform(rng, ["dgx_h100", "dgx_a100"])
    J.platkey = key
    style = rng.choice(["node", "cn", "gpu"])
    nn = rng.choice([2, 4, 4])
    start = rng.randint(1, 120)
    nums = list(range(start, start + nn))
    if rng.random() < 0.6:
        nums[-1] = nums[-1] + rng.randint(3, 30)
    J.nodes = [Node(i) for i in range(nn)]
    dom = rng.choice([".cluster", ".hpc.local", ".sc.internal"])
    sub = rng.randint(16, 31)
    for n, num in zip(J.nodes, nums):
        s = ("node%03d" % num) if style == "node" else (("cn%04d" % num) if style == "cn" else "gpu%03d" % num)
        n.hostname = s
        n.short = s
        n.fqdn = s + dom
        n.sched = s
        n.kern_host = s
        n.ip = "172.%d.%d.%d" % (sub, num // 250, num % 250 + 1)
        n.ifname = "ib0"
    gpn = 8
    _finish_nodes(rng, J, plat, nn, gpn)
    W = nn * gpn
    tp = rng.choice([2, 4, 8])
    pp = rng.choice([1, 2, 4]) if W // tp >= 2 else 1
    while W % (tp * pp) != 0 or W // (tp * pp) < 1:
        pp = max(1, pp // 2)
    if tp * pp == W and pp > 1:
        pp //= 2
    J.tp, J.pp = tp, pp
    J.flavor = "megatron"
    J.workdir = rng.choice(["/workspace/Megatron-LM", "/lustre/fsw/%s/megatron-lm" % J.user, "/home/%s/src/Megatron-LM" % J.user])
    J.launch = rng.choice(["srun_direct", "srun_torchrun"])
    J.label = rng.choice([True, False]) if J.launch == "srun_direct" else rng.random() < 0.7
    J.tee = J.launch == "srun_torchrun" and rng.random() < 0.6
    J.partition = rng.choice(["batch", "gpu", "luna", "pretrain"])
    J.nodelist = compress_nodelist([n.sched for n in J.nodes])
    J.kill_on_bad_exit = rng.random() < 0.4
    J.nproc = gpn


def coords(J, r):
    tp = r % J.tp
    dp = (r // J.tp) % J.dp
    pp = r // (J.tp * J.dp)
    return tp, pp, dp


# ----------------------------------------------------------------------------
# scenario engine: what every process / kernel / scheduler printed, in true time
# ----------------------------------------------------------------------------
OPS = ["ALLREDUCE", "ALLREDUCE", "_ALLGATHER_BASE", "_REDUCE_SCATTER_BASE"]
CUDA_TAIL = ("CUDA kernel errors might be asynchronously reported at some other API call, "
             "so the stacktrace below might be incorrect.\n"
             "For debugging consider passing CUDA_LAUNCH_BLOCKING=1\n"
             "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n")

NOISE_WARN = [
    "%(site)s/torch/utils/checkpoint.py:464: UserWarning: torch.utils.checkpoint: the use_reentrant parameter "
    "should be passed explicitly. In version 2.4 we will raise an exception if use_reentrant is not passed. "
    "use_reentrant=False is recommended, but if you need to preserve the current default behavior, you can pass "
    "use_reentrant=True. Refer to docs for more details on the differences between the two variants.\n"
    "  warnings.warn(",
    "%(site)s/transformers/utils/generic.py:441: FutureWarning: `torch.utils._pytree._register_pytree_node` is "
    "deprecated. Please use `torch.utils._pytree.register_pytree_node` instead.\n  _torch_pytree._register_pytree_node(",
    "%(site)s/torch/cuda/amp/grad_scaler.py:126: FutureWarning: `torch.cuda.amp.GradScaler(args...)` is deprecated. "
    "Please use `torch.amp.GradScaler('cuda', args...)` instead.\n  warnings.warn(",
    "%(site)s/torch/_utils.py:831: UserWarning: TypedStorage is deprecated. It will be removed in the future and "
    "UntypedStorage will be the only storage class. This should only matter to you if you are using storages "
    "directly.  To access UntypedStorage directly, use tensor.untyped_storage() instead of tensor.storage()\n"
    "  return self.fget.__get__(instance, owner)()",
    "huggingface/tokenizers: The current process just got forked, after parallelism has already been used. "
    "Disabling parallelism to avoid deadlocks...\nTo disable this warning, you can either:\n\t- Avoid using `tokenizers` "
    "before the fork if possible\n\t- Explicitly set the environment variable TOKENIZERS_PARALLELISM=(true | false)",
]


class Sc(object):
    def __init__(self, J, rng):
        self.J = J
        self.rng = rng
        self.rl = [[] for _ in range(J.W)]
        self.kern = [[] for _ in J.nodes]
        self.exit = {}
        self.stuck = []
        self.ext = []
        self.sched = []
        self.console = []          # job-level launcher console lines (t, text)
        self.agent = [[] for _ in J.nodes]
        self.agent_exit = {}
        self.final = {}
        self.notes = []
        self.pyexc = {}
        self.t_start = J.T0 + rng.uniform(12, 50)
        self.t_train0 = self.t_start + rng.uniform(45, 260)
        self.step_s = round(rng.uniform(0.35, 4.2), 3)
        self.resume_step = rng.choice([0, 0, 0, rng.randint(1, 30) * 500])
        self.total_steps = self.resume_step + rng.choice([4000, 10000, 20000, 60000])
        if (self.total_steps - self.resume_step) * self.step_s > 30000:
            self.total_steps = self.resume_step + int(30000 / self.step_s) // 100 * 100
        self.seq_per_step = rng.choice([1, 2, 3, 4, 6])
        self.seq_base = rng.randint(3, 40)
        self.prog_rank = J.W - 1 if J.flavor == "megatron" else 0
        self.op = rng.choice(OPS)
        self.numel = rng.choice([1, 1048576, 262144000, 65536000, 8, 134217728])
        self.init_rank = None
        self.init_node = None
        self.rank_known = False
        self.node_known = False
        self.slow = {}
        self.nvsmi = {}            # node idx -> kind
        self.dcgm = {}             # node idx -> dict(xid=(gpu_phys, code))
        self.pyspy = []            # (rank, text)
        self.extra_files = []      # (logical kind, node idx or None, name, content)
        self.healthy = False
        self.t_end_ok = None
        self.cancel_reason = None
        self.noise = rng.sample(NOISE_WARN, rng.randint(1, 2))
        self.master = J.nodes[0]
        self.port = rng.choice([29500, 29500, 29400, 12355, 6000])
        self.banner_host = rng.random() < 0.6
        self.record = rng.random() < 0.4
        self.abort_core = rng.random() < 0.5
        self.tcpstore_noise = rng.random() < 0.7
        n_steps = max(150, int(rng.uniform(0.1, 1.0) * min(self.total_steps - self.resume_step - 20,
                                                              int(14 * 3600 / self.step_s))))
        n_steps = min(n_steps, self.total_steps - self.resume_step - 10)
        self.t_fail = self.t_train0 + n_steps * self.step_s + rng.uniform(0, self.step_s)
        self.t_healthy_end = self.t_train0 + (self.total_steps - self.resume_step) * self.step_s

    # -- basic adders -------------------------------------------------------
    def add(self, r, t, text, stream="err"):
        self.rl[r].append((t, stream, text))

    def kadd(self, n, t, text):
        self.kern[n].append((t, text))

    def set_exit(self, r, t, code, why=""):
        if r in self.exit and self.exit[r][0] <= t:
            return
        self.exit[r] = (t, code, why)

    def lt(self, r, t):          # local clock of rank r's node
        return t + self.J.ranks[r].node.skew

    def ntl(self, n, t):
        return t + self.J.nodes[n].skew

    def step_at(self, t):
        return self.resume_step + max(0, int((t - self.t_train0) / self.step_s))

    def seq_at(self, t):
        return self.seq_base + (self.step_at(t) - self.resume_step) * self.seq_per_step

    def node_of(self, r):
        return self.J.ranks[r].node

    # -- formatting helpers -------------------------------------------------
    def c10(self, r, t, sev, src, line, msg):
        if self.J.new:
            return "[rank%d]:[%s%s %s:%d] %s" % (r, sev, f_c10(self.lt(r, t)), src, line, msg)
        return "[%s %s:%d] %s" % (sev, src, line, msg)

    def ncp(self, r, main=False):
        rk = self.J.ranks[r]
        return "%s:%d:%d [%d]" % (rk.node.short, rk.pid, rk.pid if main else rk.tid, rk.cuda)

    def app(self, r, t, level, where, msg):
        J = self.J
        tl = self.lt(r, t)
        if J.flavor == "hf":
            d = _d(tl)
            return "%s - %s - %s - %s" % (d.strftime("%m/%d/%Y %H:%M:%S"), level, where, msg)
        if J.flavor == "megatron":
            return msg
        return "%s | %-7s | %s - %s" % (f_py(tl), level, where, msg)

    def pytb(self, r, frames, exc, prefix=True):
        L = ["Traceback (most recent call last):"]
        for f, ln, fn, code in frames:
            L.append('  File "%s", line %d, in %s' % (f, ln, fn))
            L.append("    " + code)
        L.extend(exc.rstrip("\n").split("\n"))
        if self.J.new and prefix:
            L = ["[rank%d]: %s" % (r, x) for x in L]
        return "\n".join(L)

    def cpp_frames(self, fn, n=6):
        rng = self.rng
        lib = self.J.site + "/torch/lib/"
        base = {"c10": "0x7f%s" % hx(rng, 10), "cuda": "0x7f%s" % hx(rng, 10)}
        rows = [
            ("c10::Error::Error(c10::SourceLocation, std::string) + 0x96", "libc10.so"),
            (fn, "libtorch_cuda.so"),
            ("c10d::ProcessGroupNCCL::watchdogHandler() + 0x213", "libtorch_cuda.so"),
            ("c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x10c", "libtorch_cuda.so"),
            ("<unknown function> + 0xdc253", "/lib/x86_64-linux-gnu/libstdc++.so.6"),
            ("<unknown function> + 0x94ac3", "/lib/x86_64-linux-gnu/libc.so.6"),
            ("<unknown function> + 0x126850", "/lib/x86_64-linux-gnu/libc.so.6"),
        ][:n + 1]
        out = []
        bases = self.__dict__.setdefault("_libbase", {})
        for i, (f, l) in enumerate(rows):
            path = l if l.startswith("/") else lib + l
            if path not in bases:
                bases[path] = 0x7f0000000000 + rng.randint(0, 0xffffff) * 0x10000
            m = re.search(r"\+ (0x[0-9a-f]+)$", f)
            off = int(m.group(1), 16) if m else rng.randint(0x1000, 0x900000)
            if "<unknown" not in f:
                off += rng.choice([0x1a2000, 0x7c4000, 0x10f3000, 0x33000])
            out.append("frame #%d: %s (0x%x in %s)" % (i, f, bases[path] + off, path))
        return "\n".join(out)

    # -- python frames ------------------------------------------------------
    def frames(self, kind):
        J = self.J
        w, s, site = J.workdir, J.script, J.site
        sp = w + "/" + s
        rng = random.Random(J.rng_tag + kind)
        fr = []
        if J.flavor == "hf":
            fr = [(sp, 612, "<module>", "main()"), (sp, 559, "main", "train_result = trainer.train(resume_from_checkpoint=checkpoint)"),
                  (site + "/transformers/trainer.py", 1938, "train", "return inner_training_loop("),
                  (site + "/transformers/trainer.py", 2279, "_inner_training_loop", "tr_loss_step = self.training_step(model, inputs)")]
            if kind in ("backward",):
                fr.append((site + "/transformers/trainer.py", 3349, "training_step", "self.accelerator.backward(loss, **kwargs)"))
                fr.append((site + "/accelerate/accelerator.py", 2159, "backward", "loss.backward(**kwargs)"))
            elif kind in ("forward",):
                fr.append((site + "/transformers/trainer.py", 3318, "training_step", "loss = self.compute_loss(model, inputs)"))
                fr.append((site + "/transformers/trainer.py", 3363, "compute_loss", "outputs = model(**inputs)"))
            elif kind == "data":
                fr[-1] = (site + "/transformers/trainer.py", 2230, "_inner_training_loop", "for step, inputs in enumerate(epoch_iterator):")
                fr.append((site + "/accelerate/data_loader.py", 454, "__iter__", "current_batch = next(dataloader_iter)"))
            elif kind == "allreduce":
                fr[-1] = (site + "/transformers/trainer.py", 2310, "_inner_training_loop", "self._maybe_log_save_evaluate(tr_loss, grad_norm, model, trial, epoch, ignore_keys_for_eval)")
                fr.append((site + "/transformers/trainer.py", 2684, "_maybe_log_save_evaluate", "tr_loss_scalar = self._nested_gather(tr_loss).mean().item()"))
                fr.append((site + "/transformers/trainer.py", 3913, "_nested_gather", "tensors = distributed_concat(tensors)"))
            else:
                fr.append((site + "/transformers/trainer.py", 3349, "training_step", "self.accelerator.backward(loss, **kwargs)"))
        elif J.flavor == "lightning":
            fr = [(sp, 233, "<module>", "main(args)"), (sp, 219, "main", "trainer.fit(model, datamodule=dm, ckpt_path=args.resume)"),
                  (site + "/lightning/pytorch/trainer/trainer.py", 538, "fit", "call._call_and_handle_interrupt("),
                  (site + "/lightning/pytorch/trainer/call.py", 46, "_call_and_handle_interrupt", "return trainer.strategy.launcher.launch(trainer_fn, *args, trainer=trainer, **kwargs)"),
                  (site + "/lightning/pytorch/trainer/trainer.py", 981, "_run", "results = self._run_stage()"),
                  (site + "/lightning/pytorch/loops/fit_loop.py", 205, "run", "self.advance()")]
            if kind == "data":
                fr.append((site + "/lightning/pytorch/loops/fetchers.py", 134, "__next__", "batch = super().__next__()"))
            elif kind == "allreduce":
                fr.append((site + "/lightning/pytorch/strategies/ddp.py", 333, "reduce", "return _sync_ddp_if_available(tensor, group, reduce_op=reduce_op)"))
            else:
                fr.append((site + "/lightning/pytorch/loops/training_epoch_loop.py", 250, "advance", "batch_output = self.automatic_optimization.run(trainer.optimizers[0], batch_idx, kwargs)"))
                fr.append((site + "/lightning/pytorch/core/module.py", 1306, "optimizer_step", "optimizer.step(closure=optimizer_closure)"))
        elif J.flavor == "megatron":
            mp = w + "/megatron"
            fr = [(w + "/pretrain_gpt.py", 275, "<module>", "pretrain("),
                  (mp + "/training/training.py", 386, "pretrain", "iteration, num_floating_point_operations_so_far = train("),
                  (mp + "/training/training.py", 1372, "train", "train_step(forward_step_func,"),
                  (mp + "/training/training.py", 737, "train_step", "losses_reduced = forward_backward_func(")]
            if kind == "data":
                fr.append((mp + "/core/pipeline_parallel/schedules.py", 1295 if J.pp > 1 else 452,
                           "forward_backward_pipelining_without_interleaving" if J.pp > 1 else "forward_backward_no_pipelining", "output_tensor, num_tokens = forward_step("))
                fr.append((w + "/pretrain_gpt.py", 196, "forward_step", "tokens, labels, loss_mask, attention_mask, position_ids = get_batch("))
            elif kind == "allreduce":
                fr[-1] = (mp + "/training/training.py", 760, "train_step", "update_successful, grad_norm, num_zeros_in_grad = optimizer.step()")
                fr.append((mp + "/core/optimizer/optimizer.py", 425, "step", "found_inf_flag = self._unscale_main_grads_and_check_for_nan()"))
            elif J.pp > 1:
                fr.append((mp + "/core/pipeline_parallel/schedules.py", 1329, "forward_backward_pipelining_without_interleaving", "input_tensor_grad = backward_step("))
                fr.append((mp + "/core/pipeline_parallel/schedules.py", 366, "backward_step", "custom_backward(output_tensor[0], output_tensor_grad[0])"))
            else:
                fr.append((mp + "/core/pipeline_parallel/schedules.py", 471, "forward_backward_no_pipelining", "backward_step(input_tensor, output_tensor, output_tensor_grad, model_type, config)"))
                fr.append((mp + "/core/pipeline_parallel/schedules.py", 366, "backward_step", "custom_backward(output_tensor[0], output_tensor_grad[0])"))
        else:
            fr = [(sp, rng.randint(380, 520), "<module>", "main()"), (sp, rng.randint(300, 370), "main", "train(cfg, model, train_loader, optimizer, scheduler)")]
            if kind == "data":
                fr.append((sp, rng.randint(150, 290), "train", "batch = next(data_iter)"))
            elif kind == "allreduce":
                fr.append((sp, rng.randint(150, 290), "train", "dist.all_reduce(loss_t, op=dist.ReduceOp.AVG)"))
            elif kind == "forward":
                fr.append((sp, rng.randint(150, 290), "train", "logits = model(batch[\"input_ids\"], batch[\"attention_mask\"])"))
            elif kind == "item":
                fr.append((sp, rng.randint(150, 290), "train", "running_loss += loss.item()"))
            else:
                fr.append((sp, rng.randint(150, 290), "train", "loss.backward()"))
        if kind == "backward" and J.flavor != "megatron":
            fr.append((site + "/torch/_tensor.py", 521, "backward", "torch.autograd.backward("))
            fr.append((site + "/torch/autograd/__init__.py", 289, "backward", "_engine_run_backward("))
            fr.append((site + "/torch/autograd/graph.py", 768, "_engine_run_backward",
                       "return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass"))
        elif kind == "forward":
            fr.append((site + "/torch/nn/modules/module.py", 1553, "_wrapped_call_impl", "return self._call_impl(*args, **kwargs)"))
            fr.append((site + "/torch/nn/modules/module.py", 1562, "_call_impl", "return forward_call(*args, **kwargs)"))
            fr.append((w + "/model.py", 141, "forward", "att = torch.softmax(att.float(), dim=-1).to(q.dtype)"))
        elif kind == "data":
            fr.append((site + "/torch/utils/data/dataloader.py", 630, "__next__", "data = self._next_data()"))
            fr.append((site + "/torch/utils/data/dataloader.py", 1344, "_next_data", "return self._process_data(data)"))
            fr.append((site + "/torch/utils/data/dataloader.py", 1370, "_process_data", "data.reraise()"))
            fr.append((site + "/torch/_utils.py", 706, "reraise", "raise exception"))
        elif kind == "allreduce":
            fr.append((site + "/torch/distributed/c10d_logger.py", 83, "wrapper", "return func(*args, **kwargs)"))
            fr.append((site + "/torch/distributed/distributed_c10d.py", 2501, "all_reduce", "work = group.allreduce([tensor], opts)"))
        return fr

    # -- NCCL --------------------------------------------------------------
    def nccl_init(self, r, t):
        J = self.J
        if J.nccl_debug == "WARN" and r == 0:
            self.add(r, t, "NCCL version %s+cuda%s" % (J.st["nccl"], J.plat["cuda"]), "nccl")
        if J.nccl_debug != "INFO":
            return
        rk = J.ranks[r]
        n = rk.node
        p0 = self.ncp(r, True)
        p1 = self.ncp(r)
        net = J.plat["net"]
        ver = J.st["nccl"]
        L = [p0 + " NCCL INFO Bootstrap : Using %s:%s<0>" % (n.ifname, n.ip)]
        if net == "EFA":
            L.append(p0 + " NCCL INFO NET/Plugin: Loaded net plugin AWS Libfabric (v7)")
        else:
            L.append(p0 + " NCCL INFO NET/Plugin : dlerror=libnccl-net.so: cannot open shared object file: No such file or "
                          "directory No plugin found (libnccl-net.so), using internal implementation")
        L.append(p0 + " NCCL INFO cudaDriverVersion %d" % (12020 if J.plat["cuda"] == "12.2" else 12040))
        if r == 0:
            L.append("NCCL version %s+cuda%s" % (ver, J.plat["cuda"]))
        if net in ("IB", "RoCE"):
            devs = " ".join("[%d]%s:1/%s" % (i, nic[0], net) for i, nic in enumerate(n.nics))
            L.append(p1 + " NCCL INFO NET/IB : Using %s [RO]; OOB %s:%s<0>" % (devs, n.ifname, n.ip))
            L.append(p1 + " NCCL INFO Using network IB")
        elif net == "EFA":
            L.append(p1 + " NCCL INFO NET/OFI Initializing aws-ofi-nccl 1.9.1-aws")
            L.append(p1 + " NCCL INFO NET/OFI Selected Provider is efa (found %d nics)" % len(n.nics))
            L.append(p1 + " NCCL INFO Using network AWS Libfabric")
        else:
            L.append(p1 + " NCCL INFO NET/Socket : Using [0]%s:%s<0>" % (n.ifname, n.ip))
            L.append(p1 + " NCCL INFO Using network Socket")
        comm = "55" + hx(self.rng, 10)
        new = ver >= "2.19"
        if new:
            L.append(p1 + " NCCL INFO ncclCommInitRank comm 0x%s rank %d nranks %d cudaDev %d nvmlDev %d busId %s commId 0x%s - Init START"
                     % (comm, r, J.W, rk.cuda, rk.nvml, rk.gpu.nccl, J.comm_id))
        L.append(p1 + " NCCL INFO Setting affinity for GPU %d to %s" % (rk.nvml, "ffffffff,00000000,ffffffff" if rk.lr < J.gpn // 2 else "ffffffff,00000000,ffffffff,00000000"))
        L.append(p1 + " NCCL INFO comm 0x%s rank %d nRanks %d nNodes %d localRanks %d localRank %d MNNVL 0"
                 % (comm, r, J.W, len(J.nodes), J.gpn, rk.lr))
        nxt = J.ranks[(r + 1) % J.W]
        if nxt.node is n:
            via = "P2P/CUMEM/read" if new else "P2P/IPC/read"
            if new:
                L.append(p1 + " NCCL INFO Channel 00/0 : %d[%d] -> %d[%d] via %s" % (r, rk.cuda, nxt.r, nxt.cuda, via))
            else:
                L.append(p1 + " NCCL INFO Channel 00/0 : %d[%s] -> %d[%s] via %s" % (r, rk.gpu.nccl, nxt.r, nxt.gpu.nccl, via))
        else:
            tr = {"IB": "NET/IB/0/GDRDMA", "RoCE": "NET/IB/0/GDRDMA", "EFA": "NET/AWS Libfabric/0/GDRDMA", "Socket": "NET/Socket/0"}[net]
            if new:
                L.append(p1 + " NCCL INFO Channel 00/0 : %d[%d] -> %d[%d] [send] via %s" % (r, rk.cuda, nxt.r, nxt.cuda, tr))
            else:
                L.append(p1 + " NCCL INFO Channel 00/0 : %d[%s] -> %d[%s] [send] via %s" % (r, rk.gpu.nccl, nxt.r, nxt.gpu.nccl, tr))
        L.append(p1 + " NCCL INFO Connected all rings")
        L.append(p1 + " NCCL INFO Connected all trees")
        if new:
            L.append(p1 + " NCCL INFO comm 0x%s rank %d nranks %d cudaDev %d nvmlDev %d busId %s commId 0x%s - Init COMPLETE"
                     % (comm, r, J.W, rk.cuda, rk.nvml, rk.gpu.nccl, J.comm_id))
        else:
            L.append(p1 + " NCCL INFO comm 0x%s rank %d nranks %d cudaDev %d busId %s - Init COMPLETE"
                     % (comm, r, J.W, rk.cuda, rk.gpu.nccl))
        self.add(r, t, "\n".join(L), "nccl")

    def nccl_warn(self, r, t, src, msg):
        if self.J.nccl_debug is None:
            return
        self.add(r, t, "\n%s %s NCCL WARN %s" % (self.ncp(r), src, msg), "nccl")

    def nccl_info(self, r, t, msg):
        if self.J.nccl_debug == "INFO":
            self.add(r, t, "%s NCCL INFO %s" % (self.ncp(r), msg), "nccl")

    # -- watchdog / collateral texts ---------------------------------------
    def work(self, seq, op, numel):
        J = self.J
        if op == "_ALLGATHER_BASE":
            nin, nout = numel, numel * J.W
        elif op == "_REDUCE_SCATTER_BASE":
            nin, nout = numel * J.W, numel
        else:
            nin = nout = numel
        return "WorkNCCL(SeqNum=%d, OpType=%s, NumelIn=%d, NumelOut=%d, Timeout(ms)=%d)" % (
            seq, op, nin, nout, J.timeout_s * 1000)

    def wd_timeout(self, r, t, seq, op, numel, ran_ms, last_enq=None, last_comp=None):
        J = self.J
        st = J.st
        if last_enq is None:
            last_enq = seq
        if last_comp is None:
            last_comp = seq - 1
        msg = "[Rank %d] Watchdog caught collective operation timeout: %s ran for %d milliseconds before timing out." % (
            r, self.work(seq, op, numel), ran_ms)
        if not J.new:
            L = [self.c10(r, t, "E", "ProcessGroupNCCL.cpp", st["l_to"], msg),
                 self.c10(r, t, "E", "ProcessGroupNCCL.cpp", st["l_some"],
                          "Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, "
                          "subsequent GPU operations might run on corrupted/incomplete data."),
                 self.c10(r, t, "E", "ProcessGroupNCCL.cpp", st["l_down"],
                          "To avoid data inconsistency, we are taking the entire process down."),
                 self.c10(r, t + 0.001, "E", "ProcessGroupNCCL.cpp", st["l_term"],
                          "[Rank %d] NCCL watchdog thread terminated with exception: %s" % (r, msg)),
                 "terminate called after throwing an instance of 'std::runtime_error'",
                 "  what():  [Rank %d] NCCL watchdog thread terminated with exception: %s" % (r, msg)]
            return "\n".join(L)
        pg = st["pg"] % r
        L = [self.c10(r, t, "E", "ProcessGroupNCCL.cpp", st["l_to"], msg),
             self.c10(r, t + 0.0004, "E", "ProcessGroupNCCL.cpp", st["l_exc"],
                      "%s Exception (either an error or timeout) detected by watchdog at work: %d, last enqueued NCCL work: %d, "
                      "last completed NCCL work: %d." % (pg, seq, last_enq, last_comp)),
             self.c10(r, t + 0.0005, "E", "ProcessGroupNCCL.cpp", st["l_at"],
                      "[Rank %d] Timeout at NCCL work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d."
                      % (r, seq, last_enq, last_comp)),
             self.c10(r, t + 0.0005, "E", "ProcessGroupNCCL.cpp", st["l_some"],
                      "[Rank %d] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, "
                      "subsequent GPU operations might run on corrupted/incomplete data." % r),
             self.c10(r, t + 0.0006, "E", "ProcessGroupNCCL.cpp", st["l_down"],
                      "[Rank %d] To avoid data inconsistency, we are taking the entire process down." % r),
             self.c10(r, t + 0.0011, "E", "ProcessGroupNCCL.cpp", st["l_term"],
                      "%s Process group watchdog thread terminated with exception: %s" % (pg, msg)),
             "Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:%d (most recent call first):" % (st["l_to"] + 2),
             self.cpp_frames("c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >) + 0x1d2"),
             "",
             "terminate called after throwing an instance of 'c10::DistBackendError'",
             "  what():  %s Process group watchdog thread terminated with exception: %s" % (pg, msg),
             "Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:%d (most recent call first):" % (st["l_to"] + 2),
             self.cpp_frames("c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >) + 0x1d2", 3),
             ]
        return "\n".join(L)

    def last_error(self, r, peer):
        """NCCL 'Last error' text seen by rank r when peer node's transport vanished."""
        J = self.J
        rng = self.rng
        rk = J.ranks[r]
        net = J.plat["net"]
        port = rng.randint(30000, 60999)
        pip = peer.ip
        if net in ("IB", "RoCE"):
            if J.st["nccl"] >= "2.19":
                return ("transport/net_ib.cc:%d" % rng.choice([1696, 2242]),
                        "NET/IB : Got completion from peer %s<%d> with status=12 opcode=%d len=0 vendor err 129 (%s) "
                        "localGid ::ffff:%s remoteGids::ffff:%s" % (pip, port, rng.choice([0, 1, 128]),
                                                                    rng.choice(["Recv", "Send"]), rk.node.ip, pip))
            return ("transport/net_ib.cc:1295",
                    "NET/IB : Got completion from peer %s<%d> with error 12, opcode 0, len 0, vendor err 129 (Recv)" % (pip, port))
        if net == "EFA":
            return ("nccl_ofi_rdma.c:%d" % rng.choice([1549, 2145]),
                    "NET/OFI Request 0x%s completed with error. RC: 15. Error: Connection reset by peer. Completed length: 0, "
                    "Request: { dev: %d, size: 0, state: CREATED, type: RECV }" % (hx(rng, 12), rk.lr // 2))
        return ("misc/socket.cc:%d" % rng.choice([50, 64]),
                "socketProgress: Connection closed by remote peer %s<%d>" % (pip, port))

    def remote_err(self, r, t, peer, py_level=False):
        J = self.J
        st = J.st
        src, last = self.last_error(r, peer)
        self.nccl_warn(r, t - 0.002, src, last)
        self.nccl_info(r, t - 0.001, "transport/net.cc:%d -> 6" % self.rng.choice([1298, 1307, 1034]))
        msg = ("NCCL error: remote process exited or there was a network error, NCCL version %s\n"
               "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.\n"
               "Last error:\n%s" % (st["nccl"], last))
        if py_level:
            exc = ("torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:%d, "
                   "remote process exited or there was a network error, NCCL version %s\n"
                   "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.\n"
                   "Last error:\n%s" % (rng_pick(self.rng, [1970, 2006, 1691]), st["nccl"], last))
            txt = self.pytb(r, self.frames("allreduce"), exc)
            self.add(r, t, txt, "err")
            return 1
        if J.new:
            pg = st["pg"] % r
            L = [self.c10(r, t, "E", "ProcessGroupNCCL.cpp", st["l_term"],
                          "%s Process group watchdog thread terminated with exception: %s" % (pg, msg)),
                 "Exception raised from checkForNCCLErrorsInternal at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:%d (most recent call first):" % (st["l_term"] + 380),
                 self.cpp_frames("c10d::ProcessGroupNCCL::checkForNCCLErrorsInternal(std::shared_ptr<c10d::NCCLComm>&) + 0x220", 4),
                 "",
                 "terminate called after throwing an instance of 'c10::DistBackendError'",
                 "  what():  %s Process group watchdog thread terminated with exception: %s" % (pg, msg)]
        else:
            L = [self.c10(r, t, "E", "ProcessGroupNCCL.cpp", st["l_term"],
                          "[Rank %d] NCCL watchdog thread terminated with exception: %s" % (r, msg)),
                 "terminate called after throwing an instance of 'std::runtime_error'",
                 "  what():  [Rank %d] NCCL watchdog thread terminated with exception: %s" % (r, msg)]
        self.add(r, t, "\n".join(L), "err")
        return -6

    def collateral(self, dead, t_dead, mode=None, seq=None, op=None, numel=None, skip=()):
        """Survivors' reaction to a dead / silent rank: watchdog timeouts or remote errors."""
        J = self.J
        rng = self.rng
        mode = mode or rng.choice(["timeout", "timeout", "remote", "mixed"])
        dead_nodes = []
        for d in dead:
            ni = J.ranks[d].node.idx
            if ni not in dead_nodes:
                dead_nodes.append(ni)
        peer = J.nodes[dead_nodes[0]]
        seq = seq if seq is not None else self.seq_at(t_dead) + 1
        op = op or self.op
        numel = numel if numel is not None else self.numel
        py_level = rng.random() < 0.3
        for rk in J.ranks:
            r = rk.r
            if r in dead or r in self.exit or r in self.stuck or r in skip:
                continue
            same = rk.node.idx in dead_nodes
            remote = (mode == "remote" or (mode == "mixed" and rng.random() < 0.5)) and not same
            if remote:
                t = t_dead + rng.uniform(0.4, 25.0)
                code = self.remote_err(r, t, peer, py_level)
                self.set_exit(r, t + rng.uniform(0.05, 0.7), code, "collateral: remote error")
            else:
                t0 = t_dead - rng.uniform(0, 0.3)
                t = t0 + J.timeout_s + rng.uniform(0.02, 1.0)
                self.add(r, t, self.wd_timeout(r, t, seq, op, numel, int((t - t0) * 1000)), "err")
                self.set_exit(r, t + self.abort_delay(), -6, "collateral: watchdog timeout")
        return mode

    def abort_delay(self):
        # torch>=2.3 waits for the flight-recorder dump before SIGABRT
        return self.rng.uniform(1.0, 6.0) if self.J.new else self.rng.uniform(0.3, 1.5)

    # -- startup, progress, healthy end -----------------------------------
    def startup(self):
        J = self.J
        rng = self.rng
        for rk in J.ranks:
            r = rk.r
            t = self.t_start + rng.uniform(3, 9)
            for w in self.noise:
                self.add(r, t, w % {"site": J.site}, "err")
                t += rng.uniform(0.01, 0.4)
            if r != 0 and rk.node.idx != 0 and rng.random() < 0.25:
                master = self.master.hostname if rng.random() < 0.5 else self.master.ip
                if J.new:
                    self.add(r, t, "[W%s socket.cpp:697] [c10d] The client socket has failed to connect to [%s]:%d (errno: 111 - Connection refused)."
                             % (f_c10(self.lt(r, t)), master, self.port))
                else:
                    self.add(r, t, "[W socket.cpp:601] [c10d] The client socket has failed to connect to [%s]:%d (errno: 111 - Connection refused)."
                             % (master, self.port))
                t += rng.uniform(1, 4)
            self.banner(rk, t)
            self.nccl_init(r, self.t_start + rng.uniform(40, 60))
        self.rank0_intro()

    def banner(self, rk, t):
        J = self.J
        r = rk.r
        if J.flavor == "hf":
            self.add(r, t, self.app(r, t, "WARNING", "__main__",
                                    "Process rank: %d, device: cuda:%d, n_gpu: 1, distributed training: True, 16-bits training: False"
                                    % (rk.lr, rk.cuda)), "err")
        elif J.flavor == "lightning":
            self.add(r, t, "Initializing distributed: GLOBAL_RANK: %d, MEMBER: %d/%d" % (r, r + 1, J.W), "err")
            vis = J.cvd if J.cvd else list(range(J.gpn))
            if J.bind == "cgroup1":
                vis = [0]
            self.add(r, t + 20, "LOCAL_RANK: %d - CUDA_VISIBLE_DEVICES: [%s]" % (rk.lr, ",".join(str(x) for x in vis)), "err")
        elif J.flavor == "megatron":
            tp, pp, dp = coords(J, r)
            self.add(r, t, "> rank %d (tp %d, pp %d, dp %d) on %s, local rank %d -> cuda:%d"
                     % (r, tp, pp, dp, rk.node.hostname, rk.lr, rk.cuda), "out")
        else:
            hn = rk.node.fqdn if getattr(J, "print_fqdn", False) else rk.node.hostname
            host = (" host=%s" % hn) if self.banner_host else ""
            if J.layout == "host_pid_files":
                host = " host=%s pid=%d" % (rk.node.hostname, rk.pid)
            self.add(r, t, self.app(r, t, "INFO", "dist:42", "initialized process group: rank=%d local_rank=%d world_size=%d%s device=cuda:%d"
                                    % (r, rk.lr, J.W, host, rk.cuda)), "app")

    def rank0_intro(self):
        J = self.J
        rng = self.rng
        r = self.prog_rank
        t = self.t_start + rng.uniform(60, 90)
        if J.flavor == "megatron":
            r0 = 0
            self.add(r0, self.t_start + 10, "using world size: %d, data-parallel size: %d, context-parallel size: 1, "
                     "tensor-model-parallel size: %d, pipeline-model-parallel size: %d" % (J.W, J.dp, J.tp, J.pp), "out")
            self.add(r0, self.t_start + 11, "> initializing torch distributed ...", "out")
            self.add(r0, self.t_start + 30, "> initialized tensor model parallel with size %d\n> initialized pipeline model parallel with size %d"
                     % (J.tp, J.pp), "out")
            self.add(r0, self.t_start + 31, "> setting random seeds to 1234 ...", "out")
            self.add(r0, t, "[after model, optimizer, and learning rate scheduler are built] datetime: %s"
                     % _d(self.lt(r0, t)).strftime("%Y-%m-%d %H:%M:%S"), "out")
            self.add(r0, t + 5, "training ...", "out")
            if self.resume_step:
                self.add(r0, t - 20, "  successfully loaded checkpoint from %s/checkpoints at iteration %d" % (J.workdir, self.resume_step), "out")
        elif J.flavor == "hf":
            self.add(r, t, "***** Running training *****\n  Num examples = %d\n  Num Epochs = 1\n  Instantaneous batch size per device = 8\n"
                     "  Total train batch size (w. parallel, distributed & accumulation) = %d\n  Gradient Accumulation steps = 4\n"
                     "  Total optimization steps = %d" % (rng.randint(10 ** 6, 10 ** 8), 32 * J.W, self.total_steps), "err")
        elif J.flavor == "lightning":
            self.add(r, t, "  | Name  | Type            | Params | Mode \n------------------------------------------------\n"
                     "0 | model | %s | %.1f B  | train\n------------------------------------------------"
                     % (rng.choice(["GPT            ", "ViT            ", "Wav2Vec2Model  "]), rng.uniform(0.3, 13)), "out")
        else:
            self.add(r, t, self.app(r, t, "INFO", "%s:118" % J.script,
                                    "config: model=%s global_batch=%d seq_len=%d lr=%.1e steps=%d" % (
                                        rng.choice(["gpt-1.3b", "gpt-6.7b", "vit-h14", "w2v-large"]), 32 * J.W,
                                        rng.choice([2048, 4096, 1024]), rng.choice([3e-4, 1.5e-4, 6e-4]), self.total_steps)), "app")
            if self.resume_step:
                self.add(r, t + 2, self.app(r, t + 2, "INFO", "ckpt:77", "resumed from %s/ckpt/step_%07d" % (J.workdir, self.resume_step)), "app")

    def progress(self, t_until, slow_rank=None):
        J = self.J
        rng = self.rng
        n_steps = max(1, int((t_until - self.t_train0) / self.step_s))
        every = 10
        for cand in [1, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000]:
            if n_steps / cand <= 45:
                every = cand
                break
        self.log_every = every
        r = self.prog_rank
        k = every
        while k <= n_steps:
            step = self.resume_step + k
            t = self.t_train0 + k * self.step_s * (1.0 if slow_rank is None else self.slow.get("factor", 1.0))
            if t > t_until:
                break
            loss = 1.9 + 5.5 * 2.718 ** (-step / 2500.0) + rng.uniform(-0.08, 0.08)
            ms = self.step_s * 1000 * rng.uniform(0.97, 1.04)
            if slow_rank is not None:
                ms *= self.slow.get("factor", 1.0)
            lr = 3e-4 * min(1.0, step / 2000.0)
            frac = step / float(self.total_steps)
            if J.flavor == "megatron":
                txt = (" [%s] iteration %8d/%8d | consumed samples: %12d | elapsed time per iteration (ms): %.1f | "
                       "throughput per GPU (TFLOP/s/GPU): %.1f | learning rate: %.6E | global batch size: %5d | lm loss: %.6E | "
                       "loss scale: 1.0 | grad norm: %.3f | number of skipped iterations:   0 | number of nan iterations:   0 |"
                       % (_d(self.lt(r, t)).strftime("%Y-%m-%d %H:%M:%S"), step, self.total_steps, step * 512, ms,
                          rng.uniform(380, 420) / (1 if slow_rank is None else self.slow.get("factor", 1.0)), lr, 512, loss, rng.uniform(0.6, 1.4)))
                self.add(r, t, txt, "out")
            elif J.flavor == "hf":
                segs = []
                for j in range(3):
                    s2 = step - (2 - j)
                    el = (s2 - self.resume_step) * self.step_s
                    rem = (self.total_steps - s2) * self.step_s
                    segs.append("%3d%%|%-10s| %d/%d [%s<%s, %5.2fit/s]" % (
                        int(100 * s2 / self.total_steps), "\u2588" * int(10 * s2 / self.total_steps), s2, self.total_steps,
                        f_tqdm(el), f_tqdm(rem), 1.0 / (ms / 1000.0)))
                self.add(r, t, "\r" + "\r".join(segs), "err")
                self.add(r, t + 0.01, "{'loss': %.4f, 'grad_norm': %.4f, 'learning_rate': %.3e, 'epoch': %.2f}" % (
                    loss, rng.uniform(0.4, 1.6), lr, frac), "out")
            elif J.flavor == "lightning":
                el = (step - self.resume_step) * self.step_s
                self.add(r, t, "\rEpoch 0: %3d%%|%-10s| %d/%d [%s<%s, %5.2fit/s, v_num=%d, train_loss=%.3f]" % (
                    int(100 * frac), "\u2588" * int(10 * frac), step, self.total_steps, f_tqdm(el),
                    f_tqdm((self.total_steps - step) * self.step_s), 1.0 / (ms / 1000.0), 3, loss), "err")
            else:
                self.add(r, t, self.app(r, t, "INFO", "%s:241" % J.script,
                                        "step %d/%d | loss %.4f | lr %.3e | grad_norm %.3f | %.1f ms/step | %d tok/s" % (
                                            step, self.total_steps, loss, lr, rng.uniform(0.4, 1.6), ms,
                                            int(J.W * 8 * 2048 / (ms / 1000.0)))), "app")
            k += every

    def healthy_end(self):
        J = self.J
        rng = self.rng
        t = self.t_healthy_end
        self.progress(t)
        r = self.prog_rank
        if J.flavor == "hf":
            self.add(r, t + 1, "\n\nTraining completed. Do not forget to share your model on huggingface.co/models =)\n\n", "err")
            self.add(r, t + 1.5, "{'train_runtime': %.4f, 'train_samples_per_second': %.3f, 'train_steps_per_second': %.3f, 'train_loss': %.4f, 'epoch': 1.0}"
                     % (t - self.t_train0, rng.uniform(50, 900), 1.0 / self.step_s, rng.uniform(1.9, 2.6)), "out")
        elif J.flavor == "lightning":
            self.add(r, t + 1, "`Trainer.fit` stopped: `max_steps=%d` reached." % self.total_steps, "err")
        elif J.flavor == "megatron":
            self.add(0, t + 2, "[after training is done] datetime: %s" % _d(self.lt(0, t + 2)).strftime("%Y-%m-%d %H:%M:%S"), "out")
            self.add(0, t + 3, "saving checkpoint at iteration %8d to %s/checkpoints" % (self.total_steps, J.workdir), "out")
        else:
            self.add(r, t + 1, self.app(r, t + 1, "INFO", "%s:301" % J.script, "training finished: %d steps, saving final checkpoint" % self.total_steps), "app")
        for rk in J.ranks:
            te = t + rng.uniform(8, 40)
            if J.new and rng.random() < 0.35:
                self.add(rk.r, te - 0.5, self.c10(rk.r, te - 0.5, "W", "ProcessGroupNCCL.cpp", 1250,
                                                  "Warning: WARNING: process group has NOT been destroyed before we destruct ProcessGroupNCCL. "
                                                  "On normal program exit, the application should call destroy_process_group to ensure that any "
                                                  "pending NCCL operations have finished in this process. In rare cases this process can exit "
                                                  "before this point and block the progress of another member of the process group. This "
                                                  "constraint has always been present,  but this warning has only recently been added. For more "
                                                  "info, please see https://pytorch.org/docs/stable/distributed.html#shutdown (function operator())"), "err")
            self.set_exit(rk.r, te, 0, "completed")
        self.t_end_ok = t


def rng_pick(rng, seq):
    return seq[rng.randrange(len(seq))]


# ----------------------------------------------------------------------------
# kernel text helpers
# ----------------------------------------------------------------------------
def pname_of(sc, rk):
    J = sc.J
    if not hasattr(J, "pname"):
        J.pname = "pt_main_thread" if J.new or sc.rng.random() < 0.5 else "python"
    return J.pname


def xid(sc, rk, t, code, body, pid=None, pname=None, intro=True, gpu=None):
    g = gpu or rk.gpu
    k = rk.node.idx
    if intro:
        sc.kadd(k, t - 0.0004, "NVRM: GPU at PCI:%s: %s" % (g.kern, g.uuid))
        sc.kadd(k, t - 0.0003, "NVRM: GPU Board Serial Number: %s" % g.serial)
    if pid is None:
        pid = rk.hpid
    if pname is None:
        pname = pname_of(sc, rk)
    if pid == "<unknown>":
        pp = "pid='<unknown>', name=<unknown>"
    else:
        pp = "pid=%s, name=%s" % (pid, pname)
    sc.kadd(k, t, "NVRM: Xid (PCI:%s): %d, %s, %s" % (g.kern, code, pp, body))


def oom_block(sc, n, t, victim_pid, victim_name, memcg, cgroup_msg, total_kb, uid=1000):
    rng = sc.rng
    cpu = rng.randint(0, 127)
    L = ["%s invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0" % victim_name,
         "CPU: %d PID: %d Comm: %s Tainted: P           OE     5.15.0-%d-generic #%d-Ubuntu" % (cpu, victim_pid + rng.randint(1, 40), victim_name, rng.randint(90, 130), rng.randint(95, 140)),
         "Hardware name: %s" % {"dgx_h100": "NVIDIA DGXH100/DGXH100, BIOS 1.1.3 05/04/2023", "roce_h100": "Supermicro SYS-821GE-TNHR/X13DEG-OAD, BIOS 2.1 10/02/2023",
                                "dgx_a100": "NVIDIA DGXA100 920-23687-2530-000/DGXA100, BIOS 1.21 04/18/2023", "p4d": "Amazon EC2 p4d.24xlarge/, BIOS 1.0 10/16/2017",
                                "p5": "Amazon EC2 p5.48xlarge/, BIOS 1.0 10/16/2017", "a3": "Google Google Compute Engine/Google Compute Engine, BIOS Google 01/25/2024"}[sc.J.platkey],
         "Call Trace:", " <TASK>", " dump_stack_lvl+0x4a/0x63", " dump_header+0x4a/0x1f4", " oom_kill_process.cold+0xb/0x10",
         " out_of_memory+0x106/0x2e0", " mem_cgroup_out_of_memory+0x13b/0x160" if cgroup_msg else " __alloc_pages_slowpath.constprop.0+0xc6e/0xd30",
         " </TASK>"]
    if cgroup_msg:
        L.append("memory: usage %dkB, limit %dkB, failcnt %d" % (total_kb, total_kb, rng.randint(1, 900)))
    else:
        L.append("Mem-Info:")
        L.append("active_anon:%d inactive_anon:%d isolated_anon:0" % (rng.randint(10 ** 8, 4 * 10 ** 8) // 4096, rng.randint(10 ** 5, 10 ** 6)))
    L.append("Tasks state (memory values in pages):")
    L.append("[  pid  ]   uid  tgid total_vm      rss pgtables_bytes swapents oom_score_adj name")
    anon = total_kb // 2 + rng.randint(0, 10 ** 6)
    L.append("[%7d] %5d %5d %8d %8d %14d %8d %13d %s" % (victim_pid, uid, victim_pid, anon // 4 + rng.randint(10 ** 6, 10 ** 7),
                                                     anon // 4 + rng.randint(1000, 90000), rng.randint(10 ** 6, 10 ** 8), 0, 0, victim_name))
    L.append("oom-kill:constraint=%s,nodemask=(null),cpuset=%s,mems_allowed=0-1,%s,task_memcg=%s,task=%s,pid=%d,uid=%d" % (
        "CONSTRAINT_MEMCG" if cgroup_msg else "CONSTRAINT_NONE", memcg.split("/")[-1] or "/",
        "oom_memcg=" + memcg if cgroup_msg else "global_oom", memcg, victim_name, victim_pid, uid))
    L.append("%s: Killed process %d (%s) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:%d pgtables:%dkB oom_score_adj:0" % (
        "Memory cgroup out of memory" if cgroup_msg else "Out of memory", victim_pid, victim_name, anon + rng.randint(4 * 10 ** 6, 4 * 10 ** 7),
        anon, rng.randint(10 ** 5, 10 ** 6), rng.randint(10 ** 5, 10 ** 7), uid, rng.randint(10 ** 4, 10 ** 6)))
    for i, line in enumerate(L):
        sc.kadd(n, t + i * 0.00002, line)


def memcg_for(sc, rk):
    J = sc.J
    if J.layout == "k8s_pods":
        return "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod%s_%s_%s_%s_%s.slice/cri-containerd-%s.scope" % (
            hx(sc.rng, 8), hx(sc.rng, 4), hx(sc.rng, 4), hx(sc.rng, 4), hx(sc.rng, 12), hx(sc.rng, 64))
    if J.layout in ("slurm_task_files", "combined_megatron") and J.launch != "srun_torchrun":
        return "/slurm/uid_%d/job_%d/step_0/task_%d" % (1000 + len(J.user), J.job_id, rk.lr)
    if J.layout in ("host_pid_files", "combined_megatron"):
        return "/slurm/uid_%d/job_%d/step_0" % (1000 + len(J.user), J.job_id)
    return "/user.slice/user-%d.slice/session-%d.scope" % (1000 + len(J.user), sc.rng.randint(2, 900))


def pick_rank(sc, avoid_zero=0.75):
    J = sc.J
    rng = sc.rng
    if rng.random() < avoid_zero:
        return rng.randrange(1, J.W)
    return rng.randrange(J.W)


def cuda_fail_text(sc, r, t, err, via):
    """A rank reporting a sticky CUDA error; returns exit code."""
    J = sc.J
    st = J.st
    sc.nccl_warn(r, t - 0.01, "%s:%d" % (sc.rng.choice(["enqueue.cc", "proxy.cc", "init.cc"]), sc.rng.randint(500, 1900)),
                 "Cuda failure '%s'" % err)
    if via == "python":
        exc = "RuntimeError: CUDA error: %s\n%s" % (err, CUDA_TAIL)
        sc.add(r, t, sc.pytb(r, sc.frames(sc.rng.choice(["backward", "item", "forward"])), exc))
        return 1
    msg = "CUDA error: %s\n%s" % (err, CUDA_TAIL)
    if J.new:
        pg = st["pg"] % r
        L = [sc.c10(r, t, "E", "ProcessGroupNCCL.cpp", st["l_term"], "%s Process group watchdog thread terminated with exception: %s" % (pg, msg)),
             "Exception raised from c10_cuda_check_implementation at ../c10/cuda/CUDAException.cpp:43 (most recent call first):",
             sc.cpp_frames("c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, int, bool) + 0x10c", 4),
             "", "terminate called after throwing an instance of 'c10::DistBackendError'",
             "  what():  %s Process group watchdog thread terminated with exception: %s" % (pg, msg)]
    else:
        L = [sc.c10(r, t, "E", "ProcessGroupNCCL.cpp", st["l_term"], "[Rank %d] NCCL watchdog thread terminated with exception: %s" % (r, msg)),
             "terminate called after throwing an instance of 'std::runtime_error'",
             "  what():  [Rank %d] NCCL watchdog thread terminated with exception: %s" % (r, msg)]
    sc.add(r, t, "\n".join(L))
    return -6


# ----------------------------------------------------------------------------
# causes
# ----------------------------------------------------------------------------
def c_gpu_hardware(sc):
    J, rng = sc.J, sc.rng
    r = pick_rank(sc)
    rk = J.ranks[r]
    t = sc.t_fail
    sc.progress(t)
    code = rng.choice([79, 79, 119, 62, 120])
    g = rk.gpu
    mode = "hang" if code in (119, 120) and rng.random() < 0.6 else rng.choice(["python", "watchdog"])
    if code == 79:
        xid(sc, rk, t, 79, "GPU has fallen off the bus.", pid="<unknown>")
        sc.kadd(rk.node.idx, t + 0.0001, "NVRM: GPU %s: GPU has fallen off the bus." % g.full)
        sc.kadd(rk.node.idx, t + 0.0002, "NVRM: A GPU crash dump has been created. If possible, please run")
        sc.kadd(rk.node.idx, t + 0.0002, "NVRM: nvidia-bug-report.sh as root to collect this data before")
        sc.kadd(rk.node.idx, t + 0.0002, "NVRM: the NVIDIA kernel module is unloaded.")
        err = rng.choice(["unspecified launch failure", "unknown error"])
        sc.nvsmi[rk.node.idx] = "lost:%d" % g.phys
    elif code == 62:
        xid(sc, rk, t, 62, "%08x %08x %08x %08x %08x %08x" % tuple(rng.randint(0, 0xffff) for _ in range(6)))
        err = "unspecified launch failure"
        sc.nvsmi[rk.node.idx] = "table"
    else:
        gi = g.phys
        if code == 119:
            xid(sc, rk, t, 119, "Timeout after 6s of waiting for RPC response from GPU%d GSP! Expected function 76 (GSP_RM_CONTROL) (0x20800a4c 0x4)." % gi)
            sc.kadd(rk.node.idx, t + 0.0001, "NVRM: GPU%d GSP RPC buffer contains function 76 (GSP_RM_CONTROL) and data 0x0000000020800a4c 0x0000000000000004." % gi)
            sc.kadd(rk.node.idx, t + 0.0002, "NVRM: GPU%d RPC history (CPU -> GSP):" % gi)
            sc.kadd(rk.node.idx, t + 0.0003, "NVRM:     entry function                   data0              data1              ts_start           ts_end             duration actively_polling")
            sc.kadd(rk.node.idx, t + 0.0004, "NVRM:      0    76 GSP_RM_CONTROL            0x0000000020800a4c 0x0000000000000004 0x000%s 0x0000000000000000          y" % hx(rng, 12))
            for k in range(rng.randint(1, 3)):
                sc.kadd(rk.node.idx, t + 6.1 * (k + 1), "NVRM: Xid (PCI:%s): 119, pid=%d, name=%s, Timeout after 6s of waiting for RPC response from GPU%d GSP! Expected function 10 (FREE) (0xa55a00c0 0x0)."
                        % (g.kern, rk.hpid, pname_of(sc, rk), gi))
            sc.kadd(rk.node.idx, t + 30, "NVRM: Rate limiting GSP RPC error prints for GPU at PCI:%s (printing 1 of every 30).  The GPU likely needs to be reset." % g.kern)
        else:
            xid(sc, rk, t, 120, "GSP task exception: %s" % rng.choice(["(PC=0x%x) CTRL=0x0" % rng.randint(0x1000, 0xfffff)]))
        err = "unspecified launch failure"
        sc.nvsmi[rk.node.idx] = "lost:%d" % g.phys
    sc.dcgm[rk.node.idx] = (g.phys, code)
    if mode == "hang":
        sc.stuck.append(r)
        sc.silent_init = True
        sc.hw_map = True
        sc.collateral([r], t, mode="timeout")
        how = "rank %d stuck inside the CUDA driver (no error printed); peers hit the NCCL watchdog" % r
    else:
        te = t + rng.uniform(0.3, 12)
        c = cuda_fail_text(sc, r, te, err, mode)
        sc.set_exit(r, te + 0.2, c, "cuda error after xid")
        sc.collateral([r], te)
        how = "rank %d reported 'CUDA error: %s'" % (r, err)
    sc.init_rank, sc.init_node = r, rk.node
    sc.rank_known = sc.node_known = True
    sc.notes.append("Xid %d on %s (kernel PCI:%s, nvidia-smi %s, NCCL busId %s, %s) = host GPU %d = cuda:%d of rank %d; %s"
                    % (code, rk.node.kern_host, g.kern, g.smi, g.nccl, g.uuid, g.phys, rk.cuda, r, how))


def c_ecc_memory(sc):
    J, rng = sc.J, sc.rng
    r = pick_rank(sc)
    rk = J.ranks[r]
    g = rk.gpu
    t = sc.t_fail
    sc.progress(t)
    h100 = J.plat["short"] == "H100"
    if h100 and rng.random() < 0.6:
        xid(sc, rk, t, 48, "An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition %d, subpartition %d." % (rng.randint(0, 11), rng.randint(0, 1)))
        code = rng.choice([94, 95])
        body = ("Contained: SM (0x1). RST: No, D-RST: No" if code == 94 else "Uncontained: FBHUB. RST: Yes, D-RST: No")
        xid(sc, rk, t + 0.001, code, body, intro=False)
        codes = "48+%d" % code
    else:
        xid(sc, rk, t, 48, "An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition %d, subpartition %d." % (rng.randint(0, 7), rng.randint(0, 1)))
        code = rng.choice([63, 64])
        if code == 63:
            body = "Row Remapper: New row (0x%016x) marked for remapping, reset gpu to activate." % rng.randint(0x100000, 0xfffffff)
        else:
            body = "Row Remapper: Failed to remap row (0x%016x): remapping resources exhausted on this bank." % rng.randint(0x100000, 0xfffffff)
        xid(sc, rk, t + 0.002, code, body, intro=False)
        codes = "48+%d" % code
    sc.nvsmi[rk.node.idx] = "ecc:%d:%d" % (g.phys, 1 if code == 64 else 0)
    sc.dcgm[rk.node.idx] = (g.phys, 48)
    te = t + rng.uniform(0.05, 3)
    c = cuda_fail_text(sc, r, te, "uncorrectable ECC error encountered", rng.choice(["python", "watchdog"]))
    sc.set_exit(r, te + 0.2, c, "ecc")
    sc.collateral([r], te)
    sc.init_rank, sc.init_node = r, rk.node
    sc.rank_known = sc.node_known = True
    sc.notes.append("Xid %s (uncorrectable ECC) on %s PCI:%s (= nvidia-smi %s, NCCL busId %s) -> rank %d local %d cuda:%d"
                    % (codes, rk.node.kern_host, g.kern, g.smi, g.nccl, r, rk.lr, rk.cuda))


def c_nvlink(sc):
    J, rng = sc.J, sc.rng
    r = pick_rank(sc)
    rk = J.ranks[r]
    g = rk.gpu
    t = sc.t_fail
    sc.progress(t)
    link = rng.randint(0, 17)
    xid(sc, rk, t, 74, "NVLink: fatal error detected on link %d(0x%x, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0)" % (link, rng.choice([0x10000, 0x20000, 0x8000])))
    if rng.random() < 0.5:
        sw = rng.randint(0, 3)
        sc.kadd(rk.node.idx, t + 0.01, "nvidia-nvswitch%d: SXid (PCI:%s): 20034, Fatal, Link %02d LTSSM Fault Up" % (sw, NVSWITCH_PCI[sw], rng.randint(0, 63)))
        sc.kadd(rk.node.idx, t + 0.011, "nvidia-nvswitch%d: SXid (PCI:%s): 20034, Severity 1 Engine instance %d Sub-engine instance 00" % (sw, NVSWITCH_PCI[sw], rng.randint(0, 63)))
    te = t + rng.uniform(0.05, 4)
    err = "uncorrectable NVLink error was detected during the execution"
    c = cuda_fail_text(sc, r, te, err, rng.choice(["python", "watchdog"]))
    sc.set_exit(r, te + 0.2, c, "nvlink")
    sc.collateral([r], te)
    sc.nvsmi[rk.node.idx] = "nvlink:%d:%d" % (g.phys, link)
    sc.dcgm[rk.node.idx] = (g.phys, 74)
    sc.init_rank, sc.init_node = r, rk.node
    sc.rank_known = sc.node_known = True
    sc.notes.append("Xid 74 on link %d of PCI:%s (%s, nvidia-smi index %d) on %s -> rank %d" % (link, g.kern, g.uuid, g.phys, rk.node.kern_host, r))


def c_network(sc):
    J, rng = sc.J, sc.rng
    ni = rng.randrange(len(J.nodes))
    n = J.nodes[ni]
    t = sc.t_fail
    sc.progress(t)
    net = J.plat["net"]
    nic = rng.choice(n.nics)
    if net in ("IB", "RoCE"):
        if rng.random() < 0.5:
            sc.kadd(ni, t - rng.uniform(1, 20), "mlx5_core %s: mlx5_port_module_event:1131:(pid 0): Port module event[error]: module %d, Cable error, %s"
                    % (nic[1], rng.randint(0, 7), rng.choice(["High Temperature", "Bus stuck (I2C or data shorted)", "Power budget exceeded"])))
        sc.kadd(ni, t, "mlx5_core %s %s: Link down" % (nic[1], nic[2]))
        if net == "IB":
            sc.kadd(ni, t + 0.2, "infiniband %s: ib_cache_update: ib_query_port failed (-110)" % nic[0]) if rng.random() < 0.3 else None
    elif net == "Socket":
        sc.kadd(ni, t, "NETDEV WATCHDOG: %s (gve): transmit queue %d timed out %d ms" % (n.ifname, rng.randint(0, 15), rng.randint(5000, 9000)))
        sc.kadd(ni, t + 0.5, "gve %s %s: Device link is down." % (nic[1], n.ifname))
    else:
        sc.kadd(ni, t, "efa %s: Failed to process command %s (opcode %d) comp_status %d err %d" % (nic[1], rng.choice(["MODIFY_QP", "CREATE_AH"]), rng.randint(1, 20), 5, -5))
    others = [m for m in J.nodes if m.idx != ni]
    py_level = rng.random() < 0.3
    for rk in J.ranks:
        r = rk.r
        if rk.node.idx == ni:
            te = t + rng.uniform(0.5, 14)
            if net in ("IB", "RoCE") and J.nccl_debug:
                sc.nccl_warn(r, te - 0.3, "transport/net_ib.cc:%d" % rng.choice([93, 108]), "NET/IB : %s:1 Got async event : port error" % nic[0])
            peer = rng.choice(others)
            code = sc.remote_err(r, te, peer, py_level)
            sc.set_exit(r, te + rng.uniform(0.05, 0.5), code, "network: local nic down")
        elif rng.random() < 0.65:
            te = t + rng.uniform(2, 25)
            code = sc.remote_err(r, te, n, py_level)
            sc.set_exit(r, te + rng.uniform(0.05, 0.5), code, "network: peer unreachable")
    sc.collateral([x.r for x in n.ranks], t, mode="timeout")
    sc.init_rank, sc.init_node = None, n
    sc.node_known = True
    sc.notes.append("NIC %s (%s, %s) on %s went down; peers name it by IP %s" % (nic[0], nic[1], nic[2], n.kern_host, n.ip))


def c_cuda_oom(sc):
    J, rng = sc.J, sc.rng
    r = pick_rank(sc)
    rk = J.ranks[r]
    t = sc.t_fail
    sc.progress(t)
    tot = float(J.plat["mem"])
    alloc = rng.choice([0.5, 1.0, 2.0, 3.91, 7.81, 15.62])
    free = rng.uniform(0.05, alloc * 0.8)
    used = tot - free
    byp = used - rng.uniform(0.3, 2.5)
    resv = rng.uniform(20, 900)
    if J.new:
        exc = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate %.2f GiB. GPU %d has a total capacity of %.2f GiB of which %.2f GiB is free. "
               "Process %d has %.2f GiB memory in use. Of the allocated memory %.2f GiB is allocated by PyTorch, and %.2f MiB is reserved by PyTorch but "
               "unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid "
               "fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)"
               % (alloc, rk.cuda, tot, free, rk.pid, used, byp, resv))
    else:
        exc = ("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate %.2f GiB. GPU %d has a total capacty of %.2f GiB of which %.2f GiB is free. "
               "Process %d has %.2f GiB memory in use. Of the allocated memory %.2f GiB is allocated by PyTorch, and %.2f MiB is reserved by PyTorch but "
               "unallocated. If reserved but unallocated memory is large try setting max_split_size_mb to avoid fragmentation.  See documentation for "
               "Memory Management and PYTORCH_CUDA_ALLOC_CONF" % (alloc, rk.cuda, tot, free, rk.pid, used, byp, resv))
    sc.add(r, t, sc.pytb(r, sc.frames(rng.choice(["forward", "backward"])), exc))
    sc.pyexc[r] = exc
    sc.set_exit(r, t + rng.uniform(0.3, 2.0), 1, "cuda oom")
    sc.collateral([r], t + 1.0)
    sc.init_rank, sc.init_node = r, rk.node
    sc.rank_known = sc.node_known = True
    sc.notes.append("CUDA OOM on rank %d; message says 'GPU %d' = cuda index inside the process (host GPU %d, %s)" % (r, rk.cuda, rk.gpu.phys, rk.gpu.smi))


def c_illegal_memory_access(sc):
    J, rng = sc.J, sc.rng
    r = pick_rank(sc)
    rk = J.ranks[r]
    t = sc.t_fail
    sc.progress(t)
    variant = rng.choice(["iam", "iam", "assert"])
    if variant == "iam":
        if rng.random() < 0.5:
            xid(sc, rk, t, 31, "Ch %08x, intr 00000000. MMU Fault: ENGINE GRAPHICS GPC%d GPCCLIENT_T1_%d faulted @ 0x7f%s_%s000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_%s"
                % (rng.randint(8, 40), rng.randint(0, 7), rng.randint(0, 15), hx(rng, 2), hx(rng, 5), rng.choice(["READ", "WRITE"])), intro=False)
        else:
            xid(sc, rk, t, 13, "Graphics SM Warp Exception on (GPC %d, TPC %d, SM %d): Out Of Range Address" % (rng.randint(0, 7), rng.randint(0, 8), rng.randint(0, 1)), intro=False)
            xid(sc, rk, t + 0.0001, 13, "Graphics Exception: ESR 0x%x=0x%x 0x%x=0x24 0x%x=0x%x 0x%x=0x174" % (0x514730, rng.randint(0x1000000, 0x2ffffff), 0x514734, 0x514728, rng.randint(0x1000000, 0xfffffff), 0x51472c), intro=False)
        err = "an illegal memory access was encountered"
        te = t + rng.uniform(0.01, 2)
        c = cuda_fail_text(sc, r, te, err, rng.choice(["python", "watchdog"]))
    else:
        kern = rng.choice([("../aten/src/ATen/native/cuda/IndexKernel.cu", 92, "operator()", "-sizes[i] <= index && index < sizes[i] && \"index out of bounds\""),
                           ("../aten/src/ATen/native/cuda/Loss.cu", 250, "nll_loss_forward_reduce_cuda_kernel_2d", "t >= 0 && t < n_classes"),
                           ("../aten/src/ATen/native/cuda/ScatterGatherKernel.cu", 365, "operator()", "idx_dim >= 0 && idx_dim < index_size && \"index out of bounds\"")])
        L = []
        blk = rng.randint(0, 4000)
        for th in sorted(rng.sample(range(0, 128), rng.randint(3, 9))):
            L.append("%s:%d: %s: block: [%d,0,0], thread: [%d,0,0] Assertion `%s` failed." % (kern[0], kern[1], kern[2], blk, th, kern[3]))
        sc.add(r, t, "\n".join(L))
        if rng.random() < 0.6:
            xid(sc, rk, t + 0.01, 43, "Ch %08x" % rng.randint(8, 40), intro=False)
        err = "device-side assert triggered"
        te = t + rng.uniform(0.01, 1)
        c = cuda_fail_text(sc, r, te, err, "python")
    sc.set_exit(r, te + 0.3, c, "illegal memory access")
    sc.collateral([r], te)
    sc.init_rank, sc.init_node = r, rk.node
    sc.rank_known = sc.node_known = True
    sc.notes.append("%s on rank %d (pid %d, %s cuda:%d = %s)" % (err, r, rk.pid, rk.node.hostname, rk.cuda, rk.gpu.kern))


def c_python_exception(sc):
    J, rng = sc.J, sc.rng
    kind = rng.choice(["key", "fnf", "value", "shape", "nan", "nospace"])
    r = 0 if kind == "nospace" else pick_rank(sc)
    rk = J.ranks[r]
    t = sc.t_fail
    sc.progress(t)
    site = J.site
    if kind in ("key", "fnf"):
        inner = ('KeyError: \'%s\'' % rng.choice(["input_ids", "text", "audio", "label"])) if kind == "key" else \
            "FileNotFoundError: [Errno 2] No such file or directory: '/data/%s/train-%05d-of-01024.%s'" % (J.project, rng.randint(0, 1023), rng.choice(["parquet", "tar", "arrow"]))
        ename = inner.split(":")[0]
        exc = ("%s: Caught %s in DataLoader worker process %d.\nOriginal Traceback (most recent call last):\n"
               '  File "%s/torch/utils/data/_utils/worker.py", line 308, in _worker_loop\n'
               "    data = fetcher.fetch(index)  # type: ignore[possibly-undefined]\n"
               '  File "%s/torch/utils/data/_utils/fetch.py", line 52, in fetch\n'
               "    data = [self.dataset[idx] for idx in possibly_batched_index]\n"
               '  File "%s/data.py", line %d, in __getitem__\n'
               "    sample = self._load(self.index[idx])\n%s"
               % (ename, ename, rng.randint(0, 7), site, site, J.workdir, rng.randint(40, 200), inner))
        fr = sc.frames("data")
    elif kind == "value":
        exc = "ValueError: Expected input batch_size (%d) to match target batch_size (%d)." % (16, rng.choice([12, 15, 8]))
        fr = sc.frames("forward")
    elif kind == "shape":
        a = rng.choice([2048, 4096, 1024])
        exc = "RuntimeError: The size of tensor a (%d) must match the size of tensor b (%d) at non-singleton dimension 1" % (a, a + 1)
        fr = sc.frames("forward")
    elif kind == "nan":
        exc = "AssertionError: non-finite loss on rank %d at step %d: nan" % (r, sc.step_at(t))
        fr = sc.frames("item")
    else:
        exc = "OSError: [Errno 28] No space left on device"
        fr = sc.frames("item")[:2] + [(J.workdir + "/" + J.script, 312, "train", "save_checkpoint(model, optimizer, step, cfg.ckpt_dir)"),
                                      (J.workdir + "/ckpt.py", 58, "save_checkpoint", "torch.save(state, tmp_path)"),
                                      (site + "/torch/serialization.py", 652, "save", "with _open_zipfile_writer(f) as opened_zipfile:")]
    if J.flavor != "megatron" and J.layout == "host_pid_files":
        sc.add(r, t - 0.01, sc.app(r, t - 0.01, "ERROR", "%s:255" % J.script, "unhandled exception in training loop at step %d" % sc.step_at(t)), "app")
    sc.add(r, t, sc.pytb(r, fr, exc))
    sc.pyexc[r] = exc
    sc.set_exit(r, t + rng.uniform(0.3, 2.5), 1, "python exception")
    sc.collateral([r], t + 1.0)
    sc.init_rank, sc.init_node = r, rk.node
    sc.rank_known = sc.node_known = True
    sc.notes.append("uncaught %s on rank %d (%s local %d)" % (exc.split(":")[0], r, rk.node.hostname, rk.lr))


def c_host_oom_kill(sc):
    J, rng = sc.J, sc.rng
    r = pick_rank(sc)
    rk = J.ranks[r]
    n = rk.node
    t = sc.t_fail
    sc.progress(t)
    if J.layout == "k8s_pods" and rng.random() < 0.6:
        # container memory limit: cgroup OOM, the whole container is killed (memory.oom.group)
        lim = rng.choice([400, 512, 768, 900]) * 1024 * 1024
        oom_block(sc, n.idx, t, rk.hpid, pname_of(sc, rk), memcg_for(sc, rk), True, lim)
        for o in n.ranks:
            if o.r != r:
                sc.kadd(n.idx, t + 0.01 + o.lr * 0.001, "Memory cgroup out of memory: Killed process %d (%s) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:0kB, UID:0 pgtables:%dkB oom_score_adj:%d"
                        % (o.hpid, pname_of(sc, o), rng.randint(10 ** 8, 4 * 10 ** 8), rng.randint(10 ** 7, 6 * 10 ** 7), rng.randint(10 ** 5, 10 ** 6), rng.randint(10 ** 4, 10 ** 5), rng.choice([0, 999])))
        sc.ext.append(dict(t=t + 0.05, nodes=[n.idx], sig=9, agent=False, reason="OOMKilled"))
        sc.collateral([x.r for x in n.ranks], t + 0.05)
        sc.init_rank, sc.init_node = None, n
        sc.node_known = True
        sc.notes.append("pod %s hit its memory limit; container OOMKilled (exit 137) on node %s" % (n.pod, n.sched))
        return
    variant = rng.choice(["main", "worker"])
    cg = J.layout in ("slurm_task_files", "combined_megatron", "host_pid_files") and rng.random() < 0.7
    memkb = rng.randint(900, 2000) * 1024 * 1024
    if variant == "main":
        oom_block(sc, n.idx, t, rk.hpid, pname_of(sc, rk), memcg_for(sc, rk), cg, memkb)
        sc.set_exit(r, t + 0.01, -9, "oom killed")
        sc.collateral([r], t + 0.01)
        what = "main process pid %d" % rk.hpid
    else:
        off = rng.randint(100, 3000)
        wpid = rk.pid + off
        oom_block(sc, n.idx, t, rk.hpid + off, "pt_data_worker", memcg_for(sc, rk), cg, memkb)
        te = t + rng.uniform(0.5, 5)
        exc = ("RuntimeError: DataLoader worker (pid(s) %d) exited unexpectedly" % wpid)
        first = sc.pytb(r, [(J.site + "/torch/utils/data/dataloader.py", 1133, "_try_get_data", "data = self._data_queue.get(timeout=timeout)"),
                            ("/usr/lib/python%s/multiprocessing/queues.py" % J.pyver, 113, "get", "if not self._poll(timeout):"),
                            ("/usr/lib/python%s/multiprocessing/connection.py" % J.pyver, 257, "poll", "return self._poll(timeout)"),
                            ("/usr/lib/python%s/multiprocessing/connection.py" % J.pyver, 440, "_poll", "r = wait([self], timeout)"),
                            ("/usr/lib/python%s/selectors.py" % J.pyver, 416, "select", "fd_event_list = self._selector.poll(timeout)"),
                            (J.site + "/torch/utils/data/_utils/signal_handling.py", 67, "handler", "_error_if_any_worker_fails()")],
                         "RuntimeError: DataLoader worker (pid %d) is killed by signal: Killed. " % wpid)
        fr = sc.frames("data")[:-3] + [(J.site + "/torch/utils/data/dataloader.py", 1284, "_get_data", "success, data = self._try_get_data()"),
                                        (J.site + "/torch/utils/data/dataloader.py", 1146, "_try_get_data", "raise RuntimeError(f'DataLoader worker (pid(s) {pids_str}) exited unexpectedly') from e")]
        second = sc.pytb(r, fr, exc)
        glue = "\n".join((("[rank%d]: " % r) if J.new else "") + x for x in ["", "The above exception was the direct cause of the following exception:", ""])
        sc.add(r, te, first + "\n" + glue + "\n" + second)
        sc.pyexc[r] = exc
        sc.set_exit(r, te + 0.3, 1, "dataloader worker oom killed")
        sc.collateral([r], te + 0.3)
        what = "DataLoader worker pid %d (child of rank %d pid %d)" % (wpid, r, rk.pid)
    if cg and J.layout != "torchrun_logdir":
        sc.sched.append(dict(kind="slurm_oom", t=t + 1, node=n.idx, task=r))
    sc.init_rank, sc.init_node = r, n
    sc.rank_known = sc.node_known = True
    sc.notes.append("kernel %s OOM killer on %s killed %s" % ("cgroup" if cg else "global", n.kern_host, what))


def c_crash_signal(sc):
    J, rng = sc.J, sc.rng
    r = pick_rank(sc)
    rk = J.ranks[r]
    t = sc.t_fail
    sc.progress(t)
    if rng.random() < 0.6:
        thr = "0x00007f%s" % hx(rng, 10)
        L = ["Fatal Python error: Segmentation fault", "",
             "Thread 0x00007f%s (most recent call first):" % hx(rng, 10),
             '  File "/usr/lib/python%s/threading.py", line 324 in wait' % J.pyver,
             '  File "/usr/lib/python%s/threading.py", line 607 in wait' % J.pyver,
             '  File "%s/tqdm/_monitor.py", line 60 in run' % J.site,
             '  File "/usr/lib/python%s/threading.py", line 1016 in _bootstrap_inner' % J.pyver, "",
             "Current thread %s (most recent call first):" % thr,
             '  File "%s/torch/autograd/graph.py", line 768 in _engine_run_backward' % J.site,
             '  File "%s/torch/autograd/__init__.py", line 289 in backward' % J.site,
             '  File "%s/torch/_tensor.py", line 521 in backward' % J.site,
             '  File "%s/%s", line %d in train' % (J.workdir, J.script, rng.randint(150, 290)),
             '  File "%s/%s", line %d in main' % (J.workdir, J.script, rng.randint(300, 370)),
             '  File "%s/%s", line %d in <module>' % (J.workdir, J.script, rng.randint(380, 520)), "",
             "Extension modules: numpy.core._multiarray_umath, numpy.core._multiarray_tests, numpy.linalg._umath_linalg, torch._C, "
             "torch._C._fft, torch._C._linalg, torch._C._nested, torch._C._nn, torch._C._sparse, torch._C._special, "
             "%s (total: %d)" % (rng.choice(["flash_attn_2_cuda", "apex_C, fused_layer_norm_cuda", "transformer_engine_torch"]), rng.randint(30, 70))]
        sc.add(r, t, "\n".join(L))
        lib = rng.choice(["libtorch_cuda.so", "libnccl.so.2", "flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so", "libc.so.6"])
        base = 0x7f0000000000 + rng.randint(0, 0xfffffff) * 0x1000
        size = rng.randint(0x100, 0x4000) * 0x1000
        ip = base + rng.randint(0x1000, size - 0x1000)
        sc.kadd(rk.node.idx, t + 0.01, "%s[%d]: segfault at %x ip %016x sp 00007ff%s error %d in %s[%x+%x] likely on CPU %d (core %d, socket %d)"
                % (pname_of(sc, rk), rk.hpid, rng.choice([0, 8, 0x10, 0x7f0]), ip, hx(rng, 9), rng.choice([4, 6]), lib,
                   base, size, rng.randint(0, 127), rng.randint(0, 63), rng.randint(0, 1)))
        sc.set_exit(r, t + 0.05, -11, "segfault")
        what = "SIGSEGV in %s" % lib
    else:
        msg = rng.choice(["free(): invalid pointer", "double free or corruption (!prev)", "corrupted size vs. prev_size",
                          "malloc(): unaligned tcache chunk detected"])
        sc.add(r, t, msg)
        sc.set_exit(r, t + 0.02, -6, "abort")
        what = "glibc abort: %s" % msg
    sc.collateral([r], t + 0.05)
    sc.init_rank, sc.init_node = r, rk.node
    sc.rank_known = sc.node_known = True
    sc.notes.append("rank %d (pid %d on %s) died: %s" % (r, rk.pid, rk.node.hostname, what))


def c_preemption(sc):
    J, rng = sc.J, sc.rng
    t = sc.t_fail
    sc.progress(t)
    if J.layout == "k8s_pods" and rng.random() < 0.7:
        n = rng.choice(J.nodes)
        sc.ext.append(dict(t=t, nodes=[n.idx], sig=15, agent=True, reason="NodeShutdown"))
        sc.sched.append(dict(kind="k8s_node_shutdown", t=t, node=n.idx))
        sc.kadd(n.idx, t - 1.0, "ACPI: button: Power Button [PWRF] pressed") if rng.random() < 0.3 else None
        sc.collateral([x.r for x in n.ranks], t + 2)
        sc.init_rank, sc.init_node = None, n
        sc.node_known = True
        sc.notes.append("spot node %s reclaimed; pod %s terminated by graceful node shutdown" % (n.sched, n.pod))
    elif J.layout == "k8s_pods":
        sc.ext.append(dict(t=t, nodes=[x.idx for x in J.nodes], sig=15, agent=True, reason="Preempted"))
        sc.sched.append(dict(kind="k8s_preempted", t=t))
        sc.notes.append("workload preempted by a higher-priority workload (all pods SIGTERMed)")
    elif J.layout == "torchrun_logdir":
        n = rng.choice(J.nodes)
        sc.ext.append(dict(t=t, nodes=[n.idx], sig=15, agent=True, reason="GCEPreempted"))
        sc.sched.append(dict(kind="gce_preempt", t=t, node=n.idx))
        sc.collateral([x.r for x in n.ranks], t + 2)
        sc.init_rank, sc.init_node = None, n
        sc.node_known = True
        sc.notes.append("VM %s (instance in %s) preempted by the cloud; its torchrun got SIGTERM" % (n.hostname, J.gce_zone if J.gce else "lab"))
    else:
        reason = rng.choice(["PREEMPTION", "PREEMPTION", "TIME LIMIT"])
        sc.ext.append(dict(t=t, nodes=[x.idx for x in J.nodes], sig=15, agent=True, reason=reason))
        sc.sched.append(dict(kind="slurm_cancel", t=t, reason=reason))
        sc.notes.append("Slurm cancelled the job DUE TO %s" % reason)


def c_hang(sc):
    J, rng = sc.J, sc.rng
    r = pick_rank(sc)
    rk = J.ranks[r]
    t = sc.t_fail
    sc.progress(t)
    seq = sc.seq_at(t) + 1
    sc.stuck.append(r)
    sc.silent_init = True
    sc.collateral([r], t, mode="timeout", seq=seq)
    if J.new and rng.random() < 0.6:
        tg = t + J.timeout_s + rng.uniform(2, 6)
        sc.add(r, tg, sc.c10(r, tg, "E", "ProcessGroupNCCL.cpp", J.st["l_exc"] - 240,
                             "%s Received a global timeout from another rank and will start to dump the debug info. Last enqueued NCCL work: %d, last completed NCCL work: %d."
                             % (J.st["pg"] % r, seq - 1, seq - 1)))
    where = rng.choice(["lock", "sync", "io"])
    if rng.random() < 0.5:
        sc.pyspy.append((r, t + J.timeout_s + rng.uniform(60, 900), where))
    sc.init_rank, sc.init_node = r, rk.node
    sc.rank_known = sc.node_known = True
    sc.notes.append("rank %d stopped issuing collectives before SeqNum %d; all others time out waiting in it" % (r, seq))


def c_data_loader_stall(sc):
    J, rng = sc.J, sc.rng
    r = pick_rank(sc)
    rk = J.ranks[r]
    n = rk.node
    t = sc.t_fail
    sc.progress(t)
    seq = sc.seq_at(t) + 1
    variant = rng.choice(["timeout_exc", "stuck", "stuck"])
    fs = rng.choice(["nfs", "lustre"])
    wpid = rk.hpid + rng.randint(100, 3000)
    if fs == "nfs":
        srv = rng.choice(["nfs-01", "filer2", "datastore"]) + "." + (n.fqdn.split(".", 1)[1] if "." in n.fqdn else "cluster.local")
        for k in range(rng.randint(2, 4)):
            sc.kadd(n.idx, t + 20 + k * rng.uniform(30, 90), "nfs: server %s not responding, still trying" % srv)
    else:
        ost = "%s-OST%04x" % (rng.choice(["scratch", "lustre1", "data"]), rng.randint(0, 80))
        osc = "%s-osc-ffff%s" % (ost, hx(rng, 12))
        nid = "10.%d.0.%d@o2ib" % (rng.randint(10, 90), rng.randint(2, 200))
        sc.kadd(n.idx, t + 5, "LustreError: 11-0: %s: operation ost_read to node %s failed: rc = -110" % (osc, nid))
        sc.kadd(n.idx, t + 5.2, "Lustre: %s: Connection to %s (at %s) was lost; in progress operations using this service will wait for recovery to complete" % (osc, ost, nid))
    sc.kadd(n.idx, t + 125, "INFO: task pt_data_worker:%d blocked for more than 122 seconds." % wpid)
    sc.kadd(n.idx, t + 125.0001, "      Tainted: P           OE     5.15.0-%d-generic #%d-Ubuntu" % (rng.randint(90, 130), rng.randint(95, 140)))
    sc.kadd(n.idx, t + 125.0002, "\"echo 0 > /proc/sys/kernel/hung_task_timeout_secs\" disables this message.")
    sc.kadd(n.idx, t + 125.0003, "task:pt_data_worker  state:D stack:0     pid:%d  ppid:%d  flags:0x00004002" % (wpid, rk.hpid))
    if rng.random() < 0.6 and J.flavor != "megatron":
        for k in range(1, rng.randint(3, 6)):
            tw = t + 120 * k
            sc.add(r, tw, sc.app(r, tw, "WARNING", "data:88", "rank %d still waiting for batch %d from DataLoader (%ds, %d/%d workers alive)"
                                 % (r, sc.step_at(t) + 1, 120 * k, 8, 8)), "app")
    if variant == "timeout_exc":
        to = rng.choice([300, 300, 600]) if J.timeout_s > 600 else 300
        te = t + to
        exc = "RuntimeError: DataLoader timed out after %d seconds" % to
        fr = sc.frames("data")[:-3] + [(J.site + "/torch/utils/data/dataloader.py", 1328, "_next_data", "idx, data = self._get_data()"),
                                        (J.site + "/torch/utils/data/dataloader.py", 1284, "_get_data", "success, data = self._try_get_data()"),
                                        (J.site + "/torch/utils/data/dataloader.py", 1146, "_try_get_data", "raise RuntimeError(f'DataLoader timed out after {self._timeout} seconds') from e")]
        sc.add(r, te, sc.pytb(r, fr, exc))
        sc.pyexc[r] = exc
        sc.set_exit(r, te + 0.4, 1, "dataloader timeout")
        sc.collateral([r], t, mode="timeout", seq=seq)
    else:
        sc.stuck.append(r)
        sc.silent_init = True
        sc.kernel_node_evidence = True
        sc.collateral([r], t, mode="timeout", seq=seq)
        if rng.random() < 0.6:
            sc.pyspy.append((r, t + J.timeout_s + rng.uniform(60, 600), "data"))
    sc.init_rank, sc.init_node = r, n
    sc.rank_known = sc.node_known = True
    sc.notes.append("rank %d blocked in DataLoader (%s I/O stall on %s, host worker pid %d ppid %d)" % (r, fs, n.kern_host, wpid, rk.hpid))


def fingerprint(seq, op, shape):
    return ("CollectiveFingerPrint(SequenceNumber=%d, OpType=%s, TensorShape=[%s], TensorDtypes=Float, "
            "TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda, layout=Strided (default), requires_grad=false (default), "
            "pinned_memory=false (default), memory_format=(nullopt)))" % (seq, op, shape))


def c_collective_mismatch(sc):
    J, rng = sc.J, sc.rng
    r = pick_rank(sc)
    rk = J.ranks[r]
    t = sc.t_fail
    sc.progress(t)
    seq = sc.seq_at(t) + 1
    good_op = "ALLREDUCE"
    bad_op = rng.choice(["BROADCAST", "ALLGATHER", "REDUCE_SCATTER"])
    shape_good = str(sc.numel if sc.numel < 10 ** 7 else 1024)
    shape_bad = str(rng.choice([1, 3, 16]))
    if rng.random() < 0.45:
        for o in J.ranks:
            te = t + rng.uniform(0.05, 2.5)
            if o.r == r:
                other = 0 if r != 0 else 1
                msg = "Detected mismatch between collectives on ranks. Rank %d is running collective: %s, but Rank %d is running collective: %s." % (
                    r, fingerprint(seq, bad_op, shape_bad), other, fingerprint(seq, good_op, shape_good))
            else:
                msg = "Detected mismatch between collectives on ranks. Rank %d is running collective: %s, but Rank %d is running collective: %s." % (
                    o.r, fingerprint(seq, good_op, shape_good), r, fingerprint(seq, bad_op, shape_bad))
            sc.add(o.r, te, sc.pytb(o.r, sc.frames("allreduce"), "RuntimeError: " + msg))
            sc.pyexc[o.r] = "RuntimeError: " + msg
            sc.set_exit(o.r, te + rng.uniform(0.2, 1.0), 1, "collective fingerprint mismatch")
        how = "TORCH_DISTRIBUTED_DEBUG=DETAIL fingerprint check"
    else:
        for o in J.ranks:
            t0 = t - rng.uniform(0, 0.3)
            te = t0 + J.timeout_s + rng.uniform(0.02, 1.0)
            if o.r == r:
                sc.add(o.r, te, sc.wd_timeout(o.r, te, seq, bad_op, int(shape_bad), int((te - t0) * 1000)))
            else:
                sc.add(o.r, te, sc.wd_timeout(o.r, te, seq, good_op, sc.numel, int((te - t0) * 1000)))
            sc.set_exit(o.r, te + sc.abort_delay(), -6, "watchdog timeout (mismatched op)")
        sc.mismatch_check = (r, bad_op)
        how = "watchdog timeouts: rank %d waits in %s while everyone else waits in %s at SeqNum %d" % (r, bad_op, good_op, seq)
    sc.init_rank, sc.init_node = r, rk.node
    sc.rank_known = sc.node_known = True
    sc.notes.append("rank %d issued %s instead of %s (%s)" % (r, bad_op, good_op, how))


def c_straggler(sc):
    J, rng = sc.J, sc.rng
    r = pick_rank(sc)
    rk = J.ranks[r]
    n = rk.node
    t_s = sc.t_train0 + (sc.t_fail - sc.t_train0) * rng.uniform(0.2, 0.6)
    factor = rng.uniform(1.35, 2.4)
    cause = rng.choice(["thermal", "thermal", "pcie", "cpu"])
    sc.progress(t_s)
    sc.slow = {"factor": factor}
    # after t_s everything runs at the straggler's pace
    saved_t0, saved_rs, saved_step = sc.t_train0, sc.resume_step, sc.step_s
    s_at = sc.step_at(t_s)
    sc.t_train0, sc.resume_step, sc.step_s = t_s, s_at, saved_step * factor
    t_end = t_s + (sc.t_fail - t_s) * rng.uniform(1.2, 2.0)
    sc.progress(t_end, slow_rank=r)
    # per-rank timing lines
    if J.flavor == "megatron":
        k = 0
        tt = t_s + 60
        while tt < t_end and k < 25:
            mn = saved_step * 1000 * rng.uniform(0.98, 1.01)
            mx = mn * factor * rng.uniform(0.97, 1.03)
            fast = rng.choice([x for x in range(J.W) if x != r])
            line = ("[%s] | MnRtt/Rnk: %.2fms/%d | MxRtt/Rnk: %.2fms/%d | MnPwr/Rnk: %dW/%d | MxPwr/Rnk: %dW/%d | MnTmp/Rnk: %dC/%d | MxTmp/Rnk: %dC/%d | "
                    "MnUtl/Rnk: %d%%/%d | MxUtl/Rnk: %d%%/%d | MnClk/Rnk: %dMHz/%d | MxClk/Rnk: %dMHz/%d | MnDRtt/Rnk: %.2fms/%d | MxDRtt/Rnk: %.2fms/%d | "
                    "MnEtpt/Rnk: %.2fTF/%d | MxEtpt/Rnk: %.2fTF/%d"
                    % (_d(sc.lt(0, tt)).strftime("%Y-%m-%d %H:%M:%S"), mn, fast, mx, r,
                       rng.randint(300, 420) if cause == "thermal" else rng.randint(560, 620), r, rng.randint(640, 700), fast,
                       rng.randint(38, 48), fast, rng.randint(86, 93) if cause == "thermal" else rng.randint(55, 66), r if cause == "thermal" else fast,
                       rng.randint(93, 97), fast, 100, r,
                       rng.randint(1100, 1400) if cause == "thermal" else 1980, r if cause == "thermal" else fast, 1980, fast,
                       rng.uniform(1, 4), rng.choice([x for x in range(J.W) if x != r]), rng.uniform(100, 900) if cause == "cpu" else rng.uniform(5, 40), r,
                       rng.uniform(160, 260) / factor, r, rng.uniform(380, 420), fast))
            sc.add(0, tt, "INFO:megatron.core.utils:" + line, "err")
            tt += rng.uniform(200, 600)
            k += 1
    else:
        tt = t_s + 120
        k = 0
        while tt < t_end and k < 8:
            for o in J.ranks:
                comp = saved_step * 1000 * rng.uniform(0.55, 0.62)
                if o.r == r:
                    if cause != "cpu":
                        comp *= factor * 1.1
                    wait = rng.uniform(3, 25)
                else:
                    wait = saved_step * 1000 * (factor - 1) * rng.uniform(0.9, 1.05) + comp * 0.2
                data = rng.uniform(1, 8) if not (cause == "cpu" and o.r == r) else saved_step * 1000 * (factor - 1) * rng.uniform(0.95, 1.1)
                sc.add(o.r, tt + rng.uniform(0, 2), sc.app(o.r, tt, "INFO", "timing:31", "[rank %d] step %d: compute %.0f ms | collective wait %.0f ms | data %.0f ms"
                                                           % (o.r, sc.step_at(tt), comp, wait, data)), "app")
            tt += rng.uniform(600, 1800)
            k += 1
    if cause == "thermal":
        sc.nvsmi[n.idx] = "thermal:%d" % rk.gpu.phys
        sc.dcgm[n.idx] = ("throttle", rk.gpu.phys)
    elif cause == "pcie":
        sc.nvsmi[n.idx] = "pcie:%d" % rk.gpu.phys
        sc.kadd(n.idx, t_s - 5, "pcieport %s: PCIe Bus Error: severity=Corrected, type=Physical Layer, (Receiver ID)" % ("0000:%02x:01.0" % (int(rk.gpu.bus, 16) - 1)))
        sc.kadd(n.idx, t_s - 4.9, "nvidia %s: 8.000 Gb/s available PCIe bandwidth, limited by 2.5 GT/s PCIe x4 link at %s (capable of 504.112 Gb/s with 32.0 GT/s PCIe x16 link)"
                % (rk.gpu.full, "0000:%02x:01.0" % (int(rk.gpu.bus, 16) - 1)))
    else:
        sc.kadd(n.idx, t_s + 3, "mce: CPU%d: Package temperature above threshold, cpu clock throttled (total events = %d)" % (rng.randint(0, 95), rng.randint(100, 90000)))
    sc.t_train0, sc.resume_step, sc.step_s = saved_t0, saved_rs, saved_step
    if rng.random() < 0.5 or J.layout == "torchrun_logdir":
        sc.ext.append(dict(t=t_end, nodes=[x.idx for x in J.nodes], sig=15, agent=True, reason="UserCancel"))
        sc.sched.append(dict(kind="user_cancel", t=t_end))
        outcome = "job cancelled by the user after slowdown"
    else:
        sc.ext.append(dict(t=t_end, nodes=[x.idx for x in J.nodes], sig=15, agent=True, reason="TIME LIMIT"))
        sc.sched.append(dict(kind="slurm_cancel", t=t_end, reason="TIME LIMIT") if J.layout != "k8s_pods" else dict(kind="k8s_deadline", t=t_end))
        outcome = "job ran out of its time limit because of the slowdown"
    sc.init_rank, sc.init_node = r, n
    sc.rank_known = sc.node_known = True
    sc.notes.append("rank %d (%s, %s) %.2fx slower from step %d (%s); %s" % (r, n.hostname, rk.gpu.smi, factor, s_at, cause, outcome))


def c_unknown(sc):
    J, rng = sc.J, sc.rng
    t = sc.t_fail
    sc.progress(t)
    v = rng.choice(["silent_exit", "sigkill_node", "all_timeout"])
    if v == "silent_exit":
        r = pick_rank(sc)
        sc.set_exit(r, t, 1, "exited without output")
        sc.silent = r
        sc.collateral([r], t)
        sc.notes.append("rank %d exited 1 with nothing printed (its log is empty/cut); cause not visible" % r)
    elif v == "sigkill_node":
        n = rng.choice(J.nodes)
        sc.ext.append(dict(t=t, nodes=[n.idx], sig=9, agent=False, reason="unknown"))
        sc.collateral([x.r for x in n.ranks], t)
        sc.notes.append("all processes on %s got SIGKILL; no kernel/scheduler evidence of why" % n.hostname)
    else:
        seq = sc.seq_at(t) + 1
        for o in J.ranks:
            t0 = t - rng.uniform(0, 0.3)
            te = t0 + J.timeout_s + rng.uniform(0.02, 1.0)
            sc.add(o.r, te, sc.wd_timeout(o.r, te, seq, sc.op, sc.numel, int((te - t0) * 1000)))
            sc.set_exit(o.r, te + sc.abort_delay(), -6, "watchdog timeout")
        sc.notes.append("every rank timed out in the same collective (SeqNum %d); nobody is missing" % seq)
    sc.init_rank = sc.init_node = None


CAUSE_FN = {
    "gpu_hardware": c_gpu_hardware, "ecc_memory": c_ecc_memory, "nvlink": c_nvlink, "network": c_network,
    "cuda_oom": c_cuda_oom, "illegal_memory_access": c_illegal_memory_access, "python_exception": c_python_exception,
    "host_oom_kill": c_host_oom_kill, "crash_signal": c_crash_signal, "preemption": c_preemption, "hang": c_hang,
    "data_loader_stall": c_data_loader_stall, "collective_mismatch": c_collective_mismatch, "straggler": c_straggler,
    "unknown": c_unknown,
}


# ----------------------------------------------------------------------------
# launchers: who killed whom, and what the launcher printed
# ----------------------------------------------------------------------------
INF = float("inf")


def status_text(sc, code):
    if code > 0:
        return "Exited with exit code %d" % code
    s = -code
    if s == 6:
        return "Aborted (core dumped)" if sc.abort_core else "Aborted"
    if s == 11:
        return "Segmentation fault (core dumped)" if sc.abort_core else "Segmentation fault"
    return SIGTEXT.get(s, "Signal %d" % s)


def elog(sc, n, t, level, mod, line, msg):
    J = sc.J
    tl = sc.ntl(n.idx, t)
    if J.st["elog"] == "old":
        return "[%s] torch.distributed.%s: [%s] %s" % (f_py(tl), mod, level, msg)
    return "%s%s %d torch/distributed/%s.py:%d] %s" % (level[0], f_glogpy(tl), n.agent_pid, mod.replace(".", "/"), line, msg)


def torchrun_tb(sc, tail):
    J = sc.J
    site = J.site
    tr = "/usr/local/bin/torchrun" if site.startswith("/usr/local") else J.pybin.rsplit("/", 1)[0] + "/torchrun"
    L = ["Traceback (most recent call last):",
         '  File "%s", line 8, in <module>' % tr, "    sys.exit(main())",
         '  File "%s/torch/distributed/elastic/multiprocessing/errors/__init__.py", line 348, in wrapper' % site,
         "    return f(*args, **kwargs)",
         '  File "%s/torch/distributed/run.py", line 901, in main' % site, "    run(args)",
         '  File "%s/torch/distributed/run.py", line 892, in run' % site, "    elastic_launch(",
         '  File "%s/torch/distributed/launcher/api.py", line 133, in __call__' % site,
         "    return launch_agent(self._config, self._entrypoint, list(args))"]
    return "\n".join(L + tail)


def failure_entry(sc, idx, rk, t, code):
    J = sc.J
    tl = sc.ntl(rk.node.idx, t)
    if code > 0:
        if sc.record and rk.r in sc.pyexc:
            ef = "%s/attempt_0/%d/error.json" % (rk.node.tr_dir, rk.lr)
            tb = "Traceback (most recent call last):\n    ...\n  " + sc.pyexc[rk.r].split("\n")[0][:300]
        else:
            ef = "<N/A>"
            tb = "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"
    else:
        ef = "<N/A>"
        tb = "Signal %d (%s) received by PID %d" % (-code, SIGNAMES.get(-code, "SIG%d" % -code), rk.pid)
    return ["[%d]:" % idx,
            "  time      : %s" % f_tr(tl),
            "  host      : %s" % rk.node.fqdn,
            "  rank      : %d (local_rank: %d)" % (rk.r, rk.lr),
            "  exitcode  : %d (pid: %d)" % (code, rk.pid),
            "  error_file: %s" % ef,
            "  traceback : %s" % tb]


def agent_startup(sc, n):
    J = sc.J
    rng = sc.rng
    t = J.T0 + rng.uniform(1, 6)
    out = []
    star = "*****************************************"
    for i, m in enumerate(["", star, "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, "
                                     "please further tune the variable for optimal performance in your application as needed. ", star]):
        out.append((t + i * 0.0001, elog(sc, n, t, "WARNING", "run", 793, m)))
    if J.loglevel_info:
        t2 = t + 0.3
        out.append((t2, elog(sc, n, t2, "INFO", "launcher.api", 188, "Starting elastic_operator with launch configs:\n  entrypoint       : %s\n  min_nodes        : %d\n  max_nodes        : %d\n"
                                                                    "  nproc_per_node   : %d\n  run_id           : %s\n  rdzv_backend     : c10d\n  rdzv_endpoint    : %s:%d\n  max_restarts     : 0\n  monitor_interval : %s\n  log_dir          : %s\n"
                                                                    % (J.script, len(J.nodes), len(J.nodes), J.gpn, getattr(J, "run_id", "none"), sc.master.hostname, sc.port,
                                                                       "0.1" if J.new else "5", getattr(J, "logdir_base", "None")))))
        t3 = sc.t_start - 1.0 + rng.uniform(-0.5, 0.5)
        gr = [rk.r for rk in n.ranks]
        out.append((t3, elog(sc, n, t3, "INFO", "elastic.agent.server.api", 525,
                             "[default] Rendezvous complete for workers. Result:\n  restart_count=0\n  master_addr=%s\n  master_port=%d\n  group_rank=%d\n"
                             "  group_world_size=%d\n  local_ranks=%s\n  role_ranks=%s\n  global_ranks=%s\n  role_world_sizes=%s\n  global_world_sizes=%s\n"
                             % (sc.master.fqdn, sc.port + 1 if J.layout == "torchrun_logdir" else sc.port, n.idx, len(J.nodes),
                                "[%s]" % ", ".join(str(rk.lr) for rk in n.ranks), "[%s]" % ", ".join(str(x) for x in gr),
                                "[%s]" % ", ".join(str(x) for x in gr), "[%s]" % ", ".join([str(J.W)] * J.gpn),
                                "[%s]" % ", ".join([str(J.W)] * J.gpn)))))
        out.insert(-1, (t2 + 0.2, elog(sc, n, t2 + 0.2, "INFO", "elastic.agent.server.local_elastic_agent", 236, "log directory set to: %s" % n.tr_dir)))
        out.append((t3 + 0.01, elog(sc, n, t3 + 0.01, "INFO", "elastic.agent.server.api", 531, "[default] Starting worker group")))
        for rk in n.ranks:
            out.append((t3 + 0.02, elog(sc, n, t3 + 0.02, "INFO", "elastic.multiprocessing", 140,
                                        "Setting worker%d reply file to: %s/attempt_0/%d/error.json" % (rk.lr, n.tr_dir, rk.lr))))
    return out


def resolve_torchrun_node(sc, n, ext):
    """Fill sc.final for n's ranks; return (agent exit time, agent exit code, lines)."""
    J = sc.J
    rng = sc.rng
    lines = []
    nat = sorted((sc.exit[rk.r][0], rk.r, sc.exit[rk.r][1]) for rk in n.ranks if rk.r in sc.exit)
    bad = [x for x in nat if x[2] != 0]
    t_bad = bad[0][0] if bad else INF
    if ext is not None and ext["t"] < t_bad:
        te = ext["t"]
        for rk in n.ranks:
            if rk.r in sc.exit and sc.exit[rk.r][0] <= te:
                sc.final[rk.r] = (sc.exit[rk.r][0], sc.exit[rk.r][1], "self")
            else:
                sc.final[rk.r] = (te + (rng.uniform(0.05, 0.6) if ext["agent"] else 0.0), -ext["sig"], "ext" if not ext["agent"] else "agent")
        if not ext["agent"]:
            return te, -ext["sig"], lines
        lines.append((te, elog(sc, n, te, "WARNING", "elastic.agent.server.api", 704, "Received Signals.SIGTERM death signal, shutting down workers")))
        for rk in n.ranks:
            if sc.final[rk.r][2] == "agent":
                lines.append((te + 0.001, elog(sc, n, te + 0.001, "WARNING", "elastic.multiprocessing.api", 897, "Sending process %d closing signal SIGTERM" % rk.pid)))
        ta = te + rng.uniform(0.5, 3)
        tb = torchrun_tb(sc, [
            '  File "%s/torch/distributed/launcher/api.py", line 255, in launch_agent' % J.site, "    result = agent.run()",
            '  File "%s/torch/distributed/elastic/agent/server/api.py", line 680, in run' % J.site, "    result = self._invoke_run(role)",
            '  File "%s/torch/distributed/elastic/agent/server/api.py", line 829, in _invoke_run' % J.site, "    time.sleep(monitor_interval)",
            '  File "%s/torch/distributed/elastic/multiprocessing/api.py", line 79, in _terminate_process_handler' % J.site,
            '    raise SignalException(f"Process {os.getpid()} got signal: {sigval}", sigval=sigval)',
            "torch.distributed.elastic.multiprocessing.api.SignalException: Process %d got signal: 15" % n.agent_pid])
        lines.append((ta, tb))
        return ta, 1, lines
    if bad:
        t1 = bad[0][0]
        tdet = t1 + rng.uniform(0.0, J.st["mon"]) + 0.02
        failed = [x for x in bad if x[0] <= tdet]
        fset = [x[1] for x in failed]
        for t, r, c in nat:
            if t <= tdet:
                sc.final[r] = (t, c, "self")
        for rk in n.ranks:
            if rk.r not in sc.final:
                sc.final[rk.r] = (tdet + rng.uniform(0.05, 0.8), -15, "agent")
                lines.append((tdet, elog(sc, n, tdet, "WARNING", "elastic.multiprocessing.api", 897, "Sending process %d closing signal SIGTERM" % rk.pid)))
        rt, rr, rc = failed[0]
        rk0 = J.ranks[rr]
        ta = tdet + rng.uniform(0.9, 3.5)
        lines.append((ta - 0.2, elog(sc, n, ta - 0.2, "ERROR", "elastic.multiprocessing.api", 869,
                                     "failed (exitcode: %d) local_rank: %d (pid: %d) of binary: %s" % (rc, rk0.lr, rk0.pid, J.pybin))))
        body = ["torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
                "============================================================",
                "%s FAILED" % (J.script if J.flavor != "megatron" else "pretrain_gpt.py"),
                "------------------------------------------------------------",
                "Failures:"]
        others = failed[1:]
        if not others:
            body.append("  <NO_OTHER_FAILURES>")
        for i, (t, r, c) in enumerate(others):
            body.extend(failure_entry(sc, i + 1, J.ranks[r], t, c))
        body.append("------------------------------------------------------------")
        body.append("Root Cause (first observed failure):")
        body.extend(failure_entry(sc, 0, rk0, rt, rc))
        body.append("============================================================")
        tail = ['  File "%s/torch/distributed/launcher/api.py", line 264, in launch_agent' % J.site, "    raise ChildFailedError("] + body
        lines.append((ta, torchrun_tb(sc, tail)))
        return ta, 1, lines
    if nat and len(nat) == len(n.ranks):
        tl = max(x[0] for x in nat)
        for t, r, c in nat:
            sc.final[r] = (t, c, "self")
        if J.loglevel_info:
            lines.append((tl + 0.5, elog(sc, n, tl + 0.5, "INFO", "elastic.agent.server.api", 864,
                                         "[default] worker group successfully finished. Waiting 300 seconds for other agents to finish.")))
            lines.append((tl + 0.51, elog(sc, n, tl + 0.51, "INFO", "elastic.agent.server.api", 917,
                                          "Local worker group finished (WorkerState.SUCCEEDED). Waiting 300 seconds for other agents to finish")))
            lines.append((tl + 3.0, elog(sc, n, tl + 3.0, "INFO", "elastic.agent.server.api", 931, "Done waiting for other agents. Elapsed: %.7f seconds" % rng.uniform(0.001, 30))))
        return tl + 3.1, 0, lines
    # still running (stuck) -> not resolved here
    return None, None, lines


def first_ext(sc, ni, after=-INF):
    best = None
    for e in sc.ext:
        if ni in e["nodes"] and e["t"] > after and (best is None or e["t"] < best["t"]):
            best = e
    return best


def resolve_torchrun_all(sc, mode):
    """mode: 'k8s' (controller deletes other pods), 'srun' (srun over agents), 'manual'."""
    J = sc.J
    rng = sc.rng
    res = {}
    for n in J.nodes:
        res[n.idx] = resolve_torchrun_node(sc, n, first_ext(sc, n.idx))
    # a failing agent makes the controller / srun SIGTERM the remaining agents
    cascade = mode == "k8s" or (mode == "srun" and J.kill_on_bad_exit)
    done = [(v[0], k) for k, v in res.items() if v[0] is not None and v[1] not in (0, None)]
    if cascade and done:
        t_first = min(done)[0]
        tk = t_first + rng.uniform(1.5, 9.0)
        for n in J.nodes:
            ta = res[n.idx][0]
            if ta is None or ta > tk:
                for rk in n.ranks:
                    sc.final.pop(rk.r, None)
                sc.ext.append(dict(t=tk, nodes=[n.idx], sig=15, agent=True, reason="cascade"))
                res[n.idx] = resolve_torchrun_node(sc, n, dict(t=tk, nodes=[n.idx], sig=15, agent=True, reason="cascade"))
        sc.cascade_t = tk
    # anything still unresolved: stuck forever -> time limit / manual kill at collection
    for n in J.nodes:
        if res[n.idx][0] is None:
            tl = time_limit(sc)
            reason = "UserCancel" if J.layout == "torchrun_logdir" else "TIME LIMIT"
            res[n.idx] = resolve_torchrun_node(sc, n, dict(t=tl, nodes=[n.idx], sig=15, agent=True, reason=reason))
            if not any(s.get("kind") in ("slurm_cancel", "k8s_deadline", "user_cancel") for s in sc.sched):
                kind = {"torchrun_logdir": "user_cancel", "k8s_pods": "k8s_deadline"}.get(J.layout, "slurm_cancel")
                sc.sched.append(dict(kind=kind, t=tl, reason=reason))
    for n in J.nodes:
        ta, code, lines = res[n.idx]
        sc.agent[n.idx] = agent_startup(sc, n) + lines
        sc.agent_exit[n.idx] = (ta, code)


def time_limit(sc):
    J = sc.J
    if getattr(sc, "_tl", None):
        return sc._tl
    last = max([x[0] for x in sc.exit.values()] + [sc.t_fail]) + J.timeout_s + 120
    hours = int((last - J.T0) / 3600.0) + 1 + sc.rng.choice([0, 1, 2])
    sc._tl = J.T0 + hours * 3600 + sc.rng.uniform(0.5, 40)
    J.time_limit_h = hours
    return sc._tl


def node_local_exts(sc):
    """Kills that hit only some nodes (no scheduler involvement) become per-rank exits."""
    J = sc.J
    keep = []
    for e in sc.ext:
        if len(e["nodes"]) < len(J.nodes):
            for ni in e["nodes"]:
                for rk in J.nodes[ni].ranks:
                    if rk.r not in sc.exit or sc.exit[rk.r][0] > e["t"]:
                        sc.exit[rk.r] = (e["t"] + sc.rng.uniform(0.0, 0.3), -e["sig"], "killed: %s" % e["reason"])
        else:
            keep.append(e)
    sc.ext = keep


def resolve_srun_tasks(sc):
    J = sc.J
    rng = sc.rng
    node_local_exts(sc)
    jid = J.job_id
    head = J.nodes[0]
    nat = sorted((v[0], r, v[1]) for r, v in sc.exit.items())
    exts = sorted(sc.ext, key=lambda e: e["t"])
    t_ext = exts[0]["t"] if exts else INF
    bad = [x for x in nat if x[2] != 0 and x[0] < t_ext]
    t_kill = INF
    kill_kind = None
    if J.kill_on_bad_exit and bad:
        t_kill = bad[0][0] + rng.uniform(0.2, 1.0)
        kill_kind = "bad_exit"
    if t_ext < t_kill:
        t_kill = t_ext
        kill_kind = "ext"
    unresolved = [r for r in range(J.W) if r not in sc.exit]
    if t_kill == INF and unresolved:
        t_kill = time_limit(sc)
        kill_kind = "ext"
        exts = [dict(t=t_kill, nodes=[n.idx for n in J.nodes], sig=15, agent=True, reason="TIME LIMIT")]
        sc.ext.extend(exts)
        sc.sched.append(dict(kind="slurm_cancel", t=t_kill, reason="TIME LIMIT"))
    sig = exts[0]["sig"] if kill_kind == "ext" else 15
    for r in range(J.W):
        if r in sc.exit and sc.exit[r][0] <= t_kill:
            sc.final[r] = (sc.exit[r][0], sc.exit[r][1], "self")
        else:
            sc.final[r] = (t_kill + rng.uniform(0.05, 1.5), -sig if sig != 15 or kill_kind == "ext" else -15, "srun")
    # console lines
    oom_tasks = [s["task"] for s in sc.sched if s.get("kind") == "slurm_oom"]
    for s in sc.sched:
        if s.get("kind") == "slurm_oom":
            sc.console.append((s["t"] + 0.5, "slurmstepd: error: Detected 1 oom_kill event in StepId=%d.0. Some of the step tasks have been OOM Killed." % jid))
    evs = sorted((v[0], r, v[1]) for r, v in sc.final.items() if v[2] == "self" and v[1] != 0)
    groups = []
    for t, r, c in evs:
        node = J.ranks[r].node
        st = "Out Of Memory" if (r in oom_tasks and c == -9) else status_text(sc, c)
        if groups and groups[-1][1] is node and groups[-1][2] == st and t - groups[-1][0] < 1.5:
            groups[-1][3].append(r)
        else:
            groups.append([t, node, st, [r]])
    for t, node, st, rs in groups:
        sc.console.append((t + 0.05, "srun: error: %s: %s: %s" % (node.sched, task_ranges(rs), st)))
    if kill_kind == "bad_exit":
        sc.console.append((t_kill, "srun: launch/slurm: _step_signal: Terminating StepId=%d.0" % jid))
        sc.console.append((t_kill + 0.01, "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s ***" % (jid, head.sched, f_slurm(sc.ntl(0, t_kill)))))
        killed = {}
        for r, v in sc.final.items():
            if v[2] == "srun":
                killed.setdefault(J.ranks[r].node.idx, []).append(r)
        for ni in sorted(killed):
            sc.console.append((t_kill + rng.uniform(1, 3), "srun: error: %s: %s: Terminated" % (J.nodes[ni].sched, task_ranges(killed[ni]))))
        sc.console.append((t_kill + 3.5, "srun: Force Terminated StepId=%d.0" % jid))
    elif kill_kind == "ext":
        e = exts[0]
        reason = e.get("reason")
        due = " DUE TO %s" % reason if reason in ("PREEMPTION", "TIME LIMIT") else ""
        sc.console.append((t_kill, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s%s ***" % (jid, head.sched, f_slurm(sc.ntl(0, t_kill)), due)))
        sc.console.append((t_kill + 0.02, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish."))
        sc.console.append((t_kill + 0.03, "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s%s ***" % (jid, head.sched, f_slurm(sc.ntl(0, t_kill)), due)))
        sc.cancel_reason = reason
    sc.t_kill = t_kill
    sc.kill_kind = kill_kind


def resolve_mpirun(sc):
    J = sc.J
    rng = sc.rng
    node_local_exts(sc)
    nat = sorted((v[0], r, v[1]) for r, v in sc.exit.items())
    exts = sorted(sc.ext, key=lambda e: e["t"])
    t_ext = exts[0]["t"] if exts else INF
    bad = [x for x in nat if x[2] != 0 and x[0] < t_ext]
    if bad:
        t1, r1, c1 = bad[0]
        t_kill = t1 + rng.uniform(0.4, 2.5)
        kind = "bad"
    elif t_ext < INF:
        t_kill = t_ext
        kind = "ext"
    elif len(sc.exit) < J.W:
        t_kill = time_limit(sc)
        exts = [dict(t=t_kill, nodes=[n.idx for n in J.nodes], sig=15, agent=True, reason="TIME LIMIT")]
        sc.ext.extend(exts)
        sc.sched.append(dict(kind="slurm_cancel", t=t_kill, reason="TIME LIMIT"))
        kind = "ext"
    else:
        t_kill = INF
        kind = None
    for r in range(J.W):
        if r in sc.exit and sc.exit[r][0] <= t_kill:
            sc.final[r] = (sc.exit[r][0], sc.exit[r][1], "self")
        else:
            sc.final[r] = (t_kill + rng.uniform(0.05, 1.0), -15, "mpirun")
    dash = "-" * 74
    if kind == "bad":
        rk = J.ranks[r1]
        if c1 > 0:
            sc.console.append((t_kill - 0.1, "%s\nPrimary job  terminated normally, but 1 process returned\na non-zero exit code. Per user-direction, the job has been aborted.\n%s" % (dash, dash)))
            sc.console.append((t_kill + 1.5, "%s\nmpirun detected that one or more processes exited with non-zero status, thus causing\nthe job to be terminated. The first process to do so was:\n\n"
                                             "  Process name: [[%d,1],%d]\n  Exit code:    %d\n%s" % (dash, J.mpi_jobid, r1, c1, dash)))
        else:
            sc.console.append((t_kill + 1.5, "%s\nmpirun noticed that process rank %d with PID %d on node %s exited on signal %d (%s).\n%s"
                               % (dash, r1, rk.pid if rng.random() < 0.7 else 0, rk.node.sched, -c1, SIGTEXT.get(-c1, "Signal"), dash)))
    elif kind == "ext":
        e = exts[0]
        reason = e.get("reason")
        due = " DUE TO %s" % reason if reason in ("PREEMPTION", "TIME LIMIT") else ""
        sc.console.append((t_kill, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s%s ***" % (J.job_id, J.nodes[0].sched, f_slurm(sc.ntl(0, t_kill)), due)))
        sc.cancel_reason = reason
    for s in sc.sched:
        if s.get("kind") == "slurm_oom":
            sc.console.append((s["t"] + 0.5, "slurmstepd: error: Detected 1 oom_kill event in StepId=%d.0. Some of the step tasks have been OOM Killed." % J.job_id))
    sc.t_kill = t_kill
    sc.kill_kind = kind


def srun_over_agents(sc):
    """combined_megatron with one torchrun per node launched by srun: srun reports agent exits."""
    J = sc.J
    jid = J.job_id
    evs = []
    for n in J.nodes:
        ta, code = sc.agent_exit[n.idx]
        if code not in (0, None):
            evs.append((ta, n, code))
    evs.sort(key=lambda x: x[0])
    for ta, n, code in evs:
        sc.console.append((ta + 0.1, "srun: error: %s: task %d: %s" % (n.sched, n.idx, status_text(sc, code))))
    for s in sc.sched:
        if s.get("kind") == "slurm_cancel":
            reason = s.get("reason")
            due = " DUE TO %s" % reason if reason in ("PREEMPTION", "TIME LIMIT") else ""
            sc.console.append((s["t"], "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s%s ***" % (jid, J.nodes[0].sched, f_slurm(sc.ntl(0, s["t"])), due)))
            sc.cancel_reason = reason
        if s.get("kind") == "slurm_oom":
            sc.console.append((s["t"] + 0.5, "slurmstepd: error: Detected 1 oom_kill event in StepId=%d.0. Some of the step tasks have been OOM Killed." % jid))
    if J.kill_on_bad_exit and evs and getattr(sc, "cascade_t", None):
        sc.console.append((sc.cascade_t, "srun: launch/slurm: _step_signal: Terminating StepId=%d.0" % jid))
        sc.console.append((sc.cascade_t + 0.01, "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s ***" % (jid, J.nodes[0].sched, f_slurm(sc.ntl(0, sc.cascade_t)))))


def finalize(sc):
    J = sc.J
    rng = sc.rng
    if J.launch == "torchrun":
        resolve_torchrun_all(sc, "k8s" if J.layout == "k8s_pods" else "manual")
    elif J.launch == "srun_torchrun":
        resolve_torchrun_all(sc, "srun")
        srun_over_agents(sc)
    elif J.launch in ("srun", "srun_direct"):
        resolve_srun_tasks(sc)
    else:
        resolve_mpirun(sc)
    # TCPStore server lives in rank 0 / the rank-0 agent: when it goes away first,
    # survivors print 'Connection reset by peer' from their heartbeat monitor threads.
    t0 = sc.final[0][0]
    if J.new and sc.tcpstore_noise and (not sc.healthy or rng.random() < 0.5):
        m = sc.master
        for rk in J.ranks:
            tf = sc.final[rk.r][0]
            if rk.r == 0 or tf < t0 + 2:
                continue
            if rng.random() < 0.7:
                ts = t0 + rng.uniform(0.5, min(40.0, tf - t0 - 0.5))
                addr = rk.node.hostname if rng.random() < 0.5 else rk.node.ip
                remote = m.hostname if J.layout != "torchrun_logdir" else m.fqdn
                sc.add(rk.r, ts, "%s\nException raised from recvBytes at ../torch/csrc/distributed/c10d/Utils.hpp:670 (most recent call first):\n%s\n%s" % (
                    sc.c10(rk.r, ts, "W", "TCPStore.cpp", 141, "[c10d] recvValue failed on SocketImpl(fd=%d, addr=[%s]:%d, remote=[%s]:%d): Connection reset by peer"
                           % (rng.randint(40, 140), addr, rng.randint(33000, 60000), remote, sc.port)),
                    sc.cpp_frames("c10d::detail::TCPClient::receiveValue() + 0x3a", 1),
                    sc.c10(rk.r, ts + 0.001, "W", "ProcessGroupNCCL.cpp", 1284,
                           "%s Failed to check the \"should dump\" flag on TCPStore, (maybe TCPStore server has shut down too early), with error: Connection reset by peer"
                           % (J.st["pg"] % rk.r))), "err")
    tmax = max(v[0] for v in sc.final.values())
    sc.t_collect = tmax + rng.uniform(120, 5400)
    for r in range(J.W):
        te = sc.final[r][0]
        sc.rl[r] = [x for x in sc.rl[r] if x[0] <= te + 1e-6]
    check_evidence(sc)


def _has(sc, r, needle):
    return any(needle in x[2] for x in sc.rl[r])


def check_evidence(sc):
    """Downgrade the truth when the launcher killed the evidence before it was printed."""
    J = sc.J
    r = sc.init_rank
    if r is None:
        return
    if getattr(sc, "silent_init", False):
        others = [o for o in range(J.W) if o != r]
        frac = sum(1 for o in others if _has(sc, o, "Watchdog caught")) / float(len(others))
        absent = frac >= 0.75 and not _has(sc, r, "Watchdog caught")
        direct = any(_has(sc, r, tag) for tag in ("Received a global timeout", "still waiting for batch", "DataLoader timed out"))
        pidmap = J.nccl_debug == "INFO" or J.layout == "host_pid_files"
        spy = pidmap and any(p[0] == r and p[1] < sc.final[r][0] for p in sc.pyspy)
        busmap = getattr(sc, "hw_map", False) and J.nccl_debug == "INFO"
        if not (absent or direct or spy or busmap):
            sc.rank_known = False
            sc.notes.append("(initiator rank not recoverable from these files: the launcher killed most peers before their watchdog fired)")
            if not getattr(sc, "hw_map", False) and not getattr(sc, "kernel_node_evidence", False):
                sc.node_known = False
                sc.init_node = None
                sc.init_rank = None
    mc = getattr(sc, "mismatch_check", None)
    if mc and not _has(sc, mc[0], mc[1]):
        sc.rank_known = sc.node_known = False
        sc.init_rank = sc.init_node = None
        sc.notes.append("(the odd rank's own watchdog line was cut by the launcher; not recoverable)")


# ----------------------------------------------------------------------------
# rendering helpers shared by layouts
# ----------------------------------------------------------------------------
def rank_items(sc, r, streams):
    out = []
    silent = getattr(sc, "silent", None)
    for t, s, text in sc.rl[r]:
        if s not in streams:
            continue
        if silent == r and t > sc.t_start + 100:
            continue
        for line in text.split("\n"):
            out.append((t, line))
    out.sort(key=lambda x: x[0])
    return out


def join_lines(lines):
    return "\n".join(lines) + ("\n" if lines else "")


KNOISE = [
    "perf: interrupt took too long (%d > %d), lowering kernel.perf_event_max_sample_rate to %d",
    "audit: type=1400 audit(%d.%03d:%d): apparmor=\"DENIED\" operation=\"open\" class=\"file\" profile=\"snap.lxd.activate\" name=\"/proc/%d/mounts\" pid=%d comm=\"snap-exec\" requested_mask=\"r\" denied_mask=\"r\" fsuid=0 ouid=0",
    "IPv6: ADDRCONF(NETDEV_CHANGE): veth%s: link becomes ready",
    "mlx5_core %s: mlx5_pcie_event:301:(pid %d): PCIe slot advertised sufficient power (75W).",
    "nvidia-peermem nv_mem_get_pages_common:%d ERROR detected invalid context, skipping further mapping",
    "EXT4-fs (nvme%dn1): mounted filesystem %s r/w with ordered data mode. Quota mode: none.",
]


def kernel_noise(sc, ni, t0, t1, count):
    rng = sc.rng
    n = sc.J.nodes[ni]
    out = []
    for _ in range(count):
        t = rng.uniform(t0, t1)
        k = rng.randrange(len(KNOISE))
        if k == 0:
            a = rng.randint(2501, 9000)
            txt = KNOISE[0] % (a, a - rng.randint(1, 400), rng.randint(20000, 79000))
        elif k == 1:
            txt = KNOISE[1] % (int(t), rng.randint(0, 999), rng.randint(100, 9999), rng.randint(100, 90000), rng.randint(100, 90000))
        elif k == 2:
            txt = KNOISE[2] % hx(rng, 8)
        elif k == 3:
            txt = KNOISE[3] % (n.nics[0][1], rng.randint(100, 2000))
        elif k == 4:
            txt = KNOISE[4] % rng.randint(100, 300)
        else:
            txt = KNOISE[5] % (rng.randint(0, 3), "%s-%s-%s-%s-%s" % (hx(rng, 8), hx(rng, 4), hx(rng, 4), hx(rng, 4), hx(rng, 12)))
        out.append((t, txt))
    return out


def boot_lines(sc, ni):
    J = sc.J
    n = J.nodes[ni]
    rng = sc.rng
    L = [(3.1, "nvidia: loading out-of-tree module taints kernel."),
         (3.2, "nvidia-nvlink: Nvlink Core is being initialized, major device number %d" % rng.randint(230, 240))]
    for g in n.gpus:
        L.append((3.3 + g.phys * 0.01, "nvidia %s: enabling device (0000 -> 0002)" % g.full))
    L.append((4.6, "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  %s  %s" % (J.plat["driver"], rng.choice(["Tue Feb 27 20:03:43 UTC 2024", "Wed Nov  8 18:58:09 UTC 2023"]))))
    return L


def kernel_text(sc, ni, fmt, window=None, noise=True, boot=False):
    J = sc.J
    n = J.nodes[ni]
    rng = sc.rng
    ev = list(sc.kern[ni])
    if noise:
        ev += kernel_noise(sc, ni, J.T0 - 3000, sc.t_collect - 60, rng.randint(3, 9))
    ev.sort(key=lambda x: x[0])
    out = []
    if boot and fmt in ("dmesg_raw", "dmesg_T"):
        for u, txt in boot_lines(sc, ni):
            if fmt == "dmesg_raw":
                out.append("%s %s" % (f_dmesg_up(u), txt))
            else:
                out.append("%s %s" % (f_dmesg_T(n.boot + u), txt))
        out.append("%s %s" % (f_dmesg_up(40.2) if fmt == "dmesg_raw" else f_dmesg_T(n.boot + 40.2),
                              "IPv6: ADDRCONF(NETDEV_CHANGE): %s: link becomes ready" % n.ifname))
    drift = rng.uniform(-3, 3)
    for t, txt in ev:
        if window and not (window[0] <= t <= window[1]):
            continue
        tl = sc.ntl(ni, t)
        up = tl - n.boot
        if fmt == "dmesg_raw":
            out.append("%s %s" % (f_dmesg_up(up), txt))
        elif fmt == "dmesg_T":
            out.append("%s %s" % (f_dmesg_T(tl + drift), txt))
        elif fmt == "syslog":
            out.append("%s %s kernel: %s %s" % (f_syslog(tl), n.kern_host, f_dmesg_up(up), txt))
        else:
            out.append("%s %s kernel: %s" % (f_journal(tl), n.kern_host, txt))
    return join_lines(out)


def nvsmi_table(sc, ni, t, with_procs=True, lost=None):
    J = sc.J
    n = J.nodes[ni]
    rng = sc.rng
    p = J.plat
    if lost is not None:
        g = n.gpus[lost]
        if p["driver"] >= "545":
            return "Unable to determine the device handle for GPU%d: %s: Unknown Error\n" % (g.phys, g.smi[4:])
        return "Unable to determine the device handle for GPU%s: Unknown Error\n" % g.smi[4:]
    L = [f_ctime(sc.ntl(ni, t)) + "       "]
    bar = "+" + "-" * 87 + "+"
    L.append(bar)
    hdr = " NVIDIA-SMI %s" % p["driver"]
    hdr = hdr.ljust(34) + ("Driver Version: %s" % p["driver"]).ljust(31) + ("CUDA Version: %s" % p["cuda"])
    L.append("|" + hdr.ljust(87) + "|")
    L.append("|-----------------------------------------+----------------------+----------------------+")
    L.append("| GPU  Name                 Persistence-M | Bus-Id        Disp.A | Volatile Uncorr. ECC |")
    L.append("| Fan  Temp   Perf          Pwr:Usage/Cap |         Memory-Usage | GPU-Util  Compute M. |")
    L.append("|                                         |                      |               MIG M. |")
    L.append("|=========================================+======================+======================|")
    used_by = {}
    for rk in n.ranks:
        if t < sc.final[rk.r][0]:
            used_by[rk.gpu.phys] = rk
    hot = getattr(sc, "hot", None)
    for g in n.gpus:
        busy = g.phys in used_by
        c1 = (" %3d  %s" % (g.phys, p["model"][:26])).ljust(35) + "On".rjust(4) + "  "
        ecc = sc.ecc_count.get((ni, g.phys), 0) if hasattr(sc, "ecc_count") else 0
        L.append("|%s| %s Off | %s |" % (c1, g.smi, str(ecc).rjust(20)))
        temp = rng.randint(30, 45) if not busy else rng.randint(42, 66)
        pw = rng.randint(60, 110) if not busy else rng.randint(p["tdp"] // 2, p["tdp"] - 20)
        if hot == (ni, g.phys):
            temp = rng.randint(87, 91)
            pw = rng.randint(p["tdp"] // 3, p["tdp"] // 2)
        mem = rng.randint(0, 5) if not busy else rng.randint(p["mib"] - 12000, p["mib"] - 300)
        util = 0 if not busy else rng.randint(88, 100)
        c1 = (" N/A   %2dC    P0" % temp).ljust(26) + ("%4dW / %3dW" % (pw, p["tdp"])).rjust(13) + "  "
        L.append("|%s| %s | %s%s |" % (c1, ("%5dMiB / %5dMiB" % (mem, p["mib"])).rjust(20), ("%3d%%" % util).rjust(7), "Default".rjust(13)))
        L.append("|" + " " * 41 + "|" + " " * 22 + "|" + "Disabled".rjust(21) + " |")
        L.append("+-----------------------------------------+----------------------+----------------------+")
    if with_procs:
        L.append(" " * 89)
        L.append(bar)
        L.append("| Processes:" + " " * 76 + "|")
        L.append("|  GPU   GI   CI        PID   Type   Process name                            GPU Memory |")
        L.append("|        ID   ID                                                             Usage      |")
        L.append("|" + "=" * 87 + "|")
        for g in n.gpus:
            if g.phys in used_by:
                rk = used_by[g.phys]
                L.append("|  %3d   N/A  N/A  %8d      C   %-38s %8dMiB |" % (g.phys, rk.hpid, J.pybin[-38:], rng.randint(p["mib"] - 14000, p["mib"] - 600)))
        L.append(bar)
    return join_lines(L)


def nvsmi_q(sc, ni, t, kind, phys):
    J = sc.J
    n = J.nodes[ni]
    rng = sc.rng
    p = J.plat
    L = ["", "==============NVSMI LOG==============", "",
         "Timestamp                                 : %s" % f_ctime(sc.ntl(ni, t)),
         "Driver Version                            : %s" % p["driver"],
         "CUDA Version                              : %s" % p["cuda"], "",
         "Attached GPUs                             : %d" % len(n.gpus)]
    for g in n.gpus:
        hit = g.phys == phys
        L.append("GPU %s" % g.smi)
        L.append("    Product Name                          : %s" % p["model"])
        L.append("    Serial Number                         : %s" % g.serial)
        L.append("    GPU UUID                              : %s" % g.uuid)
        L.append("    Minor Number                          : %d" % g.phys)
        L.append("    PCI")
        L.append("        Bus                               : 0x%s" % g.bus.upper())
        L.append("        Device                            : 0x%s" % g.dev.upper())
        L.append("        Domain                            : 0x0000")
        L.append("        Bus Id                            : %s" % g.smi)
        if kind == "pcie":
            L.append("        GPU Link Info")
            L.append("            PCIe Generation")
            L.append("                Max                       : 5")
            L.append("                Current                   : %d" % (1 if hit else 5))
            L.append("            Link Width")
            L.append("                Max                       : 16x")
            L.append("                Current                   : %s" % ("4x" if hit else "16x"))
        if kind == "thermal":
            L.append("    Clocks Event Reasons" if p["driver"] >= "535" else "    Clocks Throttle Reasons")
            L.append("        Idle                              : Not Active")
            L.append("        Applications Clocks Setting       : Not Active")
            L.append("        SW Power Cap                      : Not Active")
            L.append("        HW Slowdown                       : %s" % ("Active" if hit else "Not Active"))
            L.append("            HW Thermal Slowdown           : %s" % ("Active" if hit else "Not Active"))
            L.append("            HW Power Brake Slowdown       : Not Active")
            L.append("        Sync Boost                        : Not Active")
            L.append("        SW Thermal Slowdown               : %s" % ("Active" if hit else "Not Active"))
            L.append("    Temperature")
            L.append("        GPU Current Temp                  : %d C" % (rng.randint(87, 92) if hit else rng.randint(48, 62)))
            L.append("        GPU Shutdown Temp                 : 92 C")
            L.append("        GPU Slowdown Temp                 : 87 C")
            L.append("    Clocks")
            L.append("        SM                                : %d MHz" % (rng.randint(990, 1400) if hit else 1980))
        if kind == "ecc":
            un = rng.randint(1, 3) if hit else 0
            L.append("    ECC Errors")
            L.append("        Volatile")
            L.append("            SRAM Correctable              : 0")
            L.append("            SRAM Uncorrectable            : 0")
            L.append("            DRAM Correctable              : %d" % (rng.randint(0, 40) if hit else 0))
            L.append("            DRAM Uncorrectable            : %d" % un)
            L.append("        Aggregate")
            L.append("            SRAM Correctable              : 0")
            L.append("            SRAM Uncorrectable            : 0")
            L.append("            DRAM Correctable              : %d" % (rng.randint(0, 200) if hit else rng.randint(0, 3)))
            L.append("            DRAM Uncorrectable            : %d" % (un + (rng.randint(0, 2) if hit else 0)))
            L.append("    Retired Pages")
            L.append("        Single Bit ECC                    : N/A")
            L.append("        Double Bit ECC                    : N/A")
            L.append("        Pending Page Blacklist            : N/A")
            L.append("    Remapped Rows")
            L.append("        Correctable Error                 : 0")
            L.append("        Uncorrectable Error               : %d" % (un if hit else 0))
            L.append("        Pending                           : %s" % ("Yes" if hit else "No"))
            L.append("        Remapping Failure Occurred        : %s" % ("Yes" if hit and sc.ecc_fail else "No"))
            L.append("        Bank Remap Availability Histogram")
            L.append("            Max                           : %d bank(s)" % (2559 if hit else 2560))
            L.append("            High                          : 0 bank(s)")
            L.append("            Partial                       : %d bank(s)" % (1 if hit else 0))
            L.append("            Low                           : 0 bank(s)")
            L.append("            None                          : 0 bank(s)")
        L.append("")
    return join_lines(L)


def nvlink_status(sc, ni, phys, link):
    J = sc.J
    n = J.nodes[ni]
    nl = 18 if J.plat["short"] == "H100" else 12
    bw = "26.562 GB/s" if nl == 18 else "25 GB/s"
    L = []
    for g in n.gpus:
        L.append("GPU %d: %s (UUID: %s)" % (g.phys, J.plat["model"], g.uuid))
        for k in range(nl):
            L.append("\t Link %d: %s" % (k, "<inactive>" if (g.phys == phys and k == link) else bw))
    return join_lines(L)


def nvsmi_files(sc, ni, t):
    """Return list of (suffix, content) for node ni according to sc.nvsmi."""
    kind = sc.nvsmi.get(ni)
    if not kind:
        return []
    parts = kind.split(":")
    if parts[0] in ("thermal", "pcie"):
        t = min(v[0] for v in sc.final.values()) - sc.rng.uniform(300, 1800)
        sc.hot = (ni, int(parts[1])) if parts[0] == "thermal" else None
    if parts[0] == "lost":
        return [("nvidia-smi", nvsmi_table(sc, ni, t, lost=int(parts[1])))]
    if parts[0] == "table":
        return [("nvidia-smi", nvsmi_table(sc, ni, t))]
    if parts[0] == "ecc":
        sc.ecc_fail = parts[2] == "1"
        sc.ecc_count = {(ni, int(parts[1])): sc.rng.randint(1, 3)}
        return [("nvidia-smi", nvsmi_table(sc, ni, t, with_procs=False)), ("nvidia-smi-q", nvsmi_q(sc, ni, t, "ecc", int(parts[1])))]
    if parts[0] == "nvlink":
        return [("nvidia-smi-nvlink-status", nvlink_status(sc, ni, int(parts[1]), int(parts[2])))]
    if parts[0] in ("thermal", "pcie"):
        return [("nvidia-smi", nvsmi_table(sc, ni, t)), ("nvidia-smi-q", nvsmi_q(sc, ni, t, parts[0], int(parts[1])))]
    return []


def pyspy_text(sc, r, t, where):
    J = sc.J
    rk = J.ranks[r]
    rng = sc.rng
    py = "python" + J.pyver
    L = ["Process %d: %s -u %s %s" % (rk.pid, J.pybin, J.script, rng.choice(["--config configs/base.yaml", "--cfg exp/7b.yaml", ""])),
         "Python v%s.%d (%s)" % (J.pyver, rng.randint(4, 14), J.pybin), "",
         'Thread %d (idle): "MainThread"' % rk.pid]
    if where == "data":
        L += ["    wait (threading.py:324)", "    get (queue.py:180)",
              "    _try_get_data (torch/utils/data/dataloader.py:1133)",
              "    _get_data (torch/utils/data/dataloader.py:1284)",
              "    _next_data (torch/utils/data/dataloader.py:1328)",
              "    __next__ (torch/utils/data/dataloader.py:630)",
              "    train (%s:%d)" % (J.script, rng.randint(150, 290))]
        L += ["", 'Thread %d (idle): "Thread-2 (_pin_memory_loop)"' % (rk.pid + rng.randint(50, 300)),
              "    select (selectors.py:416)", "    wait (multiprocessing/connection.py:947)",
              "    _poll (multiprocessing/connection.py:440)", "    poll (multiprocessing/connection.py:257)",
              "    get (multiprocessing/queues.py:113)", "    do_one_step (torch/utils/data/_utils/pin_memory.py:31)",
              "    _pin_memory_loop (torch/utils/data/_utils/pin_memory.py:54)"]
    elif where == "lock":
        L += ["    wait (threading.py:320)", "    wait (threading.py:607)",
              "    wait_for_async_save (ckpt.py:%d)" % rng.randint(90, 200),
              "    train (%s:%d)" % (J.script, rng.randint(150, 290)), "    main (%s:%d)" % (J.script, rng.randint(300, 370)),
              "    <module> (%s:%d)" % (J.script, rng.randint(380, 520))]
    elif where == "sync":
        L[3] = 'Thread %d (active): "MainThread"' % rk.pid
        L += ["    synchronize (torch/cuda/__init__.py:892)", "    log_metrics (utils/metrics.py:%d)" % rng.randint(40, 120),
              "    train (%s:%d)" % (J.script, rng.randint(150, 290)), "    main (%s:%d)" % (J.script, rng.randint(300, 370))]
    else:
        L += ["    read (fsspec/spec.py:1%03d)" % rng.randint(0, 999), "    _load_shard (data.py:%d)" % rng.randint(50, 150),
              "    __iter__ (data.py:%d)" % rng.randint(150, 220), "    train (%s:%d)" % (J.script, rng.randint(150, 290))]
    return join_lines(L)


# ----------------------------------------------------------------------------
# layout: k8s_pods
# ----------------------------------------------------------------------------
def k8s_pod_status(sc, n):
    ta, code = sc.agent_exit[n.idx]
    ext = first_ext(sc, n.idx)
    if ext and ext["reason"] == "OOMKilled" and abs(ext["t"] - ta) < 1:
        return "OOMKilled", "OOMKilled", 137, ta
    if ext and ext["reason"] == "NodeShutdown" and abs(ext["t"] - ta) < 10:
        return "Terminated", "Error", 143, ta
    if code == 0:
        return "Completed", "Completed", 0, ta
    if code is None:
        return "Running", None, None, None
    if code == -9:
        return "Error", "Error", 137, ta
    return "Error", "Error", 1, ta


def render_k8s(sc):
    J = sc.J
    rng = sc.rng
    F = {}
    tc = sc.t_collect
    image = rng.choice(["nvcr.io/nvidia/pytorch:24.03-py3", "us-docker.pkg.dev/%s/train/trainer:%s" % (rng.choice(["acme-ml", "research-prod"]), hx(rng, 7)),
                        "123456789012.dkr.ecr.us-west-2.amazonaws.com/train:v%d.%d" % (rng.randint(1, 4), rng.randint(0, 30))])
    for n in J.nodes:
        items = list(sc.agent[n.idx])
        for rk in n.ranks:
            for t, line in rank_items(sc, rk.r, ("out", "err", "nccl", "app")):
                items.append((t, ("[default%d]:" % rk.lr + line) if J.tee else line))
        items.sort(key=lambda x: x[0])
        lines = []
        for t, text in items:
            for line in text.split("\n"):
                lines.append((f_k8s(sc.ntl(n.idx, t)) + " " + line) if J.timestamps else line)
        if len(lines) > 1200 and (sc.init_node is None or n is not sc.init_node) and rng.random() < 0.6:
            lines = lines[-1200:]
        F["logs/%s.log" % n.pod] = join_lines(lines)
        # describe
        status, reason, ecode, tfin = k8s_pod_status(sc, n)
        ph = {"Completed": "Succeeded", "Running": "Running"}.get(status, "Failed")
        started = J.T0 + rng.uniform(0.5, 3)
        d = ["Name:             %s" % n.pod, "Namespace:        %s" % J.ns, "Priority:         0",
             "Service Account:  default", "Node:             %s/%s" % (n.sched, n.node_ip),
             "Start Time:       %s" % f_rfc1123(J.T0 - 20)]
        if J.variant == "jobset":
            d += ["Labels:           batch.kubernetes.io/controller-uid=%s-%s-%s-%s-%s" % (hx(rng, 8), hx(rng, 4), hx(rng, 4), hx(rng, 4), hx(rng, 12)),
                  "                  batch.kubernetes.io/job-completion-index=%d" % 0,
                  "                  jobset.sigs.k8s.io/job-index=%d" % 0,
                  "                  jobset.sigs.k8s.io/jobset-name=%s" % J.jobname,
                  "                  jobset.sigs.k8s.io/replicatedjob-name=%s" % J.rjob,
                  "                  job-name=%s-%s-0" % (J.jobname, J.rjob)]
            # one Job per node: job index 0, pod index n
            d[-5] = "                  batch.kubernetes.io/job-completion-index=%d" % n.idx
            d += ["Annotations:      batch.kubernetes.io/job-completion-index: %d" % n.idx]
        else:
            rt = "master" if n.idx == 0 else "worker"
            d += ["Labels:           training.kubeflow.org/job-name=%s" % J.jobname,
                  "                  training.kubeflow.org/operator-name=pytorchjob-controller",
                  "                  training.kubeflow.org/replica-index=%d" % (0 if n.idx == 0 else n.idx - 1),
                  "                  training.kubeflow.org/replica-type=%s" % rt]
            if n.idx == 0:
                d.append("                  training.kubeflow.org/job-role=master")
            d += ["Annotations:      sidecar.istio.io/inject: false"]
        d += ["Status:           %s" % ph]
        if reason == "Terminated":
            pass
        if status == "Terminated":
            d += ["Reason:           Terminated", "Message:          Pod was terminated in response to imminent node shutdown."]
        d += ["IP:               %s" % n.ip, "IPs:", "  IP:           %s" % n.ip,
              "Controlled By:  %s" % ("Job/%s-%s-0" % (J.jobname, J.rjob) if J.variant == "jobset" else "PyTorchJob/%s" % J.jobname),
              "Containers:", "  pytorch:", "    Container ID:  containerd://%s" % hx(rng, 64), "    Image:         %s" % image,
              "    Image ID:      %s@sha256:%s" % (image.split(":")[0], hx(rng, 64))]
        if n.idx == 0:
            d.append("    Port:          %d/TCP" % sc.port)
        d += ["    Command:", "      torchrun", "    Args:", "      --nnodes=%d" % len(J.nodes), "      --nproc-per-node=%d" % J.gpn]
        if J.tee:
            d.append("      --tee=3")
        d += ["      %s" % J.script]
        if status == "Running":
            d += ["    State:          Running", "      Started:      %s" % f_rfc1123(started), "    Ready:          True"]
        else:
            d += ["    State:          Terminated", "      Reason:       %s" % reason, "      Exit Code:    %d" % ecode,
                  "      Started:      %s" % f_rfc1123(started), "      Finished:     %s" % f_rfc1123(tfin), "    Ready:          False"]
        d += ["    Restart Count:  0", "    Limits:", "      memory:          %dGi" % rng.choice([900, 1200, 1600]),
              "      nvidia.com/gpu:  %d" % J.gpn, "    Requests:", "      cpu:             %d" % rng.choice([90, 180, 200]),
              "      memory:          %dGi" % rng.choice([800, 1000]), "      nvidia.com/gpu:  %d" % J.gpn, "    Environment:"]
        if J.variant == "jobset":
            d += ["      MASTER_ADDR:  %s-%s-0-0.%s" % (J.jobname, J.rjob, J.jobname), "      NODE_RANK:     (v1:metadata.annotations['batch.kubernetes.io/job-completion-index'])"]
        else:
            d += ["      PET_MASTER_ADDR:  %s-master-0" % J.jobname, "      PET_NNODES:       %d" % len(J.nodes), "      PET_NODE_RANK:    %d" % n.idx]
        d += ["      NCCL_DEBUG:    %s" % (J.nccl_debug or "")] if J.nccl_debug else []
        d += ["Conditions:", "  Type              Status", "  Initialized       True", "  Ready             %s" % ("True" if status == "Running" else "False"),
              "  ContainersReady   %s" % ("True" if status == "Running" else "False"), "  PodScheduled      True",
              "QoS Class:                   Burstable", "Node-Selectors:              %s" % ("cloud.google.com/gke-accelerator=nvidia-h100-80gb" if J.variant == "jobset" else "node.kubernetes.io/instance-type=%s" % ("p4d.24xlarge" if J.platkey == "p4d" else "p5.48xlarge")),
              "Tolerations:                 nvidia.com/gpu:NoSchedule op=Exists", "Events:"]
        age = tc - J.T0
        evs = [("Normal", "Scheduled", f_age(age + 20), "default-scheduler", "Successfully assigned %s/%s to %s" % (J.ns, n.pod, n.sched), age + 20),
               ("Normal", "Pulled", f_age(age + 5), "kubelet", 'Container image "%s" already present on machine' % image, age + 5),
               ("Normal", "Created", f_age(age + 2), "kubelet", "Created container pytorch", age + 2),
               ("Normal", "Started", f_age(age), "kubelet", "Started container pytorch", age)]
        if status == "Terminated":
            evs.append(("Normal", "Killing", f_age(tc - tfin + 2), "kubelet", "Stopping container pytorch", tc - tfin + 2))
            evs.append(("Warning", "NodeNotReady", f_age(tc - tfin - 20), "node-controller", "Node is not ready", tc - tfin - 20))
        evs = [e for e in evs if e[5] < 3600]
        if evs:
            d += ["  Type    Reason     Age   From               Message", "  ----    ------     ----  ----               -------"]
            for e in evs:
                d.append("  %-7s %-12s %-5s %-18s %s" % e[:5])
        else:
            d.append("  <none>")
        F["describe/%s.txt" % n.pod] = join_lines(d)
    # get pods -o wide
    rows = [("NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE", "NOMINATED NODE", "READINESS GATES")]
    for n in J.nodes:
        status, _, _, _ = k8s_pod_status(sc, n)
        rows.append((n.pod, "1/1" if status == "Running" else "0/1", status, "0", f_age(tc - J.T0), n.ip, n.sched, "<none>", "<none>"))
    w = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    F["kubectl_get_pods_wide.txt"] = join_lines(["   ".join(r[i].ljust(w[i]) for i in range(len(r))).rstrip() for r in rows])
    # events
    ev = []
    for n in J.nodes:
        ev.append((J.T0 - 20, "Normal", "Scheduled", "pod/%s" % n.pod, "Successfully assigned %s/%s to %s" % (J.ns, n.pod, n.sched)))
        ev.append((J.T0, "Normal", "Started", "pod/%s" % n.pod, "Started container pytorch"))
    if rng.random() < 0.5:
        ev.append((J.T0 - 300, "Warning", "FailedScheduling", "pod/%s" % J.nodes[-1].pod,
                   "0/%d nodes are available: %d Insufficient nvidia.com/gpu. preemption: 0/%d nodes are available: %d No preemption victims found for incoming pod."
                   % (len(J.nodes) + 6, len(J.nodes) + 6, len(J.nodes) + 6, len(J.nodes) + 6)))
        ev.append((J.T0 - 200, "Normal", "TriggeredScaleUp", "pod/%s" % J.nodes[-1].pod, "pod triggered scale-up: [{%s 1->%d (max: 16)}]" % (J.nodes[-1].sched.rsplit("-", 1)[0], len(J.nodes))))
    for s in sc.sched:
        if s["kind"] == "k8s_node_shutdown":
            n = J.nodes[s["node"]]
            ev.append((s["t"] - 2, "Normal", "Shutdown", "node/%s" % n.sched, "Shutdown manager detected shutdown event"))
            ev.append((s["t"] + 35, "Normal", "NodeNotReady", "node/%s" % n.sched, "Node %s status is now: NodeNotReady" % n.sched))
            ev.append((s["t"] + 40, "Warning", "NodeNotReady", "pod/%s" % n.pod, "Node is not ready"))
            ev.append((s["t"] + 70, "Normal", "RemovingNode", "node/%s" % n.sched, "Node %s event: Removing Node %s from Controller" % (n.sched, n.sched)))
        elif s["kind"] == "k8s_preempted":
            ev.append((s["t"] - 1, "Normal", "Preempted", "workload/%s" % ("jobset-" + J.jobname + "-" + hx(rng, 5) if J.variant == "jobset" else "pytorchjob-" + J.jobname + "-" + hx(rng, 5)),
                       "Preempted to accommodate a workload (UID: %s-%s-%s-%s-%s) due to prioritization in the ClusterQueue"
                       % (hx(rng, 8), hx(rng, 4), hx(rng, 4), hx(rng, 4), hx(rng, 12))))
            for n in J.nodes:
                ev.append((s["t"] + 0.5, "Normal", "Killing", "pod/%s" % n.pod, "Stopping container pytorch"))
        elif s["kind"] == "k8s_deadline":
            ev.append((s["t"], "Warning", "DeadlineExceeded", "job/%s" % (J.jobname + "-" + J.rjob + "-0" if J.variant == "jobset" else J.jobname), "Job was active longer than specified deadline"))
        elif s["kind"] == "user_cancel":
            for n in J.nodes:
                ev.append((s["t"] + 0.3, "Normal", "Killing", "pod/%s" % n.pod, "Stopping container pytorch"))
    failed = [(sc.agent_exit[n.idx][0], n) for n in J.nodes if sc.agent_exit[n.idx][1] not in (0, None)]
    if failed and not any(s["kind"] in ("k8s_preempted", "user_cancel", "k8s_deadline") for s in sc.sched):
        tf, nf = min(failed, key=lambda x: x[0])
        if J.variant == "jobset":
            ev.append((tf + 1, "Warning", "BackoffLimitExceeded", "job/%s-%s-0" % (J.jobname, J.rjob), "Job has reached the specified backoff limit"))
            ev.append((tf + 1.5, "Warning", "FailedJobs", "jobset/%s" % J.jobname, "jobset failed due to job %s-%s-0 failing" % (J.jobname, J.rjob)))
            for n in J.nodes:
                if n is not nf:
                    ev.append((tf + 2, "Normal", "Killing", "pod/%s" % n.pod, "Stopping container pytorch"))
        else:
            ev.append((tf + 1, "Warning", "PyTorchJobFailed", "pytorchjob/%s" % J.jobname,
                       "PyTorchJob %s/%s is failed because 1 %s replica(s) failed." % (J.ns, J.jobname, "Master" if nf.idx == 0 else "Worker")))
    elif not failed and sc.healthy:
        tdone = max(v[0] for v in sc.agent_exit.values() if v[0]) + 1
        if J.variant == "jobset":
            ev.append((tdone, "Normal", "Completed", "job/%s-%s-0" % (J.jobname, J.rjob), "Job completed"))
        else:
            ev.append((tdone, "Normal", "PyTorchJobSucceeded", "pytorchjob/%s" % J.jobname, "PyTorchJob %s/%s successfully completed." % (J.ns, J.jobname)))
    ev.sort(key=lambda x: x[0])
    ev = [e for e in ev if tc - e[0] < 3600]
    rows = [("LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE")]
    for e in ev:
        rows.append((f_age(tc - e[0]), e[1], e[2], e[3], e[4]))
    w = [max(len(r[i]) for r in rows) for i in range(4)]
    if len(rows) == 1:
        F["events.txt"] = "No resources found in %s namespace.\n" % J.ns
    else:
        F["events.txt"] = join_lines(["   ".join(r[i].ljust(w[i]) for i in range(4)) + "   " + r[4] for r in rows])
    # node side evidence
    for n in J.nodes:
        if sc.kern[n.idx] or rng.random() < 0.2:
            F["nodes/%s/journalctl-k.txt" % n.sched] = kernel_text(sc, n.idx, "journal", window=(J.T0 - 3600, tc))
        if n.idx in sc.dcgm or (n.idx in sc.nvsmi and rng.random() < 0.5):
            exp = "nvidia-dcgm-exporter-%s" % k8s_suffix(rng)
            F["dcgm/%s.metrics.txt" % exp] = dcgm_text(sc, n, exp)
            F.setdefault("kubectl_get_pods_gpu_operator.txt", "NAME                                 READY   STATUS    RESTARTS   AGE   IP            NODE\n")
            F["kubectl_get_pods_gpu_operator.txt"] += "%-36s 1/1     Running   0          %-5s %-13s %s\n" % (exp, rng.choice(["12d", "3d", "40d"]), "10.%d.%d.%d" % (rng.randint(40, 120), rng.randint(0, 15), rng.randint(2, 250)), n.sched)
    return F


def dcgm_text(sc, n, exp):
    J = sc.J
    rng = sc.rng
    info = sc.dcgm.get(n.idx)
    owner = {}
    for rk in n.ranks:
        owner[rk.gpu.phys] = rk
    L = ["# HELP DCGM_FI_DEV_XID_ERRORS Value of the last XID error encountered.", "# TYPE DCGM_FI_DEV_XID_ERRORS gauge"]

    def lab(g):
        pod = J.nodes[n.idx].pod if g.phys in owner else ""
        return ('gpu="%d",UUID="%s",pci_bus_id="%s",device="nvidia%d",modelName="%s",Hostname="%s",DCGM_FI_DRIVER_VERSION="%s",'
                'container="%s",namespace="%s",pod="%s"' % (g.phys, g.uuid, g.smi, g.phys, J.plat["model"], exp, J.plat["driver"],
                                                            "pytorch" if pod else "", J.ns if pod else "", pod))
    for g in n.gpus:
        v = 0
        if info and info[0] == g.phys and isinstance(info[1], int):
            v = info[1]
        L.append("DCGM_FI_DEV_XID_ERRORS{%s} %d" % (lab(g), v))
    L += ["# HELP DCGM_FI_DEV_GPU_TEMP GPU temperature (in C).", "# TYPE DCGM_FI_DEV_GPU_TEMP gauge"]
    thr = info[1] if info and info[0] == "throttle" else None
    for g in n.gpus:
        L.append("DCGM_FI_DEV_GPU_TEMP{%s} %d" % (lab(g), rng.randint(87, 91) if thr == g.phys else rng.randint(40, 64)))
    L += ["# HELP DCGM_FI_DEV_SM_CLOCK SM clock frequency (in MHz).", "# TYPE DCGM_FI_DEV_SM_CLOCK gauge"]
    for g in n.gpus:
        L.append("DCGM_FI_DEV_SM_CLOCK{%s} %d" % (lab(g), rng.randint(1000, 1400) if thr == g.phys else 1980))
    L += ["# HELP DCGM_FI_DEV_CLOCK_THROTTLE_REASONS Current clock throttle reasons.", "# TYPE DCGM_FI_DEV_CLOCK_THROTTLE_REASONS gauge"]
    for g in n.gpus:
        L.append("DCGM_FI_DEV_CLOCK_THROTTLE_REASONS{%s} %d" % (lab(g), 72 if thr == g.phys else 0))
    return join_lines(L)


# ----------------------------------------------------------------------------
# layout: slurm_task_files  (srun --output=logs/slurm-%j-%t.out)
# ----------------------------------------------------------------------------
def sacct_text(sc, jobname, stepname):
    J = sc.J
    rng = sc.rng
    state, code = job_state(sc)
    end = max(v[0] for v in sc.final.values())
    el = f_elapsed_slurm(end - J.T0)
    ncpu = len(J.nodes) * rng.choice([64, 96, 112, 128])
    rows = [("JobID", "JobName", "Partition", "Account", "AllocCPUS", "State", "ExitCode", "Elapsed", "NodeList"),
            ("%d" % J.job_id, jobname, J.partition, "ml-team", str(ncpu), state, code, el, J.nodelist),
            ("%d.batch" % J.job_id, "batch", "", "ml-team", str(ncpu // len(J.nodes)), "CANCELLED" if state in ("CANCELLED", "PREEMPTED", "TIMEOUT") else ("FAILED" if state != "COMPLETED" else "COMPLETED"),
             "0:15" if state in ("CANCELLED", "PREEMPTED", "TIMEOUT") else code, el, J.nodes[0].sched),
            ("%d.extern" % J.job_id, "extern", "", "ml-team", str(ncpu), "COMPLETED", "0:0", el, J.nodelist),
            ("%d.0" % J.job_id, stepname, "", "ml-team", str(ncpu), "CANCELLED" if state in ("CANCELLED", "PREEMPTED", "TIMEOUT") else state,
             "0:15" if state in ("CANCELLED", "PREEMPTED", "TIMEOUT") else code, el, J.nodelist)]
    w = [12, 10, 10, 10, 10, 10, 8, 10, 15]

    def cell(v, i):
        if len(v) > w[i]:
            v = v[:w[i] - 1] + "+"
        return v.ljust(w[i]) if i == 0 else v.rjust(w[i])
    out = [" ".join(cell(r[i], i) for i in range(len(r))) + " " for r in rows[:1]]
    out.append(" ".join("-" * w[i] for i in range(len(w))) + " ")
    for r in rows[1:]:
        out.append(" ".join(cell(r[i], i) for i in range(len(r))) + " ")
    return join_lines(out)


def job_state(sc):
    J = sc.J
    if sc.healthy:
        return "COMPLETED", "0:0"
    reason = sc.cancel_reason
    if reason == "PREEMPTION":
        return "PREEMPTED", "0:15"
    if reason == "TIME LIMIT":
        return "TIMEOUT", "0:0"
    if reason is not None:
        return "CANCELLED", "0:15"
    if any(s.get("kind") == "slurm_oom" for s in sc.sched):
        return "OUT_OF_MEMORY", "0:125"
    codes = [v[1] for v in sc.final.values()]
    pos = [c for c in codes if c > 0]
    if pos:
        return "FAILED", "%d:0" % max(pos)
    sig = [-c for c in codes if c < 0]
    if sig:
        return "FAILED", "0:%d" % sig[0]
    return "COMPLETED", "0:0"


def batch_header(sc, cmd, extra=()):
    J = sc.J
    rng = sc.rng
    L = []
    if rng.random() < 0.5:
        L.append("+ export MASTER_ADDR=%s" % J.nodes[0].sched)
        L.append("+ export MASTER_PORT=%d" % sc.port)
    L += ["SLURM_JOB_ID=%d" % J.job_id, "SLURM_JOB_NODELIST=%s" % J.nodelist, "SLURM_NNODES=%d" % len(J.nodes),
          "MASTER_ADDR=%s MASTER_PORT=%d WORLD_SIZE=%d" % (J.nodes[0].sched, sc.port, J.W)]
    L += list(extra)
    L.append(f_date(sc.ntl(0, J.T0)))
    L.append("+ %s" % cmd)
    return [(J.T0 - 1 + i * 0.001, x) for i, x in enumerate(L)]


def render_slurm_tasks(sc):
    J = sc.J
    rng = sc.rng
    F = {}
    bind = "--gpus-per-task=1 --gpu-bind=single:1" if J.bind == "cgroup1" else "--gpus-per-node=%d" % J.gpn
    cmd = "srun --ntasks-per-node=%d %s%s --output=logs/slurm-%%j-%%t.out python -u %s --config configs/%s.yaml" % (
        J.gpn, bind, " --kill-on-bad-exit=1" if J.kill_on_bad_exit else "", J.script, rng.choice(["base", "7b", "large", "exp42"]))
    items = batch_header(sc, cmd) + list(sc.console)
    if sc.healthy:
        items.append((max(v[0] for v in sc.final.values()) + 2, f_date(sc.ntl(0, max(v[0] for v in sc.final.values()) + 2))))
    items.sort(key=lambda x: x[0])
    F["slurm-%d.out" % J.job_id] = join_lines([x[1] for x in items])
    # users with many tasks often attach only some of the per-task files
    drop = []
    if J.W >= 16 and sc.init_rank is not None and not getattr(sc, "silent_init", False) \
            and not getattr(sc, "mismatch_check", None) and rng.random() < 0.35:
        keep_always = {0, sc.init_rank, J.W - 1}
        drop = [r for r in rng.sample(range(J.W), J.W // 3) if r not in keep_always]
        sc.notes.append("(only %d of %d per-task files attached)" % (J.W - len(drop), J.W))
    for rk in J.ranks:
        if rk.r in drop:
            continue
        lines = [x[1] for x in rank_items(sc, rk.r, ("out", "err", "nccl", "app"))]
        F["logs/slurm-%d-%d.out" % (J.job_id, rk.r)] = join_lines(lines)
    F["sacct.txt"] = sacct_text(sc, "train.sbatch", "python")
    for n in J.nodes:
        if sc.kern[n.idx] or rng.random() < 0.25:
            F["dmesg/%s.dmesg.txt" % n.sched] = kernel_text(sc, n.idx, "dmesg_raw", boot=rng.random() < 0.5)
        for suf, txt in nvsmi_files(sc, n.idx, sc.t_collect - rng.uniform(30, 600)):
            F["nvidia-smi/%s.%s.txt" % (n.sched, suf)] = txt
    for r, t, where in sc.pyspy:
        rk = J.ranks[r]
        if t < sc.final[r][0]:
            F["py-spy/%s-%d.txt" % (rk.node.sched, rk.pid)] = pyspy_text(sc, r, t, where)
    return F


# ----------------------------------------------------------------------------
# layout: host_pid_files  (mpirun; app logs <fqdn>.<pid>.log; NCCL_DEBUG_FILE=nccl.%h.%p.log)
# ----------------------------------------------------------------------------
def render_hostpid(sc):
    J = sc.J
    rng = sc.rng
    F = {}
    cmd = ("mpirun -np %d --map-by ppr:%d:node --bind-to none%s -x MASTER_ADDR -x MASTER_PORT%s -x LD_LIBRARY_PATH python -u %s"
           % (J.W, J.gpn, " --tag-output" if J.tag_output else "",
              (" -x NCCL_DEBUG=%s -x NCCL_DEBUG_FILE=%s/nccl/nccl.%%h.%%p.log" % (J.nccl_debug, J.workdir)) if J.nccl_debug else "", J.script))
    items = batch_header(sc, cmd, ["logging to %s/logs/<fqdn>.<pid>.log" % J.workdir]) + list(sc.console)
    for rk in J.ranks:
        for t, line in rank_items(sc, rk.r, ("err",)):
            items.append((t, ("[1,%d]<stderr>:%s" % (rk.r, line)) if J.tag_output else line))
        for t, line in rank_items(sc, rk.r, ("out",)):
            items.append((t, ("[1,%d]<stdout>:%s" % (rk.r, line)) if J.tag_output else line))
    items.sort(key=lambda x: x[0])
    F["slurm-%d.out" % J.job_id] = join_lines([x[1] for x in items])
    for rk in J.ranks:
        app = rank_items(sc, rk.r, ("app",))
        F["logs/%s.%d.log" % (rk.node.fqdn, rk.pid)] = join_lines([x[1] for x in app])
        if J.nccl_debug:
            nc = rank_items(sc, rk.r, ("nccl",))
            F["nccl/nccl.%s.%d.log" % (rk.node.short, rk.pid)] = join_lines([x[1] for x in nc])
    if rng.random() < 0.6:
        F["sacct.txt"] = sacct_text(sc, "mpi_train", "orted")
    for n in J.nodes:
        if sc.kern[n.idx] or rng.random() < 0.25:
            F["kern/%s-kern.log" % n.kern_host] = kernel_text(sc, n.idx, "syslog", window=(J.T0 - 1800, sc.t_collect))
        for suf, txt in nvsmi_files(sc, n.idx, sc.t_collect - rng.uniform(30, 600)):
            F["%s-%s.txt" % (n.short, suf)] = txt
    for r, t, where in sc.pyspy:
        rk = J.ranks[r]
        if t < sc.final[r][0]:
            F["pyspy.%s.%d.txt" % (rk.node.short, rk.pid)] = pyspy_text(sc, r, t, where)
    return F


# ----------------------------------------------------------------------------
# layout: torchrun_logdir  (per-node folders, local ranks only)
# ----------------------------------------------------------------------------
def render_torchrun(sc):
    J = sc.J
    rng = sc.rng
    F = {}
    for n in J.nodes:
        base = n.folder
        tr = list(sc.agent[n.idx])
        ld = "%s/logs/%s/attempt_0" % (base, n.tr_sub)
        for rk in n.ranks:
            so = rank_items(sc, rk.r, ("out", "nccl"))
            se = rank_items(sc, rk.r, ("err", "app"))
            F["%s/%d/stdout.log" % (ld, rk.lr)] = join_lines([x[1] for x in so])
            F["%s/%d/stderr.log" % (ld, rk.lr)] = join_lines([x[1] for x in se])
            if J.tee:
                for t, line in sorted(so + se, key=lambda x: x[0]):
                    tr.append((t, "[default%d]:%s" % (rk.lr, line)))
            if sc.record and rk.r in sc.pyexc and sc.final[rk.r][1] == 1:
                F["%s/%d/error.json" % (ld, rk.lr)] = json.dumps({"message": {"message": sc.pyexc[rk.r].split("\n")[0],
                                                                               "extraInfo": {"py_callstack": "Traceback (most recent call last):\n  ...\n" + sc.pyexc[rk.r],
                                                                                             "timestamp": str(int(sc.ntl(n.idx, sc.final[rk.r][0])))}}}) + "\n"
        tr.sort(key=lambda x: x[0])
        lines = []
        for t, text in tr:
            lines.extend(text.split("\n"))
        F["%s/torchrun.log" % base] = join_lines(lines)
        if sc.kern[n.idx] or rng.random() < 0.3:
            F["%s/dmesg.txt" % base] = kernel_text(sc, n.idx, "dmesg_T", boot=rng.random() < 0.4)
        for suf, txt in nvsmi_files(sc, n.idx, sc.t_collect - rng.uniform(30, 600)):
            F["%s/%s.txt" % (base, suf)] = txt
        if J.cvd or rng.random() < 0.3:
            F["%s/run.sh" % base] = ("#!/bin/bash\nset -x\n%sexport NCCL_DEBUG=%s\nexport LOGLEVEL=INFO\n"
                                     "torchrun --nnodes=%d --nproc-per-node=%d --rdzv-backend=c10d --rdzv-endpoint=%s:%d --rdzv-id=%s \\\n"
                                     "    --log-dir=%s/logs%s %s --config configs/run.yaml\n"
                                     % ("export CUDA_VISIBLE_DEVICES=%s\n" % ",".join(str(x) for x in J.cvd) if J.cvd else "",
                                        J.nccl_debug or "WARN", len(J.nodes), J.gpn, J.nodes[0].hostname, sc.port, J.run_id,
                                        J.workdir, " --tee=3" if J.tee else "", J.script))
    for r, t, where in sc.pyspy:
        rk = J.ranks[r]
        if t < sc.final[r][0]:
            F["%s/py-spy-dump-%d.txt" % (rk.node.folder, rk.pid)] = pyspy_text(sc, r, t, where)
    for s in sc.sched:
        if s["kind"] == "gce_preempt":
            n = J.nodes[s["node"]]
            ts = _d(sc.ntl(0, s["t"]) - 8 * 3600)
            rows = [("NAME", "TYPE", "TARGET", "HTTP_STATUS", "STATUS", "TIMESTAMP"),
                    ("systemevent-%d-%s-%s-%s" % (int(s["t"] * 1000), hx(rng, 13), hx(rng, 8), hx(rng, 8)), "compute.instances.preempted",
                     "%s/instances/%s" % (J.gce_zone, n.hostname), "200", "DONE", ts.strftime("%Y-%m-%dT%H:%M:%S") + ".%03d-08:00" % rng.randint(0, 999))]
            if rng.random() < 0.5:
                rows.insert(1, ("operation-%d-%s-%s-%s" % (int((J.T0 - 900) * 1000), hx(rng, 13), hx(rng, 8), hx(rng, 8)), "start",
                                "%s/instances/%s" % (J.gce_zone, rng.choice(J.nodes).hostname), "200", "DONE",
                                _d(sc.ntl(0, J.T0 - 900) - 8 * 3600).strftime("%Y-%m-%dT%H:%M:%S") + ".%03d-08:00" % rng.randint(0, 999)))
            w = [max(len(r[i]) for r in rows) for i in range(6)]
            F["gcloud_compute_operations_list.txt"] = join_lines(["  ".join(r[i].ljust(w[i]) for i in range(6)).rstrip() for r in rows])
    return F


# ----------------------------------------------------------------------------
# layout: combined_megatron  (one slurm-%j.out, ranks only inside the text)
# ----------------------------------------------------------------------------
def render_combined(sc):
    J = sc.J
    rng = sc.rng
    F = {}
    if J.launch == "srun_torchrun":
        cmd = "srun --ntasks-per-node=1%s bash -c 'torchrun --nnodes=%d --nproc-per-node=%d --node-rank=$SLURM_NODEID --master-addr=%s --master-port=%d%s pretrain_gpt.py ${ARGS}'" % (
            " --label" if J.label else "", len(J.nodes), J.gpn, J.nodes[0].sched, sc.port, " --tee=3" if J.tee else "")
    else:
        cmd = "srun --ntasks-per-node=%d%s%s python -u pretrain_gpt.py ${ARGS}" % (J.gpn, " --label" if J.label else "", " --kill-on-bad-exit=1" if J.kill_on_bad_exit else "")
    extra = ["TP=%d PP=%d" % (J.tp, J.pp), "ARGS=--tensor-model-parallel-size %d --pipeline-model-parallel-size %d --num-layers %d --hidden-size %d --micro-batch-size 1 --global-batch-size 512%s"
             % (J.tp, J.pp, rng.choice([32, 40, 48, 80]), rng.choice([4096, 5120, 8192]), " --log-straggler" if rng.random() < 0.5 else "")]
    items = batch_header(sc, cmd, extra) + list(sc.console)
    width = len(str(J.W - 1)) if J.launch != "srun_torchrun" else len(str(len(J.nodes) - 1))
    for rk in J.ranks:
        for t, line in rank_items(sc, rk.r, ("out", "err", "nccl", "app")):
            if J.launch == "srun_torchrun":
                line = ("[default%d]:" % rk.lr + line) if J.tee else line
                if J.label:
                    line = "%*d: %s" % (width, rk.node.idx, line)
            elif J.label:
                line = "%*d: %s" % (width, rk.r, line)
            items.append((t, line))
    if J.launch == "srun_torchrun":
        for n in J.nodes:
            for t, text in sc.agent[n.idx]:
                for line in text.split("\n"):
                    items.append((t, ("%*d: %s" % (width, n.idx, line)) if J.label else line))
    items.sort(key=lambda x: x[0])
    lines = [x[1] for x in items]
    if len(lines) > 6000:
        lines = lines[:800] + lines[-4000:]
    F["slurm-%d.out" % J.job_id] = join_lines(lines)
    F["sacct.txt"] = sacct_text(sc, "megatron", "python" if J.launch != "srun_torchrun" else "bash")
    for n in J.nodes:
        if sc.kern[n.idx]:
            F["dmesg_%s.txt" % n.sched] = kernel_text(sc, n.idx, "journal", window=(J.T0 - 1800, sc.t_collect))
        for suf, txt in nvsmi_files(sc, n.idx, sc.t_collect - rng.uniform(30, 600)):
            F["%s_%s.txt" % (suf.replace("-", "_"), n.sched)] = txt
    for r, t, where in sc.pyspy:
        rk = J.ranks[r]
        if t < sc.final[r][0]:
            F["pyspy_%s_%d.txt" % (rk.node.sched, rk.pid)] = pyspy_text(sc, r, t, where)
    return F


RENDER = {"k8s_pods": render_k8s, "slurm_task_files": render_slurm_tasks, "host_pid_files": render_hostpid,
          "torchrun_logdir": render_torchrun, "combined_megatron": render_combined}


# ----------------------------------------------------------------------------
# truth, aliases, driver
# ----------------------------------------------------------------------------
def alias_present(alias, blob):
    pat = r"(?<![\w-])" + re.escape(alias) + r"(?![\w-]|\.[A-Za-z])"
    return re.search(pat, blob) is not None


PATH_STRIP = [
    (r"\.\d+\.(log|txt)$", ""), (r"-\d+\.txt$", ""), (r"_\d+\.txt$", ""),
    (r"^(nccl|pyspy)\.", ""), (r"^(dmesg|nvidia_smi_q|nvidia_smi_nvlink_status|nvidia_smi|pyspy)_", ""),
    (r"\.(dmesg|nvidia-smi[\w-]*|metrics)\.txt$", ""), (r"-(kern\.log|nvidia-smi[\w-]*\.txt)$", ""),
    (r"\.(txt|log)$", ""),
]


def path_tokens(paths):
    """Host spellings hidden in file names (gpu-a17.dmesg.txt, nccl.gpu-a17.1234.log, ...)."""
    out = []
    for p in paths:
        for comp in p.split("/"):
            t = comp
            for pat, rep in PATH_STRIP:
                t = re.sub(pat, rep, t)
            out.append(t)
    return out


def node_aliases(J, n, files):
    blob = "\n".join(path_tokens(sorted(files))) + "\n" + "\n".join(files.keys()) + "\n" + "\n".join(files.values())
    cands = [n.short, n.fqdn, n.ip, n.sched, n.kern_host, n.pod, n.node_ip, n.folder]
    out = []
    for a in cands:
        if not a or a == n.hostname or a in out:
            continue
        if alias_present(a, blob):
            out.append(a)
    return out


def describe_identity(J, n):
    bits = ["hostname=%s" % n.hostname]
    for k, v in (("fqdn", n.fqdn), ("nccl_name", n.short), ("ip", n.ip), ("sched", n.sched), ("pod", n.pod), ("kernel_host", n.kern_host), ("folder", n.folder)):
        if v and v != n.hostname:
            bits.append("%s=%s" % (k, v))
    return ", ".join(bits)


def make_run(seed, idx, layout, cause, outdir):
    rng = random.Random("blind36:%s:%d:%s:%s" % (seed, idx, layout, cause))
    J = build_job(rng, layout, cause)
    sc = Sc(J, rng)
    sc.startup()
    if cause is None:
        sc.healthy = True
        sc.healthy_end()
        if rng.random() < 0.2:
            n = rng.choice(J.nodes)
            g = rng.choice(n.gpus)
            sc.kadd(n.idx, sc.t_train0 + rng.uniform(100, 3000),
                    "NVRM: Xid (PCI:%s): 63, pid='<unknown>', name=<unknown>, Row Remapper: New row (0x%016x) marked for remapping, reset gpu to activate."
                    % (g.kern, rng.randint(0x100000, 0xfffffff)))
            sc.notes.append("harmless correctable row-remap Xid 63 on %s %s (job unaffected)" % (n.kern_host, g.kern))
    else:
        CAUSE_FN[cause](sc)
    finalize(sc)
    files = RENDER[layout](sc)
    if sc.healthy:
        initiator = None
    elif (sc.init_node is not None or sc.init_rank is not None) and (sc.rank_known or sc.node_known):
        n = sc.init_node if sc.init_node is not None else J.ranks[sc.init_rank].node
        initiator = {"rank": sc.init_rank if sc.rank_known else None,
                     "node": n.hostname,
                     "node_aliases": node_aliases(J, n, files)}
    else:
        initiator = None
    ident = "; ".join(describe_identity(J, n) for n in J.nodes)
    notes = " | ".join(sc.notes) if sc.notes else "completed normally"
    extra = []
    if J.cvd:
        extra.append("CUDA_VISIBLE_DEVICES=%s (cuda:i -> host GPU %s)" % (",".join(str(x) for x in J.cvd), J.cvd))
    if J.bind == "cgroup1":
        extra.append("each task sees only its own GPU as cuda:0 (cgroup/gpu-bind); only busId tells them apart")
    if layout == "combined_megatron":
        extra.append("tp=%d pp=%d dp=%d; launch=%s label=%s" % (J.tp, J.pp, J.dp, J.launch, J.label))
    if layout == "torchrun_logdir":
        extra.append("folders named by %s; folder != group_rank" % J.folder_style)
    truth = {"healthy": bool(sc.healthy), "cause": cause, "initiator": initiator, "layout": layout,
             "notes": "%s. Nodes: %s.%s torch %s, NCCL_DEBUG=%s" % (notes, ident, (" " + "; ".join(extra) + ".") if extra else "",
                                                                  J.st["ver"], J.nccl_debug)}
    d = os.path.join(outdir, "run-%03d-%s" % (idx, layout))
    if os.path.isdir(d):
        shutil.rmtree(d)
    for rel in sorted(files):
        p = os.path.join(d, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w", encoding="utf-8") as f:
            f.write(files[rel])
    with open(os.path.join(d, "truth.json"), "w", encoding="utf-8") as f:
        json.dump(truth, f, indent=2, sort_keys=False)
        f.write("\n")
    return truth


def plan_runs(n, seed):
    rng = random.Random("blind36-plan:%s" % seed)
    order = CAUSES[:]
    rng.shuffle(order)
    try:
        off = (3 * int(seed)) % len(LAYOUTS)     # consecutive seeds complement each other's layouts
    except ValueError:
        off = rng.randrange(len(LAYOUTS))
    plan = []
    k = 0
    for i in range(n):
        if i % 7 == 3:
            plan.append((LAYOUTS[(i // 7 + off) % len(LAYOUTS)], None))
        else:
            c = order[k % len(order)]
            q = k // len(order)
            plan.append((LAYOUTS[(CAUSES.index(c) + q + off) % len(LAYOUTS)], c))
            k += 1
    return plan


def main(argv=None):
    ap = argparse.ArgumentParser(description="blind36: synthetic failed-training log bundles (names and identities)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--seed", default="1")
    a = ap.parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    counts = {c: 0 for c in CAUSES}
    counts["healthy"] = 0
    by_layout = {l: 0 for l in LAYOUTS}
    for i, (layout, cause) in enumerate(plan_runs(a.n, a.seed)):
        make_run(a.seed, i, layout, cause, a.out)
        counts["healthy" if cause is None else cause] += 1
        by_layout[layout] += 1
    print(json.dumps(counts, sort_keys=False))
    sys.stderr.write("layouts: %s\n" % json.dumps(by_layout))
    return 0


if __name__ == "__main__":
    sys.exit(main())
