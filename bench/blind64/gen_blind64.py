#!/usr/bin/env python3
"""blind64 - power, cooling and correlated facility failures.

Synthetic log bundles for distributed GPU training jobs that were hit (or merely
brushed) by what happens in the data centre: PSU / PDU events, power capping,
thermal slowdown, leaf-switch reboots, subnet-manager failovers, maintenance
drains, BMC SEL entries, and the application failures that happened to coincide
with them.

    python3 gen_blind64.py --out DIR --n 60 --seed S

Standard library only; deterministic per seed.
"""
import argparse
import datetime
import json
import os
import random
import shutil

CAUSES = [
    "gpu_hardware", "ecc_memory", "nvlink", "network", "cuda_oom",
    "illegal_memory_access", "python_exception", "host_oom_kill", "crash_signal",
    "preemption", "hang", "data_loader_stall", "collective_mismatch", "straggler",
    "unknown",
]
LAYOUTS = ["slurm", "torchrun", "k8s", "paste", "opsbundle"]

# --------------------------------------------------------------------------
# version eras (PyTorch / NCCL drift)
# --------------------------------------------------------------------------
ERAS = [
    dict(name="2.1", torch="2.1.2", nccl="2.18.6", cuda="12.1", py="3.10", style="old",
         timeout=1800000, oom=2, wd_line=475, term="std::runtime_error", accel=False),
    dict(name="2.3", torch="2.3.1", nccl="2.20.5", cuda="12.1", py="3.10", style="mid",
         timeout=600000, oom=3, wd_line=1537, term="c10::DistBackendError", accel=False),
    dict(name="2.4", torch="2.4.1", nccl="2.20.5", cuda="12.4", py="3.11", style="glog",
         pg="[PG 0 (default_pg) Rank {r}]", timeout=600000, oom=3, wd_line=607,
         term="c10::DistBackendError", accel=False),
    dict(name="2.6", torch="2.6.0", nccl="2.21.5", cuda="12.4", py="3.11", style="glog",
         pg="[PG ID 0 PG GUID 0(default_pg) Rank {r}]", timeout=600000, oom=3, wd_line=632,
         term="c10::DistBackendError", accel=False),
    dict(name="2.8", torch="2.8.0", nccl="2.27.3", cuda="12.8", py="3.12", style="glog",
         pg="[PG ID 0 PG GUID 0(default_pg) Rank {r}]", timeout=600000, oom=3, wd_line=689,
         term="c10::DistBackendError", accel=True),
]

GPU_MODELS = [
    dict(name="NVIDIA H100 80GB HBM3", short="H100", bus=["18", "2a", "3a", "5d", "9a", "ab", "ba", "db"],
         mem=81559, tlimit=87, shut=92, slow=89, power=700),
    dict(name="NVIDIA A100-SXM4-80GB", short="A100", bus=["07", "0f", "47", "4e", "87", "90", "b7", "bd"],
         mem=81920, tlimit=84, shut=92, slow=89, power=400),
    dict(name="NVIDIA H200", short="H200", bus=["19", "3b", "4c", "5d", "9b", "bb", "cb", "db"],
         mem=143771, tlimit=87, shut=92, slow=89, power=700),
]
NIC_BUS = ["0c", "1f", "47", "5c", "8d", "a5", "c0", "d9"]


def nic_name(bus):
    return f"enp{int(bus, 16)}s0np0"

CUDA_OF_DRIVER = {"535": "12.2", "550": "12.4", "560": "12.6", "570": "12.8", "575": "12.9"}
MON = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
DOW = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
EPOCH = datetime.datetime(1970, 1, 1)


def D(t):
    """epoch seconds (float) -> naive datetime"""
    return EPOCH + datetime.timedelta(seconds=t)


def f_glog(t):
    d = D(t)
    ns = d.microsecond * 1000 + (d.microsecond * 7 + 123) % 1000
    return f"{d:%m%d %H:%M:%S}.{ns:09d}"


def f_py(t):
    d = D(t)
    return f"{d:%Y-%m-%d %H:%M:%S},{d.microsecond // 1000:03d}"


def f_iso(t, ms=True):
    d = D(t)
    return f"{d:%Y-%m-%dT%H:%M:%S}.{d.microsecond // 1000:03d}" if ms else f"{d:%Y-%m-%dT%H:%M:%S}"


def f_sys(t):
    d = D(t)
    return f"{MON[d.month - 1]} {d.day:2d} {d:%H:%M:%S}"


def f_dmesgT(t):
    d = D(t)
    return f"[{DOW[d.weekday()]} {MON[d.month - 1]} {d.day:2d} {d:%H:%M:%S} {d.year}]"


def f_sel(t):
    d = D(t)
    return f"{d:%m/%d/%Y} | {d:%H:%M:%S}"


def f_elastic(t):
    return f"{D(t):%Y-%m-%d_%H:%M:%S}"


def f_age(now, t):
    s = max(1, int(now - t))
    if s < 120:
        return f"{s}s"
    if s < 7200:
        return f"{s // 60}m"
    if s < 48 * 3600:
        return f"{s // 3600}h{(s % 3600) // 60}m" if (s % 3600) // 60 else f"{s // 3600}h"
    return f"{s // 86400}d"


def hx(rng, n):
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


def rng_for(*parts):
    return random.Random(":".join(str(p) for p in parts))


def ranges(nums):
    nums = sorted(nums)
    out, i = [], 0
    while i < len(nums):
        j = i
        while j + 1 < len(nums) and nums[j + 1] == nums[j] + 1:
            j += 1
        out.append(str(nums[i]) if i == j else f"{nums[i]}-{nums[j]}")
        i = j + 1
    return ",".join(out)


# --------------------------------------------------------------------------
# host naming schemes (rack, slot) -> name
# --------------------------------------------------------------------------
def scheme_factory(rng, layout):
    site = rng.choice(["iad2", "ord1", "fra3", "sjc4", "ams1", "tyo2", "dfw5"])
    row = rng.choice("abcdefgh")
    cloudish = [
        ("gke", lambda r, s, h: f"gke-pretrain-a3mega-np{r:02d}-{h[:8]}-{h[8:12]}"),
        ("k8r", lambda r, s, h: f"k8s-gpu-r{r:02d}-n{s:02d}"),
        ("aks", lambda r, s, h: f"aks-ndgpu{r}-{h[:8]}-vmss{(r * 8 + s):06x}"),
        ("ec2", lambda r, s, h: f"ip-10-{40 + r}-{16 + s * 4}-{(r * 37 + s * 11) % 250 + 3}.ec2.internal"),
    ]
    onprem = [
        ("dgx", lambda r, s, h: f"dgx-r{r:02d}-{s:02d}"),
        ("hgx", lambda r, s, h: f"hgx-{row}{r:02d}-n{s:02d}"),
        ("cnu", lambda r, s, h: f"cn-r{r}u{10 + 4 * s}"),
        ("sc", lambda r, s, h: f"sc{r:02d}-gn{s:02d}.{site}.hpc.internal"),
        ("a3", lambda r, s, h: f"a3-{row}{r:02d}-{s}"),
        ("nid", lambda r, s, h: f"nid{(r * 16 + s):06d}"),
        ("gpu", lambda r, s, h: f"gpu{r:02d}{s:02d}"),
        ("bm", lambda r, s, h: f"{site}-bm-gpu-{r:03d}{s:02d}"),
    ]
    if layout == "k8s":
        pool = cloudish + onprem[:2]
    else:
        pool = onprem
    return rng.choice(pool), site, row


