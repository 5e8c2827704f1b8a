#!/usr/bin/env python3
"""gen_blind55 -- synthetic log bundles of failed (and healthy) distributed GPU
training jobs, as launch *platforms* leave them.

Written blind (no access to the diagnosis tool, its rules, tests, docs or corpus).
Layouts: submitit, hydra multirun + submitit launcher, SkyPilot, dstack, Ray Train,
Determined AI, Lightning multi-node, Modal clusters, Metaflow, Kubeflow Trainer v2
(TrainJob), Flyte PyTorch tasks, accelerate launch on Slurm.

Usage:  python3 gen_blind55.py --out DIR --n 60 --seed S
Standard library only.  Deterministic per seed.
"""
import argparse
import datetime as _dt
import json
import os
import re
import random
import shutil
import sys

CAUSES = [
    "gpu_hardware", "ecc_memory", "nvlink", "network", "cuda_oom",
    "illegal_memory_access", "python_exception", "host_oom_kill", "crash_signal",
    "preemption", "hang", "data_loader_stall", "collective_mismatch", "straggler",
    "unknown",
]

LAYOUTS = [
    "submitit", "hydra_submitit", "skypilot", "dstack", "ray_train", "determined",
    "lightning_multinode", "modal_clustered", "metaflow", "kubeflow_trainjob",
    "flyte_pytorch", "accelerate_slurm",
]

# which launcher runs the ranks under each platform
LAUNCHER = {
    "submitit": "srun_tasks",
    "hydra_submitit": "srun_tasks",
    "skypilot": "torchrun",
    "dstack": "torchrun",
    "ray_train": "ray",
    "determined": "torchrun",
    "lightning_multinode": "lightning",
    "modal_clustered": "torchrun",
    "metaflow": "torchrun",
    "kubeflow_trainjob": "torchrun",
    "flyte_pytorch": "torchrun",
    "accelerate_slurm": "torchrun",
}

# seconds after the first node's job process ends until the platform tears the
# remaining nodes down (None: it does not; they run into their own timeouts)
PLATFORM_KILL = {
    "submitit": None,
    "hydra_submitit": None,
    "skypilot": (1.0, 6.0),
    "dstack": (4.0, 20.0),
    "ray_train": (0.5, 3.0),
    "determined": (1.0, 8.0),
    "lightning_multinode": None,
    "modal_clustered": (2.0, 12.0),
    "metaflow": (3.0, 30.0),
    "kubeflow_trainjob": (2.0, 15.0),
    "flyte_pytorch": (2.0, 15.0),
    "accelerate_slurm": None,
}

MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct",
          "Nov", "Dec"]
WDAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]

ADJ = ["amber", "bold", "brave", "calm", "clever", "crimson", "eager", "fancy",
       "gentle", "happy", "jolly", "lively", "mighty", "nimble", "proud", "quiet",
       "rapid", "shiny", "silent", "swift", "tidy", "witty", "zesty", "sunny"]
NOUN = ["otter", "falcon", "panda", "badger", "lynx", "heron", "koala", "marten",
        "puffin", "walrus", "yak", "gecko", "ibis", "moose", "newt", "okapi",
        "quokka", "raven", "tapir", "wombat", "zebra", "bison", "crane", "dingo"]
USERS = ["alice", "bwang", "chen", "dkim", "eva", "fmartin", "gpatel", "hsato",
         "ines", "jlee", "kmueller", "lnguyen", "mrossi", "nsingh", "oliu", "pablo"]


# --------------------------------------------------------------------------
# small helpers
# --------------------------------------------------------------------------
def hexs(rng, n):
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


def b36(rng, n):
    return "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(n))


def dtu(epoch):
    return _dt.datetime.fromtimestamp(epoch, tz=_dt.timezone.utc)


