#!/usr/bin/env python3
"""gen_blind32.py - synthetic log bundles of failed / healthy distributed GPU training
jobs, themed around CHECKPOINTS, EVALUATION and STORAGE.

Written blind (without looking at the diagnosis tool, its rules, tests or corpus).
Standard library only.  Deterministic per --seed.

    python3 gen_blind32.py --out DIR --n 60 --seed 1
"""
import argparse
import json
import os
import random
import shutil
import sys
from datetime import datetime, timedelta

CAUSES = [
    "gpu_hardware", "ecc_memory", "nvlink", "network", "cuda_oom",
    "illegal_memory_access", "python_exception", "host_oom_kill", "crash_signal",
    "preemption", "hang", "data_loader_stall", "collective_mismatch", "straggler",
    "unknown",
]

LAYOUTS = [
    "hf-slurm", "lightning-requeue", "megatron-distckpt", "deepspeed-pdsh",
    "torchtitan-k8s", "fsdp-torchrun-logdir",
]

ALL = set(CAUSES)
SUPPORT = {
    "hf-slurm": ALL - {"straggler"},
    "lightning-requeue": ALL - {"straggler"},
    "megatron-distckpt": set(ALL),
    "deepspeed-pdsh": ALL - {"preemption", "straggler"},
    "torchtitan-k8s": set(ALL),
    "fsdp-torchrun-logdir": set(ALL),
}


# --------------------------------------------------------------------------------------
# small helpers
# --------------------------------------------------------------------------------------

def sec(x):
    return timedelta(seconds=x)


def hexaddr(rng, base=0x7f00_0000_0000, span=0xff_ffff_ffff):
    return "0x%012x" % (base + rng.randrange(span))


