#!/usr/bin/env python3
"""gen_blind21 -- synthetic failed/healthy distributed GPU training bundles seen mostly
through the scheduler's / orchestrator's eyes (Slurm, Kubernetes PyTorchJob / JobSet,
PBS Pro, LSF), with partial, truncated or per-rank-sampled trainer logs.

Standard library only.  Deterministic for a given --seed.
Usage: python3 gen_blind21.py --out DIR --n 60 --seed S
"""
import argparse
import json
import os
import random
import re
import shutil
from datetime import datetime, timedelta, timezone

CAUSES = ["gpu_hardware", "ecc_memory", "nvlink", "network", "cuda_oom",
          "illegal_memory_access", "python_exception", "host_oom_kill", "crash_signal",
          "preemption", "hang", "data_loader_stall", "collective_mismatch", "straggler",
          "unknown"]
LAYOUTS = ["slurm_srun", "slurm_torchrun", "k8s_pytorchjob", "k8s_jobset",
           "pbs_mpiexec", "lsf_mpirun"]
DRAIN_CAUSES = ("gpu_hardware", "ecc_memory", "nvlink", "network")

# torch version, bundled NCCL, cuda tag
TORCH_VERSIONS = [("2.0.1", "2.18.3", "cu118"), ("2.1.2", "2.18.1", "cu121"),
                  ("2.2.2", "2.19.3", "cu121"), ("2.3.1", "2.20.5", "cu121"),
                  ("2.4.1", "2.20.5", "cu124"), ("2.5.1", "2.21.5", "cu124"),
                  ("2.6.0", "2.21.5", "cu124"), ("2.7.1", "2.26.2", "cu126"),
                  ("2.8.0", "2.27.3", "cu128"), ("2.9.0", "2.27.5", "cu128")]

SITE_TZS = [("UTC", 0), ("CDT", -5), ("PDT", -7), ("EDT", -4), ("CEST", 2), ("CST", 8),
            ("JST", 9), ("MDT", -6)]

BUSIDS = {"h100": ["18000", "2a000", "3a000", "5d000", "9a000", "ab000", "ba000", "db000"],
          "a100": ["7000", "f000", "47000", "4e000", "87000", "90000", "b7000", "bd000"],
          "a100x4": ["7000", "46000", "85000", "c7000"],
          "v100x6": ["4000", "5000", "6000", "35000", "36000", "37000"],
          "h100x4": ["1b000", "43000", "52000", "c3000"]}
GPU_MEM = {"h100": 79.11, "a100": 79.15, "a100x4": 39.39, "v100x6": 15.77, "h100x4": 93.0}


# ----------------------------------------------------------------------------- utils
def hexs(rng, n):
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


def rnd5(rng, n=5):
    return "".join(rng.choice("bcdfghjklmnpqrstvwxz2456789") for _ in range(n))


def elapsed(sec):
    sec = max(0, int(sec))
    d, rem = divmod(sec, 86400)
    h, rem = divmod(rem, 3600)
    m, s = divmod(rem, 60)
    if d:
        return f"{d}-{h:02d}:{m:02d}:{s:02d}"
    return f"{h:02d}:{m:02d}:{s:02d}"


def hostlist(names):
    """Slurm-style compression: gpu-a001,gpu-a002,gpu-a005 -> gpu-a[001-002,005]."""
    groups = []
    idx = {}
    for n in names:
        m = re.match(r"^(.*?)(\d+)$", n)
        if not m:
            groups.append((n, None, []))
            continue
        pre, num = m.group(1), m.group(2)
        key = (pre, len(num))
        if key not in idx:
            idx[key] = len(groups)
            groups.append((pre, len(num), []))
        groups[idx[key]][2].append(int(num))
    parts = []
    for pre, w, nums in groups:
        if w is None:
            parts.append(pre)
            continue
        nums = sorted(nums)
        if len(nums) == 1:
            parts.append(f"{pre}{nums[0]:0{w}d}")
            continue
        rngs = []
        s = p = nums[0]
        for x in nums[1:]:
            if x == p + 1:
                p = x
                continue
            rngs.append((s, p))
            s = p = x
        rngs.append((s, p))
        inner = ",".join(f"{a:0{w}d}" if a == b else f"{a:0{w}d}-{b:0{w}d}" for a, b in rngs)
        parts.append(f"{pre}[{inner}]")
    return ",".join(parts)


def ranges(nums):
    nums = sorted(nums)
    if not nums:
        return ""
    out = []
    s = p = nums[0]
    for x in nums[1:]:
        if x == p + 1:
            p = x
            continue
        out.append(str(s) if s == p else f"{s}-{p}")
        s = p = x
    out.append(str(s) if s == p else f"{s}-{p}")
    return ",".join(out)


def table(rows, pad=3):
    """kubectl-like tabwriter table (left aligned, 3 spaces padding)."""
    w = [max(len(str(r[i])) for r in rows) for i in range(len(rows[0]))]
    out = []
    for r in rows:
        cells = [str(c).ljust(w[i] + pad) if i < len(r) - 1 else str(c) for i, c in enumerate(r)]
        out.append("".join(cells).rstrip())
    return "\n".join(out)


def k8s_age(sec):
    sec = int(sec)
    if sec < 120:
        return f"{sec}s"
    if sec < 600:
        m, s = divmod(sec, 60)
        return f"{m}m{s}s" if s else f"{m}m"
    if sec < 10800:
        return f"{sec // 60}m"
    if sec < 86400 * 2:
        h, rem = divmod(sec, 3600)
        m = rem // 60
        return f"{h}h{m}m" if h < 8 and m else f"{h}h"
    return f"{sec // 86400}d"


def rfc1123(t):
    return t.strftime("%a, %d %b %Y %H:%M:%S +0000")


def zulu(t):
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def lsf_wrap(text, width=79, indent=21):
    """bjobs -l style hard wrapping (mid-word, continuation indented)."""
    out = []
    first = True
    while text:
        lim = width if first else width - indent
        chunk, text = text[:lim], text[lim:]
        out.append(chunk if first else " " * indent + chunk)
        first = False
    return "\n".join(out)


class Out:
    """What happened to one rank's process at the end of the run."""
    __slots__ = ("kind", "t", "blocks", "code", "sig")

    def __init__(self, kind, t, blocks=None, code=0, sig=0):
        self.kind = kind        # exit | sig | term | kill | alive | ok | lost
        self.t = t
        self.blocks = blocks or []   # list of (t, [lines])
        self.code = code
        self.sig = sig


SIGNAMES = {6: "SIGABRT", 7: "SIGBUS", 9: "SIGKILL", 11: "SIGSEGV", 15: "SIGTERM", 4: "SIGILL"}
SIGDESC = {6: "Aborted", 7: "Bus error", 9: "Killed", 11: "Segmentation fault", 15: "Terminated",
           4: "Illegal instruction"}


# ----------------------------------------------------------------------------- torch text
class TT:
    """Version-dependent torch / NCCL message text."""

    def __init__(self, rng, ver, nccl, cu, site, py):
        self.rng = rng
        self.ver = ver
        self.minor = int(ver.split(".")[1])
        self.nccl = nccl
        self.cu = cu
        self.site = site        # .../site-packages
        self.py = py            # python binary
        m = self.minor
        self.L_wd = {0: 475, 1: 475, 2: 523, 3: 565, 4: 607, 5: 616, 6: 632, 7: 632, 8: 658, 9: 672}[m]
        self.L_exc = {0: 916, 1: 1182, 2: 1182, 3: 1418, 4: 1664, 5: 1785, 6: 1785, 7: 1826, 8: 1869, 9: 1902}[m]
        self.L_term = {0: 489, 1: 489, 2: 537, 3: 577, 4: 621, 5: 630, 6: 646, 7: 646, 8: 672, 9: 686}[m]
        self.L_pgwd = {0: 916, 1: 916, 2: 1182, 3: 1316, 4: 1515, 5: 1601, 6: 1601, 7: 1625, 8: 1660, 9: 1687}[m]
        self.L_err = {0: 1275, 1: 1331, 2: 1691, 3: 1970, 4: 2027, 5: 2395, 6: 2395, 7: 2568, 8: 2601, 9: 2644}[m]
        self.L_send = {0: 719, 1: 719, 2: 726, 3: 762, 4: 897, 5: 897, 6: 897, 7: 906, 8: 906, 9: 911}[m]
        self.L_fail = {0: 734, 1: 734, 2: 745, 3: 826, 4: 869, 5: 869, 6: 869, 7: 874, 8: 874, 9: 880}[m]
        self.L_runw = {0: 757, 1: 757, 2: 757, 3: 757, 4: 793, 5: 793, 6: 793, 7: 798, 8: 798, 9: 801}[m]
        self.L_agent = {0: 704, 1: 704, 2: 722, 3: 722, 4: 737, 5: 737, 6: 737, 7: 737, 8: 741, 9: 741}[m]

    # c10 log header
    def cpp(self, lvl, t, src, msg):
        if self.minor >= 4:
            ns = self.rng.randrange(10 ** 9)
            return f"[{lvl}{t.month}{t.day:02d} {t:%H:%M:%S}.{ns:09d} {src}] {msg}"
        return f"[{lvl} {src}] {msg}"

    def pg(self, r):
        if self.minor >= 5:
            return f"[PG ID 0 PG GUID 0(default_pg) Rank {r}]"
        if self.minor == 4:
            return f"[PG 0 Rank {r}]"
        return f"[Rank {r}]"

    def _addr(self):
        return "0x7f" + hexs(self.rng, 10)

    def frames(self, kind):
        lib = f"{self.site}/torch/lib"
        c10 = f"{lib}/libc10.so"
        tc = f"{lib}/libtorch_cuda.so"
        fr = []
        if kind == "timeout":
            syms = [("c10::Error::Error(c10::SourceLocation, std::string) + 0x96", c10),
                    ("c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >) + 0x1d2", tc),
                    ("c10d::ProcessGroupNCCL::watchdogHandler() + 0x233", tc),
                    ("c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d", tc)]
        elif kind == "nccl":
            syms = [("c10::Error::Error(c10::SourceLocation, std::string) + 0x96", c10),
                    ("c10d::NCCLComm::checkForNcclError() + 0x19f", tc),
                    ("c10d::ProcessGroupNCCL::WorkNCCL::checkAndSetException() + 0x71", tc),
                    ("c10d::ProcessGroupNCCL::watchdogHandler() + 0x210", tc),
                    ("c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d", tc)]
        else:
            syms = [("c10::Error::Error(c10::SourceLocation, std::string) + 0x96", c10),
                    ("c10::detail::torchCheckFail(char const*, char const*, unsigned int, std::string const&) + 0x64", c10),
                    ("c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, int, bool) + 0x118", f"{lib}/libc10_cuda.so"),
                    ("c10d::ProcessGroupNCCL::WorkNCCL::finishedGPUExecutionInternal() const + 0x56", tc),
                    ("c10d::ProcessGroupNCCL::WorkNCCL::isCompleted() + 0x58", tc),
                    ("c10d::ProcessGroupNCCL::watchdogHandler() + 0x1f8", tc),
                    ("c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d", tc)]
        syms = syms + [("<unknown function> + 0xdc253", "/lib/x86_64-linux-gnu/libstdc++.so.6"),
                       ("<unknown function> + 0x94ac3", "/lib/x86_64-linux-gnu/libc.so.6"),
                       ("<unknown function> + 0x126850", "/lib/x86_64-linux-gnu/libc.so.6")]
        for i, (s, so) in enumerate(syms):
            fr.append(f"frame #{i}: {s} ({self._addr()} in {so})")
        return fr

    def workstr(self, seq, op, ni, no, to):
        if self.minor == 0:
            return f"WorkNCCL(SeqNum={seq}, OpType={op}, Timeout(ms)={to})"
        return f"WorkNCCL(SeqNum={seq}, OpType={op}, NumelIn={ni}, NumelOut={no}, Timeout(ms)={to})"

    def watchdog_timeout(self, r, t, seq, op, ni, no, to, ran, le, lc, full=True):
        w = self.workstr(seq, op, ni, no, to)
        caught = f"[Rank {r}] Watchdog caught collective operation timeout: {w} ran for {ran} milliseconds before timing out."
        L = [self.cpp("E", t, f"ProcessGroupNCCL.cpp:{self.L_wd}", caught)]
        if self.minor >= 4:
            L.append(self.cpp("E", t, f"ProcessGroupNCCL.cpp:{self.L_exc}",
                              f"{self.pg(r)} Exception (either an error or timeout) detected by watchdog at work: {seq}, last enqueued NCCL work: {le}, last completed NCCL work: {lc}."))
        elif self.minor >= 2:
            L.append(self.cpp("E", t, f"ProcessGroupNCCL.cpp:{self.L_exc}",
                              f"[Rank {r}] Timeout at NCCL work: {seq}, last enqueued NCCL work: {le}, last completed NCCL work: {lc}."))
        if not full:
            return L
        pre = f"[Rank {r}] " if self.minor >= 4 else ""
        L.append(self.cpp("E", t, f"ProcessGroupNCCL.cpp:{self.L_term}",
                          f"{pre}Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data."))
        L.append(self.cpp("E", t, f"ProcessGroupNCCL.cpp:{self.L_term + 6}",
                          f"{pre}To avoid data inconsistency, we are taking the entire process down."))
        wdname = "Process group watchdog thread" if self.minor >= 4 else "NCCL watchdog thread"
        what = f"{self.pg(r) if self.minor >= 4 else '[Rank %d]' % r} {wdname} terminated with exception: {caught}"
        L.append(self.cpp("E", t, f"ProcessGroupNCCL.cpp:{self.L_pgwd}", what))
        if self.minor <= 1:
            L.append("terminate called after throwing an instance of 'std::runtime_error'" if self.minor == 0
                     else "terminate called after throwing an instance of 'c10::DistBackendError'")
            L.append(f"  what():  {what}")
            return L
        L.append(f"Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:{self.L_wd} (most recent call first):")
        L += self.frames("timeout")
        L.append("")
        L.append("terminate called after throwing an instance of 'c10::DistBackendError'")
        L.append(f"  what():  {what}")
        L.append(f"Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:{self.L_wd} (most recent call first):")
        L += self.frames("timeout")
        L.append("")
        L.append(f"Exception raised from ncclCommWatchdog at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:{self.L_pgwd + 4} (most recent call first):")
        L += self.frames("timeout")[:3] + self.frames("timeout")[-3:]
        L.append("")
        return L

    def watchdog_error(self, r, t, msg_lines, kind, seq=None, le=None, lc=None):
        """Async error surfaced in the watchdog thread -> abort (SIGABRT)."""
        L = []
        if seq is not None and self.minor >= 4:
            L.append(self.cpp("E", t, f"ProcessGroupNCCL.cpp:{self.L_exc}",
                              f"{self.pg(r)} Exception (either an error or timeout) detected by watchdog at work: {seq}, last enqueued NCCL work: {le}, last completed NCCL work: {lc}."))
        wdname = "Process group watchdog thread" if self.minor >= 4 else "NCCL watchdog thread"
        head = f"{self.pg(r) if self.minor >= 4 else '[Rank %d]' % r} {wdname} terminated with exception: {msg_lines[0]}"
        L.append(self.cpp("E", t, f"ProcessGroupNCCL.cpp:{self.L_pgwd}", head))
        L += msg_lines[1:]
        if kind == "cuda":
            L.append("Exception raised from c10_cuda_check_implementation at ../c10/cuda/CUDAException.cpp:43 (most recent call first):")
        else:
            L.append(f"Exception raised from checkForNCCLErrorsInternal at ../torch/csrc/distributed/c10d/NCCLUtils.{'cpp' if self.minor >= 3 else 'hpp'}:{self.rng.choice([272, 304, 318])} (most recent call first):")
        L += self.frames(kind)
        L.append("")
        exc = "c10::DistBackendError" if self.minor >= 1 else "c10::Error"
        L.append(f"terminate called after throwing an instance of '{exc}'")
        L.append(f"  what():  {head}")
        L += msg_lines[1:]
        L.append("")
        return L

    def cuda_msg(self, what):
        L = [f"CUDA error: {what}",
             "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
             "For debugging consider passing CUDA_LAUNCH_BLOCKING=1"]
        if self.minor >= 1:
            L[-1] = L[-1] + ("." if self.minor >= 3 else "")
            L.append("Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.")
        return L

    def nccl_remote_msg(self, last_error):
        return [f"NCCL error: remote process exited or there was a network error, NCCL version {self.nccl}",
                "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.",
                "Last error:", last_error]

    def nccl_cuda_msg(self, last_error):
        return [f"NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:{self.L_err}, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version {self.nccl}",
                "ncclUnhandledCudaError: Call to CUDA function failed.",
                "Last error:", last_error]

    def oom_msg(self, gpu, tot, alloc_req):
        free = round(self.rng.uniform(0.2, 1.6), 2)
        inuse = round(tot - free - self.rng.uniform(0.0, 0.4), 2)
        by_pt = round(inuse - self.rng.uniform(1.0, 4.5), 2)
        resv = round(self.rng.uniform(0.3, 3.2), 2)
        exc = "torch.OutOfMemoryError" if self.minor >= 5 else "torch.cuda.OutOfMemoryError"
        if self.minor <= 1:
            return (f"{exc}: CUDA out of memory. Tried to allocate {alloc_req} (GPU {gpu}; {tot:.2f} GiB total capacity; "
                    f"{by_pt:.2f} GiB already allocated; {free:.2f} GiB free; {by_pt + resv:.2f} GiB reserved in total by PyTorch) "
                    "If reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation.  "
                    "See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF")
        return (f"{exc}: CUDA out of memory. Tried to allocate {alloc_req}. GPU {gpu} has a total capacity of {tot:.2f} GiB "
                f"of which {free:.2f} GiB is free. Including non-PyTorch memory, this process has {inuse:.2f} GiB memory in use. "
                f"Of the allocated memory {by_pt:.2f} GiB is allocated by PyTorch, and {resv:.2f} GiB is reserved by PyTorch but "
                "unallocated. If reserved but unallocated memory is large try setting "
                "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory "
                "Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)")

    # python-side torchrun/elastic logging
    def elastic(self, lvl, t, mod, line, msg, pid):
        L = {"W": "WARNING", "E": "ERROR", "I": "INFO"}[lvl]
        if self.minor >= 4:
            return f"{lvl}{t:%m%d %H:%M:%S}.{t.microsecond // 1000:03d}000 {pid} {mod.replace('.', '/')}.py:{line}] {msg}"
        if self.minor >= 2:
            return f"[{t:%Y-%m-%d %H:%M:%S},{t.microsecond // 1000:03d}] {mod}: [{L}] {msg}"
        return f"{L}:{mod}:{msg}"


