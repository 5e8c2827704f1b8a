#!/usr/bin/env python3
"""blind16: synthetic log bundles of distributed GPU training runs (failed or healthy).

Five research-code training stacks whose logs people paste into issues:
fairseq, mmengine (OpenMMLab), detectron2, hydra_multirun (Hydra + submitit/Slurm,
Lightning or plain torch) and torchx (local_cwd / kubernetes).

Written without reading the diagnosis tool's code; message formats come from the
real programs' source and from public issue threads.

    python3 gen_blind16.py --out DIR --n 60 --seed S

Standard library only. Deterministic for a given seed.
"""

import argparse
import json
import os
import random
import shutil
import sys
from datetime import datetime, timedelta

NAME = "blind16"

CAUSES = [
    "gpu_hardware", "ecc_memory", "nvlink", "network", "cuda_oom",
    "illegal_memory_access", "python_exception", "host_oom_kill", "crash_signal",
    "preemption", "hang", "data_loader_stall", "collective_mismatch", "straggler",
    "unknown",
]
LAYOUTS = ["fairseq", "mmengine", "detectron2", "hydra_multirun", "torchx"]
DRAIN_CAUSES = ("gpu_hardware", "ecc_memory", "nvlink", "network")

# torch release -> (bundled NCCL, CUDA, python)
TORCH = [
    ("2.1.2", "2.18.1", "12.1", "3.10"),
    ("2.2.2", "2.19.3", "12.1", "3.10"),
    ("2.3.1", "2.20.5", "12.1", "3.10"),
    ("2.4.1", "2.20.5", "12.4", "3.11"),
    ("2.5.1", "2.21.5", "12.4", "3.11"),
    ("2.6.0", "2.21.5", "12.4", "3.11"),
    ("2.7.1", "2.26.2", "12.6", "3.12"),
    ("2.8.0", "2.27.3", "12.8", "3.12"),
    ("2.9.0", "2.27.5", "12.8", "3.12"),
]

GPU_MODELS = [
    # name, total GiB (torch report), nvidia-smi MiB, bus ids of an 8-GPU board, driver
    ("NVIDIA A100-SXM4-80GB", 79.15, 81920, ["07", "0f", "47", "4e", "87", "90", "b7", "bd"], "535.161.08"),
    ("NVIDIA A100-SXM4-40GB", 39.39, 40960, ["07", "0f", "47", "4e", "87", "90", "b7", "bd"], "525.147.05"),
    ("NVIDIA H100 80GB HBM3", 79.11, 81559, ["18", "2a", "3a", "5d", "9a", "ab", "ba", "db"], "550.90.07"),
    ("NVIDIA H200", 139.81, 143771, ["19", "3b", "4c", "5d", "9b", "bb", "cb", "db"], "570.124.06"),
]

MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
WDAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]


# --------------------------------------------------------------------------
# small helpers
# --------------------------------------------------------------------------

def tminor(job):
    return int(job.torch.split(".")[1])


def hexaddr(rng, hi="7f"):
    return "0x%s%010x" % (hi, rng.randrange(16 ** 9, 16 ** 10))


def ranges_str(nums):
    """[0,1,2,5,7,8] -> '0-2,5,7-8' (slurm style)."""
    nums = sorted(nums)
    out = []
    i = 0
    while i < len(nums):
        j = i
        while j + 1 < len(nums) and nums[j + 1] == nums[j] + 1:
            j += 1
        out.append(str(nums[i]) if i == j else "%d-%d" % (nums[i], nums[j]))
        i = j + 1
    return ",".join(out)


def gib(x):
    return "%.2f GiB" % x


def fmt_hms(sec):
    sec = int(sec)
    d, rem = divmod(sec, 86400)
    h, rem = divmod(rem, 3600)
    m, s = divmod(rem, 60)
    if d:
        return "%d day%s, %d:%02d:%02d" % (d, "s" if d > 1 else "", h, m, s)
    return "%d:%02d:%02d" % (h, m, s)


class Stream:
    """Lines with a sort time; rendered in time order (stable)."""

    def __init__(self):
        self.items = []
        self.n = 0

    def add(self, t, text):
        for ln in text.split("\n") if isinstance(text, str) else text:
            self.items.append((t, self.n, ln))
            self.n += 1

    def addblock(self, t, lines):
        # a block keeps its internal order even when interleaved
        self.items.append((t, self.n, "\n".join(lines)))
        self.n += 1

    def render(self, tail=None):
        items = sorted(self.items, key=lambda x: (x[0], x[1]))
        out = "\n".join(x[2] for x in items)
        if tail is not None:
            lines = out.split("\n")
            if len(lines) > tail:
                lines = lines[-tail:]
            out = "\n".join(lines)
        return out + ("\n" if out else "")


# --------------------------------------------------------------------------
# the job: topology, clocks, processes
# --------------------------------------------------------------------------

class Proc:
    def __init__(self, rank, node, local, pid):
        self.rank = rank
        self.node = node
        self.local = local
        self.pid = pid
        self.out = []      # (t, text) raw output lines of this process (stdout+stderr)
        self.exit = None   # (t, code) ; code<0 => signal
        self.hung = False
        self.reason = "hung"


class Node:
    def __init__(self, idx, host, fqdn, ip):
        self.idx = idx
        self.host = host
        self.fqdn = fqdn
        self.ip = ip
        self.skew = 0.0
        self.kern = []     # (t, msg)
        self.agent = []    # (t, text) launcher lines (torchrun agent / spawn parent)
        self.pod = None
        self.k8s_node = None


HOST_STYLES = [
    ("gpu-a100-%03d", "cluster.internal", "10.12.%d.%d"),
    ("dgx%03d", "hpc.example.edu", "172.16.%d.%d"),
    ("node%04d", "int.lab", "10.1.%d.%d"),
    ("hgx-h100-%02d", "ml.corp", "10.200.%d.%d"),
    ("train-dy-p4d24xlarge-%d", "pcluster", "10.0.%d.%d"),
    ("a3mega-a3meganodeset-%d", "c.proj-ml.internal", "10.128.%d.%d"),
]


