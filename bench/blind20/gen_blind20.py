#!/usr/bin/env python3
"""gen_blind20.py -- synthetic log bundles of failed (or healthy) RL post-training jobs.

Theme: 2025-2026 reinforcement-learning post-training stacks in which one job mixes
several process kinds (Ray driver, FSDP/Megatron trainer workers, vLLM/SGLang rollout
engines, torchrun launchers, Slurm steps):

  verl-console     verl (Ray driver console only, `(WorkerDict pid=.., ip=..)` prefixes)
  verl-raylogs     verl driver console + per-node `ray logs` folders (raylet.out, worker-*.err)
  openrlhf-submit  OpenRLHF via `ray job submit` console + one node's raylet/worker logs
  nemorl-slurm     NeMo-RL on Slurm (ray.sub: slurm-JOB.out, JOB-logs/ray-head/worker/driver.log)
  trl-vllm-server  TRL GRPOTrainer (accelerate launch) + `trl vllm-serve` server log
  torchrun-ppo     plain torchrun PPO script on Slurm, per-node logs (+ kernel logs)

Written from general knowledge of what these programs print; standard library only.
Usage: python3 gen_blind20.py --out DIR --n 60 --seed S
"""
import argparse
import datetime as dt
import json
import os
import random
import re
import sys

CAUSES = ["gpu_hardware", "ecc_memory", "nvlink", "network", "cuda_oom",
          "illegal_memory_access", "python_exception", "host_oom_kill", "crash_signal",
          "preemption", "hang", "data_loader_stall", "collective_mismatch", "straggler",
          "unknown"]
DRAIN_CAUSES = ("gpu_hardware", "ecc_memory", "nvlink", "network")
LAYOUTS = ["verl-console", "verl-raylogs", "openrlhf-submit", "nemorl-slurm",
           "trl-vllm-server", "torchrun-ppo"]

MON = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
DOW = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]

# ----------------------------------------------------------------------------------------
# small helpers
# ----------------------------------------------------------------------------------------


def vge(a, b):
    def tup(x):
        return tuple(int(re.sub(r"\D.*", "", p) or 0) for p in x.split("."))
    return tup(a) >= tup(b)


def hexs(rng, n):
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


def b62(rng, n):
    a = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
    return "".join(rng.choice(a) for _ in range(n))


def addr(rng):
    return "0x7f" + hexs(rng, 10)


def fnum(x, nd=3):
    return f"{x:.{nd}f}"


class Node:
    def __init__(self, idx, host, ip, tz, skew):
        self.idx = idx
        self.host = host
        self.ip = ip
        self.tz = tz          # hours offset of the node's log clock vs UTC
        self.skew = skew      # seconds of clock error
        self.boot = 0.0       # uptime seconds at t=0


class Proc:
    """One OS process; lines are (t, text, stream, dedupable)."""

    def __init__(self, kind, node, pid, rank=None, label=None, local=None):
        self.kind = kind
        self.node = node
        self.pid = pid
        self.rank = rank
        self.label = label or kind
        self.local = local
        self.lines = []
        self.wid = None
        self.aid = None
        self.dead_at = None

    def o(self, t, text, dd=True):
        self.lines.append((t, text, "o", dd))

    def e(self, t, text, dd=True):
        self.lines.append((t, text, "e", dd))

    def eb(self, t, block, step=0.0005, dd=True):
        for i, x in enumerate(block):
            self.lines.append((t + i * step, x, "e", dd))
        return t + len(block) * step

    def pyb(self, t, block, step=0.0005):
        """uncaught Python traceback (torch's excepthook prefixes these with '[rankN]: ' under torchrun)"""
        for i, x in enumerate(block):
            self.lines.append((t + i * step, x, "p", False))
        return t + len(block) * step

    def ob(self, t, block, step=0.0005, dd=True):
        for i, x in enumerate(block):
            self.lines.append((t + i * step, x, "o", dd))
        return t + len(block) * step

    def until(self, t):
        self.lines = [x for x in self.lines if x[0] <= t]


class Ctx:
    def __init__(self, seed, idx, cause, layout):
        self.seed = seed
        self.idx = idx
        self.cause = cause
        self.layout = layout
        self.healthy = cause is None
        self.rng = random.Random(f"blind20|{seed}|{idx}|{cause}|{layout}")
        r = self.rng
        base = dt.datetime(2025, 1, 6, 0, 0, 0)
        self.t0 = base + dt.timedelta(days=r.randint(0, 560), seconds=r.randint(0, 86399))
        self.files = {}
        self.truth = {"cause": cause, "healthy": cause is None, "rank": None, "node": None,
                      "drain": bool(cause in DRAIN_CAUSES), "rank_inferable": False,
                      "node_aliases": [], "layout": layout, "notes": ""}
        self.notes = []
        self.rank_ev = []     # substrings: if any appears in output, rank is findable
        self.tv = r.choice(["2.4", "2.5", "2.6", "2.6", "2.7", "2.7"])
        self.nccl = {"2.4": "2.20.5", "2.5": "2.21.5", "2.6": "2.21.5",
                     "2.7": r.choice(["2.26.2", "2.26.5"])}[self.tv]
        self.cuda = {"2.4": "12.4", "2.5": "12.4", "2.6": "12.4", "2.7": "12.8"}[self.tv]
        self.py = r.choice(["3.10", "3.10", "3.11", "3.12"])
        self.site = (f"/usr/local/lib/python{self.py}/dist-packages" if r.random() < 0.5
                     else f"/opt/conda/envs/rl/lib/python{self.py}/site-packages")
        self.nodes = []

    def k(self, key, opts):
        """consistent per-run choice (e.g. source line numbers of one program version)"""
        if not hasattr(self, "_memo"):
            self._memo = {}
        if key not in self._memo:
            self._memo[key] = self.rng.choice(opts)
        return self._memo[key]

    # --- time -------------------------------------------------------------------------
    def when(self, t, node=None, tz=None):
        """datetime as printed by a clock on `node` (UTC + node tz + skew)."""
        off = 0.0
        if node is not None:
            off = node.tz * 3600 + node.skew
        if tz is not None:
            off = tz * 3600 + (node.skew if node is not None else 0.0)
        return self.t0 + dt.timedelta(seconds=t + off)

    def py_ts(self, t, node=None, tz=None):       # 2025-05-12 10:11:12,345
        d = self.when(t, node, tz)
        return d.strftime("%Y-%m-%d %H:%M:%S") + f",{d.microsecond // 1000:03d}"

    def iso(self, t, node=None, tz=None):         # 2025-05-12T10:11:12
        return self.when(t, node, tz).strftime("%Y-%m-%dT%H:%M:%S")

    def vts(self, t, node=None):                  # 05-12 10:11:12 (vLLM)
        return self.when(t, node).strftime("%m-%d %H:%M:%S")

    def glog(self, t, node, lvl, src, msg, rank=None):
        d = self.when(t, node)
        pre = f"[rank{rank}]:" if rank is not None else ""
        ns = d.microsecond * 1000 + self.rng.randint(0, 999)
        return f"{pre}[{lvl}{d.month}{d.day:02d} {d.strftime('%H:%M:%S')}.{ns:09d} {src}] {msg}"

    def elog(self, t, node, lvl, pid, src, msg):  # torch elastic (torchrun) python logging
        d = self.when(t, node)
        return f"{lvl}{d.strftime('%m%d %H:%M:%S')}.{d.microsecond // 1000:03d}000 {pid} {src}] {msg}"

    def dmesg_T(self, t, node):
        d = self.when(t, node)
        return f"[{DOW[d.weekday()]} {MON[d.month - 1]} {d.day:2d} {d.strftime('%H:%M:%S')} {d.year}]"

    def syslog(self, t, node, prog="kernel"):
        d = self.when(t, node)
        up = node.boot + t
        if prog == "kernel":
            return f"{MON[d.month - 1]} {d.day:2d} {d.strftime('%H:%M:%S')} {node.host} kernel: [{up:12.6f}]"
        return f"{MON[d.month - 1]} {d.day:2d} {d.strftime('%H:%M:%S')} {node.host} {prog}"

    def epoch(self, t, node=None):
        d = self.when(t, node) - dt.timedelta(hours=(node.tz if node else 0))
        return int((d - dt.datetime(1970, 1, 1)).total_seconds())

    # --- files ------------------------------------------------------------------------
    def add(self, path, lines):
        self.files.setdefault(path, []).extend(lines)

    def note(self, s):
        self.notes.append(s)


# ----------------------------------------------------------------------------------------
# node naming
# ----------------------------------------------------------------------------------------

def make_nodes(ctx, n, scheme):
    r = ctx.rng
    nodes = []
    a, b = r.choice([(10, r.randint(0, 255)), (172, r.randint(16, 31)), (192, 168)])
    c0 = r.randint(0, 200)
    start = r.randint(1, 180)
    used = []
    for i in range(n):
        c = c0 + (i * r.choice([1, 1, 2])) // 40
        d = (start + i * r.choice([1, 1, 1, 3]) + 7) % 250 + 2
        while (c, d) in used:
            d = d % 250 + 3
        used.append((c, d))
        if a == 192:
            ip = f"192.168.{c % 256}.{d}"
        else:
            ip = f"{a}.{b}.{c % 256}.{d}"
        num = start + i
        if scheme == "h100":
            host = f"gpu-h100-{num:03d}"
        elif scheme == "dgx":
            host = f"dgx{num:03d}"
        elif scheme == "aws":
            host = "ip-" + ip.replace(".", "-")
        elif scheme == "slurm":
            host = f"{ctx.slurm_prefix}{num:04d}" if hasattr(ctx, "slurm_prefix") else f"node{num:04d}"
        elif scheme == "k8s":
            host = (f"verl-head-{hexs(r, 5)}" if i == 0 else f"verl-worker-gpu-{hexs(r, 5)}")
        elif scheme == "hgx":
            host = f"hgx-{r.choice(['sjc', 'iad', 'ams'])}-{num:02d}" if i == 0 else nodes[0].host.rsplit("-", 1)[0] + f"-{num:02d}"
        else:
            host = f"node-{num:02d}"
        nodes.append(Node(i, host, ip, 0, 0.0))
    for nd in nodes:
        nd.boot = r.uniform(3, 80) * 86400
        nd.skew = r.choice([0.0, 0.0, r.uniform(-2.5, 2.5), r.uniform(-40, 40)])
    return nodes


def choose_tz(ctx):
    return ctx.rng.choice([0, 0, 8, 8, -7, -4, 1, 2, 9])


# ----------------------------------------------------------------------------------------
# torch / NCCL message emitters (strings only; no external prefixes)
# ----------------------------------------------------------------------------------------

PGL = {  # ProcessGroupNCCL.cpp line numbers by torch minor version (approximate)
    "2.4": dict(wd=607, exc=1664, some=621, avoid=627, term=1521, chk=609, tout=1709, dumpr=1391,
                obs=1336, first=1350, bar=4017),
    "2.5": dict(wd=616, exc=1785, some=630, avoid=636, term=1601, chk=618, tout=1834, dumpr=1987,
                obs=1922, first=2732, bar=4303),
    "2.6": dict(wd=616, exc=1785, some=630, avoid=636, term=1601, chk=618, tout=1834, dumpr=1987,
                obs=1922, first=2732, bar=4561),
    "2.7": dict(wd=632, exc=2017, some=658, avoid=664, term=1895, chk=635, tout=2066, dumpr=1746,
                obs=1681, first=2106, bar=4816),
}


def pgp(ctx, r, pg=0, guid="0(default_pg)"):
    if ctx.tv == "2.4":
        return f"[PG {pg} Rank {r}]"
    return f"[PG ID {pg} PG GUID {guid} Rank {r}]"


def libdir(ctx):
    return f"{ctx.site}/torch/lib"


def cpp_frames(ctx, kind):
    r = ctx.rng
    L = libdir(ctx)
    if kind == "timeout":
        fr = [("c10::Error::Error(c10::SourceLocation, std::string) + 0x96", "libc10.so"),
              ("c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >) + 0x1d2", "libtorch_cuda.so"),
              ("c10d::ProcessGroupNCCL::watchdogHandler() + 0x233", "libtorch_cuda.so"),
              ("c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d", "libtorch_cuda.so")]
    elif kind == "cuda":
        fr = [("c10::Error::Error(c10::SourceLocation, std::string) + 0x98", "libc10.so"),
              ("c10::detail::torchCheckFail(char const*, char const*, unsigned int, std::string const&) + 0xe0", "libc10.so"),
              ("c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, int, bool) + 0x3c2", "libc10_cuda.so"),
              ("c10d::ProcessGroupNCCL::WorkNCCL::finishedGPUExecutionInternal() const + 0x56", "libtorch_cuda.so"),
              ("c10d::ProcessGroupNCCL::WorkNCCL::isCompleted() + 0xa0", "libtorch_cuda.so"),
              ("c10d::ProcessGroupNCCL::watchdogHandler() + 0x617", "libtorch_cuda.so"),
              ("c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d", "libtorch_cuda.so")]
    else:  # nccl async error
        fr = [("c10::Error::Error(c10::SourceLocation, std::string) + 0x96", "libc10.so"),
              ("c10d::ProcessGroupNCCL::WorkNCCL::checkAndSetException() + 0x17e", "libtorch_cuda.so"),
              ("c10d::ProcessGroupNCCL::watchdogHandler() + 0x1c6", "libtorch_cuda.so"),
              ("c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d", "libtorch_cuda.so")]
    out = []
    for i, (f, lib) in enumerate(fr):
        out.append(f"frame #{i}: {f} ({addr(r)} in {L}/{lib})")
    n = len(fr)
    out.append(f"frame #{n}: <unknown function> + 0x{r.choice(['dc253', 'd6df4', 'ecdb4'])} ({addr(r)} in /lib/x86_64-linux-gnu/libstdc++.so.6)")
    out.append(f"frame #{n + 1}: <unknown function> + 0x94ac3 ({addr(r)} in /lib/x86_64-linux-gnu/libc.so.6)")
    out.append(f"frame #{n + 2}: clone + 0x44 ({addr(r)} in /lib/x86_64-linux-gnu/libc.so.6)")
    return out


def cuda_err_tail():
    return ["CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
            "For debugging consider passing CUDA_LAUNCH_BLOCKING=1",
            "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions."]


def cuda_exc_name(ctx):
    return "torch.AcceleratorError" if ctx.tv == "2.7" and ctx.rng.random() < 0.0 else "RuntimeError"


def wd_timeout_block(ctx, node, r, t, seq, op, nin, nout, tmo, enq, done, full=True, pg=0,
                     guid="0(default_pg)", with_glog_rank=True):
    """Lines printed by one rank whose watchdog hits a collective timeout."""
    L = PGL[ctx.tv]
    rk = r if with_glog_rank else None
    ran = tmo + ctx.rng.randint(3, 95)
    work = f"WorkNCCL(SeqNum={seq}, OpType={op}, NumelIn={nin}, NumelOut={nout}, Timeout(ms)={tmo})"
    wd = f"[Rank {r}] Watchdog caught collective operation timeout: {work} ran for {ran} milliseconds before timing out."
    out = [ctx.glog(t, node, "E", f"ProcessGroupNCCL.cpp:{L['wd']}", wd, rk)]
    if ctx.tv in ("2.4", "2.5", "2.6"):
        out.append(ctx.glog(t + 0.0002, node, "E", f"ProcessGroupNCCL.cpp:{L['exc']}",
                            f"{pgp(ctx, r, pg, guid)} Exception (either an error or timeout) detected by watchdog at work: {seq}, last enqueued NCCL work: {enq}, last completed NCCL work: {done}.", rk))
    else:
        out.append(ctx.glog(t + 0.0002, node, "E", f"ProcessGroupNCCL.cpp:{L['exc']}",
                            f"{pgp(ctx, r, pg, guid)}  failure detected by watchdog at work sequence id: {seq} PG status: last enqueued work: {enq}, last completed work: {done}", rk))
        out.append(ctx.glog(t + 0.0003, node, "E", "ProcessGroupNCCL.cpp:670",
                            "Stack trace of the failed collective not found, potentially because FlightRecorder is disabled. You can enable it by setting TORCH_NCCL_TRACE_BUFFER_SIZE to a non-zero value.", rk))
    if ctx.tv in ("2.5", "2.6") and ctx.rng.random() < 0.5:
        out.append(ctx.glog(t + 0.0004, node, "E", f"ProcessGroupNCCL.cpp:{L['tout']}",
                            f"{pgp(ctx, r, pg, guid)} Timeout at NCCL work: {seq}, last enqueued NCCL work: {enq}, last completed NCCL work: {done}.", rk))
    out.append(ctx.glog(t + 0.0005, node, "E", f"ProcessGroupNCCL.cpp:{L['some']}",
                        f"[Rank {r}] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.", rk))
    out.append(ctx.glog(t + 0.0006, node, "E", f"ProcessGroupNCCL.cpp:{L['avoid']}",
                        f"[Rank {r}] To avoid data inconsistency, we are taking the entire process down.", rk))
    if full:
        term = f"{pgp(ctx, r, pg, guid)} Process group watchdog thread terminated with exception: {wd}"
        out.append(ctx.glog(t + 0.0008, node, "E", f"ProcessGroupNCCL.cpp:{L['term']}", term, rk))
        out.append(f"Exception raised from checkTimeout at /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:{L['chk']} (most recent call first):")
        out += cpp_frames(ctx, "timeout")
        out.append("")
        out.append("terminate called after throwing an instance of 'c10::DistBackendError'")
        out.append(f"  what():  {term}")
        out.append(f"Exception raised from checkTimeout at /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:{L['chk']} (most recent call first):")
        out += cpp_frames(ctx, "timeout")
        out.append("")
    return out


def dump_signal_lines(ctx, node, r, t, src_rank, enq, done, first=False, pg=0, guid="0(default_pg)"):
    """torch>=2.5 flight-recorder dump signalling, printed by every rank after a timeout."""
    L = PGL[ctx.tv]
    out = []
    if first:
        out.append(ctx.glog(t, node, "E", f"ProcessGroupNCCL.cpp:{L['first']}",
                            f"{pgp(ctx, r, pg, guid)} First PG on this rank to signal dumping.", r))
        frm = "this local rank"
    else:
        out.append(ctx.glog(t, node, "E", f"ProcessGroupNCCL.cpp:{L['obs']}",
                            f"{pgp(ctx, r, pg, guid)} Observed flight recorder dump signal from another rank via TCPStore.", r))
        frm = f" rank {src_rank}"
    out.append(ctx.glog(t + 0.02, node, "E", f"ProcessGroupNCCL.cpp:{L['dumpr']}",
                        f"{pgp(ctx, r, pg, guid)} Received a dump signal due to a collective timeout from {frm} and we will try our best to dump the debug info. Last enqueued NCCL work: {enq}, last completed NCCL work: {done}.This is most likely caused by incorrect usages of collectives, e.g., wrong sizes used across ranks, the order of collectives is not same for all ranks or the scheduled collective, for some reason, didn't run. Additionally, this can be caused by GIL deadlock or other reasons such as network errors or bugs in the communications library (e.g. NCCL), etc. ", r))
    return out


def wd_cuda_abort_block(ctx, node, r, t, err, pg=0, guid="0(default_pg)"):
    """Watchdog thread hits a sticky CUDA error and aborts the process."""
    L = PGL[ctx.tv]
    head = f"{pgp(ctx, r, pg, guid)} Process group watchdog thread terminated with exception: CUDA error: {err}"
    out = [ctx.glog(t, node, "E", f"ProcessGroupNCCL.cpp:{L['term']}", head, r)]
    out += cuda_err_tail()
    out.append("")
    out.append("Exception raised from c10_cuda_check_implementation at /pytorch/c10/cuda/CUDAException.cpp:43 (most recent call first):")
    out += cpp_frames(ctx, "cuda")
    out.append("")
    out.append("terminate called after throwing an instance of 'c10::DistBackendError'")
    out.append(f"  what():  {head}")
    out += cuda_err_tail()
    out.append("")
    out.append("Exception raised from c10_cuda_check_implementation at /pytorch/c10/cuda/CUDAException.cpp:43 (most recent call first):")
    out += cpp_frames(ctx, "cuda")[:4]
    out.append("")
    return out


def nccl_remote_err_block(ctx, node, r, t, peer_ip, local_ip, dev, port):
    """Victim whose NCCL proxy sees the peer vanish (IB retry exceeded)."""
    out = [ctx.glog(t, node, "E", f"ProcessGroupNCCL.cpp:{PGL[ctx.tv]['term']}",
                    f"{pgp(ctx, r)} Process group watchdog thread terminated with exception: NCCL error: remote process exited or there was a network error, NCCL version {ctx.nccl}", r),
           "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.",
           "Last error:",
           f"NET/IB : Got completion from peer {peer_ip}<{port}> with status={ctx.rng.choice([12, 12, 5])} opcode={ctx.rng.choice([0, 1, 129])} len=0 vendor err {ctx.rng.choice([129, 129, 244, 249])} (Recv) localGid ::ffff:{local_ip} remoteGids::ffff:{peer_ip}",
           "Exception raised from checkForNCCLErrorsInternal at /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:2363 (most recent call first):"]
    out += cpp_frames(ctx, "nccl")
    out += ["", "terminate called after throwing an instance of 'c10::DistBackendError'",
            f"  what():  {pgp(ctx, r)} Process group watchdog thread terminated with exception: NCCL error: remote process exited or there was a network error, NCCL version {ctx.nccl}", ""]
    return out


def nccl_ib_warn(ctx, node, pid, dev, peer_ip, local_ip, kind="Recv"):
    r = ctx.rng
    tid = pid + r.randint(200, 900)
    port = r.randint(32768, 60999)
    base = f"{node.host}:{pid}:{tid} [{dev}]"
    return [f"{base} transport/net_ib.cc:{ctx.k('ib1', [1696, 2219, 1615])} NCCL WARN NET/IB : Got completion from peer {peer_ip}<{port}> with status={r.choice([12, 12, 5])} opcode={r.choice([0, 1, 129, 32616])} len=0 vendor err {r.choice([129, 129, 244])} ({kind}) localGid ::ffff:{local_ip} remoteGids::ffff:{peer_ip}",
            f"{base} NCCL INFO transport/net.cc:{ctx.k('ib2', [1298, 1302, 1330])} -> 6",
            f"{base} NCCL INFO proxy.cc:{ctx.k('ib3', [694, 698, 731])} -> 6",
            f"{base} NCCL INFO proxy.cc:{ctx.k('ib4', [874, 878, 917])} -> 6 [Progress Thread]"]


def nccl_init_lines(ctx, node, pid, local, rank, nranks, comm, commid, first=False, ifname="eth0"):
    r = ctx.rng
    base = f"{node.host}:{pid}:{pid}"
    tid = pid + r.randint(60, 400)
    b2 = f"{node.host}:{pid}:{tid}"
    bus = ["18000", "2a000", "3a000", "5d000", "9a000", "ab000", "ba000", "db000"][local % 8]
    out = []
    if first:
        out.append(f"{base} [{local}] NCCL INFO Bootstrap : Using {ifname}:{node.ip}<0>")
        out.append(f"{base} [{local}] NCCL INFO cudaDriverVersion {r.choice([12020, 12040, 12080])}")
        out.append(f"{base} [{local}] NCCL INFO NCCL version {ctx.nccl}+cuda{ctx.cuda}")
    out.append(f"{b2} [{local}] NCCL INFO NET/Plugin: Could not find: libnccl-net.so. Using internal network plugin.")
    out.append(f"{b2} [{local}] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_3:1/IB [2]mlx5_4:1/IB [3]mlx5_5:1/IB [4]mlx5_6:1/IB [5]mlx5_9:1/IB [6]mlx5_10:1/IB [7]mlx5_11:1/IB [RO]; OOB {ifname}:{node.ip}<0>")
    out.append(f"{b2} [{local}] NCCL INFO Using network IB")
    out.append(f"{b2} [{local}] NCCL INFO ncclCommInitRank comm {comm} rank {rank} nranks {nranks} cudaDev {local} nvmlDev {local} busId {bus} commId {commid} - Init START")
    out.append(f"{b2} [{local}] NCCL INFO comm {comm} rank {rank} nRanks {nranks} nNodes {max(1, nranks // 8)} localRanks {min(8, nranks)} localRank {local} MNNVL 0")
    out.append(f"{b2} [{local}] NCCL INFO ncclCommInitRank comm {comm} rank {rank} nranks {nranks} cudaDev {local} nvmlDev {local} busId {bus} commId {commid} - Init COMPLETE")
    return out


def barrier_warn(ctx, node, t, r, local):
    L = PGL[ctx.tv]
    if ctx.tv == "2.4":
        msg = f"[PG 0 Rank {r}]  using GPU {local} to perform barrier as devices used by this process are currently unknown. This can potentially cause a hang if this rank to GPU mapping is incorrect.Specify device_ids in barrier() to force use of a particular device,or call init_process_group() with a device_id."
    else:
        msg = f"[PG ID 0 PG GUID 0 Rank {r}]  using GPU {local} to perform barrier as devices used by this process are currently unknown. This can potentially cause a hang if this rank to GPU mapping is incorrect. Specify device_ids in barrier() to force use of a particular device, or call init_process_group() with a device_id."
    return ctx.glog(t, node, "W", f"ProcessGroupNCCL.cpp:{L['bar']}", msg, r)


def pg_not_destroyed(ctx, node, t, r):
    return ctx.glog(t, node, "W", "ProcessGroupNCCL.cpp:1250",
                    "Warning: WARNING: process group has NOT been destroyed before we destruct ProcessGroupNCCL. On normal program exit, the application should call destroy_process_group to ensure that any pending NCCL operations have finished in this process. In rare cases this process can exit before this point and block the progress of another member of the process group. This constraint has always been present,  but this warning has only been added since PyTorch 2.4 (function operator())", r)


def oom_msg(ctx, gpu, tried, total, free, inuse, alloc, resv):
    name = "torch.OutOfMemoryError" if ctx.tv != "2.4" else "torch.OutOfMemoryError"
    return (f"{name}: CUDA out of memory. Tried to allocate {tried:.2f} GiB. GPU {gpu} has a total capacity of {total:.2f} GiB of which {free:.2f} GiB is free. "
            f"Including non-PyTorch memory, this process has {inuse:.2f} GiB memory in use. Of the allocated memory {alloc:.2f} GiB is allocated by PyTorch, and {resv:.2f} GiB is reserved by PyTorch but unallocated. "
            "If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)")


def pyframes(items):
    """items: list of (file, line, func, code)"""
    out = ["Traceback (most recent call last):"]
    for f, ln, fn, code in items:
        out.append(f'  File "{f}", line {ln}, in {fn}')
        if code:
            out.append(f"    {code}")
    return out


# ----------------------------------------------------------------------------------------
# kernel messages
# ----------------------------------------------------------------------------------------

PCI = ["0000:18:00", "0000:2a:00", "0000:3a:00", "0000:5d:00", "0000:9a:00", "0000:ab:00", "0000:ba:00", "0000:db:00"]


def xid_line(ctx, kind, local, pid, pname):
    r = ctx.rng
    pci = PCI[local % 8]
    if kind == "gpu_hardware":
        v = r.choice(["79", "79", "119"])
        if v == "79":
            return [f"NVRM: GPU at PCI:{pci}: GPU-{hexs(r, 8)}-{hexs(r, 4)}-{hexs(r, 4)}-{hexs(r, 4)}-{hexs(r, 12)}",
                    f"NVRM: GPU Board Serial Number: 16524{r.randint(10000000, 99999999)}",
                    f"NVRM: Xid (PCI:{pci}): 79, pid={pid}, name={pname}, GPU has fallen off the bus.",
                    f"NVRM: GPU {pci}.0: GPU has fallen off the bus.",
                    f"NVRM: A GPU crash dump has been created. If possible, please run",
                    f"NVRM: nvidia-bug-report.sh as root to collect this data before",
                    f"NVRM: the NVIDIA kernel module is unloaded."]
        return [f"NVRM: Xid (PCI:{pci}): 119, pid={pid}, name={pname}, Timeout after 6s of waiting for RPC response from GPU{local} GSP! Expected function 76 (GSP_RM_CONTROL) (0x20802a02 0x8).",
                f"NVRM: GPU{local} GSP RPC buffer contains function 76 (GSP_RM_CONTROL) and data 0x0000000020802a02 0x0000000000000008.",
                f"NVRM: GPU{local} RPC history (CPU -> GSP):",
                f"NVRM: Xid (PCI:{pci}): 154, GPU recovery action changed from 0x0 (None) to 0x2 (Node Reboot Required)"]
    if kind == "ecc_memory":
        v = r.choice(["48", "94", "95"])
        if v == "48":
            return [f"NVRM: Xid (PCI:{pci}): 48, pid={pid}, name={pname}, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition {r.randint(0, 11)}, subpartition {r.randint(0, 1)}.",
                    f"NVRM: Xid (PCI:{pci}): 63, pid='<unknown>', name=<unknown>, Row Remapper: New row (0x{hexs(r, 8)}) marked for remapping, reset gpu to activate."]
        if v == "94":
            return [f"NVRM: Xid (PCI:{pci}): 94, pid={pid}, name={pname}, Contained: SM (0x1). RST: No, D-RST: No"]
        return [f"NVRM: Xid (PCI:{pci}): 95, pid={pid}, name={pname}, Uncontained: LTC TAG (0x{r.randint(0, 7)},0x0). RST: Yes, D-RST: No"]
    if kind == "nvlink":
        return [f"NVRM: Xid (PCI:{pci}): 74, pid={pid}, name={pname}, NVLink: fatal error detected on link {r.randint(0, 17)}(0x0, 0x0, 0x10000, 0x0, 0x0, 0x0, 0x0)",
                f"NVRM: Xid (PCI:{pci}): 45, pid={pid}, name={pname}, Ch 00000008"]
    if kind == "old_xid":  # benign decoy
        v = r.choice(["13", "31", "43"])
        if v == "13":
            return [f"NVRM: Xid (PCI:{pci}): 13, pid={pid}, name={pname}, Graphics SM Warp Exception on (GPC 1, TPC 3, SM 0): Out Of Range Address"]
        if v == "31":
            return [f"NVRM: Xid (PCI:{pci}): 31, pid={pid}, name={pname}, Ch 0000000a, intr 00000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_0 faulted @ 0x7f5e_8a200000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ"]
        return [f"NVRM: Xid (PCI:{pci}): 43, pid={pid}, name={pname}, Ch 00000010"]
    return []


def klines(t, lines, step=0.0004):
    step = step if len(lines) < 3 or "Cable" not in lines[-1] else 0.8
    return [(t + i * step, x) for i, x in enumerate(lines)]


def oom_kill_lines(ctx, pid, pname, rss_kb, uid=1000):
    r = ctx.rng
    return [f"{pname[:15]} invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0",
            f"oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0-1,global_oom,task_memcg=/user.slice/user-{uid}.slice/session-{r.randint(2, 900)}.scope,task={pname[:15]},pid={pid},uid={uid}",
            f"Out of memory: Killed process {pid} ({pname[:15]}) total-vm:{rss_kb + r.randint(10**7, 9 * 10**7)}kB, anon-rss:{rss_kb}kB, file-rss:{r.randint(100000, 900000)}kB, shmem-rss:{r.randint(10000, 4000000)}kB, UID:{uid} pgtables:{r.randint(100000, 400000)}kB oom_score_adj:0"]


def ib_down_lines(ctx, hca):
    r = ctx.rng
    pci = r.choice(["0000:1a:00.0", "0000:3c:00.0", "0000:5e:00.0", "0000:9b:00.0", "0000:bc:00.0", "0000:dd:00.0"])
    m = r.randint(0, 7)
    out = [f"mlx5_core {pci}: Port module event: module {m}, Cable unplugged"]
    if r.random() < 0.5:
        out += [f"mlx5_core {pci}: Port module event: module {m}, Cable plugged",
                f"mlx5_core {pci}: Port module event: module {m}, Cable unplugged"]
    return out


# ----------------------------------------------------------------------------------------
# Ray job model: driver, actors, raylets; renders a driver console and per-node ray logs
# ----------------------------------------------------------------------------------------

RAY_DEDUP_NOTE = ("(Ray deduplicates logs by default. Set RAY_DEDUP_LOGS=0 to disable log deduplication, "
                  "or see https://docs.ray.io/en/master/ray-observability/user-guides/configure-logging.html#log-deduplication for more options.)")
NUMTOK = re.compile(r"\S*\d\S*")


