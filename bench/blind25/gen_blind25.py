#!/usr/bin/env python3
"""gen_blind25 - synthetic failed/healthy log bundles of multi-dimensional-parallel
LLM training jobs (Megatron-LM / Megatron-Core MoE / NeMo / torchtitan / DeepSpeed /
Colossal-AI), each with a truth.json.

Written blind: without reading the diagnosis tool's code, rules, tests or corpus.
Standard library only.  Deterministic for a given --seed.

    python3 gen_blind25.py --out DIR --n 60 --seed S
"""
import argparse
import datetime as dt
import json
import os
import random
import shutil
import sys

NAME = "blind25"
CAUSES = ["gpu_hardware", "ecc_memory", "nvlink", "network", "cuda_oom",
          "illegal_memory_access", "python_exception", "host_oom_kill",
          "crash_signal", "preemption", "hang", "data_loader_stall",
          "collective_mismatch", "straggler", "unknown"]
LAYOUTS = ["megatron_srun", "nemo_k8s", "titan_slurm", "deepspeed_pdsh",
           "colossal_hybrid", "mcore_moe_nccl"]
GPN = 8
MAX_RUN_BYTES = 1_000_000

BUSIDS_H100 = ["18000", "2a000", "3a000", "5d000", "9a000", "ab000", "ba000", "db000"]
BUSIDS_A100 = ["07000", "0f000", "47000", "4e000", "87000", "90000", "b7000", "bd000"]


# --------------------------------------------------------------------------
# small utilities
# --------------------------------------------------------------------------
def hexs(rng, n):
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


def addr(rng):
    return "0x7f" + hexs(rng, 10)


def compress_ranges(nums):
    nums = sorted(nums)
    out, i = [], 0
    while i < len(nums):
        j = i
        while j + 1 < len(nums) and nums[j + 1] == nums[j] + 1:
            j += 1
        out.append(str(nums[i]) if i == j else "%d-%d" % (nums[i], nums[j]))
        i = j + 1
    return ",".join(out)


def slurm_nodelist(hosts):
    """Compress hosts like gpu-017, gpu-018 -> gpu-[017-018] (single common prefix)."""
    import re
    groups = {}
    order = []
    for h in hosts:
        m = re.match(r"^(.*?)(\d+)$", h)
        if not m:
            groups.setdefault(h, None)
            order.append(h)
            continue
        pre, num = m.group(1), m.group(2)
        if pre not in groups:
            groups[pre] = []
            order.append(pre)
        groups[pre].append(num)
    parts = []
    for pre in order:
        nums = groups[pre]
        if nums is None:
            parts.append(pre)
            continue
        width = len(nums[0])
        ints = sorted(int(x) for x in nums)
        rs, i = [], 0
        while i < len(ints):
            j = i
            while j + 1 < len(ints) and ints[j + 1] == ints[j] + 1:
                j += 1
            a = str(ints[i]).zfill(width)
            rs.append(a if i == j else a + "-" + str(ints[j]).zfill(width))
            i = j + 1
        parts.append(pre + ("[" + ",".join(rs) + "]" if len(ints) > 1 else rs[0]))
    return ",".join(parts)


def human_gib(x):
    return "%.2f GiB" % x