# ----------------------------------------------------------------------------- the run
class Run:
    def __init__(self, seed, idx, layout, cause):
        self.rng = random.Random(f"blind21:{seed}:{idx}:{layout}:{cause}")
        self.idx = idx
        self.layout = layout
        self.cause = cause
        self.healthy = cause is None
        self.files = {}
        self.notes = []
        self.rank_found = []
        self.node_found = []
        self.aliases = []
        self.c = None
        self.cn = None
        self.c_out = None
        self.c_dies = False
        self.coll = "watchdog"
        self.lost_node = None
        self.kern = {}
        self.drain = {}
        self.extras = {}
        self.end = "failed"
        self.spot_node = None
        self.hide_c = False
        self.c_op = None
        self.pyspy = None
        self.variant = ""
        self.setup()
        if self.healthy:
            self.story_healthy()
        else:
            getattr(self, "story_" + cause)()
        self.resolve()
        getattr(self, "render_" + layout)()

    # ------------------------------------------------------------------ setup
    def setup(self):
        rng = self.rng
        L = self.layout
        c = self.cause
        tv = rng.choice(TORCH_VERSIONS)
        k8s = L.startswith("k8s")
        if k8s:
            py = rng.choice(["3.10", "3.10", "3.11", "3.12"])
            site = rng.choice([f"/usr/local/lib/python{py}/dist-packages", f"/opt/conda/lib/python{py}/site-packages",
                               f"/usr/local/lib/python{py}/site-packages"])
            pybin = "/usr/bin/python3" if "dist-packages" in site else ("/opt/conda/bin/python" if "conda" in site else "/usr/local/bin/python")
        else:
            py = rng.choice(["3.10", "3.11", "3.11", "3.12"])
            user = rng.choice(["jdoe", "akumar", "mchen", "sgarcia", "tnguyen", "lrossi", "hsato", "ekowalski"])
            self.user = user
            site = rng.choice([f"/home/{user}/miniconda3/envs/llm/lib/python{py}/site-packages",
                               f"/home/{user}/venvs/train/lib/python{py}/site-packages",
                               f"/opt/apps/pytorch/{tv[0]}/lib/python{py}/site-packages"])
            pybin = site.split("/lib/python")[0] + "/bin/python"
        if not hasattr(self, "user"):
            self.user = rng.choice(["jdoe", "akumar", "mchen", "sgarcia", "tnguyen", "lrossi"])
        self.tt = TT(rng, tv[0], tv[1], tv[2], site, pybin)
        self.tzname, self.tzoff = rng.choice(SITE_TZS) if not k8s else ("UTC", 0)
        # trainer logs: container -> UTC, bare metal -> site tz (sometimes UTC inside enroot/apptainer)
        self.log_utc = k8s or rng.random() < 0.3
        self.skew = {}
        # ---- topology
        if L == "slurm_srun":
            G = rng.choice([4, 8, 8, 8])
            N = rng.choice([1, 2, 2, 4, 4, 8, 16, 32, 64])
        elif L == "slurm_torchrun":
            G = rng.choice([8, 8, 4])
            N = rng.choice([2, 2, 4, 4, 8, 16, 32, 64])
        elif L == "k8s_pytorchjob":
            G = 1
            N = rng.choice([2, 4, 4, 8, 8, 16, 32, 64])
        elif L == "k8s_jobset":
            G = 8
            N = rng.choice([2, 2, 4, 4, 8, 16, 32, 64])
        elif L == "pbs_mpiexec":
            G = 4
            N = rng.choice([1, 2, 4, 8, 16, 32, 64, 128])
        else:
            G = rng.choice([6, 6, 4, 8])
            N = rng.choice([1, 2, 4, 8, 16, 32, 64])
        if c in ("network",) and N < 2:
            N = 2
        if G == 1 and c == "network" and N < 4:
            N = 4
        self.G, self.N = G, N
        self.jobname = rng.choice(["pretrain-7b", "llama-ft", "gpt-neox-20b", "vit-l-in22k", "moe-8x1b",
                                   "sft-13b", "dit-xl", "bert-large-mlm", "t5-xxl-pt", "mistral-ft"])
        self.W = W = G * N
        # gpu type
        if G == 8:
            self.gpu = rng.choice(["h100", "a100", "h100"])
        elif G == 6:
            self.gpu = "v100x6"
        elif G == 4:
            self.gpu = rng.choice(["a100x4", "h100x4"])
        else:
            self.gpu = rng.choice(["h100", "a100"])
        # ---- hosts
        if L == "k8s_pytorchjob":
            ppn = rng.choice([1, 2, 4, 8])
            while ppn > 1 and W // ppn < (2 if c == "network" else 1):
                ppn //= 2
            self.ppn = ppn
            nk = (W + ppn - 1) // ppn
            self.hosts = self.k8s_node_names(nk)
            order = list(range(nk))
            rng.shuffle(order)
            self.rank_node = [order[r // ppn] for r in range(W)]
            self.local = [0] * W
            gpus = {}
            self.gpu_of = []
            for r in range(W):
                n = self.rank_node[r]
                used = gpus.setdefault(n, [])
                g = rng.choice([x for x in range(8) if x not in used])
                used.append(g)
                self.gpu_of.append(g)
        else:
            if L.startswith("slurm"):
                self.hosts = self.slurm_names(N)
            elif L == "k8s_jobset":
                self.hosts = self.k8s_node_names(N)
            elif L == "pbs_mpiexec":
                self.hosts = self.pbs_names(N)
            else:
                self.hosts = self.lsf_names(N)
            self.rank_node = [r // G for r in range(W)]
            self.local = [r % G for r in range(W)]
            self.gpu_of = list(self.local)
        self.NN = len(self.hosts)
        base = rng.choice(["10.33", "10.140", "172.20", "10.8", "10.224"])
        self.ips = [f"{base}.{(i // 250) + rng.choice([1, 2, 3])}.{(i % 250) + 2}" for i in range(self.NN)]
        for i, h in enumerate(self.hosts):
            m = re.match(r"^ip-(\d+)-(\d+)-(\d+)-(\d+)\.", h)
            if m:
                self.ips[i] = ".".join(m.groups())
        for i in range(self.NN):
            self.skew[i] = rng.choice([0, 0, 0, 1, -1, 2, -3, 7, -12, 31])
        self.pids = [0] * W
        base = {}
        for r in range(W):
            n = self.rank_node[r]
            if n not in base or L == "k8s_pytorchjob":
                base[n] = rng.randrange(9000, 480000) if not k8s else rng.randrange(20, 400)
            else:
                base[n] += rng.randrange(1, 40)
            self.pids[r] = base[n]
        self.domain = rng.choice(["", "", ".cluster.internal", ".hpc.local", ".ib.cluster"]) if not k8s else ""
        self.fq_in_logs = bool(self.domain) and rng.random() < 0.6
        self.srun_kill = rng.random() < 0.5
        self.kjob = self.jobname if k8s else ""
        self.ns = rng.choice(["ml-train", "research", "llm", "default", "team-vision"])
        if L == "k8s_pytorchjob":
            self.podnames = [f"{self.jobname}-master-0"] + [f"{self.jobname}-worker-{i}" for i in range(W - 1)]
        elif L == "k8s_jobset":
            self.rj = rng.choice(["workers", "trainer", "worker"])
            self.podhosts = [f"{self.jobname}-{self.rj}-0-{i}" for i in range(N)]
            self.podnames = [f"{h}-{rnd5(rng)}" for h in self.podhosts]
        # ---- timing
        day = datetime(2024, 2, 1, tzinfo=timezone.utc) + timedelta(days=rng.randrange(0, 600))
        self.t0 = day + timedelta(seconds=rng.randrange(0, 86400))
        self.limit_h = rng.choice([4, 6, 8, 12, 24, 24, 48])
        self.t_limit = self.t0 + timedelta(hours=self.limit_h)
        self.t_train0 = self.t0 + timedelta(seconds=rng.randrange(70, 420))
        frac = rng.uniform(0.12, 0.7)
        self.t_fail = self.t_train0 + timedelta(seconds=int(frac * (self.limit_h * 3600 - 1800)))
        self.step_s = round(rng.uniform(0.45, 6.5), 3)
        self.start_step = rng.choice([0, 0, 0, rng.randrange(1000, 90000)])
        self.total_steps = rng.choice([20000, 50000, 100000, 250000, 500000])
        self.colls_per_step = rng.choice([3, 7, 12, 24, 40])
        self.timeout_ms = rng.choice([600000, 600000, 1800000, 1800000, 900000])
        self.style = rng.choice(["megatron", "hf", "custom", "lightning"])
        self.printer = self.W - 1 if self.style == "megatron" else 0
        self.nccl_debug = rng.random() < 0.55
        self.transport = "ib" if (not k8s or rng.random() < 0.55) else "socket"
        self.workdir = {"slurm_srun": f"/home/{self.user}/llm", "slurm_torchrun": f"/scratch/{self.user}/pretrain",
                        "pbs_mpiexec": f"/lus/eagle/projects/LLMScale/{self.user}/train",
                        "lsf_mpirun": f"/gpfs/alpine/proj-shared/{self.user}/llm",
                        "k8s_pytorchjob": "/workspace", "k8s_jobset": "/app"}[L]
        self.script = rng.choice(["train.py", "pretrain.py", "finetune.py", "main.py"])
        self.seq_now = lambda t: int(self.step_at(t) * self.colls_per_step) + rng.randrange(0, self.colls_per_step)
        self.op = rng.choice(["ALLREDUCE", "ALLREDUCE", "_REDUCE_SCATTER_BASE", "_ALLGATHER_BASE", "ALLREDUCE"])
        self.numel = rng.choice([1, 5056, 2106881, 9801523, 25165824, 33554432, 466119168, 544997376])

    # ------------------------------------------------------------------ naming
    def slurm_names(self, N):
        rng = self.rng
        sch = rng.choice(["gpu-a", "hgx", "nid", "dgx", "node", "gn"])
        x = rng.randrange(1, 160)
        nums = []
        while len(nums) < N:
            if rng.random() < 0.12:
                x += rng.randrange(1, 5)
            nums.append(x)
            x += 1
        if sch == "gpu-a":
            letter = rng.choice("abcdefgh")
            return [f"gpu-{letter}{n:03d}" for n in nums]
        if sch == "hgx":
            return [f"hgx-r{(n // 16) + 1:02d}-{(n % 16) + 1:02d}" for n in nums]
        if sch == "nid":
            return [f"nid{n + 1000:06d}" for n in nums]
        if sch == "dgx":
            return [f"dgx-h100-{n:03d}" if self.gpu == "h100" else f"dgx{n:03d}" for n in nums]
        if sch == "node":
            return [f"node{n + 100:04d}" for n in nums]
        return [f"gn{n:03d}" for n in nums]

    def k8s_node_names(self, n):
        rng = self.rng
        sch = rng.choice(["gke", "eks", "aks", "onprem"])
        self.k8s_flavor = sch
        out = []
        if sch == "gke":
            cl = rng.choice(["a3-train", "ml-prod", "llm-us-c1"])
            pool = rng.choice(["a3-highgpu-8g", "gpu-pool-1", "h100-np"])
            grp = hexs(rng, 8)
            for _ in range(n):
                out.append(f"gke-{cl}-{pool}-{grp}-{rnd5(rng, 4)}")
        elif sch == "eks":
            reg = rng.choice(["us-west-2", "us-east-1", "eu-west-1"])
            for _ in range(n):
                out.append(f"ip-10-{rng.randrange(0, 8)}-{rng.randrange(0, 255)}-{rng.randrange(2, 255)}.{reg}.compute.internal")
        elif sch == "aks":
            num = rng.randrange(10000000, 99999999)
            for _ in range(n):
                out.append(f"aks-ndh100-{num}-vmss{rnd5(rng, 6)}")
        else:
            x = rng.randrange(1, 60)
            for i in range(n):
                out.append(f"gpu-node-{x + i:02d}")
        # dedupe deterministically
        seen = []
        for o in out:
            while o in seen:
                o = o + "x"
            seen.append(o)
        return seen

    def pbs_names(self, N):
        rng = self.rng
        if rng.random() < 0.5:
            out = []
            rack, s = rng.randrange(3000, 3220), rng.randrange(0, 8)
            for i in range(N):
                out.append(f"x{rack}c0s{s}b{i % 2}n0")
                if i % 2 == 1:
                    s += 1
                    if s > 31:
                        s, rack = 0, rack + 1
            self.pbs_fqdn = ".hsn.cm.polaris.example.org" if rng.random() < 0.5 else ""
            return out
        r, i0, n0 = rng.randrange(1, 9), rng.randrange(0, 4), rng.randrange(0, 10)
        out = []
        for k in range(N):
            n = n0 + k
            out.append(f"r{r}i{i0 + n // 18}n{n % 18}")
        self.pbs_fqdn = ""
        return out

    def lsf_names(self, N):
        rng = self.rng
        if self.gpu == "v100x6":
            rack = rng.choice("abcdefgh") + str(rng.randrange(10, 36))
            x = rng.randrange(1, 10)
            return [f"{rack[0]}{rack[1:]}n{(x + i) % 18 + 1:02d}" if i < 18 - x else f"{rack[0]}{int(rack[1:]) + 1}n{(x + i) % 18 + 1:02d}" for i in range(N)]
        x = rng.randrange(1, 200)
        return [f"lsf-gpu{x + i:03d}" for i in range(N)]

    # ------------------------------------------------------------------ helpers
    def host(self, n, fq=False):
        h = self.hosts[n]
        if fq and self.domain:
            return h + self.domain
        return h

    def pod(self, r):
        return None

    def loghost(self, r):
        """Hostname as the trainer process sees it."""
        n = self.rank_node[r]
        if self.layout == "k8s_pytorchjob":
            return self.podname_r(r)
        if self.layout == "k8s_jobset":
            return self.podhost(n)
        return self.hosts[n]

    def lt(self, t):
        """trainer log time (naive)"""
        if self.log_utc:
            return t.replace(tzinfo=None)
        return (t + timedelta(hours=self.tzoff)).replace(tzinfo=None)

    def st(self, t):
        """scheduler local time (naive)"""
        return (t + timedelta(hours=self.tzoff)).replace(tzinfo=None)

    def kt(self, n, t):
        """node-local kernel time with clock skew"""
        return self.st(t) + timedelta(seconds=self.skew.get(n, 0))

    def step_at(self, t):
        ts = getattr(self, "t_slow", None)
        if ts is None or t <= ts:
            return self.start_step + max(0, int((t - self.t_train0).total_seconds() / self.step_s))
        s0 = (ts - self.t_train0).total_seconds() / self.step_s
        return self.start_step + int(s0 + (t - ts).total_seconds() / (self.step_s * self.slow_f))

    def t_of_step(self, s):
        ts = getattr(self, "t_slow", None)
        d = s - self.start_step
        if ts is None:
            return self.t_train0 + timedelta(seconds=d * self.step_s)
        s0 = (ts - self.t_train0).total_seconds() / self.step_s
        if d <= s0:
            return self.t_train0 + timedelta(seconds=d * self.step_s)
        return ts + timedelta(seconds=(d - s0) * self.step_s * self.slow_f)

    def cur_step_s(self, t):
        ts = getattr(self, "t_slow", None)
        if ts is not None and t > ts:
            return self.step_s * self.slow_f
        return self.step_s

    def busid(self, r):
        b = BUSIDS[self.gpu]
        return b[self.gpu_of[r] % len(b)]

    def pci(self, r):
        b = self.busid(r)
        return f"0000:{int(b, 16) >> 12:02x}:00"

    def kpid(self, r):
        """pid as the host kernel sees it (differs from the in-container pid on k8s)"""
        if self.layout.startswith("k8s"):
            return 100000 + (self.pids[r] * 7919 + self.idx * 104729) % 3900000
        return self.pids[r]

    def pick_culprit(self, avoid0=0.85):
        rng = self.rng
        if self.W > 1 and rng.random() < avoid0:
            c = rng.randrange(1, self.W)
        else:
            c = rng.randrange(self.W)
        self.c = c
        self.cn = self.rank_node[c]
        return c

    def tsec(self, t, a, b):
        return t + timedelta(seconds=self.rng.uniform(a, b))

    def addk(self, n, t, line):
        self.kern.setdefault(n, []).append((t, line))

    # ------------------------------------------------------------------ python tracebacks
    def user_frames(self, where):
        rng = self.rng
        wd = self.workdir
        sc = self.script
        f = [f'  File "{wd}/{sc}", line {rng.randrange(380, 720)}, in <module>', "    main()",
             f'  File "{wd}/{sc}", line {rng.randrange(300, 380)}, in main', "    trainer.fit()" if self.style == "lightning" else "    train(cfg)"]
        if where == "backward":
            f += [f'  File "{wd}/{sc}", line {rng.randrange(150, 300)}, in train', "    loss.backward()",
                  f'  File "{self.tt.site}/torch/_tensor.py", line {rng.choice([492, 521, 522, 581, 626, 648])}, in backward',
                  "    torch.autograd.backward(",
                  f'  File "{self.tt.site}/torch/autograd/__init__.py", line {rng.choice([251, 266, 289, 347, 353])}, in backward']
            if self.tt.minor >= 4:
                f += ["    _engine_run_backward(",
                      f'  File "{self.tt.site}/torch/autograd/graph.py", line {rng.choice([768, 769, 823, 825, 829])}, in _engine_run_backward',
                      "    return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass"]
            else:
                f += ["    Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass"]
        elif where == "forward":
            f += [f'  File "{wd}/{sc}", line {rng.randrange(150, 300)}, in train', "    out = model(**batch)",
                  f'  File "{self.tt.site}/torch/nn/modules/module.py", line {rng.choice([1518, 1532, 1736, 1739, 1751])}, in _wrapped_call_impl',
                  "    return self._call_impl(*args, **kwargs)",
                  f'  File "{self.tt.site}/torch/nn/modules/module.py", line {rng.choice([1527, 1541, 1747, 1750, 1762])}, in _call_impl',
                  "    return forward_call(*args, **kwargs)",
                  f'  File "{wd}/model/transformer.py", line {rng.randrange(90, 400)}, in forward',
                  "    attn = self.attn(self.ln_1(x), mask)",
                  f'  File "{wd}/model/attention.py", line {rng.randrange(40, 200)}, in forward',
                  "    y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=self.dropout)"]
        elif where == "data":
            f += [f'  File "{wd}/{sc}", line {rng.randrange(150, 300)}, in train', "    batch = next(data_iter)",
                  f'  File "{self.tt.site}/torch/utils/data/dataloader.py", line {rng.choice([630, 631, 701, 708])}, in __next__',
                  "    data = self._next_data()",
                  f'  File "{self.tt.site}/torch/utils/data/dataloader.py", line {rng.choice([1329, 1344, 1448, 1465])}, in _next_data',
                  "    idx, data = self._get_data()"]
        elif where == "ckpt":
            f += [f'  File "{wd}/{sc}", line {rng.randrange(150, 300)}, in train', "    save_checkpoint(model, optimizer, step, cfg.ckpt_dir)",
                  f'  File "{wd}/utils/checkpoint.py", line {rng.randrange(20, 120)}, in save_checkpoint', "    torch.save(state, path)",
                  f'  File "{self.tt.site}/torch/serialization.py", line {rng.choice([627, 628, 849, 850, 943])}, in save',
                  "    with _open_zipfile_writer(f) as opened_zipfile:"]
        elif where == "step":
            f += [f'  File "{wd}/{sc}", line {rng.randrange(150, 300)}, in train', "    optimizer.step()",
                  f'  File "{self.tt.site}/torch/optim/optimizer.py", line {rng.choice([373, 385, 484, 487, 493])}, in wrapper',
                  "    out = func(*args, **kwargs)"]
        else:
            f += [f'  File "{wd}/{sc}", line {rng.randrange(150, 300)}, in train', "    metrics = evaluate(model, val_loader)",
                  f'  File "{wd}/eval.py", line {rng.randrange(20, 120)}, in evaluate', "    dist.all_reduce(stats, op=dist.ReduceOp.SUM)"]
        return f

    def traceback(self, where, exc_lines):
        return ["Traceback (most recent call last):"] + self.user_frames(where) + exc_lines

    # ------------------------------------------------------------------ per-rank streams
    def fmt_step(self, t, step):
        rng = self.rng
        lt = self.lt(t)
        loss = max(1.2, 3.9 - 1.9 * (step / max(1, self.total_steps)) ** 0.3 + rng.uniform(-0.06, 0.06))
        lr = 3e-4 * min(1.0, (step + 1) / 2000.0)
        st = self.cur_step_s(t) * rng.uniform(0.97, 1.04)
        if self.style == "megatron":
            return (f" [{lt:%Y-%m-%d %H:%M:%S}] iteration {step:>8d}/{self.total_steps:>8d} | consumed samples: {step * 1024:>12d} | "
                    f"elapsed time per iteration (ms): {st * 1000:.1f} | learning rate: {lr:.3E} | global batch size: {1024:>5d} | "
                    f"lm loss: {loss:.6E} | loss scale: 1.0 | grad norm: {rng.uniform(0.2, 1.4):.3f} | "
                    "number of skipped iterations:   0 | number of nan iterations:   0 |")
        if self.style == "hf":
            ep = step / 4000.0
            return f"{{'loss': {loss:.4f}, 'grad_norm': {rng.uniform(0.2, 1.6):.6f}, 'learning_rate': {lr:.4e}, 'epoch': {ep:.2f}}}"
        if self.style == "custom":
            return (f"{lt:%Y-%m-%d %H:%M:%S},{lt.microsecond // 1000:03d} INFO [{self.script}:{rng.choice([211, 214, 233])}] "
                    f"step={step} loss={loss:.4f} lr={lr:.3e} step_time={st:.3f}s tok/s/gpu={int(8192 / st * 1.9)} "
                    f"mem_alloc={rng.uniform(40, 70):.1f}GB")
        tot = 4000
        k = step % tot
        pct = int(100 * k / tot)
        bar = "\u2588" * (pct // 10) + " " * (10 - pct // 10)
        el = int(k * self.step_s)
        rem = int((tot - k) * self.step_s)

        def tq(s):
            return f"{s // 3600}:{(s % 3600) // 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60:02d}:{s % 60:02d}"
        return (f"Epoch {step // tot}:  {pct:>2d}%|{bar}| {k}/{tot} [{tq(el)}<{tq(rem)}, "
                f"{1 / self.step_s:.2f}it/s, v_num=3, train_loss={loss:.3f}]")

    def train_lines(self, t_stop, every=None):
        """Regular step lines of the printing rank up to t_stop."""
        out = []
        nsteps = self.step_at(t_stop) - self.start_step
        if every is None:
            every = max(1, int(nsteps / 110))
            for e in (10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000):
                if e >= every:
                    every = e
                    break
        self.log_every = every
        s0 = self.start_step - self.start_step % every + every
        s = s0
        while True:
            t = self.t_of_step(s) + timedelta(milliseconds=self.rng.randrange(0, 900))
            if t > t_stop:
                break
            out.append((t, self.fmt_step(t, s)))
            s += every
        return out

    def nccl_init(self, r, t):
        h = self.loghost(r)
        if self.domain and self.layout.startswith("slurm") and self.fq_in_logs:
            h = h + self.domain
        pid = self.pids[r]
        tid = pid + self.rng.randrange(40, 400)
        d = 0 if self.layout == "k8s_pytorchjob" else self.local[r]
        p = f"{h}:{pid}:{pid} [{d}]"
        q = f"{h}:{pid}:{tid} [{d}]"
        n = self.rank_node[r]
        ip = self.ips[n]
        nranks = self.W
        cid = "0x" + hexs(random.Random(f"{self.idx}-comm"), 16)
        L = []
        if r == 0:
            L.append(f"{p} NCCL INFO Bootstrap : Using {'ib0' if self.transport == 'ib' else 'eth0'}:{ip}<0>")
            L.append(f"{p} NCCL INFO cudaDriverVersion {self.rng.choice([12020, 12040, 12060, 12080])}")
            L.append(f"NCCL version {self.tt.nccl}+cuda{self.tt.cu[2:4]}.{self.tt.cu[4:]}")
        if self.transport == "ib":
            devs = " ".join(f"[{i}]mlx5_{i}:1/IB" for i in range(min(8, max(1, self.G if self.G > 1 else 8))))
            L.append(f"{q} NCCL INFO NET/IB : Using {devs} ; OOB ib0:{ip}<0>")
            L.append(f"{q} NCCL INFO Using network IB")
        else:
            L.append(f"{q} NCCL INFO NET/Socket : Using [0]eth0:{ip}<0>")
            L.append(f"{q} NCCL INFO Using network Socket")
        L.append(f"{q} NCCL INFO comm 0x{hexs(self.rng, 8)} rank {r} nranks {nranks} cudaDev {d} nvmlDev {self.gpu_of[r]} busId {self.busid(r)} commId {cid} - Init START")
        L.append(f"{q} NCCL INFO comm 0x{hexs(self.rng, 8)} rank {r} nRanks {nranks} nNodes {self.N if self.layout != 'k8s_pytorchjob' else self.W} localRanks {self.G} localRank {d} MNNVL 0")
        L.append(f"{q} NCCL INFO Connected all rings")
        L.append(f"{q} NCCL INFO Connected all trees")
        L.append(f"{q} NCCL INFO comm 0x{hexs(self.rng, 8)} rank {r} nranks {nranks} cudaDev {d} nvmlDev {self.gpu_of[r]} busId {self.busid(r)} commId {cid} - Init COMPLETE")
        return [(t, x) for x in L]

    def nccl_prefix(self, r, tid=True):
        h = self.loghost(r)
        if self.domain and self.layout.startswith("slurm") and self.fq_in_logs:
            h = h + self.domain
        pid = self.pids[r]
        d = 0 if self.layout == "k8s_pytorchjob" else self.local[r]
        return f"{h}:{pid}:{pid + 211 if tid else pid} [{d}]"

    def startup(self, r):
        rng = self.rng
        t = self.t0 + timedelta(seconds=rng.uniform(20, 60))
        tt = self.tt
        out = []
        if r == 0 or r == self.printer:
            lt = self.lt(t)
            out.append((t, f"{lt:%Y-%m-%d %H:%M:%S} | INFO | world_size={self.W} nodes={self.N if self.layout != 'k8s_pytorchjob' else self.NN} "
                           f"torch={tt.ver}+{tt.cu} nccl={tt.nccl}"))
            out.append((t, f"{lt:%Y-%m-%d %H:%M:%S} | INFO | model params: {rng.choice(['6.74B', '1.31B', '13.0B', '304M', '20.6B', '7.24B'])}"))
        if tt.minor <= 3 and rng.random() < 0.3:
            out.append((t, f"{tt.site}/torch/_utils.py:831: UserWarning: TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the only storage class. This should only matter to you if you are using storages directly.  To access UntypedStorage directly, use tensor.untyped_storage() instead of tensor.storage()"))
            out.append((t, "  return self.fget.__get__(instance, owner)()"))
        if tt.minor >= 4 and rng.random() < 0.35:
            out.append((t, f"{self.workdir}/{self.script}:{rng.randrange(80, 200)}: FutureWarning: `torch.cuda.amp.GradScaler(args...)` is deprecated. Please use `torch.amp.GradScaler('cuda', args...)` instead."))
            out.append((t, "  scaler = torch.cuda.amp.GradScaler()"))
        if tt.minor >= 4 and rng.random() < 0.3:
            out.append((t, tt.cpp("W", t, f"ProcessGroupNCCL.cpp:{rng.choice([4115, 4161, 4561])}",
                                  f"{tt.pg(r)} using GPU {0 if self.layout == 'k8s_pytorchjob' else self.local[r]} to perform barrier as devices used by this process are currently unknown. This can potentially cause a hang if this rank to GPU mapping is incorrect.Specify device_ids in barrier() to force use of a particular device,or call init_process_group() with a device_id.")))
        if self.nccl_debug and self.show_init(r):
            out += self.nccl_init(r, t + timedelta(seconds=rng.uniform(5, 25)))
        return out

    def show_init(self, r):
        if self.W <= 16:
            return True
        return r in self.init_sample

    def healthy_tail(self, r, t):
        out = []
        if r == self.printer:
            lt = self.lt(t)
            out.append((t, f"{lt:%Y-%m-%d %H:%M:%S} | INFO | Training complete. Saved final checkpoint to {self.workdir}/checkpoints/step_{self.step_at(t)}"))
        if r == self.printer and self.rng.random() < (0.5 if self.healthy else 0.2):
            s = self.tt.site
            out.append((t + timedelta(seconds=2), "\n".join([
                f"Exception ignored in: <function _MultiProcessingDataLoaderIter.__del__ at 0x7f{hexs(self.rng, 10)}>",
                "Traceback (most recent call last):",
                f'  File "{s}/torch/utils/data/dataloader.py", line {self.rng.choice([1477, 1479, 1604, 1618])}, in __del__',
                "    self._shutdown_workers()",
                f'  File "{s}/torch/utils/data/dataloader.py", line {self.rng.choice([1443, 1447, 1568, 1582])}, in _shutdown_workers',
                "    w.join(timeout=_utils.MP_STATUS_CHECK_INTERVAL)",
                '  File "/usr/lib/python3.10/multiprocessing/process.py", line 149, in join',
                "    res = self._popen.wait(timeout)",
                "AssertionError: can only join a child process"])))
        if self.tt.minor >= 4 and self.rng.random() < 0.4:
            out.append((t, self.tt.cpp("W", t, f"ProcessGroupNCCL.cpp:{self.rng.choice([1168, 1250, 1279])}",
                                       "Warning: WARNING: process group has NOT been destroyed before we destruct ProcessGroupNCCL. On normal program exit, the application should call destroy_process_group to ensure that any pending NCCL operations have finished in this process. In rare cases this process can exit before this point and block the progress of another member of the process group. This constraint has always been present,  but this warning has only been added since PyTorch 2.4 (function operator())")))
        return out

    def decoys(self):
        """benign alarming lines: (rank, t, text)"""
        rng = self.rng
        out = []
        t = self.t_train0 + (self.t_stop - self.t_train0) * rng.uniform(0.2, 0.7)
        if rng.random() < 0.5:
            out.append((self.printer, t, "wandb: Network error (ReadTimeout), entering retry loop."))
            out.append((self.printer, t + timedelta(seconds=rng.randrange(20, 200)), "wandb: Network error resolved after 0:01:07.446189, resuming normal operation."))
        if rng.random() < 0.45:
            r = rng.randrange(self.W)
            if self.nccl_debug and self.transport == "ib":
                out.append((r, t - timedelta(seconds=rng.randrange(60, 3000)),
                            f"{self.nccl_prefix(r)} NCCL WARN NET/IB : mlx5_{rng.randrange(0, 8)}:1 Got async event : GID table change"))
        if rng.random() < 0.4:
            t2 = t + timedelta(seconds=rng.randrange(60, 900))
            lt = self.lt(t2)
            out.append((0, t2, f"{lt:%Y-%m-%d %H:%M:%S} | WARNING | checkpoint upload failed (ConnectionResetError: [Errno 104] Connection reset by peer), retrying in 30s [attempt 1/5]"))
            out.append((0, t2 + timedelta(seconds=31 + rng.randrange(0, 30)), f"{self.lt(t2 + timedelta(seconds=45)):%Y-%m-%d %H:%M:%S} | INFO | checkpoint upload succeeded (attempt 2/5)"))
        if rng.random() < 0.35:
            r = rng.randrange(self.W)
            out.append((r, t + timedelta(seconds=rng.randrange(1, 600)),
                        f"{self.workdir}/data/loader.py:{rng.randrange(40, 200)}: UserWarning: skipping corrupt sample idx={rng.randrange(10**6, 10**8)} (OSError: image file is truncated (3 bytes not processed))"))
        if rng.random() < (0.7 if self.healthy else 0.3):
            t3 = self.t_train0 + (self.t_stop - self.t_train0) * rng.uniform(0.1, 0.8)
            lt = self.lt(t3)
            tb = [f"{lt:%Y-%m-%d %H:%M:%S} | ERROR | async checkpoint upload failed, will retry", "Traceback (most recent call last):",
                  f'  File "{self.workdir}/utils/ckpt_upload.py", line {rng.randrange(60, 140)}, in _upload',
                  "    client.upload_file(str(path), bucket, key)"]
            if rng.random() < 0.5:
                tb += [f'  File "{self.tt.site}/boto3/s3/inject.py", line 145, in upload_file', "    return transfer.upload_file(",
                       f'botocore.exceptions.ReadTimeoutError: Read timeout on endpoint URL: "https://s3.us-west-2.amazonaws.com/{self.jobname}-ckpt/step_{self.step_at(t3)}/model_00.safetensors"']
            else:
                tb += [f'  File "{self.tt.site}/google/cloud/storage/blob.py", line 2947, in upload_from_filename', "    self._handle_filename_and_upload(",
                       "requests.exceptions.ConnectionError: ('Connection aborted.', ConnectionResetError(104, 'Connection reset by peer'))"]
            out.append((self.printer, t3, "\n".join(tb)))
            out.append((self.printer, t3 + timedelta(seconds=rng.randrange(20, 90)), f"{self.lt(t3 + timedelta(seconds=60)):%Y-%m-%d %H:%M:%S} | INFO | checkpoint upload succeeded on retry 1"))
        return out

    # ================================================================== stories
    def c_exit(self, t, lines, code=1):
        self.c_out = Out("exit", t, [(t, lines)], code=code)
        self.c_dies = True

    def c_abort(self, t, lines, sig=6):
        self.c_out = Out("sig", t, [(t, lines)] if lines else [], sig=sig)
        self.c_dies = True

    def seq_at_fail(self):
        if not hasattr(self, "_seq"):
            self._seq = self.step_at(self.t_fail) * self.colls_per_step + self.rng.randrange(1, self.colls_per_step + 1)
        return self._seq

    def gpu_uuid(self):
        h = hexs(self.rng, 32)
        return f"GPU-{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"

    def cuda_fail(self, c, t, what, main_thread_p=0.5, where="backward"):
        q = self.seq_at_fail()
        if self.rng.random() < main_thread_p:
            m = self.tt.cuda_msg(what)
            self.c_exit(t, self.traceback(where, ["RuntimeError: " + m[0]] + m[1:]))
        else:
            self.c_abort(t, self.tt.watchdog_error(c, self.lt(t), self.tt.cuda_msg(what), "cuda", q, q + 1, q - 1))

    def story_healthy(self):
        rng = self.rng
        self.end = "completed"
        self.coll = "ok"
        self.t_end = self.t_limit - timedelta(seconds=rng.randrange(600, 5400))
        self.t_fail = self.t_end
        self.notes.append("healthy run that completes; alarming-looking but benign lines planted")
        # benign old Xid on some node of the job, days before
        if rng.random() < 0.5:
            n = rng.randrange(self.NN)
            r = [x for x in range(self.W) if self.rank_node[x] == n][0]
            told = self.t0 - timedelta(days=rng.randrange(2, 20), seconds=rng.randrange(0, 80000))
            self.addk(n, told, f"NVRM: Xid (PCI:{self.pci(r)}): 13, pid={rng.randrange(3000, 90000)}, name=python3, Graphics SM Warp Exception on (GPC 4, TPC 1, SM 0): Out Of Range Address")
            self.addk(n, told, f"NVRM: Xid (PCI:{self.pci(r)}): 43, pid={rng.randrange(3000, 90000)}, name=python3, Ch 00000008")
            self.notes.append(f"decoy: old Xid 13/43 on {self.hosts[n]} days before the job")

    def story_gpu_hardware(self):
        rng = self.rng
        c = self.pick_culprit()
        n = self.cn
        t = self.t_fail
        pci = self.pci(c)
        pid = self.kpid(c)
        v = rng.choice(["xid79", "xid79", "nodefail", "xid119"])
        self.variant = v
        g = self.gpu_of[c]
        if v in ("xid79", "nodefail"):
            self.addk(n, t, f"NVRM: GPU at PCI:{pci}: {self.gpu_uuid()}")
            self.addk(n, t, f"NVRM: GPU Board Serial Number: 16523{rng.randrange(10 ** 7, 10 ** 8)}")
            self.addk(n, t, f"NVRM: Xid (PCI:{pci}): 79, pid={pid}, name=python3, GPU has fallen off the bus.")
            self.addk(n, t, f"NVRM: GPU {pci}.0: GPU has fallen off the bus.")
            if rng.random() < 0.5:
                self.addk(n, t + timedelta(seconds=1), f"NVRM: Xid (PCI:{pci}): 154, pid='<unknown>', name=<unknown>, GPU recovery action changed from 0x0 (None) to 0x2 (Node Reboot Required)")
        if v == "xid79":
            self.cuda_fail(c, self.tsec(t, 0.4, 4), rng.choice(["unspecified launch failure", "unknown error"]), 0.45)
            self.coll = "remote"
            self.drain[n] = (rng.choice([f"Xid 79 GPU{g} fell off bus", f"nhc: GPU {pci}.0 fell off the bus (Xid 79)",
                                          f"gpu{g} missing after Xid79"]), self.tsec(t, 40, 400), "root")
            self.extras["nvidia-smi"] = (n, f"Unable to determine the device handle for GPU{pci.upper()}.0: Unknown Error\n")
            self.notes.append(f"Xid 79 on {self.hosts[n]} GPU{g} ({pci}); culprit rank {c} dies with CUDA error; node drained")
        elif v == "nodefail":
            self.lost_node = n
            self.c_out = Out("lost", t)
            self.end = "node_fail"
            self.coll = "remote"
            self.kern_src = "console"
            self.drain[n] = ("Not responding", t + timedelta(seconds=rng.randrange(100, 300)), "slurm")
            self.drain_admin = (f"Xid79 GPU{g} off bus, hard hang, RMA", t + timedelta(seconds=rng.randrange(1800, 9000)), "root")
            self.notes.append(f"node {self.hosts[n]} hard-hung after Xid 79 on GPU{g}; its ranks print nothing; scheduler NODE_FAIL; kernel lines only via BMC console capture")
        else:
            self.addk(n, t, f"NVRM: Xid (PCI:{pci}): 119, pid={pid}, name=python3, Timeout after 6s of waiting for RPC response from GPU{g} GSP! Expected function 76 (GSP_RM_CONTROL) (0x20800a4c 0x4).")
            self.addk(n, t + timedelta(seconds=6), f"NVRM: Xid (PCI:{pci}): 119, pid={pid}, name=python3, Timeout after 6s of waiting for RPC response from GPU{g} GSP! Expected function 10 (FREE) (0xa55a00f0 0x0).")
            self.addk(n, t + timedelta(seconds=13), f"NVRM: GPU{g} GSP RPC buffer contains function 76 (GSP_RM_CONTROL) and data 0x0000000020800a4c 0x0000000000000004.")
            self.c_out = None    # stuck inside the driver, prints nothing
            self.c_dies = False
            self.coll = "watchdog"
            self.drain[n] = (f"Xid 119 GSP timeout GPU{g}", self.tsec(t, 900, 2400), "root")
            self.notes.append(f"Xid 119 (GSP RPC timeout) on {self.hosts[n]} GPU{g}; rank {c} wedged in the driver, others hit the NCCL watchdog")

    def story_ecc_memory(self):
        rng = self.rng
        c = self.pick_culprit()
        n = self.cn
        t = self.t_fail
        pci = self.pci(c)
        pid = self.kpid(c)
        g = self.gpu_of[c]
        v = rng.choice(["xid48", "xid94", "xid95", "xid48"])
        self.variant = v
        if v == "xid48":
            self.addk(n, t, f"NVRM: Xid (PCI:{pci}): 48, pid={pid}, name=python3, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition {rng.randrange(0, 8)}, subpartition {rng.randrange(0, 2)}.")
            self.addk(n, t + timedelta(seconds=1), f"NVRM: Xid (PCI:{pci}): 63, pid={pid}, name=python3, Row Remapper: New row (0x{hexs(rng, 8)}) marked for remapping, reset gpu to activate.")
        elif v == "xid94":
            self.addk(n, t, f"NVRM: Xid (PCI:{pci}): 94, pid={pid}, name=python3, Contained: SM (0x1). RST: No, D-RST: No")
            self.addk(n, t, f"NVRM: Xid (PCI:{pci}): 63, pid={pid}, name=python3, Row Remapper: New row (0x{hexs(rng, 8)}) marked for remapping, reset gpu to activate.")
        else:
            self.addk(n, t, f"NVRM: Xid (PCI:{pci}): 95, pid={pid}, name=python3, Uncontained: FBHUB. RST: Yes, D-RST: No")
            self.addk(n, t + timedelta(seconds=1), f"NVRM: Xid (PCI:{pci}): 64, pid={pid}, name=python3, Row Remapper Error: (0x{hexs(rng, 8)}) - All reserved rows for bank are remapped")
        self.cuda_fail(c, self.tsec(t, 0.2, 3), "uncorrectable ECC error encountered", 0.55, rng.choice(["backward", "forward"]))
        self.coll = "remote"
        self.drain[n] = (rng.choice([f"ECC DBE GPU{g} {v}", f"nhc: GPU{g} row remap pending", f"GPU{g} uncorrectable ECC ({v}) - RMA"]),
                         self.tsec(t, 60, 900), "root")
        self.extras["nvidia-smi-ecc"] = (n, self.smi_ecc(c, t + timedelta(seconds=rng.randrange(600, 3000))))
        self.notes.append(f"{v} uncorrectable ECC on {self.hosts[n]} GPU{g}; rank {c} dies with 'uncorrectable ECC error encountered'")

    def story_nvlink(self):
        rng = self.rng
        c = self.pick_culprit()
        n = self.cn
        t = self.t_fail
        pci = self.pci(c)
        pid = self.kpid(c)
        g = self.gpu_of[c]
        link = rng.randrange(0, 18)
        self.addk(n, t, f"NVRM: Xid (PCI:{pci}): 74, pid={pid}, name=python3, NVLink: fatal error detected on link {link}(0x0, 0x0, 0x10000, 0x0, 0x0, 0x0, 0x0)")
        if rng.random() < 0.5:
            self.addk(n, t + timedelta(seconds=2), f"NVRM: Xid (PCI:{pci}): 74, pid={pid}, name=python3, NVLink: fatal error detected on link {link}(0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x20000)")
        tc = self.tsec(t, 0.2, 2.5)
        if rng.random() < 0.6 and self.G > 1:
            q = self.seq_at_fail()
            pre = [f"{self.nccl_prefix(c)} enqueue.cc:{rng.choice([1236, 1451, 1611])} NCCL WARN Cuda failure 'uncorrectable NVLink error detected during the execution'"]
            blk = self.tt.watchdog_error(c, self.lt(tc), self.tt.nccl_cuda_msg("Cuda failure 'uncorrectable NVLink error detected during the execution'"), "nccl", q, q + 1, q - 1)
            self.c_abort(tc, (pre if self.nccl_debug else []) + blk)
        else:
            self.cuda_fail(c, tc, "uncorrectable NVLink error detected during the execution", 1.0)
        self.coll = "remote"
        self.drain[n] = (rng.choice([f"NVLink Xid 74 GPU{g} link {link}", f"nvlink down gpu{g}", f"Xid74 nvlink err GPU{g}"]), self.tsec(t, 100, 1200), "root")
        self.extras["nvlink-status"] = (n, self.smi_nvlink(g, link))
        self.notes.append(f"Xid 74 NVLink fatal error on {self.hosts[n]} GPU{g} link {link}; rank {c} aborts")

    def story_network(self):
        rng = self.rng
        n = rng.randrange(self.NN)
        self.cn = n
        self.c = None
        t = self.t_fail
        ranks_n = [r for r in range(self.W) if self.rank_node[r] == n]
        rr = rng.choice(ranks_n)
        m = self.gpu_of[rr]
        self.nic = m
        k8s = self.layout.startswith("k8s")
        bus = rng.choice(["0c", "1d", "3c", "4d", "8a", "9b", "ba", "cc", "dc"])
        if self.transport == "ib":
            self.addk(n, t, f"mlx5_core 0000:{bus}:00.0: Port module event[error]: module {m}, Cable error, Bad or shorted cable/module")
            self.addk(n, t, f"mlx5_core 0000:{bus}:00.0 ibp{int(bus, 16)}s0: Link down")
            self.addk(n, t + timedelta(seconds=rng.randrange(2, 40)), f"mlx5_core 0000:{bus}:00.0 ibp{int(bus, 16)}s0: Link up")
            self.addk(n, t + timedelta(seconds=rng.randrange(45, 90)), f"mlx5_core 0000:{bus}:00.0 ibp{int(bus, 16)}s0: Link down")
        else:
            self.addk(n, t, f"mlx5_core 0000:{bus}:00.0 ens{rng.randrange(1, 9)}f0np0: Link down")
            self.addk(n, t + timedelta(seconds=rng.randrange(5, 50)), f"mlx5_core 0000:{bus}:00.0: mlx5_cmd_out_err:838:(pid 0): QUERY_VPORT_COUNTER(0x770) op_mod(0x0) failed, status bad parameter(0x3), syndrome (0x{hexs(rng, 6)}), err(-22)")
        self.coll = "net"
        self.end = "failed"
        self.drain[n] = (rng.choice([f"IB mlx5_{m} port down", f"nhc: check_hw_ib mlx5_{m}:1 not ACTIVE", f"link flap mlx5_{m}"])
                         if self.transport == "ib" else "NIC link down", self.tsec(t, 120, 1500), "root")
        if self.transport == "ib":
            self.extras["ibstat"] = (n, self.ibstat(m))
        self.notes.append(f"{'IB' if self.transport == 'ib' else 'Ethernet'} link failure on {self.hosts[n]} (mlx5_{m}); ranks talking to it see NCCL completion/connection errors; rank not meaningful")

    def story_cuda_oom(self):
        rng = self.rng
        c = self.pick_culprit()
        t = self.tsec(self.t_fail, 0, 1)
        gi = 0 if self.layout == "k8s_pytorchjob" else self.local[c]
        req = rng.choice(["1.95 GiB", "2.00 GiB", "512.00 MiB", "3.91 GiB", "7.81 GiB", "160.00 MiB", "1.17 GiB"])
        msg = self.tt.oom_msg(gi, GPU_MEM[self.gpu], req)
        self.c_exit(t, self.traceback(rng.choice(["forward", "backward", "step"]), [msg]))
        self.coll = rng.choice(["remote", "watchdog"])
        self.notes.append(f"CUDA OOM on rank {c} (local GPU index {gi} in the message)")

    def story_illegal_memory_access(self):
        rng = self.rng
        c = self.pick_culprit()
        n = self.cn
        t = self.t_fail
        pci = self.pci(c)
        pid = self.kpid(c)
        if rng.random() < 0.6:
            self.addk(n, t, f"NVRM: Xid (PCI:{pci}): 31, pid={pid}, name=python3, Ch 000000{rng.choice(['08', '10', '18'])}, intr 00000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_{rng.randrange(0, 16)} faulted @ 0x7f{hexs(rng, 2)}_{hexs(rng, 8)}. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ")
        else:
            self.addk(n, t, f"NVRM: Xid (PCI:{pci}): 13, pid={pid}, name=python3, Graphics SM Warp Exception on (GPC {rng.randrange(0, 8)}, TPC {rng.randrange(0, 9)}, SM {rng.randrange(0, 2)}): Out Of Range Address")
            self.addk(n, t, f"NVRM: Xid (PCI:{pci}): 13, pid={pid}, name=python3, Graphics Exception: ESR 0x{hexs(rng, 6)}=0x{hexs(rng, 7)} 0x{hexs(rng, 6)}=0x20 0x{hexs(rng, 6)}=0x{hexs(rng, 6)} 0x{hexs(rng, 6)}=0x17f")
        self.cuda_fail(c, self.tsec(t, 0.1, 2), "an illegal memory access was encountered", 0.5, rng.choice(["backward", "forward", "step"]))
        self.coll = rng.choice(["remote", "watchdog"])
        self.notes.append(f"illegal memory access on rank {c} ({self.hosts[n]}), application-level (Xid 13/31 with the process pid), no drain")

    def story_python_exception(self):
        rng = self.rng
        c = self.pick_culprit(0.7)
        t = self.tsec(self.t_fail, 0, 1)
        kind = rng.choice(["worker_keyerror", "fnf", "shape", "json", "assert", "quota", "zerodiv"])
        site = self.tt.site
        if kind == "worker_keyerror":
            wk = rng.randrange(0, 8)
            exc = [f"KeyError: Caught KeyError in DataLoader worker process {wk}.", "Original Traceback (most recent call last):",
                   f'  File "{site}/torch/utils/data/_utils/worker.py", line {rng.choice([308, 309, 351])}, in _worker_loop',
                   "    data = fetcher.fetch(index)  # type: ignore[possibly-undefined]",
                   f'  File "{site}/torch/utils/data/_utils/fetch.py", line 52, in fetch',
                   "    data = [self.dataset[idx] for idx in possibly_batched_index]",
                   f'  File "{self.workdir}/data/dataset.py", line {rng.randrange(40, 160)}, in __getitem__',
                   '    ids = sample["input_ids"]', "KeyError: 'input_ids'"]
            lines = self.traceback("data", [f'  File "{site}/torch/utils/data/dataloader.py", line {rng.choice([1370, 1371, 1492])}, in _process_data',
                                            "    data.reraise()", f'  File "{site}/torch/_utils.py", line {rng.choice([705, 706, 722, 750])}, in reraise',
                                            "    raise exception"] + exc)
        elif kind == "fnf":
            lines = self.traceback("data", [f"FileNotFoundError: [Errno 2] No such file or directory: '/data/shards/train-{rng.randrange(0, 1024):05d}-of-01024.arrow'"])
        elif kind == "shape":
            a = rng.choice([2048, 4096, 8192])
            lines = self.traceback("forward", [f"RuntimeError: The size of tensor a ({a}) must match the size of tensor b ({a + 1}) at non-singleton dimension 1"])
        elif kind == "json":
            lines = self.traceback("data", [f"json.decoder.JSONDecodeError: Unterminated string starting at: line 1 column {rng.randrange(1000, 90000)} (char {rng.randrange(1000, 90000)})"])
        elif kind == "assert":
            lines = self.traceback("step", [f"AssertionError: non-finite loss (nan) at step {self.step_at(self.t_fail)} on rank {c}"])
        elif kind == "quota":
            lines = self.traceback("ckpt", ["OSError: [Errno 122] Disk quota exceeded"])
        else:
            lines = self.traceback("eval", ["ZeroDivisionError: division by zero"])
        self.c_exit(t, lines)
        self.coll = rng.choice(["remote", "watchdog", "watchdog"])
        self.notes.append(f"python exception ({kind}) on rank {c}")

    def cg_path(self, c):
        L = self.layout
        uid = 10000 + self.idx * 7
        if L.startswith("slurm"):
            return f"/slurm/uid_{uid}/job_{self.jobid}/step_0"
        if L.startswith("k8s"):
            return f"/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod{hexs(self.rng, 8)}_{hexs(self.rng, 4)}_{hexs(self.rng, 4)}.slice/cri-containerd-{hexs(self.rng, 64)}.scope"
        if L == "pbs_mpiexec":
            return f"/pbs_jobs.service/jobid/{self.jobid}.{self.pbs_server}"
        return f"/lsf/{self.lsf_cluster}/job.{self.jobid}.{self.rng.randrange(100, 9999)}.{self.rng.randrange(10 ** 9, 2 * 10 ** 9)}"

    def story_host_oom_kill(self):
        rng = self.rng
        c = self.pick_culprit(0.7)
        n = self.cn
        t = self.t_fail
        v = rng.choice(["main", "main", "worker"])
        if self.layout == "k8s_pytorchjob":
            v = "main"
        self.variant = v
        self.jobid = getattr(self, "jobid", None) or self.make_jobid()
        victim = self.kpid(c) if v == "main" else self.kpid(c) + rng.randrange(300, 3000)
        comm = "python3" if v == "main" else "pt_data_worker" if rng.random() < 0.3 else "python3"
        cg = self.cg_path(c)
        self.victim_pid = victim
        tot = rng.randrange(60, 400) * 1024 * 1024
        self.addk(n, t - timedelta(seconds=1), f"{comm} invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0")
        self.addk(n, t, f"oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset={cg.split('/')[-1]},mems_allowed=0-1,oom_memcg={cg},task_memcg={cg},task={comm},pid={victim},uid={10000 + self.idx * 7}")
        self.addk(n, t, f"Memory cgroup out of memory: Killed process {victim} ({comm}) total-vm:{tot + rng.randrange(10 ** 7, 10 ** 8)}kB, anon-rss:{tot}kB, file-rss:{rng.randrange(10 ** 5, 10 ** 6)}kB, shmem-rss:{rng.randrange(10 ** 4, 10 ** 7)}kB, UID:{10000 + self.idx * 7} pgtables:{rng.randrange(10 ** 5, 10 ** 6)}kB oom_score_adj:0")
        self.addk(n, t + timedelta(seconds=1), f"oom_reaper: reaped process {victim} ({comm}), now anon-rss:0kB, file-rss:0kB, shmem-rss:{rng.randrange(0, 5000)}kB")
        if v == "main":
            self.c_abort(t, [], sig=9)
        else:
            self.c_exit(self.tsec(t, 0.5, 5), self.traceback("data", [
                f'  File "{self.tt.site}/torch/utils/data/dataloader.py", line {rng.choice([1133, 1146, 1251])}, in _try_get_data',
                "    raise RuntimeError(f'DataLoader worker (pid(s) {pids_str}) exited unexpectedly') from e",
                f"RuntimeError: DataLoader worker (pid(s) {victim}) exited unexpectedly"]))
        self.end = "oom"
        self.coll = rng.choice(["remote", "watchdog"])
        self.notes.append(f"host/cgroup OOM on {self.hosts[n]}: killed pid {victim} ({'rank %d main process' % c if v == 'main' else 'dataloader worker of rank %d' % c})")

    def story_crash_signal(self):
        rng = self.rng
        c = self.pick_culprit()
        n = self.cn
        t = self.t_fail
        sig = rng.choice([11, 11, 11, 7])
        self.variant = SIGNAMES[sig]
        lines = []
        if rng.random() < 0.55:
            th = "0x00007f" + hexs(rng, 10)
            lines = [f"Fatal Python error: {SIGDESC[sig]}", "",
                     f"Thread {'0x00007f' + hexs(rng, 10)} (most recent call first):",
                     f'  File "/usr/lib/python3.{rng.choice([10, 11])}/threading.py", line 331 in wait',
                     f'  File "{self.tt.site}/torch/utils/data/_utils/pin_memory.py", line 54 in do_one_step',
                     "", f"Current thread {th} (most recent call first):",
                     f'  File "{self.tt.site}/torch/nn/functional.py", line {rng.randrange(2000, 5600)} in {rng.choice(["scaled_dot_product_attention", "layer_norm", "cross_entropy"])}',
                     f'  File "{self.workdir}/model/attention.py", line {rng.randrange(40, 200)} in forward',
                     f'  File "{self.tt.site}/torch/nn/modules/module.py", line {rng.choice([1527, 1541, 1750])} in _call_impl',
                     f'  File "{self.workdir}/{self.script}", line {rng.randrange(150, 300)} in train',
                     f'  File "{self.workdir}/{self.script}", line {rng.randrange(300, 380)} in main',
                     f'  File "{self.workdir}/{self.script}", line {rng.randrange(380, 700)} in <module>', ""]
            if rng.random() < 0.5:
                lines.append("Extension modules: numpy.core._multiarray_umath, numpy.core._multiarray_tests, torch._C, torch._C._fft, torch._C._linalg, torch._C._nn, torch._C._sparse, torch._C._special, yaml._yaml (total: 41)")
        if sig == 11:
            lib = rng.choice(["libtorch_cuda.so", "libc.so.6", "flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so", "libnccl.so.2", "libcuda.so.1"])
            self.addk(n, t, f"python3[{self.kpid(c)}]: segfault at {rng.choice(['0', '8', '18', '7f' + hexs(rng, 10)])} ip 00007f{hexs(rng, 10)} sp 00007ff{hexs(rng, 9)} error {rng.choice([4, 6, 14])} in {lib}[7f{hexs(rng, 6)}000+{hexs(rng, 6)}]")
            self.addk(n, t, f"Code: {' '.join(hexs(rng, 2) for _ in range(24))} <{hexs(rng, 2)}> {' '.join(hexs(rng, 2) for _ in range(8))}")
        self.c_abort(t, lines, sig=sig)
        self.coll = rng.choice(["remote", "watchdog"])
        self.notes.append(f"rank {c} killed by {SIGNAMES[sig]}")

    def story_preemption(self):
        rng = self.rng
        self.end = "preempted"
        self.c = None
        self.coll = "term"
        k8s = self.layout.startswith("k8s")
        if k8s:
            n = rng.randrange(self.NN)
            self.spot_node = n
            self.cn = n
            self.variant = "spot" if rng.random() < 0.6 else "priority"
            self.end = "spot"
            self.coll = "remote"
            if self.variant == "spot":
                self.notes.append(f"spot/preemptible node {self.hosts[n]} reclaimed; pods on it terminated by kubelet graceful node shutdown")
            else:
                self.notes.append(f"pods on {self.hosts[n]} preempted by kube-scheduler for a higher-priority pod (node itself is fine)")
        else:
            self.variant = "scheduler"
            self.notes.append("whole job preempted by the scheduler for a higher-priority job; ranks get SIGTERM")
        if rng.random() < 0.5:
            self.sigterm_handler = True

    def story_hang(self):
        rng = self.rng
        c = self.pick_culprit()
        self.c_out = None
        self.c_dies = False
        self.coll = "watchdog"
        self.hang_where = rng.choice(["ckpt_join", "lock", "cuda_sync"])
        if rng.random() < 0.35 and not self.layout.startswith("k8s") and self.layout != "lsf_mpirun":
            self.timeout_ms = 7200000 if self.limit_h >= 6 else 3600000 * 3
            self.t_fail = min(self.t_fail, self.t_limit - timedelta(seconds=(self.timeout_ms // 1000) // 2))
            if self.t_fail < self.t_train0 + timedelta(minutes=20):
                self.t_fail = self.t_train0 + timedelta(minutes=20)
                self.timeout_ms = 3600000 * 48
        if rng.random() < 0.45:
            self.pyspy = c
        self.notes.append(f"rank {c} silently stops ({self.hang_where}); others wait in the collective at SeqNum {self.seq_at_fail()}")

    def story_data_loader_stall(self):
        rng = self.rng
        c = self.pick_culprit()
        n = self.cn
        t = self.t_fail
        v = rng.choice(["timeout_err", "timeout_err", "silent"])
        self.variant = v
        srv = rng.choice(["nfs01", "fs-data-2", "10.1.0.40", "vast-vip-3"])
        wpid = self.kpid(c) + rng.randrange(300, 3000)
        self.addk(n, t + timedelta(seconds=rng.randrange(20, 200)), f"nfs: server {srv} not responding, still trying")
        self.addk(n, t + timedelta(seconds=rng.randrange(200, 400)), f"INFO: task python3:{wpid} blocked for more than {rng.choice([120, 122, 241])} seconds.")
        self.addk(n, t + timedelta(seconds=rng.randrange(200, 400)), "      Tainted: P           OE     5.15.0-105-generic #115-Ubuntu")
        self.addk(n, t + timedelta(seconds=rng.randrange(200, 400)), "\"echo 0 > /proc/sys/kernel/hung_task_timeout_secs\" disables this message.")
        if rng.random() < 0.6:
            self.dl_warn = True
        if v == "timeout_err":
            dlt = rng.choice([300, 600, 900])
            self.timeout_ms = max(self.timeout_ms, 1800000)
            tc = t + timedelta(seconds=dlt + rng.uniform(0.5, 3))
            self.c_exit(tc, self.traceback("data", [
                f'  File "{self.tt.site}/torch/utils/data/dataloader.py", line {rng.choice([1284, 1297, 1430])}, in _get_data',
                "    success, data = self._try_get_data(self._timeout)",
                f'  File "{self.tt.site}/torch/utils/data/dataloader.py", line {rng.choice([1146, 1148, 1257])}, in _try_get_data',
                "    raise RuntimeError(f'DataLoader timed out after {timeout} seconds') from e",
                f"RuntimeError: DataLoader timed out after {dlt} seconds"]))
            self.coll = "watchdog"
        else:
            self.c_out = None
            self.c_dies = False
            self.coll = "watchdog"
            if rng.random() < 0.5:
                self.pyspy = c
        self.nfs_srv = srv
        self.notes.append(f"rank {c} on {self.hosts[n]} starves on its dataloader (NFS {srv} not responding)")

    def story_collective_mismatch(self):
        rng = self.rng
        c = self.pick_culprit()
        v = rng.choice(["detail", "opdiff", "opdiff"])
        self.variant = v
        q = self.seq_at_fail()
        if v == "detail":
            self.pre_outs = getattr(self, "pre_outs", {})
            opc = rng.choice(["BROADCAST", "ALLGATHER", "REDUCE"])
            shape_o = rng.choice(["[1024]", "[4096, 4096]", "[2106881]", "[32000, 4096]"])
            def fp(op, shape, dt="Float"):
                return (f"CollectiveFingerPrint(SequenceNumber={q}, OpType={op}, TensorShape={shape}, TensorDtypes={dt}, "
                        "TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda, layout=Strided (default), "
                        "requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt)))")
            for r in range(self.W):
                other = 0 if r == c else c
                if r == c:
                    msg = (f"RuntimeError: Detected mismatch between collectives on ranks. Rank {c} is running collective: {fp(opc, '[1]', 'Long')}, "
                           f"but Rank {other} is running collective: {fp('ALLREDUCE', shape_o)}.Collectives differ in the following aspects: "
                           f"\t Op type: {opc}vs ALLREDUCE  Tensor Tensor shapes: 1vs {shape_o.strip('[]')}")
                else:
                    msg = (f"RuntimeError: Detected mismatch between collectives on ranks. Rank {r} is running collective: {fp('ALLREDUCE', shape_o)}, "
                           f"but Rank {c} is running collective: {fp(opc, '[1]', 'Long')}.Collectives differ in the following aspects: "
                           f"\t Op type: ALLREDUCEvs {opc}  Tensor Tensor shapes: {shape_o.strip('[]')}vs 1")
                tr = self.tsec(self.t_fail, 0.01, 0.9)
                self.pre_outs[r] = Out("exit", tr, [(tr, self.traceback("eval" if r != c else "step", [msg]))], code=1)
            self.c_out = self.pre_outs[c]
            self.c_dies = True
            self.notes.append(f"TORCH_DISTRIBUTED_DEBUG=DETAIL fingerprint mismatch: rank {c} issues {opc} while the rest issue ALLREDUCE")
        else:
            self.c_op = (rng.choice(["BROADCAST", "ALLGATHER", "_ALLGATHER_BASE"]), rng.choice([1, 2, 5056, 8]))
            if self.c_op[0] == self.op:
                self.c_op = ("BROADCAST", 1)
            self.c_out = None
            self.coll = "watchdog"
            self.notes.append(f"rank {c} took a different code path: waits in {self.c_op[0]} (numel {self.c_op[1]}) at SeqNum {q} while the others wait in {self.op}")

    def story_straggler(self):
        rng = self.rng
        c = self.pick_culprit()
        n = self.cn
        self.slow_f = round(rng.uniform(1.35, 2.6), 2)
        self.t_slow = self.t_fail
        self.variant = rng.choice(["thermal", "thermal", "pcie", "power"])
        self.coll = "ok"
        if self.layout.startswith("k8s") or rng.random() < 0.45:
            self.end = "completed"
            self.t_end = self.t_limit - timedelta(seconds=rng.randrange(300, 3000))
        else:
            self.end = "timeout"
            self.coll = "alive"
            self.t_end = self.t_limit
        self.extras["nvidia-smi-perf"] = (n, self.smi_perf(c, self.t_end - timedelta(seconds=rng.randrange(60, 900))))
        self.notes.append(f"rank {c} on {self.hosts[n]} GPU{self.gpu_of[c]} is {self.slow_f}x slower ({self.variant}); job {'finishes late' if self.end == 'completed' else 'runs into the time limit'}")

    def story_unknown(self):
        rng = self.rng
        self.c = None
        v = rng.choice(["all_timeout", "all_timeout", "stall_limit"])
        if self.layout.startswith("k8s"):
            v = "all_timeout"
        self.variant = v
        if v == "all_timeout":
            self.coll = "watchdog"
            self.unknown_all = True
            self.notes.append("every rank times out at the same SeqNum with identical enqueued/completed counters; nothing names an initiator")
        else:
            self.coll = "alive"
            self.end = "timeout"
            self.notes.append("all ranks stop logging at the same moment and the job runs into its time limit; no error anywhere")

    # ------------------------------------------------------------------ small extra artefacts
    def smi_ecc(self, c, t):
        lt = self.kt(self.cn, t)
        bus = self.busid(c).rjust(5, "0").upper()
        dr = self.rng.choice(["535.161.08", "550.54.15", "550.90.07", "560.35.03", "570.124.06"])
        return "\n".join([
            "==============NVSMI LOG==============", "",
            f"Timestamp                                 : {lt:%a %b %d %H:%M:%S %Y}",
            f"Driver Version                            : {dr}",
            f"CUDA Version                              : {dr[:2] == '53' and '12.2' or '12.4'}", "",
            f"Attached GPUs                             : {max(self.G, 8) if self.G != 4 and self.G != 6 else self.G}",
            f"GPU 00000000:{bus[:-3].rjust(2, '0')}:00.0",
            "    ECC Mode", "        Current                           : Enabled", "        Pending                           : Enabled",
            "    ECC Errors", "        Volatile",
            "            SRAM Correctable              : 0", "            SRAM Uncorrectable            : 0",
            f"            DRAM Correctable              : {self.rng.randrange(0, 9)}", "            DRAM Uncorrectable            : 1",
            "        Aggregate",
            "            SRAM Correctable              : 0", "            SRAM Uncorrectable            : 0",
            f"            DRAM Correctable              : {self.rng.randrange(9, 60)}", f"            DRAM Uncorrectable            : {self.rng.randrange(1, 4)}",
            "    Remapped Rows", "        Correctable Error                 : 0", "        Uncorrectable Error               : 2",
            "        Pending                           : Yes", "        Remapping Failure Occurred        : No",
            "        Bank Remap Availability Histogram", "            Max                           : 639 bank(s)",
            "            High                          : 1 bank(s)", "            Partial                       : 0 bank(s)",
            "            Low                           : 0 bank(s)", "            None                          : 0 bank(s)", ""])

    def smi_nvlink(self, g, link):
        out = [f"GPU {g}: NVIDIA {'H100 80GB HBM3' if self.gpu.startswith('h100') else 'A100-SXM4-80GB'} (UUID: {self.gpu_uuid()})"]
        for i in range(18 if self.gpu.startswith("h100") else 12):
            out.append(f"\t Link {i}: " + ("<inactive>" if i == link else ("26.562 GB/s" if self.gpu.startswith("h100") else "25 GB/s")))
        return "\n".join(out) + "\n"

    def ibstat(self, m):
        out = []
        for i in range(max(2, min(8, self.G if self.G > 1 else 8))):
            down = i == m
            out += [f"CA 'mlx5_{i}'", "\tCA type: MT4129", "\tNumber of ports: 1", "\tFirmware version: 28.39.1002", "\tHardware version: 0",
                    f"\tNode GUID: 0x{hexs(self.rng, 16)}", f"\tSystem image GUID: 0x{hexs(self.rng, 16)}", "\tPort 1:",
                    f"\t\tState: {'Down' if down else 'Active'}", f"\t\tPhysical state: {'Polling' if down else 'LinkUp'}",
                    f"\t\tRate: {'10' if down else '400'}", f"\t\tBase lid: {'65535' if down else self.rng.randrange(1, 3000)}",
                    "\t\tLMC: 0", f"\t\tSM lid: {self.rng.randrange(1, 20)}", "\t\tCapability mask: 0xa751e848",
                    f"\t\tPort GUID: 0x{hexs(self.rng, 16)}", "\t\tLink layer: InfiniBand"]
        return "\n".join(out) + "\n"

    def smi_perf(self, c, t):
        lt = self.kt(self.cn, t)
        newer = self.rng.random() < 0.6
        hdr = "Clocks Event Reasons" if newer else "Clocks Throttle Reasons"
        out = ["==============NVSMI LOG==============", "", f"Timestamp                                 : {lt:%a %b %d %H:%M:%S %Y}",
               f"Driver Version                            : {'550.90.07' if newer else '535.129.03'}", ""]
        for r in [x for x in range(self.W) if self.rank_node[x] == self.cn][:8]:
            bus = self.busid(r).rjust(5, "0").upper()
            slow = r == self.c
            th = slow and self.variant == "thermal"
            pw = slow and self.variant == "power"
            out += [f"GPU 00000000:{bus[:-3].rjust(2, '0')}:00.0", "    Performance State                     : P0", f"    {hdr}",
                    "        Idle                              : Not Active",
                    "        Applications Clocks Setting       : Not Active",
                    f"        SW Power Cap                      : {'Active' if pw else 'Not Active'}",
                    f"        HW Slowdown                       : {'Active' if th else 'Not Active'}",
                    f"            HW Thermal Slowdown           : {'Active' if th else 'Not Active'}",
                    "            HW Power Brake Slowdown       : Not Active",
                    "        Sync Boost                        : Not Active",
                    "        SW Thermal Slowdown               : Not Active",
                    "        Display Clock Setting             : Not Active"]
            if slow and self.variant == "pcie":
                out += ["    GPU Link Info", "        PCIe Generation", "            Max                       : 5", "            Current                   : 1",
                        "        Link Width", "            Max                       : 16x", "            Current                   : 4x"]
            out += [f"    Clocks", f"        SM                                : {1095 if (th or pw) else 1980} MHz",
                    f"    Temperature", f"        GPU Current Temp                  : {91 if th else self.rng.randrange(48, 66)} C", ""]
        return "\n".join(out)

    # ================================================================== outcome resolution
    def launcher(self):
        L = self.layout
        if L == "slurm_srun":
            return "srun_kill" if self.srun_kill else "srun"
        if L in ("slurm_torchrun", "k8s_jobset"):
            return "torchrun"
        if L == "k8s_pytorchjob":
            return "none"
        return "mpi"

    def wd_block(self, r, t, full):
        q = self.seq_at_fail()
        op, ni = self.op, self.numel
        if self.c_op and r == self.c:
            op, ni = self.c_op
        no = ni
        if op.startswith("_REDUCE_SCATTER"):
            no = max(1, ni // self.W)
        elif "ALLGATHER" in op:
            no = ni * self.W
        ran = self.timeout_ms + self.rng.randrange(3, 120)
        if getattr(self, "unknown_all", False):
            le = q + 1
        else:
            le = q + self.rng.choice([0, 1, 2])
        return self.tt.watchdog_timeout(r, self.lt(t), q, op, ni, no, self.timeout_ms, ran, le, q - 1, full)

    def remote_block(self, r, t, peer_node, local_side=False):
        rng = self.rng
        q = self.seq_at_fail()
        ip = self.ips[peer_node]
        myip = self.ips[self.rank_node[r]]
        pre = self.nccl_prefix(r)
        if self.transport == "ib":
            if self.tt.nccl >= "2.20":
                last = (f"NET/IB : Got completion from peer {ip}<{rng.randrange(32768, 60999)}> with status={rng.choice([12, 12, 5])} opcode={rng.choice([0, 1, 129, 32616])} "
                        f"len={rng.choice([0, 0, 65536])} vendor err {rng.choice([129, 129, 249])} ({rng.choice(['Recv', 'Send'])}) localGid ::ffff:{myip} remoteGids::ffff:{ip}")
            else:
                last = (f"NET/IB : Got completion from peer {ip}<{rng.randrange(32768, 60999)}> with error {rng.choice([12, 12, 5])}, opcode {rng.choice([0, 1, 129])}, "
                        f"len 0, vendor err {rng.choice([129, 249])} ({rng.choice(['Recv', 'Send'])}) localGid ::ffff:{myip} remoteGid ::ffff:{ip}")
            warn = [f"{pre} transport/net_ib.cc:{rng.choice([1696, 1710, 2185, 2342])} NCCL WARN {last}",
                    f"{pre} NCCL INFO transport/net.cc:{rng.choice([1298, 1302, 1337])} -> 6",
                    f"{pre} NCCL INFO proxy.cc:{rng.choice([694, 698, 746])} -> 6",
                    f"{pre} NCCL INFO proxy.cc:{rng.choice([874, 878, 910])} -> 6 [Progress Thread]"]
            if local_side:
                warn = [f"{pre} transport/net_ib.cc:{rng.choice([105, 118])} NCCL WARN NET/IB : mlx5_{self.nic}:1 Got async event : port error"] + warn
        else:
            last = f"Net : Connection closed by remote peer {ip}<{rng.randrange(32768, 60999)}>"
            warn = [f"{pre} misc/socket.cc:{rng.choice([47, 50, 54])} NCCL WARN {last}",
                    f"{pre} NCCL INFO transport/net_socket.cc:{rng.choice([493, 554])} -> 6",
                    f"{pre} NCCL INFO transport/net.cc:{rng.choice([1298, 1302])} -> 6",
                    f"{pre} NCCL INFO proxy.cc:{rng.choice([874, 878])} -> 6 [Progress Thread]"]
        if local_side and self.transport == "ib":
            msg = [f"NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version {self.tt.nccl}",
                   "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. ",
                   "Last error:", last]
        else:
            msg = self.tt.nccl_remote_msg(last)
        blk = self.tt.watchdog_error(r, self.lt(t), msg, "nccl", q, q + 1, q - 1)
        return (warn if self.nccl_debug or rng.random() < 0.3 else []) + blk

    def resolve(self):
        rng = self.rng
        W = self.W
        self.jobid = getattr(self, "jobid", None) or self.make_jobid()
        lau = self.launcher()
        outs = [None] * W
        for r, o in getattr(self, "pre_outs", {}).items():
            outs[r] = o
        if self.c is not None and self.c_out is not None:
            outs[self.c] = self.c_out
        twd = self.t_fail + timedelta(milliseconds=self.timeout_ms) + timedelta(seconds=rng.uniform(0.5, 4))
        # reference node for remote errors
        src_node = self.cn if (self.c_dies or self.lost_node is not None or self.coll == "net" or self.end == "spot") else None
        for r in range(W):
            if outs[r] is not None:
                continue
            n = self.rank_node[r]
            if self.lost_node is not None and n == self.lost_node:
                outs[r] = Out("lost", self.t_fail)
                continue
            if self.end == "spot" and n == self.spot_node:
                tt = self.tsec(self.t_fail, 0, 3)
                outs[r] = Out("term", tt, [], sig=15)
                continue
            if self.end in ("completed",) or self.coll == "ok":
                outs[r] = Out("ok", self.t_end)
                continue
            if self.end == "preempted":
                tt = self.tsec(self.t_fail, 0, 2)
                blocks = []
                if getattr(self, "sigterm_handler", False) and r == self.printer:
                    blocks = [(tt, [f"{self.lt(tt):%Y-%m-%d %H:%M:%S} | WARNING | Received SIGTERM (signal 15), writing emergency checkpoint to {self.workdir}/checkpoints/preempt_step_{self.step_at(tt)} ..."])]
                outs[r] = Out("term", tt, blocks, sig=15)
                continue
            if self.coll == "alive" or (r == self.c and self.c_out is None and not self.c_op):
                outs[r] = Out("alive", None)
                continue
            if r == self.c and self.c_op:
                t = twd + timedelta(seconds=rng.uniform(-0.5, 0.5))
                outs[r] = Out("sig", t, [(t, self.wd_block(r, t, True))], sig=6)
                continue
            remote = False
            local_side = False
            if self.coll == "net":
                if n == self.cn and self.gpu_of[r] == self.nic:
                    remote, local_side = True, True
                elif n != self.cn and self.gpu_of[r] == self.nic:
                    remote = True
                elif n == self.cn and rng.random() < 0.3:
                    remote = True
            elif self.coll == "remote" and src_node is not None and n != src_node:
                remote = (abs(n - src_node) == 1 or (self.G > 1 and self.local[r] == self.local[self.c or 0] and rng.random() < 0.7)
                          or rng.random() < 0.15)
            if remote:
                t = self.t_fail + timedelta(seconds=rng.uniform(1.5, 25) if not local_side else rng.uniform(0.2, 2))
                peer = self.cn if n != self.cn else (self.cn + 1) % self.NN
                outs[r] = Out("sig", t, [(t, ("R", peer, local_side))], sig=6)
            else:
                t = twd + timedelta(seconds=rng.uniform(0, 1.5))
                outs[r] = Out("sig", t, [(t, ("WD",))], sig=6)
        # launcher kill semantics
        fails = sorted([(o.t, r) for r, o in enumerate(outs) if o.kind in ("exit", "sig") and o.t is not None], key=lambda x: (x[0], x[1]))
        if lau in ("srun_kill", "mpi") and fails and self.end not in ("preempted", "spot"):
            tf = fails[0][0]
            for r in range(W):
                o = outs[r]
                if o.kind in ("alive",) or (o.kind in ("exit", "sig") and o.t > tf + timedelta(seconds=2)):
                    tt = tf + timedelta(seconds=rng.uniform(0.3, 1.8))
                    outs[r] = Out("term", tt, [], sig=15)
        elif lau == "torchrun" and fails:
            first_on = {}
            for t, r in fails:
                first_on.setdefault(self.rank_node[r], t)
            for r in range(W):
                o = outs[r]
                n = self.rank_node[r]
                if n in first_on:
                    tf = first_on[n]
                    if o.kind == "alive" or (o.kind in ("exit", "sig") and o.t > tf + timedelta(seconds=1.5)):
                        outs[r] = Out("term", tf + timedelta(seconds=rng.uniform(0.05, 0.9)), [], sig=15)
        # end time / time limit
        ts = [o.t for o in outs if o.t is not None and o.kind != "ok"]
        if self.end in ("completed", "timeout") and self.coll in ("ok", "alive"):
            if not hasattr(self, "t_end"):
                self.t_end = self.t_limit
        elif self.end in ("preempted", "spot"):
            self.t_end = self.t_fail + timedelta(seconds=rng.randrange(3, 35))
        elif self.end == "node_fail":
            self.t_end = self.t_fail + timedelta(seconds=rng.randrange(150, 320))
        else:
            self.t_end = (max(ts) if ts else self.t_fail) + timedelta(seconds=rng.uniform(1, 40))
        lim_applies = not self.layout.startswith("k8s")
        if lim_applies and self.t_end > self.t_limit:
            self.end = "timeout"
            self.t_end = self.t_limit
            for r in range(W):
                o = outs[r]
                if o.t is not None and o.t > self.t_limit:
                    outs[r] = Out("alive", None)
        if self.end == "node_fail":
            for r in range(W):
                o = outs[r]
                if o.kind in ("sig",) and o.t > self.t_end:
                    outs[r] = Out("term", self.t_end, [], sig=15)
        # alive ranks are killed at the end (scheduler/launcher), except k8s snapshot
        for r in range(W):
            if outs[r].kind == "alive":
                outs[r].t = self.t_end
        self.outs = outs
        self.t_stop = self.t_fail if self.end not in ("completed",) else self.t_end
        if self.cause == "straggler":
            self.t_stop = self.t_end
        # sample of ranks whose startup/NCCL init lines appear in big jobs
        s = [0, self.printer]
        if self.c is not None:
            s.append(self.c)
        s += rng.sample(range(W), min(W, 6))
        self.init_sample = sorted(set(s))

    def make_jobid(self):
        L = self.layout
        rng = self.rng
        if L.startswith("slurm"):
            return str(rng.randrange(180000, 9800000))
        if L == "pbs_mpiexec":
            self.pbs_server = rng.choice(["pbs01", "polaris-pbs-01", "sched1"])
            return str(rng.randrange(100000, 6000000))
        if L == "lsf_mpirun":
            self.lsf_cluster = rng.choice(["summit", "gpucl", "hpc2"])
            return str(rng.randrange(100000, 3999999))
        return ""

    # ================================================================== rendering helpers
    def podname_r(self, r):
        return self.podnames[r]

    def podhost(self, n):
        return self.podhosts[n]

    def mark(self, why):
        if why not in self.rank_found:
            self.rank_found.append(why)

    def prep_render(self):
        rng = self.rng
        self._rl = {}
        self.wd_shown = []
        self.init_shown = []
        self.kern_shown = []
        coll = [r for r in range(self.W) if r != self.c and self.outs[r].blocks]
        self.full_ranks = ([self.c] if self.c is not None else []) + rng.sample(coll, min(len(coll), rng.choice([1, 2, 3, 5])))
        self.decoy_list = self.decoys()
        self.agent_exit = {}

    def payload_lines(self, r, t, p, full):
        if isinstance(p, tuple):
            if p[0] == "WD":
                if r not in self.wd_shown:
                    self.wd_shown.append(r)
                return self.wd_block(r, t, full)
            if p[0] == "R":
                return self.remote_block(r, t, p[1], p[2])
        return p

    def straggler_reports(self, stop):
        rng = self.rng
        out = []
        if self.cause != "straggler" or self.style not in ("megatron", "custom"):
            return out
        every = getattr(self, "log_every", 100) * rng.choice([5, 10])
        s = self.start_step - self.start_step % every + every
        while True:
            t = self.t_of_step(s) + timedelta(milliseconds=300)
            if t > stop:
                break
            slow = t > self.t_slow
            base = self.step_s * 1000
            fast_r = rng.randrange(self.W)
            if slow:
                sr = self.c
                mx = base * self.slow_f * rng.uniform(0.98, 1.03)
            else:
                sr = rng.randrange(self.W)
                mx = base * rng.uniform(1.01, 1.06)
            mn = base * rng.uniform(0.95, 0.99)
            lt = self.lt(t)
            if self.style == "megatron":
                th = slow and self.variant == "thermal"
                out.append((t, f" [{lt:%Y-%m-%d %H:%M:%S}] | MnRtt/Rnk: {mn:.2f}ms/{fast_r} | MxRtt/Rnk: {mx:.2f}ms/{sr} | "
                               f"MnPwr/Rnk: {rng.randrange(380, 520) if slow else rng.randrange(560, 640)}000W/{sr if slow else fast_r} | MxPwr/Rnk: {rng.randrange(660, 700)}000W/{rng.randrange(self.W)} | "
                               f"MnTmp/Rnk: {rng.randrange(38, 48)}C/{rng.randrange(self.W)} | MxTmp/Rnk: {rng.randrange(86, 93) if th else rng.randrange(62, 71)}C/{sr if th else rng.randrange(self.W)} | "
                               f"MnUtl/Rnk: {rng.randrange(55, 80) if slow else rng.randrange(93, 99)}%/{sr if slow else fast_r} | MxUtl/Rnk: 100%/{rng.randrange(self.W)} | "
                               f"MnClk/Rnk: {rng.randrange(990, 1300) if (th or (slow and self.variant == 'power')) else rng.randrange(1935, 1980)}MHz/{sr if slow else fast_r} | MxClk/Rnk: 1980MHz/{rng.randrange(self.W)} | "
                               f"MnDRtt/Rnk: {rng.uniform(9, 12):.2f}ms/{rng.randrange(self.W)} | MxDRtt/Rnk: {rng.uniform(12, 15):.2f}ms/{rng.randrange(self.W)} | "
                               f"MnEtpt/Rnk: {rng.uniform(90, 120) if slow else rng.uniform(190, 200):.2f}TF/{sr if slow else fast_r} | MxEtpt/Rnk: {rng.uniform(200, 206):.2f}TF/{rng.randrange(self.W)}"))
            else:
                med = base * rng.uniform(0.99, 1.01)
                out.append((t, f"{lt:%Y-%m-%d %H:%M:%S},{rng.randrange(1000):03d} INFO [perf] step {s} | fwd+bwd time min/med/max "
                               f"{mn / 1000:.3f}/{med / 1000:.3f}/{mx / 1000:.3f}s | slowest rank {sr} ({self.loghost(sr)}) | fastest rank {fast_r}"))
            if slow:
                self.mark("straggler report names the slow rank")
            s += every
        return out

    def rank_lines(self, r):
        if r in self._rl:
            return self._rl[r]
        o = self.outs[r]
        full = r in self.full_ranks
        L = []
        if self.W <= 16 or r in self.init_sample:
            L += self.startup(r)
            if self.nccl_debug and r not in self.init_shown:
                self.init_shown.append(r)
        if r == self.printer:
            stop = self.t_stop
            if o.kind not in ("ok",) and o.t is not None:
                stop = min(stop, o.t)
            if o.kind == "lost":
                stop = min(stop, self.t_fail)
            L += self.train_lines(stop)
            L += self.straggler_reports(stop)
        if r == self.c and getattr(self, "dl_warn", False):
            for k in range(self.rng.randrange(2, 5)):
                t = self.t_fail - timedelta(seconds=self.rng.randrange(30, 900))
                L.append((t, f"{self.lt(t):%Y-%m-%d %H:%M:%S} | WARNING | rank {r}: waited {self.rng.uniform(11, 95):.1f}s for next batch (prefetch queue empty)"))
        for (rk, t, text) in self.decoy_list:
            if rk == r and t < (o.t or self.t_end):
                L.append((t, text))
        for (t, p) in o.blocks:
            L.append((t, "\n".join(self.payload_lines(r, t, p, full))))
        if o.kind == "ok":
            L += self.healthy_tail(r, o.t)
        L.sort(key=lambda x: x[0])
        self._rl[r] = L
        return L

    def self_ident(self, r):
        """do the culprit's own error lines name its rank?"""
        if r != self.c:
            return False
        o = self.outs[r]
        txt = "\n".join("\n".join(self.payload_lines(r, t, p, True)) if not isinstance(p, tuple) else "" for (t, p) in o.blocks)
        return bool(re.search(rf"\b[Rr]ank {r}\b|\[rank{r}\]|Rank {r}\]", txt))

    def visible_ranks(self, cap=64):
        rng = self.rng
        if self.W <= cap:
            return list(range(self.W))
        s = {0, self.printer}
        if self.c is not None and not self.hide_c:
            s.add(self.c)
        if self.cn is not None:
            for r in [x for x in range(self.W) if self.rank_node[x] == self.cn][:self.G]:
                s.add(r)
        for r in rng.sample(range(self.W), 24):
            s.add(r)
        return sorted(s)

    def merge(self, ents):
        ents.sort(key=lambda e: (e[0], e[1]))
        out = []
        for t, k, pre, txt in ents:
            for line in txt.split("\n"):
                out.append(pre + line if line or not pre else pre.rstrip())
        return out

    def kernel_text(self, n, style):
        rng = self.rng
        h = self.hosts[n]
        ev = sorted(self.kern.get(n, []), key=lambda x: x[0])
        if not ev:
            return ""
        noise_t = ev[0][0] - timedelta(seconds=rng.randrange(300, 4000))
        noise = [(noise_t, "perf: interrupt took too long (2503 > 2500), lowering kernel.perf_event_max_sample_rate to 79750"),
                 (noise_t + timedelta(seconds=rng.randrange(10, 200)), f"IPv4: martian source 10.{rng.randrange(0, 255)}.0.1 from 10.{rng.randrange(0, 255)}.0.9, on dev eth0"),
                 (ev[-1][0] + timedelta(seconds=rng.randrange(30, 600)), "audit: type=1400 audit(0.0:412): apparmor=\"DENIED\" operation=\"open\" class=\"file\" profile=\"snap.lxd.lxc\" name=\"/etc/ssl/openssl.cnf\" pid=2211 comm=\"snap-exec\" requested_mask=\"r\" denied_mask=\"r\" fsuid=0 ouid=0")]
        ev = sorted(ev + noise, key=lambda x: x[0])
        boot = self.t0 - timedelta(days=rng.randrange(1, 40), seconds=rng.randrange(0, 80000))
        out = []
        for t, m in ev:
            lt = self.kt(n, t)
            if style == "dmesg-T":
                out.append(f"[{lt:%a %b %d %H:%M:%S %Y}] {m}")
            elif style == "journal":
                out.append(f"{lt:%b %d %H:%M:%S} {h} kernel: {m}")
            else:
                up = (t - boot).total_seconds() + self.skew.get(n, 0) + rng.randrange(0, 999999) / 1e6
                out.append(f"[{up:12.6f}] {m}")
        return "\n".join(out) + "\n"

    def write_kernel(self, n, prefix=""):
        if n in self.kern_shown:
            return
        rng = self.rng
        h = self.hosts[n]
        if getattr(self, "kern_src", "") == "console" and n == self.lost_node:
            style = "raw"
            txt = self.kernel_text(n, style)
            txt = (f"[-- SOL console capture via BMC, {h}, taken after the node stopped responding --]\n" + txt +
                   "[-- node unresponsive; power cycled by on-call --]\n")
            self.files[f"{prefix}console_{h}.log"] = txt
        else:
            style = rng.choice(["dmesg-T", "journal", "raw"])
            name = {"dmesg-T": f"dmesg_T_{h}.txt", "journal": f"journalctl_k_{h}.txt", "raw": f"dmesg_{h}.txt"}[style]
            self.files[prefix + name] = self.kernel_text(n, style)
        self.kern_shown.append(n)

    def write_extras(self, prefix=""):
        rng = self.rng
        for key in list(self.extras.keys()):
            n, txt = self.extras[key]
            h = self.hosts[n]
            if key == "nvidia-smi":
                self.files[f"{prefix}nvidia-smi_{h}.txt"] = f"[root@{h} ~]# nvidia-smi\n" + txt
            elif key == "nvidia-smi-ecc":
                self.files[f"{prefix}nvidia-smi-q-ecc_{h}.txt"] = f"$ nvidia-smi -q -d ECC,ROW_REMAPPER -i {self.gpu_of[self.c]}\n\n" + txt
            elif key == "nvidia-smi-perf":
                if rng.random() < 0.85:
                    self.files[f"{prefix}nvidia-smi-q-perf_{h}.txt"] = "$ nvidia-smi -q -d PERFORMANCE,CLOCK,TEMPERATURE\n\n" + txt
            elif key == "nvlink-status":
                self.files[f"{prefix}nvlink_status_{h}.txt"] = f"$ nvidia-smi nvlink --status -i {self.gpu_of[self.c]}\n" + txt
            elif key == "ibstat":
                if rng.random() < 0.75:
                    self.files[f"{prefix}ibstat_{h}.txt"] = txt
        if self.pyspy is not None:
            c = self.pyspy
            n = self.rank_node[c]
            self.files[f"{prefix}py-spy_dump_{self.loghost(c)}_{self.pids[c]}.txt"] = self.pyspy_text(c)

    def pyspy_text(self, c):
        rng = self.rng
        pid = self.pids[c]
        pv = rng.choice(["3.10.12", "3.11.9", "3.11.8", "3.12.3"])
        L = [f"Process {pid}: {self.tt.py} -u {self.script} --config configs/{self.jobname}.yaml",
             f"Python v{pv} ({self.tt.py}{pv[:4] if not self.tt.py.endswith('3') else ''})", ""]
        wd = self.workdir
        if self.cause == "data_loader_stall":
            L += [f'Thread {pid} (idle): "MainThread"', "    wait (threading.py:331)", "    get (queue.py:180)",
                  f"    _try_get_data (torch/utils/data/dataloader.py:{rng.choice([1133, 1146, 1251])})",
                  f"    _get_data (torch/utils/data/dataloader.py:{rng.choice([1284, 1297, 1430])})",
                  f"    _next_data (torch/utils/data/dataloader.py:{rng.choice([1329, 1344, 1465])})",
                  f"    __next__ (torch/utils/data/dataloader.py:{rng.choice([630, 701, 708])})",
                  f"    train ({self.script}:{rng.randrange(150, 300)})", f"    main ({self.script}:{rng.randrange(300, 380)})",
                  f"    <module> ({self.script}:{rng.randrange(380, 700)})"]
        elif self.hang_where == "ckpt_join":
            L += [f'Thread {pid} (idle): "MainThread"', "    _wait_for_tstate_lock (threading.py:1119)", "    join (threading.py:1096)",
                  f"    wait_until_finished (utils/async_ckpt.py:{rng.randrange(60, 120)})",
                  f"    save_checkpoint (utils/checkpoint.py:{rng.randrange(30, 90)})",
                  f"    train ({self.script}:{rng.randrange(150, 300)})", f"    main ({self.script}:{rng.randrange(300, 380)})",
                  f"    <module> ({self.script}:{rng.randrange(380, 700)})",
                  f'Thread {pid + rng.randrange(200, 900)} (idle): "ckpt-writer"', "    wait (threading.py:327)",
                  f"    _upload_shard (utils/async_ckpt.py:{rng.randrange(120, 200)})", "    run (threading.py:982)"]
        elif self.hang_where == "lock":
            L += [f'Thread {pid} (idle): "MainThread"', f"    acquire (utils/metrics.py:{rng.randrange(20, 80)})",
                  f"    log_scalar (utils/metrics.py:{rng.randrange(80, 140)})",
                  f"    train ({self.script}:{rng.randrange(150, 300)})", f"    main ({self.script}:{rng.randrange(300, 380)})",
                  f"    <module> ({self.script}:{rng.randrange(380, 700)})",
                  f'Thread {pid + rng.randrange(200, 900)} (idle): "metrics-flush"', f"    flush (utils/metrics.py:{rng.randrange(140, 200)})",
                  "    run (threading.py:982)"]
        else:
            L += [f'Thread {pid} (active): "MainThread"', f"    synchronize (torch/cuda/__init__.py:{rng.choice([792, 801, 954])})",
                  f"    _log_step_metrics (utils/metrics.py:{rng.randrange(20, 80)})",
                  f"    train ({self.script}:{rng.randrange(150, 300)})", f"    main ({self.script}:{rng.randrange(300, 380)})",
                  f"    <module> ({self.script}:{rng.randrange(380, 700)})"]
        L += [f'Thread {pid + rng.randrange(1000, 3000)} (idle): "Thread-2 (_pin_memory_loop)"', "    select (selectors.py:415)",
              "    wait (multiprocessing/connection.py:947)", "    _poll (multiprocessing/connection.py:440)",
              f"    do_one_step (torch/utils/data/_utils/pin_memory.py:{rng.choice([31, 32, 35])})", ""]
        return "\n".join(L)

    def check_mapping(self):
        """rank findable from a GPU PCI address / pid + the culprit's NCCL init line (text search)."""
        c = self.c
        if c is None:
            return
        alltxt = "\n".join(self.files.values())
        init = f" rank {c} nranks {self.W} cudaDev "
        has_init = init in alltxt
        pci = self.pci(c)
        bus = self.busid(c).rjust(5, "0").upper()
        smi_bus = f"00000000:{bus[:-3].rjust(2, '0')}:00.0"
        has_pci = (f"PCI:{pci}" in alltxt) or (smi_bus in alltxt) or (f"GPU{pci.upper()}" in alltxt)
        if has_init and has_pci:
            self.mark("GPU PCI address in kernel/nvidia-smi output matches the culprit's NCCL busId line")
        if self.pyspy is not None:
            pid_line = f":{self.pids[c]}:"
            if (has_init and pid_line in alltxt) or self.layout == "k8s_pytorchjob":
                self.mark("py-spy dump pid maps to the rank via NCCL init lines / pod")

    def check_missing(self):
        if self.c is None or self.cause not in ("hang", "data_loader_stall", "gpu_hardware"):
            return
        others = [r for r in range(self.W) if r != self.c]
        if all(r in self.wd_shown for r in others) and self.c not in self.wd_shown and self.W <= 64:
            self.mark("every rank but the culprit reports the watchdog timeout")

    # ================================================================== slurm
    def render_slurm_srun(self):
        self.render_slurm(False)

    def render_slurm_torchrun(self):
        self.render_slurm(True)

    def slurm_ts(self, t):
        return f"{self.st(t):%Y-%m-%dT%H:%M:%S}"

    def render_slurm(self, torchrun):
        rng = self.rng
        self.prep_render()
        jid = self.jobid
        self.slurm_ver = rng.choice(["20.11.9", "22.05.11", "23.02.7", "23.11.6", "24.05.3"])
        oldslurm = self.slurm_ver.startswith("20")
        label = rng.random() < 0.5
        W, N = self.W, self.N
        hosts = self.hosts
        h0 = hosts[0]
        ents = []
        k = [0]

        def add(t, pre, txt):
            ents.append((t, k[0], pre, txt))
            k[0] += 1

        vis = self.visible_ranks()
        tmode = None
        if torchrun:
            tmode = "rank" if self.tt.minor >= 3 else rng.choice(["default", "none"])
        wr = len(str(W - 1))
        wn = len(str(N - 1))

        def pref(r):
            p = ""
            if torchrun:
                if label:
                    p += f"{self.rank_node[r]:>{wn}}: "
                if tmode == "rank":
                    p += f"[rank{r}]:"
                elif tmode == "default":
                    p += f"[default{self.local[r]}]:"
            elif label:
                p += f"{r:>{wr}}: "
            return p

        # preamble
        t = self.t0 + timedelta(seconds=rng.uniform(1, 4))
        add(t, "", f"SLURM_JOB_ID={jid} SLURM_JOB_NODELIST={hostlist(hosts)} SLURM_NNODES={N}")
        add(t, "", f"MASTER_ADDR={h0} MASTER_PORT={rng.choice([29500, 29400, 6000, 12355])}")
        add(t, "", f"{self.st(t):%a %b %d %H:%M:%S} {self.tzname} {self.st(t):%Y}")
        if torchrun:
            add(t, "", f"+ srun {'-l ' if label else ''}torchrun --nnodes={N} --nproc_per_node={self.G} --rdzv_backend=c10d --rdzv_endpoint={h0}:29500 {'--tee 3 ' if tmode == 'default' else ''}{self.script} --config configs/{self.jobname}.yaml")
        else:
            add(t, "", f"+ srun {'-l ' if label else ''}{'--kill-on-bad-exit=1 ' if self.srun_kill else ''}python -u {self.script} --config configs/{self.jobname}.yaml")
        # ranks
        for r in vis:
            p = pref(r)
            for (tt, txt) in self.rank_lines(r):
                add(tt, p, txt)
            if r == self.c and self.outs[r].blocks and (p and (label or tmode == "rank")) and not torchrun:
                self.mark("srun label on the culprit's error lines")
            if r == self.c and self.outs[r].blocks and torchrun and tmode == "rank":
                self.mark("torchrun [rankN]: prefix on the culprit's error lines")
            if r == self.c and self.self_ident(r):
                self.mark("culprit's own error line names its rank")
        # launcher & scheduler lines
        if torchrun:
            self.torchrun_agents(add, label, wn, is_k8s=False)
            for n in sorted(self.agent_exit):
                ta = self.agent_exit[n]
                fails = [r for r in range(W) if self.rank_node[r] == n and self.outs[r].kind in ("exit", "sig")]
                if not fails or self.end in ("preempted", "timeout", "cancelled", "completed"):
                    continue
                ta2 = ta + timedelta(seconds=rng.uniform(0.1, 1.5))
                if self.cause == "host_oom_kill" and n == self.cn:
                    add(ta2, "", f"slurmstepd: error: Detected 1 oom_kill event in StepId={jid}.0. Some of the step tasks have been OOM Killed.")
                    add(ta2, "", f"srun: error: {hosts[n]}: task {n}: Out Of Memory")
                else:
                    add(ta2, "", f"srun: error: {hosts[n]}: task {n}: Exited with exit code 1")
        else:
            self.srun_task_lines(add, oldslurm)
        self.slurmstepd_lines(add, torchrun)
        # big jobs: people attach the tail of the file (cut well before the failure)
        if W > 64 and rng.random() < 0.6:
            ents.sort(key=lambda e: (e[0], e[1]))
            lim = self.t_fail - timedelta(minutes=15)
            pre = [i for i, e in enumerate(ents) if e[0] < lim]
            if len(pre) > 20:
                cut = pre[int(len(pre) * rng.uniform(0.4, 0.9))]
                head = ents[cut]
                ents = [(head[0], head[1], "", head[3][rng.randrange(0, max(1, len(head[3]) // 2)):])] + ents[cut + 1:]
                self.notes.append("slurm output is a tail of the real file")
        lines = self.merge(ents)
        # the batch host died -> nothing after the node failure
        if self.end == "node_fail" and self.lost_node == 0:
            self.notes.append("batch host itself failed: slurm-%j.out just stops")
        self.files[f"slurm-{jid}.out"] = "\n".join(lines) + "\n"
        # scheduler-side files
        self.slurm_sched_files(torchrun)
        # kernel + extras
        for n in sorted(self.kern.keys()):
            p = 0.85 if n == self.cn else (0.95 if self.healthy else 0.7)
            if self.end == "node_fail" and n == self.lost_node:
                p = 0.6
            if rng.random() < p:
                self.write_kernel(n)
        self.write_extras()
        self.check_mapping()
        self.check_missing()

    def srun_status(self, o, r):
        if o.kind == "exit":
            return f"Exited with exit code {o.code}"
        if o.kind == "sig":
            if o.sig == 9 and self.cause == "host_oom_kill":
                return "Out Of Memory"
            core = o.sig in (6, 11, 7, 4) and self.core_dumps
            return SIGDESC[o.sig] + (" (core dumped)" if core else "")
        if o.kind == "term":
            return "Terminated"
        return "Killed"

    def srun_task_lines(self, add, oldslurm):
        rng = self.rng
        jid = self.jobid
        outs = self.outs
        self.core_dumps = rng.random() < 0.6
        step = f"StepId={jid}.0" if not oldslurm else f"job step {jid}.0"
        ev = sorted([(o.t, r) for r, o in enumerate(outs) if o.kind in ("exit", "sig", "term") and o.t is not None],
                    key=lambda x: (x[0], x[1]))
        if not ev or self.end in ("preempted", "timeout", "cancelled"):
            return
        # group: same status on same node reported within 2 s
        groups = []
        for t, r in ev:
            st = self.srun_status(outs[r], r)
            n = self.rank_node[r]
            for g in groups:
                if g[1] == n and g[2] == st and (t - g[0]).total_seconds() < 2.0:
                    g[3].append(r)
                    break
            else:
                groups.append([t, n, st, [r]])
        first = True
        for t, n, st, rs in groups:
            tt = t + timedelta(seconds=rng.uniform(0.05, 0.6))
            if self.cause == "host_oom_kill" and first and self.c in rs:
                msg = (f"slurmstepd: error: Detected 1 oom_kill event in StepId={jid}.0. Some of the step tasks have been OOM Killed."
                       if not oldslurm else f"slurmstepd: error: Detected 1 oom-kill event(s) in step {jid}.0 cgroup. Some of your processes may have been killed by the cgroup out-of-memory handler.")
                add(tt, "", msg)
            nm = "task" if len(rs) == 1 else "tasks"
            add(tt, "", f"srun: error: {self.hosts[n]}: {nm} {ranges(rs)}: {st}")
            if self.c is not None and self.c in rs and st != "Terminated" and len(rs) <= 2:
                self.mark("srun names the culprit task (task id = rank)")
            if first and self.srun_kill and st != "Terminated":
                add(tt + timedelta(milliseconds=5), "", f"srun: Terminating {step}")
                add(tt + timedelta(milliseconds=40), "", f"slurmstepd: error: *** STEP {jid}.0 ON {self.hosts[0]} CANCELLED AT {self.slurm_ts(tt)} ***")
            first = False
        if self.srun_kill:
            add(ev[-1][0] + timedelta(seconds=1), "", f"srun: Force Terminated {step}" if not oldslurm else f"srun: Force Terminated job step {jid}.0")

    def slurmstepd_lines(self, add, torchrun):
        rng = self.rng
        jid = self.jobid
        h0 = self.hosts[0]
        te = self.t_end
        if self.end == "node_fail" and self.lost_node == 0:
            return
        if self.end == "timeout":
            add(te, "", f"slurmstepd: error: *** JOB {jid} ON {h0} CANCELLED AT {self.slurm_ts(te)} DUE TO TIME LIMIT ***")
            add(te, "", f"slurmstepd: error: *** STEP {jid}.0 ON {h0} CANCELLED AT {self.slurm_ts(te)} DUE TO TIME LIMIT ***")
            add(te + timedelta(seconds=1), "", "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.")
        elif self.end == "cancelled":
            add(te, "", f"slurmstepd: error: *** JOB {jid} ON {h0} CANCELLED AT {self.slurm_ts(te)} ***")
            add(te, "", f"slurmstepd: error: *** STEP {jid}.0 ON {h0} CANCELLED AT {self.slurm_ts(te)} ***")
            add(te + timedelta(seconds=1), "", "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.")
        elif self.end == "preempted":
            tp = self.t_fail
            add(tp, "", f"slurmstepd: error: *** JOB {jid} ON {h0} CANCELLED AT {self.slurm_ts(tp)} DUE TO PREEMPTION ***")
            add(tp, "", f"slurmstepd: error: *** STEP {jid}.0 ON {h0} CANCELLED AT {self.slurm_ts(tp)} DUE TO PREEMPTION ***")
            add(tp + timedelta(seconds=1), "", "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.")
            add(tp + timedelta(seconds=2), "", "srun: got SIGCONT")
            add(tp + timedelta(seconds=2), "", "srun: forcing job termination")
        elif self.end == "node_fail":
            tn = te - timedelta(seconds=rng.randrange(2, 30))
            add(tn, "", f"srun: error: Node failure on {self.hosts[self.lost_node]}")
            add(te, "", f"slurmstepd: error: *** JOB {jid} ON {h0} CANCELLED AT {self.slurm_ts(te)} DUE TO NODE FAILURE, SEE SLURMCTLD LOG FOR DETAILS ***")
            add(te + timedelta(seconds=1), "", "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.")
        elif self.end == "completed":
            add(te + timedelta(seconds=2), "", f"{self.st(te):%a %b %d %H:%M:%S} {self.tzname} {self.st(te):%Y}")
            add(te + timedelta(seconds=2), "", "done.")

    def torchrun_agents(self, add, label, wn, is_k8s, node_filter=None):
        """torchrun elastic agent output, one per node (or per pod)."""
        rng = self.rng
        tt = self.tt
        outs = self.outs
        apid = {n: rng.randrange(3000, 99000) for n in range(self.NN)}
        mod_run = "torch.distributed.run"
        mod_api = "torch.distributed.elastic.multiprocessing.api"
        site = tt.site
        # agent exit times and srun-kill propagation
        first_fail = {}
        for n in range(self.NN):
            rs = [r for r in range(self.W) if self.rank_node[r] == n]
            f = sorted([(outs[r].t, r) for r in rs if outs[r].kind in ("exit", "sig") and outs[r].t], key=lambda x: (x[0], x[1]))
            if f:
                first_fail[n] = f
        for n in range(self.NN):
            if node_filter is not None and n != node_filter:
                continue
            pre = f"{n:>{wn}}: " if label else ""
            rs = [r for r in range(self.W) if self.rank_node[r] == n]
            t = self.t0 + timedelta(seconds=rng.uniform(8, 20))
            lines = ["", "*****************************************",
                     "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. ",
                     "*****************************************"]
            if tt.minor >= 2:
                for x in lines:
                    add(t, pre, tt.elastic("W", self.lt(t), mod_run, tt.L_runw, x, apid[n]))
            else:
                add(t, pre, "WARNING:torch.distributed.run:" + "\n".join(lines))
            if tt.minor <= 3 and rng.random() < 0.5:
                add(t, pre, "[W socket.cpp:464] [c10d] The server socket cannot be initialized on [::]:29500 (errno: 97 - Address family not supported by protocol).")
            if self.lost_node == n:
                continue
            if self.end in ("preempted",) or (self.end == "spot" and n == self.spot_node):
                tp = self.t_fail + timedelta(seconds=rng.uniform(0, 1))
                self.agent_sigterm(add, pre, tp, n, rs, apid[n])
                continue
            if self.end in ("completed", "timeout", "cancelled") and n not in first_fail:
                if self.end != "completed":
                    self.agent_sigterm(add, pre, self.t_end, n, rs, apid[n])
                continue
            if n not in first_fail:
                te = max([outs[r].t for r in rs if outs[r].t] + [self.t_end])
                self.agent_sigterm(add, pre, te, n, rs, apid[n])
                continue
            f = first_fail[n]
            t_first, r0 = f[0]
            terms = [r for r in rs if outs[r].kind == "term"]
            for r in terms:
                add(outs[r].t - timedelta(milliseconds=50), pre,
                    tt.elastic("W", self.lt(outs[r].t), mod_api, tt.L_send, f"Sending process {self.pids[r]} closing signal SIGTERM", apid[n]))
            ta = max([outs[r].t for r in rs if outs[r].t] + [t_first]) + timedelta(seconds=rng.uniform(0.3, 3))
            o0 = outs[r0]
            code = o0.code if o0.kind == "exit" else -o0.sig
            hdr = f"failed (exitcode: {code}) local_rank: {self.local[r0]} (pid: {self.pids[r0]}) of binary: {tt.py}"
            add(ta, pre, tt.elastic("E", self.lt(ta), mod_api, tt.L_fail, hdr, apid[n]))
            tb = ["Traceback (most recent call last):",
                  f'  File "{os.path.dirname(os.path.dirname(os.path.dirname(site)))}/bin/torchrun", line 8, in <module>',
                  "    sys.exit(main())",
                  f'  File "{site}/torch/distributed/elastic/multiprocessing/errors/__init__.py", line {rng.choice([346, 348, 355])}, in wrapper',
                  "    return f(*args, **kwargs)",
                  f'  File "{site}/torch/distributed/run.py", line {rng.choice([812, 879, 892, 919])}, in main', "    run(args)",
                  f'  File "{site}/torch/distributed/run.py", line {rng.choice([803, 870, 883, 910])}, in run', "    elastic_launch(",
                  f'  File "{site}/torch/distributed/launcher/api.py", line {rng.choice([133, 138, 143])}, in __call__',
                  "    return launch_agent(self._config, self._entrypoint, list(args))",
                  f'  File "{site}/torch/distributed/launcher/api.py", line {rng.choice([268, 269, 277])}, in launch_agent',
                  "    raise ChildFailedError(", "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
                  "============================================================", f"{self.script} FAILED",
                  "------------------------------------------------------------", "Failures:"]
            others = [x for x in f[1:]] + [(outs[r].t, r) for r in terms]
            if not others:
                tb.append("  <NO_OTHER_FAILURES>")
            host_str = self.loghost(r0) + (self.domain if (self.domain and self.fq_in_logs) else "")
            if is_k8s and rng.random() < 0.5:
                host_str = self.loghost(r0) + f".{self.jobname}.{self.ns}.svc.cluster.local"
            for i, (tx, r) in enumerate(others[:6]):
                ox = outs[r]
                cx = ox.code if ox.kind == "exit" else -ox.sig if ox.kind == "sig" else -15
                tb += [f"[{i + 1}]:", f"  time      : {self.lt(tx):%Y-%m-%d_%H:%M:%S}", f"  host      : {host_str}",
                       f"  rank      : {r} (local_rank: {self.local[r]})", f"  exitcode  : {cx} (pid: {self.pids[r]})",
                       "  error_file: <N/A>",
                       f"  traceback : Signal {-cx} ({SIGNAMES.get(-cx, 'SIG')}) received by PID {self.pids[r]}" if cx < 0 else
                       "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"]
            tb += ["------------------------------------------------------------", "Root Cause (first observed failure):", "[0]:",
                   f"  time      : {self.lt(t_first):%Y-%m-%d_%H:%M:%S}", f"  host      : {host_str}",
                   f"  rank      : {r0} (local_rank: {self.local[r0]})", f"  exitcode  : {code} (pid: {self.pids[r0]})",
                   "  error_file: <N/A>",
                   f"  traceback : Signal {-code} ({SIGNAMES.get(-code, 'SIG')}) received by PID {self.pids[r0]}" if code < 0 else
                   "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html",
                   "============================================================"]
            add(ta + timedelta(milliseconds=3), pre, "\n".join(tb))
            self.agent_exit[n] = ta
            if r0 == self.c:
                self.mark("torchrun root-cause block names the culprit rank")

    def agent_sigterm(self, add, pre, t, n, rs, apid):
        tt = self.tt
        rng = self.rng
        mod_agent = "torch.distributed.elastic.agent.server.api"
        mod_api = "torch.distributed.elastic.multiprocessing.api"
        add(t, pre, tt.elastic("W", self.lt(t), mod_agent, tt.L_agent, "Received Signals.SIGTERM death signal, shutting down workers", apid))
        for r in rs[:8]:
            add(t, pre, tt.elastic("W", self.lt(t), mod_api, tt.L_send, f"Sending process {self.pids[r]} closing signal SIGTERM", apid))
        site = tt.site
        tb = ["Traceback (most recent call last):",
              f'  File "{site}/torch/distributed/elastic/agent/server/api.py", line {rng.choice([870, 889, 696])}, in _invoke_run',
              "    time.sleep(monitor_interval)",
              f'  File "{site}/torch/distributed/elastic/multiprocessing/api.py", line {rng.choice([62, 79, 84])}, in _terminate_process_handler',
              "    raise SignalException(f\"Process {os.getpid()} got signal: {sigval}\", sigval=sigval)",
              f"torch.distributed.elastic.multiprocessing.api.SignalException: Process {apid} got signal: 15"]
        add(t + timedelta(seconds=rng.uniform(1, 6)), pre, "\n".join(tb))
        self.agent_exit[n] = t

    # ---------------------------------------------------------------- slurm scheduler view
    def slurm_states(self):
        e = self.end
        uid = 10000 + self.idx * 7
        if e == "completed":
            return ("COMPLETED", "0:0"), ("COMPLETED", "0:0"), ("COMPLETED", "0:0")
        if e == "oom":
            return ("OUT_OF_MEMORY", "0:125"), ("OUT_OF_MEMORY", "0:125"), ("OUT_OF_MEMORY", "0:125")
        if e == "timeout":
            return ("TIMEOUT", "0:0"), ("CANCELLED", "0:15"), ("CANCELLED", "0:15")
        if e == "cancelled":
            return (f"CANCELLED by {uid}", "0:0"), ("CANCELLED", "0:15"), ("CANCELLED", "0:15")
        if e == "preempted":
            return ("PREEMPTED", "0:0"), ("CANCELLED", "0:15"), ("CANCELLED", "0:15")
        if e == "node_fail":
            b = ("NODE_FAIL", "0:0") if self.lost_node == 0 else ("CANCELLED", "0:15")
            return ("NODE_FAIL", "0:0"), b, ("CANCELLED", "0:15")
        exits = [o for o in self.outs if o.kind == "exit"]
        if exits or self.layout == "slurm_torchrun":
            code = 1
        else:
            sigs = sorted([o for o in self.outs if o.kind == "sig"], key=lambda o: o.t)
            code = 128 + (sigs[0].sig if sigs else 15)
        return ("FAILED", f"{code}:0"), ("FAILED", f"{code}:0"), ("FAILED", f"{code}:0")

    def sacct_text(self, torchrun):
        rng = self.rng
        jid = self.jobid
        wide = rng.random() < 0.4
        fields = ["JobID", "JobName", "State", "ExitCode", "NodeList", "Elapsed"]
        widths = [12, 10, 10, 8, 15, 10]
        cmd = "sacct -j {} --format=JobID,JobName,State,ExitCode,NodeList,Elapsed".format(jid)
        if wide:
            widths = [20, 12, 20, 8, 40, 10]
            cmd = "sacct -j {} --format=JobID%20,JobName%12,State%20,ExitCode,NodeList%40,Elapsed".format(jid)
        J, B, S = self.slurm_states()
        hl = hostlist(self.hosts)
        el = (self.t_end - self.t0).total_seconds()
        rows = [(jid, self.jobname, J[0], J[1], hl, elapsed(el)),
                (f"{jid}.batch", "batch", B[0], B[1], self.hosts[0], elapsed(el)),
                (f"{jid}.extern", "extern", "COMPLETED" if self.end != "node_fail" else "CANCELLED", "0:0", hl, elapsed(el))]
        sname = "torchrun" if torchrun else "python"
        if self.healthy and rng.random() < 0.6:
            if rng.random() < 0.5:
                rows.append((f"{jid}.0", "nvidia-smi", "COMPLETED", "0:0", hl, "00:00:03"))
            else:
                rows.append((f"{jid}.0", "bash", "FAILED", "2:0", hl, "00:00:01"))
                self.notes.append("decoy: an earlier helper step (bash) FAILED 2:0, the training step completed")
            rows.append((f"{jid}.1", sname, S[0], S[1], hl, elapsed(el - 12)))
        else:
            rows.append((f"{jid}.0", sname, S[0], S[1], hl, elapsed(el - rng.randrange(5, 30))))

        def cell(s, w, left):
            s = str(s)
            if len(s) > w:
                s = s[:w - 1] + "+"
            return s.ljust(w) if left else s.rjust(w)
        out = [f"$ {cmd}", " ".join(cell(f, w, False) for f, w in zip(fields, widths)) + " ",
               " ".join("-" * w for w in widths) + " "]
        for row in rows:
            out.append(" ".join(cell(v, w, i == 0) for i, (v, w) in enumerate(zip(row, widths))) + " ")
        return "\n".join(out) + "\n"

    def slurm_sched_files(self, torchrun):
        rng = self.rng
        jid = self.jobid
        uid = 10000 + self.idx * 7
        self.files["sacct.txt"] = self.sacct_text(torchrun)
        J, B, S = self.slurm_states()
        reason = {"FAILED": "NonZeroExitCode", "TIMEOUT": "TimeLimit", "NODE_FAIL": "NodeDown", "OUT_OF_MEMORY": "OutOfMemory"}.get(J[0], "None")
        partition = rng.choice(["gpu", "batch", "h100", "a100", "main"])
        ncpu = self.N * rng.choice([112, 128, 192, 224])
        if rng.random() < 0.65:
            st = J[0].split(" ")[0]
            ts = (lambda t: f"{self.st(t):%Y-%m-%dT%H:%M:%S}")
            sub = self.t0 - timedelta(seconds=rng.randrange(30, 7200))
            txt = [f"JobId={jid} JobName={self.jobname}",
                   f"   UserId={self.user}({uid}) GroupId={self.user}({uid}) MCS_label=N/A",
                   f"   Priority={rng.randrange(1000, 4294901)} Nice=0 Account={rng.choice(['llm', 'vision', 'research', 'ml-infra'])} QOS={rng.choice(['normal', 'high', 'lowprio'])}",
                   f"   JobState={st} Reason={reason} Dependency=(null)",
                   f"   Requeue={1 if self.end == 'preempted' else 0} Restarts=0 BatchFlag=1 Reboot=0 ExitCode={J[1]}",
                   f"   RunTime={elapsed((self.t_end - self.t0).total_seconds())} TimeLimit={elapsed(self.limit_h * 3600)} TimeMin=N/A",
                   f"   SubmitTime={ts(sub)} EligibleTime={ts(sub)}",
                   f"   AccrueTime={ts(sub)}",
                   f"   StartTime={ts(self.t0)} EndTime={ts(self.t_end)} Deadline=N/A",
                   f"   SuspendTime=None SecsPreSuspend=0 LastSchedEval={ts(self.t0)} Scheduler=Main",
                   f"   Partition={partition} AllocNode:Sid=login0{rng.randrange(1, 4)}:{rng.randrange(10000, 99999)}",
                   "   ReqNodeList=(null) ExcNodeList=(null)",
                   f"   NodeList={hostlist(self.hosts)}",
                   f"   BatchHost={self.hosts[0]}",
                   f"   NumNodes={self.N} NumCPUs={ncpu} NumTasks={self.N if torchrun else self.W} CPUs/Task={ncpu // (self.N if torchrun else self.W)} ReqB:S:C:T=0:0:*:*",
                   f"   ReqTRES=cpu={ncpu},mem={self.N * 1800}G,node={self.N},billing={ncpu},gres/gpu={self.W}",
                   f"   AllocTRES=cpu={ncpu},mem={self.N * 1800}G,node={self.N},billing={ncpu},gres/gpu={self.W}",
                   f"   Socks/Node=* NtasksPerN:B:S:C={1 if torchrun else self.G}:0:*:* CoreSpec=*",
                   f"   MinCPUsNode={ncpu // self.N} MinMemoryNode=1800G MinTmpDiskNode=0",
                   "   Features=(null) DelayBoot=00:00:00",
                   "   OverSubscribe=NO Contiguous=0 Licenses=(null) Network=(null)",
                   f"   Command={self.workdir}/run_{self.jobname}.sbatch",
                   f"   WorkDir={self.workdir}",
                   f"   StdErr={self.workdir}/logs/slurm-{jid}.out",
                   "   StdIn=/dev/null",
                   f"   StdOut={self.workdir}/logs/slurm-{jid}.out",
                   f"   TresPerNode=gres/gpu:{self.G}", ""]
            self.files[f"scontrol_show_job_{jid}.txt"] = "\n".join(txt)
        # sinfo -R
        drained = []
        for n, (rs, t, u) in self.drain.items():
            rr = rs
            if self.end == "node_fail" and hasattr(self, "drain_admin") and rng.random() < 0.6:
                rr, t, u = self.drain_admin
            drained.append((rr, u, t, self.hosts[n]))
        dec_reasons = ["Kill task failed", "xid48 pending RMA", "NHC: check_fs_mount: /lustre not mounted", "reboot ASAP",
                       "gres/gpu count reported lower than configured (7 < 8)", "Not responding", "bad ib cable - ticket 4471"]
        for _ in range(rng.randrange(1, 4)):
            dn = hostlist([self.hosts[0][:-2] + f"{rng.randrange(10, 99)}" if self.hosts[0][-2:].isdigit() else self.hosts[0] + "x"])
            if dn in self.hosts:
                continue
            drained.append((rng.choice(dec_reasons), rng.choice(["root", "slurm"]), self.t0 - timedelta(days=rng.randrange(1, 30), seconds=rng.randrange(0, 80000)), dn))
        if drained and (self.drain or rng.random() < 0.45):
            out = ["$ sinfo -R", f"{'REASON':<20} {'USER':<9} {'TIMESTAMP':<19} NODELIST"]
            for rr, u, t, nl in sorted(drained, key=lambda x: x[3]):
                out.append(f"{rr[:20]:<20} {u:<9} {self.st(t):%Y-%m-%dT%H:%M:%S} {nl}")
            self.files["sinfo_R.txt"] = "\n".join(out) + "\n"
        for n, (rs, t, u) in self.drain.items():
            if rng.random() < 0.75:
                self.files[f"scontrol_show_node_{self.hosts[n]}.txt"] = self.scontrol_node(n, rs, t, u)
        if self.end == "oom" or rng.random() < 0.35:
            self.files[f"seff_{jid}.txt"] = self.seff_text(J)
        if self.end in ("node_fail", "preempted") or self.drain or rng.random() < 0.45:
            self.files["slurmctld.log"] = self.slurmctld_text(J)

    def scontrol_node(self, n, reason, t, u):
        rng = self.rng
        h = self.hosts[n]
        if self.end == "node_fail" and n == self.lost_node:
            state = "DOWN+DRAIN+NOT_RESPONDING" if rng.random() < 0.5 else "DOWN*+DRAIN"
            if hasattr(self, "drain_admin"):
                reason, t, u = self.drain_admin
        else:
            state = rng.choice(["IDLE+DRAIN", "DRAINED", "IDLE+DRAIN"]) if self.slurm_ver >= "23" else "IDLE+DRAIN"
        cpus = rng.choice([128, 192, 224])
        return "\n".join([
            f"NodeName={h} Arch=x86_64 CoresPerSocket={cpus // 4}",
            f"   CPUAlloc=0 CPUEfctv={cpus} CPUTot={cpus} CPULoad={rng.uniform(0, 3):.2f}",
            f"   AvailableFeatures={self.gpu.split('x')[0]},ib", f"   ActiveFeatures={self.gpu.split('x')[0]},ib",
            f"   Gres=gpu:{self.gpu.split('x')[0]}:{self.G}(S:0-1)",
            f"   NodeAddr={h} NodeHostName={h} Version={self.slurm_ver}",
            "   OS=Linux 5.15.0-105-generic #115-Ubuntu SMP Mon Apr 15 09:52:04 UTC 2024 ",
            f"   RealMemory=2000000 AllocMem=0 FreeMem={rng.randrange(1800000, 1990000)} Sockets=2 Boards=1",
            f"   State={state} ThreadsPerCore=2 TmpDisk=0 Weight=1 Owner=N/A MCS_label=N/A",
            "   Partitions=gpu ",
            f"   BootTime={self.st(self.t0 - timedelta(days=rng.randrange(2, 40))):%Y-%m-%dT%H:%M:%S} SlurmdStartTime={self.st(self.t0 - timedelta(days=1)):%Y-%m-%dT%H:%M:%S}",
            f"   LastBusyTime={self.st(self.t_end):%Y-%m-%dT%H:%M:%S} ResumeAfterTime=None",
            f"   CfgTRES=cpu={cpus},mem=2000000M,billing={cpus},gres/gpu={self.G}",
            "   AllocTRES=", "   CapWatts=n/a", "   CurrentWatts=0 AveWatts=0",
            "   ExtSensorsJoules=n/a ExtSensorsWatts=0 ExtSensorsTemp=n/a",
            f"   Reason={reason} [{u}@{self.st(t):%Y-%m-%dT%H:%M:%S}]", ""])

    def seff_text(self, J):
        rng = self.rng
        el = (self.t_end - self.t0).total_seconds()
        cores = self.N * rng.choice([112, 128])
        mem_node = rng.choice([500, 1000, 1800])
        eff = rng.uniform(99.1, 100.0) if self.end == "oom" else rng.uniform(8, 45)
        used = mem_node * self.N * eff / 100
        st = J[0].split(" ")[0]
        return "\n".join([f"$ seff {self.jobid}", f"Job ID: {self.jobid}", f"Cluster: {rng.choice(['hpc', 'ml', 'cluster1'])}",
                          f"User/Group: {self.user}/{self.user}", f"State: {st} (exit code {J[1].split(':')[0]})",
                          f"Nodes: {self.N}", f"Cores per node: {cores // self.N}",
                          f"CPU Utilized: {elapsed(el * cores * rng.uniform(0.05, 0.2))}",
                          f"CPU Efficiency: {rng.uniform(5, 20):.2f}% of {elapsed(el * cores)} core-walltime",
                          f"Job Wall-clock time: {elapsed(el)}",
                          f"Memory Utilized: {used / 1000:.2f} TB (estimated maximum)" if used > 1000 else f"Memory Utilized: {used:.2f} GB (estimated maximum)",
                          f"Memory Efficiency: {eff:.2f}% of {mem_node * self.N / 1000:.2f} TB ({mem_node:.2f} GB/node)" if mem_node * self.N >= 1000 else
                          f"Memory Efficiency: {eff:.2f}% of {mem_node * self.N:.2f} GB ({mem_node:.2f} GB/node)", ""])

    def slurmctld_text(self, J):
        rng = self.rng
        jid = self.jobid
        L = []

        def ln(t, m):
            L.append((t, f"[{self.st(t):%Y-%m-%dT%H:%M:%S}.{rng.randrange(1000):03d}] {m}"))
        ncpu = self.N * 128
        ln(self.t0, f"sched: Allocate JobId={jid} NodeList={hostlist(self.hosts)} #CPUs={ncpu} Partition=gpu")
        if self.end == "node_fail":
            h = self.hosts[self.lost_node]
            ln(self.t_fail + timedelta(seconds=rng.randrange(60, 120)), f"error: Nodes {h} not responding")
            ln(self.t_end - timedelta(seconds=1), f"error: Nodes {h} not responding, setting DOWN")
            ln(self.t_end, f"Killing JobId={jid} on failed node {h}")
            ln(self.t_end + timedelta(seconds=1), f"_job_complete: JobId={jid} WTERMSIG 9")
            ln(self.t_end + timedelta(seconds=1), f"_job_complete: JobId={jid} done")
        elif self.end == "preempted":
            other = int(jid) + rng.randrange(50, 900)
            how = rng.choice(["requeued", "killed"])
            ln(self.t_fail, f"preempted JobId={jid} has been {how} to reclaim resources for JobId={other}")
            ln(self.t_end, f"_job_complete: JobId={jid} WTERMSIG 15")
            ln(self.t_end, f"_job_complete: JobId={jid} done")
            if how == "requeued":
                ln(self.t_end + timedelta(seconds=2), f"Requeuing JobId={jid}")
        elif self.end == "timeout":
            ln(self.t_end, f"Time limit exhausted for JobId={jid}")
            ln(self.t_end + timedelta(seconds=rng.randrange(1, 40)), f"_job_complete: JobId={jid} WTERMSIG 15")
            ln(self.t_end + timedelta(seconds=rng.randrange(40, 60)), f"_job_complete: JobId={jid} done")
        elif self.end == "cancelled":
            ln(self.t_end, f"_slurm_rpc_kill_job: REQUEST_KILL_JOB JobId={jid} uid {10000 + self.idx * 7}")
            ln(self.t_end + timedelta(seconds=1), f"_job_complete: JobId={jid} WTERMSIG 15")
        elif self.end == "oom":
            ln(self.t_end, f"_job_complete: JobId={jid} OOM failure")
            ln(self.t_end, f"_job_complete: JobId={jid} done")
        else:
            ln(self.t_end, f"_job_complete: JobId={jid} WEXITSTATUS {J[1].split(':')[0]}")
            ln(self.t_end, f"_job_complete: JobId={jid} done")
        for n, (rs, t, u) in self.drain.items():
            h = self.hosts[n]
            if self.end == "node_fail" and n == self.lost_node:
                if hasattr(self, "drain_admin"):
                    rr, ta, ua = self.drain_admin
                    ln(ta, f"update_node: node {h} reason set to: {rr}")
                    ln(ta, f"update_node: node {h} state set to DRAINED")
                continue
            ln(t, f"update_node: node {h} reason set to: {rs}")
            ln(t, f"update_node: node {h} state set to DRAINING")
            ln(max(t, self.t_end) + timedelta(seconds=2), f"update_node: node {h} state set to DRAINED" if rng.random() < 0.5 else f"Node {h} now responding")
        # unrelated noise
        for _ in range(rng.randrange(2, 6)):
            tx = self.t0 + (self.t_end - self.t0) * rng.random()
            ln(tx, rng.choice([f"sched: Allocate JobId={int(jid) + rng.randrange(1, 400)} NodeList=cpu{rng.randrange(100, 400)} #CPUs=64 Partition=cpu",
                               f"_job_complete: JobId={int(jid) - rng.randrange(1, 400)} WEXITSTATUS 0",
                               "error: slurm_receive_msg [10.0.0.12:51234]: Zero Bytes were transmitted or received",
                               f"_slurm_rpc_submit_batch_job: JobId={int(jid) + rng.randrange(400, 900)} InitPrio=4294901 usec=1412"]))
        L.sort(key=lambda x: x[0])
        return f"$ grep -E '{jid}|{'|'.join(self.hosts[n] for n in self.drain) or hostlist(self.hosts)}' /var/log/slurm/slurmctld.log\n" + "\n".join(x[1] for x in L) + "\n"

    # ================================================================== kubernetes
    def k8s_prep(self):
        rng = self.rng
        last = max([self.t_end] + [t for (rs, t, u) in self.drain.values()])
        self.t_cap = last + timedelta(seconds=rng.randrange(150, 2400))
        self.t_create = self.t0 - timedelta(seconds=rng.randrange(20, 120))
        self.image = rng.choice(["nvcr.io/nvidia/pytorch:24.05-py3", "us-docker.pkg.dev/ml-prod/train/llm-trainer:2024.11.2",
                                 "ghcr.io/acme-ai/trainer:v0.9.3", f"{rng.randrange(100000000000, 999999999999)}.dkr.ecr.us-west-2.amazonaws.com/train:{hexs(rng, 7)}"])
        self.pod_ips = [f"10.{rng.randrange(4, 120)}.{rng.randrange(0, 255)}.{rng.randrange(2, 254)}" for _ in range(len(self.podnames))]
        fl = getattr(self, "k8s_flavor", "onprem")
        self.kver = {"gke": rng.choice(["v1.28.9-gke.1289000", "v1.29.6-gke.1326000", "v1.30.5-gke.1443001"]),
                     "eks": rng.choice(["v1.29.3-eks-ae9a62a", "v1.30.4-eks-a737599"]),
                     "aks": rng.choice(["v1.28.9", "v1.29.7"]), "onprem": rng.choice(["v1.27.13", "v1.29.6", "v1.30.2"])}[fl]
        self.kkern = {"gke": ("6.1.85+", "Container-Optimized OS from Google"), "eks": ("6.1.112-122.189.amzn2023.x86_64", "Amazon Linux 2023.5.20240916"),
                      "aks": ("5.15.0-1068-azure", "Ubuntu 22.04.4 LTS"), "onprem": ("5.15.0-105-generic", "Ubuntu 22.04.4 LTS")}[fl]
        self.cont = "pytorch" if self.layout == "k8s_pytorchjob" else rng.choice(["trainer", "main", "pytorch"])
        self.restart_policy = "Never" if rng.random() < 0.7 else "OnFailure"
        self.kevents = []

    def kev(self, t, typ, reason, obj, msg):
        self.kevents.append((t, typ, reason, obj, msg))

    def events_text(self):
        ttl = self.t_cap - timedelta(hours=1)
        ev = sorted([e for e in self.kevents if e[0] >= ttl and e[0] <= self.t_cap], key=lambda e: e[0])
        allns = self.rng.random() < 0.6
        rows = [(("NAMESPACE",) if allns else ()) + ("LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE")]
        for t, typ, reason, obj, msg in ev:
            if obj.startswith("node/") and not allns:
                continue
            ns = ("default",) if obj.startswith("node/") else (self.ns,)
            rows.append((ns if allns else ()) + (k8s_age((self.t_cap - t).total_seconds()), typ, reason, obj, msg))
        hdr = f"$ kubectl get events {'-A' if allns else '-n ' + self.ns} --sort-by=.lastTimestamp\n"
        if len(rows) == 1:
            return hdr + ("No resources found\n" if allns else f"No resources found in {self.ns} namespace.\n")
        return hdr + table(rows) + "\n"

    def pod_status(self, o):
        """(STATUS column, exit code, container reason, phase)"""
        if o.kind == "ok":
            return "Completed", 0, "Completed", "Succeeded"
        if o.kind == "alive":
            return "Running", None, None, "Running"
        if o.kind == "lost":
            return "Terminating", None, None, "Running"
        if o.kind == "exit":
            if self.cause == "host_oom_kill" and self.variant == "worker" and o is self.c_out:
                return "OOMKilled", o.code, "OOMKilled", "Failed"
            return "Error", o.code, "Error", "Failed"
        if o.kind == "sig":
            if o.sig == 9 and self.cause == "host_oom_kill":
                return "OOMKilled", 137, "OOMKilled", "Failed"
            return "Error", 128 + o.sig, "Error", "Failed"
        if o.kind == "term":
            if self.end == "spot" and self.variant == "spot":
                return "Terminated", 143, "Error", "Failed"
            return "Error", 143, "Error", "Failed"
        return "Unknown", None, None, "Unknown"

    def describe_pod(self, pi, o, node, rank_env=None, ranks=None, last=None, restarts=0):
        rng = self.rng
        name = self.podnames[pi]
        status, code, reason, phase = self.pod_status(o)
        t_start = self.t0 + timedelta(seconds=rng.randrange(5, 25))
        L = [f"Name:             {name}", f"Namespace:        {self.ns}", "Priority:         0",
             "Service Account:  default", f"Node:             {self.hosts[node]}/{self.ips[node]}",
             f"Start Time:       {rfc1123(self.t0)}"]
        if self.layout == "k8s_pytorchjob":
            rt = "master" if pi == 0 else "worker"
            ridx = 0 if pi == 0 else pi - 1
            labs = [f"training.kubeflow.org/job-name={self.jobname}", "training.kubeflow.org/operator-name=pytorchjob-controller",
                    f"training.kubeflow.org/replica-index={ridx}", f"training.kubeflow.org/replica-type={rt}"]
            if pi == 0:
                labs.append("training.kubeflow.org/job-role=master")
            ctl = f"PyTorchJob/{self.jobname}"
        else:
            labs = ["batch.kubernetes.io/controller-uid=" + hexs(rng, 8) + "-" + hexs(rng, 4) + "-" + hexs(rng, 4) + "-" + hexs(rng, 4) + "-" + hexs(rng, 12),
                    f"batch.kubernetes.io/job-completion-index={pi}", f"batch.kubernetes.io/job-name={self.jobname}-{self.rj}-0",
                    f"jobset.sigs.k8s.io/job-index=0", f"jobset.sigs.k8s.io/jobset-name={self.jobname}",
                    f"jobset.sigs.k8s.io/replicatedjob-name={self.rj}", f"jobset.sigs.k8s.io/restart-attempt={self.js_restarts}"]
            ctl = f"Job/{self.jobname}-{self.rj}-0"
        L.append("Labels:           " + labs[0])
        for x in labs[1:]:
            L.append("                  " + x)
        L.append("Annotations:      <none>" if self.layout == "k8s_pytorchjob" else f"Annotations:      batch.kubernetes.io/job-completion-index: {pi}")
        pstat = phase
        L.append(f"Status:           {pstat}")
        if o.kind == "term" and self.end == "spot":
            if self.variant == "spot":
                L.append("Reason:           Terminated")
                L.append("Message:          Pod was terminated in response to imminent node shutdown.")
        if o.kind == "lost":
            L.append("Status:           Terminating (lasts " + k8s_age((self.t_cap - self.t_fail).total_seconds() - 300) + ")")
            L.append("Termination Grace Period:  30s")
            L = [x for x in L if x != f"Status:           {pstat}"]
        L += [f"IP:               {self.pod_ips[pi]}", "IPs:", f"  IP:           {self.pod_ips[pi]}", f"Controlled By:  {ctl}",
              "Containers:", f"  {self.cont}:",
              f"    Container ID:  containerd://{hexs(rng, 64)}", f"    Image:         {self.image}",
              f"    Image ID:      {self.image.split(':')[0]}@sha256:{hexs(rng, 64)}", "    Port:          23456/TCP" if self.layout == "k8s_pytorchjob" else "    Port:          <none>",
              "    Host Port:     0/TCP" if self.layout == "k8s_pytorchjob" else "    Host Port:     <none>", "    Command:"]
        if self.layout == "k8s_pytorchjob":
            L += ["      python", "      -u", f"      {self.workdir}/{self.script}", "      --config", f"      configs/{self.jobname}.yaml"]
        else:
            L += ["      bash", "      -c", f"      torchrun --nnodes={self.N} --nproc_per_node={self.G} --node_rank=$JOB_COMPLETION_INDEX --rdzv_endpoint={self.podhosts[0]}.{self.jobname}:29500 {self.script} --config configs/{self.jobname}.yaml"]

        def state_block(title, o2, code2, reason2, t_s, t_f):
            B = []
            if o2.kind == "alive":
                B += [f"    {title}:          Running", f"      Started:      {rfc1123(t_s)}"]
            elif o2.kind == "lost":
                B += [f"    {title}:          Running", f"      Started:      {rfc1123(t_s)}"]
            else:
                B += [f"    {title}:          Terminated" if title == "State" else f"    {title}:     Terminated",
                      f"      Reason:       {reason2}", f"      Exit Code:    {code2}",
                      f"      Started:      {rfc1123(t_s)}", f"      Finished:     {rfc1123(t_f)}"]
            return B
        t_fin = (o.t or self.t_end) + timedelta(seconds=rng.uniform(0.2, 2))
        if last is not None:
            L += ["    State:          Waiting", "      Reason:       CrashLoopBackOff"]
            lo, lcode, lreason = last
            L += state_block("Last State", lo, lcode, lreason, t_start, t_fin)
        else:
            L += state_block("State", o, code, reason, t_start, t_fin)
        ready = "True" if o.kind in ("alive",) else "False"
        L += [f"    Ready:          {ready}", f"    Restart Count:  {restarts}", "    Limits:"]
        g = self.G
        mem = rng.choice(["180Gi", "240Gi", "1600Gi", "900Gi"]) if g == 8 else rng.choice(["96Gi", "120Gi", "200Gi"])
        self.pod_mem = mem
        L += [f"      cpu:             {22 * g if g > 1 else 22}", f"      memory:          {mem}", f"      nvidia.com/gpu:  {g}",
              "    Requests:", f"      cpu:             {20 * g if g > 1 else 20}", f"      memory:          {mem}", f"      nvidia.com/gpu:  {g}",
              "    Environment:"]
        if self.layout == "k8s_pytorchjob":
            L += ["      MASTER_PORT:       23456", f"      MASTER_ADDR:       {self.podnames[0]}", f"      WORLD_SIZE:        {self.W}",
                  f"      RANK:              {rank_env}", "      PYTHONUNBUFFERED:  1"]
        else:
            L += [f"      JOB_COMPLETION_INDEX:   (v1:metadata.labels['batch.kubernetes.io/job-completion-index'])",
                  "      NCCL_DEBUG:             " + ("INFO" if self.nccl_debug else "WARN"), "      PYTHONUNBUFFERED:       1"]
        L += ["    Mounts:", "      /dev/shm from dshm (rw)", f"      /data from data (ro)",
              f"      /var/run/secrets/kubernetes.io/serviceaccount from kube-api-access-{rnd5(rng)} (ro)", "Conditions:",
              "  Type                        Status"]
        conds = []
        if o.kind == "term" and self.end == "spot":
            if self.variant == "spot":
                conds.append(("DisruptionTarget", "True"))
            else:
                conds.append(("DisruptionTarget", "True"))
        conds += [("PodReadyToStartContainers", "False" if o.kind not in ("alive", "lost") else "True"), ("Initialized", "True"),
                  ("Ready", ready), ("ContainersReady", ready), ("PodScheduled", "True")]
        for a, b in conds:
            L.append(f"  {a:<28}{b} ")
        L += ["Volumes:", "  dshm:", "    Type:       EmptyDir (a temporary directory that shares a pod's lifetime)", "    Medium:     Memory",
              "    SizeLimit:  <unset>", "  data:", "    Type:       PersistentVolumeClaim (a reference to a PersistentVolumeClaim in the same namespace)",
              f"    ClaimName:  {rng.choice(['datasets-ro', 'training-data', 'fsx-pvc'])}", "    ReadOnly:   true",
              "QoS Class:                   Guaranteed", "Node-Selectors:              <none>" if rng.random() < 0.5 else "Node-Selectors:              nvidia.com/gpu.present=true",
              "Tolerations:                 node.kubernetes.io/not-ready:NoExecute op=Exists for 300s",
              "                             node.kubernetes.io/unreachable:NoExecute op=Exists for 300s",
              "                             nvidia.com/gpu:NoSchedule op=Exists"]
        ev = [e for e in self.kevents if e[3] == f"pod/{name}" and self.t_cap - timedelta(hours=1) <= e[0] <= self.t_cap]
        if not ev:
            L.append("Events:                      <none>")
        else:
            rows = [("  Type", "Reason", "Age", "From", "Message"), ("  ----", "------", "----", "----", "-------")]
            for t, typ, reason, obj, msg in sorted(ev, key=lambda e: e[0]):
                frm = {"Scheduled": "default-scheduler", "Preempted": "default-scheduler", "FailedScheduling": "default-scheduler",
                       "NodeNotReady": "node-controller", "TaintManagerEviction": "taint-eviction-controller", "Evicted": "kubelet"}.get(reason, "kubelet")
                rows.append((f"  {typ}", reason, k8s_age((self.t_cap - t).total_seconds()), frm, msg))
            L.append("Events:")
            L.append(table(rows))
        return f"$ kubectl describe pod {name} -n {self.ns}\n" + "\n".join(L) + "\n"

    def describe_node(self, n):
        rng = self.rng
        h = self.hosts[n]
        ip = self.ips[n]
        fl = getattr(self, "k8s_flavor", "onprem")
        itype = {"gke": "a3-highgpu-8g", "eks": "p5.48xlarge", "aks": "Standard_ND96isr_H100_v5", "onprem": "dgx-h100"}[fl]
        cordon = n in self.drain
        spot = self.end == "spot" and n == self.spot_node and self.variant == "spot"
        L = [f"Name:               {h}", "Roles:              <none>", f"Labels:             kubernetes.io/hostname={h}",
             f"                    node.kubernetes.io/instance-type={itype}",
             f"                    nvidia.com/gpu.product={'NVIDIA-H100-80GB-HBM3' if self.gpu.startswith('h100') else 'NVIDIA-A100-SXM4-80GB'}",
             "                    nvidia.com/gpu.count=8"]
        if spot:
            L.append({"gke": "                    cloud.google.com/gke-spot=true", "eks": "                    eks.amazonaws.com/capacityType=SPOT",
                      "aks": "                    kubernetes.azure.com/scalesetpriority=spot", "onprem": "                    node-pool=preemptible"}[fl])
        ann = "Annotations:        node.alpha.kubernetes.io/ttl: 0"
        L.append(ann)
        if cordon and rng.random() < 0.6:
            L.append(f"                    ops.example.com/cordon-reason: {self.drain[n][0]}")
        L.append(f"CreationTimestamp:  {rfc1123(self.t0 - timedelta(days=rng.randrange(2, 60)))}")
        taints = []
        lost = self.lost_node == n or (self.cause == "network" and self.transport == "socket" and n == self.cn)
        if cordon:
            taints.append("node.kubernetes.io/unschedulable:NoSchedule")
        if lost:
            taints += ["node.kubernetes.io/unreachable:NoExecute", "node.kubernetes.io/unreachable:NoSchedule"]
        if self.cause in ("gpu_hardware", "ecc_memory", "nvlink") and n == self.cn and rng.random() < 0.5:
            taints.append(f"nvidia.com/gpu-health=unhealthy:NoSchedule")
        taints.append("nvidia.com/gpu=present:NoSchedule")
        L.append("Taints:             " + taints[0])
        for x in taints[1:]:
            L.append("                    " + x)
        L.append(f"Unschedulable:      {'true' if cordon else 'false'}")
        hb = self.t_cap - timedelta(seconds=rng.randrange(5, 60))
        tr = self.t0 - timedelta(days=rng.randrange(2, 30))
        rows = [("  Type", "Status", "LastHeartbeatTime", "LastTransitionTime", "Reason", "Message"),
                ("  ----", "------", "-----------------", "------------------", "------", "-------")]
        if lost:
            tl = self.t_fail + timedelta(seconds=40)
            rows += [("  MemoryPressure", "Unknown", rfc1123(self.t_fail), rfc1123(tl), "NodeStatusUnknown", "Kubelet stopped posting node status."),
                     ("  DiskPressure", "Unknown", rfc1123(self.t_fail), rfc1123(tl), "NodeStatusUnknown", "Kubelet stopped posting node status."),
                     ("  PIDPressure", "Unknown", rfc1123(self.t_fail), rfc1123(tl), "NodeStatusUnknown", "Kubelet stopped posting node status."),
                     ("  Ready", "Unknown", rfc1123(self.t_fail), rfc1123(tl), "NodeStatusUnknown", "Kubelet stopped posting node status.")]
        else:
            mp = "False"
            rows += [("  MemoryPressure", mp, rfc1123(hb), rfc1123(tr), "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
                     ("  DiskPressure", "False", rfc1123(hb), rfc1123(tr), "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
                     ("  PIDPressure", "False", rfc1123(hb), rfc1123(tr), "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
                     ("  Ready", "True", rfc1123(hb), rfc1123(tr), "KubeletReady", "kubelet is posting ready status")]
            if self.cause in ("gpu_hardware", "ecc_memory", "nvlink") and n == self.cn:
                x = [l for (tt, l) in self.kern.get(n, []) if "Xid" in l]
                if x and rng.random() < 0.7:
                    rows.append(("  GPUXidCritical", "True", rfc1123(hb), rfc1123(self.t_fail + timedelta(seconds=20)), "XidCriticalError", x[0].split("NVRM: ")[-1][:90]))
        L.append("Conditions:")
        L.append(table(rows))
        L += ["Addresses:", f"  InternalIP:  {ip}", f"  Hostname:    {h}", "Capacity:", "  cpu:                208", "  memory:             1871904752Ki",
              "  nvidia.com/gpu:     8", "  pods:               110", "Allocatable:", "  cpu:                206", "  memory:             1855031280Ki"]
        bad_gpu = self.cause in ("gpu_hardware", "ecc_memory") and n == self.cn and not lost
        L += [f"  nvidia.com/gpu:     {7 if bad_gpu else 8}", "  pods:               110", "System Info:",
              f"  Kernel Version:             {self.kkern[0]}",
              f"  OS Image:                   {self.kkern[1]}",
              f"  Container Runtime Version:  containerd://1.7.{rng.randrange(10, 22)}", f"  Kubelet Version:            {self.kver}"]
        ev = [e for e in self.kevents if e[3] == f"node/{h}" and self.t_cap - timedelta(hours=1) <= e[0] <= self.t_cap]
        if ev:
            rows = [("  Type", "Reason", "Age", "From", "Message"), ("  ----", "------", "----", "----", "-------")]
            for t, typ, reason, obj, msg in sorted(ev, key=lambda e: e[0]):
                frm = {"NodeNotReady": "node-controller", "OOMKilling": "kernel-monitor", "NodeNotSchedulable": "kubelet"}.get(reason, "kubelet")
                rows.append((f"  {typ}", reason, k8s_age((self.t_cap - t).total_seconds()), frm, msg))
            L.append("Events:")
            L.append(table(rows))
        else:
            L.append("Events:             <none>")
        return f"$ kubectl describe node {h}\n" + "\n".join(L) + "\n"

    def k8s_node_events(self):
        rng = self.rng
        for n in range(self.NN):
            h = self.hosts[n]
            if n in self.drain:
                rs, t, u = self.drain[n]
                self.kev(t, "Normal", "NodeNotSchedulable", f"node/{h}", f"Node {h} status is now: NodeNotSchedulable")
            if self.lost_node == n or (self.cause == "network" and self.transport == "socket" and n == self.cn):
                self.kev(self.t_fail + timedelta(seconds=40), "Normal", "NodeNotReady", f"node/{h}", f"Node {h} status is now: NodeNotReady")
            if self.cause == "host_oom_kill" and n == self.cn:
                km = [l for (tt, l) in self.kern.get(n, []) if l.startswith("Memory cgroup out of memory")]
                if km:
                    self.kev(self.t_fail, "Warning", "OOMKilling", f"node/{h}", km[0].split(", anon-rss")[0])
            if self.end == "spot" and n == self.spot_node and self.variant == "spot":
                self.kev(self.t_fail - timedelta(seconds=25), "Normal", "Shutdown", f"node/{h}", "Shutdown manager detected shutdown event")
                self.kev(self.t_fail + timedelta(seconds=30), "Normal", "NodeNotReady", f"node/{h}", f"Node {h} status is now: NodeNotReady")

    def device_plugin_log(self, n):
        rng = self.rng
        x = [(t, l) for (t, l) in self.kern.get(n, []) if "Xid (PCI" in l]
        if not x:
            return None
        L = []
        t0 = self.t0 - timedelta(days=1)
        L.append(f"I{t0:%m%d %H:%M:%S}.{rng.randrange(10 ** 6):06d}       1 main.go:{rng.choice([178, 199, 256])}] Starting FS watcher.")
        L.append(f"I{t0:%m%d %H:%M:%S}.{rng.randrange(10 ** 6):06d}       1 server.go:{rng.choice([165, 216])}] Registered device plugin for 'nvidia.com/gpu' with Kubelet")
        for t, l in x:
            m = re.search(r"\): (\d+),", l)
            xid = int(m.group(1)) if m else 0
            uid = self.gpu_uuid()
            if xid in (13, 31, 43, 45, 68, 109):
                L.append(f"I{t:%m%d %H:%M:%S}.{rng.randrange(10 ** 6):06d}       1 health.go:{rng.choice([152, 170])}] Skipping non-nvmlEventTypeXidCriticalError event: {{Device:{{Handle:0x{hexs(rng, 12)}}} EventType:8 EventData:{xid} GpuInstanceId:4294967295 ComputeInstanceId:4294967295}}")
                continue
            L.append(f"I{t:%m%d %H:%M:%S}.{rng.randrange(10 ** 6):06d}       1 health.go:{rng.choice([159, 177])}] Processing event {{Device:{{Handle:0x{hexs(rng, 12)}}} EventType:8 EventData:{xid} GpuInstanceId:4294967295 ComputeInstanceId:4294967295}}")
            L.append(f"I{t:%m%d %H:%M:%S}.{rng.randrange(10 ** 6):06d}       1 health.go:{rng.choice([185, 203])}] XidCriticalError: Xid={xid} on Device={uid}; marking device as unhealthy.")
            L.append(f"I{t:%m%d %H:%M:%S}.{rng.randrange(10 ** 6):06d}       1 server.go:{rng.choice([276, 300])}] 'nvidia.com/gpu' device marked unhealthy: {uid}")
            break
        return "\n".join(L) + "\n"

    def k8s_extra_files(self):
        rng = self.rng
        for n in sorted(self.kern.keys()):
            if rng.random() < (0.7 if n == self.cn else (0.9 if self.healthy else 0.5)):
                if n in self.kern_shown:
                    continue
                h = self.hosts[n]
                if n == self.lost_node:
                    fl = getattr(self, "k8s_flavor", "onprem")
                    cmd = {"gke": f"$ gcloud compute instances get-serial-port-output {h} --port 1",
                           "eks": f"$ aws ec2 get-console-output --instance-id i-0{hexs(rng, 16)} --latest --output text",
                           "aks": f"$ az vmss get-boot-log  # instance backing {h}",
                           "onprem": f"# BMC SOL console capture from {h}"}[fl]
                    self.files[f"serial_console_{h}.txt"] = cmd + "\n" + self.kernel_text(n, "raw")
                else:
                    txt = self.kernel_text(n, "journal")
                    self.files[f"node_{h}_journalctl_k.txt"] = f"$ kubectl debug node/{h} -it --image=ubuntu -- chroot /host journalctl -k --since \"-6h\"\n" + txt
                self.kern_shown.append(n)
            if self.cause in ("gpu_hardware", "ecc_memory", "nvlink") and n == self.cn and n != self.lost_node and rng.random() < 0.6:
                dp = self.device_plugin_log(n)
                if dp:
                    self.files[f"nvidia-device-plugin-daemonset-{rnd5(rng)}.log"] = f"$ kubectl logs -n gpu-operator nvidia-device-plugin-daemonset-{rnd5(rng)} --since=6h   # pod on {self.hosts[n]}\n" + dp
        for n in sorted(set([n for n in self.drain] + ([self.lost_node] if self.lost_node is not None else []) +
                            ([self.spot_node] if self.spot_node is not None else []) + ([self.cn] if self.cause in ("host_oom_kill", "network") and self.cn is not None else []))):
            if rng.random() < 0.75:
                self.files[f"describe_node_{self.hosts[n]}.txt"] = self.describe_node(n)
        self.write_extras()
        self.check_mapping()
        self.check_missing()

    def render_k8s_pytorchjob(self):
        rng = self.rng
        self.prep_render()
        self.k8s_prep()
        W = self.W
        outs = self.outs
        job = self.jobname
        # host OOM on k8s: sometimes kubelet eviction instead of cgroup kill
        self.evicted = self.cause == "host_oom_kill" and rng.random() < 0.3
        rtype = lambda r: "Master" if r == 0 else "Worker"
        # events: creation/scheduling
        for r in range(W):
            pn = self.podnames[r]
            ts = self.t_create + timedelta(seconds=rng.uniform(0, 3))
            self.kev(ts, "Normal", "SuccessfulCreatePod", f"pytorchjob/{job}", f"Created pod: {pn}")
            self.kev(ts + timedelta(seconds=1), "Normal", "Scheduled", f"pod/{pn}", f"Successfully assigned {self.ns}/{pn} to {self.hosts[self.rank_node[r]]}")
            self.kev(ts + timedelta(seconds=3), "Normal", "Pulled", f"pod/{pn}", f"Container image \"{self.image}\" already present on machine")
            self.kev(ts + timedelta(seconds=3), "Normal", "Created", f"pod/{pn}", f"Created container {self.cont}")
            self.kev(ts + timedelta(seconds=4), "Normal", "Started", f"pod/{pn}", f"Started container {self.cont}")
        self.k8s_node_events()
        fails = sorted([(o.t, r) for r, o in enumerate(outs) if o.kind in ("exit", "sig", "term") and o.t], key=lambda x: (x[0], x[1]))
        culprit_restarts = 0
        if self.restart_policy == "OnFailure" and self.c is not None and self.c_dies and outs[self.c].kind in ("exit", "sig"):
            culprit_restarts = rng.randrange(1, 4)
            pn = self.podnames[self.c]
            self.kev(outs[self.c].t + timedelta(seconds=20), "Warning", "BackOff", f"pod/{pn}", f"Back-off restarting failed container {self.cont} in pod {pn}_{self.ns}({hexs(rng, 8)}-{hexs(rng, 4)}-{hexs(rng, 4)}-{hexs(rng, 4)}-{hexs(rng, 12)})")
        for r in range(W):
            o = outs[r]
            pn = self.podnames[r]
            n = self.rank_node[r]
            if o.kind == "lost":
                self.kev(self.t_fail + timedelta(seconds=41), "Warning", "NodeNotReady", f"pod/{pn}", "Node is not ready")
                self.kev(self.t_fail + timedelta(seconds=345), "Normal", "TaintManagerEviction", f"pod/{pn}", f"Marking for deletion Pod {self.ns}/{pn}")
            if self.end == "spot" and o.kind == "term" and self.variant == "priority":
                self.kev(o.t, "Normal", "Preempted", f"pod/{pn}", f"Preempted by {rng.choice(['inference', 'prod-serving'])}/{rng.choice(['vllm-70b', 'ranker'])}-{hexs(rng, 9)}-{rnd5(rng)} on node {self.hosts[n]}")
            if self.evicted and r == self.c:
                self.kev(o.t, "Warning", "Evicted", f"pod/{pn}", f"The node was low on resource: memory. Threshold quantity: 100Mi, available: {rng.randrange(20000, 99000)}Ki. Container {self.cont} was using {rng.randrange(150, 190) * 1024 * 1024}Ki, request is {self.pod_mem if hasattr(self, 'pod_mem') else '180Gi'}, has larger consumption of memory. ")
        if fails and self.end not in ("completed",):
            t1, r1 = fails[0]
            msg = f"PyTorchJob {job} is failed because 1 {rtype(r1)} replica(s) failed."
            self.kev(t1 + timedelta(seconds=2), "Normal", "PyTorchJobFailed", f"pytorchjob/{job}", msg)
        # kubectl get pods
        rows = [("NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE", "NOMINATED NODE", "READINESS GATES")]
        age = k8s_age((self.t_cap - self.t_create).total_seconds())
        for r in range(W):
            o = outs[r]
            st, code, reason, phase = self.pod_status(o)
            if self.evicted and r == self.c:
                st = "Evicted"
            rs = "0"
            if r == self.c and culprit_restarts:
                st = "CrashLoopBackOff"
                rs = f"{culprit_restarts} ({k8s_age((self.t_cap - o.t).total_seconds() * 0.6)} ago)"
            ready = "1/1" if st == "Running" else "0/1"
            rows.append((self.podnames[r], ready, st, rs, age, self.pod_ips[r], self.hosts[self.rank_node[r]], "<none>", "<none>"))
        self.files["kubectl_get_pods.txt"] = f"$ kubectl get pods -n {self.ns} -o wide -l training.kubeflow.org/job-name={job}\n" + table(rows) + "\n"
        pod_points = False
        if self.c is not None and outs[self.c].kind in ("exit", "sig") and (self.cause in ("host_oom_kill", "crash_signal")):
            pod_points = "pod status/exit code of the culprit replica"
        if self.cause == "hang" and self.c is not None and outs[self.c].kind == "alive":
            pod_points = "the culprit's pod is the only one still Running"
        # pytorchjob yaml
        self.files[f"pytorchjob_{job}.yaml"] = self.pytorchjob_yaml(fails, rtype)
        # describes
        desc = []
        if self.c is not None and rng.random() < 0.8:
            desc.append(self.c)
        others = [r for r in range(W) if r != self.c]
        desc += rng.sample(others, min(len(others), rng.choice([1, 1, 2])))
        if self.end == "spot":
            vic = [r for r in range(W) if outs[r].kind == "term"]
            if vic:
                desc.append(vic[0])
        for r in sorted(set(desc)):
            last = None
            rst = 0
            o = outs[r]
            if r == self.c and culprit_restarts:
                st, code, reason, phase = self.pod_status(o)
                last = (o, code, "OOMKilled" if st == "OOMKilled" else reason)
                rst = culprit_restarts
            txt = self.describe_pod(r, o, self.rank_node[r], rank_env=r, last=last, restarts=rst)
            if self.evicted and r == self.c:
                txt = txt.replace("Status:           Failed", "Status:           Failed\nReason:           Evicted\nMessage:          The node was low on resource: memory. ")
            if self.end == "spot" and o.kind == "term" and self.variant == "priority":
                txt = txt.replace("  DisruptionTarget            True ", "  DisruptionTarget            True \n  # (reason: PreemptionByScheduler, message: default-scheduler: preempting to accommodate a higher priority pod)")
            if self.end == "spot" and o.kind == "term" and self.variant == "spot":
                txt = txt.replace("  DisruptionTarget            True ", "  DisruptionTarget            True \n  # (reason: TerminationByKubelet, message: Pod was terminated in response to imminent node shutdown.)")
            self.files[f"describe_pod_{self.podnames[r]}.txt"] = txt
            if r == self.c and pod_points:
                self.mark(pod_points + " + RANK env in describe pod")
        # logs
        logs = [0]
        if self.c is not None and not self.hide_c and rng.random() < 0.85:
            logs.append(self.c)
        if self.printer not in logs:
            logs.append(self.printer)
        logs += rng.sample(range(W), min(W, rng.choice([1, 2, 3])))
        for r in sorted(set(logs)):
            o = outs[r]
            if o.kind == "lost" and rng.random() < 0.7:
                continue
            L = [(self.t0 + timedelta(seconds=12), f"| distributed init (rank {r}): env://, gpu 0")]
            L += self.rank_lines(r)
            txt = "\n".join(x[1] for x in sorted(L, key=lambda x: x[0])) + "\n"
            name = f"logs/{self.podnames[r]}{'.previous' if (r == self.c and culprit_restarts) else ''}.log"
            if r == self.c and culprit_restarts:
                txt = f"# kubectl logs {self.podnames[r]} -n {self.ns} --previous\n" + txt
            if o.kind == "lost":
                txt = f"Error from server: Get \"https://{self.ips[self.rank_node[r]]}:10250/containerLogs/{self.ns}/{self.podnames[r]}/{self.cont}\": dial tcp {self.ips[self.rank_node[r]]}:10250: connect: no route to host\n"
            self.files[name] = txt
            if r == self.c and o.kind != "lost" and o.blocks:
                self.mark("culprit pod log (distributed init line gives the rank)")
            if r == self.c and o.kind != "lost" and pod_points:
                self.mark(pod_points + " + distributed init line in its log")
        if rng.random() < 0.4:
            self.files["training-operator.log"] = self.operator_log(fails)
        if rng.random() < 0.85:
            self.files["events.txt"] = self.events_text()
        self.k8s_extra_files()

    def pytorchjob_yaml(self, fails, rtype):
        rng = self.rng
        job = self.jobname
        W = self.W
        outs = self.outs
        created = zulu(self.t_create)

        def cnt(rt):
            rs = [0] if rt == "Master" else list(range(1, W))
            a = sum(1 for r in rs if outs[r].kind in ("alive", "lost"))
            f = sum(1 for r in rs if outs[r].kind in ("exit", "sig", "term"))
            s = sum(1 for r in rs if outs[r].kind == "ok")
            return a, f, s
        L = ["apiVersion: kubeflow.org/v1", "kind: PyTorchJob", "metadata:", f"  creationTimestamp: \"{created}\"", "  generation: 1",
             f"  name: {job}", f"  namespace: {self.ns}", f"  resourceVersion: \"{rng.randrange(10 ** 7, 10 ** 9)}\"",
             f"  uid: {hexs(rng, 8)}-{hexs(rng, 4)}-{hexs(rng, 4)}-{hexs(rng, 4)}-{hexs(rng, 12)}", "spec:", "  pytorchReplicaSpecs:"]
        for rt, n in (("Master", 1), ("Worker", W - 1)):
            L += [f"    {rt}:", f"      replicas: {n}", f"      restartPolicy: {self.restart_policy}", "      template:", "        spec:",
                  "          containers:", "          - command:", "            - python", "            - -u", f"            - {self.workdir}/{self.script}",
                  f"            image: {self.image}", f"            name: {self.cont}", "            resources:", "              limits:",
                  "                nvidia.com/gpu: 1"]
        L += ["  runPolicy:", "    backoffLimit: 3" if self.restart_policy == "OnFailure" else "    backoffLimit: 0", "    cleanPodPolicy: None",
              "    suspend: false", "status:"]
        done = self.end == "completed" or (fails and self.end != "completed")
        if done:
            L.append(f"  completionTime: \"{zulu((fails[0][0] if fails and self.end != 'completed' else self.t_end) + timedelta(seconds=2))}\"")
        L.append("  conditions:")
        L += ["  - lastTransitionTime: \"" + created + "\"", "    lastUpdateTime: \"" + created + "\"", f"    message: PyTorchJob {job} is created.",
              "    reason: PyTorchJobCreated", "    status: \"True\"", "    type: Created"]
        tr = zulu(self.t0 + timedelta(seconds=30))
        running = not done
        L += [f"  - lastTransitionTime: \"{tr if running else zulu(fails[0][0] + timedelta(seconds=2) if fails else self.t_end)}\"",
              f"    lastUpdateTime: \"{tr if running else zulu(fails[0][0] + timedelta(seconds=2) if fails else self.t_end)}\"",
              f"    message: PyTorchJob {job} is running.", "    reason: PyTorchJobRunning", f"    status: \"{'True' if running else 'False'}\"", "    type: Running"]
        if self.end == "completed":
            L += [f"  - lastTransitionTime: \"{zulu(self.t_end)}\"", f"    lastUpdateTime: \"{zulu(self.t_end)}\"",
                  f"    message: PyTorchJob {job} is successfully completed.", "    reason: PyTorchJobSucceeded", "    status: \"True\"", "    type: Succeeded"]
        elif fails:
            t1, r1 = fails[0]
            L += [f"  - lastTransitionTime: \"{zulu(t1 + timedelta(seconds=2))}\"", f"    lastUpdateTime: \"{zulu(t1 + timedelta(seconds=2))}\"",
                  f"    message: PyTorchJob {job} is failed because 1 {rtype(r1)} replica(s) failed.", "    reason: PyTorchJobFailed",
                  "    status: \"True\"", "    type: Failed"]
        L.append("  replicaStatuses:")
        for rt in ("Master", "Worker"):
            a, f, s = cnt(rt)
            L.append(f"    {rt}:")
            if a:
                L.append(f"      active: {a}")
            if f:
                L.append(f"      failed: {f}")
            L.append(f"      selector: training.kubeflow.org/job-name={job},training.kubeflow.org/operator-name=pytorchjob-controller,training.kubeflow.org/replica-type={rt.lower()}")
            if s:
                L.append(f"      succeeded: {s}")
        L.append(f"  startTime: \"{zulu(self.t_create + timedelta(seconds=1))}\"")
        return f"$ kubectl get pytorchjob {job} -n {self.ns} -o yaml\n" + "\n".join(L) + "\n"

    def operator_log(self, fails):
        rng = self.rng
        L = []
        job = self.jobname
        uid = f"{hexs(rng, 8)}-{hexs(rng, 4)}-{hexs(rng, 4)}-{hexs(rng, 4)}-{hexs(rng, 12)}"
        for t, r in fails[:6]:
            o = self.outs[r]
            st, code, reason, phase = self.pod_status(o)
            rt = "master" if r == 0 else "worker"
            L.append((t + timedelta(seconds=1), f"time=\"{zulu(t + timedelta(seconds=1))}\" level=info msg=\"Pod: {self.ns}.{self.podnames[r]} exited with code {code}\" job={self.ns}.{job} replica-type={rt} uid={uid}"))
            L.append((t + timedelta(seconds=1), f"time=\"{zulu(t + timedelta(seconds=1))}\" level=info msg=\"PyTorchJob={job}, ReplicaType={'Master' if r == 0 else 'Worker'} expected={1 if r == 0 else self.W - 1}, running={self.W - 1 - len([x for x in fails if x[0] <= t])}, succeeded=0, failed={len([x for x in fails if x[0] <= t])}, Replicas={1 if r == 0 else self.W - 1}\" job={self.ns}.{job} uid={uid}"))
        L.sort(key=lambda x: x[0])
        return "\n".join(x[1] for x in L) + "\n"

    # ------------------------------------------------------------------ JobSet
    def render_k8s_jobset(self):
        rng = self.rng
        self.prep_render()
        self.k8s_prep()
        W, N = self.W, self.N
        outs = self.outs
        js = self.jobname
        det = self.cause in ("cuda_oom", "python_exception", "collective_mismatch", "crash_signal", "illegal_memory_access")
        self.js_max = rng.choice([0, 0, 1, 3]) if det else 0
        self.js_restarts = self.js_max
        # pod-level outcome: job controller deletes/terminates the other pods after the first pod failure
        pod_fail = {}
        for n in range(N):
            rs = [r for r in range(W) if self.rank_node[r] == n]
            f = [outs[r].t for r in rs if outs[r].kind in ("exit", "sig") and outs[r].t]
            if f:
                pod_fail[n] = max([outs[r].t for r in rs if outs[r].t] + [min(f)]) + timedelta(seconds=rng.uniform(0.5, 3))
        if pod_fail and self.end not in ("completed",):
            tf = min(pod_fail.values())
            for r in range(W):
                o = outs[r]
                if o.kind in ("alive",) or (o.kind in ("exit", "sig") and o.t > tf + timedelta(seconds=3)):
                    outs[r] = Out("term", tf + timedelta(seconds=rng.uniform(1, 4)), [], sig=15)
            self.t_end = max(self.t_end, tf + timedelta(seconds=5))
        # per-pod status
        pstat = []
        for n in range(N):
            rs = [r for r in range(W) if self.rank_node[r] == n]
            kinds = [outs[r].kind for r in rs]
            if self.lost_node == n:
                pstat.append(("Terminating", None, None))
            elif all(k == "ok" for k in kinds):
                pstat.append(("Completed", 0, "Completed"))
            elif any(k in ("exit", "sig") for k in kinds):
                oom = self.cause == "host_oom_kill" and n == self.cn
                pstat.append(("OOMKilled" if oom else "Error", 1, "OOMKilled" if oom else "Error"))
            elif any(k == "term" for k in kinds):
                if self.end == "spot" and n == self.spot_node and self.variant == "spot":
                    pstat.append(("Terminated", 143, "Error"))
                else:
                    pstat.append(("Error", 143, "Error"))
            else:
                pstat.append(("Running", None, None))
        # events
        jobname = f"{js}-{self.rj}-0"
        for n in range(N):
            pn = self.podnames[n]
            ts = self.t_create + timedelta(seconds=rng.uniform(1, 5))
            self.kev(ts, "Normal", "SuccessfulCreate", f"job/{jobname}", f"Created pod: {pn}")
            self.kev(ts + timedelta(seconds=1), "Normal", "Scheduled", f"pod/{pn}", f"Successfully assigned {self.ns}/{pn} to {self.hosts[n]}")
            self.kev(ts + timedelta(seconds=4), "Normal", "Started", f"pod/{pn}", f"Started container {self.cont}")
        self.k8s_node_events()
        if pod_fail and self.end != "completed":
            tf = min(pod_fail.values())
            self.kev(tf + timedelta(seconds=2), "Warning", "BackoffLimitExceeded", f"job/{jobname}", "Job has reached the specified backoff limit")
            for n in range(N):
                if pstat[n][0] in ("Error",) and n not in pod_fail:
                    self.kev(tf + timedelta(seconds=2), "Normal", "SuccessfulDelete", f"job/{jobname}", f"Deleted pod: {self.podnames[n]}")
            if self.js_max:
                self.kev(tf + timedelta(seconds=3), "Warning", "ReachedMaxRestarts", f"jobset/{js}", "jobset failed due to reaching max number of restarts")
            else:
                self.kev(tf + timedelta(seconds=3), "Warning", "FailedJobs", f"jobset/{js}", "jobset failed due to one or more job failures")
        for n in range(N):
            if self.end == "spot" and n == self.spot_node and self.variant == "priority":
                self.kev(self.t_fail, "Normal", "Preempted", f"pod/{self.podnames[n]}", f"Preempted by {rng.choice(['inference', 'prod-serving'])}/{rng.choice(['vllm-70b', 'ranker'])}-{hexs(rng, 9)}-{rnd5(rng)} on node {self.hosts[n]}")
            if self.lost_node == n:
                self.kev(self.t_fail + timedelta(seconds=41), "Warning", "NodeNotReady", f"pod/{self.podnames[n]}", "Node is not ready")
        # get pods
        rows = [("NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE", "NOMINATED NODE", "READINESS GATES")]
        age = k8s_age((self.t_cap - self.t_create).total_seconds())
        for n in range(N):
            st = pstat[n][0]
            rows.append((self.podnames[n], "1/1" if st == "Running" else "0/1", st, "0", age, self.pod_ips[n], self.hosts[n], "<none>", "<none>"))
        self.files["kubectl_get_pods.txt"] = f"$ kubectl get pods -n {self.ns} -o wide -l jobset.sigs.k8s.io/jobset-name={js}\n" + table(rows) + "\n"
        # jobs + jobset
        jst = "Failed" if (pod_fail and self.end != "completed") else ("Complete" if self.end == "completed" else "Running")
        dur = k8s_age((self.t_end - self.t_create).total_seconds())
        self.files["kubectl_get_jobs.txt"] = (f"$ kubectl get jobs -n {self.ns} -l jobset.sigs.k8s.io/jobset-name={js}\n" +
                                              table([("NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE"),
                                                     (jobname, jst, f"{N if self.end == 'completed' else 0}/{N}", dur, age)]) + "\n")
        self.files[f"jobset_{js}.yaml"] = self.jobset_yaml(jst)
        # describes
        ds = []
        if self.cn is not None and rng.random() < 0.8:
            ds.append(self.cn)
        ds.append(rng.randrange(N))
        for n in sorted(set(ds)):
            rs = [r for r in range(W) if self.rank_node[r] == n]
            o = outs[rs[0]]
            fake = Out(o.kind, o.t)
            st, code, reason = pstat[n]
            if st in ("Error", "OOMKilled", "Terminated"):
                fake = Out("exit", max([outs[r].t for r in rs if outs[r].t] or [self.t_end]), code=code)
            elif st == "Running":
                fake = Out("alive", None)
            elif st == "Completed":
                fake = Out("ok", self.t_end)
            txt = self.describe_pod(n, fake, n)
            if st == "OOMKilled":
                txt = txt.replace("      Reason:       Error\n      Exit Code:    1", "      Reason:       OOMKilled\n      Exit Code:    1")
            if st == "Terminated":
                txt = txt.replace("Status:           Failed", "Status:           Failed\nReason:           Terminated\nMessage:          Pod was terminated in response to imminent node shutdown.")
            self.files[f"describe_pod_{self.podnames[n]}.txt"] = txt
        # pod logs (torchrun agent + 8 workers)
        lp = [0]
        if self.cn is not None and not self.hide_c and rng.random() < 0.85:
            lp.append(self.cn)
        if self.rank_node[self.printer] not in lp:
            lp.append(self.rank_node[self.printer])
        lp += rng.sample(range(N), min(N, rng.choice([1, 2])))
        tmode = "rank" if self.tt.minor >= 3 else rng.choice(["default", "none"])
        for n in sorted(set(lp)):
            if self.lost_node == n:
                continue
            ents = []
            k = [0]

            def add(t, pre, txt):
                ents.append((t, k[0], pre, txt))
                k[0] += 1
            for r in [x for x in range(W) if self.rank_node[x] == n]:
                p = f"[rank{r}]:" if tmode == "rank" else (f"[default{self.local[r]}]:" if tmode == "default" else "")
                for (tt, txt) in self.rank_lines(r):
                    add(tt, p, txt)
                if r == self.c and outs[r].blocks and (tmode == "rank" or self.self_ident(r)):
                    self.mark("culprit's own lines in its pod log carry the rank")
            self.torchrun_agents(add, False, 1, is_k8s=True, node_filter=n)
            self.files[f"logs/{self.podnames[n]}.log"] = "\n".join(self.merge(ents)) + "\n"
        if rng.random() < 0.85:
            self.files["events.txt"] = self.events_text()
        self.k8s_extra_files()

    def jobset_yaml(self, jst):
        rng = self.rng
        js = self.jobname
        L = ["apiVersion: jobset.x-k8s.io/v1alpha2", "kind: JobSet", "metadata:", f"  creationTimestamp: \"{zulu(self.t_create - timedelta(seconds=5))}\"",
             f"  name: {js}", f"  namespace: {self.ns}", "spec:"]
        if self.js_max:
            L += ["  failurePolicy:", f"    maxRestarts: {self.js_max}"]
        L += ["  network:", "    enableDNSHostnames: true", f"    subdomain: {js}", "  replicatedJobs:", f"  - name: {self.rj}", "    replicas: 1",
              "    template:", "      spec:", "        backoffLimit: 0", "        completionMode: Indexed", f"        completions: {self.N}",
              f"        parallelism: {self.N}", "        template:", "          spec:", "            containers:", f"            - name: {self.cont}",
              f"              image: {self.image}", "              resources:", "                limits:", f"                  nvidia.com/gpu: {self.G}",
              "  successPolicy:", "    operator: All", "  suspend: false", "status:", "  conditions:"]
        if jst == "Failed":
            tf = self.t_end
            L += [f"  - lastTransitionTime: \"{zulu(tf)}\"",
                  "    message: jobset failed due to reaching max number of restarts" if self.js_max else "    message: jobset failed due to one or more job failures",
                  "    reason: ReachedMaxRestarts" if self.js_max else "    reason: FailedJobs", "    status: \"True\"", "    type: Failed"]
        elif jst == "Complete":
            L += [f"  - lastTransitionTime: \"{zulu(self.t_end)}\"", "    message: jobset completed successfully", "    reason: AllJobsCompleted",
                  "    status: \"True\"", "    type: Completed"]
        else:
            L[-1] = "  conditions: []"
        L += ["  replicatedJobsStatus:", "  - active: " + ("1" if jst == "Running" else "0"), f"    failed: {1 if jst == 'Failed' else 0}",
              f"    name: {self.rj}", "    ready: 0", f"    succeeded: {1 if jst == 'Complete' else 0}", "    suspended: 0",
              f"  restarts: {self.js_restarts}"]
        if self.js_restarts:
            L.append(f"  restartsCountTowardsMax: {self.js_restarts}")
        return f"$ kubectl get jobset {js} -n {self.ns} -o yaml\n" + "\n".join(L) + "\n"

    # ================================================================== PBS Pro
    def render_pbs_mpiexec(self):
        rng = self.rng
        self.prep_render()
        jid = self.jobid
        srv = self.pbs_server
        fq = getattr(self, "pbs_fqdn", "")
        W, N, G = self.W, self.N, self.G
        ents = []
        k = [0]

        def add(t, pre, txt):
            ents.append((t, k[0], pre, txt))
            k[0] += 1
        t = self.t0 + timedelta(seconds=rng.uniform(1, 5))
        add(t, "", f"NUM_OF_NODES= {N} TOTAL_NUM_RANKS= {W} RANKS_PER_NODE= {G} THREADS_PER_RANK= 16")
        add(t, "", f"+ mpiexec -n {W} --ppn {G} --depth=16 --cpu-bind depth ./set_affinity_gpu.sh python -u {self.script} --config configs/{self.jobname}.yaml")
        for r in self.visible_ranks():
            for (tt, txt) in self.rank_lines(r):
                add(tt, "", txt)
            if r == self.c and self.self_ident(r):
                self.mark("culprit's own error line names its rank")
        # PALS termination lines
        ev = sorted([(o.t, r) for r, o in enumerate(self.outs) if o.kind in ("exit", "sig", "term") and o.t], key=lambda x: (x[0], x[1]))
        if self.end not in ("timeout", "preempted", "cancelled"):
            shown = 0
            for tt, r in ev:
                o = self.outs[r]
                h = self.hosts[self.rank_node[r]] + fq
                if shown > 40 and r != self.c:
                    continue
                if o.kind == "exit":
                    add(tt + timedelta(seconds=0.3), "", f"{h}: rank {r} exited with code {o.code}")
                elif o.kind == "sig":
                    add(tt + timedelta(seconds=0.3), "", f"{h}: rank {r} died from signal {o.sig}" + (" and dumped core" if o.sig in (6, 11) and rng.random() < 0.4 else ""))
                else:
                    add(tt + timedelta(seconds=0.3), "", f"{h}: rank {r} died from signal 15")
                shown += 1
                if r == self.c and o.kind in ("exit", "sig"):
                    self.mark("PALS mpiexec names the culprit rank")
        lim = self.limit_h * 3600
        if self.end == "timeout":
            add(self.t_end, "", f"=>> PBS: job killed: walltime {lim + rng.randrange(5, 60)} exceeded limit {lim}")
        if self.end == "oom" and rng.random() < 0.3:
            pass
        lines = self.merge(ents)
        if self.end != "preempted" and rng.random() < 0.5:
            te = self.t_end
            lines += ["", "======================================================================================",
                      f"                  Resource Usage on {self.st(te):%Y-%m-%d %H:%M:%S}:",
                      f"   Job Id:             {jid}.{srv}", f"   Project:            LLMScale", f"   Exit Status:        {self.pbs_exit()}",
                      f"   Walltime Used:      {elapsed((te - self.t0).total_seconds())}", f"   Queue:              {self.pbs_queue}",
                      "======================================================================================"]
        self.files[f"{self.jobname}.o{jid}"] = "\n".join(lines) + "\n"
        self.files[f"qstat_fx_{jid}.txt"] = self.qstat_fx()
        if rng.random() < 0.6 or self.end in ("preempted", "node_fail"):
            self.files[f"tracejob_{jid}.txt"] = self.tracejob()
        if self.drain or self.lost_node is not None:
            self.files["pbsnodes.txt"] = self.pbsnodes_text()
        for n in sorted(self.kern.keys()):
            if rng.random() < (0.85 if n == self.cn else (0.95 if self.healthy else 0.6)):
                self.write_kernel(n)
        self.write_extras()
        self.check_mapping()
        self.check_missing()

    @property
    def pbs_queue(self):
        return {0: "prod", 1: "debug-scaling", 2: "preemptable", 3: "workq"}[self.idx % 4] if self.end != "preempted" else "preemptable"

    def pbs_exit(self):
        e = self.end
        if e == "completed":
            return 0
        if e == "timeout":
            return -29
        if e in ("cancelled", "node_fail"):
            return 271
        if e == "preempted":
            return -11
        exits = [o for o in self.outs if o.kind == "exit"]
        if exits:
            return 1
        sigs = sorted([o for o in self.outs if o.kind == "sig"], key=lambda o: o.t)
        return 128 + (sigs[0].sig if sigs else 15)

    def qstat_fx(self):
        rng = self.rng
        jid = self.jobid
        srv = self.pbs_server
        fmt = lambda t: f"{self.st(t):%a %b %d %H:%M:%S %Y}"
        el = (self.t_end - self.t0).total_seconds()
        ncpus = self.N * 64
        eh = "+".join(f"{h}/0*64" for h in self.hosts)
        ev = "+".join(f"({h}:ncpus=64:ngpus={self.G})" for h in self.hosts)
        state = "F" if self.end != "preempted" else "Q"
        L = [f"Job Id: {jid}.{srv}", f"    Job_Name = {self.jobname}", f"    Job_Owner = {self.user}@login0{rng.randrange(1, 4)}"]
        if state == "F":
            L += [f"    resources_used.cpupercent = {rng.randrange(800, 6000)}", f"    resources_used.cput = {elapsed(el * 30)}",
                  f"    resources_used.mem = {rng.randrange(10 ** 8, 5 * 10 ** 8)}kb", f"    resources_used.ncpus = {ncpus}",
                  f"    resources_used.vmem = {rng.randrange(10 ** 9, 4 * 10 ** 9)}kb", f"    resources_used.walltime = {elapsed(el)}"]
        L += [f"    job_state = {state}", f"    queue = {self.pbs_queue}", f"    server = {srv}", "    Checkpoint = u",
              f"    ctime = {fmt(self.t0 - timedelta(minutes=rng.randrange(2, 300)))}",
              f"    Error_Path = login01:{self.workdir}/{self.jobname}.e{jid}", f"    exec_host = {eh}" if state == "F" else "",
              f"    exec_vnode = {ev}" if state == "F" else "", "    Hold_Types = n", "    Join_Path = oe", "    Keep_Files = n", "    Mail_Points = a",
              f"    mtime = {fmt(self.t_end)}", f"    Output_Path = login01:{self.workdir}/{self.jobname}.o{jid}", "    Priority = 0",
              f"    qtime = {fmt(self.t0 - timedelta(minutes=rng.randrange(2, 300)))}", f"    Rerunable = {'True' if self.end == 'preempted' else 'False'}",
              f"    Resource_List.ncpus = {ncpus}", f"    Resource_List.ngpus = {self.W}", f"    Resource_List.nodect = {self.N}",
              "    Resource_List.place = scatter", f"    Resource_List.select = {self.N}:ncpus=64:ngpus={self.G}",
              f"    Resource_List.walltime = {elapsed(self.limit_h * 3600)}", f"    stime = {fmt(self.t0)}", f"    session_id = {rng.randrange(10000, 99999)}",
              f"    jobdir = /home/{self.user}", f"    substate = {92 if state == 'F' else 10}",
              f"    Variable_List = PBS_O_HOME=/home/{self.user},PBS_O_LANG=en_US.UTF-8,PBS_O_LOGNAME={self.user},PBS_O_WORKDIR={self.workdir},PBS_O_SYSTEM=Linux,PBS_O_QUEUE={self.pbs_queue},PBS_O_HOST=login01"]
        if state == "F":
            L.append(f"    comment = Job run at {self.st(self.t0):%a %b %d} at {self.st(self.t0):%H:%M} on {ev[:180]}{'...' if len(ev) > 180 else ''} and finished")
            L.append(f"    etime = {fmt(self.t0 - timedelta(minutes=1))}")
            L.append("    run_count = 1")
            L.append(f"    Exit_status = {self.pbs_exit()}")
        else:
            L.append(f"    comment = Not Running: Insufficient amount of resource: ngpus (R: {self.W} A: {max(0, self.W - 8)} T: 2240)")
            L.append("    run_count = 1")
        L += [f"    Submit_arguments = -l select={self.N}:ngpus={self.G} -l walltime={self.limit_h}:00:00 -q {self.pbs_queue} run_{self.jobname}.pbs",
              f"    history_timestamp = {int(self.t_end.timestamp())}" if state == "F" else "", "    project = LLMScale"]
        return f"$ qstat -fx {jid}\n" + "\n".join(x for x in L if x) + "\n"

    def tracejob(self):
        rng = self.rng
        jid = self.jobid
        srv = self.pbs_server
        L = []

        def ln(t, src, m):
            L.append((t, f"{self.st(t):%m/%d/%Y %H:%M:%S}  {src}    {m}"))
        ln(self.t0 - timedelta(minutes=5), "S", f"enqueuing into {self.pbs_queue}, state Q hop 1")
        ln(self.t0, "S", f"Job Run at request of Scheduler@{srv} on exec_vnode ({self.hosts[0]}:ncpus=64:ngpus={self.G})+...")
        ln(self.t0, "M", "Started, pid = " + str(rng.randrange(10000, 99999)))
        if self.end == "preempted":
            ln(self.t_fail, "S", "Job preempted by requeuing")
            ln(self.t_end, "M", "task 00000001 terminated")
            ln(self.t_end, "S", "Job requeued, execution node  down" if False else "Job Rerun")
        elif self.end == "node_fail":
            h = self.hosts[self.lost_node]
            ln(self.t_fail + timedelta(seconds=rng.randrange(60, 200)), "M", f"im_eof, Premature end of message from addr {rng.randrange(1, 99)} stream {rng.randrange(1, 99)}")
            ln(self.t_end, "M", f"node_bailout: {h} failed to respond, killing job")
            ln(self.t_end, "S", f"Exit_status={self.pbs_exit()} resources_used.cpupercent={rng.randrange(100, 6000)} resources_used.walltime={elapsed((self.t_end - self.t0).total_seconds())}")
        elif self.end == "cancelled":
            ln(self.t_end, "S", f"Job to be deleted at request of {self.user}@login01")
            ln(self.t_end, "S", f"Exit_status={self.pbs_exit()} resources_used.walltime={elapsed((self.t_end - self.t0).total_seconds())}")
        else:
            if self.end == "timeout":
                ln(self.t_end, "M", f"walltime {self.limit_h * 3600 + rng.randrange(5, 60)} exceeded limit {self.limit_h * 3600}")
                ln(self.t_end, "M", "kill_job")
            ln(self.t_end + timedelta(seconds=2), "M", "task 00000001 terminated")
            ln(self.t_end + timedelta(seconds=3), "S", f"Exit_status={self.pbs_exit()} resources_used.cpupercent={rng.randrange(100, 6000)} resources_used.walltime={elapsed((self.t_end - self.t0).total_seconds())}")
        L.sort(key=lambda x: x[0])
        return f"$ tracejob -n 2 {jid}\n\nJob: {jid}.{srv}\n\n" + "\n".join(x[1] for x in L) + "\n"

    def pbsnodes_text(self):
        rng = self.rng
        out = ["$ pbsnodes -l", ""]
        rows = []
        for n, (rs, t, u) in self.drain.items():
            st = "offline" if self.lost_node != n else "down,offline"
            if self.lost_node == n and hasattr(self, "drain_admin") and rng.random() < 0.6:
                rs = self.drain_admin[0]
            elif self.lost_node == n:
                rs = "node down: communication closed"
            rows.append(f"{self.hosts[n]:<20} {st:<17} {rs}")
        for _ in range(rng.randrange(1, 3)):
            rows.append(f"{'x' + str(rng.randrange(3000, 3300)) + 'c0s' + str(rng.randrange(0, 31)) + 'b0n0':<20} {'offline':<17} {rng.choice(['HW: DIMM replace SR#88412', 'xid 48 pending reset', 'cable swap'])}")
        out += rows
        return "\n".join(out) + "\n"

    # ================================================================== LSF
    def render_lsf_mpirun(self):
        rng = self.rng
        self.prep_render()
        jid = self.jobid
        W, N, G = self.W, self.N, self.G
        tag = rng.random() < 0.4
        ents = []
        k = [0]

        def add(t, pre, txt):
            ents.append((t, k[0], pre, txt))
            k[0] += 1
        for r in self.visible_ranks():
            p = f"[1,{r}]<stdout>:" if tag else ""
            for (tt, txt) in self.rank_lines(r):
                pp = p.replace("stdout", "stderr") if (tag and ("Error" in txt or "[E" in txt or "NCCL" in txt or "Traceback" in txt)) else p
                add(tt, pp, txt)
            if r == self.c and self.outs[r].blocks and tag:
                self.mark("OpenMPI --tag-output prefix on the culprit's lines")
            if r == self.c and self.self_ident(r):
                self.mark("culprit's own error line names its rank")
        fam = rng.randrange(10000, 65000)
        ev = sorted([(o.t, r) for r, o in enumerate(self.outs) if o.kind in ("exit", "sig") and o.t], key=lambda x: (x[0], x[1]))
        if ev and self.end not in ("timeout", "preempted", "cancelled", "node_fail"):
            t1, r1 = ev[0]
            o1 = self.outs[r1]
            tt = t1 + timedelta(seconds=rng.uniform(0.5, 3))
            sep = "-" * 74
            if o1.kind == "exit":
                add(tt, "", f"{sep}\nPrimary job  terminated normally, but 1 process returned\na non-zero exit code. Per user-direction, the job has been aborted.\n{sep}")
                add(tt + timedelta(seconds=1), "", f"{sep}\nmpirun detected that one or more processes exited with non-zero status, thus causing\nthe job to be terminated. The first process to do so was:\n\n  Process name: [[{fam},1],{r1}]\n  Exit code:    {o1.code}\n{sep}")
            else:
                pid = 0 if rng.random() < 0.5 else self.pids[r1]
                add(tt, "", f"{sep}\nmpirun noticed that process rank {r1} with PID {pid} on node {self.hosts[self.rank_node[r1]]} exited on signal {o1.sig} ({SIGDESC[o1.sig]}).\n{sep}")
            if r1 == self.c:
                self.mark("mpirun names the first failing process (the culprit)")
        body = self.merge(ents)
        hdr = self.lsf_report()
        self.files[f"{self.jobname}.{jid}.out"] = hdr + "\n".join(body) + "\n"
        self.files[f"bjobs_l_{jid}.txt"] = self.bjobs_l()
        for n in self.drain:
            if rng.random() < 0.8:
                self.files[f"bhosts_l_{self.hosts[n]}.txt"] = self.bhosts_l(n)
        for n in sorted(self.kern.keys()):
            if rng.random() < (0.85 if n == self.cn else (0.95 if self.healthy else 0.6)):
                self.write_kernel(n)
        self.write_extras()
        self.check_mapping()
        self.check_missing()

    def lsf_term(self):
        e = self.end
        if e == "completed":
            return None, 0
        if e == "timeout":
            return "TERM_RUNLIMIT: job killed after reaching LSF run time limit.", 140
        if e == "oom":
            return "TERM_MEMLIMIT: job killed after reaching LSF memory usage limit.", 137
        if e == "cancelled":
            return "TERM_OWNER: job killed by owner.", 130
        if e == "preempted":
            return "TERM_PREEMPT: job killed after preemption.", 143
        if e == "node_fail":
            return "TERM_ADMIN: job killed by root or LSF administrator.", 130
        return None, 1

    def lsf_report(self):
        rng = self.rng
        jid = self.jobid
        cl = self.lsf_cluster
        fmt = lambda t: f"{self.st(t):%a %b %d %H:%M:%S %Y}"
        term, code = self.lsf_term()
        self.t_submit = self.t0 - timedelta(seconds=rng.randrange(40, 12000))
        self.lsf_batch = f"batch{rng.randrange(1, 6)}" if self.gpu == "v100x6" else self.hosts[0]
        st = "Done" if self.end == "completed" else "Exited"
        L = [f"Sender: LSF System <lsfadmin@{self.lsf_batch}>", f"Subject: Job {jid}: <{self.jobname}> in cluster <{cl}> {st}", "",
             f"Job <{self.jobname}> was submitted from host <login{rng.randrange(1, 6)}> by user <{self.user}> in cluster <{cl}> at {fmt(self.t_submit)}",
             f"Job was executed on host(s) <1*{self.lsf_batch}>, in queue <{rng.choice(['batch', 'gpu', 'batch-hm'])}>, as user <{self.user}> in cluster <{cl}> at {fmt(self.t0)}"]
        for h in self.hosts[:min(self.N, 40)]:
            L.append(f"                            <{self.G if self.gpu != 'v100x6' else 42}*{h}>")
        L += [f"</home/{self.user}> was used as the home directory.", f"<{self.workdir}> was used as the working directory.",
              f"Started at {fmt(self.t0)}", f"Terminated at {fmt(self.t_end)}", f"Results reported at {fmt(self.t_end + timedelta(seconds=2))}", "",
              "Your job looked like:", "", "-" * 60, "# LSBATCH: User input", "#!/bin/bash", f"#BSUB -J {self.jobname}", f"#BSUB -nnodes {self.N}" if self.gpu == "v100x6" else f"#BSUB -n {self.W}",
              f"#BSUB -W {self.limit_h * 60}", f"#BSUB -o {self.jobname}.%J.out", "",
              f"mpirun -np {self.W} --map-by ppr:{self.G}:node {'--tag-output ' if False else ''}python -u {self.script} --config configs/{self.jobname}.yaml",
              "", "-" * 60, ""]
        if term:
            L.append(term)
        L.append("Successfully completed." if code == 0 else f"Exited with exit code {code}.")
        el = (self.t_end - self.t0).total_seconds()
        mxm = rng.randrange(40, 900) * 1024
        L += ["", "Resource usage summary:", "", f"    CPU time :                                   {el * rng.uniform(20, 90):.2f} sec.",
              f"    Max Memory :                                 {mxm} MB",
              f"    Average Memory :                             {mxm * rng.uniform(0.4, 0.9):.2f} MB",
              f"    Total Requested Memory :                     {'-' if self.end != 'oom' else str(rng.randrange(400, 900) * 1024) + '.00 MB'}",
              "    Delta Memory :                               -", "    Max Swap :                                   -",
              f"    Max Processes :                              {self.W + 3}", f"    Max Threads :                                {self.W * 40 + rng.randrange(0, 99)}",
              f"    Run time :                                   {int(el)} sec.",
              f"    Turnaround time :                            {int(el) + rng.randrange(60, 9000)} sec.", "",
              "The output (if any) follows:", ""]
        return "\n".join(L) + "\n"

    def bjobs_l(self):
        rng = self.rng
        jid = self.jobid
        fmt = lambda t: f"{self.st(t):%a %b %d %H:%M:%S}"
        term, code = self.lsf_term()
        stat = "DONE" if self.end == "completed" else "EXIT"
        hosts = " ".join(f"<{self.G}*{h}>" for h in self.hosts)
        paras = [f"Job <{jid}>, Job Name <{self.jobname}>, User <{self.user}>, Project <{rng.choice(['default', 'LLM101', 'CSC512'])}>, Status <{stat}>, Queue <gpu>, Command <#!/bin/bash;#BSUB -J {self.jobname};mpirun -np {self.W} python -u {self.script} --config configs/{self.jobname}.yaml>, Share group charged </{self.user}>",
                 f"{fmt(self.t_submit)}: Submitted from host <login1>, CWD <{self.workdir}>, Output File <{self.jobname}.%J.out>, {self.W} Task(s), Requested Resources <span[ptile={self.G}]>, Requested GPU <num={self.G}:mode=exclusive_process>;",
                 f"{fmt(self.t0)}: Started {self.W} Task(s) on Host(s) {hosts}, Allocated {self.W} Slot(s) on Host(s) {hosts}, Execution Home </home/{self.user}>, Execution CWD <{self.workdir}>;"]
        if self.end == "cancelled":
            paras.append(f"{fmt(self.t_end)}: Signal <KILL> requested by user or administrator <{self.user}>;")
        if self.end == "node_fail":
            paras.append(f"{fmt(self.t_fail + timedelta(seconds=rng.randrange(120, 600)))}: Unable to reach the remote execution host <{self.hosts[self.lost_node]}>;")
            paras.append(f"{fmt(self.t_end)}: Signal <KILL> requested by user or administrator <root>;")
        if self.end == "completed":
            paras.append(f"{fmt(self.t_end)}: Done successfully. The CPU time used is {rng.randrange(10 ** 5, 10 ** 7)}.0 seconds.")
        else:
            paras.append(f"{fmt(self.t_end)}: Exited with exit code {code}. The CPU time used is {rng.randrange(10 ** 5, 10 ** 7)}.0 seconds.")
            paras.append(f"{fmt(self.t_end)}: Completed <exit>" + (f"; {term}" if term else "."))
        out = [f"$ bjobs -l {jid}", ""]
        for p in paras:
            out.append(lsf_wrap(p))
            out.append("")
        mx = rng.randrange(60, 900)
        out += [" MEMORY USAGE:", f" MAX MEM: {mx} Gbytes;  AVG MEM: {int(mx * rng.uniform(0.4, 0.9))} Gbytes; MEM Efficiency: {rng.uniform(10, 99):.2f}%", "",
                " CPU USAGE:", f" CPU PEAK: {rng.uniform(10, 200):.2f} ;  CPU PEAK DURATION: {rng.randrange(10, 600)} second(s)", "",
                " RUNLIMIT", f" {self.limit_h * 60:.1f} min", "", " SCHEDULING PARAMETERS:",
                "           r15s   r1m  r15m   ut      pg    io   ls    it    tmp    swp    mem",
                " loadSched   -     -     -     -       -     -    -     -     -      -      -  ",
                " loadStop    -     -     -     -       -     -    -     -     -      -      -  ", ""]
        return "\n".join(out)

    def bhosts_l(self, n):
        rng = self.rng
        h = self.hosts[n]
        rs, t, u = self.drain[n]
        st = "unavail" if self.lost_node == n else "closed_Adm"
        if self.lost_node == n and hasattr(self, "drain_admin"):
            rs = self.drain_admin[0]
        L = [f"$ bhosts -l {h}", f"HOST  {h}",
             "STATUS           CPUF  JL/U    MAX  NJOBS    RUN  SSUSP  USUSP    RSV DISPATCH_WINDOW",
             f"{st:<15}{100.0:>6.2f}     -{self.G * 7:>7}      0      0      0      0      0      -", "",
             " CURRENT LOAD USED FOR SCHEDULING:",
             "              r15s   r1m  r15m    ut    pg    io   ls    it   tmp   swp   mem  slots  ngpus",
             f" Total         {rng.uniform(0, 1):.1f}   {rng.uniform(0, 1):.1f}   {rng.uniform(0, 1):.1f}    {rng.randrange(0, 5)}%   0.0     0    0  {rng.randrange(1, 90)}  {rng.randrange(100, 900)}G    0M  {rng.randrange(400, 600)}G     {self.G * 7}     {self.G - (1 if self.cause in ('gpu_hardware', 'ecc_memory') else 0)}",
             "", f" ADMIN ACTION COMMENT: \"{rs}\"", ""]
        return "\n".join(L)

    # ================================================================== truth
    def truth(self):
        cause = self.cause
        rank = None
        node = None
        aliases = []
        if not self.healthy:
            if cause not in ("network", "preemption", "unknown"):
                rank = self.c
            n = None
            if cause == "preemption":
                if self.end == "spot" and self.variant == "spot":
                    n = self.spot_node
            elif cause != "unknown":
                n = self.cn
            if n is not None:
                node = self.hosts[n]
                if self.domain:
                    aliases.append(node + self.domain)
                if self.layout == "pbs_mpiexec" and getattr(self, "pbs_fqdn", ""):
                    aliases.append(node + self.pbs_fqdn)
                aliases.append(self.ips[n])
                if self.layout == "k8s_pytorchjob" and rank is not None:
                    aliases.append(self.podnames[rank])
                if self.layout == "k8s_jobset":
                    aliases += [self.podnames[n], self.podhosts[n]]
        inferable = rank is not None and bool(self.rank_found)
        if self.layout == "k8s_pytorchjob":
            topo = f"{self.W} pods x 1 GPU on {self.NN} k8s nodes"
        else:
            topo = f"{self.N} nodes x {self.G} GPUs"
        notes = [f"world={self.W} ({topo}), torch {self.tt.ver}, NCCL {self.tt.nccl}, end={self.end}"]
        notes += self.notes
        if self.variant:
            notes.append(f"variant={self.variant}")
        if rank is not None:
            notes.append("rank evidence: " + ("; ".join(self.rank_found) if self.rank_found else "none in the files"))
        if not self.log_utc and not self.layout.startswith("k8s"):
            notes.append(f"trainer logs and scheduler in site time {self.tzname}")
        elif not self.layout.startswith("k8s"):
            notes.append(f"trainer logs in UTC, scheduler/kernel in {self.tzname}")
        return {"cause": cause, "healthy": self.healthy, "rank": rank, "node": node,
                "drain": bool(cause in DRAIN_CAUSES), "rank_inferable": inferable, "node_aliases": aliases,
                "layout": self.layout, "notes": "; ".join(notes)}


# ----------------------------------------------------------------------------- driver
def plan(n, seed):
    rng = random.Random(f"blind21-plan:{seed}")
    causes = CAUSES[:]
    rng.shuffle(causes)
    lay = []
    while len(lay) < n:
        b = LAYOUTS[:]
        rng.shuffle(b)
        lay += b
    out = []
    k = 0
    for i in range(n):
        if i % 7 == 3:
            c = None
        else:
            c = causes[k % len(causes)]
            k += 1
        out.append((c, lay[i]))
    return out


def write_run(root, i, run):
    d = os.path.join(root, f"run-{i:03d}-{run.layout}")
    if os.path.isdir(d):
        shutil.rmtree(d)
    os.makedirs(d)
    total = 0
    for name in sorted(run.files):
        txt = run.files[name]
        p = os.path.join(d, name)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w", encoding="utf-8") as f:
            f.write(txt)
        total += len(txt.encode("utf-8"))
    with open(os.path.join(d, "truth.json"), "w", encoding="utf-8") as f:
        json.dump(run.truth(), f, indent=2)
        f.write("\n")
    return total


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--seed", default="1")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    counts = {c: 0 for c in CAUSES}
    counts["healthy"] = 0
    for i, (cause, layout) in enumerate(plan(a.n, a.seed)):
        run = Run(a.seed, i, layout, cause)
        write_run(a.out, i, run)
        counts[cause or "healthy"] += 1
    print(json.dumps(counts, indent=1))


if __name__ == "__main__":
    main()