class RayJob:
    def __init__(self, ctx, nodes, dedup=True, job_num=1):
        self.ctx = ctx
        self.nodes = nodes
        self.head = nodes[0]
        self.dedup = dedup
        self.job_hex = f"{job_num:02x}000000"
        self.procs = []
        self.driver = []            # (t, text)
        self.raylet_console = []    # (t, node, text)
        self.raylet = {n.idx: [] for n in nodes}   # (t, lvl, pid, src, msg)
        self.rpid = {n.idx: ctx.rng.randint(1500, 9000) for n in nodes}
        self.node_id = {n.idx: hexs(ctx.rng, 56) for n in nodes}
        self.ns = f"{hexs(ctx.rng, 8)}-{hexs(ctx.rng, 4)}-{hexs(ctx.rng, 4)}-{hexs(ctx.rng, 4)}-{hexs(ctx.rng, 12)}"
        self.used_pids = set()

    def pid(self, lo=2000, hi=400000):
        r = self.ctx.rng
        while True:
            p = r.randint(lo, hi)
            if p not in self.used_pids:
                self.used_pids.add(p)
                return p

    def actor(self, label, node, rank=None, local=None, kind="actor", pid=None):
        p = Proc(kind, node, pid or self.pid(), rank=rank, label=label, local=local)
        p.wid = hexs(self.ctx.rng, 56)
        p.aid = hexs(self.ctx.rng, 24) + self.job_hex
        self.procs.append(p)
        return p

    def prefix(self, p):
        if p.node is self.head:
            return f"({p.label} pid={p.pid})"
        return f"({p.label} pid={p.pid}, ip={p.node.ip})"

    def d(self, t, text):
        self.driver.append((t, text))

    def db(self, t, block, step=0.0005):
        for i, x in enumerate(block):
            self.driver.append((t + i * step, x))
        return t + len(block) * step

    def rl(self, t, node, lvl, src, msg):
        self.raylet[node.idx].append((t, lvl, self.rpid[node.idx], src, msg))

    def rlc(self, t, node, text):
        self.raylet_console.append((t, node, text))

    def pylog(self, t, lvl, src, msg, node=None):
        return f"{self.ctx.py_ts(t, node or self.head)}\t{lvl} {src} -- {msg}"

    # ------------------------------------------------------------------------------------
    def console(self, tmax=None):
        """Merged driver console (as printed by the driver with log_to_driver=True)."""
        ev = []
        for t, x in self.driver:
            ev.append((t, 0, None, x, False))
        for t, nd, x in self.raylet_console:
            pre = "(raylet)" if nd is self.head else f"(raylet, ip={nd.ip})"
            ev.append((t, 1, pre, x, False))
        for p in self.procs:
            pre = self.prefix(p)
            for t, x, s, dd in p.lines:
                ev.append((t, 2, pre, x, dd))
        ev.sort(key=lambda e: e[0])
        out = []
        pend = {}      # key -> [first_t, count, pre, text]
        order = []
        noted = [False]

        def flush(upto):
            for k in list(order):
                b = pend[k]
                if b[0] + 5.0 <= upto:
                    if b[1] > 0:
                        line = f"{b[2]} {b[3]} [repeated {b[1]}x across cluster]"
                        if not noted[0]:
                            line += " " + RAY_DEDUP_NOTE
                            noted[0] = True
                        out.append(line)
                    del pend[k]
                    order.remove(k)
        last_seen = {}
        for t, src, pre, x, dd in ev:
            if tmax is not None and t > tmax:
                break
            if self.dedup:
                flush(t)
            if src == 0:
                out.append(x)
                continue
            if self.dedup and dd and x.strip():
                key = NUMTOK.sub("#", x)
                if key in pend:
                    b = pend[key]
                    if pre != b[4]:
                        b[1] += 1
                        b[2] = pre
                        b[3] = x
                        continue
                else:
                    seen = last_seen.get(key)
                    if seen is not None and seen[0] != pre and t - seen[1] < 5.0:
                        pend[key] = [t, 1, pre, x, seen[0]]
                        order.append(key)
                        continue
                last_seen[key] = (pre, t)
            out.append(f"{pre} {x}" if x else f"{pre} ")
        if self.dedup:
            flush(1e18 if tmax is None else tmax)   # buffers still open when the driver exits are lost
        return out

    def node_logs(self, node, tmax=None, with_workers=True):
        """Files of /tmp/ray/session_latest/logs on one node."""
        ctx = self.ctx
        files = {}
        rl = []
        for t, lvl, pid, src, msg in sorted(self.raylet[node.idx], key=lambda e: e[0]):
            if tmax is not None and t > tmax:
                continue
            rl.append(f"[{ctx.py_ts(t, node)} {lvl} {pid} {pid}] (raylet) {src}: {msg}")
        files["raylet.out"] = rl
        if with_workers:
            for p in self.procs:
                if p.node is not node:
                    continue
                o, e = [], []
                for t, x, s, dd in p.lines:
                    if tmax is not None and t > tmax:
                        continue
                    (o if s == "o" else e).append(x)
                base = f"worker-{p.wid}-{self.job_hex}-{p.pid}"
                files[base + ".out"] = [f":job_id:{self.job_hex}", f":actor_name:{p.label.split('[')[0]}"] + o
                files[base + ".err"] = [f":job_id:{self.job_hex}", f":actor_name:{p.label.split('[')[0]}"] + e
        return files

    # ------------------------------------------------------------------------------------
    def raylet_boot(self, t, node, ncpu, ngpu, mem_gb):
        ctx = self.ctx
        nid = self.node_id[node.idx]
        self.rl(t, node, "I", "main.cc:180", f"Setting cluster ID to: {hexs(ctx.rng, 56)}")
        self.rl(t + 0.01, node, "I", "main.cc:289", f"Raylet is not set to kill unknown children.")
        self.rl(t + 0.02, node, "I", "io_service_pool.cc:35", "IOServicePool is running with 1 io_service.")
        self.rl(t + 0.03, node, "I", "main.cc:419", f"Setting node ID node_id={nid}")
        self.rl(t + 0.05, node, "I", "store_runner.cc:32", f"Allowing the Plasma store to use up to {mem_gb * 0.3:.4f}GB of memory.")
        self.rl(t + 0.06, node, "I", "node_manager.cc:323", f"Initializing NodeManager node_id={nid}")
        self.rl(t + 0.07, node, "I", "node_manager.cc:340",
                f"Initializing NodeManager with resources: {{accelerator_type:H100: 1, CPU: {ncpu}, GPU: {ngpu}, memory: {mem_gb * 0.7:.3f}GiB, node:{node.ip}: 1, object_store_memory: {mem_gb * 0.3:.3f}GiB}}")
        self.rl(t + 0.10, node, "I", "memory_monitor.cc:47", "MemoryMonitor initialized with usage threshold at 95% of the system memory, usage refresh interval 250 ms")

    def raylet_worker_start(self, t, p):
        self.rl(t, p.node, "I", "worker_pool.cc:529", f"Started worker process with pid {p.pid}, the token is {self.ctx.rng.randint(2, 60)}")

    def raylet_worker_dead(self, t, p, detail, exit_type="SYSTEM_ERROR"):
        self.rl(t, p.node, "I", "node_manager.cc:1586",
                f"NodeManager::DisconnectClient, disconnect_type=3, has creation task exception = false")
        self.rl(t + 0.001, p.node, "I", "node_manager.cc:1677",
                f"Worker {p.wid} is disconnected. worker_id={p.wid} job_id={self.job_hex} actor_id={p.aid} exit_type={exit_type} exit_detail={detail}")

    # ------------------------------------------------------------------------------------
    def actor_died_text(self, p, class_name, name, cause_lines):
        out = ["ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.",
               f"\tclass_name: {class_name}",
               f"\tactor_id: {p.aid}",
               f"\tpid: {p.pid}"]
        if name:
            out.append(f"\tname: {name}")
        out += [f"\tnamespace: {self.ns}", f"\tip: {p.node.ip}"]
        return out + cause_lines


def ray_map_alts(label, p, raylogs_dir="ray_logs"):
    """regexes, any of which ties a Ray actor pid to its torch rank"""
    pre = rf"\({re.escape(label)} pid={p.pid}(, ip=[0-9.]+)?\) "
    return [f"re:{pre}\[rank{p.rank}\]:",
            f"re:{pre}\S+:{p.pid}:\d+ \[\d+\] NCCL INFO .*rank {p.rank} nranks",
            f"re:=== {raylogs_dir}/[0-9.]+/worker-\w+-\w+-{p.pid}\.(err|out)\n(?:(?!=== ).*\n)*?\[rank{p.rank}\]:"]


def glog_err_re(r, what):
    return f"re:\[rank{r}\]:\[E\d+ [0-9:.]+ ProcessGroupNCCL\.cpp:\d+\] .*{what}"


EOD_DETAIL = ("Worker unexpectedly exits with a connection error code 2. End of file. There are some potential root causes. "
              "(1) The process is killed by SIGKILL by OOM killer due to high memory usage. (2) ray stop --force is called. "
              "(3) The worker is crashed unexpectedly due to SIGSEGV or other unexpected errors.")


def worker_died_lines():
    return [f"The actor is dead because its worker process has died. Worker exit type: SYSTEM_ERROR Worker exit detail: {EOD_DETAIL}"]


def ray_mem_kill_lines(ctx, rj, p, task_name, used_gb, total_gb, thr, top):
    ip = p.node.ip
    nid = rj.node_id[p.node.idx]
    head = (f"The actor is dead because its worker process has died. Worker exit type: USER_ERROR Worker exit detail: Task was killed due to the node running low on memory.")
    body = (f"Memory on the node (IP: {ip}, ID: {nid}) where the task (actor ID: {p.aid}, name={task_name}, pid={p.pid}, memory used={top[0][1]:.2f}GB) "
            f"was running was {used_gb:.2f}GB / {total_gb:.2f}GB ({used_gb / total_gb:.6f}), which exceeds the memory usage threshold of {thr}. "
            f"Ray killed this worker (ID: {p.wid}) because it was the most recently scheduled task; to see more information about memory usage on this node, "
            f"use `ray logs raylet.out -ip {ip}`. To see the logs of the worker, use `ray logs worker-{p.wid}*out -ip {ip}. Top 10 memory users:")
    out = [head, body, "PID\tMEM(GB)\tCOMMAND"]
    for pid, gb, cmd in top:
        out.append(f"{pid}\t{gb:.2f}\t{cmd}")
    out.append("Refer to the documentation on how to address the out of memory issue: https://docs.ray.io/en/latest/ray-core/scheduling/ray-oom-prevention.html. "
               "Consider provisioning more memory on this node or reducing task parallelism by requesting more CPUs per task. Set max_restarts and max_task_retries to enable retry when the task crashes due to OOM. "
               "To adjust the kill threshold, set the environment variable `RAY_memory_usage_threshold` when starting Ray. To disable worker killing, set the environment variable `RAY_memory_monitor_refresh_ms` to zero.")
    return out


def ray_mem_console(ctx, rj, t, node):
    nid = rj.node_id[node.idx]
    lines = [f"[{ctx.py_ts(t, node)} E {rj.rpid[node.idx]} {rj.rpid[node.idx]}] (raylet) node_manager.cc:3069: 1 Workers (tasks / actors) killed due to memory pressure (OOM), 0 Workers crashed due to other reasons at node (ID: {nid}, IP: {node.ip}) over the last time period. To see more information about the Workers killed on this node, use `ray logs raylet.out -ip {node.ip}`",
             "",
             "Refer to the documentation on how to address the out of memory issue: https://docs.ray.io/en/latest/ray-core/scheduling/ray-oom-prevention.html. Consider provisioning more memory on this node or reducing task parallelism by requesting more CPUs per task. Set max_restarts and max_task_retries to enable retry when the task crashes due to OOM. To adjust the kill threshold, set the environment variable `RAY_memory_usage_threshold` when starting Ray. To disable worker killing, set the environment variable `RAY_memory_monitor_refresh_ms` to zero."]
    for i, x in enumerate(lines):
        rj.rlc(t + i * 0.001, node, x)


def abseil_signal(ctx, node, t, pid, sig, frames):
    r = ctx.rng
    ep = ctx.epoch(t, node)
    cpu = r.randint(0, 191)
    tid = pid + r.randint(30, 800)
    ts = ctx.py_ts(t, node)
    pcf = frames[0]
    out = [f"*** {sig} received at time={ep} on cpu {cpu} ***",
           f"PC: @     {addr(r)}  (unknown)  {pcf}"]
    for f in frames[1:]:
        out.append(f"    @     {addr(r)}  (unknown)  {f}")
    out.append(f"[{ts} E {pid} {tid}] logging.cc:440: *** {sig} received at time={ep} on cpu {cpu} ***")
    out.append(f"[{ts} E {pid} {tid}] logging.cc:440: PC: @     {addr(r)}  (unknown)  {pcf}")
    for f in frames[1:]:
        out.append(f"[{ts} E {pid} {tid}] logging.cc:440:     @     {addr(r)}  (unknown)  {f}")
    return out


def fatal_python(ctx, kind, stacks):
    out = [f"Fatal Python error: {kind}", ""]
    for tid, frames in stacks:
        out.append(f"Thread 0x00007f{tid[:10]} (most recent call first):")
        for f, ln, fn in frames:
            out.append(f'  File "{f}", line {ln} in {fn}')
        out.append("")
    return out


# ----------------------------------------------------------------------------------------
# shared RL bits
# ----------------------------------------------------------------------------------------

MODELS = [("Qwen/Qwen2.5-7B-Instruct", "Qwen2ForCausalLM", 7.62, "qwen2"),
          ("Qwen/Qwen2.5-Math-7B", "Qwen2ForCausalLM", 7.62, "qwen2"),
          ("Qwen/Qwen3-8B", "Qwen3ForCausalLM", 8.19, "qwen3"),
          ("deepseek-ai/DeepSeek-R1-Distill-Qwen-7B", "Qwen2ForCausalLM", 7.62, "qwen2"),
          ("Qwen/Qwen2.5-32B-Instruct", "Qwen2ForCausalLM", 32.76, "qwen2"),
          ("meta-llama/Llama-3.1-8B-Instruct", "LlamaForCausalLM", 8.03, "llama"),
          ("Qwen/Qwen3-4B-Base", "Qwen3ForCausalLM", 4.02, "qwen3"),
          ("Qwen/Qwen2.5-3B-Instruct", "Qwen2ForCausalLM", 3.09, "qwen2")]

DATASETS = [("gsm8k", "openai/gsm8k", 7473), ("math", "DigitalLearningGmbH/MATH-lighteval", 7500),
            ("dapo", "BytedTsinghua-SIA/DAPO-Math-17k", 17917), ("deepscaler", "agentica-org/DeepScaleR-Preview-Dataset", 40315)]

PY_EXC = [
    ("KeyError", "KeyError: 'ground_truth'"),
    ("RuntimeError", "RuntimeError: The size of tensor a (4097) must match the size of tensor b (4096) at non-singleton dimension 1"),
    ("IndexError", "IndexError: index 8192 is out of bounds for dimension 1 with size 8192"),
    ("AssertionError", "AssertionError: ppo_mini_batch_size 64 must be divisible by ppo_micro_batch_size_per_gpu 3"),
    ("ValueError", "ValueError: Expected input batch_size (3072) to match target batch_size (3071)."),
    ("AttributeError", "AttributeError: 'NoneType' object has no attribute 'shape'"),
    ("RuntimeError", "RuntimeError: shape '[2, -1, 28, 128]' is invalid for input of size 917504"),
    ("TypeError", "TypeError: unsupported operand type(s) for -: 'NoneType' and 'Tensor'"),
]


def vllm_stats(ctx, node, t, eng, prompt_tps, gen_tps, running, kv, v1=True):
    if v1:
        return (f"INFO {ctx.vts(t, node)} [loggers.py:116] Engine {eng:03d}: Avg prompt throughput: {prompt_tps:.1f} tokens/s, "
                f"Avg generation throughput: {gen_tps:.1f} tokens/s, Running: {running} reqs, Waiting: 0 reqs, GPU KV cache usage: {kv:.1f}%, Prefix cache hit rate: {ctx.rng.uniform(5, 60):.1f}%")
    return (f"INFO {ctx.vts(t, node)} [metrics.py:486] Avg prompt throughput: {prompt_tps:.1f} tokens/s, Avg generation throughput: {gen_tps:.1f} tokens/s, "
            f"Running: {running} reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache usage: {kv:.1f}%, CPU KV cache usage: 0.0%.")


def vllm_init_lines(ctx, node, t, model, tp, vver, gpu_util, max_len, sleep=True):
    r = ctx.rng
    v1 = not vver.startswith("0.7")
    out = []
    out.append((t, f"INFO {ctx.vts(t, node)} [config.py:{ctx.k('vi689, 717, 823', [689, 717, 823])}] This model supports multiple tasks: {{'generate', 'embed', 'reward', 'classify', 'score'}}. Defaulting to 'generate'."))
    if v1:
        out.append((t + 0.2, f"INFO {ctx.vts(t + 0.2, node)} [config.py:{ctx.k('vi2003, 2118', [2003, 2118])}] Chunked prefill is enabled with max_num_batched_tokens={ctx.k('vi8192, 16384, 32768', [8192, 16384, 32768])}."))
        out.append((t + 0.5, f"INFO {ctx.vts(t + 0.5, node)} [core.py:{ctx.k('vi61, 65', [61, 65])}] Initializing a V1 LLM engine (v{vver}) with config: model='{model}', speculative_config=None, tokenizer='{model}', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, override_neuron_config=None, tokenizer_revision=None, trust_remote_code=True, dtype=torch.bfloat16, max_seq_len={max_len}, download_dir=None, load_format=LoadFormat.DUMMY, tensor_parallel_size={tp}, pipeline_parallel_size=1, disable_custom_all_reduce=False, quantization=None, enforce_eager=False, kv_cache_dtype=auto,  device_config=cuda, decoding_config=DecodingConfig(guided_decoding_backend='auto', reasoning_backend=None), observability_config=ObservabilityConfig(show_hidden_metrics=False, otlp_traces_endpoint=None, collect_model_forward_time=False, collect_model_execute_time=False), seed=0, served_model_name={model}, num_scheduler_steps=1, multi_step_stream_outputs=True, enable_prefix_caching=True, chunked_prefill_enabled=True, use_async_output_proc=True, disable_mm_preprocessor_cache=False, mm_processor_kwargs=None, pooler_config=None, compilation_config={{\"level\":3,\"custom_ops\":[\"none\"],\"splitting_ops\":[\"vllm.unified_attention\",\"vllm.unified_attention_with_output\"],\"use_inductor\":true,\"compile_sizes\":[],\"use_cudagraph\":true,\"cudagraph_num_of_warmups\":1,\"cudagraph_capture_sizes\":[512,504,496,488,480,472,464,456,448,440,432,424,416,408,400,392,384,376,368,360,352,344,336,328,320,312,304,296,288,280,272,264,256,248,240,232,224,216,208,200,192,184,176,168,160,152,144,136,128,120,112,104,96,88,80,72,64,56,48,40,32,24,16,8,4,2,1],\"max_capture_size\":512}}"))
        out.append((t + 3.1, f"INFO {ctx.vts(t + 3.1, node)} [gpu_model_runner.py:{ctx.k('vi1329, 1420', [1329, 1420])}] Starting to load model {model}..."))
        out.append((t + 9.4, f"INFO {ctx.vts(t + 9.4, node)} [gpu_model_runner.py:{ctx.k('vi1347, 1438', [1347, 1438])}] Model loading took {r.uniform(3.5, 16):.4f} GiB and {r.uniform(1, 9):.6f} seconds"))
        out.append((t + 21.0, f"INFO {ctx.vts(t + 21.0, node)} [backends.py:{ctx.k('vi420, 459', [420, 459])}] Using cache directory: /root/.cache/vllm/torch_compile_cache/{hexs(r, 10)}/rank_0_0 for vLLM's torch.compile"))
        out.append((t + 31.0, f"INFO {ctx.vts(t + 31.0, node)} [kv_cache_utils.py:{ctx.k('vi634, 716', [634, 716])}] GPU KV cache size: {r.randint(300, 2200) * 1000:,} tokens"))
        out.append((t + 31.0, f"INFO {ctx.vts(t + 31.0, node)} [kv_cache_utils.py:{ctx.k('vi637, 720', [637, 720])}] Maximum concurrency for {max_len:,} tokens per request: {r.uniform(40, 300):.2f}x"))
        out.append((t + 44.0, f"INFO {ctx.vts(t + 44.0, node)} [gpu_model_runner.py:{ctx.k('vi1686, 1780', [1686, 1780])}] Graph capturing finished in {r.randint(8, 40)} secs, took {r.uniform(0.3, 1.6):.2f} GiB"))
        out.append((t + 44.1, f"INFO {ctx.vts(t + 44.1, node)} [core.py:{ctx.k('vi159, 163', [159, 163])}] init engine (profile, create kv cache, warmup model) took {r.uniform(25, 70):.2f} seconds"))
    else:
        out.append((t + 0.5, f"INFO {ctx.vts(t + 0.5, node)} llm_engine.py:234] Initializing a V0 LLM engine (v{vver}) with config: model='{model}', tokenizer='{model}', dtype=torch.bfloat16, max_seq_len={max_len}, tensor_parallel_size={tp}, load_format=LoadFormat.DUMMY, seed=0, enable_prefix_caching=False"))
        out.append((t + 9.0, f"INFO {ctx.vts(t + 9.0, node)} model_runner.py:1115] Loading model weights took {r.uniform(3.5, 16):.4f} GB"))
        out.append((t + 15.0, f"INFO {ctx.vts(t + 15.0, node)} worker.py:266] Memory profiling takes {r.uniform(2, 8):.2f} seconds"))
        out.append((t + 15.1, f"INFO {ctx.vts(t + 15.1, node)} executor_base.py:108] # CUDA blocks: {r.randint(20000, 90000)}, # CPU blocks: {r.randint(2000, 9000)}"))
        out.append((t + 30.0, f"INFO {ctx.vts(t + 30.0, node)} model_runner.py:1562] Graph capturing finished in {r.randint(8, 40)} secs, took {r.uniform(0.3, 1.6):.2f} GiB"))
    if sleep:
        out.append((t + 46.0, f"INFO {ctx.vts(t + 46.0, node)} [gpu_worker.py:{ctx.k('vi81, 94', [81, 94])}] Sleep mode freed {r.uniform(40, 66):.2f} GiB memory, {r.uniform(0.8, 3.5):.2f} GiB memory is still in use."))
        out.append((t + 46.0, f"INFO {ctx.vts(t + 46.0, node)} [executor_base.py:{ctx.k('vi204, 211', [204, 211])}] It took {r.uniform(0.4, 3.0):.6f} seconds to fall asleep."))
    return out


def verl_metrics(ctx, step, stats, algo, extras=None):
    r = ctx.rng
    keys = []
    gmin = stats["seq"] * r.uniform(0.9, 0.97)
    gmax = stats["seq"] * r.uniform(1.03, 1.12)
    keys += [("global_seqlen/min", f"{gmin:.0f}"), ("global_seqlen/max", f"{gmax:.0f}"),
             ("global_seqlen/minmax_diff", f"{gmax - gmin:.0f}"), ("global_seqlen/balanced_min", f"{stats['seq']:.0f}"),
             ("global_seqlen/balanced_max", f"{stats['seq'] + 1:.0f}"), ("global_seqlen/mean", f"{stats['seq'] + 0.5:.1f}"),
             ("actor/entropy", f"{r.uniform(0.2, 0.6):.3f}"), ("actor/kl_loss", f"{r.uniform(0, 0.02):.3f}"),
             ("actor/kl_coef", "0.001"), ("actor/pg_loss", f"{r.uniform(-0.02, 0.05):.3f}"),
             ("actor/pg_clipfrac", f"{r.uniform(0, 0.005):.3f}"), ("actor/ppo_kl", f"{r.uniform(-0.0005, 0.0005):.3f}"),
             ("actor/pg_clipfrac_lower", "0.000"), ("actor/grad_norm", f"{r.uniform(0.05, 0.6):.3f}"),
             ("perf/mfu/actor", f"{r.uniform(0.15, 0.45):.3f}"), ("perf/max_memory_allocated_gb", f"{stats['mem']:.3f}"),
             ("perf/max_memory_reserved_gb", f"{stats['mem'] + r.uniform(5, 20):.3f}"), ("perf/cpu_memory_used_gb", f"{stats['cpu']:.3f}"),
             ("actor/lr", "0.000"), ("training/global_step", f"{step:.3f}"), ("training/epoch", f"{stats['epoch']:.3f}")]
    if algo == "gae":
        keys += [("critic/vf_loss", f"{r.uniform(0.01, 0.4):.3f}"), ("critic/vf_clipfrac", f"{r.uniform(0, 0.1):.3f}"),
                 ("critic/vpred_mean", f"{r.uniform(-0.5, 0.8):.3f}"), ("critic/grad_norm", f"{r.uniform(1, 20):.3f}")]
    sc = stats["score"]
    keys += [("critic/score/mean", f"{sc:.3f}"), ("critic/score/max", "1.000"), ("critic/score/min", "0.000"),
             ("critic/rewards/mean", f"{sc:.3f}"), ("critic/rewards/max", "1.000"), ("critic/rewards/min", "0.000"),
             ("critic/advantages/mean", f"{r.uniform(-0.02, 0.02):.3f}"), ("critic/advantages/max", "1.789"),
             ("critic/advantages/min", "-1.789"), ("response_length/mean", f"{stats['rlen']:.3f}"),
             ("response_length/max", f"{stats['maxlen']:.3f}"), ("response_length/min", f"{r.randint(3, 90):.3f}"),
             ("response_length/clip_ratio", f"{r.uniform(0, 0.05):.3f}"), ("prompt_length/mean", f"{r.uniform(90, 420):.3f}"),
             ("prompt_length/max", f"{r.randint(300, 1024):.3f}"), ("prompt_length/min", f"{r.randint(40, 90):.3f}"),
             ("prompt_length/clip_ratio", "0.000")]
    tm = stats["timing"]
    keys += [("timing_s/gen", f"{tm['gen']:.3f}"), ("timing_s/reward", f"{tm['reward']:.3f}"),
             ("timing_s/old_log_prob", f"{tm['old']:.3f}"), ("timing_s/ref", f"{tm['ref']:.3f}"),
             ("timing_s/adv", f"{tm['adv']:.3f}")]
    if algo == "gae":
        keys += [("timing_s/values", f"{tm['ref'] * 0.9:.3f}"), ("timing_s/update_critic", f"{tm['upd'] * 0.6:.3f}")]
    keys += [("timing_s/update_actor", f"{tm['upd']:.3f}"), ("timing_s/step", f"{sum(tm.values()):.3f}"),
             ("timing_per_token_ms/gen", f"{tm['gen'] * 1000 / max(1, stats['tokens']):.3f}"),
             ("perf/total_num_tokens", f"{stats['tokens']}"), ("perf/time_per_step", f"{sum(tm.values()):.3f}"),
             ("perf/throughput", f"{stats['tokens'] / sum(tm.values()) / stats['ngpu']:.3f}")]
    if extras:
        keys += extras
    return f"step:{step} - " + " - ".join(f"{k}:{v}" for k, v in keys)


def tqdm_bar(label, k, total, elapsed, rate_s):
    pct = int(100 * k / max(1, total))
    w = 10
    fill = int(w * k / max(1, total))
    bar = "█" * fill + (" " * (w - fill))
    rem = (total - k) * rate_s

    def hms(x):
        x = int(x)
        h, m, s = x // 3600, (x % 3600) // 60, x % 60
        return f"{h}:{m:02d}:{s:02d}" if h else f"{m:02d}:{s:02d}"
    head = f"{label}: " if label else ""
    return f"{head}{pct:3d}%|{bar}| {k}/{total} [{hms(elapsed)}<{hms(rem)}, {rate_s:.2f}s/it]"


def dl_del_noise(ctx):
    site = ctx.site
    return [f"Exception ignored in: <function _MultiProcessingDataLoaderIter.__del__ at {addr(ctx.rng)}>",
            "Traceback (most recent call last):",
            f'  File "{site}/torch/utils/data/dataloader.py", line 1479, in __del__', "    self._shutdown_workers()",
            f'  File "{site}/torch/utils/data/dataloader.py", line 1462, in _shutdown_workers', "    if w.is_alive():",
            f'  File "/usr/lib/python{ctx.py}/multiprocessing/process.py", line 160, in is_alive',
            "    assert self._parent_pid == os.getpid(), 'can only test a child process'",
            "AssertionError: can only test a child process"]


def ray_worker_warn(ctx, rj, t, node, n):
    rj.rlc(t, node, f"WARNING: {n} PYTHON worker processes have been started on node: {rj.node_id[node.idx]} with address: {node.ip}. This could be a result of using a large number of actors, or due to tasks blocked in ray.get() calls (see https://github.com/ray-project/ray/issues/3644 for some discussion of workarounds).")


def user_shell(ctx, host, user="root", cwd="~"):
    return f"{user}@{host}:{cwd}# "


def nvsmi_lost(ctx, local):
    return [f"Unable to determine the device handle for GPU{PCI[local % 8].upper()}.0: Unknown Error",
            "No devices were found" if ctx.rng.random() < 0.3 else "GPU is lost.  Reboot the system to recover this GPU"]


def nvsmi_ecc(ctx, local):
    r = ctx.rng
    return [f"GPU 00000000:{PCI[local % 8][5:].upper()}.0",
            "    ECC Mode",
            "        Current                           : Enabled",
            "        Pending                           : Enabled",
            "    ECC Errors",
            "        Volatile",
            f"            SRAM Correctable              : 0",
            f"            SRAM Uncorrectable Parity     : 0",
            f"            SRAM Uncorrectable SEC-DED    : 0",
            f"            DRAM Correctable              : {r.randint(0, 40)}",
            f"            DRAM Uncorrectable            : {r.randint(1, 4)}",
            "    Remapped Rows",
            f"        Correctable Error                 : 0",
            f"        Uncorrectable Error               : {r.randint(1, 3)}",
            "        Pending                           : Yes",
            "        Remapping Failure Occurred        : No"]


def nvsmi_nvlink(ctx, local, bad):
    out = [f"GPU {local}: NVIDIA H100 80GB HBM3 (UUID: GPU-{hexs(ctx.rng, 8)}-{hexs(ctx.rng, 4)}-{hexs(ctx.rng, 4)}-{hexs(ctx.rng, 4)}-{hexs(ctx.rng, 12)})"]
    for l in range(18):
        out.append(f"\t Link {l}: " + ("<inactive>" if l == bad else "26.562 GB/s"))
    return out


def nvsmi_throttle(ctx, local, slow):
    return [f"GPU 00000000:{PCI[local % 8][5:].upper()}.0",
            "    Clocks Event Reasons",
            "        Idle                              : Not Active",
            "        Applications Clocks Setting       : Not Active",
            "        SW Power Cap                      : Not Active",
            f"        HW Slowdown                       : {'Active' if slow else 'Not Active'}",
            f"            HW Thermal Slowdown           : {'Active' if slow else 'Not Active'}",
            "            HW Power Brake Slowdown       : Not Active",
            "        Sync Boost                        : Not Active",
            f"        SW Thermal Slowdown               : {'Active' if slow else 'Not Active'}",
            "        Display Clock Setting             : Not Active",
            "    Temperature",
            f"        GPU Current Temp                  : {ctx.rng.randint(86, 92) if slow else ctx.rng.randint(38, 61)} C",
            f"        GPU T.Limit Temp                  : {ctx.rng.randint(-3, 2) if slow else ctx.rng.randint(25, 45)} C",
            "    Clocks",
            f"        SM                                : {ctx.rng.randint(690, 1100) if slow else 1980} MHz"]


# ----------------------------------------------------------------------------------------
# verl
# ----------------------------------------------------------------------------------------