class Job:
    def __init__(self, rng, layout, cause, idx, seed):
        self.rng = rng
        self.layout = layout
        self.cause = cause
        self.healthy = cause is None
        self.idx = idx
        self.seed = seed
        tv = rng.choice(TORCH)
        self.torch, self.nccl, self.cuda, self.py = tv
        self.gpu = rng.choice(GPU_MODELS)
        self.notes = []
        self.extras = {}          # path -> text
        self.slurm = []           # (t, line) srun/slurmstepd lines
        self.culprit_rank = None
        self.culprit_node = None
        self.rank_inferable = False
        self.global_evidence = False
        self.evidence_nodes = []
        self.decoys = []
        self.collateral = None
        self.end_kind = "fail"
        self.nccl_debug = rng.random() < 0.55
        self.timeout_s = rng.choice([600, 600, 1800, 1800, 1800, 3600])
        self.kill_on_bad_exit = False
        self.launcher = "torchrun"
        self.variant = ""
        self.app_tz = 0
        self.laptop_tz = 0
        self.sp = rng.choice([
            "/opt/conda/lib/python%s/site-packages",
            "/usr/local/lib/python%s/dist-packages",
            "/home/%s/miniconda3/envs/%s/lib/python%%s/site-packages" % (
                rng.choice(["alice", "jchen", "mkumar", "svc-ml", "rgarcia"]),
                rng.choice(["torch", "py310", "train", "fs", "mm"])),
        ]) % self.py
        self.pybin = self.sp.split("/lib/python")[0] + "/bin/python"
        self.pylib = self.sp.split("/site-packages")[0]
        if self.pybin.startswith("/usr/local"):
            self.pybin = "/usr/bin/python3"
            self.pylib = "/usr/lib/python%s" % self.py

    # ---- topology -------------------------------------------------------
    def make_topology(self, nnodes, gpn):
        rng = self.rng
        self.nnodes = nnodes
        self.gpn = gpn
        self.world = nnodes * gpn
        style = rng.choice(HOST_STYLES)
        self.host_style = style
        base = rng.randint(1, 180)
        step = rng.choice([1, 1, 1, 2, 3])
        nums = [base + i * step for i in range(nnodes)]
        if nnodes > 2 and rng.random() < 0.4:
            # non-contiguous allocation
            nums = sorted(rng.sample(range(base, base + nnodes * 4), nnodes))
        self.nodes = []
        sub = rng.randint(0, 40)
        for i, num in enumerate(nums):
            host = style[0] % num
            fqdn = host + "." + style[1]
            ip = style[2] % (sub + num // 250, (num % 250) + 2)
            self.nodes.append(Node(i, host, fqdn, ip))
        for n in self.nodes:
            n.skew = round(rng.uniform(-2.5, 2.5), 3) if rng.random() < 0.5 else round(rng.uniform(-0.2, 0.2), 3)
        self.nodes[0].skew = 0.0
        # processes
        self.procs = []
        for n in self.nodes:
            pid = rng.randint(3000, 250000)
            for l in range(gpn):
                self.procs.append(Proc(n.idx * gpn + l, n.idx, l, pid))
                pid += rng.randint(1, 3)
        buses = self.gpu[3]
        if gpn <= 8:
            off = 0 if gpn == 8 else rng.choice([0, 8 - gpn]) if gpn < 8 else 0
            self.busids = [buses[(off + i) % 8] for i in range(gpn)]
        else:
            self.busids = buses
        self.t0 = datetime(2026, rng.randint(1, 3), rng.randint(1, 27), rng.randint(0, 23), rng.randint(0, 59), rng.randint(0, 59))
        self.t0 = self.t0 + timedelta(microseconds=rng.randint(0, 999999))

    def rank_node(self, r):
        return self.procs[r].node

    def dt(self, node, t):
        """Local wall clock of a node at job time t (app time zone + node skew)."""
        sk = self.nodes[node].skew if node is not None else 0.0
        return self.t0 + timedelta(seconds=t + sk, hours=self.app_tz)

    def dt_utc(self, node, t):
        sk = self.nodes[node].skew if node is not None else 0.0
        return self.t0 + timedelta(seconds=t + sk)

    def dt_laptop(self, t):
        return self.t0 + timedelta(seconds=t, hours=self.laptop_tz)

    def tid(self, p, k=0):
        return p.pid + 40 + k * 7 + (p.local % 3)

    def nccl_pre(self, p, thread=0):
        n = self.nodes[p.node]
        return "%s:%d:%d [%d]" % (n.host, p.pid, p.pid if thread == 0 else self.tid(p, thread), p.local)

    def procs_on(self, node):
        return [p for p in self.procs if p.node == node]

# --------------------------------------------------------------------------
# formatting of timestamps
# --------------------------------------------------------------------------

def f_iso(d):
    return d.strftime("%Y-%m-%d %H:%M:%S")


def f_iso_ms(d):
    return d.strftime("%Y-%m-%d %H:%M:%S") + ",%03d" % (d.microsecond // 1000)


def f_mmdd(d):
    return d.strftime("%m/%d %H:%M:%S")


def f_journal(d):
    return "%s %02d %s" % (MONTHS[d.month - 1], d.day, d.strftime("%H:%M:%S"))


def f_dmesg_T(d):
    return "[%s %s %2d %s %d]" % (WDAYS[d.weekday()], MONTHS[d.month - 1], d.day, d.strftime("%H:%M:%S"), d.year)


def f_ctime(d):
    return "%s %s %2d %s %d" % (WDAYS[d.weekday()], MONTHS[d.month - 1], d.day, d.strftime("%H:%M:%S"), d.year)


def f_glog(d, rng=None):
    ns = d.microsecond * 1000 + (d.microsecond * 7 + d.second * 13) % 1000
    return "%02d%02d %s.%09d" % (d.month, d.day, d.strftime("%H:%M:%S"), ns)


def f_slurm(d):
    return d.strftime("%Y-%m-%dT%H:%M:%S")


# --------------------------------------------------------------------------
# torch / NCCL / launcher message builders
# --------------------------------------------------------------------------

PGNCCL_LINES = {
    # minor: (timeout, some-failed, take-down, watchdog-terminated, detected-at, timeout-at, checkTimeout-src)
    1: (475, 489, 495, 916, None, None, 477),
    2: (523, 537, 543, 1182, None, None, 525),
    3: (563, 577, 583, 1182, 1433, None, 565),
    4: (607, 1664, 1709, 1521, 1664, 1709, 609),
    5: (616, 630, 636, 1595, 1785, 1834, 618),
    6: (632, 684, 698, 1655, 2017, 2066, 635),
    7: (632, 684, 698, 1703, 2046, 2095, 635),
    8: (641, 693, 707, 1741, 2118, 2167, 644),
    9: (655, 707, 721, 1793, 2160, 2209, 658),
}


def cpp(job, p, lvl, src, msg, t):
    """A c10 log line as the given torch version prints it."""
    m = tminor(job)
    if m <= 1:
        return "[%s %s] %s" % (lvl, src, msg)
    if m <= 3:
        return "[rank%d]:[%s %s] %s" % (p.rank, lvl, src, msg)
    d = job.dt(p.node, t)
    return "[rank%d]:[%s%s %s] %s" % (p.rank, lvl, f_glog(d, job.rng), src, msg)


def pg_tag(job, rank):
    m = tminor(job)
    if m >= 5:
        return "[PG ID 0 PG GUID 0(default_pg) Rank %d]" % rank
    if m >= 3:
        return "[PG 0 Rank %d]" % rank
    return "[Rank %d]" % rank


def so_frames(job, kind):
    rng = job.rng
    lib = job.sp + "/torch/lib"
    a = lambda: hexaddr(rng)
    if kind == "timeout":
        fr = [
            "c10::Error::Error(c10::SourceLocation, std::string) + 0x96 (%s in %s/libc10.so)" % (a(), lib),
            "c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >) + 0x1d2 (%s in %s/libtorch_cuda.so)" % (a(), lib),
            "c10d::ProcessGroupNCCL::watchdogHandler() + 0x233 (%s in %s/libtorch_cuda.so)" % (a(), lib),
            "c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d (%s in %s/libtorch_cuda.so)" % (a(), lib),
        ]
    elif kind == "ncclerr":
        fr = [
            "c10::Error::Error(c10::SourceLocation, std::string) + 0x96 (%s in %s/libc10.so)" % (a(), lib),
            "c10d::ProcessGroupNCCL::WorkNCCL::checkAndSetException() + 0x80 (%s in %s/libtorch_cuda.so)" % (a(), lib),
            "c10d::ProcessGroupNCCL::watchdogHandler() + 0x212 (%s in %s/libtorch_cuda.so)" % (a(), lib),
            "c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d (%s in %s/libtorch_cuda.so)" % (a(), lib),
        ]
    else:  # cuda
        fr = [
            "c10::Error::Error(c10::SourceLocation, std::string) + 0x96 (%s in %s/libc10.so)" % (a(), lib),
            "c10::detail::torchCheckFail(char const*, char const*, unsigned int, std::string const&) + 0x64 (%s in %s/libc10.so)" % (a(), lib),
            "c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, int, bool) + 0x118 (%s in %s/libc10_cuda.so)" % (a(), lib),
            "c10d::ProcessGroupNCCL::WorkNCCL::finishedGPUExecutionInternal() const + 0x56 (%s in %s/libtorch_cuda.so)" % (a(), lib),
            "c10d::ProcessGroupNCCL::WorkNCCL::isCompleted() + 0xa0 (%s in %s/libtorch_cuda.so)" % (a(), lib),
            "c10d::ProcessGroupNCCL::watchdogHandler() + 0x1a8 (%s in %s/libtorch_cuda.so)" % (a(), lib),
            "c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d (%s in %s/libtorch_cuda.so)" % (a(), lib),
        ]
    fr += [
        "<unknown function> + 0xdc253 (%s in /lib/x86_64-linux-gnu/libstdc++.so.6)" % a(),
        "<unknown function> + 0x94ac3 (%s in /lib/x86_64-linux-gnu/libc.so.6)" % a(),
        "<unknown function> + 0x126850 (%s in /lib/x86_64-linux-gnu/libc.so.6)" % a(),
    ]
    return ["frame #%d: %s" % (i, f) for i, f in enumerate(fr)]


def work_str(seq, op, numel, timeout_ms):
    return "WorkNCCL(SeqNum=%d, OpType=%s, NumelIn=%d, NumelOut=%d, Timeout(ms)=%d)" % (seq, op, numel, numel, timeout_ms)


def watchdog_block(job, p, t, seq, op, numel, last_done=None):
    """Lines a rank prints when its NCCL watchdog fires (then it aborts)."""
    m = tminor(job)
    L = PGNCCL_LINES[m]
    tmo = job.timeout_s * 1000
    ran = tmo + job.rng.randint(5, 900)
    w = work_str(seq, op, numel, tmo)
    first = "[Rank %d] Watchdog caught collective operation timeout: %s ran for %d milliseconds before timing out." % (p.rank, w, ran)
    t0 = t
    out = [cpp(job, p, "E", "ProcessGroupNCCL.cpp:%d" % L[0], first, t0)]
    t = t0 + 0.000047
    if last_done is None:
        last_done = seq - 1
    if m >= 3 and L[4]:
        out.append(cpp(job, p, "E", "ProcessGroupNCCL.cpp:%d" % L[4],
                       "%s Exception (either an error or timeout) detected by watchdog at work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (pg_tag(job, p.rank), seq, seq, last_done), t))
    if m >= 4 and L[5]:
        out.append(cpp(job, p, "E", "ProcessGroupNCCL.cpp:%d" % L[5],
                       "%s Timeout at NCCL work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (pg_tag(job, p.rank), seq, seq, last_done), t))
    out.append(cpp(job, p, "E", "ProcessGroupNCCL.cpp:%d" % L[1], "%sSome NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data." % ("[Rank %d] " % p.rank if m >= 4 else ""), t))
    out.append(cpp(job, p, "E", "ProcessGroupNCCL.cpp:%d" % L[2], "%sTo avoid data inconsistency, we are taking the entire process down." % ("[Rank %d] " % p.rank if m >= 4 else ""), t))
    if m <= 1:
        term = "[Rank %d] NCCL watchdog thread terminated with exception: %s" % (p.rank, first)
        out.append(cpp(job, p, "E", "ProcessGroupNCCL.cpp:%d" % L[3], term, t))
        out += ["terminate called after throwing an instance of 'std::runtime_error'", "  what():  " + term]
        return out
    if m <= 3:
        term = "[Rank %d] NCCL watchdog thread terminated with exception: %s" % (p.rank, first)
    else:
        term = "%s Process group watchdog thread terminated with exception: %s" % (pg_tag(job, p.rank), first)
    out.append(cpp(job, p, "E", "ProcessGroupNCCL.cpp:%d" % L[3], term, t))
    out.append("Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:%d (most recent call first):" % L[6])
    out += so_frames(job, "timeout")
    out.append("")
    out += ["terminate called after throwing an instance of 'c10::DistBackendError'", "  what():  " + term,
            "Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:%d (most recent call first):" % L[6]]
    out += so_frames(job, "timeout")
    out.append("")
    if m >= 4 and job.rng.random() < 0.5:
        out.append("Exception raised from ncclCommWatchdog at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:%d (most recent call first):" % (L[3] + 6))
        fr = so_frames(job, "timeout")
        fr = [fr[0]] + fr[-3:]
        out += ["frame #%d: %s" % (i, f.split(": ", 1)[1]) for i, f in enumerate(fr)]
        out.append("")
    return out


def nccl_async_error_block(job, p, t, seq, kind, last_error):
    """Watchdog sees an NCCL error (remote process exit / network)."""
    m = tminor(job)
    L = PGNCCL_LINES[m]
    if kind == "remote":
        head = "NCCL error: remote process exited or there was a network error, NCCL version %s" % job.nccl
        sub = "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely."
    elif kind == "system":
        head = "NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version %s" % job.nccl
        sub = "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. "
    else:  # cuda
        head = "NCCL error: unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version %s" % job.nccl
        sub = "ncclUnhandledCudaError: Call to CUDA function failed."
    if m <= 1:
        head = "NCCL error: " + head.split(": ", 1)[1]
    msg_lines = [head, sub, "Last error:", last_error]
    out = []
    if m >= 3 and L[4]:
        out.append(cpp(job, p, "E", "ProcessGroupNCCL.cpp:%d" % L[4],
                       "%s Exception (either an error or timeout) detected by watchdog at work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (pg_tag(job, p.rank), seq, seq, seq - 1), t))
    out.append(cpp(job, p, "E", "ProcessGroupNCCL.cpp:%d" % L[1], "%sSome NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data." % ("[Rank %d] " % p.rank if m >= 4 else ""), t))
    out.append(cpp(job, p, "E", "ProcessGroupNCCL.cpp:%d" % L[2], "%sTo avoid data inconsistency, we are taking the entire process down." % ("[Rank %d] " % p.rank if m >= 4 else ""), t))
    if m <= 3:
        term0 = "[Rank %d] NCCL watchdog thread terminated with exception: " % p.rank
    else:
        term0 = "%s Process group watchdog thread terminated with exception: " % pg_tag(job, p.rank)
    out.append(cpp(job, p, "E", "ProcessGroupNCCL.cpp:%d" % L[3], term0 + msg_lines[0], t))
    out += msg_lines[1:]
    out.append("Exception raised from checkForNCCLErrorsInternal at ../torch/csrc/distributed/c10d/NCCLUtils.cpp:%d (most recent call first):" % (job.rng.choice([275, 320, 402])))
    out += so_frames(job, "ncclerr")
    out.append("")
    exc = "std::runtime_error" if m <= 1 else "c10::DistBackendError"
    out += ["terminate called after throwing an instance of '%s'" % exc, "  what():  " + term0 + msg_lines[0]] + msg_lines[1:]
    if m >= 2:
        out.append("Exception raised from checkForNCCLErrorsInternal at ../torch/csrc/distributed/c10d/NCCLUtils.cpp:%d (most recent call first):" % (job.rng.choice([275, 320, 402])))
        out += so_frames(job, "ncclerr")
        out.append("")
    return out


def cuda_watchdog_abort(job, p, t, err):
    """The watchdog thread trips over a sticky CUDA error and aborts the process."""
    m = tminor(job)
    L = PGNCCL_LINES[m]
    msg = ["CUDA error: %s" % err,
           "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
           "For debugging consider passing CUDA_LAUNCH_BLOCKING=1",
           "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.", ""]
    if m <= 3:
        term0 = "[Rank %d] NCCL watchdog thread terminated with exception: " % p.rank
    else:
        term0 = "%s Process group watchdog thread terminated with exception: " % pg_tag(job, p.rank)
    out = [cpp(job, p, "E", "ProcessGroupNCCL.cpp:%d" % L[3], term0 + msg[0], t)] + msg[1:]
    out.append("Exception raised from c10_cuda_check_implementation at ../c10/cuda/CUDAException.cpp:43 (most recent call first):")
    out += so_frames(job, "cuda")
    out.append("")
    out += ["terminate called after throwing an instance of 'c10::DistBackendError'", "  what():  " + term0 + msg[0]] + msg[1:]
    out.append("Exception raised from c10_cuda_check_implementation at ../c10/cuda/CUDAException.cpp:43 (most recent call first):")
    out += so_frames(job, "cuda")
    out.append("")
    return out


def nccl_ib_error(job, p, peer_ip, peer_port, direction="Send", status=12, opcode=None, hca=None):
    ln = job.rng.choice([1295, 1339, 2360, 2412]) if job.nccl >= "2.19" else 1167
    if hca is None:
        hca = "mlx5_%d" % (p.local % max(1, min(8, job.gpn)))
    if opcode is None:
        opcode = 0 if direction == "Recv" else 1
    me = job.nodes[p.node].ip
    if job.nccl >= "2.19":
        s = "NET/IB: Got completion from peer %s<%d> with status=%d opcode=%d len=%d vendor err %d (%s) localGid ::ffff:%s remoteGids::ffff:%s hca %s" % (
            peer_ip, peer_port, status, opcode, job.rng.choice([0, 0, 5222, 131072, 8]), 129 if status == 12 else 244, direction, me, peer_ip, hca)
    else:
        s = "NET/IB : Got completion from peer %s<%d> with error %d, opcode %d, len %d, vendor err %d (%s)" % (
            peer_ip, peer_port, status, opcode, 0, 129, direction)
    return "%s transport/net_ib.cc:%d NCCL WARN %s" % (job.nccl_pre(p, 3), ln, s), s


def nccl_init_lines(job, p, t):
    """NCCL_DEBUG=INFO lines printed during communicator init."""
    rng = job.rng
    n = job.nodes[p.node]
    pre0 = job.nccl_pre(p, 0)
    pre1 = job.nccl_pre(p, 1)
    comm = "0x%x" % (0x55d000000000 + p.pid * 4096 + rng.randint(0, 4095) * 16)
    commid = "0x%016x" % job.commid
    bus = job.busids[phys(job, p.node, p.local)] + "000"
    out = []
    if p.local == 0 or rng.random() < 0.4:
        out.append("%s NCCL INFO cudaDriverVersion %s" % (pre0, {"12.1": "12020", "12.4": "12040", "12.6": "12060", "12.8": "12080"}[job.cuda]))
    out.append("%s NCCL INFO Bootstrap : Using %s:%s<0>" % (pre0, job.oob_if, n.ip))
    if job.nccl >= "2.19":
        out.append("%s NCCL INFO NET/Plugin: Could not find: libnccl-net.so. Using internal network plugin." % pre0)
    else:
        out.append("%s NCCL INFO NET/Plugin : dlerror=libnccl-net.so: cannot open shared object file: No such file or directory No plugin found (libnccl-net.so), using internal implementation" % pre0)
    if job.nnodes > 1 and job.fabric == "ib":
        devs = " ".join("[%d]mlx5_%d:1/IB" % (i, i) for i in range(min(8, job.gpn)))
        out.append("%s NCCL INFO NET/IB : Using %s ; OOB %s:%s<0>" % (pre1, devs, job.oob_if, n.ip))
        out.append("%s NCCL INFO Using network IB" % pre1)
    elif job.nnodes > 1:
        out.append("%s NCCL INFO NET/Socket : Using [0]%s:%s<0>" % (pre1, job.oob_if, n.ip))
        out.append("%s NCCL INFO Using network Socket" % pre1)
    if job.nccl >= "2.23":
        out.append("%s NCCL INFO ncclCommInitRankConfig comm %s rank %d nranks %d cudaDev %d nvmlDev %d busId %s commId %s - Init START" % (pre1, comm, p.rank, job.world, p.local, phys(job, p.node, p.local), bus, commid))
    else:
        out.append("%s NCCL INFO comm %s rank %d nranks %d cudaDev %d nvmlDev %d busId %s commId %s - Init START" % (pre1, comm, p.rank, job.world, p.local, phys(job, p.node, p.local), bus, commid))
    if rng.random() < 0.6:
        out.append("%s NCCL INFO Setting affinity for GPU %d to %s" % (pre1, p.local, rng.choice(["ffffff,00000000,ffffff00", "ffff,ffffffff", "0fffffff,ffff0000,0000ffff", "ff00ff"])))
    nx = (p.rank + 1) % job.world
    pv = (p.rank - 1) % job.world
    out.append("%s NCCL INFO Trees [0] %d/-1/-1->%d->%d [1] %d/-1/-1->%d->%d" % (pre1, nx, p.rank, pv, nx, p.rank, pv))
    if rng.random() < 0.5:
        out.append("%s NCCL INFO P2P Chunksize set to 131072" % pre1)
    if job.nnodes > 1 and (p.local == 0 or p.local == job.gpn - 1):
        peer = job.procs[nx]
        if peer.node != p.node:
            out.append("%s NCCL INFO Channel 00/0 : %d[%d] -> %d[%d] [send] via NET/%s/%d%s" % (
                pre1, p.rank, p.local, nx, peer.local, "IB" if job.fabric == "ib" else "Socket", p.local, "/GDRDMA" if job.fabric == "ib" else ""))
    if job.gpn > 1:
        out.append("%s NCCL INFO Channel 00/0 : %d[%d] -> %d[%d] via P2P/%s" % (pre1, p.rank, p.local, (p.rank + 1) % job.world, (p.local + 1) % job.gpn, "CUMEM/read" if job.nccl >= "2.19" else "IPC/read"))
    out.append("%s NCCL INFO Connected all rings" % pre1)
    out.append("%s NCCL INFO Connected all trees" % pre1)
    if rng.random() < 0.5:
        out.append("%s NCCL INFO threadThresholds 8/8/64 | %d/8/64 | 512 | 512" % (pre1, job.world * 8))
        out.append("%s NCCL INFO %d coll channels, %d collnet channels, 0 nvls channels, 32 p2p channels, 32 p2p channels per peer" % (pre1, rng.choice([16, 24, 32]), 0))
    if job.nccl >= "2.23":
        out.append("%s NCCL INFO ncclCommInitRankConfig comm %s rank %d nranks %d cudaDev %d nvmlDev %d busId %s commId %s - Init COMPLETE" % (pre1, comm, p.rank, job.world, p.local, phys(job, p.node, p.local), bus, commid))
        out.append("%s NCCL INFO Init timings - ncclCommInitRankConfig: rank %d nranks %d total %.2f (kernels %.2f, alloc %.2f, bootstrap %.2f, allgathers %.2f, topo %.2f, graphs %.2f, connections %.2f, rest %.2f)" % (
            pre1, p.rank, job.world, 1.4 + rng.random(), 0.12, 0.01, 0.4 + rng.random() * 0.5, 0.05, 0.21, 0.02, 0.33, 0.04))
    else:
        out.append("%s NCCL INFO comm %s rank %d nranks %d cudaDev %d nvmlDev %d busId %s commId %s - Init COMPLETE" % (pre1, comm, p.rank, job.world, p.local, phys(job, p.node, p.local), bus, commid))
    return out


# ---- python tracebacks ----------------------------------------------------

def tb(frames, exc_lines, header="Traceback (most recent call last):"):
    out = [header]
    for f, ln, fn, code in frames:
        out.append('  File "%s", line %d, in %s' % (f, ln, fn))
        if code:
            out.append("    " + code)
    return out + exc_lines


def dl_frames(job):
    sp = job.sp
    m = tminor(job)
    return [
        (sp + "/torch/utils/data/dataloader.py", 630 if m < 4 else 701, "__next__", "data = self._next_data()"),
        (sp + "/torch/utils/data/dataloader.py", 1344 if m < 4 else 1448, "_next_data", "return self._process_data(data)"),
        (sp + "/torch/utils/data/dataloader.py", 1370 if m < 4 else 1474, "_process_data", "data.reraise()"),
        (sp + "/torch/_utils.py", 694 if m < 4 else 733, "reraise", "raise exception"),
    ]


def backward_frames(job):
    sp = job.sp
    m = tminor(job)
    return [
        (sp + "/torch/_tensor.py", 522 if m < 4 else 581, "backward", "torch.autograd.backward("),
        (sp + "/torch/autograd/__init__.py", 266 if m < 4 else 347, "backward", "_engine_run_backward("),
        (sp + "/torch/autograd/graph.py", 768 if m >= 4 else 744, "_engine_run_backward", "return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass"),
    ]


def forward_frames(job, module_file, fn, code):
    sp = job.sp
    m = tminor(job)
    return [
        (sp + "/torch/nn/modules/module.py", 1511 if m < 4 else 1736, "_wrapped_call_impl", "return self._call_impl(*args, **kwargs)"),
        (sp + "/torch/nn/modules/module.py", 1520 if m < 4 else 1747, "_call_impl", "return forward_call(*args, **kwargs)"),
        (module_file, job.rng.randint(80, 400), fn, code),
    ]


def allreduce_frames(job):
    sp = job.sp
    m = tminor(job)
    return [
        (sp + "/torch/distributed/c10d_logger.py", 72 if m < 4 else 81, "wrapper", "return func(*args, **kwargs)"),
        (sp + "/torch/distributed/distributed_c10d.py", 2050 if m < 4 else 2501, "all_reduce", "work = group.allreduce([tensor], opts)"),
    ]


def oom_message(job, p):
    rng = job.rng
    tot = job.gpu[1]
    ask = rng.choice([512.0, 1.0, 2.0, 3.5, 4.88, 7.81, 10.0, 1.95])
    ask_s = ("%.2f MiB" % ask) if ask > 100 else gib(ask)
    free = rng.uniform(0.05, 1.2)
    inuse = tot - free
    alloc = inuse - rng.uniform(0.8, 4.0)
    reserved_unalloc = rng.uniform(0.1, 1.5)
    cls = "torch.OutOfMemoryError" if tminor(job) >= 4 else "torch.cuda.OutOfMemoryError"
    free_s = ("%.2f MiB" % (free * 1024)) if free < 1 else gib(free)
    return [
        "%s: CUDA out of memory. Tried to allocate %s. GPU %d has a total capacity of %s of which %s is free. Process %d has %s memory in use. Of the allocated memory %s is allocated by PyTorch, and %s is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)" % (
            cls, ask_s, p.local, gib(tot), free_s, p.pid, gib(inuse), gib(alloc), "%.2f MiB" % (reserved_unalloc * 1024))
    ]


CUDA_TAIL = [
    "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
    "For debugging consider passing CUDA_LAUNCH_BLOCKING=1",
    "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.",
    "",
]


# ---- launchers ------------------------------------------------------------

def elastic_log(job, node, t, level, module, msg, pid=None):
    """torch.distributed.elastic logging, by torch version."""
    m = tminor(job)
    d = job.dt(node, t)
    if m <= 3:
        return "[%s] %s: [%s] %s" % (f_iso_ms(d), module, level, msg)
    path = module.replace(".", "/") + ".py"
    lines = {"torch/distributed/elastic/multiprocessing/api.py": {"WARNING": 897, "ERROR": 869, "INFO": 709},
             "torch/distributed/run.py": {"WARNING": 793, "INFO": 793},
             "torch/distributed/elastic/agent/server/api.py": {"INFO": 525, "WARNING": 704, "ERROR": 704},
             "torch/distributed/elastic/agent/server/local_elastic_agent.py": {"INFO": 299}}
    ln = lines.get(path, {}).get(level, 212)
    if pid is None:
        pid = 1000 + node * 7 + 3
    if m == 4:
        pid = 139600000000000 + (pid * 7919) % 999999999
    return "%s%s %d %s:%d] %s" % (level[0], f_glog(d, job.rng)[:-3], pid, path, ln, msg)


def omp_banner(job, node, t, pid):
    m = tminor(job)
    s = ("\n*****************************************\n"
         "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. \n"
         "*****************************************")
    return elastic_log(job, node, t, "WARNING", "torch.distributed.run", s, pid)


def child_failed(job, node, t, script, failures, launcher_pid, entry="torchrun"):
    """ChildFailedError traceback + summary printed by torchrun on a node.

    failures: list of (proc, code, t_fail) ; first is root cause.
    """
    sp = job.sp
    m = tminor(job)
    if entry == "torchrun":
        frames = [(job.pybin.rsplit("/", 1)[0] + "/torchrun", 8, "<module>", "sys.exit(main())")]
    else:
        frames = [("<frozen runpy>" if job.py >= "3.11" else job.pylib + "/runpy.py", 198 if job.py >= "3.11" else 196, "_run_module_as_main", "return _run_code(code, main_globals, None," if job.py < "3.11" else None),
                  ("<frozen runpy>" if job.py >= "3.11" else job.pylib + "/runpy.py", 88 if job.py >= "3.11" else 86, "_run_code", "exec(code, run_globals)" if job.py < "3.11" else None),
                  (sp + "/torch/distributed/launch.py", 208, "<module>", "main()"),
                  (sp + "/torch/distributed/launch.py", 204, "main", "launch(args)"),
                  (sp + "/torch/distributed/launch.py", 189, "launch", "run(args)")]
    frames += [
        (sp + "/torch/distributed/elastic/multiprocessing/errors/__init__.py", 346 if m < 4 else 355, "wrapper", "return f(*args, **kwargs)"),
    ]
    if entry == "torchrun":
        frames.append((sp + "/torch/distributed/run.py", 812 if m < 4 else 919, "main", "run(args)"))
    frames += [
        (sp + "/torch/distributed/run.py", 803 if m < 4 else 910, "run", "elastic_launch("),
        (sp + "/torch/distributed/launcher/api.py", 135 if m < 4 else 138, "__call__", "return launch_agent(self._config, self._entrypoint, list(args))"),
        (sp + "/torch/distributed/launcher/api.py", 268 if m < 4 else 269, "launch_agent", "raise ChildFailedError("),
    ]
    out = tb(frames, ["torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
                      "============================================================",
                      "%s FAILED" % script,
                      "------------------------------------------------------------",
                      "Failures:"])

    def entry_lines(i, item):
        p, code, tf = item
        d = job.dt(node, tf)
        res = ["[%d]:" % i,
               "  time      : %s" % d.strftime("%Y-%m-%d_%H:%M:%S"),
               "  host      : %s" % job.nodes[p.node].host,
               "  rank      : %d (local_rank: %d)" % (p.rank, p.local),
               "  exitcode  : %d (pid: %d)" % (code, p.pid),
               "  error_file: <N/A>"]
        if code < 0:
            res.append("  traceback : Signal %d (%s) received by PID %d" % (-code, SIGNAMES.get(-code, "SIG?"), p.pid))
        else:
            res.append("  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html")
        return res

    rest = failures[1:]
    if not rest:
        out.append("  <NO_OTHER_FAILURES>")
    else:
        for i, it in enumerate(rest):
            out += entry_lines(i + 1, it)
    out += ["------------------------------------------------------------", "Root Cause (first observed failure):"]
    out += entry_lines(0, failures[0])
    out.append("============================================================")
    return out


SIGNAMES = {6: "SIGABRT", 9: "SIGKILL", 11: "SIGSEGV", 15: "SIGTERM", 7: "SIGBUS", 2: "SIGINT", 1: "SIGHUP"}


def khost(n):
    return n.k8s_node or n.host


def journal_line(job, node, t, ident, msg, kind="journal"):
    n = job.nodes[node]
    d = job.dt(node, t)
    if kind == "journal":
        return "%s %s %s: %s" % (f_journal(d), n.host, ident, msg)
    if kind == "dmesgT":
        return "%s %s" % (f_dmesg_T(d), msg)
    # raw dmesg: seconds since boot
    up = job.uptime0[node] + t
    return "[%12.6f] %s" % (up, msg)


def phys(job, node, local):
    off = job.phys_off[node] if hasattr(job, "phys_off") else 0
    return (local + off) % len(job.busids)


def xid_line(job, node, local, xid, pid, text, pname="python"):
    bus = job.busids[phys(job, node, local)]
    if pid is None:
        return "NVRM: Xid (PCI:0000:%s:00): %d, pid='<unknown>', name=<unknown>, %s" % (bus, xid, text)
    return "NVRM: Xid (PCI:0000:%s:00): %d, pid=%d, name=%s, %s" % (bus, xid, pid, pname, text)

# --------------------------------------------------------------------------
# timeline and failure propagation
# --------------------------------------------------------------------------

def plan_timeline(job):
    rng = job.rng
    job.t_init = rng.uniform(12, 75)
    job.t_train = job.t_init + rng.uniform(40, 300)
    job.step_time = round(rng.uniform(0.22, 1.4), 4)
    job.log_every = job.L.log_every(job)
    n_lines = rng.randint(25, 200)
    job.steps_run = n_lines * job.log_every + rng.randint(1, job.log_every - 1)
    job.start_step = 0
    if rng.random() < 0.25:
        job.start_step = rng.choice([5000, 10000, 20000, 30000, 45000])
    mult = rng.choice([1.3, 2, 3, 5, 8])
    job.total_steps = int((job.start_step + job.steps_run) * mult // 1000 + 1) * 1000
    if job.healthy:
        job.total_steps = job.start_step + job.steps_run
    job.slow_from = None
    job.slow_factor = 1.0
    job.coll_per_step = rng.choice([1, 2, 3, 4, 6, 8, 12, 25])
    job.seq0 = rng.randint(2, 9)
    job.coll_op = rng.choice(["ALLREDUCE", "ALLREDUCE", "ALLREDUCE", "_ALLGATHER_BASE", "_REDUCE_SCATTER_BASE"])
    job.coll_numel = rng.choice([26214400, 16777216, 6553600, 1048576, 52428800, 4718592, 2359296])
    job.t_fail = job.t_of(job.start_step + job.steps_run)
    job.progress_end = job.t_fail
    job.t_end = job.t_fail
    job.seq_fail = job.seq0 + job.steps_run * job.coll_per_step + rng.randint(1, job.coll_per_step)
    job.commid = rng.getrandbits(64)
    job.plan = {}
    job.uptime0 = [rng.uniform(3600 * 5, 3600 * 24 * 60) for _ in job.nodes]


def t_of(job, step):
    s = step - job.start_step
    if job.slow_from is None or step <= job.slow_from:
        return job.t_train + s * job.step_time
    s0 = job.slow_from - job.start_step
    return job.t_train + s0 * job.step_time + (s - s0) * job.step_time * job.slow_factor


Job.t_of = t_of


def step_at(job, t):
    """Last step completed at time t."""
    lo, hi = job.start_step, job.start_step + job.steps_run + 10 ** 6
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if job.t_of(mid) <= t:
            lo = mid
        else:
            hi = mid - 1
    return lo


def setplan(job, p, t, code, reason, pre=None, tb_lines=None, post=None):
    job.plan[p.rank] = {"t": t, "code": code, "reason": reason, "pre": pre or [], "tb": tb_lines or [], "post": post or []}


def collateral(job, t_block, mode, skip=(), remote_err=None, seq=None):
    """Ranks that did not start the failure: they block in the next collective."""
    rng = job.rng
    seq = job.seq_fail if seq is None else seq
    for p in job.procs:
        if p.rank in job.plan or p.rank in skip:
            continue
        if mode == "watchdog":
            t = t_block + job.timeout_s + rng.uniform(0.05, 2.5)
            setplan(job, p, t, -6, "watchdog", pre=watchdog_block(job, p, t, seq, job.coll_op, job.coll_numel))
        elif mode == "remote":
            t = t_block + rng.uniform(0.3, 25)
            err = remote_err(p) if remote_err else "Connection closed by remote peer"
            setplan(job, p, t, -6, "remote", pre=nccl_async_error_block(job, p, t, seq, "remote", err))
        elif mode == "terminated":
            setplan(job, p, t_block + rng.uniform(0.1, 3), -15, "terminated")


def finalize(job):
    """Apply launcher semantics: who gets SIGTERM'd when, then write outputs."""
    rng = job.rng
    plan = job.plan
    for p in job.procs:
        if p.rank not in plan:
            setplan(job, p, None, None, "hung")
    done = {}
    node_killed = {}
    job_killed = False
    scope_node = job.launcher in ("torchrun", "spawn", "k8s", "local")
    scope_job = job.launcher in ("srun_kill", "k8s", "local")
    while True:
        pend = sorted((pl["t"], r) for r, pl in plan.items() if r not in done and pl["t"] is not None)
        if not pend:
            break
        t, r = pend[0]
        done[r] = True
        pl = plan[r]
        if pl["code"] in (0, None) or pl["reason"] == "terminated":
            continue
        p = job.procs[r]
        if scope_node and p.node not in node_killed:
            node_killed[p.node] = t
            tk = t + rng.uniform(0.2, 1.5)
            for q in job.procs_on(p.node):
                if q.rank not in done and (plan[q.rank]["t"] is None or plan[q.rank]["t"] > tk):
                    setplan(job, q, tk + rng.uniform(0, 0.05), -15, "terminated")
        if scope_job and not job_killed:
            job_killed = True
            job.t_job_kill = t
            d = rng.uniform(0.5, 3) if job.launcher == "srun_kill" else rng.uniform(4, 45)
            for q in job.procs:
                if q.rank not in done and (plan[q.rank]["t"] is None or plan[q.rank]["t"] > t + d):
                    setplan(job, q, t + d + rng.uniform(0, 0.3), -15, "terminated")
    job.node_first_fail = node_killed
    last = job.t_fail
    for p in job.procs:
        pl = plan[p.rank]
        if pl["t"] is None:
            p.hung = True
            continue
        p.exit = (pl["t"], pl["code"])
        p.reason = pl["reason"]
        if pl["pre"]:
            p.out.append((pl["t"] - 0.01, pl["pre"]))
        if pl["tb"] and job.launcher != "spawn" and not getattr(job, "hydra_catch", False):
            p.out.append((pl["t"], pl["tb"]))
        if pl["post"]:
            p.out.append((pl["t"] + 0.01, pl["post"]))
        last = max(last, pl["t"])
    job.t_end = last + rng.uniform(0.5, 3)


# --------------------------------------------------------------------------
# causes
# --------------------------------------------------------------------------

def pick_culprit(job, nonzero=0.8, other_node=False):
    rng = job.rng
    if job.world == 1:
        return job.procs[0]
    cands = list(range(1, job.world))
    if other_node and job.nnodes > 1:
        cands = [r for r in cands if job.procs[r].node != 0] or cands
    if rng.random() < nonzero:
        r = rng.choice(cands)
    else:
        r = 0
    return job.procs[r]


def py_fail(job, p, t, kind, exc_lines, pre=None, code=1):
    frames = job.L.frames(job, kind)
    if getattr(job, "hydra_catch", False) and code == 1:
        code = 0  # hydra's run_job swallows the exception; the task returns normally
    setplan(job, p, t, code, "culprit", pre=pre, tb_lines=tb(frames, exc_lines))
    p.exc_kind = kind


def add_kern(job, node, t, msg):
    job.nodes[node].kern.append((t, msg))


def gpu_uuid(job, node, local):
    r = random.Random("%s-uuid-%d-%d-%d" % (NAME, job.idx, node, local))
    h = "%08x-%04x-%04x-%04x-%012x" % (r.getrandbits(32), r.getrandbits(16), r.getrandbits(16), r.getrandbits(16), r.getrandbits(48))
    return "GPU-" + h


def nvsmi_header(job, node, t):
    d = job.dt(node, t)
    return ["%s       " % f_ctime(d),
            "+---------------------------------------------------------------------------------------+",
            "| NVIDIA-SMI %-21s Driver Version: %-12s CUDA Version: %-9s|" % (job.gpu[4], job.gpu[4], {"12.1": "12.2", "12.4": "12.4", "12.6": "12.6", "12.8": "12.8"}[job.cuda]),
            "|-----------------------------------------+----------------------+----------------------+"]


def nvsmi_table(job, node, t, bad_local=None, bad_kind=None, hot=None):
    rng = job.rng
    out = nvsmi_header(job, node, t)
    out += ["| GPU  Name                 Persistence-M | Bus-Id        Disp.A | Volatile Uncorr. ECC |",
            "| Fan  Temp   Perf          Pwr:Usage/Cap |         Memory-Usage | GPU-Util  Compute M. |",
            "|=========================================+======================+======================|"]
    short = job.gpu[0].replace("NVIDIA ", "")[:20]
    for l in range(job.gpn):
        bus = job.busids[l].upper()
        if bad_local == l and bad_kind == "lost":
            continue
        ecc = "0"
        if bad_local == l and bad_kind == "ecc":
            ecc = str(rng.randint(1, 4))
        temp = rng.randint(38, 52)
        pw = rng.randint(70, 120)
        util = "0%"
        if hot is not None and l == hot:
            temp = rng.randint(86, 93)
            pw = rng.randint(380, 420)
            util = "100%"
        out.append("| %3d  %-20s           On  | 00000000:%s:00.0 Off |%21s |" % (l, short, bus, ecc))
        out.append("| N/A   %2dC    P0            %3dW / %3dW |      %5dMiB / %5dMiB |    %4s      Default |" % (temp, pw, 700 if "H1" in job.gpu[0] or "H2" in job.gpu[0] else 400, rng.randint(4, 600), job.gpu[2], util))
        out.append("|                                         |                      |             Disabled |")
        out.append("+-----------------------------------------+----------------------+----------------------+")
    return out


def cause_gpu_hardware(job):
    rng = job.rng
    p = pick_culprit(job, 0.85)
    n = p.node
    job.culprit_rank, job.culprit_node = p.rank, n
    tf = job.t_fail
    variant = rng.choice(["xid79", "xid79", "xid119"])
    bus = job.busids[p.local].upper()
    if variant == "xid79":
        add_kern(job, n, tf - rng.uniform(0.2, 3), xid_line(job, n, p.local, 79, None, "GPU has fallen off the bus."))
        add_kern(job, n, tf - 0.1, "NVRM: GPU 0000:%s:00.0: GPU has fallen off the bus." % job.busids[p.local])
        add_kern(job, n, tf - 0.05, "NVRM: GPU at PCI:0000:%s:00: %s" % (job.busids[p.local], gpu_uuid(job, n, p.local)))
        add_kern(job, n, tf - 0.04, "NVRM: GPU Board Serial Number: %d" % (1650000000000 + rng.randint(0, 99999999)))
        err = "unspecified launch failure" if rng.random() < 0.6 else "unknown error"
        pre = ["%s enqueue.cc:%d NCCL WARN Cuda failure '%s'" % (job.nccl_pre(p), rng.choice([1477, 1556, 2063]), err)] if job.nccl_debug or rng.random() < 0.5 else []
        if rng.random() < 0.5:
            py_fail(job, p, tf + rng.uniform(0.5, 4), "step", ["RuntimeError: CUDA error: %s" % err] + CUDA_TAIL, pre=pre)
        else:
            t = tf + rng.uniform(0.5, 4)
            setplan(job, p, t, -6, "culprit", pre=pre + cuda_watchdog_abort(job, p, t, err))
        job.notes.append("Xid 79 (fallen off the bus) on %s GPU %d (bus %s), rank %d dies with CUDA '%s'" % (job.nodes[n].host, p.local, bus, p.rank, err))
        if rng.random() < 0.6:
            job.extras["nvidia-smi_%s.txt" % job.nodes[n].host] = "\n".join(
                ["$ nvidia-smi", "Unable to determine the device handle for GPU0000:%s:00.0: Unknown Error" % bus]) + "\n"
            job.notes.append("nvidia-smi on that node cannot see the GPU")
        job.rank_ev = [("rank", p.rank), ("node", n)]
        collateral(job, tf + rng.uniform(0, 1.5), rng.choice(["watchdog", "watchdog", "remote"]),
                   remote_err=lambda q: "Net : Connection closed by remote peer %s<%d>" % (job.nodes[n].ip, rng.randint(30000, 60000)))
    else:
        # GSP RPC timeout: the process wedges in the driver, others time out
        for k in range(rng.randint(2, 5)):
            add_kern(job, n, tf + k * 6.0 + rng.uniform(0, 1), xid_line(job, n, p.local, 119, p.pid, "Timeout after 6s of waiting for RPC response from GPU%d GSP! Expected function 76 (GSP_RM_CONTROL) (0x20800a4c 0x4)." % p.local))
        add_kern(job, n, tf + 40, xid_line(job, n, p.local, 154, None, "GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)").replace("pid='<unknown>', name=<unknown>, ", ""))
        job.notes.append("Xid 119 GSP RPC timeouts + Xid 154 (reset required) on %s GPU %d; rank %d wedges, peers time out" % (job.nodes[n].host, p.local, p.rank))
        job.rank_ev = [("all", [("kern", n), ("nccl_bus", p.rank)]), ("visible_all",)]
        if rng.random() < 0.5:
            job.extras["nvidia-smi_%s.txt" % job.nodes[n].host] = "\n".join(
                ["$ nvidia-smi -q -i %d | grep -A3 -i recovery" % p.local, "    GPU Recovery Action                   : Reset"]) + "\n"
        collateral(job, tf + rng.uniform(0, 1.5), "watchdog", skip=(p.rank,))


def cause_ecc(job):
    rng = job.rng
    p = pick_culprit(job, 0.85)
    n = p.node
    job.culprit_rank, job.culprit_node = p.rank, n
    tf = job.t_fail
    v = rng.choice(["xid48", "xid94", "xid95"])
    if v == "xid48":
        add_kern(job, n, tf - 0.5, xid_line(job, n, p.local, 48, p.pid, "An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition %d, subpartition %d." % (rng.randint(0, 11), rng.randint(0, 1))))
        add_kern(job, n, tf - 0.3, xid_line(job, n, p.local, 63, p.pid, "Row Remapper: New row (0x%016x) Marked for Remapping, reset gpu to activate." % rng.randint(0x10000, 0x7ffff)))
    elif v == "xid94":
        add_kern(job, n, tf - 0.4, xid_line(job, n, p.local, 94, p.pid, "Contained: SM (0x1). RST: No, D-RST: No"))
        add_kern(job, n, tf - 0.3, xid_line(job, n, p.local, 63, p.pid, "Row Remapper: New row (0x%016x) Marked for Remapping, reset gpu to activate." % rng.randint(0x10000, 0x7ffff)))
    else:
        add_kern(job, n, tf - 0.4, xid_line(job, n, p.local, 95, p.pid, "Uncontained: FBHUB. RST: Yes, D-RST: No"))
    err = "uncorrectable ECC error encountered"
    t = tf + rng.uniform(0.2, 3)
    if rng.random() < 0.6:
        py_fail(job, p, t, rng.choice(["step", "opt"]), ["RuntimeError: CUDA error: %s" % err] + CUDA_TAIL)
    else:
        setplan(job, p, t, -6, "culprit", pre=cuda_watchdog_abort(job, p, t, err))
    job.notes.append("%s on %s GPU %d -> rank %d 'uncorrectable ECC error encountered'" % (v.replace("xid", "Xid "), job.nodes[n].host, p.local, p.rank))
    if rng.random() < 0.5:
        bus = job.busids[p.local].upper()
        job.extras["nvidia-smi-q-ecc_%s_gpu%d.txt" % (job.nodes[n].host, p.local)] = "\n".join([
            "$ nvidia-smi -q -d ECC,ROW_REMAPPER -i %d" % p.local, "", "==============NVSMI LOG==============", "",
            "Timestamp                                 : %s" % f_ctime(job.dt(n, job.t_fail + 900)),
            "Driver Version                            : %s" % job.gpu[4],
            "CUDA Version                              : %s" % job.cuda, "",
            "Attached GPUs                             : %d" % job.gpn,
            "GPU 00000000:%s:00.0" % bus,
            "    ECC Mode",
            "        Current                           : Enabled",
            "        Pending                           : Enabled",
            "    ECC Errors",
            "        Volatile",
            "            SRAM Correctable              : 0",
            "            SRAM Uncorrectable            : 0",
            "            DRAM Correctable              : %d" % rng.randint(0, 30),
            "            DRAM Uncorrectable            : %d" % rng.randint(1, 3),
            "        Aggregate",
            "            SRAM Correctable              : 0",
            "            SRAM Uncorrectable            : 0",
            "            DRAM Correctable              : %d" % rng.randint(30, 400),
            "            DRAM Uncorrectable            : %d" % rng.randint(2, 9),
            "    Remapped Rows",
            "        Correctable Error                 : 0",
            "        Uncorrectable Error               : %d" % rng.randint(1, 4),
            "        Pending                           : Yes",
            "        Remapping Failure Occurred        : No",
        ]) + "\n"
    job.rank_ev = [("rank", p.rank), ("node", n)]
    collateral(job, t, rng.choice(["watchdog", "watchdog", "remote"]),
               remote_err=lambda q: "Net : Connection closed by remote peer %s<%d>" % (job.nodes[n].ip, rng.randint(30000, 60000)))


def cause_nvlink(job):
    rng = job.rng
    if job.gpn < 2:
        raise ValueError("nvlink needs >1 GPU per node")
    p = pick_culprit(job, 0.85)
    n = p.node
    job.culprit_rank, job.culprit_node = p.rank, n
    tf = job.t_fail
    link = rng.randint(0, 17 if "H" in job.gpu[0] else 11)
    add_kern(job, n, tf - 0.6, xid_line(job, n, p.local, 74, p.pid, "NVLink: fatal error detected on link %d(0x%x, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0)" % (link, rng.choice([0x10000, 0x20000, 0x8000, 0x100]))))
    if rng.random() < 0.5:
        add_kern(job, n, tf - 0.5, "nvidia-nvswitch%d: SXid (PCI:0000:%02x:00.0): 20034, Fatal, Link %d LTSSM Fault Up" % (rng.randint(0, 3), rng.choice([5, 6, 7, 8]), rng.randint(20, 60)))
    err = "uncorrectable NVLink error detected during the execution"
    pre = ["%s transport/p2p.cc:%d NCCL WARN Cuda failure '%s'" % (job.nccl_pre(p, 2), rng.choice([275, 431]), err)] if rng.random() < 0.6 else []
    t = tf + rng.uniform(0.2, 2)
    if rng.random() < 0.5:
        py_fail(job, p, t, "step", ["RuntimeError: CUDA error: %s" % err] + CUDA_TAIL, pre=pre)
    else:
        setplan(job, p, t, -6, "culprit", pre=pre + nccl_async_error_block(job, p, t, job.seq_fail, "cuda", "Cuda failure '%s'" % err))
    job.notes.append("Xid 74 NVLink fatal error link %d on %s GPU %d -> rank %d" % (link, job.nodes[n].host, p.local, p.rank))
    if rng.random() < 0.5:
        lines = ["$ nvidia-smi nvlink -s -i %d" % p.local, "GPU %d: %s (UUID: %s)" % (p.local, job.gpu[0], gpu_uuid(job, n, p.local))]
        nl = 18 if "H" in job.gpu[0] else 12
        for k in range(nl):
            lines.append("\t Link %d: %s" % (k, "<inactive>" if k == link else ("26.562 GB/s" if nl == 18 else "25 GB/s")))
        job.extras["nvlink_status_%s.txt" % job.nodes[n].host] = "\n".join(lines) + "\n"
    job.rank_ev = [("rank", p.rank), ("node", n)]
    collateral(job, t, rng.choice(["watchdog", "remote"]),
               remote_err=lambda q: "Net : Connection closed by remote peer %s<%d>" % (job.nodes[n].ip, rng.randint(30000, 60000)))


def cause_network(job):
    rng = job.rng
    if job.nnodes < 2:
        raise ValueError("network needs multiple nodes")
    cands = list(range(1, job.nnodes)) if rng.random() < 0.85 else list(range(job.nnodes))
    n = rng.choice(cands)
    job.culprit_node = n
    job.culprit_rank = None
    tf = job.t_fail
    host = job.nodes[n]
    nic = rng.randint(0, min(7, job.gpn - 1))
    hca = "mlx5_%d" % nic
    pci = rng.choice(["0c", "1a", "3c", "4d", "5e", "8b", "9c", "c1", "d2"])
    if job.fabric == "ib":
        if rng.random() < 0.6:
            add_kern(job, n, tf - rng.uniform(1, 8), "mlx5_core 0000:%s:00.0: Port module event: module %d, Cable unplugged" % (pci, nic))
        for q in job.procs_on(n):
            if q.local == nic:
                q.out.append((tf + 0.2, ["%s transport/net_ib.cc:%d NCCL WARN NET/IB : %s:1 Got async event : port error" % (job.nccl_pre(q, 3), rng.choice([126, 135, 204]), hca)]))
        if rng.random() < 0.6:
            job.extras["ibstat_%s.txt" % host.host] = "\n".join([
                "$ ibstat %s" % hca, "CA '%s'" % hca, "\tCA type: MT4123" if "A100" in job.gpu[0] else "\tCA type: MT4129",
                "\tNumber of ports: 1", "\tFirmware version: %s" % rng.choice(["20.39.1002", "28.39.2048", "28.41.1000"]),
                "\tHardware version: 0", "\tNode GUID: 0x%016x" % rng.getrandbits(64),
                "\tSystem image GUID: 0x%016x" % rng.getrandbits(64), "\tPort 1:", "\t\tState: Down",
                "\t\tPhysical state: Polling", "\t\tRate: 10", "\t\tBase lid: 65535", "\t\tLMC: 0",
                "\t\tSM lid: %d" % rng.randint(1, 40), "\t\tCapability mask: 0xa651e848",
                "\t\tPort GUID: 0x%016x" % rng.getrandbits(64), "\t\tLink layer: InfiniBand"]) + "\n"
    else:
        ifn = rng.choice(["ens12f0np0", "enp193s0f1np1", "eth2", "rdma3"])
        add_kern(job, n, tf - rng.uniform(0.5, 5), "mlx5_core 0000:%s:00.0 %s: Link down" % (pci, ifn))
        if rng.random() < 0.5:
            add_kern(job, n, tf + rng.uniform(60, 200), "mlx5_core 0000:%s:00.0 %s: Link up" % (pci, ifn))
    seq = job.seq_fail
    errs = {}
    # peers that talk to the bad node see retry-exceeded completions naming its IP
    peer_nodes = sorted(set([(n - 1) % job.nnodes, (n + 1) % job.nnodes]) - {n})
    t_err = tf + rng.uniform(5, 40)
    for q in job.procs:
        if q.node == n:
            other = job.nodes[rng.choice(peer_nodes)]
            ln, s = nccl_ib_error(job, q, other.ip, rng.randint(30000, 60000), rng.choice(["Send", "Recv"]), status=rng.choice([12, 12, 5]))
            t = t_err + rng.uniform(0, 2)
            setplan(job, q, t, -6, "culprit_node", pre=[ln] + nccl_async_error_block(job, q, t, seq, "remote", s))
        elif q.node in peer_nodes and (q.local == nic or rng.random() < 0.35):
            ln, s = nccl_ib_error(job, q, host.ip, rng.randint(30000, 60000), rng.choice(["Send", "Recv"]))
            t = t_err + rng.uniform(0, 3)
            setplan(job, q, t, -6, "remote", pre=[ln] + nccl_async_error_block(job, q, t, seq, "remote", s))
    job.notes.append("%s NIC %s on %s (%s) fails; peers log NET/IB completions with status=12 naming %s" % (
        job.fabric.upper() if job.fabric == "ib" else "RoCE", hca, host.host, host.ip, host.ip))
    job.rank_ev = []
    collateral(job, tf + rng.uniform(0, 1), "watchdog")


def cause_cuda_oom(job):
    rng = job.rng
    p = pick_culprit(job, 0.75)
    job.culprit_rank, job.culprit_node = p.rank, p.node
    t = job.t_fail + rng.uniform(0.05, 0.6)
    pre = job.L.oom_prelude(job, p, t) if hasattr(job.L, "oom_prelude") else []
    py_fail(job, p, t, rng.choice(["step", "fwd"]), oom_message(job, p), pre=pre)
    job.notes.append("CUDA OOM on rank %d (%s GPU %d)" % (p.rank, job.nodes[p.node].host, p.local))
    job.rank_ev = [("rank", p.rank), ("node", p.node)]
    collateral(job, t, rng.choice(["watchdog", "watchdog", "remote"]),
               remote_err=lambda q: "Net : Connection closed by remote peer %s<%d>" % (job.nodes[p.node].ip, rng.randint(30000, 60000)))


def cause_ima(job):
    rng = job.rng
    p = pick_culprit(job, 0.8)
    job.culprit_rank, job.culprit_node = p.rank, p.node
    t = job.t_fail + rng.uniform(0.05, 1)
    v = rng.random()
    if rng.random() < 0.6:
        add_kern(job, p.node, t - 0.2, xid_line(job, p.node, p.local, 31, p.pid,
                 "Ch %08x, intr 00000000. MMU Fault: ENGINE GRAPHICS GPC%d GPCCLIENT_T1_%d faulted @ 0x%x_%08x. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ" % (
                     rng.choice([8, 16, 24]), rng.randint(0, 7), rng.randint(0, 15), rng.randint(0x7f00, 0x7fff), rng.randint(0, 0xffff) << 16)))
        job.notes.append("Xid 31 (MMU fault, application-caused) alongside")
    if v < 0.55:
        py_fail(job, p, t, rng.choice(["step", "fwd"]), ["RuntimeError: CUDA error: an illegal memory access was encountered"] + CUDA_TAIL)
    else:
        setplan(job, p, t, -6, "culprit", pre=cuda_watchdog_abort(job, p, t, "an illegal memory access was encountered"))
    job.notes.append("illegal memory access on rank %d" % p.rank)
    job.rank_ev = [("rank", p.rank), ("node", p.node)]
    collateral(job, t, rng.choice(["watchdog", "remote"]),
               remote_err=lambda q: "Net : Connection closed by remote peer %s<%d>" % (job.nodes[p.node].ip, rng.randint(30000, 60000)))


PY_EXC = [
    ("data", ["OSError: Caught OSError in DataLoader worker process %(w)d.", "Original Traceback (most recent call last):",
              '  File "%(sp)s/torch/utils/data/_utils/worker.py", line 308, in _worker_loop', "    data = fetcher.fetch(index)",
              '  File "%(sp)s/torch/utils/data/_utils/fetch.py", line 51, in fetch', "    data = [self.dataset[idx] for idx in possibly_batched_index]",
              '  File "%(ds)s", line %(l1)d, in __getitem__', "    img = Image.open(path).convert(\"RGB\")",
              '  File "%(sp)s/PIL/Image.py", line 922, in convert', "    self.load()",
              '  File "%(sp)s/PIL/ImageFile.py", line 288, in load', '    raise OSError(msg)',
              "OSError: image file is truncated (%(b)d bytes not processed)", ""]),
    ("data", ["KeyError: Caught KeyError in DataLoader worker process %(w)d.", "Original Traceback (most recent call last):",
              '  File "%(sp)s/torch/utils/data/_utils/worker.py", line 308, in _worker_loop', "    data = fetcher.fetch(index)",
              '  File "%(sp)s/torch/utils/data/_utils/fetch.py", line 51, in fetch', "    data = [self.dataset[idx] for idx in possibly_batched_index]",
              '  File "%(ds)s", line %(l1)d, in __getitem__', "    target = self.annotations[img_id][\"%(key)s\"]",
              "KeyError: '%(key)s'", ""]),
    ("data", ["ValueError: Caught ValueError in DataLoader worker process %(w)d.", "Original Traceback (most recent call last):",
              '  File "%(sp)s/torch/utils/data/_utils/worker.py", line 308, in _worker_loop', "    data = fetcher.fetch(index)",
              '  File "%(sp)s/torch/utils/data/_utils/fetch.py", line 54, in fetch', "    return self.collate_fn(data)",
              '  File "%(sp)s/torch/utils/data/_utils/collate.py", line 277, in default_collate', "    return collate(batch, collate_fn_map=default_collate_fn_map)",
              '  File "%(sp)s/torch/utils/data/_utils/collate.py", line 142, in collate', "    return elem_type({key: collate([d[key] for d in batch], collate_fn_map=collate_fn_map) for key in elem})",
              '  File "%(sp)s/torch/utils/data/_utils/collate.py", line 119, in collate', "    return collate_fn_map[elem_type](batch, collate_fn_map=collate_fn_map)",
              '  File "%(sp)s/torch/utils/data/_utils/collate.py", line 162, in collate_tensor_fn', "    return torch.stack(batch, 0, out=out)",
              "RuntimeError: stack expects each tensor to be equal size, but got [3, %(h)d, %(w2)d] at entry 0 and [3, %(h)d, %(w3)d] at entry %(e)d", ""]),
    ("fwd", ["RuntimeError: shape '[%(b2)d, -1, %(c)d]' is invalid for input of size %(sz)d"]),
    ("fwd", ["AssertionError: %(assert)s"]),
    ("step", ["ValueError: Expected parameter loc (Tensor of shape (%(b2)d, %(c)d)) of distribution Normal(loc: torch.Size([%(b2)d, %(c)d]), scale: torch.Size([%(b2)d, %(c)d])) to satisfy the constraint Real(), but found invalid values:", "tensor([[nan, nan, nan,  ..., nan, nan, nan]], device='cuda:%(dev)d', grad_fn=<AddmmBackward0>)"]),
    ("fwd", ["IndexError: index %(idx)d is out of bounds for dimension 0 with size %(c)d"]),
]


def cause_python_exception(job):
    rng = job.rng
    p = pick_culprit(job, 0.8)
    job.culprit_rank, job.culprit_node = p.rank, p.node
    t = job.t_fail + rng.uniform(0.01, 0.5)
    kind, tmpl = rng.choice(job.L.py_exc_choices(job) if hasattr(job.L, "py_exc_choices") else PY_EXC)
    vals = {"w": rng.randint(0, 7), "sp": job.sp, "ds": job.L.dataset_file(job), "l1": rng.randint(40, 220),
            "b": rng.randint(1, 4096), "key": rng.choice(["segmentation", "bbox", "category_id", "caption", "label"]),
            "h": rng.choice([512, 640, 800, 224]), "w2": rng.choice([683, 512, 1066, 224]), "w3": rng.choice([341, 768, 800, 256]),
            "e": rng.randint(1, 15), "b2": rng.choice([2, 4, 8, 16]), "c": rng.choice([256, 512, 768, 1024]),
            "sz": rng.randint(100000, 9999999), "dev": p.local, "idx": rng.randint(1024, 70000),
            "assert": rng.choice(["gt_bboxes must be finite", "attention mask has wrong shape", "Loss is nan, stopping training", "num_tokens (0) must be positive"])}
    exc = [x % vals for x in tmpl]
    py_fail(job, p, t, kind, exc)
    heads = [x for x in exc if x and x[0].isalpha() and ": " in x and x.split(": ")[0].replace(".", "").isalnum()]
    job.notes.append("%s on rank %d: %s" % ("dataloader-worker exception" if kind == "data" else "python exception", p.rank, (heads[-1] if heads else exc[0])[:90]))
    job.rank_ev = [("rank", p.rank), ("node", p.node)]
    collateral(job, t, rng.choice(["watchdog", "watchdog", "remote"]),
               remote_err=lambda q: "Net : Connection closed by remote peer %s<%d>" % (job.nodes[p.node].ip, rng.randint(30000, 60000)))


def oom_kill_lines(job, node, t, pid, pname, rss_kb):
    rng = job.rng
    if job.launcher == "k8s":
        cg = "k8s"
    elif job.launcher in ("srun", "srun_kill", "submitit"):
        cg = rng.choice(["slurm", "global"])
    else:
        cg = rng.choice(["docker", "global", "global"])
    out = []
    out.append((t - 0.02, "%s invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0" % rng.choice(["python", "pt_data_worker", "python3", "node_exporter"])))
    out.append((t - 0.015, "CPU: %d PID: %d Comm: %s Tainted: P           OE     %s #%d-Ubuntu" % (rng.randint(0, 191), rng.randint(1000, 99999), pname, rng.choice(["5.15.0-105-generic", "6.5.0-1018-aws", "6.8.0-48-generic"]), rng.randint(40, 140))))
    if cg != "global":
        if cg == "slurm":
            mc = "oom_memcg=/slurm/uid_1000/job_%d,task_memcg=/slurm/uid_1000/job_%d/step_0/task_%d" % (job.slurm_jobid, job.slurm_jobid, 0)
        elif cg == "k8s":
            pod = "kubepods-burstable-pod%s.slice" % rand_id(rng, 32, "0123456789abcdef")
            mc = "oom_memcg=/kubepods.slice/kubepods-burstable.slice/%s/cri-containerd-%s.scope,task_memcg=/kubepods.slice/kubepods-burstable.slice/%s/cri-containerd-%s.scope" % (pod, "X", pod, "X")
            cid = rand_id(rng, 64, "0123456789abcdef")
            mc = mc.replace("-X.scope", "-%s.scope" % cid)
        else:
            cid = rand_id(rng, 64, "0123456789abcdef")
            mc = "oom_memcg=/system.slice/docker-%s.scope,task_memcg=/system.slice/docker-%s.scope" % (cid, cid)
        out.append((t - 0.01, "memory: usage %dkB, limit %dkB, failcnt %d" % (rss_kb + 20000000, rss_kb + 20000000, rng.randint(1, 50))))
        out.append((t - 0.009, "oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0-1,%s,task=%s,pid=%d,uid=%d" % (mc, pname, pid, 0 if cg in ("k8s", "docker") else 1000)))
        out.append((t, "Memory cgroup out of memory: Killed process %d (%s) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:1000 pgtables:%dkB oom_score_adj:0" % (pid, pname, rss_kb * 3, rss_kb, rng.randint(50000, 900000), rng.randint(0, 3000000), rss_kb // 400)))
    else:
        out.append((t - 0.009, "oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0-1,global_oom,task_memcg=/user.slice/user-1000.slice/session-%d.scope,task=%s,pid=%d,uid=1000" % (rng.randint(2, 900), pname, pid)))
        out.append((t, "Out of memory: Killed process %d (%s) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:1000 pgtables:%dkB oom_score_adj:0" % (pid, pname, rss_kb * 3, rss_kb, rng.randint(50000, 900000), rng.randint(0, 3000000), rss_kb // 400)))
    out.append((t + 0.3, "oom_reaper: reaped process %d (%s), now anon-rss:0kB, file-rss:0kB, shmem-rss:%dkB" % (pid, pname, rng.randint(0, 9000))))
    for tt, m in out:
        add_kern(job, node, tt, m)


def cause_host_oom(job):
    rng = job.rng
    p = pick_culprit(job, 0.75)
    n = p.node
    job.culprit_rank, job.culprit_node = p.rank, n
    t = job.t_fail + rng.uniform(0.05, 1)
    rss = rng.randint(60, 220) * 1024 * 1024
    if rng.random() < 0.55:
        oom_kill_lines(job, n, t, p.pid, "python", rss)
        setplan(job, p, t, -9, "culprit")
        job.notes.append("kernel OOM killer SIGKILLs rank %d (pid %d) on %s" % (p.rank, p.pid, job.nodes[n].host))
    else:
        wpid = p.pid + rng.randint(200, 4000)
        oom_kill_lines(job, n, t - 0.5, wpid, rng.choice(["python", "pt_data_worker"]), rss // 4)
        py_fail(job, p, t, "data", ["RuntimeError: DataLoader worker (pid %d) is killed by signal: Killed. " % wpid],
                pre=[])
        job.notes.append("kernel OOM killer kills a DataLoader worker (pid %d) of rank %d on %s" % (wpid, p.rank, job.nodes[n].host))
    if job.launcher in ("srun", "srun_kill", "submitit"):
        job.slurm.append((t + 1, "slurmstepd: error: Detected 1 oom_kill event in StepId=%d.0. Some of the step tasks have been OOM Killed." % job.slurm_jobid, n))
    job.rank_ev = [("rank", p.rank), ("node", n)]
    collateral(job, t, rng.choice(["watchdog", "remote"]),
               remote_err=lambda q: "Net : Connection closed by remote peer %s<%d>" % (job.nodes[n].ip, rng.randint(30000, 60000)))


def cause_crash(job):
    rng = job.rng
    p = pick_culprit(job, 0.8)
    n = p.node
    job.culprit_rank, job.culprit_node = p.rank, n
    t = job.t_fail + rng.uniform(0.05, 1)
    v = rng.choice(["segv", "segv", "abrt", "bus"])
    lib = rng.choice(["libnccl.so.2", "libc10_cuda.so", "libtorch_cuda.so", "_C.cpython-310-x86_64-linux-gnu.so", "libcudnn_engines_precompiled.so.9", "libjpeg-turbo.so"])
    pre = []
    if v == "segv":
        add_kern(job, n, t - 0.01, "python[%d]: segfault at %x ip 00007f%010x sp 00007ff%09x error %d in %s[7f%010x+%x] likely on CPU %d (core %d, socket %d)" % (
            p.pid, rng.choice([0, 8, 0x18, 0x7f0000001000]), rng.getrandbits(36), rng.getrandbits(32), rng.choice([4, 6, 14]), lib,
            rng.getrandbits(36), rng.randint(0x100000, 0x9000000), rng.randint(0, 95), rng.randint(0, 47), rng.randint(0, 1)))
        add_kern(job, n, t - 0.009, "Code: %s" % " ".join("%02x" % rng.randint(0, 255) for _ in range(20)))
        code = -11
        if rng.random() < 0.5:
            pre = ["Fatal Python error: Segmentation fault", "", "Thread 0x%012x (most recent call first):" % rng.getrandbits(44),
                   '  File "%s/threading.py", line 331 in wait' % job.pylib,
                   '  File "%s/threading.py", line 629 in wait' % job.pylib,
                   '  File "%s/tqdm/_monitor.py", line 60 in run' % job.sp, "",
                   "Current thread 0x%012x (most recent call first):" % rng.getrandbits(44)]
            for f, ln, fn, _ in reversed(job.L.frames(job, "step")[-6:]):
                pre.append('  File "%s", line %d in %s' % (f, ln, fn))
    elif v == "abrt":
        pre = [rng.choice(["free(): invalid pointer", "double free or corruption (!prev)", "corrupted double-linked list", "malloc(): unaligned tcache chunk detected"])]
        code = -6
    else:
        code = -7
        add_kern(job, n, t - 0.01, "python[%d]: potentially unexpected fatal signal 7." % p.pid)
    setplan(job, p, t, code, "culprit", pre=pre)
    job.notes.append("rank %d dies with %s (%s)" % (p.rank, SIGNAMES[-code], v))
    job.rank_ev = [("rank", p.rank), ("node", n)]
    collateral(job, t, rng.choice(["watchdog", "remote"]),
               remote_err=lambda q: "Net : Connection closed by remote peer %s<%d>" % (job.nodes[n].ip, rng.randint(30000, 60000)))


def cause_preemption(job):
    rng = job.rng
    tf = job.t_fail
    if job.launcher in ("srun", "srun_kill", "submitit"):
        # job-level preemption by a higher-priority job
        job.culprit_rank = None
        job.culprit_node = None
        job.preempt_slurm = True
        for p in job.procs:
            setplan(job, p, tf + rng.uniform(0.2, 2), -15, "terminated")
        for n in job.nodes:
            job.slurm.append((tf + rng.uniform(0, 0.5), "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO PREEMPTION ***" % (job.slurm_jobid, n.host, f_slurm(job.dt(n.idx, tf))), n.idx))
        job.notes.append("Slurm preempts the whole job (CANCELLED ... DUE TO PREEMPTION); no culprit node")
        job.rank_ev = []
        return
    n = rng.randrange(1, job.nnodes) if job.nnodes > 1 and rng.random() < 0.85 else 0
    job.culprit_node = n
    job.culprit_rank = None
    job.preempt_node = n
    for q in job.procs_on(n):
        setplan(job, q, tf + rng.uniform(0.5, 3), -15, "terminated")
    job.notes.append("node %s preempted (spot / node shutdown); its workers get SIGTERM" % job.nodes[n].host)
    if job.launcher != "k8s":
        nd = job.nodes[n]
        lg = rng.randint(700, 1500)
        if rng.random() < 0.75:
            L = ["$ journalctl -b -1 --no-pager | tail -n 14"]
            for k, (dt_, msg) in enumerate([(-0.4, "systemd-logind[%d]: Power key pressed short." % lg),
                                            (-0.39, "systemd-logind[%d]: Powering off..." % lg),
                                            (-0.38, "systemd-logind[%d]: System is powering down." % lg),
                                            (-0.2, "systemd[1]: Stopping Session %d of User %s..." % (rng.randint(2, 40), rng.choice(["alice", "ubuntu", "ec2-user"]))),
                                            (-0.1, "systemd[1]: Stopped target Graphical Interface."),
                                            (0.3, "systemd[1]: Stopping NVIDIA Persistence Daemon..."),
                                            (1.5, "nvidia-persistenced[%d]: Received signal 15" % rng.randint(1000, 3000)),
                                            (2.2, "systemd[1]: Stopped NVIDIA Persistence Daemon."),
                                            (4.0, "systemd[1]: Reached target Power-Off."),
                                            (4.1, "systemd-shutdown[1]: Syncing filesystems and block devices.")]):
                d = job.dt(n, tf + dt_)
                L.append("%s %s %s" % (f_journal(d), nd.host, msg))
            job.extras["journal-prev-boot_%s.txt" % nd.host] = "\n".join(L) + "\n"
        if "a3mega" in nd.host or rng.random() < 0.3:
            d = job.dt_utc(n, tf - 28)
            job.extras["gcloud_operations.txt"] = "$ gcloud compute operations list --filter=\"operationType=compute.instances.preempted\" --limit 5\nNAME                                                  TYPE                         TARGET                                              HTTP_STATUS  STATUS  TIMESTAMP\nsystemevent-%d-%s  compute.instances.preempted  us-central1-b/instances/%s  200          DONE    %s.%03d-00:00\n" % (
                int((d - datetime(1970, 1, 1)).total_seconds() * 1000), rand_id(rng, 12, "0123456789abcdef"), nd.host, d.strftime("%Y-%m-%dT%H:%M:%S"), d.microsecond // 1000)
    job.rank_ev = []
    collateral(job, tf + 2, rng.choice(["remote", "watchdog"]),
               remote_err=lambda q: "Net : Connection closed by remote peer %s<%d>" % (job.nodes[n].ip, rng.randint(30000, 60000)))


def pyspy_dump(job, p, t, where):
    rng = job.rng
    sp = job.sp
    py = job.pylib
    out = ["Process %d: %s -u %s" % (p.pid, job.pybin, job.L.script_cmd(job)),
           "Python v%s.%d (%s)" % (job.py, rng.randint(4, 14), job.pybin), ""]
    out.append('Thread %d (idle): "MainThread"' % p.pid)
    if where == "dataloader":
        stack = [("wait", py + "/threading.py", 324), ("get", py + "/multiprocessing/queues.py", 113),
                 ("_try_get_data", sp + "/torch/utils/data/dataloader.py", 1133), ("_get_data", sp + "/torch/utils/data/dataloader.py", 1294),
                 ("_next_data", sp + "/torch/utils/data/dataloader.py", 1332), ("__next__", sp + "/torch/utils/data/dataloader.py", 630)]
    elif where == "lock":
        stack = [("_wait_for_tstate_lock", py + "/threading.py", 1116), ("join", py + "/threading.py", 1096),
                 ("flush", job.L.dataset_file(job).rsplit("/", 1)[0] + "/utils/async_writer.py", 88),
                 ("save_checkpoint", job.L.dataset_file(job).rsplit("/", 1)[0] + "/utils/checkpoint.py", 141)]
    else:
        stack = [("synchronize", sp + "/torch/cuda/__init__.py", 801), ("log_metrics", job.L.dataset_file(job).rsplit("/", 1)[0] + "/utils/metrics.py", 57)]
    for fn, f, ln in stack:
        out.append("    %s (%s:%d)" % (fn, f, ln))
    for f, ln, fn, _ in reversed(job.L.frames(job, "data" if where == "dataloader" else "step")[:4]):
        out.append("    %s (%s:%d)" % (fn, f, ln))
    out.append('Thread %d (idle): "Thread-%d (_pin_memory_loop)"' % (p.pid + 57, rng.randint(2, 6)))
    out.append("    select (%s/selectors.py:415)" % py)
    out.append("    _pin_memory_loop (%s/torch/utils/data/_utils/pin_memory.py:53)" % sp)
    return out


def cause_hang(job):
    rng = job.rng
    p = pick_culprit(job, 0.8)
    n = p.node
    job.culprit_rank, job.culprit_node = p.rank, n
    tf = job.t_fail
    job.notes.append("rank %d silently stops before collective %d; others hit the watchdog" % (p.rank, job.seq_fail))
    job.rank_ev = [("visible_all",)]
    if rng.random() < 0.55:
        where = rng.choice(["lock", "cuda"])
        job.extras["py-spy_rank%d_%s.txt" % (p.rank, job.nodes[n].host)] = "\n".join(
            ["$ py-spy dump --pid %d" % p.pid] + pyspy_dump(job, p, tf + job.timeout_s * 0.7, where)) + "\n"
        job.rank_ev.append(("extra", "py-spy_rank%d_%s.txt" % (p.rank, job.nodes[n].host)))
        job.notes.append("py-spy dump of the stuck rank attached")
    collateral(job, tf + rng.uniform(0, 1), "watchdog", skip=(p.rank,))


def cause_dl_stall(job):
    rng = job.rng
    p = pick_culprit(job, 0.75)
    n = p.node
    job.culprit_rank, job.culprit_node = p.rank, n
    tf = job.t_fail
    fs = rng.choice(["fs01", "nfs-home", "storage-02.cluster.internal", "10.12.0.5"])
    job.rank_ev = [("visible_all",)]
    if rng.random() < 0.5:
        for k in range(rng.randint(1, 4)):
            add_kern(job, n, tf - rng.uniform(5, 60) + k * 180, "nfs: server %s not responding, still trying" % fs)
        job.notes.append("kernel 'nfs: server %s not responding' on %s" % (fs, job.nodes[n].host))
    dl_to = rng.choice([None, None, 300, 600, 900])
    if dl_to is not None and dl_to < job.timeout_s:
        t = tf + dl_to + rng.uniform(0.01, 1)
        py_fail(job, p, t, "data", ["RuntimeError: DataLoader timed out after %d seconds" % dl_to])
        job.rank_ev = [("rank", p.rank), ("node", n)]
        job.notes.append("rank %d DataLoader(timeout=%d) raises; others blocked" % (p.rank, dl_to))
        collateral(job, tf + rng.uniform(0, 1), "watchdog")
    else:
        job.notes.append("rank %d's input pipeline stalls (no error on that rank); others hit the watchdog" % p.rank)
        if rng.random() < 0.6:
            job.extras["py-spy_rank%d_%s.txt" % (p.rank, job.nodes[n].host)] = "\n".join(
                ["$ py-spy dump --pid %d" % p.pid] + pyspy_dump(job, p, tf + job.timeout_s * 0.6, "dataloader")) + "\n"
            job.rank_ev.append(("extra", "py-spy_rank%d_%s.txt" % (p.rank, job.nodes[n].host)))
        collateral(job, tf + rng.uniform(0, 1), "watchdog", skip=(p.rank,))
    job.dl_stall_rank = p.rank


def fingerprint(job, seq, op, shape, dtype="Float"):
    return "CollectiveFingerPrint(SequenceNumber=%d, OpType=%s, TensorShape=[%s], TensorDtypes=%s, TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt)))" % (seq, op, shape, dtype)


def cause_collective_mismatch(job):
    rng = job.rng
    p = pick_culprit(job, 0.7)
    job.culprit_rank, job.culprit_node = p.rank, p.node
    tf = job.t_fail
    good_op = "ALLREDUCE"
    bad_op = rng.choice(["BROADCAST", "ALLGATHER", "BARRIER", "REDUCE_SCATTER"])
    seq = job.seq_fail
    if rng.random() < 0.45:
        # TORCH_DISTRIBUTED_DEBUG=DETAIL: every rank raises, naming the odd one out
        job.debug_detail = True
        shape = str(job.coll_numel)
        ref = 0 if p.rank != 0 else 1
        for q in job.procs:
            t = tf + rng.uniform(0.01, 0.8)
            if q.rank == p.rank:
                msg = "RuntimeError: Detected mismatch between collectives on ranks. Rank %d is running collective: %s, but Rank %d is running collective: %s.Collectives differ in the following aspects: \t Op type: %svs %s" % (
                    q.rank, fingerprint(job, seq, bad_op, "1" if bad_op == "BARRIER" else shape), ref, fingerprint(job, seq, good_op, shape), bad_op, good_op)
            else:
                msg = "RuntimeError: Detected mismatch between collectives on ranks. Rank %d is running collective: %s, but Rank %d is running collective: %s.Collectives differ in the following aspects: \t Op type: %svs %s" % (
                    q.rank, fingerprint(job, seq, good_op, shape), p.rank, fingerprint(job, seq, bad_op, "1" if bad_op == "BARRIER" else shape), good_op, bad_op)
            frames = job.L.frames(job, "allreduce")
            setplan(job, q, t, 1, "culprit" if q.rank == p.rank else "mismatch", tb_lines=tb(frames, [msg]))
        job.notes.append("TORCH_DISTRIBUTED_DEBUG=DETAIL: rank %d issues %s while the rest run %s (seq %d); all ranks raise" % (p.rank, bad_op, good_op, seq))
        job.rank_ev = [("any_rank",)]
        return
    # no debug: the odd rank waits in a different collective, everybody times out
    t_b = tf + rng.uniform(0, 1)
    t = t_b + job.timeout_s + rng.uniform(0.05, 2)
    setplan(job, p, t, -6, "culprit", pre=watchdog_block(job, p, t, seq, bad_op, rng.choice([1, 4096, job.coll_numel // 4])))
    collateral(job, t_b, "watchdog", seq=seq)
    job.notes.append("rank %d enqueues %s where others enqueue %s at SeqNum=%d; all time out, the odd WorkNCCL names the culprit" % (p.rank, bad_op, good_op, seq))
    job.rank_ev = [("rank", p.rank)]


def cause_straggler(job):
    rng = job.rng
    p = pick_culprit(job, 0.8)
    n = p.node
    job.culprit_rank, job.culprit_node = p.rank, n
    # slowdown starts partway through
    s0 = job.start_step + int(job.steps_run * rng.uniform(0.05, 0.5))
    job.slow_from = s0
    job.slow_factor = round(rng.uniform(1.35, 2.6), 2)
    job.t_fail = job.t_of(job.start_step + job.steps_run)
    job.progress_end = job.t_fail
    outcome = rng.choice(["finish", "finish", "timelimit"])
    job.straggler_outcome = outcome
    job.notes.append("rank %d (%s GPU %d) thermally throttled from step %d; global step time x%.2f; outcome=%s" % (p.rank, job.nodes[n].host, p.local, s0, job.slow_factor, outcome))
    job.rank_ev = []
    if rng.random() < 0.75:
        bus = job.busids[p.local].upper()
        d = job.dt(n, job.t_fail - rng.uniform(60, 1800))
        job.extras["nvidia-smi-q-perf_%s.txt" % job.nodes[n].host] = "\n".join([
            "$ nvidia-smi -q -d PERFORMANCE,TEMPERATURE -i %d" % p.local, "", "==============NVSMI LOG==============", "",
            "Timestamp                                 : %s" % f_ctime(d),
            "Driver Version                            : %s" % job.gpu[4],
            "CUDA Version                              : %s" % job.cuda, "",
            "Attached GPUs                             : %d" % job.gpn,
            "GPU 00000000:%s:00.0" % bus,
            "    Performance State                     : P0",
            "    Clocks Event Reasons" if job.gpu[4] >= "535" else "    Clocks Throttle Reasons",
            "        Idle                              : Not Active",
            "        Applications Clocks Setting       : Not Active",
            "        SW Power Cap                      : Not Active",
            "        HW Slowdown                       : Active",
            "            HW Thermal Slowdown           : Active",
            "            HW Power Brake Slowdown       : Not Active",
            "        Sync Boost                        : Not Active",
            "        SW Thermal Slowdown               : Active",
            "        Display Clock Setting             : Not Active",
            "    Temperature",
            "        GPU Current Temp                  : %d C" % rng.randint(87, 94),
            "        GPU T.Limit Temp                  : %d C" % rng.randint(-6, -1),
            "        GPU Shutdown Temp                 : 92 C" if False else "        GPU Shutdown T.Limit Temp         : -7 C",
            "        GPU Slowdown T.Limit Temp         : -2 C",
            "        GPU Max Operating T.Limit Temp    : 0 C",
            "        GPU Target Temperature            : N/A",
            "        Memory Current Temp               : %d C" % rng.randint(80, 95),
            "        Memory Max Operating T.Limit Temp : 0 C",
        ]) + "\n"
        job.rank_ev.append(("extra", "nvidia-smi-q-perf_%s.txt" % job.nodes[n].host))
        job.notes.append("nvidia-smi -q shows HW/SW thermal slowdown on that GPU")
    for q in job.procs:
        if outcome == "finish":
            setplan(job, q, job.t_fail + rng.uniform(30, 120), 0, "ok")
        else:
            setplan(job, q, job.t_fail + rng.uniform(0.1, 2), -15, "terminated")
    if outcome == "timelimit":
        job.timelimit = True
        if job.launcher in ("srun", "srun_kill", "submitit"):
            for nd in job.nodes:
                job.slurm.append((job.t_fail + rng.uniform(0, 0.4), "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO TIME LIMIT ***" % (job.slurm_jobid, nd.host, f_slurm(job.dt(nd.idx, job.t_fail))), nd.idx))
    job.end_kind = "success" if outcome == "finish" else "fail"


def cause_unknown(job):
    rng = job.rng
    job.culprit_rank = None
    job.culprit_node = None
    tf = job.t_fail
    job.rank_ev = []
    job.notes.append("every visible rank times out in the same collective (SeqNum=%d); nothing names an initiator" % job.seq_fail)
    collateral(job, tf + rng.uniform(0, 1), "watchdog")


def cause_healthy(job):
    rng = job.rng
    job.culprit_rank = None
    job.culprit_node = None
    job.end_kind = "success"
    job.rank_ev = []
    for q in job.procs:
        setplan(job, q, job.t_fail + rng.uniform(20, 140), 0, "ok")
    job.notes.append("healthy run; completes")


CAUSE_FN = {
    "gpu_hardware": cause_gpu_hardware, "ecc_memory": cause_ecc, "nvlink": cause_nvlink,
    "network": cause_network, "cuda_oom": cause_cuda_oom, "illegal_memory_access": cause_ima,
    "python_exception": cause_python_exception, "host_oom_kill": cause_host_oom,
    "crash_signal": cause_crash, "preemption": cause_preemption, "hang": cause_hang,
    "data_loader_stall": cause_dl_stall, "collective_mismatch": cause_collective_mismatch,
    "straggler": cause_straggler, "unknown": cause_unknown,
}


# --------------------------------------------------------------------------
# decoys
# --------------------------------------------------------------------------

def add_decoys(job):
    rng = job.rng
    others = [n.idx for n in job.nodes if n.idx != job.culprit_node]
    if others and rng.random() < 0.55:
        n = rng.choice(others)
        l = rng.randrange(job.gpn)
        t_old = -rng.uniform(3600 * 2, 3600 * 24 * 4)
        xid, txt = rng.choice([
            (31, "Ch 00000008, intr 10000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_0 faulted @ 0x7f2b_1c000000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ"),
            (13, "Graphics SM Warp Exception on (GPC 2, TPC 1, SM 0): Out Of Range Address"),
            (43, "Ch 00000010"),
            (45, "Ch 00000010"),
        ])
        add_kern(job, n, t_old, xid_line(job, n, l, xid, rng.randint(2000, 900000), txt, pname=rng.choice(["python3", "pt_main_thread", "python"])))
        if xid == 13:
            add_kern(job, n, t_old + 0.001, xid_line(job, n, l, 13, rng.randint(2000, 900000), "Graphics Exception: ESR 0x50e730=0x107000e 0x50e734=0x24 0x50e728=0x4c1eb72 0x50e72c=0x174"))
        job.decoys.append("old benign Xid %d on %s GPU %d (%.1f h before the job)" % (xid, job.nodes[n].host, l, -t_old / 3600))
    # a few benign kernel lines on nodes
    for n in job.nodes[: min(4, job.nnodes)]:
        if rng.random() < 0.4:
            add_kern(job, n.idx, rng.uniform(-600, job.t_fail), rng.choice([
                "perf: interrupt took too long (2503 > 2500), lowering kernel.perf_event_max_sample_rate to 79750",
                "nvidia-peermem: module verification failed: signature and/or required key missing - tainting kernel" if False else "audit: type=1400 audit(%d.%03d:%d): apparmor=\"DENIED\" operation=\"open\" profile=\"snap.lxd.activate\" name=\"/proc/%d/mounts\" pid=%d comm=\"snap-exec\"" % (1700000000 + rng.randint(0, 9999999), rng.randint(0, 999), rng.randint(100, 999), rng.randint(1000, 9999), rng.randint(1000, 9999), ),
                "TCP: request_sock_TCP: Possible SYN flooding on port 29500. Sending cookies.  Check SNMP counters.",
                "mlx5_core 0000:%s:00.0: mlx5_pcie_event:301:(pid %d): Detected insufficient power on the PCIe slot (27W)." % (rng.choice(["0c", "1a", "c1"]), rng.randint(100, 999)) if False else "EXT4-fs (nvme0n1p1): re-mounted. Opts: (null). Quota mode: none.",
                "nvidia-nvswitch: Probing device 0000:05:00.0, Vendor Id = 0x10de, Device Id = 0x22a3, Class = 0x68000",
            ]))
    job.benign_nccl = rng.random() < 0.6
    job.handled_exc = rng.random() < 0.45
    if job.healthy:
        job.handled_exc = rng.random() < 0.7
        job.benign_nccl = True

# --------------------------------------------------------------------------
# shared rendering helpers
# --------------------------------------------------------------------------

def loss_at(job, step, base=9.5, floor=2.2):
    frac = step / max(1.0, job.total_steps)
    v = floor + (base - floor) * (2.718 ** (-5.0 * frac))
    return max(0.01, v + job.mrng.uniform(-0.08, 0.08) * v / base)


def lr_at(job, step, peak):
    warm = max(1, job.total_steps // 50)
    if step < warm:
        return peak * step / warm
    return peak * max(0.0, 1 - (step - warm) / max(1, job.total_steps - warm)) + peak * 0.01


def step_time_at(job, step):
    st = job.step_time * (job.slow_factor if job.slow_from is not None and step > job.slow_from else 1.0)
    return st * job.mrng.uniform(0.96, 1.05)


def progress_steps(job):
    """Logged step numbers (global) and the time each log line is printed, up to progress_end."""
    out = []
    s = (job.start_step // job.log_every + 1) * job.log_every
    end_step = job.start_step + job.steps_run
    while s <= end_step:
        t = job.t_of(s)
        if t > job.progress_end + 0.001:
            break
        out.append((s, t))
        s += job.log_every
    return out


def benign_nccl_warn(job, p, t):
    if job.nnodes == 1:
        return "%s misc/ibvwrap.cc:%d NCCL WARN Failed to open libibverbs.so[.1]" % (job.nccl_pre(p), job.rng.choice([102, 111, 118]))
    if job.nccl < "2.19" and job.fabric == "ib":
        return "%s transport/net_ib.cc:%d NCCL WARN NET/IB : Got async event : GID table change" % (job.nccl_pre(p, 3), job.rng.choice([81, 93]))
    return "%s proxy.cc:%d NCCL WARN [Service thread] Accept failed Resource temporarily unavailable" % (job.nccl_pre(p, 4), job.rng.choice([1466, 1557, 1632]))


def add_rank_noise(job, ranks):
    """NCCL INFO, torch warnings and other per-process chatter for the given ranks."""
    rng = job.rng
    m = tminor(job)
    job.env_deprecated = getattr(job, "env_deprecated", rng.random() < 0.4)
    for r in ranks:
        p = job.procs[r]
        ti = job.t_init + rng.uniform(0.2, 3.0) + job.nodes[p.node].skew * 0
        if job.nccl_debug:
            p.out.append((ti + 1.0, nccl_init_lines(job, p, ti)))
        if job.env_deprecated and m >= 2:
            if m <= 3:
                p.out.append((ti, ["[rank%d]:[W Utils.hpp:135] Warning: Environment variable NCCL_ASYNC_ERROR_HANDLING is deprecated; use TORCH_NCCL_ASYNC_ERROR_HANDLING instead (function getCvarInt)" % p.rank]))
            else:
                p.out.append((ti, [cpp(job, p, "W", "Utils.hpp:%d" % (137 if m < 6 else 164), "Warning: Environment variable NCCL_ASYNC_ERROR_HANDLING is deprecated; use TORCH_NCCL_ASYNC_ERROR_HANDLING instead (function operator())", ti)]))
        if job.nnodes > 1 and p.node != 0 and rng.random() < 0.25:
            tt = job.t_init - rng.uniform(1, 10)
            d = job.dt(p.node, tt)
            host0 = job.nodes[0].host
            port = job.master_port
            if m <= 3:
                s = "[W socket.cpp:%d] [c10d] The client socket has failed to connect to [%s]:%d (errno: 111 - Connection refused)." % (663 if m <= 1 else 697, host0, port)
            else:
                s = "[W%s socket.cpp:%d] [c10d] The client socket has failed to connect to [%s]:%d (errno: 111 - Connection refused)." % (f_glog(d, rng), 752, host0, port)
            p.out.append((tt, [s]))
        if getattr(job, "benign_nccl", False) and rng.random() < 0.3:
            p.out.append((ti + 2, [benign_nccl_warn(job, p, ti + 2)]))
        if job.ddp_unused_warn:
            t2 = job.t_train + rng.uniform(1, 5)
            if m <= 1:
                s = "[W reducer.cpp:1346] Warning: find_unused_parameters=True was specified in DDP constructor, but did not find any unused parameters in the forward pass. This flag results in an extra traversal of the autograd graph every iteration,  which can adversely affect performance. If your model indeed never has any unused parameters in the forward pass, consider turning this flag off. Note that this warning may be a false positive if your model has flow control causing later iterations to have unused parameters. (function operator())"
            else:
                s = cpp(job, p, "W", "reducer.cpp:%d" % (1360 if m < 4 else 1400), "Warning: find_unused_parameters=True was specified in DDP constructor, but did not find any unused parameters in the forward pass. This flag results in an extra traversal of the autograd graph every iteration,  which can adversely affect performance. If your model indeed never has any unused parameters in the forward pass, consider turning this flag off. Note that this warning may be a false positive if your model has flow control causing later iterations to have unused parameters. (function operator())", t2)
            p.out.append((t2, [s]))
        # clean exit of a healthy/finished rank
        if p.exit and p.exit[1] == 0 and m >= 4 and not job.destroys_pg:
            te = p.exit[0] - 0.2
            p.out.append((te, [cpp(job, p, "W", "ProcessGroupNCCL.cpp:%d" % (1168 if m == 4 else 1250 if m == 5 else 1476), "Warning: WARNING: process group has NOT been destroyed before we destruct ProcessGroupNCCL. On normal program exit, the application should call destroy_process_group to ensure that any pending NCCL operations have finished in this process. In rare cases this process can exit before this point and block the progress of another member of the process group. This constraint has always been present,  but this warning has only been added since PyTorch 2.4 (function operator())", te)]))
        if p.exit and p.exit[1] == 0 and job.nnodes > 1 and rng.random() < 0.15:
            p.out.append((p.exit[0] - 0.1, ["%s proxy.cc:%d NCCL WARN [Proxy Service %d] Failed to execute operation Close from rank %d, retcode 3" % (job.nccl_pre(p, 5), rng.choice([1508, 1547]), p.rank, (p.rank + 1) % job.world)]))
        # the TCPStore heartbeat complaint after rank 0's node went away (2.3+)
        if m >= 3 and p.node != 0 and job.procs[0].exit and job.procs[0].exit[1] != 0 and p.exit and p.exit[0] > job.procs[0].exit[0] + 30 and rng.random() < 0.3:
            tt = job.procs[0].exit[0] + rng.uniform(5, 25)
            p.out.append((tt, [cpp(job, p, "W", "ProcessGroupNCCL.cpp:%d" % (1282 if m < 5 else 1394), "%s Failed to check the \"should dump\" flag on TCPStore, (maybe TCPStore server has shut down too early), with error: Connection reset by peer" % pg_tag(job, p.rank), tt)]))


def rank_lines(job, p, prefix=""):
    """(t, text) pairs of one rank's raw output, with an optional line prefix."""
    out = []
    for t, lines in p.out:
        if isinstance(lines, str):
            lines = [lines]
        if prefix:
            out.append((t, [prefix + ln for ln in lines]))
        else:
            out.append((t, list(lines)))
    return out


def to_stream(stream, pairs):
    for t, lines in pairs:
        stream.addblock(t, lines)


def agent_lines(job, node, script, entry="torchrun", role="default"):
    """torchrun elastic agent output on one node, after finalize()."""
    rng = job.rng
    m = tminor(job)
    out = []
    apid = job.agent_pid[node]
    procs = job.procs_on(node)
    if job.gpn > 1:
        out.append((job.t_init - rng.uniform(5, 12), [omp_banner(job, node, job.t_init - 10, apid)]))
    if job.elastic_info:
        t = job.t_init - rng.uniform(1, 4)
        mod = "torch.distributed.elastic.agent.server.api"
        nd = job.nodes[node]
        gr = job.group_rank[node]
        ranks = [p.rank for p in procs]
        body = ("[%s] Rendezvous complete for workers. Result:\n  restart_count=0\n  master_addr=%s\n  master_port=%d\n  group_rank=%d\n  group_world_size=%d\n  local_ranks=%s\n  role_ranks=%s\n  global_ranks=%s\n  role_world_sizes=%s\n  global_world_sizes=%s\n" % (
            role, job.master_addr, job.master_port, gr, job.nnodes, list(range(job.gpn)), ranks, ranks, [job.world] * job.gpn, [job.world] * job.gpn))
        out.append((t, [elastic_log(job, node, t, "INFO", mod, body, apid)]))
        out.append((t + 0.01, [elastic_log(job, node, t + 0.01, "INFO", mod, "[%s] Starting worker group" % role, apid)]))
        out.append((t + 0.02, [elastic_log(job, node, t + 0.02, "INFO", "torch.distributed.elastic.agent.server.local_elastic_agent", "Environment variable 'TORCHELASTIC_ENABLE_FILE_TIMER' not found. Do not start FileTimerServer.", apid)]))
    ended = sorted([(p.exit[0], p.rank, p) for p in procs if p.exit])
    own = [(t, p) for t, _, p in ended if p.reason not in ("terminated", "ok")]
    term = [(t, p) for t, _, p in ended if p.reason == "terminated"]
    oks = [(t, p) for t, _, p in ended if p.reason == "ok"]
    if own and (not term or own[0][0] <= term[0][0] + 0.001):
        t1 = own[0][0] + rng.uniform(0.05, 1.0)
        for t, p in term:
            out.append((t - 0.02, [elastic_log(job, node, t - 0.02, "WARNING", "torch.distributed.elastic.multiprocessing.api", "Sending process %d closing signal SIGTERM" % p.pid, apid)]))
        if term:
            t1 = max(t1, max(t for t, _ in term) + 0.01)
        fails = [(p, p.exit[1], p.exit[0]) for t, p in own if t <= own[0][0] + 1.0]
        p0 = fails[0][0]
        out.append((t1, [elastic_log(job, node, t1, "ERROR", "torch.distributed.elastic.multiprocessing.api",
                                     "failed (exitcode: %d) local_rank: %d (pid: %d) of binary: %s" % (p0.exit[1], p0.local, p0.pid, job.pybin), apid)]))
        tl = max([t1] + [t for t, _ in term]) + 0.05
        out.append((tl, child_failed(job, node, tl, script, fails, apid, entry)))
        job.node_summary[node] = fails
    elif term:
        ts = term[0][0] - rng.uniform(0.02, 0.2)
        out.append((ts, [elastic_log(job, node, ts, "WARNING" if m < 4 else "INFO", "torch.distributed.elastic.agent.server.api", "Received Signals.SIGTERM death signal, shutting down workers", apid)]))
        for t, p in term:
            out.append((t - 0.01, [elastic_log(job, node, t - 0.01, "WARNING", "torch.distributed.elastic.multiprocessing.api", "Sending process %d closing signal SIGTERM" % p.pid, apid)]))
        sp = job.sp
        if entry == "torchrun":
            frames = [(job.pybin.rsplit("/", 1)[0] + "/torchrun", 8, "<module>", "sys.exit(main())")]
        else:
            frames = [(job.pylib + "/runpy.py" if job.py < "3.11" else "<frozen runpy>", 196 if job.py < "3.11" else 198, "_run_module_as_main", "return _run_code(code, main_globals, None," if job.py < "3.11" else None),
                      (job.pylib + "/runpy.py" if job.py < "3.11" else "<frozen runpy>", 86 if job.py < "3.11" else 88, "_run_code", "exec(code, run_globals)" if job.py < "3.11" else None),
                      (sp + "/torch/distributed/launch.py", 208, "<module>", "main()"),
                      (sp + "/torch/distributed/launch.py", 204, "main", "launch(args)"),
                      (sp + "/torch/distributed/launch.py", 189, "launch", "run(args)")]
        frames += [(sp + "/torch/distributed/elastic/multiprocessing/errors/__init__.py", 346 if m < 4 else 355, "wrapper", "return f(*args, **kwargs)")]
        if entry == "torchrun":
            frames.append((sp + "/torch/distributed/run.py", 812 if m < 4 else 919, "main", "run(args)"))
        frames += [(sp + "/torch/distributed/run.py", 803 if m < 4 else 910, "run", "elastic_launch("),
                  (sp + "/torch/distributed/launcher/api.py", 135 if m < 4 else 138, "__call__", "return launch_agent(self._config, self._entrypoint, list(args))"),
                  (sp + "/torch/distributed/launcher/api.py", 259 if m < 4 else 260, "launch_agent", "result = agent.run()"),
                  (sp + "/torch/distributed/elastic/metrics/api.py", 123 if m < 4 else 137, "wrapper", "result = f(*args, **kwargs)"),
                  (sp + "/torch/distributed/elastic/agent/server/api.py", 727 if m < 4 else 696, "run", "result = self._invoke_run(role)"),
                  (sp + "/torch/distributed/elastic/agent/server/api.py", 868 if m < 4 else 855, "_invoke_run", "time.sleep(monitor_interval)"),
                  (sp + "/torch/distributed/elastic/multiprocessing/api.py", 62 if m < 4 else 84, "_terminate_process_handler", "raise SignalException(f\"Process {os.getpid()} got signal: {sigval}\", sigval=sigval)")]
        te = term[-1][0] + 0.05
        out.append((te, tb(frames, ["torch.distributed.elastic.multiprocessing.api.SignalException: Process %d got signal: 15" % apid])))
    elif oks and len(oks) == len(procs) and job.elastic_info:
        t = oks[-1][0] + 0.1
        out.append((t, [elastic_log(job, node, t, "INFO", "torch.distributed.elastic.agent.server.api", "[%s] worker group successfully finished. Waiting 300 seconds for other agents to finish." % role, apid)]))
        out.append((t + 0.01, [elastic_log(job, node, t + 0.01, "INFO", "torch.distributed.elastic.agent.server.api", "Local worker group finished (WorkerState.SUCCEEDED). Waiting 300 seconds for other agents to finish", apid)]))
        out.append((t + 1.5, [elastic_log(job, node, t + 1.5, "INFO", "torch.distributed.elastic.agent.server.api", "Done waiting for other agents. Elapsed: %.6f seconds" % rng.uniform(0.5, 4), apid)]))
    return out


SRUN_DESC = {-6: "Aborted (core dumped)", -9: "Killed", -11: "Segmentation fault (core dumped)", -15: "Terminated", -7: "Bus error (core dumped)"}


def srun_tail(job):
    """srun's own messages at the end of a step, as (t, line) pairs."""
    rng = job.rng
    out = []
    groups = []
    for p in sorted([q for q in job.procs if q.exit and q.exit[1] != 0], key=lambda q: (q.exit[0], q.rank)):
        code = p.exit[1]
        desc = SRUN_DESC.get(code, "Exited with exit code %d" % code) if code < 0 else "Exited with exit code %d" % code
        for g in groups:
            if g[0] == p.node and g[1] == desc and p.exit[0] - g[2] < 5.0:
                g[3].append(p)
                break
        else:
            groups.append([p.node, desc, p.exit[0], [p]])
    first_t = None
    job.srun_first = []
    for node, desc, tg, ps in groups:
        t = max(p.exit[0] for p in ps) + rng.uniform(0.2, 1.5)
        ranks = [p.rank for p in ps]
        if len(ranks) == 1:
            s = "srun: error: %s: task %d: %s" % (job.nodes[node].host, ranks[0], desc)
        else:
            s = "srun: error: %s: tasks %s: %s" % (job.nodes[node].host, ranks_str(ranks), desc)
        out.append((t, s))
        if first_t is None or t < first_t:
            first_t = t
            job.srun_first = ranks
    if job.launcher == "srun_kill" and first_t is not None and not getattr(job, "preempt_slurm", False) and not getattr(job, "timelimit", False):
        t0 = min(p.exit[0] for p in job.procs if p.exit and p.exit[1] != 0 and p.reason != "terminated") + 0.1
        out.append((t0, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish."))
        for n in job.nodes:
            out.append((t0 + rng.uniform(0.01, 0.3), "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s ***" % (job.slurm_jobid, n.host, f_slurm(job.dt(n.idx, t0)))))
    if getattr(job, "preempt_slurm", False) or getattr(job, "timelimit", False):
        t0 = job.t_fail + 0.5
        out.append((t0, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish."))
        out.append((t0 + 0.1, "srun: got SIGCONT"))
        out.append((t0 + 0.2, "srun: forcing job termination"))
    return out


ranks_str = ranges_str


def kernel_file(job, node, fmt=None, extra_noise=True):
    rng = job.rng
    n = job.nodes[node]
    if fmt is None:
        fmt = job.kern_fmt
    lines = sorted(n.kern, key=lambda x: x[0])
    first = min([0.0] + [t for t, _ in lines])
    boot = first - rng.uniform(900, 86400 * 3)
    if extra_noise:
        base = [(boot + rng.uniform(18, 30), "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  %s  %s" % (job.gpu[4], rng.choice(["Fri Feb  9 23:34:41 UTC 2024", "Tue Jul  9 00:12:33 UTC 2024", "Wed Mar  5 13:12:41 UTC 2025"]))),
                (boot + rng.uniform(35, 60), "IPv6: ADDRCONF(NETDEV_CHANGE): %s: link becomes ready" % rng.choice(["ib0", "ens7", "eth0"]))]
        lines = sorted(base + lines, key=lambda x: x[0])
    out = []
    if fmt == "journal":
        out.append("$ journalctl -k --no-pager --since \"%s\"" % job.dt(node, boot - 60).strftime("%Y-%m-%d %H:%M"))
        for t, m in lines:
            out.append("%s %s kernel: %s" % (f_journal(job.dt(node, t)), khost(n), m))
    elif fmt == "short-iso":
        out.append("$ journalctl -k -o short-iso --utc --no-pager")
        for t, m in lines:
            d = job.dt_utc(node, t)
            out.append("%s+0000 %s kernel: %s" % (d.strftime("%Y-%m-%dT%H:%M:%S"), khost(n), m))
    elif fmt == "dmesgT":
        out.append("$ sudo dmesg -T | tail -n 200")
        for t, m in lines:
            out.append("%s %s" % (f_dmesg_T(job.dt(node, t)), m))
    else:
        out.append("$ dmesg | tail -200")
        for t, m in lines:
            out.append("[%12.6f] %s" % (t - boot, m))
    return "\n".join(out) + "\n"


def kern_name(job, node):
    h = khost(job.nodes[node])
    return {"journal": "journalctl-k_%s.txt", "short-iso": "journal_%s.log", "dmesgT": "dmesg_%s.txt", "dmesg": "dmesg-%s.log"}[job.kern_fmt] % h


def attach_kernel_logs(job, files, prefix=""):
    """Kernel logs people attach: the nodes they suspected (culprit, decoy ones)."""
    rng = job.rng
    for n in job.nodes:
        if not n.kern:
            continue
        interesting = any(("Xid" in m or "oom" in m.lower() or "segfault" in m or "Link down" in m or "nfs:" in m or "Port module" in m or "fatal signal" in m or "SXid" in m) for _, m in n.kern)
        if not interesting and rng.random() < 0.7:
            continue
        if n.idx == job.culprit_node and rng.random() < job.p_attach_kern_culprit:
            pass
        elif n.idx == job.culprit_node:
            continue
        files[prefix + kern_name(job, n.idx)] = kernel_file(job, n.idx)
        job.vis_kern.append(n.idx)

# --------------------------------------------------------------------------
# layout: fairseq
# --------------------------------------------------------------------------

class Fairseq:
    name = "fairseq"

    def setup(self, job):
        rng = job.rng
        v = rng.choice(["srun", "torchrun", "hydra"])
        job.variant = v
        gpn = rng.choice([8, 8, 8, 4])
        if v in ("srun", "hydra"):
            nn = rng.choice([1, 2, 2, 4, 4, 8])
            if gpn == 4:
                nn = rng.choice([1, 2, 4, 8])
        else:
            nn = rng.choice([2, 4, 8, 16, 32, 64])
            gpn = 8
        if job.cause in ("network",) and nn < 2:
            nn = 2
        job.make_topology(nn, gpn)
        if v == "torchrun":
            job.launcher = "torchrun"
        else:
            job.launcher = "srun_kill" if rng.random() < 0.5 else "srun"
        if job.world > 32 and v != "torchrun":
            job.nccl_debug = False
        if v == "hydra":
            job.task = rng.choice(["audio_pretraining", "language_modeling"])
        else:
            job.task = rng.choice(["translation", "language_modeling", "translation"])
        job.fp16 = rng.random() < 0.8
        if job.task == "translation":
            job.arch = rng.choice(["transformer_vaswani_wmt_en_de_big", "transformer_wmt_en_de"])
            job.data = rng.choice(["wmt16_en_de_bpe32k", "wmt19_en_de"])
            job.jobname = rng.choice(["wmt_big", "en_de_tf", "fs_train"])
        elif job.task == "language_modeling":
            job.arch = rng.choice(["transformer_lm_gpt2_medium", "transformer_lm_gpt2_big", "transformer_lm_wiki103"])
            job.data = rng.choice(["wikitext-103", "cc100_en"])
            job.jobname = rng.choice(["lm_gpt_1.3b", "lm_wiki103", "fs_train"])
        else:
            job.arch = "wav2vec2"
            job.data = "librispeech"
            job.jobname = rng.choice(["w2v_large", "w2v2_pretrain"])
        job.repo = rng.choice(["/private/home/%s/fairseq", "/home/%s/src/fairseq", "/fsx/%s/fairseq"]) % rng.choice(["alice", "jchen", "mkumar", "rgarcia"])
        job.port = rng.choice([12345, 13356, 29500, 19821])

    def log_every(self, job):
        return job.rng.choice([100, 100, 100, 50, 200, 500]) if job.world <= 64 else job.rng.choice([100, 200])

    def dataset_file(self, job):
        return job.sp + "/fairseq/data/" + {"translation": "language_pair_dataset.py", "language_modeling": "monolingual_dataset.py", "audio_pretraining": "audio/raw_audio_dataset.py"}[job.task]

    def script_cmd(self, job):
        if job.variant == "hydra":
            return "%s/bin/fairseq-hydra-train task.data=/data/%s --config-dir examples/wav2vec/config/pretraining --config-name wav2vec2_large_librivox" % (job.pybin.rsplit("/bin", 1)[0], "librispeech/manifest")
        return "%s/bin/fairseq-train data-bin/%s --arch %s --max-tokens 4096 --fp16" % (job.pybin.rsplit("/bin", 1)[0], job.data, job.arch)

    def frames(self, job, kind):
        sp = job.sp
        cl = job.pybin.rsplit("/bin", 1)[0] + "/bin/" + ("fairseq-hydra-train" if job.variant == "hydra" else "fairseq-train")
        fr = [(cl, 8, "<module>", "sys.exit(cli_main())")]
        if job.variant == "hydra":
            fr += [(sp + "/fairseq_cli/hydra_train.py", 87, "cli_main", "hydra_main()"),
                   (sp + "/hydra/main.py", 94, "decorated_main", "_run_hydra("),
                   (sp + "/hydra/_internal/utils.py", 394, "_run_hydra", "_run_app("),
                   (sp + "/hydra/_internal/utils.py", 457, "_run_app", "run_and_report("),
                   (sp + "/hydra/_internal/utils.py", 220, "run_and_report", "return func()"),
                   (sp + "/hydra/_internal/utils.py", 458, "<lambda>", "lambda: hydra.run("),
                   (sp + "/hydra/_internal/hydra.py", 132, "run", "_ = ret.return_value"),
                   (sp + "/hydra/core/utils.py", 260, "return_value", "raise self._return_value"),
                   (sp + "/hydra/core/utils.py", 186, "run_job", "ret.return_value = task_function(task_cfg)"),
                   (sp + "/fairseq_cli/hydra_train.py", 27, "hydra_main", "_hydra_main(cfg)"),
                   (sp + "/fairseq_cli/hydra_train.py", 56, "_hydra_main", "distributed_utils.call_main(cfg, pre_main, **kwargs)")]
        else:
            fr += [(sp + "/fairseq_cli/train.py", 557, "cli_main", "distributed_utils.call_main(cfg, main)")]
        fr += [(sp + "/fairseq/distributed/utils.py", 369, "call_main", "distributed_main(cfg.distributed_training.device_id, main, cfg, kwargs)"),
               (sp + "/fairseq/distributed/utils.py", 343, "distributed_main", "main(cfg, **kwargs)"),
               (sp + "/fairseq_cli/train.py", 190, "main", "valid_losses, should_stop = train(cfg, trainer, task, epoch_itr)"),
               (job.pylib + "/contextlib.py", 79, "inner", "return func(*args, **kwds)")]
        if kind == "data":
            return fr + [(sp + "/fairseq_cli/train.py", 306, "train", "for i, samples in enumerate(progress):"),
                         (sp + "/fairseq/logging/progress_bar.py", 261, "__iter__", "for i, obj in enumerate(self.iterable, start=self.n):"),
                         (sp + "/fairseq/data/iterators.py", 57, "__next__", "x = next(self._itr)"),
                         (sp + "/fairseq/data/iterators.py", 748, "__next__", "item = self._queue.get(True)" if False else "item = next(self.itr)"),
                         ] + dl_frames(job)
        fr += [(sp + "/fairseq_cli/train.py", 316, "train", "log_output = trainer.train_step(samples)"),
               (job.pylib + "/contextlib.py", 79, "inner", "return func(*args, **kwds)")]
        if kind == "allreduce":
            return fr + [(sp + "/fairseq/trainer.py", 925, "train_step", "logging_outputs, (sample_size, ooms, total_train_time) = self._aggregate_logging_outputs("),
                         (sp + "/fairseq/trainer.py", 1499, "_aggregate_logging_outputs", "return self._fast_stat_sync_sum("),
                         (sp + "/fairseq/trainer.py", 1552, "_fast_stat_sync_sum", "data = distributed_utils.all_reduce_dict("),
                         (sp + "/fairseq/distributed/utils.py", 743, "all_reduce_dict", "cpu_data = _all_reduce_dict(cpu_data)"),
                         (sp + "/fairseq/distributed/utils.py", 737, "_all_reduce_dict", "all_reduce(buf, group=group)"),
                         (sp + "/fairseq/distributed/utils.py", 349, "all_reduce", "dist.all_reduce(tensor, op=op, group=group)")] + allreduce_frames(job)
        if kind == "opt":
            return fr + [(sp + "/fairseq/trainer.py", 984, "train_step", "self.task.optimizer_step("),
                         (sp + "/fairseq/tasks/fairseq_task.py", 550, "optimizer_step", "optimizer.step()"),
                         (sp + "/fairseq/optim/fp16_optimizer.py", 246, "step", "self.fp32_optimizer.step(closure, groups=groups)"),
                         (sp + "/fairseq/optim/fairseq_optimizer.py", 127, "step", "self.optimizer.step(closure)"),
                         (sp + "/fairseq/optim/fused_adam.py", 226, "step", "p_data_fp32 = p.data.float()")]
        fr += [(sp + "/fairseq/trainer.py", 859, "train_step", "raise e"),
               (sp + "/fairseq/trainer.py", 826, "train_step", "loss, sample_size_i, logging_output = self.task.train_step("),
               (sp + "/fairseq/tasks/fairseq_task.py", 531 if kind == "step" else 519, "train_step", "optimizer.backward(loss)" if kind == "step" else "loss, sample_size, logging_output = criterion(model, sample)")]
        if kind == "step":
            return fr + [(sp + "/fairseq/optim/fp16_optimizer.py", 105, "backward", "loss.backward()")] + backward_frames(job)
        return fr + forward_frames(job, sp + "/fairseq/criterions/label_smoothed_cross_entropy.py", "forward", "net_output = model(**sample[\"net_input\"])") + \
            forward_frames(job, sp + "/fairseq/models/transformer/transformer_base.py", "forward", "decoder_out = self.decoder(")

    def oom_prelude(self, job, p, t):
        rng = job.rng
        msg = oom_message(job, p)[0].split(": ", 1)[1]
        dev = p.local
        ln = lambda tt, lvl, lg, m: self.fmt(job, p.node, tt, lvl, lg, m)
        tot = int(job.gpu[1] * 1024)
        out = [ln(t - 0.05, "WARNING", "fairseq.trainer", "OOM: Ran out of memory with exception: " + msg),
               ln(t - 0.04, "WARNING", "fairseq.trainer", "|===========================================================================|"),
               "|                  PyTorch CUDA memory summary, device ID %-2d                |" % dev,
               "|---------------------------------------------------------------------------|",
               "|            CUDA OOMs: %-3d          |        cudaMalloc retries: %-6d    |" % (1, rng.randint(1, 40)),
               "|===========================================================================|",
               "|        Metric         | Cur Usage  | Peak Usage | Tot Alloc  | Tot Freed  |",
               "|---------------------------------------------------------------------------|",
               "| Allocated memory      | %6d MiB | %6d MiB | %6d GiB | %6d GiB |" % (tot - rng.randint(2000, 6000), tot - rng.randint(100, 1500), rng.randint(5000, 90000), rng.randint(5000, 90000)),
               "| Active memory         | %6d MiB | %6d MiB | %6d GiB | %6d GiB |" % (tot - rng.randint(2000, 6000), tot - rng.randint(100, 1500), rng.randint(5000, 90000), rng.randint(5000, 90000)),
               "| GPU reserved memory   | %6d MiB | %6d MiB | %6d MiB | %6d B   |" % (tot - rng.randint(50, 800), tot - rng.randint(50, 800), tot - rng.randint(50, 800), 0),
               "|===========================================================================|",
               "",
               ln(t - 0.01, "WARNING", "fairseq.trainer", "attempting to recover from OOM in forward/backward pass")]
        return out

    def fmt(self, job, node, t, lvl, logger, msg):
        d = job.dt(node, t)
        if job.variant == "hydra":
            return "[%s][%s][%s] - %s" % (f_iso_ms(d), logger, lvl, msg)
        return "%s | %s | %s | %s" % (f_iso(d), lvl, logger, msg)

    def app_lines(self, job):
        """fairseq logger output per rank: {rank: [(t, [lines])]}"""
        rng = job.rng
        mr = job.mrng
        out = {p.rank: [] for p in job.procs}
        F = self.fmt
        init = "tcp://%s:%d" % (job.nodes[0].host, job.port) if job.variant != "torchrun" else "env://"
        for p in job.procs:
            ti = job.t_init - rng.uniform(0.5, 4)
            out[p.rank].append((ti, [F(job, p.node, ti, "INFO", "fairseq.distributed.utils", "distributed init (rank %d): %s" % (p.rank, init))]))
            out[p.rank].append((job.t_init + rng.uniform(0, 1.5), [F(job, p.node, job.t_init + 1, "INFO", "fairseq.distributed.utils", "initialized host %s as rank %d" % (job.nodes[p.node].host, p.rank))]))
        L = []
        n0 = 0
        t = job.t_init + 3
        arch = job.arch
        L.append((t, "INFO", "fairseq_cli.train", "{'_name': None, 'common': {'_name': None, 'no_progress_bar': True, 'log_interval': %d, 'log_format': '%s', 'log_file': None, 'aim_repo': None, 'aim_run_hash': None, 'tensorboard_logdir': None, 'wandb_project': %s, 'azureml_logging': False, 'seed': %d, 'cpu': False, 'tpu': False, 'bf16': False, 'memory_efficient_bf16': False, 'fp16': %s, 'memory_efficient_fp16': False, 'fp16_no_flatten_grads': False, 'fp16_init_scale': 128, ...}, 'distributed_training': {'_name': None, 'distributed_world_size': %d, 'distributed_num_procs': %d, 'distributed_rank': 0, 'distributed_backend': 'nccl', 'distributed_init_method': '%s', 'distributed_port': %d, 'device_id': 0, 'distributed_no_spawn': %s, 'ddp_backend': '%s', ...}, ...}" % (
            job.log_every, "json" if job.variant == "hydra" else "simple", "'%s'" % job.wandb if job.wandb else "None", rng.randint(1, 9999), job.fp16, job.world, job.gpn if job.variant == "torchrun" else 1, init, job.port, job.variant != "torchrun", rng.choice(["pytorch_ddp", "c10d", "legacy_ddp", "no_c10d"]))))
        if job.task == "translation":
            L.append((t + 1, "INFO", "fairseq.tasks.translation", "[en] dictionary: %d types" % job.vocab))
            L.append((t + 1, "INFO", "fairseq.tasks.translation", "[de] dictionary: %d types" % job.vocab))
        elif job.task == "language_modeling":
            L.append((t + 1, "INFO", "fairseq.tasks.language_modeling", "dictionary: %d types" % job.vocab))
        L.append((t + 8, "INFO", "fairseq_cli.train", "task: %s" % {"translation": "TranslationTask", "language_modeling": "LanguageModelingTask", "audio_pretraining": "AudioPretrainingTask"}[job.task]))
        L.append((t + 8, "INFO", "fairseq_cli.train", "model: %s" % {"translation": "TransformerModel", "language_modeling": "TransformerLanguageModel", "audio_pretraining": "Wav2Vec2Model"}[job.task]))
        L.append((t + 8, "INFO", "fairseq_cli.train", "criterion: %s" % {"translation": "LabelSmoothedCrossEntropyCriterion", "language_modeling": "CrossEntropyCriterion", "audio_pretraining": "Wav2vecCriterion"}[job.task]))
        L.append((t + 8, "INFO", "fairseq_cli.train", "num. shared model params: {:,} (num. trained: {:,})".format(job.nparams, job.nparams)))
        L.append((t + 8, "INFO", "fairseq_cli.train", "num. expert model params: 0 (num. trained: 0)"))
        if job.task == "translation":
            L.append((t + 9, "INFO", "fairseq.trainer", "detected shared parameter: encoder.embed_tokens.weight <- decoder.embed_tokens.weight"))
        L.append((t + 10, "INFO", "fairseq.utils", "***********************CUDA enviroments for all %d workers***********************" % job.world))
        shown = list(range(job.world)) if job.world <= 64 else list(range(job.world))
        for r in shown:
            L.append((t + 10, "INFO", "fairseq.utils", "rank %3d: capabilities = %4s  ; total memory = %.3f GB ; name = %-26s" % (r, "9.0" if "H" in job.gpu[0] else "8.0", job.gpu[1] + 0.04, job.gpu[0])))
        L.append((t + 10, "INFO", "fairseq.utils", "***********************CUDA enviroments for all %d workers***********************" % job.world))
        L.append((t + 10, "INFO", "fairseq_cli.train", "training on %d devices (GPUs/TPUs)" % job.world))
        L.append((t + 10, "INFO", "fairseq_cli.train", "max tokens per device = %d and max sentences per device = None" % job.max_tokens))
        ck = "checkpoints/checkpoint_last.pt"
        L.append((t + 11, "INFO", "fairseq.trainer", "Preparing to load checkpoint %s" % ck))
        if job.start_step:
            L.append((t + 30, "INFO", "fairseq.trainer", "Loaded checkpoint %s (epoch %d @ %d updates)" % (ck, job.start_step // job.upe + 1, job.start_step)))
        else:
            L.append((t + 11, "INFO", "fairseq.trainer", "No existing checkpoint found %s" % ck))
        L.append((t + 31, "INFO", "fairseq.trainer", "loading train data for epoch %d" % (job.start_step // job.upe + 1)))
        L.append((t + 40, "INFO", "fairseq.data.data_utils", "loaded {:,} examples from: data-bin/{}/train.{}".format(job.nexamples, job.data, "en-de.en" if job.task == "translation" else "bin") if job.task != "audio_pretraining" else "loaded {:,}, skipped 0 samples".format(job.nexamples // 40)))
        if job.fp16:
            L.append((t + 41, "INFO", "fairseq.optim.adam", "using FusedAdam"))
        ep0 = job.start_step // job.upe + 1
        L.append((job.t_train - 2, "INFO", "fairseq.trainer", "begin training epoch %d" % ep0))
        L.append((job.t_train - 1, "INFO", "fairseq_cli.train", "Start iterating over samples"))
        peak = rng.choice([5e-4, 7e-4, 1e-3, 3e-4, 5e-5])
        last_wall = job.t_train - job.t_init
        epoch = ep0
        overflow_pending = job.fp16 and rng.random() < 0.6
        scale = 128
        for s, tt in progress_steps(job):
            e = s // job.upe + 1
            if e != epoch:
                te = job.t_of(epoch * job.upe)
                L.append((te, "INFO", "fairseq_cli.train", "end of epoch %d (average epoch stats below)" % epoch))
                lv = loss_at(job, epoch * job.upe, 11, 3.5)
                L.append((te + 0.1, "INFO", "train", "epoch %03d | loss %.3f | nll_loss %.3f | ppl %.2f | wps %.1f | ups %.2f | wpb %.1f | bsz %.1f | num_updates %d | lr %.5g | gnorm %.3f | train_wall %d | gb_free %.1f | wall %d" % (
                    epoch, lv, lv * 0.92, 2 ** (lv * 0.92), job.wpb / job.step_time, 1 / job.step_time, job.wpb, job.wpb / 30, epoch * job.upe, lr_at(job, epoch * job.upe, peak), mr.uniform(0.3, 1.5), job.upe * job.step_time, mr.uniform(5, 30), te - job.t_init)))
                L.append((te + 40, "INFO", "fairseq.checkpoint_utils", "Saved checkpoint checkpoints/checkpoint%d.pt (epoch %d @ %d updates, score %.3f) (writing took %.4f seconds)" % (epoch, epoch, epoch * job.upe, lv, mr.uniform(3, 40))))
                L.append((te + 41, "INFO", "fairseq.trainer", "begin training epoch %d" % e))
                L.append((te + 41, "INFO", "fairseq_cli.train", "Start iterating over samples"))
                epoch = e
            lv = loss_at(job, s, 11, 3.5)
            st = step_time_at(job, s)
            ups = 1.0 / st
            wpb = job.wpb * mr.uniform(0.97, 1.03)
            if overflow_pending and mr.random() < 0.05:
                scale //= 2
                L.append((tt - 1, "INFO", "fairseq.trainer", "NOTE: gradient overflow detected, ignoring gradient, setting loss scale to: %.1f" % scale))
                overflow_pending = mr.random() < 0.5
            in_ep = s - (e - 1) * job.upe
            if job.variant == "hydra":
                d = {"epoch": e, "update": round(e - 1 + in_ep / job.upe, 3), "loss": "%.3f" % lv, "ntokens": "%.1f" % wpb, "nsentences": "%.1f" % (wpb / 300),
                     "prob_perplexity": "%.3f" % mr.uniform(200, 700), "code_perplexity": "%.3f" % mr.uniform(190, 690), "temp": "%.3f" % mr.uniform(0.6, 2.0),
                     "loss_0": "%.3f" % (lv * 0.98), "loss_1": "%.3f" % mr.uniform(0.05, 0.12), "accuracy": "%.5f" % mr.uniform(0.2, 0.6),
                     "wps": "%.1f" % (wpb * ups), "ups": "%.2f" % ups, "wpb": "%.1f" % wpb, "bsz": "%.1f" % (wpb / 300), "num_updates": str(s),
                     "lr": "%.5g" % lr_at(job, s, peak), "gnorm": "%.3f" % mr.uniform(0.2, 2.5), "loss_scale": str(scale) if job.fp16 else "1",
                     "train_wall": "%d" % (st * job.log_every * 0.97), "gb_free": "%.1f" % mr.uniform(3, 40), "wall": "%d" % (tt - job.t_init)}
                L.append((tt, "INFO", "train_inner", json.dumps(d)))
            else:
                L.append((tt, "INFO", "train_inner", "epoch %03d:  %5d / %d loss=%.3f, nll_loss=%.3f, ppl=%.2f, wps=%.0f, ups=%.2f, wpb=%.1f, bsz=%.1f, num_updates=%d, lr=%.5g, gnorm=%.3f, %sclip=%d, train_wall=%d, gb_free=%.1f, wall=%d" % (
                    e, in_ep, job.upe, lv, lv * 0.92, 2 ** (lv * 0.92), wpb * ups, ups, wpb, wpb / 30, s, lr_at(job, s, peak), mr.uniform(0.2, 2.5),
                    ("loss_scale=%d, " % scale) if job.fp16 else "", 0 if mr.random() < 0.8 else 100, st * job.log_every * 0.97, mr.uniform(3, 40), tt - job.t_init)))
        if job.end_kind == "success":
            te = job.progress_end + 2
            L.append((te, "INFO", "fairseq_cli.train", "Stopping training due to num_updates: %d >= max_update: %d" % (job.total_steps, job.total_steps)))
            L.append((te + 0.1, "INFO", "fairseq_cli.train", "end of epoch %d (average epoch stats below)" % epoch))
            L.append((te + 25, "INFO", "fairseq.checkpoint_utils", "Saved checkpoint checkpoints/checkpoint_last.pt (epoch %d @ %d updates, score None) (writing took %.4f seconds)" % (epoch, job.total_steps, mr.uniform(3, 30))))
            L.append((te + 26, "INFO", "fairseq_cli.train", "done training in %.1f seconds" % (te + 26 - job.t_init)))
        if job.handled_exc and job.wandb:
            th = job.t_train + (job.progress_end - job.t_train) * rng.uniform(0.2, 0.8)
            out[0].append((th, ["wandb: Network error (ReadTimeout), entering retry loop."]))
            out[0].append((th + rng.uniform(20, 90), ["wandb: Network error resolved after 0:00:%02d, resuming normal operation." % rng.randint(20, 59)]))
        for tt, lvl, lg, msg in L:
            out[0].append((tt, [F(job, 0, tt, lvl, lg, msg)]))
        return out

    def render(self, job):
        rng = job.rng
        files = {}
        app = self.app_lines(job)
        if job.variant == "torchrun":
            vis = sorted(set(job.vis_node_choice))
        else:
            vis = list(range(job.nnodes))
        job.vis_nodes = vis if job.variant == "torchrun" else []
        job.vis_ranks = [p.rank for p in job.procs if p.node in vis]
        job.attr_ranks = []
        add_rank_noise(job, job.vis_ranks)
        jobname = job.jobname
        if job.variant == "torchrun":
            for n in vis:
                st = Stream()
                st.add(-1, "+ torchrun --nnodes %d --nproc_per_node %d --node_rank %d --master_addr %s --master_port %d %s/bin/fairseq-train data-bin/%s --arch %s --share-all-embeddings --optimizer adam --adam-betas '(0.9, 0.98)' --clip-norm 0.0 --lr %s --lr-scheduler inverse_sqrt --warmup-updates 4000 --dropout 0.3 --weight-decay 0.0001 --criterion label_smoothed_cross_entropy --label-smoothing 0.1 --max-tokens %d%s --log-interval %d --save-interval-updates 5000" % (
                    job.nnodes, job.gpn, n, job.nodes[0].host, job.master_port, job.pybin.rsplit("/bin", 1)[0], job.data, job.arch, "0.0005", job.max_tokens, " --fp16" if job.fp16 else "", job.log_every))
                to_stream(st, agent_lines(job, n, "%s/bin/fairseq-train" % job.pybin.rsplit("/bin", 1)[0] if rng.random() < 0.5 else "fairseq-train", "torchrun"))
                for p in job.procs_on(n):
                    to_stream(st, rank_lines(job, p))
                    to_stream(st, app[p.rank])
                files["logs/%s.node%d.%s.log" % (jobname, n, job.nodes[n].host)] = st.render()
        else:
            st = Stream()
            for p in job.procs:
                to_stream(st, rank_lines(job, p))
                to_stream(st, app[p.rank])
            for t, line, *rest in job.slurm:
                st.add(t, line)
            for t, line in srun_tail(job):
                st.add(t, line)
            files["slurm-%d.out" % job.slurm_jobid] = st.render()
            if job.culprit_rank is not None and job.srun_first == [job.culprit_rank] and job.procs[job.culprit_rank].reason == "culprit":
                job.layout_ev.append(("global",))
            if job.variant == "hydra":
                hl = Stream()
                for t, lines in app[0]:
                    hl.addblock(t, [l for l in lines if l.startswith("[")])
                for p in job.procs[1:]:
                    for t, lines in app[p.rank]:
                        if any("][WARNING]" in l for l in lines):
                            hl.addblock(t, lines)
                d = job.dt(0, 0)
                files["outputs/%s/%s/hydra_train.log" % (d.strftime("%Y-%m-%d"), d.strftime("%H-%M-%S"))] = hl.render()
                files["outputs/%s/%s/.hydra/overrides.yaml" % (d.strftime("%Y-%m-%d"), d.strftime("%H-%M-%S"))] = "- task.data=/data/librispeech/manifest\n- distributed_training.distributed_world_size=%d\n- distributed_training.distributed_port=%d\n- optimization.update_freq=[%d]\n" % (job.world, job.port, max(1, 64 // job.world))
            if rng.random() < 0.6:
                files["sacct.txt"] = sacct_text(job)
        attach_kernel_logs(job, files)
        return files


def sacct_text(job, jobid=None, name="fs_train"):
    rng = job.rng
    jid = str(job.slurm_jobid) if jobid is None else jobid
    any_fail = any(p.exit and p.exit[1] not in (0,) for p in job.procs)
    if getattr(job, "preempt_slurm", False):
        st = "PREEMPTED"
        ec = "0:15"
    elif getattr(job, "timelimit", False):
        st = "TIMEOUT"
        ec = "0:15"
    elif any_fail:
        st = "FAILED"
        codes = [p.exit[1] for p in job.procs if p.exit and p.exit[1] not in (0, -15)]
        c = codes[0] if codes else 1
        ec = ("%d:0" % c) if c > 0 else ("0:%d" % -c) if False else ("%d:0" % (128 - c) if c < 0 else "%d:0" % c)
    else:
        st = "COMPLETED"
        ec = "0:0"
    nl = job.nodelist()
    start = job.dt(0, -rng.uniform(2, 30))
    end = job.dt(0, job.t_end + rng.uniform(1, 5))
    el = end - start
    el_s = fmt_hms(el.total_seconds()).replace(" days, ", "-").replace(" day, ", "-")
    lines = ["$ sacct -j %s --format=JobID,JobName%%20,Partition,State,ExitCode,Start,End,Elapsed,NodeList%%40" % jid,
             "JobID                     JobName  Partition      State ExitCode               Start                 End    Elapsed                                 NodeList ",
             "------------ -------------------- ---------- ---------- -------- ------------------- ------------------- ---------- ---------------------------------------- "]
    part = job.partition
    row = "%-12s %20s %10s %10s %8s %19s %19s %10s %40s "
    lines.append(row % (jid, name, part, st, ec, f_slurm(start), f_slurm(end), el_s, nl[:40]))
    lines.append(row % (jid + ".batch", "batch", "", "FAILED" if st == "FAILED" else ("CANCELLED" if st in ("PREEMPTED", "TIMEOUT") else st), ec if st == "FAILED" else "0:15" if st in ("PREEMPTED", "TIMEOUT") else "0:0", f_slurm(start), f_slurm(end), el_s, job.nodes[0].host))
    lines.append(row % (jid + ".extern", "extern", "", "COMPLETED", "0:0", f_slurm(start), f_slurm(end), el_s, nl[:40]))
    lines.append(row % (jid + ".0", "python" if job.layout != "hydra_multirun" else "python", "", "FAILED" if st == "FAILED" else ("CANCELLED" if st in ("PREEMPTED", "TIMEOUT") else st), ec, f_slurm(start), f_slurm(end), el_s, nl[:40]))
    return "\n".join(lines) + "\n"

# --------------------------------------------------------------------------
# layout: mmengine (OpenMMLab dist_train.sh)
# --------------------------------------------------------------------------

MM_CFGS = {
    "mmdet": [("faster-rcnn_r50_fpn_1x_coco", ["loss_rpn_cls", "loss_rpn_bbox", "loss_cls", "acc", "loss_bbox"], 12, 7330),
              ("mask-rcnn_r50_fpn_2x_coco", ["loss_rpn_cls", "loss_rpn_bbox", "loss_cls", "acc", "loss_bbox", "loss_mask"], 24, 7330),
              ("dino-4scale_r50_8xb2-12e_coco", ["loss_cls", "loss_bbox", "loss_iou", "d0.loss_cls", "d0.loss_bbox", "d0.loss_iou", "dn_loss_cls", "dn_loss_bbox"], 12, 7330),
              ("rtmdet_l_8xb32-300e_coco", ["loss_cls", "loss_bbox"], 300, 462)],
    "mmseg": [("segformer_mit-b5_8xb2-160k_ade20k-512x512", ["decode.loss_ce", "decode.acc_seg"], 0, 160000),
              ("upernet_swin-b_8xb2-160k_ade20k-512x512", ["decode.loss_ce", "decode.acc_seg", "aux.loss_ce", "aux.acc_seg"], 0, 160000),
              ("mask2former_swin-l-in22k-384x384-pre_8xb2-90k_cityscapes-512x1024", ["loss_cls", "loss_mask", "loss_dice", "d0.loss_cls", "d0.loss_mask"], 0, 90000)],
    "mmpretrain": [("vit-base-p16_32xb128-mae_in1k", ["loss"], 100, 312),
                   ("resnet50_8xb256-rsb-a1-600e_in1k", ["loss"], 600, 625)],
}


class MMEngine:
    name = "mmengine"

    def setup(self, job):
        rng = job.rng
        job.variant = rng.choice(["mmdet", "mmdet", "mmseg", "mmpretrain"])
        cfg = rng.choice(MM_CFGS[job.variant])
        job.cfgname, job.loss_keys, job.max_epochs, job.iters_per_epoch = cfg
        if job.variant in ("mmdet", "mmpretrain"):
            job.iters_per_epoch = max(50, int(job.iters_per_epoch * 8 / max(8, 1)))
        gpn = rng.choice([8, 8, 8, 4, 2])
        nn = rng.choice([1, 1, 2, 2, 4, 8]) if gpn == 8 else rng.choice([1, 2])
        if job.cause in ("network",) and nn < 2:
            nn = 2
        if gpn == 2 and nn == 1 and job.cause == "nvlink":
            gpn = 4
        job.make_topology(nn, gpn)
        job.launcher = "torchrun"
        job.repo = rng.choice(["/workspace/mmdetection", "/home/%s/code/mmsegmentation", "/mnt/data/%s/mmpretrain", "/root/mmdetection"])
        if "%s" in job.repo:
            job.repo = job.repo % rng.choice(["alice", "wliu", "zhang", "kpatel"])
        if job.variant == "mmseg" and "mmseg" not in job.repo:
            job.repo = job.repo.rsplit("/", 1)[0] + "/mmsegmentation"
        if job.variant == "mmpretrain":
            job.repo = job.repo.rsplit("/", 1)[0] + "/mmpretrain"
        job.mm_scope = {"mmdet": "mmdet", "mmseg": "mmseg", "mmpretrain": "mmpretrain"}[job.variant]
        job.ts = None

    def log_every(self, job):
        return job.rng.choice([50, 50, 50, 20, 100])

    def dataset_file(self, job):
        return job.repo + "/%s/datasets/transforms/loading.py" % job.mm_scope

    def script_cmd(self, job):
        return "%s/tools/train.py %s/configs/%s.py --launcher pytorch" % (job.repo, job.repo, job.cfgname)

    def frames(self, job, kind):
        sp = job.sp
        r = job.repo
        fr = [(r + "/tools/train.py", rng_line(job, 121), "<module>", "main()"),
              (r + "/tools/train.py", rng_line(job, 117), "main", "runner.train()"),
              (sp + "/mmengine/runner/runner.py", 1777, "train", "model = self.train_loop.run()  # type: ignore")]
        if job.variant == "mmseg":
            fr.append((sp + "/mmengine/runner/loops.py", 287, "run", "self.run_iter(data_batch)"))
            if kind == "data":
                fr[-1] = (sp + "/mmengine/runner/loops.py", 286, "run", "data_batch = next(self.dataloader_iterator)")
                return fr + [(sp + "/mmengine/runner/loops.py", 176, "__next__", "data = next(self._iterator)")] + dl_frames(job)
            fr.append((sp + "/mmengine/runner/loops.py", 309, "run_iter", "outputs = self.runner.model.train_step("))
        else:
            fr.append((sp + "/mmengine/runner/loops.py", 96, "run", "self.run_epoch()"))
            if kind == "data":
                return fr + [(sp + "/mmengine/runner/loops.py", 111, "run_epoch", "for idx, data_batch in enumerate(self.dataloader):")] + dl_frames(job)
            fr += [(sp + "/mmengine/runner/loops.py", 112, "run_epoch", "self.run_iter(idx, data_batch)"),
                   (sp + "/mmengine/runner/loops.py", 128, "run_iter", "outputs = self.runner.model.train_step(")]
        if kind in ("fwd",):
            return fr + [(sp + "/mmengine/model/wrappers/distributed.py", 121, "train_step", "losses = self._run_forward(data, mode='loss')"),
                         (sp + "/mmengine/model/wrappers/distributed.py", 161, "_run_forward", "results = self(**data, mode=mode)")] + \
                forward_frames(job, sp + "/torch/nn/parallel/distributed.py", "forward", "output = self._run_ddp_forward(*inputs, **kwargs)") + \
                forward_frames(job, r + "/%s/models/detectors/base.py" % job.mm_scope if job.variant == "mmdet" else r + "/%s/models/segmentors/base.py" % job.mm_scope, "forward", "return self.loss(inputs, data_samples)")
        if kind == "allreduce":
            return fr + [(sp + "/mmengine/model/wrappers/distributed.py", 123, "train_step", "parsed_loss, log_vars = self.module.parse_losses(losses)"),
                         (sp + "/mmengine/model/base_model/base_model.py", 186, "parse_losses", "dist.all_reduce(log_var_length)" if False else "log_vars = [[key, value] for key, value in log_vars.items()]"),
                         (sp + "/mmengine/dist/dist.py", 129, "all_reduce", "torch_dist.all_reduce(data_on_device, _get_reduce_op(op), group)")] + allreduce_frames(job)
        return fr + [(sp + "/mmengine/model/wrappers/distributed.py", 124, "train_step", "optim_wrapper.update_params(parsed_loss)"),
                     (sp + "/mmengine/optim/optimizer/optimizer_wrapper.py", 196, "update_params", "self.backward(loss)"),
                     (sp + "/mmengine/optim/optimizer/amp_optimizer_wrapper.py", 136, "backward", "self.loss_scaler.scale(loss).backward(**kwargs)")] + backward_frames(job)

    def py_exc_choices(self, job):
        sp = job.sp
        extra = [("data", ["AttributeError: Caught AttributeError in DataLoader worker process %(w)d.", "Original Traceback (most recent call last):",
                           '  File "%(sp)s/torch/utils/data/_utils/worker.py", line 308, in _worker_loop', "    data = fetcher.fetch(index)",
                           '  File "%(sp)s/torch/utils/data/_utils/fetch.py", line 51, in fetch', "    data = [self.dataset[idx] for idx in possibly_batched_index]",
                           '  File "%(sp)s/mmengine/dataset/base_dataset.py", line 413, in __getitem__', "    data = self.prepare_data(idx)",
                           '  File "%(sp)s/mmengine/dataset/base_dataset.py", line 790, in prepare_data', "    return self.pipeline(data_info)",
                           '  File "%(sp)s/mmengine/dataset/base_dataset.py", line 58, in __call__', "    data = t(data)",
                           '  File "%(sp)s/mmcv/transforms/base.py", line 12, in __call__', "    return self.transform(results)",
                           '  File "%(ds)s", line %(l1)d, in transform', "    results['img_shape'] = img.shape[:2]",
                           "AttributeError: 'NoneType' object has no attribute 'shape'", ""])]
        return PY_EXC + extra

    def render(self, job):
        rng = job.rng
        mr = job.mrng
        files = {}
        d0 = job.dt(0, job.t_init + 2)
        ts = d0.strftime("%Y%m%d_%H%M%S")
        wd = "work_dirs/%s/%s" % (job.cfgname, ts)
        F = lambda t, lvl, msg: "%s - mmengine - %s - %s" % (f_mmdd(job.dt(0, t)), lvl, msg)
        L = []
        t = job.t_init + 2
        env = ["------------------------------------------------------------", "System environment:",
               "    sys.platform: linux", "    Python: %s.%d (main, %s) [GCC 11.2.0]" % (job.py, rng.randint(4, 14), rng.choice(["Oct  3 2023, 13:40:33", "Jan 17 2024, 23:09:18", "May  6 2024, 19:42:28"])),
               "    CUDA available: True", "    MUSA available: False", "    numpy_random_seed: %d" % rng.randint(1, 2 ** 31),
               "    GPU 0,1,2,3,4,5,6,7: %s" % job.gpu[0] if job.gpn == 8 else "    GPU %s: %s" % (",".join(str(i) for i in range(job.gpn)), job.gpu[0]),
               "    CUDA_HOME: /usr/local/cuda", "    NVCC: Cuda compilation tools, release %s, V%s.%d" % (job.cuda, job.cuda, rng.randint(60, 140)),
               "    GCC: gcc (Ubuntu 11.4.0-1ubuntu1~22.04) 11.4.0", "    PyTorch: %s" % job.torch,
               "    PyTorch compiling details: PyTorch built with:", "  - GCC 9.3", "  - C++ Version: 201703",
               "  - Intel(R) oneAPI Math Kernel Library Version 2023.1-Product Build 20230303 for Intel(R) 64 architecture applications",
               "  - CUDA Runtime %s" % job.cuda, "  - NVCC architecture flags: -gencode;arch=compute_80,code=sm_80;-gencode;arch=compute_90,code=sm_90",
               "", "    TorchVision: 0.%d.%d" % (tminor(job) + 15, rng.randint(0, 2)), "    OpenCV: 4.%d.0" % rng.randint(7, 10),
               "    MMEngine: 0.10.%d" % rng.randint(3, 7), "", "Runtime environment:", "    cudnn_benchmark: False",
               "    mp_cfg: {'mp_start_method': 'fork', 'opencv_num_threads': 0}", "    dist_cfg: {'backend': 'nccl'}",
               "    seed: %d" % rng.randint(1, 2 ** 31), "    Distributed launcher: pytorch", "    Distributed training: True",
               "    GPU number: %d" % job.world, "------------------------------------------------------------", ""]
        L.append((t, "INFO", "\n" + "\n".join(env)))
        cfg_lines = ["Config:", "auto_scale_lr = dict(base_batch_size=16, enable=False)", "backend_args = None",
                     "data_root = '%s'" % ("data/coco/" if job.variant == "mmdet" else "data/ade/ADEChallengeData2016" if job.variant == "mmseg" else "data/imagenet"),
                     "default_hooks = dict(", "    checkpoint=dict(interval=1, type='CheckpointHook'),",
                     "    logger=dict(interval=%d, type='LoggerHook')," % job.log_every, "    param_scheduler=dict(type='ParamSchedulerHook'),",
                     "    sampler_seed=dict(type='DistSamplerSeedHook'),", "    timer=dict(type='IterTimerHook'),",
                     "    visualization=dict(type='DetVisualizationHook'))" if job.variant == "mmdet" else "    visualization=dict(type='SegVisualizationHook'))",
                     "default_scope = '%s'" % job.mm_scope, "env_cfg = dict(", "    cudnn_benchmark=False,",
                     "    dist_cfg=dict(backend='nccl'),", "    mp_cfg=dict(mp_start_method='fork', opencv_num_threads=0))",
                     "launcher = 'pytorch'", "load_from = None", "log_level = 'INFO'", "log_processor = dict(by_epoch=%s, type='LogProcessor', window_size=50)" % (job.variant != "mmseg"),
                     "optim_wrapper = dict(", "    optimizer=dict(lr=%s, momentum=0.9, type='SGD', weight_decay=0.0001)," % rng.choice(["0.02", "0.01", "6e-05"]),
                     "    type='%s')" % rng.choice(["OptimWrapper", "AmpOptimWrapper"]), "resume = %s" % bool(job.start_step),
                     "train_cfg = dict(max_epochs=%d, type='EpochBasedTrainLoop', val_interval=1)" % job.max_epochs if job.variant != "mmseg" else "train_cfg = dict(max_iters=%d, type='IterBasedTrainLoop', val_interval=16000)" % job.iters_per_epoch,
                     "work_dir = './work_dirs/%s'" % job.cfgname, ""]
        L.append((t + 0.1, "INFO", "\n".join(cfg_lines)))
        L.append((t + 3, "WARNING", "Failed to search registry with scope \"%s\" in the \"loop\" registry tree. As a workaround, the current \"loop\" registry in \"mmengine\" is used to build instance. This may cause unexpected failure when running the built modules. Please check whether \"%s\" is a correct scope, or whether the registry is initialized." % (job.mm_scope, job.mm_scope)))
        L.append((t + 4, "INFO", "Distributed training is not used, all SyncBatchNorm (SyncBN) layers in the model will be automatically reverted to BatchNormXd layers if they are used." if job.world == 1 else "Hooks will be executed in the following order:\nbefore_run:\n(VERY_HIGH   ) RuntimeInfoHook\n(BELOW_NORMAL) LoggerHook\n -------------------- \nbefore_train:\n(VERY_HIGH   ) RuntimeInfoHook\n(NORMAL      ) IterTimerHook\n(VERY_LOW    ) CheckpointHook\n -------------------- \nbefore_train_epoch:\n(VERY_HIGH   ) RuntimeInfoHook\n(NORMAL      ) IterTimerHook\n(NORMAL      ) DistSamplerSeedHook\n -------------------- \nafter_train_iter:\n(VERY_HIGH   ) RuntimeInfoHook\n(NORMAL      ) IterTimerHook\n(BELOW_NORMAL) LoggerHook\n(LOW         ) ParamSchedulerHook\n(VERY_LOW    ) CheckpointHook\n -------------------- "))
        if job.variant != "mmpretrain":
            L.append((t + 9, "INFO", "load model from: torchvision://resnet50" if job.variant == "mmdet" else "Loads checkpoint by http backend from path: https://download.openmmlab.com/mmsegmentation/v0.5/pretrain/segformer/mit_b5_20220624-658746d9.pth"))
            L.append((t + 9.5, "WARNING", "The model and loaded state dict do not match exactly\n\nunexpected key in source state_dict: fc.weight, fc.bias\n"))
        if job.start_step:
            L.append((t + 12, "INFO", "resumed epoch: %d, iter: %d" % (job.start_step // job.iters_per_epoch, job.start_step)))
        L.append((job.t_train - 3, "WARNING", '"FileClient" will be deprecated in future. Please use io functions in https://mmengine.readthedocs.io/en/latest/api/fileio.html#file-io'))
        L.append((job.t_train - 2, "WARNING", '"HardDiskBackend" is the alias of "LocalBackend" and the former will be deprecated in future.'))
        L.append((job.t_train - 1, "INFO", "Checkpoints will be saved to %s/work_dirs/%s." % (job.repo, job.cfgname)))
        mem = rng.randint(3000, int(job.gpu[1] * 1024 * 0.6))
        peak = rng.choice([0.02, 0.01, 0.004, 6e-05, 0.0001])
        ipe = job.iters_per_epoch
        total = job.total_steps if job.variant == "mmseg" else max(job.total_steps, ipe * max(1, job.max_epochs))
        cur_ep = None
        for s, tt in progress_steps(job):
            st = step_time_at(job, s)
            dtm = mr.uniform(0.004, 0.05)
            if getattr(job, "dl_stall_rank", None) == 0 and s > job.start_step + job.steps_run - 3 * job.log_every:
                dtm = mr.uniform(2, 30)
                st += dtm
            eta = fmt_hms((total - s) * st)
            lv = loss_at(job, s, 2.6, 0.35)
            losses = []
            for k in job.loss_keys:
                if "acc" in k:
                    losses.append("%s: %.4f" % (k, mr.uniform(70, 97)))
                else:
                    losses.append("%s: %.4f" % (k, lv / len(job.loss_keys) * mr.uniform(0.5, 1.6)))
            lr = lr_at(job, s, peak)
            if job.cause == "cuda_oom" and s > job.start_step + job.steps_run - 5 * job.log_every:
                mem = min(int(job.gpu[1] * 1024) - 200, mem + rng.randint(500, 4000))
            if job.variant == "mmseg":
                head = "Iter(train) [%*d/%d]" % (len(str(total)), s, total)
            else:
                ep = s // ipe + 1
                it = s % ipe
                if it == 0:
                    continue
                if cur_ep is not None and ep != cur_ep:
                    te = job.t_of((ep - 1) * ipe)
                    L.append((te, "INFO", "Exp name: %s_%s" % (job.cfgname, ts)))
                    L.append((te + 0.1, "INFO", "Saving checkpoint at %d epochs" % (ep - 1)))
                    if job.variant == "mmdet":
                        L.append((te + 60, "INFO", "Epoch(val) [%d][%d/%d]    coco/bbox_mAP: %.4f  coco/bbox_mAP_50: %.4f  coco/bbox_mAP_75: %.4f  coco/bbox_mAP_s: %.4f  coco/bbox_mAP_m: %.4f  coco/bbox_mAP_l: %.4f  data_time: %.4f  time: %.4f" % (
                            ep - 1, 625, 625, mr.uniform(0.1, 0.4), mr.uniform(0.3, 0.6), mr.uniform(0.1, 0.45), mr.uniform(0.05, 0.2), mr.uniform(0.2, 0.45), mr.uniform(0.3, 0.55), mr.uniform(0.002, 0.01), mr.uniform(0.05, 0.1))))
                    else:
                        L.append((te + 60, "INFO", "Epoch(val) [%d][%d/%d]    accuracy/top1: %.4f  accuracy/top5: %.4f  data_time: %.4f  time: %.4f" % (ep - 1, 196, 196, mr.uniform(30, 80), mr.uniform(60, 95), mr.uniform(0.01, 0.05), mr.uniform(0.1, 0.3))))
                cur_ep = ep
                head = "Epoch(train)  [%d][%*d/%d]" % (ep, len(str(ipe)), it, ipe)
            gn = "  grad_norm: %.4f" % mr.uniform(2, 40) if job.variant == "mmdet" else ""
            L.append((tt, "INFO", "%s  base_lr: %.4e lr: %.4e  eta: %s  time: %.4f  data_time: %.4f  memory: %d%s  loss: %.4f  %s" % (
                head, peak, lr, eta, st, dtm, mem, gn, lv, "  ".join(losses))))
            if job.variant == "mmseg" and s % 16000 == 0:
                L.append((tt + 0.1, "INFO", "Saving checkpoint at %d iterations" % s))
        if job.end_kind == "success":
            te = job.progress_end + 1
            L.append((te, "INFO", "Saving checkpoint at %d %s" % ((job.total_steps, "iterations") if job.variant == "mmseg" else (job.total_steps // ipe, "epochs"))))
            L.append((te + 50, "INFO", "Epoch(val) [%d][%d/%d]    coco/bbox_mAP: %.4f  coco/bbox_mAP_50: %.4f  data_time: %.4f  time: %.4f" % (job.total_steps // ipe, 625, 625, mr.uniform(0.3, 0.45), mr.uniform(0.5, 0.65), 0.0041, 0.0712) if job.variant == "mmdet" else "Iter(val) [500/500]    aAcc: %.4f  mIoU: %.4f  mAcc: %.4f  data_time: 0.0021  time: 0.1234" % (mr.uniform(78, 85), mr.uniform(40, 52), mr.uniform(50, 63))))
        logfile = []
        for tt, lvl, msg in sorted(L, key=lambda x: x[0]):
            logfile.append((tt, F(tt, lvl, msg)))
        files["%s/%s.log" % (wd, ts)] = "\n".join(x[1] for x in logfile) + "\n"
        # consoles of the nodes the user attached
        vis = sorted(set(job.vis_node_choice))
        job.vis_nodes = vis
        job.vis_ranks = [p.rank for p in job.procs if p.node in vis]
        job.attr_ranks = []
        add_rank_noise(job, job.vis_ranks)
        m = tminor(job)
        for n in vis:
            st = Stream()
            st.add(-30, "+ NNODES=%d NODE_RANK=%d PORT=%d MASTER_ADDR=%s bash ./tools/dist_train.sh configs/%s/%s.py %d%s" % (
                job.nnodes, n, job.master_port, job.nodes[0].ip, job.cfgname.split("_")[0].split("-")[0], job.cfgname, job.gpn, " --resume" if job.start_step else ""))
            st.add(-29, "%s/torch/distributed/launch.py:%d: FutureWarning: The module torch.distributed.launch is deprecated\nand will be removed in future. Use torchrun.\nNote that --use-env is set by default in torchrun.\nIf your script expects `--local-rank` argument to be set, please\nchange it to read from `os.environ['LOCAL_RANK']` instead. See \nhttps://pytorch.org/docs/stable/distributed.html#launch-utility for \nfurther instructions\n\n  warnings.warn(" % (job.sp, 181 if m < 4 else 208))
            to_stream(st, agent_lines(job, n, "tools/train.py", entry="launch"))
            for p in job.procs_on(n):
                to_stream(st, rank_lines(job, p))
                if p.rank != 0 and rng.random() < 0.5:
                    st.add(job.t_train + 0.5, "%s/mmcv/cnn/bricks/transformer.py:%d: UserWarning: The arguments `feedforward_channels` in BaseTransformerLayer has been deprecated, now you should set `feedforward_channels` and other FFN related arguments to a dict named `ffn_cfgs`. " % (job.sp, 524) if job.variant != "mmseg" else "%s/torch/functional.py:507: UserWarning: torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument. (Triggered internally at ../aten/src/ATen/native/TensorShape.cpp:3550.)" % job.sp)
            if n == 0:
                for tt, ln in logfile:
                    st.add(tt, ln)
                if job.handled_exc:
                    th = job.t_train + (job.progress_end - job.t_train) * rng.uniform(0.1, 0.9)
                    st.addblock(th, tb([(job.sp + "/mmengine/hooks/logger_hook.py", 197, "after_train_iter", "runner.visualizer.add_scalars("),
                                        (job.sp + "/mmengine/visualization/vis_backend.py", 675, "add_scalars", "self._wandb.log(scalar_dict, commit=self._commit)"),
                                        (job.sp + "/wandb/sdk/wandb_run.py", 449, "wrapper", "return func(self, *args, **kwargs)")],
                                       ["wandb.errors.errors.CommError: Network error (ConnectionError), entering retry loop."])[:0] + ["wandb: Network error (ConnectionError), entering retry loop."])
            name = rng.choice(["node%d_%s.out", "train_node%d_%s.log"]) % (n, job.nodes[n].host)
            files["console/" + name] = st.render()
        if rng.random() < 0.35:
            sc = []
            for s, tt in progress_steps(job)[-25:]:
                sc.append(json.dumps({"base_lr": peak, "lr": round(lr_at(job, s, peak), 8), "data_time": round(mr.uniform(0.004, 0.05), 4), "loss": round(loss_at(job, s, 2.6, 0.35), 4), "time": round(step_time_at(job, s), 4), "memory": mem, ("iter" if job.variant == "mmseg" else "epoch"): (s if job.variant == "mmseg" else s // ipe + 1), "step": s}))
            files["%s/vis_data/scalars.json" % wd] = "\n".join(sc) + "\n"
        attach_kernel_logs(job, files)
        return files


def rng_line(job, base):
    return base

# --------------------------------------------------------------------------
# layout: detectron2 (launch() with mp.spawn, one process tree per machine)
# --------------------------------------------------------------------------

class Detectron2:
    name = "detectron2"

    def setup(self, job):
        rng = job.rng
        gpn = rng.choice([8, 8, 8, 4, 2])
        nn = rng.choice([1, 2, 2, 4, 4, 8]) if gpn == 8 else rng.choice([1, 2, 4])
        if job.cause == "network" and nn < 2:
            nn = 2
        job.make_topology(nn, gpn)
        job.launcher = "spawn"
        job.variant = rng.choice(["mask_rcnn", "retinanet", "panoptic"])
        job.d2cfg = {"mask_rcnn": "configs/COCO-InstanceSegmentation/mask_rcnn_R_50_FPN_3x.yaml",
                     "retinanet": "configs/COCO-Detection/retinanet_R_50_FPN_3x.yaml",
                     "panoptic": "configs/COCO-PanopticSegmentation/panoptic_fpn_R_101_3x.yaml"}[job.variant]
        job.d2losses = {"mask_rcnn": ["loss_cls", "loss_box_reg", "loss_mask", "loss_rpn_cls", "loss_rpn_loc"],
                        "retinanet": ["loss_cls", "loss_box_reg"],
                        "panoptic": ["loss_sem_seg", "loss_cls", "loss_box_reg", "loss_mask", "loss_rpn_cls", "loss_rpn_loc"]}[job.variant]
        job.repo = rng.choice(["/home/%s/detectron2", "/workspace/detectron2", "/data/%s/projects/detectron2"])
        if "%s" in job.repo:
            job.repo = job.repo % rng.choice(["alice", "dmitri", "yzhou", "nroy"])
        job.d2_port = rng.randint(49152, 65000)
        job.amp = rng.random() < 0.5
        job.ansi = rng.random() < 0.25

    def log_every(self, job):
        return 20

    def dataset_file(self, job):
        return job.repo + "/detectron2/data/dataset_mapper.py"

    def script_cmd(self, job):
        return "tools/train_net.py --config-file %s --num-gpus %d --num-machines %d" % (job.d2cfg, job.gpn, job.nnodes)

    def worker_frames(self, job, kind):
        sp = job.sp
        r = job.repo
        m = tminor(job)
        fr = [(r + "/tools/train_net.py", 155, "main", "return trainer.train()"),
              (r + "/detectron2/engine/defaults.py", 484, "train", "super().train(self.start_iter, self.max_iter)"),
              (r + "/detectron2/engine/train_loop.py", 155, "train", "self.run_step()"),
              (r + "/detectron2/engine/defaults.py", 494, "run_step", "self._trainer.run_step()")]
        tr = "train_loop.py"
        if kind == "data":
            return fr + [(r + "/detectron2/engine/" + tr, 300 if not job.amp else 461, "run_step", "data = next(self._data_loader_iter)"),
                         (r + "/detectron2/data/common.py", 329, "__iter__", "for d in self.dataset:")] + dl_frames(job)
        if kind == "allreduce":
            return fr + [(r + "/detectron2/engine/" + tr, 330 if not job.amp else 481, "run_step", "self._write_metrics(loss_dict, data_time)"),
                         (r + "/detectron2/engine/train_loop.py", 366, "_write_metrics", "SimpleTrainer.write_metrics(loss_dict, data_time, iter, prefix)"),
                         (r + "/detectron2/engine/train_loop.py", 393, "write_metrics", "all_metrics_dict = comm.gather(metrics_dict)"),
                         (r + "/detectron2/utils/comm.py", 167, "gather", "dist.gather_object(data, output, dst=dst, group=group)"),
                         (sp + "/torch/distributed/c10d_logger.py", 72 if m < 4 else 81, "wrapper", "return func(*args, **kwargs)"),
                         (sp + "/torch/distributed/distributed_c10d.py", 2393 if m < 4 else 2845, "gather_object", "all_gather(object_size_list, local_size, group=group)")]
        if kind == "fwd":
            return fr + [(r + "/detectron2/engine/" + tr, 310 if not job.amp else 466, "run_step", "loss_dict = self.model(data)")] + \
                forward_frames(job, sp + "/torch/nn/parallel/distributed.py", "forward", "output = self._run_ddp_forward(*inputs, **kwargs)") + \
                forward_frames(job, r + "/detectron2/modeling/meta_arch/rcnn.py", "forward", "proposals, proposal_losses = self.proposal_generator(images, features, gt_instances)")
        return fr + [(r + "/detectron2/engine/" + tr, 320 if not job.amp else 474, "run_step", "losses.backward()" if not job.amp else "self.grad_scaler.scale(losses).backward()")] + backward_frames(job)

    def frames(self, job, kind):
        return self.worker_frames(job, kind)

    def cfmt(self, job, t, name, msg, lvl="INFO"):
        d = job.dt(0, t)
        short = name.replace("detectron2.", "d2.") if name.startswith("detectron2.") else name
        head = "[%s %s]: " % (f_mmdd(d), short)
        if job.ansi:
            head = "\x1b[32m[%s %s]: \x1b[0m" % (f_mmdd(d), short)
        pre = ""
        if lvl == "WARNING":
            pre = ("\x1b[5m\x1b[31mWARNING\x1b[0m " if job.ansi else "WARNING ")
        elif lvl in ("ERROR", "CRITICAL"):
            pre = ("\x1b[5m\x1b[31mERROR\x1b[0m " if job.ansi else "ERROR ")
        return pre + head + msg

    def ffmt(self, job, node, t, name, msg, lvl="INFO"):
        return "[%s] %s %s: %s" % (f_mmdd(job.dt(node, t)), name, lvl, msg)

    def rank0_log(self, job):
        rng = job.rng
        mr = job.mrng
        L = []
        t = job.t_init + 1
        L.append((t, "detectron2", "Rank of current process: 0. World size: %d" % job.world, "INFO"))
        env = ["Environment info:", "-------------------------------  " + "-" * 64,
               "sys.platform                     linux",
               "Python                           %s.%d (main, Oct  3 2023, 13:40:33) [GCC 11.2.0]" % (job.py, rng.randint(4, 14)),
               "numpy                            1.%d.%d" % (rng.randint(24, 26), rng.randint(0, 4)),
               "detectron2                       0.6 @%s/detectron2" % job.repo,
               "Compiler                         GCC 11.4", "CUDA compiler                    CUDA %s" % job.cuda,
               "detectron2 arch flags            %s" % ("9.0" if "H" in job.gpu[0] else "8.0"),
               "DETECTRON2_ENV_MODULE            <not set>",
               "PyTorch                          %s+cu%s @%s/torch" % (job.torch, job.cuda.replace(".", ""), job.sp),
               "PyTorch debug build              False", "torch._C._GLIBCXX_USE_CXX11_ABI  False",
               "GPU available                    Yes",
               "GPU %-28s %s (arch=%s)" % (",".join(str(i) for i in range(job.gpn)), job.gpu[0], "9.0" if "H" in job.gpu[0] else "8.0"),
               "Driver version                   %s" % job.gpu[4], "CUDA_HOME                        /usr/local/cuda",
               "Pillow                           10.%d.0" % rng.randint(0, 4),
               "torchvision                      0.%d.%d+cu%s @%s/torchvision" % (tminor(job) + 15, rng.randint(0, 2), job.cuda.replace(".", ""), job.sp),
               "fvcore                           0.1.5.post20221221", "iopath                           0.1.9",
               "cv2                              4.%d.0" % rng.randint(7, 10), "-------------------------------  " + "-" * 64]
        L.append((t + 1, "detectron2", "\n".join(env), "INFO"))
        L.append((t + 1.1, "detectron2", "Command line arguments: Namespace(config_file='%s', resume=%s, eval_only=False, num_gpus=%d, num_machines=%d, machine_rank=0, dist_url='tcp://%s:%d', opts=['SOLVER.IMS_PER_BATCH', '%d', 'OUTPUT_DIR', '%s'])" % (
            job.d2cfg, bool(job.start_step), job.gpn, job.nnodes, job.nodes[0].ip, job.d2_port, 2 * job.world, job.outdir), "INFO"))
        L.append((t + 1.2, "detectron2", "Full config saved to %s/config.yaml" % job.outdir, "INFO"))
        L.append((t + 1.3, "d2.utils.env", "Using a generated random seed %d" % rng.randint(10 ** 6, 10 ** 8), "INFO"))
        L.append((t + 30, "d2.data.datasets.coco", "Loading datasets/coco/annotations/instances_train2017.json takes %.2f seconds." % mr.uniform(12, 30), "INFO"))
        L.append((t + 31, "d2.data.datasets.coco", "Loaded 118287 images in COCO format from datasets/coco/annotations/instances_train2017.json", "INFO"))
        L.append((t + 40, "d2.data.build", "Removed 1021 images with no usable annotations. 117266 images left.", "INFO"))
        L.append((t + 41, "d2.data.dataset_mapper", "[DatasetMapper] Augmentations used in training: [ResizeShortestEdge(short_edge_length=(640, 672, 704, 736, 768, 800), max_size=1333, sample_style='choice'), RandomFlip()]", "INFO"))
        L.append((t + 41, "d2.data.build", "Using training sampler TrainingSampler", "INFO"))
        L.append((t + 41, "d2.data.common", "Serializing the dataset using: <class 'detectron2.data.common._TorchSerializedList'>", "INFO"))
        L.append((t + 41, "d2.data.common", "Serializing 117266 elements to byte tensors and concatenating them all ...", "INFO"))
        L.append((t + 45, "d2.data.common", "Serialized dataset takes 451.21 MiB", "INFO"))
        L.append((t + 45, "d2.data.build", "Making batched data loader with batch_size=2", "INFO"))
        L.append((t + 46, "d2.checkpoint.detection_checkpoint", "[DetectionCheckpointer] Loading from %s ..." % ("detectron2://ImageNetPretrained/MSRA/R-50.pkl" if not job.start_step else "%s/model_%07d.pth" % (job.outdir, job.start_step - 1)), "INFO"))
        if not job.start_step:
            L.append((t + 46, "fvcore.common.checkpoint", "[Checkpointer] Loading from /root/.torch/iopath_cache/detectron2/ImageNetPretrained/MSRA/R-50.pkl ...", "INFO"))
            L.append((t + 46, "fvcore.common.checkpoint", "Reading a file from 'MSRA'", "INFO"))
            L.append((t + 47, "fvcore.common.checkpoint", "Some model parameters or buffers are not found in the checkpoint:\nbackbone.fpn_lateral2.{bias, weight}\nbackbone.fpn_lateral3.{bias, weight}\nbackbone.fpn_output2.{bias, weight}\nproposal_generator.rpn_head.anchor_deltas.{bias, weight}\nroi_heads.box_predictor.bbox_pred.{bias, weight}", "WARNING"))
            L.append((t + 47, "fvcore.common.checkpoint", "The checkpoint state_dict contains keys that are not used by the model:\n  fc1000.{bias, weight}\n  stem.conv1.bias", "WARNING"))
        L.append((job.t_train - 1, "d2.engine.train_loop", "Starting training from iteration %d" % job.start_step, "INFO"))
        total = job.total_steps
        for s, tt in progress_steps(job):
            it = s - 1
            st = step_time_at(job, s)
            lv = loss_at(job, s, 2.4, 0.55)
            parts = ["total_loss: %.4g" % lv]
            for k in job.d2losses:
                parts.append("%s: %.4g" % (k, lv / len(job.d2losses) * mr.uniform(0.4, 1.7)))
            dtm = mr.uniform(0.003, 0.03)
            if getattr(job, "dl_stall_rank", None) == 0 and s > job.start_step + job.steps_run - 60:
                dtm = mr.uniform(1, 20)
            L.append((tt, "d2.utils.events", " eta: %s  iter: %d  %s    time: %.4f  last_time: %.4f  data_time: %.4f  last_data_time: %.4f   lr: %.5g  max_mem: %dM" % (
                fmt_hms((total - s) * st).replace(" days, ", " days, ").replace(" day, ", " day, "), it, "  ".join(parts), st, st * mr.uniform(0.95, 1.08), dtm, dtm * mr.uniform(0.5, 1.5), lr_at(job, s, 0.02 * job.world / 16), job.maxmem), "INFO"))
            if s % 5000 == 0:
                L.append((tt + 2, "fvcore.common.checkpoint", "Saving checkpoint to %s/model_%07d.pth" % (job.outdir, s - 1), "INFO"))
            if job.handled_exc and s == job.decoy_step:
                L.append((tt - 3, "d2.data.common", "Failed to apply `_map_func` for idx: %d, retry count: 1" % rng.randint(0, 117265), "WARNING"))
        if job.end_kind == "success":
            te = job.progress_end + 1
            L.append((te, "fvcore.common.checkpoint", "Saving checkpoint to %s/model_final.pth" % job.outdir, "INFO"))
            span = job.progress_end - job.t_train
            L.append((te + 2, "d2.engine.hooks", "Overall training speed: %d iterations in %s (%.4f s / it)" % (job.steps_run - 2, fmt_hms(span), span / job.steps_run), "INFO"))
            L.append((te + 2, "d2.engine.hooks", "Total training time: %s (%s on hooks)" % (fmt_hms(span + 300), fmt_hms(300)), "INFO"))
            L.append((te + 4, "d2.data.datasets.coco", "Loaded 5000 images in COCO format from datasets/coco/annotations/instances_val2017.json", "INFO"))
            L.append((te + 5, "d2.evaluation.evaluator", "Start inference on %d batches" % (5000 // job.world), "INFO"))
            L.append((te + 200, "d2.evaluation.testing", "copypaste: Task: bbox", "INFO"))
            L.append((te + 200, "d2.evaluation.testing", "copypaste: AP,AP50,AP75,APs,APm,APl", "INFO"))
            L.append((te + 200, "d2.evaluation.testing", "copypaste: %.4f,%.4f,%.4f,%.4f,%.4f,%.4f" % tuple(mr.uniform(20, 60) for _ in range(6)), "INFO"))
        return L

    def render(self, job):
        rng = job.rng
        files = {}
        job.outdir = rng.choice(["./output", "output/%s" % job.variant, "/checkpoint/%s/d2_%s" % (rng.choice(["alice", "dmitri"]), job.variant)])
        job.maxmem = rng.randint(3000, int(job.gpu[1] * 1024 * 0.5))
        job.decoy_step = None
        steps = progress_steps(job)
        if job.handled_exc and len(steps) > 4:
            job.decoy_step = steps[rng.randint(1, len(steps) - 2)][0]
        L = self.rank0_log(job)
        culprit = job.procs[job.culprit_rank] if job.culprit_rank is not None else None
        # rank 0's exception (if it is the one that raised) is logged by train_loop
        extra0 = []
        p0 = job.procs[0]
        pl0 = job.plan.get(0)
        if pl0 and pl0["tb"] and pl0["reason"] in ("culprit", "mismatch"):
            t = pl0["t"]
            L.append((t - 0.01, "d2.engine.train_loop", "Exception during training:\n" + "\n".join(pl0["tb"]), "ERROR"))
            span = t - job.t_train
            L.append((t, "d2.engine.hooks", "Overall training speed: %d iterations in %s (%.4f s / it)" % (max(0, job.steps_run - 3), fmt_hms(span), span / max(1, job.steps_run)), "INFO"))
            L.append((t, "d2.engine.hooks", "Total training time: %s (%s on hooks)" % (fmt_hms(span + 60), fmt_hms(60)), "INFO"))
        vis = sorted(set(job.vis_node_choice))
        job.vis_nodes = vis
        job.vis_ranks = [p.rank for p in job.procs if p.node in vis]
        job.attr_ranks = []
        add_rank_noise(job, job.vis_ranks)
        m = tminor(job)
        for n in vis:
            st = Stream()
            st.add(-20, "$ python tools/train_net.py --config-file %s --num-gpus %d --num-machines %d --machine-rank %d --dist-url tcp://%s:%d SOLVER.IMS_PER_BATCH %d OUTPUT_DIR %s%s" % (
                job.d2cfg, job.gpn, job.nnodes, n, job.nodes[0].ip, job.d2_port, 2 * job.world, job.outdir, " --resume" if job.start_step else ""))
            for p in job.procs_on(n):
                to_stream(st, rank_lines(job, p))
                if rng.random() < 0.6:
                    st.add(job.t_train + rng.uniform(1, 5), "%s/torch/functional.py:%d: UserWarning: torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument. (Triggered internally at ../aten/src/ATen/native/TensorShape.cpp:%d.)\n  return _VF.meshgrid(tensors, **kwargs)  # type: ignore[attr-defined]" % (job.sp, 504 if m < 4 else 534, 3549 if m < 4 else 3595))
            if n == 0:
                for t, name, msg, lvl in L:
                    st.add(t, self.cfmt(job, t, name, msg, lvl))
            # the spawn parent on this machine
            procs = job.procs_on(n)
            ended = sorted([(p.exit[0], p.rank, p) for p in procs if p.exit and p.exit[1] != 0 and p.reason != "terminated"])
            term = [p for p in procs if p.exit and p.reason == "terminated"]
            if ended:
                t1, _, pf = ended[0]
                t1 += rng.uniform(0.1, 1.5)
                if m >= 3:
                    for q in procs:
                        if q is not pf and q.exit and q.exit[0] >= ended[0][0] - 0.001:
                            st.add(t1, "W%s %d torch/multiprocessing/spawn.py:%d] Terminating process %d via signal SIGTERM" % (f_glog(job.dt(n, t1), rng)[:-3], job.agent_pid[n], 146 if m < 6 else 160, q.pid))
                sp = job.sp
                fr = [(job.repo + "/tools/train_net.py", 161, "<module>", "launch("),
                      (job.repo + "/detectron2/engine/launch.py", 69, "launch", "mp.start_processes("),
                      (sp + "/torch/multiprocessing/spawn.py", 197 if m < 4 else 296, "start_processes", "while not context.join():")]
                pl = job.plan[pf.rank]
                if pl["tb"]:
                    fr.append((sp + "/torch/multiprocessing/spawn.py", 158 if m < 4 else 215, "join", "raise ProcessRaisedException(msg, error_index, failed_process.pid)"))
                    inner = tb([(sp + "/torch/multiprocessing/spawn.py", 68 if m < 4 else 90, "_wrap", "fn(i, *args)"),
                                (job.repo + "/detectron2/engine/launch.py", 123, "_distributed_worker", "main_func(*args)")] + [], [])[:-0 or None]
                    inner_tb = pl["tb"]
                    # splice spawn frames at the top of the worker traceback
                    inner_lines = ["Traceback (most recent call last):",
                                   '  File "%s/torch/multiprocessing/spawn.py", line %d, in _wrap' % (sp, 68 if m < 4 else 90), "    fn(i, *args)",
                                   '  File "%s/detectron2/engine/launch.py", line 123, in _distributed_worker' % job.repo, "    main_func(*args)"] + inner_tb[1:]
                    block = tb(fr, ["torch.multiprocessing.spawn.ProcessRaisedException: ", "", "-- Process %d terminated with the following error:" % pf.local] + inner_lines)
                else:
                    code = pl["code"]
                    fr.append((sp + "/torch/multiprocessing/spawn.py", 170 if m < 4 else 207, "join", "raise ProcessExitedException("))
                    if code < 0:
                        msg = "torch.multiprocessing.spawn.ProcessExitedException: process %d terminated with signal %s" % (pf.local, SIGNAMES.get(-code, "SIG%d" % -code))
                    else:
                        msg = "torch.multiprocessing.spawn.ProcessExitedException: process %d terminated with exit code %d" % (pf.local, code)
                    block = tb(fr, [msg])
                st.addblock(t1 + 0.05, block)
                job.node_summary[n] = [(pf, pf.exit[1], pf.exit[0])]
            elif term and job.preempt_node == n:
                st.add(term[0].exit[0] - 0.05, "Terminated")
            name = "machine%d_%s.log" % (n, job.nodes[n].host)
            files[name] = st.render()
        # output/log.txt and per-rank files (shared output dir)
        if rng.random() < 0.7:
            lf = []
            for t, name, msg, lvl in sorted(L, key=lambda x: x[0]):
                lf.append(self.ffmt(job, 0, t, name.replace("d2.", "detectron2."), msg, lvl))
            files["output/log.txt"] = "\n".join(lf) + "\n"
        ranks = []
        if culprit is not None and culprit.rank != 0 and rng.random() < 0.65:
            ranks.append(culprit.rank)
        others = [r for r in range(1, job.world) if r not in ranks]
        if others and rng.random() < 0.6:
            ranks.append(rng.choice(others))
        for r in ranks:
            p = job.procs[r]
            lines = [self.ffmt(job, p.node, job.t_init + 1, "detectron2", "Rank of current process: %d. World size: %d" % (r, job.world)),
                     self.ffmt(job, p.node, job.t_init + 45, "detectron2.data.build", "Making batched data loader with batch_size=2"),
                     self.ffmt(job, p.node, job.t_init + 46, "detectron2.checkpoint.detection_checkpoint", "[DetectionCheckpointer] Loading from detectron2://ImageNetPretrained/MSRA/R-50.pkl ..."),
                     self.ffmt(job, p.node, job.t_train - 1, "detectron2.engine.train_loop", "Starting training from iteration %d" % job.start_step)]
            pl = job.plan.get(r)
            if pl and pl["tb"]:
                lines.append(self.ffmt(job, p.node, pl["t"], "detectron2.engine.train_loop", "Exception during training:", "ERROR"))
                lines += pl["tb"]
                job.attr_ranks.append(r)
                job.vis_ranks.append(r)
            files["output/log.txt.rank%d" % r] = "\n".join(lines) + "\n"
        attach_kernel_logs(job, files)
        return files

# --------------------------------------------------------------------------
# layout: hydra multirun through hydra-submitit-launcher on Slurm
# --------------------------------------------------------------------------

class HydraMultirun:
    name = "hydra_multirun"

    def setup(self, job):
        rng = job.rng
        job.variant = rng.choice(["lightning", "lightning", "plain"])
        gpn = rng.choice([8, 8, 4])
        nn = rng.choice([1, 2, 2, 4, 8, 16])
        if job.cause == "network" and nn < 2:
            nn = 2
        job.make_topology(nn, gpn)
        job.launcher = "submitit"
        job.hydra_catch = True
        job.proj = rng.choice(["/home/%s/projects/%s", "/private/home/%s/%s", "/scratch/%s/code/%s"]) % (
            rng.choice(["alice", "tkim", "pmartin", "oana"]), rng.choice(["vit-pretrain", "diffusion-lm", "seg-hydra", "ssl-bench"]))
        job.array_idx = rng.choice([0, 0, 1, 2])
        job.n_sweep = job.array_idx + rng.randint(1, 2)
        job.sweep_param = rng.choice(["model.optimizer.lr", "model.net.depth", "data.batch_size", "seed"])
        job.sweep_vals = {"model.optimizer.lr": ["0.0001", "0.0003", "0.001", "0.003"], "model.net.depth": ["12", "16", "24", "32"],
                          "data.batch_size": ["64", "128", "256", "512"], "seed": ["1", "2", "3", "4"]}[job.sweep_param]
        job.precision = rng.choice(["16-mixed", "bf16-mixed", "32-true"])
        job.timeout_min = rng.choice([720, 1440, 2880, 4320])

    def log_every(self, job):
        return job.rng.choice([50, 50, 100, 200]) if job.variant == "plain" else job.rng.choice([50, 100])

    def dataset_file(self, job):
        return job.proj + "/src/data/components/" + job.rng.choice(["webdataset_shards.py", "image_folder.py", "tokenized_dataset.py"])

    def script_cmd(self, job):
        return "-m submitit.core._submit %s" % self.subdir(job)

    def subdir(self, job):
        d = job.dt(0, -job.queue_wait)
        return "%s/multirun/%s/%s/.submitit/%d_%d" % (job.proj, d.strftime("%Y-%m-%d"), d.strftime("%H-%M-%S"), job.slurm_jobid, job.array_idx)

    def frames(self, job, kind):
        sp = job.sp
        py = job.pylib
        fr = [(py + "/runpy.py" if job.py < "3.11" else "<frozen runpy>", 196 if job.py < "3.11" else 198, "_run_module_as_main", "return _run_code(code, main_globals, None," if job.py < "3.11" else None),
              (py + "/runpy.py" if job.py < "3.11" else "<frozen runpy>", 86 if job.py < "3.11" else 88, "_run_code", "exec(code, run_globals)" if job.py < "3.11" else None),
              (sp + "/submitit/core/_submit.py", 11, "<module>", "submitit_main()"),
              (sp + "/submitit/core/submission.py", 76, "submitit_main", "process_job(args.folder)"),
              (sp + "/submitit/core/submission.py", 55, "process_job", "result = delayed.result()"),
              (sp + "/submitit/core/utils.py", 137, "result", "self._result = self.function(*self.args, **self.kwargs)"),
              (sp + "/hydra_plugins/hydra_submitit_launcher/submitit_launcher.py", 74, "__call__", "ret = run_job("),
              (sp + "/hydra/core/utils.py", 186, "run_job", "ret.return_value = task_function(task_cfg)"),
              (job.proj + "/src/train.py", 118, "main", "metric_dict, _ = train(cfg)"),
              (job.proj + "/src/utils/utils.py", 68, "wrap", "raise ex"),
              (job.proj + "/src/utils/utils.py", 58, "wrap", "metric_dict, object_dict = task_func(cfg=cfg)")]
        if job.variant == "plain":
            fr = fr[:9] + [(job.proj + "/src/train.py", 92, "train", "loss = train_step(model, batch, optimizer, scaler)")]
            if kind == "data":
                fr[-1] = (job.proj + "/src/train.py", 88, "train", "batch = next(loader_iter)")
                return fr + dl_frames(job)
            if kind == "allreduce":
                return fr[:-1] + [(job.proj + "/src/train.py", 101, "train", "dist.all_reduce(loss_t, op=dist.ReduceOp.AVG)")] + allreduce_frames(job)
            if kind == "fwd":
                return fr + [(job.proj + "/src/train.py", 51, "train_step", "out = model(batch[\"input\"])")] + forward_frames(job, sp + "/torch/nn/parallel/distributed.py", "forward", "output = self._run_ddp_forward(*inputs, **kwargs)")
            return fr + [(job.proj + "/src/train.py", 55, "train_step", "scaler.scale(loss).backward()")] + backward_frames(job)
        lp = sp + "/lightning/pytorch"
        fr += [(job.proj + "/src/train.py", 87, "train", "trainer.fit(model=model, datamodule=datamodule, ckpt_path=cfg.get(\"ckpt_path\"))"),
               (lp + "/trainer/trainer.py", 538, "fit", "call._call_and_handle_interrupt("),
               (lp + "/trainer/call.py", 47, "_call_and_handle_interrupt", "return trainer_fn(*args, **kwargs)"),
               (lp + "/trainer/trainer.py", 574, "_fit_impl", "self._run(model, ckpt_path=ckpt_path)"),
               (lp + "/trainer/trainer.py", 981, "_run", "results = self._run_stage()"),
               (lp + "/trainer/trainer.py", 1025, "_run_stage", "self.fit_loop.run()"),
               (lp + "/loops/fit_loop.py", 205, "run", "self.advance()"),
               (lp + "/loops/fit_loop.py", 363, "advance", "self.epoch_loop.run(self._data_fetcher)"),
               (lp + "/loops/training_epoch_loop.py", 140, "run", "self.advance(data_fetcher)")]
        if kind == "data":
            return fr + [(lp + "/loops/training_epoch_loop.py", 212, "advance", "batch, _, __ = next(data_fetcher)"),
                         (lp + "/loops/fetchers.py", 133, "__next__", "batch = super().__next__()"),
                         (lp + "/loops/fetchers.py", 60, "__next__", "batch = next(self.iterator)"),
                         (lp + "/utilities/combined_loader.py", 341, "__next__", "out = next(self._iterator)"),
                         (lp + "/utilities/combined_loader.py", 78, "__next__", "out[i] = next(self.iterators[i])")] + dl_frames(job)
        fr += [(lp + "/loops/training_epoch_loop.py", 250, "advance", "batch_output = self.automatic_optimization.run(trainer.optimizers[0], batch_idx, kwargs)"),
               (lp + "/loops/optimization/automatic.py", 190, "run", "self._optimizer_step(batch_idx, closure)"),
               (lp + "/loops/optimization/automatic.py", 268, "_optimizer_step", "call._call_lightning_module_hook("),
               (lp + "/trainer/call.py", 167, "_call_lightning_module_hook", "output = fn(*args, **kwargs)"),
               (lp + "/core/module.py", 1306, "optimizer_step", "optimizer.step(closure=optimizer_closure)"),
               (lp + "/core/optimizer.py", 153, "step", "step_output = self._strategy.optimizer_step(self._optimizer, closure, **kwargs)"),
               (lp + "/strategies/ddp.py", 270, "optimizer_step", "optimizer_output = super().optimizer_step(optimizer, closure, model, **kwargs)"),
               (lp + "/strategies/strategy.py", 238, "optimizer_step", "return self.precision_plugin.optimizer_step(optimizer, model=model, closure=closure, **kwargs)"),
               (lp + "/plugins/precision/amp.py" if job.precision != "32-true" else lp + "/plugins/precision/precision.py", 77 if job.precision != "32-true" else 122, "optimizer_step", "closure_result = closure()"),
               (lp + "/loops/optimization/automatic.py", 144, "__call__", "self._result = self.closure(*args, **kwargs)"),
               (sp + "/torch/utils/_contextlib.py", 116, "decorate_context", "return func(*args, **kwargs)")]
        if kind == "fwd" or kind == "allreduce":
            fr += [(lp + "/loops/optimization/automatic.py", 129, "closure", "step_output = self._step_fn()"),
                   (lp + "/loops/optimization/automatic.py", 317, "_training_step", "training_step_output = call._call_strategy_hook(trainer, \"training_step\", *kwargs.values())"),
                   (lp + "/trainer/call.py", 319, "_call_strategy_hook", "output = fn(*args, **kwargs)"),
                   (lp + "/strategies/strategy.py", 389, "training_step", "return self._forward_redirection(self.model, self.lightning_module, \"training_step\", *args, **kwargs)"),
                   (lp + "/strategies/strategy.py", 640, "__call__", "wrapper_output = wrapper_module(*args, **kwargs)")]
            fr += forward_frames(job, sp + "/torch/nn/parallel/distributed.py", "forward", "output = self._run_ddp_forward(*inputs, **kwargs)")[:2]
            fr += [(lp + "/strategies/strategy.py", 633, "wrapped_forward", "out = method(*_args, **_kwargs)"),
                   (job.proj + "/src/models/module.py", 95, "training_step", "loss, preds, targets = self.model_step(batch)")]
            if kind == "allreduce":
                return fr[:-1] + [(job.proj + "/src/models/module.py", 101, "training_step", "self.log(\"train/loss\", self.train_loss, on_step=True, sync_dist=True, prog_bar=True)"),
                                  (lp + "/core/module.py", 520, "log", "value = apply_to_collection(value, (Tensor, numbers.Number), self.__to_tensor, name)"),
                                  (lp + "/strategies/ddp.py", 331, "reduce", "tensor = _sync_ddp_if_available(tensor, group, reduce_op=reduce_op)"),
                                  (sp + "/lightning/fabric/utilities/distributed.py", 171, "_sync_ddp", "torch.distributed.all_reduce(result, op=op, group=group, async_op=False)")] + allreduce_frames(job)
            return fr + [(job.proj + "/src/models/module.py", 77, "model_step", "logits = self.forward(x)")] + forward_frames(job, job.proj + "/src/models/components/vit.py", "forward", "x = blk(x)")
        fr += [(lp + "/loops/optimization/automatic.py", 140, "closure", "self._backward_fn(step_output.closure_loss)"),
               (lp + "/loops/optimization/automatic.py", 241, "backward_fn", "call._call_strategy_hook(self.trainer, \"backward\", loss, optimizer)"),
               (lp + "/trainer/call.py", 319, "_call_strategy_hook", "output = fn(*args, **kwargs)"),
               (lp + "/strategies/strategy.py", 212, "backward", "self.precision_plugin.backward(closure_loss, self.lightning_module, optimizer, *args, **kwargs)"),
               (lp + "/plugins/precision/precision.py", 72, "backward", "model.backward(tensor, *args, **kwargs)"),
               (lp + "/core/module.py", 1101, "backward", "loss.backward(*args, **kwargs)")]
        return fr + backward_frames(job)

    def hlog(self, job, node, t, name, lvl, msg):
        return "[%s][%s][%s] - %s" % (f_iso_ms(job.dt(node, t)), name, lvl, msg)

    def sub_log(self, job, node, t, lvl, msg):
        return "submitit %s (%s) - %s" % (lvl, f_iso_ms(job.dt(node, t)), msg)

    def render(self, job):
        rng = job.rng
        mr = job.mrng
        files = {}
        jid = "%d_%d" % (job.slurm_jobid, job.array_idx)
        dsub = job.dt(0, -job.queue_wait)
        base = "multirun/%s/%s" % (dsub.strftime("%Y-%m-%d"), dsub.strftime("%H-%M-%S"))
        sdir = "%s/.submitit/%s" % (base, jid)
        absdir = "%s/%s" % (job.proj, sdir)
        ov = ["%s=%s" % (job.sweep_param, job.sweep_vals[job.array_idx % 4]), "trainer.num_nodes=%d" % job.nnodes, "trainer.devices=%d" % job.gpn]
        # which task files the user attached
        vis = [0]
        if job.world <= 8:
            vis = list(range(job.world))
        else:
            if job.culprit_rank is not None and rng.random() < 0.85:
                vis.append(job.culprit_rank)
            for _ in range(rng.randint(2, 5)):
                vis.append(rng.randrange(job.world))
            if job.culprit_node is not None and rng.random() < 0.5:
                vis += [p.rank for p in job.procs_on(job.culprit_node)][: rng.randint(2, job.gpn)]
        vis = sorted(set(vis))
        job.vis_ranks = list(vis)
        job.attr_ranks = list(vis)
        job.vis_nodes = []
        add_rank_noise(job, vis)
        m = tminor(job)
        train_log = Stream()
        sl = srun_tail(job)
        total = job.total_steps
        for r in vis:
            p = job.procs[r]
            n = p.node
            so = Stream()
            se = Stream()
            t0 = job.t_init - rng.uniform(8, 20)
            so.add(t0, self.sub_log(job, n, t0, "INFO", "Starting with JobEnvironment(job_id=%s, hostname=%s, local_rank=%d(%d), node=%d(%d), global_rank=%d(%d))" % (jid, job.nodes[n].host, p.local, job.gpn, n, job.nnodes, r, job.world)))
            so.add(t0 + 0.01, self.sub_log(job, n, t0 + 0.01, "INFO", "Loading pickle: %s/%s_submitted.pkl" % (absdir, jid)))
            if job.variant == "lightning":
                if r == 0:
                    se.add(t0 + 8, "Using %s Automatic Mixed Precision (AMP)" % ("16bit" if job.precision == "16-mixed" else "bfloat16") if job.precision != "32-true" else "Trainer already configured with model summary callbacks: [<class 'lightning.pytorch.callbacks.rich_model_summary.RichModelSummary'>]. Skipping setting a default `ModelSummary` callback.")
                    se.add(t0 + 8.1, "GPU available: True (cuda), used: True\nTPU available: False, using: 0 TPU cores\nHPU available: False, using: 0 HPUs")
                se.add(job.t_init - 1, "Initializing distributed: GLOBAL_RANK: %d, MEMBER: %d/%d" % (r, r + 1, job.world))
                if r == 0:
                    se.add(job.t_init + 4, "----------------------------------------------------------------------------------------------------\ndistributed_backend=nccl\nAll distributed processes registered. Starting with %d processes\n----------------------------------------------------------------------------------------------------\n" % job.world)
                se.add(job.t_init + 6, "LOCAL_RANK: %d - CUDA_VISIBLE_DEVICES: [%s]" % (p.local, ",".join(str(i) for i in range(job.gpn))))
                if r == 0:
                    se.add(job.t_init + 7, "\n  | Name      | Type              | Params | Mode \n--------------------------------------------------------\n0 | net       | VisionTransformer | %5.1f M | train\n1 | criterion | CrossEntropyLoss  | 0      | train\n2 | train_acc | MulticlassAccuracy| 0      | train\n--------------------------------------------------------\n%.1f M    Trainable params\n0         Non-trainable params\n%.1f M    Total params\n%.3f   Total estimated model params size (MB)" % (job.mparams, job.mparams, job.mparams, job.mparams * 4))
                    se.add(job.t_train - 2, "%s/lightning/pytorch/trainer/connectors/data_connector.py:424: The 'val_dataloader' does not have many workers which may be a bottleneck. Consider increasing the value of the `num_workers` argument` to `num_workers=15` in the `DataLoader` to improve performance." % job.sp)
                    # tqdm progress bar, one physical line per epoch with carriage returns
                    steps = progress_steps(job)
                    spe = job.spe
                    cur = None
                    buf = []
                    for s, tt in steps:
                        ep = s // spe
                        i = s % spe
                        if cur is not None and ep != cur:
                            se.add(tt - 0.5, "\r".join(buf))
                            buf = []
                        cur = ep
                        el = (i) * step_time_at(job, s)
                        rem = (spe - i) * step_time_at(job, s)
                        pct = int(100 * i / spe)
                        bar = ("█" * (pct // 10)).ljust(10)
                        buf.append("Epoch %d:  %3d%%|%s| %d/%d [%s<%s, %.2fit/s, v_num=%d, train/loss_step=%.3f]" % (
                            ep, pct, bar, i, spe, fmt_hms(el)[2:] if el < 3600 else fmt_hms(el), fmt_hms(rem)[2:] if rem < 3600 else fmt_hms(rem), 1 / step_time_at(job, s), job.vnum, loss_at(job, s, 6.9, 1.2)))
                        if len(buf) > 40:
                            buf = buf[-40:]
                    if buf:
                        se.add(job.progress_end, "\r" + "\r".join(buf))
            else:
                if r == 0:
                    so.add(job.t_init + 5, self.hlog(job, n, job.t_init + 5, "__main__", "INFO", "[rank 0] world_size=%d, backend=nccl, master=%s:%d" % (job.world, job.nodes[0].host, job.master_port)))
            for t, lines in rank_lines(job, p):
                if lines and (" NCCL INFO " in lines[0] or " NCCL WARN " in lines[0]):
                    so.addblock(t, lines)
                else:
                    se.addblock(t, lines)
            pl = job.plan.get(r)
            if pl and pl["tb"] and pl["reason"] in ("culprit", "mismatch"):
                t = pl["t"]
                if getattr(job, "debug_detail", False) and r != job.culprit_rank and rng.random() < 0.5:
                    pass
                so.add(t + 1, self.sub_log(job, n, t + 1, "INFO", "Job completed successfully"))
                so.add(t + 1.01, self.sub_log(job, n, t + 1.01, "INFO", "Exiting after successful completion"))
            if p.exit and p.exit[1] == 0 and p.reason == "ok":
                so.add(p.exit[0], self.sub_log(job, n, p.exit[0], "INFO", "Job completed successfully"))
                so.add(p.exit[0] + 0.01, self.sub_log(job, n, p.exit[0] + 0.01, "INFO", "Exiting after successful completion"))
            if p.exit and p.reason == "terminated":
                if getattr(job, "timelimit", False):
                    ts = p.exit[0] - 110
                    so.add(ts, self.sub_log(job, n, ts, "WARNING", "Caught signal SIGUSR2 on %s: this job is timed-out." % job.nodes[n].host))
                    if r == 0:
                        so.add(ts + 0.01, self.sub_log(job, n, ts, "INFO", "Job has timed out. Ran %d minutes out of requested %d minutes." % (job.timeout_min - 2, job.timeout_min)))
                        so.add(ts + 0.02, self.sub_log(job, n, ts, "INFO", "Job not requeued because: timed-out and not checkpointable."))
                    else:
                        so.add(ts + 0.01, self.sub_log(job, n, ts, "INFO", "Not checkpointing nor requeuing since I am a slave (procid=%d)." % r))
                else:
                    so.add(p.exit[0] - 0.5, self.sub_log(job, n, p.exit[0] - 0.5, "WARNING", "Bypassing signal SIGTERM"))
            for item in job.slurm:
                t, line, nd = item
                if nd == n:
                    se.add(t, line)
            if r == 0:
                for t, line in sl:
                    se.add(t, line)
                if getattr(job, "preempt_slurm", False) and rng.random() < 0.6:
                    tr = job.t_end + rng.uniform(300, 3000)
                    so.add(tr, self.sub_log(job, n, tr, "INFO", "Starting with JobEnvironment(job_id=%s, hostname=%s, local_rank=0(%d), node=0(%d), global_rank=0(%d))" % (jid, job.nodes[rng.randrange(job.nnodes)].host, job.gpn, job.nnodes, job.world)))
                    so.add(tr + 0.01, self.sub_log(job, n, tr, "INFO", "Loading pickle: %s/%s_submitted.pkl" % (absdir, jid)))
                    job.notes.append("requeued after preemption (log continues with a new start)")
            files["%s/%s_%d_log.out" % (sdir, jid, r)] = so.render()
            files["%s/%s_%d_log.err" % (sdir, jid, r)] = se.render()
            if r == 0:
                err0 = files["%s/%s_%d_log.err" % (sdir, jid, r)]
        if 0 not in vis:
            pass
        # hydra job dir: train.log shared by all ranks
        jd = "%s/%d" % (base, job.array_idx)
        tl = [(job.t_init + 8, 0, "src.utils.utils", "INFO", "[rank: 0] Enforcing tags! <cfg.extras.enforce_tags=True>")] if job.variant == "lightning" else [(job.t_init + 8, 0, "__main__", "INFO", "[rank 0] overrides: %s" % " ".join(ov))]
        if job.variant == "lightning":
            tl += [(job.t_init + 8.2, 0, "__main__", "INFO", "[rank: 0] Instantiating datamodule <src.data.%s.DataModule>" % rng.choice(["imagenet_datamodule", "webdataset_datamodule", "lm_datamodule"])),
                   (job.t_init + 9, 0, "__main__", "INFO", "[rank: 0] Instantiating model <src.models.module.LitModule>"),
                   (job.t_init + 10, 0, "__main__", "INFO", "[rank: 0] Instantiating callbacks..."),
                   (job.t_init + 10, 0, "src.utils.instantiators", "INFO", "[rank: 0] Instantiating callback <lightning.pytorch.callbacks.ModelCheckpoint>"),
                   (job.t_init + 10, 0, "src.utils.instantiators", "INFO", "[rank: 0] Instantiating callback <lightning.pytorch.callbacks.LearningRateMonitor>"),
                   (job.t_init + 11, 0, "__main__", "INFO", "[rank: 0] Instantiating loggers..."),
                   (job.t_init + 11, 0, "__main__", "INFO", "[rank: 0] Instantiating trainer <lightning.pytorch.trainer.Trainer>"),
                   (job.t_init + 12, 0, "__main__", "INFO", "[rank: 0] Logging hyperparameters!"),
                   (job.t_train - 3, 0, "__main__", "INFO", "[rank: 0] Starting training!")]
            for r in range(1, job.world):
                if rng.random() < 0.15:
                    tl.append((job.t_init + 8.1 + rng.random(), job.procs[r].node, "src.utils.utils", "INFO", "[rank: %d] Enforcing tags! <cfg.extras.enforce_tags=True>" % r))
        else:
            for s, tt in progress_steps(job):
                tl.append((tt, 0, "__main__", "INFO", "[rank 0] step %d/%d | loss %.4f | lr %.2e | %.3f s/it | data %.3f s" % (s, total, loss_at(job, s, 7.0, 1.5), lr_at(job, s, 3e-4), step_time_at(job, s), mr.uniform(0.002, 0.03))))
        if job.handled_exc:
            th = job.t_train + (job.progress_end - job.t_train) * rng.uniform(0.1, 0.8)
            tl.append((th, 0, "src.utils.checkpoint" if job.variant == "lightning" else "__main__", "WARNING", "[rank: 0] upload of checkpoint to s3://%s/ckpt/last.ckpt failed (attempt 1/5), retrying in 30s: Could not connect to the endpoint URL: \"https://s3.us-east-1.amazonaws.com/%s/ckpt/last.ckpt?uploads\"" % (job.bucket, job.bucket)))
            tl.append((th + 31, 0, "src.utils.checkpoint" if job.variant == "lightning" else "__main__", "INFO", "[rank: 0] upload of checkpoint succeeded on attempt 2"))
        # exceptions are logged by the task wrapper on every rank, then hydra's run_job swallows them
        for r, pl in sorted(job.plan.items()):
            if pl["tb"] and pl["reason"] in ("culprit", "mismatch"):
                if getattr(job, "debug_detail", False) and r != job.culprit_rank and rng.random() < 0.6:
                    continue
                tl.append((pl["t"], job.procs[r].node, "src.utils.utils", "ERROR", ("[rank: %d] " % r) + "\n" + "\n".join(pl["tb"])))
                tl.append((pl["t"] + 0.1, job.procs[r].node, "src.utils.utils", "INFO", "[rank: %d] Output dir: %s/%s" % (r, job.proj, jd)))
                job.layout_ev.append(("global",))
        if job.end_kind == "success":
            te = job.progress_end + 5
            tl.append((te, 0, "__main__", "INFO", "[rank: 0] Starting testing!" if job.variant == "lightning" else "[rank 0] training finished"))
            tl.append((te + 60, 0, "src.utils.utils", "INFO", "[rank: 0] Output dir: %s/%s" % (job.proj, jd)))
        for t, n, name, lvl, msg in sorted(tl, key=lambda x: x[0]):
            train_log.add(t, self.hlog(job, n, t, name, lvl, msg))
        files["%s/train.log" % jd] = train_log.render()
        cfgy = ["task_name: train", "tags:", "- dev", "train: true", "test: true", "ckpt_path: null", "seed: %d" % rng.randint(1, 99999),
                "data:", "  _target_: src.data.datamodule.DataModule", "  batch_size: %d" % rng.choice([64, 128, 256]), "  num_workers: %d" % rng.choice([4, 8, 10, 16]), "  pin_memory: true",
                "model:", "  _target_: src.models.module.LitModule", "  optimizer:", "    _target_: torch.optim.AdamW", "    _partial_: true", "    lr: %s" % (job.sweep_vals[job.array_idx % 4] if job.sweep_param.endswith("lr") else "0.0003"), "    weight_decay: 0.05",
                "trainer:", "  _target_: lightning.pytorch.trainer.Trainer", "  default_root_dir: ${paths.output_dir}", "  max_epochs: %d" % rng.choice([90, 100, 300]),
                "  accelerator: gpu", "  devices: %d" % job.gpn, "  num_nodes: %d" % job.nnodes, "  strategy: ddp", "  precision: %s" % job.precision, "  sync_batchnorm: true", "  log_every_n_steps: %d" % job.log_every]
        files["%s/.hydra/config.yaml" % jd] = "\n".join(cfgy) + "\n"
        files["%s/.hydra/overrides.yaml" % jd] = "\n".join("- " + o for o in ov) + "\n"
        sub = ["#!/bin/bash", "", "# Parameters", "#SBATCH --array=0-%d%%%d" % (job.n_sweep - 1, job.n_sweep), "#SBATCH --cpus-per-task=%d" % rng.choice([10, 12, 16]),
               "#SBATCH --error=%s/%s/.submitit/%%A_%%a/%%A_%%a_0_log.err" % (job.proj, base), "#SBATCH --gpus-per-node=%d" % job.gpn,
               "#SBATCH --job-name=train", "#SBATCH --mem=%dGB" % rng.choice([400, 480, 900]), "#SBATCH --nodes=%d" % job.nnodes, "#SBATCH --ntasks-per-node=%d" % job.gpn,
               "#SBATCH --open-mode=append", "#SBATCH --output=%s/%s/.submitit/%%A_%%a/%%A_%%a_0_log.out" % (job.proj, base),
               "#SBATCH --partition=%s" % job.partition, "#SBATCH --signal=USR2@120", "#SBATCH --time=%d" % job.timeout_min, "#SBATCH --wckey=submitit", "",
               "# command", "export SUBMITIT_EXECUTOR=slurm",
               "srun --unbuffered --output %s/%s/.submitit/%%j/%%j_%%t_log.out --error %s/%s/.submitit/%%j/%%j_%%t_log.err %s -u -m submitit.core._submit %s/%s/.submitit/%%j" % (job.proj, base, job.proj, base, job.pybin, job.proj, base)]
        files["%s/%s_submission.sh" % (sdir, jid)] = "\n".join(sub) + "\n"
        # the terminal the sweep was launched from
        sw = Stream()
        tsub = -job.queue_wait
        sw.add(tsub - 5, "$ python src/train.py -m hydra/launcher=submitit_slurm %s=%s trainer.num_nodes=%d" % (job.sweep_param, ",".join(job.sweep_vals[: job.n_sweep]), job.nnodes))
        sw.add(tsub, "[%s][HYDRA] Submitit 'slurm' sweep output dir : %s" % (f_iso_ms(job.dt(0, tsub)), base))
        for k in range(job.n_sweep):
            sw.add(tsub + 0.01, "[%s][HYDRA] \t#%d : %s=%s trainer.num_nodes=%d" % (f_iso_ms(job.dt(0, tsub)), k, job.sweep_param, job.sweep_vals[k % 4], job.nnodes))
        p0 = job.procs[0]
        pl0 = job.plan.get(0)
        tend = job.t_end + rng.uniform(30, 120)
        if getattr(job, "preempt_slurm", False):
            pass
        elif pl0 and pl0["tb"] and pl0["reason"] in ("culprit", "mismatch"):
            last = pl0["tb"][-1] if pl0["tb"][-1] else pl0["tb"][-2]
            sw.add(tend, "Error executing job with overrides: %s" % json.dumps(ov).replace('"', "'"))
            sw.add(tend, "Traceback (most recent call last):\n  File \"%s/src/train.py\", line 124, in <module>\n    main()\n  File \"%s/src/train.py\", line 118, in main\n    metric_dict, _ = train(cfg)\n  File \"%s/src/utils/utils.py\", line 68, in wrap\n    raise ex" % (job.proj, job.proj, job.proj))
            sw.add(tend, last)
            sw.add(tend, "\nSet the environment variable HYDRA_FULL_ERROR=1 for a complete stack trace.")
        elif p0.exit and p0.exit[1] not in (0,):
            tl_lines = err0.rstrip("\n").split("\n")[-12:]
            sp = job.sp
            block = tb([(sp + "/hydra_plugins/hydra_submitit_launcher/submitit_launcher.py", 145, "launch", "return [j.results()[0] for j in jobs]"),
                        (sp + "/submitit/core/core.py", 294, "results", "outcome, result = self._get_outcome_and_result()"),
                        (sp + "/submitit/core/core.py", 384, "_get_outcome_and_result", "raise utils.UncompletedJobError(\"\\n\".join(message))")],
                       ["submitit.core.utils.UncompletedJobError: Job %s (task: 0) with path %s/%s_0_result.pkl" % (jid, absdir, jid),
                        "has not produced any output (state: %s)" % ("TIMEOUT" if getattr(job, "timelimit", False) else "FAILED"),
                        "Error stream produced:", "----------------------------------------"] + tl_lines + ["", "Set the environment variable HYDRA_FULL_ERROR=1 for a complete stack trace."])
            sw.addblock(tend, block)
        files["sweep_terminal.txt"] = sw.render()
        if rng.random() < 0.55:
            files["sacct.txt"] = sacct_text(job, jobid=jid, name="train")
        attach_kernel_logs(job, files)
        # srun's messages in the batch stderr name the task of a signal-killed or non-zero exit culprit
        if job.culprit_rank is not None and job.srun_first == [job.culprit_rank] and job.procs[job.culprit_rank].reason == "culprit":
            job.layout_ev.append(("global",))
        return files

# --------------------------------------------------------------------------
# layout: torchx (dist.ddp on local_cwd or kubernetes)
# --------------------------------------------------------------------------

def rand_id(rng, n, alpha="abcdefghijklmnopqrstuvwxyz0123456789"):
    return "".join(rng.choice(alpha) for _ in range(n))


class TorchX:
    name = "torchx"

    def setup(self, job):
        rng = job.rng
        v = "kubernetes" if job.cause in ("network", "preemption") or rng.random() < 0.5 else "local_cwd"
        job.variant = v
        job.role = rng.choice(["train", "trainer", "main", "pretrain"])
        job.app_id = "%s-%s" % (job.role, rand_id(rng, rng.choice([10, 12, 13])))
        if v == "local_cwd":
            nn, gpn = rng.choice([(1, 2), (1, 4), (1, 8), (2, 2), (2, 4), (1, 8), (2, 4)])
            if job.cause == "nvlink" and gpn < 2:
                gpn = 2
            job.make_topology(nn, gpn)
            host = rng.choice(["devbox-%02d" % rng.randint(1, 40), "gpu-ws-%s" % rand_id(rng, 4), "lambda-%s" % rand_id(rng, 5, "0123456789"), "dgx-station"])
            for n in job.nodes:
                n.host = host
                n.fqdn = host + ".local"
                n.ip = job.nodes[0].ip
                n.skew = 0.0
            job.launcher = "local"
            job.phys_off = [i * gpn for i in range(nn)]
            job.busids = (job.gpu[3] * 2)[:8]
            job.fabric = "none"
        else:
            nn = rng.choice([2, 2, 4, 8, 16, 32, 64])
            job.make_topology(nn, 8)
            job.launcher = "k8s"
            job.namespace = rng.choice(["default", "ml-train", "research", "team-vision"])
            style = rng.choice(["eks", "gke", "onprem"])
            pfx = rng.choice([244, 42, 96])
            for i, n in enumerate(job.nodes):
                n.k8s_node = {"eks": "ip-10-0-%d-%d.us-west-2.compute.internal" % (rng.randint(0, 200), rng.randint(2, 250)),
                              "gke": "gke-ml-a3-%s-%s-%s" % (rng.choice(["pool", "spot-pool", "h100-pool"]), rand_id(rng, 8, "0123456789abcdef"), rand_id(rng, 4)),
                              "onprem": "k8s-gpu-%03d" % rng.randint(1, 300)}[style]
                n.ip = "10.%d.%d.%d" % (pfx, rng.randint(0, 255), rng.randint(2, 250))
            perm = list(range(nn))
            rng.shuffle(perm)
            job.replica_of = perm  # node idx (group rank) -> replica id
            for i, n in enumerate(job.nodes):
                n.pod = "%s-%s-%d-0" % (job.app_id, job.role, perm[i])
                n.host = n.pod
                n.fqdn = "%s.%s.%s.svc.cluster.local" % (n.pod, job.app_id, job.namespace)
        if v == "local_cwd":
            job.replica_of = list(range(job.nnodes))
            if job.nnodes == 2 and rng.random() < 0.5:
                job.replica_of = [1, 0]
        job.elastic_info = True
        job.script = job.role + ".py"

    def log_every(self, job):
        return job.rng.choice([10, 20, 50, 100])

    def dataset_file(self, job):
        return job.proj + "/data.py"

    def script_cmd(self, job):
        return job.script

    def frames(self, job, kind):
        sp = job.sp
        pj = job.proj
        fr = [(pj + "/" + job.script, 212, "<module>", "main()"),
              (sp + "/torch/distributed/elastic/multiprocessing/errors/__init__.py", 346 if tminor(job) < 4 else 355, "wrapper", "return f(*args, **kwargs)"),
              (pj + "/" + job.script, 203, "main", "train_one_epoch(model, loader, optimizer, scaler, epoch, args)")]
        if kind == "data":
            return fr + [(pj + "/" + job.script, 131, "train_one_epoch", "for step, (images, target) in enumerate(loader):")] + dl_frames(job)
        if kind == "fwd":
            return fr + [(pj + "/" + job.script, 139, "train_one_epoch", "output = model(images)")] + forward_frames(job, sp + "/torch/nn/parallel/distributed.py", "forward", "output = self._run_ddp_forward(*inputs, **kwargs)") + forward_frames(job, pj + "/model.py", "forward", "x = self.blocks(x)")
        if kind == "allreduce":
            return fr + [(pj + "/" + job.script, 151, "train_one_epoch", "dist.all_reduce(loss_sum)")] + allreduce_frames(job)
        if kind == "opt":
            return fr + [(pj + "/" + job.script, 146, "train_one_epoch", "scaler.step(optimizer)"),
                         (sp + "/torch/amp/grad_scaler.py", 454, "step", "retval = self._maybe_opt_step(optimizer, optimizer_state, *args, **kwargs)")]
        return fr + [(pj + "/" + job.script, 144, "train_one_epoch", "scaler.scale(loss).backward()")] + backward_frames(job)

    def tx_log(self, job, t, lvl, msg, laptop=True):
        d = job.dt_laptop(t) if laptop else job.dt(0, t)
        return "torchx %s %-8s %s" % (f_iso(d), lvl, msg)

    def user_lines(self, job):
        """The training script prints a line per log step on local rank 0 of each replica (all ranks for small jobs)."""
        rng = job.rng
        mr = job.mrng
        out = {}
        allranks = job.world <= 16
        for p in job.procs:
            if not (allranks or p.local == 0):
                continue
            L = []
            if p.rank == 0:
                L.append((job.t_init + 5, ["=> world_size=%d, creating model '%s'" % (job.world, job.model_name)]))
            for s, tt in progress_steps(job):
                st = step_time_at(job, s)
                fb = st * mr.uniform(0.55, 0.7)
                if job.cause == "straggler" and s > (job.slow_from or 10 ** 9):
                    if p.rank == job.culprit_rank:
                        fb = st * mr.uniform(0.9, 0.97)
                    else:
                        fb = job.step_time * mr.uniform(0.55, 0.7)
                L.append((tt + rng.uniform(0, 0.05), ["[rank %d] epoch %d step %d/%d loss %.4f lr %.3e | step %.3fs fwd+bwd %.3fs data %.3fs" % (
                    p.rank, s // job.spe, s % job.spe, job.spe, loss_at(job, s, 6.9, 0.9), lr_at(job, s, 1e-3), st, fb, mr.uniform(0.001, 0.02))]))
            if job.end_kind == "success" and p.rank == 0:
                L.append((job.progress_end + 3, ["=> saving checkpoint to %s/checkpoints/last.pt" % job.outroot, "=> done, total time %s" % fmt_hms(job.progress_end - job.t_init)]))
            out[p.rank] = L
        return out

    def render(self, job):
        rng = job.rng
        files = {}
        loc = job.variant == "local_cwd"
        role = job.role
        if loc:
            vis = list(range(job.nnodes))
        else:
            vis = sorted(set(job.vis_node_choice))
        job.vis_nodes = vis
        job.vis_ranks = [p.rank for p in job.procs if p.node in vis]
        job.attr_ranks = list(job.vis_ranks)
        add_rank_noise(job, job.vis_ranks)
        ul = self.user_lines(job)
        st = Stream()
        handle = ("local_cwd://torchx/%s" % job.app_id) if loc else ("kubernetes://torchx/%s:%s" % (job.namespace, job.app_id))
        for n in vis:
            rep = job.replica_of[n]
            pre = "%s/%d " % (role, rep)
            for t, lines in agent_lines(job, n, job.script, "torchrun", role="default"):
                st.addblock(t, [pre + ln for ln in lines])
            for p in job.procs_on(n):
                rp = "%s[%d]:" % (pre, p.local)
                for t, lines in rank_lines(job, p):
                    st.addblock(t, [rp + ln for ln in lines])
                for t, lines in ul.get(p.rank, []):
                    st.addblock(t, [rp + ln for ln in lines])
        if job.cause == "straggler" and job.culprit_rank in ul and job.culprit_rank in job.vis_ranks:
            job.layout_ev.append(("global",))
            job.notes.append("per-rank fwd+bwd times printed by the script show the slow rank")
        failed = any(p.exit and p.exit[1] != 0 for p in job.procs)
        state = "FAILED" if failed else "SUCCEEDED"
        if getattr(job, "straggler_outcome", "") == "timelimit":
            state = "FAILED"
        tstart = -rng.uniform(3, 15)
        cmd = "$ torchx run -s %s %sdist.ddp -j %dx%d --gpu %d --script %s -- --config configs/%s.yaml" % (
            job.variant, "" if loc else "-cfg queue=default,namespace=%s,image_repo=%s " % (job.namespace, job.image_repo), job.nnodes, job.gpn, job.gpn, job.script, job.model_name)
        if loc:
            head = [cmd,
                    self.tx_log(job, tstart, "INFO", "Log directory not set in scheduler cfg. Creating a temporary log dir that will be deleted on exit. To preserve log directory set the `log_dir` cfg option"),
                    self.tx_log(job, tstart, "INFO", "Log directory is: /tmp/torchx_%s" % rand_id(rng, 8, "abcdefghijklmnopqrstuvwxyz0123456789_")),
                    handle,
                    self.tx_log(job, tstart + 0.2, "INFO", "Waiting for the app to finish...")]
            st.addblock(tstart, head)
            tend = job.t_end + rng.uniform(0.5, 2)
            if job.healthy or job.end_kind == "success":
                st.add(tend, self.tx_log(job, tend, "INFO", "Job finished: SUCCEEDED"))
            else:
                reps = []
                for n in range(job.nnodes):
                    ps = job.procs_on(n)
                    bad = any(p.exit and p.exit[1] != 0 for p in ps)
                    reps.append("  - hostname: localhost\n    id: %d\n    role: %s\n    state: !!python/object/apply:torchx.specs.api.AppState\n    - %d\n    structured_error_msg: <NONE>" % (job.replica_of[n], role, 5 if bad else 4))
                st.addblock(tend, [self.tx_log(job, tend, "INFO", "Job finished: FAILED"),
                                   self.tx_log(job, tend, "ERROR", "AppStatus:"),
                                   "  msg: <NONE>", "  num_restarts: 0", "  roles:", "  - replicas:"] + ["  " + x for r in reps for x in r.split("\n")] +
                            ["    role: %s" % role, "  state: FAILED (5)", "  structured_error_msg: <NONE>", "  ui_url: file:///tmp/torchx_%s/torchx/%s" % (rand_id(rng, 8), job.app_id), ""])
            files["torchx_run.log"] = st.render()
        else:
            files["torchx_run.txt"] = "\n".join([
                cmd,
                self.tx_log(job, tstart - 40, "INFO", "Checking for changes in workspace `file://%s`..." % job.proj),
                self.tx_log(job, tstart - 40, "INFO", "To disable workspaces pass: --workspace=\"\" from CLI or workspace=None programmatically."),
                self.tx_log(job, tstart - 39, "INFO", "Workspace `file://%s` resolved to filesystem path `%s`" % (job.proj, job.proj)),
                self.tx_log(job, tstart - 38, "INFO", "Building workspace docker image (this may take a while)..."),
                self.tx_log(job, tstart - 6, "INFO", "Built new image `sha256:%s` based on original image `ghcr.io/pytorch/torchx:0.7.0` and changes in workspace `file://%s` for role[0]=%s." % (rand_id(rng, 64, "0123456789abcdef"), job.proj, role)),
                self.tx_log(job, tstart - 5, "INFO", "pushing image %s:%s..." % (job.image_repo, rand_id(rng, 64, "0123456789abcdef"))),
                handle,
                self.tx_log(job, tstart, "INFO", "Launched app: %s" % handle),
                self.tx_log(job, tstart, "INFO", "AppStatus:"),
                "    msg: ''", "    num_restarts: -1", "    roles:", "    - replicas: []", "      role: %s" % role,
                "    state: PENDING (2)", "    structured_error_msg: <NONE>", "    ui_url: null", "",
                self.tx_log(job, tstart, "INFO", "Job URL: None"), ""])
            reps = ",".join(str(job.replica_of[n]) for n in vis)
            files["torchx_log_%s.txt" % role] = "$ torchx log %s/%s/%s\n" % (handle, role, reps) + st.render()
        # torchx status
        lines = ["$ torchx status %s" % handle, "AppDef:", "  State: %s" % ("FAILED" if state == "FAILED" else "SUCCEEDED"), "  Num Restarts: 0", "Roles:"]
        for rep in range(job.nnodes):
            n = job.replica_of.index(rep)
            ps = job.procs_on(n)
            bad = [p for p in ps if p.exit and p.exit[1] != 0]
            mark = "*" if rep == 0 else " "
            if bad and loc:
                first = min(bad, key=lambda p: p.exit[0])
                code = 1 if first.reason != "terminated" else -15
                lines.append(" %s%s[%d]:FAILED (exitcode: %d)" % (mark, role, rep, code))
                lines.append("    timestamp: %s" % f_iso(job.dt(0, first.exit[0] + 1)))
                lines.append("    hostname: localhost")
                lines.append("    error_msg: %s FAILED" % job.script)
            elif bad:
                lines.append(" %s%s[%d]:%s (no reply file)" % (mark, role, rep, "FAILED"))
            else:
                lines.append(" %s%s[%d]:%s" % (mark, role, rep, "SUCCEEDED" if state == "SUCCEEDED" else "FAILED (no reply file)" if not loc else "CANCELLED (no reply file)"))
        lines += ["UI URL: %s" % ("file:///tmp/torchx_%s/torchx/%s" % (rand_id(rng, 8), job.app_id) if loc else "None"), "Metadata URLs:"]
        if (not loc) or rng.random() < 0.5:
            files["torchx_status.txt"] = "\n".join(lines) + "\n"
        if not loc:
            # pods and the nodes they ran on
            rows = ["$ kubectl get pods -n %s -o wide -l app.kubernetes.io/instance=%s" % (job.namespace, job.app_id),
                    "NAME%s READY   STATUS        RESTARTS   AGE   IP             NODE%s NOMINATED NODE   READINESS GATES" % (" " * (len(job.nodes[0].pod) - 3), " " * 38)]
            for rep in range(job.nnodes):
                n = job.replica_of.index(rep)
                nd = job.nodes[n]
                ps = job.procs_on(n)
                bad = any(p.exit and p.exit[1] != 0 for p in ps)
                stt = "Error" if bad else ("Completed" if state == "SUCCEEDED" else "Terminating")
                if job.preempt_node == n:
                    stt = "Terminated"
                rows.append("%s 0/1     %-13s 0          %dh   %-14s %-41s <none>           <none>" % (nd.pod, stt, max(1, int(job.t_end // 3600)), nd.ip, nd.k8s_node))
            if rng.random() < 0.8 or job.cause in DRAIN_CAUSES:
                files["kubectl_get_pods.txt"] = "\n".join(rows) + "\n"
            if job.preempt_node is not None:
                nd = job.nodes[job.preempt_node]
                files["kubectl_describe_pod_%s.txt" % nd.pod] = "\n".join([
                    "Name:             %s" % nd.pod, "Namespace:        %s" % job.namespace, "Priority:         0",
                    "Service Account:  default", "Node:             %s/%s" % (nd.k8s_node, nd.ip.replace("10.244", "10.0") if False else "10.0.%d.%d" % (rng.randint(0, 200), rng.randint(2, 250))),
                    "Start Time:       %s" % job.dt_utc(0, -60).strftime("%a, %d %b %Y %H:%M:%S +0000"),
                    "Labels:           app.kubernetes.io/instance=%s" % job.app_id, "                  app.kubernetes.io/name=%s" % job.role,
                    "                  torchx.pytorch.org/replica-id=%d" % job.replica_of[job.preempt_node], "                  torchx.pytorch.org/role-name=%s" % job.role,
                    "Status:           Failed", "Reason:           Terminated",
                    "Message:          Pod was terminated in response to imminent node shutdown.",
                    "IP:               %s" % nd.ip, "Containers:", "  %s-%d:" % (job.role, job.replica_of[job.preempt_node]),
                    "    State:          Terminated", "      Reason:       Error", "      Exit Code:    143",
                    "      Started:      %s" % job.dt_utc(0, -30).strftime("%a, %d %b %Y %H:%M:%S +0000"),
                    "      Finished:     %s" % job.dt_utc(0, job.t_fail + 3).strftime("%a, %d %b %Y %H:%M:%S +0000"),
                    "Events:", "  Type     Reason        Age   From     Message", "  ----     ------        ----  ----     -------",
                    "  Warning  NodeNotReady  %dm   node-controller  Node is not ready" % rng.randint(2, 40)]) + "\n"
        if loc:
            # one host: merge kernel lines into node 0
            for n in job.nodes[1:]:
                job.nodes[0].kern += n.kern
                n.kern = []
        attach_kernel_logs(job, files)
        return files

# --------------------------------------------------------------------------
# orchestration
# --------------------------------------------------------------------------

LAYOUT_OBJ = {"fairseq": Fairseq(), "mmengine": MMEngine(), "detectron2": Detectron2(),
              "hydra_multirun": HydraMultirun(), "torchx": TorchX()}


def nodelist(job):
    hs = [n.host for n in job.nodes]
    pre = job.host_style[0].split("%")[0]
    try:
        nums = [int(h[len(pre):]) for h in hs]
        width = len(hs[0]) - len(pre)
        if len(nums) == 1:
            return hs[0]
        parts = []
        i = 0
        nums_s = sorted(nums)
        while i < len(nums_s):
            j = i
            while j + 1 < len(nums_s) and nums_s[j + 1] == nums_s[j] + 1:
                j += 1
            a = ("%0" + str(width) + "d") % nums_s[i] if hs[0][len(pre)] == "0" else str(nums_s[i])
            b = ("%0" + str(width) + "d") % nums_s[j] if hs[0][len(pre)] == "0" else str(nums_s[j])
            parts.append(a if i == j else "%s-%s" % (a, b))
            i = j + 1
        return "%s[%s]" % (pre, ",".join(parts))
    except ValueError:
        return ",".join(hs)


Job.nodelist = nodelist


def common_setup(job):
    rng = job.rng
    job.mrng = random.Random("%s-metrics-%s-%d" % (NAME, job.seed, job.idx))
    if not hasattr(job, "fabric"):
        job.fabric = rng.choice(["ib", "ib", "roce"]) if job.nnodes > 1 else "none"
    job.oob_if = rng.choice(["eth0", "ens5", "bond0", "enp6s0f0", "ib0"])
    job.master_port = rng.choice([29500, 29400, 12355, 23456, 29501])
    job.master_addr = job.nodes[0].host
    job.agent_pid = [rng.randint(1000, 400000) for _ in job.nodes]
    job.group_rank = {n.idx: n.idx for n in job.nodes}
    if not hasattr(job, "elastic_info"):
        job.elastic_info = rng.random() < 0.3
    job.ddp_unused_warn = rng.random() < 0.3
    job.destroys_pg = rng.random() < 0.4
    job.kern_fmt = rng.choice(["journal", "short-iso", "dmesgT", "dmesg"])
    job.p_attach_kern_culprit = 0.85
    job.slurm_jobid = rng.randint(100000, 9999999)
    job.partition = rng.choice(["gpu", "learnfair", "a100", "h100-prod", "batch", "devlab"])
    job.layout_ev = []
    job.node_summary = {}
    job.vis_kern = []
    job.preempt_node = None
    job.queue_wait = rng.uniform(30, 7200)
    job.mparams = rng.choice([86.6, 304.3, 632.1, 22.1, 1300.4])
    job.vnum = rng.randint(0, 12)
    job.bucket = rng.choice(["ml-ckpts-prod", "team-vision-exp", "fair-ssl-runs"])
    job.proj = rng.choice(["/home/%s/proj", "/workspace/%s", "/mnt/home/%s/repos/train"]) % rng.choice(["alice", "bo", "sam", "nadia"])
    job.outroot = "/checkpoints/%s" % rand_id(rng, 6)
    job.model_name = rng.choice(["vit_b16", "resnet152", "gpt2_medium", "convnext_l", "llama_1b"])
    job.image_repo = rng.choice(["123456789012.dkr.ecr.us-west-2.amazonaws.com/torchx", "us-docker.pkg.dev/ml-proj/train/torchx", "registry.internal:5000/ml/torchx"])
    if not hasattr(job, "arch"):
        job.arch = rng.choice(["transformer_vaswani_wmt_en_de_big", "transformer_lm_gpt2_medium", "transformer_wmt_en_de"])
        job.data = rng.choice(["wmt16_en_de_bpe32k", "wmt19_en_de", "wikitext-103", "cc100_en"])
    job.vocab = rng.choice([32768, 42024, 50264, 267744])
    job.nparams = rng.choice([209911808, 354713600, 176405504, 1313251328])
    job.max_tokens = rng.choice([3584, 4096, 8192])
    job.nexamples = rng.randint(1000000, 40000000)
    job.upe = rng.choice([1760, 5240, 12480, 3120])
    job.wpb = job.max_tokens * job.world * rng.uniform(0.85, 0.97)
    job.wandb = rng.choice([None, "fs-wmt", "lm-scaling"])
    job.spe = rng.choice([500, 1000, 1251, 2502, 5004])
    if not hasattr(job, "phys_off"):
        job.phys_off = [0] * job.nnodes


def choose_visible_nodes(job):
    rng = job.rng
    if job.nnodes <= 4:
        job.vis_node_choice = list(range(job.nnodes))
        return
    k = rng.randint(3, 6)
    ch = [0]
    if job.culprit_node is not None and rng.random() < 0.85:
        ch.append(job.culprit_node)
    while len(set(ch)) < k:
        ch.append(rng.randrange(job.nnodes))
    job.vis_node_choice = sorted(set(ch))


def finish_hung(job):
    """Processes still hung when everything else ended get cancelled by the user / time limit."""
    rng = job.rng
    hung = [p for p in job.procs if p.hung]
    if not hung:
        return
    t = job.t_end + rng.uniform(60, 900)
    for p in hung:
        p.hung = False
        p.exit = (t + rng.uniform(0, 0.5), -15)
        p.reason = "terminated"
    if job.launcher in ("srun", "srun_kill", "submitit"):
        for n in sorted(set(p.node for p in hung)):
            job.slurm.append((t, "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s ***" % (job.slurm_jobid, job.nodes[n].host, f_slurm(job.dt(n, t))), n))
    job.t_end = t + 1


def ev_ok(job, ev, files):
    k = ev[0]
    if k == "rank":
        return ev[1] in job.attr_ranks or (ev[1] in job.vis_ranks and job.procs[ev[1]].node in job.vis_nodes and False)
    if k == "rank_text":
        return ev[1] in job.vis_ranks
    if k == "node":
        return ev[1] in job.vis_nodes
    if k == "kern":
        return ev[1] in job.vis_kern
    if k == "extra":
        return ev[1] in files
    if k == "global":
        return True
    if k == "any_rank":
        return len(job.vis_ranks) > 0
    if k == "visible_all":
        need = set(range(job.world)) - {job.culprit_rank}
        return job.world <= 32 and need <= set(job.vis_ranks)
    if k == "nccl_bus":
        return job.nccl_debug and ev[1] in job.vis_ranks
    if k == "all":
        return all(ev_ok(job, x, files) for x in ev[1])
    return False


def build_run(idx, seed, cause, layout):
    rng = random.Random("%s:%s:%d:%s:%s" % (NAME, seed, idx, cause, layout))
    job = Job(rng, layout, cause, idx, seed)
    L = LAYOUT_OBJ[layout]
    job.L = L
    L.setup(job)
    common_setup(job)
    plan_timeline(job)
    if cause is None:
        cause_healthy(job)
    else:
        CAUSE_FN[cause](job)
    add_decoys(job)
    finalize(job)
    finish_hung(job)
    if job.culprit_rank is not None:
        pl = job.plan.get(job.culprit_rank)
        if pl and any(("Rank %d]" % job.culprit_rank) in ln or ("[rank%d]" % job.culprit_rank) in ln for ln in pl["pre"]):
            job.rank_ev.append(("rank_text", job.culprit_rank))
    if job.layout == "torchx" and job.variant == "kubernetes":
        for n in job.nodes:
            pass
    choose_visible_nodes(job)
    files = L.render(job)
    for path, text in job.extras.items():
        files[path] = text
    # truth
    ri = False
    if job.culprit_rank is not None:
        ri = any(ev_ok(job, ev, files) for ev in list(job.rank_ev) + list(job.layout_ev))
    node = None
    aliases = []
    if job.culprit_node is not None:
        nd = job.nodes[job.culprit_node]
        cands = [x for x in [nd.k8s_node, nd.host, nd.fqdn, nd.ip, nd.pod] if x]
        seen = []
        for c in cands:
            if c not in seen:
                seen.append(c)
        blob = "\n".join(files.values())
        primary = None
        for c in seen:
            if c in blob:
                primary = c
                break
        if primary is None:
            primary = nd.host
        node = primary
        aliases = [c for c in seen if c != primary]
    drain = bool(cause in DRAIN_CAUSES and node is not None)
    notes = "world_size=%d (%d nodes x %d GPUs), torch %s / NCCL %s, %s %s; %s" % (
        job.world, job.nnodes, job.gpn, job.torch, job.nccl, layout, job.variant, "; ".join(job.notes))
    if job.decoys:
        notes += "; decoys: " + "; ".join(job.decoys)
    nv = len(set(job.vis_ranks))
    if nv < job.world:
        notes += "; output of %d of %d ranks attached" % (nv, job.world)
        if job.vis_nodes:
            notes += " (nodes %s)" % ",".join(job.nodes[i].host for i in sorted(set(job.vis_nodes)))
    if job.benign_nccl:
        notes += "; benign NCCL WARN lines"
    if job.handled_exc:
        notes += "; a handled/retried error in the logs"
    truth = {"cause": cause, "healthy": cause is None, "rank": job.culprit_rank, "node": node, "drain": drain,
             "rank_inferable": bool(ri), "node_aliases": aliases, "layout": layout, "notes": notes}
    return files, truth


def deal(n, seed):
    crng = random.Random("%s-causes:%s" % (NAME, seed))
    order = list(CAUSES)
    crng.shuffle(order)
    plan = []
    j = 0
    for i in range(n):
        if i % 7 == 3:
            plan.append(None)
        else:
            plan.append(order[j % len(order)])
            j += 1
    # layouts are dealt in shuffled blocks of five (each layout once per block);
    # among a few seeded shuffles of a block, the one that pairs layouts with
    # causes they have not had yet is kept, so causes spread over layouts
    layouts = []
    seen = {}
    k = 0
    while len(layouts) < n:
        lrng = random.Random("%s-layouts:%s:%d" % (NAME, seed, k))
        best, best_score = None, -1
        for _ in range(120):
            blk = list(LAYOUTS)
            lrng.shuffle(blk)
            score = 0
            for j, lay in enumerate(blk):
                i = len(layouts) + j
                if i < n:
                    score += 3 if seen.get((lay, plan[i]), 0) == 0 else -seen[(lay, plan[i])]
            if score > best_score:
                best, best_score = blk, score
        for j, lay in enumerate(best):
            i = len(layouts) + j
            if i < n:
                seen[(lay, plan[i])] = seen.get((lay, plan[i]), 0) + 1
        layouts += best
        k += 1
    return plan, layouts[:n]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--seed", default="1")
    a = ap.parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    plan, layouts = deal(a.n, a.seed)
    counts = {}
    for i in range(a.n):
        cause = plan[i]
        layout = layouts[i]
        files, truth = build_run(i, a.seed, cause, layout)
        d = os.path.join(a.out, "run-%03d-%s" % (i, layout))
        if os.path.isdir(d):
            shutil.rmtree(d)
        for path in sorted(files):
            fp = os.path.join(d, path)
            os.makedirs(os.path.dirname(fp), exist_ok=True)
            with open(fp, "w", encoding="utf-8", newline="\n") as f:
                f.write(files[path])
        with open(os.path.join(d, "truth.json"), "w", encoding="utf-8") as f:
            json.dump(truth, f, indent=2, sort_keys=True)
            f.write("\n")
        key = cause or "healthy"
        counts[key] = counts.get(key, 0) + 1
    print(json.dumps({k: counts[k] for k in sorted(counts)}, indent=None))


if __name__ == "__main__":
    main()
