#!/usr/bin/env python3
"""gen_blind18.py - blind generator of synthetic failed/healthy distributed GPU training runs
for mixed-vendor (AMD Instinct + NVIDIA) clusters of 2025-2026.

Written without reading the diagnosis tool's code, rules, tests or corpus.
Standard library only.  Usage:

    python3 gen_blind18.py --out DIR --n 60 --seed S

Writes DIR/run-NNN-<layout>/ (the files a person would attach) each with truth.json, and
prints per-cause counts as JSON at the end.  Deterministic for a given seed.
"""
import argparse
import datetime as dt
import json
import os
import random
import shutil
import sys

CAUSES = ["gpu_hardware", "ecc_memory", "nvlink", "network", "cuda_oom", "illegal_memory_access",
          "python_exception", "host_oom_kill", "crash_signal", "preemption", "hang",
          "data_loader_stall", "collective_mismatch", "straggler", "unknown"]

LAYOUTS = ["frontier_srun", "lumi_torchrun", "k8s_amd_operator", "ds_megatron_rocm",
           "slurm_h100_torchrun", "k8s_nvidia_mixedpool", "gb200_nvl72_srun", "mixed_fleet_bundle"]

DRAIN_CAUSES = ("gpu_hardware", "ecc_memory", "nvlink")

# ----------------------------------------------------------------------------------------------
# time formatting
# ----------------------------------------------------------------------------------------------

def _d(t, off):
    return dt.datetime.fromtimestamp(t, dt.timezone.utc) + dt.timedelta(hours=off)


