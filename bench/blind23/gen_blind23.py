#!/usr/bin/env python3
"""blind23 -- synthetic log bundles of fine-tuning-framework runs on 2-512 GPUs.

Stacks: LLaMA-Factory, Axolotl (accelerate), torchtune, ms-swift (Kubernetes),
HF Trainer + DeepSpeed launcher (pdsh), Composer / LLM Foundry, LitGPT under
Slurm srun, Unsloth under torchrun.  Standard library only, deterministic for a
given --seed.  Written without reading the diagnosis tool's code.

    python3 gen_blind23.py --out DIR --n 60 --seed 1
"""
import argparse
import json
import os
import random
import shutil
import sys
from datetime import datetime, timedelta

NAME = "blind23"
CAUSES = ["gpu_hardware", "ecc_memory", "nvlink", "network", "cuda_oom",
          "illegal_memory_access", "python_exception", "host_oom_kill",
          "crash_signal", "preemption", "hang", "data_loader_stall",
          "collective_mismatch", "straggler", "unknown"]
LAYOUTS = ["lmf", "axolotl", "torchtune", "swift_k8s", "ds_pdsh", "composer",
           "litgpt_slurm", "unsloth"]
MAX_RUN_BYTES = 990_000

MON = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct",
       "Nov", "Dec"]
DOW = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]

# torch release -> (nccl, cuda, log style)
TORCH = {
    "2.1.2": ("2.18.1", "12.1", "t21"),
    "2.2.2": ("2.19.3", "12.1", "t22"),
    "2.3.1": ("2.20.5", "12.1", "t23"),
    "2.4.1": ("2.20.5", "12.4", "t24"),
    "2.5.1": ("2.21.5", "12.4", "t25"),
    "2.6.0": ("2.21.5", "12.4", "t26"),
    "2.7.1": ("2.26.2", "12.6", "t26"),
    "2.8.0": ("2.27.3", "12.8", "t26"),
}
TORCH_ORDER = list(TORCH.keys())

GPUS = {
    "A100": dict(name="NVIDIA A100-SXM4-80GB", cap=79.15, mib=81920, pw=400,
                 bus=["07", "0f", "47", "4e", "87", "90", "b7", "bd"], sxm=True),
    "A800": dict(name="NVIDIA A800-SXM4-80GB", cap=79.15, mib=81920, pw=400,
                 bus=["0e", "13", "49", "4f", "8b", "91", "c9", "cf"], sxm=True),
    "H100": dict(name="NVIDIA H100 80GB HBM3", cap=79.11, mib=81559, pw=700,
                 bus=["18", "2a", "3a", "5d", "9a", "ab", "ba", "db"], sxm=True),
    "H800": dict(name="NVIDIA H800", cap=79.11, mib=81559, pw=700,
                 bus=["19", "3b", "4c", "5d", "9b", "bb", "cb", "db"], sxm=True),
    "H20": dict(name="NVIDIA H20", cap=94.99, mib=97871, pw=500,
                bus=["0f", "34", "48", "5a", "87", "ae", "c2", "d7"], sxm=True),
    "L40S": dict(name="NVIDIA L40S", cap=44.52, mib=46068, pw=350,
                 bus=["01", "21", "41", "61", "81", "a1", "c1", "e1"], sxm=False),
    "A6000": dict(name="NVIDIA RTX A6000", cap=47.54, mib=49140, pw=300,
                  bus=["01", "21", "41", "61", "81", "a1", "c1", "e1"], sxm=False),
    "4090": dict(name="NVIDIA GeForce RTX 4090", cap=23.65, mib=24564, pw=450,
                 bus=["01", "21", "41", "61", "81", "a1", "c1", "e1"], sxm=False),
}
DRIVERS = {"12.1": "535.129.03", "12.4": "550.127.05", "12.6": "560.35.03",
           "12.8": "570.133.20"}
DRIVER_CUDA = {"535.129.03": "12.2", "550.127.05": "12.4", "560.35.03": "12.6",
               "570.133.20": "12.8"}


def tver(v):
    a, b, _ = v.split(".")
    return int(a) * 100 + int(b)


def nver(v):
    a, b, c = v.split(".")
    return int(a) * 10000 + int(b) * 100 + int(c)


