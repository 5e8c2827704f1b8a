#!/usr/bin/env python3
"""blind62 - "shared clusters and neighbours".

Synthetic log bundles of distributed GPU jobs on shared, multi-tenant clusters
(Slurm and Kubernetes), where what breaks a job often comes from outside it:
other tenants on the same node, node health checks and automated drains,
priority preemption and requeue, cgroup / quota limits, maintenance windows -
and the job's own failures seen through the operator's tools.

Usage:  python3 gen_blind62.py --out DIR --n 60 --seed S

Standard library only.  Deterministic per seed.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
from datetime import datetime, timezone

CAUSES = [
    "gpu_hardware", "ecc_memory", "nvlink", "network", "cuda_oom",
    "illegal_memory_access", "python_exception", "host_oom_kill", "crash_signal",
    "preemption", "hang", "data_loader_stall", "collective_mismatch", "straggler",
    "unknown",
]
LAYOUTS = ["slurm", "torchrun", "k8s", "paste", "ops"]

MAX_FILE = 420_000          # soft cap for one text file (bytes)
MAX_RUN = 950_000           # hard cap for one run folder

# --------------------------------------------------------------------------
# time formatting
# --------------------------------------------------------------------------
_MON = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
_DOW = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]


def _dt(t):
    return datetime.fromtimestamp(t, timezone.utc)


def ts_iso(t, ms=False):
    d = _dt(t)
    s = d.strftime("%Y-%m-%dT%H:%M:%S")
    if ms:
        s += ".%03d" % (d.microsecond // 1000)
    return s


def ts_z(t):
    return _dt(t).strftime("%Y-%m-%dT%H:%M:%SZ")


def ts_py(t):
    d = _dt(t)
    return d.strftime("%Y-%m-%d %H:%M:%S") + ",%03d" % (d.microsecond // 1000)


def ts_space(t):
    return _dt(t).strftime("%Y-%m-%d %H:%M:%S")


def ts_glog(t, level, ns=False):
    d = _dt(t)
    frac = "%06d" % d.microsecond
    if ns:
        frac += "%03d" % (int(t * 1e9) % 1000)
    return "%s%s %s.%s" % (level, d.strftime("%m%d"), d.strftime("%H:%M:%S"), frac)


def ts_dmesg_T(t):
    d = _dt(t)
    return "[%s %s %2d %s %d]" % (_DOW[d.weekday()], _MON[d.month - 1], d.day,
                                   d.strftime("%H:%M:%S"), d.year)


def ts_syslog(t):
    d = _dt(t)
    return "%s %2d %s" % (_MON[d.month - 1], d.day, d.strftime("%H:%M:%S"))


def ts_date_cmd(t):
    d = _dt(t)
    return "%s %s %2d %s UTC %d" % (_DOW[d.weekday()], _MON[d.month - 1], d.day,
                                     d.strftime("%H:%M:%S"), d.year)


def ts_elastic(t):
    return _dt(t).strftime("%Y-%m-%d_%H:%M:%S")


def dur_hms(sec):
    sec = int(max(0, sec))
    d, rem = divmod(sec, 86400)
    h, rem = divmod(rem, 3600)
    m, s = divmod(rem, 60)
    if d:
        return "%d-%02d:%02d:%02d" % (d, h, m, s)
    return "%02d:%02d:%02d" % (h, m, s)


def age(sec):
    sec = int(max(1, sec))
    if sec < 120:
        return "%ds" % sec
    if sec < 3600 * 2:
        return "%dm" % (sec // 60)
    if sec < 86400 * 2:
        return "%dh" % (sec // 3600)
    return "%dd" % (sec // 86400)


TOKENS = ("@@E@@", "@@W@@", "@@I@@", "@@F@@", "@@PY@@", "@@NC@@", "@@ISO@@")


def subst(text, t, ns=False):
    """Replace time tokens with the host-clock time t."""
    if "@@" not in text:
        return text
    text = text.replace("@@E@@", ts_glog(t, "E", ns)).replace("@@W@@", ts_glog(t, "W", ns))
    text = text.replace("@@I@@", ts_glog(t, "I", ns)).replace("@@F@@", ts_glog(t, "F", ns))
    text = text.replace("@@PY@@", ts_py(t)).replace("@@NC@@", "[" + ts_space(t) + "] ")
    text = text.replace("@@ISO@@", ts_iso(t, True))
    return text


# --------------------------------------------------------------------------
# small data holders
# --------------------------------------------------------------------------
class L:
    """One log line of a rank / host stream.

    t     true time (epoch seconds); rendered with the emitting host's clock
    kind  noise | info | progress | key | collat | tb
    tags  evidence tags this line provides when it survives
    selfid  text itself names the rank (e.g. "[Rank 5]", "[rank5]:")
    """
    __slots__ = ("t", "text", "kind", "tags", "selfid")

    def __init__(self, t, text, kind="info", tags=(), selfid=False):
        self.t = t
        self.text = text
        self.kind = kind
        self.tags = tuple(tags)
        self.selfid = selfid


class Incident:
    def __init__(self):
        self.cause = None
        self.healthy = False
        self.init_rank = None
        self.init_host = None
        self.node_level = False
        self.lines = {}          # rank -> [L]
        self.end = {}            # rank -> true time its stream stops (baseline cut)
        self.exits = {}          # rank -> (t, code)   code: >=0 exit status, <0 signal
        self.kernel = {}         # host -> [L]
        self.ctld = []           # slurmctld lines [L] (controller clock)
        self.drains = []         # (t, host, reason, user, state)
        self.k8s_events = []     # dicts
        self.pod_state = {}      # pod index -> dict(reason, exit, t)
        self.extras = []         # (relpath, text, tags)
        self.tie = []            # list of tag-lists; all present -> initiator rank known
        self.job_state = "FAILED"
        self.job_exit = "1:0"
        self.step_state = None
        self.t_end = None
        self.notes = ""
        self.variant = ""
        self.seq_fail = None
        self.noise_hosts = []    # neighbour nodes mentioned (never used by the job)
        self.restart = None      # healthy-after-restart info
        self.k8s_job_cond = None
        self.scontrol_reason = None
        self.user_blame = None   # a host a user wrongly blames (ticket text)
        self.kill_on_bad_exit = False
        self.slow = {}           # rank -> factor (straggler)
        self.timing = False
        self.srun_kill = None
        self.exit_ok = False     # the initiator's exit status alone is initiator-grade
        self.node_ranks = []     # node-level cause: the ranks of the initiating node
        self.slow_from = None
        self.slow_factor = 1.0
        self.requeue = None
        self.time_limit = None
        self.user_cancel = None
        self.running = False

    def add(self, r, line):
        self.lines.setdefault(r, []).append(line)

    def kadd(self, host, line):
        self.kernel.setdefault(host, []).append(line)


# --------------------------------------------------------------------------
# host naming
# --------------------------------------------------------------------------
_SLURM_SCHEMES = [("gpu-a", 3), ("hgx", 3), ("dgx-", 3), ("nid", 6), ("gn", 4),
                  ("node", 3), ("c4-gpu", 2), ("sh03-g", 3), ("a3m-", 3), ("lrdn", 4)]


def slurm_hosts(rng, n):
    prefix, width = rng.choice(_SLURM_SCHEMES)
    start = rng.randint(1, max(2, 10 ** width // 3 - 300 - 2 * n))
    names, spare = [], []
    i = start
    while len(names) < n:
        if rng.random() < 0.12:
            spare.append(i)          # a node taken by another tenant
        else:
            names.append(i)
        i += 1
    for _ in range(4):
        spare.append(i + rng.randint(1, 40))
    fmt = "%s%0" + str(width) + "d"
    return [fmt % (prefix, k) for k in names], [fmt % (prefix, k) for k in spare], (prefix, width)


def compress_nodelist(hosts, scheme):
    prefix, width = scheme
    nums = sorted(int(h[len(prefix):]) for h in hosts)
    if len(nums) == 1:
        return "%s%0*d" % (prefix, width, nums[0])
    parts = []
    a = b = nums[0]
    for k in nums[1:]:
        if k == b + 1:
            b = k
            continue
        parts.append((a, b))
        a = b = k
    parts.append((a, b))
    out = []
    for a, b in parts:
        out.append("%0*d" % (width, a) if a == b else "%0*d-%0*d" % (width, a, width, b))
    return "%s[%s]" % (prefix, ",".join(out))


def k8s_hosts(rng, n):
    kind = rng.choice(["gke", "eks", "aks", "onprem"])
    hexs = "0123456789abcdef"
    alnum = "abcdefghijklmnopqrstuvwxyz0123456789"
    out, spare = [], []
    if kind == "gke":
        cl = rng.choice(["train", "ml-prod", "research"])
        pools = ["a3-highgpu-8g-pool-%d" % rng.randint(1, 4), "a3-mega-pool"]
        pool = rng.choice(pools)
        h8 = "".join(rng.choice(hexs) for _ in range(8))
        mk = lambda: "gke-%s-%s-%s-%s" % (cl, pool, h8, "".join(rng.choice(alnum) for _ in range(4)))
    elif kind == "eks":
        reg = rng.choice(["us-west-2", "us-east-1", "eu-west-1"])
        a = rng.randint(0, 3)
        mk = lambda: "ip-10-%d-%d-%d.%s.compute.internal" % (a, rng.randint(0, 255), rng.randint(2, 254), reg)
    elif kind == "aks":
        pool = rng.choice(["ndh100", "gpupool", "ndmv5"])
        dig = "%08d" % rng.randint(10 ** 7, 10 ** 8 - 1)
        mk = lambda: "aks-%s-%s-vmss%06s" % (pool, dig, "".join(rng.choice("0123456789abcdefghijklmnopqrstuvwxyz") for _ in range(6)))
    else:
        rack = rng.randint(1, 30)
        span = max(4, (n + 4) // 12 + 2)
        mk = lambda: "r%02d-h100-%02d" % (rack + rng.randint(0, span), rng.randint(1, 16))
    seen = []
    while len(seen) < n + 4:
        h = mk()
        if h not in seen:
            seen.append(h)
    out, spare = seen[:n], seen[n:]
    return out, spare, kind


# --------------------------------------------------------------------------
# the world: one job on one cluster
# --------------------------------------------------------------------------
ERAS = [
    # name, torch, nccl, python, pg-format, default timeout ms, exception class
    ("t21", "2.1.2", "2.18.6", "3.10", "old", 1800000, "std::runtime_error"),
    ("t22", "2.2.2", "2.19.3", "3.10", "r22", 600000, "c10::DistBackendError"),
    ("t23", "2.3.1", "2.20.5", "3.11", "r23", 600000, "c10::DistBackendError"),
    ("t24", "2.4.1", "2.20.5", "3.11", "r24", 600000, "c10::DistBackendError"),
    ("t25", "2.5.1", "2.21.5", "3.11", "r25", 600000, "c10::DistBackendError"),
    ("t26", "2.6.0", "2.24.3", "3.12", "r25", 600000, "c10::DistBackendError"),
    ("t27", "2.7.1", "2.26.2", "3.12", "r25", 600000, "c10::DistBackendError"),
]

BUS_SETS = [
    ["18", "2a", "3a", "5d", "9a", "ab", "ba", "db"],        # HGX H100
    ["07", "0f", "47", "4e", "87", "90", "b7", "bd"],        # DGX A100
    ["19", "3b", "4c", "5d", "9b", "bb", "cb", "db"],
    ["0a", "0b", "0c", "0d", "8a", "8b", "8c", "8d"],
]
NIC_BUS = ["0c", "1a", "4b", "5e", "8d", "9c", "ca", "dc"]
GPU_MODELS = [("NVIDIA H100 80GB HBM3", 79.10, 81559), ("NVIDIA A100-SXM4-80GB", 79.15, 81920),
              ("NVIDIA H200", 139.8, 143771), ("NVIDIA A100-SXM4-40GB", 39.39, 40960)]
DRIVERS = ["535.161.08", "535.183.01", "550.54.15", "550.90.07", "550.127.05", "560.35.03", "570.124.06"]
USERS = ["akumar", "jchen", "mlopez", "sfischer", "tnguyen", "rpatel", "okim", "ebrown", "lwang", "dsilva"]
OTHER_USERS = ["vgarcia", "hyamada", "bmoreau", "ppetrov", "csmith", "nali", "fkoch", "ymori"]
SCRIPTS = [("/workspace/train.py", "train"), ("/home/{u}/proj/llm/pretrain.py", "pretrain"),
           ("/opt/megatron/pretrain_gpt.py", "pretrain_gpt"), ("/app/src/trainer/main.py", "main"),
           ("/lustre/{u}/code/vit/train_vit.py", "train_vit")]
JOBNAMES = ["llm-7b-pt", "pretrain_13b", "vit-h-in22k", "moe-8x1b", "ft-llama-70b", "sft-mix-v3",
            "dpo-run4", "gpt-1.3b-ablate", "whisper-l-ft", "diffusion-xl"]


class World:
    def __init__(self, rng, layout, cause, healthy):
        self.rng = rng
        self.layout = layout
        r = rng
        if layout == "k8s":
            self.sched = "k8s"
        elif layout == "torchrun":
            self.sched = "slurm" if r.random() < 0.6 else "none"
        elif layout == "paste":
            self.sched = "k8s" if r.random() < 0.25 else "slurm"
        else:
            self.sched = "slurm"
        if self.sched == "k8s" or layout == "torchrun":
            self.launcher = "torchrun"
        else:
            self.launcher = "torchrun" if r.random() < 0.3 else "srun"
        era = r.choice(ERAS)
        (self.era, self.torch, self.nccl, self.py, self.pgfmt, self.timeout_ms, self.exc_cls) = era
        if r.random() < 0.2:
            self.timeout_ms = r.choice([1200000, 1800000, 3600000, 900000])
        self.nccl_ver = tuple(int(x) for x in self.nccl.split("."))
        # scale
        sizes = [2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]
        weights = {"slurm": [1, 2, 3, 4, 4, 4, 3, 2, 2, 2], "torchrun": [1, 2, 3, 4, 4, 3, 2, 1, 0, 0],
                   "k8s": [1, 2, 3, 4, 4, 3, 2, 2, 1, 0], "paste": [1, 2, 3, 3, 3, 3, 2, 2, 1, 1],
                   "ops": [0, 0, 2, 3, 4, 4, 3, 3, 2, 2]}[layout]
        ws = r.choices(sizes, weights)[0]
        if cause == "ecc_memory" or cause == "nvlink":
            ws = max(ws, 8)
        if cause in ("network", "preemption") or (cause == "straggler"):
            ws = max(ws, 8)
        if ws >= 8:
            gpn = 8 if r.random() < 0.85 else 4
        elif ws == 4:
            gpn = r.choice([4, 2])
        else:
            gpn = r.choice([2, 1])
        if cause == "network" and ws // gpn < 2:
            gpn = ws // 2
        self.world = ws
        self.gpn = gpn
        self.nnodes = ws // gpn
        if self.sched == "k8s":
            self.hosts, self.spare, self.k8s_kind = k8s_hosts(r, self.nnodes)
            self.scheme = None
        else:
            self.hosts, self.spare, self.scheme = slurm_hosts(r, self.nnodes)
            self.k8s_kind = None
        self.host_idx = {h: i for i, h in enumerate(self.hosts)}
        self.ip = {}
        sub = r.randint(0, 200)
        o2 = r.choice([1, 10, 31, 64, 128])
        for i, h in enumerate(self.hosts + self.spare):
            self.ip[h] = "10.%d.%d.%d" % (o2, sub + (i // 200), 2 + (i * 7 + 11) % 250)
            if h.startswith("ip-10-"):
                self.ip[h] = h.split(".")[0][3:].replace("-", ".")
        self.bus = r.choice(BUS_SETS)[:8] if gpn == 8 else r.choice(BUS_SETS)[:gpn]
        self.gpu_model = r.choice(GPU_MODELS) if r.random() < 0.4 else GPU_MODELS[0]
        self.driver = r.choice(DRIVERS)
        self.uuid = {}
        hexs = "0123456789abcdef"
        for h in self.hosts:
            for g in range(gpn):
                u = "".join(r.choice(hexs) for _ in range(32))
                self.uuid[(h, g)] = "GPU-%s-%s-%s-%s-%s" % (u[:8], u[8:12], u[12:16], u[16:20], u[20:])
        same_image = self.sched == "k8s" and r.random() < 0.5   # containers: pids restart low on every node
        base_pid = r.randint(20000, 3000000)
        self.pid = {}
        hb = {}
        for rk in range(ws):
            h = rk // gpn
            if h not in hb:
                hb[h] = (r.randint(40, 400) if same_image else r.randint(20000, 3500000))
            hb[h] += r.randint(1, 9)
            self.pid[rk] = hb[h]
        # clock skew per host (seconds); one host sometimes badly off
        self.skew = {}
        bad = r.choice(self.hosts) if (r.random() < 0.25 and self.nnodes > 1) else None
        for h in self.hosts + self.spare:
            s = r.gauss(0, 0.8)
            if h == bad:
                s += r.choice([-1, 1]) * r.uniform(20, 95)
            self.skew[h] = s
        self.skew_bad = bad
        # time line
        self.t0 = 1704067200 + r.randint(0, 86400 * 880) + r.random()
        self.startup = r.uniform(40, 200)
        self.step_time = r.choice([0.45, 0.8, 1.2, 1.9, 2.6, 3.4, 5.5]) * r.uniform(0.9, 1.1)
        self.coll_per_step = r.choice([2, 4, 8, 16, 40])
        self.t_train = self.t0 + self.startup
        self.steps_done = r.randint(150, 9000)
        self.t_fail = self.t_train + self.steps_done * self.step_time + r.uniform(0, self.step_time)
        self.total_steps = self.steps_done + r.randint(20, 3000)
        self.t_done = self.t_train + self.total_steps * self.step_time
        self.parallel = r.choice(["ddp", "fsdp", "fsdp", "megatron"])
        self.jobid = r.randint(180000, 9900000)
        self.user = r.choice(USERS)
        sp, sname = r.choice(SCRIPTS)
        self.script = sp.replace("{u}", self.user)
        self.script_name = sname
        self.jobname = r.choice(JOBNAMES)
        self.partition = r.choice(["gpu", "h100", "a100", "batch", "preempt", "gpu-shared", "ml"])
        self.account = r.choice(["ml-research", "nlp", "vision", "p-llm", "aiinfra"])
        self.label = (self.launcher == "srun") and r.random() < 0.7
        self.nccl_info = r.random() < (0.6 if ws <= 64 else (0.3 if ws <= 256 else 0.15))
        self.banner = r.random() < 0.5
        self.master_port = r.choice([29500, 29400, 12355, 6000, 23456])
        self.ns = r.choice(["team-nlp", "ml-train", "research", "llm-pretrain", "vision"])
        self.kjob = "%s-%s" % (self.jobname.replace("_", "-").replace(".", "-"), "".join(r.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(5)))
        self.k8s_ctrl = r.choice(["pytorchjob", "pytorchjob", "jobset"])
        self.site = "/usr/local/lib/python%s/dist-packages" % self.py if r.random() < 0.5 else "/opt/conda/lib/python%s/site-packages" % self.py
        self.run_id = "%s_%d" % (r.choice(["none", "job", "rdzv", self.jobname.split("-")[0]]), r.randint(100, 99999))
        self.kill_on_bad_exit = (self.launcher == "srun") and r.random() < 0.45
        self.exclusive = r.random() < 0.55
        sfx = "bcdfghjklmnpqrstvwxz2456789"
        self.pods = []
        for i in range(self.nnodes):
            if self.k8s_ctrl == "jobset":
                self.pods.append("%s-trainer-0-%d-%s" % (self.kjob, i, "".join(r.choice(sfx) for _ in range(5))))
            elif i == 0:
                self.pods.append("%s-master-0" % self.kjob)
            else:
                self.pods.append("%s-worker-%d" % (self.kjob, i - 1))

    # helpers ------------------------------------------------------------
    def host_of(self, rk):
        return self.hosts[rk // self.gpn]

    def local(self, rk):
        return rk % self.gpn

    def ranks_on(self, host):
        i = self.host_idx[host]
        return list(range(i * self.gpn, (i + 1) * self.gpn))

    def rank_of(self, host, g):
        return self.host_idx[host] * self.gpn + g

    def seq_at(self, t):
        return 20 + int(max(0, t - self.t_train) / self.step_time * self.coll_per_step)

    def hclock(self, host, t):
        return t + self.skew.get(host, 0.0)

    def pick_rank(self):
        r = self.rng
        if r.random() < 0.15:
            return 0
        return r.randrange(self.world)

    def nodelist(self, hosts=None):
        hosts = hosts or self.hosts
        if self.scheme:
            return compress_nodelist(hosts, self.scheme)
        return ",".join(hosts)

    def busid_nccl(self, g):
        return "%s000" % self.bus[g].lstrip("0") if self.bus[g].lstrip("0") else "0"

    def pci(self, g):
        return "0000:%s:00" % self.bus[g]

    def pod_name(self, i):
        return self.pods[i]


# --------------------------------------------------------------------------
# text building blocks (rank streams)
# --------------------------------------------------------------------------
def hexaddr(rng, lo=0x7f0000000000, hi=0x7fffffffffff):
    return "0x%x" % rng.randint(lo, hi)


def nccl_pre(w, rk, warn=False, fileline=None, tid=None):
    h = w.host_of(rk)
    pid = w.pid[rk]
    tid = tid if tid is not None else pid + w.rng.randint(40, 900)
    s = "%s:%d:%d [%d] " % (h, pid, tid, w.local(rk))
    if warn:
        if w.nccl_ver >= (2, 26, 0):
            s = "@@NC@@" + s
        s += "%s NCCL WARN " % (fileline or "misc/socket.cc:538")
    else:
        s += "NCCL INFO "
    return s


def pg_prefix(w, rk, level="E", line=None):
    """Per-era prefix of a ProcessGroupNCCL C++ log line."""
    ln = line if line is not None else w.rng.choice([563, 577, 583, 607, 616, 629, 1182, 1414, 1537, 1785])
    if w.pgfmt == "old":
        return "[%s ProcessGroupNCCL.cpp:%d] " % (level, ln)
    if w.pgfmt in ("r22", "r23"):
        return "[rank%d]:[%s ProcessGroupNCCL.cpp:%d] " % (rk, level, ln)
    return "[rank%d]:[@@%s@@ ProcessGroupNCCL.cpp:%d] " % (rk, level, ln)


def pg_log_prefix(w, rk):
    if w.pgfmt in ("old", "r22"):
        return "[Rank %d] " % rk
    if w.pgfmt == "r23":
        return "[PG 0 Rank %d] " % rk
    if w.pgfmt == "r24":
        return "[PG 0 (default_pg) Rank %d] " % rk
    return "[PG ID 0 PG GUID 0(default_pg) Rank %d] " % rk


def cpp_frames(w, kind="watchdog", n=None):
    rng = w.rng
    lib = w.site + "/torch/lib"
    base = rng.randint(0x7f0000000000, 0x7ffff0000000) & ~0xfff
    fr = []
    if kind == "watchdog":
        names = [("c10::Error::Error(c10::SourceLocation, std::string) + 0x96", "libc10.so"),
                 ("c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >) + 0x1d2", "libtorch_cuda.so"),
                 ("c10d::ProcessGroupNCCL::watchdogHandler() + 0x233", "libtorch_cuda.so"),
                 ("c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d", "libtorch_cuda.so"),
                 ("<unknown function> + 0xdc253", "/lib/x86_64-linux-gnu/libstdc++.so.6"),
                 ("<unknown function> + 0x94ac3", "/lib/x86_64-linux-gnu/libc.so.6"),
                 ("<unknown function> + 0x126850", "/lib/x86_64-linux-gnu/libc.so.6")]
    else:
        names = [("c10::Error::Error(c10::SourceLocation, std::string) + 0x96", "libc10.so"),
                 ("c10::detail::torchCheckFail(char const*, char const*, unsigned int, std::string const&) + 0x64", "libc10.so"),
                 ("c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, int, bool) + 0x118", "libc10_cuda.so"),
                 ("<unknown function> + 0x1d4e2c6", "libtorch_cuda.so"),
                 ("<unknown function> + 0x5b1a9d", "libtorch_python.so"),
                 ("<unknown function> + 0x15a10e", "/usr/bin/python3"),
                 ("_PyObject_MakeTpCall + 0x25b", "/usr/bin/python3")]
    if n:
        names = names[:n]
    for i, (nm, so) in enumerate(names):
        path = so if so.startswith("/") else "%s/%s" % (lib, so)
        fr.append("frame #%d: %s (0x%x in %s)" % (i, nm, base + rng.randint(0x1000, 0xfffffff), path))
    return fr


def wd_msg(w, rk, seq, op, numel, ran_ms):
    if op.endswith("ALLGATHER_BASE") or op == "ALLGATHER":
        nout = numel * w.world
    elif op.endswith("REDUCE_SCATTER_BASE"):
        nout = max(1, numel // w.world)
    else:
        nout = numel
    return ("[Rank %d] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=%d, OpType=%s, "
            "NumelIn=%d, NumelOut=%d, Timeout(ms)=%d) ran for %d milliseconds before timing out."
            % (rk, seq, op, numel, nout, w.timeout_ms, ran_ms))


def watchdog_block(w, rk, t, seq, op, numel, last_enq, last_comp, frames=True, kind="collat", tags=()):
    """Lines a rank prints when its ProcessGroupNCCL watchdog fires."""
    rng = w.rng
    ran = w.timeout_ms + rng.randint(20, 900)
    msg = wd_msg(w, rk, seq, op, numel, ran)
    lp = pg_log_prefix(w, rk)
    out = []
    dt = 0.0

    def add(text, k=None, tg=(), sid=True):
        nonlocal dt
        out.append(L(t + dt, text, k or kind, tg, sid))
        dt += rng.uniform(0.0001, 0.004)

    if w.pgfmt == "old":
        add(pg_prefix(w, rk, "E", 475) + msg, tg=tuple(tags) + (("wd", rk),))
        add(pg_prefix(w, rk, "E", 489) + "Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.", sid=False)
        add(pg_prefix(w, rk, "E", 495) + "To avoid data inconsistency, we are taking the entire process down.", sid=False)
        add(pg_prefix(w, rk, "E", 916) + "[Rank %d] NCCL watchdog thread terminated with exception: %s" % (rk, msg))
        add("terminate called after throwing an instance of 'std::runtime_error'", sid=False)
        add("  what():  [Rank %d] NCCL watchdog thread terminated with exception: %s" % (rk, msg))
        return out
    add(pg_prefix(w, rk, "E", {"r22": 523, "r23": 563, "r24": 607, "r25": 616}[w.pgfmt]) + msg, tg=tuple(tags) + (("wd", rk),))
    if w.pgfmt == "r24":
        add(pg_prefix(w, rk, "E", 1785) + lp + "Exception (either an error or timeout) detected by watchdog at work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (seq, last_enq, last_comp), tg=tags)
    if w.pgfmt == "r25":
        add(pg_prefix(w, rk, "E", 1785) + lp + "failure detected by watchdog at work sequence id: %d PG status: last enqueued work: %d, last completed work: %d" % (seq, last_enq, last_comp), tg=tags)
    if w.pgfmt in ("r23", "r24"):
        add(pg_prefix(w, rk, "E", 1537) + lp + "Timeout at NCCL work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (seq, last_enq, last_comp), tg=tags)
    if w.pgfmt == "r25":
        add(pg_prefix(w, rk, "E", 1834) + lp + "Received a dump signal due to a collective timeout from this local rank and we will try our best to dump the debug info. Last enqueued NCCL work: %d, last completed NCCL work: %d." % (last_enq, last_comp))
        add(pg_prefix(w, rk, "E", 1369) + lp + "ProcessGroupNCCL preparing to dump debug info.")
    add(pg_prefix(w, rk, "E", 630) + lp + "Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.")
    add(pg_prefix(w, rk, "E", 636) + lp + "To avoid data inconsistency, we are taking the entire process down.")
    wt = "NCCL watchdog thread terminated with exception" if w.pgfmt == "r22" else "Process group watchdog thread terminated with exception"
    add(pg_prefix(w, rk, "E", 1595) + lp + "%s: %s" % (wt, msg))
    if frames:
        add("Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:%d (most recent call first):" % rng.choice([565, 609, 618, 632]), sid=False)
        for f in cpp_frames(w, "watchdog"):
            add(f, sid=False)
        add("", sid=False)
    add("terminate called after throwing an instance of '%s'" % w.exc_cls, sid=False)
    add("  what():  %s%s: %s" % (lp, wt, msg))
    if w.pgfmt == "r25" and rng.random() < 0.5:
        add(pg_prefix(w, rk, "F", 1306) + lp + "Terminating the process after attempting to dump debug info, due to collective timeout or exception.")
    return out


def dump_signal_lines(w, rk, t, src_rank, last_enq, last_comp, tags=()):
    """r25: a rank that did not time out itself hears about another rank's dump."""
    lp = pg_log_prefix(w, rk)
    return [L(t, pg_prefix(w, rk, "E", 1688) + lp + "Observed flight recorder dump signal from another rank via TCPStore.", "collat", (), True),
            L(t + 0.001, pg_prefix(w, rk, "E", 1834) + lp + "Received a dump signal due to a collective timeout from rank %d and we will try our best to dump the debug info. Last enqueued NCCL work: %d, last completed NCCL work: %d." % (src_rank, last_enq, last_comp), "collat", tags, True)]


def tb_lines(w, rk, t, frames, exc, extra=(), kind="key", prefix=None, tags=()):
    """A Python traceback; first line(s) of the exception are 'key'."""
    pre = prefix if prefix is not None else ("[rank%d]: " % rk if (w.launcher == "torchrun" and w.pgfmt not in ("old", "r22")) else "")
    sid = bool(pre)
    out = [L(t, pre + "Traceback (most recent call last):", "tb", (), sid)]
    dt = 0.0005
    for (f, ln, fn, code) in frames:
        out.append(L(t + dt, pre + '  File "%s", line %d, in %s' % (f, ln, fn), "tb", (), sid))
        if code:
            out.append(L(t + dt, pre + "    " + code, "tb", (), sid))
        dt += 0.0001
    first = True
    for e in ([exc] + list(extra)):
        out.append(L(t + dt, pre + e, kind if first else "tb", tags if first else (), sid))
        first = False
        dt += 0.0001
    return out