def f_py(t, off):
    d = _d(t, off)
    return d.strftime("%Y-%m-%d %H:%M:%S") + ",%03d" % (d.microsecond // 1000)


def f_glog(t, off, level, tid, src):
    d = _d(t, off)
    return "%s%s.%06d %d %s] " % (level, d.strftime("%m%d %H:%M:%S"), d.microsecond, tid, src)


def f_dmesg_T(t, off):
    d = _d(t, off)
    return "[%s %2d %s]" % (d.strftime("%a %b"), d.day, d.strftime("%H:%M:%S %Y"))


def f_syslog(t, off):
    d = _d(t, off)
    return "%s %2d %s" % (d.strftime("%b"), d.day, d.strftime("%H:%M:%S"))


def tzsuffix(off, colon=True):
    sign = "+" if off >= 0 else "-"
    h = int(abs(off))
    m = int(round((abs(off) - h) * 60))
    return "%s%02d%s%02d" % (sign, h, ":" if colon else "", m)


def f_iso(t, off, frac=6, colon=True, sep="T", comma=False):
    d = _d(t, off)
    s = d.strftime("%Y-%m-%d") + sep + d.strftime("%H:%M:%S")
    if frac:
        s += ("," if comma else ".") + ("%06d" % d.microsecond)[:frac]
    return s + tzsuffix(off, colon)


def f_rfc3339z(t, nanos=True):
    d = _d(t, 0)
    if nanos:
        return d.strftime("%Y-%m-%dT%H:%M:%S") + ".%06d%03dZ" % (d.microsecond, int(t * 1e9) % 1000)
    return d.strftime("%Y-%m-%dT%H:%M:%SZ")


def ranges(nums):
    nums = sorted(set(nums))
    out = []
    i = 0
    while i < len(nums):
        j = i
        while j + 1 < len(nums) and nums[j + 1] == nums[j] + 1:
            j += 1
        out.append(str(nums[i]) if i == j else "%d-%d" % (nums[i], nums[j]))
        i = j + 1
    return ",".join(out)


def hexaddr(rng, lo=0x7f0000000000, hi=0x7ffff0000000, align=0x1000):
    return "0x%x" % ((rng.randrange(lo, hi)) & ~(align - 1))


# ----------------------------------------------------------------------------------------------
# stacks (versions)
# ----------------------------------------------------------------------------------------------

AMD_STACKS = [
    dict(rocm="6.2.4", torch="2.5.1+rocm6.2", ccl="2.20.5", hip="6.2.41134-65d174c3e", py="3.10", git="7a84c5d"),
    dict(rocm="6.3.1", torch="2.6.0+rocm6.3", ccl="2.21.5", hip="6.3.42133-1b9c17779", py="3.12", git="6f2d1b9"),
    dict(rocm="6.4.1", torch="2.7.1+rocm6.4", ccl="2.22.3", hip="6.4.43483-a187df25c", py="3.12", git="3a4a5b1"),
    dict(rocm="7.0.0", torch="2.8.0+rocm7.0", ccl="2.26.6", hip="7.0.51831-a3e329ad8", py="3.12", git="f224e2c"),
    dict(rocm="7.1.0", torch="2.9.0+rocm7.1", ccl="2.27.7", hip="7.1.52802-26aae437f", py="3.12", git="0d2c4fd"),
]
NV_STACKS = [
    dict(cuda="12.1", torch="2.3.1+cu121", ccl="2.20.5", driver="535.183.01", py="3.10"),
    dict(cuda="12.4", torch="2.5.1+cu124", ccl="2.21.5", driver="550.127.05", py="3.11"),
    dict(cuda="12.6", torch="2.6.0+cu126", ccl="2.24.3", driver="560.35.03", py="3.11"),
    dict(cuda="12.8", torch="2.7.1+cu128", ccl="2.26.2", driver="570.133.20", py="3.12"),
    dict(cuda="12.8", torch="2.8.0+cu128", ccl="2.27.3", driver="570.172.08", py="3.12"),
    dict(cuda="13.0", torch="2.9.0+cu130", ccl="2.27.7", driver="580.82.07", py="3.12"),
]

GPU_INFO = {
    "MI250X": dict(vendor="amd", mem_gib=63.98, did="0x740c", pwr="560.0W", gfx="gfx90a",
                   name="AMD Instinct MI250X", bdfs=["c1", "c6", "c9", "ce", "d1", "d6", "d9", "de"]),
    "MI300X": dict(vendor="amd", mem_gib=191.98, did="0x74a1", pwr="750.0W", gfx="gfx942",
                   name="AMD Instinct MI300X", bdfs=["1b", "3d", "4e", "5f", "9d", "bd", "cd", "dd"]),
    "MI325X": dict(vendor="amd", mem_gib=255.98, did="0x74a5", pwr="1000.0W", gfx="gfx942",
                   name="AMD Instinct MI325X", bdfs=["05", "26", "46", "65", "85", "a6", "c6", "e5"]),
    "H100": dict(vendor="nvidia", mem_gib=79.11, name="NVIDIA H100 80GB HBM3",
                 bdfs=["19", "3b", "4c", "5d", "9b", "bb", "cb", "db"]),
    "H200": dict(vendor="nvidia", mem_gib=139.8, name="NVIDIA H200",
                 bdfs=["18", "2a", "3a", "5d", "9a", "ab", "ba", "db"]),
    "GB200": dict(vendor="nvidia", mem_gib=184.31, name="NVIDIA GB200",
                  bdfs=["0008:01", "0009:01", "0018:01", "0019:01"]),
}

OPS = ["ALLREDUCE", "_REDUCE_SCATTER_BASE", "_ALLGATHER_BASE", "BROADCAST", "ALLREDUCE", "ALLREDUCE"]


class Run:
    """Everything one synthetic run accumulates before a layout renders it to files."""

    def __init__(self, rng, idx, layout, cause):
        self.rng = rng
        self.idx = idx
        self.layout = layout
        self.cause = cause
        self.healthy = cause is None
        self.recs = []          # (t, rank|None, host|None, stream, text)
        self.klog = {}          # host -> [(t, text)]
        self.exits = {}         # rank -> (t, code)  code>0 exit status, code<0 -signal
        self.gpu_state = {}     # (host, lgpu) -> dict
        self.notes = []
        self.extra = {}         # filename -> text (cause specific attachments)
        self.evidence_rank = False
        self.truth_rank = None
        self.truth_node = None
        self.drain = False
        self.job_end = None     # dict(kind=..., t=...)
        self.kill_all = None    # t when the scheduler/operator killed everything
        self.node_files = []    # hosts whose node-level files should be attached
        self.oom_event_hosts = []
        self.flags = {}

    # --- topology helpers ---
    def host_of(self, r):
        return self.hosts[r // self.gpn]

    def lr(self, r):
        return r % self.gpn

    def node_idx(self, r):
        return r // self.gpn

    def ranks_on(self, host):
        n = self.hosts.index(host)
        return list(range(n * self.gpn, (n + 1) * self.gpn))

    def off(self, host=None):
        return self.tz

    def ht(self, t, host):
        """time as printed by a host with clock skew"""
        return t + self.skew.get(host, 0.0)

    def add(self, t, rank, text, stream="err", host=None):
        if rank is not None and rank not in self.shown:
            return
        if host is None and rank is not None:
            host = self.host_of(rank)
        for line in text.split("\n"):
            self.recs.append((t, rank, host, stream, line))
            t += 0.00002

    def k(self, host, t, text):
        self.klog.setdefault(host, []).append((t, text))

    def exit(self, r, t, code):
        if r not in self.exits:
            self.exits[r] = (t, code)

    # --- formatting helpers bound to this run ---
    def c10(self, r, t, level="E", src="ProcessGroupNCCL.cpp:616"):
        h = self.host_of(r)
        if self.tminor >= 4:
            d = _d(self.ht(t, h), self.tz)
            ns = "%06d%03d" % (d.microsecond, self.rng.randrange(1000))
            return "[rank%d]:[%s%s.%s %s] " % (r, level, d.strftime("%m%d %H:%M:%S"), ns, src)
        return "[rank%d]:[%s %s] " % (r, level, src)

    def tb_prefix(self, r):
        return "[rank%d]: " % r if self.tminor >= 3 else ""

    def nccl_pfx(self, r, tid=None):
        h = self.host_of(r)
        pid = self.pid[r]
        return "%s:%d:%d [%d]" % (h, pid, tid if tid else pid + self.rng.choice([0, 0, 61, 73, 118, 214]), self.lr(r))

    def nccl_warn(self, r, t, src, msg, tid=None):
        """NCCL/RCCL WARN: blank line first, timestamp prefix for NCCL >= 2.26."""
        pre = ""
        if self.ccl_minor >= 26:
            pre = "[%s] " % _d(self.ht(t, self.host_of(r)), self.tz).strftime("%Y-%m-%d %H:%M:%S")
        if self.vendor == "amd" and not src.startswith("nccl_ofi"):
            src = "/long_pathname_so_that_rpms_can_package_the_debug_info/src/extlibs/rccl/build/hipify/src/" + src
        if self.nccl_debug not in ("INFO", "WARN"):
            return
        self.add(t, r, "\n%s%s %s NCCL WARN %s" % (pre, self.nccl_pfx(r, tid), src, msg), stream="out")

    def nccl_info(self, r, t, msg, tid=None):
        if self.nccl_debug != "INFO":
            return
        self.add(t, r, "%s NCCL INFO %s" % (self.nccl_pfx(r, tid), msg), stream="out")

    def gpu_bdf(self, lg):
        b = self.gi["bdfs"][lg % len(self.gi["bdfs"])]
        if ":" in b:
            return b + ":00.0"
        return "0000:%s:00.0" % b

    def xid_pci(self, lg):
        b = self.gi["bdfs"][lg % len(self.gi["bdfs"])]
        if ":" in b:
            return "PCI:%s:00" % b
        return "PCI:0000:%s:00" % b

    def dev(self):
        return "hip" if self.vendor == "amd" else "cuda"


# ----------------------------------------------------------------------------------------------
# layout setup
# ----------------------------------------------------------------------------------------------

def pick_date(rng):
    # 2025-01-06 .. 2026-06-20
    base = dt.datetime(2025, 1, 6, tzinfo=dt.timezone.utc).timestamp()
    return base + rng.randrange(0, 530) * 86400 + rng.randrange(0, 86400)


def dst(t, north=True):
    m = _d(t, 0).month
    return 4 <= m <= 10 if north else False


def setup_common(R, vendor, gpu, hosts, gpn, tzbase, stack_pool):
    rng = R.rng
    R.vendor = vendor
    R.gpu = gpu
    R.gi = GPU_INFO[gpu]
    R.hosts = hosts
    R.gpn = gpn
    R.world = len(hosts) * gpn
    R.t0 = pick_date(rng)
    R.tz = tzbase + (1 if (tzbase != 0 and dst(R.t0)) else 0)
    R.stack = rng.choice(stack_pool)
    R.tminor = int(R.stack["torch"].split(".")[1])
    R.ccl_minor = int(R.stack["ccl"].split(".")[1])
    R.pid = {}
    base = rng.randrange(20000, 3900000)
    for n, h in enumerate(hosts):
        b = base + rng.randrange(0, 90000)
        for lr in range(gpn):
            b += rng.choice([1, 1, 2, 3])
            R.pid[n * gpn + lr] = b
    R.agent_pid = {h: R.pid[n * gpn] - rng.randrange(20, 200) for n, h in enumerate(hosts)}
    R.skew = {}
    for h in hosts:
        R.skew[h] = rng.uniform(-1.5, 1.5)
    if len(hosts) > 2 and rng.random() < 0.35:
        bad = rng.choice(hosts)
        R.skew[bad] = rng.choice([-1, 1]) * rng.uniform(8, 95)
        R.notes.append("clock skew %+.0fs on %s" % (R.skew[bad], bad))
    R.boot = {h: R.t0 - rng.uniform(2 * 86400, 90 * 86400) for h in hosts}
    R.ip = {}
    net = rng.randrange(1, 250)
    for i, h in enumerate(hosts):
        R.ip[h] = "10.%d.%d.%d" % (net, (i // 200) + rng.randrange(0, 3), 10 + (i % 200))
    R.timeout_ms = rng.choice([600000, 600000, 1800000, 1800000, 900000, 300000])
    R.nccl_debug = rng.choice(["INFO", "WARN", "WARN", None]) if R.world <= 64 else rng.choice(["WARN", None, None])
    R.master = hosts[0]
    R.port = rng.choice([29500, 29500, 29400, 12355, 6000, 23456])
    R.jobid = rng.randrange(1200000, 9800000)
    R.model = rng.choice(["llama3-8b", "llama3.1-70b", "mixtral-8x7b", "qwen2.5-32b", "gpt3-13b",
                          "olmo2-13b", "deepseek-v2-lite", "llama3.1-405b-pp", "mistral-7b"])
    # the "shown" ranks: all for small jobs, an excerpt for large ones
    R.shown = set(range(R.world))
    R.trimmed = False


def set_shown(R, culprit=None, keep_culprit=True, extra=()):
    rng = R.rng
    if R.layout in ("k8s_amd_operator", "k8s_nvidia_mixedpool"):
        # kubectl logs are per pod: a person attaches whole pod logs, a few pods of a big job
        pods = list(R.hosts)
        if len(pods) > 4:
            keep = {pods[0]} | set(rng.sample(pods, rng.randrange(2, 4)))
        else:
            keep = set(pods)
        if culprit is not None:
            cp = R.host_of(culprit)
            if keep_culprit:
                keep.add(cp)
            else:
                keep.discard(cp)
        if not keep:
            keep = {R.host_of(culprit)} if culprit is not None else {pods[0]}
        R.shown = set(r for r in range(R.world) if R.host_of(r) in keep)
        R.trimmed = len(R.shown) < R.world
        return
    if R.world <= 32:
        R.shown = set(range(R.world))
        if culprit is not None and not keep_culprit:
            R.shown.discard(culprit)
            R.trimmed = True
        return
    s = {0, R.world - 1}
    s.update(range(min(R.gpn, R.world)))
    k = rng.randrange(8, 18)
    s.update(rng.sample(range(R.world), k))
    s.update(extra)
    if culprit is not None:
        if keep_culprit:
            s.add(culprit)
        else:
            s.discard(culprit)
            for r in R.ranks_on(R.host_of(culprit)):
                s.discard(r)
    R.shown = s
    R.trimmed = True


def hostnames(R, style, n):
    rng = R.rng
    if style == "frontier":
        s = rng.randrange(1, 9400 - n)
        return ["frontier%05d" % (s + i) for i in range(n)]
    if style == "lumi":
        s = rng.randrange(5000, 7900 - n)
        return ["nid%06d" % (s + i) for i in range(n)]
    if style == "k8s_amd":
        pool = R.flags.get("pool", "mi300x")
        rack = rng.choice(["a", "b", "c", "r"])
        s = rng.randrange(1, 60)
        return ["%s-%s%d-n%02d" % (pool, rack, rng.randrange(1, 9), s + i) for i in range(n)]
    if style == "ds":
        pfx = rng.choice(["mi300-node", "gpu-b12-", "tw-mi325-", "amdgpu"])
        s = rng.randrange(1, 90)
        return ["%s%02d" % (pfx, s + i) for i in range(n)]
    if style == "h100":
        pfx = rng.choice(["gpu-h100-", "hgx-a3-", "dgx", "h200-node"])
        s = rng.randrange(1, 200)
        return ["%s%03d" % (pfx, s + i) for i in range(n)]
    if style == "k8s_nv":
        suff = "".join(rng.choice("bcdfghjklmnpqrstvwxz2456789") for _ in range(5))
        return ["gke-h200-pool-%s-%s" % (suff, "".join(rng.choice("bcdfghjklmnpqrstvwxz2456789") for _ in range(4)))
                for _ in range(n)]
    if style == "gb200":
        rack = rng.randrange(1, 24)
        s = rng.randrange(1, 18 - min(n, 17)) if n < 17 else 1
        out = []
        for i in range(n):
            tray = s + i
            r = rack + (tray - 1) // 18
            out.append("gb200-r%02d-ct%02d" % (r, (tray - 1) % 18 + 1))
        return out
    raise ValueError(style)


def pick_nn(R, seq):
    """node count; a NIC/fabric failure needs inter-node traffic, so network runs never get one node"""
    if R.cause == "network":
        seq = [x for x in seq if x > 1]
    return R.rng.choice(seq)


def layout_setup(R):
    rng = R.rng
    L = R.layout
    if L == "frontier_srun":
        nn = pick_nn(R, [2, 4, 8, 16, 32, 64])
        setup_common(R, "amd", "MI250X", hostnames(R, "frontier", nn), 8, -5, AMD_STACKS[:3])
        R.kfd_base = 4
        R.net = "cxi"
        R.style = rng.choice(["megatron", "plain", "torchtitan"])
        R.kill_on_bad_exit = rng.random() < 0.5
    elif L == "lumi_torchrun":
        nn = pick_nn(R, [1, 2, 4, 8, 16, 32])
        setup_common(R, "amd", "MI250X", hostnames(R, "lumi", nn), 8, 2, AMD_STACKS[:4])
        R.kfd_base = 4
        R.net = "cxi"
        R.style = rng.choice(["hf", "plain", "megatron"])
        R.tee = rng.random() < 0.55
    elif L == "k8s_amd_operator":
        nn = pick_nn(R, [1, 1, 2, 2, 4, 8, 16])
        gpu = rng.choice(["MI300X", "MI300X", "MI325X"])
        gpn = 8 if nn > 1 or rng.random() < 0.7 else rng.choice([2, 4])
        R.jobname = rng.choice(["llama-sft", "pretrain-7b", "dpo-run", "mixtral-ft", "qwen-cpt"]) + "-%d" % rng.randrange(10, 99)
        pods = ["%s-master-0" % R.jobname] + ["%s-worker-%d" % (R.jobname, i) for i in range(nn - 1)]
        R.flags["pool"] = gpu.lower()
        nodes = hostnames(R, "k8s_amd", nn)
        rng.shuffle(nodes)
        setup_common(R, "amd", gpu, pods, gpn, 0, AMD_STACKS[2:])
        R.k8s_node = dict(zip(pods, nodes))
        R.kfd_base = 2
        R.net = "roce"
        R.nic = rng.choice(["bnxt_re", "mlx5", "ionic"])
        R.style = rng.choice(["hf", "torchtitan", "plain"])
        R.kts = rng.random() < 0.5
    elif L == "ds_megatron_rocm":
        nn = pick_nn(R, [1, 2, 4, 8, 16, 32])
        gpu = rng.choice(["MI300X", "MI325X"])
        setup_common(R, "amd", gpu, hostnames(R, "ds", nn), 8, -8, AMD_STACKS[1:])
        R.kfd_base = 2
        R.net = "roce"
        R.nic = rng.choice(["bnxt_re", "mlx5"])
        R.style = "megatron"
    elif L == "slurm_h100_torchrun":
        nn = pick_nn(R, [1, 2, 4, 8, 16, 32])
        gpu = rng.choice(["H100", "H100", "H200"])
        setup_common(R, "nvidia", gpu, hostnames(R, "h100", nn), 8, 1, NV_STACKS)
        R.net = "ib"
        R.style = rng.choice(["plain", "torchtitan", "megatron", "hf"])
        R.tee = rng.random() < 0.5
        R.srun_label = rng.random() < 0.4
    elif L == "k8s_nvidia_mixedpool":
        nn = pick_nn(R, [1, 2, 2, 4, 8])
        gpn = 8 if nn > 1 or rng.random() < 0.6 else rng.choice([2, 4])
        R.jobname = rng.choice(["rlhf-ppo", "sft-llama", "pretrain-3b", "embed-ft"]) + "-%d" % rng.randrange(10, 99)
        pods = ["%s-master-0" % R.jobname] + ["%s-worker-%d" % (R.jobname, i) for i in range(nn - 1)]
        nodes = hostnames(R, "k8s_nv", nn)
        setup_common(R, "nvidia", rng.choice(["H200", "H100"]), pods, gpn, 0, NV_STACKS[1:])
        R.k8s_node = dict(zip(pods, nodes))
        R.amd_neighbors = ["aks-mi300x-%08d-vmss%06x" % (rng.randrange(10 ** 7, 10 ** 8), rng.randrange(1, 1 << 20)) for _ in range(2)]
        R.net = "ib"
        R.style = rng.choice(["hf", "plain", "torchtitan"])
        R.kts = rng.random() < 0.5
    elif L == "gb200_nvl72_srun":
        nn = pick_nn(R, [2, 4, 9, 18, 18, 32, 64, 128])
        setup_common(R, "nvidia", "GB200", hostnames(R, "gb200", nn), 4, -6, NV_STACKS[3:])
        R.net = "ib"
        R.style = rng.choice(["megatron", "torchtitan"])
        R.kill_on_bad_exit = rng.random() < 0.5
    elif L == "mixed_fleet_bundle":
        vendor = rng.choice(["amd", "nvidia"])
        nn = pick_nn(R, [1, 2, 2, 4, 4, 8])
        site = rng.choice(["atl1", "sjc2", "ord4"])
        if vendor == "amd":
            gpu = rng.choice(["MI300X", "MI325X"])
            hosts = ["%s-%s-%03d" % (site, gpu.lower(), rng.randrange(1, 200) + i) for i in range(nn)]
            gpn = 8 if nn > 1 else rng.choice([2, 4, 8])
            setup_common(R, "amd", gpu, hosts, gpn, -7, AMD_STACKS[2:])
            R.kfd_base = 2
            R.net = "roce"
            R.nic = rng.choice(["bnxt_re", "mlx5"])
            R.other = ["%s-%s-%03d" % (site, rng.choice(["h100", "h200"]), rng.randrange(1, 200)) for _ in range(2)]
        else:
            gpu = rng.choice(["H100", "H200"])
            hosts = ["%s-%s-%03d" % (site, gpu.lower(), rng.randrange(1, 200) + i) for i in range(nn)]
            gpn = 8 if nn > 1 else rng.choice([2, 4, 8])
            setup_common(R, "nvidia", gpu, hosts, gpn, -7, NV_STACKS[1:])
            R.net = "ib"
            R.other = ["%s-%s-%03d" % (site, rng.choice(["mi300x", "mi325x"]), rng.randrange(1, 200)) for _ in range(2)]
        R.style = rng.choice(["plain", "hf", "torchtitan"])
        R.nic = getattr(R, "nic", "mlx5")
    if R.vendor == "nvidia":
        R.nic = "mlx5"
    if R.layout in ("frontier_srun", "lumi_torchrun"):
        R.xname = {}
        cab = rng.randrange(1000, 1200 if R.layout == "frontier_srun" else 1010)
        for i, h in enumerate(R.hosts):
            R.xname[h] = "x%dc%ds%db%dn%d" % (cab + i // 64, (i // 8) % 8, (i // 2) % 4 + rng.choice([0, 4]) * 0, i % 2, 0 if R.layout == "frontier_srun" else (i // 4) % 2)
    R.script = {"megatron": "pretrain_gpt.py", "hf": "train_sft.py", "torchtitan": "torchtitan/train.py",
                "plain": "train.py"}[R.style]


# ----------------------------------------------------------------------------------------------
# paths / tracebacks
# ----------------------------------------------------------------------------------------------

def site_pkgs(R):
    py = R.stack["py"]
    L = R.layout
    if L == "frontier_srun":
        return "/lustre/orion/%s/proj-shared/envs/torch%s/lib/python%s/site-packages" % (
            R.flags.setdefault("proj", "csc%03d" % R.rng.randrange(100, 999)), R.stack["torch"][:3].replace(".", ""), py)
    if L == "lumi_torchrun":
        return "/opt/miniconda3/envs/pytorch/lib/python%s/site-packages" % py
    if R.vendor == "amd":
        return "/opt/conda/envs/py_%s/lib/python%s/site-packages" % (py, py)
    if L == "gb200_nvl72_srun":
        return "/usr/local/lib/python%s/dist-packages" % py
    if "sp_nv" not in R.flags:
        R.flags["sp_nv"] = R.rng.choice(["/usr/local/lib/python%s/dist-packages" % py, "/opt/venv/lib/python%s/site-packages" % py,
                                         "/home/%s/.venv/lib/python%s/site-packages" % (R.flags.setdefault("user", "ops"), py)])
    return R.flags["sp_nv"]


def workdir(R):
    L = R.layout
    if L == "frontier_srun":
        return "/lustre/orion/%s/scratch/%s/%s" % (R.flags.setdefault("proj", "csc%03d" % R.rng.randrange(100, 999)),
                                                    R.flags.setdefault("user", R.rng.choice(["jdoe", "mkr", "s7h", "alee"])),
                                                    "Megatron-LM" if R.style == "megatron" else "llm-train")
    if L == "lumi_torchrun":
        return "/scratch/project_465001%03d/%s/llm-train" % (R.rng.randrange(0, 999), R.flags.setdefault("user", "vkorhone"))
    if L in ("k8s_amd_operator", "k8s_nvidia_mixedpool"):
        return "/workspace/llm-train"
    if L == "ds_megatron_rocm":
        return "/mnt/shared/Megatron-DeepSpeed"
    if L == "gb200_nvl72_srun":
        return "/lustre/fsw/llm/%s/megatron-lm" % R.flags.setdefault("user", "svc-train")
    return "/home/%s/llm-train" % R.flags.setdefault("user", "ops")


def traceback_lines(R, frames, exc):
    sp = site_pkgs(R)
    wd = workdir(R)
    out = ["Traceback (most recent call last):"]
    for path, line, fn, code in frames:
        p = path.replace("{sp}", sp).replace("{wd}", wd)
        out.append('  File "%s", line %d, in %s' % (p, line, fn))
        out.append("    " + code)
    out.extend(exc.split("\n"))
    return out


def train_frames(R):
    s = R.style
    if s == "megatron":
        return [("{wd}/pretrain_gpt.py", 289, "<module>", "pretrain("),
                ("{wd}/megatron/training/training.py", 412, "pretrain", "iteration, num_floating_point_operations_so_far = train("),
                ("{wd}/megatron/training/training.py", 1520, "train", "train_step(forward_step_func,"),
                ("{wd}/megatron/training/training.py", 748, "train_step", "losses_reduced = forward_backward_func(")]
    if s == "hf":
        return [("{wd}/train_sft.py", 233, "<module>", "main()"),
                ("{wd}/train_sft.py", 221, "main", "trainer.train(resume_from_checkpoint=args.resume)"),
                ("{sp}/transformers/trainer.py", 2245, "train", "return inner_training_loop("),
                ("{sp}/transformers/trainer.py", 2560, "_inner_training_loop", "tr_loss_step = self.training_step(model, inputs, num_items_in_batch)")]
    if s == "torchtitan":
        return [("{wd}/torchtitan/train.py", 571, "<module>", "trainer.train()"),
                ("{sp}/torch/distributed/elastic/multiprocessing/errors/__init__.py", 355, "wrapper", "return f(*args, **kwargs)"),
                ("{wd}/torchtitan/train.py", 498, "train", "self.train_step(data_iterator)"),
                ("{wd}/torchtitan/train.py", 421, "train_step", "loss = self.forward_backward_step(input_dict, labels)")]
    return [("{wd}/train.py", 612, "<module>", "main()"),
            ("{wd}/train.py", 588, "main", "train_loop(model, optimizer, loader, cfg)"),
            ("{wd}/train.py", 331, "train_loop", "loss = train_step(model, batch, optimizer, scaler)")]


def torchlib(R):
    return site_pkgs(R) + "/torch/lib"


def cpp_frames(R, kind="watchdog"):
    rng = R.rng
    lib = torchlib(R)
    tl = "libtorch_hip.so" if R.vendor == "amd" else "libtorch_cuda.so"
    libc = "/lib64/libc.so.6" if R.layout in ("frontier_srun", "lumi_torchrun") else (
        "/lib/aarch64-linux-gnu/libc.so.6" if R.gpu == "GB200" else "/lib/x86_64-linux-gnu/libc.so.6")
    stdcpp = libc.replace("libc.so.6", "libstdc++.so.6")
    a = lambda: "0x%x" % (rng.randrange(0x7f0000000000, 0x7fffffffffff))
    fr = ["frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x98 (%s in %s/libc10.so)" % (a(), lib)]
    if kind == "watchdog":
        fr += ["frame #1: c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >) + 0x1d2 (%s in %s/%s)" % (a(), lib, tl),
               "frame #2: c10d::ProcessGroupNCCL::watchdogHandler() + 0x233 (%s in %s/%s)" % (a(), lib, tl),
               "frame #3: c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d (%s in %s/%s)" % (a(), lib, tl)]
    else:
        fr += ["frame #1: c10d::ProcessGroupNCCL::WorkNCCL::checkAndSetException() + 0x3a1 (%s in %s/%s)" % (a(), lib, tl),
               "frame #2: c10d::ProcessGroupNCCL::watchdogHandler() + 0x2b0 (%s in %s/%s)" % (a(), lib, tl),
               "frame #3: c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d (%s in %s/%s)" % (a(), lib, tl)]
    fr += ["frame #4: <unknown function> + 0xdc253 (%s in %s)" % (a(), stdcpp),
           "frame #5: <unknown function> + 0x94ac3 (%s in %s)" % (a(), libc),
           "frame #6: <unknown function> + 0x126850 (%s in %s)" % (a(), libc), ""]
    return fr


# ----------------------------------------------------------------------------------------------
# startup / NCCL init / training progress
# ----------------------------------------------------------------------------------------------

def emit_startup(R):
    rng = R.rng
    t = R.t0 + rng.uniform(20, 90)
    R.t_train0 = t + rng.uniform(60, 240)
    py = R.stack["py"]
    if R.style == "megatron":
        R.add(t - 10, 0, "using world size: %d, data-parallel size: %d, context-parallel size: 1, tensor-model-parallel size: %d, pipeline-model-parallel size: %d" % (
            R.world, max(1, R.world // 8), min(8, R.gpn), 1 if R.world <= 8 else rng.choice([1, 2, 4])), stream="out")
        R.add(t - 9, 0, "> initializing torch distributed ...", stream="out")
    # c10d socket warning (benign)
    if rng.random() < 0.4:
        r = rng.choice(sorted(R.shown))
        if R.tminor >= 4:
            R.add(t - 20, r, R.c10(r, t - 20, "W", "socket.cpp:752") + "[c10d] The client socket has failed to connect to [%s]:%d (errno: 111 - Connection refused)." % (R.master, R.port))
        else:
            R.add(t - 20, r, "[W socket.cpp:464] [c10d] The server socket has failed to bind to [::]:%d (errno: 98 - Address already in use)." % R.port)
    # NCCL/RCCL init lines
    if R.nccl_debug:
        for r in sorted(R.shown):
            tt = t + rng.uniform(0, 4)
            if R.nccl_debug == "INFO":
                if R.vendor == "amd":
                    if R.ccl_minor >= 21:
                        if r == 0 or rng.random() < 0.25:
                            R.nccl_info(r, tt, "RCCL version : %s-HEAD:%s\nHIP version  : %s\nROCm version : %s.0-%d-%s\nHostname     : %s\nLibrccl path : /opt/rocm-%s/lib/librccl.so.1" % (
                                R.stack["ccl"], R.stack["git"], R.stack["hip"], R.stack["rocm"], rng.randrange(20, 120), R.stack["hip"].split("-")[1], R.host_of(r), R.stack["rocm"]))
                    elif r == 0:
                        R.nccl_info(r, tt, "RCCL version %s+hip%s HEAD:%s" % (R.stack["ccl"], R.stack["rocm"][:3], R.stack["git"]))
                elif r == 0:
                    R.nccl_info(r, tt, "NCCL version %s+cuda%s" % (R.stack["ccl"], R.stack["cuda"]))
                h = R.host_of(r)
                if R.net == "cxi":
                    R.nccl_info(r, tt + 0.01, "NET/OFI Using aws-ofi-rccl 1.4.0")
                    R.nccl_info(r, tt + 0.02, "NET/OFI Selected Provider is cxi (found 4 nics)")
                    R.nccl_info(r, tt + 0.03, "Using network AWS Libfabric")
                elif R.net in ("ib", "roce"):
                    hca = ("bnxt_re" if R.nic == "bnxt_re" else ("ionic_" if R.nic == "ionic" else "mlx5_"))
                    devs = " ".join("[%d]%s%d:1/%s" % (i, hca, i, "RoCE" if R.net == "roce" else "IB") for i in range(min(8, R.gpn)))
                    R.nccl_info(r, tt + 0.01, "NET/IB : Using %s ; OOB %s:%s<0>" % (devs, rng.choice(["eth0", "bond0", "ens21f0"]), R.ip[h]))
                    R.nccl_info(r, tt + 0.02, "Using network IB")
                R.nccl_info(r, tt + 0.04, "comm 0x%x rank %d nRanks %d nNodes %d localRanks %d localRank %d MNNVL %d" % (
                    rng.randrange(0x5500000000, 0x56ffffffff), r, R.world, len(R.hosts), R.gpn, R.lr(r), 1 if R.gpu == "GB200" else 0))
                if R.vendor == "amd":
                    R.nccl_info(r, tt + 0.05, "Channel 00/0 : %d[%d] -> %d[%d] via P2P/IPC comm 0x%x nRanks %02d" % (
                        r, R.lr(r), (r + 1) % R.world, R.lr(r + 1), rng.randrange(0x5500000000, 0x56ffffffff), R.world))
                elif R.gpu == "GB200":
                    R.nccl_info(r, tt + 0.05, "NVLS multicast support is available on dev %d (NVLS_NCHANNELS 24)" % R.lr(r))
                R.nccl_info(r, tt + 0.3, "comm 0x%x rank %d nranks %d cudaDev %d nvmlDev %d busId %s commId 0x%x - Init COMPLETE" % (
                    rng.randrange(0x5500000000, 0x56ffffffff), r, R.world, R.lr(r), R.lr(r),
                    R.gpu_bdf(R.lr(r)).replace("0000:", "").replace(":00.0", "000"), rng.randrange(1 << 60, 1 << 63)))
            # RCCL benign warnings show at WARN level too (decoys)
            if R.vendor == "amd" and (r == 0 or rng.random() < 0.3):
                w = rng.random()
                if w < 0.45:
                    R.nccl_warn(r, tt, "init.cc:%d" % rng.choice([120, 122, 213, 303]), 'Missing "iommu=pt" from kernel command line which can lead to system instablity or hang!', tid=R.pid[r])
                elif w < 0.75:
                    R.nccl_warn(r, tt, "init.cc:%d" % rng.choice([126, 228]), 'Missing "HSA_FORCE_FINE_GRAIN_PCIE=1" from environment which can lead to low RCCL performance, system instablity or hang!', tid=R.pid[r])
                else:
                    R.nccl_warn(r, tt, "init.cc:%d" % rng.choice([140, 236]), 'NUMA auto balancing enabled which can lead to variability in the RCCL performance! Disable by "sudo sysctl kernel.numa_balancing=0"', tid=R.pid[r])
    if R.vendor == "amd" and rng.random() < 0.5:
        r = rng.choice(sorted(R.shown))
        R.add(t + 5, r, "MIOpen(HIP): Warning [SQLiteBase] Missing system database file: %s%s.kdb Performance may degrade. Please follow instructions to install: https://github.com/ROCm/MIOpen#installing-miopen-kernels-package" % (
            R.gi["gfx"], "130" if R.gi["gfx"] == "gfx942" else "_110"))
    if rng.random() < 0.4:
        r = rng.choice(sorted(R.shown))
        R.add(t + 6, r, "%s/torch/distributed/distributed_c10d.py:%d: UserWarning: barrier(): using the device under current context. You can specify `device_id` in `init_process_group` to mute this warning.\n  warnings.warn(  # warn only once" % (site_pkgs(R), rng.choice([4631, 4876, 4807])))


def step_time(R):
    if not hasattr(R, "_step_s"):
        R._step_s = R.rng.uniform(0.9, 9.5)
        R.flags["base_st"] = R._step_s
    return R._step_s


def emit_training(R, t_from, t_to, slow_rank=None, slow=1.0, stop_rank=None):
    """rank-0 (or last rank for Megatron) progress lines between t_from and t_to"""
    rng = R.rng
    st = step_time(R) * (slow if slow_rank is not None else 1.0)
    if not hasattr(R, "_step"):
        R._step = rng.randrange(0, 40) * 100
        R._loss = rng.uniform(2.0, 3.4)
        R.total_steps = R._step + rng.choice([20000, 50000, 100000, 250000])
        R._seq = rng.randrange(200, 2000)
    interval = rng.choice([10, 10, 20, 50, 100])
    if R.style == "hf":
        interval = rng.choice([5, 10, 25])
    t = t_from
    logger_rank = R.world - 1 if R.style == "megatron" else 0
    while t < t_to:
        t += st * interval * rng.uniform(0.97, 1.03)
        if t >= t_to:
            break
        R._step += interval
        R._seq += interval * rng.choice([2, 3, 4])
        R._loss = max(0.6, R._loss - rng.uniform(-0.01, 0.03))
        lr_ = 3e-4 * min(1.0, R._step / 2000.0)
        gn = rng.uniform(0.2, 1.6)
        h = R.host_of(logger_rank)
        if R.style == "megatron":
            msg = " [%s] iteration %8d/%8d | consumed samples: %12d | elapsed time per iteration (ms): %.1f | learning rate: %.6E | global batch size: %5d | lm loss: %.6E | loss scale: 1.0 | grad norm: %.3f | number of skipped iterations:   0 | number of nan iterations:   0 |" % (
                _d(R.ht(t, h), R.tz).strftime("%Y-%m-%d %H:%M:%S"), R._step, R.total_steps, R._step * 512, st * 1000 * rng.uniform(0.98, 1.03), lr_, 512, R._loss, gn)
            R.add(t, logger_rank, msg, stream="out")
        elif R.style == "torchtitan":
            mem = R.gi["mem_gib"] * rng.uniform(0.6, 0.82)
            R.flags.setdefault("mem_frac", rng.uniform(0.6, 0.82))
            R.flags.setdefault("tfl", rng.uniform(180, 420))
            mem = R.gi["mem_gib"] * R.flags["mem_frac"] * rng.uniform(0.995, 1.005)
            tfl = R.flags["tfl"] / (st / R.flags["base_st"]) * rng.uniform(0.98, 1.02)
            msg = "[titan] %s - root - INFO - step: %d  loss: %7.4f  memory: %.2fGiB(%.2f%%)  tps: %s  tflops: %.2f  mfu: %.2f%%" % (
                f_py(R.ht(t, h), R.tz), R._step, R._loss, mem, 100 * mem / R.gi["mem_gib"], format(int(8192 / st * rng.uniform(0.98, 1.02)), ","),
                tfl, tfl / (1300.0 if R.vendor == "amd" else 989.0) * 100)
            R.add(t, 0, ("[rank0]:" + msg) if R.tminor >= 3 else msg, stream="out")
        elif R.style == "hf":
            ep = R._step / 4000.0
            pct = int(100 * R._step / R.total_steps)
            bar = "\r%3d%%|%s%s| %d/%d [%s<%s, %.2fs/it]" % (pct, "█" * (pct // 4), " " * (25 - pct // 4), R._step, R.total_steps,
                                                            "%d:%02d:%02d" % ((t - R.t_train0) // 3600, ((t - R.t_train0) % 3600) // 60, (t - R.t_train0) % 60),
                                                            "%d:%02d:%02d" % (((R.total_steps - R._step) * st) // 3600, (((R.total_steps - R._step) * st) % 3600) // 60, ((R.total_steps - R._step) * st) % 60), st)
            R.add(t, 0, "{'loss': %.4f, 'grad_norm': %.4f, 'learning_rate': %.4e, 'epoch': %.2f}" % (R._loss, gn, lr_, ep), stream="out")
            R.add(t + 0.01, 0, bar.lstrip("\r"), stream="err")
        else:
            R.flags.setdefault("tfl", rng.uniform(120, 390))
            msg = "%s - INFO - train.py:418 - step %d | loss %.4f | lr %.3e | grad_norm %.3f | %.1f TFLOP/s/GPU | %.3f s/it" % (
                f_py(R.ht(t, h), R.tz), R._step, R._loss, lr_, gn, R.flags["tfl"] / (st / R.flags["base_st"]) * rng.uniform(0.98, 1.02), st * rng.uniform(0.99, 1.01))
            R.add(t, 0, msg, stream="out")
    return t


def checkpoint_line(R, t):
    step = getattr(R, "_step", 1000)
    if R.style == "megatron":
        R.add(t, 0, "saving checkpoint at iteration %8d to %s/checkpoints/%s in torch_dist format" % (step, workdir(R), R.model), stream="out")
        R.add(t + 40, 0, "  successfully saved checkpoint from iteration %8d to %s/checkpoints/%s [ t 1/%d, p 1/1 ]" % (step, workdir(R), R.model, min(8, R.gpn)), stream="out")
    else:
        R.add(t, 0, "%s - INFO - checkpoint.py:%d - Saved checkpoint to %s/ckpt/step_%d in %.1fs" % (
            f_py(R.ht(t, R.hosts[0]), R.tz), R.rng.choice([211, 244]), workdir(R), step, R.rng.uniform(20, 90)), stream="out")


# ----------------------------------------------------------------------------------------------
# collateral: watchdog timeouts, peer errors, launcher kills
# ----------------------------------------------------------------------------------------------

def pt_src_path(R):
    if R.vendor == "amd":
        return "/var/lib/jenkins/pytorch/torch/csrc/distributed/c10d"
    return "/pytorch/torch/csrc/distributed/c10d" if R.tminor >= 5 else "../torch/csrc/distributed/c10d"


def numel_out(op, numel, world):
    if op == "_REDUCE_SCATTER_BASE":
        return max(1, numel // max(1, world))
    if op == "_ALLGATHER_BASE":
        return numel * world
    return numel


def watchdog_timeout(R, r, t, op, seq, numel, enq=None, comp=None, world=None):
    """rank r prints the NCCL watchdog timeout and aborts (SIGABRT)."""
    rng = R.rng
    to = R.timeout_ms
    ran = to + rng.randrange(4, 950)
    enq = seq + rng.choice([0, 0, 1, 2]) if enq is None else enq
    comp = seq - 1 if comp is None else comp
    w = world or R.world
    work = "WorkNCCL(SeqNum=%d, OpType=%s, NumelIn=%d, NumelOut=%d, Timeout(ms)=%d)" % (seq, op, numel, numel_out(op, numel, w), to)
    first = "[Rank %d] Watchdog caught collective operation timeout: %s ran for %d milliseconds before timing out." % (r, work, ran)
    src = pt_src_path(R)
    if R.tminor >= 4:
        pg = "[PG ID 0 PG GUID 0(default_pg) Rank %d]" % r
        L = [R.c10(r, t, "E", "ProcessGroupNCCL.cpp:%d" % rng.choice([616, 632, 685])) + first,
             R.c10(r, t + 0.0004, "E", "ProcessGroupNCCL.cpp:%d" % rng.choice([1785, 1834, 2168])) + "%s Exception (either an error or timeout) detected by watchdog at work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (pg, seq, enq, comp),
             R.c10(r, t + 0.0006, "E", "ProcessGroupNCCL.cpp:%d" % rng.choice([630, 668])) + "[Rank %d] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data." % r,
             R.c10(r, t + 0.0007, "E", "ProcessGroupNCCL.cpp:%d" % rng.choice([636, 674])) + "[Rank %d] To avoid data inconsistency, we are taking the entire process down." % r,
             R.c10(r, t + 0.002, "E", "ProcessGroupNCCL.cpp:%d" % rng.choice([1595, 1896, 1515])) + "%s Process group watchdog thread terminated with exception: %s" % (pg, first)]
        what = "%s Process group watchdog thread terminated with exception: %s" % (pg, first)
    else:
        L = [R.c10(r, t, "E", "ProcessGroupNCCL.cpp:563") + first,
             R.c10(r, t, "E", "ProcessGroupNCCL.cpp:1537") + "[PG 0 Rank %d] Timeout at NCCL work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (r, seq, enq, comp),
             R.c10(r, t, "E", "ProcessGroupNCCL.cpp:577") + "[Rank %d] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data." % r,
             R.c10(r, t, "E", "ProcessGroupNCCL.cpp:583") + "[Rank %d] To avoid data inconsistency, we are taking the entire process down." % r,
             R.c10(r, t, "E", "ProcessGroupNCCL.cpp:1414") + "[PG 0 Rank %d] Process group watchdog thread terminated with exception: %s" % (r, first)]
        what = "[PG 0 Rank %d] Process group watchdog thread terminated with exception: %s" % (r, first)
    fr = cpp_frames(R, "watchdog")
    L.append("Exception raised from checkTimeout at %s/ProcessGroupNCCL.cpp:%d (most recent call first):" % (src, rng.choice([618, 635, 688])))
    L += fr
    L.append("terminate called after throwing an instance of 'c10::DistBackendError'")
    L.append("  what():  " + what)
    L.append("Exception raised from checkTimeout at %s/ProcessGroupNCCL.cpp:%d (most recent call first):" % (src, rng.choice([618, 635, 688])))
    L += fr
    L.append("Exception raised from ncclCommWatchdog at %s/ProcessGroupNCCL.cpp:%d (most recent call first):" % (src, rng.choice([1521, 1601, 1902])))
    L += fr[:1] + [fr[4], fr[5], fr[6], ""]
    R.add(t, r, "\n".join(L))
    R.exit(r, t + rng.uniform(0.2, 1.5), -6)


def peer_error(R, r, t, dead_rank):
    """rank r notices that a peer died (socket closed) and aborts."""
    rng = R.rng
    dh = R.host_of(dead_rank)
    port = rng.randrange(33000, 61000)
    R.nccl_warn(r, t, "misc/socket.cc:%d" % rng.choice([47, 50, 64]), "socketProgress: Connection closed by remote peer %s<%d>" % (R.ip[dh], port))
    R.nccl_info(r, t + 0.0001, "misc/socket.cc:%d -> 6" % rng.choice([749, 752, 812]))
    R.nccl_info(r, t + 0.0002, "transport/net_socket.cc:%d -> 6" % rng.choice([474, 511]))
    R.nccl_info(r, t + 0.0003, "proxy.cc:%d -> 6" % rng.choice([1489, 1522, 1702]))
    msg = ("NCCL error: remote process exited or there was a network error, NCCL version %s\n"
           "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.\n"
           "Last error:\nsocketProgress: Connection closed by remote peer %s<%d>") % (R.stack["ccl"], R.ip[dh], port)
    pg = "[PG ID 0 PG GUID 0(default_pg) Rank %d]" % r if R.tminor >= 4 else "[PG 0 Rank %d]" % r
    src = pt_src_path(R)
    fr = cpp_frames(R, "error")
    L = [R.c10(r, t + 0.01, "E", "ProcessGroupNCCL.cpp:%d" % rng.choice([1595, 1896])) + "%s Process group watchdog thread terminated with exception: %s" % (pg, msg),
         "Exception raised from checkForNCCLErrorsInternal at %s/ProcessGroupNCCL.cpp:%d (most recent call first):" % (src, rng.choice([2027, 2363]))] + fr
    L += ["terminate called after throwing an instance of 'c10::DistBackendError'", "  what():  %s Process group watchdog thread terminated with exception: %s" % (pg, msg),
          "Exception raised from checkForNCCLErrorsInternal at %s/ProcessGroupNCCL.cpp:%d (most recent call first):" % (src, rng.choice([2027, 2363]))] + fr
    R.add(t + 0.01, r, "\n".join(L))
    R.exit(r, t + rng.uniform(0.2, 1.2), -6)


def launcher_family(R):
    if R.layout in ("frontier_srun", "gb200_nvl72_srun"):
        return "srun"
    if R.layout == "ds_megatron_rocm":
        return "deepspeed"
    return "torchrun"


def propagate(R, culprit=None, blocked_since=None, wait=None, mode=None, skip=()):
    """Decide how every rank that has not exited yet ends.
    wait = (op, seq, numel); mode = 'watchdog' | 'peer' | None (choose)."""
    rng = R.rng
    fam = launcher_family(R)
    if mode is None:
        mode = "peer" if rng.random() < 0.3 else "watchdog"
    if blocked_since is None:
        blocked_since = R.exits[culprit][0] if culprit in R.exits else R.t_fail
    op, seq, numel = wait if wait else (rng.choice(OPS), rng.randrange(2000, 90000), rng.choice([1, 8388608, 50331648, 67108864, 134217728]))
    # srun kill-on-bad-exit: everything dies quickly after the first bad exit
    if fam == "srun" and getattr(R, "kill_on_bad_exit", False) and R.exits:
        te = min(v[0] for v in R.exits.values())
        for r in range(R.world):
            if r not in R.exits and r not in skip:
                R.exit(r, te + rng.uniform(0.5, 2.5), -15)
        R.flags["srun_killed"] = te
        return
    # local launcher kills peers on the culprit node (torchrun agent / deepspeed launch.py)
    if fam in ("torchrun", "deepspeed") and culprit in R.exits:
        te = R.exits[culprit][0]
        for r in R.ranks_on(R.host_of(culprit)):
            if r not in R.exits and r not in skip:
                R.exit(r, te + rng.uniform(0.05, 1.2), -15)
    remaining = [r for r in range(R.world) if r not in R.exits and r not in skip]
    if not remaining:
        return
    dead = culprit if culprit is not None else None
    if mode == "peer" and dead is not None and dead in R.exits:
        te = R.exits[dead][0]
        for r in remaining:
            peer_error(R, r, te + rng.uniform(0.5, 25), dead)
    else:
        for r in remaining:
            watchdog_timeout(R, r, blocked_since + R.timeout_ms / 1000.0 + rng.uniform(0.0, 2.5), op, seq, numel)
    # after the first exit on each node, the local launcher terminates the rest of that node
    if fam in ("torchrun", "deepspeed"):
        for h in R.hosts:
            loc = R.ranks_on(h)
            ex = sorted((R.exits[r][0], r) for r in loc if r in R.exits)
            if not ex:
                continue
            te = ex[0][0]
            for r in loc:
                if r in R.exits and R.exits[r][0] > te + 1.5 and R.exits[r][1] == -6:
                    R.exits[r] = (te + rng.uniform(0.05, 1.2), -15)


# ----------------------------------------------------------------------------------------------
# node-level text (kernel logs) per vendor
# ----------------------------------------------------------------------------------------------

def kernel_noise(R, host, t_from, t_to, n=None):
    """benign kernel lines for an attached node log (returned, not stored)"""
    rng = R.rng
    out = []
    n = n if n is not None else rng.randrange(6, 18)
    pool = ["perf: interrupt took too long (%d > %d), lowering kernel.perf_event_max_sample_rate to %d" % (rng.randrange(2501, 4000), 2500, rng.choice([79750, 63750, 50000])),
            "audit: type=1400 audit(%d.%03d:%d): apparmor=\"DENIED\" operation=\"open\" class=\"file\" profile=\"snap.lxd.activate\" name=\"/proc/%d/mounts\" pid=%d comm=\"snap-exec\" requested_mask=\"r\" denied_mask=\"r\" fsuid=0 ouid=0" % (int(t_from), rng.randrange(1000), rng.randrange(100, 999), rng.randrange(1000, 9999), rng.randrange(1000, 9999)),
            "IPv6: ADDRCONF(NETDEV_CHANGE): %s: link becomes ready" % rng.choice(["veth3a9c1e2", "cali7a9e3f1b2c4", "flannel.1"]),
            "nvme nvme0: I/O %d QID %d timeout, completion polled" % (rng.randrange(100, 999), rng.randrange(1, 64)),
            "EXT4-fs (nvme0n1p2): mounted filesystem with ordered data mode. Quota mode: none.",
            "Lustre: %s-OST%04x-osc-ffff%012x: Connection restored to %s@o2ib (at %s@o2ib)" % (rng.choice(["orion", "lustrefs", "scratch"]), rng.randrange(0, 300), rng.randrange(1 << 44), "10.%d.%d.%d" % (rng.randrange(1, 200), rng.randrange(0, 200), rng.randrange(1, 250)), "10.%d.%d.%d" % (rng.randrange(1, 200), rng.randrange(0, 200), rng.randrange(1, 250))),
            "systemd-journald[%d]: Data hash table of /var/log/journal/%032x/system.journal has a fill level at 75.0 (%d of %d items, %d file size, %d bytes per hash table item), suggesting rotation." % (rng.randrange(300, 3000), rng.randrange(1 << 120), 174762, 233016, 134217728, 576),
            "hrtimer: interrupt took %d ns" % rng.randrange(10000, 90000)]
    if R.vendor == "amd":
        pool += ["amdgpu: Freeing queue vital buffer 0x%x, queue evicted" % (rng.randrange(0x7f0000000000, 0x7fffffffffff) & ~0xfff),
                 "kfd kfd: amdgpu: Allocated %d bytes on gart" % rng.choice([3932160, 4194304])]
    else:
        pool += ["nvidia-nvswitch: Probing device 0000:%02x:00.0, Vendor Id = 0x10de, Device Id = 0x22a3, Class = 0x68000" % rng.randrange(5, 9) if R.gpu != "GB200" else "NVRM: GPU at %s has software scheduling enabled." % R.gpu_bdf(0),
                 "NVRM: loading NVIDIA UNIX Open Kernel Module for %s  %s  Release Build  (dvs-builder@U16-I3-B03-4-1)  %s" % ("aarch64" if R.gpu == "GB200" else "x86_64", R.stack["driver"], _d(R.boot[host] if host in R.boot else t_from, 0).strftime("%a %b %d %H:%M:%S UTC %Y"))]
    for _ in range(n):
        out.append((rng.uniform(t_from, t_to), rng.choice(pool)))
    return out


def amd_reset_seq(R, host, lg, t, fail=False, hang_text=True):
    b = R.gpu_bdf(lg)
    rng = R.rng
    if hang_text:
        R.k(host, t, "amdgpu %s: amdgpu: Queue preemption failed for queue with doorbell_id: %x" % (b, rng.randrange(0x80000000, 0x8000ffff)))
        R.k(host, t + 0.0001, "amdgpu %s: amdgpu: Failed to evict process queues" % b)
        R.k(host, t + 0.0003, "amdgpu %s: amdgpu: The cp might be in an unrecoverable state due to an unsuccessful queues preemption" % b)
    R.k(host, t + 0.05, "amdgpu %s: amdgpu: GPU reset begin!" % b)
    R.k(host, t + 0.07, "amdgpu %s: amdgpu: Dumping IP State" % b)
    R.k(host, t + 0.071, "amdgpu %s: amdgpu: Dumping IP State Completed" % b)
    for i in range(rng.randrange(2, 6)):
        R.k(host, t + 0.08 + i * 0.0001, "amdgpu: Failed to restore process queues")
    R.k(host, t + 0.09, "amdgpu %s: amdgpu: MODE1 reset" % b)
    R.k(host, t + 0.0901, "amdgpu %s: amdgpu: GPU mode1 reset" % b)
    R.k(host, t + 0.092, "amdgpu %s: amdgpu: GPU smu mode1 reset" % b)
    if fail:
        R.k(host, t + 4.8, "amdgpu %s: amdgpu: GPU reset(%d) failed" % (b, rng.randrange(2, 6)))
        R.k(host, t + 4.81, "amdgpu %s: amdgpu: GPU reset end with ret = -110" % b)
    else:
        R.k(host, t + 4.8, "amdgpu %s: amdgpu: GPU reset succeeded, trying to resume" % b)
        R.k(host, t + 4.81, "[drm] PCIE GART of 512M enabled.")
        R.k(host, t + 4.82, "[drm] VRAM is lost due to GPU reset!")
        R.k(host, t + 5.4, "amdgpu %s: amdgpu: GPU reset(%d) succeeded!" % (b, rng.randrange(2, 6)))


def nv_xid(R, host, lg, t, xid, pid, name, text):
    R.k(host, t, "NVRM: Xid (%s): %d, pid=%s, name=%s, %s" % (R.xid_pci(lg), xid, pid, name, text))


# ----------------------------------------------------------------------------------------------
# smi / tool snapshots
# ----------------------------------------------------------------------------------------------

def rocm_smi_concise(R, host, t):
    rng = R.rng
    W = 122
    L = ["=" * 44 + " ROCm System Management Interface " + "=" * 44,
         "=" * 54 + " Concise Info " + "=" * 54,
         "Device  Node  IDs              Temp        Power     Partitions          SCLK    MCLK    Fan  Perf  PwrCap  VRAM%  GPU%",
         "              (DID,     GUID)  (Junction)  (Socket)  (Mem, Compute, ID)                                                  ",
         "=" * W]
    for g in range(R.gpn):
        st = R.gpu_state.get((host, g), {})
        guid = R.rng.randrange(1000, 65535)
        if st.get("lost"):
            L.append("%-7d %-5d %-16s %-11s %-9s %-19s %-7s %-7s %-4s %-5s %-7s %-6s %s" % (
                g, R.kfd_base + g, "N/A,      N/A", "N/A", "N/A", "N/A", "N/A", "N/A", "0%", "N/A", "N/A", "N/A", "N/A"))
            continue
        busy = R.cause == "straggler"
        temp = st.get("temp", rng.uniform(62, 78) if busy else rng.uniform(38, 52))
        pw = st.get("power", rng.uniform(480, 560) if busy else rng.uniform(120, 160))
        sclk = st.get("sclk", 2100 if busy else rng.choice([131, 132, 132, 1420, 2100]))
        part = "NPS1, SPX, 0" if R.gpu != "MI250X" else "N/A, N/A, 0"
        vram = st.get("vram", rng.choice([70, 71, 72]) if busy else rng.choice([0, 1, 1]))
        if busy and "util" not in st:
            st = dict(st, util=100)
        L.append("%-7d %-5d %-16s %-11s %-9s %-19s %-7s %-7s %-4s %-5s %-7s %-6s %s" % (
            g, R.kfd_base + g, "%s,   %d" % (R.gi["did"], guid), "%.1f°C" % temp, "%.1fW" % pw, part, "%dMhz" % sclk,
            "%dMhz" % (1600 if R.gpu == "MI250X" else 900), "0%", "auto", R.gi["pwr"], "%d%%" % vram, "%d%%" % st.get("util", 0)))
    L.append("=" * W)
    L.append("=" * 50 + " End of ROCm SMI Log " + "=" * 51)
    return L


def rocm_smi_bus(R, host):
    L = ["", "", "=" * 24 + " ROCm System Management Interface " + "=" * 24, "=" * 31 + " PCI Bus ID " + "=" * 39]
    for g in range(R.gpn):
        L.append("GPU[%d]\t\t: PCI Bus: %s" % (g, R.gpu_bdf(g).upper().replace("0000:", "0000:")))
    L.append("=" * 82)
    L.append("=" * 31 + " End of ROCm SMI Log " + "=" * 30)
    return L


def rocm_smi_ras(R, host):
    L = ["", "=" * 24 + " ROCm System Management Interface " + "=" * 24, "=" * 37 + " RAS Info " + "=" * 35]
    for g in range(R.gpn):
        st = R.gpu_state.get((host, g), {})
        L.append("")
        L.append("GPU[%d]:         RAS INFO" % g)
        L.append("         Block       Status    Correctable Error  Uncorrectable Error  ")
        for blk in ["UMC", "SDMA", "GFX", "MMHUB", "PCIE_BIF", "HDP", "XGMI_WAFL"]:
            ce = st.get("ce_" + blk.lower(), 0)
            ue = st.get("ue_" + blk.lower(), 0)
            L.append("%14s        ENABLED  %17d  %19d  " % (blk, ce, ue))
    L.append("=" * 82)
    L.append("=" * 31 + " End of ROCm SMI Log " + "=" * 30)
    return L


def amd_smi_list(R, host):
    rng = R.rng
    L = []
    for g in range(R.gpn):
        L += ["GPU: %d" % g, "    BDF: %s" % R.gpu_bdf(g), "    UUID: %08x-0000-1000-80%02x-%012x" % (rng.randrange(1 << 32), rng.randrange(256), rng.randrange(1 << 48)),
              "    KFD_ID: %d" % rng.randrange(1000, 65000), "    NODE_ID: %d" % (R.kfd_base + g), "    PARTITION_ID: 0", ""]
    return L


def amd_smi_ecc(R, host):
    L = []
    for g in range(R.gpn):
        st = R.gpu_state.get((host, g), {})
        if st.get("lost"):
            L += ["GPU: %d" % g, "    ECC: N/A", "    ECC_BLOCKS: N/A", ""]
            continue
        tce = sum(v for k_, v in st.items() if k_.startswith("ce_"))
        tue = sum(v for k_, v in st.items() if k_.startswith("ue_"))
        L += ["GPU: %d" % g, "    ECC:", "        TOTAL_CORRECTABLE_COUNT: %d" % tce, "        TOTAL_UNCORRECTABLE_COUNT: %d" % tue,
              "        TOTAL_DEFERRED_COUNT: %d" % st.get("deferred", 0), "        CACHE_CORRECTABLE_COUNT: 0", "        CACHE_UNCORRECTABLE_COUNT: 0",
              "    ECC_BLOCKS:"]
        for blk in ["UMC", "SDMA", "GFX", "MMHUB", "PCIE_BIF", "HDP", "XGMI_WAFL"]:
            L += ["        %s:" % blk, "            CORRECTABLE_COUNT: %d" % st.get("ce_" + blk.lower(), 0),
                  "            UNCORRECTABLE_COUNT: %d" % st.get("ue_" + blk.lower(), 0), "            DEFERRED_COUNT: 0"]
        L.append("")
    return L


def nvidia_smi_table(R, host, t):
    rng = R.rng
    d = _d(t, R.tz)
    mem = int(R.gi["mem_gib"] * 1024 * 1.0078)
    cap = {"H100": 700, "H200": 700, "GB200": 1200}.get(R.gpu, 700)
    top = "NVIDIA-SMI %s" % R.stack["driver"]
    mid = "Driver Version: %s" % R.stack["driver"]
    L = [d.strftime("%a %b ") + "%2d" % d.day + d.strftime(" %H:%M:%S %Y"),
         "+" + "-" * 89 + "+",
         "| " + top.ljust(30) + mid.ljust(32) + ("CUDA Version: %s" % R.stack["cuda"]).ljust(26) + "|",
         "|" + "-" * 41 + "+" + "-" * 24 + "+" + "-" * 22 + "+",
         "| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |",
         "| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |",
         "|                                         |                        |               MIG M. |",
         "|" + "=" * 41 + "+" + "=" * 24 + "+" + "=" * 22 + "|"]
    for g in range(R.gpn):
        st = R.gpu_state.get((host, g), {})
        bus = ("0000000" + R.gpu_bdf(g).upper()[4:]) if ":" in R.gi["bdfs"][0] else "00000000:%s:00.0" % R.gi["bdfs"][g].upper()
        if st.get("lost"):
            continue
        ecc = str(st.get("ue_umc", 0))
        nm = R.gi["name"][:28]
        busy = R.cause == "straggler"
        pw = st.get("power", rng.randrange(560, 690) if busy else rng.randrange(68, 130))
        used = st.get("memused", int(mem * rng.uniform(0.7, 0.8)) if busy else rng.choice([1, 4, 4]))
        if busy:
            st = dict(st, util=st.get("util", 100), temp=st.get("temp", rng.randrange(55, 70)))
        L.append("|" + ("   %d  %s" % (g, nm)).ljust(37) + "On  " + "|" + ("   %s Off " % bus).rjust(24) + "|" + ecc.rjust(21) + " |")
        L.append("|" + (" N/A   %2dC    P0" % st.get("temp", rng.randrange(29, 41))) + ("%dW / %4dW" % (pw, cap)).rjust(24) + " |" +
                 ("%dMiB / %6dMiB" % (used, mem)).rjust(23) + " |" + ("%d%%" % st.get("util", 0)).rjust(8) + "      Default |")
        L.append("|                                         |                        |             Disabled |")
        L.append("+" + "-" * 41 + "+" + "-" * 24 + "+" + "-" * 22 + "+")
    lost = [g for g in range(R.gpn) if R.gpu_state.get((host, g), {}).get("lost")]
    out = []
    for g in lost:
        out.append("Unable to determine the device handle for GPU%s: Unknown Error" % (R.gpu_bdf(g).upper() if ":" in R.gi["bdfs"][0] else "0000:%s:00.0" % R.gi["bdfs"][g].upper()))
    if lost and R.rng.random() < 0.5:
        return out
    return out + L + ["", "+" + "-" * 89 + "+",
                      "| Processes:" + " " * 78 + "|",
                      "|  GPU   GI   CI              PID   Type   Process name                        GPU Memory |",
                      "|        ID   ID                                                               Usage      |",
                      "|" + "=" * 89 + "|",
                      "|  No running processes found" + " " * 61 + "|",
                      "+" + "-" * 89 + "+"]


def nvidia_smi_q(R, host, t, sections=("ECC", "ROWS")):
    d = _d(t, R.tz)
    L = ["", "==============NVSMI LOG==============", "",
         "Timestamp                                 : %s %2d %s" % (d.strftime("%a %b"), d.day, d.strftime("%H:%M:%S %Y")),
         "Driver Version                            : %s" % R.stack["driver"], "CUDA Version                              : %s" % R.stack["cuda"], "",
         "Attached GPUs                             : %d" % R.gpn]
    for g in range(R.gpn):
        st = R.gpu_state.get((host, g), {})
        bus = ("0000000" + R.gpu_bdf(g).upper()[4:]) if ":" in R.gi["bdfs"][0] else "00000000:%s:00.0" % R.gi["bdfs"][g].upper()
        L.append("GPU %s" % bus)
        if st.get("lost"):
            L.append("    Product Name                          : Unknown Error")
            continue
        L.append("    Product Name                          : %s" % R.gi["name"])
        if "ECC" in sections:
            L += ["    ECC Mode", "        Current                           : Enabled", "        Pending                           : Enabled",
                  "    ECC Errors", "        Volatile",
                  "            SRAM Correctable              : %d" % st.get("ce_sram", 0),
                  "            SRAM Uncorrectable Parity     : 0",
                  "            SRAM Uncorrectable SEC-DED    : %d" % st.get("ue_sram", 0),
                  "            DRAM Correctable              : %d" % st.get("ce_umc", 0),
                  "            DRAM Uncorrectable            : %d" % st.get("ue_umc", 0),
                  "        Aggregate",
                  "            SRAM Correctable              : %d" % st.get("ce_sram", 0),
                  "            SRAM Uncorrectable Parity     : 0",
                  "            SRAM Uncorrectable SEC-DED    : %d" % st.get("ue_sram", 0),
                  "            DRAM Correctable              : %d" % (st.get("ce_umc", 0) + st.get("agg_ce", 0)),
                  "            DRAM Uncorrectable            : %d" % st.get("ue_umc", 0),
                  "            SRAM Threshold Exceeded       : No"]
        if "ROWS" in sections:
            L += ["    Remapped Rows", "        Correctable Error                 : %d" % st.get("rr_ce", 0),
                  "        Uncorrectable Error               : %d" % st.get("rr_ue", 0),
                  "        Pending                           : %s" % ("Yes" if st.get("rr_pending") else "No"),
                  "        Remapping Failure Occurred        : %s" % ("Yes" if st.get("rr_fail") else "No")]
        if "PERF" in sections:
            thr = st.get("throttle")
            L += ["    Clocks Event Reasons", "        Idle                              : Not Active",
                  "        Applications Clocks Setting       : Not Active",
                  "        SW Power Cap                      : %s" % ("Active" if thr == "power" else "Not Active"),
                  "        HW Slowdown                       : %s" % ("Active" if thr == "thermal" else "Not Active"),
                  "            HW Thermal Slowdown           : %s" % ("Active" if thr == "thermal" else "Not Active"),
                  "            HW Power Brake Slowdown       : Not Active",
                  "        Sync Boost                        : Not Active",
                  "        SW Thermal Slowdown               : %s" % ("Active" if thr == "thermal" else "Not Active"),
                  "        Display Clock Setting             : Not Active",
                  "    Temperature", "        GPU Current Temp                  : %d C" % st.get("temp", R.rng.randrange(30, 45)),
                  "    Clocks", "        SM                                : %d MHz" % st.get("smclk", 1980)]
        if "FABRIC" in sections:
            L += ["    Fabric", "        State                             : Completed",
                  "        Status                            : Success",
                  "        CliqueId                          : %d" % R.flags.setdefault("clique", R.rng.randrange(1000, 32000)),
                  "        ClusterUUID                       : %s" % R.flags.setdefault("cuuid", "%08x-%04x-%04x-%04x-%012x" % (R.rng.randrange(1 << 32), R.rng.randrange(1 << 16), R.rng.randrange(1 << 16), R.rng.randrange(1 << 16), R.rng.randrange(1 << 48))),
                  "        Health",
                  "            Bandwidth                     : %s" % ("Degraded" if st.get("nvl_down") else "Full")]
    return L


# ----------------------------------------------------------------------------------------------
# causes
# ----------------------------------------------------------------------------------------------

def begin(R, culprit=None, keep=True, t_fail=None, extra=()):
    rng = R.rng
    set_shown(R, culprit, keep, extra)
    emit_startup(R)
    if t_fail is None:
        t_fail = R.t_train0 + rng.uniform(900, 5.5 * 3600)
    R.t_fail = t_fail
    mid = R.t_train0 + (t_fail - R.t_train0) * rng.uniform(0.3, 0.8)
    t = emit_training(R, R.t_train0, mid)
    if rng.random() < 0.5:
        checkpoint_line(R, t + 1)
        t += 45
    emit_training(R, t, t_fail)
    return t_fail


def pick_culprit(R, avoid_zero=True):
    rng = R.rng
    c = rng.randrange(R.world)
    if avoid_zero and c == 0 and R.world > 2 and rng.random() < 0.7:
        c = rng.randrange(1, R.world)
    return c


def handle(R):
    return "0x%x" % (R.rng.randrange(0x55d000000000, 0x5eff00000000) & ~0xf)


def set_truth(R, rank, node, drain=False, evidence=True):
    R.truth_rank = rank
    R.truth_node = node
    R.drain = drain
    R.evidence_rank = evidence


def exc_block(R, r, t, frames, exc):
    p = R.tb_prefix(r)
    R.add(t, r, "\n".join(p + l for l in traceback_lines(R, frames, exc)))


def c_gpu_hardware(R):
    rng = R.rng
    c = pick_culprit(R)
    h, lg = R.host_of(c), R.lr(c)
    keep = rng.random() < 0.8
    t = begin(R, c, keep)
    keep = c in R.shown
    R.node_files.append(h)
    ev = keep
    if R.vendor == "amd":
        fail = rng.random() < 0.5
        node = R.kfd_base + lg
        amd_reset_seq(R, h, lg, t + rng.uniform(0.2, 2.0), fail=fail)
        per_task = R.layout == "frontier_srun"
        printers = [c] if per_task else [r for r in R.ranks_on(h) if rng.random() < 0.85 or r == c]
        for r in printers:
            R.add(t + rng.uniform(2.1, 2.6), r, "HW Exception by GPU node-%d (Agent handle: %s) reason :GPU Hang" % (node, handle(R)))
            R.exit(r, t + rng.uniform(2.7, 3.4), -6)
        for g in range(R.gpn):
            R.gpu_state[(h, g)] = dict(vram=rng.choice([74, 75]), sclk=132)
        R.gpu_state[(h, lg)] = dict(lost=fail, vram=75, sclk=132)
        if not per_task:
            # many ranks on the node print the same node-N; the map node-N -> GPU index comes from the smi files
            R.flags["need_map"] = True
            ev = True
        R.notes.append("AMD GPU hang on %s GPU%d (KFD node-%d, %s), reset %s; HW Exception printed by %d process(es)" % (
            h, lg, node, R.gpu_bdf(lg), "failed" if fail else "succeeded but job dead", len(printers)))
    else:
        v = rng.choice(["xid79", "xid79", "gsp"])
        pid = R.pid[c]
        if v == "xid79":
            R.k(h, t + 0.3, "NVRM: Xid (%s): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus." % R.xid_pci(lg))
            R.k(h, t + 0.31, "NVRM: GPU %s: GPU has fallen off the bus." % R.gpu_bdf(lg))
            R.k(h, t + 0.32, "NVRM: GPU Board Serial Number: %d" % rng.randrange(1320000000000, 1659999999999))
            R.k(h, t + 0.4, "NVRM: A GPU crash dump has been created. If possible, please run\nNVRM: nvidia-bug-report.sh as root to collect this data before\nNVRM: the NVIDIA kernel module is unloaded.")
            err = "CUDA error: unspecified launch failure"
        else:
            R.k(h, t + 0.3, "NVRM: Xid (%s): 119, pid=%d, name=pt_main_thread, Timeout after 6s of waiting for RPC response from GPU%d GSP! Expected function 76 (GSP_RM_CONTROL) (0x20800a4c 0x4)." % (R.xid_pci(lg), pid, lg))
            R.k(h, t + 6.4, "NVRM: Xid (%s): 119, pid=%d, name=pt_main_thread, Timeout after 6s of waiting for RPC response from GPU%d GSP! Expected function 10 (FREE) (0xa55a00d0 0x0)." % (R.xid_pci(lg), pid, lg))
            R.k(h, t + 6.5, "NVRM: Xid (%s): 154, GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)" % R.xid_pci(lg))
            err = "CUDA error: unspecified launch failure"
        pgs = "[PG ID 0 PG GUID 0(default_pg) Rank %d]" % c if R.tminor >= 4 else "[PG 0 Rank %d]" % c
        lines = ["%s Process group watchdog thread terminated with exception: %s" % (pgs, err)]
        body = (R.c10(c, t + 7, "E", "ProcessGroupNCCL.cpp:1595") + lines[0].strip() +
                "\nCUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n"
                + "Exception raised from c10_cuda_check_implementation at %s/c10/cuda/CUDAException.cpp:43 (most recent call first):\n" % pt_src_path(R).replace("/torch/csrc/distributed/c10d", "")
                + "\n".join(cpp_frames(R, "error"))
                + "terminate called after throwing an instance of 'c10::DistBackendError'\n  what():  " + lines[0].strip())
        R.add(t + 7, c, body)
        R.exit(c, t + 7.5, -6)
        R.gpu_state[(h, lg)] = dict(lost=True)
        R.notes.append("NVIDIA %s on %s GPU%d (%s)" % ("Xid 79 fell off the bus" if v == "xid79" else "Xid 119 GSP RPC timeout", h, lg, R.gpu_bdf(lg)))
    set_truth(R, c, h, True, ev)
    op = rng.choice(OPS)
    propagate(R, culprit=c, blocked_since=t, wait=(op, rng.randrange(3000, 90000), rng.choice([16777216, 50331648, 134217728])))


def c_ecc_memory(R):
    rng = R.rng
    c = pick_culprit(R)
    h, lg = R.host_of(c), R.lr(c)
    keep = rng.random() < 0.8
    t = begin(R, c, keep)
    keep = c in R.shown
    R.node_files.append(h)
    b = R.gpu_bdf(lg)
    if R.vendor == "amd":
        if R.gpu == "MI250X":
            R.k(h, t + 0.1, "amdgpu %s: amdgpu: %d uncorrectable hardware errors detected in umc block" % (b, rng.randrange(1, 3)))
            R.k(h, t + 0.12, "amdgpu %s: amdgpu: RAS poison consumption, fall back to gpu reset flow: client id %d" % (b, rng.choice([12, 13, 21])))
        else:
            ev = rng.randrange(1, 30)
            s, d_ = rng.randrange(0, 8), rng.randrange(0, 4)
            R.k(h, t + 0.08, "amdgpu %s: {%d}Poison is created" % (b, ev))
            R.k(h, t + 0.1, "amdgpu %s: {%d}poison is consumed by client %d, kick off gpu reset flow" % (b, ev + 1, rng.choice([12, 13, 21])))
            n = rng.randrange(1, 4)
            R.k(h, t + 0.2, "amdgpu %s: {%d}socket: %d, die: %d, %d new uncorrectable hardware errors detected in umc block" % (b, ev + 2, s, d_, n))
            R.k(h, t + 0.2001, "amdgpu %s: {%d}socket: %d, die: %d, %d uncorrectable hardware errors detected in total in umc block" % (b, ev + 2, s, d_, n))
        amd_reset_seq(R, h, lg, t + 0.3, fail=rng.random() < 0.3, hang_text=False)
        addr = hexaddr(rng)
        R.add(t + 0.25, c, "Memory access fault by GPU node-%d (Agent handle: %s) on address %s. Reason: DRAM ECC failure." % (R.kfd_base + lg, handle(R), addr))
        R.exit(c, t + 0.6, -6)
        R.gpu_state[(h, lg)] = dict(ue_umc=rng.randrange(1, 4), ce_umc=rng.randrange(0, 40))
        R.notes.append("AMD UMC uncorrectable ECC / poison consumption on %s GPU%d (%s, node-%d)" % (h, lg, b, R.kfd_base + lg))
    else:
        pid = R.pid[c]
        v = rng.choice(["dbe", "xid94", "xid95"])
        if v == "dbe":
            nv_xid(R, h, lg, t + 0.1, 48, pid, "python", "An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition %d, subpartition %d." % (rng.randrange(0, 12), rng.randrange(0, 2)))
        elif v == "xid94":
            nv_xid(R, h, lg, t + 0.1, 94, pid, "pt_main_thread", "Contained ECC error.")
        else:
            nv_xid(R, h, lg, t + 0.1, 95, pid, "pt_main_thread", "Uncontained ECC error.")
        R.k(h, t + 0.2, "NVRM: Xid (%s): 63, pid='<unknown>', name=<unknown>, Row Remapper: New row (0x%08x) marked for remapping, reset gpu to activate." % (R.xid_pci(lg), rng.randrange(1 << 28)))
        err = "CUDA error: uncorrectable ECC error encountered"
        pg = "[PG ID 0 PG GUID 0(default_pg) Rank %d]" % c if R.tminor >= 4 else "[PG 0 Rank %d]" % c
        body = (R.c10(c, t + 0.4, "E", "ProcessGroupNCCL.cpp:1595") + "%s Process group watchdog thread terminated with exception: %s\n" % (pg, err)
                + "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n\n"
                + "terminate called after throwing an instance of 'c10::DistBackendError'\n  what():  %s Process group watchdog thread terminated with exception: %s" % (pg, err))
        R.add(t + 0.4, c, body)
        R.exit(c, t + 0.9, -6)
        R.gpu_state[(h, lg)] = dict(ue_umc=rng.randrange(1, 3), rr_ue=1, rr_pending=True, ce_umc=rng.randrange(0, 12))
        R.notes.append("NVIDIA uncorrectable ECC (%s) on %s GPU%d" % (v, h, lg))
    set_truth(R, c, h, True, keep)
    propagate(R, culprit=c, blocked_since=t)


def c_nvlink(R):
    rng = R.rng
    c = pick_culprit(R)
    h, lg = R.host_of(c), R.lr(c)
    keep = rng.random() < 0.8
    t = begin(R, c, keep)
    keep = c in R.shown
    R.node_files.append(h)
    b = R.gpu_bdf(lg)
    ev = keep
    if R.vendor == "amd":
        n = rng.randrange(1, 6)
        if R.gpu == "MI250X":
            R.k(h, t + 0.05, "amdgpu %s: amdgpu: %d uncorrectable hardware errors detected in xgmi_wafl block" % (b, n))
        else:
            e = rng.randrange(1, 40)
            sk, di = rng.randrange(8), rng.randrange(4)
            R.k(h, t + 0.05, "amdgpu %s: {%d}socket: %d, die: %d, %d new uncorrectable hardware errors detected in xgmi_wafl block" % (b, e, sk, di, n))
            R.k(h, t + 0.0501, "amdgpu %s: {%d}socket: %d, die: %d, %d uncorrectable hardware errors detected in total in xgmi_wafl block" % (b, e, sk, di, n))
        variant = rng.choice(["hive_reset", "stall"])
        R.gpu_state[(h, lg)] = dict(ue_xgmi_wafl=n, ce_xgmi_wafl=rng.randrange(0, 3000))
        if variant == "hive_reset":
            # an xGMI hive resets together: every GPU on the node reports a reset and every local process dies
            for g in range(R.gpn):
                R.k(h, t + 0.1 + g * 0.0003, "amdgpu %s: amdgpu: GPU reset begin!" % R.gpu_bdf(g))
            for g in range(R.gpn):
                R.k(h, t + 0.2 + g * 0.0002, "amdgpu %s: amdgpu: MODE1 reset" % R.gpu_bdf(g))
            for g in range(R.gpn):
                R.k(h, t + 5.1 + g * 0.001, "amdgpu %s: amdgpu: GPU reset succeeded, trying to resume" % R.gpu_bdf(g))
            for r in R.ranks_on(h):
                R.add(t + rng.uniform(0.3, 0.6), r, "HW Exception by GPU node-%d (Agent handle: %s) reason :GPU Hang" % (R.kfd_base + R.lr(r), handle(R)))
                R.exit(r, t + rng.uniform(0.7, 1.2), -6)
            R.flags["need_map"] = True
            ev = True
            propagate(R, culprit=c, blocked_since=t)
        else:
            # RCCL P2P/IPC traffic over the bad link stalls; every rank ends in a watchdog timeout
            op = rng.choice(OPS)
            seq = rng.randrange(3000, 90000)
            numel = rng.choice([50331648, 134217728])
            for r in range(R.world):
                watchdog_timeout(R, r, t + R.timeout_ms / 1000.0 + rng.uniform(0, 2), op, seq, numel, enq=seq, comp=seq - 1)
            R.flags["need_map"] = True
            ev = True
            if launcher_family(R) in ("torchrun", "deepspeed"):
                propagate(R, culprit=None, blocked_since=t)
        R.notes.append("AMD xGMI (Infinity Fabric) uncorrectable errors on %s GPU%d (%s), variant %s" % (h, lg, b, variant))
    else:
        pid = R.pid[c]
        if R.gpu == "GB200":
            link = rng.randrange(0, 18)
            R.k(h, t + 0.05, "NVRM: Xid (%s): 149, NETIR_LINK_EVT Fatal XC0 i0 Link %02d (0x025001c6 0x00000000 0x00000000 0x00000000 0x00000000 0x00000000)" % (R.xid_pci(lg), link))
            R.k(h, t + 0.06, "NVRM: Xid (%s): 45, pid=%d, name=python3, Ch 00000001 caused by previous Xid 149" % (R.xid_pci(lg), pid))
        else:
            link = rng.randrange(0, 18)
            R.k(h, t + 0.05, "NVRM: Xid (%s): 74, pid=%d, name=pt_main_thread, NVLink: fatal error detected on link %d(0x0, 0x0, 0x10000, 0x0, 0x0, 0x0, 0x0)" % (R.xid_pci(lg), pid, link))
        R.gpu_state[(h, lg)] = dict(nvl_down=True, nvl_link=link)
        err = "CUDA error: uncorrectable NVLink error detected during the execution"
        pg = "[PG ID 0 PG GUID 0(default_pg) Rank %d]" % c if R.tminor >= 4 else "[PG 0 Rank %d]" % c
        R.add(t + 0.5, c, R.c10(c, t + 0.5, "E", "ProcessGroupNCCL.cpp:1595") + "%s Process group watchdog thread terminated with exception: %s\n" % (pg, err)
              + "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n\n"
              + "terminate called after throwing an instance of 'c10::DistBackendError'\n  what():  %s Process group watchdog thread terminated with exception: %s" % (pg, err))
        R.exit(c, t + 0.9, -6)
        R.notes.append("NVIDIA NVLink fatal error link %d on %s GPU%d" % (link, h, lg))
        propagate(R, culprit=c, blocked_since=t)
    set_truth(R, c, h, True, ev)


def c_network(R):
    rng = R.rng
    fabric_wide = rng.random() < 0.18 and len(R.hosts) >= 4
    if len(R.hosts) == 1:
        # single node: the NIC still carries the rendezvous / TCP store traffic; treat as NIC on that node
        pass
    c = pick_culprit(R)
    h, lg = R.host_of(c), R.lr(c)
    keep = rng.random() < 0.8
    t = begin(R, c, keep)
    keep = c in R.shown
    peer_host = rng.choice([x for x in R.hosts if x != h]) if len(R.hosts) > 1 else h
    peer = R.hosts.index(peer_host) * R.gpn + lg
    op = rng.choice(OPS)
    seq = rng.randrange(3000, 90000)
    if fabric_wide:
        pool = sorted(R.shown)
        reporters = sorted(rng.sample(pool, min(len(pool), rng.randrange(4, 12))))
        for r in reporters:
            ph = rng.choice([x for x in R.hosts if x != R.host_of(r)])
            _ib_warn(R, r, t + rng.uniform(0, 20), R.ip[ph])
        for r in reporters:
            _net_abort(R, r, t + rng.uniform(21, 30), "NET/IB")
        propagate(R, culprit=reporters[0], blocked_since=t, wait=(op, seq, 67108864), mode="watchdog")
        set_truth(R, None, None, False, False)
        R.notes.append("fabric-wide IB/RoCE failure: completions with error 12 on %d ranks across many nodes, no single link-down node" % len(reporters))
        return
    R.node_files.append(h)
    if R.net == "cxi":
        nic = lg // 2
        bus = ["c3", "c4", "c5", "c6"][nic]
        R.k(h, t, "cxi_core 0000:%s:00.0: cxi%d[hsn%d] CXI_EVENT_LINK_DOWN" % (bus, nic, nic))
        if rng.random() < 0.6:
            R.k(h, t + 0.5, "cxi_core 0000:%s:00.0: cxi%d[hsn%d]: C_EC_UNCOR_NS: C1_PCT error: tct_cam_ucor (42) (was first error at %d:%09d)" % (bus, nic, nic, int(t) - 1, rng.randrange(10 ** 9)))
        for r in [x for x in R.ranks_on(h) if R.lr(x) // 2 == nic]:
            tt = t + rng.uniform(2, 9)
            if rng.random() < 0.5:
                R.add(tt, r, "libfabric:%d:%d::cxi:ep_data:report_send_completion():%d<warn> %s: TXC (0x%x:0):\nRequest dest_addr: %d caddr.nic: 0X%X caddr.pid: %d rxc_id: 0  error: 0x%x (err: 5, UNDELIVERABLE)" % (
                    R.pid[r], int(tt), rng.choice([4344, 3570]), R.xname.get(h, h), rng.randrange(0x900, 0x1400), rng.randrange(1, 256), rng.randrange(0x1000, 0x1fff), rng.randrange(0, 2), rng.randrange(0x2000000, 0x6ffffff)), stream="err")
            ofi = "NET/OFI Request %s completed with error. RC: 5. Error: Input/output error. Completed length: 0, Request: { dev: %d, size: 0, state: CREATED, direction: RECV }" % (hexaddr(rng), nic)
            R.nccl_warn(r, tt + 1, "nccl_ofi_net.c:%d" % rng.choice([1588, 2127]), ofi)
            R.flags.setdefault("lasterr", {})[r] = ofi
            _net_abort(R, r, tt + 1.5, "NET/OFI")
        R.notes.append("Slingshot NIC hsn%d link down on %s (local ranks %s)" % (nic, h, ranges([x for x in R.ranks_on(h) if R.lr(x) // 2 == nic])))
    else:
        nic = lg
        if R.nic == "bnxt_re":
            dev, ifn = "bnxt_en 0000:%02x:00.0" % rng.randrange(0x10, 0xf0), "ens%df0np0" % rng.randrange(1, 30)
            R.k(h, t, "%s %s: NIC Link is Down" % (dev, ifn))
            hca = "bnxt_re%d" % nic
        elif R.nic == "ionic":
            dev, ifn = "ionic 0000:%02x:00.0" % rng.randrange(0x10, 0xf0), "enp%ds0np0" % rng.randrange(10, 250)
            R.k(h, t, "%s %s: Link down" % (dev, ifn))
            hca = "ionic_%d" % nic
        else:
            bus = rng.randrange(0x10, 0xf0)
            if R.net == "ib":
                R.k(h, t - 0.5, "mlx5_core 0000:%02x:00.0: Port module event: module %d, Cable unplugged" % (bus, nic))
                R.k(h, t, "mlx5_core 0000:%02x:00.0 ibp%ds0: Link down" % (bus, bus))
            else:
                R.k(h, t, "mlx5_core 0000:%02x:00.0 ens%dnp0: Link down" % (bus, nic + 1))
            hca = "mlx5_%d" % nic
        R.flags["down_hca"] = hca
        tt = t + rng.uniform(5, 20)
        _ib_warn(R, c, tt, R.ip[peer_host])
        _net_abort(R, c, tt + 0.3, "NET/IB")
        if peer != c and rng.random() < 0.7:
            _ib_warn(R, peer, tt + rng.uniform(0.0, 1.0), R.ip[h])
            _net_abort(R, peer, tt + 1.2, "NET/IB")
        R.notes.append("NIC %s link down on %s (rank %d's rail)" % (hca, h, c))
    set_truth(R, c, h, True, keep)
    propagate(R, culprit=c, blocked_since=t, wait=(op, seq, 67108864))


def _ib_warn(R, r, t, peer_ip):
    rng = R.rng
    msg = "NET/IB : Got completion from peer %s<%d> with error 12, opcode %d, len %d, vendor err %d (%s) localGid ::ffff:%s remoteGid ::ffff:%s" % (
        peer_ip, rng.randrange(33000, 61000), rng.choice([0, 1, 129]), rng.choice([0, 0, 32768]), rng.choice([129, 129, 244]),
        rng.choice(["Recv", "Send"]), R.ip[R.host_of(r)], peer_ip)
    R.nccl_warn(r, t, "transport/net_ib.cc:%d" % rng.choice([1696, 1703, 2289]), msg)
    R.flags.setdefault("lasterr", {})[r] = msg
    R.nccl_info(r, t + 0.0001, "transport/net.cc:%d -> 6" % rng.choice([1195, 1316]))
    R.nccl_info(r, t + 0.0002, "proxy.cc:%d -> 6" % rng.choice([694, 917]))
    R.nccl_info(r, t + 0.0003, "proxy.cc:%d -> 6 [Progress Thread]" % rng.choice([888, 1060]))


def _net_abort(R, r, t, kind):
    rng = R.rng
    last = R.flags.get("lasterr", {}).get(r)
    pg = "[PG ID 0 PG GUID 0(default_pg) Rank %d]" % r if R.tminor >= 4 else "[PG 0 Rank %d]" % r
    msg = ("NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version %s\n"
           "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. \n"
           "Last error:\n%s") % (R.stack["ccl"], last or ("NET/IB : Got completion from peer with error 12" if kind == "NET/IB" else "NET/OFI Request completed with error. RC: 5. Error: Input/output error."))
    R.add(t, r, R.c10(r, t, "E", "ProcessGroupNCCL.cpp:%d" % rng.choice([1595, 1896])) + "%s Process group watchdog thread terminated with exception: %s\n" % (pg, msg)
          + "terminate called after throwing an instance of 'c10::DistBackendError'\n  what():  %s Process group watchdog thread terminated with exception: %s" % (pg, msg.split("\n")[0]))
    R.exit(r, t + rng.uniform(0.2, 0.9), -6)


def oom_text(R, r):
    rng = R.rng
    tot = R.gi["mem_gib"]
    want = rng.choice([0.5, 1.0, 2.0, 3.5, 7.82, 12.0, 448 / 1024.0])
    free = rng.uniform(0.05, min(want * 0.9, 2.0))
    alloc = tot - free - rng.uniform(0.5, 3.0)
    reserved = rng.uniform(0.1, 3.0)
    idx = 0 if R.layout == "frontier_srun" else R.lr(r)
    fs = lambda g: ("%.2f GiB" % g) if g >= 1 else ("%.2f MiB" % (g * 1024))
    if R.vendor == "amd":
        cls = "torch.OutOfMemoryError" if R.tminor >= 5 else "torch.cuda.OutOfMemoryError"
        return ("%s: HIP out of memory. Tried to allocate %s. GPU %d has a total capacity of %.2f GiB of which %s is free. Of the allocated memory %s is allocated by PyTorch, and %s is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_HIP_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)" % (
            cls, fs(want), idx, tot, fs(free), fs(alloc), fs(reserved)))
    cls = "torch.OutOfMemoryError" if R.tminor >= 5 else "torch.cuda.OutOfMemoryError"
    return ("%s: CUDA out of memory. Tried to allocate %s. GPU %d has a total capacity of %.2f GiB of which %s is free. Including non-PyTorch memory, this process has %.2f GiB memory in use. Of the allocated memory %s is allocated by PyTorch, and %s is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)" % (
        cls, fs(want), idx, tot, fs(free), tot - free - 0.5, fs(alloc), fs(reserved)))


def c_cuda_oom(R):
    rng = R.rng
    c = pick_culprit(R)
    h = R.host_of(c)
    t = begin(R, c, True)
    frames = train_frames(R) + [("{sp}/torch/nn/modules/module.py", 1773, "_wrapped_call_impl", "return self._call_impl(*args, **kwargs)"),
                                ("{sp}/torch/nn/modules/module.py", 1784, "_call_impl", "return forward_call(*args, **kwargs)"),
                                ("{wd}/model/attention.py" if R.style != "megatron" else "{wd}/megatron/core/transformer/attention.py", rng.choice([188, 402, 517]), "forward",
                                 "attn = torch.matmul(q, k.transpose(-2, -1)) * self.scale" if R.style != "megatron" else "core_attn_out = self.core_attention(")]
    exc_block(R, c, t, frames, oom_text(R, c))
    R.exit(c, t + rng.uniform(1, 6), 1)
    if rng.random() < 0.35:
        # decoy: a rank on another node earlier survived a caught OOM (auto batch-size probe)
        d = rng.choice([r for r in sorted(R.shown) if r != c] or [c])
        R.add(R.t_train0 - 30, d, "%s - WARNING - autobatch.py:77 - micro-batch 16 does not fit (%s), retrying with 8" % (
            f_py(R.t_train0 - 30, R.tz), oom_text(R, d).split(". Tried")[0]), stream="out")
        R.notes.append("decoy: handled OOM during batch-size probe on rank %d" % d)
    set_truth(R, c, h, False, True)
    R.notes.append("OOM on rank %d" % c)
    if rng.random() < 0.6:
        R.node_files.append(h)
    propagate(R, culprit=c, blocked_since=t)


def c_illegal_memory_access(R):
    rng = R.rng
    c = pick_culprit(R)
    h, lg = R.host_of(c), R.lr(c)
    t = begin(R, c, True)
    p = R.tb_prefix(c)
    if R.vendor == "amd":
        v = rng.choice(["maf", "maf", "hiperr"])
        if v == "maf":
            reason = rng.choice(["Page not present or supervisor privilege", "Write access to a read-only page"])
            addr = hexaddr(rng)
            R.add(t, c, "Memory access fault by GPU node-%d (Agent handle: %s) on address %s. Reason: %s." % (R.kfd_base + lg, handle(R), addr, reason))
            R.exit(c, t + 0.3, -6)
            b = R.gpu_bdf(lg)
            ring = rng.choice([24, 169, 32])
            pasid = rng.randrange(32768, 32800)
            R.k(h, t - 0.02, "amdgpu %s: amdgpu: [gfxhub] page fault (src_id:0 ring:%d vmid:%d pasid:%d)" % (b, ring, rng.randrange(8, 16), pasid))
            R.k(h, t - 0.0199, "amdgpu %s: amdgpu:  in process pt_main_thread pid %d thread pt_main_thread pid %d)" % (b, R.pid[c], R.pid[c]))
            R.k(h, t - 0.0198, "amdgpu %s: amdgpu:   in page starting at address %s from client 10" % (b, "0x%016x" % int(addr, 16)))
            R.k(h, t - 0.0197, "amdgpu %s: amdgpu: GCVM_L2_PROTECTION_FAULT_STATUS:0x%08X" % (b, rng.choice([0x00801031, 0x00841051, 0x00800932])))
            R.k(h, t - 0.0196, "amdgpu %s: amdgpu: \t Faulty UTCL2 client ID: TCP (0x8)" % b)
            R.k(h, t - 0.0195, "amdgpu %s: amdgpu: \t MORE_FAULTS: 0x1" % b)
            R.k(h, t - 0.0194, "amdgpu %s: amdgpu: \t WALKER_ERROR: 0x0" % b)
            R.k(h, t - 0.0193, "amdgpu %s: amdgpu: \t PERMISSION_FAULTS: 0x%x" % (b, rng.choice([3, 5])))
            R.k(h, t - 0.0192, "amdgpu %s: amdgpu: \t MAPPING_ERROR: 0x0" % b)
            R.k(h, t - 0.0191, "amdgpu %s: amdgpu: \t RW: 0x%d" % (b, rng.randrange(2)))
            R.notes.append("AMD memory access fault (%s) rank %d" % (reason, c))
        else:
            cls = "torch.AcceleratorError" if R.tminor >= 8 else "RuntimeError"
            exc = ("%s: HIP error: an illegal memory access was encountered\n" % cls
                   + ("Search for `hipErrorIllegalAddress' in https://rocm.docs.amd.com/projects/HIP/en/latest/index.html for more information.\n" if R.tminor >= 8 else "")
                   + "HIP kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\n"
                   + "For debugging consider passing AMD_SERIALIZE_KERNEL=3\nCompile with `TORCH_USE_HIP_DSA` to enable device-side assertions.\n")
            exc_block(R, c, t, train_frames(R) + [("{sp}/torch/_tensor.py", 626, "backward", "torch.autograd.backward("),
                                                   ("{sp}/torch/autograd/graph.py", 823, "_engine_run_backward", "return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass")], exc)
            R.exit(c, t + 2, 1)
            R.notes.append("HIP illegal memory access (hipErrorIllegalAddress) rank %d" % c)
    else:
        v = rng.choice(["illegal", "illegal", "dsa"])
        if v == "illegal":
            cls = "torch.AcceleratorError" if R.tminor >= 8 else "RuntimeError"
            exc = ("%s: CUDA error: an illegal memory access was encountered\n" % cls
                   + ("Search for `cudaErrorIllegalAddress' in https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html for more information.\n" if R.tminor >= 8 else "")
                   + "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\n"
                   + "For debugging consider passing CUDA_LAUNCH_BLOCKING=1\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n")
            nv_xid(R, h, lg, t - 0.05, 31, R.pid[c], "pt_main_thread", "Ch 000000%02x, intr 00000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_%d faulted @ 0x%x_%08x. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ" % (
                rng.randrange(8, 0x40), rng.randrange(0, 16), rng.randrange(0x7f00, 0x7fff), rng.randrange(0, 1 << 32) & ~0xfff))
            R.notes.append("CUDA illegal address + Xid 31 rank %d" % c)
        else:
            kern = rng.choice(["/pytorch/aten/src/ATen/native/cuda/IndexKernel.cu:93: operator(): block: [%d,0,0], thread: [%d,0,0] Assertion `-sizes[i] <= index && index < sizes[i] && \"index out of bounds\"` failed.",
                               "/pytorch/aten/src/ATen/native/cuda/Indexing.cu:1422: indexSelectLargeIndex: block: [%d,0,0], thread: [%d,0,0] Assertion `srcIndex < srcSelectDimSize` failed."])
            for _ in range(rng.randrange(2, 6)):
                R.add(t - 0.1, c, kern % (rng.randrange(0, 4096), rng.randrange(0, 128)))
            cls = "torch.AcceleratorError" if R.tminor >= 8 else "RuntimeError"
            exc = ("%s: CUDA error: device-side assert triggered\n" % cls
                   + "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\n"
                   + "For debugging consider passing CUDA_LAUNCH_BLOCKING=1\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n")
            R.notes.append("CUDA device-side assert (index out of bounds) rank %d" % c)
        exc_block(R, c, t, train_frames(R) + [("{sp}/torch/nn/modules/sparse.py", 190, "forward", "return F.embedding(")], exc)
        R.exit(c, t + 1.5, 1)
    set_truth(R, c, h, False, True)
    if rng.random() < 0.6:
        R.node_files.append(h)
    propagate(R, culprit=c, blocked_since=t)


PY_EXC = [
    ("KeyError", [("{wd}/data/packed_dataset.py", 88, "__getitem__", "sample = self.index[self.shard_map[idx]]")], "KeyError: %d"),
    ("FileNotFoundError", [("{wd}/data/shards.py", 141, "_open_shard", "fh = open(path, \"rb\")")], "FileNotFoundError: [Errno 2] No such file or directory: '%s/data/tokenized/shard_%05d.bin'"),
    ("RuntimeError", [("{wd}/model/rope.py", 57, "apply_rotary", "return (x * cos) + (rotate_half(x) * sin)")], "RuntimeError: The size of tensor a (%d) must match the size of tensor b (%d) at non-singleton dimension 1"),
    ("ValueError", [("{wd}/train.py", 352, "check_loss", "raise ValueError(f\"loss is {loss.item()} at step {step}; aborting (rank {rank})\")")], "ValueError: loss is nan at step %d; aborting (rank %d)"),
    ("AssertionError", [("{wd}/data/collate.py", 39, "__call__", "assert len(ids) <= self.max_len, f\"sequence of length {len(ids)} > max_len {self.max_len}\"")], "AssertionError: sequence of length %d > max_len %d"),
]


def c_python_exception(R):
    rng = R.rng
    c = pick_culprit(R)
    h = R.host_of(c)
    t = begin(R, c, True)
    kind, extra, tmpl = rng.choice(PY_EXC)
    if kind == "KeyError":
        exc = tmpl % rng.randrange(100000, 9000000)
    elif kind == "FileNotFoundError":
        exc = tmpl % (workdir(R), rng.randrange(0, 4096))
    elif kind == "RuntimeError":
        a = rng.choice([4096, 8192, 2048])
        exc = tmpl % (a, a + 1)
    elif kind == "ValueError":
        exc = tmpl % (getattr(R, "_step", 1000) + rng.randrange(1, 9), c)
    else:
        m = rng.choice([4096, 8192])
        exc = tmpl % (m + rng.randrange(1, 900), m)
    exc_block(R, c, t, train_frames(R) + extra, exc)
    R.exit(c, t + rng.uniform(0.5, 4), 1)
    # decoy: a handled exception earlier on some rank
    if rng.random() < 0.5:
        d = rng.choice(sorted(R.shown))
        R.add(R.t_train0 + 600, d, "%s - WARNING - storage.py:%d - upload of metrics snapshot failed (ConnectionResetError(104, 'Connection reset by peer')), will retry in 30s" % (
            f_py(R.t_train0 + 600, R.tz), rng.choice([88, 143])), stream="out")
        R.notes.append("decoy: handled upload exception on rank %d" % d)
    set_truth(R, c, h, False, True)
    R.notes.append("uncaught %s on rank %d" % (kind, c))
    propagate(R, culprit=c, blocked_since=t)


def c_host_oom_kill(R):
    rng = R.rng
    c = pick_culprit(R)
    h = R.host_of(c)
    t = begin(R, c, True)
    R.node_files.append(h)
    pid = R.pid[c]
    memcg = R.layout in ("k8s_amd_operator", "k8s_nvidia_mixedpool") or rng.random() < 0.4
    rss = rng.randrange(60, 240) * 1024 * 1024
    R.k(h, t - 0.02, "pt_main_thread invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0")
    R.k(h, t - 0.015, "CPU: %d PID: %d Comm: pt_main_thread Tainted: G           OE      %s #1" % (rng.randrange(0, 128), pid, rng.choice(["5.15.0-126-generic", "6.8.0-51-generic", "5.14.0-427.13.1.el9_4.x86_64", "5.14.21-150500.55.49_13.0.56-cray_shasta_c"])))
    if memcg:
        R.k(h, t - 0.01, "oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=%s,mems_allowed=0-1,oom_memcg=%s,task_memcg=%s,task=pt_main_thread,pid=%d,uid=%d" % (
            "cri-containerd-%012x.scope" % rng.randrange(1 << 48), "/kubepods.slice/kubepods-burstable.slice" if "k8s" in R.layout else "/slurm/uid_%d/job_%d" % (rng.randrange(10000, 60000), R.jobid),
            "/kubepods.slice/kubepods-burstable.slice/cri-containerd.scope" if "k8s" in R.layout else "/slurm/uid_%d/job_%d/step_0" % (rng.randrange(10000, 60000), R.jobid), pid, rng.choice([0, 1000, 24511])))
        R.k(h, t, "Memory cgroup out of memory: Killed process %d (pt_main_thread) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:%d pgtables:%dkB oom_score_adj:0" % (
            pid, rss + rng.randrange(1 << 25), rss, rng.randrange(100000, 900000), rng.randrange(1 << 20, 1 << 23), rng.choice([0, 1000]), rng.randrange(200000, 600000)))
    else:
        R.k(h, t - 0.01, "oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0-3,global_oom,task_memcg=/user.slice,task=pt_main_thread,pid=%d,uid=%d" % (pid, rng.randrange(10000, 60000)))
        R.k(h, t, "Out of memory: Killed process %d (pt_main_thread) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:%d pgtables:%dkB oom_score_adj:0" % (
            pid, rss + rng.randrange(1 << 25), rss, rng.randrange(100000, 900000), rng.randrange(1 << 20, 1 << 23), rng.randrange(10000, 60000), rng.randrange(200000, 600000)))
    R.k(h, t + 0.4, "oom_reaper: reaped process %d (pt_main_thread), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB" % pid)
    R.exit(c, t, -9)
    R.oom_event_hosts.append(h)
    R.flags["memcg"] = memcg
    set_truth(R, c, h, False, True)
    R.notes.append("host OOM killer (%s) killed rank %d pid %d on %s" % ("memcg" if memcg else "global", c, pid, h))
    propagate(R, culprit=c, blocked_since=t)


def c_crash_signal(R):
    rng = R.rng
    c = pick_culprit(R)
    h = R.host_of(c)
    t = begin(R, c, True)
    v = rng.choice(["segv", "segv", "bus", "abort"])
    p = R.tb_prefix(c)
    if v == "segv":
        lib = rng.choice(["libamdhip64.so.6", "librccl.so.1", "libtorch_hip.so"]) if R.vendor == "amd" else rng.choice(["libnccl.so.2", "libcuda.so.1", "libtorch_cuda.so"])
        R.add(t, c, "Fatal Python error: Segmentation fault\n\nThread 0x%x (most recent call first):\n  File \"/usr/lib/python%s/threading.py\", line 331 in wait\n  File \"/usr/lib/python%s/threading.py\", line 629 in wait\n  File \"%s/tqdm/_monitor.py\", line 60 in run\n  File \"/usr/lib/python%s/threading.py\", line 1045 in _bootstrap_inner\n  File \"/usr/lib/python%s/threading.py\", line 1002 in _bootstrap\n\nCurrent thread 0x%x (most recent call first):\n  File \"%s/torch/distributed/distributed_c10d.py\", line %d in all_reduce\n  File \"%s/torch/distributed/c10d_logger.py\", line 81 in wrapper\n  File \"%s/train.py\", line 298 in reduce_metrics\n  File \"%s/train.py\", line 331 in train_loop\n  File \"%s/train.py\", line 588 in main\n  File \"%s/train.py\", line 612 in <module>\n\nExtension modules: numpy.core._multiarray_umath, numpy.core._multiarray_tests, torch._C, torch._C._dynamo.autograd_compiler, torch._C._dynamo.eval_frame, torch._C._dynamo.guards, torch._C._nn, yaml._yaml, psutil._psutil_linux (total: %d)" % (
            rng.randrange(0x7f0000000000, 0x7fffffffffff), R.stack["py"], R.stack["py"], site_pkgs(R), R.stack["py"], R.stack["py"],
            rng.randrange(0x7f0000000000, 0x7fffffffffff), site_pkgs(R), rng.choice([2501, 2806]), site_pkgs(R), workdir(R), workdir(R), workdir(R), workdir(R), rng.randrange(40, 120)))
        R.k(h, t, "pt_main_thread[%d]: segfault at %x ip %016x sp %016x error 4 in %s[%x+%x] likely on CPU %d (core %d, socket %d)" % (
            R.pid[c], rng.choice([0, 8, 0x18]), rng.randrange(0x7f0000000000, 0x7fffffffffff), rng.randrange(0x7ff000000000, 0x7fffffffffff), lib,
            rng.randrange(0x7f0000000000, 0x7fffffffffff) & ~0xfff, rng.randrange(0x100000, 0x9000000) & ~0xfff, rng.randrange(0, 96), rng.randrange(0, 48), rng.randrange(0, 2)))
        R.k(h, t + 0.001, "Code: 48 8b 47 08 48 85 c0 74 0c 48 8b 00 c3 0f 1f 80 00 00 00 00 <48> 8b 07 c3 66 2e 0f 1f 84 00 00 00 00 00 0f 1f 40 00 f3 0f 1e fa")
        R.exit(c, t + 0.1, -11)
        R.notes.append("SIGSEGV in %s on rank %d" % (lib, c))
    elif v == "bus":
        wpid = R.pid[c] + rng.randrange(100, 900)
        R.add(t - 0.5, c, "ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).")
        exc_block(R, c, t, train_frames(R) + [("{sp}/torch/utils/data/dataloader.py", 708, "__next__", "data = self._next_data()"),
                                               ("{sp}/torch/utils/data/dataloader.py", 1458, "_next_data", "idx, data = self._get_data()"),
                                               ("{sp}/torch/utils/data/dataloader.py", 1420, "_get_data", "success, data = self._try_get_data()"),
                                               ("{sp}/torch/utils/data/dataloader.py", 1264, "_try_get_data", "raise RuntimeError(f'DataLoader worker (pid(s) {pids_str}) exited unexpectedly') from e")],
                  "RuntimeError: DataLoader worker (pid %d) is killed by signal: Bus error. It is possible that dataloader's workers are out of shared memory. Please try to raise your shared memory limit." % wpid)
        R.exit(c, t + 1, 1)
        R.notes.append("DataLoader worker SIGBUS (shm) on rank %d" % c)
    else:
        R.add(t, c, rng.choice(["double free or corruption (!prev)", "free(): invalid pointer", "malloc(): unsorted double linked list corrupted"]))
        R.exit(c, t + 0.05, -6)
        R.notes.append("glibc abort (heap corruption) on rank %d" % c)
    set_truth(R, c, h, False, True)
    if rng.random() < 0.6 or v == "segv":
        R.node_files.append(h)
    propagate(R, culprit=c, blocked_since=t)


def c_preemption(R):
    rng = R.rng
    t = begin(R, None, True)
    why = rng.choice(["PREEMPTION", "TIME LIMIT", "PREEMPTION"]) if R.layout not in ("k8s_amd_operator", "k8s_nvidia_mixedpool") else rng.choice(["kueue", "spot"])
    R.flags["preempt"] = why
    if rng.random() < 0.5 and R.style != "hf":
        R.add(t + 0.5, 0, "%s - WARNING - signals.py:41 - received SIGTERM, requesting checkpoint at next step boundary" % f_py(R.ht(t + 0.5, R.hosts[0]), R.tz), stream="out")
    if R.layout == "mixed_fleet_bundle":
        R.recs.append((t - 0.5, None, "fleet-scheduler", "err", "job %s preempted: reservation '%s' (priority %d) needs %d nodes; sending SIGTERM to all launchers, grace period 30s" % (
            R.jobid, rng.choice(["eval-sweep", "prod-inference-burst", "rack-maintenance"]), rng.choice([900, 1000, 5000]), len(R.hosts))))
    elif R.layout == "ds_megatron_rocm":
        R.flags["preempt"] = rng.choice(["MAINT", "CANCEL"])
    for r in range(R.world):
        R.exit(r, t + rng.uniform(0.3, 3.0), -15)
    R.kill_all = t
    set_truth(R, None, None, False, False)
    R.notes.append("job preempted/cancelled by scheduler (%s)" % why)


def c_hang(R):
    rng = R.rng
    c = pick_culprit(R)
    h = R.host_of(c)
    keep = True
    t = begin(R, c, keep)
    keep = c in R.shown
    op = rng.choice(OPS)
    seq = rng.randrange(3000, 90000)
    numel = rng.choice([1, 50331648, 67108864])
    pyspy = rng.random() < 0.5
    for r in range(R.world):
        if r == c:
            continue
        watchdog_timeout(R, r, t + R.timeout_ms / 1000.0 + rng.uniform(0, 2.5), op, seq, numel, enq=seq, comp=seq - 1)
    # the hung rank never enqueued the collective: nothing from it, it is SIGTERMed by its launcher
    fam = launcher_family(R)
    if fam == "srun" and not getattr(R, "kill_on_bad_exit", False):
        R.kill_all = t + R.timeout_ms / 1000.0 + rng.uniform(600, 3600)
        R.flags["hang_timelimit"] = True
    propagate(R, culprit=None, blocked_since=t, wait=(op, seq, numel), mode="watchdog")
    if c not in R.exits:
        if R.flags.get("hang_timelimit"):
            R.exit(c, R.kill_all + rng.uniform(0.1, 1.0), -15)
        else:
            R.exit(c, max(v[0] for v in R.exits.values()) + rng.uniform(0.1, 1.0), -15)
    if pyspy:
        sp = site_pkgs(R)
        stack = rng.choice([
            ["wait (threading.py:355)", "get (queue.py:180)", "_next (%s/data/prefetch.py:74)" % workdir(R), "train_loop (train.py:322)"],
            ["synchronize (torch/cuda/__init__.py:985)", "log_metrics (train.py:301)", "train_loop (train.py:339)"],
            ["_wait_for_tstate_lock (threading.py:1119)", "join (threading.py:1096)", "save_async (checkpoint.py:212)", "train_loop (train.py:344)"]])
        txt = ["Process %d: %s -u %s" % (R.pid[c], "/usr/bin/python%s" % R.stack["py"], R.script), "Python v%s.%d (/usr/bin/python%s)" % (R.stack["py"], rng.randrange(4, 15), R.stack["py"]), "",
               'Thread %d (idle): "MainThread"' % R.pid[c]] + ["    " + s for s in stack] + ["    main (train.py:588)", "    <module> (train.py:612)",
                                                                                             'Thread %d (idle): "Thread-2 (_monitor)"' % (R.pid[c] + 41), "    wait (threading.py:359)", "    run (tqdm/_monitor.py:60)"]
        R.extra["py-spy-dump-rank%d-%s.txt" % (c, h)] = "\n".join(txt) + "\n"
        R.notes.append("py-spy dump of the stuck rank attached")
    ev = pyspy or (len(R.shown) == R.world)
    set_truth(R, c, h, False, ev)
    R.notes.append("rank %d stopped (stuck before enqueueing SeqNum %d); every other rank timed out in %s" % (c, seq, op))


def c_data_loader_stall(R):
    rng = R.rng
    c = pick_culprit(R)
    h = R.host_of(c)
    t = begin(R, c, True)
    v = "timeout" if rng.random() < 0.5 else "silent"
    op = rng.choice(OPS)
    seq = rng.randrange(3000, 90000)
    fs = rng.choice(["lustre", "nfs", "s3fuse"])
    wpid = R.pid[c] + rng.randrange(100, 900)
    if fs == "lustre":
        R.k(h, t + 20, "LustreError: 11-0: %s-OST%04x-osc-ffff%012x: operation ost_read to node %s@o2ib failed: rc = -107" % (
            rng.choice(["orion", "scratch", "lustrefs"]), rng.randrange(0, 400), rng.randrange(1 << 44), "10.%d.%d.%d" % (rng.randrange(1, 200), rng.randrange(0, 200), rng.randrange(1, 250))))
        R.k(h, t + 21, "Lustre: %s-OST%04x-osc-ffff%012x: Connection to %s-OST%04x (at 10.%d.%d.%d@o2ib) was lost; in progress operations using this service will wait for recovery to complete" % (
            "scratch", rng.randrange(0, 400), rng.randrange(1 << 44), "scratch", rng.randrange(0, 400), rng.randrange(1, 200), rng.randrange(0, 200), rng.randrange(1, 250)))
    elif fs == "nfs":
        R.k(h, t + 30, "nfs: server %s not responding, still trying" % rng.choice(["nfs-datasets01", "fs-home", "10.0.0.40"]))
    else:
        R.k(h, t + 30, "INFO: task mount-s3:%d blocked for more than 122 seconds." % rng.randrange(2000, 9000))
    R.k(h, t + 125, "INFO: task pt_data_worker:%d blocked for more than 122 seconds.\n      Tainted: G           OE      %s #1\n\"echo 0 > /proc/sys/kernel/hung_task_timeout_secs\" disables this message." % (
        wpid, rng.choice(["5.15.0-126-generic", "6.8.0-51-generic"])))
    R.node_files.append(h)
    if v == "timeout":
        dl_to = rng.choice([120, 300]) if R.timeout_ms >= 600000 else 60
        exc_block(R, c, t + dl_to, train_frames(R) + [("{sp}/torch/utils/data/dataloader.py", 708, "__next__", "data = self._next_data()"),
                                                       ("{sp}/torch/utils/data/dataloader.py", 1458, "_next_data", "idx, data = self._get_data()"),
                                                       ("{sp}/torch/utils/data/dataloader.py", 1410, "_get_data", "success, data = self._try_get_data()"),
                                                       ("{sp}/torch/utils/data/dataloader.py", 1256, "_try_get_data", "raise RuntimeError(f'DataLoader timed out after {self._timeout} seconds') from e")],
                  "RuntimeError: DataLoader timed out after %d seconds" % dl_to)
        R.exit(c, t + dl_to + 1, 1)
        propagate(R, culprit=c, blocked_since=t, wait=(op, seq, 67108864))
        ev = True
    else:
        if rng.random() < 0.6:
            R.add(t + 240, c, "%s - WARNING - train.py:309 - [rank%d] waiting for data: no batch for 240.0s (prefetch queue empty, %d workers alive)" % (f_py(R.ht(t + 240, h), R.tz), c, rng.choice([4, 8, 6])), stream="out")
            ev = True
        else:
            ev = False
        for r in range(R.world):
            if r != c:
                watchdog_timeout(R, r, t + R.timeout_ms / 1000.0 + rng.uniform(0, 2.5), op, seq, 67108864, enq=seq, comp=seq - 1)
        propagate(R, culprit=None, blocked_since=t, wait=(op, seq, 67108864), mode="watchdog")
        if c not in R.exits:
            R.exit(c, max(v_[0] for v_ in R.exits.values()) + 0.5, -15)
    set_truth(R, c, h, False, ev)
    R.notes.append("data loader of rank %d stalled on %s I/O (%s)" % (c, fs, v))


def fp(R, seq, op, shape, dtype):
    dev = "cuda"
    return "CollectiveFingerPrint(SequenceNumber=%d, OpType=%s, TensorShape=[%s], TensorDtypes=%s, TensorDeviceTypes=TensorOptions(dtype=float (default), device=%s, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt)))" % (
        seq, op, shape, dtype, dev)


def c_collective_mismatch(R):
    rng = R.rng
    c = pick_culprit(R)
    h = R.host_of(c)
    t = begin(R, c, True)
    seq = rng.randrange(100, 9000)
    v = rng.choice(["detail", "watchdog"])
    good = ("ALLREDUCE", "%d" % rng.choice([262144, 1048576]), "BFloat16")
    bad = rng.choice([("BROADCAST", "1", "Long"), ("ALLGATHER", "8, 4096", "Float"), ("ALLREDUCE", "1", "Float")])
    if v == "detail":
        for r in range(R.world):
            other = 0 if r == c else c
            mine, theirs = (bad, good) if r == c else (good, bad)
            if r == c and c == 0:
                other = 1
            exc = "RuntimeError: Detected mismatch between collectives on ranks. Rank %d is running collective: %s, but Rank %d is running collective: %s.Collectives differ in the following aspects: \t Op type: %s vs %s%s" % (
                r, fp(R, seq, mine[0], mine[1], mine[2]), other, fp(R, seq, theirs[0], theirs[1], theirs[2]), mine[0], theirs[0],
                "\t  Tensor Tensor shapes: %s vs %s" % (mine[1], theirs[1]) if mine[1] != theirs[1] else "")
            frames = train_frames(R) + [("{wd}/train.py" if R.style != "megatron" else "{wd}/megatron/training/utils.py", 298, "reduce_metrics", "dist.all_reduce(t, op=dist.ReduceOp.SUM)" if r != c else "dist.broadcast(flag, src=0)"),
                                        ("{sp}/torch/distributed/c10d_logger.py", 81, "wrapper", "return func(*args, **kwargs)"),
                                        ("{sp}/torch/distributed/distributed_c10d.py", 2806, "all_reduce" if r != c else "broadcast", "work = group.allreduce([tensor], opts)" if r != c else "work = group.broadcast([tensor], opts)")]
            exc_block(R, r, t + rng.uniform(0, 3), frames, exc)
            R.exit(r, t + rng.uniform(3, 8), 1)
        R.notes.append("TORCH_DISTRIBUTED_DEBUG=DETAIL mismatch report; rank %d ran %s while others ran %s" % (c, bad[0], good[0]))
    else:
        numel = int(good[1])
        for r in range(R.world):
            if r == c:
                op = {"BROADCAST": "BROADCAST", "ALLGATHER": "_ALLGATHER_BASE", "ALLREDUCE": "ALLREDUCE"}[bad[0]]
                watchdog_timeout(R, r, t + R.timeout_ms / 1000.0 + rng.uniform(0, 2.5), op, seq, 1 if bad[1] == "1" else 32768, enq=seq, comp=seq - 1)
            else:
                watchdog_timeout(R, r, t + R.timeout_ms / 1000.0 + rng.uniform(0, 2.5), "ALLREDUCE", seq, numel, enq=seq, comp=seq - 1)
        R.notes.append("mismatched collective at SeqNum %d: rank %d issued %s, everyone else ALLREDUCE(%d)" % (seq, c, bad[0], numel))
    ev = c in R.shown
    set_truth(R, c, h, False, ev)
    propagate(R, culprit=None, blocked_since=t, mode="watchdog")


def c_straggler(R):
    rng = R.rng
    c = pick_culprit(R)
    h, lg = R.host_of(c), R.lr(c)
    set_shown(R, c, True)
    emit_startup(R)
    t_s = R.t_train0 + rng.uniform(600, 3600)
    R.t_fail = t_s
    t = emit_training(R, R.t_train0, t_s)
    slow = rng.uniform(1.6, 3.2)
    t_end = t_s + rng.uniform(2, 7) * 3600
    # per-rank timing evidence
    base = step_time(R)
    tt = t_s + 120
    k = 0
    while tt < t_end and k < 14:
        step = getattr(R, "_step", 1000) + (k + 1) * 50
        if R.style == "megatron":
            mn = base * 1000 * rng.uniform(0.92, 0.98)
            mx = base * 1000 * slow * rng.uniform(0.95, 1.05)
            lr_ = R.world - 1
            R.add(tt, lr_, "(min, max) time across ranks (ms):\n    forward-backward ...............................: (%.2f, %.2f)\n    forward-compute ................................: (%.2f, %.2f)\n    backward-compute ...............................: (%.2f, %.2f)\n    optimizer ......................................: (%.2f, %.2f)" % (
                mn, mx, mn * 0.31, mx * 0.33, mn * 0.6, mx * 0.62, 40.1 * rng.uniform(0.9, 1.1), 44.2 * rng.uniform(0.9, 1.1)), stream="out")
            fast = rng.choice([r for r in range(R.world) if r != c] or [0])
            R.add(tt + 0.01, lr_, " [%s] %s | MnRtt/Rnk: %.2fms/%d | MxRtt/Rnk: %.2fms/%d | MnPwr/Rnk: %dW/%d | MxPwr/Rnk: %dW/%d | MnTmp/Rnk: %dC/%d | MxTmp/Rnk: %dC/%d | MnUtl/Rnk: %d%%/%d | MxUtl/Rnk: %d%%/%d | MnClk/Rnk: %dMHz/%d | MxClk/Rnk: %dMHz/%d" % (
                _d(tt, R.tz).strftime("%Y-%m-%d %H:%M:%S"), "0", mn, fast, mx, c, rng.randrange(380, 450), c, rng.randrange(620, 700), fast, rng.randrange(52, 60), fast, rng.randrange(88, 96), c,
                rng.randrange(70, 85), fast, 100, c, rng.randrange(900, 1300), c, 2100 if R.vendor == "amd" else 1980, fast), stream="out")
        else:
            for r in sorted(R.shown):
                f = slow if r == c else rng.uniform(0.97, 1.03)
                dt_ = base * f
                R.add(tt + rng.uniform(0, 0.5), r, "%s - INFO - timing.py:52 - [rank%d] step %d timings: data %.3fs fwd %.3fs bwd %.3fs opt %.3fs wait_allreduce %.3fs" % (
                    f_py(R.ht(tt, R.host_of(r)), R.tz), r, step, rng.uniform(0.002, 0.02), dt_ * 0.32, dt_ * 0.62, 0.041, max(0.01, base * slow - dt_)), stream="out")
        tt += rng.uniform(600, 1800)
        k += 1
    R._step_s = base * slow
    end = rng.choice(["complete", "cancel"] if R.layout in ("k8s_amd_operator", "k8s_nvidia_mixedpool", "mixed_fleet_bundle", "ds_megatron_rocm") else ["complete", "timelimit", "cancel"])
    t2 = emit_training(R, t_s, t_end)
    if R.vendor == "amd":
        R.gpu_state[(h, lg)] = dict(temp=rng.uniform(96, 104), sclk=rng.randrange(900, 1300), util=100, vram=71, power=rng.randrange(380, 450))
        if rng.random() < 0.5:
            R.k(h, t_s + 30, "amdgpu %s: amdgpu: WARN: GPU is throttled, expect performance decrease. PROCHOT" % R.gpu_bdf(lg))
    else:
        R.gpu_state[(h, lg)] = dict(temp=rng.randrange(88, 94), throttle=rng.choice(["thermal", "thermal", "power"]), smclk=rng.randrange(900, 1400), util=100)
    R.node_files.append(h)
    R.flags["straggler_end"] = end
    if end == "complete":
        R.add(t2 + 10, 0, "%s - INFO - train.py:640 - training finished: %d steps" % (f_py(t2 + 10, R.tz), getattr(R, "_step", 0)), stream="out")
        for r in range(R.world):
            R.exit(r, t2 + 20 + rng.uniform(0, 3), 0)
    else:
        R.flags["preempt"] = "TIME LIMIT" if end == "timelimit" else "CANCEL"
        for r in range(R.world):
            R.exit(r, t2 + rng.uniform(0.3, 3), -15)
        R.kill_all = t2
    set_truth(R, c, h, False, c in R.shown or R.style == "megatron")
    R.notes.append("rank %d on %s persistently %.1fx slower (throttled GPU%d); job end: %s" % (c, h, slow, lg, end))


def c_unknown(R):
    rng = R.rng
    t = begin(R, None, True)
    op = rng.choice(OPS)
    seq = rng.randrange(3000, 90000)
    numel = rng.choice([1, 67108864])
    for r in range(R.world):
        watchdog_timeout(R, r, t + R.timeout_ms / 1000.0 + rng.uniform(0, 2.5), op, seq, numel, enq=seq, comp=seq - 1)
    propagate(R, culprit=None, blocked_since=t, wait=(op, seq, numel), mode="watchdog")
    set_truth(R, None, None, False, False)
    R.notes.append("all ranks timed out in %s SeqNum %d with identical enqueued/completed counters; no kernel or hardware evidence" % (op, seq))


def handled_traceback(R, r, t):
    """a caught exception logged with its traceback, then a successful retry (alarming but benign)"""
    rng = R.rng
    h = R.host_of(r)
    sp = site_pkgs(R)
    wd = workdir(R)
    L = ["%s - ERROR - uploader.py:%d - checkpoint shard upload failed, will retry (attempt 1/5)" % (f_py(R.ht(t, h), R.tz), rng.choice([118, 131])),
         "Traceback (most recent call last):",
         '  File "%s/ckpt/uploader.py", line 121, in _upload_part' % wd, "    resp = self._session.put(url, data=chunk, timeout=60)",
         '  File "%s/requests/sessions.py", line 649, in put' % sp, '    return self.request("PUT", url, data=data, **kwargs)',
         '  File "%s/requests/sessions.py", line 589, in request' % sp, "    resp = self.send(prep, **send_kwargs)",
         '  File "%s/requests/sessions.py", line 703, in send' % sp, "    r = adapter.send(request, **kwargs)",
         '  File "%s/requests/adapters.py", line 682, in send' % sp, "    raise ConnectionError(err, request=request)",
         "requests.exceptions.ConnectionError: ('Connection aborted.', ConnectionResetError(104, 'Connection reset by peer'))",
         "%s - INFO - uploader.py:%d - checkpoint shard upload succeeded on attempt 2/5" % (f_py(R.ht(t + 31, h), R.tz), rng.choice([140, 152]))]
    R.add(t, r, "\n".join(L[:-1]))
    R.add(t + 31, r, L[-1], stream="out")
    R.notes.append("decoy: handled ConnectionResetError traceback (retried OK) on rank %d" % r)


def c_healthy(R):
    rng = R.rng
    set_shown(R, None, True)
    emit_startup(R)
    t_end = R.t_train0 + rng.uniform(1.5, 9) * 3600
    R.t_fail = t_end
    mid = R.t_train0 + (t_end - R.t_train0) * 0.5
    t = emit_training(R, R.t_train0, mid)
    checkpoint_line(R, t + 1)
    # alarming but benign
    r = rng.choice(sorted(R.shown))
    if rng.random() < 0.5:
        R.add(t + 100, r, "%s - WARNING - checkpoint.py:233 - async upload attempt 1/5 failed: botocore.exceptions.ReadTimeoutError: Read timeout on endpoint URL: \"https://s3.%s.example-objectstore.net/ckpt-bucket/%s/step_%d/rank_%05d.distcp\"; retrying in 30s" % (
            f_py(t + 100, R.tz), rng.choice(["us-east", "eu-north"]), R.model, getattr(R, "_step", 0), r), stream="out")
        R.add(t + 140, r, "%s - INFO - checkpoint.py:241 - async upload attempt 2/5 succeeded" % f_py(t + 140, R.tz), stream="out")
    t2 = emit_training(R, t + 150, t_end)
    if R.vendor == "nvidia" and rng.random() < 0.5:
        R.nccl_warn(0, R.t_train0 - 50, "transport/net_ib.cc:%d" % rng.choice([212, 497]), "NET/IB : Got async event : GID table change")
    if rng.random() < 0.5:
        r = rng.choice(sorted(R.shown))
        R.nccl_info(r, R.t_train0 - 80, "Call to connect returned Connection refused, retrying")
    if R.style == "megatron" and rng.random() < 0.6:
        R.add(R.t_train0 + 400, R.world - 1, "[deepspeed] OVERFLOW! Rank %d Skipping step. Attempted loss scale: %d, reducing to %d" % (R.world - 1, 65536, 32768) if R.layout == "ds_megatron_rocm"
              else " [%s] iteration %8d/%8d | skipped: loss is inf/nan in grad norm, skipping update" % (_d(R.t_train0 + 400, R.tz).strftime("%Y-%m-%d %H:%M:%S"), getattr(R, "_step", 100), getattr(R, "total_steps", 1000)), stream="out")
    if R.tminor >= 4:
        for rr in sorted(R.shown):
            if rng.random() < 0.6:
                R.add(t2 + 14, rr, R.c10(rr, t2 + 14, "W", "ProcessGroupNCCL.cpp:%d" % rng.choice([1250, 1476, 1538])) + (
                    "Warning: WARNING: destroy_process_group() was not called before program exit, which can leak resources. For more info, please see https://pytorch.org/docs/stable/distributed.html#shutdown (function operator())" if R.tminor >= 5 else
                    "Warning: WARNING: process group has NOT been destroyed before we destruct ProcessGroupNCCL. On normal program exit, the application should call destroy_process_group to ensure that any pending NCCL operations have finished in this process. In rare cases this process can exit before this point and block the progress of another member of the process group. This constraint has always been present,  but this warning has only recently been added. For more info, please see https://pytorch.org/docs/stable/distributed.html#shutdown (function operator())"))
    if rng.random() < 0.7:
        handled_traceback(R, rng.choice(sorted(R.shown)), R.t_train0 + (t_end - R.t_train0) * rng.uniform(0.55, 0.9))
    R.flags["force_decoy"] = True
    R.add(t2 + 5, 0, "%s - INFO - train.py:640 - training finished: %d steps, final loss %.4f" % (f_py(t2 + 5, R.tz), getattr(R, "_step", 0), getattr(R, "_loss", 1.9)), stream="out")
    for rr in range(R.world):
        R.exit(rr, t2 + 15 + rng.uniform(0, 4), 0)
    set_truth(R, None, None, False, False)
    R.notes.append("healthy run; finished")


CAUSE_FN = {"gpu_hardware": c_gpu_hardware, "ecc_memory": c_ecc_memory, "nvlink": c_nvlink, "network": c_network,
            "cuda_oom": c_cuda_oom, "illegal_memory_access": c_illegal_memory_access, "python_exception": c_python_exception,
            "host_oom_kill": c_host_oom_kill, "crash_signal": c_crash_signal, "preemption": c_preemption, "hang": c_hang,
            "data_loader_stall": c_data_loader_stall, "collective_mismatch": c_collective_mismatch, "straggler": c_straggler,
            "unknown": c_unknown, None: c_healthy}


def add_decoys(R):
    """benign-but-alarming node events on a host that is not the culprit"""
    rng = R.rng
    if R.cause is not None and rng.random() < 0.2 and R.cause not in ("preemption",):
        t_end = R.t_fail
        if t_end - R.t_train0 > 1200:
            handled_traceback(R, rng.choice(sorted(R.shown)), R.t_train0 + (t_end - R.t_train0) * rng.uniform(0.2, 0.7))
    cands = [h for h in R.hosts if h != R.truth_node]
    if not cands and R.flags.get("force_decoy"):
        cands = list(R.hosts)
    if not cands or (rng.random() < 0.45 and not R.flags.get("force_decoy")):
        return
    d = rng.choice(cands)
    old = R.t0 - rng.uniform(2, 20) * 86400
    if d in R.boot and old < R.boot[d]:
        R.boot[d] = old - rng.uniform(3600, 86400)
    lg = rng.randrange(R.gpn)
    if R.vendor == "amd" and rng.random() < 0.3:
        b = R.gpu_bdf(lg)
        amd_reset_seq(R, d, lg, old, fail=False)
        R.notes.append("decoy: GPU reset on %s GPU%d %.1f days before the job (recovered)" % (d, lg, (R.t0 - old) / 86400))
    elif R.vendor == "amd":
        b = R.gpu_bdf(lg)
        if R.gpu == "MI250X":
            R.k(d, old, "amdgpu %s: amdgpu: %d correctable hardware errors detected in umc block" % (b, rng.randrange(1, 40)))
        else:
            e = rng.randrange(1, 9)
            n = rng.randrange(100, 2000)
            sk, di = rng.randrange(8), rng.randrange(4)
            R.k(d, old, "amdgpu %s: {%d}socket: %d, die: %d, %d new correctable hardware errors detected in xgmi_wafl block" % (b, e, sk, di, n))
            R.k(d, old + 0.0001, "amdgpu %s: {%d}socket: %d, die: %d, %d correctable hardware errors detected in total in xgmi_wafl block" % (b, e, sk, di, n))
        R.gpu_state.setdefault((d, lg), {})["ce_umc" if R.gpu == "MI250X" else "ce_xgmi_wafl"] = rng.randrange(1, 2000)
        R.notes.append("decoy: old correctable RAS errors on %s GPU%d" % (d, lg))
    else:
        pid = rng.randrange(10000, 900000)
        R.k(d, old, "NVRM: Xid (%s): 13, pid='<unknown>', name=<unknown>, Graphics SM Warp Exception on (GPC %d, TPC %d, SM %d): Out Of Range Address" % (R.xid_pci(lg), rng.randrange(8), rng.randrange(9), rng.randrange(2)))
        R.k(d, old + 0.001, "NVRM: Xid (%s): 13, pid='<unknown>', name=<unknown>, Graphics Exception: ESR 0x%x=0x%x 0x%x=0x24 0x%x=0x1f81fb60 0x%x=0x1174" % (R.xid_pci(lg), rng.randrange(0x500000, 0x5fffff), rng.randrange(1 << 28), rng.randrange(0x500000, 0x5fffff), rng.randrange(0x500000, 0x5fffff), rng.randrange(0x500000, 0x5fffff)))
        R.k(d, old + 3, "NVRM: Xid (%s): 43, pid=%d, name=python3, Ch 00000008" % (R.xid_pci(lg), pid))
        R.gpu_state.setdefault((d, lg), {})["agg_ce"] = rng.randrange(1, 30)
        R.notes.append("decoy: Xid 13/43 from an older job on %s" % d)
    R.node_files.append(d)
    R.flags["decoy_host"] = d


# ----------------------------------------------------------------------------------------------
# launcher-side text
# ----------------------------------------------------------------------------------------------

SIGNAME = {6: "SIGABRT", 9: "SIGKILL", 11: "SIGSEGV", 15: "SIGTERM", 7: "SIGBUS"}
SRUNMSG = {-6: "Aborted (core dumped)", -9: "Killed", -11: "Segmentation fault (core dumped)", -15: "Terminated", -7: "Bus error (core dumped)"}


def python_bin(R):
    if R.layout == "lumi_torchrun":
        return "/opt/miniconda3/envs/pytorch/bin/python"
    if R.vendor == "amd" and R.layout != "frontier_srun":
        return "/opt/conda/envs/py_%s/bin/python" % R.stack["py"]
    return site_pkgs(R).split("/lib/python")[0] + "/bin/python3"


def agent_log(R, host, t, lvl, src24, mod23, msg):
    if R.tminor >= 4:
        return f_glog(R.ht(t, host), R.tz, lvl, R.agent_pid[host], src24) + msg
    return "[%s] %s: [%s] %s" % (f_py(R.ht(t, host), R.tz), mod23, {"W": "WARNING", "E": "ERROR", "I": "INFO"}[lvl], msg)


def agent_start(R, host):
    t = R.t0 + 5 + R.rng.uniform(0, 3)
    out = []
    if R.gpn > 1:
        for m in ["", "*****************************************",
                  "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. ",
                  "*****************************************"]:
            out.append((t, "err", agent_log(R, host, t, "W", "torch/distributed/run.py:%d" % (793 if R.tminor < 7 else 766), "torch.distributed.run", m)))
    return out


def report_entry(R, idx, r, t, code, fqdn):
    host = R.host_of(r)
    d = _d(R.ht(t, host), R.tz)
    L = ["[%d]:" % idx, "  time      : %s" % d.strftime("%Y-%m-%d_%H:%M:%S"), "  host      : %s" % fqdn,
         "  rank      : %d (local_rank: %d)" % (r, R.lr(r)), "  exitcode  : %d (pid: %d)" % (code, R.pid[r]), "  error_file: <N/A>"]
    if code < 0:
        L.append("  traceback : Signal %d (%s) received by PID %d" % (-code, SIGNAME.get(-code, "SIG%d" % -code), R.pid[r]))
    else:
        L.append("  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html")
    return L


def torchrun_tb(R, final):
    sp = site_pkgs(R)
    py = R.stack["py"]
    carets = py >= "3.11"
    L = ["Traceback (most recent call last):",
         '  File "%s", line 8, in <module>' % (python_bin(R).rsplit("/", 1)[0] + "/torchrun"), "    sys.exit(main())"]
    if carets:
        L.append("             ^^^^^^")
    L += ['  File "%s/torch/distributed/elastic/multiprocessing/errors/__init__.py", line %d, in wrapper' % (sp, 355 if R.tminor >= 4 else 347),
          "    return f(*args, **kwargs)"]
    if carets:
        L.append("           ^^^^^^^^^^^^^^^^^^")
    L += ['  File "%s/torch/distributed/run.py", line %d, in main' % (sp, 919 if R.tminor >= 5 else 879), "    run(args)",
          '  File "%s/torch/distributed/run.py", line %d, in run' % (sp, 910 if R.tminor >= 5 else 870), "    elastic_launch(",
          '  File "%s/torch/distributed/launcher/api.py", line %d, in __call__' % (sp, 138 if R.tminor >= 4 else 132),
          "    return launch_agent(self._config, self._entrypoint, list(args))"]
    if carets:
        L.append("           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^")
    L += final
    return L


def agent_end(R, host, fqdn):
    """torchrun agent messages at the end of the job on one node: list of (t, stream, text)"""
    rng = R.rng
    loc = R.ranks_on(host)
    ex = [(R.exits[r][0], r, R.exits[r][1]) for r in loc if r in R.exits]
    if not ex:
        return []
    ex.sort()
    out = []
    if all(c == 0 for _, _, c in ex):
        t = ex[-1][0] + 0.3
        out.append((t, "err", agent_log(R, host, t, "I", "torch/distributed/elastic/agent/server/api.py:879", "torch.distributed.elastic.agent.server.api",
                                        "[default] worker group successfully finished. Waiting 300 seconds for other agents to finish.")))
        out.append((t + 0.2, "err", agent_log(R, host, t + 0.2, "I", "torch/distributed/elastic/agent/server/api.py:932", "torch.distributed.elastic.agent.server.api",
                                              "Local worker group finished (WorkerState.SUCCEEDED). Waiting 300 seconds for other agents to finish")))
        out.append((t + 0.4, "err", agent_log(R, host, t + 0.4, "I", "torch/distributed/elastic/agent/server/api.py:946", "torch.distributed.elastic.agent.server.api",
                                              "Done waiting for other agents. Elapsed: %.7f seconds" % rng.uniform(0.0005, 3.0))))
        return out
    if R.kill_all is not None and all(c == -15 for _, _, c in ex):
        t = R.kill_all + rng.uniform(0.01, 0.2)
        out.append((t, "err", agent_log(R, host, t, "W", "torch/distributed/elastic/agent/server/api.py:%d" % (719 if R.tminor >= 5 else 704), "torch.distributed.elastic.agent.server.api",
                                        "Received Signals.SIGTERM death signal, shutting down workers")))
        for k, r in enumerate(loc):
            tk = t + 0.001 + k * rng.uniform(0.00005, 0.0004)
            out.append((tk, "err", agent_log(R, host, tk, "W", "torch/distributed/elastic/multiprocessing/api.py:897", "torch.distributed.elastic.multiprocessing.api",
                                             "Sending process %d closing signal SIGTERM" % R.pid[r])))
        tb = torchrun_tb(R, ['  File "%s/torch/distributed/launcher/api.py", line 260, in launch_agent' % site_pkgs(R), "    result = agent.run()",
                             '  File "%s/torch/distributed/elastic/multiprocessing/api.py", line 84, in _terminate_process_handler' % site_pkgs(R),
                             "    raise SignalException(f\"Process {os.getpid()} got signal: {sigval}\", sigval=sigval)",
                             "torch.distributed.elastic.multiprocessing.api.SignalException: Process %d got signal: 15" % R.agent_pid[host]])
        out.append((t + 2.5, "err", "\n".join(tb)))
        return out
    bad = [(t_, r, c) for t_, r, c in ex if c not in (0, -15)]
    first = bad[0] if bad else ex[0]
    t1 = first[0] + rng.uniform(0.05, 0.6)
    k = 0
    for t_, r, c in ex:
        if c == -15:
            k += 1
            tk = t1 + k * rng.uniform(0.00005, 0.0004)
            out.append((tk, "err", agent_log(R, host, tk, "W", "torch/distributed/elastic/multiprocessing/api.py:897", "torch.distributed.elastic.multiprocessing.api",
                                             "Sending process %d closing signal SIGTERM" % R.pid[r])))
    t2 = t1 + rng.uniform(0.5, 3.0)
    out.append((t2, "err", agent_log(R, host, t2, "E", "torch/distributed/elastic/multiprocessing/api.py:869", "torch.distributed.elastic.multiprocessing.api",
                                     "failed (exitcode: %d) local_rank: %d (pid: %d) of binary: %s" % (first[2], R.lr(first[1]), R.pid[first[1]], python_bin(R)))))
    others = [(t_, r, c) for t_, r, c in bad if r != first[1]]
    rep = ["torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ", "=" * 60, "%s FAILED" % R.script, "-" * 60, "Failures:"]
    if others:
        for i, (t_, r, c) in enumerate(others[:8]):
            rep += report_entry(R, i + 1, r, t_, c, fqdn)
    else:
        rep.append("  <NO_OTHER_FAILURES>")
    rep += ["-" * 60, "Root Cause (first observed failure):"] + report_entry(R, 0, first[1], first[0], first[2], fqdn) + ["=" * 60]
    tb = torchrun_tb(R, ['  File "%s/torch/distributed/launcher/api.py", line %d, in launch_agent' % (site_pkgs(R), 270 if R.tminor >= 4 else 263), "    raise ChildFailedError("] + rep)
    out.append((t2 + 0.01, "err", "\n".join(tb)))
    return out


def srun_task_lines(R, tasks, host_of_task):
    """tasks: {task: (t, code)} -> srun error lines grouped per host/message"""
    groups = {}
    for task, (t, code) in tasks.items():
        if code == 0:
            continue
        msg = "Exited with exit code %d" % code if code > 0 else SRUNMSG.get(code, "Killed")
        h = host_of_task(task)
        key = (h, msg)
        groups.setdefault(key, []).append((t, task))
    out = []
    for (h, msg), lst in groups.items():
        lst.sort()
        t = lst[-1][0] + R.rng.uniform(0.2, 1.5)
        ids = [x[1] for x in lst]
        out.append((t, "srun: error: %s: %s %s: %s" % (h, "tasks" if len(ids) > 1 else "task", ranges(ids), msg)))
    out.sort()
    return out


def slurm_ts(R, t, host=None):
    return _d(R.ht(t, host) if host else t, R.tz).strftime("%Y-%m-%dT%H:%M:%S")


def slurm_end_lines(R, tasks, host_of_task):
    """srun/slurmstepd lines at the end of a Slurm job: list of (t, text)"""
    rng = R.rng
    out = []
    h0 = R.hosts[0]
    pre = R.flags.get("preempt")
    if R.kill_all is not None and pre:
        t = R.kill_all
        if pre == "CANCEL":
            out.append((t, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s ***" % (R.jobid, h0, slurm_ts(R, t, h0))))
        else:
            out.append((t, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO %s ***" % (R.jobid, h0, slurm_ts(R, t, h0), pre)))
        out.append((t + 0.01, "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s ***" % (R.jobid, h0, slurm_ts(R, t, h0))))
        out.append((t + 0.02, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish."))
        if rng.random() < 0.5:
            out.append((t + 0.03, "srun: got SIGCONT"))
            out.append((t + 0.04, "srun: forcing job termination"))
        return out
    if R.flags.get("hang_timelimit"):
        t = R.kill_all
        out.append((t, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO TIME LIMIT ***" % (R.jobid, h0, slurm_ts(R, t, h0))))
        out.append((t + 0.02, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish."))
    for h in R.oom_event_hosts:
        r = [x for x in R.exits if R.host_of(x) == h and R.exits[x][1] == -9]
        tt = R.exits[r[0]][0] + rng.uniform(0.5, 4) if r else R.t_fail
        out.append((tt, "slurmstepd: error: Detected 1 oom-kill event(s) in StepId=%d.0. Some of your processes may have been killed by the cgroup out-of-memory handler." % R.jobid))
    if R.flags.get("srun_killed"):
        t = R.flags["srun_killed"] + rng.uniform(0.3, 1.0)
        bad = sorted((v[0], k) for k, v in tasks.items() if v[1] not in (0, -15))
        first = bad[0][1] if bad else min(tasks, key=lambda k: tasks[k][0])
        fc = tasks[first][1]
        out.append((t, "srun: error: %s: task %d: %s" % (host_of_task(first), first, ("Exited with exit code %d" % fc) if fc > 0 else SRUNMSG.get(fc, "Killed"))))
        out.append((t + 0.01, "srun: Terminating StepId=%d.0" % R.jobid))
        out.append((t + 0.02, "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s ***" % (R.jobid, h0, slurm_ts(R, t, h0))))
        rest = {k: v for k, v in tasks.items() if k != first}
        out += [(max(tt, t + 0.5), x) for tt, x in srun_task_lines(R, rest, host_of_task)]
        return out
    if tasks and all(v[1] == 0 for v in tasks.values()):
        return out
    out += srun_task_lines(R, tasks, host_of_task)
    return out


def sacct_text(R, state, exitcode, step_state, step_exit, start, end, name):
    def ts(t):
        return _d(t, R.tz).strftime("%Y-%m-%dT%H:%M:%S")
    el = int(end - start)
    els = "%02d:%02d:%02d" % (el // 3600, (el % 3600) // 60, el % 60)
    if el >= 86400:
        els = "%d-%s" % (el // 86400, "%02d:%02d:%02d" % ((el % 86400) // 3600, (el % 3600) // 60, el % 60))
    acct = R.flags.setdefault("acct", R.rng.choice(["csc612", "project_465001", "llm-research", "ai-infra"]))
    L = ["$ sacct -j %d --format=JobID,JobName%%16,Partition,NNodes,State,ExitCode,Start,End,Elapsed,NodeList%%40" % R.jobid,
         "JobID                 JobName  Partition   NNodes      State ExitCode               Start                 End    Elapsed                                 NodeList ",
         "------------ ---------------- ---------- -------- ---------- -------- ------------------- ------------------- ---------- ---------------------------------------- "]
    nl = nodelist(R)
    L.append("%-12s %16s %10s %8d %10s %8s %19s %19s %10s %40s " % (R.jobid, name[:16], R.flags.setdefault("part", R.rng.choice(["batch", "standard-g", "gpu", "h100", "extended"])), len(R.hosts), state, exitcode, ts(start), ts(end), els, nl[:40]))
    L.append("%-12s %16s %10s %8d %10s %8s %19s %19s %10s %40s " % ("%d.batch" % R.jobid, "batch", "", 1, state if state != "TIMEOUT" else "CANCELLED", exitcode if state != "TIMEOUT" else "0:15", ts(start), ts(end), els, R.hosts[0]))
    L.append("%-12s %16s %10s %8d %10s %8s %19s %19s %10s %40s " % ("%d.extern" % R.jobid, "extern", "", len(R.hosts), "COMPLETED", "0:0", ts(start), ts(end), els, nl[:40]))
    L.append("%-12s %16s %10s %8d %10s %8s %19s %19s %10s %40s " % ("%d.0" % R.jobid, "python" if launcher_family(R) == "srun" else "torchrun", "", len(R.hosts), step_state, step_exit, ts(start + 30), ts(end), els, nl[:40]))
    return "\n".join(L) + "\n"


def nodelist(R):
    hs = R.hosts
    import re
    m = [re.match(r"^(.*?)(\d+)$", h) for h in hs]
    if all(m) and len(set(x.group(1) for x in m)) == 1:
        pfx = m[0].group(1)
        w = len(m[0].group(2))
        nums = [int(x.group(2)) for x in m]
        parts = []
        for p in ranges(nums).split(","):
            if "-" in p:
                a, b = p.split("-")
                parts.append("%0*d-%0*d" % (w, int(a), w, int(b)))
            else:
                parts.append("%0*d" % (w, int(p)))
        return "%s[%s]" % (pfx, ",".join(parts)) if len(hs) > 1 else hs[0]
    return ",".join(hs)


def job_state(R):
    """(sacct state, exitcode, step state, step exitcode)"""
    codes = [v[1] for v in R.exits.values()]
    pre = R.flags.get("preempt")
    if R.kill_all is not None and pre:
        if pre == "TIME LIMIT":
            return "TIMEOUT", "0:0", "CANCELLED", "0:15"
        if pre == "PREEMPTION":
            return "PREEMPTED", "0:0", "CANCELLED", "0:15"
        return "CANCELLED by %d" % R.rng.randrange(10000, 60000), "0:0", "CANCELLED", "0:15"
    if R.flags.get("hang_timelimit"):
        return "TIMEOUT", "0:0", "CANCELLED", "0:15"
    if all(c == 0 for c in codes):
        return "COMPLETED", "0:0", "COMPLETED", "0:0"
    if R.oom_event_hosts:
        return "OUT_OF_MEMORY", "0:125", "OUT_OF_ME+", "0:125"
    if launcher_family(R) == "srun":
        first = min(R.exits.values())
        c = first[1]
        return "FAILED", "1:0", "FAILED", ("%d:0" % c) if c > 0 else ("0:%d" % -c)
    return "FAILED", "1:0", "FAILED", "1:0"


# ----------------------------------------------------------------------------------------------
# rendering helpers
# ----------------------------------------------------------------------------------------------

def klevel(text):
    tl = text.lower()
    if any(k in tl for k in ("error", "fault", "failed", "uncorrectable", "xid", "fallen off", "killed process", "out of memory",
                             "segfault", "poison", "timeout", "blocked for more", "oom-kill", "invoked oom-killer")):
        return "err"
    if any(k in tl for k in ("warn", "link down", "link is down", "reset", "throttled", "not responding", "lost", "unplugged")):
        return "warn"
    return "info"


def end_time(R):
    return max(v[0] for v in R.exits.values()) if R.exits else R.t_fail


def kernel_text(R, host, fmt, bootstamp=True):
    rng = R.rng
    t_end = end_time(R)
    ents = list(R.klog.get(host, []))
    ents += kernel_noise(R, host, R.t0 - 1800, t_end + 600)
    ents.sort(key=lambda x: x[0])
    boot = R.boot.get(host, R.t0 - 86400 * 10)
    out = []
    for t, text in ents:
        ht = R.ht(t, host)
        for line in text.split("\n"):
            if fmt == "T":
                out.append("%s %s" % (f_dmesg_T(ht, R.tz), line))
            elif fmt == "rel":
                out.append("[%12.6f] %s" % (t - boot, line))
            elif fmt == "iso":
                out.append("kern  :%-6s: %s %s" % (klevel(line), f_iso(ht, R.tz, 6, True, "T", True), line))
            elif fmt == "syslog":
                out.append("%s %s kernel: [%12.6f] %s" % (f_syslog(ht, R.tz), host, t - boot, line))
            elif fmt == "journal":
                out.append("%s %s kernel: %s" % (f_iso(ht, R.tz, 0, False), host, line))
            elif fmt == "rfc":
                out.append("%s %s kernel: %s" % (f_iso(ht, 0, 6, True), host, line))
    return "\n".join(out) + "\n"


def trim_marker(R):
    n = R.world - len(R.shown)
    return R.rng.choice(["[... output of %d other ranks removed to fit the attachment limit ...]" % n,
                         "<snip: %d ranks not shown, same watchdog messages as below>" % n,
                         "...",
                         "[trimmed: log was %.1f MB; kept rank 0, the last rank and a sample]" % R.rng.uniform(12, 240)])


def worker_items(R, pfx, streams=("out", "err")):
    items = []
    for t, rank, host, stream, text in R.recs:
        if stream not in streams:
            continue
        items.append((t, pfx(rank, host, text)))
    return items


def first_fail_time(R):
    bad = [v[0] for v in R.exits.values() if v[1] != 0]
    return min(bad) if bad else None


def insert_trim(R, items):
    if not R.trimmed:
        return items
    tf = first_fail_time(R)
    if tf is None:
        tf = R.t_train0 + 60
    items.append((tf - 0.5, trim_marker(R)))
    return items


def write(outdir, rel, text):
    p = os.path.join(outdir, rel)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, "w", encoding="utf-8") as fh:
        fh.write(text if text.endswith("\n") else text + "\n")


def join_sorted(items):
    items = sorted(items, key=lambda x: x[0])
    return "\n".join(x[1] for x in items) + "\n"


def smi_time(R):
    if R.cause == "straggler":
        return R.t_fail + R.rng.uniform(1800, 5400)
    return end_time(R) + R.rng.uniform(300, 5400)


def smi_amd_file(R, host, style):
    t = smi_time(R)
    L = ["$ rocm-smi"] + rocm_smi_concise(R, host, t)
    if style in ("bus", "full"):
        L += ["$ rocm-smi --showbus"] + rocm_smi_bus(R, host)
    if style == "full":
        L += ["$ rocm-smi --showrasinfo all"] + rocm_smi_ras(R, host)
    if host == R.truth_node or (R.truth_node is None):
        R.flags["map_attached"] = True
    return "\n".join(L) + "\n"


def amdsmi_file(R, host):
    L = ["$ amd-smi list"] + amd_smi_list(R, host) + ["$ amd-smi metric --ecc --ecc-blocks"] + amd_smi_ecc(R, host)
    if host == R.truth_node:
        R.flags["map_attached"] = True
    return "\n".join(L) + "\n"


def nv_smi_file(R, host, extra_sections=()):
    t = smi_time(R)
    L = ["$ nvidia-smi"] + nvidia_smi_table(R, host, t)
    secs = ["ECC", "ROWS"] + list(extra_sections)
    if R.cause == "straggler":
        secs.append("PERF")
    if R.gpu == "GB200":
        secs.append("FABRIC")
    L += ["", "$ nvidia-smi -q -d %s" % ",".join(x if x != "ROWS" else "ROW_REMAPPER" for x in secs if x != "FABRIC")] + nvidia_smi_q(R, host, t, tuple(secs))
    if R.cause == "nvlink":
        st_links = []
        for g in range(R.gpn):
            st = R.gpu_state.get((host, g), {})
            st_links.append("GPU %d: %s (UUID: GPU-%08x-%04x-%04x-%04x-%012x)" % (g, R.gi["name"], R.rng.randrange(1 << 32), R.rng.randrange(1 << 16), R.rng.randrange(1 << 16), R.rng.randrange(1 << 16), R.rng.randrange(1 << 48)))
            for ln in range(18):
                if st.get("nvl_down") and ln == st.get("nvl_link"):
                    st_links.append("\t Link %d: <inactive>" % ln)
                else:
                    st_links.append("\t Link %d: %s GB/s" % (ln, "50" if R.gpu == "GB200" else "26.562"))
        L += ["", "$ nvidia-smi nvlink -s"] + st_links
    if host == R.truth_node:
        R.flags["map_attached"] = True
    return "\n".join(L) + "\n"


def ibstat_text(R, host):
    rng = R.rng
    L = []
    for i in range(min(8, R.gpn)):
        down = R.flags.get("down_hca") == "mlx5_%d" % i and host == R.truth_node
        L += ["CA 'mlx5_%d'" % i, "\tCA type: MT4129", "\tNumber of ports: 1", "\tFirmware version: 28.%d.%04d" % (rng.choice([39, 41, 43]), rng.randrange(1000, 2000)),
              "\tHardware version: 0", "\tNode GUID: 0x%016x" % rng.randrange(1 << 63), "\tSystem image GUID: 0x%016x" % rng.randrange(1 << 63), "\tPort 1:",
              "\t\tState: %s" % ("Down" if down else "Active"), "\t\tPhysical state: %s" % ("Polling" if down else "LinkUp"),
              "\t\tRate: %d" % (10 if down else 400), "\t\tBase lid: %d" % (65535 if down else rng.randrange(1, 4000)), "\t\tLMC: 0",
              "\t\tSM lid: %d" % (0 if down else 1), "\t\tCapability mask: 0xa751e848", "\t\tPort GUID: 0x%016x" % rng.randrange(1 << 63), "\t\tLink layer: InfiniBand"]
    return "\n".join(L) + "\n"


def attach_node_files(R, out, host, kfmt, kname, smi_name, vendor_style="bus"):
    write(out, kname, kernel_text(R, host, kfmt))
    if smi_name:
        if R.vendor == "amd":
            write(out, smi_name, smi_amd_file(R, host, "full" if R.cause in ("ecc_memory", "nvlink") else vendor_style))
        else:
            write(out, smi_name, nv_smi_file(R, host))


def node_hosts(R):
    seen = []
    for h in R.node_files:
        if h not in seen and h in R.hosts:
            seen.append(h)
    return seen


# ----------------------------------------------------------------------------------------------
# layout renderers
# ----------------------------------------------------------------------------------------------

def render_frontier(R, out):
    rng = R.rng
    w = len(str(R.world - 1))
    pfx = lambda rank, host, text: ("%*d: %s" % (w, rank, text)) if rank is not None else text
    items = worker_items(R, pfx)
    head = ["+ module load PrgEnv-gnu/8.5.0 rocm/%s craype-accel-amd-gfx90a" % R.stack["rocm"].rsplit(".", 1)[0] + ".0",
            "+ export MIOPEN_USER_DB_PATH=/tmp/%s-miopen-cache-$SLURM_JOB_ID" % R.flags.setdefault("user", "jdoe"),
            "+ export NCCL_SOCKET_IFNAME=hsn0", "+ export FI_CXI_ATS=0", "+ export NCCL_NET_GDR_LEVEL=3",
            "+ export NCCL_DEBUG=%s" % (R.nccl_debug or "WARN"), "+ export MASTER_ADDR=%s" % R.hosts[0], "+ export MASTER_PORT=%d" % R.port,
            "+ srun -N %d -n %d -c 7 --gpus-per-task=1 --gpu-bind=closest%s python -u %s --config configs/%s.yaml" % (
                len(R.hosts), R.world, " --kill-on-bad-exit=1" if getattr(R, "kill_on_bad_exit", False) else "", R.script, R.model)]
    for i, hl in enumerate(head):
        items.append((R.t0 + i * 0.01, hl))
    tasks = {r: R.exits[r] for r in range(R.world) if r in R.exits}
    items += slurm_end_lines(R, tasks, R.host_of)
    items = insert_trim(R, items)
    write(out, "slurm-%d.out" % R.jobid, join_sorted(items))
    write(out, "submit.sbatch", "\n".join(["#!/bin/bash", "#SBATCH -A %s" % R.flags.setdefault("proj", "csc612").upper(), "#SBATCH -J %s" % R.model,
                                            "#SBATCH -o slurm-%j.out", "#SBATCH -t %02d:00:00" % rng.choice([2, 6, 12, 24]), "#SBATCH -p batch",
                                            "#SBATCH -N %d" % len(R.hosts), "#SBATCH -q normal", "", "set -x"] + [x[2:] for x in head]) + "\n")
    for h in node_hosts(R):
        attach_node_files(R, out, h, "T", "%s_dmesg.txt" % h, "rocm-smi_%s.txt" % h)
    st, ec, sst, sec = job_state(R)
    write(out, "sacct_%d.txt" % R.jobid, sacct_text(R, st, ec, sst, sec, R.t0, end_time(R) + 5, R.model))


def render_lumi(R, out):
    rng = R.rng
    label = R.flags.setdefault("label", rng.random() < 0.5)

    def pfx(rank, host, text):
        p = ""
        if label and host is not None:
            p = "%d: " % R.hosts.index(host)
        if R.tee and rank is not None:
            p += "[default%d]:" % R.lr(rank)
        return p + text
    outi = worker_items(R, pfx, ("out",))
    erri = worker_items(R, pfx, ("err",))
    for h in R.hosts:
        for t, stream, text in agent_start(R, h) + agent_end(R, h, h):
            for ln in text.split("\n"):
                erri.append((t, ("%d: " % R.hosts.index(h) if label else "") + ln))
                t += 0.00001
    outi.append((R.t0, "Running on %s" % nodelist(R)))
    outi.append((R.t0 + 0.01, "Using container /appl/local/containers/sif-images/lumi-pytorch-rocm-%s-python-%s-pytorch-v%s.sif" % (
        R.stack["rocm"], R.stack["py"], R.stack["torch"].split("+")[0])))
    tasks = {}
    for n, h in enumerate(R.hosts):
        loc = [R.exits[r] for r in R.ranks_on(h) if r in R.exits]
        if not loc:
            continue
        codes = [c for _, c in loc]
        tmax = max(t for t, _ in loc)
        if all(c == 0 for c in codes):
            tasks[n] = (tmax + 1, 0)
        elif R.kill_all is not None and all(c == -15 for c in codes):
            tasks[n] = (tmax + 1, -15)
        else:
            tasks[n] = (tmax + 3, 1)
    erri += slurm_end_lines(R, tasks, lambda n: R.hosts[n])
    erri = insert_trim(R, erri)
    write(out, "slurm-%d.out" % R.jobid, join_sorted(outi))
    write(out, "slurm-%d.err" % R.jobid, join_sorted(erri))
    for h in node_hosts(R):
        write(out, "journal_%s.txt" % h, "-- Journal begins at %s. --\n" % f_iso(R.boot.get(h, R.t0 - 86400), R.tz, 0, False).replace("T", " ") + kernel_text(R, h, "journal"))
        write(out, "amd-smi_%s.txt" % h, amdsmi_file(R, h))
    if rng.random() < 0.5:
        st, ec, sst, sec = job_state(R)
        write(out, "sacct.txt", sacct_text(R, st, ec, sst, sec, R.t0, end_time(R) + 5, R.model))


def k8s_prefix(R, t):
    return (f_rfc3339z(t) + " ") if R.kts else ""


def render_k8s(R, out):
    rng = R.rng
    ns = R.flags.setdefault("ns", rng.choice(["ml-train", "research", "llm", "team-a"]))
    job = R.jobname
    t_end = end_time(R)
    amd = R.vendor == "amd"
    res = "amd.com/gpu" if amd else "nvidia.com/gpu"
    image = ("rocm/pytorch:rocm%s_ubuntu22.04_py%s_pytorch_release_%s" % (R.stack["rocm"], R.stack["py"], R.stack["torch"].split("+")[0])
             if amd else "nvcr.io/nvidia/pytorch:%s-py3" % rng.choice(["24.09", "24.12", "25.01", "25.03", "25.06"]))
    # per-pod logs
    for n, pod in enumerate(R.hosts):
        items = []
        for t, rank, host, stream, text in R.recs:
            if host == pod:
                items.append((t, k8s_prefix(R, R.ht(t, pod)) + text))
        for t, stream, text in agent_start(R, pod) + agent_end(R, pod, pod):
            for ln in text.split("\n"):
                items.append((t, k8s_prefix(R, R.ht(t, pod)) + ln))
                t += 0.00001
        if any(R.host_of(r) == pod for r in R.shown) or n == 0:
            write(out, "logs/%s.log" % pod, join_sorted(items))
    # events
    tc = t_end + rng.uniform(300, 3600)

    def age(t):
        s = int(tc - t)
        if s < 120:
            return "%ds" % s
        if s < 3600 * 2:
            return "%dm" % (s // 60)
        return "%dh" % (s // 3600)
    ev = []
    for pod in R.hosts:
        node = R.k8s_node[pod]
        ev.append((R.t0 - 40, "Normal", "SuccessfulCreatePod", "pytorchjob/%s" % job, "Created pod: %s" % pod))
        ev.append((R.t0 - 38, "Normal", "Scheduled", "pod/%s" % pod, "Successfully assigned %s/%s to %s" % (ns, pod, node)))
        ev.append((R.t0 - 20, "Normal", "Pulled", "pod/%s" % pod, 'Container image "%s" already present on machine' % image))
        ev.append((R.t0 - 19, "Normal", "Created", "pod/%s" % pod, "Created container: pytorch"))
        ev.append((R.t0 - 18, "Normal", "Started", "pod/%s" % pod, "Started container pytorch"))
    pre = R.flags.get("preempt")
    failed_pods = []
    for pod in R.hosts:
        loc = [R.exits[r] for r in R.ranks_on(pod) if r in R.exits]
        if loc and any(c != 0 for _, c in loc):
            failed_pods.append((min(t for t, c in loc if c != 0), pod))
    failed_pods.sort()
    if R.kill_all is not None and pre in ("kueue", "spot", "CANCEL", "TIME LIMIT"):
        if pre == "kueue" or pre == "spot":
            uid = "%08x-%04x-%04x-%04x-%012x" % (rng.randrange(1 << 32), rng.randrange(1 << 16), rng.randrange(1 << 16), rng.randrange(1 << 16), rng.randrange(1 << 48))
            ev.append((R.kill_all - 1, "Normal", "Preempted", "workload/pytorchjob-%s-%05x" % (job, rng.randrange(1 << 20)),
                       "Preempted to accommodate a workload (UID: %s, JobUID: %s) due to prioritization in the ClusterQueue" % (uid, uid[::-1])))
            ev.append((R.kill_all - 0.5, "Normal", "Stopped", "pytorchjob/%s" % job, "Preempted to accommodate a higher priority Workload"))
        for pod in R.hosts:
            ev.append((R.kill_all, "Normal", "Killing", "pod/%s" % pod, "Stopping container pytorch"))
    elif failed_pods:
        tfp, fpod = failed_pods[0]
        if R.cause == "host_oom_kill" and R.truth_node:
            pass
        ev.append((tfp + 5, "Normal", "ExitedWithCode", "pytorchjob/%s" % job, "Pod: %s.%s exited with code %d" % (ns, fpod, 137 if (R.cause == "host_oom_kill" and R.host_of(R.truth_rank) == fpod) else 1)))
        ev.append((tfp + 6, "Warning", "PyTorchJobFailed", "pytorchjob/%s" % job, "PyTorchJob %s/%s is failed because 1 %s replica(s) failed." % (ns, job, "Master" if fpod.endswith("master-0") else "Worker")))
        for pod in R.hosts:
            if pod != fpod and rng.random() < 0.7:
                ev.append((tfp + 7, "Normal", "SuccessfulDeletePod", "pytorchjob/%s" % job, "Deleted pod: %s" % pod))
    else:
        ev.append((t_end + 3, "Normal", "PyTorchJobSucceeded", "pytorchjob/%s" % job, "PyTorchJob %s/%s successfully completed." % (ns, job)))
    if R.cause == "gpu_hardware" and R.truth_node:
        ev.append((R.t_fail + 40, "Warning", "GPUUnhealthy" if amd else "NVIDIAGPUUnhealthy", "node/%s" % R.k8s_node[R.truth_node],
                   "%s device %s on node %s reported unhealthy by device plugin" % ("AMD GPU" if amd else "NVIDIA GPU", R.gpu_bdf(R.lr(R.truth_rank)), R.k8s_node[R.truth_node])))
    ev.sort(key=lambda x: x[0])
    L = ["$ kubectl get events -n %s --sort-by=.lastTimestamp" % ns, "LAST SEEN   TYPE      REASON                OBJECT                                        MESSAGE"]
    for t, ty, rs, ob, msg in ev:
        L.append("%-11s %-9s %-21s %-45s %s" % (age(t), ty, rs, ob, msg))
    write(out, "events.txt", "\n".join(L) + "\n")
    # describe the first failed pod
    if failed_pods or (R.kill_all is not None):
        fpod = failed_pods[0][1] if failed_pods else R.hosts[0]
        oomk = R.cause == "host_oom_kill" and R.truth_rank is not None and R.host_of(R.truth_rank) == fpod
        reason = "OOMKilled" if oomk else ("Error" if R.kill_all is None else "Error")
        code = 137 if oomk else (143 if R.kill_all is not None else 1)
        d0 = _d(R.t0, 0)
        d1 = _d(end_time(R) + 2, 0)
        idx = R.hosts.index(fpod)
        D = ["$ kubectl describe pod -n %s %s" % (ns, fpod), "Name:             %s" % fpod, "Namespace:        %s" % ns, "Priority:         %d" % rng.choice([0, 100, 1000]),
             "Service Account:  default", "Node:             %s/%s" % (R.k8s_node[fpod], R.ip[fpod]),
             "Start Time:       %s" % d0.strftime("%a, %d %b %Y %H:%M:%S +0000"),
             "Labels:           training.kubeflow.org/job-name=%s" % job, "                  training.kubeflow.org/operator-name=pytorchjob-controller",
             "                  training.kubeflow.org/replica-index=%d" % (0 if idx == 0 else idx - 1),
             "                  training.kubeflow.org/replica-type=%s" % ("master" if idx == 0 else "worker"),
             "Status:           Failed", "IP:               10.244.%d.%d" % (rng.randrange(0, 60), rng.randrange(2, 250)),
             "Controlled By:  PyTorchJob/%s" % job, "Containers:", "  pytorch:",
             "    Container ID:  containerd://%064x" % rng.randrange(1 << 255), "    Image:         %s" % image,
             "    Command:", "      torchrun", "    Args:", "      --nnodes=%d" % len(R.hosts), "      --nproc-per-node=%d" % R.gpn, "      %s" % R.script,
             "    State:          Terminated", "      Reason:       %s" % reason, "      Exit Code:    %d" % code,
             "      Started:      %s" % d0.strftime("%a, %d %b %Y %H:%M:%S +0000"), "      Finished:     %s" % d1.strftime("%a, %d %b %Y %H:%M:%S +0000"),
             "    Ready:          False", "    Restart Count:  0", "    Limits:", "      %s:  %d" % (res, R.gpn), "      memory:        %dGi" % R.flags.setdefault("memlim", rng.choice([800, 1200, 1600])),
             "    Requests:", "      %s:  %d" % (res, R.gpn), "      cpu:           %d" % rng.choice([96, 128, 180]), "      memory:        %dGi" % R.flags["memlim"],
             "Conditions:", "  Type              Status", "  Initialized       True ", "  Ready             False ", "  ContainersReady   False ", "  PodScheduled      True ",
             "QoS Class:                   Burstable", "Events:                      <none>"]
        write(out, "describe-%s.txt" % fpod, "\n".join(D) + "\n")
    for h in node_hosts(R):
        node = R.k8s_node[h]
        if amd:
            write(out, "nodes/%s/dmesg.txt" % node, kernel_text(R, h, "iso"))
            write(out, "nodes/%s/amd-smi.txt" % node, amdsmi_file(R, h))
        else:
            write(out, "nodes/%s/dmesg.txt" % node, kernel_text(R, h, "T"))
            write(out, "nodes/%s/nvidia-smi.txt" % node, nv_smi_file(R, h))
        if R.cause == "gpu_hardware" and h == R.truth_node:
            write(out, "nodes/%s/describe-node.txt" % node, "\n".join([
                "$ kubectl describe node %s | sed -n '/Capacity/,/System Info/p'" % node, "Capacity:", "  %s:     %d" % (res, R.gpn), "  cpu:                %d" % 192,
                "  ephemeral-storage:  %dKi" % 3750157280, "  memory:             %dKi" % 2113500000, "  pods:               110", "Allocatable:",
                "  %s:     %d" % (res, R.gpn - 1), "  cpu:                %d" % 191, "  ephemeral-storage:  %d" % 3456079468419, "  memory:             %dKi" % 2112400000,
                "  pods:               110", "System Info:"]) + "\n")
    if R.layout == "k8s_nvidia_mixedpool":
        L = ["$ kubectl get nodes -L node.kubernetes.io/instance-type,accelerator", "NAME                                STATUS   ROLES    AGE    VERSION    INSTANCE-TYPE   ACCELERATOR"]
        for pod in R.hosts:
            L.append("%-35s %-8s %-8s %-6s %-10s %-15s %s" % (R.k8s_node[pod], "Ready", "<none>", "%dd" % rng.randrange(20, 200), "v1.%d.%d" % (rng.choice([29, 30, 31]), rng.randrange(1, 9)), "a3-ultragpu-8g" if R.gpu == "H200" else "a3-megagpu-8g", R.gpu.lower()))
        for amdn in R.amd_neighbors:
            L.append("%-35s %-8s %-8s %-6s %-10s %-15s %s" % (amdn, "Ready", "<none>", "%dd" % rng.randrange(20, 200), "v1.30.5", "mi300x-8x", "mi300x"))
        write(out, "kubectl-get-nodes.txt", "\n".join(L) + "\n")
        if rng.random() < 0.6:
            an = rng.choice(R.amd_neighbors)
            fake = Run(random.Random("%s-amdneighbor" % an), R.idx, R.layout, None)
            fake.gpn = 8
            fake.gi = GPU_INFO["MI300X"]
            fake.kfd_base = 2
            fake.truth_node = None
            fake.flags = {}
            fake.rng = random.Random("%s-amd" % an)
            fake.gpu_state = {(an, fake.rng.randrange(8)): {"ce_umc": fake.rng.randrange(1, 400), "deferred": fake.rng.randrange(0, 3)}}
            write(out, "nodes/%s/amd-smi.txt" % an, "\n".join(["$ amd-smi list"] + amd_smi_list(fake, an) + ["$ amd-smi metric --ecc --ecc-blocks"] + amd_smi_ecc(fake, an)) + "\n")
            R.notes.append("decoy: amd-smi from unrelated MI300X pool node %s with correctable/deferred counts" % an)
    write(out, "pytorchjob.yaml", "\n".join([
        "apiVersion: kubeflow.org/v1", "kind: PyTorchJob", "metadata:", "  name: %s" % job, "  namespace: %s" % ns, "spec:", "  runPolicy:", "    cleanPodPolicy: Running",
        "    backoffLimit: 0", "  pytorchReplicaSpecs:", "    Master:", "      replicas: 1", "      restartPolicy: Never", "      template:", "        spec:", "          containers:",
        "          - name: pytorch", "            image: %s" % image, "            command: [\"torchrun\", \"--nnodes=%d\", \"--nproc-per-node=%d\", \"%s\"]" % (len(R.hosts), R.gpn, R.script),
        "            resources:", "              limits:", "                %s: %d" % (res, R.gpn)] + (["    Worker:", "      replicas: %d" % (len(R.hosts) - 1), "      restartPolicy: Never"] if len(R.hosts) > 1 else [])) + "\n")


def render_ds(R, out):
    rng = R.rng
    h0 = R.hosts[0]
    items = []

    def ds_log(t, host, lvl, src, msg):
        return "[%s] [%s] [%s] %s" % (f_py(R.ht(t, host), R.tz), lvl, src, msg)
    t = R.t0
    items.append((t, ds_log(t, h0, "INFO", "real_accelerator.py:222:get_accelerator", "Setting ds_accelerator to cuda (auto detect)")))
    items.append((t + 1, ds_log(t + 1, h0, "INFO", "runner.py:607:main", "cmd = pdsh -S -f 1024 -w %s export PYTHONPATH=%s; export NCCL_IB_HCA=%s; export NCCL_DEBUG=%s;  cd %s; %s -u -m deepspeed.launcher.launch --world_info=%s --node_rank=%%n --master_addr=%s --master_port=%d pretrain_gpt.py --tensor-model-parallel-size %d --pipeline-model-parallel-size 1 --num-layers 80 --hidden-size 8192 --seq-length 8192 --micro-batch-size 1 --global-batch-size 512 --bf16 --deepspeed --deepspeed_config ds_config.json" % (
        ",".join(R.hosts), workdir(R), ("bnxt_re" if R.nic == "bnxt_re" else "mlx5"), R.nccl_debug or "WARN", workdir(R), python_bin(R), "eyJ" + "".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789") for _ in range(40)) + "fQ==",
        R.ip[h0], R.port, min(8, R.gpn)))))
    for h in R.hosts:
        tt = t + 3 + rng.uniform(0, 2)
        items.append((tt, "%s: %s" % (h, ds_log(tt, h, "INFO", "launch.py:146:main", "WORLD INFO DICT: {%s}" % ", ".join("'%s': [%s]" % (x, ", ".join(str(i) for i in range(R.gpn))) for x in R.hosts[:4]) + (", ..." if len(R.hosts) > 4 else "")))))
        items.append((tt + 0.01, "%s: %s" % (h, ds_log(tt, h, "INFO", "launch.py:152:main", "nnodes=%d, num_local_procs=%d, node_rank=%d" % (len(R.hosts), R.gpn, R.hosts.index(h))))))
        items.append((tt + 0.02, "%s: %s" % (h, ds_log(tt, h, "INFO", "launch.py:163:main", "dist_world_size=%d" % R.world))))
        items.append((tt + 0.03, "%s: %s" % (h, ds_log(tt, h, "INFO", "launch.py:165:main", "Setting CUDA_VISIBLE_DEVICES=%s" % ",".join(str(i) for i in range(R.gpn))))))
    for tt, rank, host, stream, text in R.recs:
        items.append((tt, ("%s: %s" % (host, text)) if host else text))
    # launcher endings
    for h in R.hosts:
        loc = sorted((R.exits[r][0], r, R.exits[r][1]) for r in R.ranks_on(h) if r in R.exits)
        if not loc:
            continue
        if all(c == 0 for _, _, c in loc):
            continue
        bad = [x for x in loc if x[2] not in (0, -15)] or loc
        tf, rf, cf = bad[0]
        tk = tf + rng.uniform(0.1, 1.0)
        for _, r, c in loc:
            if r != rf:
                items.append((tk, "%s: %s" % (h, ds_log(tk, h, "INFO", "launch.py:%d:sigkill_handler" % rng.choice([316, 319]), "Killing subprocess %d" % R.pid[r]))))
        items.append((tk + 0.5, "%s: %s" % (h, ds_log(tk + 0.5, h, "ERROR", "launch.py:%d:sigkill_handler" % rng.choice([322, 325]),
                                                       "['%s', '-u', 'pretrain_gpt.py', '--local_rank=%d', '--tensor-model-parallel-size', '%d', '--deepspeed', '--deepspeed_config', 'ds_config.json'] exits with return code = %d" % (
                                                           python_bin(R), R.lr(rf), min(8, R.gpn), cf)))))
        items.append((tk + 0.9, "pdsh@%s: %s: ssh exited with exit code %d" % (h0, h, cf & 0xff if cf < 0 else cf)))
    if R.kill_all is not None:
        if R.flags.get("preempt") == "CANCEL":
            items.append((R.kill_all - 0.2, "^C[%s] [INFO] [runner.py:%d:main] KeyboardInterrupt, killing pdsh" % (f_py(R.kill_all, R.tz), rng.choice([676, 702]))))
            items.append((R.kill_all + 0.1, "pdsh@%s: interrupt (one more within 1 sec to abort)" % h0))
        else:
            items.append((R.kill_all - 1, "Broadcast message from root@%s (somewhere) (%s):\n\nnode reservation '%s' starts in 0 minutes: running jobs on %s are being terminated (SIGTERM)\n" % (
                h0, _d(R.kill_all - 1, R.tz).strftime("%a %b %d %H:%M:%S %Y"), rng.choice(["pm-firmware", "rack12-swap", "preempt-prio"]), nodelist(R))))
    items = insert_trim(R, items)
    write(out, "train_%s.log" % _d(R.t0, R.tz).strftime("%Y%m%d_%H%M"), join_sorted(items))
    write(out, "hostfile", "\n".join("%s slots=%d" % (h, R.gpn) for h in R.hosts) + "\n")
    for h in node_hosts(R):
        attach_node_files(R, out, h, rng.choice(["T", "rel"]), "dmesg_%s.txt" % h, "rocm-smi_%s.txt" % h)


def render_slurm_nv(R, out):
    rng = R.rng
    label = R.srun_label

    def pfx(rank, host, text):
        p = ""
        if label and host is not None:
            p = "%d: " % R.hosts.index(host)
        if R.tee and rank is not None:
            p += "[default%d]:" % R.lr(rank)
        return p + text
    items = worker_items(R, pfx)
    fq = rng.random() < 0.5
    dom = R.flags.setdefault("dom", rng.choice(["cluster.local", "hpc.example.org", "ai.internal"]))
    for h in R.hosts:
        for t, stream, text in agent_start(R, h) + agent_end(R, h, ("%s.%s" % (h, dom)) if fq else h):
            for ln in text.split("\n"):
                items.append((t, ("%d: " % R.hosts.index(h) if label else "") + ln))
                t += 0.00001
    items.append((R.t0, "MASTER_ADDR=%s MASTER_PORT=%d NNODES=%d" % (R.hosts[0], R.port, len(R.hosts))))
    items.append((R.t0 + 0.01, "+ srun --ntasks-per-node=1 --cpu-bind=none torchrun --nnodes=%d --nproc-per-node=%d --rdzv-backend=c10d --rdzv-endpoint=%s:%d %s%s" % (
        len(R.hosts), R.gpn, R.hosts[0], R.port, "--tee 3 " if R.tee else "", R.script)))
    tasks = {}
    for n, h in enumerate(R.hosts):
        loc = [R.exits[r] for r in R.ranks_on(h) if r in R.exits]
        if not loc:
            continue
        codes = [c for _, c in loc]
        tmax = max(t for t, _ in loc)
        tasks[n] = (tmax + 1, 0 if all(c == 0 for c in codes) else (-15 if (R.kill_all is not None and all(c == -15 for c in codes)) else 1))
    items += slurm_end_lines(R, tasks, lambda n: R.hosts[n])
    items = insert_trim(R, items)
    write(out, "slurm-%d.out" % R.jobid, join_sorted(items))
    for h in node_hosts(R):
        write(out, "kern_%s.log" % h, kernel_text(R, h, "syslog"))
        write(out, "nvidia-smi_%s.txt" % h, nv_smi_file(R, h))
        if R.cause == "network" and h == R.truth_node:
            write(out, "ibstat_%s.txt" % h, ibstat_text(R, h))
    st, ec, sst, sec = job_state(R)
    write(out, "sacct.txt", sacct_text(R, st, ec, sst, sec, R.t0, end_time(R) + 5, R.model))


def render_gb200(R, out):
    rng = R.rng
    w = len(str(R.world - 1))
    pfx = lambda rank, host, text: ("%*d: %s" % (w, rank, text)) if rank is not None else text
    items = worker_items(R, pfx)
    items.append((R.t0, "+ srun --mpi=pmix --ntasks-per-node=4 --gpus-per-node=4 --segment=%d --container-image=%s --container-mounts=/lustre:/lustre%s python -u %s" % (
        min(18, len(R.hosts)), rng.choice(["nvcr.io#nvidia/nemo:25.04", "nvcr.io#nvidia/pytorch:25.06-py3", "/lustre/fsw/images/megatron-gb200.sqsh"]),
        " --kill-on-bad-exit=1" if getattr(R, "kill_on_bad_exit", False) else "", R.script)))
    items.append((R.t0 + 0.5, "pyxis: importing docker image: %s" % rng.choice(["nvcr.io#nvidia/nemo:25.04", "nvcr.io#nvidia/pytorch:25.06-py3"])))
    items.append((R.t0 + 40, "pyxis: imported docker image: %s" % rng.choice(["nvcr.io#nvidia/nemo:25.04", "nvcr.io#nvidia/pytorch:25.06-py3"])))
    tasks = {r: R.exits[r] for r in range(R.world) if r in R.exits}
    items += slurm_end_lines(R, tasks, R.host_of)
    items = insert_trim(R, items)
    write(out, "slurm-%d.out" % R.jobid, join_sorted(items))
    for h in node_hosts(R):
        write(out, "dmesg_%s.txt" % h, kernel_text(R, h, rng.choice(["T", "rel"])))
        write(out, "nvidia-smi-q_%s.txt" % h, nv_smi_file(R, h))
    st, ec, sst, sec = job_state(R)
    write(out, "sacct.txt", sacct_text(R, st, ec, sst, sec, R.t0, end_time(R) + 5, R.model))


def render_mixed(R, out):
    rng = R.rng
    items = []
    for t, rank, host, stream, text in R.recs:
        if host is None:
            items.append((t, text))
            continue
        items.append((t, "%s %s %s" % (f_iso(t, 0, 3, True).replace("+00:00", "Z"), host, text)))
    for h in R.hosts:
        for t, stream, text in agent_start(R, h) + agent_end(R, h, h):
            for ln in text.split("\n"):
                items.append((t, "%s %s %s" % (f_iso(t, 0, 3, True).replace("+00:00", "Z"), h, ln)))
                t += 0.00001
    items = insert_trim(R, items)
    write(out, "job/console.log", "# exported from the log store: job=%s hosts=%s, sorted by ingest time (UTC)\n" % (R.model + "-%d" % R.jobid, ",".join(R.hosts)) + join_sorted(items))
    # fleet health snapshots: every job host plus neighbours of the other vendor
    tsnap = end_time(R) + rng.uniform(120, 1800)
    for h in R.hosts:
        hdr = "### fleet-health snapshot host=%s vendor=%s gpu=%s collected=%s\n" % (h, "AMD" if R.vendor == "amd" else "NVIDIA", R.gpu, f_iso(tsnap, 0, 0, True))
        if R.vendor == "amd":
            body = smi_amd_file(R, h, "full") + amdsmi_file(R, h)
        else:
            body = nv_smi_file(R, h)
        write(out, "fleet/%s.health.txt" % h, hdr + body)
    for oh in R.other:
        other_amd = R.vendor != "amd"
        fake = Run(random.Random("%s-%d-other" % (oh, R.idx)), R.idx, R.layout, None)
        fake.gpn = 8
        fake.gpu = ("MI325X" if "mi325x" in oh else "MI300X") if other_amd else ("H200" if "h200" in oh else "H100")
        fake.gi = GPU_INFO[fake.gpu]
        fake.vendor = "amd" if other_amd else "nvidia"
        fake.kfd_base = 2
        fake.truth_node = None
        fake.tz = R.tz
        fake.stack = AMD_STACKS[3] if other_amd else NV_STACKS[3]
        fake.cause = None
        fake.exits = {}
        fake.t_fail = tsnap
        g = fake.rng.randrange(8)
        fake.gpu_state = {(oh, g): ({"ce_umc": fake.rng.randrange(1, 90), "deferred": fake.rng.randrange(0, 2)} if other_amd else {"agg_ce": fake.rng.randrange(1, 50), "rr_ce": 1})}
        hdr = "### fleet-health snapshot host=%s vendor=%s gpu=%s collected=%s (not in job; same rack)\n" % (oh, "AMD" if other_amd else "NVIDIA", fake.gpu, f_iso(tsnap, 0, 0, True))
        if other_amd:
            body = "\n".join(["$ amd-smi list"] + amd_smi_list(fake, oh) + ["$ amd-smi metric --ecc --ecc-blocks"] + amd_smi_ecc(fake, oh)) + "\n"
        else:
            body = "\n".join(["$ nvidia-smi -q -d ECC,ROW_REMAPPER"] + nvidia_smi_q(fake, oh, tsnap)) + "\n"
        write(out, "fleet/%s.health.txt" % oh, hdr + body)
    # merged kernel log from every host that the collector could reach
    ks = []
    for h in node_hosts(R) or R.hosts[:1]:
        for ln in kernel_text(R, h, "rfc").splitlines():
            ks.append((ln[:32], ln))
    for oh in R.other:
        base = R.t_fail - rng.uniform(3600, 7200)
        ks.append((f_iso(base, 0, 6, True), "%s %s kernel: %s" % (f_iso(base, 0, 6, True), oh,
                                                                  ("amdgpu 0000:1b:00.0: {3}socket: 0, die: 0, 12 new correctable hardware errors detected in umc block" if R.vendor != "amd"
                                                                   else "NVRM: Xid (PCI:0000:9b:00): 13, pid='<unknown>', name=<unknown>, Graphics SM Warp Exception on (GPC 4, TPC 1, SM 0): Out Of Range Address"))))
    ks.sort(key=lambda x: x[0])
    write(out, "fleet/kernel.log", "\n".join(x[1] for x in ks) + "\n")


RENDER = {"frontier_srun": render_frontier, "lumi_torchrun": render_lumi, "k8s_amd_operator": render_k8s,
          "ds_megatron_rocm": render_ds, "slurm_h100_torchrun": render_slurm_nv, "k8s_nvidia_mixedpool": render_k8s,
          "gb200_nvl72_srun": render_gb200, "mixed_fleet_bundle": render_mixed}


# ----------------------------------------------------------------------------------------------
# truth / driver
# ----------------------------------------------------------------------------------------------

def aliases(R, node):
    if node is None:
        return []
    rng = R.rng
    L = R.layout
    out = []
    if L == "frontier_srun":
        out = ["%s.frontier.olcf.ornl.gov" % node, R.xname.get(node), R.ip.get(node)]
    elif L == "lumi_torchrun":
        out = [R.xname.get(node), R.ip.get(node)]
    elif L in ("k8s_amd_operator", "k8s_nvidia_mixedpool"):
        out = [R.flags.get("pod_of_node"), R.ip.get(R.flags.get("pod_of_node"))]
    elif L == "slurm_h100_torchrun":
        out = ["%s.%s" % (node, R.flags.get("dom", "cluster.local")), R.ip.get(node)]
    elif L == "ds_megatron_rocm":
        out = ["%s.cluster.local" % node, R.ip.get(node)]
    else:
        out = [R.ip.get(node)]
    return [x for x in out if x]


def finalize_truth(R):
    node = R.truth_node
    if R.layout in ("k8s_amd_operator", "k8s_nvidia_mixedpool") and node is not None:
        R.flags["pod_of_node"] = node
        node = R.k8s_node[node]
    ev = bool(R.evidence_rank)
    if R.cause in DRAIN_CAUSES and not ev and R.flags.get("map_attached"):
        lost = R.gpu_state.get((R.truth_node, R.lr(R.truth_rank)), {}).get("lost") if R.truth_rank is not None else True
        if not (R.vendor == "nvidia" and lost):
            ev = True
    rank = R.truth_rank
    drain = R.cause in DRAIN_CAUSES or (R.cause == "network" and node is not None)
    tr = {"cause": R.cause, "healthy": R.cause is None, "rank": rank, "node": node,
          "drain": bool(drain and node is not None), "rank_inferable": bool(ev and rank is not None),
          "node_aliases": aliases(R, node), "layout": R.layout,
          "notes": "world=%d (%d nodes x %d %s, %s, torch %s, %s %s); %s" % (
              R.world, len(R.hosts), R.gpn, R.gpu, "ROCm " + R.stack["rocm"] if R.vendor == "amd" else "CUDA " + R.stack["cuda"],
              R.stack["torch"], "RCCL" if R.vendor == "amd" else "NCCL", R.stack["ccl"],
              "; ".join(R.notes) + ("; excerpt of %d/%d ranks shown" % (len(R.shown), R.world) if R.trimmed else ""))}
    return tr


def dir_size(path):
    tot = 0
    for root, _, files in os.walk(path):
        for f in files:
            tot += os.path.getsize(os.path.join(root, f))
    return tot


def build_run(seed, i, layout, cause, attempt=0):
    rng = random.Random("blind18:%d:%d:%d" % (seed, i, attempt))
    R = Run(rng, i, layout, cause)
    layout_setup(R)
    if attempt > 0 and R.world > 64:
        # the attachment would be too large: a person would have attached a smaller job / excerpt
        R.nccl_debug = None
    CAUSE_FN[cause](R)
    add_decoys(R)
    # a process that was killed prints nothing afterwards
    R.recs = [x for x in R.recs if x[1] is None or x[1] not in R.exits or x[0] <= R.exits[x[1]][0] + 0.05]
    return R


def generate(out, n, seed):
    plan_rng = random.Random("blind18-plan:%d" % seed)
    order = CAUSES[:]
    plan_rng.shuffle(order)
    plan = []
    ci = 0
    for i in range(n):
        if i % 7 == 3:
            plan.append(None)
        else:
            plan.append(order[ci % len(order)])
            ci += 1
    lays = []
    while len(lays) < n:
        blk = LAYOUTS[:]
        plan_rng.shuffle(blk)
        lays += blk
    os.makedirs(out, exist_ok=True)
    counts = {}
    for i in range(n):
        layout, cause = lays[i], plan[i]
        folder = os.path.join(out, "run-%03d-%s" % (i, layout))
        for attempt in range(4):
            if os.path.isdir(folder):
                shutil.rmtree(folder)
            os.makedirs(folder)
            R = build_run(seed, i, layout, cause, attempt)
            RENDER[layout](R, folder)
            for name, text in sorted(R.extra.items()):
                write(folder, name, text)
            truth = finalize_truth(R)
            with open(os.path.join(folder, "truth.json"), "w") as fh:
                json.dump(truth, fh, indent=2, sort_keys=False)
                fh.write("\n")
            if dir_size(folder) < 1000 * 1000:
                break
        key = cause if cause else "healthy"
        counts[key] = counts.get(key, 0) + 1
    return {k: counts[k] for k in CAUSES + ["healthy"] if k in counts}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    counts = generate(a.out, a.n, a.seed)
    print(json.dumps(counts))


if __name__ == "__main__":
    main()
