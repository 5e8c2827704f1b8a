#!/usr/bin/env python3
"""gen_blind40 -- synthetic log bundles of MoE / expert-parallel training jobs.

Written blind (no access to the diagnosis tool, its rules, tests, docs or corpus).
Theme: Megatron-Core MoE, DeepSpeed-MoE, torchtitan with expert parallel, DeepEP /
NVSHMEM all-to-all, Transformer Engine grouped GEMM.

    python3 gen_blind40.py --out DIR --n 60 --seed S

Standard library only.  Deterministic per seed (string-seeded random.Random).
"""
import argparse
import json
import os
import sys
from datetime import datetime, timezone
import random

CAUSES = ["gpu_hardware", "ecc_memory", "nvlink", "network", "cuda_oom",
          "illegal_memory_access", "python_exception", "host_oom_kill",
          "crash_signal", "preemption", "hang", "data_loader_stall",
          "collective_mismatch", "straggler", "unknown"]
LAYOUTS = ["slurm_megatron", "torchrun_titan", "k8s_pytorchjob",
           "deepspeed_pdsh", "console_paste"]

BUSIDS = {
    "dgx": ["18", "2a", "3a", "5d", "9a", "ab", "ba", "db"],
    "hgx": ["19", "3b", "4c", "5d", "9b", "bb", "cb", "db"],
    "sm": ["1b", "43", "52", "61", "9d", "c3", "d1", "df"],
}
HCAS = ["mlx5_0", "mlx5_3", "mlx5_4", "mlx5_5", "mlx5_6", "mlx5_9", "mlx5_10", "mlx5_11"]
IBDEV = ["ibp24s0", "ibp64s0", "ibp79s0", "ibp94s0", "ibp154s0", "ibp192s0", "ibp206s0", "ibp220s0"]
NICPCI = ["0000:1a:00.0", "0000:40:00.0", "0000:4f:00.0", "0000:5e:00.0",
          "0000:9c:00.0", "0000:c0:00.0", "0000:ce:00.0", "0000:dc:00.0"]
SIGNAME = {6: "SIGABRT", 9: "SIGKILL", 11: "SIGSEGV", 15: "SIGTERM", 7: "SIGBUS"}
DAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
MONS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]


def D(t):
    return datetime.fromtimestamp(t, tz=timezone.utc)


def frac_ns(t):
    v = int(round((t - int(t)) * 1e9))
    return min(v, 999999999)


def ts_glog(t, lvl="E"):
    d = D(t)
    return "%s%02d%02d %02d:%02d:%02d.%09d" % (lvl, d.month, d.day, d.hour, d.minute, d.second, frac_ns(t))