def verl_stage_frames(ctx, root, stage, rollout):
    site = ctx.site
    fr = [(f"{root}/verl/single_controller/ray/base.py", 705, "func", "return getattr(self.worker_dict[key], name)(*args, **kwargs)"),
          (f"{root}/verl/single_controller/base/decorator.py", 514, "inner", "return func(*args, **kwargs)")]
    if stage == "gen":
        fr += [(f"{root}/verl/workers/fsdp_workers.py", 813, "generate_sequences", "output = self.rollout.generate_sequences(prompts=prompts)"),
               (f"{root}/verl/utils/debug/performance.py", 78, "f", "return self.log(decorated_function, *args, **kwargs)")]
        if rollout == "vllm":
            fr += [(f"{root}/verl/workers/rollout/vllm_rollout/vllm_rollout_spmd.py", 289, "generate_sequences", "outputs = self.inference_engine.generate("),
                   (f"{site}/vllm/utils.py", 1196, "inner", "return fn(*args, **kwargs)"),
                   (f"{site}/vllm/entrypoints/llm.py", 475, "generate", "outputs = self._run_engine(use_tqdm=use_tqdm)"),
                   (f"{site}/vllm/entrypoints/llm.py", 1427, "_run_engine", "step_outputs = self.llm_engine.step()"),
                   (f"{site}/vllm/v1/engine/llm_engine.py", 237, "step", "outputs = self.engine_core.get_output()"),
                   (f"{site}/vllm/v1/engine/core_client.py", 231, "get_output", "outputs, _ = self.engine_core.step()"),
                   (f"{site}/vllm/v1/engine/core.py", 225, "step", "model_output = self.execute_model(scheduler_output)"),
                   (f"{site}/vllm/v1/worker/gpu_model_runner.py", 1211, "execute_model", "sampler_output = self.sampler(")]
        else:
            fr += [(f"{root}/verl/workers/rollout/sglang_rollout/sglang_rollout.py", 602, "generate_sequences", "return self._batch_level_generate_sequences(prompts, **kwargs)"),
                   (f"{site}/sglang/srt/entrypoints/engine.py", 199, "generate", "ret = self.loop.run_until_complete(generator.__anext__())")]
    elif stage in ("old", "ref"):
        nm = "compute_log_prob" if stage == "old" else "compute_ref_log_prob"
        fr += [(f"{root}/verl/workers/fsdp_workers.py", 912 if stage == "old" else 968, nm,
                "output, entropys = self.actor.compute_log_prob(data=data, calculate_entropy=True)" if stage == "old" else "output, _ = self.ref_policy.compute_log_prob(data=data, calculate_entropy=False)"),
               (f"{root}/verl/utils/profiler/performance.py", 105, "f", "return self.log(decorated_function, *args, **kwargs)"),
               (f"{root}/verl/workers/actor/dp_actor.py", 339, "compute_log_prob", "entropy, log_probs = self._forward_micro_batch("),
               (f"{root}/verl/workers/actor/dp_actor.py", 171, "_forward_micro_batch", "output = self.actor_module("),
               (f"{site}/torch/nn/modules/module.py", 1751, "_wrapped_call_impl", "return self._call_impl(*args, **kwargs)"),
               (f"{site}/torch/nn/modules/module.py", 1762, "_call_impl", "return forward_call(*args, **kwargs)"),
               (f"{site}/flash_attn/flash_attn_interface.py", 1448, "flash_attn_varlen_func", "return FlashAttnVarlenFunc.apply("),
               (f"{site}/flash_attn/flash_attn_interface.py", 930, "forward", "out_padded, softmax_lse, S_dmask, rng_state = _wrapped_flash_attn_varlen_forward(")]
    else:
        fr += [(f"{root}/verl/workers/fsdp_workers.py", 671, "update_actor", "metrics = self.actor.update_policy(data=data)"),
               (f"{root}/verl/utils/profiler/performance.py", 105, "f", "return self.log(decorated_function, *args, **kwargs)"),
               (f"{root}/verl/workers/actor/dp_actor.py", 486, "update_policy", "loss.backward()"),
               (f"{site}/torch/_tensor.py", 648, "backward", "torch.autograd.backward("),
               (f"{site}/torch/autograd/__init__.py", 353, "backward", "_engine_run_backward("),
               (f"{site}/torch/autograd/graph.py", 824, "_engine_run_backward", "return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass")]
    return fr


VERL_METHOD = {"gen": ("actor_rollout_generate_sequences", "gen_batch_output = self.actor_rollout_wg.generate_sequences(gen_batch)", 1064),
               "old": ("actor_rollout_compute_log_prob", "old_log_prob = self.actor_rollout_wg.compute_log_prob(batch)", 1120),
               "ref": ("actor_rollout_compute_ref_log_prob", "ref_log_prob = self.ref_policy_wg.compute_ref_log_prob(batch)", 1141),
               "upd": ("actor_rollout_update_actor", "actor_output = self.actor_rollout_wg.update_actor(batch)", 1202)}


def hydra_overrides(ctx, v):
    o = [f"algorithm.adv_estimator={v['algo']}", f"data.train_files={v['data_dir']}/train.parquet",
         f"data.val_files={v['data_dir']}/test.parquet", f"data.train_batch_size={v['bs']}",
         f"data.max_prompt_length={v['maxp']}", f"data.max_response_length={v['maxr']}",
         f"actor_rollout_ref.model.path={v['model_path']}", "actor_rollout_ref.actor.optim.lr=1e-6",
         "actor_rollout_ref.model.use_remove_padding=True", f"actor_rollout_ref.actor.ppo_mini_batch_size={v['mbs']}",
         f"actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu={v['micro']}", "actor_rollout_ref.actor.use_kl_loss=True",
         "actor_rollout_ref.actor.kl_loss_coef=0.001", "actor_rollout_ref.model.enable_gradient_checkpointing=True",
         "actor_rollout_ref.actor.fsdp_config.param_offload=False", "actor_rollout_ref.actor.fsdp_config.optimizer_offload=False",
         f"actor_rollout_ref.rollout.tensor_model_parallel_size={v['tp']}", f"actor_rollout_ref.rollout.name={v['rollout']}",
         f"actor_rollout_ref.rollout.gpu_memory_utilization={v['gmu']}", f"actor_rollout_ref.rollout.n={v['n']}",
         "actor_rollout_ref.ref.fsdp_config.param_offload=True", "trainer.critic_warmup=0",
         "trainer.logger=['console','wandb']", f"trainer.project_name={v['project']}", f"trainer.experiment_name={v['exp']}",
         f"trainer.n_gpus_per_node={v['gpn']}", f"trainer.nnodes={v['nn']}", "trainer.save_freq=20", "trainer.test_freq=5",
         f"trainer.total_epochs={v['epochs']}"]
    return o