# --------------------------------------------------------------------------
# Job model
# --------------------------------------------------------------------------
class Job:
    def __init__(self, rng, idx, seed, layout, cause, healthy, need_nodes=1):
        self.rng = rng
        self.idx = idx
        self.seed = seed
        self.layout = layout
        self.cause = cause
        self.healthy = healthy
        self.era = rng.choice(ERAS)
        self.gpu = rng.choice(GPU_MODELS)
        sizes = [(2, 2), (4, 4), (8, 8), (8, 4), (16, 8), (16, 4), (32, 8), (64, 8), (128, 8),
                 (256, 8), (512, 8), (1024, 8), (4, 2), (32, 4)]
        weights = [2, 2, 4, 2, 6, 2, 6, 6, 5, 4, 3, 2, 1, 2]
        while True:
            world, gpn = rng.choices(sizes, weights)[0]
            if world // gpn >= need_nodes:
                break
        self.world, self.gpn = world, gpn
        self.nnodes = world // gpn
        (self.scheme_name, scheme), self.site, self.row = scheme_factory(rng, layout)
        self.per_rack = rng.choice([2, 4, 4, 4, 8]) if self.nnodes > 1 else rng.choice([4, 8])
        first_rack = rng.randint(1, 38)
        first_slot = rng.randint(0, self.per_rack - 1) if rng.random() < 0.4 else 0
        self.hosts, self.rack_of, self.slot_of = [], {}, {}
        self.rack_members = {}
        salt = hx(rng, 16)
        self._scheme = scheme
        self._salt = salt

        def name(r, s):
            h = hx(rng_for("host", seed, idx, r, s, salt), 12)
            return scheme(r, s, h)

        for n in range(self.nnodes):
            pos = first_slot + n
            rack = first_rack + pos // self.per_rack
            slot = pos % self.per_rack + 1
            h = name(rack, slot)
            self.hosts.append(h)
            self.rack_of[h] = rack
            self.slot_of[h] = slot
        self.racks = []
        for h in self.hosts:
            if self.rack_of[h] not in self.racks:
                self.racks.append(self.rack_of[h])
        for rk in self.racks + [self.racks[-1] + 1, self.racks[0] - 1 if self.racks[0] > 1 else self.racks[-1] + 2]:
            self.rack_members[rk] = [name(rk, s) for s in range(1, self.per_rack + 1)]
            for s, h in enumerate(self.rack_members[rk], 1):
                self.rack_of.setdefault(h, rk)
                self.slot_of.setdefault(h, s)
        self.spare_rack = self.racks[-1] + 1
        lstyle = rng.choice(["leaf-r{:02d}", "ib-leaf-{:02d}a", "tor-{}", "qm9700-r{:02d}-l1", "sw-leaf{:03d}"])
        self.leaf = {rk: lstyle.format(rk) for rk in self.rack_members}
        pstyle = rng.choice(["pdu-r{:02d}-{}", "rpdu-{:02d}{}", "px3-r{:02d}-{}"])
        self.pdu = {rk: (pstyle.format(rk, "a"), pstyle.format(rk, "b")) for rk in self.rack_members}
        self.net_a = rng.choice([10, 10, 172])
        self.net_b = rng.randint(16, 31) if self.net_a == 172 else rng.randint(1, 220)
        self.ip = {}
        for h, rk in self.rack_of.items():
            self.ip[h] = f"{self.net_a}.{self.net_b}.{rk}.{10 + self.slot_of[h]}"
        self.fabric = rng.choice(["IB", "IB", "RoCE"])
        self.oob_if = rng.choice(["ib0", "bond0", "eth0", "enp170s0np0"]) if self.fabric == "IB" else rng.choice(["ens9np0", "bond0", "eth0"])
        self.nic_if = {h: "ib0" if self.fabric == "IB" else nic_name(NIC_BUS[0]) for h in self.hosts}
        self.hca = rng.choice([["mlx5_0", "mlx5_3", "mlx5_4", "mlx5_5", "mlx5_6", "mlx5_9", "mlx5_10", "mlx5_11"],
                               [f"mlx5_{i}" for i in range(8)]])
        # time
        y = rng.choice([2024, 2025, 2025, 2026])
        start = datetime.datetime(y, rng.randint(1, 12), rng.randint(1, 28), rng.randint(0, 23),
                                  rng.randint(0, 59), rng.randint(0, 59))
        self.t_start = (start - EPOCH).total_seconds()
        self.skew = {}
        for h in self.rack_of:
            s = rng.gauss(0, 1.5)
            if rng.random() < 0.12:
                s += rng.choice([-1, 1]) * rng.uniform(15, 95)
            self.skew[h] = s
        self.boot = {h: self.t_start - rng.uniform(1.5, 70) * 86400 for h in self.rack_of}
        self.bmc_off = {}
        utc_off = rng.choice([0, 0, -5 * 3600, 1 * 3600, -8 * 3600, 9 * 3600])
        for h in self.rack_of:
            self.bmc_off[h] = (-utc_off if rng.random() < 0.5 else 0) + rng.uniform(-40, 40)
        self.pids = {}
        for n, h in enumerate(self.hosts):
            base = rng.randint(4000, 380000)
            for lr in range(self.gpn):
                self.pids[n * self.gpn + lr] = base + lr * 4 + rng.randint(0, 3)
        self.step_time = rng.choice([0.45, 0.8, 1.1, 1.6, 2.4, 3.9, 6.2])
        self.log_every = rng.choice([1, 5, 10, 20, 50, 100])
        self.app = rng.choice(["megatron", "simple", "hf", "fsdp"])
        self.script = rng.choice(["/workspace/train.py", "/opt/llm/pretrain_gpt.py", "/home/mlops/proj/train_fsdp.py",
                                  "/app/src/trainer/main.py", "/mnt/code/llama3-pretrain/train.py"])
        pyv = self.era["py"]
        self.site_pkgs = rng.choice([f"/usr/local/lib/python{pyv}/dist-packages",
                                     f"/opt/conda/lib/python{pyv}/site-packages",
                                     f"/usr/lib/python3/dist-packages" if pyv == "3.10" else f"/opt/venv/lib/python{pyv}/site-packages"])
        self.jobid = rng.randint(120000, 9800000)
        self.run_id = rng.choice(["none", f"{self.jobid}", hx(rng, 8), "llm-pretrain"])
        self.job_name = rng.choice(["llama-pretrain", "gpt-moe-32b", "vit-h14", "dpo-sweep", "mixtral-ft", "bert-xl-mlm",
                                    "diffusion-xl", "t5-11b", "code-lm-7b"])
        self.ns = rng.choice(["ml-train", "research", "llm", "team-foundation"])
        self.user = rng.choice(["akumar", "jli", "mbauer", "svc-train", "rnakamura", "tgarcia", "pdubois"])
        self.partition = rng.choice(["gpu", "h100", "batch", "train", "a100-80g"])
        self.driver = rng.choice(["535.183.01", "550.90.07", "550.127.05", "560.35.03", "570.124.06", "575.57.08"])
        self.dcgm_ver = rng.choice(["3.3.7", "3.3.9", "4.1.1", "4.2.3"])
        self.uuid = {}
        for h in self.hosts:
            for g in range(self.gpn):
                r2 = rng_for("uuid", seed, idx, h, g)
                self.uuid[(h, g)] = f"GPU-{hx(r2, 8)}-{hx(r2, 4)}-{hx(r2, 4)}-{hx(r2, 4)}-{hx(r2, 12)}"
        self.emitted = set()
        self.numel = rng.choice([1048576, 4194304, 16777216, 52428800, 134217728, 262144000])

    # helpers
    def host_of(self, r):
        return self.hosts[r // self.gpn]

    def lr_of(self, r):
        return r % self.gpn

    def node_rank(self, h):
        return self.hosts.index(h)

    def ranks_on(self, h):
        n = self.hosts.index(h)
        return list(range(n * self.gpn, (n + 1) * self.gpn))

    def bus(self, lr):
        if self.gpn <= 8:
            if self.gpn == 8:
                return self.gpu["bus"][lr]
            step = 8 // self.gpn
            return self.gpu["bus"][lr * step]
        return self.gpu["bus"][lr % 8]

    def lt(self, h, t):
        """time as printed by host h"""
        return t + self.skew.get(h, 0.0)

    def bmc_t(self, h, t):
        return t + self.bmc_off.get(h, 0.0)

    def uptime(self, h, t):
        return self.lt(h, t) - self.boot[h]

    def tid(self, r, k=0):
        return self.pids[r] + 37 + (r * 13 + k * 7) % 400

    def nccl_pfx(self, r, k=0):
        return f"{self.host_of(r)}:{self.pids[r]}:{self.tid(r, k)} [{self.lr_of(r)}]"

    def sp(self, mod):
        return f"{self.site_pkgs}/{mod}"


# --------------------------------------------------------------------------
# Incident container
# --------------------------------------------------------------------------
class Inc:
    def __init__(self, cause, healthy):
        self.cause = cause
        self.healthy = healthy
        self.ini_rank = None
        self.ini_host = None
        self.t_fault = None
        self.t_end = None
        self.rank_ev = {}      # rank -> [(t, text, key)]
        self.kern = {}         # host -> [(t, text, key)]
        self.sel = {}          # host -> [(t, sensor, event, dir, key)]
        self.sched = []        # (t, kind, args, key)
        self.fabric = []       # (t, source, text, key)
        self.pdu = []          # (t, pdu, text, key)
        self.smi = {}          # host -> {gpu: dict}
        self.dcgm = {}         # host -> [(gpu, system, msg, key)]
        self.exits = {}        # rank -> (code, t)
        self.coll = None
        self.rank_rules = []
        self.node_rules = []
        self.notes = ""
        self.diag_hosts = []
        self.pyspy = None      # (host, rank, text, key)
        self.fr = None         # (text, key)
        self.slow = None       # (t_from, t_to, factor) for rank0 step time
        self.timing = None     # dict for per-rank timing lines (straggler)
        self.finished = False  # job ran to completion
        self.user_note = None
        self.attempts = 1
        self.restart_note = None
        self.summary_keys = {}  # rank -> key for launcher summary lines
        self.sel_hosts_extra = []
        self.preempt_all = False
        self.k8s_events = []   # (t, type, reason, obj, msg, key)
        self.node_cond = {}    # host -> list of (cond, status, reason, msg)
        self.taints = {}

    def rev(self, r, t, text, key=None):
        self.rank_ev.setdefault(r, []).append((t, text, key))

    def kv(self, h, t, text, key=None):
        self.kern.setdefault(h, []).append((t, text, key))

    def se(self, h, t, sensor, event, direction="Asserted", key=None):
        self.sel.setdefault(h, []).append((t, sensor, event, direction, key))

    def dg(self, h, gpu, system, msg, key=None):
        self.dcgm.setdefault(h, []).append((gpu, system, msg, key))

    def gpu_state(self, h, g):
        return self.smi.setdefault(h, {}).setdefault(g, {})


# --------------------------------------------------------------------------
# PyTorch / NCCL text builders (era aware)
# --------------------------------------------------------------------------
def c10_pfx(job, r, t, lvl="E", line=None):
    """prefix of a c10d C++ log line for rank r at host-local time t"""
    era = job.era
    line = line or era["wd_line"]
    if era["style"] == "old":
        return f"[{lvl} ProcessGroupNCCL.cpp:{line}] "
    if era["style"] == "mid":
        return f"[rank{r}]:[{lvl} ProcessGroupNCCL.cpp:{line}] "
    return f"[rank{r}]:[{lvl}{f_glog(t)} ProcessGroupNCCL.cpp:{line}] "


def pg_tag(job, r):
    era = job.era
    if era["style"] == "old":
        return f"[Rank {r}]"
    if era["style"] == "mid":
        return f"[PG 0 Rank {r}]"
    return era["pg"].format(r=r)


def work_desc(job, seq, op, numel, timeout, ran=None):
    s = f"WorkNCCL(SeqNum={seq}, OpType={op}, NumelIn={numel}, NumelOut={numel}, Timeout(ms)={timeout})"
    if ran is not None:
        s += f" ran for {ran} milliseconds before timing out."
    return s


def cpp_frames(job, rng, where="checkTimeout", n=4):
    lib = job.sp("torch/lib")
    base = 0x7f0000000000 + rng.randint(0, 0xfffffff) * 0x1000
    src = "/pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp" if job.era["name"] >= "2.6" else \
        "../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp"
    out = [f"Exception raised from {where} at {src}:{rng.randint(560, 720)} (most recent call first):"]
    names = [
        ("c10::Error::Error(c10::SourceLocation, std::string)", "libc10.so"),
        (f"c10d::ProcessGroupNCCL::WorkNCCL::{where}(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >)", "libtorch_cuda.so"),
        ("c10d::ProcessGroupNCCL::watchdogHandler()", "libtorch_cuda.so"),
        ("c10d::ProcessGroupNCCL::ncclCommWatchdog()", "libtorch_cuda.so"),
        ("<unknown function>", "libstdc++.so.6"),
        ("<unknown function>", "libc.so.6"),
    ]
    for i, (nm, so) in enumerate(names[:n + 2]):
        addr = base + rng.randint(0x1000, 0xfffff)
        path = f"{lib}/{so}" if so.startswith("lib") and "std" not in so and "libc.so" not in so else f"/lib/x86_64-linux-gnu/{so}"
        out.append(f"frame #{i}: {nm} + 0x{rng.randint(0x20, 0x9ff):x} (0x{addr:x} in {path})")
    return out


def watchdog_block(job, r, t, seq, op, numel, last_enq=None, last_comp=None, short=False):
    """lines printed by rank r when its watchdog times out at true time t"""
    rng = rng_for("wd", job.seed, job.idx, r, seq)
    h = job.host_of(r)
    lt = job.lt(h, t)
    era = job.era
    to = era["timeout"]
    ran = to + rng.randint(3, 95)
    last_enq = seq if last_enq is None else last_enq
    last_comp = seq - 1 if last_comp is None else last_comp
    P = lambda ln, lvl="E", dt=0.0: c10_pfx(job, r, lt + dt, lvl, ln)
    wd = f"[Rank {r}] Watchdog caught collective operation timeout: {work_desc(job, seq, op, numel, to, ran)}"
    lines = []
    if era["style"] == "old":
        lines.append(P(era["wd_line"]) + wd)
        if not short:
            lines.append(P(489) + f"Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.")
            lines.append(P(495) + f"To avoid data inconsistency, we are taking the entire process down.")
            lines.append(P(916) + f"[Rank {r}] NCCL watchdog thread terminated with exception: {wd}")
            lines.append(f"terminate called after throwing an instance of '{era['term']}'")
            lines.append(f"  what():  [Rank {r}] NCCL watchdog thread terminated with exception: {wd}")
            lines.append("Fatal Python error: Aborted")
    elif era["style"] == "mid":
        lines.append(P(era["wd_line"]) + wd)
        lines.append(P(565) + f"{pg_tag(job, r)} Timeout at NCCL work: {seq}, last enqueued NCCL work: {last_enq}, last completed NCCL work: {last_comp}.")
        if not short:
            lines.append(P(577) + f"[Rank {r}] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.")
            lines.append(P(583) + f"[Rank {r}] To avoid data inconsistency, we are taking the entire process down.")
            lines.append(P(1414) + f"{pg_tag(job, r)} NCCL watchdog thread terminated with exception: {wd}")
            lines += cpp_frames(job, rng, n=3)
            lines.append(f"terminate called after throwing an instance of '{era['term']}'")
            lines.append(f"  what():  {pg_tag(job, r)} NCCL watchdog thread terminated with exception: {wd}")
    else:
        lines.append(P(era["wd_line"]) + wd)
        if era["name"] == "2.4":
            lines.append(P(1664, dt=0.001) + f"{pg_tag(job, r)} Exception (either an error or timeout) detected by watchdog at work: {seq}, last enqueued NCCL work: {last_enq}, last completed NCCL work: {last_comp}.")
        else:
            lines.append(P(2168, dt=0.001) + f"{pg_tag(job, r)}  failure detected by watchdog at work sequence id: {seq} PG status: last enqueued work: {last_enq}, last completed work: {last_comp}")
        if not short:
            if era["name"] == "2.4" and not getattr(job, "fr_enabled", False):
                lines.append(P(1709, dt=0.001) + "Stack trace of the failed collective not found, potentially because FlightRecorder is disabled. You can enable it by setting TORCH_NCCL_TRACE_BUFFER_SIZE to a non-zero value.")
            lines.append(P(630 if era["name"] != "2.4" else 621, dt=0.002) + f"[Rank {r}] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.")
            lines.append(P(636 if era["name"] != "2.4" else 627, dt=0.002) + f"[Rank {r}] To avoid data inconsistency, we are taking the entire process down.")
            lines.append(P(1595 if era["name"] != "2.4" else 1515, dt=0.003) + f"{pg_tag(job, r)} Process group watchdog thread terminated with exception: {wd}")
            lines += cpp_frames(job, rng, n=3)
            lines.append(f"terminate called after throwing an instance of '{era['term']}'")
            lines.append(f"  what():  {pg_tag(job, r)} Process group watchdog thread terminated with exception: {wd}")
    return "\n".join(lines)


def ib_warn(job, r, t, peer_ip, status=12, hca=None):
    """NCCL WARN for an IB completion error, version aware"""
    rng = rng_for("ibw", job.seed, job.idx, r, peer_ip)
    h = job.host_of(r)
    hca = hca or job.hca[job.lr_of(r) % len(job.hca)]
    port = rng.randint(32768, 60999)
    nv = job.era["nccl"]
    ve = 129 if status == 12 else 244
    gid_l = f"::ffff:{job.ip[h]}"
    gid_r = f"::ffff:{peer_ip}"
    if nv < "2.20":
        msg = f"NET/IB : Got completion from peer {peer_ip}<{port}> with error {status}, opcode {rng.choice([0, 1, 128])}, len {rng.randint(0, 524288)}, vendor err {ve}"
        src = "transport/net_ib.cc:1696"
    elif nv < "2.24":
        msg = f"NET/IB : Got completion from peer {peer_ip}<{port}> with status={status} opcode={rng.choice([0, 1, 128])} len={rng.randint(0, 524288)} vendor err {ve} (Recv) localGid {gid_l} remoteGid {gid_r}"
        src = "transport/net_ib.cc:1698"
    elif nv < "2.28":
        msg = f"NET/IB: Got completion from peer {peer_ip}<{port}> with status={status} opcode={rng.choice([0, 1, 128])} len={rng.randint(0, 524288)} vendor err {ve} (Recv) localGid {gid_l} remoteGid {gid_r} hca {hca}"
        src = "transport/net_ib.cc:2283"
    else:
        msg = f"NET/IB: Got completion from peer {peer_ip}<{port}> with status=IBV_WC_RETRY_EXC_ERR({status}) opcode=IBV_WC_SEND(0) vendor_err={ve} localGid {gid_l} remoteGid {gid_r} hca {hca}"
        src = "transport/net_ib/p2p.cc:531"
    ts = f"[{D(job.lt(h, t)):%Y-%m-%d %H:%M:%S}] " if nv >= "2.26" else ""
    return f"{ts}{job.nccl_pfx(r, 3)} {src} NCCL WARN {msg}"


def remote_error_block(job, r, t, peer_ip, status=12):
    """rank r's watchdog dies with ncclRemoteError naming peer_ip"""
    era = job.era
    h = job.host_of(r)
    lt = job.lt(h, t)
    rng = rng_for("rem", job.seed, job.idx, r)
    warn = ib_warn(job, r, t - 0.4, peer_ip, status)
    lastwarn = warn.split("NCCL WARN ", 1)[1]
    nccl = era["nccl"]
    body = (f"NCCL error: remote process exited or there was a network error, NCCL version {nccl}\n"
            f"ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.\n"
            f"Last error:\n{lastwarn}")
    lines = ["", warn]
    if era["style"] == "old":
        lines.append(c10_pfx(job, r, lt) + f"[Rank {r}] NCCL watchdog thread terminated with exception: {body.splitlines()[0]}")
        lines += body.splitlines()[1:]
        lines.append(f"terminate called after throwing an instance of '{era['term']}'")
        lines.append(f"  what():  [Rank {r}] NCCL watchdog thread terminated with exception: {body.splitlines()[0]}")
    else:
        wt = "NCCL watchdog thread" if era["style"] == "mid" else "Process group watchdog thread"
        lines.append(c10_pfx(job, r, lt, "E", 1414 if era["style"] == "mid" else 1595) + f"{pg_tag(job, r)} {wt} terminated with exception: {body.splitlines()[0]}")
        lines += body.splitlines()[1:]
        lines += cpp_frames(job, rng, where="checkForNCCLErrors", n=2)
        lines.append(f"terminate called after throwing an instance of '{era['term']}'")
        lines.append(f"  what():  {pg_tag(job, r)} {wt} terminated with exception: {body.splitlines()[0]}")
    return "\n".join(lines)


def py_tb(job, frames, exc, rng=None):
    """python traceback text; frames: list of (file, line, func, code)"""
    out = ["Traceback (most recent call last):"]
    for f, ln, fn, code in frames:
        out.append(f'  File "{f}", line {ln}, in {fn}')
        if code:
            out.append(f"    {code}")
    out += exc.splitlines()
    return "\n".join(out)


def app_frames(job, rng, tail):
    s = job.script
    fr = [(s, rng.randint(600, 900), "<module>", "main()"),
          (s, rng.randint(400, 599), "main", "trainer.fit(model, loader)" if job.app != "megatron" else "pretrain(train_valid_test_datasets_provider, model_provider)"),
          (s, rng.randint(180, 399), "train_step" if job.app != "hf" else "training_step",
           rng.choice(["loss = model(batch).loss", "out = self.model(**batch)", "loss = self.compute_loss(model, inputs)"]))]
    return fr + tail


def cuda_error_exc(job, msg, name_enum):
    era = job.era
    cls = "torch.AcceleratorError" if era["accel"] else "RuntimeError"
    lines = [f"{cls}: CUDA error: {msg}",
             "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
             "For debugging consider passing CUDA_LAUNCH_BLOCKING=1"]
    if era["name"] >= "2.1":
        lines.append("Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.")
    if era["name"] >= "2.6":
        lines.append(f"Search for `{name_enum}' in https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html for more information.")
    return "\n".join(lines)


def oom_msg(job, gpu_idx, rng):
    tot = job.gpu["mem"] / 1024.0
    req = rng.choice([1.95, 2.0, 3.91, 7.81, 12.5, 16.0, 20.0])
    free = rng.uniform(0.2, 1.6)
    if job.era["oom"] == 2:
        return (f"torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate {req:.2f} GiB. GPU {gpu_idx} has a total capacty of "
                f"{tot:.2f} GiB of which {free * 1024:.2f} MiB is free. Process {rng.randint(1000, 99999)} has {tot - free:.2f} GiB memory in use. "
                f"Of the allocated memory {tot - free - 3.1:.2f} GiB is allocated by PyTorch, and {2.4:.2f} GiB is reserved by PyTorch but unallocated. "
                f"If reserved but unallocated memory is large try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF")
    cls = "torch.OutOfMemoryError" if job.era["name"] >= "2.6" else "torch.cuda.OutOfMemoryError"
    inuse = tot - free
    alloc = inuse - rng.uniform(1.2, 4.0)
    return (f"{cls}: CUDA out of memory. Tried to allocate {req:.2f} GiB. GPU {gpu_idx} has a total capacity of {tot:.2f} GiB of which "
            f"{free * 1024:.2f} MiB is free. Including non-PyTorch memory, this process has {inuse:.2f} GiB memory in use. Of the allocated memory "
            f"{alloc:.2f} GiB is allocated by PyTorch, and {inuse - alloc - 0.6:.2f} GiB is reserved by PyTorch but unallocated. If reserved but "
            f"unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation "
            f"for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)")


def startup_lines(job, inc, r):
    """NCCL init lines of rank r; rank->host and rank->busId mapping"""
    h = job.host_of(r)
    lr = job.lr_of(r)
    t = job.t_start + 18 + (r % 97) * 0.013
    out = []
    P = job.nccl_pfx(r)
    P0 = f"{h}:{job.pids[r]}:{job.pids[r]} [{lr}]"
    key_map = "map" if r == inc.ini_rank else None
    if r == 0:
        out.append((t - 3, f"{P0} NCCL INFO Bootstrap : Using {job.oob_if}:{job.ip[h]}<0>", None))
        out.append((t - 2.9, f"{P0} NCCL INFO NCCL version {job.era['nccl']}+cuda{job.era['cuda']}", None))
    if lr == 0 or r == inc.ini_rank:
        if job.fabric == "IB":
            devs = " ".join(f"[{i}]{d}:1/IB" for i, d in enumerate(job.hca[:min(8, max(1, job.gpn))]))
        else:
            devs = " ".join(f"[{i}]{d}:1/RoCE" for i, d in enumerate(job.hca[:min(8, max(1, job.gpn))]))
        out.append((t - 1.2, f"{P} NCCL INFO NET/IB : Using {devs} ; OOB {job.oob_if}:{job.ip[h]}<0>",
                    "ipmap" if h == inc.ini_host else None))
    cm = 0x55d0a0000000 + r * 0x1a3f40 + int(job._salt[:6], 16)
    cid = int(job._salt[6:14], 16) * 0x100000000 + 0x1f00
    bus = job.bus(lr)
    out.append((t, f"{P} NCCL INFO ncclCommInitRank comm 0x{cm:x} rank {r} nranks {job.world} cudaDev {lr} nvmlDev {lr} "
                   f"busId {bus}000 commId 0x{cid:x} - Init COMPLETE", key_map and "map+bus+pid"))
    return out


def progress_lines(job, inc, t_from, t_to, rank=0, budget=45):
    """rank-0 training progress; returns list of (t, text, key), with an omission marker"""
    rng = rng_for("prog", job.seed, job.idx, rank)
    st = job.step_time
    every = job.log_every
    out = []
    step0 = rng.randint(0, 20) * 1000 if rng.random() < 0.4 else 0
    t = t_from
    step = step0
    times = []
    while t < t_to:
        f = 1.0
        if inc.slow and inc.slow[0] <= t <= inc.slow[1]:
            f = inc.slow[2]
        t += st * every * f * rng.uniform(0.97, 1.03)
        step += every
        if t < t_to:
            times.append((t, step, f))
    if len(times) > budget:
        head = times[:6]
        tail = times[-(budget - 6):]
        omitted = len(times) - len(head) - len(tail)
    else:
        head, tail, omitted = times, [], 0
    loss = rng.uniform(2.1, 3.4)
    total = step0 + 500000

    def fmt(tt, s, f):
        nonlocal loss
        loss = max(1.2, loss - rng.uniform(0, 0.002) + rng.uniform(-0.01, 0.01))
        ms = st * 1000 * f * rng.uniform(0.98, 1.02)
        h = job.host_of(rank)
        if job.app == "megatron":
            return f" [{D(job.lt(h, tt)):%Y-%m-%d %H:%M:%S}] iteration {s:>8d}/{total:>8d} | consumed samples: {s * 1024:>11d} | elapsed time per iteration (ms): {ms:.1f} | learning rate: {3e-4:.6E} | global batch size:  1024 | lm loss: {loss:.6E} | loss scale: 1.0 | grad norm: {rng.uniform(0.2, 1.4):.3f} | number of skipped iterations:   0 | number of nan iterations:   0 |"
        if job.app == "hf":
            return "{'loss': %.4f, 'grad_norm': %.4f, 'learning_rate': %.3e, 'epoch': %.2f}" % (loss, rng.uniform(0.2, 1.4), 3e-4, s / 40000.0)
        if job.app == "fsdp":
            return f"{f_py(job.lt(h, tt))} | INFO | trainer | step={s} loss={loss:.4f} tok/s={int(job.world * 4096 * 2 / (ms / 1000)):,} mfu={0.41 / f:.3f} step_ms={ms:.0f}"
        return f"[rank0] step {s} | loss {loss:.4f} | lr 3.00e-04 | step_time {ms / 1000:.3f}s"

    for tt, s, f in head:
        out.append((tt, fmt(tt, s, f), None))
    if omitted:
        out.append((head[-1][0] + 0.001, f"[... {omitted * every // every:,} progress lines omitted ...]", "MARK"))
    for tt, s, f in tail:
        out.append((tt, fmt(tt, s, f), None))
    inc.last_step = times[-1][1] if times else step0
    return out


def seq_at(job, t):
    """rough collective sequence number at time t"""
    return int((t - job.t_start) / job.step_time * 3) + 17


# --------------------------------------------------------------------------
# facility / kernel text helpers
# --------------------------------------------------------------------------
def pci(job, lr):
    return f"PCI:0000:{job.bus(lr)}:00"


def xid_header(job, h, lr):
    r2 = rng_for("serial", job.seed, job.idx, h, lr)
    return [f"NVRM: GPU at {pci(job, lr)}: {job.uuid.get((h, lr), 'GPU-00000000-0000-0000-0000-000000000000')}",
            f"NVRM: GPU Board Serial Number: {r2.randint(1650000000000, 1659999999999)}"]


def xid_line(job, lr, xid, body, pid=None, name=None):
    p = pci(job, lr)
    if pid is None:
        return f"NVRM: Xid ({p}): {xid}, {body}"
    if pid == "unknown":
        return f"NVRM: Xid ({p}): {xid}, pid='<unknown>', name=<unknown>, {body}"
    return f"NVRM: Xid ({p}): {xid}, pid={pid}, name={name}, {body}"


def psu_sensor(job, h, n):
    style = rng_for("psu", job.seed, job.idx, job.rack_of.get(h, 0)).randint(0, 2)
    return [f"Power Supply PS{n} Status", f"Power Supply PSU{n}_Status", f"Power Supply #0x{0xc7 + n:02x}"][style]


def kern_background(job, h, t0, t1, rng):
    """benign kernel chatter on host h between t0 and t1"""
    pool = [
        "perf: interrupt took too long (2504 > 2500), lowering kernel.perf_event_max_sample_rate to 79750",
        f"mlx5_core 0000:{NIC_BUS[rng.randint(0, 7)]}:00.0: mlx5_fw_tracer_handle_traces:740:(pid {rng.randint(200, 9000)}): FWTracer: Events were lost",
        "kauditd_printk_skb: 14 callbacks suppressed",
        f"nvidia-peermem nv_mem_get_pages_common:{rng.randint(200, 300)} ERROR detected invalid context, skipping further processing",
        "IPv6: ADDRCONF(NETDEV_CHANGE): docker0: link becomes ready",
        f"EXT4-fs (nvme0n1p1): re-mounted {hx(rng, 8)}-{hx(rng, 4)}. Quota mode: none.",
        "NFSD: Using nfsdcld client tracking operations.",
        f"nvidia-nvswitch{rng.randint(0, 3)}: open (major={rng.randint(500, 510)})",
        "audit: type=1400 audit(0.0:0): apparmor=\"DENIED\" operation=\"open\" class=\"file\" profile=\"snap.lxd.activate\" name=\"/proc/sys/kernel/osrelease\"",
        f"Lustre: {rng.choice(['scratch', 'lfs01', 'datafs'])}-OST00{rng.randint(10, 99)}-osc-ffff9a3c{hx(rng, 8)}: Connection restored to 10.{rng.randint(1, 200)}.0.{rng.randint(2, 250)}@o2ib (at 10.{rng.randint(1, 200)}.0.{rng.randint(2, 250)}@o2ib)",
        "nvme nvme2: I/O 512 QID 17 timeout, completion polled",
    ]
    out = []
    n = rng.randint(2, 6)
    for text in rng.sample(pool, n):
        out.append((rng.uniform(t0, t1), text, None))
    return out


def render_kern(job, h, items, style):
    """items: (t, text, key); style: dmesg | dmesgT | journal | iso"""
    out = []
    for t, text, key in sorted(items, key=lambda x: x[0]):
        lt = job.lt(h, t)
        if style == "dmesg":
            pfx = f"[{job.uptime(h, t):12.6f}] "
        elif style == "dmesgT":
            pfx = f"{f_dmesgT(lt)} "
        elif style == "iso":
            pfx = f"{D(lt):%Y-%m-%dT%H:%M:%S}+0000 {h.split('.')[0]} kernel: "
        else:
            pfx = f"{f_sys(lt)} {h.split('.')[0]} kernel: "
        out.append((pfx + text, key))
    return out


def render_sel(job, h, items, rng):
    """ipmitool sel list"""
    recs = []
    boot = job.boot[h]
    recs.append((boot - 30, "System Event #0x83", "Timestamp Clock Sync", "Asserted", None))
    recs.append((boot + 5, "System Boot Initiated #0x" + f"{rng.randint(0x60, 0x9f):02x}", "Initiated by power up", "Asserted", None))
    if rng.random() < 0.5:
        recs.append((boot - rng.uniform(3, 40) * 86400, "Event Logging Disabled #0x07", "Log area reset/cleared", "Asserted", None))
    if rng.random() < 0.3:
        recs.append((boot + rng.uniform(1, 20) * 3600, f"Memory #0x{rng.randint(0x50, 0x6f):02x}", f"Correctable ECC | DIMM_B{rng.randint(1, 8)}", "Asserted", None))
    for it in items:
        recs.append(it)
    recs.sort(key=lambda x: x[0])
    out = []
    rid = rng.randint(1, 40)
    for t, sensor, event, d, key in recs:
        out.append((f"{rid:4x} | {f_sel(job.bmc_t(h, t))} | {sensor} | {event} | {d}", key))
        rid += 1
    return out


def smi_text(job, h, inc, t):
    """nvidia-smi -q (trimmed to the sections an operator looks at)"""
    st = inc.smi.get(h, {})
    new = job.driver >= "535"
    out = [f"==============NVSMI LOG==============", "",
           f"Timestamp                                 : {D(job.lt(h, t)):%a %b %d %H:%M:%S %Y}",
           f"Driver Version                            : {job.driver}",
           f"CUDA Version                              : {CUDA_OF_DRIVER[job.driver[:3]]}", "",
           f"Attached GPUs                             : {job.gpn}"]
    keys = []
    lost = [g for g in range(job.gpn) if st.get(g, {}).get("lost")]
    for g in lost:
        out.insert(0, f"Unable to determine the device handle for GPU0000:{job.bus(g).upper()}:00.0: GPU is lost.  Reboot the system to recover this GPU")
    for g in range(job.gpn):
        s = st.get(g, {})
        if s.get("lost"):
            continue
        if s.get("key"):
            keys.append(s["key"])
        thr = s.get("throttle", [])
        temp = s.get("temp", 41 + (g * 3) % 9)
        out += ["", f"GPU 00000000:{job.bus(g).upper()}:00.0",
                f"    Product Name                          : {job.gpu['name']}",
                f"    GPU UUID                              : {job.uuid.get((h, g), '')}",
                f"    Minor Number                          : {g}",
                f"    Performance State                     : P0",
                f"    {'Clocks Event Reasons' if new else 'Clocks Throttle Reasons'}"]
        for nm, k in [("Idle", "idle"), ("Applications Clocks Setting", "app"), ("SW Power Cap", "swpower"),
                      ("HW Slowdown", "hwslow"), ("    HW Thermal Slowdown", "hwthermal"),
                      ("    HW Power Brake Slowdown", "hwbrake"), ("Sync Boost", "sync"),
                      ("SW Thermal Slowdown", "swthermal"), ("Display Clock Setting", "display")]:
            out.append(f"        {nm:<34}: {'Active' if k in thr else 'Not Active'}")
        if s.get("counters"):
            out.append("    Clocks Event Reasons Counters")
            for nm, v in s["counters"]:
                out.append(f"        {nm:<34}: {v} us")
        out += [f"    Temperature",
                f"        GPU Current Temp                  : {temp} C",
                f"        GPU T.Limit Temp                  : {job.gpu['tlimit'] - temp} C",
                f"        GPU Shutdown Temp                 : {job.gpu['shut']} C",
                f"        GPU Slowdown Temp                 : {job.gpu['slow']} C",
                f"        GPU Max Operating Temp            : {job.gpu['slow'] - 4} C",
                f"        Memory Current Temp               : {s.get('memtemp', temp + 6)} C",
                f"    Clocks",
                f"        SM                                : {s.get('sm', 1980)} MHz",
                f"    Max Clocks",
                f"        SM                                : 1980 MHz",
                f"    ECC Errors",
                f"        Volatile",
                f"            SRAM Correctable              : 0",
                f"            SRAM Uncorrectable            : 0",
                f"            DRAM Correctable              : {s.get('sbe', 0)}",
                f"            DRAM Uncorrectable            : {s.get('dbe', 0)}",
                f"    Remapped Rows",
                f"        Correctable Error                 : 0",
                f"        Uncorrectable Error               : {s.get('remap_unc', 0)}",
                f"        Pending                           : {'Yes' if s.get('pending') else 'No'}",
                f"        Remapping Failure Occurred        : No"]
    return out, keys


def dcgm_text(job, h, inc):
    items = inc.dcgm.get(h, [])
    W = 58
    out = ["+---------------------------+----------------------------------------------------------+",
           "| Health Monitor Report                                                                |",
           "+===========================+==========================================================+"]
    keys = []
    if not items:
        out.append(f"| {'Overall Health':<26}| {'Healthy':<{W - 1}}|")
        out.append("+---------------------------+----------------------------------------------------------+")
        return out, keys
    level = "Failure" if any(x[1].endswith("!") for x in items) else "Warning"
    out.append(f"| {'Overall Health':<26}| {level:<{W - 1}}|")
    out.append(f"| {'GPU':<26}| {'':<{W - 1}}|")
    bygpu = {}
    for g, system, msg, key in items:
        bygpu.setdefault(g, []).append((system, msg, key))
    for g in sorted(bygpu):
        lv = "Failure" if any(s.endswith("!") for s, _, _ in bygpu[g]) else "Warning"
        out.append(f"| {'-> ' + str(g):<26}| {lv:<{W - 1}}|")
        out.append(f"| {'   -> Errors':<26}| {'':<{W - 1}}|")
        for system, msg, key in bygpu[g]:
            sysname = system.rstrip("!")
            out.append(f"| {'      -> ' + sysname + ' system':<26}| {('Failure' if system.endswith('!') else 'Warning'):<{W - 1}}|")
            words, cur = msg.split(), ""
            for w in words:
                if len(cur) + len(w) + 1 > W - 2:
                    out.append(f"| {'':<26}| {cur:<{W - 1}}|")
                    cur = w
                else:
                    cur = (cur + " " + w).strip()
            if cur:
                out.append(f"| {'':<26}| {cur:<{W - 1}}|")
            if key:
                keys.append(key)
    out.append("+---------------------------+----------------------------------------------------------+")
    return out, keys


THERMAL_MSG = ("Detected clocks event due to thermal violation in GPU {g}. Verify that the cooling on this machine is "
               "functional, including external, thermal material interface, fans, and any other components.")
POWER_MSG = "Detected clocks event due to power violation in GPU {g}. Monitor the power conditions. This GPU can still perform workload."
DBE_MSG = "Detected {n} volatile double-bit ECC error(s) in GPU {g}."
PCIE_MSG = "Detected more than 8 PCIe replays per minute for GPU {g} : {n}"
NVL_MSG = "Detected {n} NvLink CRC Data errors for GPU {g}, which exceeds the threshold of 100"


# --------------------------------------------------------------------------
# noise library: facility events that coincide but are not the root
# --------------------------------------------------------------------------
def other_hosts(job, exclude, in_job=True, n=1, rng=None):
    pool = [h for h in (job.hosts if in_job else list(job.rack_of)) if h not in exclude]
    if not pool:
        return []
    rng.shuffle(pool)
    return pool[:n]


def noise_thermal_blip(job, inc, rng, h, t, gpu=None, recovered=True):
    gpu = rng.randrange(job.gpn) if gpu is None else gpu
    cpu = rng.randint(0, 95)
    ev = rng.randint(1, 40)
    inc.kv(h, t, f"CPU{cpu}: Package temperature above threshold, cpu clock throttled (total events = {ev})")
    inc.kv(h, t + rng.uniform(0.01, 0.2), f"CPU{cpu + 1}: Package temperature above threshold, cpu clock throttled (total events = {ev})")
    if recovered:
        inc.kv(h, t + rng.uniform(30, 200), f"CPU{cpu}: Package temperature/speed normal")
        inc.kv(h, t + rng.uniform(30, 200), f"CPU{cpu + 1}: Package temperature/speed normal")
    inc.se(h, t - rng.uniform(0, 20), "Temperature Inlet_Temp", "Upper Non-critical going high")
    if recovered:
        inc.se(h, t + rng.uniform(120, 400), "Temperature Inlet_Temp", "Upper Non-critical going high", "Deasserted")
    inc.dg(h, gpu, "Thermal", THERMAL_MSG.format(g=gpu))
    st = inc.gpu_state(h, gpu)
    st.setdefault("counters", [("SW Power Capping", rng.randint(0, 90000)), ("Sync Boost", 0),
                                ("SW Thermal Slowdown", rng.randint(2000000, 90000000)),
                                ("HW Thermal Slowdown", rng.randint(0, 4000000)), ("HW Power Braking", 0)])
    if not recovered:
        st["throttle"] = ["swthermal"]
        st["temp"] = job.gpu["tlimit"] - rng.randint(1, 3)


def noise_psu_blip(job, inc, rng, h, t, n=None):
    n = n or rng.choice([1, 2])
    inc.se(h, t, psu_sensor(job, h, n), rng.choice(["Power Supply AC lost", "Power Supply input lost or out-of-range"]))
    inc.se(h, t + 0.5, "Power Unit PSU Redundancy", "Redundancy Lost")
    if rng.random() < 0.8:
        inc.se(h, t + rng.uniform(20, 300), psu_sensor(job, h, n), "Power Supply AC lost", "Deasserted")
        inc.se(h, t + rng.uniform(301, 320), "Power Unit PSU Redundancy", "Fully Redundant")


def noise_switch_flap(job, inc, rng, rack, t, reboot=False):
    leaf = job.leaf[rack]
    ports = rng.sample(range(1, 33), 3)
    if reboot:
        inc.fabric.append((t, leaf, "%SYS-5-RELOAD: Reload requested by watchdog. Reload Reason: Watchdog timeout.", None))
        inc.fabric.append((t + 150, leaf, "%SYS-5-RESTART: System restarted --", None))
    for p in ports:
        inc.fabric.append((t + rng.uniform(0, 2), leaf, f"%LINK-3-UPDOWN: Interface Ethernet1/{p}, changed state to down" if job.fabric == "RoCE"
                           else f"port {p} (IB) state changed: Active -> Down (phys: LinkUp -> Polling)", None))
        inc.fabric.append((t + rng.uniform(5, 40), leaf, f"%LINK-3-UPDOWN: Interface Ethernet1/{p}, changed state to up" if job.fabric == "RoCE"
                           else f"port {p} (IB) state changed: Init -> Active (phys: LinkUp)", None))


def noise_sm_failover(job, inc, rng, t):
    sm1, sm2 = rng.choice([("ufm-01", "ufm-02"), ("sm-a", "sm-b"), ("mgmt-ib1", "mgmt-ib2")])
    guid = f"0x{hx(rng, 16)}"
    inc.fabric.append((t, f"opensm@{sm2}", f"SM port {guid} of master SM {sm1} is not responding, trying remote SM", None))
    inc.fabric.append((t + 3.1, f"opensm@{sm2}", "Entering MASTER state", None))
    inc.fabric.append((t + 9.4, f"opensm@{sm2}", "SUBNET UP", None))
    inc.fabric.append((t + rng.uniform(400, 900), f"opensm@{sm1}", "Entering STANDBY state", None))
    inc.sm_failover = (t, sm1, sm2)


def noise_power_cap(job, inc, rng, rack, t, hosts=None):
    hosts = hosts or [h for h in job.rack_members.get(rack, []) if h in job.hosts]
    for h in hosts:
        for g in rng.sample(range(job.gpn), max(1, job.gpn // 2)):
            inc.dg(h, g, "Power", POWER_MSG.format(g=g))
            st = inc.gpu_state(h, g)
            st["throttle"] = sorted(set(st.get("throttle", []) + ["swpower"]))
    a, b = job.pdu[rack]
    inc.pdu.append((t, a, f"Rack power budget policy applied: cap {rng.choice([22, 24, 28])}.0 kW (facility load-shed LS-{rng.randint(100, 999)})", None))
    inc.power_cap = (t, rack)


def noise_firmware(job, inc, rng, h, t):
    inc.se(h, t, f"Version Change #0x{rng.randint(0x30, 0x5f):02x}", "Firmware or software change detected")
    inc.se(h, t + 60, "Management Subsys Health BMC_Health", "Transition to Non-Critical from OK")
    inc.se(h, t + 240, "Management Subsys Health BMC_Health", "Transition to OK")


def add_noise(job, inc, rng, count, avoid=()):
    """sprinkle 'count' coincidental facility events; avoid = hosts to leave alone"""
    kinds = ["thermal", "psu", "flap_unused", "sm", "firmware", "powercap", "psu_outside"]
    rng.shuffle(kinds)
    tf = inc.t_fault or (job.t_start + 3600)
    added = []
    for k in kinds[:count]:
        t = tf - rng.uniform(60, 1800)
        if k == "thermal":
            hs = other_hosts(job, avoid, True, 1, rng) or other_hosts(job, avoid, False, 1, rng)
            if hs:
                noise_thermal_blip(job, inc, rng, hs[0], t)
                inc.diag_hosts.append(hs[0])
                added.append(f"brief thermal slowdown on {hs[0]} (recovered)")
        elif k == "psu":
            hs = other_hosts(job, avoid, True, 1, rng)
            if hs:
                noise_psu_blip(job, inc, rng, hs[0], t)
                inc.diag_hosts.append(hs[0])
                added.append(f"PSU AC-lost SEL entry on {hs[0]}")
        elif k == "psu_outside":
            rk = job.racks[0]
            hs = [h for h in job.rack_members[rk] if h not in job.hosts] or job.rack_members[job.spare_rack][:1]
            noise_psu_blip(job, inc, rng, hs[0], t)
            inc.sel_hosts_extra.append(hs[0])
            added.append(f"SEL entries on {hs[0]} (not in the job)")
        elif k == "flap_unused":
            noise_switch_flap(job, inc, rng, job.spare_rack, t, reboot=rng.random() < 0.4)
            added.append(f"switch flap on {job.leaf[job.spare_rack]} (rack the job did not use)")
        elif k == "sm":
            noise_sm_failover(job, inc, rng, t)
            added.append("subnet-manager failover (no impact)")
        elif k == "firmware":
            hs = other_hosts(job, avoid, False, 1, rng)
            if hs:
                noise_firmware(job, inc, rng, hs[0], t - 86400 * rng.uniform(0.5, 3))
                inc.sel_hosts_extra.append(hs[0])
                added.append(f"firmware change SEL entry on {hs[0]}")
        elif k == "powercap":
            rk = rng.choice(job.racks)
            noise_power_cap(job, inc, rng, rk, t)
            added.append(f"power capping on rack {rk}")
    inc.noise = getattr(inc, "noise", []) + added
    return added


# --------------------------------------------------------------------------
# cause builders
# --------------------------------------------------------------------------
def setup(job, inc, rng, avoid0=True, hours=(0.4, 26)):
    r = rng.randrange(job.world)
    if r == 0 and job.world > 1 and avoid0 and rng.random() < 0.85:
        r = rng.randrange(1, job.world)
    inc.ini_rank, inc.ini_host = r, job.host_of(r)
    inc.t_fault = job.t_start + rng.uniform(hours[0], hours[1]) * 3600
    inc.seq = seq_at(job, inc.t_fault)
    if job.app == "fsdp" and rng.random() < 0.6:
        inc.op = rng.choice(["_ALLGATHER_BASE", "_REDUCE_SCATTER_BASE"])
    else:
        inc.op = rng.choice(["ALLREDUCE", "ALLREDUCE", "ALLREDUCE", "BROADCAST", "_ALLGATHER_BASE"])
    inc.diag_hosts = [inc.ini_host] if rng.random() < 0.85 else []
    return r, inc.ini_host, job.lr_of(r)


def wd_coll(job, inc, rng, exclude=(), t=None, **kw):
    to = job.era["timeout"] / 1000.0
    inc.coll = dict(kind="watchdog", t=(t if t is not None else inc.t_fault) + to + rng.uniform(0.5, 4), seq=inc.seq,
                    op=inc.op, numel=job.numel, exclude=list(exclude), last={}, ops={}, numels={}, keys={})
    inc.coll.update(kw)


def remote_coll(job, inc, rng, dead_hosts, t, exclude=(), silent_dead=False, dead_ips=None):
    inc.coll = dict(kind="remote", t=t, seq=inc.seq, op=inc.op, numel=job.numel, exclude=list(exclude),
                    dead_hosts=list(dead_hosts), silent_dead=silent_dead, keys={})


def model_frames(job, rng, kind):
    torchmod = job.sp("torch/nn/modules/module.py")
    mfile = rng.choice(["/workspace/model/transformer.py", "/opt/llm/megatron/core/transformer/attention.py",
                        "/app/src/trainer/model.py", "/mnt/code/llama3-pretrain/model/layers.py"])
    fr = [(torchmod, rng.choice([1511, 1520, 1553, 1562, 1736, 1747]), "_call_impl", "return forward_call(*args, **kwargs)")]
    if kind == "attn":
        fr.append((mfile, rng.randint(120, 480), "forward", "attn = torch.matmul(q, k.transpose(-2, -1)) * self.scale"))
    elif kind == "mlp":
        fr.append((mfile, rng.randint(120, 480), "forward", "return self.down_proj(self.act_fn(self.gate_proj(x)) * self.up_proj(x))"))
    elif kind == "backward":
        fr = [(job.sp("torch/_tensor.py"), rng.choice([521, 522, 581, 626]), "backward", "torch.autograd.backward("),
              (job.sp("torch/autograd/__init__.py"), rng.choice([266, 289, 347, 353]), "backward", "_engine_run_backward("),
              (job.sp("torch/autograd/graph.py"), rng.choice([744, 768, 823, 829]), "_engine_run_backward",
               "return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass")]
    elif kind == "allreduce":
        fr = [(job.sp("torch/distributed/c10d_logger.py"), rng.choice([72, 79, 81, 83]), "wrapper", "return func(*args, **kwargs)"),
              (job.sp("torch/distributed/distributed_c10d.py"), rng.choice([2288, 2501, 2806, 2950]), "all_reduce", "work = group.allreduce([tensor], opts)")]
    return fr


def own_exc(job, inc, rng, r, t, exc_text, tail, key="own", code=1):
    inc.rev(r, t, py_tb(job, app_frames(job, rng, tail), exc_text), key)
    inc.exits[r] = (code, t + rng.uniform(0.8, 4))


# ---- gpu_hardware --------------------------------------------------------
def b_gpu_hardware(job, inc, rng):
    r, h, lr = setup(job, inc, rng)
    t = inc.t_fault
    rack = job.rack_of[h]
    var = rng.choice(["psu79", "psu79_hang", "gsp119", "thermal79"])
    inc.variant = var
    inc.rank_rules = [["own"], ["kern", "bus"], ["smi", "bus"]]
    inc.node_rules = [["kern"], ["own", "map"], ["smi"]]
    hdr = xid_header(job, h, lr)
    if var.startswith("psu79"):
        a, b = job.pdu[rack]
        inc.pdu.append((t - 1.2, b, f"Inlet I1 RMS voltage {rng.randint(150, 175)} V below lower critical threshold (180 V)", None))
        inc.pdu.append((t + rng.uniform(1, 4), b, "Inlet I1 RMS voltage back within thresholds", None))
        inc.se(h, t - rng.uniform(0.3, 1.5), psu_sensor(job, h, 2), "Power Supply AC lost")
        inc.se(h, t + rng.uniform(30, 90), psu_sensor(job, h, 2), "Power Supply AC lost", "Deasserted")
        for o in job.rack_members[rack]:
            if o != h and rng.random() < 0.75:
                inc.se(o, t - rng.uniform(0.2, 1.6), psu_sensor(job, o, 2), "Power Supply AC lost")
                inc.se(o, t + rng.uniform(30, 90), psu_sensor(job, o, 2), "Power Supply AC lost", "Deasserted")
                if o in job.hosts and rng.random() < 0.5:
                    inc.diag_hosts.append(o)
        root = f"{rng.choice(['00', '15', '36', '97', 'b7', 'd6'])}"
        inc.kv(h, t, f"pcieport 0000:{root}:01.0: AER: Uncorrected (Fatal) error received: 0000:{job.bus(lr)}:00.0", "kern")
        inc.kv(h, t + 0.001, f"pcieport 0000:{root}:01.0: PCIe Bus Error: severity=Uncorrected (Fatal), type=Transaction Layer, (Receiver ID)")
        inc.kv(h, t + 0.35, hdr[0])
        inc.kv(h, t + 0.35, hdr[1])
        inc.kv(h, t + 0.36, xid_line(job, lr, 79, "GPU has fallen off the bus.", pid=None if rng.random() < 0.6 else "unknown"), "kern")
        inc.kv(h, t + 0.36, f"NVRM: GPU 0000:{job.bus(lr)}:00.0: GPU has fallen off the bus.", "kern")
        if job.driver >= "565" or rng.random() < 0.3:
            inc.kv(h, t + 0.4, xid_line(job, lr, 154, "GPU recovery action changed from 0x0 (None) to 0x2 (Node Reboot Required)"))
        inc.kv(h, t + 2.1, "NVRM: nvGpuOpsReportFatalError: uvm encountered global fatal error 0x60, requiring os reboot to recover.")
        inc.gpu_state(h, lr).update(lost=True)
        inc.smi_key = "smi"
        if var == "psu79":
            te = t + rng.uniform(0.5, 6)
            exc = cuda_error_exc(job, "unspecified launch failure", "cudaErrorLaunchFailure")
            own_exc(job, inc, rng, r, te, exc, model_frames(job, rng, rng.choice(["attn", "mlp", "backward"])))
            wd_coll(job, inc, rng, exclude=[r])
            inc.notes = (f"A brief sag on feed B ({b}) of rack {rack} dropped PSU2 on several nodes; on {h} GPU {lr} "
                         f"(PCI 0000:{job.bus(lr)}) fell off the bus (Xid 79) and rank {r} died with a CUDA launch failure; "
                         f"the other nodes only logged the PSU event.")
        else:
            wd_coll(job, inc, rng, exclude=[])
            inc.rank_rules = [["kern", "bus"], ["smi", "bus"]]
            inc.notes = (f"Power sag on rack {rack} feed B; GPU {lr} of {h} fell off the bus (Xid 79). Rank {r} hung in its "
                         f"collective (its watchdog fired like everyone else's), so only the kernel log plus the NCCL busId lines name it.")
    elif var == "gsp119":
        noise_power_cap(job, inc, rng, rack, t - rng.uniform(300, 1500))
        ln = rng.randint(0, 7)
        inc.kv(h, t, hdr[0])
        inc.kv(h, t, hdr[1])
        body = f"Timeout after 6s of waiting for RPC response from GPU{lr} GSP! Expected function 76 (GSP_RM_CONTROL) (0x20800a4c 0x4)."
        inc.kv(h, t + 0.01, xid_line(job, lr, 119, body, pid=job.pids[r], name="python3"), "kern")
        inc.kv(h, t + 0.02, f"NVRM: GPU{lr} GSP RPC buffer contains function 76 (GSP_RM_CONTROL) and data 0x0000000020800a4c 0x0000000000000004.")
        inc.kv(h, t + 0.02, f"NVRM: GPU{lr} RPC history (CPU -> GSP):")
        for k in range(3):
            inc.kv(h, t + 6.5 * (k + 1), xid_line(job, lr, 119, body.replace("GSP_RM_CONTROL) (0x20800a4c", "GSP_RM_CONTROL) (0x2080" + f"{rng.randint(1000, 9999)}"), pid=job.pids[r], name="python3"))
        inc.gpu_state(h, lr).update(lost=True)
        wd_coll(job, inc, rng, exclude=[])
        inc.rank_rules = [["kern", "bus"], ["kern", "pid"], ["smi", "bus"]]
        if job.era["style"] == "glog":
            hb = job.era["timeout"] / 1000.0 - 120 + rng.uniform(0, 30)
            inc.rev(r, t + hb, c10_pfx(job, r, job.lt(h, t + hb), "E", 1433) +
                    f"{pg_tag(job, r)} ProcessGroupNCCL's watchdog got stuck for 480 seconds without making progress in monitoring enqueued collectives. "
                    f"This typically indicates a NCCL/CUDA API (e.g., CudaEventDestroy) hang blocking the watchdog, and could be triggered by another "
                    f"thread holding the GIL inside a CUDA api (for example, CudaEventDestroy), or other deadlock-prone behaviors.If you suspect the "
                    f"watchdog is not actually stuck and a longer timeout would help, you can either increase the timeout "
                    f"(TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC) to a larger value or disable the heartbeat monitor (TORCH_NCCL_ENABLE_MONITORING=0)."
                    f"If either of aforementioned helps, feel free to file an issue to PyTorch about the short timeout or false positive "
                    f"detection of watchdog hang.", "own")
            inc.exits[r] = (-6, t + hb + 2)
            inc.coll["exclude"] = [r]
            inc.rank_rules.append(["own"])
        inc.notes = (f"Rack {rack} was power-capped shortly before; GPU {lr} on {h} then stopped answering GSP RPCs (Xid 119) "
                     f"and rank {r} hung; the other ranks timed out in the watchdog. The power cap warnings on the other nodes are context.")
    else:  # thermal79
        hot = [o for o in job.rack_members[rack] if o in job.hosts]
        for o in hot:
            if o != h and rng.random() < 0.8:
                g = rng.randrange(job.gpn)
                inc.dg(o, g, "Thermal", THERMAL_MSG.format(g=g))
                inc.gpu_state(o, g).update(temp=job.gpu["tlimit"] - rng.randint(0, 2), throttle=["swthermal"])
                inc.se(o, t - rng.uniform(60, 400), "Temperature Inlet_Temp", "Upper Non-critical going high")
                if rng.random() < 0.5:
                    inc.diag_hosts.append(o)
        inc.fabric.append((t - rng.uniform(400, 900), "bms", f"ALARM CRAH-{rack:02d}B supply air temperature high ({rng.randint(29, 34)}.{rng.randint(0, 9)} C), compressor 2 fault", None))
        inc.fabric.append((t + rng.uniform(900, 2400), "bms", f"CLEAR CRAH-{rack:02d}B supply air temperature normal", None))
        inc.se(h, t - rng.uniform(60, 400), "Temperature Inlet_Temp", "Upper Non-critical going high")
        inc.se(h, t - rng.uniform(5, 50), f"Temperature GPU{lr}_Temp", "Upper Critical going high", key="selgpu")
        inc.dg(h, lr, "Thermal", THERMAL_MSG.format(g=lr), "dcgm")
        inc.kv(h, t - rng.uniform(30, 200), f"CPU{rng.randint(0, 60)}: Package temperature above threshold, cpu clock throttled (total events = {rng.randint(20, 900)})")
        inc.kv(h, t, hdr[0])
        inc.kv(h, t, hdr[1])
        inc.kv(h, t + 0.01, xid_line(job, lr, 79, "GPU has fallen off the bus."), "kern")
        inc.kv(h, t + 0.01, f"NVRM: GPU 0000:{job.bus(lr)}:00.0: GPU has fallen off the bus.", "kern")
        inc.gpu_state(h, lr).update(lost=True)
        te = t + rng.uniform(0.5, 6)
        own_exc(job, inc, rng, r, te, cuda_error_exc(job, "unspecified launch failure", "cudaErrorLaunchFailure"),
                model_frames(job, rng, "backward"))
        wd_coll(job, inc, rng, exclude=[r])
        inc.node_rules.append(["selgpu"])
        inc.notes = (f"A CRAH fault warmed rack {rack}; several GPUs only throttled, but GPU {lr} on {h} hit its critical "
                     f"temperature and fell off the bus (Xid 79), killing rank {r}.")
    add_noise(job, inc, rng, rng.randint(0, 1), avoid=[h])


# ---- ecc_memory ----------------------------------------------------------
def b_ecc_memory(job, inc, rng):
    r, h, lr = setup(job, inc, rng)
    t = inc.t_fault
    rack = job.rack_of[h]
    pa = rng.randint(0x10000000, 0x7fffffff)
    hdr = xid_header(job, h, lr)
    inc.kv(h, t, hdr[0])
    inc.kv(h, t, hdr[1])
    dbe_pid = "unknown" if rng.random() < 0.5 else job.pids[r]
    inc.kv(h, t + 0.001, xid_line(job, lr, 48, f"An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at physAddr 0x{pa:x} partition {rng.randint(0, 31)}, subpartition {rng.randint(0, 3)}.",
                                   pid=dbe_pid, name="python3"), "kern")
    inc.kv(h, t + 0.002, xid_line(job, lr, 63, f"Row Remapper: New row (0x{pa:016x}) marked for remapping, reset gpu to activate.", pid="unknown"), "kern")
    inc.kv(h, t + 0.01, xid_line(job, lr, 94, f"Contained: SM (0x1). RST: No, D-RST: No", pid=job.pids[r], name="python3"), "kern")
    if job.driver >= "565":
        inc.kv(h, t + 0.02, xid_line(job, lr, 154, "GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)"))
    st = inc.gpu_state(h, lr)
    st.update(dbe=rng.randint(1, 4), remap_unc=1, pending=True, key="smi", memtemp=rng.randint(88, 97))
    inc.dg(h, lr, "Memory!", DBE_MSG.format(n=st["dbe"], g=lr), "dcgm")
    te = t + rng.uniform(0.05, 3)
    own_exc(job, inc, rng, r, te, cuda_error_exc(job, "uncorrectable ECC error encountered", "cudaErrorECCUncorrectable"),
            model_frames(job, rng, rng.choice(["attn", "backward", "mlp"])))
    wd_coll(job, inc, rng, exclude=[r])
    # coincidental cooling excursion on the rack
    for o in job.rack_members[rack]:
        if o != h and o in job.hosts and rng.random() < 0.6:
            noise_thermal_blip(job, inc, rng, o, t - rng.uniform(200, 1500))
            if rng.random() < 0.5:
                inc.diag_hosts.append(o)
    inc.rank_rules = [["own"], ["kern", "bus"], ["kern", "pid"], ["smi", "bus"], ["dcgm", "map"], ["exit"]]
    inc.node_rules = [["kern"], ["own", "map"], ["smi"], ["dcgm"]]
    inc.notes = (f"Uncorrectable HBM error on GPU {lr} of {h} (Xid 48 -> 63 row remap pending -> 94 contained) killed rank {r}; "
                 f"a cooling excursion on rack {rack} around the same time only caused brief thermal slowdowns elsewhere.")
    add_noise(job, inc, rng, rng.randint(0, 1), avoid=[h])


# ---- nvlink --------------------------------------------------------------
def b_nvlink(job, inc, rng):
    while True:
        r, h, lr = setup(job, inc, rng)
        if job.gpn >= 2:
            break
    t = inc.t_fault
    peer_lr = (lr + rng.randint(1, job.gpn - 1)) % job.gpn
    peer_r = job.ranks_on(h)[peer_lr]
    noise_firmware(job, inc, rng, h, t - rng.uniform(0.6, 3) * 86400)
    inc.maint = f"HGX baseboard / NVSwitch firmware was updated on {h} during the maintenance window {rng.randint(1, 3)} day(s) earlier"
    for hh, g, dt, key in [(h, lr, 0.0, "kern"), (h, peer_lr, rng.uniform(0.4, 2.5), None)]:
        hdr = xid_header(job, hh, g)
        inc.kv(hh, t + dt, hdr[0])
        inc.kv(hh, t + dt, hdr[1])
        link = rng.randint(0, 17)
        inc.kv(hh, t + dt + 0.001, xid_line(job, g, 74, f"NVLink: fatal error detected on link {link}(0x0, 0x0, 0x10000, 0x0, 0x0, 0x0, 0x0)",
                                            pid=job.pids[job.ranks_on(hh)[g]], name="python3"), key)
    inc.dg(h, lr, "NVLink!", NVL_MSG.format(n=rng.randint(300, 9000), g=lr), "dcgm")
    inc.dg(h, peer_lr, "NVLink", NVL_MSG.format(n=rng.randint(101, 250), g=peer_lr))
    exc = cuda_error_exc(job, "uncorrectable NVLink error detected during the execution", "cudaErrorNvlinkUncorrectable")
    own_exc(job, inc, rng, r, t + rng.uniform(0.05, 0.3), exc, model_frames(job, rng, "allreduce"))
    inc.rev(peer_r, t + rng.uniform(2.8, 5), py_tb(job, app_frames(job, rng, model_frames(job, rng, "allreduce")), exc))
    inc.exits[peer_r] = (1, t + 6)
    wd_coll(job, inc, rng, exclude=[r, peer_r])
    inc.rank_rules = [["own"], ["kern", "bus"], ["dcgm", "map"]]
    inc.node_rules = [["kern"], ["own", "map"], ["dcgm"]]
    inc.notes = (f"NVLink fatal error (Xid 74) on GPU {lr} of {h}, followed a second later by a sympathetic Xid 74 on GPU {peer_lr}; "
                 f"rank {r} failed first. A firmware update on that node days earlier is context, not the trigger that can be shown.")
    add_noise(job, inc, rng, rng.randint(0, 1), avoid=[h])


# ---- network -------------------------------------------------------------
def b_network(job, inc, rng):
    multi_rack = len(job.racks) >= 2
    var = rng.choice(["nic", "nic", "leaf"]) if multi_rack else "nic"
    r, h, lr = setup(job, inc, rng)
    t = inc.t_fault
    rack = job.rack_of[h]
    inc.variant = var
    if var == "nic":
        nic = NIC_BUS[lr % 8]
        nif = nic_name(nic)
        n_flaps = rng.randint(1, 4)
        tt = t
        for k in range(n_flaps):
            if job.fabric == "RoCE":
                inc.kv(h, tt, f"mlx5_core 0000:{nic}:00.0 {nif}: Link down", "kern")
                inc.kv(h, tt + rng.uniform(2, 30), f"mlx5_core 0000:{nic}:00.0 {nif}: Link up")
            port = rng.randint(1, 32)
            inc.fabric.append((tt + rng.uniform(-0.5, 0.5), job.leaf[rack],
                               (f"%LINK-3-UPDOWN: Interface Ethernet1/{port}, changed state to down" if job.fabric == "RoCE" else
                                f"port {port} (IB) state changed: Active -> Down (phys: LinkUp -> Polling)") + f"  [peer: {h} {job.hca[lr % len(job.hca)]} port 1]", "fabric"))
            inc.fabric.append((tt + rng.uniform(3, 30), job.leaf[rack],
                               (f"%LINK-3-UPDOWN: Interface Ethernet1/{port}, changed state to up" if job.fabric == "RoCE" else
                                f"port {port} (IB) state changed: Init -> Active (phys: LinkUp)") + f"  [peer: {h} {job.hca[lr % len(job.hca)]} port 1]", None))
            tt += rng.uniform(40, 400)
        inc.ibstat = (h, job.hca[lr % len(job.hca)])
        remote_coll(job, inc, rng, [h], t + rng.uniform(18, 40))
        inc.rank_rules = []
        inc.node_rules = [["kern"], ["peerip", "ipmap"], ["fabric"]]
        inc.notes = (f"The {job.fabric} link of {job.hca[lr % len(job.hca)]} on {h} flapped ({n_flaps}x); peers' NCCL transfers to "
                     f"{job.ip[h]} hit retry-exceeded errors and the job died. Other nodes only show collateral NCCL errors.")
    else:
        lost = [o for o in job.hosts if job.rack_of[o] == rack]
        leaf = job.leaf[rack]
        inc.fabric.append((t - 0.5, leaf, "%SYS-5-RELOAD: Reload requested by watchdog. Reload Reason: Watchdog timeout.", None))
        inc.fabric.append((t + rng.uniform(140, 260), leaf, "%SYS-5-RESTART: System restarted --", None))
        for o in lost:
            if job.fabric == "RoCE":
                for g in range(min(job.gpn, 8)):
                    inc.kv(o, t + rng.uniform(0, 1.5), f"mlx5_core 0000:{NIC_BUS[g]}:00.0 {nic_name(NIC_BUS[g])}: Link down")
                    inc.kv(o, t + rng.uniform(150, 270), f"mlx5_core 0000:{NIC_BUS[g]}:00.0 {nic_name(NIC_BUS[g])}: Link up")
        inc.diag_hosts = lost[:3] + [o for o in job.hosts if o not in lost][:1]
        inc.ini_rank = None
        inc.ini_host = None
        inc.leaf_lost = lost
        remote_coll(job, inc, rng, lost, t + rng.uniform(18, 40))
        inc.rank_rules = []
        inc.node_rules = []
        inc.notes = (f"Leaf switch {leaf} (rack {rack}) rebooted; every job node in that rack ({len(lost)}) lost its fabric links "
                     f"at once. The shared switch is the root; no single node or rank started it.")
    add_noise(job, inc, rng, rng.randint(0, 2), avoid=[h])


# ---- cuda_oom ------------------------------------------------------------
def b_cuda_oom(job, inc, rng):
    r, h, lr = setup(job, inc, rng)
    t = inc.t_fault
    noise_power_cap(job, inc, rng, job.rack_of[h], t - rng.uniform(120, 1200))
    tail = model_frames(job, rng, rng.choice(["attn", "mlp", "backward"]))
    if rng.random() < 0.3 and tail[0][2] == "_call_impl":
        tail = [(job.script, rng.randint(200, 380), "evaluate", "logits = model(batch['input_ids'])")] + tail
    own_exc(job, inc, rng, r, t, oom_msg(job, lr, rng), tail)
    wd_coll(job, inc, rng, exclude=[r])
    inc.rank_rules = [["own"], ["exit"]]
    inc.node_rules = [["own", "map"], ["exit"]]
    inc.notes = (f"Rank {r} on {h} ran out of GPU memory (CUDA OOM). Rack {job.rack_of[h]} was power-capped around the same time, "
                 f"which only produced power-violation warnings.")
    add_noise(job, inc, rng, rng.randint(0, 1), avoid=[])


# ---- illegal_memory_access -----------------------------------------------
def b_illegal_memory_access(job, inc, rng):
    r, h, lr = setup(job, inc, rng)
    t = inc.t_fault
    var = rng.choice(["xid31", "xid13", "assert"])
    hdr = xid_header(job, h, lr)
    name = rng.choice(["python3", "pt_main_thread", "python"])
    if var == "xid31":
        inc.kv(h, t, hdr[0])
        inc.kv(h, t, hdr[1])
        inc.kv(h, t + 0.001, xid_line(job, lr, 31, f"channel 0x{rng.randint(8, 40):08x}, intr 00000000. MMU Fault: ENGINE GRAPHICS GPC{rng.randint(0, 7)} "
                                                   f"GPCCLIENT_T1_{rng.randint(0, 15)} faulted @ 0x{rng.randint(0x7f00, 0x7fff):x}_{hx(rng, 8)}. Fault is of type "
                                                   f"FAULT_PDE ACCESS_TYPE_VIRT_{rng.choice(['READ', 'WRITE'])}", pid=job.pids[r], name=name), "kern")
        exc = cuda_error_exc(job, "an illegal memory access was encountered", "cudaErrorIllegalAddress")
    elif var == "xid13":
        inc.kv(h, t, hdr[0])
        inc.kv(h, t, hdr[1])
        g, tp = rng.randint(0, 7), rng.randint(0, 8)
        inc.kv(h, t + 0.001, xid_line(job, lr, 13, f"Graphics SM Warp Exception on (GPC {g}, TPC {tp}, SM {rng.randint(0, 1)}): Out Of Range Address", pid=job.pids[r], name=name), "kern")
        inc.kv(h, t + 0.001, xid_line(job, lr, 13, f"Graphics Exception: ESR 0x{rng.randint(0x500000, 0x5fffff):x}=0x{rng.randint(0x1000000, 0xfffffff):x} 0x{rng.randint(0, 0xffff):x}=0x0 0x{rng.randint(0, 0xffff):x}=0x4 0x{rng.randint(0, 0xffff):x}=0x0", pid=job.pids[r], name=name))
        inc.kv(h, t + 0.3, xid_line(job, lr, 43, f"Ch {rng.randint(8, 40):08x}", pid=job.pids[r], name=name))
        exc = cuda_error_exc(job, "an illegal memory access was encountered", "cudaErrorIllegalAddress")
    else:
        exc = ("/opt/pytorch/aten/src/ATen/native/cuda/IndexKernel.cu:92: operator(): block: [%d,0,0], thread: [%d,0,0] Assertion "
               "`-sizes[i] <= index && index < sizes[i] && \"index out of bounds\"` failed.\n" % (rng.randint(0, 4000), rng.randint(0, 127))) * 2
        exc += cuda_error_exc(job, "device-side assert triggered", "cudaErrorAssert")
    tail = model_frames(job, rng, rng.choice(["attn", "mlp"]))
    if var == "assert":
        tail.append((rng.choice(["/workspace/model/embedding.py", "/app/src/trainer/model.py"]), rng.randint(40, 200), "forward",
                     "return F.embedding(input_ids, self.weight, self.padding_idx)"))
    own_exc(job, inc, rng, r, t + rng.uniform(0.01, 0.5), exc, tail)
    wd_coll(job, inc, rng, exclude=[r])
    other = other_hosts(job, [h], False, 1, rng)
    if other:
        noise_firmware(job, inc, rng, other[0], t - rng.uniform(600, 7200))
        inc.sel_hosts_extra.append(other[0])
    inc.rank_rules = [["own"], ["kern", "pid"], ["kern", "bus"], ["exit"]]
    inc.node_rules = [["kern"], ["own", "map"], ["exit"]]
    inc.notes = (f"Application GPU fault on rank {r} ({h}, GPU {lr}): {'Xid ' + var[3:] if var != 'assert' else 'device-side assert'}, "
                 f"illegal address. Firmware-change SEL entries on another node are unrelated.")
    add_noise(job, inc, rng, rng.randint(0, 1), avoid=[h])


# ---- python_exception ----------------------------------------------------
def b_python_exception(job, inc, rng):
    r, h, lr = setup(job, inc, rng)
    t = inc.t_fault
    excs = [
        ("KeyError: 'attention_mask'", [(rng.choice(["/workspace/data/collate.py", "/app/src/trainer/data.py"]), rng.randint(30, 140), "__call__", "mask = batch['attention_mask']")]),
        ("ValueError: Expected input batch_size (4096) to match target batch_size (3968).",
         model_frames(job, rng, "mlp") + [(job.sp("torch/nn/functional.py"), rng.choice([3086, 3104, 3479]), "cross_entropy", "return torch._C._nn.cross_entropy_loss(")]),
        ("AssertionError: loss is nan at step %d" % rng.randint(1000, 90000), [(job.script, rng.randint(200, 380), "check_loss", "assert torch.isfinite(loss), f\"loss is nan at step {step}\"")]),
        ("RuntimeError: stack expects each tensor to be equal size, but got [4096] at entry 0 and [3971] at entry 5",
         [(job.sp("torch/utils/data/_utils/collate.py"), rng.choice([141, 155, 162]), "collate", "return torch.stack(batch, 0, out=out)")]),
        ("OSError: [Errno 28] No space left on device", [(job.sp("torch/serialization.py"), rng.choice([652, 850, 865]), "save", "_save(obj, opened_zipfile, pickle_module, pickle_protocol, _disable_byteorder_record)")]),
        ("ZeroDivisionError: division by zero", [(job.script, rng.randint(200, 380), "log_metrics", "tokens_per_sec = n_tokens / (t1 - t0)")]),
    ]
    exc, tail = rng.choice(excs)
    own_exc(job, inc, rng, r, t, exc, tail)
    wd_coll(job, inc, rng, exclude=[r])
    others = other_hosts(job, [h], True, 1, rng)
    if others:
        noise_psu_blip(job, inc, rng, others[0], t - rng.uniform(5, 120))
        inc.diag_hosts.append(others[0])
    inc.rank_rules = [["own"], ["exit"]]
    inc.node_rules = [["own", "map"], ["exit"]]
    inc.notes = (f"Uncaught Python exception on rank {r} ({h}): {exc.split(':')[0]}. A PSU redundancy-lost SEL entry on "
                 f"{others[0] if others else 'another node'} a moment earlier is a coincidence.")
    add_noise(job, inc, rng, rng.randint(0, 1), avoid=[h])


# ---- host_oom_kill -------------------------------------------------------
def b_host_oom_kill(job, inc, rng):
    r, h, lr = setup(job, inc, rng)
    t = inc.t_fault
    pid = job.pids[r]
    comm = rng.choice(["python3", "pt_main_thread", "python"])
    cg = rng.random() < 0.5
    inc.kv(h, t - 0.02, f"{comm} invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0")
    if cg:
        inc.kv(h, t - 0.01, f"memory: usage {rng.randint(900, 2000) * 1048576}kB, limit {rng.randint(900, 2000) * 1048576}kB, failcnt {rng.randint(10, 9000)}")
    msg = "Memory cgroup out of memory" if cg else "Out of memory"
    inc.kv(h, t, f"{msg}: Killed process {pid} ({comm}) total-vm:{rng.randint(90, 400) * 1048576}kB, anon-rss:{rng.randint(60, 300) * 1048576}kB, "
                 f"file-rss:{rng.randint(100000, 900000)}kB, shmem-rss:{rng.randint(1000000, 30000000)}kB, UID:{rng.choice([0, 1000, 1001, 52011])} "
                 f"pgtables:{rng.randint(100000, 900000)}kB oom_score_adj:0", "kern+pidkill")
    inc.kv(h, t + rng.uniform(0.1, 1.2), f"oom_reaper: reaped process {pid} ({comm}), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB")
    inc.exits[r] = (-9, t)
    inc.oom_cgroup = cg
    wd_coll(job, inc, rng, exclude=[r])
    others = other_hosts(job, [h], True, 1, rng)
    if others:
        noise_thermal_blip(job, inc, rng, others[0], t - rng.uniform(30, 900))
        inc.diag_hosts.append(others[0])
    inc.rank_rules = [["exit"], ["kern", "pid"]]
    inc.node_rules = [["kern"], ["exit"], ["sched"]]
    inc.notes = (f"The Linux {'cgroup ' if cg else ''}OOM killer killed rank {r} (pid {pid}) on {h} (host memory, not GPU). "
                 f"A thermal slowdown on {others[0] if others else 'another node'} shortly before is unrelated.")
    add_noise(job, inc, rng, rng.randint(0, 1), avoid=[h])


# ---- crash_signal --------------------------------------------------------
def b_crash_signal(job, inc, rng):
    r, h, lr = setup(job, inc, rng)
    t = inc.t_fault
    pid = job.pids[r]
    sig = rng.choice(["SIGSEGV", "SIGSEGV", "SIGBUS", "SIGABRT"])
    code = {"SIGSEGV": -11, "SIGBUS": -7, "SIGABRT": -6}[sig]
    lib = rng.choice(["libc.so.6", "libtorch_cpu.so", "libnccl-net.so", "_C.cpython-311-x86_64-linux-gnu.so", "libcudnn_engines_precompiled.so.9"])
    if sig == "SIGSEGV":
        txt = "Fatal Python error: Segmentation fault\n\n"
        lbase = 0x7f0000000000 + rng.randint(0x100000, 0xfffffff) * 0x10000
        lsize = rng.randint(0x200000, 0x3000000)
        inc.kv(h, t, f"{rng.choice(['python3', 'pt_main_thread', 'pt_autograd_0'])}[{pid}]: segfault at {rng.choice(['0', '8', '18', '7f3c1e000000'])} ip {lbase + rng.randint(0x1000, lsize - 1):016x} "
                     f"sp 00007ff{hx(rng, 9)} error {rng.choice([4, 6])} in {lib}[{lbase:x}+{lsize:x}] likely on CPU {rng.randint(0, 95)} (core {rng.randint(0, 47)}, socket {rng.randint(0, 1)})", "kern+pidkill")
        inc.kv(h, t + 0.0001, f"Code: {' '.join(hx(rng, 2) for _ in range(20))} <{hx(rng, 2)}> {' '.join(hx(rng, 2) for _ in range(10))}")
    elif sig == "SIGBUS":
        txt = "Fatal Python error: Bus error\n\n"
    else:
        txt = ("terminate called after throwing an instance of 'std::bad_alloc'\n  what():  std::bad_alloc\n"
               "Fatal Python error: Aborted\n\n")
    txt += (f"Thread 0x00007f{hx(rng, 8)} (most recent call first):\n"
            f"  File \"{job.sp('torch/utils/data/_utils/worker.py')}\", line {rng.choice([308, 349])} in _worker_loop\n\n"
            f"Current thread 0x00007f{hx(rng, 8)} (most recent call first):\n"
            f"  File \"{job.sp('torch/autograd/graph.py')}\", line {rng.choice([744, 768, 825])} in _engine_run_backward\n"
            f"  File \"{job.sp('torch/autograd/__init__.py')}\", line {rng.choice([266, 289, 347])} in backward\n"
            f"  File \"{job.sp('torch/_tensor.py')}\", line {rng.choice([521, 581, 626])} in backward\n"
            f"  File \"{job.script}\", line {rng.randint(180, 399)} in train_step\n"
            f"  File \"{job.script}\", line {rng.randint(400, 599)} in main\n"
            f"  File \"{job.script}\", line {rng.randint(600, 900)} in <module>")
    silent = rng.random() < 0.25
    if not silent:
        inc.rev(r, t, txt, "own")
    inc.exits[r] = (code, t + 0.05)
    inc.crash_sig = sig
    wd_coll(job, inc, rng, exclude=[r])
    other = other_hosts(job, [h], False, 1, rng)
    if other:
        noise_firmware(job, inc, rng, other[0], t - rng.uniform(300, 5000))
        inc.sel_hosts_extra.append(other[0])
    inc.rank_rules = [["own"], ["exit"], ["kern", "pid"]]
    inc.node_rules = [["kern"], ["own", "map"], ["exit"]]
    inc.notes = (f"Rank {r} on {h} died of {sig} in host code ({lib}); no Xid or other hardware evidence on that node. "
                 f"BMC firmware-change entries elsewhere are coincidental.")
    add_noise(job, inc, rng, rng.randint(0, 1), avoid=[h])


# ---- preemption ----------------------------------------------------------
def b_preemption(job, inc, rng):
    r, h, lr = setup(job, inc, rng)
    t = inc.t_fault
    rack = job.rack_of[h]
    whole = job.layout == "slurm" or (job.layout == "paste" and job.launcher != "torchrun") or job.nnodes == 1
    inc.variant = "whole" if whole else "node"
    reason = rng.choice([f"CDU pump swap rack {rack} (CHG-{rng.randint(1000, 9999)})",
                         f"PDU firmware update rack {rack}", f"emergency cooling work row {job.row}",
                         f"BMC/BIOS update wave {rng.randint(3, 9)}"])
    inc.maint_reason = reason
    if whole:
        inc.ini_rank = None
        inc.ini_host = None
        inc.preempt_all = True
        inc.kill_all = (t + rng.uniform(0.5, 2), -15)
        for rr in [0] + ([job.world - 1] if job.world > 1 else []):
            inc.rev(rr, t + 0.3, f"[rank{rr}] received SIGTERM, writing emergency checkpoint to /checkpoints/{job.job_name}/step_{seq_at(job, t) // 3}")
        inc.rank_rules, inc.node_rules = [], []
        inc.notes = (f"The whole job was preempted by the scheduler for a facility maintenance reservation ({reason}); "
                     f"all ranks received SIGTERM together. Resubmit.")
    else:
        inc.ini_rank = None
        for rr in job.ranks_on(h):
            inc.exits[rr] = (-15, t + rng.uniform(0.5, 3))
        inc.sigterm_host = h
        inc.node_cond[h] = [("Ready", "True", "KubeletReady", "kubelet is posting ready status"), ]
        inc.taints[h] = "node.kubernetes.io/unschedulable:NoSchedule"
        remote_coll(job, inc, rng, [h], t + rng.uniform(3, 25), exclude=job.ranks_on(h))
        inc.rank_rules = []
        inc.node_rules = [["sched"], ["sigterm"]]
        inc.notes = (f"Node {h} was drained/rebooted for maintenance ({reason}) while the job ran; its ranks got SIGTERM and "
                     f"the rest of the job failed on connection errors to it.")
    add_noise(job, inc, rng, rng.randint(0, 2), avoid=[h])


# ---- hang ----------------------------------------------------------------
def b_hang(job, inc, rng):
    r, h, lr = setup(job, inc, rng)
    t = inc.t_fault
    S = inc.seq
    wd_coll(job, inc, rng, exclude=[r], short=job.world > 64 and rng.random() < 0.5)
    if job.era["style"] == "glog":
        tt = inc.coll["t"] + rng.uniform(1, 3)
        inc.rev(r, tt, c10_pfx(job, r, job.lt(h, tt), "E", 1385) + f"{pg_tag(job, r)} Observed flight recorder dump signal from another rank via TCPStore.")
        inc.rev(r, tt + 0.01, c10_pfx(job, r, job.lt(h, tt), "E", 1429) +
                f"{pg_tag(job, r)} Received a dump signal due to a collective timeout from rank {rng.choice([x for x in range(job.world) if x != r] or [0])} and we will try our best to dump the debug info. "
                f"Last enqueued NCCL work: {S - 1}, last completed NCCL work: {S - 1}.", "wdlow")
        inc.rev(r, tt + 10, c10_pfx(job, r, job.lt(h, tt + 10), "F", 1463) +
                f"{pg_tag(job, r)} Terminating the process after attempting to dump debug info, due to collective timeout or exception.")
        inc.exits[r] = (-6, tt + 11)
    where = rng.choice(["ckpt", "gil", "sync"])
    stk = {
        "ckpt": [("wait (threading.py:359)", None), ("result (concurrent/futures/_base.py:451)", None),
                 (f"save_async ({job.script.rsplit('/', 1)[0]}/checkpoint.py:{rng.randint(80, 200)})", None)],
        "gil": [("acquire (threading.py:{})".format(rng.choice([320, 359])), None), (f"log_metrics ({job.script}:{rng.randint(100, 300)})", None)],
        "sync": [("synchronize (torch/cuda/__init__.py:{})".format(rng.choice([792, 801, 954])), None),
                 (f"train_step ({job.script}:{rng.randint(180, 399)})", None)],
    }[where]
    pybin = f"{job.site_pkgs.rsplit('/lib/', 1)[0]}/bin/python{job.era['py']}"
    lines = [f"Process {job.pids[r]}: {pybin} {job.script} --config configs/{job.job_name}.yaml",
             f"Python v{job.era['py']}.{rng.randint(4, 12)} ({pybin})", "",
             f"Thread {job.pids[r]} (idle): \"MainThread\""]
    for fn, _ in stk:
        lines.append(f"    {fn}")
    lines += [f"    train ({job.script}:{rng.randint(400, 599)})", f"    main ({job.script}:{rng.randint(600, 700)})",
              f"    <module> ({job.script}:{rng.randint(700, 900)})",
              f"Thread {job.pids[r] + 211} (idle): \"Thread-3 (_pin_memory_loop)\"", "    _pin_memory_loop (torch/utils/data/_utils/pin_memory.py:59)"]
    inc.pyspy = (h, r, "\n".join(lines), "pyspy")
    inc.fr = ("fr", S) if job.era["name"] >= "2.4" else None
    if rng.random() < 0.5:
        noise_sm_failover(job, inc, rng, t - rng.uniform(60, 400))
        inc.noise = getattr(inc, "noise", []) + ["subnet-manager failover minutes before (no impact)"]
    else:
        noise_switch_flap(job, inc, rng, job.spare_rack, t - rng.uniform(60, 600))
        inc.noise = getattr(inc, "noise", []) + [f"link flap on {job.leaf[job.spare_rack]} (rack not used)"]
    inc.coll["keys"] = {x: f"wd{x}" for x in range(job.world) if x != r}
    inc.rank_rules = [["fr"], ["pyspy"], ["wdlow"], ["wdall", "map"]]
    inc.node_rules = [["fr", "map"], ["pyspy"], ["wdlow", "map"], ["wdall", "map"]]
    inc.notes = (f"Rank {r} on {h} stopped issuing collectives (stuck in {'an async checkpoint wait' if where == 'ckpt' else 'a lock' if where == 'gil' else 'torch.cuda.synchronize'}) "
                 f"at seq {S}; every other rank timed out waiting for it. The subnet/switch event shortly before had no effect on the job.")
    add_noise(job, inc, rng, rng.randint(0, 1), avoid=[h])


# ---- data_loader_stall ---------------------------------------------------
def b_data_loader_stall(job, inc, rng):
    r, h, lr = setup(job, inc, rng)
    t = inc.t_fault
    srv = rng.choice(["nas-03", "vast-vip-2", "fs01-data", "10.8.0.21"])
    var = rng.choice(["timeout", "silent", "warn"])
    wpid = job.pids[r] + rng.randint(300, 900)
    inc.kv(h, t + 122, f"INFO: task pt_data_worker:{wpid} blocked for more than 122 seconds.", "kern")
    inc.kv(h, t + 122, f"      Tainted: P           OE      {rng.choice(['5.15.0-105-generic #115-Ubuntu', '6.8.0-45-generic #45-Ubuntu', '5.14.0-427.13.1.el9_4.x86_64 #1'])}")
    inc.kv(h, t + 122, "\"echo 0 > /proc/sys/kernel/hung_task_timeout_secs\" disables this message.")
    inc.kv(h, t + 122, f"task:pt_data_worker  state:D stack:0     pid:{wpid}  ppid:{job.pids[r]} flags:0x00004002")
    inc.kv(h, t + 122, "Call Trace:")
    for fr in [" <TASK>", " __schedule+0x2d1/0x870", " schedule+0x69/0x110", " rpc_wait_bit_killable+0x11/0x70 [sunrpc]",
               " __wait_on_bit+0x47/0x150", " out_of_line_wait_on_bit+0x90/0xb0", " nfs_read_folio+0x1f4/0x340 [nfs]",
               " filemap_read+0x1c1/0x360", " vfs_read+0x20c/0x3a0", " ksys_read+0x6b/0xf0", " do_syscall_64+0x59/0x90", " </TASK>"]:
        inc.kv(h, t + 122, fr)
    inc.kv(h, t + rng.uniform(20, 100), f"nfs: server {srv} not responding, still trying", "kern")
    inc.kv(h, t + rng.uniform(1500, 3000), f"nfs: server {srv} OK")
    if var == "timeout":
        te = t + 300
        exc = f"RuntimeError: DataLoader timed out after 300 seconds"
        own_exc(job, inc, rng, r, te, exc, [(job.sp("torch/utils/data/dataloader.py"), rng.choice([630, 701, 1328, 1344]), "__next__", "data = self._next_data()"),
                                            (job.sp("torch/utils/data/dataloader.py"), rng.choice([1133, 1284, 1290]), "_try_get_data",
                                             "raise RuntimeError(f'DataLoader timed out after {self._timeout} seconds') from e")])
        inc.notes = (f"Rank {r} on {h} waited on its data loader (NFS reads from {srv} hung on that node only) until the DataLoader "
                     f"timeout fired; the rest of the job then failed in collectives.")
    else:
        if var == "warn":
            for k in range(3):
                tt = t + 120 * (k + 1)
                inc.rev(r, tt, f"[rank{r}] WARNING data_loader: no batch for {120 * (k + 1)} s (step {seq_at(job, t) // 3}), worker queue empty, "
                               f"{rng.randint(6, 8)} workers alive", "own")
        lines = [f"Process {wpid}: pt_data_worker", f"Python v{job.era['py']}.{rng.randint(4, 12)}", "",
                 f"Thread {wpid} (idle): \"MainThread\"",
                 f"    read (/mnt/{rng.choice(['datasets', 'data', 'corpus'])}/loader/shards.py:{rng.randint(40, 140)})",
                 f"    __getitem__ (/mnt/{rng.choice(['datasets', 'data'])}/loader/dataset.py:{rng.randint(60, 200)})",
                 "    fetch (torch/utils/data/_utils/fetch.py:52)",
                 "    _worker_loop (torch/utils/data/_utils/worker.py:308)"]
        inc.pyspy = (h, r, "\n".join(lines), "pyspy")
        wd_coll(job, inc, rng, exclude=[r])
        inc.coll["last"][r] = (inc.seq - 1, inc.seq - 1)
        inc.notes = (f"Rank {r} on {h} was stuck reading training shards (NFS server {srv} stopped answering that node); "
                     f"its peers hit the collective timeout waiting for it.")
    if inc.coll is None:
        wd_coll(job, inc, rng, exclude=[r])
    others = other_hosts(job, [h], True, 1, rng)
    if others:
        noise_thermal_blip(job, inc, rng, others[0], t - rng.uniform(10, 600))
        inc.diag_hosts.append(others[0])
    inc.rank_rules = [["own"], ["pyspy"]] + ([["exit"]] if var == "timeout" else [])
    inc.node_rules = [["own", "map"], ["pyspy"], ["kern"]] + ([["exit"]] if var == "timeout" else [])
    add_noise(job, inc, rng, rng.randint(0, 1), avoid=[h])


# ---- collective_mismatch -------------------------------------------------
def b_collective_mismatch(job, inc, rng):
    r, h, lr = setup(job, inc, rng)
    t = inc.t_fault
    S = inc.seq
    var = rng.choice(["detail", "wdop", "fr"])
    inc.variant = var
    odd_op = rng.choice(["BROADCAST", "ALLGATHER", "_ALLGATHER_BASE", "BARRIER" if job.era["name"] >= "2.4" else "BROADCAST"])
    if odd_op == inc.op:
        odd_op = "REDUCE_SCATTER" if inc.op != "REDUCE_SCATTER" else "BROADCAST"
    inc.odd_op = odd_op
    if var == "detail":
        fp = lambda rank, op, shape: (f"CollectiveFingerPrint(SequenceNumber={S}, OpType={op}, TensorShape=[{shape}], TensorDtypes=Float, "
                                      f"TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt)))")
        other = 0 if r != 0 else 1
        msg = (f"RuntimeError: Detected mismatch between collectives on ranks. Rank {other} is running collective: {fp(other, inc.op, job.numel)}, "
               f"but Rank {r} is running collective: {fp(r, odd_op, 1)}.")
        tail = [(job.script, rng.randint(200, 380), "maybe_log_grad_norm" if odd_op != "BARRIER" else "save_checkpoint",
                 "dist.broadcast(flag, src=0)" if odd_op == "BROADCAST" else "dist.barrier()" if odd_op == "BARRIER" else "dist.all_gather(out, t)")]
        tail += model_frames(job, rng, "allreduce")
        own_exc(job, inc, rng, other, t + rng.uniform(1, 8), msg, tail, key="mismatch")
        inc.exits[other] = (1, t + 9)
        wd_coll(job, inc, rng, exclude=[other])
    else:
        wd_coll(job, inc, rng, exclude=[])
        inc.coll["ops"][r] = odd_op
        inc.coll["numels"][r] = rng.choice([1, 2, 8, 1024])
        inc.coll["keys"][r] = "wdop"
        inc.coll["peer_key"] = "wdpeer"
        if var == "fr" and job.era["name"] >= "2.4":
            inc.fr = ("frmismatch", S)
    others = [x for x in job.racks if x != job.rack_of[h]]
    noise_switch_flap(job, inc, rng, job.spare_rack, t - rng.uniform(30, 600), reboot=rng.random() < 0.3)
    inc.noise = getattr(inc, "noise", []) + [f"link flaps on {job.leaf[job.spare_rack]} (rack not in the job)"]
    inc.rank_rules = [["mismatch"], ["wdop", "wdpeer"], ["fr"]]
    inc.node_rules = [["mismatch", "map"], ["wdop", "wdpeer", "map"], ["fr", "map"]]
    inc.notes = (f"Rank {r} on {h} issued {odd_op} at sequence {S} while every other rank issued {inc.op} (code path diverged); "
                 f"the job deadlocked until the watchdog fired. The switch flap on rack {job.spare_rack} did not touch the job.")
    add_noise(job, inc, rng, rng.randint(0, 1), avoid=[h])


# ---- straggler -----------------------------------------------------------
def b_straggler(job, inc, rng):
    r, h, lr = setup(job, inc, rng, hours=(1.0, 20))
    t = inc.t_fault
    var = rng.choice(["thermal", "thermal", "brake"])
    inc.variant = var
    rack = job.rack_of[h]
    if var == "thermal":
        fan = rng.randint(1, 8)
        inc.se(h, t - rng.uniform(30, 300), f"Fan FAN{fan}", "Lower Critical going low")
        inc.se(h, t - rng.uniform(10, 30), f"Temperature GPU{lr}_Temp", "Upper Non-critical going high")
        st = inc.gpu_state(h, lr)
        st.update(throttle=["hwslow", "hwthermal"], temp=job.gpu["slow"] + rng.randint(-1, 2), sm=rng.choice([990, 1110, 1245]), key="smi",
                  counters=[("SW Power Capping", rng.randint(0, 90000)), ("Sync Boost", 0), ("SW Thermal Slowdown", rng.randint(10 ** 8, 10 ** 9)),
                            ("HW Thermal Slowdown", rng.randint(10 ** 9, 10 ** 10)), ("HW Power Braking", 0)])
        inc.dg(h, lr, "Thermal", THERMAL_MSG.format(g=lr), "dcgm")
        slow_ranks = [r]
        factor = rng.uniform(1.6, 2.3)
        inc.rank_rules = [["timing"], ["smi", "bus"]]
        inc.node_rules = [["timing", "map"], ["smi"]]
        inc.notes = (f"Fan FAN{fan} on {h} failed; GPU {lr} ran in HW thermal slowdown and rank {r} became a persistent straggler, "
                     f"slowing every step by ~{factor:.1f}x. Brief slowdowns on neighbouring nodes recovered on their own.")
    else:
        inc.se(h, t - 0.5, psu_sensor(job, h, 1), "Power Supply Failure detected")
        inc.se(h, t - 0.4, "Power Unit PSU Redundancy", "Redundancy Lost")
        for g in range(job.gpn):
            inc.gpu_state(h, g).update(throttle=["hwslow", "hwbrake"], sm=rng.choice([810, 945, 1035]), key="smi")
            inc.dg(h, g, "Power", POWER_MSG.format(g=g), "dcgm")
        slow_ranks = job.ranks_on(h)
        factor = rng.uniform(1.5, 2.1)
        inc.ini_rank = None
        inc.rank_rules = []
        inc.node_rules = [["smi"], ["timing", "map"]]
        inc.notes = (f"PSU1 of {h} failed; the node asserted HW power brake and all {job.gpn} of its GPUs ran at reduced clocks, "
                     f"making the whole node a straggler (~{factor:.1f}x step time).")
    inc.slow = (t, t + 10 ** 7, factor)
    inc.timing = dict(ranks=slow_ranks, factor=factor, t=t)
    end = rng.choice(["timelimit", "running", "cancel"]) if job.layout != "k8s" else rng.choice(["running", "cancel"])
    inc.straggler_end = end
    te = t + rng.uniform(1.5, 6) * 3600
    inc.t_capture = te
    if end == "timelimit":
        inc.kill_all = (te, -15)
        inc.timelimit = True
    elif end == "cancel":
        inc.kill_all = (te, -15)
        inc.user_cancel = True
    else:
        inc.still_running = True
    for o in job.rack_members[rack]:
        if o != h and o in job.hosts and rng.random() < 0.6:
            noise_thermal_blip(job, inc, rng, o, t - rng.uniform(100, 2000))
            if rng.random() < 0.5:
                inc.diag_hosts.append(o)
    add_noise(job, inc, rng, rng.randint(0, 1), avoid=[h])


# ---- unknown -------------------------------------------------------------
def b_unknown(job, inc, rng):
    multi = job.nnodes >= 2
    var = rng.choice(["vanish", "vanish", "rackpower"]) if (multi and len(job.racks) >= 2) else "vanish"
    if not multi:
        var = "allsilent"
    r, h, lr = setup(job, inc, rng)
    if multi:
        pool = [x for x in job.hosts if x != job.hosts[0] and (var != "rackpower" or job.rack_of[x] != job.rack_of[job.hosts[0]])]
        if pool:
            h = rng.choice(pool)
            inc.ini_host = h
            if h not in inc.diag_hosts:
                inc.diag_hosts = [h]
        elif var == "rackpower":
            var = "vanish"
    t = inc.t_fault
    inc.variant = var
    inc.ini_rank = None
    if var == "vanish":
        inc.vanished = [h]
        for rr in job.ranks_on(h):
            inc.exits[rr] = None
        remote_coll(job, inc, rng, [h], t + rng.uniform(15, 45), exclude=job.ranks_on(h), silent_dead=True)
        inc.node_fail = (t + rng.uniform(200, 320), [h])
        inc.kill_all = (inc.node_fail[0] + 1, -9)
        inc.kern_cut = {h: t - rng.uniform(0, 30)}
        inc.rank_rules = []
        inc.node_rules = [["sched"], ["peerip", "ipmap"]]
        inc.notes = (f"{h} disappeared mid-run (heartbeats lost, no kernel panic, Xid or SEL cause recorded); the scheduler marked it "
                     f"down and killed the job. What took the node down is not in the evidence.")
    elif var == "rackpower":
        rack = job.rack_of[h]
        lost = [o for o in job.hosts if job.rack_of[o] == rack]
        inc.vanished = lost
        a, b = job.pdu[rack]
        inc.pdu.append((t - 0.2, "rpp-" + job.row + str(rack // 4), f"Branch breaker CB{rng.randint(3, 24)} trip (feeds {a}, {b})", None))
        inc.pdu.append((t - 0.1, a, "Inlet I1 power loss", None))
        inc.pdu.append((t - 0.1, b, "Inlet I1 power loss", None))
        for o in job.rack_members[rack]:
            inc.se(o, t + rng.uniform(600, 900), "System ACPI Power State #0x" + f"{rng.randint(0x80, 0x8f):02x}", "S0/G0: working")
        for o in lost:
            for rr in job.ranks_on(o):
                inc.exits[rr] = None
        ex = [rr for o in lost for rr in job.ranks_on(o)]
        remote_coll(job, inc, rng, lost, t + rng.uniform(15, 45), exclude=ex, silent_dead=True)
        inc.node_fail = (t + rng.uniform(200, 320), lost)
        inc.kill_all = (inc.node_fail[0] + 1, -9)
        inc.kern_cut = {o: t - rng.uniform(0, 5) for o in lost}
        inc.ini_host = None
        inc.diag_hosts = lost[:2] + [o for o in job.hosts if o not in lost][:1]
        inc.rank_rules = []
        inc.node_rules = []
        inc.notes = (f"All {len(lost)} job nodes of rack {rack} lost power together (branch breaker upstream of both PDUs); "
                     f"no rank left initiator-grade evidence and the shared component is outside the taxonomy.")
    else:
        inc.vanished = [h]
        for rr in job.ranks_on(h):
            inc.exits[rr] = None
        inc.node_fail = (t + rng.uniform(200, 320), [h])
        inc.kill_all = (inc.node_fail[0] + 1, -9)
        inc.kern_cut = {h: t}
        inc.rank_rules = []
        inc.node_rules = [["sched"]]
        inc.notes = f"The single node {h} went silent and was marked down; nothing in the logs says why."
    add_noise(job, inc, rng, rng.randint(1, 2), avoid=[])


# ---- healthy -------------------------------------------------------------
def b_healthy(job, inc, rng):
    inc.t_fault = job.t_start + rng.uniform(0.5, 10) * 3600
    inc.seq = seq_at(job, inc.t_fault)
    inc.op = "ALLREDUCE"
    inc.finished = True
    inc.t_done = inc.t_fault + rng.uniform(0.5, 8) * 3600
    inc.diag_hosts = []
    kinds = ["thermal_blip", "sel_elsewhere", "flap_unused", "drain_after", "sm_failover", "powercap"]
    if job.layout in ("torchrun", "k8s") and job.nnodes >= 2:
        kinds += ["restart_ok", "restart_ok"]
    rng.shuffle(kinds)
    chosen = kinds[:rng.randint(1, 3)]
    inc.healthy_kinds = chosen
    notes = []
    for k in chosen:
        t = inc.t_fault + rng.uniform(-1800, 1800)
        if k == "thermal_blip":
            h = rng.choice(job.hosts)
            g = rng.randrange(job.gpn)
            noise_thermal_blip(job, inc, rng, h, t, gpu=g)
            inc.slow = (t, t + rng.uniform(60, 240), rng.uniform(1.2, 1.5))
            inc.diag_hosts.append(h)
            notes.append(f"a brief thermal slowdown on {h} recovered within minutes")
        elif k == "sel_elsewhere":
            rk = job.racks[0]
            hs = [x for x in job.rack_members[rk] if x not in job.hosts] or job.rack_members[job.spare_rack]
            x = rng.choice(hs)
            noise_psu_blip(job, inc, rng, x, t)
            if rng.random() < 0.5:
                inc.se(x, t + 30, f"Temperature GPU{rng.randrange(8)}_Temp", "Upper Critical going high")
            inc.sel_hosts_extra.append(x)
            notes.append(f"SEL entries on {x}, which was not part of the job")
        elif k == "flap_unused":
            noise_switch_flap(job, inc, rng, job.spare_rack, t, reboot=rng.random() < 0.5)
            notes.append(f"a switch flap on {job.leaf[job.spare_rack]} (rack not used)")
        elif k == "drain_after":
            h = rng.choice(job.hosts)
            inc.drain_after = (inc.t_done + rng.uniform(120, 3600), h,
                               rng.choice(["NHC: GPU row remap pending", "fw update CX7 28.43", "ticket INC-%d PSU replacement" % rng.randint(1000, 9999)]))
            inc.fabric.append((inc.drain_after[0], "cmdb", f"node {h} -> state=maintenance reason=\"{inc.drain_after[2]}\" (by oncall)", None))
            notes.append(f"{h} was drained after the job finished")
        elif k == "sm_failover":
            noise_sm_failover(job, inc, rng, t)
            notes.append("a subnet-manager failover with no impact")
        elif k == "powercap":
            rk = rng.choice(job.racks)
            noise_power_cap(job, inc, rng, rk, t)
            notes.append(f"power capping on rack {rk} (warnings only)")
        elif k == "restart_ok":
            h = rng.choice(job.hosts)
            tf = job.t_start + rng.uniform(0.3, 3) * 3600
            inc.restart = dict(t=tf, host=h)
            rk = job.rack_of[h]
            if job.fabric == "RoCE":
                inc.kv(h, tf, f"mlx5_core 0000:{NIC_BUS[0]}:00.0 {nic_name(NIC_BUS[0])}: Link down")
                inc.kv(h, tf + rng.uniform(4, 20), f"mlx5_core 0000:{NIC_BUS[0]}:00.0 {nic_name(NIC_BUS[0])}: Link up")
            noise_switch_flap(job, inc, rng, rk, tf - 0.3)
            inc.diag_hosts.append(h)
            inc.attempts = 2
            notes.append(f"attempt 0 died when {job.leaf[rk]} flapped the links of {h}; the elastic restart (attempt 1) ran to completion")
    inc.notes = "Training completed. Scary noise: " + "; ".join(notes) + "."
    inc.rank_rules, inc.node_rules = [], []


BUILDERS = {c: globals()["b_" + c] for c in CAUSES}


# --------------------------------------------------------------------------
# stream assembly
# --------------------------------------------------------------------------
def coll_for(job, inc, r, text=True):
    c = inc.coll
    if c is None or r in c["exclude"]:
        return [], "none"
    rng = rng_for("coll", job.seed, job.idx, r)
    if c["kind"] == "watchdog":
        t = c["t"] + rng.uniform(0, 6)
        ex = (-6, t + rng.uniform(0.4, 2.5))
        if not text:
            return None, ex
        enq, comp = c["last"].get(r, (c["seq"], c["seq"] - 1))
        txt = watchdog_block(job, r, t, c["seq"], c["ops"].get(r, c["op"]), c["numels"].get(r, c["numel"]), enq, comp,
                             short=c.get("short", False))
        key = c["keys"].get(r) or c.get("peer_key")
        return [(t, txt, key)], ex
    h = job.host_of(r)
    dead = c["dead_hosts"]
    if h in dead:
        if c["silent_dead"]:
            return [], None
        peers = [x for x in job.hosts if x not in dead] or [x for x in job.hosts if x != h] or [h]
        peer = peers[(job.node_rank(h) + 1 + r) % len(peers)]
    else:
        peer = dead[r % len(dead)]
    t = c["t"] + rng.uniform(0, 20)
    ex = (-6, t + rng.uniform(0.3, 2))
    if not text:
        return None, ex
    txt = remote_error_block(job, r, t, job.ip[peer])
    key = "peerip" if (peer == inc.ini_host and h != inc.ini_host) else None
    return [(t, txt, key)], ex


def finalize(job, inc):
    fin = {}
    vanished = set(r for h in getattr(inc, "vanished", []) for r in job.ranks_on(h))
    for r in range(job.world):
        if inc.finished:
            fin[r] = (0, inc.t_done + (r % 17) * 0.05)
            continue
        if r in inc.exits:
            fin[r] = inc.exits[r]
        else:
            _, ex = coll_for(job, inc, r, text=False)
            fin[r] = None if ex == "none" else ex
    ka = getattr(inc, "kill_all", None)
    if ka:
        tk, code = ka
        for r in range(job.world):
            if r in vanished:
                continue
            if fin[r] is None or fin[r][1] > tk:
                fin[r] = (code, tk + (r % 13) * 0.03)
    if not inc.finished:
        if job.launcher == "torchrun":
            for h in job.hosts:
                rs = [r for r in job.ranks_on(h) if fin[r] is not None and fin[r][0] != 0 and r not in vanished]
                if not rs:
                    continue
                first = min(fin[r][1] for r in rs)
                tk = first + 1.0 + (job.node_rank(h) % 5) * 0.4
                for r in job.ranks_on(h):
                    if r in vanished:
                        continue
                    if fin[r] is None or fin[r][1] > tk:
                        fin[r] = (-15, tk + (r % 7) * 0.02)
        elif job.launcher in ("srun_kob", "mpirun") and not getattr(inc, "node_fail", None):
            rs = [r for r in range(job.world) if fin[r] is not None and fin[r][0] != 0]
            if rs:
                first = min(fin[r][1] for r in rs)
                tk = first + 1.3
                for r in range(job.world):
                    if r in vanished:
                        continue
                    if fin[r] is None or fin[r][1] > tk:
                        fin[r] = (-9 if job.launcher == "srun_kob" else -15, tk + (r % 11) * 0.02)
    inc.final = fin
    ts = [v[1] for v in fin.values() if v]
    if getattr(inc, "still_running", False):
        inc.t_end = inc.t_capture
    else:
        inc.t_end = max(ts) if ts else (inc.t_fault + 900)
    fails = [(v[1], r) for r, v in fin.items() if v and v[0] != 0]
    inc.first_fail = min(fails) if fails else None


def timing_lines(job, inc, r):
    tm = inc.timing
    if not tm:
        return []
    rng = rng_for("timing", job.seed, job.idx, r)
    srng = rng_for("timing-sched", job.seed, job.idx)
    out = []
    h = job.host_of(r)
    every = max(job.log_every, 10) * 10
    period = job.step_time * every
    base = job.step_time * 1000 * 0.68
    t_end = inc.t_end
    ts = []
    t = tm["t"] - period * 4
    while t < tm["t"]:
        ts.append(t)
        t += period
    t = tm["t"] + period * 0.5
    while t < t_end and len(ts) < 14:
        ts.append(t)
        t += period * srng.choice([1, 3, 10])
    for t in ts:
        step = int((t - job.t_start) / job.step_time)
        slow = t >= tm["t"]
        f = tm["factor"] if (slow and r in tm["ranks"]) else 1.0
        fwd = base * f * rng.uniform(0.97, 1.03)
        wait = (base * (tm["factor"] - 1) * rng.uniform(0.9, 1.05) if (slow and r not in tm["ranks"]) else rng.uniform(4, 20))
        key = None
        if slow and r in tm["ranks"] and (r == inc.ini_rank or (inc.ini_rank is None and h == inc.ini_host)):
            key = "timing+map"
        out.append((t, f"[rank{r}/{h.split('.')[0]}] step {step} timing: fwd_bwd={fwd:.1f}ms optim={base * 0.06:.1f}ms "
                       f"allreduce_wait={wait:.1f}ms data={rng.uniform(0.5, 3):.1f}ms", key))
    return out


def finish_lines(job, inc, r):
    out = []
    t = inc.t_done
    h = job.host_of(r)
    if r == 0:
        out.append((t - 5, f"[rank0] training finished: {int((t - job.t_start) / job.step_time)} steps, final checkpoint saved to /checkpoints/{job.job_name}/final", None))
    if job.era["style"] == "glog" and (r == 0 or r % 8 == 3):
        tw = t - 0.5 + (r % 13) * 0.0137
        out.append((tw, f"[rank{r}]:[W{f_glog(job.lt(h, tw))} ProcessGroupNCCL.cpp:1250] Warning: WARNING: process group has NOT been destroyed before we destruct ProcessGroupNCCL. "
                             "On normal program exit, the application should call destroy_process_group to ensure that any pending NCCL operations have finished in this process. "
                             "In rare cases this process can exit before this point and block the progress of another member of the process group. This constraint has always been present, "
                             " but this warning has only recently been added. For more info, please see https://pytorch.org/docs/stable/distributed.html#shutdown (function operator())", None))
    return out


def benign_lines(job, inc, r):
    rng = rng_for("benign", job.seed, job.idx, r)
    h = job.host_of(r)
    t = job.t_start + 20 + rng.uniform(0, 5)
    out = []
    if r == 0 or rng.random() < 0.15:
        out.append((t, f"{job.sp('torch/utils/checkpoint.py')}:{rng.choice([87, 295, 464, 1399])}: UserWarning: torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. "
                       "In version 2.5 we will raise an exception if use_reentrant is not passed. use_reentrant=False is recommended, but if you need to preserve the current default behavior, "
                       "you can pass use_reentrant=True. Refer to docs for more details on the differences between the two variants.", None))
        out.append((t + 0.01, "  return fn(*args, **kwargs)", None))
    if job.lr_of(r) == 0 and rng.random() < 0.5:
        out.append((t - 1, f"{job.nccl_pfx(r)} NCCL INFO NET/IB : GPU Direct RDMA Enabled for HCA 0 '{job.hca[0]}'", None))
    if r == 0 and rng.random() < 0.5:
        out.append((t + 30, f"{job.nccl_pfx(r, 5)} NCCL INFO comm 0x{hx(rng, 12)} rank 0 nRanks {job.world} nNodes {job.nnodes} localRanks {job.gpn} localRank 0 MNNVL 0", None))
    return out


def rank_stream(job, inc, r, startup=True, capture_t=None):
    """all lines rank r printed, filtered by its death time"""
    out = []
    if startup:
        out += startup_lines(job, inc, r)
        out += benign_lines(job, inc, r)
    if r == 0:
        out += inc.progress
    out += timing_lines(job, inc, r)
    out += inc.rank_ev.get(r, [])
    lines, _ = coll_for(job, inc, r, text=True)
    if lines:
        out += lines
    if inc.finished:
        out += finish_lines(job, inc, r)
    fin = inc.final.get(r)
    vanish_cut = None
    for h2 in getattr(inc, "vanished", []):
        if job.host_of(r) == h2:
            vanish_cut = inc.t_fault
    lim = fin[1] + 0.01 if fin else (vanish_cut or capture_t or inc.t_end)
    if vanish_cut:
        lim = min(lim, vanish_cut)
    out = [x for x in out if x[0] <= lim]
    out.sort(key=lambda x: x[0])
    return out


SIGNAMES = {-6: "SIGABRT", -9: "SIGKILL", -15: "SIGTERM", -11: "SIGSEGV", -7: "SIGBUS"}


def attributable(prefix, text, r):
    return (f"rank{r}]" in prefix or f"{r}: " == prefix[:len(str(r)) + 2] or f"[rank{r}]" in text or f"Rank {r}]" in text
            or f"[rank{r}/" in text or prefix.startswith("@rank"))


class Sink:
    """ordered output lines with evidence keys; keys count only if the line is written"""

    def __init__(self, job):
        self.job = job
        self.items = []

    def add(self, text, key=None):
        self.items.append((text, key))

    def extend(self, items):
        for it in items:
            self.items.append(it)

    def head_trim(self, keep, marker):
        if len(self.items) > keep:
            n = len(self.items) - keep
            self.items = [(marker.format(n=n), None)] + self.items[-keep:]

    def mid_trim(self, head, tail, marker):
        if len(self.items) > head + tail + 1:
            n = len(self.items) - head - tail
            self.items = self.items[:head] + [(marker.format(n=n), None)] + self.items[-tail:]

    def write(self, path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        wh = getattr(self.job, "watch_host", None)
        if wh and wh in path:
            self.job.watch_seen = True
        with open(path, "w", encoding="utf-8") as f:
            for text, key in self.items:
                f.write(text + "\n")
                if wh and not self.job.watch_seen and wh in text:
                    self.job.watch_seen = True
                if key:
                    for k in key.split("+"):
                        self.job.emitted.add(k)


def prefixed(items, prefix, r=None, keep_own=True):
    """apply a per-line prefix to multi-line items; drop 'own' keys when the rank is not identifiable"""
    out = []
    for t, text, key in items:
        lines = text.split("\n")
        if key and r is not None and not keep_own:
            if not attributable(prefix, text, r):
                key = "+".join(k for k in key.split("+") if k not in ("own",)) or None
        for i, ln in enumerate(lines):
            out.append((t, prefix + ln, key if i == 0 else None))
    return out


# --------------------------------------------------------------------------
# shared renderer pieces
# --------------------------------------------------------------------------
def shown_ranks(job, inc, cap):
    if job.world <= cap:
        return list(range(job.world)), False
    rng = rng_for("shown", job.seed, job.idx)
    must = [0]
    if inc.ini_rank is not None:
        must.append(inc.ini_rank)
    must += list(inc.rank_ev.keys())
    must.append(job.world - 1)
    others = [r for r in range(job.world) if r not in must and job.host_of(r) != inc.ini_host]
    if others:
        must += rng.sample(others, min(2, len(others)))
    if inc.ini_host:
        must += job.ranks_on(inc.ini_host)[:8]
    for h in getattr(inc, "vanished", [])[:2]:
        must += job.ranks_on(h)[:2]
    must.append(job.world - 1)
    pool = [r for r in range(job.world) if r not in must]
    rng.shuffle(pool)
    sel = []
    for r in must + pool:
        if r not in sel:
            sel.append(r)
        if len(sel) >= cap:
            break
    return sorted(sel), True


def hostlist(hosts):
    """compress host names sharing a prefix into slurm hostlist syntax (best effort)"""
    import re
    groups = {}
    order = []
    for h in hosts:
        m = re.match(r"^(.*?)(\d+)(\D*)$", h)
        if not m:
            groups.setdefault((h, "", ""), []).append(None)
            order.append((h, "", ""))
            continue
        k = (m.group(1), m.group(3), len(m.group(2)))
        if k not in groups:
            order.append(k)
        groups.setdefault(k, []).append(int(m.group(2)))
    out = []
    for k in order:
        if k not in groups:
            continue
        nums = groups.pop(k)
        if nums == [None]:
            out.append(k[0])
            continue
        w = k[2]
        parts = []
        for p in ranges(nums).split(","):
            if "-" in p:
                a, b = p.split("-")
                parts.append(f"{int(a):0{w}d}-{int(b):0{w}d}")
            else:
                parts.append(f"{int(p):0{w}d}")
        out.append(f"{k[0]}{parts[0]}{k[1]}" if len(parts) == 1 and "-" not in parts[0] else f"{k[0]}[{','.join(parts)}]{k[1]}")
    return ",".join(out)


def exit_desc_srun(code):
    return {1: "Exited with exit code 1", -6: "Aborted (core dumped)", -9: "Killed", -15: "Terminated",
            -11: "Segmentation fault (core dumped)", -7: "Bus error (core dumped)"}.get(code, f"Exited with exit code {code}")


def elastic_summary(job, inc, h, attempt_fail=None):
    """ChildFailedError block of the torchrun agent on host h"""
    rs = job.ranks_on(h)
    if (getattr(inc, "sigterm_host", None) == h or inc.preempt_all) and attempt_fail is None:
        ap = job.pids[rs[0]] - 40
        return ([("Traceback (most recent call last):", None),
                 (f'  File "{job.site_pkgs.rsplit("/lib/", 1)[0]}/bin/torchrun", line 8, in <module>', None),
                 ("    sys.exit(main())", None),
                 (f'  File "{job.sp("torch/distributed/elastic/agent/server/api.py")}", line {734 if job.era["name"] >= "2.4" else 727}, in run', None),
                 ("    result = self._invoke_run(role)", None),
                 (f'  File "{job.sp("torch/distributed/elastic/multiprocessing/api.py")}", line {84 if job.era["name"] >= "2.4" else 62}, in _terminate_process_handler', None),
                 ("    raise SignalException(f\"Process {os.getpid()} got signal: {sigval}\", sigval=sigval)", None),
                 (f"torch.distributed.elastic.multiprocessing.api.SignalException: Process {ap} got signal: 15", "sigterm" if getattr(inc, "sigterm_host", None) == h else None)], [])
    fails = []
    for r in rs:
        f = inc.final.get(r) if attempt_fail is None else attempt_fail.get(r)
        if f and f[0] != 0:
            fails.append((f[1], r, f[0]))
    if not fails:
        return [], []
    fails.sort()
    root = fails[0]
    lines = ["Traceback (most recent call last):",
             f'  File "{job.site_pkgs.rsplit("/lib/", 1)[0]}/bin/torchrun", line 8, in <module>',
             "    sys.exit(main())",
             f'  File "{job.sp("torch/distributed/elastic/multiprocessing/errors/__init__.py")}", line {355 if job.era["name"] >= "2.4" else 346}, in wrapper',
             "    return f(*args, **kwargs)",
             f'  File "{job.sp("torch/distributed/run.py")}", line {919 if job.era["name"] >= "2.6" else 879}, in main',
             "    run(args)",
             f'  File "{job.sp("torch/distributed/launcher/api.py")}", line {263 if job.era["name"] >= "2.4" else 264}, in launch_agent',
             "    raise ChildFailedError(",
             "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
             "============================================================",
             f"{job.script.rsplit('/', 1)[1]} FAILED",
             "------------------------------------------------------------",
             "Failures:"]
    keys = []

    def block(i, t, r, code):
        nonlocal keys
        sig = SIGNAMES.get(code)
        key = "exit" if r == inc.ini_rank else None
        if r == inc.ini_rank:
            keys.append("exit")
        tb = f"Signal {-code} ({sig}) received by PID {job.pids[r]}" if code < 0 else "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"
        return [(f"[{i}]:", None),
                (f"  time      : {f_elastic(job.lt(h, t))}", None),
                (f"  host      : {h}", None),
                (f"  rank      : {r} (local_rank: {job.lr_of(r)})", key),
                (f"  exitcode  : {code} (pid: {job.pids[r]})", key),
                (f"  error_file: <N/A>", None),
                (f"  traceback : {tb}", None)]

    out = [(l, None) for l in lines]
    others = fails[1:]
    if not others:
        out.append(("  <NO_OTHER_FAILURES>", None))
    else:
        show = others if len(others) <= 8 else others[:8]
        for i, (t, r, c) in enumerate(show, 1):
            out += block(i, t, r, c)
    out.append(("------------------------------------------------------------", None))
    out.append(("Root Cause (first observed failure):", None))
    out += block(0, *root)
    out.append(("============================================================", None))
    return out, keys


def agent_lines(job, inc, h, attempt=0):
    """torchrun agent messages on host h (time, text, key)"""
    rng = rng_for("agent", job.seed, job.idx, h)
    t0 = job.t_start + 2 + rng.uniform(0, 3)
    out = []
    era = job.era
    W = f"W{f_glog(job.lt(h, t0))} {job.pids[job.ranks_on(h)[0]] - 40} torch/distributed/run.py:793] " if era["style"] == "glog" else ""
    out.append((t0, f"{W}", None))
    out.append((t0, f"{W}*****************************************", None))
    out.append((t0, f"{W}Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. ", None))
    out.append((t0, f"{W}*****************************************", None))
    sh = getattr(inc, "sigterm_host", None)
    if sh == h or inc.preempt_all:
        t = inc.t_fault if sh == h else inc.kill_all[0]
        pfx = f"W{f_glog(job.lt(h, t))} {job.pids[job.ranks_on(h)[0]] - 40} torch/distributed/elastic/agent/server/api.py:704] " if era["style"] == "glog" else "WARNING:torch.distributed.elastic.agent.server.api:"
        out.append((t, f"{pfx}Received Signals.SIGTERM death signal, shutting down workers", "sigterm" if sh == h else None))
        for r in job.ranks_on(h):
            p2 = pfx.replace("agent/server/api.py:704", "multiprocessing/api.py:897") if era["style"] == "glog" else "WARNING:torch.distributed.elastic.multiprocessing.api:"
            out.append((t + 0.01, f"{p2}Sending process {job.pids[r]} closing signal SIGTERM", None))
        return out
    fin = [(inc.final[r][1], r) for r in job.ranks_on(h) if inc.final.get(r) and inc.final[r][0] != 0]
    if fin and not inc.finished:
        t, r0 = min(fin)
        pfx = f"W{f_glog(job.lt(h, t + 0.5))} {job.pids[job.ranks_on(h)[0]] - 40} torch/distributed/elastic/multiprocessing/api.py:897] " if era["style"] == "glog" else "WARNING:torch.distributed.elastic.multiprocessing.api:"
        for r in job.ranks_on(h):
            if r != r0 and inc.final[r] and inc.final[r][0] == -15:
                out.append((t + 0.5, f"{pfx}Sending process {job.pids[r]} closing signal SIGTERM", None))
        code = inc.final[r0][0]
        E = f"E{f_glog(job.lt(h, t + 2))} {job.pids[job.ranks_on(h)[0]] - 40} torch/distributed/elastic/multiprocessing/api.py:869] " if era["style"] == "glog" else "ERROR:torch.distributed.elastic.multiprocessing.api:"
        out.append((t + 2, f"{E}failed (exitcode: {code}) local_rank: {job.lr_of(r0)} (pid: {job.pids[r0]}) of binary: {job.site_pkgs.rsplit('/lib/', 1)[0]}/bin/python{era['py']}",
                    "exit" if r0 == inc.ini_rank else None))
    if inc.finished:
        I = f"I{f_glog(job.lt(h, inc.t_done + 2))} {job.pids[job.ranks_on(h)[0]] - 40} torch/distributed/elastic/agent/server/api.py:879] " if era["style"] == "glog" else "INFO:torch.distributed.elastic.agent.server.api:"
        out.append((inc.t_done + 2, f"{I}[default] worker group successfully finished. Waiting 300 seconds for other agents to finish.", None))
    return out


def slurmctld_lines(job, inc, rng):
    out = []
    def L(t, msg, key=None):
        out.append((t, f"[{f_iso(t)}] {msg}", key))
    L(job.t_start - 4, f"sched: Allocate JobId={job.jobid} NodeList={hostlist(job.hosts)} #CPUs={job.nnodes * rng.choice([96, 112, 128, 192])} Partition={job.partition}")
    L(job.t_start - 3, f"prolog_running_decr: Configuration for JobId={job.jobid} is complete")
    nf = getattr(inc, "node_fail", None)
    if nf:
        t, hs = nf
        key = "sched" if inc.ini_host in hs else None
        L(t - rng.uniform(120, 180), f"error: Nodes {hostlist(hs)} not responding", key)
        L(t, f"error: Nodes {hostlist(hs)} not responding, setting DOWN", key)
        for h in hs:
            L(t + 0.01, f"Killing JobId={job.jobid} on failed node {h}", key if h == inc.ini_host else None)
        L(t + 0.3, f"_job_complete: JobId={job.jobid} WTERMSIG 9")
        L(t + 0.3, f"_job_complete: JobId={job.jobid} done")
    elif inc.cause == "host_oom_kill" and not inc.healthy:
        L(inc.t_end + 2, f"_job_complete: JobId={job.jobid} WEXITSTATUS 0")
        L(inc.t_end + 2, f"_job_complete: JobId={job.jobid} OOM failure")
        L(inc.t_end + 2, f"_job_complete: JobId={job.jobid} done")
    elif inc.preempt_all:
        L(inc.t_fault - 1, f"sched: _slurm_rpc_allocate_resources JobId={job.jobid + rng.randint(50, 900)} NodeList=(null) usec=1093")
        L(inc.t_fault - 0.5, f"preempted JobId={job.jobid} has been requeued to reclaim resources for JobId={job.jobid + rng.randint(50, 900)} (reservation maint_{job.rack_of[job.hosts[0]]:02d})")
        L(inc.t_fault + 40, f"_job_complete: JobId={job.jobid} WTERMSIG 15")
    elif getattr(inc, "timelimit", False):
        L(inc.kill_all[0], f"Time limit exhausted for JobId={job.jobid}")
        L(inc.kill_all[0] + 31, f"_job_complete: JobId={job.jobid} WTERMSIG 15")
    elif inc.finished:
        L(inc.t_done + 3, f"_job_complete: JobId={job.jobid} WEXITSTATUS 0")
        L(inc.t_done + 3, f"_job_complete: JobId={job.jobid} done")
    elif not getattr(inc, "still_running", False):
        code = 1 if (inc.first_fail and inc.final[inc.first_fail[1]][0] == 1) else 0
        L(inc.t_end + 2, f"_job_complete: JobId={job.jobid} WEXITSTATUS {code if code else 1}" if code else f"_job_complete: JobId={job.jobid} WTERMSIG 6")
        L(inc.t_end + 2, f"_job_complete: JobId={job.jobid} done")
    # drains by health checks after hardware faults
    if inc.cause in ("gpu_hardware", "ecc_memory", "nvlink") and not inc.healthy and inc.ini_host:
        why = {"gpu_hardware": "NHC: check_nvsmi_healthmon: GPU lost", "ecc_memory": "NHC: GPU row remap pending / DBE",
               "nvlink": "NHC: nvlink fatal error"}[inc.cause]
        L(inc.t_end + rng.uniform(30, 200), f"update_node: node {inc.ini_host} reason set to: {why}", "sched")
        L(inc.t_end + rng.uniform(201, 220), f"update_node: node {inc.ini_host} state set to DRAINED", "sched")
    da = getattr(inc, "drain_after", None)
    if da:
        L(da[0], f"update_node: node {da[1]} reason set to: {da[2]}")
        L(da[0] + 0.01, f"update_node: node {da[1]} state set to DRAINING")
        L(da[0] + 0.02, f"update_node: node {da[1]} state set to DRAINED")
    # neighbour noise
    for _ in range(rng.randint(2, 5)):
        t = rng.uniform(job.t_start, inc.t_end + 600)
        L(t, rng.choice([f"sched: Allocate JobId={job.jobid + rng.randint(1, 5000)} NodeList={job.rack_members[job.spare_rack][0]} #CPUs=16 Partition=cpu",
                         f"_job_complete: JobId={job.jobid - rng.randint(1, 5000)} done",
                         "SchedulerParameters=default_queue_depth=100,max_rpc_cnt=0,max_sched_time=2,partition_job_depth=0,sched_max_job_start=0,sched_min_interval=2",
                         f"error: _find_node_record: lookup failure for node \"{job.rack_members[job.spare_rack][-1]}\""]))
    out.sort(key=lambda x: x[0])
    return [(x[1], x[2]) for x in out]


def sacct_text(job, inc):
    if inc.finished:
        st, ec = "COMPLETED", "0:0"
    elif getattr(inc, "node_fail", None):
        st, ec = "NODE_FAIL", "0:0"
    elif inc.preempt_all:
        st, ec = "PREEMPTED", "0:15"
    elif getattr(inc, "timelimit", False):
        st, ec = "TIMEOUT", "0:0"
    elif getattr(inc, "user_cancel", False):
        st, ec = f"CANCELLED by {rng_for('uid', job.seed, job.idx).randint(1000, 60000)}", "0:15"
    elif getattr(inc, "still_running", False):
        st, ec = "RUNNING", "0:0"
    elif inc.cause == "host_oom_kill":
        st, ec = "OUT_OF_MEMORY", "0:125"
    else:
        st, ec = "FAILED", "1:0" if inc.first_fail and inc.final[inc.first_fail[1]][0] == 1 else "0:6"
    el = int(inc.t_end - job.t_start)
    E = f"{el // 86400}-{(el % 86400) // 3600:02d}:{(el % 3600) // 60:02d}:{el % 60:02d}" if el >= 86400 else f"{el // 3600:02d}:{(el % 3600) // 60:02d}:{el % 60:02d}"
    nl = hostlist(job.hosts)
    nl = nl if len(nl) <= 28 else nl[:26] + "+"
    rows = [("JobID", "JobName", "Partition", "State", "ExitCode", "Elapsed", "NodeList"),
            ("------------", "----------", "----------", "----------", "--------", "----------", "----------------------------")]
    rows.append((str(job.jobid), job.job_name[:10], job.partition, st[:10], ec, E, nl))
    rows.append((f"{job.jobid}.batch", "batch", "", st[:10] if st != "FAILED" else "FAILED", ec, E, job.hosts[0][:28]))
    rows.append((f"{job.jobid}.0", "python3" if job.launcher != "torchrun" else "torchrun", "", st[:10] if st not in ("PREEMPTED", "TIMEOUT") else "CANCELLED", ec, E, nl))
    return [f"{a:<12} {b:<10} {c:<10} {d:<10} {e:>8} {f:>10} {g}" for a, b, c, d, e, f, g in rows]


def diag_files(job, inc, rng, base, hosts, kstyle, smi=True, dcgm=True, sel=True, names=None):
    """per-host operator diagnostics; returns list of (relpath, Sink)"""
    files = []
    names = names or {}
    t_cap = inc.t_end + rng.uniform(300, 3600)
    for h in hosts:
        items = list(inc.kern.get(h, []))
        cut = getattr(inc, "kern_cut", {}).get(h)
        items += kern_background(job, h, max(job.t_start, (inc.t_fault or job.t_start) - 7200), min(inc.t_end, cut or inc.t_end), rng_for("kb", job.seed, job.idx, h))
        if cut:
            items = [x for x in items if x[0] <= cut]
        items = [x for x in items if x[0] <= t_cap]
        s = Sink(job)
        if cut:
            s.add(f"-- Journal begins at {D(job.lt(h, job.boot[h])):%a %Y-%m-%d %H:%M:%S} UTC, ends at {D(job.lt(h, cut)):%a %Y-%m-%d %H:%M:%S} UTC. --" if kstyle in ("journal", "iso") else
                  f"# dmesg from previous boot (journalctl -k -b -1), collected after the node came back")
        s.extend(render_kern(job, h, items, kstyle))
        if cut and kstyle in ("journal", "iso"):
            s.add("-- Boot " + hx(rng, 32) + " --")
            tb = job.lt(h, cut + 700)
            s.add((f"{D(tb):%Y-%m-%dT%H:%M:%S}+0000" if kstyle == "iso" else f_sys(tb)) + f" {h.split('.')[0]} kernel: Linux version {rng.choice(['5.15.0-105-generic', '6.8.0-45-generic', '5.14.0-427.13.1.el9_4.x86_64'])} (buildd@lcy02-amd64-{rng.randint(10, 99)}) #1 SMP")
        fn = names.get("kern", "dmesg.txt")
        files.append((f"{base}/{h}/{fn}", s))
        if sel:
            items = list(inc.sel.get(h, []))
            s = Sink(job)
            s.extend(render_sel(job, h, items, rng_for("sel", job.seed, job.idx, h)))
            files.append((f"{base}/{h}/{names.get('sel', 'ipmitool-sel-list.txt')}", s))
        if smi and not (h in getattr(inc, "vanished", [])):
            lines, keys = smi_text(job, h, inc, t_cap)
            s = Sink(job)
            s.add(f"$ nvidia-smi -q", None)
            for i, l in enumerate(lines):
                s.add(l, None)
            key = None
            st = inc.smi.get(h, {})
            if h == inc.ini_host and any(v.get("lost") or v.get("key") for v in st.values()):
                key = "smi"
            if key:
                s.items[1] = (s.items[1][0], key)
            files.append((f"{base}/{h}/{names.get('smi', 'nvidia-smi-q.txt')}", s))
        if dcgm and not (h in getattr(inc, "vanished", [])):
            lines, keys = dcgm_text(job, h, inc)
            s = Sink(job)
            s.add("$ dcgmi health -c")
            for l in lines:
                s.add(l)
            if keys:
                s.items[-1] = (s.items[-1][0], "+".join(sorted(set(keys))))
            files.append((f"{base}/{h}/{names.get('dcgm', 'dcgmi-health.txt')}", s))
    return files


# --------------------------------------------------------------------------
# console prefixing
# --------------------------------------------------------------------------
def pyish(text):
    t = text.lstrip()
    return not (" NCCL INFO " in t or " NCCL WARN " in t or t.startswith("[rank") or t.startswith("[E ") or t.startswith("[W ")
                or t.startswith("[I ") or t.startswith("[F ") or t.startswith("[" + "2") and " NCCL " in t)


def console(job, inc, r, stream, mode, node_label=None, host_known=True):
    """prefix rank r's stream for a combined console; returns [(t, line, key)]"""
    lr = job.lr_of(r)
    h = job.host_of(r)
    out = []
    for t, text, key in stream:
        lines = text.split("\n")
        tb_item = pyish(lines[0]) and (key is not None and ("own" in key or "mismatch" in key) or lines[0].startswith("Traceback") or lines[0].startswith("Fatal Python"))
        if mode == "label":
            pfx = f"{r}: "
            rank_id = True
        elif mode == "plain":
            pfx = ""
            rank_id = False
        elif mode in ("tee", "tee_label"):
            pfx = (f"{node_label}: " if mode == "tee_label" else "") + f"[default{lr}]:"
            rank_id = host_known or mode == "tee_label" or (tb_item and job.era["style"] != "old")
        elif mode == "pdsh":
            pfx = f"{h.split('.')[0]}: "
            rank_id = False
        else:
            pfx = ""
            rank_id = False
        if key:
            ks = key.split("+")
            if "own" in ks and not rank_id and not attributable("", text, r):
                ks = [k for k in ks if k != "own"]
                if mode == "pdsh":
                    ks.append("ownhost")
            key = "+".join(ks) or None
        for i, ln in enumerate(lines):
            p = pfx if key != "MARK" else ""
            if mode in ("tee", "tee_label") and tb_item and job.era["style"] != "old" and not ln.startswith("[rank"):
                p = pfx + f"[rank{r}]:"
            out.append((t + i * 1e-6, p + ln, key if i == 0 else None))
    return out


def merge_sorted(lists):
    allx = []
    for li in lists:
        allx += li
    allx.sort(key=lambda x: x[0])
    return allx


def agent_streams(job, inc, shown, labf):
    hosts = []
    for r in shown:
        h = job.host_of(r)
        if h not in hosts and h not in getattr(inc, "vanished", []):
            hosts.append(h)
    out = []
    for h in hosts:
        lab = labf(h)
        out.append([(t, lab + text, key) for t, text, key in agent_lines(job, inc, h)])
        if not inc.finished and not getattr(inc, "still_running", False):
            lines, _ = elastic_summary(job, inc, h)
            fs = [inc.final[r][1] for r in job.ranks_on(h) if inc.final.get(r)]
            if lines and fs:
                tf = max(fs) + 2.5
                out.append([(tf + k * 1e-6, lab + text, key) for k, (text, key) in enumerate(lines)])
    return out


# --------------------------------------------------------------------------
# layout: slurm
# --------------------------------------------------------------------------
def srun_tail(job, inc, mode):
    """srun / slurmstepd lines at the end of a Slurm job's output"""
    tail = []
    jid = job.jobid
    b = job.hosts[0]
    ff = inc.first_fail
    ka = getattr(inc, "kill_all", None)
    if ka and not inc.finished:
        tk = ka[0]
        if getattr(inc, "node_fail", None):
            why = " DUE TO NODE FAILURE, SEE SLURMCTLD LOG FOR DETAILS"
        elif inc.preempt_all:
            why = " DUE TO PREEMPTION"
        elif getattr(inc, "timelimit", False):
            why = " DUE TO TIME LIMIT"
        else:
            why = ""
        nf = getattr(inc, "node_fail", None)
        if nf:
            tail.append((nf[0] - 0.2, f"srun: error: Node failure on {hostlist(nf[1])}", "sched" if inc.ini_host in nf[1] else None))
        tail.append((tk + 0.2, f"slurmstepd: error: *** JOB {jid} ON {b} CANCELLED AT {f_iso(job.lt(b, tk), ms=False)}{why} ***", None))
        if mode != "torchrun":
            tail.append((tk + 0.3, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.", None))
            tail.append((tk + 0.3, f"slurmstepd: error: *** STEP {jid}.0 ON {b} CANCELLED AT {f_iso(job.lt(b, tk), ms=False)}{why} ***", None))
    elif ff and not inc.finished:
        t0, r0 = ff
        h0 = job.host_of(r0)
        code = inc.final[r0][0]
        if mode == "torchrun":
            for h in job.hosts:
                fs = [inc.final[r][1] for r in job.ranks_on(h) if inc.final.get(r) and inc.final[r][0] != 0]
                if fs:
                    tail.append((max(fs) + 3, f"srun: error: {h}: task {job.node_rank(h)}: Exited with exit code 1", None))
        else:
            if inc.cause == "host_oom_kill" and r0 == inc.ini_rank:
                tail.append((t0 + 0.5, f"slurmstepd: error: Detected 1 oom_kill event{'' } in StepId={jid}.0. Some of the step tasks have been OOM Killed.", None))
                tail.append((t0 + 0.6, f"srun: error: {h0}: task {r0}: Out Of Memory", "exit+sched"))
            else:
                tail.append((t0 + 0.6, f"srun: error: {h0}: task {r0}: {exit_desc_srun(code)}", "exit" if r0 == inc.ini_rank else None))
            tail.append((t0 + 0.7, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.", None))
            tail.append((t0 + 0.8, f"slurmstepd: error: *** STEP {jid}.0 ON {h0} CANCELLED AT {f_iso(job.lt(h0, t0 + 0.8), ms=False)} ***", None))
            byhost = {}
            for r, f in inc.final.items():
                if f and r != r0:
                    byhost.setdefault((job.host_of(r), f[0]), []).append(r)
            keys = sorted(byhost, key=lambda k: (job.node_rank(k[0]), k[1]))
            for (h, c) in keys[:12]:
                tail.append((t0 + 2, f"srun: error: {h}: task{'s' if len(byhost[(h, c)]) > 1 else ''} {ranges(byhost[(h, c)])}: {exit_desc_srun(c)}", None))
            if len(keys) > 12:
                tail.append((t0 + 2.1, f"[... {len(keys) - 12} more srun error lines ...]", "MARK"))
    return tail


def render_slurm(job, inc, rng, root):
    files = []
    cap = rng.choice([16, 24, 32, 48])
    shown, sampled = shown_ranks(job, inc, cap)
    mode = job.slurm_mode
    streams = []
    for r in shown:
        st = rank_stream(job, inc, r)
        if mode == "torchrun":
            m = "tee_label" if job.srun_label else "tee"
            streams.append(console(job, inc, r, st, m, node_label=job.node_rank(job.host_of(r)), host_known=False))
        else:
            streams.append(console(job, inc, r, st, "label" if job.srun_label else "plain"))
    if mode == "torchrun":
        streams += agent_streams(job, inc, shown, lambda h: f"{job.node_rank(h)}: " if job.srun_label else "")
    items = merge_sorted(streams)
    tail = srun_tail(job, inc, mode)
    b = job.hosts[0]
    jid = job.jobid
    items += tail
    items.sort(key=lambda x: x[0])
    s = Sink(job)
    s.add(f"+ export NCCL_DEBUG=INFO TORCH_NCCL_ASYNC_ERROR_HANDLING=1")
    s.add(f"MASTER_ADDR={job.hosts[0]} MASTER_PORT={rng.choice([29500, 29400, 6000, 12355])} WORLD_SIZE={job.world}")
    s.add(f"SLURM_JOB_NODELIST={hostlist(job.hosts)}")
    s.add(f"Job {jid} started on {b} at {D(job.lt(b, job.t_start)):%a %b %d %H:%M:%S %Y}")
    if sampled:
        s.add(f"[... output of {job.world - len(shown)} of {job.world} ranks removed before attaching (kept ranks {ranges(shown)}) ...]")
    s.extend([(x[1], x[2]) for x in items])
    if inc.finished:
        s.add(f"Job {jid} finished at {D(job.lt(b, inc.t_end + 4)):%a %b %d %H:%M:%S %Y}")
    if len(s.items) > 1400:
        s.mid_trim(300, 900, "[... {n} lines trimmed ...]")
    if rng.random() < 0.18 and len(s.items) > 200:
        s.head_trim(rng.randint(120, 300), "[... first {n} lines not included: pasted from `tail -n` ...]")
    files.append((f"slurm-{jid}.out", s))
    if getattr(inc, "node_fail", None) or getattr(inc, "drain_after", None) or rng.random() < 0.55 or (inc.cause in ("gpu_hardware", "ecc_memory", "nvlink") and rng.random() < 0.5):
        s = Sink(job)
        s.extend(slurmctld_lines(job, inc, rng))
        files.append(("slurmctld.log.excerpt", s))
    if rng.random() < 0.7:
        s = Sink(job)
        for l in sacct_text(job, inc):
            s.add(l)
        files.append(("sacct.txt", s))
    hosts = []
    for h in inc.diag_hosts:
        if h in job.hosts and h not in hosts:
            hosts.append(h)
    kst = rng.choice(["dmesg", "dmesgT", "journal"])
    files += diag_files(job, inc, rng, "nodes", hosts[:4], kst, dcgm=rng.random() < 0.5)
    files += extras(job, inc, rng)
    return files


def split_std(stream):
    out, err = [], []
    for t, text, key in stream:
        if " NCCL INFO " in text or text.startswith("[rank0] step") or text.startswith(" [") or text.startswith("{'loss'") \
                or "| INFO |" in text or "] step " in text and "timing:" in text or text.startswith("[rank0] training finished"):
            out.append((t, text, key))
        else:
            err.append((t, text, key))
    return out, err


def restart_attempt0(job, inc, r):
    """lines of rank r during the failed attempt 0 of a healthy-after-restart run"""
    rs = inc.restart
    h = rs["host"]
    st = startup_lines(job, inc, r)
    if r == 0:
        st += [x for x in inc.progress0 if x[0] < rs["t"]]
    tt = {x: rs["t"] + rng_for("ra0", job.seed, job.idx, x).uniform(18, 40) for x in job.ranks_on(job.host_of(r))}
    t = tt[r]
    first = min(tt.values())
    if t > first + 1.0:
        return st, (-15, first + 1.0)
    peer = h if job.host_of(r) != h else (job.hosts[(job.node_rank(h) + 1) % job.nnodes])
    st.append((t, remote_error_block(job, r, t, job.ip[peer]), None))
    return st, (-6, t + 1)


def restart_agent_lines(job, h, a0_fin):
    t = min(v[1] for v in a0_fin.values())
    r0 = min(a0_fin, key=lambda k: a0_fin[k][1])
    ap = job.pids[job.ranks_on(h)[0]] - 40
    g = job.era["style"] == "glog"
    E = (lambda tt: f"E{f_glog(job.lt(h, tt))} {ap} torch/distributed/elastic/multiprocessing/api.py:869] ") if g else (lambda tt: "ERROR:torch.distributed.elastic.multiprocessing.api:")
    I = (lambda tt, ln: f"I{f_glog(job.lt(h, tt))} {ap} torch/distributed/elastic/agent/server/api.py:{ln}] ") if g else (lambda tt, ln: "INFO:torch.distributed.elastic.agent.server.api:")
    return [(t + 1, E(t + 1) + f"failed (exitcode: -6) local_rank: {job.lr_of(r0)} (pid: {job.pids[r0]}) of binary: {job.site_pkgs.rsplit('/lib/', 1)[0]}/bin/python{job.era['py']}", None),
            (t + 2, I(t + 2, 725) + "[default] Worker group FAILED. 3/3 attempts left; will restart worker group", None),
            (t + 2.5, I(t + 2.5, 541) + "[default] Rendezvous'ing worker group", None)]


# --------------------------------------------------------------------------
# layout: torchrun log dirs
# --------------------------------------------------------------------------
def render_torchrun(job, inc, rng, root):
    files = []
    if job.nnodes <= 4:
        nodes = list(job.hosts)
    else:
        nodes = [job.hosts[0]]
        if inc.ini_host and rng.random() < 0.8:
            nodes.append(inc.ini_host)
        for h in getattr(inc, "vanished", [])[:1]:
            if h not in nodes and rng.random() < 0.6:
                nodes.append(h)
        pool = [h for h in job.hosts if h not in nodes]
        rng.shuffle(pool)
        nodes += pool[:rng.randint(1, 3)]
    run_dir = f"{job.run_id}_{hx(rng, 8)}"
    attempts = [0, 1] if getattr(inc, "restart", None) else [0]
    for h in nodes:
        if h in getattr(inc, "vanished", []) and rng.random() < 0.5:
            continue  # node never came back; its local log dir was not collected
        agent = Sink(job)
        for att in attempts:
            a0 = (att == 0 and len(attempts) == 2)
            a0_fin = {}
            for r in job.ranks_on(h):
                if a0:
                    st, ex = restart_attempt0(job, inc, r)
                    a0_fin[r] = ex
                else:
                    st = rank_stream(job, inc, r)
                o, e = split_std(st)
                for nm, part in (("stdout.log", o), ("stderr.log", e)):
                    s = Sink(job)
                    s.extend([(x[1], x[2]) for x in part])
                    if len(s.items) > 900:
                        s.mid_trim(200, 600, "[... {n} lines removed (log rotated) ...]")
                    files.append((f"logs/{h}/{run_dir}/attempt_{att}/{job.lr_of(r)}/{nm}", s))
            al = agent_lines(job, inc, h)
            al = al[:4] if a0 else (al[4:] if len(attempts) == 2 else al)
            if a0:
                al += restart_agent_lines(job, h, a0_fin)
            agent.extend([(x[1], x[2]) for x in sorted(al, key=lambda x: x[0])])
        if not inc.finished and not getattr(inc, "still_running", False):
            lines, keys = elastic_summary(job, inc, h)
            agent.extend(lines)
        files.append((f"logs/{h}/torchrun-agent.log", agent))
    diag = []
    for h in inc.diag_hosts:
        if h in job.hosts and h not in diag:
            diag.append(h)
    files += diag_files(job, inc, rng, "node-diag", diag[:4], rng.choice(["journal", "iso", "dmesgT"]),
                        names={"kern": "journalctl-k.txt"}, dcgm=rng.random() < 0.7, sel=rng.random() < 0.7)
    files += extras(job, inc, rng)
    return files


# --------------------------------------------------------------------------
# layout: kubernetes
# --------------------------------------------------------------------------
def pod_name(job, n):
    if job.k8s_kind == "pytorchjob":
        return f"{job.job_name}-master-0" if n == 0 else f"{job.job_name}-worker-{n - 1}"
    return f"{job.job_name}-workers-0-{n}-{hx(rng_for('pod', job.seed, job.idx, n), 5)}"


def render_k8s(job, inc, rng, root):
    files = []
    t_cap = inc.t_end + rng.uniform(120, 2400)
    if job.nnodes <= 8:
        nodes = list(job.hosts)
    else:
        nodes = [job.hosts[0]]
        if inc.ini_host and rng.random() < 0.8:
            nodes.append(inc.ini_host)
        pool = [h for h in job.hosts if h not in nodes]
        rng.shuffle(pool)
        nodes += pool[:rng.randint(2, 4)]
    ts_mode = rng.random() < 0.4
    for h in nodes:
        n = job.node_rank(h)
        pod = pod_name(job, n)
        if h in getattr(inc, "vanished", []):
            s = Sink(job)
            s.add(f'Error from server: Get "https://{job.ip[h]}:10250/containerLogs/{job.ns}/{pod}/pytorch": dial tcp {job.ip[h]}:10250: connect: no route to host')
            files.append((f"pods/{pod}.log", s))
            continue
        streams = []
        al = agent_lines(job, inc, h)
        if getattr(inc, "restart", None):
            a0_fin = {}
            for r in job.ranks_on(h):
                st0, ex = restart_attempt0(job, inc, r)
                a0_fin[r] = ex
                streams.append(console(job, inc, r, st0, "tee", host_known=True))
            al = al[:4] + restart_agent_lines(job, h, a0_fin) + al[4:]
        for r in job.ranks_on(h):
            st = rank_stream(job, inc, r, capture_t=t_cap, startup=not getattr(inc, "restart", None))
            streams.append(console(job, inc, r, st, "tee", host_known=True))
        streams.append(al)
        items = merge_sorted(streams)
        s = Sink(job)
        for t, text, key in items:
            s.add((f"{D(job.lt(h, t)):%Y-%m-%dT%H:%M:%S}.{int((t % 1) * 1e9):09d}Z " if ts_mode else "") + text, key)
        if not inc.finished and not getattr(inc, "still_running", False):
            lines, keys = elastic_summary(job, inc, h)
            s.extend(lines)
        if len(s.items) > 1500:
            s.mid_trim(300, 1000, "[... {n} lines omitted (kubectl logs --tail) ...]")
        files.append((f"pods/{pod}.log", s))
    # pods -o wide
    s = Sink(job)
    s.add(f"NAME{' ' * 36}READY   STATUS        RESTARTS      AGE     IP              NODE")
    for n, h in enumerate(job.hosts[:64]):
        pod = pod_name(job, n)
        rs = job.ranks_on(h)
        if inc.finished:
            status = "Completed"
        elif h in getattr(inc, "vanished", []):
            status = "Unknown"
        elif getattr(inc, "still_running", False):
            status = "Running"
        elif getattr(inc, "sigterm_host", None) == h:
            status = "Error"
        else:
            status = "Error" if any(inc.final.get(r) and inc.final[r][0] != 0 for r in rs) else "Running"
        restarts = "0"
        age = f_age(t_cap, job.t_start - 60)
        key = "ipmap" if h == inc.ini_host else None
        s.add(f"{pod:<40}{'0/1' if status != 'Running' else '1/1':<8}{status:<14}{restarts:<14}{age:<8}{job.ip[h]:<16}{h}", key)
    if job.nnodes > 64:
        s.add(f"[... {job.nnodes - 64} more pods ...]")
    files.append(("kubectl-get-pods-wide.txt", s))
    # events
    ev = []
    if not inc.finished and not getattr(inc, "still_running", False):
        fails = [(inc.final[r][1], r) for r in range(job.world) if inc.final.get(r) and inc.final[r][0] != 0]
        if fails:
            t, r = min(fails)
            ev.append((inc.t_end + 5, "Normal", "PyTorchJobFailed" if job.k8s_kind == "pytorchjob" else "FailedJobs",
                       f"pytorchjob/{job.job_name}" if job.k8s_kind == "pytorchjob" else f"jobset/{job.job_name}",
                       f"PyTorchJob {job.ns}/{job.job_name} is failed because 1 Worker replica(s) failed." if job.k8s_kind == "pytorchjob"
                       else "jobset failed due to reaching max number of restarts", None))
    for h in getattr(inc, "vanished", []):
        ev.append((inc.t_fault + 45, "Normal", "NodeNotReady", f"node/{h}", f"Node {h} status is now: NodeNotReady", "sched"))
        ev.append((inc.t_fault + 46, "Warning", "NodeNotReady", f"pod/{pod_name(job, job.node_rank(h))}", "Node is not ready", None))
    sh = getattr(inc, "sigterm_host", None)
    if sh:
        ev.append((inc.t_fault - 20, "Normal", "NodeNotSchedulable", f"node/{sh}", f"Node {sh} status is now: NodeNotSchedulable", "sched"))
        ev.append((inc.t_fault - 0.5, "Normal", "Killing", f"pod/{pod_name(job, job.node_rank(sh))}", "Stopping container pytorch", None))
    if inc.cause == "host_oom_kill" and not inc.healthy and inc.ini_host:
        oom = [x for x in inc.kern.get(inc.ini_host, []) if "Killed process" in x[1]]
        if oom:
            ev.append((oom[0][0] + 1, "Warning", "OOMKilling", f"node/{inc.ini_host}", oom[0][1].split(" total-vm")[0], "kern+pidkill"))
    for h, items in inc.kern.items():
        for t, text, key in items:
            if "NVRM: Xid" in text and h in job.hosts:
                ev.append((t + 2, "Warning", "GpuXidError", f"node/{h}", f"{text.split('NVRM: ', 1)[1][:150]}", key if key and "kern" in key else None))
                break
    ev = [e for e in ev if t_cap - e[0] < 3600]
    ev.sort(key=lambda x: x[0])
    s = Sink(job)
    s.add("LAST SEEN   TYPE      REASON               OBJECT                                              MESSAGE")
    for t, ty, rs, obj, msg, key in ev:
        s.add(f"{f_age(t_cap, t):<12}{ty:<10}{rs:<21}{obj:<52}{msg}", key)
    if len(ev) == 0:
        s.add(f"{f_age(t_cap, t_cap - 400):<12}{'Normal':<10}{'Pulled':<21}{'pod/dcgm-exporter-' + hx(rng, 5):<52}Container image \"nvcr.io/nvidia/k8s/dcgm-exporter:{job.dcgm_ver}-3.6.0-ubuntu22.04\" already present on machine")
    files.append(("kubectl-get-events.txt", s))
    # node describes + metrics
    diag = []
    for h in inc.diag_hosts + list(getattr(inc, "vanished", [])) + ([sh] if sh else []):
        if h in job.hosts and h not in diag:
            diag.append(h)
    for h in diag[:4]:
        s = Sink(job)
        s.add(f"Name:               {h}")
        s.add("Roles:              <none>")
        s.add(f"Labels:             kubernetes.io/hostname={h}")
        s.add(f"                    nvidia.com/gpu.product={job.gpu['name'].replace(' ', '-')}")
        s.add(f"                    topology.kubernetes.io/zone={job.site}-{job.row}")
        s.add(f"                    example.com/rack=r{job.rack_of[h]:02d}")
        taint = "<none>"
        key = None
        if sh == h:
            taint = "node.kubernetes.io/unschedulable:NoSchedule"
            key = "sched"
        if h in getattr(inc, "vanished", []):
            taint = "node.kubernetes.io/unreachable:NoExecute"
            key = "sched"
        s.add(f"Taints:             {taint}", key)
        s.add(f"Unschedulable:      {'true' if sh == h else 'false'}")
        s.add("Conditions:")
        s.add("  Type             Status    LastHeartbeatTime                 Reason                       Message")
        s.add("  ----             ------    -----------------                 ------                       -------")
        hb = D(job.lt(h, t_cap - 20))
        for c, msg in [("MemoryPressure", "kubelet has sufficient memory available"), ("DiskPressure", "kubelet has no disk pressure"),
                       ("PIDPressure", "kubelet has sufficient PID available")]:
            st = "Unknown" if h in getattr(inc, "vanished", []) else "False"
            s.add(f"  {c:<17}{st:<10}{hb:%a, %d %b %Y %H:%M:%S} +0000   {'NodeStatusUnknown' if st == 'Unknown' else 'Kubelet' + ('HasSufficientMemory' if c[0] == 'M' else 'HasNoDiskPressure' if c[0] == 'D' else 'HasSufficientPID'):<29}{'Kubelet stopped posting node status.' if st == 'Unknown' else msg}")
        if h in getattr(inc, "vanished", []):
            s.add(f"  Ready            Unknown   {hb:%a, %d %b %Y %H:%M:%S} +0000   NodeStatusUnknown            Kubelet stopped posting node status.", "sched")
        else:
            s.add(f"  Ready            True      {hb:%a, %d %b %Y %H:%M:%S} +0000   KubeletReady                 kubelet is posting ready status")
        s.add(f"Capacity:\n  nvidia.com/gpu:     {job.gpn}")
        lost = [g for g, v in inc.smi.get(h, {}).items() if v.get("lost")]
        s.add(f"Allocatable:\n  nvidia.com/gpu:     {job.gpn - len(lost)}")
        files.append((f"nodes/{h}.describe.txt", s))
        if h not in getattr(inc, "vanished", []):
            s = Sink(job)
            st = inc.smi.get(h, {})
            for metric in ["DCGM_FI_DEV_GPU_TEMP", "DCGM_FI_DEV_POWER_USAGE", "DCGM_FI_DEV_XID_ERRORS", "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS",
                           "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", "DCGM_FI_DEV_ROW_REMAP_PENDING" if False else "DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS"]:
                s.add(f"# HELP {metric} {metric.replace('DCGM_FI_DEV_', '').lower()}")
                s.add(f"# TYPE {metric} gauge")
                for g in range(job.gpn):
                    v = st.get(g, {})
                    if v.get("lost"):
                        continue
                    lab = f'gpu="{g}",UUID="{job.uuid[(h, g)]}",pci_bus_id="00000000:{job.bus(g).upper()}:00.0",device="nvidia{g}",modelName="{job.gpu["name"]}",Hostname="{h}"'
                    thr = 0
                    for k, bit in [("swpower", 0x4), ("hwslow", 0x8), ("swthermal", 0x20), ("hwthermal", 0x40), ("hwbrake", 0x80)]:
                        if k in v.get("throttle", []):
                            thr |= bit
                    val = {"DCGM_FI_DEV_GPU_TEMP": v.get("temp", 40 + g % 7), "DCGM_FI_DEV_POWER_USAGE": f"{job.gpu['power'] * (0.55 if 'hwbrake' in v.get('throttle', []) else 0.86):.3f}",
                           "DCGM_FI_DEV_XID_ERRORS": 0, "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS": thr,
                           "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL": v.get("dbe", 0), "DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS": v.get("remap_unc", 0)}[metric]
                    if metric == "DCGM_FI_DEV_XID_ERRORS":
                        for t, text, key in inc.kern.get(h, []):
                            if f"PCI:0000:{job.bus(g)}:00): " in text and "Xid" in text:
                                val = int(text.split("): ", 1)[1].split(",", 1)[0])
                    mk = "smi" if (h == inc.ini_host and v.get("key") and metric in ("DCGM_FI_DEV_CLOCK_THROTTLE_REASONS", "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL")
                                   and (thr or v.get("dbe"))) else None
                    s.add(f"{metric}{{{lab}}} {val}", mk)
            files.append((f"metrics/{h}-dcgm-exporter.prom", s))
    if rng.random() < 0.6:
        files += diag_files(job, inc, rng, "node-logs", [h for h in diag[:3] if h not in getattr(inc, "vanished", [])], "dmesgT",
                            smi=False, dcgm=False, sel=rng.random() < 0.4)
    s = Sink(job)
    state = "Succeeded" if inc.finished else ("Running" if getattr(inc, "still_running", False) else "Failed")
    if job.k8s_kind == "pytorchjob":
        s.add(f"status:\n  conditions:")
        s.add(f"  - lastTransitionTime: \"{f_iso(job.t_start, ms=False)}Z\"\n    message: PyTorchJob {job.job_name} is created.\n    reason: PyTorchJobCreated\n    status: \"True\"\n    type: Created")
        s.add(f"  - lastTransitionTime: \"{f_iso(inc.t_end, ms=False)}Z\"\n    message: PyTorchJob {job.job_name} is {state.lower()}.\n    reason: PyTorchJob{state}\n    status: \"True\"\n    type: {state}")
        files.append(("pytorchjob-status.yaml", s))
    else:
        s.add("status:\n  conditions:")
        if state == "Succeeded":
            s.add(f"  - lastTransitionTime: \"{f_iso(inc.t_end, ms=False)}Z\"\n    message: jobset completed successfully\n    reason: AllJobsCompleted\n    status: \"True\"\n    type: Completed")
        elif state == "Failed":
            s.add(f"  - lastTransitionTime: \"{f_iso(inc.t_end, ms=False)}Z\"\n    message: jobset failed due to reaching max number of restarts\n    reason: ReachedMaxRestarts\n    status: \"True\"\n    type: Failed")
        s.add("  restarts: 0")
        files.append(("jobset-status.yaml", s))
    files += extras(job, inc, rng)
    return files


# --------------------------------------------------------------------------
# layout: bare paste
# --------------------------------------------------------------------------
def user_intro(job, inc, rng):
    noise = getattr(inc, "noise", [])
    ff = inc.first_fail
    lines = []
    greet = rng.choice(["hi all,", "Hey team -", "Ticket from #ml-infra-help:", "posting here since the oncall is busy:", ""])
    if greet:
        lines.append(greet)
    if inc.finished:
        lines.append(f"job {job.jobid} ({job.world} GPUs) finished fine but I saw scary stuff in the logs, should I worry?")
    elif getattr(inc, "still_running", False) or getattr(inc, "timelimit", False) or getattr(inc, "user_cancel", False):
        lines.append(f"our {job.world}-GPU run got really slow after a few hours (step time way up). logs + what I could grab below.")
    else:
        lines.append(f"our {job.world}-GPU job ({job.job_name}) died {rng.choice(['last night', 'this morning', 'around lunch', 'again'])}.")
    guess = []
    if noise:
        guess.append(f"facilities mentioned {rng.choice(noise)} around that time")
    if getattr(inc, "power_cap", None) and rng.random() < 0.6:
        guess.append(f"rack {inc.power_cap[1]} was power capped")
    h0 = job.hosts[0]
    f0 = [(inc.final[r][1], r) for r in job.ranks_on(h0) if inc.final.get(r) and inc.final[r][0] != 0]
    if f0 and rng.random() < 0.5:
        t, r = min(f0)
        guess.append(f"torchrun on {h0} says the root cause is local rank {job.lr_of(r)} (exitcode {inc.final[r][0]})"
                     if job.launcher == "torchrun" else f"the first error in our output is from rank {r} on {h0}")
    if guess:
        lines.append(rng.choice(["maybe related: ", "fwiw ", "not sure if relevant but "]) + "; ".join(guess) + ".")
    return lines


def render_paste(job, inc, rng, root):
    s = Sink(job)
    for l in user_intro(job, inc, rng):
        s.add(l)
    s.add("")
    mode = rng.choice(["tee", "tee", "plain"]) if job.launcher == "torchrun" else rng.choice(["label", "label", "plain"])
    shown, _ = shown_ranks(job, inc, rng.choice([6, 8, 12]))
    streams = []
    startup = rng.random() < 0.5
    for r in shown:
        st = rank_stream(job, inc, r, startup=startup)
        streams.append(console(job, inc, r, st, mode, host_known=(job.nnodes == 1)))
    if job.launcher == "torchrun":
        streams += agent_streams(job, inc, shown[:1] + ([inc.ini_rank] if inc.ini_rank is not None else []), lambda h: "")
    else:
        streams.append(srun_tail(job, inc, "srun"))
    items = merge_sorted(streams)
    n = rng.randint(60, 220)
    s.add("```")
    if len(items) > n:
        s.add(f"... ({len(items) - n} earlier lines cut) ...")
        items = items[-n:]
    s.extend([(x[1], x[2]) for x in items])
    s.add("```")
    if not inc.finished and rng.random() < 0.5 and job.launcher != "torchrun":
        s.add("")
        s.add(f"$ sacct -j {job.jobid} --format=JobID,JobName,Partition,State,ExitCode,Elapsed,NodeList")
        for l in sacct_text(job, inc):
            s.add(l)
    cands = [h for h in inc.diag_hosts if h in job.hosts]
    if cands and (inc.healthy or rng.random() < 0.8):
        h = cands[0] if rng.random() < 0.7 else rng.choice(cands)
        s.add("")
        s.add(f"and from {h}:")
        s.add(f"[{job.user}@{h.split('.')[0]} ~]$ sudo dmesg -T | grep -iE 'nvrm|xid|mlx5|oom|segfault|temperature|blocked|nfs' | tail -n 25")
        items = [x for x in inc.kern.get(h, []) if x[0] <= inc.t_end + 3600]
        rk = render_kern(job, h, items, "dmesgT")[-25:]
        if not rk:
            s.add("(nothing)")
        s.extend(rk)
        if inc.sel.get(h) and rng.random() < 0.6:
            s.add(f"[{job.user}@{h.split('.')[0]} ~]$ sudo ipmitool sel list | tail -n 8")
            s.extend(render_sel(job, h, inc.sel.get(h, []), rng_for("sel", job.seed, job.idx, h))[-8:])
        if rng.random() < 0.5 and h not in getattr(inc, "vanished", []):
            lines, keys = smi_text(job, h, inc, inc.t_end + 600)
            s.add(f"[{job.user}@{h.split('.')[0]} ~]$ nvidia-smi -q | grep -A12 -E 'Clocks (Event|Throttle) Reasons|^GPU 0000|Unable' | head -n 60")
            key = "smi" if (h == inc.ini_host and any(v.get("lost") or v.get("key") for v in inc.smi.get(h, {}).values())) else None
            sel = [l for l in lines if l.startswith("GPU 0000") or l.startswith("Unable") or "Reasons" in l or ": Active" in l or ": Not Active" in l][:60]
            for i, l in enumerate(sel):
                s.add(l, key if i == 0 else None)
    if inc.pyspy and rng.random() < 0.5:
        s.add("")
        s.add("py-spy on the rank that looked stuck:")
        s.extend(pyspy_sink(job, inc).items)
    if inc.fr and rng.random() < 0.5:
        s.add("")
        s.extend(fr_sink(job, inc, rng).items)
    if inc.healthy or rng.random() < 0.3:
        n2 = noc_sink(job, inc, rng)
        if n2:
            s.add("")
            s.add("NOC sent this digest too:")
            s.extend(n2.items[4:])
    s.add("")
    s.add(rng.choice(["thanks!", "any idea? we have a deadline friday", "happy to grab more logs", "-- sent from my phone"]))
    return [("paste.txt", s)]


# --------------------------------------------------------------------------
# layout: facility / ops bundle
# --------------------------------------------------------------------------
def render_ops(job, inc, rng, root):
    files = []
    cap = rng.choice([16, 24, 32])
    shown, sampled = shown_ranks(job, inc, cap)
    streams = []
    for r in shown:
        streams.append(console(job, inc, r, rank_stream(job, inc, r), "pdsh"))
    launch_host = rng.choice(["login01", "mgmt-02", job.hosts[0]])
    extra = []
    for h in job.hosts[:16]:
        t0 = job.t_start + 1
        for r in job.ranks_on(h)[:2]:
            extra.append((t0, f"{h.split('.')[0]}: [{f_py(job.lt(h, t0)).replace(',', '.')}] [INFO] [launch.py:256:main] process {job.pids[r]} spawned with command: "
                              f"['/usr/bin/python{job.era['py']}', '-u', '{job.script}', '--local_rank={job.lr_of(r)}', '--deepspeed_config=ds_config.json']", None))
    if not inc.finished and not getattr(inc, "still_running", False):
        byt = sorted([(v[1], r) for r, v in inc.final.items() if v and v[0] != 0])
        seen = set()
        for t, r in byt:
            h = job.host_of(r)
            if h in seen or len(seen) > 10:
                continue
            seen.add(h)
            code = inc.final[r][0]
            extra.append((t + 0.2, f"{h.split('.')[0]}: [{f_py(job.lt(h, t + 0.2)).replace(',', '.')}] [INFO] [launch.py:316:sigkill_handler] Killing subprocess {job.pids[r]}", None))
            extra.append((t + 0.3, f"{h.split('.')[0]}: [{f_py(job.lt(h, t + 0.3)).replace(',', '.')}] [ERROR] [launch.py:322:sigkill_handler] ['/usr/bin/python{job.era['py']}', '-u', '{job.script}', "
                                   f"'--local_rank={job.lr_of(r)}', '--deepspeed_config=ds_config.json'] exits with return code = {code}", "exit" if r == inc.ini_rank else None))
            extra.append((t + 0.5, f"pdsh@{launch_host}: {h.split('.')[0]}: ssh exited with exit code 1", None))
    for h in getattr(inc, "vanished", []):
        extra.append((inc.t_fault + 300, f"pdsh@{launch_host}: {h.split('.')[0]}: ssh exited with exit code 255", None))
    sh = getattr(inc, "sigterm_host", None)
    if sh:
        extra.append((inc.t_fault + 0.1, f"{sh.split('.')[0]}: [{f_py(job.lt(sh, inc.t_fault)).replace(',', '.')}] [INFO] [launch.py:319:sigkill_handler] Main process received SIGTERM, exiting", "sigterm"))
    items = merge_sorted(streams + [extra])
    s = Sink(job)
    s.add(f"[{f_py(job.t_start).replace(',', '.')}] [INFO] [runner.py:568:main] cmd = pdsh -S -f 1024 -w {hostlist(job.hosts)} export NCCL_DEBUG=INFO; cd /work/{job.job_name}; "
          f"/usr/bin/python{job.era['py']} -u -m deepspeed.launcher.launch --world_info=<b64> --node_rank=%n --master_addr={job.hosts[0]} --master_port=29500 {job.script}")
    if sampled:
        s.add(f"[... lines from {job.world - len(shown)} ranks filtered out by the collector (kept: {ranges(shown)}) ...]")
    s.extend([(x[1], x[2]) for x in items])
    if len(s.items) > 1500:
        s.mid_trim(300, 1000, "[... {n} lines dropped by log shipper (rate limit) ...]")
    files.append(("job/launcher.log", s))
    s = Sink(job)
    for h in job.hosts:
        s.add(f"{h} slots={job.gpn}")
    files.append(("job/hostfile", s))
    # rack inventory
    s = Sink(job)
    s.add("host,rack,slot,data_ip,pdu_a,pdu_b,leaf,in_job")
    racks = []
    for h in job.hosts:
        if job.rack_of[h] not in racks:
            racks.append(job.rack_of[h])
    inv = []
    for rk in racks[:4] + [job.spare_rack]:
        for h in job.rack_members[rk]:
            if h not in inv:
                inv.append(h)
    for h in job.hosts:
        if h not in inv:
            inv.append(h)
    for h in inv[:160]:
        rk = job.rack_of[h]
        s.add(f"{h},r{rk:02d},{job.slot_of[h]},{job.ip[h]},{job.pdu[rk][0] if rk in job.pdu else ''},{job.pdu[rk][1] if rk in job.pdu else ''},{job.leaf.get(rk, '')},"
              f"{'yes' if h in job.hosts else 'no'}", "ipmap" if h == inc.ini_host else None)
    files.append(("facility/rack-inventory.csv", s))
    # SEL for every host of the job's racks (first few racks) plus extras
    selh = []
    for rk in racks[:2]:
        selh += job.rack_members[rk]
    for h in list(inc.sel.keys()) + inc.sel_hosts_extra:
        if h not in selh:
            selh.append(h)
    for h in selh[:24]:
        s = Sink(job)
        s.add(f"# ipmitool -H {h.split('.')[0]}-bmc -U admin sel list")
        items = [x for x in inc.sel.get(h, [])]
        rendered = render_sel(job, h, items, rng_for("sel", job.seed, job.idx, h))
        s.extend(rendered)
        files.append((f"facility/bmc-sel/{h}.txt", s))
    # PDU logs
    pdu_ev = {}
    for t, p, text, key in inc.pdu:
        pdu_ev.setdefault(p, []).append((t, text, key))
    for rk in racks[:2]:
        for p in job.pdu[rk]:
            pdu_ev.setdefault(p, [])
    for p, evs in pdu_ev.items():
        s = Sink(job)
        r2 = rng_for("pdu", job.seed, job.idx, p)
        routine = [(job.t_start + r2.uniform(-3600, 30000), f"User 'snmp-poller' logged in from 10.0.{r2.randint(1, 9)}.{r2.randint(2, 250)}", None)
                   for _ in range(r2.randint(1, 3))]
        routine.append((job.t_start + r2.uniform(0, 20000), f"Inlet I1 active power {r2.uniform(9, 24):.1f} kW, {r2.uniform(0.3, 0.6):.0f}% of budget", None))
        for t, text, key in sorted(evs + routine, key=lambda x: x[0]):
            s.add(f"{f_sys(t)} {p} PDU[{r2.randint(100, 999)}]: {text}", key)
        files.append((f"facility/pdu/{p}.log", s))
    # fabric / switch / bms
    bysrc = {}
    for t, src, text, key in inc.fabric:
        bysrc.setdefault(src, []).append((t, text, key))
    for src, evs in bysrc.items():
        s = Sink(job)
        for t, text, key in sorted(evs, key=lambda x: x[0]):
            s.add(f"{f_sys(t)} {src} {text}", key)
        if src == "bms":
            name = "facility/bms-alarms.log"
        elif src == "cmdb":
            name = "facility/cmdb-node-state.log"
        elif src.startswith("opensm"):
            name = f"facility/fabric/{src.replace('@', '-')}.log"
        else:
            name = f"facility/switch/{src}.log"
        files.append((name, s))
    # dcgm health and kernel logs
    dh = list(job.hosts) if job.nnodes <= 12 else []
    for h in inc.diag_hosts + list(inc.dcgm.keys()):
        if h in job.hosts and h not in dh:
            dh.append(h)
    for h in dh[:16]:
        if h in getattr(inc, "vanished", []):
            continue
        lines, keys = dcgm_text(job, h, inc)
        s = Sink(job)
        s.add(f"# {h}: dcgmi health -c   (DCGM {job.dcgm_ver}, collected {D(inc.t_end + 900):%Y-%m-%d %H:%M})")
        for l in lines:
            s.add(l)
        if keys:
            s.items[-1] = (s.items[-1][0], "+".join(sorted(set(keys))))
        files.append((f"facility/dcgm-health/{h}.txt", s))
    kh = []
    for h in inc.diag_hosts + list(getattr(inc, "vanished", [])):
        if h in job.hosts and h not in kh:
            kh.append(h)
    files += diag_files(job, inc, rng, "facility/kernel", kh[:4], rng.choice(["journal", "iso"]), smi=rng.random() < 0.5, dcgm=False, sel=False,
                        names={"kern": "kernel.log"})
    if inc.fr and rng.random() < 0.65:
        files.append(("job/fr-analysis.txt", fr_sink(job, inc, rng)))
    if inc.pyspy and rng.random() < 0.7:
        files.append((f"job/py-spy-{inc.pyspy[0].split('.')[0]}-rank{inc.pyspy[1]}.txt", pyspy_sink(job, inc)))
    return files


FR_OP = {"ALLREDUCE": "nccl:all_reduce", "BROADCAST": "nccl:broadcast", "_ALLGATHER_BASE": "nccl:_allgather_base",
         "_REDUCE_SCATTER_BASE": "nccl:_reduce_scatter_base", "ALLGATHER": "nccl:all_gather",
         "REDUCE_SCATTER": "nccl:reduce_scatter", "BARRIER": "nccl:all_reduce"}


def fr_sink(job, inc, rng):
    kind, S = inc.fr
    r = inc.ini_rank
    s = Sink(job)
    d = rng.choice(["/tmp/fr", f"/checkpoints/{job.job_name}/fr_dumps", "./nccl_trace"])
    s.add(f"$ torchfrtrace {d} --prefix nccl_trace_rank_ -j")
    s.add(f"loaded {job.world} files in {rng.uniform(0.4, 9):.2f}s")
    entry = rng.randint(100, 1999)
    op = FR_OP.get(inc.op, "nccl:all_reduce")
    if kind == "fr":
        s.add(f"Not all ranks joining collective {S} at entry {entry}")
        s.add(f"internal record id: {entry}")
        s.add("group info: 0:default_pg")
        s.add(f"collective: {op}")
        s.add(f"missing ranks: {{{r}}}", "fr")
        s.add(f"total input numel: {job.numel * (job.world - 1)}")
        s.add(f"input sizes: [[{job.numel}]]")
        s.add(f"output sizes: [[{job.numel}]]")
        s.add(f"world size: {job.world}")
        s.add("expected ranks: {" + ", ".join(str(x) for x in range(job.world)) + "}")
        s.add("collective state: scheduled")
        s.add("collective stack trace:")
        for fr in model_frames(job, rng, "allreduce"):
            s.add(f"   {fr[2]} at {fr[0]}:{fr[1]}")
        s.add(f"   train_step at {job.script}:{rng.randint(180, 399)}")
    else:
        odd = FR_OP.get(getattr(inc, "odd_op", "BROADCAST"), "nccl:broadcast")
        s.add(f"Not all ranks joining collective {S} at entry {entry}")
        s.add("group info: 0:default_pg")
        s.add(f"collective: {op}")
        s.add("missing ranks: set()")
        s.add(f"input sizes: [[{job.numel}]]")
        s.add(f"world size: {job.world}")
        s.add("collective state: started")
        s.add(f"error msg: Culprit rank {r}; Error type: COLLECTIVE_TYPE_MISMATCH, Expected collective type: {op} does not match found collective type: {odd}", "fr")
    return s


def pyspy_sink(job, inc):
    h, r, text, key = inc.pyspy
    s = Sink(job)
    s.add(f"[root@{h.split('.')[0]} ~]# py-spy dump --pid {job.pids[r]}   # global rank {r}", key)
    for l in text.split("\n"):
        s.add(l)
    return s


def noc_sink(job, inc, rng):
    evs = [(t, src, text, key) for t, src, text, key in inc.fabric] + [(t, p, text, key) for t, p, text, key in inc.pdu]
    if not evs:
        return None
    s = Sink(job)
    s.add(f"From: noc@{job.site}.example.net")
    s.add(f"Subject: [facility] events {D(min(e[0] for e in evs)):%Y-%m-%d} (auto-digest)")
    s.add("")
    s.add("time (UTC)           source              event")
    for t, src, text, key in sorted(evs, key=lambda x: x[0]):
        s.add(f"{f_iso(t, ms=False)}  {src:<19} {text}", key)
    s.add("")
    s.add("-- this digest lists every alarm in the site; most do not affect running jobs --")
    return s


def extras(job, inc, rng, base=""):
    """FR analysis, py-spy dumps and the NOC digest an operator might attach"""
    out = []
    if inc.fr and rng.random() < 0.65:
        out.append((f"{base}fr-analysis.txt", fr_sink(job, inc, rng)))
    if inc.pyspy and rng.random() < 0.7:
        h, r = inc.pyspy[0], inc.pyspy[1]
        out.append((f"{base}py-spy/{h.split('.')[0]}-rank{r}.txt", pyspy_sink(job, inc)))
    if inc.healthy or rng.random() < 0.5:
        s = noc_sink(job, inc, rng)
        if s:
            out.append((f"{base}noc-facility-digest.txt", s))
    if inc.sel_hosts_extra and (inc.healthy or rng.random() < 0.4):
        for h in inc.sel_hosts_extra[:2]:
            s = Sink(job)
            s.add(f"# ipmitool -H {h.split('.')[0]}-bmc sel list   (rack neighbour, pulled by the oncall)")
            s.extend(render_sel(job, h, inc.sel.get(h, []), rng_for("sel", job.seed, job.idx, h)))
            out.append((f"{base}bmc/{h}-sel.txt", s))
    return out


def notes_file(job, inc, rng):
    s = Sink(job)
    for l in user_intro(job, inc, rng):
        s.add(l)
    return ("NOTES.txt", s)


RENDER = {"slurm": render_slurm, "torchrun": render_torchrun, "k8s": render_k8s, "paste": render_paste, "opsbundle": render_ops}


# --------------------------------------------------------------------------
# driver
# --------------------------------------------------------------------------
def decide_truth(job, inc):
    em = job.emitted
    ok = lambda rules: any(all(k in em for k in rule) for rule in rules)
    nrules = list(inc.node_rules)
    if ["own", "map"] in nrules:
        nrules.append(["ownhost"])
    rank = inc.ini_rank if (inc.ini_rank is not None and ok(inc.rank_rules)) else None
    node = inc.ini_host if (inc.ini_host is not None and ok(nrules)) else None
    if rank is not None and node is None and "map" in em:
        node = job.host_of(rank)
    if node is not None and "." in node and not getattr(job, "watch_seen", False):
        node = node.split(".")[0]
    if inc.healthy:
        return None
    return {"rank": rank, "node": node}


def gen_run(outdir, seed, i, cause, layout):
    healthy = cause is None
    rng = rng_for("blind64", seed, i)
    need = 2 if cause == "network" else 1
    job = Job(rng, i, seed, layout, cause, healthy, need_nodes=need)
    if layout == "slurm":
        job.launcher = rng.choice(["srun_kob", "torchrun"])
    elif layout == "opsbundle":
        job.launcher = "mpirun"
    elif layout == "paste":
        job.launcher = rng.choice(["srun_kob", "torchrun", "torchrun"])
    else:
        job.launcher = "torchrun"
    job.slurm_mode = "torchrun" if job.launcher == "torchrun" else "srun"
    job.srun_label = rng.random() < 0.7
    job.k8s_kind = rng.choice(["pytorchjob", "pytorchjob", "jobset"])
    inc = Inc(cause, healthy)
    inc.progress = []
    if healthy:
        b_healthy(job, inc, rng)
    else:
        BUILDERS[cause](job, inc, rng)
    job.fr_enabled = inc.fr is not None
    finalize(job, inc)
    if inc.finished:
        p_end = inc.t_done - 10
    elif inc.timing or getattr(inc, "still_running", False):
        p_end = inc.t_end
    else:
        p_end = inc.t_fault
    f0 = inc.final.get(0)
    if f0:
        p_end = min(p_end, f0[1])
    if getattr(inc, "restart", None):
        inc.progress0 = progress_lines(job, inc, job.t_start + 60, inc.restart["t"])
        inc.progress = progress_lines(job, inc, inc.restart["t"] + 95, p_end)
    else:
        inc.progress = progress_lines(job, inc, job.t_start + 60, p_end)
    run_dir = os.path.join(outdir, f"run-{i:03d}-{layout}")
    if os.path.exists(run_dir):
        shutil.rmtree(run_dir)
    os.makedirs(run_dir)
    job.watch_host = inc.ini_host
    job.watch_seen = False
    files = RENDER[layout](job, inc, rng, run_dir)
    if layout != "paste" and rng.random() < 0.35:
        files.append(notes_file(job, inc, rng))
    seen = set()
    for rel, sink in files:
        if rel in seen:
            continue
        seen.add(rel)
        sink.write(os.path.join(run_dir, rel))
    ini = decide_truth(job, inc)
    truth = {"healthy": healthy, "cause": None if healthy else cause, "initiator": ini, "layout": layout, "notes": inc.notes}
    with open(os.path.join(run_dir, "truth.json"), "w", encoding="utf-8") as f:
        json.dump(truth, f, indent=2)
        f.write("\n")
    return truth


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--seed", default="1")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    rng = rng_for("plan", a.seed)
    order = list(CAUSES)
    rng.shuffle(order)
    lays = [LAYOUTS[j % len(LAYOUTS)] for j in range(a.n)]
    rng.shuffle(lays)
    counts = {"healthy": 0}
    for c in CAUSES:
        counts[c] = 0
    k = 0
    for i in range(a.n):
        if i % 7 == 3:
            cause = None
        else:
            cause = order[k % len(order)]
            k += 1
        layout = lays[i]
        gen_run(a.out, a.seed, i, cause, layout)
        counts["healthy" if cause is None else cause] += 1
    print(json.dumps(counts, indent=1))


if __name__ == "__main__":
    main()