# --------------------------------------------------------------------------
# topology: parallel coordinates <-> global rank
# --------------------------------------------------------------------------
class Topo:
    """order lists dims from fastest varying to slowest (e.g. Megatron tp-cp-ep-dp-pp).
    'ep' is a sub-dimension of dp (expert groups are blocks of consecutive dp indices)."""

    def __init__(self, W, sizes, order):
        self.W = W
        self.sizes = dict(sizes)
        self.order = list(order)
        prod = 1
        for d in self.order:
            prod *= self.sizes[d]
        assert prod == W, (sizes, order, W)
        self.ep = self.sizes.get("ep", 1)

    def coords(self, r):
        c = {}
        for d in self.order:
            c[d] = r % self.sizes[d]
            r //= self.sizes[d]
        if self.ep > 1:
            c["ep"] = c["dp"] % self.ep
        return c

    def rank(self, c):
        r, mul = 0, 1
        for d in self.order:
            r += c.get(d, 0) * mul
            mul *= self.sizes[d]
        return r

    def group(self, dim, r):
        c = self.coords(r)
        if dim == "ep":
            base = (c["dp"] // self.ep) * self.ep
            out = []
            for k in range(self.ep):
                cc = dict(c)
                cc["dp"] = base + k
                out.append(self.rank(cc))
            return out
        if dim == "mp":  # model parallel = tp x pp (x cp)
            out = []
            for r2 in range(self.W):
                c2 = self.coords(r2)
                if c2["dp"] == c["dp"]:
                    out.append(r2)
            return out
        out = []
        for k in range(self.sizes.get(dim, 1)):
            cc = dict(c)
            cc[dim] = k
            out.append(self.rank(cc))
        return out

    def all_groups(self, dim):
        seen, out = set(), []
        for r in range(self.W):
            g = tuple(self.group(dim, r))
            if g not in seen:
                seen.add(g)
                out.append(list(g))
        return out

    def group_index(self, dim, r):
        """index of r's group in enumeration order (by smallest member)."""
        if not hasattr(self, "_gi"):
            self._gi = {}
        if dim not in self._gi:
            mins = sorted(set(min(self.group(dim, x)) for x in range(self.W)))
            self._gi[dim] = {m: i for i, m in enumerate(mins)}
        return self._gi[dim][min(self.group(dim, r))]


# --------------------------------------------------------------------------
# run context
# --------------------------------------------------------------------------
class Ctx:
    def __init__(self, seed, idx, layout, cause):
        self.seed = seed
        self.idx = idx
        self.layout = layout
        self.cause = cause
        self.rng = random.Random("%s|%s|run|%d|%s|%s" % (NAME, seed, idx, layout, cause))
        self.out = {}        # rank -> [(t, line, tag)]
        self.agent = {}      # node -> [(t, line)]   launcher / agent per node
        self.kern = {}       # node -> [(t, line)]   kernel ring buffer
        self.sched = []      # [(t, line)]           scheduler / controller
        self.exits = {}      # rank -> (t, code, why)   code: int exit status or -signal
        self.blocked = {}    # rank -> dict
        self.files = {}      # relpath -> text
        self.notes = []
        self.culprit = None
        self.culprit_node = None
        self.evidence = []   # ways a careful human can reach the culprit's global rank
        self.ev_lines = []
        self.decoys = []
        self.drain = False

    # --- rank / node helpers
    def node_of(self, r):
        return r // GPN

    def lr(self, r):
        return r % GPN

    def ranks_on(self, n):
        return list(range(n * GPN, n * GPN + GPN))

    def emit(self, r, t, line, tag=None):
        self.out.setdefault(r, []).append((t, line, tag))

    def emit_lines(self, r, t, lines, tag=None, dt_=0.0):
        for i, ln in enumerate(lines):
            self.emit(r, t + i * dt_, ln, tag)

    def ev(self, name, line=None, fn=None):
        """record rank evidence; with line, it only counts if that text survives in the files."""
        if line is None:
            self.evidence.append(name)
        else:
            self.ev_lines.append((name, fn, line))

    def emit_agent(self, n, t, line):
        self.agent.setdefault(n, []).append((t, line))

    def emit_kern(self, n, t, line):
        self.kern.setdefault(n, []).append((t, line))

    # --- clocks
    def dtm(self, n, t, where="c"):
        """datetime for node n at run time t (seconds).  where: c=container/python,
        h=host local tz, u=UTC (controllers)."""
        skew = self.skew.get(n, 0.0) if n is not None else 0.0
        base = self.T0 + dt.timedelta(seconds=t + skew)
        if where == "h":
            return base + dt.timedelta(hours=self.tz_host[1])
        if where == "c":
            return base + dt.timedelta(hours=self.tz_cont[1])
        return base

    def uptime(self, n, t):
        return self.boot_uptime.get(n, 100000.0) + t + self.skew.get(n, 0.0)


# --------------------------------------------------------------------------
# torch / NCCL / launcher / kernel message builders
# --------------------------------------------------------------------------
TORCH_NCCL = {1: "2.18.1", 2: "2.19.3", 3: "2.20.5", 4: "2.20.5", 5: "2.21.5",
              6: "2.21.5", 7: "2.26.2", 8: "2.27.3", 9: "2.27.5"}
# (watchdog caught, exception-detected, timeout-at, some-ops-failed, take-down, thread-terminated)
WD_SRC = {1: (475, 0, 0, 489, 495, 916), 2: (523, 0, 0, 537, 543, 1182),
          3: (563, 1411, 1452, 577, 583, 1286), 4: (607, 1664, 1709, 621, 627, 1521),
          5: (616, 1785, 1834, 630, 636, 1601), 6: (632, 1824, 1873, 646, 652, 1640),
          7: (668, 2040, 2089, 682, 688, 1822), 8: (683, 2071, 2120, 697, 703, 1853),
          9: (698, 2094, 2143, 712, 718, 1871)}
MOD_LINES = {1: (1518, 1527), 2: (1511, 1520), 3: (1532, 1541), 4: (1553, 1562),
             5: (1736, 1747), 6: (1739, 1750), 7: (1751, 1762), 8: (1773, 1784), 9: (1775, 1786)}


def nccl_tuple(v):
    return tuple(int(x) for x in v.split("."))


def cpp(ctx, r, t, sev, src, msg):
    """c10 / glog style line as printed by libtorch."""
    d = ctx.dtm(ctx.node_of(r), t, "c")
    if ctx.tv <= 2:
        return "[%s %s] %s" % (sev, src, msg)
    frac = "%06d" % d.microsecond
    if ctx.tv >= 4:
        frac += "%03d" % ctx.rng.randrange(1000)
    return "[%s%s %s.%s %s] %s" % (sev, d.strftime("%m%d"), d.strftime("%H:%M:%S"), frac, src, msg)


def pg_info(ctx, r, kind):
    """(pg_id, guid, desc, group_rank, members) for rank r in group kind."""
    if kind == "world":
        return 0, 0, "default_pg", r, list(range(ctx.W))
    if kind == "pp_pair":
        members = pair_members(ctx, r)
        c = ctx.topo.coords(min(members))
        return 4 + c["pp"], 1 + ctx.W // max(1, ctx.topo.sizes.get("tp", 1)) + min(members), "undefined", members.index(r), members
    lid, gid = 1, 1
    for k, desc, gloo in ctx.pg_order:
        size = len(ctx.topo.group(k, 0)) if k != "pp_pair" else 2
        ngroups = ctx.W // size if k != "pp_pair" else ctx.W
        if k == kind:
            members = ctx.topo.group(k, r) if k != "pp_pair" else [r, r]
            gi = ctx.topo.group_index(k, r) if k != "pp_pair" else r
            return lid, gid + gi, desc, members.index(r), members
        lid += 2 if gloo else 1
        gid += ngroups * (2 if gloo else 1)
    members = ctx.topo.group(kind, r)
    return lid, gid, "undefined", members.index(r), members


def pair_members(ctx, r):
    """DeepSpeed pipeline p2p groups are 2-rank groups (stage s, stage s+1)."""
    c = ctx.topo.coords(r)
    PP = ctx.topo.sizes.get("pp", 1)
    cc = dict(c)
    if c["pp"] > 0:
        cc["pp"] = c["pp"] - 1
    elif PP > 1:
        cc["pp"] = c["pp"] + 1
    return sorted([r, ctx.topo.rank(cc)])


def pgp(ctx, r, kind):
    pid_, guid, desc, g, _ = pg_info(ctx, r, kind)
    if ctx.tv <= 2:
        return "[Rank %d]" % g
    if ctx.tv <= 4:
        return "[PG %d Rank %d]" % (guid, g)
    return "[PG ID %d PG GUID %d(%s) Rank %d]" % (pid_, guid, desc, g)


def cpp_frames(ctx, kind, r=None):
    rng = ctx.rng
    if not hasattr(ctx, "libbase"):
        ctx.libbase = {}
    lib = ctx.pylib + "/torch/lib"
    so = "/usr/lib/x86_64-linux-gnu"
    if kind == "timeout":
        fr = ["c10::Error::Error(c10::SourceLocation, std::string) + 0x96 (%s in %s/libc10.so)",
              "c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >) + 0x1d2 (%s in %s/libtorch_cuda.so)",
              "c10d::ProcessGroupNCCL::watchdogHandler() + 0x233 (%s in %s/libtorch_cuda.so)",
              "c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d (%s in %s/libtorch_cuda.so)"]
    elif kind == "cuda":
        fr = ["c10::Error::Error(c10::SourceLocation, std::string) + 0x96 (%s in %s/libc10.so)",
              "c10::detail::torchCheckFail(char const*, char const*, unsigned int, std::string const&) + 0x64 (%s in %s/libc10.so)",
              "c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, int, bool) + 0x118 (%s in %s/libc10_cuda.so)",
              "c10d::ProcessGroupNCCL::WorkNCCL::finishedGPUExecutionInternal() const + 0x56 (%s in %s/libtorch_cuda.so)",
              "c10d::ProcessGroupNCCL::WorkNCCL::isCompleted() + 0xa0 (%s in %s/libtorch_cuda.so)",
              "c10d::ProcessGroupNCCL::watchdogHandler() + 0x1da (%s in %s/libtorch_cuda.so)",
              "c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d (%s in %s/libtorch_cuda.so)"]
    else:  # nccl async error
        fr = ["c10::Error::Error(c10::SourceLocation, std::string) + 0x96 (%s in %s/libc10.so)",
              "c10d::ProcessGroupNCCL::checkForNCCLErrorsInternal(std::shared_ptr<c10d::NCCLComm>&) + 0x220 (%s in %s/libtorch_cuda.so)",
              "c10d::ProcessGroupNCCL::WorkNCCL::checkAndSetException() + 0x7c (%s in %s/libtorch_cuda.so)",
              "c10d::ProcessGroupNCCL::watchdogHandler() + 0x213 (%s in %s/libtorch_cuda.so)",
              "c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d (%s in %s/libtorch_cuda.so)"]
    out = []
    bases = {}

    def fa(libname, off):
        key = (r, libname)
        if key not in ctx.libbase:
            ctx.libbase[key] = int("7f" + hexs(rng, 7), 16) << 12
        return "0x%x" % (ctx.libbase[key] + off)
    for i, f in enumerate(fr):
        libname = f.rsplit("/", 1)[1].rstrip(")")
        off = int(f.split(" + ")[1].split(" ")[0], 16) + random.Random(f).randrange(0x10000, 0x1400000)
        out.append("frame #%d: " % i + f % (fa(libname, off), lib))
    n = len(out)
    out.append("frame #%d: <unknown function> + 0xdc253 (%s in %s/libstdc++.so.6)" % (n, fa("libstdc++", 0xdc253), so))
    out.append("frame #%d: <unknown function> + 0x94ac3 (%s in %s/libc.so.6)" % (n + 1, fa("libc", 0x94ac3), so))
    out.append("frame #%d: <unknown function> + 0x126850 (%s in %s/libc.so.6)" % (n + 2, fa("libc", 0x126850), so))
    out.append("")
    return out


def wn(ctx, seq, op, nin, nout):
    if ctx.tv <= 0:
        return "WorkNCCL(SeqNum=%d, OpType=%s, Timeout(ms)=%d)" % (seq, op, ctx.timeout_ms)
    return "WorkNCCL(SeqNum=%d, OpType=%s, NumelIn=%d, NumelOut=%d, Timeout(ms)=%d)" % (
        seq, op, nin, nout, ctx.timeout_ms)


def watchdog_timeout(ctx, r, t, kind, op, seq, nin, nout, full=True):
    """Lines a rank prints when its NCCL watchdog times out a collective (group kind)."""
    src = WD_SRC[ctx.tv]
    _, _, _, g, _ = pg_info(ctx, r, kind)
    ran = ctx.timeout_ms + ctx.rng.randrange(3, 140)
    core = "[Rank %d] Watchdog caught collective operation timeout: %s ran for %d milliseconds before timing out." % (
        g, wn(ctx, seq, op, nin, nout), ran)
    L = []
    P = pgp(ctx, r, kind)
    L.append(cpp(ctx, r, t, "E", "ProcessGroupNCCL.cpp:%d" % src[0], core))
    le = seq + ctx.rng.randrange(0, 3)
    if ctx.tv >= 3:
        L.append(cpp(ctx, r, t + 0.0004, "E", "ProcessGroupNCCL.cpp:%d" % src[1],
                     "%s Exception (either an error or timeout) detected by watchdog at work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (P, seq, le, seq - 1)))
        if full:
            L.append(cpp(ctx, r, t + 0.0005, "E", "ProcessGroupNCCL.cpp:%d" % src[2],
                         "%s Timeout at NCCL work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (P, seq, le, seq - 1)))
    if not full:
        return L
    pre = (P + " ") if ctx.tv >= 3 else ""
    L.append(cpp(ctx, r, t + 0.0006, "E", "ProcessGroupNCCL.cpp:%d" % src[3],
                 pre + "Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data."))
    L.append(cpp(ctx, r, t + 0.0007, "E", "ProcessGroupNCCL.cpp:%d" % src[4],
                 pre + "To avoid data inconsistency, we are taking the entire process down."))
    if ctx.tv <= 2:
        term = "[Rank %d] NCCL watchdog thread terminated with exception: %s" % (g, core)
    else:
        term = "%s Process group watchdog thread terminated with exception: %s" % (P, core)
    L.append(cpp(ctx, r, t + 0.0009, "E", "ProcessGroupNCCL.cpp:%d" % src[5], term))
    L.append("terminate called after throwing an instance of '%s'" % (
        "std::runtime_error" if ctx.tv <= 1 else "c10::DistBackendError"))
    L.append("  what():  " + term)
    if ctx.tv >= 2:
        L.append("Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:%d (most recent call first):" % (src[0] + 2))
        L += cpp_frames(ctx, "timeout", r)
        L.append("Exception raised from ncclCommWatchdog at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:%d (most recent call first):" % (src[5] + 6))
        fr = cpp_frames(ctx, "timeout", r)
        L += [fr[0]] + fr[3:]
    return L


def nccl_async_error(ctx, r, t, kind, ncclerr, last_error):
    """watchdog caught an asynchronous NCCL error (remote exit / network / cuda)."""
    src = WD_SRC[ctx.tv]
    if ncclerr == "remote":
        head = "NCCL error: remote process exited or there was a network error, NCCL version %s" % ctx.nccl
        body = ["ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.",
                "Last error:", last_error]
    elif ncclerr == "system":
        head = "NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version %s" % ctx.nccl
        body = ["ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. ",
                "Last error:", last_error]
    else:
        head = "NCCL error: unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version %s" % ctx.nccl
        body = ["ncclUnhandledCudaError: Call to CUDA function failed.", "Last error:", last_error]
    P = pgp(ctx, r, kind)
    if ctx.tv <= 2:
        term = "[Rank %d] NCCL watchdog thread terminated with exception: %s" % (pg_info(ctx, r, kind)[3], head)
    else:
        term = "%s Process group watchdog thread terminated with exception: %s" % (P, head)
    L = [cpp(ctx, r, t, "E", "ProcessGroupNCCL.cpp:%d" % src[5], term)] + body
    L.append("Exception raised from checkForNCCLErrorsInternal at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:%d (most recent call first):" % (src[1] + 400 if src[1] else 1420))
    L += cpp_frames(ctx, "nccl", r)
    L.append("terminate called after throwing an instance of 'c10::DistBackendError'")
    L.append("  what():  " + term)
    L += body
    return L


CUDA_TAIL = ["CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
             "For debugging consider passing CUDA_LAUNCH_BLOCKING=1",
             "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions."]


def watchdog_cuda_error(ctx, r, t, kind, err):
    src = WD_SRC[ctx.tv]
    P = pgp(ctx, r, kind)
    if ctx.tv <= 2:
        term = "[Rank %d] NCCL watchdog thread terminated with exception: CUDA error: %s" % (pg_info(ctx, r, kind)[3], err)
    else:
        term = "%s Process group watchdog thread terminated with exception: CUDA error: %s" % (P, err)
    L = [cpp(ctx, r, t, "E", "ProcessGroupNCCL.cpp:%d" % src[5], term)] + CUDA_TAIL + [""]
    L.append("Exception raised from c10_cuda_check_implementation at ../c10/cuda/CUDAException.cpp:43 (most recent call first):")
    L += cpp_frames(ctx, "cuda", r)
    L.append("terminate called after throwing an instance of 'c10::DistBackendError'")
    L.append("  what():  " + term)
    L += CUDA_TAIL + [""]
    return L


def py_tb(frames, exc_lines, chained=None):
    L = []
    if chained:
        L += chained + ["", "The above exception was the direct cause of the following exception:", ""]
    L.append("Traceback (most recent call last):")
    for f in frames:
        p, ln, fn, code = f
        L.append('  File "%s", line %d, in %s' % (p, ln, fn))
        if code:
            L.append("    " + code)
    return L + list(exc_lines)


def mod_frames(ctx):
    a, b = MOD_LINES[ctx.tv]
    p = ctx.pylib + "/torch/nn/modules/module.py"
    return [(p, a, "_wrapped_call_impl", "return self._call_impl(*args, **kwargs)"),
            (p, b, "_call_impl", "return forward_call(*args, **kwargs)")]


def oom_msg(ctx, r, alloc_gib, free_gib, used_gib, by_pt, reserved_unalloc):
    gpu = ctx.lr(r)
    cap = ctx.gpu_mem
    cls = "torch.OutOfMemoryError" if ctx.tv >= 5 else "torch.cuda.OutOfMemoryError"
    if ctx.tv <= 1:
        return ("%s: CUDA out of memory. Tried to allocate %.2f GiB. GPU %d has a total capacty of %.2f GiB of which %.2f GiB is free. "
                "Including non-PyTorch memory, this process has %.2f GiB memory in use. Of the allocated memory %.2f GiB is allocated by PyTorch, "
                "and %.2f GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting max_split_size_mb to avoid fragmentation.  "
                "See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF") % (
            cls, alloc_gib, gpu, cap, free_gib, used_gib, by_pt, reserved_unalloc)
    return ("%s: CUDA out of memory. Tried to allocate %.2f GiB. GPU %d has a total capacity of %.2f GiB of which %.2f GiB is free. "
            "Including non-PyTorch memory, this process has %.2f GiB memory in use. Of the allocated memory %.2f GiB is allocated by PyTorch, "
            "and %.2f GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting "
            "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  "
            "(https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)") % (
        cls, alloc_gib, gpu, cap, free_gib, used_gib, by_pt, reserved_unalloc)


# ---- NCCL debug lines
def nccl_line(ctx, r, t, lvl, msg, thread="main", src=None):
    n = ctx.node_of(r)
    host = ctx.nccl_host(n)
    pid = ctx.pid[r]
    tr = random.Random("%s|tid|%s|%d|%d" % (NAME, ctx.seed, ctx.idx, pid))
    tid = {"main": pid, "init": pid + tr.randrange(90, 180), "proxy": pid + tr.randrange(300, 520),
           "wd": pid + tr.randrange(190, 290)}.get(thread, pid)
    dev = ctx.lr(r)
    if lvl == "WARN":
        pre = ""
        if ctx.nv >= (2, 26, 0):
            pre = "[%s] " % ctx.dtm(n, t, "c").strftime("%Y-%m-%d %H:%M:%S")
        return "%s%s:%d:%d [%d] %s NCCL WARN %s" % (pre, host, pid, tid, dev, src or "misc/socket.cc:50", msg)
    return "%s:%d:%d [%d] NCCL INFO %s" % (host, pid, tid, dev, msg)


def comm_hex(ctx, key):
    return "0x" + hexs(random.Random("%s|comm|%s|%s" % (NAME, ctx.seed, key)), 16)


def ptr_hex(ctx, r, key):
    rr = random.Random("%s|ptr|%s|%s|%d|%s" % (NAME, ctx.seed, ctx.idx, r, key))
    return "0x" + rr.choice(["55", "56", "7f"]) + hexs(rr, 9) + "0"


def nccl_init_lines(ctx, r, t, kind, verbose=False):
    """NCCL INFO lines for one communicator init on rank r (group kind)."""
    if kind == "world":
        g, members = r, list(range(ctx.W))
    else:
        _, _, _, g, members = pg_info(ctx, r, kind)
    nr = len(members)
    cid = comm_hex(ctx, "%s-%d" % (kind, min(members)))
    cp_ = ptr_hex(ctx, r, kind)
    bus = ctx.busids[ctx.lr(r)]
    d = ctx.lr(r)
    nn = len(set(ctx.node_of(x) for x in members))
    L = []
    nvml = (" nvmlDev %d" % d) if ctx.nv >= (2, 19, 0) else ""
    L.append(nccl_line(ctx, r, t, "INFO", "comm %s rank %d nranks %d cudaDev %d%s busId %s commId %s - Init START" % (cp_, g, nr, d, nvml, bus, cid), "init"))
    if verbose:
        L.append(nccl_line(ctx, r, t + 0.01, "INFO", "comm %s rank %d nRanks %d nNodes %d localRanks %d localRank %d MNNVL 0" % (
            cp_, g, nr, nn, max(1, nr // max(1, nn)), g % max(1, nr // max(1, nn))), "init"))
        if nr > 1:
            ring = " ".join("%3d" % ((g + k) % nr) for k in range(min(nr, 8)))
            L.append(nccl_line(ctx, r, t + 0.02, "INFO", "Channel 00/%02d : %s%s" % (ctx.rng.choice([16, 24, 32]), ring, " ..." if nr > 8 else ""), "init"))
            L.append(nccl_line(ctx, r, t + 0.02, "INFO", "Trees [0] %d/-1/-1->%d->%d [1] %d/-1/-1->%d->%d" % (
                (g + 1) % nr, g, (g - 1) % nr if g else -1, (g + 1) % nr, g, (g - 1) % nr if g else -1), "init"))
            L.append(nccl_line(ctx, r, t + 0.03, "INFO", "P2P Chunksize set to 524288", "init"))
        L.append(nccl_line(ctx, r, t + 0.05, "INFO", "Connected all rings", "init"))
        L.append(nccl_line(ctx, r, t + 0.06, "INFO", "Connected all trees", "init"))
    if ctx.nv >= (2, 23, 0):
        L.append(nccl_line(ctx, r, t + 0.1, "INFO", "ncclCommInitRankConfig comm %s rank %d nranks %d cudaDev %d nvmlDev %d busId %s commId %s - Init COMPLETE" % (cp_, g, nr, d, d, bus, cid), "init"))
        if verbose:
            L.append(nccl_line(ctx, r, t + 0.1, "INFO", "Init timings - ncclCommInitRankConfig: rank %d nranks %d total %.2f (kernels 0.14, alloc 0.02, bootstrap %.2f, allgathers 0.01, topo 0.31, graphs 0.02, connections %.2f, rest 0.03)" % (
                g, nr, 0.6 + ctx.rng.random(), 0.1 + ctx.rng.random() * 0.5, 0.1 + ctx.rng.random() * 0.3), "init"))
    else:
        L.append(nccl_line(ctx, r, t + 0.1, "INFO", "comm %s rank %d nranks %d cudaDev %d%s busId %s commId %s - Init COMPLETE" % (cp_, g, nr, d, nvml, bus, cid), "init"))
    return L


def nccl_boot_lines(ctx, r, t):
    n = ctx.node_of(r)
    ip = ctx.ips[n]
    L = [nccl_line(ctx, r, t, "INFO", "Bootstrap : Using %s:%s<0>" % (ctx.oob_if, ip)),
         nccl_line(ctx, r, t, "INFO", "cudaDriverVersion %d" % ctx.cuda_drv)]
    if ctx.lr(r) == 0:
        L.append("NCCL version %s+cuda%s" % (ctx.nccl, ctx.cuda))
    L.append(nccl_line(ctx, r, t + 0.2, "INFO", ctx.net_plugin_line, "init"))
    L.append(nccl_line(ctx, r, t + 0.3, "INFO", "NET/IB : Using %s ; OOB %s:%s<0>" % (
        " ".join("[%d]mlx5_%d:1/%s" % (k, k, ctx.ib_kind) for k in range(ctx.n_hca)), ctx.oob_if, ip), "init"))
    L.append(nccl_line(ctx, r, t + 0.3, "INFO", "Using network %s" % ("IB" if ctx.ib_kind == "IB" else "IB"), "init"))
    return L


# ---- NET/IB completion error (version dependent)
def ib_completion_warn(ctx, r, t, peer_ip, local_ip, hca, status=12, vendor=129, kind="Recv"):
    port = ctx.rng.randrange(32768, 61000)
    if ctx.nv >= (2, 26, 0):
        msg = "NET/IB: Got completion from peer %s<%d> with status=IBV_WC_RETRY_EXC_ERR(%d) opcode=IBV_WC_RECV_RDMA_WITH_IMM(129) vendor_err=%d localGid ::ffff:%s remoteGids::ffff:%s hca %s" % (
            peer_ip, port, status, vendor, local_ip, peer_ip, hca)
        src = "transport/net_ib/p2p.cc:648"
    elif ctx.nv >= (2, 21, 0):
        msg = "NET/IB : Got completion from peer %s<%d> with status=%d opcode=0 len=0 vendor err %d (%s) localGid ::ffff:%s remoteGids::ffff:%s hca %s" % (
            peer_ip, port, status, vendor, kind, local_ip, peer_ip, hca)
        src = "transport/net_ib.cc:2315"
    else:
        msg = "NET/IB : Got completion from peer %s<%d> with error %d, opcode 0, len 0, vendor err %d (%s) localGid ::ffff:%s remoteGid ::ffff:%s" % (
            peer_ip, port, status, vendor, kind, local_ip, peer_ip)
        src = "transport/net_ib.cc:1296"
    return nccl_line(ctx, r, t, "WARN", msg, "proxy", src), "NET/IB : Got completion from peer %s<%d> with error %d, opcode 0, len 0, vendor err %d (%s)" % (peer_ip, port, status, vendor, kind)


# ---- torchrun (elastic agent) lines
def agent_line(ctx, n, t, lvl, mod, path_line, msg):
    d = ctx.dtm(n, t, "c")
    L = {"W": "WARNING", "E": "ERROR", "I": "INFO"}[lvl]
    dotted = "torch.distributed.run" if mod == "run" else "torch.distributed.elastic." + mod
    path = "torch/distributed/" + path_line if mod == "run" else "torch/distributed/elastic/" + path_line
    if ctx.tv <= 1:
        return "%s:%s:%s" % (L, dotted, msg)
    if ctx.tv <= 3:
        return "[%s,%03d] %s: [%s] %s" % (d.strftime("%Y-%m-%d %H:%M:%S"), d.microsecond // 1000, dotted, L, msg)
    return "%s%s %d %s] %s" % (lvl, d.strftime("%m%d %H:%M:%S.") + "%06d" % d.microsecond, ctx.agent_pid[n], path, msg)


def child_failed_block(ctx, n, t, script, failures):
    """failures: list of (rank, exitcode, pid, t_fail). First = root cause."""
    pl = ctx.pylib + "/torch/distributed"
    L = ["Traceback (most recent call last):",
         '  File "%s", line 8, in <module>' % ctx.torchrun_bin, "    sys.exit(main())",
         '  File "%s/elastic/multiprocessing/errors/__init__.py", line %d, in wrapper' % (pl, 355 if ctx.tv >= 5 else 346),
         "    return f(*args, **kwargs)",
         '  File "%s/run.py", line %d, in main' % (pl, 919 if ctx.tv >= 5 else 812), "    run(args)",
         '  File "%s/run.py", line %d, in run' % (pl, 910 if ctx.tv >= 5 else 803), "    elastic_launch(",
         '  File "%s/launcher/api.py", line %d, in __call__' % (pl, 138 if ctx.tv >= 5 else 135),
         "    return launch_agent(self._config, self._entrypoint, list(args))",
         '  File "%s/launcher/api.py", line %d, in launch_agent' % (pl, 269 if ctx.tv >= 5 else 268),
         "    raise ChildFailedError(",
         "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
         "=" * 60, "%s FAILED" % script, "-" * 60, "Failures:"]

    def entry(i, f):
        r, code, pid, tf = f
        d = ctx.dtm(n, tf, "c")
        if code < 0:
            names = {6: "SIGABRT", 9: "SIGKILL", 11: "SIGSEGV", 7: "SIGBUS", 15: "SIGTERM"}
            tb = "Signal %d (%s) received by PID %d" % (-code, names.get(-code, "SIG"), pid)
        else:
            tb = "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"
        return ["[%d]:" % i, "  time      : %s" % d.strftime("%Y-%m-%d_%H:%M:%S"),
                "  host      : %s" % ctx.agent_host(n),
                "  rank      : %d (local_rank: %d)" % (r, ctx.lr(r)),
                "  exitcode  : %d (pid: %d)" % (code, pid), "  error_file: <N/A>", "  traceback : %s" % tb]
    if len(failures) > 1:
        for i, f in enumerate(failures[1:], 1):
            L += entry(i, f)
    else:
        L.append("  <NO_OTHER_FAILURES>")
    L += ["-" * 60, "Root Cause (first observed failure):"] + entry(0, failures[0]) + ["=" * 60]
    return L


def agent_sigterm_block(ctx, n, t, script):
    pl = ctx.pylib + "/torch/distributed"
    if ctx.tv >= 4:
        msg = "Received Signals.SIGTERM death signal, shutting down workers"
    else:
        msg = "Received 15 death signal, shutting down workers"
    L = [agent_line(ctx, n, t, "W", "agent.server.api", "agent/server/api.py:704", msg)]
    for r in ctx.ranks_on(n):
        L.append(agent_line(ctx, n, t + 0.001, "W", "multiprocessing.api", "multiprocessing/api.py:897",
                            "Sending process %d closing signal SIGTERM" % ctx.pid[r]))
    L += ["Traceback (most recent call last):",
          '  File "%s", line 8, in <module>' % ctx.torchrun_bin, "    sys.exit(main())",
          '  File "%s/elastic/multiprocessing/errors/__init__.py", line 355, in wrapper' % pl,
          "    return f(*args, **kwargs)",
          '  File "%s/launcher/api.py", line 260, in launch_agent' % pl,
          "    result = agent.run()",
          '  File "%s/elastic/agent/server/api.py", line 696, in run' % pl,
          "    result = self._invoke_run(role)",
          '  File "%s/elastic/agent/server/api.py", line 855, in _invoke_run' % pl,
          "    time.sleep(monitor_interval)",
          '  File "%s/elastic/multiprocessing/api.py", line 84, in _terminate_process_handler' % pl,
          "    raise SignalException(f\"Process {os.getpid()} got signal: {sigval}\", sigval=sigval)",
          "torch.distributed.elastic.multiprocessing.api.SignalException: Process %d got signal: 15" % ctx.agent_pid[n]]
    return L


# ---- kernel lines
def xid_line(ctx, r, code, pid=None, detail=None):
    bus = ctx.busids[ctx.lr(r)]
    pci = "PCI:0000:%s:00" % bus[:2]
    if pid is None:
        return "NVRM: Xid (%s): %d, pid='<unknown>', name=<unknown>, %s" % (pci, code, detail)
    return "NVRM: Xid (%s): %d, pid=%d, name=%s, %s" % (pci, code, pid, ctx.proc_name, detail)


def fmt_kern(ctx, n, t, msg, style):
    if style == "raw":
        return "[%12.6f] %s" % (ctx.uptime(n, t), msg)
    d = ctx.dtm(n, t, "h")
    if style == "T":
        return "[%s] %s" % (d.strftime("%a %b ") + ("%2d" % d.day) + d.strftime(" %H:%M:%S %Y"), msg)
    if style == "syslog":
        return "%s %s kernel: %s" % (d.strftime("%b ") + ("%2d" % d.day) + d.strftime(" %H:%M:%S"), ctx.hosts[n], msg)
    if style == "iso":
        return "%s %s kernel: %s" % (d.strftime("%Y-%m-%dT%H:%M:%S.") + "%06d" % d.microsecond + ctx.tz_host_iso, ctx.hosts[n], msg)
    return msg


def kern_file(ctx, n, style, extra_boot=True):
    ev = sorted(ctx.kern.get(n, []), key=lambda x: x[0])
    L = []
    if extra_boot:
        for t, m in ctx.boot_kern(n):
            L.append(fmt_kern(ctx, n, t, m, style))
    for t, m in ev:
        L.append(fmt_kern(ctx, n, t, m, style))
    return "\n".join(L) + "\n"


# --------------------------------------------------------------------------
# failure engine (framework independent; layouts supply hooks)
# --------------------------------------------------------------------------
def relation(ctx, r, c):
    if c is None:
        return "other"
    cr, cc = ctx.topo.coords(r), ctx.topo.coords(c)
    diff = [d for d in ctx.topo.order if cr[d] != cc[d]]
    if not diff:
        return "self"
    if diff == ["tp"]:
        return "tp"
    if diff == ["cp"]:
        return "cp"
    if diff == ["pp"]:
        return "pp" if abs(cr["pp"] - cc["pp"]) == 1 else "ppfar"
    if diff == ["dp"]:
        if ctx.topo.ep > 1 and cr["dp"] // ctx.topo.ep == cc["dp"] // ctx.topo.ep:
            return "ep"
        return "dp"
    return "other"


def group_seq(ctx, kind, r):
    """deterministic SeqNum for the collective a group is stuck in."""
    if kind == "world":
        members = [0]
    elif kind == "pp_pair":
        members = pair_members(ctx, r)
    else:
        members = ctx.topo.group(kind, r)
    base = ctx.seq_base.get(kind, 1000)
    return base + random.Random("%s|seq|%s|%d|%s|%d" % (NAME, ctx.seed, ctx.idx, kind, min(members))).randrange(0, 7)


def block(ctx, r, tb, rel):
    kind, op, nin, nout = ctx.L.ops(ctx, r, rel)
    seq = group_seq(ctx, kind, r)
    ctx.blocked[r] = dict(t=tb, kind=kind, op=op, nin=nin, nout=nout, seq=seq, rel=rel)


def block_all(ctx, c, t0, exclude=(), rel_override=None):
    st = ctx.st
    for r in sorted(ctx.sim):
        if r == c or r in exclude or r in ctx.blocked:
            continue
        rel = rel_override or relation(ctx, r, c)
        rr = ctx.rng
        delay = {"tp": rr.uniform(0.0, 0.25), "cp": rr.uniform(0.0, 0.3), "pp": rr.uniform(0.05, 0.8),
                 "ep": rr.uniform(0.0, 0.35), "dp": rr.uniform(0.3 * st, 0.95 * st),
                 "ppfar": rr.uniform(0.6 * st, 1.8 * st), "other": rr.uniform(0.5 * st, 2.2 * st)}[rel]
        block(ctx, r, t0 + delay, rel)


def emit_timeouts(ctx):
    T = ctx.timeout_ms / 1000.0
    for r in sorted(ctx.blocked):
        b = ctx.blocked[r]
        if b.get("silent"):
            continue
        t = b["t"] + T + ctx.rng.uniform(0.01, 0.9)
        if "t_err" in b:      # an earlier NCCL async error replaces the timeout
            continue
        ctx.emit_lines(r, t, watchdog_timeout(ctx, r, t, b["kind"], b["op"], b["seq"], b["nin"], b["nout"]),
                       tag="culprit_weak" if r == ctx.culprit else "collateral", dt_=0.0002)
        ctx.exits[r] = (t + ctx.rng.uniform(0.3, 2.5), -6, "watchdog timeout")


def remote_errors(ctx, c, t_exit, prob=0.6, peer_ip=None, rels=("pp", "dp", "ep", "cp")):
    """cross-node peers of a dead process see IB completion errors -> ncclRemoteError."""
    cn = ctx.node_of(c)
    peer_ip = peer_ip or ctx.ips[cn]
    for r in sorted(ctx.blocked):
        b = ctx.blocked[r]
        if ctx.node_of(r) == cn or b["rel"] not in rels:
            continue
        if ctx.rng.random() > prob:
            continue
        t = t_exit + ctx.rng.uniform(2.0, 25.0)
        w, le = ib_completion_warn(ctx, r, t, peer_ip, ctx.ips[ctx.node_of(r)], "mlx5_%d" % (ctx.lr(r) % ctx.n_hca))
        ctx.emit(r, t, w, "collateral")
        ctx.emit(r, t + 0.0001, nccl_line(ctx, r, t, "INFO", "transport/net.cc:1298 -> 6", "proxy"))
        ctx.emit_lines(r, t + 0.3, nccl_async_error(ctx, r, t + 0.3, b["kind"], "remote", le), "collateral", 0.0001)
        b["t_err"] = t
        ctx.exits[r] = (t + ctx.rng.uniform(0.3, 1.5), -6, "ncclRemoteError")


def resolve(ctx):
    """apply launcher / scheduler kill policy; truncate killed ranks' output."""
    pol = ctx.L.policy
    natural = dict(ctx.exits)
    kill = {}
    ctx.agent_exit = {}
    nodes = sorted(set(ctx.node_of(r) for r in ctx.sim))
    if ctx.sched_kill is not None:
        for r in ctx.sim:
            kill[r] = min(kill.get(r, 1e18), ctx.sched_kill + ctx.rng.uniform(0, 0.05))
    if pol["mode"] == "srun_kill":
        if natural:
            tf = min(v[0] for v in natural.values())
            tk = tf + ctx.rng.uniform(0.5, 3.0)
            ctx.global_kill = tk
            for r in ctx.sim:
                kill[r] = min(kill.get(r, 1e18), tk + ctx.rng.uniform(0, 0.4))
    else:
        # per node agent (torchrun / deepspeed launch)
        for n in nodes:
            loc = [natural[r][0] for r in ctx.ranks_on(n) if r in natural]
            if loc:
                tk = min(loc) + ctx.rng.uniform(0.05, 0.6)
                for r in ctx.ranks_on(n):
                    kill[r] = min(kill.get(r, 1e18), tk + ctx.rng.uniform(0, 0.2))
                ctx.agent_exit[n] = tk + ctx.rng.uniform(1.0, 8.0)
        if pol.get("global") and ctx.agent_exit:
            tg = min(ctx.agent_exit.values()) + pol["global"] * ctx.rng.uniform(0.5, 1.5)
            ctx.global_kill = tg
            for r in ctx.sim:
                if kill.get(r, 1e18) > tg:
                    kill[r] = tg + ctx.rng.uniform(0, 0.3)
    ctx.final = {}
    for r in sorted(ctx.sim):
        nat = natural.get(r)
        k = kill.get(r)
        if nat and (k is None or nat[0] <= k):
            ctx.final[r] = nat
        elif k is not None:
            ctx.final[r] = (k, -15, "killed")
            ctx.out[r] = [x for x in ctx.out.get(r, []) if x[0] <= k]
            if r in ctx.blocked:
                ctx.blocked[r]["killed"] = True
    return ctx.final


# ---------------- per-cause injection ----------------
def fail_time(ctx):
    return ctx.t_fail


def sc_gpu_hardware(ctx, L):
    c = ctx.culprit
    n = ctx.node_of(c)
    t = fail_time(ctx)
    v = ctx.rng.choice(["xid79", "xid79", "xid119", "xid62"])
    pid = ctx.pid[c]
    if v == "xid79":
        ctx.emit_kern(n, t, xid_line(ctx, c, 79, None, "GPU has fallen off the bus."))
        ctx.emit_kern(n, t + 0.001, "NVRM: GPU 0000:%s:00.0: GPU has fallen off the bus." % ctx.busids[ctx.lr(c)][:2])
        ctx.emit_kern(n, t + 0.002, "NVRM: A GPU crash dump has been created. If possible, please run")
        ctx.emit_kern(n, t + 0.002, "NVRM: nvidia-bug-report.sh as root to collect this data before")
        ctx.emit_kern(n, t + 0.002, "NVRM: the NVIDIA kernel module is unloaded.")
        err = "unspecified launch failure"
        silent = False
        ctx.notes.append("Xid 79 (GPU fell off the bus) on local GPU %d" % ctx.lr(c))
    elif v == "xid62":
        ctx.emit_kern(n, t, xid_line(ctx, c, 62, pid, "%08x %08x %08x %08x %08x %08x %08x %08x" % tuple(ctx.rng.randrange(1 << 32) for _ in range(8))))
        err = "unspecified launch failure"
        silent = False
        ctx.notes.append("Xid 62 (internal micro-controller halt) on local GPU %d" % ctx.lr(c))
    else:
        for k in range(3):
            ctx.emit_kern(n, t + 6 * k, xid_line(ctx, c, 119, pid, "Timeout after 6s of waiting for RPC response from GPU%d GSP! Expected function 76 (GSP_RM_CONTROL) (0x%08x 0x%x)." % (ctx.lr(c), 0x20800a00 + ctx.rng.randrange(0x200), ctx.rng.choice([4, 8, 0x14]))))
        ctx.emit_kern(n, t + 20, xid_line(ctx, c, 154, pid, "GPU recovery action changed from 0x0 (None) to 0x2 (Node Reboot Required)"))
        err = None
        silent = True
        ctx.notes.append("Xid 119 GSP RPC timeouts then Xid 154 on local GPU %d; the process wedges silently" % ctx.lr(c))
    ctx.evidence_bus = True
    if not silent:
        te = t + ctx.rng.uniform(0.05, 2.0)
        ctx.emit_lines(c, te, watchdog_cuda_error(ctx, c, te, L.main_kind(ctx), err), "culprit", 0.0001)
        ctx.exits[c] = (te + 0.4, -6, "cuda error")
        block_all(ctx, c, t)
        remote_errors(ctx, c, te + 0.4, prob=0.3)
    else:
        block_all(ctx, c, t)
    ctx.drain = True
    emit_timeouts(ctx)


def sc_ecc_memory(ctx, L):
    c = ctx.culprit
    n = ctx.node_of(c)
    t = fail_time(ctx)
    pid = ctx.pid[c]
    if ctx.gpu_model.startswith("NVIDIA A100"):
        ctx.emit_kern(n, t, xid_line(ctx, c, 48, pid, "An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition %d, subpartition %d." % (ctx.rng.randrange(8), ctx.rng.randrange(2))))
        ctx.emit_kern(n, t + 0.01, xid_line(ctx, c, 63, pid, "Row Remapper: New row (0x%08x) marked for remapping, reset gpu to activate." % ctx.rng.randrange(1 << 28)))
        ctx.notes.append("Xid 48 DBE + Xid 63 row remap")
    else:
        x = ctx.rng.choice([94, 95])
        what = "Contained: SM (0x1). RST: No, D-RST: No" if x == 94 else "Uncontained: FBHUB. RST: Yes, D-RST: No"
        ctx.emit_kern(n, t, xid_line(ctx, c, x, pid, what))
        ctx.emit_kern(n, t + 0.01, xid_line(ctx, c, 63, pid, "Row Remapper: New row (0x%08x) marked for remapping, reset gpu to activate." % ctx.rng.randrange(1 << 28)))
        ctx.notes.append("Xid %d ECC + Xid 63" % x)
    ctx.evidence_bus = True
    te = t + ctx.rng.uniform(0.01, 0.5)
    if ctx.rng.random() < 0.5:
        lines = py_tb(L.tb(ctx, c, "fwd"), ["RuntimeError: CUDA error: uncorrectable ECC error encountered"] + CUDA_TAIL + [""])
        ctx.emit_lines(c, te, L.err_banner(ctx, c, te) + lines, "culprit", 0.0001)
        ctx.exits[c] = (te + 1.0, 1, "exception")
    else:
        ctx.emit_lines(c, te, watchdog_cuda_error(ctx, c, te, L.main_kind(ctx), "uncorrectable ECC error encountered"), "culprit", 0.0001)
        ctx.exits[c] = (te + 0.5, -6, "cuda error")
    ctx.drain = True
    block_all(ctx, c, t)
    remote_errors(ctx, c, ctx.exits[c][0], prob=0.3)
    emit_timeouts(ctx)


def sc_nvlink(ctx, L):
    c = ctx.culprit
    n = ctx.node_of(c)
    t = fail_time(ctx)
    link = ctx.rng.randrange(18 if ctx.gpu_model.find("H100") >= 0 else 12)
    regs = ["0x0"] * 7
    regs[ctx.rng.randrange(7)] = ctx.rng.choice(["0x10000", "0x100000", "0x20000", "0x4"])
    ctx.emit_kern(n, t, xid_line(ctx, c, 74, ctx.pid[c], "NVLink: fatal error detected on link %d(%s)" % (link, ", ".join(regs))))
    # a tp peer on the same node may log an echo Xid a few ms later (decoy for "who started")
    peers = [x for x in ctx.topo.group("tp", c) if x != c and ctx.node_of(x) == n]
    if peers and ctx.rng.random() < 0.5:
        p = ctx.rng.choice(peers)
        ctx.emit_kern(n, t + 0.004, xid_line(ctx, p, 74, ctx.pid[p], "NVLink: fatal error detected on link %d(0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0)" % ctx.rng.randrange(12)))
        ctx.notes.append("echo Xid 74 on peer local GPU %d 4 ms later" % ctx.lr(p))
    ctx.notes.append("Xid 74 NVLink fatal on local GPU %d link %d" % (ctx.lr(c), link))
    ctx.evidence_bus = True
    te = t + ctx.rng.uniform(0.01, 0.3)
    w = nccl_line(ctx, c, te, "WARN", "Cuda failure 'uncorrectable NVLink error was detected during the execution'", "proxy", "transport/p2p.cc:272" if ctx.nv < (2, 23, 0) else "proxy.cc:1524")
    ctx.emit(c, te, w, "culprit")
    ctx.emit_lines(c, te + 0.2, watchdog_cuda_error(ctx, c, te + 0.2, "tp", "uncorrectable NVLink error was detected during the execution"), "culprit", 0.0001)
    ctx.exits[c] = (te + 0.8, -6, "cuda error")
    ctx.drain = True
    block_all(ctx, c, t)
    emit_timeouts(ctx)


def sc_network(ctx, L):
    c_node = ctx.culprit_node
    t = fail_time(ctx)
    one_node = c_node is not None
    if one_node:
        n = c_node
        for k in range(ctx.n_hca if ctx.rng.random() < 0.6 else max(1, ctx.n_hca // 2)):
            tk = t - ctx.rng.uniform(0.0, 3.0)
            pci = ctx.hca_pci[k]
            ctx.emit_kern(n, tk, "mlx5_core 0000:%s:00.0: Port module event: module %d, Cable unplugged" % (pci, k) if ctx.rng.random() < 0.3 else
                          "mlx5_core 0000:%s:00.0: mlx5_port_module_event:1136:(pid 0): Port module event[error]: module %d, Cable error, Bad or shorted cable/connector" % (pci, k))
            ctx.emit_kern(n, tk + 0.02, "mlx5_core 0000:%s:00.0 %s: Link down" % (pci, ctx.netdev(k)))
        ctx.notes.append("HCA ports on %s went down (leaf link failure); all 8 local ranks lose their inter-node paths" % ctx.hosts[n])
        bad = ctx.ranks_on(n)
        ctx.drain = True
        # ranks on the bad node: completion errors towards remote peers
        for r in bad:
            if r not in ctx.sim:
                continue
            te = t + ctx.rng.uniform(5, 40)
            rp = ctx.rng.choice([x for x in range(ctx.nnodes) if x != n])
            w, le = ib_completion_warn(ctx, r, te, ctx.ips[rp], ctx.ips[n], "mlx5_%d" % (ctx.lr(r) % ctx.n_hca), 12, 129, "Send")
            ctx.emit(r, te, w, "culprit")
            ctx.emit(r, te + 0.0001, nccl_line(ctx, r, te, "INFO", "transport/net.cc:1298 -> 6", "proxy"))
            kind = L.main_kind(ctx) if ctx.topo.sizes.get("pp", 1) == 1 else "pp"
            ctx.emit_lines(r, te + 0.4, nccl_async_error(ctx, r, te + 0.4, kind, "remote", le), "culprit", 0.0001)
            ctx.exits[r] = (te + 1.0, -6, "ncclRemoteError")
        # remote peers of the bad node see errors pointing at its IP
        for r in sorted(ctx.sim):
            if r in bad:
                continue
            rel_nodes = set(ctx.node_of(x) for k in ("pp", "dp", "ep") if k in ctx.topo.sizes or k == "ep" for x in (ctx.topo.group(k, r) if (k != "ep" or ctx.topo.ep > 1) else []))
            if n in rel_nodes and ctx.rng.random() < 0.8:
                te = t + ctx.rng.uniform(6, 45)
                w, le = ib_completion_warn(ctx, r, te, ctx.ips[n], ctx.ips[ctx.node_of(r)], "mlx5_%d" % (ctx.lr(r) % ctx.n_hca))
                ctx.emit(r, te, w, "collateral")
                kind = "pp" if ctx.topo.sizes.get("pp", 1) > 1 and n in set(ctx.node_of(x) for x in ctx.topo.group("pp", r)) else L.main_kind(ctx)
                ctx.emit_lines(r, te + 0.4, nccl_async_error(ctx, r, te + 0.4, kind, "remote", le), "collateral", 0.0001)
                ctx.exits[r] = (te + 1.0, -6, "ncclRemoteError")
            else:
                block(ctx, r, t + ctx.rng.uniform(0.5, 2 * ctx.st), "other")
        emit_timeouts(ctx)
    else:
        bad_nodes = ctx.rng.sample(range(ctx.nnodes), min(ctx.nnodes, ctx.rng.choice([2, 3])))
        for n in bad_nodes:
            tk = t + ctx.rng.uniform(-2, 2)
            pci = ctx.hca_pci[ctx.rng.randrange(ctx.n_hca)]
            ctx.emit_kern(n, tk, "mlx5_core 0000:%s:00.0 %s: Link down" % (pci, ctx.netdev(ctx.hca_pci.index(pci))))
            ctx.emit_kern(n, tk + ctx.rng.uniform(8, 30), "mlx5_core 0000:%s:00.0 %s: Link up" % (pci, ctx.netdev(ctx.hca_pci.index(pci))))
        ctx.notes.append("fabric-wide flap (spine switch reboot); link down/up on %s; errors on many pairs, no single node" % ",".join(ctx.hosts[n] for n in bad_nodes))
        for r in sorted(ctx.sim):
            if ctx.rng.random() < 0.45:
                te = t + ctx.rng.uniform(5, 60)
                rp = ctx.rng.choice([x for x in range(ctx.nnodes) if x != ctx.node_of(r)])
                w, le = ib_completion_warn(ctx, r, te, ctx.ips[rp], ctx.ips[ctx.node_of(r)], "mlx5_%d" % (ctx.lr(r) % ctx.n_hca))
                ctx.emit(r, te, w, "collateral")
                ctx.emit_lines(r, te + 0.4, nccl_async_error(ctx, r, te + 0.4, L.main_kind(ctx), "remote", le), "collateral", 0.0001)
                ctx.exits[r] = (te + 1.0, -6, "ncclRemoteError")
            else:
                block(ctx, r, t + ctx.rng.uniform(0.5, 2 * ctx.st), "other")
        emit_timeouts(ctx)


def sc_cuda_oom(ctx, L):
    c = ctx.culprit
    t = fail_time(ctx)
    last = ctx.topo.sizes.get("pp", 1) > 1 and ctx.topo.coords(c)["pp"] == ctx.topo.sizes["pp"] - 1
    where = "loss" if last else ctx.rng.choice(["fwd", "bwd", "optim"])
    cap = ctx.gpu_mem
    alloc = ctx.rng.choice([1.95, 3.91, 7.83, 15.66, 2.00, 4.00, 31.31]) if last else ctx.rng.choice([0.25, 0.5, 1.0, 1.5, 2.0])
    free = ctx.rng.uniform(0.3, min(alloc - 0.05, 3.0)) if alloc > 0.4 else ctx.rng.uniform(0.01, 0.2)
    used = cap - free - 0.6
    byp = used - ctx.rng.uniform(1.0, 6.0)
    unal = ctx.rng.uniform(0.2, 3.5)
    msg = oom_msg(ctx, c, alloc, free, used, byp, unal)
    lines = py_tb(L.tb(ctx, c, where), [msg])
    ctx.emit_lines(c, t, L.err_banner(ctx, c, t) + lines, "culprit", 0.0001)
    ctx.exits[c] = (t + ctx.rng.uniform(0.5, 3.0), 1, "exception")
    ctx.notes.append("CUDA OOM on %s (tried %.2f GiB)" % ("last pipeline stage computing logits/loss" if last else where, alloc))
    block_all(ctx, c, t)
    remote_errors(ctx, c, ctx.exits[c][0], prob=0.5)
    emit_timeouts(ctx)


def sc_illegal_memory_access(ctx, L):
    c = ctx.culprit
    n = ctx.node_of(c)
    t = fail_time(ctx)
    where = ctx.rng.choice(["attn", "fwd", "bwd"] + (["a2a"] if ctx.topo.ep > 1 else []))
    ctx.emit_kern(n, t - 0.05, xid_line(ctx, c, 31, ctx.pid[c], "Ch 000000%02x, intr 00000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_%d faulted @ 0x7f%02x_%08x. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ" % (
        ctx.rng.randrange(8, 40), ctx.rng.randrange(8), ctx.rng.randrange(256), ctx.rng.randrange(1 << 32))))
    if ctx.rng.random() < 0.55:
        lines = py_tb(L.tb(ctx, c, where), ["RuntimeError: CUDA error: an illegal memory access was encountered"] + CUDA_TAIL + [""])
        ctx.emit_lines(c, t, L.err_banner(ctx, c, t) + lines, "culprit", 0.0001)
        te = t + 0.3
        ctx.emit_lines(c, te, watchdog_cuda_error(ctx, c, te, L.main_kind(ctx), "an illegal memory access was encountered"), "culprit", 0.0001)
        ctx.exits[c] = (te + 0.5, -6, "cuda error")
    else:
        ctx.emit_lines(c, t, watchdog_cuda_error(ctx, c, t, L.main_kind(ctx), "an illegal memory access was encountered"), "culprit", 0.0001)
        ctx.exits[c] = (t + 0.6, -6, "cuda error")
    ctx.notes.append("illegal memory access in %s kernel (+Xid 31, app-induced, no drain)" % where)
    block_all(ctx, c, t)
    remote_errors(ctx, c, ctx.exits[c][0], prob=0.3)
    emit_timeouts(ctx)


PY_EXC = [
    ("data", ["IndexError: index %d is out of bounds for axis 0 with size %d"]),
    ("data", ["FileNotFoundError: [Errno 2] No such file or directory: '%s'"]),
    ("ckpt", ["KeyError: 'decoder.layers.%d.mlp.linear_fc1._extra_state'"]),
    ("ckpt", ["OSError: [Errno 122] Disk quota exceeded"]),
    ("fwd", ["AssertionError: sequence length %d is not divisible by context_parallel_size*2=%d"]),
    ("fwd", ["RuntimeError: shape '[%d, %d, -1, 128]' is invalid for input of size %d"]),
    ("data", ["ValueError: cannot reshape array of size %d into shape (%d,)"]),
]


def sc_python_exception(ctx, L):
    c = ctx.culprit
    t = fail_time(ctx)
    where, tmpl = ctx.rng.choice(PY_EXC)
    rr = ctx.rng
    s = tmpl[0]
    if s.startswith("IndexError"):
        n = rr.randrange(10 ** 6, 10 ** 8)
        s = s % (n, n)
    elif s.startswith("FileNotFound"):
        s = s % ("%s/%s_text_document_%04d.bin" % (ctx.data_root, rr.choice(["pile", "fineweb", "dclm", "slimpajama"]), rr.randrange(2000)))
    elif s.startswith("KeyError"):
        s = s % rr.randrange(4, 120)
    elif s.startswith("AssertionError"):
        s = s % (rr.choice([8190, 32766, 131070]), ctx.topo.sizes.get("cp", 1) * 2)
    elif s.startswith("RuntimeError"):
        s = s % (rr.choice([1, 2, 4]), rr.choice([4096, 8192]), rr.randrange(10 ** 7, 10 ** 9))
    elif s.startswith("ValueError"):
        n = rr.randrange(10 ** 6, 10 ** 7)
        s = s % (n, n + 1)
    lines = py_tb(L.tb(ctx, c, where), [s])
    ctx.emit_lines(c, t, L.err_banner(ctx, c, t) + lines, "culprit", 0.0001)
    if ctx.tv >= 5:
        ctx.emit(c, t + 0.8, cpp(ctx, c, t + 0.8, "W", "ProcessGroupNCCL.cpp:%d" % (1250 + ctx.tv * 80),
                                 "Warning: WARNING: destroy_process_group() was not called before program exit, which can leak resources. For more info, please see https://pytorch.org/docs/stable/distributed.html#shutdown (function operator())"))
    ctx.exits[c] = (t + ctx.rng.uniform(1.0, 4.0), 1, "exception")
    ctx.notes.append("python exception in %s on one rank: %s" % (where, s[:80]))
    block_all(ctx, c, t)
    remote_errors(ctx, c, ctx.exits[c][0], prob=0.5)
    emit_timeouts(ctx)


def sc_host_oom_kill(ctx, L):
    c = ctx.culprit
    n = ctx.node_of(c)
    t = fail_time(ctx)
    pid = ctx.pid[c]
    rss = ctx.rng.randrange(180, 420) * 1024 * 1024  # kB
    ctx.emit_kern(n, t - 0.01, "%s invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0" % ctx.rng.choice(["pt_data_worker", "python3", "pt_autograd_0"]))
    ctx.emit_kern(n, t - 0.009, "CPU: %d PID: %d Comm: python3 Tainted: P           OE     5.15.0-%d-generic #%d-Ubuntu" % (ctx.rng.randrange(224), pid + 7, ctx.rng.randrange(90, 130), ctx.rng.randrange(90, 140)))
    ctx.emit_kern(n, t - 0.002, "oom-kill:constraint=CONSTRAINT_%s,nodemask=(null),cpuset=%s,mems_allowed=0-1,global_oom,task_memcg=%s,task=python3,pid=%d,uid=%d" % (
        "NONE" if ctx.layout != "nemo_k8s" else "MEMCG", ctx.cgroup_name(n), ctx.cgroup_name(n), pid, ctx.uid))
    ctx.emit_kern(n, t, "Out of memory: Killed process %d (python3) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:%d pgtables:%dkB oom_score_adj:0" % (
        pid, rss + 90 * 1024 * 1024, rss, ctx.rng.randrange(100000, 900000), ctx.rng.randrange(1000000, 30000000), ctx.uid, rss // 900))
    ctx.evidence_pid = True
    ctx.exits[c] = (t, -9, "oom-killed")
    ctx.notes.append("host OOM killer killed pid %d (local rank %d) rss %.0f GiB (pinned checkpoint buffers / dataloader workers)" % (pid, ctx.lr(c), rss / 1048576.0))
    block_all(ctx, c, t)
    remote_errors(ctx, c, t, prob=0.5)
    emit_timeouts(ctx)


def sc_crash_signal(ctx, L):
    c = ctx.culprit
    n = ctx.node_of(c)
    t = fail_time(ctx)
    pid = ctx.pid[c]
    v = ctx.rng.choice(["segv", "segv", "bus"])
    if v == "segv":
        lib = ctx.rng.choice(["libtransformer_engine.so", "libnccl.so.2", "libtorch_cuda.so", "grouped_gemm_backend.cpython-310-x86_64-linux-gnu.so"])
        ip = ctx.rng.randrange(1 << 40)
        ctx.emit_kern(n, t, "python3[%d]: segfault at %x ip 00007f%010x sp 00007ff%09x error 4 in %s[7f%010x+%x] likely on CPU %d (core %d, socket %d)" % (
            pid + ctx.rng.randrange(1, 300), ctx.rng.choice([0, 8, 0x10, 0x28]), ip, ctx.rng.randrange(1 << 36), lib, ip & ~0xfffff, ctx.rng.randrange(0x100000, 0x4000000),
            ctx.rng.randrange(224), ctx.rng.randrange(56), ctx.rng.randrange(2)))
        ctx.emit_kern(n, t, "Code: %s" % " ".join(hexs(ctx.rng, 2) for _ in range(20)))
        fr = L.tb(ctx, c, ctx.rng.choice(["fwd", "bwd"]))
        lines = ["Fatal Python error: Segmentation fault", "", "Thread 0x%016x (most recent call first):" % ctx.rng.randrange(1 << 47),
                 '  File "%s/threading.py", line 331 in wait' % ctx.pystd, '  File "%s/threading.py", line 629 in wait' % ctx.pystd,
                 '  File "%s/threading.py", line 1045 in _bootstrap_inner' % ctx.pystd,
                 "", "Current thread 0x%016x (most recent call first):" % ctx.rng.randrange(1 << 47)]
        for p, ln, fn, code in reversed(fr):
            lines.append('  File "%s", line %d in %s' % (p, ln, fn))
        lines.append("")
        lines.append("Extension modules: numpy.core._multiarray_umath, numpy.core._multiarray_tests, torch._C, torch._C._fft, torch._C._linalg, torch._C._nested, torch._C._nn, torch._C._sparse, torch._C._special, transformer_engine_torch (total: %d)" % ctx.rng.randrange(40, 90))
        ctx.emit_lines(c, t, lines, "culprit", 0.0001)
        ctx.exits[c] = (t + 0.05, -11, "SIGSEGV")
        ctx.notes.append("SIGSEGV in %s" % lib)
    else:
        wpid = pid + ctx.rng.randrange(50, 900)
        lines = ["ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm)."] + \
            py_tb(L.tb(ctx, c, "data"), [
                "RuntimeError: DataLoader worker (pid %d) is killed by signal: Bus error. It is possible that dataloader's workers are out of shared memory. Please try to raise your shared memory limit." % wpid])
        ctx.emit_lines(c, t, lines, "culprit", 0.0001)
        ctx.emit_kern(n, t - 0.01, "pt_data_worker[%d]: potentially unexpected fatal signal 7." % wpid)
        ctx.exits[c] = (t + 1.5, 1, "exception (worker SIGBUS)")
        ctx.notes.append("DataLoader worker SIGBUS (/dev/shm exhausted)")
    block_all(ctx, c, t)
    remote_errors(ctx, c, ctx.exits[c][0], prob=0.4)
    emit_timeouts(ctx)


def sc_preemption(ctx, L):
    t = fail_time(ctx)
    ctx.sched_kill = t
    ctx.notes.append("scheduler preempted the job (SIGTERM to all ranks)")
    L.preempt(ctx, t)


def sc_hang(ctx, L):
    c = ctx.culprit
    t = fail_time(ctx)
    b_rel = {}
    block_all(ctx, c, t)
    ctx.notes.append("pipeline stage %d rank silently stops (python-level deadlock); its p2p/TP peers time out first" % ctx.topo.coords(c).get("pp", 0))
    L.hang_extra(ctx, c, t)
    emit_timeouts(ctx)


def sc_data_loader_stall(ctx, L):
    c = ctx.culprit
    n = ctx.node_of(c)
    t = fail_time(ctx)
    v = ctx.rng.choice(["timeout", "timeout", "silent"])
    fs = ctx.rng.choice(["lustre", "nfs", "weka"])
    if fs == "lustre":
        for k in range(3):
            ctx.emit_kern(n, t - 40 + 30 * k, "LustreError: 11-0: %s-OST%04x-osc-ffff%012x: operation ost_read to node %s@o2ib failed: rc = -107" % (
                ctx.fsname, ctx.rng.randrange(64), ctx.rng.randrange(1 << 44), "10.%d.%d.%d" % (ctx.rng.randrange(256), ctx.rng.randrange(256), ctx.rng.randrange(256))))
        ctx.emit_kern(n, t + 20, "Lustre: %s-OST%04x-osc-ffff%012x: Connection to %s-OST%04x (at 10.%d.%d.%d@o2ib) was lost; in progress operations using this service will wait for recovery to complete" % (
            ctx.fsname, 7, ctx.rng.randrange(1 << 44), ctx.fsname, 7, ctx.rng.randrange(256), ctx.rng.randrange(256), ctx.rng.randrange(256)))
    elif fs == "nfs":
        for k in range(3):
            ctx.emit_kern(n, t - 30 + 60 * k, "nfs: server %s not responding, still trying" % ctx.nfs_server)
    else:
        ctx.emit_kern(n, t - 10, "wekafsio: WekaFS: File system %s: IO timeout on frontend, retrying" % ctx.fsname)
    ctx.notes.append("data loading of one data-loading rank stalls (%s on %s)" % (fs, ctx.hosts[n]))
    block_all(ctx, c, t)
    if v == "timeout":
        td = t + ctx.dl_timeout
        if td < t + ctx.timeout_ms / 1000.0:
            lines = py_tb(L.tb(ctx, c, "data") + [
                (ctx.pylib + "/torch/utils/data/dataloader.py", 1285 if ctx.tv >= 4 else 1283, "_get_data", "success, data = self._try_get_data()"),
                (ctx.pylib + "/torch/utils/data/dataloader.py", 1146 if ctx.tv >= 4 else 1144, "_try_get_data", "raise RuntimeError(f'DataLoader timed out after {timeout} seconds') from e")],
                ["RuntimeError: DataLoader timed out after %d seconds" % ctx.dl_timeout])
            ctx.emit_lines(c, td, L.err_banner(ctx, c, td) + lines, "culprit", 0.0001)
            ctx.exits[c] = (td + 2.0, 1, "exception")
            ctx.notes.append("DataLoader(timeout=%d) raised on the stalled rank" % ctx.dl_timeout)
        else:
            v = "silent"
    if v == "silent":
        L.stall_extra(ctx, c, t)
    emit_timeouts(ctx)


def sc_collective_mismatch(ctx, L):
    c = ctx.culprit
    t = fail_time(ctx)
    L.mismatch(ctx, c, t)
    emit_timeouts(ctx)


def sc_straggler(ctx, L):
    c = ctx.culprit
    ctx.notes.append("rank persistently slower (GPU clock throttling / thermal); step time inflated")
    L.straggler(ctx, c)


def sc_unknown(ctx, L):
    t = fail_time(ctx)
    # every simulated rank is stuck in the same kind of collective; nobody reports a cause
    kind = L.main_kind(ctx)
    for r in sorted(ctx.sim):
        block(ctx, r, t + ctx.rng.uniform(0.0, 0.5), "dp")
        ctx.blocked[r]["kind"], ctx.blocked[r]["op"] = L.ops(ctx, r, "dp")[:2]
    ctx.notes.append("all visible ranks time out in the same collective; nothing identifies an initiator")
    emit_timeouts(ctx)


SCENARIOS = {"gpu_hardware": sc_gpu_hardware, "ecc_memory": sc_ecc_memory, "nvlink": sc_nvlink,
             "network": sc_network, "cuda_oom": sc_cuda_oom, "illegal_memory_access": sc_illegal_memory_access,
             "python_exception": sc_python_exception, "host_oom_kill": sc_host_oom_kill,
             "crash_signal": sc_crash_signal, "preemption": sc_preemption, "hang": sc_hang,
             "data_loader_stall": sc_data_loader_stall, "collective_mismatch": sc_collective_mismatch,
             "straggler": sc_straggler, "unknown": sc_unknown}


def choose_culprit(ctx):
    """pick the initiating rank for the cause, respecting parallel-layout realism."""
    rng, topo, W = ctx.rng, ctx.topo, ctx.W
    cause = ctx.cause
    PP = topo.sizes.get("pp", 1)
    if cause in (None, "preemption", "unknown"):
        return None
    if cause == "network":
        if rng.random() < 0.75:
            ctx.culprit_node = rng.randrange(ctx.nnodes)
        return None
    if cause == "cuda_oom" and PP > 1 and rng.random() < 0.8:
        c = dict(topo.coords(rng.randrange(W)))
        c["pp"] = PP - 1
        return topo.rank(c)
    if cause == "data_loader_stall":
        c = dict(topo.coords(rng.randrange(W)))
        if "tp" in c:
            c["tp"] = 0
        if PP > 1:
            c["pp"] = rng.choice([0, PP - 1])
        if "cp" in c:
            c["cp"] = 0
        return topo.rank(c)
    if cause == "collective_mismatch" and topo.ep > 1:
        return rng.randrange(W)
    if cause == "hang" and PP > 1:
        c = dict(topo.coords(rng.randrange(W)))
        c["pp"] = rng.randrange(1, PP) if PP > 2 else rng.randrange(PP)
        return topo.rank(c)
    r = rng.randrange(W)
    if rng.random() < 0.15:
        r = 0 if cause in ("python_exception", "host_oom_kill") else r
    return r


# --------------------------------------------------------------------------
# shared job setup
# --------------------------------------------------------------------------
NGC = [  # (torch minor, torch string, nccl, cuda, driver)
    (1, "2.1.0a0+32f93b1", "2.18.5", "12.2", 12020),
    (2, "2.2.0a0+81ea7a4", "2.19.4", "12.3", 12030),
    (3, "2.3.0a0+40ec155e58.nv24.03", "2.20.5", "12.4", 12040),
    (4, "2.4.0a0+f70bd71a48.nv24.06", "2.21.5", "12.5", 12050),
    (4, "2.4.0a0+3bcc3cddb5.nv24.07", "2.22.3", "12.5", 12050),
    (5, "2.5.0a0+e000cf0ad9.nv24.10", "2.23.4", "12.6", 12060),
    (6, "2.6.0a0+ecf3bae40a.nv25.01", "2.25.1", "12.8", 12080),
    (7, "2.7.0a0+7c8ec84dab.nv25.03", "2.26.2", "12.8", 12080),
    (8, "2.8.0a0+5228986c39.nv25.06", "2.27.3", "12.9", 12090),
]
PIP = [  # pip wheels: torch minor, version, bundled nccl, cuda
    (1, "2.1.2", "2.18.1", "12.1", 12020),
    (2, "2.2.2", "2.19.3", "12.1", 12020),
    (3, "2.3.1", "2.20.5", "12.1", 12040),
    (4, "2.4.1", "2.20.5", "12.4", 12040),
    (5, "2.5.1", "2.21.5", "12.4", 12060),
    (6, "2.6.0", "2.21.5", "12.4", 12060),
    (7, "2.7.1", "2.26.2", "12.6", 12080),
    (8, "2.8.0", "2.27.3", "12.8", 12080),
    (9, "2.9.0", "2.27.5", "12.8", 12090),
]
GPUS = [("NVIDIA H100 80GB HBM3", 79.11, BUSIDS_H100), ("NVIDIA A100-SXM4-80GB", 79.15, BUSIDS_A100),
        ("NVIDIA H200", 139.72, BUSIDS_H100)]
TZS = [("UTC", 0, "+00:00"), ("PDT", -7, "-07:00"), ("CEST", 2, "+02:00"), ("CST", 8, "+08:00"),
       ("EDT", -4, "-04:00"), ("KST", 9, "+09:00"), ("PST", -8, "-08:00")]


def base_setup(ctx, nnodes, stack, tv_min=1, tv_max=9, gpu_w=(6, 3, 2)):
    rng = ctx.rng
    ctx.nnodes = nnodes
    ctx.W = nnodes * GPN
    pool = NGC if stack == "ngc" else PIP
    pool = [p for p in pool if tv_min <= p[0] <= tv_max]
    ctx.tv, ctx.torch_ver, ctx.nccl, ctx.cuda, ctx.cuda_drv = rng.choice(pool)
    ctx.nv = nccl_tuple(ctx.nccl)
    g = rng.choices(GPUS, weights=gpu_w)[0]
    ctx.gpu_model, ctx.gpu_mem, ctx.busids = g
    ctx.n_hca = 8 if "H" in ctx.gpu_model.split()[1][:1] or rng.random() < 0.5 else 4
    ctx.hca_pci = ["%02x" % x for x in ([0x0c, 0x1f, 0x2d, 0x4e, 0x8c, 0x9f, 0xbd, 0xce][:ctx.n_hca] if ctx.n_hca == 8 else [0x0c, 0x4e, 0x8c, 0xbd])]
    ctx.ib_kind = rng.choice(["IB", "IB", "RoCE"])
    ctx.oob_if = rng.choice(["eth0", "bond0", "enp86s0f0", "ens21f0np0"])
    ctx.net_plugin_line = rng.choice(["NET/Plugin: No plugin found (libnccl-net.so)",
                                      "Plugin Path : /opt/hpcx/nccl_rdma_sharp_plugin/lib/libnccl-net.so",
                                      "NET/Plugin: Plugin load returned 2 : libnccl-net.so: cannot open shared object file: No such file or directory : when loading libnccl-net.so"])
    year = rng.choice([2024, 2025])
    month = rng.randrange(1, 13) if year == 2024 else rng.randrange(1, 10)
    ctx.T0 = dt.datetime(year, month, rng.randrange(1, 28), rng.randrange(0, 24), rng.randrange(60), rng.randrange(60), rng.randrange(10 ** 6))
    ctx.tz_host = rng.choice(TZS)
    ctx.tz_host_iso = ctx.tz_host[2]
    ctx.tz_cont = ctx.tz_host if rng.random() < 0.5 else TZS[0]
    ctx.skew = {}
    for n in range(nnodes):
        ctx.skew[n] = rng.uniform(-0.4, 0.4)
    if nnodes > 2 and rng.random() < 0.5:
        ctx.skewed_node = rng.randrange(nnodes)
        ctx.skew[ctx.skewed_node] = rng.choice([-1, 1]) * rng.uniform(4, 95)
        ctx.notes.append("clock skew %.1fs on node index %d" % (ctx.skew[ctx.skewed_node], ctx.skewed_node))
    ctx.boot_uptime = {n: rng.uniform(3000, 3.0e6) for n in range(nnodes)}
    ctx.pid = {}
    ctx.agent_pid = {}
    small = stack == "k8s"
    for n in range(nnodes):
        base = rng.randrange(60, 400) if small else rng.randrange(20000, 3900000)
        ctx.agent_pid[n] = base
        p = base + rng.randrange(8, 40)
        for l in range(GPN):
            p += rng.choice([1, 1, 1, 2, 3])
            ctx.pid[n * GPN + l] = p
    pyv = rng.choice(["3.10", "3.10", "3.12", "3.11"]) if stack != "ngc" else ("3.10" if ctx.tv <= 5 else "3.12")
    if stack == "ngc":
        ctx.pylib = "/usr/local/lib/python%s/dist-packages" % pyv
        ctx.pystd = "/usr/lib/python%s" % pyv
        ctx.torchrun_bin = "/usr/local/bin/torchrun"
    else:
        root = rng.choice(["/opt/conda", "/home/%s/miniforge3/envs/train" % rng.choice(["ml", "svc-train", "jdoe"]), "/fsx/envs/py%s" % pyv.replace(".", "")])
        ctx.pylib = "%s/lib/python%s/site-packages" % (root, pyv)
        ctx.pystd = "%s/lib/python%s" % (root, pyv)
        ctx.torchrun_bin = "%s/bin/torchrun" % root
    ctx.pyv = pyv
    ctx.uid = rng.choice([1000, 1001, 0, 10342, 5021])
    ctx.proc_name = rng.choice(["python3", "python", "pt_main_thread"])
    ctx.data_root = rng.choice(["/lustre/fsw/data", "/mnt/weka/datasets", "/fsx/data/tokenized", "/gpfs/datasets/llm"])
    ctx.fsname = rng.choice(["fsw", "scratch", "lustre01", "data"])
    ctx.nfs_server = rng.choice(["nas01", "10.20.0.5", "fs-data-02"])
    ctx.dl_timeout = rng.choice([300, 600, 1200, 3600])
    ctx.seq_base = {k: rng.randrange(2000, 90000) for k in ("tp", "pp", "dp", "cp", "ep", "world", "mp", "pp_pair")}
    ctx.sched_kill = None
    ctx.global_kill = None
    ctx.evidence_bus = False
    ctx.evidence_pid = False
    ctx.nccl_debug = "WARN"
    ctx.script = "train.py"


def default_aliases(ctx, n, fqdn_suffix):
    return [ctx.hosts[n] + fqdn_suffix, ctx.ips[n]]


def mk_ips(ctx, nnodes):
    rng = ctx.rng
    a, b = rng.choice([(10, rng.randrange(0, 255)), (172, rng.randrange(16, 31)), (192, 168)])
    start = rng.randrange(2, 120)
    ips = []
    for n in range(nnodes):
        k = start + n * rng.choice([1, 1, 1, 2])
        ips.append("%d.%d.%d.%d" % (a, b, (k // 250) + rng.choice([0, 0, 1]) * 0, k % 250 + 2))
    return ips


class Layout:
    name = "base"
    stack = "base"
    policy = {"mode": "agent", "global": 5.0}

    # ---------------- hooks with generic defaults ----------------
    def main_kind(self, ctx):
        return "dp"

    def hidden(self, ctx):
        return ctx.hidden

    def ops(self, ctx, r, rel):
        S = ctx.seqlen * ctx.mbs
        H = ctx.hidden
        tp = ctx.topo.sizes.get("tp", 1)
        dp = ctx.topo.sizes.get("dp", 1)
        if rel == "tp" and tp > 1:
            if ctx.seqpar:
                return "tp", ctx.rng.choice(["_ALLGATHER_BASE", "_REDUCE_SCATTER_BASE"]), S * H // tp, S * H if ctx.rng.random() < 0.5 else S * H // tp
            return "tp", "ALLREDUCE", S * H, S * H
        if rel == "cp" and ctx.topo.sizes.get("cp", 1) > 1:
            return "cp", "_ALLGATHER_BASE", S * 1024 // ctx.topo.sizes["cp"], S * 1024
        if rel == "ep" and ctx.topo.ep > 1:
            n = ctx.rng.randrange(S * H // 3, S * H)
            return "ep", "ALLTOALL_BASE", n, n + ctx.rng.randrange(-4096, 4096) * H // 64
        if rel in ("pp", "ppfar", "other") and ctx.topo.sizes.get("pp", 1) > 1:
            op = ctx.rng.choice(["SEND", "RECV"])
            n = S * H // (tp if ctx.seqpar else 1)
            return "pp", op, n, n
        if dp > 1:
            b = ctx.bucket
            if ctx.dist_opt:
                return "dp", "_REDUCE_SCATTER_BASE", b, b // dp
            return "dp", "ALLREDUCE", b, b
        if tp > 1:
            return "tp", "ALLREDUCE", S * H, S * H
        return "world", "ALLREDUCE", 1, 1

    def err_banner(self, ctx, r, t):
        return []

    def preempt(self, ctx, t):
        pass

    def hang_extra(self, ctx, c, t):
        pass

    def stall_extra(self, ctx, c, t):
        pass

    def mismatch(self, ctx, c, t):
        generic_mismatch(ctx, self, c, t)

    def straggler(self, ctx, c):
        pass


def generic_mismatch(ctx, L, c, t):
    """collective mismatch: EP all-to-all split sizes (MoE) or a diverging collective on one rank."""
    topo = ctx.topo
    if topo.ep > 1:
        kind = "ep"
        members = topo.group("ep", c)
        S, H = ctx.seqlen * ctx.mbs, ctx.hidden
        base_in = ctx.rng.randrange(S * H // 2, S * H * 2) // H * H
        v = ctx.rng.choice(["detail", "numel", "splits"])
        seq = group_seq(ctx, kind, c)
        g_c = members.index(c)
        ctx.notes.append("expert-parallel all-to-all with mismatched split sizes; EP group %s, culprit is EP-rank %d" % (members, g_c))
        if v == "detail":
            ctx.notes.append("TORCH_DISTRIBUTED_DEBUG=DETAIL fingerprint mismatch names the odd EP-group rank")
            good = base_in // H
            bad = good - ctx.rng.randrange(64, 2048)
            for r in members:
                if r == c or r not in ctx.sim:
                    continue
                g = members.index(r)
                fp = "CollectiveFingerPrint(SequenceNumber=%d, OpType=ALLTOALL_BASE, TensorShape=[%%d, %d], TensorDtypes=BFloat16, TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt)))" % (seq, H)
                msg = ["RuntimeError: Detected mismatch between collectives on ranks. Rank %d is running collective: %s, but Rank %d is running collective: %s.Collectives differ in the following aspects: \t Tensor Tensor shapes: %dvs%d" % (
                    g, fp % good, g_c, fp % bad, good, bad)]
                tr = t + ctx.rng.uniform(0.01, 0.3)
                ctx.emit_lines(r, tr, py_tb(L.tb(ctx, r, "a2a"), msg), "mismatch_report", 0.0001)
                ctx.exits[r] = (tr + 1.0, 1, "exception")
            tr = t + ctx.rng.uniform(0.01, 0.3)
            fpc = "CollectiveFingerPrint(SequenceNumber=%d, OpType=ALLTOALL_BASE, TensorShape=[%%d, %d], TensorDtypes=BFloat16, TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt)))" % (seq, H)
            other = [x for x in members if x != c][0]
            msg = ["RuntimeError: Detected mismatch between collectives on ranks. Rank %d is running collective: %s, but Rank %d is running collective: %s.Collectives differ in the following aspects: \t Tensor Tensor shapes: %dvs%d" % (
                g_c, fpc % bad, members.index(other), fpc % good, bad, good)]
            ctx.emit_lines(c, tr, py_tb(L.tb(ctx, c, "a2a"), msg), "culprit_weak", 0.0001)
            ctx.exits[c] = (tr + 1.0, 1, "exception")
            ctx.mismatch_group_rank = g_c
            block_all(ctx, c, t, exclude=set(members))
        elif v == "numel":
            ctx.notes.append("no debug mode: the EP group hangs in ALLTOALL_BASE; the culprit's WorkNCCL NumelIn/NumelOut differ from its peers")
            for r in members:
                if r not in ctx.sim:
                    continue
                nin = base_in
                nout = base_in + (ctx.rng.randrange(-8, 8) * H)
                if r == c:
                    nin = base_in - ctx.rng.randrange(16, 512) * H
                    nout = nin + ctx.rng.randrange(-900, -20) * H
                ctx.blocked[r] = dict(t=t + ctx.rng.uniform(0, 0.2), kind=kind, op="ALLTOALL_BASE", nin=nin, nout=nout, seq=seq, rel="ep")
            ctx.mismatch_group_rank = g_c
            block_all(ctx, c, t, exclude=set(members))
        else:
            ctx.notes.append("token dispatcher computed split sizes on one EP rank that do not sum to its input; it raises, peers hang in all-to-all")
            msg = ["RuntimeError: Split sizes doesn't match total dim 0 size"]
            ctx.emit_lines(c, t, L.err_banner(ctx, c, t) + py_tb(L.tb(ctx, c, "a2a"), msg), "culprit", 0.0001)
            ctx.exits[c] = (t + 1.2, 1, "exception")
            for r in members:
                if r != c and r in ctx.sim:
                    ctx.blocked[r] = dict(t=t + ctx.rng.uniform(0, 0.2), kind=kind, op="ALLTOALL_BASE", nin=base_in, nout=base_in, seq=seq, rel="ep")
            block_all(ctx, c, t, exclude=set(members))
        return
    # no expert parallelism: one rank enters a different collective (e.g. skipped a grad-norm all-reduce)
    kind = "dp" if topo.sizes.get("dp", 1) > 1 else "tp"
    members = topo.group(kind, c)
    seq = group_seq(ctx, kind, c)
    g_c = members.index(c)
    ctx.mismatch_group_rank = g_c
    H = ctx.hidden
    if ctx.rng.random() < 0.5:
        ctx.notes.append("TORCH_DISTRIBUTED_DEBUG=DETAIL: one %s-group rank runs ALLREDUCE while peers run _REDUCE_SCATTER_BASE" % kind)
        for r in members:
            if r not in ctx.sim:
                continue
            g = members.index(r)
            mine = ("ALLREDUCE", "[1]", "Float") if r == c else ("_REDUCE_SCATTER_BASE", "[%d]" % ctx.bucket, "BFloat16")
            theirs = ("_REDUCE_SCATTER_BASE", "[%d]" % ctx.bucket, "BFloat16") if r == c else ("ALLREDUCE", "[1]", "Float")
            other_g = g_c if r != c else members.index([x for x in members if x != c][0])
            fp = "CollectiveFingerPrint(SequenceNumber=%d, OpType=%s, TensorShape=%s, TensorDtypes=%s, TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt)))"
            msg = ["RuntimeError: Detected mismatch between collectives on ranks. Rank %d is running collective: %s, but Rank %d is running collective: %s.Collectives differ in the following aspects: \t Op type: %svs%s\t Tensor Tensor shapes: %svs%s\t Tensor Tensor dtypes: %svs%s" % (
                g, fp % ((seq,) + mine), other_g, fp % ((seq,) + theirs), mine[0], theirs[0], mine[1], theirs[1], mine[2], theirs[2])]
            tr = t + ctx.rng.uniform(0.01, 0.3)
            ctx.emit_lines(r, tr, py_tb(L.tb(ctx, r, "optim"), msg), "culprit_weak" if r == c else "mismatch_report", 0.0001)
            ctx.exits[r] = (tr + 1.0, 1, "exception")
        block_all(ctx, c, t, exclude=set(members))
    else:
        ctx.notes.append("one %s-group rank skipped a collective (found inf in grads locally); its peers' SeqNum is ahead, all hang" % kind)
        for r in members:
            if r not in ctx.sim:
                continue
            if r == c:
                ctx.blocked[r] = dict(t=t + 0.1, kind=kind, op="_REDUCE_SCATTER_BASE", nin=ctx.bucket, nout=ctx.bucket // len(members), seq=seq + 1, rel="self")
            else:
                ctx.blocked[r] = dict(t=t + ctx.rng.uniform(0, 0.3), kind=kind, op="ALLREDUCE", nin=1, nout=1, seq=seq, rel=kind)
        block_all(ctx, c, t, exclude=set(members))


DRIVERS = ["535.161.08", "550.90.07", "550.127.05", "560.35.03", "570.124.06"]


def boot_kern(ctx, n):
    """a few boot-time kernel lines (before the job), then light background noise."""
    rng = random.Random("%s|boot|%s|%d|%d" % (NAME, ctx.seed, ctx.idx, n))
    up = ctx.boot_uptime.get(n, 100000.0)
    t0 = -up
    drv = DRIVERS[(ctx.idx + ctx.tv) % len(DRIVERS)]
    L = [(t0 + 4.1, "nvidia: module license 'NVIDIA' taints kernel."),
         (t0 + 4.3, "nvidia-nvlink: Nvlink Core is being initialized, major device number %d" % rng.choice([234, 235, 236, 508])),
         (t0 + 4.9, "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  %s  %s" % (drv, rng.choice(["Thu Jun 27 16:26:48 UTC 2024", "Tue Nov  5 18:48:22 UTC 2024", "Wed Feb 26 22:11:38 UTC 2025"]))),
         (t0 + 6.2, "mlx5_core 0000:%s:00.0: firmware version: %s" % (ctx.hca_pci[0], rng.choice(["28.39.1002", "28.41.1000", "20.40.1000"])))]
    for k in range(min(ctx.n_hca, 3)):
        L.append((t0 + 9.0 + k * 0.1, "mlx5_core 0000:%s:00.0 %s: Link up" % (ctx.hca_pci[k], ctx.netdev(k))))
    L.append((t0 + 30.5, "nvidia-peermem: loading out-of-tree module taints kernel."))
    if rng.random() < 0.6:
        L.append((-rng.uniform(3600, 80000), "EDAC MC0: 1 CE memory read error on CPU_SrcID#0_MC#0_Chan#%d_DIMM#0 (channel:%d slot:0 page:0x%x offset:0x0 grain:32 syndrome:0x0)" % (rng.randrange(4), rng.randrange(4), rng.randrange(1 << 20))))
    if rng.random() < 0.5:
        L.append((-rng.uniform(60, 900), "audit: type=1400 audit(%d.%03d:%d): apparmor=\"DENIED\" operation=\"open\" class=\"file\" profile=\"snap.lxd.activate\" name=\"/proc/%d/mounts\"" % (
            1.7e9 + rng.randrange(10 ** 7), rng.randrange(1000), rng.randrange(100, 999), rng.randrange(1000, 9999))))
    L.append((rng.uniform(1, 60), "%s: %s" % (rng.choice(["IPv6", "bond0"]), rng.choice(["ADDRCONF(NETDEV_CHANGE): veth%s: link becomes ready" % hexs(rng, 7), "active interface up!"]))))
    return sorted(L)


Ctx.boot_kern = boot_kern


# --------------------------------------------------------------------------
# rendering helpers
# --------------------------------------------------------------------------
def merged(ctx, ranks, prefix_fn, extra=(), culprit_attr=None, filename=None, filt=None):
    """merge rank streams (+extra (t, line)) by time.  culprit_attr(r) -> attribution kind
    for lines of the culprit ('global', 'local', 'none'); records evidence."""
    items = []
    for r in ranks:
        for t, line, tag in ctx.out.get(r, []):
            if filt is not None and not filt(r, line):
                continue
            items.append((t, r, line, tag))
    for i, (t, line) in enumerate(extra):
        items.append((t, 10 ** 9 + i, line, None))
    items.sort(key=lambda x: (round(x[0], 4), x[1]))
    out = []
    for t, r, line, tag in items:
        if r >= 10 ** 9:
            out.append(line)
            continue
        out.append(prefix_fn(r) + line)
        if tag in ("culprit", "culprit_weak") and r == ctx.culprit and culprit_attr:
            a = culprit_attr(r, line, tag)
            if a:
                ctx.ev("%s:%s" % (filename or "log", a), out[-1], filename)
        elif tag == "collateral" and culprit_attr and "Watchdog caught" in line:
            a = culprit_attr(r, line, tag)
            if a and (a.startswith("global") or a.startswith("per-task")):
                ctx.reported_global.add(r)
    return out


def sig_word(code):
    return {-6: "Aborted (core dumped)", -9: "Killed", -11: "Segmentation fault (core dumped)", -15: "Terminated",
            -7: "Bus error (core dumped)"}.get(code, "Exited with exit code %d" % code)


def slurm_ts(ctx, t, n=0):
    return ctx.dtm(n, t, "h").strftime("%Y-%m-%dT%H:%M:%S")


def srun_tail(ctx, first_node_name):
    """srun / slurmstepd lines after resolve() for one-task-per-GPU srun launches."""
    L = []
    fin = ctx.final
    if not fin:
        return L
    natural = [(v[0], r, v) for r, v in fin.items() if v[2] != "killed"]
    natural.sort()
    if ctx.sched_kill is not None and (not natural or natural[0][0] > ctx.sched_kill):
        return L
    if not natural:
        return L
    t0, r0, v0 = natural[0]
    if v0[1] == -9 and ctx.cause == "host_oom_kill":
        L.append((t0 + 0.5, "slurmstepd: error: Detected 1 oom_kill event in StepId=%s.0. Some of the step tasks have been OOM Killed." % ctx.jobid))
        L.append((t0 + 0.6, "srun: error: %s: task %d: Out Of Memory" % (ctx.hosts[ctx.node_of(r0)], r0)))
    else:
        L.append((t0 + 0.2, "srun: error: %s: task %d: %s" % (ctx.hosts[ctx.node_of(r0)], r0, sig_word(v0[1]))))
    if r0 == ctx.culprit:
        ctx.ev("srun:task-exit", L[-1][1])
    tk = ctx.global_kill or (t0 + 1.0)
    L.append((tk - 0.1, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish."))
    L.append((tk, "slurmstepd: error: *** STEP %s.0 ON %s CANCELLED AT %s ***" % (ctx.jobid, first_node_name, slurm_ts(ctx, tk))))
    others = [x for x in natural[1:] if x[0] <= tk + 0.5]
    for tt, r, v in others[:6]:
        L.append((tt + 0.2, "srun: error: %s: task %d: %s" % (ctx.hosts[ctx.node_of(r)], r, sig_word(v[1]))))
    done = set([r0] + [x[1] for x in others[:6]])
    for n in range(ctx.nnodes):
        rs = [r for r in ctx.ranks_on(n) if r not in done]
        if rs:
            L.append((tk + 0.5 + 0.001 * n, "srun: error: %s: task%s %s: Terminated" % (ctx.hosts[n], "s" if len(rs) > 1 else "", compress_ranges(rs))))
    L.append((tk + 0.9, "srun: Terminating StepId=%s.0" % ctx.jobid))
    return L


def sacct_text(ctx, jobname, state, exitcode, t_end, part, extra_steps=()):
    hdr = "JobID           JobName  Partition      State ExitCode    Elapsed        NodeList \n------------ ---------- ---------- ---------- -------- ---------- --------------- "
    el = int(max(1, t_end))
    e = "%02d:%02d:%02d" % (el // 3600, (el % 3600) // 60, el % 60)
    if el >= 86400:
        e = "%d-%02d:%02d:%02d" % (el // 86400, (el % 86400) // 3600, (el % 3600) // 60, el % 60)
    nl = slurm_nodelist(ctx.hosts)
    nl_s = nl if len(nl) <= 15 else nl[:14] + "+"
    rows = [hdr, "%-12s %10s %10s %10s %8s %10s %15s " % (ctx.jobid, jobname[:10], part[:10], state[:10], exitcode, e, nl_s),
            "%-12s %10s %10s %10s %8s %10s %15s " % (ctx.jobid + ".batch", "batch", "", state[:10] if state != "PREEMPTED" else "CANCELLED", exitcode if state != "COMPLETED" else "0:0", e, ctx.hosts[0][:15]),
            "%-12s %10s %10s %10s %8s %10s %15s " % (ctx.jobid + ".extern", "extern", "", "COMPLETED", "0:0", e, nl_s)]
    for s in extra_steps:
        rows.append(s)
    return "\n".join(rows) + "\n"


def mg_frames(ctx, where):
    M = ctx.mroot
    P = ctx.pylib
    sch = "%s/megatron/core/pipeline_parallel/schedules.py" % M
    pp = ctx.topo.sizes.get("pp", 1) > 1
    top = [("%s/pretrain_gpt.py" % M, 301, "<module>", "pretrain("),
           ("%s/megatron/training/training.py" % M, 386, "pretrain", "iteration, num_floating_point_operations_so_far = train("),
           ("%s/megatron/training/training.py" % M, 1421, "train", "train_step(forward_step_func,")]
    if where == "ckpt":
        return top[:2] + [("%s/megatron/training/training.py" % M, 1510, "train", "save_checkpoint_and_time(iteration, model, optimizer,"),
                          ("%s/megatron/training/training.py" % M, 1152, "save_checkpoint_and_time", "save_checkpoint(iteration, model, optimizer, opt_param_scheduler,"),
                          ("%s/megatron/training/checkpointing.py" % M, 410, "save_checkpoint", "async_save_request = dist_checkpointing.save(state_dict, checkpoint_name, save_strategy,"),
                          ("%s/megatron/core/dist_checkpointing/serialization.py" % M, 394, "save", "sharded_strategy.save(sharded_state_dict, checkpoint_dir)"),
                          ("%s/megatron/core/dist_checkpointing/strategies/torch.py" % M, 639, "save", "write_results = torch.distributed.checkpoint.save_state_dict("),
                          (P + "/torch/distributed/checkpoint/filesystem.py", 519, "write_data", "_write_item(stream, data, write_item, storage_key)")]
    base = top + [("%s/megatron/training/training.py" % M, 754, "train_step", "losses_reduced = forward_backward_func(")]
    if where == "optim":
        return top + [("%s/megatron/training/training.py" % M, 775, "train_step", "update_successful, grad_norm, num_zeros_in_grad = optimizer.step()"),
                      (P + "/torch/utils/_contextlib.py", 116, "decorate_context", "return func(*args, **kwargs)"),
                      ("%s/megatron/core/optimizer/distrib_optimizer.py" % M, 1741, "step", "update_successful, grad_norm, num_zeros_in_grad = super().step()"),
                      ("%s/megatron/core/optimizer/optimizer.py" % M, 477, "step", "found_inf_flag = self.prepare_grads()"),
                      ("%s/megatron/core/optimizer/optimizer.py" % M, 396, "prepare_grads", "self._copy_model_grads_to_main_grads()"),
                      ("%s/megatron/core/optimizer/distrib_optimizer.py" % M, 1650, "_copy_model_grads_to_main_grads", "shard_main_param.grad = shard_model_grad.float()")]
    fb = ("forward_backward_pipelining_without_interleaving" if pp else "forward_backward_no_pipelining")
    base.append((sch, 1452 if pp else 455, fb, "output_tensor, num_tokens = forward_step(" if where != "bwd" else "input_tensor_grad = backward_step("))
    if where == "p2p":
        return base[:-1] + [(sch, 1417, fb, "input_tensor = recv_forward(recv_tensor_shapes, config)"),
                            (sch, 1279, "recv_forward", "input_tensors.append(p2p_communication.recv_forward(tensor_shape, config))"),
                            ("%s/megatron/core/pipeline_parallel/p2p_communication.py" % M, 385, "recv_forward", "input_tensor, _, _ = _communicate("),
                            ("%s/megatron/core/pipeline_parallel/p2p_communication.py" % M, 334, "_communicate", "reqs = p2p_func("),
                            ("%s/megatron/core/pipeline_parallel/p2p_communication.py" % M, 173, "_batched_p2p_ops", "reqs = torch.distributed.batch_isend_irecv(ops)")]
    if where == "bwd":
        return base + [(sch, 396, "backward_step", "custom_backward(output_tensor[0], output_tensor_grad[0])"),
                       (sch, 155, "custom_backward", "Variable._execution_engine.run_backward("),
                       (P + "/torch/autograd/function.py", 307, "apply", "return user_fn(self, *args)"),
                       ("%s/megatron/core/tensor_parallel/layers.py" % M, 587, "backward", "grad_input = grad_output.matmul(weight)")]
    base.append((sch, 275, "forward_step", "output_tensor, loss_func = forward_step_func(data_iterator, model)"))
    if where == "data":
        return base + [("%s/pretrain_gpt.py" % M, 198, "forward_step", "tokens, labels, loss_mask, attention_mask, position_ids = get_batch("),
                       ("%s/pretrain_gpt.py" % M, 112, "get_batch", "batch = get_batch_on_this_tp_rank(data_iterator)"),
                       ("%s/megatron/training/utils.py" % M, 298, "get_batch_on_this_tp_rank", "data = next(data_iterator)"),
                       (P + "/torch/utils/data/dataloader.py", 701 if ctx.tv >= 4 else 631, "__next__", "data = self._next_data()"),
                       (P + "/torch/utils/data/dataloader.py", 1448 if ctx.tv >= 4 else 1329, "_next_data", "idx, data = self._get_data()")] if ctx.cause != "python_exception" else \
            base + [("%s/pretrain_gpt.py" % M, 198, "forward_step", "tokens, labels, loss_mask, attention_mask, position_ids = get_batch("),
                    ("%s/megatron/training/utils.py" % M, 298, "get_batch_on_this_tp_rank", "data = next(data_iterator)"),
                    ("%s/megatron/core/datasets/gpt_dataset.py" % M, 189, "__getitem__", "text, _ = self._query_document_sample_shuffle_indices(idx)"),
                    ("%s/megatron/core/datasets/gpt_dataset.py" % M, 280, "_query_document_sample_shuffle_indices", "self.dataset.get("),
                    ("%s/megatron/core/datasets/indexed_dataset.py" % M, 740, "get", "sequence_pointer, sequence_length, sequence_mode = self.index[idx]")]
    base += [("%s/pretrain_gpt.py" % M, 205, "forward_step", "output_tensor = model(tokens, position_ids, attention_mask,")] + mod_frames(ctx) + \
        [("%s/megatron/core/distributed/data_parallel_base.py" % M, 22, "forward", "return self.module(*inputs, **kwargs)")] + mod_frames(ctx) + \
        [("%s/megatron/legacy/model/module.py" % M if ctx.tv < 4 else "%s/megatron/core/transformer/module.py" % M, 189, "forward", "outputs = self.module(*inputs, **kwargs)")] + mod_frames(ctx)
    gm = "%s/megatron/core/models/gpt/gpt_model.py" % M
    if where == "loss":
        return base + [(gm, 275, "forward", "logits, _ = self.output_layer("),
                       ] + mod_frames(ctx) + [("%s/megatron/core/tensor_parallel/layers.py" % M, 1001, "forward", "output_parallel = self._forward_impl("),
                                              ("%s/megatron/core/tensor_parallel/layers.py" % M, 684, "linear_with_grad_accumulation_and_async_allreduce", "return LinearWithGradAccumulationAndAsyncCommunication.apply(*args)"),
                                              (P + "/torch/autograd/function.py", 575, "apply", "return super().apply(*args, **kwargs)  # type: ignore[misc]"),
                                              ("%s/megatron/core/tensor_parallel/layers.py" % M, 441, "forward", "output = torch.matmul(total_input, weight.t())")] \
            if ctx.rng.random() < 0.5 else base + [(gm, 290, "forward", "loss = self.compute_language_model_loss(labels, logits)"),
                                                   ("%s/megatron/core/models/common/language_module/language_module.py" % M, 59, "compute_language_model_loss", "loss = tensor_parallel.vocab_parallel_cross_entropy(logits, labels)"),
                                                   ("%s/megatron/core/tensor_parallel/cross_entropy.py" % M, 232, "vocab_parallel_cross_entropy", "return _VocabParallelCrossEntropy.apply(vocab_parallel_logits, target, label_smoothing)"),
                                                   (P + "/torch/autograd/function.py", 575, "apply", "return super().apply(*args, **kwargs)  # type: ignore[misc]"),
                                                   ("%s/megatron/core/tensor_parallel/cross_entropy.py" % M, 144, "forward", "vocab_parallel_logits, logits_max = VocabParallelCrossEntropy.calculate_logits_max("),
                                                   ("%s/megatron/core/tensor_parallel/cross_entropy.py" % M, 27, "calculate_logits_max", "vocab_parallel_logits = vocab_parallel_logits.float()")]
    blk = [(gm, 259, "forward", "hidden_states = self.decoder("), ] + mod_frames(ctx) + [
        ("%s/megatron/core/transformer/transformer_block.py" % M, 549, "forward", "hidden_states, context = layer("), ] + mod_frames(ctx)
    if where == "a2a":
        return base + blk + [("%s/megatron/core/transformer/transformer_layer.py" % M, 424, "forward", "mlp_output_with_bias = self.mlp(pre_mlp_layernorm_output)")] + mod_frames(ctx) + [
            ("%s/megatron/core/transformer/moe/moe_layer.py" % M, 144, "forward", "output, mlp_bias = custom_forward(hidden_states)"),
            ("%s/megatron/core/transformer/moe/moe_layer.py" % M, 128, "custom_forward", "(dispatched_input, tokens_per_expert) = self.token_dispatcher.token_permutation("),
            ("%s/megatron/core/transformer/moe/token_dispatcher.py" % M, 548, "token_permutation", "global_input_tokens = all_to_all("),
            ("%s/megatron/core/tensor_parallel/mappings.py" % M, 470, "all_to_all", "return _AllToAll.apply(group, input_, output_split_sizes_, input_split_sizes)"),
            (P + "/torch/autograd/function.py", 575, "apply", "return super().apply(*args, **kwargs)  # type: ignore[misc]"),
            ("%s/megatron/core/tensor_parallel/mappings.py" % M, 384, "forward", "torch.distributed.all_to_all_single("),
            (P + "/torch/distributed/c10d_logger.py", 83, "wrapper", "return func(*args, **kwargs)"),
            (P + "/torch/distributed/distributed_c10d.py", 4388 if ctx.tv >= 5 else 3883, "all_to_all_single", "work = group.alltoall_base(")]
    if where == "attn":
        return base + blk + [("%s/megatron/core/transformer/transformer_layer.py" % M, 378, "forward", "attention_output_with_bias = self.self_attention("), ] + mod_frames(ctx) + [
            ("%s/megatron/core/transformer/attention.py" % M, 497, "forward", "core_attn_out = self.core_attention("), ] + mod_frames(ctx) + [
            ("%s/megatron/core/extensions/transformer_engine.py" % M, 835, "forward", "core_attn_out = super().forward("),
            (P + "/transformer_engine/pytorch/attention.py", 8141, "forward", "return self.fused_attention("), ] + mod_frames(ctx) + [
            (P + "/transformer_engine/pytorch/attention.py", 6966, "forward", "output = FusedAttnFunc.apply(")]
    # generic fwd
    return base + blk + [("%s/megatron/core/transformer/transformer_layer.py" % M, 424, "forward", "mlp_output_with_bias = self.mlp(pre_mlp_layernorm_output)")] + mod_frames(ctx) + [
        ("%s/megatron/core/transformer/mlp.py" % M, 134, "forward", "intermediate_parallel, bias_parallel = self.linear_fc1(hidden_states)")] + mod_frames(ctx) + [
        ("%s/megatron/core/extensions/transformer_engine.py" % M, 279, "forward", "out = super().forward(x, is_first_microbatch=_is_first_microbatch)"),
        (P + "/transformer_engine/pytorch/module/layernorm_linear.py", 1211, "forward", "out = fwd_fn(*args)")]


def mg_args_dump(ctx, extra):
    topo = ctx.topo
    args = {
        "accumulate_allreduce_grads_in_fp32": "True", "adam_beta1": "0.9", "adam_beta2": "0.95",
        "bf16": "True", "ckpt_format": "torch_dist", "clip_grad": "1.0",
        "context_parallel_size": str(topo.sizes.get("cp", 1)), "data_parallel_size": str(topo.sizes["dp"]),
        "distributed_backend": "nccl", "distributed_timeout_minutes": str(ctx.timeout_ms // 60000),
        "expert_model_parallel_size": str(topo.ep), "ffn_hidden_size": str(ctx.hidden * 7 // 2),
        "global_batch_size": str(ctx.gbs), "hidden_size": str(ctx.hidden), "log_interval": str(ctx.log_int),
        "log_straggler": str(ctx.log_straggler), "lr": "0.0003", "micro_batch_size": str(ctx.mbs),
        "num_attention_heads": str(ctx.hidden // 128), "num_layers": str(ctx.layers),
        "overlap_grad_reduce": "True", "overlap_param_gather": "True",
        "pipeline_model_parallel_size": str(topo.sizes.get("pp", 1)), "rank": "0",
        "save": ctx.ckpt_dir, "save_interval": str(ctx.save_int), "seq_length": str(ctx.seqlen),
        "sequence_parallel": str(ctx.seqpar), "tensor_model_parallel_size": str(topo.sizes.get("tp", 1)),
        "timing_log_level": "0", "train_iters": str(ctx.train_iters), "use_distributed_optimizer": str(ctx.dist_opt),
        "world_size": str(ctx.W)}
    args.update(extra)
    L = ["------------------------ arguments ------------------------"]
    for k in sorted(args):
        L.append("  %s %s %s" % (k, "." * (48 - len(k)), args[k]))
    L.append("-------------------- end of arguments ---------------------")
    return L


class MegatronBase(Layout):
    def tb(self, ctx, r, where):
        return mg_frames(ctx, where)

    def main_kind(self, ctx):
        return "dp" if ctx.topo.sizes["dp"] > 1 else "tp"

    def pick_topology(self, ctx, tps, pps, cps, ep_choices=(1,)):
        rng = ctx.rng
        for _ in range(200):
            tp, pp, cp = rng.choice(tps), rng.choice(pps), rng.choice(cps)
            ep = rng.choice(ep_choices)
            if ctx.W % (tp * pp * cp):
                continue
            dp = ctx.W // (tp * pp * cp)
            if dp < 1 or dp % ep:
                continue
            if ep > 1 and dp < 2:
                continue
            break
        else:
            tp, pp, cp, ep = GPN, 1, 1, 1
            dp = ctx.W // GPN
        sizes = {"tp": tp, "cp": cp, "dp": dp, "pp": pp}
        if ep > 1:
            sizes["ep"] = ep
        ctx.topo = Topo(ctx.W, sizes, ["tp", "cp", "dp", "pp"])
        ctx.pg_order = [("dp", "DATA_PARALLEL_GROUP", True), ("cp", "CONTEXT_PARALLEL_GROUP", False),
                        ("mp", "MODEL_PARALLEL_GROUP", False), ("tp", "TENSOR_MODEL_PARALLEL_GROUP", False),
                        ("pp", "PIPELINE_MODEL_PARALLEL_GROUP", False)]
        if ep > 1:
            ctx.pg_order.append(("ep", "EXPERT_MODEL_PARALLEL_GROUP", False))

    def model_setup(self, ctx):
        rng = ctx.rng
        ctx.hidden = rng.choice([4096, 5120, 8192, 12288, 16384])
        ctx.layers = rng.choice([32, 40, 48, 80, 96, 126])
        while ctx.layers % ctx.topo.sizes.get("pp", 1):
            ctx.layers += 1
        ctx.seqlen = rng.choice([4096, 8192, 16384])
        ctx.mbs = rng.choice([1, 1, 2])
        ctx.gbs = ctx.topo.sizes["dp"] * ctx.mbs * rng.choice([8, 16, 32, 64])
        ctx.seqpar = ctx.topo.sizes.get("tp", 1) > 1 and rng.random() < 0.85
        ctx.dist_opt = rng.random() < 0.8
        ctx.bucket = rng.choice([40000000, 52428800, 100000000, 134217728])
        ctx.log_int = rng.choice([1, 1, 5, 10])
        ctx.save_int = rng.choice([200, 500, 1000])
        ctx.train_iters = rng.choice([250000, 500000, 100000, 1200000])
        ctx.ckpt_dir = rng.choice(["/lustre/fsw/ckpt", "/checkpoints", "/fsx/ckpts"]) + "/" + ctx.model_name
        ctx.log_straggler = ctx.cause == "straggler" or rng.random() < 0.25
        ctx.st = rng.uniform(2.0, 14.0)

    def mg_iter_line(self, ctx, it, t, st, loss, skipped=0, gn=None, d=None):
        d = d or ctx.dtm(ctx.node_of(ctx.W - 1), t, "c")
        tput = ctx.tflops * (ctx.st / st)
        lr = 3e-4 * min(1.0, it / 2000.0)
        return (" [%s] iteration %8d/%8d | consumed samples: %12d | elapsed time per iteration (ms): %.1f | throughput per GPU (TFLOP/s/GPU): %.1f | "
                "learning rate: %.6E | global batch size: %5d | lm loss: %.6E | loss scale: 1.0 | grad norm: %.3f | number of skipped iterations: %3d | number of nan iterations: %3d |") % (
            d.strftime("%Y-%m-%d %H:%M:%S"), it, ctx.train_iters, it * ctx.gbs, st * 1000.0, tput, lr, ctx.gbs, loss,
            gn if gn is not None else ctx.rng.uniform(0.15, 0.45), skipped, 0)

    def straggler_line(self, ctx, t, c=None, factor=1.0):
        rng = ctx.rng
        W = ctx.W
        fast = rng.randrange(W)
        base = ctx.st * 1000 * rng.uniform(0.7, 0.8)
        mn, mx = base * rng.uniform(0.97, 0.995), base * rng.uniform(1.002, 1.02)
        mxr = rng.randrange(W)
        mnclk, mnclkr = rng.choice([1965, 1980, 1950]), rng.randrange(W)
        mnet, mnetr = 400 * rng.uniform(0.95, 0.99), rng.randrange(W)
        mxtmp, mxtmpr = rng.randrange(58, 72), rng.randrange(W)
        if c is not None:
            mx, mxr = base * factor, c
            mnclk, mnclkr = rng.choice([1110, 1215, 1320, 1410]), c
            mnet, mnetr = 400 / factor, c
            mxtmp, mxtmpr = rng.randrange(86, 93), c
        d = ctx.dtm(0, t, "c")
        return "INFO:megatron.core.utils:[%s] | MnRtt/Rnk: %.2fms/%d | MxRtt/Rnk: %.2fms/%d | MnPwr/Rnk: %dW/%d | MxPwr/Rnk: %dW/%d | MnTmp/Rnk: %dC/%d | MxTmp/Rnk: %dC/%d | MnUtl/Rnk: %d%%/%d | MxUtl/Rnk: %d%%/%d | MnClk/Rnk: %dMHz/%d | MxClk/Rnk: %dMHz/%d | MnDRtt/Rnk: %.2fms/%d | MxDRtt/Rnk: %.2fms/%d | MnEtpt/Rnk: %.2fTF/%d | MxEtpt/Rnk: %.2fTF/%d" % (
            d.strftime("%Y-%m-%d %H:%M:%S"), mn, fast, mx, mxr, rng.randrange(560000, 620000), rng.randrange(W), rng.randrange(660000, 700000), rng.randrange(W),
            rng.randrange(44, 52), rng.randrange(W), mxtmp, mxtmpr, rng.randrange(90, 97), rng.randrange(W), 100, rng.randrange(W),
            mnclk, mnclkr, 1980, rng.randrange(W), rng.uniform(1, 15), rng.randrange(W), rng.uniform(20, 140), rng.randrange(W), mnet, mnetr, 400 * rng.uniform(1.0, 1.02), rng.randrange(W))

    def emit_training(self, ctx, t_from, t_to, logger_rank, it0, straggle=None, prefix=""):
        """iteration lines on logger_rank between t_from and t_to; returns (last_it, t_last)."""
        rng = ctx.rng
        it = it0
        t = t_from
        loss = ctx.loss0
        first = True
        while True:
            st = ctx.st * rng.uniform(0.985, 1.02)
            if straggle and t >= straggle[0]:
                st *= straggle[1] * rng.uniform(0.97, 1.03)
            if t + st * ctx.log_int > t_to:
                break
            t += st * ctx.log_int
            it += ctx.log_int
            loss = max(1.2, loss - rng.uniform(0.0, 0.006) + rng.uniform(-0.01, 0.0115))
            skipped = 0
            gn = None
            if ctx.cause is None and rng.random() < 0.03:
                skipped, gn = 1, float("inf") if rng.random() < 0.3 else rng.uniform(30, 400)
            if gn == float("inf"):
                line = self.mg_iter_line(ctx, it, t, st, loss, 1, 0.0).replace("grad norm: 0.000 | ", "")
            else:
                line = self.mg_iter_line(ctx, it, t, st, loss + (rng.uniform(0.5, 2.0) if skipped else 0), skipped, gn)
            ctx.emit(logger_rank, t, prefix + line)
            if first:
                first = False
                for r in sorted(ctx.sim):
                    c = ctx.topo.coords(r)
                    if c["dp"] == 0 and c.get("cp", 0) == 0 and (c["tp"] == 0 or ctx.W <= 128):
                        alloc = ctx.gpu_mem * 1024 * rng.uniform(0.3, 0.42) * (1.2 if c["pp"] == ctx.topo.sizes.get("pp", 1) - 1 else 1.0)
                        res = min(ctx.gpu_mem * 1024 * 0.97, alloc * rng.uniform(1.75, 1.95))
                        ctx.emit(r, t + 0.01, "[Rank %d] (after %d iterations) memory (MB) | allocated: %.2f | max allocated: %.2f | reserved: %.2f | max reserved: %.2f" % (
                            r, it, alloc, min(res * 0.97, alloc * rng.uniform(1.5, 1.8)), res, res))
            if ctx.log_straggler and rng.random() < 0.6:
                if straggle and t >= straggle[0]:
                    ctx.emit(0, t + 0.02, self.straggler_line(ctx, t, straggle[2], straggle[1]))
                else:
                    ctx.emit(0, t + 0.02, self.straggler_line(ctx, t))
            if it % ctx.save_int == 0:
                ctx.emit(0, t + 0.05, "saving checkpoint at iteration %7d to %s in torch_dist format" % (it, ctx.ckpt_dir))
                dt_save = rng.uniform(20, 90)
                ctx.emit(0, t + dt_save, "  successfully saved checkpoint from iteration %7d to %s [ t 1/%d, p 1/%d ]" % (
                    it, ctx.ckpt_dir, ctx.topo.sizes.get("tp", 1), ctx.topo.sizes.get("pp", 1)))
                ctx.emit(0, t + dt_save + 0.01, "(min, max) time across ranks (ms):")
                ctx.emit(0, t + dt_save + 0.01, "    save-checkpoint ................................: (%.2f, %.2f)" % (dt_save * 1000 - 40, dt_save * 1000))
                t += dt_save
        ctx.t_last = t
        return it, t


def default_sim(ctx, max_nodes=8):
    rng = ctx.rng
    if ctx.W <= 64:
        ctx.sim = set(range(ctx.W))
        return
    nodes = [0, ctx.nnodes - 1]
    c = ctx.culprit
    if c is not None:
        nodes.append(ctx.node_of(c))
        for k in ("pp", "tp", "ep", "cp"):
            if k == "ep" and ctx.topo.ep <= 1:
                continue
            for x in ctx.topo.group(k, c):
                if k != "pp" or abs(ctx.topo.coords(x)["pp"] - ctx.topo.coords(c)["pp"]) == 1:
                    nodes.append(ctx.node_of(x))
    if ctx.culprit_node is not None:
        nodes.append(ctx.culprit_node)
    for _ in range(rng.choice([1, 2, 2, 3])):
        nodes.append(rng.randrange(ctx.nnodes))
    uniq = []
    for n in nodes:
        if n not in uniq:
            uniq.append(n)
    keep = uniq[:max_nodes]
    ctx.sim = set(r for n in keep for r in ctx.ranks_on(n))


def host_pattern(ctx, kind):
    rng = ctx.rng
    nn = ctx.nnodes
    if kind == "slurm":
        style = rng.choice(["gpu", "nid", "dgx", "hgx", "a3"])
        start = rng.randrange(1, 400)
        step_gap = rng.random() < 0.3
        nums = []
        k = start
        for i in range(nn):
            nums.append(k)
            k += 1 + (rng.choice([0, 0, 0, 3]) if step_gap else 0)
        if style == "gpu":
            hosts = ["gpu%03d" % x for x in nums]
            suf = ".cluster.internal"
        elif style == "nid":
            hosts = ["nid%06d" % (x + 1000) for x in nums]
            suf = ".hsn.local"
        elif style == "dgx":
            rack = rng.randrange(1, 30)
            hosts = ["dgx-h%02d-%03d" % (rack, x) for x in nums]
            suf = ".dc1.example.net"
        elif style == "hgx":
            hosts = ["hgx-b%02d-%02d" % (x // 16 + 1, x % 16) for x in nums]
            suf = ".ml.corp"
        else:
            hosts = ["a3mega-%04d" % x for x in nums]
            suf = ".c.project-llm.internal"
        return hosts, suf
    raise ValueError(kind)


class MegatronSrun(MegatronBase):
    name = "megatron_srun"
    stack = "Megatron-LM (mcore) + srun one task per GPU"
    policy = {"mode": "srun_kill"}

    def setup(self, ctx):
        rng = ctx.rng
        nn = rng.choice([2, 4, 4, 8, 8, 8, 16, 16, 32, 64, 128, 256])
        base_setup(ctx, nn, "ngc", 2, 8)
        self.pick_topology(ctx, [2, 4, 8, 8], [2, 4, 4, 8], [1, 1, 1, 2])
        ctx.hosts, suf = host_pattern(ctx, "slurm")
        ctx.ips = mk_ips(ctx, nn)
        ctx.aliases = [[h + suf, ctx.ips[i]] for i, h in enumerate(ctx.hosts)]
        ctx.nccl_host = lambda n: ctx.hosts[n]
        ctx.agent_host = lambda n: ctx.hosts[n]
        ctx.netdev = lambda k: ("ibp%ds0" if ctx.ib_kind == "IB" else "enp%ds0f0np0") % int(ctx.hca_pci[k], 16)
        ctx.cgroup_name = lambda n: "/slurm/uid_%d/job_%s/step_0/user/task_0" % (ctx.uid, ctx.jobid)
        ctx.jobid = str(rng.randrange(100000, 9999999))
        ctx.partition = rng.choice(["batch", "gpu", "pretrain", "h100", "large"])
        ctx.labels = rng.random() < 0.65
        ctx.mroot = rng.choice(["/workspace/megatron-lm", "/opt/megatron-lm", "/lustre/fsw/users/%s/Megatron-LM" % rng.choice(["pkumar", "ali", "mchen"])])
        ctx.model_name = rng.choice(["llama3-70b", "gpt3-175b", "nemotron-340b", "llama3-405b", "mistral-123b", "gpt-22b"])
        ctx.timeout_ms = rng.choice([600000, 600000, 1200000, 1800000])
        ctx.nccl_debug = "INFO" if ctx.W <= 64 and rng.random() < 0.5 else "WARN"
        ctx.map_mode = "all" if ctx.W <= 512 and rng.random() < 0.85 else "none"
        self.model_setup(ctx)
        ctx.tflops = rng.uniform(280, 520) if "H" in ctx.gpu_model else rng.uniform(120, 190)
        ctx.loss0 = rng.uniform(1.9, 3.2)
        ctx.it0 = rng.choice([0, 0, rng.randrange(1, 400) * 250])
        ctx.script = "pretrain_gpt.py"

    def coords_text(self, ctx, r):
        c = ctx.topo.coords(r)
        return "tp_rank %d pp_rank %d dp_rank %d cp_rank %d" % (c["tp"], c["pp"], c["dp"], c["cp"])

    def err_banner(self, ctx, r, t):
        if ctx.labels and ctx.rng.random() < 0.5:
            return []
        d = ctx.dtm(ctx.node_of(r), t, "c")
        return ["%s ERROR [%s] unhandled exception in train_step, aborting" % (d.strftime("%Y-%m-%d %H:%M:%S,") + "%03d" % (d.microsecond // 1000), self.coords_text(ctx, r))]

    def choose_sim(self, ctx):
        default_sim(ctx)

    def startup(self, ctx):
        rng = ctx.rng
        topo = ctx.topo
        t = rng.uniform(3, 12)
        if ctx.map_mode == "all":
            for r in range(ctx.W):
                c = topo.coords(r)
                ctx.emit(r, t + rng.uniform(0, 2.5), "Rank %d: TP=%d PP=%d DP=%d CP=%d host=%s local_rank=%d" % (
                    r, c["tp"], c["pp"], c["dp"], c["cp"], ctx.hosts[ctx.node_of(r)], ctx.lr(r)))
        wl = rng.choice([2859, 3302, 4411])
        for r in sorted(ctx.sim):
            if rng.random() < 0.5:
                tw = t + rng.uniform(3, 6)
                ctx.emit(r, tw, "%s/transformer_engine/pytorch/attention.py:%d: UserWarning: window_size should be (-1, -1) or (>=0, >=0) for attn_mask_type=causal" % (ctx.pylib, wl))
                ctx.emit(r, tw + 0.0001, "  warnings.warn(")
        t0 = t + 4
        L0 = ["using world size: %d, data-parallel size: %d, context-parallel size: %d, tensor-model-parallel size: %d, pipeline-model-parallel size: %d " % (
            ctx.W, topo.sizes["dp"], topo.sizes["cp"], topo.sizes["tp"], topo.sizes["pp"]),
            "using torch.bfloat16 for parameters ..."] + mg_args_dump(ctx, {}) + [
            "setting number of micro-batches to constant %d" % (ctx.gbs // (ctx.mbs * topo.sizes["dp"])),
            "> building GPT2BPETokenizer tokenizer ..." if "gpt" in ctx.model_name else "> building HuggingFaceTokenizer tokenizer ...",
            " > padded vocab (size: 128256) with 0 dummy tokens (new size: 128256)",
            "WARNING: one_logger package is required to enable e2e metrics tracking. please go to https://confluence.nvidia.com/display/MLWFO/Package+Repositories for details to install it",
            "> initializing torch distributed ..."]
        ctx.emit_lines(0, t0, L0, None, 0.0005)
        t1 = t0 + rng.uniform(5, 30)
        if ctx.nccl_debug == "INFO":
            for r in sorted(ctx.sim):
                ctx.emit_lines(r, t1 + rng.uniform(0, 1), nccl_boot_lines(ctx, r, t1), None, 0.001)
                tt = t1 + rng.uniform(2, 5)
                for k in ["world", "tp", "pp", "dp"]:
                    if k != "world" and topo.sizes.get(k, 1) == 1:
                        continue
                    ctx.emit_lines(r, tt, nccl_init_lines(ctx, r, tt, k, verbose=(r == 0 and k == "world")), None, 0.001)
                    tt += rng.uniform(0.5, 3)
        t2 = t1 + rng.uniform(10, 40)
        ctx.emit_lines(0, t2, ["> initialized tensor model parallel with size %d" % topo.sizes["tp"],
                               "> initialized pipeline model parallel with size %d" % topo.sizes["pp"],
                               "> setting random seeds to 1234 ...",
                               "> compiling dataset index builder ...",
                               "make: Entering directory '%s/megatron/core/datasets'" % ctx.mroot,
                               "make: Nothing to be done for 'default'.",
                               "make: Leaving directory '%s/megatron/core/datasets'" % ctx.mroot,
                               ">>> done with dataset index builder. Compilation time: 0.0%d seconds" % rng.randrange(40, 99),
                               "> compiling and loading fused kernels ...",
                               ">>> done with compiling and loading fused kernels. Compilation time: %.3f seconds" % rng.uniform(1, 9),
                               "time to initialize megatron (seconds): %.3f" % (t2 + 3),
                               "[after megatron is initialized] datetime: %s " % ctx.dtm(0, t2 + 3, "c").strftime("%Y-%m-%d %H:%M:%S"),
                               "building GPT model ..."], None, 0.01)
        t3 = t2 + rng.uniform(10, 60)
        nparam = rng.randrange(800, 4000) * 10 ** 6 + rng.randrange(10 ** 6)
        emb = 128256 * ctx.hidden // topo.sizes["tp"]
        for r in sorted(ctx.sim):
            c = topo.coords(r)
            if c["dp"] == 0 and c["cp"] == 0:
                extra_p = (emb if c["pp"] == 0 else 0) + (emb + ctx.hidden if c["pp"] == topo.sizes["pp"] - 1 else 0)
                ctx.emit(r, t3 + rng.uniform(0, 1), " > number of parameters on (tensor, pipeline) model parallel rank (%d, %d): %d" % (c["tp"], c["pp"], nparam + extra_p))
        t4 = t3 + rng.uniform(5, 20)
        L4 = []
        if ctx.it0:
            L4 += [" loading checkpoint from %s at iteration %d" % (ctx.ckpt_dir, ctx.it0),
                   "  successfully loaded checkpoint from %s [ t 1/%d, p 1/%d ] at iteration %d" % (ctx.ckpt_dir, topo.sizes["tp"], topo.sizes["pp"], ctx.it0)]
        else:
            L4 += ["WARNING: could not find the metadata file %s/latest_checkpointed_iteration.txt" % ctx.ckpt_dir,
                   "    will not load any checkpoints and will start from random"]
        L4 += ["(min, max) time across ranks (ms):",
               "    load-checkpoint ................................: (%.2f, %.2f)" % (rng.uniform(1000, 90000), rng.uniform(90000, 95000)),
               "[after model, optimizer, and learning rate scheduler are built] datetime: %s " % ctx.dtm(0, t4, "c").strftime("%Y-%m-%d %H:%M:%S"),
               "> building train, validation, and test datasets ...",
               " > datasets target sizes (minimum size):",
               "    train:      %d" % (ctx.train_iters * ctx.gbs),
               "    validation: %d" % (ctx.gbs * 100),
               "    test:       %d" % (ctx.gbs * 10),
               "> finished creating GPT datasets ...",
               "[after dataloaders are built] datetime: %s " % ctx.dtm(0, t4 + 30, "c").strftime("%Y-%m-%d %H:%M:%S"),
               "done with setup ...",
               "(min, max) time across ranks (ms):",
               "    model-and-optimizer-setup ......................: (%.2f, %.2f)" % (rng.uniform(20000, 60000), rng.uniform(60000, 90000)),
               "    train/valid/test-data-iterators-setup ..........: (%.2f, %.2f)" % (rng.uniform(500, 3000), rng.uniform(3000, 30000)),
               "training ...",
               "[before the start of training step] datetime: %s " % ctx.dtm(0, t4 + 31, "c").strftime("%Y-%m-%d %H:%M:%S")]
        ctx.emit_lines(0, t4, L4, None, 0.5)
        if ctx.tv >= 4 and ctx.sim:
            r = rng.choice(sorted(ctx.sim))
            ctx.emit(r, t4 + 40, "%s/torch/distributed/c10d_logger.py:83: FutureWarning: `torch.distributed._all_gather_base` is a private function and will be deprecated. Please use `torch.distributed.all_gather_into_tensor` instead." % ctx.pylib)
            ctx.emit(r, t4 + 40.001, "  return func(*args, **kwargs)")
        ctx.t_train0 = t4 + 31 + rng.uniform(1, 5)

    def train(self, ctx, t_to, straggle=None):
        it, t = self.emit_training(ctx, ctx.t_train0, t_to, ctx.W - 1, ctx.it0, straggle)
        ctx.last_it = it
        return it, t

    def preempt(self, ctx, t):
        pass

    def hang_extra(self, ctx, c, t):
        if ctx.rng.random() < 0.45:
            ctx.pyspy = (c, "hang")

    def stall_extra(self, ctx, c, t):
        if ctx.rng.random() < 0.5:
            ctx.pyspy = (c, "data")

    def straggler(self, ctx, c):
        rng = ctx.rng
        onset = ctx.t_train0 + rng.uniform(0.05, 0.4) * (ctx.t_fail - ctx.t_train0)
        fac = rng.uniform(1.25, 1.9)
        ctx.notes.append("from t=%.0fs rank %d runs %.2fx slower (MnClk low, MxRtt), straggler detector lines on rank 0" % (onset, c, fac))
        end = ctx.t_fail + rng.uniform(200, 2000)
        it, t = self.train(ctx, end, (onset, fac, c))
        if rng.random() < 0.5:
            ctx.sched_kill = t + rng.uniform(1, 20)
            ctx.time_limit = True
            ctx.notes.append("job hit the Slurm time limit while slowed")
        else:
            self.finish(ctx, t, early_exit=True)
        if ctx.log_straggler:
            ctx.ev("straggler-detector", "MHz/%d | MxClk" % c)
        if rng.random() < 0.4:
            ctx.nvsmi = (c, "throttle")

    def finish(self, ctx, t, early_exit=False):
        L = ["[after training is done] datetime: %s " % ctx.dtm(0, t + 1, "c").strftime("%Y-%m-%d %H:%M:%S"),
             "saving checkpoint at iteration %7d to %s in torch_dist format" % (ctx.last_it if hasattr(ctx, "last_it") else 0, ctx.ckpt_dir),
             "  successfully saved checkpoint from iteration %7d to %s [ t 1/%d, p 1/%d ]" % (getattr(ctx, "last_it", 0), ctx.ckpt_dir, ctx.topo.sizes["tp"], ctx.topo.sizes["pp"]),
             "-" * 100,
             " validation loss at iteration %d on validation set | lm loss value: %.6E | lm loss PPL: %.6E | " % (getattr(ctx, "last_it", 0), ctx.loss0 * 0.8, 2.718281828 ** (ctx.loss0 * 0.8)),
             "-" * 100]
        ctx.emit_lines(0, t + 1, L, None, 2.0)
        ctx.t_end = t + 30
        if ctx.tv >= 4:
            for r in sorted(ctx.sim)[:3]:
                ctx.emit(r, t + 29, cpp(ctx, r, t + 29, "W", "ProcessGroupNCCL.cpp:%d" % (1250 + ctx.tv * 80),
                                        "Warning: WARNING: process group has NOT been destroyed before we destruct ProcessGroupNCCL. On normal program exit, the application should call destroy_process_group to ensure that any pending NCCL operations have finished in this process. In rare cases this process can exit before this point and block the progress of another member of the process group. This constraint has always been present,  but this warning has only recently been added since 2.4 (function operator())"))

    # ---------------- render ----------------
    def render(self, ctx):
        rng = ctx.rng
        width = len(str(ctx.W - 1))
        lab = ctx.labels

        def pre(r):
            return ("%*d: " % (width, r)) if lab else ""

        def attr(r, line, tag):
            if lab:
                return "global-label"
            if " NCCL " in line and ":%d:" % ctx.pid[r] in line:
                return "nccl-host-dev"
            if "tp_rank" in line and ctx.map_mode == "all":
                return "coords+rankmap"
            return None
        hdr = ["+ export NCCL_DEBUG=%s" % ctx.nccl_debug, "+ NCCL_DEBUG=%s" % ctx.nccl_debug,
               "+ export CUDA_DEVICE_MAX_CONNECTIONS=1", "+ CUDA_DEVICE_MAX_CONNECTIONS=1",
               "+ export TORCH_NCCL_ASYNC_ERROR_HANDLING=1" if ctx.tv >= 2 else "+ export NCCL_ASYNC_ERROR_HANDLING=1",
               "++ scontrol show hostnames '%s'" % slurm_nodelist(ctx.hosts),
               "++ head -n 1", "+ MASTER_ADDR=%s" % ctx.hosts[0], "+ MASTER_PORT=%d" % rng.choice([6000, 29500, 12345]),
               "+ srun %s--kill-on-bad-exit=1 --ntasks-per-node=8 --gpus-per-node=8 --container-image=nvcr.io#nvidia/pytorch:%s-py3 --container-mounts=/lustre:/lustre python %s/pretrain_gpt.py --tensor-model-parallel-size %d --pipeline-model-parallel-size %d --context-parallel-size %d %s--use-distributed-optimizer --distributed-timeout-minutes %d ..." % (
                   "-l " if lab else "", {2: "24.01", 3: "24.03", 4: "24.07", 5: "24.10", 6: "25.01", 7: "25.03", 8: "25.06"}[ctx.tv],
                   ctx.mroot, ctx.topo.sizes["tp"], ctx.topo.sizes["pp"], ctx.topo.sizes["cp"], "--sequence-parallel " if ctx.seqpar else "", ctx.timeout_ms // 60000)]
        extra = srun_tail(ctx, ctx.hosts[0])
        if ctx.sched_kill is not None:
            why = "DUE TO TIME LIMIT" if getattr(ctx, "time_limit", False) else "DUE TO PREEMPTION"
            extra.append((ctx.sched_kill, "slurmstepd: error: *** JOB %s ON %s CANCELLED AT %s %s ***" % (ctx.jobid, ctx.hosts[0], slurm_ts(ctx, ctx.sched_kill), why)))
            extra.append((ctx.sched_kill + 0.2, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish."))
            extra.append((ctx.sched_kill + 0.3, "slurmstepd: error: *** STEP %s.0 ON %s CANCELLED AT %s %s ***" % (ctx.jobid, ctx.hosts[0], slurm_ts(ctx, ctx.sched_kill), why)))
            if not getattr(ctx, "time_limit", False):
                for n in range(ctx.nnodes):
                    extra.append((ctx.sched_kill + 1 + n * 0.001, "srun: error: %s: tasks %s: Terminated" % (ctx.hosts[n], compress_ranges(ctx.ranks_on(n)))))
        body = merged(ctx, sorted(ctx.out.keys()), pre, extra, attr, "slurm-%s.out" % ctx.jobid)
        if ctx.W > 64:
            # user trimmed the log: keep head and the last lines of the tail
            cut = min(len(body), 900)
            if len(body) > cut + 2500:
                body = body[:cut] + ["", "[... %d lines omitted by submitter ...]" % (len(body) - cut - 2500), ""] + body[-2500:]
        ctx.files["slurm-%s.out" % ctx.jobid] = "\n".join(hdr + body) + "\n"
        # sacct
        if ctx.cause is None or (ctx.cause == "straggler" and not getattr(ctx, "time_limit", False)):
            state, ec, tend = "COMPLETED", "0:0", getattr(ctx, "t_end", ctx.t_last)
        elif ctx.sched_kill is not None:
            state = "TIMEOUT" if getattr(ctx, "time_limit", False) else "PREEMPTED"
            ec, tend = "0:15", ctx.sched_kill
        else:
            state, ec = "FAILED", "1:0"
            tend = (ctx.global_kill or max(v[0] for v in ctx.final.values())) + 3
        ctx.files["sacct.txt"] = sacct_text(ctx, "pretrain", state, ec, tend, ctx.partition)
        render_node_extras(ctx, rng)


def render_node_extras(ctx, rng, kstyles=("T", "raw", "syslog", "iso"), prefix="dmesg-"):
    """kernel logs / nvidia-smi / py-spy attachments shared by layouts."""
    cn = ctx.culprit_node
    attached = []
    if cn is not None and ctx.kern.get(cn) and rng.random() < 0.8:
        attached.append(cn)
    if cn is None and ctx.kern:
        for n in sorted(ctx.kern)[:2]:
            attached.append(n)
    # decoy: an old benign Xid on another node
    if ctx.nnodes > 1 and rng.random() < 0.45:
        dn = rng.choice([n for n in range(ctx.nnodes) if n != cn])
        r = dn * GPN + rng.randrange(GPN)
        told = -rng.uniform(2, 20) * 86400
        if rng.random() < 0.5:
            ctx.emit_kern(dn, told, xid_line(ctx, r, 13, rng.randrange(1000, 99999), "Graphics SM Warp Exception on (GPC %d, TPC %d, SM %d): Out Of Range Address" % (rng.randrange(8), rng.randrange(9), rng.randrange(2))))
            ctx.emit_kern(dn, told + 0.001, xid_line(ctx, r, 13, rng.randrange(1000, 99999), "Graphics Exception: ESR 0x50e730=0x201000e 0x50e734=0x20 0x50e728=0x4c1eb72 0x50e72c=0x174"))
        else:
            ctx.emit_kern(dn, told, xid_line(ctx, r, 31, rng.randrange(1000, 99999), "Ch 00000018, intr 00000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_2 faulted @ 0x7f3a_1c000000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ"))
        ctx.decoys.append("old Xid on %s (%.0f days before the run)" % (ctx.hosts[dn], -told / 86400))
        if dn not in attached:
            attached.append(dn)
    style = rng.choice(kstyles)
    for n in attached:
        ctx.files["%s%s.txt" % (prefix, ctx.hosts[n])] = kern_file(ctx, n, style)
    ctx.kern_attached = attached
    if cn is not None and cn in attached and ctx.evidence_bus:
        if getattr(ctx, "busmap_visible", False) or rng.random() < 0.5:
            ctx.files["nvidia-smi-%s.txt" % ctx.hosts[cn]] = nvsmi_text(ctx, cn, ctx.culprit, ctx.cause)
            ctx.evidence.append("xid-bus+nvidia-smi")
        elif ctx.nccl_debug == "INFO" and ctx.culprit in ctx.sim:
            ctx.evidence.append("xid-bus+nccl-busId")
    if cn is not None and cn in attached and ctx.evidence_pid:
        ctx.pid_in_kern = True
    pys = getattr(ctx, "pyspy", None)
    if pys:
        c, what = pys
        ctx.files["py-spy-%s-%d.txt" % (ctx.nccl_host(ctx.node_of(c)), ctx.pid[c])] = pyspy_text(ctx, c, what)
        ctx.evidence.append("py-spy")
    nv = getattr(ctx, "nvsmi", None)
    if nv:
        c, what = nv
        ctx.files["nvidia-smi-q-%s.txt" % ctx.hosts[ctx.node_of(c)]] = nvsmi_text(ctx, ctx.node_of(c), c, "straggler")
        ctx.evidence.append("nvidia-smi-throttle")


def nvsmi_text(ctx, n, c, cause):
    rng = ctx.rng
    d = ctx.dtm(n, (ctx.t_fail if hasattr(ctx, "t_fail") else 0) + 300, "h")
    if cause == "straggler":
        L = ["==============NVSMI LOG==============", "", "Timestamp                                 : %s" % d.strftime("%a %b %d %H:%M:%S %Y"),
             "Driver Version                            : %s" % rng.choice(["535.161.08", "550.90.07", "560.35.03", "570.124.06"]),
             "CUDA Version                              : %s" % ctx.cuda, "", "Attached GPUs                             : 8"]
        for l in range(GPN):
            slow = (n * GPN + l) == c
            L += ["GPU 00000000:%s:00.0" % ctx.busids[l][:2].upper(),
                  "    Product Name                          : %s" % ctx.gpu_model,
                  "    Clocks Event Reasons",
                  "        Idle                              : Not Active",
                  "        Applications Clocks Setting       : Not Active",
                  "        SW Power Cap                      : %s" % ("Active" if slow else "Not Active"),
                  "        HW Slowdown                       : %s" % ("Active" if slow else "Not Active"),
                  "            HW Thermal Slowdown           : %s" % ("Active" if slow else "Not Active"),
                  "            HW Power Brake Slowdown       : Not Active",
                  "        SW Thermal Slowdown               : %s" % ("Active" if slow else "Not Active"),
                  "    Temperature",
                  "        GPU Current Temp                  : %d C" % (rng.randrange(86, 92) if slow else rng.randrange(48, 66)),
                  "    Clocks",
                  "        Graphics                          : %d MHz" % (rng.choice([1110, 1215, 1305]) if slow else 1980),
                  "        SM                                : %d MHz" % (rng.choice([1110, 1215, 1305]) if slow else 1980), ""]
        return "\n".join(L) + "\n"
    L = ["$ nvidia-smi"]
    bus = ctx.busids[ctx.lr(c)][:2].upper()
    if cause == "gpu_hardware":
        L.append("Unable to determine the device handle for GPU0000:%s:00.0: Unknown Error" % bus)
        L.append("")
    L.append("$ nvidia-smi --query-gpu=index,pci.bus_id,name,ecc.errors.uncorrected.volatile.total,retired_pages.pending --format=csv")
    L.append("index, pci.bus_id, name, ecc.errors.uncorrected.volatile.total, retired_pages.pending")
    for l in range(GPN):
        hit = l == ctx.lr(c)
        if hit and cause == "gpu_hardware":
            continue
        L.append("%d, 00000000:%s:00.0, %s, %s, %s" % (l, ctx.busids[l][:2].upper(), ctx.gpu_model, ("%d" % rng.randrange(1, 40)) if hit and cause == "ecc_memory" else "0", "Yes" if hit and cause == "ecc_memory" else "No"))
    if cause == "nvlink":
        L.append("")
        L.append("$ nvidia-smi nvlink -e -i %d" % ctx.lr(c))
        L.append("GPU %d: %s (UUID: GPU-%s-%s-%s-%s-%s)" % (ctx.lr(c), ctx.gpu_model, hexs(rng, 8), hexs(rng, 4), hexs(rng, 4), hexs(rng, 4), hexs(rng, 12)))
        for k in range(4):
            L.append("\t Link %d: Replay Errors: %d" % (k, rng.randrange(0, 3)))
            L.append("\t Link %d: Recovery Errors: %d" % (k, rng.randrange(0, 2)))
            L.append("\t Link %d: CRC Errors: %d" % (k, rng.randrange(0, 5000) if k == 2 else 0))
    return "\n".join(L) + "\n"


def pyspy_text(ctx, c, what):
    rng = ctx.rng
    M = getattr(ctx, "mroot", "/workspace")
    L = ["Process %d: %s -u %s" % (ctx.pid[c], "/usr/bin/python3", ctx.script),
         "Python v%s.%d (/usr/bin/python%s)" % (ctx.pyv, rng.randrange(4, 14), ctx.pyv), "",
         'Thread %d (idle): "MainThread"' % ctx.pid[c]]
    if hasattr(ctx.L, "pyspy_frames"):
        L += ctx.L.pyspy_frames(ctx, what)
    elif what == "hang":
        L += ["    poll (multiprocessing/popen_fork.py:27)", "    wait (multiprocessing/popen_fork.py:43)",
              "    join (multiprocessing/process.py:149)",
              "    close (megatron/core/dist_checkpointing/strategies/async_utils.py:%d)" % rng.randrange(140, 220),
              "    maybe_finalize_async_calls (megatron/core/dist_checkpointing/strategies/async_utils.py:%d)" % rng.randrange(220, 260),
              "    maybe_finalize_async_save (megatron/training/async_utils.py:%d)" % rng.randrange(30, 60),
              "    train (megatron/training/training.py:%d)" % rng.randrange(1400, 1500),
              "    pretrain (megatron/training/training.py:386)", "    <module> (pretrain_gpt.py:301)"]
    else:
        L += ["    read (numpy/core/memmap.py:%d)" % rng.randrange(260, 290) if rng.random() < 0.5 else "    _read_chunk (megatron/core/datasets/indexed_dataset.py:%d)" % rng.randrange(500, 560),
              "    get (megatron/core/datasets/indexed_dataset.py:740)",
              "    _query_document_sample_shuffle_indices (megatron/core/datasets/gpt_dataset.py:280)",
              "    __getitem__ (megatron/core/datasets/gpt_dataset.py:189)",
              "    fetch (torch/utils/data/_utils/fetch.py:52)",
              "    _next_data (torch/utils/data/dataloader.py:%d)" % (757 if ctx.tv >= 4 else 674),
              "    __next__ (torch/utils/data/dataloader.py:%d)" % (701 if ctx.tv >= 4 else 631),
              "    get_batch_on_this_tp_rank (megatron/training/utils.py:298)",
              "    get_batch (pretrain_gpt.py:112)", "    forward_step (pretrain_gpt.py:198)"]
    L += ["", 'Thread %d (idle): "Thread-1 (_pin_memory_loop)"' % (ctx.pid[c] + 301), "    select (selectors.py:416)", "    wait (multiprocessing/connection.py:1136)",
          'Thread %d (idle): "pt_nccl_watchdg"' % (ctx.pid[c] + 212 + ctx.lr(c))]
    return "\n".join(L) + "\n"


class McoreMoeNccl(MegatronBase):
    """Megatron-Core MoE, srun --output per task + NCCL_DEBUG_FILE per process."""
    name = "mcore_moe_nccl"
    stack = "Megatron-Core MoE (EP all-to-all) + srun --output=%t + NCCL_DEBUG_FILE"
    policy = {"mode": "srun_kill"}

    def setup(self, ctx):
        rng = ctx.rng
        nn = rng.choice([4, 4, 8, 8, 16, 16, 32, 64])
        base_setup(ctx, nn, "ngc", 3, 8, gpu_w=(7, 2, 3))
        self.pick_topology(ctx, [1, 2, 2, 4], [2, 4, 4, 8], [1, 1], ep_choices=[4, 8, 8, 16, 32])
        if ctx.topo.ep <= 1:
            # force an EP>1 layout
            ctx.topo = Topo(ctx.W, {"tp": 2, "cp": 1, "dp": ctx.W // 4, "pp": 2, "ep": 4}, ["tp", "cp", "dp", "pp"])
            ctx.pg_order.append(("ep", "EXPERT_MODEL_PARALLEL_GROUP", False))
        ctx.hosts, suf = host_pattern(ctx, "slurm")
        ctx.ips = mk_ips(ctx, nn)
        ctx.aliases = [[h + suf, ctx.ips[i]] for i, h in enumerate(ctx.hosts)]
        ctx.nccl_host = lambda n: ctx.hosts[n]
        ctx.agent_host = lambda n: ctx.hosts[n]
        ctx.netdev = lambda k: ("ibp%ds0" if ctx.ib_kind == "IB" else "enp%ds0f0np0") % int(ctx.hca_pci[k], 16)
        ctx.cgroup_name = lambda n: "/slurm/uid_%d/job_%s/step_0/user/task_0" % (ctx.uid, ctx.jobid)
        ctx.jobid = str(rng.randrange(100000, 9999999))
        ctx.partition = rng.choice(["batch", "moe", "hpc", "gpu-large"])
        ctx.mroot = rng.choice(["/workspace/Megatron-LM", "/opt/Megatron-LM"])
        ctx.model_name = rng.choice(["mixtral-8x22b", "deepseek-v3-671b", "qwen3-235b-a22b", "moe-64x2b"])
        ctx.num_experts = rng.choice([8, 64, 128, 256]) if ctx.topo.ep <= 8 else rng.choice([64, 128, 256])
        while ctx.num_experts % ctx.topo.ep:
            ctx.num_experts *= 2
        ctx.topk = rng.choice([2, 2, 4, 8]) if ctx.num_experts >= 64 else 2
        ctx.timeout_ms = rng.choice([600000, 900000, 1800000])
        ctx.nccl_debug = "INFO"
        ctx.nccl_subsys = rng.choice(["INIT,NET", "INIT", "INIT,COLL,NET"])
        self.model_setup(ctx)
        ctx.tflops = rng.uniform(180, 380)
        ctx.loss0 = rng.uniform(2.0, 3.5)
        ctx.it0 = rng.choice([0, rng.randrange(1, 200) * 500])
        ctx.script = "pretrain_gpt.py"
        ctx.jobname = rng.choice(["moe-pt", "mcore-moe", ctx.model_name])

    def choose_sim(self, ctx):
        default_sim(ctx, max_nodes=6)

    def err_banner(self, ctx, r, t):
        return []

    def startup(self, ctx):
        rng = ctx.rng
        topo = ctx.topo
        t0 = rng.uniform(5, 15)
        extra = {"num_experts": str(ctx.num_experts), "moe_router_topk": str(ctx.topk), "moe_token_dispatcher_type": "alltoall",
                 "moe_aux_loss_coeff": "0.01", "moe_grouped_gemm": "True", "moe_router_load_balancing_type": rng.choice(["aux_loss", "seq_aux_loss"]),
                 "expert_tensor_parallel_size": str(topo.sizes["tp"]), "moe_per_layer_logging": "False"}
        L0 = ["using world size: %d, data-parallel size: %d, context-parallel size: %d, hierarchical context-parallel sizes: None, tensor-model-parallel size: %d, encoder-tensor-model-parallel size: 0, pipeline-model-parallel size: %d, encoder-pipeline-model-parallel size: 0" % (
            ctx.W, topo.sizes["dp"], topo.sizes["cp"], topo.sizes["tp"], topo.sizes["pp"])] + mg_args_dump(ctx, extra) + [
            "> initializing torch distributed ...", "> initialized tensor model parallel with size %d" % topo.sizes["tp"],
            "> initialized pipeline model parallel with size %d" % topo.sizes["pp"], "> setting random seeds to 1234 ...",
            "building GPT model ..."]
        ctx.emit_lines(0, t0, L0, None, 0.001)
        # NCCL debug file content per process (separate stream)
        ctx.nccl_file = {}
        for r in sorted(ctx.sim):
            tt = t0 + rng.uniform(15, 25)
            lines = [(tt, x) for x in nccl_boot_lines(ctx, r, tt)]
            for k in ["world", "dp", "mp", "tp", "pp", "ep"]:
                if k not in ("world", "mp") and (topo.sizes.get(k, 1) if k != "ep" else topo.ep) == 1:
                    continue
                tt += rng.uniform(0.3, 4)
                lines += [(tt, x) for x in nccl_init_lines(ctx, r, tt, k, verbose=(k in ("world", "ep") and rng.random() < 0.5))]
            ctx.nccl_file[r] = lines
        for r in sorted(ctx.sim):
            tw = t0 + rng.uniform(1, 8)
            if rng.random() < 0.8:
                ctx.emit_lines(r, tw, ["%s/transformer_engine/pytorch/cpu_offload.py:%d: DeprecationWarning: Offloading weights is deprecated. Using offload_weights=True does not have any effect." % (ctx.pylib, 595) if rng.random() < 0.3 else
                                       "%s/transformer_engine/pytorch/attention.py:%d: UserWarning: To use flash-attn v3, please use the following commands to install: (1) pip install \"git+https://github.com/Dao-AILab/flash-attention.git#egg=flashattn-hopper&subdirectory=hopper\" (2) python_path=`python -c \"import site; print(site.getsitepackages()[0])\"` (3) mkdir -p $python_path/flashattn_hopper (4) wget -P $python_path/flashattn_hopper https://raw.githubusercontent.com/Dao-AILab/flash-attention/main/hopper/flash_attn_interface.py" % (ctx.pylib, 126),
                                       "  warnings.warn("], None, 0.0001)
            if rng.random() < 0.5:
                ctx.emit(r, tw + 2, "INFO:megatron.core.num_microbatches_calculator:setting number of microbatches to constant %d" % (ctx.gbs // (ctx.mbs * topo.sizes["dp"])))
        t1 = t0 + rng.uniform(40, 120)
        nparam = rng.randrange(2000, 9000) * 10 ** 6
        for r in sorted(ctx.sim):
            c = topo.coords(r)
            if c["dp"] == 0:
                ctx.emit(r, t1 + rng.uniform(0, 1), " > number of parameters on (tensor, pipeline) model parallel rank (%d, %d): %d" % (c["tp"], c["pp"], nparam))
            if rng.random() < 0.3:
                ctx.emit(r, t1 + rng.uniform(1, 3), "%s/megatron/core/transformer/moe/router.py:%d: UserWarning: moe_router_topk_scaling_factor is None, using 1.0" % (ctx.mroot, rng.randrange(60, 200)))
        ctx.emit_lines(0, t1 + 5, ["> building train, validation, and test datasets ...", "> finished creating GPT datasets ...", "done with setup ...", "training ...",
                                   "[before the start of training step] datetime: %s " % ctx.dtm(0, t1 + 8, "c").strftime("%Y-%m-%d %H:%M:%S")], None, 0.6)
        ctx.t_train0 = t1 + rng.uniform(9, 15)

    def mg_iter_line(self, ctx, it, t, st, loss, skipped=0, gn=None, d=None):
        s = MegatronBase.mg_iter_line(self, ctx, it, t, st, loss, skipped, gn, d)
        lb = ctx.rng.uniform(1.001, 1.08) if ctx.cause != "collective_mismatch" else ctx.rng.uniform(1.2, 2.6)
        return s.replace(" | loss scale:", " | load_balancing_loss: %.6E | loss scale:" % lb)

    def train(self, ctx, t_to, straggle=None):
        it, t = self.emit_training(ctx, ctx.t_train0, t_to, ctx.W - 1, ctx.it0, straggle)
        ctx.last_it = it
        return it, t

    def hang_extra(self, ctx, c, t):
        if ctx.rng.random() < 0.4:
            ctx.pyspy = (c, "hang")

    def stall_extra(self, ctx, c, t):
        if ctx.rng.random() < 0.4:
            ctx.pyspy = (c, "data")

    def straggler(self, ctx, c):
        MegatronSrun.straggler(self, ctx, c)

    def finish(self, ctx, t, early_exit=False):
        MegatronSrun.finish(self, ctx, t, early_exit)

    def nccl_tail(self, ctx, r):
        """extra NCCL lines at failure for a process (WARN + Abort)."""
        out = []
        for t, line, tag in ctx.out.get(r, []):
            if " NCCL WARN " in line or " NCCL INFO transport" in line:
                out.append((t, line, tag))
        fin = ctx.final.get(r)
        if fin and fin[2] != "killed" and ctx.rng.random() < 0.7:
            t = fin[0] - 0.2
            for k in ("world", "tp", "ep"):
                if k == "tp" and ctx.topo.sizes["tp"] == 1:
                    continue
                _, _, _, g, members = pg_info(ctx, r, k) if k != "world" else (0, 0, 0, r, list(range(ctx.W)))
                out.append((t, nccl_line(ctx, r, t, "INFO", "comm %s rank %d nranks %d cudaDev %d busId %s - Abort COMPLETE" % (
                    ptr_hex(ctx, r, k), g, len(members), ctx.lr(r), ctx.busids[ctx.lr(r)]), "wd"), None))
        return out

    def render(self, ctx):
        rng = ctx.rng
        topo = ctx.topo
        jn = ctx.jobname
        # per-task stdout files chosen by the submitter
        tasks = [0, ctx.W - 1]
        cand = sorted(ctx.sim - set(tasks))
        if ctx.culprit is not None and rng.random() < 0.55:
            tasks.append(ctx.culprit)
        for r in rng.sample(cand, min(len(cand), rng.choice([1, 2, 3]))):
            tasks.append(r)
        tasks = sorted(set(tasks))
        for r in tasks:
            def attr(rr, line, tag):
                return "per-task-file"
            body = merged(ctx, [r], lambda x: "", (), attr, "logs/%s-%s-%d.out" % (jn, ctx.jobid, r),
                          filt=lambda rr, line: " NCCL WARN " not in line and " NCCL INFO " not in line and not line.startswith("NCCL version"))
            if r in ctx.sim or ctx.out.get(r):
                ctx.files["logs/%s-%s-%d.out" % (jn, ctx.jobid, r)] = "\n".join(body) + "\n"
        # NCCL debug files
        nodes = []
        if ctx.culprit is not None and rng.random() < 0.65:
            nodes.append(ctx.node_of(ctx.culprit))
        if ctx.culprit_node is not None and rng.random() < 0.7:
            nodes.append(ctx.culprit_node)
        others = sorted(set(ctx.node_of(r) for r in ctx.sim) - set(nodes))
        nodes += rng.sample(others, min(len(others), rng.choice([1, 1, 2])))
        nodes = sorted(set(nodes))
        ctx.nccl_nodes = nodes
        for n in nodes:
            for r in ctx.ranks_on(n):
                if r not in ctx.sim:
                    continue
                lines = list(ctx.nccl_file.get(r, [])) + [(t, l) for t, l, tag in self.nccl_tail(ctx, r)]
                lines.sort(key=lambda x: x[0])
                txt = "\n".join(l for t, l in lines) + "\n"
                ctx.files["nccl/nccl-%s-%d.log" % (ctx.hosts[n], ctx.pid[r])] = txt
                if r == ctx.culprit:
                    if any(" NCCL WARN " in l for t, l in lines):
                        ctx.evidence.append("nccl-file-warn(host,pid,world-rank)")
                    elif getattr(ctx, "pid_in_kern", False) or ctx.cause == "host_oom_kill":
                        ctx.pid_nccl = True
        # sbatch stdout (srun errors)
        hdr = ["SLURM_JOB_ID=%s" % ctx.jobid, "SLURM_JOB_NODELIST=%s" % slurm_nodelist(ctx.hosts), "SLURM_NNODES=%d" % ctx.nnodes,
               "NCCL_DEBUG=INFO", "NCCL_DEBUG_SUBSYS=%s" % ctx.nccl_subsys, "NCCL_DEBUG_FILE=%s/nccl/nccl-%%h-%%p.log" % ctx.logdir if hasattr(ctx, "logdir") else "NCCL_DEBUG_FILE=/lustre/logs/%s/nccl/nccl-%%h-%%p.log" % ctx.jobid,
               "srun --output=logs/%%x-%%j-%%t.out --kill-on-bad-exit=1 --ntasks-per-node=8 python %s/pretrain_gpt.py --tensor-model-parallel-size %d --pipeline-model-parallel-size %d --expert-model-parallel-size %d --num-experts %d --moe-router-topk %d --moe-token-dispatcher-type alltoall ..." % (
                   ctx.mroot, topo.sizes["tp"], topo.sizes["pp"], topo.ep, ctx.num_experts, ctx.topk)]
        extra = srun_tail(ctx, ctx.hosts[0])
        if ctx.sched_kill is not None:
            why = "DUE TO TIME LIMIT" if getattr(ctx, "time_limit", False) else "DUE TO PREEMPTION"
            extra.append((ctx.sched_kill, "slurmstepd: error: *** JOB %s ON %s CANCELLED AT %s %s ***" % (ctx.jobid, ctx.hosts[0], slurm_ts(ctx, ctx.sched_kill), why)))
            extra.append((ctx.sched_kill + 0.3, "slurmstepd: error: *** STEP %s.0 ON %s CANCELLED AT %s %s ***" % (ctx.jobid, ctx.hosts[0], slurm_ts(ctx, ctx.sched_kill), why)))
        extra.sort()
        ctx.files["slurm-%s.out" % ctx.jobid] = "\n".join(hdr + [l for t, l in extra]) + "\n"
        if ctx.cause is None or (ctx.cause == "straggler" and not getattr(ctx, "time_limit", False)):
            state, ec, tend = "COMPLETED", "0:0", getattr(ctx, "t_end", ctx.t_last)
        elif ctx.sched_kill is not None:
            state = "TIMEOUT" if getattr(ctx, "time_limit", False) else "PREEMPTED"
            ec, tend = "0:15", ctx.sched_kill
        else:
            state, ec = "FAILED", "1:0"
            tend = (ctx.global_kill or max(v[0] for v in ctx.final.values())) + 3
        ctx.files["sacct.txt"] = sacct_text(ctx, jn, state, ec, tend, ctx.partition)
        ctx.busmap_visible = ctx.culprit is not None and ctx.node_of(ctx.culprit) in nodes
        render_node_extras(ctx, rng)
        if ctx.evidence_bus and ctx.culprit is not None and ctx.node_of(ctx.culprit) in nodes and ctx.node_of(ctx.culprit) in getattr(ctx, "kern_attached", []):
            ctx.evidence.append("xid-bus+nccl-busId")
        if getattr(ctx, "pid_in_kern", False) and getattr(ctx, "pid_nccl", False):
            ctx.evidence.append("oom-pid+nccl-file")
        if getattr(ctx, "mismatch_group_rank", None) is not None and ctx.culprit is not None:
            # group rank -> global rank via NCCL 'comm ... rank g nranks n ... commId' of the EP comm in any attached file of the culprit
            if ctx.node_of(ctx.culprit) in nodes:
                ctx.evidence.append("ep-comm-rank-in-nccl-file")


def tqdm_t(sec):
    sec = int(sec)
    h, m, s_ = sec // 3600, (sec % 3600) // 60, sec % 60
    return "%d:%02d:%02d" % (h, m, s_) if h else "%02d:%02d" % (m, s_)


def age(sec):
    sec = int(max(1, sec))
    if sec < 120:
        return "%ds" % sec
    if sec < 7200:
        return "%dm" % (sec // 60)
    if sec < 172800:
        return "%dh" % (sec // 3600)
    return "%dd" % (sec // 86400)


class NemoK8s(MegatronBase):
    name = "nemo_k8s"
    stack = "NeMo (Lightning + Megatron-Core) on Kubernetes PyTorchJob, torchrun per pod"
    policy = {"mode": "agent", "global": 12.0}

    def setup(self, ctx):
        rng = ctx.rng
        nn = rng.choice([2, 2, 4, 4, 8, 8, 16, 32])
        base_setup(ctx, nn, "ngc", 1, 6)
        if rng.random() < 0.3:
            # NeMo use_tp_pp_dp_mapping
            for _ in range(100):
                tp, pp = rng.choice([2, 4, 8]), rng.choice([1, 2, 4])
                if ctx.W % (tp * pp) == 0:
                    break
            ctx.topo = Topo(ctx.W, {"tp": tp, "pp": pp, "dp": ctx.W // (tp * pp), "cp": 1}, ["tp", "cp", "pp", "dp"])
            ctx.pg_order = [("dp", "DATA_PARALLEL_GROUP", True), ("mp", "MODEL_PARALLEL_GROUP", False),
                            ("tp", "TENSOR_MODEL_PARALLEL_GROUP", False), ("pp", "PIPELINE_MODEL_PARALLEL_GROUP", False)]
            ctx.tp_pp_dp = True
            ctx.notes.append("NeMo use_tp_pp_dp_mapping=True (order tp-pp-dp)")
        else:
            self.pick_topology(ctx, [2, 4, 8], [1, 2, 2, 4], [1, 1, 2])
            ctx.tp_pp_dp = False
        ctx.job = rng.choice(["llama3-70b", "nemotron4-15b", "mistral-nemo-12b", "gpt3-20b", "llama31-8b-cpt"]) + "-" + rng.choice(["pt", "sft", "cpt"]) + "-" + hexs(rng, 5)
        ctx.pods = [ctx.job + "-master-0"] + ["%s-worker-%d" % (ctx.job, i) for i in range(nn - 1)]
        cl = rng.choice(["gke", "eks", "onprem"])
        if cl == "gke":
            pool = hexs(rng, 8)
            ctx.knodes = ["gke-%s-a3mega-np-%s-%s" % (rng.choice(["llm-prod", "train-us-c1", "ml-a3"]), pool, "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(4))) for _ in range(nn)]
        elif cl == "eks":
            ctx.knodes = ["ip-10-%d-%d-%d.%s.compute.internal" % (rng.randrange(256), rng.randrange(256), rng.randrange(256), rng.choice(["us-west-2", "us-east-1"])) for _ in range(nn)]
        else:
            s0 = rng.randrange(1, 80)
            ctx.knodes = ["gpu-node-%02d" % (s0 + i) for i in range(nn)]
        ctx.hostnet = rng.random() < 0.5
        ctx.hosts = ctx.knodes
        ctx.ips = mk_ips(ctx, nn)
        ctx.aliases = [[ctx.pods[i], ctx.ips[i]] for i in range(nn)]
        ctx.nccl_host = lambda n: ctx.knodes[n] if ctx.hostnet else ctx.pods[n]
        ctx.agent_host = lambda n: ctx.knodes[n] if ctx.hostnet else ctx.pods[n]
        ctx.netdev = lambda k: ("ibp%ds0" if ctx.ib_kind == "IB" else "enp%ds0f0np0") % int(ctx.hca_pci[k], 16)
        ctx.cgroup_name = lambda n: "/kubepods.slice/kubepods-pod%s.slice/cri-containerd-%s.scope" % (hexs(random.Random(ctx.pods[n]), 8), hexs(random.Random(ctx.pods[n] + "c"), 12))
        ctx.mroot = "/opt/megatron-lm"
        ctx.nemo_root = "/opt/NeMo"
        ctx.nemo2 = ctx.tv >= 5 and rng.random() < 0.6
        ctx.model_name = ctx.job
        ctx.timeout_ms = 1800000
        ctx.nccl_debug = "INFO" if rng.random() < 0.35 else "WARN"
        self.model_setup(ctx)
        ctx.tflops = rng.uniform(250, 480)
        ctx.loss0 = rng.uniform(1.6, 3.0)
        ctx.it0 = 0
        ctx.image = "nvcr.io/nvidia/nemo:%s" % {1: "23.11", 2: "24.01.01", 3: "24.05", 4: "24.07", 5: "24.12", 6: "25.02"}[ctx.tv]
        ctx.script = "megatron_gpt_pretraining.py"
        ctx.ns = rng.choice(["training", "llm", "default", "research-ml"])

    def mi_lines(self, ctx):
        base = {1: 223, 2: 234, 3: 253, 4: 263, 5: 263, 6: 263}[ctx.tv]
        order = ["dp", "dpcp", "alldp", "dprank", "cp", "allcp", "cprank", "mp", "allmp", "tp", "alltp", "tprank", "pp", "allpp", "emb", "pprank", "embrank"]
        return {k: "megatron_init:%d" % (base + 3 * i + (i // 3)) for i, k in enumerate(order)}

    def nemo_log(self, ctx, r, t, lvl, src, msg):
        d = ctx.dtm(ctx.node_of(r), t, "c")
        if ctx.tv >= 4:
            src = "nemo_logging:%d" % (393 if lvl == "I" else 405)
        return "[NeMo %s %s %s] %s" % (lvl, d.strftime("%Y-%m-%d %H:%M:%S"), src, msg)

    def tb(self, ctx, r, where):
        P = ctx.pylib
        fr = mg_frames(ctx, where)
        tail = fr[4:] if where not in ("ckpt",) else fr[3:]
        if where == "optim":
            tail = fr[3:]
        N = ctx.nemo_root
        if ctx.nemo2:
            head = [("%s/nemo/collections/llm/api.py" % N, 107, "train", "trainer.fit(model, data)"),
                    (P + "/lightning/pytorch/trainer/trainer.py", 538, "fit", "call._call_and_handle_interrupt("),
                    (P + "/lightning/pytorch/trainer/call.py", 46, "_call_and_handle_interrupt", "return trainer.strategy.launcher.launch(trainer_fn, *args, trainer=trainer, **kwargs)"),
                    (P + "/lightning/pytorch/strategies/launchers/subprocess_script.py", 105, "launch", "return function(*args, **kwargs)"),
                    (P + "/lightning/pytorch/trainer/trainer.py", 981, "_run", "results = self._run_stage()"),
                    (P + "/lightning/pytorch/loops/fit_loop.py", 205, "run", "self.advance()"),
                    (P + "/lightning/pytorch/loops/training_epoch_loop.py", 250, "advance", "batch_output = self.manual_optimization.run(kwargs)"),
                    (P + "/lightning/pytorch/strategies/strategy.py", 390, "training_step", "return self.lightning_module.training_step(*args, **kwargs)"),
                    ("%s/nemo/lightning/megatron_parallel.py" % N, 312, "training_step", "return self._step("),
                    ("%s/nemo/lightning/megatron_parallel.py" % N, 434, "_step", "return self.forward("),
                    ("%s/nemo/lightning/megatron_parallel.py" % N, 277, "forward", "microbatch_outputs = step()"),
                    ("%s/nemo/lightning/megatron_parallel.py" % N, 1163, "__call__", "return self.forward_backward_func(")]
        else:
            head = [("%s/examples/nlp/language_modeling/megatron_gpt_pretraining.py" % N, 42, "main", "trainer.fit(model)"),
                    (P + "/lightning/pytorch/trainer/trainer.py", 538, "fit", "call._call_and_handle_interrupt("),
                    (P + "/lightning/pytorch/trainer/call.py", 46, "_call_and_handle_interrupt", "return trainer.strategy.launcher.launch(trainer_fn, *args, trainer=trainer, **kwargs)"),
                    (P + "/lightning/pytorch/trainer/trainer.py", 1025, "_run_stage", "self.fit_loop.run()"),
                    (P + "/lightning/pytorch/loops/fit_loop.py", 205, "run", "self.advance()"),
                    (P + "/lightning/pytorch/loops/training_epoch_loop.py", 250, "advance", "batch_output = self.automatic_optimization.run(trainer.optimizers[0], batch_idx, kwargs)"),
                    (P + "/lightning/pytorch/loops/optimization/automatic.py", 318, "_training_step", 'training_step_output = call._call_strategy_hook(trainer, "training_step", *kwargs.values())'),
                    (P + "/lightning/pytorch/strategies/strategy.py", 390, "training_step", "return self.lightning_module.training_step(*args, **kwargs)"),
                    ("%s/nemo/collections/nlp/models/language_modeling/megatron_gpt_model.py" % N, 684, "training_step", "loss_mean = self.fwd_bwd_step(dataloader_iter, False)"),
                    ("%s/nemo/collections/nlp/models/language_modeling/megatron_gpt_model.py" % N, 611, "fwd_bwd_step", "losses_reduced_per_micro_batch = fwd_bwd_function(")]
        return head + tail

    def choose_sim(self, ctx):
        default_sim(ctx, max_nodes=6)

    def startup(self, ctx):
        rng = ctx.rng
        topo = ctx.topo
        for n in range(ctx.nnodes):
            if not any(r in ctx.sim for r in ctx.ranks_on(n)):
                continue
            t = rng.uniform(1, 6)
            if ctx.tv <= 1:
                lines = ["WARNING:torch.distributed.run:", "*****************************************",
                         "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. ",
                         "*****************************************"]
            else:
                lines = [agent_line(ctx, n, t, "W", "run", "run.py:793", ""), agent_line(ctx, n, t, "W", "run", "run.py:793", "*****************************************"),
                         agent_line(ctx, n, t, "W", "run", "run.py:793", "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. "),
                         agent_line(ctx, n, t, "W", "run", "run.py:793", "*****************************************")]
            for i, l in enumerate(lines):
                ctx.emit_agent(n, t + i * 0.001, l)
        t0 = rng.uniform(20, 60)
        for r in sorted(ctx.sim):
            c = topo.coords(r)
            tt = t0 + rng.uniform(0, 3)
            L = []
            if r == 0:
                L += ["GPU available: True (cuda), used: True", "TPU available: False, using: 0 TPU cores", "HPU available: False, using: 0 HPUs"]
            L.append("Initializing distributed: GLOBAL_RANK: %d, MEMBER: %d/%d" % (r, r + 1, ctx.W))
            if ctx.nccl_debug == "INFO":
                L += nccl_boot_lines(ctx, r, tt)
            if r == 0:
                L += ["-" * 100, "distributed_backend=nccl", "All distributed processes registered. Starting with %d processes" % ctx.W, "-" * 100, ""]
            S = self.mi_lines(ctx)
            dpg = topo.group("dp", r)
            L += [self.nemo_log(ctx, r, tt + 2, "I", S["dp"], "Rank %d has data parallel group : %s" % (r, dpg))]
            if ctx.tv >= 3:
                L.append(self.nemo_log(ctx, r, tt + 2, "I", S["dpcp"], "Rank %d has combined group of data parallel and context parallel : %s" % (r, sorted(set(dpg) | set(topo.group("cp", r))))))
                if ctx.W <= 32:
                    L.append(self.nemo_log(ctx, r, tt + 2, "I", S["alldp"], "All data parallel group ranks with context parallel combined: %s" % topo.all_groups("dp")))
            L.append(self.nemo_log(ctx, r, tt + 2, "I", S["dprank"], "Ranks %d has data parallel rank: %d" % (r, c["dp"])))
            if ctx.tv >= 3:
                L.append(self.nemo_log(ctx, r, tt + 2, "I", S["cp"], "Rank %d has context parallel group: %s" % (r, topo.group("cp", r))))
                L.append(self.nemo_log(ctx, r, tt + 2, "I", S["cprank"], "Ranks %d has context parallel rank: %d" % (r, c.get("cp", 0))))
            if ctx.W <= 64:
                L.append(self.nemo_log(ctx, r, tt + 2, "I", S["mp"], "Rank %d has model parallel group: %s" % (r, topo.group("mp", r))))
            L.append(self.nemo_log(ctx, r, tt + 2, "I", S["tp"], "Rank %d has tensor model parallel group: %s" % (r, topo.group("tp", r))))
            if ctx.W <= 32:
                L.append(self.nemo_log(ctx, r, tt + 2, "I", S["alltp"], "All tensor model parallel group ranks: %s" % topo.all_groups("tp")))
            L.append(self.nemo_log(ctx, r, tt + 2, "I", S["tprank"], "Rank %d has tensor model parallel rank: %d" % (r, c["tp"])))
            ppg = topo.group("pp", r)
            L.append(self.nemo_log(ctx, r, tt + 2, "I", S["pp"], "Rank %d has pipeline model parallel group: %s" % (r, ppg)))
            L.append(self.nemo_log(ctx, r, tt + 2, "I", S["emb"], "Rank %d has embedding group: %s" % (r, sorted(set([ppg[0], ppg[-1]])))))
            L.append(self.nemo_log(ctx, r, tt + 2, "I", S["pprank"], "Rank %d has pipeline model parallel rank %d" % (r, c["pp"])))
            L.append(self.nemo_log(ctx, r, tt + 2, "I", S["embrank"], "Rank %d has embedding rank: 0" % r))
            if ctx.nccl_debug == "INFO":
                for k in ("tp", "pp", "dp"):
                    if topo.sizes.get(k, 1) > 1:
                        L += nccl_init_lines(ctx, r, tt + 5, k)
            ctx.emit_lines(r, tt, L, None, 0.001)
            if rng.random() < 0.4:
                ctx.emit(r, tt + 6, "%s/lightning/pytorch/trainer/connectors/logger_connector/logger_connector.py:75: Starting from v1.9.0, `tensorboardX` has been removed as a dependency of the `lightning.pytorch` package, due to potential conflicts with other packages in the ML ecosystem. For this reason, `logger=True` will use `CSVLogger` as the default logger, unless the `tensorboard` or `tensorboardX` packages are found. Please `pip install lightning[extra]` or one of them to enable TensorBoard support by default" % ctx.pylib)
        t1 = t0 + rng.uniform(30, 120)
        L = [self.nemo_log(ctx, 0, t1, "W", "exp_manager:%d" % rng.choice([971, 1103]), "The checkpoint callback was told to monitor a validation value and trainer's max_steps was set to %d. Please ensure that max_steps will run for at least 1 epochs to ensure that checkpointing will not error out." % ctx.train_iters),
             self.nemo_log(ctx, 0, t1, "I", "exp_manager:%d" % rng.choice([704, 812]), "TensorboardLogger has been set up"),
             self.nemo_log(ctx, 0, t1, "I", "megatron_gpt_model:%d" % rng.choice([1190, 1620]), "Pipeline model parallel rank: 0, Tensor model parallel rank: 0, Number of model parameters on device: %.2e. Total number of model parameters: %.2e." % (rng.uniform(1e9, 5e9), rng.uniform(7e9, 7.2e10))),
             "",
             "  | Name  | Type     | Params | Mode ",
             "-------------------------------------------",
             "0 | model | GPTModel | %.1f B  | train" % rng.uniform(1.0, 9.0),
             "-------------------------------------------"]
        ctx.emit_lines(0, t1, L, None, 0.01)
        if ctx.sim and rng.random() < 0.5:
            r = rng.choice(sorted(ctx.sim))
            ctx.emit_lines(r, t1 + 3, [self.nemo_log(ctx, r, t1 + 3, "W", "nemo_logging:349", "%s/torch/utils/data/dataloader.py:558: UserWarning: This DataLoader will create 4 worker processes in total. Our suggested max number of worker in current system is 2, which is smaller than what this DataLoader is going to create. Please be aware that excessive worker creation might get DataLoader running slow or even freeze, lower the worker number to avoid potential slowness/freeze if necessary." % ctx.pylib),
                                       "  warnings.warn(_create_warning_msg("], None, 0.001)
        ctx.t_train0 = t1 + rng.uniform(20, 60)

    def train(self, ctx, t_to, straggle=None):
        rng = ctx.rng
        t = ctx.t_train0
        it = 0
        loss = ctx.loss0
        total = ctx.train_iters
        li = rng.choice([1, 1, 10])
        while True:
            st = ctx.st * rng.uniform(0.985, 1.02)
            if straggle and t >= straggle[0]:
                st *= straggle[1]
            if t + st * li > t_to:
                break
            t += st * li
            it += li
            loss = max(1.1, loss - rng.uniform(0, 0.006) + rng.uniform(-0.01, 0.0115))
            if ctx.nemo2:
                line = "Training epoch 0, iteration %d/%d | lr: %.4g | global_batch_size: %d | global_step: %d | reduced_train_loss: %.4g | train_step_timing in s: %.4g | consumed_samples: %d" % (
                    it - 1, total - 1, 3e-4 * min(1, it / 500.0), ctx.gbs, it - 1, loss, st, it * ctx.gbs)
            else:
                el = t - ctx.t_train0
                rem = (total - it) * st
                pct = int(100.0 * it / total)
                line = "Epoch 0: : %3d%%|%s| %d/%d [%s<%s, reduced_train_loss=%.3f, global_step=%.1f, consumed_samples=%.1f, train_step_timing in s=%.3g]" % (
                    pct, ("\u2588" * (pct // 10)).ljust(10), it, total, tqdm_t(el), tqdm_t(rem), loss, it - 1, float(it * ctx.gbs), st)
            ctx.emit(0, t, line)
            if straggle and t >= straggle[0] and rng.random() < 0.25:
                self.straggler_report(ctx, t + 0.05, straggle[2])
            elif ctx.cause is None and rng.random() < 0.02:
                self.straggler_report(ctx, t + 0.05, None)
        ctx.t_last = t
        ctx.last_it = it
        return it, t

    def straggler_report(self, ctx, t, c):
        rng = ctx.rng
        rs = rng.sample(range(ctx.W), min(5, ctx.W))
        if c is not None:
            rs = [c] + [x for x in rs if x != c][:4]
        L = [self.nemo_log(ctx, 0, t, "I", "straggler_det_callback:%d" % rng.choice([178, 195]), ""), "GPU relative performance:",
             " Worst performing %d/%d ranks:" % (len(rs), ctx.W)]
        for i, r in enumerate(rs):
            sc = rng.uniform(0.55, 0.75) if (c is not None and r == c) else rng.uniform(0.96, 0.995)
            L.append("  Rank=%d Node=%s Score=%.2f" % (r, ctx.nccl_host(ctx.node_of(r)), sc))
        L += ["GPU individual performance:", " Worst performing %d/%d ranks:" % (len(rs), ctx.W)]
        for r in rs:
            sc = rng.uniform(0.55, 0.75) if (c is not None and r == c) else rng.uniform(0.95, 0.99)
            L.append("  Rank=%d Node=%s Score=%.2f" % (r, ctx.nccl_host(ctx.node_of(r)), sc))
        if c is not None:
            L.append(" Straggler report: STRAGGLER DETECTED. Stragglers: [Rank=%d]" % c)
        L.append("Straggler report processing time: %.3f sec." % rng.uniform(0.01, 0.3))
        ctx.emit_lines(0, t, L, None, 0.0001)

    def straggler(self, ctx, c):
        rng = ctx.rng
        onset = ctx.t_train0 + rng.uniform(0.05, 0.4) * (ctx.t_fail - ctx.t_train0)
        fac = rng.uniform(1.3, 2.0)
        it, t = self.train(ctx, ctx.t_fail + rng.uniform(100, 1500), (onset, fac, c))
        ctx.notes.append("rank %d %.2fx slower from t=%.0fs; NeMo straggler detection reports it" % (c, fac, onset))
        ctx.ev("straggler-report", "STRAGGLER DETECTED. Stragglers: [Rank=%d]" % c)
        self.finish(ctx, t)

    def finish(self, ctx, t, early_exit=False):
        L = ["`Trainer.fit` stopped: `max_steps=%d` reached." % ctx.last_it] if ctx.cause is None else []
        L.append(self.nemo_log(ctx, 0, t + 2, "I", "nemo_model_checkpoint:%d" % ctx.rng.choice([227, 301]), "Checkpoint save for step %d started at %.1f." % (ctx.last_it, 1.7e9 + t)))
        ctx.emit_lines(0, t + 1, L, None, 1.0)
        ctx.t_end = t + 30
        ctx.pod_done = ctx.t_end

    def preempt(self, ctx, t):
        # spot reclaim / maintenance of one k8s node; only its pod is terminated by kubelet
        ctx.sched_kill = None
        n = ctx.rng.randrange(ctx.nnodes)
        ctx.culprit_node = n
        ctx.preempt_node = n
        for r in ctx.ranks_on(n):
            if r in ctx.sim:
                ctx.exits[r] = (t + ctx.rng.uniform(0.5, 3), -15, "sigterm(node shutdown)")
        for i, l in enumerate(agent_sigterm_block(ctx, n, t + 0.2, ctx.script)):
            ctx.emit_agent(n, t + 0.2 + i * 0.0001, l)
        block_all(ctx, None, t, exclude=set(ctx.ranks_on(n)), rel_override="other")
        remote_errors(ctx, ctx.ranks_on(n)[0], t + 2, prob=0.5, rels=("other",))
        emit_timeouts(ctx)

    def hang_extra(self, ctx, c, t):
        pass

    def stall_extra(self, ctx, c, t):
        pass

    # ---------------- render ----------------
    def render(self, ctx):
        rng = ctx.rng
        fin = ctx.final
        pod_fail = {}
        for n in range(ctx.nnodes):
            ts = [fin[r][0] for r in ctx.ranks_on(n) if r in fin and fin[r][2] != "killed"]
            if ts:
                pod_fail[n] = min(ts)
        first_pod = min(pod_fail, key=lambda n: pod_fail[n]) if pod_fail else None
        # per-pod agent tail
        for n in range(ctx.nnodes):
            if not any(r in ctx.sim for r in ctx.ranks_on(n)):
                continue
            if getattr(ctx, "preempt_node", None) == n:
                continue
            nat = sorted([(fin[r][0], r, fin[r]) for r in ctx.ranks_on(n) if r in fin and fin[r][2] != "killed"])
            if nat:
                tk = nat[0][0] + 0.3
                for r in ctx.ranks_on(n):
                    if r != nat[0][1] and (r not in fin or fin[r][2] == "killed"):
                        ctx.emit_agent(n, tk, agent_line(ctx, n, tk, "W", "multiprocessing.api", "multiprocessing/api.py:897", "Sending process %d closing signal SIGTERM" % ctx.pid[r]))
                t0, r0, v0 = nat[0]
                te = ctx.agent_exit.get(n, tk + 3)
                ctx.emit_agent(n, te - 0.5, agent_line(ctx, n, te - 0.5, "E", "multiprocessing.api", "multiprocessing/api.py:869",
                                                       "failed (exitcode: %d) local_rank: %d (pid: %d) of binary: /usr/bin/python" % (v0[1], ctx.lr(r0), ctx.pid[r0])))
                for i, l in enumerate(child_failed_block(ctx, n, te, ctx.script, [(r, v[1], ctx.pid[r], tt) for tt, r, v in nat[:3]])):
                    ctx.emit_agent(n, te + i * 0.0001, l)
                if r0 == ctx.culprit:
                    ctx.summary_ok = n
            elif ctx.global_kill is not None and n != first_pod:
                tg = ctx.global_kill + rng.uniform(0, 2.0)
                for i, l in enumerate(agent_sigterm_block(ctx, n, tg, ctx.script)):
                    ctx.emit_agent(n, tg + i * 0.0001, l)
        attach = [0]
        cn = ctx.culprit_node if ctx.culprit is None else ctx.node_of(ctx.culprit)
        if cn is not None and rng.random() < 0.7:
            attach.append(cn)
        if first_pod is not None and rng.random() < 0.7:
            attach.append(first_pod)
        others = sorted(set(ctx.node_of(r) for r in ctx.sim) - set(attach))
        attach += rng.sample(others, min(len(others), rng.choice([0, 1, 2])))
        attach = sorted(set(attach))
        for n in attach:
            if ctx.tv >= 2:
                pre = lambda r: "[rank%d]:" % r
                a = "global-prefix"
            else:
                tee = getattr(ctx, "tee", None)
                if tee is None:
                    ctx.tee = tee = rng.random() < 0.6
                pre = (lambda r: "[default%d]:" % ctx.lr(r)) if tee else (lambda r: "")
                a = "local-prefix+pod" if tee else None

            def attr(r, line, tag, a=a, n=n):
                if a:
                    return a
                if " NCCL " in line:
                    return "nccl-host-dev"
                if "GPU %d has a total" % ctx.lr(r) in line:
                    return "oom-gpu-index+pod"
                return None
            body = merged(ctx, ctx.ranks_on(n), pre, ctx.agent.get(n, []), attr, "logs/%s.log" % ctx.pods[n])
            ctx.files["logs/%s.log" % ctx.pods[n]] = "\n".join(body) + "\n"
            if getattr(ctx, "summary_ok", None) == n:
                ctx.ev("torchrun-root-cause", "  rank      : %d (local_rank: %d)" % (ctx.culprit, ctx.lr(ctx.culprit)))
        # kubectl describe / events / job status
        t_cap = max([v[0] for v in fin.values()] + [getattr(ctx, "t_end", 0), ctx.t_last]) + rng.uniform(120, 1800)
        ev = []
        pod_reason = {}
        for n in range(ctx.nnodes):
            rs = [fin[r] for r in ctx.ranks_on(n) if r in fin]
            if getattr(ctx, "preempt_node", None) == n:
                pod_reason[n] = ("Error", 143)
                ev.append((ctx.t_fail - 30, "Warning", "NodeShutdown", "node/%s" % ctx.knodes[n], "Node %s is being shut down: %s" % (ctx.knodes[n], rng.choice(["spot VM preemption", "scheduled maintenance event"]))))
                ev.append((ctx.t_fail, "Warning", "NodeShutdown", "pod/%s" % ctx.pods[n], "Pod was terminated in response to imminent node shutdown."))
            elif ctx.cause == "host_oom_kill" and ctx.culprit is not None and ctx.node_of(ctx.culprit) == n:
                pod_reason[n] = ("OOMKilled", 137)
            elif n in pod_fail:
                pod_reason[n] = ("Error", 1)
            elif ctx.cause is None or ctx.cause == "straggler":
                pod_reason[n] = ("Completed", 0)
            else:
                pod_reason[n] = ("Error", 143)
        if ctx.cause is not None and ctx.cause != "straggler":
            for n in sorted(pod_fail, key=lambda x: pod_fail[x]):
                ev.append((pod_fail[n] + 5, "Normal", "ExitedWithCode", "pytorchjob/%s" % ctx.job, "Pod: %s.%s exited with code %d" % (ctx.ns, ctx.pods[n], pod_reason[n][1])))
            tfail = min(pod_fail.values()) + 6 if pod_fail else ctx.t_fail
            ev.append((tfail, "Normal", "PyTorchJobFailed", "pytorchjob/%s" % ctx.job, "PyTorchJob %s is failed because 1 %s replica(s) failed." % (ctx.job, "Master" if first_pod == 0 else "Worker")))
            for n in range(ctx.nnodes):
                if n not in pod_fail:
                    ev.append((tfail + 1, "Normal", "SuccessfulDeletePod", "pytorchjob/%s" % ctx.job, "Deleted pod: %s" % ctx.pods[n]))
                    ev.append((tfail + 1.5, "Normal", "Killing", "pod/%s" % ctx.pods[n], "Stopping container pytorch"))
        else:
            ev.append((ctx.t_end, "Normal", "PyTorchJobSucceeded", "pytorchjob/%s" % ctx.job, "PyTorchJob %s is successfully completed." % ctx.job))
        if ctx.cause == "host_oom_kill" and ctx.culprit is not None:
            n = ctx.node_of(ctx.culprit)
            ev.append((ctx.t_fail + 0.5, "Warning", "OOMKilling", "node/%s" % ctx.knodes[n], "Memory cgroup out of memory: Killed process %d (python3) total-vm:%dkB, anon-rss:%dkB, file-rss:0kB, shmem-rss:0kB, UID:%d pgtables:%dkB oom_score_adj:%d" % (
                ctx.pid[ctx.culprit], rng.randrange(3 * 10 ** 8, 6 * 10 ** 8), rng.randrange(2 * 10 ** 8, 4 * 10 ** 8), ctx.uid, rng.randrange(400000, 900000), rng.choice([-997, 999, 1000]))))
            ctx.evidence_pid_k8s = True
        if ctx.cause in ("gpu_hardware",) and ctx.culprit is not None and rng.random() < 0.5:
            n = ctx.node_of(ctx.culprit)
            ev.append((ctx.t_fail + 60, "Warning", "GPUUnhealthy", "node/%s" % ctx.knodes[n], "nvidia.com/gpu device GPU-%s-%s is unhealthy (XID 79)" % (hexs(rng, 8), hexs(rng, 4))))
        ev.append((rng.uniform(-600, -60), "Normal", "Scheduled", "pod/%s" % ctx.pods[0], "Successfully assigned %s/%s to %s" % (ctx.ns, ctx.pods[0], ctx.knodes[0])))
        ev.sort(key=lambda x: x[0])
        L = ["LAST SEEN   TYPE      REASON                 OBJECT                                   MESSAGE"]
        for t, ty, rs, ob, msg in ev:
            L.append("%-11s %-9s %-22s %-40s %s" % (age(t_cap - t), ty, rs, ob, msg))
        ctx.files["kubectl-get-events.txt"] = "\n".join(L) + "\n"
        if ctx.evidence_pid and getattr(ctx, "evidence_pid_k8s", False):
            pass
        dpods = []
        if first_pod is not None:
            dpods.append(first_pod)
        if cn is not None and cn not in dpods and rng.random() < 0.5:
            dpods.append(cn)
        for n in dpods:
            reason, code = pod_reason[n]
            st = ctx.dtm(n, -90, "u")
            fn_ = ctx.dtm(n, pod_fail.get(n, ctx.t_fail) + 4, "u")
            D = ["Name:             %s" % ctx.pods[n], "Namespace:        %s" % ctx.ns, "Priority:         0",
                 "Service Account:  default", "Node:             %s/%s" % (ctx.knodes[n], ctx.ips[n]),
                 "Start Time:       %s" % st.strftime("%a, %d %b %Y %H:%M:%S +0000"),
                 "Labels:           training.kubeflow.org/job-name=%s" % ctx.job,
                 "                  training.kubeflow.org/operator-name=pytorchjob-controller",
                 "                  training.kubeflow.org/replica-index=%d" % (0 if n == 0 else n - 1),
                 "                  training.kubeflow.org/replica-type=%s" % ("master" if n == 0 else "worker"),
                 "Status:           %s" % ("Succeeded" if code == 0 else "Failed"),
                 "IP:               %s" % ctx.ips[n], "Containers:", "  pytorch:",
                 "    Container ID:  containerd://%s" % hexs(rng, 64), "    Image:         %s" % ctx.image,
                 "    Port:          23456/TCP",
                 "    Command:", "      torchrun", "    Args:", "      --nnodes=%d" % ctx.nnodes, "      --nproc_per_node=8", "      %s/examples/nlp/language_modeling/%s" % (ctx.nemo_root, ctx.script),
                 "    State:          Terminated", "      Reason:       %s" % reason, "      Exit Code:    %d" % code,
                 "      Started:      %s" % ctx.dtm(n, 0, "u").strftime("%a, %d %b %Y %H:%M:%S +0000"),
                 "      Finished:     %s" % fn_.strftime("%a, %d %b %Y %H:%M:%S +0000"),
                 "    Ready:          False", "    Restart Count:  0", "    Limits:", "      memory:          %dGi" % rng.choice([1400, 1800, 1900]),
                 "      nvidia.com/gpu:  8", "      rdma/ib:         %d" % ctx.n_hca, "    Environment:",
                 "      PET_NNODES:            %d" % ctx.nnodes, "      PET_NPROC_PER_NODE:    8", "      PET_NODE_RANK:         %d" % n,
                 "      MASTER_ADDR:           %s" % ctx.pods[0], "      MASTER_PORT:           23456",
                 "      NCCL_DEBUG:            %s" % ctx.nccl_debug, "Conditions:", "  Type              Status",
                 "  Initialized       True ", "  Ready             False ", "  ContainersReady   False ", "  PodScheduled      True ",
                 "Events:", "  Type     Reason     Age   From               Message", "  ----     ------     ----  ----               -------"]
            if getattr(ctx, "preempt_node", None) == n:
                D.append("  Warning  NodeShutdown  %s  kubelet  Pod was terminated in response to imminent node shutdown." % age(t_cap - ctx.t_fail))
            else:
                D.append("  Normal   Scheduled  %s   default-scheduler  Successfully assigned %s/%s to %s" % (age(t_cap + 90), ctx.ns, ctx.pods[n], ctx.knodes[n]))
            ctx.files["kubectl-describe-pod-%s.txt" % ctx.pods[n]] = "\n".join(D) + "\n"
        state = "Succeeded" if (ctx.cause is None or ctx.cause == "straggler") else "Failed"
        J = ["apiVersion: kubeflow.org/v1", "kind: PyTorchJob", "metadata:", "  name: %s" % ctx.job, "  namespace: %s" % ctx.ns,
             "spec:", "  pytorchReplicaSpecs:", "    Master:", "      replicas: 1", "      restartPolicy: Never", "    Worker:",
             "      replicas: %d" % (ctx.nnodes - 1), "      restartPolicy: Never", "  runPolicy:", "    cleanPodPolicy: Running",
             "status:", "  conditions:", "  - lastTransitionTime: \"%s\"" % ctx.dtm(0, 0, "u").strftime("%Y-%m-%dT%H:%M:%SZ"),
             "    message: PyTorchJob %s is created." % ctx.job, "    reason: PyTorchJobCreated", "    status: \"True\"", "    type: Created",
             "  - lastTransitionTime: \"%s\"" % ctx.dtm(0, 30, "u").strftime("%Y-%m-%dT%H:%M:%SZ"),
             "    message: PyTorchJob %s is running." % ctx.job, "    reason: PyTorchJobRunning", "    status: \"%s\"" % ("False" if state else "True"), "    type: Running"]
        tend = (min(pod_fail.values()) + 6) if pod_fail else getattr(ctx, "t_end", ctx.t_last)
        J += ["  - lastTransitionTime: \"%s\"" % ctx.dtm(0, tend, "u").strftime("%Y-%m-%dT%H:%M:%SZ"),
              "    message: PyTorchJob %s is %s." % (ctx.job, "successfully completed" if state == "Succeeded" else "failed because 1 %s replica(s) failed" % ("Master" if first_pod == 0 else "Worker")),
              "    reason: PyTorchJob%s" % state, "    status: \"True\"", "    type: %s" % state]
        ctx.files["pytorchjob-status.yaml"] = "\n".join(J) + "\n"
        render_node_extras(ctx, rng, kstyles=("T", "raw", "iso"), prefix="node-dmesg-")
        if getattr(ctx, "pid_in_kern", False):
            for n in attach:
                if n == ctx.node_of(ctx.culprit) and ("failed (exitcode: -9) local_rank: %d (pid: %d)" % (ctx.lr(ctx.culprit), ctx.pid[ctx.culprit])) in ctx.files.get("logs/%s.log" % ctx.pods[n], ""):
                    ctx.evidence.append("oom-pid+torchrun-pid")


class TitanSlurm(Layout):
    name = "titan_slurm"
    stack = "torchtitan (FSDP2+TP+PP+CP DeviceMesh) via srun torchrun, [rankN]: prefixes"
    policy = {"mode": "agent", "global": 2.0}

    def setup(self, ctx):
        rng = ctx.rng
        nn = rng.choice([2, 4, 4, 8, 8, 16, 16, 32, 64, 128, 256, 512])
        base_setup(ctx, nn, "pip", 5, 9, gpu_w=(8, 1, 3))
        W = ctx.W
        for _ in range(300):
            tp = rng.choice([1, 2, 4, 8, 8])
            pp = rng.choice([1, 2, 4, 4, 8, 16])
            cp = rng.choice([1, 1, 1, 2, 4])
            rep = rng.choice([1, 1, 1, 2, 4])
            if W % (tp * pp * cp * rep):
                continue
            shard = W // (tp * pp * cp * rep)
            if shard >= 1 and (pp > 1 or tp > 1):
                break
        else:
            tp, pp, cp, rep, shard = 8, 1, 1, 1, W // 8
        ep = 1
        ctx.moe = rng.random() < 0.25 and shard * cp >= 2
        if ctx.moe:
            ep = rng.choice([x for x in (2, 4, 8, 16) if (rep * shard) % x == 0] or [1])
        ctx.mesh = [("pp", pp), ("dp_replicate", rep), ("dp_shard", shard), ("cp", cp), ("tp", tp)]
        sizes = {"tp": tp, "cp": cp, "dp": rep * shard, "pp": pp}
        if ep > 1:
            sizes["ep"] = ep
        ctx.topo = Topo(W, sizes, ["tp", "cp", "dp", "pp"])
        ctx.pg_order = [("pp", "mesh_pp", False), ("dp", "mesh_dp_shard" if rep == 1 else "mesh_dp_replicate", False),
                        ("cp", "mesh_cp", False), ("tp", "mesh_tp", False)]
        if ep > 1:
            ctx.pg_order.append(("ep", "mesh_ep", False))
        style = rng.choice(["pcluster", "gcp", "generic"])
        if style == "pcluster":
            q = rng.choice(["train", "p5", "gpu"])
            ctx.hosts = ["%s-st-p548xlarge-%d" % (q, i + 1) for i in range(nn)]
            ctx.ips = mk_ips(ctx, nn)
            ctx.aliases = [["ip-%s" % ctx.ips[i].replace(".", "-"), ctx.ips[i]] for i in range(nn)]
        elif style == "gcp":
            hx = hexs(rng, 4)
            ctx.hosts = ["a3ultra-%s-%03d" % (hx, i) for i in range(nn)]
            ctx.ips = mk_ips(ctx, nn)
            ctx.aliases = [[h + ".c.llm-train.internal", ctx.ips[i]] for i, h in enumerate(ctx.hosts)]
        else:
            ctx.hosts, suf = host_pattern(ctx, "slurm")
            ctx.ips = mk_ips(ctx, nn)
            ctx.aliases = [[h + suf, ctx.ips[i]] for i, h in enumerate(ctx.hosts)]
        ctx.nccl_host = lambda n: ctx.hosts[n]
        ctx.agent_host = lambda n: ctx.hosts[n]
        ctx.netdev = lambda k: ("ibp%ds0" if ctx.ib_kind == "IB" else "enp%ds0f0np0") % int(ctx.hca_pci[k], 16)
        ctx.cgroup_name = lambda n: "/slurm/uid_%d/job_%s/step_0/user/task_0" % (ctx.uid, ctx.jobid)
        ctx.jobid = str(rng.randrange(10000, 999999))
        ctx.partition = rng.choice(["train", "batch", "a3u", "p5"])
        ctx.model = rng.choice([("llama3", "8B", 4096, 32), ("llama3", "70B", 8192, 80), ("llama3", "405B", 16384, 126), ("deepseek_v3", "16B", 2048, 27), ("llama4", "17bx16e", 5120, 48)])
        ctx.hidden = ctx.model[2]
        ctx.seqlen = rng.choice([4096, 8192, 8192, 32768])
        ctx.mbs = 1
        ctx.seqpar = tp > 1
        ctx.dist_opt = True
        ctx.bucket = rng.choice([ctx.hidden * ctx.hidden * 3 // max(1, tp), 2 ** 27])
        ctx.gbs = rep * shard * rng.choice([1, 2, 4, 8])
        ctx.log_freq = rng.choice([1, 5, 10, 10])
        ctx.ckpt_int = rng.choice([500, 1000, 100])
        ctx.steps = rng.choice([3000, 10000, 50000])
        ctx.timeout_ms = rng.choice([100000, 100000, 300000, 600000])
        ctx.init_timeout_ms = 300000
        ctx.log_ranks = list(range(GPN)) if rng.random() < 0.45 else [0]
        ctx.repo = rng.choice(["/opt/torchtitan", "/home/%s/torchtitan" % rng.choice(["ubuntu", "jlee"]), "/fsx/torchtitan"])
        ctx.module_entry = rng.random() < 0.7
        ctx.script = "torchtitan.train" if ctx.module_entry else "train.py"
        ctx.st = rng.uniform(1.5, 12.0)
        ctx.loss0 = rng.uniform(3.0, 8.0)
        ctx.mfu = rng.uniform(28, 48)

    def main_kind(self, ctx):
        return "dp"

    def ops(self, ctx, r, rel):
        k = Layout.ops(self, ctx, r, rel)
        if k[0] == "dp":
            b = ctx.bucket
            dp = ctx.topo.sizes["dp"]
            if ctx.rng.random() < 0.5:
                return "dp", "_ALLGATHER_BASE", b // dp, b
            return "dp", "_REDUCE_SCATTER_BASE", b, b // dp
        return k

    def tl(self, ctx, r, t, lvl, msg):
        d = ctx.dtm(ctx.node_of(r), t, "c")
        return "[titan] %s,%03d - root - %s - %s" % (d.strftime("%Y-%m-%d %H:%M:%S"), d.microsecond // 1000, lvl, msg)

    def tb(self, ctx, r, where):
        P = ctx.pylib
        R = ctx.repo
        pp = ctx.topo.sizes["pp"] > 1
        tr = "%s/torchtitan/train.py" % R if ctx.module_entry else "%s/train.py" % R
        fr = [(tr, 683, "<module>", "trainer.train()"),
              (P + "/torch/distributed/elastic/multiprocessing/errors/__init__.py", 355, "wrapper", "return f(*args, **kwargs)"),
              (tr, 584, "train", "self.train_step(data_iterator)")]
        if where == "ckpt":
            return fr[:2] + [(tr, 607, "train", "self.checkpointer.save("),
                             ("%s/torchtitan/components/checkpoint.py" % R, 486, "save", "self.dcp_save(states, checkpoint_id=checkpoint_id, async_mode=self.async_mode)"),
                             ("%s/torchtitan/components/checkpoint.py" % R, 398, "dcp_save", "ret = dcp.save(state_dict, checkpoint_id=checkpoint_id)"),
                             (P + "/torch/distributed/checkpoint/filesystem.py", 519, "write_data", "_write_item(stream, data, write_item, storage_key)")]
        if where == "data":
            return fr + [(tr, 501, "train_step", "input_dict, labels = self.next_batch(data_iterator)"),
                         (tr, 431, "next_batch", "batch = next(data_iterator)"),
                         (P + "/torchdata/stateful_dataloader/stateful_dataloader.py", 450, "__next__", "return super().__next__()"),
                         (P + "/torch/utils/data/dataloader.py", 733, "__next__", "data = self._next_data()"),
                         (P + "/torchdata/stateful_dataloader/stateful_dataloader.py", 1441, "_next_data", "idx, data = self._get_data()")]
        if where == "optim":
            return fr + [(tr, 531, "train_step", "self.optimizers.step()"),
                         ("%s/torchtitan/components/optimizer.py" % R, 76, "step", "optimizer.step(*args, **kwargs)"),
                         (P + "/torch/optim/optimizer.py", 516, "wrapper", "out = func(*args, **kwargs)"),
                         (P + "/torch/optim/adamw.py", 243, "step", "adamw("),
                         (P + "/torch/optim/adamw.py", 875, "_multi_tensor_adamw", "exp_avg_sq_sqrt = torch._foreach_sqrt(device_exp_avg_sqs)")]
        fr.append((tr, 510, "train_step", "loss = self.forward_backward_step(input_dict, labels)"))
        S = P + "/torch/distributed/pipelining/schedules.py"
        ST = P + "/torch/distributed/pipelining/stage.py"
        if pp:
            fr += [(tr, 452, "forward_backward_step", "self.pp_schedule.step("),
                   (S, 1249, "step", "self._step_microbatches(args_split, kwargs_split, targets_split, losses)")]
            if where == "loss":
                return fr + [(S, 1453, "_step_microbatches", "self._maybe_compute_loss(stage, output, target_mbs, mb_index)"),
                             (S, 338, "_maybe_compute_loss", "loss = self._compute_loss(output, target_mbs[mb_index])  # type: ignore[index]"),
                             (S, 321, "_compute_loss", "return self._loss_fn(output, target)  # type: ignore[misc]"),
                             ("%s/torchtitan/components/loss.py" % R, 27, "cross_entropy_loss", "return torch.nn.functional.cross_entropy("),
                             (P + "/torch/nn/functional.py", 3494, "cross_entropy", "return torch._C._nn.cross_entropy_loss(")]
            if where == "p2p":
                return fr + [(S, 1411, "_step_microbatches", "_wait_batch_p2p(bwd_recv_ops.pop(bwd_mb_index))"),
                             (S, 1063, "_wait_batch_p2p", "work.wait()")]
            if where == "bwd":
                return fr + [(S, 1472, "_step_microbatches", "self._stage.backward_one_chunk(bwd_mb_index, loss=loss)"),
                             (ST, 787, "backward_one_chunk", "grads_input, _ = self.backward_maybe_with_nosync("),
                             (ST, 654, "backward_maybe_with_nosync", "result = perform_backward(backward_type)()"),
                             (P + "/torch/distributed/pipelining/_backward.py", 371, "stage_backward", "torch.autograd.backward("),
                             (P + "/torch/autograd/graph.py", 825, "_engine_run_backward", "return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass")]
            fr += [(S, 1440, "_step_microbatches", "output = self._stage.forward_one_chunk(fwd_mb_index, arg_mbs[fwd_mb_index], kwarg_mbs[fwd_mb_index])  # type: ignore[index]"),
                   (ST, 736, "forward_one_chunk", "output = self.forward_maybe_with_nosync(*composite_args, **composite_kwargs)"),
                   (ST, 603, "forward_maybe_with_nosync", "out_val = self.submod(*args, **kwargs)")] + mod_frames(ctx)
        else:
            if where == "loss":
                return fr + [(tr, 468, "forward_backward_step", "loss = self.loss_fn(pred, labels)"),
                             ("%s/torchtitan/components/loss.py" % R, 27, "cross_entropy_loss", "return torch.nn.functional.cross_entropy("),
                             (P + "/torch/nn/functional.py", 3494, "cross_entropy", "return torch._C._nn.cross_entropy_loss(")]
            if where == "bwd":
                return fr + [(tr, 472, "forward_backward_step", "loss.backward()"),
                             (P + "/torch/_tensor.py", 648, "backward", "torch.autograd.backward("),
                             (P + "/torch/autograd/graph.py", 825, "_engine_run_backward", "return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass")]
            fr += [(tr, 466, "forward_backward_step", "pred = model_parts[0](inputs)")] + mod_frames(ctx)
        mp = "%s/torchtitan/models/%s/model/model.py" % (R, ctx.model[0])
        fr += [(mp, 465, "forward", "h = layer(h, self.freqs_cis)")] + mod_frames(ctx)
        if where == "a2a":
            return fr + [(mp, 339, "forward", "out = h + self.moe(self.ffn_norm(h))")] + mod_frames(ctx) + [
                ("%s/torchtitan/models/moe.py" % R, 364, "forward", "routed_output = self.experts(x, num_tokens_per_expert)")] + mod_frames(ctx) + [
                ("%s/torchtitan/distributed/expert_parallel.py" % R, 120, "_token_dispatch", "routed_input = all_to_all_single_autograd("),
                (P + "/torch/distributed/_functional_collectives.py", 495, "all_to_all_single_autograd", "tensor = torch.ops._c10d_functional_autograd.all_to_all_single(  # type: ignore[attr-defined]")]
        if where == "attn":
            return fr + [(mp, 331, "forward", "h = x + self.attention(self.attention_norm(x), freqs_cis)")] + mod_frames(ctx) + [
                (mp, 223, "forward", "output = self.sdpa(xq, xk, xv)")] + mod_frames(ctx) + [
                ("%s/torchtitan/models/attention.py" % R, 94, "forward", "return F.scaled_dot_product_attention(q, k, v, is_causal=True, scale=scale)")]
        return fr + [(mp, 332, "forward", "out = h + self.feed_forward(self.ffn_norm(h))")] + mod_frames(ctx) + [
            (mp, 268, "forward", "return self.w2(F.silu(self.w1(x)) * self.w3(x))")]

    def choose_sim(self, ctx):
        default_sim(ctx, max_nodes=6)

    def logging_ranks(self, ctx):
        return [r for r in sorted(ctx.sim) if ctx.lr(r) in ctx.log_ranks]

    def startup(self, ctx):
        rng = ctx.rng
        names = [m for m, s in ctx.mesh if s > 1]
        dims = [s for m, s in ctx.mesh if s > 1]
        name, size, dim, nl = ctx.model
        t = rng.uniform(15, 40)
        for r in self.logging_ranks(ctx):
            c = ctx.topo.coords(r)
            L = ["Starting job: %s %s training" % ({"llama3": "Llama 3", "deepseek_v3": "DeepSeek-V3", "llama4": "Llama 4"}[name], size),
                 ]
            L2 = ["Building %d-D device mesh with %s, %s" % (len(names), names, dims), "[GC] Initial GC collection. 0.00 seconds.",
                  "Loading tokenizer from tokenizer.json" if rng.random() < 0.5 else "TikTokenizer built: #words 128256, BOS ID 128000, EOS ID 128001",
                  "Preparing c4 dataset from allenai/c4",
                  "Building %s %s with TransformerModelArgs(_enforced='This field is used to enforce all fields have defaults.', dim=%d, n_layers=%d, n_heads=%d, n_kv_heads=8, vocab_size=128256, multiple_of=4096, ffn_dim_multiplier=1.3, norm_eps=1e-05, rope_theta=500000, max_seq_len=%d, depth_init=True, use_flex_attn=False, attn_mask_type='causal', eos_id=0)" % (name, size, dim, nl, dim // 128, ctx.seqlen),
                  "CUDA capacity: %s with %.2fGiB memory" % (ctx.gpu_model, ctx.gpu_mem)]
            if ctx.topo.sizes["tp"] > 1:
                L2.append("Applied Tensor Parallelism to the model")
            if ctx.topo.sizes["pp"] > 1:
                per = nl // ctx.topo.sizes["pp"]
                L2.append("PP rank %d is building stage_idx %d with start_layer %s, stop_layer %s" % (
                    c["pp"], c["pp"], "layers.%d" % (c["pp"] * per) if c["pp"] else None, "layers.%d" % ((c["pp"] + 1) * per) if c["pp"] < ctx.topo.sizes["pp"] - 1 else None))
                L2.append("Using pipeline schedule %s with %d microbatches and %d stages." % (rng.choice(["1F1B", "Interleaved1F1B", "ZBVZeroBubble"]), ctx.topo.sizes["pp"] * 2, ctx.topo.sizes["pp"]))
            L2 += ["Applied selective activation checkpointing to the model", "Applied FSDP to the model" if ctx.mesh[1][1] == 1 else "Applied HSDP to the model",
                   "Peak FLOPS used for computing MFU: %.3e" % (9.89e14 if "H" in ctx.gpu_model else 3.12e14),
                   "CUDA memory usage for model: %.2fGiB(%.2f%%)" % (ctx.gpu_mem * 0.25, 25.0),
                   "Checkpointing active. Checkpoints are loaded from and saved to ./outputs/checkpoint",
                   "Trainer is initialized with local batch size %d, global batch size %d, gradient accumulation steps 1, sequence length %d, total steps %d (warmup 200)" % (ctx.mbs, ctx.gbs, ctx.seqlen, ctx.steps),
                   "Training starts at step 1."]
            tt = t + rng.uniform(0, 1)
            ctx.emit(r, tt, self.tl(ctx, r, tt, "INFO", L[0]))
            if rng.random() < 0.6:
                ctx.emit(r, tt + 0.01, self.tl(ctx, r, tt + 0.01, "WARNING", "ENV[TORCH_NCCL_ASYNC_ERROR_HANDLING] = 1 will be overridden to 3 based on job config"))
            for i, m in enumerate(L2):
                ctx.emit(r, tt + 1 + i * 0.7, self.tl(ctx, r, tt + 1 + i * 0.7, "INFO", m))
        for n in range(ctx.nnodes):
            if any(r in ctx.sim for r in ctx.ranks_on(n)):
                t0 = rng.uniform(1, 5)
                for i, m in enumerate(["", "*****************************************",
                                       "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. ",
                                       "*****************************************"]):
                    ctx.emit_agent(n, t0 + 0.001 * i, agent_line(ctx, n, t0, "W", "run", "run.py:793", m))
        ctx.t_train0 = t + rng.uniform(20, 60)

    def train(self, ctx, t_to, straggle=None):
        rng = ctx.rng
        t = ctx.t_train0
        step = 0
        loss = ctx.loss0
        lr = self.logging_ranks(ctx)
        while True:
            st = ctx.st * rng.uniform(0.98, 1.03)
            if straggle and t >= straggle[0]:
                st *= straggle[1]
            if t + st > t_to:
                break
            t += st
            step += 1
            loss = max(1.5, loss * rng.uniform(0.993, 1.0045))
            if step == 1:
                for r in lr:
                    ctx.emit(r, t + 0.2, self.tl(ctx, r, t + 0.2, "INFO", "Synchronizing and adjusting timeout for all ProcessGroups to %s" % str(dt.timedelta(seconds=ctx.timeout_ms // 1000))))
            if step == 1 or step % ctx.log_freq == 0:
                if not hasattr(ctx, "peak_mem"):
                    ctx.peak_mem = ctx.gpu_mem * rng.uniform(0.55, 0.8)
                mem = ctx.peak_mem if step > 1 else ctx.peak_mem * 0.93
                tps = int(ctx.seqlen * ctx.mbs / st)
                mfu = ctx.mfu * (ctx.st / st)
                gn = rng.uniform(0.2, 1.5)
                for r in lr:
                    ctx.emit(r, t, self.tl(ctx, r, t, "INFO", "step: %2d  loss: %7.4f  grad_norm: %7.4f  memory: %5.2fGiB(%.2f%%)  tps: %s  tflops: %.2f  mfu: %.2f%%" % (
                        step, loss, gn, mem, 100 * mem / ctx.gpu_mem, "{:,}".format(tps), mfu * 9.89, mfu)))
            if step % 50 == 0 and rng.random() < 0.5:
                for r in lr:
                    ctx.emit(r, t + 0.1, self.tl(ctx, r, t + 0.1, "INFO", "[GC] Peforming periodical GC collection. %.2f seconds." % rng.uniform(0.02, 0.09)))
            if step % ctx.ckpt_int == 0:
                for r in lr:
                    ctx.emit(r, t + 0.2, self.tl(ctx, r, t + 0.2, "INFO", "Saving the checkpoint (or staging if async is enabled)."))
                    ctx.emit(r, t + 14, self.tl(ctx, r, t + 14, "INFO", "[GC] GC collection invoked by checkpointer. 0.06 seconds."))
                    ctx.emit(r, t + 14.1, self.tl(ctx, r, t + 14.1, "INFO", "Finished saving the checkpoint (or staging if async is enabled)in %.2f seconds." % rng.uniform(8, 14)))
                t += 14
            if step >= ctx.steps:
                break
        ctx.t_last = t
        ctx.last_it = step
        return step, t

    def straggler(self, ctx, c):
        rng = ctx.rng
        onset = ctx.t_train0 + rng.uniform(0.05, 0.4) * (ctx.t_fail - ctx.t_train0)
        fac = rng.uniform(1.3, 2.2)
        step, t = self.train(ctx, ctx.t_fail + rng.uniform(200, 3000), (onset, fac, c))
        ctx.notes.append("rank %d (local GPU %d) throttled from t=%.0fs, step time x%.2f; only per-GPU telemetry names it" % (c, ctx.lr(c), onset, fac))
        if rng.random() < 0.6:
            ctx.nvsmi = (c, "throttle")
        if rng.random() < 0.5:
            ctx.sched_kill = t + rng.uniform(1, 30)
            ctx.time_limit = True
        else:
            self.finish(ctx, t)

    def finish(self, ctx, t, early_exit=False):
        for r in self.logging_ranks(ctx):
            ctx.emit(r, t + 1, self.tl(ctx, r, t + 1, "INFO", "Sleeping 2 seconds for other ranks to complete"))
            ctx.emit(r, t + 3, self.tl(ctx, r, t + 3, "INFO", "Training completed"))
            if ctx.tv >= 6 and ctx.rng.random() < 0.5:
                ctx.emit(r, t + 3.5, self.tl(ctx, r, t + 3.5, "INFO", "Process group destroyed."))
        ctx.t_end = t + 5

    def hang_extra(self, ctx, c, t):
        if ctx.rng.random() < 0.4:
            ctx.pyspy = (c, "hang")

    def stall_extra(self, ctx, c, t):
        if ctx.rng.random() < 0.4:
            ctx.pyspy = (c, "data")

    def pyspy_frames(self, ctx, what):
        if what == "hang":
            return ["    _wait_for_gc (torchtitan/components/gc.py:%d)" % ctx.rng.randrange(40, 70) if ctx.rng.random() < 0.3 else "    synchronize (torch/cuda/__init__.py:%d)" % ctx.rng.choice([985, 1041]),
                    "    train_step (torchtitan/train.py:%d)" % ctx.rng.randrange(520, 560), "    train (torchtitan/train.py:584)",
                    "    wrapper (torch/distributed/elastic/multiprocessing/errors/__init__.py:355)", "    <module> (torchtitan/train.py:683)"]
        return ["    read (fsspec/implementations/local.py:%d)" % ctx.rng.randrange(380, 420), "    _read_parquet_chunk (datasets/packaged_modules/parquet/parquet.py:%d)" % ctx.rng.randrange(80, 100),
                "    __iter__ (datasets/iterable_dataset.py:%d)" % ctx.rng.randrange(1500, 2200), "    __iter__ (torchtitan/datasets/hf_datasets.py:%d)" % ctx.rng.randrange(110, 140),
                "    fetch (torch/utils/data/_utils/fetch.py:33)", "    _next_data (torch/utils/data/dataloader.py:789)",
                "    __next__ (torchdata/stateful_dataloader/stateful_dataloader.py:450)", "    next_batch (torchtitan/train.py:431)", "    train_step (torchtitan/train.py:501)"]

    def mismatch(self, ctx, c, t):
        generic_mismatch(ctx, self, c, t)

    def render(self, ctx):
        rng = ctx.rng
        fin = ctx.final
        # agent (torchrun) failure summaries per node, srun lines
        first_agent = None
        extra = []
        for n in sorted(set(ctx.node_of(r) for r in ctx.sim)):
            nat = sorted([(fin[r][0], r, fin[r]) for r in ctx.ranks_on(n) if r in fin and fin[r][2] != "killed"])
            if nat and (ctx.global_kill is None or nat[0][0] <= ctx.global_kill):
                t0, r0, v0 = nat[0]
                tk = t0 + 0.3
                for r in ctx.ranks_on(n):
                    if r != r0:
                        ctx.emit_agent(n, tk, agent_line(ctx, n, tk, "W", "multiprocessing.api", "multiprocessing/api.py:897", "Sending process %d closing signal SIGTERM" % ctx.pid[r]))
                te = ctx.agent_exit.get(n, tk + 3)
                ctx.emit_agent(n, te - 0.5, agent_line(ctx, n, te - 0.5, "E", "multiprocessing.api", "multiprocessing/api.py:869",
                                                       "failed (exitcode: %d) local_rank: %d (pid: %d) of binary: %s/bin/python" % (v0[1], ctx.lr(r0), ctx.pid[r0], ctx.pylib.split("/lib/")[0])))
                for i, l in enumerate(child_failed_block(ctx, n, te, ctx.script if ctx.module_entry else "%s/train.py" % ctx.repo, [(r, v[1], ctx.pid[r], tt) for tt, r, v in nat[:4] if tt <= t0 + 5])):
                    ctx.emit_agent(n, te + i * 0.0001, l)
                if r0 == ctx.culprit:
                    ctx.ev("torchrun-root-cause", "  rank      : %d (local_rank: %d)" % (ctx.culprit, ctx.lr(ctx.culprit)))
                if first_agent is None or te < first_agent[0]:
                    first_agent = (te, n)
            elif ctx.global_kill is not None or ctx.sched_kill is not None:
                tk = (ctx.global_kill if ctx.global_kill is not None else ctx.sched_kill) + rng.uniform(0, 2.0)
                for i, l in enumerate(agent_sigterm_block(ctx, n, tk, ctx.script)):
                    ctx.emit_agent(n, tk + i * 0.0001, l)
        if first_agent:
            te, n = first_agent
            extra.append((te + 0.5, "srun: error: %s: task %d: Exited with exit code 1" % (ctx.hosts[n], n)))
            extra.append((te + 0.6, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish."))
            tk = ctx.global_kill or te + 1
            extra.append((tk, "slurmstepd: error: *** STEP %s.0 ON %s CANCELLED AT %s ***" % (ctx.jobid, ctx.hosts[0], slurm_ts(ctx, tk))))
            others = [m for m in range(ctx.nnodes) if m != n]
            for m in others:
                extra.append((tk + 2 + rng.uniform(0, 3), "srun: error: %s: task %d: Exited with exit code 1" % (ctx.hosts[m], m)))
        if ctx.sched_kill is not None:
            why = "DUE TO TIME LIMIT" if getattr(ctx, "time_limit", False) else "DUE TO PREEMPTION"
            extra.append((ctx.sched_kill, "slurmstepd: error: *** JOB %s ON %s CANCELLED AT %s %s ***" % (ctx.jobid, ctx.hosts[0], slurm_ts(ctx, ctx.sched_kill), why)))
            extra.append((ctx.sched_kill + 0.4, "slurmstepd: error: *** STEP %s.0 ON %s CANCELLED AT %s %s ***" % (ctx.jobid, ctx.hosts[0], slurm_ts(ctx, ctx.sched_kill), why)))
        agent_lines = []
        for n in sorted(ctx.agent):
            agent_lines += ctx.agent[n]
        hdr = ["+ LOG_RANK=%s" % ",".join(str(x) for x in ctx.log_ranks),
               "+ srun torchrun --nnodes %d --nproc_per_node 8 --rdzv_id %d --rdzv_backend c10d --rdzv_endpoint %s:29500 --local-ranks-filter %s --role rank --tee 3 %s --job.config_file %s/torchtitan/models/%s/train_configs/%s_%s.toml --parallelism.pipeline_parallel_degree %d --parallelism.tensor_parallel_degree %d --parallelism.context_parallel_degree %d --parallelism.data_parallel_replicate_degree %d --comm.train_timeout_seconds %d" % (
                   ctx.nnodes, rng.randrange(100, 999), ctx.ips[0], ",".join(str(x) for x in ctx.log_ranks), "-m torchtitan.train" if ctx.module_entry else "%s/train.py" % ctx.repo,
                   ctx.repo, ctx.model[0], ctx.model[0], ctx.model[1].lower(), ctx.topo.sizes["pp"], ctx.topo.sizes["tp"], ctx.topo.sizes["cp"], ctx.mesh[1][1], ctx.timeout_ms // 1000)]
        shown = [r for r in sorted(ctx.out) if ctx.lr(r) in ctx.log_ranks]

        def attr(r, line, tag):
            return "global-prefix"
        body = merged(ctx, shown, lambda r: "[rank%d]:" % r, agent_lines + extra, attr, "slurm-%s.out" % ctx.jobid)
        if len(body) > 6000:
            body = body[:1500] + ["", "[... %d lines omitted ...]" % (len(body) - 5500), ""] + body[-4000:]
        ctx.files["slurm-%s.out" % ctx.jobid] = "\n".join(hdr + body) + "\n"
        if ctx.cause is None or (ctx.cause == "straggler" and not getattr(ctx, "time_limit", False)):
            state, ec, tend = "COMPLETED", "0:0", getattr(ctx, "t_end", ctx.t_last)
        elif ctx.sched_kill is not None:
            state = "TIMEOUT" if getattr(ctx, "time_limit", False) else "PREEMPTED"
            ec, tend = "0:15", ctx.sched_kill
        else:
            state, ec = "FAILED", "1:0"
            tend = (ctx.global_kill or max(v[0] for v in fin.values())) + 3
        ctx.files["sacct.txt"] = sacct_text(ctx, "titan", state, ec, tend, ctx.partition)
        render_node_extras(ctx, rng)
        if getattr(ctx, "pid_in_kern", False):
            if ("local_rank: %d (pid: %d)" % (ctx.lr(ctx.culprit), ctx.pid[ctx.culprit])) in ctx.files["slurm-%s.out" % ctx.jobid]:
                ctx.evidence.append("oom-pid+torchrun-pid")


class DeepspeedPdsh(Layout):
    name = "deepspeed_pdsh"
    stack = "DeepSpeed launcher over pdsh (Megatron-DeepSpeed pipeline engine, or ZeRO-3 + Ulysses SP)"
    policy = {"mode": "agent", "global": None}

    def setup(self, ctx):
        rng = ctx.rng
        nn = rng.choice([2, 2, 4, 4, 8, 8, 16, 32])
        base_setup(ctx, nn, "pip", 1, 7, gpu_w=(5, 5, 1))
        W = ctx.W
        ctx.ds_mode = "pipe" if rng.random() < 0.65 else "zero3"
        if ctx.ds_mode == "pipe":
            for _ in range(200):
                tp, pp = rng.choice([1, 2, 4, 8]), rng.choice([2, 4, 4, 8])
                if W % (tp * pp) == 0 and W // (tp * pp) >= 1:
                    break
            ctx.topo = Topo(W, {"tp": tp, "cp": 1, "dp": W // (tp * pp), "pp": pp}, ["tp", "cp", "dp", "pp"])
            ctx.pg_order = [("dp", "undefined", False), ("tp", "undefined", False), ("pp", "undefined", False)]
        else:
            sp = rng.choice([2, 4, 8, 8])
            ctx.topo = Topo(W, {"tp": 1, "cp": sp, "dp": W // sp, "pp": 1}, ["tp", "cp", "dp", "pp"])
            ctx.pg_order = [("cp", "undefined", False), ("dp", "undefined", False)]
        style = rng.choice(["node", "worker", "hpc"])
        s0 = rng.randrange(1, 60)
        if style == "node":
            ctx.hosts = ["node%02d" % (s0 + i) for i in range(nn)]
        elif style == "worker":
            ctx.hosts = ["worker-%d" % i for i in range(nn)]
        else:
            kind = rng.choice(["a100", "h800", "gpu"])
            ctx.hosts = ["hpc-%s-%02d" % (kind, s0 + i) for i in range(nn)]
        ctx.ips = mk_ips(ctx, nn)
        ctx.aliases = [[ctx.ips[i]] for i in range(nn)]
        ctx.nccl_host = lambda n: ctx.hosts[n]
        ctx.agent_host = lambda n: ctx.hosts[n]
        ctx.netdev = lambda k: ("ibp%ds0" if ctx.ib_kind == "IB" else "enp%ds0f0np0") % int(ctx.hca_pci[k], 16)
        ctx.sessions = [rng.randrange(2, 999) for _ in range(nn)]
        ctx.cgroup_name = lambda n: "/user.slice/user-%d.slice/session-%d.scope" % (ctx.uid, ctx.sessions[n])
        ctx.timeout_ms = 1800000
        ctx.hidden = rng.choice([4096, 5120, 8192])
        ctx.seqlen = rng.choice([2048, 4096]) if ctx.ds_mode == "pipe" else rng.choice([32768, 65536, 131072])
        ctx.mbs = rng.choice([1, 2, 4]) if ctx.ds_mode == "pipe" else 1
        ctx.seqpar = False
        ctx.dist_opt = ctx.ds_mode == "zero3"
        ctx.bucket = rng.choice([500000000, 200000000, 50000000])
        ctx.gbs = ctx.topo.sizes["dp"] * ctx.mbs * rng.choice([8, 16, 32])
        ctx.steps_per_print = rng.choice([1, 10, 10])
        ctx.train_iters = rng.choice([100000, 300000, 50000])
        ctx.st = rng.uniform(2.0, 18.0)
        ctx.loss0 = rng.uniform(2.0, 4.0)
        ctx.root = rng.choice(["/workspace/Megatron-DeepSpeed", "/home/%s/Megatron-DeepSpeed" % rng.choice(["ml", "zhang", "admin"]), "/mnt/nas/code/Megatron-DeepSpeed"])
        if ctx.ds_mode == "zero3":
            ctx.root = ctx.root.replace("Megatron-DeepSpeed", "ulysses-train")
        ctx.script = "pretrain_gpt.py" if ctx.ds_mode == "pipe" else "train_ulysses.py"
        ctx.ds_ver = rng.choice(["0.12.6", "0.13.1", "0.14.4", "0.15.1", "0.16.2"])
        ctx.launch_host = 0
        ctx.master_port = rng.choice([29500, 29600, 6000])
        ctx.jobid = str(rng.randrange(10000, 999999))

    def main_kind(self, ctx):
        return "dp" if ctx.topo.sizes["dp"] > 1 else "tp"

    def ops(self, ctx, r, rel):
        S, H = ctx.seqlen * ctx.mbs, ctx.hidden
        if ctx.ds_mode == "pipe":
            if rel in ("pp", "ppfar", "other") and ctx.topo.sizes["pp"] > 1:
                return "pp_pair", "BROADCAST", S * H, S * H
            if rel == "tp" and ctx.topo.sizes["tp"] > 1:
                return "tp", "ALLREDUCE", S * H, S * H
            if ctx.topo.sizes["dp"] > 1:
                return "dp", "ALLREDUCE", ctx.bucket, ctx.bucket
            return "tp", "ALLREDUCE", S * H, S * H
        if rel == "cp":
            n = S * H // ctx.topo.sizes["cp"]
            return "cp", "ALLTOALL_BASE", n, n
        if ctx.rng.random() < 0.5:
            return "world", "_ALLGATHER_BASE", ctx.bucket // ctx.W, ctx.bucket
        return "world", "_REDUCE_SCATTER_BASE", ctx.bucket, ctx.bucket // ctx.W

    def dsl(self, ctx, r_or_n, t, lvl, src, msg, node=False):
        n = r_or_n if node else ctx.node_of(r_or_n)
        d = ctx.dtm(n, t, "c")
        return "[%s,%03d] [%s] [%s] %s" % (d.strftime("%Y-%m-%d %H:%M:%S"), d.microsecond // 1000, lvl, src, msg)

    def tb(self, ctx, r, where):
        P = ctx.pylib
        R = ctx.root
        E = P + "/deepspeed/runtime/pipe/engine.py"
        if ctx.ds_mode == "pipe":
            top = [("%s/pretrain_gpt.py" % R, 356, "<module>", "pretrain(train_valid_test_datasets_provider,"),
                   ("%s/megatron/training.py" % R, 227, "pretrain", "iteration = train(forward_step_func,"),
                   ("%s/megatron/training.py" % R, 1211, "train", "train_step(forward_step_func,"),
                   ("%s/megatron/training.py" % R, 676, "train_step", "loss = model[0].train_batch(data_iter=data_iterator)"),
                   (E, 388, "train_batch", "self._exec_schedule(sched)"),
                   (E, 1433, "_exec_schedule", "self._exec_instr(**cmd.kwargs)")]
            if where == "ckpt":
                return top[:3] + [("%s/megatron/training.py" % R, 1298, "train", "save_checkpoint_and_time(iteration, model, optimizer,"),
                                  ("%s/megatron/checkpointing.py" % R, 254, "save_checkpoint", "model[0].save_checkpoint(checkpoint_name, client_state=state_dict)"),
                                  (P + "/deepspeed/runtime/engine.py", 3145, "save_checkpoint", "self._save_zero_checkpoint(save_dir, tag)"),
                                  (P + "/deepspeed/runtime/engine.py", 3442, "_save_zero_checkpoint", "self.checkpoint_engine.save(zero_sd, zero_checkpoint_name)"),
                                  (P + "/deepspeed/runtime/checkpoint_engine/torch_checkpoint_engine.py", 22, "save", "torch.save(state_dict, path)")]
            if where == "p2p":
                return top + [(E, 1115, "_exec_recv_activations", "p2p.recv(buffer, self.prev_stage)"),
                              (P + "/deepspeed/runtime/pipe/p2p.py", 87, "recv", "dist.broadcast(tensor, src_rank, group=group)")]
            if where == "data":
                return top + [(E, 910, "_exec_load_micro_batch", "batch = self._next_batch()"),
                              (E, 652, "_next_batch", "batch = next(self.data_iterator)"),
                              (P + "/torch/utils/data/dataloader.py", 631 if ctx.tv < 4 else 701, "__next__", "data = self._next_data()"),
                              (P + "/torch/utils/data/dataloader.py", 1329 if ctx.tv < 4 else 1448, "_next_data", "idx, data = self._get_data()")]
            if where == "optim":
                return top + [(E, 1345, "_exec_optimizer_step", "self._take_model_step(lr_kwargs)"),
                              (P + "/deepspeed/runtime/engine.py", 2036, "_take_model_step", "self.optimizer.step()"),
                              (P + "/deepspeed/runtime/zero/stage_1_and_2.py", 1845, "step", "self.single_partition_of_fp32_groups[i].grad = single_grad_partition"),
                              ]
            if where == "bwd":
                return top + [(E, 868, "_exec_backward_pass", "torch.autograd.backward(tensors=out_tensors, grad_tensors=grad_tensors)"),
                              (P + "/torch/autograd/__init__.py", 266, "backward", "Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass")]
            fr = top + [(E, 753, "_exec_forward_pass", "outputs = super().forward(inputs)"),
                        (P + "/deepspeed/utils/nvtx.py", 15, "wrapped_fn", "ret_val = func(*args, **kwargs)"),
                        (P + "/deepspeed/runtime/engine.py", 1899, "forward", "loss = self.module(*inputs, **kwargs)")] + mod_frames(ctx) + [
                (P + "/deepspeed/runtime/pipe/module.py", 360, "forward", "x = exec_range_func(start_idx, end_idx)(*x)"),
                (P + "/deepspeed/runtime/pipe/module.py", 343, "exec_func", "inputs = layer(inputs)")] + mod_frames(ctx)
            if where == "loss":
                return top + [(E, 791, "_exec_forward_pass", "self.loss = self.loss_model(outputs, labels)"),
                              ("%s/megatron/model/gpt_model.py" % R, 69, "CrossEntropy", "losses = tensor_parallel.vocab_parallel_cross_entropy(output.contiguous().float(), labels)"),
                              ("%s/megatron/core/tensor_parallel/cross_entropy.py" % R, 135, "vocab_parallel_cross_entropy", "return _VocabParallelCrossEntropy.apply(vocab_parallel_logits, target, label_smoothing)"),
                              (P + "/torch/autograd/function.py", 539 if ctx.tv <= 3 else 575, "apply", "return super().apply(*args, **kwargs)  # type: ignore[misc]"),
                              ("%s/megatron/core/tensor_parallel/cross_entropy.py" % R, 41, "forward", "predicted_logits_1d = logits_2d[arange_1d, masked_target_1d]")]
            return fr + [("%s/megatron/model/transformer.py" % R, 1180, "forward", "attention_output, attention_bias = self.self_attention(" if where == "attn" else "mlp_output, mlp_bias = self.mlp(layernorm_output)")] + mod_frames(ctx)
        T = "%s/%s" % (R, ctx.script)
        top = [(T, 412, "<module>", "main()")]
        if where == "bwd":
            return top + [(T, 366, "main", "model_engine.backward(loss)"),
                          (P + "/deepspeed/utils/nvtx.py", 15, "wrapped_fn", "ret_val = func(*args, **kwargs)"),
                          (P + "/deepspeed/runtime/engine.py", 2020, "backward", "self.optimizer.backward(loss, retain_graph=retain_graph)"),
                          (P + "/deepspeed/runtime/zero/stage3.py", 2250, "backward", "self.loss_scaler.backward(loss.float(), retain_graph=retain_graph)"),
                          (P + "/deepspeed/runtime/fp16/loss_scaler.py", 63, "backward", "scaled_loss.backward(retain_graph=retain_graph)"),
                          (P + "/torch/_tensor.py", 521 if ctx.tv < 5 else 626, "backward", "torch.autograd.backward("),
                          (P + "/torch/autograd/__init__.py", 289 if ctx.tv < 5 else 347, "backward", "_engine_run_backward(")]
        if where == "optim":
            return top + [(T, 367, "main", "model_engine.step()"),
                          (P + "/deepspeed/runtime/engine.py", 2213, "step", "self._take_model_step(lr_kwargs)"),
                          (P + "/deepspeed/runtime/engine.py", 2119, "_take_model_step", "self.optimizer.step()"),
                          (P + "/deepspeed/runtime/zero/stage3.py", 2117, "step", "self._optimizer_step(sub_group_id)"),
                          (P + "/deepspeed/runtime/zero/stage3.py", 990, "_optimizer_step", "self.optimizer.step()")]
        if where in ("data",):
            return top + [(T, 352, "main", "batch = next(train_iter)"),
                          (P + "/torch/utils/data/dataloader.py", 631 if ctx.tv < 4 else 701, "__next__", "data = self._next_data()"),
                          (P + "/torch/utils/data/dataloader.py", 1329 if ctx.tv < 4 else 1448, "_next_data", "idx, data = self._get_data()")]
        if where == "ckpt":
            return top + [(T, 389, "main", "model_engine.save_checkpoint(args.output_dir, tag=f\"step{step}\")"),
                          (P + "/deepspeed/runtime/engine.py", 3145, "save_checkpoint", "self._save_zero_checkpoint(save_dir, tag)"),
                          (P + "/deepspeed/runtime/checkpoint_engine/torch_checkpoint_engine.py", 22, "save", "torch.save(state_dict, path)")]
        fr = top + [(T, 361, "main", "loss = model_engine(input_ids=input_ids, labels=labels, position_ids=position_ids).loss"),
                    (P + "/deepspeed/utils/nvtx.py", 15, "wrapped_fn", "ret_val = func(*args, **kwargs)"),
                    (P + "/deepspeed/runtime/engine.py", 1899, "forward", "loss = self.module(*inputs, **kwargs)")] + mod_frames(ctx) + [
            (P + "/transformers/models/llama/modeling_llama.py", 1163, "forward", "outputs = self.model(")] + mod_frames(ctx) + [
            (P + "/transformers/models/llama/modeling_llama.py", 913, "forward", "layer_outputs = decoder_layer(")] + mod_frames(ctx)
        if where in ("a2a", "attn", "p2p"):
            return fr + [(P + "/transformers/models/llama/modeling_llama.py", 641, "forward", "hidden_states, self_attn_weights, present_key_value = self.self_attn(")] + mod_frames(ctx) + [
                (P + "/deepspeed/sequence/layer.py", 351, "forward", "query_layer = _SeqAllToAll.apply(self.spg, query, self.scatter_idx, self.gather_idx, batch_dim_idx,"),
                (P + "/torch/autograd/function.py", 575, "apply", "return super().apply(*args, **kwargs)  # type: ignore[misc]"),
                (P + "/deepspeed/sequence/layer.py", 296, "forward", "return single_all_to_all(input, scatter_idx, gather_idx, batch_dim_idx, group)"),
                (P + "/deepspeed/sequence/layer.py", 246, "single_all_to_all", "dist.all_to_all_single(output, input_t, group=group)"),
                (P + "/deepspeed/comm/comm.py", 117, "log_wrapper", "return func(*args, **kwargs)"),
                (P + "/deepspeed/comm/comm.py", 362, "all_to_all_single", "return cdb.all_to_all_single(output=output,"),
                (P + "/deepspeed/comm/torch.py", 330, "all_to_all_single", "return torch.distributed.all_to_all_single(output=output,")]
        if where == "loss":
            return fr[:5] + [(P + "/transformers/models/llama/modeling_llama.py", 1181, "forward", "logits = logits.float()")]
        return fr + [(P + "/transformers/models/llama/modeling_llama.py", 658, "forward", "hidden_states = self.mlp(hidden_states)")] + mod_frames(ctx) + [
            (P + "/transformers/models/llama/modeling_llama.py", 258, "forward", "down_proj = self.down_proj(self.act_fn(self.gate_proj(x)) * self.up_proj(x))")]

    def choose_sim(self, ctx):
        default_sim(ctx, max_nodes=6)

    def startup(self, ctx):
        rng = ctx.rng
        topo = ctx.topo
        lh = 0
        import base64
        wi = {h: list(range(GPN)) for h in ctx.hosts}
        winfo = base64.urlsafe_b64encode(json.dumps(wi).encode()).decode()
        run = [(0.5, self.dsl(ctx, lh, 0.5, "INFO", "real_accelerator.py:203:get_accelerator", "Setting ds_accelerator to cuda (auto detect)", True)),
               (1.0, self.dsl(ctx, lh, 1.0, "INFO", "runner.py:463:main", "Using IP address of %s for node %s" % (ctx.ips[0], ctx.hosts[0]), True)),
               (1.1, self.dsl(ctx, lh, 1.1, "INFO", "multinode_runner.py:80:get_cmd", "Running on the following workers: %s" % ",".join(ctx.hosts), True)),
               (1.2, self.dsl(ctx, lh, 1.2, "INFO", "runner.py:568:main", "cmd = pdsh -S -f 1024 -w %s export PYTHONPATH=%s; export NCCL_IB_HCA=mlx5; cd %s; %s/bin/python -u -m deepspeed.launcher.launch --world_info=%s --node_rank=%%n --master_addr=%s --master_port=%d %s --deepspeed --deepspeed_config ds_config.json" % (
                   ",".join(ctx.hosts), ctx.root, ctx.root, ctx.pylib.split("/lib/")[0], winfo, ctx.ips[0], ctx.master_port, ctx.script), True))]
        ctx.runner = run
        gm = {h: list(range(i * GPN, (i + 1) * GPN)) for i, h in enumerate(ctx.hosts)}
        for n in range(ctx.nnodes):
            if not any(r in ctx.sim for r in ctx.ranks_on(n)):
                continue
            t = rng.uniform(2, 5)
            L = [self.dsl(ctx, n, t, "INFO", "real_accelerator.py:203:get_accelerator", "Setting ds_accelerator to cuda (auto detect)", True),
                 self.dsl(ctx, n, t + 1, "INFO", "launch.py:146:main", "WORLD INFO DICT: %s" % wi, True),
                 self.dsl(ctx, n, t + 1, "INFO", "launch.py:152:main", "nnodes=%d, num_local_procs=8, node_rank=%d" % (ctx.nnodes, n), True),
                 self.dsl(ctx, n, t + 1, "INFO", "launch.py:163:main", "global_rank_mapping=defaultdict(<class 'list'>, %s)" % gm, True),
                 self.dsl(ctx, n, t + 1, "INFO", "launch.py:164:main", "dist_world_size=%d" % ctx.W, True),
                 self.dsl(ctx, n, t + 1, "INFO", "launch.py:168:main", "Setting CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7", True)]
            for l in range(GPN):
                r = n * GPN + l
                L.append(self.dsl(ctx, n, t + 1.1, "INFO", "launch.py:256:main", "process %d spawned with command: ['%s/bin/python', '-u', '%s', '--local_rank=%d', '--deepspeed', '--deepspeed_config', 'ds_config.json'%s]" % (
                    ctx.pid[r], ctx.pylib.split("/lib/")[0], ctx.script, l, ", '--tensor-model-parallel-size', '%d', '--pipeline-model-parallel-size', '%d'" % (topo.sizes["tp"], topo.sizes["pp"]) if ctx.ds_mode == "pipe" else ", '--sequence-parallel-size', '%d'" % topo.sizes["cp"]), True))
            for i, l in enumerate(L):
                ctx.emit_agent(n, t + i * 0.001, l)
        t0 = rng.uniform(8, 20)
        for r in sorted(ctx.sim):
            tt = t0 + rng.uniform(0, 2)
            ctx.emit(r, tt, self.dsl(ctx, r, tt, "INFO", "real_accelerator.py:203:get_accelerator", "Setting ds_accelerator to cuda (auto detect)"))
            ctx.emit(r, tt + 2, self.dsl(ctx, r, tt + 2, "INFO", "comm.py:637:init_distributed", "cdb=None"))
            if rng.random() < 0.3:
                ctx.emit(r, tt + 2.5, self.dsl(ctx, r, tt + 2.5, "WARNING", "comm.py:163:init_deepspeed_backend", "NCCL backend in DeepSpeed not yet implemented"))
        ctx.emit(0, t0 + 2.1, self.dsl(ctx, 0, t0 + 2.1, "INFO", "comm.py:668:init_distributed", "Initializing TorchBackend in DeepSpeed with backend nccl"))
        t1 = t0 + rng.uniform(10, 30)
        if ctx.ds_mode == "pipe":
            L = ["> initializing tensor model parallel with size %d" % topo.sizes["tp"], "> initializing pipeline model parallel with size %d" % topo.sizes["pp"],
                 "> setting random seeds to 1234 ...", "building GPT model ..."]
            coords = []
            for r in range(ctx.W):
                c = topo.coords(r)
                coords.append("ProcessCoord(pipe=%d, data=%d, model=%d): %d" % (c["pp"], c["dp"], c["tp"], r))
            L.append("Using topology: {%s}" % ", ".join(coords))
            ctx.map_visible = True
            L.append(self.dsl(ctx, 0, t1, "INFO", "module.py:372:_partition_layers", "Partitioning pipeline stages with method type:transformer"))
            nl = rng.choice([24, 32, 40, 48, 80])
            per = nl // topo.sizes["pp"]
            idx = 0
            for s in range(topo.sizes["pp"]):
                items = []
                if s == 0:
                    items += ["_to_float16", "EmbeddingPipe", "<lambda>"]
                items += ["ParallelTransformerLayerPipe"] * per
                if s == topo.sizes["pp"] - 1:
                    items += ["<lambda>", "MixedFusedLayerNorm", "EmbeddingPipe", "float16_to_fp32"]
                L.append("stage=%d layers=%d" % (s, len(items)))
                for it in items:
                    L.append("    %2d: %s" % (idx, it))
                    idx += 1
            L.append("  loss: CrossEntropy")
            ctx.emit_lines(0, t1, L, None, 0.001)
            tot = rng.randrange(6000, 70000) * 10 ** 6
            for r in sorted(ctx.sim):
                c = topo.coords(r)
                if c["dp"] == 0:
                    sp = tot // topo.sizes["pp"] // topo.sizes["tp"]
                    ctx.emit(r, t1 + 5 + rng.uniform(0, 1), self.dsl(ctx, r, t1 + 5, "INFO", "engine.py:180:__init__", "RANK=%d STAGE=%d LAYERS=%d [%d, %d) STAGE_PARAMS=%d (%.3fM) TOTAL_PARAMS=%d (%.3fM) UNIQUE_PARAMS=%d (%.3fM)" % (
                        r, c["pp"], per, c["pp"] * per, (c["pp"] + 1) * per, sp, sp / 1e6, tot, tot / 1e6, tot, tot / 1e6)))
        else:
            sp = topo.sizes["cp"]
            groups = topo.all_groups("cp")
            L = ["sequence parallel size: %d, data parallel size: %d" % (sp, topo.sizes["dp"])]
            if ctx.W <= 128:
                L.append("sequence parallel groups: %s" % groups)
                ctx.map_visible = True
            else:
                ctx.map_visible = False
            L += [self.dsl(ctx, 0, t1, "INFO", "partition_parameters.py:348:__exit__", "finished initializing model - num_params = %d, num_elems = %.2fB" % (rng.randrange(200, 800), rng.uniform(7, 72))),
                  self.dsl(ctx, 0, t1, "INFO", "stage3.py:130:__init__", "Reduce bucket size %s" % "{:,}".format(ctx.bucket)),
                  self.dsl(ctx, 0, t1, "INFO", "stage3.py:131:__init__", "Prefetch bucket size 50,000,000"),
                  self.dsl(ctx, 0, t1, "INFO", "logging.py:96:log_dist", "[Rank 0] DeepSpeed info: version=%s, git-hash=unknown, git-branch=unknown" % ctx.ds_ver),
                  self.dsl(ctx, 0, t1, "INFO", "config.py:1003:print", "  zero_optimization ............ stage=3 offload_param=None offload_optimizer=None reduce_bucket_size=%d overlap_comm=True" % ctx.bucket)]
            ctx.emit_lines(0, t1, L, None, 0.001)
        if rng.random() < 0.5 and ctx.sim:
            r = rng.choice(sorted(ctx.sim))
            ctx.emit_lines(r, t1 + 8, ["%s/torch/utils/checkpoint.py:464: UserWarning: torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. In version 2.4 we will raise an exception if use_reentrant is not passed. use_reentrant=False is recommended, but if you need to preserve the current default behavior, you can pass use_reentrant=True. Refer to docs for more details on the differences between the two variants." % ctx.pylib,
                                       "  warnings.warn("], None, 0.001)
        ctx.t_train0 = t1 + rng.uniform(20, 60)

    def train(self, ctx, t_to, straggle=None):
        rng = ctx.rng
        t = ctx.t_train0
        it = 0
        loss = ctx.loss0
        while True:
            st = ctx.st * rng.uniform(0.98, 1.03)
            if straggle and t >= straggle[0]:
                st *= straggle[1]
            if t + st > t_to:
                break
            t += st
            it += 1
            loss = max(1.3, loss - rng.uniform(0, 0.006) + rng.uniform(-0.01, 0.0115))
            if it % ctx.steps_per_print == 0:
                if ctx.ds_mode == "pipe":
                    ctx.emit(0, t, "steps: %d loss: %.4f iter time (s): %.3f samples/sec: %.3f" % (it, loss, st, ctx.gbs / st))
                    ctx.emit(ctx.W - 1, t + 0.01, " iteration %8d/%8d | consumed samples: %12d | consumed tokens: %12d | elapsed time per iteration (ms): %.1f | learning rate: %.3E | global batch size: %5d | lm loss: %.6E | loss scale: %.1f | grad norm: %.3f | num zeros: 0.0 | actual seqlen: %5d | number of skipped iterations: %3d | number of nan iterations: %3d | samples per second: %.3f | tokens per gpu per second (tgs): %.3f | TFLOPs: %.2f |" % (
                        it, ctx.train_iters, it * ctx.gbs, it * ctx.gbs * ctx.seqlen, st * 1000, 1.5e-4 * min(1, it / 1000.0), ctx.gbs, loss, 4096.0 if rng.random() < 0.9 else 2048.0,
                        rng.uniform(0.15, 0.6), ctx.seqlen, 0, 0, ctx.gbs / st, ctx.gbs * ctx.seqlen / st / ctx.W, rng.uniform(120, 170) * ctx.st / st))
                else:
                    ctx.emit(0, t, self.dsl(ctx, 0, t, "INFO", "logging.py:96:log_dist", "[Rank 0] step=%d, skipped=0, lr=[%.6e], mom=[(0.9, 0.95)]" % (it, 2e-5)))
                    ctx.emit(0, t + 0.01, "step %d | loss %.4f | tokens/s/gpu %.1f | step_time %.2fs" % (it, loss, ctx.seqlen * ctx.topo.sizes["dp"] / st / ctx.W * ctx.topo.sizes["cp"], st))
        ctx.t_last = t
        ctx.last_it = it
        return it, t

    def straggler(self, ctx, c):
        rng = ctx.rng
        onset = ctx.t_train0 + rng.uniform(0.05, 0.4) * (ctx.t_fail - ctx.t_train0)
        fac = rng.uniform(1.3, 2.0)
        it, t = self.train(ctx, ctx.t_fail + rng.uniform(200, 2000), (onset, fac, c))
        ctx.notes.append("rank %d (%s GPU %d) slow from t=%.0fs x%.2f" % (c, ctx.hosts[ctx.node_of(c)], ctx.lr(c), onset, fac))
        if rng.random() < 0.55:
            # wall_clock_breakdown prints per-rank timings for ranks in the first data-parallel replica
            for k in range(rng.randrange(3, 8)):
                tt = onset + (k + 1) * (t - onset) / 9
                for r in sorted(ctx.sim):
                    cc = ctx.topo.coords(r)
                    if cc["dp"] != ctx.topo.coords(c)["dp"]:
                        continue
                    slow = r == c
                    fwd = ctx.st * 300 * (fac if slow else 1) * rng.uniform(0.97, 1.03)
                    bwd = fwd * 2
                    ctx.emit(r, tt, self.dsl(ctx, r, tt, "INFO", "logging.py:96:log_dist", "[Rank %d] time (ms) | fwd_microstep: %.2f | bwd_microstep: %.2f | bwd_inner_microstep: %.2f | bwd_allreduce_microstep: %.2f | step_microstep: %.2f" % (
                        r, fwd, bwd, bwd * 0.9, (rng.uniform(0.1, 2.0) if slow else bwd * (fac - 1) * 0.8), rng.uniform(5, 30))))
            ctx.ev("wall_clock_breakdown", "[Rank %d] time (ms)" % c)
        elif rng.random() < 0.5:
            ctx.nvsmi = (c, "throttle")
        self.finish(ctx, t)

    def finish(self, ctx, t, early_exit=False):
        rng = ctx.rng
        ctx.t_end = t + rng.uniform(30, 120)
        for n in range(ctx.nnodes):
            if not any(r in ctx.sim for r in ctx.ranks_on(n)):
                continue
            for l in range(GPN):
                r = n * GPN + l
                ctx.emit_agent(n, ctx.t_end + 0.1 * l, self.dsl(ctx, n, ctx.t_end + 0.1 * l, "INFO", "launch.py:351:main", "Process %d exits successfully." % ctx.pid[r], True))

    def hang_extra(self, ctx, c, t):
        if ctx.rng.random() < 0.35:
            ctx.pyspy = (c, "hang")

    def stall_extra(self, ctx, c, t):
        if ctx.rng.random() < 0.35:
            ctx.pyspy = (c, "data")

    def pyspy_frames(self, ctx, what):
        if what == "hang":
            return ["    wait (threading.py:320)", "    get (queue.py:171)", "    _wait_for_async_save (%s:%d)" % (ctx.script, ctx.rng.randrange(200, 260)),
                    "    main (%s:%d)" % (ctx.script, ctx.rng.randrange(300, 400)), "    <module> (%s:412)" % ctx.script]
        return ["    __getitem__ (numpy/core/memmap.py:%d)" % ctx.rng.randrange(330, 350), "    __getitem__ (megatron/data/indexed_dataset.py:%d)" % ctx.rng.randrange(500, 560),
                "    fetch (torch/utils/data/_utils/fetch.py:52)", "    _next_data (torch/utils/data/dataloader.py:674)",
                "    __next__ (torch/utils/data/dataloader.py:631)", "    _next_batch (deepspeed/runtime/pipe/engine.py:652)"]

    def render(self, ctx):
        rng = ctx.rng
        fin = ctx.final
        host_of = lambda n: ctx.hosts[n]
        extra = list(ctx.runner)
        for n in sorted(set(ctx.node_of(r) for r in ctx.sim)):
            nat = sorted([(fin[r][0], r, fin[r]) for r in ctx.ranks_on(n) if r in fin and fin[r][2] != "killed"])
            if nat:
                t0, r0, v0 = nat[0]
                tk = t0 + 0.2
                for r in ctx.ranks_on(n):
                    ctx.emit_agent(n, tk + 0.001 * ctx.lr(r), self.dsl(ctx, n, tk, "INFO", "launch.py:319:sigkill_handler", "Killing subprocess %d" % ctx.pid[r], True))
                ctx.emit_agent(n, tk + 0.2, self.dsl(ctx, n, tk + 0.2, "ERROR", "launch.py:325:sigkill_handler", "['%s/bin/python', '-u', '%s', '--local_rank=%d', '--deepspeed', '--deepspeed_config', 'ds_config.json'] exits with return code = %d" % (
                    ctx.pylib.split("/lib/")[0], ctx.script, ctx.lr(r0), v0[1]), True))
                code = v0[1] if v0[1] >= 0 else 256 + v0[1]
                extra.append((tk + 0.5, "pdsh@%s: %s: ssh exited with exit code %d" % (ctx.hosts[0], ctx.hosts[n], code)))
                if r0 == ctx.culprit:
                    ctx.ev("ds-launcher-local_rank", "%s: " % ctx.hosts[n] + ctx.agent[n][-1][1])
        if ctx.sched_kill is not None:
            extra.append((ctx.sched_kill, "slurmstepd: error: *** JOB %s ON %s CANCELLED AT %s DUE TO PREEMPTION ***" % (ctx.jobid, ctx.hosts[0], slurm_ts(ctx, ctx.sched_kill))))
            extra.append((ctx.sched_kill + 0.5, "pdsh@%s: interrupt (one more within 1 sec to abort)" % ctx.hosts[0]))
            extra.append((ctx.sched_kill + 0.6, "pdsh@%s:  (^Z within 1 sec to cancel pending threads)" % ctx.hosts[0]))
            for n in range(ctx.nnodes):
                extra.append((ctx.sched_kill + 1, "pdsh@%s: %s: command in progress" % (ctx.hosts[0], ctx.hosts[n])))
        prefixed_agent = []
        for n in sorted(ctx.agent):
            for t, l in ctx.agent[n]:
                prefixed_agent.append((t, "%s: %s" % (ctx.hosts[n], l)))

        def attr(r, line, tag):
            if " NCCL " in line:
                return "nccl-host-dev"
            if "GPU %d has a total" % ctx.lr(r) in line:
                return "oom-gpu-index+host"
            if "RANK=%d " % r in line or "PG GUID 0(default_pg) Rank %d]" % r in line:
                return "ds-rank-tag"
            return None
        body = merged(ctx, sorted(ctx.out), lambda r: "%s: " % ctx.hosts[ctx.node_of(r)] if ctx.node_of(r) != 0 else "%s: " % ctx.hosts[0],
                      extra + prefixed_agent, attr, "train.log")
        if len(body) > 7000:
            body = body[:2000] + ["[... %d lines omitted ...]" % (len(body) - 6500)] + body[-4500:]
        hdr = ["+ deepspeed --hostfile=hostfile --master_addr=%s --master_port=%d %s --deepspeed --deepspeed_config ds_config.json" % (ctx.ips[0], ctx.master_port, ctx.script)]
        ctx.files["train.log"] = "\n".join(hdr + body) + "\n"
        ctx.files["hostfile"] = "\n".join("%s slots=8" % h for h in ctx.hosts) + "\n"
        cfg = {"train_batch_size": ctx.gbs, "train_micro_batch_size_per_gpu": ctx.mbs, "steps_per_print": ctx.steps_per_print,
               "gradient_clipping": 1.0, "bf16": {"enabled": True},
               "zero_optimization": {"stage": 1 if ctx.ds_mode == "pipe" else 3, "overlap_comm": True, "reduce_bucket_size": ctx.bucket},
               "wall_clock_breakdown": ctx.cause == "straggler" and "wall_clock_breakdown" in ctx.evidence}
        if ctx.ds_mode == "pipe":
            cfg["pipeline"] = {"activation_checkpoint_interval": 1}
        ctx.files["ds_config.json"] = json.dumps(cfg, indent=2) + "\n"
        render_node_extras(ctx, rng, kstyles=("T", "syslog", "raw"), prefix="dmesg_")
        if getattr(ctx, "pid_in_kern", False):
            ctx.evidence.append("oom-pid+ds-spawn-line")


class ColossalHybrid(Layout):
    name = "colossal_hybrid"
    stack = "Colossal-AI HybridParallelPlugin / MoeHybridParallelPlugin, colossalai run, per-rank logs named by (dp,pp,tp)"
    policy = {"mode": "agent", "global": None}

    def setup(self, ctx):
        rng = ctx.rng
        nn = rng.choice([2, 2, 4, 4, 8, 8, 16])
        base_setup(ctx, nn, "pip", 1, 5, gpu_w=(5, 4, 1))
        W = ctx.W
        ctx.moe = rng.random() < 0.3
        for _ in range(200):
            tp, pp = rng.choice([1, 2, 4, 8]), rng.choice([2, 2, 4, 8])
            if W % (tp * pp) == 0:
                break
        dp = W // (tp * pp)
        ep = 1
        if ctx.moe:
            cands = [x for x in (2, 4, 8) if dp % x == 0]
            ep = rng.choice(cands) if cands else 1
            ctx.moe = ep > 1
        sizes = {"tp": tp, "cp": 1, "pp": pp, "dp": dp}
        if ep > 1:
            sizes["ep"] = ep
        # ProcessGroupMesh(dp, pp, tp): tp fastest, then pp, then dp
        ctx.topo = Topo(W, sizes, ["tp", "cp", "pp", "dp"])
        ctx.pg_order = [("dp", "undefined", False), ("pp", "undefined", False), ("tp", "undefined", False)]
        if ep > 1:
            ctx.pg_order.append(("ep", "undefined", False))
        s0 = rng.randrange(1, 200)
        pat = rng.choice(["cn%03d", "gpu-%02d", "bjdx-a800-%03d", "sh-h100-%02d"])
        ctx.hosts = [pat % (s0 + i) for i in range(nn)]
        ctx.ips = mk_ips(ctx, nn)
        ctx.aliases = [[ctx.ips[i]] for i in range(nn)]
        ctx.nccl_host = lambda n: ctx.hosts[n]
        ctx.agent_host = lambda n: ctx.hosts[n]
        ctx.netdev = lambda k: ("ibp%ds0" if ctx.ib_kind == "IB" else "enp%ds0f0np0") % int(ctx.hca_pci[k], 16)
        ctx.cgroup_name = lambda n: "/user.slice/user-%d.slice" % ctx.uid
        ctx.timeout_ms = 600000 if ctx.tv >= 2 else 1800000
        ctx.hidden = rng.choice([4096, 5120, 8192])
        ctx.seqlen = rng.choice([2048, 4096, 8192])
        ctx.mbs = rng.choice([1, 2])
        ctx.seqpar = tp > 1 and rng.random() < 0.5
        ctx.dist_opt = True
        ctx.bucket = rng.choice([12 * 1024 * 1024, 50000000])
        ctx.gbs = dp * ctx.mbs * rng.choice([8, 16, 32])
        ctx.st = rng.uniform(3.0, 15.0)
        ctx.loss0 = rng.uniform(2.0, 3.5)
        ctx.cai_ver = rng.choice(["0.3.6", "0.4.0", "0.4.2", "0.4.5"])
        ctx.root = rng.choice(["/workspace/ColossalAI/examples/language/llama", "/home/%s/ColossalAI/applications/Colossal-LLaMA" % rng.choice(["lyh", "wang", "train"]), "/data/code/mixtral-train"])
        ctx.script = "benchmark.py" if "examples" in ctx.root else "train.py"
        ctx.print_map = rng.random() < 0.6
        ctx.coord_logs = True
        ctx.steps = rng.choice([1000, 5000, 20000])

    def coord_of(self, ctx, r):
        c = ctx.topo.coords(r)
        return "dp%d_pp%d_tp%d" % (c["dp"], c["pp"], c["tp"])

    def ops(self, ctx, r, rel):
        k = Layout.ops(self, ctx, r, rel)
        return k

    def rich(self, ctx, t, msg, first=False):
        d = ctx.dtm(0, t, "c")
        head = ("[%s] " % d.strftime("%m/%d/%y %H:%M:%S")) if first else " " * 20
        return "%sINFO     colossalai - colossalai - INFO: %s" % (head, msg)

    def tb(self, ctx, r, where):
        P = ctx.pylib
        S = "%s/%s" % (ctx.root, ctx.script)
        C = P + "/colossalai"
        top = [(S, 331, "<module>", "main()")]
        if where == "ckpt":
            return top + [(S, 306, "main", "booster.save_model(model, os.path.join(args.save_dir, f\"step{step}\"), shard=True)"),
                          (C + "/booster/booster.py", 307, "save_model", "self.checkpoint_io.save_model("),
                          (C + "/checkpoint_io/hybrid_parallel_checkpoint_io.py", 221, "save_sharded_model", "total_size = save_state_dict_shards("),
                          (C + "/checkpoint_io/utils.py", 213, "save_state_dict_shards", "save_state_dict(shard, checkpoint_file_path, use_safetensors=use_safetensors)"),
                          (P + "/torch/serialization.py", 651, "save", "with _open_zipfile_writer(f) as opened_zipfile:")]
        if where == "optim":
            return top + [(S, 301, "main", "optimizer.step()"),
                          (C + "/booster/plugin/hybrid_parallel_plugin.py", 707, "step", "super().step(*args, **kwargs)"),
                          (C + "/zero/low_level/low_level_optim.py", 692, "step", "working_param = real_working_params[group_id][idx]"),
                          (C + "/zero/low_level/low_level_optim.py", 660, "step", "grad_fp32 = torch.empty_like(working_param, dtype=torch.float32)")]
        pipe = [(S, 297, "main", "outputs = booster.execute_pipeline(data_iter, model, lambda x, y: x.loss, optimizer, return_loss=True)"),
                (C + "/booster/booster.py", 221, "execute_pipeline", "return self.plugin.execute_pipeline(data_iter, model, criterion, optimizer, return_loss, return_outputs)"),
                (C + "/booster/plugin/hybrid_parallel_plugin.py", 1409, "execute_pipeline", "outputs = self.scheduler.forward_backward_step("),
                (C + "/pipeline/schedule/one_f_one_b.py", 472, "forward_backward_step", "result = self.run_forward_backward(")]
        O = C + "/pipeline/schedule/one_f_one_b.py"
        if where == "p2p":
            return top + pipe + [(O, 386, "run_forward_backward", "input_obj = self.recv_forward()"),
                                 (O, 135, "recv_forward", "input_tensor, _ = self.comm.recv_forward(prev_rank, metadata_recv=self.tensor_metadata_recv)"),
                                 (C + "/pipeline/p2p.py", 516, "recv_forward", "return _communicate(object=None, recv_src=prev_rank, send_dst=None, recv_group=cur_group, metadata_recv=metadata_recv)"),
                                 (C + "/pipeline/p2p.py", 389, "_communicate", "_batch_send_recv_tensor(")]
        if where == "data":
            return top + pipe + [(O, 380, "run_forward_backward", "self.load_batch(data_iter)"),
                                 (O, 91, "load_batch", "batch = next(data_iter)"),
                                 (P + "/torch/utils/data/dataloader.py", 631 if ctx.tv < 4 else 701, "__next__", "data = self._next_data()"),
                                 (P + "/torch/utils/data/dataloader.py", 1329 if ctx.tv < 4 else 1448, "_next_data", "idx, data = self._get_data()")]
        if where == "bwd":
            return top + pipe + [(O, 418, "run_forward_backward", "input_obj_grad = self.backward_step(optimizer, input_obj, output_obj, output_obj_grad)"),
                                 (O, 310, "backward_step", "optimizer.backward_by_grad(output_obj, output_obj_grad)"),
                                 (C + "/zero/low_level/low_level_optim.py", 445, "backward_by_grad", "torch.autograd.backward(tensor, grad)")]
        fw = top + pipe + [(O, 400, "run_forward_backward", "output_obj = self.forward_step(model_chunk, input_obj, criterion, accum_loss, outputs)"),
                           (O, 263, "forward_step", "output_obj = model_forward(model, micro_batch, input_obj)"),
                           (C + "/pipeline/schedule/_utils.py", 120, "model_forward", "return model(**data, **internal_inputs)")] + mod_frames(ctx) + [
            (C + "/booster/plugin/hybrid_parallel_plugin.py", 222, "forward", "return super().forward(*args, **kwargs)"),
            (C + "/interface/model.py", 25, "forward", "return self.module(*args, **kwargs)")] + mod_frames(ctx)
        if where == "loss":
            return fw + [(C + "/shardformer/modeling/llama.py", 328, "llama_for_causal_lm_forward", "loss = dist_cross_entropy("),
                         (C + "/shardformer/layer/loss.py", 375, "dist_cross_entropy", "loss = cross_entropy_1d("),
                         (C + "/shardformer/layer/loss.py", 239, "cross_entropy_1d", "return DistCrossEntropy.apply(vocab_logits, labels, ignore_index, process_group, vocab_size, dtype, mode)"),
                         (P + "/torch/autograd/function.py", 539 if ctx.tv <= 3 else 575, "apply", "return super().apply(*args, **kwargs)  # type: ignore[misc]"),
                         (C + "/shardformer/layer/loss.py", 93, "forward", "vocab_logits = vocab_logits.float()")]
        if where == "a2a":
            return fw + [(C + "/shardformer/modeling/mixtral.py", 137, "forward", "dispatch_states, _ = all_to_all_uneven(dispatch_states, input_split_list, output_split_list, self.ep_group, fp8_communication=self.fp8_communication)"),
                         (C + "/moe/_operation.py", 446, "all_to_all_uneven", "return AllToAllUneven.apply(inputs, input_split_sizes, output_split_sizes, group, overlap, fp8_communication)"),
                         (P + "/torch/autograd/function.py", 539 if ctx.tv <= 3 else 575, "apply", "return super().apply(*args, **kwargs)  # type: ignore[misc]"),
                         (C + "/moe/_operation.py", 395, "forward", "return _all_to_all("),
                         (C + "/moe/_operation.py", 366, "_all_to_all", "handle = dist.all_to_all_single(")]
        return fw + [(C + "/shardformer/modeling/llama.py", 139, "llama_model_forward", "layer_outputs = decoder_layer(")] + mod_frames(ctx) + [
            (P + "/transformers/models/llama/modeling_llama.py", 658, "forward", "hidden_states = self.mlp(hidden_states)" if where != "attn" else "hidden_states, self_attn_weights, present_key_value = self.self_attn(")] + mod_frames(ctx)

    def err_banner(self, ctx, r, t):
        d = ctx.dtm(ctx.node_of(r), t, "c")
        c = ctx.topo.coords(r)
        return ["%s [dp%d|pp%d|tp%d] ERROR training step failed, see traceback" % (d.strftime("%Y-%m-%d %H:%M:%S,") + "%03d" % (d.microsecond // 1000), c["dp"], c["pp"], c["tp"])]

    def choose_sim(self, ctx):
        default_sim(ctx, max_nodes=6)

    def ulog(self, ctx, r, t, lvl, msg):
        d = ctx.dtm(ctx.node_of(r), t, "c")
        c = ctx.topo.coords(r)
        return "%s [dp%d|pp%d|tp%d] %s %s" % (d.strftime("%Y-%m-%d %H:%M:%S,") + "%03d" % (d.microsecond // 1000), c["dp"], c["pp"], c["tp"], lvl, msg)

    def startup(self, ctx):
        rng = ctx.rng
        topo = ctx.topo
        t = rng.uniform(8, 20)
        ctx.ulogs = {}
        L = [self.rich(ctx, t, "%s/initialize.py:%d launch" % (ctx.pylib + "/colossalai", rng.choice([67, 75])), True),
             self.rich(ctx, t, "Distributed environment is initialized, world size: %d" % ctx.W)]
        ctx.emit_lines(0, t, L, None, 0.001)
        if ctx.print_map:
            for r in range(ctx.W):
                c = topo.coords(r)
                ctx.emit(r, t + 1 + rng.uniform(0, 1), "[rank map] global_rank=%d dp=%d pp=%d tp=%d%s host=%s local_rank=%d" % (
                    r, c["dp"], c["pp"], c["tp"], (" ep=%d" % c["ep"]) if topo.ep > 1 else "", ctx.hosts[ctx.node_of(r)], ctx.lr(r)))
        t1 = t + rng.uniform(20, 80)
        ctx.emit_lines(0, t1, ["Model params: %.2f B" % rng.uniform(6.5, 72), "Booster init max CUDA memory: %.2f MB" % rng.uniform(15000, 40000),
                               "Booster init max CPU memory: %.2f MB" % rng.uniform(9000, 60000)], None, 0.01)
        for r in sorted(ctx.sim):
            tt = t1 + rng.uniform(0, 2)
            ctx.ulogs[r] = [(tt, self.ulog(ctx, r, tt, "INFO", "plugin=%s tp_size=%d pp_size=%d%s zero_stage=1 microbatch_size=%d precision=bf16" % (
                "MoeHybridParallelPlugin" if topo.ep > 1 else "HybridParallelPlugin", topo.sizes["tp"], topo.sizes["pp"], (" ep_size=%d" % topo.ep) if topo.ep > 1 else "", ctx.mbs)))]
            if rng.random() < 0.3:
                ctx.emit_lines(r, tt + 1, ["%s/colossalai/shardformer/layer/normalization.py:48: UserWarning: Please install apex from source (https://github.com/NVIDIA/apex) to use the fused RMSNorm kernel" % ctx.pylib,
                                           '  warnings.warn("Please install apex from source (https://github.com/NVIDIA/apex) to use the fused RMSNorm kernel")'], None, 0.001)
        ctx.t_train0 = t1 + rng.uniform(20, 50)

    def train(self, ctx, t_to, straggle=None):
        rng = ctx.rng
        t = ctx.t_train0
        it = 0
        loss = ctx.loss0
        topo = ctx.topo
        last = [r for r in sorted(ctx.sim) if topo.coords(r)["pp"] == topo.sizes["pp"] - 1 and topo.coords(r)["tp"] == 0 and topo.coords(r)["dp"] == 0]
        bar_rank = last[0] if last else topo.rank({"tp": 0, "cp": 0, "pp": topo.sizes["pp"] - 1, "dp": 0})
        interval = rng.choice([1, 5, 10])
        while True:
            st = ctx.st * rng.uniform(0.98, 1.03)
            slow_now = straggle and t >= straggle[0]
            if slow_now:
                st *= straggle[1]
            if t + st > t_to:
                break
            t += st
            it += 1
            loss = max(1.2, loss - rng.uniform(0, 0.006) + rng.uniform(-0.01, 0.0115))
            if it % interval == 0:
                el = t - ctx.t_train0
                pct = int(100 * it / ctx.steps)
                rem = (ctx.steps - it) * st
                ctx.emit(bar_rank, t, "Epoch 0: %3d%%|%s| %d/%d [%s<%s, %5.2fs/it, loss=%.4f]" % (
                    pct, ("\u2588" * (pct // 10)).ljust(10), it, ctx.steps, tqdm_t(el), tqdm_t(rem), st, loss))
                for r in ctx.ulogs:
                    c = topo.coords(r)
                    fb = st * rng.uniform(0.85, 0.93)
                    wait = st - fb
                    if slow_now:
                        if r == straggle[2]:
                            fb, wait = st * rng.uniform(0.95, 0.99), st * rng.uniform(0.005, 0.02)
                        else:
                            fb = ctx.st * rng.uniform(0.85, 0.93)
                            wait = st - fb
                    msg = "step %d | fwd_bwd %.3fs | p2p_wait %.3fs | step_time %.3fs | mem_alloc %.2fGiB" % (it, fb, wait, st, ctx.gpu_mem * rng.uniform(0.6, 0.8))
                    if c["pp"] == topo.sizes["pp"] - 1:
                        msg += " | loss %.4f" % loss
                    ctx.ulogs[r].append((t + 0.01, self.ulog(ctx, r, t + 0.01, "INFO", msg)))
        ctx.t_last = t
        ctx.last_it = it
        return it, t

    def straggler(self, ctx, c):
        rng = ctx.rng
        onset = ctx.t_train0 + rng.uniform(0.05, 0.4) * (ctx.t_fail - ctx.t_train0)
        fac = rng.uniform(1.3, 2.0)
        it, t = self.train(ctx, ctx.t_fail + rng.uniform(200, 1500), (onset, fac, c))
        ctx.notes.append("rank %d (%s) slow from t=%.0fs x%.2f; its per-rank log shows high fwd_bwd while peers wait in p2p" % (c, self.coord_of(ctx, c), onset, fac))
        if rng.random() < 0.3:
            ctx.nvsmi = (c, "throttle")
        self.finish(ctx, t)

    def finish(self, ctx, t, early_exit=False):
        ctx.emit_lines(0, t + 2, ["Saving model checkpoint to %s/outputs/step%d" % (ctx.root, getattr(ctx, "last_it", 0)), "Max CUDA memory usage: %.2f MB" % (ctx.gpu_mem * 1024 * 0.8)], None, 10)
        ctx.t_end = t + 30

    def hang_extra(self, ctx, c, t):
        if ctx.rng.random() < 0.35:
            ctx.pyspy = (c, "hang")

    def stall_extra(self, ctx, c, t):
        pass

    def pyspy_frames(self, ctx, what):
        return ["    wait (threading.py:324)", "    join (threading.py:1119)",
                "    save_model (colossalai/booster/booster.py:307)" if what == "hang" else "    load_batch (colossalai/pipeline/schedule/one_f_one_b.py:91)",
                "    main (%s:%d)" % (ctx.script, ctx.rng.randrange(280, 320)), "    <module> (%s:331)" % ctx.script]

    def render(self, ctx):
        rng = ctx.rng
        fin = ctx.final
        topo = ctx.topo
        # torchrun agents per host (colossalai run launches torchrun over ssh on each host)
        for n in sorted(set(ctx.node_of(r) for r in ctx.sim)):
            nat = sorted([(fin[r][0], r, fin[r]) for r in ctx.ranks_on(n) if r in fin and fin[r][2] != "killed"])
            if nat:
                t0, r0, v0 = nat[0]
                tk = t0 + 0.3
                for r in ctx.ranks_on(n):
                    if r != r0:
                        ctx.emit_agent(n, tk, agent_line(ctx, n, tk, "W", "multiprocessing.api", "multiprocessing/api.py:897", "Sending process %d closing signal SIGTERM" % ctx.pid[r]))
                te = ctx.agent_exit.get(n, tk + 3)
                ctx.emit_agent(n, te - 0.5, agent_line(ctx, n, te - 0.5, "E", "multiprocessing.api", "multiprocessing/api.py:869",
                                                       "failed (exitcode: %d) local_rank: %d (pid: %d) of binary: %s/bin/python" % (v0[1], ctx.lr(r0), ctx.pid[r0], ctx.pylib.split("/lib/")[0])))
                for i, l in enumerate(child_failed_block(ctx, n, te, ctx.script, [(r, v[1], ctx.pid[r], tt) for tt, r, v in nat[:3] if tt < t0 + 5])):
                    ctx.emit_agent(n, te + i * 0.0001, l)
                if r0 == ctx.culprit:
                    ctx.ev("torchrun-root-cause", "  rank      : %d (local_rank: %d)" % (ctx.culprit, ctx.lr(ctx.culprit)))
        if ctx.sched_kill is not None:
            for n in sorted(set(ctx.node_of(r) for r in ctx.sim)):
                tg = ctx.sched_kill + rng.uniform(0, 1.5)
                for i, l in enumerate(agent_sigterm_block(ctx, n, tg, ctx.script)):
                    ctx.emit_agent(n, tg + i * 0.0001, l)
        extra = []
        for n in sorted(ctx.agent):
            extra += ctx.agent[n]
        if ctx.sched_kill is not None:
            extra.append((ctx.sched_kill - 0.2, "slurmstepd: error: *** JOB %s ON %s CANCELLED AT %s DUE TO PREEMPTION ***" % (rng.randrange(10000, 99999), ctx.hosts[0], slurm_ts(ctx, ctx.sched_kill))))
        fails = [n for n in range(ctx.nnodes) if any(r in fin and fin[r][2] != "killed" and fin[r][1] != 0 for r in ctx.ranks_on(n))]
        for n in fails:
            tt = max([fin[r][0] for r in ctx.ranks_on(n) if r in fin] + [0]) + 5
            extra.append((tt, "Error: failed to run torchrun --nproc_per_node=8 --nnodes=%d --node_rank=%d --master_addr=%s --master_port=29500 %s on %s, is localhost: %s, exception: Encountered a bad command exit code!" % (
                ctx.nnodes, n, ctx.hosts[0], ctx.script, ctx.hosts[n], n == 0)))
        pre = (lambda r: "[rank%d]:" % r) if ctx.tv >= 2 else (lambda r: "")

        def attr(r, line, tag):
            if ctx.tv >= 2:
                return "global-prefix"
            if "[dp" in line and ctx.print_map:
                return "coords+rankmap"
            if " NCCL " in line:
                return "nccl-host-dev"
            return None
        body = merged(ctx, sorted(ctx.out), pre, extra, attr, "output.log")
        if len(body) > 6000:
            body = body[:1500] + ["[... %d lines omitted ...]" % (len(body) - 5500)] + body[-4000:]
        hdr = ["+ colossalai run --nproc_per_node 8 --hostfile hostfile --master_addr %s %s/%s --plugin %s --tp %d --pp %d%s --zero 1 --mbs %d" % (
            ctx.hosts[0], ctx.root, ctx.script, "moe_hybrid" if topo.ep > 1 else "3d", topo.sizes["tp"], topo.sizes["pp"], (" --ep %d" % topo.ep) if topo.ep > 1 else "", ctx.mbs)]
        ctx.files["output.log"] = "\n".join(hdr + body) + "\n"
        ctx.files["hostfile"] = "\n".join(ctx.hosts) + "\n"
        # per-rank coordinate-named logs (subset attached)
        ranks = sorted(ctx.ulogs)
        pick = set(rng.sample(ranks, min(len(ranks), rng.choice([3, 4, 6]))))
        if ctx.culprit is not None and ctx.culprit in ctx.ulogs and rng.random() < 0.6:
            pick.add(ctx.culprit)
        if ctx.cause == "straggler" and ctx.culprit in ctx.ulogs:
            pick.add(ctx.culprit)
        for r in sorted(pick):
            lines = list(ctx.ulogs[r])
            for t, line, tag in ctx.out.get(r, []):
                if tag in ("culprit", "culprit_weak") or (tag == "collateral" and "Watchdog caught" in line):
                    lines.append((t, line))
                    if r == ctx.culprit and tag in ("culprit", "culprit_weak"):
                        if ctx.print_map:
                            ctx.evidence.append("coord-named-log+rankmap")
            lines.sort(key=lambda x: x[0])
            fin_r = fin.get(r)
            ctx.files["logs/%s.log" % self.coord_of(ctx, r)] = "\n".join(l for t, l in lines if not fin_r or t <= fin_r[0] + 1) + "\n"
        if ctx.cause == "straggler" and ctx.culprit in pick and ctx.print_map:
            ctx.evidence.append("coord-log-slow+rankmap")
        render_node_extras(ctx, rng, kstyles=("T", "syslog"))
        if getattr(ctx, "pid_in_kern", False):
            if ("local_rank: %d (pid: %d)" % (ctx.lr(ctx.culprit), ctx.pid[ctx.culprit])) in ctx.files["output.log"]:
                ctx.evidence.append("oom-pid+torchrun-pid")


# --------------------------------------------------------------------------
# driver
# --------------------------------------------------------------------------
LAYOUT_CLS = {"megatron_srun": MegatronSrun, "nemo_k8s": NemoK8s, "titan_slurm": TitanSlurm,
              "deepspeed_pdsh": DeepspeedPdsh, "colossal_hybrid": ColossalHybrid, "mcore_moe_nccl": McoreMoeNccl}


def benign_noise(ctx, L):
    """alarming-looking but harmless lines; heavier for healthy runs."""
    rng = ctx.rng
    sim = sorted(ctx.sim)
    if not sim:
        return
    k = 3 if ctx.cause is None else 1
    t_lo, t_hi = ctx.t_train0, max(ctx.t_train0 + 1, ctx.t_fail - 5 * ctx.st)
    for _ in range(k):
        v = rng.choice(["s3retry", "gid", "recordstream", "nanskip", "dlwarn"])
        r = rng.choice(sim)
        if r == ctx.culprit:
            continue
        t = rng.uniform(t_lo, t_hi)
        if v == "s3retry" and r == 0 or v == "s3retry" and rng.random() < 0.5:
            lines = ["WARNING:ckpt_sync:upload of %s/iter_%07d failed (attempt 1/5), retrying in 10s" % (rng.choice(["s3://llm-ckpt", "gs://train-ckpts"]), rng.randrange(1000, 90000))] + py_tb(
                [("/workspace/tools/ckpt_sync.py", 88, "upload", "client.upload_file(local_path, bucket, key, Config=self.transfer_cfg)"),
                 (ctx.pylib + "/boto3/s3/transfer.py", 372, "upload_file", "future.result()"),
                 (ctx.pylib + "/s3transfer/futures.py", 103, "result", "return self._coordinator.result()")],
                ['botocore.exceptions.EndpointConnectionError: Could not connect to the endpoint URL: "https://s3.%s.amazonaws.com/llm-ckpt/iter_%07d/__0_0.distcp"' % (rng.choice(["us-west-2", "us-east-1"]), rng.randrange(1000, 90000))]) + \
                ["INFO:ckpt_sync:upload succeeded on attempt 2 (%.1fs)" % rng.uniform(20, 90)]
            ctx.emit_lines(r, t, lines, "decoy", 0.001)
            ctx.decoys.append("handled checkpoint-upload exception on rank %d" % r)
        elif v == "gid" and ctx.ib_kind == "RoCE":
            ctx.emit(r, t, nccl_line(ctx, r, t, "WARN", "NET/IB : Got async event : GID table change", "proxy", "transport/net_ib.cc:%d" % rng.choice([123, 155, 229])), "decoy")
            ctx.decoys.append("benign NCCL WARN (GID table change) on rank %d" % r)
        elif v == "recordstream":
            ctx.emit(r, t, cpp(ctx, r, t, "W", "ProcessGroupNCCL.cpp:%d" % rng.choice([2291, 2583, 3104]), "Warning: TORCH_NCCL_AVOID_RECORD_STREAMS=1 has no effect for point-to-point collectives. (function operator())"), "decoy")
        elif v == "nanskip":
            ctx.emit(r, t, "WARNING: found inf/nan in gradients on rank %d at step %d, skipping optimizer step (loss scale -> %.1f)" % (r, int((t - ctx.t_train0) / ctx.st), rng.choice([32768.0, 16384.0, 1.0])), "decoy")
            ctx.decoys.append("skipped step for inf/nan grads on rank %d" % r)
        else:
            ctx.emit_lines(r, t, ["%s/torch/utils/data/dataloader.py:%d: UserWarning: This DataLoader will create 16 worker processes in total. Our suggested max number of worker in current system is 12, which is smaller than what this DataLoader is going to create. Please be aware that excessive worker creation might get DataLoader running slow or even freeze, lower the worker number to avoid potential slowness/freeze if necessary." % (ctx.pylib, 557 if ctx.tv < 4 else 617),
                                  "  warnings.warn("], "decoy", 0.001)


def silent_member_deduction(ctx):
    """hang-like causes: the culprit prints nothing, but every other member of its TP (or PP
    neighbour) group reports a watchdog timeout under a global rank, and membership is known."""
    c = ctx.culprit
    if c is None or not getattr(ctx, "map_visible", False):
        return False
    grp = [x for x in ctx.topo.group("tp", c) if x != c]
    if not grp:
        grp = []
        cc = ctx.topo.coords(c)
        for d in (-1, 1):
            if 0 <= cc["pp"] + d < ctx.topo.sizes.get("pp", 1):
                x = dict(cc)
                x["pp"] = cc["pp"] + d
                grp.append(ctx.topo.rank(x))
    if not grp:
        return False
    return all(r in ctx.reported_global for r in grp)


def drive(seed, idx, layout, cause):
    ctx = Ctx(seed, idx, layout, cause)
    L = LAYOUT_CLS[layout]()
    ctx.L = L
    ctx.reported_global = set()
    L.setup(ctx)
    rng = ctx.rng
    ctx.culprit = choose_culprit(ctx)
    if ctx.culprit is not None:
        ctx.culprit_node = ctx.node_of(ctx.culprit)
    L.choose_sim(ctx)
    L.startup(ctx)
    interval = getattr(ctx, "log_int", None) or getattr(ctx, "log_freq", None) or getattr(ctx, "steps_per_print", None) or 1
    ctx.t_fail = ctx.t_train0 + rng.uniform(25, 110) * ctx.st * interval + rng.uniform(0.1, 0.9) * ctx.st
    if layout == "megatron_srun" or layout == "mcore_moe_nccl":
        ctx.map_visible = getattr(ctx, "map_mode", "none") == "all"
    elif layout == "titan_slurm":
        ctx.map_visible = True
    elif layout == "colossal_hybrid":
        ctx.map_visible = ctx.print_map
    elif layout == "nemo_k8s":
        ctx.map_visible = True
    benign_noise(ctx, L)
    if cause is None:
        L.train(ctx, ctx.t_fail)
        L.finish(ctx, ctx.t_last)
    elif cause == "straggler":
        SCENARIOS[cause](ctx, L)
    else:
        L.train(ctx, ctx.t_fail)
        SCENARIOS[cause](ctx, L)
    resolve(ctx)
    L.render(ctx)
    if cause in ("hang", "gpu_hardware", "data_loader_stall") and silent_member_deduction(ctx):
        ctx.evidence.append("silent-member-of-reporting-group")
    shrink(ctx.files, MAX_RUN_BYTES - 20000)
    for name, fn, line in ctx.ev_lines:
        if fn is not None and fn in ctx.files:
            ok = line in ctx.files[fn]
        else:
            ok = any(line in v for v in ctx.files.values())
        if ok:
            ctx.evidence.append(name)
    if layout == "nemo_k8s" and ctx.culprit is not None:
        # NeMo pod logs: "[rankN]:"/"[defaultL]:" prefixes are only evidence if the culprit's pod log is attached
        pass
    # ---------- truth ----------
    rank = ctx.culprit
    node = None
    if rank is not None:
        node = ctx.node_of(rank)
    elif ctx.culprit_node is not None:
        node = ctx.culprit_node
    if cause in ("unknown",) or cause is None:
        node = None
        rank = None
    if cause == "preemption" and getattr(ctx, "preempt_node", None) is None:
        node = None
    ev = sorted(set(ctx.evidence))
    inferable = rank is not None and len(ev) > 0
    drain = cause in ("gpu_hardware", "ecc_memory", "nvlink") or (cause == "network" and ctx.culprit_node is not None)
    topo = ctx.topo
    dims = "TP=%d PP=%d CP=%d DP=%d%s" % (topo.sizes.get("tp", 1), topo.sizes.get("pp", 1), topo.sizes.get("cp", 1), topo.sizes["dp"], (" EP=%d" % topo.ep) if topo.ep > 1 else "")
    notes = "world=%d (%d nodes x8), %s, order %s, torch %s, NCCL %s, %s. Injected: %s. Culprit coords: %s. Evidence for rank: %s. Decoys: %s." % (
        ctx.W, ctx.nnodes, dims, "-".join(topo.order), ctx.torch_ver, ctx.nccl, ctx.gpu_model,
        "; ".join(ctx.notes) if ctx.notes else "nothing (healthy run)",
        (str(topo.coords(ctx.culprit)) if ctx.culprit is not None else "n/a"),
        ", ".join(ev) if ev else "none",
        "; ".join(ctx.decoys) if ctx.decoys else "none")
    aliases = []
    if node is not None:
        aliases = [a for a in ctx.aliases[node] if a != ctx.hosts[node]]
    truth = {"cause": cause, "healthy": cause is None, "rank": rank,
             "node": ctx.hosts[node] if node is not None else None,
             "drain": bool(drain), "rank_inferable": bool(inferable), "node_aliases": aliases,
             "layout": layout, "notes": notes}
    return ctx, truth


def plan(seed, n):
    rng = random.Random("%s|plan|%s" % (NAME, seed))
    causes = list(CAUSES)
    rng.shuffle(causes)
    seq = []
    while len(seq) < n:
        blk = list(LAYOUTS)
        rng.shuffle(blk)
        seq += blk
    out = []
    k = 0
    for i in range(n):
        if i % 7 == 3:
            c = None
        else:
            c = causes[k % len(causes)]
            k += 1
        out.append((i, seq[i], c))
    return out


def shrink(files, limit):
    """keep a run folder under the size limit by trimming the biggest text file's middle."""
    def total():
        return sum(len(v.encode("utf-8")) for v in files.values())
    guard = 0
    while total() > limit and guard < 20:
        guard += 1
        big = max(files, key=lambda k: len(files[k]))
        lines = files[big].split("\n")
        keep = max(200, int(len(lines) * 0.6))
        head, tail = keep // 3, keep - keep // 3
        files[big] = "\n".join(lines[:head] + ["[... %d lines truncated to fit the attachment size limit ...]" % (len(lines) - keep)] + lines[-tail:])


def main(argv=None):
    ap = argparse.ArgumentParser(description="blind25 synthetic multi-dimensional-parallel training log bundles")
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--seed", default="1")
    a = ap.parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    counts = {}
    for i, layout, cause in plan(a.seed, a.n):
        ctx, truth = drive(a.seed, i, layout, cause)
        files = ctx.files
        d = os.path.join(a.out, "run-%03d-%s" % (i, layout))
        if os.path.isdir(d):
            shutil.rmtree(d)
        os.makedirs(d)
        for rel in sorted(files):
            p = os.path.join(d, rel)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "w", encoding="utf-8", newline="\n") as f:
                f.write(files[rel])
        with open(os.path.join(d, "truth.json"), "w", encoding="utf-8") as f:
            json.dump(truth, f, indent=2, sort_keys=True)
            f.write("\n")
        key = cause if cause is not None else "healthy"
        counts[key] = counts.get(key, 0) + 1
    print(json.dumps({k: counts[k] for k in sorted(counts)}, indent=None, sort_keys=True))


if __name__ == "__main__":
    main()
