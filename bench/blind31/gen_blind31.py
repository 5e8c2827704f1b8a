#!/usr/bin/env python3
"""gen_blind31.py -- blind synthetic log-bundle generator (theme: subtle performance and
progress incidents seen through metrics and progress lines).

Written blind: message formats come from general knowledge of what PyTorch / torchrun / NCCL /
Megatron-LM / HF Trainer / Lightning / DeepSpeed / DCGM / nvidia-smi / sysstat / py-spy / W&B
print, spot-checked against public pasted logs.  Standard library only.

usage: python3 gen_blind31.py --out DIR --n 60 --seed S
"""
import argparse
import datetime as _dt
import json
import math
import os
import random
import sys
import time

CAUSES = ["gpu_hardware", "ecc_memory", "nvlink", "network", "cuda_oom",
          "illegal_memory_access", "python_exception", "host_oom_kill", "crash_signal",
          "preemption", "hang", "data_loader_stall", "collective_mismatch", "straggler",
          "unknown"]
LAYOUTS = ["megatron-slurm", "hf-k8s", "lightning-wandb", "torchrun-logdir", "ops-bundle",
           "deepspeed-pdsh"]

TD = _dt.timedelta
MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
DAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]


# --------------------------------------------------------------------------------------------
# small helpers
# --------------------------------------------------------------------------------------------
def sec(x):
    return TD(seconds=x)


def f_iso(t):
    return "%04d-%02d-%02d %02d:%02d:%02d" % (t.year, t.month, t.day, t.hour, t.minute, t.second)