def fmt_std(t):
    return t.strftime("%Y-%m-%d %H:%M:%S") + ",%03d" % (t.microsecond // 1000)


def fmt_iso(t):
    return t.strftime("%Y-%m-%dT%H:%M:%S")


def fmt_dmesg_T(t):
    return t.strftime("%a %b %d %H:%M:%S %Y").replace(" 0", "  ", 1) if False else t.strftime("%a %b %d %H:%M:%S %Y")


def fmt_journal(t):
    return t.strftime("%b %d %H:%M:%S")


def human_gib(x):
    return "%.2f GiB" % x


def tqdm_bar(done, total, width=10):
    frac = done / total if total else 1.0
    full = int(frac * width)
    rem = frac * width - full
    parts = " ▏▎▍▌▋▊▉"
    bar = "█" * full
    if full < width:
        bar += parts[int(rem * 8)] if int(rem * 8) else " "
        bar += " " * (width - full - 1)
    return bar


def hms(s):
    s = int(s)
    h, r = divmod(s, 3600)
    m, s2 = divmod(r, 60)
    if h:
        return "%d:%02d:%02d" % (h, m, s2)
    return "%02d:%02d" % (m, s2)


def tqdm_line(done, total, elapsed, rate_s_per_it, prefix="", postfix=""):
    pct = int(100 * done / total) if total else 100
    remain = (total - done) * rate_s_per_it
    if rate_s_per_it >= 1:
        rate = "%.2fs/it" % rate_s_per_it
    else:
        rate = "%.2fit/s" % (1.0 / max(rate_s_per_it, 1e-6))
    s = "%s%3d%%|%s| %d/%d [%s<%s, %s%s]" % (prefix, pct, tqdm_bar(done, total), done, total,
                                          hms(elapsed), hms(remain), rate, postfix)
    return s


class Sink:
    """Collects output lines as events: (true_time, seq, host, rank, text, chan)."""

    def __init__(self):
        self.ev = []
        self.n = 0

    def add(self, t, host, rank, text, chan="err"):
        for line in text.split("\n"):
            self.ev.append((t, self.n, host, rank, line, chan))
            self.n += 1

    def block(self, t, host, rank, lines, chan="err", dt=0.0004):
        for i, line in enumerate(lines):
            self.ev.append((t + sec(i * dt), self.n, host, rank, line, chan))
            self.n += 1

    def sorted(self):
        return sorted(self.ev, key=lambda e: (e[0], e[1]))

    def extend(self, other):
        for e in other.ev:
            self.ev.append((e[0], self.n, e[2], e[3], e[4], e[5]))
            self.n += 1


# --------------------------------------------------------------------------------------
# the cluster
# --------------------------------------------------------------------------------------

PCI_H100 = ["18", "2a", "3a", "5d", "9a", "ab", "ba", "db"]
PCI_A100 = ["07", "0f", "47", "4e", "87", "90", "b7", "bd"]
USERS = ["jchen", "mkowalski", "apatel", "svc-train", "lmartin", "rgupta", "okim", "tnguyen",
         "ebrown", "dsilva"]
PROJECTS = ["llm-pretrain", "code-sft", "mm-align", "rm-train", "long-ctx", "moe-exp",
            "dpo-run", "asr-large", "vit-h", "chat-sft"]


class World:
    def __init__(self, rng, kind, nnodes=None, gpn=None):
        self.rng = rng
        self.kind = kind
        self.nnodes = nnodes or rng.choice([2, 2, 2, 3, 4, 4, 4, 6, 8])
        self.gpn = gpn or rng.choice([8, 8, 8, 8, 4])
        self.world = self.nnodes * self.gpn
        self.user = rng.choice(USERS)
        self.proj = rng.choice(PROJECTS)
        self.gpu = rng.choice([("NVIDIA H100 80GB HBM3", 79.11, PCI_H100),
                               ("NVIDIA H100 80GB HBM3", 79.11, PCI_H100),
                               ("NVIDIA A100-SXM4-80GB", 79.15, PCI_A100),
                               ("NVIDIA H200", 139.72, PCI_H100)])
        self.pci = self.gpu[2][: self.gpn] if self.gpn == 8 else self.gpu[2][::2][: self.gpn]
        self.tv = rng.choice(["2.1", "2.3", "2.3", "2.5", "2.5", "2.5"])
        self.py = {"2.1": "3.10", "2.3": rng.choice(["3.10", "3.11"]), "2.5": rng.choice(["3.10", "3.11", "3.12"])}[self.tv]
        env = rng.choice(["ngc", "conda", "venv"])
        if env == "ngc":
            self.sp = "/usr/local/lib/python%s/dist-packages" % self.py
            self.stdlib = "/usr/lib/python%s" % self.py
            self.pybin = "/usr/bin/python"
            self.torchrun_bin = "/usr/local/bin/torchrun"
        elif env == "conda":
            self.sp = "/opt/conda/lib/python%s/site-packages" % self.py
            self.stdlib = "/opt/conda/lib/python%s" % self.py
            self.pybin = "/opt/conda/bin/python3.%s" % self.py.split(".")[1]
            self.torchrun_bin = "/opt/conda/bin/torchrun"
        else:
            self.sp = "/home/%s/venvs/%s/lib/python%s/site-packages" % (self.user, self.proj, self.py)
            self.stdlib = "/usr/lib/python%s" % self.py
            self.pybin = "/home/%s/venvs/%s/bin/python" % (self.user, self.proj)
            self.torchrun_bin = "/home/%s/venvs/%s/bin/torchrun" % (self.user, self.proj)
        self.nccl = {"2.1": "2.18.6", "2.3": "2.20.5", "2.5": rng.choice(["2.21.5", "2.23.4"])}[self.tv]
        self.cuda = {"2.1": "12.1", "2.3": "12.1", "2.5": rng.choice(["12.4", "12.6"])}[self.tv]
        self.hosts = self._hosts(kind)
        self.ips = ["10.%d.%d.%d" % (rng.randint(0, 200), rng.randint(0, 60), rng.randint(2, 250))
                    for _ in range(self.nnodes)]
        # clock skew between nodes: most a few seconds, sometimes one node far off
        self.skew = [0.0] + [rng.uniform(-4.0, 4.0) for _ in range(self.nnodes - 1)]
        if self.nnodes > 1 and rng.random() < 0.35:
            self.skew[rng.randrange(1, self.nnodes)] += rng.choice([-1, 1]) * rng.uniform(20, 140)
        self.uptime = [rng.uniform(3 * 3600, 60 * 86400) for _ in range(self.nnodes)]
        self.agent_pid = [rng.randint(1800, 90000) for _ in range(self.nnodes)]
        self.pids = []
        self.new_pids()
        self.master_port = rng.choice([29500, 29500, 29400, 6000, 12355, 23456])
        self.libaddr = {k: rng.randrange(0x7f0000000000, 0x7fff00000000) & ~0xfff for k in
                        ("c10", "cpu", "cuda", "stdc", "libc", "py")}

    def new_pids(self):
        rng = self.rng
        pids = []
        for h in range(self.nnodes):
            if self.pids:
                base = max(self.pids[h * self.gpn:(h + 1) * self.gpn]) + rng.randint(30, 900)
            else:
                base = self.agent_pid[h] + rng.randint(40, 400)
            cur = base
            for lr in range(self.gpn):
                pids.append(cur)
                cur += rng.choice([1, 1, 2, 2, 3, 5])
            # local ranks are not always started in pid order
            blk = pids[h * self.gpn:]
            if rng.random() < 0.5:
                i, j = rng.randrange(self.gpn), rng.randrange(self.gpn)
                blk[i], blk[j] = blk[j], blk[i]
                pids[h * self.gpn:] = blk
        self.pids = pids

    def _hosts(self, kind):
        rng = self.rng
        n = self.nnodes
        if kind == "k8s":
            pool = rng.choice(["a3-highgpu", "gpu-h100", "a3mega", "p5-pool"])
            return ["gke-%s-%s-%s-%s" % (self.proj[:6].strip("-"), pool, "%04x" % rng.randrange(65536),
                                         "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(4)))
                    for _ in range(n)]
        if kind == "cloud":
            return ["ip-10-%d-%d-%d" % (rng.randint(0, 3), rng.randint(0, 255), rng.randint(2, 254)) for _ in range(n)]
        style = rng.choice(["gpu%03d", "node-%04d", "hgx-b%02d-%%02d", "nid%06d", "dgx%03d", "g%04d"])
        start = rng.randint(1, 400)
        if "%%" in style:
            rack = rng.randint(1, 30)
            fmt = style % rack
            start = rng.randint(1, 12)
        else:
            fmt = style
        out = []
        cur = start
        for _ in range(n):
            out.append(fmt % cur)
            cur += 1 if rng.random() < 0.8 else rng.randint(2, 9)
        return out

    def host_of(self, r):
        return r // self.gpn

    def lr(self, r):
        return r % self.gpn

    def ranks_on(self, h):
        return list(range(h * self.gpn, (h + 1) * self.gpn))

    def local(self, t, h):
        return t + sec(self.skew[h])

    def lib(self, name):
        return {"c10": self.sp + "/torch/lib/libc10.so",
                "cpu": self.sp + "/torch/lib/libtorch_cpu.so",
                "cuda": self.sp + "/torch/lib/libtorch_cuda.so",
                "py": self.sp + "/torch/lib/libtorch_python.so",
                "stdc": "/lib/x86_64-linux-gnu/libstdc++.so.6",
                "libc": "/lib/x86_64-linux-gnu/libc.so.6"}[name]

    def cframe(self, i, sym, off, libkey):
        a = self.libaddr[libkey] + self.rng.randrange(0x10000, 0x4000000)
        return "frame #%d: %s + 0x%x (0x%012x in %s)" % (i, sym, off, a, self.lib(libkey))

    def slurm_nodelist(self):
        return ",".join(self.hosts) if len(self.hosts) < 3 else self._compress()

    def _compress(self):
        # crude hostlist compression: prefix[a-b,c]
        import re
        m = [re.match(r"^(.*?)(\d+)$", h) for h in self.hosts]
        if not all(m) or len(set(x.group(1) for x in m)) != 1:
            return ",".join(self.hosts)
        pre = m[0].group(1)
        width = len(m[0].group(2))
        nums = [int(x.group(2)) for x in m]
        ranges = []
        s = p = nums[0]
        for v in nums[1:]:
            if v == p + 1:
                p = v
                continue
            ranges.append((s, p))
            s = p = v
        ranges.append((s, p))
        parts = [("%0*d" % (width, a)) if a == b else ("%0*d-%0*d" % (width, a, width, b)) for a, b in ranges]
        return "%s[%s]" % (pre, ",".join(parts))


# --------------------------------------------------------------------------------------
# torch / c10d formats (version dependent)
# --------------------------------------------------------------------------------------

WD_SRC = {
    "2.1": dict(caught=475, timeout_at=None, some=489, down=495, term=916, raised=None),
    "2.3": dict(caught=563, timeout_at=1537, some=577, down=583, term=1414, raised=565),
    "2.5": dict(caught=616, timeout_at=1785, some=630, down=636, term=1595, raised=618),
}


def c10d_pre(W, rank, lvl, tl, src):
    if W.tv == "2.1":
        return "[%s %s] " % (lvl, src)
    if W.tv == "2.3":
        return "[rank%d]:[%s %s] " % (rank, lvl, src)
    ns = tl.microsecond * 1000 + (rank * 137 + 11) % 1000
    return "[rank%d]:[%s%s.%09d %s] " % (rank, lvl, tl.strftime("%m%d %H:%M:%S"), ns, src)


def tb_pre(W, rank):
    return "" if W.tv == "2.1" else "[rank%d]: " % rank


def pg_tag(W, rank):
    if W.tv == "2.5":
        return "[PG ID 0 PG GUID 0(default_pg) Rank %d]" % rank
    return "[PG 0 Rank %d]" % rank


def workstr(seq, op, nin, nout, tmo_ms):
    return "WorkNCCL(SeqNum=%d, OpType=%s, NumelIn=%d, NumelOut=%d, Timeout(ms)=%d)" % (seq, op, nin, nout, tmo_ms)


def cpp_frames_watchdog(W):
    fr = [W.cframe(0, "c10::Error::Error(c10::SourceLocation, std::string)", 0x96 if W.tv == "2.5" else 0x57, "c10"),
          W.cframe(1, "c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >)", 0x1d2, "cuda"),
          W.cframe(2, "c10d::ProcessGroupNCCL::watchdogHandler()", 0x233 if W.tv == "2.5" else 0x1a0, "cuda"),
          W.cframe(3, "c10d::ProcessGroupNCCL::ncclCommWatchdog()", 0x14d if W.tv == "2.5" else 0x10c, "cuda"),
          W.cframe(4, "<unknown function>", 0xdc253, "stdc"),
          W.cframe(5, "<unknown function>", 0x94ac3, "libc"),
          W.cframe(6, "<unknown function>", 0x126850, "libc")]
    return fr


def watchdog_block(W, rank, tl, seq, op, nin, nout, tmo_ms, enq, comp, fatal_python=False):
    s = WD_SRC[W.tv]
    ran = tmo_ms + W.rng.randint(3, 180)
    ws = workstr(seq, op, nin, nout, tmo_ms)
    caught = "[Rank %d] Watchdog caught collective operation timeout: %s ran for %d milliseconds before timing out." % (rank, ws, ran)
    _k = [0]

    def P(src):
        _k[0] += 1
        return c10d_pre(W, rank, "E", tl + timedelta(microseconds=_k[0] * 41 + (300 if _k[0] > 2 else 0)), "ProcessGroupNCCL.cpp:%d" % src)
    L = [P(s["caught"]) + caught]
    if W.tv == "2.3":
        L.append(P(s["timeout_at"]) + "%s Timeout at NCCL work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (pg_tag(W, rank), seq, enq, comp))
    elif W.tv == "2.5":
        L.append(P(s["timeout_at"]) + "%s Exception (either an error or timeout) detected by watchdog at work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (pg_tag(W, rank), seq, enq, comp))
    if W.tv == "2.1":
        L.append(P(s["some"]) + "Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.")
        L.append(P(s["down"]) + "To avoid data inconsistency, we are taking the entire process down.")
        L.append(P(s["term"]) + "[Rank %d] NCCL watchdog thread terminated with exception: %s" % (rank, caught))
        L.append("terminate called after throwing an instance of 'std::runtime_error'")
        L.append("  what():  [Rank %d] NCCL watchdog thread terminated with exception: %s" % (rank, caught))
        return L
    L.append(P(s["some"]) + "[Rank %d] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data." % rank)
    L.append(P(s["down"]) + "[Rank %d] To avoid data inconsistency, we are taking the entire process down." % rank)
    term = "%s Process group watchdog thread terminated with exception: %s" % (pg_tag(W, rank), caught)
    L.append(P(s["term"]) + term)
    src = "../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp" if W.tv == "2.3" else "/pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp"
    raised = "Exception raised from checkTimeout at %s:%d (most recent call first):" % (src, s["raised"])
    fr = cpp_frames_watchdog(W)
    L.append(raised)
    L.extend(fr)
    L.append("")
    L.append("terminate called after throwing an instance of 'c10::DistBackendError'")
    L.append("  what():  " + term)
    L.append(raised)
    L.extend(fr)
    L.append("")
    if fatal_python:
        L.extend(["Fatal Python error: Aborted", "",
                  "Thread 0x%016x (most recent call first):" % (W.rng.randrange(0x7f0000000000, 0x7fffffffffff) & ~0xfff | 0x640),
                  "  <no Python frame>", ""])
    return L


def cuda_err_watchdog_block(W, rank, tl, errtxt):
    """watchdog thread dies because of an asynchronous CUDA error (IMA, ECC, Xid...)"""
    s = WD_SRC[W.tv]
    P = lambda src: c10d_pre(W, rank, "E", tl, "ProcessGroupNCCL.cpp:%d" % src)
    if W.tv == "2.1":
        return [P(s["term"]) + "[Rank %d] NCCL watchdog thread terminated with exception: CUDA error: %s" % (rank, errtxt),
                "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
                "For debugging consider passing CUDA_LAUNCH_BLOCKING=1.",
                "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.", "",
                "terminate called after throwing an instance of 'std::runtime_error'",
                "  what():  [Rank %d] NCCL watchdog thread terminated with exception: CUDA error: %s" % (rank, errtxt)]
    src = "../c10/cuda/CUDAException.cpp" if W.tv == "2.3" else "/pytorch/c10/cuda/CUDAException.cpp"
    term = "%s Process group watchdog thread terminated with exception: CUDA error: %s" % (pg_tag(W, rank), errtxt)
    fr = [W.cframe(0, "c10::Error::Error(c10::SourceLocation, std::string)", 0x96, "c10"),
          W.cframe(1, "c10::detail::torchCheckFail(char const*, char const*, unsigned int, std::string const&)", 0x64, "c10"),
          W.cframe(2, "c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, int, bool)", 0x118, "c10"),
          W.cframe(3, "c10d::ProcessGroupNCCL::WorkNCCL::finishedGPUExecutionInternal() const", 0x56, "cuda"),
          W.cframe(4, "c10d::ProcessGroupNCCL::WorkNCCL::isCompleted()", 0x58, "cuda"),
          W.cframe(5, "c10d::ProcessGroupNCCL::watchdogHandler()", 0x1a0, "cuda"),
          W.cframe(6, "c10d::ProcessGroupNCCL::ncclCommWatchdog()", 0x10c, "cuda"),
          W.cframe(7, "<unknown function>", 0xdc253, "stdc"),
          W.cframe(8, "<unknown function>", 0x94ac3, "libc"),
          W.cframe(9, "<unknown function>", 0x126850, "libc")]
    L = [P(s["term"]) + term,
         "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
         "For debugging consider passing CUDA_LAUNCH_BLOCKING=1",
         "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.", "",
         "Exception raised from c10_cuda_check_implementation at %s:43 (most recent call first):" % src]
    L += fr + ["", "terminate called after throwing an instance of 'c10::DistBackendError'", "  what():  " + term,
               "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
               "For debugging consider passing CUDA_LAUNCH_BLOCKING=1",
               "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.", ""]
    return L


def nccl_remote_error_block(W, rank, tl, peer_host_ip, transport="IB"):
    s = WD_SRC[W.tv]
    P = lambda src: c10d_pre(W, rank, "E", tl, "ProcessGroupNCCL.cpp:%d" % src)
    if transport == "IB":
        last = "NET/IB : Got completion from peer %s<%d> with status=12 opcode=0 len=0 vendor err 129 (Recv) localGid ::ffff:%s remoteGidsfe80::%x:%x:%x:%x hca mlx5_%d" % (
            peer_host_ip, W.rng.randint(30000, 60000), W.ips[W.host_of(rank)], W.rng.randrange(65536), W.rng.randrange(65536), W.rng.randrange(65536), W.rng.randrange(65536), W.lr(rank))
    else:
        last = "socketProgress: Connection closed by remote peer %s<%d>" % (peer_host_ip, W.rng.randint(30000, 60000))
    msg = "NCCL error: remote process exited or there was a network error, NCCL version %s" % W.nccl
    L = [P(s["term"]) + "%s Process group watchdog thread terminated with exception: %s" % (pg_tag(W, rank), msg),
         "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.",
         "Last error:", last]
    L += ["terminate called after throwing an instance of 'c10::DistBackendError'",
          "  what():  %s Process group watchdog thread terminated with exception: %s" % (pg_tag(W, rank), msg),
          "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.",
          "Last error:", last, ""]
    return L


def tcpstore_reset_lines(W, rank, tl, master_host):
    h = W.host_of(rank)
    if W.tv == "2.1":
        return ["[W socket.cpp:601] [c10d] recvValue failed on SocketImpl(fd=%d, addr=[%s]:%d, remote=[%s]:%d): Connection reset by peer" % (
            W.rng.randint(40, 200), W.hosts[h], W.rng.randint(33000, 60000), W.hosts[master_host], W.master_port)]
    pre = c10d_pre(W, rank, "W", tl, "TCPStore.cpp:125" if W.tv == "2.5" else "socket.cpp:464")
    return [pre + "[c10d] recvValue failed on SocketImpl(fd=%d, addr=[%s]:%d, remote=[%s]:%d): Connection reset by peer" % (
        W.rng.randint(40, 200), W.hosts[h], W.rng.randint(33000, 60000), W.hosts[master_host], W.master_port),
        "Exception raised from recvBytes at %s/torch/csrc/distributed/c10d/Utils.hpp:%d (most recent call first):" % (
            "/pytorch" if W.tv == "2.5" else "..", 679 if W.tv == "2.5" else 670),
        W.cframe(0, "c10::Error::Error(c10::SourceLocation, std::string)", 0x96, "c10"),
        W.cframe(1, "<unknown function>", 0x5ffc5d1, "cpu"),
        W.cframe(2, "c10d::TCPStore::check(std::vector<std::string, std::allocator<std::string> > const&)", 0x2a9, "cpu"),
        W.cframe(3, "c10d::ProcessGroupNCCL::heartbeatMonitor()", 0x379, "cuda"),
        "",
        c10d_pre(W, rank, "W", tl, "ProcessGroupNCCL.cpp:1771" if W.tv == "2.5" else "ProcessGroupNCCL.cpp:1260")
        + "%s Failed to check the \"should dump\" flag on TCPStore, (maybe TCPStore server has shut down too early), with error: Connection reset by peer" % pg_tag(W, rank)]


# python traceback helper ---------------------------------------------------------------

def traceback_lines(frames, exc_lines, pre="", chained=None):
    L = []
    if chained:
        L += traceback_lines(chained[0], chained[1], pre)
        L += [pre, pre + "During handling of the above exception, another exception occurred:", pre]
    L.append(pre + "Traceback (most recent call last):")
    for f in frames:
        path, ln, fn, code = f
        L.append(pre + '  File "%s", line %d, in %s' % (path, ln, fn))
        if code:
            L.append(pre + "    " + code)
    for e in exc_lines:
        L.append(pre + e)
    return L


def cuda_msg_lines(W, errtxt):
    L = ["RuntimeError: CUDA error: %s" % errtxt,
         "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
         "For debugging consider passing CUDA_LAUNCH_BLOCKING=1" + ("." if W.tv == "2.1" else ""),
         "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.", ""]
    return L


def oom_msg(W, lr, tried, free, inuse, alloc, reserved, other_procs=None):
    cls = "torch.cuda.OutOfMemoryError" if W.tv == "2.1" else "torch.OutOfMemoryError"
    total = W.gpu[1]
    if other_procs:
        procs = " ".join("Process %d has %.2f GiB memory in use." % (p, g) for p, g in other_procs)
        mid = "%s " % procs
    else:
        mid = "Including non-PyTorch memory, this process has %.2f GiB memory in use. " % inuse
    return ("%s: CUDA out of memory. Tried to allocate %.2f GiB. GPU %d has a total capacity of %.2f GiB of which %.2f GiB is free. "
            "%sOf the allocated memory %.2f GiB is allocated by PyTorch, and %.2f GiB is reserved by PyTorch but unallocated. "
            "If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid "
            "fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)"
            % (cls, tried, lr, total, free, mid, alloc, reserved))


# --------------------------------------------------------------------------------------
# per-rank ends and launcher collateral
# --------------------------------------------------------------------------------------

SIGNAME = {-6: "SIGABRT", -9: "SIGKILL", -11: "SIGSEGV", -7: "SIGBUS", -15: "SIGTERM", -2: "SIGINT"}
SIGNUM = {-6: 6, -9: 9, -11: 11, -7: 7, -15: 15, -2: 2}
SRUN_DESC = {-6: "Aborted (core dumped)", -9: "Killed", -11: "Segmentation fault (core dumped)",
             -7: "Bus error (core dumped)", -15: "Terminated"}


class End:
    """What a rank would do if nobody killed it: print its items [(t, text)], then exit with `code` at t.
    code None -> the rank never exits on its own (hung / waiting forever)."""

    def __init__(self, rank, tp, code, lines=None, t=None, chan="err", dt=0.0007):
        self.rank = rank
        self.code = code
        self.chan = chan
        self.items = [(tp + sec(i * dt), l) for i, l in enumerate(lines or [])]
        last = self.items[-1][0] if self.items else tp
        self.t = t if t is not None else last + sec(0.05 + 0.01 * (rank % 7))

    def prepend(self, tp, lines, dt=0.0007):
        self.items = [(tp + sec(i * dt), l) for i, l in enumerate(lines)] + self.items
        self.items.sort(key=lambda x: x[0])


def agent_pre(W, h, lvl, tl, mod, path, lineno):
    name = {"W": "WARNING", "E": "ERROR", "I": "INFO"}[lvl]
    if W.tv == "2.1":
        return "%s:%s:" % (name, mod)
    if W.tv == "2.3":
        return "[%s] %s: [%s] " % (fmt_std(tl), mod, name)
    return "%s%s.%06d %d %s:%d] " % (lvl, tl.strftime("%m%d %H:%M:%S"), tl.microsecond, W.agent_pid[h], path, lineno)


MP_API = ("torch.distributed.elastic.multiprocessing.api", "torch/distributed/elastic/multiprocessing/api.py")
AG_API = ("torch.distributed.elastic.agent.server.api", "torch/distributed/elastic/agent/server/api.py")


def torchrun_banner(W, h, tl, nproc):
    if W.tv == "2.1":
        return ["WARNING:torch.distributed.run:", "*****************************************",
                "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. ",
                "*****************************************"]
    if W.tv == "2.3":
        p = "[%s] torch.distributed.run: [WARNING] " % fmt_std(tl)
    else:
        p = "W%s.%06d %d torch/distributed/run.py:793] " % (tl.strftime("%m%d %H:%M:%S"), tl.microsecond, W.agent_pid[h])
    return [p, p + "*****************************************",
            p + "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. ",
            p + "*****************************************"]


def torchrun_tb_head(W):
    sp = W.sp
    return [(W.torchrun_bin, 8, "<module>", "sys.exit(main())"),
            (sp + "/torch/distributed/elastic/multiprocessing/errors/__init__.py", 355 if W.tv != "2.1" else 346, "wrapper", "return f(*args, **kwargs)"),
            (sp + "/torch/distributed/run.py", {"2.1": 806, "2.3": 879, "2.5": 919}[W.tv], "main", "run(args)"),
            (sp + "/torch/distributed/run.py", {"2.1": 797, "2.3": 870, "2.5": 910}[W.tv], "run", "elastic_launch("),
            (sp + "/torch/distributed/launcher/api.py", {"2.1": 134, "2.3": 132, "2.5": 138}[W.tv], "__call__", "return launch_agent(self._config, self._entrypoint, list(args))")]


def child_failed_lines(W, h, script, failures, host_fqdn=None):
    """failures: list of (End) sorted by time; first is root cause."""
    sp = W.sp
    fr = torchrun_tb_head(W) + [(sp + "/torch/distributed/launcher/api.py", {"2.1": 264, "2.3": 263, "2.5": 269}[W.tv], "launch_agent", "raise ChildFailedError(")]
    L = traceback_lines(fr, ["torch.distributed.elastic.multiprocessing.errors.ChildFailedError: "])
    host = host_fqdn or W.hosts[h]

    def entry(i, e):
        r = e.rank
        tl = W.local(e.t, h)
        if e.code < 0:
            tb = "Signal %d (%s) received by PID %d" % (SIGNUM[e.code], SIGNAME[e.code], W.pids[r])
        else:
            tb = "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"
        return ["[%d]:" % i,
                "  time      : %s" % tl.strftime("%Y-%m-%d_%H:%M:%S"),
                "  host      : %s" % host,
                "  rank      : %d (local_rank: %d)" % (r, W.lr(r)),
                "  exitcode  : %d (pid: %d)" % (e.code, W.pids[r]),
                "  error_file: <N/A>",
                "  traceback : %s" % tb]
    L += ["============================================================",
          "%s FAILED" % script,
          "------------------------------------------------------------",
          "Failures:"]
    if len(failures) == 1:
        L.append("  <NO_OTHER_FAILURES>")
    else:
        for i, e in enumerate(failures[1:], 1):
            L += entry(i, e)
    L += ["------------------------------------------------------------", "Root Cause (first observed failure):"]
    L += entry(0, failures[0])
    L.append("============================================================")
    return L


def signal_exception_lines(W, h, signum=15):
    sp = W.sp
    fr = torchrun_tb_head(W) + [
        (sp + "/torch/distributed/launcher/api.py", {"2.1": 255, "2.3": 254, "2.5": 260}[W.tv], "launch_agent", "result = agent.run()"),
        (sp + "/torch/distributed/elastic/metrics/api.py", 124 if W.tv != "2.1" else 129, "wrapper", "result = f(*args, **kwargs)"),
        (sp + "/torch/distributed/elastic/agent/server/api.py", {"2.1": 723, "2.3": 727, "2.5": 696}[W.tv], "run", "result = self._invoke_run(role)"),
        (sp + "/torch/distributed/elastic/agent/server/api.py", {"2.1": 858, "2.3": 862, "2.5": 855}[W.tv], "_invoke_run", "time.sleep(monitor_interval)"),
        (sp + "/torch/distributed/elastic/multiprocessing/api.py", {"2.1": 62, "2.3": 79, "2.5": 84}[W.tv], "_terminate_process_handler", 'raise SignalException(f"Process {os.getpid()} got signal: {sigval}", sigval=sigval)')]
    return traceback_lines(fr, ["torch.distributed.elastic.multiprocessing.api.SignalException: Process %d got signal: %d" % (W.agent_pid[h], signum)])


class Resolved:
    """Outcome of one attempt after launcher semantics were applied."""

    def __init__(self):
        self.sink = Sink()          # all printed lines (rank lines + agent lines)
        self.rank_exit = {}         # rank -> (t, code)
        self.node_exit = {}         # host -> (t, rc)
        self.first_fail = None      # (t, rank)
        self.t_end = None


def emit_rank_lines(R, W, e, t_cut):
    h = W.host_of(e.rank)
    n = 0
    for tp, line in e.items:
        if t_cut is not None and tp > t_cut:
            break
        R.sink.add(tp, h, e.rank, line, e.chan)
        n += 1
    return n


def resolve_torchrun(K, F, script, ext_kill=None, restarts_left=0, loglevel_info=False, monitor=None,
                     emit_agent=True, agent_style="torchrun"):
    """Per-node torchrun agents. ext_kill: dict host -> (t, signum) external SIGTERM/SIGKILL to the agent."""
    W = K.W
    R = Resolved()
    ext_kill = ext_kill or {}
    monitor = monitor if monitor is not None else (0.1 if W.tv == "2.5" else 5.0)
    for h in range(W.nnodes):
        ranks = W.ranks_on(h)
        ends = [F.ends[r] for r in ranks]
        fails = sorted([e for e in ends if e.code not in (None, 0)], key=lambda e: e.t)
        t_det = None
        if fails:
            t_det = fails[0].t + sec(K.rng.uniform(0.02, monitor) + 0.05)
        tk = ext_kill.get(h)
        if tk is not None and (t_det is None or tk[0] < t_det):
            t_kill, signum = tk
            for e in ends:
                if e.code not in (None, 0) and e.t <= t_kill:
                    emit_rank_lines(R, W, e, None)
                    R.rank_exit[e.rank] = (e.t, e.code)
                else:
                    emit_rank_lines(R, W, e, t_kill)
                    R.rank_exit[e.rank] = (t_kill + sec(0.3), -15)
            tl = W.local(t_kill, h)
            if emit_agent and signum == 15:
                L = [agent_pre(W, h, "W", tl, AG_API[0], AG_API[1], 705) + "Received Signals.SIGTERM death signal, shutting down workers"]
                for r in ranks:
                    if R.rank_exit[r][1] == -15:
                        L.append(agent_pre(W, h, "W", tl, MP_API[0], MP_API[1], 897) + "Sending process %d closing signal SIGTERM" % W.pids[r])
                L += signal_exception_lines(W, h, 15)
                R.sink.block(t_kill + sec(0.01), h, None, L, "agent")
            R.node_exit[h] = (t_kill + sec(1.0), 1 if signum == 15 else -9)
            continue
        if t_det is None:
            # never fails by itself and nobody kills it: emit what it printed (hung forever)
            for e in ends:
                emit_rank_lines(R, W, e, None)
            R.node_exit[h] = (None, None)
            continue
        failed = [e for e in fails if e.t <= t_det]
        termed = []
        for e in ends:
            if e in failed:
                emit_rank_lines(R, W, e, None)
                R.rank_exit[e.rank] = (e.t, e.code)
            else:
                emit_rank_lines(R, W, e, t_det)
                R.rank_exit[e.rank] = (t_det + sec(0.5), -15)
                termed.append(e.rank)
        if R.first_fail is None or failed[0].t < R.first_fail[0]:
            R.first_fail = (failed[0].t, failed[0].rank)
        tl = W.local(t_det, h)
        L = []
        if emit_agent and agent_style == "deepspeed":
            f0 = failed[0]
            ts = "[%s]" % fmt_std(tl)
            for r in ranks:
                L.append("%s [INFO] [launch.py:319:sigkill_handler] Killing subprocess %d" % (ts, W.pids[r]))
            L.append("%s [ERROR] [launch.py:325:sigkill_handler] ['%s', '-u', '%s', '--local_rank=%d', '--deepspeed', '--deepspeed_config', 'ds_config.json'] exits with return code = %d" % (
                ts, W.pybin, K.fw.script, W.lr(f0.rank), f0.code))
            R.node_exit[h] = (t_det + sec(1.5), f0.code if f0.code > 0 else 1)
            R.sink.block(t_det + sec(0.01), h, None, L, "agent")
        elif emit_agent:
            for r in termed:
                L.append(agent_pre(W, h, "W", tl, MP_API[0], MP_API[1], 897) + "Sending process %d closing signal SIGTERM" % W.pids[r])
            stuck = [r for r in termed if F.ends[r].code is None and r in K.stuck_d_state]
            for r in stuck:
                L.append(agent_pre(W, h, "W", tl + sec(30), MP_API[0], MP_API[1], 908) +
                         "Unable to shutdown process %d via Signals.SIGTERM, forcefully exiting via Signals.SIGKILL" % W.pids[r])
            f0 = failed[0]
            if stuck:
                tl = tl + sec(30)
            L.append(agent_pre(W, h, "E", tl + sec(0.6), MP_API[0], MP_API[1], 869) +
                     "failed (exitcode: %d) local_rank: %d (pid: %d) of binary: %s" % (f0.code, W.lr(f0.rank), W.pids[f0.rank], W.pybin))
            if restarts_left > 0:
                if loglevel_info:
                    L.append(agent_pre(W, h, "I", tl + sec(0.7), AG_API[0], AG_API[1], 883) +
                             "[default] Worker group FAILED. %d/%d attempts left; will restart worker group" % (restarts_left, K.max_restarts))
                    L.append(agent_pre(W, h, "I", tl + sec(0.7), AG_API[0], AG_API[1], 538) + "[default] Stopping worker group")
                    L.append(agent_pre(W, h, "I", tl + sec(0.8), AG_API[0], AG_API[1], 479) + "[default] Rendezvous'ing worker group")
                R.node_exit[h] = (None, "restart")
            else:
                L += child_failed_lines(W, h, script, failed, host_fqdn=K.fqdn(h))
                R.node_exit[h] = (t_det + sec(1.2), 1)
            R.sink.block(t_det + sec(0.01), h, None, L, "agent")
        else:
            R.node_exit[h] = (t_det + sec(1.0), 1)
    ts = [v[0] for v in R.node_exit.values() if v[0] is not None]
    R.t_end = max(ts) if ts else None
    if agent_style == "deepspeed":
        add_store_resets(K, R)
    elif R.node_exit.get(0, (None,))[0] is not None:
        add_store_resets(K, R, store_exit=R.node_exit[0][0])
    return R


def add_store_resets(K, R, store_exit=None):
    """When rank 0 (the TCPStore host) dies first, surviving ranks' heartbeat threads report
    'Connection reset by peer' before they go down themselves."""
    W, rng = K.W, K.rng
    if W.tv == "2.1" or 0 not in R.rank_exit or rng.random() < 0.3:
        return
    t0x = store_exit if store_exit is not None else R.rank_exit[0][0]
    if t0x is None:
        return
    cand = [r for r in range(1, W.world) if R.rank_exit.get(r, (None,))[0] is not None and R.rank_exit[r][0] > t0x + sec(3)]
    for r in rng.sample(cand, min(len(cand), rng.randint(1, 4))):
        tt = t0x + sec(rng.uniform(0.5, 2.5))
        h = W.host_of(r)
        R.sink.block(tt, h, r, tcpstore_reset_lines(W, r, W.local(tt, h), 0))


def resolve_tasks(K, F, ext_kill=None):
    """One process per rank (srun --ntasks-per-node=8, mpirun ...): no agent; every rank ends by itself
    unless killed externally. ext_kill: host -> (t, signum)."""
    W = K.W
    R = Resolved()
    ext_kill = ext_kill or {}
    for h in range(W.nnodes):
        tk = ext_kill.get(h)
        for r in W.ranks_on(h):
            e = F.ends[r]
            if tk is not None and (e.code in (None, 0) or e.t > tk[0]):
                emit_rank_lines(R, W, e, tk[0])
                R.rank_exit[r] = (tk[0] + sec(0.2), -15 if tk[1] == 15 else -9)
            else:
                emit_rank_lines(R, W, e, None)
                R.rank_exit[r] = (e.t, e.code)
                if e.code not in (None, 0) and (R.first_fail is None or e.t < R.first_fail[0]):
                    R.first_fail = (e.t, r)
    ts = [v[0] for v in R.rank_exit.values() if v[1] is not None]
    R.t_end = max(ts) if ts else None
    add_store_resets(K, R)
    return R


def srun_task_errors(W, R, jobid, step=0):
    """'srun: error: host: task N: ...' lines grouped like srun does."""
    out = []
    items = sorted(R.rank_exit.items(), key=lambda kv: (kv[1][0] or datetime.max, kv[0]))
    groups = []
    for r, (t, code) in items:
        if code in (None, 0):
            continue
        h = W.host_of(r)
        desc = ("Exited with exit code %d" % code) if code > 0 else SRUN_DESC.get(code, "Killed")
        if groups and groups[-1][0] == h and groups[-1][1] == desc and groups[-1][3][-1] == r - 1 and abs((t - groups[-1][2]).total_seconds()) < 3:
            groups[-1][3].append(r)
        else:
            groups.append([h, desc, t, [r]])
    for h, desc, t, rs in groups:
        if len(rs) == 1:
            out.append((t + sec(0.4), "srun: error: %s: task %d: %s" % (W.hosts[h], rs[0], desc)))
        else:
            out.append((t + sec(0.4), "srun: error: %s: tasks %d-%d: %s" % (W.hosts[h], rs[0], rs[-1], desc)))
    return out


# --------------------------------------------------------------------------------------
# kernel log (dmesg / journal) rendering
# --------------------------------------------------------------------------------------

KERNEL_NOISE = [
    "perf: interrupt took too long (%d > %d), lowering kernel.perf_event_max_sample_rate to %d",
    "IPv6: ADDRCONF(NETDEV_CHANGE): %s: link becomes ready",
    "nvidia-peermem: module verification failed: signature and/or required key missing - tainting kernel",
    "audit: type=1400 audit(%d.%03d:%d): apparmor=\"STATUS\" operation=\"profile_replace\" profile=\"unconfined\" name=\"docker-default\" pid=%d comm=\"apparmor_parser\"",
    "docker0: port %d(veth%07x) entered blocking state",
    "EXT4-fs (nvme0n1p2): mounted filesystem with ordered data mode. Opts: (null). Quota mode: none.",
    "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  %s",
    "nvidia-nvswitch: Probing device 0000:%02x:00.0, Vendor Id = 0x10de, Device Id = 0x22a3, Class = 0x68000",
    "mlx5_core 0000:%s:00.0: mlx5_pcie_event:299:(pid %d): PCIe slot advertised sufficient power (27W).",
    "systemd-journald[%d]: Data hash table of /var/log/journal/%032x/system.journal has a fill level at 75.0 (%d of %d items, %d file size, %d bytes per hash table item), suggesting rotation.",
]


def kernel_noise(rng, W, h, t0, t1, n):
    out = []
    span = max((t1 - t0).total_seconds(), 60)
    for _ in range(n):
        t = t0 + sec(rng.uniform(-3600, span))
        k = rng.randrange(len(KERNEL_NOISE))
        tpl = KERNEL_NOISE[k]
        if k == 0:
            a = rng.randint(2501, 9000)
            txt = tpl % (a, a - rng.randint(1, 900), rng.choice([79750, 63750, 50000, 39750]))
        elif k == 1:
            txt = tpl % rng.choice(["eth0", "ens12f0np0", "bond0"])
        elif k == 2:
            txt = tpl
        elif k == 3:
            txt = tpl % (rng.randint(1700000000, 1760000000), rng.randrange(1000), rng.randint(1, 999), rng.randint(1000, 99999))
        elif k == 4:
            txt = tpl % (rng.randint(1, 9), rng.randrange(16 ** 7))
        elif k == 5:
            txt = tpl
        elif k == 6:
            txt = tpl % rng.choice(["535.183.01", "550.90.07", "535.161.08", "560.35.03"])
        elif k == 7:
            txt = tpl % rng.choice([0x05, 0x06, 0x07, 0x08])
        elif k == 8:
            txt = tpl % (rng.choice(W.pci), rng.randint(1, 999))
        else:
            txt = tpl % (rng.randint(400, 2000), rng.randrange(16 ** 32), rng.randint(10000, 90000), rng.randint(100000, 140000), rng.randint(10 ** 7, 10 ** 8), 64)
        out.append((t, txt))
    return out


def render_kernel(W, h, entries, style, t_boot_ref):
    """entries: [(true_t, text)]. style: 'raw' | 'T' | 'journal'."""
    out = []
    for t, txt in sorted(entries, key=lambda x: x[0]):
        tl = W.local(t, h)
        if txt.startswith("@"):
            if style == "journal":
                out.append("%s %s %s" % (fmt_journal(tl), W.hosts[h], txt[1:]))
            continue
        if style == "raw":
            up = W.uptime[h] + (t - t_boot_ref).total_seconds()
            out.append("[%12.6f] %s" % (max(up, 1.0), txt))
        elif style == "T":
            out.append("[%s] %s" % (tl.strftime("%a %b %d %H:%M:%S %Y"), txt))
        else:
            out.append("%s %s kernel: %s" % (fmt_journal(tl), W.hosts[h], txt))
    return out


# --------------------------------------------------------------------------------------
# frameworks: normal output + python stack frames per phase
# --------------------------------------------------------------------------------------

def loss_at(K, step):
    a, b, c = K.loss_abc
    return a + b * pow(2.718281828, -step / c) + K.rng.uniform(-0.03, 0.03)


class Framework:
    name = "base"
    script = "train.py"
    timeout_ms = 1800000
    progress_rank = 0

    def __init__(self, K):
        self.K = K
        self.W = K.W

    # collectives -----------------------------------------------------------------
    def train_coll(self):
        return ("ALLREDUCE", 6553600, 6553600)

    def barrier_coll(self):
        return ("ALLREDUCE", 1, 1)

    # python frames (path, line, func, code) ---------------------------------------
    def sp(self, rel):
        return self.W.sp + "/" + rel

    def stdlib(self, rel):
        return self.W.stdlib + "/" + rel


def torch_save_frames(W, errkind):
    sp = W.sp
    if W.tv == "2.1":
        a = [(sp + "/torch/serialization.py", 619, "save", "_save(obj, opened_zipfile, pickle_module, pickle_protocol, _disable_byteorder_record)"),
             (sp + "/torch/serialization.py", 853, "_save", "zip_file.write_record(name, storage.data_ptr(), num_bytes)")]
        ex = "inline_container.cc:764"
        b = [(sp + "/torch/serialization.py", 618, "save", "with _open_zipfile_writer(f) as opened_zipfile:"),
             (sp + "/torch/serialization.py", 466, "__exit__", "self.file_like.write_end_of_file()")]
        ex2 = "inline_container.cc:595"
    else:
        a = [(sp + "/torch/serialization.py", 850 if W.tv == "2.5" else 628, "save", "_save("),
             (sp + "/torch/serialization.py", 1114 if W.tv == "2.5" else 862, "_save", "zip_file.write_record(name, storage, num_bytes)")]
        ex = "inline_container.cc:783" if W.tv == "2.5" else "inline_container.cc:778"
        b = [(sp + "/torch/serialization.py", 849 if W.tv == "2.5" else 627, "save", "with _open_zipfile_writer(f) as opened_zipfile:"),
             (sp + "/torch/serialization.py", 690 if W.tv == "2.5" else 475, "__exit__", "self.file_like.write_end_of_file()")]
        ex2 = "inline_container.cc:603" if W.tv == "2.5" else "inline_container.cc:595"
    return a, ex, b, ex2


def torch_load_frames(W):
    sp = W.sp
    if W.tv == "2.5":
        return [(sp + "/torch/serialization.py", 1360, "load", "with _open_zipfile_reader(opened_file) as opened_zipfile:"),
                (sp + "/torch/serialization.py", 750, "__init__", "super().__init__(torch._C.PyTorchFileReader(name_or_buffer))")]
    return [(sp + "/torch/serialization.py", 1004 if W.tv == "2.1" else 1025, "load", "with _open_zipfile_reader(opened_file) as opened_zipfile:"),
            (sp + "/torch/serialization.py", 456 if W.tv == "2.1" else 446, "__init__", "super().__init__(torch._C.PyTorchFileReader(name_or_buffer))")]


def torch_open_frames(W):
    sp = W.sp
    return [(sp + "/torch/serialization.py", 1319 if W.tv == "2.5" else 986, "load", 'with _open_file_like(f, "rb") as opened_file:'),
            (sp + "/torch/serialization.py", 659 if W.tv == "2.5" else 435, "_open_file_like", "return _open_file(name_or_buffer, mode)"),
            (sp + "/torch/serialization.py", 640 if W.tv == "2.5" else 416, "__init__", "super().__init__(open(name, mode))")]


def dcp_save_frames(W, where="plan"):
    sp = W.sp + "/torch/distributed/checkpoint"
    fr = [(sp + "/logger.py", 83 if W.tv != "2.5" else 87, "wrapper", "result = func(*args, **kwargs)"),
          (sp + "/utils.py", 427 if W.tv != "2.5" else 465, "inner_func", "return func(*args, **kwargs)"),
          (sp + "/state_dict_saver.py", 152 if W.tv != "2.5" else 165, "save", "return _save_state_dict("),
          ]
    if where == "plan":
        fr += [(sp + "/state_dict_saver.py", 357 if W.tv != "2.5" else 375, "_save_state_dict", 'central_plan: SavePlan = distW.reduce_scatter("plan", local_step, global_step)'),
               (sp + "/utils.py", 192 if W.tv != "2.5" else 195, "reduce_scatter", "all_data = self.gather_object(local_data)")]
    else:
        fr += [(sp + "/state_dict_saver.py", 369 if W.tv != "2.5" else 388, "_save_state_dict", 'return distW.all_reduce("write", write_data, finish_checkpoint)'),
               (sp + "/utils.py", 231 if W.tv != "2.5" else 235, "all_reduce", "raise final_result")]
    return fr


def dcp_load_frames(W):
    sp = W.sp + "/torch/distributed/checkpoint"
    return [(sp + "/logger.py", 83 if W.tv != "2.5" else 87, "wrapper", "result = func(*args, **kwargs)"),
            (sp + "/utils.py", 427 if W.tv != "2.5" else 465, "inner_func", "return func(*args, **kwargs)"),
            (sp + "/state_dict_loader.py", 172 if W.tv != "2.5" else 175, "load", "_load_state_dict("),
            (sp + "/state_dict_loader.py", 229 if W.tv != "2.5" else 234, "_load_state_dict", '_ = distW.all_gather("read", read_data)'),
            (sp + "/utils.py", 211 if W.tv != "2.5" else 215, "all_gather", "raise CheckpointException(step, node_failures)")]


def dcp_read_exc(W, failing, path, kind="missing"):
    """CheckpointException string as printed (ranks:dict_keys([...]) + per-rank nested tracebacks)."""
    sp = W.sp + "/torch/distributed/checkpoint"
    L = ["torch.distributed.checkpoint.api.CheckpointException: CheckpointException ranks:dict_keys(%s)" % repr(list(failing))]
    for r in failing:
        L.append("Traceback (most recent call last): (RANK %d)" % r)
        L += ['  File "%s/utils.py", line %d, in all_gather' % (sp, 200 if W.tv != "2.5" else 205), "    result = map_fun()",
              '  File "%s/logger.py", line %d, in wrapper' % (sp, 83 if W.tv != "2.5" else 87), "    result = func(*args, **kwargs)",
              '  File "%s/state_dict_loader.py", line %d, in read_data' % (sp, 225 if W.tv != "2.5" else 230), "    all_reads = storage_reader.read_data(final_local_plan, planner)",
              '  File "%s/filesystem.py", line %d, in read_data' % (sp, 626 if W.tv != "2.5" else 669), '    with self.fs.create_stream(new_path, "rb") as stream:',
              '  File "%s/contextlib.py", line 135, in __enter__' % W.stdlib, "    return next(self.gen)",
              '  File "%s/filesystem.py", line %d, in create_stream' % (sp, 371 if W.tv != "2.5" else 396), "    with cast(Path, path).open(mode) as stream:",
              '  File "%s/pathlib.py", line 1119, in open' % W.stdlib, "    return self._accessor.open(self, mode, buffering, encoding, errors,"]
        if kind == "missing":
            L.append("FileNotFoundError: [Errno 2] No such file or directory: '%s'" % path[r] if isinstance(path, dict) else "FileNotFoundError: [Errno 2] No such file or directory: '%s'" % path)
        elif kind == "stale":
            L.append("OSError: [Errno 116] Stale file handle: '%s'" % (path[r] if isinstance(path, dict) else path))
        else:
            L.append("OSError: [Errno 5] Input/output error: '%s'" % (path[r] if isinstance(path, dict) else path))
        L.append("")
    return L


def model_fwd_frames(W, arch="llama"):
    sp = W.sp
    m = "/torch/nn/modules/module.py"
    ln1, ln2 = (1511, 1520) if W.tv == "2.1" else ((1532, 1541) if W.tv == "2.3" else (1736, 1747))
    if arch == "llama":
        return [(sp + m, ln1, "_wrapped_call_impl", "return self._call_impl(*args, **kwargs)"),
                (sp + m, ln2, "_call_impl", "return forward_call(*args, **kwargs)"),
                (sp + "/transformers/models/llama/modeling_llama.py", 1189, "forward", "outputs = self.model("),
                (sp + m, ln1, "_wrapped_call_impl", "return self._call_impl(*args, **kwargs)"),
                (sp + m, ln2, "_call_impl", "return forward_call(*args, **kwargs)"),
                (sp + "/transformers/models/llama/modeling_llama.py", 945, "forward", "inputs_embeds = self.embed_tokens(input_ids)"),
                (sp + m, ln1, "_wrapped_call_impl", "return self._call_impl(*args, **kwargs)"),
                (sp + m, ln2, "_call_impl", "return forward_call(*args, **kwargs)"),
                (sp + "/torch/nn/modules/sparse.py", 163 if W.tv != "2.5" else 190, "forward", "return F.embedding("),
                (sp + "/torch/nn/functional.py", 2264 if W.tv != "2.5" else 2551, "embedding", "return torch.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)")]
    return [(sp + m, ln1, "_wrapped_call_impl", "return self._call_impl(*args, **kwargs)"),
            (sp + m, ln2, "_call_impl", "return forward_call(*args, **kwargs)")]


class HF(Framework):
    name = "hf"
    script = "train.py"

    def __init__(self, K):
        super().__init__(K)
        rng = K.rng
        self.timeout_ms = rng.choice([1800000, 1800000, 5400000 // 3, 600000])
        self.model = rng.choice(["meta-llama/Meta-Llama-3-8B", "mistralai/Mistral-7B-v0.3", "Qwen/Qwen2.5-7B", "meta-llama/Llama-2-13b-hf"])
        self.outdir = rng.choice(["/scratch/%s/runs/%s" % (K.W.user, K.W.proj), "/lustre/fsw/%s/%s/out" % (K.W.user, K.W.proj),
                                  "/nfs/home/%s/%s/output" % (K.W.user, K.W.proj)])
        self.fsdp = rng.random() < 0.5
        self.log_info = rng.random() < 0.7
        self.tf_ver = rng.choice(["4.44.2", "4.46.3", "4.41.2", "4.48.0"])
        self.entry = "/home/%s/%s/train.py" % (K.W.user, K.W.proj)

    def train_coll(self):
        if self.fsdp:
            return ("_ALLGATHER_BASE", 262668288, 262668288 * self.W.world)
        return ("ALLREDUCE", 6553600, 6553600)

    def pfx(self, t, src):
        if not self.log_info:
            return None
        return "[INFO|%s] %s >> " % (src, fmt_std(t))

    def info(self, S, t, src, msg):
        p = self.pfx(self.W.local(t, 0), src)
        if p is not None:
            S.add(t, 0, 0, p + msg, "err")

    def base_frames(self):
        sp = self.W.sp
        return [(self.entry, self.K.rng.randint(180, 320), "main", "trainer.train(resume_from_checkpoint=resume_from)"),
                (sp + "/transformers/trainer.py", 1938 if self.tf_ver < "4.45" else 2122, "train", "return inner_training_loop(")]

    def frames(self, phase, kind=None):
        sp = self.W.sp + "/transformers/trainer.py"
        b = self.base_frames()
        if phase == "save":
            fr = b + [(sp, 2356, "_inner_training_loop", "self._maybe_log_save_evaluate(tr_loss, grad_norm, model, trial, epoch, ignore_keys_for_eval)"),
                      (sp, 2807, "_maybe_log_save_evaluate", "self._save_checkpoint(model, trial, metrics=metrics)")]
            if kind == "state_json":
                return fr + [(sp, 2914, "_save_checkpoint", "self.state.save_to_json(os.path.join(output_dir, TRAINER_STATE_NAME))"),
                             (self.W.sp + "/transformers/trainer_callback.py", 143, "save_to_json", 'json_string = json.dumps(dataclasses.asdict(self), indent=2, sort_keys=True) + "\\n"')]
            if kind == "optimizer":
                return fr + [(sp, 2897, "_save_checkpoint", "self._save_optimizer_and_scheduler(output_dir)"),
                             (sp, 3013, "_save_optimizer_and_scheduler", "torch.save(self.optimizer.state_dict(), os.path.join(output_dir, OPTIMIZER_NAME))")]
            if kind == "fsdp_full":
                return fr + [(sp, 2885, "_save_checkpoint", "self.save_model(output_dir, _internal_call=True)"),
                             (sp, 3415, "save_model", "state_dict = self.accelerator.get_state_dict(self.model)"),
                             (self.W.sp + "/accelerate/accelerator.py", 3307, "get_state_dict", "state_dict = model.state_dict()")]
            return fr + [(sp, 2885, "_save_checkpoint", "self.save_model(output_dir, _internal_call=True)"),
                         (sp, 3450, "save_model", "self._save(output_dir, state_dict=state_dict)"),
                         (sp, 3525, "_save", "self.model.save_pretrained("),
                         (self.W.sp + "/transformers/modeling_utils.py", 2793, "save_pretrained", 'safe_save_file(shard, os.path.join(save_directory, shard_file), metadata={"format": "pt"})'),
                         (self.W.sp + "/safetensors/torch.py", 286, "save_file", "serialize_file(_flatten(tensors), filename, metadata=metadata)")]
        if phase == "eval":
            return b + [(sp, 2356, "_inner_training_loop", "self._maybe_log_save_evaluate(tr_loss, grad_norm, model, trial, epoch, ignore_keys_for_eval)"),
                        (sp, 2791, "_maybe_log_save_evaluate", "metrics = self._evaluate(trial, ignore_keys_for_eval)"),
                        (sp, 2748, "_evaluate", "metrics = self.evaluate(ignore_keys=ignore_keys_for_eval)"),
                        (sp, 3641, "evaluate", "output = eval_loop("),
                        (sp, 3826, "evaluation_loop", "losses, logits, labels = self.prediction_step(model, inputs, prediction_loss_only, ignore_keys=ignore_keys)"),
                        (sp, 4040, "prediction_step", "loss, outputs = self.compute_loss(model, inputs, return_outputs=True)"),
                        (sp, 3363, "compute_loss", "outputs = model(**inputs)")] + model_fwd_frames(self.W)
        if phase == "load":
            if kind == "optimizer":
                return b[:1] + [(sp, 1938 if self.tf_ver < "4.45" else 2122, "train", "return inner_training_loop("),
                                (sp, 2188, "_inner_training_loop", "self._load_optimizer_and_scheduler(resume_from_checkpoint)"),
                                (sp, 3077, "_load_optimizer_and_scheduler", "torch.load(os.path.join(checkpoint, OPTIMIZER_NAME), map_location=map_location)")]
            if kind == "missing":
                return b[:1] + [(sp, 1912, "train", "self._load_from_checkpoint(resume_from_checkpoint)"),
                                (sp, 2576, "_load_from_checkpoint", 'raise ValueError(f"Can\'t find a valid checkpoint at {resume_from_checkpoint}")')]
            return b[:1] + [(sp, 1912, "train", "self._load_from_checkpoint(resume_from_checkpoint)"),
                            (sp, 2660, "_load_from_checkpoint", "load_result = load_sharded_checkpoint("),
                            (self.W.sp + "/transformers/modeling_utils.py", 515, "load_sharded_checkpoint", "state_dict = loader(os.path.join(folder, shard_file))"),
                            (self.W.sp + "/safetensors/torch.py", 311, "load_file", 'with safe_open(filename, framework="pt", device=device) as f:')]
        if phase == "data":
            return b + [(sp, 2230, "_inner_training_loop", "for step, inputs in enumerate(epoch_iterator):"),
                        (self.W.sp + "/accelerate/data_loader.py", 550, "__iter__", "current_batch = next(dataloader_iter)")] + dataloader_frames(self.W)
        # train
        return b + [(sp, 2279, "_inner_training_loop", "tr_loss_step = self.training_step(model, inputs)"),
                    (sp, 3318, "training_step", "loss = self.compute_loss(model, inputs)"),
                    (sp, 3363, "compute_loss", "outputs = model(**inputs)")] + model_fwd_frames(self.W)

    # output --------------------------------------------------------------------
    def startup(self, S, t, resume_step):
        K, W = self.K, self.W
        rng = K.rng
        ex = rng.randint(200000, 3000000)
        self.total_steps = K.plan.total
        for r in range(W.world):
            if rng.random() < 0.15 or r == 0:
                h = W.host_of(r)
                S.add(t + sec(rng.uniform(0, 2)), h, r, "%s/transformers/training_args.py:1545: FutureWarning: `evaluation_strategy` is deprecated and will be removed in version 4.46 of 🤗 Transformers. Use `eval_strategy` instead" % W.sp)
                S.add(t + sec(rng.uniform(0, 2)), h, r, "  warnings.warn(")
        self.info(S, t + sec(3), "configuration_utils.py:733", "loading configuration file /models/%s/config.json" % self.model)
        self.info(S, t + sec(3.1), "modeling_utils.py:3553", "loading weights file /models/%s/model.safetensors.index.json" % self.model)
        S.add(t + sec(30), 0, 0, "Loading checkpoint shards: 100%%|██████████| 4/4 [00:%02d<00:00,  %.2fs/it]" % (rng.randint(5, 40), rng.uniform(1, 9)))
        if rng.random() < 0.5:
            S.add(t + sec(31), 0, 0, "`use_cache=True` is incompatible with gradient checkpointing. Setting `use_cache=False`.")
        if rng.random() < 0.3:
            S.add(t + sec(31), 0, 0, "Detected kernel version 5.4.0, which is below the recommended minimum of 5.5.0; this can cause the process to hang. It is recommended to upgrade the kernel to the minimum version or higher.")
        t2 = t + sec(40)
        if resume_step:
            self.info(S, t2 - sec(2), "trainer.py:2450", "Loading model from %s/checkpoint-%d." % (self.outdir, resume_step))
        nex = ex
        self.info(S, t2, "trainer.py:2128", "***** Running training *****")
        self.info(S, t2, "trainer.py:2129", "  Num examples = {:,}".format(nex))
        self.info(S, t2, "trainer.py:2130", "  Num Epochs = 1")
        self.info(S, t2, "trainer.py:2131", "  Instantaneous batch size per device = %d" % K.mbs)
        self.info(S, t2, "trainer.py:2134", "  Total train batch size (w. parallel, distributed & accumulation) = %d" % (K.mbs * W.world * K.gas))
        self.info(S, t2, "trainer.py:2135", "  Gradient Accumulation steps = %d" % K.gas)
        self.info(S, t2, "trainer.py:2136", "  Total optimization steps = {:,}".format(self.total_steps))
        self.info(S, t2, "trainer.py:2137", "  Number of trainable parameters = {:,}".format(rng.choice([8030261248, 7241732096, 7615616512, 13015864320])))
        if resume_step:
            self.info(S, t2, "trainer.py:2148", "  Continuing training from checkpoint, will skip to saved global_step")
            self.info(S, t2, "trainer.py:2149", "  Continuing training from epoch 0")
            self.info(S, t2, "trainer.py:2150", "  Continuing training from global step %d" % resume_step)
        return t2 + sec(2)

    def resume_lines(self, S, t, step):
        return t + sec(self.K.rng.uniform(20, 120))

    def step(self, S, t, step, el):
        K = self.K
        st = K.plan.step_time
        line = tqdm_line(step, self.total_steps, el, st)
        if K.rng.random() < 0.6:
            # in a file tqdm updates are joined with \r
            prev = tqdm_line(max(step - 1, 0), self.total_steps, el - st, st)
            line = prev + "\r" + line
        S.add(t, 0, 0, line)
        if step % (K.plan.log_every * 2) == 0:
            S.add(t + sec(0.01), 0, 0, "{'loss': %.4f, 'grad_norm': %.4f, 'learning_rate': %.4e, 'epoch': %.2f}" % (
                loss_at(K, step), K.rng.uniform(0.2, 1.6), 2e-5 * (1 - step / self.total_steps) + 1e-7, step / self.total_steps))

    def save_begin(self, S, t, step):
        self.info(S, t, "trainer.py:3503", "Saving model checkpoint to %s/checkpoint-%d" % (self.outdir, step))
        self.info(S, t + sec(0.4), "configuration_utils.py:472", "Configuration saved in %s/checkpoint-%d/config.json" % (self.outdir, step))
        self.info(S, t + sec(0.5), "configuration_utils.py:807", "Configuration saved in %s/checkpoint-%d/generation_config.json" % (self.outdir, step))

    def save_end(self, S, t, step, dur):
        self.info(S, t + sec(dur * 0.7), "modeling_utils.py:2787", "The model is bigger than the maximum size per checkpoint (5GB) and is going to be split in 4 checkpoint shards. You can find where each parameters has been saved in the index located at %s/checkpoint-%d/model.safetensors.index.json." % (self.outdir, step))
        self.info(S, t + sec(dur * 0.75), "tokenization_utils_base.py:2702", "tokenizer config file saved in %s/checkpoint-%d/tokenizer_config.json" % (self.outdir, step))
        self.info(S, t + sec(dur * 0.75), "tokenization_utils_base.py:2711", "Special tokens file saved in %s/checkpoint-%d/special_tokens_map.json" % (self.outdir, step))
        prev = step - 2 * self.K.plan.save_every
        if prev > 0:
            self.info(S, t + sec(dur), "trainer.py:3595", "Deleting older checkpoint [%s/checkpoint-%d] due to args.save_total_limit" % (self.outdir, prev))

    def eval_begin(self, S, t, step):
        self.info(S, t, "trainer.py:3819", "***** Running Evaluation *****")
        self.info(S, t, "trainer.py:3821", "  Num examples = %d" % self.K.eval_n)
        self.info(S, t, "trainer.py:3824", "  Batch size = %d" % self.K.mbs)

    def eval_end(self, S, t, step, dur):
        n = max(self.K.eval_n // (self.K.mbs * self.W.world), 1)
        S.add(t + sec(dur * 0.5), 0, 0, "\r" + tqdm_line(n // 2, n, dur * 0.5, dur / n) + "\r" + tqdm_line(n, n, dur, dur / n))
        S.add(t + sec(dur), 0, 0, "{'eval_loss': %.4f, 'eval_runtime': %.2f, 'eval_samples_per_second': %.3f, 'eval_steps_per_second': %.3f, 'epoch': %.2f}" % (
            loss_at(self.K, step) + 0.05, dur, self.K.eval_n / dur, n / dur, step / self.total_steps))

    def finish(self, S, t, step):
        K = self.K
        S.add(t, 0, 0, "\n\nTraining completed. Do not forget to share your model on huggingface.co/models =)\n\n")
        S.add(t + sec(0.1), 0, 0, "{'train_runtime': %.4f, 'train_samples_per_second': %.3f, 'train_steps_per_second': %.3f, 'train_loss': %.4f, 'epoch': 1.0}" % (
            (t - K.t0).total_seconds(), K.rng.uniform(5, 80), 1 / K.plan.step_time, loss_at(K, step // 2)))
        S.add(t + sec(0.2), 0, 0, tqdm_line(step, self.total_steps, (t - K.t0).total_seconds(), K.plan.step_time))
        self.info(S, t + sec(0.3), "trainer.py:3503", "Saving model checkpoint to %s" % self.outdir)


def dataloader_frames(W):
    sp = W.sp + "/torch/utils/data/dataloader.py"
    return [(sp, 630 if W.tv == "2.1" else 701, "__next__", "data = self._next_data()"),
            (sp, 1328 if W.tv == "2.1" else 1448, "_next_data", "idx, data = self._get_data()"),
            (sp, 1294 if W.tv == "2.1" else 1412, "_get_data", "success, data = self._try_get_data()"),
            (sp, 1145 if W.tv == "2.1" else 1256, "_try_get_data", "raise RuntimeError('DataLoader timed out after {} seconds'.format(timeout))")]


class Lightning(Framework):
    name = "lightning"
    script = "train.py"

    def __init__(self, K):
        super().__init__(K)
        rng = K.rng
        self.timeout_ms = 1800000
        self.pkg = rng.choice(["lightning.pytorch", "pytorch_lightning"])
        self.pdir = "lightning/pytorch" if self.pkg == "lightning.pytorch" else "pytorch_lightning"
        self.fdir = "lightning/fabric" if self.pkg == "lightning.pytorch" else "lightning_fabric"
        self.ckdir = rng.choice(["/checkpoint/%s/%s" % (K.W.user, K.W.proj), "/scratch/%s/%s/checkpoints" % (K.W.user, K.W.proj),
                                 "/home/%s/%s/lightning_logs/version_%d/checkpoints" % (K.W.user, K.W.proj, rng.randint(0, 40))])
        self.strategy = rng.choice(["ddp", "ddp", "fsdp"])
        self.entry = "/home/%s/%s/train.py" % (K.W.user, K.W.proj)
        self.vnum = rng.randint(0, 30)
        self.epoch_len = rng.choice([500, 1000, 2000, 2500])

    def train_coll(self):
        if self.strategy == "fsdp":
            return ("_ALLGATHER_BASE", 131334144, 131334144 * self.W.world)
        return ("ALLREDUCE", 6553600, 6553600)

    def f(self, rel):
        return self.W.sp + "/" + self.pdir + "/" + rel

    def base_frames(self):
        return [(self.entry, self.K.rng.randint(90, 200), "main", "trainer.fit(model, datamodule=dm, ckpt_path=ckpt_path)"),
                (self.f("trainer/trainer.py"), 538, "fit", "call._call_and_handle_interrupt("),
                (self.f("trainer/call.py"), 47, "_call_and_handle_interrupt", "return trainer_fn(*args, **kwargs)"),
                (self.f("trainer/trainer.py"), 574, "_fit_impl", "self._run(model, ckpt_path=ckpt_path)")]

    def loop_frames(self):
        return self.base_frames() + [
            (self.f("trainer/trainer.py"), 981, "_run", "results = self._run_stage()"),
            (self.f("trainer/trainer.py"), 1025, "_run_stage", "self.fit_loop.run()"),
            (self.f("loops/fit_loop.py"), 205, "run", "self.advance()"),
            (self.f("loops/fit_loop.py"), 363, "advance", "self.epoch_loop.run(self._data_fetcher)"),
            (self.f("loops/training_epoch_loop.py"), 140, "run", "self.advance(data_fetcher)")]

    def frames(self, phase, kind=None):
        W = self.W
        if phase == "save":
            fr = self.loop_frames() + [
                (self.f("loops/training_epoch_loop.py"), 269, "advance", 'call._call_callback_hooks(trainer, "on_train_batch_end", batch_output, batch, batch_idx)'),
                (self.f("trainer/call.py"), 218, "_call_callback_hooks", "fn(trainer, trainer.lightning_module, *args, **kwargs)"),
                (self.f("callbacks/model_checkpoint.py"), 316, "on_train_batch_end", "self._save_topk_checkpoint(trainer, monitor_candidates)"),
                (self.f("callbacks/model_checkpoint.py"), 387, "_save_topk_checkpoint", "self._save_none_monitor_checkpoint(trainer, monitor_candidates)"),
                (self.f("callbacks/model_checkpoint.py"), 720, "_save_none_monitor_checkpoint", "self._save_checkpoint(trainer, filepath)"),
                (self.f("callbacks/model_checkpoint.py"), 390, "_save_checkpoint", "trainer.save_checkpoint(filepath, self.save_weights_only)"),
                (self.f("trainer/trainer.py"), 1370, "save_checkpoint", "checkpoint = self._checkpoint_connector.dump_checkpoint(weights_only)" if kind == "fsdp_full" else "self.strategy.save_checkpoint(checkpoint, filepath, storage_options=storage_options)")]
            if kind == "fsdp_full":
                return fr + [(self.f("trainer/connectors/checkpoint_connector.py"), 439, "dump_checkpoint", '"state_dict": self._get_lightning_module_state_dict(),'),
                             (self.f("trainer/connectors/checkpoint_connector.py"), 500, "_get_lightning_module_state_dict", "return self.trainer.strategy.lightning_module_state_dict()"),
                             (self.f("strategies/fsdp.py"), 532, "lightning_module_state_dict", "return self.model.state_dict()")]
            return fr + [(self.f("strategies/strategy.py"), 489, "save_checkpoint", "self.checkpoint_io.save_checkpoint(checkpoint, filepath, storage_options=storage_options)"),
                         (W.sp + "/" + self.fdir + "/plugins/io/torch_io.py", 58, "save_checkpoint", "_atomic_save(checkpoint, path)"),
                         (W.sp + "/" + self.fdir + "/utilities/cloud_io.py", 89, "_atomic_save", "f.write(bytesbuffer.getvalue())")]
        if phase == "eval":
            return self.loop_frames() + [
                (self.f("loops/training_epoch_loop.py"), 295, "on_advance_end", "self.val_loop.run()"),
                (self.f("loops/utilities.py"), 179, "_decorator", "return loop_run(self, *args, **kwargs)"),
                (self.f("loops/evaluation_loop.py"), 135, "run", "self._evaluation_step(batch, batch_idx, dataloader_idx, dataloader_iter)"),
                (self.f("loops/evaluation_loop.py"), 396, "_evaluation_step", "output = call._call_strategy_hook(trainer, hook_name, *step_args)"),
                (self.f("trainer/call.py"), 311, "_call_strategy_hook", "output = fn(*args, **kwargs)"),
                (self.f("strategies/strategy.py"), 411, "validation_step", "return self._forward_redirection(self.model, self.lightning_module, \"validation_step\", *args, **kwargs)"),
                (self.entry.replace("train.py", "model.py"), self.K.rng.randint(60, 220), "validation_step", "logits = self.model(batch[\"input_ids\"])")] + model_fwd_frames(W, "x")
        if phase == "load":
            fr = self.base_frames() + [(self.f("trainer/trainer.py"), 955, "_run", "self._checkpoint_connector._restore_modules_and_callbacks(ckpt_path)"),
                                        (self.f("trainer/connectors/checkpoint_connector.py"), 397, "_restore_modules_and_callbacks", "self.resume_start(checkpoint_path)")]
            if kind == "state_dict":
                return self.base_frames() + [(self.f("trainer/trainer.py"), 955, "_run", "self._checkpoint_connector._restore_modules_and_callbacks(ckpt_path)"),
                                             (self.f("trainer/connectors/checkpoint_connector.py"), 409, "_restore_modules_and_callbacks", "self.restore_model()"),
                                             (self.f("trainer/connectors/checkpoint_connector.py"), 279, "restore_model", "self.trainer.strategy.load_model_state_dict("),
                                             (self.f("strategies/strategy.py"), 372, "load_model_state_dict", 'self.lightning_module.load_state_dict(checkpoint["state_dict"], strict=strict)'),
                                             (W.sp + "/torch/nn/modules/module.py", 2152 if W.tv == "2.1" else 2584, "load_state_dict", "raise RuntimeError('Error(s) in loading state_dict for {}:\\n\\t{}'.format(")]
            return fr + [(self.f("trainer/connectors/checkpoint_connector.py"), 83, "resume_start", "loaded_checkpoint = self.trainer.strategy.load_checkpoint(checkpoint_path)"),
                         (self.f("strategies/strategy.py"), 363, "load_checkpoint", "return self.checkpoint_io.load_checkpoint(checkpoint_path)"),
                         (W.sp + "/" + self.fdir + "/plugins/io/torch_io.py", 83, "load_checkpoint", "return pl_load(path, map_location=map_location)"),
                         (W.sp + "/" + self.fdir + "/utilities/cloud_io.py", 56, "_load", "return torch.load(")]
        if phase == "data":
            return self.loop_frames() + [(self.f("loops/training_epoch_loop.py"), 212, "advance", "batch, _, __ = next(data_fetcher)"),
                                         (self.f("loops/fetchers.py"), 133, "__next__", "batch = super().__next__()"),
                                         (self.f("loops/fetchers.py"), 60, "__next__", "batch = next(self.iterator)"),
                                         (self.f("utilities/combined_loader.py"), 341, "__next__", "out = next(self._iterator)"),
                                         (self.f("utilities/combined_loader.py"), 78, "__next__", "out[i] = next(self.iterators[i])")] + dataloader_frames(W)
        return self.loop_frames() + [
            (self.f("loops/training_epoch_loop.py"), 250, "advance", "batch_output = self.automatic_optimization.run(trainer.optimizers[0], batch_idx, kwargs)"),
            (self.f("loops/optimization/automatic.py"), 190, "run", "self._optimizer_step(batch_idx, closure)"),
            (self.f("loops/optimization/automatic.py"), 268, "_optimizer_step", "call._call_lightning_module_hook("),
            (self.f("core/module.py"), 1306, "optimizer_step", "optimizer.step(closure=optimizer_closure)"),
            (self.f("loops/optimization/automatic.py"), 144, "__call__", "self._result = self.closure(*args, **kwargs)"),
            (self.f("loops/optimization/automatic.py"), 129, "closure", "step_output = self._step_fn()"),
            (self.entry.replace("train.py", "model.py"), self.K.rng.randint(60, 220), "training_step", "logits = self.model(batch[\"input_ids\"])")] + model_fwd_frames(W, "x")

    # output --------------------------------------------------------------------
    def startup(self, S, t, resume_step, requeue=True):
        K, W = self.K, self.W
        rng = K.rng
        S.add(t, 0, 0, "Using 16bit Automatic Mixed Precision (AMP)" if rng.random() < 0.3 else "Using bfloat16 Automatic Mixed Precision (AMP)")
        S.add(t, 0, 0, "GPU available: True (cuda), used: True")
        S.add(t, 0, 0, "TPU available: False, using: 0 TPU cores")
        S.add(t, 0, 0, "HPU available: False, using: 0 HPUs")
        for r in range(W.world):
            S.add(t + sec(rng.uniform(1, 6)), W.host_of(r), r, "Initializing distributed: GLOBAL_RANK: %d, MEMBER: %d/%d" % (r, r + 1, W.world))
        t2 = t + sec(8)
        S.add(t2, 0, 0, "-" * 100 + "\ndistributed_backend=nccl\nAll distributed processes registered. Starting with %d processes\n" % W.world + "-" * 100 + "\n")
        if requeue:
            S.add(t2, 0, 0, "SLURM auto-requeueing enabled. Setting signal handlers.")
        if rng.random() < 0.5:
            S.add(t2, 0, 0, "You are using a CUDA device ('%s') that has Tensor Cores. To properly utilize them, you should set `torch.set_float32_matmul_precision('medium' | 'high')` which will trade-off precision for performance. For more details, read https://pytorch.org/docs/stable/generated/torch.set_float32_matmul_precision.html#torch.set_float32_matmul_precision" % W.gpu[0])
        if rng.random() < 0.5:
            S.add(t2, 0, 0, "%s/%s/callbacks/model_checkpoint.py:654: Checkpoint directory %s exists and is not empty." % (W.sp, self.pdir, self.ckdir))
        for r in range(W.world):
            S.add(t2 + sec(rng.uniform(0, 1)), W.host_of(r), r, "LOCAL_RANK: %d - CUDA_VISIBLE_DEVICES: [%s]" % (W.lr(r), ",".join(str(i) for i in range(W.gpn))))
        p = rng.choice(["1.3 B", "350 M", "2.7 B", "774 M"])
        S.add(t2 + sec(2), 0, 0, "\n  | Name  | Type | Params | Mode \n----------------------------------------\n0 | model | GPT  | %s  | train\n----------------------------------------\n%s     Trainable params\n0         Non-trainable params\n%s     Total params\n%s Total estimated model params size (MB)\n" % (p, p, p, "{:,.3f}".format(rng.uniform(1400, 11000))))
        return t2 + sec(4)

    def resume_lines(self, S, t, step, path=None):
        path = path or "%s/last.ckpt" % self.ckdir
        S.add(t, 0, 0, "Restoring states from the checkpoint path at %s" % path)
        t2 = t + sec(self.K.rng.uniform(15, 90))
        S.add(t2, 0, 0, "Restored all states from the checkpoint at %s" % path)
        return t2

    def step(self, S, t, step, el):
        K = self.K
        e = step // self.epoch_len
        i = step % self.epoch_len
        post = ", v_num=%d, train_loss=%.3f]" % (self.vnum, loss_at(K, step))
        ln = tqdm_line(i, self.epoch_len, i * K.plan.step_time, K.plan.step_time, prefix="Epoch %d: " % e)
        ln = ln[:-1] + post
        S.add(t, 0, 0, "\r" + ln if K.rng.random() < 0.7 else ln)

    def save_begin(self, S, t, step):
        pass

    def save_end(self, S, t, step, dur):
        K = self.K
        if K.rng.random() < 0.5:
            vl = loss_at(K, step)
            S.add(t + sec(dur), 0, 0, "Epoch %d, global step %d: 'val_loss' reached %.5f (best %.5f), saving model to '%s/epoch=%d-step=%d.ckpt' as top 3" % (
                step // self.epoch_len, step, vl, vl, self.ckdir, step // self.epoch_len, step))
        else:
            S.add(t + sec(dur), 0, 0, "Epoch %d, global step %d: 'val_loss' was not in top 3" % (step // self.epoch_len, step))

    def eval_begin(self, S, t, step):
        n = max(self.K.eval_n // (self.K.mbs * self.W.world), 2)
        S.add(t, 0, 0, "\rValidation: |          | 0/? [00:00<?, ?it/s]\rValidation:   0%%|          | 0/%d [00:00<?, ?it/s]\rValidation DataLoader 0:   0%%|          | 0/%d [00:00<?, ?it/s]" % (n, n))

    def eval_end(self, S, t, step, dur):
        n = max(self.K.eval_n // (self.K.mbs * self.W.world), 2)
        S.add(t + sec(dur), 0, 0, "\r" + tqdm_line(n, n, dur, dur / n, prefix="Validation DataLoader 0: "))

    def finish(self, S, t, step):
        S.add(t, 0, 0, "`Trainer.fit` stopped: `max_steps=%d` reached." % step)

    def requeue_lines(self, S, t, jobid):
        W = self.W
        S.add(t, 0, 0, "Handling auto-requeue signal: 10")
        S.add(t + sec(25), 0, 0, "requeing job %s..." % jobid)
        S.add(t + sec(26), 0, 0, "Requeued SLURM job: %s" % jobid)
        return t + sec(27)


class Megatron(Framework):
    name = "megatron"
    script = "pretrain_gpt.py"
    progress_rank = -1

    def __init__(self, K):
        super().__init__(K)
        rng = K.rng
        W = K.W
        self.timeout_ms = rng.choice([600000, 600000, 1800000])
        self.tp = rng.choice([t for t in (1, 2, 4, 8) if t <= W.gpn])
        self.pp = rng.choice([p for p in (1, 2, 4) if p <= W.nnodes])
        self.dp = W.world // (self.tp * self.pp)
        self.root = rng.choice(["/workspace/Megatron-LM", "/opt/megatron-lm", "/lustre/fsw/%s/Megatron-LM" % W.user])
        self.save = rng.choice(["/lustre/fsw/%s/%s/checkpoints" % (W.user, W.proj), "/lustre/scratch/%s/ckpt/%s" % (W.user, W.proj),
                                "/gpfs/%s/%s/ckpt" % (W.user, W.proj)])
        self.fmt = rng.choice(["torch_dist", "torch_dist", "torch"])
        self.async_save = self.fmt == "torch_dist" and rng.random() < 0.4
        self.gbs = rng.choice([256, 512, 1024, 1536])
        self.train_iters = K.plan.total

    def train_coll(self):
        return rng_choice_fixed(self.K, [("_REDUCE_SCATTER_BASE", 98566144 * self.dp, 98566144), ("_ALLGATHER_BASE", 98566144, 98566144 * self.dp),
                                         ("ALLREDUCE", 1, 1)])

    def frames(self, phase, kind=None):
        W = self.W
        mt = self.root + "/megatron/training"
        mc = self.root + "/megatron/core"
        base = [(self.root + "/pretrain_gpt.py", 278, "<module>", "pretrain("),
                (mt + "/training.py", 375, "pretrain", "iteration, num_floating_point_operations_so_far = train(")]
        if phase == "save":
            fr = base + [(mt + "/training.py", 1423, "train", "save_checkpoint_and_time(iteration, model, optimizer,"),
                         (mt + "/training.py", 1102, "save_checkpoint_and_time", "save_checkpoint(iteration, model, optimizer, opt_param_scheduler,"),
                         ]
            if self.fmt == "torch" or kind == "torch_save":
                return fr + [(mt + "/checkpointing.py", 437, "save_checkpoint", "torch.save(state_dict, checkpoint_name)")]
            return fr + [(mt + "/checkpointing.py", 401, "save_checkpoint", "async_save_request = dist_checkpointing.save(state_dict, checkpoint_name, save_strategy,"),
                         (mc + "/dist_checkpointing/serialization.py", 394, "save", "sharded_strategy.save(sharded_state_dict, checkpoint_dir)"),
                         (mc + "/dist_checkpointing/strategies/base.py", 228, "save", "async_request = self.async_save(sharded_state_dict, checkpoint_dir)"),
                         (mc + "/dist_checkpointing/strategies/torch.py", 657, "async_save", "save_state_dict_ret = save_state_dict_async_plan("),
                         (mc + "/dist_checkpointing/strategies/state_dict_saver.py", 119, "save_state_dict_async_plan", 'central_plan = dist_wrapper.reduce_scatter("plan", local_step, global_step)')]
        if phase == "eval":
            return base + [(mt + "/training.py", 1461, "train", "evaluate_and_print_results(prefix, forward_step_func,"),
                           (mt + "/training.py", 1580, "evaluate_and_print_results", "total_loss_dict, collected_non_loss_data, timelimit = evaluate("),
                           (mt + "/training.py", 1500, "evaluate", "loss_dicts = forward_backward_func("),
                           (mc + "/pipeline_parallel/schedules.py", 432, "forward_backward_no_pipelining", "output_tensor, num_tokens = forward_step("),
                           (mc + "/pipeline_parallel/schedules.py", 258, "forward_step", "output_tensor, loss_func = forward_step_func(data_iterator, model)"),
                           (self.root + "/pretrain_gpt.py", 200, "forward_step", "output_tensor = model(tokens, position_ids, attention_mask,")] + model_fwd_frames(W, "x")
        if phase == "load":
            fr = [(self.root + "/pretrain_gpt.py", 278, "<module>", "pretrain("),
                  (mt + "/training.py", 289, "pretrain", "model, optimizer, opt_param_scheduler = setup_model_and_optimizer("),
                  (mt + "/training.py", 722, "setup_model_and_optimizer", "args.iteration, args.num_floating_point_operations_so_far = load_checkpoint("),
                  (mt + "/checkpointing.py", 1090, "load_checkpoint", "state_dict, checkpoint_name, release = _load_base_checkpoint(")]
            if self.fmt == "torch" or kind == "torch_load":
                return fr + [(mt + "/checkpointing.py", 925, "_load_base_checkpoint", "state_dict = torch.load(checkpoint_name, map_location='cpu')")]
            return fr + [(mt + "/checkpointing.py", 872, "_load_base_checkpoint", "state_dict = dist_checkpointing.load(sharded_state_dict, checkpoint_name, load_strategy, strict=args.dist_ckpt_strictness)"),
                         (mc + "/dist_checkpointing/serialization.py", 126, "load", "loaded_state_dict = sharded_strategy.load(sharded_state_dict, checkpoint_dir)"),
                         (mc + "/dist_checkpointing/strategies/torch.py", 785, "load", "checkpoint.load_state_dict(")] + dcp_load_frames(W)[2:]
        if phase == "data":
            return base + [(mt + "/training.py", 1352, "train", "train_step(forward_step_func,"),
                           (mt + "/training.py", 760, "train_step", "losses_reduced = forward_backward_func("),
                           (mc + "/pipeline_parallel/schedules.py", 432, "forward_backward_no_pipelining", "output_tensor, num_tokens = forward_step("),
                           (mc + "/pipeline_parallel/schedules.py", 258, "forward_step", "output_tensor, loss_func = forward_step_func(data_iterator, model)"),
                           (self.root + "/pretrain_gpt.py", 186, "forward_step", "tokens, labels, loss_mask, attention_mask, position_ids = get_batch("),
                           (self.root + "/pretrain_gpt.py", 120, "get_batch", "batch = get_batch_on_this_tp_rank(data_iterator)"),
                           (mt + "/utils.py", 283, "get_batch_on_this_tp_rank", "data = next(data_iterator)")] + dataloader_frames(W)
        return base + [(mt + "/training.py", 1352, "train", "train_step(forward_step_func,"),
                       (mt + "/training.py", 760, "train_step", "losses_reduced = forward_backward_func("),
                       (mc + "/pipeline_parallel/schedules.py", 432, "forward_backward_no_pipelining", "output_tensor, num_tokens = forward_step("),
                       (mc + "/pipeline_parallel/schedules.py", 258, "forward_step", "output_tensor, loss_func = forward_step_func(data_iterator, model)"),
                       (self.root + "/pretrain_gpt.py", 200, "forward_step", "output_tensor = model(tokens, position_ids, attention_mask,")] + model_fwd_frames(W, "x")

    def startup(self, S, t, resume_step):
        K, W = self.K, self.W
        rng = K.rng
        S.add(t, 0, 0, "using world size: %d, data-parallel size: %d, context-parallel size: 1, tensor-model-parallel size: %d, pipeline-model-parallel size: %d " % (W.world, self.dp, self.tp, self.pp))
        S.add(t, 0, 0, "using torch.bfloat16 for parameters ...")
        S.add(t, 0, 0, "------------------------ arguments ------------------------")
        args = [("async_save", str(self.async_save)), ("ckpt_format", self.fmt), ("data_parallel_size", str(self.dp)),
                ("distributed_timeout_minutes", str(self.timeout_ms // 60000)), ("eval_interval", str(K.plan.eval_every)),
                ("eval_iters", str(rng.choice([10, 20, 50]))), ("global_batch_size", str(self.gbs)), ("load", self.save),
                ("log_interval", str(K.plan.log_every)), ("micro_batch_size", str(K.mbs)), ("save", self.save),
                ("save_interval", str(K.plan.save_every)), ("seq_length", str(rng.choice([2048, 4096, 8192]))),
                ("tensor_model_parallel_size", str(self.tp)), ("pipeline_model_parallel_size", str(self.pp)),
                ("timing_log_level", str(K.timing_level)), ("train_iters", str(self.train_iters)),
                ("use_dist_ckpt", str(self.fmt == "torch_dist")), ("world_size", str(W.world))]
        for k, v in args:
            S.add(t, 0, 0, "  %s %s %s" % (k, "." * max(2, 48 - len(k)), v))
        S.add(t, 0, 0, "-------------------- end of arguments ---------------------")
        S.add(t + sec(1), 0, 0, "> building GPT2BPETokenizer tokenizer ...\n > padded vocab (size: 50257) with %d dummy tokens (new size: %d)" % (
            50304 // self.tp * self.tp - 50257 if 50304 % self.tp == 0 else 47, 50304))
        S.add(t + sec(2), 0, 0, "> initializing torch distributed ...\n> initialized tensor model parallel with size %d\n> initialized pipeline model parallel with size %d\n> setting random seeds to 1234 ..." % (self.tp, self.pp))
        S.add(t + sec(3), 0, 0, "> compiling dataset index builder ...\n>>> done with dataset index builder. Compilation time: %.3f seconds" % rng.uniform(0.05, 2))
        S.add(t + sec(30), 0, 0, "time to initialize megatron (seconds): %.3f" % rng.uniform(20, 90))
        S.add(t + sec(30), 0, 0, "[after megatron is initialized] datetime: %s " % W.local(t + sec(30), 0).strftime("%Y-%m-%d %H:%M:%S"))
        S.add(t + sec(31), 0, 0, "building GPT model ...")
        for r in range(min(self.tp * self.pp, 8)):
            S.add(t + sec(33), W.host_of(r), r, " > number of parameters on (tensor, pipeline) model parallel rank (%d, %d): %d" % (r % self.tp, r // self.tp, rng.randint(300000000, 2200000000)))
        return t + sec(35)

    def load_ok(self, S, t, step):
        W = self.W
        S.add(t, 0, 0, " loading checkpoint from %s at iteration %d" % (self.save, step))
        d = self.K.rng.uniform(20, 240)
        S.add(t + sec(d), 0, 0, " successfully loaded checkpoint from %s [ t %d/%d, p %d/%d ] at iteration %d" % (self.save, 0, self.tp, 0, self.pp, step))
        S.add(t + sec(d + 1), 0, 0, "(min, max) time across ranks (ms):\n    load-checkpoint ................................: (%.2f, %.2f)" % (d * 1000 - 30, d * 1000))
        return t + sec(d + 2)

    def after_setup(self, S, t):
        W = self.W
        S.add(t, 0, 0, "[after model, optimizer, and learning rate scheduler are built] datetime: %s " % W.local(t, 0).strftime("%Y-%m-%d %H:%M:%S"))
        S.add(t + sec(1), 0, 0, "> building train, validation, and test datasets ...")
        S.add(t + sec(9), 0, 0, "[after dataloaders are built] datetime: %s " % W.local(t + sec(9), 0).strftime("%Y-%m-%d %H:%M:%S"))
        S.add(t + sec(9), 0, 0, "done with setup ...\ntraining ...")
        S.add(t + sec(10), 0, 0, "[before the start of training step] datetime: %s " % W.local(t + sec(10), 0).strftime("%Y-%m-%d %H:%M:%S"))
        return t + sec(10)

    def step(self, S, t, step, el, slow=None):
        K, W = self.K, self.W
        last = W.world - 1
        h = W.host_of(last)
        ms = getattr(K, "cur_st", K.plan.step_time) * 1000 * K.rng.uniform(0.99, 1.01)
        tfl = K.tflops * (K.plan.step_time * 1000 / ms)
        S.add(t, h, last, " [%s] iteration %8d/%8d | consumed samples: %12d | elapsed time per iteration (ms): %.1f | throughput per GPU (TFLOP/s/GPU): %.1f | learning rate: %.6E | global batch size: %5d | lm loss: %.6E | loss scale: 1.0 | grad norm: %.3f | number of skipped iterations:   0 | number of nan iterations:   0 |" % (
            W.local(t, h).strftime("%Y-%m-%d %H:%M:%S"), step, self.train_iters, step * self.gbs, ms, tfl, 3e-4 * min(1, step / 2000.0), self.gbs, loss_at(K, step), K.rng.uniform(0.15, 0.9)))
        if K.timing_level >= 1 or slow:
            fb = ms * 0.9
            if slow:
                lo = K.plan.step_time * 1000 * 0.9 * K.rng.uniform(0.97, 1.02)
                hi = fb * K.rng.uniform(0.98, 1.0)
            else:
                lo, hi = fb, fb * K.rng.uniform(1.0, 1.02)
            S.add(t + sec(0.01), 0, 0, "(min, max) time across ranks (ms):\n    forward-backward ...............................: (%.2f, %.2f)\n    optimizer ......................................: (%.2f, %.2f)" % (
                lo, hi, ms * 0.05, ms * 0.051))

    def save_begin(self, S, t, step):
        S.add(t, 0, 0, "saving checkpoint at iteration %7d to %s in %s format" % (step, self.save, self.fmt))
        if self.fmt == "torch_dist":
            S.add(t + sec(0.1), 0, 0, "Storing distributed optimizer sharded state of type fully_sharded_model_space")

    def save_end(self, S, t, step, dur):
        if self.async_save:
            S.add(t + sec(2), 0, 0, "  scheduled an async checkpoint save at iteration %7d to %s" % (step, self.save))
            S.add(t + sec(dur), 0, 0, "  successfully saved checkpoint from iteration %7d to %s" % (step, self.save))
        else:
            S.add(t + sec(dur), 0, 0, "  successfully saved checkpoint from iteration %7d to %s [ t %d/%d, p %d/%d ]" % (step, self.save, 1, self.tp, 1, self.pp))
        S.add(t + sec(dur + 0.1), 0, 0, "(min, max) time across ranks (ms):\n    save-checkpoint ................................: (%.2f, %.2f)" % (dur * 1000 - self.K.rng.uniform(5, 900), dur * 1000))

    def eval_begin(self, S, t, step):
        pass

    def eval_end(self, S, t, step, dur):
        K, W = self.K, self.W
        last = W.world - 1
        h = W.host_of(last)
        l = loss_at(K, step) + 0.04
        s = " validation loss at iteration %d | lm loss value: %.6E | lm loss PPL: %.6E | " % (step, l, pow(2.718281828, l))
        S.add(t + sec(dur), h, last, "-" * (len(s) + 1) + "\n" + s + "\n" + "-" * (len(s) + 1))

    def finish(self, S, t, step):
        S.add(t, 0, 0, "[after training is done] datetime: %s " % self.W.local(t, 0).strftime("%Y-%m-%d %H:%M:%S"))


def rng_choice_fixed(K, items):
    if not hasattr(K, "_fixed"):
        K._fixed = {}
    key = id(items[0][0])
    if key not in K._fixed:
        K._fixed[key] = K.rng.choice(items)
    return K._fixed[key]


class DeepSpeed(Framework):
    name = "deepspeed"
    script = "train.py"

    def __init__(self, K):
        super().__init__(K)
        rng = K.rng
        W = K.W
        self.timeout_ms = 1800000
        self.ver = rng.choice(["0.14.4", "0.15.1", "0.13.5", "0.16.2"])
        self.stage = rng.choice([2, 3, 3])
        self.save = rng.choice(["/nfs/shared/%s/%s/ckpt" % (W.user, W.proj), "/mnt/data/%s/checkpoints" % W.proj, "/home/%s/%s/output" % (W.user, W.proj)])
        self.entry = "/home/%s/%s/train.py" % (W.user, W.proj)
        self.dtype = rng.choice(["bf16", "bf16", "fp16"])

    def train_coll(self):
        if self.stage == 3:
            return ("_ALLGATHER_BASE", 54001664, 54001664 * self.W.world)
        return ("_REDUCE_SCATTER_BASE", 500000000, 500000000 // self.W.world)

    def ds(self, t, h, lvl, src, msg):
        return "[%s] [%s] [%s] %s" % (fmt_std(self.W.local(t, h)), lvl, src, msg)

    def zname(self, r):
        if self.stage == 3:
            return "zero_pp_rank_%d_mp_rank_00_model_states.pt" % r, "%s_zero_pp_rank_%d_mp_rank_00_optim_states.pt" % (self.dtype, r)
        return "mp_rank_00_model_states.pt", "%s_zero_pp_rank_%d_mp_rank_00_optim_states.pt" % (self.dtype, r)

    def frames(self, phase, kind=None):
        W = self.W
        eng = W.sp + "/deepspeed/runtime/engine.py"
        tce = W.sp + "/deepspeed/runtime/checkpoint_engine/torch_checkpoint_engine.py"
        if phase == "save":
            fr = [(self.entry, self.K.rng.randint(250, 340), "main", 'model_engine.save_checkpoint(args.output_dir, tag=f"global_step{step}")'),
                  (eng, 3146, "save_checkpoint", "self._save_zero_checkpoint(save_dir, tag)" if kind != "model" else "self._save_checkpoint(save_dir,"),
                  (eng, 3466 if kind != "model" else 3354, "_save_zero_checkpoint" if kind != "model" else "_save_checkpoint",
                   "self.checkpoint_engine.save(zero_sd, zero_checkpoint_name)" if kind != "model" else "self.checkpoint_engine.save(state, save_path)"),
                  (tce, 22, "save", "torch.save(state_dict, path)")]
            return fr
        if phase == "load":
            return [(self.entry, self.K.rng.randint(150, 240), "main", "_, client_state = model_engine.load_checkpoint(args.output_dir)"),
                    (eng, 2781, "load_checkpoint", "success = self._load_zero_checkpoint(load_dir, tag, load_optimizer_states=load_optimizer_states)"),
                    (eng, 2969, "_load_zero_checkpoint", "zero_sd_list = self._get_all_zero_checkpoints(load_dir, tag)"),
                    (eng, 3053, "_get_all_zero_checkpoints", "return self._get_all_zero_checkpoint_state_dicts(zero_ckpt_names)"),
                    (eng, 3031, "_get_all_zero_checkpoint_state_dicts", "_state = self.checkpoint_engine.load("),
                    (tce, 28, "load", "partition = torch.load(path, map_location=map_location)")]
        if phase == "eval":
            return [(self.entry, self.K.rng.randint(340, 420), "main", "eval_loss = evaluate(model_engine, eval_loader)"),
                    (self.entry, self.K.rng.randint(60, 110), "evaluate", "outputs = model_engine(**batch)"),
                    (W.sp + "/deepspeed/utils/nvtx.py", 18, "wrapped_fn", "ret_val = func(*args, **kwargs)"),
                    (eng, 1899, "forward", "loss = self.module(*inputs, **kwargs)")] + model_fwd_frames(W)
        if phase == "data":
            return [(self.entry, self.K.rng.randint(250, 330), "main", "for step, batch in enumerate(train_loader, start=start_step):")] + dataloader_frames(W)
        return [(self.entry, self.K.rng.randint(250, 330), "main", "outputs = model_engine(**batch)"),
                (W.sp + "/deepspeed/utils/nvtx.py", 18, "wrapped_fn", "ret_val = func(*args, **kwargs)"),
                (eng, 1899, "forward", "loss = self.module(*inputs, **kwargs)")] + model_fwd_frames(W)

    def startup(self, S, t, resume_step):
        K, W = self.K, self.W
        rng = K.rng
        for h in range(W.nnodes):
            tt = t + sec(rng.uniform(0, 3))
            S.add(tt, h, None, self.ds(tt, h, "INFO", "real_accelerator.py:203:get_accelerator", "Setting ds_accelerator to cuda (auto detect)"))
            S.add(tt + sec(1), h, None, self.ds(tt, h, "INFO", "launch.py:146:main", "WORLD INFO DICT: {%s}" % ", ".join("'%s': [%s]" % (x, ", ".join(str(i) for i in range(W.gpn))) for x in W.hosts)))
            S.add(tt + sec(1), h, None, self.ds(tt, h, "INFO", "launch.py:152:main", "nnodes=%d, num_local_procs=%d, node_rank=%d" % (W.nnodes, W.gpn, h)))
            S.add(tt + sec(1), h, None, self.ds(tt, h, "INFO", "launch.py:164:main", "dist_world_size=%d" % W.world))
            S.add(tt + sec(1), h, None, self.ds(tt, h, "INFO", "launch.py:166:main", "Setting CUDA_VISIBLE_DEVICES=%s" % ",".join(str(i) for i in range(W.gpn))))
            for r in W.ranks_on(h):
                if rng.random() < 0.3:
                    S.add(tt + sec(5), h, r, self.ds(tt + sec(5), h, "INFO", "comm.py:652:init_distributed", "cdb=None"))
        tt = t + sec(12)
        S.add(tt, 0, 0, self.ds(tt, 0, "INFO", "comm.py:683:init_distributed", "Initializing TorchBackend in DeepSpeed with backend nccl"))
        S.add(tt + sec(20), 0, 0, self.ds(tt + sec(20), 0, "INFO", "logging.py:96:log_dist", "[Rank 0] DeepSpeed info: version=%s, git-hash=unknown, git-branch=unknown" % self.ver))
        S.add(tt + sec(21), 0, 0, self.ds(tt + sec(21), 0, "INFO", "logging.py:96:log_dist", "[Rank 0] Creating %s ZeRO stage %d optimizer" % (self.dtype, self.stage)))
        if self.stage == 3:
            S.add(tt + sec(30), 0, 0, self.ds(tt + sec(30), 0, "INFO", "utils.py:781:see_memory_usage", "Stage 3 initialize beginning"))
        return tt + sec(40)

    def load_ok(self, S, t, step):
        W = self.W
        d = self.K.rng.uniform(30, 200)
        for r in range(W.world):
            h = W.host_of(r)
            m, o = self.zname(r)
            tt = t + sec(self.K.rng.uniform(0, d))
            S.add(tt, h, r, self.ds(tt, h, "INFO", "torch_checkpoint_engine.py:27:load", "[Torch] Loading checkpoint from %s/global_step%d/%s..." % (self.save, step, o)))
            S.add(tt + sec(3), h, r, self.ds(tt + sec(3), h, "INFO", "torch_checkpoint_engine.py:29:load", "[Torch] Loaded checkpoint from %s/global_step%d/%s." % (self.save, step, o)))
        S.add(t + sec(d), 0, 0, self.ds(t + sec(d), 0, "INFO", "engine.py:3023:_get_all_zero_checkpoint_state_dicts", "successfully read %d ZeRO state_dicts for rank 0" % W.world))
        S.add(t + sec(d + 1), 0, 0, self.ds(t + sec(d + 1), 0, "INFO", "engine.py:2955:_load_zero_checkpoint", "loading %d zero partition checkpoints for rank 0" % W.world))
        return t + sec(d + 2)

    def step(self, S, t, step, el):
        K, W = self.K, self.W
        S.add(t, 0, 0, self.ds(t, 0, "INFO", "logging.py:96:log_dist", "[Rank 0] step=%d, skipped=0, lr=[%.6e], mom=[(0.9, 0.95)]" % (step, 1e-4 * (1 - step / K.plan.total) + 1e-6)))
        S.add(t + sec(0.01), 0, 0, self.ds(t, 0, "INFO", "timer.py:259:stop", "epoch=0/micro_step=%d/global_step=%d, RunningAvgSamplesPerSec=%.3f, CurrSamplesPerSec=%.3f, MemAllocated=%.2fGB, MaxMemAllocated=%.2fGB" % (
            step * K.gas, step, K.sps, K.sps * K.rng.uniform(0.95, 1.05), K.mem_alloc, min(K.mem_alloc * 1.3, self.W.gpu[1] - 1.5))))
        S.add(t + sec(0.02), 0, 0, "step %d | loss %.4f | lr %.3e" % (step, loss_at(K, step), 1e-4 * (1 - step / K.plan.total) + 1e-6))

    def save_begin(self, S, t, step):
        W = self.W
        S.add(t, 0, 0, self.ds(t, 0, "INFO", "logging.py:96:log_dist", "[Rank 0] [Torch] Checkpoint global_step%d is about to be saved!" % step))
        m, o = self.zname(0)
        S.add(t + sec(0.2), 0, 0, self.ds(t + sec(0.2), 0, "INFO", "logging.py:96:log_dist", "[Rank 0] Saving model checkpoint: %s/global_step%d/%s" % (self.save, step, m)))
        S.add(t + sec(0.2), 0, 0, self.ds(t + sec(0.2), 0, "INFO", "torch_checkpoint_engine.py:21:save", "[Torch] Saving %s/global_step%d/%s..." % (self.save, step, m)))

    def save_end(self, S, t, step, dur, upto=None):
        W = self.W
        m, o = self.zname(0)
        S.add(t + sec(dur * 0.2), 0, 0, self.ds(t + sec(dur * 0.2), 0, "INFO", "torch_checkpoint_engine.py:23:save", "[Torch] Saved %s/global_step%d/%s." % (self.save, step, m)))
        for r in range(W.world):
            h = W.host_of(r)
            m, o = self.zname(r)
            tt = t + sec(dur * self.K.rng.uniform(0.25, 0.9))
            S.add(tt, h, r, self.ds(tt, h, "INFO", "torch_checkpoint_engine.py:21:save", "[Torch] Saving %s/global_step%d/%s..." % (self.save, step, o)))
            S.add(tt + sec(dur * 0.08), h, r, self.ds(tt + sec(dur * 0.08), h, "INFO", "torch_checkpoint_engine.py:23:save", "[Torch] Saved %s/global_step%d/%s." % (self.save, step, o)))
            S.add(tt + sec(dur * 0.09), h, r, self.ds(tt + sec(dur * 0.09), h, "INFO", "engine.py:3536:_save_zero_checkpoint", "zero checkpoint saved %s/global_step%d/%s" % (self.save, step, o)))
        S.add(t + sec(dur), 0, 0, self.ds(t + sec(dur), 0, "INFO", "torch_checkpoint_engine.py:33:commit", "[Torch] Checkpoint global_step%d is ready now!" % step))

    def eval_begin(self, S, t, step):
        S.add(t, 0, 0, "Running evaluation at step %d on %d samples" % (step, self.K.eval_n))

    def eval_end(self, S, t, step, dur):
        S.add(t + sec(dur), 0, 0, "eval step %d | eval_loss %.4f | ppl %.3f | took %.1fs" % (step, loss_at(self.K, step) + 0.05, pow(2.718281828, loss_at(self.K, step)), dur))

    def finish(self, S, t, step):
        S.add(t, 0, 0, "Training finished at step %d" % step)


class Titan(Framework):
    name = "torchtitan"
    script = "torchtitan.train"

    def __init__(self, K):
        super().__init__(K)
        rng = K.rng
        W = K.W
        self.train_timeout = rng.choice([100, 100, 300])
        self.timeout_ms = self.train_timeout * 1000
        self.model = rng.choice([("llama3", "8B", 8030261248), ("llama3", "70B", 70553706496), ("llama3", "8B", 8030261248), ("deepseek_v3", "16B", 15706484224)])
        self.folder = rng.choice(["/mnt/ckpt/%s/checkpoint" % W.proj, "/gcs/%s-ckpt/%s/checkpoint" % (W.user, W.proj), "/data/outputs/%s/checkpoint" % W.proj])
        self.async_mode = rng.choice(["disabled", "async", "async_with_pinned_mem"])
        self.lbs = rng.choice([1, 2, 4])
        self.seq = rng.choice([4096, 8192])
        self.root = "/app/torchtitan"

    def train_coll(self):
        return ("_ALLGATHER_BASE", 262668288, 262668288 * self.W.world)

    def tl(self, r, t, msg, lvl="INFO"):
        h = self.W.host_of(r)
        return "[rank%d]:[titan] %s - root - %s - %s" % (r, fmt_std(self.W.local(t, h)), lvl, msg)

    def frames(self, phase, kind=None):
        W = self.W
        tr = self.root + "/torchtitan/train.py"
        ck = self.root + "/torchtitan/components/checkpoint.py"
        base = [(tr, 664, "<module>", "trainer.train()"),
                (W.sp + "/torch/distributed/elastic/multiprocessing/errors/__init__.py", 355, "wrapper", "return f(*args, **kwargs)")]
        if phase == "save":
            fr = base + [(tr, 590, "train", "self.checkpointer.save("),
                         (ck, 480, "save", "self.dcp_save(" if kind != "wait" else "self._async_wait()")]
            if kind == "wait":
                return fr + [(ck, 631, "_async_wait", "self.save_future.result()"),
                             (W.stdlib + "/concurrent/futures/_base.py", 456, "result", "return self.__get_result()"),
                             (W.stdlib + "/concurrent/futures/_base.py", 401, "__get_result", "raise self._exception")]
            return fr + [(ck, 382, "dcp_save", "ret = dcp.async_save(" if self.async_mode != "disabled" else "ret = dcp.save(")] + dcp_save_frames(W, "write")
        if phase == "load":
            return [(tr, 664, "<module>", "trainer.train()"),
                    (tr, 512, "train", "self.checkpointer.load(step=job_config.checkpoint.load_step)"),
                    (ck, 537, "load", "self.dcp_load("),
                    (ck, 417, "dcp_load", "dcp.load(state_dict, checkpoint_id=checkpoint_id)")] + dcp_load_frames(W)
        if phase == "eval":
            return base + [(tr, 606, "train", "self.validator.validate(self.model_parts, self.step)"),
                           (self.root + "/torchtitan/components/validate.py", 131, "validate", "predictions = model_parts[0](inputs)")] + model_fwd_frames(W, "x")
        if phase == "data":
            return base + [(tr, 560, "train", "self.train_step(data_iterator)"),
                           (tr, 481, "train_step", "input_dict, labels = self.next_batch(data_iterator)"),
                           (tr, 393, "next_batch", "batch = next(data_iterator)")] + dataloader_frames(W)
        return base + [(tr, 560, "train", "self.train_step(data_iterator)"),
                       (tr, 494, "train_step", "loss = self.forward_backward_step(input_dict, labels)"),
                       (tr, 455, "forward_backward_step", "pred = model_parts[0](inputs)")] + model_fwd_frames(W, "x")

    def startup(self, S, t, resume_step):
        K, W = self.K, self.W
        rng = K.rng
        fam, size, npar = self.model
        for h in range(W.nnodes):
            r = h * W.gpn
            tt = t + sec(rng.uniform(0, 4))
            S.add(tt, h, r, self.tl(r, tt, "Starting job: %s %s training" % (fam.capitalize(), size)))
            S.add(tt, h, r, self.tl(r, tt, "Building 1-D device mesh with ['dp_shard'], [%d]" % W.world))
            S.add(tt + sec(1), h, r, self.tl(r, tt + sec(1), "[GC] Initial GC collection. 0.00 seconds."))
            S.add(tt + sec(2), h, r, self.tl(r, tt + sec(2), "Loading tokenizer from assets/tokenizer/original/tokenizer.model"))
            S.add(tt + sec(3), h, r, self.tl(r, tt + sec(3), "Preparing c4 dataset from allenai/c4"))
            S.add(tt + sec(9), h, r, self.tl(r, tt + sec(9), "Building %s %s with TransformerModelArgs(_enforced='This field is used to enforce all fields have defaults.', dim=%d, n_layers=%d, n_heads=%d, vocab_size=128256, max_seq_len=%d)" % (
                fam, size, 4096 if size == "8B" else 8192, 32 if size == "8B" else 80, 32 if size == "8B" else 64, self.seq)))
            S.add(tt + sec(10), h, r, self.tl(r, tt + sec(10), "CUDA capacity: %s with %.2fGiB memory" % (W.gpu[0], W.gpu[1])))
            S.add(tt + sec(10), h, r, self.tl(r, tt + sec(10), "Model %s %s size: {:,} total parameters".format(npar) % (fam, size)))
            S.add(tt + sec(11), h, r, self.tl(r, tt + sec(11), "Applied selective activation checkpointing to the model"))
            S.add(tt + sec(11), h, r, self.tl(r, tt + sec(11), "Applied FSDP to the model"))
            S.add(tt + sec(12), h, r, self.tl(r, tt + sec(12), "CUDA memory usage for model: %.2fGiB(%.2f%%)" % (npar * 2 / W.world / 2**30 * 2, npar * 400 / W.world / 2**30 / W.gpu[1])))
            S.add(tt + sec(12), h, r, self.tl(r, tt + sec(12), "Checkpointing active. Checkpoints will be loaded from and saved to %s" % self.folder))
        return t + sec(16)

    def load_ok(self, S, t, step):
        W = self.W
        d = self.K.rng.uniform(20, 160)
        for h in range(W.nnodes):
            r = h * W.gpn
            S.add(t, h, r, self.tl(r, t, "Loading the checkpoint at step %d." % step))
            S.add(t + sec(d), h, r, self.tl(r, t + sec(d), "Finished loading the checkpoint in %.2f seconds." % d))
        return t + sec(d + 1)

    def train_start(self, S, t, step):
        W = self.W
        for h in range(W.nnodes):
            r = h * W.gpn
            S.add(t, h, r, self.tl(r, t, "Training starts at step %d, with local batch size %d, global batch size %d, sequence length %d, total steps %d (warmup 200)" % (
                step + 1, self.lbs, self.lbs * W.world, self.seq, self.K.plan.total)))

    def step(self, S, t, step, el):
        K, W = self.K, self.W
        f = K.plan.step_time / getattr(K, "cur_st", K.plan.step_time)
        for h in range(W.nnodes):
            r = h * W.gpn
            mem = K.mem_alloc
            tps = int(self.lbs * self.seq / K.plan.step_time * f * K.rng.uniform(0.98, 1.02))
            tf = K.tflops * f * K.rng.uniform(0.98, 1.02)
            S.add(t + sec(0.001 * h), h, r, self.tl(r, t, "step: %d  loss: %7.4f  grad_norm: %7.4f  memory: %5.2fGiB(%.2f%%)  tps: {:,}  tflops: %.2f  mfu: %.2f%%".format(tps) % (
                step, loss_at(K, step), K.rng.uniform(0.2, 1.2), mem, mem * 100 / W.gpu[1], tf, tf * 100 / K.peak)))

    def save_begin(self, S, t, step):
        W = self.W
        for h in range(W.nnodes):
            r = h * W.gpn
            S.add(t, h, r, self.tl(r, t, "Saving the checkpoint (or staging if async is enabled)."))

    def save_end(self, S, t, step, dur):
        W = self.W
        blocking = dur if self.async_mode == "disabled" else min(dur, self.K.rng.uniform(0.7, 9))
        for h in range(W.nnodes):
            r = h * W.gpn
            S.add(t + sec(blocking * 0.9), h, r, self.tl(r, t + sec(blocking * 0.9), "[GC] GC collection invoked by checkpointer. %.2f seconds." % self.K.rng.uniform(0.01, 0.3)))
            S.add(t + sec(blocking), h, r, self.tl(r, t + sec(blocking), "Finished saving the checkpoint (or staging if async is enabled)in %.2f seconds." % blocking))

    def eval_begin(self, S, t, step):
        pass

    def eval_end(self, S, t, step, dur):
        W = self.W
        for h in range(W.nnodes):
            r = h * W.gpn
            S.add(t + sec(dur), h, r, self.tl(r, t + sec(dur), "validate step: %d  loss: %7.4f  memory: %5.2fGiB(%.2f%%)" % (step, loss_at(self.K, step) + 0.04, self.K.mem_alloc * 0.6, self.K.mem_alloc * 60 / W.gpu[1])))

    def finish(self, S, t, step):
        W = self.W
        for h in range(W.nnodes):
            r = h * W.gpn
            S.add(t, h, r, self.tl(r, t, "Sleeping 2 seconds for other ranks to complete"))
            S.add(t + sec(2), h, r, self.tl(r, t + sec(2), "Training completed"))
            S.add(t + sec(2.2), h, r, self.tl(r, t + sec(2.2), "Process group destroyed"))


class Custom(Framework):
    """In-house FSDP2 + DCP trainer, every rank logs (torchrun --log-dir / --tee)."""
    name = "custom"
    script = "trainer/train.py"

    def __init__(self, K):
        super().__init__(K)
        rng = K.rng
        W = K.W
        self.timeout_ms = rng.choice([600000, 900000, 1200000])
        self.ckpt = rng.choice(["/fsx/%s/ckpt/%s" % (W.user, W.proj), "/mnt/lustre/%s/%s/ckpt" % (W.user, W.proj), "s3://%s-ml-ckpt/%s" % (W.user, W.proj)])
        self.local_stage = "/local_nvme/ckpt_stage"
        self.seq_len = rng.choice([2048, 4096, 8192])
        self.root = "/opt/app"

    def train_coll(self):
        return ("_REDUCE_SCATTER_BASE", 131334144 * self.W.world, 131334144)

    def lg(self, r, t, lvl, mod, msg):
        h = self.W.host_of(r)
        return "%s [rank%d] %s %s: %s" % (fmt_std(self.W.local(t, h)), r, lvl, mod, msg)

    def tokps(self):
        return int(self.K.sps * self.seq_len / self.W.world)

    def frames(self, phase, kind=None):
        W = self.W
        tr = self.root + "/trainer/train.py"
        ck = self.root + "/trainer/checkpoint.py"
        base = [(tr, 441, "<module>", "main()"),
                (W.sp + "/torch/distributed/elastic/multiprocessing/errors/__init__.py", 355, "wrapper", "return f(*args, **kwargs)"),
                (tr, 430, "main", "train(cfg)")]
        if phase == "save":
            if kind == "fsdp_full":
                return base + [(tr, 372, "train", "ckpt.save_consolidated(step, model)"),
                               (ck, 188, "save_consolidated", "full_sd = get_model_state_dict(model, options=StateDictOptions(full_state_dict=True, cpu_offload=False))"),
                               (W.sp + "/torch/distributed/checkpoint/state_dict.py", 1037 if W.tv == "2.5" else 829, "get_model_state_dict", "model_state_dict = _get_model_state_dict(model, info)"),
                               (W.sp + "/torch/distributed/checkpoint/state_dict.py", 513 if W.tv == "2.5" else 456, "_get_model_state_dict", "state_dict = _maybe_full_or_cpu_state_dict(state_dict, info)"),
                               (W.sp + "/torch/distributed/checkpoint/state_dict.py", 1106 if W.tv == "2.5" else 889, "_maybe_full_or_cpu_state_dict", "return _gather_state_dict("),
                               (W.sp + "/torch/distributed/_state_dict_utils.py", 228, "_gather_state_dict", "return _iterate_state_dict("),
                               (W.sp + "/torch/distributed/_state_dict_utils.py", 176, "_all_gather_sharded_tensor", "output_tensor = torch.empty(")]
            if kind == "wait":
                return base + [(tr, 365, "train", "ckpt.maybe_wait()"),
                               (ck, 142, "maybe_wait", "self._pending.result()"),
                               (W.stdlib + "/concurrent/futures/_base.py", 456, "result", "return self.__get_result()"),
                               (W.stdlib + "/concurrent/futures/_base.py", 401, "__get_result", "raise self._exception")]
            return base + [(tr, 368, "train", "ckpt.save(step, model, optimizer, train_loader)"),
                           (ck, 121, "save", "self._pending = dcp.async_save(state, checkpoint_id=path, process_group=self.ckpt_pg)" if K_async(self) else "dcp.save(state, checkpoint_id=path)")] + dcp_save_frames(W, "write")
        if phase == "load":
            return base + [(tr, 311, "train", "start_step = ckpt.load_latest(model, optimizer, train_loader)"),
                           (ck, 96, "load_latest", "dcp.load(state, checkpoint_id=path)")] + dcp_load_frames(W)
        if phase == "eval":
            return base + [(tr, 380, "train", "metrics = evaluate(model, eval_loader, cfg)"),
                           (self.root + "/trainer/evaluate.py", 58, "evaluate", "out = model(batch[\"input_ids\"].cuda(non_blocking=True))")] + model_fwd_frames(W, "x")
        if phase == "data":
            return base + [(tr, 340, "train", "batch = next(train_iter)")] + dataloader_frames(W)
        return base + [(tr, 347, "train", "loss = train_step(model, batch, optimizer, scaler)"),
                       (tr, 214, "train_step", "logits = model(batch[\"input_ids\"])")] + model_fwd_frames(W, "x")

    def startup(self, S, t, resume_step):
        K, W = self.K, self.W
        rng = K.rng
        for r in range(W.world):
            h = W.host_of(r)
            tt = t + sec(rng.uniform(0, 4))
            S.add(tt, h, r, self.lg(r, tt, "INFO", "trainer", "init process group: backend=nccl world_size=%d local_rank=%d host=%s" % (W.world, W.lr(r), W.hosts[h])))
            S.add(tt + sec(9), h, r, self.lg(r, tt + sec(9), "INFO", "trainer", "model built: %s params, FSDP2 fully_shard(reshard_after_forward=True), bf16 mixed precision" % rng.choice(["6.74B", "13.0B", "1.41B"])))
            if rng.random() < 0.2:
                S.add(tt + sec(10), h, r, "%s/torch/distributed/checkpoint/state_dict_loader.py:%d: FutureWarning: `load_state_dict` is deprecated and will be removed in future versions. Please use `load` instead." % (W.sp, 107))
        return t + sec(14)

    def load_ok(self, S, t, step):
        W = self.W
        d = self.K.rng.uniform(15, 150)
        for r in range(W.world):
            h = W.host_of(r)
            S.add(t, h, r, self.lg(r, t, "INFO", "checkpoint", "resuming from %s/step_%d" % (self.ckpt, step)))
            S.add(t + sec(d), h, r, self.lg(r, t + sec(d), "INFO", "checkpoint", "loaded step_%d in %.1fs" % (step, d)))
        return t + sec(d + 1)

    def step(self, S, t, step, el, slow_rank=None, slow_f=1.0):
        K, W = self.K, self.W
        st = K.plan.step_time
        cur = getattr(K, "cur_st", st)
        kind = (getattr(K, "straggle", None) or {}).get("kind", "io")
        for r in range(W.world):
            h = W.host_of(r)
            if r != 0 and r != slow_rank and K.rng.random() < (0.88 if slow_rank is None else 0.8):
                continue
            data = K.rng.uniform(0.005, 0.03)
            comp = st * 0.85 * K.rng.uniform(0.98, 1.02)
            wait = max(st - comp - data, 0.01) * K.rng.uniform(0.8, 1.2)
            if slow_rank is not None:
                extra = max(cur - st, 0.0)
                if r == slow_rank:
                    if kind == "io":
                        data = extra * K.rng.uniform(0.95, 1.02)
                    else:
                        comp = comp + extra * K.rng.uniform(0.95, 1.0)
                    wait = K.rng.uniform(0.01, 0.05)
                else:
                    wait = wait + extra * K.rng.uniform(0.95, 1.02)
            S.add(t + sec(K.rng.uniform(0, 0.05)), h, r, self.lg(r, t, "INFO", "trainer", "step %d | loss %.4f | data %.3fs | fwd_bwd %.3fs | comm_wait %.3fs | tok/s/gpu %d" % (
                step, loss_at(K, step), data, comp, wait, int(self.tokps() * st / cur))))

    def save_begin(self, S, t, step):
        W = self.W
        for r in range(W.world):
            if r % W.gpn == 0:
                S.add(t + sec(0.08), W.host_of(r), r, self.lg(r, t + sec(0.08), "INFO", "checkpoint", "saving step_%d to %s/step_%d (async=%s)" % (step, self.ckpt, step, K_async(self))))

    def save_end(self, S, t, step, dur):
        W = self.W
        for r in range(W.world):
            if r % W.gpn == 0:
                st = min(dur, self.K.rng.uniform(2, 9)) if K_async(self) else dur
                S.add(t + sec(st), W.host_of(r), r, self.lg(r, t + sec(st), "INFO", "checkpoint", "step_%d %s in %.1fs" % (step, "staged" if K_async(self) else "saved", st)))
                if K_async(self):
                    S.add(t + sec(dur), W.host_of(r), r, self.lg(r, t + sec(dur), "INFO", "checkpoint", "async save of step_%d committed in %.1fs" % (step, dur)))

    def eval_begin(self, S, t, step):
        S.add(t, 0, 0, self.lg(0, t, "INFO", "eval", "running eval at step %d on %d samples (rank 0 only)" % (step, self.K.eval_n)))

    def eval_end(self, S, t, step, dur):
        S.add(t + sec(dur), 0, 0, self.lg(0, t + sec(dur), "INFO", "eval", "step %d eval_loss %.4f ppl %.2f (%.1fs)" % (step, loss_at(self.K, step) + 0.05, pow(2.718281828, loss_at(self.K, step)), dur)))

    def finish(self, S, t, step):
        W = self.W
        for r in range(W.world):
            S.add(t + sec(self.K.rng.uniform(0, 1)), W.host_of(r), r, self.lg(r, t, "INFO", "trainer", "training done at step %d, destroying process group" % step))


def K_async(fw):
    if not hasattr(fw, "_async"):
        fw._async = fw.K.rng.random() < 0.6
    return fw._async


# --------------------------------------------------------------------------------------
# run context, plan, timeline
# --------------------------------------------------------------------------------------

class Plan:
    def __init__(self, step_time, total, save_every, eval_every, log_every):
        self.step_time = step_time
        self.total = total
        self.save_every = save_every
        self.eval_every = eval_every
        self.log_every = log_every


class Ctx:
    def __init__(self, rng, layout, cause, healthy):
        self.rng = rng
        self.layout = layout
        self.cause = cause
        self.healthy = healthy
        self.stuck_d_state = set()
        self.max_restarts = 0
        self.t0 = datetime(2024, 1, 8, 0, 0, 0) + sec(rng.uniform(0, 560 * 86400))
        self.jobid = rng.randint(180000, 9800000)
        self.kern = {}
        self.extra = {}
        self.notes = []
        self.fw = None
        self.W = None
        self.domain = rng.choice(["", "", ".cluster.local", ".hpc.internal", ".ib.cluster"])
        self.mbs = rng.choice([1, 2, 4, 8])
        self.gas = rng.choice([1, 2, 4, 8, 16])
        self.eval_n = rng.choice([2000, 4000, 5000, 10000, 20000])
        self.loss_abc = (rng.uniform(1.6, 2.4), rng.uniform(4, 8), rng.uniform(300, 3000))
        self.timing_level = rng.choice([0, 1, 1])
        self.sps = rng.uniform(20, 4000)
        self.mem_alloc = rng.uniform(20, 70)
        self.tflops = rng.uniform(180, 520)
        self.seq_base = rng.randint(5, 60)
        self.cps = rng.choice([1, 2, 3, 4, 6, 12, 48, 96])
        self.flavors = set()
        self.ckpt = {"done": [], "partial": None, "missing": None, "corrupt": None}
        self.ckpt_t = {}
        self.t_fail = None
        self.t_end = None

    def fqdn(self, h):
        return self.W.hosts[h] + self.domain

    def seq(self, step):
        return self.seq_base + step * self.cps

    def kadd(self, h, t, lines):
        if isinstance(lines, str):
            lines = [lines]
        lst = self.kern.setdefault(h, [])
        for i, l in enumerate(lines):
            lst.append((t + sec(i * 0.000013), l))

    def comm(self):
        if not hasattr(self, "_comm"):
            self._comm = self.rng.choice(["python", "python3", "pt_main_thread", "python3.%s" % self.W.py.split(".")[1]])
        return self._comm


def run_train(K, S, t, start, end, stop=None):
    """Emit normal training output from step start+1 .. end. stop=(phase, step) stops at that point.
    Returns (t, step)."""
    fw, p, rng = K.fw, K.plan, K.rng
    step = start
    el = 0.0
    while step < end:
        step += 1
        dt = p.step_time * rng.uniform(0.97, 1.03)
        if getattr(K, "straggle", None) and step >= K.straggle["from"]:
            dt *= K.straggle["f"] * rng.uniform(0.97, 1.03)
        K.cur_st = dt
        t += sec(dt)
        el += dt
        if step % p.log_every == 0:
            kw = {}
            if getattr(K, "straggle", None) and step >= K.straggle["from"]:
                if fw.name == "megatron":
                    kw = {"slow": K.straggle["f"]}
                elif fw.name == "custom":
                    kw = {"slow_rank": K.straggle["rank"], "slow_f": K.straggle["f"]}
            fw.step(S, t, step, el, **kw)
        if stop and stop[1] == step and stop[0] in ("train", "data"):
            return t, step
        if p.eval_every and step % p.eval_every == 0:
            fw.eval_begin(S, t, step)
            if stop and stop == ("eval", step):
                return t, step
            d = rng.uniform(20, 240)
            fw.eval_end(S, t, step, d)
            t += sec(d)
            el += d
        if p.save_every and step % p.save_every == 0:
            fw.save_begin(S, t, step)
            if stop and stop == ("save", step):
                return t, step
            d = save_duration(K)
            healthy_save_noise(K, S, t, step, d)
            fw.save_end(S, t, step, d)
            K.ckpt["done"].append(step)
            K.ckpt_t[step] = t + sec(d)
            blocking = d
            if (fw.name == "torchtitan" and fw.async_mode != "disabled") or (fw.name == "custom" and K_async(fw)) or (fw.name == "megatron" and fw.async_save):
                blocking = min(d, rng.uniform(1, 9))
            t += sec(blocking)
            el += blocking
    return t, step


def save_duration(K):
    rng = K.rng
    base = rng.uniform(15, 140)
    if "slow_save" in K.flavors and rng.random() < 0.6:
        lim = K.fw.timeout_ms / 1000.0
        base = min(rng.uniform(240, 1100), lim * 0.7)
    return base


def healthy_save_noise(K, S, t, step, d):
    """Scary-but-harmless things around checkpoint saves (used for healthy runs and as noise)."""
    rng, W, fw = K.rng, K.W, K.fw
    if "slow_save" in K.flavors and d > 200:
        msg = "WARNING: checkpoint save for step %d took %.1fs (> 180s), storage may be overloaded" % (step, d)
        if fw.name == "custom":
            msg = fw.lg(0, t + sec(d), "WARNING", "checkpoint", "step_%d save took %.1fs (threshold 180s)" % (step, d))
        S.add(t + sec(d), 0, 0, msg)
    if "nfs_blip" in K.flavors and rng.random() < 0.5:
        srv = getattr(K, "nfs_srv", None) or rng.choice(["nfs01", "filer-a", "10.20.0.15", "home-nas2"])
        K.nfs_srv = srv
        K.kadd(0, t + sec(d * 0.3), "nfs: server %s not responding, still trying" % srv)
        K.kadd(0, t + sec(d * 0.3 + rng.uniform(10, 60)), "nfs: server %s OK" % srv)
    if "lustre_blip" in K.flavors and rng.random() < 0.5:
        h = rng.randrange(W.nnodes)
        fs = getattr(K, "lfs", "scratch")
        ost = "%s-OST%04x" % (fs, rng.randrange(0, 64))
        ip = "10.%d.%d.%d@o2ib" % (rng.randint(0, 30), rng.randint(0, 255), rng.randint(2, 250))
        cl = "ffff%012x" % (rng.randrange(16 ** 12) & ~0xfff)
        tt = t + sec(d * 0.4)
        ep = int((W.local(tt, h) - datetime(1970, 1, 1)).total_seconds())
        K.kadd(h, tt, ["Lustre: %d:0:(client.c:2310:ptlrpc_expire_one_request()) @@@ Request sent has timed out for slow reply: [sent %d/real %d]  req@ffff%012x x%d/t0(0) o4->%s-osc-%s@%s:6/4 lens 488/448 e 1 to 1 dl %d ref 2 fl Rpc:XQr/2/ffffffff rc 0/-1 job:''" % (
            rng.randint(2000, 9000), ep - 47, ep - 47, rng.randrange(16 ** 12) & ~0x3f, rng.randrange(10 ** 15), ost, cl, ip, ep),
            "Lustre: %s-osc-%s: Connection to %s (at %s) was lost; in progress operations using this service will wait for recovery to complete" % (ost, cl, ost, ip)])
        K.kadd(h, tt + sec(rng.uniform(5, 40)), "Lustre: %s-osc-%s: Connection restored to %s (at %s)" % (ost, cl, ost, ip))
    if "s3_retry" in K.flavors and rng.random() < 0.6:
        n = rng.randint(1, 3)
        for i in range(n):
            tt = t + sec(d * (0.3 + 0.15 * i))
            S.add(tt, 0, 0, "%s uploader WARNING: upload of part %d/%d for step_%d/__0_0.distcp failed: An error occurred (SlowDown) when calling the UploadPart operation: Please reduce your request rate. Retrying in %.1fs (attempt %d/10)" % (
                fmt_std(W.local(tt, 0)), rng.randint(1, 200), rng.randint(200, 400), step, 2.0 * (2 ** i), i + 2))
        S.add(t + sec(d * 0.95), 0, 0, "%s uploader INFO: uploaded step_%d to s3 (%d objects, %.1f GiB) in %.1fs" % (
            fmt_std(W.local(t + sec(d * 0.95), 0)), step, W.world + 2, rng.uniform(20, 900), d * 0.9))
    if "wandb_retry" in K.flavors and rng.random() < 0.3:
        S.add(t + sec(d * 0.5), 0, 0, "wandb: Network error (ReadTimeout), entering retry loop.")
        S.add(t + sec(d * 0.5 + 40), 0, 0, "wandb: Network error resolved after 0:00:%02d, resuming normal operation." % rng.randint(20, 59))


# --------------------------------------------------------------------------------------
# failure description
# --------------------------------------------------------------------------------------

class Fail:
    def __init__(self, cause):
        self.cause = cause
        self.ends = {}
        self.truth = (None, None)
        self.pid_check = None
        self.notes = ""
        self.ext = {}       # launcher-level info: e.g. {"slurm_cancel": (t, 'TIME LIMIT'), 'k8s_kill': ...}
        self.persistent = False


def mk_exc(K, r, tp, frames, exc_lines, code=1, chained=None, pre_lines=None):
    W = K.W
    p = tb_pre(W, r)
    lines = [p + l if p and l and not l.startswith(p) else l for l in (pre_lines or [])]
    lines += traceback_lines(frames, exc_lines, p, chained)
    return End(r, tp, code, lines)


def fill_timeouts(K, F, t_coll, seq, coll, enq=None, comp=None, skip=(), per_rank=None):
    W, rng = K.W, K.rng
    op, nin, nout = coll
    tmo = K.fw.timeout_ms
    for r in range(W.world):
        if r in F.ends or r in skip:
            continue
        if per_rank:
            op_r, nin_r, nout_r, seq_r, enq_r, comp_r = per_rank(r)
        else:
            op_r, nin_r, nout_r, seq_r = op, nin, nout, seq
            enq_r = seq if enq is None else enq
            comp_r = seq - 1 if comp is None else comp
        tp = t_coll + sec(tmo / 1000.0 + rng.uniform(0.05, 2.5))
        h = W.host_of(r)
        F.ends[r] = End(r, tp, -6, watchdog_block(W, r, W.local(tp, h), seq_r, op_r, nin_r, nout_r, tmo, enq_r, comp_r,
                                                 fatal_python=(W.tv == "2.5" and rng.random() < 0.25)))


def next_coll(K, phase):
    fw = K.fw
    if phase == "save":
        if fw.name in ("torchtitan", "custom") or (fw.name == "megatron" and fw.fmt == "torch_dist"):
            return ("ALLGATHER", 1, K.W.world)
        return fw.barrier_coll()
    if phase == "load":
        return ("BROADCAST", K.rng.choice([1, 3, 8]), K.rng.choice([1, 3, 8]))
    return fw.train_coll()


def pci_of(K, r):
    return K.W.pci[K.W.lr(r)]


def gpu_uuid(rng):
    return "GPU-%08x-%04x-%04x-%04x-%012x" % (rng.randrange(16 ** 8), rng.randrange(16 ** 4), rng.randrange(16 ** 4), rng.randrange(16 ** 4), rng.randrange(16 ** 12))


def nccl_line(K, r, t, msg, tid=None):
    W = K.W
    h = W.host_of(r)
    return "%s:%d:%d [%d] %s" % (W.hosts[h], W.pids[r], tid or (W.pids[r] + K.rng.randint(40, 900)), W.lr(r), msg)


# --------------------------------------------------------------------------------------
# cause kits: plan_* decides the phase (before the timeline runs), kit_* builds the failure
# --------------------------------------------------------------------------------------

def pick(K, options):
    return K.rng.choice(options)


def plan_gpu_hardware(K):
    return dict(phase=pick(K, ["save", "save", "eval", "train"]), xid=pick(K, [79, 79, 79, 62, 119, 120]),
                r=K.rng.randrange(K.W.world), mode=pick(K, ["cuda_err", "cuda_err", "hang", "py"]))


def kit_gpu_hardware(K, F, t, step, v):
    W, rng = K.W, K.rng
    r = v["r"]
    h, lr = W.host_of(r), W.lr(r)
    tx = t + sec(rng.uniform(2, 50))
    pci, pid, comm = pci_of(K, r), W.pids[r], K.comm()
    xid = v["xid"]
    kl = []
    if xid == 79:
        kl = ["NVRM: GPU at PCI:0000:%s:00: %s" % (pci, gpu_uuid(rng)),
              "NVRM: Xid (PCI:0000:%s:00): 79, pid=%d, name=%s, GPU has fallen off the bus." % (pci, pid, comm),
              "NVRM: GPU 0000:%s:00.0: GPU has fallen off the bus." % pci,
              "NVRM: A GPU crash dump has been created. If possible, please run",
              "NVRM: nvidia-bug-report.sh as root to collect this data before",
              "NVRM: the NVIDIA kernel module is unloaded."]
        err = pick(K, ["unknown error", "unspecified launch failure"])
    elif xid == 62:
        kl = ["NVRM: Xid (PCI:0000:%s:00): 62, pid=%d, name=%s, %04x(%04x) 00000000 00000000" % (pci, pid, comm, rng.randrange(16 ** 4), rng.randrange(16 ** 4))]
        err = "unspecified launch failure"
    elif xid == 119:
        a = rng.randrange(16 ** 8)
        kl = ["NVRM: Xid (PCI:0000:%s:00): 119, pid=%d, name=%s, Timeout after 6s of waiting for RPC response from GPU%d GSP! Expected function 76 (GSP_RM_CONTROL) (0x%08x 0x%x)." % (pci, pid, comm, lr, a, rng.choice([4, 8, 0x20])),
              "NVRM: GPU%d GSP RPC buffer contains function 76 (GSP_RM_CONTROL) and data 0x%016x 0x%016x." % (lr, a, rng.randrange(16 ** 8)),
              "NVRM: GPU%d RPC history (CPU -> GSP):" % lr,
              "NVRM:     entry function                   data0              data1              ts_start           ts_end             duration actively_polling",
              "NVRM:      0    76   GSP_RM_CONTROL            0x%016x 0x%016x 0x%016x 0x0000000000000000          y" % (a, 0x8, rng.randrange(16 ** 13)),
              "NVRM: Xid (PCI:0000:%s:00): 119, pid=%d, name=%s, Timeout after 45s of waiting for RPC response from GPU%d GSP! Expected function 10 (FREE) (0x%08x 0x0)." % (pci, pid, comm, lr, rng.randrange(16 ** 8))]
        err = "unspecified launch failure"
        if v["mode"] == "py":
            v["mode"] = "hang"
    else:
        kl = ["NVRM: Xid (PCI:0000:%s:00): 120, pid=%d, name=%s, GSP task timeout @ pc:0x%x, task: 1" % (pci, pid, comm, rng.randrange(16 ** 6)),
              "NVRM:     Reported by libos task:0 v2.0 [0] @ ts:%d" % rng.randrange(10 ** 10),
              "NVRM:     RISC-V CSR State:",
              "NVRM:         mstatus:0x%016x  mscratch:0x0000000000000000     mie:0x0000000000000880     mip:0x0000000000000000" % rng.randrange(16 ** 10)]
        err = "unspecified launch failure"
    K.kadd(h, tx, kl)
    if v["mode"] == "hang":
        F.ends[r] = End(r, tx, None, [])
        K.stuck_d_state.add(r)
        F.pid_check = r
        F.notes = "Xid %d on the GPU at PCI 0000:%s:00 (local rank %d) of %s during %s at step %d; rank %d stopped making progress inside the driver, the other ranks hit the NCCL watchdog timeout in the next collective." % (xid, pci, lr, W.hosts[h], v["phase"], step, r)
    elif v["mode"] == "py":
        F.ends[r] = mk_exc(K, r, tx + sec(0.4), K.fw.frames(v["phase"] if v["phase"] != "save" else "train"), cuda_msg_lines(W, err)[:-1])
        F.notes = "Xid %d on %s GPU %s; rank %d raised 'CUDA error: %s' during %s at step %d; other ranks timed out." % (xid, W.hosts[h], pci, r, err, v["phase"], step)
    else:
        F.ends[r] = End(r, tx + sec(0.3), -6, cuda_err_watchdog_block(W, r, W.local(tx, h), err))
        F.notes = "Xid %d on %s GPU %s; rank %d's NCCL watchdog aborted the process with 'CUDA error: %s' during %s at step %d; collateral watchdog timeouts on the other ranks." % (xid, W.hosts[h], pci, r, err, v["phase"], step)
    if rng.random() < 0.5:
        K.extra["nvidia-smi_%s.txt" % W.hosts[h]] = nvsmi_lost(K, h, lr)
    seq = K.seq(step) + 2
    fill_timeouts(K, F, tx, seq, next_coll(K, v["phase"]))
    F.truth = (r, h)


def nvsmi_lost(K, h, lr):
    W = K.W
    tl = W.local(K.t_fail or K.t0, h)
    return ("[%s@%s ~]$ " % (W.user, W.hosts[h] if K.layout != "torchtitan-k8s" else K.k8s_nodes[h])) + "nvidia-smi\nUnable to determine the device handle for GPU0000:%s:00.0: Unknown Error\n\n$ nvidia-smi -L\n" % W.pci[lr].upper() + "\n".join(
        "GPU %d: %s (UUID: %s)" % (i, W.gpu[0], gpu_uuid(K.rng)) for i in range(W.gpn) if i != lr) + "\nUnable to determine the device handle for gpu 0000:%s:00.0: Unknown Error\n" % W.pci[lr]


def plan_ecc_memory(K):
    return dict(phase=pick(K, ["save", "eval", "train", "train"]), kind=pick(K, ["dbe48", "xid94", "xid95", "remap"]),
                r=K.rng.randrange(K.W.world), py=K.rng.random() < 0.5)


def kit_ecc_memory(K, F, t, step, v):
    W, rng = K.W, K.rng
    r = v["r"]
    h, lr = W.host_of(r), W.lr(r)
    tx = t + sec(rng.uniform(1, 40))
    pci, pid, comm = pci_of(K, r), W.pids[r], K.comm()
    k = v["kind"]
    if k == "dbe48":
        kl = ["NVRM: Xid (PCI:0000:%s:00): 48, pid=%d, name=%s, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition %d, subpartition %d." % (pci, pid, comm, rng.randint(0, 11), rng.randint(0, 1)),
              "NVRM: Xid (PCI:0000:%s:00): 63, pid=%d, name=%s, Row Remapper: New row (0x%016x) marked for remapping, reset gpu to activate." % (pci, pid, comm, rng.randrange(16 ** 9))]
    elif k == "xid94":
        kl = ["NVRM: Xid (PCI:0000:%s:00): 94, pid=%d, name=%s, Contained: SM (0x1). RST: No, D-RST: No" % (pci, pid, comm)]
    elif k == "xid95":
        kl = ["NVRM: Xid (PCI:0000:%s:00): 95, pid='<unknown>', name=<unknown>, Uncontained: LTC TAG (0x2,0x0). RST: Yes, D-RST: No" % pci]
    else:
        kl = ["NVRM: Xid (PCI:0000:%s:00): 63, pid=%d, name=%s, Row Remapper: New row (0x%016x) marked for remapping, reset gpu to activate." % (pci, pid, comm, rng.randrange(16 ** 9)),
              "NVRM: Xid (PCI:0000:%s:00): 64, pid=%d, name=%s, Row Remapper: Failed to remap row (0x%016x), Row remapping failure." % (pci, pid, comm, rng.randrange(16 ** 9)),
              "NVRM: Xid (PCI:0000:%s:00): 48, pid=%d, name=%s, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition %d, subpartition %d." % (pci, pid, comm, rng.randint(0, 11), rng.randint(0, 1))]
        K.extra["nvidia-smi-q-d-ROW_REMAPPER_%s.txt" % W.hosts[h]] = remap_report(K, h, lr)
    K.kadd(h, tx - sec(0.2), kl)
    err = "uncorrectable ECC error encountered"
    ph = v["phase"]
    if v["py"] and ph != "save":
        F.ends[r] = mk_exc(K, r, tx + sec(0.3), K.fw.frames(ph), cuda_msg_lines(W, err)[:-1])
    else:
        F.ends[r] = End(r, tx + sec(0.3), -6, cuda_err_watchdog_block(W, r, W.local(tx, h), err))
    fill_timeouts(K, F, tx, K.seq(step) + 2, next_coll(K, ph))
    F.truth = (r, h)
    F.notes = "Uncorrectable ECC error (%s) on %s GPU %s (local rank %d) during %s at step %d; rank %d died with 'CUDA error: %s', the rest timed out in the next collective." % (
        {"dbe48": "Xid 48 DBE", "xid94": "Xid 94 contained", "xid95": "Xid 95 uncontained", "remap": "Xid 63/64 row-remap failure + Xid 48"}[k], W.hosts[h], pci, lr, ph, step, r, err)


def remap_report(K, h, lr):
    W = K.W
    out = ["[%s@%s ~]$ nvidia-smi -q -d ROW_REMAPPER -i %d" % (W.user, W.hosts[h] if K.layout != "torchtitan-k8s" else K.k8s_nodes[h], lr), "", "==============NVSMI LOG==============", "",
           "Timestamp                                 : %s" % W.local(K.t0 + sec(3 * 86400), h).strftime("%a %b %d %H:%M:%S %Y"),
           "Driver Version                            : 535.183.01", "CUDA Version                              : 12.2", "",
           "Attached GPUs                             : %d" % W.gpn,
           "GPU 00000000:%s:00.0" % W.pci[lr].upper(),
           "    Remapped Rows",
           "        Correctable Error                 : 0",
           "        Uncorrectable Error               : %d" % K.rng.randint(1, 8),
           "        Pending                           : Yes",
           "        Remapping Failure Occurred        : Yes",
           "        Bank Remap Availability Histogram",
           "            Max                           : %d bank(s)" % K.rng.randint(600, 640),
           "            High                          : 0 bank(s)",
           "            Partial                       : %d bank(s)" % K.rng.randint(0, 3),
           "            Low                           : 0 bank(s)",
           "            None                          : 0 bank(s)", ""]
    return "\n".join(out)


def plan_nvlink(K):
    W = K.W
    h = K.rng.randrange(W.nnodes)
    a = K.rng.randrange(W.gpn)
    b = (a + K.rng.randint(1, W.gpn - 1)) % W.gpn
    return dict(phase=pick(K, ["save", "save", "eval", "train"]), h=h, a=a, b=b, both=K.rng.random() < 0.6)


def kit_nvlink(K, F, t, step, v):
    W, rng = K.W, K.rng
    h = v["h"]
    ra, rb = h * W.gpn + v["a"], h * W.gpn + v["b"]
    tx = t + sec(rng.uniform(1, 30))
    comm = K.comm()
    kl = []
    gpus = [ra, rb] if v["both"] else [ra]
    for r in gpus:
        link = rng.randint(0, 17)
        kl.append("NVRM: Xid (PCI:0000:%s:00): 74, pid=%d, name=%s, NVLink: fatal error detected on link %d(0x0, 0x0, 0x%x, 0x0, 0x0, 0x0, 0x0)" % (pci_of(K, r), W.pids[r], comm, link, rng.choice([0x10000, 0x20000, 0x2000000, 0x100])))
    K.kadd(h, tx, kl)
    if W.gpu[0].startswith("NVIDIA H") and rng.random() < 0.6:
        fm = []
        for _ in range(rng.randint(1, 3)):
            fm.append("nv-fabricmanager[%d]: detected NVSwitch fatal error %d on fid 0 on NVSwitch pci bus id 00000000:%02x:00.0 physical id %d port %d" % (
                rng.randint(1500, 4000), rng.choice([20034, 12028, 22013]), rng.choice([5, 6, 7, 8]), rng.randint(0, 3), rng.randint(0, 63)))
        K.fm_lines = (h, tx, fm)
    err = "uncorrectable NVLink error was detected during the execution"
    for i, r in enumerate(gpus):
        tt = tx + sec(0.2 + i * rng.uniform(0.01, 0.4))
        pre = [nccl_line(K, r, tt, "enqueue.cc:%d NCCL WARN Cuda failure '%s'" % (rng.choice([1558, 1617, 1175]), err))] if rng.random() < 0.6 else []
        e = End(r, tt, -6, pre + cuda_err_watchdog_block(W, r, W.local(tt, h), err))
        F.ends[r] = e
    fill_timeouts(K, F, tx, K.seq(step) + 3, next_coll(K, v["phase"]))
    F.truth = (None if v["both"] else ra, h)
    F.notes = "Xid 74 NVLink fatal error on %s (GPU(s) at PCI bus %s) during %s at step %d (FSDP/NCCL traffic); rank(s) %s aborted with '%s', others timed out." % (
        W.hosts[h], ",".join(pci_of(K, r) for r in gpus), v["phase"], step, ",".join(str(r) for r in gpus), err)


def plan_network(K):
    W = K.W
    return dict(phase=pick(K, ["save", "train", "train", "eval", "load"]), h=K.rng.randrange(W.nnodes), k=K.rng.randrange(W.gpn),
                transport=getattr(K, "net_transport", "IB"))


NIC_PCI = ["0c", "12", "4c", "52", "8c", "92", "cc", "d2"]


def kit_network(K, F, t, step, v):
    W, rng = K.W, K.rng
    h, k = v["h"], v["k"]
    if W.nnodes < 2:
        h = 0
    tx = t + sec(rng.uniform(1, 40))
    nicpci = NIC_PCI[k % 8]
    ifn = "ibp%ds0" % int(nicpci, 16)
    if v["transport"] == "IB":
        K.kadd(h, tx - sec(rng.uniform(0.5, 3)), ["mlx5_core 0000:%s:00.0: Port: 1 Link DOWN" % nicpci, "mlx5_core 0000:%s:00.0 %s: Link down" % (nicpci, ifn)])
        if rng.random() < 0.6:
            K.kadd(h, tx + sec(rng.uniform(30, 200)), ["mlx5_core 0000:%s:00.0: Port: 1 Link ACTIVE" % nicpci, "mlx5_core 0000:%s:00.0 %s: Link up" % (nicpci, ifn)])
    else:
        K.kadd(h, tx - sec(1), ["gve 0000:%s:00.0 eth%d: Device link is down." % (nicpci, k % 4 + 1), "gve 0000:%s:00.0: Device was reset" % nicpci])
    r_local = h * W.gpn + k
    other = (h + 1) % W.nnodes
    r_peer = other * W.gpn + k
    victims = [r_local, r_peer]
    if W.gpn > 1 and rng.random() < 0.5:
        victims.append(h * W.gpn + (k + 1) % W.gpn)
    for i, r in enumerate(victims):
        hh = W.host_of(r)
        tt = tx + sec(rng.uniform(5, 25) + i * 0.3)
        peer_ip = W.ips[other] if hh == h else W.ips[h]
        if v["transport"] == "IB":
            warn = [nccl_line(K, r, tt, "transport/net_ib.cc:%d NCCL WARN NET/IB : Got completion from peer %s<%d> with status=12 opcode=%d len=0 vendor err 129 (%s) localGid ::ffff:%s remoteGidsfe80::%x:%x:%x:%x hca mlx5_%d" % (
                rng.choice([1696, 2001, 1473]), peer_ip, rng.randint(30000, 65000), rng.choice([0, 1]), rng.choice(["Send", "Recv"]), W.ips[hh],
                rng.randrange(65536), rng.randrange(65536), rng.randrange(65536), rng.randrange(65536), W.lr(r))),
                nccl_line(K, r, tt, "NCCL INFO transport/net.cc:%d -> 6" % rng.choice([1298, 1316, 1184])),
                nccl_line(K, r, tt, "NCCL INFO proxy.cc:%d -> 6" % rng.choice([694, 698])),
                nccl_line(K, r, tt, "NCCL INFO proxy.cc:%d -> 6 [Progress Thread]" % rng.choice([874, 880]))]
        else:
            warn = [nccl_line(K, r, tt, "misc/socket.cc:%d NCCL WARN socketProgress: Connection closed by remote peer %s<%d>" % (rng.choice([49, 58]), peer_ip, rng.randint(30000, 65000))),
                    nccl_line(K, r, tt, "NCCL INFO misc/socket.cc:%d -> 6" % rng.choice([798, 823])),
                    nccl_line(K, r, tt, "NCCL INFO transport/net_socket.cc:%d -> 6" % rng.choice([474, 530])),
                    nccl_line(K, r, tt, "NCCL INFO transport/net.cc:%d -> 6" % rng.choice([1298, 1316]))]
        F.ends[r] = End(r, tt, -6, warn + nccl_remote_error_block(W, r, W.local(tt, hh), peer_ip, v["transport"]))
    fill_timeouts(K, F, tx, K.seq(step) + 1, next_coll(K, v["phase"]))
    F.truth = (None, h)
    F.notes = "NIC %s (mlx5_%d) on %s went down during %s at step %d; NCCL on that node and on its peers reported network completion errors (ncclRemoteError), everyone else timed out." % (
        ifn if v["transport"] == "IB" else "eth", k, W.hosts[h], v["phase"], step)


def plan_cuda_oom(K):
    fwn = K.fw.name
    opts = [("eval", "eval"), ("train", "train")]
    if fwn in ("hf", "lightning", "custom") and (getattr(K.fw, "fsdp", False) or getattr(K.fw, "strategy", "") == "fsdp" or fwn == "custom"):
        opts += [("save", "fsdp_full")] * 3
    v = pick(K, opts)
    r = 0 if v[1] == "fsdp_full" else K.rng.randrange(K.W.world)
    return dict(phase=v[0], kind=v[1], r=r)


def kit_cuda_oom(K, F, t, step, v):
    W, rng = K.W, K.rng
    r = v["r"]
    h, lr = W.host_of(r), W.lr(r)
    tx = t + sec(rng.uniform(2, 60))
    tot = W.gpu[1]
    tried = rng.uniform(0.5, 12)
    free = rng.uniform(0.05, tried * 0.8)
    inuse = tot - free - rng.uniform(0.3, 0.6)
    alloc = inuse - rng.uniform(0.5, 5)
    reserved = inuse - alloc - 0.4
    msg = oom_msg(W, lr, tried, free, inuse, alloc, max(reserved, 0.1))
    fr = K.fw.frames(v["phase"], "fsdp_full" if v["kind"] == "fsdp_full" else None)
    if v["kind"] == "fsdp_full" and K.fw.name != "custom":
        sp = W.sp
        fr = fr + [(sp + "/torch/nn/modules/module.py", 1939 if W.tv != "2.5" else 2215, "state_dict", "hook_result = hook(self, destination, prefix, local_metadata)"),
                   (sp + "/torch/utils/_contextlib.py", 115 if W.tv != "2.5" else 116, "decorate_context", "return func(*args, **kwargs)"),
                   (sp + "/torch/distributed/fsdp/_state_dict_utils.py", 715 if W.tv != "2.5" else 714, "_post_state_dict_hook", "processed_state_dict = _post_state_dict_hook_fn[fsdp_state._state_dict_type]("),
                   (sp + "/torch/distributed/fsdp/_state_dict_utils.py", 433 if W.tv != "2.5" else 432, "_full_post_state_dict_hook", "return _common_unshard_post_state_dict_hook("),
                   (sp + "/torch/distributed/fsdp/_state_dict_utils.py", 295, "_common_unshard_post_state_dict_hook", "state_dict[fqn] = state_dict[fqn].clone().detach()")]
    exc = [msg]
    F.ends[r] = mk_exc(K, r, tx, fr, exc)
    fill_timeouts(K, F, tx, K.seq(step) + (4 if v["kind"] == "fsdp_full" else 2), next_coll(K, v["phase"] if v["kind"] != "fsdp_full" else "train"))
    F.truth = (r, h)
    what = {"fsdp_full": "gathering the FULL_STATE_DICT on rank 0 for the checkpoint (no CPU offload)", "eval": "evaluation (longer eval sequences)", "train": "training step after resume"}[v["kind"]]
    F.notes = "CUDA OOM on rank %d (%s, GPU %d) while %s at step %d; the other ranks waited and hit the NCCL watchdog timeout." % (r, W.hosts[h], lr, what, step)


def plan_illegal_memory_access(K):
    return dict(phase=pick(K, ["eval", "eval", "train"]), kind=pick(K, ["assert", "assert", "ima", "ima_xid"]), r=K.rng.randrange(K.W.world))


def kit_illegal_memory_access(K, F, t, step, v):
    W, rng = K.W, K.rng
    r = v["r"]
    h, lr = W.host_of(r), W.lr(r)
    tx = t + sec(rng.uniform(1, 30))
    src = "../aten/src/ATen/native/cuda" if W.tv != "2.5" else "/pytorch/aten/src/ATen/native/cuda"
    if v["kind"] == "assert":
        n = rng.randint(4, 40)
        pre = []
        if rng.random() < 0.5:
            for _ in range(n):
                pre.append("%s/Indexing.cu:%d: indexSelectLargeIndex: block: [%d,0,0], thread: [%d,0,0] Assertion `srcIndex < srcSelectDimSize` failed." % (src, 1289 if W.tv != "2.5" else 1308, rng.randint(0, 900), rng.randint(0, 127)))
        else:
            for _ in range(n):
                pre.append("%s/Loss.cu:%d: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [%d,0,0] Assertion `t >= 0 && t < n_classes` failed." % (src, 250 if W.tv != "2.5" else 242, rng.randint(0, 31)))
        fr = K.fw.frames(v["phase"])
        F.ends[r] = mk_exc(K, r, tx, fr, cuda_msg_lines(W, "device-side assert triggered")[:-1], pre_lines=pre)
        what = "device-side assert (token/label id out of range) during %s" % v["phase"]
    else:
        err = "an illegal memory access was encountered"
        if v["kind"] == "ima_xid":
            comm = K.comm()
            K.kadd(h, tx - sec(0.05), ["NVRM: Xid (PCI:0000:%s:00): 31, pid=%d, name=%s, Ch %08x, intr 00000000. MMU Fault: ENGINE GRAPHICS GPC%d GPCCLIENT_T1_%d faulted @ 0x7f%02x_%08x. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ" % (
                pci_of(K, r), W.pids[r], comm, rng.randint(8, 64), rng.randint(0, 7), rng.randint(0, 15), rng.randrange(256), rng.randrange(16 ** 8) & ~0xfff),
                "NVRM: Xid (PCI:0000:%s:00): 13, pid=%d, name=%s, Graphics SM Warp Exception on (GPC %d, TPC %d, SM %d): Out Of Range Address" % (pci_of(K, r), W.pids[r], comm, rng.randint(0, 7), rng.randint(0, 8), rng.randint(0, 1)),
                "NVRM: Xid (PCI:0000:%s:00): 13, pid=%d, name=%s, Graphics Exception: ESR 0x%x=0x%x 0x%x=0x%x 0x%x=0x%x 0x%x=0x%x" % (pci_of(K, r), W.pids[r], comm, 0x524730, 0x2000e, 0x524734, 0, 0x524728, 0x1001d, 0x52472c, 0x8000),
                "NVRM: Xid (PCI:0000:%s:00): 43, pid=%d, name=%s, Ch %08x" % (pci_of(K, r), W.pids[r], comm, rng.randint(8, 64))])
        if rng.random() < 0.5:
            F.ends[r] = End(r, tx, -6, cuda_err_watchdog_block(W, r, W.local(tx, h), err))
        else:
            F.ends[r] = mk_exc(K, r, tx, K.fw.frames(v["phase"]), cuda_msg_lines(W, err)[:-1])
        what = "illegal memory access during %s%s" % (v["phase"], " (app-level Xid 31/13/43 in dmesg)" if v["kind"] == "ima_xid" else "")
    fill_timeouts(K, F, tx, K.seq(step) + 2, next_coll(K, v["phase"]))
    F.truth = (r, h)
    F.notes = "Rank %d on %s hit a %s at step %d; others timed out." % (r, W.hosts[h], what, step)


def plan_python_exception(K):
    fwn = K.fw.name
    opts = []
    if fwn == "hf":
        opts = ["disk_full", "safetensors_full", "state_json", "state_json", "corrupt_zip", "hf_missing", "eval_metric"]
    elif fwn == "lightning":
        opts = ["disk_full", "disk_full", "corrupt_zip", "size_mismatch", "s3_upload"]
    elif fwn == "megatron":
        opts = ["dcp_missing", "dcp_missing", "dcp_save_err", "size_mismatch_dcp"]
    elif fwn == "deepspeed":
        opts = ["ds_missing", "disk_full", "eval_metric", "corrupt_zip"]
    elif fwn == "torchtitan":
        opts = ["dcp_missing", "s3_upload", "dcp_save_err"]
    else:
        opts = ["dcp_missing", "s3_upload", "dcp_save_err", "eval_metric", "size_mismatch_dcp"]
    kind = pick(K, opts)
    phase = {"disk_full": "save", "safetensors_full": "save", "state_json": "save", "corrupt_zip": "load", "hf_missing": "load",
             "eval_metric": "eval", "size_mismatch": "load", "s3_upload": "save", "dcp_missing": "load", "dcp_save_err": "save",
             "size_mismatch_dcp": "load", "ds_missing": "load"}[kind]
    return dict(phase=phase, kind=kind, persistent=(phase == "load"))


def kit_python_exception(K, F, t, step, v):
    W, rng, fw = K.W, K.rng, K.fw
    kind = v["kind"]
    tx = t + sec(rng.uniform(0.5, 30))
    F.persistent = v["persistent"]
    h0 = 0
    if kind in ("disk_full", "safetensors_full"):
        quota = rng.random() < 0.5
        errno = "[Errno 122] Disk quota exceeded" if quota else "[Errno 28] No space left on device"
        r = 0
        if fw.name == "deepspeed":
            writers = sorted(rng.sample(range(W.world), rng.randint(2, min(6, W.world))))
        else:
            writers = [0]
        for i, w in enumerate(writers):
            tt = tx + sec(i * rng.uniform(0.1, 4))
            if kind == "safetensors_full":
                exc = ['safetensors_rust.SafetensorError: Error while serializing: IoError(Os { code: %d, kind: %s, message: "%s" })' % (
                    122 if quota else 28, "FilesystemQuotaExceeded" if quota else "StorageFull", "Disk quota exceeded" if quota else "No space left on device")]
                F.ends[w] = mk_exc(K, w, tt, fw.frames("save"), exc)
            elif fw.name == "lightning":
                F.ends[w] = mk_exc(K, w, tt, fw.frames("save"), ["OSError: %s" % errno])
            else:
                a, ex, b, ex2 = torch_save_frames(W, "write")
                fr = fw.frames("save", "optimizer")
                n1 = rng.randint(3, 400)
                pos = rng.randint(10 ** 6, 10 ** 9)
                F.ends[w] = mk_exc(K, w, tt, fr + b, ["RuntimeError: [enforce fail at %s] . unexpected pos %d vs %d" % (ex2, pos + rng.randint(64, 4096), pos)],
                                   chained=(fr + a, ["RuntimeError: [enforce fail at %s] . PytorchStreamWriter failed writing file data/%d: file write failed" % (ex, n1)]))
        K.extra["df-h.txt"] = df_report(K, quota)
        fill_timeouts(K, F, tx, K.seq(step) + 1, next_coll(K, "save"))
        F.truth = (writers[0], 0) if len(writers) == 1 else (None, None)
        F.notes = "Checkpoint save at step %d failed with %s on the checkpoint file system (rank%s %s); the rest waited in the post-save barrier/next collective and timed out." % (
            step, "disk quota exceeded" if quota else "no space left on device", "" if len(writers) == 1 else "s", ",".join(map(str, writers)))
        K.ckpt["partial"] = step
        return
    if kind == "state_json":
        fr = fw.frames("save", "state_json")
        exc_fr = fr + [(W.stdlib + "/json/__init__.py", 238, "dumps", "**kw).encode(obj)"),
                       (W.stdlib + "/json/encoder.py", 202, "encode", "chunks = list(chunks)"),
                       (W.stdlib + "/json/encoder.py", 432, "_iterencode", "yield from _iterencode_dict(o, _current_indent_level)"),
                       (W.stdlib + "/json/encoder.py", 406, "_iterencode_dict", "yield from chunks"),
                       (W.stdlib + "/json/encoder.py", 326, "_iterencode_list", "yield from chunks"),
                       (W.stdlib + "/json/encoder.py", 439, "_iterencode", "o = _default(o)"),
                       (W.stdlib + "/json/encoder.py", 180, "default", "raise TypeError(f'Object of type {o.__class__.__name__} '")]
        F.ends[0] = mk_exc(K, 0, tx, exc_fr, ["TypeError: Object of type Tensor is not JSON serializable"])
        fill_timeouts(K, F, tx, K.seq(step) + 1, fw.train_coll())
        F.truth = (0, 0)
        F.notes = "Rank 0 crashed writing trainer_state.json for checkpoint-%d (a custom metric logged as a tensor); the other ranks continued into the next collective and timed out." % step
        K.ckpt["partial"] = step
        return
    if kind == "eval_metric":
        fr = fw.frames("eval")[:3]
        entry = fr[0][0]
        exc = pick(K, [("ZeroDivisionError: float division by zero", "ppl = math.exp(total_loss / total_tokens)"),
                       ("KeyError: 'labels'", "labels = batch[\"labels\"]"),
                       ("ValueError: math domain error", "bleu = math.log(precision)")])
        frs = fr[:1] + [(entry.replace("train.py", "evaluate.py") if "train.py" in entry else entry, rng.randint(40, 140), "compute_metrics", exc[1])]
        F.ends[0] = mk_exc(K, 0, tx, frs, [exc[0]])
        fill_timeouts(K, F, tx, K.seq(step) + 1, fw.train_coll())
        F.truth = (0, 0)
        F.notes = "Rank-0-only evaluation/metrics code raised %s at step %d; the other ranks were already waiting in the next training collective and timed out." % (exc[0].split(":")[0], step)
        return
    if kind == "s3_upload":
        bucket = "%s-ml-ckpt" % W.user
        key = "%s/step_%d/__0_0.distcp" % (W.proj, step)
        sp = W.sp
        fr = [(fw.frames("save")[0][0], 441, "<module>", "main()")] if fw.name == "custom" else fw.frames("save")[:2]
        fr = fr + [("/opt/app/trainer/upload.py" if fw.name != "lightning" else "/home/%s/%s/callbacks.py" % (W.user, W.proj), rng.randint(40, 90), "upload_checkpoint", "s3.upload_file(str(path), bucket, key, Config=transfer_cfg)"),
                   (sp + "/boto3/s3/inject.py", 145, "upload_file", "return transfer.upload_file("),
                   (sp + "/boto3/s3/transfer.py", 378, "upload_file", "raise S3UploadFailedError(")]
        msg = "boto3.exceptions.S3UploadFailedError: Failed to upload %s/step_%d/__0_0.distcp to %s/%s: An error occurred (SlowDown) when calling the UploadPart operation (reached max retries: 4): Please reduce your request rate." % (
            "/local_nvme/ckpt_stage", step, bucket, key)
        pre = []
        for i in range(rng.randint(2, 5)):
            tt = tx - sec(40 - i * 8)
            pre.append("%s uploader WARNING: upload of part %d/%d for step_%d/__0_0.distcp failed: An error occurred (SlowDown) when calling the UploadPart operation: Please reduce your request rate. Retrying in %.1fs (attempt %d/4)" % (
                fmt_std(W.local(tt, 0)), rng.randint(1, 300), 320, step, 2.0 * (2 ** i), i + 2))
        F.ends[0] = mk_exc(K, 0, tx, fr, [msg], pre_lines=pre)
        fill_timeouts(K, F, tx, K.seq(step) + 1, next_coll(K, "save"))
        F.truth = (0, 0)
        F.notes = "Rank 0's checkpoint uploader gave up on S3 (SlowDown / 503 throttling, retries exhausted) at step %d and raised; the other ranks timed out in the next collective." % step
        return
    if kind == "dcp_save_err":
        r = rng.randrange(W.world)
        path = "%s/step_%d/__%d_0.distcp" % (getattr(fw, "ckpt", getattr(fw, "folder", getattr(fw, "save", "/ckpt"))), step, r)
        if fw.name == "megatron":
            path = "%s/iter_%07d/__%d_0.distcp" % (fw.save, step, r)
        err = pick(K, ["OSError: [Errno 116] Stale file handle", "OSError: [Errno 5] Input/output error", "OSError: [Errno 122] Disk quota exceeded"])
        sp = W.sp + "/torch/distributed/checkpoint"
        failing = [r]
        L = ["torch.distributed.checkpoint.api.CheckpointException: CheckpointException ranks:dict_keys(%s)" % repr(failing),
             "Traceback (most recent call last): (RANK %d)" % r,
             '  File "%s/utils.py", line %d, in all_reduce' % (sp, 223 if W.tv != "2.5" else 227), "    local_data = map_fun()",
             '  File "%s/logger.py", line %d, in wrapper' % (sp, 83 if W.tv != "2.5" else 87), "    result = func(*args, **kwargs)",
             '  File "%s/state_dict_saver.py", line %d, in write_data' % (sp, 356 if W.tv != "2.5" else 379), "    all_writes = storage_writer.write_data(final_local_plan, planner)",
             '  File "%s/filesystem.py", line %d, in write_data' % (sp, 580 if W.tv != "2.5" else 621), "    _write_files_from_queue(",
             '  File "%s/filesystem.py", line %d, in _write_files_from_queue' % (sp, 360 if W.tv != "2.5" else 386), '    with create_stream(file_name, "wb") as stream:',
             '  File "%s/contextlib.py", line 144, in __exit__' % W.stdlib, "    next(self.gen)",
             '  File "%s/filesystem.py", line %d, in create_stream' % (sp, 398 if W.tv != "2.5" else 420), "    os.fsync(stream.fileno())",
             "%s: '%s'" % (err, path) if "Stale" in err else err, ""]
        fr = fw.frames("save")
        for rr in range(W.world):
            F.ends[rr] = mk_exc(K, rr, tx + sec(rng.uniform(0, 2)), fr, L)
        F.truth = (r, W.host_of(r))
        F.notes = "Distributed checkpoint write at step %d failed on rank %d (%s); DCP propagated the CheckpointException to every rank so all ranks exited." % (step, r, err)
        K.ckpt["partial"] = step
        return
    # ---------------- load-time failures (persistent across restarts) ----------------
    if kind == "dcp_missing":
        r = rng.randrange(W.world)
        if fw.name == "megatron":
            base = "%s/iter_%07d" % (fw.save, step)
        elif fw.name == "torchtitan":
            base = "%s/step-%d" % (fw.folder, step)
        else:
            base = "%s/step_%d" % (fw.ckpt, step)
        path = "%s/__%d_0.distcp" % (base, r)
        L = dcp_read_exc(W, [r], path, "missing")
        fr = fw.frames("load")
        for rr in range(W.world):
            F.ends[rr] = mk_exc(K, rr, tx + sec(rng.uniform(0, 3)), fr, L)
        K.ckpt["missing"] = (step, r)
        F.truth = (r, W.host_of(r))
        F.notes = "Resume from %s failed: shard __%d_0.distcp is missing (previous job was killed while rank %d was still writing it). DCP raised CheckpointException naming rank %d on every rank." % (base, r, r, r)
        return
    if kind in ("size_mismatch", "size_mismatch_dcp"):
        a = rng.choice([50257, 32000, 128256, 151936])
        b = a + rng.choice([64, 128, 256, 8])
        d = rng.choice([2048, 4096, 5120])
        if kind == "size_mismatch":
            L = ["RuntimeError: Error(s) in loading state_dict for %s:" % rng.choice(["GPTLightningModule", "LitLLM", "CausalLMModule"]),
                 "\tsize mismatch for model.tok_embeddings.weight: copying a param with shape torch.Size([%d, %d]) from checkpoint, the shape in current model is torch.Size([%d, %d])." % (a, d, b, d),
                 "\tsize mismatch for model.output.weight: copying a param with shape torch.Size([%d, %d]) from checkpoint, the shape in current model is torch.Size([%d, %d])." % (a, d, b, d)]
            fr = fw.frames("load", "state_dict")
        else:
            L = ["torch.distributed.checkpoint.api.CheckpointException: CheckpointException ranks:dict_keys(%s)" % repr(list(range(W.world))[:min(W.world, 64)])]
            for rr in range(min(W.world, 3)):
                L += ["Traceback (most recent call last): (RANK %d)" % rr,
                      '  File "%s/torch/distributed/checkpoint/utils.py", line %d, in reduce_scatter' % (W.sp, 192 if W.tv != "2.5" else 196), "    local_data = map_fun()",
                      '  File "%s/torch/distributed/checkpoint/state_dict_loader.py", line %d, in local_step' % (W.sp, 202 if W.tv != "2.5" else 207), "    local_plan = planner.create_local_plan()",
                      '  File "%s/torch/distributed/checkpoint/default_planner.py", line %d, in create_local_plan' % (W.sp, 307 if W.tv != "2.5" else 322), "    return create_default_local_load_plan(",
                      '  File "%s/torch/distributed/checkpoint/default_planner.py", line %d, in create_default_local_load_plan' % (W.sp, 426 if W.tv != "2.5" else 451), "    raise ValueError(",
                      "ValueError: Size mismatch between saved torch.Size([%d, %d]) and current: torch.Size([%d, %d]) for %s" % (a, d, b, d, rng.choice(["model.embedding.word_embeddings.weight", "model.tok_embeddings.weight", "embedding.word_embeddings.weight"])), ""]
            fr = fw.frames("load")
        for rr in range(W.world):
            F.ends[rr] = mk_exc(K, rr, tx + sec(rng.uniform(0, 2)), fr, L)
        F.truth = (None, None)
        F.notes = "Restart resumed from a checkpoint written with a different vocab/model config (%d vs %d rows); every rank failed identically while loading." % (a, b)
        return
    if kind == "corrupt_zip":
        rank0_only = False
        if fw.name == "hf":
            fr = fw.frames("load", "optimizer") + torch_load_frames(W)
            fname = "%s/checkpoint-%d/optimizer.pt" % (fw.outdir, step)
        elif fw.name == "lightning":
            fr = fw.frames("load") + torch_load_frames(W)
            fname = "%s/last.ckpt" % fw.ckdir
        else:
            fr = fw.frames("load") + torch_load_frames(W)
            fname = "%s/global_step%d/%s" % (fw.save, step, fw.zname(0)[1])
            rank0_only = False
        exc = ["RuntimeError: PytorchStreamReader failed reading zip archive: failed finding central directory"]
        K.ckpt["corrupt"] = (step, fname)
        if rank0_only:
            F.ends[0] = mk_exc(K, 0, tx, fr, exc)
            fill_timeouts(K, F, tx, K.seq_base, ("BROADCAST", 1, 1), enq=K.seq_base, comp=K.seq_base - 1)
            F.truth = (0, 0)
            F.notes = "Resume: rank 0 loads %s and broadcasts it, but the file is truncated (previous attempt died mid-save) -> PytorchStreamReader error on rank 0; the others timed out waiting in the broadcast." % fname
        else:
            for rr in range(W.world):
                F.ends[rr] = mk_exc(K, rr, tx + sec(rng.uniform(0, 3)), fr, exc)
            F.truth = (None, None)
            F.notes = "Resume from a truncated checkpoint file %s (previous attempt died mid-save): every rank fails with 'PytorchStreamReader failed reading zip archive'." % fname
        return
    if kind == "hf_missing":
        fr = fw.frames("load", "missing")
        exc = ["ValueError: Can't find a valid checkpoint at %s/checkpoint-%d" % (fw.outdir, step)]
        for rr in range(W.world):
            F.ends[rr] = mk_exc(K, rr, tx + sec(rng.uniform(0, 2)), fr, exc)
        K.ckpt["missing"] = (step, None)
        F.truth = (None, None)
        F.notes = "--resume_from_checkpoint points at checkpoint-%d, which was never completely written (only config.json exists); every rank raises ValueError at startup." % step
        return
    if kind == "ds_missing":
        r = rng.randrange(W.world)
        m, o = fw.zname(r)
        fname = "%s/global_step%d/%s" % (fw.save, step, o)
        fr = fw.frames("load") + torch_open_frames(W)
        exc = ["FileNotFoundError: [Errno 2] No such file or directory: '%s'" % fname]
        for rr in range(W.world):
            F.ends[rr] = mk_exc(K, rr, tx + sec(rng.uniform(0, 3)), fr, exc)
        K.ckpt["missing"] = (step, r)
        F.truth = (None, None)
        F.notes = "'latest' points to global_step%d but ZeRO partition of rank %d is missing (previous attempt died during save); all ranks fail in load_checkpoint." % (step, r)
        return
    raise ValueError(kind)


def df_report(K, quota):
    W, rng, fw = K.W, K.rng, K.fw
    path = getattr(fw, "outdir", None) or getattr(fw, "ckdir", None) or getattr(fw, "save", "/ckpt")
    mnt = "/" + path.strip("/").split("/")[0]
    if quota:
        return ("$ lfs quota -u %s %s\nDisk quotas for usr %s (uid %d):\n     Filesystem  kbytes   quota   limit   grace   files   quota   limit   grace\n%16s %d* %d %d       -  %d       0       0       -\n" % (
            W.user, mnt, W.user, rng.randint(1000, 60000), mnt, 10737418240 + rng.randint(0, 9999), 10737418240, 10737418240, rng.randint(10000, 900000)))
    size = rng.choice([100, 200, 500, 1000])
    return ("$ df -h %s\nFilesystem                 Size  Used Avail Use%% Mounted on\n%-26s %4dT %4dT     0 100%% %s\n" % (
        path, rng.choice(["nfs01:/export/home", "10.20.0.15:/vol/ml", "/dev/md0", "fs-0123abcd.efs:/"]), size, size, mnt))


def oom_kernel_lines(K, h, victim_r, cgroup):
    W, rng = K.W, K.rng
    pid = W.pids[victim_r]
    trig = W.pids[W.ranks_on(h)[rng.randrange(W.gpn)]]
    comm = K.comm()
    if W.kind == "k8s":
        kern = rng.choice(["6.1.85+ #1 SMP PREEMPT_DYNAMIC Sat Jun  1 08:47:06 UTC 2024", "6.1.100+ #1 SMP PREEMPT_DYNAMIC Sat Aug 24 16:19:44 UTC 2024"])
        hw = "Google Google Compute Engine/Google Compute Engine, BIOS Google %s" % rng.choice(["05/14/2024", "08/09/2024"])
    elif W.kind == "cloud":
        kern = rng.choice(["5.15.0-1061-aws #67~20.04.1-Ubuntu", "6.8.0-1015-aws #16-Ubuntu"])
        hw = "Amazon EC2 %s/, BIOS 1.0 10/16/2017" % rng.choice(["p5.48xlarge", "p4d.24xlarge", "p5e.48xlarge"])
    else:
        kern = rng.choice(["5.15.0-1048-nvidia #48-Ubuntu", "5.15.0-105-generic #115-Ubuntu", "6.5.0-1018-nvidia #18-Ubuntu", "4.18.0-513.24.1.el8_9.x86_64 #1"])
        hw = rng.choice(["NVIDIA DGXH100/DGXH100, BIOS 1.5.0 09/06/2023", "Supermicro SYS-821GE-TNHR/X13DEG-OAD, BIOS 2.1 02/21/2024", "Dell Inc. PowerEdge XE9680/00RRR0, BIOS 1.6.2 12/12/2023"])
    L = ["%s invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0" % comm,
         "CPU: %d PID: %d Comm: %s Tainted: P           OE     %s" % (rng.randint(0, 223), trig, comm, kern),
         "Hardware name: %s" % hw,
         "Call Trace:", " <TASK>", " dump_stack_lvl+0x48/0x70", " dump_header+0x4a/0x220", " oom_kill_process+0x10b/0x140",
         " out_of_memory+0x103/0x350", " mem_cgroup_out_of_memory+0x13b/0x170" if cgroup else " __alloc_pages_slowpath.constprop.0+0xcb1/0xd90",
         " try_charge_memcg+0x6ee/0x7c0" if cgroup else " __alloc_pages+0x30b/0x330", " charge_memcg+0x45/0xb0" if cgroup else " alloc_pages+0x90/0x1a0",
         " __mem_cgroup_charge+0x2d/0x90" if cgroup else " pagecache_get_page+0x1a0/0x4f0", " do_anonymous_page+0x112/0x3a0", " __handle_mm_fault+0x7e5/0xd40",
         " handle_mm_fault+0xd8/0x2c0", " do_user_addr_fault+0x1b8/0x670", " exc_page_fault+0x77/0x170", " asm_exc_page_fault+0x27/0x30", " </TASK>"]
    if cgroup:
        L.append("memory: usage %dkB, limit %dkB, failcnt %d" % (rng.randint(10 ** 9, 2 * 10 ** 9), 2 * 10 ** 9, rng.randint(1, 50)))
    L.append("Tasks state (memory values in pages):")
    L.append("[  pid  ]   uid  tgid total_vm      rss pgtables_bytes swapents oom_score_adj name")
    for r in W.ranks_on(h):
        rss = rng.randint(8 * 10 ** 6, 20 * 10 ** 6) * (3 if r == victim_r else 1)
        L.append("[%7d]  %4d %7d %8d %8d %14d        0             0 %s" % (W.pids[r], 1000 + rng.randint(0, 500) if False else 1000, W.pids[r], rss * 2, rss, rss // 300 * 4096, comm))
    if cgroup:
        cg = getattr(K, "cg_path", None) or ("/slurm/uid_%d/job_%d" % (1000, K.jobid))
        L.append("oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0-1,oom_memcg=%s,task_memcg=%s/step_0/task_%d,task=%s,pid=%d,uid=1000" % (cg, cg, W.lr(victim_r), comm, pid))
        L.append("Memory cgroup out of memory: Killed process %d (%s) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:1000 pgtables:%dkB oom_score_adj:0" % (
            pid, comm, rng.randint(3 * 10 ** 8, 9 * 10 ** 8), rng.randint(10 ** 8, 4 * 10 ** 8), rng.randint(10 ** 5, 10 ** 6), rng.randint(10 ** 5, 10 ** 7), rng.randint(2 * 10 ** 5, 10 ** 6)))
    else:
        L.append("oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0-1,global_oom,task_memcg=/user.slice/user-1000.slice/session-%d.scope,task=%s,pid=%d,uid=1000" % (rng.randint(2, 900), comm, pid))
        L.append("Out of memory: Killed process %d (%s) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:1000 pgtables:%dkB oom_score_adj:0" % (
            pid, comm, rng.randint(3 * 10 ** 8, 9 * 10 ** 8), rng.randint(10 ** 8, 4 * 10 ** 8), rng.randint(10 ** 5, 10 ** 6), rng.randint(10 ** 5, 10 ** 7), rng.randint(2 * 10 ** 5, 10 ** 6)))
    L.append("oom_reaper: reaped process %d (%s), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB" % (pid, comm))
    return L


def plan_host_oom_kill(K):
    opts = [("save", "offload"), ("save", "async_staging"), ("load", "load_full")]
    if K.fw.name == "torchtitan":
        opts = [("save", "async_staging"), ("load", "load_full")]
    v = pick(K, opts)
    h = K.rng.randrange(K.W.nnodes) if v[1] != "offload" else 0
    return dict(phase=v[0], kind=v[1], h=h, victim=h * K.W.gpn + K.rng.randrange(K.W.gpn))


def kit_host_oom_kill(K, F, t, step, v):
    W, rng = K.W, K.rng
    h, victim = v["h"], v["victim"]
    tx = t + sec(rng.uniform(5, 90))
    cgroup = K.layout != "fsdp-torchrun-logdir" or rng.random() < 0.3
    if K.layout == "torchtitan-k8s":
        K.cg_path = "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod%s.slice" % "".join(rng.choice("0123456789abcdef") for _ in range(32))
    K.kadd(h, tx, oom_kernel_lines(K, h, victim, cgroup))
    F.ext["oom"] = (tx, h, victim)
    if K.layout == "torchtitan-k8s":
        # cgroup v2 memory.oom.group: the whole container goes down, exit 137 / OOMKilled
        F.ext["node_kill"] = {h: (tx + sec(0.2), 9)}
        for r in W.ranks_on(h):
            F.ends[r] = End(r, tx, None, [])
        fill_timeouts(K, F, tx, K.seq(step) + 1, next_coll(K, v["phase"]))
        F.truth = (None, h)
    else:
        F.ends[victim] = End(victim, tx + sec(0.01), -9, [])
        fill_timeouts(K, F, tx, K.seq(step) + 1, next_coll(K, v["phase"]))
        F.truth = (victim, h)
        F.pid_check = victim
    what = {"offload": "gathering a full state dict with CPU offload on every local rank for the checkpoint",
            "async_staging": "staging an async (DCP) checkpoint into pinned host memory",
            "load_full": "every local rank torch.load()-ing the full checkpoint into host RAM on resume"}[v["kind"]]
    F.persistent = v["kind"] == "load_full"
    F.notes = "Host memory exhausted on %s while %s (step %d); the kernel OOM killer killed pid %d (rank %d). Remaining ranks timed out." % (W.hosts[h], what, step, W.pids[victim], victim)


def plan_crash_signal(K):
    opts = [("save", "segv_async"), ("load", "bus_mmap"), ("eval", "abrt_free"), ("eval", "segv_eval")]
    if K.fw.name in ("hf",):
        opts = [("load", "bus_mmap"), ("eval", "abrt_free"), ("eval", "segv_eval"), ("save", "segv_async")]
    v = pick(K, opts)
    r = 0 if v[1] in ("segv_eval",) and K.rng.random() < 0.6 else K.rng.randrange(K.W.world)
    return dict(phase=v[0], kind=v[1], r=r)


def kit_crash_signal(K, F, t, step, v):
    W, rng, fw = K.W, K.rng, K.fw
    r = v["r"]
    h = W.host_of(r)
    tx = t + sec(rng.uniform(1, 40))
    pre = tb_pre(W, r)
    kind = v["kind"]
    lines = []
    fault = rng.random() < 0.5
    thr = "0x%016x" % (rng.randrange(0x7f0000000000, 0x7fffffffffff) & ~0xff | 0x40)
    if kind == "segv_async":
        code = -11
        if fault:
            lines = ["Fatal Python error: Segmentation fault", "", "Thread %s (most recent call first):" % thr,
                     '  File "%s/torch/distributed/checkpoint/filesystem.py", line %d in _write_item' % (W.sp, 147 if W.tv != "2.5" else 161),
                     '  File "%s/torch/distributed/checkpoint/filesystem.py", line %d in _write_files_from_queue' % (W.sp, 362 if W.tv != "2.5" else 390),
                     '  File "%s/threading.py", line 953 in run' % W.stdlib, '  File "%s/threading.py", line 1016 in _bootstrap_inner' % W.stdlib,
                     '  File "%s/threading.py", line 973 in _bootstrap' % W.stdlib, "", "Current thread 0x%016x (most recent call first):" % (rng.randrange(0x7f0000000000, 0x7fffffffffff) & ~0xfff | 0x740),
                     '  File "%s" line %d in train' % (fw.frames("train")[0][0], rng.randint(300, 420)), ""]
        base = rng.randrange(0x7f0000000000, 0x7fffffffffff) & ~0xfff
        seg = "%s[%d]: segfault at %x ip %016x sp %016x error 4 in libtorch_cpu.so[%x+%x] likely on CPU %d (core %d, socket %d)" % (
            K.comm(), W.pids[r] + rng.randint(1, 90), rng.randrange(16 ** 4), base + rng.randrange(0x1000000, 0x5000000),
            rng.randrange(0x7f0000000000, 0x7fffffffffff) & ~0xf, base, rng.randrange(0x4000000, 0x8000000) & ~0xfff, rng.randint(0, 200), rng.randint(0, 100), rng.randint(0, 1))
        K.kadd(h, tx, seg)
        what = "SIGSEGV in the async checkpoint writer thread"
    elif kind == "bus_mmap":
        code = -7
        if fault:
            lines = ["Fatal Python error: Bus error", "", "Current thread %s (most recent call first):" % thr,
                     '  File "%s/safetensors/torch.py", line 313 in load_file' % W.sp,
                     '  File "%s/torch/serialization.py", line %d in load' % (W.sp, 1360 if W.tv == "2.5" else 1025),
                     '  File "%s" line %d in main' % (fw.frames("load")[0][0], rng.randint(100, 240)), ""]
        what = "SIGBUS reading an mmap'ed checkpoint file that was truncated/replaced underneath it"
        F.persistent = rng.random() < 0.5
    elif kind == "abrt_free":
        code = -6
        lines = [rng.choice(["double free or corruption (!prev)", "free(): invalid pointer", "malloc(): unsorted double linked list corrupted", "corrupted size vs. prev_size"])]
        what = "heap corruption abort (SIGABRT) in native code during evaluation"
    else:
        code = -11
        if fault:
            lines = ["Fatal Python error: Segmentation fault", "", "Current thread %s (most recent call first):" % thr,
                     '  File "%s/tokenizers/implementations/base_tokenizer.py", line 324 in decode_batch' % W.sp if rng.random() < 0.5 else '  File "%s/transformers/tokenization_utils_fast.py", line 653 in _decode' % W.sp,
                     '  File "%s" line %d in compute_metrics' % (fw.frames("eval")[0][0], rng.randint(40, 140)), ""]
        base = rng.randrange(0x7f0000000000, 0x7fffffffffff) & ~0xfff
        seg = "%s[%d]: segfault at 0 ip %016x sp %016x error 4 in tokenizers.cpython-3%s-x86_64-linux-gnu.so[%x+%x] likely on CPU %d (core %d, socket 0)" % (
            K.comm(), W.pids[r], base + rng.randrange(0x100000, 0x600000), rng.randrange(0x7ff000000000, 0x7fffffffffff) & ~0xf, W.py.split(".")[1],
            base, rng.randrange(0x600000, 0x900000) & ~0xfff, rng.randint(0, 200), rng.randint(0, 100))
        K.kadd(h, tx, seg)
        what = "SIGSEGV in the tokenizer while decoding generations for evaluation"
    F.ends[r] = End(r, tx, code, lines)
    fill_timeouts(K, F, tx, K.seq(step) + 1, next_coll(K, v["phase"]))
    F.truth = (r, h)
    F.notes = "Rank %d on %s died from %s (exit signal %s, no hardware errors) at step %d%s; others timed out." % (
        r, W.hosts[h], what, SIGNAME[code], step, " (resume)" if v["phase"] == "load" else "")


def plan_preemption(K):
    lay = K.layout
    if lay in ("hf-slurm", "megatron-distckpt"):
        kind = pick(K, ["timelimit", "timelimit", "preempt"])
    elif lay == "lightning-requeue":
        kind = pick(K, ["requeue", "timelimit", "preempt"])
    elif lay == "torchtitan-k8s":
        kind = "spot"
    else:
        kind = "spot_cloud"
    phase = pick(K, ["save", "save", "train"]) if kind != "requeue" else "train"
    return dict(phase=phase, kind=kind, h=K.rng.randrange(K.W.nnodes))


def kit_preemption(K, F, t, step, v):
    W, rng = K.W, K.rng
    tx = t + sec(rng.uniform(5, 200) if v["phase"] == "save" else rng.uniform(1, 30))
    kind = v["kind"]
    if kind in ("timelimit", "preempt", "requeue"):
        for r in range(W.world):
            F.ends[r] = End(r, tx, None, [])
        F.ext["cancel"] = (tx, {"timelimit": "TIME LIMIT", "preempt": "PREEMPTION", "requeue": "JOB REQUEUE"}[kind])
        F.truth = (None, None)
        F.notes = {"timelimit": "Slurm time limit hit while the job was %s at step %d; scheduler SIGTERMed every task." % ("writing a checkpoint" if v["phase"] == "save" else "training", step),
                   "preempt": "Job preempted by a higher-priority job (Slurm preemption) at step %d%s; every task SIGTERMed." % (step, " in the middle of a checkpoint save" if v["phase"] == "save" else ""),
                   "requeue": "Lightning auto-requeue: SIGUSR1 before the time limit, HPC checkpoint saved, job requeued; the last attempt also ended by requeue (job pending again)."}[kind]
        if v["phase"] == "save":
            K.ckpt["partial"] = step
        return
    h = v["h"]
    if kind == "spot_cloud":
        iid = "i-%017x" % rng.randrange(16 ** 17)
        K.kadd(h, tx - sec(120), ["@spot-termination-handler[%d]: Received EC2 Spot Instance interruption notice for %s: {\"action\": \"terminate\", \"time\": \"%sZ\"}" % (
            rng.randint(900, 4000), iid, (tx + sec(rng.uniform(-5, 5))).strftime("%Y-%m-%dT%H:%M:%S")),
            "@spot-termination-handler[%d]: draining node: stopping training service (SIGTERM to torchrun)" % rng.randint(900, 4000)])
        K.kadd(h, tx - sec(0.5), ["@systemd[1]: Stopping trainer.service - distributed training job..."])
        K.kadd(h, tx + sec(30), ["@systemd-logind[%d]: System is powering down." % rng.randint(600, 2000)])
    for r in W.ranks_on(h):
        F.ends[r] = End(r, tx, None, [])
    F.ext["node_kill"] = {h: (tx, 15)}
    F.ext["spot"] = (tx, h)
    fill_timeouts(K, F, tx, K.seq(step) + 1, next_coll(K, v["phase"]))
    F.truth = (None, h)
    F.notes = "%s was reclaimed (spot/preemptible capacity) at step %d; its torchrun agent got SIGTERM, the other nodes timed out in NCCL." % (
        W.hosts[h], step)


def pyspy_dump(K, r, stack, idle=False):
    W = K.W
    lines = ["Process %d: %s -u %s" % (W.pids[r], W.pybin, K.fw.script),
             "Python v%s.%d (%s)" % (W.py, K.rng.randint(4, 14), W.pybin), "",
             'Thread %d (%s): "MainThread"' % (W.pids[r], "idle" if idle else "active")]
    for fn, path, ln in stack:
        lines.append("    %s (%s:%d)" % (fn, path, ln))
    lines += ["", 'Thread %d (idle): "Thread-%d (_pin_memory_loop)"' % (W.pids[r] + K.rng.randint(200, 900), K.rng.randint(2, 9)),
              "    _recv_msg (torch/utils/data/_utils/pin_memory.py:30)" if False else "    wait (threading.py:324)",
              "    get (queue.py:180)", "    do_one_step (torch/utils/data/_utils/pin_memory.py:30)",
              "    _pin_memory_loop (torch/utils/data/_utils/pin_memory.py:55)", "    run (threading.py:953)",
              "    _bootstrap_inner (threading.py:1016)", "    _bootstrap (threading.py:973)", ""]
    return "\n".join(lines)


def plan_hang(K):
    fwn = K.fw.name
    opts = ["rank0_eval", "rank0_eval", "rank0_logging", "rankk_deadlock"]
    return dict(phase="eval" if pick(K, [0, 1]) or fwn in ("custom", "deepspeed") else "save", kind=pick(K, opts), k=K.rng.randrange(1, K.W.world))


def kit_hang(K, F, t, step, v):
    W, rng, fw = K.W, K.rng, K.fw
    kind = v["kind"]
    r = 0 if kind != "rankk_deadlock" else v["k"]
    h = W.host_of(r)
    tx = t + sec(rng.uniform(1, 20))
    F.ends[r] = End(r, tx, None, [])
    seq = K.seq(step) + 1
    fill_timeouts(K, F, tx, seq, next_coll(K, "train" if v["phase"] == "eval" else v["phase"]), enq=seq, comp=seq - 1)
    if kind == "rank0_eval":
        stack = [("_sample", "transformers/generation/utils.py", 3055), ("generate", "transformers/generation/utils.py", 2024),
                 ("decorate_context", "torch/utils/_contextlib.py", 116), ("run_generation_eval", "eval_hooks.py", rng.randint(40, 120)),
                 ("on_evaluate", "callbacks.py", rng.randint(20, 90))]
        what = "rank 0 ran a rank-0-only generation eval (no max_new_tokens / EOS never produced) that never returned"
    elif kind == "rank0_logging":
        stack = [("wait", "threading.py", 324), ("wait", "threading.py", 607), ("_wait", "wandb/sdk/lib/mailbox.py", 133),
                 ("wait", "wandb/sdk/lib/mailbox.py", 283), ("_log", "wandb/sdk/wandb_run.py", 1542), ("log", "wandb/sdk/wandb_run.py", 1768),
                 ("log_metrics", "logging_utils.py", rng.randint(30, 90))]
        what = "rank 0 blocked inside a rank-0-only logging call (wandb run.log / artifact upload of the eval table) for longer than the NCCL timeout"
    else:
        stack = [("acquire", "threading.py", 168) if False else ("wait", "threading.py", 320), ("acquire", "filelock/_api.py", 297),
                 ("__enter__", "filelock/_api.py", 328), ("_load_eval_cache", "data/eval_cache.py", rng.randint(30, 80)),
                 ("build_eval_loader", "data/loaders.py", rng.randint(60, 160))]
        what = "rank %d deadlocked on a stale file lock while building the eval dataset cache" % r
    if rng.random() < 0.7 or kind == "rankk_deadlock":
        K.extra["py-spy-dump-rank%d.txt" % r] = "$ py-spy dump --pid %d  # on %s\n" % (W.pids[r], W.hosts[h]) + pyspy_dump(K, r, stack, idle=True)
    if kind == "rank0_logging" and rng.random() < 0.6:
        F.ends[r].prepend(tx - sec(30), ["wandb: Network error (ConnectTimeout), entering retry loop."])
    F.truth = (r, h)
    F.notes = "Hang: %s at step %d; every other rank enqueued the next collective (SeqNum %d) and hit the watchdog timeout, rank %d never did." % (what, step, seq, r)


def plan_data_loader_stall(K):
    lay = K.layout
    opts = ["lustre_read", "nfs_save"]
    if lay in ("megatron-distckpt", "fsdp-torchrun-logdir"):
        opts = ["lustre_read", "lustre_read", "lustre_ckpt_write"]
    if lay == "torchtitan-k8s":
        opts = ["gcsfuse", "gcsfuse", "lustre_read"]
    if lay == "deepspeed-pdsh":
        opts = ["nfs_save", "nfs_read"]
    kind = pick(K, opts)
    phase = {"lustre_read": "data", "nfs_save": "save", "lustre_ckpt_write": "save", "gcsfuse": "data", "nfs_read": "data"}[kind]
    r = K.rng.randrange(K.W.world) if kind != "nfs_save" else 0
    return dict(phase=phase, kind=kind, r=r, dl_timeout=K.rng.random() < 0.5)


def hung_task_lines(K, h, pid, comm, fs):
    rng = K.rng
    L = ["INFO: task %s:%d blocked for more than %d seconds." % (comm[:15], pid, rng.choice([120, 122, 241, 362, 483])),
         "      Tainted: P           OE     5.15.0-105-generic #115-Ubuntu",
         '"echo 0 > /proc/sys/kernel/hung_task_timeout_secs" disables this message.',
         "task:%-15s state:D stack:    0 pid:%5d ppid:%5d flags:0x00000002" % (comm[:15], pid, pid - rng.randint(1, 400)),
         "Call Trace:", " <TASK>", " __schedule+0x2cd/0x8a0", " schedule+0x4e/0xc0"]
    if fs == "nfs":
        L += [" rpc_wait_bit_killable+0x25/0xb0 [sunrpc]", " __wait_on_bit+0x33/0xa0", " out_of_line_wait_on_bit+0x91/0xb0",
              " nfs_wait_on_request+0x4f/0x60 [nfs]", " nfs_lock_and_join_requests+0x10c/0x2c0 [nfs]", " nfs_updatepage+0x16d/0xa30 [nfs]",
              " nfs_write_end+0x84/0x2f0 [nfs]", " generic_perform_write+0xc1/0x1c0", " nfs_file_write+0x1a1/0x2c0 [nfs]",
              " new_sync_write+0x114/0x1a0", " vfs_write+0x1c5/0x260", " ksys_write+0x67/0xf0"]
    elif fs == "nfsr":
        L += [" rpc_wait_bit_killable+0x25/0xb0 [sunrpc]", " __rpc_execute+0x11c/0x370 [sunrpc]", " rpc_execute+0x59/0xc0 [sunrpc]",
              " rpc_run_task+0x164/0x1a0 [sunrpc]", " nfs4_call_sync_sequence+0x6d/0xa0 [nfsv4]", " _nfs4_proc_getattr+0x12c/0x150 [nfsv4]",
              " nfs4_proc_getattr+0x74/0x130 [nfsv4]", " __nfs_revalidate_inode+0xd1/0x2f0 [nfs]", " nfs_file_read+0x44/0xb0 [nfs]",
              " new_sync_read+0x10e/0x1a0", " vfs_read+0x14d/0x1a0", " ksys_read+0x67/0xf0"]
    elif fs == "fuse":
        L += [" request_wait_answer+0x133/0x210 [fuse]", " fuse_simple_request+0x1a9/0x310 [fuse]", " fuse_do_readpage+0x144/0x1e0 [fuse]",
              " fuse_readpage+0x44/0x70 [fuse]", " filemap_read_page+0x3e/0xe0", " filemap_get_pages+0x5b5/0x700", " filemap_read+0xd5/0x340",
              " fuse_file_read_iter+0x120/0x170 [fuse]", " new_sync_read+0x10e/0x1a0", " vfs_read+0x14d/0x1a0", " ksys_read+0x67/0xf0"]
    else:
        L += [" cl_sync_io_wait+0x1d5/0x2e0 [obdclass]", " ll_io_read_page+0x3ba/0x580 [lustre]" if fs == "lustre" else " vvp_io_write_commit+0x2b1/0x5a0 [lustre]",
              " ll_readpage+0xd6/0x6f0 [lustre]" if fs == "lustre" else " vvp_io_write_start+0x5e8/0x8a0 [lustre]",
              " filemap_read_page+0x3e/0xe0" if fs == "lustre" else " cl_io_start+0x5c/0x120 [obdclass]", " cl_io_loop+0x9a/0x200 [obdclass]",
              " ll_file_io_generic+0x43c/0xd60 [lustre]", " ll_file_read_iter+0x1c9/0x2a0 [lustre]" if fs == "lustre" else " ll_file_write_iter+0x2a4/0x430 [lustre]",
              " new_sync_read+0x10e/0x1a0" if fs == "lustre" else " new_sync_write+0x114/0x1a0", " vfs_read+0x14d/0x1a0" if fs == "lustre" else " vfs_write+0x1c5/0x260"]
    L += [" do_syscall_64+0x59/0xc0", " entry_SYSCALL_64_after_hwframe+0x62/0xcc", " </TASK>"]
    return L


def lustre_err_lines(K, h, t, fsname, op):
    rng = K.rng
    ost = "%s-OST%04x" % (fsname, rng.randrange(0, 96))
    ip = "10.%d.%d.%d@o2ib" % (rng.randint(0, 30), rng.randint(0, 255), rng.randint(2, 250))
    cl = "ffff%012x" % (rng.randrange(16 ** 12) & ~0xfff)
    ep = int((K.W.local(t, h) - datetime(1970, 1, 1)).total_seconds())
    K.kadd(h, t, ["Lustre: %d:0:(client.c:2310:ptlrpc_expire_one_request()) @@@ Request sent has timed out for slow reply: [sent %d/real %d]  req@ffff%012x x%d/t0(0) o%d->%s-osc-%s@%s:6/4 lens 488/448 e 0 to 1 dl %d ref 2 fl Rpc:Xr/0/ffffffff rc 0/-1 job:''" % (
        rng.randint(2000, 9000), ep - 47, ep - 47, rng.randrange(16 ** 12) & ~0x3f, rng.randrange(10 ** 15), 3 if op == "read" else 4, ost, cl, ip, ep),
        "Lustre: %s-osc-%s: Connection to %s (at %s) was lost; in progress operations using this service will wait for recovery to complete" % (ost, cl, ost, ip),
        "LustreError: 11-0: %s-osc-%s: operation ost_connect to node %s failed: rc = -16" % (ost, cl, ip)])
    K.kadd(h, t + sec(rng.uniform(60, 300)), ["LustreError: 11-0: %s-osc-%s: operation ost_%s to node %s failed: rc = -107" % (ost, cl, op, ip),
                                              "LustreError: %d:0:(import.c:%d:ptlrpc_connect_interpret()) %s@%s: reconnect timed out" % (rng.randint(2000, 9000), rng.choice([1362, 1399]), ost, ip)])
    return ost


def kit_data_loader_stall(K, F, t, step, v):
    W, rng, fw = K.W, K.rng, K.fw
    kind, r = v["kind"], v["r"]
    h = W.host_of(r)
    tx = t + sec(rng.uniform(0.5, 15))
    seq = K.seq(step) + 1
    comm = K.comm()
    if kind in ("lustre_read", "nfs_read", "gcsfuse"):
        worker_pid = W.pids[r] + rng.randint(300, 3000)
        fs = {"lustre_read": "lustre", "nfs_read": "nfsr", "gcsfuse": "fuse"}[kind]
        if kind == "lustre_read":
            K.lfs = getattr(K, "lfs", "scratch")
            lustre_err_lines(K, h, tx - sec(rng.uniform(5, 60)), K.lfs, "read")
        elif kind == "nfs_read":
            srv = rng.choice(["nfs01", "datasets-nas", "10.20.0.15"])
            K.kadd(h, tx - sec(20), "nfs: server %s not responding, still trying" % srv)
        K.kadd(h, tx + sec(rng.uniform(125, 500)), hung_task_lines(K, h, worker_pid, "pt_data_worker" if rng.random() < 0.5 else comm, fs))
        if kind == "gcsfuse":
            K.gcsfuse = (h, tx)
        if v["dl_timeout"]:
            dlt = rng.choice([120, 300, 600])
            dlt = min(dlt, K.fw.timeout_ms / 1000.0 * 0.6)
            fr = fw.frames("data")
            F.ends[r] = mk_exc(K, r, tx + sec(dlt), fr, ["RuntimeError: DataLoader timed out after %d seconds" % int(dlt)])
            F.truth = (r, h)
        else:
            F.ends[r] = End(r, tx, None, [])
            F.truth = (None, h)
            if rng.random() < 0.5:
                K.extra["py-spy-dump-rank%d.txt" % r] = "$ py-spy dump --pid %d  # on %s\n" % (W.pids[r], W.hosts[h]) + pyspy_dump(K, r, [
                    ("_poll", "multiprocessing/connection.py", 424), ("poll", "multiprocessing/connection.py", 257), ("get", "multiprocessing/queues.py", 113),
                    ("_try_get_data", "torch/utils/data/dataloader.py", 1133), ("_get_data", "torch/utils/data/dataloader.py", 1294),
                    ("_next_data", "torch/utils/data/dataloader.py", 1328), ("__next__", "torch/utils/data/dataloader.py", 630)], idle=True)
                F.truth = (r, h)
        fill_timeouts(K, F, tx, seq, fw.train_coll(), enq=seq, comp=seq - 1)
        F.notes = "Rank %d's data loader on %s stalled reading training shards from %s (%s); %s; the other ranks timed out in the next collective." % (
            r, W.hosts[h], {"lustre_read": "Lustre", "nfs_read": "NFS", "gcsfuse": "a GCS FUSE mount"}[kind],
            {"lustre_read": "OST connection lost", "nfs_read": "NFS server not responding", "gcsfuse": "object reads stalled/retrying"}[kind],
            "DataLoader timeout fired on that rank" if v["dl_timeout"] else "no error on the stuck rank itself")
        return
    if kind == "nfs_save":
        srv = rng.choice(["nfs01", "filer-a", "home-nas2", "10.20.0.15"])
        K.kadd(0, tx + sec(rng.uniform(5, 30)), "nfs: server %s not responding, still trying" % srv)
        K.kadd(0, tx + sec(rng.uniform(150, 500)), hung_task_lines(K, 0, W.pids[0], comm, "nfs"))
        F.ends[0] = End(0, tx, None, [])
        K.stuck_d_state.add(0)
        fill_timeouts(K, F, tx, seq, next_coll(K, "save"), enq=seq, comp=seq - 1)
        F.truth = (0, 0)
        F.pid_check = 0
        F.notes = "Rank 0 blocked in D state writing the step-%d checkpoint to NFS (server %s not responding); the other ranks waited in the post-save barrier and hit the NCCL timeout." % (step, srv)
        K.ckpt["partial"] = step
        return
    # lustre_ckpt_write
    K.lfs = getattr(K, "lfs", "scratch")
    lustre_err_lines(K, h, tx + sec(rng.uniform(1, 20)), K.lfs, "write")
    K.kadd(h, tx + sec(rng.uniform(130, 400)), hung_task_lines(K, h, W.pids[r], comm, "lustre_w"))
    F.ends[r] = End(r, tx, None, [])
    K.stuck_d_state.add(r)
    fill_timeouts(K, F, tx, seq, ("ALLGATHER", 1, W.world), enq=seq, comp=seq - 1)
    F.truth = (r, h)
    F.pid_check = r
    F.notes = "Rank %d on %s blocked writing its distributed-checkpoint shard for step %d to Lustre (OST connection lost / reconnect timed out); the other ranks timed out in DCP's finishing collective." % (r, W.hosts[h], step)
    K.ckpt["partial"] = step


def plan_collective_mismatch(K):
    fwn = K.fw.name
    opts = ["rankx_extra", "rankx_extra"]
    if fwn in ("custom", "deepspeed"):
        opts.append("stale_resume")
    kind = pick(K, opts)
    return dict(phase=pick(K, ["eval", "save"]) if kind == "rankx_extra" else "train", kind=kind,
                detail=K.rng.random() < 0.35, h=K.rng.randrange(1, K.W.nnodes) if K.W.nnodes > 1 else 0)


def fingerprint(op, shape, dtype):
    return "CollectiveFingerPrint(SequenceNumber=%d, OpType=%s, TensorShape=[%s], TensorDtypes=%s, TensorDeviceTypes=cuda, TensorLayouts=strided)" % (
        0, op, ", ".join(str(s) for s in shape), dtype)


def kit_collective_mismatch(K, F, t, step, v):
    W, rng, fw = K.W, K.rng, K.fw
    seq = K.seq(step) + 1
    tx = t + sec(rng.uniform(1, 20))
    tc = fw.train_coll()
    if v["kind"] == "rankx_extra":
        x = 0 if fw.progress_rank == 0 else W.world - 1
        hx = W.host_of(x)
        xop = pick(K, [("_ALLGATHER_BASE", 262668288, 262668288 * W.world), ("ALLREDUCE", 2, 2), ("BROADCAST", 1024, 1024), ("ALLGATHER", 1, W.world)])
        if xop[0] == tc[0] and xop[1] == tc[1]:
            xop = ("ALLREDUCE", 2, 2)
        what = {"_ALLGATHER_BASE": "a rank-%d-only model.state_dict() (FSDP all-gather) in a save/eval hook" % x,
                "ALLREDUCE": "a rank-%d-only dist.all_reduce of an eval metric" % x,
                "BROADCAST": "a rank-%d-only broadcast in the eval/checkpoint code path" % x,
                "ALLGATHER": "a rank-%d-only all_gather_object in the checkpoint code path" % x}[xop[0]]
        if v["detail"]:
            sx = "CollectiveFingerPrint(SequenceNumber=%d, OpType=%s, TensorShape=[%d], TensorDtypes=%s, TensorDeviceTypes=cuda, TensorLayouts=strided)" % (seq, xop[0], xop[1], "BFloat16" if xop[1] > 100 else "Float")
            so = "CollectiveFingerPrint(SequenceNumber=%d, OpType=%s, TensorShape=[%d], TensorDtypes=%s, TensorDeviceTypes=cuda, TensorLayouts=strided)" % (seq, tc[0], tc[1], "BFloat16" if tc[1] > 100 else "Float")
            fr = fw.frames("train")[:3]
            sp = W.sp + "/torch/distributed"
            for r in range(W.world):
                other = 1 if r == x and x == 0 else (0 if r != 0 else 1)
                y = other if r == x else r
                m = ("RuntimeError: Detected mismatch between collectives on ranks. Rank %d is running collective: %s, but Rank %d is running collective: %s.Collectives differ in the following aspects: \t Op type: %svs %s\t Tensor Tensor shapes: %svs %s" % (
                    x, sx, y, so, xop[0], tc[0], xop[1], tc[1])) if r in (x, 0, 1) or rng.random() < 0.2 else None
                if m is None:
                    continue
                frs = fr + [(sp + "/c10d_logger.py", 79 if W.tv != "2.5" else 83, "wrapper", "return func(*args, **kwargs)"),
                            (sp + "/distributed_c10d.py", 2288 if W.tv != "2.5" else 2501, "all_reduce" if r != x else "all_gather_into_tensor", "work = group.allreduce([tensor], opts)" if r != x else "work = group._allgather_base(output_tensor, input_tensor, opts)")]
                F.ends[r] = mk_exc(K, r, tx + sec(rng.uniform(0, 2)), frs, [m])
        def per(r):
            if r == x:
                return (xop[0], xop[1], xop[2], seq, seq, seq - 1)
            return (tc[0], tc[1], tc[2], seq, seq, seq - 1)
        fill_timeouts(K, F, tx, seq, tc, per_rank=per)
        F.truth = (x, hx)
        F.notes = "Collective mismatch: %s at step %d; rank %d is in OpType=%s while every other rank is in OpType=%s for SeqNum %d%s." % (
            what, step, x, xop[0], tc[0], seq, " (TORCH_DISTRIBUTED_DEBUG=DETAIL reported the mismatch)" if v["detail"] else ", all ranks eventually hit the watchdog timeout")
        return
    # stale resume: one node resumed from an older checkpoint -> different step counter -> different schedule
    h = v["h"]
    old = K.resume_old
    def per(r):
        if W.host_of(r) == h:
            return ("ALLGATHER", 1, W.world, seq, seq, seq - 1)
        return (tc[0], tc[1], tc[2], seq, seq, seq - 1)
    fill_timeouts(K, F, tx, seq, tc, per_rank=per)
    F.truth = (None, h)
    F.notes = "After the restart the ranks on %s resumed from step %d (stale node-local 'latest' pointer) while the others resumed from step %d; at step %d only %s entered the checkpoint collective -> mismatch, all ranks timed out." % (
        W.hosts[h], old, K.resume_step, step, W.hosts[h])


def plan_straggler(K):
    W = K.W
    r = K.rng.randrange(W.world)
    return dict(phase="train", r=r, h=W.host_of(r), f=K.rng.uniform(1.6, 3.5), kind=pick(K, ["thermal", "io"]) if K.fw.name == "custom" else "thermal",
                end=pick(K, ["scancel", "scancel", "truncated"]) if K.layout != "torchtitan-k8s" else pick(K, ["deleted", "truncated"]))


def kit_straggler(K, F, t, step, v):
    W, rng = K.W, K.rng
    r, h = v["r"], v["h"]
    tx = t + sec(rng.uniform(5, 60))
    for rr in range(W.world):
        F.ends[rr] = End(rr, tx, None, [])
    if v["end"] in ("scancel", "deleted"):
        F.ext["cancel"] = (tx, None)
    else:
        F.ext["truncated"] = tx
    lr = W.lr(r)
    if v["kind"] == "thermal":
        K.extra["nvidia-smi-q-d-PERFORMANCE_%s.txt" % W.hosts[h]] = perf_report(K, h, lr)
        if rng.random() < 0.5:
            for i in range(rng.randint(2, 6)):
                K.kadd(h, K.straggle_t0 + sec(i * rng.uniform(200, 900)), "NVRM: GPU at PCI:0000:%s:00 has software-initiated thermal slowdown: clocks_event_reasons.sw_thermal_slowdown Active" % W.pci[lr] if False else
                       "CPU%d: Core temperature above threshold, cpu clock throttled (total events = %d)" % (rng.randint(0, 111), rng.randint(100, 90000)))
        what = "GPU %d on %s (rank %d) thermally throttled (HW slowdown active)" % (lr, W.hosts[h], r)
    else:
        what = "rank %d on %s spent seconds per step waiting for data (slow local NVMe cache rebuild)" % (r, W.hosts[h])
    F.truth = (r, h)
    F.notes = "Straggler: %s; every step ran %.1fx slower for the whole job; nothing crashed, the run was %s." % (
        what, v["f"], {"scancel": "cancelled by the user (scancel)", "deleted": "deleted by the user", "truncated": "still crawling when the logs were collected"}[v["end"]])


def perf_report(K, h, lr):
    W = K.W
    out = ["[%s@%s ~]$ nvidia-smi -q -d PERFORMANCE" % (W.user, W.hosts[h] if K.layout != "torchtitan-k8s" else K.k8s_nodes[h]), "", "==============NVSMI LOG==============", "",
           "Timestamp                                 : %s" % W.local(K.t0 + sec(7200), h).strftime("%a %b %d %H:%M:%S %Y"),
           "Driver Version                            : 535.183.01", "CUDA Version                              : 12.2", "",
           "Attached GPUs                             : %d" % W.gpn]
    for i in range(W.gpn):
        slow = i == lr
        out += ["GPU 00000000:%s:00.0" % W.pci[i].upper(),
                "    Performance State                     : P0",
                "    Clocks Event Reasons",
                "        Idle                              : Not Active",
                "        Applications Clocks Setting       : Not Active",
                "        SW Power Cap                      : %s" % ("Active" if slow else "Not Active"),
                "        HW Slowdown                       : %s" % ("Active" if slow else "Not Active"),
                "            HW Thermal Slowdown           : %s" % ("Active" if slow else "Not Active"),
                "            HW Power Brake Slowdown       : Not Active",
                "        Sync Boost                        : Not Active",
                "        SW Thermal Slowdown               : %s" % ("Active" if slow else "Not Active"),
                "        Display Clock Setting             : Not Active", ""]
    return "\n".join(out)


def plan_unknown(K):
    lay = K.layout
    opts = ["sigkill", "exit1_silent", "node_vanished"]
    if lay == "torchtitan-k8s":
        opts = ["sigkill", "node_vanished", "exit1_silent"]
    return dict(phase=pick(K, ["train", "train", "eval", "save"]), kind=pick(K, opts), r=K.rng.randrange(K.W.world))


def kit_unknown(K, F, t, step, v):
    W, rng = K.W, K.rng
    r = v["r"]
    h = W.host_of(r)
    tx = t + sec(rng.uniform(5, 300))
    kind = v["kind"]
    if kind == "sigkill":
        F.ends[r] = End(r, tx, -9, [])
        F.truth = (r, h)
        F.notes = "Rank %d on %s was SIGKILLed at step %d; no kernel log, no OOM report, no scheduler message explains it. Others timed out." % (r, W.hosts[h], step)
    elif kind == "exit1_silent":
        F.ends[r] = End(r, tx, 1, [])
        F.truth = (r, h)
        F.notes = "Rank %d on %s exited with code 1 at step %d but its stderr (redirected by the launch wrapper) was not collected, so the exception is unknown. Others timed out." % (r, W.hosts[h], step)
    else:
        for rr in W.ranks_on(h):
            F.ends[rr] = End(rr, tx, None, [])
        F.ext["node_vanish"] = (tx, h)
        F.truth = (None, h)
        F.notes = "Node %s stopped responding at step %d (no output at all from it afterwards, no logs collected from the node); the other nodes timed out. Why it died is not in the logs." % (W.hosts[h], step)
    fill_timeouts(K, F, tx, K.seq(step) + 1, next_coll(K, v["phase"]))


PLANS = {c: globals()["plan_" + c] for c in CAUSES}
KITS = {c: globals()["kit_" + c] for c in CAUSES}


# --------------------------------------------------------------------------------------
# shared noise
# --------------------------------------------------------------------------------------

def nccl_init_lines(K, S, t):
    W, rng = K.W, K.rng
    if not K.nccl_info:
        return
    commid = "0x%016x" % rng.randrange(16 ** 16)
    for r in range(W.world):
        if W.world > 16 and W.lr(r) not in (0, W.gpn - 1) and rng.random() < 0.75:
            continue
        h = W.host_of(r)
        tt = t + sec(rng.uniform(0, 4))
        pid = W.pids[r]
        L = []
        if r == 0:
            L.append("%s:%d:%d [0] NCCL INFO Bootstrap : Using %s:%s<0>" % (W.hosts[h], pid, pid, rng.choice(["eth0", "ens9f0np0", "bond0"]), W.ips[h]))
            L.append("%s:%d:%d [0] NCCL INFO cudaDriverVersion %d" % (W.hosts[h], pid, pid, rng.choice([12020, 12040, 12060])))
            L.append("NCCL version %s+cuda%s" % (W.nccl, W.cuda))
        tid = pid + rng.randint(50, 900)
        L.append(nccl_line(K, r, tt, "NCCL INFO NET/Plugin: No plugin found (libnccl-net.so), using internal implementation" if rng.random() < 0.6 else
                           "NCCL WARN NET/Plugin : Plugin load (libnccl-net.so) returned 2 : libnccl-net.so: cannot open shared object file: No such file or directory", tid))
        if K.net_transport == "Socket":
            L.append(nccl_line(K, r, tt, "NCCL INFO NET/Socket : Using [0]eth0:%s<0>" % W.ips[h], tid))
            L.append(nccl_line(K, r, tt, "NCCL INFO Using network Socket", tid))
        else:
            L.append(nccl_line(K, r, tt, "NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_3:1/IB [2]mlx5_4:1/IB [3]mlx5_5:1/IB [4]mlx5_6:1/IB [5]mlx5_9:1/IB [6]mlx5_10:1/IB [7]mlx5_11:1/IB [RO]; OOB eth0:%s<0>" % W.ips[h], tid))
            L.append(nccl_line(K, r, tt, "NCCL INFO Using network IB", tid))
        L.append(nccl_line(K, r, tt, "NCCL INFO comm 0x%x rank %d nranks %d cudaDev %d nvmlDev %d busId %s000 commId %s - Init START" % (
            rng.randrange(16 ** 8), r, W.world, W.lr(r), W.lr(r), W.pci[W.lr(r)], commid), tid))
        if r == 0:
            L.append(nccl_line(K, r, tt, "NCCL INFO Channel 00/%02d :    %s" % (rng.choice([16, 24, 32]), " ".join("%3d" % i for i in range(min(W.world, 32)))), tid))
        L.append(nccl_line(K, r, tt, "NCCL INFO Channel 00/0 : %d[%d] -> %d[%d] via P2P/CUMEM/read" % (r, W.lr(r), (r + 1) % W.world, W.lr((r + 1) % W.world)), tid))
        L.append(nccl_line(K, r, tt, "NCCL INFO Connected all rings", tid))
        L.append(nccl_line(K, r, tt, "NCCL INFO Connected all trees", tid))
        L.append(nccl_line(K, r, tt, "NCCL INFO comm 0x%x rank %d nranks %d cudaDev %d nvmlDev %d busId %s000 commId %s - Init COMPLETE" % (
            rng.randrange(16 ** 8), r, W.world, W.lr(r), W.lr(r), W.pci[W.lr(r)], commid), tid))
        S.block(tt, h, r, L, "out", dt=0.002)


def warn_noise(K, S, t):
    W, rng = K.W, K.rng
    opts = []
    if W.tv != "2.1":
        opts.append("%s/torch/distributed/fsdp/_state_dict_utils.py:%d: FutureWarning: FSDP.state_dict_type() and FSDP.set_state_dict_type() are being deprecated. Please use APIs, get_state_dict() and set_state_dict(), which can support different parallelisms, FSDP1, FSDP2, DDP. API doc: https://pytorch.org/docs/stable/distributed.checkpoint.html#torch.distributed.checkpoint.state_dict.get_state_dict .Tutorial: https://pytorch.org/tutorials/recipes/distributed_checkpoint_recipe.html ." % (W.sp, 773))
    opts.append("%s/torch/utils/checkpoint.py:%d: UserWarning: torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. In version 2.5 we will raise an exception if use_reentrant is not passed. use_reentrant=False is recommended, but if you need to preserve the current default behavior, you can pass use_reentrant=True. Refer to docs for more details on the differences between the two variants." % (W.sp, 464))
    opts.append("%s/torch/_utils.py:%d: UserWarning: TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the only storage class. This should only matter to you if you are using storages directly.  To access UntypedStorage directly, use tensor.untyped_storage() instead of tensor.storage()" % (W.sp, 831))
    if W.tv == "2.5":
        opts.append("%s/torch/distributed/checkpoint/filesystem.py:%d: FutureWarning: You are using `torch.load` with `weights_only=False` (the current default value), which uses the default pickle module implicitly. It is possible to construct malicious pickle data which will execute arbitrary code during unpickling (See https://github.com/pytorch/pytorch/blob/main/SECURITY.md#untrusted-models for more details). In a future release, the default value for `weights_only` will be flipped to `True`. This limits the functions that could be executed during unpickling. Arbitrary objects will no longer be allowed to be loaded via this mode unless they are explicitly allowlisted by the user via `torch.serialization.add_safe_globals`. We recommend you start setting `weights_only=True` for any use case where you don't have full control of the loaded file. Please open an issue on GitHub for any issues related to this experimental feature." % (W.sp, 657))
        opts.append("[rank0]:[W%s.%09d ProcessGroupNCCL.cpp:4115] [PG ID 0 PG GUID 0 Rank 0]  using GPU 0 to perform barrier as devices used by this process are currently unknown. This can potentially cause a hang if this rank to GPU mapping is incorrect.Specify device_ids in barrier() to force use of a particular device,or call init_process_group() with a device_id." % (W.local(t, 0).strftime("%m%d %H:%M:%S"), rng.randrange(10 ** 9)))
    if W.tv == "2.3":
        opts.append("[rank0]:[W ProcessGroupNCCL.cpp:%d] Warning: TORCH_NCCL_AVOID_RECORD_STREAMS is the default now, this environment variable is thus deprecated. (function operator())" % 2252)
    src = {"FSDP.state_dict_type": "  warnings.warn(", "use_reentrant": "  return fn(*args, **kwargs)",
           "TypedStorage": "  return self.fget.__get__(instance, owner)()", "weights_only=False": "  return torch.load(cast(IO[bytes], file_like), map_location=\"cpu\")"}
    for o in rng.sample(opts, min(len(opts), rng.randint(1, 3))):
        rs = [0] if o.startswith("[rank0]") else rng.sample(range(K.W.world), min(K.W.world, rng.randint(1, 4)))
        for r in rs:
            tt = t + sec(rng.uniform(0, 30))
            lines = [o]
            for k, v in src.items():
                if k in o and not o.startswith("[rank"):
                    lines.append(v)
            S.block(tt, W.host_of(r), r, lines)


def exit_noise(K, S, t):
    W, rng = K.W, K.rng
    if W.tv == "2.5" and rng.random() < 0.6:
        for r in range(W.world):
            if rng.random() < 0.5:
                h = W.host_of(r)
                S.add(t + sec(rng.uniform(0, 2)), h, r, c10d_pre(W, r, "W", W.local(t, h), "ProcessGroupNCCL.cpp:1250") + "Warning: WARNING: process group has NOT been destroyed before we destruct ProcessGroupNCCL. On normal program exit, the application should call destroy_process_group to ensure that any pending NCCL operations have finished in this process. In rare cases this process can exit before this point and block the progress of another member of the process group. This constraint has always been present,  but this warning has only recently been added. For more info, please see https://pytorch.org/docs/stable/distributed.html#shutdown (function operator())")


# --------------------------------------------------------------------------------------
# one attempt
# --------------------------------------------------------------------------------------

DETERMINISTIC = {"python_exception", "collective_mismatch", "cuda_oom", "illegal_memory_access", "hang", "crash_signal"}


class Attempt:
    def __init__(self):
        self.S = Sink()
        self.F = None
        self.R = None
        self.t_start = None
        self.t_end = None
        self.resume = 0
        self.final_step = 0
        self.outcome = None   # 'ok' | 'fail' | 'cancel' | 'requeue' | 'spot'
        self.v = None


def cap_log_interval(K, span):
    cap = {"custom": 90, "torchtitan": 160, "lightning": 250}.get(K.fw.name)
    if not cap or span <= 0:
        return
    p = K.plan
    if span / p.log_every > cap:
        for nice in (10, 20, 25, 50, 100, 200, 250, 500, 1000):
            if nice >= p.log_every and span / nice <= cap:
                p.log_every = nice
                break


def choose_stop(K, v, resume):
    p, rng = K.plan, K.rng
    ph = v["phase"]
    if ph == "load":
        return None
    if ph == "save":
        k = resume // p.save_every + rng.randint(1, 5)
        return ("save", k * p.save_every)
    if ph == "eval":
        ev = p.eval_every or p.save_every
        k = resume // ev + rng.randint(1, 5)
        return ("eval", k * ev)
    return (ph, resume + rng.randint(2, 5) * p.save_every + rng.randint(1, p.save_every - 1))


def run_attempt(K, cause, t_start, resume, v=None, stop=None, healthy_end=None, banner=None):
    """Simulate startup..failure for one attempt. Fills A.S with normal lines and A.F with the failure."""
    W, fw, rng = K.W, K.fw, K.rng
    A = Attempt()
    if getattr(K, "_attempts_started", 0):
        W.new_pids()
    K._attempts_started = getattr(K, "_attempts_started", 0) + 1
    A.t_start = t_start
    A.resume = resume
    S = A.S
    t = t_start
    if banner:
        banner(K, S, t)
    nccl_t = t + sec(rng.uniform(20, 50))
    t = fw.startup(S, t, resume)
    warn_noise(K, S, t)
    nccl_init_lines(K, S, nccl_t)
    if cause and v is None:
        v = PLANS[cause](K)
    A.v = v
    if resume:
        if resume not in K.ckpt["done"]:
            K.ckpt["done"].append(resume)
        if v and v["phase"] == "load":
            if fw.name in ("hf", "lightning"):
                fw.resume_lines(S, t, resume) if fw.name == "hf" else S.add(t, 0, 0, "Restoring states from the checkpoint path at %s" % ("%s/last.ckpt" % fw.ckdir))
            elif fw.name == "megatron":
                S.add(t, 0, 0, " loading checkpoint from %s at iteration %d" % (fw.save, resume))
            elif fw.name == "torchtitan":
                for h in range(W.nnodes):
                    S.add(t, h, h * W.gpn, fw.tl(h * W.gpn, t, "Loading the checkpoint at step %d." % resume))
            elif fw.name == "custom":
                for r in range(W.world):
                    S.add(t, W.host_of(r), r, fw.lg(r, t, "INFO", "checkpoint", "resuming from %s/step_%d" % (fw.ckpt, resume)))
            elif fw.name == "deepspeed":
                for r in range(W.world):
                    h = W.host_of(r)
                    o = fw.zname(r)[1]
                    S.add(t + sec(rng.uniform(0, 1)), h, r, fw.ds(t, h, "INFO", "torch_checkpoint_engine.py:27:load", "[Torch] Loading checkpoint from %s/global_step%d/%s..." % (fw.save, resume, o)))
            K.t_fail = t
            F = Fail(cause)
            KITS[cause](K, F, t, resume, v)
            A.F = F
            A.final_step = resume
            return A
        if fw.name == "hf":
            t = fw.resume_lines(S, t, resume)
        elif fw.name == "lightning":
            t = fw.resume_lines(S, t, resume, getattr(K, "resume_path", None))
        else:
            t = fw.load_ok(S, t, resume)
    if fw.name == "megatron":
        t = fw.after_setup(S, t)
    if fw.name == "torchtitan":
        fw.train_start(S, t, resume)
    if cause is None:
        end = healthy_end
        cap_log_interval(K, (stop[1] if stop else end) - resume)
        t, step = run_train(K, S, t, resume, end, stop=stop)
        A.final_step = step
        A.t_end = t
        if stop is None:
            fw.finish(S, t, step)
            exit_noise(K, S, t + sec(3))
            A.outcome = "ok"
        return A
    if stop is None:
        stop = choose_stop(K, v, resume)
    if cause == "straggler":
        K.straggle = {"from": resume + rng.randint(1, 3) * K.plan.log_every, "f": v["f"], "rank": v["r"], "kind": v["kind"]}
        K.timing_level = max(K.timing_level, 1)
        K.straggle_t0 = t
    cap_log_interval(K, stop[1] - resume)
    t, step = run_train(K, S, t, resume, stop[1] + 1, stop=stop)
    K.t_fail = t
    F = Fail(cause)
    KITS[cause](K, F, t, step, v)
    A.F = F
    A.final_step = step
    return A


# --------------------------------------------------------------------------------------
# Slurm helpers
# --------------------------------------------------------------------------------------

def slurm_cancel_lines(K, t, reason, nodes=None, step_only=False):
    W = K.W
    iso = fmt_iso(W.local(t, 0))
    out = []
    suffix = (" DUE TO %s" % reason) if reason else ""
    if not step_only:
        out.append((t, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s%s ***" % (K.jobid, W.hosts[0], iso, suffix)))
    for h in (nodes if nodes is not None else range(W.nnodes)):
        out.append((t + sec(0.05 * (h + 1)), "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s%s ***" % (K.jobid, W.hosts[h], fmt_iso(W.local(t, h)), suffix)))
    return out


def resolve_slurm_torchrun(K, A, script, kill_on_bad_exit, restarts_left=0):
    """torchrun per node under srun (one task per node)."""
    W, rng, F = K.W, K.rng, A.F
    extra = []
    ext = {}
    if "cancel" in F.ext:
        tc, reason = F.ext["cancel"]
        extra += slurm_cancel_lines(K, tc, reason)
        extra.append((tc + sec(0.2), "srun: Job step aborted: Waiting up to 32 seconds for job step to finish."))
        for h in range(W.nnodes):
            ext[h] = (tc + sec(0.1 + rng.uniform(0, 1.5)), 15)
    if "node_vanish" in F.ext:
        tv, hv = F.ext["node_vanish"]
        ext[hv] = (tv, 0)
    R = resolve_torchrun(K, F, script, ext_kill={h: x for h, x in ext.items() if x[1] != 0}, restarts_left=restarts_left)
    if "node_vanish" in F.ext:
        tv, hv = F.ext["node_vanish"]
        R = _vanish(K, F, R, script, tv, hv, extra)
    elif kill_on_bad_exit and "cancel" not in F.ext:
        firsts = sorted([(v[0], h) for h, v in R.node_exit.items() if v[0] is not None and v[1] not in (0, None)])
        if firsts:
            t1, h1 = firsts[0]
            kill = {h: (t1 + sec(0.6 + rng.uniform(0, 1.0)), 15) for h in range(W.nnodes) if h != h1 and (R.node_exit[h][0] is None or R.node_exit[h][0] > t1 + sec(0.6))}
            if kill:
                R = resolve_torchrun(K, F, script, ext_kill=kill)
                extra.append((t1 + sec(0.5), "srun: error: %s: task %d: Exited with exit code %d" % (W.hosts[h1], h1, R.node_exit[h1][1] if isinstance(R.node_exit[h1][1], int) else 1)))
                extra.append((t1 + sec(0.55), "srun: Job step aborted: Waiting up to 32 seconds for job step to finish."))
                extra += slurm_cancel_lines(K, t1 + sec(0.58), None, nodes=sorted(kill), step_only=True)
                for h, v in sorted(R.node_exit.items()):
                    if h != h1 and h not in kill and v[0] is not None and v[1] not in (0, None):
                        extra.append((v[0] + sec(0.3), "srun: error: %s: task %d: Exited with exit code %d" % (W.hosts[h], h, v[1] if isinstance(v[1], int) else 1)))
                return R, extra
    for h, v in sorted(R.node_exit.items()):
        if v[0] is not None and v[1] not in (0, None, "restart") and not ("cancel" in F.ext):
            extra.append((v[0] + sec(0.3), "srun: error: %s: task %d: Exited with exit code %d" % (W.hosts[h], h, v[1] if v[1] > 0 else 1)))
    if "oom" in F.ext:
        to, ho, vo = F.ext["oom"]
        tend = R.t_end or (to + sec(60))
        extra.append((tend + sec(0.8), "slurmstepd: error: Detected 1 oom_kill event in StepId=%d.0. Some of the step tasks have been OOM Killed." % K.jobid if rng.random() < 0.6 else
                      "slurmstepd: error: Detected 1 oom-kill event(s) in StepId=%d.0 cgroup. Some of your processes may have been killed by the cgroup out-of-memory handler." % K.jobid))
    return R, extra


def _vanish(K, F, R, script, tv, hv, extra):
    """Node hv vanished at tv: none of its output after tv; Slurm declares NODE FAILURE ~300s later."""
    W = K.W
    tnf = tv + sec(K.rng.uniform(240, 330))
    ext = {h: (tnf + sec(0.2 + K.rng.uniform(0, 1.0)), 15) for h in range(W.nnodes) if h != hv}
    ext[hv] = (tv, 15)
    R = resolve_torchrun(K, F, script, ext_kill=ext)
    # drop everything the vanished node printed after tv (agent included)
    R.sink.ev = [e for e in R.sink.ev if not (e[2] == hv and e[0] >= tv)]
    extra.append((tnf, "srun: error: Node failure on %s" % W.hosts[hv]))
    extra += slurm_cancel_lines(K, tnf + sec(0.1), "NODE FAILURE, SEE SLURMCTLD LOG FOR DETAILS", nodes=[h for h in range(W.nnodes) if h != hv])
    F.ext["vanished_tnf"] = tnf
    return R


def resolve_slurm_tasks(K, A, kill_on_bad_exit):
    """srun --ntasks-per-node=G python train.py (Lightning / Megatron): one Slurm task per rank."""
    W, rng, F = K.W, K.rng, A.F
    extra = []
    ext = {}
    if "cancel" in F.ext:
        tc, reason = F.ext["cancel"]
        extra += slurm_cancel_lines(K, tc, reason)
        extra.append((tc + sec(0.2), "srun: Job step aborted: Waiting up to 32 seconds for job step to finish."))
        ext = {h: (tc + sec(0.1 + rng.uniform(0, 1.2)), 15) for h in range(W.nnodes)}
        if K.fw.name == "lightning":
            for r in range(W.world):
                e = F.ends[r]
                if e.code is None:
                    e.items.append((tc + sec(0.15 + 0.001 * r), "[rank: %d] Received SIGTERM: 15" % W.lr(r)))
            ext = {h: (tc + sec(0.5), 15) for h in range(W.nnodes)}
    if "node_vanish" in F.ext:
        tv, hv = F.ext["node_vanish"]
        tnf = tv + sec(rng.uniform(240, 330))
        ext = {h: (tnf + sec(0.2), 15) for h in range(W.nnodes)}
        ext[hv] = (tv, 9)
        extra.append((tnf, "srun: error: Node failure on %s" % W.hosts[hv]))
        extra += slurm_cancel_lines(K, tnf + sec(0.1), "NODE FAILURE, SEE SLURMCTLD LOG FOR DETAILS", nodes=[h for h in range(W.nnodes) if h != hv])
    R = resolve_tasks(K, F, ext_kill=ext)
    if kill_on_bad_exit and not ext and R.first_fail:
        t1, r1 = R.first_fail
        kill = {h: (t1 + sec(0.7), 9) for h in range(W.nnodes)}
        R = resolve_tasks(K, F, ext_kill=kill)
        first = R.rank_exit[r1]
        extra.append((t1 + sec(0.4), "srun: error: %s: task %d: %s" % (W.hosts[W.host_of(r1)], r1, ("Exited with exit code %d" % first[1]) if first[1] > 0 else SRUN_DESC.get(first[1], "Killed"))))
        extra.append((t1 + sec(0.45), "srun: Job step aborted: Waiting up to 32 seconds for job step to finish."))
        extra += slurm_cancel_lines(K, t1 + sec(0.5), None, step_only=True)
        return R, extra
    if "cancel" not in F.ext:
        errs = srun_task_errors(W, R, K.jobid)
        if "oom" in F.ext:
            to, ho, vo = F.ext["oom"]
            errs = [(t, s.replace("task %d: Killed" % vo, "task %d: Out Of Memory" % vo)) for t, s in errs]
        extra += errs
    if "oom" in F.ext:
        tend = R.t_end or F.ext["oom"][0]
        extra.append((tend + sec(0.8), "slurmstepd: error: Detected 1 oom_kill event in StepId=%d.0. Some of the step tasks have been OOM Killed." % K.jobid))
    return R, extra


def sacct_text(K, rows):
    head = "JobID           JobName  Partition    Account  AllocCPUS      State ExitCode              Start                 End   NodeList\n"
    head += "------------ ---------- ---------- ---------- ---------- ---------- -------- ------------------- ------------------- ----------\n"
    out = []
    for jid, name, state, ec, t0, t1, nl in rows:
        out.append("%-12s %10s %10s %10s %10d %10s %8s %19s %19s %s" % (
            jid, name[:9] + ("+" if len(name) > 10 else name[9:10]) if len(name) > 10 else name, K.partition if name not in ("batch", "extern") and "." not in jid else "",
            K.account, K.alloc_cpus, state[:10], ec, fmt_iso(t0), fmt_iso(t1) if t1 else "Unknown", nl))
    return "$ sacct -j %d -D --format=JobID,JobName,Partition,Account,AllocCPUS,State,ExitCode,Start,End,NodeList\n" % K.jobid + head + "\n".join(out) + "\n"


# --------------------------------------------------------------------------------------
# file helpers
# --------------------------------------------------------------------------------------

def render_console(K, events, prefix_fn=None):
    lines = []
    for e in events:
        t, _, h, r, text, chan = e
        if prefix_fn:
            text = prefix_fn(h, r, chan, text)
        lines.append(text)
    return "\n".join(lines) + "\n"


def maybe_trim(K, evs, keep_from):
    """Users paste only the interesting part: drop a chunk of routine lines before keep_from."""
    rng = K.rng
    if rng.random() > 0.3 or not evs:
        return evs
    head = [e for e in evs if e[0] < keep_from]
    tail = [e for e in evs if e[0] >= keep_from]
    if len(head) < 120:
        return evs
    cut0 = rng.randint(40, 80)
    cut1 = len(head) - rng.randint(25, 60)
    if cut1 <= cut0 + 20:
        return evs
    marker = (head[cut0][0], -1, 0, None, rng.choice(["[... %d lines removed ...]" % (cut1 - cut0), "...", "<snip>", "(output truncated, %d lines)" % (cut1 - cut0)]), "out")
    return head[:cut0] + [marker] + head[cut1:] + tail


def kernel_files(K, style_choices=("raw", "T", "journal"), only=None, name_fmt="dmesg_%s.txt", noise=True, force_all=False):
    W, rng = K.W, K.rng
    files = {}
    hosts = sorted(K.kern) if not force_all else list(range(W.nnodes))
    if only is not None:
        hosts = [h for h in hosts if h in only]
    for h in hosts:
        style = rng.choice(style_choices)
        if any(x[1].startswith("@") for x in K.kern.get(h, [])) and "journal" in style_choices:
            style = "journal"
        ent = list(K.kern.get(h, []))
        if noise:
            ent += kernel_noise(rng, W, h, K.t0, K.t_end or K.t0, rng.randint(2, 8))
        body = render_kernel(W, h, ent, style, K.t0)
        hdr = {"raw": "$ sudo dmesg", "T": "$ sudo dmesg -T", "journal": "$ journalctl -k --since '%s'" % W.local(K.t0 - sec(3600), h).strftime("%Y-%m-%d %H:%M")}[style]
        if style == "journal":
            name = name_fmt.replace("dmesg", "journal") % W.hosts[h]
        else:
            name = name_fmt % W.hosts[h]
        if hasattr(K, "fm_lines") and K.fm_lines[0] == h:
            fm = ["%s %s %s" % (fmt_journal(W.local(K.fm_lines[1], h)), W.hosts[h], l) for l in K.fm_lines[2]]
            body = body + ["", "$ journalctl -u nvidia-fabricmanager --since today | tail"] + fm
        files[name] = "\n".join([hdr] + body) + "\n"
    return files


def ls_time(t):
    return t.strftime("%b %d %H:%M")


def ckpt_listing(K):
    W, rng, fw = K.W, K.rng, K.fw
    done = sorted(set(K.ckpt["done"]))
    part = K.ckpt["partial"]
    miss = K.ckpt["missing"]
    corrupt = K.ckpt["corrupt"]
    u, g = W.user, rng.choice(["users", "ml", W.user, "research"])
    tl = W.local(K.t_end or K.t0, 0)

    def row(mode, size, name, t=None, links=1):
        return "%s %2d %s %s %13d %s %s" % (mode, links, u, g, size, ls_time(t or tl), name)

    def st(s):
        tt = K.ckpt_t.get(s)
        if tt is None:
            tt = (K.t_fail or K.t_end or K.t0) if s in (part, (miss or (None,))[0]) else (K.t_end or K.t0)
        return W.local(tt, 0)
    out = []
    if fw.name == "hf":
        base = fw.outdir
        keep = done[-2:]
        out.append("$ ls -la %s" % base)
        out.append("total %d" % rng.randint(40, 400))
        out.append(row("drwxr-xr-x", 4096, ".", links=len(keep) + 3))
        out.append(row("drwxr-xr-x", 4096, "..", links=14))
        steps = keep + ([part] if part and part not in keep else []) + ([miss[0]] if miss and miss[0] not in keep else [])
        for s in sorted(set(steps)):
            out.append(row("drwxr-xr-x", 4096, "checkpoint-%d" % s, t=st(s), links=2))
        out.append(row("-rw-r--r--", rng.randint(2000, 9000), "runs", links=1).replace("-rw-r--r--", "drwxr-xr-x"))
        last = sorted(set(steps))[-1] if steps else None
        if last is not None:
            out.append("")
            out.append("$ ls -la %s/checkpoint-%d" % (base, last))
            files = [("config.json", 701), ("generation_config.json", 183)]
            shards = [("model-%05d-of-00004.safetensors" % i, rng.randint(4 * 10 ** 9, 5 * 10 ** 9)) for i in range(1, 5)]
            rest = [("model.safetensors.index.json", 23950), ("optimizer.pt", rng.randint(3 * 10 ** 10, 6 * 10 ** 10)), ("rng_state_0.pth", 14244),
                    ("scheduler.pt", 1064), ("special_tokens_map.json", 301), ("tokenizer.json", 9085657), ("tokenizer_config.json", 50566),
                    ("trainer_state.json", rng.randint(3000, 90000)), ("training_args.bin", 5432)]
            if last == part:
                k = rng.randint(1, 4)
                shards = shards[:k - 1] + [(shards[k - 1][0], rng.randint(10 ** 8, 3 * 10 ** 9))]
                rest = [x for x in rest if x[0] in ("model.safetensors.index.json",)] + [("optimizer.pt", rng.randint(10 ** 6, 10 ** 9))]
                if rng.random() < 0.5:
                    rest = [("optimizer.pt", rng.randint(10 ** 6, 10 ** 9))]
            elif miss and miss[0] == last:
                shards, rest = [], []
            elif corrupt and corrupt[0] == last:
                rest = [(n, (rng.randint(10 ** 7, 10 ** 9) if n == "optimizer.pt" else s)) for n, s in rest]
            for n, s in files + shards + rest:
                out.append(row("-rw-r--r--", s, n, t=st(last)))
        return "\n".join(out) + "\n"
    if fw.name == "lightning":
        base = fw.ckdir
        out.append("$ ls -la %s" % base)
        for s in [x for x in done if x not in getattr(K, "hpc_steps", [])][-3:]:
            out.append(row("-rw-r--r--", rng.randint(5 * 10 ** 9, 2 * 10 ** 10), "epoch=%d-step=%d.ckpt" % (s // fw.epoch_len, s), t=st(s)))
        if getattr(K, "hpc_n", 0):
            for i in range(1, K.hpc_n + 1):
                out.append(row("-rw-r--r--", rng.randint(5 * 10 ** 9, 2 * 10 ** 10), "hpc_ckpt_%d.ckpt" % i, t=W.local(K.hpc_t[i - 1], 0) if i - 1 < len(getattr(K, "hpc_t", [])) else None))
        sz = rng.randint(5 * 10 ** 9, 2 * 10 ** 10)
        if corrupt:
            sz = rng.randint(10 ** 8, 2 * 10 ** 9)
        out.append(row("-rw-r--r--", sz, "last.ckpt"))
        if part:
            out.append(row("-rw-r--r--", rng.randint(10 ** 8, 4 * 10 ** 9), ".epoch=%d-step=%d.ckpt.tmp" % (part // fw.epoch_len, part)) if rng.random() < 0.5 else row("-rw-r--r--", 0, "epoch=%d-step=%d.ckpt" % (part // fw.epoch_len, part)))
        return "\n".join(out) + "\n"
    if fw.name in ("megatron", "torchtitan", "custom"):
        if fw.name == "megatron":
            base, dn = fw.save, (lambda s: "iter_%07d" % s)
        elif fw.name == "torchtitan":
            base, dn = fw.folder, (lambda s: "step-%d" % s)
        else:
            base, dn = fw.ckpt, (lambda s: "step_%d" % s)
        steps = sorted(set(done[-3:] + ([part] if part else []) + ([miss[0]] if miss else [])))
        if base.startswith("s3://"):
            out.append("$ aws s3 ls %s/" % base)
            for s in steps:
                out.append("                           PRE %s/" % dn(s))
        else:
            out.append("$ ls -la %s" % base)
            for s in steps:
                out.append(row("drwxr-xr-x", 4096, dn(s), t=st(s), links=2))
            if fw.name == "megatron":
                out.append(row("-rw-r--r--", 5, "latest_checkpointed_iteration.txt"))
                out.append("")
                out.append("$ cat %s/latest_checkpointed_iteration.txt" % base)
                out.append(str(max([s for s in done if s != part] or [0])))
        last = steps[-1] if steps else None
        if last is not None:
            out.append("")
            out.append("$ ls -la %s/%s | head -n 40" % (base, dn(last)) if not base.startswith("s3://") else "$ aws s3 ls %s/%s/ | head -n 40" % (base, dn(last)))
            nfiles = min(W.world, 36)
            extra_f = [(".metadata", rng.randint(10 ** 5, 10 ** 7))]
            if fw.name == "megatron":
                extra_f += [("common.pt", rng.randint(10000, 60000)), ("metadata.json", 68)]
            sz = rng.randint(10 ** 9, 9 * 10 ** 9)
            for r in range(nfiles):
                s = sz + rng.randint(-10 ** 6, 10 ** 6)
                if last == part and rng.random() < 0.4:
                    s = rng.randint(0, sz // 2)
                if miss and miss[0] == last and miss[1] == r:
                    continue
                out.append(row("-rw-r--r--", s, "__%d_0.distcp" % r, t=st(last)) if not base.startswith("s3://") else "%s %12d __%d_0.distcp" % (st(last).strftime("%Y-%m-%d %H:%M:%S"), s, r))
            if not (last == part):
                for n, s in extra_f:
                    out.append(row("-rw-r--r--", s, n, t=st(last)) if not base.startswith("s3://") else "%s %12d %s" % (st(last).strftime("%Y-%m-%d %H:%M:%S"), s, n))
        return "\n".join(out) + "\n"
    # deepspeed
    base = fw.save
    steps = sorted(set(done[-2:] + ([part] if part else []) + ([miss[0]] if miss else []) + ([corrupt[0]] if corrupt else [])))
    out.append("$ ls -la %s" % base)
    for s in steps:
        out.append(row("drwxr-xr-x", 4096, "global_step%d" % s, t=st(s), links=2))
    out.append(row("-rw-r--r--", 15, "latest", t=st(max([s for s in done if s != part] or [0])) if done else None))
    out.append(row("-rwxr--r--", 33418, "zero_to_fp32.py"))
    latest = max(steps) if steps else 0
    out += ["", "$ cat %s/latest" % base, "global_step%d" % latest]
    if steps:
        out.append("")
        out.append("$ ls -la %s/global_step%d" % (base, latest))
        zbase = rng.randint(10 ** 9, 8 * 10 ** 9)
        for r in range(min(W.world, 32)):
            m, o = fw.zname(r)
            if miss and miss[0] == latest and miss[1] == r:
                continue
            s = zbase + rng.randint(-4096, 4096)
            if (part == latest and rng.random() < 0.3) or (corrupt and corrupt[0] == latest and r == 0):
                s = rng.randint(10 ** 6, 5 * 10 ** 8)
            out.append(row("-rw-r--r--", s, o, t=st(latest)))
            if fw.stage == 3 or r == 0:
                out.append(row("-rw-r--r--", rng.randint(10 ** 5, 10 ** 9), m, t=st(latest)))
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------------------
# layouts
# --------------------------------------------------------------------------------------

def make_plan(K, fwname):
    p = _make_plan(K, fwname)
    p.total = max(p.total, p.save_every * K.rng.randint(30, 60))
    return p


def _make_plan(K, fwname):
    rng = K.rng
    if fwname == "hf":
        se = rng.choice([200, 250, 500, 500, 1000])
        return Plan(rng.uniform(0.8, 7.5), rng.choice([3000, 5000, 8000, 12000]), se, rng.choice([se, se, se // 2]), max(5, se // rng.choice([20, 25, 50])))
    if fwname == "lightning":
        se = rng.choice([500, 1000, 2000])
        return Plan(rng.uniform(0.25, 2.5), rng.choice([20000, 50000, 100000]), se, rng.choice([se, 2 * se]), 50)
    if fwname == "megatron":
        se = rng.choice([250, 500, 1000, 2000])
        return Plan(rng.uniform(2.0, 14.0), rng.choice([100000, 250000, 500000]), se, rng.choice([se, se // 2, 2 * se]), max(1, se // rng.choice([10, 20, 25, 50])))
    if fwname == "deepspeed":
        se = rng.choice([500, 1000, 2000])
        return Plan(rng.uniform(0.8, 6.0), rng.choice([20000, 40000]), se, rng.choice([se, se // 2]), max(10, se // 40))
    if fwname == "torchtitan":
        se = rng.choice([250, 500, 1000])
        return Plan(rng.uniform(1.0, 9.0), rng.choice([10000, 30000, 100000]), se, rng.choice([0, 0, se]), rng.choice([10, 10, 25, 50]))
    se = rng.choice([250, 500, 1000])
    return Plan(rng.uniform(0.5, 5.0), rng.choice([20000, 50000]), se, rng.choice([se, 2 * se]), max(10, se // 25))


def set_flavors(K):
    rng = K.rng
    if K.healthy:
        pool = ["slow_save", "nfs_blip", "lustre_blip", "s3_retry", "wandb_retry", "xid63", "prior_preempt"]
        K.flavors = set(rng.sample(pool, rng.randint(2, 4)))
    else:
        pool = ["nfs_blip", "lustre_blip", "wandb_retry"]
        K.flavors = set(rng.sample(pool, rng.randint(0, 2)))
    if "xid63" in K.flavors:
        W = K.W
        h = rng.randrange(W.nnodes)
        r = h * W.gpn + rng.randrange(W.gpn)
        K.kadd(h, K.t0 + sec(rng.uniform(600, 20000)), "NVRM: Xid (PCI:0000:%s:00): 63, pid=%d, name=%s, Row Remapper: New row (0x%016x) marked for remapping, reset gpu to activate." % (
            W.pci[W.lr(r)], W.pids[r], K.comm(), rng.randrange(16 ** 9)))


def base_setup(K, kind, fwcls, fwname, nnodes=None, gpn=None):
    K.W = World(K.rng, kind, nnodes=nnodes, gpn=gpn)
    K.plan = make_plan(K, fwname)
    K.fw = fwcls(K)
    K.peak = 312.0 if "A100" in K.W.gpu[0] else 989.0
    K.tflops = K.peak * K.rng.uniform(0.28, 0.55)
    K.sps = K.mbs * K.gas * K.W.world / K.plan.step_time
    K.nccl_info = K.rng.random() < 0.45
    K.net_transport = "Socket" if (kind == "k8s" and K.rng.random() < 0.5) else "IB"
    K.partition = K.rng.choice(["gpu", "batch", "h100", "a100-80g", "train", "hpg"])
    K.account = K.rng.choice(["ml-res", "llm", "proj%03d" % K.rng.randint(1, 999), "research", "nlp"])
    K.alloc_cpus = K.W.nnodes * K.rng.choice([64, 96, 112, 128, 192])
    set_flavors(K)


def healthy_end_for(K, resume):
    """The final step of a healthy run; fixes the advertised total so the run really ends at 100%."""
    if getattr(K, "healthy_end", None) is None or K.healthy_end <= resume:
        K.healthy_end = resume + K.plan.save_every * K.rng.randint(2, 5)
    K.plan.total = K.healthy_end
    if hasattr(K.fw, "train_iters"):
        K.fw.train_iters = K.healthy_end
    return K.healthy_end


def preset_healthy_end(K, resume):
    if K.healthy:
        K.healthy_end = resume + K.plan.save_every * K.rng.randint(8, 12) + (K.plan.save_every * 18 if K.layout == "lightning-requeue" else 0)
        K.plan.total = K.healthy_end
        if hasattr(K.fw, "train_iters"):
            K.fw.train_iters = K.healthy_end


def pick_resume(K, v):
    rng, p = K.rng, K.plan
    if v is not None and v["phase"] == "load":
        r = p.save_every * rng.randint(2, 12)
    elif rng.random() < 0.45:
        r = p.save_every * rng.randint(1, 10)
    else:
        r = 0
    preset_healthy_end(K, r)
    return r


def prior_preempted(K, resolver, t, resume, reason, during_save=True, banner=None):
    """An earlier attempt of the same job that was killed by the scheduler; returns (events, t_next, step)."""
    rng, p = K.rng, K.plan
    if during_save:
        stop = ("save", (resume // p.save_every + rng.randint(1, 4)) * p.save_every)
    else:
        stop = ("train", resume + rng.randint(1, 4) * p.save_every + rng.randint(1, p.save_every - 1))
    A = run_attempt(K, None, t, resume, stop=stop, healthy_end=stop[1] + 1, banner=banner)
    tk = A.t_end + sec(rng.uniform(5, 120))
    F = Fail("preemption")
    for r in range(K.W.world):
        F.ends[r] = End(r, tk, None, [])
    F.ext["cancel"] = (tk, reason)
    A.F = F
    R, extra = resolver(A)
    S = Sink()
    S.extend(A.S)
    S.extend(R.sink)
    for tt, txt in extra:
        S.add(tt, 0, None, txt)
    if during_save:
        K.ckpt["partial"] = stop[1]
    last_done = max([s for s in K.ckpt["done"] if s != K.ckpt["partial"]] or [resume])
    return S.sorted(), tk + sec(rng.uniform(60, 1800)), last_done, stop[1]


def finalize_truth(K, F, texts):
    W = K.W
    if F is None:
        return None
    r, h = F.truth
    if F.pid_check is not None and r is not None:
        pid = str(W.pids[F.pid_check])
        if not any(pid in t for t in texts):
            r = None
    if r is None and h is None:
        return None
    return {"rank": r, "node": W.hosts[h] if h is not None else None}


def slurm_header(K, cmd):
    W, rng = K.W, K.rng
    L = []
    if rng.random() < 0.6:
        L += ["Job %d started on %s at %s" % (K.jobid, W.slurm_nodelist(), W.local(K.t0, 0).strftime("%a %b %d %H:%M:%S %Z%Y").replace("  ", " ")),
              "MASTER_ADDR=%s MASTER_PORT=%d NNODES=%d GPUS_PER_NODE=%d" % (W.hosts[0], W.master_port, W.nnodes, W.gpn)]
    if rng.random() < 0.5:
        L += ["+ export NCCL_DEBUG=%s" % ("INFO" if K.nccl_info else "WARN"), "+ export TORCH_NCCL_ASYNC_ERROR_HANDLING=1"]
    L.append("+ " + cmd)
    return L


def L_hf_slurm(K):
    rng = K.rng
    base_setup(K, "slurm", HF, "hf", nnodes=rng.choice([2, 2, 3, 4]))
    W, fw = K.W, K.fw
    kob = rng.random() < 0.5
    cause = K.cause
    v = PLANS[cause](K) if cause else None
    resolver = lambda A: resolve_slurm_torchrun(K, A, fw.script, kob)
    cmd = "srun %storchrun --nnodes %d --nproc_per_node %d --rdzv_backend c10d --rdzv_endpoint %s:%d %s --model_name_or_path /models/%s --output_dir %s --bf16 --save_steps %d --eval_steps %d --logging_steps %d%s" % (
        "--kill-on-bad-exit=1 " if kob else "", W.nnodes, W.gpn, W.hosts[0], W.master_port, fw.entry, fw.model, fw.outdir, K.plan.save_every, K.plan.eval_every, K.plan.log_every,
        " --fsdp 'full_shard auto_wrap'" if fw.fsdp else " --deepspeed ds_z2.json" if rng.random() < 0.3 else "")
    evs = []
    t = K.t0
    banner = lambda K_, S, tt: [S.block(tt + sec(K.rng.uniform(0, 2)), h, None, torchrun_banner(W, h, W.local(tt, h), W.gpn), "agent") for h in range(W.nnodes)]
    resume = pick_resume(K, v)
    prior = (v is not None and v["phase"] == "load" and rng.random() < 0.6) or (K.healthy and "prior_preempt" in K.flavors) or (not K.healthy and rng.random() < 0.15)
    if prior:
        r0 = max(0, resume - K.plan.save_every * rng.randint(2, 4))
        pe, t, last_done, pstep = prior_preempted(K, resolver, t, r0, rng.choice(["PREEMPTION", "TIME LIMIT"]) if not K.healthy else "PREEMPTION",
                                                  during_save=(v is not None and v["phase"] == "load"), banner=banner)
        evs += pe
        resume = pstep if (v is not None and v["phase"] == "load") else last_done
        evs.append((t - sec(1), -1, 0, None, "Job %d requeued, restarting at %s" % (K.jobid, W.local(t, 0).strftime("%Y-%m-%d %H:%M:%S")), "out"))
        if v is not None and v["phase"] == "load" and v.get("kind") in ("corrupt_zip",):
            pass
    if K.healthy:
        end = healthy_end_for(K, resume)
        A = run_attempt(K, None, t, resume, healthy_end=end, banner=banner)
        evs += A.S.sorted()
        K.t_end = A.t_end
        F = None
        state, ec = "COMPLETED", "0:0"
    else:
        A = run_attempt(K, cause, t, resume, v=v, banner=banner)
        R, extra = resolver(A)
        S = Sink()
        S.extend(A.S)
        S.extend(R.sink)
        for tt, txt in extra:
            S.add(tt, 0, None, txt)
        ev2 = S.sorted()
        ev2 = maybe_trim(K, ev2, K.t_fail - sec(120))
        evs += ev2
        K.t_end = ev2[-1][0]
        F = A.F
        if "cancel" in F.ext:
            state, ec = {"TIME LIMIT": "TIMEOUT", "PREEMPTION": "PREEMPTED"}.get(F.ext["cancel"][1], "CANCELLED"), "0:15"
        elif "oom" in F.ext:
            state, ec = "OUT_OF_ME+", "0:125"
        elif "node_vanish" in F.ext:
            state, ec = "NODE_FAIL", "1:0"
        else:
            state, ec = "FAILED", "1:0"
    files = {}
    header = slurm_header(K, cmd)
    files["slurm-%d.out" % K.jobid] = "\n".join(header) + "\n" + render_console(K, evs)
    files["ls_output_dir.txt"] = ckpt_listing(K)
    want = set(K.kern) if (K.kern and (K.healthy or rng.random() < 0.9 or cause in ("gpu_hardware", "ecc_memory", "nvlink", "network", "host_oom_kill", "data_loader_stall"))) else set()
    if cause == "unknown":
        want = set()
    files.update(kernel_files(K, only=want, name_fmt="dmesg_%s.txt"))
    if rng.random() < 0.5:
        t1 = K.t_end
        rows = [(str(K.jobid), "%s-sft" % W.proj, state, ec, K.t0, t1, W.slurm_nodelist()),
                ("%d.batch" % K.jobid, "batch", state if state != "PREEMPTED" else "CANCELLED", ec, K.t0, t1, W.hosts[0]),
                ("%d.extern" % K.jobid, "extern", "COMPLETED", "0:0", K.t0, t1, W.slurm_nodelist()),
                ("%d.0" % K.jobid, "torchrun", state if state not in ("PREEMPTED", "TIMEOUT") else "CANCELLED", ec, K.t0 + sec(5), t1, W.slurm_nodelist())]
        files["sacct.txt"] = sacct_text(K, rows)
    for k, vv in K.extra.items():
        files[k] = vv
    return files, F


def F_end_guess(t):
    return t + sec(60)


def L_lightning_requeue(K):
    rng = K.rng
    base_setup(K, "slurm", Lightning, "lightning", nnodes=rng.choice([2, 2, 4]), gpn=rng.choice([4, 8, 8]))
    W, fw = K.W, K.fw
    kob = rng.random() < 0.4
    cause = K.cause
    v = PLANS[cause](K) if cause else None
    resolver = lambda A: resolve_slurm_tasks(K, A, kob)
    evs = []
    t = K.t0
    resume = pick_resume(K, v)
    K.hpc_n = 0
    K.hpc_t = []
    K.hpc_steps = []
    att_times = []
    n_req = rng.choice([0, 1, 1, 2, 3]) if not (v and v["phase"] == "load") else rng.choice([0, 1])
    if K.healthy:
        n_req = rng.choice([1, 2, 2, 3])
    cur = resume
    for i in range(n_req):
        stop_step = cur + rng.randint(2, 6) * K.plan.save_every + rng.randint(1, K.plan.save_every - 1)
        A = run_attempt(K, None, t, cur, stop=("train", stop_step), healthy_end=stop_step + 1,
                        banner=lambda K_, S, tt: S.add(tt, 0, None, "Job %d (attempt %d) starting on %s at %s" % (K.jobid, i + 1, W.slurm_nodelist(), W.local(tt, 0).strftime("%c"))))
        tq = A.t_end + sec(rng.uniform(1, 30))
        tr = fw.requeue_lines(A.S, tq, K.jobid)
        K.hpc_n += 1
        K.hpc_t.append(tq + sec(20))
        K.hpc_steps.append(stop_step)
        K.ckpt["done"].append(stop_step)
        att_times.append((A.t_start, F_end_guess(tr)))
        F = Fail("preemption")
        for r in range(W.world):
            F.ends[r] = End(r, tr, None, [])
        F.ext["cancel"] = (tr + sec(rng.uniform(20, 80)), "JOB REQUEUE")
        A.F = F
        R, extra = resolver(A)
        S = Sink()
        S.extend(A.S)
        S.extend(R.sink)
        for tt, txt in extra:
            S.add(tt, 0, None, txt)
        evs += S.sorted()
        t = F.ext["cancel"][0] + sec(rng.uniform(120, 3600))
        cur = stop_step
        K.resume_path = "%s/hpc_ckpt_%d.ckpt" % (fw.ckdir, K.hpc_n)
    if n_req:
        resume = cur
    ban = lambda K_, S, tt: S.add(tt, 0, None, "Job %d (attempt %d) starting on %s at %s" % (K.jobid, n_req + 1, W.slurm_nodelist(), W.local(tt, 0).strftime("%c")))
    if K.healthy:
        end = healthy_end_for(K, resume)
        A = run_attempt(K, None, t, resume, healthy_end=end, banner=ban)
        evs += A.S.sorted()
        K.t_end = A.t_end
        F = None
        final_state = "COMPLETED"
    else:
        if v and v["phase"] == "load" and v.get("kind") == "corrupt_zip":
            K.resume_path = "%s/last.ckpt" % fw.ckdir
        A = run_attempt(K, cause, t, resume, v=v, banner=ban)
        if cause == "preemption" and v["kind"] == "requeue":
            tq = K.t_fail
            tr = fw.requeue_lines(A.S, tq, K.jobid)
            K.hpc_n += 1
            K.hpc_t.append(tq + sec(20))
            for r in range(W.world):
                A.F.ends[r] = End(r, tr, None, [])
            A.F.ext["cancel"] = (tr + sec(rng.uniform(20, 80)), "JOB REQUEUE")
        R, extra = resolver(A)
        S = Sink()
        S.extend(A.S)
        S.extend(R.sink)
        for tt, txt in extra:
            S.add(tt, 0, None, txt)
        ev2 = maybe_trim(K, S.sorted(), K.t_fail - sec(120))
        evs += ev2
        K.t_end = ev2[-1][0]
        F = A.F
        final_state = "FAILED"
        if "cancel" in F.ext:
            final_state = {"TIME LIMIT": "TIMEOUT", "PREEMPTION": "PREEMPTED", "JOB REQUEUE": "REQUEUED"}[F.ext["cancel"][1]]
        elif "oom" in F.ext:
            final_state = "OUT_OF_MEMORY"
    files = {}
    head = ["#!/bin/bash", "#SBATCH --nodes=%d --ntasks-per-node=%d --gres=gpu:%d --signal=SIGUSR1@90 --requeue --open-mode=append" % (W.nnodes, W.gpn, W.gpn),
            "# (slurm script echoed by the user)", "srun python %s fit --config configs/%s.yaml" % (fw.entry, W.proj)] if rng.random() < 0.3 else []
    files["slurm-%d.out" % K.jobid] = ("\n".join(head) + "\n" if head else "") + render_console(K, evs)
    # sacct with duplicates (-D) shows the requeue history
    rows = []
    for i in range(n_req):
        rows.append((str(K.jobid), W.proj, "REQUEUED", "0:0", W.local(att_times[i][0], 0), W.local(att_times[i][1], 0), W.slurm_nodelist()))
    tt0 = W.local(t, 0)
    te = W.local(K.t_end, 0)
    rows.append((str(K.jobid), W.proj, final_state, "0:0" if final_state in ("COMPLETED", "REQUEUED", "TIMEOUT", "PREEMPTED") else "1:0", tt0, te if final_state != "REQUEUED" else None, W.slurm_nodelist()))
    if final_state not in ("REQUEUED",):
        rows.append(("%d.0" % K.jobid, "python", final_state if final_state != "TIMEOUT" else "CANCELLED", "0:0" if final_state == "COMPLETED" else "1:0", tt0, te, W.slurm_nodelist()))
    files["sacct_%d.txt" % K.jobid] = sacct_text(K, rows)
    files["checkpoints_ls.txt"] = ckpt_listing(K)
    want = set(K.kern) if cause != "unknown" else set()
    if K.healthy and rng.random() < 0.5:
        want = set()
    files.update(kernel_files(K, only=want, name_fmt="dmesg-%s.log"))
    for k, vv in K.extra.items():
        files[k] = vv
    return files, F


def L_megatron(K):
    rng = K.rng
    base_setup(K, "slurm", Megatron, "megatron", nnodes=rng.choice([2, 4, 4, 8]))
    W, fw = K.W, K.fw
    use_torchrun = rng.random() < 0.5
    kob = rng.random() < 0.5
    cause = K.cause
    v = PLANS[cause](K) if cause else None
    if use_torchrun:
        resolver = lambda A: resolve_slurm_torchrun(K, A, fw.script, kob)
    else:
        resolver = lambda A: resolve_slurm_tasks(K, A, kob)
    K.lfs = fw.save.split("/")[1] if fw.save.startswith("/lustre") else "scratch"
    evs = []
    t = K.t0
    banner = (lambda K_, S, tt: [S.block(tt + sec(K.rng.uniform(0, 2)), h, None, torchrun_banner(W, h, W.local(tt, h), W.gpn), "agent") for h in range(W.nnodes)]) if use_torchrun else None
    resume = pick_resume(K, v)
    prior = (v is not None and v["phase"] == "load" and rng.random() < 0.5) or (K.healthy and "prior_preempt" in K.flavors)
    if prior:
        r0 = max(0, resume - K.plan.save_every * rng.randint(2, 4))
        pe, t, last_done, pstep = prior_preempted(K, resolver, t, r0, "TIME LIMIT", during_save=(v is not None and v["phase"] == "load"), banner=banner)
        evs += pe
        resume = pstep if (v is not None and v["phase"] == "load") else last_done
    if K.healthy:
        end = healthy_end_for(K, resume)
        A = run_attempt(K, None, t, resume, healthy_end=end, banner=banner)
        evs += A.S.sorted()
        K.t_end = A.t_end
        F = None
    else:
        A = run_attempt(K, cause, t, resume, v=v, banner=banner)
        R, extra = resolver(A)
        S = Sink()
        for e in A.S.ev:
            S.ev.append((e[0], S.n, e[2], e[3], e[4], "out" if e[5] != "agent" and "Warning" not in e[4] and "warnings.warn" not in e[4] else "err"))
            S.n += 1
        for e in R.sink.ev:
            S.ev.append((e[0], S.n, e[2], e[3], e[4], "err"))
            S.n += 1
        for tt, txt in extra:
            S.add(tt, 0, None, txt, "err")
        ev2 = maybe_trim(K, S.sorted(), K.t_fail - sec(150))
        evs += ev2
        K.t_end = ev2[-1][0]
        F = A.F
    name = "%s-%s" % (W.proj, rng.choice(["gpt3-8b", "llama-70b", "gpt-175b-repro", "moe-16x3b"]))
    split = rng.random() < 0.6
    hdr = [(K.t0 - sec(5), -2, 0, None, "SLURM_JOB_ID=%d SLURM_JOB_NODELIST=%s SLURM_NNODES=%d" % (K.jobid, W.slurm_nodelist(), W.nnodes), "out"),
           (K.t0 - sec(5), -1, 0, None, "MASTER_ADDR=%s MASTER_PORT=%d WORLD_SIZE=%d" % (W.hosts[0], W.master_port, W.world), "out")]
    evs = hdr + evs
    files = {}
    if split:
        files["logs/%s_%d.out" % (name, K.jobid)] = render_console(K, [e for e in evs if e[5] != "err" and e[5] != "agent"])
        files["logs/%s_%d.err" % (name, K.jobid)] = render_console(K, [e for e in evs if e[5] in ("err", "agent")])
    else:
        files["logs/%s_%d.log" % (name, K.jobid)] = render_console(K, evs)
    files["checkpoint_dir.txt"] = ckpt_listing(K)
    want = set(K.kern) if cause != "unknown" else set()
    files.update(kernel_files(K, only=want, name_fmt="node_logs/%s.dmesg"))
    for k, vv in K.extra.items():
        files[k] = vv
    return files, F


def L_deepspeed(K):
    rng = K.rng
    base_setup(K, "slurm" if rng.random() < 0.5 else "cloud", DeepSpeed, "deepspeed", nnodes=rng.choice([2, 2, 3, 4]))
    W, fw = K.W, K.fw
    cause = K.cause
    v = PLANS[cause](K) if cause else None
    if cause == "collective_mismatch" and v["kind"] == "stale_resume":
        pass
    resume = pick_resume(K, v)
    if cause == "collective_mismatch" and v["kind"] == "stale_resume":
        resume = max(resume, 3 * K.plan.save_every)
        K.resume_step = resume
        K.resume_old = resume - K.plan.save_every * rng.randint(1, 3)
    t = K.t0
    evs = []
    hl = ",".join(W.hosts)
    runner = "[%s] [INFO] [runner.py:568:main] cmd = pdsh -S -f 1024 -w %s export NCCL_DEBUG=%s; export PYTHONPATH=/home/%s/%s;  cd /home/%s/%s; %s -u -m deepspeed.launcher.launch --world_info=%s --node_rank=%%n --master_addr=%s --master_port=%d %s --deepspeed --deepspeed_config ds_config.json --output_dir %s" % (
        fmt_std(W.local(t, 0)), hl, "INFO" if K.nccl_info else "WARN", W.user, W.proj, W.user, W.proj, W.pybin,
        "ey" + "".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789") for _ in range(60)) + "fQ==", W.ips[0], W.master_port, fw.script, fw.save)
    pre = ["[%s] [INFO] [real_accelerator.py:203:get_accelerator] Setting ds_accelerator to cuda (auto detect)" % fmt_std(W.local(t, 0)),
           "[%s] [INFO] [multinode_runner.py:80:get_cmd] Running on the following workers: %s" % (fmt_std(W.local(t, 0)), hl), runner]
    if K.healthy:
        end = healthy_end_for(K, resume)
        A = run_attempt(K, None, t + sec(3), resume, healthy_end=end)
        evs = A.S.sorted()
        K.t_end = A.t_end
        F = None
        tail = []
        for h in range(W.nnodes):
            for r in W.ranks_on(h):
                tail.append((A.t_end + sec(5 + 0.01 * r), h, "[%s] [INFO] [launch.py:351:main] Process %d exits successfully." % (fmt_std(W.local(A.t_end + sec(5), h)), W.pids[r])))
    else:
        A = run_attempt(K, cause, t + sec(3), resume, v=v)
        R = resolve_torchrun(K, A.F, fw.script, agent_style="deepspeed")
        S = Sink()
        S.extend(A.S)
        S.extend(R.sink)
        evs = maybe_trim(K, S.sorted(), K.t_fail - sec(120))
        K.t_end = evs[-1][0]
        F = A.F
        tail = []
        for h, (te, rc) in sorted(R.node_exit.items()):
            if te is not None:
                tail.append((te + sec(0.5), None, "pdsh@%s: %s: ssh exited with exit code %d" % (W.hosts[0].split(".")[0], W.hosts[h], rc if isinstance(rc, int) and rc > 0 else 1)))
    lines = pre[:]
    merged = [(e[0], 0, e[2], e[4]) for e in evs] + [(tt, 1, h, txt) for tt, h, txt in tail]
    merged.sort(key=lambda x: (x[0], x[1]))
    for tt, kind, h, text in merged:
        lines.append(text if h is None else "%s: %s" % (W.hosts[h], text))
    files = {"train.log": "\n".join(lines) + "\n", "ckpt_ls.txt": ckpt_listing(K)}
    want = set(K.kern) if cause != "unknown" else set()
    files.update(kernel_files(K, only=want, name_fmt="dmesg-%s.txt"))
    for k, vv in K.extra.items():
        files[k] = vv
    return files, F


def L_titan_k8s(K):
    rng = K.rng
    base_setup(K, "k8s", Titan, "torchtitan", nnodes=rng.choice([2, 2, 3, 4]), gpn=8)
    W, fw = K.W, K.fw
    job = "%s-%s" % (W.proj, rng.choice(["llama3-8b", "llama3-70b", "titan-run%d" % rng.randint(1, 99)]))
    ns = rng.choice(["ml-training", "default", "team-llm", "research"])
    K.k8s_nodes = W.hosts[:]
    W.hosts = ["%s-master-0" % job] + ["%s-worker-%d" % (job, i) for i in range(W.nnodes - 1)]
    cause = K.cause
    v = PLANS[cause](K) if cause else None
    resume = pick_resume(K, v)
    banner = lambda K_, S, tt: [S.block(tt, h, None, torchrun_banner(W, h, W.local(tt, h), W.gpn), "agent") for h in range(W.nnodes)]
    attempts = []
    t = K.t0
    n_att = 1
    if cause in DETERMINISTIC or (v and v["phase"] == "load"):
        n_att = rng.choice([1, 2, 3])
    prior_spot = (K.healthy and "prior_preempt" in K.flavors) or (not K.healthy and n_att == 1 and rng.random() < 0.2)
    per_pod = {h: [] for h in range(W.nnodes)}
    exits = []
    if prior_spot:
        hs = rng.randrange(W.nnodes)
        A = run_attempt(K, None, t, resume, stop=("train", resume + rng.randint(2, 5) * K.plan.save_every + 7), healthy_end=10 ** 9, banner=banner)
        F = Fail("preemption")
        tx = A.t_end + sec(rng.uniform(1, 40))
        for r in range(W.world):
            F.ends[r] = End(r, tx, None, [])
        fill_timeouts(K, F, tx, K.seq(A.final_step) + 1, fw.train_coll(), skip=W.ranks_on(hs))
        R = resolve_torchrun(K, F, "torchtitan.train", ext_kill={hs: (tx, 15)})
        S = Sink()
        S.extend(A.S)
        S.extend(R.sink)
        attempts.append(("spot", hs, tx, S, R))
        t = (R.t_end or tx) + sec(rng.uniform(60, 400))
        resume = max([s for s in K.ckpt["done"]] or [resume])
    F = None
    for i in range(n_att):
        if K.healthy:
            end = healthy_end_for(K, resume)
            A = run_attempt(K, None, t, resume, healthy_end=end, banner=banner)
            K.last_attempt_start = A.t_start
            attempts.append(("ok", None, A.t_end, A.S, None))
            K.t_end = A.t_end + sec(5)
            break
        A = run_attempt(K, cause, t, resume, v=v, banner=banner)
        K.last_attempt_start = A.t_start
        F = A.F
        R = resolve_torchrun(K, F, "torchtitan.train", ext_kill=F.ext.get("node_kill"))
        if "node_vanish" in F.ext:
            tv, hv = F.ext["node_vanish"]
            R = resolve_torchrun(K, F, "torchtitan.train", ext_kill={hv: (tv, 9)})
        S = Sink()
        S.extend(A.S)
        S.extend(R.sink)
        attempts.append(("fail", None, R.t_end or K.t_fail, S, R))
        K.t_end = (R.t_end or K.t_fail) + sec(2)
        if "cancel" in F.ext or "truncated" in F.ext:
            break
        t = K.t_end + sec(rng.uniform(20, 90))
        resume = resume if (v["phase"] == "load") else max(K.ckpt["done"] or [resume])
    files = {}
    last = attempts[-1]
    prev = attempts[-2] if len(attempts) > 1 else None
    for h in range(W.nnodes):
        pod = W.hosts[h]
        evs = [e for e in last[3].sorted() if e[2] == h]
        if "truncated" in (F.ext if F else {}):
            evs = [e for e in evs if e[0] <= F.ext["truncated"]]
        if "node_vanish" in (F.ext if F else {}) and F.ext["node_vanish"][1] == h:
            files["pods/%s.log" % pod] = "Error from server: Get \"https://%s:10250/containerLogs/%s/%s/pytorch\": dial tcp %s:10250: connect: no route to host\n" % (
                "10.%d.%d.%d" % (rng.randint(0, 250), rng.randint(0, 250), rng.randint(2, 250)), ns, pod, "10.128.%d.%d" % (rng.randint(0, 250), rng.randint(2, 250)))
        else:
            files["pods/%s.log" % pod] = render_console(K, evs)
        if prev is not None:
            pev = [e for e in prev[3].sorted() if e[2] == h]
            files["pods/%s.previous.log" % pod] = render_console(K, pev)
    files["kubectl_describe_pods.txt"] = k8s_describe(K, job, ns, attempts, F)
    files["kubectl_get_events.txt"] = k8s_events(K, job, ns, attempts, F)
    if getattr(K, "gcsfuse", None):
        h, tx = K.gcsfuse
        files["pods/%s.gke-gcsfuse-sidecar.log" % W.hosts[h]] = gcsfuse_log(K, h, tx, stall=True)
    elif "/gcs/" in fw.folder and rng.random() < 0.5:
        files["pods/%s.gke-gcsfuse-sidecar.log" % W.hosts[0]] = gcsfuse_log(K, 0, K.t0 + sec(600), stall=False)
    want = set(K.kern) if cause != "unknown" else set()
    for h in sorted(want):
        ent = K.kern[h] + kernel_noise(rng, W, h, K.t0, K.t_end or K.t0, rng.randint(2, 6))
        files["nodes/%s.dmesg.txt" % K.k8s_nodes[h]] = "$ kubectl debug node/%s -it --image=ubuntu -- chroot /host dmesg -T\n" % K.k8s_nodes[h] + "\n".join(render_kernel(W, h, ent, "T", K.t0)) + "\n"
    for k, vv in K.extra.items():
        kk = k
        for h in range(W.nnodes):
            kk = kk.replace(W.hosts[h], K.k8s_nodes[h])
        files["nodes/" + kk] = vv
    return files, F


def k8s_age(K, t):
    if getattr(K, "k8s_now", None) is None:
        K.k8s_now = (K.t_end or K.t0) + sec(K.rng.uniform(60, 900))
    s = max(1, int((K.k8s_now - t).total_seconds()))
    if s < 120:
        return "%ds" % s
    if s < 7200:
        return "%dm" % (s // 60)
    if s < 172800:
        return "%dh" % (s // 3600)
    return "%dd" % (s // 86400)


def k8s_describe(K, job, ns, attempts, F):
    W, rng = K.W, K.rng
    out = []
    img = rng.choice(["us-docker.pkg.dev/%s/ml/torchtitan:2025.01.15" % W.user, "ghcr.io/%s/titan-train:nightly-20250110" % W.user, "nvcr.io/nvidia/pytorch:24.12-py3"])
    n_restart = len([a for a in attempts]) - 1
    for h in range(W.nnodes):
        pod = W.hosts[h]
        last = attempts[-1]
        state = "Running"
        reason, code = "Completed", 0
        if F is not None:
            if "oom" in F.ext and F.ext["oom"][1] == h and K.layout == "torchtitan-k8s":
                reason, code = "OOMKilled", 137
            elif "spot" in F.ext and F.ext["spot"][1] == h:
                reason, code = "Error", 143
            elif "node_vanish" in F.ext and F.ext["node_vanish"][1] == h:
                reason, code = "Unknown", 255
            elif "cancel" in F.ext or "truncated" in F.ext:
                reason, code = ("Error", 143) if "cancel" in F.ext else (None, None)
            else:
                reason, code = "Error", 1
        status = "Succeeded" if F is None else ("Running" if code is None else "Failed")
        t_start = K.last_attempt_start
        L = ["Name:             %s" % pod, "Namespace:        %s" % ns, "Priority:         %d" % rng.choice([0, 1000, 100000]),
             "Service Account:  default", "Node:             %s/10.%d.%d.%d" % (K.k8s_nodes[h], rng.randint(0, 250), rng.randint(0, 250), rng.randint(2, 250)),
             "Start Time:       %s" % (K.t0.strftime("%a, %d %b %Y %H:%M:%S +0000")),
             "Labels:           training.kubeflow.org/job-name=%s" % job,
             "                  training.kubeflow.org/operator-name=pytorchjob-controller",
             "                  training.kubeflow.org/replica-index=%d" % (0 if h == 0 else h - 1),
             "                  training.kubeflow.org/replica-type=%s" % ("master" if h == 0 else "worker"),
             "Status:           %s" % status,
             "Controlled By:    PyTorchJob/%s" % job, "Containers:", "  pytorch:",
             "    Container ID:  containerd://%064x" % rng.randrange(16 ** 63),
             "    Image:         %s" % img, "    Port:          23456/TCP",
             "    Command:", "      torchrun", "    Args:", "      --nnodes=%d" % W.nnodes, "      --nproc_per_node=%d" % W.gpn,
             "      --rdzv_backend=c10d", "      --rdzv_endpoint=%s:%d" % (W.hosts[0], W.master_port), "      -m", "      torchtitan.train",
             "      --job.config_file=./torchtitan/models/%s/train_configs/%s_%s.toml" % (K.fw.model[0], K.fw.model[0], K.fw.model[1].lower())]
        if code is None:
            L += ["    State:          Running", "      Started:      %s" % W.local(t_start, h).strftime("%a, %d %b %Y %H:%M:%S +0000")]
        elif F is None:
            L += ["    State:          Terminated", "      Reason:       Completed", "      Exit Code:    0"]
        else:
            L += ["    State:          Terminated", "      Reason:       %s" % reason, "      Exit Code:    %d" % code,
                  "      Started:      %s" % t_start.strftime("%a, %d %b %Y %H:%M:%S +0000"),
                  "      Finished:     %s" % (K.t_end or t_start).strftime("%a, %d %b %Y %H:%M:%S +0000")]
        if n_restart > 0:
            L += ["    Last State:     Terminated", "      Reason:       %s" % ("Error" if attempts[-2][0] != "spot" or attempts[-2][1] != h else "Error"),
                  "      Exit Code:    %d" % (1 if attempts[-2][0] == "fail" else 143)]
        L += ["    Ready:          False", "    Restart Count:  %d" % n_restart,
              "    Limits:", "      memory:          %dGi" % rng.choice([1200, 1600, 1800]), "      nvidia.com/gpu:  %d" % W.gpn,
              "    Requests:", "      cpu:             %d" % rng.choice([96, 180, 200]), "      memory:          %dGi" % rng.choice([1200, 1600, 1800]), "      nvidia.com/gpu:  %d" % W.gpn,
              "    Environment:", "      NCCL_DEBUG:      %s" % ("INFO" if K.nccl_info else "WARN"), "      PYTHONUNBUFFERED: 1",
              "    Mounts:", "      /dev/shm from dshm (rw)", "      %s from ckpt (rw)" % "/".join(K.fw.folder.split("/")[:3])]
        conds = ["Conditions:", "  Type                        Status"]
        if F is not None and "spot" in F.ext and F.ext["spot"][1] == h:
            conds.append("  DisruptionTarget            True")
        conds += ["  PodReadyToStartContainers   True", "  Initialized                 True", "  Ready                       False",
                  "  ContainersReady             False", "  PodScheduled                True"]
        L += conds
        L += ["QoS Class:                   Burstable", "Node-Selectors:              cloud.google.com/gke-accelerator=%s" % {"NVIDIA H100 80GB HBM3": "nvidia-h100-mega-80gb", "NVIDIA A100-SXM4-80GB": "nvidia-a100-80gb", "NVIDIA H200": "nvidia-h200-141gb"}[W.gpu[0]],
              "Tolerations:                 nvidia.com/gpu:NoSchedule op=Exists", "Events:"]
        ev = []
        if F is not None and "spot" in F.ext and F.ext["spot"][1] == h:
            ev.append(("Normal", "Killing", k8s_age(K, F.ext["spot"][0]), "kubelet", "Stopping container pytorch"))
            L.insert(11, "Reason:           Terminated")
            L.insert(12, "Message:          Pod was terminated in response to imminent node shutdown.")
        if n_restart > 0:
            ev.append(("Normal", "Pulled", "%s (x%d over %s)" % (k8s_age(K, attempts[-1][2] - sec(600)), n_restart + 1, k8s_age(K, K.t0)), "kubelet", 'Container image "%s" already present on machine' % img))
            ev.append(("Normal", "Created", "%s (x%d over %s)" % (k8s_age(K, attempts[-1][2] - sec(600)), n_restart + 1, k8s_age(K, K.t0)), "kubelet", "Created container pytorch"))
            ev.append(("Normal", "Started", "%s (x%d over %s)" % (k8s_age(K, attempts[-1][2] - sec(600)), n_restart + 1, k8s_age(K, K.t0)), "kubelet", "Started container pytorch"))
            if F is not None:
                ev.append(("Warning", "BackOff", "%s (x%d over %s)" % (k8s_age(K, K.t_end), rng.randint(1, 4), k8s_age(K, K.t_end - sec(900))), "kubelet",
                           "Back-off restarting failed container pytorch in pod %s_%s(%08x-%04x-%04x-%04x-%012x)" % (pod, ns, rng.randrange(16 ** 8), rng.randrange(16 ** 4), rng.randrange(16 ** 4), rng.randrange(16 ** 4), rng.randrange(16 ** 12))))
        if not ev:
            L.append("  <none>")
        else:
            L += ["  Type     Reason     Age                  From     Message", "  ----     ------     ----                 ----     -------"]
            for ty, rs, age, frm, msg in ev:
                L.append("  %-8s %-10s %-20s %-8s %s" % (ty, rs, age, frm, msg))
        out.append("$ kubectl -n %s describe pod %s" % (ns, pod))
        out += L
        out.append("")
    return "\n".join(out) + "\n"


def k8s_events(K, job, ns, attempts, F):
    W, rng = K.W, K.rng
    rows = []
    for h in range(W.nnodes):
        rows.append((K.t0 + sec(2 + h), "Normal", "Scheduled", "pod/%s" % W.hosts[h], "Successfully assigned %s/%s to %s" % (ns, W.hosts[h], K.k8s_nodes[h])))
        rows.append((K.t0 + sec(30 + h), "Normal", "Started", "pod/%s" % W.hosts[h], "Started container pytorch"))
    rows.append((K.t0 + sec(1), "Normal", "SuccessfulCreatePod", "pytorchjob/%s" % job, "Created pod: %s" % W.hosts[0]))
    if F is not None:
        if "oom" in F.ext:
            to, ho, vo = F.ext["oom"]
            rows.append((to + sec(1), "Warning", "OOMKilling", "node/%s" % K.k8s_nodes[ho], "Memory cgroup out of memory: Killed process %d (%s) total-vm:%dkB, anon-rss:%dkB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:%dkB oom_score_adj:%d" % (
                W.pids[vo], K.comm(), rng.randint(3 * 10 ** 8, 9 * 10 ** 8), rng.randint(10 ** 8, 4 * 10 ** 8), rng.randint(2 * 10 ** 5, 10 ** 6), rng.choice([-997, 999, 0]))))
        if "spot" in F.ext:
            ts, hs = F.ext["spot"]
            rows.append((ts - sec(25), "Warning", "NodeShutdown? ".strip("? "), "node/%s" % K.k8s_nodes[hs], "Node is shutting down: preemption/maintenance event") if False else
                        (ts - sec(25), "Normal", "NodeNotReady", "node/%s" % K.k8s_nodes[hs], "Node %s status is now: NodeNotReady" % K.k8s_nodes[hs]))
            rows.append((ts, "Normal", "Killing", "pod/%s" % W.hosts[hs], "Stopping container pytorch"))
            rows.append((ts + sec(2), "Warning", "TerminationByKubelet" if rng.random() < 0.5 else "Preempting", "pod/%s" % W.hosts[hs], "Pod was terminated in response to imminent node shutdown."))
        if "node_vanish" in F.ext:
            tv, hv = F.ext["node_vanish"]
            rows.append((tv + sec(rng.uniform(40, 60)), "Normal", "NodeNotReady", "node/%s" % K.k8s_nodes[hv], "Node %s status is now: NodeNotReady" % K.k8s_nodes[hv]))
            rows.append((tv + sec(300), "Warning", "NodeNotReady", "pod/%s" % W.hosts[hv], "Node is not ready"))
        if "cancel" in F.ext:
            tc = F.ext["cancel"][0]
            for h in range(W.nnodes):
                rows.append((tc + sec(h * 0.2), "Normal", "Killing", "pod/%s" % W.hosts[h], "Stopping container pytorch"))
            rows.append((tc - sec(1), "Normal", "SuccessfulDeletePod", "pytorchjob/%s" % job, "Deleted pod: %s" % W.hosts[0]))
        if len(attempts) > 1 or "cancel" not in F.ext:
            rows.append(((K.t_end or K.t0) - sec(1), "Warning", "BackOff", "pod/%s" % W.hosts[0], "Back-off restarting failed container pytorch in pod %s_%s" % (W.hosts[0], ns)))
        if not ("cancel" in F.ext or "truncated" in F.ext):
            rows.append(((K.t_end or K.t0), "Normal", "PyTorchJobFailed", "pytorchjob/%s" % job, "PyTorchJob %s is failed because %d %s replica(s) failed." % (job, 1, "Master" if rng.random() < 0.5 else "Worker")))
    else:
        rows.append((K.t_end, "Normal", "PyTorchJobSucceeded", "pytorchjob/%s" % job, "PyTorchJob %s/%s successfully completed." % (ns, job)))
    rows.sort(key=lambda x: x[0])
    L = ["$ kubectl -n %s get events --sort-by=.lastTimestamp" % ns, "LAST SEEN   TYPE      REASON                 OBJECT                                MESSAGE"]
    for t, ty, rs, obj, msg in rows:
        L.append("%-11s %-9s %-22s %-37s %s" % (k8s_age(K, t), ty, rs, obj, msg))
    return "\n".join(L) + "\n"


def gcsfuse_log(K, h, tx, stall):
    W, rng = K.W, K.rng
    bucket = "%s-datasets" % W.user
    L = []
    t = K.t0 + sec(5)

    def j(t, sev, msg):
        ts = W.local(t, h)
        secs = int((ts - datetime(1970, 1, 1)).total_seconds())
        return '{"timestamp":{"seconds":%d,"nanos":%d},"severity":"%s","message":"%s"}' % (secs, ts.microsecond * 1000, sev, msg.replace('"', '\\"'))
    L.append(j(t, "INFO", "Running Google Cloud Storage FUSE CSI driver sidecar mounter version v1.4.%d-gke.%d" % (rng.randint(0, 5), rng.randint(0, 3))))
    L.append(j(t + sec(1), "INFO", "Start gcsfuse/%s for app \"\" using mount point: /dev/fd/3" % rng.choice(["2.4.0", "2.5.1", "2.3.2"])))
    L.append(j(t + sec(2), "INFO", "File system has been successfully mounted."))
    if stall:
        for i in range(rng.randint(6, 14)):
            tt = tx - sec(30) + sec(i * rng.uniform(20, 60))
            L.append(j(tt, "WARNING", "Retrying Read(c4/en/train-%05d-of-01024.parquet, %d, %d) after error: googleapi: Error 503: We encountered an internal error. Please try again., backendError" % (
                rng.randint(0, 1023), rng.randrange(10 ** 9), 8388608)))
        L.append(j(tx + sec(400), "ERROR", "ReadFile: input/output error, fh.reader.ReadAt: readFull: context deadline exceeded"))
        L.append(j(tx + sec(401), "ERROR", "fuse: *fuseops.ReadFileOp error: input/output error"))
    else:
        L.append(j(tx, "WARNING", "Retrying Read(c4/en/train-%05d-of-01024.parquet, 0, 8388608) after error: googleapi: Error 429: The rate of change requests to the object is too high, rateLimitExceeded" % rng.randint(0, 1023)))
    return "\n".join(L) + "\n"


def L_custom_logdir(K):
    rng = K.rng
    base_setup(K, rng.choice(["cloud", "slurm"]), Custom, "custom", nnodes=rng.choice([2, 2, 3, 4]))
    W, fw = K.W, K.fw
    cause = K.cause
    v = PLANS[cause](K) if cause else None
    resume = pick_resume(K, v)
    if cause == "collective_mismatch" and v["kind"] == "stale_resume":
        resume = max(resume, 3 * K.plan.save_every)
        K.resume_step = resume
        K.resume_old = resume - K.plan.save_every * rng.randint(1, 3)
    tee = rng.random() < 0.5
    loginfo = rng.random() < 0.6
    run_id = rng.choice(["none", "%s_%d" % (W.proj, rng.randint(1, 999)), "%08x" % rng.randrange(16 ** 8)])
    rand = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789_") for _ in range(8))
    max_restarts = 0
    n_att = 1
    if cause in DETERMINISTIC or (v and v["phase"] == "load") or K.healthy:
        max_restarts = rng.choice([0, 1, 2, 3])
        n_att = 1 if K.healthy else max_restarts + 1
    K.max_restarts = max_restarts
    t = K.t0
    attempts = []
    F = None
    for i in range(n_att):
        if K.healthy:
            end = healthy_end_for(K, resume)
            A = run_attempt(K, None, t, resume, healthy_end=end)
            attempts.append((A.S, None, A.t_start))
            K.t_end = A.t_end + sec(5)
            break
        A = run_attempt(K, cause, t, resume, v=v)
        F = A.F
        ext = dict(F.ext.get("node_kill", {}))
        if "cancel" in F.ext:
            for h in range(W.nnodes):
                ext[h] = (F.ext["cancel"][0], 15)
        if "node_vanish" in F.ext:
            tv, hv = F.ext["node_vanish"]
            ext[hv] = (tv, 9)
        R = resolve_torchrun(K, F, fw.script, ext_kill=ext, restarts_left=(max_restarts - i), loglevel_info=loginfo)
        if "node_vanish" in F.ext:
            R.sink.ev = [e for e in R.sink.ev if not (e[2] == F.ext["node_vanish"][1] and e[0] >= F.ext["node_vanish"][0])]
        attempts.append((A.S, R, A.t_start))
        ts = [x[0] for x in R.node_exit.values() if x[0] is not None]
        K.t_end = (max(ts) if ts else K.t_fail + sec(fw.timeout_ms / 1000 + 60)) + sec(1)
        t = K.t_end + sec(rng.uniform(5, 40))
        if "cancel" in F.ext or "truncated" in F.ext or "node_kill" in F.ext or "node_vanish" in F.ext:
            break
        resume = resume if v["phase"] == "load" else max(K.ckpt["done"] or [resume])
    files = {}
    for h in range(W.nnodes):
        host = W.hosts[h]
        cons = []
        for ai, (S, R, ta) in enumerate(attempts):
            Sx = Sink()
            Sx.extend(S)
            if R is not None:
                Sx.extend(R.sink)
            evs = [e for e in Sx.sorted() if e[2] == h]
            if F is not None and "truncated" in F.ext:
                evs = [e for e in evs if e[0] <= F.ext["truncated"]]
            per_rank = {}
            for e in evs:
                if e[3] is not None:
                    per_rank.setdefault(e[3], []).append(e[4])
            for r in W.ranks_on(h):
                lr = W.lr(r)
                files["%s/logs/%s_%s/attempt_%d/%d/stderr.log" % (host, run_id, rand, ai, lr)] = "\n".join(per_rank.get(r, [])) + ("\n" if per_rank.get(r) else "")
            if ai == 0 and loginfo:
                tl = W.local(K.t0, h)
                cons += [agent_pre(W, h, "I", tl, "torch.distributed.launcher.api", "torch/distributed/launcher/api.py", 194) + "Starting elastic_operator with launch configs:",
                         "  entrypoint       : %s" % fw.script, "  min_nodes        : %d" % W.nnodes, "  max_nodes        : %d" % W.nnodes,
                         "  nproc_per_node   : %d" % W.gpn, "  run_id           : %s" % run_id, "  rdzv_backend     : c10d",
                         "  rdzv_endpoint    : %s:%d" % (W.hosts[0], W.master_port), "  rdzv_configs     : {'timeout': 900}",
                         "  max_restarts     : %d" % max_restarts, "  monitor_interval : %s" % ("0.1" if W.tv == "2.5" else "5"),
                         "  log_dir          : /opt/app/logs", "  metrics_cfg      : {}", ""]
            if ai == 0:
                cons += torchrun_banner(W, h, W.local(K.t0, h), W.gpn)
            if loginfo:
                cons.append(agent_pre(W, h, "I", W.local(ta, h), AG_API[0], AG_API[1], 525) + "[default] Starting worker group")
                cons.append(agent_pre(W, h, "I", W.local(ta, h), "torch.distributed.elastic.multiprocessing", "torch/distributed/elastic/multiprocessing/__init__.py", 229) +
                            "Setting worker%d reply file to: /tmp/torchelastic_%s/%s_%s/attempt_%d/0/error.json" % (0, rand[:8], run_id, rand, ai))
            for e in evs:
                if e[3] is None:
                    cons.append(e[4])
                elif tee:
                    cons.append("[default%d]:%s" % (W.lr(e[3]), e[4]))
        files["%s/torchrun.log" % host] = "\n".join(cons) + "\n"
    files["ckpt_ls.txt"] = ckpt_listing(K)
    want = set(K.kern) if cause != "unknown" else set()
    files.update(kernel_files(K, only=want, style_choices=("journal", "T"), name_fmt="%s/dmesg.txt"))
    for k, vv in K.extra.items():
        files[k] = vv
    return files, F


LAYOUT_FN = {
    "hf-slurm": L_hf_slurm,
    "lightning-requeue": L_lightning_requeue,
    "megatron-distckpt": L_megatron,
    "deepspeed-pdsh": L_deepspeed,
    "torchtitan-k8s": L_titan_k8s,
    "fsdp-torchrun-logdir": L_custom_logdir,
}


# --------------------------------------------------------------------------------------
# main
# --------------------------------------------------------------------------------------

def generate_one(seed, i, layout, cause, outdir):
    healthy = cause is None
    rng = random.Random("blind32|%s|%d|%s|%s" % (seed, i, layout, cause))
    K = Ctx(rng, layout, cause, healthy)
    files, F = LAYOUT_FN[layout](K)
    texts = [v for k, v in files.items() if "dmesg" not in k and "journal" not in k and "py-spy" not in k]
    init = finalize_truth(K, F, texts) if not healthy else None
    notes = F.notes if F is not None else healthy_notes(K)
    if F is not None and K.notes:
        notes += " " + " ".join(K.notes)
    size_guard(K, files)
    d = os.path.join(outdir, "run-%03d-%s" % (i, layout))
    if os.path.exists(d):
        shutil.rmtree(d)
    os.makedirs(d)
    for name in sorted(files):
        p = os.path.join(d, name)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w", encoding="utf-8") as f:
            f.write(files[name])
    truth = {"healthy": healthy, "cause": cause, "initiator": init, "layout": layout, "notes": notes}
    with open(os.path.join(d, "truth.json"), "w", encoding="utf-8") as f:
        json.dump(truth, f, indent=2)
        f.write("\n")
    return truth


def size_guard(K, files, limit=880000):
    """Keep a bundle under ~1 MB the way a user would: cut the routine middle of the biggest logs."""
    total = sum(len(v.encode("utf-8")) for v in files.values())
    guard = 0
    while total > limit and guard < 40:
        guard += 1
        name = max(files, key=lambda k: len(files[k]))
        lines = files[name].split("\n")
        if len(lines) < 200:
            break
        a, b = int(len(lines) * 0.2), int(len(lines) * 0.6)
        files[name] = "\n".join(lines[:a] + ["[... %d lines trimmed ...]" % (b - a)] + lines[b:])
        total = sum(len(v.encode("utf-8")) for v in files.values())


def healthy_notes(K):
    fl = sorted(K.flavors)
    parts = {"slow_save": "some checkpoint saves were very slow (minutes) but finished",
             "nfs_blip": "NFS 'server not responding' blips that recovered ('OK')",
             "lustre_blip": "a Lustre OST connection was lost and restored",
             "s3_retry": "checkpoint uploads hit S3 SlowDown and succeeded on retry",
             "wandb_retry": "wandb network retries",
             "xid63": "a benign Xid 63 row-remap notice (pending remap, no errors)",
             "prior_preempt": "an earlier attempt was preempted/requeued and the job resumed from the last checkpoint"}
    s = "; ".join(parts[f] for f in fl if f in parts)
    return "Healthy run: training finished normally%s." % ((" (noise: " + s + ")") if s else "")


def main(argv=None):
    ap = argparse.ArgumentParser(description="blind32: checkpoint/eval/storage themed synthetic failure log bundles")
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--seed", default="1")
    a = ap.parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    srng = random.Random("blind32-order|%s" % a.seed)
    order = CAUSES[:]
    srng.shuffle(order)
    lays = LAYOUTS[:]
    srng.shuffle(lays)
    cnt = {c: 0 for c in CAUSES}
    hl = LAYOUTS[:]
    srng.shuffle(hl)
    hi = 0
    ci = 0
    counts = {}
    for i in range(a.n):
        if i % 7 == 3:
            cause = None
            layout = hl[hi % len(hl)]
            hi += 1
        else:
            cause = order[ci % len(order)]
            ci += 1
            j = order.index(cause)
            k = (j + cnt[cause] * 2 + (cnt[cause] // 3)) % len(lays)
            while cause not in SUPPORT[lays[k]]:
                k = (k + 1) % len(lays)
            layout = lays[k]
            cnt[cause] += 1
        generate_one(a.seed, i, layout, cause, a.out)
        key = cause or "healthy"
        counts[key] = counts.get(key, 0) + 1
    print(json.dumps({k: counts[k] for k in sorted(counts)}, indent=1))


if __name__ == "__main__":
    main()