def train_frames(w, deep="step"):
    s = w.script
    rng = w.rng
    fr = [(s, rng.randint(380, 720), "<module>", "main(args)"),
          (s, rng.randint(200, 370), "main", "trainer.fit()" if rng.random() < 0.5 else "train(model, loader, optimizer, args)")]
    if deep == "step":
        fr.append((s, rng.randint(90, 190), "train" if fr[1][3].startswith("train(") else "fit",
                   rng.choice(["loss = train_step(model, batch)", "loss.backward()", "optimizer.step()", "out = model(**batch)"])))
    elif deep == "data":
        fr.append((s, rng.randint(90, 190), "train", "for step, batch in enumerate(loader, start=start_step):"))
    elif deep == "ckpt":
        fr.append((s, rng.randint(90, 190), "train", "save_checkpoint(model, optimizer, step, args.ckpt_dir)"))
    return fr


def site_frame(w, rel, ln, fn, code):
    return ("%s/%s" % (w.site, rel), ln, fn, code)


def nccl_error_exc(w, code_txt, detail, last=None):
    cls = "torch.distributed.DistBackendError" if w.pgfmt not in ("old",) else "RuntimeError"
    ln = w.rng.choice([1207, 1691, 1970, 2006, 3005])
    head = "%s: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:%d, %s, NCCL version %s" % (cls, ln, code_txt, w.nccl)
    extra = [detail]
    if last:
        extra += ["Last error:", last]
    return head, extra


def cuda_err_extra(w):
    ex = ["CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
          "For debugging consider passing CUDA_LAUNCH_BLOCKING=1"]
    if w.pgfmt not in ("old",):
        ex.append("Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.")
    return ex


def cuda_exc_cls(w):
    if w.era in ("t26", "t27") and w.rng.random() < 0.6:
        return "torch.AcceleratorError"
    return "RuntimeError"


def fmt_gib(x):
    if x < 1:
        return "%.2f MiB" % (x * 1024)
    return "%.2f GiB" % x


def oom_message(w, gpu, req, total, free, inproc, alloc, reserved_unalloc):
    if w.era == "t21" and w.rng.random() < 0.5:
        return ("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate %s. GPU %d has a total capacty of %s of which %s is free. "
                "Process %d has %s memory in use. Of the allocated memory %s is allocated by PyTorch, and %s is reserved by PyTorch but unallocated. "
                "If reserved but unallocated memory is large try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF"
                % (fmt_gib(req), gpu, fmt_gib(total), fmt_gib(free), w.rng.randint(1000, 99999), fmt_gib(inproc), fmt_gib(alloc), fmt_gib(reserved_unalloc)))
    return ("torch.OutOfMemoryError: " if w.era in ("t25", "t26", "t27") else "torch.cuda.OutOfMemoryError: ") + (
        "CUDA out of memory. Tried to allocate %s. GPU %d has a total capacity of %s of which %s is free. "
        "Including non-PyTorch memory, this process has %s memory in use. Of the allocated memory %s is allocated by PyTorch, "
        "and %s is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting "
        "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  "
        "(https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)"
        % (fmt_gib(req), gpu, fmt_gib(total), fmt_gib(free), fmt_gib(inproc), fmt_gib(alloc), fmt_gib(reserved_unalloc)))


def ib_completion_warn(w, rk, peer_ip, status, vendor):
    port = w.rng.randint(30000, 60999)
    v = w.nccl_ver
    peer = "%s<%d>" % (peer_ip, port)
    op = w.rng.choice([0, 1, 128, 129])
    if v < (2, 20, 0):
        msg = "NET/IB : Got completion from peer %s with error %d, opcode %d, len %d, vendor err %d" % (peer, status, op, w.rng.randint(0, 1 << 20), vendor)
        fl = "transport/net_ib.cc:%d" % w.rng.choice([1287, 1696])
    elif v < (2, 24, 0):
        msg = "NET/IB : Got completion from peer %s with status=%d opcode=%d len=%d vendor err %d (%s) localGid ::ffff:%s remoteGids::ffff:%s" % (
            peer, status, op, w.rng.randint(0, 1 << 20), vendor, w.rng.choice(["Send", "Recv"]), w.ip[w.host_of(rk)], peer_ip)
        fl = "transport/net_ib.cc:%d" % w.rng.choice([1906, 2011])
    elif v < (2, 28, 0):
        msg = "NET/IB: Got completion from peer %s with status=%d opcode=%d len=%u vendor err %u (%s) localGid ::ffff:%s remoteGids::ffff:%s hca mlx5_%d" % (
            peer, status, op, w.rng.randint(0, 1 << 20), vendor, w.rng.choice(["Send", "Recv"]), w.ip[w.host_of(rk)], peer_ip, w.local(rk))
        fl = "transport/net_ib/p2p.cc:%d" % w.rng.choice([2123, 2237])
    else:
        msg = "NET/IB: Got completion from peer %s with status=IBV_WC_RETRY_EXC_ERR(%d) opcode=IBV_WC_SEND(0) vendor_err=%u hca mlx5_%d" % (peer, status, vendor, w.local(rk))
        fl = "transport/net_ib/p2p.cc:2301"
    return nccl_pre(w, rk, True, fl) + msg


# --------------------------------------------------------------------------
# baseline streams
# --------------------------------------------------------------------------
WARNINGS = [
    ("{site}/torch/utils/checkpoint.py:464: UserWarning: torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. "
     "In version 2.4 we will raise an exception if use_reentrant is not passed. use_reentrant=False is recommended, but if you need to preserve "
     "the current default behavior, you can pass use_reentrant=True. Refer to docs for more details on the differences between the two variants.",
     "  return fn(*args, **kwargs)"),
    ("{site}/torch/cuda/amp/grad_scaler.py:126: FutureWarning: `torch.cuda.amp.GradScaler(args...)` is deprecated. Please use `torch.amp.GradScaler('cuda', args...)` instead.",
     "  warnings.warn("),
    ("{site}/torch/_utils.py:831: UserWarning: TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the only storage class. "
     "This should only matter to you if you are using storages directly.  To access UntypedStorage directly, use tensor.untyped_storage() instead of tensor.storage()",
     "  return self.fget.__get__(instance, owner)()"),
    ("{site}/torch/distributed/fsdp/_init_utils.py:444: UserWarning: FSDP is switching to use `NO_SHARD` instead of ShardingStrategy.HYBRID_SHARD since the world size is 1.", None),
]


def baseline(w, rk, inc, t_end):
    """Normal lines of rank rk up to t_end (true time)."""
    rng = w.rng
    h = w.host_of(rk)
    lr = w.local(rk)
    out = []
    t = w.t0 + w.startup * rng.uniform(0.15, 0.35) + lr * 0.01
    if w.banner:
        out.append(L(t, "@@PY@@ INFO [%s:%d] [rank %d/%d] host=%s local_rank=%d device=cuda:%d pid=%d" % (
            w.script_name, rng.randint(40, 90), rk, w.world, h, lr, lr, w.pid[rk]), "info",
            (("host_map", rk), ("pidmap", rk)), True))
    if w.nccl_info:
        t1 = w.t0 + w.startup * rng.uniform(0.45, 0.6)
        if rk == 0:
            out.append(L(t1 - 0.5, nccl_pre(w, rk, tid=w.pid[rk]) + "NCCL version %s+cuda%s" % (w.nccl, rng.choice(["12.1", "12.2", "12.4"])), "info"))
        if lr == 0:
            nics = " ".join("[%d]mlx5_%d:1/IB" % (i, i) for i in range(min(w.gpn, 8)))
            out.append(L(t1 - 0.2, nccl_pre(w, rk, tid=w.pid[rk]) + "NET/IB : Using %s [RO]; OOB ib0:%s<0>" % (nics, w.ip[h]), "info", (("ip_map", h),)))
        comm = hexaddr(rng, 0x55d000000000, 0x55ffffffffff)
        cid = "0x%016x" % rng.getrandbits(64)
        if w.nccl_ver >= (2, 19, 0):
            txt = "ncclCommInitRankConfig comm %s rank %d nranks %d cudaDev %d nvmlDev %d busId %s commId %s - Init COMPLETE" % (
                comm, rk, w.world, lr, lr, w.busid_nccl(lr), cid)
        else:
            txt = "comm %s rank %d nranks %d cudaDev %d busId %s - Init COMPLETE" % (comm, rk, w.world, lr, w.busid_nccl(lr))
        out.append(L(t1 + rng.uniform(0.5, 3), nccl_pre(w, rk, tid=w.pid[rk]) + txt, "info",
                     (("host_map", rk), ("busmap", rk), ("pidmap", rk)), True))
    # warnings (a few ranks)
    if rk == 0 or rng.random() < (0.35 if w.world <= 64 else 0.04):
        wi = rng.randrange(len(WARNINGS) - (1 if w.parallel != "fsdp" else 0))
        a, b = WARNINGS[wi]
        tt = w.t_train + rng.uniform(1, 20)
        out.append(L(tt, a.replace("{site}", w.site), "noise"))
        if b:
            out.append(L(tt, b, "noise"))
    if rk == 0:
        out.extend(progress_lines(w, inc, min(t_end, w.t_done)))
    return [x for x in out if x.t <= t_end]