def f_iso_ms(t, sep=","):
    return f_iso(t) + sep + "%03d" % (t.microsecond // 1000)


def f_isoT(t):
    return "%04d-%02d-%02dT%02d:%02d:%02d" % (t.year, t.month, t.day, t.hour, t.minute, t.second)


def f_glog(level, t, tid, where):
    # e.g. E0512 10:45:12.345000 140234 torch/distributed/elastic/multiprocessing/api.py:869]
    return "%s%02d%02d %02d:%02d:%02d.%06d %d %s]" % (level, t.month, t.day, t.hour, t.minute,
                                                     t.second, t.microsecond, tid, where)


def f_c10(level, t, where, ns_extra=0):
    # torch >= 2.4 c10 log header: [E512 10:45:12.123456789 ProcessGroupNCCL.cpp:616]
    return "[%s%d%02d %02d:%02d:%02d.%06d%03d %s]" % (level, t.month, t.day, t.hour, t.minute,
                                                     t.second, t.microsecond, ns_extra % 1000,
                                                     where)


def f_dmesgT(t):
    return "[%s %s %2d %02d:%02d:%02d %d]" % (DAYS[t.weekday()], MONTHS[t.month - 1], t.day,
                                              t.hour, t.minute, t.second, t.year)


def f_syslog(t):
    return "%s %2d %02d:%02d:%02d" % (MONTHS[t.month - 1], t.day, t.hour, t.minute, t.second)


def f_slurm_ts(t):
    return f_isoT(t)


def f_hms(t):
    return "%02d:%02d:%02d" % (t.hour, t.minute, t.second)


def f_elapsed(s):
    s = int(max(0, s))
    h, r = divmod(s, 3600)
    m, s2 = divmod(r, 60)
    if h:
        return "%d:%02d:%02d" % (h, m, s2)
    return "%02d:%02d" % (m, s2)


def epoch(t):
    return (t - _dt.datetime(1970, 1, 1)).total_seconds()


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


def hexid(rng, n):
    return "".join(pick(rng, "0123456789abcdef") for _ in range(n))


def uuid(rng):
    return "GPU-%s-%s-%s-%s-%s" % (hexid(rng, 8), hexid(rng, 4), hexid(rng, 4), hexid(rng, 4),
                                   hexid(rng, 12))


def compress_nodelist(hosts):
    # hosts share a prefix and a zero-padded number
    import re
    m0 = re.match(r"^(.*?)(\d+)$", hosts[0])
    if not m0:
        return ",".join(hosts)
    pre = m0.group(1)
    width = len(m0.group(2))
    nums = []
    for h in hosts:
        m = re.match(r"^(.*?)(\d+)$", h)
        if not m or m.group(1) != pre:
            return ",".join(hosts)
        nums.append(int(m.group(2)))
    if len(nums) == 1:
        return hosts[0]
    parts = []
    i = 0
    while i < len(nums):
        j = i
        while j + 1 < len(nums) and nums[j + 1] == nums[j] + 1:
            j += 1
        if j > i:
            parts.append("%0*d-%0*d" % (width, nums[i], width, nums[j]))
        else:
            parts.append("%0*d" % (width, nums[i]))
        i = j + 1
    return "%s[%s]" % (pre, ",".join(parts))


# --------------------------------------------------------------------------------------------
# software stack
# --------------------------------------------------------------------------------------------
TORCH_STACKS = [
    # torch, nccl, cuda, python, c10-line numbers dict
    {"torch": "2.1.2", "nccl": "2.18.6", "cuda": "12.1", "py": "3.10.12", "major": 21},
    {"torch": "2.2.2", "nccl": "2.19.3", "cuda": "12.1", "py": "3.10.12", "major": 22},
    {"torch": "2.3.1", "nccl": "2.20.5", "cuda": "12.1", "py": "3.10.14", "major": 23},
    {"torch": "2.4.1", "nccl": "2.20.5", "cuda": "12.4", "py": "3.11.9", "major": 24},
    {"torch": "2.5.1", "nccl": "2.21.5", "cuda": "12.4", "py": "3.11.10", "major": 25},
]

GPU_MODELS = [
    {"name": "NVIDIA H100 80GB HBM3", "short": "H100", "sm_max": 1980, "mem_clock": 2619,
     "tdp": 700, "idle_w": 72, "pcie_gen": 5, "mem_mib": 81559, "bus": ["18", "2a", "3a", "5d", "9a", "ab", "ba", "db"]},
    {"name": "NVIDIA A100-SXM4-80GB", "short": "A100", "sm_max": 1410, "mem_clock": 1593,
     "tdp": 400, "idle_w": 62, "pcie_gen": 4, "mem_mib": 81920, "bus": ["07", "0f", "47", "4e", "87", "90", "b7", "bd"]},
    {"name": "NVIDIA H100 80GB HBM3", "short": "H100", "sm_max": 1980, "mem_clock": 2619,
     "tdp": 700, "idle_w": 70, "pcie_gen": 5, "mem_mib": 81559, "bus": ["19", "3b", "4c", "5d", "9b", "bb", "cb", "db"]},
]

DRIVERS = {"H100": ["535.129.03", "535.161.08", "550.54.15", "550.90.07", "535.183.01"],
           "A100": ["525.147.05", "535.104.12", "535.129.03", "550.54.15"]}

KERNELS = ["5.15.0-105-generic", "5.15.0-91-generic", "6.5.0-1018-aws", "5.15.0-1056-gcp",
           "6.8.0-45-generic", "4.18.0-513.24.1.el8_9.x86_64", "5.14.0-427.13.1.el9_4.x86_64"]


class Cluster:
    def __init__(self, rng, n_nodes, gpn, host_style, gpu=None):
        self.rng = rng
        self.n = n_nodes
        self.gpn = gpn
        self.world = n_nodes * gpn
        self.gpu = gpu or pick(rng, GPU_MODELS)
        self.driver = pick(rng, DRIVERS[self.gpu["short"]])
        self.kernel = pick(rng, KERNELS)
        self.ncpu = pick(rng, [96, 128, 192, 224, 256])
        self.hosts = self._hosts(host_style)
        base_ip = "10.%d.%d." % (rng.randrange(0, 255), rng.randrange(0, 255))
        first = rng.randrange(5, 200)
        self.ips = [base_ip + str(first + i * rng.randrange(1, 4)) for i in range(n_nodes)]
        # clock skew per node (seconds); node 0 is the reference-ish
        self.skew = [0.0]
        for i in range(1, n_nodes):
            if rng.random() < 0.15:
                self.skew.append(rng.uniform(-190, 190))   # one badly synced node
            else:
                self.skew.append(rng.uniform(-12, 12))
        self.uuids = [[uuid(rng) for _ in range(gpn)] for _ in range(n_nodes)]
        buses = self.gpu["bus"]
        if gpn < len(buses):
            step = len(buses) // gpn
            buses = buses[::step][:gpn]
        self.bus = buses[:gpn]
        self.pid0 = [rng.randrange(20000, 3900000) for _ in range(n_nodes)]
        self.agent_pid = [p - rng.randrange(40, 400) for p in self.pid0]
        self.tid = [rng.randrange(139600000000000, 140700000000000) for _ in range(n_nodes)]
        self.ib = pick(rng, [["mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3", "mlx5_4", "mlx5_5", "mlx5_6", "mlx5_7"],
                             ["mlx5_0", "mlx5_3", "mlx5_4", "mlx5_5", "mlx5_6", "mlx5_9", "mlx5_10", "mlx5_11"]])
        self.ib_bus = ["0c", "1a", "3c", "4d", "8c", "9a", "bc", "cc"]
        self.ibdev = ["ibp%ds0" % int(b, 16) for b in self.ib_bus]
        self.eth = pick(rng, ["eth0", "ens5", "enp6s0f0", "bond0", "ens10f0np0"])

    def _hosts(self, style):
        rng = self.rng
        n = self.n
        if style == "slurm":
            kind = rng.randrange(5)
            b = rng.randrange(1, 90)
            if kind == 0:
                return ["gpu-%03d" % (b + i) for i in range(n)]
            if kind == 1:
                rack = "%s%02d" % (pick(rng, "abcdefgh"), rng.randrange(1, 20))
                return ["hgx-%s-%02d" % (rack, b % 40 + i) for i in range(n)]
            if kind == 2:
                return ["dgx%03d" % (b + i) for i in range(n)]
            if kind == 3:
                return ["node%04d" % (b * 3 + i) for i in range(n)]
            return ["a3mega-%d" % (b + i) for i in range(n)]
        if style == "k8s":
            kind = rng.randrange(3)
            out = []
            for i in range(n):
                if kind == 0:
                    out.append("ip-10-%d-%d-%d.ec2.internal" % (rng.randrange(0, 60), rng.randrange(0, 255), rng.randrange(2, 254)))
                elif kind == 1:
                    out.append("gke-train-a3-pool-%s-%s" % (hexid(rng, 8), hexid(rng, 4)))
                else:
                    out.append("aks-gpupool-%d-vmss%06d" % (rng.randrange(10000000, 99999999), rng.randrange(0, 40)))
            return out
        # generic hostfile style
        kind = rng.randrange(3)
        b = rng.randrange(1, 40)
        if kind == 0:
            return ["worker-%d" % (b + i) for i in range(n)]
        if kind == 1:
            return ["gpu-a%02d" % (b + i) for i in range(n)]
        return ["trn%03d" % (b + i) for i in range(n)]

    def node_of(self, r):
        return r // self.gpn

    def local_of(self, r):
        return r % self.gpn

    def rank(self, node, local):
        return node * self.gpn + local

    def pid(self, r):
        return self.pid0[self.node_of(r)] + self.local_of(r)

    def lt(self, node, t):
        """true time -> node-local wall clock"""
        return t + sec(self.skew[node])

    def busid(self, g, long=True):
        if long:
            return "00000000:%s:00.0" % self.bus[g].upper()
        return self.bus[g] + "000"

    def pci(self, g):
        return "0000:%s:00" % self.bus[g]


# --------------------------------------------------------------------------------------------
# NCCL / c10d / torchrun text
# --------------------------------------------------------------------------------------------
def nccl_prefix(cl, r, tid_off=0):
    n = cl.node_of(r)
    p = cl.pid(r)
    return "%s:%d:%d [%d]" % (cl.hosts[n], p, p + tid_off, cl.local_of(r))


def nccl_init_lines(cl, st, r, rng, comm, commid, verbose=True):
    pre0 = nccl_prefix(cl, r)
    pre = nccl_prefix(cl, r, rng.randrange(300, 900))
    n = cl.node_of(r)
    g = cl.local_of(r)
    out = []
    out.append("%s NCCL INFO Bootstrap : Using %s:%s<0>" % (pre0, cl.eth, cl.ips[n]))
    if verbose:
        out.append("%s NCCL INFO NET/Plugin : dlerror=libnccl-net.so: cannot open shared object file: No such file or directory No plugin found (libnccl-net.so), using internal implementation" % pre0)
        out.append("%s NCCL INFO cudaDriverVersion %d" % (pre0, 12020 if st["cuda"] < "12.3" else 12040))
    if r == 0:
        out.append("NCCL version %s+cuda%s" % (st["nccl"], st["cuda"]))
    ibs = " ".join("[%d]%s:1/IB" % (i, d) for i, d in enumerate(cl.ib[:min(8, cl.gpn)]))
    out.append("%s NCCL INFO NET/IB : Using %s ; OOB %s:%s<0>" % (pre, ibs, cl.eth, cl.ips[n]))
    out.append("%s NCCL INFO Using network IB" % pre)
    if st["major"] >= 23:
        out.append("%s NCCL INFO ncclCommInitRank comm %s rank %d nranks %d cudaDev %d nvmlDev %d busId %s commId %s - Init START"
                   % (pre, comm, r, cl.world, g, g, cl.busid(g, False), commid))
    else:
        out.append("%s NCCL INFO comm %s rank %d nranks %d cudaDev %d nvmlDev %d busId %s commId %s - Init START"
                   % (pre, comm, r, cl.world, g, g, cl.busid(g, False), commid))
    if verbose:
        out.append("%s NCCL INFO Setting affinity for GPU %d to %s" % (pre, g, pick(rng, ["ffffffff,00000000,ffffffff", "ffff,ffffffff", "ffffffff,ffffffff,00000000,00000000"])))
        out.append("%s NCCL INFO NVLS multicast support is not available on dev %d" % (pre, g) if rng.random() < 0.5 else "%s NCCL INFO P2P Chunksize set to 524288" % pre)
        out.append("%s NCCL INFO Channel %02d/0 : %d[%d] -> %d[%d] [send] via NET/IB/%d/GDRDMA" % (pre, rng.randrange(0, 16), r, g, (r + cl.gpn) % cl.world, g, g))
        out.append("%s NCCL INFO Connected all rings" % pre)
        out.append("%s NCCL INFO Connected all trees" % pre)
        out.append("%s NCCL INFO threadThresholds 8/8/64 | %d/8/64 | 512 | 512" % (pre, cl.world * 8))
    if st["major"] >= 23:
        out.append("%s NCCL INFO ncclCommInitRank comm %s rank %d nranks %d cudaDev %d nvmlDev %d busId %s commId %s localSize %d used %d bytes - Init COMPLETE"
                   % (pre, comm, r, cl.world, g, g, cl.busid(g, False), commid, cl.gpn, rng.randrange(200000, 900000)))
    else:
        out.append("%s NCCL INFO comm %s rank %d nranks %d cudaDev %d nvmlDev %d busId %s commId %s - Init COMPLETE"
                   % (pre, comm, r, cl.world, g, g, cl.busid(g, False), commid))
    return out


PG_LINES = {
    21: {"wd": 475, "some": 489, "avoid": 495, "term": 916, "check": 477},
    22: {"wd": 523, "some": 537, "avoid": 543, "term": 1182, "check": 525, "tmo": 1537},
    23: {"wd": 563, "some": 577, "avoid": 583, "term": 1414, "check": 565, "tmo": 1537},
    24: {"wd": 607, "some": 621, "avoid": 627, "term": 1595, "check": 609, "tmo": 1664, "exc": 1785},
    25: {"wd": 616, "some": 630, "avoid": 636, "term": 1601, "check": 618, "tmo": 1682, "exc": 1803},
}


def c10_hdr(st, r, t, where, level="E", rng=None):
    if st["major"] >= 24:
        return "[rank%d]:%s" % (r, f_c10(level, t, where, (rng.randrange(1000) if rng else 0)))
    if st["major"] >= 22:
        return "[rank%d]:[%s %s]" % (r, level, where)
    return "[%s %s]" % (level, where)


def pg_tag(st, r):
    if st["major"] >= 24:
        return "[PG ID 0 PG GUID 0(default_pg) Rank %d]" % r
    return "[PG 0 Rank %d]" % r


def so_frames(st, rng, kind="watchdog"):
    lib = st["site"] + "/torch/lib/"
    bases = {}

    def a(name="x"):
        if name not in bases:
            bases[name] = rng.randrange(0x7f0000000000, 0x7fff00000000) & ~0xfff
        return "0x%x" % (bases[name] + rng.randrange(0x1000, 0x2000000))
    if kind == "watchdog":
        fr = [
            "c10::Error::Error(c10::SourceLocation, std::string) + 0x%x (%s in %slibc10.so)" % (rng.randrange(0x50, 0xa0), a("c10"), lib),
            "c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >) + 0x%x (%s in %slibtorch_cuda.so)" % (rng.randrange(0x150, 0x260), a("tc"), lib),
            "c10d::ProcessGroupNCCL::watchdogHandler() + 0x%x (%s in %slibtorch_cuda.so)" % (rng.randrange(0x200, 0x2a0), a("tc"), lib),
            "c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x%x (%s in %slibtorch_cuda.so)" % (rng.randrange(0xf0, 0x160), a("tc"), lib),
            "<unknown function> + 0xdc253 (%s in /lib/x86_64-linux-gnu/libstdc++.so.6)" % a("stdc"),
            "<unknown function> + 0x94ac3 (%s in /lib/x86_64-linux-gnu/libc.so.6)" % a("libc"),
            "<unknown function> + 0x126850 (%s in /lib/x86_64-linux-gnu/libc.so.6)" % a("libc"),
        ]
    else:
        fr = [
            "c10::Error::Error(c10::SourceLocation, std::string) + 0x%x (%s in %slibc10.so)" % (rng.randrange(0x50, 0xa0), a("c10"), lib),
            "c10::detail::torchCheckFail(char const*, char const*, unsigned int, std::string const&) + 0x%x (%s in %slibc10.so)" % (rng.randrange(0x60, 0x90), a("c10"), lib),
            "c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, int, bool) + 0x%x (%s in %slibc10_cuda.so)" % (rng.randrange(0x100, 0x400), a("c10cuda"), lib),
            "c10d::ProcessGroupNCCL::WorkNCCL::finishedGPUExecutionInternal() const + 0x%x (%s in %slibtorch_cuda.so)" % (rng.randrange(0x40, 0x80), a("tc"), lib),
            "c10d::ProcessGroupNCCL::WorkNCCL::isCompleted() + 0x%x (%s in %slibtorch_cuda.so)" % (rng.randrange(0x50, 0x80), a("tc"), lib),
            "c10d::ProcessGroupNCCL::watchdogHandler() + 0x%x (%s in %slibtorch_cuda.so)" % (rng.randrange(0x200, 0x2a0), a("tc"), lib),
            "c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x%x (%s in %slibtorch_cuda.so)" % (rng.randrange(0xf0, 0x160), a("tc"), lib),
            "<unknown function> + 0xdc253 (%s in /lib/x86_64-linux-gnu/libstdc++.so.6)" % a("stdc"),
            "<unknown function> + 0x94ac3 (%s in /lib/x86_64-linux-gnu/libc.so.6)" % a("libc"),
        ]
    return ["frame #%d: %s" % (i, f) for i, f in enumerate(fr)]


def watchdog_timeout_lines(st, rng, r, t, seq, op, numel, timeout_ms, last_done=None, with_frames=True, world=16):
    L = PG_LINES[st["major"]]
    ran = timeout_ms + rng.randrange(5, 900)
    work = "WorkNCCL(SeqNum=%d, OpType=%s, NumelIn=%d, NumelOut=%d, Timeout(ms)=%d)" % (seq, op, numel, numel * (world if op in ("_ALLGATHER_BASE", "ALLGATHER") else 1), timeout_ms)
    msg = "[Rank %d] Watchdog caught collective operation timeout: %s ran for %d milliseconds before timing out." % (r, work, ran)
    out = []
    h = lambda k: c10_hdr(st, r, t, "ProcessGroupNCCL.cpp:%d" % L[k], "E", rng)
    out.append("%s %s" % (h("wd"), msg))
    if last_done is None:
        last_done = seq - 1
    if st["major"] >= 24:
        out.append("%s %s Exception (either an error or timeout) detected by watchdog at work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (h("exc"), pg_tag(st, r), seq, seq, last_done))
    if st["major"] >= 22:
        out.append("%s %s Timeout at NCCL work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (h("tmo"), pg_tag(st, r), seq, seq, last_done))
    out.append("%s %sSome NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data." % (h("some"), ("[Rank %d] " % r) if st["major"] >= 22 else ""))
    out.append("%s %sTo avoid data inconsistency, we are taking the entire process down." % (h("avoid"), ("[Rank %d] " % r) if st["major"] >= 22 else ""))
    if st["major"] >= 22:
        term = "%s Process group watchdog thread terminated with exception: %s" % (pg_tag(st, r), msg)
        out.append("%s %s" % (h("term"), term))
        if with_frames:
            out.append("Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:%d (most recent call first):" % L["check"])
            out.extend(so_frames(st, rng))
            out.append("")
        out.append("terminate called after throwing an instance of 'c10::DistBackendError'")
        out.append("  what():  %s" % term)
        if with_frames:
            out.append("Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:%d (most recent call first):" % L["check"])
            out.extend(so_frames(st, rng)[:4])
            out.append("")
    else:
        term = "[Rank %d] NCCL watchdog thread terminated with exception: %s" % (r, msg)
        out.append("%s %s" % (h("term"), term))
        out.append("terminate called after throwing an instance of 'std::runtime_error'")
        out.append("  what():  %s" % term)
    return out


def watchdog_exception_lines(st, rng, r, t, errtext, detail_lines, kind="nccl"):
    """watchdog thread dying on an async NCCL/CUDA error (not a timeout)."""
    L = PG_LINES[st["major"]]
    h = lambda k: c10_hdr(st, r, t, "ProcessGroupNCCL.cpp:%d" % L[k], "E", rng)
    out = []
    if st["major"] >= 22:
        term = "%s Process group watchdog thread terminated with exception: %s" % (pg_tag(st, r), errtext)
    else:
        term = "[Rank %d] NCCL watchdog thread terminated with exception: %s" % (r, errtext)
    out.append("%s %s" % (h("term"), term))
    out.extend(detail_lines)
    if kind == "cuda":
        out.append("Exception raised from c10_cuda_check_implementation at ../c10/cuda/CUDAException.cpp:43 (most recent call first):")
        out.extend(so_frames(st, rng, "cuda"))
        out.append("")
    out.append("terminate called after throwing an instance of '%s'" % ("c10::DistBackendError" if st["major"] >= 22 else "std::runtime_error"))
    out.append("  what():  %s" % term)
    out.extend(detail_lines)
    return out


def remote_error_lines(st, rng, r, t, peer_ip, peer_port, transport="IB", local_ip=None):
    if transport == "IB":
        last = "NET/IB : Got completion from peer %s<%d> with status=12 opcode=%d len=0 vendor err 129 (%s)%s" % (
            peer_ip, peer_port, pick(rng, [0, 1, 128]), pick(rng, ["Recv", "Send"]),
            (" localGid ::ffff:%s remoteGid ::ffff:%s" % (local_ip, peer_ip)) if (local_ip and st["major"] >= 23) else "")
    else:
        last = "socketProgressOpt: Call to recv from %s<%d> failed : Connection reset by peer" % (peer_ip, peer_port)
    err = "NCCL error: remote process exited or there was a network error, NCCL version %s" % st["nccl"]
    det = ["ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.",
           "Last error:", last]
    return watchdog_exception_lines(st, rng, r, t, err, det), last


def agent_line(st, level, t, node_tid, where_py, lineno, msg):
    lv = {"W": "WARNING", "E": "ERROR", "I": "INFO"}[level]
    mod = where_py.replace("/", ".").replace(".py", "")
    if st["major"] >= 24:
        return "%s %s" % (f_glog(level, t, node_tid, "%s:%d" % (where_py, lineno)), msg)
    if st["major"] >= 22:
        return "[%s] %s: [%s] %s" % (f_iso_ms(t), mod, lv, msg)
    return "%s:%s:%s" % (lv, mod, msg)


def sig_name(code):
    return {-6: "SIGABRT", -9: "SIGKILL", -11: "SIGSEGV", -15: "SIGTERM", -7: "SIGBUS", -4: "SIGILL"}.get(code, "SIG%d" % -code)


def torchrun_traceback(st):
    s = st["site"]
    if st["major"] >= 24:
        run_l, api_l = (919, 138) if st["major"] == 24 else (919, 138)
    else:
        run_l, api_l = (806, 135)
    return [
        "Traceback (most recent call last):",
        '  File "%s", line 8, in <module>' % st["torchrun_bin"],
        "    sys.exit(main())",
        '  File "%s/torch/distributed/elastic/multiprocessing/errors/__init__.py", line %d, in wrapper' % (s, 355 if st["major"] >= 24 else 347),
        "    return f(*args, **kwargs)",
        '  File "%s/torch/distributed/run.py", line %d, in main' % (s, run_l),
        "    run(args)",
        '  File "%s/torch/distributed/run.py", line %d, in run' % (s, run_l - 9),
        "    elastic_launch(",
        '  File "%s/torch/distributed/launcher/api.py", line %d, in __call__' % (s, api_l),
        "    return launch_agent(self._config, self._entrypoint, list(args))",
        '  File "%s/torch/distributed/launcher/api.py", line %d, in launch_agent' % (s, api_l + 131),
        "    raise ChildFailedError(",
    ]


def child_failed_block(st, script, host, entries_root, entries_other, fmt_t):
    """entries: dict(rank, local, code, pid, t, error_file, tb)"""
    out = ["torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
           "============================================================",
           "%s FAILED" % script,
           "------------------------------------------------------------",
           "Failures:"]

    def ent(i, e):
        tb = e.get("tb")
        if tb is None:
            if e["code"] < 0:
                tb = "Signal %d (%s) received by PID %d" % (-e["code"], sig_name(e["code"]), e["pid"])
            else:
                tb = "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"
        r = ["[%d]:" % i,
             "  time      : %s" % fmt_t(e["t"]),
             "  host      : %s" % host,
             "  rank      : %d (local_rank: %d)" % (e["rank"], e["local"]),
             "  exitcode  : %d (pid: %d)" % (e["code"], e["pid"]),
             "  error_file: %s" % (e.get("error_file") or "<N/A>")]
        if isinstance(tb, list):
            r.append("  traceback : %s" % tb[0])
            r.extend("  " + x for x in tb[1:])
        else:
            r.append("  traceback : %s" % tb)
        return r

    if not entries_other:
        out.append("  <NO_OTHER_FAILURES>")
    else:
        for i, e in enumerate(entries_other):
            out.extend(ent(i + 1, e))
    out.append("------------------------------------------------------------")
    out.append("Root Cause (first observed failure):")
    out.extend(ent(0, entries_root))
    out.append("============================================================")
    return out


def signal_exception_tb(st, agent_pid, signum=15):
    s = st["site"]
    return torchrun_traceback(st)[:11] + [
        '  File "%s/torch/distributed/launcher/api.py", line %d, in launch_agent' % (s, 255 if st["major"] >= 24 else 250),
        "    result = agent.run()",
        '  File "%s/torch/distributed/elastic/metrics/api.py", line 124, in wrapper' % s,
        "    result = f(*args, **kwargs)",
        '  File "%s/torch/distributed/elastic/agent/server/api.py", line %d, in run' % (s, 680 if st["major"] >= 24 else 727),
        "    result = self._invoke_run(role)",
        '  File "%s/torch/distributed/elastic/agent/server/api.py", line %d, in _invoke_run' % (s, 835 if st["major"] >= 24 else 868),
        "    time.sleep(monitor_interval)",
        '  File "%s/torch/distributed/elastic/multiprocessing/api.py", line %d, in _terminate_process_handler' % (s, 84 if st["major"] >= 24 else 62),
        '    raise SignalException(f"Process {os.getpid()} got signal: {sigval}", sigval=sigval)',
        "torch.distributed.elastic.multiprocessing.api.SignalException: Process %d got signal: %d" % (agent_pid, signum),
    ]


# --------------------------------------------------------------------------------------------
# kernel log lines
# --------------------------------------------------------------------------------------------
def xid_line(cl, g, xid, pid, name, rng):
    pci = cl.pci(g)
    if xid == 79:
        body = "GPU has fallen off the bus."
    elif xid == 48:
        body = "An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition %d, subpartition %d." % (rng.randrange(0, 8), rng.randrange(0, 2))
    elif xid == 63:
        body = "Row Remapper: New row (0x%08x) marked for remapping, reset gpu to activate." % rng.randrange(0x100000, 0xfffffff)
    elif xid == 64:
        body = "Row Remapper: Failed to remap row (0x%08x), reset gpu to activate." % rng.randrange(0x100000, 0xfffffff)
    elif xid == 74:
        body = "NVLink: fatal error detected on link %d(0x0, 0x0, 0x0, 0x%x, 0x0, 0x0, 0x0)" % (rng.randrange(0, 18), pick(rng, [0x10000, 0x800000, 0x1000000, 0x20000]))
    elif xid == 119:
        body = "Timeout after 6s of waiting for RPC response from GPU%d GSP! Expected function %d (%s) (0x%x 0x%x)." % (g, pick(rng, [76, 103, 10]), pick(rng, ["GSP_RM_CONTROL", "GSP_RM_ALLOC", "FREE"]), rng.randrange(0x20800000, 0x20809999), rng.randrange(0, 0x400))
    elif xid == 120:
        body = "GSP task exception: (reason 0x%x)" % rng.randrange(0x1, 0x40)
    elif xid == 62:
        body = "Internal micro-controller halt (%s)" % pick(rng, ["PMU", "GSP"])
    elif xid == 13:
        body = "Graphics SM Warp Exception on (GPC %d, TPC %d, SM %d): Out Of Range Address" % (rng.randrange(0, 8), rng.randrange(0, 9), rng.randrange(0, 2))
    elif xid == 31:
        body = "Ch %08x, intr 00000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_%d faulted @ 0x7f%02x_%08x. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ" % (rng.randrange(8, 0x40), rng.randrange(0, 16), rng.randrange(0, 255), rng.randrange(0, 0xffffffff))
    elif xid == 43:
        body = "Ch %08x" % rng.randrange(8, 0x40)
    elif xid == 92:
        body = "High single-bit ECC error rate detected"
    else:
        body = "Unknown"
    if pid is None:
        return "NVRM: Xid (PCI:%s): %d, pid='<unknown>', name=<unknown>, %s" % (pci, xid, body)
    return "NVRM: Xid (PCI:%s): %d, pid=%d, name=%s, %s" % (pci, xid, pid, name, body)


def kernel_noise(cl, n, rng, count):
    pool = [
        "IPv6: ADDRCONF(NETDEV_CHANGE): veth%s: link becomes ready" % hexid(rng, 7),
        "systemd-journald[%d]: Data hash table of /var/log/journal/%s/system.journal has a fill level at 75.0 (8533 of 11377 items, 6553600 file size, 767 bytes per hash table item), suggesting rotation." % (rng.randrange(600, 1500), hexid(rng, 32)),
        "nvidia-peermem nv_get_p2p_free_callback:127 ERROR detected invalid context, skipping further processing",
        "Lustre: %s-OST%04x-osc-ff%s: Connection restored to 10.%d.%d.%d@o2ib (at 10.%d.%d.%d@o2ib)" % (pick(rng, ["scratch", "lustre"]), rng.randrange(0, 64), hexid(rng, 10), 1, rng.randrange(0, 255), rng.randrange(1, 254), 1, rng.randrange(0, 255), rng.randrange(1, 254)),
        "docker0: port 1(veth%s) entered forwarding state" % hexid(rng, 7),
        "mlx5_core 0000:%s:00.0: mlx5_pcie_event:301:(pid %d): PCIe slot advertised sufficient power (75W)." % (pick(rng, ["0c", "1a", "3c", "4d"]), rng.randrange(100, 999)),
        "NFSD: Using UMH upcall client tracking operations.",
        "perf: interrupt took too long (%d > %d), lowering kernel.perf_event_max_sample_rate to %d" % (rng.randrange(2600, 3300), 2500, rng.randrange(60000, 80000)),
        "nvidia-nvswitch%d: open (major=%d)" % (rng.randrange(0, 4), rng.randrange(230, 240)),
        "EXT4-fs (nvme0n1p1): mounted filesystem with ordered data mode. Quota mode: none.",
        "TCP: request_sock_TCP: Possible SYN flooding on port %d. Sending cookies.  Check SNMP counters." % rng.randrange(29400, 29600),
        "loop%d: detected capacity change from 0 to %d" % (rng.randrange(0, 12), rng.randrange(100000, 900000)),
    ]
    return [pick(rng, pool) for _ in range(count)]


def oom_kill_lines(cl, n, pid, rng, cgroup=False, total_kb=None, comm="python3"):
    anon = rng.randrange(180, 480) * 1024 * 1024 // 1
    out = []
    out.append("%s invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0" % pick(rng, ["pt_main_thread", "python3", "pt_data_worker"]))
    out.append("CPU: %d PID: %d Comm: %s Tainted: P           OE     %s #%d-Ubuntu" % (rng.randrange(0, cl.ncpu), pid + rng.randrange(1, 40), pick(rng, ["pt_main_thread", "python3"]), cl.kernel, rng.randrange(90, 130)))
    if cgroup:
        out.append("memory: usage %dkB, limit %dkB, failcnt %d" % (total_kb or anon, total_kb or anon, rng.randrange(1, 4000)))
        out.append("Memory cgroup stats for /slurm/uid_%d/job_%d:" % (rng.randrange(1000, 60000), rng.randrange(100000, 999999)))
    out.append("Tasks state (memory values in pages):")
    out.append("[  pid  ]   uid  tgid total_vm      rss pgtables_bytes swapents oom_score_adj name")
    for k in range(rng.randrange(2, 5)):
        p = pid + k * rng.randrange(1, 3)
        out.append("[%7d]  %5d %7d %8d %8d %14d %8d %13d %s" % (p, 1000, p, rng.randrange(30000000, 90000000), rng.randrange(4000000, 30000000), rng.randrange(80000000, 200000000), 0, 0, "python3"))
    if cgroup:
        out.append("oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0-1,oom_memcg=/slurm/uid_%d/job_%d,task_memcg=/slurm/uid_%d/job_%d/step_0/task_0,task=%s,pid=%d,uid=%d"
                   % (1000, 0, 1000, 0, comm, pid, 1000))
        out.append("Memory cgroup out of memory: Killed process %d (%s) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:%d pgtables:%dkB oom_score_adj:0"
                   % (pid, comm, rng.randrange(150000000, 400000000), anon, rng.randrange(100000, 900000), rng.randrange(1000000, 9000000), 1000, rng.randrange(100000, 400000)))
    else:
        out.append("oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0-1,global_oom,task_memcg=/user.slice/user-1000.slice/session-%d.scope,task=%s,pid=%d,uid=1000" % (rng.randrange(1, 900), comm, pid))
        out.append("Out of memory: Killed process %d (%s) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:1000 pgtables:%dkB oom_score_adj:0"
                   % (pid, comm, rng.randrange(150000000, 400000000), anon, rng.randrange(100000, 900000), rng.randrange(1000000, 9000000), rng.randrange(100000, 400000)))
    out.append("oom_reaper: reaped process %d (%s), now anon-rss:0kB, file-rss:0kB, shmem-rss:%dkB" % (pid, comm, rng.randrange(1000, 90000)))
    return out


# --------------------------------------------------------------------------------------------
# GPU telemetry formatting: DCGM exporter, nvidia-smi -q, nvidia-smi --query-gpu csv
# --------------------------------------------------------------------------------------------
DCGM_METRICS = [
    ("DCGM_FI_DEV_SM_CLOCK", "gauge", "SM clock frequency (in MHz).", "sm"),
    ("DCGM_FI_DEV_MEM_CLOCK", "gauge", "Memory clock frequency (in MHz).", "memclk"),
    ("DCGM_FI_DEV_MEMORY_TEMP", "gauge", "Memory temperature (in C).", "memtemp"),
    ("DCGM_FI_DEV_GPU_TEMP", "gauge", "GPU temperature (in C).", "temp"),
    ("DCGM_FI_DEV_POWER_USAGE", "gauge", "Power draw (in W).", "power"),
    ("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "counter", "Total energy consumption since boot (in mJ).", "energy"),
    ("DCGM_FI_DEV_PCIE_REPLAY_COUNTER", "counter", "Total number of PCIe retries.", "replay"),
    ("DCGM_FI_DEV_GPU_UTIL", "gauge", "GPU utilization (in %).", "util"),
    ("DCGM_FI_DEV_MEM_COPY_UTIL", "gauge", "Memory utilization (in %).", "mcu"),
    ("DCGM_FI_DEV_ENC_UTIL", "gauge", "Encoder utilization (in %).", "zero"),
    ("DCGM_FI_DEV_DEC_UTIL", "gauge", "Decoder utilization (in %).", "zero"),
    ("DCGM_FI_DEV_XID_ERRORS", "gauge", "Value of the last XID error encountered.", "xid"),
    ("DCGM_FI_DEV_FB_FREE", "gauge", "Framebuffer memory free (in MiB).", "fbfree"),
    ("DCGM_FI_DEV_FB_USED", "gauge", "Framebuffer memory used (in MiB).", "fbused"),
    ("DCGM_FI_DEV_CLOCK_THROTTLE_REASONS", "gauge", "Current clock throttle reasons.", "thr"),
    ("DCGM_FI_DEV_PCIE_LINK_GEN", "gauge", "PCIe Current Link Generation.", "pgen"),
    ("DCGM_FI_DEV_PCIE_LINK_WIDTH", "gauge", "PCIe Current Link Width.", "pwidth"),
    ("DCGM_FI_DEV_ECC_SBE_VOL_TOTAL", "counter", "Total number of single-bit volatile ECC errors.", "sbe"),
    ("DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", "counter", "Total number of double-bit volatile ECC errors.", "dbe"),
    ("DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS", "counter", "Number of remapped rows for uncorrectable errors", "urows"),
    ("DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS", "counter", "Number of remapped rows for correctable errors", "crows"),
    ("DCGM_FI_DEV_ROW_REMAP_FAILURE", "gauge", "Whether remapping of rows has failed", "rfail"),
    ("DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL", "counter", "Total number of NVLink flow-control CRC errors.", "crc"),
    ("DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL", "counter", "Total number of NVLink bandwidth counters for all lanes.", "nvbw"),
    ("DCGM_FI_PROF_GR_ENGINE_ACTIVE", "gauge", "Ratio of time the graphics engine is active.", "gract"),
    ("DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", "gauge", "Ratio of cycles the tensor (HMMA) pipe is active.", "tensor"),
    ("DCGM_FI_PROF_DRAM_ACTIVE", "gauge", "Ratio of cycles the device memory interface is active sending or receiving data.", "dram"),
]


def dcgm_scrape(cl, node, vals_by_gpu, labels_extra=None, hostname_label=None, include=None, missing=()):
    """vals_by_gpu: list (per gpu) of dict key->value. Returns text of a /metrics scrape."""
    out = []
    hostlab = hostname_label or cl.hosts[node]
    for name, typ, help_, key in DCGM_METRICS:
        if include is not None and key not in include:
            continue
        out.append("# HELP %s %s" % (name, help_))
        out.append("# TYPE %s %s" % (name, typ))
        for g in range(cl.gpn):
            if g in missing:
                continue
            v = vals_by_gpu[g].get(key, 0)
            lab = 'gpu="%d",UUID="%s",pci_bus_id="%s",device="nvidia%d",modelName="%s",Hostname="%s",DCGM_FI_DRIVER_VERSION="%s"' % (
                g, cl.uuids[node][g], cl.busid(g), g, cl.gpu["name"], hostlab, cl.driver)
            if labels_extra:
                le = labels_extra(g)
                if le:
                    lab += "," + le
            if isinstance(v, float):
                sv = ("%.6f" % v).rstrip("0").rstrip(".") if key in ("gract", "tensor", "dram") else ("%.3f" % v)
            else:
                sv = str(v)
            out.append("%s{%s} %s" % (name, lab, sv))
    return "\n".join(out) + "\n"


def smi_q_gpu(cl, node, g, v, t, evt_reasons_name):
    """one GPU block of nvidia-smi -q (excerpt). v: dict of values"""
    gm = cl.gpu
    A = lambda b: "Active" if b else "Not Active"
    thr = v.get("thr", 0)
    L = []
    L.append("GPU %s" % cl.busid(g))
    L.append("    Product Name                          : %s" % gm["name"])
    L.append("    Product Brand                         : NVIDIA")
    L.append("    Persistence Mode                      : Enabled")
    L.append("    GPU UUID                              : %s" % cl.uuids[node][g])
    L.append("    Minor Number                          : %d" % g)
    L.append("    VBIOS Version                         : %s" % ("96.00.89.00.01" if gm["short"] == "H100" else "92.00.45.00.05"))
    L.append("    GPU Reset Status")
    L.append("        Reset Required                    : %s" % ("Yes" if v.get("reset_required") else "No"))
    L.append("        Drain and Reset Recommended       : %s" % ("Yes" if v.get("drain") else "No"))
    L.append("    PCI")
    L.append("        Bus                               : 0x%s" % cl.bus[g].upper())
    L.append("        Device                            : 0x00")
    L.append("        Domain                            : 0x0000")
    L.append("        Bus Id                            : %s" % cl.busid(g))
    L.append("        GPU Link Info")
    L.append("            PCIe Generation")
    L.append("                Max                       : %d" % gm["pcie_gen"])
    L.append("                Current                   : %d" % v.get("pgen", gm["pcie_gen"]))
    L.append("                Device Current            : %d" % v.get("pgen", gm["pcie_gen"]))
    L.append("                Device Max                : %d" % gm["pcie_gen"])
    L.append("                Host Max                  : %d" % gm["pcie_gen"])
    L.append("            Link Width")
    L.append("                Max                       : 16x")
    L.append("                Current                   : %dx" % v.get("pwidth", 16))
    L.append("        Replays Since Reset               : %d" % v.get("replay", 0))
    L.append("        Replay Number Rollovers           : 0")
    L.append("        Tx Throughput                     : %d KB/s" % v.get("tx", 0))
    L.append("        Rx Throughput                     : %d KB/s" % v.get("rx", 0))
    L.append("    Performance State                     : %s" % ("P0" if v.get("util", 0) > 0 else "P0"))
    L.append("    %s" % evt_reasons_name)
    L.append("        Idle                              : %s" % A(thr & 0x1))
    L.append("        Applications Clocks Setting       : %s" % A(thr & 0x2))
    L.append("        SW Power Cap                      : %s" % A(thr & 0x4))
    L.append("        HW Slowdown                       : %s" % A(thr & 0x8))
    L.append("            HW Thermal Slowdown           : %s" % A(thr & 0x40))
    L.append("            HW Power Brake Slowdown       : %s" % A(thr & 0x80))
    L.append("        Sync Boost                        : %s" % A(thr & 0x10))
    L.append("        SW Thermal Slowdown               : %s" % A(thr & 0x20))
    L.append("        Display Clock Setting             : Not Active")
    L.append("    FB Memory Usage")
    L.append("        Total                             : %d MiB" % gm["mem_mib"])
    L.append("        Reserved                          : %d MiB" % (551 if gm["short"] == "H100" else 0))
    L.append("        Used                              : %d MiB" % v.get("fbused", 0))
    L.append("        Free                              : %d MiB" % (gm["mem_mib"] - v.get("fbused", 0) - (551 if gm["short"] == "H100" else 0)))
    L.append("    Utilization")
    L.append("        Gpu                               : %d %%" % v.get("util", 0))
    L.append("        Memory                            : %d %%" % v.get("mcu", 0))
    L.append("    ECC Errors")
    L.append("        Volatile")
    L.append("            SRAM Correctable              : 0")
    L.append("            SRAM Uncorrectable            : 0")
    L.append("            DRAM Correctable              : %d" % v.get("sbe", 0))
    L.append("            DRAM Uncorrectable            : %d" % v.get("dbe", 0))
    L.append("        Aggregate")
    L.append("            SRAM Correctable              : 0")
    L.append("            SRAM Uncorrectable            : 0")
    L.append("            DRAM Correctable              : %d" % (v.get("sbe", 0) + v.get("sbe_agg", 0)))
    L.append("            DRAM Uncorrectable            : %d" % (v.get("dbe", 0) + v.get("dbe_agg", 0)))
    L.append("    Remapped Rows")
    L.append("        Correctable Error                 : %d" % v.get("crows", 0))
    L.append("        Uncorrectable Error               : %d" % v.get("urows", 0))
    L.append("        Pending                           : %s" % ("Yes" if v.get("rpending") else "No"))
    L.append("        Remapping Failure Occurred        : %s" % ("Yes" if v.get("rfail") else "No"))
    L.append("    Temperature")
    L.append("        GPU Current Temp                  : %d C" % v.get("temp", 30))
    L.append("        GPU T.Limit Temp                  : %d C" % (87 - v.get("temp", 30)))
    L.append("        GPU Shutdown T.Limit Temp         : -5 C")
    L.append("        GPU Slowdown T.Limit Temp         : -2 C")
    L.append("        GPU Max Operating T.Limit Temp    : 0 C")
    L.append("        GPU Target Temperature            : N/A")
    L.append("        Memory Current Temp               : %d C" % v.get("memtemp", 35))
    L.append("        Memory Max Operating T.Limit Temp : 0 C")
    L.append("    GPU Power Readings")
    L.append("        Power Draw                        : %.2f W" % v.get("power", 70.0))
    L.append("        Current Power Limit               : %.2f W" % v.get("plimit", float(gm["tdp"])))
    L.append("        Requested Power Limit             : %.2f W" % v.get("plimit", float(gm["tdp"])))
    L.append("        Default Power Limit               : %.2f W" % float(gm["tdp"]))
    L.append("        Min Power Limit                   : %.2f W" % (200.0 if gm["short"] == "H100" else 100.0))
    L.append("        Max Power Limit                   : %.2f W" % float(gm["tdp"]))
    L.append("    Clocks")
    L.append("        Graphics                          : %d MHz" % v.get("sm", 345))
    L.append("        SM                                : %d MHz" % v.get("sm", 345))
    L.append("        Memory                            : %d MHz" % v.get("memclk", gm["mem_clock"]))
    L.append("        Video                             : %d MHz" % int(v.get("sm", 345) * 0.78))
    L.append("    Max Clocks")
    L.append("        Graphics                          : %d MHz" % gm["sm_max"])
    L.append("        SM                                : %d MHz" % gm["sm_max"])
    L.append("        Memory                            : %d MHz" % gm["mem_clock"])
    L.append("        Video                             : %d MHz" % int(gm["sm_max"] * 0.78))
    return L


def smi_q_header(cl, t, ngpu_attached=None):
    return ["", "==============NVSMI LOG==============", "",
            "Timestamp                                 : %s %s %2d %02d:%02d:%02d %d" % (DAYS[t.weekday()], MONTHS[t.month - 1], t.day, t.hour, t.minute, t.second, t.year),
            "Driver Version                            : %s" % cl.driver,
            "CUDA Version                              : %s" % ("12.2" if cl.driver.startswith("535") else ("12.4" if cl.driver.startswith("550") else "12.0")),
            "", "Attached GPUs                             : %d" % (ngpu_attached if ngpu_attached is not None else cl.gpn)]


QUERY_GPU_HDR = "timestamp, index, pci.bus_id, temperature.gpu, utilization.gpu [%], clocks.current.sm [MHz], clocks_throttle_reasons.active, power.draw [W], pcie.link.gen.current, pcie.link.width.current, memory.used [MiB]"


def query_gpu_row(cl, g, t, v):
    return "%04d/%02d/%02d %02d:%02d:%02d.%03d, %d, %s, %d, %d %%, %d MHz, 0x%016x, %.2f W, %d, %d, %d MiB" % (
        t.year, t.month, t.day, t.hour, t.minute, t.second, t.microsecond // 1000, g, cl.busid(g),
        v["temp"], v["util"], v["sm"], v["thr"], v["power"], v["pgen"], v["pwidth"], v["fbused"])


# --------------------------------------------------------------------------------------------
# sysstat
# --------------------------------------------------------------------------------------------
def sar_header(cl, node, t):
    return "Linux %s (%s) \t%02d/%02d/%02d \t_x86_64_\t(%d CPU)" % (cl.kernel, cl.hosts[node], t.month, t.day, t.year % 100, cl.ncpu)


def py_spy_header(pid, cmd, pyver, pybin):
    return ["Process %d: %s" % (pid, cmd), "Python v%s (%s)" % (pyver, pybin), ""]


# --------------------------------------------------------------------------------------------
# scenario
# --------------------------------------------------------------------------------------------
class Inc:
    def __init__(self):
        self.kind = "none"        # none | slow | crash | stall | kill_all | silent | mm_error
        self.variant = ""
        self.t = None             # true time of incident
        self.r0 = None            # initiator rank (ground truth, may stay hidden)
        self.n0 = None            # initiator node
        self.err = {}             # rank -> list of (t, [lines])  (app stderr, unprefixed)
        self.out = {}             # rank -> list of (t, [lines])  (app stdout extras)
        self.exit = {}            # rank -> (t, code)  self-initiated exits
        self.kern = {}            # node -> list of (t, line)
        self.gpu_over = {}        # (node, g) -> (t_from, dict)
        self.gpu_gone = {}        # (node, g) -> t_from  (fell off the bus)
        self.host = {}            # node -> dict of anomalies
        self.pyspy = {}           # rank -> stack kind
        self.pyspy_t = None
        self.stalled = []         # ranks that stop progressing (no self exit)
        self.gpu_busy_stalled = False
        self.mm_ops = {}          # rank -> (op, numel) for mismatched watchdog lines
        self.victim_mode = "watchdog"   # watchdog | remote
        self.end = "failed"       # failed | completed | running | timelimit | preempted | cancelled
        self.sched_reason = None
        self.evict_node = None
        self.tb_file = {}         # rank -> error.json content lines (torchrun @record)
        self.timeout_lines = True
        self.data_warn = {}       # rank -> list of (t, line)


class Sc:
    def __init__(self, seed, idx, layout, cause):
        self.seed = seed
        self.idx = idx
        self.layout = layout
        self.cause = cause
        self.healthy = cause is None
        self.rng = random.Random("blind31|%s|%d|%s|%s" % (seed, idx, layout, cause))
        self.ev_rank = False
        self.ev_node = False
        self.notes = []
        self.inc = Inc()
        self.files = {}

    # evidence markers: renderers call these when they actually write the evidence
    def saw_rank(self, node=True):
        self.ev_rank = True
        if node:
            self.ev_node = True

    def saw_node(self):
        self.ev_node = True

    def add(self, path, text):
        if isinstance(text, list):
            text = "\n".join(text) + "\n"
        self.files[path] = text


def make_stack(rng, layout):
    st = dict(pick(rng, TORCH_STACKS))
    pyv = st["py"][:4] if st["py"].startswith("3.1") else st["py"][:3]
    if layout in ("megatron-slurm",):
        st["site"] = "/usr/local/lib/python%s/dist-packages" % pyv
        st["torchrun_bin"] = "/usr/local/bin/torchrun"
        st["pybin"] = "/usr/bin/python%s" % pyv
    elif layout in ("hf-k8s", "deepspeed-pdsh"):
        st["site"] = "/opt/conda/lib/python%s/site-packages" % pyv
        st["torchrun_bin"] = "/opt/conda/bin/torchrun"
        st["pybin"] = "/opt/conda/bin/python%s" % pyv
    else:
        user = pick(rng, ["mlee", "jsmith", "akumar", "train", "ywang", "svc-ml"])
        st["site"] = "/home/%s/.venv/lib/python%s/site-packages" % (user, pyv)
        st["torchrun_bin"] = "/home/%s/.venv/bin/torchrun" % user
        st["pybin"] = "/home/%s/.venv/bin/python%s" % (user, pyv)
        st["user"] = user
    st["pyv"] = pyv
    return st


class Row:
    __slots__ = ("step", "t", "step_ms", "comp", "data", "wait", "loss", "lr", "gnorm", "extra_s", "skipped")


def build_timeline(sc):
    rng = sc.rng
    cl = sc.cl
    W = cl.world
    rows = []
    t = sc.t_train0
    s = 0
    pending = 0.0
    sc.ckpt_steps = []
    while s < sc.last_step:
        s2 = min(s + sc.log_every, sc.last_step)
        n = s2 - s
        comp = []
        data = []
        for r in range(W):
            c = sc.base_ms * (1 + rng.gauss(0, 0.012))
            d = sc.data_ms * math.exp(rng.gauss(0, 0.3))
            m = sc.slow_mult(r, s2)
            c *= m
            d += sc.data_extra(r, s2)
            comp.append(c)
            data.append(d)
        comm = sc.comm_ms * (1 + abs(rng.gauss(0, 0.04))) * sc.comm_mult(s2)
        if s2 <= sc.log_every * 2:
            warm = 1.0 + (0.9 if s2 <= sc.log_every else 0.25)
        else:
            warm = 1.0
        slowest = max(comp[r] + data[r] for r in range(W))
        step_ms = (slowest + comm) * warm * (1 + rng.gauss(0, 0.01))
        wait = [max(0.0, step_ms - comp[r] - data[r]) for r in range(W)]
        extra = pending
        pending = 0.0
        if sc.ckpt_every and (s2 // sc.ckpt_every) > (s // sc.ckpt_every) and s2 < sc.last_step:
            pending += sc.ckpt_s * (1 + rng.gauss(0, 0.1))
            sc.ckpt_steps.append(s2 // sc.ckpt_every * sc.ckpt_every)
        if sc.eval_every and (s2 // sc.eval_every) > (s // sc.eval_every) and s2 < sc.last_step:
            pending += sc.eval_s * (1 + rng.gauss(0, 0.05))
        t = t + sec(n * step_ms / 1000.0 + extra)
        row = Row()
        row.step, row.t, row.step_ms = s2, t, step_ms + extra * 1000.0 / n
        row.comp, row.data, row.wait = comp, data, wait
        row.loss = sc.loss_at(s2)
        row.lr = sc.lr_at(s2)
        row.gnorm = abs(rng.gauss(0.9, 0.25)) + (2.5 if rng.random() < 0.03 else 0)
        row.extra_s = extra
        row.skipped = 1 if (rng.random() < 0.02 and sc.fp16) else 0
        rows.append(row)
        s = s2
    sc.rows = rows
    sc.t_last = rows[-1].t if rows else sc.t_train0


def setup_common(sc, n_nodes, gpn, host_style, timeout_ms):
    rng = sc.rng
    sc.st = make_stack(rng, sc.layout)
    sc.cl = Cluster(rng, n_nodes, gpn, host_style)
    cl = sc.cl
    sc.timeout_ms = timeout_ms
    y = pick(rng, [2024, 2024, 2025])
    sc.t_start = _dt.datetime(y, rng.randrange(1, 13), rng.randrange(1, 28), rng.randrange(0, 24), rng.randrange(0, 60), rng.randrange(0, 60), rng.randrange(0, 999999))
    sc.init_s = rng.uniform(70, 260)
    sc.t_train0 = sc.t_start + sec(sc.init_s)
    sc.base_ms = rng.uniform(550, 3800)
    sc.data_ms = rng.uniform(2, 25)
    sc.comm_ms = sc.base_ms * rng.uniform(0.06, 0.22)
    sc.log_every = pick(rng, [10, 10, 20, 25, 50])
    nrows = rng.randrange(55, 130)
    sc.planned_rows = nrows
    sc.train_iters = pick(rng, [100000, 250000, 50000, 20000, 143051])
    sc.ckpt_every = sc.log_every * rng.randrange(15, 40)
    sc.ckpt_s = rng.uniform(15, 120)
    sc.eval_every = sc.log_every * rng.randrange(20, 60) if rng.random() < 0.5 else 0
    sc.eval_s = rng.uniform(20, 90)
    sc.fp16 = rng.random() < 0.25
    sc.gbs = pick(rng, [256, 512, 1024, 1536, 2048])
    sc.seq = pick(rng, [2048, 4096, 8192])
    sc.L0 = rng.uniform(9.5, 11.2)
    sc.Linf = rng.uniform(1.9, 2.8)
    sc.tau = rng.uniform(800, 4000)
    sc.lr_max = pick(rng, [1.5e-4, 3e-4, 6e-4, 2e-5, 1e-4])
    sc.warmup = pick(rng, [500, 1000, 2000, 200])
    sc.resume_step = 0
    if rng.random() < 0.35:
        sc.resume_step = sc.log_every * rng.randrange(30, 400)
    sc._slow = []          # (ranks dict r->mult, onset_step, ramp_steps)
    sc._comm = []          # (onset, mult)
    sc._data = []          # (ranks dict r->extra_ms, onset, end)
    sc.last_step = None
    sc.job_id = rng.randrange(100000, 9999999)
    sc.nccl_debug = rng.random() < 0.45
    sc.commid = "0x" + hexid(rng, 16)
    sc.comm_addr = ["0x%x" % rng.randrange(0x55a000000000, 0x560000000000) for _ in range(cl.world)]
    sc.seq0 = rng.randrange(5, 40)
    sc.ops_per_step = pick(rng, [2, 3, 4, 6])
    sc.numel = pick(rng, [1, 1, 2, 131072, 26214400, 52428800, 262144000])


def fix_batch(sc, tpg):
    """make batch size, sequence length and step time consistent with a per-GPU token throughput"""
    W = sc.cl.world
    ratio = sc.comm_ms / sc.base_ms
    tokens = sc.base_ms / 1000.0 * W * tpg
    gbs = max(W, int(round(tokens / sc.seq / W)) * W)
    sc.gbs = gbs
    sc.tpg = tpg
    sc.base_ms = gbs * sc.seq / (W * tpg) * 1000.0
    sc.comm_ms = sc.base_ms * ratio


def _sc_methods():
    def slow_mult(self, r, s):
        m = 1.0
        for ranks, onset, ramp in self._slow:
            if r in ranks and s >= onset:
                f = min(1.0, (s - onset) / float(max(1, ramp)))
                m *= 1.0 + (ranks[r] - 1.0) * f
        return m

    def data_extra(self, r, s):
        e = 0.0
        for ranks, onset, end in self._data:
            if r in ranks and onset <= s <= end:
                e += ranks[r] * (0.5 + self.rng.random())
        return e

    def comm_mult(self, s):
        m = 1.0
        for onset, mult in self._comm:
            if s >= onset:
                m *= mult
        return m

    def loss_at(self, s):
        s2 = s + self.resume_step
        return self.Linf + (self.L0 - self.Linf) * math.exp(-s2 / self.tau) + self.rng.gauss(0, 0.03)

    def lr_at(self, s):
        s2 = s + self.resume_step
        if s2 < self.warmup:
            return self.lr_max * s2 / self.warmup
        return self.lr_max * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * min(1.0, s2 / float(self.train_iters)))))

    def step_at_time(self, t):
        last = 0
        for row in self.rows:
            if row.t <= t:
                last = row.step
        return last

    def time_of_step(self, s):
        prev_t, prev_s = self.t_train0, 0
        for row in self.rows:
            if row.step >= s:
                frac = (s - prev_s) / float(max(1, row.step - prev_s))
                return prev_t + (row.t - prev_t) * frac
            prev_t, prev_s = row.t, row.step
        return self.t_last

    def S(self, s):
        """displayed (absolute) iteration number"""
        return s + self.resume_step

    def seq_at(self, s):
        return self.seq0 + (s + self.resume_step) * self.ops_per_step

    Sc.slow_mult = slow_mult
    Sc.data_extra = data_extra
    Sc.comm_mult = comm_mult
    Sc.loss_at = loss_at
    Sc.lr_at = lr_at
    Sc.step_at_time = step_at_time
    Sc.time_of_step = time_of_step
    Sc.S = S
    Sc.seq_at = seq_at


_sc_methods()


# --------------------------------------------------------------------------------------------
# telemetry models
# --------------------------------------------------------------------------------------------
def gpu_vals(sc, node, g, t):
    """metric values of one GPU at true time t"""
    cl = sc.cl
    gm = cl.gpu
    inc = sc.inc
    rng = random.Random("%s|%d|%d|%d" % (sc.rng_tag, node, g, int(epoch(t))))
    r = cl.rank(node, g)
    v = {"zero": 0, "xid": 0, "sbe": 0, "dbe": 0, "urows": 0, "crows": 0, "rfail": 0, "crc": 0,
         "replay": 0, "pgen": gm["pcie_gen"], "pwidth": 16, "memclk": gm["mem_clock"]}
    idle = dict(util=0, sm=345 if gm["short"] == "H100" else 210, power=gm["idle_w"] + rng.uniform(-3, 8), temp=int(rng.uniform(29, 36)),
                memtemp=int(rng.uniform(32, 40)), fbused=0, thr=1, mcu=0, gract=0.0, tensor=0.0, dram=0.0)
    t_end = sc.t_end_of_rank.get(r) if hasattr(sc, "t_end_of_rank") else None
    if t < sc.t_train0 - sec(40) or (t_end is not None and t >= t_end):
        v.update(idle)
        if t_end is not None and t >= t_end and t < t_end + sec(20):
            v["fbused"] = rng.randrange(500, 3000)
    else:
        base_fb = sc.fb_base + (g * 37) % 900
        v.update(util=int(min(100, rng.uniform(94, 101))), sm=gm["sm_max"] if rng.random() < 0.7 else gm["sm_max"] - rng.choice([15, 30, 45, 60, 90]),
                 power=gm["tdp"] * rng.uniform(0.72, 0.97), temp=int(rng.uniform(52, 71)), memtemp=int(rng.uniform(58, 79)),
                 fbused=base_fb + rng.randrange(0, 500), thr=4 if rng.random() < 0.35 else 0, mcu=int(rng.uniform(25, 55)),
                 gract=rng.uniform(0.86, 0.99), tensor=rng.uniform(0.28, 0.55), dram=rng.uniform(0.3, 0.6))
        if v["thr"] == 4:
            v["sm"] = gm["sm_max"] - rng.choice([60, 90, 120, 150])
            v["power"] = gm["tdp"] * rng.uniform(0.97, 1.0)
        # a slower peer makes everybody else wait inside NCCL: lower average power / tensor activity
        if sc.cause == "straggler" and inc.t is not None and t >= inc.t:
            cg = (sc.cl.node_of(inc.r0), sc.cl.local_of(inc.r0)) if inc.r0 is not None else None
            if cg is None or cg != (node, g):
                f = rng.uniform(0.7, 0.86)
                v["power"] *= f
                v["tensor"] *= f
                if v["thr"] == 4 and v["power"] < gm["tdp"] * 0.9:
                    v["thr"] = 0
                    v["sm"] = gm["sm_max"]
        # stalled phase: hung collective keeps NCCL kernels spinning on the victims
        if inc.kind in ("stall", "silent") and inc.t is not None and t >= inc.t:
            if r in inc.stalled and not inc.gpu_busy_stalled:
                v.update(util=0, power=gm["idle_w"] + rng.uniform(15, 40), sm=gm["sm_max"] if t < inc.t + sec(30) else (345 if gm["short"] == "H100" else 210),
                         thr=0 if t < inc.t + sec(30) else 1, gract=0.0, tensor=0.0, dram=0.0, mcu=0,
                         temp=max(33, v["temp"] - 18))
            else:
                v.update(util=100, power=gm["idle_w"] + gm["tdp"] * rng.uniform(0.10, 0.17), sm=gm["sm_max"], thr=0,
                         gract=rng.uniform(0.97, 1.0), tensor=0.0, dram=rng.uniform(0.0, 0.02), mcu=int(rng.uniform(0, 2)),
                         temp=max(35, v["temp"] - 12))
    over = inc.gpu_over.get((node, g))
    if over and t >= over[0]:
        for k, val in over[1].items():
            if callable(val):
                v[k] = val(v, t, rng)
            else:
                v[k] = val
    # slow hardware states that predate the incident
    for (nn, gg), (t_from, d) in getattr(sc, "gpu_state", {}).items():
        if nn == node and gg == g and t >= t_from:
            for k, val in d.items():
                v[k] = val(v, t, rng) if callable(val) else val
    v["fbfree"] = gm["mem_mib"] - v["fbused"] - (551 if gm["short"] == "H100" else 0)
    secs = max(0.0, (t - sc.t_start).total_seconds())
    v["energy"] = int(sc.energy0[node][g] + secs * (gm["tdp"] * 0.8) * 1000)
    v["nvbw"] = int(sc.nvbw0[node][g] + secs * 1.9e6)
    v["power"] = round(v["power"], 3)
    return v


def host_vals(sc, node, t):
    rng = random.Random("%s|h|%d|%d" % (sc.rng_tag, node, int(epoch(t))))
    inc = sc.inc
    training = sc.t_train0 - sec(60) <= t <= sc.t_end_host.get(node, sc.t_last)
    v = {}
    if training:
        v["user"] = rng.uniform(9, 22)
        v["sys"] = rng.uniform(2.0, 5.5)
        v["iowait"] = rng.uniform(0.0, 0.4)
        v["steal"] = 0.0
        v["mem"] = sc.mem_base[node] + rng.uniform(-0.4, 0.4)
        v["runq"] = int(rng.uniform(8, 30))
        v["ld1"] = rng.uniform(8, 26)
        v["ib_rx"] = sc.net_kbs * rng.uniform(0.85, 1.1)
        v["ib_tx"] = sc.net_kbs * rng.uniform(0.85, 1.1)
        v["eth_rx"] = rng.uniform(800, 9000)
        v["eth_tx"] = rng.uniform(300, 3000)
        v["rxerr"] = 0.0
        v["rxdrop"] = 0.0
    else:
        v.update(user=rng.uniform(0.1, 0.8), sys=rng.uniform(0.1, 0.5), iowait=0.0, steal=0.0, mem=rng.uniform(3, 6),
                 runq=int(rng.uniform(0, 3)), ld1=rng.uniform(0.1, 1.5), ib_rx=rng.uniform(0, 3), ib_tx=rng.uniform(0, 3),
                 eth_rx=rng.uniform(5, 60), eth_tx=rng.uniform(2, 30), rxerr=0.0, rxdrop=0.0)
    if inc.kind in ("stall", "silent") and inc.t and t >= inc.t and training:
        v["ib_rx"] = rng.uniform(0, 40)
        v["ib_tx"] = rng.uniform(0, 40)
        v["user"] = rng.uniform(4, 7)
    if getattr(sc, "slow_net_factor", None) and training:
        v["ib_rx"] *= sc.slow_net_factor
        v["ib_tx"] *= sc.slow_net_factor
    an = inc.host.get(node, {})
    for k, (t_from, t_to, f) in an.items():
        if t_from <= t <= t_to:
            f(v, t, rng)
    return v


# --------------------------------------------------------------------------------------------
# py-spy stacks (outermost first, reversed at render time)
# --------------------------------------------------------------------------------------------
def fw_outer(sc):
    fw = sc.fw
    if fw == "megatron":
        return [("<module>", "pretrain_gpt.py", 243), ("pretrain", "megatron/training/training.py", 355),
                ("train", "megatron/training/training.py", 1339), ("train_step", "megatron/training/training.py", 750)]
    if fw == "hf":
        return [("<module>", "train.py", 212), ("main", "train.py", 198), ("train", "transformers/trainer.py", 2052),
                ("_inner_training_loop", "transformers/trainer.py", 2388)]
    if fw == "lightning":
        return [("<module>", "train.py", 141), ("main", "train.py", 132), ("fit", "lightning/pytorch/trainer/trainer.py", 538),
                ("_call_and_handle_interrupt", "lightning/pytorch/trainer/call.py", 46), ("_fit_impl", "lightning/pytorch/trainer/trainer.py", 574),
                ("_run", "lightning/pytorch/trainer/trainer.py", 981), ("_run_stage", "lightning/pytorch/trainer/trainer.py", 1025),
                ("run", "lightning/pytorch/loops/fit_loop.py", 205), ("advance", "lightning/pytorch/loops/fit_loop.py", 363),
                ("run", "lightning/pytorch/loops/training_epoch_loop.py", 140), ("advance", "lightning/pytorch/loops/training_epoch_loop.py", 250)]
    if fw == "deepspeed":
        return [("<module>", "train.py", 388), ("main", "train.py", 371), ("train", "train.py", 284)]
    return [("<module>", "train.py", 455), ("main", "train.py", 402), ("train", "train.py", 311)]


def fw_victim(sc):
    fw = sc.fw
    if fw == "megatron":
        return [("step", "megatron/core/optimizer/optimizer.py", 454), ("clip_grad_norm", "megatron/core/optimizer/optimizer.py", 173),
                ("get_grad_norm_fp32", "megatron/core/optimizer/clip_grads.py", 134)]
    if fw == "hf":
        return [("training_step", "transformers/trainer.py", 3485), ("backward", "accelerate/accelerator.py", 2151),
                ("backward", "torch/_tensor.py", 521), ("backward", "torch/autograd/__init__.py", 289),
                ("_engine_run_backward", "torch/autograd/graph.py", 768)]
    if fw == "lightning":
        return [("_optimizer_step", "lightning/pytorch/loops/optimization/automatic.py", 270),
                ("step", "lightning/pytorch/core/optimizer.py", 154), ("optimizer_step", "lightning/pytorch/strategies/ddp.py", 270),
                ("closure", "lightning/pytorch/loops/optimization/automatic.py", 129), ("_call_strategy_hook", "lightning/pytorch/trainer/call.py", 311),
                ("training_step", "lightning/pytorch/strategies/strategy.py", 390), ("training_step", "model.py", 88)]
    if fw == "deepspeed":
        return [("step", "deepspeed/runtime/engine.py", 2213), ("_take_model_step", "deepspeed/runtime/engine.py", 2119),
                ("step", "deepspeed/runtime/zero/stage_1_and_2.py", 1842), ("get_grad_norm_direct", "deepspeed/runtime/zero/stage_1_and_2.py", 1603)]
    return [("train_step", "train.py", 214), ("reduce_scalar", "dist_utils.py", 88)]


def fw_data(sc):
    fw = sc.fw
    if fw == "megatron":
        pre = [("forward_backward_no_pipelining", "megatron/core/pipeline_parallel/schedules.py", 456),
               ("forward_step", "megatron/core/pipeline_parallel/schedules.py", 264), ("forward_step", "pretrain_gpt.py", 184),
               ("get_batch", "pretrain_gpt.py", 112), ("get_batch_on_this_tp_rank", "megatron/training/utils.py", 291)]
    elif fw == "hf":
        pre = [("get_batch_samples", "transformers/trainer.py", 5098), ("__iter__", "accelerate/data_loader.py", 552)]
    elif fw == "lightning":
        pre = [("__next__", "lightning/pytorch/loops/fetchers.py", 134), ("__next__", "lightning/pytorch/utilities/combined_loader.py", 285),
               ("__next__", "lightning/pytorch/utilities/combined_loader.py", 65)]
    elif fw == "deepspeed":
        pre = [("__next__", "deepspeed/runtime/dataloader.py", 88)]
    else:
        pre = [("next_batch", "train.py", 187)]
    return pre + [("__next__", "torch/utils/data/dataloader.py", 631), ("_next_data", "torch/utils/data/dataloader.py", 1329),
                  ("_get_data", "torch/utils/data/dataloader.py", 1295), ("_try_get_data", "torch/utils/data/dataloader.py", 1133),
                  ("get", "multiprocessing/queues.py", 113), ("poll", "multiprocessing/connection.py", 257),
                  ("_poll", "multiprocessing/connection.py", 440), ("wait", "multiprocessing/connection.py", 948),
                  ("select", "selectors.py", 416)]


def pyspy_threads(sc, r, kind, rng):
    """returns list of (thread_name, state, frames outermost-first)"""
    threads = []
    outer = fw_outer(sc)
    if kind == "victim":
        threads.append(("MainThread", "idle" if rng.random() < 0.6 else "active", outer + fw_victim(sc)))
    elif kind == "dl_wait":
        threads.append(("MainThread", "idle", outer + fw_data(sc)))
    elif kind == "hang_lock":
        threads.append(("MainThread", "idle", outer + [("on_step_end", "callbacks.py", 64), ("flush", "telemetry/client.py", 112),
                                                       ("wait", "threading.py", 607), ("wait", "threading.py", 320)]))
        threads.append(("telemetry-uploader", "idle", [("_bootstrap", "threading.py", 973), ("_bootstrap_inner", "threading.py", 1016),
                                                       ("run", "telemetry/client.py", 71), ("_post", "telemetry/client.py", 95),
                                                       ("request", "requests/api.py", 59), ("send", "requests/adapters.py", 667),
                                                       ("getresponse", "http/client.py", 1375), ("readinto", "socket.py", 705)]))
    elif kind == "hang_loop":
        threads.append(("MainThread", "active", outer + [("pack_sequences", "data/packing.py", 58), ("_find_split", "data/packing.py", 41)]))
    elif kind == "hang_cuda":
        threads.append(("MainThread", "active", outer + [("log_metrics", "train_utils.py", 131), ("synchronize", "torch/cuda/__init__.py", 892)]))
    elif kind == "hang_ckpt":
        threads.append(("MainThread", "idle", outer + [("maybe_save", "checkpointing.py", 210), ("wait_previous", "checkpointing.py", 188),
                                                       ("join", "threading.py", 1119), ("_wait_for_tstate_lock", "threading.py", 1139)]))
        threads.append(("ckpt-writer", "idle", [("_bootstrap", "threading.py", 973), ("_bootstrap_inner", "threading.py", 1016),
                                                ("run", "threading.py", 953), ("_write", "checkpointing.py", 160),
                                                ("acquire_lock", "filelock/_api.py", 330), ("sleep", "time.py", 0)]))
    elif kind == "mm_broadcast":
        threads.append(("MainThread", "idle", outer + [("maybe_log_samples", "eval_hooks.py", 77), ("broadcast_object_list", "torch/distributed/distributed_c10d.py", 2717),
                                                       ("wrapper", "torch/distributed/c10d_logger.py", 83), ("broadcast", "torch/distributed/distributed_c10d.py", 2217),
                                                       ("wait", "torch/distributed/distributed_c10d.py", 0)]))
    elif kind == "mm_barrier":
        threads.append(("MainThread", "idle", outer + [("save_checkpoint", "checkpointing.py", 96), ("barrier", "torch/distributed/distributed_c10d.py", 3936),
                                                       ("wrapper", "torch/distributed/c10d_logger.py", 83)]))
    elif kind == "compute":
        threads.append(("MainThread", "active", outer + [("forward", "model.py", 212), ("_call_impl", "torch/nn/modules/module.py", 1562)]))
    # background threads that are always there
    threads.append(("Thread-%d (_pin_memory_loop)" % rng.randrange(1, 4), "idle",
                    [("_bootstrap", "threading.py", 973), ("_bootstrap_inner", "threading.py", 1016), ("run", "threading.py", 953),
                     ("_pin_memory_loop", "torch/utils/data/_utils/pin_memory.py", 55), ("do_one_step", "torch/utils/data/_utils/pin_memory.py", 32),
                     ("get", "multiprocessing/queues.py", 113), ("poll", "multiprocessing/connection.py", 257),
                     ("_poll", "multiprocessing/connection.py", 440), ("wait", "multiprocessing/connection.py", 948), ("select", "selectors.py", 416)]))
    if sc.fw in ("hf", "lightning", "custom") and rng.random() < 0.6:
        threads.append(("MsgRouterThr", "idle", [("_bootstrap", "threading.py", 973), ("_bootstrap_inner", "threading.py", 1016),
                                                 ("run", "threading.py", 953), ("message_loop", "wandb/sdk/interface/router.py", 67),
                                                 ("_read_message", "wandb/sdk/interface/router_sock.py", 27), ("read_server_response", "wandb/sdk/lib/sock_client.py", 285),
                                                 ("_read_packet_bytes", "wandb/sdk/lib/sock_client.py", 262)]))
    return threads


def pyspy_dump(sc, r, kind, rng, cmd):
    cl = sc.cl
    pid = cl.pid(r)
    out = py_spy_header(pid, cmd, sc.st["py"], sc.st["pybin"])
    for i, (name, state, frames) in enumerate(pyspy_threads(sc, r, kind, rng)):
        tid = pid if i == 0 else pid + rng.randrange(40, 3000)
        out.append('Thread %d (%s): "%s"' % (tid, state, name))
        for fn, f, ln in reversed(frames):
            if ln == 0:
                ln = rng.randrange(100, 900)
            out.append("    %s (%s:%d)" % (fn, f, ln))
    return out


def pyspy_worker_dump(sc, r, kind, rng, wpid):
    out = py_spy_header(wpid, "%s -c from multiprocessing.spawn import spawn_main; spawn_main(tracker_fd=%d, pipe_handle=%d) --multiprocessing-fork" % (sc.st["pybin"], rng.randrange(20, 90), rng.randrange(20, 90)) if rng.random() < 0.3 else sc.cmd, sc.st["py"], sc.st["pybin"])
    base = [("_bootstrap", "multiprocessing/process.py", 314), ("run", "multiprocessing/process.py", 108),
            ("_worker_loop", "torch/utils/data/_utils/worker.py", 309), ("fetch", "torch/utils/data/_utils/fetch.py", 52),
            ("<listcomp>", "torch/utils/data/_utils/fetch.py", 52), ("__getitem__", "data/dataset.py", 87)]
    if kind == "nfs":
        inner = [("_load_shard", "data/dataset.py", 61), ("load", "numpy/lib/npyio.py", 456), ("read_array", "numpy/lib/format.py", 800)]
    elif kind == "s3":
        inner = [("_fetch_object", "data/remote.py", 118), ("get_object", "data/remote.py", 74), ("_api_call", "botocore/client.py", 565),
                 ("_make_api_call", "botocore/client.py", 1001), ("_send", "botocore/endpoint.py", 376), ("send", "urllib3/connectionpool.py", 789),
                 ("_make_request", "urllib3/connectionpool.py", 536), ("getresponse", "http/client.py", 1395), ("readinto", "socket.py", 718),
                 ("recv_into", "ssl.py", 1314), ("read", "ssl.py", 1166)]
    else:
        inner = [("_decode", "data/dataset.py", 102), ("open", "PIL/Image.py", 3308), ("read", "io.py", 0)]
    out.append('Thread %d (idle): "MainThread"' % wpid)
    for fn, f, ln in reversed(base + inner):
        if ln == 0:
            ln = rng.randrange(100, 900)
        out.append("    %s (%s:%d)" % (fn, f, ln))
    return out


# --------------------------------------------------------------------------------------------
# python tracebacks
# --------------------------------------------------------------------------------------------
CODE = {
    "<module>": "main()", "main": "trainer.train()", "pretrain": "iteration, num_floating_point_operations_so_far = train(",
    "train": "train_step(batch)", "train_step": "loss = model(**batch).loss",
    "_inner_training_loop": "tr_loss_step = self.training_step(model, inputs, num_items_in_batch)",
    "training_step": "loss = self.compute_loss(model, inputs, num_items_in_batch=num_items_in_batch)",
    "fit": "call._call_and_handle_interrupt(", "_call_and_handle_interrupt": "return trainer_fn(*args, **kwargs)",
    "_fit_impl": "self._run(model, ckpt_path=ckpt_path)", "_run": "results = self._run_stage()",
    "_run_stage": "self.fit_loop.run()", "run": "self.advance()", "advance": "batch_output = self.automatic_optimization.run(trainer.optimizers[0], batch_idx, kwargs)",
    "forward": "return self._call_impl(*args, **kwargs)", "_call_impl": "return forward_call(*args, **kwargs)",
    "_wrapped_call_impl": "return self._call_impl(*args, **kwargs)", "__next__": "data = self._next_data()",
    "_next_data": "data = self._dataset_fetcher.fetch(index)  # may raise StopIteration",
    "fetch": "data = [self.dataset[idx] for idx in possibly_batched_index]",
    "__getitem__": "sample = self._load(path)", "compute_loss": "outputs = model(**inputs)",
}


CODE2 = {
    ("<module>", "pretrain_gpt.py"): "pretrain(",
    ("pretrain", "megatron/training/training.py"): "iteration, num_floating_point_operations_so_far = train(",
    ("train", "megatron/training/training.py"): "train_step(forward_step_func,",
    ("train_step", "megatron/training/training.py"): "losses_reduced = forward_backward_func(",
    ("forward_backward_no_pipelining", "megatron/core/pipeline_parallel/schedules.py"): "output_tensor, num_tokens = forward_step(",
    ("forward_step", "megatron/core/pipeline_parallel/schedules.py"): "output_tensor, loss_func = forward_step_func(data_iterator, model)",
    ("forward_step", "pretrain_gpt.py"): "output_tensor = model(tokens, position_ids, attention_mask,",
    ("get_batch", "pretrain_gpt.py"): "batch = get_batch_on_this_tp_rank(data_iterator)",
    ("get_batch_on_this_tp_rank", "megatron/training/utils.py"): "data = next(data_iterator)",
    ("forward", "megatron/core/distributed/distributed_data_parallel.py"): "return self.module(*inputs, **kwargs)",
    ("forward", "megatron/core/models/gpt/gpt_model.py"): "hidden_states = self.decoder(",
    ("forward", "megatron/core/transformer/transformer_block.py"): "hidden_states, context = layer(",
    ("forward", "megatron/core/transformer/transformer_layer.py"): "attention_output_with_bias = self.self_attention(",
    ("forward", "megatron/core/transformer/mlp.py"): "intermediate_parallel, bias_parallel = self.linear_fc1(hidden_states)",
    ("forward", "megatron/core/transformer/attention.py"): "query = apply_rotary_pos_emb(",
    ("apply_rotary_pos_emb_bshd", "megatron/core/models/common/embeddings/rotary_pos_embedding.py"): "t = (t * cos_) + (_rotate_half(t, rotary_interleaved) * sin_)",
    ("backward_step", "megatron/core/pipeline_parallel/schedules.py"): "custom_backward(output_tensor[0], output_tensor_grad[0])",
    ("finalize_model_grads", "megatron/core/distributed/finalize_model_grads.py"): "model_chunk.finish_grad_sync()",
    ("finish_grad_sync", "megatron/core/distributed/distributed_data_parallel.py"): "bucket_group.finish_grad_sync()",
    ("start_grad_sync", "megatron/core/distributed/param_and_grad_buffer.py"): "self.check_for_nan_in_grad()",
    ("check_for_nan_in_grad", "megatron/core/distributed/param_and_grad_buffer.py"): "assert not norm_is_nan, (",
    ("save_checkpoint_and_time", "megatron/training/training.py"): "save_checkpoint(iteration, model, optimizer, opt_param_scheduler,",
    ("save_checkpoint", "megatron/training/checkpointing.py"): "torch.save(state_dict, checkpoint_name)",
    ("main", "train.py"): "trainer.train(resume_from_checkpoint=args.resume)",
    ("train", "transformers/trainer.py"): "return inner_training_loop(",
    ("_inner_training_loop", "transformers/trainer.py"): "tr_loss_step = self.training_step(model, inputs, num_items_in_batch)",
    ("training_step", "transformers/trainer.py"): "loss = self.compute_loss(model, inputs, num_items_in_batch=num_items_in_batch)",
    ("compute_loss", "transformers/trainer.py"): "outputs = model(**inputs)",
    ("forward", "torch/nn/parallel/distributed.py"): "else self._run_ddp_forward(*inputs, **kwargs)",
    ("_run_ddp_forward", "torch/nn/parallel/distributed.py"): "return self.module(*inputs, **kwargs)  # type: ignore[index]",
    ("get_batch_samples", "transformers/trainer.py"): "batch_samples += [next(epoch_iterator)]",
    ("__iter__", "accelerate/data_loader.py"): "next_batch = next(dataloader_iter)",
    ("_maybe_log_save_evaluate", "transformers/trainer.py"): "self._save_checkpoint(model, trial)",
    ("_save_checkpoint", "transformers/trainer.py"): "self.save_model(output_dir, _internal_call=True)",
    ("save_model", "transformers/trainer.py"): "self._save(output_dir)",
    ("_save", "transformers/trainer.py"): "torch.save(state_dict, os.path.join(output_dir, WEIGHTS_NAME))",
    ("fit", "lightning/pytorch/trainer/trainer.py"): "call._call_and_handle_interrupt(",
    ("_call_and_handle_interrupt", "lightning/pytorch/trainer/call.py"): "return trainer_fn(*args, **kwargs)",
    ("_fit_impl", "lightning/pytorch/trainer/trainer.py"): "self._run(model, ckpt_path=ckpt_path)",
    ("_run", "lightning/pytorch/trainer/trainer.py"): "results = self._run_stage()",
    ("_run_stage", "lightning/pytorch/trainer/trainer.py"): "self.fit_loop.run()",
    ("run", "lightning/pytorch/loops/fit_loop.py"): "self.advance()",
    ("advance", "lightning/pytorch/loops/fit_loop.py"): "self.epoch_loop.run(self._data_fetcher)",
    ("run", "lightning/pytorch/loops/training_epoch_loop.py"): "self.advance(data_fetcher)",
    ("advance", "lightning/pytorch/loops/training_epoch_loop.py"): "batch_output = self.automatic_optimization.run(trainer.optimizers[0], batch_idx, kwargs)",
    ("_optimizer_step", "lightning/pytorch/loops/optimization/automatic.py"): "call._call_lightning_module_hook(",
    ("closure", "lightning/pytorch/loops/optimization/automatic.py"): "step_output = self._step_fn()",
    ("_training_step", "lightning/pytorch/loops/optimization/automatic.py"): "training_step_output = call._call_strategy_hook(trainer, \"training_step\", *kwargs.values())",
    ("_call_strategy_hook", "lightning/pytorch/trainer/call.py"): "output = fn(*args, **kwargs)",
    ("training_step", "lightning/pytorch/strategies/strategy.py"): "return self.lightning_module.training_step(*args, **kwargs)",
    ("training_step", "model.py"): "logits = self(batch[\"x\"])",
    ("forward", "model.py"): "x = block(x)",
    ("__next__", "lightning/pytorch/loops/fetchers.py"): "batch = next(self.iterator)",
    ("__next__", "lightning/pytorch/utilities/combined_loader.py"): "out = next(self._iterator)",
    ("save_checkpoint", "lightning/pytorch/trainer/trainer.py"): "self.strategy.save_checkpoint(checkpoint, filepath, storage_options=storage_options)",
    ("train", "train.py"): "loss = train_step(model, batch, optimizer, step)",
    ("train_step", "train.py"): "logits = model(batch[\"input_ids\"])",
    ("next_batch", "train.py"): "return next(self._it)",
    ("forward", "deepspeed/utils/nvtx.py"): "ret_val = func(*args, **kwargs)",
    ("forward", "deepspeed/runtime/engine.py"): "loss = self.module(*inputs, **kwargs)",
    ("__next__", "deepspeed/runtime/dataloader.py"): "return next(self.data)",
    ("step", "deepspeed/runtime/engine.py"): "self._take_model_step(lr_kwargs)",
    ("_take_model_step", "deepspeed/runtime/engine.py"): "self.optimizer.step()",
    ("step", "deepspeed/runtime/zero/stage_1_and_2.py"): "norm_groups.append(self.get_grad_norm_direct(self.averaged_gradients[i], self.params_in_partition[i]))",
    ("__next__", "torch/utils/data/dataloader.py"): "data = self._next_data()",
    ("_get_data", "torch/utils/data/dataloader.py"): "success, data = self._try_get_data()",
    ("_try_get_data", "torch/utils/data/dataloader.py"): "data = self._data_queue.get(timeout=timeout)",
    ("_process_data", "torch/utils/data/dataloader.py"): "data.reraise()",
    ("reraise", "torch/_utils.py"): "raise exception",
    ("handler", "torch/utils/data/_utils/signal_handling.py"): "_error_if_any_worker_fails()",
    ("_wrapped_call_impl", "torch/nn/modules/module.py"): "return self._call_impl(*args, **kwargs)",
    ("_call_impl", "torch/nn/modules/module.py"): "return forward_call(*args, **kwargs)",
    ("forward", "torch/nn/modules/linear.py"): "return F.linear(input, self.weight, self.bias)",
    ("wrapper", "torch/distributed/c10d_logger.py"): "return func(*args, **kwargs)",
    ("all_reduce", "torch/distributed/distributed_c10d.py"): "work = group.allreduce([tensor], opts)",
    ("broadcast", "torch/distributed/distributed_c10d.py"): "work = group.broadcast([tensor], opts)",
    ("broadcast_object_list", "torch/distributed/distributed_c10d.py"): "broadcast(object_sizes_tensor, src=src, group=group)",
    ("maybe_log_samples", "eval_hooks.py"): "dist.broadcast_object_list(samples, src=0)",
    ("save", "torch/serialization.py"): "_save(",
    ("__exit__", "torch/serialization.py"): "self.file_like.write_end_of_file()",
    ("get_grad_norm_fp32", "megatron/core/optimizer/clip_grads.py"): "torch.distributed.all_reduce(",
    ("clip_grad_norm", "megatron/core/optimizer/optimizer.py"): "grad_norm = get_grad_norm_fp32(",
    ("step", "megatron/core/optimizer/optimizer.py"): "grad_norm = self.clip_grad_norm(self.config.clip_grad)",
    ("get_grad_norm_direct", "deepspeed/runtime/zero/stage_1_and_2.py"): "dist.all_reduce(total_norm_cuda, op=dist.ReduceOp.SUM, group=self.dp_process_group)",
    ("reduce_scalar", "dist_utils.py"): "dist.all_reduce(t, op=dist.ReduceOp.AVG)",
    ("embed", "model.py"): "return self.tok_embeddings(tokens)",
}


def is_user_file(f):
    return not any(f.startswith(p) for p in ("torch/", "transformers/", "accelerate/", "lightning/", "megatron/core", "deepspeed/",
                                             "multiprocessing/", "threading.py", "queue.py", "selectors.py", "socket.py", "ssl.py",
                                             "http/", "urllib3/", "botocore/", "numpy/", "PIL/", "wandb/", "requests/", "filelock/",
                                             "json/", "io.py", "time.py"))


def tb_lines(sc, frames, exc, code=None):
    code = code or {}
    out = ["Traceback (most recent call last):"]
    for fn, f, ln in frames:
        if is_user_file(f):
            path = sc.workdir + "/" + f
        elif f.split("/")[0] in ("multiprocessing", "threading.py", "queue.py", "selectors.py", "socket.py", "ssl.py", "http", "json", "io.py"):
            path = "/usr/lib/python%s/%s" % (sc.st["pyv"], f) if "dist-packages" in sc.st["site"] else sc.st["site"].replace("/site-packages", "") + "/" + f
        else:
            path = sc.st["site"] + "/" + f
        out.append('  File "%s", line %d, in %s' % (path, ln, fn))
        out.append("    " + code.get((fn, f), CODE2.get((fn, f), CODE.get(fn, "return fn(*args, **kwargs)"))))
    out.extend(exc)
    return out


def fw_forward(sc):
    fw = sc.fw
    if fw == "megatron":
        return [("forward_backward_no_pipelining", "megatron/core/pipeline_parallel/schedules.py", 456),
                ("forward_step", "megatron/core/pipeline_parallel/schedules.py", 275), ("forward_step", "pretrain_gpt.py", 194),
                ("_wrapped_call_impl", "torch/nn/modules/module.py", 1553), ("_call_impl", "torch/nn/modules/module.py", 1562),
                ("forward", "megatron/core/distributed/distributed_data_parallel.py", 305), ("forward", "megatron/core/models/gpt/gpt_model.py", 235),
                ("forward", "megatron/core/transformer/transformer_block.py", 496), ("forward", "megatron/core/transformer/transformer_layer.py", 275),
                ("forward", "megatron/core/transformer/mlp.py", 118)]
    if fw == "hf":
        return [("training_step", "transformers/trainer.py", 3485), ("compute_loss", "transformers/trainer.py", 3532),
                ("_wrapped_call_impl", "torch/nn/modules/module.py", 1553), ("_call_impl", "torch/nn/modules/module.py", 1562),
                ("forward", "torch/nn/parallel/distributed.py", 1636), ("_run_ddp_forward", "torch/nn/parallel/distributed.py", 1454),
                ("forward", "transformers/models/llama/modeling_llama.py", 1189), ("forward", "transformers/models/llama/modeling_llama.py", 1001),
                ("forward", "transformers/models/llama/modeling_llama.py", 734)]
    if fw == "lightning":
        return [("_optimizer_step", "lightning/pytorch/loops/optimization/automatic.py", 270), ("closure", "lightning/pytorch/loops/optimization/automatic.py", 129),
                ("_training_step", "lightning/pytorch/loops/optimization/automatic.py", 319), ("_call_strategy_hook", "lightning/pytorch/trainer/call.py", 311),
                ("training_step", "lightning/pytorch/strategies/strategy.py", 390), ("training_step", "model.py", 88),
                ("_wrapped_call_impl", "torch/nn/modules/module.py", 1553), ("_call_impl", "torch/nn/modules/module.py", 1562), ("forward", "model.py", 212)]
    if fw == "deepspeed":
        return [("forward", "deepspeed/utils/nvtx.py", 18), ("forward", "deepspeed/runtime/engine.py", 1899),
                ("_wrapped_call_impl", "torch/nn/modules/module.py", 1553), ("_call_impl", "torch/nn/modules/module.py", 1562), ("forward", "model.py", 212)]
    return [("train_step", "train.py", 205), ("_wrapped_call_impl", "torch/nn/modules/module.py", 1553),
            ("_call_impl", "torch/nn/modules/module.py", 1562), ("forward", "torch/nn/parallel/distributed.py", 1636),
            ("_run_ddp_forward", "torch/nn/parallel/distributed.py", 1454), ("forward", "model.py", 212)]


def oom_text(sc, g, rng):
    tot = 79.10 if sc.cl.gpu["short"] == "H100" else 79.15
    want = rng.choice([1.95, 2.0, 3.82, 4.0, 7.81, 1.25, 10.0])
    free = rng.uniform(0.4, min(want - 0.1, 3.0))
    inuse = tot - free
    alloc = inuse - rng.uniform(0.8, 4.5)
    resv = inuse - alloc - rng.uniform(0.2, 0.6)
    pid = sc.cl.pid(sc.inc.r0)
    if sc.st["major"] <= 21:
        return ["torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate %.2f GiB. GPU %d has a total capacty of %.2f GiB of which %.2f GiB is free. Process %d has %.2f GiB memory in use. Of the allocated memory %.2f GiB is allocated by PyTorch, and %.2f GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF"
                % (want, g, tot, free, pid, inuse, alloc, resv)]
    name = "torch.OutOfMemoryError" if sc.st["major"] >= 23 else "torch.cuda.OutOfMemoryError"
    return ["%s: CUDA out of memory. Tried to allocate %.2f GiB. GPU %d has a total capacity of %.2f GiB of which %.2f GiB is free. Process %d has %.2f GiB memory in use. Of the allocated memory %.2f GiB is allocated by PyTorch, and %.2f GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)"
            % (name, want, g, tot, free, pid, inuse, alloc, resv)]


CUDA_ERR_TAIL = ["CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
                 "For debugging consider passing CUDA_LAUNCH_BLOCKING=1",
                 "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.", ""]


def data_prefix(sc):
    return fw_data(sc)[:-8]


RERAISE = [("_next_data", "torch/utils/data/dataloader.py", 1344), ("_process_data", "torch/utils/data/dataloader.py", 1370), ("reraise", "torch/_utils.py", 706)]
RERAISE_CODE = {("_next_data", "torch/utils/data/dataloader.py"): "return self._process_data(data)"}


def py_exc_variant(sc, rng, step):
    """(full frames, exception lines, description, code overrides)"""
    fw = sc.fw
    outer = fw_outer(sc)
    site = sc.st["site"]
    v = rng.randrange(6)
    if v in (0, 3):
        w = rng.randrange(0, 8)
        if v == 0:
            inner = ['  File "%s/data/dataset.py", line 91, in __getitem__' % sc.workdir, '    text = record["text"]', "KeyError: 'text'"]
            head = "KeyError: Caught KeyError in DataLoader worker process %d." % w
            desc = "KeyError on a malformed record in a DataLoader worker"
        else:
            shard = "/data/shards/train-%05d-of-%05d.bin" % (rng.randrange(0, 4000), 4096)
            inner = ['  File "%s/data/dataset.py", line 87, in __getitem__' % sc.workdir, "    arr = self._load_shard(path)",
                     '  File "%s/data/dataset.py", line 61, in _load_shard' % sc.workdir, '    with open(path, "rb") as f:',
                     "FileNotFoundError: [Errno 2] No such file or directory: '%s'" % shard]
            head = "FileNotFoundError: Caught FileNotFoundError in DataLoader worker process %d." % w
            desc = "a data shard missing on the filesystem, raised in a DataLoader worker"
        exc = [head, "Original Traceback (most recent call last):",
               '  File "%s/torch/utils/data/_utils/worker.py", line 309, in _worker_loop' % site,
               "    data = fetcher.fetch(index)  # type: ignore[possibly-undefined]",
               '  File "%s/torch/utils/data/_utils/fetch.py", line 52, in fetch' % site,
               "    data = [self.dataset[idx] for idx in possibly_batched_index]",
               '  File "%s/torch/utils/data/_utils/fetch.py", line 52, in <listcomp>' % site,
               "    data = [self.dataset[idx] for idx in possibly_batched_index]"] + inner + [""]
        return outer + data_prefix(sc) + RERAISE, exc, desc, RERAISE_CODE
    if v == 1:
        S = sc.seq
        if fw == "megatron":
            fr = outer + fw_forward(sc)[:-1] + [("forward", "megatron/core/transformer/attention.py", 315),
                                              ("apply_rotary_pos_emb_bshd", "megatron/core/models/common/embeddings/rotary_pos_embedding.py", 129)]
            exc = ["RuntimeError: The size of tensor a (%d) must match the size of tensor b (%d) at non-singleton dimension 0" % (S + 1, S)]
        elif fw == "hf":
            fr = outer + fw_forward(sc) + [("forward", "transformers/models/llama/modeling_llama.py", 603),
                                         ("apply_rotary_pos_emb", "transformers/models/llama/modeling_llama.py", 226)]
            exc = ["RuntimeError: The size of tensor a (%d) must match the size of tensor b (%d) at non-singleton dimension 2" % (S + 1, S)]
            return fr, exc, "shape mismatch in the forward pass (one sample one token longer than max length)", {
                ("apply_rotary_pos_emb", "transformers/models/llama/modeling_llama.py"): "q_embed = (q * cos) + (rotate_half(q) * sin)"}
        else:
            fr = outer + fw_forward(sc)[:-1] + [("forward", "model.py", 147)]
            exc = ["RuntimeError: The size of tensor a (%d) must match the size of tensor b (%d) at non-singleton dimension 1" % (S + 1, S)]
            return fr, exc, "shape mismatch in the forward pass (one sample one token longer than max length)", {("forward", "model.py"): "x = x + self.pos_emb[:, : x.size(1)]" if False else "x = tok + self.pos_emb"}
        return fr, exc, "shape mismatch in the forward pass (one sample one token longer than max length)", {}
    if v == 2:
        tail = [("save", "torch/serialization.py", 651), ("__exit__", "torch/serialization.py", 499)]
        if fw == "megatron":
            fr = outer[:3] + [("save_checkpoint_and_time", "megatron/training/training.py", 1078), ("save_checkpoint", "megatron/training/checkpointing.py", 389)] + tail
        elif fw == "hf":
            fr = outer + [("_maybe_log_save_evaluate", "transformers/trainer.py", 3004), ("_save_checkpoint", "transformers/trainer.py", 3090),
                          ("save_model", "transformers/trainer.py", 3701), ("_save", "transformers/trainer.py", 3818)] + tail
        elif fw == "lightning":
            fr = outer + [("save_checkpoint", "lightning/pytorch/trainer/trainer.py", 1365)] + tail
        else:
            fr = outer + [("save_checkpoint", "checkpointing.py", 143)] + tail
        return fr, ["RuntimeError: [enforce fail at inline_container.cc:603] . unexpected pos %d vs %d" % (rng.randrange(10 ** 9, 4 * 10 ** 9), rng.randrange(10 ** 9, 4 * 10 ** 9))], \
            "torch.save failed while this rank wrote its checkpoint shard (local disk full)", {}
    if v == 4:
        if fw == "megatron":
            r0 = sc.inc.r0
            fr = outer + [("forward_backward_no_pipelining", "megatron/core/pipeline_parallel/schedules.py", 481),
                          ("finalize_model_grads", "megatron/core/distributed/finalize_model_grads.py", 110),
                          ("finish_grad_sync", "megatron/core/distributed/distributed_data_parallel.py", 389),
                          ("start_grad_sync", "megatron/core/distributed/param_and_grad_buffer.py", 214),
                          ("check_for_nan_in_grad", "megatron/core/distributed/param_and_grad_buffer.py", 152)]
            return fr, ["AssertionError: Rank %d: found NaN in local grad norm in backward pass before data-parallel communication collective. Device: %d, node: %s" % (
                r0, sc.cl.local_of(r0), sc.cl.hosts[sc.cl.node_of(r0)])], "NaN in the local gradient norm (Megatron check_for_nan_in_grad assertion)", {}
        if fw == "hf":
            fr = outer + [("_maybe_log_save_evaluate", "transformers/trainer.py", 2983), ("log", "transformers/trainer.py", 3421),
                          ("on_log", "transformers/trainer_callback.py", 479), ("call_event", "transformers/trainer_callback.py", 516), ("on_log", "callbacks.py", 41)]
            return fr, ["ValueError: Loss is nan at step %d, stopping" % step], "loss became NaN and a user callback raised", {
                ("on_log", "callbacks.py"): "raise ValueError(f\"Loss is {logs['loss']} at step {state.global_step}, stopping\")"}
        if fw == "lightning":
            fr = outer + fw_forward(sc)[:6]
            return fr, ["ValueError: non-finite loss nan at step %d" % step], "loss became NaN and the LightningModule raised", {
                ("training_step", "model.py"): "raise ValueError(f\"non-finite loss {loss.item()} at step {self.global_step}\")"}
        fr = outer + [("train_step", "train.py", 226), ("check_finite", "train_utils.py", 52)]
        return fr, ["ValueError: Loss is nan at step %d, stopping (set --skip-nan to ignore)" % step], "loss became NaN and the user check raised", {
            ("train_step", "train.py"): "check_finite(loss, step)", ("check_finite", "train_utils.py"): "raise ValueError(f\"Loss is {loss.item()} at step {step}, stopping (set --skip-nan to ignore)\")"}
    fr = outer + [("evaluate", "eval_hooks.py", 118), ("compute_metrics", "eval_hooks.py", 64)]
    return fr, ["ZeroDivisionError: division by zero"], "ZeroDivisionError in an evaluation hook (this rank's eval shard was empty)", {
        ("evaluate", "eval_hooks.py"): "metrics = compute_metrics(preds, labels)", ("compute_metrics", "eval_hooks.py"): "return {\"accuracy\": correct / total}"}


# --------------------------------------------------------------------------------------------
# incident planners.  plan_* runs before the timeline is built (sets perf modifiers and
# sc.last_step); the returned closure runs afterwards and fills in times and text.
# --------------------------------------------------------------------------------------------
def add_err(sc, r, t, lines, typ="py", ev=None):
    sc.inc.err.setdefault(r, []).append((t, lines, typ, ev))


def add_kern(sc, n, t, line, ev=None):
    sc.inc.kern.setdefault(n, []).append((t, line, ev))


def nccl_warn(sc, r, rng, msg):
    return "%s NCCL WARN %s" % (nccl_prefix(sc.cl, r, rng.randrange(300, 900)), msg)


def default_rows(sc, frac=1.0):
    sc.last_step = max(sc.log_every * 8, int(sc.planned_rows * frac) * sc.log_every)


def pick_r0(sc, avoid_zero=True):
    rng = sc.rng
    W = sc.cl.world
    r = rng.randrange(1 if avoid_zero else 0, W)
    return r


def plan_healthy(sc):
    rng = sc.rng
    inc = sc.inc
    default_rows(sc)
    inc.kind = "none"
    inc.end = wpick(rng, [("completed", 3), ("running", 2)])
    inc.variant = pick(rng, ["clean", "ckpt_spikes", "nfs_blip", "sbe", "xid63", "hot_gpu"])
    if inc.variant == "nfs_blip":
        n = rng.randrange(sc.cl.n)
        ranks = {sc.cl.rank(n, g): rng.uniform(4000, 20000) for g in range(sc.cl.gpn)}
        s_on = int(sc.planned_rows * rng.uniform(0.3, 0.7)) * sc.log_every
        sc._data.append((ranks, s_on, s_on))
    sc.notes.append("Healthy run (%s); %s." % (inc.variant, "job completed" if inc.end == "completed" else "bundle taken while the job was still running normally"))

    def post():
        cl = sc.cl
        if inc.variant == "nfs_blip":
            n = [k for k in sc._data[0][0]][0] // cl.gpn
            tb = sc.time_of_step(sc._data[0][1]) - sec(rng.uniform(5, 30))
            add_kern(sc, n, tb, "nfs: server %s not responding, still trying" % sc.nfs_server)
            add_kern(sc, n, tb + sec(rng.uniform(8, 40)), "nfs: server %s OK" % sc.nfs_server)
            sc.notes.append("A short NFS 'not responding ... OK' blip on %s caused one slow logging interval; training continued normally." % cl.hosts[n])
        if inc.variant == "sbe":
            n, g = rng.randrange(cl.n), rng.randrange(cl.gpn)
            sc.gpu_state[(n, g)] = (sc.t_start, {"sbe": rng.randrange(1, 40), "crows": rng.randrange(0, 3)})
            sc.notes.append("GPU %d on %s shows correctable (single-bit) ECC counts only; harmless." % (g, cl.hosts[n]))
        if inc.variant == "xid63":
            n, g = rng.randrange(cl.n), rng.randrange(cl.gpn)
            add_kern(sc, n, sc.t_start - sec(rng.uniform(3600, 86400 * 3)), xid_line(cl, g, 63, None, None, rng))
            sc.gpu_state[(n, g)] = (sc.t_start, {"crows": 1, "sbe": rng.randrange(1, 9)})
            sc.notes.append("An old Xid 63 (row remapping pending, correctable) on %s GPU %d predates the job; harmless for this run." % (cl.hosts[n], g))
        if inc.variant == "hot_gpu":
            n, g = rng.randrange(cl.n), rng.randrange(cl.gpn)
            sc.gpu_state[(n, g)] = (sc.t_start, {"temp": lambda v, t, r: min(83, v["temp"] + 9), "memtemp": lambda v, t, r: min(86, v["memtemp"] + 7)})
            sc.notes.append("GPU %d on %s runs ~9C warmer than its peers but never throttles (no throttle reasons, normal clocks)." % (g, cl.hosts[n]))
    return post


def plan_straggler(sc):
    rng = sc.rng
    inc = sc.inc
    cl = sc.cl
    default_rows(sc)
    inc.kind = "slow"
    inc.end = wpick(rng, [("running", 3), ("completed", 2)])
    v = wpick(rng, [("thermal", 3), ("pcie", 2), ("power_brake", 1), ("power_cap", 1), ("noisy", 2), ("slow_nic", 2)])
    inc.variant = v
    onset = int(sc.planned_rows * rng.uniform(0.25, 0.55)) * sc.log_every
    if v == "power_cap":
        onset = 0
    sc.slow_onset = onset
    r0 = pick_r0(sc, avoid_zero=False)
    n0, g0 = cl.node_of(r0), cl.local_of(r0)
    inc.r0, inc.n0 = r0, n0
    if v in ("thermal", "pcie", "power_brake", "power_cap"):
        mult = {"thermal": rng.uniform(1.25, 1.6), "pcie": rng.uniform(1.12, 1.3), "power_brake": rng.uniform(1.6, 2.3), "power_cap": rng.uniform(1.18, 1.35)}[v]
        ramp = {"thermal": sc.log_every * rng.randrange(4, 12), "pcie": 1, "power_brake": 1, "power_cap": 1}[v]
        sc._slow.append(({r0: mult}, onset, ramp))
        if v == "pcie":
            sc._data.append(({r0: sc.base_ms * rng.uniform(0.05, 0.12)}, onset, 10 ** 9))
        inc.slow_factor = mult
    elif v == "noisy":
        ranks = {cl.rank(n0, g): rng.uniform(1.08, 1.22) for g in range(cl.gpn)}
        sc._slow.append((ranks, onset, sc.log_every * 3))
        sc._data.append(({cl.rank(n0, g): rng.uniform(30, 220) for g in range(cl.gpn)}, onset, 10 ** 9))
        inc.r0 = None
    else:
        sc._comm.append((onset, rng.uniform(1.8, 3.2)))
        inc.r0 = None

    def post():
        t_on = sc.time_of_step(onset) if onset > 0 else sc.t_start
        inc.t = t_on
        tdp = cl.gpu["tdp"]
        smx = cl.gpu["sm_max"]
        if v == "thermal":
            thr = pick(rng, [0x48, 0x20, 0x68, 0x60])
            sc.gpu_state[(n0, g0)] = (t_on, {"temp": lambda vv, t, r: int(r.uniform(86, 92)), "memtemp": lambda vv, t, r: int(r.uniform(88, 97)),
                                             "sm": lambda vv, t, r: int(smx * r.uniform(0.55, 0.72)) // 15 * 15, "thr": thr,
                                             "power": lambda vv, t, r: tdp * r.uniform(0.48, 0.62)})
            sc.gpu_state[(n0, g0 ^ 1)] = (t_on, {"temp": lambda vv, t, r: int(r.uniform(74, 80))})
            sc.notes.append("GPU %d on %s (rank %d) overheats (86-92C) from step ~%d: clocks drop to ~60%% with thermal throttle reasons (0x%x), the whole job slows by ~%d%% because every step waits for it." % (g0, cl.hosts[n0], r0, sc.S(onset), thr, int((inc.slow_factor - 1) * 100)))
        elif v == "power_brake":
            sc.gpu_state[(n0, g0)] = (t_on, {"sm": lambda vv, t, r: int(smx * r.uniform(0.35, 0.5)) // 15 * 15, "thr": 0x88,
                                             "power": lambda vv, t, r: tdp * r.uniform(0.3, 0.42)})
            sc.notes.append("GPU %d on %s (rank %d) enters HW power-brake slowdown (0x88) from step ~%d (PSU/power-delivery issue); clocks drop to ~40%% and the job slows by ~%d%%." % (g0, cl.hosts[n0], r0, sc.S(onset), int((inc.slow_factor - 1) * 100)))
        elif v == "power_cap":
            lim = pick(rng, [300.0, 350.0, 400.0, 450.0]) if tdp == 700 else pick(rng, [250.0, 275.0, 300.0])
            sc.gpu_state[(n0, g0)] = (sc.t_start, {"plimit": lim, "thr": 4, "power": lambda vv, t, r: lim * r.uniform(0.97, 1.0) if vv["util"] > 50 else vv["power"],
                                                   "sm": lambda vv, t, r: int(smx * r.uniform(0.7, 0.8)) // 15 * 15 if vv["util"] > 50 else vv["sm"]})
            sc.notes.append("GPU %d on %s (rank %d) has a power limit of %dW left over from a previous test (others at %dW); it is permanently SW-power-capped and the whole job runs ~%d%% slower than expected." % (g0, cl.hosts[n0], r0, lim, tdp, int((inc.slow_factor - 1) * 100)))
        elif v == "pcie":
            gen = pick(rng, [1, 2, 3])
            wid = pick(rng, [4, 8, 16 if gen == 1 else 4])
            sc.gpu_state[(n0, g0)] = (sc.t_start, {"pgen": gen, "pwidth": wid, "replay": lambda vv, t, r: int(2000 + (t - sc.t_start).total_seconds() * 3.1)})
            sc.pcie_degraded = (n0, g0, gen, wid)
            for k in range(rng.randrange(2, 5)):
                add_kern(sc, n0, sc.t_start - sec(rng.uniform(100, 4000)), "pcieport 0000:%02x:01.0: AER: Corrected error received: 0000:%s:00.0" % (int(cl.bus[g0], 16) - 1, cl.bus[g0]), "node")
                add_kern(sc, n0, sc.t_start - sec(rng.uniform(100, 4000)), "nvidia 0000:%s:00.0: PCIe Bus Error: severity=Corrected, type=Physical Layer, (Receiver ID)" % cl.bus[g0], "node")
            sc.notes.append("GPU %d on %s (rank %d) trained its PCIe link down to Gen%d x%d (others Gen%d x16, replay counter climbing); its host<->device copies and GPUDirect traffic are slow so rank %d lags every step (~%d%% job slowdown)." % (g0, cl.hosts[n0], r0, gen, wid, cl.gpu["pcie_gen"], r0, int((inc.slow_factor - 1) * 100)))
        elif v == "noisy":
            def hog(vv, t, r):
                vv["user"] = r.uniform(78, 97)
                vv["runq"] = int(r.uniform(180, 420))
                vv["ld1"] = r.uniform(150, 380)
                vv["steal"] = r.uniform(0, 2) if not sc.vm else r.uniform(12, 35)
            inc.host[n0] = {"hog": (t_on, sc.t_last + sec(86400), hog)}
            sc.noisy_proc = pick(rng, [("ffmpeg", "svc-media"), ("python3 preprocess.py --workers 96", "dlee"), ("java", "spark"), ("xz", "backup")])
            sc.notes.append("From step ~%d another tenant's CPU-heavy process (%s) lands on %s; CPU runqueue explodes, the 8 ranks there launch kernels and load data late and the whole job slows down (node-level straggler, no single rank)." % (sc.S(onset), sc.noisy_proc[0].split()[0], cl.hosts[n0]))
        else:
            sc.slow_nic = (n0, rng.randrange(cl.gpn))
            nic = cl.ib[sc.slow_nic[1]]
            bus = cl.ib_bus[sc.slow_nic[1]]
            add_kern(sc, n0, t_on - sec(rng.uniform(2, 20)), "mlx5_core 0000:%s:00.0 %s: Link down" % (bus, cl.ibdev[sc.slow_nic[1]]), "node")
            add_kern(sc, n0, t_on + sec(rng.uniform(1, 6)), "mlx5_core 0000:%s:00.0 %s: Link up" % (bus, cl.ibdev[sc.slow_nic[1]]), "node")
            sc.slow_net_factor = 0.55
            sc.notes.append("At step ~%d HCA %s on %s flaps and comes back at a lower rate (4X HDR 100 Gb/s instead of NDR 400); collectives are bottlenecked by that node and the job slows (node-level straggler)." % (sc.S(onset), nic, cl.hosts[n0]))
    return post


def plan_stall_common(sc, cause):
    rng = sc.rng
    inc = sc.inc
    cl = sc.cl
    default_rows(sc, rng.uniform(0.55, 1.0))
    inc.kind = "stall"
    inc.end = "failed"


def plan_data_loader_stall(sc):
    rng = sc.rng
    inc = sc.inc
    cl = sc.cl
    plan_stall_common(sc, "data_loader_stall")
    v = wpick(rng, [("nfs", 3), ("s3", 3), ("nvme", 1), ("dl_timeout", 2)])
    inc.variant = v
    r0 = pick_r0(sc)
    n0 = cl.node_of(r0)
    inc.r0, inc.n0 = r0, n0
    pre = max(sc.log_every * 2, sc.last_step - sc.log_every * rng.randrange(3, 10))
    if v in ("nfs", "nvme"):
        inc.stalled = [cl.rank(n0, g) for g in range(cl.gpn)]
        sc._data.append(({r: rng.uniform(300, 2500) for r in inc.stalled}, pre, sc.last_step))
    else:
        inc.stalled = [r0]
        sc._data.append(({r0: rng.uniform(400, 3000)}, pre, sc.last_step))
    if v == "dl_timeout":
        inc.kind = "crash"
        inc.dl_timeout = pick(rng, [120, 300, 600])
        if inc.dl_timeout * 1000 >= sc.timeout_ms:
            inc.dl_timeout = int(sc.timeout_ms / 1000 * 0.5)

    def post():
        t_stop = sc.t_last + sec(sc.rows[-1].step_ms / 1000.0 * rng.uniform(0.2, 0.9))
        inc.t = t_stop
        srv = sc.nfs_server
        if v == "nfs":
            add_kern(sc, n0, t_stop - sec(rng.uniform(20, 90)), "nfs: server %s not responding, still trying" % srv, "node")
            for k in range(rng.randrange(2, 5)):
                add_kern(sc, n0, t_stop + sec(rng.uniform(10, 400)), "nfs: server %s not responding, still trying" % srv, "node")
            tt = t_stop + sec(rng.uniform(125, 250))
            add_kern(sc, n0, tt, "INFO: task pt_data_worker:%d blocked for more than 122 seconds." % (cl.pid(r0) + rng.randrange(100, 900)), "node")
            add_kern(sc, n0, tt, "      Tainted: P           OE     %s #%d-Ubuntu" % (cl.kernel, rng.randrange(90, 120)))
            add_kern(sc, n0, tt, "\"echo 0 > /proc/sys/kernel/hung_task_timeout_secs\" disables this message.")
            add_kern(sc, n0, tt, "task:pt_data_worker  state:D stack:0     pid:%d ppid:%d flags:0x00004002" % (cl.pid(r0) + rng.randrange(100, 900), cl.pid(r0)))
            for fr in ["__schedule+0x2cd/0x890", "schedule+0x69/0x110", "rpc_wait_bit_killable+0x1e/0xa0 [sunrpc]", "__wait_on_bit+0x34/0xa0",
                       "out_of_line_wait_on_bit+0x8d/0xb0", "__rpc_execute+0x124/0x4c0 [sunrpc]", "rpc_execute+0x7a/0x100 [sunrpc]",
                       "nfs4_call_sync_sequence+0x6f/0xb0 [nfsv4]", "nfs_file_read+0x7d/0xc0 [nfs]", "vfs_read+0xb0/0x1a0", "ksys_read+0x67/0xf0"]:
                add_kern(sc, n0, tt, " " + fr)
            inc.host[n0] = {"io": (t_stop - sec(60), t_stop + sec(4000), lambda vv, t, r: vv.update(iowait=r.uniform(6, 25), user=r.uniform(0.5, 3)))}
            inc.nfs_bad = (n0, t_stop - sec(90))
            sc.notes.append("NFS server %s stops answering %s at step ~%d; the DataLoader workers of all ranks on that node block in D state reading shards (hung-task warnings), those ranks never reach the next all-reduce and the other nodes hit the NCCL watchdog timeout." % (srv, cl.hosts[n0], sc.S(sc.last_step)))
        elif v == "nvme":
            dev = "nvme%d" % rng.randrange(1, 8)
            for k in range(rng.randrange(3, 7)):
                tt = t_stop + sec(rng.uniform(-30, 300))
                add_kern(sc, n0, tt, "nvme %s: I/O %d QID %d timeout, aborting" % (dev, rng.randrange(1, 1023), rng.randrange(1, 64)), "node")
                add_kern(sc, n0, tt + sec(0.1), "nvme %s: Abort status: 0x0" % dev)
            add_kern(sc, n0, t_stop + sec(rng.uniform(60, 200)), "nvme %s: I/O %d QID 0 timeout, reset controller" % (dev, rng.randrange(1, 30)), "node")
            inc.nvme = (n0, dev + "n1", t_stop - sec(30))
            inc.host[n0] = {"io": (t_stop - sec(30), t_stop + sec(4000), lambda vv, t, r: vv.update(iowait=r.uniform(10, 30), user=r.uniform(0.5, 3)))}
            sc.notes.append("The local NVMe (%sn1) holding the dataset cache on %s starts timing out I/O; data loading on that node stops, its ranks never join the next collective and the others hit the NCCL watchdog timeout." % (dev, cl.hosts[n0]))
        else:
            bucket = pick(rng, ["s3://corp-llm-data", "gs://pretrain-mix-v3", "s3://ml-datasets-prod"])
            inc.s3 = bucket
            tw = t_stop - sec(rng.uniform(30, 300))
            for k in range(rng.randrange(1, 4)):
                sc.inc.data_warn.setdefault(r0, []).append((tw + sec(k * rng.uniform(5, 40)),
                    "WARNING:urllib3.connectionpool:Retrying (Retry(total=%d, connect=None, read=None, redirect=None, status=None)) after connection broken by 'ReadTimeoutError(\"HTTPSConnectionPool(host='%s', port=443): Read timed out. (read timeout=60)\")': /%s/shard-%06d.tar" % (4 - k, pick(rng, ["s3.us-east-1.amazonaws.com", "storage.googleapis.com", "s3.us-west-2.amazonaws.com"]), bucket.split("//")[1], rng.randrange(0, 99999))))
            for rr in rng.sample(range(cl.world), min(3, cl.world)):
                if rr != r0:
                    sc.inc.data_warn.setdefault(rr, []).append((sc.t_train0 + sec(rng.uniform(100, (sc.t_last - sc.t_train0).total_seconds())),
                        "WARNING:urllib3.connectionpool:Retrying (Retry(total=4, connect=None, read=None, redirect=None, status=None)) after connection broken by 'ReadTimeoutError(\"HTTPSConnectionPool(host='%s', port=443): Read timed out. (read timeout=60)\")': /%s/shard-%06d.tar" % (pick(rng, ["s3.us-east-1.amazonaws.com", "storage.googleapis.com"]), bucket.split("//")[1], rng.randrange(0, 99999))))
            if v == "dl_timeout":
                te = t_stop + sec(inc.dl_timeout + rng.uniform(0.1, 2))
                frames = fw_outer(sc) + data_prefix(sc) + [("_next_data", "torch/utils/data/dataloader.py", 1329), ("_get_data", "torch/utils/data/dataloader.py", 1285),
                                                         ("_try_get_data", "torch/utils/data/dataloader.py", 1146)]
                add_err(sc, r0, te, tb_lines(sc, frames, ["RuntimeError: DataLoader timed out after %d seconds" % inc.dl_timeout],
                                             {("_try_get_data", "torch/utils/data/dataloader.py"): "raise RuntimeError(f\"DataLoader timed out after {self._timeout} seconds\") from e"}), "py", "rank")
                inc.exit[r0] = (te + sec(rng.uniform(1, 5)), 1)
                inc.t_block = t_stop
                sc.notes.append("Rank %d's DataLoader worker hangs reading from %s (read timeouts/retries first); after %ds the DataLoader timeout fires on that rank (RuntimeError: DataLoader timed out) and the job is torn down." % (r0, bucket, inc.dl_timeout))
            else:
                sc.notes.append("Rank %d's DataLoader worker hangs on a read from %s (object-store read timeouts and retries, then a socket read with no timeout); rank %d never reaches the next all-reduce and the other ranks hit the NCCL watchdog timeout." % (r0, bucket, r0))
        if v != "dl_timeout":
            for r in inc.stalled:
                inc.pyspy[r] = "dl_wait"
            for r in range(cl.world):
                if r not in inc.stalled:
                    inc.pyspy[r] = "victim"
            inc.worker_kind = {"nfs": "nfs", "nvme": "nfs", "s3": "s3"}[v]
    return post


def plan_hang(sc):
    rng = sc.rng
    inc = sc.inc
    cl = sc.cl
    plan_stall_common(sc, "hang")
    v = wpick(rng, [("lock", 2), ("loop", 2), ("cuda", 2), ("ckpt", 1)])
    inc.variant = v
    r0 = pick_r0(sc, avoid_zero=(v != "ckpt"))
    if v == "ckpt":
        r0 = 0
    inc.r0, inc.n0 = r0, cl.node_of(r0)
    inc.stalled = [r0]
    inc.gpu_busy_stalled = (v == "cuda")
    if rng.random() < 0.3:
        inc.kind = "silent"
        inc.timeout_lines = False
        sc.timeout_ms = pick(rng, [43200000, 86400000])

    def post():
        inc.t = sc.t_last + sec(sc.rows[-1].step_ms / 1000.0 * rng.uniform(0.2, 0.9))
        for r in range(cl.world):
            inc.pyspy[r] = "victim"
        inc.pyspy[r0] = {"lock": "hang_lock", "loop": "hang_loop", "cuda": "hang_cuda", "ckpt": "hang_ckpt"}[v]
        what = {"lock": "blocks in a telemetry flush waiting on an HTTP upload thread that never returns",
                "loop": "spins forever in a sequence-packing loop (100% CPU, no exception)",
                "cuda": "is stuck in torch.cuda.synchronize() behind a kernel that never finishes (no Xid, GPU util 100%)",
                "ckpt": "waits forever for a previous async checkpoint writer blocked on a stale file lock"}[v]
        sc.notes.append("Rank %d %s after step %d; all other ranks wait in the next collective%s. No error is printed by the culprit." % (
            r0, what, sc.S(sc.last_step), "" if inc.timeout_lines else " (process-group timeout was raised to hours, so no watchdog fires; the job just stops logging)"))
    return post


def plan_collective_mismatch(sc):
    rng = sc.rng
    inc = sc.inc
    cl = sc.cl
    default_rows(sc, rng.uniform(0.4, 1.0))
    v = wpick(rng, [("detail", 2), ("optype", 3), ("numel", 2), ("barrier", 2)])
    inc.variant = v
    r0 = pick_r0(sc, avoid_zero=(v not in ("barrier",)))
    if v == "barrier":
        r0 = 0
    inc.r0, inc.n0 = r0, cl.node_of(r0)
    if v == "detail":
        inc.kind = "mm_error"
    else:
        inc.kind = "stall"
        inc.stalled = []   # everybody waits, including r0 (in its own collective)

    def post():
        t = sc.t_last + sec(sc.rows[-1].step_ms / 1000.0 * rng.uniform(0.2, 0.9))
        inc.t = t
        seq = sc.seq_at(sc.last_step) + 1
        numel = sc.numel if sc.numel > 1000 else 26214400
        if v == "detail":
            fp = lambda op, shape, dt: "CollectiveFingerPrint(SequenceNumber=%d, OpType=%s, TensorShape=[%s], TensorDtypes=%s, TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt)))" % (seq, op, shape, dt)
            mine = fp("BROADCAST", "1", "Long")
            theirs = fp("ALLREDUCE", str(numel), "BFloat16")
            for r in range(cl.world):
                te = t + sec(rng.uniform(0.05, 1.5))
                if r == r0:
                    other = 0 if r0 != 0 else 1
                    msg = "RuntimeError: Detected mismatch between collectives on ranks. Rank %d is running collective: %s, but Rank %d is running collective: %s.Collectives differ in the following aspects: \t Op type: BROADCASTvs ALLREDUCE\t Tensor Tensor shapes: 1vs %d\t Tensor Tensor dtypes: Longvs BFloat16" % (r0, mine, other, theirs, numel)
                else:
                    msg = "RuntimeError: Detected mismatch between collectives on ranks. Rank %d is running collective: %s, but Rank %d is running collective: %s.Collectives differ in the following aspects: \t Op type: ALLREDUCEvs BROADCAST\t Tensor Tensor shapes: %dvs 1\t Tensor Tensor dtypes: BFloat16vs Long" % (r, theirs, r0, mine, numel)
                frames = fw_outer(sc) + ([("maybe_log_samples", "eval_hooks.py", 77), ("broadcast_object_list", "torch/distributed/distributed_c10d.py", 2717)] if r == r0 else fw_victim(sc)[:-1])
                frames = frames + [("wrapper", "torch/distributed/c10d_logger.py", 83), ("broadcast" if r == r0 else "all_reduce", "torch/distributed/distributed_c10d.py", 2217 if r == r0 else 2288)]
                add_err(sc, r, te, tb_lines(sc, frames, [msg]), "py", "rank")
                inc.exit[r] = (te + sec(rng.uniform(0.5, 4)), 1)
            sc.notes.append("With TORCH_DISTRIBUTED_DEBUG=DETAIL the fingerprint check catches the bug: rank %d calls broadcast_object_list in a sample-logging hook that the other ranks skip, so its BROADCAST is matched against everyone else's ALLREDUCE; every rank raises 'Detected mismatch between collectives'." % r0)
        else:
            for r in range(cl.world):
                if v == "optype":
                    inc.mm_ops[r] = ("BROADCAST", 1) if r == r0 else ("ALLREDUCE", numel)
                elif v == "numel":
                    inc.mm_ops[r] = ("ALLREDUCE", numel + pick(rng, [-4096, 4096, 8192, 1])) if r == r0 else ("ALLREDUCE", numel)
                else:
                    inc.mm_ops[r] = ("BARRIER" if st_has_barrier(sc) else "ALLREDUCE", 1) if r == r0 else ("ALLREDUCE", numel)
            inc.mm_seq = seq
            for r in range(cl.world):
                inc.pyspy[r] = "victim"
            inc.pyspy[r0] = "mm_barrier" if v == "barrier" else "mm_broadcast"
            txt = {"optype": "rank %d enters a BROADCAST (object broadcast in an eval/sample hook) while every other rank enters the gradient ALLREDUCE with the same sequence number" % r0,
                   "numel": "rank %d computes a different flattened gradient-bucket size (one parameter registered only on that rank) so its ALLREDUCE has a different NumelIn than everyone else's" % r0,
                   "barrier": "rank 0 alone enters a barrier inside its checkpoint-saving branch while the other ranks go on to the next gradient ALLREDUCE"}[v]
            sc.notes.append("Collective mismatch: %s; the collectives never match and every rank hits the NCCL watchdog timeout, rank %d's WorkNCCL line showing the odd operation." % (txt, r0))
    return post


def st_has_barrier(sc):
    # ProcessGroupNCCL implements barrier() as a 1-element all-reduce
    return False


def crash_time(sc, rng):
    return sc.t_last + sec(sc.rows[-1].step_ms / 1000.0 * rng.uniform(0.1, 0.95))


def plan_crash_common(sc, frac=(0.35, 1.0)):
    rng = sc.rng
    default_rows(sc, rng.uniform(*frac))
    sc.inc.kind = "crash"
    sc.inc.end = "failed"
    sc.inc.victim_mode = wpick(rng, [("watchdog", 3), ("remote", 2)])


def plan_gpu_hardware(sc):
    rng = sc.rng
    inc = sc.inc
    cl = sc.cl
    plan_crash_common(sc)
    v = wpick(rng, [("xid79", 3), ("gsp", 2), ("xid79_hang", 1)])
    inc.variant = v
    r0 = pick_r0(sc, avoid_zero=False)
    n0, g0 = cl.node_of(r0), cl.local_of(r0)
    inc.r0, inc.n0 = r0, n0
    if v == "xid79_hang":
        inc.kind = "stall"
        inc.stalled = [r0]

    def post():
        t = crash_time(sc, rng)
        inc.t = t
        pid = cl.pid(r0)
        # precursor: PCIe replays on the failing GPU
        sc.gpu_state[(n0, g0)] = (t - sec(rng.uniform(600, 3000)), {"replay": lambda vv, tt, r: int(40 + (tt - sc.t_start).total_seconds() * 0.7)})
        if v.startswith("xid79"):
            add_kern(sc, n0, t - sec(0.3), "NVRM: GPU at PCI:%s: %s" % (cl.pci(g0), cl.uuids[n0][g0]), "node")
            add_kern(sc, n0, t - sec(0.3), "NVRM: GPU Board Serial Number: %d" % rng.randrange(1320000000000, 1659999999999))
            add_kern(sc, n0, t - sec(0.3), xid_line(cl, g0, 79, pid, "pt_main_thread", rng), "node")
            add_kern(sc, n0, t - sec(0.2), "NVRM: GPU %s.0: GPU has fallen off the bus." % cl.pci(g0), "node")
            add_kern(sc, n0, t - sec(0.2), "NVRM: GPU %s.0: GPU serial number is %d." % (cl.pci(g0), rng.randrange(1320000000000, 1659999999999)))
            add_kern(sc, n0, t + sec(0.5), "NVRM: A GPU crash dump has been created. If possible, please run")
            add_kern(sc, n0, t + sec(0.5), "NVRM: nvidia-bug-report.sh as root to collect this data before")
            add_kern(sc, n0, t + sec(0.5), "NVRM: the NVIDIA kernel module is unloaded.")
            inc.gpu_gone[(n0, g0)] = t
            sc.gpu_state[(n0, g0)] = (t - sec(rng.uniform(600, 3000)), {"replay": lambda vv, tt, r: int(40 + (tt - sc.t_start).total_seconds() * 0.7)})
        else:
            for k in range(rng.randrange(2, 5)):
                add_kern(sc, n0, t - sec(rng.uniform(0, 20)), xid_line(cl, g0, 119, pid, "pt_main_thread", rng), "node")
            add_kern(sc, n0, t + sec(rng.uniform(0, 5)), "NVRM: Xid (PCI:%s): 154, GPU recovery action changed from 0x0 (None) to 0x2 (Node Reboot Required)" % cl.pci(g0), "node")
            inc.gpu_over[(n0, g0)] = (t, {"reset_required": 1, "util": 0, "power": cl.gpu["idle_w"] + 20.0})
        if v == "xid79_hang":
            sc.notes.append("GPU %d on %s falls off the bus (Xid 79) at step ~%d; rank %d's process hangs on the dead device without printing an error, the others hit the NCCL watchdog timeout." % (g0, cl.hosts[n0], sc.S(sc.last_step), r0))
            return
        if rng.random() < 0.5:
            det = []
            add_err(sc, r0, t + sec(rng.uniform(0.5, 3)), watchdog_exception_lines(sc.st, rng, r0, t, "CUDA error: unspecified launch failure", CUDA_ERR_TAIL[:3], "cuda"), "c10", "rank")
            inc.exit[r0] = (t + sec(rng.uniform(3, 6)), -6)
        else:
            frames = fw_outer(sc) + fw_forward(sc)[:4]
            add_err(sc, r0, t + sec(rng.uniform(0.5, 3)), tb_lines(sc, frames, ["RuntimeError: CUDA error: unspecified launch failure"] + CUDA_ERR_TAIL), "py", "rank")
            inc.exit[r0] = (t + sec(rng.uniform(3, 6)), 1)
        sc.notes.append("GPU %d on %s (rank %d) fails at step ~%d (%s); rank %d dies with a CUDA 'unspecified launch failure', the rest of the job is collateral." % (
            g0, cl.hosts[n0], r0, sc.S(sc.last_step), "Xid 79, fallen off the bus" if v == "xid79" else "Xid 119 GSP RPC timeouts, reset required", r0))
    return post


def plan_ecc(sc):
    rng = sc.rng
    inc = sc.inc
    cl = sc.cl
    plan_crash_common(sc)
    v = pick(rng, ["dbe", "remap_fail"])
    inc.variant = v
    r0 = pick_r0(sc, avoid_zero=False)
    n0, g0 = cl.node_of(r0), cl.local_of(r0)
    inc.r0, inc.n0 = r0, n0

    def post():
        t = crash_time(sc, rng)
        inc.t = t
        pid = cl.pid(r0)
        add_kern(sc, n0, t - sec(0.2), xid_line(cl, g0, 48, pid, "pt_main_thread", rng), "node")
        if v == "dbe":
            add_kern(sc, n0, t - sec(0.1), xid_line(cl, g0, 63, pid, "pt_main_thread", rng), "node")
            over = {"dbe": rng.randrange(1, 4), "urows": 1, "rpending": 1, "xid": 48}
        else:
            add_kern(sc, n0, t - sec(0.1), xid_line(cl, g0, 64, pid, "pt_main_thread", rng), "node")
            over = {"dbe": rng.randrange(1, 4), "urows": rng.randrange(1, 3), "rfail": 1, "xid": 64, "drain": 1}
        over["sbe"] = rng.randrange(0, 30)
        inc.gpu_over[(n0, g0)] = (t, over)
        if rng.random() < 0.5:
            add_err(sc, r0, t + sec(rng.uniform(0.2, 2)), watchdog_exception_lines(sc.st, rng, r0, t, "CUDA error: uncorrectable ECC error encountered", CUDA_ERR_TAIL[:3], "cuda"), "c10", "rank")
            inc.exit[r0] = (t + sec(rng.uniform(2, 5)), -6)
        else:
            frames = fw_outer(sc) + fw_forward(sc)[:5]
            add_err(sc, r0, t + sec(rng.uniform(0.2, 2)), tb_lines(sc, frames, ["RuntimeError: CUDA error: uncorrectable ECC error encountered"] + CUDA_ERR_TAIL), "py", "rank")
            inc.exit[r0] = (t + sec(rng.uniform(2, 5)), 1)
        sc.notes.append("Uncorrectable (double-bit) ECC error in HBM of GPU %d on %s (Xid 48, %s); rank %d aborts with 'uncorrectable ECC error encountered', everything else is collateral." % (
            g0, cl.hosts[n0], "row remap pending" if v == "dbe" else "row remapping FAILED (Xid 64)", r0))
    return post


def plan_nvlink(sc):
    rng = sc.rng
    inc = sc.inc
    cl = sc.cl
    plan_crash_common(sc)
    r0 = pick_r0(sc, avoid_zero=False)
    n0, g0 = cl.node_of(r0), cl.local_of(r0)
    inc.r0, inc.n0 = r0, n0
    pre = max(sc.log_every * 3, sc.last_step - sc.log_every * rng.randrange(4, 15))
    sc._comm.append((pre, rng.uniform(1.05, 1.25)))

    def post():
        t = crash_time(sc, rng)
        inc.t = t
        pid = cl.pid(r0)
        t_pre = sc.time_of_step(pre)
        sc.gpu_state[(n0, g0)] = (t_pre, {"crc": lambda vv, tt, r: int((tt - t_pre).total_seconds() * r.uniform(30, 90))})
        add_kern(sc, n0, t - sec(0.3), xid_line(cl, g0, 74, pid, "pt_main_thread", rng), "node")
        if rng.random() < 0.6:
            sw = rng.randrange(0, 4)
            add_kern(sc, n0, t - sec(0.2), "nvidia-nvswitch%d: SXid (PCI:0000:%02x:00.0): %d, Fatal, Link %d %s" % (sw, 0x84 + sw * 2, pick(rng, [20034, 24007, 22013]), rng.randrange(0, 64), pick(rng, ["LTSSM Fault Up", "sourcetrack TCEN0 crumbstore ECC DBE Error", "egress non-posted PRIV error"])), "node")
            add_kern(sc, n0, t - sec(0.2), "nvidia-nvswitch%d: SXid (PCI:0000:%02x:00.0): %d, Data {0x%08x, 0x%08x, 0x00000000, 0x00000000}" % (sw, 0x84 + sw * 2, 20034, rng.randrange(0, 2**31), rng.randrange(0, 2**31)))
        inc.gpu_over[(n0, g0)] = (t, {"xid": 74})
        w = nccl_warn(sc, r0, rng, "Cuda failure 'uncorrectable NVLink error detected during the execution'")
        det = ["ncclUnhandledCudaError: Call to CUDA function failed.", "Last error:", "Cuda failure 'uncorrectable NVLink error detected during the execution'"]
        add_err(sc, r0, t + sec(0.1), [w], "raw", "rank")
        add_err(sc, r0, t + sec(rng.uniform(0.2, 1.5)), watchdog_exception_lines(sc.st, rng, r0, t, "NCCL error: unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version %s" % sc.st["nccl"], det), "c10", "rank")
        inc.exit[r0] = (t + sec(rng.uniform(2, 4)), -6)
        # a neighbour GPU on the same baseboard often reports too
        if cl.gpn > 1 and rng.random() < 0.5:
            r1 = cl.rank(n0, (g0 + 1) % cl.gpn)
            add_err(sc, r1, t + sec(rng.uniform(0.5, 2)), [nccl_warn(sc, r1, rng, "Cuda failure 'uncorrectable NVLink error detected during the execution'")], "raw")
        sc.notes.append("NVLink fatal error (Xid 74%s) on GPU %d of %s; NVLink CRC errors were climbing and collectives slowed a little beforehand; rank %d's NCCL watchdog dies with 'uncorrectable NVLink error', the rest is collateral." % (
            ", NVSwitch SXid" if True else "", g0, cl.hosts[n0], r0))
    return post


def plan_network(sc):
    rng = sc.rng
    inc = sc.inc
    cl = sc.cl
    plan_crash_common(sc)
    v = wpick(rng, [("ib", 3), ("socket", 1), ("efa", 1)])
    inc.variant = v
    n0 = rng.randrange(cl.n)
    inc.n0 = n0
    inc.r0 = None
    hca = rng.randrange(cl.gpn)
    pre = max(sc.log_every * 3, sc.last_step - sc.log_every * rng.randrange(3, 10))
    sc._comm.append((pre, rng.uniform(1.1, 1.5)))

    def post():
        t = crash_time(sc, rng)
        inc.t = t
        t_pre = sc.time_of_step(pre)
        if v in ("ib", "efa"):
            bus = cl.ib_bus[hca % len(cl.ib_bus)]
            for k in range(rng.randrange(1, 4)):
                add_kern(sc, n0, t_pre + sec(rng.uniform(0, (t - t_pre).total_seconds())), "mlx5_core 0000:%s:00.0: mlx5_fw_tracer_handle_traces:%d:(pid %d): FW tracer: Port %d symbol errors increasing" % (bus, rng.randrange(700, 800), rng.randrange(100, 999), 1) if v == "ib" else "ena 0000:%s:00.0 eth%d: Found a Tx that wasn't completed on time, qid %d, index %d." % (bus, rng.randrange(1, 4), rng.randrange(0, 32), rng.randrange(0, 1024)), "node")
            add_kern(sc, n0, t - sec(rng.uniform(0.5, 3)), ("mlx5_core 0000:%s:00.0 %s: Link down" % (bus, cl.ibdev[hca])) if v == "ib" else ("ena 0000:%s:00.0 eth%d: Keep alive watchdog timeout." % (bus, rng.randrange(1, 4))), "node")
            if v == "ib":
                add_kern(sc, n0, t + sec(rng.uniform(20, 200)), "mlx5_core 0000:%s:00.0 %s: Link up" % (bus, cl.ibdev[hca]))

            def nicdown(vv, tt, r):
                vv["ib_rx"] *= 0.02
                vv["ib_tx"] *= 0.02
                vv["rxerr"] = r.uniform(50, 900)
            inc.host[n0] = {"nic": (t - sec(2), t + sec(4000), nicdown)}
        else:
            add_kern(sc, n0, t - sec(rng.uniform(0.5, 3)), "%s: Link is Down" % cl.eth if rng.random() < 0.5 else "bnxt_en 0000:%s:00.0 %s: NIC Link is Down" % (pick(rng, ["41", "c1"]), cl.eth), "node")
            add_kern(sc, n0, t + sec(rng.uniform(5, 60)), "%s: Link is Up - 100Gbps/Full - flow control off" % cl.eth)
            inc.host[n0] = {"nic": (t - sec(2), t + sec(60), lambda vv, tt, r: vv.update(eth_rx=0.0, eth_tx=0.0, ib_rx=0.0, ib_tx=0.0, rxerr=r.uniform(1, 40)))}
        # first rank to notice: one on n0 and peers on neighbouring node
        local = [cl.rank(n0, g) for g in range(cl.gpn)]
        first = local[hca % len(local)]
        inc.net_first = first
        peer_n = (n0 + 1) % cl.n
        for i, r in enumerate([first] + [cl.rank(peer_n, hca % cl.gpn)]):
            te = t + sec(rng.uniform(0.2, 4) + i * rng.uniform(0.1, 2))
            other = cl.ips[peer_n] if cl.node_of(r) == n0 else cl.ips[n0]
            if v == "ib":
                w = nccl_warn(sc, r, rng, "NET/IB : Got completion from peer %s<%d> with status=12 opcode=%d len=0 vendor err 129 (%s)%s" % (
                    other, rng.randrange(30000, 60000), pick(rng, [0, 1]), pick(rng, ["Recv", "Send"]),
                    (" localGid ::ffff:%s remoteGid ::ffff:%s" % (cl.ips[cl.node_of(r)], other)) if sc.st["major"] >= 23 else ""))
                last = w.split("NCCL WARN ")[1]
                errname, errdesc = "ncclRemoteError", "A call failed possibly due to a network error or a remote process exiting prematurely."
                errhead = "NCCL error: remote process exited or there was a network error, NCCL version %s" % sc.st["nccl"]
            elif v == "efa":
                w = nccl_warn(sc, r, rng, "NET/OFI Request 0x%s completed with error. RC: 15. Error: 15 (Input/output error). Completed length: 0, Request: { buffer_index: 255, dev: %d, size: 0, state: CREATED, direction: %s }" % (hexid(rng, 12), hca % 4, pick(rng, ["SEND", "RECV"])))
                last = w.split("NCCL WARN ")[1]
                errname, errdesc = "ncclSystemError", "System call (e.g. socket, malloc) or external library call failed or device error. "
                errhead = "NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version %s" % sc.st["nccl"]
            else:
                w = nccl_warn(sc, r, rng, "socketProgressOpt: Call to recv from %s<%d> failed : Connection timed out" % (other, rng.randrange(30000, 60000)))
                last = w.split("NCCL WARN ")[1]
                errname, errdesc = "ncclSystemError", "System call (e.g. socket, malloc) or external library call failed or device error. "
                errhead = "NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version %s" % sc.st["nccl"]
            add_err(sc, r, te, [w], "raw", "node" if cl.node_of(r) == n0 else None)
            add_err(sc, r, te + sec(0.05), watchdog_exception_lines(sc.st, rng, r, te, errhead, ["%s: %s" % (errname, errdesc), "Last error:", last]), "c10")
            inc.exit[r] = (te + sec(rng.uniform(1, 3)), -6)
        what = {"ib": "InfiniBand HCA %s (%s) on %s loses link (symbol errors beforehand)" % (cl.ib[hca], cl.ibdev[hca], cl.hosts[n0]),
                "efa": "the EFA/ENA interface on %s stops completing requests" % cl.hosts[n0],
                "socket": "the NIC %s on %s goes down briefly" % (cl.eth, cl.hosts[n0])}[v]
        sc.notes.append("Network failure: %s at step ~%d; NCCL on that node and its ring peer report transport errors and abort, the other ranks follow. Node-level fault, no single guilty rank." % (what, sc.S(sc.last_step)))
    return post


def plan_cuda_oom(sc):
    rng = sc.rng
    inc = sc.inc
    cl = sc.cl
    plan_crash_common(sc)
    r0 = pick_r0(sc, avoid_zero=False)
    n0, g0 = cl.node_of(r0), cl.local_of(r0)
    inc.r0, inc.n0 = r0, n0

    def post():
        t = crash_time(sc, rng)
        inc.t = t
        mem = cl.gpu["mem_mib"]
        sc.gpu_state[(n0, g0)] = (sc.t_train0, {"fbused": lambda vv, tt, r: int(mem * r.uniform(0.955, 0.985)) if vv["util"] > 50 else vv["fbused"]})
        frames = fw_outer(sc) + fw_forward(sc) + [("forward", "torch/nn/modules/linear.py", 117)]
        exc = oom_text(sc, g0, rng)
        add_err(sc, r0, t, tb_lines(sc, frames, exc), "py", "rank")
        inc.exit[r0] = (t + sec(rng.uniform(1, 4)), 1)
        sc.notes.append("CUDA OOM on rank %d (GPU %d of %s) at step ~%d: a longer-than-usual batch on that rank (its memory was already at ~97%%); the other ranks are collateral." % (r0, g0, cl.hosts[n0], sc.S(sc.last_step)))
    return post


def plan_illegal(sc):
    rng = sc.rng
    inc = sc.inc
    cl = sc.cl
    plan_crash_common(sc)
    v = pick(rng, ["iae", "assert", "iae_watchdog"])
    inc.variant = v
    r0 = pick_r0(sc, avoid_zero=False)
    n0, g0 = cl.node_of(r0), cl.local_of(r0)
    inc.r0, inc.n0 = r0, n0

    def post():
        t = crash_time(sc, rng)
        inc.t = t
        pid = cl.pid(r0)
        if v == "assert":
            lines = []
            for k in range(rng.randrange(3, 9)):
                lines.append("../aten/src/ATen/native/cuda/IndexKernel.cu:92: operator(): block: [%d,0,0], thread: [%d,0,0] Assertion `-sizes[i] <= index && index < sizes[i] && \"index out of bounds\"` failed." % (rng.randrange(0, 4000), rng.randrange(0, 128)))
            add_err(sc, r0, t, lines, "raw", "rank")
            frames = fw_outer(sc) + fw_forward(sc)[:3] + [("forward", "model.py", 97), ("embed", "model.py", 61)]
            add_err(sc, r0, t + sec(0.1), tb_lines(sc, frames, ["RuntimeError: CUDA error: device-side assert triggered"] + CUDA_ERR_TAIL), "py", "rank")
            inc.exit[r0] = (t + sec(rng.uniform(1, 4)), 1)
            if rng.random() < 0.5:
                add_kern(sc, n0, t, xid_line(cl, g0, 43, pid, "pt_main_thread", rng), "node")
            what = "a device-side assert (index out of bounds in an embedding lookup: a token id >= vocab size in one shard)"
        else:
            add_kern(sc, n0, t - sec(0.05), xid_line(cl, g0, pick(rng, [31, 13]), pid, "pt_main_thread", rng), "node")
            if v == "iae":
                frames = fw_outer(sc) + fw_forward(sc)[:4]
                add_err(sc, r0, t + sec(0.2), tb_lines(sc, frames, ["RuntimeError: CUDA error: an illegal memory access was encountered"] + CUDA_ERR_TAIL), "py", "rank")
                inc.exit[r0] = (t + sec(rng.uniform(1, 4)), 1)
            else:
                add_err(sc, r0, t + sec(0.2), watchdog_exception_lines(sc.st, rng, r0, t, "CUDA error: an illegal memory access was encountered", CUDA_ERR_TAIL[:3], "cuda"), "c10", "rank")
                inc.exit[r0] = (t + sec(rng.uniform(1, 4)), -6)
            what = "an illegal memory access in a custom fused kernel (MMU fault Xid 31/13 from the application)"
        sc.notes.append("Rank %d (GPU %d of %s) hits %s at step ~%d; the other ranks are collateral." % (r0, g0, cl.hosts[n0], what, sc.S(sc.last_step)))
    return post


def plan_python_exception(sc):
    rng = sc.rng
    inc = sc.inc
    cl = sc.cl
    plan_crash_common(sc, (0.2, 1.0))
    r0 = pick_r0(sc, avoid_zero=False)
    inc.r0, inc.n0 = r0, cl.node_of(r0)

    def post():
        t = crash_time(sc, rng)
        inc.t = t
        frames, exc, desc, code = py_exc_variant(sc, rng, sc.S(sc.last_step + 1))
        lines = tb_lines(sc, frames, exc, code)
        add_err(sc, r0, t, lines, "py", "rank")
        inc.exit[r0] = (t + sec(rng.uniform(0.5, 3)), 1)
        inc.tb_file[r0] = lines
        sc.notes.append("Uncaught Python exception on rank %d at step ~%d: %s. Other ranks are collateral." % (r0, sc.S(sc.last_step), desc))
    return post


def plan_host_oom(sc):
    rng = sc.rng
    inc = sc.inc
    cl = sc.cl
    plan_crash_common(sc, (0.5, 1.0))
    v = wpick(rng, [("main", 3), ("worker", 2), ("cgroup", 2)])
    inc.variant = v
    r0 = pick_r0(sc, avoid_zero=False)
    n0 = cl.node_of(r0)
    inc.r0, inc.n0 = r0, n0

    def post():
        t = crash_time(sc, rng)
        inc.t = t
        ramp_from = sc.t_train0 + sec((t - sc.t_train0).total_seconds() * rng.uniform(0.2, 0.5))
        base = sc.mem_base[n0]

        def ramp(vv, tt, r):
            f = (tt - ramp_from).total_seconds() / max(1.0, (t - ramp_from).total_seconds())
            vv["mem"] = min(99.6, base + (99.2 - base) * f + r.uniform(-0.3, 0.3))
        inc.host[n0] = {"mem": (ramp_from, t, ramp)}
        sc.mem_leak = (n0, ramp_from)
        pid = cl.pid(r0)
        if v == "worker":
            wpid = pid + rng.randrange(200, 2000)
            for ln in oom_kill_lines(cl, n0, wpid, rng, comm="pt_data_worker"):
                add_kern(sc, n0, t - sec(0.5), ln, "node")
            frames = fw_outer(sc) + data_prefix(sc) + [("_next_data", "torch/utils/data/dataloader.py", 1329), ("_get_data", "torch/utils/data/dataloader.py", 1295),
                                                     ("_try_get_data", "torch/utils/data/dataloader.py", 1146)]
            add_err(sc, r0, t + sec(rng.uniform(0.5, 5)), tb_lines(sc, frames, [
                "RuntimeError: DataLoader worker (pid(s) %d) exited unexpectedly" % wpid],
                {("_try_get_data", "torch/utils/data/dataloader.py"): "raise RuntimeError(f\"DataLoader worker (pid(s) {pids_str}) exited unexpectedly\") from e"}), "py", "rank")
            inc.exit[r0] = (t + sec(rng.uniform(5, 9)), 1)
            what = "a DataLoader worker of rank %d (pid %d) is killed by the kernel OOM killer; the rank raises 'DataLoader worker ... exited unexpectedly'" % (r0, wpid)
        else:
            for ln in oom_kill_lines(cl, n0, pid, rng, cgroup=(v == "cgroup"), comm="python3"):
                add_kern(sc, n0, t - sec(0.3), ln, "node")
            inc.exit[r0] = (t, -9)
            what = "the %s OOM killer SIGKILLs rank %d's process (pid %d, exit -9)" % ("cgroup (job memory limit)" if v == "cgroup" else "kernel", r0, pid)
        inc.oom_pid = pid
        sc.notes.append("Host RAM on %s climbs steadily (a CPU-side leak: per-step metric history kept in lists) until %s at step ~%d. Other ranks are collateral." % (cl.hosts[n0], what, sc.S(sc.last_step)))
    return post


def plan_crash_signal(sc):
    rng = sc.rng
    inc = sc.inc
    cl = sc.cl
    plan_crash_common(sc)
    v = wpick(rng, [("segv", 3), ("bus_shm", 2), ("abort", 2)])
    inc.variant = v
    r0 = pick_r0(sc, avoid_zero=False)
    n0 = cl.node_of(r0)
    inc.r0, inc.n0 = r0, n0

    def post():
        t = crash_time(sc, rng)
        inc.t = t
        pid = cl.pid(r0)
        if v == "segv":
            lib = pick(rng, ["libnccl-net.so", "_C.cpython-310-x86_64-linux-gnu.so", "libgomp-a34b3233.so.1", "flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so"])
            lines = ["Fatal Python error: Segmentation fault", "",
                     "Thread 0x%016x (most recent call first):" % rng.randrange(0x7f0000000000, 0x7fffffffffff),
                     '  File "%s/threading.py", line 324 in wait' % ("/usr/lib/python%s" % sc.st["pyv"]),
                     '  File "%s/threading.py", line 607 in wait' % ("/usr/lib/python%s" % sc.st["pyv"]),
                     '  File "%s/tqdm/_monitor.py", line 60 in run' % sc.st["site"], "",
                     "Current thread 0x%016x (most recent call first):" % rng.randrange(0x7f0000000000, 0x7fffffffffff),
                     '  File "%s/model.py", line 212 in forward' % sc.workdir,
                     '  File "%s/torch/nn/modules/module.py", line 1562 in _call_impl' % sc.st["site"],
                     '  File "%s/train.py", line 205 in train_step' % sc.workdir, "", "Extension modules: numpy.core._multiarray_umath, torch._C, torch._C._fft, torch._C._linalg, torch._C._nn, torch._C._sparse, torch._C._special (total: %d)" % rng.randrange(20, 90)]
            add_err(sc, r0, t, lines, "raw", "rank")
            inc.exit[r0] = (t + sec(0.1), -11)
            add_kern(sc, n0, t, "pt_main_thread[%d]: segfault at %x ip 00007f%s sp 00007ff%s error 4 in %s[7f%s+%x]" % (pid, rng.choice([0, 8, 0x18, 0x7f0]), hexid(rng, 10), hexid(rng, 9), lib, hexid(rng, 10), rng.randrange(0x10000, 0x900000)), "node")
            what = "a segmentation fault in native code (%s)" % lib
        elif v == "bus_shm":
            wpid = pid + rng.randrange(200, 2000)
            add_err(sc, r0, t, ["ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm)."], "raw", "rank")
            frames = fw_outer(sc) + data_prefix(sc) + [("_next_data", "torch/utils/data/dataloader.py", 1329), ("_get_data", "torch/utils/data/dataloader.py", 1295),
                                                     ("_try_get_data", "torch/utils/data/dataloader.py", 1133), ("handler", "torch/utils/data/_utils/signal_handling.py", 67)]
            add_err(sc, r0, t + sec(0.3), tb_lines(sc, frames, [
                "RuntimeError: DataLoader worker (pid %d) is killed by signal: Bus error. It is possible that dataloader's workers are out of shared memory. Please try to raise your shared memory limit." % wpid]), "py", "rank")
            inc.exit[r0] = (t + sec(rng.uniform(1, 3)), 1)
            what = "SIGBUS in a DataLoader worker (container /dev/shm too small)"
        else:
            msg = pick(rng, ["free(): invalid next size (fast)", "double free or corruption (!prev)", "corrupted size vs. prev_size", "malloc(): unaligned tcache chunk detected"])
            add_err(sc, r0, t, [msg], "raw", "rank")
            inc.exit[r0] = (t + sec(0.05), -6)
            what = "a glibc heap-corruption abort (%s -> SIGABRT)" % msg
        sc.notes.append("Rank %d on %s dies from %s at step ~%d; no hardware events. Other ranks are collateral." % (r0, cl.hosts[n0], what, sc.S(sc.last_step)))
    return post


def plan_preemption(sc):
    rng = sc.rng
    inc = sc.inc
    cl = sc.cl
    default_rows(sc, rng.uniform(0.6, 1.0))
    vs = {"megatron-slurm": [("slurm_preempt", 2), ("slurm_timelimit", 2)],
          "lightning-wandb": [("slurm_preempt", 2), ("slurm_timelimit", 2)],
          "torchrun-logdir": [("slurm_preempt", 1), ("slurm_timelimit", 1), ("sigterm_all", 1)],
          "ops-bundle": [("slurm_preempt", 2), ("slurm_timelimit", 1)],
          "hf-k8s": [("k8s_evict", 2), ("k8s_preempt_all", 2)],
          "deepspeed-pdsh": [("spot", 3)]}[sc.layout]
    v = wpick(rng, vs)
    inc.variant = v
    if v in ("k8s_evict", "spot"):
        inc.kind = "crash"
        inc.victim_mode = wpick(rng, [("watchdog", 1), ("remote", 2)])
        n0 = rng.randrange(1, cl.n) if cl.n > 1 else 0
        inc.n0 = n0
        inc.evict_node = n0
    else:
        inc.kind = "kill_all"
    inc.end = "preempted"

    def post():
        t = crash_time(sc, rng)
        inc.t = t
        if v in ("k8s_evict", "spot"):
            for g in range(cl.gpn):
                r = cl.rank(inc.n0, g)
                inc.exit[r] = (t + sec(rng.uniform(0.2, 2.0)), -15)
            inc.t_block = t
            sc.notes.append("%s: node %s is reclaimed at step ~%d (SIGTERM to its pod/processes); the ranks elsewhere lose their peers and fail as collateral." % (
                "Kubernetes eviction (node drain for maintenance)" if v == "k8s_evict" else "Spot/preemptible VM reclaim", cl.hosts[inc.n0], sc.S(sc.last_step)))
        elif v == "slurm_timelimit":
            sc.notes.append("The job reaches its Slurm time limit at step ~%d and is cancelled (SIGTERM to every task). Nothing was wrong with the training itself." % sc.S(sc.last_step))
        elif v == "slurm_preempt":
            sc.notes.append("A higher-priority job preempts this one at step ~%d (Slurm PreemptMode=CANCEL/REQUEUE); every task gets SIGTERM." % sc.S(sc.last_step))
        elif v == "k8s_preempt_all":
            sc.notes.append("The PyTorchJob's pods are preempted by a higher-priority workload at step ~%d (all pods deleted, SIGTERM)." % sc.S(sc.last_step))
        else:
            sc.notes.append("The operator drains the partition for maintenance at step ~%d: the launcher on every node receives SIGTERM." % sc.S(sc.last_step))
    return post


def plan_unknown(sc):
    rng = sc.rng
    inc = sc.inc
    cl = sc.cl
    plan_crash_common(sc)
    vs = [("exit1", 3), ("sigkill", 2)]
    if sc.layout in ("megatron-slurm", "lightning-wandb", "ops-bundle"):
        vs.append(("node_fail", 2))
    v = wpick(rng, vs)
    inc.variant = v
    r0 = pick_r0(sc, avoid_zero=False)
    if v == "node_fail":
        r0 = cl.rank(rng.randrange(1, cl.n), 0)
    inc.r0, inc.n0 = r0, cl.node_of(r0)
    if v == "node_fail":
        inc.r0 = None

    def post():
        t = crash_time(sc, rng)
        inc.t = t
        if v == "exit1":
            inc.exit[r0] = (t, 1)
            sc.notes.append("Rank %d exits with code 1 at step ~%d without printing anything (stderr of that process was not captured / lost); the other ranks are collateral. The logs do not say why." % (r0, sc.S(sc.last_step)))
        elif v == "sigkill":
            inc.exit[r0] = (t, -9)
            sc.notes.append("Rank %d is SIGKILLed (exit -9) at step ~%d; no kernel log or scheduler message in the bundle says by whom (could be OOM, an admin, a watchdog). Cause not determinable from the logs." % (r0, sc.S(sc.last_step)))
        else:
            for g in range(cl.gpn):
                inc.exit[cl.rank(inc.n0, g)] = (t + sec(rng.uniform(0, 1)), -9)
            inc.node_fail = True
            sc.notes.append("Slurm declares node %s failed (NODE_FAIL) at step ~%d and the job is cancelled; the node's own logs are not in the bundle, so the reason (power, kernel panic, network, GPU) is unknown." % (cl.hosts[inc.n0], sc.S(sc.last_step)))
    return post


PLANNERS = {
    "gpu_hardware": plan_gpu_hardware, "ecc_memory": plan_ecc, "nvlink": plan_nvlink, "network": plan_network,
    "cuda_oom": plan_cuda_oom, "illegal_memory_access": plan_illegal, "python_exception": plan_python_exception,
    "host_oom_kill": plan_host_oom, "crash_signal": plan_crash_signal, "preemption": plan_preemption, "hang": plan_hang,
    "data_loader_stall": plan_data_loader_stall, "collective_mismatch": plan_collective_mismatch, "straggler": plan_straggler,
    "unknown": plan_unknown,
}


# --------------------------------------------------------------------------------------------
# cascade: who dies when, what the launchers and the scheduler do
# --------------------------------------------------------------------------------------------
def cascade(sc):
    rng = sc.rng
    inc = sc.inc
    cl = sc.cl
    W = cl.world
    T = sc.timeout_ms / 1000.0
    fate = {}
    sc.agents = {n: {"kind": "running"} for n in range(cl.n)}
    sc.sched_msgs = []
    sc.t_end_of_rank = {}
    sc.t_end_host = {}
    sc.job_state = "RUNNING"
    sc.t_job_end = None

    if inc.kind in ("none", "slow"):
        if inc.end == "completed":
            t_done = sc.t_last + sec(rng.uniform(5, 40))
            pg_warn = sc.st["major"] >= 24 and rng.random() < 0.6
            for r in range(W):
                fate[r] = [t_done + sec(rng.uniform(0, 2)), 0, "ok"]
                if pg_warn and not sc.no_agent:
                    tw = fate[r][0] - sec(0.05)
                    add_err(sc, r, tw, ["%s Warning: WARNING: process group has NOT been destroyed before we destruct ProcessGroupNCCL. On normal program exit, the application should call destroy_process_group to ensure that any pending NCCL operations have finished in this process. In rare cases this process can exit before this point and block the progress of another member of the process group. This constraint has always been present,  but this warning has only been added since PyTorch 2.4 (function operator())" % c10_hdr(sc.st, r, tw, "ProcessGroupNCCL.cpp:1168", "W", rng)], "c10")
            for n in range(cl.n):
                sc.agents[n] = {"kind": "ok", "t_exit": t_done + sec(rng.uniform(2, 6))}
            sc.job_state = "COMPLETED"
            sc.t_job_end = t_done + sec(8)
        sc.t_collect = (sc.t_job_end or sc.t_last) + sec(rng.uniform(60, 1800))
        _finish_fates(sc, fate)
        return

    if inc.kind in ("kill_all", "silent"):
        if inc.kind == "silent":
            # nobody errors; the job sits there until the time limit or a human kills it
            t_kill = inc.t + sec(rng.uniform(1.5, 9) * 3600)
            inc.pyspy_t = inc.t + sec(rng.uniform(0.5, 1.0) * (t_kill - inc.t).total_seconds())
            if sc.sched in ("slurm_kill", "slurm_nokill"):
                inc.end = pick(rng, ["timelimit", "cancelled"])
            else:
                inc.end = "cancelled"
        else:
            t_kill = inc.t
        sig = 15
        if sc.sched == "pdsh" and inc.end == "cancelled":
            sig = 2
        for r in range(W):
            n = cl.node_of(r)
            fate[r] = [t_kill + sec(rng.uniform(0.3, 3.0)), -sig, "signal"]
        for n in range(cl.n):
            sc.agents[n] = {"kind": "signal", "sig": sig, "t_sig": t_kill + sec(rng.uniform(0, 0.4)), "t_exit": t_kill + sec(rng.uniform(3, 8))}
        if inc.end in ("timelimit",) or inc.variant == "slurm_timelimit":
            sc.job_state = "TIMEOUT"
        elif inc.end == "cancelled":
            sc.job_state = "CANCELLED by %d" % rng.randrange(1000, 60000) if sc.sched.startswith("slurm") else "CANCELLED"
        else:
            sc.job_state = "PREEMPTED"
        sc.t_job_end = t_kill + sec(rng.uniform(5, 35))
        sc.t_kill = t_kill
        sc.t_collect = sc.t_job_end + sec(rng.uniform(60, 3600))
        _finish_fates(sc, fate)
        return

    # ---- crash / stall / mm_error ----
    t_block = getattr(inc, "t_block", None) or inc.t
    for r, (te, code) in inc.exit.items():
        fate[r] = [te, code, "self"]
    seq = sc.seq_at(sc.last_step) + 1
    op_default = pick(rng, ["ALLREDUCE", "ALLREDUCE", "_ALLGATHER_BASE", "_REDUCE_SCATTER_BASE"]) if sc.fw in ("megatron", "deepspeed") else "ALLREDUCE"
    numel_default = sc.numel
    victims_wd = {}
    if inc.kind == "stall" or (inc.kind == "crash" and inc.victim_mode == "watchdog"):
        if inc.timeout_lines:
            for r in range(W):
                if r in fate or r in inc.stalled:
                    continue
                te = t_block + sec(T + rng.uniform(0.0, 1.6))
                fate[r] = [te, -6, "watchdog"]
                victims_wd[r] = te
    elif inc.kind == "crash" and inc.victim_mode == "remote":
        t_first = min(v[0] for v in fate.values())
        init_nodes = sorted(set(cl.node_of(r) for r in inc.exit))
        peers_ip = cl.ips[init_nodes[0]]
        for r in range(W):
            if r in fate or cl.node_of(r) in init_nodes:
                continue
            te = t_first + sec(rng.uniform(0.3, 25.0))
            fate[r] = [te, -6, "remote"]
            victims_wd[r] = te

    # ---- agents + scheduler ----
    done_nodes = set()
    killed_at = None
    if sc.no_agent:
        # srun starts one task per GPU (Lightning): no per-node agent to tear local peers down
        live = sorted((fate[r][0], r) for r in fate)
        if live and sc.sched == "slurm_kill":
            killed_at = live[0][0] + sec(rng.uniform(0.3, 2.0))
            sc.t_kill = killed_at
        elif live:
            killed_at = max(x[0] for x in live) + sec(rng.uniform(1.2, 6) * 3600) if len(fate) < W else None
            if killed_at is not None:
                sc.leftover_end = "timelimit"
                sc.t_kill = killed_at
        for r in range(W):
            if killed_at is not None and (r not in fate or fate[r][0] > killed_at):
                fate[r] = [killed_at + sec(rng.uniform(0.05, 1.0)), -15, "signal"]
        for n in range(cl.n):
            sc.agents[n] = {"kind": "none", "t_exit": max(fate[r][0] for r in range(n * cl.gpn, (n + 1) * cl.gpn))}
        pending = []
    else:
        pending = None
    order = []
    for n in range(cl.n):
        ts = [fate[r][0] for r in range(n * cl.gpn, (n + 1) * cl.gpn) if r in fate]
        order.append((min(ts) if ts else None, n))
    if pending is None:
        pending = sorted([x for x in order if x[0] is not None])
    for t_ff, n in pending:
        if killed_at is not None and t_ff > killed_at:
            break
        local = list(range(n * cl.gpn, (n + 1) * cl.gpn))
        t_obs = t_ff + sec(rng.uniform(0.05, 1.5) if sc.st["major"] >= 22 else rng.uniform(0.5, 5.0))
        failed = [r for r in local if r in fate and fate[r][0] <= t_obs]
        failed.sort(key=lambda r: fate[r][0])
        term = [r for r in local if r not in failed]
        for r in term:
            fate[r] = [t_obs + sec(rng.uniform(0.05, 0.6)), -15, "agent_term"]
        t_exit = t_obs + sec(rng.uniform(0.8, 5.0))
        sc.agents[n] = {"kind": "failed", "t_obs": t_obs, "failed": failed, "term": term, "t_exit": t_exit}
        done_nodes.add(n)
        if killed_at is None and sc.sched in ("slurm_kill", "k8s"):
            killed_at = t_exit + sec(rng.uniform(0.2, 2.0))
            sc.t_kill = killed_at
            sc.first_failed_node = n
    # nodes not failed yet
    rest = [n for n in range(cl.n) if n not in done_nodes] if not sc.no_agent else []
    if rest:
        if killed_at is None:
            # nobody kills the leftovers automatically: time limit / user / pdsh teardown
            if sc.sched == "pdsh":
                killed_at = max(a.get("t_exit", inc.t) for a in sc.agents.values() if "t_exit" in a) + sec(rng.uniform(60, 1800))
                sc.leftover_end = "user"
            else:
                killed_at = inc.t + sec(rng.uniform(1.2, 6) * 3600)
                sc.leftover_end = "timelimit"
            sc.t_kill = killed_at
        for n in rest:
            for r in range(n * cl.gpn, (n + 1) * cl.gpn):
                if r not in fate or fate[r][0] > killed_at:
                    fate[r] = [killed_at + sec(rng.uniform(0.2, 2.0)), -15, "signal"]
            sc.agents[n] = {"kind": "signal", "sig": 15 if sc.sched != "pdsh" else 2, "t_sig": killed_at + sec(rng.uniform(0, 0.5)),
                            "t_exit": killed_at + sec(rng.uniform(3, 8))}
    # victim texts
    for r, te in victims_wd.items():
        if fate[r][2] not in ("watchdog", "remote"):
            continue
        if inc.kind == "stall" or inc.victim_mode == "watchdog":
            op, numel = inc.mm_ops.get(r, (op_default, numel_default))
            sq = getattr(inc, "mm_seq", seq)
            lines = watchdog_timeout_lines(sc.st, rng, r, te, sq, op, numel, sc.timeout_ms, with_frames=rng.random() < 0.7, world=W)
            ev = "rank" if (inc.mm_ops and r == inc.r0) else None
            add_err(sc, r, te, lines, "c10", ev)
        else:
            init_n = sorted(set(cl.node_of(x) for x in inc.exit))[0]
            lines, _ = remote_error_lines(sc.st, rng, r, te, cl.ips[init_n], rng.randrange(30000, 60000),
                                          "IB" if rng.random() < 0.7 else "socket", cl.ips[cl.node_of(r)])
            add_err(sc, r, te, lines, "c10")
    # stalled r0 in collective mismatch also waits in its own collective -> it times out too
    # TCPStore collateral: node 0's agent (store host) going away while others still run
    a0 = sc.agents.get(0, {})
    if a0.get("t_exit") and sc.st["major"] >= 23:
        for r in range(cl.gpn, W):
            if fate[r][0] > a0["t_exit"] + sec(2) and rng.random() < 0.35:
                tw = a0["t_exit"] + sec(rng.uniform(1, min(60.0, (fate[r][0] - a0["t_exit"]).total_seconds())))
                add_err(sc, r, tw, ["%s %s Failed to check the \"should dump\" flag on TCPStore, (maybe TCPStore server has shut down too early), with error: Connection reset by peer" % (
                    c10_hdr(sc.st, r, tw, "ProcessGroupNCCL.cpp:%d" % (1231 if sc.st["major"] < 25 else 1258), "W", rng), pg_tag(sc.st, r))], "c10")
    # NCCL INFO collateral for local peers of a dead rank
    if sc.nccl_debug:
        for r, (te, code) in inc.exit.items():
            n = cl.node_of(r)
            for g in range(cl.gpn):
                rr = cl.rank(n, g)
                if rr != r and rr in fate and fate[rr][0] > te and rng.random() < 0.5:
                    add_err(sc, rr, te + sec(rng.uniform(0.01, 0.3)), ["%s NCCL INFO [Service thread] Connection closed by localRank %d" % (nccl_prefix(cl, rr, rng.randrange(900, 1500)), cl.local_of(r))], "raw")
    # job state
    if getattr(inc, "node_fail", False):
        sc.job_state = "NODE_FAIL"
    elif inc.variant in ("k8s_evict", "spot"):
        sc.job_state = "FAILED"
    elif getattr(sc, "leftover_end", None) == "timelimit":
        sc.job_state = "TIMEOUT"
    elif getattr(sc, "leftover_end", None) == "user":
        sc.job_state = "CANCELLED"
    else:
        sc.job_state = "FAILED"
    sc.t_job_end = max(a.get("t_exit", inc.t) for a in sc.agents.values()) + sec(rng.uniform(1, 30))
    sc.t_collect = sc.t_job_end + sec(rng.uniform(120, 7200))
    if inc.pyspy and inc.pyspy_t is None:
        # py-spy must have been taken while the job hung (before the first watchdog death)
        first_death = min(v[0] for v in fate.values())
        span = (first_death - inc.t).total_seconds()
        if span > 90:
            inc.pyspy_t = inc.t + sec(rng.uniform(60, span - 20))
    _finish_fates(sc, fate)


def _finish_fates(sc, fate):
    sc.fate = fate
    for r, f in fate.items():
        sc.t_end_of_rank[r] = f[0]
    cl = sc.cl
    for n in range(cl.n):
        ts = [fate[r][0] for r in range(n * cl.gpn, (n + 1) * cl.gpn) if r in fate]
        if ts:
            sc.t_end_host[n] = max(ts)
    # keep only error entries that happen before the rank's death
    inc = sc.inc
    for r in list(inc.err.keys()):
        if r in fate:
            tdeath = fate[r][0]
            inc.err[r] = [e for e in inc.err[r] if e[0] <= tdeath + sec(0.5)]


def agent_failure_entries(sc, n):
    """entries for ChildFailedError on node n"""
    a = sc.agents[n]
    cl = sc.cl
    ents = []
    for r in a["failed"]:
        te, code, how = sc.fate[r]
        e = {"rank": r, "local": cl.local_of(r), "code": code, "pid": cl.pid(r), "t": cl.lt(n, te)}
        if code == 1 and r in sc.inc.tb_file and sc.record:
            e["error_file"] = "%s/%s/attempt_0/%d/error.json" % (sc.elastic_dir(n), sc.rdzv_dir[n], cl.local_of(r))
            tb = sc.inc.tb_file[r]
            e["tb"] = tb
        ents.append(e)
    return ents


def agent_lines(sc, n, script="train.py"):
    """torchrun agent output on node n after the training started: list of (t_true, line)"""
    a = sc.agents[n]
    st = sc.st
    cl = sc.cl
    tid = cl.tid[n]
    out = []
    if getattr(sc.inc, "node_fail", False) and n == sc.inc.n0:
        return out
    if a["kind"] == "failed":
        t = a["t_obs"]
        lt = cl.lt(n, t)
        for r in a["term"]:
            out.append((t + sec(0.01), agent_line(st, "W", lt, tid, "torch/distributed/elastic/multiprocessing/api.py", 897 if st["major"] >= 24 else 699, "Sending process %d closing signal SIGTERM" % cl.pid(r))))
        r0 = a["failed"][0]
        te, code, how = sc.fate[r0]
        out.append((t + sec(0.3), agent_line(st, "E", cl.lt(n, t + sec(0.3)), tid, "torch/distributed/elastic/multiprocessing/api.py", 869 if st["major"] >= 24 else 837,
                                             "failed (exitcode: %d) local_rank: %d (pid: %d) of binary: %s" % (code, cl.local_of(r0), cl.pid(r0), st["pybin"]))))
        ents = agent_failure_entries(sc, n)
        fmt = lambda tt: "%04d-%02d-%02d_%02d:%02d:%02d" % (tt.year, tt.month, tt.day, tt.hour, tt.minute, tt.second)
        block = torchrun_traceback(st) + child_failed_block(st, script, cl.hosts[n], ents[0], ents[1:], fmt)
        te2 = a["t_exit"]
        for ln in block:
            out.append((te2, ln))
        sc.child_failed_nodes = getattr(sc, "child_failed_nodes", []) + [n]
    elif a["kind"] == "signal":
        t = a["t_sig"]
        lt = cl.lt(n, t)
        sname = "SIGTERM" if a["sig"] == 15 else "SIGINT"
        out.append((t, agent_line(st, "W", lt, tid, "torch/distributed/elastic/agent/server/api.py", 704 if st["major"] >= 24 else 735, "Received Signals.%s death signal, shutting down workers" % sname)))
        for g in range(cl.gpn):
            out.append((t + sec(0.01), agent_line(st, "W", lt, tid, "torch/distributed/elastic/multiprocessing/api.py", 897 if st["major"] >= 24 else 699,
                                                  "Sending process %d closing signal %s" % (cl.pid(cl.rank(n, g)), sname))))
        for ln in signal_exception_tb(st, cl.agent_pid[n], a["sig"]):
            out.append((a["t_exit"], ln))
    return out


def rank_err_lines(sc, r, prefix=""):
    """all error text of rank r as (t_true, line); marks evidence."""
    inc = sc.inc
    out = []
    if getattr(inc, "node_fail", False) and sc.cl.node_of(r) == inc.n0:
        return out
    for (t, lines, typ, ev) in inc.err.get(r, []):
        if ev == "rank":
            sc.saw_rank()
        elif ev == "node":
            sc.saw_node()
        pfx = ("[rank%d]: " % r) if (typ == "py" and sc.st["major"] >= 23) else ""
        for i, ln in enumerate(lines):
            out.append((t + sec(i * 1e-4), prefix + pfx + ln))
    for (t, ln) in inc.data_warn.get(r, []):
        out.append((t, prefix + ln))
    return out


# --------------------------------------------------------------------------------------------
# shared renderers for telemetry / host files (they also record evidence)
# --------------------------------------------------------------------------------------------
def culprit_gpu(sc):
    inc = sc.inc
    if sc.healthy or inc.r0 is None:
        return None
    return (sc.cl.node_of(inc.r0), sc.cl.local_of(inc.r0))


def metric_evidence(sc, node, t):
    """does a GPU telemetry snapshot of `node` at t single out the culprit?"""
    inc = sc.inc
    cg = culprit_gpu(sc)
    if sc.healthy:
        return
    if inc.kind in ("stall", "silent") and len(inc.stalled) > 1 and inc.n0 == node and inc.t and t >= inc.t and not inc.gpu_busy_stalled:
        if t < sc.t_end_host.get(node, t + sec(1)):
            sc.saw_node()
        return
    if cg is None or cg[0] != node:
        return
    hit = False
    if cg in sc.gpu_state and t >= sc.gpu_state[cg][0] and sc.cause in ("straggler", "gpu_hardware", "nvlink"):
        hit = True
    if cg in inc.gpu_over and t >= inc.gpu_over[cg][0]:
        hit = True
    if cg in inc.gpu_gone and t >= inc.gpu_gone[cg]:
        hit = True
    if inc.kind in ("stall", "silent") and inc.r0 in inc.stalled and not inc.gpu_busy_stalled and inc.t and t >= inc.t + sec(20):
        if t < sc.t_end_of_rank.get(inc.r0, t + sec(1)):
            hit = True
    if hit:
        sc.saw_node()
        sc.metric_rank_pending = True


def host_evidence(sc, node, t_from, t_to):
    an = sc.inc.host.get(node, {})
    if sc.healthy or node != sc.inc.n0:
        return
    for k, (a, b, f) in an.items():
        if a <= t_to and b >= t_from:
            sc.saw_node()


def gpu_vals_node(sc, node, t):
    vals = [gpu_vals(sc, node, g, t) for g in range(sc.cl.gpn)]
    missing = [g for g in range(sc.cl.gpn) if (node, g) in sc.inc.gpu_gone and t >= sc.inc.gpu_gone[(node, g)]]
    return vals, missing


def render_dcgm(sc, node, t, k8s_pod=None, exporter_pod=None):
    vals, missing = gpu_vals_node(sc, node, t)
    metric_evidence(sc, node, t)
    if k8s_pod:
        def le(g):
            return 'container="pytorch",namespace="%s",pod="%s"' % (sc.k8s_ns, k8s_pod)
    else:
        le = None
    return dcgm_scrape(sc.cl, node, vals, labels_extra=le, hostname_label=exporter_pod, missing=missing)


def render_smi_q(sc, node, t, gpus=None):
    cl = sc.cl
    gpus = list(range(cl.gpn)) if gpus is None else gpus
    metric_evidence(sc, node, t)
    lt = cl.lt(node, t)
    gone = [g for g in gpus if (node, g) in sc.inc.gpu_gone and t >= sc.inc.gpu_gone[(node, g)]]
    out = []
    if gone:
        out.append("$ nvidia-smi -q")
        for g in gone:
            out.append("Unable to determine the device handle for GPU%s: Unknown Error" % cl.busid(g))
        out.append("")
        out.append("$ nvidia-smi -q -i %s" % ",".join(str(g) for g in gpus if g not in gone))
    else:
        out.append("$ nvidia-smi -q" + ("" if len(gpus) == cl.gpn else " -i %s" % ",".join(str(g) for g in gpus)))
    out.extend(smi_q_header(cl, lt, cl.gpn - len(gone)))
    evt = "Clocks Event Reasons" if not cl.driver.startswith("525") else "Clocks Throttle Reasons"
    for g in gpus:
        if g in gone:
            continue
        v = gpu_vals(sc, node, g, t)
        v["tx"] = int(v["util"] * 3100 * sc.rng.uniform(0.5, 1.5))
        v["rx"] = int(v["util"] * 2700 * sc.rng.uniform(0.5, 1.5))
        out.append("")
        out.extend(smi_q_gpu(cl, node, g, v, lt, evt))
    return out


def render_query_gpu_csv(sc, node, t_from, t_to, period):
    cl = sc.cl
    out = [QUERY_GPU_HDR]
    t = t_from
    while t <= t_to:
        for g in range(cl.gpn):
            if (node, g) in sc.inc.gpu_gone and t >= sc.inc.gpu_gone[(node, g)]:
                continue
            v = gpu_vals(sc, node, g, t)
            out.append(query_gpu_row(cl, g, cl.lt(node, t) + sec(g * 0.002), v))
        if any(t >= sc.inc.gpu_gone[k] for k in sc.inc.gpu_gone if k[0] == node):
            pass
        metric_evidence(sc, node, t)
        t = t + sec(period)
    if any(k[0] == node and t_to >= v for k, v in sc.inc.gpu_gone.items()):
        out.append("Unable to determine the device handle for GPU%s: Unknown Error" % cl.busid([k for k in sc.inc.gpu_gone if k[0] == node][0][1]))
    return out


def render_wandb_csv(sc, node, t_from, t_to, period):
    cl = sc.cl
    cols = ["_runtime", "_timestamp", "system.cpu", "system.memory_percent", "system.proc.memory.rssMB", "system.network.sent", "system.network.recv", "system.disk./.usagePercent"]
    for g in range(cl.gpn):
        cols += ["system.gpu.%d.gpu" % g, "system.gpu.%d.memory" % g, "system.gpu.%d.memoryAllocated" % g, "system.gpu.%d.temp" % g,
                 "system.gpu.%d.powerWatts" % g, "system.gpu.%d.powerPercent" % g, "system.gpu.%d.smClock" % g]
    if sc.wandb_pcie:
        cols += ["system.gpu.%d.pcieLinkGen" % g for g in range(cl.gpn)]
    out = [",".join(cols)]
    t = t_from
    sent = recv = 0.0
    t0 = sc.t_start + sec(12)
    while t <= t_to:
        h = host_vals(sc, node, t)
        sent += (h["eth_tx"] + h["ib_tx"] * 0.0) * period * 1024
        recv += (h["eth_rx"]) * period * 1024
        row = ["%.5f" % (t - t0).total_seconds(), "%.6f" % epoch(cl.lt(node, t)),
               "%.2f" % min(100, h["user"] + h["sys"] + h["iowait"]), "%.2f" % h["mem"], "%.2f" % (h["mem"] * 18.0 + 4000),
               "%d" % int(sent), "%d" % int(recv), "%.4f" % sc.disk_pct]
        vals = []
        gp = []
        for g in range(cl.gpn):
            if (node, g) in sc.inc.gpu_gone and t >= sc.inc.gpu_gone[(node, g)]:
                vals += [""] * 7
                gp.append("")
                continue
            v = gpu_vals(sc, node, g, t)
            vals += ["%d" % v["util"], "%d" % v["mcu"], "%.4f" % (100.0 * v["fbused"] / cl.gpu["mem_mib"]), "%d" % v["temp"],
                     "%.3f" % v["power"], "%.3f" % (100.0 * v["power"] / v.get("plimit", cl.gpu["tdp"])), "%d" % v["sm"]]
            gp.append("%d" % v["pgen"])
        metric_evidence(sc, node, t)
        row += vals
        if sc.wandb_pcie:
            row += gp
        out.append(",".join(row))
        t = t + sec(period)
    host_evidence(sc, node, t_from, t_to)
    return out


def render_grafana(sc, metric, t_from, t_to, period, nodes=None):
    """Grafana panel CSV export: one column per host/gpu series"""
    cl = sc.cl
    nodes = list(range(cl.n)) if nodes is None else nodes
    series = [(n, g) for n in nodes for g in range(cl.gpn)]
    hdr = ["Time"] + ["%s gpu%d" % (cl.hosts[n], g) for n, g in series]
    out = [",".join('"%s"' % h for h in hdr)]
    t = t_from
    while t <= t_to:
        row = ['"%s"' % f_iso(t)]
        for n, g in series:
            if (n, g) in sc.inc.gpu_gone and t >= sc.inc.gpu_gone[(n, g)]:
                row.append("")
                continue
            v = gpu_vals(sc, n, g, t)
            x = {"util": "%d" % v["util"], "sm": "%d" % v["sm"], "power": "%.1f" % v["power"], "temp": "%d" % v["temp"],
                 "thr": "%d" % v["thr"], "pcie": "%d" % v["pwidth"]}[metric]
            row.append(x)
        for n in nodes:
            metric_evidence(sc, n, t)
        out.append(",".join(row))
        t = t + sec(period)
    return out


def render_grafana_host(sc, metric, t_from, t_to, period):
    cl = sc.cl
    out = [",".join(['"Time"'] + ['"%s"' % h for h in cl.hosts])]
    t = t_from
    while t <= t_to:
        row = ['"%s"' % f_iso(t)]
        for n in range(cl.n):
            h = host_vals(sc, n, t)
            if metric == "cpu":
                row.append("%.1f" % min(100, h["user"] + h["sys"] + h["iowait"] + h["steal"]))
            elif metric == "mem":
                row.append("%.1f" % h["mem"])
            elif metric == "load":
                row.append("%.1f" % h["ld1"])
            elif metric == "ib":
                row.append("%.0f" % (h["ib_tx"] * 1024 * 8 / 1e9 * 100) if False else "%.2f" % (h["ib_tx"] * 8 / 1e6))
        out.append(",".join(row))
        t = t + sec(period)
    for n in range(cl.n):
        host_evidence(sc, n, t_from, t_to)
    return out


def render_dmesg(sc, node, t_from, t_to, style="T", noise=6):
    """kernel log lines of a node within [t_from, t_to] (true time), formatted in node-local time"""
    rng = random.Random("%s|dmesg|%d" % (sc.rng_tag, node))
    cl = sc.cl
    ents = []
    span = max(1.0, (t_to - t_from).total_seconds())
    for ln in kernel_noise(cl, node, rng, noise):
        ents.append((t_from + sec(rng.uniform(0, span)), ln, None))
    for (t, ln, ev) in sc.inc.kern.get(node, []):
        if t_from <= t <= t_to:
            ents.append((t, ln, ev))
    ents.sort(key=lambda x: x[0])
    out = []
    boot = sc.boot[node]
    for t, ln, ev in ents:
        if ev == "node":
            sc.saw_node()
        lt = cl.lt(node, t)
        if style == "T":
            out.append("%s %s" % (f_dmesgT(lt), ln))
        elif style == "raw":
            out.append("[%12.6f] %s" % ((t - boot).total_seconds(), ln))
        else:
            out.append("%s %s kernel: %s" % (f_syslog(lt), cl.hosts[node].split(".")[0], ln))
    return out


def render_sar(sc, node, t_from, t_to, period=600, sections=("u", "r", "q", "n")):
    cl = sc.cl
    lt0 = cl.lt(node, t_from)
    out = [sar_header(cl, node, lt0), ""]
    ts = []
    t = t_from
    while t <= t_to:
        ts.append(t)
        t = t + sec(period)
    hv = [(t, host_vals(sc, node, t)) for t in ts]
    host_evidence(sc, node, t_from, t_to)
    hm = lambda t: f_hms(cl.lt(node, t))
    if "u" in sections:
        out.append("%s     CPU     %%user     %%nice   %%system   %%iowait    %%steal     %%idle" % hm(ts[0]))
        for t, v in hv:
            idle = max(0.0, 100 - v["user"] - v["sys"] - v["iowait"] - v["steal"])
            out.append("%s     all %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f" % (hm(t), v["user"], 0.0, v["sys"], v["iowait"], v["steal"], idle))
        out.append("")
    if "q" in sections:
        out.append("%s   runq-sz  plist-sz   ldavg-1   ldavg-5  ldavg-15   blocked" % hm(ts[0]))
        for t, v in hv:
            out.append("%s %9d %9d %9.2f %9.2f %9.2f %9d" % (hm(t), v["runq"], 3000 + v["runq"] * 3, v["ld1"], v["ld1"] * 0.93, v["ld1"] * 0.85, int(v["iowait"] > 3) * int(v["iowait"] * 3)))
        out.append("")
    if "r" in sections:
        tot = sc.host_mem_kb
        out.append("%s kbmemfree   kbavail kbmemused  %%memused kbbuffers  kbcached  kbcommit   %%commit  kbactive   kbinact   kbdirty" % hm(ts[0]))
        for t, v in hv:
            used = int(tot * v["mem"] / 100.0)
            free = tot - used
            out.append("%s %9d %9d %9d %9.2f %9d %9d %9d %9.2f %9d %9d %9d" % (hm(t), int(free * 0.3), int(free * 0.9), used, v["mem"], 123456, int(free * 0.6), int(used * 1.3), 100.0 * used * 1.3 / tot, int(used * 0.8), int(free * 0.2), 1200))
        out.append("")
    if "n" in sections:
        out.append("%s     IFACE   rxpck/s   txpck/s    rxkB/s    txkB/s   rxcmp/s   txcmp/s  rxmcst/s   %%ifutil" % hm(ts[0]))
        for t, v in hv:
            out.append("%s %9s %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f" % (hm(t), cl.eth, v["eth_rx"] / 1.4, v["eth_tx"] / 1.4, v["eth_rx"], v["eth_tx"], 0, 0, 0.3, v["eth_rx"] * 8 / 1e6))
            for i in range(min(2, cl.gpn)):
                out.append("%s %9s %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f" % (hm(t), cl.ibdev[i], v["ib_rx"] / 4.0, v["ib_tx"] / 4.0, v["ib_rx"], v["ib_tx"], 0, 0, 0, min(100.0, v["ib_rx"] * 8 / 4e5)))
        out.append("")
    if "e" in sections:
        out.append("%s     IFACE   rxerr/s   txerr/s    coll/s  rxdrop/s  txdrop/s  txcarr/s  rxfram/s  rxfifo/s  txfifo/s" % hm(ts[0]))
        for t, v in hv:
            for i in range(min(2, cl.gpn)):
                out.append("%s %9s %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f" % (hm(t), cl.ibdev[i], v["rxerr"] if i == 0 else 0.0, 0, 0, v["rxdrop"], 0, 0, 0, 0, 0))
        out.append("")
    return out


def render_iostat(sc, node, t_from, t_to, period=60):
    cl = sc.cl
    inc = sc.inc
    out = [sar_header(cl, node, cl.lt(node, t_from)), ""]
    t = t_from
    nv = getattr(inc, "nvme", None)
    while t <= t_to:
        lt = cl.lt(node, t)
        v = host_vals(sc, node, t)
        out.append("%02d/%02d/%02d %02d:%02d:%02d" % (lt.month, lt.day, lt.year % 100, lt.hour, lt.minute, lt.second))
        out.append("avg-cpu:  %user   %nice %system %iowait  %steal   %idle")
        idle = max(0.0, 100 - v["user"] - v["sys"] - v["iowait"])
        out.append("          %6.2f    0.00 %7.2f %7.2f    0.00 %7.2f" % (v["user"], v["sys"], v["iowait"], idle))
        out.append("")
        out.append("Device            r/s     rkB/s   rrqm/s  %rrqm r_await rareq-sz     w/s     wkB/s   wrqm/s  %wrqm w_await wareq-sz     d/s     dkB/s   drqm/s  %drqm d_await dareq-sz     f/s f_await  aqu-sz  %util")
        for dev in ["nvme0n1", "nvme1n1", "nvme2n1", "nvme3n1"][:3]:
            bad = nv and nv[0] == node and nv[1] == dev and t >= nv[2]
            busy = sc.t_train0 <= t <= sc.t_end_host.get(node, sc.t_last)
            if bad:
                r_s, rk, aw, aq, ut = 3.0, 180.0, 9000.0 + sc.rng.uniform(0, 20000), 31.9, 100.0
                metric_evidence(sc, node, t)
                sc.saw_node()
            elif busy and dev != "nvme0n1":
                r_s = sc.rng.uniform(800, 2200)
                rk = r_s * 128
                aw, aq, ut = sc.rng.uniform(0.15, 0.4), sc.rng.uniform(0.2, 0.9), sc.rng.uniform(12, 35)
            else:
                r_s, rk, aw, aq, ut = sc.rng.uniform(0, 3), sc.rng.uniform(0, 40), sc.rng.uniform(0.05, 0.2), 0.0, sc.rng.uniform(0, 0.6)
            w_s = sc.rng.uniform(0, 25)
            out.append("%-13s %8.2f %9.2f %8.2f %6.2f %7.2f %8.2f %7.2f %9.2f %8.2f %6.2f %7.2f %8.2f %7.2f %9.2f %8.2f %6.2f %7.2f %8.2f %7.2f %7.2f %7.2f %6.2f" % (
                dev, r_s, rk, 0.0, 0.0, aw, rk / max(r_s, 0.01), w_s, w_s * 16, 0.5, 2.0, 0.4, 16.0, 0, 0, 0, 0, 0, 0, 1.2, 0.3, aq, ut))
        out.append("")
        t = t + sec(period)
    return out


def render_nfsiostat(sc, node, t_from, t_to, period=60):
    cl = sc.cl
    inc = sc.inc
    out = []
    bad = getattr(inc, "nfs_bad", None)
    t = t_from
    while t <= t_to:
        isbad = bad and bad[0] == node and t >= bad[1]
        busy = sc.t_train0 <= t <= sc.t_end_host.get(node, sc.t_last)
        out.append("")
        out.append("%s:/export/datasets mounted on /mnt/datasets:" % sc.nfs_server)
        out.append("")
        if isbad:
            sc.saw_node()
            ops, bk, rops, rkb, rtt, exe, q, retr = sc.rng.uniform(0, 2), sc.rng.uniform(40, 300), 0.0, 0.0, 0.0, 0.0, 0.0, sc.rng.randrange(3, 60)
        elif busy:
            rops = sc.rng.uniform(300, 1900)
            ops, bk, rkb, rtt, exe, q, retr = rops * 1.02, 0.0, rops * 128, sc.rng.uniform(0.8, 3.0), 0.0, sc.rng.uniform(0.01, 0.08), 0
            exe = rtt + sc.rng.uniform(0.02, 0.2)
        else:
            ops, bk, rops, rkb, rtt, exe, q, retr = sc.rng.uniform(0, 1), 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0
        out.append("           ops/s       rpc bklog")
        out.append("%16.3f %16.3f" % (ops, bk))
        out.append("")
        out.append("read:              ops/s            kB/s           kB/op         retrans    avg RTT (ms)    avg exe (ms)  avg queue (ms)          errors")
        out.append("%24.3f %15.3f %15.3f %9d (%.1f%%) %15.3f %15.3f %15.3f %9d (0.0%%)" % (rops, rkb, 128.0 if rops else 0.0, retr, 100.0 if (isbad and retr) else 0.0, rtt, exe, q, 0))
        out.append("write:             ops/s            kB/s           kB/op         retrans    avg RTT (ms)    avg exe (ms)  avg queue (ms)          errors")
        out.append("%24.3f %15.3f %15.3f %9d (0.0%%) %15.3f %15.3f %15.3f %9d (0.0%%)" % (0.0, 0.0, 0.0, 0, 0.0, 0.0, 0.0, 0))
        t = t + sec(period)
    return out


def render_ibstat(sc, node):
    cl = sc.cl
    out = []
    slow = getattr(sc, "slow_nic", None)
    for i in range(min(cl.gpn, 8)):
        rate = 400
        state = "Active"
        if slow and slow[0] == node and slow[1] == i:
            rate = 100
            sc.saw_node()
        out += ["CA '%s'" % cl.ib[i], "\tCA type: MT4129", "\tNumber of ports: 1", "\tFirmware version: 28.39.1002", "\tHardware version: 0",
                "\tNode GUID: 0x%s" % hexid(sc.rng, 16), "\tSystem image GUID: 0x%s" % hexid(sc.rng, 16), "\tPort 1:", "\t\tState: %s" % state,
                "\t\tPhysical state: LinkUp", "\t\tRate: %d" % rate, "\t\tBase lid: %d" % sc.rng.randrange(1, 3000), "\t\tLMC: 0",
                "\t\tSM lid: 1", "\t\tCapability mask: 0xa751e848", "\t\tPort GUID: 0x%s" % hexid(sc.rng, 16), "\t\tLink layer: InfiniBand"]
    return out


def render_pyspy_set(sc, ranks, hdr=True):
    """py-spy dumps of given ranks (taken at inc.pyspy_t)"""
    rng = random.Random("%s|pyspy" % sc.rng_tag)
    out = []
    cl = sc.cl
    for r in ranks:
        kind = sc.inc.pyspy.get(r, "victim")
        if hdr:
            out.append("### %s rank %d (local %d) pid %d -- %s" % (cl.hosts[cl.node_of(r)], r, cl.local_of(r), cl.pid(r), f_iso(cl.lt(cl.node_of(r), sc.inc.pyspy_t))))
        out += pyspy_dump(sc, r, kind, rng, sc.cmd)
        if kind == "dl_wait" and getattr(sc.inc, "worker_kind", None):
            wpid = cl.pid(r) + rng.randrange(300, 3000)
            out.append("")
            out.append("### dataloader worker of rank %d (pid %d)" % (r, wpid) if hdr else "")
            out += pyspy_worker_dump(sc, r, sc.inc.worker_kind, rng, wpid)
        out.append("")
        if sc.inc.r0 is not None and (r == sc.inc.r0 or (kind != "victim" and r in sc.inc.stalled)):
            if kind != "victim":
                if len(sc.inc.stalled) > 1:
                    sc.saw_node()
                else:
                    sc.saw_rank()
    return out


def nccl_init_block(sc, ranks):
    """NCCL INFO init lines of the given ranks; list of (t_true, line, rank)"""
    if not sc.nccl_debug:
        return []
    out = []
    t = sc.t_start + sec(sc.init_s * 0.55)
    for r in ranks:
        rng = random.Random("%s|nccl|%d" % (sc.rng_tag, r))
        tt = t + sec(rng.uniform(0, 3))
        for ln in nccl_init_lines(sc.cl, sc.st, r, rng, sc.comm_addr[r], sc.commid, verbose=rng.random() < 0.5):
            out.append((tt, ln, r))
            tt = tt + sec(0.001)
    sc.mapping_known = True
    return out


def python_warnings(sc, r, rng):
    """one warning block (list of lines); file line numbers are fixed per run"""
    site = sc.st["site"]
    if not hasattr(sc, "_warn_ln"):
        wr = random.Random("%s|warn" % sc.rng_tag)
        sc._warn_ln = {"bar": wr.randrange(4000, 4300), "ddp": wr.randrange(700, 900), "mem": wr.randrange(300, 400)}
    L = sc._warn_ln
    pool = [
        ["%s/torch/utils/checkpoint.py:%d: UserWarning: torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. In version 2.4 we will raise an exception if use_reentrant is not passed. use_reentrant=False is recommended, but if you need to preserve the current default behavior, you can pass use_reentrant=True. Refer to docs for more details on the differences between the two variants." % (site, 464 if sc.st["major"] >= 23 else 429),
         "  warnings.warn("],
        ["%s/torch/cuda/memory.py:%d: FutureWarning: torch.cuda.reset_max_memory_allocated now calls torch.cuda.reset_peak_memory_stats, which resets /all/ peak memory stats." % (site, L["mem"]), "  warnings.warn("],
    ]
    if sc.st["major"] >= 24:
        pool.append(["%s/torch/distributed/distributed_c10d.py:%d: UserWarning: barrier(): using the device under current context. You can specify `device_id` in `init_process_group` to mute this warning." % (site, L["bar"]),
                     "  warnings.warn(  # warn only once"])
    if sc.st["major"] >= 22:
        pool.append(["[W Utils.hpp:135] Warning: Environment variable NCCL_ASYNC_ERROR_HANDLING is deprecated; use TORCH_NCCL_ASYNC_ERROR_HANDLING instead (function getCvarInt)"])
    return pick(rng, pool)


def warn_block(t, lines, fmt=None):
    return [(t + sec(i * 1e-5), fmt(ln) if fmt else ln) for i, ln in enumerate(lines)]


# --------------------------------------------------------------------------------------------
# layout helpers
# --------------------------------------------------------------------------------------------
def srt(entries):
    entries.sort(key=lambda x: x[0])
    return [ln for _, ln in entries]


def tqdm_bar(pct):
    full = int(pct // 10)
    rem = pct / 10.0 - full
    parts = " ▏▎▍▌▋▊▉"
    bar = "█" * full
    if full < 10:
        bar += parts[int(rem * 8)] if int(rem * 8) > 0 else " "
        bar += " " * (10 - full - 1)
    return bar


def tqdm_line(prefix, n, total, elapsed_s, rate_s_per_it, postfix=""):
    pct = 100.0 * n / total
    rem = (total - n) * rate_s_per_it
    if rate_s_per_it >= 1:
        rate = "%5.2fs/it" % rate_s_per_it
    else:
        rate = "%5.2fit/s" % (1.0 / rate_s_per_it)
    return "%s%3d%%|%s| %d/%d [%s<%s, %s%s]" % (prefix, int(pct), tqdm_bar(pct), n, total, f_elapsed(elapsed_s), f_elapsed(rem), rate, postfix)


def slurm_lines(sc, task_of_rank=False):
    """srun/slurmstepd messages (t_true, line) after the incident"""
    cl = sc.cl
    inc = sc.inc
    rng = random.Random("%s|slurm" % sc.rng_tag)
    out = []
    h0 = cl.hosts[0]
    jid = sc.job_id
    ts = lambda t: f_slurm_ts(cl.lt(0, t))
    if sc.job_state == "COMPLETED" or sc.job_state == "RUNNING":
        return out
    if inc.kind in ("kill_all", "silent"):
        tk = sc.t_kill
        reason = {"TIMEOUT": " DUE TO TIME LIMIT", "PREEMPTED": " DUE TO PREEMPTION"}.get(sc.job_state, "")
        out.append((tk - sec(0.2), "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s%s ***" % (jid, h0, ts(tk), reason)))
        out.append((tk - sec(0.1), "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s%s ***" % (jid, h0, ts(tk), reason)))
        out.append((tk, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish."))
        if task_of_rank:
            for n in range(cl.n):
                out.append((tk + sec(rng.uniform(2, 9)), "srun: error: %s: tasks %d-%d: Terminated" % (cl.hosts[n], n * cl.gpn, (n + 1) * cl.gpn - 1)))
        else:
            for n in range(cl.n):
                out.append((tk + sec(rng.uniform(3, 12)), "srun: error: %s: task %d: Terminated" % (cl.hosts[n], n)))
        return out
    # failures
    hidden = getattr(inc, "node_fail", False)
    if task_of_rank:
        names = {1: "Exited with exit code 1", -6: "Aborted (core dumped)", -11: "Segmentation fault (core dumped)", -9: "Killed", -15: "Terminated", -7: "Bus error (core dumped)"}
        firsts = sorted((f[0], r) for r, f in sc.fate.items() if f[2] in ("self", "watchdog", "remote"))
        for te, r in firsts:
            if sc.t_kill and te > sc.t_kill:
                continue
            if hidden and cl.node_of(r) == inc.n0:
                continue
            out.append((te + sec(0.2), "srun: error: %s: task %d: %s" % (cl.hosts[cl.node_of(r)], r, names.get(sc.fate[r][1], "Exited with exit code %d" % sc.fate[r][1]))))
    else:
        for n in range(cl.n):
            a = sc.agents[n]
            if a["kind"] == "failed" and not (hidden and n == inc.n0):
                out.append((a["t_exit"] + sec(0.1), "srun: error: %s: task %d: Exited with exit code 1" % (cl.hosts[n], n)))
    if hidden:
        tf = inc.t + sec(rng.uniform(20, 200))
        out.append((tf, "srun: error: Node failure on %s" % cl.hosts[inc.n0]))
        out.append((tf + sec(0.5), "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO NODE FAILURE, SEE SLURMCTLD LOG FOR DETAILS ***" % (jid, h0, ts(tf))))
        out.append((tf + sec(0.6), "srun: Job step aborted: Waiting up to 32 seconds for job step to finish."))
        return out
    if sc.t_kill:
        tk = sc.t_kill
        if getattr(sc, "leftover_end", None) == "timelimit":
            out.append((tk - sec(0.2), "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO TIME LIMIT ***" % (jid, h0, ts(tk))))
            out.append((tk - sec(0.1), "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s DUE TO TIME LIMIT ***" % (jid, h0, ts(tk))))
        else:
            out.append((tk - sec(0.1), "srun: Job step aborted: Waiting up to 32 seconds for job step to finish."))
            out.append((tk, "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s ***" % (jid, h0, ts(tk))))
        if task_of_rank:
            for n in range(cl.n):
                killed = [r for r in range(n * cl.gpn, (n + 1) * cl.gpn) if sc.fate[r][2] == "signal"]
                if killed:
                    out.append((tk + sec(rng.uniform(1, 5)), "srun: error: %s: tasks %s: Terminated" % (cl.hosts[n], compress_ranges(killed))))
        else:
            for n in range(cl.n):
                if sc.agents[n]["kind"] == "signal":
                    out.append((tk + sec(rng.uniform(3, 10)), "srun: error: %s: task %d: Exited with exit code 1" % (cl.hosts[n], n)))
    return out


def compress_ranges(nums):
    nums = sorted(nums)
    parts = []
    i = 0
    while i < len(nums):
        j = i
        while j + 1 < len(nums) and nums[j + 1] == nums[j] + 1:
            j += 1
        parts.append("%d-%d" % (nums[i], nums[j]) if j > i else "%d" % nums[i])
        i = j + 1
    return ",".join(parts)


def sacct_text(sc, jobname, stepname):
    cl = sc.cl
    st = sc.job_state
    if st == "RUNNING":
        return None
    end = sc.t_job_end
    el = (end - sc.t_start).total_seconds()
    code = {"COMPLETED": "0:0", "FAILED": "1:0", "TIMEOUT": "0:0", "PREEMPTED": "0:0", "NODE_FAIL": "0:0"}.get(st, "0:15")
    nl = compress_nodelist(cl.hosts)
    ststep = {"COMPLETED": "COMPLETED", "FAILED": "FAILED", "TIMEOUT": "CANCELLED", "PREEMPTED": "CANCELLED", "NODE_FAIL": "CANCELLED"}.get(st, "CANCELLED")
    lines = ["       JobID    JobName  Partition      State ExitCode    Elapsed        NodeList ",
             "------------ ---------- ---------- ---------- -------- ---------- --------------- "]
    fmt = "%-12s %10s %10s %10s %8s %10s %15s "
    lines.append(fmt % (str(sc.job_id), jobname[:10], sc.partition[:10], st[:10], code, _hms(el), nl[:15]))
    lines.append(fmt % ("%d.batch" % sc.job_id, "batch", "", ("FAILED" if st == "FAILED" else ("CANCELLED" if st != "COMPLETED" else "COMPLETED")), "1:0" if st == "FAILED" else ("0:15" if st != "COMPLETED" else "0:0"), _hms(el), cl.hosts[0][:15]))
    lines.append(fmt % ("%d.extern" % sc.job_id, "extern", "", "COMPLETED" if st != "NODE_FAIL" else "CANCELLED", "0:0", _hms(el + 1), nl[:15]))
    lines.append(fmt % ("%d.0" % sc.job_id, stepname[:10], "", ststep, "1:0" if st == "FAILED" else ("0:15" if ststep == "CANCELLED" else "0:0"), _hms(el - 6), nl[:15]))
    return lines


def _hms(s):
    s = int(max(0, s))
    d, r = divmod(s, 86400)
    h, r = divmod(r, 3600)
    m, s2 = divmod(r, 60)
    if d:
        return "%d-%02d:%02d:%02d" % (d, h, m, s2)
    return "%02d:%02d:%02d" % (h, m, s2)


def omp_warning(sc, n, t):
    st = sc.st
    cl = sc.cl
    lt = cl.lt(n, t)
    body = ["", "*****************************************",
            "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. ",
            "*****************************************"]
    if st["major"] >= 24:
        return [(t, "%s %s" % (f_glog("W", lt, cl.tid[n], "torch/distributed/run.py:793"), b)) for b in body]
    if st["major"] >= 22:
        return [(t, "[%s] torch.distributed.run: [WARNING] %s" % (f_iso_ms(lt), b)) for b in body]
    return [(t, "WARNING:torch.distributed.run:")] + [(t, b) for b in body[1:]]


def startup_noise(sc, n, t, rng):
    """harmless-but-scary startup lines of one node"""
    cl = sc.cl
    st = sc.st
    out = []
    lt = cl.lt(n, t)
    if n != 0 and rng.random() < 0.5:
        where = "socket.cpp:%d" % (697 if st["major"] >= 24 else 663)
        hdr = ("[W%d%02d %02d:%02d:%02d.%06d%03d %s]" % (lt.month, lt.day, lt.hour, lt.minute, lt.second, lt.microsecond, rng.randrange(1000), where)) if st["major"] >= 24 else "[W %s]" % where
        for k in range(rng.randrange(1, 4)):
            out.append((t + sec(k * 10), "%s [c10d] The client socket has failed to connect to [%s]:29500 (errno: 111 - Connection refused)." % (hdr, cl.hosts[0])))
    if rng.random() < 0.4:
        where = "socket.cpp:464"
        out.append((t, "[W %s] [c10d] The server socket has failed to bind to [::]:29500 (errno: 98 - Address already in use)." % where if rng.random() < 0.3 else
                    "[W %s] [c10d] The server socket has failed to listen on [::]:29500 (errno: 97 - Address family not supported by protocol)." % where))
    return out


def healthy_scary(sc, r, t, rng):
    """harmless NCCL WARN / warnings printed during a healthy run"""
    pool = [
        "%s NCCL WARN Could not find real path of /sys/class/net/%s/device" % (nccl_prefix(sc.cl, r, rng.randrange(300, 900)), pick(rng, ["docker0", "lo", "veth" + hexid(rng, 6)])),
        "%s NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0' (no module)" % nccl_prefix(sc.cl, r, rng.randrange(300, 900)),
        "[W ProcessGroupNCCL.cpp:%d] Warning: TORCH_NCCL_AVOID_RECORD_STREAMS=1 has no effect for point-to-point collectives. (function operator())" % rng.randrange(2000, 3000),
    ]
    return (t, pick(rng, pool))


def truncate_middle(lines, rng, t_keep_lines=None, marker=None, keep_head=60, keep_tail=250):
    if len(lines) <= keep_head + keep_tail + 50:
        return lines
    cut = len(lines) - keep_head - keep_tail
    m = marker or pick(rng, ["[... %d lines trimmed ...]", "...", "<snip %d lines>", "[truncated]", "(... %d lines omitted ...)"])
    if "%d" in m:
        m = m % cut
    return lines[:keep_head] + [m] + lines[-keep_tail:]


# --------------------------------------------------------------------------------------------
# layout 1: Megatron-LM on Slurm
# --------------------------------------------------------------------------------------------
def setup_megatron(sc):
    rng = sc.rng
    setup_common(sc, pick(rng, [2, 2, 3, 4]), 8, "slurm", pick(rng, [600000, 600000, 1200000]))
    sc.fw = "megatron"
    sc.sched = "slurm_kill" if rng.random() < 0.65 else "slurm_nokill"
    sc.workdir = "/workspace/megatron-lm"
    sc.model = pick(rng, [("gpt3-2.7b", 32, 2560, 2690000000), ("gpt3-6.7b", 32, 4096, 6700000000), ("llama2-7b", 32, 4096, 6740000000), ("gpt3-1.3b", 24, 2048, 1310000000)])
    sc.cmd = "%s -u pretrain_gpt.py --num-layers %d --hidden-size %d --seq-length %d --micro-batch-size 1 --global-batch-size %d --train-iters %d --log-interval %d --bf16" % (
        sc.st["pybin"], sc.model[1], sc.model[2], sc.seq, sc.gbs, sc.train_iters, sc.log_every)
    tf = rng.uniform(180, 420) if sc.cl.gpu["short"] == "H100" else rng.uniform(110, 170)
    fix_batch(sc, tf * 1e12 / (6.0 * sc.model[3]))
    sc.cmd = "%s -u pretrain_gpt.py --num-layers %d --hidden-size %d --seq-length %d --micro-batch-size 1 --global-batch-size %d --train-iters %d --log-interval %d --bf16" % (
        sc.st["pybin"], sc.model[1], sc.model[2], sc.seq, sc.gbs, sc.train_iters, sc.log_every)
    sc.meg_timers = rng.random() < 0.6
    sc.meg_straggler = rng.random() < 0.4
    sc.partition = pick(rng, ["gpu", "h100", "a100-80g", "batch", "train"])


def meg_iter_line(sc, row, world):
    cl = sc.cl
    lt = cl.lt(cl.n - 1, row.t)
    S = sc.S(row.step)
    tf = 6.0 * sc.model[3] * sc.gbs * sc.seq / (row.step_ms / 1000.0) / world / 1e12
    s = "[%s]" % f_iso(lt) if sc.st["major"] >= 23 else ""
    s += " iteration %8d/%8d | consumed samples: %12d | elapsed time per iteration (ms): %.1f |" % (S, sc.train_iters, S * sc.gbs, row.step_ms)
    if sc.st["major"] >= 23:
        s += " throughput per GPU (TFLOP/s/GPU): %.1f |" % tf
    s += " learning rate: %.6E | global batch size: %5d | lm loss: %.6E | loss scale: %.1f | grad norm: %.3f | number of skipped iterations: %3d | number of nan iterations: %3d |" % (
        row.lr, sc.gbs, row.loss, 65536.0 if sc.fp16 else 1.0, row.gnorm, row.skipped, 0)
    return s


def meg_timers(sc, row):
    W = sc.cl.world
    fb = [row.comp[r] + row.data[r] + 0.55 * row.wait[r] for r in range(W)]
    fc = [row.comp[r] * 0.34 for r in range(W)]
    bc = [row.comp[r] * 0.64 for r in range(W)]
    bg = [row.data[r] for r in range(W)]
    ag = [0.45 * row.wait[r] + 2.0 for r in range(W)]
    rng = sc.rng
    items = [("forward-backward", fb), ("forward-compute", fc), ("backward-compute", bc), ("batch-generator", bg),
             ("layernorm-grads-all-reduce", [0.02 + rng.random() * 0.01 for _ in range(W)]),
             ("embedding-grads-all-reduce", [0.03 + rng.random() * 0.02 for _ in range(W)]),
             ("all-grads-sync", ag), ("optimizer-copy-to-main-grad", [sc.base_ms * 0.006 * (1 + rng.random() * 0.05) for _ in range(W)]),
             ("optimizer-clip-main-grad", [sc.base_ms * 0.005 * (1 + rng.random() * 0.1) for _ in range(W)]),
             ("optimizer-count-zeros", [0.0 for _ in range(W)]),
             ("optimizer-inner-step", [sc.base_ms * 0.011 * (1 + rng.random() * 0.05) for _ in range(W)]),
             ("optimizer-copy-main-to-model-params", [sc.base_ms * 0.003 * (1 + rng.random() * 0.05) for _ in range(W)]),
             ("optimizer", [sc.base_ms * 0.027 * (1 + rng.random() * 0.05) for _ in range(W)])]
    out = ["(min, max) time across ranks (ms):"]
    for name, vals in items:
        out.append("    %s: (%.2f, %.2f)" % ((name + " ").ljust(48, "."), min(vals), max(vals)))
    return out


def meg_straggler_line(sc, row):
    cl = sc.cl
    W = cl.world
    rtt = [row.comp[r] + row.data[r] for r in range(W)]
    vals = [gpu_vals(sc, cl.node_of(r), cl.local_of(r), row.t) for r in range(W)]
    flops = 6.0 * sc.model[3] * sc.gbs * sc.seq / W
    et = [flops / (rtt[r] / 1000.0) / 1e12 * 0.33 for r in range(W)]

    def mn(a):
        i = min(range(W), key=lambda k: a[k])
        return a[i], i

    def mx(a):
        i = max(range(W), key=lambda k: a[k])
        return a[i], i
    pw = [v["power"] * 1000 for v in vals]
    tp = [v["temp"] for v in vals]
    ut = [v["util"] for v in vals]
    ck = [v["sm"] for v in vals]
    dr = [row.data[r] for r in range(W)]
    s = "[%s] | MnRtt/Rnk: %.2fms/%d | MxRtt/Rnk: %.2fms/%d | MnPwr/Rnk: %dW/%d | MxPwr/Rnk: %dW/%d | MnTmp/Rnk: %dC/%d | MxTmp/Rnk: %dC/%d | MnUtl/Rnk: %d%%/%d | MxUtl/Rnk: %d%%/%d | MnClk/Rnk: %dMHz/%d | MxClk/Rnk: %dMHz/%d | MnDRtt/Rnk: %.2fms/%d | MxDRtt/Rnk: %.2fms/%d | MnEtpt/Rnk: %.2fTF/%d | MxEtpt/Rnk: %.2fTF/%d" % (
        (f_iso(cl.lt(0, row.t)),) + mn(rtt) + mx(rtt) + mn(pw) + mx(pw) + mn(tp) + mx(tp) + mn(ut) + mx(ut) + mn(ck) + mx(ck) + mn(dr) + mx(dr) + mn(et) + mx(et))
    slowest = mx(rtt)[1]
    if sc.cause == "straggler" and sc.inc.r0 is not None and slowest == sc.inc.r0 and row.step >= sc.slow_onset + sc.log_every * 2:
        sc.saw_rank(node=False)
    if not hasattr(sc, "_meg_sd_prefix"):
        sc._meg_sd_prefix = "INFO:megatron.core.utils:" if sc.rng.random() < 0.5 else ""
    return sc._meg_sd_prefix + s


def render_megatron(sc):
    rng = sc.rng
    cl = sc.cl
    st = sc.st
    inc = sc.inc
    W = cl.world
    E = []
    t0 = sc.t_start
    nl = compress_nodelist(cl.hosts)
    E.append((t0, "+ export CUDA_DEVICE_MAX_CONNECTIONS=1"))
    E.append((t0, "+ export NCCL_DEBUG=%s" % ("INFO" if sc.nccl_debug else "WARN")))
    E.append((t0, "MASTER_ADDR=%s MASTER_PORT=%d NNODES=%d GPUS_PER_NODE=%d NODELIST=%s" % (cl.hosts[0], 6000, cl.n, cl.gpn, nl)))
    E.append((t0 + sec(0.5), "+ srun %s--ntasks-per-node=1 torchrun --nnodes %d --nproc_per_node %d --rdzv_id %d --rdzv_backend c10d --rdzv_endpoint %s:6000 pretrain_gpt.py --tensor-model-parallel-size 1 --pipeline-model-parallel-size 1 ..." % (
        "--kill-on-bad-exit=1 " if sc.sched == "slurm_kill" else "", cl.n, cl.gpn, sc.job_id, cl.hosts[0])))
    for n in range(cl.n):
        E += omp_warning(sc, n, t0 + sec(2 + rng.uniform(0, 3)))
        E += startup_noise(sc, n, t0 + sec(5 + rng.uniform(0, 5)), rng)
    ti = t0 + sec(sc.init_s * 0.3)
    E.append((ti, "using world size: %d, data-parallel size: %d, context-parallel size: 1, tensor-model-parallel size: 1, pipeline-model-parallel size: 1 " % (W, W)))
    E.append((ti, "------------------------ arguments ------------------------"))
    args = [("accumulate_allreduce_grads_in_fp32", "True"), ("bf16", "True"), ("distributed_timeout_minutes", str(sc.timeout_ms // 60000)),
            ("global_batch_size", str(sc.gbs)), ("hidden_size", str(sc.model[2])), ("log_interval", str(sc.log_every)),
            ("log_straggler", str(sc.meg_straggler)), ("micro_batch_size", "1"), ("num_layers", str(sc.model[1])), ("num_workers", "2"),
            ("overlap_grad_reduce", "True"), ("save_interval", str(sc.ckpt_every)), ("seq_length", str(sc.seq)),
            ("timing_log_level", "1" if sc.meg_timers else "0"), ("timing_log_option", "minmax"), ("train_iters", str(sc.train_iters)), ("world_size", str(W))]
    for k, v in args:
        E.append((ti, "  %s %s %s" % (k, "." * max(3, 48 - len(k)), v)))
    E.append((ti, "-------------------- end of arguments ---------------------"))
    E.append((ti, "setting number of micro-batches to constant %d" % (sc.gbs // W)))
    E.append((ti, "> building GPT2BPETokenizer tokenizer ..."))
    E.append((ti, " > padded vocab (size: 50257) with 47 dummy tokens (new size: 50304)"))
    E.append((ti, "> initializing torch distributed ..."))
    E += [(t, ln) for t, ln, _ in nccl_init_block(sc, list(range(W)))]
    ti2 = t0 + sec(sc.init_s * 0.6)
    E.append((ti2, "> initialized tensor model parallel with size 1"))
    E.append((ti2, "> initialized pipeline model parallel with size 1"))
    E.append((ti2, "> setting random seeds to 1234 ..."))
    E.append((ti2, "> compiling dataset index builder ..."))
    E.append((ti2, "make: Entering directory '%s/megatron/core/datasets'" % sc.workdir))
    E.append((ti2, "make: Nothing to be done for 'default'."))
    E.append((ti2, "make: Leaving directory '%s/megatron/core/datasets'" % sc.workdir))
    E.append((ti2, ">>> done with dataset index builder. Compilation time: %.3f seconds" % rng.uniform(0.03, 0.09)))
    E.append((ti2, "time to initialize megatron (seconds): %.3f" % (sc.init_s * 0.6)))
    E.append((ti2, "[after megatron is initialized] datetime: %s " % f_iso(cl.lt(0, ti2))))
    wb = python_warnings(sc, 0, rng)
    for r in rng.sample(range(W), min(W, rng.randrange(4, 12))):
        E += warn_block(ti2 + sec(rng.uniform(0, 5)), wb)
    E.append((ti2, "building GPT model ..."))
    E.append((ti2, " > number of parameters on (tensor, pipeline) model parallel rank (0, 0): %d" % sc.model[3]))
    ti3 = t0 + sec(sc.init_s * 0.8)
    E.append((ti3, "[after model, optimizer, and learning rate scheduler are built] datetime: %s " % f_iso(cl.lt(0, ti3))))
    if sc.resume_step:
        E.append((ti3, " loading checkpoint from /lustre/ckpt/%s at iteration %d" % (sc.model[0], sc.resume_step)))
        E.append((ti3, "  successfully loaded checkpoint from /lustre/ckpt/%s [ t 0, p 0 ] at iteration %d" % (sc.model[0], sc.resume_step)))
    E.append((ti3, "> building train, validation, and test datasets ..."))
    E.append((ti3, "[after dataloaders are built] datetime: %s " % f_iso(cl.lt(0, ti3 + sec(10)))))
    E.append((ti3 + sec(11), "done with setup ..."))
    E.append((ti3 + sec(11), "training ..."))
    E.append((sc.t_train0, "[before the start of training step] datetime: %s " % f_iso(cl.lt(0, sc.t_train0))))
    ck = set(sc.ckpt_steps)
    for i, row in enumerate(sc.rows):
        E.append((row.t, meg_iter_line(sc, row, W)))
        if sc.meg_timers and (len(sc.rows) < 90 or i % 2 == 0):
            for ln in meg_timers(sc, row):
                E.append((row.t + sec(0.001), ln))
        if sc.meg_straggler:
            E.append((row.t + sec(0.002), meg_straggler_line(sc, row)))
        for c in sorted(ck):
            if row.step - sc.log_every < c <= row.step:
                E.append((row.t + sec(0.01), "saving checkpoint at iteration %8d to /lustre/ckpt/%s in torch_dist format" % (sc.S(c), sc.model[0])))
                E.append((row.t + sec(sc.ckpt_s * 0.9), "  successfully saved checkpoint from iteration %8d to /lustre/ckpt/%s [ t 1/1, p 1/1 ]" % (sc.S(c), sc.model[0])))
        if sc.healthy and rng.random() < 0.03:
            E.append(healthy_scary(sc, rng.randrange(W), row.t, rng))
    # errors, agents, slurm
    for r in range(W):
        if getattr(inc, "node_fail", False) and cl.node_of(r) == inc.n0:
            continue
        E += rank_err_lines(sc, r)
    for n in range(cl.n):
        if getattr(inc, "node_fail", False) and n == inc.n0:
            continue
        E += agent_lines(sc, n, "pretrain_gpt.py")
    E += slurm_lines(sc)
    if sc.job_state == "COMPLETED":
        E.append((sc.t_last + sec(2), "[after training is done] datetime: %s " % f_iso(cl.lt(0, sc.t_last + sec(2)))))
    lines = srt(E)
    if rng.random() < 0.3:
        lines = truncate_middle(lines, rng, keep_head=rng.randrange(40, 120), keep_tail=rng.randrange(250, 500))
    sc.add("slurm-%d.out" % sc.job_id, lines)
    sacct = sacct_text(sc, sc.model[0], "torchrun")
    if sacct and rng.random() < 0.6:
        sc.add("sacct.txt", ["$ sacct -j %d --format=JobID,JobName,Partition,State,ExitCode,Elapsed,NodeList" % sc.job_id] + sacct)
    common_node_artifacts(sc, "dcgm")


def common_node_artifacts(sc, gpu_kind="dcgm", pod_of_node=None, exporter_of_node=None):
    """operator-collected per-node files: dcgm or nvidia-smi, dmesg, sar, py-spy"""
    rng = sc.rng
    cl = sc.cl
    inc = sc.inc
    n0 = inc.n0
    t_snap = None
    nodes = []
    if sc.cause == "straggler":
        t_snap = inc.t + sec(rng.uniform(0.3, 0.9) * max(60.0, (sc.t_last - inc.t).total_seconds()))
        nodes = list(range(cl.n)) if rng.random() < 0.6 else ([n0] if n0 is not None else [0])
        if rng.random() < 0.3:
            nodes = [n for n in range(cl.n) if n != n0] or nodes     # looked at the wrong nodes
    elif sc.healthy:
        if rng.random() < 0.6:
            t_snap = sc.t_train0 + sec(rng.uniform(0.3, 0.95) * (sc.t_last - sc.t_train0).total_seconds())
            nodes = rng.sample(range(cl.n), min(cl.n, rng.randrange(1, 3)))
    else:
        if inc.kind in ("stall", "silent") and inc.pyspy_t and rng.random() < 0.5:
            t_snap = inc.pyspy_t
            nodes = list(range(cl.n)) if rng.random() < 0.5 else [n0 if n0 is not None else 0]
        elif rng.random() < 0.65:
            t_snap = sc.t_collect if inc.kind != "none" else sc.t_last
            nodes = [n0] if (n0 is not None and rng.random() < 0.7) else rng.sample(range(cl.n), 1)
    if t_snap:
        for n in sorted(nodes):
            if gpu_kind == "dcgm":
                txt = render_dcgm(sc, n, t_snap, (pod_of_node or {}).get(n) if t_snap < sc.t_end_host.get(n, t_snap + sec(1)) else None,
                                  (exporter_of_node or {}).get(n))
                sc.add("dcgm-exporter/%s.metrics.txt" % cl.hosts[n], ["# curl -s localhost:9400/metrics   (%s)" % f_iso(cl.lt(n, t_snap))] + txt.rstrip("\n").split("\n"))
            else:
                sc.add("nvidia-smi-q_%s.txt" % cl.hosts[n], render_smi_q(sc, n, t_snap))
    # dmesg
    kn = [n for n in range(cl.n) if sc.inc.kern.get(n)]
    if kn and rng.random() < 0.7:
        for n in kn:
            if rng.random() < 0.85:
                t_from = min(sc.t_start - sec(3600), min(t for t, _, _ in sc.inc.kern[n]) - sec(600))
                sc.add("dmesg-%s.txt" % cl.hosts[n], render_dmesg(sc, n, t_from, sc.t_collect, pick(rng, ["T", "T", "syslog"]), noise=rng.randrange(4, 12)))
    elif rng.random() < 0.3:
        n = rng.randrange(cl.n)
        sc.add("dmesg-%s.txt" % cl.hosts[n], render_dmesg(sc, n, sc.t_start - sec(7200), sc.t_collect, "T", noise=rng.randrange(4, 10)))
    # sar (host-level anomalies)
    hn = sorted(sc.inc.host.keys())
    if hn and rng.random() < 0.75:
        for n in hn:
            a, b = sc.t_train0, sc.t_collect
            sc.add("sar-%s.txt" % cl.hosts[n], render_sar(sc, n, max(sc.t_start, min(x[0] for x in sc.inc.host[n].values()) - sec(5400)), min(b, sc.t_end_host.get(n, b) + sec(1800)), pick(rng, [300, 600]), ("u", "q", "r", "n")))
    # py-spy
    if inc.pyspy and inc.pyspy_t and rng.random() < 0.6:
        for n in range(cl.n):
            ranks = [cl.rank(n, g) for g in range(cl.gpn)]
            script = [w for w in sc.cmd.split() if w.endswith(".py")][0]
            txt = ["$ for p in $(pgrep -f '%s' | head -%d); do py-spy dump --pid $p; done" % (script, cl.gpn)]
            txt += render_pyspy_set(sc, ranks, hdr=True)
            sc.add("py-spy/%s.txt" % cl.hosts[n], txt)


# --------------------------------------------------------------------------------------------
# layout 2: HF Trainer on Kubernetes (Kubeflow PyTorchJob)
# --------------------------------------------------------------------------------------------
def setup_hf(sc):
    rng = sc.rng
    setup_common(sc, pick(rng, [2, 2, 3]), pick(rng, [8, 8, 4]), "k8s", 1800000)
    fix_batch(sc, rng.uniform(2500, 12000) if sc.cl.gpu["short"] == "H100" else rng.uniform(1200, 5000))
    sc.fw = "hf"
    sc.sched = "k8s"
    sc.workdir = "/workspace"
    sc.k8s_ns = pick(rng, ["ml-train", "research", "default", "llm"])
    sc.jobname = "%s-%s" % (pick(rng, ["llama3-8b-sft", "mistral-7b-dpo", "qwen2-7b-cpt", "gemma-7b-sft"]), hexid(rng, 4))
    sc.pods = ["%s-master-0" % sc.jobname] + ["%s-worker-%d" % (sc.jobname, i) for i in range(sc.cl.n - 1)]
    sc.cmd = "%s -u train.py --config configs/%s.yaml" % (sc.st["pybin"], sc.jobname.rsplit("-", 1)[0])
    sc.partition = "k8s"
    sc.hf_total = pick(rng, [4713, 9000, 12500, 3000])
    sc.log_every = pick(rng, [10, 10, 25])


def render_hf(sc):
    rng = sc.rng
    cl = sc.cl
    st = sc.st
    inc = sc.inc
    W = cl.world
    stamp = rng.random() < 0.3
    per_pod = {n: [] for n in range(cl.n)}
    t0 = sc.t_start
    total = max(sc.hf_total, sc.S(sc.last_step) + 50)
    if sc.job_state == "COMPLETED":
        total = sc.S(sc.last_step)
    for n in range(cl.n):
        E = per_pod[n]
        E += omp_warning(sc, n, t0 + sec(1 + rng.uniform(0, 3)))
        E += startup_noise(sc, n, t0 + sec(4), rng)
        for g in range(cl.gpn):
            tt = t0 + sec(sc.init_s * 0.3 + rng.uniform(0, 3))
            E.append((tt, "%s/transformers/training_args.py:%d: FutureWarning: `evaluation_strategy` is deprecated and will be removed in version 4.46 of 🤗 Transformers. Use `eval_strategy` instead" % (st["site"], rng.randrange(1500, 1600))))
            E.append((tt, "  warnings.warn("))
        E += [(t, ln) for t, ln, _ in nccl_init_block(sc, [cl.rank(n, g) for g in range(cl.gpn)])]
    E = per_pod[0]
    ti = sc.t_train0 - sec(5)
    lt = lambda t: f_iso_ms(cl.lt(0, t))
    nb = sc.gbs
    for ln in ["***** Running training *****", "  Num examples = {:,}".format(total * nb), "  Num Epochs = 1",
               "  Instantaneous batch size per device = %d" % max(1, nb // W // 4), "  Total train batch size (w. parallel, distributed & accumulation) = %d" % nb,
               "  Gradient Accumulation steps = 4", "  Total optimization steps = {:,}".format(total), "  Number of trainable parameters = {:,}".format(pick(rng, [8030261248, 7241732096, 7615616512]))]:
        E.append((ti, "[INFO|trainer.py:%d] %s >> %s" % (rng.randrange(2200, 2300), lt(ti), ln)))
    if sc.resume_step:
        E.append((ti, "[INFO|trainer.py:2296] %s >>   Continuing training from checkpoint, will skip to saved global_step" % lt(ti)))
    rows = sc.rows
    prev_t = sc.t_train0
    jsonl = []
    el0 = sc.t_train0
    buf = []
    for i, row in enumerate(rows):
        S = sc.S(row.step)
        rate = row.step_ms / 1000.0
        el = (row.t - el0).total_seconds()
        buf.append(tqdm_line("", S, total, el, rate))
        if len(buf) >= rng.randrange(2, 6) or i == len(rows) - 1:
            E.append((row.t, "\r".join(buf)))
            buf = []
        E.append((row.t + sec(0.01), "{'loss': %s, 'grad_norm': %s, 'learning_rate': %s, 'epoch': %s}" % (round(row.loss, 4), round(row.gnorm, 4), "%.4e" % row.lr if row.lr < 1e-4 else round(row.lr, 6), round(S / float(total), 2))))
        jsonl.append(json.dumps({"step": S, "loss": round(row.loss, 4), "grad_norm": round(row.gnorm, 4), "learning_rate": float("%.6g" % row.lr),
                                 "epoch": round(S / float(total), 4), "step_time_s": round(rate, 4), "tokens_per_sec": int(sc.gbs * sc.seq / rate),
                                 "ts": f_isoT(cl.lt(0, row.t)) + "Z"}))
        for c in sc.ckpt_steps:
            if row.step - sc.log_every < c <= row.step:
                E.append((row.t + sec(0.02), "[INFO|trainer.py:3705] %s >> Saving model checkpoint to /mnt/output/checkpoint-%d" % (lt(row.t), sc.S(c))))
                E.append((row.t + sec(sc.ckpt_s * 0.8), "[INFO|configuration_utils.py:472] %s >> Configuration saved in /mnt/output/checkpoint-%d/config.json" % (lt(row.t + sec(sc.ckpt_s * 0.8)), sc.S(c))))
        if sc.healthy and rng.random() < 0.03:
            E.append(healthy_scary(sc, rng.randrange(cl.gpn), row.t, rng))
    if sc.job_state == "COMPLETED":
        tr = (sc.t_last - sc.t_train0).total_seconds()
        E.append((sc.t_last + sec(1), "[INFO|trainer.py:2591] %s >> " % lt(sc.t_last)))
        E.append((sc.t_last + sec(1), ""))
        E.append((sc.t_last + sec(1), "Training completed. Do not forget to share your model on huggingface.co/models =)"))
        E.append((sc.t_last + sec(1), ""))
        E.append((sc.t_last + sec(1), "{'train_runtime': %.4f, 'train_samples_per_second': %.3f, 'train_steps_per_second': %.3f, 'train_loss': %s, 'epoch': 1.0}" % (tr, total * nb / tr, total / tr, round(sum(r.loss for r in rows) / len(rows), 4))))
    for r in range(W):
        if getattr(inc, "pod_killed", None) == cl.node_of(r):
            continue
        per_pod[cl.node_of(r)] += rank_err_lines(sc, r)
    for n in range(cl.n):
        if getattr(inc, "pod_killed", None) == n:
            continue
        per_pod[n] += agent_lines(sc, n, "train.py")
    for n in range(cl.n):
        lines = srt(per_pod[n])
        if stamp:
            lines = ["%sZ %s" % (f_isoT(cl.lt(n, sc.t_start)) + ".%09d" % rng.randrange(10 ** 9), ln) if i < 3 else ln for i, ln in enumerate(lines)]
        if rng.random() < 0.2 and n == 0:
            lines = truncate_middle(lines, rng, keep_head=30, keep_tail=300)
        sc.add("logs/%s.log" % sc.pods[n], lines)
    if rng.random() < 0.7:
        sc.add("metrics.jsonl", jsonl)
    # k8s objects
    k8s_objects(sc)
    pods = {n: sc.pods[n] for n in range(cl.n)}
    exp = {n: "nvidia-dcgm-exporter-%s" % hexid(rng, 5) for n in range(cl.n)}
    common_node_artifacts(sc, "dcgm", pods, exp)


def k8s_objects(sc):
    rng = sc.rng
    cl = sc.cl
    inc = sc.inc
    ev = []
    desc = []
    fmt_age = lambda s: "%dm" % max(1, int(s // 60)) if s < 7200 else "%dh" % int(s // 3600)
    tc = sc.t_collect
    if sc.job_state == "COMPLETED" or (inc.kind in ("none", "slow") and sc.job_state == "RUNNING"):
        if rng.random() < 0.5:
            ev.append("LAST SEEN   TYPE      REASON              OBJECT                               MESSAGE")
            ev.append("%-11s Normal    SuccessfulCreatePod pytorchjob/%s   Created pod: %s" % (fmt_age((tc - sc.t_start).total_seconds()), sc.jobname, sc.pods[0]))
            if sc.job_state == "COMPLETED":
                ev.append("%-11s Normal    PyTorchJobSucceeded pytorchjob/%s   PyTorchJob %s/%s successfully completed." % (fmt_age((tc - sc.t_job_end).total_seconds()), sc.jobname, sc.k8s_ns, sc.jobname))
            sc.add("kubectl-get-events.txt", ev)
        return
    ev.append("LAST SEEN   TYPE      REASON                 OBJECT                                 MESSAGE")
    failed_nodes = [n for n in range(cl.n) if sc.agents[n]["kind"] == "failed"]
    if inc.variant == "k8s_evict":
        n0 = inc.n0
        age = fmt_age((tc - inc.t).total_seconds())
        ev.append("%-11s Normal    NodeNotSchedulable     node/%s   Node %s status is now: NodeNotSchedulable" % (age, cl.hosts[n0], cl.hosts[n0]))
        ev.append("%-11s Normal    Killing                pod/%s   Stopping container pytorch" % (age, sc.pods[n0]))
        ev.append("%-11s Normal    TaintManagerEviction   pod/%s   Marking for deletion Pod %s/%s" % (age, sc.pods[n0], sc.k8s_ns, sc.pods[n0]))
        sc.saw_node()
    elif inc.variant == "k8s_preempt_all":
        age = fmt_age((tc - inc.t).total_seconds())
        other = "%s/%s-%s" % (pick(rng, ["prod-inference", "ml-prod"]), pick(rng, ["vllm-serve", "batch-embed"]), hexid(rng, 5))
        for n in range(cl.n):
            ev.append("%-11s Normal    Preempted              pod/%s   Preempted by %s on node %s" % (age, sc.pods[n], other, cl.hosts[n]))
            ev.append("%-11s Normal    Killing                pod/%s   Stopping container pytorch" % (age, sc.pods[n]))
    elif getattr(inc, "pod_killed", None) is not None:
        n0 = inc.pod_killed
        ev.append("%-11s Warning   OOMKilling             node/%s   Memory cgroup out of memory: Killed process %d (python3) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB" % (
            fmt_age((tc - inc.t).total_seconds()), cl.hosts[n0], cl.pid(cl.rank(n0, 0)), rng.randrange(10 ** 8, 4 * 10 ** 8), rng.randrange(10 ** 8, 2 * 10 ** 8), 100000, 5000000) if rng.random() < 0.5 else
            "%-11s Normal    Killing                pod/%s   Stopping container pytorch" % (fmt_age((tc - inc.t).total_seconds()), sc.pods[(n0 + 1) % cl.n]))
        sc.saw_node()
    if failed_nodes or getattr(inc, "pod_killed", None) is not None:
        fn = failed_nodes[0] if failed_nodes else inc.pod_killed
        ev.append("%-11s Normal    ExitedWithCode         pytorchjob/%s   Pod: %s.%s exited with code %d" % (fmt_age((tc - sc.t_job_end).total_seconds()), sc.jobname, sc.k8s_ns, sc.pods[fn], 137 if getattr(inc, "pod_killed", None) is not None else 1))
        ev.append("%-11s Warning   PyTorchJobFailed       pytorchjob/%s   PyTorchJob %s/%s is failed because 1 %s replica(s) failed." % (fmt_age((tc - sc.t_job_end).total_seconds()), sc.jobname, sc.k8s_ns, sc.jobname, "Master" if fn == 0 else "Worker"))
        for n in range(cl.n):
            if n != fn and sc.agents[n]["kind"] == "signal" and not (inc.variant == "k8s_evict" and n == inc.n0):
                ev.append("%-11s Normal    Killing                pod/%s   Stopping container pytorch" % (fmt_age((tc - sc.t_job_end).total_seconds()), sc.pods[n]))
        # describe the failed pod
        a = sc.agents.get(fn, {})
        killed = getattr(inc, "pod_killed", None) is not None
        d = ["Name:             %s" % sc.pods[fn], "Namespace:        %s" % sc.k8s_ns, "Priority:         0",
             "Node:             %s/%s" % (cl.hosts[fn], cl.ips[fn]),
             "Start Time:       %s" % sc.t_start.strftime("%a, %d %b %Y %H:%M:%S +0000"),
             "Labels:           training.kubeflow.org/job-name=%s" % sc.jobname,
             "                  training.kubeflow.org/replica-index=%d" % (0 if fn == 0 else fn - 1),
             "                  training.kubeflow.org/replica-type=%s" % ("master" if fn == 0 else "worker"),
             "Status:           Failed", "IP:               %s" % cl.ips[fn], "Containers:", "  pytorch:",
             "    Container ID:  containerd://%s" % hexid(rng, 64), "    Image:         %s" % pick(rng, ["nvcr.io/nvidia/pytorch:24.05-py3", "ghcr.io/corp/llm-train:2024.06.1", "123456789012.dkr.ecr.us-east-1.amazonaws.com/train:v42"]),
             "    State:          Terminated", "      Reason:       %s" % ("OOMKilled" if killed else "Error"),
             "      Exit Code:    %d" % (137 if killed else 1),
             "      Started:      %s" % sc.t_start.strftime("%a, %d %b %Y %H:%M:%S +0000"),
             "      Finished:     %s" % (inc.t if killed else a.get("t_exit", inc.t)).strftime("%a, %d %b %Y %H:%M:%S +0000"),
             "    Ready:          False", "    Restart Count:  0", "    Limits:", "      memory:          %dGi" % pick(rng, [900, 1200, 1600]),
             "      nvidia.com/gpu:  %d" % cl.gpn, "      rdma/ib:         %d" % min(8, cl.gpn), "    Environment:",
             "      NCCL_DEBUG:                %s" % ("INFO" if sc.nccl_debug else "WARN"), "      PYTHONUNBUFFERED:          1",
             "Events:", "  Type    Reason   Age   From     Message", "  ----    ------   ----  ----     -------",
             "  Normal  Started  %s   kubelet  Started container pytorch" % fmt_age((tc - sc.t_start).total_seconds())]
        if killed:
            sc.saw_node()
        sc.add("kubectl-describe-pod-%s.txt" % sc.pods[fn], d)
    sc.add("kubectl-get-events.txt", ev)


# --------------------------------------------------------------------------------------------
# layout 3: PyTorch Lightning under srun + W&B system metrics
# --------------------------------------------------------------------------------------------
def setup_lightning(sc):
    rng = sc.rng
    setup_common(sc, pick(rng, [2, 2, 3]), pick(rng, [4, 8, 8]), "slurm", 1800000)
    fix_batch(sc, rng.uniform(2500, 12000) if sc.cl.gpu["short"] == "H100" else rng.uniform(1200, 5000))
    sc.fw = "lightning"
    sc.sched = "slurm_kill" if rng.random() < 0.6 else "slurm_nokill"
    sc.no_agent = True
    sc.workdir = "/home/%s/projects/%s" % (sc.st.get("user", "mlee"), pick(rng, ["vit-pretrain", "audio-lm", "diffusion-xl", "protein-lm"]))
    sc.cmd = "%s train.py trainer.num_nodes=%d trainer.devices=%d" % (sc.st["pybin"], sc.cl.n, sc.cl.gpn)
    sc.srun_label = rng.random() < 0.5
    sc.partition = pick(rng, ["gpu", "a100", "h100", "long"])
    sc.wandb_pcie = rng.random() < 0.5
    sc.lt_total = pick(rng, [5000, 10000, 20000, 3000])
    sc.log_every = pick(rng, [10, 20, 50])


def render_lightning(sc):
    rng = sc.rng
    cl = sc.cl
    st = sc.st
    inc = sc.inc
    W = cl.world
    E = []
    t0 = sc.t_start
    lab = (lambda r, ln: ("%*d: " % (len(str(W - 1)), r)) + ln) if sc.srun_label else (lambda r, ln: ln)
    ti = t0 + sec(sc.init_s * 0.2)
    E.append((ti, lab(0, "Using bfloat16 Automatic Mixed Precision (AMP)")))
    E.append((ti, lab(0, "GPU available: True (cuda), used: True")))
    E.append((ti, lab(0, "TPU available: False, using: 0 TPU cores")))
    E.append((ti, lab(0, "HPU available: False, using: 0 HPUs")))
    for r in range(W):
        E.append((ti + sec(rng.uniform(0.5, 6)), lab(r, "Initializing distributed: GLOBAL_RANK: %d, MEMBER: %d/%d" % (r, r + 1, W))))
    ti2 = t0 + sec(sc.init_s * 0.5)
    E.append((ti2, lab(0, "-" * 100)))
    E.append((ti2, lab(0, "distributed_backend=nccl")))
    E.append((ti2, lab(0, "All distributed processes registered. Starting with %d processes" % W)))
    E.append((ti2, lab(0, "-" * 100)))
    E.append((ti2, lab(0, "")))
    for (t, ln, r) in nccl_init_block(sc, list(range(W))):
        E.append((t, lab(r, ln)))
    for r in range(W):
        E.append((ti2 + sec(rng.uniform(1, 4)), lab(r, "LOCAL_RANK: %d - CUDA_VISIBLE_DEVICES: [%s]" % (cl.local_of(r), ",".join(str(g) for g in range(cl.gpn))))))
    wb = python_warnings(sc, 0, rng)
    for r in rng.sample(range(W), min(W, 6)):
        E += warn_block(ti2 + sec(rng.uniform(2, 8)), wb, lambda ln, r=r: lab(r, ln))
    ti3 = t0 + sec(sc.init_s * 0.8)
    params = pick(rng, ["86.6 M", "304 M", "1.3 B", "632 M"])
    for ln in ["", "  | Name      | Type               | Params | Mode ", "---------------------------------------------------------",
               "0 | model     | %-18s | %-6s | train" % (pick(rng, ["VisionTransformer", "GPT", "UNet2DConditionModel", "ESMModel"]), params),
               "1 | criterion | CrossEntropyLoss   | 0      | train", "---------------------------------------------------------",
               "%s    Trainable params" % params, "0         Non-trainable params", "%s    Total params" % params, ""]:
        E.append((ti3, lab(0, ln)))
    total = max(sc.lt_total, sc.last_step + 100)
    ep = 0
    for i, row in enumerate(sc.rows):
        el = (row.t - sc.t_train0).total_seconds()
        E.append((row.t, lab(0, tqdm_line("Epoch %d: " % ep, row.step, total, el, row.step_ms / 1000.0, ", v_num=%s, train_loss=%.3f" % (sc.wandb_id[:4], row.loss)))))
        if sc.eval_every and row.step % sc.eval_every < sc.log_every and i > 0:
            E.append((row.t + sec(1), lab(0, "Validation DataLoader 0: 100%%|██████████| %d/%d [00:%02d<00:00, %.2fit/s]" % (200, 200, int(sc.eval_s) % 60, 200 / sc.eval_s))))
        if sc.healthy and rng.random() < 0.03:
            r = rng.randrange(W)
            E.append((row.t, lab(r, healthy_scary(sc, r, row.t, rng)[1])))
    if sc.job_state == "COMPLETED":
        E.append((sc.t_last + sec(1), lab(0, "`Trainer.fit` stopped: `max_steps=%d` reached." % sc.last_step)))
    for r in range(W):
        for t, ln in rank_err_lines(sc, r):
            E.append((t, lab(r, ln)))
    if inc.kind in ("kill_all", "silent") or sc.job_state in ("TIMEOUT",):
        # Lightning's SLURM signal handling prints on SIGTERM
        for r in range(W):
            if sc.fate.get(r, [None, 0])[1] == -15 and rng.random() < 0.25:
                E.append((sc.fate[r][0] - sec(0.2), lab(r, "[rank: %d] Received SIGTERM: 15" % r)))
    E += slurm_lines(sc, task_of_rank=True)
    lines = srt(E)
    if rng.random() < 0.25:
        lines = truncate_middle(lines, rng, keep_head=60, keep_tail=rng.randrange(150, 400))
    sc.add("slurm-%d.out" % sc.job_id, lines)
    # W&B system metrics, one run per node (group)
    t_end = sc.t_end_host.get(0, sc.t_last) if sc.job_state != "RUNNING" else sc.t_last
    t_end = min(t_end + sec(300), sc.t_collect)
    t_from = max(sc.t_start + sec(30), t_end - sec(rng.uniform(60, 110) * 60))
    if inc.t and inc.kind in ("slow",) and inc.t > t_from + sec(600):
        pass
    if inc.t and inc.t < t_from + sec(600) and inc.kind != "none":
        t_from = max(sc.t_start + sec(30), inc.t - sec(1800))
    nodes = list(range(cl.n)) if rng.random() < 0.7 else [0]
    for n in nodes:
        per = 60 if (t_end - t_from).total_seconds() > 3600 else 30
        sc.add("wandb/%s-%s-system-metrics.csv" % (sc.wandb_id, cl.hosts[n]), render_wandb_csv(sc, n, t_from, t_end, per))
    # nvidia-smi -q taken afterwards by the user
    common_node_artifacts(sc, "smi")


def wandb_id(rng):
    return "".join(pick(rng, "abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(8))


# --------------------------------------------------------------------------------------------
# layout 4: custom loop, torchrun --log-dir (per-rank files) under Slurm
# --------------------------------------------------------------------------------------------
def setup_torchrun_logdir(sc):
    rng = sc.rng
    n, g = pick(rng, [(2, 8), (2, 4), (4, 4), (2, 8)])
    setup_common(sc, n, g, "generic" if rng.random() < 0.4 else "slurm", pick(rng, [600000, 900000, 1800000]))
    fix_batch(sc, rng.uniform(2500, 12000) if sc.cl.gpu["short"] == "H100" else rng.uniform(1200, 5000))
    sc.fw = "custom"
    sc.sched = "slurm_kill" if rng.random() < 0.5 else "slurm_nokill"
    sc.workdir = "/home/%s/code/%s" % (sc.st.get("user", "ywang"), pick(rng, ["llm-pretrain", "moe-exp", "seq2seq"]))
    sc.cmd = "%s -u train.py --config configs/base.yaml" % sc.st["pybin"]
    sc.record = rng.random() < 0.6
    sc.partition = pick(rng, ["gpu", "debug", "normal"])
    sc.rdzv_dir = ["%s_%s" % (pick(rng, ["none", str(sc.job_id)]), "".join(pick(rng, "abcdefghijklmnopqrstuvwxyz0123456789_") for _ in range(8))) for _ in range(n)]
    sc.elastic_dir = lambda node: "/tmp/torchelastic_%s" % hexid(random.Random("%s|ed|%d" % (sc.rng_tag, node)), 8)


def custom_step_line(sc, row, r, per_rank=True):
    cl = sc.cl
    n = cl.node_of(r)
    lt = cl.lt(n, row.t)
    S = sc.S(row.step)
    toks = sc.gbs * sc.seq / (row.step_ms / 1000.0) / (cl.world if per_rank else 1)
    loss = row.loss + (sc.rng.gauss(0, 0.04) if per_rank else 0)
    return "[%s] step %d | loss %.4f | lr %.2e | tokens/s %s | data_ms %.1f | compute_ms %.1f | step_ms %.1f | rank %d" % (
        f_iso(lt), S, loss, row.lr, "{:,}".format(int(toks)), row.data[r], row.comp[r], row.step_ms, r)


def render_torchrun_logdir(sc):
    rng = sc.rng
    cl = sc.cl
    st = sc.st
    inc = sc.inc
    W = cl.world
    # console: agent lines only
    E = []
    t0 = sc.t_start
    E.append((t0, "Job %d on %s; MASTER=%s:29400" % (sc.job_id, compress_nodelist(cl.hosts), cl.hosts[0])))
    for n in range(cl.n):
        E += omp_warning(sc, n, t0 + sec(2 + rng.uniform(0, 2)))
        E += startup_noise(sc, n, t0 + sec(4), rng)
    for n in range(cl.n):
        if getattr(inc, "node_fail", False) and n == inc.n0:
            continue
        E += agent_lines(sc, n, "train.py")
    E += slurm_lines(sc)
    sc.add("slurm-%d.out" % sc.job_id, srt(E))
    # per-rank files
    show_nodes = list(range(cl.n))
    if rng.random() < 0.25 and inc.n0 is not None and cl.n > 2:
        show_nodes = sorted(set([0, inc.n0]))
    for n in show_nodes:
        for g in range(cl.gpn):
            r = cl.rank(n, g)
            base = "torchrun_logs/%s/%s/attempt_0/%d/" % (cl.hosts[n], sc.rdzv_dir[n], g)
            out = []
            out.append((sc.t_start + sec(sc.init_s * 0.7), "[%s] rank %d/%d local_rank %d host %s device cuda:%d pid %d" % (f_iso(cl.lt(n, sc.t_start + sec(sc.init_s * 0.7))), r, W, g, cl.hosts[n], g, cl.pid(r))))
            sc.mapping_known = True
            for row in sc.rows:
                out.append((row.t, custom_step_line(sc, row, r)))
                if row.step >= getattr(sc, "slow_onset", 10 ** 9) + sc.log_every * 2 and sc.cause == "straggler":
                    if inc.r0 == r:
                        sc.saw_rank()
                    if inc.r0 is None and n == inc.n0 and inc.variant == "noisy":
                        sc.saw_node()
            if sc.job_state == "COMPLETED":
                out.append((sc.t_last + sec(1), "[%s] training finished, rank %d" % (f_iso(cl.lt(n, sc.t_last)), r)))
            errs = warn_block(sc.t_start + sec(sc.init_s * 0.6 + rng.uniform(0, 3)), python_warnings(sc, r, random.Random("%s|w" % sc.rng_tag)))
            errs += [(t, ln) for t, ln, _ in nccl_init_block(sc, [r])]
            errs += rank_err_lines(sc, r)
            if sc.healthy and rng.random() < 0.15:
                errs.append(healthy_scary(sc, r, sc.t_train0 + sec(rng.uniform(10, 600)), rng))
            sc.add(base + "stdout.log", srt(out))
            sc.add(base + "stderr.log", srt(errs) or [""])
            if sc.record and r in inc.tb_file and sc.fate.get(r, [0, 0, ""])[1] == 1:
                tb = inc.tb_file[r]
                sc.add(base + "error.json", json.dumps({"message": {"message": tb[-1].split("\n")[0], "extraInfo": {"py_callstack": "\n".join(tb), "timestamp": str(int(epoch(sc.fate[r][0])))}}}, indent=None))
    # py-spy
    if inc.pyspy and inc.pyspy_t and rng.random() < 0.65:
        for n in range(cl.n):
            for g in range(cl.gpn):
                r = cl.rank(n, g)
                if rng.random() < 0.85 or r == inc.r0:
                    sc.add("pyspy/%s_rank%d.txt" % (cl.hosts[n], r), render_pyspy_set(sc, [r], hdr=False))
    # per-node io / host stats
    if (getattr(inc, "nfs_bad", None) or getattr(inc, "nvme", None)) and rng.random() < 0.7:
        n = inc.n0
        t_a = inc.t - sec(900)
        t_b = min(sc.t_collect, inc.t + sec(900))
        if getattr(inc, "nfs_bad", None):
            sc.add("nfsiostat-%s.txt" % cl.hosts[n], ["$ nfsiostat 60"] + render_nfsiostat(sc, n, t_a, t_b, 60))
        else:
            sc.add("iostat-%s.txt" % cl.hosts[n], ["$ iostat -x -t 60"] + render_iostat(sc, n, t_a, t_b, 60))
    common_host_files(sc)


def common_host_files(sc):
    rng = sc.rng
    cl = sc.cl
    inc = sc.inc
    if inc.host and rng.random() < 0.7:
        for n in sorted(inc.host.keys()):
            a = min(x[0] for x in inc.host[n].values())
            sc.add("sar-%s.txt" % cl.hosts[n], render_sar(sc, n, max(sc.t_start, a - sec(3600)), min(sc.t_collect, sc.t_end_host.get(n, sc.t_collect) + sec(1200)), 600, ("u", "q", "r", "n")))
    kn = [n for n in range(cl.n) if inc.kern.get(n)]
    for n in kn:
        if rng.random() < 0.6:
            t_from = min(sc.t_start - sec(600), min(t for t, _, _ in inc.kern[n]) - sec(60))
            sc.add("dmesg-%s.txt" % cl.hosts[n], render_dmesg(sc, n, t_from, sc.t_collect, pick(rng, ["T", "raw"]), noise=rng.randrange(3, 9)))
    if sc.cause == "straggler" and inc.variant in ("thermal", "power_brake", "pcie", "power_cap") and rng.random() < 0.6:
        n = inc.n0
        sc.add("nvidia-smi-q_%s.txt" % cl.hosts[n], render_smi_q(sc, n, sc.t_last - sec(rng.uniform(10, 300))))
    if sc.cause == "straggler" and inc.variant == "slow_nic" and rng.random() < 0.6:
        sc.add("ibstat-%s.txt" % cl.hosts[inc.n0], render_ibstat(sc, inc.n0))


# --------------------------------------------------------------------------------------------
# layout 5: operator incident bundle (metrics first)
# --------------------------------------------------------------------------------------------
def setup_ops(sc):
    rng = sc.rng
    setup_common(sc, pick(rng, [3, 4, 4]), 8, "slurm", pick(rng, [600000, 1200000, 1800000]))
    fix_batch(sc, rng.uniform(2500, 12000) if sc.cl.gpu["short"] == "H100" else rng.uniform(1200, 5000))
    sc.fw = "custom"
    sc.sched = "slurm_kill"
    sc.workdir = "/shared/%s/train" % pick(rng, ["team-llm", "speech", "rec"])
    sc.cmd = "%s -u train.py --cfg cfg/prod.yaml" % sc.st["pybin"]
    sc.partition = pick(rng, ["prod", "gpu-long", "h100"])


def ticket_text(sc):
    rng = sc.rng
    inc = sc.inc
    cl = sc.cl
    jid = sc.job_id
    nl = compress_nodelist(cl.hosts)
    if sc.healthy:
        state = "It finished fine" if sc.job_state == "COMPLETED" else "It is still training"
        v = inc.variant
        if v == "nfs_blip":
            msg = "I see an NFS 'not responding' message in the kernel log and one slow logging interval around then."
        elif v in ("sbe", "xid63"):
            msg = "Our node health dashboard flagged ECC/row-remap counters on one of the GPUs."
        elif v == "hot_gpu":
            msg = "One GPU runs noticeably hotter than the others on the dashboard."
        else:
            msg = "Step time spikes every few hundred steps and the GPU utilization panel has dips."
        return ["Subject: job %d - is something wrong?" % jid, "",
                "Hi, job %d on %s: %s %s. Is there anything wrong with the nodes or can I ignore it?" % (jid, nl, msg, state)]
    if inc.kind == "slow":
        return ["Subject: job %d slower than usual" % jid, "",
                "Job %d (%d nodes, %s) has been noticeably slower since around %s UTC. Loss looks fine and there are no errors in the log. Same config ran faster last week. Metrics export and node files attached." % (jid, cl.n, nl, f_hms(inc.t))]
    if sc.job_state in ("PREEMPTED", "TIMEOUT") and inc.kind == "kill_all":
        return ["Subject: job %d killed" % jid, "", "Job %d was killed at %s, I did not change anything. Was it the cluster?" % (jid, f_hms(sc.t_kill))]
    return ["Subject: job %d failed" % jid, "",
            "Job %d on %s stopped at step ~%d. Log tail and what I could collect from the nodes are attached. Can someone take a look?" % (jid, nl, sc.S(sc.last_step))]


def render_ops(sc):
    rng = sc.rng
    cl = sc.cl
    st = sc.st
    inc = sc.inc
    W = cl.world
    sc.add("ticket.txt", ticket_text(sc))
    E = []
    t0 = sc.t_start
    for n in range(cl.n):
        E += omp_warning(sc, n, t0 + sec(2))
    for r in range(W):
        tt = sc.t_start + sec(sc.init_s * 0.7 + rng.uniform(0, 2))
        E.append((tt, "[%s] rank %d/%d local_rank %d host %s device cuda:%d pid %d" % (f_iso(cl.lt(cl.node_of(r), tt)), r, W, cl.local_of(r), cl.hosts[cl.node_of(r)], cl.local_of(r), cl.pid(r))))
    E += [(t, ln) for t, ln, _ in nccl_init_block(sc, list(range(W)))] if rng.random() < 0.5 else []
    for row in sc.rows:
        E.append((row.t, custom_step_line(sc, row, 0, per_rank=False).replace(" | rank 0", "")))
        for c in sc.ckpt_steps:
            if row.step - sc.log_every < c <= row.step:
                E.append((row.t + sec(sc.ckpt_s * 0.9), "[%s] saved checkpoint step %d to /shared/ckpt/%d (%.1fs)" % (f_iso(cl.lt(0, row.t + sec(sc.ckpt_s))), sc.S(c), sc.job_id, sc.ckpt_s)))
    for r in range(W):
        E += rank_err_lines(sc, r)
    for n in range(cl.n):
        E += agent_lines(sc, n, "train.py")
    E += slurm_lines(sc)
    if sc.job_state == "COMPLETED":
        E.append((sc.t_last + sec(2), "[%s] training finished: %d steps, final loss %.4f" % (f_iso(cl.lt(0, sc.t_last + sec(2))), sc.S(sc.last_step), sc.rows[-1].loss)))
    lines = srt(E)
    had_map = sc.mapping_known
    sc.mapping_known = False
    if len(lines) > 500 and rng.random() < 0.7:
        cut = rng.randrange(300, 500)
        # a tail cut drops the startup mapping lines unless they were earlier than the cut
        head_map = any(" rank %d/%d local_rank" % (0, W) in ln for ln in lines[-cut:])
        lines = lines[-cut:]
        sc.mapping_known = head_map
        name = "job-%d.log.tail" % sc.job_id
    else:
        sc.mapping_known = True
        name = "job-%d.log" % sc.job_id
    if had_map and any("Init COMPLETE" in ln for ln in lines):
        sc.mapping_known = True
    sc.add(name, lines)
    # metrics window
    t_end = min(sc.t_collect, (sc.t_job_end or sc.t_last) + sec(600))
    t_anchor = inc.t or sc.t_last
    t_from = max(sc.t_start, t_anchor - sec(rng.uniform(60, 120) * 60))
    per = 60 if (t_end - t_from).total_seconds() > 5400 else 30
    for m, fname in [("util", "DCGM_FI_DEV_GPU_UTIL.csv"), ("sm", "DCGM_FI_DEV_SM_CLOCK.csv"), ("power", "DCGM_FI_DEV_POWER_USAGE.csv")] + ([("temp", "DCGM_FI_DEV_GPU_TEMP.csv")] if rng.random() < 0.5 else []) + ([("thr", "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS.csv")] if rng.random() < 0.4 else []):
        sc.add("grafana/" + fname, render_grafana(sc, m, t_from, t_end, per))
    sc.add("grafana/node_cpu_busy_pct.csv", render_grafana_host(sc, "cpu", t_from, t_end, per))
    sc.add("grafana/node_memory_used_pct.csv", render_grafana_host(sc, "mem", t_from, t_end, per))
    if rng.random() < 0.5:
        sc.add("grafana/node_load1.csv", render_grafana_host(sc, "load", t_from, t_end, per))
    if rng.random() < 0.35:
        # per-rank compute time pushed by the training script
        hdr = ["Time"] + ["rank%d" % r for r in range(W)]
        out = [",".join(hdr)]
        for row in sc.rows:
            if row.t >= t_from:
                out.append(",".join([f_iso(row.t)] + ["%.1f" % row.comp[r] for r in range(W)]))
                if sc.cause == "straggler" and row.step >= getattr(sc, "slow_onset", 10 ** 9) + sc.log_every * 2:
                    if inc.r0 is not None:
                        sc.saw_rank()
                    elif inc.variant == "noisy":
                        sc.saw_node()
        sc.add("grafana/train_compute_ms_by_rank.csv", out)
    suspect = inc.n0 if inc.n0 is not None else rng.randrange(cl.n)
    t_snap = sc.t_collect if inc.kind not in ("slow", "none") else sc.t_last - sec(rng.uniform(30, 600))
    if rng.random() < 0.7:
        sc.add("dcgm-%s.prom" % cl.hosts[suspect], render_dcgm(sc, suspect, t_snap).rstrip("\n").split("\n"))
    if rng.random() < 0.6:
        sc.add("nvidia-smi-q-%s.txt" % cl.hosts[suspect], render_smi_q(sc, suspect, t_snap))
    for n in range(cl.n):
        if rng.random() < 0.8 or n == suspect:
            sc.add("journal-k-%s.txt" % cl.hosts[n], ["-- Logs begin at %s. --" % sc.t_start.strftime("%a %Y-%m-%d %H:%M:%S UTC")] + render_dmesg(sc, n, t_from - sec(1800), t_end, "syslog", noise=rng.randrange(3, 9)))
    for n in sorted(set([suspect] + list(inc.host.keys()))):
        sc.add("sar-%s.txt" % cl.hosts[n], render_sar(sc, n, max(sc.t_start, t_from), t_end, pick(rng, [300, 600]), ("u", "q", "r", "n", "e") if sc.cause in ("network", "straggler") else ("u", "q", "r", "n")))
    if getattr(inc, "nfs_bad", None) or (sc.healthy and inc.variant == "nfs_blip") or rng.random() < 0.15:
        n = inc.n0 if inc.n0 is not None else suspect
        sc.add("nfsiostat-%s.txt" % cl.hosts[n], ["$ nfsiostat 300 /mnt/datasets"] + render_nfsiostat(sc, n, max(t_from, t_end - sec(3600)), t_end, 300))
    if getattr(inc, "nvme", None):
        sc.add("iostat-%s.txt" % cl.hosts[inc.n0], ["$ iostat -x -t 120"] + render_iostat(sc, inc.n0, max(t_from, inc.t - sec(1200)), min(t_end, inc.t + sec(1200)), 120))
    if sc.cause in ("network",) or (sc.cause == "straggler" and inc.variant == "slow_nic"):
        if rng.random() < 0.7:
            sc.add("ibstat-%s.txt" % cl.hosts[suspect], render_ibstat(sc, suspect))
    if sc.cause == "straggler" and inc.variant == "pcie":
        n, g, gen, wid = sc.pcie_degraded
        cap = {5: "32GT/s", 4: "16GT/s"}[cl.gpu["pcie_gen"]]
        cur = {1: "2.5GT/s", 2: "5GT/s", 3: "8GT/s"}[gen]
        out = []
        for gg in range(cl.gpn):
            out.append("%s:00.0 3D controller: NVIDIA Corporation Device %s (rev a1)" % (cl.bus[gg], "2330" if cl.gpu["short"] == "H100" else "20b2"))
            out.append("\t\tLnkCap:\tPort #0, Speed %s, Width x16, ASPM not supported" % cap)
            if gg == g:
                out.append("\t\tLnkSta:\tSpeed %s (downgraded), Width x%d%s" % (cur, wid, " (downgraded)" if wid < 16 else ""))
            else:
                out.append("\t\tLnkSta:\tSpeed %s, Width x16" % cap)
        if n == suspect:
            sc.saw_node()
            sc.metric_rank_pending = True
        sc.add("lspci-%s.txt" % cl.hosts[n], ["$ sudo lspci -vv -d 10de: | grep -E '3D controller|LnkCap:|LnkSta:'"] + out)
    if inc.pyspy and inc.pyspy_t and rng.random() < 0.5:
        n = inc.n0 if inc.n0 is not None else 0
        sc.add("py-spy-%s.txt" % cl.hosts[n], render_pyspy_set(sc, [cl.rank(n, g) for g in range(cl.gpn)], hdr=True))


# --------------------------------------------------------------------------------------------
# layout 6: DeepSpeed launcher over pdsh
# --------------------------------------------------------------------------------------------
def setup_deepspeed(sc):
    rng = sc.rng
    setup_common(sc, pick(rng, [2, 2, 3]), 8, "generic", 1800000)
    fix_batch(sc, rng.uniform(2500, 12000) if sc.cl.gpu["short"] == "H100" else rng.uniform(1200, 5000))
    sc.fw = "deepspeed"
    sc.sched = "pdsh"
    sc.workdir = "/workspace/%s" % pick(rng, ["ds-train", "llm-sft", "bloom-ft"])
    sc.cmd = "%s -u train.py --local_rank=0 --deepspeed --deepspeed_config ds_config.json" % sc.st["pybin"]
    sc.partition = "none"
    sc.ds_per_rank = rng.random() < 0.5
    sc.ds_breakdown = rng.random() < 0.5
    sc.log_every = pick(rng, [10, 20, 50])


def render_deepspeed(sc):
    rng = sc.rng
    cl = sc.cl
    st = sc.st
    inc = sc.inc
    W = cl.world
    E = []
    t0 = sc.t_start
    h = cl.hosts
    dsl = lambda t, n, lvl, where, msg: "%s: [%s] [%s] [%s] %s" % (h[n], f_iso_ms(cl.lt(n, t)), lvl, where, msg)
    E.append((t0, "[%s] [INFO] [real_accelerator.py:203:get_accelerator] Setting ds_accelerator to cuda (auto detect)" % f_iso_ms(cl.lt(0, t0))))
    E.append((t0, "[%s] [INFO] [runner.py:463:main] Using IP address of %s for node %s" % (f_iso_ms(cl.lt(0, t0)), cl.ips[0], h[0])))
    E.append((t0, "[%s] [INFO] [multinode_runner.py:80:get_cmd] Running on the following workers: %s" % (f_iso_ms(cl.lt(0, t0)), ",".join(h))))
    E.append((t0, "[%s] [INFO] [runner.py:568:main] cmd = pdsh -S -f 1024 -w %s export PYTHONPATH=%s; cd %s; %s -u -m deepspeed.launcher.launch --world_info=%s --node_rank=%%n --master_addr=%s --master_port=29500 train.py --deepspeed --deepspeed_config ds_config.json" % (
        f_iso_ms(cl.lt(0, t0)), ",".join(h), sc.workdir, sc.workdir, st["pybin"], "eyJ" + hexid(rng, 40), cl.ips[0])))
    mapping = ", ".join("'%s': [%s]" % (h[n], ", ".join(str(cl.rank(n, g)) for g in range(cl.gpn))) for n in range(cl.n))
    for n in range(cl.n):
        tt = t0 + sec(2 + rng.uniform(0, 2))
        E.append((tt, dsl(tt, n, "INFO", "launch.py:146:main", "WORLD INFO DICT: {%s}" % ", ".join("'%s': [%s]" % (h[k], ", ".join(str(g) for g in range(cl.gpn))) for k in range(cl.n)))))
        E.append((tt, dsl(tt, n, "INFO", "launch.py:152:main", "nnodes=%d, num_local_procs=%d, node_rank=%d" % (cl.n, cl.gpn, n))))
        E.append((tt, dsl(tt, n, "INFO", "launch.py:163:main", "global_rank_mapping=defaultdict(<class 'list'>, {%s})" % mapping)))
        E.append((tt, dsl(tt, n, "INFO", "launch.py:164:main", "dist_world_size=%d" % W)))
        E.append((tt, dsl(tt, n, "INFO", "launch.py:168:main", "Setting CUDA_VISIBLE_DEVICES=%s" % ",".join(str(g) for g in range(cl.gpn)))))
        for g in range(cl.gpn):
            E.append((tt + sec(0.01), dsl(tt, n, "INFO", "launch.py:256:main", "process %d spawned with command: ['%s', '-u', 'train.py', '--local_rank=%d', '--deepspeed', '--deepspeed_config', 'ds_config.json']" % (cl.pid(cl.rank(n, g)), st["pybin"], g))))
    sc.mapping_known = True
    for (t, ln, r) in nccl_init_block(sc, list(range(W))):
        E.append((t, "%s: %s" % (h[cl.node_of(r)], ln)))
    ti = t0 + sec(sc.init_s * 0.7)
    E.append((ti, dsl(ti, 0, "INFO", "comm.py:637:init_distributed", "cdb=None")))
    E.append((ti, dsl(ti, 0, "INFO", "comm.py:668:init_distributed", "Initializing TorchBackend in DeepSpeed with backend nccl")))
    E.append((ti, dsl(ti, 0, "INFO", "logging.py:96:log_dist", "[Rank 0] DeepSpeed info: version=%s, git-hash=unknown, git-branch=unknown" % pick(rng, ["0.14.4", "0.15.1", "0.13.5"]))))
    E.append((ti, dsl(ti, 0, "INFO", "logging.py:96:log_dist", "[Rank 0] Creating BF16 optimizer")))
    E.append((ti, dsl(ti, 0, "INFO", "config.py:1000:print", "DeepSpeedEngine configuration:")))
    wb = python_warnings(sc, 0, rng)
    for r in rng.sample(range(W), min(W, 6)):
        E += warn_block(ti + sec(rng.uniform(0, 5)), wb, lambda ln, r=r: "%s: %s" % (h[cl.node_of(r)], ln))
    ema = None
    for row in sc.rows:
        S = sc.S(row.step)
        E.append((row.t, dsl(row.t, 0, "INFO", "logging.py:96:log_dist", "[Rank 0] step=%d, skipped=%d, lr=[%.10g], mom=[(0.9, 0.95)]" % (S, row.skipped, row.lr))))
        sps = sc.gbs / ((row.step_ms - row.extra_s * 1000.0 / sc.log_every) / 1000.0) * rng.uniform(0.985, 1.015)
        ema = sps if ema is None else ema * 0.8 + sps * 0.2
        E.append((row.t, dsl(row.t, 0, "INFO", "timer.py:260:stop", "epoch=0/micro_step=%d/global_step=%d, RunningAvgSamplesPerSec=%.2f, CurrSamplesPerSec=%.2f, MemAllocated=%.2fGB, MaxMemAllocated=%.2fGB" % (
            S * 4, S, ema, sps, sc.fb_base / 1024.0 * 0.7, sc.fb_base / 1024.0 * 0.92))))
        if sc.ds_breakdown:
            c = row.comp[0]
            E.append((row.t, dsl(row.t, 0, "INFO", "logging.py:96:log_dist", "[Rank 0] time (ms) | fwd_microstep: %.2f | bwd_microstep: %.2f | bwd_inner_microstep: %.2f | bwd_allreduce_microstep: %.2f | step_microstep: %.2f" % (
                c * 0.33, c * 0.6 + row.wait[0], c * 0.6, row.wait[0], sc.base_ms * 0.03))))
        if sc.ds_per_rank:
            for r in range(W):
                E.append((row.t + sec(0.001 * r), "%s: rank %d step %d loss %.4f fwd_bwd_ms %.1f data_ms %.1f" % (h[cl.node_of(r)], r, S, row.loss + rng.gauss(0, 0.04), row.comp[r], row.data[r])))
            if sc.cause == "straggler" and row.step >= getattr(sc, "slow_onset", 10 ** 9) + sc.log_every * 2:
                if inc.r0 is not None:
                    sc.saw_rank()
                elif inc.variant == "noisy":
                    sc.saw_node()
        if sc.healthy and rng.random() < 0.03:
            r = rng.randrange(W)
            E.append((row.t, "%s: %s" % (h[cl.node_of(r)], healthy_scary(sc, r, row.t, rng)[1])))
    # failures
    for r in range(W):
        n = cl.node_of(r)
        for t, ln in rank_err_lines(sc, r):
            E.append((t, "%s: %s" % (h[n], ln)))
    for n in range(cl.n):
        a = sc.agents[n]
        if inc.variant == "spot" and n == inc.n0:
            continue
        if a["kind"] == "failed":
            t = a["t_obs"]
            first = a["failed"][0]
            for g in range(cl.gpn):
                E.append((t + sec(0.01 * g), dsl(t, n, "INFO", "launch.py:319:sigkill_handler", "Killing subprocess %d" % cl.pid(cl.rank(n, g)))))
            E.append((t + sec(0.5), dsl(t + sec(0.5), n, "ERROR", "launch.py:325:sigkill_handler", "['%s', '-u', 'train.py', '--local_rank=%d', '--deepspeed', '--deepspeed_config', 'ds_config.json'] exits with return code = %d" % (st["pybin"], cl.local_of(first), sc.fate[first][1]))))
            E.append((a["t_exit"], "pdsh@%s: %s: ssh exited with exit code %d" % (h[0], h[n], 1 if sc.fate[first][1] > 0 else (256 + sc.fate[first][1]) % 256 or 1)))
        elif a["kind"] == "signal":
            t = a["t_sig"]
            if a["sig"] == 2:
                if n == 0:
                    E.append((t - sec(0.5), "^Cpdsh@%s: interrupt (one more within 1 sec to abort)" % h[0]))
                    E.append((t - sec(0.5), "pdsh@%s:  (^Z within 1 sec to cancel pending threads)" % h[0]))
                    for k in range(cl.n):
                        E.append((t - sec(0.4), "pdsh@%s: %s: command in progress" % (h[0], h[k])))
                    E.append((t - sec(0.1), "^Cpdsh@%s: interrupt (one more within 1 sec to abort)" % h[0]))
                    E.append((t, "pdsh@%s: sending SIGTERM to ssh %s" % (h[0], ",".join(h))))
            E.append((t + sec(0.1), dsl(t, n, "INFO", "launch.py:314:sigkill_handler", "Main process received %s, exiting" % ("SIGTERM" if a["sig"] == 15 else "SIGINT"))))
            for g in range(cl.gpn):
                E.append((t + sec(0.2), dsl(t, n, "INFO", "launch.py:319:sigkill_handler", "Killing subprocess %d" % cl.pid(cl.rank(n, g)))))
            if inc.variant == "spot" and n == inc.n0:
                E.append((a["t_exit"] + sec(2), "Connection to %s closed by remote host." % h[n]))
                E.append((a["t_exit"] + sec(2), "pdsh@%s: %s: ssh exited with exit code 255" % (h[0], h[n])))
                sc.saw_node()
    # ranks of a reclaimed node were terminated: launcher saw SIGTERM there
    if inc.variant == "spot":
        n0 = inc.n0
        t = inc.t
        E.append((t + sec(0.2), dsl(t, n0, "INFO", "launch.py:314:sigkill_handler", "Main process received SIGTERM, exiting")))
        for g in range(cl.gpn):
            E.append((t + sec(0.3), dsl(t, n0, "INFO", "launch.py:319:sigkill_handler", "Killing subprocess %d" % cl.pid(cl.rank(n0, g)))))
        E.append((t + sec(6), "Connection to %s closed by remote host." % h[n0]))
        E.append((t + sec(6), "pdsh@%s: %s: ssh exited with exit code 255" % (h[0], h[n0])))
        sc.saw_node()
        smp = rng.randrange(900, 3000)
        sc.add("syslog-%s.txt" % h[n0], ["%s %s spot-monitor[%d]: instance-action notice: {\"action\": \"terminate\", \"time\": \"%sZ\"}" % (f_syslog(cl.lt(n0, t - sec(120))), h[n0], smp, f_isoT(t)),
                                          "%s %s spot-monitor[%d]: spot interruption in 120s, stopping training processes" % (f_syslog(cl.lt(n0, t - sec(119))), h[n0], smp),
                                          "%s %s systemd[1]: Stopping User Manager for UID 1000..." % (f_syslog(cl.lt(n0, t + sec(1))), h[n0]),
                                          "%s %s systemd-shutdown[1]: Sending SIGTERM to remaining processes..." % (f_syslog(cl.lt(n0, t + sec(2))), h[n0])])
    if sc.job_state == "COMPLETED":
        for n in range(cl.n):
            E.append((sc.t_last + sec(3), dsl(sc.t_last + sec(3), n, "INFO", "launch.py:351:main", "Process %d exits successfully." % cl.pid(cl.rank(n, 0)))))
    lines = srt(E)
    if rng.random() < 0.3:
        lines = truncate_middle(lines, rng, keep_head=rng.randrange(50, 150), keep_tail=rng.randrange(200, 450))
    sc.add("train.log", lines)
    # per-node nvidia-smi query loop
    t_end = min(sc.t_collect, max(sc.t_end_host.values()) + sec(300)) if sc.t_end_host else sc.t_last
    anchor = inc.t or sc.t_last
    t_from = max(sc.t_start, min(anchor - sec(2400), t_end - sec(3600)), t_end - sec(5400))
    if rng.random() < 0.8:
        nodes = list(range(cl.n)) if rng.random() < 0.6 else [inc.n0 if inc.n0 is not None else 0]
        for n in nodes:
            sc.add("gpu_monitor_%s.csv" % h[n], render_query_gpu_csv(sc, n, t_from, t_end, 60))
    common_host_files(sc)
    if inc.pyspy and inc.pyspy_t and rng.random() < 0.5:
        for n in range(cl.n):
            sc.add("py-spy-%s.txt" % h[n], render_pyspy_set(sc, [cl.rank(n, g) for g in range(cl.gpn)], hdr=True))


LAYOUT_FUNCS = {
    "megatron-slurm": (setup_megatron, render_megatron),
    "hf-k8s": (setup_hf, render_hf),
    "lightning-wandb": (setup_lightning, render_lightning),
    "torchrun-logdir": (setup_torchrun_logdir, render_torchrun_logdir),
    "ops-bundle": (setup_ops, render_ops),
    "deepspeed-pdsh": (setup_deepspeed, render_deepspeed),
}


# --------------------------------------------------------------------------------------------
# run assembly
# --------------------------------------------------------------------------------------------
def init_misc(sc):
    rng = sc.rng
    cl = sc.cl
    sc.rng_tag = "blind31|%s|%d" % (sc.seed, sc.idx)
    sc.gpu_state = {}
    sc.energy0 = [[rng.randrange(10 ** 11, 9 * 10 ** 12) for _ in range(cl.gpn)] for _ in range(cl.n)]
    sc.nvbw0 = [[rng.randrange(10 ** 12, 9 * 10 ** 14) for _ in range(cl.gpn)] for _ in range(cl.n)]
    sc.mem_base = [rng.uniform(18, 42) for _ in range(cl.n)]
    sc.net_kbs = rng.uniform(2.0e6, 9.0e6)
    sc.nfs_server = pick(rng, ["fs01", "nfs-data.internal", "10.%d.0.20" % rng.randrange(1, 250), "vast-vip-2", "filer3"])
    sc.vm = sc.layout in ("hf-k8s", "deepspeed-pdsh") or rng.random() < 0.2
    sc.fb_base = int(cl.gpu["mem_mib"] * rng.uniform(0.55, 0.85))
    sc.boot = [sc.t_start - sec(rng.uniform(3600 * 5, 3600 * 24 * 40)) for _ in range(cl.n)]
    sc.host_mem_kb = pick(rng, [1056439808, 2113929216, 1584000000])
    sc.disk_pct = rng.uniform(20, 80)
    sc.wandb_id = wandb_id(rng)
    sc.mapping_known = False
    sc.metric_rank_pending = False
    sc.t_kill = None
    sc.slow_onset = 10 ** 9
    sc.t_end_host = {}
    sc.t_end_of_rank = {}
    if not hasattr(sc, "record"):
        sc.record = False
    if not hasattr(sc, "no_agent"):
        sc.no_agent = False
    if not hasattr(sc, "wandb_pcie"):
        sc.wandb_pcie = False
    if not hasattr(sc, "partition"):
        sc.partition = "gpu"


def layout_adjust(sc):
    """layout-specific twists applied after the incident text exists"""
    inc = sc.inc
    cl = sc.cl
    rng = sc.rng
    if sc.layout == "hf-k8s" and sc.cause == "host_oom_kill" and inc.variant in ("main", "cgroup"):
        n0 = inc.n0
        inc.pod_killed = n0
        inc.exit = {}
        for g in range(cl.gpn):
            inc.exit[cl.rank(n0, g)] = (inc.t + sec(rng.uniform(0, 0.2)), -9)
        inc.kern = {}
        inc.r0 = None
        sc.notes.append("On Kubernetes the container's memory limit is hit, so the whole pod (all %d ranks and torchrun) is OOMKilled at once (exit 137); the pod log just stops." % cl.gpn)
    if getattr(inc, "node_fail", False):
        inc.kern.pop(inc.n0, None)


def make_run(seed, idx, layout, cause):
    sc = Sc(seed, idx, layout, cause)
    setup, render = LAYOUT_FUNCS[layout]
    setup(sc)
    init_misc(sc)
    post = (PLANNERS[cause] if cause else plan_healthy)(sc)
    build_timeline(sc)
    post()
    layout_adjust(sc)
    cascade(sc)
    if sc.inc.variant in ("k8s_evict",):
        n0 = sc.inc.n0
        sc.agents[n0] = {"kind": "signal", "sig": 15, "t_sig": sc.inc.t, "t_exit": sc.inc.t + sec(3)}
    if sc.cause == "unknown" and sc.inc.r0 is not None:
        _unknown_rank_evidence(sc)
    render(sc)
    # rank evidence that needs a rank<->GPU mapping present in the bundle
    if sc.metric_rank_pending and sc.mapping_known:
        sc.saw_rank()
    return sc


def _unknown_rank_evidence(sc):
    """the first failing rank of an 'unknown' run is visible in launcher summaries"""
    n0 = sc.cl.node_of(sc.inc.r0)
    a = sc.agents.get(n0, {})
    if a.get("kind") == "failed" and a["failed"] and a["failed"][0] == sc.inc.r0:
        sc.unknown_rank_visible = True
        sc.saw_rank()
    elif sc.no_agent:
        sc.saw_rank()


def truth_of(sc):
    inc = sc.inc
    cl = sc.cl
    if sc.healthy:
        return {"healthy": True, "cause": None, "initiator": None, "layout": sc.layout, "notes": " ".join(sc.notes)}
    rank = inc.r0 if (sc.ev_rank and inc.r0 is not None) else None
    node = None
    if inc.n0 is not None and (sc.ev_node or (rank is not None and sc.mapping_known)):
        node = cl.hosts[inc.n0]
    init = None if (rank is None and node is None) else {"rank": rank, "node": node}
    notes = " ".join(sc.notes)
    extra = []
    if getattr(sc, "child_failed_nodes", None) and inc.kind in ("crash", "stall", "mm_error"):
        roots = []
        for n in sc.child_failed_nodes:
            a = sc.agents[n]
            if a.get("failed"):
                roots.append(a["failed"][0])
        if roots and inc.r0 is not None and roots[0] != inc.r0:
            extra.append("torchrun's first ChildFailedError root cause names rank %d, not the initiator." % roots[0])
    if sc.job_state in ("TIMEOUT", "CANCELLED") and inc.kind == "silent":
        extra.append("The job ended as %s hours after the last progress line." % sc.job_state)
    if sc.sched == "slurm_kill" and inc.kind in ("crash", "stall"):
        extra.append("srun --kill-on-bad-exit tore the remaining tasks down with SIGTERM.")
    if init is None:
        extra.append("No initiator is given: the bundle does not establish one.")
    elif rank is None:
        extra.append("Only the node is established.")
    if extra:
        notes += " " + " ".join(extra)
    return {"healthy": False, "cause": sc.cause, "initiator": init, "layout": sc.layout, "notes": notes}


def plan_runs(n, seed):
    rng = random.Random("blind31-plan|%s" % seed)
    order = CAUSES[:]
    rng.shuffle(order)
    lay_order = LAYOUTS[:]
    rng.shuffle(lay_order)
    start = {c: rng.randrange(len(LAYOUTS)) for c in CAUSES}
    hl = LAYOUTS[:]
    rng.shuffle(hl)
    runs = []
    k = hk = 0
    for i in range(n):
        if i % 7 == 3:
            runs.append((None, hl[hk % len(hl)]))
            hk += 1
        else:
            c = order[k % len(order)]
            occ = k // len(order)
            k += 1
            # consecutive occurrences of a cause walk through the layouts from a per-seed,
            # per-cause starting point, so a seed never repeats a layout for one cause
            runs.append((c, lay_order[(start[c] + occ) % len(lay_order)]))
    return runs


def write_run(out_dir, idx, sc):
    d = os.path.join(out_dir, "run-%03d-%s" % (idx, sc.layout))
    os.makedirs(d, exist_ok=True)
    for path in sorted(sc.files):
        p = os.path.join(d, path)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        txt = sc.files[path]
        if not txt.endswith("\n"):
            txt += "\n"
        with open(p, "w", encoding="utf-8") as f:
            f.write(txt)
    with open(os.path.join(d, "truth.json"), "w", encoding="utf-8") as f:
        json.dump(truth_of(sc), f, indent=2, ensure_ascii=False)
        f.write("\n")
    return d


def main(argv=None):
    ap = argparse.ArgumentParser(description="blind31: synthetic log bundles of slow / stalled / failed distributed GPU training jobs")
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--seed", default="1")
    a = ap.parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    counts = {}
    for i, (cause, layout) in enumerate(plan_runs(a.n, a.seed)):
        sc = make_run(a.seed, i, layout, cause)
        write_run(a.out, i, sc)
        key = cause or "healthy"
        counts[key] = counts.get(key, 0) + 1
    ordered = {k: counts[k] for k in ["healthy"] + CAUSES if k in counts}
    print(json.dumps(ordered, indent=1))


if __name__ == "__main__":
    main()