# ----------------------------------------------------------------- times
def f_hf(t):
    return t.strftime("%Y-%m-%d %H:%M:%S") + ",%03d" % (t.microsecond // 1000)


def f_ds(t):
    return "[" + f_hf(t) + "]"


def f_pyglog(level, t, pid, path, line):
    return "%s%02d%02d %s.%06d %d %s:%d]" % (level, t.month, t.day,
                                            t.strftime("%H:%M:%S"),
                                            t.microsecond, pid, path, line)


def f_cglog(level, t, extra_ns):
    return "%s%d%02d %s.%06d%03d" % (level, t.month, t.day,
                                     t.strftime("%H:%M:%S"), t.microsecond,
                                     extra_ns)


def f_dmesg_T(t):
    return "[%s %s %2d %s %d]" % (DOW[t.weekday()], MON[t.month - 1], t.day,
                                  t.strftime("%H:%M:%S"), t.year)


def f_journal(t, host):
    return "%s %02d %s %s kernel: " % (MON[t.month - 1], t.day,
                                       t.strftime("%H:%M:%S"), host)


def f_slurm(t):
    return t.strftime("%Y-%m-%dT%H:%M:%S")


def f_elapsed(sec):
    sec = int(sec)
    h, r = divmod(sec, 3600)
    m, s = divmod(r, 60)
    if h:
        return "%d:%02d:%02d" % (h, m, s)
    return "%02d:%02d" % (m, s)


def f_dur_words(sec):
    sec = int(sec)
    h, r = divmod(sec, 3600)
    m, s = divmod(r, 60)
    if h:
        return "%dh %dm %ds" % (h, m, s)
    if m:
        return "%dm %ds" % (m, s)
    return "%ds" % s


BAR = " ▏▎▍▌▋▊▉█"


def tqdm_bar(n, total, elapsed, rate_s, width=10, desc="", post=""):
    frac = n / total if total else 0
    pct = int(frac * 100)
    full = frac * width
    nf = int(full)
    rem = int((full - nf) * 8)
    bar = "█" * nf
    if nf < width:
        bar += (BAR[rem] if rem else " ") + " " * (width - nf - 1)
    remaining = (total - n) * rate_s
    if rate_s >= 1:
        rate = "%.2fs/it" % rate_s
    else:
        rate = "%.2fit/s" % (1.0 / max(rate_s, 1e-3))
    d = (desc + ": ") if desc else ""
    p = (", " + post) if post else ""
    return "%s%3d%%|%s| %d/%d [%s<%s, %s%s]" % (d, pct, bar, n, total,
                                              f_elapsed(elapsed),
                                              f_elapsed(remaining), rate, p)


# ----------------------------------------------------------------- stream
class Stream:
    """Lines of one pasted/attached console, ordered by true time."""

    def __init__(self, bar_mode="term"):
        self.items = []
        self.n = 0
        self.bar_mode = bar_mode

    def add(self, t, text, kind="line"):
        self.n += 1
        self.items.append((t, self.n, kind, text))

    def lines(self, t, texts):
        for x in texts:
            self.add(t, x)

    def render(self):
        out = []
        pending = None
        for t, _, kind, text in sorted(self.items, key=lambda x: (x[0], x[1])):
            if kind == "bar":
                if self.bar_mode == "raw":
                    out.append("\r" + text)
                    pending = True
                else:
                    pending = text
                continue
            if self.bar_mode == "raw":
                out.append(text + "\n")
                pending = None
            else:
                if pending:
                    out.append(pending + text + "\n")
                    pending = None
                else:
                    out.append(text + "\n")
        if pending and self.bar_mode != "raw":
            out.append(pending + "\n")
        elif pending:
            out.append("\n")
        return "".join(out)


class Job:
    pass


def wchoice(rng, pairs):
    tot = sum(w for _, w in pairs)
    x = rng.random() * tot
    for v, w in pairs:
        x -= w
        if x <= 0:
            return v
    return pairs[-1][0]


# ----------------------------------------------------------------- hosts
def make_hosts(j, scheme, nn):
    rng = j.rng
    hosts, fqdn, ips = [], [], []
    if scheme == "hpc":
        pre = rng.choice(["gpu", "gn", "node", "sh03-g", "cn", "g"] + {
            "A100": ["dgx", "a100-", "gpu-st-p4d-"], "A800": ["a800-", "gpu-a800-"], "H100": ["hgx-h100-", "h100-", "dgx-h100-"],
            "H800": ["h800-", "gpu-h800-"], "H20": ["h20-", "gpu-h20-"], "L40S": ["l40s-"], "A6000": ["ws-a6k-"],
            "4090": ["rtx-"]}.get(getattr(j, "gk", ""), []) * 2)
        width = rng.choice([2, 3, 3, 4])
        start = rng.randint(1, 140)
        dom = rng.choice(["cluster.local", "hpc.internal", "cm.cluster",
                          "ib.cluster", "hpc.univ.edu"])
        a = rng.randint(1, 60)
        n = start
        for k in range(nn):
            name = "%s%0*d" % (pre, width, n)
            hosts.append(name)
            fqdn.append(name + "." + dom)
            ips.append("10.%d.%d.%d" % (a, 1 + n // 250, 1 + n % 250))
            n += 1 if rng.random() < 0.8 else rng.randint(2, 9)
    elif scheme == "aws":
        reg = rng.choice(["ec2.internal", "us-west-2.compute.internal",
                          "us-east-2.compute.internal"])
        b = rng.randint(0, 3)
        for k in range(nn):
            c, d = rng.randint(0, 255), rng.randint(2, 254)
            name = "ip-10-%d-%d-%d" % (b, c, d)
            hosts.append(name)
            fqdn.append(name + "." + reg)
            ips.append("10.%d.%d.%d" % (b, c, d))
    elif scheme == "k8s":
        job = rng.choice(["sft-qwen", "qwen2vl-sft", "ft-llama3", "swift-sft",
                          "glm4-sft", "intern-sft"]) + "-" + "".join(
            rng.choice("abcdefghjkmnpqrstuvwxyz23456789") for _ in range(5))
        for k in range(nn):
            name = "%s-master-0" % job if k == 0 else "%s-worker-%d" % (job, k - 1)
            hosts.append(name)
            fqdn.append(name)
            ips.append("10.%d.%d.%d" % (rng.randint(100, 120), rng.randint(0, 63),
                                         rng.randint(2, 254)))
        pool = rng.choice(["gke-llm-a3-pool-", "aks-gpunp-", "cce-h800-",
                           "ack-gpu-h20-"])
        tag = "".join(rng.choice("0123456789abcdef") for _ in range(6))
        j.knodes = []
        for k in range(nn):
            j.knodes.append(pool + tag + "-" + "".join(
                rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(4)))
        j.knode_ips = ["192.168.%d.%d" % (rng.randint(0, 40), rng.randint(2, 254))
                       for _ in range(nn)]
    elif scheme == "docker":
        for k in range(nn):
            name = "".join(rng.choice("0123456789abcdef") for _ in range(12))
            hosts.append(name)
            fqdn.append(name)
            ips.append("172.17.0.%d" % (2 + k))
    else:  # lab workstations
        pre = rng.choice(["dl-ws-", "mlbox", "rig", "gpu-ws", "lambda-"])
        start = rng.randint(1, 9)
        for k in range(nn):
            name = "%s%02d" % (pre, start + k)
            hosts.append(name)
            fqdn.append(name + rng.choice([".lab", ".local", ""]))
            ips.append("192.168.%d.%d" % (rng.randint(0, 10), 20 + start + k))
    j.hosts, j.fqdn, j.ips = hosts, fqdn, ips
    j.scheme = scheme


def base_setup(j, torch_opts, nn_opts, gpn_opts, gpu_opts, scheme_opts,
               multi_ok=True):
    rng = j.rng
    j.torch = rng.choice(torch_opts)
    j.nccl, j.cuda, j.tstyle = TORCH[j.torch]
    j.tv = tver(j.torch)
    j.nv = nver(j.nccl)
    j.driver = DRIVERS[j.cuda] if rng.random() < 0.7 else rng.choice(
        [d for d in DRIVERS.values() if DRIVER_CUDA[d] >= j.cuda])
    nn = wchoice(rng, nn_opts)
    if j.cause == "network" and nn < 2:
        nn = 2
    gpn = wchoice(rng, gpn_opts)
    if nn > 1 and gpn < 4:
        gpn = rng.choice([4, 8])
    gk = wchoice(rng, gpu_opts)
    if j.cause == "nvlink" and not GPUS[gk]["sxm"] and gk != "A6000":
        gk = rng.choice(["A100", "H100", "H800"])
    if j.cause == "nvlink" and gk == "A6000":
        gpn = 2 if gpn < 4 else gpn
    if j.cause == "ecc_memory" and gk in ("4090",):
        gk = "A6000"
    j.gk = gk
    j.gpu = GPUS[gk]
    j.nn, j.gpn = nn, gpn
    j.world = nn * gpn
    scheme = wchoice(rng, scheme_opts)
    if nn > 1 and scheme == "docker":
        scheme = "hpc"
    if j.cause == "network" and scheme == "aws":
        scheme = "hpc"
    make_hosts(j, scheme, nn)
    j.py = rng.choice(["3.10", "3.10", "3.11", "3.12"])
    j.tz_app = rng.choice([0, 0, 0, 8, -7, 2])
    j.tz_sys = rng.choice([j.tz_app, j.tz_app, 8, -5, -7, 1, 0])
    j.skew = [timedelta(0)] * nn
    if nn > 1 and rng.random() < 0.5:
        j.skew = [timedelta(seconds=rng.uniform(-3, 3)) for _ in range(nn)]
        if rng.random() < 0.3:
            k = rng.randrange(nn)
            j.skew[k] = timedelta(seconds=rng.choice([-1, 1]) * rng.uniform(40, 170))
    j.nccl_debug = wchoice(rng, [(None, 5), ("WARN", 2), ("INFO", 3)])
    # pids
    j.agent_pid = []
    j.pid = {}
    for k in range(nn):
        base = rng.choice([rng.randint(200, 900), rng.randint(3000, 3_900_000)])
        j.agent_pid.append(base)
        p = base + rng.randint(8, 30)
        for lr in range(gpn):
            j.pid[k * gpn + lr] = p
            p += rng.choice([1, 1, 1, 2, 3])
    j.tid = {r: j.pid[r] + rng.randint(40, 900) for r in range(j.world)}
    # timing
    day = datetime(2024, 3, 1) + timedelta(days=rng.randint(0, 560),
                                           seconds=rng.randint(0, 86399))
    j.t0 = day
    j.init_s = rng.uniform(70, 520)
    j.notes = []
    j.decoys = []
    j.files = {}
    j.rank_ev = []
    j.bar_mode = rng.choice(["term", "term", "raw"])
    j.zero3 = False
    j.fsdp = False
    j.coll_ops = ["ALLREDUCE"]
    j.bus = j.gpu["bus"][:gpn] if gpn <= 8 else j.gpu["bus"]
    j.user = rng.choice(["root", "ubuntu", "zhangwei", "jsmith", "mlops", "liyang",
                         "akumar", "ec2-user", "chen", "dev"])


def home(j):
    return "/root" if j.user == "root" else "/home/" + j.user


def loc(j, t, node, kind="app"):
    off = j.tz_app if kind == "app" else j.tz_sys
    sk = j.skew[node] if node is not None and node < len(j.skew) else timedelta(0)
    return t + timedelta(hours=off) + sk


def node_of(j, r):
    return r // j.gpn


def lrank(j, r):
    return r % j.gpn


def ranks_on(j, node):
    return list(range(node * j.gpn, (node + 1) * j.gpn))


def busid_smi(j, lr):
    return "00000000:%s:00.0" % j.bus[lr].upper()


def busid_xid(j, lr):
    return "PCI:0000:%s:00" % j.bus[lr]


def busid_nccl(j, lr):
    return "%s000" % j.bus[lr].lstrip("0")


def rank_prefix(j, r):
    """Prefix torch puts on Python traceback lines of distributed workers."""
    return "[rank%d]: " % r if j.tv >= 203 else ""


def cpp_prefix(j, r, level, t, node):
    """c10 logging prefix of ProcessGroupNCCL lines."""
    if j.tstyle == "t21":
        return "[%s " % level
    if j.tstyle in ("t22", "t23"):
        return "[rank%d]:[%s " % (r, level)
    lt = loc(j, t, node)
    return "[rank%d]:[%s " % (r, f_cglog(level, lt, j.rng.randint(0, 999)))


# ----------------------------------------------------------------- torch / NCCL text
PGL = {  # wd, detected, stacktrace, someops, takedown, terminated, checkTimeout
    "t21": (475, 0, 0, 489, 495, 916, 477),
    "t22": (523, 0, 0, 537, 543, 1182, 525),
    "t23": (563, 0, 0, 577, 583, 1537, 565),
    "t24": (607, 1664, 0, 621, 627, 1595, 609),
    "t25": (616, 1785, 0, 630, 636, 1601, 618),
    "t26": (632, 2271, 670, 684, 698, 1899, 635),
}


def pg_tag(j, r):
    if j.tstyle == "t24":
        return "[PG 0 Rank %d]" % r
    return "[PG ID 0 PG GUID 0(default_pg) Rank %d]" % r


def src_root(j):
    return "/pytorch/torch/csrc" if j.tv >= 206 else "../torch/csrc"


def hx(rng, n=12):
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


def cpp_frames(j, kind):
    rng = j.rng
    lib = j.sp + "/torch/lib"
    base = "7f" + hx(rng, 4)
    def addr():
        return "0x" + base + hx(rng, 6)
    fr = ["c10::Error::Error(c10::SourceLocation, std::string) + 0x96 (%s in %s/libc10.so)" % (addr(), lib)]
    if kind == "timeout":
        fr.append("c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >) + 0x1d2 (%s in %s/libtorch_cuda.so)" % (addr(), lib))
    elif kind == "nccl":
        fr.append("c10d::ProcessGroupNCCL::WorkNCCL::checkAndSetException() + 0x5e (%s in %s/libtorch_cuda.so)" % (addr(), lib))
    else:
        fr.append("c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, int, bool) + 0x3e5 (%s in %s/libc10_cuda.so)" % (addr(), lib))
        fr.append("c10d::ProcessGroupNCCL::WorkNCCL::finishedGPUExecutionInternal() const + 0x56 (%s in %s/libtorch_cuda.so)" % (addr(), lib))
        fr.append("c10d::ProcessGroupNCCL::WorkNCCL::isCompleted() + 0xa0 (%s in %s/libtorch_cuda.so)" % (addr(), lib))
    fr.append("c10d::ProcessGroupNCCL::watchdogHandler() + 0x233 (%s in %s/libtorch_cuda.so)" % (addr(), lib))
    fr.append("c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d (%s in %s/libtorch_cuda.so)" % (addr(), lib))
    fr.append("<unknown function> + 0xdc253 (0x7f%s in /lib/x86_64-linux-gnu/libstdc++.so.6)" % hx(rng, 10))
    fr.append("<unknown function> + 0x94ac3 (0x7f%s in /lib/x86_64-linux-gnu/libc.so.6)" % hx(rng, 10))
    fr.append("<unknown function> + 0x126850 (0x7f%s in /lib/x86_64-linux-gnu/libc.so.6)" % hx(rng, 10))
    return ["frame #%d: %s" % (i, f) for i, f in enumerate(fr)]


def work_str(j, seq, op, nin, nout):
    if j.tstyle == "t21":
        return "WorkNCCL(SeqNum=%d, OpType=%s, NumelIn=%d, NumelOut=%d, Timeout(ms)=%d)" % (
            seq, op, nin, nout, j.timeout_ms)
    return "WorkNCCL(SeqNum=%d, OpType=%s, NumelIn=%d, NumelOut=%d, Timeout(ms)=%d)" % (
        seq, op, nin, nout, j.timeout_ms)


def wd_block(j, r, t, seq, op, nin, nout, last_enq, last_comp):
    """Watchdog timeout printed by rank r at true time t."""
    node = node_of(j, r)
    ln = PGL[j.tstyle]
    ran = j.timeout_ms + j.rng.randint(3, 120)
    w = work_str(j, seq, op, nin, nout)
    msg = "[Rank %d] Watchdog caught collective operation timeout: %s ran for %d milliseconds before timing out." % (r, w, ran)
    P = lambda: cpp_prefix(j, r, "E", t, node)
    out = []
    if j.tstyle == "t21":
        out.append("[E ProcessGroupNCCL.cpp:%d] %s" % (ln[0], msg))
        out.append("[E ProcessGroupNCCL.cpp:%d] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data." % ln[3])
        out.append("[E ProcessGroupNCCL.cpp:%d] To avoid data inconsistency, we are taking the entire process down." % ln[4])
        out.append("[E ProcessGroupNCCL.cpp:%d] [Rank %d] NCCL watchdog thread terminated with exception: %s" % (ln[5], r, msg))
        out.append("terminate called after throwing an instance of 'std::runtime_error'")
        out.append("  what():  [Rank %d] NCCL watchdog thread terminated with exception: %s" % (r, msg))
        return out
    if j.tstyle in ("t22", "t23"):
        out.append("%sProcessGroupNCCL.cpp:%d] %s" % (P(), ln[0], msg))
        out.append("%sProcessGroupNCCL.cpp:%d] [Rank %d] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data." % (P(), ln[3], r))
        out.append("%sProcessGroupNCCL.cpp:%d] [Rank %d] To avoid data inconsistency, we are taking the entire process down." % (P(), ln[4], r))
        out.append("%sProcessGroupNCCL.cpp:%d] [Rank %d] NCCL watchdog thread terminated with exception: %s" % (P(), ln[5], r, msg))
        out.append("terminate called after throwing an instance of 'c10::DistBackendError'")
        out.append("  what():  [Rank %d] NCCL watchdog thread terminated with exception: %s" % (r, msg))
        out.append("Exception raised from checkTimeout at %s/distributed/c10d/ProcessGroupNCCL.cpp:%d (most recent call first):" % (src_root(j), ln[6]))
        out.extend(cpp_frames(j, "timeout"))
        return out
    out.append("%sProcessGroupNCCL.cpp:%d] %s" % (P(), ln[0], msg))
    if j.tstyle in ("t24", "t25"):
        out.append("%sProcessGroupNCCL.cpp:%d] %s Exception (either an error or timeout) detected by watchdog at work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (P(), ln[1], pg_tag(j, r), seq, last_enq, last_comp))
    else:
        out.append("%sProcessGroupNCCL.cpp:%d] %s  failure detected by watchdog at work sequence id: %d PG status: last enqueued work: %d, last completed work: %d" % (P(), ln[1], pg_tag(j, r), seq, last_enq, last_comp))
        out.append("%sProcessGroupNCCL.cpp:%d] Stack trace of the failed collective not found, potentially because FlightRecorder is disabled. You can enable it by setting TORCH_NCCL_TRACE_BUFFER_SIZE to a non-zero value." % (P(), ln[2]))
    out.append("%sProcessGroupNCCL.cpp:%d] [Rank %d] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data." % (P(), ln[3], r))
    out.append("%sProcessGroupNCCL.cpp:%d] [Rank %d] To avoid data inconsistency, we are taking the entire process down." % (P(), ln[4], r))
    full = "%s Process group watchdog thread terminated with exception: %s" % (pg_tag(j, r), msg)
    out.append("%sProcessGroupNCCL.cpp:%d] %s" % (P(), ln[5], full))
    exc = "Exception raised from checkTimeout at %s/distributed/c10d/ProcessGroupNCCL.cpp:%d (most recent call first):" % (src_root(j), ln[6])
    fr = cpp_frames(j, "timeout")
    out.append(exc)
    out.extend(fr)
    out.append("")
    out.append("terminate called after throwing an instance of 'c10::DistBackendError'")
    out.append("  what():  " + full)
    out.append(exc)
    out.extend(fr)
    out.append("")
    out.append("Exception raised from ncclCommWatchdog at %s/distributed/c10d/ProcessGroupNCCL.cpp:%d (most recent call first):" % (src_root(j), ln[5] + 6))
    out.extend(cpp_frames(j, "timeout")[:1] + cpp_frames(j, "timeout")[4:])
    out.append("")
    return out


def ib_completion(j, peer_ip, local_ip, status=12, recv=True):
    port = j.rng.randint(32768, 60999)
    opcode = j.rng.choice([0, 0, 1, 32616, 2])
    if j.nv < 21900:
        return "NET/IB : Got completion from peer %s<%d> with error %d, opcode %d, len %d, vendor err %d (%s)" % (
            peer_ip, port, status, opcode, 0, 129, "Recv" if recv else "Send")
    return "NET/IB : Got completion from peer %s<%d> with status=%d opcode=%d len=%d vendor err %d (%s) localGid ::ffff:%s remoteGids::ffff:%s" % (
        peer_ip, port, status, opcode, 0, 129, "Recv" if recv else "Send", local_ip, peer_ip)


def socket_closed(j, peer_ip):
    port = j.rng.randint(32768, 60999)
    if j.rng.random() < 0.5:
        return "socketProgressOpt: Call to recv from %s<%d> failed : Connection reset by peer" % (peer_ip, port)
    return "Net : Connection closed by remote peer %s<%d>" % (peer_ip, port)


def nccl_line(j, r, level, msg, fl=None, tid=True):
    node = node_of(j, r)
    h = j.hosts[node]
    pid = j.pid[r]
    th = j.tid[r] if tid else pid
    if level == "WARN" and fl and j.nv >= 21900:
        return "%s:%d:%d [%d] %s NCCL WARN %s" % (h, pid, th, lrank(j, r), fl, msg)
    return "%s:%d:%d [%d] NCCL %s %s" % (h, pid, th, lrank(j, r), level, msg)


def nccl_err_block(j, r, t, last_error, kind="remote"):
    """Watchdog thread dies on an async NCCL error (remote exit / network)."""
    node = node_of(j, r)
    ln = PGL[j.tstyle]
    if kind == "remote":
        head = "NCCL error: remote process exited or there was a network error, NCCL version %s" % j.nccl
        body = ["ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.",
                "Last error:", last_error]
    elif kind == "system":
        head = "NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version %s" % j.nccl
        body = ["ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. ",
                "Last error:", last_error]
    else:
        head = "NCCL error: unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version %s" % j.nccl
        body = ["ncclUnhandledCudaError: Call to CUDA function failed.", "Last error:", last_error]
    out = []
    if j.tstyle == "t21":
        out.append("[E ProcessGroupNCCL.cpp:%d] [Rank %d] NCCL watchdog thread terminated with exception: %s" % (ln[5], r, head))
        out.extend(body)
        out.append("terminate called after throwing an instance of 'std::runtime_error'")
        out.append("  what():  [Rank %d] NCCL watchdog thread terminated with exception: %s" % (r, head))
        out.extend(body)
        return out
    P = cpp_prefix(j, r, "E", t, node)
    if j.tstyle in ("t22", "t23"):
        tag = "[Rank %d] NCCL watchdog thread terminated with exception: " % r
    else:
        tag = pg_tag(j, r) + " Process group watchdog thread terminated with exception: "
    out.append("%sProcessGroupNCCL.cpp:%d] %s%s" % (P, ln[5], tag, head))
    out.extend(body)
    exc = "Exception raised from checkForNCCLErrorsInternal at %s/distributed/c10d/ProcessGroupNCCL.cpp:%d (most recent call first):" % (
        src_root(j), ln[5] + 432)
    fr = cpp_frames(j, "nccl")
    out.append(exc)
    out.extend(fr)
    out.append("")
    out.append("terminate called after throwing an instance of 'c10::DistBackendError'")
    out.append("  what():  " + tag + head)
    out.extend(body)
    out.append(exc)
    out.extend(fr)
    out.append("")
    return out


CUDA_TAIL = ["CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
             "For debugging consider passing CUDA_LAUNCH_BLOCKING=1",
             "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions."]


def cuda_wd_block(j, r, t, err):
    """CUDA error surfaced by the NCCL watchdog (process aborts, SIGABRT)."""
    node = node_of(j, r)
    ln = PGL[j.tstyle]
    out = []
    if j.tstyle == "t21":
        out.append("terminate called after throwing an instance of 'c10::Error'")
        out.append("  what():  CUDA error: %s" % err)
        out.extend(CUDA_TAIL)
        out.append("")
        out.append("Exception raised from c10_cuda_check_implementation at ../c10/cuda/CUDAException.cpp:44 (most recent call first):")
        out.extend(cpp_frames(j, "cuda"))
        return out
    P = cpp_prefix(j, r, "E", t, node)
    if j.tstyle in ("t22", "t23"):
        tag = "[Rank %d] NCCL watchdog thread terminated with exception: " % r
    else:
        tag = pg_tag(j, r) + " Process group watchdog thread terminated with exception: "
    out.append("%sProcessGroupNCCL.cpp:%d] %sCUDA error: %s" % (P, ln[5], tag, err))
    out.extend(CUDA_TAIL)
    out.append("")
    exc = "Exception raised from c10_cuda_check_implementation at %s/c10/cuda/CUDAException.cpp:43 (most recent call first):" % (
        "/pytorch" if j.tv >= 206 else "..")
    fr = cpp_frames(j, "cuda")
    out.append(exc)
    out.extend(fr)
    out.append("")
    out.append("terminate called after throwing an instance of 'c10::DistBackendError'")
    out.append("  what():  %sCUDA error: %s" % (tag, err))
    out.extend(CUDA_TAIL)
    out.append("")
    out.append(exc)
    out.extend(fr)
    out.append("")
    return out


def nccl_init_lines(j, r):
    """NCCL_DEBUG=INFO communicator bring-up for one rank."""
    rng = j.rng
    node = node_of(j, r)
    lr = lrank(j, r)
    ip = j.ips[node]
    ifn = j.oob_if
    L = []
    L.append(nccl_line(j, r, "INFO", "Bootstrap : Using %s:%s<0>" % (ifn, ip), tid=False))
    if j.nv >= 21900:
        L.append(nccl_line(j, r, "INFO", "NET/Plugin: Could not find: libnccl-net.so. Using internal network plugin.", tid=False))
    else:
        L.append(nccl_line(j, r, "INFO", "NET/Plugin : dlerror=libnccl-net.so: cannot open shared object file: No such file or directory No plugin found (libnccl-net.so), using internal implementation", tid=False))
    L.append(nccl_line(j, r, "INFO", "cudaDriverVersion %s" % (j.cuda.replace(".", "") + "0"), tid=False))
    if r == 0:
        L.append("NCCL version %s+cuda%s" % (j.nccl, j.cuda))
    if j.has_ib:
        devs = " ".join("[%d]%s:1/%s" % (k, j.hca[k], j.ib_ll) for k in range(min(8, j.gpn)))
        L.append(nccl_line(j, r, "INFO", "NET/IB : Using %s ; OOB %s:%s<0>" % (devs, ifn, ip)))
        L.append(nccl_line(j, r, "INFO", "Using network IB"))
    else:
        L.append(nccl_line(j, r, "INFO", "NET/IB : No device found."))
        L.append(nccl_line(j, r, "INFO", "NET/Socket : Using [0]%s:%s<0>" % (ifn, ip)))
        L.append(nccl_line(j, r, "INFO", "Using network Socket"))
    if j.nv >= 21900:
        L.append(nccl_line(j, r, "INFO", "ncclCommInitRank comm 0x%s rank %d nranks %d cudaDev %d nvmlDev %d busId %s commId 0x%s - Init START" % (
            j.comm_addr[r], r, j.world, lr, lr, busid_nccl(j, lr), j.comm_id)))
    else:
        L.append(nccl_line(j, r, "INFO", "comm 0x%s rank %d nranks %d cudaDev %d nvmlDev %d busId %s commId 0x%s - Init START" % (
            j.comm_addr[r], r, j.world, lr, lr, busid_nccl(j, lr), j.comm_id)))
    L.append(nccl_line(j, r, "INFO", "Setting affinity for GPU %d to %s" % (lr, rng.choice(["ffff,ffffffff", "ffffffff,00000000,ffffffff", "ff,ffff0000,00000000"]))))
    if j.nv >= 21900:
        L.append(nccl_line(j, r, "INFO", "comm 0x%s rank %d nRanks %d nNodes %d localRanks %d localRank %d MNNVL 0" % (
            j.comm_addr[r], r, j.world, j.nn, j.gpn, lr)))
    nxt = (r + 1) % j.world
    if node_of(j, nxt) == node:
        via = "via P2P/CUMEM/read" if j.nv >= 21800 and j.gpu["sxm"] else "via P2P/IPC"
        if not j.gpu["sxm"]:
            via = "via SHM/direct/direct"
        L.append(nccl_line(j, r, "INFO", "Channel 00/0 : %d[%d] -> %d[%d] %s" % (r, lr, nxt, lrank(j, nxt), via)))
        L.append(nccl_line(j, r, "INFO", "Channel 01/0 : %d[%d] -> %d[%d] %s" % (r, lr, nxt, lrank(j, nxt), via)))
    else:
        tr = ("NET/IB/%d/GDRDMA" % lr) if j.has_ib else "NET/Socket/0"
        L.append(nccl_line(j, r, "INFO", "Channel 00/0 : %d[%d] -> %d[%d] [send] via %s" % (r, lr, nxt, lrank(j, nxt), tr)))
        L.append(nccl_line(j, r, "INFO", "Channel 01/0 : %d[%d] -> %d[%d] [send] via %s" % (r, lr, nxt, lrank(j, nxt), tr)))
    L.append(nccl_line(j, r, "INFO", "Connected all rings"))
    L.append(nccl_line(j, r, "INFO", "Connected all trees"))
    L.append(nccl_line(j, r, "INFO", "threadThresholds 8/8/64 | %d/8/64 | 512 | 512" % (j.world * 8)))
    L.append(nccl_line(j, r, "INFO", "%d coll channels, %d collnet channels, 0 nvls channels, 32 p2p channels, 32 p2p channels per peer" % (
        rng.choice([16, 24, 32]), 0)))
    if j.nv >= 21900:
        L.append(nccl_line(j, r, "INFO", "ncclCommInitRank comm 0x%s rank %d nranks %d cudaDev %d nvmlDev %d busId %s commId 0x%s - Init COMPLETE" % (
            j.comm_addr[r], r, j.world, lr, lr, busid_nccl(j, lr), j.comm_id)))
    else:
        L.append(nccl_line(j, r, "INFO", "comm 0x%s rank %d nranks %d cudaDev %d nvmlDev %d busId %s commId 0x%s - Init COMPLETE" % (
            j.comm_addr[r], r, j.world, lr, lr, busid_nccl(j, lr), j.comm_id)))
    if j.nv >= 22300:
        L.append(nccl_line(j, r, "INFO", "Init timings - ncclCommInitRank: rank %d nranks %d total %.2f (kernels %.2f, alloc %.2f, bootstrap %.2f, allgathers %.2f, topo %.2f, graphs %.2f, connections %.2f, rest %.2f)" % (
            r, j.world, rng.uniform(0.8, 3), rng.uniform(0.1, 0.3), rng.uniform(0.01, 0.1), rng.uniform(0.2, 1.5), rng.uniform(0, 0.05), rng.uniform(0.05, 0.3), rng.uniform(0, 0.05), rng.uniform(0.05, 0.5), rng.uniform(0, 0.05))))
    return L


def net_setup(j):
    rng = j.rng
    j.has_ib = j.nn > 1 and j.scheme in ("hpc", "k8s") and rng.random() < 0.9
    if j.cause == "network" and j.scheme in ("hpc", "k8s"):
        j.has_ib = True
    j.ib_ll = rng.choice(["IB", "IB", "RoCE"])
    j.hca = ["mlx5_%d" % k for k in range(8)]
    if j.ib_ll == "RoCE" and rng.random() < 0.4:
        j.hca = ["mlx5_bond_%d" % k for k in range(8)]
    j.oob_if = rng.choice(["eth0", "ens81f0", "bond0", "enp86s0f0", "ib0"]) if j.scheme == "hpc" else (
        "eth0" if j.scheme != "lab" else rng.choice(["enp5s0", "eno1", "enp69s0"]))
    j.comm_id = hx(rng, 16).lstrip("0") or "1"
    j.comm_addr = {r: "55" + hx(rng, 10) for r in range(j.world)}


# ----------------------------------------------------------------- kernel / system
def xid(j, lr, code, pid, pname, tail):
    return "NVRM: Xid (%s): %d, pid=%s, name=%s, %s" % (busid_xid(j, lr), code, pid, pname, tail)


def proc_name(j):
    return j.pname


def kern_host(j, node):
    if j.scheme == "k8s":
        return j.knodes[node]
    return j.hosts[node]


KNOISE = [
    "IPv6: ADDRCONF(NETDEV_CHANGE): veth{h}: link becomes ready",
    "docker0: port 2(veth{h}) entered forwarding state",
    "audit: type=1400 audit({a}:{b}): apparmor=\"STATUS\" operation=\"profile_replace\" info=\"same as current profile, skipping\" profile=\"unconfined\" name=\"docker-default\" pid={p} comm=\"apparmor_parser\"",
    "nvidia-peermem: loading out-of-tree module taints kernel.",
    "EXT4-fs (nvme0n1p2): re-mounted. Opts: errors=remount-ro. Quota mode: none.",
    "NFSD: Using nfsdcld client tracking operations.",
    "perf: interrupt took too long (2517 > 2500), lowering kernel.perf_event_max_sample_rate to 79250",
    "nvidia-nvswitch0: open (major=509)",
    "loop3: detected capacity change from 0 to 8",
    "eth0: renamed from veth{h}",
]


def knoise(j, t_from, t_to, n):
    rng = j.rng
    out = []
    for _ in range(n):
        dt = rng.uniform(0, max(1.0, (t_to - t_from).total_seconds()))
        s = rng.choice(KNOISE).format(h=hx(rng, 7), a=rng.randint(1700000000, 1760000000),
                                      b=rng.randint(100, 999), p=rng.randint(1000, 99999))
        out.append((t_from + timedelta(seconds=dt), s))
    return out


def render_kernel(j, node, events, fmt=None):
    rng = j.rng
    fmt = fmt or rng.choice(["T", "T", "journal", "raw"])
    host = kern_host(j, node)
    boot = j.t0 - timedelta(days=rng.randint(2, 60), seconds=rng.randint(0, 86000))
    lines = []
    for t, msg in sorted(events, key=lambda x: x[0]):
        for part in msg.split("\n"):
            if fmt == "T":
                lines.append("%s %s" % (f_dmesg_T(loc(j, t, node, "sys")), part))
            elif fmt == "journal":
                lines.append(f_journal(loc(j, t, node, "sys"), host) + part)
            else:
                up = (t - boot).total_seconds()
                lines.append("[%12.6f] %s" % (up, part))
    if fmt == "journal":
        hdr = "-- Logs begin at %s %s UTC. --" % (DOW[boot.weekday()], boot.strftime("%Y-%m-%d %H:%M:%S"))
        if rng.random() < 0.5:
            lines.insert(0, hdr)
    return "\n".join(lines) + "\n", fmt


def kernel_cmd(fmt, host):
    if fmt == "T":
        return "$ sudo dmesg -T | tail -n 200"
    if fmt == "journal":
        return "$ journalctl -k --since yesterday --no-pager | tail -200   # on %s" % host
    return "$ dmesg | tail -n 150"


def smi_table(j, node, t, states, procs, err_line=None):
    """nvidia-smi default table. states[lr] = dict(temp, pw, mem, util, ecc, perf)"""
    rng = j.rng
    w2 = 24 if j.driver >= "550" else 22
    inner = 41 + 1 + w2 + 1 + 22
    lt = loc(j, t, node, "sys")
    out = []
    if err_line:
        out.append(err_line)
        if rng.random() < 0.6:
            return "\n".join(out) + "\n"
    out.append("%s %s %2d %s %d       " % (DOW[lt.weekday()], MON[lt.month - 1], lt.day, lt.strftime("%H:%M:%S"), lt.year))
    out.append("+" + "-" * inner + "+")
    hdr = " NVIDIA-SMI %s             Driver Version: %s     CUDA Version: %s" % (j.driver, j.driver, DRIVER_CUDA[j.driver])
    out.append("|" + hdr.ljust(inner) + "|")
    out.append("|" + "-" * 41 + "+" + "-" * w2 + "+" + "-" * 22 + "|")
    out.append("| GPU  Name                 Persistence-M |" + " Bus-Id          Disp.A ".rjust(w2)[-w2:] + "| Volatile Uncorr. ECC |")
    out.append("| Fan  Temp   Perf          Pwr:Usage/Cap |" + "Memory-Usage ".rjust(w2) + "| GPU-Util  Compute M. |")
    out.append("|                                         |" + " " * w2 + "|               MIG M. |")
    out.append("|" + "=" * 41 + "+" + "=" * w2 + "+" + "=" * 22 + "|")
    for lr in range(j.gpn):
        s = states[lr]
        if s is None:
            continue
        name = j.gpu["name"]
        left = ("%4d  %s" % (lr, name))
        c1 = left + " " * max(1, 41 - len(left) - 4) + "On  "
        c2 = (" %s Off " % busid_smi(j, lr)).rjust(w2)
        c3 = ("%s " % s.get("ecc", "0")).rjust(22)
        out.append("|" + c1[:41].ljust(41) + "|" + c2 + "|" + c3 + "|")
        if s.get("err"):
            c1 = "ERR!  ERR!   ERR!          ERR! /  ERR! "
            c2 = "ERR! /  ERR! ".rjust(w2)
            c3 = "ERR!      Default ".rjust(22)
        else:
            c1 = (" N/A   %2dC    %s" % (s["temp"], s.get("perf", "P0")))
            pw = "%dW / %4dW " % (s["pw"], j.gpu["pw"])
            c1 = c1 + " " * (41 - len(c1) - len(pw)) + pw
            c2 = ("%dMiB / %6dMiB " % (s["mem"], j.gpu["mib"])).rjust(w2)
            c3 = ("%6d%%      Default " % s["util"]).rjust(22)
        out.append("|" + c1 + "|" + c2 + "|" + c3 + "|")
        out.append("|" + " " * 41 + "|" + " " * w2 + "|" + "Disabled ".rjust(22) + "|")
        out.append("+" + "-" * 41 + "+" + "-" * w2 + "+" + "-" * 22 + "+")
    out.append("")
    out.append("+" + "-" * inner + "+")
    out.append("|" + " Processes:".ljust(inner) + "|")
    out.append("|" + "  GPU   GI   CI        PID   Type   Process name".ljust(inner - 12) + "GPU Memory |")
    out.append("|" + "        ID   ID".ljust(inner - 12) + "Usage      |")
    out.append("|" + "=" * inner + "|")
    if not procs:
        out.append("|" + "  No running processes found".ljust(inner) + "|")
    for lr, pid, name, mem in procs:
        row = "  %4d   N/A  N/A  %8d      C   %s" % (lr, pid, name)
        memtxt = "%dMiB |" % mem
        out.append("|" + row.ljust(inner - len(memtxt) + 1) + memtxt)
    out.append("+" + "-" * inner + "+")
    return "\n".join(out) + "\n"


def smi_states(j, node, busy=True, override=None):
    rng = j.rng
    st = []
    for lr in range(j.gpn):
        if busy:
            st.append(dict(temp=rng.randint(48, 71), pw=int(j.gpu["pw"] * rng.uniform(0.55, 0.95)),
                           mem=int(j.gpu["mib"] * rng.uniform(0.72, 0.96)), util=100, ecc="0"))
        else:
            st.append(dict(temp=rng.randint(28, 40), pw=int(j.gpu["pw"] * rng.uniform(0.1, 0.18)),
                           mem=rng.choice([0, 1, 4]), util=0, ecc="0"))
    for lr, d in (override or {}).items():
        if d is None:
            st[lr] = None
        else:
            st[lr] = dict(st[lr], **d)
    return st


def pyspy_dump(j, r, frames, state="idle", cmd=None):
    """py-spy dump of one rank. frames: list of (func, file, line) innermost first."""
    out = ["Process %d: %s" % (j.pid[r], cmd or j.worker_cmd),
           "Python v%s (%s)" % ({"3.10": "3.10.14", "3.11": "3.11.9", "3.12": "3.12.7"}[j.py], j.pybin),
           "",
           'Thread %d (%s): "MainThread"' % (j.pid[r], state)]
    for fn, fl, ln in frames:
        out.append("    %s (%s:%d)" % (fn, fl, ln))
    th = j.pid[r] + j.rng.randint(50, 400)
    out.append('Thread %d (idle): "Thread-%d (_pin_memory_loop)"' % (th, j.rng.randint(2, 5)))
    out.append("    wait (threading.py:%d)" % (324 if j.py == "3.10" else 331))
    out.append("    get (queue.py:180)")
    out.append("    _pin_memory_loop (torch/utils/data/_utils/pin_memory.py:%d)" % 55)
    out.append("    run (threading.py:953)")
    out.append("    _bootstrap_inner (threading.py:1016)")
    out.append("    _bootstrap (threading.py:973)")
    return "\n".join(out) + "\n"


PYSPY_COLL = [("wait", "torch/distributed/distributed_c10d.py", 2501),
              ("all_reduce", "torch/distributed/distributed_c10d.py", 2501)]


# ----------------------------------------------------------------- python frames
def modcall(j):
    ln = {201: (1518, 1527), 202: (1511, 1520), 203: (1532, 1541), 204: (1553, 1562),
          205: (1736, 1747), 206: (1739, 1750), 207: (1751, 1762), 208: (1773, 1784)}[j.tv]
    m = j.sp + "/torch/nn/modules/module.py"
    return [(m, ln[0], "_wrapped_call_impl", "return self._call_impl(*args, **kwargs)"),
            (m, ln[1], "_call_impl", "return forward_call(*args, **kwargs)")]


def torch_bwd(j):
    sp = j.sp
    if j.tv <= 203:
        return [(sp + "/torch/_tensor.py", 522, "backward", "torch.autograd.backward("),
                (sp + "/torch/autograd/__init__.py", 266, "backward", "Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass")]
    return [(sp + "/torch/_tensor.py", 581 if j.tv < 207 else 648, "backward", "torch.autograd.backward("),
            (sp + "/torch/autograd/__init__.py", 347 if j.tv < 207 else 353, "backward", "_engine_run_backward("),
            (sp + "/torch/autograd/graph.py", 825 if j.tv < 207 else 824, "_engine_run_backward",
             "return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass")]


def torch_dl(j, end):
    d = j.sp + "/torch/utils/data/dataloader.py"
    F = [(d, 701 if j.tv >= 204 else 631, "__next__", "data = self._next_data()"),
         (d, 1448 if j.tv >= 204 else 1329, "_next_data", "idx, data = self._get_data()")]
    if end == "timeout":
        F.append((d, 1399 if j.tv >= 204 else 1285, "_get_data", "raise RuntimeError(f'DataLoader timed out after {self._timeout} seconds')"))
    else:
        F.append((d, 1412 if j.tv >= 204 else 1295, "_get_data", "success, data = self._try_get_data()"))
        F.append((d, 1256 if j.tv >= 204 else 1146, "_try_get_data", "raise RuntimeError(f'DataLoader worker (pid(s) {pids_str}) exited unexpectedly') from e"))
    return F


def dl_inner_chain(j, wpid, sig):
    d = j.sp + "/torch/utils/data/dataloader.py"
    pyl = {"3.10": "/usr/lib/python3.10", "3.11": "/usr/lib/python3.11", "3.12": "/usr/lib/python3.12"}[j.py]
    if "conda" in j.sp or "envs" in j.sp:
        pyl = j.sp.rsplit("/site-packages", 1)[0]
    F = [(d, 1243 if j.tv >= 204 else 1133, "_try_get_data", "data = self._data_queue.get(timeout=timeout)"),
         (pyl + "/queue.py", 180, "get", "self.not_empty.wait(remaining)"),
         (pyl + "/threading.py", 324 if j.py == "3.10" else 359, "wait", "gotit = waiter.acquire(True, timeout)"),
         (j.sp + "/torch/utils/data/_utils/signal_handling.py", 73 if j.tv >= 204 else 66, "handler", "_error_if_any_worker_fails()")]
    if sig == "Bus error":
        ex = "RuntimeError: DataLoader worker (pid %d) is killed by signal: Bus error. It is possible that dataloader's workers are out of shared memory. Please try to raise your shared memory limit." % wpid
    else:
        ex = "RuntimeError: DataLoader worker (pid %d) is killed by signal: %s. " % (wpid, sig)
    return F, [ex]


def model_leaf(j, leaf):
    if getattr(j, "model_leaf_override", None):
        return j.model_leaf_override(leaf)
    sp = j.sp
    m = j.model_file
    mc = modcall(j)
    if leaf == "logits":
        return [(m, j.mline + 40, "forward", "logits = self.lm_head(hidden_states[:, slice_indices, :])")] + mc + [
            (sp + "/torch/nn/modules/linear.py", 125, "forward", "return F.linear(input, self.weight, self.bias)")]
    if leaf == "loss":
        return [(m, j.mline + 47, "forward", "loss = self.loss_function(logits=logits, labels=labels, vocab_size=self.config.vocab_size, **kwargs)"),
                (sp + "/transformers/loss/loss_utils.py", 63, "ForCausalLMLoss", "logits = logits.float()")]
    pre = [(m, j.mline, "forward", "outputs: BaseModelOutputWithPast = self.model(")] + mc + [
        (m, j.mline - 330, "forward", "hidden_states = decoder_layer(")] + mc
    if leaf == "mlp":
        return pre + [(m, j.mline - 545, "forward", "hidden_states = self.mlp(hidden_states)")] + mc + [
            (m, j.mline - 760, "forward", "down_proj = self.down_proj(self.act_fn(self.gate_proj(x)) * self.up_proj(x))")]
    if leaf == "attn":
        return pre + [(m, j.mline - 560, "forward", "hidden_states, _ = self.self_attn(")] + mc + [
            (m, j.mline - 660, "forward", "attn_output, attn_weights = attention_interface("),
            (sp + "/transformers/integrations/flash_attention.py", 64, "flash_attention_forward", "attn_output = _flash_attention_forward("),
            (sp + "/transformers/modeling_flash_attention_utils.py", 375, "_flash_attention_forward", "attn_output_unpad = flash_attn_varlen_func("),
            (sp + "/flash_attn/flash_attn_interface.py", 1448, "flash_attn_varlen_func", "return FlashAttnVarlenFunc.apply("),
            (sp + "/torch/autograd/function.py", 575, "apply", "return super().apply(*args, **kwargs)  # type: ignore[misc]"),
            (sp + "/flash_attn/flash_attn_interface.py", 930, "forward", "out_padded, softmax_lse, S_dmask, rng_state = _wrapped_flash_attn_varlen_forward("),
            (sp + "/flash_attn/flash_attn_interface.py", 170, "_flash_attn_varlen_forward", "out, softmax_lse, S_dmask, rng_state = flash_attn_gpu.varlen_fwd(")]
    if leaf == "gather":
        z = sp + "/deepspeed/runtime/zero/"
        return pre + [
            (sp + "/torch/nn/modules/module.py", modcall(j)[1][1] + 56, "_call_impl", "args_result = hook(self, args)"),
            (sp + "/torch/utils/_contextlib.py", 116, "decorate_context", "return func(*args, **kwargs)"),
            (z + "parameter_offload.py", 472, "pre_sub_module_forward_function", "param_coordinator.fetch_sub_module(sub_module, forward=True)"),
            (sp + "/deepspeed/utils/nvtx.py", 18, "wrapped_fn", "ret_val = func(*args, **kwargs)"),
            (z + "partitioned_param_coordinator.py", 317, "fetch_sub_module", "self.__all_gather_params(params_to_fetch, forward)"),
            (z + "partitioned_param_coordinator.py", 460, "__all_gather_params", "self.__all_gather_params_(nonquantized_params, forward, quantize=self.zero_quantized_weights)"),
            (z + "partitioned_param_coordinator.py", 488, "__all_gather_params_", "handle = param_group[0].all_gather_coalesced(param_group, quantize=quantize)"),
            (z + "partition_parameters.py", 1283, "all_gather_coalesced", "handles = _dist_allgather_fn("),
            (z + "partition_parameters.py", 95, "_dist_allgather_fn", "return instrument_w_nvtx(dist.allgather_fn)(output_tensor, input_tensor, group=group, async_op=True)"),
            (sp + "/deepspeed/comm/comm.py", 320, "allgather_fn", "return all_gather_into_tensor(output_tensor, input_tensor, group=group, async_op=async_op, debug=debug)"),
            (sp + "/deepspeed/comm/comm.py", 117, "log_wrapper", "return func(*args, **kwargs)"),
            (sp + "/deepspeed/comm/comm.py", 305, "all_gather_into_tensor", "return cdb.all_gather_into_tensor(output_tensor=output_tensor, input_tensor=tensor, group=group, async_op=async_op)"),
            (sp + "/deepspeed/comm/torch.py", 219, "all_gather_into_tensor", "return self.all_gather_function(output_tensor=output_tensor,"),
            (sp + "/torch/distributed/c10d_logger.py", 81, "wrapper", "return func(*args, **kwargs)"),
            (sp + "/torch/distributed/distributed_c10d.py", 3784, "all_gather_into_tensor", "work = group._allgather_base(output_tensor, input_tensor, opts)")]
    if leaf == "allreduce":
        return [(sp + "/torch/distributed/c10d_logger.py", 81, "wrapper", "return func(*args, **kwargs)"),
                (sp + "/torch/distributed/distributed_c10d.py", 2501, "all_reduce", "work = group.allreduce([tensor], opts)")]
    return pre


def fmt_tb(j, r, frames, exc_lines, chain=None, prefix=True):
    p = rank_prefix(j, r) if prefix else ""
    out = []
    if chain:
        cf, ce = chain
        out.append("Traceback (most recent call last):")
        for path, line, func, code in cf:
            out.append('  File "%s", line %d, in %s' % (path, line, func))
            if code:
                out.append("    " + code)
        out.extend(ce)
        out.append("")
        out.append("The above exception was the direct cause of the following exception:")
        out.append("")
    out.append("Traceback (most recent call last):")
    for path, line, func, code in frames:
        out.append('  File "%s", line %d, in %s' % (path, line, func))
        if code:
            out.append("    " + code)
    out.extend(exc_lines)
    return [p + x for x in out]


def oom_msg(j, lr, alloc_gib, free_gib):
    cap = j.gpu["cap"]
    used = cap - free_gib
    by_pt = used - j.rng.uniform(0.6, 2.2)
    reserved_un = j.rng.uniform(0.1, 3.5)
    alloc = by_pt - reserved_un
    if j.tv <= 201:
        return "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate %.2f GiB. GPU %d has a total capacty of %.2f GiB of which %.2f GiB is free. Process %d has %.2f GiB memory in use. Of the allocated memory %.2f GiB is allocated by PyTorch, and %.2f GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF" % (
            alloc_gib, lr, cap, free_gib, j.rng.randint(1000, 99999), used, alloc, reserved_un)
    cls = "torch.cuda.OutOfMemoryError" if j.tv <= 203 else "torch.OutOfMemoryError"
    if j.tv <= 203 and j.rng.random() < 0.5:
        who = "Process %d has %.2f GiB memory in use." % (j.rng.randint(1000, 99999), used)
    else:
        who = "Including non-PyTorch memory, this process has %.2f GiB memory in use." % used
    return "%s: CUDA out of memory. Tried to allocate %.2f GiB. GPU %d has a total capacity of %.2f GiB of which %.2f GiB is free. %s Of the allocated memory %.2f GiB is allocated by PyTorch, and %.2f GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)" % (
        cls, alloc_gib, lr, cap, free_gib, who, alloc, reserved_un)


def dist_backend_exc(j, what, ncclerr, last):
    line = {201: 1331, 202: 1691, 203: 1970, 204: 2006, 205: 3356, 206: 3356, 207: 3384, 208: 3690}[j.tv]
    fn = "ProcessGroupNCCL.cpp"
    cls = "torch.distributed.DistBackendError" if j.tv >= 202 else "torch.distributed.DistBackendError"
    return ["%s: NCCL error in: %s/distributed/c10d/%s:%d, %s, NCCL version %s" % (cls, src_root(j), fn, line, what, j.nccl),
            ncclerr, "Last error:", last]


# ----------------------------------------------------------------- failure spec
def newF(j):
    return dict(kind="crash", culprit=None, cnode=None, initial=[], stall=None,
                cascade=None, kernel={}, extra={}, notes=[], drain=False, ev=[],
                pre={}, t_f=None, fs=None, phase="train", scope=None,
                variant="", wd_override={}, sched=None, slow=None)


def pick_culprit(j, bias0=0.12, node=None):
    rng = j.rng
    if node is not None:
        return node * j.gpn + rng.randrange(j.gpn)
    if rng.random() < bias0:
        return 0
    return rng.randrange(j.world)


def build_timeline(j, slow=None):
    rng = j.rng
    t = j.t0 + timedelta(seconds=j.init_s)
    j.t_train0 = t
    st = {j.start_step: t}
    for k in range(j.start_step + 1, j.T + 1):
        d = j.dt * rng.uniform(0.94, 1.07)
        if slow and k >= slow["from"]:
            d *= slow["factor"] * rng.uniform(0.98, 1.03)
        t += timedelta(seconds=d)
        st[k] = t
        if j.save_every and k % j.save_every == 0 and k < j.T:
            t += timedelta(seconds=j.save_s)
    j.step_t = st


def pick_fs(j, phase="train"):
    rng = j.rng
    lo = j.start_step + 3
    hi = j.T - 2
    if phase == "save" and j.save_every:
        cands = [k for k in range(lo, hi) if k % j.save_every == 0]
        if cands:
            return rng.choice(cands)
    return rng.randint(lo, max(lo + 1, hi))


def t_in_step(j, fs, frac=None):
    frac = j.rng.uniform(0.1, 0.9) if frac is None else frac
    a = j.step_t[fs - 1]
    b = j.step_t[fs]
    return a + (b - a) * frac


def t_in_save(j, fs):
    return j.step_t[fs] + timedelta(seconds=j.rng.uniform(2, max(3, j.save_s * 0.8)))


def seq_at(j, fs, phase="train"):
    base = j.seq0 + fs * j.cps
    return base + (j.rng.randint(3, j.cps - 2) if phase == "train" else j.cps - 1)


def coll_at(j, phase="train"):
    rng = j.rng
    if phase == "save":
        op = rng.choice(["ALLREDUCE", "_ALLGATHER_BASE"] if (j.zero3 or j.fsdp) else ["ALLREDUCE", "BROADCAST"])
    else:
        op = rng.choice(j.coll_ops)
    return op, numel(j, op)


def numel(j, op):
    rng = j.rng
    if op == "_ALLGATHER_BASE":
        n = rng.choice([1048576, 1572864, 3145728, 4194304, 11010048, 25952256, 58720256]) // max(1, j.world // 8)
        return n, n * j.world
    if op == "_REDUCE_SCATTER_BASE":
        n = rng.choice([544997376, 233046016, 131203072, 71303168, 30408704])
        return n, n // j.world
    if op == "BROADCAST":
        return 1, 1
    if rng.random() < 0.3:
        return 1, 1
    n = rng.choice([13107200, 26214400, 466119168, 9801523, 160672064, 25001984])
    return n, n


def add_k(F, node, t, msg):
    F["kernel"].setdefault(node, []).append((t, msg))


# ----------------------------------------------------------------- causes
def cause_gpu_hardware(j):
    rng = j.rng
    F = newF(j)
    c = pick_culprit(j)
    cn, lr = node_of(j, c), lrank(j, c)
    F["culprit"], F["cnode"], F["drain"] = c, cn, True
    phase = rng.choice(["train", "train", "save"])
    fs = pick_fs(j, phase)
    tf = t_in_save(j, fs) if phase == "save" else t_in_step(j, fs)
    F["fs"], F["t_f"], F["phase"] = fs, tf, phase
    v = wchoice(rng, [("xid79_crash", 4), ("xid79_stall", 3), ("gsp119", 2)])
    F["variant"] = v
    pn, pid = j.pname, j.pid[c]
    uuid = "GPU-%s-%s-%s-%s-%s" % (hx(rng, 8), hx(rng, 4), hx(rng, 4), hx(rng, 4), hx(rng, 12))
    if v == "gsp119":
        for k in range(rng.randint(2, 4)):
            add_k(F, cn, tf + timedelta(seconds=k * 6.1), xid(j, lr, 119, pid, pn,
                  "Timeout after 6s of waiting for RPC response from GPU%d GSP! Expected function %d (%s) (0x%s 0x%x)." % (
                      lr, rng.choice([76, 10, 103]), rng.choice(["GSP_RM_CONTROL", "FREE", "UNLOADING_GUEST_DRIVER"]), hx(rng, 8), rng.choice([4, 0x24, 0x8]))))
        if rng.random() < 0.5:
            add_k(F, cn, tf + timedelta(seconds=40), xid(j, lr, 154, "'<unknown>'", "<unknown>",
                  "GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)"))
        F["kind"] = "stall"
        F["stall"] = (c, tf)
        F["notes"].append("Xid 119 GSP RPC timeouts on %s GPU%d (bus %s); rank %d wedged" % (j.hosts[cn], lr, j.bus[lr], c))
    else:
        if rng.random() < 0.5:
            add_k(F, cn, tf - timedelta(seconds=0.4), "pcieport 0000:%s:01.0: AER: Uncorrected (Fatal) error received: 0000:%s:01.0" % (hx(rng, 2), j.bus[lr]))
        add_k(F, cn, tf, xid(j, lr, 79, pid, pn, "GPU has fallen off the bus."))
        add_k(F, cn, tf + timedelta(milliseconds=3), "NVRM: GPU 0000:%s:00.0: GPU has fallen off the bus." % j.bus[lr])
        add_k(F, cn, tf + timedelta(milliseconds=5), "NVRM: GPU at PCI:0000:%s:00: %s" % (j.bus[lr], uuid))
        add_k(F, cn, tf + timedelta(milliseconds=6), "NVRM: GPU Board Serial Number: %d" % rng.randint(1320000000000, 1659999999999))
        add_k(F, cn, tf + timedelta(milliseconds=20), "NVRM: A GPU crash dump has been created. If possible, please run\nNVRM: nvidia-bug-report.sh as root to collect this data before\nNVRM: the NVIDIA kernel module is unloaded.")
        if v == "xid79_crash":
            err = rng.choice(["unspecified launch failure", "unknown error"])
            if rng.random() < 0.55:
                lines = cuda_wd_block(j, c, tf + timedelta(seconds=0.3), err)
                code = -6
            else:
                mid = rng.choice(["fwd", "bwd"])
                fr = j.frames(mid) + (model_leaf(j, rng.choice(["mlp", "attn"])) if mid == "fwd" else [])
                lines = fmt_tb(j, c, fr, ["RuntimeError: CUDA error: %s" % err] + CUDA_TAIL, prefix=True)
                code = 1
            F["initial"].append((c, tf + timedelta(seconds=rng.uniform(0.2, 2)), "crash", code, lines))
            F["ev"].append("console")
        else:
            F["kind"] = "stall"
            F["stall"] = (c, tf)
        F["notes"].append("Xid 79 (fallen off the bus) on %s GPU%d bus %s -> rank %d" % (j.hosts[cn], lr, j.bus[lr], c))
    F["ev"].append("kernel_map")
    st = smi_states(j, cn, busy=False, override={lr: {"err": True}})
    F["extra"]["nvidia-smi_%s.txt" % j.hosts[cn]] = ("$ nvidia-smi\n" + smi_table(
        j, cn, tf + timedelta(minutes=rng.randint(12, 90)), st, [],
        err_line="Unable to determine the device handle for GPU%s: %s" % (
            busid_smi(j, lr), rng.choice(["Unknown Error", "GPU is lost.  Reboot the system to recover this GPU"]))), cn)
    return F


def cause_ecc(j):
    rng = j.rng
    F = newF(j)
    c = pick_culprit(j)
    cn, lr = node_of(j, c), lrank(j, c)
    F["culprit"], F["cnode"], F["drain"] = c, cn, True
    fs = pick_fs(j)
    tf = t_in_step(j, fs)
    F["fs"], F["t_f"] = fs, tf
    pn, pid = j.pname, j.pid[c]
    v = rng.choice(["dbe", "contained", "uncontained"])
    F["variant"] = v
    if v == "dbe":
        add_k(F, cn, tf, xid(j, lr, 48, pid, pn, "An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition %d, subpartition %d." % (rng.randint(0, 15), rng.randint(0, 1))))
        add_k(F, cn, tf + timedelta(milliseconds=40), xid(j, lr, 63, pid, pn, "Row Remapper: New row marked for remapping, reset gpu to activate."))
    elif v == "contained":
        add_k(F, cn, tf, xid(j, lr, 94, pid, pn, "Contained: SM (0x%x). RST: No, D-RST: No" % rng.choice([1, 2, 4])))
        add_k(F, cn, tf + timedelta(milliseconds=30), xid(j, lr, 63, pid, pn, "Row Remapper: New row (0x%s) Pending for remapping, reset gpu to activate." % hx(rng, 8)))
    else:
        add_k(F, cn, tf, xid(j, lr, 95, "'<unknown>'", "<unknown>", "Uncontained: FBHUB. RST: Yes, D-RST: No"))
    if rng.random() < 0.5:
        lines = cuda_wd_block(j, c, tf + timedelta(seconds=0.4), "uncorrectable ECC error encountered")
        code = -6
    else:
        mid = rng.choice(["fwd", "bwd"])
        fr = j.frames(mid) + (model_leaf(j, "mlp") if mid == "fwd" else [])
        lines = fmt_tb(j, c, fr, ["RuntimeError: CUDA error: uncorrectable ECC error encountered"] + CUDA_TAIL)
        code = 1
    F["initial"].append((c, tf + timedelta(seconds=rng.uniform(0.2, 1.5)), "crash", code, lines))
    F["ev"] += ["console", "kernel_map"]
    rows = ["index, pci.bus_id, ecc.errors.uncorrected.volatile.total, ecc.errors.corrected.volatile.total, remapped_rows.pending, remapped_rows.failure"]
    for k in range(j.gpn):
        if k == lr:
            rows.append("%d, %s, %d, %d, Yes, No" % (k, busid_smi(j, k), rng.randint(1, 4), rng.randint(0, 60)))
        else:
            rows.append("%d, %s, 0, %d, No, No" % (k, busid_smi(j, k), rng.choice([0, 0, 0, 1, 3])))
    F["extra"]["ecc_query_%s.txt" % j.hosts[cn]] = (
        "$ nvidia-smi --query-gpu=index,pci.bus_id,ecc.errors.uncorrected.volatile.total,ecc.errors.corrected.volatile.total,remapped_rows.pending,remapped_rows.failure --format=csv\n" + "\n".join(rows) + "\n", cn)
    F["notes"].append("ECC (%s) on %s GPU%d -> rank %d" % (v, j.hosts[cn], lr, c))
    return F


def cause_nvlink(j):
    rng = j.rng
    F = newF(j)
    c = pick_culprit(j)
    cn, lr = node_of(j, c), lrank(j, c)
    F["culprit"], F["cnode"], F["drain"] = c, cn, True
    fs = pick_fs(j)
    tf = t_in_step(j, fs)
    F["fs"], F["t_f"] = fs, tf
    pn, pid = j.pname, j.pid[c]
    link = rng.randint(0, 17 if j.gk in ("H100", "H800", "H20") else 11)
    add_k(F, cn, tf, xid(j, lr, 74, pid, pn, "NVLink: fatal error detected on link %d(0x%x, 0x0, 0x%x, 0x0, 0x0, 0x0, 0x0)" % (
        link, rng.choice([0, 0x8000, 0x20000]), rng.choice([0x10000, 0x0, 0x1]))))
    if j.gk in ("H100", "H800", "H20") and rng.random() < 0.6:
        sw = rng.randint(0, 3)
        add_k(F, cn, tf + timedelta(milliseconds=8), "nvidia-nvswitch%d: SXid (PCI:0000:%s:00.0): 24007, Fatal, Link %d sourcetrack timeout error (First)" % (sw, rng.choice(["05", "06", "07", "08"]), rng.randint(0, 63)))
        add_k(F, cn, tf + timedelta(milliseconds=9), "nvidia-nvswitch%d: SXid (PCI:0000:%s:00.0): 24007, Severity 1 Engine instance %d Sub-engine instance 00" % (sw, rng.choice(["05", "06", "07", "08"]), rng.randint(0, 63)))
    err = "uncorrectable NVLink error detected during the execution"
    pre = []
    if j.nccl_debug:
        pre.append(nccl_line(j, c, "WARN", "Cuda failure '%s'" % err, fl="enqueue.cc:%d" % rng.choice([1520, 2141, 1923])))
    if rng.random() < 0.5 and (j.zero3 or j.fsdp):
        fr = j.frames("fwd") + model_leaf(j, "gather")
        lines = pre + fmt_tb(j, c, fr, dist_backend_exc(j, "unhandled cuda error (run with NCCL_DEBUG=INFO for details)",
                                                         "ncclUnhandledCudaError: Call to CUDA function failed.", "Cuda failure '%s'" % err))
        code = 1
    else:
        lines = pre + cuda_wd_block(j, c, tf + timedelta(seconds=0.3), err)
        code = -6
    F["initial"].append((c, tf + timedelta(seconds=rng.uniform(0.1, 1.0)), "crash", code, lines))
    if rng.random() < 0.5 and j.gpn > 1:
        # the GPU on the other side of the link notices a moment later
        p = cn * j.gpn + ((lr + rng.randint(1, j.gpn - 1)) % j.gpn)
        pl = []
        if j.nccl_debug:
            pl.append(nccl_line(j, p, "WARN", "Cuda failure '%s'" % err, fl="proxy.cc:%d" % rng.choice([1487, 1720])))
        pl += cuda_wd_block(j, p, tf + timedelta(seconds=2.5), err)
        F["initial"].append((p, tf + timedelta(seconds=rng.uniform(2.0, 4.0)), "crash", -6, pl))
        F["notes"].append("peer GPU%d (rank %d) also reported the NVLink error a few seconds later (collateral)" % (lrank(j, p), p))
    F["ev"] += ["console", "kernel_map"]
    out = ["$ nvidia-smi nvlink -e -i %d" % lr,
           "GPU %d: %s (UUID: GPU-%s-%s-%s-%s-%s)" % (lr, j.gpu["name"], hx(rng, 8), hx(rng, 4), hx(rng, 4), hx(rng, 4), hx(rng, 12))]
    nl = 18 if j.gk in ("H100", "H800", "H20") else 12
    for k in range(nl):
        bad = k == link
        out.append("\t Link %d: Replay Errors: %d" % (k, rng.randint(0, 3) if not bad else rng.randint(40, 900)))
        out.append("\t Link %d: Recovery Errors: %d" % (k, 0 if not bad else rng.randint(3, 40)))
        out.append("\t Link %d: CRC Errors: %d" % (k, 0 if not bad else rng.randint(100, 20000)))
    out.append("")
    out.append("$ nvidia-smi nvlink -s -i %d" % lr)
    out.append("GPU %d: %s" % (lr, j.gpu["name"]))
    for k in range(nl):
        out.append("\t Link %d: %s" % (k, "<inactive>" if k == link else ("26.562 GB/s" if nl == 18 else "25 GB/s")))
    F["extra"]["nvlink_%s.txt" % j.hosts[cn]] = ("\n".join(out) + "\n", cn)
    F["notes"].append("Xid 74 NVLink fatal on %s GPU%d link %d -> rank %d" % (j.hosts[cn], lr, link, c))
    return F


def cause_network(j):
    rng = j.rng
    F = newF(j)
    fs = pick_fs(j)
    tf = t_in_step(j, fs)
    F["fs"], F["t_f"] = fs, tf
    v = "nic_down" if rng.random() < 0.75 else "fabric"
    if not j.has_ib:
        v = "eth_down"
    F["variant"] = v
    op, (nin, nout) = coll_at(j)
    if v in ("nic_down", "eth_down"):
        cn = rng.randrange(j.nn)
        F["cnode"], F["drain"] = cn, True
        lr = rng.randrange(j.gpn)
        r0 = cn * j.gpn + lr
        others = [k for k in range(j.nn) if k != cn]
        pn = rng.choice(others)
        pr = pn * j.gpn + lr
        if v == "nic_down":
            pci = "%s:00.0" % hx(rng, 2)
            ifn = ("ibp%ds0" % int(pci[:2], 16)) if j.ib_ll == "IB" else ("enp%ds0np0" % int(pci[:2], 16))
            add_k(F, cn, tf - timedelta(seconds=rng.uniform(3, 25)), "mlx5_core 0000:%s: mlx5_port_module_event:%d:(pid 0): Port module event[error]: module 0, Cable error, %s" % (
                pci, rng.choice([1160, 1144]), rng.choice(["High Temperature", "Bus stuck (I2C or data shorted)", "Unsupported cable"])))
            add_k(F, cn, tf - timedelta(seconds=rng.uniform(0.5, 2.5)), "mlx5_core 0000:%s %s: Link down" % (pci, ifn))
            if rng.random() < 0.5:
                add_k(F, cn, tf + timedelta(seconds=rng.uniform(30, 400)), "mlx5_core 0000:%s %s: Link up" % (pci, ifn))
            F["extra"]["ibstat_%s.txt" % kern_host(j, cn)] = (
                "$ ibstat %s\nCA '%s'\n\tCA type: MT4129\n\tNumber of ports: 1\n\tFirmware version: 28.39.1002\n\tHardware version: 0\n\tNode GUID: 0x%s\n\tSystem image GUID: 0x%s\n\tPort 1:\n\t\tState: Down\n\t\tPhysical state: %s\n\t\tRate: %d\n\t\tBase lid: %d\n\t\tLMC: 0\n\t\tSM lid: 1\n\t\tCapability mask: 0x2651e848\n\t\tPort GUID: 0x%s\n\t\tLink layer: %s\n" % (
                    j.hca[lr], j.hca[lr], hx(rng, 16), hx(rng, 16), rng.choice(["Polling", "Disabled"]), rng.choice([10, 40, 400]),
                    rng.choice([65535, rng.randint(2, 900)]), hx(rng, 16), "InfiniBand" if j.ib_ll == "IB" else "Ethernet"), cn)
            last_local = ib_completion(j, j.ips[pn], j.ips[cn], status=12, recv=False)
            last_remote = ib_completion(j, j.ips[cn], j.ips[pn], status=12, recv=True)
            F["notes"].append("%s port of %s (%s) went down; NCCL IB completion errors status=12 on both sides" % (j.hca[lr], j.hosts[cn], ifn))
        else:
            drv = rng.choice(["r8169 0000:05:00.0 enp5s0: Link is Down", "ixgbe 0000:41:00.0 enp65s0f0: NIC Link is Down",
                              "igb 0000:06:00.0 eno1: igb: eno1 NIC Link is Down"])
            add_k(F, cn, tf - timedelta(seconds=rng.uniform(0.5, 4)), drv)
            if rng.random() < 0.6:
                add_k(F, cn, tf + timedelta(seconds=rng.uniform(5, 60)), drv.replace("Down", "Up 10000 Mbps Full Duplex, Flow Control: RX/TX").replace("is Up", "is Up"))
            last_local = socket_closed(j, j.ips[pn])
            last_remote = socket_closed(j, j.ips[cn])
            F["notes"].append("Ethernet link of %s dropped (socket transport)" % j.hosts[cn])
        t1 = tf + timedelta(seconds=rng.uniform(0.5, 8))
        t2 = tf + timedelta(seconds=rng.uniform(0.5, 8))
        pre1 = [nccl_line(j, r0, "WARN", last_local, fl="transport/net_ib.cc:%d" % rng.choice([1696, 2285, 1412]))] if j.nccl_debug else []
        pre2 = [nccl_line(j, pr, "WARN", last_remote, fl="transport/net_ib.cc:%d" % rng.choice([1696, 2285, 1412]))] if j.nccl_debug else []
        F["initial"].append((r0, t1, "crash", -6, pre1 + nccl_err_block(j, r0, t1, last_local)))
        F["initial"].append((pr, t2, "crash", -6, pre2 + nccl_err_block(j, pr, t2, last_remote)))
        F["culprit"] = None
        F["net_peer_ip"] = j.ips[cn]
    else:
        F["cnode"] = None
        ks = sorted(rng.sample(range(j.nn), min(j.nn, rng.randint(2, 4))))
        for a in ks:
            b = rng.choice([k for k in range(j.nn) if k != a])
            r = a * j.gpn + rng.randrange(j.gpn)
            tt = tf + timedelta(seconds=rng.uniform(0, 20))
            le = ib_completion(j, j.ips[b], j.ips[a], status=rng.choice([12, 12, 5]), recv=rng.random() < 0.5)
            pre = [nccl_line(j, r, "WARN", le, fl="transport/net_ib.cc:1696")] if j.nccl_debug else []
            F["initial"].append((r, tt, "crash", -6, pre + nccl_err_block(j, r, tt, le)))
        F["notes"].append("fabric-wide IB errors (switch flap) on nodes %s; no single culprit node" % ",".join(j.hosts[k] for k in ks))
    F["cascade"] = "remote"
    F["op"] = (op, nin, nout, seq_at(j, fs))
    return F


def cause_cuda_oom(j):
    rng = j.rng
    F = newF(j)
    c = pick_culprit(j)
    cn, lr = node_of(j, c), lrank(j, c)
    F["culprit"], F["cnode"] = c, cn
    fs = pick_fs(j)
    tf = t_in_step(j, fs)
    F["fs"], F["t_f"] = fs, tf
    mid = rng.choice(["fwd", "fwd", "bwd"])
    leaf = rng.choice(["logits", "loss", "attn", "mlp"])
    fr = j.frames(mid) + (model_leaf(j, leaf) if mid == "fwd" else [])
    alloc = rng.choice([1.96, 2.35, 3.91, 7.83, 9.27, 15.66, 0.98, 4.69])
    free = rng.uniform(0.05, min(alloc - 0.01, 2.5))
    seqlen = rng.choice([16384, 24576, 32768, 31998, 40960, 65536])
    pre = []
    if rng.random() < 0.5:
        pre.append((tf - timedelta(seconds=rng.uniform(0.5, 3)),
                    "Token indices sequence length is longer than the specified maximum sequence length for this model (%d > %d). Running this sequence through the model will result in indexing errors" % (
                        seqlen + rng.randint(100, 9000), seqlen)))
    lines = fmt_tb(j, c, fr, [oom_msg(j, lr, alloc, free)])
    F["initial"].append((c, tf, "crash", 1, lines))
    F["pre"][c] = pre
    F["ev"].append("console")
    F["notes"].append("CUDA OOM on rank %d (%s, local GPU %d) at step %d in %s/%s, long-sample batch" % (c, j.hosts[cn], lr, fs, mid, leaf))
    return F


def cause_ima(j):
    rng = j.rng
    F = newF(j)
    c = pick_culprit(j)
    cn, lr = node_of(j, c), lrank(j, c)
    F["culprit"], F["cnode"] = c, cn
    fs = pick_fs(j)
    tf = t_in_step(j, fs)
    F["fs"], F["t_f"] = fs, tf
    pn, pid = j.pname, j.pid[c]
    if rng.random() < 0.5:
        fr = j.frames("fwd") + model_leaf(j, "attn")
        lines = fmt_tb(j, c, fr, ["RuntimeError: CUDA error: an illegal memory access was encountered"] + CUDA_TAIL)
        code = 1
        F["variant"] = "python"
    else:
        lines = cuda_wd_block(j, c, tf + timedelta(seconds=0.2), "an illegal memory access was encountered")
        code = -6
        F["variant"] = "watchdog"
    F["initial"].append((c, tf, "crash", code, lines))
    if rng.random() < 0.75:
        if rng.random() < 0.6:
            add_k(F, cn, tf - timedelta(milliseconds=200), xid(j, lr, 31, pid, pn, "Ch 000000%02x, intr 00000000. MMU Fault: ENGINE GRAPHICS GPC%d GPCCLIENT_T1_%d faulted @ 0x7f%s_%s000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ" % (
                rng.randint(8, 40), rng.randint(0, 7), rng.randint(0, 15), hx(rng, 2), hx(rng, 5))))
        else:
            add_k(F, cn, tf - timedelta(milliseconds=200), xid(j, lr, 13, pid, pn, "Graphics SM Warp Exception on (GPC %d, TPC %d, SM %d): Out Of Range Address" % (rng.randint(0, 7), rng.randint(0, 8), rng.randint(0, 1))))
            add_k(F, cn, tf - timedelta(milliseconds=199), xid(j, lr, 13, pid, pn, "Graphics Exception: ESR 0x%s=0x%s 0x%s=0x24 0x%s=0x%s 0x%s=0x1174" % (hx(rng, 6), hx(rng, 7), hx(rng, 6), hx(rng, 6), hx(rng, 7), hx(rng, 6))))
        F["ev"].append("kernel_map")
    F["ev"].append("console")
    F["notes"].append("illegal memory access (%s) on rank %d (%s GPU%d), app-level Xid 31/13 only (no drain)" % (F["variant"], c, j.hosts[cn], lr))
    return F


PY_EXC = [
    ("json", ["json.decoder.JSONDecodeError: Unterminated string starting at: line 1 column {a} (char {b})"]),
    ("image", ["PIL.UnidentifiedImageError: cannot identify image file '/data/{ds}/images/{d1:05d}/{d2}.jpg'"]),
    ("shape", ["RuntimeError: The size of tensor a ({n1}) must match the size of tensor b ({n2}) at non-singleton dimension 3"]),
    ("key", ["KeyError: 'content'"]),
    ("index", ["IndexError: index out of range in self"]),
    ("disk", ["RuntimeError: [enforce fail at inline_container.cc:{ic}] . unexpected pos {p1} vs {p2}"]),
    ("disk2", ["safetensors_rust.SafetensorError: Error while serializing: IoError(Os {{ code: 28, kind: StorageFull, message: \"No space left on device\" }})"]),
    ("assert", ["AssertionError: labels and input_ids length mismatch: {n1} != {n2}"]),
]


def cause_python_exception(j):
    rng = j.rng
    F = newF(j)
    kind, exc = rng.choice(PY_EXC)
    F["variant"] = kind
    phase = "save" if kind in ("disk", "disk2") else "train"
    c = 0 if (phase == "save" and rng.random() < 0.6) else pick_culprit(j)
    cn = node_of(j, c)
    F["culprit"], F["cnode"] = c, cn
    fs = pick_fs(j, phase)
    tf = t_in_save(j, fs) if phase == "save" else t_in_step(j, fs)
    F["fs"], F["t_f"], F["phase"] = fs, tf, phase
    n1 = rng.choice([4096, 8192, 32768, 2048])
    vals = dict(a=rng.randint(1000, 90000), ds=rng.choice(["llava_mix", "sharegpt4v", "docvqa", "mm_sft"]),
                d1=rng.randint(0, 2000), d2=rng.randint(1000000, 9999999), n1=n1, n2=n1 + 1,
                ic=rng.choice([588, 595, 603, 778]), p1=rng.randint(10**6, 10**9))
    vals["b"] = vals["a"] - 1
    vals["p2"] = vals["p1"] - rng.choice([112, 96, 64, 240])
    lines = [x.format(**vals) for x in exc]
    if kind in ("disk", "disk2"):
        fr = j.frames("save")
        pre = []
    elif kind in ("shape", "index"):
        fr = j.frames("fwd") + model_leaf(j, "attn" if kind == "shape" else "pre")
        pre = []
    else:
        fr = None
        pre = []
    tb = fmt_tb(j, c, fr, lines) if fr is not None else data_exc(j, c, kind, lines)
    F["initial"].append((c, tf, "crash", 1, tb))
    F["ev"].append("console")
    if kind in ("disk", "disk2"):
        F["notes"].append("checkpoint write failed on rank %d (%s): local disk full" % (c, j.hosts[cn]))
        F["extra"]["df_%s.txt" % j.hosts[cn]] = ("$ df -h %s\nFilesystem      Size  Used Avail Use%% Mounted on\n/dev/md0        %dT  %dT     0 100%% %s\n" % (
            j.out_root, rng.choice([3, 7, 14]), rng.choice([3, 7, 14]), j.out_root), cn)
    else:
        F["notes"].append("%s raised on rank %d (%s) only; bad sample in its shard" % (lines[-1].split(":")[0], c, j.hosts[cn]))
    return F


def cause_host_oom(j):
    rng = j.rng
    F = newF(j)
    v = rng.choice(["main", "main", "worker"])
    F["variant"] = v
    phase = "save" if (v == "main" and rng.random() < 0.5) else "train"
    c = 0 if (phase == "save" and rng.random() < 0.7) else pick_culprit(j)
    cn, lr = node_of(j, c), lrank(j, c)
    F["culprit"], F["cnode"] = c, cn
    fs = pick_fs(j, phase)
    tf = t_in_save(j, fs) if phase == "save" else t_in_step(j, fs)
    F["fs"], F["t_f"], F["phase"] = fs, tf, phase
    cg = j.launcher == "srun" or j.scheme == "k8s" or rng.random() < 0.3
    kpid = j.pid[c] if v == "main" else j.pid[c] + rng.randint(300, 2000)
    kname = j.pname if v == "main" else rng.choice(["pt_data_worker", "python3", "python"])
    anon = rng.randint(60, 480) * 1024 * 1024
    add_k(F, cn, tf - timedelta(milliseconds=300), "%s invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0" % kname)
    add_k(F, cn, tf - timedelta(milliseconds=299), "CPU: %d PID: %d Comm: %s Tainted: P           OE      %s" % (rng.randint(0, 127), kpid, kname, j.kernel))
    add_k(F, cn, tf - timedelta(milliseconds=298), "Hardware name: %s" % j.hw_name)
    if cg:
        memcg = j.memcg(c)
        add_k(F, cn, tf - timedelta(milliseconds=210), "memory: usage %dkB, limit %dkB, failcnt %d" % (anon + 2000000, anon + 2000000, rng.randint(1, 900)))
        add_k(F, cn, tf - timedelta(milliseconds=100), "oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=%s,mems_allowed=0-1,oom_memcg=%s,task_memcg=%s,task=%s,pid=%d,uid=%d" % (
            memcg[0], memcg[1], memcg[2], kname, kpid, j.uid))
        head = "Memory cgroup out of memory: Killed process"
    else:
        add_k(F, cn, tf - timedelta(milliseconds=100), "oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0-1,global_oom,task_memcg=/user.slice/user-%d.slice/session-%d.scope,task=%s,pid=%d,uid=%d" % (
            j.uid, rng.randint(1, 90), kname, kpid, j.uid))
        head = "Out of memory: Killed process"
    add_k(F, cn, tf, "%s %d (%s) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:%d pgtables:%dkB oom_score_adj:0" % (
        head, kpid, kname, anon + rng.randint(10**7, 9 * 10**7), anon, rng.randint(10000, 900000), rng.randint(0, 4000000), j.uid, rng.randint(100000, 400000)))
    if v == "main":
        F["initial"].append((c, tf + timedelta(milliseconds=50), "kill9", -9, []))
        F["notes"].append("kernel OOM killer SIGKILLed rank %d (pid %d) on %s%s" % (c, kpid, j.hosts[cn], " during checkpoint save" if phase == "save" else ""))
    else:
        ch = dl_inner_chain(j, kpid, "Killed")
        fr = j.frames("data")
        tb = fmt_tb(j, c, fr, ["RuntimeError: DataLoader worker (pid(s) %d) exited unexpectedly" % kpid], chain=ch)
        F["initial"].append((c, tf + timedelta(seconds=rng.uniform(0.1, 2)), "crash", 1, tb))
        F["notes"].append("OOM killer took a DataLoader worker (pid %d) of rank %d on %s" % (kpid, c, j.hosts[cn]))
    F["ev"] += ["console", "kernel_map"]
    F["oom_cg"] = cg
    return F


def cause_crash_signal(j):
    rng = j.rng
    F = newF(j)
    c = pick_culprit(j)
    cn, lr = node_of(j, c), lrank(j, c)
    F["culprit"], F["cnode"] = c, cn
    fs = pick_fs(j)
    tf = t_in_step(j, fs)
    F["fs"], F["t_f"] = fs, tf
    v = wchoice(rng, [("segv", 5), ("abort", 2), ("bus", 1)])
    F["variant"] = v
    lib = rng.choice(["libflash_attn_2_cuda.so", "libtorch_cuda.so", "libcuda.so.%s" % j.driver, "bitsandbytes/libbitsandbytes_cuda121.so",
                      "cpu_adam.so", "libtriton.so"])
    lines = []
    if v == "segv":
        code = -11
        if rng.random() < 0.5:
            lines = ["Fatal Python error: Segmentation fault", "",
                     "Thread 0x%s (most recent call first):" % ("00007f" + hx(rng, 10)),
                     '  File "%s/threading.py", line %d in wait' % (j.pylib, 324 if j.py == "3.10" else 355),
                     '  File "%s/queue.py", line 180 in get' % j.pylib,
                     '  File "%s/torch/utils/data/_utils/pin_memory.py", line 55 in do_one_step' % j.sp, "",
                     "Current thread 0x%s (most recent call first):" % ("00007f" + hx(rng, 10))]
            for p, ln, fn, code_ in reversed((j.frames("fwd") + model_leaf(j, "attn"))[-8:]):
                lines.append('  File "%s", line %d in %s' % (p, ln, fn))
            lines.append("")
            lines.append("Extension modules: numpy.core._multiarray_umath, numpy.core._multiarray_tests, torch._C, torch._C._fft, torch._C._linalg, yaml._yaml, sentencepiece._sentencepiece, regex._regex (total: %d)" % rng.randint(60, 140))
        add_k(F, cn, tf, "%s[%d]: segfault at %x ip 00007f%s sp 00007ff%s error %d in %s[7f%s+%s]%s" % (
            j.pname, j.pid[c], rng.choice([0, 8, 0x18, 0x7f2a00000010]), hx(rng, 10), hx(rng, 9), rng.choice([4, 6, 14]), lib.split("/")[-1],
            hx(rng, 10), hx(rng, 6), " likely on CPU %d (core %d, socket %d)" % (rng.randint(0, 127), rng.randint(0, 63), rng.randint(0, 1)) if rng.random() < 0.6 else ""))
        add_k(F, cn, tf + timedelta(microseconds=30), "Code: %s" % " ".join(hx(rng, 2) for _ in range(20)))
        F["ev"].append("kernel_map")
        F["notes"].append("SIGSEGV in %s on rank %d (%s)" % (lib, c, j.hosts[cn]))
    elif v == "abort":
        code = -6
        lines = [rng.choice(["double free or corruption (!prev)", "free(): invalid pointer", "corrupted size vs. prev_size",
                             "malloc(): unaligned tcache chunk detected"])]
        F["notes"].append("glibc abort (%s) on rank %d (%s)" % (lines[0], c, j.hosts[cn]))
    else:
        code = -7
        lines = []
        add_k(F, cn, tf, "%s[%d]: potentially unexpected fatal signal 7." % (j.pname, j.pid[c]))
        F["ev"].append("kernel_map")
        F["notes"].append("SIGBUS on rank %d (%s), mmap'd dataset file truncated underneath" % (c, j.hosts[cn]))
    F["initial"].append((c, tf, "crash", code, lines))
    F["ev"].append("console")
    return F


def cause_preemption(j):
    rng = j.rng
    F = newF(j)
    fs = pick_fs(j)
    tf = t_in_step(j, fs)
    F["fs"], F["t_f"] = fs, tf
    F["kind"] = "preempt"
    if j.launcher == "srun" or (j.sched == "slurm" and rng.random() < 0.7):
        F["scope"] = "job"
        F["cnode"] = 0 if j.nn == 1 else None
        F["notes"].append("Slurm preempted the whole job (higher-priority job)")
    else:
        F["scope"] = "node"
        cn = rng.randrange(j.nn)
        F["cnode"] = cn
        F["notes"].append("node %s reclaimed (spot/preemptible) -> its agent got SIGTERM" % j.hosts[cn])
    F["cascade"] = "remote"
    return F


def cause_hang(j):
    rng = j.rng
    F = newF(j)
    v = wchoice(rng, [("nfs", 3), ("deadlock", 3), ("silent", 2)])
    F["variant"] = v
    phase = "save" if v == "nfs" else "train"
    c = pick_culprit(j, bias0=0.3 if v == "nfs" else 0.1)
    cn = node_of(j, c)
    F["culprit"], F["cnode"] = c, cn
    fs = pick_fs(j, phase)
    tf = t_in_save(j, fs) if phase == "save" else t_in_step(j, fs)
    F["fs"], F["t_f"], F["phase"] = fs, tf, phase
    F["kind"] = "stall"
    F["stall"] = (c, tf)
    if v == "nfs":
        srv = rng.choice(["fs01", "nfs-home", "vast-01.storage", "10.%d.0.%d" % (rng.randint(1, 30), rng.randint(2, 50)), "isilon02"])
        add_k(F, cn, tf + timedelta(seconds=rng.uniform(5, 60)), "nfs: server %s not responding, still trying" % srv)
        for k in range(rng.randint(1, 3)):
            tt = tf + timedelta(seconds=122 * (k + 1) + rng.uniform(0, 2))
            add_k(F, cn, tt, "INFO: task %s:%d blocked for more than %d seconds.\n      Tainted: P           OE      %s\n\"echo 0 > /proc/sys/kernel/hung_task_timeout_secs\" disables this message.\ntask:%-15s state:D stack:0     pid:%d ppid:%d flags:0x00004002\nCall Trace:\n <TASK>\n __schedule+0x2cd/0x890\n schedule+0x69/0x110\n io_schedule+0x46/0x80\n folio_wait_bit_common+0x13d/0x350\n nfs_wb_folio+0xab/0x190 [nfs]\n nfs_write_begin+0x1ab/0x2e0 [nfs]\n generic_perform_write+0x13c/0x280\n nfs_file_write+0x19b/0x2f0 [nfs]\n vfs_write+0x2a6/0x3d0\n ksys_write+0x6b/0xf0\n do_syscall_64+0x59/0x90\n entry_SYSCALL_64_after_hwframe+0x6e/0xd8\n </TASK>" % (
                j.pname, j.pid[c], 122 * (k + 1), j.kernel, j.pname, j.pid[c], j.agent_pid[cn]))
        if rng.random() < 0.5:
            add_k(F, cn, tf + timedelta(seconds=j.timeout_s + rng.uniform(200, 900)), "nfs: server %s OK" % srv)
        F["ev"].append("kernel_map")
        F["notes"].append("rank %d blocked in NFS write (%s) while saving checkpoint; others hit NCCL timeout" % (c, srv))
    elif v == "deadlock":
        if rng.random() < 0.7:
            stk = [("wait", "threading.py", 324 if j.py == "3.10" else 355),
                   ("wait", "threading.py", 607 if j.py == "3.10" else 629),
                   ("_tokenize_batch", j.tok_file, rng.randint(120, 400)),
                   ("__call__", j.tok_file, rng.randint(400, 600))] + [(fn, p.replace(j.sp + "/", ""), ln) for p, ln, fn, _ in reversed(j.frames("data")[-5:-2])]
            F["extra"]["py-spy_rank%d.txt" % c] = ("$ py-spy dump --pid %d   # on %s\n" % (j.pid[c], j.hosts[cn]) + pyspy_dump(j, c, stk), cn)
            F["ev"].append("file:py-spy_rank%d.txt" % c)
            if j.gpn > 1:
                o = cn * j.gpn + ((lrank(j, c) + 1) % j.gpn)
                ostk = [("wait", "torch/distributed/distributed_c10d.py", 2501), ("_reduce_scatter", j.sp.split("/")[-1] + "/deepspeed/runtime/zero/stage3.py", 1457)] if j.zero3 else [
                    ("_wait_for_work", "torch/distributed/distributed_c10d.py", 2501), ("all_reduce", "torch/distributed/distributed_c10d.py", 2501)]
                F["extra"]["py-spy_rank%d.txt" % o] = ("$ py-spy dump --pid %d   # on %s\n" % (j.pid[o], j.hosts[cn]) + pyspy_dump(j, o, ostk, state="active"), cn)
        F["notes"].append("rank %d deadlocked in the tokenizer thread pool; no collective enqueued" % c)
    else:
        F["notes"].append("rank %d silently stopped; only evidence is its absence from the watchdog timeouts" % c)
    op, (nin, nout) = coll_at(j, phase)
    F["op"] = (op, nin, nout, seq_at(j, fs, phase))
    F["ev"].append("absent")
    F["cascade"] = "wd"
    return F


def cause_dl_stall(j):
    rng = j.rng
    F = newF(j)
    v = wchoice(rng, [("timeout", 3), ("bus", 2), ("exited", 2), ("silent", 2)])
    F["variant"] = v
    c = pick_culprit(j)
    cn = node_of(j, c)
    F["culprit"], F["cnode"] = c, cn
    fs = pick_fs(j)
    tf = t_in_step(j, fs, frac=0.02)
    F["fs"], F["t_f"] = fs, tf
    wpid = j.pid[c] + rng.randint(200, 3000)
    fr = j.frames("data")
    if v == "timeout":
        to = rng.choice([300, 600, 900])
        j.dl_timeout = to
        tb = fmt_tb(j, c, fr[:-4] + torch_dl(j, "timeout"), ["RuntimeError: DataLoader timed out after %d seconds" % to])
        F["initial"].append((c, tf + timedelta(seconds=to), "crash", 1, tb))
        F["notes"].append("rank %d DataLoader got nothing for %ds (remote dataset read stalled) and raised" % (c, to))
        if to >= j.timeout_s:
            F["notes"].append("dataloader timeout >= NCCL timeout: peers may report first")
    elif v == "bus":
        ch = dl_inner_chain(j, wpid, "Bus error")
        tb = ["ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).", ""]
        tb += fmt_tb(j, c, fr, ["RuntimeError: DataLoader worker (pid(s) %d) exited unexpectedly" % wpid], chain=ch)
        F["initial"].append((c, tf + timedelta(seconds=rng.uniform(0.5, 5)), "crash", 1, tb))
        F["notes"].append("DataLoader worker of rank %d died with SIGBUS (/dev/shm %s)" % (c, rng.choice(["64M docker default", "full"])))
    elif v == "exited":
        ch = dl_inner_chain(j, wpid, rng.choice(["Segmentation fault", "Aborted"]))
        tb = fmt_tb(j, c, fr, ["RuntimeError: DataLoader worker (pid(s) %d) exited unexpectedly" % wpid], chain=ch)
        F["initial"].append((c, tf + timedelta(seconds=rng.uniform(0.5, 5)), "crash", 1, tb))
        F["notes"].append("DataLoader worker of rank %d exited unexpectedly (decoder crash in worker)" % c)
    else:
        F["kind"] = "stall"
        F["stall"] = (c, tf)
        stk = [("wait", "threading.py", 324 if j.py == "3.10" else 355),
               ("get", "queue.py", 180),
               ("_try_get_data", "torch/utils/data/dataloader.py", 1243 if j.tv >= 204 else 1133),
               ("_get_data", "torch/utils/data/dataloader.py", 1410 if j.tv >= 204 else 1294),
               ("_next_data", "torch/utils/data/dataloader.py", 1448 if j.tv >= 204 else 1329),
               ("__next__", "torch/utils/data/dataloader.py", 701 if j.tv >= 204 else 631)]
        F["extra"]["py-spy_rank%d.txt" % c] = ("$ py-spy dump --pid %d   # on %s, 20 min into the stall\n" % (j.pid[c], j.hosts[cn]) + pyspy_dump(j, c, stk), cn)
        F["ev"].append("file:py-spy_rank%d.txt" % c)
        F["ev"].append("absent")
        op, (nin, nout) = coll_at(j)
        F["op"] = (op, nin, nout, seq_at(j, fs))
        F["cascade"] = "wd"
        F["notes"].append("rank %d stuck waiting on its DataLoader (workers blocked on object-store reads); others time out" % c)
        return F
    F["ev"].append("console")
    return F


def cause_mismatch(j):
    rng = j.rng
    F = newF(j)
    v = wchoice(rng, [("detail", 2), ("wd_diff", 3), ("rank0_only", 2)])
    F["variant"] = v
    c = 0 if v == "rank0_only" else pick_culprit(j, bias0=0.05)
    cn = node_of(j, c)
    F["culprit"], F["cnode"] = c, cn
    phase = "save" if v == "rank0_only" and rng.random() < 0.5 else "train"
    fs = pick_fs(j, phase)
    tf = t_in_save(j, fs) if phase == "save" else t_in_step(j, fs)
    F["fs"], F["t_f"], F["phase"] = fs, tf, phase
    seq = seq_at(j, fs, phase)
    op, (nin, nout) = coll_at(j, phase)
    if v == "detail":
        F["kind"] = "mismatch_detail"
        j.debug_detail = True
        cop = rng.choice([o for o in ["BROADCAST", "ALLREDUCE", "_ALLGATHER_BASE", "ALLGATHER"] if o != op])
        def fp(o, shape):
            return "CollectiveFingerPrint(SequenceNumber=%d, OpType=%s, TensorShape=[%s], TensorDtypes=%s, TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt)))" % (
                seq, o, shape, "BFloat16" if shape != "1" else "Long")
        good = fp(op, str(nin))
        bad = fp(cop, "1")
        F["mm"] = (good, bad, op, cop)
        F["ev"].append("any_console")
        F["notes"].append("TORCH_DISTRIBUTED_DEBUG=DETAIL caught rank %d issuing %s while the rest issued %s (seq %d)" % (c, cop, op, seq))
    else:
        F["kind"] = "all_wd"
        if v == "wd_diff":
            cop = rng.choice([o for o in ["BROADCAST", "ALLREDUCE", "_ALLGATHER_BASE", "_REDUCE_SCATTER_BASE"] if o != op])
            cn_in, cn_out = numel(j, cop)
            F["wd_override"][c] = (seq, cop, cn_in, cn_out)
            F["notes"].append("rank %d took a different code path (skipped a micro-batch with empty labels) and sits in %s while the others wait in %s, seq %d" % (c, cop, op, seq))
        else:
            cop = "_ALLGATHER_BASE"
            cn_in, cn_out = numel(j, cop)
            F["wd_override"][c] = (seq, cop, cn_in, cn_out)
            op = "ALLREDUCE"
            nin = nout = 1
            F["notes"].append("only rank 0 ran the %s callback (ZeRO-3 gathers params) while others went on to the loss all-reduce" % (
                "save_16bit_model" if phase == "save" else "generation/eval"))
        F["ev"].append("console")
    F["op"] = (op, nin, nout, seq)
    return F


def cause_straggler(j):
    rng = j.rng
    F = newF(j)
    c = pick_culprit(j, bias0=0.05)
    cn, lr = node_of(j, c), lrank(j, c)
    F["culprit"], F["cnode"] = c, cn
    v = wchoice(rng, [("finish", 4), ("timelimit", 2), ("cancel", 2)])
    why = rng.choice(["powerbrake", "thermal", "cpu"])
    F["variant"] = v + "/" + why
    frm = rng.randint(j.start_step + 2, max(j.start_step + 3, j.start_step + (j.T - j.start_step) // 3))
    factor = rng.uniform(1.35, 2.6)
    F["slow"] = dict(rank=c, factor=factor, **{"from": frm}, why=why)
    F["kind"] = "finish" if v == "finish" else "timelimit"
    F["notes"].append("rank %d (%s GPU%d) %s from step %d; every step %.1fx slower" % (
        c, j.hosts[cn], lr, {"powerbrake": "HW power-brake slowdown", "thermal": "thermal throttling",
                             "cpu": "starved of CPU by a stray process pinned to its cores"}[why], frm, factor))
    return F


def cause_unknown(j):
    rng = j.rng
    F = newF(j)
    fs = pick_fs(j)
    tf = t_in_step(j, fs)
    F["fs"], F["t_f"] = fs, tf
    v = "all_wd" if (j.tv < 204 or rng.random() < 0.6) else "heartbeat"
    F["variant"] = v
    F["kind"] = "all_wd"
    op, (nin, nout) = coll_at(j)
    F["op"] = (op, nin, nout, seq_at(j, fs))
    F["notes"].append("every rank timed out on the same collective (%s); nothing names an initiator" % op if v == "all_wd"
                      else "watchdog heartbeat monitor killed every rank; no initiator in the logs")
    return F


def cause_healthy(j):
    F = newF(j)
    F["kind"] = "finish"
    F["notes"].append("healthy run with alarming noise")
    return F


CAUSE_FN = {"gpu_hardware": cause_gpu_hardware, "ecc_memory": cause_ecc, "nvlink": cause_nvlink,
            "network": cause_network, "cuda_oom": cause_cuda_oom, "illegal_memory_access": cause_ima,
            "python_exception": cause_python_exception, "host_oom_kill": cause_host_oom,
            "crash_signal": cause_crash_signal, "preemption": cause_preemption, "hang": cause_hang,
            "data_loader_stall": cause_dl_stall, "collective_mismatch": cause_mismatch,
            "straggler": cause_straggler, "unknown": cause_unknown, None: cause_healthy}


def data_exc(j, r, kind, exc_lines):
    """Exception raised while building a batch (dataset / collator), re-raised from a worker."""
    rng = j.rng
    sp = j.sp
    pyl = j.pylib
    leaf = list(j.ds_frames)
    if kind == "json":
        leaf += [(pyl + "/json/__init__.py", 346, "loads", "return _default_decoder.decode(s)"),
                 (pyl + "/json/decoder.py", 337, "decode", "obj, end = self.raw_decode(s, idx=_w(s, 0).end())"),
                 (pyl + "/json/decoder.py", 353, "raw_decode", "obj, end = self.scan_once(s, idx)")]
    elif kind == "image":
        leaf += [(j.img_frame[0], j.img_frame[1], j.img_frame[2], "image = Image.open(image)"),
                 (sp + "/PIL/Image.py", 3498, "open", "raise UnidentifiedImageError(msg)")]
    elif kind == "key":
        leaf += [(j.ds_frames[-1][0], j.ds_frames[-1][1] + 23, "_encode_turns", 'text = message["content"]')]
    else:
        leaf += [(j.ds_frames[-1][0], j.ds_frames[-1][1] + 41, "_check", 'assert len(labels) == len(input_ids), f"labels and input_ids length mismatch: {len(labels)} != {len(input_ids)}"')]
    base = j.frames("data")[:-4]
    d = sp + "/torch/utils/data/dataloader.py"
    cls = exc_lines[-1].split(":")[0]
    short = cls.split(".")[-1]
    if j.num_workers == 0:
        fr = base + [(d, 701 if j.tv >= 204 else 631, "__next__", "data = self._next_data()"),
                     (d, 757 if j.tv >= 204 else 675, "_next_data", "data = self._dataset_fetcher.fetch(index)  # may raise StopIteration"),
                     (sp + "/torch/utils/data/_utils/fetch.py", 55, "fetch", "return self.collate_fn(data)" if j.ds_is_collator else "data = [self.dataset[idx] for idx in possibly_batched_index]")] + leaf
        return fmt_tb(j, r, fr, exc_lines)
    fr = base + [(d, 701 if j.tv >= 204 else 631, "__next__", "data = self._next_data()"),
                 (d, 1465 if j.tv >= 204 else 1345, "_next_data", "return self._process_data(data)"),
                 (d, 1491 if j.tv >= 204 else 1371, "_process_data", "data.reraise()"),
                 (sp + "/torch/_utils.py", 715 if j.tv >= 204 else 694, "reraise", "raise exception")]
    wk = rng.randrange(j.num_workers)
    orig = ["%s: Caught %s in DataLoader worker process %d." % (cls, short, wk), "Original Traceback (most recent call last):"]
    wf = [(sp + "/torch/utils/data/_utils/worker.py", 351 if j.tv >= 204 else 308, "_worker_loop", "data = fetcher.fetch(index)  # type: ignore[possibly-undefined]"),
          (sp + "/torch/utils/data/_utils/fetch.py", 55 if j.ds_is_collator else 52, "fetch",
           "return self.collate_fn(data)" if j.ds_is_collator else "data = [self.dataset[idx] for idx in possibly_batched_index]")]
    for path, line, func, code in wf + leaf:
        orig.append('  File "%s", line %d, in %s' % (path, line, func))
        orig.append("    " + code)
    orig += exc_lines
    return fmt_tb(j, r, fr, orig)


# ----------------------------------------------------------------- fate resolution
SIGNAME = {6: "SIGABRT", 9: "SIGKILL", 11: "SIGSEGV", 7: "SIGBUS", 15: "SIGTERM", 2: "SIGINT"}


def resolve(j, F):
    fates = _resolve(j, F)
    local_kill_pass(j, F, fates)
    return fates


def local_kill_pass(j, F, fates):
    """A node-local launcher kills the survivors shortly after the first local failure:
    ranks that would have failed later print nothing."""
    rng = j.rng
    j.t_kill = {}
    if j.launcher == "srun":
        return
    for n in range(j.nn):
        rs = ranks_on(j, n)
        bad = [r for r in rs if fates[r]["kind"] in ("crash", "wd", "remote", "kill9")]
        if not bad:
            continue
        t1 = min(fates[r]["t"] for r in bad)
        mon = rng.uniform(1.0, 5.0) if j.tv <= 201 or j.launcher == "deepspeed" else rng.uniform(0.1, 1.2)
        if j.launcher == "composer":
            mon = rng.uniform(0.1, 0.6)
        if F["kind"] in ("stall", "all_wd"):
            # everybody enqueued the same collective: all local timeouts land before the agent reacts
            wds = [fates[r]["t"] for r in rs if fates[r]["kind"] == "wd"]
            if wds:
                t1 = max(wds)
        tk = t1 + timedelta(seconds=mon)
        j.t_kill[n] = tk
        for r in rs:
            f = fates[r]
            if f["kind"] in ("crash", "wd", "remote", "kill9") and f["t"] > tk:
                fates[r] = dict(kind="term", t=tk, code=-15, lines=[])
            elif f["kind"] == "term":
                f["t"] = tk
    j.t_end = max(max(f["t"] for f in fates.values()) + timedelta(seconds=20), getattr(j, "t_end", j.t0))


def _resolve(j, F):
    rng = j.rng
    W = j.world
    fates = {}
    inf = j.timeout_s >= 10 ** 6
    TO = timedelta(seconds=j.timeout_s)
    kind = F["kind"]

    def mon():
        return timedelta(seconds=rng.uniform(0.3, 4.8))

    def user_end(t):
        return t + timedelta(seconds=rng.uniform(900, 4 * 3600))

    if "op" not in F:
        op, (nin, nout) = coll_at(j, F.get("phase", "train"))
        F["op"] = (op, nin, nout, seq_at(j, F["fs"] or j.T // 2, F.get("phase", "train")))
    op, nin, nout, seq = F["op"]

    def wd(r, t, ov=None):
        s_, o_, a_, b_ = ov if ov else (seq, op, nin, nout)
        le = s_ + rng.choice([0, 1, 1, 2, 3])
        return dict(kind="wd", t=t, code=-6, lines=wd_block(j, r, t, s_, o_, a_, b_, le, s_ - 1))

    if kind == "finish":
        te = j.step_t[j.T] + timedelta(seconds=rng.uniform(20, 240))
        for r in range(W):
            fates[r] = dict(kind="ok", t=te, code=0, lines=[])
        j.t_end = te
        return fates
    if kind == "timelimit":
        te = F["t_end"]
        for r in range(W):
            fates[r] = dict(kind="sched", t=te + timedelta(seconds=rng.uniform(0, 1.5)), code=-15, lines=[])
        j.t_end = te + timedelta(seconds=40)
        return fates
    if kind == "mismatch_detail":
        good, bad, gop, cop = F["mm"]
        c = F["culprit"]
        for r in range(W):
            t = F["t_f"] + timedelta(seconds=rng.uniform(0, 0.8))
            if r == c:
                other = rng.choice([x for x in range(W) if x != c])
                msg = "RuntimeError: Detected mismatch between collectives on ranks. Rank %d is running collective: %s, but Rank %d is running collective: %s.Collectives differ in the following aspects: \t Op type: %svs %s\tTensor Tensor shapes: 1vs %d" % (
                    r, bad, other, good, cop, gop, nin)
            else:
                msg = "RuntimeError: Detected mismatch between collectives on ranks. Rank %d is running collective: %s, but Rank %d is running collective: %s.Collectives differ in the following aspects: \t Op type: %svs %s\tTensor Tensor shapes: %dvs 1" % (
                    r, good, c, bad, gop, cop, nin)
            myop = cop if r == c else gop
            if "ALLGATHER" in myop and (j.zero3 or j.ds):
                fr = j.frames("fwd") + model_leaf(j, "gather")
            else:
                call = {"ALLREDUCE": ("all_reduce", 2501, "work = group.allreduce([tensor], opts)"),
                        "BROADCAST": ("broadcast", 2421, "work = group.broadcast([tensor], opts)"),
                        "ALLGATHER": ("all_gather", 3335, "work = default_pg.allgather([tensor_list], [tensor])"),
                        "_ALLGATHER_BASE": ("all_gather_into_tensor", 3709, "work = group._allgather_base(output_tensor, input_tensor, opts)"),
                        "_REDUCE_SCATTER_BASE": ("reduce_scatter_tensor", 4233, "work = group._reduce_scatter_base(output, input, opts)")}[myop]
                fr = j.frames("fwd") + [(j.sp + "/torch/distributed/c10d_logger.py", 81, "wrapper", "return func(*args, **kwargs)"),
                                        (j.sp + "/torch/distributed/distributed_c10d.py", call[1], call[0], call[2])]
            fates[r] = dict(kind="crash", t=t, code=1, lines=fmt_tb(j, r, fr, [msg]))
        j.t_end = F["t_f"] + timedelta(seconds=30)
        return fates

    for (r, t, k, code, lines) in F["initial"]:
        fates[r] = dict(kind=k, t=t, code=code, lines=lines)

    if kind == "all_wd":
        base = F["t_f"] + TO
        if inf:
            te = user_end(F["t_f"])
            for r in range(W):
                fates[r] = dict(kind="user", t=te + timedelta(seconds=rng.uniform(0, 2)), code=-2, lines=[])
            j.t_end = te + timedelta(seconds=30)
            F["user_end"] = te
            return fates
        if F.get("variant") == "heartbeat":
            hb = rng.choice([480, 600])
            base = F["t_f"] + timedelta(seconds=hb)
            for r in range(W):
                t = base + timedelta(seconds=rng.uniform(0, 3))
                P = cpp_prefix(j, r, "E", t, node_of(j, r))
                lines = ["%sProcessGroupNCCL.cpp:%d] %s Heartbeat monitor timed out! Process will be terminated after dumping debug info. workMetaList_.size()=%d" % (
                            P, 1406 if j.tv < 206 else 1483, pg_tag(j, r), rng.randint(1, 4)),
                         "%sProcessGroupNCCL.cpp:%d] %s ProcessGroupNCCL's watchdog got stuck for %d seconds without making progress in monitoring enqueued collectives. This typically indicates a NCCL/CUDA API (e.g., CudaEventDestroy) hang blocking the watchdog, and could be triggered by another thread holding the GIL inside a CUDA api (for example, CudaEventDestroy), or other deadlock-prone behaviors.If you suspect the watchdog is not actually stuck and a longer timeout would help, you can either increase the timeout (TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC) to a larger value or disable the heartbeat monitor (TORCH_NCCL_ENABLE_MONITORING=0).If either of aforementioned helps, feel free to file an issue to PyTorch about the short timeout or false positive abort; otherwise, please attempt to debug the hang. " % (
                             cpp_prefix(j, r, "F", t, node_of(j, r)).replace("[F", "[F"), 1264 if j.tv < 206 else 1327, pg_tag(j, r), hb)]
                fates[r] = dict(kind="wd", t=t, code=-6, lines=lines)
        else:
            noff = [timedelta(seconds=rng.uniform(0.01, 1.5)) for _ in range(j.nn)]
            for r in range(W):
                t = base + noff[node_of(j, r)] + timedelta(seconds=rng.uniform(0, 0.35))
                fates[r] = wd(r, t, F["wd_override"].get(r))
        j.t_end = max(f["t"] for f in fates.values()) + timedelta(seconds=15)
        return fates

    if kind == "stall":
        c, ts = F["stall"]
        if inf:
            te = user_end(ts)
            F["user_end"] = te
            for r in range(W):
                fates[r] = dict(kind="user", t=te + timedelta(seconds=rng.uniform(0, 2)), code=-2, lines=[])
            j.t_end = te + timedelta(seconds=30)
            return fates
        noff = [timedelta(seconds=rng.uniform(0.2, 1.5)) for _ in range(j.nn)]
        for r in range(W):
            if r == c:
                continue
            t = ts + TO + noff[node_of(j, r)] + timedelta(seconds=rng.uniform(0, 0.35))
            fates[r] = wd(r, t)
        cn = node_of(j, c)
        tl = min(fates[r]["t"] for r in ranks_on(j, cn) if r != c)
        if j.launcher == "srun" and not j.kill_on_bad_exit:
            tlim = tl + timedelta(hours=rng.uniform(1, 12))
            F["t_limit"] = tlim
            fates[c] = dict(kind="sched", t=tlim, code=-15, lines=[])
        elif j.launcher == "srun":
            fates[c] = dict(kind="sched", t=tl + timedelta(seconds=rng.uniform(0.5, 2)), code=-15, lines=[])
        else:
            fates[c] = dict(kind="term", t=tl + mon(), code=-15, lines=[])
        j.t_end = max(f["t"] for f in fates.values()) + timedelta(seconds=20)
        return fates

    if kind == "preempt":
        tf = F["t_f"]
        if F["scope"] == "job":
            for r in range(W):
                fates[r] = dict(kind="sched", t=tf + timedelta(seconds=rng.uniform(0.2, 1.5)), code=-15, lines=[])
            j.t_end = tf + timedelta(seconds=35)
            return fates
        cn = F["cnode"]
        for r in ranks_on(j, cn):
            fates[r] = dict(kind="sched", t=tf + timedelta(seconds=rng.uniform(0.2, 1.5)), code=-15, lines=[])
        F.setdefault("net_peer_ip", j.ips[cn])

    # crash-like: same node -> terminated by the local launcher, other nodes cascade
    t0f = min(f["t"] for f in fates.values())
    first = {}
    for r, f in fates.items():
        n = node_of(j, r)
        first[n] = min(first.get(n, f["t"]), f["t"])
    kill_all = j.launcher == "srun" and j.kill_on_bad_exit
    no_agent = j.launcher == "srun" and not j.kill_on_bad_exit
    for n in sorted(first):
        for r in ranks_on(j, n):
            if r not in fates:
                if kill_all:
                    fates[r] = dict(kind="sched", t=t0f + timedelta(seconds=rng.uniform(0.5, 2)), code=-15, lines=[])
                elif no_agent:
                    if inf:
                        fates[r] = dict(kind="sched", t=F.setdefault("t_limit", t0f + timedelta(hours=rng.uniform(2, 20))), code=-15, lines=[])
                    else:
                        fates[r] = wd(r, F["t_f"] + TO + timedelta(seconds=rng.uniform(0.5, 6)))
                else:
                    fates[r] = dict(kind="term", t=first[n] + mon(), code=-15, lines=[])
    others = [n for n in range(j.nn) if n not in first]
    mode = F.get("cascade")
    if mode is None:
        mode = wchoice(rng, [("remote", 6), ("wd", 3)]) if not inf else wchoice(rng, [("remote", 7), ("hang", 3)])
    if mode == "wd" and inf:
        mode = "hang"
    F["cascade_used"] = mode
    failed_ips = [j.ips[n] for n in sorted(first)]
    order = others[:]
    rng.shuffle(order)
    for i, n in enumerate(order):
        rs = ranks_on(j, n)
        if kill_all:
            for r in rs:
                fates[r] = dict(kind="sched", t=t0f + timedelta(seconds=rng.uniform(0.5, 2)), code=-15, lines=[])
            continue
        if mode == "remote":
            t = t0f + timedelta(seconds=rng.uniform(1.5, 20) * (1 + 0.4 * i))
            nerr = rng.randint(1, min(3, len(rs)))
            errs = sorted(rng.sample(rs, nerr))
            for r in errs:
                tt = t + timedelta(seconds=rng.uniform(0, 1.2))
                peer = rng.choice(failed_ips)
                le = ib_completion(j, peer, j.ips[n]) if j.has_ib else socket_closed(j, peer)
                pre = [nccl_line(j, r, "WARN", le, fl="transport/net_ib.cc:1696" if j.has_ib else "misc/socket.cc:%d" % rng.choice([47, 538, 621]))] if j.nccl_debug else []
                fates[r] = dict(kind="remote", t=tt, code=-6, lines=pre + nccl_err_block(j, r, tt, le))
            tmin = min(fates[r]["t"] for r in errs)
            for r in rs:
                if r not in fates:
                    if no_agent:
                        fates[r] = wd(r, F["t_f"] + TO + timedelta(seconds=rng.uniform(0.5, 6))) if not inf else dict(
                            kind="sched", t=F.setdefault("t_limit", t0f + timedelta(hours=rng.uniform(2, 20))), code=-15, lines=[])
                    else:
                        fates[r] = dict(kind="term", t=tmin + mon(), code=-15, lines=[])
            failed_ips.append(j.ips[n])
        elif mode == "wd":
            no = timedelta(seconds=rng.uniform(0.5, 3))
            for r in rs:
                fates[r] = wd(r, F["t_f"] + TO + no + timedelta(seconds=rng.uniform(0, 0.35)))
        else:
            te = F.get("user_end") or user_end(t0f)
            F["user_end"] = te
            for r in rs:
                fates[r] = dict(kind="user", t=te + timedelta(seconds=rng.uniform(0, 2)), code=-2, lines=[])
    j.t_end = max(f["t"] for f in fates.values()) + timedelta(seconds=20)
    return fates


# ----------------------------------------------------------------- environment
KERNELS = ["5.15.0-105-generic #115-Ubuntu", "5.15.0-122-generic #132-Ubuntu", "6.8.0-51-generic #52~22.04.1-Ubuntu",
           "5.4.0-182-generic #202-Ubuntu", "4.18.0-513.24.1.el8_9.x86_64 #1", "5.14.0-427.13.1.el9_4.x86_64 #1"]
HW = {"sxm": ["NVIDIA DGXA100 920-23687-2530-000/DGXA100, BIOS 1.25 06/06/2023",
              "Supermicro SYS-821GE-TNHR/X13DEG-OAD, BIOS 2.1 12/05/2023",
              "Dell Inc. PowerEdge XE9680/0XX4CP, BIOS 2.2.5 04/25/2024",
              "Inspur NF5688M7/NF5688M7, BIOS 03.02.00 11/14/2023",
              "GIGABYTE G593-SD0-AAX1-000/MSB3-G40-000, BIOS F09 01/18/2024"],
      "pcie": ["ASUSTeK COMPUTER INC. Pro WS WRX80E-SAGE SE WIFI/Pro WS WRX80E-SAGE SE WIFI, BIOS 1201 03/29/2023",
               "Supermicro AS -4125GS-TNRT/H13DSG-O-CPU, BIOS 1.5 02/20/2024",
               "Lambda Labs Vector/WRX80 Creator R2.0, BIOS 1.4 09/12/2023"]}


def common_env(j, sp_opts, pname_opts=("python", "python3", "pt_main_thread")):
    rng = j.rng
    sp = rng.choice(sp_opts).format(py=j.py, user=j.user).replace("/home/root/", "/root/")
    j.sp = sp
    j.spbase = "dist-packages" if "dist-packages" in sp else "site-packages"
    if "/envs/" in sp or "conda" in sp or "venv" in sp or ".venv" in sp:
        root = sp.split("/lib/python")[0]
        j.pybin = root + "/bin/python"
        j.bindir = root + "/bin"
        j.pylib = root + "/lib/python" + j.py
    else:
        j.pybin = rng.choice(["/usr/bin/python", "/usr/bin/python3"])
        j.bindir = "/usr/local/bin"
        j.pylib = "/usr/lib/python" + j.py
    j.pname = rng.choice(list(pname_opts)) if j.tv >= 202 else rng.choice(["python", "python3"])
    j.kernel = rng.choice(KERNELS)
    j.hw_name = rng.choice(HW["sxm" if j.gpu["sxm"] else "pcie"])
    j.uid = 0 if j.user == "root" else rng.randint(1000, 60000)
    j.jobid = rng.randint(100000, 9999999)
    j.num_workers = rng.choice([0, 2, 4, 4, 8, 16])
    j.debug_detail = False
    j.dl_timeout = 0
    j.kill_on_bad_exit = False
    j.sched = None
    j.pid_tagged = False

    def memcg(r):
        if j.launcher == "srun" or j.sched == "slurm":
            a = "/slurm/uid_%d/job_%d" % (j.uid, j.jobid)
            return ("/slurm/uid_%d/job_%d/step_0" % (j.uid, j.jobid), a, a + "/step_0/task_%d" % (r % j.gpn if j.launcher == "srun" else 0))
        if j.scheme == "k8s":
            pod = "pod" + hx(rng, 8) + "-" + hx(rng, 4) + "-" + hx(rng, 4)
            a = "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-%s.slice" % pod
            return ("/", a, a + "/cri-containerd-%s.scope" % hx(rng, 64))
        a = "/system.slice/docker-%s.scope" % hx(rng, 64)
        return ("/", a, a)
    j.memcg = memcg


MODELS = [
    ("Qwen2.5-7B-Instruct", "qwen2", "Qwen2ForCausalLM", 7615616512, "qwen"),
    ("Qwen2.5-14B-Instruct", "qwen2", "Qwen2ForCausalLM", 14770033664, "qwen"),
    ("Qwen2.5-32B-Instruct", "qwen2", "Qwen2ForCausalLM", 32763876352, "qwen"),
    ("Qwen2.5-72B-Instruct", "qwen2", "Qwen2ForCausalLM", 72706203648, "qwen"),
    ("Meta-Llama-3.1-8B-Instruct", "llama", "LlamaForCausalLM", 8030261248, "llama3"),
    ("Meta-Llama-3.1-70B-Instruct", "llama", "LlamaForCausalLM", 70553706496, "llama3"),
    ("Mistral-7B-Instruct-v0.3", "mistral", "MistralForCausalLM", 7248023552, "mistral"),
    ("Qwen3-8B", "qwen3", "Qwen3ForCausalLM", 8190735360, "qwen3"),
    ("gemma-2-9b-it", "gemma2", "Gemma2ForCausalLM", 9241705984, "gemma"),
]


def pick_model(j, big_ok=True):
    rng = j.rng
    cands = [m for m in MODELS if big_ok or m[3] < 20e9]
    if j.world <= 4 and j.gpu["cap"] < 50:
        cands = [m for m in MODELS if m[3] < 10e9]
    m = rng.choice(cands)
    j.model_name, j.arch, j.model_cls, j.nparams, j.template = m
    j.model_file = j.sp + "/transformers/models/%s/modeling_%s.py" % (j.arch, j.arch)
    j.mline = rng.randint(820, 1190)
    j.model_dir = rng.choice(["/models", "/data/models", "/mnt/share/models", home(j) + "/models",
                              "/root/.cache/modelscope/hub", "/mnt/nfs/hf_models"]) + "/" + j.model_name
    return m


def set_train_shape(j, zero3):
    rng = j.rng
    j.zero3 = zero3
    j.T = rng.choice([300, 480, 609, 873, 1000, 1250, 1560, 2000, 2400, 3132])
    j.dt = rng.uniform(2.5, 38) * (1.0 if j.nparams < 20e9 else 2.0)
    j.save_every = rng.choice([100, 200, 250, 500, 0]) if j.T >= 400 else 0
    if j.save_every and j.save_every >= j.T:
        j.save_every = 0
    j.save_s = rng.uniform(40, 420) if j.zero3 else rng.uniform(15, 120)
    j.log_every = rng.choice([1, 5, 10, 10, 20])
    j.start_step = 0
    if j.T > 1200 and rng.random() < 0.45:
        j.start_step = rng.choice([k for k in range(200, j.T // 2, 100)] or [0])
    j.cps = rng.randint(60, 900) if zero3 else rng.randint(8, 60)
    j.seq0 = rng.randint(3, 400)
    j.coll_ops = ["_ALLGATHER_BASE", "_ALLGATHER_BASE", "_REDUCE_SCATTER_BASE", "ALLREDUCE"] if zero3 else ["ALLREDUCE"]


def loss_at(j, k):
    r = random.Random("%s:%s:loss:%d" % (j.seed, j.i, k))
    x = k / max(1, j.T)
    return max(0.05, j.loss0 * (0.45 + 0.55 * pow(2.718, -4 * x)) + r.uniform(-0.08, 0.08))


def lr_at(j, k):
    w = max(1, int(j.T * 0.03))
    if k < w:
        return j.lr * k / w
    import math
    return j.lr * 0.5 * (1 + math.cos(math.pi * (k - w) / max(1, j.T - w)))


def gn_at(j, k):
    r = random.Random("%s:%s:gn:%d" % (j.seed, j.i, k))
    return r.uniform(0.3, 4.5) if r.random() < 0.97 else r.uniform(8, 60)


def last_step_before(j, t):
    k = j.start_step
    for kk in range(j.start_step + 1, j.T + 1):
        if j.step_t[kk] <= t:
            k = kk
        else:
            break
    return k


# ----------------------------------------------------------------- torchrun agent text
def tr_log(j, node, t, level, path, line, msg, logger):
    lt = loc(j, t, node)
    if j.tv >= 204:
        return "%s %s" % (f_pyglog(level, lt, j.agent_pid[node], "%s/torch/distributed/%s" % (j.spbase, path), line), msg)
    return "[%s] %s: [%s] %s" % (f_hf(lt), logger, {"W": "WARNING", "E": "ERROR", "I": "INFO"}[level], msg)


def tr_banner(j, node, t):
    ln = {203: 757, 204: 793, 205: 793, 206: 792, 207: 766, 208: 774}.get(j.tv, 757)
    out = []
    for msg in ["", "*****************************************",
                "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. ",
                "*****************************************"]:
        out.append(tr_log(j, node, t, "W", "run.py", ln, msg, "torch.distributed.run"))
    return out


API_LN = {201: (737, 705), 202: (835, 803), 203: (835, 803), 204: (858, 833), 205: (897, 869), 206: (897, 869),
          207: (900, 874), 208: (908, 882)}


def sig_desc(code, pid):
    if code < 0:
        return "Signal %d (%s) received by PID %d" % (-code, SIGNAME.get(-code, "SIG%d" % -code), pid)
    return "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"


def elastic_table(j, node, t, name, entries):
    lt = loc(j, t, node).strftime("%Y-%m-%d_%H:%M:%S")
    host = j.fqdn[node]
    out = ["torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
           "============================================================",
           "%s FAILED" % name,
           "------------------------------------------------------------",
           "Failures:"]
    def ent(i, r, code):
        return ["[%d]:" % i, "  time      : %s" % lt, "  host      : %s" % host,
                "  rank      : %d (local_rank: %d)" % (r, lrank(j, r)),
                "  exitcode  : %d (pid: %d)" % (code, j.pid[r]),
                "  error_file: <N/A>", "  traceback : %s" % sig_desc(code, j.pid[r])]
    if len(entries) > 1:
        for i, (r, code) in enumerate(entries[1:]):
            out += ent(i + 1, r, code)
    else:
        out.append("  <NO_OTHER_FAILURES>")
    out.append("------------------------------------------------------------")
    out.append("Root Cause (first observed failure):")
    out += ent(0, entries[0][0], entries[0][1])
    out.append("============================================================")
    return out


def elastic_tb(j, head):
    sp = j.sp
    ln = {201: (346, 806, 797), 202: (347, 812, 803), 203: (347, 883, 879), 204: (348, 901, 892),
          205: (355, 919, 910), 206: (355, 918, 909), 207: (355, 892, 883), 208: (357, 946, 937)}[j.tv]
    out = ["Traceback (most recent call last):"]
    if head == "torchrun":
        out += ['  File "%s/torchrun", line 8, in <module>' % j.bindir, "    sys.exit(main())"]
        out += ['  File "%s/torch/distributed/elastic/multiprocessing/errors/__init__.py", line %d, in wrapper' % (sp, ln[0]), "    return f(*args, **kwargs)",
                '  File "%s/torch/distributed/run.py", line %d, in main' % (sp, ln[1]), "    run(args)"]
    elif head == "module":
        out += ['  File "<frozen runpy>", line 198, in _run_module_as_main', '  File "<frozen runpy>", line 88, in _run_code',
                '  File "%s/torch/distributed/run.py", line %d, in <module>' % (sp, ln[1] + 4), "    main()",
                '  File "%s/torch/distributed/elastic/multiprocessing/errors/__init__.py", line %d, in wrapper' % (sp, ln[0]), "    return f(*args, **kwargs)",
                '  File "%s/torch/distributed/run.py", line %d, in main' % (sp, ln[1]), "    run(args)"]
    elif head == "accelerate":
        out += ['  File "%s/accelerate", line 8, in <module>' % j.bindir, "    sys.exit(main())",
                '  File "%s/accelerate/commands/accelerate_cli.py", line 48, in main' % sp, "    args.func(args)",
                '  File "%s/accelerate/commands/launch.py", line %d, in launch_command' % (sp, j.rng.choice([1159, 1182, 1204])),
                "    %s(args)" % ("deepspeed_launcher" if j.zero3 else "multi_gpu_launcher"),
                '  File "%s/accelerate/commands/launch.py", line %d, in %s' % (sp, j.rng.choice([852, 809, 793]), "deepspeed_launcher" if j.zero3 else "multi_gpu_launcher"),
                "    distrib_run.run(args)"]
    elif head == "tune":
        out += ['  File "%s/tune", line 8, in <module>' % j.bindir, "    sys.exit(main())",
                '  File "%s/torchtune/_cli/tune.py", line 52, in main' % sp, "    parser.run(args)",
                '  File "%s/torchtune/_cli/tune.py", line 46, in run' % sp, "    args.func(args)",
                '  File "%s/torchtune/_cli/run.py", line 212, in _run_cmd' % sp, "    self._run_distributed(args, is_builtin=is_builtin)",
                '  File "%s/torch/distributed/elastic/multiprocessing/errors/__init__.py", line %d, in wrapper' % (sp, ln[0]), "    return f(*args, **kwargs)",
                '  File "%s/torchtune/_cli/run.py", line 101, in _run_distributed' % sp, "    run(args)"]
    out += ['  File "%s/torch/distributed/run.py", line %d, in run' % (sp, ln[2]), "    elastic_launch(",
            '  File "%s/torch/distributed/launcher/api.py", line 138, in __call__' % sp,
            "    return launch_agent(self._config, self._entrypoint, list(args))",
            '  File "%s/torch/distributed/launcher/api.py", line %d, in launch_agent' % (sp, 269 if j.tv >= 204 else 264),
            "    raise ChildFailedError("]
    return out


def elastic_sigexc_tb(j, head, node, sig):
    sp = j.sp
    out = elastic_tb(j, head)[:-2]
    out += ['  File "%s/torch/distributed/launcher/api.py", line %d, in launch_agent' % (sp, 260 if j.tv >= 204 else 255),
            "    result = agent.run()",
            '  File "%s/torch/distributed/elastic/metrics/api.py", line 137, in wrapper' % sp,
            "    result = f(*args, **kwargs)",
            '  File "%s/torch/distributed/elastic/agent/server/api.py", line %d, in run' % (sp, 696 if j.tv >= 204 else 727),
            "    result = self._invoke_run(role)",
            '  File "%s/torch/distributed/elastic/agent/server/api.py", line %d, in _invoke_run' % (sp, 855 if j.tv >= 204 else 868),
            "    time.sleep(monitor_interval)",
            '  File "%s/torch/distributed/elastic/multiprocessing/api.py", line %d, in _terminate_process_handler' % (sp, 84 if j.tv >= 204 else 62),
            '    raise SignalException(f"Process {os.getpid()} got signal: {sigval}", sigval=sigval)',
            "torch.distributed.elastic.multiprocessing.api.SignalException: Process %d got signal: %d" % (j.agent_pid[node], sig)]
    return out


def torchrun_end(j, F, fates, node, name, head):
    """Agent output on one node after its workers end. Returns [(t, line)]."""
    rng = j.rng
    rs = ranks_on(j, node)
    ln = API_LN[j.tv]
    out = []
    kinds = [fates[r]["kind"] for r in rs]
    if all(k == "ok" for k in kinds):
        return out
    if any(k == "sched" for k in kinds) or any(k == "user" for k in kinds):
        sig = 15 if any(k == "sched" for k in kinds) else 2
        t = min(fates[r]["t"] for r in rs) - timedelta(seconds=0.2)
        sname = "SIGTERM" if sig == 15 else "SIGINT"
        out.append((t, tr_log(j, node, t, "W", "elastic/agent/server/api.py", 704 if j.tv >= 204 else 735,
                              "Received Signals.%s death signal, shutting down workers" % sname, "torch.distributed.elastic.agent.server.api")))
        for r in rs:
            out.append((t + timedelta(milliseconds=5), tr_log(j, node, t, "W", "elastic/multiprocessing/api.py", ln[0],
                                                              "Sending process %d closing signal %s" % (j.pid[r], sname), "torch.distributed.elastic.multiprocessing.api")))
        t2 = t + timedelta(seconds=rng.uniform(0.5, 3))
        for x in elastic_sigexc_tb(j, head, node, sig):
            out.append((t2, x))
        return out
    failed = sorted([r for r in rs if fates[r]["kind"] not in ("term", "ok")], key=lambda r: fates[r]["t"])
    if not failed:
        return out
    t1 = fates[failed[0]]["t"]
    tn = j.t_kill.get(node, t1 + timedelta(seconds=rng.uniform(0.1, 4.9)))
    caught = [r for r in failed if fates[r]["t"] <= tn]
    alive = [r for r in rs if r not in caught]
    for r in alive:
        out.append((tn, tr_log(j, node, tn, "W", "elastic/multiprocessing/api.py", ln[0],
                               "Sending process %d closing signal SIGTERM" % j.pid[r], "torch.distributed.elastic.multiprocessing.api")))
    t2 = tn + timedelta(seconds=rng.uniform(0.5, 9))
    r0 = caught[0]
    out.append((t2, tr_log(j, node, t2, "E", "elastic/multiprocessing/api.py", ln[1],
                           "failed (exitcode: %d) local_rank: %d (pid: %d) of binary: %s" % (fates[r0]["code"], lrank(j, r0), j.pid[r0], j.pybin),
                           "torch.distributed.elastic.multiprocessing.api")))
    for x in elastic_tb(j, head) + elastic_table(j, node, t2, name, [(r, fates[r]["code"]) for r in caught]):
        out.append((t2 + timedelta(milliseconds=50), x))
    return out


def user_kb_lines(j, r, mid="fwd"):
    fr = j.frames(mid)[:5]
    return fmt_tb(j, r, fr, ["KeyboardInterrupt"])


def rank_end_lines(j, r, f):
    if f["kind"] in ("crash", "wd", "remote"):
        return f["lines"]
    if f["kind"] == "user" and j.rng.random() < 0.35:
        return user_kb_lines(j, r)
    return []


def add_rank_ends(j, S, fates, rs, interleave=True):
    """Emit end-of-life output of ranks; simultaneous blocks sometimes interleave."""
    rng = j.rng
    for r in rs:
        f = fates[r]
        lines = rank_end_lines(j, r, f)
        t = f["t"]
        off = 0
        for k, x in enumerate(lines):
            off += rng.randint(5, 400) if interleave else 1
            S.add(t + timedelta(microseconds=off), x)


# ----------------------------------------------------------------- HF Trainer stacks
TF_LINES = {  # transformers version -> line numbers used in tracebacks
    "4.45.2": dict(train=2052, inner=2388, ts=3485, cl=3532, bwd=3533, fw=3532, save=3050, sck=3147, sos=3242, gbs=0, opt=2438, nxt=2346),
    "4.46.1": dict(train=2123, inner=2481, ts=3579, cl=3633, bwd=3623, fw=3633, save=3097, sck=3202, sos=3300, gbs=5045, opt=2531, nxt=2436),
    "4.49.0": dict(train=2241, inner=2548, ts=3698, cl=3759, bwd=3740, fw=3759, save=3096, sck=3193, sos=3317, gbs=5217, opt=2600, nxt=2506),
    "4.51.3": dict(train=2245, inner=2556, ts=3745, cl=3810, bwd=3782, fw=3810, save=3103, sck=3200, sos=3327, gbs=5287, opt=2610, nxt=2513),
    "4.55.2": dict(train=2238, inner=2582, ts=3796, cl=3884, bwd=3837, fw=3884, save=3148, sck=3245, sos=3372, gbs=5387, opt=2635, nxt=2535),
}


def hf_frames(j, mid, entry, cl=None):
    sp = j.sp
    T = sp + "/transformers/trainer.py"
    L = TF_LINES[j.tf]
    mc = modcall(j)
    F = list(entry)
    F.append((T, L["train"], "train", "return inner_training_loop("))
    if mid == "data":
        if L["gbs"]:
            F.append((T, L["nxt"], "_inner_training_loop", "batch_samples, num_items_in_batch = self.get_batch_samples(epoch_iterator, num_batches, args.device)" if j.tf >= "4.51" else "batch_samples, num_items_in_batch = self.get_batch_samples(epoch_iterator, num_batches)"))
            F.append((T, L["gbs"], "get_batch_samples", "batch_samples.append(next(epoch_iterator))" if j.tf >= "4.51" else "batch_samples += [next(epoch_iterator)]"))
        else:
            F.append((T, L["nxt"], "_inner_training_loop", "for step, inputs in enumerate(epoch_iterator):"))
        F.append((sp + "/accelerate/data_loader.py", j.rng.choice([552, 561, 566]), "__iter__", "next_batch = next(dataloader_iter)"))
        return F + torch_dl(j, "exited")
    if mid == "save":
        F.append((T, L["inner"] + 80, "_inner_training_loop", "self._maybe_log_save_evaluate("))
        F.append((T, L["save"], "_maybe_log_save_evaluate", "self._save_checkpoint(model, trial)"))
        F.append((T, L["sck"], "_save_checkpoint", "self._save_optimizer_and_scheduler(output_dir)"))
        if j.zero3 or j.ds:
            F.append((T, L["sos"], "_save_optimizer_and_scheduler", "self.model_wrapped.save_checkpoint(output_dir)"))
            F.append((sp + "/deepspeed/runtime/engine.py", 3226, "save_checkpoint", "self._save_zero_checkpoint(save_dir, tag)"))
            F.append((sp + "/deepspeed/runtime/engine.py", 3573, "_save_zero_checkpoint", "self.checkpoint_engine.save(zero_sd, zero_checkpoint_name)"))
            F.append((sp + "/deepspeed/runtime/checkpoint_engine/torch_checkpoint_engine.py", 22, "save", "torch.save(state_dict, path)"))
        else:
            F.append((T, L["sos"] + 12, "_save_optimizer_and_scheduler", "torch.save(self.optimizer.state_dict(), os.path.join(output_dir, OPTIMIZER_NAME))"))
        F.append((sp + "/torch/serialization.py", 944 if j.tv >= 205 else 850, "save", "with _open_zipfile_writer(f) as opened_zipfile:"))
        F.append((sp + "/torch/serialization.py", 784 if j.tv >= 205 else 690, "__exit__", "self.file_like.write_end_of_file()"))
        return F
    if mid == "opt":
        F.append((T, L["opt"], "_inner_training_loop", "self.optimizer.step()"))
        F.append((sp + "/accelerate/optimizer.py", 178, "step", "self.optimizer.step(closure)"))
        return F
    F.append((T, L["inner"], "_inner_training_loop", "tr_loss_step = self.training_step(model, inputs, num_items_in_batch)"))
    if mid == "bwd":
        F.append((T, L["bwd"] - 40 if L["bwd"] < L["cl"] else L["bwd"], "training_step", "self.accelerator.backward(loss, **kwargs)"))
        if j.ds:
            F.append((sp + "/accelerate/accelerator.py", 2446, "backward", "self.deepspeed_engine_wrapped.backward(loss, **kwargs)"))
            F.append((sp + "/accelerate/utils/deepspeed.py", 266, "backward", "self.engine.backward(loss, **kwargs)"))
            F.append((sp + "/deepspeed/utils/nvtx.py", 18, "wrapped_fn", "ret_val = func(*args, **kwargs)"))
            F.append((sp + "/deepspeed/runtime/engine.py", 2213, "backward", "self._do_optimizer_backward(loss, retain_graph)"))
            F.append((sp + "/deepspeed/runtime/engine.py", 2159, "_do_optimizer_backward", "self.optimizer.backward(loss, retain_graph=retain_graph)"))
            if j.zero3:
                F.append((sp + "/deepspeed/utils/nvtx.py", 18, "wrapped_fn", "ret_val = func(*args, **kwargs)"))
                F.append((sp + "/deepspeed/runtime/zero/stage3.py", 2263, "backward", "self.loss_scaler.backward(loss.float(), retain_graph=retain_graph)"))
            else:
                F.append((sp + "/deepspeed/runtime/zero/stage_1_and_2.py", 2066, "backward", "self.loss_scaler.backward(loss.float(), retain_graph=retain_graph)"))
            F.append((sp + "/deepspeed/runtime/fp16/loss_scaler.py", 63, "backward", "scaled_loss.backward(retain_graph=retain_graph)"))
        else:
            F.append((sp + "/accelerate/accelerator.py", 2454, "backward", "loss.backward(**kwargs)"))
        return F + torch_bwd(j)
    F.append((T, L["ts"], "training_step", "loss = self.compute_loss(model, inputs, num_items_in_batch=num_items_in_batch)"))
    if cl:
        F.append(cl)
    F.append((T, L["fw"], "compute_loss", "outputs = model(**inputs)"))
    F += mc
    if j.ds:
        F += [(sp + "/deepspeed/utils/nvtx.py", 18, "wrapped_fn", "ret_val = func(*args, **kwargs)"),
              (sp + "/deepspeed/runtime/engine.py", 1914 if j.zero3 else 1899, "forward", "loss = self.module(*inputs, **kwargs)")] + mc
    elif j.world > 1:
        F += [(sp + "/torch/nn/parallel/distributed.py", 1643, "forward", "else self._run_ddp_forward(*inputs, **kwargs)"),
              (sp + "/torch/nn/parallel/distributed.py", 1459, "_run_ddp_forward", "return self.module(*inputs, **kwargs)  # type: ignore[index]")] + mc
    return F


def hf_loss_dict(j, k, swift=False, elapsed=0):
    d = "{'loss': %.4f, 'grad_norm': %r, 'learning_rate': %r, 'epoch': %.2f}" % (
        loss_at(j, k), gn_at(j, k), lr_at(j, k), k / j.T * j.epochs)
    if not swift:
        return d
    mem = j.gpu["cap"] * j.rng.uniform(0.6, 0.9)
    rem = (j.T - k) * j.dt
    return "{'loss': %.8f, 'token_acc': %.8f, 'grad_norm': %.8f, 'learning_rate': %.2e, 'memory(GiB)': %.2f, 'train_speed(iter/s)': %.6f, 'epoch': %.2f, 'global_step/max_steps': '%d/%d', 'percentage': '%.2f%%', 'elapsed_time': '%s', 'remaining_time': '%s'}" % (
        loss_at(j, k), j.rng.uniform(0.55, 0.85), gn_at(j, k), lr_at(j, k), mem, 1.0 / j.dt, k / j.T * j.epochs, k, j.T,
        100.0 * k / j.T, f_dur_words(elapsed), f_dur_words(rem))


def hf_progress(j, node, S, upto, log_line, desc="", swift=False, save_hook=None, bars=True, straggler_hook=None):
    rng = j.rng
    t_bar0 = j.step_t[j.start_step]
    if bars:
        S.add(t_bar0 + timedelta(seconds=0.5), tqdm_bar(j.start_step, j.T, 0, j.dt, desc=desc), "bar")
    hist = []
    for k in range(j.start_step + 1, upto + 1):
        t = j.step_t[k]
        d = (t - j.step_t[k - 1]).total_seconds()
        hist.append(d)
        hist = hist[-8:]
        rate = sum(hist) / len(hist)
        el = (t - t_bar0).total_seconds()
        if bars:
            S.add(t, tqdm_bar(k, j.T, el, rate, desc=desc), "bar")
        if k % j.log_every == 0:
            S.add(t + timedelta(milliseconds=3), log_line(k, el))
        if straggler_hook:
            straggler_hook(k, t)
        if save_hook and j.save_every and k % j.save_every == 0 and k < j.T:
            save_hook(k, t)


def ds_save_lines(j, node, k, t, out_dir, fmt, stop_rank=None):
    """DeepSpeed ZeRO checkpoint lines printed by the ranks of one node."""
    rng = j.rng
    tag = "global_step%d" % k
    base = "%s/checkpoint-%d/%s" % (out_dir, k, tag)
    out = []
    t0 = t + timedelta(seconds=rng.uniform(1, 6))
    if node == 0:
        out.append((t0, fmt(t0) + " [INFO] [logging.py:128:log_dist] [Rank 0] [Torch] Checkpoint %s is about to be saved!" % tag))
    span = j.save_s * 0.8
    for r in ranks_on(j, node):
        if r == stop_rank:
            ts = t0 + timedelta(seconds=rng.uniform(0.5, 3))
            out.append((ts, fmt(ts) + " [INFO] [torch_checkpoint_engine.py:21:save] [Torch] Saving %s/bf16_zero_pp_rank_%d_mp_rank_00_optim_states.pt..." % (base, r)))
            continue
        if r == 0:
            ts = t0 + timedelta(seconds=0.2)
            out.append((ts, fmt(ts) + " [INFO] [logging.py:128:log_dist] [Rank 0] Saving model checkpoint: %s/zero_pp_rank_0_mp_rank_00_model_states.pt" % base))
            out.append((ts, fmt(ts) + " [INFO] [torch_checkpoint_engine.py:21:save] [Torch] Saving %s/zero_pp_rank_0_mp_rank_00_model_states.pt..." % base))
            out.append((ts + timedelta(seconds=0.8), fmt(ts + timedelta(seconds=0.8)) + " [INFO] [torch_checkpoint_engine.py:23:save] [Torch] Saved %s/zero_pp_rank_0_mp_rank_00_model_states.pt." % base))
        ts = t0 + timedelta(seconds=rng.uniform(1, 4))
        out.append((ts, fmt(ts) + " [INFO] [torch_checkpoint_engine.py:21:save] [Torch] Saving %s/bf16_zero_pp_rank_%d_mp_rank_00_optim_states.pt..." % (base, r)))
        te = ts + timedelta(seconds=rng.uniform(span * 0.4, span))
        out.append((te, fmt(te) + " [INFO] [torch_checkpoint_engine.py:23:save] [Torch] Saved %s/bf16_zero_pp_rank_%d_mp_rank_00_optim_states.pt." % (base, r)))
        out.append((te, fmt(te) + " [INFO] [engine.py:3645:_save_zero_checkpoint] zero checkpoint saved %s/bf16_zero_pp_rank_%d_mp_rank_00_optim_states.pt" % (base, r)))
        out.append((te, fmt(te) + " [INFO] [torch_checkpoint_engine.py:33:commit] [Torch] Checkpoint %s is ready now!" % tag))
    return out


def ds_cache_flush(j, t, fmt, n=1):
    return fmt(t) + " [WARNING] [stage3.py:2118:step] %d pytorch allocator cache flushes since last step. this happens when there is high memory pressure and is detrimental to performance. if this is happening frequently consider adjusting settings to reduce memory consumption. If you are unable to make the cache flushes go away consider adding get_accelerator().empty_cache() calls in your training loop to ensure that all ranks flush their caches at the same time" % n


def barrier_warn(j, r, t):
    if j.tv < 205:
        return None
    node = node_of(j, r)
    return "%sProcessGroupNCCL.cpp:%d] %s  using GPU %d to perform barrier as devices used by this process are currently unknown. This can potentially cause a hang if this rank to GPU mapping is incorrect. Specify device_ids in barrier() to force use of a particular device, or call init_process_group() with a device_id." % (
        cpp_prefix(j, r, "W", t, node), 4561 if j.tv == 205 else 4631, "[PG ID 0 PG GUID 0 Rank %d]" % r, lrank(j, r))


def destroy_warn(j, r, t):
    if j.tv < 204:
        return None
    return "%sProcessGroupNCCL.cpp:%d] Warning: WARNING: process group has NOT been destroyed before we destruct ProcessGroupNCCL. On normal program exit, the application should call destroy_process_group to ensure that any pending NCCL operations have finished in this process. In rare cases this process can exit before this point and block the progress of another member of the process group. This constraint has always been present,  but this warning has only been added since PyTorch 2.4 (function operator())" % (
        cpp_prefix(j, r, "W", t, node_of(j, r)), 1250 if j.tv < 206 else 1496)


def reentrant_warn(j):
    return ["%s/torch/utils/checkpoint.py:%d: UserWarning: torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. In version 2.5 we will raise an exception if use_reentrant is not passed. use_reentrant=False is recommended, but if you need to preserve the current default behavior, you can pass use_reentrant=True. Refer to docs for more details on the differences between the two variants." % (j.sp, 295 if j.tv >= 204 else 429),
            "  return fn(*args, **kwargs)"]


WANDB_HEAD = ["wandb: Currently logged in as: {u}. Use `wandb login --relogin` to force relogin",
              "wandb: Tracking run with wandb version {v}",
              "wandb: Run data is saved locally in {d}/wandb/run-{ts}-{id}",
              "wandb: Run `wandb offline` to turn off syncing.",
              "wandb: Syncing run {name}",
              "wandb: ⭐️ View project at https://wandb.ai/{u}/{proj}",
              "wandb: 🚀 View run at https://wandb.ai/{u}/{proj}/runs/{id}"]


def wandb_head(j, t, wd):
    rng = j.rng
    j.wandb_id = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(8))
    j.wandb_name = rng.choice(["sft-", "ft-", "run-", ""]) + j.model_name.lower()[:12].strip("-.") + "-%d" % rng.randint(1, 40)
    v = dict(u=j.user if j.user != "root" else "ml-team", v=rng.choice(["0.17.5", "0.18.7", "0.19.1", "0.19.8"]),
             d=wd, ts=loc(j, t, 0).strftime("%Y%m%d_%H%M%S"), id=j.wandb_id, name=j.wandb_name, proj=rng.choice(["sft", "llm-ft", "finetune", "qwen-sft"]))
    return [x.format(**v) for x in WANDB_HEAD]


def wandb_tail(j, ok):
    return ["wandb: 🚀 View run %s at: https://wandb.ai/%s/runs/%s" % (j.wandb_name, j.user, j.wandb_id),
            "wandb: Find logs at: wandb/run-%s/logs" % j.wandb_id]


# ----------------------------------------------------------------- generic torchrun node console
def torchrun_console(j, F, fates, node, st):
    return torchrun_stream(j, F, fates, node, st).render()


def merge_streams(streams, bar_mode):
    M = Stream(bar_mode)
    for S in streams:
        for t, n, kind, text in S.items:
            M.n += 1
            M.items.append((t, M.n, kind, text))
    return M


def torchrun_stream(j, F, fates, node, st):
    rng = j.rng
    S = Stream(j.bar_mode)
    for t, x in st["cmd"](j, node):
        S.add(t, x)
    tb = j.t0 + timedelta(seconds=rng.uniform(1.5, 4))
    if j.gpn > 1:
        for x in tr_banner(j, node, tb):
            S.add(tb, x)
    if node > 0 and rng.random() < 0.5:
        tt = tb + timedelta(seconds=0.3)
        if j.tv >= 204:
            S.add(tt, "[W%d%02d %s.%06d%03d socket.cpp:752] [c10d] The client socket has failed to connect to [%s]:%d (errno: 111 - Connection refused)." % (
                loc(j, tt, node).month, loc(j, tt, node).day, loc(j, tt, node).strftime("%H:%M:%S"), rng.randint(0, 999999), rng.randint(0, 999), j.hosts[0], j.port))
        else:
            S.add(tt, "[W socket.cpp:663] [c10d] The client socket has failed to connect to [%s]:%d (errno: 111 - Connection refused)." % (j.hosts[0], j.port))
    for r in ranks_on(j, node):
        for t, x in st["rank_init"](j, r):
            S.add(t, x)
    if j.nccl_debug == "INFO":
        tn = j.t0 + timedelta(seconds=j.init_s * rng.uniform(0.25, 0.5))
        for r in ranks_on(j, node):
            for k, x in enumerate(nccl_init_lines(j, r)):
                S.add(tn + timedelta(milliseconds=k * 7 + rng.randint(0, 60)), x)
    for t, x in st["main_init"](j, node):
        S.add(t, x)
    upto = j.upto
    st["progress"](j, node, S, upto)
    for r in ranks_on(j, node):
        for t, x in F["pre"].get(r, []):
            S.add(t, x)
    for t, x in j.node_noise.get(node, []):
        if t < j.t_end:
            S.add(t, x)
    add_rank_ends(j, S, fates, ranks_on(j, node))
    for t, x in torchrun_end(j, F, fates, node, st["name"], st["head"]):
        S.add(t, x)
    if all(fates[r]["kind"] == "ok" for r in ranks_on(j, node)):
        for t, x in st["finish"](j, node):
            S.add(t, x)
    for t, x in st.get("tail", lambda j, n: [])(j, node):
        S.add(t, x)
    return S


def sys_noise(j, F):
    """Benign noise lines sprinkled into node consoles (decoys)."""
    rng = j.rng
    out = {}
    for n in range(j.nn):
        L = []
        if j.nccl_debug and j.has_ib and rng.random() < 0.35:
            r = n * j.gpn + rng.randrange(j.gpn)
            t = j.t_train0 + timedelta(seconds=rng.uniform(60, 3000))
            msg = ("NET/IB : %s:1 Got async event : GID table change" % j.hca[lrank(j, r)]) if j.nv >= 22000 else "NET/IB : Got async event : GID table change"
            L.append((t, nccl_line(j, r, "WARN", msg, fl="transport/net_ib.cc:%d" % rng.choice([141, 126]))))
            j.decoys.append("benign NCCL WARN 'GID table change'")
        if rng.random() < 0.25:
            t = j.t_train0 + timedelta(seconds=rng.uniform(30, 2000))
            L.append((t, "wandb: Network error (%s), entering retry loop." % rng.choice(["ReadTimeout", "ConnectionError", "TransientError"])))
        if rng.random() < (0.35 if j.cause is None else 0.12):
            # a handled exception: logged with its traceback, training goes on
            t = j.t_train0 + timedelta(seconds=rng.uniform(60, max(120, (j.step_t[j.T] - j.t_train0).total_seconds() * 0.5)))
            sidx = rng.randint(1000, 900000)
            src = rng.choice(["/data/sft/part-%05d.jsonl" % rng.randint(0, 99), "/mnt/data/mm_sft/train.jsonl"])
            kind = rng.choice(["json", "img"])
            L.append((t, "WARNING: skipping sample %d from %s after error:" % (sidx, src)))
            L.append((t, "Traceback (most recent call last):"))
            L.append((t, '  File "%s", line %d, in __getitem__' % (j.ds_frames[-1][0], j.ds_frames[-1][1])))
            if kind == "json":
                L.append((t, "    ex = json.loads(line)"))
                L.append((t, '  File "%s/json/__init__.py", line 346, in loads' % j.pylib))
                L.append((t, "    return _default_decoder.decode(s)"))
                L.append((t, "json.decoder.JSONDecodeError: Expecting ',' delimiter: line 1 column %d (char %d)" % (sidx % 4000 + 2, sidx % 4000 + 1)))
            else:
                L.append((t, "    image = Image.open(path).convert(\"RGB\")"))
                L.append((t, '  File "%s/PIL/Image.py", line 3498, in open' % j.sp))
                L.append((t, "    raise UnidentifiedImageError(msg)"))
                L.append((t, "PIL.UnidentifiedImageError: cannot identify image file '/data/images/%08d.jpg'" % sidx))
            j.decoys.append("handled data exception (sample skipped) on %s" % j.hosts[n])
        out[n] = L
    return out


# ================================================================= layout: LLaMA-Factory
def lmf_log(j, t, node, level, mod, line, msg):
    lt = loc(j, t, node)
    if j.lmf_new:
        return "[%s|%s] %s:%d >> %s" % (level, lt.strftime("%Y-%m-%d %H:%M:%S"), mod, line, msg)
    return "%s - %s - %s - %s" % (lt.strftime("%m/%d/%Y %H:%M:%S"), level, mod, msg)


def hf_log(j, t, node, level, fl, line, msg):
    return "[%s|%s:%d] %s >> %s" % (level, fl, line, f_hf(loc(j, t, node)), msg)


def setup_lmf(j):
    rng = j.rng
    base_setup(j, ["2.3.1", "2.4.1", "2.5.1", "2.6.0", "2.7.1"], [(1, 10), (2, 6), (4, 3), (8, 1)],
               [(2, 2), (4, 3), (8, 6)], [("A100", 3), ("H100", 2), ("H800", 2), ("A800", 2), ("H20", 2), ("4090", 1), ("L40S", 1)],
               [("hpc", 4), ("docker", 3), ("aws", 1), ("lab", 1)])
    j.launcher = "torchrun"
    common_env(j, ["/root/miniconda3/envs/llama_factory/lib/python{py}/site-packages", "/opt/conda/lib/python{py}/site-packages",
                   "/usr/local/lib/python{py}/dist-packages", "/home/{user}/.conda/envs/lf/lib/python{py}/site-packages",
                   "/home/{user}/LLaMA-Factory/.venv/lib/python{py}/site-packages"])
    net_setup(j)
    j.sched = "slurm" if j.scheme == "hpc" and rng.random() < 0.4 else None
    pick_model(j)
    j.ds = rng.random() < 0.7 or j.nparams > 20e9
    set_train_shape(j, j.ds and rng.random() < 0.75)
    j.tf = rng.choice(["4.45.2", "4.46.1", "4.49.0", "4.51.3", "4.55.2"])
    j.lmf_new = j.tv >= 204
    j.root = rng.choice(["/root/LLaMA-Factory", "/workspace/LLaMA-Factory", home(j) + "/LLaMA-Factory", "/app"])
    j.timeout_s = rng.choice([180000000, 180000000, 1800, 1800, 7200, 3600])
    j.timeout_ms = j.timeout_s * 1000
    j.port = rng.choice([29500, 29501, 23456, 29510])
    j.epochs = rng.choice([1.0, 2.0, 3.0])
    j.loss0 = rng.uniform(1.2, 2.4)
    j.lr = rng.choice([1e-5, 2e-5, 5e-6, 1e-4])
    j.stage = "sft"
    j.yaml = "examples/train_%s/%s_%s_sft.yaml" % ("full" if rng.random() < 0.6 else "lora", j.template, "full")
    j.out_dir = "saves/%s/%s/sft" % (j.model_name.lower(), "full")
    j.out_root = j.root + "/saves"
    j.dataset = rng.choice(["alpaca_en_demo,identity", "sharegpt_zh", "my_sft_data", "mllm_demo", "tulu3_mix,glaive_toolcall_en"])
    j.worker_cmd = "%s %s/src/llamafactory/launcher.py %s" % (j.pybin, j.root, j.yaml)
    R = j.root + "/src/llamafactory"
    entry = [(R + "/launcher.py", 23, "<module>", "launch()"), (R + "/launcher.py", 19, "launch", "run_exp()"),
             (R + "/train/tuner.py", 110, "run_exp", '_training_function(config={"args": args, "callbacks": callbacks})'),
             (R + "/train/tuner.py", 72, "_training_function", "run_sft(model_args, data_args, training_args, finetuning_args, generating_args, callbacks)"),
             (R + "/train/sft/workflow.py", 96, "run_sft", "train_result = trainer.train(resume_from_checkpoint=training_args.resume_from_checkpoint)")]
    cl = (R + "/train/sft/trainer.py", 107, "compute_loss", "return super().compute_loss(model, inputs, *args, **kwargs)")
    j.frames = lambda mid: hf_frames(j, mid, entry, cl)
    j.ds_is_collator = True
    j.ds_frames = [(R + "/data/collator.py", 165, "__call__", "mm_inputs = self.template.mm_plugin.get_mm_inputs("),
                   (R + "/data/mm_plugin.py", 357, "get_mm_inputs", "return self._get_mm_inputs(images, videos, audios, processor)"),
                   (R + "/data/mm_plugin.py", 276, "_get_mm_inputs", "images = self._regularize_images(")]
    j.img_frame = (R + "/data/mm_plugin.py", 171, "_regularize_images")
    j.tok_file = j.sp + "/tokenizers/implementations/base_tokenizer.py"


def lmf_style(j):
    rng = j.rng
    dsfmt = lambda t, n=0: f_ds(loc(j, t, n))

    def cmd(j, node):
        t = j.t0
        env = "FORCE_TORCHRUN=1 " if j.world > 1 else ""
        if j.nn > 1:
            env += "NNODES=%d NODE_RANK=%d MASTER_ADDR=%s MASTER_PORT=%d " % (j.nn, node, j.ips[0], j.port)
        if j.gpn < 8 and rng.random() < 0.5:
            env = "CUDA_VISIBLE_DEVICES=%s " % ",".join(str(x) for x in range(j.gpn)) + env
        prompt = "(llama_factory) %s@%s:%s# " % (j.user, j.hosts[node], j.root) if j.user == "root" else "(lf) %s@%s:~/LLaMA-Factory$ " % (j.user, j.hosts[node])
        out = [(t, prompt + env + "llamafactory-cli train " + j.yaml)]
        if j.ds:
            out.append((t + timedelta(seconds=2.5), dsfmt(t + timedelta(seconds=2.5), node) + " [INFO] [real_accelerator.py:%d:get_accelerator] Setting ds_accelerator to cuda (auto detect)" % rng.choice([203, 219, 222, 239])))
        tt = t + timedelta(seconds=3.4)
        if j.lmf_new:
            out.append((tt, lmf_log(j, tt, node, "INFO", "llamafactory.cli", 143, "Initializing %d distributed tasks at: %s:%d" % (j.world, j.ips[0] if j.nn > 1 else "127.0.0.1", j.port))))
        else:
            out.append((tt, lmf_log(j, tt, node, "INFO", "llamafactory.cli", 100, "Initializing distributed tasks at: %s:%d" % (j.ips[0] if j.nn > 1 else "127.0.0.1", j.port))))
        return out

    def rank_init(j, r):
        n = node_of(j, r)
        t = j.t0 + timedelta(seconds=rng.uniform(6, 14))
        out = []
        if j.ds:
            out.append((t, dsfmt(t, n) + " [INFO] [real_accelerator.py:219:get_accelerator] Setting ds_accelerator to cuda (auto detect)"))
        t2 = t + timedelta(seconds=rng.uniform(2, 5))
        if j.zero3 and r == 0:
            out.append((t2, dsfmt(t2, n) + " [INFO] [comm.py:652:init_distributed] cdb=None"))
            out.append((t2, dsfmt(t2, n) + " [INFO] [comm.py:683:init_distributed] Initializing TorchBackend in DeepSpeed with backend nccl"))
        if j.lmf_new:
            out.append((t2, lmf_log(j, t2, n, "INFO", "llamafactory.hparams.parser", 406, "Process rank: %d, world size: %d, device: cuda:%d, distributed training: True, compute dtype: torch.bfloat16" % (r, j.world, lrank(j, r)))))
        else:
            out.append((t2, lmf_log(j, t2, n, "INFO", "llamafactory.hparams.parser", 355, "Process rank: %d, device: cuda:%d, n_gpu: 1, distributed training: True, compute dtype: torch.bfloat16" % (r, lrank(j, r)))))
        bw = barrier_warn(j, r, t2 + timedelta(seconds=1))
        if bw:
            out.append((t2 + timedelta(seconds=1), bw))
        tl = j.t0 + timedelta(seconds=j.init_s * 0.6)
        shards = max(2, int(j.nparams / 4e9))
        out.append((tl, "Loading checkpoint shards: 100%%|██████████| %d/%d [00:%02d<00:00,  %.2fs/it]" % (shards, shards, min(59, shards * 3), rng.uniform(1.5, 4))))
        if r == 0 or (j.nn > 1 and lrank(j, r) == 0):
            tw = j.t_train0 - timedelta(seconds=rng.uniform(1, 4))
            out += [(tw, x) for x in reentrant_warn(j)] if rng.random() < 0.5 else []
        return out

    def main_init(j, node):
        out = []
        t = j.t0 + timedelta(seconds=16)
        if node != 0 and not (j.nn > 1):
            return out
        n = node
        L = lambda t, fl, ln, msg: hf_log(j, t, n, "INFO", fl, ln, msg)
        for f in ["vocab.json", "merges.txt", "tokenizer.json", "added_tokens.json", "special_tokens_map.json", "tokenizer_config.json"]:
            out.append((t, L(t, "tokenization_utils_base.py", 2209, "loading file %s" % f)))
        t += timedelta(seconds=1.2)
        if node == 0:
            out.append((t, lmf_log(j, t, n, "INFO", "llamafactory.data.loader", 143, "Loading dataset %s..." % j.dataset.split(",")[0])))
            n_ex = rng.choice([52002, 91238, 1091, 183452, 12500])
            j.n_examples = n_ex
            out.append((t + timedelta(seconds=3), "Converting format of dataset (num_proc=16): 100%%|██████████| %d/%d [00:02<00:00, %.2f examples/s]" % (n_ex, n_ex, n_ex / 2.1)))
            out.append((t + timedelta(seconds=40), "Running tokenizer on dataset (num_proc=16): 100%%|██████████| %d/%d [00:38<00:00, %.2f examples/s]" % (n_ex, n_ex, n_ex / 38.0)))
            tt = t + timedelta(seconds=41)
            out.append((tt, "training example:"))
            out.append((tt, "input_ids:"))
            ids = {"llama3": "[128000, 128006, 9125, 128007, 271, %d, %d, %d, ...]", "mistral": "[1, 3, 1763, %d, %d, %d, ...]",
                   "gemma": "[2, 106, 1645, 108, %d, %d, %d, ...]"}.get(j.template, "[151644, 8948, 198, 2610, 525, 264, 10950, 17847, 13, 151645, 198, 151644, 872, 198, %d, %d, %d, ...]")
            out.append((tt, ids % (rng.randint(1000, 90000), rng.randint(1000, 90000), rng.randint(1000, 90000))))
            out.append((tt, "inputs:"))
            fmt_ = {"llama3": "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nYou are a helpful assistant.<|eot_id|><|start_header_id|>user<|end_header_id|>\n\n%s<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n%s<|eot_id|>",
                    "mistral": "<s>[INST] %s [/INST]%s</s>", "gemma": "<bos><start_of_turn>user\n%s<end_of_turn>\n<start_of_turn>model\n%s<end_of_turn>\n"}.get(
                j.template, "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\n%s<|im_end|>\n<|im_start|>assistant\n%s<|im_end|>")
            out.append((tt, fmt_ % (
                rng.choice(["Give three tips for staying healthy.", "请将下面的句子翻译成英文。", "Summarize the following article.", "Write a SQL query that returns the top 5 customers."]),
                rng.choice(["1. Eat a balanced diet ...", "Sure, here is ...", "SELECT customer_id, SUM(amount) ..."]))))
        tc = j.t0 + timedelta(seconds=j.init_s * 0.5)
        out.append((tc, L(tc, "configuration_utils.py", 733, "loading configuration file %s/config.json" % j.model_dir)))
        out.append((tc, L(tc, "modeling_utils.py", 3934, "loading weights file %s/model.safetensors.index.json" % j.model_dir)))
        tm = j.t0 + timedelta(seconds=j.init_s * 0.7)
        for mod, ln, msg in [("llamafactory.model.model_utils.checkpointing", 157, "Gradient checkpointing enabled."),
                             ("llamafactory.model.model_utils.attention", 157, "Using FlashAttention-2 for faster training and inference."),
                             ("llamafactory.model.adapter", 157, "Fine-tuning method: Full"),
                             ("llamafactory.model.loader", 157, "trainable params: {0:,} || all params: {0:,} || trainable%: 100.0000".format(j.nparams))]:
            out.append((tm, lmf_log(j, tm, n, "INFO", mod, ln, msg)))
        if j.zero3:
            out.append((tm + timedelta(seconds=5), "Parameter Offload: Total persistent parameters: %d in %d params" % (rng.randint(100000, 900000), rng.randint(100, 400))))
        tr = j.t_train0 - timedelta(seconds=2)
        bs = rng.choice([1, 2, 4])
        ga = rng.choice([1, 2, 4, 8, 16])
        nx = getattr(j, "n_examples", 52002)
        for msg in ["***** Running training *****", "  Num examples = {:,}".format(nx), "  Num Epochs = %d" % j.epochs,
                    "  Instantaneous batch size per device = %d" % bs,
                    "  Total train batch size (w. parallel, distributed & accumulation) = %d" % (bs * ga * j.world),
                    "  Gradient Accumulation steps = %d" % ga, "  Total optimization steps = {:,}".format(j.T),
                    "  Number of trainable parameters = {:,}".format(j.nparams)]:
            out.append((tr, L(tr, "trainer.py", 2369, msg)))
        if j.start_step:
            for msg in ["  Continuing training from checkpoint, will skip to saved global_step",
                        "  Continuing training from epoch %d" % int(j.start_step / j.T * j.epochs),
                        "  Continuing training from global step %d" % j.start_step]:
                out.append((tr, L(tr, "trainer.py", 2391, msg)))
        if node == 0 and j.wandb:
            for x in wandb_head(j, tr, j.root):
                out.append((tr + timedelta(seconds=1), x))
        return out

    def progress(j, node, S, upto):
        if node > 0 and rng.random() < 0.2:
            return
        def save_hook(k, t):
            S.add(t + timedelta(seconds=0.5), hf_log(j, t, node, "INFO", "trainer.py", 3984, "Saving model checkpoint to %s/checkpoint-%d" % (j.out_dir, k)))
            if j.ds:
                stop = j.F["culprit"] if (k == j.F["fs"] and j.F["phase"] == "save" and j.F["kind"] == "stall") else None
                for tt, x in ds_save_lines(j, node, k, t, j.out_dir, lambda tt: f_ds(loc(j, tt, node)), stop_rank=stop):
                    if k == j.F["fs"] and j.F["phase"] == "save" and tt > j.F["t_f"] + timedelta(seconds=30):
                        continue
                    S.add(tt, x)
        def strag(k, t):
            if j.F.get("slow") and j.zero3 and node == 0 and k % 37 == 0 and k > j.F["slow"]["from"]:
                S.add(t + timedelta(seconds=0.2), ds_cache_flush(j, t, lambda tt: f_ds(loc(j, tt, node)), 1))
        hf_progress(j, node, S, upto, lambda k, el: hf_loss_dict(j, k), save_hook=save_hook, straggler_hook=strag)
        if j.zero3 and node == 0 and rng.random() < 0.5:
            k = rng.randint(j.start_step + 1, max(j.start_step + 2, upto))
            if k in j.step_t:
                S.add(j.step_t[k] + timedelta(seconds=0.1), ds_cache_flush(j, j.step_t[k], lambda tt: f_ds(loc(j, tt, node)), rng.randint(1, 3)))
                j.decoys.append("DeepSpeed stage3 'allocator cache flushes' warning (memory pressure, not an OOM)")

    def finish(j, node):
        t = j.t_end - timedelta(seconds=10)
        out = []
        if node == 0:
            rt = (j.step_t[j.T] - j.t_train0).total_seconds()
            out.append((t, "{'train_runtime': %.4f, 'train_samples_per_second': %.3f, 'train_steps_per_second': %.3f, 'train_loss': %.4f, 'epoch': %.1f}" % (
                rt, j.T * 16 / rt, j.T / rt, loss_at(j, j.T // 2), j.epochs)))
            out.append((t, hf_log(j, t, node, "INFO", "trainer.py", 3984, "Saving model checkpoint to %s" % j.out_dir)))
            out.append((t, "***** train metrics *****"))
            out.append((t, "  epoch                    = %16.1f" % j.epochs))
            out.append((t, "  total_flos               = %15dGF" % rng.randint(10**6, 10**8)))
            out.append((t, "  train_loss               = %16.4f" % loss_at(j, j.T // 2)))
            out.append((t, "  train_runtime            = %16s" % f_elapsed(rt)))
            out.append((t, "  train_samples_per_second = %16.3f" % (j.T * 16 / rt)))
            out.append((t, "  train_steps_per_second   = %16.3f" % (j.T / rt)))
            out.append((t, "Figure saved at: %s/training_loss.png" % j.out_dir))
            out.append((t, lmf_log(j, t, node, "WARNING", "llamafactory.extras.ploting", 162, "No metric eval_loss to plot.")))
            if j.wandb:
                out += [(t + timedelta(seconds=3), x) for x in wandb_tail(j, True)]
        for r in ranks_on(j, node):
            w = destroy_warn(j, r, t + timedelta(seconds=5))
            if w:
                out.append((t + timedelta(seconds=5), w))
        return out

    return dict(cmd=cmd, rank_init=rank_init, main_init=main_init, progress=progress, finish=finish,
                name="%s/src/llamafactory/launcher.py" % j.root, head="torchrun")


def lmf_config_files(j):
    rng = j.rng
    y = ["### model", "model_name_or_path: %s" % j.model_dir, "trust_remote_code: true", "", "### method", "stage: sft", "do_train: true",
         "finetuning_type: full"]
    if j.ds:
        y.append("deepspeed: examples/deepspeed/ds_z%d_config.json" % (3 if j.zero3 else 2))
    y += ["", "### dataset", "dataset: %s" % j.dataset, "template: %s" % j.template, "cutoff_len: %d" % rng.choice([2048, 4096, 8192, 16384]),
          "overwrite_cache: true", "preprocessing_num_workers: 16", "dataloader_num_workers: %d" % j.num_workers, "",
          "### output", "output_dir: %s" % j.out_dir, "logging_steps: %d" % j.log_every, "save_steps: %d" % (j.save_every or 5000),
          "plot_loss: true", "overwrite_output_dir: true", "report_to: %s" % ("wandb" if j.wandb else "none"), "",
          "### train", "per_device_train_batch_size: 1", "gradient_accumulation_steps: 8", "learning_rate: %s" % j.lr,
          "num_train_epochs: %.1f" % j.epochs, "lr_scheduler_type: cosine", "warmup_ratio: 0.1", "bf16: true",
          "ddp_timeout: %d" % j.timeout_s, "resume_from_checkpoint: %s" % ("%s/checkpoint-%d" % (j.out_dir, j.start_step) if j.start_step else "null")]
    files = {j.yaml.split("/")[-1]: "\n".join(y) + "\n"}
    if j.ds:
        if j.zero3:
            cfg = {"train_batch_size": "auto", "train_micro_batch_size_per_gpu": "auto", "gradient_accumulation_steps": "auto",
                   "gradient_clipping": "auto", "zero_allow_untested_optimizer": True,
                   "fp16": {"enabled": "auto", "loss_scale": 0, "loss_scale_window": 1000, "initial_scale_power": 16, "hysteresis": 2, "min_loss_scale": 1},
                   "bf16": {"enabled": "auto"},
                   "zero_optimization": {"stage": 3, "overlap_comm": False, "contiguous_gradients": True, "sub_group_size": 1e9,
                                         "reduce_bucket_size": "auto", "stage3_prefetch_bucket_size": "auto",
                                         "stage3_param_persistence_threshold": "auto", "stage3_max_live_parameters": 1e9,
                                         "stage3_max_reuse_distance": 1e9, "stage3_gather_16bit_weights_on_model_save": True}}
            files["ds_z3_config.json"] = json.dumps(cfg, indent=2) + "\n"
        else:
            cfg = {"train_batch_size": "auto", "train_micro_batch_size_per_gpu": "auto", "gradient_accumulation_steps": "auto",
                   "gradient_clipping": "auto", "zero_allow_untested_optimizer": True, "bf16": {"enabled": "auto"},
                   "zero_optimization": {"stage": 2, "allgather_partitions": True, "allgather_bucket_size": 5e8, "overlap_comm": False,
                                         "reduce_scatter": True, "reduce_bucket_size": 5e8, "contiguous_gradients": True, "round_robin_gradients": True}}
            files["ds_z2_config.json"] = json.dumps(cfg, indent=2) + "\n"
    return files


# ----------------------------------------------------------------- shared attachments
def choose_nodes(j, F, p_culprit=0.55):
    rng = j.rng
    if j.nn == 1:
        return [0]
    inc = [0]
    cn = F.get("cnode")
    if j.nn == 2 and rng.random() < 0.5:
        return [0, 1]
    if cn is not None and cn != 0 and rng.random() < p_culprit:
        inc.append(cn)
    if rng.random() < 0.35:
        o = rng.randrange(j.nn)
        if o not in inc:
            inc.append(o)
    if cn not in (None, 0) and cn in inc and rng.random() < 0.12:
        inc.remove(0)
    return sorted(inc)


def preempt_notice(j, F, node):
    rng = j.rng
    t = F["t_f"] - timedelta(seconds=rng.uniform(30, 118))
    lt = loc(j, t, node, "sys")
    if j.scheme == "aws":
        return ("spot_notice_%s.txt" % j.hosts[node],
                "$ curl -s http://169.254.169.254/latest/meta-data/spot/instance-action   # from the cloudwatch agent log on %s\n{\"action\": \"terminate\", \"time\": \"%s\"}\n" % (
                    j.hosts[node], (t + timedelta(seconds=120)).strftime("%Y-%m-%dT%H:%M:%SZ")))
    if j.scheme == "k8s":
        return None
    inst = j.hosts[node] if j.scheme != "docker" else "a3-spot-%d" % rng.randint(1, 30)
    return ("gcloud_operations.txt",
            "$ gcloud compute operations list --filter=\"operationType~compute.instances.preempted\" --limit=5\nNAME                                                     TYPE                         TARGET                                   HTTP_STATUS  STATUS  TIMESTAMP\nsystemevent-%d-%s-%s  compute.instances.preempted  us-central1-a/instances/%s  200          DONE    %s\n" % (
                rng.randint(1700000000000, 1760000000000), hx(rng, 13), hx(rng, 8), inst, (lt + timedelta(seconds=118)).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "-07:00"))


def straggler_files(j, F):
    rng = j.rng
    s = F["slow"]
    c = s["rank"]
    cn, lr = node_of(j, c), lrank(j, c)
    t0 = j.step_t[min(j.T, s["from"] + 5)]
    out = {}
    if s["why"] in ("powerbrake", "thermal"):
        rows = ["timestamp, index, pci.bus_id, temperature.gpu, utilization.gpu [%], clocks.sm [MHz], power.draw [W], " +
                ("clocks_event_reasons.active" if j.driver >= "535" else "clocks_throttle_reasons.active")]
        for k in range(rng.randint(3, 6)):
            t = t0 + timedelta(seconds=10 * k)
            lt = loc(j, t, cn, "sys")
            for g in range(j.gpn):
                bad = g == lr
                temp = rng.randint(88, 94) if bad and s["why"] == "thermal" else rng.randint(55, 74)
                clk = rng.randint(705, 1155) if bad else rng.randint(1755, 1980)
                pw = j.gpu["pw"] * (rng.uniform(0.35, 0.5) if bad else rng.uniform(0.7, 0.95))
                reason = ("0x0000000000000008" if s["why"] == "powerbrake" else "0x0000000000000020") if bad else "0x0000000000000000"
                util = 100 if rng.random() < 0.8 else rng.randint(93, 99)
                rows.append("%s, %d, %s, %d, %d %%, %d MHz, %.2f W, %s" % (lt.strftime("%Y/%m/%d %H:%M:%S.%f")[:-3], g, busid_smi(j, g), temp, util, clk, pw, reason))
        out["gpu_monitor_%s.csv" % j.hosts[cn]] = ("# nvidia-smi --query-gpu=timestamp,index,pci.bus_id,temperature.gpu,utilization.gpu,clocks.sm,power.draw,clocks_event_reasons.active --format=csv -l 10\n" + "\n".join(rows) + "\n", cn)
    else:
        lt = loc(j, t0, cn, "sys")
        lines = ["top - %s up %d days,  3:12,  2 users,  load average: %.2f, %.2f, %.2f" % (lt.strftime("%H:%M:%S"), rng.randint(3, 80), 150.3, 148.9, 140.2),
                 "Tasks: 1123 total,  14 running, 1109 sleeping,   0 stopped,   0 zombie",
                 "%%Cpu(s): 96.1 us,  3.2 sy,  0.0 ni,  0.5 id,  0.0 wa,  0.0 hi,  0.2 si,  0.0 st",
                 "MiB Mem : 2063824.0 total, 812345.1 free, 1011234.2 used, 240244.7 buff/cache", "",
                 "    PID USER      PR  NI    VIRT    RES    SHR S  %CPU  %MEM     TIME+ COMMAND"]
        rows = [(rng.randint(2000, 9999), "svc_etl", "ffmpeg", 3180.0)]
        for g in range(j.gpn):
            r = cn * j.gpn + g
            rows.append((j.pid[r], j.user[:8], j.pname, rng.uniform(95, 140) if g != lr else rng.uniform(18, 40)))
        rows.sort(key=lambda x: -x[3])
        for pid, u, cmd, cpu in rows:
            lines.append("%7d %-8s  20   0 %7s %6s %6s R %5.1f  %4.1f %9s %s" % (pid, u, "%.1fg" % rng.uniform(30, 140), "%.1fg" % rng.uniform(8, 60), "1.2g", cpu, rng.uniform(0.1, 3), "%d:%02d.%02d" % (rng.randint(10, 900), rng.randint(0, 59), rng.randint(0, 99)), cmd))
        lines.append("")
        lines.append("$ taskset -cp %d" % rows[0][0])
        lines.append("pid %d's current affinity list: %d-%d" % (rows[0][0], lr * 8, lr * 8 + 7))
        lines.append("$ for p in $(pgrep -f %s); do taskset -cp $p; done | head -%d" % (j.pname, j.gpn))
        for g in range(j.gpn):
            r = cn * j.gpn + g
            lines.append("pid %d's current affinity list: %d-%d" % (j.pid[r], g * 8, g * 8 + 7))
        out["top_%s.txt" % j.hosts[cn]] = ("\n".join(lines) + "\n", cn)
    return out


def attach_common(j, F, inc_nodes, console_has_nodes=None):
    """Kernel logs, tool outputs and decoys.  Returns (kern_nodes, extras_included)."""
    rng = j.rng
    kern_nodes = []
    drainish = j.cause in ("gpu_hardware", "ecc_memory", "nvlink", "network")
    for n in sorted(F["kernel"]):
        p = 0.85 if drainish else 0.7
        if rng.random() < p:
            ev = F["kernel"][n] + knoise(j, j.t0 - timedelta(hours=rng.randint(2, 40)), j.t_end, rng.randint(6, 16))
            txt, fmt = render_kernel(j, n, ev)
            name = ("journalctl_k_%s.txt" if fmt == "journal" else "dmesg_%s.txt") % kern_host(j, n)
            j.files[name] = kernel_cmd(fmt, kern_host(j, n)) + "\n" + txt
            kern_nodes.append(n)
    # decoy: an old benign Xid somewhere else
    if rng.random() < (0.4 if j.cause is None else 0.25):
        cands = [n for n in range(j.nn) if n not in kern_nodes and n != F.get("cnode")]
        if cands:
            n = rng.choice(cands)
            told = j.t0 - timedelta(days=rng.randint(1, 9), seconds=rng.randint(0, 80000))
            lr = rng.randrange(j.gpn)
            code, tail = rng.choice([(13, "Graphics SM Warp Exception on (GPC 2, TPC 0, SM 1): Illegal Instruction Encoding"),
                                     (43, "Ch 00000010"), (31, "Ch 00000018, intr 00000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_0 faulted @ 0x7fe1_40000000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ"),
                                     (45, "Ch 00000010, errorString CTX SWITCH TIMEOUT, Info 0x3c4020")])
            ev = [(told, xid(j, lr, code, rng.randint(3000, 900000), "python", tail))]
            ev += knoise(j, told - timedelta(hours=3), j.t_end, rng.randint(6, 14))
            txt, fmt = render_kernel(j, n, ev)
            name = ("journalctl_k_%s.txt" if fmt == "journal" else "dmesg_%s.txt") % kern_host(j, n)
            j.files[name] = kernel_cmd(fmt, kern_host(j, n)) + "\n" + txt
            j.decoys.append("old Xid %d on %s GPU%d from %s (before this job)" % (code, kern_host(j, n), lr, told.strftime("%Y-%m-%d")))
    extras = []
    for name in sorted(F["extra"]):
        txt, n = F["extra"][name]
        keep = 0.8 if name.startswith(("py-spy", "nvidia-smi", "ecc_", "nvlink", "ibstat", "gpu_monitor", "top_")) else 0.6
        if rng.random() < keep:
            j.files[name] = txt
            extras.append(name)
    if F.get("slow"):
        for name, (txt, n) in sorted(straggler_files(j, F).items()):
            if rng.random() < 0.75:
                j.files[name] = txt
                extras.append(name)
                F["ev"].append("file:" + name)
            else:
                F["ev"].append("file:" + name)
    if j.cause == "preemption" and F.get("scope") == "node" and j.sched != "slurm":
        pn = preempt_notice(j, F, F["cnode"])
        if pn and rng.random() < 0.75:
            j.files[pn[0]] = pn[1]
    if j.cause is None and rng.random() < 0.4:
        n = rng.randrange(j.nn)
        t = j.step_t[min(j.T, j.start_step + (j.T - j.start_step) // 2)]
        procs = [(lr, j.pid[n * j.gpn + lr], j.pybin, int(j.gpu["mib"] * rng.uniform(0.7, 0.95))) for lr in range(j.gpn)]
        j.files["nvidia-smi_%s.txt" % j.hosts[n]] = "$ nvidia-smi\n" + smi_table(j, n, t, smi_states(j, n, busy=True), procs)
    return kern_nodes, extras


def register_marks(j, F, fates):
    c = F.get("culprit")
    j.cul_all = []
    j.kmap = []
    if c is None:
        return
    lr = lrank(j, c)
    cn = node_of(j, c)
    j.cul_marks.append("  rank      : %d (local_rank: %d)" % (c, lr))
    f = fates.get(c)
    if f and f["kind"] == "crash":
        for x in f["lines"]:
            if ("[rank%d]" % c) in x or ("[Rank %d]" % c) in x or ("Rank %d is running" % c) in x:
                j.cul_marks.append(x)
                break
    if F["kind"] == "mismatch_detail":
        j.cul_marks.append("but Rank %d is running collective" % c)
    ov = F.get("wd_override", {}).get(c)
    if ov:
        j.cul_marks.append("[Rank %d] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=%d, OpType=%s," % (c, ov[0], ov[1]))
    if "absent" in F["ev"] and j.timeout_s < 10 ** 6:
        others = ["[Rank %d] Watchdog caught" % r for r in ranks_on(j, cn) if r != c]
        if others:
            j.cul_all.append((others, ["[Rank %d] Watchdog caught" % c]))
    pid = j.pid[c]
    j.kmap = ["[PID:%d] [RANK:%d]" % (pid, c), "%s:%d:%d [%d] NCCL" % (j.hosts[cn], pid, pid, lr),
              "(pid: %d)" % pid, "process %d spawned with command" % pid, "rank%d[%d]" % (c, pid)]


def compute_inferable(j, F, texts):
    c = F.get("culprit")
    if c is None:
        return False
    blob = "\n".join(texts[k] for k in sorted(texts))
    for m in j.cul_marks:
        if m in blob:
            return True
    for need, forbid in j.cul_all:
        if all(m in blob for m in need) and not any(x in blob for x in forbid):
            return True
    cn = F.get("cnode")
    kf = [k for k in texts if (k.startswith("dmesg_") or k.startswith("journalctl_k_")) and kern_host(j, cn) in k]
    if kf and "kernel_map" in F["ev"]:
        if any(m in blob for m in j.kmap):
            return True
        if ("nvidia-smi_%s.txt" % j.hosts[cn]) in texts and ("%d" % j.pid[c]) in texts["nvidia-smi_%s.txt" % j.hosts[cn]]:
            return True
    for e in F["ev"]:
        if e.startswith("file:") and e[5:] in texts:
            return True
    return False


def render_lmf(j, F, fates):
    rng = j.rng
    st = lmf_style(j)
    inc = choose_nodes(j, F)
    for n in inc:
        txt = torchrun_console(j, F, fates, n, st)
        if j.sched == "slurm" and j.nn == 1:
            name = "slurm-%d.out" % j.jobid
        else:
            name = "console_node%d_%s.log" % (n, j.hosts[n]) if j.nn > 1 else "console.log"
        if j.sched == "slurm":
            txt += slurm_tail(j, F, fates, n)
        j.files[name] = txt
    j.files.update(lmf_config_files(j))
    return inc


def slurm_tail(j, F, fates, node):
    """Lines slurmstepd/srun add to a batch output."""
    rng = j.rng
    out = []
    if F["kind"] == "preempt" and F.get("scope") == "job":
        t = F["t_f"]
        out.append("slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO PREEMPTION ***" % (j.jobid, j.hosts[0], f_slurm(loc(j, t, 0, "sys"))))
    elif F["kind"] == "timelimit" and F.get("end") != "ctrlc":
        t = F["t_end"]
        if F.get("end") == "scancel":
            out.append("slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s ***" % (j.jobid, j.hosts[0], f_slurm(loc(j, t, 0, "sys"))))
        else:
            out.append("slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO TIME LIMIT ***" % (j.jobid, j.hosts[0], f_slurm(loc(j, t, 0, "sys"))))
    elif j.cause == "host_oom_kill" and F.get("oom_cg") and node == F.get("cnode"):
        out.append("slurmstepd: error: Detected 1 oom_kill event in StepId=%d.batch. Some of the step tasks have been OOM Killed." % j.jobid)
    return ("\n".join(out) + "\n") if out else ""


# ================================================================= layout: Axolotl (accelerate launch)
AXO_BANNER = ["                                 dP            dP   dP ",
              "                                 88            88   88 ",
              "      .d8888b. dP.  .dP .d8888b. 88 .d8888b. d8888P 88 ",
              "      88'  `88  `8bd8'  88'  `88 88 88'  `88   88   88 ",
              "      88.  .88  .d88b.  88.  .88 88 88.  .88   88   88 ",
              "      `88888P8 dP'  `dP `88888P' dP `88888P'   dP   dP ", "", ""]


def axo_log(j, t, r, level, where, msg):
    return "%s [%s] [%s] [PID:%d] [RANK:%d] %s" % (f_ds(loc(j, t, node_of(j, r))), level, where, j.pid[r], r, msg)


def setup_axolotl(j):
    rng = j.rng
    base_setup(j, ["2.3.1", "2.4.1", "2.5.1", "2.6.0", "2.7.1"], [(1, 9), (2, 6), (4, 4), (8, 1)],
               [(2, 2), (4, 3), (8, 6)], [("A100", 4), ("H100", 4), ("A6000", 1), ("L40S", 1), ("A800", 1)],
               [("hpc", 6), ("aws", 2), ("docker", 2)])
    j.launcher = "torchrun"
    common_env(j, ["/root/miniconda3/envs/py{py}/lib/python{py}/site-packages", "/workspace/axolotl/.venv/lib/python{py}/site-packages",
                   "/opt/conda/lib/python{py}/site-packages", "/home/{user}/miniforge3/envs/axolotl/lib/python{py}/site-packages"])
    net_setup(j)
    j.sched = "slurm" if (j.nn > 1 or rng.random() < 0.4) and j.scheme != "docker" else None
    pick_model(j)
    j.ds = rng.random() < 0.75
    set_train_shape(j, j.ds and rng.random() < 0.7)
    j.tf = rng.choice(["4.45.2", "4.46.1", "4.49.0", "4.51.3"])
    j.pid_tagged = True
    j.rank0_only_logs = rng.random() < 0.3
    j.timeout_s = rng.choice([1800, 1800, 7200, 3600])
    j.timeout_ms = j.timeout_s * 1000
    j.port = rng.choice([29500, 29400, 12355])
    j.epochs = rng.choice([1.0, 2.0, 3.0, 4.0])
    j.loss0 = rng.uniform(1.0, 2.2)
    j.lr = rng.choice([2e-5, 1e-5, 5e-6, 2e-4])
    j.cfg = rng.choice(["qwen25-7b-fft.yml", "llama31-8b-fft.yml", "examples/llama-3/fft-8b.yaml", "configs/sft_mix_v3.yml"])
    j.out_dir = rng.choice(["./outputs/out", "./outputs/fft-run", "/scratch/%s/axolotl-out" % j.user])
    j.out_root = j.out_dir
    j.worker_cmd = "%s -m axolotl.cli.train %s" % (j.pybin, j.cfg)
    sp = j.sp
    entry = [("<frozen runpy>", 198, "_run_module_as_main", ""), ("<frozen runpy>", 88, "_run_code", ""),
             (sp + "/axolotl/cli/train.py", 113, "<module>", "fire.Fire(do_cli)"),
             (sp + "/fire/core.py", 135, "Fire", "component_trace = _Fire(component, args, parsed_flag_args, context, name)"),
             (sp + "/fire/core.py", 468, "_Fire", "component, remaining_args = _CallAndUpdateTrace("),
             (sp + "/fire/core.py", 684, "_CallAndUpdateTrace", "component = fn(*varargs, **kwargs)"),
             (sp + "/axolotl/cli/train.py", 88, "do_cli", "return do_train(parsed_cfg, parsed_cli_args)"),
             (sp + "/axolotl/cli/train.py", 45, "do_train", "model, tokenizer, trainer = train(cfg=cfg, dataset_meta=dataset_meta)"),
             (sp + "/axolotl/train.py", 557, "train", "execute_training(cfg, trainer, resume_from_checkpoint)"),
             (sp + "/axolotl/train.py", 205, "execute_training", "trainer.train(resume_from_checkpoint=resume_from_checkpoint)")]
    cl = (sp + "/axolotl/core/trainers/base.py", 371, "compute_loss", "return super().compute_loss(")
    j.frames = lambda mid: hf_frames(j, mid, entry, cl)
    j.ds_is_collator = True
    j.ds_frames = [(sp + "/axolotl/utils/collators/batching.py", 168, "__call__", "return super().__call__(out_features, return_tensors=return_tensors)"),
                   (sp + "/axolotl/utils/collators/batching.py", 96, "__call__", "features = [chunk for chunk in features if chunk]"),
                   (sp + "/axolotl/prompt_strategies/chat_template.py", 412, "tokenize_prompt", "turns = self.get_conversation_thread(prompt)")]
    j.img_frame = (sp + "/axolotl/utils/collators/mm_chat.py", 88, "process_rows")
    j.tok_file = sp + "/tokenizers/implementations/base_tokenizer.py"


def axolotl_style(j):
    rng = j.rng

    def cmd(j, node):
        t = j.t0
        out = []
        if node == 0 or j.sched != "slurm":
            if j.nn > 1:
                c = "accelerate launch --config_file deepspeed_configs/zero%d.yaml --num_machines %d --num_processes %d --machine_rank $SLURM_NODEID --main_process_ip %s --main_process_port %d -m axolotl.cli.train %s" % (
                    3 if j.zero3 else 2, j.nn, j.world, j.hosts[0], j.port, j.cfg)
            elif rng.random() < 0.5:
                c = "accelerate launch -m axolotl.cli.train %s" % j.cfg
            else:
                c = "axolotl train %s" % j.cfg
            if j.sched == "slurm":
                out.append((t, "+ srun --ntasks-per-node=1 bash -c '%s'" % c))
            else:
                out.append((t, "%s@%s:/workspace/axolotl$ %s" % (j.user, j.hosts[node], c)))
        if j.nn == 1 and rng.random() < 0.6:
            out += [(t + timedelta(seconds=1), x) for x in [
                "The following values were not passed to `accelerate launch` and had defaults used instead:",
                "\t`--num_processes` was set to a value of `%d`" % j.gpn,
                "\t\tMore than one GPU was found, enabling multi-GPU training.",
                "\t\tIf this was unintended please pass in `--num_processes=1`.",
                "\t`--num_machines` was set to a value of `1`",
                "\t`--mixed_precision` was set to a value of `'no'`",
                "\t`--dynamo_backend` was set to a value of `'no'`",
                "To avoid this warning pass in values for each of the problematic parameters or run `accelerate config`."]]
        return out

    def rank_init(j, r):
        n = node_of(j, r)
        t = j.t0 + timedelta(seconds=rng.uniform(5, 12))
        out = [(t, f_ds(loc(j, t, n)) + " [INFO] [real_accelerator.py:%d:get_accelerator] Setting ds_accelerator to cuda (auto detect)" % rng.choice([191, 203, 219]))]
        if j.rank0_only_logs and r != 0:
            return out
        t2 = t + timedelta(seconds=rng.uniform(3, 8))
        out.append((t2, axo_log(j, t2, r, "INFO", "axolotl.normalize_config:%d" % 182, "GPU memory usage baseline: 0.000GB (+%.3fGB misc)" % rng.uniform(0.4, 0.9))))
        t3 = t2 + timedelta(seconds=rng.uniform(1, 4))
        eos = {"qwen": "151645 / <|im_end|>", "llama3": "128009 / <|eot_id|>", "mistral": "2 / </s>", "qwen3": "151645 / <|im_end|>", "gemma": "1 / <eos>"}[j.template]
        out.append((t3, axo_log(j, t3, r, "DEBUG", "axolotl.load_tokenizer:294", "EOS: %s" % eos)))
        out.append((t3, axo_log(j, t3, r, "DEBUG", "axolotl.load_tokenizer:295", "BOS: None / None")))
        out.append((t3, axo_log(j, t3, r, "DEBUG", "axolotl.load_tokenizer:296", "PAD: %s" % eos)))
        out.append((t3, axo_log(j, t3, r, "DEBUG", "axolotl.load_tokenizer:297", "UNK: None / None")))
        tm = j.t0 + timedelta(seconds=j.init_s * rng.uniform(0.6, 0.8))
        out.append((tm, axo_log(j, tm, r, "INFO", "axolotl.load_model:%d" % 1007, "converting modules to torch.bfloat16 for flash attention")))
        bw = barrier_warn(j, r, t3)
        if bw:
            out.append((t3, bw))
        return out

    def main_init(j, node):
        out = []
        if node != 0:
            return out
        t = j.t0 + timedelta(seconds=9)
        out += [(t, x) for x in AXO_BANNER]
        t += timedelta(seconds=30)
        h = hx(rng, 32)
        out.append((t, axo_log(j, t, 0, "INFO", "axolotl.load_tokenized_prepared_datasets:193", "Loading prepared dataset from disk at last_run_prepared/%s..." % h)))
        ntok = rng.randint(10 ** 7, 9 * 10 ** 8)
        out.append((t, axo_log(j, t, 0, "DEBUG", "axolotl.calculate_total_num_steps:315", "total_num_tokens: {:_}".format(ntok))))
        out.append((t, axo_log(j, t, 0, "DEBUG", "axolotl.calculate_total_num_steps:328", "`total_supervised_tokens: {:_}`".format(int(ntok * 0.6)))))
        out.append((t, axo_log(j, t, 0, "DEBUG", "axolotl.utils.samplers.multipack._len_est:185", "packing_efficiency_estimate: %.2f total_num_tokens per device: %d" % (rng.uniform(0.9, 0.99), ntok // j.world))))
        out.append((t, axo_log(j, t, 0, "INFO", "axolotl.calculate_total_num_steps:380", "total_num_steps: %d" % j.T)))
        tm = j.t0 + timedelta(seconds=j.init_s * 0.5)
        out.append((tm, axo_log(j, tm, 0, "INFO", "axolotl.train.train:58", "loading model and peft_config...")))
        shards = max(2, int(j.nparams / 4e9))
        out.append((tm + timedelta(seconds=20), "Loading checkpoint shards: 100%%|██████████| %d/%d [00:%02d<00:00,  %.2fs/it]" % (shards, shards, min(59, shards * 4), rng.uniform(2, 5))))
        tr = j.t_train0 - timedelta(seconds=3)
        out.append((tr, axo_log(j, tr, 0, "INFO", "axolotl.train.train:146", "Starting trainer...")))
        if j.start_step:
            out.append((tr, axo_log(j, tr, 0, "INFO", "axolotl.train.train:170", "Resuming from checkpoint %s/checkpoint-%d" % (j.out_dir, j.start_step))))
        if j.wandb:
            out += [(tr + timedelta(seconds=2), x) for x in wandb_head(j, tr, "/workspace/axolotl")]
        out += [(tr + timedelta(seconds=3), x) for x in reentrant_warn(j)]
        return out

    def progress(j, node, S, upto):
        if node != 0 and rng.random() < 0.5:
            return
        memx = j.gpu["cap"] * rng.uniform(0.55, 0.9)

        def logl(k, el):
            d = hf_loss_dict(j, k)
            if j.tf >= "4.49":
                d = d[:-1] + ", 'memory/max_mem_active(gib)': %.2f, 'memory/max_mem_allocated(gib)': %.2f, 'memory/device_mem_reserved(gib)': %.2f}" % (memx, memx - 0.4, memx + 2.1)
            return d

        def save_hook(k, t):
            if j.ds:
                stop = j.F["culprit"] if (k == j.F["fs"] and j.F["phase"] == "save" and j.F["kind"] == "stall") else None
                for tt, x in ds_save_lines(j, node, k, t, j.out_dir, lambda tt: f_ds(loc(j, tt, node)), stop_rank=stop):
                    if k == j.F["fs"] and j.F["phase"] == "save" and tt > j.F["t_f"] + timedelta(seconds=30):
                        continue
                    S.add(tt, x)
        hf_progress(j, node, S, upto, logl, save_hook=save_hook)

    def finish(j, node):
        t = j.t_end - timedelta(seconds=12)
        out = []
        if node == 0:
            rt = (j.step_t[j.T] - j.t_train0).total_seconds()
            out.append((t, "{'train_runtime': %.4f, 'train_samples_per_second': %.3f, 'train_steps_per_second': %.3f, 'train_loss': %.4f, 'epoch': %.2f}" % (
                rt, j.T * 8 / rt, j.T / rt, loss_at(j, j.T // 2), j.epochs)))
            out.append((t, axo_log(j, t, 0, "INFO", "axolotl.train.train:190", "Training Completed!!! Saving pre-trained model to %s" % j.out_dir)))
            if j.wandb:
                out += [(t + timedelta(seconds=4), x) for x in wandb_tail(j, True)]
        for r in ranks_on(j, node):
            w = destroy_warn(j, r, t + timedelta(seconds=6))
            if w:
                out.append((t + timedelta(seconds=6), w))
        return out

    return dict(cmd=cmd, rank_init=rank_init, main_init=main_init, progress=progress, finish=finish,
                name="axolotl.cli.train", head="accelerate")


def srun_node_tail(j, fates, t_end):
    """srun summary lines when each srun task is one node's launcher."""
    out = []
    for n in range(j.nn):
        rs = ranks_on(j, n)
        if all(fates[r]["kind"] == "ok" for r in rs):
            continue
        if any(fates[r]["kind"] == "sched" for r in rs):
            continue
        out.append("srun: error: %s: task %d: Exited with exit code %d" % (j.hosts[n], n, 1))
    return out


def render_axolotl(j, F, fates):
    rng = j.rng
    st = axolotl_style(j)
    if j.sched == "slurm":
        inc = list(range(j.nn))
        streams = [torchrun_stream(j, F, fates, n, st) for n in inc]
        M = merge_streams(streams, j.bar_mode)
        txt = M.render()
        tail = srun_node_tail(j, fates, j.t_end)
        txt += slurm_tail(j, F, fates, F.get("cnode") if F.get("cnode") is not None else 0)
        txt += "\n".join(tail) + ("\n" if tail else "")
        j.files["slurm-%d.out" % j.jobid] = txt
        sb = ["#!/bin/bash", "#SBATCH --job-name=axo-%s" % j.model_name.split("-")[0].lower(), "#SBATCH --nodes=%d" % j.nn,
              "#SBATCH --ntasks-per-node=1", "#SBATCH --gres=gpu:%d" % j.gpn, "#SBATCH --cpus-per-task=%d" % (j.gpn * 12),
              "#SBATCH --time=%s" % rng.choice(["24:00:00", "48:00:00", "12:00:00"]), "#SBATCH --output=slurm-%j.out", "",
              "export NCCL_DEBUG=%s" % (j.nccl_debug or "WARN") if j.nccl_debug else "# export NCCL_DEBUG=INFO",
              "export MASTER=$(scontrol show hostnames $SLURM_JOB_NODELIST | head -n 1)", "",
              "srun --ntasks-per-node=1 bash -c 'accelerate launch --config_file deepspeed_configs/zero%d.yaml --num_machines $SLURM_NNODES --num_processes $((SLURM_NNODES*%d)) --machine_rank $SLURM_NODEID --main_process_ip $MASTER --main_process_port %d -m axolotl.cli.train %s'" % (
                  3 if j.zero3 else 2, j.gpn, j.port, j.cfg)]
        j.files["train_axolotl.sbatch"] = "\n".join(sb) + "\n"
    else:
        inc = choose_nodes(j, F)
        for n in inc:
            j.files["axolotl_train_%s.log" % j.hosts[n] if j.nn > 1 else "axolotl_train.log"] = torchrun_console(j, F, fates, n, st)
    y = ["base_model: %s" % j.model_dir, "model_type: AutoModelForCausalLM", "tokenizer_type: AutoTokenizer", "",
         "datasets:", "  - path: %s" % rng.choice(["/data/sft/mix_v3.jsonl", "HuggingFaceH4/ultrachat_200k", "/scratch/data/chat.jsonl"]),
         "    type: chat_template", "dataset_prepared_path: last_run_prepared", "val_set_size: 0.0", "output_dir: %s" % j.out_dir, "",
         "sequence_len: %d" % rng.choice([4096, 8192, 16384]), "sample_packing: true", "pad_to_sequence_len: true", "",
         "gradient_accumulation_steps: %d" % rng.choice([1, 2, 4, 8]), "micro_batch_size: %d" % rng.choice([1, 2, 4]),
         "num_epochs: %d" % j.epochs, "optimizer: adamw_torch_fused", "lr_scheduler: cosine", "learning_rate: %s" % j.lr, "",
         "bf16: auto", "tf32: true", "gradient_checkpointing: true", "flash_attention: true", "logging_steps: %d" % j.log_every,
         "saves_per_epoch: %d" % rng.choice([1, 2, 4]), "dataloader_num_workers: %d" % j.num_workers, "ddp_timeout: %d" % j.timeout_s]
    if j.ds:
        y.append("deepspeed: deepspeed_configs/zero%d_bf16.json" % (3 if j.zero3 else 2))
    if j.wandb:
        y += ["wandb_project: %s" % rng.choice(["sft", "axolotl-runs"]), "wandb_name: %s" % getattr(j, "wandb_name", "run")]
    j.files[j.cfg.split("/")[-1]] = "\n".join(y) + "\n"
    return inc


# ================================================================= layout: ms-swift on Kubernetes
def swift_log(level, msg):
    return "[%s:swift] %s" % (level, msg)


def setup_swift(j):
    rng = j.rng
    base_setup(j, ["2.4.1", "2.5.1", "2.6.0", "2.7.1"], [(1, 2), (2, 5), (4, 4), (8, 2), (16, 1)],
               [(8, 1)], [("H800", 3), ("H20", 3), ("A800", 2), ("H100", 2), ("A100", 1)], [("k8s", 1)])
    j.launcher = "torchrun"
    common_env(j, ["/usr/local/lib/python{py}/site-packages", "/opt/conda/lib/python{py}/site-packages",
                   "/usr/local/lib/python{py}/dist-packages"], pname_opts=("python", "pt_main_thread"))
    net_setup(j)
    j.sched = "k8s"
    pick_model(j)
    j.model_name = rng.choice(["Qwen2.5-VL-7B-Instruct", "Qwen2.5-72B-Instruct", "Qwen3-32B", "InternVL3-8B", "Qwen2.5-32B-Instruct", j.model_name])
    j.model_dir = j.model_dir.rsplit("/", 1)[0] + "/" + j.model_name
    j.ds = True
    set_train_shape(j, rng.random() < 0.8)
    j.start_step = 0
    j.tf = rng.choice(["4.49.0", "4.51.3", "4.55.2"])
    j.timeout_s = rng.choice([1800, 1800, 3600, 5400])
    j.timeout_ms = j.timeout_s * 1000
    j.port = 23456
    j.epochs = rng.choice([1.0, 2.0, 3.0])
    j.loss0 = rng.uniform(1.0, 2.0)
    j.lr = rng.choice([1e-5, 2e-5, 1e-4])
    j.swift_ver = rng.choice(["3.2.2", "3.4.1", "3.5.3", "3.7.0"])
    j.out_dir = "/mnt/output/%s/v%d-%s" % (j.model_name, rng.randint(0, 12), loc(j, j.t0, 0).strftime("%Y%m%d-%H%M%S"))
    j.out_root = "/mnt/output"
    sp = j.sp
    j.worker_cmd = "%s %s/swift/cli/sft.py --model %s" % (j.pybin, sp, j.model_dir)
    entry = [(sp + "/swift/cli/sft.py", 10, "<module>", "sft_main()"),
             (sp + "/swift/llm/train/sft.py", 331, "sft_main", "return SwiftSft(args).main()"),
             (sp + "/swift/llm/base.py", 49, "main", "result = self.run()"),
             (sp + "/swift/llm/train/sft.py", 183, "run", "return self.train(trainer)"),
             (sp + "/swift/llm/train/sft.py", 231, "train", "trainer.train(trainer.args.resume_from_checkpoint)"),
             (sp + "/swift/trainers/mixin.py", 448, "train", "res = super().train(*args, **kwargs)")]
    cl = (sp + "/swift/trainers/trainers.py", 290, "compute_loss", "outputs = model(**inputs)")
    j.frames = lambda mid: hf_frames(j, mid, entry, cl)
    j.ds_is_collator = False
    j.ds_frames = [(sp + "/swift/llm/dataset/utils.py", 149, "__getitem__", "return self.encode_func(data)"),
                   (sp + "/swift/llm/template/base.py", 418, "encode", "inputs = self._encode_truncated(inputs)"),
                   (sp + "/swift/llm/template/template/qwen.py", 357, "_encode", "images = inputs.images")]
    j.img_frame = (sp + "/swift/llm/template/vision_utils.py", 84, "load_image")
    j.tok_file = sp + "/transformers/tokenization_utils_fast.py"


def swift_style(j):
    rng = j.rng

    def cmd(j, node):
        t = j.t0
        out = [(t, swift_log("INFO", "Successfully registered `%s/swift/llm/dataset/data/dataset_info.json`." % j.sp))]
        args = "--model %s --train_type full --dataset %s --torch_dtype bfloat16 --num_train_epochs %d --per_device_train_batch_size 1 --learning_rate %s --gradient_accumulation_steps 8 --save_steps %d --logging_steps %d --max_length 8192 --output_dir /mnt/output/%s --deepspeed %s --dataloader_num_workers %d --dataset_num_proc 16" % (
            j.model_dir, rng.choice(["/mnt/data/sft_v2.jsonl", "AI-ModelScope/LaTeX_OCR:human_handwrite#20000", "/mnt/data/mm_sft/train.jsonl"]),
            j.epochs, j.lr, j.save_every or 500, j.log_every, j.model_name, "zero3" if j.zero3 else "zero2", j.num_workers)
        out.append((t + timedelta(seconds=0.2), "run sh: `%s -m torch.distributed.run --nproc_per_node %d --nnodes %d --node_rank %d --master_addr %s --master_port %d %s/swift/cli/sft.py %s`" % (
            j.pybin, j.gpn, j.nn, node, j.hosts[0], j.port, j.sp, args)))
        return out

    def rank_init(j, r):
        n = node_of(j, r)
        t = j.t0 + timedelta(seconds=rng.uniform(8, 15))
        out = [(t, f_ds(loc(j, t, n)) + " [INFO] [real_accelerator.py:%d:get_accelerator] Setting ds_accelerator to cuda (auto detect)" % rng.choice([219, 239]))]
        if lrank(j, r) == 0:
            out.append((t + timedelta(seconds=1), swift_log("INFO", "Successfully registered `%s/swift/llm/dataset/data/dataset_info.json`." % j.sp)))
        bw = barrier_warn(j, r, t + timedelta(seconds=3))
        if bw:
            out.append((t + timedelta(seconds=3), bw))
        return out

    def main_init(j, node):
        out = []
        t = j.t0 + timedelta(seconds=16)
        if node != 0:
            return [(t, swift_log("INFO", "Setting args.lazy_tokenize: %s" % rng.choice(["True", "False"])))]
        out.append((t, swift_log("INFO", "Start time of running main: %s" % loc(j, t, 0).strftime("%Y-%m-%d %H:%M:%S.%f"))))
        out.append((t, swift_log("INFO", "swift.__version__: %s" % j.swift_ver)))
        out.append((t, swift_log("INFO", "output_dir: %s" % j.out_dir)))
        out.append((t, swift_log("INFO", "Global seed set to 42")))
        out.append((t + timedelta(seconds=2), swift_log("INFO", "args: TrainArguments(output_dir='%s', overwrite_output_dir=False, do_train=False, do_eval=False, ..., ddp_timeout=%d, ...)" % (j.out_dir, j.timeout_s))))
        out.append((t + timedelta(seconds=3), swift_log("INFO", "Loading the model using model_dir: %s" % j.model_dir)))
        out.append((t + timedelta(seconds=3), swift_log("INFO", "model_kwargs: {'device_map': None}")))
        tm = j.t0 + timedelta(seconds=j.init_s * 0.55)
        out.append((tm, swift_log("INFO", "model_info: ModelInfo(model_type='%s', model_dir='%s', torch_dtype=torch.bfloat16, max_model_len=32768, quant_method=None, quant_bits=None, rope_scaling=None, config=None, task_type='causal_lm', num_labels=None)" % (j.arch, j.model_dir))))
        out.append((tm, swift_log("INFO", "The TrainArguments will be saved in: %s/args.json" % j.out_dir)))
        n_ex = rng.randint(20000, 900000)
        out.append((tm + timedelta(seconds=30), "Map (num_proc=16): 100%%|██████████| %d/%d [00:%02d<00:00, %.2f examples/s]" % (n_ex, n_ex, rng.randint(10, 59), n_ex / 40.0)))
        out.append((tm + timedelta(seconds=31), swift_log("INFO", "train_dataset: Dataset({\n    features: ['messages', 'images'],\n    num_rows: %d\n})" % n_ex)))
        out.append((tm + timedelta(seconds=32), swift_log("INFO", "[INPUT_IDS] [151644, 8948, 198, 2610, 525, 264, 10950, 17847, 13, 151645, 198, 151644, 872, 198, ...]")))
        out.append((tm + timedelta(seconds=32), swift_log("INFO", "[LABELS] [-100 * 36]%d, %d, %d, ...]" % (rng.randint(1000, 90000), rng.randint(1000, 90000), rng.randint(1000, 90000)))))
        out.append((tm + timedelta(seconds=33), swift_log("INFO", "Dataset Token Length: %.6f±%.6f, min=%.6f, max=%.6f, size=%d" % (rng.uniform(400, 2500), rng.uniform(200, 900), rng.uniform(30, 90), rng.choice([8192, 7990.0, 16384]), n_ex))))
        out.append((tm + timedelta(seconds=34), swift_log("INFO", "The logging file will be saved in: %s/logging.jsonl" % j.out_dir)))
        if j.zero3:
            out.append((tm + timedelta(seconds=40), "Parameter Offload: Total persistent parameters: %d in %d params" % (rng.randint(100000, 900000), rng.randint(100, 400))))
        return out

    def progress(j, node, S, upto):
        if node != 0:
            return

        def save_hook(k, t):
            S.add(t + timedelta(seconds=0.5), swift_log("INFO", "Saving model checkpoint to %s/checkpoint-%d" % (j.out_dir, k)))
            stop = j.F["culprit"] if (k == j.F["fs"] and j.F["phase"] == "save" and j.F["kind"] == "stall") else None
            for tt, x in ds_save_lines(j, node, k, t, j.out_dir, lambda tt: f_ds(loc(j, tt, node)), stop_rank=stop):
                if k == j.F["fs"] and j.F["phase"] == "save" and tt > j.F["t_f"] + timedelta(seconds=30):
                    continue
                S.add(tt, x)
        hf_progress(j, node, S, upto, lambda k, el: hf_loss_dict(j, k, swift=True, elapsed=el), desc="Train", save_hook=save_hook)

    def finish(j, node):
        t = j.t_end - timedelta(seconds=10)
        out = []
        if node == 0:
            out.append((t, swift_log("INFO", "last_model_checkpoint: %s/checkpoint-%d" % (j.out_dir, j.T))))
            out.append((t, swift_log("INFO", "best_model_checkpoint: None")))
            out.append((t, swift_log("INFO", "images_dir: %s/images" % j.out_dir)))
            out.append((t + timedelta(seconds=1), swift_log("INFO", "End time of running main: %s" % loc(j, t, 0).strftime("%Y-%m-%d %H:%M:%S.%f"))))
        for r in ranks_on(j, node):
            w = destroy_warn(j, r, t + timedelta(seconds=5))
            if w:
                out.append((t + timedelta(seconds=5), w))
        return out

    return dict(cmd=cmd, rank_init=rank_init, main_init=main_init, progress=progress, finish=finish,
                name="%s/swift/cli/sft.py" % j.sp, head="module")


def k8s_events(j, F, fates):
    rng = j.rng
    ev = []
    def age(t):
        s = int((j.t_end + timedelta(minutes=rng.randint(3, 40)) - t).total_seconds())
        return "%dm" % (s // 60) if s < 7200 else "%dh" % (s // 3600)
    job = j.hosts[0].rsplit("-master-0", 1)[0]
    for n in range(j.nn):
        pod = j.hosts[n]
        ev.append((j.t0 - timedelta(seconds=30), "Normal", "Scheduled", "pod/%s" % pod, "Successfully assigned %s/%s to %s" % (j.ns, pod, j.knodes[n])))
        ev.append((j.t0 - timedelta(seconds=5), "Normal", "Started", "pod/%s" % pod, "Started container pytorch"))
    cn = F.get("cnode")
    if j.cause == "preemption" and F.get("scope") == "node":
        t = F["t_f"]
        ev.append((t - timedelta(seconds=25), "Warning", "NodeNotReady", "pod/%s" % j.hosts[cn], "Node is not ready"))
        ev.append((t - timedelta(seconds=20), "Normal", "PreemptScheduled" if rng.random() < 0.5 else "Preempting", "node/%s" % j.knodes[cn],
                   "Node %s is being preempted (spot instance reclaim)" % j.knodes[cn]))
        ev.append((t, "Normal", "Killing", "pod/%s" % j.hosts[cn], "Stopping container pytorch"))
    if j.cause == "host_oom_kill" and cn is not None:
        kl = [m for tt, m in F["kernel"].get(cn, []) if "Killed process" in m]
        if kl:
            ev.append((F["t_f"], "Warning", "OOMKilling", "node/%s" % j.knodes[cn], kl[0]))
    if any(f["kind"] != "ok" for f in fates.values()):
        ev.append((j.t_end, "Normal", "ExitedWithCode", "pytorchjob/%s" % job, "Pod: %s.%s exited with code %d" % (j.ns, j.hosts[cn if cn is not None else 0], 1)))
        ev.append((j.t_end + timedelta(seconds=2), "Normal", "PyTorchJobFailed", "pytorchjob/%s" % job, "PyTorchJob %s is failed because 1 %s replica(s) failed." % (job, "Master" if (cn or 0) == 0 else "Worker")))
    else:
        ev.append((j.t_end, "Normal", "PyTorchJobSucceeded", "pytorchjob/%s" % job, "PyTorchJob %s is successfully completed." % job))
    out = ["$ kubectl -n %s get events --sort-by=.lastTimestamp | grep -E '%s|%s'" % (j.ns, job, "|".join(j.knodes[:2])),
           "LAST SEEN   TYPE      REASON                OBJECT                                   MESSAGE"]
    for t, ty, rs, ob, msg in sorted(ev, key=lambda x: x[0]):
        out.append("%-11s %-9s %-21s %-40s %s" % (age(t), ty, rs, ob, msg))
    return "\n".join(out) + "\n"


def render_swift(j, F, fates):
    rng = j.rng
    j.ns = rng.choice(["llm", "training", "default", "ml-team"])
    st = swift_style(j)
    inc = choose_nodes(j, F)
    for n in inc:
        j.files["kubectl_logs_%s.txt" % j.hosts[n]] = "$ kubectl -n %s logs %s\n" % (j.ns, j.hosts[n]) + torchrun_console(j, F, fates, n, st)
    if rng.random() < 0.7:
        j.files["kubectl_events.txt"] = k8s_events(j, F, fates)
    if rng.random() < 0.6:
        rows = []
        for k in range(j.start_step + j.log_every, j.upto + 1, j.log_every):
            el = (j.step_t[k] - j.t_train0).total_seconds()
            d = hf_loss_dict(j, k, swift=True, elapsed=el)
            rows.append(d.replace("'", '"'))
        j.files["logging.jsonl"] = "\n".join(rows[-400:]) + ("\n" if rows else "")
    age = "%dh" % max(1, int((j.t_end - j.t0).total_seconds() // 3600) + rng.randint(0, 3))
    if rng.random() < 0.5:
        j.files["nodes.txt"] = "$ kubectl -n %s get pods -o wide\nNAME%s READY   STATUS    RESTARTS   AGE   IP             NODE\n" % (j.ns, " " * 30) + "\n".join(
            "%-34s %-7s %-9s %-10d %-5s %-14s %s" % (j.hosts[n], "0/1", "Error" if any(fates[r]["kind"] not in ("ok", "term") for r in ranks_on(j, n)) else ("Completed" if all(fates[r]["kind"] == "ok" for r in ranks_on(j, n)) else "Error"), 0, age, j.ips[n], j.knodes[n]) for n in range(j.nn)) + "\n"
    return inc


# ================================================================= layout: Unsloth (torchrun)
def setup_unsloth(j):
    rng = j.rng
    base_setup(j, ["2.4.1", "2.5.1", "2.6.0", "2.7.1", "2.8.0"], [(1, 1)], [(2, 4), (4, 4), (8, 2)],
               [("4090", 3), ("A6000", 2), ("L40S", 2), ("A100", 2), ("H100", 1)], [("lab", 4), ("docker", 3), ("aws", 1)])
    j.launcher = "torchrun"
    common_env(j, ["/home/{user}/miniconda3/envs/unsloth_env/lib/python{py}/site-packages", "/home/{user}/venvs/unsloth/lib/python{py}/site-packages",
                   "/usr/local/lib/python{py}/dist-packages"])
    net_setup(j)
    pick_model(j, big_ok=False)
    j.ds = False
    set_train_shape(j, False)
    j.T = rng.choice([60, 250, 500, 1000, 1830])
    j.save_every = rng.choice([0, 100, 250]) if j.T > 250 else 0
    j.start_step = 0
    j.tf = rng.choice(["4.49.0", "4.51.3", "4.55.2"])
    j.timeout_s = rng.choice([1800, 600, 1800])
    j.timeout_ms = j.timeout_s * 1000
    j.port = 29500
    j.epochs = 1.0
    j.loss0 = rng.uniform(1.2, 2.0)
    j.lr = 2e-4
    j.uns_ver = rng.choice(["2025.3.19", "2025.5.7", "2025.8.1", "2025.9.4"])
    j.script = rng.choice(["train_unsloth.py", "sft_qwen.py", "finetune.py"])
    j.home = "/home/%s/ft" % j.user if j.user != "root" else "/root/ft"
    j.out_dir = "outputs"
    j.out_root = j.home + "/outputs"
    j.worker_cmd = "%s %s/%s" % (j.pybin, j.home, j.script)
    sp = j.sp
    entry = [(j.home + "/" + j.script, rng.randint(120, 190), "<module>", "trainer_stats = trainer.train()"),
             ("<string>", 157, "train", ""), ("<string>", 382, "_fast_inner_training_loop", ""), ("<string>", 31, "_unsloth_training_step", "")]
    cl = (j.home + "/unsloth_compiled_cache/UnslothSFTTrainer.py", 896, "compute_loss", "outputs = super().compute_loss(")

    def fr(mid):
        F = hf_frames(j, mid, entry, cl)
        # unsloth swaps the HF inner loop for its compiled one
        return [x for x in F if not (x[0].endswith("transformers/trainer.py") and x[2] in ("train", "_inner_training_loop", "training_step"))]
    j.frames = fr
    j.ds_is_collator = True
    j.ds_frames = [(sp + "/transformers/data/data_collator.py", 45, "__call__", "return self.torch_call(features)"),
                   (sp + "/unsloth_zoo/vision_utils.py", 612, "__call__", "messages = example[self.formatting_func]")]
    j.img_frame = (sp + "/unsloth_zoo/vision_utils.py", 204, "fetch_image")
    j.tok_file = sp + "/tokenizers/implementations/base_tokenizer.py"
    j.model_file = sp + "/unsloth/models/llama.py"
    j.rank_timing = rng.random() < 0.45


def unsloth_style(j):
    rng = j.rng

    def cmd(j, node):
        t = j.t0
        c = "torchrun --nproc_per_node %d %s" % (j.gpn, j.script) if rng.random() < 0.6 else "accelerate launch --num_processes %d %s" % (j.gpn, j.script)
        if j.nn > 1:
            c = "torchrun --nnodes %d --node_rank %d --nproc_per_node %d --master_addr %s --master_port %d %s" % (j.nn, node, j.gpn, j.ips[0], j.port, j.script)
        return [(t, "(unsloth_env) %s@%s:~/ft$ %s" % (j.user, j.hosts[node], c))]

    def rank_init(j, r):
        n = node_of(j, r)
        t = j.t0 + timedelta(seconds=rng.uniform(4, 9))
        out = [(t, "🦥 Unsloth: Will patch your computer to enable 2x faster free finetuning."),
               (t + timedelta(seconds=1.5), "🦥 Unsloth Zoo will now patch everything to make training faster!")]
        t2 = t + timedelta(seconds=rng.uniform(6, 12))
        if lrank(j, r) == 0 or rng.random() < 0.5:
            out += [(t2, x) for x in [
                "==((====))==  Unsloth %s: Fast %s patching. Transformers: %s." % (j.uns_ver, j.arch.capitalize(), j.tf),
                "   \\\\   /|    %s. Num GPUs = %d. Max memory: %.3f GB. Platform: Linux." % (j.gpu["name"], j.gpn, j.gpu["cap"] * 1.0737),
                "O^O/ \\_/ \\    Torch: %s+cu%s. CUDA: %s. CUDA Toolkit: %s. Triton: %s" % (j.torch, j.cuda.replace(".", ""), "8.9" if j.gk in ("4090", "L40S") else ("8.6" if j.gk == "A6000" else ("9.0" if j.gk == "H100" else "8.0")), j.cuda, rng.choice(["3.1.0", "3.2.0", "3.3.1"])),
                "\\        /    Bfloat16 = TRUE. FA [Xformers = %s. FA2 = %s]" % (rng.choice(["0.0.29.post3", "0.0.28.post3", "None"]), rng.choice(["True", "False"])),
                ' "-____-"     Free license: http://github.com/unslothai/unsloth',
                "Unsloth: Fast downloading is enabled - ignore downloading bars which are red colored!"]]
        shards = max(2, int(j.nparams / 4e9))
        t3 = t2 + timedelta(seconds=rng.uniform(10, 40))
        out.append((t3, "Loading checkpoint shards: 100%%|██████████| %d/%d [00:%02d<00:00,  %.2fs/it]" % (shards, shards, shards * 3, rng.uniform(1.5, 4))))
        out.append((t3 + timedelta(seconds=4), "Unsloth %s patched %d layers with %d QKV layers, %d O layers and %d MLP layers." % (j.uns_ver, 28, 28, 28, 28)))
        bw = barrier_warn(j, r, t3)
        if bw:
            out.append((t3, bw))
        return out

    def main_init(j, node):
        out = []
        t = j.t_train0 - timedelta(seconds=20)
        n_ex = rng.choice([51760, 9846, 100000, 12000])
        out.append((t, "Unsloth: Tokenizing [\"text\"] (num_proc=%d): 100%%|██████████| %d/%d [00:11<00:00, %.2f examples/s]" % (rng.choice([8, 16, 32]), n_ex, n_ex, n_ex / 11.0)))
        bs = rng.choice([1, 2, 4])
        ga = rng.choice([4, 8])
        tr = j.t_train0 - timedelta(seconds=2)
        out += [(tr, x) for x in [
            "==((====))==  Unsloth - 2x faster free finetuning | Num GPUs used = %d" % j.world,
            "   \\\\   /|    Num examples = {:,} | Num Epochs = 1 | Total steps = {:,}".format(n_ex, j.T),
            "O^O/ \\_/ \\    Batch size per device = %d | Gradient accumulation steps = %d" % (bs, ga),
            "\\        /    Data Parallel GPUs = %d | Total batch size (%d x %d x %d) = %d" % (j.world, bs, ga, j.world, bs * ga * j.world),
            ' "-____-"     Trainable parameters = {:,}/{:,} ({:.2f}% trained)'.format(int(j.nparams * 0.0058), j.nparams, 0.58)]]
        if j.wandb and node == 0:
            out += [(tr + timedelta(seconds=1), x) for x in wandb_head(j, tr, j.home)]
        return out

    def progress(j, node, S, upto):
        slow = j.F.get("slow")

        def strag(k, t):
            if k % max(1, j.log_every) != 0:
                return
            for r in ranks_on(j, node):
                comp = j.dt * 0.82 * rng.uniform(0.97, 1.03)
                if slow and k >= slow["from"] and r == slow["rank"]:
                    comp *= slow["factor"]
                tt = t + timedelta(milliseconds=rng.randint(1, 900))
                S.add(tt, "[rank%d] step %d fwd_bwd=%.2fs data=%.3fs" % (r, k, comp, rng.uniform(0.002, 0.03)))
        hf_progress(j, node, S, upto, lambda k, el: hf_loss_dict(j, k), straggler_hook=strag if j.rank_timing else None)

    def finish(j, node):
        t = j.t_end - timedelta(seconds=8)
        rt = (j.step_t[j.T] - j.t_train0).total_seconds()
        out = [(t, "{'train_runtime': %.4f, 'train_samples_per_second': %.3f, 'train_steps_per_second': %.3f, 'train_loss': %.4f, 'epoch': %.2f}" % (
            rt, j.T * 8 / rt, j.T / rt, loss_at(j, j.T // 2), 1.0))]
        out.append((t + timedelta(seconds=1), "%.4f seconds used for training." % rt))
        out.append((t + timedelta(seconds=1), "%.2f minutes used for training." % (rt / 60)))
        out.append((t + timedelta(seconds=1), "Peak reserved memory = %.3f GB." % (j.gpu["cap"] * 0.8)))
        for r in ranks_on(j, node):
            w = destroy_warn(j, r, t + timedelta(seconds=3))
            if w:
                out.append((t + timedelta(seconds=3), w))
        return out

    return dict(cmd=cmd, rank_init=rank_init, main_init=main_init, progress=progress, finish=finish,
                name=j.script, head="torchrun")


def render_unsloth(j, F, fates):
    st = unsloth_style(j)
    inc = choose_nodes(j, F)
    for n in inc:
        j.files["terminal_%s.txt" % j.hosts[n] if j.nn > 1 else "terminal.txt"] = torchrun_console(j, F, fates, n, st)
    if F.get("slow") and j.rank_timing:
        c = F["slow"]["rank"]
        j.cul_marks.append("[rank%d] step %d fwd_bwd=" % (c, F["slow"]["from"] + (j.log_every - F["slow"]["from"] % j.log_every) % j.log_every + j.log_every))
    return inc


# ================================================================= layout: torchtune
def tt_log(level, msg):
    return "%s:torchtune.utils._logging:%s" % (level, msg)


def setup_torchtune(j):
    rng = j.rng
    base_setup(j, ["2.5.1", "2.6.0", "2.7.1", "2.8.0"], [(1, 7), (2, 3)], [(2, 2), (4, 3), (8, 5)],
               [("A100", 3), ("H100", 3), ("L40S", 1), ("4090", 1), ("A6000", 1)], [("hpc", 3), ("aws", 2), ("docker", 2), ("lab", 1)])
    j.launcher = "torchrun"
    common_env(j, ["/home/{user}/.conda/envs/tune/lib/python{py}/site-packages", "/opt/conda/lib/python{py}/site-packages",
                   "/home/{user}/venv/lib/python{py}/site-packages"])
    net_setup(j)
    j.sched = "slurm" if j.scheme == "hpc" and rng.random() < 0.5 else None
    pick_model(j, big_ok=j.world >= 8)
    j.ds = False
    j.fsdp = True
    set_train_shape(j, False)
    j.coll_ops = ["_ALLGATHER_BASE", "_ALLGATHER_BASE", "_REDUCE_SCATTER_BASE", "ALLREDUCE"]
    j.cps = rng.randint(60, 500)
    j.epochs = rng.choice([1, 2, 3])
    spe = rng.choice([207, 312, 620, 1038, 1250])
    j.T = spe * j.epochs
    j.spe = spe
    j.save_every = spe
    j.start_step = 0
    j.save_s = rng.uniform(60, 300)
    j.log_every = 1
    j.tf = "4.51.3"
    j.timeout_s = 600
    j.timeout_ms = 600000
    j.port = 29500
    j.loss0 = rng.uniform(1.1, 2.0)
    j.lr = 2e-5
    j.recipe = rng.choice(["full_finetune_distributed", "lora_finetune_distributed"])
    j.tcfg = {"llama": "llama3_1/8B_full" if j.nparams < 20e9 else "llama3_1/70B_full", "qwen2": "qwen2_5/7B_full", "qwen3": "qwen3/8B_full",
              "mistral": "mistral/7B_full", "gemma2": "gemma2/9B_full"}[j.arch]
    if j.recipe.startswith("lora"):
        j.tcfg = j.tcfg.replace("full", "lora")
    j.out_root = "/tmp/torchtune/%s" % j.tcfg.replace("/", "_")
    j.worker_cmd = "%s %s/recipes/%s.py --config %s" % (j.pybin, j.sp, j.recipe, j.tcfg)
    sp = j.sp
    rf = sp + "/recipes/%s.py" % j.recipe
    mc = modcall(j)

    def frames(mid):
        F = [(rf, 1090, "<module>", "sys.exit(recipe_main())"),
             (sp + "/torchtune/config/_parse.py", 99, "wrapper", "sys.exit(recipe_main(conf))"),
             (rf, 1085, "recipe_main", "recipe.train()")]
        if mid == "data":
            F.append((rf, 872, "train", "for idx, batch in enumerate(self._dataloader):"))
            F.append((sp + "/torchdata/stateful_dataloader/stateful_dataloader.py", 450, "__next__", "return super().__next__()"))
            return F + torch_dl(j, "exited")
        if mid == "save":
            F.append((rf, 1011, "train", "self._checkpoint_client.save_checkpoint("))
            F.append((sp + "/torchtune/training/checkpointing/_checkpoint_client.py", 363, "save_checkpoint", "self._save_checkpoint_sync("))
            F.append((sp + "/torchtune/training/checkpointing/_checkpoint_client.py", 280, "_save_checkpoint_sync", "checkpointer.save_checkpoint("))
            F.append((sp + "/torchtune/training/checkpointing/_checkpointer.py", 702, "save_checkpoint", "save_file(model_state_dict, output_path, metadata={\"format\": \"pt\"})"))
            F.append((sp + "/safetensors/torch.py", 286, "save_file", "serialize_file(_flatten(tensors), filename, metadata=metadata)"))
            return F
        if mid == "bwd":
            F.append((rf, 922, "train", "current_loss.backward()"))
            return F + torch_bwd(j)
        if mid == "opt":
            F.append((rf, 945, "train", "self._optimizer.step()"))
            return F
        F.append((rf, 914, "train", "current_loss = self._loss_step(batch) * current_num_tokens"))
        F.append((rf, 826, "_loss_step", "outputs = self._model(**batch)"))
        F += mc
        F.append((sp + "/torchtune/modules/transformer.py", 648, "forward", "h = layer("))
        return F + mc
    j.frames = frames

    def leaf(l):
        m = sp + "/torchtune/modules/"
        if l == "attn":
            return [(m + "transformer.py", 122, "forward", "attn_out = self.attn(h, h, mask=mask, input_pos=input_pos)")] + mc + [
                (m + "attention.py", 301, "forward", "output = self._attention_call("),
                (m + "attention_utils.py", 246, "_attention_call", "return nn.functional.scaled_dot_product_attention(")]
        if l in ("logits", "loss"):
            return [(m + "transformer.py", 672, "forward", "output = self.unembed(h)"), (m + "transformer.py", 562, "unembed", "output = self.output(h).float()")]
        if l == "mlp":
            return [(m + "transformer.py", 132, "forward", "mlp_out = self.mlp(self.mlp_norm(h))")] + mc + [(m + "feed_forward.py", 51, "forward", "h = self.activation(self.w1(x))")]
        return [(m + "transformer.py", 122, "forward", "attn_out = self.attn(h, h, mask=mask, input_pos=input_pos)")]
    j.model_leaf_override = leaf
    j.ds_is_collator = False
    j.ds_frames = [(sp + "/torchtune/datasets/_sft.py", 118, "__getitem__", "return self._prepare_sample(sample)"),
                   (sp + "/torchtune/datasets/_sft.py", 124, "_prepare_sample", "transformed_sample = self._message_transform(sample)"),
                   (sp + "/torchtune/data/_messages.py", 312, "__call__", "for message in sample[self._column_map[\"conversations\"]]:")]
    j.img_frame = (sp + "/torchtune/data/_utils.py", 135, "load_image")
    j.tok_file = sp + "/torchtune/modules/transforms/tokenizers/_hf_tokenizer.py"


def torchtune_style(j):
    rng = j.rng

    def cmd(j, node):
        t = j.t0
        c = "tune run --nproc_per_node %d %s --config %s" % (j.gpn, j.recipe, j.tcfg)
        if j.nn > 1:
            c = "tune run --nnodes %d --nproc_per_node %d --rdzv_id %d --rdzv_backend c10d --rdzv_endpoint %s:%d %s --config %s" % (
                j.nn, j.gpn, rng.randint(100, 999), j.hosts[0], j.port, j.recipe, j.tcfg)
        c += " output_dir=%s epochs=%d" % (j.out_root, j.epochs)
        return [(t, "$ " + c), (t + timedelta(seconds=1), "Running with torchrun...")]

    def rank_init(j, r):
        out = []
        t = j.t0 + timedelta(seconds=rng.uniform(6, 14))
        if r == 0:
            out.append((t, tt_log("INFO", "Running %s with resolved config:" % ("FullFinetuneRecipeDistributed" if j.recipe.startswith("full") else "LoRAFinetuneRecipeDistributed"))))
            cfg = ["", "batch_size: %d" % rng.choice([2, 4, 8]), "checkpointer:", "  _component_: torchtune.training.FullModelHFCheckpointer",
                   "  checkpoint_dir: %s" % j.model_dir, "  checkpoint_files:", "    filename_format: model-{}-of-{}.safetensors",
                   "    max_filename: '0000%d'" % max(2, int(j.nparams / 4e9)), "  model_type: %s" % j.arch.upper().replace("2", "2").replace("LLAMA", "LLAMA3"),
                   "  output_dir: %s" % j.out_root, "  recipe_checkpoint: null", "clip_grad_norm: null", "compile: false",
                   "dataset:", "  _component_: torchtune.datasets.alpaca_dataset", "  packed: false", "device: cuda", "dtype: bf16",
                   "enable_activation_checkpointing: true", "enable_activation_offloading: false", "epochs: %d" % j.epochs,
                   "gradient_accumulation_steps: 1", "log_every_n_steps: 1", "log_peak_memory_stats: true",
                   "loss:", "  _component_: torchtune.modules.loss.LinearCrossEntropyLoss", "max_steps_per_epoch: null",
                   "metric_logger:", "  _component_: torchtune.training.metric_logging.DiskLogger", "  log_dir: %s/logs" % j.out_root,
                   "optimizer:", "  _component_: torch.optim.AdamW", "  fused: true", "  lr: 2.0e-05", "output_dir: %s" % j.out_root,
                   "resume_from_checkpoint: false", "seed: null", "shuffle: true", ""]
            out += [(t, x) for x in cfg]
            sd = rng.randint(10 ** 8, 4 * 10 ** 9)
            out.append((t + timedelta(seconds=1), tt_log("DEBUG", "Setting manual seed to local seed %d. Local seed is seed + rank = %d + 0" % (sd, sd))))
            j.tt_log_ts = int((j.t0 - datetime(1970, 1, 1)).total_seconds()) + 15
            out.append((t + timedelta(seconds=1), "Writing logs to %s/logs/log_%d.txt" % (j.out_root, j.tt_log_ts)))
            out.append((t + timedelta(seconds=2), tt_log("INFO", "FSDP is enabled. Instantiating model and loading checkpoint on Rank 0 ...")))
            tm = j.t0 + timedelta(seconds=j.init_s * 0.6)
            out.append((tm, tt_log("INFO", "Instantiating model and loading checkpoint took %.2f secs" % rng.uniform(5, 80))))
            out.append((tm, tt_log("INFO", "Memory stats after model init:\n\tGPU peak memory allocation: %.2f GiB\n\tGPU peak memory reserved: %.2f GiB\n\tGPU peak memory active: %.2f GiB" % (
                j.nparams * 2 / 1e9 / j.world + 0.3, j.nparams * 2 / 1e9 / j.world + 0.4, j.nparams * 2 / 1e9 / j.world + 0.3))))
            for m in ["Optimizer is initialized.", "Loss is initialized.", "Dataset and Sampler are initialized.", "Learning rate scheduler is initialized."]:
                out.append((tm + timedelta(seconds=3), tt_log("INFO", m)))
            out.append((tm + timedelta(seconds=3), tt_log("WARNING", " Profiling disabled.")))
            out.append((tm + timedelta(seconds=3), tt_log("INFO", " Profiler config after instantiation: {'enabled': False}")))
        bw = barrier_warn(j, r, t + timedelta(seconds=2))
        if bw:
            out.append((t + timedelta(seconds=2), bw))
        return out

    def main_init(j, node):
        return []

    def progress(j, node, S, upto):
        if node != 0:
            return
        hist = []
        for k in range(1, upto + 1):
            ep = (k - 1) // j.spe
            kin = (k - 1) % j.spe + 1
            t = j.step_t[k]
            hist.append((t - j.step_t[k - 1]).total_seconds())
            hist = hist[-8:]
            e0 = j.step_t[ep * j.spe] if ep * j.spe in j.step_t else j.t_train0
            el = (t - e0).total_seconds()
            S.add(t, tqdm_bar(kin, j.spe, el, sum(hist) / len(hist), desc="%d|%d|Loss: %s" % (ep + 1, k, repr(loss_at(j, k)))), "bar")
            if kin == j.spe and k < j.T or (kin == j.spe and k == j.T and j.F["kind"] == "finish"):
                ts = t + timedelta(seconds=1)
                S.add(ts, tt_log("INFO", "Saving checkpoint. This may take some time. Retrieving full model state dict..."))
                if not (j.F["phase"] == "save" and j.F["fs"] == k):
                    S.add(ts + timedelta(seconds=j.save_s * 0.3), tt_log("INFO", "Getting full model state dict took %.2f secs" % (j.save_s * 0.3)))
                    nsh = max(2, int(j.nparams / 4e9))
                    for q in range(nsh):
                        S.add(ts + timedelta(seconds=j.save_s * (0.4 + 0.1 * q)), tt_log("INFO", "Model checkpoint of size %.2f GiB saved to %s/epoch_%d/model-%05d-of-%05d.safetensors" % (
                            rng.uniform(3.5, 4.9), j.out_root, ep, q + 1, nsh)))
                    S.add(ts + timedelta(seconds=j.save_s * 0.95), tt_log("INFO", "Saving checkpoint took %.2f secs" % (j.save_s * 0.95)))

    def finish(j, node):
        out = []
        t = j.t_end - timedelta(seconds=5)
        for r in ranks_on(j, node):
            w = destroy_warn(j, r, t)
            if w:
                out.append((t, w))
        return out

    return dict(cmd=cmd, rank_init=rank_init, main_init=main_init, progress=progress, finish=finish,
                name="%s/recipes/%s.py" % (j.sp, j.recipe), head="tune")


def render_torchtune(j, F, fates):
    rng = j.rng
    st = torchtune_style(j)
    inc = choose_nodes(j, F)
    for n in inc:
        name = "tune_run_%s.txt" % j.hosts[n] if j.nn > 1 else "tune_run.txt"
        txt = torchrun_console(j, F, fates, n, st)
        if j.sched == "slurm":
            txt += slurm_tail(j, F, fates, n)
        j.files[name] = txt
    if rng.random() < 0.65 and 0 in inc:
        rows = []
        for k in range(1, j.upto + 1):
            d = (j.step_t[k] - j.step_t[k - 1]).total_seconds()
            tps = rng.uniform(2600, 3100) * (j.dt / d)
            rows.append("Step %d | loss:%s lr:%s tokens_per_second_per_gpu:%s peak_memory_active:%s peak_memory_alloc:%s peak_memory_reserved:%s" % (
                k, repr(loss_at(j, k)), repr(lr_at(j, k) or 2e-05), repr(round(tps, 4)), repr(round(j.gpu["cap"] * 0.7, 4)), repr(round(j.gpu["cap"] * 0.68, 4)), repr(round(j.gpu["cap"] * 0.8, 4))))
        j.files["log_%d.txt" % getattr(j, "tt_log_ts", 1700000000)] = "\n".join(rows[-1500:]) + "\n"
    return inc


# ================================================================= layout: HF Trainer + DeepSpeed launcher (pdsh)
def setup_ds(j):
    rng = j.rng
    base_setup(j, ["2.1.2", "2.2.2", "2.3.1", "2.4.1", "2.5.1", "2.6.0"], [(2, 3), (4, 4), (8, 3), (16, 2), (32, 1), (64, 1)],
               [(8, 1)], [("A100", 3), ("H100", 3), ("H800", 2), ("A800", 2)], [("hpc", 5), ("aws", 2)])
    j.launcher = "deepspeed"
    common_env(j, ["/opt/conda/lib/python{py}/site-packages", "/usr/local/lib/python{py}/dist-packages",
                   "/home/{user}/miniconda3/envs/ds/lib/python{py}/site-packages"])
    net_setup(j)
    j.sched = "slurm" if j.scheme == "hpc" and rng.random() < 0.5 else None
    pick_model(j)
    j.ds = True
    set_train_shape(j, rng.random() < 0.85)
    j.tf = rng.choice(["4.45.2", "4.46.1", "4.49.0"])
    j.timeout_s = rng.choice([1800, 1800, 3600, 600])
    j.timeout_ms = j.timeout_s * 1000
    j.port = 29500
    j.epochs = rng.choice([1.0, 2.0])
    j.loss0 = rng.uniform(1.2, 2.2)
    j.lr = rng.choice([1e-5, 2e-5])
    j.wd = rng.choice(["/workspace/sft", home(j) + "/llm-sft", "/mnt/lustre/%s/sft" % j.user])
    j.out_dir = j.wd + "/output"
    j.out_root = j.out_dir
    j.worker_cmd = "%s -u train.py --deepspeed ds_config.json" % j.pybin
    j.rank_timing = rng.random() < 0.4
    entry = [(j.wd + "/train.py", rng.randint(300, 420), "<module>", "main()"),
             (j.wd + "/train.py", rng.randint(250, 299), "main", "trainer.train(resume_from_checkpoint=training_args.resume_from_checkpoint)")]
    j.frames = lambda mid: hf_frames(j, mid, entry, None)
    j.ds_is_collator = False
    j.ds_frames = [(j.wd + "/data.py", 88, "__getitem__", "ex = json.loads(self.lines[idx])")]
    j.img_frame = (j.wd + "/data.py", 120, "load_image")
    j.tok_file = j.sp + "/transformers/tokenization_utils_base.py"


def render_ds(j, F, fates):
    rng = j.rng
    S = Stream("term")
    P = lambda n: j.hosts[n] + ": "
    fmt = lambda t, n: f_ds(loc(j, t, n))
    t = j.t0
    l0 = j.hosts[0]
    S.add(t, "$ deepspeed --hostfile hostfile --master_addr %s --master_port %d train.py --deepspeed ds_config.json --model_name_or_path %s --output_dir %s --bf16 --gradient_checkpointing True" % (
        j.ips[0], j.port, j.model_dir, j.out_dir))
    S.add(t + timedelta(seconds=2), fmt(t, 0) + " [INFO] [real_accelerator.py:%d:get_accelerator] Setting ds_accelerator to cuda (auto detect)" % rng.choice([161, 191, 203, 219]))
    S.add(t + timedelta(seconds=3), fmt(t, 0) + " [INFO] [multinode_runner.py:80:get_cmd] Running on the following workers: %s" % ",".join(j.hosts))
    S.add(t + timedelta(seconds=3), fmt(t, 0) + " [INFO] [runner.py:568:main] cmd = pdsh -S -f 1024 -w %s export PYTHONPATH=%s; export NCCL_DEBUG=%s; cd %s; %s -u -m deepspeed.launcher.launch --world_info=%s --node_rank=%%n --master_addr=%s --master_port=%d train.py --deepspeed ds_config.json" % (
        ",".join(j.hosts) if j.nn <= 8 else "%s,...,%s" % (j.hosts[0], j.hosts[-1]), j.wd, j.nccl_debug or "WARN", j.wd, j.pybin, "eyJ" + hx(rng, 40), j.ips[0], j.port))
    wi = "{%s}" % ", ".join("'%s': [%s]" % (h, ", ".join(str(x) for x in range(j.gpn))) for h in j.hosts)
    for n in range(j.nn):
        tn = t + timedelta(seconds=rng.uniform(4, 7))
        S.add(tn, P(n) + fmt(tn, n) + " [INFO] [launch.py:146:main] WORLD INFO DICT: %s" % wi)
        S.add(tn, P(n) + fmt(tn, n) + " [INFO] [launch.py:152:main] nnodes=%d, num_local_procs=%d, node_rank=%d" % (j.nn, j.gpn, n))
        S.add(tn, P(n) + fmt(tn, n) + " [INFO] [launch.py:164:main] dist_world_size=%d" % j.world)
        S.add(tn, P(n) + fmt(tn, n) + " [INFO] [launch.py:168:main] Setting CUDA_VISIBLE_DEVICES=%s" % ",".join(str(x) for x in range(j.gpn)))
        for r in ranks_on(j, n):
            S.add(tn + timedelta(milliseconds=20), P(n) + fmt(tn, n) + " [INFO] [launch.py:256:main] process %d spawned with command: ['%s', '-u', 'train.py', '--local_rank=%d', '--deepspeed', 'ds_config.json']" % (
                j.pid[r], j.pybin, lrank(j, r)))
        for r in ranks_on(j, n):
            tr = tn + timedelta(seconds=rng.uniform(5, 12))
            S.add(tr, P(n) + fmt(tr, n) + " [INFO] [comm.py:652:init_distributed] cdb=None")
            bw = barrier_warn(j, r, tr)
            if bw:
                S.add(tr, P(n) + bw)
        if j.nccl_debug == "INFO" and (j.world <= 64 or n in (0, F.get("cnode"))):
            tnc = j.t0 + timedelta(seconds=j.init_s * 0.4)
            for r in ranks_on(j, n):
                for k, x in enumerate(nccl_init_lines(j, r)[:9]):
                    S.add(tnc + timedelta(milliseconds=k * 9 + rng.randint(0, 50)), P(n) + x)
    tr = j.t_train0 - timedelta(seconds=3)
    hfl = lambda t, msg: P(0) + "%s - INFO - transformers.trainer - %s" % (loc(j, t, 0).strftime("%m/%d/%Y %H:%M:%S"), msg)
    msgs = ["***** Running training *****", "  Num examples = {:,}".format(rng.randint(10 ** 5, 3 * 10 ** 6)), "  Num Epochs = %d" % j.epochs,
            "  Instantaneous batch size per device = 1", "  Total train batch size (w. parallel, distributed & accumulation) = %d" % (j.world * 4),
            "  Gradient Accumulation steps = 4", "  Total optimization steps = {:,}".format(j.T), "  Number of trainable parameters = {:,}".format(j.nparams)]
    if j.start_step:
        msgs += ["  Continuing training from checkpoint, will skip to saved global_step", "  Continuing training from epoch 0",
                 "  Continuing training from global step %d" % j.start_step]
    for m in msgs:
        S.add(tr, hfl(tr, m))
    if j.zero3:
        S.add(tr - timedelta(seconds=20), P(0) + "Parameter Offload: Total persistent parameters: %d in %d params" % (rng.randint(100000, 900000), rng.randint(100, 400)))
    slow = F.get("slow")
    for k in range(j.start_step + 1, j.upto + 1):
        tk = j.step_t[k]
        if k % j.log_every == 0:
            S.add(tk, P(0) + hf_loss_dict(j, k))
        if j.rank_timing and k % (j.log_every * 5) == 0:
            show = list(range(j.world)) if j.world <= 32 else sorted(set([0, 1, j.world - 1] + ([slow["rank"]] if slow else []) + rng.sample(range(j.world), 6)))
            for r in show:
                d = j.dt * rng.uniform(0.95, 1.05)
                st_ = d * (slow["factor"] if slow and k >= slow["from"] else 1.0)
                comp = d * 0.8 * (slow["factor"] if (slow and k >= slow["from"] and r == slow["rank"]) else 1.0)
                S.add(tk + timedelta(milliseconds=rng.randint(1, 500)), P(node_of(j, r)) + "[rank%d] step %d: step_time=%.2fs compute=%.2fs data_time=%.3fs" % (r, k, st_, comp, rng.uniform(0.001, 0.02)))
        if j.save_every and k % j.save_every == 0 and k < j.T:
            for n in range(j.nn):
                if j.world > 64 and n not in (0, F.get("cnode")):
                    continue
                stop = F["culprit"] if (k == F["fs"] and F["phase"] == "save" and F["kind"] == "stall") else None
                for tt, x in ds_save_lines(j, n, k, tk, j.out_dir, lambda q: fmt(q, n), stop_rank=stop):
                    if k == F["fs"] and F["phase"] == "save" and tt > F["t_f"] + timedelta(seconds=30):
                        continue
                    S.add(tt, P(n) + x)
    if slow and j.rank_timing:
        j.cul_marks.append("[rank%d] step %d: step_time=" % (slow["rank"], ((slow["from"] // (j.log_every * 5)) + 1) * j.log_every * 5))
    for r in range(j.world):
        for tt, x in F["pre"].get(r, []):
            S.add(tt, P(node_of(j, r)) + x)
    for n in range(j.nn):
        for tt, x in j.node_noise.get(n, []):
            if tt < j.t_end:
                S.add(tt, P(n) + x)
    # rank ends
    for r in range(j.world):
        n = node_of(j, r)
        f = fates[r]
        off = 0
        for x in rank_end_lines(j, r, f):
            off += rng.randint(5, 300)
            S.add(f["t"] + timedelta(microseconds=off), P(n) + x)
    # per node launcher
    for n in range(j.nn):
        rs = ranks_on(j, n)
        if all(fates[r]["kind"] == "ok" for r in rs):
            te = fates[rs[0]]["t"] + timedelta(seconds=2)
            for r in rs:
                S.add(te, P(n) + fmt(te, n) + " [INFO] [launch.py:351:main] Process %d exits successfully." % j.pid[r])
            continue
        failed = sorted([r for r in rs if fates[r]["kind"] not in ("term", "ok", "sched", "user")], key=lambda r: fates[r]["t"])
        if failed:
            r0 = failed[0]
            tk = j.t_kill.get(n, fates[r0]["t"] + timedelta(seconds=rng.uniform(0.5, 2.5)))
            for r in rs:
                S.add(tk, P(n) + fmt(tk, n) + " [INFO] [launch.py:319:sigkill_handler] Killing subprocess %d" % j.pid[r])
            line = P(n) + fmt(tk, n) + " [ERROR] [launch.py:325:sigkill_handler] ['%s', '-u', 'train.py', '--local_rank=%d', '--deepspeed', 'ds_config.json'] exits with return code = %d" % (
                j.pybin, lrank(j, r0), fates[r0]["code"])
            S.add(tk + timedelta(milliseconds=300), line)
            if r0 == F.get("culprit"):
                j.cul_marks.append(line)
            S.add(tk + timedelta(seconds=1), "pdsh@%s: %s: ssh exited with exit code %d" % (l0, j.hosts[n], abs(fates[r0]["code"]) if fates[r0]["code"] > 0 else 1))
        elif any(fates[r]["kind"] == "sched" for r in rs):
            tk = min(fates[r]["t"] for r in rs)
            if F["kind"] == "preempt" and F.get("scope") == "node":
                S.add(tk + timedelta(seconds=1), "pdsh@%s: %s: ssh exited with exit code 255" % (l0, j.hosts[n]))
            else:
                for r in rs:
                    S.add(tk, P(n) + fmt(tk, n) + " [INFO] [launch.py:319:sigkill_handler] Killing subprocess %d" % j.pid[r])
        elif any(fates[r]["kind"] == "user" for r in rs):
            tk = min(fates[r]["t"] for r in rs)
            for r in rs:
                S.add(tk, P(n) + fmt(tk, n) + " [INFO] [launch.py:319:sigkill_handler] Killing subprocess %d" % j.pid[r])
    if F["kind"] == "finish":
        S.add(j.t_end, P(0) + "{'train_runtime': %.4f, 'train_samples_per_second': %.3f, 'train_steps_per_second': %.3f, 'train_loss': %.4f, 'epoch': %.1f}" % (
            (j.step_t[j.T] - j.t_train0).total_seconds(), 12.3, 0.05, loss_at(j, j.T // 2), j.epochs))
    if any(f["kind"] == "user" for f in fates.values()):
        tu = min(f["t"] for f in fates.values() if f["kind"] == "user")
        S.add(tu - timedelta(seconds=0.5), "^C" + fmt(tu, 0) + " [INFO] [runner.py:596:sigkill_handler] Killing subprocess %d" % rng.randint(10000, 99999))
    txt = S.render()
    if j.sched == "slurm":
        txt += slurm_tail(j, F, fates, 0)
    j.files["train_%s.log" % loc(j, j.t0, 0).strftime("%Y%m%d_%H%M")] = txt
    j.files["hostfile"] = "".join("%s slots=%d\n" % (h, j.gpn) for h in j.hosts)
    cfg = {"bf16": {"enabled": True}, "zero_optimization": {"stage": 3 if j.zero3 else 2, "overlap_comm": True, "contiguous_gradients": True,
           "reduce_bucket_size": "auto"}, "gradient_accumulation_steps": "auto", "gradient_clipping": "auto", "steps_per_print": 2000,
           "train_batch_size": "auto", "train_micro_batch_size_per_gpu": "auto", "wall_clock_breakdown": False}
    if j.zero3:
        cfg["zero_optimization"].update({"stage3_prefetch_bucket_size": "auto", "stage3_param_persistence_threshold": "auto",
                                         "stage3_max_live_parameters": 1e9, "stage3_max_reuse_distance": 1e9, "stage3_gather_16bit_weights_on_model_save": True})
    j.files["ds_config.json"] = json.dumps(cfg, indent=2) + "\n"
    return list(range(j.nn))


# ================================================================= layout: Composer / LLM Foundry
def setup_composer(j):
    rng = j.rng
    base_setup(j, ["2.1.2", "2.2.2", "2.3.1", "2.4.1", "2.5.1"], [(1, 5), (2, 3), (4, 3), (8, 1)], [(8, 1)],
               [("A100", 4), ("H100", 4)], [("hpc", 4), ("aws", 3), ("docker", 1)])
    j.launcher = "composer"
    common_env(j, ["/usr/lib/python3/dist-packages", "/usr/local/lib/python{py}/dist-packages", "/opt/conda/lib/python{py}/site-packages"])
    net_setup(j)
    j.sched = "slurm" if j.scheme == "hpc" and rng.random() < 0.5 else None
    pick_model(j)
    j.ds = False
    j.fsdp = True
    set_train_shape(j, False)
    j.start_step = 0
    j.coll_ops = ["_ALLGATHER_BASE", "_ALLGATHER_BASE", "_REDUCE_SCATTER_BASE", "ALLREDUCE"]
    j.cps = rng.randint(60, 500)
    j.tf = "4.46.1"
    j.timeout_s = rng.choice([600, 600, 1800])
    j.timeout_ms = j.timeout_s * 1000
    j.port = rng.choice([29500, 7501])
    j.epochs = 1
    j.loss0 = rng.uniform(1.0, 2.0)
    j.lr = 1e-5
    j.log_every = rng.choice([1, 5, 10])
    j.yaml = rng.choice(["yamls/finetune/mpt-7b_dolly_sft.yaml", "finetune/llama3-8b_sft.yaml", "yamls/finetune/qwen2-7b_chat.yaml"])
    j.ftr = rng.choice(["/llm-foundry", "/workspace/llm-foundry", "/mnt/code/llm-foundry"])
    j.out_root = "/tmp/checkpoints"
    j.worker_cmd = "%s %s/scripts/train/train.py %s" % (j.pybin, j.ftr, j.yaml)
    sp = j.sp
    C = sp + "/composer/trainer/trainer.py"
    mc = modcall(j)

    def frames(mid):
        F = [(j.ftr + "/scripts/train/train.py", 9, "<module>", "train_from_yaml(yaml_path, args_list)"),
             (sp + "/llmfoundry/command_utils/train.py", 631, "train_from_yaml", "return train(yaml_cfg)"),
             (sp + "/llmfoundry/command_utils/train.py", 591, "train", "trainer.fit()"),
             (C, 2427, "fit", "self._train_loop()")]
        if mid == "data":
            F.append((C, 2603, "_train_loop", "for batch_idx, self.state.batch in enumerate(self._iter_dataloader(TrainerMode.TRAIN)):"))
            F.append((C, 3600, "_iter_dataloader", "batch = next(dataloader_iter)"))
            return F + torch_dl(j, "exited")
        if mid == "save":
            F.append((C, 2717, "_train_loop", "self.engine.run_event(Event.BATCH_CHECKPOINT)"))
            F.append((sp + "/composer/core/engine.py", 294, "run_event", "self._run_nonlogger_callbacks(event)"))
            F.append((sp + "/composer/core/engine.py", 489, "_run_nonlogger_callbacks", "self._run_callbacks(event, callbacks)"))
            F.append((sp + "/composer/core/engine.py", 481, "_run_callbacks", "cb.run_event(event, self.state, self.logger)"))
            F.append((sp + "/composer/core/callback.py", 96, "run_event", "return event_cb(state, logger)"))
            F.append((sp + "/composer/callbacks/checkpoint_saver.py", 336, "batch_checkpoint", "self._save_checkpoint("))
            F.append((sp + "/composer/utils/checkpoint.py", 1119, "save_checkpoint", "dist_cp.save("))
            return F
        F.append((C, 2653, "_train_loop", "total_loss_dict = self._train_batch(use_grad_scaling)"))
        F.append((C, 2852, "_train_batch", "optimizer.step("))
        F.append((sp + "/torch/optim/lr_scheduler.py", 130, "wrapper", "return func.__get__(opt, opt.__class__)(*args, **kwargs)"))
        F.append((sp + "/torch/optim/optimizer.py", 484, "wrapper", "out = func(*args, **kwargs)"))
        F.append((sp + "/composer/optim/decoupled_weight_decay.py", 326, "step", "loss = closure()"))
        F.append((C, 2853, "<lambda>", "closure=lambda loss_dict=total_loss_dict, **kwargs: self._train_microbatches("))
        F.append((C, 2968, "_train_microbatches", "microbatch_loss_dict = self._train_microbatch(use_grad_scaling, current_batch_size, is_final_microbatch)"))
        if mid == "bwd":
            F.append((C, 3110, "_train_microbatch", "microbatch_loss.backward(create_graph=self._backwards_create_graph)"))
            return F + torch_bwd(j)
        F.append((C, 3045, "_train_microbatch", "self.state.outputs = self.state.model(self.state.batch)"))
        F += mc
        F.append((sp + "/torch/distributed/fsdp/fully_sharded_data_parallel.py", 863, "forward", "output = self._fsdp_wrapped_module(*args, **kwargs)"))
        F += mc
        F.append((sp + "/llmfoundry/models/hf/hf_causal_lm.py", 433, "forward", "return self.model("))
        return F + mc
    j.frames = frames
    j.ds_is_collator = False
    j.ds_frames = [(sp + "/streaming/base/dataset.py", 1446, "__iter__", "yield self[sample_id]"),
                   (sp + "/llmfoundry/data/finetuning/tasks.py", 618, "__getitem__", "return tokenize_formatted_example(sample, tokenizer=self.tokenizer)")]
    j.img_frame = (sp + "/llmfoundry/data/finetuning/tasks.py", 640, "load_image")
    j.tok_file = sp + "/transformers/tokenization_utils_base.py"


def composer_lines(j, F, fates, node):
    rng = j.rng
    S = Stream("term")
    r0 = node * j.gpn
    t = j.t0
    cl = lambda t, lvl, mod, msg, r=r0: "%s: rank%d[%d][MainThread]: %s: %s: %s" % (f_hf(loc(j, t, node)), r, j.pid[r], lvl, mod, msg)
    if j.nn > 1:
        S.add(t, "$ composer --world_size %d --node_rank %d --master_addr %s --master_port %d %s/scripts/train/train.py %s" % (j.world, node, j.ips[0], j.port, j.ftr, j.yaml))
    else:
        S.add(t, "$ composer %s/scripts/train/train.py %s" % (j.ftr, j.yaml))
    S.add(t + timedelta(seconds=1), "INFO:composer.cli.launcher:Starting distributed environment on local node for global_rank(%d-%d)" % (r0, r0 + j.gpn - 1))
    S.add(t + timedelta(seconds=1), "INFO:composer.cli.launcher:Distributed KV store: tcp://%s:%d" % (j.ips[0], j.port))
    for r in ranks_on(j, node):
        S.add(t + timedelta(seconds=1.1), "INFO:composer.cli.launcher:Launching process for local_rank(%d), global_rank(%d) with command(['%s', '-u', '%s/scripts/train/train.py', '%s'])" % (lrank(j, r), r, j.pybin, j.ftr, j.yaml))
    t2 = t + timedelta(seconds=rng.uniform(8, 14))
    if j.tv >= 202 and rng.random() < 0.6:
        S.add(t2, "[W Utils.hpp:135] Warning: Environment variable NCCL_ASYNC_ERROR_HANDLING is deprecated; use TORCH_NCCL_ASYNC_ERROR_HANDLING instead (function getCvarInt)")
    S.add(t2, cl(t2, "INFO", "llmfoundry.command_utils.train", "Initializing model..."))
    t3 = j.t0 + timedelta(seconds=j.init_s * 0.45)
    S.add(t3, cl(t3, "INFO", "llmfoundry.command_utils.train", "cfg.n_params=%.2e" % j.nparams))
    t4 = t3 + timedelta(seconds=rng.uniform(2, 6))
    S.add(t4, cl(t4, "INFO", "llmfoundry.command_utils.train", "Building train loader..."))
    t5 = t4 + timedelta(seconds=rng.uniform(15, 60))
    S.add(t5, cl(t5, "INFO", "llmfoundry.command_utils.train", "Building eval loader..."))
    S.add(t5 + timedelta(seconds=1), cl(t5 + timedelta(seconds=1), "INFO", "llmfoundry.command_utils.train", "Building trainer..."))
    tb = j.t0 + timedelta(seconds=j.init_s * 0.8)
    S.add(tb, cl(tb, "INFO", "composer.utils.reproducibility", "Setting seed to 17"))
    S.add(tb, cl(tb, "INFO", "composer.trainer.trainer", "Run name: %s" % j.run_name))
    S.add(tb, cl(tb, "INFO", "composer.trainer.trainer", "Stepping schedulers every batch. To step schedulers every epoch, set `step_schedulers_every_batch=False`."))
    S.add(tb + timedelta(seconds=3), cl(tb, "INFO", "composer.core.state", "Automatically setting data_parallel_shard to have parallelization degree %d." % j.world))
    S.add(j.t_train0 - timedelta(seconds=2), cl(j.t_train0, "INFO", "llmfoundry.command_utils.train", "Starting training..."))
    bw = barrier_warn(j, r0, tb)
    if bw:
        S.add(tb, bw)
    if j.nccl_debug == "INFO":
        tn = j.t0 + timedelta(seconds=j.init_s * 0.5)
        for k, x in enumerate(nccl_init_lines(j, r0)):
            S.add(tn + timedelta(milliseconds=10 * k), x)
    if node == 0:
        for k in range(j.start_step + 1, j.upto + 1):
            if k % j.log_every:
                continue
            tk = j.step_t[k]
            d = (tk - j.step_t[k - 1]).total_seconds()
            blk = ["[batch=%d/%d]:" % (k, j.T), "\t Train time/batch: %d" % (k - 1), "\t Train time/sample: %d" % ((k - 1) * j.world * 8),
                   "\t Train time/batch_in_epoch: %d" % (k - 1), "\t Train time/token: %d" % ((k - 1) * j.world * 8 * 2048),
                   "\t Train memory/current_allocated_mem: %.4f" % (j.gpu["cap"] * 0.3), "\t Train memory/peak_allocated_mem: %.4f" % (j.gpu["cap"] * 0.75),
                   "\t Train trainer/device_train_microbatch_size: %d" % j.mbs,
                   "\t Train loss/train/total: %.4f" % loss_at(j, k), "\t Train metrics/train/LanguageCrossEntropy: %.4f" % loss_at(j, k),
                   "\t Train throughput/batches_per_sec: %.4f" % (1.0 / d), "\t Train throughput/samples_per_sec: %.4f" % (j.world * 8 / d),
                   "\t Train throughput/device/batches_per_sec: %.4f" % (1.0 / d / j.world),
                   "\t Train time/train: %.4f" % ((tk - j.t_train0).total_seconds() / 3600), "\t Train time/val: 0.0000",
                   "\t Train lr-DecoupledAdamW/group0: %.4e" % lr_at(j, k)]
            if k > 10:
                blk.append("\t Train time/remaining_estimate: %.4f" % ((j.T - k) * d / 3600))
            for x in blk:
                S.add(tk, x)
            if j.save_every and k % j.save_every == 0 and k < j.T:
                S.add(tk + timedelta(seconds=1), cl(tk, "INFO", "composer.callbacks.checkpoint_saver", "Saving checkpoint to %s/ep0-ba%d-rank{rank}.pt" % (j.out_root, k)))
    for tt, x in F["pre"].get(r0, []):
        S.add(tt, x)
    for tt, x in j.node_noise.get(node, []):
        if tt < j.t_end:
            S.add(tt, x)
    f = fates[r0]
    off = 0
    for x in rank_end_lines(j, r0, f):
        off += 7
        S.add(f["t"] + timedelta(microseconds=off), x)
    rs = ranks_on(j, node)
    if all(fates[r]["kind"] == "ok" for r in rs):
        te = fates[r0]["t"]
        for r in rs:
            S.add(te + timedelta(seconds=1), "INFO:composer.cli.launcher:Rank %d finished successfully." % r)
        return S
    kinds = [fates[r]["kind"] for r in rs]
    failed = sorted([r for r in rs if fates[r]["kind"] not in ("term", "ok", "sched", "user")], key=lambda r: fates[r]["t"])
    if failed:
        tc = j.t_kill.get(node, fates[failed[0]]["t"] + timedelta(seconds=rng.uniform(0.1, 1.0)))
        crashed = [r for r in failed if fates[r]["t"] <= tc]
        first = min(crashed)
        msg = "ERROR:composer.cli.launcher:Rank %d crashed with exit code %d." % (first, fates[first]["code"])
        S.add(tc, msg)
        if first == F.get("culprit"):
            j.cul_marks.append(msg)
    else:
        tc = min(fates[r]["t"] for r in rs)
        if "user" in kinds:
            S.add(tc - timedelta(seconds=0.1), "^CCtrl-C received; terminating training processes.")
        crashed = []
    for r in rs:
        if fates[r]["t"] > tc or fates[r]["kind"] in ("term",):
            S.add(tc + timedelta(milliseconds=50), "INFO:composer.cli.launcher:Killing global rank %d (PID %d) with SIGTERM" % (r, j.pid[r]))
    S.add(tc + timedelta(milliseconds=60), "Waiting up to 30 seconds for all training processes to terminate. Press Ctrl-C to exit immediately.")
    tw = tc + timedelta(seconds=rng.uniform(1, 8))
    cur = [tw]

    def emit(x):
        cur[0] += timedelta(microseconds=1)
        S.add(cur[0], x)
    for r in rs:
        fr = fates[r]
        if fr["kind"] in ("term", "sched", "user", "ok"):
            continue
        head = "Global rank %d (PID %d) exited with code %d" % (r, j.pid[r], fr["code"])
        emit(head)
        if r == F.get("culprit"):
            j.cul_marks.append(head)
        if lrank(j, r) != 0:
            emit("----------Begin global rank %d STDOUT----------" % r)
            emit("%s: rank%d[%d][MainThread]: INFO: llmfoundry.command_utils.train: Building trainer..." % (f_hf(loc(j, j.t0 + timedelta(seconds=60), node)), r, j.pid[r]))
            emit("")
            emit("----------End global rank %d STDOUT----------" % r)
            emit("----------Begin global rank %d STDERR----------" % r)
            for _, x in F["pre"].get(r, []):
                emit(x)
            for x in rank_end_lines(j, r, fr):
                emit(x)
            emit("")
            emit("----------End global rank %d STDERR----------" % r)
    nz = [r for r in rs if fates[r]["kind"] != "ok"]
    if nz:
        r1 = min(nz)
        code = fates[r1]["code"]
        S.add(cur[0] + timedelta(seconds=1), "ERROR:composer.cli.launcher:Global rank %d (PID %d) exited with code %d" % (r1, j.pid[r1], code))
    return S


def render_composer(j, F, fates):
    rng = j.rng
    j.run_name = rng.choice(["llm", "%s-sft-%s" % (j.model_name.split("-")[0].lower(), hx(rng, 4)), "interactive-%s" % "".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghij") for _ in range(6))])
    j.mbs = rng.choice([1, 2, 4, 8])
    inc = choose_nodes(j, F)
    for n in inc:
        txt = composer_lines(j, F, fates, n).render()
        if j.sched == "slurm":
            txt += slurm_tail(j, F, fates, n)
        j.files["node%d_stdout.txt" % n if j.nn > 1 else "console.txt"] = txt
    y = ["variables:", "  global_seed: 17", "  model_name_or_path: %s" % j.model_dir, "max_seq_len: 2048", "run_name: %s" % j.run_name,
         "model:", "  name: hf_causal_lm", "  pretrained: true", "  pretrained_model_name_or_path: ${variables.model_name_or_path}",
         "train_loader:", "  name: finetuning", "  dataset:", "    remote: s3://ml-data/sft/%s" % rng.choice(["dolly", "chat_v4", "mix"]),
         "    split: train", "    shuffle: true", "  drop_last: true", "  num_workers: %d" % j.num_workers,
         "max_duration: %dba" % j.T, "global_train_batch_size: %d" % (j.world * 8), "device_train_microbatch_size: %d" % j.mbs,
         "precision: amp_bf16", "fsdp_config:", "  sharding_strategy: FULL_SHARD", "  mixed_precision: PURE", "  activation_checkpointing: true",
         "dist_timeout: %.1f" % j.timeout_s, "progress_bar: false", "log_to_console: true", "console_log_interval: %dba" % j.log_every,
         "save_folder: %s" % j.out_root, "save_interval: %s" % ("%dba" % j.save_every if j.save_every else "1ep")]
    j.files[j.yaml.split("/")[-1]] = "\n".join(y) + "\n"
    return inc


# ================================================================= layout: LitGPT under Slurm srun
SRUN_SIG = {-6: "Aborted (core dumped)", -9: "Killed", -11: "Segmentation fault (core dumped)", -7: "Bus error (core dumped)", -15: "Terminated"}


def setup_litgpt(j):
    rng = j.rng
    base_setup(j, ["2.2.2", "2.3.1", "2.4.1", "2.5.1", "2.6.0", "2.7.1"], [(1, 3), (2, 4), (4, 4), (8, 2), (16, 1)], [(4, 3), (8, 6)],
               [("A100", 4), ("H100", 4), ("A800", 1)], [("hpc", 1)])
    j.launcher = "srun"
    common_env(j, ["/home/{user}/.venvs/litgpt/lib/python{py}/site-packages", "/opt/conda/lib/python{py}/site-packages",
                   "/scratch/{user}/envs/litgpt/lib/python{py}/site-packages"])
    net_setup(j)
    j.sched = "slurm"
    j.kill_on_bad_exit = rng.random() < 0.55
    j.label = rng.random() < 0.35
    pick_model(j)
    j.ds = False
    j.fsdp = True
    set_train_shape(j, False)
    j.start_step = 0
    j.coll_ops = ["_ALLGATHER_BASE", "_ALLGATHER_BASE", "_REDUCE_SCATTER_BASE", "ALLREDUCE"]
    j.cps = rng.randint(60, 500)
    j.tf = "4.46.1"
    j.timeout_s = 1800
    j.timeout_ms = 1800000
    j.port = rng.choice([29500, 12910])
    j.epochs = rng.choice([1, 2, 5])
    j.loss0 = rng.uniform(1.2, 2.0)
    j.lr = 2e-5
    j.accum = rng.choice([1, 2, 4, 8])
    j.log_every = 1
    j.out_root = "out/finetune/full"
    j.worker_cmd = "%s/litgpt finetune full %s" % (j.bindir, "checkpoints/" + j.model_name)
    sp = j.sp
    FF = sp + "/litgpt/finetune/full.py"
    mc = modcall(j)

    def frames(mid):
        F = [(j.bindir + "/litgpt", 8, "<module>", "sys.exit(main())"),
             (sp + "/litgpt/__main__.py", 71, "main", "CLI(parser_data)"),
             (sp + "/jsonargparse/_cli.py", 119, "CLI", "return _run_component(component, init.get(subcommand))"),
             (sp + "/jsonargparse/_cli.py", 204, "_run_component", "return component(**cfg)"),
             (FF, 113, "setup", "fabric.launch(main, devices, resume, seed, config, data, checkpoint_dir, out_dir, train, eval, optimizer, num_nodes)"),
             (sp + "/lightning/fabric/fabric.py", 843, "launch", "return self._wrap_and_launch(function, self, *args, **kwargs)"),
             (sp + "/lightning/fabric/fabric.py", 928, "_wrap_and_launch", "return to_run(*args, **kwargs)"),
             (sp + "/lightning/fabric/fabric.py", 933, "_wrap_with_setup", "return to_run(*args, **kwargs)"),
             (FF, 167, "main", "token_counts = fit(")]
        if mid == "data":
            F.append((FF, 233, "fit", "batch = next(train_iterator)"))
            F.append((sp + "/litgpt/utils.py", 297, "__next__", "return next(self._iterator)"))
            F.append((sp + "/lightning/fabric/wrappers.py", 356, "__iter__", "for item in self._dataloader:"))
            return F + torch_dl(j, "exited")
        if mid == "save":
            F.append((FF, 290, "fit", "fabric.save(checkpoint_file, {\"model\": state[\"model\"]})"))
            F.append((sp + "/lightning/fabric/fabric.py", 773, "save", "self._strategy.save_checkpoint(path=path, state=_unwrap_objects(state), filter=filter)"))
            F.append((sp + "/lightning/fabric/strategies/fsdp.py", 560, "save_checkpoint", "torch.save(converted_state, path)"))
            F.append((sp + "/torch/serialization.py", 944 if j.tv >= 205 else 850, "save", "with _open_zipfile_writer(f) as opened_zipfile:"))
            return F
        if mid == "bwd":
            F.append((FF, 259, "fit", "fabric.backward(loss / train.gradient_accumulation_iters(devices, num_nodes))"))
            F.append((sp + "/lightning/fabric/fabric.py", 449, "backward", "self._strategy.backward(tensor, module, *args, **kwargs)"))
            F.append((sp + "/lightning/fabric/strategies/strategy.py", 188, "backward", "self.precision.backward(tensor, module, *args, **kwargs)"))
            F.append((sp + "/lightning/fabric/plugins/precision/fsdp.py", 129, "backward", "super().backward(tensor, model, *args, **kwargs)"))
            F.append((sp + "/lightning/fabric/plugins/precision/precision.py", 107, "backward", "tensor.backward(*args, **kwargs)"))
            return F + torch_bwd(j)
        F.append((FF, 253, "fit", "logits = model(input_ids)"))
        F += mc
        F.append((sp + "/lightning/fabric/wrappers.py", 139, "forward", "output = self._forward_module(*args, **kwargs)"))
        F += mc
        F.append((sp + "/litgpt/model.py", 94, "forward", "x = block(x, cos, sin, mask, input_pos)"))
        return F + mc
    j.frames = frames

    def leaf(l):
        M = sp + "/litgpt/model.py"
        if l in ("logits", "loss"):
            return [(M, 100, "forward", "return self.lm_head(x)  # (b, t, vocab_size)")] + mc + [(sp + "/torch/nn/modules/linear.py", 125, "forward", "return F.linear(input, self.weight, self.bias)")]
        if l == "mlp":
            return [(M, 285, "forward", "x = self.mlp(x_normed) + x")] + mc + [(M, 618, "forward", "return self.proj(x)")]
        return [(M, 272, "forward", "attention_output = self.attn(x_normed, cos, sin, mask, input_pos, input_pos_maxp1)")] + mc + [
            (M, 370, "forward", "y = self.scaled_dot_product_attention(q, k, v, mask)"),
            (M, 396, "scaled_dot_product_attention", "y = torch.nn.functional.scaled_dot_product_attention(")]
    j.model_leaf_override = leaf
    j.ds_is_collator = True
    j.ds_frames = [(sp + "/litgpt/data/base.py", 124, "__call__", "batched[key] = torch.nn.utils.rnn.pad_sequence("),
                   (sp + "/litgpt/data/base.py", 63, "__getitem__", "example = self.data[idx]")]
    j.img_frame = (sp + "/litgpt/data/base.py", 70, "load")
    j.tok_file = sp + "/litgpt/tokenizer.py"


def render_litgpt(j, F, fates):
    rng = j.rng
    S = Stream("term")
    lab = (lambda r: "%d: " % r) if j.label else (lambda r: "")
    t = j.t0
    for r in range(j.world):
        tr = t + timedelta(seconds=rng.uniform(20, 45))
        S.add(tr, lab(r) + "Initializing distributed: GLOBAL_RANK: %d, MEMBER: %d/%d" % (r, r + 1, j.world))
        bw = barrier_warn(j, r, tr + timedelta(seconds=3))
        if bw and (j.world <= 32 or r < 8):
            S.add(tr + timedelta(seconds=3), lab(r) + bw)
    tr = t + timedelta(seconds=50)
    S.add(tr, lab(0) + "-" * 100)
    S.add(tr, lab(0) + "distributed_backend=nccl")
    S.add(tr, lab(0) + "All distributed processes registered. Starting with %d processes" % j.world)
    S.add(tr, lab(0) + "-" * 100)
    S.add(tr, lab(0) + "")
    S.add(tr + timedelta(seconds=1), lab(0) + "{'checkpoint_dir': PosixPath('checkpoints/%s'), 'data': Alpaca(mask_prompt=False, val_split_fraction=0.03865, prompt_style=<litgpt.prompts.Alpaca object at 0x7f%s>, ignore_index=-100, seed=42, num_workers=%d), 'devices': %d, 'eval': EvalArgs(interval=%d, max_new_tokens=100, max_iters=100, initial_validation=False, final_validation=True), 'logger_name': 'csv', 'num_nodes': %d, 'optimizer': 'AdamW', 'out_dir': PosixPath('%s'), 'precision': 'bf16-true', 'resume': False, 'seed': 1337, 'train': TrainArgs(save_interval=%d, log_interval=1, global_batch_size=%d, micro_batch_size=%d, lr_warmup_steps=100, lr_warmup_fraction=None, epochs=%d, max_tokens=None, max_steps=None, max_seq_length=None, tie_embeddings=None, max_norm=None, min_lr=6e-05)}" % (
        j.model_name, hx(rng, 9), j.num_workers, j.gpn, rng.choice([600, 1000]), j.nn, j.out_root, j.save_every or 1000, j.world * j.accum, 1, j.epochs))
    S.add(tr + timedelta(seconds=1), lab(0) + "Seed set to 1337")
    tm = j.t0 + timedelta(seconds=j.init_s * 0.7)
    S.add(tm, lab(0) + "Number of trainable parameters: {:,}".format(j.nparams))
    S.add(j.t_train0 - timedelta(seconds=5), lab(0) + "The longest sequence length in the train data is %d, the model's maximum sequence length is %d and context length is %d" % (
        rng.choice([1024, 1305, 2048]), rng.choice([1024, 1305, 2048]), rng.choice([8192, 32768, 131072])))
    S.add(j.t_train0 - timedelta(seconds=4), lab(0) + "Verifying settings ...")
    if j.nccl_debug == "INFO":
        tn = j.t0 + timedelta(seconds=j.init_s * 0.4)
        for r in range(min(j.world, 16)):
            for k, x in enumerate(nccl_init_lines(j, r)[:8]):
                S.add(tn + timedelta(milliseconds=k * 8 + rng.randint(0, 40)), lab(r) + x)
    for k in range(j.start_step + 1, j.upto + 1):
        tk = j.step_t[k]
        d = (tk - j.step_t[k - 1]).total_seconds()
        for a in range(j.accum):
            it = (k - 1) * j.accum + a + 1
            ta = j.step_t[k - 1] + timedelta(seconds=d * (a + 1) / j.accum)
            last = a == j.accum - 1
            S.add(ta, lab(0) + "Epoch %d | iter %d step %d | loss train: %.3f, val: n/a | iter time: %.2f ms%s" % (
                1 + int(k / j.T * j.epochs * 0.999), it, k if last else k - 1, loss_at(j, k), 1000 * d / j.accum * (1.35 if last else 0.9), " (step)" if last else ""))
        if j.save_every and k % j.save_every == 0 and k < j.T:
            S.add(tk + timedelta(seconds=2), lab(0) + "Saving checkpoint to '%s/step-%06d/lit_model.pth'" % (j.out_root, k))
    for r in range(j.world):
        for tt, x in F["pre"].get(r, []):
            S.add(tt, lab(r) + x)
    off_all = 0
    for r in range(j.world):
        f = fates[r]
        off = 0
        for x in rank_end_lines(j, r, f):
            off += rng.randint(5, 300)
            S.add(f["t"] + timedelta(microseconds=off), lab(r) + x)
    # srun / slurmstepd
    cn = F.get("cnode")
    sys_ = lambda tt: f_slurm(loc(j, tt, 0, "sys"))
    if F["kind"] == "finish":
        S.add(j.t_end - timedelta(seconds=5), lab(0) + "Training time: %.2fs" % (j.step_t[j.T] - j.t_train0).total_seconds())
        S.add(j.t_end - timedelta(seconds=5), lab(0) + "Memory used: %.02f GB" % (j.gpu["cap"] * 0.78))
        S.add(j.t_end - timedelta(seconds=4), lab(0) + "Saving checkpoint to '%s/final/lit_model.pth'" % j.out_root)
    else:
        ended = sorted(range(j.world), key=lambda r: fates[r]["t"])
        first = ended[0]
        byt = {}
        for r in ended:
            f = fates[r]
            if f["kind"] in ("sched", "user"):
                continue
            key = (node_of(j, r), f["code"])
            byt.setdefault(key, []).append(r)
        if F["kind"] == "preempt" and F.get("scope") == "job" or F["kind"] == "timelimit":
            tt = F["t_f"] if F["kind"] == "preempt" else F["t_end"]
            why = " DUE TO PREEMPTION" if F["kind"] == "preempt" else (" DUE TO TIME LIMIT" if F.get("end") == "timelimit" else "")
            S.add(tt, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s%s ***" % (j.jobid, j.hosts[0], sys_(tt), why))
            S.add(tt + timedelta(seconds=0.1), "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.")
            S.add(tt + timedelta(seconds=0.2), "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s%s ***" % (j.jobid, j.hosts[0], sys_(tt), why))
            for n in range(j.nn):
                S.add(tt + timedelta(seconds=2), "srun: error: %s: tasks %d-%d: Terminated" % (j.hosts[n], n * j.gpn, n * j.gpn + j.gpn - 1))
        else:
            if j.cause == "host_oom_kill" and F.get("culprit") is not None:
                S.add(fates[F["culprit"]]["t"] + timedelta(seconds=0.5), "slurmstepd: error: Detected 1 oom_kill event in StepId=%d.0. Some of the step tasks have been OOM Killed." % j.jobid)
            for (n, code), rs in sorted(byt.items(), key=lambda x: fates[x[1][0]]["t"]):
                tt = fates[rs[0]]["t"] + timedelta(seconds=rng.uniform(0.3, 2))
                desc = ("Exited with exit code %d" % code) if code > 0 else SRUN_SIG.get(code, "Terminated")
                if j.cause == "host_oom_kill" and F.get("culprit") in rs and code == -9:
                    desc = "Out Of Memory"
                ids = rs
                txt = ("task %d" % ids[0]) if len(ids) == 1 else ("tasks " + compress_ids(ids))
                line = "srun: error: %s: %s: %s" % (j.hosts[n], txt, desc)
                S.add(tt, line)
                if F.get("culprit") in rs and len(rs) == 1:
                    j.cul_marks.append(line)
                if rs[0] == first and j.kill_on_bad_exit and code != -15:
                    S.add(tt + timedelta(seconds=0.1), "srun: launch/slurm: _step_signal: Terminating StepId=%d.0" % j.jobid)
                    S.add(tt + timedelta(seconds=0.2), "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s ***" % (j.jobid, j.hosts[0], sys_(tt)))
            sch = [r for r in range(j.world) if fates[r]["kind"] == "sched"]
            if sch:
                tt = max(fates[r]["t"] for r in sch)
                if not j.kill_on_bad_exit:
                    S.add(tt - timedelta(seconds=0.5), "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO TIME LIMIT ***" % (j.jobid, j.hosts[0], sys_(tt)))
                    F["t_limit_hit"] = True
                for n in range(j.nn):
                    rs = [r for r in sch if node_of(j, r) == n]
                    if rs:
                        S.add(tt + timedelta(seconds=1.5), "srun: error: %s: %s: Terminated" % (j.hosts[n], ("task %d" % rs[0]) if len(rs) == 1 else "tasks " + compress_ids(rs)))
                if j.kill_on_bad_exit:
                    S.add(tt + timedelta(seconds=2), "srun: Force Terminated StepId=%d.0" % j.jobid)
    txt = S.render()
    j.files["slurm-%d.out" % j.jobid] = txt
    sb = ["#!/bin/bash", "#SBATCH --job-name=litgpt-ft", "#SBATCH --nodes=%d" % j.nn, "#SBATCH --ntasks-per-node=%d" % j.gpn,
          "#SBATCH --gpus-per-node=%d" % j.gpn, "#SBATCH --cpus-per-task=%d" % rng.choice([8, 10, 12, 16]), "#SBATCH --mem=0",
          "#SBATCH --time=%s" % rng.choice(["1-00:00:00", "12:00:00", "2-00:00:00"]), "#SBATCH --output=slurm-%j.out", "",
          "module load cuda/%s" % j.cuda, "source ~/.venvs/litgpt/bin/activate", "export NCCL_DEBUG=%s" % (j.nccl_debug or "WARN"),
          "", "srun %s%slitgpt finetune full checkpoints/%s --devices %d --num_nodes %d --out_dir %s --train.epochs %d" % (
              "--kill-on-bad-exit=1 " if j.kill_on_bad_exit else "", "--label " if j.label else "", j.model_name, j.gpn, j.nn, j.out_root, j.epochs)]
    j.files["finetune.sbatch"] = "\n".join(sb) + "\n"
    if rng.random() < 0.7:
        j.files["sacct.txt"] = sacct(j, F, fates)
    return list(range(j.nn))


def slurm_nodelist(hosts):
    if len(hosts) == 1:
        return hosts[0]
    pre = hosts[0].rstrip("0123456789")
    width = len(hosts[0]) - len(pre)
    nums = []
    for h in hosts:
        if not h.startswith(pre) or not h[len(pre):].isdigit():
            return ",".join(hosts)
        nums.append(int(h[len(pre):]))
    parts = compress_ids(nums).split(",")
    out = []
    for p_ in parts:
        if "-" in p_:
            a, b = p_.split("-")
            out.append("%0*d-%0*d" % (width, int(a), width, int(b)))
        else:
            out.append("%0*d" % (width, int(p_)))
    return "%s[%s]" % (pre, ",".join(out))


def compress_ids(ids):
    ids = sorted(ids)
    out = []
    a = b = ids[0]
    for x in ids[1:]:
        if x == b + 1:
            b = x
        else:
            out.append("%d-%d" % (a, b) if a != b else "%d" % a)
            a = b = x
    out.append("%d-%d" % (a, b) if a != b else "%d" % a)
    return ",".join(out)


def sacct(j, F, fates):
    rng = j.rng
    kinds = set(f["kind"] for f in fates.values())
    if F["kind"] == "finish":
        st, ec = "COMPLETED", "0:0"
    elif F["kind"] == "preempt" and F.get("scope") == "job":
        st, ec = "PREEMPTED", "0:15"
    elif F["kind"] == "timelimit" or F.get("t_limit_hit"):
        st, ec = ("TIMEOUT", "0:0") if F.get("end") != "scancel" else ("CANCELLED by %d" % j.uid, "0:0")
    elif j.cause == "host_oom_kill" and F.get("variant") == "main":
        st, ec = "OUT_OF_MEMORY", "0:125"
    else:
        st, ec = "FAILED", "1:0"
    nl = slurm_nodelist(j.hosts)
    s = j.t0 - timedelta(seconds=rng.randint(5, 200))
    e = j.t_end
    el = f_elapsed((e - s).total_seconds())
    rows = ["$ sacct -j %d --format=JobID,JobName%%12,Partition,State%%20,ExitCode,Elapsed,NodeList%%20" % j.jobid,
            "JobID             JobName  Partition                State ExitCode    Elapsed             NodeList ",
            "------------ ------------ ---------- -------------------- -------- ---------- -------------------- "]
    part = rng.choice(["gpu", "a100", "h100", "batch", "ml"])
    rows.append("%-12s %12s %10s %20s %8s %10s %20s " % (j.jobid, "litgpt-ft", part, st, ec, el, nl))
    rows.append("%-12s %12s %10s %20s %8s %10s %20s " % ("%d.batch" % j.jobid, "batch", "", st if st != "PREEMPTED" else "CANCELLED", ec, el, j.hosts[0]))
    rows.append("%-12s %12s %10s %20s %8s %10s %20s " % ("%d.extern" % j.jobid, "extern", "", "COMPLETED", "0:0", el, nl))
    rows.append("%-12s %12s %10s %20s %8s %10s %20s " % ("%d.0" % j.jobid, "litgpt", "", st, ec, el, nl))
    return "\n".join(rows) + "\n"


# ================================================================= pipeline
LAYOUT_FNS = {}


def gen_run(seed, i, layout, cause):
    j = Job()
    j.seed, j.i, j.layout, j.cause = seed, i, layout, cause
    j.rng = random.Random("%s|%s|%d|%s|%s" % (NAME, seed, i, layout, cause))
    setup, render = LAYOUT_FNS[layout]
    setup(j)
    j.wandb = j.rng.random() < 0.5
    build_timeline(j)
    F = CAUSE_FN[cause](j)
    rng = j.rng
    if F.get("slow"):
        build_timeline(j, F["slow"])
        if F["kind"] == "timelimit":
            k_end = rng.randint(max(F["slow"]["from"] + 3, (F["slow"]["from"] + j.T) // 2), j.T - 1)
            F["t_end"] = j.step_t[k_end] + timedelta(seconds=rng.uniform(0.2, 0.9) * j.dt)
            F["t_f"] = F["t_end"]
            F["fs"] = k_end + 1
            F["end"] = rng.choice(["timelimit", "scancel", "ctrlc"]) if j.sched == "slurm" or j.launcher == "srun" else "ctrlc"
    j.F = F
    fates = resolve(j, F)
    if F["kind"] == "timelimit" and F.get("end") == "ctrlc":
        for r in fates:
            fates[r]["kind"] = "user"
            fates[r]["code"] = -2
    if F["kind"] == "finish":
        j.upto = j.T
    else:
        j.upto = last_step_before(j, F["t_f"])
    j.node_noise = sys_noise(j, F)
    j.cul_marks = []
    inc = render(j, F, fates)
    kern_nodes, extras = attach_common(j, F, inc)
    register_marks(j, F, fates)
    trim_files(j)
    rank_inf = compute_inferable(j, F, j.files)
    node = F.get("cnode")
    culprit = F.get("culprit")
    if cause in ("network",) and F.get("variant") == "fabric":
        node = None
    if cause == "preemption" and F.get("scope") == "job" and j.nn > 1:
        node = None
    if cause in ("unknown",):
        node = None
        culprit = None
    if cause is None:
        node, culprit = None, None
    if cause == "straggler" and culprit is None:
        node = None
    node_name, aliases = None, []
    if node is not None:
        if j.scheme == "k8s":
            if cause in ("gpu_hardware", "ecc_memory", "nvlink", "network", "preemption"):
                node_name = j.knodes[node]
                aliases = [j.hosts[node], j.ips[node], j.knode_ips[node]]
            else:
                node_name = j.hosts[node]
                aliases = [j.knodes[node], j.ips[node]]
        else:
            node_name = j.hosts[node]
            aliases = [a for a in [j.fqdn[node], j.ips[node]] if a != node_name]
    drain = bool(F.get("drain")) and cause in ("gpu_hardware", "ecc_memory", "nvlink", "network") and node is not None
    notes = "world=%d (%d nodes x %d GPUs %s), torch %s, NCCL %s, NCCL_DEBUG=%s, timeout=%ss; %s; cascade=%s; files from nodes %s" % (
        j.world, j.nn, j.gpn, j.gpu["name"], j.torch, j.nccl, j.nccl_debug, j.timeout_s,
        "; ".join(F["notes"]), F.get("cascade_used", F.get("cascade")),
        ("all %d nodes" % j.nn) if (len(inc) == j.nn and j.nn > 2) else ",".join(j.hosts[n] for n in inc))
    if j.decoys:
        dd = []
        for x in j.decoys:
            if x not in dd:
                dd.append(x)
        notes += "; decoys: " + "; ".join(dd)
    if j.tz_app != 0 or j.tz_sys != j.tz_app:
        notes += "; app logs UTC%+d, kernel/scheduler logs UTC%+d" % (j.tz_app, j.tz_sys)
    if any(abs(s.total_seconds()) > 30 for s in j.skew):
        k = max(range(j.nn), key=lambda x: abs(j.skew[x].total_seconds()))
        notes += "; clock of %s off by %+.0fs" % (j.hosts[k], j.skew[k].total_seconds())
    truth = {"cause": cause, "healthy": cause is None, "rank": culprit, "node": node_name, "drain": drain,
             "rank_inferable": bool(rank_inf) if culprit is not None else False,
             "node_aliases": aliases, "layout": layout, "notes": notes}
    return j, truth


def trim_files(j):
    """Keep a run under the size cap: people paste the head and the tail of huge consoles."""
    files = j.files

    def size():
        return sum(len(v.encode("utf-8")) for v in files.values())
    guard = 0
    while size() > MAX_RUN_BYTES - 6000 and guard < 10:
        big = max(sorted(files), key=lambda k: len(files[k].encode("utf-8")))
        lines = files[big].split("\n")
        over = size() - (MAX_RUN_BYTES - 6000)
        avg = max(1, len(files[big].encode("utf-8")) // max(1, len(lines)))
        drop = min(len(lines) - 50, int(over / avg * 1.15) + 20)
        keep_head = min(250, (len(lines) - drop) // 4)
        tail_n = len(lines) - drop - keep_head
        if tail_n <= 10:
            break
        files[big] = "\n".join(lines[:keep_head] + lines[-tail_n:])
        j.notes_trim = "%s: middle %d lines dropped (paste of head+tail)" % (big, drop)
        guard += 1


def write_run(outdir, i, layout, j, truth):
    d = os.path.join(outdir, "run-%03d-%s" % (i, layout))
    if os.path.isdir(d):
        shutil.rmtree(d)
    os.makedirs(d, exist_ok=True)
    files = j.files
    for name in sorted(files):
        with open(os.path.join(d, name), "w", encoding="utf-8", newline="") as fh:
            fh.write(files[name])
    with open(os.path.join(d, "truth.json"), "w") as fh:
        json.dump(truth, fh, indent=2, sort_keys=False)
        fh.write("\n")
    return d


def plan(seed, n):
    rng = random.Random("%s-plan-%s" % (NAME, seed))
    causes = CAUSES[:]
    rng.shuffle(causes)
    out = []
    k = 0
    block = []
    for i in range(n):
        if not block:
            block = LAYOUTS[:]
            rng.shuffle(block)
        layout = block.pop(0)
        if i % 7 == 3:
            out.append((i, layout, None))
        else:
            out.append((i, layout, causes[k % len(causes)]))
            k += 1
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--seed", default="1")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    counts = {}
    for i, layout, cause in plan(a.seed, a.n):
        j, truth = gen_run(a.seed, i, layout, cause)
        write_run(a.out, i, layout, j, truth)
        key = cause or "healthy"
        counts[key] = counts.get(key, 0) + 1
    print(json.dumps({k: counts[k] for k in sorted(counts)}, indent=1))


LAYOUT_FNS["lmf"] = (setup_lmf, render_lmf)
LAYOUT_FNS["axolotl"] = (setup_axolotl, render_axolotl)
LAYOUT_FNS["swift_k8s"] = (setup_swift, render_swift)
LAYOUT_FNS["unsloth"] = (setup_unsloth, render_unsloth)
LAYOUT_FNS["torchtune"] = (setup_torchtune, render_torchtune)
LAYOUT_FNS["ds_pdsh"] = (setup_ds, render_ds)
LAYOUT_FNS["composer"] = (setup_composer, render_composer)
LAYOUT_FNS["litgpt_slurm"] = (setup_litgpt, render_litgpt)

if __name__ == "__main__":
    main()