def build_verl(ctx, raylogs):
    r = ctx.rng
    cause = ctx.cause
    nn = r.choice([1, 2, 2, 3, 4] if raylogs else [1, 2, 2, 4, 4, 8, 16])
    if cause in ("network", "preemption") and nn == 1:
        nn = 2
    gpn = 8 if r.random() < 0.85 else 4
    world = nn * gpn
    scheme = r.choice(["h100", "k8s", "aws", "dgx", "hgx"])
    nodes = make_nodes(ctx, nn, scheme)
    tz = choose_tz(ctx)
    for nd in nodes:
        nd.tz = tz
    ctx.nodes = nodes
    head = nodes[0]
    dedup = r.random() < 0.65 or world >= 64
    rj = RayJob(ctx, nodes, dedup=dedup, job_num=r.choice([1, 1, 2, 3]))
    root = r.choice(["/workspace/verl", "/root/verl", "/mnt/code/verl", "/home/ubuntu/verl"])
    mpath, mcls, mparams, mfam = r.choice(MODELS)
    dsname, dsid, dslen = r.choice(DATASETS)
    rollout = "vllm" if r.random() < 0.8 else "sglang"
    vver = r.choice(["0.8.5", "0.8.5.post1", "0.9.2", "0.10.1", "0.10.2"])
    if cause == "straggler":
        rollout = "vllm"
        vver = r.choice(["0.9.2", "0.10.1", "0.10.2"])
    v9 = vge(vver, "0.9")
    rayv = r.choice(["2.43.0", "2.46.0", "2.48.0", "2.49.1"])
    tp = r.choice([1, 2, 2, 4]) if cause != "straggler" else 1
    tp = min(tp, gpn)
    algo = "grpo" if r.random() < 0.75 else "gae"
    v = dict(algo=algo, data_dir=r.choice(["$HOME/data", "/mnt/data/rl", "/data"]) + "/" + dsname, bs=r.choice([128, 256, 512, 1024]),
             maxp=r.choice([512, 1024, 2048]), maxr=r.choice([1024, 2048, 4096, 8192]), model_path=r.choice([mpath, f"/models/{mpath.split('/')[1]}"]),
             mbs=r.choice([64, 128, 256]), micro=r.choice([2, 4, 8, 16]), tp=tp, rollout=rollout, gmu=r.choice([0.4, 0.5, 0.6, 0.7]),
             n=r.choice([4, 5, 8, 16]), project=r.choice(["verl_grpo_example", "rl-math", "reasoning-rl", "grpo-sweep"]),
             exp=f"{mpath.split('/')[1].lower()}_{dsname}_{algo}_{b62(r, 4).lower()}", gpn=gpn, nn=nn, epochs=r.choice([3, 5, 15, 30]))
    steps_per_epoch = max(4, dslen // v["bs"])
    total_steps = steps_per_epoch * v["epochs"]
    step_s = r.uniform(70, 420) * (mparams / 7.6) ** 0.5
    nccl_debug = r.random() < 0.4
    tmo_ms = 600000 if r.random() < 0.75 else 1800000
    task_pid = rj.pid(1000, 90000)
    tr = rj.actor("TaskRunner", head, kind="driver-actor", pid=task_pid)
    pfx6 = b62(r, 6)
    workers = []
    for rank in range(world):
        nd = nodes[rank // gpn]
        p = rj.actor("WorkerDict", nd, rank=rank, local=rank % gpn)
        p.name = f"{pfx6}WorkerDict_{rank // gpn}:{rank % gpn}"
        workers.append(p)
    for nd in nodes:
        rj.raylet_boot(-r.uniform(60, 3600), nd, 128 if gpn == 8 else 64, gpn, r.choice([1007, 2015, 1510]))
        if r.random() < 0.5:
            ray_worker_warn(ctx, rj, 30 + r.uniform(0, 20), nd, gpn + r.randint(1, 4))

    # culprit -------------------------------------------------------------------------
    crank = None
    cnode = None
    role = "trainer"
    if cause in ("preemption",):
        role = "node"
        cnode = nodes[r.randint(1, nn - 1)] if nn > 1 else head
    elif cause == "network":
        role = "node"
        cnode = nodes[r.randint(0, nn - 1)]
    elif cause == "data_loader_stall":
        role = "driver"
        cnode = head
    elif cause == "unknown" or cause is None:
        role = None
    else:
        crank = r.randint(0, world - 1) if r.random() < 0.85 else 0
        cnode = workers[crank].node
    cw = workers[crank] if crank is not None else None

    fail_step = r.randint(3, 32 if raylogs else 45) if cause else None
    if cause == "straggler":
        fail_step = r.randint(14, 26 if raylogs else 40)
    n_steps = fail_step if cause else min(total_steps, r.randint(15, 30 if raylogs else 50))
    noisy = set(r.sample(range(world), min(world, 6)))
    if not cause:
        total_steps = n_steps

    # --- driver preamble ----------------------------------------------------------------
    t = 0.0
    ovr = hydra_overrides(ctx, v)
    shell = user_shell(ctx, head.host, cwd=root)
    if r.random() < 0.5:
        rj.d(t - 1, f"{shell}python3 -m verl.trainer.main_ppo \\")
        for i, o in enumerate(ovr):
            rj.d(t - 1 + i * 0.001, f"    {o}" + (" \\" if i < len(ovr) - 1 else " 2>&1 | tee " + f"logs/{v['exp']}.log"))
    rj.d(t, rj.pylog(t, "INFO", "worker.py:1888" if vge(rayv, "2.46") else "worker.py:1654", f"Connecting to existing Ray cluster at address: {head.ip}:6379..."))
    rj.d(t + 0.4, rj.pylog(t + 0.4, "INFO", "worker.py:2039" if vge(rayv, "2.46") else "worker.py:1832",
                           f"Connected to Ray cluster. View the dashboard at \x1b[1m\x1b[32m{head.ip}:8265 \x1b[39m\x1b[22m" if r.random() < 0.5 else f"Connected to Ray cluster. View the dashboard at {head.ip}:8265 "))
    t = 2.0
    tr.o(t, f"TaskRunner hostname: {head.host}, PID: {task_pid}")
    cfg = [f"{{'actor_rollout_ref': {{'actor': {{'checkpoint': {{'load_contents': ['model', 'optimizer', 'extra'],",
           f"                                               'save_contents': ['model', 'optimizer', 'extra']}},",
           f"                                'clip_ratio': 0.2,",
           f"                                'entropy_coeff': 0,",
           f"                                'fsdp_config': {{'fsdp_size': -1, 'offload_policy': False, 'optimizer_offload': False, 'param_offload': False, 'reshard_after_forward': True, 'wrap_policy': {{'min_num_params': 0}}}},",
           f"                                'kl_loss_coef': 0.001,",
           f"                                'ppo_micro_batch_size_per_gpu': {v['micro']},",
           f"                                'ppo_mini_batch_size': {v['mbs']},",
           f"                                'strategy': 'fsdp',",
           f"                                'use_dynamic_bsz': {r.choice([True, False])},",
           f"                                'use_kl_loss': True}},",
           f"                       'model': {{'enable_gradient_checkpointing': True, 'path': '{v['model_path']}', 'use_remove_padding': True}},",
           f"                       'nccl_timeout': {tmo_ms // 1000},",
           f"                       'rollout': {{'gpu_memory_utilization': {v['gmu']}, 'mode': 'sync', 'n': {v['n']}, 'name': '{rollout}', 'tensor_model_parallel_size': {tp}, 'free_cache_engine': True, 'enforce_eager': False}}}},",
           f" 'algorithm': {{'adv_estimator': '{algo}', 'gamma': 1.0, 'kl_ctrl': {{'kl_coef': 0.001, 'type': 'fixed'}}, 'lam': 1.0, 'use_kl_in_reward': False}},",
           f" 'data': {{'max_prompt_length': {v['maxp']}, 'max_response_length': {v['maxr']}, 'train_batch_size': {v['bs']}, 'train_files': '{v['data_dir']}/train.parquet', 'dataloader_num_workers': 8}},",
           f" 'trainer': {{'default_local_dir': 'checkpoints/{v['project']}/{v['exp']}', 'nnodes': {nn}, 'n_gpus_per_node': {gpn}, 'project_name': '{v['project']}', 'experiment_name': '{v['exp']}', 'save_freq': 20, 'test_freq': 5, 'total_epochs': {v['epochs']}}}}}"]
    tr.ob(t + 0.1, cfg)
    t = 8.0
    tr.o(t, "Using dataset class: RLHFDataset")
    tr.o(t + 3, f"dataset len: {dslen}")
    tr.o(t + 9, f"filter dataset len: {dslen - r.randint(0, 40)}")
    tr.o(t + 11, f"Size of train dataloader: {steps_per_epoch}, Size of val dataloader: 1")
    tr.o(t + 11.01, f"Total training steps: {total_steps}")
    tr.o(t + 11.5, "colocated worker base class <class 'verl.single_controller.base.worker.Worker'>")
    t = 24.0
    # workers init
    sample = sorted(set([0, world - 1] + ([crank] if crank is not None else []) + r.sample(range(world), min(world, 12))))
    for p in workers:
        t_i = t + r.uniform(0, 12)
        rj.raylet_worker_start(t_i - 1.0, p)
        if ctx.tv != "2.4" or True:
            p.e(t_i + 8, barrier_warn(ctx, p.node, t_i + 8, p.rank, p.local))
        if nccl_debug and (p.rank in sample or world <= 16):
            comm = "0x" + hexs(r, 8)
            for x in nccl_init_lines(ctx, p.node, p.pid, p.local, p.rank, world, comm, "0x" + hexs(r, 16), first=(p.rank == 0)):
                p.o(t_i + 9 + r.uniform(0, 0.5), x)
        if p.rank == 0:
            p.ob(t_i + 14, [f"Model config after override: {mcls.replace('ForCausalLM', 'Config')} {{",
                            f'  "architectures": [', f'    "{mcls}"', "  ],", '  "eos_token_id": 151645,', '  "pad_token_id": 151643,',
                            f'  "torch_dtype": "bfloat16",', f'  "transformers_version": "{r.choice(["4.51.3", "4.52.4", "4.55.2"])}",', "}", "",
                            f"{mcls} contains {mparams:.2f}B parameters",
                            f"wrap_policy: functools.partial(<function _or_policy at {addr(r)}>, policies=[functools.partial(<function transformer_auto_wrap_policy at {addr(r)}>, transformer_layer_cls={{<class 'transformers.models.{mfam}.modeling_{mfam}.{mcls.replace('ForCausalLM', 'DecoderLayer')}'>}})])",
                            "Actor use_remove_padding=True", f"Total steps: {total_steps}, num_warmup_steps: 0"])
        if p.local % tp == 0:
            if rollout == "vllm":
                for tt, x in vllm_init_lines(ctx, p.node, t_i + 30, v["model_path"], tp, vver, v["gmu"], v["maxp"] + v["maxr"]):
                    p.o(tt, x)
            else:
                p.e(t_i + 31, f"[{ctx.py_ts(t_i + 31, p.node)[:19]} TP0] Load weight end. type={mcls}, dtype=torch.bfloat16, avail mem={r.uniform(50, 66):.2f} GB, mem usage={mparams * 2 / tp:.2f} GB.")
                p.e(t_i + 40, f"[{ctx.py_ts(t_i + 40, p.node)[:19]} TP0] Memory pool end. avail mem={r.uniform(10, 25):.2f} GB")
                p.e(t_i + 52, f"[{ctx.py_ts(t_i + 52, p.node)[:19]} TP0] Capture cuda graph end. Time elapsed: {r.uniform(8, 30):.2f} s. mem usage={r.uniform(0.5, 2):.2f} GB. avail mem={r.uniform(8, 20):.2f} GB.")
    t = 110.0
    tr.o(t, f"Checkpoint tracker file does not exist: {root}/checkpoints/{v['project']}/{v['exp']}/latest_checkpointed_iteration.txt")
    tr.o(t + 0.01, "Training from scratch")
    val0 = r.uniform(0.2, 0.75)
    tr.o(t + 0.5, "test_gen_batch meta info: {'eos_token_id': 151645, 'pad_token_id': 151643, 'recompute_log_prob': False, 'do_sample': False, 'validate': True}")
    t += r.uniform(60, 200)
    tr.o(t, "validation generation end")
    tr.o(t + 5, f"step:0 - val-aux/{dsid}/reward/mean@1:{val0:.3f} - val-core/{dsid}/acc/mean@1:{val0:.3f}")
    tr.e(t + 5.1, tqdm_bar("Training Progress", 0, total_steps, 0, 0.0).replace(" 0.00s/it]", " ?it/s]").replace("<00:00", "<?"))

    # FutureWarning noise from FSDP on every worker
    for p in workers:
        p.e(t + 7 + r.uniform(0, 1), f"{ctx.site}/torch/distributed/fsdp/fully_sharded_data_parallel.py:690: FutureWarning: FSDP.state_dict_type() and FSDP.set_state_dict_type() are being deprecated. Please use APIs, get_state_dict() and set_state_dict(), which can support different parallelisms, FSDP1, FSDP2, DDP. API doc: https://pytorch.org/docs/stable/distributed.checkpoint.html#torch.distributed.checkpoint.state_dict.get_state_dict .Tutorial: https://pytorch.org/tutorials/recipes/distributed_checkpoint_recipe.html .")
        p.e(t + 7.001 + r.uniform(0, 1), "  warnings.warn(")

    # --- training steps -----------------------------------------------------------------
    train0 = t + 8
    starts = []
    tcur = train0
    slow_f = r.uniform(1.7, 3.2)
    straggle_from = r.randint(2, max(3, fail_step // 2)) if cause == "straggler" else 10 ** 9
    step_durs = []
    for k in range(1, n_steps + 1):
        dur = step_s * r.uniform(0.85, 1.2)
        if k >= straggle_from:
            dur *= (1 + (slow_f - 1) * 0.55)
        starts.append(tcur)
        step_durs.append(dur)
        tcur += dur
    decoy_handled = r.random() < 0.4
    decoy_step = r.randint(1, max(1, n_steps - 1))
    for k in range(1, n_steps + 1):
        s0 = starts[k - 1]
        dur = step_durs[k - 1]
        last = (cause is not None and k == n_steps)
        gen = dur * r.uniform(0.45, 0.6)
        # worker noise
        for p in workers:
            if not dedup and p.rank not in noisy and p is not cw:
                continue
            if p.local % tp == 0 and rollout == "vllm" and (r.random() < 0.5 or p.rank in noisy):
                p.o(s0 + 0.5 + r.uniform(0, 0.3), f"INFO {ctx.vts(s0 + 0.5, p.node)} [executor_base.py:{ctx.k('vs226, 231', [226, 231])}] It took {r.uniform(0.2, 1.5):.6f} seconds to wake up tags {{'weights'}}." if v9 else f"INFO {ctx.vts(s0 + 0.5, p.node)} [executor_base.py:226] It took {r.uniform(0.2, 1.5):.6f} seconds to wake up tags ['weights'].")
                if cause == "straggler" and (k >= straggle_from) and v9:
                    base_tps = r.uniform(2500, 5200)
                    for j in range(2):
                        tt = s0 + 10 + j * 10
                        slow = (p is cw)
                        p.o(tt, vllm_stats(ctx, p.node, tt, 0, r.uniform(200, 900) / (slow_f if slow else 1), base_tps / (slow_f if slow else 1) * r.uniform(0.93, 1.05), r.randint(30, 128), r.uniform(20, 70)), dd=False)
                elif v9 and r.random() < 0.15 and p.rank in sample:
                    tt = s0 + 10
                    p.o(tt, vllm_stats(ctx, p.node, tt, 0, r.uniform(200, 900), r.uniform(2500, 5200), r.randint(30, 128), r.uniform(20, 70)))
                if not last and r.random() < 0.6:
                    p.o(s0 + gen + r.uniform(0, 2), f"INFO {ctx.vts(s0 + gen, p.node)} [executor_base.py:{ctx.k('vs204, 211', [204, 211])}] It took {r.uniform(0.4, 3.0):.6f} seconds to fall asleep.")
        if k == 1 and rollout == "vllm":
            for p in workers:
                if p.local % tp == 0:
                    p.o(s0 + 1.5, f"WARNING {ctx.vts(s0 + 1.5, p.node)} [topk_topp_sampler.py:69] FlashInfer is not available. Falling back to the PyTorch-native implementation of top-p & top-k sampling. For the best performance, please install FlashInfer.")
        if k == decoy_step and decoy_handled:
            tb = pyframes([(f"{root}/verl/utils/reward_score/sandbox_fusion/utils.py", 121, "call_sandbox_api", "response = requests.post(sandbox_fusion_url, headers=headers, data=payload, timeout=timeout)"),
                           (f"{ctx.site}/requests/api.py", 115, "post", 'return request("post", url, data=data, json=json, **kwargs)'),
                           (f"{ctx.site}/requests/adapters.py", 713, "send", "raise ReadTimeout(e, request=request)")])
            tb.append("requests.exceptions.ReadTimeout: HTTPConnectionPool(host='10.200.3.4', port=8080): Read timed out. (read timeout=10)")
            tr.eb(s0 + gen + 3, tb + ["Sandbox API call failed after 1 attempt(s), returning score 0.0 for this sample"])
            ctx.note("decoy: handled requests.ReadTimeout traceback from the sandbox reward in TaskRunner")
        if last:
            break
        seq = v["bs"] * v["n"] * (v["maxp"] * 0.3 + v["maxr"] * 0.35) / world
        stats = dict(seq=seq, mem=r.uniform(30, 62), cpu=r.uniform(60, 300), epoch=(k - 1) // steps_per_epoch,
                     score=min(0.95, val0 + k * 0.004 + r.uniform(-0.05, 0.05)), rlen=r.uniform(250, v["maxr"] * 0.5),
                     maxlen=v["maxr"], tokens=int(seq * world), ngpu=world,
                     timing=dict(gen=gen, reward=r.uniform(0.5, 6), old=dur * 0.09, ref=dur * 0.08, adv=r.uniform(0.1, 1.5),
                                 upd=dur - gen - dur * 0.17 - 3))
        te = s0 + dur
        tr.o(te, verl_metrics(ctx, k, stats, algo))
        tr.e(te + 0.01, tqdm_bar("Training Progress", k, total_steps, te - train0, (te - train0) / k))
        if k % 5 == 0 and not last:
            tr.o(te + 30, f"step:{k} - val-aux/{dsid}/reward/mean@1:{min(0.95, val0 + k * 0.005):.3f} - val-core/{dsid}/acc/mean@1:{min(0.95, val0 + k * 0.005):.3f}")

    # --- failure ------------------------------------------------------------------------
    s0 = starts[-1]
    dur = step_durs[-1]
    gen = dur * 0.55
    stage = r.choice(["gen", "gen", "old", "ref", "upd", "upd"])
    if cause in ("cuda_oom",):
        stage = r.choice(["gen", "old", "upd", "upd"])
    st_off = {"gen": r.uniform(5, gen - 5), "old": gen + r.uniform(2, dur * 0.08), "ref": gen + dur * 0.09 + r.uniform(1, dur * 0.07),
              "upd": gen + dur * 0.2 + r.uniform(3, dur * 0.2)}[stage]
    tf = s0 + st_off
    method, fitline, fitno = VERL_METHOD[stage]
    seq0 = r.randint(800, 9000) + fail_step * 37 if cause else 0
    op = {"gen": "ALLREDUCE", "old": "_ALLGATHER_BASE", "ref": "_ALLGATHER_BASE", "upd": "_REDUCE_SCATTER_BASE"}[stage]
    numel = {"ALLREDUCE": r.choice([1, 2, 4096]), "_ALLGATHER_BASE": int(mparams * 1e9 / world / 28), "_REDUCE_SCATTER_BASE": int(mparams * 1e9 / 28)}[op]
    nin, nout = (numel, numel) if op == "ALLREDUCE" else ((numel, numel * world) if op == "_ALLGATHER_BASE" else (numel, numel // world))
    t_end = None
    driver_err = None     # (kind, lines)
    shell_tail = []
    kernel = {}           # node idx -> list of (t, text)
    trunner_repr = f"<main_ppo.TaskRunner object at {addr(r)}>"
    wd_repr = f"<verl.single_controller.ray.base.WorkerDict object at {addr(r)}>"

    def rtask_head(exc_name):
        return [f"ray.exceptions.RayTaskError({exc_name}): ray::TaskRunner.run() (pid={task_pid}, ip={head.ip}, actor_id={tr.aid}, repr={trunner_repr})",
                f'  File "{root}/verl/trainer/main_ppo.py", line {r.choice([230, 317, 324])}, in run',
                "    trainer.fit()",
                f'  File "{root}/verl/trainer/ppo/ray_trainer.py", line {fitno}, in fit',
                f"    {fitline}",
                f'  File "{root}/verl/single_controller/ray/base.py", line 51, in __call__',
                "    output = ray.get(output)"] + (["           ^^^^^^^^^^^^^^^^"] if ctx.py >= "3.11" else [])

    def worker_task_err(p, exc_lines, exc_name):
        frames = verl_stage_frames(ctx, root, stage, rollout)
        out = [f"ray.exceptions.RayTaskError({exc_name}): ray::WorkerDict.{method}() (pid={p.pid}, ip={p.node.ip}, actor_id={p.aid}, repr={wd_repr})"]
        for f, ln, fn, code in frames:
            out.append(f'  File "{f}", line {ln}, in {fn}')
            out.append(f"    {code}")
        return out + exc_lines

    def died(p, why_lines):
        return rj.actor_died_text(p, "create_colocated_worker_cls.<locals>.WorkerDict", p.name, why_lines)

    others = [p for p in workers if p is not cw]

    def victims_timeout(tbase, enq_of, done_of, full_frac=0.35, exclude=(), dump=True):
        first = None
        full_frac = min(full_frac, 5.0 / world)
        for p in workers:
            if p in exclude:
                continue
            tt = tbase + r.uniform(0.0, 1.5)
            enq = enq_of(p)
            done = done_of(p)
            lines = wd_timeout_block(ctx, p.node, p.rank, tt, seq0, op, nin, nout, tmo_ms, enq, done, full=(r.random() < full_frac))
            p.eb(tt, lines)
            if dump and ctx.tv in ("2.5", "2.6", "2.7"):
                if first is None:
                    first = p
                p.eb(tt + 0.05, dump_signal_lines(ctx, p.node, p.rank, tt + 0.05, first.rank, enq, done, first=(p is first)))
            p.dead_at = tt + 1.0
        return first

    tmo = tmo_ms / 1000.0
    cuda_errs = {"ecc_memory": "uncorrectable ECC error encountered",
                 "nvlink": "an uncorrectable NVLink error was detected during the execution",
                 "gpu_hardware": r.choice(["unspecified launch failure", "unknown error"]),
                 "illegal_memory_access": "an illegal memory access was encountered"}
    if cause in ("ecc_memory", "nvlink", "gpu_hardware", "illegal_memory_access"):
        err = cuda_errs[cause]
        variant = r.choice(["task", "abort"]) if cause != "gpu_hardware" else r.choice(["abort", "abort", "task"])
        exc = [f"RuntimeError: CUDA error: {err}"] + cuda_err_tail() + [""]
        if cause == "nvlink" and cw.local % gpn < gpn - 1:
            # the NVLink peer on the same node also sees it a bit later
            peer = workers[cw.rank + 1] if cw.rank + 1 < world and workers[cw.rank + 1].node is cw.node else None
        else:
            peer = None
        cw.eb(tf + 0.4, wd_cuda_abort_block(ctx, cw.node, cw.rank, tf + 0.4, err), dd=False)
        if nccl_debug:
            cw.e(tf + 0.3, f"{cw.node.host}:{cw.pid}:{cw.pid + r.randint(200, 900)} [{cw.local}] enqueue.cc:{r.choice([1547, 1612])} NCCL WARN Cuda failure '{err}'", dd=False)
        cw.eb(tf + 0.9, abseil_signal(ctx, cw.node, tf + 0.9, cw.pid, "SIGABRT", ["abort", "(unknown)", "(unknown)"]) +
              fatal_python(ctx, "Aborted", [(hexs(r, 12), [(f"/usr/lib/python{ctx.py}/threading.py", 324, "wait"), (f"{ctx.site}/ray/_private/worker.py", 932, "main_loop")])]), dd=False)
        cw.dead_at = tf + 1.0
        rj.raylet_worker_dead(tf + 1.1, cw, EOD_DETAIL)
        if peer is not None:
            peer.eb(tf + 2.1, wd_cuda_abort_block(ctx, peer.node, peer.rank, tf + 2.1, err), dd=False)
            peer.dead_at = tf + 2.2
            ctx.note(f"NVLink peer rank {peer.rank} on the same node also reports the NVLink error ~2s later (collateral)")
        if variant == "task":
            driver_err = ("task", rtask_head("RuntimeError") + worker_task_err(cw, exc, "RuntimeError"), tf + 0.6)
        else:
            driver_err = ("died", rtask_head("ActorDiedError") + died(cw, worker_died_lines()), tf + 3.5)
        if cause != "illegal_memory_access":
            kernel[cw.node.idx] = klines(tf - r.uniform(0.05, 0.5), xid_line(ctx, cause, cw.local, cw.pid, "ray::WorkerDict"))
        ssh = "" if cw.node is head else f"ssh {cw.node.host} "
        if cause == "gpu_hardware" and r.random() < 0.8:
            shell_tail = [user_shell(ctx, head.host) + f"{ssh}nvidia-smi"] + nvsmi_lost(ctx, cw.local)
        elif cause == "ecc_memory" and r.random() < 0.6:
            shell_tail = [user_shell(ctx, head.host) + f"{ssh}nvidia-smi -q -d ECC -i {cw.local} | head -40"] + nvsmi_ecc(ctx, cw.local)
        elif cause == "nvlink" and r.random() < 0.6:
            shell_tail = [user_shell(ctx, head.host) + f"{ssh}nvidia-smi nvlink -s -i {cw.local}"] + nvsmi_nvlink(ctx, cw.local, r.randint(0, 17))
        ctx.rank_ev += [glog_err_re(cw.rank, "CUDA error"), cw.name] + [[f"pid={cw.pid}, ip={cw.node.ip}, actor_id={cw.aid}", m] for m in ray_map_alts("WorkerDict", cw)]
        ctx.note(f"culprit WorkerDict rank {cw.rank} on {cw.node.ip} ({cw.node.host}); CUDA error '{err}' during {stage}; driver error variant={variant}")
    elif cause == "cuda_oom":
        gpu_total = 79.11 if gpn == 8 else 139.81
        inuse = gpu_total - r.uniform(0.2, 1.5)
        exc = [oom_msg(ctx, cw.local if r.random() < 0.3 else 0, r.uniform(1.2, 12), gpu_total, gpu_total - inuse, inuse, inuse - r.uniform(1, 6), r.uniform(0.3, 3))]
        if stage == "gen" and rollout == "vllm" and v9:
            # OOM when vLLM wakes up its KV cache in the colocated engine
            exc_frames = [(f"{root}/verl/workers/fsdp_workers.py", 801, "generate_sequences", "with self.rollout_sharding_manager:"),
                          (f"{root}/verl/workers/sharding_manager/fsdp_vllm.py", 219, "__enter__", 'self.inference_engine.wake_up(tags=["kv_cache"])'),
                          (f"{ctx.site}/vllm/entrypoints/llm.py", 1362, "wake_up", "self.llm_engine.wake_up(tags)"),
                          (f"{ctx.site}/vllm/device_allocator/cumem.py", 236, "wake_up", "create_and_map(handle)"),
                          (f"{ctx.site}/vllm/device_allocator/cumem.py", 79, "create_and_map", "python_create_and_map(*allocation_handle)")]
            body = [f"ray.exceptions.RayTaskError(OutOfMemoryError): ray::WorkerDict.{method}() (pid={cw.pid}, ip={cw.node.ip}, actor_id={cw.aid}, repr={wd_repr})"]
            for f, ln, fn, code in exc_frames:
                body += [f'  File "{f}", line {ln}, in {fn}', f"    {code}"]
            body += ["torch.OutOfMemoryError: CUDA Error: out of memory at /workspace/csrc/cumem_allocator.cpp:62"]
            driver_err = ("task", rtask_head("OutOfMemoryError") + body, tf + 0.5)
        else:
            driver_err = ("task", rtask_head("OutOfMemoryError") + worker_task_err(cw, exc, "OutOfMemoryError"), tf + 0.5)
        ctx.rank_ev += [[f"pid={cw.pid}, ip={cw.node.ip}, actor_id={cw.aid}", m] for m in ray_map_alts("WorkerDict", cw)]
        ctx.note(f"culprit rank {cw.rank}: CUDA OOM in WorkerDict.{method}")
    elif cause == "python_exception":
        ename, eline = r.choice(PY_EXC)
        driver_err = ("task", rtask_head(ename) + worker_task_err(cw, [eline], ename), tf + 0.3)
        ctx.rank_ev += [[f"pid={cw.pid}, ip={cw.node.ip}, actor_id={cw.aid}", m] for m in ray_map_alts("WorkerDict", cw)]
        ctx.note(f"culprit rank {cw.rank}: {ename} raised in WorkerDict.{method}")
    elif cause == "crash_signal":
        sig = r.choice(["SIGSEGV", "SIGSEGV", "SIGBUS"])
        frames = r.choice([["ncclProxyService()", "(unknown)", "start_thread"],
                           ["vllm::cross_device_reduce_1stage<>()", "(unknown)", "(unknown)"],
                           ["at::native::(anonymous namespace)::index_put_with_sort_kernel()", "(unknown)", "(unknown)"],
                           ["PyObject_GC_Del", "(unknown)", "_PyEval_EvalFrameDefault"]])
        cw.eb(tf, abseil_signal(ctx, cw.node, tf, cw.pid, sig, frames) +
              fatal_python(ctx, "Segmentation fault" if sig == "SIGSEGV" else "Bus error",
                           [(hexs(r, 12), [(f"{ctx.site}/torch/cuda/streams.py", 225, "synchronize"),
                                           (f"{root}/verl/workers/rollout/vllm_rollout/vllm_rollout_spmd.py", 289, "generate_sequences"),
                                           (f"{root}/verl/single_controller/ray/base.py", 705, "func")])]), dd=False)
        cw.dead_at = tf + 0.2
        rj.raylet_worker_dead(tf + 0.3, cw, EOD_DETAIL)
        driver_err = ("died", rtask_head("ActorDiedError") + died(cw, worker_died_lines()), tf + 2.5)
        ctx.rank_ev += [cw.name]
        ctx.note(f"culprit rank {cw.rank}: {sig} in WorkerDict (abseil handler dump)")
    elif cause == "host_oom_kill":
        total = r.choice([1007.5, 2015.4, 1510.2])
        thr = 0.95
        used = total * r.uniform(0.951, 0.985)
        loc = [p for p in workers if p.node is cw.node]
        top = [(cw.pid, r.uniform(90, 240), "ray::WorkerDict.actor_rollout_update_actor")]
        for p in loc:
            if p is not cw and len(top) < 10:
                top.append((p.pid, r.uniform(40, top[0][1] - 1), f"ray::WorkerDict.{method}"))
        top.sort(key=lambda x: -x[1])
        top_sorted = [top[0]] + top[1:]
        if cw.pid != top_sorted[0][0]:
            top_sorted = [x for x in top if x[0] == cw.pid] + [x for x in top if x[0] != cw.pid]
        ray_mem_console(ctx, rj, tf + 0.2, cw.node)
        rj.rl(tf, cw.node, "I", "memory_monitor.cc:180", f"Node memory usage above threshold, used: {used * 1e9:.0f}, threshold_bytes: {total * thr * 1e9:.0f}, total bytes: {total * 1e9:.0f}, threshold fraction: {thr}")
        rj.rl(tf + 0.01, cw.node, "I", "node_manager.cc:3012", f"Killing worker with task {hexs(r, 32)} name=create_colocated_worker_cls.<locals>.WorkerDict.{method} pid={cw.pid} for memory pressure")
        cw.dead_at = tf + 0.1
        why = ray_mem_kill_lines(ctx, rj, cw, f"create_colocated_worker_cls.<locals>.WorkerDict.{method}", used, total, thr, top_sorted)
        driver_err = ("died", rtask_head("ActorDiedError") + died(cw, why), tf + 1.5)
        ctx.rank_ev += [cw.name]
        ctx.note(f"culprit rank {cw.rank}: killed by Ray memory monitor on {cw.node.ip} (host RAM {used:.0f}/{total:.0f} GB)")
    elif cause == "preemption":
        nid = rj.node_id[cnode.idx]
        victim = [p for p in workers if p.node is cnode][0]
        rj.d(tf + 20, rj.pylog(tf + 20, "WARNING", "worker.py:2282",
                               f"The node with node id: {nid} and address: {cnode.ip} and node name: {cnode.ip} has been marked dead because the detector has missed too many heartbeats from it. This can happen when a \t(1) raylet crashes unexpectedly (OOM, etc.) \n\t(2) raylet has lagging heartbeats due to slow network or busy workload."))
        for p in workers:
            if p.node is cnode:
                p.dead_at = tf
        reason = r.choice(["preemption notice from cloud provider (spot instance reclaimed)", "Node is being preempted by the cloud provider",
                           "preempted: GCE instance terminated by provider (preemptible VM)"])
        why = [f"The actor died because its node has died. Node Id: {nid}", f"\tthe actor's node was preempted: {reason}",
               "\tThe actor's node was killed by a spot preemption."]
        driver_err = ("died", rtask_head("ActorDiedError") + died(victim, why), tf + 21)
        ctx.note(f"node {cnode.ip} ({cnode.host}) reclaimed as spot/preemptible; all its WorkerDicts died")
    elif cause == "network":
        rem = [nd for nd in nodes if nd is not cnode]
        affected = [p for p in workers if p.node is cnode] + r.sample([p for p in workers if p.node is not cnode], min(6, world - gpn))
        tfirst = None
        for p in affected:
            tt = tf + r.uniform(0.0, 3.0)
            if p.node is cnode:
                peer = r.choice(rem)
                lines = nccl_remote_err_block(ctx, p.node, p.rank, tt, peer.ip, p.node.ip, p.local, r.randint(32768, 60999))
            else:
                lines = nccl_remote_err_block(ctx, p.node, p.rank, tt, cnode.ip, p.node.ip, p.local, r.randint(32768, 60999))
            if nccl_debug:
                pi = r.choice(rem).ip if p.node is cnode else cnode.ip
                p.eb(tt - 0.01, nccl_ib_warn(ctx, p.node, p.pid, p.local, pi, p.node.ip), dd=False)
            p.eb(tt, lines, dd=False)
            p.dead_at = tt + 0.3
            if tfirst is None or tt < tfirst[0]:
                tfirst = (tt, p)
        victim = tfirst[1]
        driver_err = ("died", rtask_head("ActorDiedError") + died(victim, worker_died_lines()), tfirst[0] + 3)
        kernel[cnode.idx] = klines(tf - r.uniform(0.2, 2.0), ib_down_lines(ctx, "mlx5_3"))
        ctx.note(f"IB link on {cnode.ip} ({cnode.host}) went down; NCCL errors on both sides point at it; driver reports first aborted actor rank {victim.rank}")
    elif cause in ("hang", "collective_mismatch", "unknown"):
        if cause == "collective_mismatch" and r.random() < 0.5:
            # TORCH_DISTRIBUTED_DEBUG=DETAIL style explicit mismatch report
            fp_ok = f"CollectiveFingerPrint(SequenceNumber={seq0}, OpType={op}, TensorShape=[{nin}], TensorDtypes=BFloat16, TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt)))"
            fp_bad = f"CollectiveFingerPrint(SequenceNumber={seq0}, OpType=ALLREDUCE, TensorShape=[1], TensorDtypes=Float, TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt)))"
            reporter = r.choice([p for p in workers if p is not cw])
            msg = f"RuntimeError: Detected mismatch between collectives on ranks. Rank {reporter.rank} is running collective: {fp_ok}, but Rank {cw.rank} is running collective: {fp_bad}.Collectives differ in the following aspects: \t Op type: {op}vs ALLREDUCE  Tensor Tensor shapes: {nin}vs 1  Tensor Tensor dtypes: BFloat16vs Float"
            driver_err = ("task", rtask_head("RuntimeError") + [
                f"ray.exceptions.RayTaskError(RuntimeError): ray::WorkerDict.{method}() (pid={reporter.pid}, ip={reporter.node.ip}, actor_id={reporter.aid}, repr={wd_repr})"] +
                [x for f, ln, fn, code in verl_stage_frames(ctx, root, stage, rollout)[:5] for x in (f'  File "{f}", line {ln}, in {fn}', f"    {code}")] +
                [f'  File "{ctx.site}/torch/distributed/distributed_c10d.py", line 4159, in all_reduce', "    work = group.allreduce([tensor], opts)", msg], tf + 1.0)
            ctx.rank_ev += [f"but Rank {cw.rank} is running collective"]
            ctx.note(f"TORCH_DISTRIBUTED_DEBUG=DETAIL: rank {cw.rank} issued ALLREDUCE while the others issued {op}; error raised on rank {reporter.rank}")
        else:
            t_to = tf + tmo
            if cause == "hang":
                first = victims_timeout(t_to, lambda p: seq0 + r.choice([0, 0, 1, 2]), lambda p: seq0 - 1, exclude=(cw,))
                if first is not None:
                    cw.eb(t_to + 0.06, dump_signal_lines(ctx, cw.node, cw.rank, t_to + 0.06, first.rank, seq0 - 1, seq0 - 1), dd=True)
                    ctx.rank_ev += [glog_err_re(cw.rank, "Received a dump signal")]
                ctx.note(f"rank {cw.rank} stuck (no collective enqueued for SeqNum {seq0}); all other ranks hit the {tmo_ms} ms watchdog")
                if world <= 16 and not dedup:
                    ctx.rank_ev += ["__ABSENCE__"]
            elif cause == "collective_mismatch":
                first = victims_timeout(t_to, lambda p: seq0, lambda p: seq0 - 1, exclude=(cw,))
                bad = wd_timeout_block(ctx, cw.node, cw.rank, t_to + 0.3, seq0, "ALLREDUCE", 1, 1, tmo_ms, seq0, seq0 - 1, full=True)
                cw.eb(t_to + 0.3, bad, dd=False)
                cw.dead_at = t_to + 1
                ctx.rank_ev += [f"[Rank {cw.rank}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum={seq0}, OpType=ALLREDUCE"]
                ctx.note(f"rank {cw.rank} entered ALLREDUCE(numel=1) while others entered {op} at SeqNum {seq0} (divergent code path)")
            else:
                first = victims_timeout(t_to, lambda p: seq0, lambda p: seq0 - 1, full_frac=0.3)
                ctx.note("every rank times out at the same SeqNum with the same enqueued/completed counters; nothing identifies an initiator")
            died_list = [p for p in workers if p.dead_at]
            victim = min(died_list, key=lambda p: p.dead_at + r.uniform(0, 0.8)) if died_list else workers[0]
            for p in died_list:
                rj.raylet_worker_dead(p.dead_at + 0.1, p, EOD_DETAIL)
            driver_err = ("died", rtask_head("ActorDiedError") + died(victim, worker_died_lines()), victim.dead_at + 2.5)
    elif cause == "data_loader_stall":
        t_last = s0
        t_kill = s0 + r.uniform(2.5, 9) * 3600
        pyspy = [f"Process {task_pid}: ray::TaskRunner.run", f"Python v{ctx.py}.{r.randint(4, 12)} (/usr/bin/python{ctx.py})", "",
                 f'Thread {task_pid} (idle): "MainThread"',
                 f"    wait (threading.py:{r.choice([320, 324, 355])})",
                 "    get (queue.py:180)",
                 f"    _try_get_data (torch/utils/data/dataloader.py:{r.choice([1243, 1284])})",
                 f"    _get_data (torch/utils/data/dataloader.py:{r.choice([1410, 1451])})",
                 f"    _next_data (torchdata/stateful_dataloader/stateful_dataloader.py:{r.choice([1394, 1425])})",
                 f"    __next__ (torch/utils/data/dataloader.py:{r.choice([708, 733])})",
                 f"    fit (verl/trainer/ppo/ray_trainer.py:{r.choice([1011, 1032])})",
                 f"    run (main_ppo.py:{r.choice([230, 317])})",
                 "    _resume_span (ray/util/tracing/tracing_helper.py:463)",
                 "    actor_method_executor (ray/_private/function_manager.py:696)",
                 "    main_loop (ray/_private/worker.py:932)",
                 "    <module> (ray/_private/workers/default_worker.py:297)"]
        for j in range(r.randint(1, 3)):
            pyspy += ["", f'Thread {task_pid + 40 + j} (idle): "pin_memory"' if j == 0 else f'Thread {task_pid + 90 + j} (idle): "Thread-{j + 2}"',
                      f"    wait (threading.py:{r.choice([324, 355])})", "    get (queue.py:180)"]
        ctx.add(r.choice(["py-spy-TaskRunner.txt", f"pyspy_{task_pid}.txt"]), [f"{user_shell(ctx, head.host, cwd=root)}py-spy dump --pid {task_pid}"] + pyspy)
        rj.d(t_kill, "^C")
        kb = pyframes([(f"{root}/verl/trainer/main_ppo.py", 96, "run_ppo", "ray.get(runner.run.remote(config))"),
                       (f"{ctx.site}/ray/_private/worker.py", 2858, "get", "values, debugger_breakpoint = worker.get_objects(object_refs, timeout=timeout)"),
                       (f"{ctx.site}/ray/_private/worker.py", 909, "get_objects", "] = self.core_worker.get_objects(")])
        kb += ['  File "python/ray/_raylet.pyx", line 3507, in ray._raylet.CoreWorker.get_objects',
               '  File "python/ray/includes/common.pxi", line 83, in ray._raylet.check_status', "KeyboardInterrupt"]
        driver_err = ("kbd", kb, t_kill + 1)
        ctx.note(f"TaskRunner (driver-side StatefulDataLoader, num_workers=8) blocked after step {fail_step - 1}; no worker activity, no NCCL timeouts; user interrupted after {(t_kill - s0) / 3600:.1f} h; py-spy dump of TaskRunner shows _try_get_data")
        if raylogs:
            kernel[head.idx] = [(s0 + r.uniform(10, 300) + i * 31, f"nfs: server {r.choice(['nas01', 'fs-rl', 'vast-01'])} not responding, still trying") for i in range(3)]
    elif cause == "straggler":
        ctx.note(f"rank {cw.rank} ({cw.node.ip}) vLLM generation throughput {slow_f:.1f}x lower from step {straggle_from}; timing_s/gen grows; job killed by user")
        ctx.rank_ev += [[f"re:\\(WorkerDict pid={cw.pid}(, ip=[0-9.]+)?\\) INFO .*Engine 000: Avg prompt", m] for m in ray_map_alts("WorkerDict", cw)]
        if r.random() < 0.5:
            shell_tail = [user_shell(ctx, head.host) + ("" if cw.node is head else f"ssh {cw.node.host} ") + f"nvidia-smi -q -d PERFORMANCE,TEMPERATURE,CLOCK -i {cw.local}"] + nvsmi_throttle(ctx, cw.local, True)
        t_kill = s0 + r.uniform(30, dur * 0.6)
        rj.d(t_kill, "^C")
        kb = pyframes([(f"{root}/verl/trainer/main_ppo.py", 96, "run_ppo", "ray.get(runner.run.remote(config))"),
                       (f"{ctx.site}/ray/_private/worker.py", 2858, "get", "values, debugger_breakpoint = worker.get_objects(object_refs, timeout=timeout)")]) + ["KeyboardInterrupt"]
        driver_err = ("kbd", kb, t_kill + 0.5)

    # mapping evidence (pid -> rank) lines that survive dedup
    # --- end of run ---------------------------------------------------------------------
    if cause is None:
        te = starts[-1] + step_durs[-1]
        tr.o(te + 40, f"Final validation metrics: {{'val-aux/{dsid}/reward/mean@1': {min(0.95, val0 + n_steps * 0.005):.4f}, 'val-core/{dsid}/acc/mean@1': {min(0.95, val0 + n_steps * 0.005):.4f}}}")
        tr.e(te + 40.01, tqdm_bar("Training Progress", n_steps, total_steps, te - train0, (te - train0) / n_steps))
        for p in workers:
            p.e(te + 44 + r.uniform(0, 1), pg_not_destroyed(ctx, p.node, te + 44, p.rank))
        t_end = te + 46
        if r.random() < 0.5:
            rj.d(t_end, "wandb: 🚀 View run " + v["exp"] + " at: https://wandb.ai/" + r.choice(["rl-team", "acme-ai", "lab"]) + "/" + v["project"] + "/runs/" + b62(r, 8).lower())
        # benign scary things for healthy runs
        wn = workers[r.randint(0, world - 1)]
        if nn > 1:
            ctx.note("healthy: benign NCCL WARN + process-group-not-destroyed warnings at exit")
        wn.e(train0 + 60, f"{wn.node.host}:{wn.pid}:{wn.pid + 311} [{wn.local}] init.cc:{r.choice([1702, 1891])} NCCL WARN Missing \"iommu=pt\" from kernel command line which can lead to system instablity or hang!", dd=False) if nccl_debug else None
    else:
        kind, lines, tdrv = driver_err
        if kind in ("task", "died"):
            lines = ["Error executing job with overrides: [" + ", ".join(f"'{o}'" for o in ovr) + "]",
                     "Traceback (most recent call last):",
                     f'  File "{root}/verl/trainer/main_ppo.py", line 42, in main', "    run_ppo(config)",
                     f'  File "{root}/verl/trainer/main_ppo.py", line 96, in run_ppo', "    ray.get(runner.run.remote(config))",
                     f'  File "{ctx.site}/ray/_private/auto_init_hook.py", line 22, in auto_init_wrapper', "    return fn(*args, **kwargs)",
                     f'  File "{ctx.site}/ray/_private/client_mode_hook.py", line 104, in wrapper', "    return func(*args, **kwargs)",
                     f'  File "{ctx.site}/ray/_private/worker.py", line 2858, in get', "    values, debugger_breakpoint = worker.get_objects(object_refs, timeout=timeout)",
                     f'  File "{ctx.site}/ray/_private/worker.py", line 958, in get_objects', "    raise value.as_instanceof_cause()"] + lines + ["", "Set the environment variable HYDRA_FULL_ERROR=1 for a complete stack trace."]
        rj.db(tdrv, lines)
        t_end = tdrv + 0.2
        # everything after the driver exits is not printed
        for p in rj.procs:
            p.until(t_end)
    # decoys common
    if raylogs and nn > 1 and r.random() < 0.5:
        dnode = r.choice([nd for nd in nodes if nd is not cnode] or nodes)
        kernel.setdefault(dnode.idx, [])
        kernel[dnode.idx] = klines(-r.uniform(2, 20) * 86400, xid_line(ctx, "old_xid", r.randint(0, gpn - 1), r.randint(3000, 90000), "python3")) + kernel[dnode.idx]
        ctx.note(f"decoy: old benign Xid on {dnode.host} days before the job")

    # --- render ---------------------------------------------------------------------------
    console = rj.console(t_end)
    if shell_tail:
        console += [""] + shell_tail + [user_shell(ctx, head.host)]
    fname = r.choice([f"logs/{v['exp']}.log", "train.log", "nohup.out", f"verl_{dsname}_{ctx.when(0, head).strftime('%Y%m%d_%H%M')}.log"])
    if not raylogs:
        ctx.add(fname, console)
    else:
        ctx.add("driver.log", console)
        for nd in nodes:
            fl = rj.node_logs(nd, t_end)
            d = f"ray_logs/{nd.ip}/"
            for k2, lines in fl.items():
                if k2.startswith("worker-") and len(lines) <= 2:
                    continue
                ctx.add(d + k2, lines)
            if nd.idx in kernel:
                ks = sorted(kernel[nd.idx], key=lambda x: x[0])
                ctx.add(f"ray_logs/{nd.ip}/dmesg.txt" if r.random() < 0.5 else f"dmesg-{nd.host}.txt",
                        [f"{ctx.dmesg_T(tk, nd)} {x}" for tk, x in ks])
        ctx.note("dmesg files were collected by the user for nodes with kernel messages")
    # truth
    tr_ = ctx.truth
    if cause is None:
        pass
    elif crank is not None:
        tr_["rank"] = crank
        tr_["node"] = cw.node.ip
        tr_["node_aliases"] = [cw.node.host]
    elif cnode is not None:
        tr_["node"] = cnode.ip
        tr_["node_aliases"] = [cnode.host]
    ctx.world = world
    ctx.note(f"verl {'raylogs' if raylogs else 'console'}; world={world} ({nn}x{gpn}); rollout={rollout} tp={tp}; torch {ctx.tv}; ray dedup={'on' if dedup else 'off'}")
    return rj


# ----------------------------------------------------------------------------------------
# generic failure helpers for Ray-hosted trainers and rollout engines (OpenRLHF, NeMo-RL)
# ----------------------------------------------------------------------------------------

CUDA_ERRS = {"ecc_memory": "uncorrectable ECC error encountered",
             "nvlink": "an uncorrectable NVLink error was detected during the execution",
             "gpu_hardware": None,
             "illegal_memory_access": "an illegal memory access was encountered"}


def cuda_err_for(ctx, cause):
    if cause == "gpu_hardware":
        return ctx.k("gpuerr", ["unspecified launch failure", "unknown error"])
    return CUDA_ERRS[cause]


def task_err_block(head, frames, exc_lines):
    out = [head]
    for f, ln, fn, code in frames:
        out.append(f'  File "{f}", line {ln}, in {fn}')
        if code:
            out.append(f"    {code}")
    return out + exc_lines


def ray_trainer_fail(ctx, rj, cause, cw, workers, tf, spec):
    """Failure started by a Ray-hosted trainer rank `cw`.
    spec: label, class_name, method, repr, frames, tmo_ms, seq0, op, nin, nout, name(optional)
    returns (inner_lines, exc_name, t_driver, kernel_lines)"""
    r = ctx.rng
    label = spec["label"]
    kernel = []
    head = lambda exc: f"ray.exceptions.RayTaskError({exc}): ray::{spec['class_short']}.{spec['method']}() (pid={cw.pid}, ip={cw.node.ip}, actor_id={cw.aid}, repr={spec['repr']})"
    died = lambda why: rj.actor_died_text(cw, spec["class_name"], spec.get("name"), why)
    mapping = ray_map_alts(label, cw, spec.get("logdir", "node_logs"))
    pid_ev = f"pid={cw.pid}, ip={cw.node.ip}, actor_id={cw.aid}"
    if cause in ("ecc_memory", "nvlink", "gpu_hardware", "illegal_memory_access"):
        err = cuda_err_for(ctx, cause)
        cw.eb(tf + 0.4, wd_cuda_abort_block(ctx, cw.node, cw.rank, tf + 0.4, err), dd=False)
        cw.eb(tf + 0.9, abseil_signal(ctx, cw.node, tf + 0.9, cw.pid, "SIGABRT", ["abort", "(unknown)", "(unknown)"]), dd=False)
        cw.dead_at = tf + 1
        rj.raylet_worker_dead(tf + 1.1, cw, EOD_DETAIL)
        if cause != "illegal_memory_access":
            kernel = klines(tf - r.uniform(0.05, 0.5), xid_line(ctx, cause, cw.local, cw.pid, "ray::" + spec["class_short"][:9]))
        ctx.rank_ev += [glog_err_re(cw.rank, "CUDA error")] + [[pid_ev, m] for m in mapping]
        if r.random() < 0.5:
            exc = [f"RuntimeError: CUDA error: {err}"] + cuda_err_tail()
            return task_err_block(head("RuntimeError"), spec["frames"], exc), "RuntimeError", tf + 0.5, kernel
        return died(worker_died_lines()), "ActorDiedError", tf + 3.0, kernel
    if cause == "cuda_oom":
        tot = 79.11
        inuse = tot - r.uniform(0.2, 1.4)
        exc = [oom_msg(ctx, 0, r.uniform(1.5, 14), tot, tot - inuse, inuse, inuse - r.uniform(1, 6), r.uniform(0.2, 3))]
        ctx.rank_ev += [[pid_ev, m] for m in mapping]
        return task_err_block(head("OutOfMemoryError"), spec["frames"], exc), "OutOfMemoryError", tf + 0.4, kernel
    if cause == "python_exception":
        ename, eline = r.choice(PY_EXC)
        ctx.rank_ev += [[pid_ev, m] for m in mapping]
        return task_err_block(head(ename), spec["frames"], [eline]), ename, tf + 0.3, kernel
    if cause == "crash_signal":
        sig = r.choice(["SIGSEGV", "SIGSEGV", "SIGBUS"])
        cw.eb(tf, abseil_signal(ctx, cw.node, tf, cw.pid, sig, r.choice([["ncclProxyService()", "(unknown)", "start_thread"],
                                                                         ["deepspeed::adam::Adam_Optimizer::Step_AVX<>()", "(unknown)", "(unknown)"],
                                                                         ["PyObject_GC_Del", "(unknown)", "_PyEval_EvalFrameDefault"]])) +
              fatal_python(ctx, "Segmentation fault" if sig == "SIGSEGV" else "Bus error",
                           [(hexs(r, 12), [(f"{ctx.site}/torch/autograd/graph.py", 825, "_engine_run_backward"),
                                           (f"{ctx.site}/deepspeed/runtime/engine.py", 2048, "backward")])]), dd=False)
        cw.dead_at = tf + 0.2
        rj.raylet_worker_dead(tf + 0.3, cw, EOD_DETAIL)
        ctx.rank_ev += [[f"re:\\({re.escape(label)} pid={cw.pid}(, ip=[0-9.]+)?\\) \\*\\*\\* {sig}", m] for m in mapping]
        return died(worker_died_lines()), "ActorDiedError", tf + 2.5, kernel
    if cause == "host_oom_kill":
        total = r.choice([1007.5, 2015.4, 1510.2])
        used = total * r.uniform(0.951, 0.985)
        top = [(cw.pid, r.uniform(120, 300), f"ray::{spec['class_short']}.{spec['method']}")]
        for p in workers:
            if p.node is cw.node and p is not cw and len(top) < 8:
                top.append((p.pid, r.uniform(30, 110), f"ray::{spec['class_short']}.{spec['method']}"))
        ray_mem_console(ctx, rj, tf + 0.2, cw.node)
        rj.rl(tf, cw.node, "I", "memory_monitor.cc:180", f"Node memory usage above threshold, used: {used * 1e9:.0f}, threshold_bytes: {total * 0.95e9:.0f}, total bytes: {total * 1e9:.0f}, threshold fraction: 0.95")
        cw.dead_at = tf + 0.1
        ctx.rank_ev += [[f"pid: {cw.pid}", m] for m in mapping]
        return died(ray_mem_kill_lines(ctx, rj, cw, f"{spec['class_short']}.{spec['method']}", used, total, 0.95, top)), "ActorDiedError", tf + 1.5, kernel
    raise ValueError(cause)


def collective_timeouts(ctx, workers, tbase, seq, op, nin, nout, tmo_ms, enq_of, done_of, exclude=(), pg=0, guid="0(default_pg)"):
    r = ctx.rng
    first = None
    full_frac = min(0.35, 4.0 / max(1, len(workers)))
    for p in workers:
        if p in exclude:
            continue
        tt = tbase + r.uniform(0.0, 1.5)
        lines = wd_timeout_block(ctx, p.node, p.rank, tt, seq, op, nin, nout, tmo_ms, enq_of(p), done_of(p), full=(r.random() < full_frac), pg=pg, guid=guid)
        p.eb(tt, lines)
        if ctx.tv in ("2.5", "2.6", "2.7"):
            if first is None:
                first = p
            p.eb(tt + 0.05, dump_signal_lines(ctx, p.node, p.rank, tt + 0.05, first.rank, enq_of(p), done_of(p), first=(p is first), pg=pg, guid=guid))
        p.dead_at = tt + 1.0
    return first


def vllm_engine_exc(ctx, cause):
    """(exception lines, exc class) raised inside a vLLM engine"""
    r = ctx.rng
    if cause in ("ecc_memory", "nvlink", "gpu_hardware", "illegal_memory_access"):
        return [f"RuntimeError: CUDA error: {cuda_err_for(ctx, cause)}"] + cuda_err_tail(), "RuntimeError"
    if cause == "cuda_oom":
        tot = 79.11
        inuse = tot - r.uniform(0.1, 0.9)
        return [oom_msg(ctx, 0, r.uniform(0.5, 4), tot, tot - inuse, inuse, inuse - r.uniform(8, 30), r.uniform(0.1, 1))], "OutOfMemoryError"
    if cause == "python_exception":
        ml = r.choice([4096, 8192, 16384])
        return [r.choice([f"ValueError: The decoder prompt (length {ml + r.randint(1, 900)}) is longer than the maximum model length of {ml}. Make sure that `max_model_len` is no smaller than the number of text tokens.",
                          "AssertionError: num_new_tokens > 0",
                          "KeyError: 'model.layers.27.mlp.experts.w13_weight'"])], "ValueError"
    raise ValueError(cause)


def vllm_frames(ctx, caller):
    site = ctx.site
    return caller + [(f"{site}/vllm/utils.py", 1196, "inner", "return fn(*args, **kwargs)"),
                     (f"{site}/vllm/entrypoints/llm.py", 475, "generate", "outputs = self._run_engine(use_tqdm=use_tqdm)"),
                     (f"{site}/vllm/entrypoints/llm.py", 1427, "_run_engine", "step_outputs = self.llm_engine.step()"),
                     (f"{site}/vllm/v1/engine/llm_engine.py", 237, "step", "outputs = self.engine_core.get_output()"),
                     (f"{site}/vllm/v1/engine/core_client.py", 231, "get_output", "outputs, _ = self.engine_core.step()"),
                     (f"{site}/vllm/v1/engine/core.py", 225, "step", "model_output = self.execute_model(scheduler_output)"),
                     (f"{site}/vllm/v1/executor/abstract.py", 87, "execute_model", "output = self.collective_rpc(\"execute_model\","),
                     (f"{site}/vllm/v1/worker/gpu_model_runner.py", 1211, "execute_model", "model_output = self.model(")]


# ----------------------------------------------------------------------------------------
# OpenRLHF (ray job submit)
# ----------------------------------------------------------------------------------------

def build_openrlhf(ctx):
    r = ctx.rng
    cause = ctx.cause
    gpn = 8
    colocate = r.random() < 0.4
    an = r.choice([1, 1, 2, 2, 4])
    vn = 0 if colocate else r.choice([1, 1, 2])
    nn = an + vn
    if cause in ("network", "preemption") and nn == 1:
        an, nn = 2, 2 + vn
    nodes = make_nodes(ctx, nn, r.choice(["h100", "aws", "hgx", "dgx"]))
    tz = choose_tz(ctx)
    for nd in nodes:
        nd.tz = tz
    ctx.nodes = nodes
    head = nodes[0]
    world = an * gpn
    etp = r.choice([1, 2, 2, 4])
    ne = (world // etp) if colocate else (vn * gpn) // etp
    ne = max(1, min(ne, 16))
    dedup = r.random() < 0.7 or world >= 32
    rj = RayJob(ctx, nodes, dedup=dedup, job_num=r.choice([2, 3, 5]))
    root = r.choice(["/openrlhf", "/workspace/OpenRLHF", "/root/OpenRLHF"])
    mpath, mcls, mparams, mfam = r.choice(MODELS[:4] + MODELS[5:])
    vver = r.choice(["0.8.5.post1", "0.9.2", "0.10.1"])
    dsv = r.choice(["0.16.4", "0.16.9", "0.17.2"])
    tmo_ms = 1800000
    sub_id = "raysubmit_" + b62(r, 16)
    nccl_debug = r.random() < 0.3
    # trainer ranks
    actors = []
    for rank in range(world):
        nd = nodes[rank // gpn]
        actors.append(rj.actor("ActorModelRayActor", nd, rank=rank, local=rank % gpn))
    refs = []
    if r.random() < 0.6:
        for rank in range(min(world, gpn)):
            refs.append(rj.actor("ReferenceModelRayActor", nodes[0], rank=rank, local=rank))
    engines = []
    for e in range(ne):
        if colocate:
            nd = nodes[(e * etp) // gpn]
        else:
            nd = nodes[an + (e * etp) // gpn]
        p = rj.actor("LLMRayActor", nd)
        p.eidx = e
        p.gpus = [((e * etp) % gpn) + j for j in range(etp)]
        p.local = p.gpus[0]
        engines.append(p)
    for nd in nodes:
        rj.raylet_boot(-r.uniform(60, 3000), nd, 192, gpn, r.choice([2015, 1007]))
        if r.random() < 0.4:
            ray_worker_warn(ctx, rj, 20 + r.uniform(0, 30), nd, gpn + r.randint(2, 6))
    # culprit
    role = None
    cw = None
    ce = None
    cnode = None
    if cause in ("preemption",):
        cnode = nodes[r.randint(1, nn - 1)]
        role = "node"
    elif cause == "network":
        cnode = nodes[r.randint(0, nn - 1)]
        role = "node"
    elif cause in ("collective_mismatch", "data_loader_stall", "unknown") or cause is None:
        role = "trainer" if cause in ("collective_mismatch", "data_loader_stall") else None
    elif cause == "straggler":
        role = "rollout" if ne > 1 else "trainer"
    else:
        role = "rollout" if r.random() < 0.45 else "trainer"
    if role == "trainer":
        cw = actors[r.randint(0, world - 1)] if cause != "data_loader_stall" else actors[r.randint(0, world - 1)]
        cnode = cw.node
    elif role == "rollout":
        ce = engines[r.randint(0, ne - 1)]
        cnode = ce.node
    if cause == "straggler" and role == "trainer":
        ctx.note("single vLLM engine: straggler modelled on a trainer rank")
    # preamble: ray job submit
    out_pre = [f"Job submission server address: http://127.0.0.1:8265", "",
               "-------------------------------------------------------", f"Job '{sub_id}' submitted successfully",
               "-------------------------------------------------------", "", "Next steps", "  Query the logs of the job:",
               f"    ray job logs {sub_id}", "  Query the status of the job:", f"    ray job status {sub_id}",
               "  Request the job to be stopped:", f"    ray job stop {sub_id}", "", "Tailing logs until the job exits (disable with --no-wait):"]
    cmd = (f"ray job submit --address=\"http://127.0.0.1:8265\" --runtime-env-json='{{\"working_dir\": \"{root}\"}}' -- python3 -m openrlhf.cli.train_ppo_ray "
           f"--ref_num_nodes 1 --ref_num_gpus_per_node {gpn} --actor_num_nodes {an} --actor_num_gpus_per_node {gpn} --vllm_num_engines {ne} "
           f"--vllm_tensor_parallel_size {etp} {'--colocate_all_models --vllm_enable_sleep --vllm_gpu_memory_utilization 0.5 ' if colocate else '--vllm_gpu_memory_utilization 0.9 '}"
           f"--pretrain {mpath} --remote_rm_url {root}/examples/scripts/reward_func.py --save_path {root}/checkpoint/{mpath.split('/')[1].lower()}-rlhf "
           f"--micro_train_batch_size 4 --train_batch_size 128 --micro_rollout_batch_size 16 --rollout_batch_size 128 --n_samples_per_prompt 8 "
           f"--max_epochs 1 --prompt_max_len 1024 --generate_max_len {r.choice([1024, 2048, 4096])} --zero_stage 3 --bf16 --actor_learning_rate 5e-7 "
           f"--init_kl_coef 0.01 --prompt_data {r.choice(['OpenRLHF/prompt-collection-v0.1', 'hiyouga/math12k'])} --input_key context_messages --apply_chat_template "
           f"--advantage_estimator {r.choice(['reinforce_baseline', 'group_norm', 'gae'])} --normalize_reward --gradient_checkpointing --packing_samples --vllm_sync_backend nccl --use_wandb $WANDB_KEY")
    t = 0.0
    rj.d(-0.5, f"{user_shell(ctx, head.host, cwd=root)}{cmd}")
    rj.db(-0.4, out_pre, 0.01)
    rj.d(1.0, rj.pylog(1.0, "INFO", "worker.py:1654", f"Using address {head.ip}:6379 set in the environment variable RAY_ADDRESS"))
    rj.d(1.2, rj.pylog(1.2, "INFO", "worker.py:1832", f"Connecting to existing Ray cluster at address: {head.ip}:6379..."))
    rj.d(1.6, rj.pylog(1.6, "INFO", "worker.py:2003", f"Connected to Ray cluster. View the dashboard at {head.ip}:8265 "))
    for e, p in enumerate(engines):
        ti = 5 + r.uniform(0, 6)
        rj.raylet_worker_start(ti - 1, p)
        for tt, x in vllm_init_lines(ctx, p.node, ti, mpath, etp, vver, 0.5, 4096, sleep=colocate):
            p.o(tt, x)
    tt0 = 60
    ds_ts = lambda tt, nd: f"[{ctx.py_ts(tt, nd)}]"
    for p in actors + refs:
        ti = tt0 + r.uniform(0, 8)
        rj.raylet_worker_start(ti - 1, p)
        p.o(ti, f"{ds_ts(ti, p.node)} [INFO] [real_accelerator.py:{ctx.k('ra', [222, 239])}:get_accelerator] Setting ds_accelerator to cuda (auto detect)")
        p.o(ti + 2, f"{ds_ts(ti + 2, p.node)} [INFO] [comm.py:{ctx.k('cm', [658, 669])}:init_distributed] cdb=None")
        if p.rank == 0:
            p.o(ti + 2.1, f"{ds_ts(ti + 2.1, p.node)} [INFO] [comm.py:{ctx.k('cm2', [689, 700])}:init_distributed] Initializing TorchBackend in DeepSpeed with backend nccl")
        p.e(ti + 5, barrier_warn(ctx, p.node, ti + 5, p.rank, p.local))
        if nccl_debug and p.kind == "actor" and p.label == "ActorModelRayActor" and (p.rank < 2 or p is cw or r.random() < 0.2):
            for x in nccl_init_lines(ctx, p.node, p.pid, p.local, p.rank, world, "0x" + hexs(r, 8), "0x" + hexs(r, 16), first=(p.rank == 0)):
                p.o(ti + 5.5, x)
        if p.rank == 0:
            p.o(ti + 20, f"{ds_ts(ti + 20, p.node)} [INFO] [logging.py:128:log_dist] [Rank 0] DeepSpeed info: version={dsv}, git-hash=unknown, git-branch=unknown")
            p.o(ti + 20.2, f"{ds_ts(ti + 20.2, p.node)} [INFO] [config.py:{ctx.k('dsc', [1003, 1012])}:print] DeepSpeedEngine configuration:")
            p.o(ti + 20.3, f"{ds_ts(ti + 20.3, p.node)} [INFO] [config.py:{ctx.k('dsc2', [1007, 1016])}:print]   zero_optimization_stage ...... 3")
    # weight-sync group init
    tsync = tt0 + 45
    ws = 1 + ne * etp
    mport = r.randint(20000, 65000)
    a0 = actors[0]
    for p in engines:
        for j in range(etp):
            p.o(tsync + r.uniform(0, 2), f"init_process_group: master_address={a0.node.ip}, master_port={mport},  rank={1 + p.eidx * etp + j}, world_size={ws}, group_name=openrlhf")
    # steps
    step_s = r.uniform(150, 600)
    n_ep = r.randint(20, 60)
    fail_step = r.randint(3, min(n_ep - 1, 28)) if cause else None
    n_steps = fail_step if cause else min(n_ep, r.randint(15, 30))
    train0 = tsync + 20
    slow_f = r.uniform(1.8, 3.5)
    strag_from = r.randint(2, max(2, (fail_step or 4) // 2)) if cause == "straggler" else 10 ** 9
    starts = []
    tcur = train0
    for k in range(1, n_steps + 1):
        d = step_s * r.uniform(0.85, 1.15) * (slow_f * 0.7 if k >= strag_from else 1.0)
        starts.append((tcur, d))
        tcur += d
    gen_n = 128 * 8 // ne
    decoy_k = r.randint(1, max(1, n_steps - 1))
    for k in range(1, n_steps + 1):
        s0, d = starts[k - 1]
        last = cause is not None and k == n_steps
        gen = d * 0.45
        gbase = step_s * 0.45
        for p in engines:
            slow = (k >= strag_from and p is ce)
            g = gbase * r.uniform(0.82, 0.98) * (slow_f if slow else 1.0)
            gen = max(gen, g)
            if last and cause in ("hang",) and p is ce:
                stuck = r.randint(int(gen_n * 0.85), gen_n - 1)
                p.e(s0 + g, f"Processed prompts:  {int(100 * stuck / gen_n):2d}%|{'█' * int(10 * stuck / gen_n)}{' ' * (10 - int(10 * stuck / gen_n))}| {stuck}/{gen_n} [{int(g // 60):02d}:{int(g % 60):02d}<{int(g * 0.1 // 60):02d}:{int(g * 0.1 % 60):02d}, {stuck / g:.2f}it/s, est. speed input: {r.uniform(200, 500):.2f} toks/s, output: {r.uniform(1500, 3000):.2f} toks/s]", dd=False)
                continue
            if last and p is ce:
                continue
            spd = gen_n * r.uniform(450, 650) / g
            p.e(s0 + g, f"Processed prompts: 100%|██████████| {gen_n}/{gen_n} [{int(g // 60):02d}:{int(g % 60):02d}<00:00, {gen_n / g:5.2f}it/s, est. speed input: {spd * 0.15:.2f} toks/s, output: {spd:.2f} toks/s]", dd=not (slow or p is ce))
        if last:
            break
        a0.e(s0 + d - 2, f"Train epoch [1/1]: 100%|██████████| 8/8 [{int(d * 0.3 // 60):02d}:{int(d * 0.3 % 60):02d}<00:00, {d * 0.3 / 8:5.2f}s/it, policy_loss={r.uniform(-0.05, 0.05):.4f}, actor_lr=5e-7, kl={r.uniform(0, 0.002):.5f}, clip_ratio={r.uniform(0, 0.01):.4f}, response_length={r.uniform(300, 1400):.1f}, total_length={r.uniform(500, 1900):.1f}, reward={r.uniform(0.1, 0.8):.4f}, return={r.uniform(0.1, 0.8):.4f}]")
        a0.e(s0 + d, tqdm_bar("Episode [1/1]", k, n_ep, s0 + d - train0, (s0 + d - train0) / k))
        if k == decoy_k and r.random() < 0.5:
            a0.eb(s0 + d - 30, ["wandb: WARNING Network error (ReadTimeout), entering retry loop."])
            ctx.note("decoy: wandb ReadTimeout retry warning")
    s0, d = starts[-1]
    gen = d * 0.45
    tf = s0 + (r.uniform(5, gen - 5) if role == "rollout" else gen + r.uniform(10, d * 0.4))
    seq0 = r.randint(900, 9000) + (fail_step or 0) * 53
    op = r.choice(["_ALLGATHER_BASE", "_REDUCE_SCATTER_BASE", "ALLREDUCE"])
    numel = int(mparams * 1e9 / 12 / max(1, world))
    nin, nout = {"_ALLGATHER_BASE": (numel, numel * world), "_REDUCE_SCATTER_BASE": (numel * world, numel), "ALLREDUCE": (1, 1)}[op]
    actor_repr = f"<openrlhf.trainer.ray.ppo_actor.ActorModelRayActor object at {addr(r)}>"
    llm_repr = f"<openrlhf.trainer.ray.vllm_engine.LLMRayActor object at {addr(r)}>"
    fit_frames = [(f"{root}/openrlhf/trainer/ray/ppo_actor.py", 435, "fit", "trainer.fit("),
                  (f"{root}/openrlhf/trainer/ppo_trainer.py", 255, "fit", "for i, experience in enumerate(")]
    kernel = {}
    inner = None
    exc_name = None
    t_drv = None
    stop_by_user = False
    if role == "trainer" and cause in ("ecc_memory", "nvlink", "gpu_hardware", "illegal_memory_access", "cuda_oom", "python_exception", "crash_signal", "host_oom_kill"):
        frames = fit_frames + [(f"{root}/openrlhf/trainer/ppo_trainer.py", 340, "ppo_train", "status = self.training_step(experience, global_steps)"),
                               (f"{root}/openrlhf/trainer/ppo_trainer.py", 373, "training_step_actor", "self.strategy.backward(actor_loss, self.actor, self.actor_optim)"),
                               (f"{root}/openrlhf/utils/deepspeed/deepspeed.py", 162, "backward", "model.backward(loss)"),
                               (f"{ctx.site}/deepspeed/utils/nvtx.py", 18, "wrapped_fn", "ret_val = func(*args, **kwargs)"),
                               (f"{ctx.site}/deepspeed/runtime/engine.py", 2048, "backward", "self.optimizer.backward(loss, retain_graph=retain_graph)")]
        spec = dict(label="ActorModelRayActor", class_name="ActorModelRayActor", class_short="ActorModelRayActor", method="fit",
                    repr=actor_repr, frames=frames, logdir="node_logs")
        inner, exc_name, t_drv, kl = ray_trainer_fail(ctx, rj, cause, cw, actors, tf, spec)
        if kl:
            kernel[cw.node.idx] = kl
        ctx.note(f"trainer ActorModelRayActor rank {cw.rank} on {cw.node.ip} starts it ({cause}); driver error class {exc_name}")
    elif role == "rollout" and cause in ("ecc_memory", "nvlink", "gpu_hardware", "illegal_memory_access", "cuda_oom", "python_exception"):
        exc, ename = vllm_engine_exc(ctx, cause)
        ce_head = f"ray.exceptions.RayTaskError({ename}): ray::LLMRayActor.generate() (pid={ce.pid}, ip={ce.node.ip}, actor_id={ce.aid}, repr={llm_repr})"
        eng = task_err_block(ce_head, vllm_frames(ctx, [(f"{root}/openrlhf/trainer/ray/vllm_engine.py", 128, "generate", "return self.llm.generate(*args, **kwargs)")]), exc)
        if cause in ("ecc_memory", "nvlink", "gpu_hardware"):
            kernel[ce.node.idx] = klines(tf - r.uniform(0.05, 0.5), xid_line(ctx, cause, ce.local, ce.pid, "ray::LLMRayActo"))
        inner = [f"ray.exceptions.RayTaskError({ename}): ray::ActorModelRayActor.fit() (pid={a0.pid}, ip={a0.node.ip}, actor_id={a0.aid}, repr={actor_repr})"]
        for f_, ln, fn, code in fit_frames + [(f"{root}/openrlhf/trainer/ppo_utils/experience_maker.py", 612, "_generate_vllm", "all_outputs = sum(ray.get(all_output_refs), [])")]:
            inner += [f'  File "{f_}", line {ln}, in {fn}', f"    {code}"]
        inner += eng
        exc_name = ename
        t_drv = tf + 0.8
        ctx.note(f"rollout engine LLMRayActor #{ce.eidx} (pid {ce.pid}) on {ce.node.ip} raised {ename} ({cause}) inside vLLM generate; surfaced through trainer rank 0")
    elif role == "rollout" and cause in ("crash_signal", "host_oom_kill"):
        if cause == "crash_signal":
            ce.eb(tf, abseil_signal(ctx, ce.node, tf, ce.pid, "SIGSEGV", ["vllm::cross_device_reduce_1stage<>()", "(unknown)", "(unknown)"]) +
                  fatal_python(ctx, "Segmentation fault", [(hexs(r, 12), [(f"{ctx.site}/vllm/distributed/device_communicators/custom_all_reduce.py", 301, "custom_all_reduce")])]), dd=False)
            why = worker_died_lines()
        else:
            total = r.choice([1007.5, 2015.4])
            used = total * r.uniform(0.951, 0.98)
            ray_mem_console(ctx, rj, tf + 0.2, ce.node)
            why = ray_mem_kill_lines(ctx, rj, ce, "LLMRayActor.generate", used, total, 0.95, [(ce.pid, r.uniform(150, 400), "ray::LLMRayActor.generate")])
        ce.dead_at = tf + 0.1
        rj.raylet_worker_dead(tf + 0.2, ce, EOD_DETAIL)
        inner = [f"ray.exceptions.RayTaskError(ActorDiedError): ray::ActorModelRayActor.fit() (pid={a0.pid}, ip={a0.node.ip}, actor_id={a0.aid}, repr={actor_repr})"]
        for f_, ln, fn, code in fit_frames + [(f"{root}/openrlhf/trainer/ppo_utils/experience_maker.py", 612, "_generate_vllm", "all_outputs = sum(ray.get(all_output_refs), [])")]:
            inner += [f'  File "{f_}", line {ln}, in {fn}', f"    {code}"]
        inner += rj.actor_died_text(ce, "LLMRayActor", None, why)
        exc_name = "ActorDiedError"
        t_drv = tf + 2.5
        ctx.note(f"rollout engine LLMRayActor #{ce.eidx} on {ce.node.ip} died ({cause})")
    elif role == "rollout" and cause == "hang":
        # engine never finishes generate; trainer rank 0 blocks in ray.get, the other ranks time out in NCCL
        t_to = s0 + gen + 60 + tmo_ms / 1000.0
        others = [p for p in actors if p.rank != 0]
        first = collective_timeouts(ctx, others, t_to, seq0, "BROADCAST", 1, 1, tmo_ms, lambda p: seq0, lambda p: seq0 - 1)
        if first is not None:
            a0.eb(t_to + 0.07, dump_signal_lines(ctx, a0.node, 0, t_to + 0.07, first.rank, seq0 - 1, seq0 - 1))
        dl = [p for p in others if p.dead_at]
        if dl:
            victim = min(dl, key=lambda p: p.dead_at + r.uniform(0, 1))
            inner = rj.actor_died_text(victim, "ActorModelRayActor", None, worker_died_lines())
            exc_name = "ActorDiedError"
            t_drv = victim.dead_at + 3
        else:
            stop_by_user = True
            t_drv = t_to + r.uniform(600, 5400)
        ctx.note(f"rollout engine LLMRayActor #{ce.eidx} on {ce.node.ip} stuck mid-generate (its 'Processed prompts' bar never completes); trainer rank 0 waits in ray.get, ranks 1..{world - 1} time out in BROADCAST and abort (rank 0 looks like the hang culprit by absence and by its dump-signal line: decoy); driver reports a dead trainer rank")
        if world == 1:
            ctx.note("single trainer rank: no NCCL timeouts at all")
    elif cause == "hang" or cause == "collective_mismatch" or cause == "unknown":
        t_to = tf + tmo_ms / 1000.0
        if cause == "hang":
            first = collective_timeouts(ctx, actors, t_to, seq0, op, nin, nout, tmo_ms, lambda p: seq0 + r.choice([0, 1]), lambda p: seq0 - 1, exclude=(cw,))
            if first is not None:
                cw.eb(t_to + 0.06, dump_signal_lines(ctx, cw.node, cw.rank, t_to + 0.06, first.rank, seq0 - 1, seq0 - 1))
                ctx.rank_ev += [glog_err_re(cw.rank, "Received a dump signal")]
            if world <= 16 and not dedup:
                ctx.rank_ev += ["__ABSENCE__"]
            ctx.note(f"trainer rank {cw.rank} stopped issuing collectives; others hit the {tmo_ms} ms watchdog")
        elif cause == "collective_mismatch":
            collective_timeouts(ctx, actors, t_to, seq0, op, nin, nout, tmo_ms, lambda p: seq0, lambda p: seq0 - 1, exclude=(cw,))
            cw.eb(t_to + 0.4, wd_timeout_block(ctx, cw.node, cw.rank, t_to + 0.4, seq0, "BROADCAST", 1, 1, tmo_ms, seq0, seq0 - 1, full=True), dd=False)
            cw.dead_at = t_to + 1
            ctx.rank_ev += [f"[Rank {cw.rank}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum={seq0}, OpType=BROADCAST"]
            ctx.note(f"rank {cw.rank} issued BROADCAST(numel=1) while the others issued {op} at SeqNum {seq0}")
        else:
            collective_timeouts(ctx, actors, t_to, seq0, op, nin, nout, tmo_ms, lambda p: seq0, lambda p: seq0 - 1)
            ctx.note("all trainer ranks time out on the same collective; no rank or engine stands out")
        dl = [p for p in actors if p.dead_at]
        victim = min(dl, key=lambda p: p.dead_at + r.uniform(0, 1)) if dl else actors[0]
        inner = rj.actor_died_text(victim, "ActorModelRayActor", None, worker_died_lines())
        exc_name = "ActorDiedError"
        t_drv = victim.dead_at + 3
    elif cause == "data_loader_stall":
        # one rank's prompt dataloader worker wedges on the shared filesystem; the rest wait in NCCL
        t_to = tf + tmo_ms / 1000.0
        collective_timeouts(ctx, actors, t_to, seq0, "ALLREDUCE", 1, 1, tmo_ms, lambda p: seq0, lambda p: seq0 - 1, exclude=(cw,))
        cw.eb(tf + tmo_ms / 1000.0 + 30, pyframes([(f"{root}/openrlhf/trainer/ppo_trainer.py", 255, "fit", "for rand_prompts, labels in self.prompts_dataloader:"),
                                                    (f"{ctx.site}/torch/utils/data/dataloader.py", 708, "__next__", "data = self._next_data()"),
                                                    (f"{ctx.site}/torch/utils/data/dataloader.py", 1458, "_next_data", "idx, data = self._get_data()"),
                                                    (f"{ctx.site}/torch/utils/data/dataloader.py", 1410, "_get_data", "success, data = self._try_get_data()"),
                                                    (f"{ctx.site}/torch/utils/data/dataloader.py", 1256, "_try_get_data", "raise RuntimeError(f'DataLoader timed out after {self._timeout} seconds') from e")]) +
               ["RuntimeError: DataLoader timed out after 1800 seconds"], dd=False)
        inner = task_err_block(f"ray.exceptions.RayTaskError(RuntimeError): ray::ActorModelRayActor.fit() (pid={cw.pid}, ip={cw.node.ip}, actor_id={cw.aid}, repr={actor_repr})",
                               fit_frames[:1] + [(f"{root}/openrlhf/trainer/ppo_trainer.py", 255, "fit", "for rand_prompts, labels in self.prompts_dataloader:"),
                                                 (f"{ctx.site}/torch/utils/data/dataloader.py", 1256, "_try_get_data", "raise RuntimeError(f'DataLoader timed out after {self._timeout} seconds') from e")],
                               ["RuntimeError: DataLoader timed out after 1800 seconds"])
        exc_name = "RuntimeError"
        t_drv = min(tf + tmo_ms / 1000.0 + 31, min([p.dead_at for p in actors if p.dead_at] or [1e18]) + 3)
        ctx.rank_ev += [[f"pid={cw.pid}, ip={cw.node.ip}, actor_id={cw.aid}", m] for m in ray_map_alts("ActorModelRayActor", cw, "node_logs")]
        if kernel.get(cw.node.idx) is None:
            kernel[cw.node.idx] = [(tf + 60 * i, f"nfs: server {r.choice(['nas-rl', 'fs01', 'netapp-a'])} not responding, still trying") for i in range(3)]
        ctx.note(f"rank {cw.rank}'s prompt DataLoader (num_workers>0, timeout=1800) blocked on NFS; other ranks time out in ALLREDUCE")
    elif cause == "straggler":
        stop_by_user = True
        t_drv = s0 + r.uniform(60, gen)
        if role == "rollout":
            ctx.note(f"rollout engine LLMRayActor #{ce.eidx} on {ce.node.ip}: 'Processed prompts' throughput {slow_f:.1f}x lower than the other engines from episode {strag_from}; job stopped by user")
        else:
            cw = actors[r.randint(1, world - 1)] if world > 1 else actors[0]
            cnode = cw.node
            role = "trainer"
            for k in range(strag_from, n_steps):
                s_, d_ = starts[k - 1]
                for p in actors:
                    p.o(s_ + d_ * 0.8, f"[rank{p.rank}] train step {k}: fwd_bwd {r.uniform(20, 30) * (slow_f if p is cw else 1):.2f}s, optimizer {r.uniform(1, 2):.2f}s", dd=(p is not cw))
            ctx.rank_ev += [f"[rank{cw.rank}] train step"]
            ctx.note(f"trainer rank {cw.rank} fwd_bwd {slow_f:.1f}x slower in per-rank timing prints")
    elif cause == "preemption":
        nid = rj.node_id[cnode.idx]
        victims = [p for p in rj.procs if p.node is cnode]
        for p in victims:
            p.dead_at = tf
        rj.d(tf + 25, rj.pylog(tf + 25, "WARNING", "worker.py:2282", f"The node with node id: {nid} and address: {cnode.ip} and node name: {cnode.ip} has been marked dead because the detector has missed too many heartbeats from it. This can happen when a \t(1) raylet crashes unexpectedly (OOM, etc.) \n\t(2) raylet has lagging heartbeats due to slow network or busy workload."))
        v = victims[0]
        why = [f"The actor died because its node has died. Node Id: {nid}",
               f"\tthe actor's node was preempted: {r.choice(['spot instance interruption notice', 'Node is being preempted by the cloud provider'])}",
               "\tThe actor's node was killed by a spot preemption."]
        inner = rj.actor_died_text(v, v.label, None, why)
        exc_name = "ActorDiedError"
        t_drv = tf + 26
        ctx.note(f"node {cnode.ip} ({cnode.host}) preempted (spot); {len(victims)} actors lost")
    elif cause == "network":
        others = [nd for nd in nodes if nd is not cnode]
        a_on = [p for p in actors if p.node is cnode]
        a_off = [p for p in actors if p.node is not cnode]
        first = None
        if a_on and a_off:
            aff = a_on + r.sample(a_off, min(4, len(a_off)))
            for p in aff:
                tt = tf + r.uniform(0, 2.5)
                peer = r.choice(others).ip if p.node is cnode else cnode.ip
                p.eb(tt, nccl_remote_err_block(ctx, p.node, p.rank, tt, peer, p.node.ip, p.local, r.randint(30000, 60000)), dd=False)
                p.dead_at = tt + 0.3
                if first is None or tt < first[0]:
                    first = (tt, p)
            ctx.note(f"IB link failure on {cnode.ip}: trainer NCCL ranks on both sides report NET/IB completion errors naming it")
        else:
            # the failing link is between trainer rank 0 and the vLLM engines: weight-sync broadcast dies
            tt = tf + 1
            peer_e = [e for e in engines if e.node is cnode] or engines
            a0.eb(tt, nccl_remote_err_block(ctx, a0.node, 0, tt, peer_e[0].node.ip if a0.node is not cnode else others[0].ip, a0.node.ip, 0, r.randint(30000, 60000)), dd=False)
            a0.dead_at = tt + 0.3
            first = (tt, a0)
            ctx.note(f"IB link failure on {cnode.ip} hit the trainer->vLLM weight-sync broadcast (group openrlhf)")
        kernel[cnode.idx] = klines(tf - r.uniform(0.3, 3), ib_down_lines(ctx, "mlx5_2"))
        v = first[1]
        inner = rj.actor_died_text(v, "ActorModelRayActor", None, worker_died_lines())
        exc_name = "ActorDiedError"
        t_drv = first[0] + 3
    # ---- ending
    end = []
    if cause is None:
        te = starts[-1][0] + starts[-1][1]
        a0.e(te + 1, tqdm_bar("Episode [1/1]", n_steps, n_steps, te - train0, (te - train0) / n_steps))
        a0.o(te + 30, f"Save model to {root}/checkpoint/{mpath.split('/')[1].lower()}-rlhf")
        for p in actors:
            p.e(te + 60 + r.uniform(0, 2), pg_not_destroyed(ctx, p.node, te + 60, p.rank))
        if nccl_debug:
            for p in engines[:2]:
                p.e(te + 61, f"{p.node.host}:{p.pid}:{p.pid + 77} [{p.local}] NCCL INFO [Service thread] Connection closed by localRank 0")
        t_end = te + 63
        if r.random() < 0.5:
            dnode = r.choice(nodes)
            kernel[dnode.idx] = klines(-r.uniform(1, 9) * 86400, xid_line(ctx, "old_xid", r.randint(0, 7), r.randint(3000, 9999), "python3"))
            ctx.note(f"decoy: old Xid on {dnode.host} from a previous job")
        tail = ["", "------------------------------------------", f"Job '{sub_id}' succeeded", "------------------------------------------", ""]
    elif stop_by_user:
        t_end = t_drv
        tail = ["", "------------------------------------------", f"Job '{sub_id}' was stopped", "------------------------------------------", ""]
        if cause == "straggler" or (cause == "hang"):
            pass
    else:
        drv = pyframes([(f"{root}/openrlhf/cli/train_ppo_ray.py", 467, "<module>", "train(args)"),
                        (f"{root}/openrlhf/cli/train_ppo_ray.py", 178, "train", "ray.get(refs)"),
                        (f"{ctx.site}/ray/_private/auto_init_hook.py", 21, "auto_init_wrapper", "return fn(*args, **kwargs)"),
                        (f"{ctx.site}/ray/_private/client_mode_hook.py", 103, "wrapper", "return func(*args, **kwargs)"),
                        (f"{ctx.site}/ray/_private/worker.py", 2772, "get", "values, debugger_breakpoint = worker.get_objects(object_refs, timeout=timeout)"),
                        (f"{ctx.site}/ray/_private/worker.py", 919, "get_objects", "raise value.as_instanceof_cause()" if exc_name != "ActorDiedError" or inner[0].startswith("ray.exceptions.RayTaskError") else "raise value")])
        rj.db(t_drv, drv + inner)
        t_end = t_drv + 0.5
        st = ["", "------------------------------------------", f"Job '{sub_id}' failed", "------------------------------------------", "",
              "Status message: Job entrypoint command failed with exit code 1, last available logs (truncated to 20,000 chars):"]
        cut = drv + inner
        txt = []
        tot = 0
        for x in reversed(cut):
            tot += len(x) + 1
            if tot > 20000:
                break
            txt.append(x)
        tail = st + list(reversed(txt)) + [""]
    for p in rj.procs:
        p.until(t_end)
    console = rj.console(t_end) + tail
    ctx.add("ray_job_submit.log" if r.random() < 0.5 else f"{sub_id}.log", console)
    # one node's logs
    if cause is not None and cnode is not None and (r.random() < 0.75 or cause in DRAIN_CAUSES):
        lnode = cnode
    else:
        lnode = r.choice(nodes)
    fl = rj.node_logs(lnode, t_end)
    d = f"node_logs/{lnode.ip}/"
    keep = [k2 for k2 in fl if k2.startswith("worker-") and k2.endswith(".err") and len(fl[k2]) > 2]
    chosen = []
    culpids = [x.pid for x in (cw, ce) if x is not None]
    for k2 in keep:
        if any(f"-{pid}.err" in k2 for pid in culpids) or len(chosen) < 2:
            chosen.append(k2)
    ctx.add(d + "raylet.out", fl["raylet.out"])
    for k2 in chosen:
        ctx.add(d + k2, fl[k2])
    if lnode.idx in kernel:
        ctx.add(f"node_logs/{lnode.ip}/dmesg.log", [f"{ctx.dmesg_T(tk, lnode)} {x}" for tk, x in sorted(kernel[lnode.idx])])
    ctx.note(f"user attached ray logs of node {lnode.ip} only")
    # truth
    t_ = ctx.truth
    if cause is not None:
        if role == "trainer" and cw is not None:
            t_["rank"] = cw.rank
            t_["node"] = cw.node.ip
            t_["node_aliases"] = [cw.node.host]
        elif role == "rollout":
            t_["node"] = ce.node.ip
            t_["node_aliases"] = [ce.node.host]
        elif role == "node":
            t_["node"] = cnode.ip
            t_["node_aliases"] = [cnode.host]
    ctx.note(f"OpenRLHF {'colocated hybrid-engine' if colocate else 'separate vLLM nodes'}; trainer world={world}; {ne} vLLM engines tp={etp}; torch {ctx.tv}; dedup={'on' if dedup else 'off'}")


# ----------------------------------------------------------------------------------------
# NeMo-RL on Slurm (ray.sub)
# ----------------------------------------------------------------------------------------

RAY_START_HEAD = ["Usage stats collection is disabled.", "", "Local node IP: {ip}", "", "--------------------", "Ray runtime started.",
                  "--------------------", "", "Next steps", "  To add another node to this Ray cluster, run", "    ray start --address='{ip}:54514'", "",
                  "  To connect to this Ray cluster:", "    import ray", "    ray.init(_node_ip_address='{ip}')", "",
                  "  To submit a Ray job using the Ray Jobs CLI:", "    RAY_ADDRESS='http://{ip}:8265' ray job submit --working-dir . -- python my_script.py", "",
                  "  See https://docs.ray.io/en/latest/cluster/running-applications/job-submission/index.html ",
                  "  for more information on submitting Ray jobs to the Ray cluster.", "", "  To terminate the Ray runtime, run", "    ray stop", "",
                  "  To view the status of the cluster, use", "    ray status", "", "  To monitor and debug Ray, view the dashboard at ", "    {ip}:8265", "",
                  "  If connection to the dashboard fails, check your firewall settings and network configuration.", "",
                  "--block", "  This command will now block forever until terminated by a signal.",
                  "  Running subprocesses are monitored and a message will be printed if any of them terminate unexpectedly. Subprocesses exit with SIGTERM will be treated as graceful, thus NOT reported."]
RAY_START_WORKER = ["Usage stats collection is disabled.", "", "Local node IP: {ip}", "", "--------------------", "Ray runtime started.",
                    "--------------------", "", "To terminate the Ray runtime, run", "  ray stop", "",
                    "--block", "  This command will now block forever until terminated by a signal.",
                    "  Running subprocesses are monitored and a message will be printed if any of them terminate unexpectedly. Subprocesses exit with SIGTERM will be treated as graceful, thus NOT reported."]


def build_nemorl(ctx):
    r = ctx.rng
    cause = ctx.cause
    gpn = 8
    ctx.slurm_prefix = r.choice(["pool0-", "batch-block1-", "cw-dfw-h100-", "eos"])
    colocated = r.random() < 0.55
    tn = r.choice([1, 2, 2, 4, 4, 8, 16, 32])
    gn = 0 if colocated else r.choice([1, 1, 2])
    if cause in ("network",) and tn + gn == 1:
        tn = 2
    nn = tn + gn
    nodes = make_nodes(ctx, nn, "slurm")
    tz = r.choice([0, -7, -8, 2])
    for nd in nodes:
        nd.tz = tz
    ctx.nodes = nodes
    head = nodes[0]
    world = tn * gpn
    jobid = r.randint(1200000, 9800000)
    backend = r.choice(["DTensorPolicyWorker", "DTensorPolicyWorker", "MegatronPolicyWorker"])
    dedup = True if world >= 32 else r.random() < 0.6
    rj = RayJob(ctx, nodes, dedup=dedup, job_num=1)
    root = r.choice(["/opt/nemo-rl", "/lustre/fsw/portfolios/llm/users/" + r.choice(["jdoe", "mkumar", "lchen"]) + "/RL"])
    mpath, mcls, mparams, mfam = r.choice(MODELS)
    vtp = r.choice([1, 2, 4])
    tmo_ms = 600000
    nccl_debug = r.random() < 0.25
    workers = []
    for rank in range(world):
        p = rj.actor(f"{backend}[rank={rank}]", nodes[rank // gpn], rank=rank, local=rank % gpn)
        workers.append(p)
    gens = []
    gnodes = nodes if colocated else nodes[tn:]
    ng = (len(gnodes) * gpn) // vtp
    for k in range(ng):
        nd = gnodes[(k * vtp) // gpn]
        p = rj.actor(f"VllmGenerationWorker[rank={k}]" if r.random() < 0.0 else "VllmGenerationWorker", nd)
        p.local = (k * vtp) % gpn
        p.gidx = k
        gens.append(p)
    lab = "VllmGenerationWorker"
    if r.random() < 0.5:
        for p in gens:
            p.label = f"VllmGenerationWorker[rank={p.gidx}]"
        lab = "VllmGenerationWorker[rank=k]"
    for nd in nodes:
        rj.raylet_boot(-r.uniform(60, 240), nd, 224, gpn, 2015)
    # culprit
    cw = ce = cnode = None
    role = None
    if cause == "preemption":
        role = "job"
    elif cause == "network":
        role = "node"
        cnode = nodes[r.randint(0, nn - 1)]
    elif cause == "data_loader_stall":
        role = "driver"
        cnode = head
    elif cause in ("collective_mismatch", "hang"):
        role = "trainer" if (cause == "collective_mismatch" or r.random() < 0.6) else "rollout"
    elif cause == "straggler":
        role = "rollout" if ng > 1 else "trainer"
    elif cause in (None, "unknown"):
        role = None
    else:
        role = "rollout" if r.random() < 0.4 else "trainer"
    if role == "trainer":
        cw = workers[r.randint(0, world - 1)]
        cnode = cw.node
    elif role == "rollout":
        ce = gens[r.randint(0, ng - 1)]
        cnode = ce.node
    # ---- slurm-JOB.out (ray.sub bash -x trace) ----
    sl = []
    t_sub = -r.uniform(200, 600)
    nodelist = f"{ctx.slurm_prefix}[{nodes[0].host[len(ctx.slurm_prefix):]}-{nodes[-1].host[len(ctx.slurm_prefix):]}]" if nn > 1 else nodes[0].host
    sl += ["+ maybe_gres_arg", "++ sinfo -p batch -h -o %G", "++ grep -q gpu:", "[INFO] GRES support detected. Using: --gres=gpu:8",
           f"+ CONTAINER={r.choice(['nvcr.io/nvidia/nemo-rl:v0.3.1', 'nvcr.io/nvidia/nemo-rl:v0.4.0', '/lustre/images/nemo_rl.sqsh'])}",
           f"+ COMMAND='uv run ./examples/run_grpo_math.py --config examples/configs/grpo_math_{r.choice(['1B', '8B', '8B_megatron', 'qwen32b'])}.yaml cluster.num_nodes={nn} logger.wandb_enabled=True'",
           f"+ LOG_DIR={root}/{jobid}-logs", f"+ mkdir -p {root}/{jobid}-logs"]
    for nd in nodes:
        sl += [f"[DEBUG] Resolving hostname: {nd.host} using enhanced resolution methods", "[DEBUG] Method 1: host command",
               f"[DEBUG] host result: '{nd.ip}'", f"[INFO] Node: {nd.host} -> IP: {nd.ip}"]
    sl += [f"+ head_node={head.host}", f"+ head_node_ip={head.ip}", f"+ ip_head={head.ip}:54514"]
    for i in range(3):
        sl.append(f"[INFO][{ctx.when(t_sub + 20 + 2 * i, head).strftime('%a %b %d %H:%M:%S')} {({0: 'UTC', -7: 'MST', -8: 'PST', 2: 'CEST'})[tz]} {ctx.when(t_sub, head).year}] Waiting for head node container to start...")
    for k in range(0, nn * gpn + 1, gpn * max(1, nn // 4)):
        sl.append(f"[INFO] Number of actors online: {k}/{nn * gpn}")
    if sl[-1] != f"[INFO] Number of actors online: {nn * gpn}/{nn * gpn}":
        sl.append(f"[INFO] Number of actors online: {nn * gpn}/{nn * gpn}")
    sl.append("All workers connected!")
    heads = [x.format(ip=head.ip) for x in RAY_START_HEAD]
    hl = [f"+ touch {root}/{jobid}-logs/STARTED_RAY_HEAD", "+ env | grep -E 'SLURM|NCCL|CUDA'", f"SLURM_JOB_ID={jobid}", f"SLURM_JOB_NODELIST={nodelist}",
          f"NCCL_DEBUG={'INFO' if nccl_debug else 'WARN'}", "NCCL_IB_HCA=mlx5", "CUDA_DEVICE_MAX_CONNECTIONS=1", "+ monitor-sidecar", "+ bash /launch-head.sh"] + heads
    wls = {}
    for nd in nodes[1:]:
        wls[nd.idx] = ["+ monitor-sidecar", "+ bash /launch-worker.sh"] + [x.format(ip=nd.ip) for x in RAY_START_WORKER]
    # ---- driver ----
    t = 0.0
    rj.d(t, f"Loaded configuration from: examples/configs/grpo_math_{r.choice(['1B', '8B'])}.yaml")
    rj.d(t + 0.1, f"Overrides: ['cluster.num_nodes={nn}', 'logger.wandb_enabled=True', 'policy.model_name={mpath}']")
    rj.d(t + 0.2, "Applied CLI overrides")
    rj.d(t + 0.3, "Final config:")
    rj.db(t + 0.4, ["{'checkpointing': {'checkpoint_dir': 'results/grpo', 'enabled': True, 'keep_top_k': 3, 'save_period': 10},",
                    f" 'cluster': {{'gpus_per_node': {gpn}, 'num_nodes': {nn}}},",
                    f" 'grpo': {{'max_num_steps': 500, 'normalize_rewards': True, 'num_generations_per_prompt': 16, 'num_prompts_per_step': 32, 'use_leave_one_out_baseline': True, 'val_period': 10}},",
                    f" 'policy': {{'dtensor_cfg': {{'enabled': {backend == 'DTensorPolicyWorker'}, 'tensor_parallel_size': 1}}, 'generation': {{'backend': 'vllm', 'colocated': {{'enabled': {colocated}}}, 'vllm_cfg': {{'gpu_memory_utilization': 0.6, 'tensor_parallel_size': {vtp}, 'async_engine': False}}}}, 'model_name': '{mpath}', 'train_global_batch_size': 512, 'train_micro_batch_size': 4}}}}"])
    rj.d(t + 1, f"📊 Using log directory: logs/exp_{r.randint(1, 40):03d}")
    rj.d(t + 1.2, "▶ Setting up data...")
    rj.d(t + 5, f"  ✓ Training dataset loaded with {r.choice([7500, 12000, 40315])} samples")
    rj.d(t + 5.1, "  ✓ Validation dataset loaded with 500 samples")
    rj.d(t + 5.2, "▶ Setting up compute cluster...")
    rj.d(t + 6, f"  ✓ Ray cluster initialized with {nn} nodes")
    rj.d(t + 6.1, "▶ Setting up model and training...")
    for p in gens:
        ti = 10 + r.uniform(0, 10)
        rj.raylet_worker_start(ti - 1, p)
        for tt, x in vllm_init_lines(ctx, p.node, ti, mpath, vtp, r.choice(["0.10.1", "0.10.2", "0.11.0"]), 0.6, 4096, sleep=colocated):
            p.o(tt, x)
    for p in workers:
        ti = 70 + r.uniform(0, 15)
        rj.raylet_worker_start(ti - 1, p)
        p.e(ti, barrier_warn(ctx, p.node, ti, p.rank, p.local))
        if nccl_debug and (p.rank < 2 or p is cw or r.random() < 0.1):
            for x in nccl_init_lines(ctx, p.node, p.pid, p.local, p.rank, world, "0x" + hexs(r, 8), "0x" + hexs(r, 16), first=p.rank == 0):
                p.o(ti + 1, x)
        p.o(ti + 30, f"GPU Memory after model init: {r.uniform(14, 30):.2f}GB allocated, {r.uniform(30, 40):.2f}GB reserved")
    t_setup = 150
    rj.db(t_setup, ["", "=" * 60, " " * 22 + "SETUP COMPLETE", "=" * 60, f"  ⏱️  Total setup: {t_setup:.1f}s", "=" * 60, ""])
    # ---- steps ----
    step_s = r.uniform(80, 400)
    fail_step = r.randint(2, 30) if cause else None
    n_steps = fail_step if cause else r.randint(12, 30)
    maxs = r.choice([200, 500, 1000]) if cause else n_steps
    slow_f = r.uniform(1.8, 3.2)
    strag_from = r.randint(2, max(2, (fail_step or 4) // 2)) if cause == "straggler" else 10 ** 9
    starts = []
    tcur = t_setup + 5
    for k in range(1, n_steps + 1):
        d = step_s * r.uniform(0.88, 1.15) * (1 + (slow_f - 1) * 0.6 if k >= strag_from else 1)
        starts.append((tcur, d))
        tcur += d
    for k in range(1, n_steps + 1):
        s0, d = starts[k - 1]
        last = cause is not None and k == n_steps
        gen = d * 0.5
        rj.db(s0, [f"{'=' * 25} Step {k}/{maxs} {'=' * 25}", "▶ Preparing batch..."])
        if last and cause == "data_loader_stall":
            break
        rj.d(s0 + 1, f"▶ Generating responses for batch of size {32 * 16}...")
        for p in gens:
            if k >= strag_from or (r.random() < 0.2):
                slow = (p is ce and k >= strag_from)
                tps = r.uniform(2500, 4500) / (slow_f if slow else 1)
                p.o(s0 + 15, vllm_stats(ctx, p.node, s0 + 15, 0, tps * 0.12, tps, r.randint(40, 128), r.uniform(30, 80)), dd=not (cause == "straggler"))
        if last:
            break
        rj.db(s0 + gen, ["▶ Processing rewards...", "▶ Computing advantages..."])
        rj.db(s0 + gen + 3, ["▶ Preparing for logprob inference...", "▶ Computing logprobs...", "▶ Preparing for training...", "▶ Training policy..."])
        if backend == "MegatronPolicyWorker" or r.random() < 0.3:
            for p in workers:
                if p.rank in (0, world - 1) or r.random() < 0.15:
                    p.o(s0 + gen + 4, f"GPU Memory before optimizer offload: {r.uniform(15, 30):.2f}GB allocated, {r.uniform(55, 70):.2f}GB reserved")
        ls = r.uniform(-0.02, 0.06)
        tm = {"generation": gen, "policy_training": d * 0.3, "policy_and_reference_logprobs": d * 0.12, "reward_calculation": d * 0.02,
              "prepare_for_generation/total": d * 0.03, "data_processing": d * 0.01}
        res = ["", "📊 Training Results:", f"  • Loss: {ls:.4f}", f"  • Avg Reward: {r.uniform(0.1, 0.8):.4f}",
               f"  • Mean Generation Length: {r.uniform(300, 1800):.4f}", "", "⏱️  Timing:", f"  • Total step time: {d:.2f}s"]
        for kk, vv in sorted(tm.items(), key=lambda x: -x[1]):
            res.append(f"  • {kk}: {vv:.2f}s ({100 * vv / d:.1f}%)")
        rj.db(s0 + d - 1, res)
    # ---- failure ----
    s0, d = starts[-1]
    gen = d * 0.5
    tf = s0 + (r.uniform(5, gen - 5) if role in ("rollout",) else gen + r.uniform(5, d * 0.4))
    seq0 = r.randint(500, 7000) + (fail_step or 0) * 41
    op = r.choice(["_ALLGATHER_BASE", "_REDUCE_SCATTER_BASE", "ALLREDUCE"])
    numel = int(mparams * 1e9 / 8 / max(1, world))
    nin, nout = {"_ALLGATHER_BASE": (numel, numel * world), "_REDUCE_SCATTER_BASE": (numel * world, numel), "ALLREDUCE": (1, 1)}[op]
    kernel = {}
    inner = None
    t_drv = None
    slurm_end = None
    drv_frames = [(f"{root}/examples/run_grpo_math.py", 253, "<module>", "main()"), (f"{root}/examples/run_grpo_math.py", 238, "main", "grpo_train(")]
    bk = "dtensor_policy_worker" if backend == "DTensorPolicyWorker" else "megatron_policy_worker"
    trn_frames = [(f"{root}/nemo_rl/algorithms/grpo.py", 870, "grpo_train", "train_results = policy.train(train_data, loss_fn)"),
                  (f"{root}/nemo_rl/models/policy/lm_policy.py", 380, "train", "results = self.worker_group.get_all_worker_results(futures)"),
                  (f"{root}/nemo_rl/distributed/worker_groups.py", 902, "get_all_worker_results", "all_results = ray.get(object_refs)")]
    gen_frames = [(f"{root}/nemo_rl/algorithms/grpo.py", 741, "grpo_train", "repeated_batch, rollout_metrics = run_multi_turn_rollout("),
                  (f"{root}/nemo_rl/experience/rollouts.py", 411, "run_multi_turn_rollout", "generated_ids, gen_metrics = generate_responses("),
                  (f"{root}/nemo_rl/experience/rollouts.py", 96, "generate_responses", "generation_outputs = policy_generation.generate("),
                  (f"{root}/nemo_rl/models/generation/vllm/vllm_generation.py", 520, "generate", "results = self.worker_group.get_all_worker_results(future_bundle)"),
                  (f"{root}/nemo_rl/distributed/worker_groups.py", 902, "get_all_worker_results", "all_results = ray.get(object_refs)")]
    ray_get = [(f"{ctx.site}/ray/_private/auto_init_hook.py", 22, "auto_init_wrapper", "return fn(*args, **kwargs)"),
               (f"{ctx.site}/ray/_private/client_mode_hook.py", 104, "wrapper", "return func(*args, **kwargs)"),
               (f"{ctx.site}/ray/_private/worker.py", 2882, "get", "values, debugger_breakpoint = worker.get_objects(object_refs, timeout=timeout)"),
               (f"{ctx.site}/ray/_private/worker.py", 968, "get_objects", "raise value.as_instanceof_cause()")]
    wframes = [(f"{root}/nemo_rl/models/policy/{bk}.py", 612, "train", "loss.backward()"),
               (f"{ctx.site}/torch/_tensor.py", 648, "backward", "torch.autograd.backward("),
               (f"{ctx.site}/torch/autograd/graph.py", 824, "_engine_run_backward", "return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass")]
    use_frames = trn_frames
    if role == "trainer" and cause in ("ecc_memory", "nvlink", "gpu_hardware", "illegal_memory_access", "cuda_oom", "python_exception", "crash_signal", "host_oom_kill"):
        spec = dict(label=cw.label, class_name=backend, class_short=backend, method="train", repr=cw.label, frames=wframes, logdir="none")
        inner, exc_name, t_drv, kl = ray_trainer_fail(ctx, rj, cause, cw, workers, tf, spec)
        if kl:
            kernel[cw.node.idx] = kl
        ctx.rank_ev += [f"repr={cw.label})", f"({cw.label} pid={cw.pid}"]
        ctx.note(f"trainer {cw.label} on {cw.node.host} ({cw.node.ip}) starts it ({cause})")
    elif role == "rollout" and cause in ("ecc_memory", "nvlink", "gpu_hardware", "illegal_memory_access", "cuda_oom", "python_exception"):
        exc, ename = vllm_engine_exc(ctx, cause)
        rep = ce.label if "[" in ce.label else f"<nemo_rl.models.generation.vllm.vllm_worker.VllmGenerationWorker object at {addr(r)}>"
        inner = task_err_block(f"ray.exceptions.RayTaskError({ename}): ray::VllmGenerationWorker.generate() (pid={ce.pid}, ip={ce.node.ip}, actor_id={ce.aid}, repr={rep})",
                               vllm_frames(ctx, [(f"{root}/nemo_rl/models/generation/vllm/vllm_worker.py", 612, "generate", "outputs = self.llm.generate(prompts, sampling_params, use_tqdm=False)")]), exc)
        if cause in ("ecc_memory", "nvlink", "gpu_hardware"):
            kernel[ce.node.idx] = klines(tf - r.uniform(0.05, 0.5), xid_line(ctx, cause, ce.local, ce.pid, "ray::VllmGenera"))
        t_drv = tf + 0.6
        use_frames = gen_frames
        ctx.note(f"rollout VllmGenerationWorker (pid {ce.pid}) on {ce.node.host} raised {ename} ({cause}); its [rank=k] label is a vLLM worker index, not a trainer rank")
    elif role == "rollout" and cause in ("crash_signal", "host_oom_kill"):
        if cause == "crash_signal":
            ce.eb(tf, abseil_signal(ctx, ce.node, tf, ce.pid, "SIGSEGV", ["vllm::cross_device_reduce_1stage<>()", "(unknown)", "(unknown)"]), dd=False)
            why = worker_died_lines()
        else:
            total = 2015.4
            used = total * r.uniform(0.952, 0.98)
            ray_mem_console(ctx, rj, tf + 0.2, ce.node)
            why = ray_mem_kill_lines(ctx, rj, ce, "VllmGenerationWorker.generate", used, total, 0.95, [(ce.pid, r.uniform(200, 500), "ray::VllmGenerationWorker.generate")])
        ce.dead_at = tf + 0.1
        inner = rj.actor_died_text(ce, "VllmGenerationWorker", None, why)
        t_drv = tf + 2.5
        use_frames = gen_frames
        ctx.note(f"rollout VllmGenerationWorker on {ce.node.host} died ({cause})")
    elif cause in ("hang", "collective_mismatch", "unknown"):
        if role == "rollout":
            # a generation worker wedges; policy refit broadcast (non-colocated) or generate() never returns
            t_to = tf + tmo_ms / 1000.0
            if not colocated:
                tl = [p for p in workers if p.rank == 0]
                collective_timeouts(ctx, tl, t_to, seq0, "BROADCAST", numel, numel, tmo_ms, lambda p: seq0, lambda p: seq0 - 1, pg=2, guid="2")
                for p in gens:
                    if p is not ce:
                        p.rank = 1 + p.gidx * vtp
                        collective_timeouts(ctx, [p], t_to, seq0, "BROADCAST", numel, numel, tmo_ms, lambda q: seq0, lambda q: seq0 - 1, pg=1, guid="1")
                        p.rank = None
                ctx.note(f"VllmGenerationWorker on {ce.node.host} never joined the refit NCCL broadcast; policy rank 0 and the other generation workers time out (their torch rank numbers are in the refit group, not the trainer); driver reports policy rank 0 dead (decoy)")
                w0 = workers[0]
                inner = rj.actor_died_text(w0, backend, None, worker_died_lines())
                t_drv = (w0.dead_at or t_to + 1) + 3
                use_frames = [(f"{root}/nemo_rl/algorithms/grpo.py", 716, "grpo_train", "refit_policy_generation("),
                              (f"{root}/nemo_rl/algorithms/grpo.py", 512, "refit_policy_generation", "ray.get(futures_train + futures_inference)")]
            else:
                ctx.note(f"VllmGenerationWorker on {ce.node.host} stuck in generate(); no NCCL collective is pending so nothing times out; job hits the Slurm time limit")
                slurm_end = ("TIME", tf + r.uniform(3600, 14400))
            if ce is not None:
                if not colocated:
                    pass
                ce.o(tf - 5, vllm_stats(ctx, ce.node, tf - 5, 0, 0.0, 0.0, r.randint(1, 6), r.uniform(90, 99.9)), dd=False)
                for p in gens:
                    if p is not ce:
                        p.o(tf - 4, vllm_stats(ctx, p.node, tf - 4, 0, 0.0, 0.0, 0, 0.0))
        else:
            t_to = tf + tmo_ms / 1000.0
            if cause == "hang":
                first = collective_timeouts(ctx, workers, t_to, seq0, op, nin, nout, tmo_ms, lambda p: seq0 + r.choice([0, 1]), lambda p: seq0 - 1, exclude=(cw,))
                if first is not None:
                    cw.eb(t_to + 0.06, dump_signal_lines(ctx, cw.node, cw.rank, t_to + 0.06, first.rank, seq0 - 1, seq0 - 1))
                    ctx.rank_ev += [glog_err_re(cw.rank, "Received a dump signal")]
                ctx.note(f"trainer {cw.label} never enqueued SeqNum {seq0}; others time out")
            elif cause == "collective_mismatch":
                collective_timeouts(ctx, workers, t_to, seq0, op, nin, nout, tmo_ms, lambda p: seq0, lambda p: seq0 - 1, exclude=(cw,))
                cw.eb(t_to + 0.3, wd_timeout_block(ctx, cw.node, cw.rank, t_to + 0.3, seq0, "ALLREDUCE", 1, 1, tmo_ms, seq0, seq0 - 1), dd=False)
                cw.dead_at = t_to + 1
                ctx.rank_ev += [f"[Rank {cw.rank}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum={seq0}, OpType=ALLREDUCE"]
                ctx.note(f"{cw.label} issued ALLREDUCE(numel=1) while others issued {op} (divergent branch on an empty microbatch)")
            else:
                collective_timeouts(ctx, workers, t_to, seq0, op, nin, nout, tmo_ms, lambda p: seq0, lambda p: seq0 - 1)
                ctx.note("all policy workers time out on the same collective; nothing identifies an initiator")
            dl = [p for p in workers if p.dead_at]
            v = min(dl, key=lambda p: p.dead_at + r.uniform(0, 1))
            inner = rj.actor_died_text(v, backend, None, worker_died_lines())
            t_drv = v.dead_at + 3
            if world <= 16 and not dedup and cause == "hang":
                ctx.rank_ev += ["__ABSENCE__"]
    elif cause == "data_loader_stall":
        slurm_end = ("TIME", s0 + r.uniform(3600, 4 * 3600))
        kernel[head.idx] = [(s0 + 20 + 45 * i, f"nfs: server {r.choice(['nfs-rl', 'vast01', 'hsfs'])} not responding, still trying") for i in range(4)]
        ctx.note("driver-side dataloader (StatefulDataLoader in grpo_train) blocked at '▶ Preparing batch...'; no worker activity; Slurm time limit ends the job; NFS not-responding messages on the head node")
    elif cause == "straggler":
        slurm_end = ("CANCEL", s0 + r.uniform(60, gen))
        if role == "rollout":
            ctx.note(f"VllmGenerationWorker on {ce.node.host} generation throughput {slow_f:.1f}x lower (vLLM stats); generation time dominates; user scancel")
        else:
            cw = workers[r.randint(0, world - 1)]
            cnode = cw.node
            role = "trainer"
            for k in range(strag_from, n_steps):
                s_, d_ = starts[k - 1]
                for p in workers:
                    p.o(s_ + d_ * 0.8, f"GPU Memory before optimizer offload: {r.uniform(15, 30):.2f}GB allocated, {r.uniform(55, 70):.2f}GB reserved")
            kernel[cw.node.idx] = [(starts[strag_from - 1][0] - 100, f"NVRM: GPU at PCI:{PCI[cw.local]}: GPU-{hexs(r, 8)}: HW Slowdown: thermal, clocks reduced")]
            ctx.note(f"single generation worker: straggler is trainer {cw.label}")
    elif cause == "preemption":
        slurm_end = ("PREEMPT", tf)
        ctx.note("Slurm preempted the whole job (higher-priority QOS); no single culprit node")
    elif cause == "network":
        others = [nd for nd in nodes if nd is not cnode]
        aff = [p for p in workers if p.node is cnode] + r.sample([p for p in workers if p.node is not cnode], min(4, max(0, world - gpn)))
        if not aff or all(p.node is cnode for p in aff) and not others:
            aff = workers[:2]
        first = None
        for p in aff:
            tt = tf + r.uniform(0, 2.5)
            peer = r.choice(others).ip if p.node is cnode else cnode.ip
            p.eb(tt, nccl_remote_err_block(ctx, p.node, p.rank, tt, peer, p.node.ip, p.local, r.randint(30000, 60000)), dd=False)
            if nccl_debug:
                p.eb(tt - 0.02, nccl_ib_warn(ctx, p.node, p.pid, p.local, peer, p.node.ip), dd=False)
            p.dead_at = tt + 0.3
            if first is None or tt < first[0]:
                first = (tt, p)
        kernel[cnode.idx] = klines(tf - r.uniform(0.3, 3), ib_down_lines(ctx, "mlx5_1"))
        inner = rj.actor_died_text(first[1], backend, None, worker_died_lines())
        t_drv = first[0] + 3
        ctx.note(f"IB port down on {cnode.host} ({cnode.ip}); NCCL NET/IB errors on both sides name it")
    # ---- end ----
    if cause is None:
        te = starts[-1][0] + starts[-1][1]
        rj.d(te + 2, "Max number of steps has been reached, stopping training early")
        for p in workers:
            p.e(te + 5 + r.uniform(0, 1), pg_not_destroyed(ctx, p.node, te + 5, p.rank))
        t_end = te + 8
        if r.random() < 0.6:
            dn = r.choice(nodes)
            kernel[dn.idx] = klines(-r.uniform(1, 12) * 86400, xid_line(ctx, "old_xid", r.randint(0, 7), r.randint(2000, 99999), "pt_main_thread"))
            ctx.note(f"decoy: old Xid on {dn.host}")
        srun_tail = []
    elif inner is not None:
        drv = pyframes(drv_frames + use_frames + ray_get)
        rj.db(t_drv, drv + inner)
        t_end = t_drv + 0.5
        srun_tail = [f"srun: error: {head.host}: task 0: Exited with exit code 1"]
    else:
        t_end = slurm_end[1]
        srun_tail = []
    for p in rj.procs:
        p.until(t_end)
    # slurm endings
    jend = []
    if slurm_end and slurm_end[0] == "TIME":
        jend = [f"slurmstepd: error: *** JOB {jobid} ON {head.host} CANCELLED AT {ctx.iso(t_end, head)} DUE TO TIME LIMIT ***"]
    elif slurm_end and slurm_end[0] == "PREEMPT":
        jend = [f"slurmstepd: error: *** JOB {jobid} ON {head.host} CANCELLED AT {ctx.iso(t_end, head)} DUE TO PREEMPTION ***",
                "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.",
                f"slurmstepd: error: *** STEP {jobid}.0 ON {head.host} CANCELLED AT {ctx.iso(t_end, head)} DUE TO PREEMPTION ***"]
        for nd in nodes[1:4]:
            jend.append(f"slurmstepd: error: *** STEP {jobid}.{nd.idx} ON {nd.host} CANCELLED AT {ctx.iso(t_end + r.uniform(0, 1), nd)} DUE TO PREEMPTION ***")
    elif slurm_end and slurm_end[0] == "CANCEL":
        jend = [f"slurmstepd: error: *** JOB {jobid} ON {head.host} CANCELLED AT {ctx.iso(t_end, head)} ***"]
    console = rj.console(t_end)
    dstep = []
    if slurm_end and slurm_end[0] in ("PREEMPT", "TIME"):
        dstep = [f"slurmstepd: error: *** STEP {jobid}.{nn} ON {head.host} CANCELLED AT {ctx.iso(t_end, head)} DUE TO {'PREEMPTION' if slurm_end[0] == 'PREEMPT' else 'TIME LIMIT'} ***"]
    elif slurm_end:
        dstep = [f"slurmstepd: error: *** STEP {jobid}.{nn} ON {head.host} CANCELLED AT {ctx.iso(t_end, head)} ***"]
    ctx.add(f"{jobid}-logs/ray-driver.log", console + dstep)
    ctx.add(f"{jobid}-logs/ray-head.log", hl + (["Detected ENDED file, terminating..."] if cause is not None else []))
    for nd in nodes[1:]:
        wl = wls[nd.idx]
        if slurm_end and slurm_end[0] in ("PREEMPT", "TIME"):
            wl = wl + [f"slurmstepd: error: *** STEP {jobid}.{nd.idx} ON {nd.host} CANCELLED AT {ctx.iso(t_end, nd)} DUE TO {'PREEMPTION' if slurm_end[0] == 'PREEMPT' else 'TIME LIMIT'} ***"]
        ctx.add(f"{jobid}-logs/ray-worker-{nd.idx}.log", wl)
    tail = srun_tail + jend
    if cause is not None and not slurm_end:
        tail += ["+ touch " + f"{root}/{jobid}-logs/ENDED", "+ exit 1"] if r.random() < 0.5 else []
    ctx.add(f"slurm-{jobid}.out", sl + tail)
    for idx, kl in kernel.items():
        nd = nodes[idx]
        ctx.add(f"kern-{nd.host}.log", [f"{ctx.syslog(tk, nd)} {x}" for tk, x in sorted(kl)])
    t_ = ctx.truth
    if cause is not None:
        if role == "trainer" and cw is not None:
            t_["rank"] = cw.rank
            t_["node"] = cw.node.host
            t_["node_aliases"] = [cw.node.ip]
        elif role in ("rollout",):
            t_["node"] = ce.node.host
            t_["node_aliases"] = [ce.node.ip]
        elif role in ("node", "driver"):
            t_["node"] = cnode.host
            t_["node_aliases"] = [cnode.ip]
    ctx.note(f"NeMo-RL {backend} {'colocated' if colocated else 'non-colocated'} vLLM (tp={vtp}); trainer world={world} on {tn} nodes; {ng} generation workers; jobid {jobid}; torch {ctx.tv}; dedup={'on' if dedup else 'off'}")


# ----------------------------------------------------------------------------------------
# torchrun-launched ranks (accelerate launch / torchrun): shared helpers
# ----------------------------------------------------------------------------------------

def render_rank_lines(p):
    """stderr python lines get torchrun's '[rankN]: ' prefix; raw lines (stdout, glog, NCCL) as-is"""
    out = []
    for t, x, s_, dd in p.lines:
        out.append((t, f"[rank{p.rank}]: {x}" if s_ == "p" else x))
    return out


def elastic_banner(ctx, node, t, agent_pid):
    src = "torch/distributed/run.py:792"
    return [ctx.elog(t, node, "W", agent_pid, src, ""),
            ctx.elog(t, node, "W", agent_pid, src, "*****************************************"),
            ctx.elog(t, node, "W", agent_pid, src, "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. "),
            ctx.elog(t, node, "W", agent_pid, src, "*****************************************")]


def sig_name(code):
    return {-6: "SIGABRT", -9: "SIGKILL", -11: "SIGSEGV", -15: "SIGTERM", -7: "SIGBUS", -2: "SIGINT"}.get(code, "SIG?")


def elastic_failure(ctx, node, agent_pid, script, entries, launcher="torchrun", bin_="/usr/bin/python3"):
    """entries: list of (t, rank, local, pid, exitcode); first = root cause"""
    r = ctx.rng
    out = []
    e0 = entries[0]
    out.append((e0[0] + 0.6, ctx.elog(e0[0] + 0.6, node, "E", agent_pid, "torch/distributed/elastic/multiprocessing/api.py:869",
                                     f"failed (exitcode: {e0[4]}) local_rank: {e0[2]} (pid: {e0[3]}) of binary: {bin_}")))
    tt = e0[0] + 0.7
    site = ctx.site
    if launcher == "accelerate":
        tb = pyframes([("/usr/local/bin/accelerate", 8, "<module>", "sys.exit(main())"),
                       (f"{site}/accelerate/commands/accelerate_cli.py", 50, "main", "args.func(args)"),
                       (f"{site}/accelerate/commands/launch.py", 1190, "launch_command", "deepspeed_launcher(args)"),
                       (f"{site}/accelerate/commands/launch.py", 874, "deepspeed_launcher", "distrib_run.run(args)")])
    else:
        tb = pyframes([("/usr/local/bin/torchrun", 8, "<module>", "sys.exit(main())"),
                       (f"{site}/torch/distributed/elastic/multiprocessing/errors/__init__.py", 355, "wrapper", "return f(*args, **kwargs)"),
                       (f"{site}/torch/distributed/run.py", 892, "main", "run(args)")])
    tb += [(f'  File "{site}/torch/distributed/run.py", line 883, in run'), "    elastic_launch(",
           f'  File "{site}/torch/distributed/launcher/api.py", line 139, in __call__', "    return launch_agent(self._config, self._entrypoint, list(args))",
           f'  File "{site}/torch/distributed/launcher/api.py", line 270, in launch_agent', "    raise ChildFailedError(",
           "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ", "=" * 60, f"{script} FAILED", "-" * 60, "Failures:"]

    def ent(i, e):
        t_, rk, lr, pid, code = e
        d = ctx.when(t_, node)
        tr = (f"Signal {-code} ({sig_name(code)}) received by PID {pid}" if code < 0 else
              "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html")
        return [f"[{i}]:", f"  time      : {d.strftime('%Y-%m-%d_%H:%M:%S')}", f"  host      : {node.host}",
                f"  rank      : {rk} (local_rank: {lr})", f"  exitcode  : {code} (pid: {pid})", "  error_file: <N/A>", f"  traceback : {tr}"]
    if len(entries) == 1:
        tb.append("  <NO_OTHER_FAILURES>")
    else:
        for i, e in enumerate(entries[1:], 1):
            tb += ent(i, e)
    tb += ["-" * 60, "Root Cause (first observed failure):"] + ent(0, e0) + ["=" * 60]
    for i, x in enumerate(tb):
        out.append((tt + i * 0.0005, x))
    return out


def sigterm_others(ctx, node, agent_pid, t, pids):
    return [(t + i * 0.001, ctx.elog(t + i * 0.001, node, "W", agent_pid, "torch/distributed/elastic/multiprocessing/api.py:897", f"Sending process {pid} closing signal SIGTERM")) for i, pid in enumerate(pids)]


def rank_py_failure(ctx, cause, frames):
    """(traceback lines, exitcode) for a python-level failure on a trainer rank"""
    r = ctx.rng
    if cause in ("ecc_memory", "nvlink", "gpu_hardware", "illegal_memory_access"):
        return pyframes(frames) + [f"RuntimeError: CUDA error: {cuda_err_for(ctx, cause)}"] + cuda_err_tail() + [""], 1
    if cause == "cuda_oom":
        tot = 79.11
        inuse = tot - r.uniform(0.2, 1.4)
        return pyframes(frames) + [oom_msg(ctx, 0, r.uniform(1, 12), tot, tot - inuse, inuse, inuse - r.uniform(1, 5), r.uniform(0.2, 3))], 1
    if cause == "python_exception":
        return pyframes(frames) + [r.choice(PY_EXC)[1]], 1
    raise ValueError(cause)


# ----------------------------------------------------------------------------------------
# TRL GRPOTrainer (accelerate launch) + trl vllm-serve
# ----------------------------------------------------------------------------------------

def build_trl(ctx):
    r = ctx.rng
    cause = ctx.cause
    ntrain = r.choice([1, 1, 1, 2])
    if cause == "network":
        ntrain = r.choice([1, 2])
    gpn = r.choice([8, 8, 8, 4])
    sep_server = ntrain == 2 or cause == "network" or r.random() < 0.25
    nodes = make_nodes(ctx, ntrain + (1 if sep_server else 0), r.choice(["h100", "aws", "node", "hgx"]))
    tz = choose_tz(ctx)
    for nd in nodes:
        nd.tz = tz
    ctx.nodes = nodes
    snode = nodes[-1] if sep_server else nodes[0]
    if sep_server:
        per = gpn
        vg = r.choice([1, 2, 4]) if gpn == 8 else 1
    else:
        vg = r.choice([1, 2]) if gpn == 8 else 1
        per = gpn - vg
    if gpn == 4 and not sep_server and r.random() < 0.4:
        per, vg = 2, 1
    world = per * ntrain
    vgpus = list(range(gpn - vg, gpn)) if not sep_server else list(range(vg))
    tgpus = list(range(per))
    mpath, mcls, mparams, mfam = r.choice([m for m in MODELS if m[2] < 9])
    trlv = r.choice(["0.19.1", "0.20.0", "0.21.0", "0.23.1"])
    vver = r.choice(["0.9.2", "0.10.1", "0.10.2"])
    port = 8000
    tmo_ms = 1800000
    nccl_debug = r.random() < 0.25
    script = r.choice(["src/open_r1/grpo.py", "train_grpo.py", "scripts/grpo_math.py"])
    sname = script.split("/")[-1]
    agent = {nd.idx: r.randint(1000, 90000) for nd in nodes}
    ranks = []
    used = set()
    for i in range(world):
        nd = nodes[i // per]
        pid = agent[nd.idx] + 1 + (i % per) + r.randint(0, 3) * 0
        pid = agent[nd.idx] + 7 + (i % per)
        p = Proc("rank", nd, pid, rank=i, local=i % per)
        ranks.append(p)
    srv_pid = r.randint(1000, 90000)
    srv = []   # (t, line)
    log_level = r.choice(["info", "info", "warning"])
    # culprit
    role = None
    cw = None
    cnode = None
    if cause in ("ecc_memory", "nvlink", "gpu_hardware", "illegal_memory_access", "cuda_oom", "python_exception", "crash_signal", "host_oom_kill", "hang"):
        role = "rollout" if r.random() < 0.4 else "trainer"
    elif cause in ("collective_mismatch", "data_loader_stall", "straggler"):
        role = "trainer"
    elif cause == "network":
        role = "node"
    elif cause == "preemption":
        role = "job"
    if role == "trainer":
        cw = ranks[r.randint(0, world - 1)]
        cnode = cw.node
    elif role == "rollout":
        cnode = snode
    elif role == "node":
        cnode = r.choice(nodes)
    # --- server log ---
    vsd = ",".join(str(g) for g in vgpus)
    shs = user_shell(ctx, snode.host, user=r.choice(["root", "ubuntu", "mlops"]), cwd="~/grpo").replace("# ", "$ " if r.random() < 0.5 else "# ")
    srv.append((-300, f"{shs}CUDA_VISIBLE_DEVICES={vsd} trl vllm-serve --model {mpath} --tensor_parallel_size {vg if vg <= 2 else 2} --data_parallel_size {1 if vg <= 2 else vg // 2} --host 0.0.0.0 --port {port} --log_level {log_level}"))
    srv.append((-299, f"INFO {ctx.vts(-299, snode)} [__init__.py:{ctx.k('pl', [239, 244])}] Automatically detected platform cuda."))
    for tt, x in vllm_init_lines(ctx, snode, -280, mpath, min(vg, 2), vver, 0.9, 4096, sleep=False):
        srv.append((tt, x))
    srv += [(-200, "INFO:     Started server process [" + str(srv_pid) + "]"), (-200, "INFO:     Waiting for application startup."),
            (-200, "INFO:     Application startup complete."), (-200, f"INFO:     Uvicorn running on http://0.0.0.0:{port} (Press CTRL+C to quit)")]
    cip = nodes[0].ip if sep_server else "127.0.0.1"
    acc = lambda t, path, code=200, meth="POST": (t, f"INFO:     {cip}:{r.randint(33000, 60999)} - \"{meth} {path} HTTP/1.1\" {code} {'OK' if code == 200 else 'Internal Server Error'}")
    # --- trainer logs ---
    tlog = {nd.idx: [] for nd in nodes[:ntrain]}
    sh = user_shell(ctx, nodes[0].host, cwd="~/grpo")
    vhost = snode.ip if sep_server else "0.0.0.0"
    for nd in nodes[:ntrain]:
        L = tlog[nd.idx]
        L.append((-5, f"{user_shell(ctx, nd.host, cwd='~/grpo')}CUDA_VISIBLE_DEVICES={','.join(str(g) for g in tgpus)} accelerate launch --config_file recipes/accelerate_configs/zero{r.choice([2, 3])}.yaml "
                      f"--num_processes {world} {'--num_machines 2 --machine_rank ' + str(nd.idx) + ' --main_process_ip ' + nodes[0].ip + ' --main_process_port 29500 ' if ntrain > 1 else ''}"
                      f"{script} --model_name_or_path {mpath} --dataset_name {r.choice(['open-r1/OpenR1-Math-220k', 'AI-MO/NuminaMath-TIR', 'openai/gsm8k'])} --use_vllm --vllm_mode server --vllm_server_host {vhost} "
                      f"--num_generations {r.choice([8, 16])} --per_device_train_batch_size {r.choice([4, 8, 16])} --max_completion_length {r.choice([1024, 2048, 4096])} --bf16 --logging_steps 1 --output_dir data/{mpath.split('/')[1]}-GRPO"))
        L.append((-4.5, "The following values were not passed to `accelerate launch` and had defaults used instead:"))
        L.append((-4.5, "\t`--dynamo_backend` was set to a value of `'no'`"))
        L.append((-4.5, "To avoid this warning pass in values for each of the problematic parameters or run `accelerate config`."))
        for i, x in enumerate(elastic_banner(ctx, nd, -4, agent[nd.idx])):
            L.append((-4 + i * 0.001, x))
    for p in ranks:
        ti = r.uniform(0, 4)
        p.o(ti, f"[{ctx.py_ts(ti, p.node)}] [INFO] [real_accelerator.py:{ctx.k('ra', [222, 239])}:get_accelerator] Setting ds_accelerator to cuda (auto detect)")
        p.o(ti + 2, f"INFO {ctx.vts(ti + 2, p.node)} [__init__.py:{ctx.k('pl', [239, 244])}] Automatically detected platform cuda.")
        p.o(ti + 9, barrier_warn(ctx, p.node, ti + 9, p.rank, p.local))
        if nccl_debug and (p.rank < 2 or p is cw or r.random() < 0.3):
            for x in nccl_init_lines(ctx, p.node, p.pid, p.local, p.rank, world, "0x" + hexs(r, 8), "0x" + hexs(r, 16), first=p.rank == 0):
                p.o(ti + 9.5, x)
        p.o(ti + 20, f"Loading checkpoint shards: 100%|██████████| 4/4 [00:0{r.randint(2, 9)}<00:00,  {r.uniform(0.5, 1.9):.2f}it/s]")
    r0 = ranks[0]
    r0.o(5, f"{ctx.when(5, r0.node).strftime('%Y-%m-%d %H:%M:%S')} - INFO - __main__ - Model parameters ModelConfig(model_name_or_path='{mpath}', model_revision='main', torch_dtype='bfloat16', trust_remote_code=False, attn_implementation='flash_attention_2', use_peft=False)")
    r0.o(40, f"{ctx.when(40, r0.node).strftime('%Y-%m-%d %H:%M:%S')} - INFO - trl.extras.vllm_client - Server is up!")
    r0.o(41, f"INFO {ctx.vts(41, r0.node)} [pynccl.py:{ctx.k('pn', [69, 70])}] vLLM is using nccl=={ctx.nccl}")
    srv += [acc(40, "/health/", meth="GET"), acc(40.2, "/get_world_size/" if vge(trlv, "0.20") else "/get_tensor_parallel_size/", meth="GET"), acc(40.4, "/init_communicator/")]
    srv.append((41, f"INFO {ctx.vts(41, snode)} [pynccl.py:{ctx.k('pn', [69, 70])}] vLLM is using nccl=={ctx.nccl}"))
    # --- steps ---
    max_steps = r.choice([500, 1000, 1500])
    step_s = r.uniform(25, 160)
    fail_step = r.randint(3, 60) if cause else None
    n_steps = fail_step if cause else r.randint(25, 60)
    if cause is None:
        max_steps = n_steps
    slow_f = r.uniform(1.6, 2.6)
    strag_from = r.randint(3, max(3, (fail_step or 6) // 2)) if cause == "straggler" else 10 ** 9
    t0 = 60.0
    starts = []
    tc = t0
    for k in range(1, n_steps + 1):
        d = step_s * r.uniform(0.85, 1.2) * (slow_f if k >= strag_from else 1)
        starts.append((tc, d))
        tc += d
    r0.o(t0 - 0.1, "  0%|          | 0/" + str(max_steps) + " [00:00<?, ?it/s]")
    nparam_lines = r.randint(10, 24)
    if r.random() < 0.4 and n_steps > 3:
        tt = starts[r.randint(1, n_steps - 2)][0] + 5
        r0.o(tt, "wandb: WARNING Network error (ReadTimeout), entering retry loop.")
        ctx.note("decoy: wandb ReadTimeout retry warning")
    for k in range(1, n_steps + 1):
        s0, d = starts[k - 1]
        last = cause is not None and k == n_steps
        if not (last and role == "rollout"):
            srv.append(acc(s0 + d * 0.45, "/generate/"))
        if last:
            break
        if log_level == "info":
            for j in range(nparam_lines):
                srv.append(acc(s0 + d * 0.96 + j * 0.01, "/update_named_param/"))
            srv.append(acc(s0 + d * 0.97, "/reset_prefix_cache/"))
        lo = r.uniform(-0.02, 0.05)
        mets = (f"{{'loss': {lo:.4f}, 'grad_norm': {r.uniform(0.05, 0.9):.4f}, 'learning_rate': {1e-6 * (1 - k / max_steps):.3e}, 'num_tokens': {k * r.randint(180000, 260000)}.0, "
                f"'completions/mean_length': {r.uniform(300, 1500):.2f}, 'completions/min_length': {r.randint(20, 120)}.0, 'completions/max_length': {r.choice([1024, 2048])}.0, 'completions/clipped_ratio': {r.uniform(0, 0.2):.4f}, "
                f"'rewards/accuracy_reward/mean': {r.uniform(0.1, 0.7):.4f}, 'rewards/accuracy_reward/std': {r.uniform(0.3, 0.5):.4f}, 'rewards/format_reward/mean': {r.uniform(0.3, 0.99):.4f}, 'reward': {r.uniform(0.4, 1.6):.4f}, 'reward_std': {r.uniform(0.2, 0.6):.4f}, "
                f"'frac_reward_zero_std': {r.uniform(0, 0.4):.4f}, 'kl': {r.uniform(0, 0.003):.6f}, 'clip_ratio/low_mean': 0.0, 'clip_ratio/high_mean': 0.0, 'clip_ratio/region_mean': 0.0, 'epoch': {k / max_steps * 1.0:.2f}}}")
        te = s0 + d
        r0.o(te, mets)
        r0.o(te + 0.01, tqdm_bar("", k, max_steps, te - t0, (te - t0) / k))
    # failure
    s0, d = starts[-1]
    tf = s0 + (d * r.uniform(0.1, 0.4) if role == "rollout" else d * r.uniform(0.55, 0.9))
    seq0 = r.randint(300, 5000) + (fail_step or 0) * 17
    kernel = {}
    extra = {}
    site = ctx.site
    frames_train = [(f"/workspace/{script}", 264, "main", "train_result = trainer.train(resume_from_checkpoint=checkpoint)"),
                    (f"{site}/transformers/trainer.py", 2240, "train", "return inner_training_loop("),
                    (f"{site}/transformers/trainer.py", 2555, "_inner_training_loop", "tr_loss_step = self.training_step(model, inputs, num_items_in_batch)"),
                    (f"{site}/transformers/trainer.py", 3791, "training_step", "self.accelerator.backward(loss, **kwargs)"),
                    (f"{site}/accelerate/accelerator.py", 2545, "backward", "self.deepspeed_engine_wrapped.backward(loss, **kwargs)"),
                    (f"{site}/deepspeed/runtime/engine.py", 2048, "backward", "self.optimizer.backward(loss, retain_graph=retain_graph)")]
    frames_logp = [(f"/workspace/{script}", 264, "main", "train_result = trainer.train(resume_from_checkpoint=checkpoint)"),
                   (f"{site}/transformers/trainer.py", 2240, "train", "return inner_training_loop("),
                   (f"{site}/trl/extras/profiling.py", 98, "wrapper", "return func(self, *args, **kwargs)"),
                   (f"{site}/trl/trainer/grpo_trainer.py", 1208, "_prepare_inputs", "generation_batch = self._generate_and_score_completions(generation_batch)"),
                   (f"{site}/trl/trainer/grpo_trainer.py", 1472, "_generate_and_score_completions", "old_per_token_logps = self._get_per_token_logps_and_entropies("),
                   (f"{site}/trl/trainer/grpo_trainer.py", 842, "_get_per_token_logps_and_entropies", "logits = model(**model_inputs).logits")]
    gen_frames = [(f"/workspace/{script}", 264, "main", "train_result = trainer.train(resume_from_checkpoint=checkpoint)"),
                  (f"{site}/transformers/trainer.py", 2240, "train", "return inner_training_loop("),
                  (f"{site}/trl/trainer/grpo_trainer.py", 1208, "_prepare_inputs", "generation_batch = self._generate_and_score_completions(generation_batch)"),
                  (f"{site}/trl/trainer/grpo_trainer.py", 1326, "_generate_and_score_completions", "completion_ids = self.vllm_client.generate("),
                  (f"{site}/trl/extras/vllm_client.py", 246, "generate", "raise Exception(f\"Request failed: {response.status_code}, {response.text}\")")]
    dead = []          # (t, rank proc, exitcode)
    t_end = None
    term_reason = None
    if role == "trainer" and cause in ("ecc_memory", "nvlink", "gpu_hardware", "illegal_memory_access", "cuda_oom", "python_exception"):
        fr = frames_logp if cause in ("cuda_oom", "illegal_memory_access") and r.random() < 0.6 else frames_train
        tb, code = rank_py_failure(ctx, cause, fr)
        cw.pyb(tf, tb)
        if cause in ("ecc_memory", "nvlink", "gpu_hardware"):
            kernel[cw.node.idx] = klines(tf - r.uniform(0.05, 0.6), xid_line(ctx, cause, tgpus[cw.local], cw.pid, "python3"))
        dead.append((tf + 1.0, cw, 1))
        ctx.rank_ev += [f"[rank{cw.rank}]: " + ("RuntimeError: CUDA error" if cause != "cuda_oom" else "torch.OutOfMemoryError") if cause != "python_exception" else f"[rank{cw.rank}]: Traceback"]
        ctx.note(f"trainer rank {cw.rank} raised ({cause}); accelerate/torchrun tears down the rest")
    elif role == "trainer" and cause in ("crash_signal", "host_oom_kill"):
        code = -11 if cause == "crash_signal" else -9
        if cause == "crash_signal" and r.random() < 0.5:
            cw.ob(tf, ["Fatal Python error: Segmentation fault", "", f"Thread 0x00007f{hexs(r, 10)} (most recent call first):",
                       f'  File "{site}/torch/autograd/graph.py", line 824 in _engine_run_backward',
                       f'  File "{site}/deepspeed/runtime/zero/stage3.py", line 2248 in backward'])
        if cause == "host_oom_kill":
            kernel[cw.node.idx] = klines(tf - 0.3, oom_kill_lines(ctx, cw.pid, "python3", r.randint(180, 420) * 1024 * 1024))
        dead.append((tf + 0.5, cw, code))
        ctx.rank_ev += [f"rank      : {cw.rank} (local_rank: {cw.local})"]
        ctx.note(f"trainer rank {cw.rank} (pid {cw.pid}) {'segfaulted' if code == -11 else 'was SIGKILLed by the kernel OOM killer'}")
    elif role == "rollout" and cause in ("ecc_memory", "nvlink", "gpu_hardware", "illegal_memory_access", "cuda_oom", "python_exception"):
        exc, ename = vllm_engine_exc(ctx, cause)
        eng_pid = srv_pid + r.randint(50, 400)
        core = [f"ERROR {ctx.vts(tf, snode)} [core.py:{ctx.k('cor', [586, 600, 710])}] EngineCore encountered a fatal error."]
        tb = pyframes([(f"{site}/vllm/v1/engine/core.py", 577, "run_engine_core", "engine_core.run_busy_loop()"),
                       (f"{site}/vllm/v1/engine/core.py", 604, "run_busy_loop", "self._process_engine_step()"),
                       (f"{site}/vllm/v1/engine/core.py", 629, "_process_engine_step", "outputs = self.step_fn()"),
                       (f"{site}/vllm/v1/engine/core.py", 235, "step", "model_output = self.execute_model(scheduler_output)"),
                       (f"{site}/vllm/v1/worker/gpu_model_runner.py", 1211, "execute_model", "model_output = self.model(")]) + exc
        core += [f"ERROR {ctx.vts(tf, snode)} [core.py:{ctx.k('cor', [586, 600, 710])}] {x}" for x in tb]
        for i, x in enumerate(core):
            srv.append((tf + i * 0.0005, f"(EngineCore_0 pid={eng_pid}) {x}" if vge(vver, "0.10") else x))
        srv.append((tf + 0.1, "ERROR:    Exception in ASGI application"))
        srv += [(tf + 0.11, x) for x in pyframes([(f"{site}/uvicorn/protocols/http/httptools_impl.py", 409, "run_asgi", "result = await app(  # type: ignore[func-returns-value]"),
                                                    (f"{site}/trl/scripts/vllm_serve.py", 553, "generate", "all_outputs = [connection.recv() for connection in connections]")]) +
                 ["vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See stack trace (above) for the root cause."]]
        srv.append(acc(tf + 0.2, "/generate/", 500))
        if cause in ("ecc_memory", "nvlink", "gpu_hardware"):
            kernel[snode.idx] = klines(tf - r.uniform(0.05, 0.5), xid_line(ctx, cause, vgpus[0], eng_pid, "VLLM::EngineCor"))
        r0.pyb(tf + 0.3, pyframes(gen_frames) + ["Exception: Request failed: 500, Internal Server Error"])
        dead.append((tf + 1.0, r0, 1))
        ctx.note(f"vLLM server on {snode.host} (GPUs {vsd}) EngineCore died ({cause}); trainer rank 0 gets HTTP 500 and is reported as root cause by torchrun (decoy)")
    elif role == "rollout" and cause in ("crash_signal", "host_oom_kill"):
        if cause == "crash_signal":
            srv += [(tf, "Fatal Python error: Segmentation fault"), (tf, ""), (tf, f"Thread 0x00007f{hexs(r, 10)} (most recent call first):"),
                    (tf, f'  File "{site}/vllm/distributed/device_communicators/pynccl_wrapper.py", line 292 in ncclBroadcast'),
                    (tf, f'  File "{site}/trl/scripts/vllm_serve.py", line 212 in update_named_param')]
        else:
            kernel[snode.idx] = klines(tf - 0.2, oom_kill_lines(ctx, srv_pid, "python3", r.randint(300, 900) * 1024 * 1024))
            srv.append((tf, "Killed"))
        r0.pyb(tf + 0.5, pyframes(gen_frames[:4] + [(f"{site}/trl/extras/vllm_client.py", 228, "generate", "response = self.session.post("),
                                                   (f"{site}/requests/adapters.py", 682, "send", "raise ConnectionError(err, request=request)")]) +
              [f"requests.exceptions.ConnectionError: ('Connection aborted.', RemoteDisconnected('Remote end closed connection without response'))"])
        dead.append((tf + 1.2, r0, 1))
        ctx.note(f"vLLM server process on {snode.host} {'segfaulted' if cause == 'crash_signal' else 'was OOM-killed'}; trainer rank 0 gets ConnectionError (decoy root cause)")
    elif cause in ("hang", "collective_mismatch", "unknown", "data_loader_stall"):
        t_to = tf + tmo_ms / 1000.0
        if role == "rollout":
            # server never answers /generate/; rank 0 blocks in requests.post, others wait in broadcast_object_list
            stuck_n = r.randint(20, 120)
            kvu = r.uniform(95, 100)
            for i in range(r.randint(3, 6)):
                srv.append((tf + 10 + i * 10, vllm_stats(ctx, snode, tf + 10 + i * 10, 0, 0.0, 0.0, stuck_n, kvu)))
            victims = [p for p in ranks if p is not r0]
            first = collective_timeouts(ctx, victims, t_to, seq0, "BROADCAST", 1, 1, tmo_ms, lambda p: seq0, lambda p: seq0 - 1)
            if first is not None:
                r0.eb(t_to + 0.05, dump_signal_lines(ctx, r0.node, 0, t_to + 0.05, first.rank, seq0 - 1, seq0 - 1))
            for p in victims:
                dead.append((p.dead_at, p, -6))
            ctx.note(f"vLLM server on {snode.host} wedged (requests running, 0 tokens/s); rank 0 blocked in HTTP generate, ranks 1..{world - 1} time out in broadcast_object_list; rank 0 looks like the hang culprit (decoy)")
            if not victims:
                term_reason = ("INT", tf + r.uniform(1800, 7200))
        else:
            ex = (cw,) if cause in ("hang", "collective_mismatch", "data_loader_stall") else ()
            op = r.choice(["ALLREDUCE", "_ALLGATHER_BASE", "_REDUCE_SCATTER_BASE"])
            numel = int(mparams * 1e9 / max(1, world) / 10)
            first = collective_timeouts(ctx, ranks, t_to, seq0, op, numel, numel * (world if op == "_ALLGATHER_BASE" else 1), tmo_ms,
                                        lambda p: seq0 + (r.choice([0, 1]) if cause == "hang" else 0), lambda p: seq0 - 1, exclude=ex)
            for p in ranks:
                if p.dead_at:
                    dead.append((p.dead_at, p, -6))
            if cause == "hang":
                if first is not None:
                    cw.eb(t_to + 0.06, dump_signal_lines(ctx, cw.node, cw.rank, t_to + 0.06, first.rank, seq0 - 1, seq0 - 1))
                    ctx.rank_ev += [glog_err_re(cw.rank, "Received a dump signal")]
                if world <= 8:
                    ctx.rank_ev += ["__ABSENCE__"]
                ctx.note(f"trainer rank {cw.rank} stuck outside NCCL; others time out after {tmo_ms} ms")
            elif cause == "collective_mismatch":
                cw.eb(t_to + 0.3, wd_timeout_block(ctx, cw.node, cw.rank, t_to + 0.3, seq0, "ALLREDUCE" if op != "ALLREDUCE" else "BROADCAST", 1, 1, tmo_ms, seq0, seq0 - 1))
                dead.append((t_to + 1.3, cw, -6))
                ctx.rank_ev += [f"[Rank {cw.rank}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum={seq0}, OpType={'ALLREDUCE' if op != 'ALLREDUCE' else 'BROADCAST'}"]
                ctx.note(f"rank {cw.rank} entered a different collective (numel=1) than the others at SeqNum {seq0}")
            elif cause == "data_loader_stall":
                pid_w = [cw.pid + 40 + j for j in range(4)]
                extra[f"py-spy/rank{cw.rank}.txt"] = [f"Process {cw.pid}: /usr/bin/python3 -u {script} --model_name_or_path {mpath}", f"Python v{ctx.py}.9 (/usr/bin/python{ctx.py})", "",
                                                      f'Thread {cw.pid} (idle): "MainThread"', f"    wait (threading.py:{ctx.k('thw', [324, 359])})", "    get (queue.py:180)",
                                                      "    _try_get_data (torch/utils/data/dataloader.py:1243)", "    _get_data (torch/utils/data/dataloader.py:1410)",
                                                      "    _next_data (torch/utils/data/dataloader.py:1448)", "    __next__ (torch/utils/data/dataloader.py:708)",
                                                      "    __iter__ (accelerate/data_loader.py:566)", "    _inner_training_loop (transformers/trainer.py:2490)",
                                                      "    train (transformers/trainer.py:2240)", f"    main ({sname}:264)", f"    <module> ({sname}:301)"]
                extra[f"py-spy/rank{cw.rank}_worker{pid_w[0]}.txt"] = [f"Process {pid_w[0]}: /usr/bin/python3 -u {script}", f"Python v{ctx.py}.9 (/usr/bin/python{ctx.py})", "",
                                                                        f'Thread {pid_w[0]} (idle): "MainThread"', "    read (fsspec/implementations/local.py:383)",
                                                                        "    read_table (pyarrow/parquet/core.py:1843)", "    _generate_tables (datasets/packaged_modules/parquet/parquet.py:90)",
                                                                        "    __iter__ (datasets/iterable_dataset.py:395)", "    fetch (torch/utils/data/_utils/fetch.py:33)",
                                                                        "    _worker_loop (torch/utils/data/_utils/worker.py:351)"]
                for q in ranks:
                    if q is not cw and r.random() < 0.4:
                        extra[f"py-spy/rank{q.rank}.txt"] = [f"Process {q.pid}: /usr/bin/python3 -u {script} --model_name_or_path {mpath}", f"Python v{ctx.py}.9 (/usr/bin/python{ctx.py})", "",
                                                             f'Thread {q.pid} (active): "MainThread"', "    broadcast (torch/distributed/distributed_c10d.py:2772)",
                                                             "    broadcast_object_list (torch/distributed/distributed_c10d.py:3479)",
                                                             "    _generate_and_score_completions (trl/trainer/grpo_trainer.py:1340)", "    _prepare_inputs (trl/trainer/grpo_trainer.py:1208)"]
                kernel[cw.node.idx] = [(tf + 30 * i, f"nfs: server {r.choice(['nas01', 'fs-data'])} not responding, still trying") for i in range(3)]
                ctx.rank_ev += [f"py-spy/rank{cw.rank}.txt"]
                ctx.note(f"rank {cw.rank}'s DataLoader worker blocked reading parquet over NFS (py-spy dumps attached); other ranks time out in NCCL")
            else:
                ctx.note("every rank times out at the same SeqNum; no initiator")
    elif cause == "straggler":
        extra["nvidia-smi-q.txt"] = []
        for g in tgpus:
            extra["nvidia-smi-q.txt"] += nvsmi_throttle(ctx, g, g == tgpus[cw.local] if cw.node is nodes[0] else False) + [""]
        if cw.node is not nodes[0]:
            extra["nvidia-smi-q.txt"] = [f"# {cw.node.host}"] + [x for g in tgpus for x in nvsmi_throttle(ctx, g, g == tgpus[cw.local]) + [""]]
        term_reason = ("INT", s0 + d * 0.5)
        ctx.rank_ev += ["nvidia-smi-q.txt"]
        ctx.note(f"rank {cw.rank} (GPU {tgpus[cw.local]} on {cw.node.host}) thermally throttled; s/it grows {slow_f:.1f}x; user Ctrl-C; mapping GPU->rank via CUDA_VISIBLE_DEVICES")
    elif cause == "preemption":
        term_reason = ("PREEMPT", tf)
        ctx.note("Slurm preempted the job (SIGTERM to the launcher on every node)")
    elif cause == "network":
        if ntrain > 1 and cnode is not snode:
            others = [nd for nd in nodes[:ntrain] if nd is not cnode]
            aff = [p for p in ranks if p.node is cnode][:3] + [p for p in ranks if p.node is not cnode][:3]
            for p in aff:
                tt = tf + r.uniform(0, 2)
                peer = others[0].ip if p.node is cnode else cnode.ip
                p.eb(tt, nccl_remote_err_block(ctx, p.node, p.rank, tt, peer, p.node.ip, p.local, r.randint(30000, 60000)))
                dead.append((tt + 0.3, p, -6))
            ctx.note(f"IB link on {cnode.host} down; NCCL errors on both trainer nodes name its IP")
        else:
            cnode = snode if r.random() < 0.6 else nodes[0]
            peer = snode.ip if cnode is not snode else nodes[0].ip
            r0.pyb(tf, pyframes([(f"{site}/trl/trainer/grpo_trainer.py", 1016, "_move_model_to_vllm", "self.vllm_client.update_named_param(name, param.data)"),
                                (f"{site}/trl/extras/vllm_client.py", 310, "update_named_param", "self.pynccl_comm.broadcast(weights, src=self.rank)"),
                                (f"{site}/vllm/distributed/device_communicators/pynccl.py", 286, "broadcast", "self.nccl.ncclBroadcast(sendbuff, recvbuff, tensor.numel(),"),
                                (f"{site}/vllm/distributed/device_communicators/pynccl_wrapper.py", 335, "ncclBroadcast", "self.NCCL_CHECK(self._funcs[\"ncclBroadcast\"](sendbuff, recvbuff, count,"),
                                (f"{site}/vllm/distributed/device_communicators/pynccl_wrapper.py", 298, "NCCL_CHECK", "raise RuntimeError(f\"NCCL error: {error_str}\")")]) +
                  ["RuntimeError: NCCL error: remote process exited or there was a network error"])
            if nccl_debug:
                r0.ob(tf - 0.01, nccl_ib_warn(ctx, r0.node, r0.pid, r0.local, peer, r0.node.ip, "Send"))
            srv.append((tf + 0.5, f"ERROR {ctx.vts(tf, snode)} [vllm_serve.py:{ctx.k('vse', [214, 231])}] Weight update failed: NCCL error: remote process exited or there was a network error"))
            dead.append((tf + 0.6, r0, 1))
            ctx.note(f"IB link on {cnode.host} dropped during the trainer->vLLM weight-sync broadcast (pynccl); both sides report NCCL errors")
        kernel[cnode.idx] = klines(tf - r.uniform(0.3, 3), ib_down_lines(ctx, "mlx5_0"))
    # --- teardown ---
    for nd in nodes[:ntrain]:
        L = tlog[nd.idx]
        loc = [p for p in ranks if p.node is nd]
        dd_ = sorted([x for x in dead if x[1].node is nd], key=lambda x: x[0])
        if cause is None:
            te = starts[-1][0] + starts[-1][1]
            if nd is nodes[0]:
                r0.o(te + 1, f"{{'train_runtime': {te - t0:.1f}, 'train_samples_per_second': {r.uniform(1, 9):.3f}, 'train_steps_per_second': {1 / step_s:.3f}, 'train_loss': {r.uniform(0, 0.03):.4f}, 'epoch': 1.0}}")
                r0.o(te + 1.1, tqdm_bar("", n_steps, n_steps, te - t0, (te - t0) / n_steps))
                r0.o(te + 5, f"{ctx.when(te + 5, r0.node).strftime('%Y-%m-%d %H:%M:%S')} - INFO - __main__ - *** Save model ***")
            for p in loc:
                p.o(te + 30 + r.uniform(0, 1), pg_not_destroyed(ctx, p.node, te + 30, p.rank))
                if r.random() < 0.3:
                    p.ob(te + 29, dl_del_noise(ctx))
            t_end = te + 32
            continue
        if term_reason is not None:
            kind, tt = term_reason
            for p in loc:
                p.until(tt)
            if kind == "PREEMPT":
                L.append((tt, f"slurmstepd: error: *** STEP {r.randint(100000, 999999)}.0 ON {nd.host} CANCELLED AT {ctx.iso(tt, nd)} DUE TO PREEMPTION ***"))
                L.append((tt + 0.01, ctx.elog(tt + 0.01, nd, "W", agent[nd.idx], "torch/distributed/elastic/agent/server/api.py:719", "Received 15 death signal, shutting down workers")))
                L += sigterm_others(ctx, nd, agent[nd.idx], tt + 0.02, [p.pid for p in loc])
            else:
                L.append((tt, "^C" + ctx.elog(tt, nd, "W", agent[nd.idx], "torch/distributed/elastic/agent/server/api.py:719", "Received 2 death signal, shutting down workers")))
                L += sigterm_others(ctx, nd, agent[nd.idx], tt + 0.01, [p.pid for p in loc])
                for p in loc:
                    p.pyb(tt + 0.005, ["Traceback (most recent call last):", f'  File "/workspace/{script}", line 301, in <module>', "KeyboardInterrupt"])
            L.append((tt + 1, "Traceback (most recent call last):"))
            L.append((tt + 1, "torch.distributed.elastic.multiprocessing.api.SignalException: Process " + str(agent[nd.idx]) + f" got signal: {15 if kind == 'PREEMPT' else 2}"))
            t_end = max(t_end or 0, tt + 2)
            continue
        if not dd_:
            # peers on another node: they hang until their own watchdog (or get killed when the job is torn down)
            tt = max([x[0] for x in dead] or [tf]) + r.uniform(5, 60)
            for p in loc:
                if not p.dead_at:
                    q = nccl_remote_err_block(ctx, p.node, p.rank, tt, dead[0][1].node.ip if dead else nodes[0].ip, p.node.ip, p.local, r.randint(30000, 60000))
                    p.eb(tt + r.uniform(0, 0.5), q)
                    dd_.append((tt + 0.6, p, -6))
            dd_.sort(key=lambda x: x[0])
        t_first = dd_[0][0]
        for p in loc:
            p.until(t_first + 0.4 if p not in [x[1] for x in dd_] else p.dead_at + 5 if p.dead_at else 1e18)
        survivors = [p.pid for p in loc if p not in [x[1] for x in dd_[:1]]]
        L += sigterm_others(ctx, nd, agent[nd.idx], t_first + 0.3, survivors)
        ents = [(dd_[0][0], dd_[0][1].rank, dd_[0][1].local, dd_[0][1].pid, dd_[0][2])]
        for x in dd_[1:]:
            if x[0] < t_first + 0.3:
                ents.append((x[0], x[1].rank, x[1].local, x[1].pid, x[2]))
        L += elastic_failure(ctx, nd, agent[nd.idx], sname, ents, launcher="accelerate")
        t_end = max(t_end or 0, t_first + 3)
    # render
    for nd in nodes[:ntrain]:
        ev = list(tlog[nd.idx])
        for p in ranks:
            if p.node is nd:
                ev += render_rank_lines(p)
        ev.sort(key=lambda e: e[0])
        name = "train_grpo.log" if ntrain == 1 else f"train_node{nd.idx}_{nd.host}.log"
        ctx.add(name, [x for t_, x in ev if t_ <= (t_end or 1e18) + 5])
    srv.sort(key=lambda e: e[0])
    if cause is None or term_reason is not None:
        tstop = (t_end or 0) + 10
        srv += [(tstop, "INFO:     Shutting down"), (tstop, "INFO:     Waiting for application shutdown."), (tstop, "INFO:     Application shutdown complete."),
                (tstop, "INFO:     Finished server process [" + str(srv_pid) + "]")]
    ctx.add("vllm_serve.log", [x for t_, x in srv if t_ <= (t_end or 1e18) + 20])
    for k2, v in extra.items():
        ctx.add(k2, v)
    if cause is None and r.random() < 0.5:
        dn = r.choice(nodes)
        kernel[dn.idx] = klines(-r.uniform(1, 20) * 86400, xid_line(ctx, "old_xid", r.randint(0, gpn - 1), r.randint(2000, 99999), "python3"))
        ctx.note(f"decoy: old Xid on {dn.host}")
    for idx, kl in kernel.items():
        nd = nodes[idx]
        if cause in ("gpu_hardware", "ecc_memory", "nvlink", "network", "host_oom_kill", "data_loader_stall") or cause is None or r.random() < 0.5:
            ctx.add(f"dmesg_{nd.host}.txt", [f"{ctx.dmesg_T(tk, nd)} {x}" for tk, x in sorted(kl)])
    t_ = ctx.truth
    if cause is not None:
        if role == "trainer":
            t_["rank"] = cw.rank
            t_["node"] = cw.node.host
            t_["node_aliases"] = [cw.node.ip]
        elif role in ("rollout", "node"):
            t_["node"] = cnode.host
            t_["node_aliases"] = [cnode.ip]
    ctx.note(f"TRL {trlv} GRPO server mode; trainer world={world} on {ntrain} node(s) (GPUs {','.join(map(str, tgpus))}); vLLM server on {snode.host} GPUs {vsd}; torch {ctx.tv}")


# ----------------------------------------------------------------------------------------
# plain torchrun PPO script on Slurm
# ----------------------------------------------------------------------------------------

def build_torchrun(ctx):
    r = ctx.rng
    cause = ctx.cause
    nn = r.choice([1, 2, 2, 4, 4, 8, 16, 32, 64])
    gpn = 8
    if nn == 1 and r.random() < 0.5:
        gpn = r.choice([2, 4])
    if cause in ("network",) and nn == 1:
        nn = 2
    ctx.slurm_prefix = r.choice(["gpu", "hpc-gpu-", "a3mega-", "nid00"])
    nodes = make_nodes(ctx, nn, r.choice(["slurm", "slurm", "aws"]))
    tz = choose_tz(ctx)
    ktz = r.choice([tz, 0])
    for nd in nodes:
        nd.tz = tz
    ctx.nodes = nodes
    world = nn * gpn
    jobid = r.randint(100000, 9999999)
    tmo_ms = r.choice([600000, 1200000, 1800000])
    nccl_debug = r.random() < 0.3
    script = r.choice(["ppo_train.py", "train_ppo.py", "rlhf/ppo_main.py"])
    sname = script.split("/")[-1]
    agent = {nd.idx: r.randint(2000, 90000) for nd in nodes}
    ranks = []
    for i in range(world):
        nd = nodes[i // gpn]
        ranks.append(Proc("rank", nd, agent[nd.idx] + 11 + (i % gpn), rank=i, local=i % gpn))
    logs = {nd.idx: [] for nd in nodes}
    port = r.choice([29500, 29400, 6000])
    master = nodes[0].host
    # culprit
    role = None
    cw = None
    cnode = None
    if cause in ("network",):
        role = "node"
        cnode = nodes[r.randint(0, nn - 1)]
    elif cause in ("preemption",):
        role = "job"
    elif cause in ("unknown", None):
        role = None
    else:
        role = "trainer"
        cw = ranks[r.randint(0, world - 1)]
        cnode = cw.node
    # preamble
    for nd in nodes:
        L = logs[nd.idx]
        L.append((-3, f"+ torchrun --nnodes={nn} --nproc_per_node={gpn} --rdzv_backend=c10d --rdzv_endpoint={master}:{port} --rdzv_id={jobid} {script} --config configs/ppo_{r.choice(['7b', '8b', '13b'])}.yaml"))
        for i, x in enumerate(elastic_banner(ctx, nd, -2, agent[nd.idx])):
            L.append((-2 + i * 0.001, x))
    for p in ranks:
        ti = r.uniform(2, 9)
        p.o(ti + 1, barrier_warn(ctx, p.node, ti + 1, p.rank, p.local))
        if nccl_debug and (p.rank < 2 or p is cw or r.random() < 0.15):
            for x in nccl_init_lines(ctx, p.node, p.pid, p.local, p.rank, world, "0x" + hexs(r, 8), "0x" + hexs(r, 16), first=p.rank == 0):
                p.o(ti + 1.5, x)
    r0 = ranks[0]
    lg = lambda t, nd, rk, msg: f"[{ctx.py_ts(t, nd)}][ppo][INFO]{'' if rk is None else f'[rank{rk}]'} {msg}"
    r0.o(10, lg(10, r0.node, None, f"world_size={world} policy=actor(FSDP) critic=value_head(FSDP) reference=frozen(FSDP) rollout=hf.generate(use_cache=True)"))
    r0.o(11, lg(11, r0.node, None, f"prompt dataset: {r.choice(['/data/rl/prompts_v3.jsonl', '/lustre/datasets/hh-prompts/train.parquet'])} ({r.randint(20000, 300000)} prompts), DataLoader(num_workers=4, timeout=600)"))
    # steps
    step_s = r.uniform(40, 180)
    n_total = r.choice([1000, 2000, 5000])
    fail_step = r.randint(4, 80) if cause else None
    n_steps = fail_step if cause else r.randint(30, 80)
    if cause is None:
        n_total = n_steps
    slow_f = r.uniform(1.5, 2.6)
    strag_from = r.randint(3, max(3, (fail_step or 8) // 2)) if cause == "straggler" else 10 ** 9
    t0 = 40
    starts = []
    tc = t0
    for k in range(1, n_steps + 1):
        d = step_s * r.uniform(0.9, 1.12) * (1 + (slow_f - 1) * 0.8 if k >= strag_from else 1)
        starts.append((tc, d))
        tc += d
    timing_every = r.choice([5, 10]) if cause != "straggler" else 1
    if r.random() < 0.5 and n_steps > 3:
        dk = r.randint(1, n_steps - 2)
        dp = ranks[r.randint(0, world - 1)]
        if dp is not cw:
            tt = starts[dk - 1][0] + 20
            dp.o(tt, f"[{ctx.py_ts(tt, dp.node)}][ppo][WARNING][rank{dp.rank}] reward server request failed (attempt 1/3): ReadTimeout(ReadTimeoutError(\"HTTPConnectionPool(host='rm-svc', port=8000): Read timed out. (read timeout=30)\"))")
            dp.o(tt + 31, f"[{ctx.py_ts(tt + 31, dp.node)}][ppo][INFO][rank{dp.rank}] reward server request succeeded on attempt 2")
            ctx.note(f"decoy: handled reward-server ReadTimeout on rank {dp.rank}")
    sample_r = set([0, world - 1] + r.sample(range(world), min(world, 6)) + ([cw.rank] if cw else []))
    for k in range(1, n_steps + 1):
        s0, d = starts[k - 1]
        last = cause is not None and k == n_steps
        if last:
            break
        te = s0 + d
        r0.o(te, lg(te, r0.node, None, f"iter {k}/{n_total} | rollout {d * 0.55:.1f}s | gen_tok/s {r.uniform(1500, 3500) / (slow_f if k >= strag_from else 1):.0f} | reward {r.uniform(0.1, 0.8):.3f}±{r.uniform(0.1, 0.3):.3f} | kl {r.uniform(0, 0.05):.4f} | pg_loss {r.uniform(-0.05, 0.05):.4f} | vf_loss {r.uniform(0.05, 0.4):.4f} | step {d:.1f}s"))
        if k % timing_every == 0 or k >= strag_from:
            for p in ranks:
                if p.rank not in sample_r and world > 16 and cause != "straggler":
                    continue
                slow = (p is cw and k >= strag_from)
                gen_t = d * 0.5 * (1.0 if not (k >= strag_from) else 1.0 / (1 + (slow_f - 1) * 0.8)) * (slow_f if slow else 1.0) * r.uniform(0.96, 1.04)
                wait = 0.3 if slow else (d * 0.5 - gen_t + r.uniform(0.1, 0.6) if k >= strag_from else r.uniform(0.2, 1.5))
                p.o(te - 1 + r.uniform(0, 0.5), lg(te - 1, p.node, p.rank, f"timing iter {k}: generate {gen_t:.1f}s fwd_bwd {d * 0.3:.1f}s allreduce_wait {max(0.1, wait):.1f}s"))
    # failure
    s0, d = starts[-1]
    tf = s0 + d * r.uniform(0.2, 0.9)
    seq0 = r.randint(1000, 40000) + (fail_step or 0) * 23
    op = r.choice(["ALLREDUCE", "_ALLGATHER_BASE", "_REDUCE_SCATTER_BASE"])
    numel = r.randint(10 ** 6, 10 ** 8)
    kernel = {}
    dead = []
    term = None
    site = ctx.site
    frames = [(f"/workspace/{script}", 412, "<module>", "main(cfg)"), (f"/workspace/{script}", 377, "main", "stats = trainer.step(batch)"),
              (f"/workspace/rlhf/ppo_trainer.py", 201, "step", "loss.backward()"), (f"{site}/torch/_tensor.py", 648, "backward", "torch.autograd.backward("),
              (f"{site}/torch/autograd/__init__.py", 353, "backward", "_engine_run_backward("),
              (f"{site}/torch/autograd/graph.py", 824, "_engine_run_backward", "return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass")]
    gframes = [(f"/workspace/{script}", 412, "<module>", "main(cfg)"), (f"/workspace/{script}", 371, "main", "rollouts = trainer.generate_rollouts(batch)"),
               (f"/workspace/rlhf/ppo_trainer.py", 133, "generate_rollouts", "seqs = self.actor.generate(**inputs, generation_config=self.gen_cfg)"),
               (f"{site}/torch/utils/_contextlib.py", 116, "decorate_context", "return func(*args, **kwargs)"),
               (f"{site}/transformers/generation/utils.py", 2625, "generate", "result = self._sample("),
               (f"{site}/transformers/generation/utils.py", 3606, "_sample", "outputs = model_forward(**model_inputs, return_dict=True)")]
    if role == "trainer" and cause in ("ecc_memory", "nvlink", "gpu_hardware", "illegal_memory_access", "cuda_oom", "python_exception"):
        tb, code = rank_py_failure(ctx, cause, r.choice([frames, gframes]))
        cw.pyb(tf, tb)
        if cause in ("ecc_memory", "nvlink", "gpu_hardware"):
            kernel[cw.node.idx] = klines(tf - r.uniform(0.05, 0.6), xid_line(ctx, cause, cw.local, cw.pid, "python"))
            if cause != "gpu_hardware" and r.random() < 0.5:
                cw.ob(tf + 0.3, wd_cuda_abort_block(ctx, cw.node, cw.rank, tf + 0.3, cuda_err_for(ctx, cause))[:6])
        dead.append((tf + 1.0, cw, 1))
        ctx.rank_ev += [f"[rank{cw.rank}]: Traceback", f"rank      : {cw.rank} (local_rank: {cw.local})"]
        ctx.note(f"rank {cw.rank} ({cause}) on {cw.node.host}")
    elif role == "trainer" and cause in ("crash_signal", "host_oom_kill"):
        code = -11 if cause == "crash_signal" else -9
        if cause == "host_oom_kill":
            kernel[cw.node.idx] = klines(tf - 0.4, oom_kill_lines(ctx, cw.pid, "python", r.randint(150, 500) * 1024 * 1024, uid=r.randint(1000, 40000)))
        elif r.random() < 0.6:
            kernel[cw.node.idx] = [(tf - 0.01, f"python[{cw.pid}]: segfault at {hexs(r, 12)} ip {addr(r)} sp 00007ff{hexs(r, 9)} error 4 in libnccl.so.2[{addr(r)}+{hexs(r, 7)}] likely on CPU {r.randint(0, 111)} (core {r.randint(0, 55)}, socket {r.randint(0, 1)})")]
        dead.append((tf + 0.4, cw, code))
        ctx.rank_ev += [f"rank      : {cw.rank} (local_rank: {cw.local})"]
        ctx.note(f"rank {cw.rank} (pid {cw.pid}) killed by signal {-code}")
    elif cause in ("hang", "collective_mismatch", "unknown", "data_loader_stall"):
        t_to = tf + tmo_ms / 1000.0
        ex = (cw,) if cw is not None else ()
        vis = [p for p in ranks if p.rank in sample_r or world <= 32 or p.node is (cnode or nodes[0])]
        first = collective_timeouts(ctx, vis, t_to, seq0, op, numel, numel, tmo_ms, lambda p: seq0 + (r.choice([0, 1]) if cause == "hang" else 0), lambda p: seq0 - 1, exclude=ex)
        for p in ranks:
            if p.dead_at:
                dead.append((p.dead_at, p, -6))
        if cause == "hang":
            if first is not None:
                cw.eb(t_to + 0.06, dump_signal_lines(ctx, cw.node, cw.rank, t_to + 0.06, first.rank, seq0 - 1, seq0 - 1))
                ctx.rank_ev += [glog_err_re(cw.rank, "Received a dump signal")]
            if world <= 16:
                ctx.rank_ev += ["__ABSENCE__"]
            ctx.note(f"rank {cw.rank} stopped issuing collectives at SeqNum {seq0}; all others time out ({tmo_ms} ms)")
        elif cause == "collective_mismatch":
            odd = "BROADCAST" if op != "BROADCAST" else "ALLREDUCE"
            cw.eb(t_to + 0.4, wd_timeout_block(ctx, cw.node, cw.rank, t_to + 0.4, seq0, odd, 1, 1, tmo_ms, seq0, seq0 - 1))
            dead.append((t_to + 1.4, cw, -6))
            ctx.rank_ev += [f"[Rank {cw.rank}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum={seq0}, OpType={odd}"]
            ctx.note(f"rank {cw.rank} issued {odd}(numel=1) at SeqNum {seq0} while others issued {op}")
        elif cause == "data_loader_stall":
            cw.pyb(tf + 600, pyframes([(f"/workspace/{script}", 412, "<module>", "main(cfg)"), (f"/workspace/{script}", 366, "main", "batch = next(prompt_iter)"),
                                      (f"{site}/torch/utils/data/dataloader.py", 708, "__next__", "data = self._next_data()"),
                                      (f"{site}/torch/utils/data/dataloader.py", 1458, "_next_data", "idx, data = self._get_data()"),
                                      (f"{site}/torch/utils/data/dataloader.py", 1410, "_get_data", "success, data = self._try_get_data()"),
                                      (f"{site}/torch/utils/data/dataloader.py", 1256, "_try_get_data", "raise RuntimeError(f'DataLoader timed out after {self._timeout} seconds') from e")]) +
                   ["RuntimeError: DataLoader timed out after 600 seconds"])
            if tf + 601 < t_to:
                dead.append((tf + 601, cw, 1))
            kernel[cw.node.idx] = [(tf + 40 * i, f"nfs: server {r.choice(['nfs01', 'isilon-rl', 'fsx-lustre'])} not responding, still trying") for i in range(3)]
            ctx.rank_ev += [f"[rank{cw.rank}]: RuntimeError: DataLoader timed out"]
            ctx.note(f"rank {cw.rank}'s prompt DataLoader timed out (NFS stall on {cw.node.host}); others then fail in NCCL")
        else:
            ctx.note("all ranks time out on the same collective and counters; no initiator visible")
    elif cause == "straggler":
        ctx.rank_ev += [f"[rank{cw.rank}] timing iter"]
        if r.random() < 0.5:
            term = ("TIME", s0 + d * 0.5)
            ctx.note(f"rank {cw.rank} generate {slow_f:.1f}x slower (per-rank timing lines, others show large allreduce_wait); job hits the Slurm time limit")
        else:
            term = ("CANCEL", s0 + d * 0.5)
            ctx.note(f"rank {cw.rank} generate {slow_f:.1f}x slower; user scancel")
    elif cause == "preemption":
        term = ("PREEMPT", tf)
        ctx.note("Slurm preempted the whole job")
    elif cause == "network":
        others = [nd for nd in nodes if nd is not cnode]
        aff = [p for p in ranks if p.node is cnode][:4] + r.sample([p for p in ranks if p.node is not cnode], min(4, world - gpn))
        for p in aff:
            tt = tf + r.uniform(0, 2)
            peer = r.choice(others).ip if p.node is cnode else cnode.ip
            p.ob(tt, nccl_remote_err_block(ctx, p.node, p.rank, tt, peer, p.node.ip, p.local, r.randint(30000, 60000)))
            if nccl_debug:
                p.ob(tt - 0.02, nccl_ib_warn(ctx, p.node, p.pid, p.local, peer, p.node.ip))
            dead.append((tt + 0.3, p, -6))
        kernel[cnode.idx] = klines(tf - r.uniform(0.3, 3), ib_down_lines(ctx, "mlx5_4"))
        ctx.note(f"IB port on {cnode.host} ({cnode.ip}) went down; NCCL peers report NET/IB errors naming it")
    # --- per-node teardown ---
    t_end = 0
    srun_errs = []
    for nd in nodes:
        L = logs[nd.idx]
        loc = [p for p in ranks if p.node is nd]
        if cause is None:
            te = starts[-1][0] + starts[-1][1]
            if nd is nodes[0]:
                r0.o(te + 2, lg(te + 2, nd, None, f"training finished: {n_steps} iters, saving to /checkpoints/ppo/{jobid}/final"))
            for p in loc:
                p.o(te + 20 + r.uniform(0, 1), pg_not_destroyed(ctx, nd, te + 20, p.rank))
                if r.random() < 0.25:
                    p.ob(te + 19, dl_del_noise(ctx))
            t_end = te + 25
            continue
        if term is not None:
            kind, tt = term
            for p in loc:
                p.until(tt)
            reason = {"TIME": "DUE TO TIME LIMIT", "PREEMPT": "DUE TO PREEMPTION", "CANCEL": ""}[kind]
            L.append((tt, f"slurmstepd: error: *** STEP {jobid}.0 ON {nd.host} CANCELLED AT {ctx.iso(tt, nd)} {reason} ***".replace("  ***", " ***")))
            L.append((tt + 0.01, ctx.elog(tt + 0.01, nd, "W", agent[nd.idx], "torch/distributed/elastic/agent/server/api.py:719", "Received 15 death signal, shutting down workers")))
            L += sigterm_others(ctx, nd, agent[nd.idx], tt + 0.02, [p.pid for p in loc])
            L += [(tt + 1, "Traceback (most recent call last):"), (tt + 1, f'  File "/usr/local/bin/torchrun", line 8, in <module>'), (tt + 1, "    sys.exit(main())"),
                  (tt + 1.01, f"torch.distributed.elastic.multiprocessing.api.SignalException: Process {agent[nd.idx]} got signal: 15")]
            t_end = max(t_end, tt + 2)
            continue
        dd_ = sorted([x for x in dead if x[1].node is nd], key=lambda x: x[0])
        if not dd_:
            tt = (min([x[0] for x in dead]) if dead else tf) + r.uniform(2, 40)
            src = sorted(dead, key=lambda x: x[0])[0][1].node.ip if dead else nodes[0].ip
            for p in loc[: max(1, len(loc) // 2)]:
                p.ob(tt, nccl_remote_err_block(ctx, nd, p.rank, tt, src, nd.ip, p.local, r.randint(30000, 60000))[:5])
                dd_.append((tt + 0.5, p, -6))
        t_first = dd_[0][0]
        for p in loc:
            p.until(t_first + 0.4 if p is not dd_[0][1] else 1e18)
        L += sigterm_others(ctx, nd, agent[nd.idx], t_first + 0.3, [p.pid for p in loc if p is not dd_[0][1]])
        ents = [(dd_[0][0], dd_[0][1].rank, dd_[0][1].local, dd_[0][1].pid, dd_[0][2])]
        for x in dd_[1:]:
            if x[0] < t_first + 0.3:
                ents.append((x[0], x[1].rank, x[1].local, x[1].pid, x[2]))
        L += elastic_failure(ctx, nd, agent[nd.idx], sname, ents, launcher="torchrun", bin_="/usr/bin/python")
        srun_errs.append((t_first + 1, f"srun: error: {nd.host}: task {nd.idx}: Exited with exit code 1"))
        t_end = max(t_end, t_first + 2)
    # choose which node logs were attached
    if nn <= 8:
        att = list(nodes)
    else:
        first_err = sorted(srun_errs)[0][1].split(": ")[2] if srun_errs else nodes[0].host
        must = [nodes[0]] + [nd for nd in nodes if nd.host == first_err]
        if cnode is not None and (cause not in ("hang",) or r.random() < 0.8):
            must.append(cnode)
        pool = [nd for nd in nodes if nd not in must]
        att = must + r.sample(pool, min(len(pool), 3))
        att = sorted(set(att), key=lambda nd: nd.idx)
        ctx.note(f"big job: user attached {len(att)} of {nn} node logs")
    for nd in att:
        ev = list(logs[nd.idx])
        for p in ranks:
            if p.node is nd:
                ev += render_rank_lines(p)
        ev.sort(key=lambda e: e[0])
        ctx.add(f"logs/ppo-{jobid}-{nd.host}.out", [x for t_, x in ev if t_ <= t_end + 5])
    sl = [f"Starting PPO job {jobid} on {nn} node(s): {nodes[0].host}{' ... ' + nodes[-1].host if nn > 1 else ''}", f"MASTER_ADDR={master} MASTER_PORT={port}",
          f"NCCL_DEBUG={'INFO' if nccl_debug else 'WARN'} NCCL_IB_HCA=mlx5 NCCL_SOCKET_IFNAME={r.choice(['ib0', 'eth0', 'bond0'])} TORCH_NCCL_ASYNC_ERROR_HANDLING=1",
          f"srun --kill-on-bad-exit=1 -o logs/%x-%j-%N.out torchrun ..."]
    if srun_errs:
        sl += [x for t_, x in sorted(srun_errs)]
        sl += ["srun: Job step aborted: Waiting up to 32 seconds for job step to finish."]
        if r.random() < 0.5:
            sl += [f"slurmstepd: error: *** STEP {jobid}.0 ON {nd.host} CANCELLED AT {ctx.iso(t_end, nd)} ***" for nd in nodes[:3]]
    if term is not None:
        kind, tt = term
        if kind == "PREEMPT":
            sl += [f"slurmstepd: error: *** JOB {jobid} ON {nodes[0].host} CANCELLED AT {ctx.iso(tt, nodes[0])} DUE TO PREEMPTION ***"]
        elif kind == "TIME":
            sl += [f"slurmstepd: error: *** JOB {jobid} ON {nodes[0].host} CANCELLED AT {ctx.iso(tt, nodes[0])} DUE TO TIME LIMIT ***"]
        else:
            sl += [f"slurmstepd: error: *** JOB {jobid} ON {nodes[0].host} CANCELLED AT {ctx.iso(tt, nodes[0])} ***"]
    if cause is None:
        sl += [f"PPO job {jobid} finished with exit code 0"]
    ctx.add(f"slurm-{jobid}.out", sl)
    if cause is None and r.random() < 0.6:
        dn = r.choice(att)
        kernel[dn.idx] = klines(-r.uniform(1, 30) * 86400, xid_line(ctx, "old_xid", r.randint(0, gpn - 1), r.randint(2000, 99999), "python"))
        ctx.note(f"decoy: old Xid on {dn.host}")
    if cause is not None and r.random() < 0.4 and len(att) > 1:
        dn = r.choice([nd for nd in att if nd is not cnode])
        kernel.setdefault(dn.idx, [])
        kernel[dn.idx] = [(-r.uniform(1, 5) * 86400, f"mlx5_core 0000:{r.choice(['1a', '3c', '5e'])}:00.0: mlx5_pcie_event:301:(pid {r.randint(100, 999)}): PCIe slot advertised sufficient power (75W).")] + kernel[dn.idx]
    for idx, kl in kernel.items():
        nd = nodes[idx]
        if nd in att or r.random() < 0.5:
            kn = Node(nd.idx, nd.host, nd.ip, ktz, nd.skew)
            kn.boot = nd.boot
            ctx.add(f"kern-{nd.host}.log", [f"{ctx.syslog(tk, kn)} {x}" for tk, x in sorted(kl)])
    t_ = ctx.truth
    if cause is not None:
        if role == "trainer":
            t_["rank"] = cw.rank
            t_["node"] = cw.node.host
            t_["node_aliases"] = [cw.node.ip]
        elif role == "node":
            t_["node"] = cnode.host
            t_["node_aliases"] = [cnode.ip]
    ctx.note(f"torchrun PPO; world={world} ({nn}x{gpn}); NCCL timeout {tmo_ms} ms; torch {ctx.tv}; kernel log tz offset {ktz:+d}h vs app tz {tz:+d}h")


# ----------------------------------------------------------------------------------------
# driver
# ----------------------------------------------------------------------------------------

def plan(n, seed):
    rng = random.Random(f"blind20-plan|{seed}")
    order = CAUSES[:]
    rng.shuffle(order)
    causes = []
    k = 0
    for i in range(n):
        if i % 7 == 3:
            causes.append(None)
        else:
            causes.append(order[k % len(order)])
            k += 1
    lays = []
    while len(lays) < n:
        blk = LAYOUTS[:]
        rng.shuffle(blk)
        lays += blk
    return list(zip(causes, lays[:n]))


def evidence_found(ctx, blob):
    for alt in ctx.rank_ev:
        if isinstance(alt, str):
            alt = [alt]
        ok = True
        for pat in alt:
            if pat.startswith("re:"):
                if not re.search(pat[3:], blob, re.M):
                    ok = False
                    break
            elif pat == "__ABSENCE__":
                continue
            elif pat not in blob:
                ok = False
                break
        if ok:
            return True
    return False


BUILDERS = {}


def build_one(seed, idx, cause, layout):
    ctx = Ctx(seed, idx, cause, layout)
    BUILDERS[layout](ctx)
    t = ctx.truth
    blob = "\n".join(f"=== {p}\n" + "\n".join(v) for p, v in ctx.files.items())
    if t["rank"] is not None:
        t["rank_inferable"] = evidence_found(ctx, blob)
    else:
        t["rank_inferable"] = False
    if cause is None:
        t["node"] = None
        t["node_aliases"] = []
        t["drain"] = False
    if cause == "network" and t["node"] is None:
        t["drain"] = False
    t["notes"] = "; ".join(ctx.notes)
    return ctx


def write_run(ctx, outdir):
    name = f"run-{ctx.idx:03d}-{ctx.layout}"
    base = os.path.join(outdir, name)
    os.makedirs(base, exist_ok=True)
    for p in sorted(ctx.files):
        fp = os.path.join(base, p)
        os.makedirs(os.path.dirname(fp), exist_ok=True)
        with open(fp, "w", encoding="utf-8", newline="\n") as f:
            f.write("\n".join(ctx.files[p]) + "\n")
    with open(os.path.join(base, "truth.json"), "w") as f:
        json.dump(ctx.truth, f, indent=2, sort_keys=False)
        f.write("\n")
    return base


def dir_size(p):
    tot = 0
    for root, _, fs in os.walk(p):
        for f in fs:
            tot += os.path.getsize(os.path.join(root, f))
    return tot


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--seed", default="1")
    ap.add_argument("--only", default=None, help="debug: comma list of run indices")
    a = ap.parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    counts = {c: 0 for c in CAUSES}
    counts["healthy"] = 0
    only = None if a.only is None else [int(x) for x in a.only.split(",")]
    for i, (cause, layout) in enumerate(plan(a.n, a.seed)):
        if only is not None and i not in only:
            continue
        ctx = build_one(a.seed, i, cause, layout)
        base = write_run(ctx, a.out)
        if dir_size(base) > 1_000_000:
            print(f"WARNING: {base} is {dir_size(base)} bytes", file=sys.stderr)
        counts["healthy" if cause is None else cause] += 1
    print(json.dumps(counts, indent=1))


BUILDERS.update({"verl-console": lambda c: build_verl(c, False),
                 "verl-raylogs": lambda c: build_verl(c, True),
                 "openrlhf-submit": build_openrlhf,
                 "nemorl-slurm": build_nemorl,
                 "trl-vllm-server": build_trl,
                 "torchrun-ppo": build_torchrun})

if __name__ == "__main__":
    main()