def ts_agent(t, lvl="W"):
    d = D(t)
    return "%s%02d%02d %02d:%02d:%02d.%06d" % (lvl, d.month, d.day, d.hour, d.minute, d.second,
                                              (frac_ns(t) // 1000000) * 1000)


def ts_py(t):
    d = D(t)
    return "%04d-%02d-%02d %02d:%02d:%02d,%03d" % (d.year, d.month, d.day, d.hour, d.minute, d.second,
                                                  frac_ns(t) // 1000000)


def ts_sec(t):
    d = D(t)
    return "%04d-%02d-%02d %02d:%02d:%02d" % (d.year, d.month, d.day, d.hour, d.minute, d.second)


def ts_iso(t):
    d = D(t)
    return "%04d-%02d-%02dT%02d:%02d:%02d" % (d.year, d.month, d.day, d.hour, d.minute, d.second)


def ts_rfc(t):
    d = D(t)
    return "%04d-%02d-%02dT%02d:%02d:%02d.%09dZ" % (d.year, d.month, d.day, d.hour, d.minute, d.second, frac_ns(t))


def ts_under(t):
    d = D(t)
    return "%04d-%02d-%02d_%02d:%02d:%02d" % (d.year, d.month, d.day, d.hour, d.minute, d.second)


def ts_syslog(t):
    d = D(t)
    return "%s %2d %02d:%02d:%02d" % (MONS[d.month - 1], d.day, d.hour, d.minute, d.second)


def ts_dmesgT(t):
    d = D(t)
    return "%s %s %2d %02d:%02d:%02d %04d" % (DAYS[d.weekday()], MONS[d.month - 1], d.day, d.hour,
                                             d.minute, d.second, d.year)


def ts_k8s(t):
    d = D(t)
    return "%s, %02d %s %04d %02d:%02d:%02d +0000" % (DAYS[d.weekday()], d.day, MONS[d.month - 1], d.year,
                                                       d.hour, d.minute, d.second)


def ranges(nums):
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


def hostlist(hosts):
    """Slurm-style compressed host list: h100-[001-004]."""
    import re
    groups = []
    for h in hosts:
        m = re.match(r"^(.*?)(\d+)$", h)
        if not m:
            groups.append((h, None, None))
            continue
        pre, num = m.group(1), m.group(2)
        if groups and groups[-1][0] == pre and groups[-1][1] is not None:
            groups[-1][1].append(int(num))
        else:
            groups.append((pre, [int(num)], len(num)))
    out = []
    for pre, nums, w in groups:
        if nums is None:
            out.append(pre)
            continue
        if len(nums) == 1:
            out.append("%s%0*d" % (pre, w, nums[0]))
            continue
        parts = []
        i = 0
        while i < len(nums):
            j = i
            while j + 1 < len(nums) and nums[j + 1] == nums[j] + 1:
                j += 1
            parts.append(("%0*d" % (w, nums[i])) if i == j else ("%0*d-%0*d" % (w, nums[i], w, nums[j])))
            i = j + 1
        out.append("%s[%s]" % (pre, ",".join(parts)))
    return ",".join(out)


def age(sec):
    sec = int(max(sec, 1))
    if sec < 120:
        return "%ds" % sec
    if sec < 3600:
        m = sec // 60
        s = sec % 60
        return "%dm%ds" % (m, s) if m < 10 and s else "%dm" % m
    h = sec // 3600
    m = (sec % 3600) // 60
    return "%dh%dm" % (h, m) if h < 10 and m else "%dh" % h


class Block:
    """A contiguous chunk of output emitted by one process (or one host daemon).

    lines: list of (kind, text); kind 'g' = c10/glog line (gets "[rankN]:" prefix),
    'p' = python exception/traceback line (gets "[rankN]: "), 'o' = plain output."""
    __slots__ = ("t", "host", "rank", "ch", "lines", "seq")

    def __init__(self, t, host, rank, ch, lines, seq):
        self.t = t
        self.host = host
        self.rank = rank
        self.ch = ch          # 'rank' | 'agent' | 'launcher' | 'sched' | 'kern'
        self.lines = lines
        self.seq = seq


# ---------------------------------------------------------------------------
# The run model
# ---------------------------------------------------------------------------

class Run:
    def __init__(self, idx, seed, cause, layout, healthy):
        self.idx = idx
        self.seed = seed
        self.cause = cause
        self.layout = layout
        self.healthy = healthy
        self.rng = random.Random("blind40|%s|%d|%s|%s" % (seed, idx, cause, layout))
        self.blocks = []
        self._seq = 0
        self.extra_files = {}       # path -> text (operator attachments)
        self.kern = {}              # host -> list of (t, msg)
        self.exits = {}             # rank -> (t, code)
        self.printed_fail = {}      # rank -> True if it printed its own failure block
        self.dead_hosts = {}        # host -> t (host vanished)
        self.agent_gone = {}        # host -> t (agent killed / pod deleted)
        self.ev_rank = []           # alternatives: list of [substrings all in one file]
        self.ev_node = []
        self.ev_cause = []          # alternatives: list of [substrings]
        self.notes = ""
        self.init_rank = None
        self.init_node = None
        self.end_state = "failed"   # failed | complete | snapshot
        self.sched_event = None
        self.k8s_events = []        # (t, type, reason, obj, msg)
        self.pod_status = {}        # host -> dict
        self.last_exc = {}          # rank -> traceback lines
        self.setup()

    # -- helpers -----------------------------------------------------------
    def R(self):
        return self.rng

    def emit(self, t, host, rank, ch, lines):
        self._seq += 1
        norm = []
        for x in lines:
            if isinstance(x, tuple):
                norm.append(x)
            else:
                norm.append(("o", x))
        self.blocks.append(Block(t, host, rank, ch, norm, self._seq))

    def emit_rank(self, t, rank, lines):
        self.emit(t, self.host_of(rank), rank, "rank", lines)

    def kmsg(self, host, t, msg):
        self.kern.setdefault(host, []).append((t, msg))

    def lt(self, host, t):
        return t + self.skew.get(host, 0.0)

    def lr(self, rank, t):
        return self.lt(self.host_of(rank), t)

    def host_of(self, rank):
        return self.hosts[rank // self.gpn]

    def local(self, rank):
        return rank % self.gpn

    def ranks_on(self, host):
        i = self.hosts.index(host)
        return list(range(i * self.gpn, (i + 1) * self.gpn))

    # -- configuration -----------------------------------------------------
    def setup(self):
        r = self.rng
        base = self.layout
        if base == "console_paste":
            base = r.choice(["slurm_megatron", "torchrun_titan", "deepspeed_pdsh", "k8s_pytorchjob",
                             "slurm_megatron"])
        self.base = base
        if base == "slurm_megatron":
            self.stack, self.launcher = "megatron", "srun"
            self.dispatcher = r.choice(["alltoall", "alltoall", "deepep"])
        elif base == "torchrun_titan":
            self.stack, self.launcher = "titan", "torchrun"
            self.dispatcher = r.choice(["alltoall", "alltoall", "alltoall", "deepep"])
        elif base == "k8s_pytorchjob":
            self.stack, self.launcher = "megatron", "torchrun"
            self.dispatcher = r.choice(["deepep", "deepep", "alltoall"])
        else:
            self.stack, self.launcher = "deepspeed", "deepspeed"
            self.dispatcher = "alltoall"
        self.gpn = 8
        self.nnodes = r.choice([2, 2, 4, 4, 4, 8]) if base != "k8s_pytorchjob" else r.choice([2, 4, 4])
        self.world = self.nnodes * self.gpn
        # host naming
        style = r.randrange(5)
        start = r.randrange(1, 60)
        rack = r.randrange(1, 20)
        if base == "k8s_pytorchjob":
            self.jobname = r.choice(["moe-pretrain", "dsv3-lite-pt", "mixtral-ep16", "qwen-moe-sft", "olmoe-cpt"])
            self.hosts = ["%s-master-0" % self.jobname] + ["%s-worker-%d" % (self.jobname, i)
                                                          for i in range(self.nnodes - 1)]
            pool = r.choice(["gke-a3mega-gpu-np", "aks-ndh100v5", "gke-a3ultra-np", "ip-10-1"])
            self.k8snode = {}
            for i, h in enumerate(self.hosts):
                if pool.startswith("ip-"):
                    self.k8snode[h] = "ip-10-1-%d-%d.ec2.internal" % (r.randrange(16, 250), r.randrange(2, 250))
                elif pool.startswith("aks"):
                    self.k8snode[h] = "%s-%08d-vmss%06X" % (pool, r.randrange(10 ** 7, 10 ** 8), r.randrange(1, 40))
                else:
                    self.k8snode[h] = "%s-%s-%s" % (pool, "%08x" % r.getrandbits(32),
                                                    "".join(r.choice("abcdefghijklmnopqrstuvwxyz0123456789")
                                                            for _ in range(4)))
        else:
            if style == 0:
                self.hosts = ["h100-%03d" % (start + i) for i in range(self.nnodes)]
            elif style == 1:
                self.hosts = ["gpu-r%02d-n%02d" % (rack, start % 16 + i) for i in range(self.nnodes)]
            elif style == 2:
                self.hosts = ["node%04d" % (start * 7 + i) for i in range(self.nnodes)]
            elif style == 3:
                self.hosts = ["dgx-h100-%02d" % (start + i) for i in range(self.nnodes)]
            else:
                self.hosts = ["p5-st-%d-%d" % (rack, start + i) for i in range(self.nnodes)]
        sub = r.randrange(1, 200)
        o2 = r.choice([224, 100, 64, 18])
        step = r.choice([1, 1, 2, 3])
        self.ip = {}
        for i, h in enumerate(self.hosts):
            self.ip[h] = "10.%d.%d.%d" % (o2, sub, 10 + i * step)
        # clock skew between nodes
        self.skew = {}
        for i, h in enumerate(self.hosts):
            self.skew[h] = 0.0 if i == 0 else r.uniform(-3.5, 3.5)
        if r.random() < 0.2 and self.nnodes > 1:
            self.skew[self.hosts[r.randrange(1, self.nnodes)]] += r.choice([-1, 1]) * r.uniform(20, 140)
        self.bus = BUSIDS[r.choice(list(BUSIDS))]
        self.pids = {}
        for i, h in enumerate(self.hosts):
            b = r.randrange(1200, 290000)
            self.pids["agent:" + h] = b
            p = b + r.randrange(20, 90)
            for l in range(self.gpn):
                self.pids[i * self.gpn + l] = p
                p += r.randrange(1, 5)
        # software versions
        self.torch_v = r.choice(["2.5.1", "2.6.0", "2.6.0", "2.7.0", "2.7.1", "2.8.0"])
        self.new_torch = self.torch_v >= "2.6"
        self.nccl_v = {"2.5.1": "2.21.5", "2.6.0": "2.21.5", "2.7.0": "2.26.2", "2.7.1": "2.26.2",
                       "2.8.0": "2.27.3"}[self.torch_v]
        self.py = r.choice(["3.10", "3.12"]) if self.stack != "titan" else r.choice(["3.11", "3.12"])
        if self.base == "k8s_pytorchjob" or (self.base == "slurm_megatron" and r.random() < 0.6):
            self.site = "/usr/local/lib/python%s/dist-packages" % self.py
        elif self.stack == "titan":
            self.site = "/home/%s/.venv/lib/python%s/site-packages" % (r.choice(["ubuntu", "mlops", "jdoe"]), self.py)
        else:
            self.site = r.choice(["/opt/conda/lib/python%s/site-packages" % self.py,
                                  "/usr/local/lib/python%s/dist-packages" % self.py])
        self.pyexe = "/usr/bin/python3" if "dist-packages" in self.site else self.site.split("/lib/")[0] + "/bin/python"
        self.rank_prefix = True
        self.nccl_debug = r.random() < 0.6
        self.jobid = r.randrange(100000, 9999999)
        self.gpu = r.choice(["NVIDIA H100 80GB HBM3", "NVIDIA H100 80GB HBM3", "NVIDIA H200", "NVIDIA H800"])
        if "h100" in self.hosts[0] or "p5-" in self.hosts[0]:
            self.gpu = "NVIDIA H100 80GB HBM3"
        self.gpumem = {"NVIDIA H200": 139.81}.get(self.gpu, 79.11)
        self.setup_parallel()
        # timeline
        self.t0 = 1712000000 + r.randrange(0, 60 * 86400 * 9)
        self.t0 = float(self.t0) + r.random()

    def setup_parallel(self):
        r = self.rng
        W = self.world
        if self.stack == "megatron":
            self.PP = r.choice([1, 2, 2, 4]) if W >= 32 else r.choice([1, 2])
            per = W // self.PP
            self.TP = r.choice([t for t in (1, 2, 4) if per % t == 0 and per // t >= 2])
            self.ETP = 1
            eps = [e for e in (4, 8, 16, 32) if per % e == 0 and e <= per]
            self.EP = r.choice(eps)
        elif self.stack == "titan":
            self.PP = r.choice([1, 1, 2]) if W >= 32 else 1
            self.TP = 1
            self.ETP = 1
            per = W // self.PP
            self.EP = r.choice([e for e in (8, 16, 32) if per % e == 0] or [per])
        else:
            self.PP = 1
            self.TP = r.choice([1, 1, 2])
            self.ETP = 1
            self.EP = r.choice([e for e in (8, 16, 32) if W % e == 0])
        self.DP = W // (self.TP * self.PP)
        self.EDP = W // (self.ETP * self.EP * self.PP)
        self.num_experts = self.EP * r.choice([2, 4, 8]) if self.stack != "deepspeed" else self.EP * r.choice([1, 2, 4])
        self.topk = r.choice([2, 4, 6, 8]) if self.stack != "deepspeed" else r.choice([1, 2])
        self.layers = r.choice([24, 27, 28, 32, 48, 61])
        self.hidden = r.choice([2048, 4096, 5120, 7168])
        self.mbs = r.choice([1, 1, 2, 4])
        self.gbs = self.DP * self.mbs * r.choice([8, 16, 32, 64])
        self.seqlen = r.choice([4096, 4096, 8192, 2048])
        # process-group ids
        self.timeout_ms = {"megatron": r.choice([600000, 600000, 1800000]), "titan": 100000,
                           "deepspeed": 1800000}[self.stack]
        if self.stack == "megatron" and self.base == "k8s_pytorchjob":
            self.timeout_ms = r.choice([600000, 1200000])

    # -- coordinates -------------------------------------------------------
    def coords(self, r):
        tp = r % self.TP
        dp = (r // self.TP) % self.DP
        pp = r // (self.TP * self.DP)
        ep = (r // self.ETP) % self.EP
        edp = (r // (self.ETP * self.EP)) % self.EDP
        return {"tp": tp, "dp": dp, "pp": pp, "ep": ep, "edp": edp}

    def ep_group(self, r):
        c = self.coords(r)
        return [c["pp"] * self.EDP * self.EP * self.ETP + c["edp"] * self.EP * self.ETP + e * self.ETP + (r % self.ETP)
                for e in range(self.EP)]

    def dp_group(self, r):
        c = self.coords(r)
        return [c["tp"] + self.TP * (d + self.DP * c["pp"]) for d in range(self.DP)]

    def pg(self, r, kind):
        """Return (prefix string, group rank) for rank r in group kind."""
        if kind == "default":
            return self.pgfmt(0, 0, "default_pg", r), r
        if self.stack == "megatron":
            table = {"dp": (1, "DATA_PARALLEL_GROUP"), "dpcp": (2, "DATA_PARALLEL_GROUP_WITH_CP"),
                     "tp": (6, "TENSOR_MODEL_PARALLEL_GROUP"), "pp": (7, "PIPELINE_MODEL_PARALLEL_GROUP"),
                     "ep": (13, "EXPERT_MODEL_PARALLEL_GROUP"), "edp": (16, "EXPERT_DATA_PARALLEL_GROUP")}
        elif self.stack == "titan":
            table = {"dp": (1, "mesh_dp_shard"), "dpcp": (1, "mesh_dp_shard"), "tp": (3, "mesh_tp"),
                     "pp": (0 + 4, "mesh_pp"), "ep": (2, "mesh_ep"), "edp": (5, "mesh_dp_shard_mod_ep")}
        else:
            table = {"dp": (1, ""), "dpcp": (1, ""), "tp": (2, ""), "pp": (3, ""),
                     "ep": (4, ""), "edp": (5, "")}
        pid, desc = table[kind]
        if kind == "ep":
            grp = self.ep_group(r)
            gidx = r // (self.ETP * self.EP) if self.ETP == 1 else 0
            guid = 40 + gidx if self.stack == "megatron" else pid + 0
        elif kind in ("dp", "dpcp", "edp"):
            grp = self.dp_group(r)
            gidx = self.coords(r)["tp"] + self.TP * self.coords(r)["pp"]
            guid = pid + gidx * (1 if self.stack != "megatron" else 1) + (0 if self.stack != "megatron" else 0)
        else:
            grp = [r]
            guid = pid
        grank = grp.index(r) if r in grp else 0
        return self.pgfmt(pid, guid, desc, r, grank), grank

    def pgfmt(self, pid, guid, desc, r, grank=None):
        if grank is None:
            grank = r
        if desc:
            return "[PG ID %d PG GUID %d(%s) Rank %d]" % (pid, guid, desc, grank)
        return "[PG ID %d PG GUID %d Rank %d]" % (pid, guid, grank)


# ---------------------------------------------------------------------------
# Message builders (PyTorch / NCCL / CUDA)
# ---------------------------------------------------------------------------

def lib(R, name):
    return "%s/torch/lib/%s" % (R.site, name)


def addr(R, base=0x7f0000000000):
    return "0x%012x" % (base + R.rng.randrange(0x10000000000, 0xfffffffffff) // 16 * 16)


def c10_frames_timeout(R):
    f = []
    f.append("frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x98 (%s in %s)" % (addr(R), lib(R, "libc10.so")))
    f.append("frame #1: c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >) + 0x%x (%s in %s)" % (R.rng.choice([0x282, 0x2b4, 0x23d]), addr(R), lib(R, "libtorch_cuda.so")))
    f.append("frame #2: c10d::ProcessGroupNCCL::watchdogHandler() + 0x%x (%s in %s)" % (R.rng.choice([0x233, 0x890, 0x1da]), addr(R), lib(R, "libtorch_cuda.so")))
    f.append("frame #3: c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d (%s in %s)" % (addr(R), lib(R, "libtorch_cuda.so")))
    f.append("frame #4: <unknown function> + 0x145c0 (%s in %s)" % (addr(R), lib(R, "libtorch.so")))
    f.append("frame #5: <unknown function> + 0x94ac3 (%s in /lib/x86_64-linux-gnu/libc.so.6)" % addr(R))
    f.append("frame #6: clone + 0x44 (%s in /lib/x86_64-linux-gnu/libc.so.6)" % addr(R))
    return f


def c10_frames_cuda(R):
    f = []
    f.append("frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x98 (%s in %s)" % (addr(R), lib(R, "libc10.so")))
    f.append("frame #1: c10::detail::torchCheckFail(char const*, char const*, unsigned int, std::string const&) + 0xe0 (%s in %s)" % (addr(R), lib(R, "libc10.so")))
    f.append("frame #2: c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, int, bool) + 0x3c2 (%s in %s)" % (addr(R), lib(R, "libc10_cuda.so")))
    f.append("frame #3: c10d::ProcessGroupNCCL::WorkNCCL::finishedGPUExecutionInternal() const + 0x56 (%s in %s)" % (addr(R), lib(R, "libtorch_cuda.so")))
    f.append("frame #4: c10d::ProcessGroupNCCL::WorkNCCL::isCompleted() + 0xa0 (%s in %s)" % (addr(R), lib(R, "libtorch_cuda.so")))
    f.append("frame #5: c10d::ProcessGroupNCCL::watchdogHandler() + 0x1da (%s in %s)" % (addr(R), lib(R, "libtorch_cuda.so")))
    f.append("frame #6: c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d (%s in %s)" % (addr(R), lib(R, "libtorch_cuda.so")))
    f.append("frame #7: <unknown function> + 0x145c0 (%s in %s)" % (addr(R), lib(R, "libtorch.so")))
    f.append("frame #8: <unknown function> + 0x94ac3 (%s in /lib/x86_64-linux-gnu/libc.so.6)" % addr(R))
    f.append("frame #9: clone + 0x44 (%s in /lib/x86_64-linux-gnu/libc.so.6)" % addr(R))
    return f


def c10_frames_nccl(R):
    f = []
    f.append("frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x98 (%s in %s)" % (addr(R), lib(R, "libc10.so")))
    f.append("frame #1: <unknown function> + 0x%x (%s in %s)" % (R.rng.randrange(0x100000, 0x1fffff), addr(R), lib(R, "libtorch_cuda.so")))
    f.append("frame #2: c10d::ProcessGroupNCCL::WorkNCCL::checkAndSetException() + 0x%x (%s in %s)" % (R.rng.choice([0x7d, 0x1f4, 0x52]), addr(R), lib(R, "libtorch_cuda.so")))
    f.append("frame #3: c10d::ProcessGroupNCCL::watchdogHandler() + 0x%x (%s in %s)" % (R.rng.choice([0x213, 0x1b0]), addr(R), lib(R, "libtorch_cuda.so")))
    f.append("frame #4: c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d (%s in %s)" % (addr(R), lib(R, "libtorch_cuda.so")))
    f.append("frame #5: <unknown function> + 0x145c0 (%s in %s)" % (addr(R), lib(R, "libtorch.so")))
    f.append("frame #6: <unknown function> + 0x94ac3 (%s in /lib/x86_64-linux-gnu/libc.so.6)" % addr(R))
    f.append("frame #7: clone + 0x44 (%s in /lib/x86_64-linux-gnu/libc.so.6)" % addr(R))
    return f


CUDA_TAIL = ["CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
             "For debugging consider passing CUDA_LAUNCH_BLOCKING=1",
             "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions."]


def glog(R, rank, t, lvl, fileline, msg):
    return ("g", "[%s %s] %s" % (ts_glog(R.lr(rank, t), lvl), fileline, msg))


def watchdog_timeout_block(R, rank, t, kind, seq, optype, numel, last_enq, last_comp, frames=True):
    """NCCL watchdog timeout on `rank` in group `kind`.  Returns list of lines."""
    pfx, g = R.pg(rank, kind)
    ran = R.timeout_ms + R.rng.randrange(8, 95)
    numo = numel if optype != "_ALLGATHER_BASE" else numel * R.rng.choice([2, 4, 8])
    work = "WorkNCCL(SeqNum=%d, OpType=%s, NumelIn=%d, NumelOut=%d, Timeout(ms)=%d)" % (seq, optype, numel, numo, R.timeout_ms)
    head = "[Rank %d] Watchdog caught collective operation timeout: %s ran for %d milliseconds before timing out." % (g, work, ran)
    L = []
    if R.new_torch:
        L.append(glog(R, rank, t, "E", "ProcessGroupNCCL.cpp:632", head))
        L.append(glog(R, rank, t + 0.0003, "E", "ProcessGroupNCCL.cpp:2271",
                      "%s failure detected by watchdog at work sequence id: %d PG status: last enqueued work: %d, last completed work: %d" % (pfx, seq, last_enq, last_comp)))
        L.append(glog(R, rank, t + 0.0004, "E", "ProcessGroupNCCL.cpp:670",
                      "Stack trace of the failed collective not found, potentially because FlightRecorder is disabled. You can enable it by setting TORCH_NCCL_TRACE_BUFFER_SIZE to a non-zero value."))
        L.append(glog(R, rank, t + 0.0005, "E", "ProcessGroupNCCL.cpp:2106", "%s First PG on this rank to signal dumping." % pfx))
        L.append(glog(R, rank, t + 1.2, "E", "ProcessGroupNCCL.cpp:1746",
                      "%s Received a dump signal due to a collective timeout from this local rank and we will try our best to dump the debug info. Last enqueued NCCL work: %d, last completed NCCL work: %d.This is most likely caused by incorrect usages of collectives, e.g., wrong sizes used across ranks, the order of collectives is not same for all ranks or the scheduled collective, for some reason, didn't run. Additionally, this can be caused by GIL deadlock or other reasons such as network errors or bugs in the communications library (e.g. NCCL), etc. " % (R.pg(rank, "default")[0], last_enq, last_comp)))
        L.append(glog(R, rank, t + 1.21, "E", "ProcessGroupNCCL.cpp:1536",
                      "%s ProcessGroupNCCL preparing to dump debug info. Include stack trace: 1" % R.pg(rank, "default")[0]))
        L.append(glog(R, rank, t + 2.0, "E", "ProcessGroupNCCL.cpp:684",
                      "[Rank %d] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data." % g))
        L.append(glog(R, rank, t + 2.0, "E", "ProcessGroupNCCL.cpp:698", "[Rank %d] To avoid data inconsistency, we are taking the entire process down." % g))
        L.append(glog(R, rank, t + 2.001, "E", "ProcessGroupNCCL.cpp:1899", "%s Process group watchdog thread terminated with exception: %s" % (pfx, head)))
        src = "/pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:635"
    else:
        L.append(glog(R, rank, t, "E", "ProcessGroupNCCL.cpp:616", head))
        L.append(glog(R, rank, t + 0.0003, "E", "ProcessGroupNCCL.cpp:1785",
                      "%s Exception (either an error or timeout) detected by watchdog at work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (pfx, seq, last_enq, last_comp)))
        L.append(glog(R, rank, t + 0.0004, "E", "ProcessGroupNCCL.cpp:630",
                      "[Rank %d] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data." % g))
        L.append(glog(R, rank, t + 0.0005, "E", "ProcessGroupNCCL.cpp:636", "[Rank %d] To avoid data inconsistency, we are taking the entire process down." % g))
        L.append(glog(R, rank, t + 0.001, "E", "ProcessGroupNCCL.cpp:1595", "%s Process group watchdog thread terminated with exception: %s" % (pfx, head)))
        src = "../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:618"
    if frames:
        fr = c10_frames_timeout(R)
        L.append("Exception raised from checkTimeout at %s (most recent call first):" % src)
        L.extend(fr)
        L.append("")
    L.append("terminate called after throwing an instance of 'c10::DistBackendError'")
    L.append("  what():  %s Process group watchdog thread terminated with exception: %s" % (pfx, head))
    if frames:
        L.append("Exception raised from checkTimeout at %s (most recent call first):" % src)
        L.extend(c10_frames_timeout(R))
        L.append("")
    if frames and R.rng.random() < 0.5:
        L.append("Exception raised from ncclCommWatchdog at %s (most recent call first):" % src.replace(":635", ":1905").replace(":618", ":1601"))
        L.append("frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x98 (%s in %s)" % (addr(R), lib(R, "libc10.so")))
        L.append("frame #1: <unknown function> + 0x%x (%s in %s)" % (R.rng.randrange(0x100000, 0x1fffff), addr(R), lib(R, "libtorch_cuda.so")))
        L.append("frame #2: <unknown function> + 0x%x (%s in %s)" % (R.rng.randrange(0xc00000, 0xdfffff), addr(R), lib(R, "libtorch_cuda.so")))
        L.append("frame #3: <unknown function> + 0x145c0 (%s in %s)" % (addr(R), lib(R, "libtorch.so")))
        L.append("frame #4: <unknown function> + 0x94ac3 (%s in /lib/x86_64-linux-gnu/libc.so.6)" % addr(R))
        L.append("frame #5: clone + 0x44 (%s in /lib/x86_64-linux-gnu/libc.so.6)" % addr(R))
        L.append("")
    return L


def dump_signal_line(R, rank, t, from_rank, last_enq, last_comp):
    pfx = R.pg(rank, "default")[0]
    if R.new_torch:
        return glog(R, rank, t, "E", "ProcessGroupNCCL.cpp:1746",
                    "%s Received a dump signal due to a collective timeout from  rank %d and we will try our best to dump the debug info. Last enqueued NCCL work: %d, last completed NCCL work: %d.This is most likely caused by incorrect usages of collectives, e.g., wrong sizes used across ranks, the order of collectives is not same for all ranks or the scheduled collective, for some reason, didn't run. Additionally, this can be caused by GIL deadlock or other reasons such as network errors or bugs in the communications library (e.g. NCCL), etc. " % (pfx, from_rank, last_enq, last_comp))
    return glog(R, rank, t, "E", "ProcessGroupNCCL.cpp:1427",
                "%s Observed flight recorder dump signal from another rank via TCPStore." % pfx)


def watchdog_error_block(R, rank, t, kind, what_lines, frames_fn, src, include_terminate=True):
    """Watchdog thread terminated with a non-timeout exception (CUDA or NCCL error)."""
    pfx, g = R.pg(rank, kind)
    L = [glog(R, rank, t, "E", "ProcessGroupNCCL.cpp:%d" % (1899 if R.new_torch else 1595),
              "%s Process group watchdog thread terminated with exception: %s" % (pfx, what_lines[0]))]
    L.extend(what_lines[1:])
    if frames_fn:
        L.append("Exception raised from %s (most recent call first):" % src)
        L.extend(frames_fn(R))
        L.append("")
    if include_terminate:
        L.append("terminate called after throwing an instance of 'c10::DistBackendError'")
        L.append("  what():  %s Process group watchdog thread terminated with exception: %s" % (pfx, what_lines[0]))
        L.extend(what_lines[1:])
        if frames_fn:
            L.append("Exception raised from %s (most recent call first):" % src)
            L.extend(frames_fn(R))
            L.append("")
    return L


def cuda_src(R):
    return "c10_cuda_check_implementation at %s/c10/cuda/CUDAException.cpp:43" % ("/pytorch" if R.new_torch else "..")


def nccl_hostpfx(R, rank, tid=None):
    h = R.host_of(rank)
    pid = R.pids[rank]
    if tid is None:
        tid = pid + R.rng.randrange(300, 2400)
    return "%s:%d:%d [%d]" % (h, pid, tid, R.local(rank))


def ib_completion_warn(R, rank, peer_host, local_host, hca, status="IBV_WC_RETRY_EXC_ERR(12)", vendor=129):
    req = R.rng.choice([524288, 1048576, 131072, 262144])
    op = R.rng.choice(["IBV_WC_SEND(0)", "IBV_WC_RDMA_WRITE(1)"])
    rt = "Send" if op.startswith("IBV_WC_SEND") else "RDMA_WRITE"
    return ("NET/IB : Got completion from peer %s<%d> with status=%s opcode=%s reqSize=%d vendor_err=%d req_type=%s localGid ::ffff:%s remoteGids ::ffff:%s hca %s"
            % (R.ip[peer_host], R.rng.randrange(32768, 60999), status, op, req, vendor, rt,
               R.ip[local_host], R.ip[peer_host], hca))


def py_tb(frames, exc_lines):
    out = [("p", "Traceback (most recent call last):")]
    for f in frames:
        out.append(("p", f[0]))
        if f[1]:
            out.append(("p", f[1]))
    for e in exc_lines:
        out.append(("p", e))
    return out


# ---------------------------------------------------------------------------
# Stack-specific Python frames
# ---------------------------------------------------------------------------

def F(path, line, func, code=None):
    return ('  File "%s", line %d, in %s' % (path, line, func), ("    " + code) if code else None)


def torch_module_frames(R):
    p = "%s/torch/nn/modules/module.py" % R.site
    return [F(p, 1751, "_wrapped_call_impl", "return self._call_impl(*args, **kwargs)"),
            F(p, 1762, "_call_impl", "return forward_call(*args, **kwargs)")]


def mroot(R):
    if not hasattr(R, "_mroot"):
        R._mroot = R.rng.choice(["/workspace/megatron-lm", "/opt/megatron-lm", "/workspace/Megatron-LM",
                                 "/lustre/fsw/portfolios/llm/users/%s/Megatron-LM" % R.rng.choice(["jdoe", "akumar", "lwang"])])
    return R._mroot


def ttroot(R):
    if not hasattr(R, "_ttroot"):
        R._ttroot = R.rng.choice(["/workspace/torchtitan", "/home/ubuntu/torchtitan", "/fsx/%s/torchtitan" % R.rng.choice(["jdoe", "mkim"])])
    return R._ttroot


def dsroot(R):
    if not hasattr(R, "_dsroot"):
        R._dsroot = R.rng.choice(["/workspace/Megatron-DeepSpeed", "/home/%s/Megatron-DeepSpeed" % R.rng.choice(["ubuntu", "azureuser"])])
    return R._dsroot


def megatron_frames(R, where):
    m = mroot(R)
    S = R.site
    fr = [F(m + "/pretrain_gpt.py", R.rng.choice([319, 329, 341]), "<module>", "pretrain("),
          F(m + "/megatron/training/training.py", 386, "pretrain", "iteration, num_floating_point_operations_so_far = train("),
          F(m + "/megatron/training/training.py", 1468, "train", "train_step(forward_step_func,"),
          F(m + "/megatron/training/training.py", 784, "train_step", "losses_reduced = forward_backward_func(")]
    sched = m + "/megatron/core/pipeline_parallel/schedules.py"
    if where == "optimizer":
        fr = fr[:3] + [F(m + "/megatron/training/training.py", 811, "train_step", "update_successful, grad_norm, num_zeros_in_grad = optimizer.step()"),
                       F(S + "/torch/utils/_contextlib.py", 116, "decorate_context", "return func(*args, **kwargs)"),
                       F(m + "/megatron/core/optimizer/optimizer.py", 478, "step", "found_inf_flag = self.prepare_grads()"),
                       F(m + "/megatron/core/optimizer/distrib_optimizer.py", 2052, "_copy_model_grads_to_main_grads", "shard_main_param.grad = shard_model_grad.float()")]
        return fr
    if where == "nan_check":
        fr += [F(sched, 1950, "forward_backward_pipelining_without_interleaving", "config.finalize_model_grads_func("),
               F(m + "/megatron/core/distributed/finalize_model_grads.py", 276, "finalize_model_grads", "model_chunk.finish_grad_sync()"),
               F(m + "/megatron/core/distributed/distributed_data_parallel.py", 474, "finish_grad_sync", "bucket_group.finish_grad_sync()"),
               F(m + "/megatron/core/distributed/param_and_grad_buffer.py", 423, "finish_grad_sync", "self.start_grad_sync()"),
               F(m + "/megatron/core/distributed/param_and_grad_buffer.py", 287, "start_grad_sync", "self.check_grads("),
               F(m + "/megatron/core/distributed/param_and_grad_buffer.py", 163, "check_grads", "rerun_state_machine.validate_result("),
               F(m + "/megatron/core/rerun_state_machine.py", 519, "validate_result", "raise RuntimeError(full_message)")]
        return fr
    if where == "data":
        fr += [F(sched, 1808, "forward_backward_pipelining_without_interleaving", "output_tensor, num_tokens = forward_step("),
               F(sched, 275, "forward_step", "output_tensor, loss_func = forward_step_func(data_iterator, model)"),
               F(m + "/pretrain_gpt.py", 218, "forward_step", "tokens, labels, loss_mask, attention_mask, position_ids = get_batch("),
               F(m + "/pretrain_gpt.py", 157, "get_batch", "batch = get_batch_on_this_tp_rank(data_iterator)"),
               F(m + "/megatron/training/utils.py", 474, "get_batch_on_this_tp_rank", "data = next(data_iterator)"),
               F(S + "/torch/utils/data/dataloader.py", 708, "__next__", "data = self._next_data()"),
               F(S + "/torch/utils/data/dataloader.py", 1458, "_next_data", "idx, data = self._get_data()"),
               F(S + "/torch/utils/data/dataloader.py", 1420, "_get_data", "success, data = self._try_get_data()"),
               F(S + "/torch/utils/data/dataloader.py", 1264, "_try_get_data", "raise RuntimeError(f\"DataLoader timed out after {self._timeout} seconds\") from e")]
        return fr
    if where == "ckpt":
        fr = fr[:3] + [F(m + "/megatron/training/training.py", 1583, "train", "save_checkpoint_and_time(iteration, model, optimizer,"),
                       F(m + "/megatron/training/training.py", 1219, "save_checkpoint_and_time", "save_checkpoint(iteration, model, optimizer, opt_param_scheduler,"),
                       F(m + "/megatron/training/checkpointing.py", 442, "save_checkpoint", "async_save_request = dist_checkpointing.save(state_dict, checkpoint_name, save_strategy,"),
                       F(m + "/megatron/core/dist_checkpointing/serialization.py", 394, "save", "async_request = sharded_strategy.save(sharded_state_dict, checkpoint_dir)"),
                       F(m + "/megatron/core/dist_checkpointing/strategies/torch.py", 667, "save", "write_results = self.async_save(sharded_state_dict, checkpoint_dir)"),
                       F(S + "/torch/distributed/checkpoint/filesystem.py", 381, "_write_files_from_queue", "_write_item(transforms, stream, data, write_item, storage_key)")]
        return fr
    fwd = [F(sched, 1808, "forward_backward_pipelining_without_interleaving", "output_tensor, num_tokens = forward_step("),
           F(sched, 275, "forward_step", "output_tensor, loss_func = forward_step_func(data_iterator, model)"),
           F(m + "/pretrain_gpt.py", 231, "forward_step", "output_tensor = model(tokens, position_ids, attention_mask,")]
    fwd += torch_module_frames(R)
    fwd += [F(m + "/megatron/core/distributed/data_parallel_base.py", 22, "forward", "return self.module(*inputs, **kwargs)")]
    fwd += torch_module_frames(R)
    fwd += [F(m + "/megatron/core/transformer/module.py", 178, "forward", "outputs = self.module(*inputs, **kwargs)")]
    fwd += torch_module_frames(R)
    fwd += [F(m + "/megatron/core/models/gpt/gpt_model.py", 264, "forward", "hidden_states = self.decoder("),
            F(m + "/megatron/core/transformer/transformer_block.py", 496, "forward", "hidden_states, context = layer("),
            F(m + "/megatron/core/transformer/transformer_layer.py", 390, "forward", "mlp_output_with_bias = self.mlp(pre_mlp_layernorm_output)")]
    fwd += torch_module_frames(R)
    fwd += [F(m + "/megatron/core/transformer/moe/moe_layer.py", 154, "forward", "output, mlp_bias = custom_forward(hidden_states)")]
    moe = m + "/megatron/core/transformer/moe/moe_layer.py"
    td = m + "/megatron/core/transformer/moe/token_dispatcher.py"
    if where == "backward":
        fr += [F(sched, 1846, "forward_backward_pipelining_without_interleaving", "input_tensor_grad = backward_step("),
               F(sched, 391, "backward_step", "custom_backward(output_tensor[0], output_tensor_grad[0])"),
               F(sched, 152, "custom_backward", "Variable._execution_engine.run_backward(")]
        return fr
    fr += fwd
    if where == "router":
        fr += [F(moe, 137, "custom_forward", "probs, routing_map = self.router(hidden_states)")]
        fr += torch_module_frames(R)
        fr += [F(m + "/megatron/core/transformer/moe/router.py", 456, "forward", "scores, routing_map = self.routing(logits)"),
               F(m + "/megatron/core/transformer/moe/router.py", 409, "routing", "scores, routing_map, tokens_per_expert = topk_softmax_with_capacity("),
               F(m + "/megatron/core/transformer/moe/moe_utils.py", 537, "topk_softmax_with_capacity", "expert_capacity = get_capacity(")]
        return fr
    if where in ("dispatch", "combine"):
        if R.dispatcher == "deepep":
            fr += [F(moe, 141, "custom_forward", "(dispatched_input, tokens_per_expert) = self.token_dispatcher.token_permutation("),
                   F(td, 1183, "token_permutation", "hidden_states = self._comm_manager.dispatch(hidden_states, async_finish, allocate_on_comm_stream)"),
                   F(td, 964, "dispatch", "hidden_states, dispatched_indices, dispatched_probs, num_tokens_per_expert, handle = fused_dispatch("),
                   F(m + "/megatron/core/transformer/moe/fused_a2a.py", 178, "fused_dispatch", "return FusedDispatch.apply("),
                   F(S + "/torch/autograd/function.py", 575, "apply", "return super().apply(*args, **kwargs)  # type: ignore[misc]"),
                   F(m + "/megatron/core/transformer/moe/fused_a2a.py", 88, "forward", ") = buffer.dispatch("),
                   F(S + "/deep_ep/buffer.py", 322, "dispatch", "return self.internode_dispatch(x, handle, num_tokens_per_rank, num_tokens_per_rdma_rank, is_token_in_rank,"),
                   F(S + "/deep_ep/buffer.py", 505, "internode_dispatch", "recv_src_meta, send_rdma_head, send_nvl_head, event = self.runtime.internode_dispatch(")]
        else:
            fr += [F(moe, 141, "custom_forward", "(dispatched_input, tokens_per_expert) = self.token_dispatcher.token_permutation("),
                   F(td, 546, "token_permutation", "global_input_tokens = all_to_all("),
                   F(m + "/megatron/core/tensor_parallel/mappings.py", 486, "all_to_all", "return _AllToAll.apply(group, input_, output_split_sizes_, input_split_sizes)"),
                   F(S + "/torch/autograd/function.py", 575, "apply", "return super().apply(*args, **kwargs)  # type: ignore[misc]"),
                   F(m + "/megatron/core/tensor_parallel/mappings.py", 400, "forward", "torch.distributed.all_to_all_single("),
                   F(S + "/torch/distributed/c10d_logger.py", 81, "wrapper", "return func(*args, **kwargs)"),
                   F(S + "/torch/distributed/distributed_c10d.py", 4388, "all_to_all_single", "work = group.alltoall_base(")]
        return fr
    if where == "experts":
        te = "%s/transformer_engine/pytorch" % S
        fr += [F(moe, 146, "custom_forward", "expert_output, mlp_bias = self.experts(dispatched_input, tokens_per_expert)")]
        fr += torch_module_frames(R)
        fr += [F(m + "/megatron/core/transformer/moe/experts.py", 782, "forward", "intermediate_parallel, bias_parallel = self.linear_fc1("),
               F(m + "/megatron/core/extensions/transformer_engine.py", 1046, "forward", "out = super().forward(x, m_splits, is_first_microbatch=_is_first_microbatch)"),
               F(te + "/module/grouped_linear.py", 690, "forward", "out = linear_fn(*args)"),
               F(S + "/torch/autograd/function.py", 575, "apply", "return super().apply(*args, **kwargs)  # type: ignore[misc]"),
               F(te + "/module/grouped_linear.py", 154, "forward", "_ = general_grouped_gemm("),
               F(te + "/cpp_extensions/gemm.py", 212, "general_grouped_gemm", "bias = tex.te_general_grouped_gemm(")]
        return fr
    if where == "permute":
        fr += [F(moe, 141, "custom_forward", "(dispatched_input, tokens_per_expert) = self.token_dispatcher.token_permutation("),
               F(td, 612, "token_permutation", "global_input_tokens, self.reversed_global_input_permutation_mapping = permute("),
               F(m + "/megatron/core/transformer/moe/moe_utils.py", 238, "permute", "permuted_input = tokens.index_select(0, sorted_indices)")]
        return fr
    return fr


def titan_frames(R, where):
    t = ttroot(R)
    S = R.site
    fr = [F(t + "/torchtitan/train.py", 684, "<module>", "trainer.train()"),
          F(S + "/torch/distributed/elastic/multiprocessing/errors/__init__.py", 357, "wrapper", "return f(*args, **kwargs)"),
          F(t + "/torchtitan/train.py", 595, "train", "self.train_step(data_iterator)")]
    if where == "data":
        fr += [F(t + "/torchtitan/train.py", 481, "train_step", "input_dict, labels = next(data_iterator)"),
               F(t + "/torchtitan/train.py", 410, "batch_generator", "batch = next(data_iterator)"),
               F(S + "/torchdata/stateful_dataloader/stateful_dataloader.py", 450, "__next__", "return super().__next__()"),
               F(S + "/torch/utils/data/dataloader.py", 708, "__next__", "data = self._next_data()"),
               F(S + "/torch/utils/data/dataloader.py", 1458, "_next_data", "idx, data = self._get_data()"),
               F(S + "/torch/utils/data/dataloader.py", 1420, "_get_data", "success, data = self._try_get_data()"),
               F(S + "/torch/utils/data/dataloader.py", 1264, "_try_get_data", "raise RuntimeError(f\"DataLoader timed out after {self._timeout} seconds\") from e")]
        return fr
    if where == "optimizer":
        fr += [F(t + "/torchtitan/train.py", 520, "train_step", "self.optimizers.step()"),
               F(t + "/torchtitan/components/optimizer.py", 89, "step", "super().step(*args, **kwargs)"),
               F(S + "/torch/optim/optimizer.py", 485, "wrapper", "out = func(*args, **kwargs)"),
               F(S + "/torch/optim/adamw.py", 230, "step", "adamw(")]
        return fr
    if where == "ckpt":
        fr += [F(t + "/torchtitan/train.py", 604, "train", "self.checkpointer.save("),
               F(t + "/torchtitan/components/checkpoint.py", 503, "save", "self.dcp_save("),
               F(t + "/torchtitan/components/checkpoint.py", 419, "dcp_save", "ret = dcp.save(state_dict, checkpoint_id=checkpoint_id)"),
               F(S + "/torch/distributed/checkpoint/filesystem.py", 381, "_write_files_from_queue", "_write_item(transforms, stream, data, write_item, storage_key)")]
        return fr
    fr += [F(t + "/torchtitan/train.py", 499, "train_step", "loss = self.forward_backward_step(input_dict, labels)")]
    if where == "backward":
        fr += [F(t + "/torchtitan/train.py", 475, "forward_backward_step", "loss.backward()"),
               F(S + "/torch/_tensor.py", 648, "backward", "torch.autograd.backward("),
               F(S + "/torch/autograd/__init__.py", 353, "backward", "_engine_run_backward("),
               F(S + "/torch/autograd/graph.py", 824, "_engine_run_backward", "return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass")]
        return fr
    fr += [F(t + "/torchtitan/train.py", 471, "forward_backward_step", "pred = model_parts[0](inputs, **extra_inputs)")]
    fr += torch_module_frames(R)
    fr += [F(S + "/torch/distributed/fsdp/_fully_shard/_fully_shard.py", 493, "__call__", "return super().__call__(*args, **kwargs)")]
    fr += [F(t + "/torchtitan/models/deepseek_v3/model/model.py", 389, "forward", "h = layer(h, self.freqs_cis)")]
    fr += torch_module_frames(R)
    fr += [F(t + "/torchtitan/models/deepseek_v3/model/model.py", 303, "forward", "x = x + self.moe(self.ffn_norm(x))")]
    fr += torch_module_frames(R)
    moe = t + "/torchtitan/models/moe/moe.py"
    if where == "router":
        fr += [F(moe, 398, "forward", "top_scores, selected_experts_indices, num_tokens_per_expert = self.router(x, self.expert_bias)")]
        fr += torch_module_frames(R)
        fr += [F(moe, 261, "forward", "top_scores, selected_experts_indices = torch.topk(")]
        return fr
    if where in ("dispatch", "combine", "experts", "permute"):
        fr += [F(moe, 442, "forward", "routed_output = self.experts(routed_input, num_tokens_per_expert)")]
        fr += torch_module_frames(R)
        fr += [F(S + "/torch/nn/modules/module.py", 1840, "inner", "args_result = hook(self, args)"),
               F(S + "/torch/distributed/tensor/_api.py", 874, "<lambda>", "lambda mod, inputs: input_fn(mod, inputs, device_mesh)")]
        if where in ("dispatch", "combine"):
            fr += [F(t + "/torchtitan/distributed/expert_parallel.py", 137, "_token_dispatch", "routed_input = all_to_all_single_autograd("),
                   F(S + "/torch/distributed/_functional_collectives.py", 1112, "all_to_all_single_autograd", "tensor = torch.ops._c10d_functional_autograd.all_to_all_single(  # type: ignore[attr-defined]"),
                   F(S + "/torch/_ops.py", 1243, "__call__", "return self._op(*args, **kwargs)")]
        elif where == "permute":
            fr += [F(t + "/torchtitan/distributed/expert_parallel.py", 160, "_token_dispatch", "input_shape, routed_input, permuted_indices = _permute("),
                   F(t + "/torchtitan/models/moe/utils.py", 107, "_permute", "x = x[permuted_indices, :]")]
        else:
            fr = fr[:-2]
            fr += [F(moe, 178, "forward", "return _run_experts_grouped_mm("),
                   F(moe, 113, "_run_experts_grouped_mm", "h = F.silu(torch._grouped_mm(x.bfloat16(), w1.bfloat16().transpose(-2, -1), offs=offsets))")]
        return fr
    return fr


def ds_frames(R, where):
    m = dsroot(R)
    S = R.site
    fr = [F(m + "/pretrain_gpt.py", 356, "<module>", "pretrain(train_valid_test_datasets_provider,"),
          F(m + "/megatron/training.py", 227, "pretrain", "iteration = train(forward_step_func,"),
          F(m + "/megatron/training.py", 1214, "train", "train_step(forward_step_func,"),
          F(m + "/megatron/training.py", 652, "train_step", "losses_reduced = forward_backward_func(")]
    if where == "data":
        fr += [F(m + "/megatron/schedules.py", 307, "forward_backward_no_pipelining", "output_tensor = forward_step(forward_step_func, data_iterator,"),
               F(m + "/megatron/schedules.py", 151, "forward_step", "output_tensor, loss_func = forward_step_func(data_iterator, model)"),
               F(m + "/pretrain_gpt.py", 236, "forward_step", "tokens, labels, loss_mask, attention_mask, position_ids = get_batch("),
               F(m + "/pretrain_gpt.py", 119, "get_batch", "data = next(data_iterator)"),
               F(S + "/torch/utils/data/dataloader.py", 708, "__next__", "data = self._next_data()"),
               F(S + "/torch/utils/data/dataloader.py", 1458, "_next_data", "idx, data = self._get_data()"),
               F(S + "/torch/utils/data/dataloader.py", 1420, "_get_data", "success, data = self._try_get_data()"),
               F(S + "/torch/utils/data/dataloader.py", 1264, "_try_get_data", "raise RuntimeError(f\"DataLoader timed out after {self._timeout} seconds\") from e")]
        return fr
    if where == "optimizer":
        fr = fr[:3] + [F(m + "/megatron/training.py", 707, "train_step", "model[0].step(lr_kwargs={'increment': increment})"),
                       F(S + "/deepspeed/runtime/engine.py", 2213, "step", "self._take_model_step(lr_kwargs)"),
                       F(S + "/deepspeed/runtime/engine.py", 2119, "_take_model_step", "self.optimizer.step()"),
                       F(S + "/deepspeed/runtime/zero/stage_1_and_2.py", 1795, "step", "self._update_scale(self.overflow)")]
        return fr
    if where == "ckpt":
        fr = fr[:3] + [F(m + "/megatron/training.py", 1320, "train", "save_checkpoint_and_time(iteration, model, optimizer,"),
                       F(m + "/megatron/checkpointing.py", 241, "save_checkpoint", "model[0].save_checkpoint(checkpoint_name, client_state=state_dict)"),
                       F(S + "/deepspeed/runtime/engine.py", 3173, "save_checkpoint", "self._save_moe_checkpoint(save_dir,"),
                       F(S + "/deepspeed/runtime/engine.py", 3262, "_save_moe_checkpoint", "self.checkpoint_engine.save(expert_state_dict, moe_save_path)"),
                       F(S + "/deepspeed/runtime/checkpoint_engine/torch_checkpoint_engine.py", 22, "save", "torch.save(state_dict, path)")]
        return fr
    if where == "backward":
        fr += [F(m + "/megatron/schedules.py", 318, "forward_backward_no_pipelining", "backward_step(optimizer, input_tensor, output_tensor,"),
               F(m + "/megatron/schedules.py", 212, "backward_step", "model.backward(output_tensor[0])"),
               F(S + "/deepspeed/utils/nvtx.py", 18, "wrapped_fn", "ret_val = func(*args, **kwargs)"),
               F(S + "/deepspeed/runtime/engine.py", 2020, "backward", "self.optimizer.backward(loss, retain_graph=retain_graph)"),
               F(S + "/deepspeed/runtime/zero/stage_1_and_2.py", 2056, "backward", "self.loss_scaler.backward(loss.float(), retain_graph=retain_graph)"),
               F(S + "/deepspeed/runtime/fp16/loss_scaler.py", 63, "backward", "scaled_loss.backward(retain_graph=retain_graph)"),
               F(S + "/torch/_tensor.py", 648, "backward", "torch.autograd.backward(")]
        return fr
    fr += [F(m + "/megatron/schedules.py", 307, "forward_backward_no_pipelining", "output_tensor = forward_step(forward_step_func, data_iterator,"),
           F(m + "/megatron/schedules.py", 151, "forward_step", "output_tensor, loss_func = forward_step_func(data_iterator, model)"),
           F(m + "/pretrain_gpt.py", 252, "forward_step", "output_tensor, other_losses = model(tokens, position_ids, attention_mask,")]
    fr += torch_module_frames(R)
    fr += [F(S + "/deepspeed/utils/nvtx.py", 18, "wrapped_fn", "ret_val = func(*args, **kwargs)"),
           F(S + "/deepspeed/runtime/engine.py", 1899, "forward", "loss = self.module(*inputs, **kwargs)")]
    fr += torch_module_frames(R)
    fr += [F(m + "/megatron/model/gpt_model.py", 115, "forward", "lm_output, moe_losses = self.language_model("),
           F(m + "/megatron/model/transformer.py", 1232, "forward", "mlp_output, moe_loss, _ = self.mlp(layernorm_output)")]
    fr += torch_module_frames(R)
    fr += [F(S + "/deepspeed/moe/layer.py", 132, "forward", "output = self.deepspeed_moe(hidden_states, used_token)")]
    fr += torch_module_frames(R)
    sm = S + "/deepspeed/moe/sharded_moe.py"
    if where in ("router", "capacity"):
        fr += [F(sm, 599, "forward", "self.l_aux, combine_weights, dispatch_mask, self.exp_counts = self.gate(reshaped_input, input[1])")]
        fr += torch_module_frames(R)
        if R.topk == 1:
            fr += [F(sm, 469, "forward", "gate_output = top1gating(logits, self.capacity_factor if self.training else self.eval_capacity_factor,"),
                   F(sm, 240, "top1gating", "top_idx = _top_idx(mask1_rand, capacity)")]
        else:
            fr += [F(sm, 474, "forward", "gate_output = top2gating(logits, self.capacity_factor if self.training else self.eval_capacity_factor,"),
                   F(sm, 305, "top2gating", "locations1_sc = _one_hot_to_float(locations1_s, capacity)")]
        return fr
    if where in ("dispatch", "combine"):
        fr += [F(sm, 614, "forward", "dispatched_input = _AllToAll.apply(self.ep_group, dispatched_input)"),
               F(S + "/torch/autograd/function.py", 575, "apply", "return super().apply(*args, **kwargs)  # type: ignore[misc]"),
               F(sm, 94, "forward", "dist.all_to_all_single(output, input, group=group)"),
               F(S + "/deepspeed/comm/comm.py", 117, "log_wrapper", "return func(*args, **kwargs)"),
               F(S + "/deepspeed/comm/comm.py", 396, "all_to_all_single", "return cdb.all_to_all_single(output=output,"),
               F(S + "/deepspeed/comm/torch.py", 331, "all_to_all_single", "return torch.distributed.all_to_all_single(output=output,"),
               F(S + "/torch/distributed/c10d_logger.py", 81, "wrapper", "return func(*args, **kwargs)"),
               F(S + "/torch/distributed/distributed_c10d.py", 4388, "all_to_all_single", "work = group.alltoall_base(")]
        return fr
    if where in ("experts", "permute"):
        fr += [F(sm, 626, "forward", "expert_output = self.experts(dispatched_input)")]
        fr += torch_module_frames(R)
        fr += [F(S + "/deepspeed/moe/experts.py", 35, "forward", "out = expert(chunk)")]
        fr += torch_module_frames(R)
        fr += [F(m + "/megatron/model/transformer.py", 163, "forward", "intermediate_parallel, bias_parallel = self.dense_h_to_4h(hidden_states)")]
        return fr
    return fr


def frames(R, where):
    if R.stack == "megatron":
        return megatron_frames(R, where)
    if R.stack == "titan":
        return titan_frames(R, where)
    return ds_frames(R, where)


# ---------------------------------------------------------------------------
# Startup / training output
# ---------------------------------------------------------------------------

def ncclinit(R, t):
    """NCCL INFO init lines per rank (only if NCCL_DEBUG=INFO)."""
    r = R.rng
    if not R.nccl_debug:
        return
    big = R.world > 32
    commid = "0x%016x" % r.getrandbits(64)
    ifname = r.choice(["bond0", "eth0", "enp86s0f0", "ens7"])
    for rank in range(R.world):
        h = R.host_of(rank)
        l = R.local(rank)
        pid = R.pids[rank]
        tid = pid + r.randrange(200, 900)
        tt = t + r.uniform(0, 2.0)
        hp = "%s:%d:%d [%d]" % (h, pid, pid, l)
        hp2 = "%s:%d:%d [%d]" % (h, pid, tid, l)
        comm = "0x%x" % (0x55d000000000 + r.randrange(0, 0xfffffffff) // 16 * 16)
        L = []
        if rank == 0:
            L.append("%s NCCL INFO Bootstrap : Using %s:%s<0>" % (hp, ifname, R.ip[h]))
            L.append("%s NCCL INFO cudaDriverVersion 12040" % hp)
            L.append("%s NCCL INFO NCCL version %s+cuda12.%s" % (hp, R.nccl_v, r.choice(["4", "6", "8"])))
        elif not big:
            L.append("%s NCCL INFO cudaDriverVersion 12040" % hp)
            L.append("%s NCCL INFO Bootstrap : Using %s:%s<0>" % (hp, ifname, R.ip[h]))
        if not big or l == 0:
            L.append("%s NCCL INFO NET/Plugin: Could not find: libnccl-net.so. Using internal network plugin." % hp2)
            L.append("%s NCCL INFO NET/IB : Using %s ; OOB %s:%s<0>" % (hp2, " ".join("[%d]%s:1/IB" % (i, x) for i, x in enumerate(HCAS)), ifname, R.ip[h]))
            L.append("%s NCCL INFO Using network IB" % hp2)
        L.append("%s NCCL INFO ncclCommInitRank comm %s rank %d nranks %d cudaDev %d nvmlDev %d busId %s000 commId %s - Init START" % (hp2, comm, rank, R.world, l, l, R.bus[l], commid))
        if not big:
            L.append("%s NCCL INFO comm %s rank %d nRanks %d nNodes %d localRanks %d localRank %d MNNVL 0" % (hp2, comm, rank, R.world, R.nnodes, R.gpn, l))
            L.append("%s NCCL INFO Channel 00/24 : %s" % (hp2, " ".join(str(x) for x in range(min(R.world, 16)))) if rank == 0 else "%s NCCL INFO Trees [0] %d/-1/-1->%d->%d [1] %d/-1/-1->%d->%d" % (hp2, (rank + 1) % R.world, rank, (rank - 1) % R.world, (rank + 1) % R.world, rank, (rank - 1) % R.world))
        L.append("%s NCCL INFO ncclCommInitRank comm %s rank %d nranks %d cudaDev %d nvmlDev %d busId %s000 commId %s - Init COMPLETE" % (hp2, comm, rank, R.world, l, l, R.bus[l], commid))
        R.emit(tt, h, rank, "rank", L)
    # the expert-parallel communicator, with group-local ranks
    t2 = t + r.uniform(20, 60)
    for rank in range(R.world):
        if big and R.local(rank) not in (0, 7):
            continue
        h = R.host_of(rank)
        l = R.local(rank)
        pid = R.pids[rank]
        hp2 = "%s:%d:%d [%d]" % (h, pid, pid + r.randrange(200, 900), l)
        g = R.ep_group(rank).index(rank)
        comm = "0x%x" % (0x55d000000000 + r.randrange(0, 0xfffffffff) // 16 * 16)
        R.emit(t2 + r.uniform(0, 1.5), h, rank, "rank",
               ["%s NCCL INFO ncclCommInitRankConfig comm %s rank %d nranks %d cudaDev %d nvmlDev %d busId %s000 commId 0x%016x - Init COMPLETE" % (hp2, comm, g, R.EP, l, l, R.bus[l], r.getrandbits(64))])


MEG_WARN = [
    "{site}/transformer_engine/pytorch/module/base.py:{n}: FutureWarning: `torch.cuda.amp.custom_fwd(args...)` is deprecated. Please use `torch.amp.custom_fwd(args..., device_type='cuda')` instead.",
    "{site}/torch/distributed/c10d_logger.py:83: FutureWarning: `torch.distributed._all_gather_base` is a private function and will be deprecated. Please use `torch.distributed.all_gather_into_tensor` instead.",
    "{mroot}/megatron/core/tensor_parallel/layers.py:{n}: UserWarning: async_grad_allreduce is deprecated, not in use anymore and will be fully removed with 0.10.0. Please use allreduce_dgrad instead.",
    "{site}/transformer_engine/pytorch/attention.py:{n}: UserWarning: flash-attn v3 may provide important feature support or performance improvement. Please install flash-attn v3 by ...",
]


def meg_args(R):
    a = {
        "accumulate_allreduce_grads_in_fp32": "True", "apply_query_key_layer_scaling": "False",
        "bf16": "True", "check_for_nan_in_loss_and_grad": "True", "ckpt_format": "torch_dist",
        "clip_grad": "1.0", "data_parallel_size": str(R.DP), "distributed_backend": "nccl",
        "distributed_timeout_minutes": str(R.timeout_ms // 60000), "expert_model_parallel_size": str(R.EP),
        "expert_tensor_parallel_size": str(R.ETP), "ffn_hidden_size": str(R.hidden * 3),
        "global_batch_size": str(R.gbs), "hidden_size": str(R.hidden), "log_interval": str(R.log_interval),
        "log_straggler": str(R.straggler_log), "lr": "0.0003", "micro_batch_size": str(R.mbs),
        "moe_aux_loss_coeff": "0.001", "moe_expert_capacity_factor": str(R.capacity_factor),
        "moe_grouped_gemm": "True", "moe_pad_expert_input_to_capacity": "False",
        "moe_permute_fusion": R.rng.choice(["True", "False"]),
        "moe_router_load_balancing_type": R.rng.choice(["aux_loss", "seq_aux_loss"]),
        "moe_router_topk": str(R.topk), "moe_token_dispatcher_type": "flex" if R.dispatcher == "deepep" else "alltoall",
        "num_attention_heads": str(R.hidden // 128), "num_experts": str(R.num_experts), "num_layers": str(R.layers),
        "overlap_grad_reduce": "True", "overlap_param_gather": "True", "pipeline_model_parallel_size": str(R.PP),
        "save": "/lustre/ckpt/%s" % R.runname, "save_interval": str(R.save_interval), "seq_length": str(R.seqlen),
        "sequence_parallel": str(R.TP > 1), "tensor_model_parallel_size": str(R.TP), "timing_log_level": "0",
        "tokenizer_type": "HuggingFaceTokenizer", "transformer_impl": "transformer_engine",
        "use_distributed_optimizer": "True", "use_mcore_models": "True", "world_size": str(R.world),
    }
    if R.dispatcher == "deepep":
        a["moe_enable_deepep"] = "True"
    out = ["------------------------ arguments ------------------------"]
    for k in sorted(a):
        out.append("  %s %s %s" % (k, "." * (48 - len(k)), a[k]))
    out.append("-------------------- end of arguments ---------------------")
    return out


def loss_at(R, step):
    import math
    base = 2.1 + 8.7 * math.exp(-step / (R.total_steps * 0.08 + 30.0))
    return base + R.rng.uniform(-0.05, 0.05)


def startup(R):
    r = R.rng
    t = R.t0
    h0 = R.hosts[0]
    last = R.world - 1
    if R.launcher == "torchrun":
        for h in R.hosts:
            ap = R.pids["agent:" + h]
            tt = t + r.uniform(0, 4)
            R.emit(tt, h, None, "agent", [
                "%s %d torch/distributed/run.py:%d] " % (ts_agent(R.lt(h, tt), "W"), ap, 792 if not R.new_torch else 766),
                "%s %d torch/distributed/run.py:%d] *****************************************" % (ts_agent(R.lt(h, tt), "W"), ap, 792 if not R.new_torch else 766),
                "%s %d torch/distributed/run.py:%d] Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. " % (ts_agent(R.lt(h, tt), "W"), ap, 792 if not R.new_torch else 766),
                "%s %d torch/distributed/run.py:%d] *****************************************" % (ts_agent(R.lt(h, tt), "W"), ap, 792 if not R.new_torch else 766)])
    t += r.uniform(8, 25)
    ncclinit(R, t + 30)
    if R.stack == "megatron":
        L = ["using world size: %d, data-parallel size: %d, context-parallel size: 1, hierarchical context-parallel sizes: Nonetensor-model-parallel size: %d, encoder-tensor-model-parallel size: 0, pipeline-model-parallel size: %d, encoder-pipeline-model-parallel size: 0" % (R.world, R.DP, R.TP, R.PP),
             "Number of virtual stages per pipeline stage: None",
             "using torch.bfloat16 for parameters ..."] + meg_args(R) + [
             "setting number of microbatches to constant %d" % (R.gbs // (R.DP * R.mbs)),
             "> building HuggingFaceTokenizer tokenizer ...",
             " > padded vocab (size: 129280) with 128 dummy tokens (new size: 129408)",
             "> initializing torch distributed ...",
             "> initialized tensor model parallel with size %d" % R.TP,
             "> initialized pipeline model parallel with size %d" % R.PP,
             "> setting random seeds to 1234 ...",
             "> compiling dataset index builder ...",
             "make: Entering directory '%s/megatron/core/datasets'" % mroot(R),
             "make: Nothing to be done for 'default'.",
             "make: Leaving directory '%s/megatron/core/datasets'" % mroot(R),
             ">>> done with dataset index builder. Compilation time: 0.0%d seconds" % r.randrange(40, 99),
             "time to initialize megatron (seconds): %.3f" % r.uniform(18, 60),
             "[after megatron is initialized] datetime: %s " % ts_sec(R.lr(0, t + 35)),
             "building GPT model ..."]
        R.emit(t + 20, h0, 0, "rank", L)
        # number of parameters printed per (tp, pp) with dp==0
        for rank in range(R.world):
            c = R.coords(rank)
            if c["dp"] == 0:
                R.emit(t + 40 + r.uniform(0, 3), R.host_of(rank), rank, "rank",
                       [" > number of parameters on (tensor, pipeline) model parallel rank (%d, %d): %d" % (c["tp"], c["pp"], r.randrange(900000000, 9000000000))])
        for i in range(r.randrange(1, 4)):
            w = r.choice(MEG_WARN).format(site=R.site, mroot=mroot(R), n=r.randrange(60, 2000))
            rk = r.randrange(R.world)
            R.emit(t + 42 + r.uniform(0, 5), R.host_of(rk), rk, "rank", [w, "  " + r.choice(["return func(*args, **kwargs)", "warnings.warn(", "_torch_all_gather_base("])])
        L = ["INFO:megatron.core.distributed.distributed_data_parallel:Setting up DistributedDataParallel with config DistributedDataParallelConfig(grad_reduce_in_fp32=True, overlap_grad_reduce=True, overlap_param_gather=True, align_param_gather=False, use_distributed_optimizer=True, num_distributed_optimizer_instances=1, check_for_nan_in_grad=True, bucket_size=40000000, average_in_collective=False, fp8_param_gather=False)",
             "INFO:megatron.core.distributed.param_and_grad_buffer:Number of buckets for gradient all-reduce / reduce-scatter: %d" % r.randrange(2, 9),
             "INFO:megatron.core.optimizer:Setting up optimizer with config OptimizerConfig(optimizer='adam', lr=0.0003, min_lr=3e-05, decoupled_lr=None, decoupled_min_lr=None, weight_decay=0.1, fp16=False, bf16=True, params_dtype=torch.bfloat16, use_precision_aware_optimizer=False, loss_scale=None, initial_loss_scale=4294967296, min_loss_scale=1.0, loss_scale_window=1000, hysteresis=2, adam_beta1=0.9, adam_beta2=0.95, adam_eps=1e-08, sgd_momentum=0.9, use_distributed_optimizer=True, overlap_param_gather_with_optimizer_step=False, clip_grad=1.0, log_num_zeros_in_grad=False, barrier_with_L1_time=True, timers=<megatron.core.timers.Timers object at 0x%x>, config_logger_dir='')" % (0x7f0000000000 + r.randrange(0, 0xffffffffff)),
             "> learning rate decay style: cosine"]
        if R.resume_step:
            L += [" loading distributed checkpoint from /lustre/ckpt/%s at iteration %d" % (R.runname, R.resume_step),
                  "  successfully loaded checkpoint from /lustre/ckpt/%s [ t %d/%d, p %d/%d ] at iteration %d" % (R.runname, 1, R.TP, 1, R.PP, R.resume_step)]
        else:
            L += ["WARNING: could not find the metadata file /lustre/ckpt/%s/latest_checkpointed_iteration.txt" % R.runname,
                  "    will not load any checkpoints and will start from random"]
        L += ["(min, max) time across ranks (ms):",
              "    load-checkpoint ................................: (%.2f, %.2f)" % (r.uniform(1, 5000), r.uniform(5000, 9000)),
              "[after model, optimizer, and learning rate scheduler are built] datetime: %s " % ts_sec(R.lr(0, t + 60))]
        R.emit(t + 60, h0, 0, "rank", L)
        L = ["> building train, validation, and test datasets ...",
              " > datasets target sizes (minimum size):",
              "    train:      %d" % (R.gbs * R.total_steps),
              "    validation: %d" % (R.gbs * 10),
              "    test:       %d" % (R.gbs * 10),
              "> building train, validation, and test datasets for GPT ...",
              "> finished creating GPT datasets ...",
              "[after dataloaders are built] datetime: %s " % ts_sec(R.lr(0, t + 75))]
        R.emit(t + 61, h0, 0, "rank", L)
        L = ["done with setup ...",
              "(min, max) time across ranks (ms):",
              "    model-and-optimizer-setup ......................: (%.2f, %.2f)" % (r.uniform(1000, 3000), r.uniform(3000, 9000)),
              "    train/valid/test-data-iterators-setup ..........: (%.2f, %.2f)" % (r.uniform(300, 900), r.uniform(900, 4000)),
              "training ...",
              "Setting rerun_state_machine.current_iteration to %d..." % R.resume_step,
              "[before the start of training step] datetime: %s " % ts_sec(R.lr(0, t + 78))]
        R.emit(t + 78, h0, 0, "rank", L)
        return t + 80
    if R.stack == "titan":
        for rank in R.titan_visible:
            h = R.host_of(rank)
            tt = t + 10 + r.uniform(0, 2)
            def tl(dt, lvl, msg):
                return "[titan] %s - root - %s - %s" % (ts_py(R.lr(rank, tt + dt)), lvl, msg)
            names = []
            sizes = []
            if R.PP > 1:
                names.append("pp"); sizes.append(R.PP)
            dps = R.world // R.PP
            if R.EP < dps:
                names.append("dp_shard_mod_ep"); sizes.append(dps // R.EP)
            names.append("dp_shard_in_ep"); sizes.append(R.EP)
            L = [tl(0, "INFO", "Starting job: %s" % R.runname),
                 tl(0.01, "WARNING", "ENV[TORCH_NCCL_ASYNC_ERROR_HANDLING] = 1 will be overridden to 3 based on job config"),
                 tl(0.3, "INFO", "Building %d-D device mesh with %s, %s" % (len(names), names, sizes)),
                 tl(0.31, "INFO", "[GC] Initial GC collection. 0.00 seconds."),
                 tl(0.5, "INFO", "Loading tokenizer from tokenizer.json"),
                 tl(1.2, "INFO", "Preparing c4 dataset from allenai/c4"),
                 tl(6.2, "INFO", "Building deepseek_v3 %s with DeepSeekV3ModelArgs(_enforced='This field is used to enforce all fields have defaults.', max_batch_size=8, max_seq_len=%d, vocab_size=102400, dim=%d, inter_dim=10944, moe_inter_dim=1408, n_layers=%d, n_dense_layers=1, n_heads=16, moe_args=MoEArgs(num_experts=%d, num_shared_experts=2, score_func='softmax', route_norm=False, route_scale=1.0, score_before_experts=False, top_k=%d, use_grouped_mm=True, load_balance_coeff=0.001), n_expert_groups=1, n_limited_groups=1, q_lora_rank=0, kv_lora_rank=512, qk_nope_head_dim=128, qk_rope_head_dim=64, v_head_dim=128, use_flex_attn=False, attn_mask_type='causal', original_seq_len=4096, rope_theta=10000.0, rope_factor=40, beta_fast=32, beta_slow=1, mscale=1.0)" % (R.titan_flavor, R.seqlen, R.hidden, R.layers, R.num_experts, R.topk)),
                 tl(7.0, "INFO", "CUDA capacity: %s with %.2fGiB memory" % (R.gpu, R.gpumem)),
                 tl(7.4, "INFO", "Model deepseek_v3 %s size: %s total parameters" % (R.titan_flavor, "{:,}".format(r.randrange(15000000000, 16999999999)))),
                 tl(7.5, "INFO", "Applied selective activation checkpointing to the model"),
                 tl(7.6, "INFO", "Applied FSDP to the model"),
                 tl(7.9, "INFO", "Peak FLOPS used for computing MFU: 9.890e+14"),
                 tl(7.91, "INFO", "CUDA memory usage for model: %.2fGiB(%.2f%%)" % (3.83, 3.83 / R.gpumem * 100)),
                 tl(8.0, "INFO", "Checkpointing active. Checkpoints will be loaded from and saved to ./outputs/checkpoint"),
                 tl(8.1, "INFO", "Mixed precision training is handled by fully_shard"),
                 tl(8.2, "INFO", "Trainer is initialized with local batch size %d, global batch size %d, gradient accumulation steps 1, sequence length %d, total steps %d (warmup 200)" % (R.mbs, R.mbs * R.DP, R.seqlen, R.total_steps)),
                 tl(8.3, "INFO", "Training starts at step %d" % (R.resume_step + 1))]
            R.emit(tt, h, rank, "rank", L)
        return t + 20
    # deepspeed
    L = ["[%s] [INFO] [real_accelerator.py:222:get_accelerator] Setting ds_accelerator to cuda (auto detect)" % ts_py(R.lt(h0, R.t0 - 6))]
    R.emit(R.t0 - 6, h0, None, "launcher", L)
    wi = "{%s}" % ", ".join("\"%s\": [%s]" % (h, ", ".join(str(x) for x in range(R.gpn))) for h in R.hosts)
    import base64
    enc = base64.b64encode(wi.encode()).decode()
    cmd = ("[%s] [INFO] [runner.py:607:main] cmd = pdsh -S -f 1024 -w %s export PYTHONPATH=%s; export NCCL_DEBUG=%s; export NCCL_IB_HCA=%s;  cd %s; %s -u -m deepspeed.launcher.launch --world_info=%s --node_rank=%%n --master_addr=%s --master_port=29500 pretrain_gpt.py --tensor-model-parallel-size %d --pipeline-model-parallel-size 1 --num-experts %d --moe-expert-parallel-size %d --moe-loss-coeff 0.01 --moe-train-capacity-factor %s --moe-min-capacity 4 --topk %d --num-layers %d --hidden-size %d --seq-length %d --micro-batch-size %d --global-batch-size %d --train-iters %d --data-path /data/pile/pile_text_document --deepspeed --deepspeed_config ds_config.json --no-pipeline-parallel --fp16 --log-interval %d --save-interval %d --save /ckpt/%s"
           % (ts_py(R.lt(h0, R.t0 - 4)), ",".join(R.hosts), dsroot(R), "INFO" if R.nccl_debug else "WARN", ",".join(HCAS), dsroot(R), R.pyexe, enc, R.ip[h0],
              R.TP, R.num_experts, R.EP, R.capacity_factor, R.topk, R.layers, R.hidden, R.seqlen, R.mbs, R.gbs, R.total_steps, R.log_interval, R.save_interval, R.runname))
    R.emit(R.t0 - 4, h0, None, "launcher", [cmd])
    for i, h in enumerate(R.hosts):
        tt = R.t0 + r.uniform(0, 2)
        lp = lambda dt: ts_py(R.lt(h, tt + dt))
        L = ["[%s] [INFO] [real_accelerator.py:222:get_accelerator] Setting ds_accelerator to cuda (auto detect)" % lp(0),
             "[%s] [INFO] [launch.py:146:main] WORLD INFO DICT: {%s}" % (lp(2), ", ".join("'%s': [%s]" % (x, ", ".join(str(k) for k in range(R.gpn))) for x in R.hosts)),
             "[%s] [INFO] [launch.py:152:main] nnodes=%d, num_local_procs=%d, node_rank=%d" % (lp(2), R.nnodes, R.gpn, i),
             "[%s] [INFO] [launch.py:163:main] global_rank_mapping=defaultdict(<class 'list'>, {%s})" % (lp(2), ", ".join("'%s': [%s]" % (x, ", ".join(str(j * R.gpn + k) for k in range(R.gpn))) for j, x in enumerate(R.hosts))),
             "[%s] [INFO] [launch.py:164:main] dist_world_size=%d" % (lp(2), R.world),
             "[%s] [INFO] [launch.py:168:main] Setting CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7" % lp(2)]
        for l in range(R.gpn):
            rk = i * R.gpn + l
            L.append("[%s] [INFO] [launch.py:256:main] process %d spawned with command: ['%s', '-u', 'pretrain_gpt.py', '--local_rank=%d', '--tensor-model-parallel-size', '%d', '--num-experts', '%d', '--moe-expert-parallel-size', '%d', ...]" % (lp(2.1), R.pids[rk], R.pyexe, l, R.TP, R.num_experts, R.EP))
        R.emit(tt, h, None, "agent", L)
    t = R.t0 + 12
    for rank in range(R.world):
        if R.world > 32 and R.local(rank) != 0:
            continue
        h = R.host_of(rank)
        tt = t + r.uniform(0, 2)
        R.emit(tt, h, rank, "rank", ["[%s] [INFO] [comm.py:658:init_distributed] cdb=None" % ts_py(R.lr(rank, tt))] +
               (["[%s] [INFO] [comm.py:689:init_distributed] Initializing TorchBackend in DeepSpeed with backend nccl" % ts_py(R.lr(rank, tt))] if rank == 0 else []))
    t += 25
    def ld(dt, msg, rk=0):
        return "[%s] [INFO] [logging.py:128:log_dist] [Rank %d] %s" % (ts_py(R.lr(rk, t + dt)), rk, msg)
    L = [ld(0, "DeepSpeed info: version=%s, git-hash=unknown, git-branch=unknown" % R.ds_version)]
    L.append(ld(0.5, "Creating MoE layer with num_experts: %d | num_local_experts: %d | expert_parallel_size: %d" % (R.num_experts, R.num_experts // R.EP, R.EP)))
    L.append(ld(0.6, "Creating expert and data parallel groups with size %d" % R.EP))
    ngroups = R.world // R.EP
    for e in range(min(R.EP, 8)):
        L.append(ld(0.6, "Creating expert data parallel process group named ep_size_%d with ranks: %s" % (R.EP, list(range(e, R.world, R.EP)))))
    for gi in range(ngroups):
        L.append(ld(0.7, "creating expert parallel process group named ep_size_%d with ranks: %s" % (R.EP, list(range(gi * R.EP, (gi + 1) * R.EP)))))
    for i in range(R.layers // 2 if R.layers < 30 else 3):
        L.append(ld(0.8 + i * 0.01, "Creating MoE layer with num_experts: %d | num_local_experts: %d | expert_parallel_size: %d" % (R.num_experts, R.num_experts // R.EP, R.EP)))
    L += [ld(3, "DeepSpeed Flops Profiler Enabled: False"),
          ld(3.1, "Using client Optimizer as basic optimizer"),
          ld(3.2, "Removing param_group that has no 'params' in the basic Optimizer"),
          ld(3.3, "DeepSpeed Basic Optimizer = FusedAdam"),
          ld(3.4, "Creating fp16 ZeRO stage 1 optimizer"),
          "[%s] [INFO] [stage_1_and_2.py:148:__init__] Reduce bucket size 500000000" % ts_py(R.lr(0, t + 3.4)),
          "[%s] [INFO] [stage_1_and_2.py:149:__init__] Allgather bucket size 500000000" % ts_py(R.lr(0, t + 3.4)),
          "[%s] [INFO] [stage_1_and_2.py:150:__init__] CPU Offload: False" % ts_py(R.lr(0, t + 3.4)),
          "[%s] [INFO] [stage_1_and_2.py:151:__init__] Round robin gradient partitioning: False" % ts_py(R.lr(0, t + 3.4)),
          ld(9, "DeepSpeed Final Optimizer = FP16_Optimizer"),
          ld(9.1, "DeepSpeed using configured LR scheduler = None"),
          ld(9.2, "step=0, skipped=0, lr=[0.0, 0.0], mom=[(0.9, 0.95), (0.9, 0.95)]"),
          "[%s] [INFO] [config.py:1000:print] DeepSpeedEngine configuration:" % ts_py(R.lr(0, t + 9.3)),
          "[%s] [INFO] [config.py:1004:print]   activation_checkpointing_config  {" % ts_py(R.lr(0, t + 9.3)),
          "    \"partition_activations\": false, ",
          "    \"contiguous_memory_optimization\": false, ",
          "    \"cpu_checkpointing\": false, ",
          "    \"number_checkpoints\": null, ",
          "    \"synchronize_checkpoint_boundary\": false, ",
          "    \"profile\": false",
          "}",
          "[%s] [INFO] [config.py:1004:print]   fp16_enabled ................. True" % ts_py(R.lr(0, t + 9.3)),
          "[%s] [INFO] [config.py:1004:print]   zero_optimization_stage ...... 1" % ts_py(R.lr(0, t + 9.3)),
          "[%s] [INFO] [config.py:1004:print]   train_micro_batch_size_per_gpu  %d" % (ts_py(R.lr(0, t + 9.3)), R.mbs),
          "[%s] [INFO] [config.py:1004:print]   wall_clock_breakdown ......... False" % ts_py(R.lr(0, t + 9.3)),
          "> building train, validation, and test datasets ...",
          " > finished creating GPT datasets ...",
          "training ..."]
    R.emit(t, R.hosts[0], 0, "rank", L)
    return t + 15


def progress(R, t_start, t_end, start_step):
    """Training progress lines from t_start until t_end.  Returns (step, t_last)."""
    r = R.rng
    step = start_step
    t = t_start
    it = R.iter_s
    n_logged = 0
    last = R.world - 1
    while True:
        slow = R.slowdown(t)
        t_next = t + it * R.log_interval * slow * r.uniform(0.97, 1.04)
        if t_next > t_end or step + R.log_interval > R.total_steps:
            break
        t = t_next
        step += R.log_interval
        n_logged += 1
        loss = loss_at(R, step)
        gn = max(0.08, r.gauss(0.35, 0.12)) if step > 200 else r.uniform(1.0, 9.0)
        ms = it * slow * 1000 * r.uniform(0.98, 1.03)
        R.step_times.append((t, step))
        if R.stack == "megatron":
            tf = R.tflops / slow * r.uniform(0.98, 1.02)
            line = (" [%s] iteration %8d/%8d | consumed samples: %12d | elapsed time per iteration (ms): %.1f | throughput per GPU (TFLOP/s/GPU): %.1f | learning rate: %.6E | global batch size: %5d | lm loss: %.6E | load_balancing_loss: %.6E | loss scale: 1.0 | grad norm: %.3f | number of skipped iterations: %3d | number of nan iterations: %3d |"
                    % (ts_sec(R.lr(last, t)), step, R.total_steps, step * R.gbs, ms, tf, min(3e-4, 3e-4 * step / 2000.0), R.gbs, loss, r.uniform(1.0, 1.25), gn, 0, 0))
            L = [line]
            if n_logged == 1:
                for rk in sorted(set([last] + [x for x in range(R.world) if R.coords(x)["dp"] == 0][:4])):
                    R.emit(t + 0.01, R.host_of(rk), rk, "rank", ["[Rank %d] (after %d iterations) memory (MB) | allocated: %.1f | max allocated: %.1f | reserved: %.1f | max reserved: %.1f" % (rk, step, r.uniform(20000, 40000), r.uniform(50000, 70000), r.uniform(62000, 74000), r.uniform(62000, 74000))])
            R.emit(t, R.host_of(last), last, "rank", L)
            if R.timers_log and n_logged % 2 == 0:
                bg = R.batchgen_max(t)
                tl = ["(min, max) time across ranks (ms):",
                      "    forward-backward ...............................: (%.2f, %.2f)" % (ms * 0.9, ms * 0.92),
                      "    forward-compute ................................: (%.2f, %.2f)" % (ms * 0.28, ms * 0.36),
                      "    backward-compute ...............................: (%.2f, %.2f)" % (ms * 0.5, ms * 0.57),
                      "    batch-generator ................................: (%.2f, %.2f)" % (r.uniform(0.8, 3), bg),
                      "    all-grads-sync .................................: (%.2f, %.2f)" % (r.uniform(10, 30), r.uniform(30, 60)),
                      "    params-all-gather ..............................: (%.2f, %.2f)" % (r.uniform(5, 12), r.uniform(12, 30)),
                      "    optimizer ......................................: (%.2f, %.2f)" % (r.uniform(40, 60), r.uniform(60, 80))]
                R.emit(t + 0.02, R.host_of(last), last, "rank", tl)
            if R.straggler_log:
                R.emit(t + 0.03, R.hosts[0], 0, "rank", [R.straggler_line(t, ms)])
        elif R.stack == "titan":
            tps = int(R.tps / slow * r.uniform(0.97, 1.03))
            tf = R.tflops / slow * r.uniform(0.97, 1.03)
            mem = R.titan_mem + r.uniform(-0.3, 0.3)
            for rk in R.titan_visible:
                if R.ansi:
                    body = "\x1b[31mstep: %2d  \x1b[32mloss: %7.4f  \x1b[38;2;180;60;0mgrad_norm: %7.4f  \x1b[33mmemory: %5.2fGiB(%.2f%%)  \x1b[34mtps: %s  \x1b[36mtflops: %.2f  \x1b[35mmfu: %.2f%%\x1b[39m" % (step, loss, gn, mem, mem / R.gpumem * 100, "{:,}".format(tps), tf, tf / 989.0 * 100)
                else:
                    body = "step: %2d  loss: %7.4f  grad_norm: %7.4f  memory: %5.2fGiB(%.2f%%)  tps: %s  tflops: %.2f  mfu: %.2f%%" % (step, loss, gn, mem, mem / R.gpumem * 100, "{:,}".format(tps), tf, tf / 989.0 * 100)
                R.emit(t + r.uniform(0, 0.05), R.host_of(rk), rk, "rank", ["[titan] %s - root - INFO - %s" % (ts_py(R.lr(rk, t)), body)])
                if n_logged == 1:
                    R.emit(t + 0.06, R.host_of(rk), rk, "rank", ["[titan] %s - root - INFO - Synchronizing and adjusting timeout for all ProcessGroups to 0:01:40" % ts_py(R.lr(rk, t + 0.06))])
        else:
            lr = min(3e-4, 3e-4 * step / 1000.0)
            if r.random() < 0.4:
                R.emit(t - 0.2, R.hosts[0], 0, "rank", ["[%s] [INFO] [logging.py:128:log_dist] [Rank 0] step=%d, skipped=%d, lr=[%s, %s], mom=[(0.9, 0.95), (0.9, 0.95)]" % (ts_py(R.lr(0, t - 0.2)), step, R.ds_skipped, lr, lr)])
            line = (" iteration %8d/%8d | consumed samples: %12d | consumed tokens: %12d | elapsed time per iteration (ms): %.1f | learning rate: %.3E | global batch size: %5d | lm loss: %.6E | moe loss: %.6E | loss scale: %.1f | grad norm: %.3f | actual seqlen: %5d | number of skipped iterations: %3d | number of nan iterations: %3d | samples per second: %.3f | tokens per gpu per second (tgs): %.3f | TFLOPs: %.2f |"
                    % (step, R.total_steps, step * R.gbs, step * R.gbs * R.seqlen, ms, lr, R.gbs, loss, r.uniform(0.05, 0.3), R.loss_scale, gn, R.seqlen, 0, 0, R.gbs / (ms / 1000.0), R.gbs * R.seqlen / (ms / 1000.0) / R.world, R.tflops / slow))
            R.emit(t, R.host_of(last), last, "rank", [line])
            if R.fp16_overflow and r.random() < 0.08:
                R.loss_scale = max(1.0, R.loss_scale / 2)
                R.ds_skipped += 1
                R.emit(t - 1, R.hosts[0], 0, "rank", ["[%s] [INFO] [loss_scaler.py:183:update_scale] [deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: %d, reducing to %d" % (ts_py(R.lr(0, t - 1)), int(R.loss_scale * 2), int(R.loss_scale))])
        # periodic checkpoint
        if R.save_interval and step % R.save_interval == 0:
            t = checkpoint_save(R, t, step)
        R.noise(t)
    return step, t


def checkpoint_save(R, t, step):
    r = R.rng
    dur = r.uniform(15, 90)
    if R.stack == "megatron":
        R.emit(t + 0.1, R.hosts[0], 0, "rank", ["saving checkpoint at iteration %7d to /lustre/ckpt/%s in torch_dist format" % (step, R.runname)])
        R.emit(t + dur, R.hosts[0], 0, "rank", ["  successfully saved checkpoint from iteration %7d to /lustre/ckpt/%s [ t %d/%d, p %d/%d ]" % (step, R.runname, 1, R.TP, 1, R.PP),
                                                 "(min, max) time across ranks (ms):",
                                                 "    save-checkpoint ................................: (%.2f, %.2f)" % (dur * 1000 - 30, dur * 1000)])
    elif R.stack == "titan":
        for rk in R.titan_visible:
            R.emit(t + 0.1, R.host_of(rk), rk, "rank", ["[titan] %s - root - INFO - Saving the checkpoint (or staging if async is enabled)." % ts_py(R.lr(rk, t + 0.1))])
            R.emit(t + dur, R.host_of(rk), rk, "rank", ["[titan] %s - root - INFO - [GC] GC collection invoked by checkpointer. 0.04 seconds." % ts_py(R.lr(rk, t + dur - 0.05)),
                                                        "[titan] %s - root - INFO - Finished saving the checkpoint (or staging if async is enabled)in %.2f seconds." % (ts_py(R.lr(rk, t + dur)), dur)])
    else:
        R.emit(t + 0.1, R.hosts[0], 0, "rank", ["[%s] [INFO] [logging.py:128:log_dist] [Rank 0] [Torch] Checkpoint global_step%d is about to be saved!" % (ts_py(R.lr(0, t + 0.1)), step)])
        R.emit(t + dur, R.hosts[0], 0, "rank", ["[%s] [INFO] [engine.py:3536:_save_zero_checkpoint] zero checkpoint saved /ckpt/%s/global_step%d/bf16_zero_pp_rank_0_mp_rank_00_optim_states.pt" % (ts_py(R.lr(0, t + dur)), R.runname, step),
                                                 "[%s] [INFO] [torch_checkpoint_engine.py:33:commit] [Torch] Checkpoint global_step%d is ready now!" % (ts_py(R.lr(0, t + dur)), step),
                                                 "  successfully saved checkpoint at iteration %7d to /ckpt/%s" % (step, R.runname)])
    return t + dur


def setup_run_params(R):
    r = R.rng
    R.runname = r.choice(["moe-16x8b", "dsv3-lite", "mixtral-8x7b-cpt", "qwen3-moe-30b", "olmoe-7b", "moe-a2.7b-exp", "gpt-moe-64e"]) + "-" + r.choice(["run1", "v2", "ep%d" % R.EP, "bf16", "r%02d" % r.randrange(1, 40)])
    R.titan_flavor = r.choice(["16B", "16B", "debugmodel_moe"]) if R.stack == "titan" else ""
    R.log_interval = {"megatron": r.choice([1, 5, 10]), "titan": r.choice([1, 5, 10]), "deepspeed": r.choice([1, 10])}[R.stack]
    R.total_steps = r.choice([5000, 10000, 20000, 100000, 250000])
    R.resume_step = 0 if r.random() < 0.5 else r.randrange(1, 40) * 500
    R.save_interval = r.choice([250, 500, 1000, 2000])
    R.capacity_factor = r.choice(["None", "None", "1.0", "1.25", "2.0"]) if R.stack == "megatron" else r.choice(["1.0", "1.25", "2.0"])
    R.straggler_log = R.stack == "megatron" and (r.random() < 0.25 or (R.cause == "straggler" and r.random() < 0.7))
    R.timers_log = R.stack == "megatron" and (r.random() < 0.3 or (R.cause == "data_loader_stall" and r.random() < 0.6))
    R.iter_s = r.uniform(1.2, 9.0)
    R.tflops = r.uniform(180, 420) if R.stack != "deepspeed" else r.uniform(80, 180)
    R.tps = int(r.uniform(1800, 9000))
    R.titan_mem = r.uniform(40, R.gpumem * 0.9)
    R.pre_rank = r.randrange(1, R.world)
    if R.stack == "titan":
        force = R.cause in ("collective_mismatch",) or r.random() < 0.55
        if r.random() < 0.25 and R.world <= 16:
            R.titan_visible = list(range(R.world))
        elif r.random() < 0.4 and not force:
            R.titan_visible = [0]
        else:
            locs = sorted(set([0] + ([R.pre_rank % R.gpn] if force else [])))
            R.titan_visible = [i * R.gpn + l for i in range(R.nnodes) for l in locs]
    else:
        R.titan_visible = []
    R.ansi = r.random() < 0.3
    R.ds_version = r.choice(["0.14.4", "0.15.1", "0.16.4", "0.16.9", "0.17.1"])
    R.ds_skipped = 0
    R.loss_scale = float(r.choice([4096, 8192, 65536]))
    R.fp16_overflow = R.stack == "deepspeed"
    R.step_times = []
    R.slow_from = None       # straggler onset time
    R.slow_factor = 1.0
    R.straggler_rank = None
    R.stall_windows = []     # (t0, t1, max_ms) for batch-generator timer
    R.k8s_cut = None
    R.agent_kill = {}
    R.srun_killsig = r.choice([-15, -15, -9])
    R.srun_nodefail = None
    R.srun_killed = []
    R.t_kill = None
    R.oom_step = False
    R.titan_platform = r.choice(["slurm", "slurm", "bare"])
    R.kstyle = r.choice(["dmesgT", "syslog", "journal"])
    R.k8s_ts = r.random() < 0.5
    R.k8s_image = r.choice(["nvcr.io/nvidia/pytorch:25.01-py3", "nvcr.io/nvidia/nemo:25.04", "us-central1-docker.pkg.dev/ml-infra/train/megatron-moe:2025.03.2",
                            "ghcr.io/acme-ai/moe-train:deepep-1.1.0-cu128", "registry.internal/llm/megatron-core:0.12-te2.2"])


def slowdown(R, t):
    if R.slow_from is not None and t >= R.slow_from:
        return R.slow_factor
    return 1.0


def batchgen_max(R, t):
    for a, b, m in R.stall_windows:
        if a <= t <= b:
            return m
    return R.rng.uniform(3, 25)


def straggler_line(R, t, ms):
    r = R.rng
    W = R.world
    s = R.straggler_rank if (R.slow_from is not None and t >= R.slow_from) else None
    pick = lambda: r.randrange(W)
    mnr, mxr = pick(), (s if s is not None else pick())
    rtt_min = ms * 0.62
    rtt_max = rtt_min * (R.slow_factor * 1.05 if s is not None else r.uniform(1.001, 1.01))
    tmpr = s if s is not None else pick()
    tmax = r.randrange(84, 91) if s is not None else r.randrange(58, 70)
    clkr = s if s is not None else pick()
    cmin = r.choice([1290, 1350, 1410, 1530]) if s is not None else r.choice([1935, 1950, 1965])
    et_max = R.tflops * r.uniform(1.0, 1.01)
    et_min = et_max / (R.slow_factor * 1.04) if s is not None else et_max * r.uniform(0.995, 0.999)
    return ("INFO:megatron.core.utils:[%s] | MnRtt/Rnk: %.2fms/%d | MxRtt/Rnk: %.2fms/%d | MnPwr/Rnk: %dW/%d | MxPwr/Rnk: %dW/%d | MnTmp/Rnk: %dC/%d | MxTmp/Rnk: %dC/%d | MnUtl/Rnk: %d%%/%d | MxUtl/Rnk: 100%%/%d | MnClk/Rnk: %dMHz/%d | MxClk/Rnk: 1980MHz/%d | MnDRtt/Rnk: %.2fms/%d | MxDRtt/Rnk: %.2fms/%d | MnEtpt/Rnk: %.2fTF/%d | MxEtpt/Rnk: %.2fTF/%d"
            % (ts_sec(R.lr(0, t)), rtt_min, mnr, rtt_max, mxr, r.randrange(560000, 620000), pick(), r.randrange(650000, 700000), pick(),
               r.randrange(44, 55), pick(), tmax, tmpr, r.randrange(93, 99), pick(), pick(), cmin, clkr, pick(),
               r.uniform(0.9, 3.0), pick(), r.uniform(5, 40), pick(), et_min, s if s is not None else pick(), et_max, pick()))


def noise(R, t):
    r = R.rng
    x = r.random()
    if R.stack == "titan" and x < 0.03:
        for rk in R.titan_visible:
            R.emit(t + 0.2, R.host_of(rk), rk, "rank", ["[titan] %s - root - INFO - [GC] Performing periodical GC collection 0.0%d seconds" % (ts_py(R.lr(rk, t + 0.2)), r.randrange(2, 9))])
    elif R.stack == "titan" and x < 0.04:
        for rk in R.titan_visible:
            R.emit(t + 0.3, R.host_of(rk), rk, "rank", ["[titan] %s - root - WARNING - Dataset c4 is being re-looped" % ts_py(R.lr(rk, t + 0.3))])
    elif R.stack == "megatron" and x < 0.01:
        rk = r.randrange(R.world)
        R.emit(t + 0.5, R.host_of(rk), rk, "rank", ["%s/torch/autograd/graph.py:824: UserWarning: c10d::broadcast_: an autograd kernel was not registered to the Autograd key(s) but we are trying to backprop through it. This may lead to silently incorrect behavior. This behavior is deprecated and will be removed in a future version of PyTorch. If your operator is differentiable, please ensure you have registered an autograd kernel to the correct Autograd key (e.g. DispatchKey::Autograd, DispatchKey::CompositeImplicitAutograd). If your operator is not differentiable, or to squash this warning and use the previous behavior, please register torch::CppFunction::makeFallthrough() to DispatchKey::Autograd. (Triggered internally at /pytorch/torch/csrc/autograd/autograd_not_implemented_fallback.cpp:62.)" % R.site,
                                                  "  return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass"])


Run.slowdown = slowdown
Run.batchgen_max = batchgen_max
Run.straggler_line = straggler_line
Run.noise = noise


# ---------------------------------------------------------------------------
# Failure propagation (collateral damage) and launcher teardown
# ---------------------------------------------------------------------------

def emit_exc(R, rank, t, tb):
    R.last_exc[rank] = [x[1] for x in tb]
    R.emit_rank(t, rank, tb)
    R.printed_fail[rank] = True


def exc_block(R, rank, t, where, exc_lines, pre=None):
    L = list(pre or [])
    tb = py_tb(frames(R, where), exc_lines)
    R.last_exc[rank] = [x[1] for x in tb]
    L += tb
    R.emit_rank(t, rank, L)
    R.printed_fail[rank] = True


def seq_numbers(R, step):
    r = R.rng
    moe_layers = max(1, R.layers - 1)
    micro = max(1, R.gbs // (R.DP * R.mbs))
    R.ep_seq = step * moe_layers * micro * 4 // max(1, R.PP) + r.randrange(0, 50)
    R.dp_seq = step * r.randrange(3, 9) + r.randrange(1, 5)
    R.def_seq = step * 2 + r.randrange(0, 5)


def pending_for(R, v, culprits):
    r = R.rng
    ep_peer = any(v in R.ep_group(c) for c in culprits)
    if ep_peer and R.dispatcher != "deepep":
        numel = R.mbs * R.seqlen * R.topk * R.hidden // max(1, R.TP) // r.choice([1, 2])
        return ("ep", R.ep_seq, "ALLTOALL_BASE", numel)
    if R.stack == "titan":
        return ("dp", R.dp_seq, r.choice(["_REDUCE_SCATTER_BASE", "_ALLGATHER_BASE"]), r.randrange(20000000, 160000000))
    if R.stack == "deepspeed":
        return ("dp", R.dp_seq, "ALLREDUCE", r.randrange(20000000, 500000000))
    kind = r.choice(["dp", "dpcp", "edp"])
    return (kind, R.dp_seq, r.choice(["_REDUCE_SCATTER_BASE", "_ALLGATHER_BASE"]), r.randrange(20000000, 160000000))


def victim_timeout_printer(R, v, culprits, enq_delta=1, dump_from=None):
    kind, seq, op, numel = pending_for(R, v, culprits)
    frames_on = R.world <= 32 or R.rng.random() < 0.3

    def pr(t):
        L = watchdog_timeout_block(R, v, t, kind, seq, op, numel, seq + enq_delta - 1 + (1 if R.rng.random() < 0.5 else 0), seq - 1, frames=frames_on)
        R.emit_rank(t, v, L)
    pr.lag = 2.2 if R.new_torch else 0.05
    return pr


def victim_remote_printer(R, v, peer_host, local_issue=False):
    """NCCL async error (peer died / network) detected by watchdog on rank v."""
    r = R.rng

    def pr(t):
        hca = HCAS[R.local(v)]
        local_host = R.host_of(v)
        hp = nccl_hostpfx(R, v)
        L = []
        if local_issue or r.random() < 0.8:
            L.append("%s transport/net_ib.cc:%d NCCL WARN %s" % (hp, r.choice([1696, 2340, 2252]), ib_completion_warn(R, v, peer_host, local_host, hca)))
            L.append("%s NCCL INFO transport/net.cc:%d -> 6" % (hp, r.choice([1271, 1291, 1381])))
            L.append("%s NCCL INFO proxy.cc:%d -> 6" % (hp, r.choice([694, 873, 910])))
            L.append("%s NCCL INFO proxy.cc:%d -> 6 [Progress Thread]" % (hp, r.choice([878, 1056])))
        else:
            L.append("%s misc/socket.cc:%d NCCL WARN socketProgressOpt: Call to recv from %s<%d> failed : Connection reset by peer" % (hp, r.choice([50, 63]), R.ip[peer_host], r.randrange(33000, 60000)))
            L.append("%s NCCL INFO misc/socket.cc:%d -> 6" % (hp, r.choice([64, 81])))
        kind = "ep" if any(v in R.ep_group(x) for x in R.ranks_on(peer_host)) and R.dispatcher != "deepep" else ("dp" if R.stack != "megatron" else "dpcp")
        what = ["NCCL error: remote process exited or there was a network error, NCCL version %s" % R.nccl_v,
                "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.",
                "Last error:",
                ib_completion_warn(R, v, peer_host, local_host, hca) if (local_issue or r.random() < 0.7) else "socketProgressOpt: Call to recv from %s<%d> failed : Connection reset by peer" % (R.ip[peer_host], r.randrange(33000, 60000))]
        L += watchdog_error_block(R, v, t + 0.01, kind, what, c10_frames_nccl if (R.world <= 32) else None,
                                  "checkNcclErrors at %s/torch/csrc/distributed/c10d/NCCLUtils.cpp:%d" % ("/pytorch" if R.new_torch else "..", r.choice([276, 305])))
        R.emit_rank(t, v, L)
    pr.lag = 0.2
    return pr


def victim_deepep_printer(R, v, dead_ranks, cpu=False):
    r = R.rng

    def pr(t):
        L = []
        g = R.ep_group(v)
        nvl = R.local(v)
        rdma = R.hosts.index(R.host_of(v))
        if cpu:
            exc_block(R, v, t, "dispatch", ["RuntimeError: DeepEP error: CPU recv timeout"])
            return
        dead_nodes = sorted(set(R.hosts.index(R.host_of(d)) for d in dead_ranks))
        for k in range(r.randrange(2, 6)):
            ch = r.randrange(0, 24)
            if R.nnodes > 1 and dead_nodes:
                src_rdma = r.choice(dead_nodes)
                L.append("DeepEP dispatch NVL receiver timeout, channel: %d, RDMA: %d, nvl: %d, src RDMA: %d, src nvl: %d, start: 0, end: 0" % (ch, rdma, nvl, src_rdma, r.randrange(0, 8)))
            else:
                L.append("DeepEP timeout for dispatch receivers, rank %d, responsible_channel = %d, tokens remained: %d" % (nvl, ch, r.randrange(1, 300)))
        R.emit_rank(t, v, L)
        exc_block(R, v, t + r.uniform(0.5, 2), "dispatch", ["RuntimeError: CUDA error: unspecified launch failure"] + CUDA_TAIL + [""])
        what = ["CUDA error: unspecified launch failure"] + CUDA_TAIL + [""]
        R.emit_rank(t + 2.5, v, watchdog_error_block(R, v, t + 2.5, "default", what, c10_frames_cuda if R.world <= 32 else None, cuda_src(R)))
    pr.lag = 2.7
    return pr


def propagate(R, kind, t, rank=None, host=None, code=None, culprits=None, detect=None, stuck=None):
    """Generate collateral damage and decide every rank's exit.

    kind: 'exit'      -- `rank` exits at t with `code` (its own error already emitted)
          'stuck'     -- ranks in `stuck` stop progressing at t
          'node_down' -- `host` disappears at t
          'nic'       -- `host` loses its network at t
    """
    r = R.rng
    culprits = culprits or ([rank] if rank is not None else (R.ranks_on(host) if host else []))
    stuck = stuck or []
    natural = {}   # rank -> (t_fail, code, printer)
    if kind == "exit":
        R.exits[rank] = (t, code)
    if kind == "node_down":
        R.dead_hosts[host] = t
        for x in R.ranks_on(host):
            R.exits[x] = (t, None)
    remote_fast = (detect == "remote") if detect else (r.random() < 0.45)
    for v in range(R.world):
        if v in R.exits or v in stuck:
            continue
        hv = R.host_of(v)
        ep_peer = any(v in R.ep_group(c) for c in culprits)
        if kind == "nic":
            if hv == host:
                peer = r.choice([h for h in R.hosts if h != host])
                natural[v] = (t + r.uniform(14, 40), -6, victim_remote_printer(R, v, peer, local_issue=True))
                continue
            if ep_peer or r.random() < 0.3:
                natural[v] = (t + r.uniform(14, 40), -6, victim_remote_printer(R, v, host, local_issue=True))
                continue
        if kind == "exit" and hv == R.host_of(rank) and R.launcher != "srun":
            # local agent will kill these quickly; give them a (late) natural timeout anyway
            pass
        if R.dispatcher == "deepep" and ep_peer and kind in ("exit", "stuck", "node_down"):
            cpu = r.random() < 0.35
            natural[v] = (t + r.uniform(100.5, 104.0), 1, victim_deepep_printer(R, v, culprits, cpu=cpu))
            continue
        if kind in ("exit", "node_down") and remote_fast and ep_peer and hv != (R.host_of(rank) if rank is not None else host):
            dead_h = R.host_of(rank) if rank is not None else host
            natural[v] = (t + r.uniform(3, 70), -6, victim_remote_printer(R, v, dead_h))
            continue
        t_block = t + (r.uniform(0, 1.5) if ep_peer else r.uniform(1, 12))
        if R.stack == "titan" and v in R.titan_visible:
            t_block = t + r.uniform(0, 0.3)   # the logged rank is among the first to block
        natural[v] = (t_block + R.timeout_ms / 1000.0 + r.uniform(0.01, 0.09), -6, victim_timeout_printer(R, v, culprits))
    reap(R, natural, stuck)


def reap(R, natural, stuck):
    r = R.rng
    fails = {}
    R._tprint = {}
    for x, (tp, c, p) in natural.items():
        lag = getattr(p, "lag", 0.0) if p else 0.0
        fails[x] = (tp + lag, c, p)
        R._tprint[x] = tp
    for x, (tt, c) in R.exits.items():
        if c is not None:
            fails[x] = (tt, c, None)
    if R.launcher == "srun":
        cand = [(tt, x) for x, (tt, c, p) in fails.items() if x not in R.exits or R.exits[x][1] is not None]
        t_first = min(tt for tt, x in cand)
        if R.dead_hosts:
            hd = list(R.dead_hosts)[0]
            t_nf = R.dead_hosts[hd] + r.uniform(180, 330)
            if t_nf < t_first:
                R.srun_nodefail = (hd, t_nf)
                t_first = t_nf
        t_kill = t_first + r.uniform(0.4, 2.5)
        R.t_kill = t_kill
        for x in range(R.world):
            if x in R.exits:
                continue
            if x in fails and fails[x][0] <= t_kill:
                tt, c, p = fails[x]
                if p:
                    p(R._tprint.get(x, tt))
                R.exits[x] = (tt, c)
            else:
                R.exits[x] = (t_kill + r.uniform(0, 0.8), R.srun_killsig)
                R.srun_killed.append(x)
        return
    # per-node agents (torchrun / deepspeed launcher) -- iterate host teardown in time order
    alive = [h for h in R.hosts if h not in R.dead_hosts]
    R.agent_kill = {}
    pending_hosts = list(alive)
    cascade_done = False
    while pending_hosts:
        best = None
        for h in pending_hosts:
            loc = [fails[x][0] for x in R.ranks_on(h) if x in fails and (x not in R.exits or R.exits[x][1] is not None)]
            if not loc:
                continue
            tf = min(loc)
            if best is None or tf < best[0]:
                best = (tf, h)
        if best is None:
            break
        tf, h = best
        tk = tf + r.uniform(0.1, 4.5)
        if R.base == "k8s_pytorchjob" and hasattr(R, "k8s_cut") and R.k8s_cut is not None and tk > R.k8s_cut:
            break
        R.agent_kill[h] = tk
        pending_hosts.remove(h)
        for x in R.ranks_on(h):
            if x in R.exits and R.exits[x][1] is not None and x not in natural:
                continue  # already exited (initiator)
            if x in fails and fails[x][0] <= tk:
                tt, c, p = fails[x]
                if p:
                    p(R._tprint.get(x, tt))
                R.exits[x] = (tt, c)
            else:
                R.exits[x] = (tk + r.uniform(0.05, 0.6), -15)
        # k8s: the first failed pod fails the PyTorchJob and the operator deletes the rest
        if R.base == "k8s_pytorchjob" and getattr(R, "k8s_cut", None) is None:
            R.k8s_cut = tk + r.uniform(2, 9)
        # cascade: the ranks of this node are gone -> fast remote errors for some peers
        if not cascade_done:
            cascade_done = True
            if r.random() < 0.5:
                for v in list(fails):
                    if v in R.exits or R.host_of(v) == h:
                        continue
                    if any(v in R.ep_group(c) for c in R.ranks_on(h)) and r.random() < 0.6 and R.dispatcher != "deepep":
                        nt = tk + r.uniform(2, 40)
                        if nt < fails[v][0]:
                            fails[v] = (nt + 0.3, -6, victim_remote_printer(R, v, h))
                            R._tprint[v] = nt
    if R.base == "k8s_pytorchjob" and getattr(R, "k8s_cut", None) is not None:
        for h in pending_hosts:
            R.k8s_sigterm = getattr(R, "k8s_sigterm", {})
            R.k8s_sigterm[h] = R.k8s_cut + r.uniform(0, 1.5)
            for x in R.ranks_on(h):
                if x not in R.exits:
                    if x in fails and fails[x][0] <= R.k8s_sigterm[h]:
                        tt, c, p = fails[x]
                        if p:
                            p(R._tprint.get(x, tt))
                        R.exits[x] = (tt, c)
                    else:
                        R.exits[x] = (R.k8s_sigterm[h] + r.uniform(0.1, 0.5), -15)
    for x in range(R.world):
        if x not in R.exits:
            R.exits[x] = (R.t0 + 1e7, -15)   # should not happen; safety


def sched_kill(R, t, reason, hosts=None):
    """Scheduler / cloud terminates the job (or some hosts) at t with SIGTERM."""
    r = R.rng
    R.sched_event = (t, reason, hosts)
    hs = hosts or R.hosts
    for h in hs:
        for x in R.ranks_on(h):
            R.exits[x] = (t + r.uniform(0.05, 2.0), -15)


# ---------------------------------------------------------------------------
# Cause scenarios
# ---------------------------------------------------------------------------

def nlines(R, lo, hi):
    """number of progress-log intervals; fewer when many ranks print every step line."""
    n = R.rng.randrange(lo, hi)
    k = len(R.titan_visible) if R.stack == "titan" else 1
    if k > 4:
        n = max(12, n * 4 // k)
    return n


def begin(R, lo=15, hi=200):
    t = startup(R)
    r = R.rng
    n = nlines(R, lo, hi)
    dur = n * R.iter_s * R.log_interval
    step, tl = progress(R, t, t + dur, R.resume_step)
    R.step_now = step
    seq_numbers(R, step)
    return tl + r.uniform(0.3, max(0.5, R.iter_s * R.log_interval * 0.9)), step


def pname(R):
    if not hasattr(R, "_pname"):
        R._pname = R.rng.choice(["python3", "pt_main_thread", "python"])
    return R._pname


def pci(R, rank, upper=False):
    s = "0000:%s:00" % R.bus[R.local(rank)]
    return s.upper() if upper else s


def xid(R, rank, t, code, msg, with_pid=True):
    h = R.host_of(rank)
    who = "pid=%d, name=%s" % (R.pids[rank], pname(R)) if with_pid else "pid='<unknown>', name=<unknown>"
    R.kmsg(h, t, "NVRM: Xid (PCI:%s): %d, %s, %s" % (pci(R, rank), code, who, msg))


def pick_rank(R, avoid0=True):
    return R.pre_rank


def hidden(R, rk):
    """True when the rank's console output is filtered away (torchtitan --local-ranks-filter)."""
    return R.stack == "titan" and rk not in R.titan_visible


def ev_rank_err(R, rank, msg):
    """rank-level evidence: the rank's own error text, or the torchrun summary naming it."""
    R.ev_rank.append(("LINE", "[rank%d]: " % rank, msg))
    R.ev_rank.append(["rank      : %d (local_rank: %d)" % (rank, R.local(rank)), msg])


def ev_pid(R, rank, key):
    """rank evidence via pid mapping (NCCL INFO host:pid prefix, deepspeed spawn line)."""
    h = R.host_of(rank)
    pid = R.pids[rank]
    R.ev_rank.append([key, "%s:%d:" % (h, pid)])
    R.ev_rank.append([key, "process %d spawned with command: ['%s', '-u', 'pretrain_gpt.py', '--local_rank=%d'" % (pid, R.pyexe, R.local(rank))])
    R.ev_rank.append([key, "exitcode  : -9 (pid: %d)" % pid, "rank      : %d (local_rank: %d)" % (rank, R.local(rank))])


def add_nvsmi_lost(R, rank, t):
    h = R.host_of(rank)
    r = R.rng
    bad = pci(R, rank, upper=True)
    L = ["$ nvidia-smi", "Unable to determine the device handle for GPU%s.0: Unknown Error" % bad, "$ nvidia-smi -L"]
    for i in range(8):
        if i == R.local(rank):
            continue
        L.append("GPU %d: %s (UUID: GPU-%08x-%04x-%04x-%04x-%012x)" % (len(L) - 3, R.gpu, r.getrandbits(32), r.getrandbits(16), r.getrandbits(16), r.getrandbits(16), r.getrandbits(48)))
    L.append("Unable to determine the device handle for gpu %s.0: Unknown Error" % bad)
    R.extra_files["nvidia-smi-%s.txt" % h] = "\n".join(L) + "\n"


def c_gpu_hardware(R):
    r = R.rng
    t, step = begin(R)
    v = r.choice(["xid79", "xid79", "xid119", "xid62", "node"])
    rk = pick_rank(R)
    h = R.host_of(rk)
    R.init_rank, R.init_node = rk, h
    if v == "xid79":
        R.kmsg(h, t - 0.4, "NVRM: GPU at PCI:%s: GPU-%08x-%04x-%04x-%04x-%012x" % (pci(R, rk), r.getrandbits(32), r.getrandbits(16), r.getrandbits(16), r.getrandbits(16), r.getrandbits(48)))
        R.kmsg(h, t - 0.4, "NVRM: GPU Board Serial Number: %d" % r.randrange(10 ** 12, 10 ** 13))
        xid(R, rk, t - 0.4, 79, "GPU has fallen off the bus.", with_pid=False)
        R.kmsg(h, t - 0.39, "NVRM: GPU %s.0: GPU has fallen off the bus." % pci(R, rk))
        R.kmsg(h, t - 0.3, "NVRM: A GPU crash dump has been created. If possible, please run")
        R.kmsg(h, t - 0.3, "NVRM: nvidia-bug-report.sh as root to collect this data before")
        R.kmsg(h, t - 0.3, "NVRM: the NVIDIA kernel module is unloaded.")
        R.kmsg(h, t + 3, "NVRM: Xid (PCI:%s): 154, GPU recovery action changed from 0x0 (None) to 0x2 (Node Reboot Required)" % pci(R, rk))
        msg = r.choice(["CUDA error: unspecified launch failure", "CUDA error: unknown error"])
        code = r.choice([1, -6]) if not hidden(R, rk) else 1
        where = r.choice(["experts", "backward", "dispatch"])
        exc_block(R, rk, t, where, ["RuntimeError: " + msg] + CUDA_TAIL + [""])
        if code == -6:
            R.emit_rank(t + 0.3, rk, watchdog_error_block(R, rk, t + 0.3, "default", [msg] + CUDA_TAIL + [""], c10_frames_cuda, cuda_src(R)))
        ev_rank_err(R, rk, "RuntimeError: " + msg)
        R.ev_node.append(["GPU has fallen off the bus", h])
        R.ev_cause.append(["Xid", "79"])
        if r.random() < 0.5:
            add_nvsmi_lost(R, rk, t)
        R.notes = "GPU %d on %s fell off the bus (Xid 79); rank %d died with a CUDA error, the rest tore down." % (R.local(rk), h, rk)
        propagate(R, "exit", t + 0.5, rank=rk, code=code)
    elif v == "xid119":
        for k in range(r.randrange(2, 5)):
            xid(R, rk, t + k * 6.1, 119, "Timeout after 6s of waiting for RPC response from GPU%d GSP! Expected function 76 (GSP_RM_CONTROL) (0x2080014b 0x5)." % R.local(rk))
            if k == 0:
                R.kmsg(h, t + 0.01, "NVRM: GPU%d GSP RPC buffer contains function 76 (GSP_RM_CONTROL) and data 0x000000002080014b 0x0000000000000005." % R.local(rk))
                R.kmsg(h, t + 0.01, "NVRM: GPU%d RPC history (CPU -> GSP):" % R.local(rk))
                R.kmsg(h, t + 0.01, "NVRM:     entry function                   data0              data1              ts_start           ts_end             duration actively_polling")
                R.kmsg(h, t + 0.01, "NVRM:      0    76   GSP_RM_CONTROL       0x000000002080014b 0x0000000000000005 0x000%x 0x0000000000000000          y" % r.getrandbits(44))
        R.kmsg(h, t + 40, "NVRM: Xid (PCI:%s): 154, GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)" % pci(R, rk))
        key = "Xid (PCI:%s): 119, pid=%d" % (pci(R, rk), R.pids[rk])
        ev_pid(R, rk, key)
        R.ev_node.append(["GSP", h])
        R.ev_cause.append(["119", "GSP"])
        R.notes = "GSP RPC timeouts (Xid 119) on GPU %d of %s; rank %d stopped making progress and the others timed out." % (R.local(rk), h, rk)
        propagate(R, "stuck", t, stuck=[rk], culprits=[rk])
    elif v == "xid62":
        xid(R, rk, t - 0.2, 62, "%08x %08x %08x %08x %08x %08x %08x %08x" % (0xb9c6, 2, 0xf2f4, 0xd6148, 0, 0, 0, 0))
        xid(R, rk, t + 0.5, 45, "Ch 0000000%d" % r.randrange(8, 10)) if r.random() < 0.5 else None
        msg = "CUDA error: unspecified launch failure"
        exc_block(R, rk, t, r.choice(["experts", "backward"]), ["RuntimeError: " + msg] + CUDA_TAIL + [""])
        ev_rank_err(R, rk, "RuntimeError: " + msg)
        R.ev_node.append(["): 62, pid=", h])
        R.ev_cause.append(["Xid", "62"])
        R.notes = "Internal micro-controller halt (Xid 62) on GPU %d of %s; rank %d hit a CUDA launch failure." % (R.local(rk), h, rk)
        propagate(R, "exit", t + 0.4, rank=rk, code=1)
    else:
        # the whole node hangs/reboots after a fatal GPU error
        xid(R, rk, t - 1, 79, "GPU has fallen off the bus.", with_pid=False)
        R.kmsg(h, t - 0.99, "NVRM: GPU %s.0: GPU has fallen off the bus." % pci(R, rk))
        other = R.ranks_on(h)[(R.local(rk) + 1) % 8]
        xid(R, other, t - 0.6, 79, "GPU has fallen off the bus.", with_pid=False)
        R.kmsg(h, t + 2, "watchdog: BUG: soft lockup - CPU#%d stuck for 22s! [%s:%d]" % (r.randrange(0, 200), pname(R), R.pids[rk]))
        R.init_rank = None
        R.ev_node.append(["GPU has fallen off the bus", h])
        R.ev_cause.append(["Xid", "79"])
        R.kern_only_after_reboot = True
        R.notes = "Two GPUs on %s fell off the bus and the node stopped responding; its ranks vanished without output." % h
        propagate(R, "node_down", t, host=h)


def c_ecc(R):
    r = R.rng
    t, step = begin(R)
    rk = pick_rank(R)
    h = R.host_of(rk)
    R.init_rank, R.init_node = rk, h
    v = r.choice(["48", "94", "95", "remap"])
    if v == "48":
        xid(R, rk, t - 0.3, 48, "An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition %d, subpartition %d." % (r.randrange(0, 12), r.randrange(0, 2)))
        xid(R, rk, t - 0.2, 63, "Row Remapper: New row (0x%016x) marked for remapping, reset gpu to activate." % (r.getrandbits(36) << 4))
    elif v == "94":
        xid(R, rk, t - 0.3, 94, "Contained: SM (0x1). RST: No, D-RST: No")
    elif v == "95":
        xid(R, rk, t - 0.3, 95, "Uncontained: FBHUB. RST: Yes, D-RST: No", with_pid=False)
    else:
        xid(R, rk, t - 0.3, 48, "An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition %d, subpartition 0." % r.randrange(0, 12))
        xid(R, rk, t - 0.2, 64, "Row Remapper Error: (0x%016x) - All reserved rows for bank are remapped" % (r.getrandbits(36) << 4), with_pid=False)
    msg = "CUDA error: uncorrectable ECC error encountered"
    where = r.choice(["experts", "backward", "optimizer", "dispatch"])
    exc_block(R, rk, t, where, ["RuntimeError: " + msg] + CUDA_TAIL + [""])
    code = 1
    if r.random() < 0.5 and not hidden(R, rk):
        R.emit_rank(t + 0.2, rk, watchdog_error_block(R, rk, t + 0.2, "default", [msg] + CUDA_TAIL + [""], c10_frames_cuda, cuda_src(R)))
        code = -6
    if r.random() < 0.6:
        R.extra_files["nvidia-smi-q-%s-gpu%d.txt" % (h, R.local(rk))] = "\n".join([
            "==============NVSMI LOG==============", "",
            "Timestamp                                 : %s" % D(R.lt(h, t + 900)).strftime("%a %b %d %H:%M:%S %Y"),
            "Driver Version                            : %s" % r.choice(["550.127.08", "560.35.03", "570.124.06"]),
            "CUDA Version                              : 12.%d" % r.choice([4, 6, 8]), "",
            "Attached GPUs                             : 8",
            "GPU %s.0" % pci(R, rk, upper=True).replace("0000:", "00000000:"),
            "    Product Name                          : %s" % R.gpu,
            "    ECC Errors",
            "        Volatile",
            "            SRAM Correctable              : 0",
            "            SRAM Uncorrectable Parity     : 0",
            "            SRAM Uncorrectable SEC-DED    : 0",
            "            DRAM Correctable              : %d" % r.randrange(0, 40),
            "            DRAM Uncorrectable            : %d" % r.randrange(1, 4),
            "        Aggregate",
            "            SRAM Correctable              : 0",
            "            DRAM Correctable              : %d" % r.randrange(40, 400),
            "            DRAM Uncorrectable            : %d" % r.randrange(1, 9),
            "    Retired Pages",
            "        Single Bit ECC                    : N/A",
            "        Double Bit ECC                    : N/A",
            "        Pending Page Blacklist            : N/A",
            "    Remapped Rows",
            "        Correctable Error                 : 0",
            "        Uncorrectable Error               : %d" % r.randrange(1, 4),
            "        Pending                           : Yes",
            "        Remapping Failure Occurred        : %s" % ("Yes" if v == "remap" else "No"), ""])
    ev_rank_err(R, rk, "RuntimeError: " + msg)
    R.ev_node.append(["Xid (PCI:%s): %s" % (pci(R, rk), "48" if v in ("48", "remap") else v), h])
    R.ev_node.append(["nvidia-smi-q-%s" % h])
    R.ev_cause.append(["uncorrectable ECC error encountered"])
    R.notes = "Uncorrectable ECC error (Xid %s) on GPU %d of %s; rank %d raised 'uncorrectable ECC error encountered'." % (v if v != "remap" else "48/64", R.local(rk), h, rk)
    propagate(R, "exit", t + 0.3, rank=rk, code=code)


def c_nvlink(R):
    r = R.rng
    t, step = begin(R)
    rk = pick_rank(R)
    h = R.host_of(rk)
    R.init_node = h
    v = r.choice(["xid74", "xid74", "nvswitch"])
    msg = "CUDA error: uncorrectable NVLink error detected during the execution"
    if v == "xid74":
        R.init_rank = rk
        link = r.randrange(0, 18)
        xid(R, rk, t - 0.5, 74, "NVLink: fatal error detected on link %d(0x0, 0x0, 0x0, 0x%x, 0x0, 0x0, 0x0)" % (link, r.choice([0x10000, 0x20000, 0x100])))
        if r.random() < 0.5:
            xid(R, rk, t - 0.49, 74, "NVLink: fatal error detected on link %d(0x0, 0x0, 0x0, 0x10000, 0x0, 0x0, 0x0)" % ((link + 1) % 18))
        exc_block(R, rk, t, r.choice(["dispatch", "combine", "backward"]), ["RuntimeError: " + msg] + CUDA_TAIL + [""])
        ev_rank_err(R, rk, "RuntimeError: " + msg)
        R.ev_node.append(["): 74,", h])
        R.ev_cause.append(["Xid", "74"])
        R.ev_cause.append(["NVLink error"])
        R.notes = "Fatal NVLink error (Xid 74) on GPU %d of %s; rank %d raised an NVLink CUDA error inside the expert all-to-all." % (R.local(rk), h, rk)
        propagate(R, "exit", t + 0.3, rank=rk, code=r.choice([1, -6]) if not hidden(R, rk) else 1)
    else:
        R.init_rank = None
        sw = r.randrange(0, 4)
        port = r.randrange(0, 64)
        R.kmsg(h, t - 1.0, "nvidia-nvswitch%d: SXid (PCI:0000:%02x:00.0): 20034, Fatal, Link %d LTSSM Fault Up" % (sw, 5 + sw, port))
        R.kmsg(h, t - 1.0, "nvidia-nvswitch%d: SXid (PCI:0000:%02x:00.0): 20034, Severity 1 Engine instance %d Sub-engine instance 00" % (sw, 5 + sw, port))
        R.kmsg(h, t - 0.99, "nvidia-nvswitch%d: SXid (PCI:0000:%02x:00.0): 20034, Data {0x%08x, 0x%08x, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000}" % (sw, 5 + sw, r.getrandbits(32), r.getrandbits(20)))
        local = R.ranks_on(h)
        hit = sorted(r.sample(local, r.randrange(2, 5)))
        for k, x in enumerate(hit):
            xid(R, x, t - 0.8 + k * 0.01, 74, "NVLink: fatal error detected on link %d(0x0, 0x0, 0x0, 0x10000, 0x0, 0x0, 0x0)" % r.randrange(0, 18))
        R.extra_files["fabricmanager-%s.log" % h] = "\n".join([
            "[%s] [ERROR] [tid %d] detected NVSwitch fatal error 20034 on fid 0 on NVSwitch pci bus id 00000000:%02x:00.0 physical id %d port %d" % (D(R.lt(h, t - 1)).strftime("%b %d %Y %H:%M:%S"), r.randrange(1000, 9000), 5 + sw, sw, port),
            "[%s] [ERROR] [tid %d] NVSwitch fatal error detected on NVSwitch physical id %d. GPU partition reset or system reboot is required" % (D(R.lt(h, t - 0.9)).strftime("%b %d %Y %H:%M:%S"), r.randrange(1000, 9000), sw),
            ""])
        first = hit[0]
        for k, x in enumerate(hit):
            exc_block(R, x, t + k * r.uniform(0.05, 0.4), r.choice(["dispatch", "combine"]), ["RuntimeError: " + msg] + CUDA_TAIL + [""])
        for x in hit[1:]:
            R.exits[x] = (t + 0.5 + r.uniform(0, 0.5), 1)
        R.ev_node.append(["SXid", h])
        R.ev_node.append(["fabricmanager-%s" % h])
        R.ev_cause.append(["SXid", "20034"])
        R.ev_cause.append(["uncorrectable NVLink error"])
        R.notes = "NVSwitch fatal error (SXid 20034) on %s broke NVLink for several local GPUs (ranks %s)." % (h, hit)
        propagate(R, "exit", t + 0.3, rank=first, code=1, culprits=hit)


def c_network(R):
    r = R.rng
    v = r.choice(["ib", "ib", "roce", "nvshmem_init"]) if R.dispatcher == "deepep" else r.choice(["ib", "ib", "roce"])
    rk = pick_rank(R)
    h = R.host_of(rk)
    R.init_node = h
    R.init_rank = None
    nic = R.local(rk)
    if v == "nvshmem_init":
        t = startup(R)
        R.step_now = R.resume_step
        seq_numbers(R, R.resume_step)
        tt = t + r.uniform(5, 30)
        R.kmsg(h, tt - 40, "mlx5_core %s: mlx5_port_module_event:1145:(pid 0): Port module event[error]: module %d, Cable error, High Temperature" % (NICPCI[nic], nic))
        R.kmsg(h, tt - 39, "mlx5_core %s %s: Link down" % (NICPCI[nic], IBDEV[nic]))
        nv = R.rng.choice(["/workspace/nvshmem", "/opt/nvshmem_src", "/dvs/p4/build/sw/rel/gpgpu/toolkit/r12.8/main_nvshmem"])
        for x in R.ranks_on(h):
            L = ["%s/src/modules/transport/ibrc/ibrc.cpp:418: non-zero status: 110 ibv_modify_qp failed" % nv,
                 "",
                 "%s/src/modules/transport/ibrc/ibrc.cpp:1433: non-zero status: 7 ep_connect failed" % nv,
                 "%s/src/host/transport/transport.cpp:400: non-zero status: 7 connect EPS failed" % nv,
                 "%s/src/host/init/init.cu:1007: non-zero status: 7 nvshmem setup connections failed" % nv,
                 "%s/src/host/init/init.cu:nvshmemi_check_state_and_init:1080: nvshmem initialization failed, exiting" % nv]
            R.emit_rank(tt + r.uniform(0, 0.5), x, L)
            R.exits[x] = (tt + 0.6 + r.uniform(0, 0.3), 255 if r.random() < 0.5 else -6)
        for x in range(R.world):
            if x in R.exits:
                continue
            if r.random() < 0.4 or R.world <= 16:
                R.emit_rank(tt + r.uniform(1, 3), x, ["%s/src/modules/bootstrap/uid/ncclSocket/ncclsocket_socket.cpp:socketProgress:59: socketProgress: Connection closed by remote peer %s<%d>" % (nv, h, r.randrange(33000, 60000)),
                                                       "%s/src/modules/bootstrap/uid/bootstrap_uid.cpp:97: non-zero status: -6 %s/src/modules/bootstrap/uid/bootstrap_uid.cpp:499: non-zero status: -6 %s/src/host/topo/topo.cpp:477: non-zero status: -6 allgather of ipc handles failed" % (nv, nv, nv),
                                                       "",
                                                       "%s/src/host/init/init.cu:992: non-zero status: 7 building transport map failed" % nv,
                                                       "",
                                                       "%s/src/host/init/init.cu:nvshmemi_check_state_and_init:1080: nvshmem initialization failed, exiting" % nv])
                R.exits[x] = (tt + r.uniform(3, 4), 255 if r.random() < 0.5 else -6)
        R.ev_node.append(["ibv_modify_qp failed", h])
        R.ev_node.append(["Link down", h])
        R.ev_cause.append(["ibv_modify_qp failed"])
        R.ev_cause.append(["Link down"])
        R.notes = "NVSHMEM (DeepEP) transport setup failed at startup: the IB port of %s (%s) was down, ibv_modify_qp timed out there and the other nodes lost the bootstrap connection." % (h, HCAS[nic])
        reap(R, {}, [])
        return
    t, step = begin(R)
    if v == "ib":
        R.kmsg(h, t - 2, "mlx5_core %s: mlx5_port_module_event:1145:(pid 0): Port module event[error]: module %d, Cable error, Bus stuck (I2C or data shorted)" % (NICPCI[nic], nic))
        R.kmsg(h, t - 1.5, "mlx5_core %s: Port module event: module %d, Cable unplugged" % (NICPCI[nic], nic))
        R.kmsg(h, t - 1.4, "ib_core: %s port 1 state changed: DOWN" % HCAS[nic])
        if r.random() < 0.6:
            R.kmsg(h, t + 35, "mlx5_core %s: Port module event: module %d, Cable plugged" % (NICPCI[nic], nic))
            R.kmsg(h, t + 41, "ib_core: %s port 1 state changed: ACTIVE" % HCAS[nic])
    else:
        dev = "enp%ds0np0" % (int(NICPCI[nic][5:7], 16))
        for k in range(r.randrange(1, 4)):
            R.kmsg(h, t - 3 + k * 4.2, "mlx5_core %s %s: Link down" % (NICPCI[nic], dev))
            R.kmsg(h, t - 1 + k * 4.2, "mlx5_core %s %s: Link up" % (NICPCI[nic], dev))
    # async event on the bad node
    for x in R.ranks_on(h):
        if r.random() < 0.5 or R.local(x) == nic:
            R.emit_rank(t + r.uniform(0.1, 2), x, ["%s transport/net_ib.cc:%d NCCL WARN NET/IB : %s:1 Got async event : port error" % (nccl_hostpfx(R, x), r.choice([107, 98, 123]), HCAS[nic])])
    R.ev_node.append(["Got async event : port error", h])
    R.ev_node.append(["remoteGids ::ffff:%s" % R.ip[h], "Bootstrap : Using"])
    R.ev_node.append(["Link down", h])
    R.ev_node.append(["state changed: DOWN", h])
    R.ev_cause.append(["IBV_WC_RETRY_EXC_ERR"])
    R.ev_cause.append(["port error"])
    R.ev_cause.append(["state changed: DOWN"])
    R.ev_cause.append([": Link down"])
    R.notes = "%s on %s (%s) went down mid-training; NCCL IB completions failed with retry-exceeded on that node and its peers." % ("IB port" if v == "ib" else "RoCE link (flapping)", h, HCAS[nic])
    propagate(R, "nic", t, host=h)


def oom_msg(R, rank, alloc_gib):
    r = R.rng
    tot = R.gpumem
    free = r.uniform(0.2, min(alloc_gib - 0.05, 6.0)) if alloc_gib > 0.3 else 0.1
    inuse = tot - free - r.uniform(0.3, 0.6)
    alloc = inuse - r.uniform(1.0, 4.0)
    resv = inuse - alloc - r.uniform(0.3, 0.9)
    return ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate %.2f GiB. GPU %d has a total capacity of %.2f GiB of which %.2f GiB is free. Including non-PyTorch memory, this process has %.2f GiB memory in use. Of the allocated memory %.2f GiB is allocated by PyTorch, and %.2f GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)"
            % (alloc_gib, R.local(rank), tot, free, inuse, alloc, max(0.1, resv)))


def c_cuda_oom(R):
    r = R.rng
    t, step = begin(R)
    rk = pick_rank(R)
    h = R.host_of(rk)
    R.init_rank, R.init_node = rk, h
    gib = r.choice([r.uniform(3, 9), r.uniform(10, 24)])
    where = "experts" if R.dispatcher != "deepep" else r.choice(["experts", "dispatch"])
    if R.stack == "titan":
        where = r.choice(["experts", "permute"])
    if R.stack == "megatron" and r.random() < 0.3:
        where = "permute"
    pre = []
    msg = oom_msg(R, rk, gib)
    exc_block(R, rk, t, where, [msg], pre=pre)
    ev_rank_err(R, rk, "torch.OutOfMemoryError: CUDA out of memory")
    R.ev_cause.append(["CUDA out of memory"])
    R.notes = "Token-dispatch imbalance: rank %d (EP rank %d) received far more tokens than its peers and ran out of GPU memory in the %s." % (rk, R.ep_group(rk).index(rk), {"experts": "grouped expert GEMM", "permute": "token permutation", "dispatch": "DeepEP dispatch receive buffer"}[where])
    propagate(R, "exit", t + 0.4, rank=rk, code=1)


def c_illegal(R):
    r = R.rng
    t, step = begin(R)
    rk = pick_rank(R)
    h = R.host_of(rk)
    R.init_rank, R.init_node = rk, h
    v = r.choice(["assert", "ima", "ima", "xid13"])
    if v == "assert":
        L = []
        for k in range(r.randrange(3, 12)):
            L.append("../aten/src/ATen/native/cuda/Indexing.cu:1422: indexSelectLargeIndex: block: [%d,0,0], thread: [%d,0,0] Assertion `srcIndex < srcSelectDimSize` failed." % (r.randrange(0, 4000), r.randrange(0, 128)))
        R.emit_rank(t - 0.05, rk, L)
        msg = "CUDA error: device-side assert triggered"
        exc_block(R, rk, t, "permute", ["RuntimeError: " + msg] + CUDA_TAIL + [""])
        if r.random() < 0.5:
            xid(R, rk, t + 0.1, 43, "Ch 000000%02x" % r.randrange(8, 40))
        R.ev_cause.append(["device-side assert triggered"])
        R.notes = "Device-side assert in the MoE token permutation on rank %d (expert index out of range)." % rk
    else:
        msg = "CUDA error: an illegal memory access was encountered"
        where = r.choice(["experts", "dispatch", "combine", "backward"])
        exc_block(R, rk, t, where, ["RuntimeError: " + msg] + CUDA_TAIL + [""])
        if v == "xid13":
            xid(R, rk, t - 0.1, 13, "Graphics SM Warp Exception on (GPC %d, TPC %d, SM %d): Out Of Range Address" % (r.randrange(0, 8), r.randrange(0, 9), r.randrange(0, 2)))
            xid(R, rk, t - 0.1, 13, "Graphics Exception: ESR 0x%x=0x%x 0x%x=0x0 0x%x=0x%x 0x%x=0x174" % (0x51e730, 0x2000e, 0x51e734, 0x51e728, r.getrandbits(28), 0x51e72c))
        elif r.random() < 0.7:
            xid(R, rk, t - 0.1, 31, "Ch 000000%02x, intr 00000000. MMU Fault: ENGINE GRAPHICS GPC%d GPCCLIENT_T1_%d faulted @ 0x7f%02x_%08x. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_%s" % (r.randrange(8, 40), r.randrange(0, 8), r.randrange(0, 16), r.getrandbits(8), r.getrandbits(28) << 4, r.choice(["READ", "WRITE"])))
        R.ev_cause.append(["illegal memory access"])
        R.notes = "Illegal memory access on rank %d inside the %s." % (rk, {"experts": "grouped GEMM of the experts", "dispatch": "token dispatch", "combine": "token combine", "backward": "backward pass"}[where])
    code = 1
    if r.random() < 0.6 and not hidden(R, rk):
        R.emit_rank(t + 0.05, rk, watchdog_error_block(R, rk, t + 0.05, "default", [msg] + CUDA_TAIL + [""], c10_frames_cuda, cuda_src(R)))
        code = -6
    ev_rank_err(R, rk, "RuntimeError: " + msg)
    R.ev_rank.append(["Xid (PCI:%s)" % pci(R, rk), "%s:%d:" % (h, R.pids[rk])])
    propagate(R, "exit", t + 0.2, rank=rk, code=code)


def c_python(R):
    r = R.rng
    opts = ["split", "ckpt", "data_key"]
    if R.stack == "megatron":
        opts += ["nan", "nan"]
    if R.stack == "deepspeed":
        opts += ["capacity", "capacity"]
    v = r.choice(opts)
    t, step = begin(R)
    rk = pick_rank(R, avoid0=(v != "ckpt"))
    h = R.host_of(rk)
    R.init_rank, R.init_node = rk, h
    if v == "nan":
        exc = "RuntimeError: Rank %d, node %s, device %d, iteration %d: Unexpected result nan (message='found NaN in local grad norm for bucket #0 in backward pass before data-parallel communication collective')" % (rk, h, R.local(rk), step + 1)
        exc_block(R, rk, t, "nan_check", [exc])
        ev_rank_err(R, rk, "Unexpected result nan")
        R.ev_rank.append(["Rank %d, node %s, device %d" % (rk, h, R.local(rk))])
        R.ev_cause.append(["found NaN in local grad norm"])
        R.notes = "The MoE router produced NaN on rank %d only; Megatron's NaN check in the grad buffer raised on that rank." % rk
    elif v == "capacity":
        if R.topk == 1:
            exc = ["RuntimeError: The following operation failed in the TorchScript interpreter.",
                   "Traceback of TorchScript (most recent call last):",
                   '  File "%s/deepspeed/moe/sharded_moe.py", line 172, in _top_idx' % R.site,
                   "@torch.jit.script",
                   "def _top_idx(source, k):",
                   "    return torch.topk(source, k=k, dim=0)[1]",
                   "           ~~~~~~~~~~ <--- HERE",
                   "RuntimeError: selected index k out of range"]
            key = "selected index k out of range"
        else:
            exc = ["RuntimeError: Class values must be smaller than num_classes."]
            key = "Class values must be smaller than num_classes"
        exc_block(R, rk, t, "capacity", exc)
        ev_rank_err(R, rk, exc[0])
        R.ev_cause.append([key])
        R.notes = "DeepSpeed-MoE gating on rank %d: computed expert capacity did not match its token count (capacity-factor overflow) and top-k gating raised." % rk
    elif v == "split":
        exc = "RuntimeError: Split sizes doesn't match total dim 0 size"
        where = "dispatch" if R.dispatcher != "deepep" else "experts"
        if R.dispatcher == "deepep":
            exc = "RuntimeError: split_with_sizes expects split_sizes to sum exactly to %d (input tensor's size at dimension 0), but got split_sizes=[%s]" % (r.randrange(30000, 90000), ", ".join(str(r.randrange(0, 9000)) for _ in range(max(2, R.num_experts // R.EP))))
        exc_block(R, rk, t, where, [exc])
        ev_rank_err(R, rk, exc.split(",")[0][:60])
        R.ev_cause.append([exc[:40]])
        R.notes = "Rank %d computed inconsistent token split sizes for the expert all-to-all and raised locally." % rk
    elif v == "ckpt":
        if r.random() < 0.5:
            exc = "OSError: [Errno 28] No space left on device"
        else:
            exc = "RuntimeError: [enforce fail at inline_container.cc:626] . unexpected pos %d vs %d" % (r.randrange(10 ** 8, 10 ** 9), r.randrange(10 ** 8, 10 ** 9))
        exc_block(R, rk, t, "ckpt", [exc])
        ev_rank_err(R, rk, exc[:30])
        R.ev_cause.append([exc[:30]])
        R.notes = "Checkpoint save failed on rank %d (%s)." % (rk, exc.split(":")[0])
    else:
        if R.stack == "titan":
            exc = ["KeyError: 'text'"]
        else:
            exc = ["IndexError: index %d is out of bounds for axis 0 with size %d" % (r.randrange(10 ** 6, 10 ** 7), r.randrange(10 ** 5, 10 ** 6))]
        exc_block_data(R, rk, t, exc)
        ev_rank_err(R, rk, exc[0])
        R.ev_cause.append([exc[0]])
        R.notes = "Uncaught %s in the data pipeline on rank %d (bad shard)." % (exc[0].split(":")[0], rk)
    propagate(R, "exit", t + 0.3, rank=rk, code=1)


def exc_block_data(R, rk, t, exc):
    fr = frames(R, "data")[:-4]
    S = R.site
    if R.stack == "titan":
        fr = fr[:-1] + [F(S + "/torchdata/stateful_dataloader/stateful_dataloader.py", 450, "__next__", "return super().__next__()"),
                        F(S + "/torch/utils/data/dataloader.py", 708, "__next__", "data = self._next_data()"),
                        F(S + "/torch/utils/data/dataloader.py", 764, "_next_data", "data = self._dataset_fetcher.fetch(index)  # may raise StopIteration"),
                        F(S + "/torch/utils/data/_utils/fetch.py", 33, "fetch", "data.append(next(self.dataset_iter))"),
                        F(ttroot(R) + "/torchtitan/datasets/hf_datasets.py", 132, "__iter__", "sample_text = self._text_processor(sample)"),
                        F(ttroot(R) + "/torchtitan/datasets/hf_datasets.py", 33, "_process_c4_text", "return sample[\"text\"]")]
    else:
        fr = fr + [F(S + "/torch/utils/data/dataloader.py", 708, "__next__", "data = self._next_data()"),
                   F(S + "/torch/utils/data/dataloader.py", 764, "_next_data", "data = self._dataset_fetcher.fetch(index)  # may raise StopIteration"),
                   F(S + "/torch/utils/data/_utils/fetch.py", 52, "fetch", "data = [self.dataset[idx] for idx in possibly_batched_index]"),
                   F((mroot(R) if R.stack == "megatron" else dsroot(R)) + "/megatron/core/datasets/gpt_dataset.py", 183, "__getitem__", "text, _ = self._query_document_sample_shuffle_indices(idx)"),
                   F((mroot(R) if R.stack == "megatron" else dsroot(R)) + "/megatron/core/datasets/gpt_dataset.py", 262, "_query_document_sample_shuffle_indices", "sample_parts.append(self.dataset.get(self.document_index[doc_index_beg], offset=doc_index_beg_offset,")]
    emit_exc(R, rk, t, py_tb(fr, exc))


def c_host_oom(R):
    r = R.rng
    t, step = begin(R)
    rk = pick_rank(R)
    h = R.host_of(rk)
    R.init_node = h
    v = r.choice(["rank", "rank", "worker"] + (["cgroup"] if R.base == "k8s_pytorchjob" else []))
    pid = R.pids[rk]
    uid = r.choice([0, 1000, r.randrange(10000, 60000)])
    if R.launcher == "srun":
        memcg = "/system.slice/slurmstepd.scope/job_%d/step_0/user/task_%d" % (R.jobid, rk)
    elif R.base == "k8s_pytorchjob":
        memcg = "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod%08x_%04x_%04x_%04x_%012x.slice/cri-containerd-%016x.scope" % (r.getrandbits(32), r.getrandbits(16), r.getrandbits(16), r.getrandbits(16), r.getrandbits(48), r.getrandbits(64))
    else:
        memcg = "/user.slice/user-%d.slice/session-%d.scope" % (uid, r.randrange(1, 90))
    def oomlines(victim_pid, name, rss_kb, cg=False):
        R.kmsg(h, t - 0.2, "%s invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0" % r.choice([pname(R), "pt_data_worker", "python3"]))
        R.kmsg(h, t - 0.19, "CPU: %d PID: %d Comm: %s Not tainted 5.15.0-%d-generic #%d-Ubuntu" % (r.randrange(0, 190), victim_pid + 3, name, r.randrange(90, 130), r.randrange(90, 140)))
        R.kmsg(h, t - 0.18, "Mem-Info:")
        R.kmsg(h, t - 0.17, "active_anon:%d inactive_anon:%d isolated_anon:0" % (r.randrange(10 ** 8, 5 * 10 ** 8), r.randrange(10 ** 6, 10 ** 7)))
        R.kmsg(h, t - 0.05, "oom-kill:constraint=CONSTRAINT_%s,nodemask=(null),cpuset=/,mems_allowed=0-1,global_oom,task_memcg=%s,task=%s,pid=%d,uid=%d" % ("MEMCG" if cg else "NONE", memcg, name, victim_pid, uid))
        R.kmsg(h, t - 0.04, "%sOut of memory: Killed process %d (%s) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:%d pgtables:%dkB oom_score_adj:0" % ("Memory cgroup " if cg else "", victim_pid, name, rss_kb * 3, rss_kb, r.randrange(100000, 900000), r.randrange(0, 10 ** 6), uid, rss_kb // 500))
    if v == "rank":
        R.init_rank = rk
        oomlines(pid, pname(R), r.randrange(180, 420) * 1024 * 1024)
        key = "Killed process %d" % pid
        ev_pid(R, rk, key)
        R.ev_rank.append(["task %d: Out Of Memory" % rk])
        R.ev_node.append(["Out of memory: Killed process", h])
        R.ev_cause.append(["Out of memory: Killed process"])
        R.ev_cause.append(["oom_kill event"])
        R.ev_cause.append(["OOMKilled"])
        R.notes = "Host RAM exhausted on %s (expert-state gather to CPU during checkpointing); the kernel OOM killer SIGKILLed rank %d." % (h, rk)
        R.oom_step = True
        propagate(R, "exit", t, rank=rk, code=-9)
    elif v == "worker":
        R.init_rank = rk
        wpid = pid + r.randrange(2000, 9000)
        oomlines(wpid, "pt_data_worker", r.randrange(40, 120) * 1024 * 1024)
        exc = "RuntimeError: DataLoader worker (pid %d) is killed by signal: Killed. " % wpid
        emit_exc(R, rk, t + 0.5, py_tb(frames(R, "data")[:-1] + [F(R.site + "/torch/utils/data/dataloader.py", 1251, "_try_get_data", "raise RuntimeError(")],
                                       [exc]))
        R.printed_fail[rk] = True
        ev_rank_err(R, rk, "DataLoader worker (pid %d) is killed by signal: Killed" % wpid)
        R.ev_node.append(["Killed process %d" % wpid, h])
        R.ev_cause.append(["Out of memory: Killed process %d" % wpid])
        R.ev_cause.append(["is killed by signal: Killed"])
        R.notes = "Kernel OOM killer on %s killed a DataLoader worker of rank %d; the rank then raised." % (h, rk)
        propagate(R, "exit", t + 0.6, rank=rk, code=1)
    else:
        R.init_rank = None
        R.k8s_oomkilled = h
        R.ev_node.append(["OOMKilled", h])
        R.ev_cause.append(["OOMKilled"])
        R.notes = "Pod %s exceeded its memory limit and the whole container was OOMKilled (exit 137)." % h
        propagate(R, "node_down", t, host=h)


def c_crash(R):
    r = R.rng
    t, step = begin(R)
    rk = pick_rank(R)
    h = R.host_of(rk)
    R.init_rank, R.init_node = rk, h
    v = r.choice(["segv", "segv", "bus", "abort"])
    if v == "abort" and hidden(R, rk):
        v = "segv"   # an abort message from a filtered-out rank would leave nothing to diagnose
    if v == "segv":
        if r.random() < 0.6:
            S = R.site
            mod = r.choice([("%s/deep_ep/buffer.py" % S, 505, "internode_dispatch"), ("%s/transformer_engine/pytorch/cpp_extensions/gemm.py" % S, 212, "general_grouped_gemm"),
                            ("%s/torch/autograd/graph.py" % S, 824, "_engine_run_backward")])
            L = ["Fatal Python error: Segmentation fault", "",
                 "Thread 0x%016x (most recent call first):" % (0x7f0000000000 + r.getrandbits(36)),
                 '  File "%s/torch/utils/data/_utils/pin_memory.py", line 55 in do_one_step' % S,
                 '  File "%s/torch/utils/data/_utils/pin_memory.py", line 59 in _pin_memory_loop' % S,
                 '  File "/usr/lib/python%s/threading.py", line 1012 in run' % R.py,
                 '  File "/usr/lib/python%s/threading.py", line 1075 in _bootstrap_inner' % R.py,
                 '  File "/usr/lib/python%s/threading.py", line 1032 in _bootstrap' % R.py, "",
                 "Current thread 0x%016x (most recent call first):" % (0x7f0000000000 + r.getrandbits(36)),
                 '  File "%s", line %d in %s' % mod]
            for f in frames(R, "experts")[::-1][:6]:
                L.append(f[0].replace(", in ", " in ").replace(", line", ", line"))
            L += ["", "Extension modules: numpy.core._multiarray_umath, numpy.core._multiarray_tests, numpy.linalg._umath_linalg, torch._C, torch._C._dynamo.autograd_compiler, torch._C._dynamo.eval_frame, torch._C._dynamo.guards, torch._C._dynamo.utils, torch._C._fft, torch._C._linalg, torch._C._nested, torch._C._nn, torch._C._sparse, torch._C._special, transformer_engine_torch, deep_ep_cpp (total: %d)" % r.randrange(28, 60)]
            R.emit_rank(t, rk, L)
            R.printed_fail[rk] = True
            R.ev_rank.append(["[rank%d]" % rk, "Fatal Python error: Segmentation fault"])
            R.ev_cause.append(["Segmentation fault"])
        R.ev_cause.append(["SIGSEGV"])
        R.ev_cause.append(["Segmentation fault"])
        R.ev_cause.append(["exits with return code = -11"])
        R.ev_rank.append(["Signal 11 (SIGSEGV) received by PID %d" % R.pids[rk]])
        R.ev_rank.append(["task %d: Segmentation fault" % rk])
        R.ev_rank.append(["'--local_rank=%d'" % R.local(rk), "exits with return code = -11"])
        R.notes = "Rank %d segfaulted in native code (no hardware errors logged)." % rk
        propagate(R, "exit", t + 0.1, rank=rk, code=-11)
    elif v == "bus":
        wpid = R.pids[rk] + r.randrange(2000, 9000)
        R.emit_rank(t - 0.5, rk, ["ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).", ""])
        exc = "RuntimeError: DataLoader worker (pid %d) is killed by signal: Bus error. It is possible that dataloader's workers are out of shared memory. Please try to raise your shared memory limit." % wpid
        emit_exc(R, rk, t, py_tb(frames(R, "data")[:-1] + [F(R.site + "/torch/utils/data/dataloader.py", 1251, "_try_get_data", "raise RuntimeError(")], [exc]))
        R.printed_fail[rk] = True
        ev_rank_err(R, rk, "is killed by signal: Bus error")
        R.ev_cause.append(["Bus error"])
        R.notes = "A DataLoader worker of rank %d died with SIGBUS (shared memory /dev/shm exhausted)." % rk
        propagate(R, "exit", t + 0.2, rank=rk, code=1)
    else:
        msg = r.choice(["double free or corruption (!prev)", "free(): invalid pointer", "corrupted size vs. prev_size", "malloc(): unaligned tcache chunk detected"])
        R.emit_rank(t, rk, [msg])
        R.printed_fail[rk] = True
        R.ev_rank.append(["Signal 6 (SIGABRT) received by PID %d" % R.pids[rk], msg])
        R.ev_rank.append(["task %d: Aborted" % rk, msg])
        R.ev_rank.append(["'--local_rank=%d'" % R.local(rk), "exits with return code = -6", msg])
        R.ev_cause.append([msg])
        R.notes = "glibc heap corruption abort ('%s') in rank %d -> SIGABRT." % (msg, rk)
        propagate(R, "exit", t + 0.05, rank=rk, code=-6)


def c_preemption(R):
    r = R.rng
    t, step = begin(R, 20, 220)
    if R.base == "slurm_megatron" or (R.base == "torchrun_titan" and R.titan_platform == "slurm"):
        reason = r.choice(["PREEMPTION", "PREEMPTION", "TIME LIMIT"])
        R.init_rank = R.init_node = None
        if R.stack == "megatron" and r.random() < 0.5:
            # --exit-signal-handler: rank 0 notices SIGTERM at the end of the step
            R.emit_rank(t + r.uniform(1, R.iter_s), 0, ["exiting program after receiving SIGTERM."])
        if r.random() < 0.5:
            x = pick_rank(R)
            wp = R.pids[x] + r.randrange(2000, 9000)
            R.emit_rank(t + 0.4, x, py_tb(frames(R, "data")[:-1] + [F(R.site + "/torch/utils/data/dataloader.py", 1251, "_try_get_data", "raise RuntimeError(")],
                                          ["RuntimeError: DataLoader worker (pid %d) is killed by signal: Terminated. " % wp]))
        sched_kill(R, t, reason)
        R.ev_cause.append(["DUE TO %s" % reason])
        R.notes = "Slurm cancelled the job %s; every task got SIGTERM." % ("because a higher-priority job preempted it" if reason == "PREEMPTION" else "at its time limit")
        return
    if R.base == "k8s_pytorchjob":
        v = r.choice(["kueue", "nodeshutdown"])
        if v == "kueue":
            R.init_rank = R.init_node = None
            R.k8s_preempt = ("kueue", t, None)
            sched_kill(R, t, "kueue")
            R.ev_cause.append(["Preempted to accommodate"])
            R.notes = "Kueue preempted the PyTorchJob's workload for a higher-priority one; all pods got SIGTERM."
            return
        h = r.choice(R.hosts[1:] or R.hosts)
        R.init_node = h
        R.init_rank = None
        R.k8s_preempt = ("node", t, h)
        sched_kill(R, t, "nodeshutdown", hosts=[h])
        R.ev_node.append(["Pod was terminated in response to imminent node shutdown", h])
        R.ev_cause.append(["imminent node shutdown"])
        R.notes = "The spot/preemptible node under pod %s (%s) was reclaimed; that pod got SIGTERM and the rest of the job then failed on NCCL errors." % (h, R.k8snode[h])
        t2 = t + 2
        # remaining pods: collateral when the preempted pod's ranks are gone
        for x in R.ranks_on(h):
            pass
        propagate_after_sched(R, h, t2)
        return
    # deepspeed / titan on plain VMs: a spot VM is reclaimed
    h = r.choice(R.hosts[1:] or R.hosts)
    R.init_node = h
    R.init_rank = None
    R.cloud_preempt = (t, h)
    iid = "i-0%016x" % r.getrandbits(64)
    R.extra_files["instance-events.txt"] = "\n".join([
        "# aws ec2 describe-instance-status / spot interruption notices (exported by ops)",
        "%s  %s  %s  instance-action: terminate  (EC2 Spot Instance interruption notice)" % (ts_iso(t - 120) + "Z", iid, h),
        "%s  %s  %s  state: shutting-down  reason: Server.SpotInstanceTermination" % (ts_iso(t) + "Z", iid, h), ""])
    R.ev_node.append(["Spot", h])
    R.ev_cause.append(["SpotInstanceTermination"])
    R.notes = "Spot reclaim of %s: the VM was terminated, its processes vanished and the remaining nodes failed in collectives." % h
    propagate(R, "node_down", t, host=h)


def propagate_after_sched(R, h, t):
    # ranks of h already have exits (SIGTERM) via sched_kill; the others see the dead peers
    r = R.rng
    natural = {}
    culprits = R.ranks_on(h)
    for v in range(R.world):
        if v in R.exits:
            continue
        ep_peer = any(v in R.ep_group(c) for c in culprits)
        if R.dispatcher == "deepep" and ep_peer:
            natural[v] = (t + r.uniform(100.5, 104), 1, victim_deepep_printer(R, v, culprits, cpu=r.random() < 0.4))
        elif ep_peer and r.random() < 0.5:
            natural[v] = (t + r.uniform(3, 40), -6, victim_remote_printer(R, v, h))
        else:
            natural[v] = (t + r.uniform(0, 10) + R.timeout_ms / 1000.0, -6, victim_timeout_printer(R, v, culprits))
    R.agent_gone[h] = t + 1.0
    reap(R, natural, [])


def pyspy_dump(R, rank, kind):
    S = R.site
    pid = R.pids[rank]
    L = ["Process %d: %s -u %s" % (pid, R.pyexe, {"megatron": "pretrain_gpt.py", "titan": "-m torchtitan.train", "deepspeed": "pretrain_gpt.py"}[R.stack]),
         "Python v%s.%d (%s)" % (R.py, R.rng.randrange(3, 14), R.pyexe), "",
         "Thread %d (active): \"MainThread\"" % pid]
    if kind == "data":
        L += ["    wait (threading.py:359)",
              "    get (queue.py:180)",
              "    _try_get_data (torch/utils/data/dataloader.py:1133)",
              "    _get_data (torch/utils/data/dataloader.py:1294)",
              "    _next_data (torch/utils/data/dataloader.py:1458)",
              "    __next__ (torch/utils/data/dataloader.py:708)"]
        if R.stack == "megatron":
            L += ["    get_batch_on_this_tp_rank (megatron/training/utils.py:474)", "    get_batch (pretrain_gpt.py:157)", "    forward_step (pretrain_gpt.py:218)",
                  "    forward_step (megatron/core/pipeline_parallel/schedules.py:275)", "    train_step (megatron/training/training.py:784)", "    train (megatron/training/training.py:1468)", "    pretrain (megatron/training/training.py:386)", "    <module> (pretrain_gpt.py:329)"]
        elif R.stack == "titan":
            L += ["    __next__ (torchdata/stateful_dataloader/stateful_dataloader.py:450)", "    batch_generator (torchtitan/train.py:410)", "    train_step (torchtitan/train.py:481)", "    train (torchtitan/train.py:595)", "    wrapper (torch/distributed/elastic/multiprocessing/errors/__init__.py:357)", "    <module> (torchtitan/train.py:684)"]
        else:
            L += ["    get_batch (pretrain_gpt.py:119)", "    forward_step (pretrain_gpt.py:236)", "    forward_step (megatron/schedules.py:151)", "    train_step (megatron/training.py:652)", "    train (megatron/training.py:1214)", "    pretrain (megatron/training.py:227)", "    <module> (pretrain_gpt.py:356)"]
        L += ["", "Thread %d (idle): \"pin_memory\"" % (pid + 211), "    wait (threading.py:359)", "    get (queue.py:180)", "    do_one_step (torch/utils/data/_utils/pin_memory.py:35)", "    _pin_memory_loop (torch/utils/data/_utils/pin_memory.py:59)", "    run (threading.py:1012)"]
    else:
        if R.dispatcher == "deepep":
            L += ["    internode_dispatch (deep_ep/buffer.py:505)", "    dispatch (deep_ep/buffer.py:322)", "    forward (megatron/core/transformer/moe/fused_a2a.py:88)", "    apply (torch/autograd/function.py:575)"]
        else:
            L += ["    synchronize (torch/cuda/__init__.py:985)", "    token_permutation (megatron/core/transformer/moe/token_dispatcher.py:531)" if R.stack == "megatron" else "    _token_dispatch (torchtitan/distributed/expert_parallel.py:129)" if R.stack == "titan" else "    forward (deepspeed/moe/sharded_moe.py:606)"]
        L += ["    _call_impl (torch/nn/modules/module.py:1762)", "    _wrapped_call_impl (torch/nn/modules/module.py:1751)", "    forward (%s)" % ("megatron/core/transformer/moe/moe_layer.py:141" if R.stack == "megatron" else "torchtitan/models/moe/moe.py:442" if R.stack == "titan" else "deepspeed/moe/layer.py:132")]
        L += ["", "Thread %d (idle): \"Thread-3 (_checkpoint_writer)\"" % (pid + 377), "    wait (threading.py:355)", "    _write_files_from_queue (torch/distributed/checkpoint/filesystem.py:381)", "    run (threading.py:1012)"]
    return L


def c_hang(R):
    r = R.rng
    t, step = begin(R)
    rk = pick_rank(R)
    h = R.host_of(rk)
    R.init_rank = R.init_node = None
    v = r.choice(["pyspy", "dumpsig", "none", "none"])
    if v == "pyspy":
        R.extra_files["py-spy-dump-%s-pid%d.txt" % (h, R.pids[rk])] = "\n".join(pyspy_dump(R, rk, "hang")) + "\n"
        R.init_rank, R.init_node = rk, h
        R.notes = "Rank %d hung inside the MoE dispatch (stuck waiting on the GPU); the operator's py-spy dump of that pid shows it. The rest timed out." % rk
    elif v == "dumpsig" and R.new_torch and R.stack != "titan":
        R.init_rank, R.init_node = rk, h
        R.hang_dumpsig = rk
        R.notes = "Rank %d stopped issuing collectives (its PG status lags: last enqueued work is behind the others); everyone else hit the watchdog." % rk
    else:
        R.notes = "A rank stopped making progress inside the expert all-to-all; all other ranks hit the NCCL watchdog at the same sequence number. Nothing identifies the stuck rank."
    R.ev_cause.append(["Watchdog caught collective operation timeout"])
    R.ev_cause.append(["DeepEP"])
    propagate(R, "stuck", t, stuck=[rk], culprits=[rk])
    if getattr(R, "hang_dumpsig", None) is not None:
        # the stuck rank logs the dump signal with a lagging enqueue count
        first = min((tt, x) for x, (tt, c) in R.exits.items() if c in (-6, 1) and x != rk)
        if R.exits[rk][0] > first[0] + 1:
            L = [dump_signal_line(R, rk, first[0] + 0.5, first[1], R.def_seq - 1, R.def_seq - 1)]
            R.emit_rank(first[0] + 0.5, rk, L)
            R.ev_rank.append(["[rank%d]:" % rk, "from  rank %d" % first[1], "Last enqueued NCCL work: %d, last completed NCCL work: %d" % (R.def_seq - 1, R.def_seq - 1)])
        else:
            R.init_rank = R.init_node = None
    if R.init_rank is not None and v == "pyspy":
        R.ev_rank.append(["py-spy-dump-%s-pid%d" % (h, R.pids[rk]), "%s:%d:" % (h, R.pids[rk])])
        R.ev_rank.append(["py-spy-dump-%s-pid%d" % (h, R.pids[rk]), "process %d spawned" % R.pids[rk]])
        R.ev_rank.append(["py-spy-dump-%s-pid%d" % (h, R.pids[rk]), "closing signal SIGTERM"])
        R.ev_node.append(["py-spy-dump-%s" % h])


def c_data_stall(R):
    r = R.rng
    rk = pick_rank(R)
    h = R.host_of(rk)
    R.init_rank = R.init_node = None
    t0 = startup(R)
    n = nlines(R, 30, 200)
    dur = n * R.iter_s * R.log_interval
    if R.timers_log:
        # intermittent stalls visible in the batch-generator timer before the final one
        a = t0 + dur * 0.6
        R.stall_windows.append((a, t0 + dur, r.uniform(9000, 90000)))
    step, tl = progress(R, t0, t0 + dur, R.resume_step)
    R.step_now = step
    seq_numbers(R, step)
    t = tl + r.uniform(0.5, R.iter_s)
    v = r.choice(["timeout_exc", "pyspy", "fs", "fs"] + (["hf", "hf"] if (R.stack == "titan" and not hidden(R, rk)) else []))
    fsk = r.choice(["nfs", "lustre"])
    if v in ("fs", "pyspy", "timeout_exc"):
        if fsk == "nfs":
            srv = "10.%d.0.%d" % (r.randrange(0, 255), r.randrange(2, 250))
            R.kmsg(h, t - 5, "nfs: server %s not responding, still trying" % srv)
            R.kmsg(h, t + R.timeout_ms / 1000.0 + 120, "nfs: server %s OK" % srv)
            fs_key = "not responding, still trying"
        else:
            R.kmsg(h, t - 5, "Lustre: %d:0:(client.c:2310:ptlrpc_expire_one_request()) @@@ Request sent has timed out for slow reply: [sent %d/real %d]  req@%016x x%d/t0(0) o3->scratch-OST00%02x-osc-ffff%012x@10.%d.%d.%d@o2ib:6/4 lens 488/440 e 3 to 1 dl %d ref 2 fl Rpc:XQr/0/ffffffff rc 0/-1 job:'%s'" % (r.randrange(2000, 90000), int(t) - 100, int(t) - 100, r.getrandbits(60), r.getrandbits(50), r.randrange(0, 64), r.getrandbits(48), r.randrange(0, 255), r.randrange(0, 255), r.randrange(2, 250), int(t) + 5, R.pyexe.split("/")[-1]))
            R.kmsg(h, t - 4, "Lustre: scratch-OST00%02x-osc-ffff%012x: Connection to scratch-OST00%02x (at 10.%d.%d.%d@o2ib) was lost; in progress operations using this service will wait for recovery to complete" % (r.randrange(0, 64), r.getrandbits(48), r.randrange(0, 64), r.randrange(0, 255), r.randrange(0, 255), r.randrange(2, 250)))
            fs_key = "Lustre"
        R.ev_node.append([fs_key, h])
        R.ev_cause.append([fs_key])
        R.init_node = h
    if v == "pyspy":
        R.extra_files["py-spy-dump-%s-pid%d.txt" % (h, R.pids[rk])] = "\n".join(pyspy_dump(R, rk, "data")) + "\n"
        R.init_rank, R.init_node = rk, h
        R.ev_rank.append(["py-spy-dump-%s-pid%d" % (h, R.pids[rk]), "%s:%d:" % (h, R.pids[rk])])
        R.ev_rank.append(["py-spy-dump-%s-pid%d" % (h, R.pids[rk]), "process %d spawned" % R.pids[rk]])
        R.ev_rank.append(["py-spy-dump-%s-pid%d" % (h, R.pids[rk]), "closing signal SIGTERM"])
        R.ev_cause.append(["_try_get_data"])
        R.notes = "Rank %d blocked in its DataLoader (workers stuck reading from %s on %s); the other ranks timed out. py-spy shows the main thread waiting on the data queue." % (rk, fsk, h)
        propagate(R, "stuck", t, stuck=[rk], culprits=[rk])
        return
    if v == "timeout_exc":
        to = r.choice([300, 600, 900]) if R.stack != "titan" else 60
        R.init_rank, R.init_node = rk, h
        exc_block(R, rk, t + to, "data", ["RuntimeError: DataLoader timed out after %d seconds" % to])
        ev_rank_err(R, rk, "DataLoader timed out after")
        R.ev_cause.append(["DataLoader timed out"])
        R.notes = "Rank %d's DataLoader stalled on %s (%s); the DataLoader timeout fired on that rank." % (rk, h, fsk)
        if to * 1000 < R.timeout_ms:
            propagate(R, "exit", t + to + 0.2, rank=rk, code=1)
        else:
            propagate(R, "stuck", t, stuck=[rk], culprits=[rk])
            R.init_rank = None
        return
    if v == "hf":
        R.init_rank = None
        for k in range(r.randrange(2, 6)):
            R.emit_rank(t - 30 + k * 6, rk, ["[titan] %s - datasets.iterable_dataset - WARNING - Got disconnected from remote data host. Retrying in 5sec [%d/20]" % (ts_py(R.lr(rk, t - 30 + k * 6)), k + 1)])
        if rk in R.titan_visible:
            R.init_rank, R.init_node = rk, h
            R.ev_rank.append(["[rank%d]:[titan]" % rk, "Got disconnected from remote data host"])
        R.ev_cause.append(["Got disconnected from remote data host"])
        R.notes = "Rank %d's streaming dataset kept losing its connection to the remote data host and stopped yielding batches; the other ranks hit the 100 s watchdog." % rk
        propagate(R, "stuck", t, stuck=[rk], culprits=[rk])
        return
    R.notes = "%s stalls on %s blocked a rank's data loading; the other ranks timed out waiting for it." % (fsk.upper() if fsk == "nfs" else "Lustre", h)
    propagate(R, "stuck", t, stuck=[rk], culprits=[rk])


def c_mismatch(R):
    r = R.rng
    t, step = begin(R)
    rk = pick_rank(R)
    h = R.host_of(rk)
    R.init_rank = R.init_node = None
    v = r.choice(["detail", "detail", "optype"])
    seq = R.def_seq
    if v == "detail":
        R.debug_detail = True
        others = [x for x in range(R.world) if x != rk]
        shown = sorted(r.sample(others, min(len(others), r.randrange(2, 7))))
        fp_odd = "CollectiveFingerPrint(SequenceNumber=%dOpType=ALLTOALL_BASE)" % seq
        numel = r.choice([1, 2, R.num_experts])
        for k, x in enumerate(shown):
            fp = "CollectiveFingerPrint(SequenceNumber=%d, OpType=ALLREDUCE, TensorShape=[%d], TensorDtypes=Float, TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt)))" % (seq, numel)
            exc = "RuntimeError: Detected mismatch between collectives on ranks. Rank %d is running collective: %s, but Rank %d is running collective: %s.Collectives differ in the following aspects:   Op type: ALLREDUCEvs ALLTOALL_BASE  Tensor Tensor shapes: [%d]vs []  Tensor Tensor dtypes: [Float]vs []  Tensor Tensor devices: [cuda]vs []" % (x, fp, rk, fp_odd, numel)
            where = "router"
            exc_block(R, x, t + k * 0.01, where, [exc])
            R.exits[x] = (t + 0.2 + k * 0.01, 1)
        fp_o = "CollectiveFingerPrint(SequenceNumber=%d, OpType=ALLREDUCE, TensorShape=[%d], TensorDtypes=Float, TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt)))" % (seq, numel)
        exc_block(R, rk, t + 0.005, "dispatch", ["RuntimeError: Detected mismatch between collectives on ranks. Rank %d is running collective: %s, but Rank %d is running collective: %s.Collectives differ in the following aspects:   Op type: ALLTOALL_BASEvs ALLREDUCE  Tensor Tensor shapes: []vs [%d]  Tensor Tensor dtypes: []vs [Float]  Tensor Tensor devices: []vs [cuda]" % (rk, fp_odd, shown[0], fp_o, numel)])
        shown = sorted(shown + [rk])
        first = shown[0]
        R.init_rank, R.init_node = rk, h
        R.ev_rank.append(["but Rank %d is running collective" % rk])
        R.ev_cause.append(["Detected mismatch between collectives"])
        R.notes = "TORCH_DISTRIBUTED_DEBUG=DETAIL caught a collective mismatch: rank %d (which received no tokens for its local experts) skipped the aux-loss all-reduce and entered the next expert all-to-all, while the other ranks ran the all-reduce." % rk
        for x in shown[1:]:
            pass
        R.exits.pop(first, None)
        for x in shown[1:]:
            R.exits.pop(x, None)
        # first reported exits; the rest are collateral through reap
        natural = {}
        for x in shown:
            natural[x] = (t + 0.2 + shown.index(x) * 0.01, 1, None)
        for v2 in range(R.world):
            if v2 in natural:
                continue
            natural[v2] = (t + r.uniform(0, 3) + R.timeout_ms / 1000.0, -6, victim_timeout_printer(R, v2, [rk]))
        reap(R, natural, [])
        return
    # op-type mismatch visible only in watchdog messages (same SeqNum, different OpType on one rank)
    R.init_rank, R.init_node = rk, h
    tb = t + R.timeout_ms / 1000.0
    odd_numel = r.randrange(1000, 90000)
    natural = {}
    pfx_k = "default"

    def pr_odd(tt):
        L = watchdog_timeout_block(R, rk, tt, pfx_k, seq, "_ALLGATHER_BASE", odd_numel, seq, seq - 1, frames=R.world <= 32)
        R.emit_rank(tt, rk, L)
    pr_odd.lag = 2.2 if R.new_torch else 0.05
    natural[rk] = (tb - r.uniform(0.05, 0.4), -6, pr_odd)
    numel = r.choice([1, 2, 4])
    for x in range(R.world):
        if x == rk:
            continue

        def mk(x):
            def pr(tt):
                R.emit_rank(tt, x, watchdog_timeout_block(R, x, tt, pfx_k, seq, "ALLREDUCE", numel, seq, seq - 1, frames=R.world <= 32))
            pr.lag = 2.2 if R.new_torch else 0.05
            return pr
        natural[x] = (tb + r.uniform(0, 0.8), -6, mk(x))
    R.ev_rank.append(["[rank%d]:" % rk, "SeqNum=%d, OpType=_ALLGATHER_BASE" % seq, "SeqNum=%d, OpType=ALLREDUCE" % seq])
    R.ev_rank.append(["rank      : %d (local_rank: %d)" % (rk, R.local(rk)), "SeqNum=%d, OpType=_ALLGATHER_BASE" % seq, "SeqNum=%d, OpType=ALLREDUCE" % seq])
    R.ev_cause.append(["OpType=_ALLGATHER_BASE", "OpType=ALLREDUCE"])
    R.notes = "Collective order diverged: at SeqNum %d of the default group rank %d issued an all-gather (per-expert token counts for logging) while every other rank issued an all-reduce; all timed out." % (seq, rk)
    reap(R, natural, [])
    if not R.printed_fail.get(rk) and R.exits[rk][1] != -6:
        pass


def c_straggler(R):
    r = R.rng
    t0 = startup(R)
    rk = pick_rank(R)
    h = R.host_of(rk)
    R.straggler_rank = rk
    n = nlines(R, 60, 240)
    R.total_steps = max(R.total_steps, R.resume_step + (n * 2 + 50) * R.log_interval)
    dur = n * R.iter_s * R.log_interval
    R.slow_from = t0 + dur * r.uniform(0.1, 0.5)
    R.slow_factor = r.uniform(1.3, 1.9)
    step, tl = progress(R, t0, t0 + dur * 1.4, R.resume_step)
    R.step_now = step
    R.init_rank, R.init_node = rk, h
    R.end_state = r.choice(["snapshot", "snapshot", "complete"]) if step + R.log_interval <= R.total_steps else "complete"
    if R.end_state == "complete":
        R.total_steps = step
    R.t_end = tl + r.uniform(1, 20)
    gi = R.local(rk)
    # operator attachment: nvidia-smi showing the throttled GPU
    lines = ["$ nvidia-smi --query-gpu=index,pci.bus_id,temperature.gpu,clocks.sm,clocks_event_reasons.hw_thermal_slowdown,clocks_event_reasons.sw_thermal_slowdown,power.draw --format=csv",
             "index, pci.bus_id, temperature.gpu, clocks.current.sm [MHz], clocks_event_reasons.hw_thermal_slowdown, clocks_event_reasons.sw_thermal_slowdown, power.draw [W]"]
    for i in range(8):
        if i == gi:
            lines.append("%d, 00000000:%s:00.0, %d, %d, Active, Active, %.2f W" % (i, R.bus[i].upper(), r.randrange(86, 93), r.choice([1110, 1275, 1410]), r.uniform(380, 480)))
        else:
            lines.append("%d, 00000000:%s:00.0, %d, %d, Not Active, Not Active, %.2f W" % (i, R.bus[i].upper(), r.randrange(48, 66), r.choice([1980, 1965, 1950]), r.uniform(600, 700)))
    attach = (not R.straggler_log) or r.random() < 0.4
    if attach:
        R.extra_files["nvidia-smi-%s.txt" % h] = "\n".join(lines) + "\n"
        R.ev_node.append(["nvidia-smi-%s" % h, "Active, Active"])
        R.ev_rank.append(["nvidia-smi-%s" % h, "%d, 00000000:%s:00.0" % (gi, R.bus[gi].upper())])
    if R.straggler_log:
        R.ev_rank.append(["MxRtt/Rnk", "/%d | MnPwr" % rk, "MnEtpt/Rnk"])
    if not attach and not R.straggler_log:
        R.init_rank = None
        R.init_node = None
    R.ev_cause.append(["thermal_slowdown", "Active, Active"])
    R.ev_cause.append(["MxRtt/Rnk", "/%d | MnPwr" % rk])
    R.notes = "GPU %d on %s (rank %d) thermally throttled from mid-run on; every step waited for it in the expert all-to-all, so step time rose ~%d%%." % (gi, h, rk, int((R.slow_factor - 1) * 100))


def c_unknown(R):
    r = R.rng
    t, step = begin(R)
    rk = pick_rank(R)
    h = R.host_of(rk)
    v = r.choice(["silent_exit", "silent_exit", "vanish"])
    if v == "silent_exit":
        R.init_rank, R.init_node = rk, h
        R.ev_rank.append(["task %d: Exited with exit code 1" % rk])
        R.ev_rank.append(["rank      : %d (local_rank: %d)" % (rk, R.local(rk)), "exitcode  : 1 (pid: %d)" % R.pids[rk]])
        R.ev_rank.append(["'--local_rank=%d'" % R.local(rk), "exits with return code = 1"])
        R.notes = "Rank %d exited with status 1 without printing anything (no traceback captured); the cause is not in the logs." % rk
        R.silent = rk
        propagate(R, "exit", t, rank=rk, code=1)
    else:
        R.init_rank = R.init_node = None
        R.notes = "All output stops; the launcher reports the processes gone with no error text. Nothing in the bundle says why."
        R.vanish = True
        for x in range(R.world):
            R.exits[x] = (t + r.uniform(0, 1), -9)


def c_healthy(R):
    r = R.rng
    t0 = startup(R)
    n = nlines(R, 40, 240)
    dur = n * R.iter_s * R.log_interval
    step, tl = progress(R, t0, t0 + dur, R.resume_step)
    R.step_now = step
    R.end_state = r.choice(["complete", "snapshot", "complete"])
    if R.end_state == "complete":
        R.total_steps = step
    R.t_end = tl + r.uniform(1, 20)
    R.notes = "Healthy run (%s)." % ("finished" if R.end_state == "complete" else "still training when the logs were taken")
    scary_harmless(R, t0, tl)


def scary_harmless(R, t0, t1):
    r = R.rng
    picks = r.sample(["xid63", "nccl_gid", "tcpstore", "overflow", "pgnotdestroyed", "lb_warn", "ib_flap_other", "dl_retry"], r.randrange(1, 4))
    for p in picks:
        tt = r.uniform(t0 + 60, max(t0 + 61, t1))
        if p == "xid63":
            x = r.randrange(R.world)
            xid(R, x, tt, 63, "Row Remapper: New row (0x%016x) marked for remapping, reset gpu to activate." % (r.getrandbits(36) << 4))
            R.harmless_note = "Xid 63 (row remap recorded; correctable) logged on %s" % R.host_of(x)
        elif p == "nccl_gid" and R.nccl_debug:
            x = r.randrange(R.world)
            R.emit_rank(tt, x, ["%s NCCL INFO NET/IB : %s:1 Got async event : GID table change" % (nccl_hostpfx(R, x), HCAS[R.local(x)])])
        elif p == "ib_flap_other":
            h = r.choice(R.hosts)
            R.kmsg(h, tt, "mlx5_core 0000:%02x:00.1 enp%ds0f1np1: Link down" % (r.choice([0x29, 0x31]), r.choice([41, 49])))
            R.kmsg(h, tt + 2, "mlx5_core 0000:%02x:00.1 enp%ds0f1np1: Link up" % (r.choice([0x29, 0x31]), r.choice([41, 49])))
        elif p == "lb_warn" and R.stack in ("megatron", "deepspeed"):
            x = r.randrange(R.world)
            R.emit_rank(tt, x, ["%s/megatron/core/datasets/gpt_dataset.py:%d: UserWarning: The given NumPy array is not writable, and PyTorch does not support non-writable tensors. This means writing to this tensor will result in undefined behavior. You may want to copy the array to protect its data or make it writable before converting it to a tensor. This type of warning will be suppressed for the rest of this program. (Triggered internally at /pytorch/torch/csrc/utils/tensor_numpy.cpp:203.)" % (mroot(R) if R.stack == "megatron" else dsroot(R), r.choice([188, 201, 214])),
                                "  text = torch.from_numpy(text).long()"])
        elif p == "dl_retry" and R.stack == "titan":
            for rk in R.titan_visible[:1]:
                R.emit_rank(tt, rk, ["[titan] %s - datasets.iterable_dataset - WARNING - Got disconnected from remote data host. Retrying in 5sec [1/20]" % ts_py(R.lr(rk, tt))])
        elif p == "overflow" and R.stack == "deepspeed":
            R.emit_rank(tt, 0, ["[%s] [INFO] [loss_scaler.py:183:update_scale] [deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 65536, reducing to 32768" % ts_py(R.lr(0, tt))])
    R.harmless = picks


CAUSE_FN = {"gpu_hardware": c_gpu_hardware, "ecc_memory": c_ecc, "nvlink": c_nvlink, "network": c_network,
            "cuda_oom": c_cuda_oom, "illegal_memory_access": c_illegal, "python_exception": c_python,
            "host_oom_kill": c_host_oom, "crash_signal": c_crash, "preemption": c_preemption, "hang": c_hang,
            "data_loader_stall": c_data_stall, "collective_mismatch": c_mismatch, "straggler": c_straggler,
            "unknown": c_unknown}


# ---------------------------------------------------------------------------
# Launcher teardown output
# ---------------------------------------------------------------------------

SIGTXT = {-6: "Aborted (core dumped)", -9: "Killed", -11: "Segmentation fault (core dumped)", -15: "Terminated",
          -7: "Bus error (core dumped)"}


def status_txt(code):
    if code is None:
        return "Killed"
    if code < 0:
        return SIGTXT.get(code, "Killed")
    return "Exited with exit code %d" % code


def torchrun_bin(R):
    return "/usr/local/bin/torchrun" if "dist-packages" in R.site else R.pyexe.replace("/python", "/torchrun")


def torchrun_tb(R, signal=False, pid=None):
    S = R.site
    L = ["Traceback (most recent call last):",
         '  File "%s", line 8, in <module>' % torchrun_bin(R),
         "    sys.exit(main())",
         "             ^^^^^^" if R.py >= "3.11" else None,
         '  File "%s/torch/distributed/elastic/multiprocessing/errors/__init__.py", line 355, in wrapper' % S,
         "    return f(*args, **kwargs)",
         '  File "%s/torch/distributed/run.py", line 919, in main' % S,
         "    run(args)",
         '  File "%s/torch/distributed/run.py", line 910, in run' % S,
         "    elastic_launch(",
         '  File "%s/torch/distributed/launcher/api.py", line 138, in __call__' % S,
         "    return launch_agent(self._config, self._entrypoint, list(args))"]
    if signal:
        L += ['  File "%s/torch/distributed/launcher/api.py", line 260, in launch_agent' % S,
              "    result = agent.run()",
              '  File "%s/torch/distributed/elastic/metrics/api.py", line 137, in wrapper' % S,
              "    result = f(*args, **kwargs)",
              '  File "%s/torch/distributed/elastic/agent/server/api.py", line 711, in run' % S,
              "    result = self._invoke_run(role)",
              '  File "%s/torch/distributed/elastic/agent/server/api.py", line 870, in _invoke_run' % S,
              "    time.sleep(monitor_interval)",
              '  File "%s/torch/distributed/elastic/multiprocessing/api.py", line 84, in _terminate_process_handler' % S,
              "    raise SignalException(f\"Process {os.getpid()} got signal: {sigval}\", sigval=sigval)",
              "torch.distributed.elastic.multiprocessing.api.SignalException: Process %d got signal: 15" % pid]
    else:
        L += ['  File "%s/torch/distributed/launcher/api.py", line 269, in launch_agent' % S,
              "    raise ChildFailedError(",
              "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: "]
    return [x for x in L if x is not None]


def failure_entry(R, idx, rank, t, code):
    h = R.host_of(rank)
    pid = R.pids[rank]
    L = ["[%d]:" % idx,
         "  time      : %s" % ts_under(R.lt(h, t)),
         "  host      : %s" % h,
         "  rank      : %d (local_rank: %d)" % (rank, R.local(rank)),
         "  exitcode  : %d (pid: %d)" % (code, pid)]
    if code < 0:
        L += ["  error_file: <N/A>", "  traceback : Signal %d (%s) received by PID %d" % (-code, SIGNAME.get(-code, "SIG%d" % -code), pid)]
    elif R.stack == "titan" and rank in R.last_exc:
        tb = R.last_exc[rank]
        ef = "/tmp/torchelastic_%s/none_%s/attempt_0/%d/error.json" % (R.elastic_tag[0], R.elastic_tag[1], R.local(rank))
        L += ["  error_file: %s" % ef, "  traceback : " + tb[0]]
        L += ["  " + x for x in tb[1:] if x]
    else:
        L += ["  error_file: <N/A>", "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"]
    return L


def teardown(R):
    r = R.rng
    h0 = R.hosts[0]
    last_t = max([tt for tt, c in R.exits.values()] + [R.step_times[-1][0] if R.step_times else R.t0])
    R.t_done = last_t
    if R.launcher == "srun":
        teardown_srun(R)
    elif R.launcher == "torchrun":
        teardown_torchrun(R)
    else:
        teardown_ds(R)


def teardown_srun(R):
    r = R.rng
    h0 = R.hosts[0]
    jid = R.jobid
    if R.end_state != "failed":
        if R.end_state == "complete":
            t = R.t_end
            R.emit_rank(t, R.world - 1, ["[after training is done] datetime: %s " % ts_sec(R.lr(R.world - 1, t))])
            for x in r.sample(range(R.world), min(R.world, r.randrange(2, 9))):
                R.emit_rank(t + r.uniform(1, 6), x, [glog(R, x, t + 3, "W", "ProcessGroupNCCL.cpp:1479", "Warning: WARNING: destroy_process_group() was not called before program exit, which can leak resources. For more info, please see https://pytorch.org/docs/stable/distributed.html#shutdown (function operator())")])
        return
    if R.sched_event:
        t, reason, hosts = R.sched_event
        L = ["slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO %s ***" % (jid, h0, ts_iso(R.lt(h0, t)), reason),
             "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.",
             "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s DUE TO %s ***" % (jid, h0, ts_iso(R.lt(h0, t)), reason)]
        if r.random() < 0.5:
            L[1], L[2] = L[2], L[1]
        R.emit(t + 0.3, h0, None, "launcher", L)
        R.emit(t + 3, h0, None, "launcher", ["srun: error: %s: tasks %s: Terminated" % (h, ranges(R.ranks_on(h))) for h in R.hosts])
        return
    if getattr(R, "vanish", False):
        t = min(tt for tt, c in R.exits.values())
        R.emit(t + 2, h0, None, "launcher", ["srun: error: %s: tasks %s: Killed" % (h, ranges(R.ranks_on(h))) for h in R.hosts])
        return
    ks = set(R.srun_killed)
    own = sorted([(tt, x, c) for x, (tt, c) in R.exits.items() if c is not None and x not in ks], key=lambda z: z[0])
    killed = sorted(x for x in ks)
    L = []
    tfirst = own[0][0] if own else R.t_kill
    nf = getattr(R, "srun_nodefail", None)
    if nf:
        hd, tnf = nf
        R.emit(tnf, h0, None, "launcher", ["srun: error: Node failure on %s" % hd,
                                           "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.",
                                           "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s DUE TO NODE FAILURE, SEE SLURMCTLD LOG FOR DETAILS ***" % (jid, h0, ts_iso(R.lt(h0, tnf)))])
    oom = [x for (tt, x, c) in own if c == -9 and getattr(R, "oom_step", False)]
    if oom:
        h = R.host_of(oom[0])
        R.emit(own[0][0] + 0.5, h0, None, "launcher", ["slurmstepd: error: Detected 1 oom_kill event in StepId=%d.0. Some of the step tasks have been OOM Killed." % jid])
    first_line_done = False
    for (tt, x, c) in own:
        h = R.host_of(x)
        if x in oom:
            R.emit(tt + 0.05, h0, None, "launcher", ["srun: error: %s: task %d: Out Of Memory" % (h, x)])
        else:
            R.emit(tt + 0.05, h0, None, "launcher", ["srun: error: %s: task %d: %s" % (h, x, status_txt(c))])
        if not first_line_done and not nf:
            first_line_done = True
            R.emit(tt + 0.06, h0, None, "launcher", ["srun: Terminating StepId=%d.0" % jid])
            R.emit(max(R.t_kill, tt + 0.07) + 0.05, h0, None, "launcher", ["slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s ***" % (jid, h0, ts_iso(R.lt(h0, max(R.t_kill, tt + 0.07))))])
    byhost = {}
    for x in sorted(killed):
        byhost.setdefault(R.host_of(x), []).append(x)
    tk = R.t_kill + r.uniform(1, 4)
    for h in R.hosts:
        if h in byhost:
            R.emit(tk, h0, None, "launcher", ["srun: error: %s: tasks %s: %s" % (h, ranges(byhost[h]), status_txt(R.srun_killsig))] if len(byhost[h]) > 1 else ["srun: error: %s: task %d: %s" % (h, byhost[h][0], status_txt(R.srun_killsig))])
    if r.random() < 0.3:
        R.emit(tk + 30, h0, None, "launcher", ["srun: Force Terminated StepId=%d.0" % jid])


def agent_sigterm_lines(R, h, t):
    ap = R.pids["agent:" + h]
    L = ["%s %d torch/distributed/elastic/agent/server/api.py:%d] Received Signals.SIGTERM death signal, shutting down workers" % (ts_agent(R.lt(h, t), "W"), ap, 719 if R.new_torch else 704)]
    for x in R.ranks_on(h):
        L.append("%s %d torch/distributed/elastic/multiprocessing/api.py:%d] Sending process %d closing signal SIGTERM" % (ts_agent(R.lt(h, t + 0.001), "W"), ap, 897 if R.new_torch else 891, R.pids[x]))
    L += torchrun_tb(R, signal=True, pid=ap)
    return L


def teardown_torchrun(R):
    r = R.rng
    script = "torchtitan.train" if R.stack == "titan" else "pretrain_gpt.py"
    R.elastic_tag = ("".join(r.choice("abcdefghijklmnopqrstuvwxyz0123456789_") for _ in range(8)),
                     "".join(r.choice("abcdefghijklmnopqrstuvwxyz0123456789_") for _ in range(8)))
    if R.end_state != "failed":
        if R.end_state == "complete":
            t = R.t_end
            if R.stack == "titan":
                for rk in R.titan_visible:
                    R.emit_rank(t, rk, ["[titan] %s - root - INFO - Training completed" % ts_py(R.lr(rk, t)),
                                        "[titan] %s - root - INFO - Sleeping 2 seconds for other ranks to complete" % ts_py(R.lr(rk, t + 0.01))])
                    R.emit_rank(t + 2.1, rk, ["[titan] %s - root - INFO - Process group destroyed" % ts_py(R.lr(rk, t + 2.1))])
            else:
                R.emit_rank(t, R.world - 1, ["[after training is done] datetime: %s " % ts_sec(R.lr(R.world - 1, t))])
            for x in r.sample(range(R.world), min(R.world, r.randrange(1, 5))):
                if x == 0:
                    continue
                if R.stack == "titan" and x not in R.titan_visible:
                    continue
                R.emit_rank(t + 3, x, [glog(R, x, t + 3, "W", "TCPStore.cpp:%d" % r.choice([106, 125]), "[c10d] recvVector failed on SocketImpl(fd=%d, addr=[%s]:%d, remote=[%s]:29500): failed to recv, got 0 bytes" % (r.randrange(40, 140), R.host_of(x), r.randrange(33000, 60000), R.hosts[0])),
                                       "Exception raised from recvBytes at /pytorch/torch/csrc/distributed/c10d/Utils.hpp:%d (most recent call first):" % r.choice([670, 678]),
                                       "frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x98 (%s in %s)" % (addr(R), lib(R, "libc10.so")),
                                       glog(R, x, t + 3.001, "W", "ProcessGroupNCCL.cpp:%d" % r.choice([1659, 1783]), "%s Failed to check the \"should dump\" flag on TCPStore, (maybe TCPStore server has shut down too early), with error: failed to recv, got 0 bytes" % R.pg(x, "default")[0])])
            if r.random() < 0.5:
                for h in R.hosts:
                    ap = R.pids["agent:" + h]
                    R.emit(t + 4, h, None, "agent", ["%s %d torch/distributed/elastic/agent/server/api.py:879] [default] worker group successfully finished. Waiting 300 seconds for other agents to finish." % (ts_agent(R.lt(h, t + 4), "I"), ap),
                                                     "%s %d torch/distributed/elastic/agent/server/api.py:932] Local worker group finished (WorkerState.SUCCEEDED). Waiting 300 seconds for other agents to finish" % (ts_agent(R.lt(h, t + 4), "I"), ap),
                                                     "%s %d torch/distributed/elastic/agent/server/api.py:946] Done waiting for other agents. Elapsed: %.6f seconds" % (ts_agent(R.lt(h, t + 4.5), "I"), ap, r.uniform(0.0005, 2.0))])
        return
    sched = R.sched_event
    for h in R.hosts:
        if h in R.dead_hosts:
            continue
        ap = R.pids["agent:" + h]
        if sched and (sched[2] is None or h in sched[2]):
            t = sched[0]
            L = agent_sigterm_lines(R, h, t + 0.01)
            if R.titan_platform == "slurm" and R.base == "torchrun_titan":
                R.emit(t, h, None, "sched", ["slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s DUE TO %s ***" % (R.jobid, h, ts_iso(R.lt(h, t)), sched[1]),
                                             "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO %s ***" % (R.jobid, R.hosts[0], ts_iso(R.lt(R.hosts[0], t)), sched[1])][:1 if h != R.hosts[0] else 2])
            R.emit(t + 0.02, h, None, "agent", L)
            continue
        sigt = getattr(R, "k8s_sigterm", {}).get(h)
        if h in R.agent_kill and (sigt is None or R.agent_kill[h] <= sigt):
            tk = R.agent_kill[h]
            fails = sorted([(tt, x, c) for x in R.ranks_on(h) for (tt, c) in [R.exits[x]] if c is not None and c != -15 and tt <= tk + 1e-6])
            killed = [x for x in R.ranks_on(h) if R.exits[x][1] == -15]
            if not fails:
                continue
            L = []
            for x in killed:
                L.append("%s %d torch/distributed/elastic/multiprocessing/api.py:%d] Sending process %d closing signal SIGTERM" % (ts_agent(R.lt(h, tk), "W"), ap, 897 if R.new_torch else 891, R.pids[x]))
            rt, rx, rc = fails[0]
            L.append("%s %d torch/distributed/elastic/multiprocessing/api.py:%d] failed (exitcode: %d) local_rank: %d (pid: %d) of binary: %s" % (ts_agent(R.lt(h, tk + 0.4), "E"), ap, 869 if R.new_torch else 863, rc, R.local(rx), R.pids[rx], R.pyexe))
            L += torchrun_tb(R)
            L += ["============================================================", "%s FAILED" % script,
                  "------------------------------------------------------------", "Failures:"]
            if len(fails) == 1:
                L.append("  <NO_OTHER_FAILURES>")
            else:
                for i, (tt, x, c) in enumerate(fails[1:]):
                    L += failure_entry(R, i + 1, x, tt, c)
            L += ["------------------------------------------------------------", "Root Cause (first observed failure):"]
            L += failure_entry(R, 0, rx, rt, rc)
            L.append("============================================================")
            R.emit(tk + 0.5, h, None, "agent", L)
            R.pod_status[h] = ("Error", 1, tk + 0.6)
        elif sigt is not None:
            R.emit(sigt, h, None, "agent", agent_sigterm_lines(R, h, sigt))
            R.pod_status[h] = ("Error", 1, sigt + 1.0)
    if getattr(R, "vanish", False):
        pass


def teardown_ds(R):
    r = R.rng
    h0 = R.hosts[0]
    if R.end_state != "failed":
        if R.end_state == "complete":
            t = R.t_end
            R.emit_rank(t, R.world - 1, ["[after training is done] datetime: %s " % ts_sec(R.lr(R.world - 1, t))])
            for h in R.hosts:
                R.emit(t + 5, h, None, "agent", ["[%s] [INFO] [launch.py:351:main] Process %d exits successfully." % (ts_py(R.lt(h, t + 5 + k * 0.01)), R.pids[x]) for k, x in enumerate(R.ranks_on(h))])
        return
    if getattr(R, "vanish", False):
        t = min(tt for tt, c in R.exits.values())
        R.emit(t + 1, h0, None, "launcher", ["pdsh@%s: %s: ssh exited with exit code 255" % (h0, h) for h in R.hosts[1:]] + ["pdsh@%s: %s: ssh exited with exit code 137" % (h0, h0)])
        return
    for h in R.hosts:
        if h in R.dead_hosts:
            t = R.dead_hosts[h]
            R.emit(t + r.uniform(5, 60), h0, None, "launcher", ["Connection to %s closed by remote host." % h if r.random() < 0.5 else "%s: Connection to %s closed by remote host." % (h, R.ip[h]), "pdsh@%s: %s: ssh exited with exit code 255" % (h0, h)])
            continue
        if h not in R.agent_kill:
            continue
        tk = R.agent_kill[h]
        fails = sorted([(tt, x, c) for x in R.ranks_on(h) for (tt, c) in [R.exits[x]] if c is not None and c != -15 and tt <= tk + 1e-6])
        if not fails:
            continue
        rt, rx, rc = fails[0]
        L = []
        for x in R.ranks_on(h):
            L.append("[%s] [INFO] [launch.py:319:sigkill_handler] Killing subprocess %d" % (ts_py(R.lt(h, tk)), R.pids[x]))
        L.append("[%s] [ERROR] [launch.py:325:sigkill_handler] ['%s', '-u', 'pretrain_gpt.py', '--local_rank=%d', '--tensor-model-parallel-size', '%d', '--num-experts', '%d', '--moe-expert-parallel-size', '%d', '--deepspeed', '--deepspeed_config', 'ds_config.json'] exits with return code = %d" % (ts_py(R.lt(h, tk + 0.2)), R.pyexe, R.local(rx), R.TP, R.num_experts, R.EP, rc))
        R.emit(tk + 0.2, h, None, "agent", L)
        R.emit(tk + r.uniform(0.5, 2), h0, None, "launcher", ["pdsh@%s: %s: ssh exited with exit code %d" % (h0, h, rc % 256)])


# ---------------------------------------------------------------------------
# Rendering into files
# ---------------------------------------------------------------------------

def rank_line(R, b, kind, text, tee=None):
    pre = ""
    if tee is not None:
        pre = tee
        if kind == "p":
            pre = tee + " "
        return pre + text
    if R.rank_prefix and kind == "g":
        return "[rank%d]:%s" % (b.rank, text)
    if R.rank_prefix and kind == "p":
        return "[rank%d]: %s" % (b.rank, text)
    return text


def sorted_blocks(R, pred):
    bl = [b for b in R.blocks if pred(b)]
    bl.sort(key=lambda b: (b.t, b.seq))
    return bl


def cut_after(R, b):
    """drop output produced by a rank after it exited / its host died."""
    if b.rank is not None:
        ex = R.exits.get(b.rank)
        if ex and b.t > ex[0] + 0.5 and ex[1] in (-15, -9, None):
            return True
        if ex and b.t > ex[0] + 70:
            return True
    if b.host in R.dead_hosts and b.t > R.dead_hosts[b.host]:
        return True
    return False


def kern_text(R, host):
    r = R.rng
    ev = sorted(R.kern.get(host, []), key=lambda z: z[0])
    if not ev:
        return None
    boot = R.t0 - r.uniform(3 * 86400, 60 * 86400)
    out = []
    # some boot-time / unrelated noise first
    pre = [(R.t0 - 3600 * r.uniform(1, 20), "nvidia-peermem: loading out-of-tree module taints kernel."),
           (R.t0 - 3600 * r.uniform(1, 20), "mlx5_core %s: E-Switch: Total vports %d, per vport: max uc(128) max mc(2048)" % (NICPCI[0], r.randrange(2, 20))),
           (R.t0 - 600, "IPv6: ADDRCONF(NETDEV_CHANGE): %s: link becomes ready" % IBDEV[r.randrange(8)]),
           (R.t0 + 5, "NVRM: GPU at PCI:%s: GPU-%08x-%04x-%04x-%04x-%012x" % ("0000:%s:00" % R.bus[0], r.getrandbits(32), r.getrandbits(16), r.getrandbits(16), r.getrandbits(16), r.getrandbits(48))) if r.random() < 0.3 else None]
    allev = sorted([p for p in pre if p] + ev, key=lambda z: z[0])
    for t, m in allev:
        lt = R.lt(host, t)
        if R.kstyle == "dmesgT":
            out.append("[%s] %s" % (ts_dmesgT(lt), m))
        elif R.kstyle == "syslog":
            out.append("%s %s kernel: [%d.%06d] %s" % (ts_syslog(lt), host if R.base != "k8s_pytorchjob" else R.k8snode[host], int(lt - boot), frac_ns(lt) // 1000, m))
        else:
            out.append("%s %s kernel: %s" % (ts_syslog(lt), host if R.base != "k8s_pytorchjob" else R.k8snode[host], m))
    if R.kstyle == "dmesgT":
        hdr = "$ sudo dmesg -T | grep -iE 'nvrm|xid|mlx5|oom|nfs|lustre|nvswitch|killed|ib_core' \n"
    elif R.kstyle == "syslog":
        hdr = "# /var/log/kern.log (excerpt)\n"
    else:
        hdr = "$ journalctl -k --since '%s' --no-pager\n" % ts_sec(R.lt(host, ev[0][0] - 1800))
    return hdr + "\n".join(out) + "\n"


def attach_kern(R, files, path_fn):
    r = R.rng
    for h in R.hosts:
        txt = kern_text(R, h)
        if txt is None:
            continue
        only_harmless = R.healthy
        if only_harmless and r.random() < 0.5:
            continue
        if not only_harmless and r.random() < 0.1 and R.cause not in ("gpu_hardware", "ecc_memory", "nvlink", "network", "host_oom_kill", "data_loader_stall"):
            continue
        files[path_fn(h)] = txt


def render_srun(R):
    r = R.rng
    w = len(str(R.world - 1))
    lines = []
    nl = hostlist(R.hosts)
    if r.random() < 0.7:
        lines += ["+ export MASTER_ADDR=%s" % R.hosts[0], "+ MASTER_ADDR=%s" % R.hosts[0],
                  "+ export NCCL_DEBUG=%s" % ("INFO" if R.nccl_debug else "WARN"),
                  "+ export CUDA_DEVICE_MAX_CONNECTIONS=1",
                  "+ export TORCH_NCCL_ASYNC_ERROR_HANDLING=1" if r.random() < 0.5 else "+ export NVTE_FWD_LAYERNORM_SM_MARGIN=16",
                  "+ srun --label --kill-on-bad-exit=1 --ntasks-per-node=8 --cpu-bind=none --container-image=%s python %s/pretrain_gpt.py ..." % (r.choice(["nvcr.io#nvidia/pytorch:25.01-py3", "/lustre/images/megatron-moe.sqsh", "nvcr.io#nvidia/nemo:25.04"]), mroot(R)),
                  "SLURM_JOB_ID=%d SLURM_JOB_NODELIST=%s SLURM_NNODES=%d" % (R.jobid, nl, R.nnodes)]
    for b in sorted_blocks(R, lambda b: b.ch in ("rank", "launcher", "sched")):
        if cut_after(R, b):
            continue
        if b.ch == "rank":
            pre = "%*d: " % (w, b.rank)
            for k, tx in b.lines:
                lines.append(pre + rank_line(R, b, k, tx))
        else:
            lines.extend(tx for k, tx in b.lines)
    files = {"slurm-%d.out" % R.jobid: "\n".join(lines) + "\n"}
    if r.random() < 0.5 and R.end_state == "failed":
        st = "FAILED" if not R.sched_event else ("PREEMPTED" if R.sched_event[1] == "PREEMPTION" else "TIMEOUT" if R.sched_event[1] == "TIME LIMIT" else "CANCELLED")
        if getattr(R, "srun_nodefail", None):
            st = "NODE_FAIL"
        el = int(R.t_done - R.t0)
        ex = "0:0" if st in ("PREEMPTED", "TIMEOUT", "CANCELLED") else ("1:0" if st == "FAILED" else "0:0")
        files["sacct.txt"] = "\n".join([
            "$ sacct -j %d --format=JobID,JobName,Partition,State,ExitCode,Elapsed,NodeList" % R.jobid,
            "JobID           JobName  Partition      State ExitCode    Elapsed        NodeList ",
            "------------ ---------- ---------- ---------- -------- ---------- --------------- ",
            "%-12d %10s %10s %10s %8s %10s %15s " % (R.jobid, R.runname if len(R.runname) <= 10 else R.runname[:9] + "+", "batch", st, ex, "%02d:%02d:%02d" % (el // 3600, el % 3600 // 60, el % 60), (nl if len(nl) <= 15 else nl[:14] + "+")),
            "%-12s %10s %10s %10s %8s %10s %15s " % ("%d.batch" % R.jobid, "batch", "", "FAILED" if st == "FAILED" else "CANCELLED", "1:0" if st == "FAILED" else "0:15", "%02d:%02d:%02d" % (el // 3600, el % 3600 // 60, el % 60), R.hosts[0][:15]),
            "%-12s %10s %10s %10s %8s %10s %15s " % ("%d.0" % R.jobid, "python", "", "FAILED" if st == "FAILED" else "CANCELLED", "1:0" if st == "FAILED" else "0:15", "%02d:%02d:%02d" % (el // 3600, el % 3600 // 60, el % 60), (nl if len(nl) <= 15 else nl[:14] + "+")), ""])
    attach_kern(R, files, lambda h: "dmesg-%s.txt" % h)
    return files


def render_titan(R):
    r = R.rng
    files = {}
    for h in R.hosts:
        lines = []
        if R.titan_platform == "slurm":
            lines.append("+ srun torchrun --nnodes %d --nproc_per_node 8 --rdzv_id %d --rdzv_backend c10d --rdzv_endpoint %s:29500 --local-ranks-filter %s --role rank --tee 3 -m torchtitan.train --job.config_file ./torchtitan/models/deepseek_v3/train_configs/deepseek_v3_%s.toml --parallelism.expert_parallel_degree %d" % (R.nnodes, R.jobid, R.hosts[0], ",".join(str(x) for x in sorted(set(R.local(v) for v in R.titan_visible))), R.titan_flavor.lower(), R.EP))
        else:
            lines.append("$ NGPU=8 LOG_RANK=%s CONFIG_FILE=./torchtitan/models/deepseek_v3/train_configs/deepseek_v3_%s.toml ./run_train.sh --parallelism.expert_parallel_degree %d 2>&1 | tee logs/%s.log" % (",".join(str(x) for x in sorted(set(R.local(v) for v in R.titan_visible))), R.titan_flavor.lower(), R.EP, h))
        for b in sorted_blocks(R, lambda b: b.host == h and b.ch in ("rank", "agent", "sched")):
            if cut_after(R, b):
                continue
            if b.ch == "rank":
                if b.rank not in R.titan_visible:
                    continue
                tee = "[rank%d]:" % b.rank
                for k, tx in b.lines:
                    lines.append(rank_line(R, b, k, tx, tee=tee))
            else:
                lines.extend(tx for k, tx in b.lines)
        name = ("logs/%s-%d-%s.out" % (R.runname, R.jobid, h)) if R.titan_platform == "slurm" else ("logs/%s.log" % h)
        files[name] = "\n".join(lines) + "\n"
    attach_kern(R, files, lambda h: "node-logs/%s.kern.log" % h)
    return files


def render_ds(R):
    r = R.rng
    h0 = R.hosts[0]
    lines = ["$ deepspeed --hostfile hostfile --master_addr %s pretrain_gpt.py ... 2>&1 | tee train.log" % R.ip[h0]]
    for b in sorted_blocks(R, lambda b: b.ch in ("rank", "agent", "launcher")):
        if cut_after(R, b):
            continue
        if b.ch == "launcher":
            lines.extend(tx for k, tx in b.lines)
            continue
        pre = "%s: " % b.host
        for k, tx in b.lines:
            lines.append(pre + (rank_line(R, b, k, tx) if b.ch == "rank" else tx))
    files = {"train.log": "\n".join(lines) + "\n",
             "hostfile": "".join("%s slots=8\n" % h for h in R.hosts)}
    if r.random() < 0.6:
        files["ds_config.json"] = json.dumps({
            "train_batch_size": R.gbs, "train_micro_batch_size_per_gpu": R.mbs, "steps_per_print": R.log_interval * 10,
            "zero_optimization": {"stage": 1}, "gradient_clipping": 1.0, "prescale_gradients": False,
            "fp16": {"enabled": True, "loss_scale": 0, "loss_scale_window": 500, "hysteresis": 2, "min_loss_scale": 1, "initial_scale_power": 16},
            "bf16": {"enabled": False}, "wall_clock_breakdown": False}, indent=2) + "\n"
    attach_kern(R, files, lambda h: "dmesg-%s.txt" % h)
    return files


def render_k8s(R):
    r = R.rng
    files = {}
    ns = r.choice(["llm-train", "research", "moe", "default"])
    for h in R.hosts:
        lines = []
        for b in sorted_blocks(R, lambda b: b.host == h and b.ch in ("rank", "agent")):
            if cut_after(R, b):
                continue
            for k, tx in b.lines:
                s = rank_line(R, b, k, tx) if b.ch == "rank" else tx
                if R.k8s_ts:
                    s = ts_rfc(R.lt(h, b.t)) + " " + s
                lines.append(s)
        files["pods/%s.log" % h] = "\n".join(lines) + "\n"
    # describe + events
    ev = []
    T0 = R.t0 - 40
    now = R.t_done + r.uniform(60, 1800) if R.end_state == "failed" else (R.t_end + r.uniform(30, 600))
    for h in R.hosts:
        ev.append((T0 + r.uniform(0, 3), "Normal", "Scheduled", "pod/%s" % h, "Successfully assigned %s/%s to %s" % (ns, h, R.k8snode[h])))
        ev.append((T0 + 20, "Normal", "Pulled", "pod/%s" % h, "Container image \"%s\" already present on machine" % R.k8s_image))
        ev.append((T0 + 21, "Normal", "Started", "pod/%s" % h, "Started container pytorch"))
    ev.append((T0 + 1, "Normal", "SuccessfulCreatePod", "pytorchjob/%s" % R.jobname, "Created pod: %s" % R.hosts[0]))
    describe = []
    kp = getattr(R, "k8s_preempt", None)
    failed_pod = None
    if R.end_state != "failed":
        if R.end_state == "complete":
            ev.append((R.t_end + 10, "Normal", "PyTorchJobSucceeded", "pytorchjob/%s" % R.jobname, "PyTorchJob %s/%s successfully completed." % (ns, R.jobname)))
    else:
        oomk = getattr(R, "k8s_oomkilled", None)
        if kp and kp[0] == "kueue":
            ev.append((kp[1] - 1, "Normal", "Preempted", "workload/pytorchjob-%s-%05x" % (R.jobname, r.getrandbits(20)), "Preempted to accommodate a workload (UID: %08x-%04x-%04x-%04x-%012x, JobUID: %08x-%04x-%04x-%04x-%012x) due to prioritization in the ClusterQueue" % tuple(r.getrandbits(b) for b in (32, 16, 16, 16, 48, 32, 16, 16, 16, 48))))
            ev.append((kp[1], "Normal", "Stopped", "pytorchjob/%s" % R.jobname, "The workload is suspended (Preempted)" if r.random() < 0.5 else "PyTorchJob %s is suspended." % R.jobname))
            for h in R.hosts:
                ev.append((kp[1] + 0.5, "Normal", "Killing", "pod/%s" % h, "Stopping container pytorch"))
        if kp and kp[0] == "node":
            hn = kp[2]
            ev.append((kp[1] - 25, "Warning", "NodeShutdown" if r.random() < 0.5 else "Preempting", "node/%s" % R.k8snode[hn], "Node is shutting down, pods will be terminated" if r.random() < 0.5 else "Node %s is being preempted (spot VM reclaimed)" % R.k8snode[hn]))
            failed_pod = hn
            describe += describe_pod(R, hn, ns, "Failed", "Terminated", "Pod was terminated in response to imminent node shutdown.", 143, kp[1])
        if oomk:
            failed_pod = oomk
            describe += describe_pod(R, oomk, ns, "Failed", "OOMKilled", None, 137, R.dead_hosts.get(oomk, R.t_done))
            ev.append((R.dead_hosts.get(oomk, R.t_done) + 1, "Normal", "ExitedWithCode", "pytorchjob/%s" % R.jobname, "Pod: %s.%s exited with code 137" % (ns, oomk)))
        if not failed_pod and not (kp and kp[0] == "kueue"):
            firsts = sorted((v[2], h) for h, v in R.pod_status.items() if h in R.agent_kill)
            if firsts:
                failed_pod = firsts[0][1]
                describe += describe_pod(R, failed_pod, ns, "Failed", "Error", None, 1, firsts[0][0])
                ev.append((firsts[0][0] + 0.5, "Normal", "ExitedWithCode", "pytorchjob/%s" % R.jobname, "Pod: %s.%s exited with code 1" % (ns, failed_pod)))
            elif R.dead_hosts:
                failed_pod = list(R.dead_hosts)[0]
        if R.dead_hosts and not oomk and not (kp and kp[0] == "node"):
            hd = list(R.dead_hosts)[0]
            ev.append((R.dead_hosts[hd] + 45, "Warning", "NodeNotReady", "pod/%s" % hd, "Node is not ready"))
            ev.append((R.dead_hosts[hd] + 40, "Normal", "NodeNotReady", "node/%s" % R.k8snode[hd], "Node %s status is now: NodeNotReady" % R.k8snode[hd]))
        if not (kp and kp[0] == "kueue"):
            tfail = (R.k8s_cut or R.t_done)
            ev.append((tfail + 0.5, "Warning", "PyTorchJobFailed", "pytorchjob/%s" % R.jobname, "PyTorchJob %s/%s has failed because 1 %s replica(s) failed." % (ns, R.jobname, "Master" if failed_pod == R.hosts[0] else "Worker")))
            for h in R.hosts:
                if h != failed_pod:
                    ev.append((tfail + 1, "Normal", "SuccessfulDeletePod", "pytorchjob/%s" % R.jobname, "Deleted pod: %s" % h))
    ev.sort(key=lambda z: z[0])
    ev_lines = ["$ kubectl get events -n %s --sort-by=.lastTimestamp" % ns,
                "LAST SEEN   TYPE      REASON                OBJECT                                   MESSAGE"]
    for t, ty, rs, obj, msg in ev:
        if now - t > 3600 and rs not in ("PyTorchJobFailed",):
            continue   # events expire after 1h (default --event-ttl)
        ev_lines.append("%-11s %-9s %-21s %-40s %s" % (age(now - t), ty, rs, obj, msg))
    files["events.txt"] = "\n".join(ev_lines) + "\n"
    if describe:
        files["describe-pod-%s.txt" % failed_pod] = "$ kubectl describe pod -n %s %s\n" % (ns, failed_pod) + "\n".join(describe) + "\n"
    attach_kern(R, files, lambda h: "nodes/%s.dmesg.txt" % R.k8snode[h])
    return files


def describe_pod(R, h, ns, phase, reason, message, code, tfin):
    r = R.rng
    idx = R.hosts.index(h)
    rtype = "master" if idx == 0 else "worker"
    L = ["Name:             %s" % h,
         "Namespace:        %s" % ns,
         "Priority:         %d" % r.choice([0, 1000, 100000]),
         "Service Account:  default",
         "Node:             %s/%s" % (R.k8snode[h], "10.%d.%d.%d" % (r.randrange(0, 255), r.randrange(0, 255), r.randrange(2, 250))),
         "Start Time:       %s" % ts_k8s(R.t0 - 35),
         "Labels:           training.kubeflow.org/job-name=%s" % R.jobname,
         "                  training.kubeflow.org/operator-name=pytorchjob-controller",
         "                  training.kubeflow.org/replica-index=%d" % (0 if idx == 0 else idx - 1),
         "                  training.kubeflow.org/replica-type=%s" % rtype,
         "Status:           %s" % phase]
    if message:
        L.append("Reason:           %s" % ("Terminated" if "shutdown" in message else reason))
        L.append("Message:          %s" % message)
    L += ["IP:               10.%d.%d.%d" % (r.randrange(0, 255), r.randrange(0, 255), r.randrange(2, 250)),
          "Controlled By:    PyTorchJob/%s" % R.jobname,
          "Containers:",
          "  pytorch:",
          "    Container ID:  containerd://%064x" % r.getrandbits(256),
          "    Image:         %s" % R.k8s_image,
          "    Port:          23456/TCP",
          "    Command:",
          "      torchrun",
          "    Args:",
          "      --nnodes=%d" % R.nnodes,
          "      --nproc-per-node=8",
          "      pretrain_gpt.py",
          "    State:          Terminated",
          "      Reason:       %s" % reason,
          "      Exit Code:    %d" % code,
          "      Started:      %s" % ts_k8s(R.t0 - 15),
          "      Finished:     %s" % ts_k8s(tfin),
          "    Ready:          False",
          "    Restart Count:  0",
          "    Limits:",
          "      memory:             %dGi" % r.choice([1200, 1600, 1800]),
          "      nvidia.com/gpu:     8",
          "      rdma/ib:            8" if R.dispatcher == "deepep" else "      vpc.amazonaws.com/efa:  32",
          "    Requests:",
          "      cpu:                %d" % r.choice([96, 160, 180]),
          "      memory:             %dGi" % r.choice([1000, 1200]),
          "      nvidia.com/gpu:     8",
          "    Environment:",
          "      NCCL_DEBUG:                %s" % ("INFO" if R.nccl_debug else "WARN"),
          "      NVSHMEM_IB_ENABLE_IBGDA:   1" if R.dispatcher == "deepep" else "      NCCL_SOCKET_IFNAME:        eth0",
          "      PYTHONUNBUFFERED:          1",
          "Conditions:",
          "  Type              Status",
          "  Initialized       True ",
          "  Ready             False ",
          "  ContainersReady   False ",
          "  PodScheduled      True ",
          "Volumes:",
          "  dshm:",
          "    Type:       EmptyDir (a temporary directory that shares a pod's lifetime)",
          "    Medium:     Memory",
          "    SizeLimit:  <unset>" if r.random() < 0.7 else "    SizeLimit:  64Mi",
          "QoS Class:       Burstable",
          "Events:          <none>"]
    return L


def make_paste(R, files_base):
    """A user's single combined console paste, trimmed."""
    r = R.rng
    if R.base == "slurm_megatron":
        src = files_base["slurm-%d.out" % R.jobid]
    elif R.base == "deepspeed_pdsh":
        src = files_base["train.log"]
    elif R.base == "k8s_pytorchjob":
        # the user pastes the pod(s) that show errors
        keys = sorted(k for k in files_base if k.startswith("pods/"))
        score = lambda k: -(3 * ("ChildFailedError" in files_base[k]) + 2 * ("Traceback (most recent call last)" in files_base[k] and "SignalException" not in files_base[k]) + ("Error" in files_base[k]))
        pick = sorted(keys, key=lambda k: (score(k), k))[:2]
        src = "\n".join(("==> %s <==\n" % k) + files_base[k] for k in pick)
    else:
        keys = sorted(k for k in files_base if k.startswith("logs/"))
        score = lambda k: -(3 * ("FAILED" in files_base[k]) + 2 * ("Traceback" in files_base[k]) + ("Error" in files_base[k]))
        pick = sorted(keys, key=lambda k: (score(k), k))[:2]
        src = "\n".join(files_base[k] for k in pick)
    L = src.split("\n")
    keys = []
    for alt in R.ev_cause + R.ev_rank + R.ev_node:
        keys.extend(x for x in alt if x != "LINE")
    keep = set()
    head = r.randrange(15, 60)
    tail = r.randrange(60, 220)
    for i in range(min(head, len(L))):
        keep.add(i)
    for i in range(max(0, len(L) - tail), len(L)):
        keep.add(i)
    for i, ln in enumerate(L):
        if any(k and k in ln for k in keys):
            for j in range(max(0, i - 6), min(len(L), i + 14)):
                keep.add(j)
    out = []
    intro = r.choice(["", "Our MoE run died overnight, here is the console output (trimmed, full log is 40MB):",
                      "pasting the relevant part of the log below", "Log from the failed job:", "```"])
    if intro:
        out.append(intro)
    prev = -1
    for i in sorted(keep):
        if i != prev + 1:
            gap = i - prev - 1
            out.append(r.choice(["...", "[... %d lines omitted ...]" % gap, "....", "<snip>"]))
        out.append(L[i])
        prev = i
    if prev < len(L) - 1:
        out.append("...")
    if intro == "```":
        out.append("```")
    text = "\n".join(out) + "\n"
    files = {r.choice(["console.txt", "paste.txt", "error_log.txt"]): text}
    # operators' side files the user also attached
    mains = set(pick) if R.base in ("k8s_pytorchjob", "torchrun_titan") else set()
    for k, v in sorted(files_base.items()):
        if k in mains or k in ("slurm-%d.out" % R.jobid, "train.log"):
            continue
        relevant = any(all(s in v for s in alt if s != "LINE") or any(s in v for s in alt if len(s) > 12) for alt in R.ev_cause + R.ev_node)
        if relevant:
            files[k.split("/")[-1]] = v
        elif (k.startswith("pods/") or k.startswith("logs/")) and r.random() < 0.15:
            files[k.split("/")[-1]] = v
        elif not (k.startswith("pods/") or k.startswith("logs/")) and r.random() < 0.3:
            files[k.split("/")[-1]] = v
    return files


def render(R):
    base = R.base
    if base == "slurm_megatron":
        files = render_srun(R)
    elif base == "torchrun_titan":
        files = render_titan(R)
    elif base == "k8s_pytorchjob":
        files = render_k8s(R)
    else:
        files = render_ds(R)
    for k, v in R.extra_files.items():
        files[k] = v
    if R.layout == "console_paste":
        files = make_paste(R, files)
    return files


# ---------------------------------------------------------------------------
# Truth + driver
# ---------------------------------------------------------------------------

def compute_truth(R, files):
    blob = "\n".join(k + "\n" + v for k, v in sorted(files.items()))

    lines = None

    def sat(alts):
        nonlocal lines
        for alt in alts:
            if not alt:
                continue
            if isinstance(alt, tuple) and alt[0] == "LINE":
                if lines is None:
                    lines = blob.split("\n")
                if any(all(x in ln for x in alt[1:]) for ln in lines):
                    return True
            elif all(x in blob for x in alt):
                return True
        return False
    if R.healthy:
        return {"healthy": True, "cause": None, "initiator": None, "layout": R.layout, "notes": R.notes}, True
    rank = R.init_rank
    node = R.init_node
    rank_ok = rank is not None and sat(R.ev_rank)
    if R.layout == "console_paste":
        mapping_ok = rank_ok and (R.host_of(rank) in blob)
    else:
        mapping_ok = rank_ok
    node_ev = sat(R.ev_node)
    if node_ev and node is not None and R.base == "k8s_pytorchjob":
        # kernel / node-level evidence names the Kubernetes node; it must be tied to the pod
        kn = R.k8snode[node]
        pod_tied = ("%s to %s" % (node, kn) in blob) or ("Name:             %s" % node in blob and "Node:             %s/" % kn in blob)
        kern_only = all(any(x in ("GPU has fallen off the bus", "SXid", "Link down", "state changed: DOWN", "Out of memory: Killed process", "not responding, still trying", "Lustre")
                            or x.startswith("): ") or x.startswith("Xid (PCI") or x.startswith("Killed process") for x in alt if x != "LINE") for alt in R.ev_node if alt)
        if kern_only and not pod_tied:
            node_ev = False
    node_ok = node is not None and (node_ev or (mapping_ok and R.host_of(rank) == node))
    if rank_ok and not node_ok and R.layout != "console_paste":
        node_ok = True
        node = R.host_of(rank)
    cause_ok = R.cause in ("unknown",) or sat(R.ev_cause)
    init = {"rank": rank if rank_ok else None, "node": node if node_ok else None}
    notes = R.notes
    if rank is not None and not rank_ok:
        notes += " (the initiating rank's own output is not in the bundle, so only %s is given)" % ("the node" if node_ok else "no initiator")
    return {"healthy": False, "cause": R.cause, "initiator": init, "layout": R.layout, "notes": notes}, cause_ok


def gen_one(idx, seed, cause, layout, healthy, outdir):
    R = Run(idx, seed, cause or "healthy", layout, healthy)
    setup_run_params(R)
    if healthy:
        c_healthy(R)
    else:
        CAUSE_FN[cause](R)
    teardown(R)
    files = render(R)
    truth, cause_ok = compute_truth(R, files)
    d = os.path.join(outdir, "run-%03d-%s" % (idx, layout))
    for k, v in files.items():
        p = os.path.join(d, k)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            f.write(v)
    with open(os.path.join(d, "truth.json"), "w") as f:
        json.dump(truth, f, indent=2)
        f.write("\n")
    return truth, cause_ok, d


def schedule(n, seed):
    rng = random.Random("blind40-schedule|%s" % seed)
    order = list(CAUSES)
    rng.shuffle(order)
    lay_shift = rng.randrange(len(LAYOUTS))
    plan = []
    j = 0
    hcount = 0
    for i in range(n):
        if i % 7 == 3:
            plan.append((i, None, LAYOUTS[(hcount + lay_shift) % len(LAYOUTS)], True))
            hcount += 1
            continue
        c = order[j % len(order)]
        cyc = j // len(order)
        lay = LAYOUTS[(cyc * 2 + order.index(c) + lay_shift) % len(LAYOUTS)]
        plan.append((i, c, lay, False))
        j += 1
    return plan


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--seed", default="1")
    a = ap.parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    counts = {"healthy": 0}
    for c in CAUSES:
        counts[c] = 0
    layouts = {}
    warn = []
    for (i, c, lay, healthy) in schedule(a.n, a.seed):
        truth, ok, d = gen_one(i, a.seed, c, lay, healthy, a.out)
        counts["healthy" if healthy else c] += 1
        layouts[lay] = layouts.get(lay, 0) + 1
        if not ok:
            warn.append(os.path.basename(d))
    print(json.dumps({"counts": counts, "layouts": layouts}, indent=1))
    if warn:
        sys.stderr.write("warning: cause evidence not found in %s\n" % ", ".join(warn))


if __name__ == "__main__":
    main()