def ts_py(e):  # logging asctime
    d = dtu(e)
    return d.strftime("%Y-%m-%d %H:%M:%S") + ",%03d" % (d.microsecond // 1000)


def ts_py_dot(e):
    d = dtu(e)
    return d.strftime("%Y-%m-%d %H:%M:%S") + ".%03d" % (d.microsecond // 1000)


def ts_iso(e):
    d = dtu(e)
    return d.strftime("%Y-%m-%dT%H:%M:%S") + ".%06dZ" % d.microsecond


def ts_iso_s(e):
    return dtu(e).strftime("%Y-%m-%dT%H:%M:%SZ")


def ts_slurm(e):
    return dtu(e).strftime("%Y-%m-%dT%H:%M:%S")


def ts_elastic(e):
    return dtu(e).strftime("%Y-%m-%d_%H:%M:%S")


def ts_glog(e, lvl):  # torch.distributed.elastic >= 2.4 python logging
    d = dtu(e)
    return "%s%02d%02d %s.%06d" % (lvl, d.month, d.day, d.strftime("%H:%M:%S"), d.microsecond)


def ts_c10(e, lvl, nsx):  # c10 C++ logging >= 2.4: E703 21:51:54.112142364
    d = dtu(e)
    return "%s%d%02d %s.%06d%03d" % (lvl, d.month, d.day, d.strftime("%H:%M:%S"),
                                     d.microsecond, nsx % 1000)


def ts_dmesg_T(e):
    d = dtu(e)
    return "%s %s %2d %s %d" % (WDAYS[d.weekday()], MONTHS[d.month - 1], d.day,
                                d.strftime("%H:%M:%S"), d.year)


def ts_syslog(e):
    d = dtu(e)
    return "%s %2d %s" % (MONTHS[d.month - 1], d.day, d.strftime("%H:%M:%S"))


def ts_journal(e):
    d = dtu(e)
    return "%s %02d %s" % (MONTHS[d.month - 1], d.day, d.strftime("%H:%M:%S"))


def ts_sky(e):
    return dtu(e).strftime("%m-%d %H:%M:%S")


def ts_ray(e):
    return ts_py(e)


def hms(sec):
    sec = int(max(0, sec))
    return "%d:%02d:%02d" % (sec // 3600, (sec % 3600) // 60, sec % 60)


def mmss(sec):
    sec = int(max(0, sec))
    if sec >= 3600:
        return "%d:%02d:%02d" % (sec // 3600, (sec % 3600) // 60, sec % 60)
    return "%02d:%02d" % (sec // 60, sec % 60)


def sig_name(code):
    return {-6: "SIGABRT", -9: "SIGKILL", -11: "SIGSEGV", -15: "SIGTERM", -7: "SIGBUS",
            -2: "SIGINT", -1: "SIGHUP"}.get(code, "SIG%d" % -code)


def shell_code(code):
    """exit status as a shell / container runtime reports it"""
    return 128 - code if code < 0 else code


def ranges(nums):
    """[0,1,2,5,7,8] -> '0-2,5,7-8' (Slurm task lists)"""
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


class Ev(object):
    __slots__ = ("t", "seq", "node", "rank", "src", "stream", "text", "attempt", "kind")

    def __init__(self, t, seq, node, rank, src, stream, text, attempt, kind="n"):
        self.t = t
        self.seq = seq
        self.node = node
        self.rank = rank
        self.src = src        # 'rank' | 'agent' | 'plat' | 'sys'
        self.stream = stream  # 'out' | 'err'
        self.text = text
        self.attempt = attempt
        self.kind = kind      # 'n' normal, 'z' noise that a user may trim, 'k' key evidence


class Exit(object):
    __slots__ = ("t", "code", "why")

    def __init__(self, t, code, why):
        self.t = t
        self.code = code
        self.why = why


# --------------------------------------------------------------------------
# the run model: topology, software stack, event log
# --------------------------------------------------------------------------
class Run(object):
    def __init__(self, rng, layout, cause, healthy):
        self.rng = rng
        self.layout = layout
        self.cause = cause
        self.healthy = healthy
        self.launcher = LAUNCHER[layout]
        self.events = []
        self.seq = 0
        self.attempt = 0
        self.exits = {}
        self.node_end = {}       # node -> (t, code) when its job process ended
        self.vanished = {}       # node -> t when it disappeared (spot loss, pod OOM)
        self.notes = []
        self.init_rank = None
        self.init_node = None
        self.attach = {}         # extra attachments: relpath -> list of lines
        self.attach_order = []
        self.dump_done = False
        self.first_timeout_rank = None
        self.platform_reason = None  # preemption / oom at platform level
        self.final_status = "FAILED"
        self.extra = {}
        self._pick_stack()

    # ---------------------------------------------------------------- stack
    def _pick_stack(self):
        r = self.rng
        self.tv = r.choice([(2, 1), (2, 2), (2, 3), (2, 4), (2, 4), (2, 5), (2, 5), (2, 6), (2, 7)])
        self.py = r.choice(["3.10", "3.10", "3.11", "3.12"])
        self.nccl = {(2, 1): "2.18.1", (2, 2): "2.19.3", (2, 3): "2.20.5", (2, 4): "2.20.5",
                     (2, 5): "2.21.5", (2, 6): "2.21.5", (2, 7): "2.26.2"}[self.tv]
        self.cuda = {(2, 1): "12.1", (2, 2): "12.1", (2, 3): "12.1", (2, 4): "12.4",
                     (2, 5): "12.4", (2, 6): "12.6", (2, 7): "12.8"}[self.tv]
        self.gpu = r.choice(["NVIDIA A100-SXM4-80GB", "NVIDIA H100 80GB HBM3",
                             "NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-40GB",
                             "NVIDIA H200", "NVIDIA L40S", "NVIDIA A10G"])
        self.gpu_mem = {"NVIDIA A100-SXM4-80GB": 79.15, "NVIDIA H100 80GB HBM3": 79.11,
                        "NVIDIA A100-SXM4-40GB": 39.39, "NVIDIA H200": 139.8,
                        "NVIDIA L40S": 44.39, "NVIDIA A10G": 22.06}[self.gpu]
        self.user = r.choice(USERS)
        self.timeout_ms = r.choice([600000, 600000, 600000, 1800000, 1800000, 3600000])
        self.fabric = r.choice(["ib", "ib", "roce", "efa", "socket"])
        if self.gpu in ("NVIDIA L40S", "NVIDIA A10G") and self.fabric in ("ib", "roce"):
            self.fabric = r.choice(["socket", "efa"])
        self.nvlink_capable = self.gpu not in ("NVIDIA L40S", "NVIDIA A10G")
        self.model = r.choice(["llama-3-8b", "llama-2-13b", "mistral-7b", "gpt-neox-1.3b",
                               "vit-h-14", "qwen2-7b", "t5-xl", "gpt2-xl", "olmo-7b",
                               "resnet152", "dit-xl-2", "bert-large"])
        self.ifname = r.choice(["eth0", "ens5", "enp71s0", "ib0", "bond0", "eno1"])
        self.hca_base = r.choice(["mlx5_", "mlx5_", "ibp"])
        self.nsx = r.randint(0, 999)
        self.code_seed = "%d" % r.randint(0, 10 ** 9)
        self._picks = {}

    def pick(self, key, options):
        """a choice that stays the same for the whole run (same code, same binary)"""
        if key not in self._picks:
            self._picks[key] = self.rng.choice(options)
        return self._picks[key]

    def crng(self, key):
        """rng for things that are properties of the code (line numbers, offsets)"""
        return random.Random("%s:%s" % (self.code_seed, key))

    def site(self):
        if not hasattr(self, "_site"):
            r = self.rng
            v = self.py
            self._site = r.choice([
                "/usr/local/lib/python%s/dist-packages" % v,
                "/opt/conda/lib/python%s/site-packages" % v,
                "/home/%s/miniconda3/envs/train/lib/python%s/site-packages" % (self.user, v),
                "/fsx/%s/venv/lib/python%s/site-packages" % (self.user, v),
                "/usr/local/lib/python%s/site-packages" % v,
            ])
        return self._site

    def pybin(self):
        s = self.site()
        if s.startswith("/usr/local/lib"):
            return "/usr/bin/python%s" % self.py if "dist-packages" in s else "/usr/local/bin/python%s" % self.py
        base = s.split("/lib/python")[0]
        return base + "/bin/python"

    # ------------------------------------------------------------- topology
    def set_topology(self, n_nodes, gpn, hosts, ips):
        r = self.rng
        self.n_nodes = n_nodes
        self.gpn = gpn
        self.world = n_nodes * gpn
        self.hosts = hosts
        self.ips = ips
        # clock skew between nodes (seconds); node 0 is the reference
        big = r.random() < 0.25
        self.skew = [0.0] + [round(r.uniform(-2.5, 2.5) if not big else r.uniform(-40.0, 40.0), 3)
                             for _ in range(n_nodes - 1)]
        self.pids = []
        self.agent_pid = []
        for n in range(n_nodes):
            base = r.randint(900, 250000)
            self.agent_pid.append(base)
            p = base + r.randint(2, 40)
            for l in range(gpn):
                self.pids.append(p)
                p += r.choice([1, 1, 1, 2, 3, 7])
        self.busids = [r.choice(["18", "2a", "3a", "3b", "5d", "9a", "ab", "ba", "db", "1b",
                                 "4b", "bb", "cb", "0f", "87", "90"]) for _ in range(8)]
        self.busids = sorted(set(self.busids), key=lambda x: int(x, 16))
        while len(self.busids) < 8:
            cand = "%02x" % r.randint(16, 250)
            if cand not in self.busids:
                self.busids.append(cand)
        self.busids = sorted(self.busids, key=lambda x: int(x, 16))
        self.master = hosts[0]
        self.master_port = r.choice([29500, 29500, 29400, 12355, 6000, 23456, 29501])

    def node_of(self, rank):
        return rank // self.gpn

    def local_of(self, rank):
        return rank % self.gpn

    def ranks_of(self, node):
        return list(range(node * self.gpn, (node + 1) * self.gpn))

    def clk(self, node, t):
        """node-local wall clock"""
        return t + self.skew[node]

    def bus(self, local):
        return self.busids[local % len(self.busids)]

    def pci(self, local):
        return "0000:%s:00" % self.bus(local)

    # --------------------------------------------------------------- events
    def emit(self, t, node, rank, text, stream="err", src="rank", kind="n"):
        if text is None:
            return
        for i, line in enumerate(text.split("\n")):
            self.events.append(Ev(t + i * 1e-6, self.seq, node, rank, src, stream, line, self.attempt, kind))
            self.seq += 1

    def out(self, t, rank, text, kind="n"):
        self.emit(t, self.node_of(rank), rank, text, "out", "rank", kind)

    def err(self, t, rank, text, kind="n"):
        self.emit(t, self.node_of(rank), rank, text, "err", "rank", kind)

    def agent(self, t, node, text, stream="err"):
        self.emit(t, node, None, text, stream, "agent")

    def plat(self, t, text, node=None, stream="out"):
        self.emit(t, node, None, text, stream, "plat")

    def sys(self, t, node, text):
        self.emit(t, node, None, text, "err", "sys")

    def add_attach(self, path, lines):
        if path not in self.attach:
            self.attach_order.append(path)
            self.attach[path] = []
        self.attach[path].extend(lines)

    def alive(self, rank):
        return rank not in self.exits

    def kill(self, rank, t, code, why):
        if rank in self.exits:
            return False
        self.exits[rank] = Exit(t, code, why)
        return True

    # ------------------------------------------------------------ selection
    def evs(self, pred=None, attempt=None):
        out = [e for e in self.events if (pred is None or pred(e)) and
               (attempt is None or e.attempt == attempt)]
        out.sort(key=lambda e: (e.t, e.seq))
        return out


# --------------------------------------------------------------------------
# message builders: torch / c10 / NCCL / torchrun
# --------------------------------------------------------------------------
def c10(run, t, rank, lvl, fl, msg):
    """one c10 C++ log line as the torch version prints it"""
    node = run.node_of(rank)
    if run.tv >= (2, 4):
        run.nsx += 37
        return "[rank%d]:[%s %s] %s" % (rank, ts_c10(run.clk(node, t), lvl, run.nsx), fl, msg)
    if run.tv >= (2, 2):
        return "[rank%d]:[%s %s] %s" % (rank, lvl, fl, msg)
    return "[%s %s] %s" % (lvl, fl, msg)


def pg_prefix(run, rank):
    if run.tv >= (2, 4):
        return "[PG ID 0 PG GUID 0(default_pg) Rank %d]" % rank
    if run.tv >= (2, 3):
        return "[PG 0 Rank %d]" % rank
    return "[Rank %d]" % rank


def addr(rng):
    return "0x7f%s" % hexs(rng, 10)


class _AddrRng(object):
    pass


def c10_frames(run, where, n=None):
    r = run.crng("frames:" + where)
    tl = run.site() + "/torch/lib"
    if where == "checkTimeout":
        fr = [
            "c10::Error::Error(c10::SourceLocation, std::string) + 0x%x (%s in %s/libc10.so)" % (r.randint(0x50, 0x99), addr(run.rng), tl),
            "c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >) + 0x%x (%s in %s/libtorch_cuda.so)" % (r.randint(0x100, 0x2ff), addr(run.rng), tl),
            "c10d::ProcessGroupNCCL::watchdogHandler() + 0x%x (%s in %s/libtorch_cuda.so)" % (r.randint(0x200, 0x9ff), addr(run.rng), tl),
            "c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x%x (%s in %s/libtorch_cuda.so)" % (r.randint(0x80, 0x1ff), addr(run.rng), tl),
        ]
    elif where == "checkForNCCLErrors":
        fr = [
            "c10::Error::Error(c10::SourceLocation, std::string) + 0x%x (%s in %s/libc10.so)" % (r.randint(0x50, 0x99), addr(run.rng), tl),
            "c10d::ProcessGroupNCCL::checkForNCCLErrorsInternal(std::shared_ptr<c10d::NCCLComm>&) + 0x%x (%s in %s/libtorch_cuda.so)" % (r.randint(0x100, 0x2ff), addr(run.rng), tl),
            "c10d::ProcessGroupNCCL::WorkNCCL::checkAndSetException() + 0x%x (%s in %s/libtorch_cuda.so)" % (r.randint(0x40, 0xff), addr(run.rng), tl),
            "c10d::ProcessGroupNCCL::watchdogHandler() + 0x%x (%s in %s/libtorch_cuda.so)" % (r.randint(0x200, 0x9ff), addr(run.rng), tl),
            "c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x%x (%s in %s/libtorch_cuda.so)" % (r.randint(0x80, 0x1ff), addr(run.rng), tl),
        ]
    elif where == "cuda":
        fr = [
            "c10::Error::Error(c10::SourceLocation, std::string) + 0x%x (%s in %s/libc10.so)" % (r.randint(0x50, 0x99), addr(run.rng), tl),
            "c10::detail::torchCheckFail(char const*, char const*, unsigned int, std::string const&) + 0x%x (%s in %s/libc10.so)" % (r.randint(0x60, 0xff), addr(run.rng), tl),
            "c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, int, bool) + 0x%x (%s in %s/libc10_cuda.so)" % (r.randint(0x200, 0x3ff), addr(run.rng), tl),
            "<unknown function> + 0x%x (%s in %s/libc10_cuda.so)" % (r.randint(0x10000, 0x2ffff), addr(run.rng), tl),
            "c10d::ProcessGroupNCCL::WorkNCCL::finishedGPUExecutionInternal() const + 0x%x (%s in %s/libtorch_cuda.so)" % (r.randint(0x40, 0x9f), addr(run.rng), tl),
            "c10d::ProcessGroupNCCL::WorkNCCL::isCompleted() + 0x%x (%s in %s/libtorch_cuda.so)" % (r.randint(0x40, 0x9f), addr(run.rng), tl),
            "c10d::ProcessGroupNCCL::watchdogHandler() + 0x%x (%s in %s/libtorch_cuda.so)" % (r.randint(0x200, 0x9ff), addr(run.rng), tl),
            "c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x%x (%s in %s/libtorch_cuda.so)" % (r.randint(0x80, 0x1ff), addr(run.rng), tl),
        ]
    else:
        fr = ["<unknown function> + 0x%x (%s in %s/libtorch_cuda.so)" % (r.randint(0x10000, 0xfffff), addr(run.rng), tl)]
    fr += [
        "<unknown function> + 0x%x (%s in %s)" % (r.choice([0xdc253, 0xdbbf4, 0xdf0e6, 0x145c0]), addr(run.rng),
                                                   r.choice(["/lib/x86_64-linux-gnu/libstdc++.so.6", tl + "/libtorch.so"])),
        "<unknown function> + 0x%x (%s in /lib/x86_64-linux-gnu/libc.so.6)" % (r.choice([0x94ac3, 0x94b43, 0x8609]), addr(run.rng)),
        "<unknown function> + 0x%x (%s in /lib/x86_64-linux-gnu/libc.so.6)" % (r.choice([0x126850, 0x1268c0, 0x126a40]), addr(run.rng)),
    ]
    if n:
        fr = fr[:n]
    return "\n".join("frame #%d: %s" % (i, f) for i, f in enumerate(fr))


def src_line(run, fn):
    """ProcessGroupNCCL.cpp line numbers drift by version"""
    base = {"timeout": {(2, 1): 475, (2, 2): 523, (2, 3): 565, (2, 4): 607, (2, 5): 632, (2, 6): 632, (2, 7): 683},
            "detected": {(2, 4): 1664, (2, 5): 2271, (2, 6): 2168, (2, 7): 2241},
            "notfound": {(2, 4): 1413, (2, 5): 670, (2, 6): 667, (2, 7): 693},
            "some": {(2, 1): 489, (2, 2): 537, (2, 3): 577, (2, 4): 621, (2, 5): 684, (2, 6): 681, (2, 7): 735},
            "avoid": {(2, 1): 495, (2, 2): 543, (2, 3): 583, (2, 4): 627, (2, 5): 698, (2, 6): 695, (2, 7): 741},
            "terminated": {(2, 1): 916, (2, 2): 1182, (2, 3): 1414, (2, 4): 1595, (2, 5): 1895, (2, 6): 1895, (2, 7): 2012},
            "timeoutat": {(2, 3): 1537, (2, 4): 1521, (2, 5): 1561, (2, 6): 1561, (2, 7): 1610},
            "firstpg": {(2, 4): 1564, (2, 5): 2106, (2, 6): 2103, (2, 7): 2147},
            "observed": {(2, 4): 1339, (2, 5): 1794, (2, 6): 1922, (2, 7): 1922},
            "received": {(2, 4): 1387, (2, 5): 1858, (2, 6): 1987, (2, 7): 1987},
            "prepdump": {(2, 4): 1262, (2, 5): 1575, (2, 6): 1700, (2, 7): 1700},
            "shoulddump": {(2, 3): 1316, (2, 4): 1298, (2, 5): 1430, (2, 6): 1442, (2, 7): 1478},
            "heartbeat": {(2, 3): 1267, (2, 4): 1323, (2, 5): 1396, (2, 6): 1396, (2, 7): 1430},
            "destroy": {(2, 4): 1168, (2, 5): 1427, (2, 6): 1647, (2, 7): 1547},
            }[fn]
    return base.get(run.tv, list(base.values())[-1])


def watchdog_block(run, rank, t, seq, op, numel, enq, comp, ran_ms, full=True, first=False):
    """the collateral lines a rank prints when its NCCL watchdog times out"""
    to = run.timeout_ms
    nout = numel
    if op in ("ALLGATHER", "_ALLGATHER_BASE"):
        nout = numel * run.world
    if op in ("_REDUCE_SCATTER_BASE", "REDUCE_SCATTER"):
        nout = max(1, numel // run.world)
    work = "WorkNCCL(SeqNum=%d, OpType=%s, NumelIn=%d, NumelOut=%d, Timeout(ms)=%d)" % (seq, op, numel, nout, to)
    head = "[Rank %d] Watchdog caught collective operation timeout: %s ran for %d milliseconds before timing out." % (rank, work, ran_ms)
    L = []
    p = "ProcessGroupNCCL.cpp:%d"
    L.append(c10(run, t, rank, "E", p % src_line(run, "timeout"), head))
    if run.tv >= (2, 4):
        L.append(c10(run, t + 0.0002, rank, "E", p % src_line(run, "detected"),
                     "%s  failure detected by watchdog at work sequence id: %d PG status: last enqueued work: %d, last completed work: %d"
                     % (pg_prefix(run, rank), seq, enq, comp)))
        L.append(c10(run, t + 0.0003, rank, "E", p % src_line(run, "notfound"),
                     "Stack trace of the failed collective not found, potentially because FlightRecorder is disabled. You can enable it by setting TORCH_NCCL_TRACE_BUFFER_SIZE to a non-zero value."))
        if first:
            L.append(c10(run, t + 0.0004, rank, "E", p % src_line(run, "firstpg"),
                         "%s First PG on this rank to signal dumping." % pg_prefix(run, rank)))
    elif run.tv >= (2, 3):
        L.append(c10(run, t + 0.0002, rank, "E", p % src_line(run, "timeoutat"),
                     "%s Timeout at NCCL work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (pg_prefix(run, rank), seq, enq, comp)))
    L.append(c10(run, t + 0.0005, rank, "E", p % src_line(run, "some"),
                 "[Rank %d] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data." % rank))
    L.append(c10(run, t + 0.0006, rank, "E", p % src_line(run, "avoid"),
                 "[Rank %d] To avoid data inconsistency, we are taking the entire process down." % rank))
    if not full:
        return "\n".join(L)
    if run.tv >= (2, 2):
        term = "%s Process group watchdog thread terminated with exception: %s" % (pg_prefix(run, rank), head)
        if run.tv < (2, 3):
            term = "[Rank %d] NCCL watchdog thread terminated with exception: %s" % (rank, head)
        L.append(c10(run, t + 0.001, rank, "E", p % src_line(run, "terminated"), term))
        L.append("Exception raised from checkTimeout at %s:%d (most recent call first):"
                 % ("/pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp" if run.tv >= (2, 5) else "../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp",
                    src_line(run, "timeout") + 3))
        L.append(c10_frames(run, "checkTimeout"))
        L.append("")
        L.append("terminate called after throwing an instance of 'c10::DistBackendError'")
        L.append("  what():  " + term)
        L.append("Exception raised from checkTimeout at %s:%d (most recent call first):"
                 % ("/pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp" if run.tv >= (2, 5) else "../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp",
                    src_line(run, "timeout") + 3))
        L.append(c10_frames(run, "checkTimeout"))
        L.append("")
    else:
        term = "[Rank %d] NCCL watchdog thread terminated with exception: %s" % (rank, head)
        L.append(c10(run, t + 0.001, rank, "E", p % src_line(run, "terminated"), term))
        L.append("terminate called after throwing an instance of 'std::runtime_error'")
        L.append("  what():  " + term)
    return "\n".join(L)


def dump_signal_lines(run, rank, t, from_rank, enq, comp):
    """torch >= 2.4: other ranks learn of the timeout via TCPStore"""
    p = "ProcessGroupNCCL.cpp:%d"
    L = [c10(run, t, rank, "E", p % src_line(run, "observed"),
             "%s Observed flight recorder dump signal from another rank via TCPStore." % pg_prefix(run, rank)),
         c10(run, t + 0.0001, rank, "E", p % src_line(run, "received"),
             "%s Received a dump signal due to a collective timeout from  rank %d and we will try our best to dump the debug info. "
             "Last enqueued NCCL work: %d, last completed NCCL work: %d.This is most likely caused by incorrect usages of collectives, "
             "e.g., wrong sizes used across ranks, the order of collectives is not same for all ranks or the scheduled collective, for some "
             "reason, didn't run. Additionally, this can be caused by GIL deadlock or other reasons such as network errors or bugs in the "
             "communications library (e.g. NCCL), etc. " % (pg_prefix(run, rank), from_rank, enq, comp)),
         c10(run, t + 0.0003, rank, "E", p % src_line(run, "prepdump"),
             "%s ProcessGroupNCCL preparing to dump debug info. Include stack trace: 1, only active collectives: 0" % pg_prefix(run, rank))]
    return "\n".join(L)


def nccl_last_error(run, peer_ip, local_ip, kind="retry", hca=None):
    r = run.rng
    port = r.randint(32768, 60999)
    if hca is None:
        hca = "%s%d" % ("mlx5_" if run.fabric in ("ib", "roce") else "mlx5_", r.randint(0, 7))
    if run.fabric in ("ib", "roce"):
        if kind == "flush":
            st = "IBV_WC_WR_FLUSH_ERR(5)"
            verr = 244
        else:
            st = "IBV_WC_RETRY_EXC_ERR(12)"
            verr = 129
        if run.tv >= (2, 4):
            return ("NET/IB : Got completion from peer %s<%d> with status=%s opcode=%d len=0 vendor err %d (%s) localGid ::ffff:%s remoteGids::ffff:%s hca %s"
                    % (peer_ip, port, st, r.choice([0, 1, 128]), verr, r.choice(["Recv", "Send"]), local_ip, peer_ip, hca))
        return ("NET/IB : Got completion from peer %s<%d> with error %d, opcode %d, len 0, vendor err %d (%s)"
                % (peer_ip, port, 5 if kind == "flush" else 12, r.choice([0, 1, 128]), verr, r.choice(["Recv", "Send"])))
    if run.fabric == "efa":
        return ("NET/OFI Request %s completed with error. RC: %d. Error: %d (%s). Completed length: 0, Request: { dev: %d, size: 0, state: CREATED, type: %s }"
                % (addr(r), run.pick("efarc", [21, 4352, 4353]), run.pick("efaerr", [4353, 21, 110]), run.pick("efamsg", ["Unknown error", "Connection timed out", "Remote error"]),
                   r.randint(0, 3), r.choice(["RECV", "SEND"])))
    if kind == "flush":
        return "socketProgressOpt: Call to recv from %s<%d> failed : Connection reset by peer" % (peer_ip, port)
    return r.choice(["socketProgressOpt: Call to recv from %s<%d> failed : Connection reset by peer" % (peer_ip, port),
                     "socketProgress: Connection closed by remote peer %s<%d>" % (peer_ip, port)])


def nccl_warn(run, rank, text, tid_off=None):
    node = run.node_of(rank)
    pid = run.pids[rank]
    tid = pid + (tid_off if tid_off is not None else run.rng.randint(60, 900))
    return "%s:%d:%d [%d] NCCL WARN %s" % (run.hosts[node], pid, tid, run.local_of(rank), text)


def nccl_info(run, rank, text, tid_off=0):
    node = run.node_of(rank)
    pid = run.pids[rank]
    return "%s:%d:%d [%d] NCCL INFO %s" % (run.hosts[node], pid, pid + tid_off, run.local_of(rank), text)


def remote_error_block(run, rank, t, last_err, errtype="remote"):
    """watchdog tears the process down after NCCL reports an async error"""
    if errtype == "remote":
        what = ("NCCL error: remote process exited or there was a network error, NCCL version %s\n"
                "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.\n"
                "Last error:\n%s" % (run.nccl, last_err))
    elif errtype == "system":
        what = ("NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version %s\n"
                "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. \n"
                "Last error:\n%s" % (run.nccl, last_err))
    else:
        what = ("NCCL error: unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version %s\n"
                "ncclUnhandledCudaError: Call to CUDA function failed.\n"
                "Last error:\n%s" % (run.nccl, last_err))
    L = []
    p = "ProcessGroupNCCL.cpp:%d"
    if run.tv >= (2, 2):
        head = "%s Process group watchdog thread terminated with exception: %s" % (pg_prefix(run, rank), what.split("\n")[0])
        L.append(c10(run, t, rank, "E", p % src_line(run, "terminated"), head))
        L.extend(what.split("\n")[1:])
        L.append("Exception raised from checkForNCCLErrorsInternal at %s:%d (most recent call first):"
                 % ("/pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp" if run.tv >= (2, 5) else "../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp",
                    run.pick("cfne", [1969, 2027, 2088, 2112, 2185, 2326])))
        L.append(c10_frames(run, "checkForNCCLErrors"))
        L.append("")
        L.append("terminate called after throwing an instance of 'c10::DistBackendError'")
        L.append("  what():  " + head)
        L.extend(what.split("\n")[1:])
    else:
        L.append(c10(run, t, rank, "E", p % 820, "[Rank %d] NCCL watchdog thread terminated with exception: %s" % (rank, what.split("\n")[0])))
        L.extend(what.split("\n")[1:])
        L.append("terminate called after throwing an instance of 'std::runtime_error'")
        L.append("  what():  [Rank %d] NCCL watchdog thread terminated with exception: %s" % (rank, what.split("\n")[0]))
        L.extend(what.split("\n")[1:])
    return "\n".join(L)


def tcpstore_reset_lines(run, rank, t):
    """survivor ranks once the TCPStore host (node 0 agent / rank 0) is gone"""
    if run.tv < (2, 3):
        return None
    node = run.node_of(rank)
    lp = run.rng.randint(33000, 60000)
    fd = run.rng.randint(40, 140)
    L = [c10(run, t, rank, "W", "TCPStore.cpp:%d" % run.pick("[125, 131, 141]", [125, 131, 141]),
             "[c10d] recvValue failed on SocketImpl(fd=%d, addr=[%s]:%d, remote=[%s]:%d): Connection reset by peer"
             % (fd, run.hosts[node], lp, run.master, run.master_port)),
         "Exception raised from recvBytes at %s/torch/csrc/distributed/c10d/Utils.hpp:%d (most recent call first):"
         % ("/pytorch" if run.tv >= (2, 5) else "..", run.pick("[670, 672, 678]", [670, 672, 678])),
         c10_frames(run, "other", 1),
         "",
         c10(run, t + 0.001, rank, "W", "ProcessGroupNCCL.cpp:%d" % src_line(run, "shoulddump"),
             "%s Failed to check the \"should dump\" flag on TCPStore, (maybe TCPStore server has shut down too early), with error: Connection reset by peer"
             % pg_prefix(run, rank))]
    return "\n".join(L)


# ---- Python tracebacks ---------------------------------------------------
def tb(frames, exc):
    L = ["Traceback (most recent call last):"]
    for f, ln, fn, code in frames:
        L.append('  File "%s", line %d, in %s' % (f, ln, fn))
        if code:
            L.append("    " + code)
    L.append(exc)
    return "\n".join(L)


def user_frames(run, what):
    r = run.crng("uf:" + what)
    sp = run.script
    d = os.path.dirname(sp)
    s = run.site()
    fr = [(sp, r.randint(380, 520), "<module>", "main()" if run.layout not in ("submitit", "hydra_submitit", "ray_train", "metaflow") else None)]
    if fr[0][3] is None:
        fr = []
    if run.layout == "hydra_submitit":
        fr = []
    fr.append((sp, r.randint(250, 370), "main", "trainer.fit()" if run.layout == "lightning_multinode" else "train(cfg)"))
    if run.layout == "lightning_multinode":
        fr += [(s + "/lightning/pytorch/trainer/trainer.py", 539, "fit", "call._call_and_handle_interrupt("),
               (s + "/lightning/pytorch/trainer/call.py", 46, "_call_and_handle_interrupt", "return trainer.strategy.launcher.launch(trainer_fn, *args, trainer=trainer, **kwargs)"),
               (s + "/lightning/pytorch/strategies/launchers/subprocess_script.py", 105, "launch", "return function(*args, **kwargs)"),
               (s + "/lightning/pytorch/trainer/trainer.py", 575, "_fit_impl", "self._run(model, ckpt_path=ckpt_path)"),
               (s + "/lightning/pytorch/trainer/trainer.py", 982, "_run", "results = self._run_stage()"),
               (s + "/lightning/pytorch/trainer/trainer.py", 1026, "_run_stage", "self.fit_loop.run()"),
               (s + "/lightning/pytorch/loops/fit_loop.py", 216, "run", "self.advance()"),
               (s + "/lightning/pytorch/loops/fit_loop.py", 455, "advance", "self.epoch_loop.run(self._data_fetcher)"),
               (s + "/lightning/pytorch/loops/training_epoch_loop.py", 150, "run", "self.advance(data_fetcher)")]
        if what == "data":
            fr += [(s + "/lightning/pytorch/loops/training_epoch_loop.py", 282, "advance", "batch, _, __ = next(data_fetcher)"),
                   (s + "/lightning/pytorch/loops/fetchers.py", 134, "__next__", "batch = super().__next__()"),
                   (s + "/lightning/pytorch/loops/fetchers.py", 61, "__next__", "batch = next(self.iterator)")]
            return fr
        fr += [(s + "/lightning/pytorch/loops/training_epoch_loop.py", 320, "advance", "batch_output = self.automatic_optimization.run(trainer.optimizers[0], batch_idx, kwargs)"),
               (s + "/lightning/pytorch/loops/optimization/automatic.py", 192, "run", "self._optimizer_step(batch_idx, closure)"),
               (s + "/lightning/pytorch/core/module.py", 1302, "optimizer_step", "optimizer.step(closure=optimizer_closure)"),
               (s + "/torch/optim/optimizer.py", 487, "wrapper", "out = func(*args, **kwargs)"),
               (s + "/lightning/pytorch/loops/optimization/automatic.py", 129, "closure", "step_output = self._step_fn()"),
               (s + "/lightning/pytorch/loops/optimization/automatic.py", 317, "_training_step", "training_step_output = call._call_strategy_hook(trainer, \"training_step\", *kwargs.values())"),
               (sp, r.randint(90, 200), "training_step", "loss = self.model(**batch).loss")]
        if what in ("backward", "oom"):
            fr[-1] = (sp, r.randint(90, 200), "training_step", "self.manual_backward(loss)" if r.random() < 0.3 else "logits = self.model(batch[\"input_ids\"])")
        return fr
    fr.append((os.path.join(d, "trainer.py") if r.random() < 0.6 else sp, r.randint(120, 460), "train",
               {"forward": "loss = train_step(model, batch, optimizer, scaler)",
                "backward": "loss = train_step(model, batch, optimizer, scaler)",
                "oom": "loss = train_step(model, batch, optimizer, scaler)",
                "data": "for step, batch in enumerate(train_loader, start=start_step):",
                "ckpt": "save_checkpoint(model, optimizer, step, cfg.ckpt_dir)",
                "eval": "metrics = evaluate(model, val_loader)",
                "collective": "dist.all_reduce(loss_t, op=dist.ReduceOp.AVG)"}.get(what, "loss = train_step(model, batch, optimizer, scaler)")))
    if what in ("forward", "oom"):
        fr.append((os.path.join(d, "trainer.py"), r.randint(60, 118), "train_step", "out = model(batch[\"input_ids\"], labels=batch[\"labels\"])"))
        fr.append((s + "/torch/nn/modules/module.py", r.choice([1553, 1736, 1739]), "_wrapped_call_impl", "return self._call_impl(*args, **kwargs)"))
        fr.append((s + "/torch/nn/modules/module.py", r.choice([1562, 1747, 1750]), "_call_impl", "return forward_call(*args, **kwargs)"))
        fr.append((s + "/torch/nn/parallel/distributed.py", r.choice([1636, 1643]), "forward", "else self._run_ddp_forward(*inputs, **kwargs)")
                  if r.random() < 0.5 else
                  (s + "/torch/distributed/fsdp/fully_sharded_data_parallel.py", r.choice([849, 863]), "forward", "output = self._fsdp_wrapped_module(*args, **kwargs)"))
        fr.append((s + "/transformers/models/llama/modeling_llama.py", r.choice([1189, 913, 1163]), "forward", "outputs = self.model("))
        fr.append((s + "/transformers/models/llama/modeling_llama.py", r.choice([1001, 640, 571]), "forward", "layer_outputs = decoder_layer("))
        fr.append((s + "/transformers/models/llama/modeling_llama.py", r.choice([734, 340, 296]), "forward", "hidden_states = self.mlp(hidden_states)"))
        fr.append((s + "/transformers/models/llama/modeling_llama.py", r.choice([258, 190]), "forward", "down_proj = self.down_proj(self.act_fn(self.gate_proj(x)) * self.up_proj(x))"))
    elif what == "backward":
        fr.append((os.path.join(d, "trainer.py"), r.randint(60, 118), "train_step", "scaler.scale(loss).backward()"))
        fr.append((s + "/torch/_tensor.py", r.choice([521, 581, 626]), "backward", "torch.autograd.backward("))
        fr.append((s + "/torch/autograd/__init__.py", r.choice([289, 347]), "backward", "_engine_run_backward("))
        fr.append((s + "/torch/autograd/graph.py", r.choice([768, 823, 825]), "_engine_run_backward", "return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass"))
    elif what == "data":
        fr.append((s + "/torch/utils/data/dataloader.py", r.choice([630, 701, 708]), "__next__", "data = self._next_data()"))
        fr.append((s + "/torch/utils/data/dataloader.py", r.choice([1328, 1448, 1465]), "_next_data", "idx, data = self._get_data()"))
        fr.append((s + "/torch/utils/data/dataloader.py", r.choice([1294, 1402, 1411]), "_get_data", "success, data = self._try_get_data()"))
    elif what == "collective":
        fr.append((s + "/torch/distributed/c10d_logger.py", r.choice([72, 79, 83]), "wrapper", "return func(*args, **kwargs)"))
        fr.append((s + "/torch/distributed/distributed_c10d.py", r.choice([2288, 2501, 2806]), "all_reduce", "work = group.allreduce([tensor], opts)"))
    elif what == "ckpt":
        fr.append((os.path.join(d, "checkpoint.py"), r.randint(20, 90), "save_checkpoint", "torch.save(state, os.path.join(ckpt_dir, f\"step_{step:07d}\", f\"rank{rank}.pt\"))"))
    return fr


def platform_frames(run):
    """frames the platform wraps around the user's function"""
    s = run.site()
    rr = run.crng("pf")
    if run.layout in ("submitit", "hydra_submitit"):
        fr = [("<frozen runpy>", 198, "_run_module_as_main", None),
              ("<frozen runpy>", 88, "_run_code", None),
              (s + "/submitit/core/_submit.py", 11, "<module>", "submitit_main()"),
              (s + "/submitit/core/submission.py", 76, "submitit_main", "process_job(args.folder)"),
              (s + "/submitit/core/submission.py", 69, "process_job", "raise error"),
              (s + "/submitit/core/submission.py", 55, "process_job", "result = delayed.result()"),
              (s + "/submitit/core/utils.py", 133, "result", "self._result = self.function(*self.args, **self.kwargs)")]
        if run.layout == "hydra_submitit":
            fr += [(s + "/hydra_plugins/hydra_submitit_launcher/submitit_launcher.py", 74, "__call__", "return run_job("),
                   (s + "/hydra/core/utils.py", 260, "return_value", "raise self._return_value"),
                   (s + "/hydra/core/utils.py", 186, "run_job", "ret.return_value = task_function(task_cfg)")]
        else:
            fr += [(run.script, rr.randint(40, 90), "__call__", "return self.train()")]
        return fr
    if run.layout == "ray_train":
        return [(s + "/ray/train/_internal/worker_group.py", 33, "__execute", "raise skipped from exception_cause(skipped)"),
                (s + "/ray/train/_internal/utils.py", 169, "discard_return_wrapper", "train_func(*args, **kwargs)"),
                (run.script, rr.randint(60, 140), "train_func_per_worker", "train(config)")]
    if run.layout == "metaflow":
        return []
    return []


# ---- torchrun / elastic agent --------------------------------------------
def elastic_log(run, t, node, lvl, mod, line, msg):
    """one torch.distributed.elastic python log line, version-dependent format"""
    tt = run.clk(node, t)
    full = {"W": "WARNING", "E": "ERROR", "I": "INFO"}[lvl]
    if run.tv >= (2, 4):
        return "%s %d %s:%d] %s" % (ts_glog(tt, lvl), run.agent_pid[node], mod.replace(".", "/") + ".py", line, msg)
    if run.tv >= (2, 1):
        return "[%s] %s: [%s] %s" % (ts_py(tt), mod, full, msg)
    return "%s:%s:%s" % (full, mod, msg)


def torchrun_banner(run, t, node):
    L = []
    for m in ["", "*****************************************",
              "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. ",
              "*****************************************"]:
        L.append(elastic_log(run, t, node, "W", "torch.distributed.run", 793, m))
    return "\n".join(L)


def agent_sigterm_lines(run, t, node, pids):
    return "\n".join(elastic_log(run, t + i * 0.003, node, "W", "torch.distributed.elastic.multiprocessing.api",
                                 897, "Sending process %d closing signal SIGTERM" % p) for i, p in enumerate(pids))


def agent_failed_line(run, t, node, local, pid, code):
    return elastic_log(run, t, node, "E", "torch.distributed.elastic.multiprocessing.api", 869,
                       "failed (exitcode: %d) local_rank: %d (pid: %d) of binary: %s" % (code, local, pid, run.pybin()))


def torchrun_entry_frames(run):
    s = run.site()
    if run.launcher == "torchrun" and run.layout == "accelerate_slurm":
        return [(run.pybin().replace("/python", "/accelerate") if "/bin/" in run.pybin() else "/usr/local/bin/accelerate", 8, "<module>", "sys.exit(main())"),
                (s + "/accelerate/commands/accelerate_cli.py", 48, "main", "args.func(args)"),
                (s + "/accelerate/commands/launch.py", 1168, "launch_command", "multi_gpu_launcher(args)"),
                (s + "/accelerate/commands/launch.py", 803, "multi_gpu_launcher", "distrib_run.run(args)"),
                (s + "/torch/distributed/run.py", 910, "run", "elastic_launch(")]
    if run.layout == "determined":
        return [("<frozen runpy>", 198, "_run_module_as_main", None),
                ("<frozen runpy>", 88, "_run_code", None),
                (s + "/torch/distributed/run.py", 923, "<module>", "main()"),
                (s + "/torch/distributed/elastic/multiprocessing/errors/__init__.py", 355, "wrapper", "return f(*args, **kwargs)"),
                (s + "/torch/distributed/run.py", 919, "main", "run(args)"),
                (s + "/torch/distributed/run.py", 910, "run", "elastic_launch(")]
    return [(run.pybin().rsplit("/", 1)[0] + "/torchrun", 8, "<module>", "sys.exit(main())"),
            (s + "/torch/distributed/elastic/multiprocessing/errors/__init__.py", 355, "wrapper", "return f(*args, **kwargs)"),
            (s + "/torch/distributed/run.py", 919, "main", "run(args)"),
            (s + "/torch/distributed/run.py", 910, "run", "elastic_launch(")]


def child_failed_text(run, node, t_now, root, others, script):
    """ChildFailedError summary as the node's agent prints it.
    root/others: list of (rank, Exit)"""
    s = run.site()
    fr = torchrun_entry_frames(run) + [
        (s + "/torch/distributed/launcher/api.py", 138, "__call__", "return launch_agent(self._config, self._entrypoint, list(args))"),
        (s + "/torch/distributed/launcher/api.py", 269, "launch_agent", "raise ChildFailedError(")]

    def entry(idx, rank, ex):
        code = ex.code
        pid = run.pids[rank]
        if code < 0:
            ec = "%d (pid: %d)" % (code, pid) + ("  (%s)" % sig_name(code) if run.tv >= (2, 7) else "")
            trace = "Signal %d (%s) received by PID %d" % (-code, sig_name(code), pid)
        else:
            ec = "%d (pid: %d)" % (code, pid) + (" " if run.tv >= (2, 7) else "")
            trace = "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"
        return ("[%d]:\n  time      : %s\n  host      : %s\n  rank      : %d (local_rank: %d)\n  exitcode  : %s\n  error_file: <N/A>\n  traceback : %s"
                % (idx, ts_elastic(run.clk(node, ex.t)), run.hosts[node], rank, run.local_of(rank), ec, trace))
    L = [tb(fr, "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: "),
         "============================================================",
         "%s FAILED" % script,
         "------------------------------------------------------------",
         "Failures:"]
    if others:
        for i, (rk, ex) in enumerate(others):
            L.append(entry(i + 1, rk, ex))
    else:
        L.append("  <NO_OTHER_FAILURES>")
    L.append("------------------------------------------------------------")
    L.append("Root Cause (first observed failure):")
    L.append(entry(0, root[0], root[1]))
    L.append("============================================================")
    return "\n".join(L)


def agent_signal_exception(run, t, node, sig=15):
    s = run.site()
    fr = torchrun_entry_frames(run) + [
        (s + "/torch/distributed/launcher/api.py", 138, "__call__", "return launch_agent(self._config, self._entrypoint, list(args))"),
        (s + "/torch/distributed/launcher/api.py", 260, "launch_agent", "result = agent.run()"),
        (s + "/torch/distributed/elastic/metrics/api.py", 137, "wrapper", "result = f(*args, **kwargs)"),
        (s + "/torch/distributed/elastic/agent/server/api.py", 711, "run", "result = self._invoke_run(role)"),
        (s + "/torch/distributed/elastic/agent/server/api.py", 870, "_invoke_run", "time.sleep(monitor_interval)"),
        (s + "/torch/distributed/elastic/multiprocessing/api.py", 84, "_terminate_process_handler", "raise SignalException(f\"Process {os.getpid()} got signal: {sigval}\", sigval=sigval)")]
    pre = elastic_log(run, t, node, "W", "torch.distributed.elastic.agent.server.api", 704,
                      "Received Signals.%s death signal, shutting down workers" % ("SIGTERM" if sig == 15 else "SIGINT"))
    pids = [run.pids[r] for r in run.ranks_of(node)]
    return pre + "\n" + agent_sigterm_lines(run, t + 0.01, node, pids) + "\n" + tb(
        fr, "torch.distributed.elastic.multiprocessing.api.SignalException: Process %d got signal: %d" % (run.agent_pid[node], sig))


# --------------------------------------------------------------------------
# noise, startup and training progress
# --------------------------------------------------------------------------
def bar(frac, width=10):
    blocks = " ▏▎▍▌▋▊▉█"
    full = int(frac * width)
    rem = int((frac * width - full) * 8)
    s = "█" * full
    if full < width:
        s += blocks[rem] if rem else " "
        s += " " * (width - full - 1)
    return s


def tqdm_line(desc, i, n, el, extra=""):
    frac = i / float(n) if n else 1.0
    rate = el / i if i else 0.0
    rem = rate * (n - i)
    unit = "%.2fs/it" % rate if rate >= 1 else "%.2fit/s" % (1.0 / rate if rate else 0.0)
    return "%s%3d%%|%s| %d/%d [%s<%s, %s%s]" % (desc, int(frac * 100), bar(frac), i, n, mmss(el), mmss(rem), unit, extra)


def startup_noise(run, rank, t):
    """warnings every rank prints at import / init"""
    r = run.rng
    s = run.site()
    cands = [
        "%s/torch/utils/checkpoint.py:%d: UserWarning: torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. In version 2.5 we will raise an exception if use_reentrant is not passed. use_reentrant=False is recommended, but if you need to preserve the current default behavior, you can pass use_reentrant=True. Refer to docs for more details on the differences between the two variants.\n  return fn(*args, **kwargs)" % (s, run.pick("[460, 464, 295]", [460, 464, 295])),
        "%s/torch/_utils.py:831: UserWarning: TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the only storage class. This should only matter to you if you are using storages directly.  To access UntypedStorage directly, use tensor.untyped_storage() instead of tensor.storage()\n  return self.fget.__get__(instance, owner)()" % s,
        "%s/transformers/training_args.py:1545: FutureWarning: `evaluation_strategy` is deprecated and will be removed in version 4.46 of 🤗 Transformers. Use `eval_strategy` instead\n  warnings.warn(" % s,
        "%s/torch/cuda/amp/grad_scaler.py:%d: FutureWarning: `torch.cuda.amp.GradScaler(args...)` is deprecated. Please use `torch.amp.GradScaler('cuda', args...)` instead.\n  warnings.warn(" % (s, run.pick("[31, 120]", [31, 120])),
        "%s/torch/distributed/fsdp/_init_utils.py:%d: UserWarning: FSDP is switching to use `NO_SHARD` instead of ShardingStrategy.FULL_SHARD since the world size is 1.\n  warnings.warn(" % (s, run.pick("[440, 444]", [440, 444])) if run.world == 1 else
        "%s/torch/distributed/fsdp/fully_sharded_data_parallel.py:%d: FutureWarning: FSDP.state_dict_type() and FSDP.set_state_dict_type() are being deprecated. Please use APIs, get_state_dict() and set_state_dict(), which can support different parallelisms, FSDP1, FSDP2, DDP. API doc: https://pytorch.org/docs/stable/distributed.checkpoint.html#torch.distributed.checkpoint.state_dict.get_state_dict .Tutorial: https://pytorch.org/tutorials/recipes/distributed_checkpoint_recipe.html .\n  warnings.warn(" % (s, run.pick("[678, 690]", [678, 690])),
        "huggingface/tokenizers: The current process just got forked, after parallelism has already been used. Disabling parallelism to avoid deadlocks...\nTo disable this warning, you can either:\n\t- Avoid using `tokenizers` before the fork if possible\n\t- Explicitly set the environment variable TOKENIZERS_PARALLELISM=(true | false)",
        "%s/torch/nn/modules/conv.py:456: UserWarning: Plan failed with a cudnnException: CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR: cudnnFinalize Descriptor Failed cudnn_status: CUDNN_STATUS_NOT_SUPPORTED (Triggered internally at ../aten/src/ATen/native/cudnn/Conv_v8.cpp:919.)\n  return F.conv2d(input, weight, bias, self.stride," % s,
    ]
    if run.tv >= (2, 2):
        cands.append(c10(run, t, rank, "W", "Utils.hpp:%d" % run.pick("[133, 135, 164]", [133, 135, 164]),
                         "Warning: Environment variable NCCL_ASYNC_ERROR_HANDLING is deprecated; use TORCH_NCCL_ASYNC_ERROR_HANDLING instead (function operator())"))
    k = r.choice([0, 1, 1, 2, 2, 3])
    picks = r.sample(cands, min(k, len(cands)))
    for i, w in enumerate(picks):
        run.err(t + 0.3 * i, rank, w, "z")


def socket_connect_warning(run, rank, t):
    if run.tv >= (2, 4):
        return c10(run, t, rank, "W", "socket.cpp:%d" % run.pick("[697, 752, 804]", [697, 752, 804]),
                   "[c10d] The client socket has failed to connect to [%s]:%d (errno: 22 - Invalid argument)." % (run.master, run.master_port))
    return "[W socket.cpp:%d] [c10d] The client socket has failed to connect to [%s]:%d (errno: 99 - Cannot assign requested address)." % (
        run.pick("[436, 601, 663]", [436, 601, 663]), run.master, run.master_port)


def nccl_init_lines(run, rank, t):
    r = run.rng
    node = run.node_of(rank)
    local = run.local_of(rank)
    ip = run.ips[node]
    L = []
    if rank == 0 or (local == 0 and r.random() < 0.5):
        L.append(nccl_info(run, rank, "Bootstrap : Using %s:%s<0>" % (run.ifname, ip)))
    if run.fabric == "efa":
        L.append(nccl_info(run, rank, "NET/OFI Initializing aws-ofi-nccl %s" % r.choice(["1.7.4-aws", "1.9.1-aws", "1.11.0-aws"])))
        L.append(nccl_info(run, rank, "NET/OFI Selected Provider is efa (found %d nics)" % r.choice([4, 8, 32])))
        L.append(nccl_info(run, rank, "Using network AWS Libfabric"))
    elif run.fabric in ("ib", "roce"):
        if r.random() < 0.5:
            L.append(nccl_info(run, rank, "NET/Plugin: Plugin load (libnccl-net.so) returned 2 : libnccl-net.so: cannot open shared object file: No such file or directory"))
            L.append(nccl_info(run, rank, "NET/Plugin: Using internal network plugin."))
        kind = "IB" if run.fabric == "ib" else "RoCE"
        n_hca = 8 if "H100" in run.gpu or "H200" in run.gpu else 4
        devs = " ".join("[%d]%s%d:1/%s" % (i, "mlx5_", i, kind) for i in range(n_hca))
        L.append(nccl_info(run, rank, "NET/IB : Using %s ; OOB %s:%s<0>" % (devs, run.ifname, ip)))
        L.append(nccl_info(run, rank, "Using network IB"))
    else:
        L.append(nccl_warn(run, rank, "Failed to open libibverbs.so[.1]", 0) if r.random() < 0.4 else
                 nccl_info(run, rank, "NET/IB : No device found."))
        L.append(nccl_info(run, rank, "NET/Socket : Using [0]%s:%s<0>" % (run.ifname, ip)))
        L.append(nccl_info(run, rank, "Using network Socket"))
    if rank == 0:
        L.append("%s:%d:%d [0] NCCL INFO NCCL version %s+cuda%s" % (run.hosts[0], run.pids[0], run.pids[0], run.nccl, run.cuda))
    comm = run.extra.setdefault("comm_ptr", "0x%s" % hexs(r, 8))
    cid = run.extra.setdefault("comm_id", "0x%s" % hexs(r, 16))
    L.append(nccl_info(run, rank, "comm %s rank %d nranks %d cudaDev %d nvmlDev %d busId %s000 commId %s - Init START"
                       % (comm, rank, run.world, local, local, run.bus(local), cid), r.randint(60, 400)))
    if run.world <= 16 and rank == 0:
        L.append(nccl_info(run, rank, "Channel 00/%02d :    %s" % (r.choice([2, 4, 8, 16]), " ".join("%3d" % i for i in range(run.world))), r.randint(60, 400)))
    L.append(nccl_info(run, rank, "Connected all rings", r.randint(60, 400)))
    L.append(nccl_info(run, rank, "Connected all trees", r.randint(60, 400)))
    L.append(nccl_info(run, rank, "comm %s rank %d nranks %d cudaDev %d nvmlDev %d busId %s000 commId %s - Init COMPLETE"
                       % (comm, rank, run.world, local, local, run.bus(local), cid), r.randint(60, 400)))
    run.out(t, rank, "\n".join(L), "z")


def train_line(run, rank, step, t, loss, lr, slow=None):
    r = run.rng
    st = run.style
    it = run.iter_s if slow is None else slow
    if st == "hf":
        if r.random() < 0.5:
            return "{'loss': %.4f, 'grad_norm': %.4f, 'learning_rate': %.4e, 'epoch': %.2f}" % (
                loss, r.uniform(0.2, 2.5), lr, step / float(run.total_steps))
        return tqdm_line("", step, run.total_steps, step * it)
    if st == "megatron":
        return (" [%s] iteration %8d/%8d | consumed samples: %12d | elapsed time per iteration (ms): %.1f | learning rate: %.6E | "
                "global batch size: %5d | lm loss: %.6E | loss scale: 1.0 | grad norm: %.3f | number of skipped iterations:   0 | number of nan iterations:   0 |"
                % (dtu(run.clk(run.node_of(rank), t)).strftime("%Y-%m-%d %H:%M:%S"), step, run.total_steps, step * run.gbs,
                   it * 1000 * r.uniform(0.97, 1.04), lr, run.gbs, loss, r.uniform(0.2, 1.8)))
    if st == "lightning":
        return tqdm_line("Epoch %d: " % (step // max(1, run.steps_per_epoch)), step % max(1, run.steps_per_epoch) or 1,
                         run.steps_per_epoch, (step % max(1, run.steps_per_epoch) or 1) * it,
                         ", v_num=%d, train_loss=%.3f" % (run.extra.setdefault("v_num", r.randint(0, 40)), loss))
    if st == "ray":
        return "{'loss': %.4f, 'step': %d, 'epoch': %d, 'lr': %.3e}" % (loss, step, step // max(1, run.steps_per_epoch), lr)
    return "step %d/%d | loss %.4f | lr %.3e | grad_norm %.3f | %.2f s/it | %.1fk tok/s" % (
        step, run.total_steps, loss, lr, r.uniform(0.2, 2.0), it * r.uniform(0.97, 1.05),
        run.tok_per_step / (it * 1000.0) * r.uniform(0.95, 1.05))


def progress(run, t_from, t_to, step0=0, per_rank=None, slow_rank=None, slow_factor=1.0):
    """rank-0 (or every rank) training progress between t_from and t_to"""
    r = run.rng
    ranks = per_rank if per_rank is not None else [0]
    if run.launcher == "ray" or run.style == "ray":
        ranks = per_rank if per_rank is not None else [0]
    it = run.iter_s * (slow_factor if slow_rank is not None else 1.0)
    step = step0 + run.log_every
    t = t_from + run.log_every * it
    last = step0
    while t < t_to:
        frac = step / float(run.total_steps)
        loss = run.loss0 * (0.35 + 0.65 * (1.0 - frac) ** 2) + r.uniform(-0.05, 0.05)
        lr = run.lr * min(1.0, step / max(1.0, run.total_steps * 0.02))
        for rk in ranks:
            run.out(t + r.uniform(0, 0.02), rk, train_line(run, rk, step, t, loss, lr), "z")
        if run.extra.get("wandb") and r.random() < 0.02:
            run.err(t, 0, "wandb: WARNING Connection error while uploading file media/table_%d.json: ReadTimeout, retrying" % step, "z")
        last = step
        step += run.log_every
        t += run.log_every * it
    return last


def step_at(run, t, step0=0):
    return step0 + int(max(0.0, t - run.t_train0) / run.iter_s)


def rank_startup(run, rank, t):
    r = run.rng
    node = run.node_of(rank)
    local = run.local_of(rank)
    if r.random() < 0.5 or rank == 0:
        startup_noise(run, rank, t + r.uniform(0.5, 4.0))
    if run.extra.get("sockwarn") and local == 0 and node > 0:
        run.err(t + r.uniform(0.1, 1.0), rank, socket_connect_warning(run, rank, t), "z")
    if run.style == "megatron":
        if rank == 0:
            run.out(t + 1.0, rank, "> initializing torch distributed ...\n> initialized tensor model parallel with size %d\n> initialized pipeline model parallel with size %d"
                    % (min(8, run.gpn), max(1, run.n_nodes // 4)), "z")
    elif run.style == "hf":
        if rank == 0:
            run.out(t + 2.0, rank, tqdm_line("Loading checkpoint shards: ", 4, 4, r.uniform(4, 30)), "z")
    else:
        if r.random() < 0.7:
            run.out(t + r.uniform(0.5, 2.0), rank, "| distributed init (rank %d): env://, gpu %d" % (rank, local)
                    if r.random() < 0.5 else "[rank%d] world_size=%d local_rank=%d device=cuda:%d host=%s" % (rank, run.world, local, local, run.hosts[node]), "z")
    if run.nccl_debug:
        nccl_init_lines(run, rank, run.t_nccl + r.uniform(0, 2.0))
    if rank == 0:
        tp = {"llama-3-8b": "8.03B", "llama-2-13b": "13.02B", "mistral-7b": "7.24B", "gpt-neox-1.3b": "1.41B",
              "vit-h-14": "632.0M", "qwen2-7b": "7.62B", "t5-xl": "2.85B", "gpt2-xl": "1.56B", "olmo-7b": "6.89B",
              "resnet152": "60.2M", "dit-xl-2": "675.1M", "bert-large": "336.2M"}[run.model]
        run.out(t + 3.0, rank, "model %s: %s parameters" % (run.model, tp), "z")
        if run.style == "hf":
            run.out(run.t_train0 - 1.0, rank,
                    "***** Running training *****\n  Num examples = {:,}\n  Num Epochs = 1\n  Instantaneous batch size per device = {}\n"
                    "  Total train batch size (w. parallel, distributed & accumulation) = {}\n  Gradient Accumulation steps = {}\n"
                    "  Total optimization steps = {:,}\n  Number of trainable parameters = {:,}".format(
                        run.total_steps * run.gbs, run.gbs // max(1, run.world), run.gbs, r.choice([1, 2, 4, 8]),
                        run.total_steps, r.randint(300000000, 8100000000)), "z")
        if run.extra.get("wandb"):
            run.err(t + 4.0, rank, "wandb: Currently logged in as: %s (%s-lab). Use `wandb login --relogin` to force relogin\n"
                                   "wandb: Tracking run with wandb version 0.%d.%d\nwandb: Run data is saved locally in /tmp/wandb/run-%s-%s\n"
                                   "wandb: Run `wandb offline` to turn off syncing.\nwandb: Syncing run %s-%s\nwandb: 🚀 View run at https://wandb.ai/%s-lab/%s/runs/%s"
                    % (run.user, run.user, r.choice([16, 17, 18]), r.randint(0, 9), dtu(t).strftime("%Y%m%d_%H%M%S"), b36(r, 8),
                       r.choice(ADJ), r.choice(NOUN), run.user, run.model, b36(r, 8)), "z")


def shutdown_noise(run, rank, t):
    r = run.rng
    if run.tv >= (2, 4) and r.random() < 0.6:
        run.err(t, rank, c10(run, t, rank, "W", "ProcessGroupNCCL.cpp:%d" % src_line(run, "destroy"),
                             "Warning: WARNING: destroy_process_group() was not called before program exit, which can leak resources. "
                             "For more info, please see https://pytorch.org/docs/stable/distributed.html#shutdown (function operator())"), "z")
    if r.random() < 0.15 and rank % max(1, run.gpn) == 0:
        s = run.site()
        run.err(t + 0.2, rank,
                "Exception ignored in: <function _MultiProcessingDataLoaderIter.__del__ at 0x7f%s>\n" % hexs(r, 9) +
                tb([(s + "/torch/utils/data/dataloader.py", r.choice([1477, 1479, 1604]), "__del__", "self._shutdown_workers()"),
                    (s + "/torch/utils/data/dataloader.py", r.choice([1441, 1443, 1568]), "_shutdown_workers", "w.join(timeout=_utils.MP_STATUS_CHECK_INTERVAL)"),
                    ("/usr/lib/python%s/multiprocessing/process.py" % run.py, 149, "join", "assert self._parent_pid == os.getpid(), 'can only join a child process'")],
                   "AssertionError: can only join a child process"), "z")


# --------------------------------------------------------------------------
# cascade: what the rest of the job does after the first failure
# --------------------------------------------------------------------------
import heapq

PLATFORM_KILL_SIG = {
    "skypilot": "sigkill", "ray_train": "sigkill", "modal_clustered": "sigkill",
    "dstack": "sigterm", "determined": "sigterm", "kubeflow_trainjob": "sigterm",
    "flyte_pytorch": "sigterm", "metaflow": "sigterm",
}


def agent_delay(run):
    r = run.rng
    if run.tv >= (2, 4):
        return r.uniform(0.1, 1.2)
    return r.choice([r.uniform(0.1, 1.0), r.uniform(1.0, 5.0)])


def srun_desc(code):
    if code == -9:
        return "Killed"
    if code == -11:
        return "Segmentation fault (core dumped)"
    if code == -6:
        return "Aborted (core dumped)"
    if code == -15:
        return "Terminated"
    if code == -7:
        return "Bus error (core dumped)"
    return "Exited with exit code %d" % code


def cascade(run, ctx):
    r = run.rng
    q = []
    cnt = [0]

    def push(t, kind, arg=None):
        cnt[0] += 1
        heapq.heappush(q, (t, cnt[0], kind, arg))

    stuck = set(ctx.get("stuck", []))
    unkill = set(ctx.get("unkillable", []))
    free = set(ctx.get("free", []))
    S = ctx["S"]
    per = ctx.get("per_rank", {})
    term_sched = set()
    remote_sched = {}
    n_full = [0]
    for rk in sorted(run.exits):
        push(run.exits[rk].t, "exit", rk)
    for rk in range(run.world):
        if rk in run.exits or rk in stuck or rk in free:
            continue
        tb_ = per.get(rk, {}).get("t_block", ctx["t_block"] + r.uniform(0, min(3.0, run.iter_s * 1.5)))
        ran = run.timeout_ms + r.randint(3, 140)
        push(tb_ + ran / 1000.0, "timeout", (rk, ran))
    for n in sorted(run.vanished):
        push(run.vanished[n], "vanish", n)
    pk = PLATFORM_KILL.get(run.layout)
    state = {"plat": False, "store": False, "last": ctx["t_block"]}

    def wd_params(rk):
        p = per.get(rk, {})
        s = p.get("S", S)
        return (s, p.get("op", ctx["op"]), p.get("numel", ctx["numel"]),
                p.get("enq", s + ctx.get("ahead", 0)), p.get("comp", s - 1))

    def schedule_remote(t, dead_node):
        if ctx.get("mode") != "remote":
            return
        cands = [x for x in range(run.world) if run.alive(x) and x not in stuck and x not in free
                 and run.node_of(x) != dead_node and x not in remote_sched and run.node_of(x) not in run.node_end]
        if not cands:
            return
        # ring/tree neighbours of the dead node notice first; not every rank does
        frac = ctx.get("remote_frac", 0.6)
        cands.sort(key=lambda x: min(abs(run.node_of(x) - dead_node), run.n_nodes - abs(run.node_of(x) - dead_node)))
        k = max(1, int(len(cands) * frac))
        for x in cands[:k]:
            d = r.uniform(*ctx.get("remote_delay", (0.5, 45.0)))
            remote_sched[x] = t + d
            push(t + d, "remote", (x, dead_node))

    def node_done(node):
        return node in run.node_end or node in run.vanished

    while q:
        t, _, kind, arg = heapq.heappop(q)
        state["last"] = max(state["last"], t)
        if kind == "exit":
            rk = arg
            ex = run.exits[rk]
            node = run.node_of(rk)
            if node in run.vanished:
                continue
            L = run.launcher
            if L == "torchrun":
                if node not in term_sched and not node_done(node) and ex.why not in ("sigterm_platform", "sigkill_platform"):
                    term_sched.add(node)
                    push(t + agent_delay(run), "agent_term", node)
            elif L == "lightning":
                parent = node * run.gpn
                if rk != parent and run.alive(parent) and node not in term_sched and ex.why not in ("lt_kill", "sigkill_platform"):
                    term_sched.add(node)
                    push(t + r.uniform(0.2, 1.5), "lt_kill", (node, rk))
                if all(not run.alive(x) for x in run.ranks_of(node)) and node not in run.node_end:
                    run.node_end[node] = (t, 1, "lightning")
            elif L == "srun_tasks":
                push(t + r.uniform(0.05, 0.3), "srun_report", rk)
                if run.extra.get("kill_on_bad_exit") and ex.code != 0 and not run.extra.get("srun_killing"):
                    run.extra["srun_killing"] = True
                    push(t + r.uniform(0.4, 1.2), "srun_kill", rk)
                if all(not run.alive(x) for x in run.ranks_of(node)) and node not in run.node_end:
                    run.node_end[node] = (t, 1, "srun")
            elif L == "ray":
                if not run.extra.get("ray_teardown") and ex.why not in ("ray_kill",):
                    run.extra["ray_teardown"] = True
                    run.extra["ray_first"] = rk
                    push(t + r.uniform(0.3, 3.0), "ray_kill", rk)
            if ex.why not in ("sigterm_platform", "sigkill_platform", "ray_kill", "srun_cancel", "user_cancel"):
                schedule_remote(t, node)
        elif kind == "agent_term":
            node = arg
            if node_done(node):
                continue
            loc = [x for x in run.ranks_of(node) if run.alive(x)]
            if loc:
                run.agent(t, node, agent_sigterm_lines(run, t, node, [run.pids[x] for x in loc]))
            tl = t
            for x in loc:
                if x in unkill:
                    tk = t + 30.0 + r.uniform(0.0, 0.5)
                    run.agent(tk, node, elastic_log(run, tk, node, "W", "torch.distributed.elastic.multiprocessing.api", 920,
                                                    "Unable to shutdown process %d via Signals.SIGTERM, forcefully exiting via Signals.SIGKILL" % run.pids[x]))
                    run.kill(x, tk + 0.01, -9, "sigkill_agent")
                else:
                    run.kill(x, t + r.uniform(0.02, 1.5), -15, "sigterm_agent")
                push(run.exits[x].t, "exit", x)
                tl = max(tl, run.exits[x].t)
            push(tl + r.uniform(0.1, 2.0), "agent_summary", node)
        elif kind == "agent_summary":
            node = arg
            if node_done(node):
                continue
            loc = sorted([(x, run.exits[x]) for x in run.ranks_of(node) if x in run.exits], key=lambda p: (p[1].t, p[0]))
            if not loc:
                continue
            nonterm = [p for p in loc if p[1].why not in ("sigterm_agent", "sigkill_agent")]
            root = nonterm[0] if nonterm else loc[0]
            others = sorted([p for p in loc if p[0] != root[0]], key=lambda p: p[0])
            run.agent(t, node, agent_failed_line(run, t, node, run.local_of(root[0]), run.pids[root[0]], root[1].code))
            run.agent(t + 0.02, node, child_failed_text(run, node, t, root, others, run.script_name))
            run.node_end[node] = (t + 0.03, 1, "summary")
            if node == 0 and not state["store"]:
                state["store"] = True
                push(t + r.uniform(0.05, 3.0), "store_gone", None)
            if pk and not state["plat"]:
                state["plat"] = True
                push(t + r.uniform(*pk), "plat_kill", node)
            if run.launcher == "torchrun" and run.layout == "accelerate_slurm" and run.extra.get("kill_on_bad_exit") \
                    and not run.extra.get("srun_killing"):
                run.extra["srun_killing"] = True
                push(t + r.uniform(0.1, 1.0), "srun_kill_nodes", node)
        elif kind == "timeout":
            rk, ran = arg
            if not run.alive(rk) or run.node_of(rk) in run.node_end:
                continue
            s, op, numel, enq, comp = wd_params(rk)
            first = not run.dump_done
            full = n_full[0] < (24 if run.world > 32 else 10 ** 6)
            n_full[0] += 1
            run.err(t, rk, watchdog_block(run, rk, t, s, op, numel, enq, comp, ran, full=full, first=first))
            if first:
                run.dump_done = True
                run.first_timeout_rank = rk
                if run.tv >= (2, 4):
                    push(t + r.uniform(0.01, 0.12), "dump", rk)
            run.kill(rk, t + r.uniform(0.05, 0.6), -6, "watchdog")
            push(run.exits[rk].t, "exit", rk)
        elif kind == "dump":
            src = arg
            alive = [x for x in range(run.world) if run.alive(x) and x != src and run.node_of(x) not in run.node_end]
            if len(alive) > 48:
                keep = set(x for x in alive if x in stuck or run.node_of(x) == run.node_of(src))
                rest = [x for x in alive if x not in keep]
                keep.update(r.sample(rest, min(len(rest), max(0, 40 - len(keep)))))
                alive = sorted(keep)
            for x in alive:
                s, op, numel, enq, comp = wd_params(x)
                if x in stuck:
                    enq, comp = per.get(x, {}).get("enq", s - 1), per.get(x, {}).get("comp", s - 1)
                run.err(t + r.uniform(0.0, 0.05), x, dump_signal_lines(run, x, t, src, enq, comp))
                if x in stuck:
                    run.extra.setdefault("dump_printed", []).append(x)
        elif kind == "remote":
            rk, dead = arg
            if not run.alive(rk) or run.node_of(rk) in run.node_end:
                continue
            le = ctx.get("last_error") or nccl_last_error(run, run.ips[dead], run.ips[run.node_of(rk)], "retry")
            if run.nccl_warn:
                run.err(t - 0.02, rk, nccl_warn(run, rk, le) + "\n" +
                        nccl_info(run, rk, "transport/net.cc:%d -> 6" % run.pick("[1298, 1085, 1312]", [1298, 1085, 1312]), r.randint(60, 400)))
            run.err(t, rk, remote_error_block(run, rk, t, le, ctx.get("errtype", "remote")))
            run.kill(rk, t + r.uniform(0.05, 0.5), -6, "remote")
            push(run.exits[rk].t, "exit", rk)
        elif kind == "store_gone":
            if run.tv < (2, 3):
                continue
            alive = [x for x in range(run.world) if run.alive(x) and run.node_of(x) != 0 and run.node_of(x) not in run.node_end]
            for x in (alive if len(alive) <= 24 else r.sample(alive, 24)):
                run.err(t + r.uniform(0, 8.0), x, tcpstore_reset_lines(run, x, t))
        elif kind == "vanish":
            node = arg
            for x in run.ranks_of(node):
                if run.alive(x):
                    run.kill(x, t, -9, "vanished")
            run.node_end[node] = (t, 137, "vanished")
            schedule_remote(t, node)
            if run.launcher == "ray" and not run.extra.get("ray_teardown"):
                run.extra["ray_teardown"] = True
                run.extra["ray_first"] = run.ranks_of(node)[0]
                push(t + r.uniform(1.0, 30.0), "ray_kill", run.ranks_of(node)[0])
            if pk and not state["plat"]:
                state["plat"] = True
                push(t + r.uniform(*pk) * 4, "plat_kill", node)
        elif kind == "plat_kill":
            how = PLATFORM_KILL_SIG.get(run.layout, "sigterm")
            for node in range(run.n_nodes):
                if node_done(node):
                    continue
                tn = t + r.uniform(0.0, 1.0)
                alive = [x for x in run.ranks_of(node) if run.alive(x)]
                if run.launcher == "torchrun" and how == "sigterm":
                    run.agent(tn, node, agent_signal_exception(run, tn, node))
                for x in alive:
                    run.kill(x, tn + r.uniform(0.01, 0.8), -15 if how == "sigterm" else -9,
                             "sigterm_platform" if how == "sigterm" else "sigkill_platform")
                run.node_end[node] = (tn + 0.9, 143 if how == "sigterm" else 137, "platform")
        elif kind == "srun_report":
            rk = arg
            ex = run.exits[rk]
            desc = "Out Of Memory" if (run.extra.get("srun_oom") == rk and ex.why == "cause") else srun_desc(ex.code)
            run.plat(t, "srun: error: %s: task %d: %s" % (run.hosts[run.node_of(rk)], rk, desc), None, "err")
        elif kind in ("srun_kill", "srun_kill_nodes"):
            run.plat(t, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.", None, "err")
            for node in range(run.n_nodes):
                alive = [x for x in run.ranks_of(node) if run.alive(x)]
                if kind == "srun_kill_nodes" and node_done(node):
                    continue
                if not alive and kind == "srun_kill":
                    continue
                tn = t + r.uniform(0.0, 0.5)
                run.plat(tn, "slurmstepd: error: *** STEP %s.0 ON %s CANCELLED AT %s ***"
                         % (run.jobid, run.hosts[node], ts_slurm(run.clk(node, tn))), node, "err")
                if run.launcher == "torchrun" and alive:
                    run.agent(tn + 0.01, node, agent_signal_exception(run, tn + 0.01, node))
                for x in alive:
                    run.kill(x, tn + r.uniform(0.01, 1.0), -15, "srun_cancel")
                    if run.launcher == "srun_tasks":
                        push(run.exits[x].t, "srun_report", x)
                if node not in run.node_end:
                    run.node_end[node] = (tn + 1.0, 143, "srun_cancel")
        elif kind == "lt_kill":
            node, child = arg
            parent = node * run.gpn
            if not run.alive(parent):
                continue
            ex = run.exits[child]
            run.err(t, parent, "[rank: %d] Child process with PID %d terminated with code %d. Forcefully terminating all other processes to avoid zombies 🧟"
                    % (parent, run.pids[child], shell_code(ex.code) if ex.code < 0 and r.random() < 0.3 else ex.code))
            for x in run.ranks_of(node):
                if run.alive(x):
                    run.kill(x, t + r.uniform(0.01, 0.2), -9, "lt_kill")
            run.node_end[node] = (t + 0.3, 137, "lightning")
        elif kind == "ray_kill":
            run.extra["ray_fail_t"] = t
            for x in range(run.world):
                if run.alive(x):
                    run.kill(x, t + r.uniform(0.01, 1.5), -9, "ray_kill")
            for node in range(run.n_nodes):
                if node not in run.node_end:
                    run.node_end[node] = (t + 1.6, 1, "ray")
    # anything still alive is a hung job that somebody eventually cancels
    left = [x for x in range(run.world) if run.alive(x)]
    if left:
        tc = state["last"] + r.uniform(300, 2400)
        run.extra["user_cancel_t"] = tc
        for x in left:
            run.kill(x, tc + r.uniform(0, 1), -15, "user_cancel")
        for node in range(run.n_nodes):
            if node not in run.node_end:
                run.node_end[node] = (tc + 1.0, 143, "user_cancel")
    run.t_end = max([e.t for e in run.exits.values()] + [v[0] for v in run.node_end.values()])


# --------------------------------------------------------------------------
# kernel / nvidia-smi evidence
# --------------------------------------------------------------------------
def kmsg(run, node, t, text):
    run.kern.setdefault(node, []).append((t, text))


def gpu_uuid(run, node, local):
    key = ("uuid", node, local)
    if key not in run.extra:
        r = run.rng
        run.extra[key] = "GPU-%s-%s-%s-%s-%s" % (hexs(r, 8), hexs(r, 4), hexs(r, 4), hexs(r, 4), hexs(r, 12))
    return run.extra[key]


def kernel_background(run, node):
    """harmless kernel chatter the user's dmesg will also contain"""
    r = run.rng
    t0 = run.t0 - r.uniform(3600 * 2, 3600 * 24 * 9)
    L = [(t0, "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  %s  %s" % (
        r.choice(["535.183.01", "550.90.07", "550.127.05", "560.35.03", "570.86.15"]),
        r.choice(["Thu Jun 27 14:44:53 UTC 2024", "Tue Oct  1 21:28:04 UTC 2024", "Fri Jan 24 02:10:43 UTC 2025"]))),
        (t0 + 9.4, "EXT4-fs (nvme0n1p1): mounted filesystem with ordered data mode. Opts: (null). Quota mode: none."),
        (t0 + 15.2, "IPv6: ADDRCONF(NETDEV_CHANGE): %s: link becomes ready" % run.ifname)]
    if run.gpn == 8 and run.nvlink_capable:
        L.append((t0 + 3.1, "nvidia-nvswitch: Probing device 0000:%02x:00.0, Vendor Id = 0x10de, Device Id = 0x22a3, Class = 0x068000" % r.choice([5, 6, 7, 8])))
    if run.fabric in ("ib", "roce"):
        L.append((t0 + 12.0, "mlx5_core 0000:%s:00.0: mlx5_pcie_event:301:(pid %d): PCIe slot advertised sufficient power (27W)." % (r.choice(["0c", "1a", "9a", "ca"]), r.randint(300, 900))))
    for k in range(r.randint(0, 3)):
        L.append((run.t0 + r.uniform(-3000, 600), "audit: type=1400 audit(%d.%03d:%d): apparmor=\"DENIED\" operation=\"open\" profile=\"snap.amazon-ssm-agent.amazon-ssm-agent\" name=\"/proc/%d/mountinfo\" pid=%d comm=\"ssm-agent-worke\" requested_mask=\"r\" denied_mask=\"r\" fsuid=0 ouid=0"
                  % (int(run.t0), r.randint(0, 999), r.randint(100, 9999), r.randint(1000, 99999), r.randint(1000, 99999))))
    if r.random() < 0.5:
        L.append((run.t0 + r.uniform(10, 600), "nvidia-peermem nv_get_p2p_free_callback:127 ERROR detected invalid context, skipping further processing"))
    if r.random() < 0.4:
        L.append((run.t0 + r.uniform(100, 2000), "NVRM: Xid (PCI:%s): 92, pid='<unknown>', name=<unknown>, High single-bit ECC error rate" % run.pci(r.randint(0, run.gpn - 1))))
    return L


def render_kernel(run, node, style=None, host=None):
    r = run.rng
    lines = kernel_background(run, node) + run.kern.get(node, [])
    lines.sort(key=lambda p: p[0])
    style = style or r.choice(["T", "raw", "journal"])
    boot = run.t0 - r.uniform(3600 * 30, 3600 * 24 * 20)
    host = host or run.hosts[node]
    out = []
    for t, txt in lines:
        tt = run.clk(node, t)
        if style == "T":
            out.append("[%s] %s" % (ts_dmesg_T(tt), txt))
        elif style == "raw":
            out.append("[%12.6f] %s" % (tt - boot, txt))
        else:
            out.append("%s %s kernel: %s" % (ts_journal(tt), host, txt))
    return out


def nvsmi_lost(run, node, local):
    bus = run.bus(local).upper()
    return ["Unable to determine the device handle for GPU0000:%s:00.0: GPU is lost.  Reboot the system to recover this GPU" % bus]


def nvsmi_table(run, node, t, bad_local=None, bad_kind=None, clocks=None):
    r = run.rng
    d = dtu(run.clk(node, t))
    L = [d.strftime("%a %b %d %H:%M:%S %Y").replace(" 0", "  ", 1) if False else d.strftime("%a %b %d %H:%M:%S %Y"),
         "+-----------------------------------------------------------------------------------------+",
         "| NVIDIA-SMI 550.90.07              Driver Version: 550.90.07      CUDA Version: %s     |" % run.cuda,
         "|-----------------------------------------+------------------------+----------------------+",
         "| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |",
         "| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |",
         "|                                         |                        |               MIG M. |",
         "|=========================================+========================+======================|"]
    name = run.gpu.replace("NVIDIA ", "NVIDIA ")[:20]
    for g in range(run.gpn):
        ecc = "0"
        temp = r.randint(31, 44)
        pwr = r.randint(65, 120)
        perf = "P0"
        if bad_local == g and bad_kind == "ecc":
            ecc = str(r.randint(1, 4))
        if bad_local == g and bad_kind == "hot":
            temp = r.randint(86, 93)
            perf = "P2"
        L.append("|   %d  %-20s    On  |   00000000:%s:00.0 Off |                  %3s |" % (g, name, run.bus(g).upper(), ecc))
        L.append("| N/A   %2dC    %s            %3dW /  700W |       1MiB /  81559MiB |      0%%      Default |" % (temp, perf, pwr))
        L.append("|                                         |                        |             Disabled |")
        L.append("+-----------------------------------------+------------------------+----------------------+")
    return L


# --------------------------------------------------------------------------
# causes
# --------------------------------------------------------------------------
def pick_rank(run, avoid0=False):
    r = run.rng
    if getattr(run, "force_rank", None) is not None:
        return run.force_rank
    x = r.random()
    if x < 0.15 and not avoid0:
        k = 0
    elif x < 0.3:
        k = run.world - 1
    else:
        k = r.randint(1 if run.world > 1 else 0, run.world - 1)
    run._picked = k
    return k


def mk_ctx(run, t_fail):
    r = run.rng
    st = step_at(run, t_fail, run.step0)
    S = run.seq_base + st * run.coll_per_step + r.randint(0, max(0, run.coll_per_step - 1))
    op = r.choice(["ALLREDUCE", "ALLREDUCE", "ALLREDUCE", "_ALLGATHER_BASE", "_REDUCE_SCATTER_BASE", "BROADCAST", "ALLGATHER"])
    numel = r.choice([1, 1, 262144000, 26214400, 67108864, 16777216, 131072000, 8388608, 4194304])
    return {"S": S, "op": op, "numel": numel, "t_block": t_fail + r.uniform(0.01, max(0.05, run.iter_s)),
            "mode": "watchdog", "ahead": r.choice([0, 0, 1, 2, 4])}


def crash_mode(run, ctx):
    r = run.rng
    ctx["mode"] = "remote" if (run.n_nodes > 1 and r.random() < 0.45) else "watchdog"
    ctx["remote_frac"] = r.uniform(0.3, 0.9)


def cuda_err_text(msg, dsa=True):
    s = ("%s\nCUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\n"
         "For debugging consider passing CUDA_LAUNCH_BLOCKING=1" % msg)
    if dsa:
        s += "\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n"
    return s


def cuda_watchdog_block(run, rk, t, msg):
    """an async CUDA error surfacing in the NCCL watchdog thread -> abort"""
    p = "ProcessGroupNCCL.cpp:%d"
    body = cuda_err_text("CUDA error: " + msg)
    if run.tv >= (2, 2):
        head = "%s Process group watchdog thread terminated with exception: CUDA error: %s" % (pg_prefix(run, rk), msg)
        L = [c10(run, t, rk, "E", p % src_line(run, "terminated"), head)]
        L += body.split("\n")[1:]
        L.append("Exception raised from c10_cuda_check_implementation at %s/c10/cuda/CUDAException.cpp:43 (most recent call first):"
                 % ("/pytorch" if run.tv >= (2, 5) else ".."))
        L.append(c10_frames(run, "cuda"))
        L.append("")
        L.append("terminate called after throwing an instance of 'c10::DistBackendError'")
        L.append("  what():  " + head)
        L += body.split("\n")[1:]
    else:
        L = ["terminate called after throwing an instance of 'c10::Error'", "  what():  CUDA error: %s" % msg]
        L += body.split("\n")[1:]
        L.append("Exception raised from c10_cuda_check_implementation at ../c10/cuda/CUDAException.cpp:44 (most recent call first):")
        L.append(c10_frames(run, "cuda"))
    return "\n".join(L)


def py_raise(run, rk, t, what, exc, pre=None, kind="k"):
    """an uncaught Python exception on one rank (with the platform's wrapper frames)"""
    fr = platform_frames(run) + user_frames(run, what)
    txt = tb(fr, exc)
    if pre:
        txt = pre + "\n" + txt
    if run.layout in ("submitit", "hydra_submitit"):
        wrap = ""
        if run.layout == "hydra_submitit":
            wrap = "Error executing job with overrides: %s\n" % run.extra.get("overrides_repr", "[]")
        txt = wrap + "submitit ERROR (%s) - Submitted job triggered an exception\n" % ts_py(run.clk(run.node_of(rk), t)) + txt
    run.err(t, rk, txt, kind)


def c_gpu_hardware(run, ctx, t):
    r = run.rng
    rk = pick_rank(run)
    node, loc = run.node_of(rk), run.local_of(rk)
    pci = run.pci(loc)
    xid = run.extra.setdefault("hw_xid", r.choice([79, 79, 79, 119, 120, 62]))
    pid = run.pids[rk]
    kt = t - r.uniform(0.0, 2.0)
    if xid == 79:
        for i, s in enumerate(["NVRM: GPU at PCI:%s: %s" % (pci, gpu_uuid(run, node, loc)),
                               "NVRM: GPU Board Serial Number: 1%012d" % r.randint(0, 10 ** 12 - 1),
                               "NVRM: Xid (PCI:%s): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus." % pci,
                               "NVRM: GPU %s.0: GPU has fallen off the bus." % pci,
                               "NVRM: A GPU crash dump has been created. If possible, please run",
                               "NVRM: nvidia-bug-report.sh as root to collect this data before",
                               "NVRM: the NVIDIA kernel module is unloaded."]):
            kmsg(run, node, kt + i * 0.0001, s)
        if r.random() < 0.5:
            kmsg(run, node, kt + 0.2, "NVRM: Xid (PCI:%s): 154, pid='<unknown>', name=<unknown>, GPU recovery action changed from 0x0 (None) to 0x2 (Node Reboot Required)" % pci)
        variant = r.choice(["err", "err", "stuck"])
        msg = r.choice(["unknown error", "unspecified launch failure"])
    elif xid in (119, 120):
        if xid == 119:
            kmsg(run, node, kt, "NVRM: Xid (PCI:%s): 119, pid=%d, name=python, Timeout after 6s of waiting for RPC response from GPU%d GSP! Expected function 76 (GSP_RM_CONTROL) (0x20800a4c 0x4)." % (pci, pid, loc))
            kmsg(run, node, kt + 0.001, "NVRM: GPU%d GSP RPC buffer contains function 76 (GSP_RM_CONTROL) and data 0x0000000020800a4c 0x0000000000000004." % loc)
            kmsg(run, node, kt + 0.002, "NVRM: GPU%d RPC history (CPU -> GSP):" % loc)
            kmsg(run, node, kt + 0.003, "NVRM:     entry function                   data0              data1              ts_start           ts_end             duration actively_polling")
            kmsg(run, node, kt + 0.004, "NVRM:      0    76   GSP_RM_CONTROL        0x0000000020800a4c 0x0000000000000004 0x00061a%010x 0x0000000000000000          y" % r.randint(0, 16 ** 9))
            kmsg(run, node, kt + 48.0, "NVRM: Rate limiting GSP RPC error prints for GPU at PCI:%s (printing 1 of every 30).  The GPU likely needs to be reset." % pci)
        else:
            kmsg(run, node, kt, "NVRM: Xid (PCI:%s): 120, pid=%d, name=python, GSP task timeout @ pc:0x%x, task: 1" % (pci, pid, r.randint(0x400000, 0x4fffff)))
            kmsg(run, node, kt + 0.001, "NVRM:     Reported by libos task:0 v2.0 [0] @ ts:%d" % r.randint(10 ** 9, 2 * 10 ** 9))
        variant = r.choice(["stuck", "err"])
        msg = "unspecified launch failure"
    else:
        kmsg(run, node, kt, "NVRM: Xid (PCI:%s): 62, pid=%d, name=python, %s" % (pci, pid, " ".join("%08x" % r.randint(0, 2 ** 20) for _ in range(8))))
        variant = "err"
        msg = "unspecified launch failure"
    crash_mode(run, ctx)
    if variant == "stuck":
        ctx["stuck"] = [rk]
        ctx["unkillable"] = [rk]
        ctx["per_rank"] = {rk: {"enq": ctx["S"] - 1, "comp": ctx["S"] - 2}}
        ctx["mode"] = "watchdog"
        app_evidence = False
    else:
        if r.random() < 0.5:
            if run.nccl_warn:
                run.err(t - 0.01, rk, nccl_warn(run, rk, "Cuda failure '%s'" % msg))
            run.err(t, rk, cuda_watchdog_block(run, rk, t, msg), "k")
            run.kill(rk, t + r.uniform(0.1, 0.6), -6, "cause")
        else:
            py_raise(run, rk, t, "backward", "RuntimeError: " + cuda_err_text("CUDA error: %s" % msg).rstrip("\n"))
            run.kill(rk, t + r.uniform(0.3, 2.0), 1, "cause")
        app_evidence = True
    # evidence a user would attach
    ev = r.random()
    run.kern_show.add(node)
    if ev < 0.35:
        run.add_attach("nvidia-smi", [("%s" % run.hosts[node], nvsmi_lost(run, node, loc))])
    est_rank = app_evidence or run.nccl_debug or (xid != 79 and run.launcher == "torchrun")
    run.init_rank = rk if est_rank else None
    run.init_node = node
    run.notes.append("GPU %d on %s (rank %d) hit Xid %d (%s); %s" % (
        loc, run.hosts[node], rk, xid, {79: "fallen off the bus", 119: "GSP RPC timeout", 120: "GSP error", 62: "internal micro-controller halt"}[xid],
        "the process hung in the driver and could not be killed with SIGTERM" if variant == "stuck" else "the rank's next CUDA call failed (%s)" % msg))


def c_ecc_memory(run, ctx, t):
    r = run.rng
    rk = pick_rank(run)
    node, loc = run.node_of(rk), run.local_of(rk)
    pci = run.pci(loc)
    pid = run.pids[rk]
    kind = run.extra.setdefault("ecc_kind", r.choice(["dbe", "dbe", "xid94", "xid95", "remapfail"]))
    kt = t - r.uniform(0.0, 0.5)
    if kind == "dbe":
        kmsg(run, node, kt, "NVRM: Xid (PCI:%s): 48, pid=%d, name=python, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition %d, subpartition %d." % (pci, pid, r.randint(0, 11), r.randint(0, 1)))
        kmsg(run, node, kt + 0.01, "NVRM: Xid (PCI:%s): 63, pid=%d, name=python, Row Remapper: New row (0x%09x) marked for remapping, reset gpu to activate." % (pci, pid, r.randint(0, 2 ** 32)))
    elif kind == "xid94":
        kmsg(run, node, kt, "NVRM: Xid (PCI:%s): 94, pid=%d, name=python, Contained: SM (0x1). RST: No, D-RST: No" % (pci, pid))
        kmsg(run, node, kt + 0.01, "NVRM: Xid (PCI:%s): 63, pid=%d, name=python, Row Remapper: New row (0x%09x) marked for remapping, reset gpu to activate." % (pci, pid, r.randint(0, 2 ** 32)))
    elif kind == "xid95":
        kmsg(run, node, kt, "NVRM: Xid (PCI:%s): 95, pid=%d, name=python, Uncontained: FBHUB. RST: Yes, D-RST: No" % (pci, pid))
    else:
        kmsg(run, node, kt, "NVRM: Xid (PCI:%s): 48, pid=%d, name=python, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition %d, subpartition %d." % (pci, pid, r.randint(0, 11), r.randint(0, 1)))
        kmsg(run, node, kt + 0.01, "NVRM: Xid (PCI:%s): 64, pid=%d, name=python, Row Remapper Error: remapping failed, no spare rows in bank %d" % (pci, pid, r.randint(0, 15)))
    crash_mode(run, ctx)
    msg = "uncorrectable ECC error encountered"
    if r.random() < 0.5:
        run.err(t, rk, cuda_watchdog_block(run, rk, t, msg), "k")
        run.kill(rk, t + r.uniform(0.1, 0.6), -6, "cause")
    else:
        py_raise(run, rk, t, r.choice(["forward", "backward"]), "RuntimeError: " + cuda_err_text("CUDA error: %s" % msg).rstrip("\n"))
        run.kill(rk, t + r.uniform(0.3, 2.0), 1, "cause")
    if kind == "xid95":
        # uncontained: other contexts on that GPU die too; on the node the other ranks see it as well
        for x in run.ranks_of(node):
            if x != rk and run.alive(x) and r.random() < 0.3:
                run.err(t + r.uniform(0.05, 0.5), x, cuda_watchdog_block(run, x, t + 0.3, msg))
                run.kill(x, t + r.uniform(0.6, 1.2), -6, "cause2")
    if r.random() < 0.6:
        run.kern_show.add(node)
    if r.random() < 0.4 or node not in run.kern_show:
        run.add_attach("nvidia-smi-q", [(run.hosts[node], [
            "GPU 00000000:%s:00.0" % run.bus(loc).upper(),
            "    ECC Mode",
            "        Current                           : Enabled",
            "        Pending                           : Enabled",
            "    ECC Errors",
            "        Volatile",
            "            SRAM Correctable              : 0",
            "            SRAM Uncorrectable Parity     : 0",
            "            SRAM Uncorrectable SEC-DED    : 0",
            "            DRAM Correctable              : %d" % r.randint(0, 40),
            "            DRAM Uncorrectable            : %d" % r.randint(1, 3),
            "    Retired Pages",
            "        Single Bit ECC                    : N/A",
            "        Double Bit ECC                    : N/A",
            "        Pending Page Blacklist            : N/A",
            "    Remapped Rows",
            "        Correctable Error                 : 0",
            "        Uncorrectable Error               : %d" % r.randint(1, 3),
            "        Pending                           : Yes",
            "        Remapping Failure Occurred        : %s" % ("Yes" if kind == "remapfail" else "No"),
        ])])
    run.init_rank = rk
    run.init_node = node
    run.notes.append("uncorrectable ECC error on GPU %d of %s (rank %d, %s); the CUDA context was poisoned and the rank died, the rest followed" % (loc, run.hosts[node], rk, kind))


def c_nvlink(run, ctx, t):
    r = run.rng
    node = run.node_of(pick_rank(run))
    nloc = run.gpn
    bad = sorted(r.sample(range(nloc), min(nloc, r.choice([1, 1, 2]))))
    kt = t - r.uniform(0.0, 1.0)
    sw = r.random() < 0.4
    for g in bad:
        kmsg(run, node, kt + g * 0.001, "NVRM: Xid (PCI:%s): 74, pid=%d, name=python, NVLink: fatal error detected on link %d(0x0, 0x0, 0x%x, 0x0, 0x0, 0x0, 0x0)"
             % (run.pci(g), run.pids[node * run.gpn + g], r.randint(0, 17), r.choice([0x10000, 0x20000, 0x4000000])))
    if sw:
        swn = r.randint(0, 3)
        kmsg(run, node, kt - 0.01, "nvidia-nvswitch%d: SXid (PCI:0000:%02x:00.0): 20034, Fatal, Link %d LTSSM Fault Up" % (swn, r.choice([5, 6, 7, 8]), r.randint(0, 63)))
        kmsg(run, node, kt - 0.009, "nvidia-nvswitch%d: SXid (PCI:0000:%02x:00.0): 20034, Severity 1 Engine instance %d Sub-engine instance 00" % (swn, r.choice([5, 6, 7, 8]), r.randint(0, 63)))
        kmsg(run, node, kt - 0.008, "nvidia-nvswitch%d: SXid (PCI:0000:%02x:00.0): 20034, Data {0x%08x, 0x%08x, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000}" % (swn, r.choice([5, 6, 7, 8]), r.randint(0, 2 ** 31), r.randint(0, 2 ** 31)))
    crash_mode(run, ctx)
    ranks = [node * run.gpn + g for g in bad]
    msg = "uncorrectable NVLink error detected during the execution"
    first = None
    for i, rk in enumerate(ranks):
        tt = t + i * r.uniform(0.001, 0.3)
        if r.random() < 0.5:
            le = "Cuda failure '%s'" % msg
            if run.nccl_warn:
                run.err(tt - 0.001, rk, nccl_warn(run, rk, "Cuda failure '%s'" % msg))
            run.err(tt, rk, remote_error_block(run, rk, tt, le, "cuda"), "k")
            run.kill(rk, tt + r.uniform(0.05, 0.4), -6, "cause")
        else:
            run.err(tt, rk, cuda_watchdog_block(run, rk, tt, msg), "k")
            run.kill(rk, tt + r.uniform(0.05, 0.4), -6, "cause")
        if first is None:
            first = rk
    if r.random() < 0.35:
        lines = []
        for g in range(run.gpn):
            lines.append("GPU %d: %s (UUID: %s)" % (g, run.gpu, gpu_uuid(run, node, g)))
            for l in range(r.choice([12, 18])):
                lines.append("\t Link %d: %s" % (l, "<inactive>" if (g in bad and l == 3) else "26.562 GB/s"))
        run.add_attach("nvidia-smi-nvlink", [(run.hosts[node], lines)])
    run.kern_show.add(node)
    run.init_node = node
    run.init_rank = first if len(ranks) == 1 else None
    run.notes.append("NVLink fatal error (Xid 74%s) on %s GPU(s) %s; ranks %s failed with NCCL/CUDA NVLink errors, everyone else was collateral"
                     % (", NVSwitch SXid 20034" if sw else "", run.hosts[node], bad, ranks))


def c_network(run, ctx, t):
    r = run.rng
    node = run.node_of(pick_rank(run)) if run.n_nodes > 1 else 0
    if run.n_nodes > 1 and node == 0 and r.random() < 0.6:
        node = r.randint(1, run.n_nodes - 1)
    ip = run.ips[node]
    kt = t - r.uniform(0.5, 8.0)
    dev = r.randint(0, 7 if "H100" in run.gpu or "H200" in run.gpu else 3)
    if run.fabric == "ib":
        bus = r.choice(["0c", "1a", "3f", "9a", "ca", "da"])
        kmsg(run, node, kt, "mlx5_core 0000:%s:00.0: mlx5_port_module_event:%d:(pid 0): Port module event[error]: module %d, Cable error, Bus stuck (I2C or data shorted)"
             % (bus, r.choice([1137, 1138, 1145]), dev) if r.random() < 0.4 else
             "mlx5_core 0000:%s:00.0: mlx5_port_module_event:%d:(pid 0): Port module event: module %d, Cable unplugged" % (bus, r.choice([1137, 1138, 1145]), dev))
        kmsg(run, node, kt + 0.02, "mlx5_core 0000:%s:00.0 ibp%ds0: Link down" % (bus, int(bus, 16)))
        hca = "mlx5_%d" % dev
    elif run.fabric == "roce":
        bus = r.choice(["0c", "1a", "3f", "9a", "ca", "da"])
        kmsg(run, node, kt, "mlx5_core 0000:%s:00.0 ens%df0np0: Link down" % (bus, r.randint(1, 12)))
        kmsg(run, node, kt + 3.1, "mlx5_core 0000:%s:00.0: mlx5_fw_tracer_handle_traces:%d:(pid %d): FW tracer: lane 0 link down (local fault)" % (bus, r.randint(700, 799), r.randint(100, 9999)))
        hca = "mlx5_%d" % dev
    elif run.fabric == "efa":
        kmsg(run, node, kt, "efa 0000:%02x:00.0: Failed to process command %s (opcode %d) comp_status %d err -%d" % (r.randint(0x10, 0xaf), r.choice(["DESTROY_QP", "MODIFY_QP"]), r.choice([2, 11]), r.choice([5, 6]), r.choice([5, 22, 110])))
        kmsg(run, node, kt + 0.4, "efa 0000:%02x:00.0: Device reset, reason: %d" % (r.randint(0x10, 0xaf), r.choice([2, 4])))
        hca = None
    else:
        kmsg(run, node, kt, "NETDEV WATCHDOG: %s (ena): transmit queue %d timed out %d ms" % (run.ifname, r.randint(0, 7), r.randint(5000, 9000)))
        kmsg(run, node, kt + 0.2, "ena 0000:00:05.0 %s: Found a Tx that wasn't completed on time, qid %d, index %d. %d msecs since last interrupt" % (run.ifname, r.randint(0, 7), r.randint(0, 1023), r.randint(5000, 30000)))
        kmsg(run, node, kt + 0.3, "ena 0000:00:05.0 %s: Trigger reset is on" % run.ifname)
        hca = None
    # the node whose link died sees its own work requests flushed
    for x in run.ranks_of(node):
        tt = t + r.uniform(0.0, 20.0)
        peer = run.ips[(node + r.randint(1, run.n_nodes - 1)) % run.n_nodes] if run.n_nodes > 1 else ip
        le = nccl_last_error(run, peer, ip, "flush", hca)
        if run.nccl_warn:
            run.err(tt - 0.01, x, nccl_warn(run, x, le) + "\n" + nccl_info(run, x, "transport/net_ib.cc:%d -> 6" % run.pick("[1711, 1802, 2044]", [1711, 1802, 2044]) if run.fabric in ("ib", "roce") else "transport/net.cc:1298 -> 6"))
        run.err(tt, x, remote_error_block(run, x, tt, le, "remote" if run.fabric != "socket" else "system"), "k")
        run.kill(x, tt + r.uniform(0.05, 0.5), -6, "cause")
    ctx["mode"] = "remote"
    ctx["remote_frac"] = r.uniform(0.5, 1.0)
    ctx["remote_delay"] = (0.2, 30.0)
    ctx["last_error"] = None
    ctx["errtype"] = "remote" if run.fabric != "socket" else "system"
    if r.random() < 0.55:
        run.kern_show.add(node)
    run.init_node = node if (node in run.kern_show or run.layout in ("skypilot", "ray_train") or run.nccl_debug) else None
    run.init_rank = None
    run.notes.append("%s link failure on %s (%s): its own ranks saw flushed/aborted work requests, peers on other nodes reported completions with errors naming %s"
                     % ({"ib": "InfiniBand", "roce": "RoCE", "efa": "EFA", "socket": "TCP/ENA"}[run.fabric], run.hosts[node], ip, ip))


def oom_text(run, loc, need_gib):
    r = run.rng
    tot = run.gpu_mem
    free = r.uniform(0.05, min(need_gib * 0.9, 3.0))
    inuse = tot - free - r.uniform(0.2, 0.7)
    alloc = inuse - r.uniform(0.8, 6.0)
    res = inuse - alloc - r.uniform(0.1, 0.5)
    if run.tv >= (2, 4):
        return ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate %.2f GiB. GPU %d has a total capacity of %.2f GiB of which %.2f GiB is free. "
                "Including non-PyTorch memory, this process has %.2f GiB memory in use. Of the allocated memory %.2f GiB is allocated by PyTorch, and %.2f GiB is "
                "reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to "
                "avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)"
                % (need_gib, loc, tot, free, inuse, alloc, max(0.01, res)))
    return ("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate %.2f GiB. GPU %d has a total capacty of %.2f GiB of which %.2f GiB is free. "
            "Process %d has %.2f GiB memory in use. Of the allocated memory %.2f GiB is allocated by PyTorch, and %.2f GiB is reserved by PyTorch but unallocated. "
            "If reserved but unallocated memory is large try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF"
            % (need_gib, loc, tot, free, r.randint(1000, 99999), inuse, alloc, max(0.01, res)))


def c_cuda_oom(run, ctx, t):
    r = run.rng
    rk = pick_rank(run)
    loc = run.local_of(rk)
    crash_mode(run, ctx)
    what = r.choice(["forward", "backward", "oom", "eval"])
    txt = oom_text(run, loc, r.choice([0.5, 1.0, 1.95, 2.5, 3.91, 7.83, 15.66, 448.0 / 1024, 1.12]))
    pre = None
    if r.random() < 0.3:
        pre = "[rank%d] step %d: packed batch of %d tokens (max_seq_len %d)" % (rk, step_at(run, t, run.step0), r.randint(60000, 260000), r.choice([4096, 8192, 16384, 32768]))
    py_raise(run, rk, t, what, txt, pre)
    run.kill(rk, t + r.uniform(0.3, 3.0), 1, "cause")
    if r.random() < 0.25:
        # a second rank on another node runs out of memory a moment later (same long batch)
        others = [x for x in range(run.world) if x != rk]
        if others:
            x = r.choice(others)
            t2 = t + r.uniform(0.2, 3.0)
            py_raise(run, x, t2, what, oom_text(run, run.local_of(x), r.choice([1.0, 2.5, 3.91])))
            run.kill(x, t2 + r.uniform(0.3, 2.0), 1, "cause2")
            run.notes.append("rank %d ran out of memory %.1fs later as well" % (x, t2 - t))
    run.init_rank = rk
    run.init_node = run.node_of(rk)
    run.notes.append("rank %d on %s ran out of GPU memory in %s" % (rk, run.hosts[run.node_of(rk)], what))


def c_illegal_memory_access(run, ctx, t):
    r = run.rng
    rk = pick_rank(run)
    node, loc = run.node_of(rk), run.local_of(rk)
    crash_mode(run, ctx)
    v = r.choice(["py", "watchdog", "assert", "assert"])
    if v == "py":
        py_raise(run, rk, t, r.choice(["forward", "backward"]), "RuntimeError: " + cuda_err_text("CUDA error: an illegal memory access was encountered").rstrip("\n"))
        run.kill(rk, t + r.uniform(0.3, 2.0), 1, "cause")
        xid = 31
    elif v == "watchdog":
        run.err(t, rk, cuda_watchdog_block(run, rk, t, "an illegal memory access was encountered"), "k")
        run.kill(rk, t + r.uniform(0.1, 0.6), -6, "cause")
        xid = r.choice([31, 13])
    else:
        src = r.choice([("../aten/src/ATen/native/cuda/Indexing.cu", 1289, "indexSelectLargeIndex", "srcIndex < srcSelectDimSize"),
                        ("../aten/src/ATen/native/cuda/IndexKernel.cu", 92, "operator()", "-sizes[i] <= index && index < sizes[i] && \"index out of bounds\""),
                        ("../aten/src/ATen/native/cuda/Loss.cu", 250, "nll_loss_forward_reduce_cuda_kernel_2d", "t >= 0 && t < n_classes"),
                        ("../aten/src/ATen/native/cuda/ScatterGatherKernel.cu", 365, "operator()", "idx_dim >= 0 && idx_dim < index_size && \"index out of bounds\"")])
        if run.tv >= (2, 5):
            src = ("/pytorch" + src[0][2:],) + src[1:]
        lines = []
        blk = r.randint(0, 900)
        for k in range(r.randint(3, 12)):
            lines.append("%s:%d: %s: block: [%d,0,0], thread: [%d,0,0] Assertion `%s` failed." % (src[0], src[1], src[2], blk + k // 4, 32 * (k % 4) + r.randint(0, 31), src[3]))
        run.err(t - 0.05, rk, "\n".join(lines), "k")
        py_raise(run, rk, t, "forward", "RuntimeError: " + cuda_err_text("CUDA error: device-side assert triggered").rstrip("\n"))
        run.kill(rk, t + r.uniform(0.3, 2.0), 1, "cause")
        xid = 43
    if r.random() < 0.35:
        pci = run.pci(loc)
        if xid == 31:
            kmsg(run, node, t - 0.01, "NVRM: Xid (PCI:%s): 31, pid=%d, name=python, Ch 000000%02x, intr 00000000. MMU Fault: ENGINE GRAPHICS GPC%d GPCCLIENT_T1_%d faulted @ 0x7f%02x_%08x. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ"
                 % (pci, run.pids[rk], r.randint(8, 60), r.randint(0, 7), r.randint(0, 15), r.randint(0, 255), r.randint(0, 2 ** 32 - 1)))
        elif xid == 13:
            kmsg(run, node, t - 0.01, "NVRM: Xid (PCI:%s): 13, pid=%d, name=python, Graphics SM Warp Exception on (GPC %d, TPC %d, SM %d): Out Of Range Address" % (pci, run.pids[rk], r.randint(0, 7), r.randint(0, 8), r.randint(0, 1)))
            kmsg(run, node, t - 0.009, "NVRM: Xid (PCI:%s): 13, pid=%d, name=python, Graphics Exception: ESR 0x%06x=0x%x 0x%06x=0x%x 0x%06x=0x%x 0x%06x=0x%x" % (pci, run.pids[rk], r.randint(0, 2 ** 24), r.randint(0, 2 ** 16), r.randint(0, 2 ** 24), r.randint(0, 2 ** 16), r.randint(0, 2 ** 24), r.randint(0, 2 ** 16), r.randint(0, 2 ** 24), r.randint(0, 2 ** 16)))
        else:
            kmsg(run, node, t + 0.05, "NVRM: Xid (PCI:%s): 43, pid=%d, name=python, Ch 000000%02x" % (pci, run.pids[rk], r.randint(8, 60)))
        run.kern_show.add(node)
    run.init_rank = rk
    run.init_node = node
    run.notes.append("rank %d hit %s" % (rk, {"py": "an illegal memory access (raised in Python)", "watchdog": "an illegal memory access surfaced in the NCCL watchdog thread (abort)",
                                              "assert": "a device-side assert (index out of range)"}[v]))


PY_EXC = [
    ("data", "KeyError: 'labels'", "collate"),
    ("forward", "ValueError: Expected input batch_size (%d) to match target batch_size (%d).", "shape"),
    ("forward", "RuntimeError: The size of tensor a (%d) must match the size of tensor b (%d) at non-singleton dimension 1", "shape"),
    ("data", "FileNotFoundError: [Errno 2] No such file or directory: '/data/shards/train-%05d-of-04096.parquet'", "io"),
    ("forward", "AssertionError: loss is nan at step %d", "assert"),
    ("data", "TypeError: unsupported operand type(s) for +: 'NoneType' and 'int'", "type"),
    ("eval", "ZeroDivisionError: division by zero", "zero"),
    ("data", "json.decoder.JSONDecodeError: Expecting ',' delimiter: line 1 column %d (char %d)", "json"),
    ("ckpt", "OSError: [Errno 28] No space left on device", "disk"),
    ("data", "UnicodeDecodeError: 'utf-8' codec can't decode byte 0x8b in position 1: invalid start byte", "unicode"),
    ("data", "IndexError: index %d is out of bounds for dimension 0 with size %d", "index"),
]


def c_python_exception(run, ctx, t):
    r = run.rng
    rk = pick_rank(run)
    what, exc, tag = run.extra.setdefault("pyexc", r.choice(PY_EXC))
    n = exc.count("%d")
    if tag == "shape":
        a = r.choice([4, 8, 2048, 4096, 8192])
        vals = (a, a - 1 if a < 100 else a + 1)
    elif tag == "json":
        c = r.randint(1000, 90000)
        vals = (c + 1, c)
    elif tag == "index":
        s = r.choice([512, 2048, 8192, 32000])
        vals = (s, s)
    else:
        vals = tuple(r.randint(1, 99999) for _ in range(n))
    exc = exc % vals if n else exc
    crash_mode(run, ctx)
    pre = None
    if tag in ("collate", "index", "type") and r.random() < 0.5:
        s = run.site()
        pre = None
        fr = [(s + "/torch/utils/data/_utils/worker.py", r.choice([308, 349, 351]), "_worker_loop", "data = fetcher.fetch(index)  # type: ignore[possibly-undefined]"),
              (s + "/torch/utils/data/_utils/fetch.py", r.choice([52, 54]), "fetch", "return self.collate_fn(data)"),
              (os.path.join(os.path.dirname(run.script), "data.py"), r.randint(40, 200), "collate", "labels = torch.stack([ex[\"labels\"] for ex in batch])")]
        exc = "%s: Caught %s in DataLoader worker process %d.\nOriginal %s" % (exc.split(":")[0], exc.split(":")[0], r.randint(0, 7), tb(fr, exc))
        exc = exc.split("\n", 1)[0] + "\n" + exc.split("\n", 1)[1]
    py_raise(run, rk, t, what, exc, pre)
    run.kill(rk, t + r.uniform(0.2, 2.0), 1, "cause")
    run.init_rank = rk
    run.init_node = run.node_of(rk)
    run.notes.append("uncaught %s on rank %d" % (exc.split(":")[0], rk))


def c_host_oom_kill(run, ctx, t):
    r = run.rng
    rk = pick_rank(run)
    node = run.node_of(rk)
    crash_mode(run, ctx)
    k8s = run.layout in ("kubeflow_trainjob", "flyte_pytorch") or (run.layout == "metaflow" and run.extra.get("mf_backend") == "kubernetes")
    v = run.extra.setdefault("oom_variant", r.choice(["rank", "rank", "dataloader"] + (["pod", "pod"] if k8s else [])))
    if run.launcher == "ray":
        v = "ray"
    pid = run.pids[rk]
    anon = r.randint(150, 900) * 1024 * 1024
    memcg = k8s or run.layout in ("modal_clustered", "dstack", "determined", "skypilot")
    if v in ("rank", "pod"):
        victim = pid
        comm = "python" if r.random() < 0.7 else "pt_main_thread"
    else:
        victim = pid + r.randint(20, 300)
        comm = "pt_data_worker" if run.tv >= (2, 2) and r.random() < 0.5 else "python"
    kt = t - r.uniform(0.0, 0.3)
    if k8s:
        cg = "/kubepods.slice/kubepods-pod%s.slice/cri-containerd-%s.scope" % (hexs(r, 8), hexs(r, 16))
    else:
        cg = "/system.slice/docker-%s.scope" % hexs(r, 32)
    if run.layout in ("submitit", "hydra_submitit", "accelerate_slurm") and v != "pod":
        run.plat(t + r.uniform(0.5, 3.0), "slurmstepd: error: Detected 1 oom_kill event in StepId=%s.0. Some of the step tasks have been OOM Killed." % run.jobid, node, "err")
        run.extra["srun_oom"] = rk
    if v != "ray":
        kmsg(run, node, kt - 0.02, "%s invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=%d" % (comm, r.choice([0, 0, 1000, 969])))
        if memcg:
            kmsg(run, node, kt - 0.01, "memory: usage %dkB, limit %dkB, failcnt %d" % (anon + 2000000, anon + 2000000, r.randint(1, 9000)))
            kmsg(run, node, kt - 0.005, "oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=%s,mems_allowed=0-1,oom_memcg=%s,task_memcg=%s,task=%s,pid=%d,uid=0"
                 % (hexs(r, 12), cg, cg, comm, victim))
            kmsg(run, node, kt, "Memory cgroup out of memory: Killed process %d (%s) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:0 pgtables:%dkB oom_score_adj:%d"
                 % (victim, comm, anon + r.randint(10 ** 7, 10 ** 8), anon, r.randint(10 ** 5, 10 ** 6), r.randint(0, 10 ** 7), r.randint(10 ** 5, 10 ** 6), r.choice([0, 1000])))
        else:
            kmsg(run, node, kt - 0.005, "oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0-1,global_oom,task_memcg=/slurm/uid_%d/job_%s/step_0/task_%d,task=%s,pid=%d,uid=%d"
                 % (r.randint(1000, 60000), getattr(run, "jobid", "0"), run.local_of(rk), comm, victim, r.randint(1000, 60000)))
            kmsg(run, node, kt, "Out of memory: Killed process %d (%s) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:%d pgtables:%dkB oom_score_adj:0"
                 % (victim, comm, anon + r.randint(10 ** 7, 10 ** 8), anon, r.randint(10 ** 5, 10 ** 6), r.randint(0, 10 ** 7), r.randint(1000, 60000), r.randint(10 ** 5, 10 ** 6)))
        kmsg(run, node, kt + 0.3, "oom_reaper: reaped process %d (%s), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB" % (victim, comm))
    if v == "rank":
        run.kill(rk, t, -9, "cause")
    elif v == "dataloader":
        py_raise(run, rk, t + 0.5, "data", "RuntimeError: DataLoader worker (pid %d) is killed by signal: Killed. " % victim)
        run.kill(rk, t + r.uniform(0.8, 2.0), 1, "cause")
    elif v == "pod":
        run.vanished[node] = t + r.uniform(0.0, 0.5)
        run.platform_reason = "OOMKilled"
    else:  # ray memory monitor
        run.kill(rk, t, -9, "cause")
        run.extra.setdefault("ray_oom", {})[run.attempt] = {"rank": rk, "node": node, "used": r.uniform(0.95, 0.99), "tot": run.pick("raymem", [186.0, 372.0, 1007.0, 2015.0])}
    run.extra["oom_node"] = node
    run.extra["oom_rank"] = rk
    # evidence: the platform shows it (slurm / k8s / ray); otherwise the user attaches dmesg
    platform_evidence = run.layout in ("submitit", "hydra_submitit", "accelerate_slurm", "ray_train") or v == "pod"
    if v != "ray" and (not platform_evidence or r.random() < 0.4):
        run.kern_show.add(node)
    run.init_rank = rk if v != "pod" or run.gpn == 1 else None
    run.init_node = node
    run.notes.append("host memory exhausted on %s: %s (pid %d) was killed by the %s" % (
        run.hosts[node], {"rank": "rank %d's process" % rk, "dataloader": "a DataLoader worker of rank %d" % rk,
                          "pod": "the whole training container (rank %d's node)" % rk, "ray": "rank %d's Ray worker" % rk}[v],
        victim, "Ray memory monitor" if v == "ray" else ("cgroup OOM killer" if memcg else "kernel OOM killer")))


def c_crash_signal(run, ctx, t):
    r = run.rng
    rk = pick_rank(run)
    node = run.node_of(rk)
    crash_mode(run, ctx)
    v = run.extra.setdefault("sig_variant", r.choice(["segv_fh", "segv_silent", "bus_shm", "abort_free", "abort_badalloc", "segv_fh"]))
    s = run.site()
    if v == "segv_fh":
        L = ["Fatal Python error: Segmentation fault", "", "Thread 0x%016x (most recent call first):" % r.randint(2 ** 46, 2 ** 47),
             '  File "%s/torch/utils/data/_utils/pin_memory.py", line %d in do_one_step' % (s, r.choice([31, 36])),
             '  File "%s/torch/utils/data/_utils/pin_memory.py", line %d in _pin_memory_loop' % (s, r.choice([53, 58])),
             '  File "/usr/lib/python%s/threading.py", line %d in run' % (run.py, r.choice([953, 982, 1010])),
             '  File "/usr/lib/python%s/threading.py", line %d in _bootstrap_inner' % (run.py, r.choice([1016, 1045, 1073])),
             '  File "/usr/lib/python%s/threading.py", line %d in _bootstrap' % (run.py, r.choice([973, 1002, 1030])),
             "", "Current thread 0x%016x (most recent call first):" % r.randint(2 ** 46, 2 ** 47),
             '  File "%s/apex/normalization/fused_layer_norm.py", line %d in forward' % (s, r.choice([45, 69])) if r.random() < 0.5 else
             '  File "%s/flash_attn/flash_attn_interface.py", line %d in _flash_attn_varlen_forward' % (s, r.choice([85, 170])),
             '  File "%s/torch/autograd/function.py", line %d in apply' % (s, r.choice([553, 574])),
             '  File "%s" line %d in forward' % (os.path.join(os.path.dirname(run.script), "model.py"), r.randint(100, 400)),
             '  File "%s/torch/nn/modules/module.py", line %d in _call_impl' % (s, r.choice([1562, 1747])),
             "", "Extension modules: numpy.core._multiarray_umath, numpy.core._multiarray_tests, numpy.linalg._umath_linalg, torch._C, torch._C._fft, torch._C._linalg, torch._C._nested, torch._C._nn, torch._C._sparse, torch._C._special, yaml._yaml, sentencepiece._sentencepiece, regex._regex (total: %d)" % r.randint(30, 120)]
        run.err(t, rk, "\n".join(L), "k")
        code = -11
    elif v == "segv_silent":
        code = -11
    elif v == "bus_shm":
        run.err(t - 0.1, rk, "ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).", "k")
        py_raise(run, rk, t, "data", "RuntimeError: DataLoader worker (pid %d) is killed by signal: Bus error. It is possible that dataloader's workers are out of shared memory. Please try to raise your shared memory limit." % (run.pids[rk] + r.randint(20, 200)))
        code = 1
    elif v == "abort_free":
        run.err(t, rk, r.choice(["free(): invalid pointer", "double free or corruption (!prev)", "corrupted size vs. prev_size", "malloc(): unaligned tcache chunk detected"]), "k")
        code = -6
    else:
        run.err(t, rk, "terminate called after throwing an instance of 'std::bad_alloc'\n  what():  std::bad_alloc", "k")
        code = -6
    if run.launcher == "ray" and code in (-11, -6):
        sig = "SIGSEGV" if code == -11 else "SIGABRT"
        run.err(t + 0.001, rk, "*** %s received at time=%d on cpu %d ***\nPC: @     0x7f%s  (unknown)  %s\n    @     0x7f%s  (unknown)  (unknown)\n[%s E %d %d] logging.cc:%d: *** %s received at time=%d on cpu %d ***"
                % (sig, int(t), r.randint(0, 191), hexs(r, 10), "pthread_kill" if code == -6 else "(unknown)", hexs(r, 10), ts_py(run.clk(node, t)), run.pids[rk], run.pids[rk] + r.randint(1, 400), r.choice([361, 474, 497]), sig, int(t), r.randint(0, 191)), "k")
    run.kill(rk, t + r.uniform(0.01, 0.4), code, "cause")
    est = v not in ("segv_silent",) or run.launcher in ("torchrun", "srun_tasks")
    run.init_rank = rk if est else None
    run.init_node = node if est else None
    run.notes.append("rank %d died on a signal without hardware involvement (%s)" % (rk, {"segv_fh": "SIGSEGV in a native extension, faulthandler dump",
                                                                                     "segv_silent": "SIGSEGV, no output", "bus_shm": "SIGBUS in a DataLoader worker (/dev/shm too small)",
                                                                                     "abort_free": "glibc heap corruption abort", "abort_badalloc": "std::bad_alloc abort"}[v]))


def whole_job_sigterm(run, t, how="sigterm"):
    """every node gets SIGTERM at (about) the same time"""
    r = run.rng
    for node in range(run.n_nodes):
        tn = t + r.uniform(0.0, 0.3)
        alive = [x for x in run.ranks_of(node) if run.alive(x)]
        if not alive:
            continue
        if run.launcher == "torchrun":
            run.agent(tn, node, agent_signal_exception(run, tn, node))
        elif run.launcher == "lightning":
            for x in alive:
                run.err(tn + r.uniform(0, 0.05), x, "[rank: %d] Received SIGTERM: 15" % x, "k")
        for x in alive:
            run.kill(x, tn + r.uniform(0.05, 1.5), -15, "preempt")
        run.node_end[node] = (tn + 1.6, 143, "signal")
    run.t_end = max(v[0] for v in run.node_end.values())


def c_preemption(run, ctx, t):
    r = run.rng
    lay = run.layout
    slurm = lay in ("submitit", "hydra_submitit", "accelerate_slurm")
    if slurm:
        mode = "whole"
        reason = r.choice(["TIME LIMIT", "PREEMPTION", "PREEMPTION"])
    elif lay in ("lightning_multinode",):
        mode = r.choice(["whole", "node"])
        reason = "spot"
    elif lay in ("determined",):
        mode = "whole"
        reason = "scheduler"
    else:
        mode = "node"
        reason = "spot"
    pe = {"mode": mode, "reason": reason, "t": t}
    run.extra["preempt"] = pe
    if mode == "whole":
        if run.launcher == "srun_tasks":
            tsig = t - r.choice([60.0, 90.0, 120.0])
            pe["tsig"] = tsig
            timed_out = reason == "TIME LIMIT"
            req = r.choice([True, True, False]) if not timed_out else r.choice([True, False])
            pe["requeued"] = req
            mins_req = r.choice([720, 1440, 2880, 4320])
            ran = int((t - run.t0) / 60) if not timed_out else mins_req - 2
            pe["mins"] = (ran, mins_req)
            for x in range(run.world):
                node = run.node_of(x)
                tt = tsig + r.uniform(0, 0.2)
                ts = ts_py(run.clk(node, tt))
                if x == 0:
                    run.out(tt, x, "submitit INFO (%s) - Job has %stimed out. Ran %d minutes out of requested %d minutes." % (ts, "" if timed_out else "not ", ran, mins_req), "k")
                run.err(tt + 0.001, x, "submitit WARNING (%s) - Caught signal SIGUSR2 on %s: this job is %s." % (ts, run.hosts[node], "timed-out" if timed_out else "preempted"), "k")
                if x != 0:
                    run.out(tt + 0.002, x, "submitit INFO (%s) - Not checkpointing nor requeuing since I am a slave (procid=%d)." % (ts, x))
                else:
                    if req:
                        run.out(tt + 0.1, x, "submitit INFO (%s) - Calling checkpoint method." % ts)
                        run.out(tt + r.uniform(5, 40), x, "saving checkpoint to %s/checkpoints/step_%07d (preemption)" % (run.workdir, step_at(run, tt, run.step0)))
                        t_rq = tt + r.uniform(41, 55)
                        run.out(t_rq, x, "submitit INFO (%s) - Requeued job %s (%d remaining timeouts)" % (ts_py(run.clk(node, t_rq)), run.jobid, r.randint(1, 3)), "k")
                        run.out(t_rq + 0.01, x, "submitit INFO (%s) - Exiting gracefully after preemption/timeout." % ts_py(run.clk(node, t_rq)), "k")
                        run.kill(x, t_rq + 0.1, 255, "preempt")
                    else:
                        why = "timed-out and not checkpointable" if timed_out else "checkpoint function returned None"
                        run.out(tt + 0.1, x, "submitit INFO (%s) - Job not requeued because: %s." % (ts, why), "k")
                        py = tb([("<frozen runpy>", 198, "_run_module_as_main", None), ("<frozen runpy>", 88, "_run_code", None),
                                 (run.site() + "/submitit/core/_submit.py", 11, "<module>", "submitit_main()"),
                                 (run.site() + "/submitit/core/submission.py", 76, "submitit_main", "process_job(args.folder)"),
                                 (run.site() + "/submitit/core/submission.py", 69, "process_job", "raise error"),
                                 (run.site() + "/submitit/core/submission.py", 55, "process_job", "result = delayed.result()"),
                                 (run.site() + "/submitit/core/utils.py", 133, "result", "self._result = self.function(*self.args, **self.kwargs)"),
                                 (run.script, r.randint(200, 300), "train", "loss = train_step(model, batch, optimizer, scaler)"),
                                 (run.site() + "/submitit/core/job_environment.py", 226, "checkpoint_and_try_requeue", "raise utils.UncompletedJobError(message)")],
                                "submitit.core.utils.UncompletedJobError: Job not requeued because: %s." % why)
                        run.err(tt + 0.2, x, "submitit ERROR (%s) - Submitted job triggered an exception\n%s" % (ts, py), "k")
                        run.kill(x, tt + 0.5, 1, "preempt")
            # Slurm then signals every task
            for node in range(run.n_nodes):
                tn = t + r.uniform(0, 0.2)
                for x in run.ranks_of(node):
                    if run.alive(x):
                        run.err(tn + 0.001, x, "submitit WARNING (%s) - Bypassing signal SIGTERM" % ts_py(run.clk(node, tn)))
                        if r.random() < 0.4:
                            run.err(tn + 0.002, x, "submitit WARNING (%s) - Bypassing signal SIGCONT" % ts_py(run.clk(node, tn)))
                msg = "slurmstepd: error: *** JOB %s ON %s CANCELLED AT %s DUE TO %s ***" % (
                    run.jobid, run.hosts[node], ts_slurm(run.clk(node, tn + 0.1)), "JOB REQUEUE" if req else reason)
                run.plat(tn + 0.1, msg, node, "err")
                for x in run.ranks_of(node):
                    if run.alive(x):
                        run.kill(x, tn + r.uniform(30, 32), -9, "preempt")
                run.node_end[node] = (tn + 32.5, 137, "preempt")
            run.t_end = max(v[0] for v in run.node_end.values())
        elif slurm:
            for node in range(run.n_nodes):
                tn = t + r.uniform(0, 0.2)
                run.plat(tn, "slurmstepd: error: *** JOB %s ON %s CANCELLED AT %s DUE TO %s ***" % (run.jobid, run.hosts[node], ts_slurm(run.clk(node, tn)), reason), node, "err")
            whole_job_sigterm(run, t + 0.3)
        else:
            whole_job_sigterm(run, t)
        run.init_rank = None
        run.init_node = None
        run.notes.append("the scheduler ended the whole job (%s); every rank got SIGTERM at the same time" % reason.lower())
        ctx["no_cascade"] = True
        return
    # a single node lost (spot reclaim / node shutdown)
    node = r.randint(0, run.n_nodes - 1) if run.n_nodes > 1 else 0
    if run.n_nodes > 1 and node == 0 and r.random() < 0.5:
        node = r.randint(1, run.n_nodes - 1)
    pe["node"] = node
    graceful = lay in ("kubeflow_trainjob", "flyte_pytorch", "lightning_multinode") or r.random() < 0.3
    pe["graceful"] = graceful
    if graceful:
        if run.launcher == "torchrun":
            run.agent(t, node, agent_signal_exception(run, t, node))
        elif run.launcher == "lightning":
            for x in run.ranks_of(node):
                run.err(t + r.uniform(0, 0.05), x, "[rank: %d] Received SIGTERM: 15" % x, "k")
        for x in run.ranks_of(node):
            run.kill(x, t + r.uniform(0.05, 1.5), -15, "preempt")
        run.node_end[node] = (t + 1.6, 143, "signal")
    else:
        run.vanished[node] = t
    crash_mode(run, ctx)
    run.init_node = node
    run.init_rank = None
    run.notes.append("node %s (%s) was reclaimed by the cloud (spot/preemptible) %s; the remaining ranks failed as collateral"
                     % (run.hosts[node], run.ips[node], "with a SIGTERM grace period" if graceful else "without warning"))


def pyspy_dump(run, rk, frames, t):
    r = run.rng
    node = run.node_of(rk)
    L = ["Process %d: %s -u %s %s" % (run.pids[rk], run.pybin(), run.script, run.extra.get("cmdargs", "--config configs/train.yaml")),
         "Python v%s.%d (%s)" % (run.py, r.randint(4, 14), run.pybin()), "",
         "Thread %d (idle): \"MainThread\"" % run.pids[rk] if frames[0] == "idle" else "Thread %d (active): \"MainThread\"" % run.pids[rk]]
    for fn, f, ln in frames[1:]:
        L.append("    %s (%s:%d)" % (fn, f, ln))
    L.append("Thread %d (idle): \"Thread-2 (_pin_memory_loop)\"" % (run.pids[rk] + r.randint(50, 300)))
    L.append("    wait (threading.py:%d)" % r.choice([320, 331, 355]))
    L.append("    get (queue.py:%d)" % r.choice([171, 180]))
    L.append("    _pin_memory_loop (torch/utils/data/_utils/pin_memory.py:%d)" % r.choice([49, 53]))
    L.append("    run (threading.py:%d)" % r.choice([953, 982, 1010]))
    run.add_attach("py-spy", [("rank%d-%s" % (rk, run.hosts[node]), L)])


def c_hang(run, ctx, t):
    r = run.rng
    rk = pick_rank(run)
    node = run.node_of(rk)
    S = ctx["S"]
    ctx["stuck"] = [rk]
    ctx["per_rank"] = {rk: {"enq": S - 1, "comp": S - 1}}
    ctx["mode"] = "watchdog"
    v = run.extra.setdefault("hang_variant", r.choice(["deadlock", "deadlock", "spin", "kernel"]))
    if v == "kernel":
        ctx["unkillable"] = [rk] if r.random() < 0.5 else []
        ctx["per_rank"] = {rk: {"enq": S - 1, "comp": S - 2}}
    ev = []
    if r.random() < 0.35:
        tf = t + r.choice([300.0, 600.0, 900.0])
        if tf < t + run.timeout_ms / 1000.0:
            s = run.site()
            if v == "deadlock":
                fr = ['  File "/usr/lib/python%s/threading.py", line %d in wait' % (run.py, r.choice([320, 355])),
                      '  File "%s/wandb/sdk/interface/router.py", line %d in get' % (s, r.choice([37, 39])),
                      '  File "%s/wandb/sdk/interface/interface_shared.py", line %d in _communicate' % (s, r.choice([95, 104])),
                      '  File "%s/wandb/sdk/wandb_run.py", line %d in log' % (s, r.choice([1873, 1894])),
                      '  File "%s", line %d in train' % (os.path.join(os.path.dirname(run.script), "trainer.py"), r.randint(200, 400))]
            elif v == "spin":
                fr = ['  File "%s", line %d in _pack_sequences' % (os.path.join(os.path.dirname(run.script), "data.py"), r.randint(60, 200)),
                      '  File "%s", line %d in __iter__' % (os.path.join(os.path.dirname(run.script), "data.py"), r.randint(200, 260)),
                      '  File "%s", line %d in train' % (os.path.join(os.path.dirname(run.script), "trainer.py"), r.randint(200, 400))]
            else:
                fr = ['  File "%s/torch/cuda/streams.py", line %d in synchronize' % (s, r.choice([224, 227])),
                      '  File "%s", line %d in _moe_dispatch' % (os.path.join(os.path.dirname(run.script), "moe.py"), r.randint(60, 200)),
                      '  File "%s", line %d in forward' % (os.path.join(os.path.dirname(run.script), "moe.py"), r.randint(200, 300)),
                      '  File "%s", line %d in train' % (os.path.join(os.path.dirname(run.script), "trainer.py"), r.randint(200, 400))]
            run.err(tf, rk, "Timeout (%s)!\nThread 0x%016x (most recent call first):\n%s" % (hms(tf - t).rjust(7, "0")[-7:], r.randint(2 ** 46, 2 ** 47), "\n".join(fr)), "k")
            ev.append("faulthandler")
    if r.random() < 0.35:
        d = os.path.dirname(run.script)
        if v == "deadlock":
            fr = ["active" if False else "idle", ("wait", "threading.py", 320), ("get", "wandb/sdk/interface/router.py", 37),
                  ("_communicate", "wandb/sdk/interface/interface_shared.py", 95), ("log", "wandb/sdk/wandb_run.py", 1873),
                  ("train", os.path.join(d, "trainer.py"), r.randint(200, 400)), ("main", run.script, r.randint(250, 370))]
        elif v == "spin":
            fr = ["active", ("_pack_sequences", os.path.join(d, "data.py"), r.randint(60, 200)), ("__iter__", os.path.join(d, "data.py"), r.randint(200, 260)),
                  ("train", os.path.join(d, "trainer.py"), r.randint(200, 400)), ("main", run.script, r.randint(250, 370))]
        else:
            fr = ["active", ("synchronize", "torch/cuda/streams.py", 224), ("_moe_dispatch", os.path.join(d, "moe.py"), r.randint(60, 200)),
                  ("forward", os.path.join(d, "moe.py"), r.randint(200, 300)), ("train", os.path.join(d, "trainer.py"), r.randint(200, 400))]
        pyspy_dump(run, rk, fr, t + 900)
        ev.append("py-spy")
    run.extra["hang_ev"] = ev
    run.extra["hang_S"] = S
    run.extra["post"] = "hang"
    run.init_rank = rk if ev else None
    run.init_node = node if ev else None
    run.notes.append("rank %d stopped issuing collectives (%s); every other rank waited in collective #%d until the NCCL timeout" % (
        rk, {"deadlock": "a Python-level deadlock in a logging thread", "spin": "an endless loop in sequence packing",
             "kernel": "a device kernel that never finished"}[v], S))


def c_data_loader_stall(run, ctx, t):
    r = run.rng
    rk = pick_rank(run)
    node = run.node_of(rk)
    S = ctx["S"]
    v = run.extra.setdefault("dl_variant", r.choice(["nfs", "lustre", "hf_stream", "s3", "dl_timeout", "slow_log"]))
    evid_rank = True
    if v == "dl_timeout" and run.timeout_ms >= 900000:
        tt = t + r.choice([300.0, 600.0])
        py_raise(run, rk, tt, "data", "RuntimeError: DataLoader timed out after %d seconds" % int(tt - t))
        run.kill(rk, tt + r.uniform(0.2, 1.0), 1, "cause")
        crash_mode(run, ctx)
        ctx["t_block"] = t + r.uniform(0.5, 3.0)
    else:
        if v == "dl_timeout":
            v = run.extra["dl_variant"] = "slow_log"
        ctx["stuck"] = [rk]
        ctx["per_rank"] = {rk: {"enq": S - 1, "comp": S - 1}}
        ctx["mode"] = "watchdog"
        if v in ("nfs", "lustre"):
            ctx["unkillable"] = [rk] if r.random() < 0.6 else []
            srv = r.choice(["fsx-data01", "nfs-prod-2", "10.0.%d.%d" % (r.randint(0, 9), r.randint(2, 250))])
            if v == "nfs":
                kmsg(run, node, t - r.uniform(5, 60), "nfs: server %s not responding, still trying" % srv)
            else:
                ost = "OST%04x" % r.randint(0, 40)
                kmsg(run, node, t - r.uniform(5, 60), "LustreError: 11-0: scratch-%s-osc-ffff%s: operation ost_read to node %s@tcp failed: rc = -107" % (ost, hexs(r, 12), srv))
                kmsg(run, node, t - r.uniform(1, 4), "Lustre: scratch-%s-osc-ffff%s: Connection to scratch-%s (at %s@tcp) was lost; in progress operations using this service will wait for recovery to complete" % (ost, hexs(r, 12), ost, srv))
            for k in range(r.randint(1, 3)):
                tk = t + 122 * (k + 1) + r.uniform(0, 3)
                wpid = run.pids[rk] + r.randint(10, 300)
                kmsg(run, node, tk, "INFO: task python:%d blocked for more than %d seconds." % (wpid, 120 + 123 * k))
                kmsg(run, node, tk + 0.001, "      Tainted: P           OE     5.15.0-%d-generic #%d-Ubuntu" % (r.randint(90, 130), r.randint(90, 140)))
                kmsg(run, node, tk + 0.002, "\"echo 0 > /proc/sys/kernel/hung_task_timeout_secs\" disables this message.")
                kmsg(run, node, tk + 0.003, "task:python          state:D stack:    0 pid:%d ppid:%d flags:0x00000000" % (wpid, run.pids[rk]))
            run.kern_show.add(node)
            evid_rank = run.launcher in ("torchrun",) and r.random() < 0.5
        elif v == "hf_stream":
            for k in range(r.randint(3, 12)):
                run.err(t + 5 * k + r.uniform(0, 1), rk, "WARNING:datasets.utils.file_utils:Got disconnected from remote data host. Retrying in 5sec [%d/20]" % (k + 1), "k")
        elif v == "s3":
            for k in range(r.randint(2, 6)):
                run.err(t + 60 * k + r.uniform(0, 5), rk, "WARNING:botocore.endpoint:Read timeout on endpoint URL: \"https://%s.s3.us-east-1.amazonaws.com/shards/train-%05d.tar\"; retrying (%d/5)"
                        % (r.choice(["ml-datasets", "corp-training-data", "laion-shards"]), r.randint(0, 99999), k + 1), "k")
        else:
            alive_w = 8
            for k in range(r.randint(3, 8)):
                run.out(t + 60 * (k + 1), rk, "[rank%d] waiting for next batch: %.1fs (prefetch queue empty, %d/%d workers alive)" % (rk, 60.0 * (k + 1), alive_w, 8), "k")
        if r.random() < 0.35:
            d = os.path.dirname(run.script)
            if v in ("nfs", "lustre"):
                fr = ["idle", ("poll", "multiprocessing/connection.py", 440), ("_poll", "multiprocessing/connection.py", 257),
                      ("get", "multiprocessing/queues.py", 113), ("_try_get_data", "torch/utils/data/dataloader.py", 1133),
                      ("_get_data", "torch/utils/data/dataloader.py", 1294), ("_next_data", "torch/utils/data/dataloader.py", 1328),
                      ("__next__", "torch/utils/data/dataloader.py", 630), ("train", os.path.join(d, "trainer.py"), r.randint(150, 300))]
            else:
                fr = ["idle", ("read", "ssl.py", 1134), ("recv_into", "ssl.py", 1278), ("readinto", "socket.py", 706),
                      ("_read_next_chunk", "urllib3/response.py", 893), ("read", "fsspec/implementations/http.py", 609),
                      ("__iter__", os.path.join(d, "data.py"), r.randint(60, 200)), ("__next__", "torch/utils/data/dataloader.py", 630),
                      ("train", os.path.join(d, "trainer.py"), r.randint(150, 300))]
            pyspy_dump(run, rk, fr, t + 700)
            evid_rank = True
    run.init_rank = rk if evid_rank else None
    run.init_node = node
    run.notes.append("rank %d got stuck reading training data (%s); %s" % (rk, v, "it raised a DataLoader timeout" if v == "dl_timeout" else "its peers timed out in the next collective"))


def fingerprint(run, seq, op, shape, dtype):
    return ("CollectiveFingerPrint(SequenceNumber=%d, OpType=%s, TensorShape=[%s], TensorDtypes=%s, TensorDeviceTypes=TensorOptions(dtype=float (default), "
            "device=cuda, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt)))"
            % (seq, op, shape, dtype))


def c_collective_mismatch(run, ctx, t):
    r = run.rng
    odd = pick_rank(run)
    S = ctx["S"]
    v = run.extra.setdefault("mm_variant", r.choice(["detail", "op", "op", "numel"]))
    if run.world < 2:
        v = "op"
    op_ok = "ALLREDUCE"
    op_odd = r.choice(["BROADCAST", "ALLGATHER", "BARRIER", "REDUCE"])
    if v == "detail":
        shape_ok = str(r.choice([1, 4096, 1024]))
        fp_ok = fingerprint(run, S, op_ok, shape_ok, "Float")
        fp_odd = fingerprint(run, S, op_odd, "1" if op_odd != "BARRIER" else "", "Long" if op_odd != "BARRIER" else "")
        for x in range(run.world):
            tt = t + r.uniform(0.0, 1.5)
            if x == odd:
                other = 0 if odd != 0 else 1
                msg = "Detected mismatch between collectives on ranks. Rank %d is running collective: %s, but Rank %d is running collective: %s." % (x, fp_odd, other, fp_ok)
            else:
                msg = "Detected mismatch between collectives on ranks. Rank %d is running collective: %s, but Rank %d is running collective: %s." % (x, fp_ok, odd, fp_odd)
            if run.tv >= (2, 3):
                msg += "Collectives differ in the following aspects: \t Op type: %svs %s" % ((op_odd, op_ok) if x == odd else (op_ok, op_odd))
            if x == odd or r.random() < (0.5 if run.world <= 32 else 0.12) or x == 0:
                py_raise(run, x, tt, "collective" if x != odd else "eval", "RuntimeError: " + msg)
                run.kill(x, tt + r.uniform(0.2, 1.5), 1, "cause")
        crash_mode(run, ctx)
        est = True
    else:
        per = {}
        if v == "op":
            per[odd] = {"op": op_odd, "numel": 1 if op_odd != "BARRIER" else 1, "enq": S + r.choice([0, 1]), "comp": S - 1,
                        "t_block": ctx["t_block"] - r.uniform(2.0, 40.0)}
        else:
            base = ctx["numel"] if ctx["numel"] > 1 else 26214400
            ctx["numel"] = base
            ctx["op"] = r.choice(["_ALLGATHER_BASE", "ALLREDUCE", "_REDUCE_SCATTER_BASE"])
            per[odd] = {"numel": base - r.choice([4096, 8192, 65536, base // 2]), "enq": S, "comp": S - 1,
                        "t_block": ctx["t_block"] - r.uniform(2.0, 40.0)}
        ctx["per_rank"] = per
        ctx["mode"] = "watchdog"
        est = True
    run.init_rank = odd if est else None
    run.init_node = run.node_of(odd) if est else None
    run.notes.append("rank %d issued a different collective at sequence #%d (%s) than the other ranks (%s); %s"
                     % (odd, S, "%s" % (op_odd if v != "numel" else "same op, different size"), op_ok if v != "numel" else ctx["op"],
                        "TORCH_DISTRIBUTED_DEBUG=DETAIL turned it into an immediate error" if v == "detail" else "all ranks hung until the NCCL timeout"))


def c_straggler(run, ctx, t_slow):
    """no crash: one GPU/node gets slow; the whole synchronous job slows down"""
    r = run.rng
    rk = pick_rank(run)
    node = run.node_of(rk)
    v = run.extra.setdefault("strag_variant", r.choice(["thermal", "thermal", "pcie", "cpu", "node_net"]))
    factor = r.uniform(1.6, 3.2)
    t_end = t_slow + r.uniform(1800, 4 * 3600)
    last = progress(run, t_slow, t_end, step_at(run, t_slow, run.step0), slow_rank=rk, slow_factor=factor)
    per_rank = run.extra.get("per_rank_timing", r.random() < 0.6)
    if per_rank:
        step = step_at(run, t_slow, run.step0)
        tt = t_slow
        every = max(run.log_every, 50)
        k = 0
        while tt < t_end and k < 14:
            step += every
            tt += every * run.iter_s * factor
            k += 1
            sample = sorted(set([rk] + r.sample(range(run.world), min(run.world, 6 if run.world > 32 else run.world))))
            for x in (sample if run.world > 32 else range(run.world)):
                if v == "node_net":
                    slow = run.node_of(x) == node
                else:
                    slow = x == rk
                comp = run.iter_s * (factor if (slow and v != "node_net") else 1.0) * r.uniform(0.92, 0.99)
                wait = run.iter_s * factor - comp if not slow else r.uniform(0.005, 0.05)
                if v == "node_net" and slow:
                    comp = run.iter_s * r.uniform(0.9, 0.98)
                    wait = run.iter_s * (factor - 1) * r.uniform(0.8, 1.0)
                run.out(tt + r.uniform(0, 0.05), x, "[rank%d] step %d timing: fwd_bwd %.3fs | data %.3fs | grad_sync_wait %.3fs | step %.3fs"
                        % (x, step, comp, r.uniform(0.002, 0.03), max(0.0, wait), run.iter_s * factor), "k")
    if v in ("thermal", "pcie"):
        q = ["==============NVSMI LOG==============", "",
             "Timestamp                                 : %s" % dtu(run.clk(node, t_slow + 600)).strftime("%a %b %d %H:%M:%S %Y"),
             "Driver Version                            : 550.90.07", "CUDA Version                              : %s" % run.cuda, ""]
        for g in range(run.gpn):
            bad = g == run.local_of(rk)
            q += ["GPU 00000000:%s:00.0" % run.bus(g).upper(),
                  "    Performance State                     : P%d" % (2 if bad else 0),
                  "    Clocks Event Reasons",
                  "        Idle                              : Not Active",
                  "        Applications Clocks Setting       : Not Active",
                  "        SW Power Cap                      : %s" % ("Active" if (bad and v == "thermal" and r.random() < 0.5) else "Not Active"),
                  "        HW Slowdown                       : %s" % ("Active" if (bad and v == "thermal") else "Not Active"),
                  "            HW Thermal Slowdown           : %s" % ("Active" if (bad and v == "thermal") else "Not Active"),
                  "            HW Power Brake Slowdown       : Not Active",
                  "        Sync Boost                        : Not Active",
                  "        SW Thermal Slowdown               : %s" % ("Active" if (bad and v == "thermal") else "Not Active"),
                  "        Display Clock Setting             : Not Active",
                  "    Temperature",
                  "        GPU Current Temp                  : %d C" % (r.randint(86, 92) if (bad and v == "thermal") else r.randint(55, 70)),
                  "    Clocks",
                  "        SM                                : %d MHz" % (r.randint(690, 1110) if bad else 1980),
                  "    PCI",
                  "        GPU Link Info",
                  "            PCIe Generation",
                  "                Current                   : %d" % (1 if (bad and v == "pcie") else 5),
                  "            Link Width",
                  "                Current                   : %s" % ("4x" if (bad and v == "pcie") else "16x"), ""]
        run.add_attach("nvidia-smi-q", [(run.hosts[node], q)])
    elif v == "node_net":
        kmsg(run, node, t_slow - 30, "mlx5_core 0000:%s:00.0: mlx5_port_module_event:1138:(pid 0): Port module event[error]: module %d, Cable error, High Temperature" % (r.choice(["1a", "9a", "ca"]), r.randint(0, 7)))
        kmsg(run, node, t_slow - 29, "mlx5_core 0000:%s:00.0 ibp%ds0: Link up, speed %d Mb/s (degraded)" % (r.choice(["1a", "9a", "ca"]), r.randint(10, 220), r.choice([100000, 50000])) if run.fabric in ("ib", "roce")
             else "ena 0000:00:05.0 %s: Link speed changed to 25Gbps" % run.ifname)
        run.kern_show.add(node)
    else:
        run.add_attach("top", [(run.hosts[node], ["top - %s up 41 days,  3:12,  1 user,  load average: %.2f, %.2f, %.2f" % (dtu(run.clk(node, t_slow + 900)).strftime("%H:%M:%S"), r.uniform(180, 260), r.uniform(170, 250), r.uniform(150, 240)),
                                                   "Tasks: 1890 total,   9 running, 1881 sleeping,   0 stopped,   0 zombie",
                                                   "%%Cpu(s): 97.1 us,  2.3 sy,  0.0 ni,  0.4 id,  0.0 wa,  0.0 hi,  0.2 si,  0.0 st", "",
                                                   "    PID USER      PR  NI    VIRT    RES    SHR S  %CPU  %MEM     TIME+ COMMAND",
                                                   " %6d root      20   0   12.1g   3.2g  14812 R  4710  1.6 892:11.02 %s" % (r.randint(2000, 90000), r.choice(["ffmpeg", "java", "node_exporter", "python3 preprocess.py"])),
                                                   " %6d %-8s  20   0  140.2g  42.1g   1.1g R  98.7  5.6 312:45.11 python" % (run.pids[rk], run.user[:8])]
                                                  + [" %6d %-8s  20   0  139.8g  41.9g   1.1g S  %4.1f  5.6 310:02.43 python" % (run.pids[x], run.user[:8], r.uniform(60, 99)) for x in run.ranks_of(node) if x != rk][:6])])
    cancel = r.random() < 0.35 and run.layout in ("submitit", "hydra_submitit", "accelerate_slurm", "skypilot", "dstack", "determined", "ray_train", "modal_clustered")
    run.extra["straggler_cancel"] = cancel
    if cancel:
        run.extra["user_cancel_t"] = t_end
        whole_job_sigterm(run, t_end)
    else:
        finish_ok(run, t_end, last)
    run.init_rank = rk if v != "node_net" else None
    run.init_node = node
    run.final_status = "CANCELLED" if cancel else "SUCCEEDED"
    run.notes.append("%s on %s made every step %.1fx slower; the job %s" % (
        {"thermal": "thermal throttling of GPU %d (rank %d)" % (run.local_of(rk), rk), "pcie": "a GPU link trained down to PCIe Gen1 x4 (rank %d)" % rk,
         "cpu": "CPU contention from a stray process (rank %d)" % rk, "node_net": "a degraded NIC"}[v], run.hosts[node], factor,
        "was cancelled by the user" if cancel else "finished, late"))


def c_unknown(run, ctx, t):
    r = run.rng
    rk = pick_rank(run)
    v = run.extra.setdefault("unk_variant", r.choice(["exit1", "exit1", "sigkill", "exit255"]))
    crash_mode(run, ctx)
    code = {"exit1": 1, "sigkill": -9, "exit255": 255}[v]
    run.kill(rk, t, code, "cause")
    est = (run.n_nodes == 1 and run.launcher == "torchrun") or run.launcher == "srun_tasks"
    run.init_rank = rk if est else None
    run.init_node = run.node_of(rk) if est else None
    run.notes.append("rank %d exited (%s) without printing anything that explains why" % (rk, "exit code %d" % code if code > 0 else "SIGKILL, no OOM or hardware record"))


def finish_ok(run, t_end, last_step):
    r = run.rng
    for x in range(run.world):
        node = run.node_of(x)
        if x == 0:
            run.out(t_end - 5, x, "Training completed. Saving final checkpoint to %s/checkpoints/final" % run.workdir)
        if x == 0 and run.style == "hf":
            run.out(t_end - 1, x, "{'train_runtime': %.4f, 'train_samples_per_second': %.3f, 'train_steps_per_second': %.3f, 'train_loss': %.6f, 'epoch': 1.0}"
                    % (t_end - run.t_train0, run.gbs / run.iter_s, 1.0 / run.iter_s, run.loss0 * 0.4))
        shutdown_noise(run, x, t_end + r.uniform(0, 2))
        run.kill(x, t_end + r.uniform(2, 4), 0, "ok")
    for node in range(run.n_nodes):
        tn = t_end + r.uniform(4, 6)
        if run.launcher == "torchrun" and run.rng.random() < 0.5:
            run.agent(tn, node, elastic_log(run, tn, node, "I", "torch.distributed.elastic.agent.server.api", 879,
                                            "[default] worker group successfully finished. Waiting 300 seconds for other agents to finish."))
            run.agent(tn + 0.5, node, elastic_log(run, tn + 0.5, node, "I", "torch.distributed.elastic.agent.server.api", 932,
                                                  "Done waiting for other agents. Elapsed: %.4f seconds" % r.uniform(0.01, 3.0)))
        run.node_end[node] = (tn + 1, 0, "ok")
    run.t_end = max(v[0] for v in run.node_end.values())


CAUSE_FN = {
    "gpu_hardware": c_gpu_hardware, "ecc_memory": c_ecc_memory, "nvlink": c_nvlink, "network": c_network,
    "cuda_oom": c_cuda_oom, "illegal_memory_access": c_illegal_memory_access, "python_exception": c_python_exception,
    "host_oom_kill": c_host_oom_kill, "crash_signal": c_crash_signal, "preemption": c_preemption, "hang": c_hang,
    "data_loader_stall": c_data_loader_stall, "collective_mismatch": c_collective_mismatch, "straggler": c_straggler,
    "unknown": c_unknown,
}


# --------------------------------------------------------------------------
# topology, per-platform run setup, attempts
# --------------------------------------------------------------------------
def ip_pool(rng, n):
    base = rng.choice(["10.0", "10.1", "172.31", "10.128", "192.168", "10.42", "10.164"])
    used = []
    while len(used) < n:
        ip = "%s.%d.%d" % (base, rng.randint(0, 63), rng.randint(2, 254))
        if ip not in used:
            used.append(ip)
    return used


def hostnames(run, n):
    r = run.rng
    lay = run.layout
    ips = ip_pool(r, n)
    if lay in ("submitit", "hydra_submitit", "accelerate_slurm"):
        pat = r.choice(["learnfair%04d", "gpu-st-p5-48xlarge-%d", "node%03d", "hgx%03d", "a100-%02d", "dgx%03d", "gpu%04d", "h100-%03d"])
        start = r.randint(1, 300)
        nums = sorted(r.sample(range(start, start + 3 * n + 10), n))
        return [pat % k for k in nums], ips
    if lay in ("skypilot", "dstack", "lightning_multinode", "ray_train") or (lay == "metaflow" and run.extra.get("mf_backend") == "batch"):
        if lay == "ray_train" and r.random() < 0.5:
            return ["raycluster-%s-%s-%s" % (run.user, "head" if i == 0 else "gpu-group-worker", b36(r, 5)) for i in range(n)], ips
        if lay == "dstack" and r.random() < 0.5:
            return [hexs(r, 12) for _ in range(n)], ips
        return ["ip-%s" % ip.replace(".", "-") for ip in ips], ips
    if lay == "determined":
        return [hexs(r, 12) for _ in range(n)], ips
    if lay == "modal_clustered":
        return [hexs(r, 12) for _ in range(n)], ips
    if lay == "metaflow":
        h = hexs(r, 8)
        return ["js-%s-%s-0-%d-%s" % (h, "control" if i == 0 else "worker", 0 if i == 0 else i - 1, b36(r, 5)) for i in range(n)], ips
    if lay == "kubeflow_trainjob":
        name = run.extra["trainjob"]
        return ["%s-node-0-%d-%s" % (name, i, b36(r, 5)) for i in range(n)], ips
    if lay == "flyte_pytorch":
        ex = run.extra["flyte_exec"]
        return ["%s-n0-0-%s" % (ex, "master-0" if i == 0 else "worker-%d" % (i - 1)) for i in range(n)], ips
    return ["node%02d" % i for i in range(n)], ips


def choose_topology(run):
    r = run.rng
    lay = run.layout
    gpn = r.choice([8, 8, 8, 8, 4, 4, 2, 1])
    if lay == "modal_clustered":
        gpn = 8
    if run.gpu in ("NVIDIA A10G", "NVIDIA L40S"):
        gpn = r.choice([1, 4, 4, 8])
    n = r.choice([1, 2, 2, 2, 4, 4, 4, 8, 8, 16, 32])
    if gpn <= 2 and n == 1:
        n = r.choice([2, 4, 8])
    need_multi = run.cause in ("network",) or (run.cause == "preemption" and lay not in ("submitit", "hydra_submitit", "accelerate_slurm", "determined"))
    if need_multi and n == 1:
        n = r.choice([2, 4])
    if run.cause == "nvlink" and gpn < 4:
        gpn = 8
    while n * gpn > 256:
        n //= 2
    if n * gpn < 2:
        n = 2
    if lay == "kubeflow_trainjob" or lay == "flyte_pytorch":
        n = max(n, 2)
    return n, gpn


def setup_run(run, idx, seed):
    r = run.rng
    lay = run.layout
    run.extra["mf_backend"] = r.choice(["kubernetes", "batch"]) if lay == "metaflow" else None
    run.extra["trainjob"] = "%s-%s-%s" % (run.model.split("-")[0], r.choice(["pretrain", "sft", "ft", "dpo"]), b36(r, 4))
    run.extra["flyte_exec"] = r.choice("abcdefghijklmnopqrstuvwxyz") + b36(r, 19)
    n, gpn = choose_topology(run)
    hosts, ips = hostnames(run, n)
    run.set_topology(n, gpn, hosts, ips)
    run.kern = {}
    run.kern_show = set()
    run.jobid = str(r.randint(180000, 9999999))
    run.nccl_debug = r.random() < (0.4 if run.world <= 64 else 0.15)
    run.nccl_warn = run.nccl_debug or r.random() < 0.3
    run.extra["wandb"] = r.random() < 0.5
    run.extra["sockwarn"] = r.random() < 0.3
    run.extra["kill_on_bad_exit"] = r.random() < 0.35
    run.extra["per_rank_timing"] = r.random() < 0.6
    run.workdir = {
        "submitit": "/checkpoint/%s/%s" % (run.user, run.model),
        "hydra_submitit": "/checkpoint/%s/%s" % (run.user, run.model),
        "skypilot": "/root/sky_workdir" if r.random() < 0.5 else "~/sky_workdir",
        "dstack": "/workflow",
        "ray_train": "/mnt/cluster_storage/%s" % run.model,
        "determined": "/run/determined/workdir",
        "lightning_multinode": "/teamspace/studios/this_studio",
        "modal_clustered": "/root",
        "metaflow": "/metaflow",
        "kubeflow_trainjob": "/workspace",
        "flyte_pytorch": "/root",
        "accelerate_slurm": "/fsx/%s/%s" % (run.user, run.model),
    }[lay]
    wd = run.workdir.replace("~", "/home/%s" % run.user)
    fname = r.choice(["train.py", "train.py", "pretrain.py", "finetune.py", "main.py"])
    run.script = {
        "submitit": "/private/home/%s/code/%s/%s" % (run.user, run.model, fname),
        "hydra_submitit": "/private/home/%s/code/%s/%s" % (run.user, run.model, fname),
        "metaflow": "/metaflow/%s_flow.py" % run.model.split("-")[0],
        "ray_train": "/home/ray/default/%s" % fname,
        "flyte_pytorch": "/root/workflows/%s" % fname,
    }.get(lay, os.path.join(wd if not wd.startswith("/checkpoint") else "/fsx/%s/code" % run.user, fname))
    run.script_name = fname if r.random() < 0.7 else run.script
    if lay == "accelerate_slurm":
        run.script_name = run.script
    style = {"lightning_multinode": "lightning", "ray_train": r.choice(["ray", "hf"]), "accelerate_slurm": r.choice(["hf", "plain"]),
             "submitit": r.choice(["plain", "megatron"]), "hydra_submitit": r.choice(["plain", "megatron"])}.get(lay, r.choice(["plain", "plain", "hf", "megatron"]))
    if style == "hf" and run.model in ("resnet152", "vit-h-14", "dit-xl-2"):
        style = "plain"
    run.style = style
    run.gbs = r.choice([256, 512, 1024, 2048]) if run.world >= 8 else r.choice([32, 64, 128])
    run.tok_per_step = run.gbs * r.choice([2048, 4096, 8192])
    run.loss0 = r.uniform(2.2, 10.5)
    run.lr = r.choice([1e-4, 2e-4, 3e-4, 6e-4, 1e-5, 2e-5])
    run.total_steps = r.choice([2000, 5000, 10000, 20000, 50000, 100000, 250000])
    run.steps_per_epoch = r.choice([500, 1000, 2500, 5000])
    run.seq_base = r.randint(10, 400)
    run.coll_per_step = r.choice([1, 2, 3, 24, 60, 130])
    run.step0 = 0
    run.t0 = float(r.randint(1704067200, 1759276800))  # 2024-01-01 .. 2025-10-01
    run.extra["overrides_repr"] = "['model=%s', 'optim.lr=%g', 'trainer.nodes=%d']" % (run.model, run.lr, run.n_nodes)
    run.extra["cmdargs"] = r.choice(["--config configs/%s.yaml" % run.model, "--model %s --bf16 --grad-ckpt" % run.model, "+experiment=%s" % run.model])


def setup_timeline(run, attempt):
    r = run.rng
    run.t_nccl = run.t0 + r.uniform(20, 240)
    run.t_train0 = run.t_nccl + r.uniform(5, 60)
    if attempt == 0:
        run.iter_s = r.uniform(0.25, 4.0)
    run.log_every = max(1, int(r.choice([1, 5, 10, 20, 25, 50, 100])))
    span = r.uniform(900, 5 * 3600)
    n_lines = span / run.iter_s / run.log_every
    while n_lines > 160:
        run.log_every *= 2
        n_lines /= 2
    while n_lines < 15 and run.log_every > 1:
        run.log_every = max(1, run.log_every // 2)
        n_lines *= 2
    run.span = span
    need = int((span * 1.05) / run.iter_s) + run.step0 + 10
    if run.cause == "straggler":
        need += int(4 * 3600 / run.iter_s / 1.6)
    if run.total_steps < need:
        run.total_steps = int(need * run.rng.uniform(1.2, 3.0)) // 1000 * 1000 + 1000


def start_attempt(run):
    r = run.rng
    for node in range(run.n_nodes):
        t = run.t0 + r.uniform(0.0, 3.0)
        if run.launcher == "torchrun":
            run.agent(t, node, torchrun_banner(run, t, node), "err")
    if run.launcher == "lightning":
        run.out(run.t0 + 5, 0, "Using bfloat16 Automatic Mixed Precision (AMP)\nGPU available: True (cuda), used: True\nTPU available: False, using: 0 TPU cores\nHPU available: False, using: 0 HPUs", "z")
    for rk in range(run.world):
        t = run.t0 + r.uniform(3.0, 12.0)
        if run.launcher == "lightning":
            run.err(t, rk, "Initializing distributed: GLOBAL_RANK: %d, MEMBER: %d/%d" % (rk, rk + 1, run.world), "z")
        elif run.launcher == "ray":
            run.out(t, rk, "Setting up process group for: env:// [rank=%d, world_size=%d]" % (rk, run.world), "z")
        rank_startup(run, rk, t)
        if run.launcher == "lightning":
            run.out(run.t_nccl + r.uniform(1, 3), rk, "LOCAL_RANK: %d - CUDA_VISIBLE_DEVICES: [%s]" % (run.local_of(rk), ",".join(str(i) for i in range(run.gpn))), "z")
        if run.launcher == "ray" and r.random() < 0.5:
            run.out(run.t_nccl + r.uniform(1, 3), rk, "Moving model to device: cuda:%d\nWrapping provided model in DistributedDataParallel." % 0, "z")
    if run.launcher == "lightning":
        run.err(run.t_nccl, 0, "----------------------------------------------------------------------------------------------------\n"
                "distributed_backend=nccl\nAll distributed processes registered. Starting with %d processes\n"
                "----------------------------------------------------------------------------------------------------\n" % run.world, "z")


def snapshot(run):
    return {"exits": dict(run.exits), "node_end": dict(run.node_end), "vanished": dict(run.vanished),
            "t0": run.t0, "t_end": run.t_end, "pids": list(run.pids), "agent_pid": list(run.agent_pid),
            "first_timeout_rank": run.first_timeout_rank, "ray_first": run.extra.get("ray_first"),
            "user_cancel_t": run.extra.get("user_cancel_t")}


def n_attempts_for(run):
    r = run.rng
    lay = run.layout
    if run.healthy or run.cause in ("straggler", "unknown"):
        return 1
    if lay == "determined":
        return r.choice([1, 2, 2, 3])
    if lay in ("dstack", "ray_train", "kubeflow_trainjob", "metaflow"):
        return r.choice([1, 1, 2])
    if lay == "skypilot" and run.cause == "preemption":
        return 2
    if lay == "dstack" and run.cause == "preemption":
        return 2
    return 1


def simulate(run):
    r = run.rng
    run.hist = []
    n_att = n_attempts_for(run)
    run.n_attempts = n_att
    t_start = run.t0
    first_rank = None
    for a in range(n_att):
        run.attempt = a
        if a > 0:
            run.exits = {}
            run.node_end = {}
            run.vanished = {}
            run.dump_done = False
            run.first_timeout_rank = None
            run.extra.pop("ray_teardown", None)
            run.extra.pop("ray_first", None)
            run.extra.pop("srun_killing", None)
            run.extra.pop("user_cancel_t", None)
            for i in range(len(run.pids)):
                run.pids[i] = run.pids[i] + r.randint(300, 9000)
            for i in range(len(run.agent_pid)):
                run.agent_pid[i] = run.agent_pid[i] + r.randint(300, 9000)
            run.t0 = t_start
            run.step0 = run.extra.get("ckpt_step", 0)
            run.force_rank = first_rank
        setup_timeline(run, a)
        start_attempt(run)
        notes_before = list(run.notes)
        if run.healthy:
            t_end = run.t_train0 + run.span
            last = progress(run, run.t_train0, t_end, run.step0)
            healthy_scares(run)
            finish_ok(run, t_end, last)
            run.final_status = "SUCCEEDED"
        elif a > 0 and run.cause == "preemption":
            t_end = run.t_train0 + r.uniform(600, 3600)
            progress(run, run.t_train0, t_end, run.step0)
            run.t_end = t_end
            run.final_status = "RUNNING"
            run.extra["recovered_running"] = True
        elif run.cause == "straggler":
            t_slow = run.t_train0 + run.span * r.uniform(0.1, 0.5)
            progress(run, run.t_train0, t_slow, run.step0)
            c_straggler(run, None, t_slow)
        else:
            t_fail = run.t_train0 + (run.span if a == 0 else run.span * r.uniform(0.05, 0.8))
            if run.cause in ("gpu_hardware", "ecc_memory", "nvlink") and a > 0 and r.random() < 0.5:
                t_fail = run.t_train0 + r.uniform(30, 400)
            last = progress(run, run.t_train0, t_fail, run.step0)
            if a == 0:
                run.extra["ckpt_step"] = max(0, (last // 1000) * 1000)
            ctx = mk_ctx(run, t_fail)
            CAUSE_FN[run.cause](run, ctx, t_fail)
            if not ctx.get("no_cascade"):
                cascade(run, ctx)
            run.extra["fail_t_%d" % a] = t_fail
            if run.extra.get("post") == "hang" and a == 0:
                ev = list(run.extra.get("hang_ev", []))
                if run._picked in run.extra.get("dump_printed", []):
                    ev.append("dump-signal")
                run.init_rank = run._picked if ev else None
                run.init_node = run.node_of(run._picked) if ev else None
            run.extra.pop("dump_printed", None)
        if run.launcher == "srun_tasks":
            group_srun(run, a)
        if a == 0:
            first_rank = getattr(run, "_picked", None)
            run.truth_init = (run.init_rank, run.init_node)
        else:
            run.notes = notes_before + ["attempt %d failed the same way" % (a + 1) if run.final_status != "RUNNING" else "attempt %d recovered and is running" % (a + 1)]
        run.hist.append(snapshot(run))
        t_start = run.t_end + r.uniform(30, 600)
    run.init_rank, run.init_node = run.truth_init if hasattr(run, "truth_init") else (None, None)


def group_srun(run, a):
    """srun folds tasks of one node that end the same way into one line: 'tasks 0-3: Terminated'"""
    import re
    pat = re.compile(r"^srun: error: (\S+): task (\d+): (.*)$")
    evs = [e for e in run.events if e.attempt == a and e.src == "plat" and pat.match(e.text)]
    evs.sort(key=lambda e: (e.t, e.seq))
    groups = []
    for e in evs:
        m = pat.match(e.text)
        key = (m.group(1), m.group(3))
        for g in groups:
            if g["key"] == key and e.t - g["t"] < 1.0:
                g["tasks"].append(int(m.group(2)))
                g["evs"].append(e)
                break
        else:
            groups.append({"key": key, "t": e.t, "tasks": [int(m.group(2))], "evs": [e]})
    drop = set()
    for g in groups:
        if len(g["tasks"]) > 1:
            g["evs"][0].text = "srun: error: %s: tasks %s: %s" % (g["key"][0], ranges(g["tasks"]), g["key"][1])
            for e in g["evs"][1:]:
                drop.add(id(e))
    if drop:
        run.events = [e for e in run.events if id(e) not in drop]


def healthy_scares(run):
    """harmless lines that look alarming"""
    r = run.rng
    t = run.t_train0 + run.span * r.uniform(0.2, 0.8)
    k = r.randint(1, 3)
    for _ in range(k):
        x = r.randint(0, run.world - 1)
        c = r.choice(["overflow", "wandb", "nccl_warn", "slow_step", "ckpt_retry", "tcp_warn"])
        tt = t + r.uniform(0, 600)
        if c == "overflow":
            run.out(tt, 0, "[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: %d, reducing to %d" % (2 ** 16, 2 ** 15))
        elif c == "wandb":
            run.err(tt, 0, "wandb: Network error (ReadTimeout), entering retry loop.")
        elif c == "nccl_warn":
            run.err(tt, x, nccl_warn(run, x, "NET/IB : Got async event : port error" if run.fabric in ("ib", "roce") else "NET/Socket : peer %s<%d> message truncated : receiving 1048576 bytes instead of 65536. If you believe your socket network is in healthy state, there may be a mismatch in collective sizes or environment settings (e.g. NCCL_PROTO, NCCL_ALGO) between ranks" % (run.ips[0], r.randint(30000, 60000))) if r.random() < 0.3 else
                    nccl_info(run, x, "Call to connect returned Connection refused, retrying"))
        elif c == "slow_step":
            run.out(tt, 0, "step time spike: %.2fs (median %.2fs) at step %d -- checkpoint I/O?" % (run.iter_s * r.uniform(4, 12), run.iter_s, step_at(run, tt, run.step0)))
        elif c == "ckpt_retry":
            run.err(tt, 0, "WARNING:root:checkpoint upload to s3://%s-ckpts/%s failed (ConnectionResetError(104, 'Connection reset by peer')); retrying in 10s (attempt 1/5)" % (run.user, run.model))
            run.out(tt + 12, 0, "checkpoint uploaded: s3://%s-ckpts/%s/step_%07d" % (run.user, run.model, step_at(run, tt, run.step0)))
        else:
            run.err(tt, x, c10(run, tt, x, "W", "ProcessGroupNCCL.cpp:%d" % run.pick("[3478, 4122, 4256]", [3478, 4122, 4256]),
                                "%s using GPU %d to perform barrier as devices used by this process are currently unknown. This can potentially cause a hang if this rank to GPU mapping is incorrect. Specify device_ids in barrier() to force use of a particular device, or call init_process_group() with a device_id." % (pg_prefix(run, x), run.local_of(x))))
    run.extra["healthy_scare"] = True


# --------------------------------------------------------------------------
# rendering helpers
# --------------------------------------------------------------------------
def attempt_evs(run, a, pred=None):
    return [e for e in run.events if e.attempt == a and (pred is None or pred(e))]


def with_buffering(run, evs, a):
    """block-buffered python stdout: lines appear late, and are lost if the process dies on a signal"""
    if not run.extra.get("buffered"):
        return sorted(((e.t, e) for e in evs), key=lambda p: (p[0], p[1].seq))
    exits = run.hist[a]["exits"] if a < len(run.hist) else run.exits
    out = []
    pend = {}
    size = {}
    for e in sorted(evs, key=lambda e: (e.t, e.seq)):
        if e.src == "rank" and e.stream == "out":
            pend.setdefault(e.rank, []).append(e)
            size[e.rank] = size.get(e.rank, 0) + len(e.text) + 1
            if size[e.rank] > 8192:
                for x in pend[e.rank]:
                    out.append((e.t, x))
                pend[e.rank] = []
                size[e.rank] = 0
        else:
            out.append((e.t, e))
    for rk in sorted(pend):
        ex = exits.get(rk)
        if ex is None or ex.code >= 0:
            tt = ex.t if ex is not None else max(x.t for x in pend[rk])
            for x in pend[rk]:
                out.append((max(tt, x.t), x))
        # killed by a signal: the tail of stdout never reaches the log
    out.sort(key=lambda p: (p[0], p[1].seq))
    return out


def finalize(items, budget):
    """items: list of (kind, text). Drop noise in the middle if over budget (as a user trimming a paste would)."""
    total = sum(len(t) + 1 for _, t in items)
    if total <= budget:
        return "\n".join(t for _, t in items) + "\n"
    # drop 'z' lines from the middle outward
    n = len(items)
    keep = [True] * n
    order = sorted(range(n), key=lambda i: abs(i - n / 2.0))
    for i in order:
        if total <= budget:
            break
        if items[i][0] == "z":
            keep[i] = False
            total -= len(items[i][1]) + 1
    if total > budget:
        for i in order:
            if total <= budget:
                break
            if keep[i] and items[i][0] == "n":
                keep[i] = False
                total -= len(items[i][1]) + 1
    out = []
    dropped = 0
    for i in range(n):
        if keep[i]:
            if dropped:
                out.append("[... %d lines trimmed ...]" % dropped)
                dropped = 0
            out.append(items[i][1])
        else:
            dropped += 1
    if dropped:
        out.append("[... %d lines trimmed ...]" % dropped)
    return "\n".join(out) + "\n"


def tee_prefix(run, e):
    if run.extra.get("tee") and e.src == "rank":
        return "[default%d]:" % run.local_of(e.rank)
    return ""


def exit_of(run, a, rk):
    return run.hist[a]["exits"].get(rk)


def node_end_of(run, a, n):
    return run.hist[a]["node_end"].get(n)


def first_failure(run, a, exclude_collateral=False):
    ex = run.hist[a]["exits"]
    cand = [(e.t, rk) for rk, e in ex.items() if e.code != 0]
    if exclude_collateral:
        cand = [(t, rk) for t, rk in cand if ex[rk].why in ("cause", "cause2")]
    if not cand:
        return None
    return sorted(cand)[0][1]


def k8s_nodes(run):
    if "k8s_nodes" not in run.extra:
        r = run.rng
        pool = r.choice(["gke-a3-mega-pool-%s" % hexs(r, 8), "ip-10-%d" % r.randint(0, 200), "gpu-h100-%s" % b36(r, 4), "aks-ndv5-%d-vmss" % r.randint(10000000, 99999999)])
        run.extra["k8s_nodes"] = ["%s-%s" % (pool, b36(r, 4)) if not pool.startswith("ip-") else "ip-10-%d-%d-%d.ec2.internal" % (r.randint(0, 200), r.randint(0, 255), r.randint(2, 254)) for _ in range(run.n_nodes)]
    return run.extra["k8s_nodes"]


def attachments(run, files, naming):
    """kernel logs, nvidia-smi, py-spy, top: files a user/admin attached next to the platform logs"""
    r = run.rng
    for node in sorted(run.kern_show):
        if naming == "none":
            continue
        style = r.choice(["T", "raw", "journal"])
        lines = render_kernel(run, node, style, k8s_nodes(run)[node] if naming == "k8s" else (run.extra["det_agents"][node] if naming == "determined" else None))
        if naming == "sky":
            pre = sky_prefix(run, node, run.extra.get("sky_exec_pid", r.randint(2000, 9000)))
            files["sky_exec_dmesg.txt"] = files.get("sky_exec_dmesg.txt", "$ sky exec %s --num-nodes %d 'sudo dmesg -T | tail -n 300'\n" % (run.extra.get("cluster", "train"), run.n_nodes)) + \
                "\n".join(pre + x for x in render_kernel(run, node, "T")) + "\n"
        elif naming == "k8s":
            files["journalctl-k_%s.txt" % k8s_nodes(run)[node]] = "\n".join(lines) + "\n"
        elif naming == "determined":
            files["agent-%s-dmesg.txt" % run.extra["det_agents"][node]] = "\n".join(lines) + "\n"
        elif naming == "ray":
            files["dmesg_%s.txt" % run.ips[node]] = "\n".join(lines) + "\n"
        else:
            files["dmesg_%s.txt" % run.hosts[node]] = "\n".join(lines) + "\n"
    for kind in run.attach_order:
        for label, lines in run.attach[kind]:
            if naming == "inline":
                continue
            name = {"nvidia-smi": "nvidia-smi_%s.txt", "nvidia-smi-q": "nvidia-smi-q_%s.txt", "nvidia-smi-nvlink": "nvidia-smi-nvlink-s_%s.txt",
                    "py-spy": "py-spy-dump_%s.txt", "top": "top_%s.txt"}[kind] % label
            if naming == "sky" and kind.startswith("nvidia-smi"):
                node = run.hosts.index(label) if label in run.hosts else 0
                pre = sky_prefix(run, node, r.randint(2000, 9000))
                files["sky_exec_%s.txt" % kind] = "$ sky exec %s '%s'\n" % (run.extra.get("cluster", "train"), {"nvidia-smi": "nvidia-smi", "nvidia-smi-q": "nvidia-smi -q",
                                                                                                                 "nvidia-smi-nvlink": "nvidia-smi nvlink -s"}[kind]) + "\n".join(pre + x for x in lines) + "\n"
                continue
            head = {"nvidia-smi": "$ nvidia-smi\n", "nvidia-smi-q": "$ nvidia-smi -q\n", "nvidia-smi-nvlink": "$ nvidia-smi nvlink -s\n",
                    "py-spy": "$ py-spy dump --pid %s\n" % label.split("-")[0], "top": "$ top -b -n 1 | head -20\n"}[kind]
            if kind == "py-spy":
                head = "$ py-spy dump --pid <pid of %s>\n" % label.split("-")[0]
            files[name] = head + "\n".join(lines) + "\n"


def inline_attach_lines(run):
    """for platforms without shell access: the user's on-failure hook printed nvidia-smi into the job output"""
    out = []
    for kind in run.attach_order:
        if kind in ("nvidia-smi", "nvidia-smi-q", "nvidia-smi-nvlink"):
            for label, lines in run.attach[kind]:
                out.append((label, ["+ %s" % {"nvidia-smi": "nvidia-smi", "nvidia-smi-q": "nvidia-smi -q", "nvidia-smi-nvlink": "nvidia-smi nvlink -s"}[kind]] + lines))
    return out


def sky_prefix(run, node, pid):
    if node == 0:
        return "(head, rank=0, pid=%d) " % pid
    return "(worker%d, rank=%d, pid=%d, ip=%s) " % (node, node, pid, run.ips[node])


def py_logline(run, t, node, name, lvl, msg):
    return "%s - %s - %s - %s" % (ts_py(run.clk(node, t)), name, lvl, msg)


# --------------------------------------------------------------------------
# layout renderers
# --------------------------------------------------------------------------
def slurm_state(run):
    pe = run.extra.get("preempt")
    if run.healthy or (run.cause == "straggler" and not run.extra.get("straggler_cancel")):
        return "COMPLETED", "0:0"
    if pe and pe.get("mode") == "whole":
        if pe.get("requeued"):
            return "REQUEUED", "0:0"
        if pe["reason"] == "TIME LIMIT":
            return "TIMEOUT", "0:0"
        return "PREEMPTED", "0:0"
    if run.extra.get("user_cancel_t") or run.extra.get("straggler_cancel"):
        return "CANCELLED by %d" % run.rng.randint(1000, 60000), "0:0"
    if run.cause == "host_oom_kill" and run.launcher in ("srun_tasks", "torchrun"):
        return "OUT_OF_MEMORY", "0:125"
    ff = first_failure(run, 0)
    code = run.hist[0]["exits"][ff].code if ff is not None else 1
    return "FAILED", ("%d:0" % code if code > 0 else "0:%d" % -code) if run.launcher == "srun_tasks" else "1:0"


def sacct_text(run, name):
    r = run.rng
    st, ec = slurm_state(run)
    cpus = run.n_nodes * r.choice([96, 128, 192, 224])
    part = r.choice(["learn", "gpu", "a100", "h100", "batch", "train"])
    acct = r.choice(["research", "llm", "vision", "default", "%s-lab" % run.user])
    rows = [("%s" % run.jobid, name[:10], part, acct, cpus, st.split(" by")[0] if "by" in st else st, ec),
            ("%s.bat+" % run.jobid, "batch", "", acct, cpus // run.n_nodes, "FAILED" if st not in ("COMPLETED",) else "COMPLETED", ec if st != "COMPLETED" else "0:0"),
            ("%s.ext+" % run.jobid, "extern", "", acct, cpus, "COMPLETED", "0:0"),
            ("%s.0" % run.jobid, "python" if run.launcher == "srun_tasks" else "accelerate", "", acct, cpus,
             "CANCELLED" if st.startswith(("CANCELLED", "TIMEOUT", "PREEMPTED", "REQUEUED")) else st.replace("OUT_OF_MEMORY", "OUT_OF_ME+"), ec)]
    L = ["$ sacct -j %s --format=JobID,JobName,Partition,Account,AllocCPUS,State,ExitCode" % run.jobid,
         "       JobID    JobName  Partition    Account  AllocCPUS      State ExitCode ",
         "------------ ---------- ---------- ---------- ---------- ---------- -------- "]
    for row in rows:
        L.append("%12s %10s %10s %10s %10d %10s %8s " % (row[0][:12], row[1], row[2], row[3][:10], row[4], row[5][:10], row[6]))
    return "\n".join(L) + "\n"


def submission_sh(run, folder_abs, name, array=None):
    r = run.rng
    j = "%A_%a" if array is not None else "%j"
    return "\n".join([
        "#!/bin/bash", "", "# Parameters",
        "#SBATCH --cpus-per-task=%d" % r.choice([10, 12, 16, 24]),
        "#SBATCH --error=%s/%s/%s_0_log.err" % (folder_abs, j, j) if array is not None else "#SBATCH --error=%s/%s_0_log.err" % (folder_abs, j),
        "#SBATCH --gpus-per-node=%d" % run.gpn,
        "#SBATCH --job-name=%s" % name,
        "#SBATCH --mem=%dGB" % r.choice([0, 480, 960, 1800]),
        "#SBATCH --nodes=%d" % run.n_nodes,
        "#SBATCH --ntasks-per-node=%d" % run.gpn,
        "#SBATCH --open-mode=append",
        "#SBATCH --output=%s/%s/%s_0_log.out" % (folder_abs, j, j) if array is not None else "#SBATCH --output=%s/%s_0_log.out" % (folder_abs, j),
        "#SBATCH --partition=%s" % r.choice(["learnlab", "gpu", "h100", "train"]),
        "#SBATCH --signal=USR2@%d" % r.choice([90, 120]),
        "#SBATCH --time=%d" % r.choice([720, 1440, 2880, 4320]),
        "#SBATCH --wckey=submitit", "", "# command", "export SUBMITIT_EXECUTOR=slurm",
        "srun --unbuffered --output %s/%s_%%t_log.out --error %s/%s_%%t_log.err %s -u -m submitit.core._submit %s"
        % ((folder_abs + "/" + j) if array is not None else folder_abs, j, (folder_abs + "/" + j) if array is not None else folder_abs, j, run.pybin(), folder_abs if array is None else folder_abs + "/%j"),
        ""])


def pick_files_ranks(run, limit=32, extra=8):
    r = run.rng
    if run.world <= limit:
        return list(range(run.world))
    keep = set([0])
    for a in range(len(run.hist)):
        ff = first_failure(run, a)
        if ff is not None:
            keep.add(ff)
        ffc = first_failure(run, a, True)
        if ffc is not None:
            keep.update(run.ranks_of(run.node_of(ffc))[:4])
            keep.add(ffc)
    if getattr(run, "_picked", None) is not None:
        keep.add(run._picked)
        keep.update(run.ranks_of(run.node_of(run._picked))[:3])
    rest = [x for x in range(run.world) if x not in keep]
    keep.update(r.sample(rest, min(extra, len(rest))))
    return sorted(keep)


def task0_outcome(run, err_text_by_rank, folder_abs, jid_label):
    """what job.result() raises in the submitting process (it only looks at task 0)"""
    ex = run.hist[0]["exits"].get(0)
    st, _ = slurm_state(run)
    if ex is None or ex.code == 0 or st == "REQUEUED":
        return None
    err_lines = err_text_by_rank.get(0, [])
    if ex.code == 1 and ex.why in ("cause", "cause2", "preempt"):
        # traceback pickled by submitit
        idx = max([i for i, l in enumerate(err_lines) if l.startswith("Traceback (most recent call last):")] or [0])
        trace = []
        for l in err_lines[idx:]:
            if trace and l.startswith(("srun:", "slurmstepd:", "[rank", "submitit ", "[W", "[E", "W0", "E0", "I0")):
                break
            trace.append(l)
        return ("submitit.core.utils.FailedJobError: Job (task=0) failed during processing with trace:\n----------------------\n%s\n----------------------\n"
                "You can check full logs with 'job.stderr(0)' and 'job.stdout(0)'or at paths:\n  - %s/%s_0_log.err\n  - %s/%s_0_log.out"
                % ("\n".join(trace), folder_abs, jid_label, folder_abs, jid_label))
    state = st.split(" ")[0] if not st.startswith("CANCELLED") else "CANCELLED"
    if state == "COMPLETED":
        state = "FAILED"
    tail = err_lines[-12:]
    return ("submitit.core.utils.UncompletedJobError: Job %s (task: 0) with path %s/%s_0_result.pkl\nhas not produced any output (state: %s)\n"
            "Error stream produced:\n----------------------------------------\n%s" % (jid_label, folder_abs, jid_label, state, "\n".join(tail)))


def r_submitit(run, hydra=False):
    r = run.rng
    files = {}
    a = len(run.hist) - 1
    if hydra:
        d = dtu(run.t0 - r.uniform(60, 900))
        sweep = "multirun/%s/%s" % (d.strftime("%Y-%m-%d"), d.strftime("%H-%M-%S"))
        jobnum = r.choice([0, 0, 1, 2, 3, 5])
        jid_label = "%s_%d" % (run.jobid, jobnum)
        folder = "%s/.submitit/%s" % (sweep, jid_label)
        folder_abs = "/private/home/%s/code/%s/%s" % (run.user, run.model, folder)
        name = r.choice(["train", "main", "pretrain"])
        files["%s/%s_submission.sh" % (folder, jid_label)] = submission_sh(run, "/private/home/%s/code/%s/%s/.submitit" % (run.user, run.model, sweep), name, jobnum)
    else:
        folder = r.choice(["logs", "submitit_logs", "exp/%s/logs" % run.model, "log_test"])
        folder_abs = "/checkpoint/%s/%s/%s" % (run.user, run.model, folder) if r.random() < 0.5 else "/private/home/%s/code/%s/%s" % (run.user, run.model, folder)
        jid_label = run.jobid
        name = r.choice(["submitit", run.model, "train"])
        files["%s/%s_submission.sh" % (folder, jid_label)] = submission_sh(run, folder_abs, name)
    ranks = pick_files_ranks(run)
    evs_all = attempt_evs(run, a)
    disp = with_buffering(run, evs_all, a)
    srun_lines = [(t, e) for t, e in disp if e.src == "plat" and e.node is None]
    err_text = {}
    hydra_log = []
    for x in ranks:
        node = run.node_of(x)
        out_i = []
        err_i = []
        ts0 = ts_py(run.clk(node, run.t0 + r.uniform(0.5, 2.0)))
        out_i.append(("n", "submitit INFO (%s) - Starting with JobEnvironment(job_id=%s, hostname=%s, local_rank=%d(%d), node=%d(%d), global_rank=%d(%d))"
                      % (ts0, jid_label, run.hosts[node], run.local_of(x), run.gpn, node, run.n_nodes, x, run.world)))
        out_i.append(("n", "submitit INFO (%s) - Loading pickle: %s/%s_submitted.pkl" % (ts0, folder_abs, jid_label)))
        for t, e in disp:
            if e.src == "rank" and e.rank == x:
                txt = e.text
                if hydra and e.stream == "out" and e.kind == "z" and x == 0 and not txt.startswith("submitit"):
                    txt = "[%s][__main__][INFO] - %s" % (ts_py(run.clk(node, t)), txt)
                    hydra_log.append(txt)
                (out_i if e.stream == "out" else err_i).append((e.kind, txt))
            elif e.src == "plat" and e.node == node:
                err_i.append((e.kind, e.text))
            elif e.src == "plat" and e.node is None and x == 0:
                err_i.append((e.kind, e.text))
        ex = exit_of(run, a, x)
        if ex is not None and ex.code == 0:
            tt = ts_py(run.clk(node, ex.t))
            out_i.append(("n", "submitit INFO (%s) - Job completed successfully" % tt))
            if r.random() < 0.5:
                out_i.append(("n", "submitit INFO (%s) - Exiting after successful completion" % tt))
        base = "%s/%s_%d_log" % (folder, jid_label, x)
        files[base + ".out"] = finalize(out_i, 250000)
        files[base + ".err"] = finalize(err_i, 300000)
        err_text[x] = [t for _, t in err_i]
    # the submitting side
    if r.random() < 0.65 or hydra:
        res = task0_outcome(run, err_text, folder_abs, jid_label)
        s = run.site()
        if hydra:
            L = ["$ python %s -m %s hydra/launcher=submitit_slurm hydra.launcher.nodes=%d hydra.launcher.gpus_per_node=%d hydra.launcher.tasks_per_node=%d"
                 % (os.path.basename(run.script), " ".join(run.extra["overrides_repr"].strip("[]").replace("'", "").split(", ")), run.n_nodes, run.gpn, run.gpn),
                 "[%s][HYDRA] Submitit 'slurm' sweep output dir : %s" % (ts_py(run.t0 - 30), sweep)]
            for j in range(max(jobnum + 1, r.randint(jobnum + 1, jobnum + 3))):
                L.append("[%s][HYDRA] \t#%d : %s optim.lr=%g" % (ts_py(run.t0 - 30), j, "model=%s" % run.model, run.lr * (0.5 ** (j - jobnum))))
            if res:
                L.append(tb([(s + "/hydra_plugins/hydra_submitit_launcher/submitit_launcher.py", 149, "launch", "return [j.results()[0] for j in jobs]"),
                             (s + "/submitit/core/core.py", 294, "results", "outcome, result = self._get_outcome_and_result()"),
                             (s + "/submitit/core/core.py", 379, "_get_outcome_and_result", "raise utils.FailedJobError(")] if res.startswith("submitit.core.utils.FailedJobError") else
                            [(s + "/hydra_plugins/hydra_submitit_launcher/submitit_launcher.py", 149, "launch", "return [j.results()[0] for j in jobs]"),
                             (s + "/submitit/core/core.py", 294, "results", "outcome, result = self._get_outcome_and_result()"),
                             (s + "/submitit/core/core.py", 357, "_get_outcome_and_result", "raise utils.UncompletedJobError(")], res))
                L.append("")
                L.append("Set the environment variable HYDRA_FULL_ERROR=1 for a complete stack trace.")
            files["console.txt"] = "\n".join(L) + "\n"
        else:
            L = ["$ python submit.py --nodes %d --ngpus %d --timeout 4320" % (run.n_nodes, run.gpn),
                 "Submitted job_id: %s" % run.jobid, "Logs and checkpoints will be stored at %s" % folder_abs]
            if res:
                L.append(tb([(os.path.join(os.path.dirname(run.script), "submit.py"), r.randint(60, 120), "<module>", "print(job.result())"),
                             (s + "/submitit/core/core.py", 289, "result", "r = self.results()"),
                             (s + "/submitit/core/core.py", 294, "results", "outcome, result = self._get_outcome_and_result()"),
                             (s + "/submitit/core/core.py", 379 if res.startswith("submitit.core.utils.FailedJobError") else 357, "_get_outcome_and_result",
                              "raise utils.FailedJobError(" if res.startswith("submitit.core.utils.FailedJobError") else "raise utils.UncompletedJobError(")], res))
            elif run.healthy:
                L.append("{'final_loss': %.4f, 'steps': %d}" % (run.loss0 * 0.4, run.total_steps))
            files["launcher_console.txt"] = "\n".join(L) + "\n"
    if hydra:
        files["%s/multirun.yaml" % sweep] = "\n".join([
            "hydra:", "  run:", "    dir: outputs/${now:%Y-%m-%d}/${now:%H-%M-%S}", "  sweep:", "    dir: multirun/${now:%Y-%m-%d}/${now:%H-%M-%S}", "    subdir: ${hydra.job.num}",
            "  launcher:", "    submitit_folder: ${hydra.sweep.dir}/.submitit/%j", "    timeout_min: 4320", "    cpus_per_task: 12", "    gpus_per_node: %d" % run.gpn,
            "    tasks_per_node: %d" % run.gpn, "    mem_gb: null", "    nodes: %d" % run.n_nodes, "    name: ${hydra.job.name}", "    partition: learnlab",
            "    max_num_timeout: 3", "    _target_: hydra_plugins.hydra_submitit_launcher.submitit_launcher.SlurmLauncher", "  mode: MULTIRUN",
            "model: %s" % run.model, "optim:", "  lr: %g" % run.lr, "trainer:", "  nodes: %d" % run.n_nodes, "  precision: bf16", ""])
        files["%s/%d/.hydra/overrides.yaml" % (sweep, jobnum)] = "\n".join("- %s" % o.strip("'") for o in run.extra["overrides_repr"].strip("[]").split(", ")) + "\n"
        files["%s/%d/%s.log" % (sweep, jobnum, name)] = ("\n".join(hydra_log) + "\n") if hydra_log else ""
    if r.random() < 0.4:
        files["sacct.txt"] = sacct_text(run, name)
    attachments(run, files, "slurm")
    return files


def r_hydra_submitit(run):
    return r_submitit(run, hydra=True)


def r_accelerate_slurm(run):
    r = run.rng
    files = {}
    name = r.choice(["accel-ft", "fsdp-train", run.model, "sft"])
    cfg = r.choice(["configs/fsdp.yaml", "accelerate_configs/deepspeed_zero3.yaml", "configs/multi_node.yaml"])
    L = []
    a = 0
    L.append(("n", "+ export MASTER_ADDR=%s" % run.hosts[0]))
    L.append(("n", "+ export MASTER_PORT=%d" % run.master_port))
    L.append(("n", "+ srun --kill-on-bad-exit=%d accelerate launch --config_file %s --num_machines %d --num_processes %d --machine_rank $SLURM_NODEID --main_process_ip %s --main_process_port %d %s %s"
              % (1 if run.extra.get("kill_on_bad_exit") else 0, cfg, run.n_nodes, run.world, run.hosts[0], run.master_port, run.script, run.extra["cmdargs"])))
    disp = with_buffering(run, attempt_evs(run, a), a)
    label = r.random() < 0.4
    if label:
        L[-1] = ("n", L[-1][1].replace("srun --kill", "srun --label --kill"))
    t_first = {}
    for t, e in disp:
        if e.node is not None and e.node not in t_first and e.src in ("agent", "rank"):
            t_first[e.node] = t
            if r.random() < 0.5:
                L.append(("z", "%s/accelerate/utils/other.py:%d: [WARNING] Detected kernel version 4.18.0, which is below the recommended minimum of 5.5.0; this can cause the process to hang. It is recommended to upgrade the kernel to the minimum version or higher."
                          % (run.site(), r.choice([220, 231])) if r.random() < 0.5 else
                          "The following values were not passed to `accelerate launch` and had defaults used instead:\n\t`--dynamo_backend` was set to a value of `'no'`\nTo avoid this warning pass in values for each of the problematic parameters or run `accelerate config`."))
        pre = ("%d: " % e.node) if (label and e.node is not None and e.src != "plat") else ""
        if e.src == "rank":
            L.append((e.kind, pre + tee_prefix(run, e) + e.text))
        else:
            L.append((e.kind, pre + e.text))
    files["slurm-%s.out" % run.jobid] = finalize(L, 800000)
    if r.random() < 0.5:
        files["sacct.txt"] = sacct_text(run, name)
    attachments(run, files, "slurm")
    return files


INSTANCE = {
    "NVIDIA H100 80GB HBM3": ("p5.48xlarge", "a3-highgpu-8g"), "NVIDIA A100-SXM4-80GB": ("p4de.24xlarge", "a2-ultragpu-8g"),
    "NVIDIA A100-SXM4-40GB": ("p4d.24xlarge", "a2-highgpu-8g"), "NVIDIA H200": ("p5e.48xlarge", "a3-ultragpu-8g"),
    "NVIDIA L40S": ("g6e.48xlarge", "g2-standard-96"), "NVIDIA A10G": ("g5.48xlarge", "g2-standard-48"),
}


def r_skypilot(run):
    r = run.rng
    files = {}
    cluster = run.extra["cluster"] = r.choice(["train", "llm-ft", "%s-%s" % (run.user, run.model.split("-")[0]), "sky-%s-%s" % (hexs(r, 4), run.user)])
    managed = run.cause == "preemption" or r.random() < 0.25
    run.extra["sky_exec_pid"] = r.randint(2000, 9000)
    it = INSTANCE[run.gpu]
    cloud = r.choice([("AWS", "us-east-1", "us-east-1f", it[0]), ("GCP", "us-central1", "us-central1-a", it[1]),
                      ("Kubernetes", "gke_proj_us-central1_gpu", "", "%dCPU--%dGB--%d%s" % (8 * run.gpn, 64 * run.gpn, run.gpn, run.gpu.split()[1].split("-")[0])),
                      ("AWS", "us-west-2", "us-west-2b", it[0])])
    acc = {"NVIDIA H100 80GB HBM3": "H100", "NVIDIA A100-SXM4-80GB": "A100-80GB", "NVIDIA A100-SXM4-40GB": "A100", "NVIDIA H200": "H200",
           "NVIDIA L40S": "L40S", "NVIDIA A10G": "A10G"}[run.gpu]
    L = []
    t = run.t0 - r.uniform(200, 600)
    if managed:
        L += ["$ sky jobs launch -n %s task.yaml" % cluster, "Task from YAML spec: task.yaml",
              "Managed job '%s' will be launched on (estimated):" % cluster]
    else:
        L += ["$ sky launch -c %s task.yaml" % cluster, "Task from YAML spec: task.yaml"]
    L += ["Considered resources (%d node%s):" % (run.n_nodes, "s" if run.n_nodes > 1 else ""),
          "-" * 88, " CLOUD        INSTANCE          vCPUs   Mem(GB)   ACCELERATORS   REGION/ZONE       COST ($)   CHOSEN   ",
          "-" * 88, " %-12s %-17s %-7d %-9d %-14s %-17s %-10.2f %s   " % (cloud[0], cloud[3], 192, 2048, "%s:%d" % (acc, run.gpn), cloud[2] or cloud[1], r.uniform(20, 120) * run.n_nodes, "✔"),
          "-" * 88]
    if r.random() < 0.5 or run.healthy:
        L.append("⚙︎ Launching on %s %s (%s)." % (cloud[0], cloud[1], cloud[2] or cloud[1]))
        L.append("W %s cloud_vm_ray_backend.py:%d] sky.exceptions.ResourcesUnavailableError: Failed to acquire resources in %s for {%s(%s, {'%s': %d})}. Try changing resource requirements or use another region."
                 % (ts_sky(t), r.choice([1892, 2011, 2145]), cloud[2] or cloud[1], cloud[0], cloud[3], acc, run.gpn))
        L.append("⚙︎ Retrying launching in %s %s." % (cloud[1], r.choice(["(us-east-1c)", "(us-central1-b)", "(us-west-2a)", ""])))
    else:
        L.append("⚙︎ Launching on %s %s (%s)." % (cloud[0], cloud[1], cloud[2] or cloud[1]))
    L += ["└── Instances are up.", "✓ Cluster launched: %s.  View logs: sky api logs -l sky-%s/provision.log" % (cluster, dtu(t).strftime("%Y-%m-%d-%H-%M-%S-%f")),
          "⚙︎ Syncing files.", "├── Syncing workdir (to %d node%s): . -> ~/sky_workdir" % (run.n_nodes, "s" if run.n_nodes > 1 else ""), "✓ Synced workdir.",
          "⚙︎ Job submitted, ID: %d" % run.extra.setdefault("sky_job", r.randint(1, 9) if not managed else 1),
          "├── Waiting for task resources on %d node%s." % (run.n_nodes, "s" if run.n_nodes > 1 else ""),
          "└── Job started. Streaming logs... (Ctrl-C to exit log streaming; job will not be killed)"]
    items = [("n", x) for x in L]
    setup_pid = [r.randint(1500, 6000) for _ in range(run.n_nodes)]
    for n in range(run.n_nodes):
        pre = "(setup pid=%d) " % setup_pid[n] if n == 0 else "(setup pid=%d, ip=%s) " % (setup_pid[n], run.ips[n])
        for s in ["Requirement already satisfied: torch==%d.%d.%d in /opt/conda/lib/python%s/site-packages (from -r requirements.txt (line 1))" % (run.tv[0], run.tv[1], run.pick("torchpatch", [0, 1]), run.py),
                  "Successfully installed %s" % r.choice(["flash-attn-2.6.3", "datasets-3.0.1 transformers-4.45.2", "wandb-0.18.5"])]:
            items.append(("z", pre + s))
    for a in range(len(run.hist)):
        runpid = [r.randint(2000, 30000) for _ in range(run.n_nodes)]
        if a > 0:
            items.append(("n", "├── Waiting for task resources on %d nodes." % run.n_nodes))
            items.append(("n", "└── Job started. Streaming logs... (Ctrl-C to exit log streaming; job will not be killed)"))
        disp = with_buffering(run, attempt_evs(run, a), a)
        # SkyPilot relays each node's output with its own lag (per-node order is kept)
        chunked = []
        lastd = {}
        lag = {}
        for tt, e in disp:
            if e.node is None:
                continue
            b = int(tt / 5.0)
            if (e.node, b) not in lag:
                lag[(e.node, b)] = r.uniform(0, 0.8) if run.n_nodes > 1 else 0.0
            d = max(lastd.get(e.node, 0.0), tt + lag[(e.node, b)])
            lastd[e.node] = d
            chunked.append((d, e))
        chunked.sort(key=lambda p: (p[0], p[1].seq))
        for tt, e in chunked:
            items.append((e.kind, sky_prefix(run, e.node, runpid[e.node]) + tee_prefix(run, e) + e.text))
        h = run.hist[a]
        if run.healthy or (run.cause == "straggler" and not run.extra.get("straggler_cancel")):
            items.append(("n", "✓ Job finished (status: SUCCEEDED)."))
        elif run.extra.get("recovered_running") and a == len(run.hist) - 1:
            pass
        elif run.extra.get("straggler_cancel"):
            items.append(("n", "✓ Job finished (status: CANCELLED)."))
        elif managed and run.cause == "preemption" and a == 0:
            pass
        else:
            codes = []
            for n in range(run.n_nodes):
                ne = h["node_end"].get(n)
                c = ne[1] if ne else 137
                if c in (143,):
                    c = 137 if r.random() < 0.5 else 143
                if ne and ne[2] in ("summary", "user_cancel"):
                    c = 1 if ne[2] == "summary" else 137
                codes.append(c if c is not None else 137)
            if all(c == 137 for c in codes):
                codes[r.randint(0, len(codes) - 1)] = 1
            reason = ""
            if any(c == 139 for c in codes):
                reason = "(likely due to Segmentation Fault)"
            if any(c == 137 for c in codes):
                non = next(c for c in codes if c != 137)
                reason = "(A Worker failed with return code %d, SkyPilot cleaned up the processes on other nodes with return code 137)" % non
            items.append(("k", "ERROR: Job %d failed with return code list: %s %s" % (run.extra.get("sky_job", 1), codes, reason)))
            items.append(("n", "✗ Job finished (status: FAILED)." if r.random() < 0.6 else "Job finished (status: FAILED)."))
    if not managed:
        j = run.extra.get("sky_job", 1)
        items += [("n", ""), ("n", "📋 Useful Commands"), ("n", "Job ID: %d" % j), ("n", "├── To cancel the job:\t\tsky cancel %s %d" % (cluster, j)),
                  ("n", "├── To stream job logs:\t\tsky logs %s %d" % (cluster, j)), ("n", "└── To view job queue:\t\tsky queue %s" % cluster)]
    files["sky_%s_output.txt" % ("jobs_logs" if managed else "launch")] = finalize(items, 800000)
    if managed:
        C = []
        h0 = run.hist[0]
        t_det = max([v[0] for v in h0["node_end"].values()] + [h0["t_end"]])
        ctl = lambda tt: ts_sky(tt)
        C.append("I %s controller.py:%d] Started monitoring." % (ctl(run.hist[0]["t0"]), r.choice([231, 262])))
        if run.cause == "preemption":
            pe = run.extra["preempt"]
            tp = pe["t"] + r.uniform(15, 90)
            C.append("I %s controller.py:%d] Cluster is preempted or failed%s. Recovering..." % (ctl(tp), r.choice([545, 311]), " (status: INIT)" if r.random() < 0.5 else ""))
            C.append("I %s utils.py:%d] === Recovering... ===" % (ctl(tp + 0.1), r.choice([134, 401])))
            C.append("D %s recovery_strategy.py:%d] Terminating unhealthy cluster and reset cloud region." % (ctl(tp + 0.2), 711))
            C.append("D %s recovery_strategy.py:%d] Relaunch the cluster skipping the previously launched cloud/region." % (ctl(tp + 0.3), 716))
            C.append("I %s recovery_strategy.py:%d] Cluster %s-%d is launched on %s (%s)." % (ctl(tp + r.uniform(200, 900)), 465, cluster, r.randint(1, 9), cloud[0], cloud[1]))
            C.append("I %s controller.py:%d] Managed job %d recovered" % (ctl(run.hist[-1]["t0"]), r.choice([600, 627]), 1))
            C.append("")
            C.append("$ sky jobs queue")
            C.append("Fetching managed job statuses...")
            C.append("Managed jobs")
            C.append("In progress tasks: 1 RECOVERING" if not run.extra.get("recovered_running") else "In progress tasks: 1 RUNNING")
            C.append("ID  TASK  NAME   REQUESTED   SUBMITTED   TOT. DURATION  JOB DURATION  #RECOVERIES  STATUS")
            C.append("1   -     %s  %dx[%s:%d]  2 hrs ago   %s        %s        1            %s" % (cluster, run.n_nodes, acc, run.gpn, hms(run.hist[-1]["t_end"] - run.hist[0]["t0"]), hms(run.hist[-1]["t_end"] - run.hist[-1]["t0"]),
                                                                                         "RUNNING" if run.extra.get("recovered_running") else "RECOVERING"))
        else:
            st = "SUCCEEDED" if run.healthy or (run.cause == "straggler" and not run.extra.get("straggler_cancel")) else ("CANCELLED" if run.extra.get("straggler_cancel") else "FAILED")
            C.append("I %s controller.py:%d] %s" % (ctl(t_det + 5), 311, "The user job failed (JobStatus.FAILED). Please check the logs below." if st == "FAILED" else "Job %s." % st.lower()))
            C.append("")
            C.append("$ sky jobs queue")
            C.append("ID  TASK  NAME   REQUESTED   SUBMITTED   TOT. DURATION  JOB DURATION  #RECOVERIES  STATUS")
            C.append("1   -     %s  %dx[%s:%d]  5 hrs ago   %s        %s        0            %s" % (cluster, run.n_nodes, acc, run.gpn, hms(t_det - run.hist[0]["t0"]), hms(t_det - run.hist[0]["t0"] - 120), st))
        files["sky_jobs_controller.txt"] = "$ sky jobs logs --controller 1\n" + "\n".join(C) + "\n"
    attachments(run, files, "sky")
    return files


def dstack_reason(run, a, n):
    ne = run.hist[a]["node_end"].get(n)
    if ne is None:
        return "DONE_BY_RUNNER"
    if run.cause == "preemption" and ne[2] in ("vanished", "signal") and n == run.extra["preempt"].get("node"):
        return "INTERRUPTED_BY_NO_CAPACITY"
    if run.cause == "host_oom_kill" and ne[2] == "vanished":
        return "CONTAINER_EXITED_WITH_ERROR"
    if ne[1] == 0:
        return "DONE_BY_RUNNER"
    if ne[2] in ("platform",):
        return "TERMINATED_BY_SERVER"
    return "CONTAINER_EXITED_WITH_ERROR"


def r_dstack(run):
    r = run.rng
    files = {}
    name = run.extra["dstack_run"] = "%s-%s-%d" % (r.choice(ADJ), r.choice(NOUN), r.randint(1, 9))
    acc = {"NVIDIA H100 80GB HBM3": "H100:80GB", "NVIDIA A100-SXM4-80GB": "A100:80GB", "NVIDIA A100-SXM4-40GB": "A100:40GB", "NVIDIA H200": "H200:141GB",
           "NVIDIA L40S": "L40S:48GB", "NVIDIA A10G": "A10G:24GB"}[run.gpu]
    retry = run.n_attempts > 1 or r.random() < 0.4
    L = ["$ dstack apply -f .dstack/train.dstack.yml", "",
         " Project              main", " User                 %s" % run.user, " Configuration        .dstack/train.dstack.yml", " Type                 task",
         " Resources            cpu=2.. mem=8GB.. disk=100GB.. gpu=%s:%d" % (acc, run.gpn),
         " Spot policy          %s" % ("auto" if run.cause == "preemption" else r.choice(["on-demand", "auto"])), " Max price            -",
         " Retry policy         %s" % ("on_events=[no-capacity, interruption, error] duration=2h" if retry else "no"),
         " Creation policy      reuse-or-create", " Idle duration        5m", " Max duration         -", " Reservation          -", "",
         " #  BACKEND          RESOURCES                                      INSTANCE TYPE  PRICE",
         " 1  aws (us-east-1)  cpu=192 mem=2048GB disk=100GB %s:%d   %-14s $%.4f" % (acc, run.gpn, INSTANCE[run.gpu][0], r.uniform(40, 99)),
         " 2  gcp (us-central1) cpu=208 mem=1872GB disk=100GB %s:%d  %-14s $%.4f" % (acc, run.gpn, INSTANCE[run.gpu][1], r.uniform(40, 99)),
         "    ...", " Shown 2 of %d offers, $%.4fmax" % (r.randint(5, 40), r.uniform(90, 140)), "",
         "Submit the run %s? [y/n]: y" % name,
         " NAME            BACKEND          RESOURCES                          PRICE     STATUS        SUBMITTED ",
         " %-15s aws (us-east-1)  %d x (cpu=192 mem=2048GB %s:%d)  $%.2f    provisioning  now " % (name, run.n_nodes, acc, run.gpn, r.uniform(40, 99)), ""]
    if run.healthy and r.random() < 0.5:
        L.insert(-2, " %-15s -                -                                  -         pending       now   (no offers, retrying: no-capacity)" % name)
    items = [("n", x) for x in L]
    for a in range(len(run.hist)):
        items.append(("n", "%s provisioning completed (running)" % name))
        disp = with_buffering(run, attempt_evs(run, a), a)
        for tt, e in disp:
            if e.node == 0 and e.src in ("rank", "agent"):
                items.append((e.kind, tee_prefix(run, e) + e.text))
        if a < len(run.hist) - 1:
            items.append(("n", "%s failed, retrying (submission %d)" % (name, a + 2) if r.random() < 0.5 else "%s pending (retrying)" % name))
    final_reason = dstack_reason(run, len(run.hist) - 1, 0)
    if run.healthy or (run.cause == "straggler" and not run.extra.get("straggler_cancel")):
        items.append(("n", ""))
    elif run.extra.get("recovered_running"):
        pass
    elif run.extra.get("straggler_cancel"):
        items.append(("n", "Run %s stopped" % name))
    else:
        items.append(("k", "Run failed with error code %s. Check CLI and server logs for more details." % final_reason))
    files["dstack_apply.txt"] = finalize(items, 600000)
    # logs of other jobs (worker nodes): the user fetched some of them
    nodes_fetch = [n for n in range(1, run.n_nodes)]
    if len(nodes_fetch) > 6:
        keep = set(r.sample(nodes_fetch, 4))
        ff = first_failure(run, len(run.hist) - 1, True)
        if ff is not None and run.node_of(ff) != 0:
            keep.add(run.node_of(ff))
        if getattr(run, "_picked", None) is not None and run.node_of(run._picked) != 0:
            keep.add(run.node_of(run._picked))
        nodes_fetch = sorted(keep)
    a = len(run.hist) - 1
    disp = with_buffering(run, attempt_evs(run, a), a)
    for n in nodes_fetch:
        if r.random() < 0.25 and n != (run.node_of(run._picked) if getattr(run, "_picked", None) is not None else -1):
            continue
        it = [("n", "$ dstack logs %s --job %d" % (name, n))]
        for tt, e in disp:
            if e.node == n and e.src in ("rank", "agent"):
                it.append((e.kind, tee_prefix(run, e) + e.text))
        files["dstack_logs_job%d.txt" % n] = finalize(it, 300000)
    # dstack ps -v
    P = ["$ dstack ps -a -v", " NAME                    BACKEND          RESOURCES                 PRICE    STATUS      SUBMITTED     ERROR"]
    run_status = "done" if (run.healthy or (run.cause == "straggler" and not run.extra.get("straggler_cancel"))) else ("running" if run.extra.get("recovered_running") else
                                                                                                                     ("terminated" if run.extra.get("straggler_cancel") else "failed"))
    run_err = "" if run_status in ("done", "running") else ("STOPPED_BY_USER" if run_status == "terminated" else ("RETRY_LIMIT_EXCEEDED" if retry and run.n_attempts > 1 else "JOB_FAILED"))
    P.append(" %-23s %-16s %-25s $%-7.2f %-11s %-13s %s" % (name, "", "", r.uniform(100, 800), run_status, "%d hours ago" % r.randint(1, 9), run_err))
    for n in range(run.n_nodes):
        rs = dstack_reason(run, a, n)
        st = "done" if rs == "DONE_BY_RUNNER" else ("terminated" if rs in ("TERMINATED_BY_SERVER", "INTERRUPTED_BY_NO_CAPACITY") else "failed")
        if run.extra.get("recovered_running"):
            st, rs = "running", ""
        P.append("   replica=0 job=%-4d aws (us-east-1)  cpu=192 mem=2048GB %s:%d  $%.4f  %-11s %-13s %s" % (n, acc, run.gpn, r.uniform(40, 99), st, "", rs if st != "done" else ""))
    files["dstack_ps.txt"] = "\n".join(P) + "\n"
    # event log (UI "Events" tab / server log)
    E = []
    for a in range(len(run.hist)):
        h = run.hist[a]
        E.append("%s Run main/%s Run status changed %s -> SUBMITTED" % (dtu(h["t0"] - 300).strftime("%m/%d/%Y %H:%M"), name, "PENDING" if a else "SUBMITTED"))
        E.append("%s Run main/%s Run status changed SUBMITTED -> PROVISIONING" % (dtu(h["t0"] - 200).strftime("%m/%d/%Y %H:%M"), name))
        E.append("%s Run main/%s Run status changed PROVISIONING -> RUNNING" % (dtu(h["t0"] - 10).strftime("%m/%d/%Y %H:%M"), name))
        ends = sorted(((v[0], n) for n, v in h["node_end"].items()))
        for tt, n in ends:
            rs = dstack_reason(run, a, n)
            if rs == "DONE_BY_RUNNER":
                E.append("%s Job main/%s-0-%d Job status changed RUNNING -> TERMINATING. Termination reason: DONE_BY_RUNNER" % (dtu(tt).strftime("%m/%d/%Y %H:%M"), name, n))
                continue
            E.append("%s Job main/%s-0-%d Job status changed RUNNING -> TERMINATING. Termination reason: %s" % (dtu(tt + 2).strftime("%m/%d/%Y %H:%M"), name, n, rs))
            E.append("%s Job main/%s-0-%d Job status changed TERMINATING -> %s" % (dtu(tt + 12).strftime("%m/%d/%Y %H:%M"), name, n, "FAILED" if rs == "CONTAINER_EXITED_WITH_ERROR" else "TERMINATED"))
        if a < len(run.hist) - 1:
            E.append("%s Run main/%s Run status changed RUNNING -> PENDING" % (dtu(h["t_end"] + 20).strftime("%m/%d/%Y %H:%M"), name))
        elif run_err:
            E.append("%s Run main/%s Run status changed RUNNING -> TERMINATING. Termination reason: %s" % (dtu(h["t_end"] + 20).strftime("%m/%d/%Y %H:%M"), name, run_err))
            E.append("%s Run main/%s Run status changed TERMINATING -> %s" % (dtu(h["t_end"] + 40).strftime("%m/%d/%Y %H:%M"), name, run_status.upper()))
    if r.random() < 0.6:
        files["dstack_events.txt"] = "\n".join(E) + "\n"
    attachments(run, files, "slurm")
    return files


import re as _re
_NUMW = _re.compile(r"\S*\d\S*")


def ray_dedup(items, enabled):
    """Ray's log deduplication: lines equal up to words containing digits are batched per 5 s window"""
    if not enabled:
        return [(k, t) for _, k, t, _p in items]
    out = []
    win = {}
    order = []
    hint = [False]

    def flush(upto):
        for pat in list(order):
            w = win[pat]
            if w["end"] <= upto:
                if w["n"] > 0:
                    out.append((w["kind"], "%s [repeated %dx across cluster]%s" % (w["last"], w["n"],
                                                                                   "" if hint[0] else " (Ray deduplicates logs by default. Set RAY_DEDUP_LOGS=0 to disable log deduplication, or see https://docs.ray.io/en/master/ray-observability/user-guides/configure-logging.html#log-deduplication for more options.)")))
                    hint[0] = True
                del win[pat]
                order.remove(pat)
    for t, kind, text, prefix in items:
        flush(t)
        if prefix is None:
            out.append((kind, text))
            continue
        body = text[len(prefix):]
        pat = _NUMW.sub("#", body)
        if pat in win:
            win[pat]["n"] += 1
            win[pat]["last"] = text
            if kind == "k":
                win[pat]["kind"] = "k"
        else:
            win[pat] = {"end": t + 5.0, "n": 0, "last": text, "kind": kind}
            order.append(pat)
            out.append((kind, text))
    flush(float("inf"))
    return out


def actor_id(r):
    return hexs(r, 24) + "01000000"


def r_ray_train(run):
    r = run.rng
    files = {}
    s = run.site()
    head_ip = run.ips[0]
    trainer_pid = r.randint(1000, 9000)
    trial = "TorchTrainer_%s_00000" % hexs(r, 5)
    sess = "session_%s_%06d_%d" % (dtu(run.hist[0]["t0"] - 3000).strftime("%Y-%m-%d_%H-%M-%S"), r.randint(0, 999999), r.randint(1, 999))
    storage = "/mnt/cluster_storage/ray_results/TorchTrainer_%s" % dtu(run.hist[0]["t0"]).strftime("%Y-%m-%d_%H-%M-%S")
    dedup = r.random() < 0.8
    items = []
    t = run.hist[0]["t0"] - r.uniform(5, 20)
    items.append((t, "n", "%s\tINFO worker.py:%d -- Connecting to existing Ray cluster at address: %s:6379..." % (ts_py(t), r.choice([1601, 1612, 1783]), head_ip), None))
    items.append((t + 0.3, "n", "%s\tINFO worker.py:%d -- Connected to Ray cluster. View the dashboard at %s:8265 " % (ts_py(t + 0.3), r.choice([1777, 1789, 1951]), head_ip), None))
    items.append((t + 1, "n", "", None))
    items.append((t + 1, "n", "View detailed results here: %s" % storage, None))
    items.append((t + 1, "n", "To visualize your results with TensorBoard, run: `tensorboard --logdir /tmp/ray/%s/artifacts/%s/TorchTrainer_%s/driver_artifacts`"
                  % (sess, dtu(t).strftime("%Y-%m-%d_%H-%M-%S"), dtu(t).strftime("%Y-%m-%d_%H-%M-%S")), None))
    items.append((t + 2, "n", "\nTraining started with configuration:\n╭──────────────────────────────────────────╮\n│ Training config                          │\n├──────────────────────────────────────────┤\n│ train_loop_config/batch_size          %2d │\n│ train_loop_config/epochs               %d │\n│ train_loop_config/lr             %.0e │\n╰──────────────────────────────────────────╯"
                  % (r.choice([8, 16, 32]), r.randint(1, 5), run.lr), None))
    fails = []
    for a in range(len(run.hist)):
        h = run.hist[a]
        pids = h["pids"]

        def pre(rk):
            n = run.node_of(rk)
            return "(RayTrainWorker pid=%d%s) " % (pids[rk], "" if n == 0 else ", ip=%s" % run.ips[n])
        tt = h["t0"] + 2
        items.append((tt, "n", "(TorchTrainer pid=%d) Started distributed worker processes: " % trainer_pid, None))
        for rk in range(run.world):
            items.append((tt + 0.001 * rk, "z", "(TorchTrainer pid=%d) - (node_id=%s, ip=%s, pid=%d) world_rank=%d, local_rank=%d, node_rank=%d"
                          % (trainer_pid, run.extra.setdefault(("nodeid", run.node_of(rk)), hexs(r, 56)), run.ips[run.node_of(rk)], pids[rk], rk, run.local_of(rk), run.node_of(rk)), None))
        disp = with_buffering(run, attempt_evs(run, a), a)
        for t2, e in disp:
            if e.src == "rank":
                p = pre(e.rank)
                items.append((t2, e.kind, p + e.text, p))
        # raylet OOM kill report
        oom = run.extra.get("ray_oom", {}).get(a)
        if oom:
            n = oom["node"]
            ip = run.ips[n]
            tt = run.hist[a]["exits"][oom["rank"]].t + r.uniform(0.5, 3.0)
            items.append((tt, "k", "(raylet%s) [%s E %d %d] (raylet) node_manager.cc:%d: 1 Workers (tasks / actors) killed due to memory pressure (OOM), 0 Workers crashed due to other reasons at node (ID: %s, IP: %s) over the last time period. To see more information about the Workers killed on this node, use `ray logs raylet.out -ip %s`"
                          % ("" if n == 0 else ", ip=%s" % ip, ts_py(run.clk(n, tt)), r.randint(100, 900), r.randint(100, 900), r.choice([3040, 3069, 3084]), run.extra.setdefault(("nodeid", n), hexs(r, 56)), ip, ip), None))
            items.append((tt, "n", "(raylet%s) " % ("" if n == 0 else ", ip=%s" % ip), None))
            items.append((tt, "n", "(raylet%s) Refer to the documentation on how to address the out of memory issue: https://docs.ray.io/en/latest/ray-core/scheduling/ray-oom-prevention.html. Consider provisioning more memory on this node or reducing task parallelism by requesting more CPUs per task. To adjust the kill threshold, set the environment variable `RAY_memory_usage_threshold` when starting Ray. To disable worker killing, set the environment variable `RAY_memory_monitor_refresh_ms` to zero." % ("" if n == 0 else ", ip=%s" % ip), None))
        # node death
        for n, tv in sorted(h["vanished"].items()):
            tt = tv + r.uniform(20, 40)
            items.append((tt, "k", "%s\tWARNING worker.py:%d -- The node with node id: %s and address: %s and node name: %s has been marked dead because the detector has missed too many heartbeats from it. This can happen when a \t(1) raylet crashes unexpectedly (OOM, etc.) \n\t(2) raylet has lagging heartbeats due to slow network or busy workload."
                          % (ts_py(tt), r.choice([2216, 2253]), run.extra.setdefault(("nodeid", n), hexs(r, 56)), run.ips[n], run.ips[n]), None))
        # what the driver reports: the first worker failure Ray observed
        if run.healthy or run.extra.get("recovered_running") and a == len(run.hist) - 1:
            continue
        if run.cause == "straggler":
            continue
        rf = h.get("ray_first")
        if rf is None:
            rf = first_failure(run, a)
        if rf is None:
            continue
        ex = h["exits"][rf]
        tt = max(ex.t, h.get("t_end", ex.t) - 1.0) + r.uniform(0.5, 2.0)
        tt = ex.t + r.uniform(1.0, 4.0)
        node = run.node_of(rf)
        ip = run.ips[node]
        inner_repr = "ray::_RayTrainWorker__execute.get_next() (pid=%d, ip=%s, actor_id=%s, repr=<ray.train._internal.worker_group.RayTrainWorker object at 0x7f%s>)" % (pids[rf], ip, actor_id(r), hexs(r, 9))
        if ex.code == 1 and ex.why in ("cause", "cause2"):
            errs = [e.text for e in attempt_evs(run, a) if e.rank == rf and e.stream == "err"]
            idx = max([i for i, l in enumerate(errs) if l.startswith("Traceback (most recent call last):")] or [0])
            body = errs[idx + 1:]
            exc_line = body[-1] if body else "RuntimeError"
            cls = exc_line.split(":")[0].split(".")[-1]
            inner = "ray.exceptions.RayTaskError(%s): %s\n%s" % (cls, inner_repr, "\n".join(body))
            outer_cls = cls
        elif node in h["vanished"] or ex.why == "vanished":
            inner = ("ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.\n\tclass_name: RayTrainWorker\n\tactor_id: %s\n\tpid: %d\n\tnamespace: %s\n\tip: %s\n"
                     "The actor died because its node has died. Node Id: %s\n\tthe actor's node was terminated unexpectedly: health check failed due to missing too many heartbeats"
                     % (actor_id(r), pids[rf], "%s-%s-%s-%s-%s" % (hexs(r, 8), hexs(r, 4), hexs(r, 4), hexs(r, 4), hexs(r, 12)), ip, run.extra.setdefault(("nodeid", node), hexs(r, 56))))
            outer_cls = "ActorDiedError"
        elif oom and rf == oom["rank"]:
            used = oom["used"] * oom["tot"]
            inner = ("ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.\n\tclass_name: RayTrainWorker\n\tactor_id: %s\n\tpid: %d\n\tnamespace: %s\n\tip: %s\n"
                     "The actor is dead because its worker process has died. Worker exit type: NODE_OUT_OF_MEMORY Worker exit detail: Task was killed due to the node running low on memory.\n"
                     "Memory on the node (IP: %s, ID: %s) where the task (actor ID: %s, name=RayTrainWorker.__init__, pid=%d, memory used=%.2fGB) was running was %.2fGB / %.2fGB (%.6f), which exceeds the memory usage threshold of 0.95. "
                     "Ray killed this worker (ID: %s) because it was the most recently scheduled task; to see more information about memory usage on this node, use `ray logs raylet.out -ip %s`. "
                     "To see the logs of the worker, use `ray logs worker-%s*out -ip %s. Top 10 memory users:\nPID\tMEM(GB)\tCOMMAND\n%d\t%.2f\tray::RayTrainWorker.__execute\n%s"
                     % (actor_id(r), pids[rf], "%s-%s-%s-%s-%s" % (hexs(r, 8), hexs(r, 4), hexs(r, 4), hexs(r, 4), hexs(r, 12)), ip, ip, run.extra.setdefault(("nodeid", node), hexs(r, 56)), actor_id(r), pids[rf], used * 0.4, used, oom["tot"], oom["used"],
                        hexs(r, 56), ip, hexs(r, 56), ip, pids[rf], used * 0.4,
                        "\n".join("%d\t%.2f\tray::RayTrainWorker.__execute" % (pids[x], used * r.uniform(0.05, 0.1)) for x in run.ranks_of(node) if x != rf)[:600]))
            outer_cls = "ActorDiedError"
        else:
            inner = ("ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.\n\tclass_name: RayTrainWorker\n\tactor_id: %s\n\tpid: %d\n\tnamespace: %s\n\tip: %s\n"
                     "The actor is dead because its worker process has died. Worker exit type: SYSTEM_ERROR Worker exit detail: Worker unexpectedly exits with a connection error code 2. End of file. There are some potential root causes. "
                     "(1) The process is killed by SIGKILL by OOM killer due to high memory usage. (2) ray stop --force is called. (3) The worker is crashed unexpectedly due to SIGSEGV or other unexpected errors."
                     % (actor_id(r), pids[rf], "%s-%s-%s-%s-%s" % (hexs(r, 8), hexs(r, 4), hexs(r, 4), hexs(r, 4), hexs(r, 12)), ip))
            outer_cls = "ActorDiedError"
            items.append((tt - 0.5, "n", "(raylet%s) A worker died or was killed while executing a task by an unexpected system error. To troubleshoot the problem, check the logs for the dead worker. RayTask ID: %s Worker ID: %s Node ID: %s Worker IP address: %s Worker port: %d Worker PID: %d Worker exit type: SYSTEM_ERROR Worker exit detail: Worker unexpectedly exits with a connection error code 2. End of file. There are some potential root causes. (1) The process is killed by SIGKILL by OOM killer due to high memory usage. (2) ray stop --force is called. (3) The worker is crashed unexpectedly due to SIGSEGV or other unexpected errors."
                          % ("" if node == 0 else ", ip=%s" % ip, hexs(r, 48), hexs(r, 56), run.extra.setdefault(("nodeid", node), hexs(r, 56)), ip, r.randint(10000, 11000), pids[rf]), None))
        trace = tb([(s + "/ray/air/execution/_internal/event_manager.py", 110, "resolve_future", "result = ray.get(future)"),
                    (s + "/ray/_private/auto_init_hook.py", 21, "auto_init_wrapper", "return fn(*args, **kwargs)"),
                    (s + "/ray/_private/client_mode_hook.py", 103, "wrapper", "return func(*args, **kwargs)"),
                    (s + "/ray/_private/worker.py", r.choice([2639, 2667, 2755]), "get", "values, debugger_breakpoint = worker.get_objects(object_refs, timeout=timeout)"),
                    (s + "/ray/_private/worker.py", r.choice([864, 871]), "get_objects", "raise value.as_instanceof_cause()")],
                   "ray.exceptions.RayTaskError(%s): ray::_Inner.train() (pid=%d, ip=%s, actor_id=%s, repr=TorchTrainer)\n"
                   "  File \"%s/ray/tune/trainable/trainable.py\", line 331, in train\n    raise skipped from exception_cause(skipped)\n"
                   "  File \"%s/ray/train/_internal/utils.py\", line 57, in check_for_failure\n    ray.get(object_ref)\n%s"
                   % (outer_cls, trainer_pid, head_ip, actor_id(r), s, s, inner))
        items.append((tt, "k", "%s\tERROR tune_controller.py:%d -- Trial task failed for trial %s\n%s" % (ts_py(tt), r.choice([1331, 1374]), trial, trace), None))
        fails.append((tt, a))
        if a < len(run.hist) - 1:
            items.append((tt + 1, "n", "\nTraining errored after %d iterations at %s. Total running time: %s\nError file: /tmp/ray/%s/artifacts/%s/TorchTrainer_%s/driver_artifacts/%s_0_%s/error.txt"
                          % (r.randint(1, 40), dtu(tt).strftime("%Y-%m-%d %H:%M:%S"), hms(tt - run.hist[0]["t0"]), sess, dtu(run.hist[0]["t0"]).strftime("%Y-%m-%d_%H-%M-%S"),
                             dtu(run.hist[0]["t0"]).strftime("%Y-%m-%d_%H-%M-%S"), trial, dtu(run.hist[0]["t0"]).strftime("%Y-%m-%d_%H-%M-%S")), None))
            items.append((run.hist[a + 1]["t0"], "n", "(TorchTrainer pid=%d) Restored on %s from checkpoint: Checkpoint(filesystem=local, path=%s/%s/checkpoint_%06d)"
                          % (trainer_pid, head_ip, storage, trial, r.randint(0, 40)), None))
    items.sort(key=lambda p: p[0])
    out = ray_dedup(items, dedup)
    last_t = run.hist[-1]["t_end"]
    if run.healthy or (run.cause == "straggler"):
        out.append(("n", "\nTraining completed after %d iterations at %s. Total running time: %s" % (r.randint(5, 80), dtu(last_t).strftime("%Y-%m-%d %H:%M:%S"), hms(last_t - run.hist[0]["t0"]))))
        if run.extra.get("straggler_cancel"):
            out[-1] = ("n", "^C%s\tWARNING tune.py:%d -- Stop signal received (e.g. via SIGINT/Ctrl+C), ending Ray Tune run. This will try to checkpoint the experiment state one last time. Press CTRL+C (or send SIGINT/SIGKILL/SIGTERM) to skip. "
                       % (ts_py(last_t), r.choice([219, 232])))
    elif not run.extra.get("recovered_running"):
        tt = fails[-1][0] if fails else last_t
        out.append(("n", "\nTraining errored after %d iterations at %s. Total running time: %s\nError file: /tmp/ray/%s/artifacts/%s/TorchTrainer_%s/driver_artifacts/%s_0_%s/error.txt"
                    % (r.randint(1, 40), dtu(tt).strftime("%Y-%m-%d %H:%M:%S"), hms(tt - run.hist[0]["t0"]), sess, dtu(run.hist[0]["t0"]).strftime("%Y-%m-%d_%H-%M-%S"),
                       dtu(run.hist[0]["t0"]).strftime("%Y-%m-%d_%H-%M-%S"), trial, dtu(run.hist[0]["t0"]).strftime("%Y-%m-%d_%H-%M-%S"))))
        out.append(("n", "%s\tERROR tune.py:%d -- Trials did not complete: [%s]" % (ts_py(tt + 2), r.choice([1035, 1037]), trial)))
        out.append(("n", tb([(run.script, r.randint(150, 260), "<module>", "result = trainer.fit()"),
                             (s + "/ray/train/base_trainer.py", r.choice([638, 653, 722]), "fit", "raise TrainingFailedError(")],
                            "ray.train.base_trainer.TrainingFailedError: The Ray Train run failed. Please inspect the previous error messages for a cause. After fixing the issue (assuming that the error is not caused by your own application logic, but rather an error such as OOM), you can restart the run from scratch or continue this run.\n"
                            "To continue this run, you can use: `trainer = TorchTrainer.restore(\"%s\")`.\n"
                            "To start a new run that will retry on training failures, set `train.RunConfig(failure_config=train.FailureConfig(max_failures))` in the Trainer's `run_config` with `max_failures > 0`, or `max_failures = -1` for unlimited retries." % storage)))
    files["driver.log" if r.random() < 0.5 else "ray_job_logs.txt"] = finalize(out, 850000)
    if run.cause == "preemption" and r.random() < 0.8:
        n = run.extra["preempt"].get("node", 1)
        tt = run.extra["preempt"]["t"]
        node_k8s = "ip-%s.ec2.internal" % run.ips[n].replace(".", "-")
        files["kubectl_get_events.txt"] = "\n".join([
            "LAST SEEN   TYPE      REASON                  OBJECT                                      MESSAGE",
            "%-11s Warning   SpotInterruption        node/%s     Received Spot interruption notice for instance i-0%s; instance will be terminated at %s" % ("%dm" % r.randint(20, 60), node_k8s, hexs(r, 16), ts_iso_s(tt + 5)),
            "%-11s Normal    NodeNotReady            pod/%s   Node is not ready" % ("%dm" % r.randint(10, 19), run.hosts[n]),
            "%-11s Normal    RemovingNode            node/%s     Node %s event: Removing Node %s from Controller" % ("%dm" % r.randint(5, 9), node_k8s, node_k8s, node_k8s), ""])
    attachments(run, files, "ray")
    return files


def r_determined(run):
    r = run.rng
    files = {}
    tid = r.randint(10, 4000)
    eid = r.randint(5, 900)
    max_restarts = max(0, len(run.hist) - 1 + r.choice([0, 0, 2])) if not run.healthy else r.choice([0, 5])
    agents = run.extra["det_agents"] = ["%s-%02d" % (r.choice(["gpu-node", "dgx", "hgx", "det-agent"]), k) for k in sorted(r.sample(range(1, 80), run.n_nodes))]
    items = []
    blank = " " * 8
    for a in range(len(run.hist)):
        h = run.hist[a]
        cids = [run.hosts[n][:8] for n in range(run.n_nodes)]
        img = run.pick("detimg", ["0.36.0", "0.37.1", "0.38.0"])
        t = h["t0"] - r.uniform(20, 60)
        items.append((t, "n", "[%s] %s || INFO: Scheduling Trial %d (Experiment %d) (id: %d)" % (ts_iso(t), blank, tid, eid, tid)))
        items.append((t + 1, "n", "[%s] %s || INFO: Trial %d (Experiment %d) was assigned to an agent" % (ts_iso(t + 1), blank, tid, eid)))
        for n in range(run.n_nodes):
            tn = run.clk(n, t + 2 + r.uniform(0, 5))
            items.append((tn, "z", "[%s] %s || INFO: image already found, skipping pull phase: docker.io/determinedai/pytorch-ngc:%s" % (ts_iso(tn), cids[n], img)))
            items.append((tn + 0.2, "z", "[%s] %s || INFO: copying files to container: /run/determined" % (ts_iso(tn + 0.2), cids[n])))
            items.append((tn + 0.5, "n", "[%s] %s || INFO: Resources for Trial %d (Experiment %d) have started" % (ts_iso(tn + 0.5), cids[n], tid, eid)))
            items.append((tn + 3, "z", "[%s] %s || INFO: [%d] determined: detected %d gpus" % (ts_iso(tn + 3), cids[n], 8, run.gpn)))
            items.append((tn + 3.1, "n", "[%s] %s || INFO: [%d] determined: Running task container on agent_id=%s, hostname=%s with visible GPUs %s"
                          % (ts_iso(tn + 3.1), cids[n], 8, agents[n], run.hosts[n], str([gpu_uuid(run, n, g) for g in range(min(run.gpn, 2))])[:-1] + (", ...]" if run.gpn > 2 else "]"))))
            items.append((tn + 3.3, "z", "[%s] %s || + test -f startup-hook.sh" % (ts_iso(tn + 3.3), cids[n])))
            items.append((tn + 4, "n", "[%s] %s || INFO: [%d] determined.launch.torch_distributed: torch distributed launching with: ['python3', '-m', 'torch.distributed.run', '--nnodes', '%d', '--nproc_per_node', '%d', '--master_addr', '%s', '--master_port', '29400', '--node_rank', '%d', '-m', 'determined.launch.wrap_rank', 'RANK', '--', 'python3', '%s']"
                          % (ts_iso(tn + 4), cids[n], 8, run.n_nodes, run.gpn, run.ips[0], n, os.path.basename(run.script))))
        disp = with_buffering(run, attempt_evs(run, a), a)
        for t2, e in disp:
            if e.node is None:
                continue
            tt = run.clk(e.node, t2)
            if e.src == "rank":
                items.append((t2, e.kind, "[%s] %s [rank=%d] || %s" % (ts_iso(tt), cids[e.node], e.rank, e.text)))
            elif e.src in ("agent", "plat"):
                items.append((t2, e.kind, "[%s] %s || %s" % (ts_iso(tt), cids[e.node], e.text)))
        ends = sorted(((v[0], n, v) for n, v in h["node_end"].items()), key=lambda p: p[0])
        failed = [(tt, n, v) for tt, n, v in ends if v[1] not in (0,)]
        if run.healthy or (run.cause == "straggler" and not run.extra.get("straggler_cancel")):
            tt = ends[-1][0] + 2
            items.append((tt, "n", "[%s] %s || INFO: Trial %d (Experiment %d) was terminated: allocation stopped after resources exited successfully with a zero exit code" % (ts_iso(tt), blank, tid, eid)))
            continue
        if run.extra.get("straggler_cancel"):
            tt = ends[0][0]
            items.append((tt, "n", "[%s] %s || INFO: Trial %d (Experiment %d) was terminated: allocation stopped early after all resources exited: task killed by user" % (ts_iso(tt), blank, tid, eid)))
            continue
        if run.cause == "preemption" and run.extra["preempt"]["mode"] == "whole" and a == 0:
            tp = run.extra["preempt"]["t"] - r.uniform(30, 90)
            items.append((tp, "k", "[%s] %s || INFO: Trial %d (Experiment %d) was preempted by the scheduler (a higher priority job requested resources); sending SIGTERM after %ds grace period" % (ts_iso(tp), blank, tid, eid, int(run.extra["preempt"]["t"] - tp))))
        if failed:
            tt, n, v = failed[0]
            code = v[1] if v[1] is not None else 137
            code = 137 if v[2] == "vanished" else code
            items.append((tt + 0.5, "k", "[%s] %s || ERROR: crashed: resources failed with non-zero exit code: container failed with non-zero exit code: %d (exit code %d)" % (ts_iso(run.clk(n, tt + 0.5)), cids[n], code, code)))
            last = failed[-1][0] + 1.0
            msg = "allocation failed: resources failed with non-zero exit code: container failed with non-zero exit code: %d (exit code %d)" % (code, code)
            if a < len(run.hist) - 1:
                items.append((last, "n", "[%s] %s || INFO: Trial %d (Experiment %d) was terminated: %s" % (ts_iso(last), blank, tid, eid, msg)))
                items.append((last + 0.1, "n", "[%s] %s || WARNING: restarting trial %d (restart %d/%d)" % (ts_iso(last + 0.1), blank, tid, a + 1, max_restarts)))
            else:
                items.append((last, "k", "[%s] %s || ERROR: Trial %d (Experiment %d) was terminated: %s" % (ts_iso(last), blank, tid, eid, msg)))
    items.sort(key=lambda p: p[0])
    out = [(k, t) for _, k, t in items]
    out.append(("n", "Trial log stream ended. To reopen log stream, run: det trial logs -f %d" % tid))
    files["trial_%d_logs.txt" % tid] = "$ det trial logs %d\n" % tid + finalize(out, 850000)
    if r.random() < 0.5:
        files["experiment_%d.yaml" % eid] = "\n".join([
            "name: %s-%s" % (run.model, r.choice(["pretrain", "sft", "ablation"])), "entrypoint: python3 -m determined.launch.torch_distributed python3 %s" % os.path.basename(run.script),
            "resources:", "  slots_per_trial: %d" % run.world, "  resource_pool: %s" % r.choice(["a100", "h100", "default"]),
            "max_restarts: %d" % max_restarts, "searcher:", "  name: single", "  metric: loss", "  max_length: %d" % run.total_steps,
            "environment:", "  environment_variables:", "    - NCCL_DEBUG=%s" % ("INFO" if run.nccl_debug else ("WARN" if run.nccl_warn else "")), ""])
    attachments(run, files, "determined")
    return files


def r_lightning_multinode(run):
    r = run.rng
    files = {}
    jobname = "%s-%s" % (r.choice(ADJ), r.choice(NOUN))
    machine = {"NVIDIA H100 80GB HBM3": "H100", "NVIDIA A100-SXM4-80GB": "A100", "NVIDIA A100-SXM4-40GB": "A100", "NVIDIA H200": "H200",
               "NVIDIA L40S": "L40S", "NVIDIA A10G": "A10G"}[run.gpu]
    a = 0
    disp = with_buffering(run, attempt_evs(run, a), a)
    h = run.hist[a]
    for n in range(run.n_nodes):
        if run.n_nodes > 8 and n not in (0,) and r.random() < 0.5:
            rk0 = getattr(run, "_picked", 0)
            if n != run.node_of(rk0):
                continue
        it = [("n", "$ lightning run job --name %s --num-nodes %d --machine %s_X_%d --command 'python %s'" % (jobname, run.n_nodes, machine, run.gpn, os.path.basename(run.script))) if n == 0 else ("n", "")]
        it.append(("n", "[machine %d/%d] %s  node_rank=%d  MASTER_ADDR=%s MASTER_PORT=%d  WORLD_SIZE=%d" % (n, run.n_nodes, run.hosts[n], n, run.ips[0], run.master_port, run.world)))
        for t, e in disp:
            if e.node == n and e.src in ("rank", "agent", "plat"):
                it.append((e.kind, e.text))
        ne = h["node_end"].get(n)
        if ne:
            if ne[2] == "vanished":
                pass
            else:
                code = ne[1] if ne[1] is not None else 1
                it.append(("n", "[machine %d/%d] process exited with code %d" % (n, run.n_nodes, code if code in (0, 1) else shell_code(-9) if code == 137 else code)))
        files["logs/machine-%d.log" % n] = finalize(it, 400000 if run.n_nodes <= 8 else 120000)
    S = ["Job: %s" % jobname, "Machines: %d x %s_X_%d" % (run.n_nodes, machine, run.gpn)]
    status = "Completed" if (run.healthy or (run.cause == "straggler" and not run.extra.get("straggler_cancel"))) else ("Stopped" if run.extra.get("straggler_cancel") else "Failed")
    S.append("Status: %s" % status)
    for n in range(run.n_nodes):
        ne = h["node_end"].get(n)
        if ne is None:
            st = "Running"
        elif ne[2] == "vanished" or (run.cause == "preemption" and n == run.extra.get("preempt", {}).get("node")):
            st = "Interrupted (spot instance reclaimed)"
        elif ne[1] == 0:
            st = "Completed"
        else:
            st = "Failed (exit code %d)" % (1 if ne[1] in (1, None) else ne[1])
        S.append("  machine %d  %-22s %s" % (n, run.hosts[n], st))
    files["job_status.txt"] = "\n".join(S) + "\n"
    attachments(run, files, "slurm")
    return files


def r_modal_clustered(run):
    r = run.rng
    files = {}
    s = "/usr/local/lib/python%s/site-packages" % run.py
    app = "ap-%s" % b36(r, 22)
    ws = r.choice([run.user, "%s-lab" % run.user, "ml-platform"])
    fn = r.choice(["train_multinode", "train", "launch_torchrun"])
    a = 0
    L = [("n", "$ modal run %s" % os.path.basename(run.script)),
         ("n", "✓ Initialized. View run at https://modal.com/apps/%s/main/%s" % (ws, app)),
         ("n", "✓ Created objects."),
         ("n", "├── 🔨 Created mount %s" % ("/Users/%s/code/%s/%s" % (run.user, run.model, os.path.basename(run.script)))),
         ("n", "├── 🔨 Created mount PythonPackage:%s" % r.choice(["utils", "model", "data"])),
         ("n", "└── 🔨 Created function %s." % fn)]
    disp = with_buffering(run, attempt_evs(run, a), a)
    first = {}
    for t, e in disp:
        if e.node is None:
            continue
        if e.node not in first:
            first[e.node] = True
            L.append(("z", "[cluster] rank=%d/%d container_ip=%s main_addr=%s" % (e.node, run.n_nodes, "fd00::%s" % hexs(r, 4) if r.random() < 0.5 else run.ips[e.node], run.ips[0])))
        if e.src in ("rank", "agent"):
            L.append((e.kind, tee_prefix(run, e) + e.text))
    for label, lines in inline_attach_lines(run):
        for x in lines:
            L.append(("k", x))
    h = run.hist[a]
    if run.healthy or (run.cause == "straggler" and not run.extra.get("straggler_cancel")):
        L.append(("n", "Stopping app - local entrypoint completed."))
        L.append(("n", "✓ App completed. View run at https://modal.com/apps/%s/main/%s" % (ws, app)))
    elif run.extra.get("straggler_cancel"):
        L.append(("n", "^CStopping app - local entrypoint was interrupted (KeyboardInterrupt)."))
    else:
        if run.cause == "preemption":
            L.append(("k", "Runner interrupted due to worker preemption. Function will be restarted with the same input."))
        ne0 = h["node_end"].get(0)
        code = 1 if (ne0 is None or ne0[2] == "summary") else (-15 if ne0[1] == 143 else -9)
        cmd = "['torchrun', '--nnodes=%d', '--nproc-per-node=%d', '--node-rank=0', '--master-addr=%s', '--master-port=%d', '%s']" % (
            run.n_nodes, run.gpn, run.ips[0], run.master_port, run.script)
        exc = "subprocess.CalledProcessError: Command '%s' returned non-zero exit status %d." % (cmd, code) if code > 0 else \
            "subprocess.CalledProcessError: Command '%s' died with <Signals.%s: %d>." % (cmd, sig_name(code), -code)
        L.append(("k", tb([("/pkg/modal/_runtime/container_io_manager.py", r.choice([703, 778]), "handle_input_exception", "yield"),
                           ("/pkg/modal/_container_entrypoint.py", r.choice([170, 243]), "run_input_sync", "res = io_context.call_finalized_function()"),
                           ("/pkg/modal/_runtime/container_io_manager.py", r.choice([180, 197]), "call_finalized_function", "res = self.finalized_function.callable(*args, **kwargs)"),
                           (run.script, r.randint(60, 140), fn, "subprocess.run(cmd, check=True)"),
                           ("/usr/local/lib/python%s/subprocess.py" % run.py, r.choice([571, 577]), "run", "raise CalledProcessError(retcode, process.args,")], exc)))
        L.append(("n", "Stopping app - uncaught exception raised in remote container: CalledProcessError(%d, %s)." % (code, cmd)))
    files["modal_run_output.txt"] = finalize(L, 850000)
    attachments(run, files, "none")
    return files


def r_metaflow(run):
    r = run.rng
    files = {}
    flow = "%sTrainFlow" % run.model.split("-")[0].capitalize()
    run_id = str(r.randint(1000, 9999)) if r.random() < 0.3 else "%d" % int(run.hist[0]["t0"] * 1000)
    backend = run.extra.get("mf_backend") or "kubernetes"
    L = []
    t = run.hist[0]["t0"] - r.uniform(60, 200)

    def mts(tt):
        return ts_py_dot(tt)
    L.append(("n", "$ python %s --with %s run --num_nodes %d" % (os.path.basename(run.script), backend, run.n_nodes)))
    L.append(("n", "Metaflow 2.%d.%d executing %s for user:%s" % (r.choice([11, 12, 13]), r.randint(0, 12), flow, run.user)))
    L.append(("n", "Validating your flow..."))
    L.append(("n", "    The graph looks good!"))
    L.append(("n", "%s Workflow starting (run-id %s):" % (mts(t), run_id)))
    L.append(("n", "%s [%s/start/1 (pid %d)] Task is starting." % (mts(t + 1), run_id, r.randint(1000, 90000))))
    L.append(("n", "%s [%s/start/1 (pid %d)] Task finished successfully." % (mts(t + 9), run_id, r.randint(1000, 90000))))
    ctl_num = r.randint(2, 9)
    ctl = "control-%d-0" % ctl_num
    workers = ["worker-%d-%d" % (ctl_num, i) for i in range(1, run.n_nodes)]
    tasks = [ctl] + workers
    for a in range(len(run.hist)):
        h = run.hist[a]
        lpid = r.randint(1000, 90000)
        pre = "[%s/train/%s (pid %d)] " % (run_id, ctl, lpid)
        t0 = h["t0"] - r.uniform(30, 120)
        L.append(("n", "%s %sTask is starting%s." % (mts(t0), pre, " (retry)" if a > 0 else "")))
        if backend == "batch":
            bid = "%s-%s-%s-%s-%s" % (hexs(r, 8), hexs(r, 4), hexs(r, 4), hexs(r, 4), hexs(r, 12))
            L.append(("n", "%s %s[%s] Task is starting (status SUBMITTED)...  (parallel node status: [SUBMITTED:%d])" % (mts(t0 + 2), pre, bid, run.n_nodes - 1)))
            L.append(("n", "%s %s[%s] Task is starting (status RUNNABLE)...  (parallel node status: [RUNNABLE:%d])" % (mts(t0 + 20), pre, bid, run.n_nodes - 1)))
            L.append(("n", "%s %s[%s] Task is starting (status RUNNING)...  (parallel node status: [RUNNING:%d])" % (mts(h["t0"] - 2), pre, bid, run.n_nodes - 1)))
        else:
            L.append(("n", "%s %s[pod %s] Task is starting (Pod is pending, Container is waiting - ContainerCreating)..." % (mts(t0 + 2), pre, run.hosts[0])))
            L.append(("n", "%s %s[pod %s] Task is starting (Pod is running)..." % (mts(h["t0"] - 2), pre, run.hosts[0])))
        disp = with_buffering(run, attempt_evs(run, a), a)
        for tt, e in disp:
            if e.node == 0 and e.src in ("rank", "agent"):
                L.append((e.kind, "%s %s%s" % (mts(tt), pre, tee_prefix(run, e) + e.text)))
        ne0 = h["node_end"].get(0)
        tend = h["t_end"] + r.uniform(2, 20)
        ok = run.healthy or (run.cause == "straggler" and not run.extra.get("straggler_cancel"))
        if ok:
            L.append(("n", "%s %sTask finished successfully." % (mts(tend), pre)))
            continue
        if run.extra.get("recovered_running") and a == len(run.hist) - 1:
            continue
        if backend == "batch":
            if run.cause == "preemption" and a == 0:
                reason = "Host EC2 (instance i-0%s) terminated." % hexs(r, 16)
            elif ne0 and ne0[2] in ("summary",):
                reason = "Essential container in task exited"
            else:
                reason = "Essential container in task exited"
            L.append(("k", "%s %sAWS Batch error:" % (mts(tend), pre)))
            L.append(("k", "%s %s%s This could be a transient error. Use @retry to retry." % (mts(tend), pre, reason)))
        else:
            if run.cause == "preemption" and a == 0:
                L.append(("k", "%s %sKubernetes error:" % (mts(tend), pre)))
                L.append(("k", "%s %sPod was terminated in response to imminent node shutdown. This could be a transient error. Use @retry to retry." % (mts(tend), pre)))
            elif run.cause == "host_oom_kill" and run.extra.get("oom_variant") == "pod" and run.extra.get("oom_node") == 0:
                L.append(("k", "%s %sKubernetes error:" % (mts(tend), pre)))
                L.append(("k", "%s %sTask ran out of memory. Increase the available memory by specifying @resource(memory=...) for the step." % (mts(tend), pre)))
            else:
                L.append(("k", "%s %sKubernetes error:" % (mts(tend), pre)))
                L.append(("k", "%s %sError (exit code %d). This could be a transient error. Use @retry to retry." % (mts(tend), pre, 1 if not ne0 or ne0[1] in (1, None) else ne0[1])))
        L.append(("n", "%s %sTask failed." % (mts(tend + 1), pre)))
    if not (run.healthy or (run.cause == "straggler" and not run.extra.get("straggler_cancel")) or run.extra.get("recovered_running")):
        tend = run.hist[-1]["t_end"] + 25
        L.append(("n", "%s Workflow failed." % mts(tend)))
        L.append(("n", "%s Terminating 0 active tasks..." % mts(tend)))
        L.append(("n", "%s Flow failed:" % mts(tend)))
        L.append(("n", "    Step failure:"))
        L.append(("n", "    Step train (task-id %s) failed." % ctl))
    elif not run.extra.get("recovered_running"):
        tend = run.hist[-1]["t_end"] + 25
        L.append(("n", "%s [%s/end/%d (pid %d)] Task is starting." % (mts(tend), run_id, ctl_num + run.n_nodes + 1, r.randint(1000, 90000))))
        L.append(("n", "%s [%s/end/%d (pid %d)] Task finished successfully." % (mts(tend + 8), run_id, ctl_num + run.n_nodes + 1, r.randint(1000, 90000))))
        L.append(("n", "%s Done!" % mts(tend + 9)))
    files["metaflow_run.txt"] = finalize(L, 700000)
    # the user pulled some worker task logs
    a = len(run.hist) - 1
    disp = with_buffering(run, attempt_evs(run, a), a)
    nodes = list(range(1, run.n_nodes))
    if len(nodes) > 5:
        keep = set(r.sample(nodes, 3))
        pk = getattr(run, "_picked", None)
        if pk is not None and run.node_of(pk) != 0:
            keep.add(run.node_of(pk))
        nodes = sorted(keep)
    for n in nodes:
        if r.random() < 0.2 and n != run.node_of(getattr(run, "_picked", 0) or 0):
            continue
        it = [("n", "$ python %s logs %s/train/%s" % (os.path.basename(run.script), run_id, tasks[n]))]
        for tt, e in disp:
            if e.node == n and e.src in ("rank", "agent"):
                it.append((e.kind, tee_prefix(run, e) + e.text))
        for label, lines in inline_attach_lines(run):
            if label == run.hosts[n]:
                for x in lines:
                    it.append(("k", x))
        files["logs_train_%s.txt" % tasks[n]] = finalize(it, 250000)
    if 0 not in nodes:
        for label, lines in inline_attach_lines(run):
            if label == run.hosts[0]:
                files["metaflow_run.txt"] += "\n".join(lines) + "\n"
    if backend == "kubernetes" and (run.kern_show or r.random() < 0.3):
        k8s_common(run, files, list(run.hosts), len(run.hist) - 1, r.choice(["metaflow", "ml-jobs", "default"]), "JobSet/js-%s" % run.hosts[0].split("-")[1],
                   "jobset.sigs.k8s.io/jobset-name=js-%s" % run.hosts[0].split("-")[1])
    attachments(run, files, "k8s" if backend == "kubernetes" else "none")
    return files


def pod_state(run, a, n):
    h = run.hist[a]
    ne = h["node_end"].get(n)
    if ne is None:
        return ("Running", 0, "")
    if ne[2] == "vanished":
        if run.cause == "host_oom_kill":
            return ("OOMKilled", 137, "OOMKilled")
        return ("Error", 137, "NodeShutdown")
    if run.cause == "preemption" and n == run.extra.get("preempt", {}).get("node"):
        return ("Error", 143, "NodeShutdown")
    if ne[1] == 0:
        return ("Completed", 0, "Completed")
    if ne[1] == 143:
        return ("Error", 143, "Error")
    if ne[1] == 137:
        return ("Error", 137, "Error")
    return ("Error", 1, "Error")


def k8s_common(run, files, pods, a, ns, owner_kind, owner):
    r = run.rng
    h = run.hist[a]
    knodes = k8s_nodes(run)
    W = ["$ kubectl get pods -n %s -o wide -l %s" % (ns, owner),
         "NAME%s READY   STATUS        RESTARTS   AGE   IP            NODE%s" % (" " * (max(len(p) for p in pods) - 3), " " * (max(len(k) for k in knodes) - 3))]
    for n, p in enumerate(pods):
        st = pod_state(run, a, n)[0]
        age = int((h["t_end"] - h["t0"]) / 60.0) + 3 + (n % 2)
        W.append("%-*s 0/1     %-13s %-10d %-5s %-13s %s" % (max(len(p) for p in pods) + 1, p, st, 0, "%dm" % age if age < 600 else "%dh" % (age // 60), run.ips[n], knodes[n]))
    files["kubectl_get_pods_wide.txt"] = "\n".join(W) + "\n"
    E = ["$ kubectl get events -n %s --sort-by=.lastTimestamp" % ns,
         "LAST SEEN   TYPE      REASON             OBJECT                                          MESSAGE"]
    for n, p in enumerate(pods[:6] if len(pods) > 6 else pods):
        E.append("%-11s Normal    Scheduled          pod/%-40s Successfully assigned %s/%s to %s" % ("%dm" % r.randint(60, 300), p, ns, p, knodes[n]))
        E.append("%-11s Normal    Pulled             pod/%-40s Container image \"%s\" already present on machine" % ("%dm" % r.randint(60, 300), p, r.choice(["nvcr.io/nvidia/pytorch:24.07-py3", "pytorch/pytorch:2.5.1-cuda12.4-cudnn9-runtime", "ghcr.io/%s/trainer:%s" % (run.user, hexs(r, 7))])))
        E.append("%-11s Normal    Started            pod/%-40s Started container node" % ("%dm" % r.randint(60, 300), p))
    for n, p in enumerate(pods):
        st, code, reason = pod_state(run, a, n)
        if reason == "NodeShutdown":
            E.append("%-11s Warning   NodeShutdown       pod/%-40s Pod was terminated in response to imminent node shutdown." % ("%dm" % r.randint(3, 20), p))
        elif reason == "OOMKilled":
            E.append("%-11s Warning   OOMKilling         node/%-39s Memory cgroup out of memory: Killed process %d (python)" % ("%dm" % r.randint(3, 20), knodes[n], h["pids"][n * run.gpn]))
    tk = max(v[0] for v in h["node_end"].values()) if h["node_end"] else h["t_end"]
    for n, p in enumerate(pods):
        ne = h["node_end"].get(n)
        if ne and ne[2] == "platform":
            E.append("%-11s Normal    Killing            pod/%-40s Stopping container node" % ("%dm" % r.randint(1, 3), p))
    files["kubectl_get_events.txt"] = "\n".join(E) + "\n"
    # describe the pod that the status points at (the first one that exited non-zero)
    ends = sorted(((v[0], n) for n, v in h["node_end"].items() if v[1] not in (0,)))
    if ends:
        n = ends[0][1]
        st, code, reason = pod_state(run, a, n)
        tt = h["node_end"][n][0]
        D = ["$ kubectl describe pod -n %s %s" % (ns, pods[n]), "Name:             %s" % pods[n], "Namespace:        %s" % ns, "Node:             %s/%s" % (knodes[n], run.ips[n]),
             "Status:           Failed", "Controlled By:    %s" % owner_kind, "Containers:", "  node:", "    State:          Terminated",
             "      Reason:       %s" % ("OOMKilled" if reason == "OOMKilled" else "Error"), "      Exit Code:    %d" % code,
             "      Started:      %s" % dtu(h["t0"]).strftime("%a, %d %b %Y %H:%M:%S +0000"), "      Finished:     %s" % dtu(tt).strftime("%a, %d %b %Y %H:%M:%S +0000"),
             "    Limits:", "      memory:          %dGi" % r.choice([400, 800, 1600]), "      nvidia.com/gpu:  %d" % run.gpn]
        if reason == "NodeShutdown":
            D[4] = "Status:           Failed"
            D.insert(5, "Reason:           Terminated")
            D.insert(6, "Message:          Pod was terminated in response to imminent node shutdown.")
        files["kubectl_describe_pod_%s.txt" % pods[n]] = "\n".join(D) + "\n"


def r_kubeflow_trainjob(run):
    r = run.rng
    files = {}
    name = run.extra["trainjob"]
    ns = r.choice(["default", "ml-team", "kubeflow-user-%s" % run.user, "training"])
    a = len(run.hist) - 1
    pods = list(run.hosts)
    disp = with_buffering(run, attempt_evs(run, a), a)
    keep = list(range(run.n_nodes))
    if run.n_nodes > 8:
        pk = getattr(run, "_picked", None)
        keep = sorted(set([0, 1] + r.sample(range(run.n_nodes), 4) + ([run.node_of(pk)] if pk is not None else [])))
    for n in keep:
        it = [("n", "$ kubectl logs -n %s %s%s" % (ns, pods[n], " --previous" if a > 0 and r.random() < 0.3 else ""))]
        for t, e in disp:
            if e.node == n and e.src in ("rank", "agent", "plat"):
                it.append((e.kind, tee_prefix(run, e) + e.text))
        files["pods/%s.log" % pods[n]] = finalize(it, 300000 if run.n_nodes <= 8 else 100000)
    h = run.hist[a]
    ok = run.healthy or (run.cause == "straggler" and not run.extra.get("straggler_cancel"))
    ends = sorted(((v[0], n) for n, v in h["node_end"].items() if v[1] not in (0,)))
    T = ["$ kubectl get trainjob -n %s %s -o yaml" % (ns, name), "apiVersion: trainer.kubeflow.org/v1alpha1", "kind: TrainJob", "metadata:", "  name: %s" % name, "  namespace: %s" % ns,
         "spec:", "  runtimeRef:", "    apiGroup: trainer.kubeflow.org", "    kind: ClusterTrainingRuntime", "    name: torch-distributed", "  trainer:",
         "    image: %s" % r.choice(["nvcr.io/nvidia/pytorch:24.07-py3", "ghcr.io/%s/trainer:%s" % (run.user, hexs(r, 7))]),
         "    command: [\"torchrun\", \"%s\"]" % run.script, "    numNodes: %d" % run.n_nodes, "    resourcesPerNode:", "      limits:", "        nvidia.com/gpu: %d" % run.gpn,
         "status:", "  conditions:"]
    tlast = ts_iso_s(max([v[0] for v in h["node_end"].values()] + [h["t_end"]]))
    if ok:
        T += ["  - lastTransitionTime: \"%s\"" % tlast, "    message: jobset completed successfully", "    reason: AllJobsCompleted", "    status: \"True\"", "    type: Complete"]
    elif run.extra.get("straggler_cancel"):
        T += ["  - lastTransitionTime: \"%s\"" % tlast, "    message: TrainJob is suspended", "    reason: Suspended", "    status: \"True\"", "    type: Suspended"]
    else:
        msg = "jobset failed due to one or more job failures" if run.n_attempts == 1 else "jobset failed due to reaching max number of restarts"
        T += ["  - lastTransitionTime: \"%s\"" % tlast, "    message: %s" % msg, "    reason: %s" % ("FailedJobs" if run.n_attempts == 1 else "ReachedMaxRestarts"), "    status: \"True\"", "    type: Failed"]
    T += ["  jobsStatus:", "  - active: 0", "    failed: %d" % (1 if not ok else 0), "    name: node", "    ready: 0", "    succeeded: %d" % (1 if ok else 0), "    suspended: 0"]
    files["trainjob.yaml"] = "\n".join(T) + "\n"
    k8s_common(run, files, pods, a, ns, "Job/%s-node-0" % name, "jobset.sigs.k8s.io/jobset-name=%s" % name)
    attachments(run, files, "k8s")
    return files


def flyte_user_error(run, lines):
    return "\n".join(["Traceback (most recent call last):", ""] + ["      " + l for l in lines[:-1]] + ["", "Message:", "", "    " + lines[-1] if lines else "    <no message>", "", "User error."])


def r_flyte_pytorch(run):
    r = run.rng
    files = {}
    ex = run.extra["flyte_exec"]
    proj = r.choice(["flytesnacks", "llm", "research"])
    dom = r.choice(["development", "staging", "production"])
    a = len(run.hist) - 1
    pods = list(run.hosts)
    disp = with_buffering(run, attempt_evs(run, a), a)
    keep = list(range(run.n_nodes)) if run.n_nodes <= 8 else sorted(set([0] + r.sample(range(run.n_nodes), 4) + ([run.node_of(run._picked)] if getattr(run, "_picked", None) is not None else [])))
    for n in keep:
        it = [("n", "$ kubectl logs -n %s-%s %s" % (proj, dom, pods[n]))]
        for t, e in disp:
            if e.node == n and e.src in ("rank", "agent", "plat"):
                it.append((e.kind, tee_prefix(run, e) + e.text))
        files["pods/%s.log" % pods[n]] = finalize(it, 300000 if run.n_nodes <= 8 else 100000)
    h = run.hist[a]
    ok = run.healthy or (run.cause == "straggler" and not run.extra.get("straggler_cancel"))
    Y = ["$ flytectl get execution -p %s -d %s %s -o yaml" % (proj, dom, ex), "closure:", "  createdAt: \"%s\"" % ts_iso_s(run.hist[0]["t0"] - 120)]
    if ok:
        Y += ["  phase: SUCCEEDED", "  duration: %ds" % int(h["t_end"] - run.hist[0]["t0"])]
    elif run.extra.get("straggler_cancel"):
        Y += ["  abortMetadata:", "    cause: User requested abort", "    principal: %s" % run.user, "  phase: ABORTED"]
    else:
        ne0 = h["node_end"].get(0)
        st0 = pod_state(run, a, 0)
        if st0[2] == "OOMKilled":
            msg = "[1/1] currentAttempt done. Last Error: USER::containers with unready status: [pytorch]|[master-0] terminated with exit code (137). Reason [OOMKilled]. Message: \n."
        elif ne0 is not None and ne0[2] == "summary":
            txt = [e.text for e in attempt_evs(run, a) if e.node == 0 and e.src == "agent"]
            idx = max([i for i, l in enumerate(txt) if l.startswith("torch.distributed.elastic.multiprocessing.errors.ChildFailedError")] or [0])
            body = ["File \"%s/flytekit/exceptions/scopes.py\", line %d, in user_entry_point" % (run.site(), r.choice([206, 242])), "    return wrapped(*args, **kwargs)",
                    "File \"%s/flytekitplugins/kfpytorch/task.py\", line %d, in _execute" % (run.site(), r.choice([454, 461])), "    raise FlyteRecoverableException(" if r.random() < 0.3 else "    out = elastic_launch("]
            summ = txt[idx:idx + 40]
            msg = "[1/1] currentAttempt done. Last Error: USER::" + flyte_user_error(run, body + ["ChildFailedError: " + "\n    ".join(summ[1:])])
        else:
            msg = "[1/1] currentAttempt done. Last Error: USER::Pod failed. No message received from kubernetes.\n[%s] terminated with exit code (%d). Reason [%s]. Message: \n." % (pods[0], st0[1], st0[2])
        Y += ["  error:", "    code: USER:%s" % ("OOMKilled" if st0[2] == "OOMKilled" else "RuntimeError"), "    kind: USER", "    message: |-"]
        Y += ["      " + l for l in msg.split("\n")]
        Y += ["  phase: FAILED"]
    Y += ["id:", "  domain: %s" % dom, "  name: %s" % ex, "  project: %s" % proj, "spec:", "  launchPlan:", "    name: workflows.train.%s_wf" % run.model.split("-")[0].replace(".", "_")]
    files["flytectl_get_execution.yaml"] = "\n".join(Y) + "\n"
    k8s_common(run, files, pods, a, "%s-%s" % (proj, dom), "PyTorchJob/%s-n0-0" % ex, "training.kubeflow.org/job-name=%s-n0-0" % ex)
    attachments(run, files, "k8s")
    return files


RENDER = {
    "submitit": r_submitit, "hydra_submitit": r_hydra_submitit, "skypilot": r_skypilot, "dstack": r_dstack,
    "ray_train": r_ray_train, "determined": r_determined, "lightning_multinode": r_lightning_multinode,
    "modal_clustered": r_modal_clustered, "metaflow": r_metaflow, "kubeflow_trainjob": r_kubeflow_trainjob,
    "flyte_pytorch": r_flyte_pytorch, "accelerate_slurm": r_accelerate_slurm,
}

# causes a layout cannot honestly express
LAYOUT_SKIP = {
    "modal_clustered": ["host_oom_kill"],
}


# --------------------------------------------------------------------------
# driver
# --------------------------------------------------------------------------
def build_run(seed, i, layout, cause):
    rng = random.Random("blind55:%s:%d:%s:%s" % (seed, i, layout, cause))
    healthy = cause is None
    run = Run(rng, layout, cause if cause else "healthy", healthy)
    setup_run(run, i, seed)
    run.extra["tee"] = run.launcher == "torchrun" and layout not in ("determined",) and rng.random() < 0.25
    run.extra["buffered"] = rng.random() < 0.25
    if layout == "modal_clustered" and cause in ("gpu_hardware", "ecc_memory"):
        run.extra["hw_xid"] = 79
    simulate(run)
    if layout in ("modal_clustered",) or (layout == "metaflow" and run.extra.get("mf_backend") == "batch"):
        # no shell on the host: the user's on-failure hook printed nvidia-smi into the job log
        if run.kern_show and cause in ("gpu_hardware", "ecc_memory", "nvlink"):
            node = sorted(run.kern_show)[0]
            loc = run.local_of(getattr(run, "_picked", 0) or 0)
            if "nvidia-smi" not in run.attach and "nvidia-smi-q" not in run.attach:
                if cause == "gpu_hardware":
                    run.add_attach("nvidia-smi", [(run.hosts[node], nvsmi_lost(run, node, loc))])
                else:
                    run.add_attach("nvidia-smi", [(run.hosts[node], nvsmi_table(run, node, run.t_end, loc, "ecc"))])
        run.kern_show = set()
        if cause == "data_loader_stall" and run.extra.get("dl_variant") in ("nfs", "lustre") and run.init_rank is None:
            run.init_node = None
        if cause == "network" and layout == "modal_clustered":
            run.init_node = run.init_node if run.nccl_debug else None
    files = RENDER[layout](run)
    adjust_truth(run, files)
    return run, files


def adjust_truth(run, files):
    """initiator only where this layout's files let an expert pin it down"""
    pe = run.extra.get("preempt")
    if run.cause == "preemption" and pe and pe.get("mode") == "node":
        named = run.layout in ("kubeflow_trainjob", "flyte_pytorch", "dstack", "lightning_multinode") or \
            (run.layout == "ray_train" and "kubectl_get_events.txt" in files)
        if not named:
            run.init_node = None
            run.init_rank = None
    if run.cause == "hang" and getattr(run, "_picked", None) is not None and run.extra.get("hang_S") is not None:
        # what survived rendering (Ray's log dedup, trimming) decides what an expert can see
        blob = "\n".join(files.values())
        rk = run._picked
        ev = set(run.extra.get("hang_ev", []))
        dump = re.search(r"Rank %d\] Received a dump signal[^\n]*Last enqueued NCCL work: %d," % (rk, run.extra["hang_S"] - 1), blob)
        rank_ok = ("py-spy" in ev) or bool(dump)
        node_ok = rank_ok or ("faulthandler" in ev and "Timeout (" in blob)
        run.init_rank = rk if rank_ok else None
        run.init_node = run.node_of(rk) if node_ok else None
    if run.init_node is not None:
        blob = "\n".join(files.values())
        host = run.hosts[run.init_node]
        if host not in blob:
            ip = run.ips[run.init_node]
            if re.search(r"(?<![\d.])%s(?![\d])" % re.escape(ip), blob):
                run.node_label = ip
            else:
                run.init_node = None


def truth_of(run, layout):
    if run.healthy:
        return {"healthy": True, "cause": None, "initiator": None, "layout": layout,
                "notes": "completed normally; %s" % ("contains harmless scary lines (retries, warnings)" if run.extra.get("healthy_scare") else "warnings only")}
    init = None
    if run.init_rank is not None or run.init_node is not None:
        init = {"rank": run.init_rank, "node": (getattr(run, "node_label", None) or run.hosts[run.init_node]) if run.init_node is not None else None}
    notes = "; ".join(run.notes)
    notes += " [world=%d (%d nodes x %d), torch %d.%d, launcher=%s%s]" % (run.world, run.n_nodes, run.gpn, run.tv[0], run.tv[1], run.launcher,
                                                                        ", %d attempts" % run.n_attempts if run.n_attempts > 1 else "")
    return {"healthy": False, "cause": run.cause, "initiator": init, "layout": layout, "notes": notes}


def seed_index(seed):
    try:
        return int(seed) - 1
    except ValueError:
        return random.Random("blind55-seedidx:%s" % seed).randint(0, 3)


def plan(seed, n):
    """run i is healthy when i % 7 == 3; the rest cycle through the causes in a per-seed shuffled order.
    The k-th occurrence of a cause in seed s goes to layout (cause_index + k + 3*(s-1)) mod 12, so seeds
    1..4 together put every cause on every layout."""
    rng = random.Random("blind55-plan:%s" % seed)
    causes = list(CAUSES)
    rng.shuffle(causes)
    si = seed_index(seed)
    L = len(LAYOUTS)
    out = []
    k = 0
    h = 0
    occ = {}
    for i in range(n):
        if i % 7 == 3:
            out.append((LAYOUTS[(h * 5 + 2 * si) % L], None))
            h += 1
            continue
        c = causes[k % len(causes)]
        o = occ.get(c, 0)
        occ[c] = o + 1
        li = (CAUSES.index(c) + o + 3 * si) % L
        tries = 0
        while c in LAYOUT_SKIP.get(LAYOUTS[li], []) and tries < L:
            li = (li + 1) % L
            tries += 1
        out.append((LAYOUTS[li], c))
        k += 1
    return out


def write_run(outdir, i, layout, run, files, budget=950000):
    d = os.path.join(outdir, "run-%03d-%s" % (i, layout))
    if os.path.isdir(d):
        shutil.rmtree(d)
    os.makedirs(d)
    total = sum(len(v.encode("utf-8")) for v in files.values())
    if total > budget:
        # shrink the largest files (a user trimming a huge paste)
        for name in sorted(files, key=lambda k: -len(files[k])):
            if total <= budget:
                break
            v = files[name]
            lines = v.split("\n")
            cut = min(len(lines) - 200, int(len(lines) * (total - budget) / float(len(v.encode("utf-8")) + 1)) + 50)
            if cut <= 0:
                continue
            mid = len(lines) // 2
            lo = max(100, mid - cut // 2)
            nv = "\n".join(lines[:lo] + ["[... %d lines trimmed ...]" % cut] + lines[lo + cut:])
            total -= len(v.encode("utf-8")) - len(nv.encode("utf-8"))
            files[name] = nv
    for name in sorted(files):
        p = os.path.join(d, name)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w", encoding="utf-8") as f:
            f.write(files[name])
    with open(os.path.join(d, "truth.json"), "w") as f:
        json.dump(truth_of(run, layout), f, indent=2, sort_keys=True)
        f.write("\n")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--seed", default="1")
    args = ap.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    for old in sorted(os.listdir(args.out)):
        if old.startswith("run-") and os.path.isdir(os.path.join(args.out, old)):
            shutil.rmtree(os.path.join(args.out, old))
    counts = {}
    for i, (layout, cause) in enumerate(plan(args.seed, args.n)):
        run, files = build_run(args.seed, i, layout, cause)
        write_run(args.out, i, layout, run, files)
        key = cause or "healthy"
        counts[key] = counts.get(key, 0) + 1
    print(json.dumps({k: counts[k] for k in sorted(counts)}, indent=1))


if __name__ == "__main__":
    main()