def progress_lines(w, inc, t_end):
    rng = w.rng
    f_slow = inc.slow_factor if inc is not None else 1.0
    t_slow = inc.slow_from if (inc is not None and inc.slow_from) else None
    out = []
    n_end = int(max(0, t_end - w.t_train) / w.step_time)
    if n_end <= 0:
        return out
    every = max(10, (n_end // 55 // 10) * 10 or 10)
    loss = rng.uniform(2.4, 4.2)
    lr0 = rng.choice([3e-4, 1.5e-4, 6e-4, 1e-4, 2e-5])
    tok = rng.uniform(0.3, 4.0)
    s = every
    fmt = rng.randint(0, 2)
    while s <= n_end:
        t = w.t_train + s * w.step_time
        loss = max(0.8, loss * rng.uniform(0.992, 1.002))
        st = w.step_time * rng.uniform(0.96, 1.05)
        if t_slow and t > t_slow:
            t = t_slow + (t - t_slow) * f_slow
            st *= f_slow
            if t > t_end:
                break
        if fmt == 0:
            txt = "@@PY@@ INFO [%s] step %d/%d | loss %.4f | lr %.2e | grad_norm %.3f | %.2f s/it | tok/s %.2fM" % (
                w.script_name, s, w.total_steps, loss, lr0, rng.uniform(0.2, 1.6), st, tok * rng.uniform(0.97, 1.02))
        elif fmt == 1:
            txt = " iteration %8d/%8d | consumed samples: %12d | elapsed time per iteration (ms): %.1f | learning rate: %.6E | lm loss: %.6E | loss scale: 1.0 | grad norm: %.3f | number of skipped iterations:   0 | number of nan iterations:   0 |" % (
                s, w.total_steps, s * 512, st * 1000, lr0, loss, rng.uniform(0.2, 1.6))
        else:
            txt = "{'loss': %.4f, 'grad_norm': %.4f, 'learning_rate': %.3e, 'epoch': %.2f, 'step': %d}" % (
                loss, rng.uniform(0.2, 1.6), lr0, s / max(1, w.total_steps) * 3, s)
        out.append(L(t, txt, "progress"))
        if rng.random() < 0.04:
            out.append(L(t + 1, "@@PY@@ INFO [%s] saved checkpoint to /lustre/%s/ckpt/%s/step_%07d (%.1f s)" % (
                w.script_name, w.user, w.jobname, s, rng.uniform(12, 140)), "progress"))
        s += every
    return out


# --------------------------------------------------------------------------
# cluster side helpers
# --------------------------------------------------------------------------
def coll(w):
    if getattr(w, "_coll", None):
        return w._coll
    w._coll = _coll(w)
    return w._coll


def _coll(w):
    r = w.rng
    if w.parallel == "ddp":
        return "ALLREDUCE", r.choice([6553600, 26214400, 13107200])
    if w.parallel == "fsdp":
        return r.choice(["_ALLGATHER_BASE", "_REDUCE_SCATTER_BASE"]), r.choice([2097152, 4194304, 1310720]) * max(1, 64 // max(1, w.world))
    return r.choice(["ALLREDUCE", "ALLGATHER"]), r.choice([16777216, 50331648, 8388608])


def ctld(inc, t, text, tags=()):
    inc.ctld.append(L(t, text, "info", tags))


def kev(inc, t, ns, obj, typ, reason, msg, src, count=1, tags=(), first=None):
    inc.k8s_events.append(dict(t=t, first=first if first is not None else t, ns=ns, obj=obj, type=typ, reason=reason,
                               msg=msg, src=src, count=count, tags=tuple(tags)))


def drain(w, inc, t, host, reason, user="root", tags=(), down=False):
    """Record a node drain / cordon by automation or an admin."""
    inc.drains.append(dict(t=t, host=host, reason=reason, user=user, tags=tuple(tags), down=down))
    if w.sched == "slurm" or w.sched == "none":
        ctld(inc, t, "update_node: node %s reason set to: %s" % (host, reason), tags)
        ctld(inc, t + 0.001, "update_node: node %s state set to %s" % (host, "DOWN" if down else "DRAINING"))
    else:
        kev(inc, t, "default", "node/%s" % host, "Normal", "NodeNotSchedulable",
            "Node %s status is now: NodeNotSchedulable" % host, "kubelet", tags=tags)


def alloc_lines(w, inc):
    t = w.t0 - w.rng.uniform(5, 4000)
    ctld(inc, t, "_slurm_rpc_submit_batch_job: JobId=%d InitPrio=%d usec=%d" % (w.jobid, w.rng.randint(1000, 90000), w.rng.randint(200, 900)))
    ctld(inc, w.t0 - w.rng.uniform(1, 4), "sched: Allocate JobId=%d NodeList=%s #CPUs=%d Partition=%s" % (
        w.jobid, w.nodelist(), w.nnodes * (w.gpn * 12 if w.gpn > 1 else 16), w.partition))


# --------------------------------------------------------------------------
# generic teardown after an initiating event
# --------------------------------------------------------------------------
def teardown(w, inc, t_coll, seq, dead=(), stuck=(), remote_err=None, mismatch=None, frames_p=None, code_stuck=-6,
             job_kill=None, no_srun_kill=False, kill_code=-15):
    """Everyone except `dead` (already exited) and `stuck` (never joins `seq`)
    enters collective `seq` at about t_coll and waits; then the usual cascade."""
    rng = w.rng
    op, numel = coll(w)
    dead = list(dead)
    stuck = list(stuck)
    dead_set = set(dead) | set(stuck)
    inc.seq_fail = seq
    inc.stuck = list(stuck)
    if frames_p is None:
        frames_p = 0.6 if w.world <= 64 else (0.2 if w.world <= 256 else 0.06)
    t_dead = min([inc.exits[d][0] for d in dead], default=None)
    # srun --kill-on-bad-exit: srun kills the whole step shortly after the first bad exit
    if dead and w.launcher == "srun" and w.kill_on_bad_exit and inc.exits[dead[0]][1] != 0 and not no_srun_kill:
        tk = t_dead + rng.uniform(0.4, 2.5)
        inc.srun_kill = tk
        for r in range(w.world):
            if r in dead:
                continue
            inc.exits[r] = (tk + rng.uniform(0, 0.3), -15)
            inc.end[r] = tk
        return
    killed = set()
    # local peers notice a dead local rank (NCCL proxy / torchrun agent)
    for d in dead:
        td = inc.exits[d][0]
        h = w.host_of(d)
        for r in w.ranks_on(h):
            if r in dead_set:
                continue
            if w.nccl_info and rng.random() < 0.7:
                inc.add(r, L(td + rng.uniform(0.01, 0.3), nccl_pre(w, r) + "[Service thread] Connection closed by localRank %d" % w.local(d),
                             "collat", (("pointer", d),), False))
            if w.launcher == "torchrun":
                tk = td + rng.uniform(0.3, 1.8)
                inc.exits[r] = (tk, -15)
                inc.end[r] = tk
                killed.add(r)
    # fast remote errors for some ranks (network notices the dead peer)
    if dead and remote_err is None:
        remote_err = rng.random() < 0.35
    t_wd = t_coll + w.timeout_ms / 1000.0
    waiting = [r for r in range(w.world) if r not in dead_set and r not in killed]
    for r in waiting:
        if mismatch and r in mismatch:
            op_r, numel_r, seq_r = mismatch[r]
        else:
            op_r, numel_r, seq_r = op, numel, seq
        if job_kill is not None and job_kill < t_wd:
            if dead and remote_err and rng.random() < 0.25 and w.host_of(r) != w.host_of(dead[0]) and t_dead + 40 < job_kill:
                d = dead[0]
                te = t_dead + rng.uniform(15, 40)
                inc.add(r, L(te, ib_completion_warn(w, r, w.ip[w.host_of(d)], 12, 129), "collat", (("ip_named", w.host_of(d)),), False))
            tk = job_kill + rng.uniform(0, 1.5)
            inc.exits[r] = (tk, kill_code)
            inc.end[r] = tk
            continue
        if dead and remote_err and rng.random() < 0.3 and w.host_of(r) != w.host_of(dead[0]):
            d = dead[0]
            te = t_dead + rng.uniform(0.5, 12)
            if rng.random() < 0.5:
                inc.add(r, L(te, nccl_pre(w, r, True, "misc/socket.cc:%d" % rng.choice([47, 538, 652])) +
                             "socketProgress: Connection closed by remote peer %s<%d>" % (w.host_of(d), rng.randint(30000, 60000)), "collat", (("node_ptr", w.host_of(d)),), False))
            else:
                inc.add(r, L(te, ib_completion_warn(w, r, w.ip[w.host_of(d)], 12, 129), "collat", (("ip_named", w.host_of(d)),), False))
            head, extra = nccl_error_exc(w, "remote process exited or there was a network error",
                                         "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.")
            for x in tb_lines(w, r, te + 0.2, train_frames(w), head, extra, kind="collat"):
                inc.add(r, x)
            inc.exits[r] = (te + rng.uniform(0.5, 3), 1)
            inc.end[r] = te
            continue
        tr = t_wd + rng.uniform(0.0, 1.8)
        last_comp = seq_r - 1
        for x in watchdog_block(w, r, tr, seq_r, op_r, numel_r, seq_r, last_comp, frames=rng.random() < frames_p,
                                tags=((("pointer", r),) if (mismatch and r in mismatch) else ())):
            if mismatch and r in mismatch and x.kind == "collat" and "Watchdog caught" in x.text and "what()" not in x.text and "terminated" not in x.text:
                x.kind = "key"
            inc.add(r, x)
        inc.exits[r] = (tr + rng.uniform(0.3, 2.5), -6)
        inc.end[r] = tr
    for s in stuck:
        if job_kill is not None and job_kill < t_wd:
            inc.exits[s] = (job_kill + rng.uniform(0, 1.5), kill_code)
            inc.end[s] = job_kill
            continue
        if w.pgfmt == "r25":
            src = rng.choice(waiting) if waiting else 0
            for x in dump_signal_lines(w, s, t_wd + rng.uniform(1.0, 3.0), src, seq - 1, seq - 1, tags=(("pointer", s),)):
                inc.add(s, x)
            te = t_wd + rng.uniform(15, 60)
            inc.exits[s] = (te, code_stuck)
        else:
            te = t_wd + rng.uniform(20, 240)
            inc.exits[s] = (te, -15 if code_stuck == -6 else code_stuck)
        inc.end[s] = te


def set_ends_default(w, inc):
    for r in range(w.world):
        if r not in inc.end:
            inc.end[r] = inc.exits.get(r, (w.t_done, 0))[0]
        if r not in inc.exits:
            inc.exits[r] = (inc.end[r], 0)
    inc.t_end = max(v[0] for v in inc.exits.values())


# --------------------------------------------------------------------------
# kernel log snippets
# --------------------------------------------------------------------------
def k_xid(w, g, xid, body, pid=None, name=None, old=False):
    pci = w.pci(g)
    if old or pid is None:
        if pid is None and not old and w.rng.random() < 0.5:
            return "NVRM: Xid (PCI:%s): %d, pid='<unknown>', name=<unknown>, %s" % (pci, xid, body)
        return "NVRM: Xid (PCI:%s): %d, %s" % (pci, xid, body)
    if name is None:
        return "NVRM: Xid (PCI:%s): %d, pid=%d, %s" % (pci, xid, pid, body)
    return "NVRM: Xid (PCI:%s): %d, pid=%d, name=%s, %s" % (pci, xid, pid, name, body)


def k_uuid_lines(w, host, g, t):
    return [L(t, "NVRM: GPU at PCI:%s: %s" % (w.pci(g), w.uuid[(host, g)]), "info"),
            L(t, "NVRM: GPU Board Serial Number: %d" % w.rng.randint(1320000000000, 1660000000000), "info")]


KERNEL_NOISE = [
    "perf: interrupt took too long (%d > %d), lowering kernel.perf_event_max_sample_rate to %d",
    "IPv6: ADDRCONF(NETDEV_CHANGE): veth%s: link becomes ready",
    "audit: type=1400 audit(%d.%03d:%d): apparmor=\"DENIED\" operation=\"open\" profile=\"snap.lxd.daemon\" name=\"/proc/%d/mounts\" pid=%d comm=\"lxd\" requested_mask=\"r\" denied_mask=\"r\" fsuid=0 ouid=0",
    "nvidia-nvswitch%d: open (major=%d)",
    "EDAC MC%d: 1 CE memory read error on CPU_SrcID#%d_MC#%d_Chan#%d_DIMM#0 (channel:%d slot:0 page:0x%x offset:0x%x grain:32 syndrome:0x0 - err_code:0x0000:0x009f)",
    "Lustre: %s-MDT0000-mdc-ffff%04x%08x: Connection restored to %s (at %s@o2ib)",
    "TCP: request_sock_TCP: Possible SYN flooding on port %d. Sending cookies.  Check SNMP counters.",
]


def kernel_noise(w, host, t0, t1, n):
    rng = w.rng
    out = []
    for _ in range(n):
        t = rng.uniform(t0, t1)
        k = rng.randrange(len(KERNEL_NOISE))
        f = KERNEL_NOISE[k]
        if k == 0:
            a = rng.randint(2501, 3900)
            txt = f % (a, a - rng.randint(1, 200), rng.choice([79750, 63750, 50750, 39750]))
        elif k == 1:
            txt = f % "".join(rng.choice("0123456789abcdef") for _ in range(7))
        elif k == 2:
            p = rng.randint(1000, 90000)
            txt = f % (int(t), rng.randint(0, 999), rng.randint(100, 9999), p, p)
        elif k == 3:
            txt = f % (rng.randint(0, 3), rng.choice([236, 237, 508]))
        elif k == 4:
            mc = rng.randint(0, 3)
            ch = rng.randint(0, 2)
            txt = f % (mc, mc // 2, mc % 2, ch, ch, rng.randint(0x100000, 0xfffffff), rng.randint(0, 0xfff))
        elif k == 5:
            fs = rng.choice(["scratch", "home", "proj"])
            txt = f % (fs, rng.randint(0, 0xffff), rng.randint(0, 0xffffffff), "%s-MDT0000_UUID" % fs, "10.%d.0.%d" % (rng.randint(1, 40), rng.randint(2, 40)))
        else:
            txt = f % rng.choice([22, 6817, 2049, 9100])
        out.append(L(t, txt, "noise"))
    return out


# --------------------------------------------------------------------------
# causes
# --------------------------------------------------------------------------
def _nhc_reason(w, H, what):
    r = w.rng
    return r.choice(["NHC: %s" % what, "NHC: %s" % what, "gpu-health: %s" % what, "dcgm-hc: %s" % what])


def _xid_body_79():
    return "GPU has fallen off the bus."


def c_gpu_hardware(w, inc):
    rng = w.rng
    R = w.pick_rank()
    H, g = w.host_of(R), w.local(R)
    inc.init_rank, inc.init_host = R, H
    tf = w.t_fail
    seq = w.seq_at(tf) + 1
    variant = "xid119" if (w.pgfmt in ("r23", "r24", "r25") and rng.random() < 0.4) else "xid79"
    inc.variant = variant
    inc.tie = [[("node_key", H), ("busmap", R)]]
    kt = tf - rng.uniform(0.0, 0.4)
    for x in k_uuid_lines(w, H, g, kt):
        inc.kadd(H, x)
    if variant == "xid79":
        if rng.random() < 0.5:
            up = "%02x" % max(0, int(w.bus[g], 16) - 1)
            inc.kadd(H, L(kt - 0.02, "pcieport 0000:%s:01.0: AER: Uncorrected (Fatal) error received: 0000:%s:00.0" % (up, w.bus[g]), "key", (("node_key", H),)))
            inc.kadd(H, L(kt - 0.02, "nvidia 0000:%s:00.0: PCIe Bus Error: severity=Uncorrected (Fatal), type=Transaction Layer, (Requester ID)" % w.bus[g], "key", (("node_key", H),)))
        inc.kadd(H, L(kt, k_xid(w, g, 79, _xid_body_79(), old=rng.random() < 0.5), "key", (("node_key", H),)))
        inc.kadd(H, L(kt + 0.001, "NVRM: GPU %s.0: GPU has fallen off the bus." % w.pci(g), "key", (("node_key", H),)))
        if w.driver >= "565" or rng.random() < 0.3:
            inc.kadd(H, L(kt + 0.4, k_xid(w, g, 154, "GPU recovery action changed from 0x0 (None) to 0x2 (Node Reboot Required)", old=True), "key", (("node_key", H),)))
        if rng.random() < 0.5:
            inc.kadd(H, L(kt + 1.5, "NVRM: nvGpuOpsReportFatalError: uvm encountered global fatal error 0x60, requiring os reboot to recover.", "info"))
        if rng.random() < 0.6:
            # the rank sees a CUDA error and exits
            te = tf + rng.uniform(0.3, 3)
            if w.nccl_info or rng.random() < 0.4:
                inc.add(R, L(te - 0.05, nccl_pre(w, R, True, "enqueue.cc:%d" % rng.choice([1178, 1549])) + "Cuda failure 'unspecified launch failure'", "key", (), False))
            frames = train_frames(w) + [site_frame(w, "torch/_tensor.py", rng.choice([521, 525, 581]), "backward", "torch.autograd.backward(")]
            for x in tb_lines(w, R, te, frames, "%s: CUDA error: unspecified launch failure" % cuda_exc_cls(w), cuda_err_extra(w)):
                inc.add(R, x)
            inc.exits[R] = (te + rng.uniform(0.5, 4), 1)
            inc.end[R] = te
            teardown(w, inc, tf, seq, dead=[R])
        else:
            teardown(w, inc, tf, seq, stuck=[R])
    else:
        pid = w.pid[R]
        nm = rng.choice(["python3", "python", "pt_main_thread"])
        fn = rng.choice([(76, "GSP_RM_CONTROL", "0x20801348 0x4"), (103, "GSP_RM_ALLOC", "0x2081 0x4"), (10, "FREE", "0x0 0x0")])
        for k in range(rng.randint(2, 4)):
            inc.kadd(H, L(kt + k * 6.1, k_xid(w, g, 119, "Timeout after 6s of waiting for RPC response from GPU%d GSP! Expected function %d (%s) (%s)." % (g, fn[0], fn[1], fn[2]), pid, nm), "key", (("node_key", H),)))
        inc.kadd(H, L(kt + 0.01, "NVRM: GPU%d GSP RPC buffer contains function %d (%s) and data 0x%016x 0x%016x." % (g, fn[0], fn[1], rng.getrandbits(48), rng.getrandbits(20)), "info"))
        if w.driver >= "565":
            inc.kadd(H, L(kt + 30, k_xid(w, g, 154, "GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)", old=True), "key", (("node_key", H),)))
        hb = 480 if w.pgfmt == "r25" else 600
        th = tf + hb + rng.uniform(1, 10)
        if th < tf + w.timeout_ms / 1000.0:
            lp = pg_log_prefix(w, R)
            inc.add(R, L(th, pg_prefix(w, R, "F" if w.pgfmt == "r23" else "E", 1396) + lp +
                         "ProcessGroupNCCL's watchdog got stuck for %d seconds without making progress in monitoring enqueued collectives. "
                         "This typically indicates a NCCL/CUDA API (e.g., CudaEventDestroy) hang blocking the watchdog, and could be triggered by another thread holding the GIL inside a CUDA api (for example, CudaEventDestroy), or other deadlock-prone behaviors."
                         "If you suspect the watchdog is not actually stuck and a longer timeout would help, you can either increase the timeout (TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC) to larger value or disable the heartbeat monitor (TORCH_NCCL_ENABLE_MONITORING=0)."
                         "If either of aforementioned helps, feel free to file an issue to PyTorch about the short timeout or false positive abort; otherwise, please attempt to debug the hang. " % hb,
                         "key", (), True))
            inc.exits[R] = (th + rng.uniform(1, 15), -6)
            inc.end[R] = th
            teardown(w, inc, tf, seq, dead=[R])
        else:
            teardown(w, inc, tf, seq, stuck=[R])
    # health check drains the node a bit later
    td = tf + rng.uniform(40, 420)
    what = ("Xid 79 GPU %d (%s.0) fell off the bus" % (g, w.pci(g))) if variant == "xid79" else ("Xid 119 GSP RPC timeout GPU%d, reset required" % g)
    drain(w, inc, td, H, _nhc_reason(w, H, what), tags=(("node_key", H),))
    inc.dcgm = (H, g, 79 if variant == "xid79" else 119)
    inc.notes = ("GPU %d on %s %s (Xid %s); rank %d on that GPU %s, the other ranks timed out as collateral; health checks drained the node afterwards."
                 % (g, H, "fell off the bus" if variant == "xid79" else "stopped answering GSP RPCs", variant[3:], R,
                    "crashed" if R in inc.exits and inc.exits[R][1] in (1, -6) and R in inc.lines else "hung"))


def c_ecc_memory(w, inc):
    rng = w.rng
    R = w.pick_rank()
    H, g = w.host_of(R), w.local(R)
    inc.init_rank, inc.init_host = R, H
    tf = w.t_fail
    seq = w.seq_at(tf) + 1
    inc.tie = [[("node_key", H), ("busmap", R)]]
    kt = tf - rng.uniform(0.0, 0.3)
    for x in k_uuid_lines(w, H, g, kt):
        inc.kadd(H, x)
    addr = rng.randint(0x1000000, 0x7ffffffff)
    pid = w.pid[R] if rng.random() < 0.6 else None
    inc.kadd(H, L(kt, k_xid(w, g, 48, "An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at physAddr 0x%x partition %d, subpartition %d." % (addr, rng.randint(0, 23), rng.randint(0, 3)), pid, "python3" if pid else None), "key", (("node_key", H),)))
    v = rng.random()
    if v < 0.55:
        inc.kadd(H, L(kt + 0.02, k_xid(w, g, 63, "Row Remapper: New row (0x%016x) marked for remapping, reset gpu to activate." % addr, pid), "key", (("node_key", H),)))
        inc.variant = "dbe+remap"
    elif v < 0.8:
        inc.kadd(H, L(kt + 0.02, k_xid(w, g, 64, "Row Remapper Error: (0x%016x) - All reserved rows for bank are remapped" % addr, pid), "key", (("node_key", H),)))
        inc.variant = "dbe+remap_failure"
    else:
        inc.kadd(H, L(kt + 0.03, k_xid(w, g, 95, "Uncontained: LTC TAG (0x2, 0x1). RST: Yes, D-RST: No", pid, "python3" if pid else None), "key", (("node_key", H),)))
        inc.variant = "dbe+uncontained"
    if rng.random() < 0.5:
        inc.kadd(H, L(kt + 0.3, k_xid(w, g, 154, "GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)", old=True), "key", (("node_key", H),)))
    te = tf + rng.uniform(0.2, 2.5)
    if rng.random() < 0.5 and w.pgfmt != "old":
        inc.add(R, L(te - 0.02, nccl_pre(w, R, True, "enqueue.cc:1549") + "Cuda failure 'uncorrectable ECC error encountered'", "key", (), False))
        head, extra = nccl_error_exc(w, "unhandled cuda error (run with NCCL_DEBUG=INFO for details)", "ncclUnhandledCudaError: Call to CUDA function failed.",
                                     "Cuda failure 'uncorrectable ECC error encountered'")
        frames = train_frames(w) + [site_frame(w, "torch/distributed/distributed_c10d.py", rng.choice([2288, 2501, 2804]), "all_reduce", "work = group.allreduce([tensor], opts)")]
    else:
        head, extra = "%s: CUDA error: uncorrectable ECC error encountered" % cuda_exc_cls(w), cuda_err_extra(w)
        frames = train_frames(w) + [site_frame(w, "torch/nn/modules/module.py", rng.choice([1532, 1541, 1736]), "_call_impl", "return forward_call(*args, **kwargs)")]
    for x in tb_lines(w, R, te, frames, head, extra):
        inc.add(R, x)
    inc.exits[R] = (te + rng.uniform(0.4, 3), 1)
    inc.end[R] = te
    teardown(w, inc, tf, seq, dead=[R])
    drain(w, inc, tf + rng.uniform(60, 600), H, _nhc_reason(w, H, rng.choice([
        "GPU%d uncorrectable ECC (DBE) volatile=1, row remap pending" % g, "check_nv_ecc: GPU %d DBE count 1" % g,
        "Xid 48 on GPU %d - RMA candidate" % g])), tags=(("node_key", H),))
    inc.dcgm = (H, g, 48)
    inc.notes = "Uncorrectable ECC error (Xid 48, %s) on GPU %d of %s killed rank %d; the rest of the job failed as collateral and the node was drained." % (inc.variant, g, H, R)


def c_nvlink(w, inc):
    rng = w.rng
    R = w.pick_rank()
    H, g = w.host_of(R), w.local(R)
    inc.init_rank, inc.init_host = R, H
    tf = w.t_fail
    seq = w.seq_at(tf) + 1
    inc.tie = [[("node_key", H), ("busmap", R)]]
    kt = tf - rng.uniform(0.0, 0.3)
    link = rng.randint(0, 17)
    for x in k_uuid_lines(w, H, g, kt):
        inc.kadd(H, x)
    body = "NVLink: fatal error detected on link %d" % link
    if rng.random() < 0.5:
        body += "(0x0, 0x0, 0x%x, 0x0, 0x0, 0x0, 0x0)" % rng.choice([0x10000, 0x20000, 0x100])
    inc.kadd(H, L(kt, k_xid(w, g, 74, body, w.pid[R] if rng.random() < 0.5 else None, "python3"), "key", (("node_key", H),)))
    g2 = None
    if w.gpn > 1 and rng.random() < 0.65:
        g2 = rng.choice([x for x in range(w.gpn) if x != g])
        t2 = kt + rng.uniform(0.3, 4.0)
        for x in k_uuid_lines(w, H, g2, t2):
            inc.kadd(H, x)
        inc.kadd(H, L(t2, k_xid(w, g2, 74, "NVLink: fatal error detected on link %d" % rng.randint(0, 17), None), "collat"))
    if rng.random() < 0.4:
        inc.kadd(H, L(kt + 0.1, "nvidia-nvswitch%d: SXid (PCI:0000:%02x:00.0): 20034, Fatal, Link %d LTSSM Fault Up" % (
            rng.randint(0, 3), rng.choice([5, 6, 7, 8]), rng.randint(0, 63)), "key", (("node_key", H),)))
    te = tf + rng.uniform(0.2, 1.5)
    cudatxt = "uncorrectable NVLink error detected during the execution"
    inc.add(R, L(te - 0.01, nccl_pre(w, R, True, "enqueue.cc:1549") + "Cuda failure '%s'" % cudatxt, "key", (), False))
    head, extra = nccl_error_exc(w, "unhandled cuda error (run with NCCL_DEBUG=INFO for details)", "ncclUnhandledCudaError: Call to CUDA function failed.", "Cuda failure '%s'" % cudatxt)
    frames = train_frames(w) + [site_frame(w, "torch/distributed/c10d_logger.py", rng.choice([72, 75, 83]), "wrapper", "return func(*args, **kwargs)")]
    for x in tb_lines(w, R, te, frames, head, extra):
        inc.add(R, x)
    inc.exits[R] = (te + rng.uniform(0.3, 2), 1)
    inc.end[R] = te
    dead = [R]
    if g2 is not None:
        R2 = w.rank_of(H, g2)
        te2 = t2 + rng.uniform(0.2, 1.0)
        inc.add(R2, L(te2 - 0.01, nccl_pre(w, R2, True, "enqueue.cc:1549") + "Cuda failure '%s'" % cudatxt, "collat", (), False))
        for x in tb_lines(w, R2, te2, frames, head, extra, kind="collat"):
            inc.add(R2, x)
        inc.exits[R2] = (te2 + rng.uniform(0.3, 2), 1)
        inc.end[R2] = te2
        dead.append(R2)
    teardown(w, inc, tf, seq, dead=dead)
    drain(w, inc, tf + rng.uniform(60, 500), H, _nhc_reason(w, H, "NVLink fatal error GPU%d link %d (Xid 74)" % (g, link)), tags=(("node_key", H),))
    inc.dcgm = (H, g, 74)
    inc.variant = "xid74" + ("+sympathetic" if g2 is not None else "")
    inc.notes = "NVLink fatal error (Xid 74) on GPU %d of %s broke rank %d%s; everything else is collateral." % (
        g, H, R, (" and, seconds later, sympathetically GPU %d (rank %d)" % (g2, w.rank_of(H, g2))) if g2 is not None else "")


def c_network(w, inc):
    rng = w.rng
    H = rng.choice(w.hosts)
    inc.init_rank, inc.init_host = None, H
    inc.node_level = True
    inc.node_ranks = w.ranks_on(H)
    tf = w.t_fail
    seq = w.seq_at(tf) + 1
    k = rng.randrange(w.gpn)
    nic = NIC_BUS[k % len(NIC_BUS)]
    ifn = "ibp%ds0" % int(nic, 16)
    flap = rng.random() < 0.6
    inc.kadd(H, L(tf - rng.uniform(0, 0.5), "mlx5_core 0000:%s:00.0 %s: Link down" % (nic, ifn), "key", (("node_key", H),)))
    if flap:
        inc.kadd(H, L(tf + rng.uniform(8, 90), "mlx5_core 0000:%s:00.0 %s: Link up" % (nic, ifn), "info"))
    if rng.random() < 0.4:
        inc.kadd(H, L(tf + 0.2, "mlx5_core 0000:%s:00.0: mlx5_port_module_event:1196:(pid 0): Port module event[error]: module 0, Cable error, Bus stuck (I2C or data shorted)" % nic, "key", (("node_key", H),)))
    Rk = w.rank_of(H, k)
    te = tf + rng.uniform(1, 25)
    inc.add(Rk, L(te - 0.5, nccl_pre(w, Rk, True, "transport/net_ib.cc:%d" % rng.choice([94, 115, 138])) + "NET/IB : Got async event : port error", "key", (("node_key", H),), False))
    peers = [r for r in range(w.world) if w.local(r) == k and w.host_of(r) != H]
    rng.shuffle(peers)
    peer = peers[0] if peers else (Rk + w.gpn) % w.world
    inc.add(Rk, L(te, ib_completion_warn(w, Rk, w.ip[w.host_of(peer)], 12, 129), "key", (("node_key", H),), False))
    head, extra = nccl_error_exc(w, "remote process exited or there was a network error",
                                 "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.",
                                 ib_completion_warn(w, Rk, w.ip[w.host_of(peer)], 12, 129).split("NCCL WARN ", 1)[1])
    frames = train_frames(w) + [site_frame(w, "torch/distributed/distributed_c10d.py", rng.choice([2288, 2501, 2804]), "all_reduce", "work = group.allreduce([tensor], opts)")]
    for x in tb_lines(w, Rk, te + 0.3, frames, head, extra, kind="collat"):
        inc.add(Rk, x)
    inc.exits[Rk] = (te + rng.uniform(0.5, 2), 1)
    inc.end[Rk] = te + 0.3
    dead = [Rk]
    # peers on other nodes on the same rail complain about the bad node's address
    for p in peers[: max(1, min(len(peers), rng.randint(1, 6)))]:
        tp = te + rng.uniform(0.5, 8)
        status = rng.choice([12, 5, 12])
        inc.add(p, L(tp, ib_completion_warn(w, p, w.ip[H], status, rng.choice([129, 244, 0])), "collat", (("ip_named", H),), False))
        hd, ex = nccl_error_exc(w, "remote process exited or there was a network error",
                                "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.")
        for x in tb_lines(w, p, tp + 0.2, frames, hd, ex, kind="collat"):
            inc.add(p, x)
        inc.exits[p] = (tp + rng.uniform(0.5, 2), 1)
        inc.end[p] = tp + 0.2
        dead.append(p)
    teardown(w, inc, tf, seq, dead=dead, remote_err=False)
    if rng.random() < 0.7:
        drain(w, inc, tf + rng.uniform(300, 3000), H, rng.choice([
            "IB port %s/1 flapping, cable check" % ("mlx5_%d" % k), "ufm: mlx5_%d link down events x%d" % (k, rng.randint(2, 9)),
            "NHC: check_hw_ib: Port mlx5_%d:1 state DOWN" % k]), user=rng.choice(["root", "slurm", "admin_" + rng.choice(OTHER_USERS)]), tags=(("node_key", H),))
    inc.ib = (H, k)
    inc.variant = "ib_link_%s" % ("flap" if flap else "down")
    inc.notes = "The InfiniBand link of NIC mlx5_%d on %s went down%s; NCCL on that rail failed and the peers named %s's address; other ranks are collateral." % (
        k, H, " and came back (flap)" if flap else "", H)


def c_cuda_oom(w, inc):
    rng = w.rng
    R = w.pick_rank()
    H, g = w.host_of(R), w.local(R)
    inc.init_rank, inc.init_host = R, H
    tf = w.t_fail
    seq = w.seq_at(tf) + 1
    total = w.gpu_model[1]
    variant = rng.choice(["own", "own", "stale", "shared"] if w.sched == "k8s" else ["own", "own", "stale"])
    inc.variant = variant
    req = rng.choice([0.5, 1.0, 2.0, 3.91, 7.81, 12.5, 20.0])
    free = rng.uniform(0.01, 0.6)
    if variant == "own":
        inproc = total - free - rng.uniform(0.3, 0.6)
        foreign = 0
    else:
        foreign = rng.uniform(9, 34)
        inproc = total - free - foreign
    alloc = inproc - rng.uniform(1, 6)
    reserved = rng.uniform(0.1, inproc - alloc)
    te = tf + rng.uniform(0, 1)
    frames = train_frames(w) + [site_frame(w, "torch/nn/modules/module.py", rng.choice([1532, 1541, 1736]), "_call_impl", "return forward_call(*args, **kwargs)"),
                                ("/workspace/model/attention.py" if rng.random() < 0.5 else w.script.rsplit("/", 1)[0] + "/modeling.py", rng.randint(80, 400), "forward",
                                 rng.choice(["attn = torch.matmul(q, k.transpose(-2, -1)) * self.scale", "logits = self.lm_head(hidden_states).float()", "x = self.act(self.fc1(x))"])) ]
    for x in tb_lines(w, R, te, frames, oom_message(w, g, req, total, free, inproc, alloc, reserved)):
        inc.add(R, x)
    inc.exits[R] = (te + rng.uniform(0.5, 3), 1)
    inc.end[R] = te
    inc.exit_ok = True
    teardown(w, inc, tf, seq, dead=[R])
    if variant != "own":
        inc.foreign_gpu = (H, g, foreign)
    inc.notes = {"own": "Rank %d on %s ran out of GPU memory (its own allocation spike); other ranks are collateral." % (R, H),
                 "stale": "Rank %d on %s hit CUDA OOM because ~%.0f GiB of its GPU was held by a leftover process of an earlier job; still a CUDA OOM on that rank." % (R, H, foreign),
                 "shared": "Rank %d on %s hit CUDA OOM on a time-sliced GPU shared with another pod (~%.0f GiB used by the neighbour)." % (R, H, foreign)}[variant]


def c_illegal_memory_access(w, inc):
    rng = w.rng
    R = w.pick_rank()
    H, g = w.host_of(R), w.local(R)
    inc.init_rank, inc.init_host = R, H
    tf = w.t_fail
    seq = w.seq_at(tf) + 1
    inc.tie = [[("node_key", H), ("busmap", R)], [("node_key", H), ("pidmap", R)]]
    variant = rng.choice(["xid31", "xid31", "xid13_assert"])
    inc.variant = variant
    kt = tf + rng.uniform(-0.2, 0.1)
    for x in k_uuid_lines(w, H, g, kt):
        inc.kadd(H, x)
    nm = rng.choice(["python3", "python", "pt_main_thread"])
    te = tf + rng.uniform(0.05, 1.0)
    frames = train_frames(w)
    if variant == "xid31":
        inc.kadd(H, L(kt, k_xid(w, g, 31, "channel 0x%08x, intr 00000000. MMU Fault: ENGINE GRAPHICS GPC%d GPCCLIENT_T1_%d faulted @ 0x%x_%08x. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_%s" % (
            rng.randint(2, 40), rng.randint(0, 7), rng.randint(0, 15), rng.randint(0x7f00, 0x7fff), rng.randint(0, 0xffffffff) & ~0xfff, rng.choice(["READ", "WRITE"])), w.pid[R], nm), "key", (("node_key", H),)))
        exc = "%s: CUDA error: an illegal memory access was encountered" % cuda_exc_cls(w)
        frames = frames + [("/workspace/kernels/fused_ops.py" if rng.random() < 0.5 else w.site + "/flash_attn/flash_attn_interface.py", rng.randint(40, 400), "forward", "out = _C.fused_forward(x, w, b, self.eps)")]
        pre = []
    else:
        gpc, tpc = rng.randint(0, 7), rng.randint(0, 8)
        inc.kadd(H, L(kt, k_xid(w, g, 13, "Graphics SM Warp Exception on (GPC %d, TPC %d, SM %d): Out Of Range Address" % (gpc, tpc, rng.randint(0, 1)), w.pid[R], nm), "key", (("node_key", H),)))
        inc.kadd(H, L(kt, k_xid(w, g, 13, "Graphics Exception: ESR 0x%x=0x%x 0x%x=0x%x 0x%x=0x%x 0x%x=0x%x" % tuple(rng.randint(0x400000, 0x5fffff) if i % 2 == 0 else rng.randint(0, 0xffffff) for i in range(8)), w.pid[R], nm), "info"))
        inc.kadd(H, L(kt + 2, k_xid(w, g, 43, "Ch 000000%02x" % rng.randint(8, 60), w.pid[R], nm), "info"))
        exc = "%s: CUDA error: device-side assert triggered" % cuda_exc_cls(w)
        pre = []
        kern = rng.choice([("../aten/src/ATen/native/cuda/IndexKernel.cu", 92, "operator()", "-sizes[i] <= index && index < sizes[i] && \"index out of bounds\""),
                           ("../aten/src/ATen/native/cuda/Loss.cu", 250, "nll_loss_forward_reduce_cuda_kernel_2d", "t >= 0 && t < n_classes"),
                           ("../aten/src/ATen/native/cuda/Indexing.cu", 1290, "indexSelectLargeIndex", "srcIndex < srcSelectDimSize")])
        for i in range(rng.randint(2, 6)):
            pre.append(L(te - 0.01, "%s:%d: %s: block: [%d,0,0], thread: [%d,0,0] Assertion `%s` failed." % (kern[0], kern[1], kern[2], rng.randint(0, 4000), rng.randint(0, 127), kern[3]), "key" if i == 0 else "tb", (), False))
    for x in pre:
        inc.add(R, x)
    for x in tb_lines(w, R, te, frames, exc, cuda_err_extra(w)):
        inc.add(R, x)
    inc.exits[R] = (te + rng.uniform(0.3, 2), 1)
    inc.end[R] = te
    teardown(w, inc, tf, seq, dead=[R])
    if rng.random() < 0.55:
        # an over-eager health check drains the node for an application Xid
        drain(w, inc, tf + rng.uniform(30, 300), H, _nhc_reason(w, H, "Xid %s detected on GPU %d" % ("31" if variant == "xid31" else "13", g)), tags=(("node_key", H),))
        inc.variant += "+overeager_drain"
    inc.dcgm = (H, g, 31 if variant.startswith("xid31") else 13)
    inc.notes = "Application GPU fault on rank %d (%s, %s): fix the code; a drain of %s, if any, was an over-reaction." % (
        R, H, "Xid 31 MMU fault / illegal memory access" if variant.startswith("xid31") else "device-side assert, Xid 13", H)


def c_python_exception(w, inc):
    rng = w.rng
    variant = rng.choice(["quota", "purged", "value", "keyerror"])
    inc.variant = variant
    R = 0 if (variant == "quota" and rng.random() < 0.5) else w.pick_rank()
    H = w.host_of(R)
    inc.init_rank, inc.init_host = R, H
    tf = w.t_fail
    seq = w.seq_at(tf) + 1
    te = tf + rng.uniform(0, 1)
    if variant == "quota":
        frames = train_frames(w, "ckpt") + [site_frame(w, "torch/serialization.py", rng.choice([628, 651, 862]), "save", "_save(obj, opened_zipfile, pickle_module, pickle_protocol, _disable_byteorder_record)"),
                                            site_frame(w, "torch/serialization.py", rng.choice([470, 499]), "__exit__", "self.file_like.write_end_of_file()")]
        exc = "OSError: [Errno 122] Disk quota exceeded: '/lustre/%s/ckpt/%s/step_%07d/%s'" % (
            w.user, w.jobname, w.steps_done, "model_%02d.pt" % R if R else "optimizer.pt")
        extra = []
        if rng.random() < 0.5:
            exc = "RuntimeError: [enforce fail at inline_container.cc:%d] . PytorchStreamWriter failed writing file data/%d: file write failed" % (rng.choice([595, 603, 778]), rng.randint(0, 900))
    elif variant == "purged":
        frames = train_frames(w, "data") + [site_frame(w, "torch/utils/data/dataloader.py", rng.choice([630, 631, 701]), "__next__", "data = self._next_data()"),
                                            site_frame(w, "torch/utils/data/dataloader.py", rng.choice([1344, 1370, 1465]), "_next_data", "return self._process_data(data)"),
                                            site_frame(w, "torch/_utils.py", rng.choice([694, 706, 722]), "reraise", "raise exception")]
        shard = "/scratch/%s/data/%s/shard-%05d.%s" % (w.user, rng.choice(["pile", "c4_en", "in22k", "mix_v3"]), rng.randint(0, 20000), rng.choice(["tar", "arrow", "parquet"]))
        exc = "FileNotFoundError: Caught FileNotFoundError in DataLoader worker process %d." % rng.randint(0, 7)
        extra = ["Original Traceback (most recent call last):",
                 '  File "%s/torch/utils/data/_utils/worker.py", line 308, in _worker_loop' % w.site,
                 "    data = fetcher.fetch(index)",
                 '  File "/workspace/data/shards.py", line %d, in __getitem__' % rng.randint(30, 200),
                 "    with open(self.files[idx], \"rb\") as f:",
                 "FileNotFoundError: [Errno 2] No such file or directory: '%s'" % shard]
    elif variant == "value":
        frames = train_frames(w, "step") + [(w.script.rsplit("/", 1)[0] + "/collate.py", rng.randint(20, 120), "__call__", "raise ValueError(f\"sequence length {n} exceeds max_seq_len {self.max_len}\")")]
        exc = "ValueError: sequence length %d exceeds max_seq_len %d" % (rng.choice([8193, 16385, 4097]), rng.choice([8192, 16384, 4096]))
        extra = []
    else:
        frames = train_frames(w, "step") + [(w.script.rsplit("/", 1)[0] + "/metrics.py", rng.randint(20, 120), "update", "self.totals[batch[\"task\"]] += loss.item()")]
        exc = "KeyError: '%s'" % rng.choice(["code_python", "math_v2", "wiki_de", "task"])
        extra = []
    for x in tb_lines(w, R, te, frames, exc, extra):
        inc.add(R, x)
    inc.exits[R] = (te + rng.uniform(0.3, 2), 1)
    inc.end[R] = te
    inc.exit_ok = True
    teardown(w, inc, tf, seq, dead=[R])
    if variant == "quota":
        inc.quota = True
    inc.notes = {"quota": "Rank %d hit the filesystem quota while writing a checkpoint and raised; the others are collateral." % R,
                 "purged": "Rank %d's DataLoader raised FileNotFoundError: its shard was removed by the scratch purge policy; others are collateral." % R,
                 "value": "Rank %d raised ValueError on an over-long sample; the other ranks waited and timed out." % R,
                 "keyerror": "Rank %d raised KeyError in metric bookkeeping; the other ranks are collateral." % R}[variant]


def _oom_kernel(w, H, victim_pid, comm, memcg, invoker, cgroup, uid, rss_kb):
    rng = w.rng
    out = []
    out.append("%s invoked oom-killer: gfp_mask=0x%x(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=%d" % (invoker, rng.choice([0x140cca, 0x100cca, 0xcc0]), rng.choice([0, 0, 200])))
    if cgroup:
        out.append("oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0-1,oom_memcg=%s,task_memcg=%s,task=%s,pid=%d,uid=%d" % (
            memcg.rsplit("/", 2)[0] if memcg.count("/") > 3 else memcg, memcg, comm, victim_pid, uid))
        pre = "Memory cgroup out of memory"
    else:
        out.append("oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0-1,global_oom,task_memcg=%s,task=%s,pid=%d,uid=%d" % (memcg, comm, victim_pid, uid))
        pre = "Out of memory"
    out.append("%s: Killed process %d (%s) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:%d pgtables:%dkB oom_score_adj:0" % (
        pre, victim_pid, comm, rss_kb + rng.randint(10 ** 7, 10 ** 8), rss_kb, rng.randint(10 ** 5, 10 ** 6), rng.randint(10 ** 4, 10 ** 6), uid, rng.randint(10 ** 4, 10 ** 5)))
    out.append("oom_reaper: reaped process %d (%s), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB" % (victim_pid, comm))
    return out


def c_host_oom_kill(w, inc):
    rng = w.rng
    R = w.pick_rank()
    H = w.host_of(R)
    inc.init_rank, inc.init_host = R, H
    tf = w.t_fail
    seq = w.seq_at(tf) + 1
    uid = rng.randint(1000, 40000)
    if w.sched == "k8s":
        variant = rng.choice(["k8s_cgroup", "k8s_worker"])
    else:
        variant = rng.choice(["neighbour", "cgroup", "worker", "neighbour"])
    inc.variant = variant
    kt = tf - rng.uniform(0, 0.3)
    rss = rng.randint(60, 400) * 1024 * 1024
    if w.sched == "k8s":
        memcg = "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod%s.slice/cri-containerd-%s.scope" % (
            "".join(rng.choice("0123456789abcdef_") for _ in range(36)), "".join(rng.choice("0123456789abcdef") for _ in range(64)))
    else:
        memcg = "/system.slice/slurmstepd.scope/job_%d/step_0/user/task_%d" % (w.jobid, w.local(R) if rng.random() < 0.5 else R)
    if variant in ("worker", "k8s_worker"):
        wpid = w.pid[R] + rng.randint(200, 4000)
        comm = "pt_data_worker" if rng.random() < 0.6 else "python3"
        kl = _oom_kernel(w, H, wpid, comm, memcg, comm, w.sched == "k8s" or rng.random() < 0.5, uid, rss // 8)
        te = kt + rng.uniform(0.5, 5)
        frames = train_frames(w, "data") + [site_frame(w, "torch/utils/data/dataloader.py", rng.choice([630, 631, 701]), "__next__", "data = self._next_data()"),
                                            site_frame(w, "torch/utils/data/dataloader.py", rng.choice([1328, 1344]), "_next_data", "idx, data = self._get_data()"),
                                            site_frame(w, "torch/utils/data/dataloader.py", rng.choice([1284, 1294]), "_get_data", "success, data = self._try_get_data()"),
                                            site_frame(w, "torch/utils/data/dataloader.py", rng.choice([1145, 1133]), "_try_get_data", "raise RuntimeError(f'DataLoader worker (pid(s) {pids_str}) exited unexpectedly') from e")]
        if rng.random() < 0.5:
            exc = "RuntimeError: DataLoader worker (pid %d) is killed by signal: Killed. " % wpid
        else:
            exc = "RuntimeError: DataLoader worker (pid(s) %d) exited unexpectedly" % wpid
        for x in tb_lines(w, R, te, frames, exc, [], tags=(("node_oomtie", R),)):
            inc.add(R, x)
        inc.exits[R] = (te + rng.uniform(0.3, 2), 1)
        inc.end[R] = te
        inc.tie = [[("node_key", H), ("pidmap", R)]]
        inc.exit_ok = True
    else:
        invoker = "python3"
        if variant == "neighbour":
            invoker = rng.choice(["java", "R", "python3", "ray::IDLE", "julia"])
        kl = _oom_kernel(w, H, w.pid[R], rng.choice(["python3", "python", "pt_main_thread"]), memcg, invoker, variant in ("cgroup", "k8s_cgroup"), uid, rss)
        inc.exits[R] = (kt + 0.01, -9)
        inc.end[R] = kt
        inc.tie = [[("node_key", H), ("pidmap", R)]]
        inc.exit_ok = True
    for i, txt in enumerate(kl):
        inc.kadd(H, L(kt + i * 0.001, txt, "key" if ("Killed process" in txt or "oom-kill:" in txt) else "info", (("node_key", H),) if "Killed process" in txt else ()))
    if variant == "neighbour":
        w.exclusive = False
        inc.neighbour = dict(host=H, user=rng.choice(OTHER_USERS), jobid=w.jobid + rng.randint(-5000, 5000), comm=invoker)
    teardown(w, inc, tf, seq, dead=[R])
    if variant == "cgroup":
        inc.slurm_oom = True
    if w.sched == "k8s":
        kev(inc, kt + 1, "default", "node/%s" % H, "Warning", "OOMKilling", kl[2], "kernel-monitor", tags=(("node_key", H),))
    inc.notes = {"neighbour": "Another tenant's job on the shared node %s exhausted host memory; the kernel OOM killer picked rank %d (largest RSS). Collateral elsewhere." % (H, R),
                 "cgroup": "Rank %d on %s was killed by the job's own cgroup memory limit (Slurm --mem); the rest is collateral." % (R, H),
                 "worker": "The OOM killer on %s killed a DataLoader worker of rank %d, which then raised; others are collateral." % (H, R),
                 "k8s_cgroup": "Rank %d's process in pod on %s was killed by the container memory limit (cgroup OOM); others are collateral." % (R, H),
                 "k8s_worker": "The container memory limit on %s killed a DataLoader worker of rank %d, which then raised." % (H, R)}[variant]


def c_crash_signal(w, inc):
    rng = w.rng
    R = w.pick_rank()
    H = w.host_of(R)
    inc.init_rank, inc.init_host = R, H
    tf = w.t_fail
    seq = w.seq_at(tf) + 1
    variant = rng.choice(["segv", "segv", "abort", "sigbus"] if w.sched != "k8s" else ["segv", "sigbus", "sigbus", "abort"])
    inc.variant = variant
    te = tf + rng.uniform(0, 0.5)
    pyv = w.py
    if variant == "segv":
        lib = rng.choice(["libfused_ops.so", "_C.cpython-%s-x86_64-linux-gnu.so" % pyv.replace(".", ""), "libtorch_cpu.so", "libnvrtc-builtins.so.12.4"])
        lines = ["Fatal Python error: Segmentation fault", "",
                 "Thread 0x%016x (most recent call first):" % rng.randint(0x7f0000000000, 0x7fffffffffff),
                 '  File "/usr/lib/python%s/threading.py", line 324 in wait' % pyv,
                 '  File "/usr/lib/python%s/threading.py", line 1016 in _bootstrap_inner' % pyv,
                 '  File "/usr/lib/python%s/threading.py", line 973 in _bootstrap' % pyv, "",
                 "Current thread 0x%016x (most recent call first):" % rng.randint(0x7f0000000000, 0x7fffffffffff),
                 '  File "/workspace/ext/rope.py", line %d in apply_rotary' % rng.randint(30, 200),
                 '  File "%s", line %d in forward' % (w.script.rsplit("/", 1)[0] + "/modeling.py", rng.randint(100, 600)),
                 '  File "%s/torch/nn/modules/module.py", line %d in _call_impl' % (w.site, rng.choice([1541, 1747])),
                 '  File "%s", line %d in train' % (w.script, rng.randint(90, 190)),
                 '  File "%s", line %d in main' % (w.script, rng.randint(200, 370)),
                 '  File "%s", line %d in <module>' % (w.script, rng.randint(380, 720)), "",
                 "Extension modules: numpy.core._multiarray_umath, numpy.core._multiarray_tests, numpy.linalg._umath_linalg, torch._C, torch._C._fft, torch._C._linalg, torch._C._nested, torch._C._nn, torch._C._sparse, torch._C._special, yaml._yaml, sentencepiece._sentencepiece (total: %d)" % rng.randint(24, 80)]
        code = -11
        inc.kadd(H, L(te, "%s[%d]: segfault at %x ip %016x sp %016x error %d in %s[%x+%x]" % (
            rng.choice(["python3", "pt_main_thread", "python"]), w.pid[R], rng.choice([0, 8, 0x10, 0x7f3a00000000]), rng.randint(0x7f0000000000, 0x7fffffffffff),
            rng.randint(0x7ff000000000, 0x7fffffffffff), rng.choice([4, 6, 14]), lib, rng.randint(0x7f0000000000, 0x7fffffff0000) & ~0xfff, rng.randint(0x100000, 0x9000000)), "key", (("node_key", H),)))
        inc.tie = [[("node_key", H), ("pidmap", R)]]
    elif variant == "abort":
        lines = ["python3: /workspace/csrc/%s:%d: %s: Assertion `%s' failed." % (
            rng.choice(["fused_rope.cu", "moe_dispatch.cpp", "paged_kv.cu"]), rng.randint(50, 900),
            rng.choice(["void launch_rope(at::Tensor&, int64_t)", "at::Tensor dispatch_tokens(const at::Tensor&, int64_t)"]),
            rng.choice(["n_tokens > 0", "expert_idx < num_experts", "offset + len <= capacity"])),
                 "Fatal Python error: Aborted", "",
                 "Current thread 0x%016x (most recent call first):" % rng.randint(0x7f0000000000, 0x7fffffffffff),
                 '  File "/workspace/ext/moe.py", line %d in forward' % rng.randint(30, 200),
                 '  File "%s", line %d in train' % (w.script, rng.randint(90, 190)),
                 '  File "%s", line %d in <module>' % (w.script, rng.randint(380, 720))]
        code = -6
    else:
        wpid = w.pid[R] + rng.randint(100, 3000)
        lines = ["ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm)."]
        code = 1
    kinds = ["key"] + ["tb"] * (len(lines) - 1)
    for i, (txt, k) in enumerate(zip(lines, kinds)):
        inc.add(R, L(te + i * 0.0001, txt, k, (), False))
    if variant == "sigbus":
        frames = train_frames(w, "data") + [site_frame(w, "torch/utils/data/dataloader.py", rng.choice([630, 631, 701]), "__next__", "data = self._next_data()"),
                                            site_frame(w, "torch/utils/data/dataloader.py", rng.choice([1145, 1133]), "_try_get_data", "raise RuntimeError(f'DataLoader worker (pid(s) {pids_str}) exited unexpectedly') from e")]
        for x in tb_lines(w, R, te + 0.5, frames, "RuntimeError: DataLoader worker (pid %d) is killed by signal: Bus error. It is possible that dataloader's workers are out of shared memory. Please try to raise your shared memory limit." % wpid, []):
            inc.add(R, x)
    inc.exits[R] = (te + rng.uniform(0.01, 0.8), code)
    inc.end[R] = te + 0.6
    inc.exit_ok = True
    teardown(w, inc, tf, seq, dead=[R])
    inc.notes = {"segv": "Rank %d on %s died of SIGSEGV in a native extension (no hardware evidence); others are collateral." % (R, H),
                 "abort": "Rank %d on %s aborted (SIGABRT) on a C++ assertion in a custom op; the later -6 exits of the others are watchdog collateral." % (R, H),
                 "sigbus": "A DataLoader worker of rank %d on %s died of SIGBUS (container /dev/shm too small); others are collateral." % (R, H)}[variant]


def c_preemption(w, inc):
    rng = w.rng
    tp = w.t_fail
    seq = w.seq_at(tp) + 1
    if w.sched == "k8s":
        variant = rng.choice(["pod_priority", "kueue", "node_drain"])
    else:
        variant = rng.choice(["qos_requeue", "qos_requeue", "cancel_grace", "maint_down"])
    inc.variant = variant
    other_job = w.jobid + rng.randint(100, 40000)
    if variant in ("qos_requeue", "cancel_grace", "kueue"):
        inc.init_rank, inc.init_host = None, None
        # everyone gets SIGTERM at about the same time
        for r in range(w.world):
            t = tp + rng.uniform(0, 0.8) + w.skew.get(w.host_of(r), 0) * 0
            if r == 0 and rng.random() < 0.6:
                inc.add(r, L(t + 0.1, "@@PY@@ WARNING [%s] received SIGTERM (signal 15); attempting emergency checkpoint" % w.script_name, "info"))
            if w.launcher == "torchrun" and w.local(r) == 0:
                pass
            inc.exits[r] = (t + rng.uniform(0.5, 20 if r == 0 else 3), -15)
            inc.end[r] = t + 0.5
        # a few slow ranks notice their peers vanish before they die themselves
        for r in rng.sample(range(w.world), min(w.world, rng.randint(0, 4))):
            if r == 0:
                continue
            t = tp + rng.uniform(0.6, 2.0)
            inc.add(r, L(t, nccl_pre(w, r, True, "misc/socket.cc:%d" % rng.choice([47, 538])) + "socketProgress: Connection closed by remote peer %s<%d>" % (
                w.host_of(rng.randrange(w.world)), rng.randint(30000, 60000)), "collat", (), False))
            inc.exits[r] = (t + rng.uniform(0.2, 1.0), -15)
            inc.end[r] = t
        if w.sched == "slurm" or w.sched == "none":
            if variant == "qos_requeue":
                ctld(inc, tp - 0.5, "preempted JobId=%d has been requeued to reclaim resources for JobId=%d" % (w.jobid, other_job), (("preempt", None),))
                ctld(inc, tp + rng.uniform(30, 200), "Requeuing JobId=%d" % w.jobid)
                inc.job_state, inc.job_exit = "PREEMPTED", "0:15"
                inc.requeue = dict(t=tp, by=other_job)
            else:
                ctld(inc, tp - 0.5, "%s: preempted JobId=%d had to be killed" % ("_preempt_jobs", w.jobid), (("preempt", None),))
                inc.job_state, inc.job_exit = "PREEMPTED", "0:15"
            inc.preempt_cancel = dict(t=tp, why="PREEMPTION")
        else:
            wl = "pytorchjob-%s-%s" % (w.kjob, "".join(rng.choice("0123456789abcdef") for _ in range(5)))
            msg = "Preempted to accommodate a workload (UID: %s, JobUID: %s) due to prioritization in the ClusterQueue" % (
                "%08x-%04x-4%03x-a%03x-%012x" % (rng.getrandbits(32), rng.getrandbits(16), rng.getrandbits(12), rng.getrandbits(12), rng.getrandbits(48)),
                "%08x-%04x-4%03x-a%03x-%012x" % (rng.getrandbits(32), rng.getrandbits(16), rng.getrandbits(12), rng.getrandbits(12), rng.getrandbits(48)))
            kev(inc, tp - 1, w.ns, "workload/%s" % wl, "Normal", "Preempted", msg, "kueue-admission", tags=(("preempt", None),))
            kev(inc, tp - 0.8, w.ns, "pytorchjob/%s" % w.kjob, "Normal", "Suspended", "Job suspended", "pytorchjob-controller" if w.k8s_ctrl == "pytorchjob" else "jobset-controller")
            for i in range(w.nnodes):
                kev(inc, tp, w.ns, "pod/%s" % w.pod_name(i), "Normal", "Killing", "Stopping container pytorch", "kubelet")
                inc.pod_state[i] = dict(reason="Error", exit=143, t=tp + rng.uniform(1, 25))
            inc.k8s_job_cond = ("Suspended", "Job suspended: " + msg)
        inc.notes = {"qos_requeue": "The whole job was preempted by higher-priority job %d and requeued; no node or rank is at fault." % other_job,
                     "cancel_grace": "The whole job was preempted (PreemptMode=CANCEL) for a higher-priority job; no node or rank is at fault.",
                     "kueue": "Kueue evicted the whole workload to admit a higher-priority one; no node or rank is at fault."}[variant]
        return
    # one node's ranks are taken away
    H = rng.choice(w.hosts)
    inc.init_rank, inc.init_host = None, H
    inc.node_level = True
    inc.node_ranks = w.ranks_on(H)
    dead = []
    for r in w.ranks_on(H):
        t = tp + rng.uniform(0, 0.6)
        inc.exits[r] = (t + rng.uniform(0.2, 3), -15 if variant != "maint_down" else -9)
        inc.end[r] = t
        dead.append(r)
    if variant == "maint_down":
        reason = rng.choice(["maint CHG%07d BMC/BIOS firmware rollout" % rng.randint(100000, 999999), "scheduled maintenance: kernel 5.15.0-%d reboot" % rng.randint(100, 130),
                             "maintenance window rack %d PDU swap" % rng.randint(1, 40)])
        drain(w, inc, tp - 0.3, H, reason, user="admin_" + rng.choice(OTHER_USERS), tags=(("node_ptr", H),), down=True)
        ctld(inc, tp - 0.2, "Killing JobId=%d on failed node %s" % (w.jobid, H), (("node_ptr", H),))
        inc.job_state, inc.job_exit = "NODE_FAIL", "0:0"
        inc.node_fail = dict(t=tp, host=H)
    elif variant == "pod_priority":
        i = w.host_idx[H]
        kev(inc, tp - 0.5, w.ns, "pod/%s" % w.pod_name(i), "Normal", "Preempted", "Preempted by pod %08x-%04x-%04x-%04x-%012x on node %s" % (
            rng.getrandbits(32), rng.getrandbits(16), rng.getrandbits(16), rng.getrandbits(16), rng.getrandbits(48), H), "default-scheduler", tags=(("node_ptr", H),))
        kev(inc, tp, w.ns, "pod/%s" % w.pod_name(i), "Normal", "Killing", "Stopping container pytorch", "kubelet")
        inc.pod_state[i] = dict(reason="Error", exit=143, t=tp + rng.uniform(1, 25), deleted=True)
    else:  # node_drain
        i = w.host_idx[H]
        drain(w, inc, tp - 2, H, "kubectl drain: maintenance %s" % rng.choice(["CHG%07d" % rng.randint(100000, 999999), "node-image upgrade", "GPU driver 550->570 rollout"]),
              user="admin", tags=(("node_ptr", H),))
        kev(inc, tp, w.ns, "pod/%s" % w.pod_name(i), "Normal", "Killing", "Stopping container pytorch", "kubelet")
        inc.pod_state[i] = dict(reason="Error", exit=143, t=tp + rng.uniform(1, 25), deleted=True)
    if variant == "maint_down":
        teardown(w, inc, tp, seq, dead=dead, job_kill=tp + rng.uniform(0.5, 2), no_srun_kill=True, kill_code=-9)
    else:
        teardown(w, inc, tp, seq, dead=dead)
    inc.notes = {"maint_down": "An admin set %s DOWN for a maintenance window while the job ran; its ranks were killed and the rest failed as collateral (resubmit; nothing to fix in the job)." % H,
                 "pod_priority": "The worker pod on %s was preempted by a higher-priority pod; the remaining ranks failed as collateral." % H,
                 "node_drain": "An operator drained %s (kubectl drain) for maintenance; the evicted worker's peers failed as collateral." % H}[variant]


def _pyspy(w, rk, where):
    rng = w.rng
    h = w.host_of(rk)
    out = ["Process %d: %s -u %s %s" % (w.pid[rk], "/usr/bin/python3", w.script, "--config configs/%s.yaml" % w.jobname),
           "Python v%s.%d (/usr/bin/python%s)" % (w.py, rng.randint(4, 14), w.py), "",
           "Thread %d (%s): \"MainThread\"" % (w.pid[rk], where[0])]
    for fn, f, ln in where[1]:
        out.append("    %s (%s:%d)" % (fn, f, ln))
    out.append("Thread %d (idle): \"Thread-2 (_pin_memory_loop)\"" % (w.pid[rk] + rng.randint(100, 900)))
    out += ["    wait (threading.py:327)", "    get (queue.py:180)", "    _pin_memory_loop (torch/utils/data/_utils/pin_memory.py:%d)" % rng.choice([51, 53])]
    return "\n".join(out) + "\n"


def pyspy_extra(w, R, wh):
    """py-spy dump of the stuck rank, named either by rank or by host+pid."""
    H = w.host_of(R)
    if w.rng.random() < 0.5:
        return ("py-spy-dump-rank%d.txt" % R, _pyspy(w, R, wh), (("pointer", R),))
    return ("py-spy_%s_pid%d.txt" % (H, w.pid[R]), _pyspy(w, R, wh), (("node_ptr", H), ("pyspy_pid", R)))


def c_hang(w, inc):
    rng = w.rng
    R = w.pick_rank()
    H = w.host_of(R)
    inc.init_rank, inc.init_host = R, H
    tf = w.t_fail
    seq = w.seq_at(tf) + 1
    variant = rng.choice(["lock", "cuda_sync", "ckpt_io", "cond"])
    inc.variant = variant
    teardown(w, inc, tf, seq, stuck=[R])
    wh = {"lock": ("active", [("acquire", "logging/__init__.py", 917), ("handle", "logging/__init__.py", 978), ("emit", "/workspace/utils/logging.py", 64),
                              ("info", "logging/__init__.py", 1477), ("log_metrics", w.script, rng.randint(60, 120)), ("train", w.script, rng.randint(130, 190))]),
          "cuda_sync": ("active", [("synchronize", "torch/cuda/__init__.py", rng.choice([783, 892, 954])), ("step_end", "/workspace/utils/timers.py", rng.randint(30, 90)),
                                   ("train", w.script, rng.randint(130, 190)), ("main", w.script, rng.randint(200, 300))]),
          "ckpt_io": ("idle", [("write", "fsspec/implementations/local.py", 403), ("save", "torch/serialization.py", 651),
                               ("save_aux_state", "/workspace/utils/ckpt.py", rng.randint(20, 100)), ("train", w.script, rng.randint(130, 190))]),
          "cond": ("idle", [("wait", "threading.py", 324), ("wait_for_prefetch", "/workspace/data/prefetch.py", rng.randint(40, 140)),
                            ("train", w.script, rng.randint(130, 190)), ("main", w.script, rng.randint(200, 300))])}[variant]
    if rng.random() < 0.55:
        inc.extras.append(pyspy_extra(w, R, wh))
    if rng.random() < 0.45 or not inc.extras:
        inc.extras.append(("fr_trace_analysis.txt", fr_analysis(w, seq, missing=[R]), (("pointer", R),)))
    inc.notes = "Rank %d on %s stopped making progress (%s) and never joined collective %d; every other rank's watchdog timeout is collateral." % (
        R, H, {"lock": "deadlock on a logging lock", "cuda_sync": "stuck in cuda synchronize", "ckpt_io": "blocked writing an auxiliary checkpoint file", "cond": "waiting on a prefetch condition that never fired"}[variant], seq)


def fr_analysis(w, seq, missing=(), culprit=None, mtype=None, detail=None):
    rng = w.rng
    op, numel = coll(w)
    name = {"ALLREDUCE": "nccl:all_reduce", "_ALLGATHER_BASE": "nccl:_all_gather_base", "_REDUCE_SCATTER_BASE": "nccl:_reduce_scatter_base",
            "ALLGATHER": "nccl:all_gather"}.get(op, "nccl:all_reduce")
    out = ["$ torchfrtrace /lustre/%s/fr_dumps/%d -j --prefix nccl_trace_rank_" % (w.user, w.jobid),
           "loaded %d dumps" % min(w.world, rng.choice([w.world, w.world - len(missing)])), ""]
    if missing:
        out += ["Not all ranks joining collective %d at entry %d" % (seq, rng.randint(100, 1999)),
                "internal record id: %d" % rng.randint(1000, 99999),
                "group info: 0:default_pg",
                "collective: %s" % name,
                "missing ranks: {%s}" % ", ".join(str(m) for m in missing),
                "input sizes: [[%d]]" % numel, "output sizes: [[%d]]" % numel,
                "world size: %d" % w.world,
                "expected ranks: {%s}" % (", ".join(str(i) for i in range(w.world)) if w.world <= 16 else "0, 1, 2, ..., %d" % (w.world - 1)),
                "collective state: scheduled", "collective stack trace:",
                "     all_reduce at %s/torch/distributed/distributed_c10d.py:%d" % (w.site, rng.choice([2288, 2501])),
                "     train at %s:%d" % (w.script, rng.randint(130, 190))]
    if culprit is not None:
        out += ["Collective %d at entry %d error" % (seq, rng.randint(100, 1999)),
                "internal record id: %d" % rng.randint(1000, 99999), "group info: 0:default_pg", "collective: %s" % name,
                "error msg: Culprit rank %d; Error type: %s, %s" % (culprit, mtype, detail)]
    return "\n".join(out) + "\n"


def c_data_loader_stall(w, inc):
    rng = w.rng
    tf = w.t_fail
    seq = w.seq_at(tf) + 1
    variant = rng.choice(["shard", "shard", "shard_timeout", "nfs_node"])
    inc.variant = variant
    fsname = rng.choice(["nfs-scratch02", "vast-data01", "fs-proj.internal", "10.%d.0.%d" % (rng.randint(1, 40), rng.randint(2, 40))])
    if variant == "nfs_node":
        H = rng.choice(w.hosts)
        inc.init_rank, inc.init_host = None, H
        inc.node_level = True
        inc.node_ranks = w.ranks_on(H)
        stuck = w.ranks_on(H)
        R = stuck[0]
        for k in range(rng.randint(2, 6)):
            inc.kadd(H, L(tf - 30 + k * rng.uniform(20, 180), "nfs: server %s not responding, still trying" % fsname, "key", (("node_key", H),)))
        teardown(w, inc, tf, seq, stuck=stuck)
        inc.notes = "The NFS mount on %s stopped responding (a neighbour job was saturating the filer); all ranks on that node stalled in data loading and the others timed out." % H
    else:
        R = w.pick_rank()
        H = w.host_of(R)
        inc.init_rank, inc.init_host = R, H
        if rng.random() < 0.5:
            lus = rng.choice(["scratch", "proj", "data"])
            ost = rng.randint(0, 0x7f)
            inc.kadd(H, L(tf - rng.uniform(10, 200), "Lustre: %s-OST%04x-osc-ffff%04x%08x: Connection to %s-OST%04x (at 10.%d.4.%d@o2ib) was lost; in progress operations using this service will wait for recovery to complete" % (
                lus, ost, rng.randint(0x8000, 0xffff), rng.getrandbits(32), lus, ost, rng.randint(1, 40), rng.randint(2, 250)), "info"))
        if variant == "shard_timeout" and w.timeout_ms > 600000:
            tt = tf + rng.choice([300, 600])
            frames = train_frames(w, "data") + [site_frame(w, "torch/utils/data/dataloader.py", rng.choice([630, 631, 701]), "__next__", "data = self._next_data()"),
                                                site_frame(w, "torch/utils/data/dataloader.py", rng.choice([1328, 1344]), "_next_data", "idx, data = self._get_data()"),
                                                site_frame(w, "torch/utils/data/dataloader.py", rng.choice([1284, 1290]), "_get_data", "success, data = self._try_get_data()"),
                                                site_frame(w, "torch/utils/data/dataloader.py", rng.choice([1146, 1152]), "_try_get_data", "raise RuntimeError(f'DataLoader timed out after {timeout} seconds') from e")]
            for x in tb_lines(w, R, tt, frames, "RuntimeError: DataLoader timed out after %d seconds" % int(tt - tf), []):
                inc.add(R, x)
            inc.exits[R] = (tt + rng.uniform(0.5, 2), 1)
            inc.end[R] = tt
            inc.exit_ok = True
            teardown(w, inc, tf, seq, dead=[R])
        else:
            teardown(w, inc, tf, seq, stuck=[R])
        if rng.random() < 0.6:
            wh = ("idle", [("poll", "multiprocessing/connection.py", 257), ("wait", "multiprocessing/connection.py", 1136),
                           ("get", "multiprocessing/queues.py", 113), ("_try_get_data", "torch/utils/data/dataloader.py", 1133),
                           ("_get_data", "torch/utils/data/dataloader.py", 1294), ("_next_data", "torch/utils/data/dataloader.py", 1328),
                           ("__next__", "torch/utils/data/dataloader.py", 631), ("train", w.script, rng.randint(130, 190))])
            inc.extras.append(pyspy_extra(w, R, wh))
        if rng.random() < 0.3 or not inc.extras:
            inc.extras.append(("fr_trace_analysis.txt", fr_analysis(w, seq, missing=[R]), (("pointer", R),)))
        inc.notes = "Rank %d on %s was stuck in its DataLoader (its shard sat on a storage target saturated by another tenant) and never joined collective %d; the others timed out." % (R, H, seq)
    inc.fs_neighbour = dict(fs=fsname, user=rng.choice(OTHER_USERS), jobid=w.jobid + rng.randint(-9000, 9000))


def c_collective_mismatch(w, inc):
    rng = w.rng
    R = w.pick_rank()
    H = w.host_of(R)
    inc.init_rank, inc.init_host = R, H
    tf = w.t_fail
    seq = w.seq_at(tf) + 1
    op, numel = coll(w)
    variant = rng.choice(["type", "size", "extra_barrier"])
    inc.variant = variant
    if variant == "type":
        op2 = "ALLGATHER" if op != "ALLGATHER" else "ALLREDUCE"
        mm = {R: (op2, numel, seq)}
        det = "Expected collective type: %s does not match found collective type: %s" % (
            "nccl:all_reduce" if op == "ALLREDUCE" else "nccl:" + op.lower().strip("_"), "nccl:" + op2.lower())
        mtype = "COLLECTIVE_TYPE_MISMATCH"
    elif variant == "size":
        mm = {R: (op, numel // rng.choice([2, 4, 8]) + rng.randint(1, 999), seq)}
        det = "Expected input sizes: '[[%d]]' does not match found input sizes: '[[%d]]'" % (numel, mm[R][1])
        mtype = "SIZE_OR_SYNTAX_MISMATCH"
    else:
        mm = {R: ("ALLREDUCE", 1, seq)}
        det = "Expected input sizes: '[[%d]]' does not match found input sizes: '[[1]]'" % numel
        mtype = "SIZE_OR_SYNTAX_MISMATCH"
    teardown(w, inc, tf, seq, mismatch=mm)
    # keep the real collective of the others consistent with the mismatch text
    inc.extras.append(("fr_trace_analysis.txt", fr_analysis(w, seq, culprit=R, mtype=mtype, detail=det), (("pointer", R),)))
    inc.notes = "Rank %d issued a different collective at sequence %d (%s) than its peers (code path divergence); everyone hung and timed out." % (
        R, seq, {"type": "%s instead of the others' collective" % mm[R][0], "size": "different tensor size", "extra_barrier": "an extra 1-element all_reduce / barrier"}[variant])


def c_straggler(w, inc):
    rng = w.rng
    variant = rng.choice(["thermal", "thermal", "neighbour_pcie", "neighbour_cpu"])
    inc.variant = variant
    H = rng.choice(w.hosts)
    if variant == "thermal":
        g = rng.randrange(w.gpn)
        R = w.rank_of(H, g)
        inc.init_rank, inc.init_host = R, H
        slow = {R: rng.uniform(1.45, 2.3)}
        inc.dcgm_throttle = (H, g)
    else:
        inc.init_rank, inc.init_host = None, H
        inc.node_level = True
        inc.node_ranks = w.ranks_on(H)
        w.exclusive = False
        f = rng.uniform(1.35, 2.0)
        slow = {r: f * rng.uniform(0.97, 1.05) for r in w.ranks_on(H)}
        inc.neighbour = dict(host=H, user=rng.choice(OTHER_USERS), jobid=w.jobid + rng.randint(-5000, 5000),
                             comm=rng.choice(["ior", "fio", "nccl-tests", "dcgmproftester12", "python3"]) if variant == "neighbour_pcie" else rng.choice(["python3", "java", "spark-executor", "R"]))
    inc.slow = slow
    t_slow = w.t_train + (w.t_fail - w.t_train) * rng.uniform(0.1, 0.6)
    inc.slow_from = t_slow
    inc.slow_factor = max(slow.values()) * rng.uniform(0.95, 1.0)
    inc.timing = True
    end_kind = rng.choice(["cancel", "timeout", "running"] if w.sched != "k8s" else ["cancel", "running"])
    t_end = w.t_fail + (w.t_fail - t_slow) * (inc.slow_factor - 1)
    if end_kind == "cancel":
        inc.user_cancel = t_end
        if w.sched == "k8s":
            for i in range(w.nnodes):
                kev(inc, t_end, w.ns, "pod/%s" % w.pod_name(i), "Normal", "Killing", "Stopping container pytorch", "kubelet")
                inc.pod_state[i] = dict(reason="Error", exit=143, t=t_end + rng.uniform(1, 20))
        for r in range(w.world):
            inc.exits[r] = (t_end + rng.uniform(0.2, 2), -15)
            inc.end[r] = t_end
        inc.job_state, inc.job_exit = "CANCELLED by %d" % rng.randint(1000, 40000), "0:15"
    elif end_kind == "timeout":
        inc.time_limit = t_end
        for r in range(w.world):
            inc.exits[r] = (t_end + rng.uniform(0.2, 2), -15)
            inc.end[r] = t_end
        inc.job_state, inc.job_exit = "TIMEOUT", "0:0"
    else:
        inc.running = True
        for r in range(w.world):
            inc.exits[r] = (t_end, None)
            inc.end[r] = t_end
        inc.job_state, inc.job_exit = "RUNNING", "0:0"
    inc.variant += "+" + end_kind
    inc.notes = ("GPU %d of %s was thermally throttled; rank %d computed %.1fx slower and held every step back." % (inc.dcgm_throttle[1], H, inc.init_rank, inc.slow_factor)
                 if variant == "thermal" else
                 "A neighbour tenant's job on the shared node %s saturated its %s; all ranks on %s ran ~%.1fx slower and held the job back." % (
                     H, "PCIe/NIC" if variant == "neighbour_pcie" else "CPU cores", H, inc.slow_factor))


def c_unknown(w, inc):
    rng = w.rng
    tf = w.t_fail
    seq = w.seq_at(tf) + 1
    variant = rng.choice(["collateral_only", "node_silent", "exit_no_trace"])
    inc.variant = variant
    if variant == "collateral_only":
        inc.init_rank, inc.init_host = None, None
        teardown(w, inc, tf, seq)
        inc.notes = "Every rank timed out on the same collective with nothing initiator-grade anywhere (no stuck rank, no kernel or scheduler event): cause not determinable from these files."
    elif variant == "node_silent":
        H = rng.choice(w.hosts)
        inc.init_rank, inc.init_host = None, H
        inc.node_level = True
        inc.node_ranks = w.ranks_on(H)
        dead = w.ranks_on(H)
        for r in dead:
            inc.end[r] = tf
            inc.exits[r] = (tf + 0.01, -9)
        if w.sched == "k8s":
            kev(inc, tf + rng.uniform(40, 60), "default", "node/%s" % H, "Normal", "NodeNotReady", "Node %s status is now: NodeNotReady" % H, "node-controller", tags=(("node_ptr", H),))
            i = w.host_idx[H]
            tk = tf + rng.uniform(330, 400)
            kev(inc, tk, w.ns, "pod/%s" % w.pod_name(i), "Normal", "TaintManagerEviction", "Marking for deletion Pod %s/%s" % (w.ns, w.pod_name(i)), "taint-controller")
            inc.pod_state[i] = dict(reason="ContainerStatusUnknown", exit=137, t=tk)
            for j in range(w.nnodes):
                if j != i:
                    kev(inc, tk + rng.uniform(3, 10), w.ns, "pod/%s" % w.pod_name(j), "Normal", "Killing", "Stopping container pytorch", "kubelet")
            teardown(w, inc, tf, seq, dead=dead, remote_err=True, job_kill=tk + 5, no_srun_kill=True)
        else:
            ctld(inc, tf + rng.uniform(80, 120), "error: Nodes %s not responding" % H, (("node_ptr", H),))
            ctld(inc, tf + rng.uniform(290, 320), "error: Nodes %s not responding, setting DOWN" % H, (("node_ptr", H),))
            ctld(inc, tf + rng.uniform(321, 330), "Killing JobId=%d on failed node %s" % (w.jobid, H), (("node_ptr", H),))
            inc.job_state, inc.job_exit = "NODE_FAIL", "0:0"
            inc.node_fail = dict(t=tf + 331, host=H)
            inc.kernel_reboot = (H, tf + rng.uniform(500, 900))
            teardown(w, inc, tf, seq, dead=dead, remote_err=True, job_kill=tf + 332, no_srun_kill=True, kill_code=-9)
        for r in dead:
            inc.exits[r] = (tf + (330 if w.sched != "k8s" else 400), -9)
        inc.notes = "Node %s stopped responding mid-step (no kernel log survived: it rebooted); its ranks went silent first and the rest were cut off. Why the node died is unknown." % H
    else:
        R = w.pick_rank()
        H = w.host_of(R)
        inc.init_rank, inc.init_host = R, H
        te = tf + rng.uniform(0, 1)
        inc.add(R, L(te - 0.2, "@@PY@@ ERROR [%s] fatal error in step %d, see %s" % (w.script_name, w.steps_done, "/tmp/%s-%d.log" % (w.script_name, R)), "info"))
        inc.exits[R] = (te, 1)
        inc.end[R] = te
        inc.exit_ok = True
        teardown(w, inc, tf, seq, dead=[R])
        inc.notes = "Rank %d exited with status 1 first; its own error text went to a file that was not attached, so what went wrong is unknown." % R


def c_healthy(w, inc):
    rng = w.rng
    inc.healthy = True
    variant = rng.choice(["neighbour_drain", "requeue_resumed", "time_limit_warn", "neighbour_oom", "scary_warnings", "elastic_restart"]
                         if w.sched != "k8s" else ["neighbour_evict", "neighbour_oom", "scary_warnings", "pod_restart", "neighbour_drain"])
    if variant == "elastic_restart" and w.launcher != "torchrun":
        variant = "requeue_resumed" if w.sched == "slurm" else "scary_warnings"
    if variant == "requeue_resumed" and w.sched != "slurm":
        variant = "scary_warnings"
    inc.variant = variant
    inc.job_state, inc.job_exit = "COMPLETED", "0:0"
    if variant == "requeue_resumed":
        tp = w.t_train + (w.t_done - w.t_train) * rng.uniform(0.2, 0.6)
        other = w.jobid + rng.randint(100, 9000)
        gap = rng.uniform(120, 5000)
        inc.requeue = dict(t=tp, by=other, gap=gap, resumed=True)
        ctld(inc, tp - 0.5, "preempted JobId=%d has been requeued to reclaim resources for JobId=%d" % (w.jobid, other))
        ctld(inc, tp + 60, "Requeuing JobId=%d" % w.jobid)
        ctld(inc, tp + gap, "sched: Allocate JobId=%d NodeList=%s #CPUs=%d Partition=%s" % (w.jobid, w.nodelist(), w.nnodes * 96, w.partition))
        inc.notes = "The job was preempted and requeued once, resumed from its checkpoint (SLURM_RESTART_COUNT=1) and completed."
    elif variant == "elastic_restart":
        tp = w.t_train + (w.t_done - w.t_train) * rng.uniform(0.1, 0.5)
        inc.restart = dict(t=tp, rank=w.pick_rank(), gap=rng.uniform(20, 120))
        inc.notes = "A worker failed once (transient NCCL socket error), torchrun restarted the group (attempt_1) from the last checkpoint and the job completed."
    elif variant == "pod_restart":
        tp = w.t_train + (w.t_done - w.t_train) * rng.uniform(0.1, 0.5)
        inc.restart = dict(t=tp, rank=w.pick_rank(), gap=rng.uniform(30, 200))
        inc.notes = "One worker failed once (transient NCCL socket error); the elastic agents restarted the worker group in place (restart_count=1), it resumed from checkpoint and succeeded."
    elif variant == "time_limit_warn":
        inc.tl_warn = True
        inc.notes = "The job received the pre-time-limit signal (--signal=USR1), wrote a checkpoint, and finished its last steps before the limit; COMPLETED."
    elif variant == "neighbour_oom":
        inc.neighbour_oom = True
        inc.notes = "The kernel OOM killer fired on a node shared with another tenant and killed that tenant's process; this job was untouched and completed."
    elif variant == "neighbour_evict":
        inc.neighbour_evict = True
        inc.notes = "Pods of other namespaces were evicted / OOM-killed on the same nodes (node pressure); this job was not affected and succeeded."
    elif variant == "neighbour_drain":
        inc.notes = "Nodes the job never used were drained for GPU faults while it ran; the job completed normally."
    else:
        inc.notes = "Startup retries, a benign row-remap event and NCCL warnings look alarming, but the job completed normally."
        inc.scary = True
    for r in range(w.world):
        inc.exits[r] = (w.t_done + rng.uniform(2, 20), 0)
        inc.end[r] = w.t_done + 1
    inc.t_end = w.t_done + 25


CAUSE_FN = {
    "gpu_hardware": c_gpu_hardware, "ecc_memory": c_ecc_memory, "nvlink": c_nvlink, "network": c_network,
    "cuda_oom": c_cuda_oom, "illegal_memory_access": c_illegal_memory_access, "python_exception": c_python_exception,
    "host_oom_kill": c_host_oom_kill, "crash_signal": c_crash_signal, "preemption": c_preemption, "hang": c_hang,
    "data_loader_stall": c_data_loader_stall, "collective_mismatch": c_collective_mismatch, "straggler": c_straggler,
    "unknown": c_unknown,
}


# --------------------------------------------------------------------------
# rank streams (with straggler timings and healthy restarts)
# --------------------------------------------------------------------------
def timing_lines(w, inc, rk, t_end):
    rng = w.rng
    out = []
    if not inc.timing:
        return out
    small = w.world <= 64
    every = max(10, int(w.steps_done / rng.choice([8, 12, 20])) // 10 * 10)
    base_ms = w.step_time * 1000
    f_r = inc.slow.get(rk, 1.0)
    fmax = inc.slow_factor
    show_host = getattr(w, "_timing_host", None)
    if show_host is None:
        w._timing_host = show_host = rng.random() < 0.5
    s = every
    while True:
        t = w.t_train + s * w.step_time
        slowed = inc.slow_from and t > inc.slow_from
        if slowed:
            t = inc.slow_from + (t - inc.slow_from) * fmax
        if t > t_end:
            break
        if small or rk == 0 or rk in inc.slow or rk % max(1, w.world // 16) == 0:
            fr = f_r if slowed else 1.0
            fm = fmax if slowed else 1.0
            comp = base_ms * 0.78 * fr
            data = base_ms * 0.02 * (fr * 3 if (inc.variant.startswith("neighbour_cpu") and fr > 1.1) else 1)
            wait = max(3.0, base_ms * 0.78 * (fm - fr)) + base_ms * 0.12
            hostpart = (" host=%s" % w.host_of(rk)) if show_host else ""
            tags = []
            if fr > 1.1:
                tags.append(("slow", rk))
                if show_host:
                    tags.append(("host_map", rk))
            out.append(L(t + rng.uniform(0.001, 0.04), "@@PY@@ INFO [timers] rank=%d%s step=%d fwd=%.0fms bwd=%.0fms data=%.0fms optim=%.0fms allreduce_wait=%.0fms" % (
                rk, hostpart, s, comp * 0.33 * rng.uniform(0.97, 1.03), comp * 0.67 * rng.uniform(0.97, 1.03), data * rng.uniform(0.8, 1.3), base_ms * 0.05 * rng.uniform(0.95, 1.05), wait * rng.uniform(0.9, 1.1)),
                "key" if fr > 1.1 else "info", tuple(tags), True))
        if rk == 0 and slowed and not small and rng.random() < 0.5:
            worst = sorted(inc.slow.items(), key=lambda kv: -kv[1])[:4]
            txt = ", ".join("rank %d (%s) %.2fx" % (r, w.host_of(r), f) for r, f in worst)
            tags = []
            for r, f in worst:
                tags += [("slow", r), ("host_map", r)]
            out.append(L(t + 0.01, "@@PY@@ WARNING [straggler] slowest ranks by step time vs median: %s" % txt, "key", tuple(tags), True))
        s += every
    return out


def restart_plan(w, info):
    """Second attempt: starts at t2, resumes from the last checkpoint step."""
    if "t2" not in info:
        info["t2"] = info["t"] + info["gap"]
        info["from_step"] = max(0, int((info["t"] - w.t_train) / w.step_time) // 100 * 100)
        info["shift_p"] = (info["t2"] - w.t0) - info["from_step"] * w.step_time
        info["t_done2"] = w.t_done + info["shift_p"]
    return info


def baseline_shifted(w, inc, rk, info):
    """Lines of a restarted attempt: init lines + progress, shifted in time."""
    out = []
    t2, shift_p, from_step, t_to = info["t2"], info["shift_p"], info["from_step"], info["t_done2"]
    for x in baseline(w, rk, None, w.t_train):
        if x.kind != "progress":
            out.append(L(x.t - w.t0 + t2, x.text, x.kind, x.tags, x.selfid))
    if rk == 0:
        out.append(L(t2 + w.startup - 1, "@@PY@@ INFO [%s] resuming from /lustre/%s/ckpt/%s/step_%07d" % (
            w.script_name, w.user, w.jobname, from_step), "info"))
        for x in progress_lines(w, inc, w.t_done):
            if x.t > w.t_train + from_step * w.step_time:
                out.append(L(x.t + shift_p, x.text, x.kind))
        out.append(L(t_to - 0.5, "@@PY@@ INFO [%s] training complete: %d steps, final checkpoint written" % (w.script_name, w.total_steps), "progress"))
    return [x for x in out if x.t <= t_to]


def build_stream(w, inc, rk, cache):
    if rk in cache:
        return cache[rk]
    segs = []
    rq = inc.requeue
    rs = inc.restart
    if inc.healthy and rq and rq.get("resumed"):
        tp = rq["t"]
        a = baseline(w, rk, inc, tp)
        if rk == 0:
            a.append(L(tp + 0.2, "@@PY@@ WARNING [%s] received SIGTERM (signal 15); attempting emergency checkpoint" % w.script_name, "info"))
            a.append(L(tp + 21.5, "@@PY@@ INFO [%s] saved checkpoint to /lustre/%s/ckpt/%s/step_%07d (%.1f s)" % (
                w.script_name, w.user, w.jobname, restart_plan(w, rq)["from_step"], 21.1), "info"))
        segs.append(a)
        segs.append(baseline_shifted(w, inc, rk, restart_plan(w, rq)))
    elif inc.healthy and rs:
        tp = rs["t"]
        a = baseline(w, rk, inc, tp)
        if rk == rs["rank"]:
            peer = w.host_of((rk + w.gpn) % w.world)
            a.append(L(tp, nccl_pre(w, rk, True, "misc/socket.cc:%d" % w.rng.choice([47, 538])) + "socketProgress: Connection reset by peer %s<%d>" % (peer, w.rng.randint(30000, 60000)), "collat", (), False))
            head, extra = nccl_error_exc(w, "unhandled system error (run with NCCL_DEBUG=INFO for details)",
                                         "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. ",
                                         "socketProgress: Connection reset by peer")
            a += tb_lines(w, rk, tp + 0.1, train_frames(w), head, extra, kind="collat")
        segs.append(a)
        segs.append(baseline_shifted(w, inc, rk, restart_plan(w, rs)))
    else:
        end = inc.end.get(rk, w.t_done)
        a = baseline(w, rk, inc, end) + inc.lines.get(rk, []) + timing_lines(w, inc, rk, end)
        if inc.healthy and rk == 0:
            a.append(L(w.t_done - 0.2, "@@PY@@ INFO [%s] training complete: %d steps, final checkpoint written" % (w.script_name, w.total_steps), "progress"))
        if inc.healthy and getattr(inc, "tl_warn", False) and rk == 0:
            a.append(L(w.t_done - w.rng.uniform(200, 500), "@@PY@@ WARNING [%s] caught SIGUSR1: allocation ends in ~10 min, writing checkpoint now" % w.script_name, "info"))
        segs.append(a)
    out = []
    for i, s in enumerate(segs):
        s.sort(key=lambda x: x.t)
        out.append(s)
    cache[rk] = out
    return out


def attempt_exits(w, inc):
    """Per attempt: rank -> (t, code).  Computed once per run."""
    if getattr(inc, "_attempts", None) is None:
        inc._attempts = _attempt_exits(w, inc)
    return inc._attempts


def _attempt_exits(w, inc):
    if inc.healthy and (inc.requeue or inc.restart):
        info = inc.requeue or inc.restart
        tp = info["t"]
        first = {}
        for r in range(w.world):
            if inc.restart and r == inc.restart["rank"]:
                first[r] = (tp + 0.3, 1)
            else:
                first[r] = (tp + w.rng.uniform(0.5, 4), -15)
        restart_plan(w, info)
        second = {r: (info["t_done2"] + w.rng.uniform(0.5, 8), 0) for r in range(w.world)}
        inc.t_end = info["t_done2"] + 10
        return [first, second]
    return [inc.exits]


# --------------------------------------------------------------------------
# truth
# --------------------------------------------------------------------------
def decide(w, inc, seen):
    R, H = inc.init_rank, inc.init_host
    rank = node = None
    stuck = getattr(inc, "stuck", [])
    n_wd = sum(1 for t in seen if t[0] == "wd")

    def silent(r):
        # a rank whose complete log is present with no timeout while its peers timed out,
        # or the one rank missing from a complete set of peer timeouts
        if r not in stuck or ("wd", r) in seen:
            return False
        return (("full", r) in seen and n_wd >= 2) or n_wd >= w.world - len(stuck)

    if R is not None:
        if ("rank_key", R) in seen or ("pointer", R) in seen or ("slow", R) in seen or ("node_oomtie", R) in seen or silent(R):
            rank = R
        elif inc.exit_ok and ("exit_seen", R) in seen:
            rank = R
        elif ("pyspy_pid", R) in seen and ("pidmap", R) in seen:
            rank = R
        else:
            for req in inc.tie:
                if all(t in seen for t in req):
                    rank = R
    if H is not None:
        if ("node_key", H) in seen or ("node_ptr", H) in seen:
            node = H
        elif ("ip_named", H) in seen and ("ip_map", H) in seen:
            node = H
        elif rank is not None and ("host_map", R) in seen:
            node = H
        elif inc.node_ranks:
            for r in inc.node_ranks:
                if (("pointer", r) in seen or ("slow", r) in seen or ("rank_key", r) in seen or silent(r)) and ("host_map", r) in seen:
                    node = H
                    break
    if rank is None and node is None:
        return None
    return {"rank": rank, "node": node}


class Seen:
    def __init__(self):
        self.s = set()

    def add_line(self, x, rk=None, ctx_id=False, ctx_host=False):
        for t in x.tags:
            self.s.add(t)
        if x.kind == "key":
            self.s.add(("keyline", rk))
        if rk is not None:
            if x.kind == "key" and (x.selfid or ctx_id):
                self.s.add(("rank_key", rk))
            if ctx_host:
                self.s.add(("host_map", rk))

    def add(self, *tags):
        for t in tags:
            self.s.add(t)

    def __contains__(self, t):
        return t in self.s


# --------------------------------------------------------------------------
# launcher epilogues
# --------------------------------------------------------------------------
def task_ranges(ids):
    ids = sorted(ids)
    parts = []
    a = b = ids[0]
    for k in ids[1:]:
        if k == b + 1:
            b = k
            continue
        parts.append((a, b))
        a = b = k
    parts.append((a, b))
    return ",".join(str(a) if a == b else "%d-%d" % (a, b) for a, b in parts)


def srun_code_text(code, oom_host=False):
    if code is None:
        return None
    if code == -9:
        return "Out Of Memory" if oom_host else "Killed"
    if code == -11:
        return "Segmentation fault (core dumped)"
    if code == -6:
        return "Aborted (core dumped)"
    if code == -15:
        return "Terminated"
    if code == -7:
        return "Bus error (core dumped)"
    if code == 0:
        return None
    return "Exited with exit code %d" % code


def srun_epilogue(w, inc, exits, attempt_idx=0):
    """srun / slurmstepd lines for a step with one task per GPU (-> [(t, text, tags)])."""
    rng = w.rng
    out = []
    oom_host = w.host_of(inc.init_rank) if (getattr(inc, "slurm_oom", False) and inc.init_rank is not None) else None
    stepid = "%d.%d" % (w.jobid, 0)
    # group (host, code) by exit time clusters (srun reports tasks that end together in one line)
    items = []
    for r in range(w.world):
        t, code = exits[r]
        txt = srun_code_text(code, oom_host is not None and w.host_of(r) == oom_host and r == inc.init_rank)
        if txt is None:
            continue
        items.append((t, r, w.host_of(r), txt))
    items.sort()
    open_g = {}
    glist = []
    for t, r, h, txt in items:
        key = (h, txt)
        g = open_g.get(key)
        if g is None or t - g[0] > 3.0:
            g = [t, []]
            open_g[key] = g
            glist.append((key, g))
        g[1].append(r)
    groups = glist
    for (h, txt), (t, ranks) in sorted(groups, key=lambda kv: (kv[1][0], kv[0][0])):
        tags = []
        for r in ranks:
            tags += [("exit_seen", r), ("host_map", r)]
        if len(ranks) == 1:
            out.append((t + 0.05, "srun: error: %s: task %d: %s" % (h, ranks[0], txt), tuple(tags)))
        else:
            out.append((t + 0.05, "srun: error: %s: tasks %s: %s" % (h, task_ranges(ranks), txt), tuple(tags)))
    if inc.srun_kill and attempt_idx == 0:
        tk = inc.srun_kill
        out.append((tk, "srun: Terminating StepId=%s" % stepid, ()))
        for h in w.hosts:
            out.append((tk + rng.uniform(0.01, 0.3), "slurmstepd: error: *** STEP %s ON %s CANCELLED AT %s ***" % (stepid, h, ts_iso(w.hclock(h, tk))), ()))
        out.append((tk + rng.uniform(1, 3), "srun: Force Terminated StepId=%s" % stepid, ()))
    return out


def cancel_lines(w, inc, batch_host):
    """slurmstepd CANCELLED lines for preemption / time limit / node failure / scancel."""
    rng = w.rng
    out = []
    if getattr(inc, "preempt_cancel", None):
        t = inc.preempt_cancel["t"]
        out.append((t, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO PREEMPTION ***" % (w.jobid, batch_host, ts_iso(w.hclock(batch_host, t))), (("preempt", None),)))
        for h in w.hosts[: min(len(w.hosts), 6)]:
            out.append((t + rng.uniform(0, 0.4), "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s DUE TO PREEMPTION ***" % (w.jobid, h, ts_iso(w.hclock(h, t))), (("preempt", None),)))
        out.append((t + 0.6, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.", ()))
        out.append((t + 0.7, "srun: got SIGCONT", ()))
        out.append((t + 0.8, "srun: forcing job termination", ()))
    if inc.healthy and inc.requeue:
        t = inc.requeue["t"]
        out.append((t, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO PREEMPTION ***" % (w.jobid, batch_host, ts_iso(w.hclock(batch_host, t))), ()))
        out.append((t + 0.6, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.", ()))
    if inc.time_limit:
        t = inc.time_limit
        out.append((t, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO TIME LIMIT ***" % (w.jobid, batch_host, ts_iso(w.hclock(batch_host, t))), ()))
        out.append((t + 0.3, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.", ()))
    if inc.user_cancel:
        t = inc.user_cancel
        out.append((t, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s ***" % (w.jobid, batch_host, ts_iso(w.hclock(batch_host, t))), ()))
        out.append((t + 0.3, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.", ()))
    if getattr(inc, "node_fail", None):
        t = inc.node_fail["t"]
        bh = batch_host if batch_host != inc.node_fail["host"] else w.hosts[-1]
        out.append((t, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO NODE FAILURE, SEE SLURMCTLD LOG FOR DETAILS ***" % (w.jobid, bh, ts_iso(w.hclock(bh, t))), ()))
        out.append((t + 0.2, "srun: error: Node failure on %s" % inc.node_fail["host"], (("node_ptr", inc.node_fail["host"]),)))
        out.append((t + 0.3, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.", ()))
    return out


def elastic_log(w, t, level, mod, msg, pid):
    """One torch.distributed.elastic agent log line, per era."""
    if w.pgfmt in ("old", "r22"):
        return "%s:%s:%s" % ({"I": "INFO", "W": "WARNING", "E": "ERROR"}[level], mod, msg)
    d = _dt(t)
    return "%s%s %s.%06d %d %s.py:%d] %s" % (level, d.strftime("%m%d"), d.strftime("%H:%M:%S"), d.microsecond, pid,
                                              mod.replace(".", "/"), {"I": 127, "W": 705, "E": 869}[level], msg)


def agent_lines(w, inc, node_i, exits, attempt=0, n_attempts=1, restart_next=False, sig_death=None):
    """torchrun agent console lines for node node_i (-> [(t_true, text, tags)]); times rendered with host clock."""
    rng = w.rng
    h = w.hosts[node_i]
    ranks = w.ranks_on(h)
    apid = w.pid[ranks[0]] - 7 - (node_i % 5)
    out = []
    info = inc.requeue or inc.restart or {}
    t0 = w.t0 if attempt == 0 else info.get("t", w.t0) + info.get("gap", 0)
    hc = lambda t: w.hclock(h, t)
    if attempt == 0:
        out.append((w.t0 + 0.5, elastic_log(w, hc(w.t0 + 0.5), "W", "torch.distributed.run", "", apid), ()))
        out.append((w.t0 + 0.5, "*****************************************", ()))
        out.append((w.t0 + 0.5, "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. ", ()))
        out.append((w.t0 + 0.5, "*****************************************", ()))
    tr = t0 + rng.uniform(2, 15)
    mod = "torch.distributed.elastic.agent.server.api"
    gr = ", ".join(str(r) for r in ranks)
    tags = ()
    out.append((tr, elastic_log(w, hc(tr), "I", mod, "[default] Rendezvous complete for workers. Result:", apid), ()))
    out.append((tr, "  restart_count=%d\n  master_addr=%s\n  master_port=%d\n  group_rank=%d\n  group_world_size=%d\n  local_ranks=[%s]\n  role_ranks=[%s]\n  global_ranks=[%s]\n  role_world_sizes=[%s]\n  global_world_sizes=[%s]\n" % (
        attempt, w.hosts[0], w.master_port, node_i, w.nnodes, ", ".join(str(i) for i in range(w.gpn)), gr, gr,
        ", ".join([str(w.world)] * w.gpn), ", ".join([str(w.world)] * w.gpn)), tags))
    out.append((tr + 0.01, elastic_log(w, hc(tr + 0.01), "I", mod, "[default] Starting worker group", apid), ()))
    mp = "torch.distributed.elastic.multiprocessing.api"
    if sig_death is not None:
        out.append((sig_death, elastic_log(w, hc(sig_death), "W", mod, "Received Signals.SIGTERM death signal, shutting down workers", apid), ()))
        for r in ranks:
            out.append((sig_death + 0.01, elastic_log(w, hc(sig_death), "W", mp, "Sending process %d closing signal SIGTERM" % w.pid[r], apid), ()))
        out += torchrun_tb(w, sig_death + 1, "torch.distributed.elastic.multiprocessing.api.SignalException: Process %d got signal: 15" % apid)
        return out
    codes = {r: exits[r] for r in ranks}
    bad = [(codes[r][0], r) for r in ranks if codes[r][1] not in (0, None, -15)]
    if not bad and all(codes[r][1] == 0 for r in ranks):
        te = max(codes[r][0] for r in ranks)
        out.append((te + 0.2, elastic_log(w, hc(te + 0.2), "I", mod, "[default] worker group successfully finished. Waiting 300 seconds for other agents to finish.", apid), ()))
        out.append((te + 0.2, elastic_log(w, hc(te + 0.2), "I", mod, "Local worker group finished (WorkerState.SUCCEEDED). Waiting 300 seconds for other agents to finish", apid), ()))
        out.append((te + 1.5, elastic_log(w, hc(te + 1.5), "I", mod, "Done waiting for other agents. Elapsed: %.4f seconds" % rng.uniform(0.0005, 1.3), apid), ()))
        return out
    if not bad:
        # only SIGTERMed by someone else / still running
        if any(codes[r][1] is None for r in ranks):
            return out
        bad = [(min(codes[r][0] for r in ranks), ranks[0])]
    bad.sort()
    tfail = bad[0][0] + rng.uniform(0.05, 2.0)
    first_r = bad[0][1]
    out.append((tfail, elastic_log(w, hc(tfail), "E", mp, "failed (exitcode: %d) local_rank: %d (pid: %d) of binary: %s" % (
        codes[first_r][1], w.local(first_r), w.pid[first_r], "/usr/bin/python3" if rng.random() < 0.5 else "/opt/conda/bin/python"), apid), ()))
    for r in ranks:
        if r != first_r and codes[r][0] >= bad[0][0]:
            out.append((tfail + 0.02, elastic_log(w, hc(tfail), "W", mp, "Sending process %d closing signal SIGTERM" % w.pid[r], apid), ()))
    if restart_next:
        out.append((tfail + 1, elastic_log(w, hc(tfail + 1), "W", mod, "[default] Worker group FAILED. %d/%d attempts left; will restart worker group" % (n_attempts - attempt - 1, n_attempts), apid), ()))
        out.append((tfail + 1.2, elastic_log(w, hc(tfail + 1.2), "I", mod, "[default] Stopping worker group", apid), ()))
        out.append((tfail + 1.4, elastic_log(w, hc(tfail + 1.4), "I", mod, "[default] Rendezvous'ing worker group", apid), ()))
        return out
    failures = [r for _, r in bad]
    root = failures[0]
    blocks = []

    def blk(i, r):
        t, c = codes[r]
        tb = ("Signal %d (%s) received by PID %d" % (-c, {6: "SIGABRT", 9: "SIGKILL", 11: "SIGSEGV", 15: "SIGTERM", 7: "SIGBUS"}.get(-c, "SIG"), w.pid[r])
              if c < 0 else "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html")
        return ["[%d]:" % i, "  time      : %s" % ts_elastic(hc(t)), "  host      : %s" % h, "  rank      : %d (local_rank: %d)" % (r, w.local(r)),
                "  exitcode  : %d (pid: %d)" % (c, w.pid[r]), "  error_file: <N/A>", "  traceback : %s" % tb]
    lines = ["torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ", "=" * 60, "%s FAILED" % w.script.rsplit("/", 1)[1], "-" * 60, "Failures:"]
    others = failures[1:]
    if not others:
        lines.append("  <NO_OTHER_FAILURES>")
    for i, r in enumerate(others[:7]):
        lines += blk(i + 1, r)
    lines += ["-" * 60, "Root Cause (first observed failure):"] + blk(0, root) + ["=" * 60]
    out += torchrun_tb(w, tfail + rng.uniform(0.5, 3), None)
    for k, ln in enumerate(lines):
        tg = ()
        if ln.startswith("  rank      : "):
            r = int(ln.split(":", 1)[1].split("(")[0])
            tg = (("exit_seen", r), ("host_map", r))
        out.append((tfail + 3.1 + k * 1e-6, ln, tg))
    return out


def torchrun_tb(w, t, last):
    site = w.site
    lines = ["Traceback (most recent call last):",
             '  File "/usr/local/bin/torchrun", line 8, in <module>', "    sys.exit(main())",
             '  File "%s/torch/distributed/elastic/multiprocessing/errors/__init__.py", line %d, in wrapper' % (site, w.rng.choice([346, 348, 355])), "    return f(*args, **kwargs)",
             '  File "%s/torch/distributed/run.py", line %d, in main' % (site, w.rng.choice([812, 901, 919])), "    run(args)",
             '  File "%s/torch/distributed/run.py", line %d, in run' % (site, w.rng.choice([803, 892, 910])), "    elastic_launch(",
             '  File "%s/torch/distributed/launcher/api.py", line %d, in __call__' % (site, w.rng.choice([133, 138])), "    return launch_agent(self._config, self._entrypoint, list(args))",
             '  File "%s/torch/distributed/launcher/api.py", line %d, in launch_agent' % (site, w.rng.choice([260, 269])), "    raise ChildFailedError("]
    if last:
        lines = lines[:-2] + ['  File "%s/torch/distributed/launcher/api.py", line %d, in launch_agent' % (site, 255), "    result = agent.run()",
                              '  File "%s/torch/distributed/elastic/multiprocessing/api.py", line %d, in _terminate_process_handler' % (site, w.rng.choice([62, 84])),
                              "    raise SignalException(f\"Process {os.getpid()} got signal: {sigval}\", sigval=sigval)", last]
    return [(t, "\n".join(lines), ())]


# --------------------------------------------------------------------------
# cluster noise shared by the layouts
# --------------------------------------------------------------------------
NOISE_DRAINS = ["NHC: check_nv_xid: Xid 79 on GPU %d", "Kill task failed", "Not responding", "ECC DBE GPU%d RMA-%05d",
                "maint: reboot for kernel 5.15.0-%d", "ib port mlx5_%d flapping", "NHC: check_fs_mount: /lustre not mounted",
                "gpu%d row remap pending, reset", "burn-in after RMA", "dcgm diag L3 failed GPU %d"]


def neighbour_drains(w, rng, t_lo, t_hi):
    out = []
    for h in w.spare[: rng.randint(1, min(4, len(w.spare)))]:
        f = rng.choice(NOISE_DRAINS)
        n = f.count("%")
        args = tuple(rng.randint(0, 7) if i == 0 else rng.randint(10000, 99999) for i in range(n))
        if "kernel" in f:
            args = (rng.randint(100, 130),)
        out.append(dict(t=rng.uniform(t_lo, t_hi), host=h, reason=(f % args) if n else f, user=rng.choice(["root", "slurm", "admin_" + rng.choice(OTHER_USERS)]), tags=(), down=False))
    return out


def kernel_file(w, inc, host, style, seen):
    """Render a host's kernel log in one of several styles; returns text."""
    rng = w.rng
    lines = list(inc.kernel.get(host, []))
    t_lo = w.t0 - rng.uniform(600, 7200)
    t_hi = (inc.t_end or w.t_done) + rng.uniform(60, 900)
    lines += kernel_noise(w, host, t_lo, t_hi, rng.randint(3, 12))
    extra_oom = getattr(inc, "_neighbour_oom_host", None)
    if extra_oom == host:
        lines += inc._neighbour_oom_lines
    reboot = getattr(inc, "kernel_reboot", None)
    if reboot and reboot[0] == host:
        # the journal before the crash is gone: only the fresh boot survives
        tb = reboot[1]
        lines = [x for x in lines if x.t > tb]
        boot = ["Linux version 5.15.0-%d-generic (buildd@lcy02-amd64-%03d) (gcc (Ubuntu 11.4.0-1ubuntu1~22.04) 11.4.0, GNU ld (GNU Binutils for Ubuntu) 2.38) #%d-Ubuntu SMP %s" % (
            rng.randint(100, 130), rng.randint(1, 120), rng.randint(100, 140), "Tue Apr 16 08:08:55 UTC 2024"),
                "Command line: BOOT_IMAGE=/vmlinuz-5.15.0-%d-generic root=UUID=%s ro console=tty0 console=ttyS0,115200n8 pci=realloc=off" % (rng.randint(100, 130), "%08x-%04x" % (rng.getrandbits(32), rng.getrandbits(16))),
                "x86/fpu: Supporting XSAVE feature 0x001: 'x87 floating point registers'",
                "nvidia: loading out-of-tree module taints kernel.",
                "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  %s" % w.driver]
        lines = [L(tb + i * 0.3, b, "info") for i, b in enumerate(boot)] + lines
    lines.sort(key=lambda x: x.t)
    boot_t = w.t0 - rng.uniform(86400, 86400 * 40)
    if reboot and reboot[0] == host:
        boot_t = reboot[1] - 1
    out = []
    hn = host
    for x in lines:
        ht = w.hclock(host, x.t)
        if style == "T":
            pre = ts_dmesg_T(ht) + " "
        elif style == "raw":
            up = ht - boot_t
            pre = "[%12.6f] " % up if up >= 0 else "[    0.000000] "
        else:
            pre = "%s %s kernel: " % (ts_syslog(ht), hn)
        out.append(pre + x.text)
        for t in x.tags:
            seen.add(t)
    return "\n".join(out) + "\n"


def sinfo_R(w, inc, drains, seen, full=None):
    rng = w.rng
    full = (rng.random() < 0.5) if full is None else full
    out = []
    if full:
        out.append("%-50s %-9s %-19s %s" % ("REASON", "USER", "TIMESTAMP", "NODELIST"))
    else:
        out.append("REASON               USER      TIMESTAMP           NODELIST")
    keyw = ("Xid", "ECC", "NVLink", "IB", "ib port", "mlx5", "maint", "DBE", "GSP", "bus", "remap", "ufm", "link")
    for d in sorted(drains, key=lambda d: d["t"]):
        reason = d["reason"]
        shown = reason if full else reason[:20]
        if full:
            out.append("%-50s %-9s %-19s %s" % (shown, d["user"][:9], ts_iso(d["t"]), d["host"]))
        else:
            out.append("%-20s %-9s %-19s %s" % (shown, d["user"][:9], ts_iso(d["t"]), d["host"]))
        if d["tags"] and any(k.lower() in shown.lower() for k in keyw):
            for t in d["tags"]:
                seen.add(t)
    return "\n".join(out) + "\n"


def sacct_text(w, inc, seen):
    rng = w.rng
    wide = rng.random() < 0.5
    t_start = w.t0
    t_end = inc.t_end or w.t_done
    el = dur_hms(t_end - t_start)
    rows = []
    st = inc.job_state
    ex = inc.job_exit
    cpus = w.nnodes * (96 if w.gpn >= 4 else 16)
    nl = w.nodelist()
    step_state = {"PREEMPTED": "CANCELLED", "TIMEOUT": "CANCELLED", "NODE_FAIL": "CANCELLED"}.get(st.split()[0], st)
    if st.startswith("CANCELLED"):
        step_state = "CANCELLED"
    if getattr(inc, "slurm_oom", False):
        step_state = "OUT_OF_MEMORY"
    step_exit = {"FAILED": "1:0", "COMPLETED": "0:0"}.get(st, "0:15")
    if step_state == "OUT_OF_MEMORY":
        step_exit = "0:125"
    if st == "FAILED":
        codes = [c for (_, c) in inc.exits.values() if c not in (None, 0)]
        if codes and all(c < 0 for c in codes):
            step_exit = "0:%d" % (-min(codes))
    if inc.healthy and inc.requeue:
        tp = inc.requeue["t"]
        rows.append((str(w.jobid), w.jobname, w.partition, w.account, cpus, "PREEMPTED", "0:15", dur_hms(tp - t_start), nl))
        rows.append((str(w.jobid), w.jobname, w.partition, w.account, cpus, "COMPLETED", "0:0", dur_hms(t_end - tp - inc.requeue["gap"]), nl))
        rows.append(("%d.batch" % w.jobid, "batch", "", w.account, 96, "COMPLETED", "0:0", dur_hms(t_end - tp - inc.requeue["gap"]), w.hosts[0]))
        rows.append(("%d.0" % w.jobid, "python" if w.launcher == "srun" else "torchrun", "", w.account, cpus, "COMPLETED", "0:0", dur_hms(t_end - tp - inc.requeue["gap"] - 5), nl))
    else:
        rows.append((str(w.jobid), w.jobname, w.partition, w.account, cpus, st, ex, el, nl))
        if not inc.running:
            rows.append(("%d.batch" % w.jobid, "batch", "", w.account, 96, "CANCELLED" if st in ("PREEMPTED", "TIMEOUT", "NODE_FAIL") or st.startswith("CANCELLED") else ("FAILED" if st == "FAILED" else "COMPLETED"),
                         "0:15" if st in ("PREEMPTED", "TIMEOUT") or st.startswith("CANCELLED") else ex, el, w.hosts[0]))
        else:
            rows.append(("%d.batch" % w.jobid, "batch", "", w.account, 96, "RUNNING", "0:0", el, w.hosts[0]))
        rows.append(("%d.extern" % w.jobid, "extern", "", w.account, cpus, "COMPLETED" if not inc.running else "RUNNING", "0:0", el, nl))
        rows.append(("%d.0" % w.jobid, "python" if w.launcher == "srun" else "torchrun", "", w.account, cpus, step_state if not inc.running else "RUNNING", step_exit, dur_hms(t_end - t_start - 30), nl))
    if wide:
        hdr = "%-16s %-20s %-10s %-12s %9s %-14s %8s %12s %s" % ("JobID", "JobName", "Partition", "Account", "AllocCPUS", "State", "ExitCode", "Elapsed", "NodeList")
        sep = " ".join("-" * n for n in (16, 20, 10, 12, 9, 14, 8, 12, 30))
        lines = [hdr, sep] + ["%-16s %-20s %-10s %-12s %9s %-14s %8s %12s %s" % r for r in rows]
    else:
        def cut(s, n=10):
            s = str(s)
            return s if len(s) <= n else s[: n - 1] + "+"
        hdr = "%-12s %10s %10s %10s %10s %10s %8s %10s %15s" % ("JobID", "JobName", "Partition", "Account", "AllocCPUS", "State", "ExitCode", "Elapsed", "NodeList")
        sep = " ".join("-" * n for n in (12, 10, 10, 10, 10, 10, 8, 10, 15))
        lines = [hdr, sep] + ["%-12s %10s %10s %10s %10s %10s %8s %10s %15s" % (cut(r[0], 12), cut(r[1]), cut(r[2]), cut(r[3]), r[4], cut(r[5]), r[6], r[7], cut(r[8], 15)) for r in rows]
    if st == "PREEMPTED":
        seen.add(("preempt", None))
    cmd = "$ sacct -j %d%s --format=JobID%s,JobName%s,Partition,Account,AllocCPUS,State%s,ExitCode,Elapsed,NodeList%s" % (
        w.jobid, " -D" if (inc.healthy and inc.requeue) else "", "%-16" if wide else "", "%20" if wide else "", "%14" if wide else "", "%30" if wide else "")
    return cmd + "\n" + "\n".join(lines) + "\n"


def slurmctld_text(w, inc, seen, noise_drains):
    rng = w.rng
    lines = list(inc.ctld)
    alloc = L(0, "")
    # noise: other jobs on the cluster
    t_lo, t_hi = w.t0 - 600, (inc.t_end or w.t_done) + 600
    drained = [d["host"] for d in noise_drains]
    free = [h for h in w.spare if h not in drained] or w.spare
    for _ in range(rng.randint(8, 30)):
        t = rng.uniform(t_lo, t_hi)
        j = w.jobid + rng.randint(-30000, 30000)
        k = rng.random()
        sp = rng.choice(free)
        if k < 0.3:
            lines.append(L(t, "sched: Allocate JobId=%d NodeList=%s #CPUs=%d Partition=%s" % (j, sp, rng.choice([8, 16, 32, 96]), rng.choice(["gpu", "cpu", w.partition]))))
        elif k < 0.6:
            lines.append(L(t, "_job_complete: JobId=%d WEXITSTATUS %d" % (j, rng.choice([0, 0, 0, 1, 2]))))
            lines.append(L(t + 0.001, "_job_complete: JobId=%d done" % j))
        elif k < 0.75:
            lines.append(L(t, "_slurm_rpc_submit_batch_job: JobId=%d InitPrio=%d usec=%d" % (j, rng.randint(1000, 90000), rng.randint(150, 900))))
        elif k < 0.85:
            lines.append(L(t, "Time limit exhausted for JobId=%d" % j))
        else:
            lines.append(L(t, "error: slurm_receive_msg [%s:%d]: Zero Bytes were transmitted or received" % (w.ip.get(sp, "10.0.0.9"), rng.randint(40000, 60000))))
    for d in noise_drains:
        lines.append(L(d["t"], "update_node: node %s reason set to: %s" % (d["host"], d["reason"])))
        lines.append(L(d["t"] + 0.001, "update_node: node %s state set to DRAINING" % d["host"]))
    if inc.time_limit:
        lines.append(L(inc.time_limit - 0.5, "Time limit exhausted for JobId=%d" % w.jobid))
    st = inc.job_state
    te = inc.t_end or w.t_done
    if not inc.running:
        status = 0 if st == "COMPLETED" else (1 if st == "FAILED" else None)
        if status is not None:
            lines.append(L(te + 1, "_job_complete: JobId=%d WEXITSTATUS %d" % (w.jobid, status)))
            lines.append(L(te + 1.002, "_job_complete: JobId=%d done" % w.jobid))
    lines.sort(key=lambda x: x.t)
    out = []
    for x in lines:
        if not x.text:
            continue
        out.append("[%s] %s" % (ts_iso(x.t, True), x.text))
        for t in x.tags:
            seen.add(t)
    return "\n".join(out) + "\n"


def dcgm_snapshot(w, inc, host, seen):
    rng = w.rng
    out = ["# HELP DCGM_FI_DEV_XID_ERRORS Value of the last XID error encountered.", "# TYPE DCGM_FI_DEV_XID_ERRORS gauge"]
    lab = "Hostname" if rng.random() < 0.6 else "hostname"
    d = getattr(inc, "dcgm", None)
    th = getattr(inc, "dcgm_throttle", None)
    metr = []
    for g in range(w.gpn):
        labels = 'gpu="%d",UUID="%s",pci_bus_id="00000000:%s:00.0",device="nvidia%d",modelName="%s",%s="%s",DCGM_FI_DRIVER_VERSION="%s"' % (
            g, w.uuid[(host, g)], w.bus[g].upper(), g, w.gpu_model[0], lab, host, w.driver)
        xid = d[2] if (d and d[0] == host and d[1] == g) else 0
        if xid:
            out.append('DCGM_FI_DEV_XID_ERRORS{%s,err_code="%d",err_msg="%s"} %d' % (labels, xid, {
                79: "GPU has fallen off the bus", 48: "DBE (Double Bit Error) ECC Error", 74: "NVLink Error", 119: "GSP RPC Timeout",
                31: "GPU memory page fault", 13: "Graphics Engine Exception"}.get(xid, "Unknown"), xid))
            if xid not in (31, 13):
                seen.add(("node_key", host))
        else:
            out.append("DCGM_FI_DEV_XID_ERRORS{%s} 0" % labels)
        temp = rng.randint(38, 62)
        if th and th[0] == host and th[1] == g:
            temp = rng.randint(86, 93)
        metr.append(("DCGM_FI_DEV_GPU_TEMP", labels, temp))
        metr.append(("DCGM_FI_DEV_POWER_USAGE", labels, round(rng.uniform(280, 690), 3)))
        metr.append(("DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", labels, 1 if (d and d[0] == host and d[1] == g and d[2] == 48) else 0))
        metr.append(("DCGM_FI_DEV_ROW_REMAP_FAILURE", labels, 1 if (d and d[0] == host and d[1] == g and d[2] == 48 and "failure" in inc.variant) else 0))
        if th and th[0] == host:
            metr.append(("DCGM_EXP_CLOCK_EVENTS_COUNT", labels + ',clock_event="hw_thermal",window_size_in_ms="300000"', rng.randint(40, 300) if th[1] == g else 0))
        metr.append(("DCGM_FI_PROF_GR_ENGINE_ACTIVE", labels, round(rng.uniform(0.0, 0.03) if (inc.cause in ("hang", "data_loader_stall") and not inc.healthy) else rng.uniform(0.55, 0.97), 6)))
    if th and th[0] == host:
        seen.add(("node_key", host))
    for name in ["DCGM_FI_DEV_GPU_TEMP", "DCGM_FI_DEV_POWER_USAGE", "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", "DCGM_FI_DEV_ROW_REMAP_FAILURE", "DCGM_EXP_CLOCK_EVENTS_COUNT", "DCGM_FI_PROF_GR_ENGINE_ACTIVE"]:
        rows = [m for m in metr if m[0] == name]
        if not rows:
            continue
        out.append("# TYPE %s %s" % (name, "counter" if name.endswith("TOTAL") or name.endswith("COUNT") else "gauge"))
        for n, lb, v in rows:
            out.append("%s{%s} %s" % (n, lb, v))
    return "\n".join(out) + "\n"


def nvidia_smi_procs(w, inc, host, g, foreign_gib):
    rng = w.rng
    out = ["$ nvidia-smi --query-compute-apps=gpu_bus_id,pid,process_name,used_memory --format=csv",
           "gpu_bus_id, pid, process_name, used_memory [MiB]"]
    for gg in range(w.gpn):
        r = w.rank_of(host, gg)
        out.append("00000000:%s:00.0, %d, /usr/bin/python3, %d MiB" % (w.bus[gg].upper(), w.pid[r], rng.randint(30000, 76000) if gg != g else 1024))
        if gg == g:
            out.append("00000000:%s:00.0, %d, %s, %d MiB" % (w.bus[gg].upper(), rng.randint(1000, 90000), rng.choice(["python", "[Not Found]", "/opt/conda/bin/python3.10"]), int(foreign_gib * 1024)))
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------
# the job's combined output (Slurm: srun-forwarded stdout/stderr)
# --------------------------------------------------------------------------
class E:
    """An output entry: rendered text plus what it proves if it survives."""
    __slots__ = ("t", "text", "line", "rk", "ctx", "tags")

    def __init__(self, t, text, line=None, rk=None, ctx=False, tags=()):
        self.t, self.text, self.line, self.rk, self.ctx, self.tags = t, text, line, rk, ctx, tuple(tags)


def tag_entry(seen, e, ctx_host=False):
    if e.line is not None:
        seen.add_line(e.line, e.rk, e.ctx, ctx_host)
    for t in e.tags:
        seen.add(t)


def split_multiline(t, text, pre, tags, ents):
    for sub in text.split("\n"):
        ents.append(E(t, pre + sub, None, None, False, tags))


def slurm_header(w, inc, t, restart):
    rng = w.rng
    h = []
    if rng.random() < 0.5:
        h.append("+ echo 'starting %s on %s'" % (w.jobname, w.nodelist()))
    h.append("Job %d (%s) started %s on %s" % (w.jobid, w.jobname, ts_date_cmd(w.hclock(w.hosts[0], t)), w.nodelist()))
    h.append("MASTER_ADDR=%s MASTER_PORT=%d WORLD_SIZE=%d NNODES=%d GPUS_PER_NODE=%d" % (w.hosts[0], w.master_port, w.world, w.nnodes, w.gpn))
    if restart or rng.random() < 0.5:
        h.append("SLURM_RESTART_COUNT=%d" % restart)
    if rng.random() < 0.4:
        h.append("Lmod: loading cuda/12.%d nccl/%s python/%s" % (rng.choice([1, 2, 4]), w.nccl, w.py))
    if w.launcher == "srun":
        h.append("+ srun %s--ntasks-per-node=%d --gpus-per-task=1 %spython -u %s --config configs/%s.yaml" % (
            "--label " if w.label else "", w.gpn, "--kill-on-bad-exit=1 " if w.kill_on_bad_exit else "", w.script, w.jobname))
    else:
        h.append("+ srun %s--ntasks-per-node=1 torchrun --nnodes=%d --nproc-per-node=%d --rdzv-backend=c10d --rdzv-endpoint=%s:%d %s" % (
            "--label " if w.label else "", w.nnodes, w.gpn, w.hosts[0], w.master_port, w.script))
    return [E(t + i * 0.001, x) for i, x in enumerate(h)]


def job_output_entries(w, inc, cache, rank_filter=None):
    rng = w.rng
    ents = []
    attempts = attempt_exits(w, inc)
    info = inc.requeue or inc.restart or {}
    width = len(str(w.world - 1)) if w.launcher == "srun" else len(str(max(0, w.nnodes - 1)))
    for a_idx, exits in enumerate(attempts):
        t_h = w.t0 - 1 if a_idx == 0 else info["t"] + info["gap"] - 1
        if a_idx == 0 or inc.requeue:
            ents += slurm_header(w, inc, t_h, a_idx)
        for rk in range(w.world):
            if rank_filter is not None and rk not in rank_filter:
                continue
            jit = rng.uniform(0, 0.03)
            segs = build_stream(w, inc, rk, cache)
            if a_idx >= len(segs):
                continue
            h = w.host_of(rk)
            lab = rk if w.launcher == "srun" else w.host_idx[h]
            pre = ("%*d: " % (width, lab)) if w.label else ""
            for x in segs[a_idx]:
                txt = subst(x.text, w.hclock(h, x.t), ns=(w.pgfmt == "r25"))
                if w.launcher == "torchrun":
                    txt = "[default%d]:%s" % (w.local(rk), txt)
                ents.append(E(x.t + jit, pre + txt, x, rk, w.label))
        if w.launcher == "torchrun":
            for i in range(w.nnodes):
                pre = ("%*d: " % (width, i)) if w.label else ""
                sig = None
                if getattr(inc, "preempt_cancel", None) and a_idx == 0:
                    sig = inc.preempt_cancel["t"] + rng.uniform(0, 0.5)
                if inc.time_limit or inc.user_cancel:
                    sig = (inc.time_limit or inc.user_cancel) + rng.uniform(0, 0.5)
                if inc.healthy and inc.requeue and a_idx == 0:
                    sig = inc.requeue["t"] + rng.uniform(0, 0.5)
                for (t, text, tags) in agent_lines(w, inc, i, exits, a_idx, len(attempts), restart_next=bool(inc.restart and a_idx == 0), sig_death=sig):
                    split_multiline(t, subst(text, w.hclock(w.hosts[i], t)), pre, tags, ents)
        else:
            for (t, text, tags) in srun_epilogue(w, inc, exits, a_idx):
                ents.append(E(t, text, None, None, False, tags))
        if a_idx == 0:
            for (t, text, tags) in cancel_lines(w, inc, w.hosts[0]):
                ents.append(E(t, text, None, None, False, tags))
    ents.sort(key=lambda e: e.t)
    return ents


TRIM_MARKS = ["[... %d lines omitted ...]", "<<< snipped %d lines >>>", "----- %d lines trimmed by log collector -----",
              "... (%d lines truncated) ...", "[output truncated: %d lines]"]


def trim_entries(w, ents, budget):
    rng = w.rng
    total = sum(len(e.text) + 1 for e in ents)
    if total <= budget:
        return ents
    head_b = budget * rng.uniform(0.25, 0.45)
    tail_b = budget - head_b
    head, tail = [], []
    acc = 0
    i = 0
    while i < len(ents) and acc + len(ents[i].text) + 1 <= head_b:
        acc += len(ents[i].text) + 1
        head.append(ents[i])
        i += 1
    acc = 0
    j = len(ents) - 1
    while j >= i and acc + len(ents[j].text) + 1 <= tail_b:
        acc += len(ents[j].text) + 1
        tail.append(ents[j])
        j -= 1
    tail.reverse()
    n_cut = j - i + 1
    mark = E(0, rng.choice(TRIM_MARKS) % n_cut)
    return head + [mark] + tail


def write(out_dir, rel, text, files):
    p = os.path.join(out_dir, rel)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)
    files.append(rel)


def kernel_hosts_choice(w, inc, p_init=0.75, p_other=0.5):
    rng = w.rng
    hs = []
    for h in w.hosts:
        if h in inc.kernel:
            p = p_init if h == inc.init_host else p_other
            if rng.random() < p:
                hs.append(h)
    if getattr(inc, "kernel_reboot", None) and inc.kernel_reboot[0] not in hs and rng.random() < 0.6:
        hs.append(inc.kernel_reboot[0])
    nh = getattr(inc, "_neighbour_oom_host", None)
    if nh and nh not in hs and rng.random() < (0.85 if inc.healthy else 0.4):
        hs.append(nh)
    if rng.random() < 0.4:
        cand = [h for h in w.hosts if h not in hs]
        if cand:
            hs.append(rng.choice(cand))
    return hs


def add_neighbour_effects(w, inc):
    """Healthy / noise effects that involve other tenants on shared nodes."""
    rng = w.rng
    if getattr(inc, "neighbour_oom", False) or (not w.exclusive and rng.random() < 0.2 and inc.cause not in ("host_oom_kill",)):
        h = rng.choice(w.hosts)
        t = rng.uniform(w.t_train, min(w.t_done, w.t_fail))
        ouid = rng.randint(1000, 40000)
        vpid = rng.randint(1000, 4000000)
        comm = rng.choice(["java", "R", "julia", "python3", "spark-executor"])
        if w.sched == "k8s":
            memcg = "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod%s.slice/cri-containerd-%s.scope" % (
                "".join(rng.choice("0123456789abcdef_") for _ in range(36)), "".join(rng.choice("0123456789abcdef") for _ in range(64)))
        else:
            memcg = "/system.slice/slurmstepd.scope/job_%d/step_batch/user/task_0" % (w.jobid + rng.randint(-9000, 9000))
        kl = _oom_kernel(w, h, vpid, comm, memcg, comm, True, ouid, rng.randint(4, 60) * 1024 * 1024)
        inc._neighbour_oom_host = h
        inc._neighbour_oom_lines = [L(t + i * 0.001, x, "info") for i, x in enumerate(kl)]
        if w.sched == "k8s":
            kev(inc, t + 1, "default", "node/%s" % h, "Warning", "OOMKilling", kl[2], "kernel-monitor")
            kev(inc, t + 0.5, "default", "node/%s" % h, "Warning", "SystemOOM", "System OOM encountered, victim process: %s, pid: %d" % (comm, vpid), "kubelet")
    if getattr(inc, "scary", False) and w.hosts:
        h = rng.choice(w.hosts)
        g = rng.randrange(w.gpn)
        t = w.t0 - rng.uniform(3600, 86400)
        inc.kadd(h, L(t, k_xid(w, g, 63, "Row Remapper: New row (0x%016x) marked for remapping, reset gpu to activate." % rng.randint(0x1000000, 0x7ffffffff), None), "info"))


# --------------------------------------------------------------------------
# layout: slurm  (job output + sacct/sinfo/slurmctld + kernel logs)
# --------------------------------------------------------------------------
def render_slurm(w, inc, out_dir, seen, files):
    rng = w.rng
    cache = {}
    ents = job_output_entries(w, inc, cache)
    if rng.random() < 0.12:
        ents = [e for e in ents if "NCCL INFO" not in e.text]
    n0 = len(ents)
    ents = trim_entries(w, ents, rng.choice([260_000, 340_000, 400_000]) if w.world > 32 else 400_000)
    if len(ents) == n0 and w.label:
        for r in range(w.world):
            seen.add(("full", r))
    for e in ents:
        tag_entry(seen, e)
    write(out_dir, "slurm-%d.out" % w.jobid, "\n".join(e.text for e in ents) + "\n", files)
    if rng.random() < 0.75:
        write(out_dir, "sacct.txt", sacct_text(w, inc, seen), files)
    nd = neighbour_drains(w, rng, w.t0 - 86400, (inc.t_end or w.t_done))
    drains = nd + inc.drains
    if drains and rng.random() < (0.85 if inc.drains else 0.55):
        write(out_dir, "sinfo-R.txt", "$ sinfo -R%s\n" % ("" if rng.random() < 0.5 else " -o '%50E %9u %19H %N'") + sinfo_R(w, inc, drains, seen), files)
    style = rng.choice(["T", "raw", "journal"])
    for h in kernel_hosts_choice(w, inc):
        name = {"T": "dmesg-T_%s.txt", "raw": "dmesg_%s.txt", "journal": "journalctl-k_%s.log"}[style] % h
        write(out_dir, name, kernel_file(w, inc, h, style, seen), files)
    if rng.random() < 0.45 or (inc.cause == "preemption" and rng.random() < 0.6) or (inc.cause == "unknown" and rng.random() < 0.5):
        write(out_dir, "slurmctld.log.excerpt", slurmctld_text(w, inc, seen, nd), files)
    write_extras(w, inc, out_dir, seen, files, "extra/")


def write_extras(w, inc, out_dir, seen, files, prefix, p=0.8):
    rng = w.rng
    for (name, text, tags) in inc.extras:
        if rng.random() < p:
            write(out_dir, prefix + name, text, files)
            for t in tags:
                seen.add(t)
    d = getattr(inc, "dcgm", None)
    th = getattr(inc, "dcgm_throttle", None)
    if (d or th) and rng.random() < 0.35:
        h = (d or th)[0]
        write(out_dir, prefix + "dcgm-exporter_%s.prom" % h.split(".")[0], dcgm_snapshot(w, inc, h, seen), files)
    fg = getattr(inc, "foreign_gpu", None)
    if fg and rng.random() < 0.6:
        write(out_dir, prefix + "nvidia-smi_%s.txt" % fg[0].split(".")[0], nvidia_smi_procs(w, inc, fg[0], fg[1], fg[2]), files)
    nb = getattr(inc, "neighbour", None)
    if nb and w.sched == "slurm" and rng.random() < 0.6:
        h = nb["host"]
        txt = "$ squeue -w %s -o '%%.10i %%.9P %%.20j %%.10u %%.2t %%.10M %%.6D %%R'\n" % h
        txt += "%10s %9s %20s %10s %2s %10s %6s %s\n" % ("JOBID", "PARTITION", "NAME", "USER", "ST", "TIME", "NODES", "NODELIST(REASON)")
        txt += "%10d %9s %20s %10s %2s %10s %6d %s\n" % (w.jobid, w.partition[:9], w.jobname[:20], w.user, "R", dur_hms(w.t_fail - w.t0), w.nnodes, w.nodelist())
        txt += "%10d %9s %20s %10s %2s %10s %6d %s\n" % (nb["jobid"], rng.choice(["shared", "cpu", "gpu-shared"]), rng.choice(["sweep_%d" % rng.randint(1, 99), "etl-nightly", "bench"]), nb["user"], "R", dur_hms(rng.uniform(600, 40000)), 1, h)
        write(out_dir, prefix + "squeue-w_%s.txt" % h, txt, files)
    if getattr(inc, "quota", False) and rng.random() < 0.5:
        txt = "$ lfs quota -h -u %s /lustre\nDisk quotas for usr %s (uid %d):\n     Filesystem    used   quota   limit   grace   files   quota   limit   grace\n" % (w.user, w.user, rng.randint(1000, 40000))
        txt += "        /lustre  %.3gT*     %dT     %dT  6d23h  %dk       0       0       -\n" % (rng.uniform(10.0, 10.2), 10, 10, rng.randint(100, 900))
        write(out_dir, prefix + "lfs-quota.txt", txt, files)


# --------------------------------------------------------------------------
# layout: torchrun  (per-node --log-dir trees + agent consoles + node health)
# --------------------------------------------------------------------------
def choose_nodes(w, inc, limit):
    rng = w.rng
    if w.nnodes <= limit:
        return list(range(w.nnodes))
    nodes = [0]
    if inc.init_host is not None and rng.random() < 0.75:
        nodes.append(w.host_idx[inc.init_host])
    rest = [i for i in range(w.nnodes) if i not in nodes]
    rng.shuffle(rest)
    nodes += rest[: max(0, limit - len(nodes))]
    return sorted(set(nodes))


def agent_all(w, inc, node_i, attempts):
    rng = w.rng
    res = []
    for a_idx, exits in enumerate(attempts):
        sig = None
        if getattr(inc, "preempt_cancel", None) and a_idx == 0:
            sig = inc.preempt_cancel["t"] + rng.uniform(0, 0.5)
        if (inc.time_limit or inc.user_cancel):
            sig = (inc.time_limit or inc.user_cancel) + rng.uniform(0, 0.5)
        if inc.healthy and inc.requeue and a_idx == 0:
            sig = inc.requeue["t"] + rng.uniform(0, 0.5)
        if w.sched == "k8s" and inc.k8s_job_cond and inc.k8s_job_cond[0] == "Suspended":
            sig = inc.t_fail_k8s if hasattr(inc, "t_fail_k8s") else w.t_fail + rng.uniform(0, 2)
        st = inc.pod_state.get(node_i)
        if st and st.get("deleted"):
            sig = st["t"] - 1
        res += agent_lines(w, inc, node_i, exits, a_idx, max(len(attempts), 3 if inc.restart else 1),
                           restart_next=bool(inc.restart and a_idx == 0), sig_death=sig)
    return res


def torchrun_node_files(w, inc, i, attempts, cache, out_dir, seen, files):
    h = w.hosts[i]
    base = w._tr_root.format(h=h.split(".")[0], j=w.jobid)
    split_stdout = w._tr_split
    for a_idx in range(len(attempts)):
        for rk in w.ranks_on(h):
            segs = build_stream(w, inc, rk, cache)
            seg = segs[a_idx] if a_idx < len(segs) else []
            err, out = [], []
            for x in seg:
                txt = subst(x.text, w.hclock(h, x.t), ns=(w.pgfmt == "r25"))
                if txt.startswith("[rank%d]: " % rk):
                    txt = txt[len("[rank%d]: " % rk):]
                (out if (split_stdout and x.kind == "progress") else err).append(txt)
                seen.add_line(x, rk, True, True)
            seen.add(("full", rk), ("host_map", rk))
            d = "%s/%s/attempt_%d/%d" % (base, w.run_id, a_idx, w.local(rk))
            write(out_dir, d + "/stderr.log", "\n".join(err) + ("\n" if err else ""), files)
            if split_stdout:
                write(out_dir, d + "/stdout.log", "\n".join(out) + ("\n" if out else ""), files)
    con = []
    for (t, text, tags) in agent_all(w, inc, i, attempts):
        con.append((t, subst(text, w.hclock(h, t))))
        for tg in tags:
            seen.add(tg)
    con.sort(key=lambda x: x[0])
    write(out_dir, base + "/torchrun_agent.log", "\n".join(c[1] for c in con) + "\n", files)


def render_torchrun(w, inc, out_dir, seen, files):
    rng = w.rng
    cache = {}
    attempts = attempt_exits(w, inc)
    nodes = choose_nodes(w, inc, rng.choice([4, 6, 8]) if len(attempts) == 1 else rng.choice([3, 4]))
    root = rng.choice(["logs/{h}", "torchrun_logs/{h}", "{h}/logs", "run_{j}/{h}"])
    split_stdout = rng.random() < 0.5
    w._tr_root, w._tr_split = root, split_stdout
    for i in nodes:
        torchrun_node_files(w, inc, i, attempts, cache, out_dir, seen, files)
    # cluster side
    style = rng.choice(["T", "journal"])
    khosts = kernel_hosts_choice(w, inc, 0.7, 0.45)
    if khosts and rng.random() < 0.45:
        # one pdsh sweep across the job's nodes, grepped
        lines = []
        for h in w.hosts:
            if h not in khosts and h not in inc.kernel:
                continue
            ks = Seen()
            txt = kernel_file(w, inc, h, "T", ks)
            for ln in txt.splitlines():
                if any(k in ln for k in ("NVRM", "Xid", "oom", "Out of memory", "mlx5", "nfs:", "segfault", "Lustre")):
                    lines.append("%s: %s" % (h.split(".")[0], ln))
                    # keep only tags of lines that passed the grep
            for x in inc.kernel.get(h, []):
                if any(k in x.text for k in ("NVRM", "Xid", "oom", "Out of memory", "mlx5", "nfs:", "segfault", "Lustre")):
                    for tg in x.tags:
                        seen.add(tg)
        write(out_dir, "node-health/pdsh_dmesg_grep.txt", "$ pdsh -w %s 'dmesg -T | grep -iE \"nvrm|xid|oom|mlx5|nfs:|segfault|lustre\"'\n" % w.nodelist() + "\n".join(lines) + "\n", files)
    else:
        for h in khosts:
            write(out_dir, "node-health/%s_%s.txt" % (h.split(".")[0], "dmesg" if style == "T" else "journal-k"), kernel_file(w, inc, h, style, seen), files)
    if w.sched == "slurm":
        nd = neighbour_drains(w, rng, w.t0 - 86400, (inc.t_end or w.t_done))
        drains = nd + inc.drains
        if drains and rng.random() < 0.6:
            write(out_dir, "cluster/sinfo-R.txt", "$ sinfo -R\n" + sinfo_R(w, inc, drains, seen), files)
        if rng.random() < 0.5:
            write(out_dir, "cluster/sacct.txt", sacct_text(w, inc, seen), files)
        if rng.random() < 0.25:
            write(out_dir, "cluster/slurmctld.log.excerpt", slurmctld_text(w, inc, seen, nd), files)
    else:
        if inc.drains and rng.random() < 0.6:
            txt = "# ops channel export\n"
            for d in inc.drains:
                txt += "[%s] %s: %s %s -- %s\n" % (ts_iso(d["t"]), d["user"], "marked DOWN" if d["down"] else "took out of rotation", d["host"], d["reason"])
                for tg in d["tags"]:
                    seen.add(tg)
            write(out_dir, "cluster/ops-notes.txt", txt, files)
    write_extras(w, inc, out_dir, seen, files, "debug/", 0.7)


# --------------------------------------------------------------------------
# layout: k8s  (kubectl logs / describe / events / nodes)
# --------------------------------------------------------------------------
def pod_status(w, inc, i, attempts):
    st = inc.pod_state.get(i)
    last = attempts[-1]
    ranks = w.ranks_on(w.hosts[i])
    if st:
        return st
    codes = [last[r][1] for r in ranks]
    t = max(last[r][0] for r in ranks)
    if any(c is None for c in codes):
        return dict(reason="Running", exit=None, t=t)
    if all(c == 0 for c in codes):
        return dict(reason="Completed", exit=0, t=t + 2)
    return dict(reason="Error", exit=1, t=t + 3)


def describe_pod(w, inc, i, st, seen, evs):
    rng = w.rng
    h = w.hosts[i]
    pod = w.pod_name(i)
    started = w.t0 - rng.uniform(5, 60)
    role = "Master" if (w.k8s_ctrl == "pytorchjob" and i == 0) else "Worker"
    lines = ["Name:             %s" % pod, "Namespace:        %s" % w.ns,
             "Priority:         %d" % rng.choice([0, 100, 1000]), "Priority Class Name:  %s" % rng.choice(["batch-low", "training-preemptible", "research"]),
             "Service Account:  default", "Node:             %s/%s" % (h, w.ip[h]), "Start Time:       %s" % _dt(started).strftime("%a, %d %b %Y %H:%M:%S +0000"),
             "Labels:           training.kubeflow.org/job-name=%s" % w.kjob if w.k8s_ctrl == "pytorchjob" else "Labels:           jobset.sigs.k8s.io/jobset-name=%s" % w.kjob,
             "                  training.kubeflow.org/replica-index=%d" % (i if i == 0 else i - 1) if w.k8s_ctrl == "pytorchjob" else "                  jobset.sigs.k8s.io/job-index=%d" % i,
             "                  training.kubeflow.org/replica-type=%s" % role.lower() if w.k8s_ctrl == "pytorchjob" else "                  batch.kubernetes.io/job-completion-index=0",
             "Status:           %s" % ("Failed" if st["reason"] not in ("Running", "Completed") else ("Running" if st["reason"] == "Running" else "Succeeded")),
             "IP:               10.%d.%d.%d" % (rng.randint(0, 255), rng.randint(0, 255), rng.randint(2, 254)),
             "Controlled By:    %s/%s" % ("PyTorchJob" if w.k8s_ctrl == "pytorchjob" else "Job", w.kjob if w.k8s_ctrl == "pytorchjob" else "%s-trainer-0" % w.kjob),
             "Containers:", "  pytorch:",
             "    Container ID:  containerd://%s" % "".join(rng.choice("0123456789abcdef") for _ in range(64)),
             "    Image:         %s" % rng.choice(["nvcr.io/nvidia/pytorch:24.0%d-py3" % rng.randint(1, 9), "ghcr.io/acme/trainer:%s" % "".join(rng.choice("0123456789abcdef") for _ in range(7)),
                                                  "us-docker.pkg.dev/ml/train/llm:%d.%d" % (rng.randint(1, 4), rng.randint(0, 20))]),
             "    Command:", "      torchrun", "    Args:", "      --nnodes=%d" % w.nnodes, "      --nproc-per-node=%d" % w.gpn, "      %s" % w.script]
    if st["reason"] == "Running":
        lines += ["    State:          Running", "      Started:      %s" % _dt(started + 10).strftime("%a, %d %b %Y %H:%M:%S +0000")]
    else:
        lines += ["    State:          Terminated", "      Reason:       %s" % st["reason"], "      Exit Code:    %s" % st["exit"],
                  "      Started:      %s" % _dt(started + 10).strftime("%a, %d %b %Y %H:%M:%S +0000"),
                  "      Finished:     %s" % _dt(st["t"]).strftime("%a, %d %b %Y %H:%M:%S +0000")]
    lines += ["    Ready:          False", "    Restart Count:  %d" % (1 if inc.restart and False else 0),
              "    Limits:", "      cpu:             %d" % rng.choice([90, 180, 200]), "      memory:          %dGi" % rng.choice([900, 1600, 1800]),
              "      nvidia.com/gpu:  %d" % w.gpn, "    Environment:", "      NODE_RANK:       %d" % i, "      NPROC_PER_NODE:  %d" % w.gpn,
              "      MASTER_ADDR:     %s" % w.pod_name(0), "      MASTER_PORT:     %d" % w.master_port,
              "    Mounts:", "      /dev/shm from dshm (rw)" if rng.random() < 0.7 else "      /data from train-data (ro)",
              "Conditions:", "  Type              Status", "  Initialized       True", "  Ready             False", "  ContainersReady   False", "  PodScheduled      True",
              "QoS Class:                   Burstable", "Node-Selectors:              nvidia.com/gpu.present=true",
              "Tolerations:                 nvidia.com/gpu:NoSchedule op=Exists", "                             node.kubernetes.io/not-ready:NoExecute op=Exists for 300s"]
    my = [e for e in evs if e["obj"] == "pod/%s" % pod]
    if my:
        lines += ["Events:", "  Type     Reason     Age   From               Message", "  ----     ------     ----  ----               -------"]
        tcap = (inc.t_end or w.t_done) + rng.uniform(120, 3000)
        for e in sorted(my, key=lambda e: e["t"]):
            lines.append("  %-8s %-10s %-5s %-18s %s" % (e["type"], e["reason"], age(tcap - e["t"]), e["src"], e["msg"]))
            for tg in e["tags"]:
                seen.add(tg)
    else:
        lines.append("Events:           <none>")
    for r in w.ranks_on(h):
        seen.add(("host_map", r))
    return "\n".join(lines) + "\n"


def describe_node(w, inc, h, seen):
    rng = w.rng
    dr = [d for d in inc.drains if d["host"] == h]
    gpus = w.gpn
    if getattr(inc, "dcgm", None) and inc.dcgm[0] == h and inc.dcgm[2] in (79, 48, 74, 119) and rng.random() < 0.6:
        gpus -= 1
    lines = ["Name:               %s" % h, "Roles:              <none>",
             "Labels:             nvidia.com/gpu.product=%s" % w.gpu_model[0].replace(" ", "-"), "                    nvidia.com/gpu.count=%d" % w.gpn]
    ann = ["Annotations:        node.alpha.kubernetes.io/ttl: 0"]
    for d in dr:
        ann.append("                    ops.acme.io/cordon-reason: %s" % d["reason"])
        ann.append("                    ops.acme.io/cordon-by: %s" % d["user"])
        for tg in d["tags"]:
            seen.add(tg)
    lines += ann
    lines.append("Taints:             %s" % ("node.kubernetes.io/unschedulable:NoSchedule" if dr else "<none>"))
    if dr and any(("Xid" in d["reason"] or "ECC" in d["reason"] or "NVLink" in d["reason"]) for d in dr):
        lines.append("                    nvidia.com/gpu-error=fatal:NoSchedule")
    lines.append("Unschedulable:      %s" % ("true" if dr else "false"))
    cpu = rng.choice([192, 208, 224])
    mp = "False"
    if (getattr(inc, "_neighbour_oom_host", None) == h) or (inc.cause == "host_oom_kill" and inc.init_host == h and not inc.healthy):
        mp = rng.choice(["False", "True"])
    lines += ["Conditions:",
              "  Type             Status  LastHeartbeatTime                 LastTransitionTime                Reason                       Message",
              "  ----             ------  -----------------                 ------------------                ------                       -------",
              "  MemoryPressure   %-6s  %s   %s   %-28s %s" % (mp, _dt((inc.t_end or w.t_done) + 60).strftime("%a, %d %b %Y %H:%M:%S +0000"), _dt(w.t0 - 86400).strftime("%a, %d %b %Y %H:%M:%S +0000"),
                                                            "KubeletHasSufficientMemory" if mp == "False" else "KubeletHasInsufficientMemory",
                                                            "kubelet has sufficient memory available" if mp == "False" else "kubelet has insufficient memory available"),
              "  DiskPressure     False   %s   %s   KubeletHasNoDiskPressure     kubelet has no disk pressure" % (_dt((inc.t_end or w.t_done) + 60).strftime("%a, %d %b %Y %H:%M:%S +0000"), _dt(w.t0 - 86400).strftime("%a, %d %b %Y %H:%M:%S +0000")),
              "  PIDPressure      False   %s   %s   KubeletHasSufficientPID      kubelet has sufficient PID available" % (_dt((inc.t_end or w.t_done) + 60).strftime("%a, %d %b %Y %H:%M:%S +0000"), _dt(w.t0 - 86400).strftime("%a, %d %b %Y %H:%M:%S +0000")),
              "  Ready            True    %s   %s   KubeletReady                 kubelet is posting ready status" % (_dt((inc.t_end or w.t_done) + 60).strftime("%a, %d %b %Y %H:%M:%S +0000"), _dt(w.t0 - 86400).strftime("%a, %d %b %Y %H:%M:%S +0000")),
              "Addresses:", "  InternalIP:  %s" % w.ip[h], "  Hostname:    %s" % h,
              "Capacity:", "  cpu:                %d" % cpu, "  memory:             %dKi" % rng.randint(1900000000, 2100000000), "  nvidia.com/gpu:     %d" % w.gpn,
              "Allocatable:", "  cpu:                %d" % (cpu - rng.choice([2, 4, 8])), "  memory:             %dKi" % rng.randint(1800000000, 1900000000), "  nvidia.com/gpu:     %d" % gpus]
    if gpus < w.gpn:
        seen.add(("node_key", h))
    lines += ["System Info:", "  Kernel Version:             5.15.0-%d-generic" % rng.randint(100, 130), "  Container Runtime Version:  containerd://1.7.%d" % rng.randint(2, 20),
              "  Kubelet Version:            v1.%d.%d" % (rng.randint(27, 31), rng.randint(1, 9))]
    evs = [e for e in inc.k8s_events if e["obj"] == "node/%s" % h]
    if evs:
        lines += ["Events:", "  Type     Reason               Age   From            Message", "  ----     ------               ----  ----            -------"]
        tcap = (inc.t_end or w.t_done) + rng.uniform(120, 3000)
        for e in sorted(evs, key=lambda e: e["t"]):
            lines.append("  %-8s %-20s %-5s %-15s %s" % (e["type"], e["reason"], age(tcap - e["t"]), e["src"], e["msg"]))
            for tg in e["tags"]:
                seen.add(tg)
    else:
        lines.append("Events:             <none>")
    return "\n".join(lines) + "\n"


K8S_NOISE = [
    ("Warning", "Evicted", "The node was low on resource: ephemeral-storage. Threshold quantity: %d, available: %dKi. Container %s was using %dKi, request is 0, has larger consumption of ephemeral-storage.", "kubelet"),
    ("Warning", "Evicted", "The node was low on resource: memory. Threshold quantity: 100Mi, available: %dKi. Container %s was using %dKi, request is %dMi, has larger consumption of memory.", "kubelet"),
    ("Warning", "BackOff", "Back-off restarting failed container %s in pod %s", "kubelet"),
    ("Warning", "FailedScheduling", "0/%d nodes are available: %d Insufficient nvidia.com/gpu, %d node(s) had untolerated taint {nvidia.com/gpu-error: fatal}. preemption: 0/%d nodes are available: %d No preemption victims found for incoming pod.", "default-scheduler"),
    ("Normal", "Pulled", "Container image \"%s\" already present on machine", "kubelet"),
    ("Warning", "Unhealthy", "Readiness probe failed: Get \"http://10.%d.%d.%d:8080/healthz\": context deadline exceeded (Client.Timeout exceeded while awaiting headers)", "kubelet"),
]


def k8s_noise_events(w, inc, n):
    rng = w.rng
    out = []
    t_lo, t_hi = w.t0 - 1800, (inc.t_end or w.t_done)
    for _ in range(n):
        typ, reason, f, src = rng.choice(K8S_NOISE)
        ns = rng.choice(["data-eng", "inference", "team-cv", "notebooks", "monitoring", "kube-system"])
        pod = "%s-%s-%s" % (rng.choice(["etl", "spark-exec", "triton", "jupyter", "prom", "feature-gen"]), "".join(rng.choice("0123456789abcdef") for _ in range(8)), "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(5)))
        cont = pod.rsplit("-", 2)[0]
        if reason == "Evicted" and "ephemeral" in f:
            msg = f % (rng.randint(10 ** 9, 4 * 10 ** 10), rng.randint(10 ** 5, 10 ** 7), cont, rng.randint(10 ** 5, 10 ** 8))
        elif reason == "Evicted":
            msg = f % (rng.randint(10000, 90000), cont, rng.randint(10 ** 6, 10 ** 8), rng.choice([256, 512, 2048]))
        elif reason == "BackOff":
            msg = f % (cont, "%s_%s(%s)" % (pod, ns, "".join(rng.choice("0123456789abcdef") for _ in range(8))))
        elif reason == "FailedScheduling":
            nn = len(w.hosts) + len(w.spare)
            msg = f % (nn, nn - 1, 1, nn, nn)
        elif reason == "Pulled":
            msg = f % "nvcr.io/nvidia/tritonserver:24.0%d-py3" % rng.randint(1, 9)
        else:
            msg = f % (rng.randint(0, 255), rng.randint(0, 255), rng.randint(2, 254))
        kev(inc, rng.uniform(t_lo, t_hi), ns, "pod/%s" % pod, typ, reason, msg, src, count=rng.choice([1, 1, 2, 5]))
        out.append(None)
    return out


def k8s_pod_log(w, inc, i, attempts, cache, out_dir, seen, files):
    rng = w.rng
    stamps = w._k8s_stamps
    h = w.hosts[i]
    ents = []
    hdr = "WORLD_SIZE=%d NODE_RANK=%d NPROC_PER_NODE=%d MASTER_ADDR=%s" % (w.world, i, w.gpn, w.pod_name(0))
    ents.append((w.t0 - 0.5, hdr, None, None))
    for a_idx in range(len(attempts)):
        for rk in w.ranks_on(h):
            segs = build_stream(w, inc, rk, cache)
            seg = segs[a_idx] if a_idx < len(segs) else []
            for x in seg:
                ents.append((x.t, "[default%d]:%s" % (w.local(rk), subst(x.text, w.hclock(h, x.t), ns=(w.pgfmt == "r25"))), x, rk))
    for (t, text, tags) in agent_all(w, inc, i, attempts):
        for sub in subst(text, w.hclock(h, t)).split("\n"):
            ents.append((t, sub, None, tags))
    ents.sort(key=lambda e: e[0])
    lines = []
    for (t, text, x, rk) in ents:
        if stamps:
            d = _dt(w.hclock(h, t))
            text = d.strftime("%Y-%m-%dT%H:%M:%S.") + "%06d%03dZ " % (d.microsecond, int(w.hclock(h, t) * 1e9) % 1000) + text
        lines.append(text)
    total = sum(len(x) + 1 for x in lines)
    keep = list(range(len(lines)))
    mark = None
    if total > MAX_FILE:
        acc, hi = 0, 0
        while hi < len(lines) and acc + len(lines[hi]) + 1 < MAX_FILE * 0.15:
            acc += len(lines[hi]) + 1
            hi += 1
        acc, lo = 0, len(lines)
        while lo > hi and acc + len(lines[lo - 1]) + 1 < MAX_FILE * 0.8:
            acc += len(lines[lo - 1]) + 1
            lo -= 1
        keep = list(range(hi)) + list(range(lo, len(lines)))
        mark = (hi, rng.choice(TRIM_MARKS) % (lo - hi))
    else:
        for r in w.ranks_on(h):
            seen.add(("full", r))
    outl = []
    for k in keep:
        if mark and k == mark[0]:
            outl.append(mark[1])
        t, text, x, rk = ents[k]
        outl.append(lines[k])
        if x is not None:
            seen.add_line(x, rk, True, False)
        elif rk:
            for tg in rk:
                seen.add(tg)
    body = "\n".join(outl) + "\n"
    write(out_dir, "kubectl-logs/%s.log" % w.pod_name(i), body, files)


def render_k8s(w, inc, out_dir, seen, files):
    rng = w.rng
    cache = {}
    attempts = attempt_exits(w, inc)
    k8s_noise_events(w, inc, rng.randint(4, 14))
    if getattr(inc, "neighbour_evict", False):
        for _ in range(rng.randint(2, 5)):
            h = rng.choice(w.hosts)
            pod = "%s-%s" % (rng.choice(["feature-gen", "etl-nightly", "vllm-bench"]), "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(5)))
            t = rng.uniform(w.t_train, w.t_done)
            kev(inc, t, rng.choice(["data-eng", "inference"]), "pod/%s" % pod, "Warning", "Evicted",
                "The node was low on resource: ephemeral-storage. Threshold quantity: %d, available: %dKi. Container %s was using %dKi, request is 0, has larger consumption of ephemeral-storage." % (
                    rng.randint(10 ** 9, 4 * 10 ** 10), rng.randint(10 ** 5, 10 ** 7), pod.rsplit("-", 1)[0], rng.randint(10 ** 6, 10 ** 8)), "kubelet")
            kev(inc, t - 30, "default", "node/%s" % h, "Warning", "EvictionThresholdMet", "Attempting to reclaim ephemeral-storage", "kubelet")
    # job-level events
    t_start = w.t0 - rng.uniform(20, 90)
    ctrl = "pytorchjob-controller" if w.k8s_ctrl == "pytorchjob" else "jobset-controller"
    objk = "pytorchjob/%s" % w.kjob if w.k8s_ctrl == "pytorchjob" else "jobset/%s" % w.kjob
    for i in range(w.nnodes):
        kev(inc, t_start + rng.uniform(0, 5), w.ns, "pod/%s" % w.pod_name(i), "Normal", "Scheduled", "Successfully assigned %s/%s to %s" % (w.ns, w.pod_name(i), w.hosts[i]), "default-scheduler",
            tags=tuple(("host_map", r) for r in w.ranks_on(w.hosts[i])))
        kev(inc, t_start + rng.uniform(6, 40), w.ns, "pod/%s" % w.pod_name(i), "Normal", "Started", "Started container pytorch", "kubelet")
    stats = {i: pod_status(w, inc, i, attempts) for i in range(w.nnodes)}
    failed = [i for i in range(w.nnodes) if stats[i]["reason"] not in ("Running", "Completed")]
    if w.k8s_ctrl == "pytorchjob":
        if inc.healthy:
            kev(inc, inc.t_end or w.t_done, w.ns, objk, "Normal", "PyTorchJobSucceeded", "PyTorchJob %s/%s successfully completed." % (w.ns, w.kjob), ctrl)
        elif failed and not (inc.k8s_job_cond and inc.k8s_job_cond[0] == "Suspended"):
            tfl = min(stats[i]["t"] for i in failed)
            nw = sum(1 for i in failed if i > 0)
            kind = "Worker" if nw else "Master"
            kev(inc, tfl + 2, w.ns, objk, "Normal", "PyTorchJobFailed", "PyTorchJob %s/%s has failed because %d %s replica(s) failed." % (w.ns, w.kjob, nw or 1, kind), ctrl)
    else:
        if inc.healthy:
            kev(inc, inc.t_end or w.t_done, w.ns, objk, "Normal", "AllJobsCompleted", "jobset completed successfully", ctrl)
        elif failed:
            tfl = min(stats[i]["t"] for i in failed)
            kev(inc, tfl + 2, w.ns, objk, "Warning", "FailedJobs", "jobset failed due to one or more job failures", ctrl)
    # pod logs
    nodes = choose_nodes(w, inc, rng.choice([4, 6, 8]))
    for i in failed[:3]:
        if i not in nodes and rng.random() < 0.5:
            nodes.append(i)
    nodes = sorted(set(nodes))
    w._k8s_stamps = rng.random() < 0.35
    for i in nodes:
        k8s_pod_log(w, inc, i, attempts, cache, out_dir, seen, files)
    # kubectl get pods -o wide
    if rng.random() < 0.8:
        tcap = (inc.t_end or w.t_done) + rng.uniform(60, 2400)
        txt = "$ kubectl get pods -n %s -o wide -l %s\n" % (w.ns, ("training.kubeflow.org/job-name=%s" % w.kjob) if w.k8s_ctrl == "pytorchjob" else ("jobset.sigs.k8s.io/jobset-name=%s" % w.kjob))
        txt += "%-52s %-6s %-22s %-9s %-6s %-15s %-50s %-15s %s\n" % ("NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE", "NOMINATED NODE", "READINESS GATES")
        for i in range(w.nnodes):
            st = stats[i]
            if st.get("deleted"):
                continue
            status = {"Running": "Running", "Completed": "Completed"}.get(st["reason"], st["reason"])
            txt += "%-52s %-6s %-22s %-9s %-6s %-15s %-50s %-15s %s\n" % (w.pod_name(i), "1/1" if status == "Running" else "0/1", status, "0",
                                                                             age(tcap - w.t0), "10.%d.%d.%d" % (rng.randint(0, 255), rng.randint(0, 255), rng.randint(2, 254)), w.hosts[i], "<none>", "<none>")
            for r in w.ranks_on(w.hosts[i]):
                seen.add(("host_map", r))
        write(out_dir, "pods-wide.txt", txt, files)
    # describe failing pods
    desc = [i for i in failed[:2]]
    if inc.init_host is not None and rng.random() < 0.6:
        desc.append(w.host_idx[inc.init_host])
    desc = sorted(set(desc))
    for i in desc:
        if stats[i].get("deleted") and rng.random() < 0.6:
            continue
        write(out_dir, "describe/pod_%s.txt" % w.pod_name(i), describe_pod(w, inc, i, stats[i], seen, inc.k8s_events), files)
    # nodes
    nds = set(d["host"] for d in inc.drains if d["host"] in w.host_idx)
    if inc.init_host and rng.random() < 0.5:
        nds.add(inc.init_host)
    if rng.random() < 0.4:
        nds.add(rng.choice(w.hosts))
    for h in sorted(nds):
        if rng.random() < 0.8:
            write(out_dir, "describe/node_%s.txt" % h.split(".")[0], describe_node(w, inc, h, seen), files)
    # events
    if rng.random() < 0.9:
        tcap = (inc.t_end or w.t_done) + rng.uniform(60, 1500)
        evs = sorted(inc.k8s_events, key=lambda e: e["t"])
        custom = rng.random() < 0.5
        if custom:
            txt = "$ kubectl get events -A --sort-by=.lastTimestamp -o custom-columns=LAST:.lastTimestamp,NS:.metadata.namespace,TYPE:.type,REASON:.reason,OBJECT:.involvedObject.name,SOURCE:.source.component,MESSAGE:.message\n"
            txt += "%-21s %-14s %-8s %-22s %-56s %-24s %s\n" % ("LAST", "NS", "TYPE", "REASON", "OBJECT", "SOURCE", "MESSAGE")
        else:
            txt = "$ kubectl get events -A --sort-by=.lastTimestamp\n"
            txt += "%-14s %-10s %-8s %-22s %-60s %s\n" % ("NAMESPACE", "LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE")
        for e in evs:
            if tcap - e["t"] > 3600 and not custom and rng.random() < 0.7:
                continue   # events expire (default ttl 1h) in a relative listing
            if custom:
                txt += "%-21s %-14s %-8s %-22s %-56s %-24s %s\n" % (ts_z(e["t"]), e["ns"], e["type"], e["reason"], e["obj"].split("/", 1)[1], e["src"], e["msg"])
            else:
                ag = age(tcap - e["t"]) if e["count"] == 1 else "%s (x%d over %s)" % (age(tcap - e["t"]), e["count"], age(tcap - e["first"] + 600))
                txt += "%-14s %-10s %-8s %-22s %-60s %s\n" % (e["ns"], ag, e["type"], e["reason"], e["obj"], e["msg"])
            for tg in e["tags"]:
                seen.add(tg)
        write(out_dir, "events.txt", txt, files)
    # the job object
    if rng.random() < 0.6:
        txt = "$ kubectl describe %s -n %s\n" % ("pytorchjob" if w.k8s_ctrl == "pytorchjob" else "jobset", w.ns)
        txt += "Name:         %s\nNamespace:    %s\nKind:         %s\n" % (w.kjob, w.ns, "PyTorchJob" if w.k8s_ctrl == "pytorchjob" else "JobSet")
        txt += "Spec:\n  Run Policy:\n    Backoff Limit:  %d\n" % rng.choice([0, 1, 3])
        txt += "Status:\n  Conditions:\n"
        txt += "    Type: Created   Reason: %sCreated   Message: %s %s is created.\n" % ("PyTorchJob" if w.k8s_ctrl == "pytorchjob" else "JobSet", "PyTorchJob" if w.k8s_ctrl == "pytorchjob" else "JobSet", w.kjob)
        txt += "    Type: Running   Reason: Running   Message: %s is running.\n" % w.kjob
        if inc.healthy and inc.restart:
            txt += "    Type: Restarting   Reason: Restarting   Message: PyTorchJob %s is restarting because 1 Worker replica(s) failed.\n" % w.kjob
        if inc.healthy:
            txt += "    Type: Succeeded   Reason: Succeeded   Message: %s successfully completed.\n" % w.kjob
        elif inc.k8s_job_cond:
            txt += "    Type: %s   Reason: Preempted   Message: %s\n" % inc.k8s_job_cond
        elif failed:
            txt += "    Type: Failed   Reason: Failed   Message: %s has failed because %d replica(s) failed.\n" % (w.kjob, len(failed))
        write(out_dir, "describe/%s_%s.txt" % (w.k8s_ctrl, w.kjob), txt, files)
    # kernel / node-problem-detector
    for h in kernel_hosts_choice(w, inc, 0.45, 0.3):
        write(out_dir, "node-debug/%s_journal-k.txt" % h.split(".")[0], kernel_file(w, inc, h, "journal", seen), files)
    write_extras(w, inc, out_dir, seen, files, "debug/", 0.7)


# --------------------------------------------------------------------------
# layout: ops  (operator incident bundle: ticket, scheduler views, NHC, alerts, dashboards)
# --------------------------------------------------------------------------
def scontrol_show_job(w, inc):
    rng = w.rng
    st = inc.job_state.split()[0]
    reason = {"FAILED": "NonZeroExitCode", "COMPLETED": "None", "PREEMPTED": "BeginTime" if inc.requeue else "None", "NODE_FAIL": "NodeDown",
              "TIMEOUT": "TimeLimit", "CANCELLED": "None", "RUNNING": "None"}.get(st, "None")
    if st == "PREEMPTED" and inc.requeue:
        st = "PENDING"
    uid = rng.randint(1000, 40000)
    te = inc.t_end or w.t_done
    s = ["JobId=%d JobName=%s" % (w.jobid, w.jobname),
         "   UserId=%s(%d) GroupId=%s(%d) MCS_label=N/A" % (w.user, uid, w.account, rng.randint(1000, 9000)),
         "   Priority=%d Nice=0 Account=%s QOS=%s" % (rng.randint(1000, 90000), w.account, rng.choice(["normal", "low", "preemptible", "high"])),
         "   JobState=%s Reason=%s Dependency=(null)" % (st, reason),
         "   Requeue=%d Restarts=%d BatchFlag=1 Reboot=0 ExitCode=%s" % (1 if inc.requeue else rng.choice([0, 1]), 1 if inc.requeue else 0, inc.job_exit),
         "   RunTime=%s TimeLimit=%s TimeMin=N/A" % (dur_hms(te - w.t0), rng.choice(["2-00:00:00", "1-00:00:00", "12:00:00", "7-00:00:00"])),
         "   SubmitTime=%s EligibleTime=%s" % (ts_iso(w.t0 - 600), ts_iso(w.t0 - 600)),
         "   StartTime=%s EndTime=%s Deadline=N/A" % (ts_iso(w.t0), "Unknown" if inc.running else ts_iso(te)),
         "   Partition=%s AllocNode:Sid=%s:%d" % (w.partition, rng.choice(["login01", "login02", "ln-03"]), rng.randint(1000, 99999)),
         "   NodeList=%s" % w.nodelist(), "   BatchHost=%s" % w.hosts[0],
         "   NumNodes=%d NumCPUs=%d NumTasks=%d CPUs/Task=%d ReqB:S:C:T=0:0:*:*" % (w.nnodes, w.nnodes * 96, w.world if w.launcher == "srun" else w.nnodes, 12),
         "   TRES=cpu=%d,mem=%dG,node=%d,billing=%d,gres/gpu=%d" % (w.nnodes * 96, w.nnodes * 1600, w.nnodes, w.nnodes * 96, w.world),
         "   OverSubscribe=%s Contiguous=0 Licenses=(null) Network=(null)" % ("NO" if w.exclusive else "OK"),
         "   Command=/home/%s/jobs/%s.sbatch" % (w.user, w.jobname),
         "   StdOut=/home/%s/logs/slurm-%d.out" % (w.user, w.jobid)]
    return "$ scontrol show job %d\n" % w.jobid + "\n".join(s) + "\n"


def nhc_log(w, inc, host, seen):
    rng = w.rng
    out = []
    t0 = w.t0 - 3600
    t = t0
    te = (inc.t_end or w.t_done) + 900
    dr = [d for d in inc.drains if d["host"] == host]
    while t < te:
        d = _dt(w.hclock(host, t))
        out.append("%s [slurm] /usr/libexec/nhc/node-mark-online %s" % (d.strftime("%Y%m%d %H:%M:%S"), host))
        out.append("/usr/libexec/nhc/node-mark-online:  Node %s is already online." % host)
        t += rng.choice([300, 300, 600])
        for dd in dr:
            if t - rng.choice([300, 600]) < dd["t"] <= t:
                d2 = _dt(w.hclock(host, dd["t"]))
                rsn = dd["reason"]
                if not rsn.startswith("NHC:"):
                    rsn = "NHC: " + rsn.split(": ", 1)[-1]
                out.append("ERROR:  nhc:  Health check failed:  %s" % rsn[5:])
                out.append("%s [slurm] /usr/libexec/nhc/node-mark-offline %s %s" % (d2.strftime("%Y%m%d %H:%M:%S"), host, rsn[5:]))
                out.append("/usr/libexec/nhc/node-mark-offline:  Marking %s %s offline:  %s" % ("allocated" if rng.random() < 0.5 else "mixed", host, rsn))
                for tg in dd["tags"]:
                    seen.add(tg)
                return "\n".join(out) + "\n"
    return "\n".join(out) + "\n"


def alerts_text(w, inc, seen):
    rng = w.rng
    rows = []
    d = getattr(inc, "dcgm", None)
    if d:
        rows.append((inc.kernel[d[0]][0].t + rng.uniform(15, 60) if d[0] in inc.kernel else w.t_fail + 30, "FIRING", "GPUXidError",
                     'severity="%s" instance="%s:9400" gpu="%d" xid="%d" summary="GPU %d on %s reported Xid %d"' % (
                         "warning" if d[2] in (13, 31) else "critical", d[0], d[1], d[2], d[1], d[0], d[2]), (("node_key", d[0]),)))
    ib = getattr(inc, "ib", None)
    if ib:
        rows.append((w.t_fail + rng.uniform(5, 40), "FIRING", "InfinibandPortDown", 'severity="critical" instance="%s" device="mlx5_%d" port="1"' % ib, (("node_key", ib[0]),)))
    th = getattr(inc, "dcgm_throttle", None)
    if th:
        rows.append((inc.slow_from + rng.uniform(60, 600), "FIRING", "GPUThermalThrottling", 'severity="warning" instance="%s:9400" gpu="%d" clock_event="hw_thermal"' % th, (("node_key", th[0]),)))
    if inc.cause == "host_oom_kill" and not inc.healthy and inc.init_host:
        rows.append((w.t_fail + rng.uniform(5, 40), "FIRING", "HostOOMKillDetected", 'severity="warning" instance="%s:9100" summary="oom_kill events increased"' % inc.init_host, (("node_key", inc.init_host),)))
    nb = getattr(inc, "neighbour", None)
    if nb and inc.cause == "straggler":
        rows.append((inc.slow_from + rng.uniform(60, 900), "FIRING", "NodePCIeSaturation" if "pcie" in inc.variant else "NodeCPUOversubscribed",
                     'severity="info" instance="%s:9100"' % nb["host"], (("node_key", nb["host"]),)))
    fsn = getattr(inc, "fs_neighbour", None)
    if fsn:
        rows.append((w.t_fail - rng.uniform(60, 900), "FIRING", "StorageHighLoad", 'severity="warning" fs="%s" top_job="%d" top_user="%s"' % (fsn["fs"], fsn["jobid"], fsn["user"]), ()))
        if inc.node_level and inc.init_host:
            rows.append((w.t_fail + rng.uniform(30, 300), "FIRING", "NFSServerNotResponding", 'severity="critical" instance="%s:9100" server="%s"' % (inc.init_host, fsn["fs"]), (("node_key", inc.init_host),)))
    # noise
    for _ in range(rng.randint(2, 6)):
        h = rng.choice(w.spare + w.hosts[:1])
        a = rng.choice([("NodeDiskSpaceLow", 'severity="warning" instance="%s:9100" mountpoint="/tmp"' % h),
                        ("SlurmNodeDrained", 'severity="info" node="%s"' % rng.choice(w.spare)),
                        ("GPUXidError", 'severity="critical" instance="%s:9400" gpu="%d" xid="79" summary="GPU on %s reported Xid 79"' % (w.spare[-1], rng.randint(0, 7), w.spare[-1])),
                        ("NodeClockSkewDetected", 'severity="warning" instance="%s:9100" offset_seconds="%.1f"' % (w.skew_bad or h, w.skew.get(w.skew_bad or h, 0.3))),
                        ("LustreOSTHighLatency", 'severity="warning" ost="scratch-OST%04x"' % rng.randint(0, 80))])
        rows.append((rng.uniform(w.t0, (inc.t_end or w.t_done)), rng.choice(["FIRING", "RESOLVED"]), a[0], a[1], ()))
    rows.sort(key=lambda r: r[0])
    out = ["# alertmanager notifications, #gpu-cluster-alerts"]
    for t, st, name, lab, tags in rows:
        out.append("%s  %-8s %-26s %s" % (ts_z(t), st, name, lab))
        for tg in tags:
            seen.add(tg)
    return "\n".join(out) + "\n"


def grafana_csv(w, inc, seen):
    """One dashboard panel exported as CSV (per-host series)."""
    rng = w.rng
    hosts = w.hosts if w.nnodes <= 12 else sorted(set(rng.sample(w.hosts, 10) + ([inc.init_host] if inc.init_host and rng.random() < 0.8 else [])), key=lambda h: w.host_idx[h])
    t_a = w.t_fail - 3600
    t_b = (inc.t_end or w.t_done) if inc.cause != "straggler" else w.t_fail
    if inc.healthy:
        t_a, t_b = w.t_done - 3600, w.t_done
    step = max(60, int((t_b - t_a) / 30))
    panel = "gpu_util_percent"
    special = None
    if inc.cause == "straggler" and not inc.healthy:
        panel = "node_step_time_seconds" if inc.node_level else "gpu_sm_clock_mhz"
        special = "straggler"
    elif inc.cause in ("hang", "data_loader_stall") and not inc.healthy:
        panel = "gpu_util_percent"
        special = "idle"
    elif inc.cause == "network" and not inc.healthy:
        panel = "ib_port_rcv_errors_rate"
        special = "ib"
    out = ["Time,%s" % ",".join("%s{host=\"%s\"}" % (panel, h) for h in hosts)]
    t = t_a
    while t <= t_b:
        row = [ts_space(t)]
        for h in hosts:
            if special == "straggler":
                if inc.node_level:
                    v = w.step_time * (inc.slow_factor if (h == inc.init_host and t > inc.slow_from) else 1.0) * rng.uniform(0.97, 1.03)
                    row.append("%.2f" % v)
                else:
                    v = rng.uniform(1750, 1980) if not (h == inc.init_host and t > inc.slow_from) else rng.uniform(900, 1300)
                    row.append("%.0f" % v)
            elif special == "idle":
                busy = t < w.t_fail or (inc.init_host and h != inc.init_host and t < w.t_fail + 30)
                v = rng.uniform(88, 99) if busy else (rng.uniform(0, 2) if (inc.init_host == h or t > w.t_fail + 60) else rng.uniform(40, 99))
                if t > w.t_fail + 60 and h != inc.init_host:
                    v = 100.0 if rng.random() < 0.6 else rng.uniform(95, 100)   # spinning in NCCL
                row.append("%.1f" % v)
            elif special == "ib":
                v = rng.uniform(0, 0.02) if not (h == inc.init_host and abs(t - w.t_fail) < step * 2) else rng.uniform(40, 400)
                row.append("%.3f" % v)
            else:
                v = rng.uniform(85, 99) if t < (w.t_fail if not inc.healthy else w.t_done) else 0.0
                row.append("%.1f" % v)
        out.append(",".join(row))
        t += step
    if special in ("straggler", "ib") and inc.init_host in hosts:
        seen.add(("node_key", inc.init_host))
    if special == "idle" and inc.init_host in hosts:
        seen.add(("node_ptr", inc.init_host))
    return panel, "\n".join(out) + "\n"


def render_ops(w, inc, out_dir, seen, files):
    rng = w.rng
    cache = {}
    ents = job_output_entries(w, inc, cache)
    if rng.random() < 0.2:
        ents = [e for e in ents if "NCCL INFO" not in e.text]
    n_tail = rng.choice([150, 300, 600, 1000])
    tail = ents[-n_tail:]
    tail = trim_entries(w, tail, 300_000)
    for e in tail:
        tag_entry(seen, e)
    write(out_dir, "job/slurm-%d.out.tail" % w.jobid, "$ tail -n %d /home/%s/logs/slurm-%d.out\n" % (n_tail, w.user, w.jobid) + "\n".join(e.text for e in tail) + "\n", files)
    # the user's ticket
    blame = None
    if not inc.healthy:
        cands = [w.hosts[0], w.spare[0], rng.choice(w.hosts)]
        if rng.random() < 0.25:
            cands += [d["host"] for d in inc.drains]
        blame = rng.choice(cands)
    tl = ts_iso(inc.t_end or w.t_done)[:16].replace("T", " ")
    if inc.healthy:
        txt = "Subject: job %d - scary messages in the log?\n\nHi ops, my job %d (%s) finished but I saw drained nodes / OOM messages / NCCL warnings around it. Could you confirm the nodes are fine before I launch the next stage?\n-- %s\n" % (w.jobid, w.jobid, w.jobname, w.user)
    elif inc.cause == "straggler":
        txt = "Subject: job %d much slower than usual\n\nHi, job %d (%s, %d nodes) runs much slower than the same config last week. Is something wrong with the cluster?\n-- %s\n" % (w.jobid, w.jobid, w.jobname, w.nnodes, w.user)
    else:
        txt = "Subject: job %d died\n\nHi ops, job %d (%s, %d nodes x %d GPUs) died around %s UTC. The log is full of NCCL errors. Is %s broken? Please check and tell me whether to exclude nodes.\n-- %s\n" % (
            w.jobid, w.jobid, w.jobname, w.nnodes, w.gpn, tl, blame, w.user)
    write(out_dir, "ticket.txt", txt, files)
    write(out_dir, "scheduler/sacct.txt", sacct_text(w, inc, seen), files)
    if rng.random() < 0.6:
        write(out_dir, "scheduler/scontrol_show_job.txt", scontrol_show_job(w, inc), files)
    nd = neighbour_drains(w, rng, w.t0 - 86400, (inc.t_end or w.t_done))
    if rng.random() < 0.85:
        write(out_dir, "scheduler/sinfo-R.txt", "$ sinfo -R -o '%50E %9u %19H %N'\n" + sinfo_R(w, inc, nd + inc.drains, seen, full=rng.random() < 0.8), files)
    if rng.random() < 0.8:
        write(out_dir, "scheduler/slurmctld.log.excerpt", slurmctld_text(w, inc, seen, nd), files)
    for d in inc.drains:
        if d["reason"].startswith("NHC") and rng.random() < 0.7:
            write(out_dir, "nhc/%s.nhc.log" % d["host"], nhc_log(w, inc, d["host"], seen), files)
    if rng.random() < 0.75:
        write(out_dir, "monitoring/alerts.txt", alerts_text(w, inc, seen), files)
    if rng.random() < 0.6:
        panel, csv = grafana_csv(w, inc, seen)
        write(out_dir, "monitoring/grafana_%s.csv" % panel, csv, files)
    style = rng.choice(["T", "journal", "raw"])
    hs = kernel_hosts_choice(w, inc, 0.8, 0.5)
    for d in inc.drains:
        if d["host"] not in hs and d["host"] in w.host_idx and rng.random() < 0.5:
            hs.append(d["host"])
    for h in hs:
        write(out_dir, "nodes/%s/%s" % (h.split(".")[0], {"T": "dmesg-T.txt", "journal": "journalctl-k.txt", "raw": "dmesg.txt"}[style]), kernel_file(w, inc, h, style, seen), files)
    write_extras(w, inc, out_dir, seen, files, "debug/", 0.75)


# --------------------------------------------------------------------------
# layout: paste  (what a user pastes into a ticket / chat / issue)
# --------------------------------------------------------------------------
GREP_PAT = ("rror", "xception", "Killed", "CANCELLED", "Xid", "WARN", "Traceback", "Watchdog", "Signal", "exitcode", "OutOfMemory", "out of memory", "Fatal", "Assertion")


def render_paste(w, inc, out_dir, seen, files):
    rng = w.rng
    fence = rng.random() < 0.5
    parts = []
    intro = rng.choice(["Hi all, our training job died again on the shared partition. Relevant bits below.",
                        "Job crashed overnight, pasting what I have (full logs are too big to attach):",
                        "Can someone from infra take a look? Logs:",
                        "Not sure if this is our code or the cluster. Here is the output:",
                        "posting here in case someone has seen this before"])
    if inc.healthy:
        intro = rng.choice(["The job finished, but these lines worry me - is the node OK?", "Everything completed but the logs look scary, pasting for a sanity check:"])
    if inc.cause == "straggler" and not inc.healthy:
        intro = "Our run got much slower halfway through, nothing crashed (yet). Logs:"
    parts.append(intro + "\n")

    def block(title, lines):
        s = title + "\n"
        if fence:
            s += "```\n" + "\n".join(lines) + "\n```\n"
        else:
            s += "\n".join(lines) + "\n"
        parts.append(s)

    cache = {}
    if w.sched == "k8s":
        attempts = attempt_exits(w, inc)
        stats = {i: pod_status(w, inc, i, attempts) for i in range(w.nnodes)}
        failed = [i for i in range(w.nnodes) if stats[i]["reason"] not in ("Running", "Completed")]
        pick = failed[0] if failed else 0
        if inc.init_host is not None and rng.random() < 0.5:
            pick = w.host_idx[inc.init_host]
        h = w.hosts[pick]
        ents = []
        for a_idx in range(len(attempts)):
            for rk in w.ranks_on(h):
                segs = build_stream(w, inc, rk, cache)
                seg = segs[a_idx] if a_idx < len(segs) else []
                for x in seg:
                    ents.append(E(x.t, "[default%d]:%s" % (w.local(rk), subst(x.text, w.hclock(h, x.t), ns=(w.pgfmt == "r25"))), x, rk, True))
        for (t, text, tags) in agent_all(w, inc, pick, attempts):
            split_multiline(t, subst(text, w.hclock(h, t)), "", tags, ents)
        ents.sort(key=lambda e: e.t)
        n = rng.randint(30, 90)
        tl = ents[-n:]
        for e in tl:
            tag_entry(seen, e)
        block("$ kubectl logs -n %s %s --tail=%d" % (w.ns, w.pod_name(pick), n), [e.text for e in tl])
        if rng.random() < 0.5:
            g = [e for e in ents[:-n] if any(p in e.text for p in GREP_PAT)][: rng.randint(5, 25)]
            if g:
                for e in g:
                    tag_entry(seen, e)
                block("earlier in the same log:", [e.text for e in g])
        if rng.random() < 0.6:
            st = stats[pick]
            lines = ["Node:             %s/%s" % (h, w.ip[h])]
            if st["reason"] != "Running":
                lines += ["    Last State:     Terminated", "      Reason:       %s" % st["reason"], "      Exit Code:    %s" % st["exit"]]
            for r in w.ranks_on(h):
                seen.add(("host_map", r))
            block("$ kubectl describe pod %s | grep -A3 -E 'Node:|Last State'" % w.pod_name(pick), lines)
        if rng.random() < 0.5:
            k8s_noise_events(w, inc, rng.randint(1, 5))
            evs = sorted(inc.k8s_events, key=lambda e: e["t"])[-rng.randint(6, 20):]
            tcap = (inc.t_end or w.t_done) + rng.uniform(60, 1500)
            lines = []
            for e in evs:
                lines.append("%-12s %-8s %-8s %-20s %-50s %s" % (e["ns"], age(tcap - e["t"]), e["type"], e["reason"], e["obj"], e["msg"]))
                for tg in e["tags"]:
                    seen.add(tg)
            block("$ kubectl get events -A --sort-by=.lastTimestamp | tail", lines)
    else:
        ents = job_output_entries(w, inc, cache)
        numbered = [(i + 1, e) for i, e in enumerate(ents)]
        if rng.random() < 0.8 or True:
            n = rng.randint(25, 90)
            tl = ents[-n:]
            for e in tl:
                tag_entry(seen, e)
            block("$ tail -n %d slurm-%d.out" % (n, w.jobid), [e.text for e in tl])
        if rng.random() < 0.6:
            m = rng.randint(8, 40)
            g = [(i, e) for i, e in numbered if any(p in e.text for p in GREP_PAT)][:m]
            if g:
                for i, e in g:
                    tag_entry(seen, e)
                block("$ grep -nE 'rror|xception|Killed|CANCELLED|Xid|WARN|Traceback' slurm-%d.out | head -n %d" % (w.jobid, m),
                      ["%d:%s" % (i, e.text) for i, e in g])
        if rng.random() < 0.4:
            block("$ sacct -j %d" % w.jobid, sacct_text(w, inc, seen).splitlines()[1:])
        if rng.random() < 0.25:
            nd = neighbour_drains(w, rng, w.t0 - 86400, (inc.t_end or w.t_done))
            block("$ sinfo -R", sinfo_R(w, inc, nd + inc.drains, seen).splitlines())
    kh = [h for h in w.hosts if h in inc.kernel]
    if kh and rng.random() < 0.4:
        h = inc.init_host if (inc.init_host in kh and rng.random() < 0.6) else rng.choice(kh)
        ks = Seen()
        txt = kernel_file(w, inc, h, "T", ks).splitlines()
        pat = ("NVRM", "oom", "Out of memory", "Killed process", "mlx5", "nfs:", "segfault", "Lustre", "AER")
        sel = [ln for ln in txt if any(p in ln for p in pat)]
        if sel:
            for x in inc.kernel.get(h, []):
                if any(p in x.text for p in pat):
                    for tg in x.tags:
                        seen.add(tg)
            block("admin ran this on %s:\n$ sudo dmesg -T | grep -iE 'nvrm|oom|mlx5|nfs|segfault'" % h, sel)
    if inc.extras and rng.random() < 0.3:
        name, text, tags = inc.extras[0]
        block("also got this (%s):" % name, text.rstrip("\n").splitlines()[:40])
        for tg in tags:
            seen.add(tg)
    write(out_dir, "paste.txt" if rng.random() < 0.6 else "issue_comment.md", "\n".join(parts), files)


# --------------------------------------------------------------------------
# driver
# --------------------------------------------------------------------------
RENDER = {"slurm": render_slurm, "torchrun": render_torchrun, "k8s": render_k8s, "paste": render_paste, "ops": render_ops}


def healthy_extras(w, inc):
    rng = w.rng
    if getattr(inc, "scary", False):
        for rk in rng.sample(range(w.world), min(w.world, rng.randint(1, 6))):
            t = w.t0 + w.startup * rng.uniform(0.1, 0.25)
            if w.pgfmt in ("old", "r22", "r23"):
                pre = "[W socket.cpp:%d] " % rng.choice([464, 663, 697])
            else:
                pre = "[W@@W@@ socket.cpp:%d] " % rng.choice([464, 663, 697])
                pre = pre.replace("[W@@W@@", "[@@W@@")
            inc.add(rk, L(t, pre + "[c10d] The client socket has failed to connect to [%s]:%d (errno: 111 - Connection refused)." % (w.hosts[0], w.master_port), "noise"))
        if w.nccl_info:
            r = rng.randrange(w.world)
            inc.add(r, L(w.t0 + w.startup * 0.5, nccl_pre(w, r, True, "misc/ibvwrap.cc:%d" % rng.choice([190, 262])) + "NET/IB : Got async event : GID table change", "noise"))
    if w.sched == "k8s" and inc.variant == "neighbour_drain":
        for h in w.spare[:2]:
            t = rng.uniform(w.t_train, w.t_done)
            kev(inc, t, "default", "node/%s" % h, "Normal", "NodeNotSchedulable", "Node %s status is now: NodeNotSchedulable" % h, "kubelet")
            kev(inc, t - 20, "gpu-operator", "pod/nvidia-dcgm-exporter-%s" % "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(5)), "Warning", "Unhealthy",
                "Readiness probe failed: Get \"http://10.%d.%d.%d:9400/health\": dial tcp: connect: connection refused" % (rng.randint(0, 255), rng.randint(0, 255), rng.randint(2, 254)), "kubelet")


def cause_evident(w, inc, seen):
    """Does the bundle carry at least one piece of evidence of the cause itself?"""
    if inc.healthy or inc.cause == "unknown":
        return True
    S = seen.s
    R, H = inc.init_rank, inc.init_host
    if inc.cause == "preemption" and R is None and H is None:
        return ("preempt", None) in S
    if R is not None and (("rank_key", R) in S or ("pointer", R) in S or ("slow", R) in S or ("node_oomtie", R) in S or ("keyline", R) in S):
        return True
    if inc.exit_ok and R is not None and ("exit_seen", R) in S and inc.cause in ("host_oom_kill", "crash_signal"):
        return True
    if H is not None and (("node_key", H) in S or ("node_ptr", H) in S or ("ip_named", H) in S):
        return True
    if any(t[0] in ("pointer", "slow") and t[1] in inc.node_ranks for t in S):
        return True
    stuck = getattr(inc, "stuck", [])
    n_wd = sum(1 for t in S if t[0] == "wd")
    for r in stuck:
        if ("wd", r) not in S and ((("full", r) in S and n_wd >= 2) or n_wd >= w.world - len(stuck)):
            return True
    return False


def fallback(w, inc, out_dir, seen, files):
    """The user / operator attached one more thing; pick what a person would have grabbed."""
    rng = w.rng
    R, H = inc.init_rank, inc.init_host
    if inc.cause == "preemption" and H is not None:
        if w.sched == "k8s":
            evs = [e for e in inc.k8s_events if e["tags"] or (e["obj"] == "node/%s" % H)]
            txt = "$ kubectl get events -A --sort-by=.lastTimestamp | grep -E '%s|%s'\n" % (H.split(".")[0], w.pod_name(w.host_idx[H]))
            for e in sorted(evs, key=lambda e: e["t"]):
                txt += "%-14s %-8s %-8s %-20s %-50s %s\n" % (e["ns"], age(900), e["type"], e["reason"], e["obj"], e["msg"])
            for d in inc.drains:
                txt += "# cordoned by %s: %s\n" % (d["user"], d["reason"])
                for tg in d["tags"]:
                    seen.add(tg)
            for e in evs:
                for tg in e["tags"]:
                    seen.add(tg)
            write(out_dir, "events_%s.txt" % H.split(".")[0], txt, files)
        else:
            write(out_dir, "slurmctld.log.excerpt", slurmctld_text(w, inc, seen, []), files)
        return
    if inc.cause == "preemption" and R is None and H is None:
        if w.sched == "k8s":
            evs = [e for e in inc.k8s_events if e["tags"]]
            txt = "$ kubectl get events -n %s --sort-by=.lastTimestamp | grep -i preempt\n" % w.ns
            for e in evs:
                txt += "%-8s %-8s %-20s %-50s %s\n" % (age(600), e["type"], e["reason"], e["obj"], e["msg"])
                for tg in e["tags"]:
                    seen.add(tg)
            write(out_dir, "events_preempt.txt", txt, files)
        else:
            write(out_dir, "sacct.txt", sacct_text(w, inc, seen), files)
        return
    if H is not None and any(x.kind == "key" for x in inc.kernel.get(H, [])):
        write(out_dir, "extra_%s_kernel.log" % H.split(".")[0], kernel_file(w, inc, H, "journal", seen), files)
        return
    if inc.extras:
        for (name, text, tags) in inc.extras:
            write(out_dir, "attached_" + name, text, files)
            for tg in tags:
                seen.add(tg)
        return
    if w.layout == "torchrun" and H is not None:
        torchrun_node_files(w, inc, w.host_idx[H], attempt_exits(w, inc), {}, out_dir, seen, files)
        return
    if w.layout == "k8s" and H is not None:
        k8s_pod_log(w, inc, w.host_idx[H], attempt_exits(w, inc), {}, out_dir, seen, files)
        return
    if w.sched == "k8s":
        # a paste from k8s: the initiator's pod log, grepped
        cache = {}
        lines = []
        hh = H or w.hosts[0]
        for rk in w.ranks_on(hh):
            for x in build_stream(w, inc, rk, cache)[0]:
                if x.kind in ("key",) or x.tags:
                    lines.append((x.t, "[default%d]:%s" % (w.local(rk), subst(x.text, w.hclock(hh, x.t), ns=(w.pgfmt == "r25"))), x, rk))
        lines.sort(key=lambda z: z[0])
        for (_, _, x, rk) in lines:
            seen.add_line(x, rk, True, False)
        write(out_dir, "grep_%s.txt" % w.pod_name(w.host_idx[hh]), "$ kubectl logs %s | grep -iE 'error|warn|timeout|killed|signal'\n" % w.pod_name(w.host_idx[hh]) + "\n".join(z[1] for z in lines) + "\n", files)
        return
    ents = job_output_entries(w, inc, {})
    g = [(i + 1, e) for i, e in enumerate(ents) if any(p in e.text for p in GREP_PAT)]
    g = g[:400]
    for i, e in g:
        tag_entry(seen, e)
    write(out_dir, "grep-errors_slurm-%d.txt" % w.jobid, "$ grep -nE 'rror|xception|Killed|CANCELLED|Xid|WARN|Traceback|Watchdog|Signal|exitcode|out of memory|Fatal' slurm-%d.out | head -n 400\n" % w.jobid +
          "\n".join("%d:%s" % (i, e.text) for i, e in g) + "\n", files)


def gen_run(seed, i, out_root, cause, layout):
    rng = random.Random("blind62:%s:run%d" % (seed, i))
    healthy = cause is None
    w = World(rng, layout, cause or "healthy", healthy)
    inc = Incident()
    inc.cause = cause
    if w.sched in ("slurm", "none"):
        alloc_lines(w, inc)
    if healthy:
        c_healthy(w, inc)
        healthy_extras(w, inc)
    else:
        CAUSE_FN[cause](w, inc)
        set_ends_default(w, inc)
    add_neighbour_effects(w, inc)
    attempt_exits(w, inc)
    folder = os.path.join(out_root, "run-%03d-%s" % (i, layout))
    if os.path.isdir(folder):
        shutil.rmtree(folder)
    os.makedirs(folder)
    seen = Seen()
    files = []
    RENDER[layout](w, inc, folder, seen, files)
    if not cause_evident(w, inc, seen):
        fallback(w, inc, folder, seen, files)
        inc.fallback = True
        if not cause_evident(w, inc, seen):
            print("warning: run %d (%s/%s) carries no evidence of its cause" % (i, cause, layout), file=sys.stderr)
    initiator = None if healthy else decide(w, inc, seen.s)
    truth = {"healthy": healthy, "cause": cause, "initiator": initiator, "layout": layout, "notes": inc.notes}
    with open(os.path.join(folder, "truth.json"), "w", encoding="utf-8", newline="\n") as f:
        json.dump(truth, f, indent=2, sort_keys=False)
        f.write("\n")
    size = sum(os.path.getsize(os.path.join(folder, x)) for x in files)
    if size > MAX_RUN:
        # shrink: cut the largest file in the middle (a collector's truncation); re-run truth conservatively
        big = max(files, key=lambda x: os.path.getsize(os.path.join(folder, x)))
        p = os.path.join(folder, big)
        data = open(p, encoding="utf-8").read()
        keep = max(10000, len(data) - (size - MAX_RUN) - 20000)
        head = data[: keep // 3].rsplit("\n", 1)[0]
        tail = data[-(keep - keep // 3):].split("\n", 1)[-1]
        with open(p, "w", encoding="utf-8", newline="\n") as f:
            f.write(head + "\n[... %d bytes truncated by upload limit ...]\n" % (len(data) - len(head) - len(tail)) + tail)
    return truth, w, inc


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--seed", default="1")
    a = ap.parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    rng = random.Random("blind62:%s:plan" % a.seed)
    order = list(CAUSES)
    rng.shuffle(order)
    lay = list(LAYOUTS)
    rng.shuffle(lay)
    counts = {c: 0 for c in CAUSES}
    counts["healthy"] = 0
    layouts = {l: 0 for l in LAYOUTS}
    k = 0
    for i in range(a.n):
        if i % 7 == 3:
            cause = None
        else:
            cause = order[k % len(order)]
            k += 1
        layout = lay[(i + i // len(lay)) % len(lay)]
        truth, w, inc = gen_run(a.seed, i, a.out, cause, layout)
        counts[cause or "healthy"] += 1
        layouts[layout] += 1
    print(json.dumps({"causes": counts, "layouts": layouts}, indent=1))


if __name__ == "__main__":
    main()
