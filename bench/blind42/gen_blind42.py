#!/usr/bin/env python3
"""gen_blind42.py - synthetic log bundles of failed (and healthy) distributed GPU
training jobs, focused on CASCADES AND SECONDARY FAILURES.

The root cause is usually quiet and early (a kernel line, one NCCL WARN, one
rank's traceback); the loud lines (watchdog timeouts on every peer, torchrun's
ChildFailedError naming some other rank, launcher SIGTERMs, teardown SIGSEGVs,
failed emergency checkpoints) come later, often on other hosts whose clocks are
skewed.  Some runs also carry an earlier, independent, harmless problem so the
first scary line is not the root cause.

Written blind: formats come from general knowledge of what PyTorch, NCCL, the
NVIDIA driver, Slurm, torchrun, DeepSpeed, Open MPI and Kubernetes print.

Usage: python3 gen_blind42.py --out DIR --n 60 --seed S
Standard library only.  Deterministic per seed.
"""
import argparse
import json
import os
import random
import sys
import time
from datetime import datetime, timezone

CAUSES = ["gpu_hardware", "ecc_memory", "nvlink", "network", "cuda_oom",
          "illegal_memory_access", "python_exception", "host_oom_kill",
          "crash_signal", "preemption", "hang", "data_loader_stall",
          "collective_mismatch", "straggler", "unknown"]

LAYOUTS = ["slurm_srun", "slurm_torchrun", "k8s_pytorchjob", "torchrun_logdir",
           "deepspeed_pdsh", "mpirun_tagged", "issue_paste", "rank0_ops"]

INF = float("inf")
MAX_RUN_BYTES = 900_000


def utc(t):
    return datetime.fromtimestamp(t, tz=timezone.utc).replace(tzinfo=None)


def f_py(d):
    return d.strftime("%Y-%m-%d %H:%M:%S") + ",%03d" % (d.microsecond // 1000)


def f_iso(d):
    return d.strftime("%Y-%m-%dT%H:%M:%S")


def ranges(nums):
    """[1,2,3,7] -> '1-3,7' (srun style)."""
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


SIGNAME = {6: "SIGABRT", 7: "SIGBUS", 9: "SIGKILL", 11: "SIGSEGV", 15: "SIGTERM", 2: "SIGINT"}
SRUN_SIG = {6: "Aborted (core dumped)", 7: "Bus error (core dumped)", 9: "Killed",
            11: "Segmentation fault (core dumped)", 15: "Terminated", 2: "Interrupt"}
MPI_SIG = {6: "Aborted", 7: "Bus error", 9: "Killed", 11: "Segmentation fault", 15: "Terminated"}

GPU_TYPES = [
    ("NVIDIA H100 80GB HBM3", 79.11, ["18", "2a", "3a", "5d", "9a", "ab", "ba", "db"], "535.161.08"),
    ("NVIDIA A100-SXM4-80GB", 79.15, ["07", "0f", "47", "4e", "87", "90", "b7", "bd"], "535.129.03"),
    ("NVIDIA H100 80GB HBM3", 79.11, ["19", "3b", "4c", "5d", "9b", "bb", "cb", "db"], "550.90.07"),
    ("NVIDIA A100-SXM4-40GB", 39.39, ["07", "0f", "47", "4e", "87", "90", "b7", "bd"], "525.105.17"),
    ("NVIDIA H200", 139.81, ["18", "2a", "3a", "5d", "9a", "ab", "ba", "db"], "550.127.05"),
]
NIC_BUS = ["0c", "12", "4b", "54", "8d", "94", "cb", "d2"]

TORCH_PROFILES = {
    # name: (torch, nccl, python, cuda, line numbers)
    "old": [("2.0.1", "2.14.3", "3.10", "11.8"), ("2.1.2", "2.18.1", "3.10", "12.1")],
    "mid": [("2.2.2", "2.19.3", "3.10", "12.1"), ("2.3.1", "2.20.5", "3.10", "12.1")],
    "new": [("2.4.1", "2.20.5", "3.10", "12.4"), ("2.5.1", "2.21.5", "3.11", "12.4"),
            ("2.6.0", "2.21.5", "3.11", "12.6")],
}

OPS = [("ALLREDUCE", 1.0), ("_ALLGATHER_BASE", 0.125), ("_REDUCE_SCATTER_BASE", 8.0),
       ("ALLREDUCE", 1.0), ("BROADCAST", 1.0)]


class Ev:
    __slots__ = ("id", "t", "st", "h", "r", "fd", "lines", "key")

    def __init__(self, id_, t, st, h, r, fd, lines, key):
        self.id = id_
        self.t = t
        self.st = st
        self.h = h
        self.r = r
        self.fd = fd
        self.lines = lines
        self.key = key


class Plan:
    """Tentative end of one rank process."""
    __slots__ = ("t", "kind", "d")

    def __init__(self, t, kind, **d):
        self.t = t
        self.kind = kind
        self.d = d


# --------------------------------------------------------------------------
# Job: hosts, ranks, versions, clocks
# --------------------------------------------------------------------------
class Job:
    def __init__(self, rng, layout, cause, compact):
        R = rng
        self.R = R
        self.layout = layout
        self.compact = compact
        big_ok = layout in ("k8s_pytorchjob", "torchrun_logdir", "issue_paste", "rank0_ops")
        choices = [2, 2, 3, 4, 4, 6, 8, 8, 12, 16]
        if big_ok:
            choices += [16, 24, 32, 32, 48, 64, 64]
        self.n_nodes = R.choice(choices)
        self.gpn = 8 if R.random() < 0.85 else 4
        if self.n_nodes >= 24:
            self.gpn = 8
        self.world = self.n_nodes * self.gpn
        gi = R.randrange(len(GPU_TYPES))
        self.gpu_name, self.gpu_gib, pci, self.driver = GPU_TYPES[gi]
        self.pci = pci[:self.gpn] if self.gpn == 8 else [pci[0], pci[2], pci[4], pci[6]]
        self.prof = R.choice(["old", "mid", "new", "new", "new", "mid"])
        self.torch_v, self.nccl_v, self.py_v, self.cuda_v = R.choice(TORCH_PROFILES[self.prof])
        self.sp = R.choice(["/opt/conda/lib/python%s/site-packages",
                            "/usr/local/lib/python%s/dist-packages",
                            "/home/%s/.venv/lib/python%%s/site-packages" % R.choice(["mlops", "jdoe", "train"])]) % self.py_v
        self.pybin = {"/opt": "/opt/conda/bin/python", "/usr": "/usr/bin/python"}.get(self.sp[:4], self.sp.split("/lib/")[0] + "/bin/python")
        self.torchrun_bin = "/usr/local/bin/torchrun" if self.sp.startswith("/usr/local") else os.path.dirname(self.pybin) + "/torchrun"
        self.user = R.choice(["jdoe", "mlops", "akumar", "lchen", "svc-train", "rgarcia"])
        self.script = R.choice(["/workspace/train.py", "/workspace/pretrain_gpt.py",
                                "/home/%s/llm/train_lm.py" % self.user, "/opt/app/run_pretrain.py"])
        self.script_name = os.path.basename(self.script)
        self.jobname = R.choice(["llm-7b-pretrain", "gpt-13b", "vit-h-14", "moe-8x1b", "llama-ft", "bert-xl-mlm", "dit-xl"])
        self.jobid = R.randrange(180000, 9800000)
        self.net = R.choice(["ib", "ib", "roce", "socket"]) if self.n_nodes > 1 else "ib"
        self.timeout_s = R.choice([600, 600, 1800, 1200]) if self.prof != "old" else R.choice([1800, 1800, 600])
        self.nccl_debug = "INFO" if (self.world <= 32 and R.random() < 0.55) else "WARN"
        self.emergency_ckpt = R.random() < 0.6
        self.record = R.random() < 0.5
        self.logfmt = R.choice(["std", "bracket", "rank"])
        # launcher per layout
        self.kill_on_bad_exit = True
        self.tee = True
        if layout == "slurm_srun":
            self.launcher, self.outer = "srun_direct", "srun"
            self.kill_on_bad_exit = R.random() < 0.7
        elif layout in ("slurm_torchrun",):
            self.launcher, self.outer = "torchrun", "srun"
            self.kill_on_bad_exit = R.random() < 0.75
            self.tee = R.random() < 0.8
        elif layout == "k8s_pytorchjob":
            self.launcher, self.outer = "torchrun", "k8s"
            self.tee = R.random() < 0.5
        elif layout == "torchrun_logdir":
            self.launcher, self.outer = "torchrun", R.choice(["srun", "none", "none"])
            self.kill_on_bad_exit = R.random() < 0.6
        elif layout == "deepspeed_pdsh":
            self.launcher, self.outer = "deepspeed", "pdsh"
        elif layout == "mpirun_tagged":
            self.launcher, self.outer = "mpirun", "mpirun"
        elif layout == "issue_paste":
            self.launcher, self.outer = "torchrun", R.choice(["srun", "none", "k8s"])
            self.kill_on_bad_exit = R.random() < 0.6
        else:  # rank0_ops
            self.launcher, self.outer = "torchrun", R.choice(["srun", "k8s"])
            self.record = True
        if layout == "rank0_ops":
            self.logfmt = "std"
        self.framework = R.choice(["megatron", "custom", "hf", "custom"])
        if self.launcher == "deepspeed":
            self.framework = "deepspeed"
        # hosts
        self._make_hosts()
        self.skew = []
        bad = set()
        if R.random() < 0.55:
            k = R.choice([1, 1, 2, 3])
            bad = set(R.sample(range(self.n_nodes), min(k, self.n_nodes)))
        for h in range(self.n_nodes):
            if h in bad:
                self.skew.append(R.choice([-1, 1]) * R.uniform(20, 420))
            else:
                self.skew.append(R.gauss(0, 0.4))
        self.skew_hosts = sorted(bad)
        self.t0 = 1704067200 + R.randrange(0, 330 * 86400) + R.random()
        self.boot = [self.t0 - R.uniform(3600 * 5, 86400 * 40) for _ in range(self.n_nodes)]
        self.pid_base = [R.randrange(9000, 3_900_000) for _ in range(self.n_nodes)]
        self.pids = []
        for r in range(self.world):
            h, lr = divmod(r, self.gpn)
            self.pids.append(self.pid_base[h] + 7 + lr * R.choice([1, 1, 1, 2]) + (lr and R.randrange(0, 2)))
        # make unique & increasing per host
        for h in range(self.n_nodes):
            base = self.pid_base[h] + 40
            for lr in range(self.gpn):
                base += R.randrange(1, 4)
                self.pids[h * self.gpn + lr] = base
        self.agent_pid = [self.pid_base[h] for h in range(self.n_nodes)]
        self.ips = ["10.%d.%d.%d" % (R.randrange(0, 250), R.randrange(0, 250), R.randrange(2, 250)) for _ in range(self.n_nodes)]
        self.uuid = {}
        self.port = R.choice([29500, 29500, 6000, 12355, 29400])
        self.step_time = R.uniform(0.55, 7.0)
        self.cps = R.randrange(3, 60)  # collectives per step
        self.seq_base = R.randrange(20, 400)
        self.step0 = R.choice([0, 0, 0, R.randrange(1000, 90000)])
        self.gbs = R.choice([256, 512, 1024, 2048, 4096])
        self.hidden = R.choice([2048, 4096, 5120, 8192])
        self.runid = "%x" % R.randrange(16 ** 7, 16 ** 8)
        self.comm_id = R.getrandbits(64)
        self.image = R.choice(["nvcr.io/nvidia/pytorch:24.%02d-py3" % R.randrange(1, 12), "us-docker.pkg.dev/ml-infra/train/llm:%s" % R.choice(["v2.3.1", "2024-05-14", "main-8c1f2e"]),
                               "ghcr.io/acme-ml/trainer:%d.%d.%d" % (R.randrange(0, 3), R.randrange(0, 20), R.randrange(0, 9))])

    def _make_hosts(self):
        R = self.R
        n = self.n_nodes
        if self.layout == "k8s_pytorchjob" or (self.outer == "k8s"):
            self.hosts = ["%s-master-0" % self.jobname] + ["%s-worker-%d" % (self.jobname, i) for i in range(n - 1)]
            pool = R.choice(["gke-train-a3-pool-%s" % "%08x" % R.randrange(16 ** 8), "aks-gpu-%08d-vmss" % R.randrange(10 ** 8),
                             "ip-10-%d-%d" % (R.randrange(250), R.randrange(250))])
            self.knodes = []
            for i in range(n):
                if pool.startswith("gke"):
                    self.knodes.append("%s-%s" % (pool, "".join(R.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(4))))
                elif pool.startswith("aks"):
                    self.knodes.append("%s%06d" % (pool, R.randrange(0, 200)))
                else:
                    self.knodes.append("%s-%d.ec2.internal" % (pool, R.randrange(2, 250)))
            return
        style = R.choice(["gpu", "nid", "dgx", "aws", "rack"])
        start = R.randrange(0, 200)
        if style == "gpu":
            self.hosts = ["gpu-node-%03d" % (start + i) for i in range(n)]
        elif style == "nid":
            self.hosts = ["nid%06d" % (start * 4 + i) for i in range(n)]
        elif style == "dgx":
            self.hosts = ["dgx%02d" % (start % 60 + i) for i in range(n)]
        elif style == "aws":
            a = R.randrange(0, 250)
            self.hosts = ["ip-10-1-%d-%d" % (a, R.randrange(2, 250)) for _ in range(n)]
        else:
            rack = R.randrange(1, 20)
            self.hosts = ["h100-r%02d-%02d" % (rack + (start + i) // 16, (start + i) % 16 + 1) for i in range(n)]
        self.knodes = list(self.hosts)

    # helpers
    def host_of(self, r):
        return r // self.gpn

    def lr(self, r):
        return r % self.gpn

    def lt(self, h, t):
        return utc(t + self.skew[h])

    def nccl_pfx(self, r, tid=None):
        h = self.host_of(r)
        pid = self.pids[r]
        return "%s:%d:%d [%d] " % (self.hosts[h].split(".")[0], pid, tid if tid is not None else pid, self.lr(r))

    def gpu_uuid(self, h, g):
        k = (h, g)
        if k not in self.uuid:
            R = random.Random("%s-%d-%d" % (self.runid, h, g))
            hx = "%032x" % R.getrandbits(128)
            self.uuid[k] = "GPU-%s-%s-%s-%s-%s" % (hx[:8], hx[8:12], hx[12:16], hx[16:20], hx[20:32])
        return self.uuid[k]

    def seq_at(self, t, t_train):
        return self.seq_base + int(max(0, t - t_train) / self.step_time * self.cps)

    def step_at(self, t, t_train):
        return self.step0 + int(max(0, t - t_train) / self.step_time)


# --------------------------------------------------------------------------
# Run: events + text builders
# --------------------------------------------------------------------------
class Run:
    def __init__(self, idx, seed, cause, layout, compact=0):
        self.idx = idx
        self.seed = seed
        self.cause = cause  # None = healthy
        self.layout = layout
        self.R = random.Random("blind42|%s|%d|%d" % (seed, idx, compact))
        self.J = Job(self.R, layout, cause, compact)
        self.compact = compact
        self.evs = []
        self.plans = {}
        self.extras = []          # (host or None, name, text, key)
        self.notes = []
        self.rank_proof = []      # event ids; initiator rank knowable if any rendered
        self.node_proof = []
        self.init_rank = None
        self.init_node = None
        self.remote = {}          # rank -> (t, peer_host)
        self.stuck = set()
        self.hang = None          # dict(t, seq, op, numel)
        self.t_stop = None
        self.slow = None          # straggler: (t_from, factor)
        self.final = {}
        self.agent_ev = {}
        self.job_end = None
        self.sched_reason = None  # e.g. ('preempt', t) / ('timelimit', t) / ('nodefail', h, t)
        self.pyspy = {}           # host -> {rank: stack lines}
        self.healthy = cause is None
        self.decoy_notes = []
        self.healthy_end = None
        self.mismatch = {}        # rank -> (op, numel) override in timeouts
        self.seq_override = {}    # rank -> seq (for ranks lagging)
        self.user_kill = None
        self.wedged = set()
        self.proof_ranks = []
        self.pre_agent = {}
        self.kern_hosts = []
        self.global_kills = []
        self.spread = None
        self.k8s_events_pre = []
        self.dump_signal = None
        self.pyspy_key = None
        self.unknown_rank = None
        self.nodefail = None

    # ---- event API
    def ev(self, t, st, lines, h=None, r=None, fd="e", key=False):
        if isinstance(lines, str):
            lines = [lines]
        if h is None:
            h = self.J.host_of(r) if r is not None else 0
        e = Ev(len(self.evs), t, st, h, r, fd, list(lines), key)
        self.evs.append(e)
        return e

    def rout(self, r, t, lines, fd="e", key=False):
        return self.ev(t, "rank", lines, r=r, fd=fd, key=key)

    def kern(self, h, t, msgs, key=False):
        return self.ev(t, "kern", msgs, h=h, key=key)

    def sched(self, h, t, lines, key=False):
        return self.ev(t, "sched", lines, h=h, key=key)

    def agent(self, h, t, lines, key=False):
        return self.ev(t, "agent", lines, h=h, key=key)

    # ---- formatting helpers
    def plog(self, r, t, level, name, msg):
        J = self.J
        d = J.lt(J.host_of(r), t)
        if J.logfmt == "std":
            return "%s - %s - %s - %s" % (f_py(d), level, name, msg)
        if J.logfmt == "bracket":
            return "[%s][%s][%s] - %s" % (f_py(d), name, level, msg)
        return "[%s] [rank %d] %s %s" % (f_py(d), r, level, msg)

    def cpp(self, r, t, lvl, src, msg):
        J = self.J
        if J.prof == "new":
            if not hasattr(self, "_lastts"):
                self._lastts = {}
            tt = max(t + J.skew[J.host_of(r)], self._lastts.get(r, 0) + self.R.uniform(2e-6, 3e-4))
            self._lastts[r] = tt
            d = utc(tt)
            ts = "%s%s.%09d" % (lvl, d.strftime("%m%d %H:%M:%S"), int((tt % 1) * 1e9))
            return "[rank%d]:[%s %s] %s" % (r, ts, src, msg)
        if J.prof == "mid":
            return "[rank%d]:[%s %s] %s" % (r, lvl, src, msg)
        return "[%s %s] %s" % (lvl, src, msg)

    def pg(self, r):
        if self.J.prof == "new":
            return "[PG ID 0 PG GUID 0(default_pg) Rank %d]" % r
        if self.J.prof == "mid":
            return "[PG 0 Rank %d]" % r
        return "[Rank %d]" % r

    def ln(self, key):
        tab = {"old": {"wd": 475, "some": 489, "down": 495, "term": 916, "exc": 0, "chk": 0},
               "mid": {"wd": 563, "some": 577, "down": 583, "term": 1414, "exc": 1537, "chk": 565},
               "new": {"wd": 616, "some": 630, "down": 636, "term": 1595, "exc": 1785, "chk": 618}}
        return tab[self.J.prof][key]

    def hexaddr(self):
        return "0x7f%010x" % self.R.randrange(16 ** 10)

    def frames_timeout(self):
        sp = self.J.sp + "/torch/lib/"
        opt = "std::optional" if self.J.prof == "new" else "c10::optional"
        fr = ["frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x96 (%s in %slibc10.so)" % (self.hexaddr(), sp),
              "frame #1: c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(%s<std::chrono::duration<long, std::ratio<1l, 1000l> > >) + 0x1d2 (%s in %slibtorch_cuda.so)" % (opt, self.hexaddr(), sp)]
        if self.J.prof == "old":
            fr.append("frame #2: c10d::ProcessGroupNCCL::workCleanupLoop() + 0x266 (%s in %slibtorch_cuda.so)" % (self.hexaddr(), sp))
        else:
            fr.append("frame #2: c10d::ProcessGroupNCCL::watchdogHandler() + 0x233 (%s in %slibtorch_cuda.so)" % (self.hexaddr(), sp))
        fr += ["frame #3: c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d (%s in %slibtorch_cuda.so)" % (self.hexaddr(), sp),
               "frame #4: <unknown function> + 0xdc253 (%s in /lib/x86_64-linux-gnu/libstdc++.so.6)" % self.hexaddr(),
               "frame #5: <unknown function> + 0x94ac3 (%s in /lib/x86_64-linux-gnu/libc.so.6)" % self.hexaddr(),
               "frame #6: <unknown function> + 0x126850 (%s in /lib/x86_64-linux-gnu/libc.so.6)" % self.hexaddr(), ""]
        return fr

    def frames_cuda(self):
        sp = self.J.sp + "/torch/lib/"
        return ["frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x96 (%s in %slibc10.so)" % (self.hexaddr(), sp),
                "frame #1: c10::detail::torchCheckFail(char const*, char const*, unsigned int, std::string const&) + 0x64 (%s in %slibc10.so)" % (self.hexaddr(), sp),
                "frame #2: c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, int, bool) + 0x118 (%s in %slibc10_cuda.so)" % (self.hexaddr(), sp),
                "frame #3: c10d::ProcessGroupNCCL::WorkNCCL::finishedGPUExecutionInternal() const + 0x56 (%s in %slibtorch_cuda.so)" % (self.hexaddr(), sp),
                "frame #4: c10d::ProcessGroupNCCL::WorkNCCL::isCompleted() + 0xa0 (%s in %slibtorch_cuda.so)" % (self.hexaddr(), sp),
                "frame #5: c10d::ProcessGroupNCCL::watchdogHandler() + 0x1da (%s in %slibtorch_cuda.so)" % (self.hexaddr(), sp),
                "frame #6: c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x10c (%s in %slibtorch_cuda.so)" % (self.hexaddr(), sp),
                "frame #7: <unknown function> + 0xdc253 (%s in /lib/x86_64-linux-gnu/libstdc++.so.6)" % self.hexaddr(),
                "frame #8: <unknown function> + 0x94ac3 (%s in /lib/x86_64-linux-gnu/libc.so.6)" % self.hexaddr(),
                "frame #9: <unknown function> + 0x126850 (%s in /lib/x86_64-linux-gnu/libc.so.6)" % self.hexaddr(), ""]

    def work_str(self, seq, op, numel, ran_ms=None):
        J = self.J
        to = J.timeout_s * 1000
        if J.torch_v.startswith("2.0"):
            s = "WorkNCCL(SeqNum=%d, OpType=%s, Timeout(ms)=%d)" % (seq, op, to)
        else:
            s = "WorkNCCL(SeqNum=%d, OpType=%s, NumelIn=%d, NumelOut=%d, Timeout(ms)=%d)" % (
                seq, op, numel, numel if op == "ALLREDUCE" or op == "BROADCAST" else (numel * J.world if op.startswith("_ALLGATHER") or op == "ALLGATHER" else max(1, numel // J.world)), to)
        if ran_ms is not None:
            s += " ran for %d milliseconds before timing out." % ran_ms
        return s

    def abort_tail(self, r, what, frames_kind="timeout", exc_src=None):
        """terminate called ... block after a fatal watchdog exception."""
        J = self.J
        out = []
        et = "std::runtime_error" if J.prof == "old" else "c10::DistBackendError"
        out.append("terminate called after throwing an instance of '%s'" % et)
        out.append("  what():  " + what[0])
        out += what[1:]
        if J.prof != "old":
            if frames_kind == "timeout":
                out.append("Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:%d (most recent call first):" % self.ln("chk"))
                out += (self.frames_timeout() if self.compact < 2 else self.frames_timeout()[:2] + [""])
            elif frames_kind == "cuda":
                out.append("Exception raised from c10_cuda_check_implementation at ../c10/cuda/CUDAException.cpp:43 (most recent call first):")
                out += (self.frames_cuda() if self.compact < 2 else self.frames_cuda()[:3] + [""])
            if self.compact == 0:
                out.append("Exception raised from ncclCommWatchdog at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:%d (most recent call first):" % (self.ln("term") + 6))
                tl = self.frames_timeout()[4:]
                tl = [("frame #%d:" % (i + 2)) + x.split(":", 1)[1] if x.startswith("frame #") else x for i, x in enumerate(tl)]
                out += self.frames_timeout()[:1] + ["frame #1: <unknown function> + 0xe5c6fc (%s in %s/torch/lib/libtorch_cuda.so)" % (self.hexaddr(), J.sp)] + tl
        if self.R.random() < 0.35:
            out += ["Fatal Python error: Aborted", "",
                    "Thread 0x%016x (most recent call first):" % (0x7f0000000000 + self.R.getrandbits(40)), "  <no Python frame>", ""]
        return out

    def timeout_lines(self, r, t, seq, op, numel, last_enq=None, last_comp=None):
        """Watchdog timeout detection lines; returns (lines_at_t, what_lines)."""
        ran = self.J.timeout_s * 1000 + self.R.randrange(3, 900)
        w = self.work_str(seq, op, numel, ran)
        L = [self.cpp(r, t, "E", "ProcessGroupNCCL.cpp:%d" % self.ln("wd"), "[Rank %d] Watchdog caught collective operation timeout: %s" % (r, w))]
        if self.J.prof != "old":
            le = seq if last_enq is None else last_enq
            lc = seq - 1 if last_comp is None else last_comp
            if self.J.prof == "new":
                L.append(self.cpp(r, t, "E", "ProcessGroupNCCL.cpp:%d" % self.ln("exc"), "%s Exception (either an error or timeout) detected by watchdog at work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (self.pg(r), seq, le, lc)))
            else:
                L.append(self.cpp(r, t, "E", "ProcessGroupNCCL.cpp:%d" % self.ln("exc"), "%s Timeout at NCCL work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (self.pg(r), seq, le, lc)))
        L.append(self.cpp(r, t, "E", "ProcessGroupNCCL.cpp:%d" % self.ln("some"), "%sSome NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data." % ("" if self.J.prof == "old" else "[Rank %d] " % r)))
        L.append(self.cpp(r, t, "E", "ProcessGroupNCCL.cpp:%d" % self.ln("down"), "%sTo avoid data inconsistency, we are taking the entire process down." % ("" if self.J.prof == "old" else "[Rank %d] " % r)))
        term = "%s %s watchdog thread terminated with exception: [Rank %d] Watchdog caught collective operation timeout: %s" % (
            self.pg(r), "NCCL" if self.J.prof == "old" else "Process group", r, w)
        L.append(self.cpp(r, t, "E", "ProcessGroupNCCL.cpp:%d" % self.ln("term"), term))
        return L, [term]

    def nccl_err_detail(self, peer_h, local_r, kind="ib"):
        J = self.J
        if kind == "socket":
            return "Net : Connection closed by remote peer %s<%d>" % (J.ips[peer_h], self.R.randrange(32768, 60999))
        if kind == "socket_to":
            return "socketProgressOpt: Call to recv from %s<%d> failed : Connection timed out" % (J.ips[peer_h], self.R.randrange(32768, 60999))
        port = self.R.randrange(32768, 60999)
        if J.nccl_v < "2.19":
            return "NET/IB : Got completion from peer %s<%d> with error 12, opcode 0, len 0, vendor err 129 (Recv)" % (J.ips[peer_h], port)
        op = self.R.choice([(0, "Recv"), (1, "Send")])
        return "NET/IB : Got completion from peer %s<%d> with status=12 opcode=%d len=0 vendor err 129 (%s) localGid ::ffff:%s remoteGids::ffff:%s hca mlx5_%d" % (
            J.ips[peer_h], port, op[0], op[1], J.ips[J.host_of(local_r)], J.ips[peer_h], J.lr(local_r) % 8)

    def nccl_warn(self, r, detail, src="transport/net_ib.cc:1696"):
        tid = self.J.pids[r] + self.R.randrange(40, 400)
        out = [self.J.nccl_pfx(r, tid) + "%s NCCL WARN %s" % (src, detail)]
        if self.J.nccl_debug == "INFO":
            out.append(self.J.nccl_pfx(r, tid) + "NCCL INFO transport/net.cc:1302 -> 6")
            out.append(self.J.nccl_pfx(r, tid) + "NCCL INFO proxy.cc:%d -> 6 [Progress Thread]" % self.R.choice([1512, 1593, 1698]))
        return out

    def remote_err_lines(self, r, t, peer_h, seq, kind="ib"):
        J = self.J
        detail = self.nccl_err_detail(peer_h, r, kind)
        src = {"socket": "transport/net_socket.cc:538", "socket_to": "misc/socket.cc:%d" % self.R.choice([49, 58, 67])}.get(kind, "transport/net_ib.cc:%d" % self.R.choice([1696, 1792, 2011]))
        warn = self.nccl_warn(r, detail, src)
        msg = "NCCL error: remote process exited or there was a network error, NCCL version %s" % J.nccl_v
        tail = ["ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.", "Last error:", detail]
        L = []
        if J.prof == "new":
            L.append(self.cpp(r, t, "E", "ProcessGroupNCCL.cpp:%d" % self.ln("exc"), "%s Exception (either an error or timeout) detected by watchdog at work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (self.pg(r), seq, seq + self.R.randrange(0, 3), seq - 1)))
        L.append(self.cpp(r, t, "E", "ProcessGroupNCCL.cpp:%d" % self.ln("some"), "%sSome NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data." % ("" if J.prof == "old" else "[Rank %d] " % r)))
        L.append(self.cpp(r, t, "E", "ProcessGroupNCCL.cpp:%d" % self.ln("down"), "%sTo avoid data inconsistency, we are taking the entire process down." % ("" if J.prof == "old" else "[Rank %d] " % r)))
        term = "%s %s watchdog thread terminated with exception: %s" % (self.pg(r), "NCCL" if J.prof == "old" else "Process group", msg)
        L.append(self.cpp(r, t, "E", "ProcessGroupNCCL.cpp:%d" % (self.ln("term") + 239), term))
        L += tail
        return warn, L, [term] + tail

    # ---- python tracebacks
    def tb(self, frames, exc_lines, record=None):
        J = self.J
        if record is None:
            record = J.record
        out = ["Traceback (most recent call last):"]
        S = J.script
        top = [(S, self.R.randrange(600, 900), "<module>", "main()")]
        if record:
            top.append((J.sp + "/torch/distributed/elastic/multiprocessing/errors/__init__.py", 355 if J.prof != "new" else 357, "wrapper", "return f(*args, **kwargs)"))
        for f, l, fn, code in top + frames:
            out.append('  File "%s", line %d, in %s' % (f, l, fn))
            if code:
                out.append("    " + code)
        out += exc_lines
        return out

    def train_frames(self, extra):
        S = self.J.script
        base = [(S, self.R.randrange(500, 600), "main", "trainer.fit(train_loader)")]
        if not (extra and extra[0][2] == "fit"):
            base.append((os.path.dirname(S) + "/trainer.py", self.R.randrange(180, 420), "fit", "loss = self.train_step(batch)"))
        return base + extra

    def fwd_frames(self):
        sp = self.J.sp
        T = os.path.dirname(self.J.script) + "/trainer.py"
        M = os.path.dirname(self.J.script) + "/model/transformer.py"
        fr = [(T, self.R.randrange(90, 170), "train_step", "out = self.model(**batch)")]
        if self.J.prof == "old":
            fr.append((sp + "/torch/nn/modules/module.py", 1501, "_call_impl", "return forward_call(*args, **kwargs)"))
        else:
            fr.append((sp + "/torch/nn/modules/module.py", 1736 if self.J.prof == "new" else 1532, "_wrapped_call_impl", "return self._call_impl(*args, **kwargs)"))
            fr.append((sp + "/torch/nn/modules/module.py", 1747 if self.J.prof == "new" else 1541, "_call_impl", "return forward_call(*args, **kwargs)"))
        fr.append((M, self.R.randrange(200, 340), "forward", "h = layer(h, mask)"))
        fr.append((M, self.R.randrange(100, 199), "forward", "attn = torch.softmax(scores.float(), dim=-1).to(q.dtype)"))
        return fr

    # ---- launcher (torchrun agent) log format
    def alog(self, h, t, level, which, msg):
        J = self.J
        mods = {"mp": ("torch.distributed.elastic.multiprocessing.api", "torch/distributed/elastic/multiprocessing/api.py"),
                "agent": ("torch.distributed.elastic.agent.server.api", "torch/distributed/elastic/agent/server/api.py"),
                "run": ("torch.distributed.run", "torch/distributed/run.py"),
                "rdzv": ("torch.distributed.elastic.rendezvous.dynamic_rendezvous", "torch/distributed/elastic/rendezvous/dynamic_rendezvous.py")}
        lines_no = {"mp": {"W": 897, "E": 869, "I": 675}, "agent": {"W": 704, "E": 700, "I": 879},
                    "run": {"W": 793, "E": 793, "I": 793}, "rdzv": {"W": 1283, "E": 1283, "I": 1145}}
        mod, path = mods[which]
        LV = {"W": "WARNING", "E": "ERROR", "I": "INFO"}[level]
        d = J.lt(h, t)
        if J.prof == "old":
            return "%s:%s:%s" % (LV, mod, msg)
        if J.prof == "mid":
            return "[%s] %s: [%s] %s" % (f_py(d), mod, LV, msg)
        return "%s%s.%03d000 %d %s:%d] %s" % (level, d.strftime("%m%d %H:%M:%S"), d.microsecond // 1000, J.agent_pid[h], path, lines_no[which][level], msg)

    # ------------------------------------------------------------------
    # startup / progress / noise
    # ------------------------------------------------------------------
    def startup(self):
        J, R = self.J, self.R
        self.t_init = J.t0 + R.uniform(25, 240)
        self.t_train = self.t_init + R.uniform(8, 90)
        if J.launcher == "torchrun" and J.gpn > 1:
            for h in range(J.n_nodes):
                t = J.t0 + R.uniform(1, 6)
                body = ["", "*****************************************",
                        "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. ",
                        "*****************************************"]
                if J.prof == "old":
                    self.agent(h, t, ["WARNING:torch.distributed.run:"] + body[1:])
                else:
                    self.agent(h, t, [self.alog(h, t, "W", "run", b) for b in body])
        if J.launcher == "deepspeed":
            for h in range(J.n_nodes):
                t = J.t0 + R.uniform(2, 8)
                d = J.lt(h, t)
                self.agent(h, t, ["[%s] [INFO] [launch.py:146:main] WORLD INFO DICT: {%s}" % (f_py(d), ", ".join("'%s': [%s]" % (J.hosts[k], ", ".join(str(i) for i in range(J.gpn))) for k in range(min(J.n_nodes, 4)))) + (", ..." if J.n_nodes > 4 else ""),
                                  "[%s] [INFO] [launch.py:152:main] nnodes=%d, num_local_procs=%d, node_rank=%d" % (f_py(d), J.n_nodes, J.gpn, h),
                                  "[%s] [INFO] [launch.py:163:main] global_rank_mapping=defaultdict(<class 'list'>, {...})" % f_py(d),
                                  "[%s] [INFO] [launch.py:164:main] dist_world_size=%d" % (f_py(d), J.world),
                                  "[%s] [INFO] [launch.py:166:main] Setting CUDA_VISIBLE_DEVICES=%s" % (f_py(d), ",".join(str(i) for i in range(J.gpn)))])
        # NCCL init lines
        for r in range(J.world):
            t = self.t_init + R.uniform(-2, 4)
            if J.nccl_debug == "INFO" and (J.world <= 32):
                p = J.nccl_pfx(r)
                tid = J.pids[r] + R.randrange(30, 200)
                p2 = J.nccl_pfx(r, tid)
                h = J.host_of(r)
                ifn = {"ib": "ib0", "roce": "bond0", "socket": "eth0"}[J.net]
                L = [p + "NCCL INFO Bootstrap : Using %s:%s<0>" % (ifn, J.ips[h])]
                if J.nccl_v >= "2.19":
                    L.append(p + "NCCL INFO NET/Plugin: No plugin found (libnccl-net.so)")
                else:
                    L.append(p + "NCCL INFO NET/Plugin : dlerror=libnccl-net.so: cannot open shared object file: No such file or directory No plugin found (libnccl-net.so), using internal implementation")
                L.append(p + "NCCL INFO cudaDriverVersion %d" % (12040 if J.cuda_v >= "12.4" else 12020))
                if r == 0:
                    L.append(p + "NCCL INFO NCCL version %s+cuda%s" % (J.nccl_v, J.cuda_v))
                if J.net == "socket":
                    L.append(p2 + "NCCL INFO NET/Socket : Using [0]eth0:%s<0>" % J.ips[h])
                    L.append(p2 + "NCCL INFO Using network Socket")
                else:
                    kind = "IB" if J.net == "ib" else "RoCE"
                    L.append(p2 + "NCCL INFO NET/IB : Using %s [RO]; OOB %s:%s<0>" % (" ".join("[%d]mlx5_%d:1/%s" % (i, i, kind) for i in range(min(8, J.gpn))), ifn, J.ips[h]))
                    L.append(p2 + "NCCL INFO Using network IB")
                cid = J.comm_id
                comm = 0x55000000000 + R.getrandbits(36)
                L.append(p2 + "NCCL INFO comm 0x%x rank %d nranks %d cudaDev %d nvmlDev %d busId %s000 commId 0x%x - Init START" % (comm, r, J.world, J.lr(r), J.lr(r), J.pci[J.lr(r)], cid))
                if J.nccl_v >= "2.19":
                    L.append(p2 + "NCCL INFO comm 0x%x rank %d nRanks %d nNodes %d localRanks %d localRank %d MNNVL 0 - Init COMPLETE" % (comm, r, J.world, J.n_nodes, J.gpn, J.lr(r)))
                else:
                    L.append(p2 + "NCCL INFO comm 0x%x rank %d nranks %d cudaDev %d busId %s000 - Init COMPLETE" % (comm, r, J.world, J.lr(r), J.pci[J.lr(r)]))
                tt = t
                for line in L:
                    self.rout(r, tt, line, fd="o")
                    tt += R.uniform(0.0005, 0.4)
        # rank 0 banner
        t = self.t_init - R.uniform(5, 20)
        L = [self.plog(0, t, "INFO", "trainer", "Initialized torch.distributed: backend=nccl world_size=%d rank=0 local_rank=0 master=%s:%d" % (J.world, J.hosts[0], J.port)),
             self.plog(0, t + 0.01, "INFO", "trainer", "torch %s, cuda %s, nccl %s, %d x %s" % (J.torch_v, J.cuda_v, J.nccl_v.replace(".", "", 0), J.world, J.gpu_name)),
             self.plog(0, t + 0.4, "INFO", "trainer", "model: %s hidden=%d layers=%d heads=%d params=%.2fB" % (J.jobname, J.hidden, R.choice([24, 32, 40, 48, 80]), J.hidden // 128, R.uniform(1, 70))),
             self.plog(0, t + 2.0, "INFO", "data", "train dataset: %d shards, %s samples, seq_len=%d, global_batch=%d" % (R.randrange(64, 4096), "{:,}".format(R.randrange(10 ** 7, 10 ** 9)), R.choice([2048, 4096, 8192]), J.gbs))]
        if J.step0:
            L.append(self.plog(0, t + 3.0, "INFO", "ckpt", "resumed from /checkpoints/%s/step_%08d (step %d)" % (J.jobname, J.step0, J.step0)))
        self.rout(0, t, L, fd="e")

    def progress(self):
        """rank 0 metric lines until t_stop (or end of healthy run)."""
        J, R = self.J, self.R
        t_end = self.t_stop
        t = self.t_train
        step = J.step0
        st = J.step_time
        est_steps = max(1, (t_end - t) / st)
        li = max(1, int(round(est_steps / R.uniform(60, 140) / 10.0)) * 10) if est_steps > 200 else max(1, int(est_steps / 40) or 1)
        n_line = 0
        ckpt_every = li * max(R.choice([5, 10, 20]), int(R.uniform(1200, 3600) / max(1.0, st * li)))
        total = J.step0 + int(est_steps * 1.3) + 1000
        while True:
            factor = 1.0
            if self.slow and t >= self.slow["t_from"]:
                factor = self.slow["factor"]
            dt = st * li * factor * R.uniform(0.97, 1.03)
            if t + dt >= t_end:
                break
            t += dt
            step += li
            n_line += 1
            loss = 1.9 + 6.0 * pow(2.718, -(step) / 4000.0) + R.uniform(-0.05, 0.05)
            it_ms = st * factor * 1000 * R.uniform(0.98, 1.02)
            lr = 3e-4 * min(1.0, step / 2000.0 + 0.01)
            fw = J.framework
            if fw == "megatron":
                d = J.lt(0, t)
                line = " [%s] iteration %8d/%8d | consumed samples: %12d | elapsed time per iteration (ms): %.1f | learning rate: %.3E | global batch size: %5d | lm loss: %.6E | loss scale: 1.0 | grad norm: %.3f | number of skipped iterations:   0 | number of nan iterations:   0 |" % (
                    d.strftime("%Y-%m-%d %H:%M:%S"), step, total, step * J.gbs, it_ms, lr, J.gbs, loss, R.uniform(0.15, 0.9))
                self.rout(0, t, line, fd="o")
            elif fw == "hf":
                ep = step / float(total)
                self.rout(0, t, ["{'loss': %.4f, 'grad_norm': %.4f, 'learning_rate': %.3e, 'epoch': %.2f}" % (loss, R.uniform(0.2, 2.0), lr, ep * 3),
                                 " %2d%%|%s| %d/%d [%s<%s, %5.2fs/it]" % (int(100 * step / total), ("\u2588" * int(10 * step / total)).ljust(10), step, total,
                                                                          self.hms(t - self.t_train), self.hms((total - step) * st * factor), st * factor)], fd="o")
            elif fw == "deepspeed":
                d = J.lt(0, t)
                self.rout(0, t, ["[%s] [INFO] [logging.py:128:log_dist] [Rank 0] step=%d, skipped=%d, lr=[%.6f], mom=[(0.9, 0.95)]" % (f_py(d), step, R.randrange(0, 4), lr),
                                 "steps: %d loss: %.4f iter time (s): %.3f samples/sec: %.3f" % (step, loss, st * factor, J.gbs / (st * factor))], fd="o")
            else:
                toks = J.gbs * 4096 / (st * factor) * R.uniform(0.96, 1.04)
                self.rout(0, t, self.plog(0, t, "INFO", "trainer", "step %d | loss %.4f | lr %.2e | tok/s %s | step_time %.2fs | mem %.1fGB" % (step, loss, lr, "{:,}".format(int(toks)), st * factor, R.uniform(0.55, 0.8) * J.gpu_gib)), fd="e")
            if self.slow and t >= self.slow["t_from"] and self.slow.get("report") and n_line % 3 == 0:
                sr = self.slow["rank"]
                med = st * R.uniform(0.93, 0.97)
                f2 = factor * R.uniform(0.95, 1.06)
                e = self.rout(0, t + 0.01, self.plog(0, t + 0.01, "WARNING", "perf", "step %d timing: slowest rank %d (%s) fwd_bwd=%.2fs median=%.2fs max/median=%.2f" % (
                    step, sr, J.hosts[J.host_of(sr)], med * f2, med, f2)), fd="e", key=True)
                self.rank_proof.append(e.id)
                self.node_proof.append(e.id)
            if step % ckpt_every < li and step > J.step0 + li:
                self.ckpt_lines(t + 0.5, step)
                t += R.uniform(8, 60)
        self.last_step = step
        self.last_log_t = t

    def hms(self, s):
        s = int(max(0, s))
        return "%d:%02d:%02d" % (s // 3600, s // 60 % 60, s % 60) if s >= 3600 else "%02d:%02d" % (s // 60, s % 60)

    def ckpt_lines(self, t, step):
        J = self.J
        path = "/checkpoints/%s/step_%08d" % (J.jobname, step)
        if J.framework == "megatron":
            self.rout(0, t, ["saving checkpoint at iteration %8d to %s" % (step, os.path.dirname(path)),
                             "  successfully saved checkpoint at iteration %8d to %s" % (step, os.path.dirname(path))], fd="o")
        elif J.framework == "deepspeed":
            d = J.lt(0, t)
            self.rout(0, t, ["[%s] [INFO] [logging.py:128:log_dist] [Rank 0] Saving model checkpoint: %s/mp_rank_00_model_states.pt" % (f_py(d), path),
                             "[%s] [INFO] [torch_checkpoint_engine.py:33:commit] [Torch] Checkpoint global_step%d is ready now!" % (f_py(d), step)], fd="o")
        else:
            self.rout(0, t, [self.plog(0, t, "INFO", "ckpt", "saving checkpoint to %s" % path),
                             self.plog(0, t + self.R.uniform(5, 40), "INFO", "ckpt", "checkpoint saved (%.1f GB) in %.1fs" % (self.R.uniform(20, 400), self.R.uniform(5, 40)))], fd="e")

    KNOISE = [
        "IPv6: ADDRCONF(NETDEV_CHANGE): veth{hx}: link becomes ready",
        "docker0: port 1(veth{hx}) entered blocking state",
        "docker0: port 1(veth{hx}) entered forwarding state",
        "perf: interrupt took too long (2504 > 2500), lowering kernel.perf_event_max_sample_rate to 79750",
        "nvidia-uvm: Loaded the UVM driver, major device number 508.",
        "EXT4-fs (nvme0n1p2): re-mounted. Opts: errors=remount-ro. Quota mode: none.",
        "xfs filesystem being remounted at /raid supports timestamps until 2038 (0x7fffffff)",
        "IPVS: rr: TCP 10.96.0.1:443 - no destination available",
        "mlx5_core 0000:{nic}:00.0: mlx5_fw_tracer_handle_traces:778:(pid 0): FWTracer: Events were lost",
        "hrtimer: interrupt took 1184635 ns",
        "audit: type=1400 audit({ep}.{ms:03d}:{n}): apparmor=\"DENIED\" operation=\"capable\" profile=\"/usr/sbin/cupsd\" pid={pid} comm=\"cupsd\" capability=12  capname=\"net_admin\"",
        "nvidia-nvswitch{sw}: open (major=510)",
        "Lustre: Mounted lfs01-client",
        "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  {drv}  Release Build  (dvs-builder@U16-I3-D08-1-2)  Fri Feb  9 22:14:17 UTC 2024",
        "process 'opt/conda/bin/python' started with executable stack",
        "Memory cgroup stats for /system.slice/docker-{hx}.scope: no swap",
    ]

    def kernel_noise(self, t_end):
        J, R = self.J, self.R
        n = 6 if J.n_nodes > 24 else 12
        for h in range(J.n_nodes):
            for _ in range(R.randrange(n // 2, n)):
                t = R.uniform(J.t0 - 7200, t_end)
                msg = R.choice(self.KNOISE).format(hx="%07x" % R.randrange(16 ** 7), nic=R.choice(NIC_BUS), ep=int(t + J.skew[h]),
                                                   ms=R.randrange(1000), n=R.randrange(100, 9999), pid=R.randrange(900, 90000),
                                                   sw=R.randrange(0, 4), drv=J.driver)
                if "Memory cgroup stats" in msg:
                    continue
                self.kern(h, t, msg)

    # ------------------------------------------------------------------
    # resolve: launcher / scheduler cascade simulation
    # ------------------------------------------------------------------
    def collateral_plan(self, r):
        R = self.R
        if r in self.remote:
            t, ph = self.remote[r][:2]
            kind = self.remote[r][2] if len(self.remote[r]) > 2 else ("socket" if self.J.net == "socket" else "ib")
            return Plan(t, "remote", peer=ph, nk=kind)
        if self.hang:
            return Plan(self.hang["t"] + self.J.timeout_s + R.uniform(0.05, 3.0), "timeout")
        return Plan(INF, "passive")

    def resolve(self):
        J, R = self.J, self.R
        tent = {}
        for r in range(J.world):
            if r in self.plans:
                tent[r] = self.plans[r]
            elif r in self.stuck:
                tent[r] = Plan(INF, "stuck", wedged=r in self.wedged)
            elif self.healthy:
                tent[r] = Plan(self.healthy_end + R.uniform(0.3, 8), "ok")
            else:
                tent[r] = self.collateral_plan(r)
        self.tent = tent
        self.final = {}
        self.agent_st = {h: {"state": "run", "first": None, "K": None, "exit": None, "fails": [], "by": None} for h in range(J.n_nodes)}
        self.srun_msgs = []      # (t, line)
        self.pod_exit = {}       # h -> (t, code, reason)
        self.k8s_events = []     # (t, type, reason, obj, msg)
        self.first_bad = None
        self.death_ev = {}
        self.tails_printed = 0
        self.segv_left = self.R.choice([0, 0, 0, 1, 1, 2]) if not self.healthy else 0
        self.remote_spread_done = False
        for h, st in self.pre_agent.items():
            self.agent_st[h]["state"] = st
        self.k8s_events = list(self.k8s_events_pre)
        if self.nodefail:
            h, tn = self.nodefail
            e = self.sched(0, tn, "srun: error: Node failure on %s" % J.hosts[h], key=True)
            self.node_proof.append(e.id)
            self.sched(0, tn + 0.5, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO NODE FAILURE, SEE SLURMCTLD LOG FOR DETAILS ***" % (J.jobid, J.hosts[0], f_iso(J.lt(0, tn + 0.5))), key=True)
            self.global_kills.append((tn + 1, [x for x in range(J.n_nodes) if x != h], "slurm"))
        pending = sorted(self.global_kills, key=lambda x: x[0])
        guard = 0
        while True:
            guard += 1
            if guard > 20000:
                break
            nd = None
            for r, p in tent.items():
                if r not in self.final and p.t < INF and (nd is None or p.t < nd[0]):
                    nd = (p.t, r)
            if pending and (nd is None or pending[0][0] <= nd[0]):
                K, hosts, by = pending.pop(0)
                for h in hosts:
                    self.signal_host(h, K, by)
                continue
            if nd is None:
                rem = [r for r in tent if r not in self.final]
                if not rem:
                    break
                last = max([v[0] for v in self.final.values()] + [self.t_stop or J.t0])
                K = last + R.uniform(240, 2400)
                self.user_kill = K
                hosts = sorted(set(J.host_of(r) for r in rem))
                self.user_cancel_lines(K, hosts)
                pending.append((K, hosts, "user"))
                continue
            t, r = nd
            p = tent[r]
            code = self.finalize(r, p)
            self.final[r] = (p.t, code, p)
            self.on_exit(r, p.t, code, p)
        self.job_end = max(v[0] for v in self.final.values()) + 1.0
        self.after_exit()

    def user_cancel_lines(self, K, hosts):
        J = self.J
        if J.outer == "srun" or J.launcher in ("srun_direct",):
            for h in hosts[:3] if len(hosts) > 3 else hosts:
                self.sched(h, K, "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s ***" % (J.jobid, J.hosts[h], f_iso(J.lt(h, K))))
        elif J.outer == "k8s":
            self.k8s_events.append((K, "Normal", "Killing", "pod/%s" % J.hosts[hosts[0]], "Stopping container pytorch"))

    def kill_rank(self, r, K, sig, by):
        p = self.tent[r]
        if r in self.final:
            return
        if p.t <= K:
            return
        if p.kind in ("stuck",) and sig == 15 and p.d.get("wedged"):
            # wedged process ignores SIGTERM; gets SIGKILL after a grace period
            self.tent[r] = Plan(K + 30 + self.R.uniform(0, 2), "killed", sig=9, by=by, wedged=True)
            return
        self.tent[r] = Plan(K + self.R.uniform(0.02, 2.5), "killed", sig=sig, by=by)

    def signal_host(self, h, K, by):
        """SIGTERM delivered to the launcher/agent (or tasks) on host h at time K."""
        J, R = self.J, self.R
        alive = [r for r in range(h * J.gpn, (h + 1) * J.gpn) if r not in self.final]
        A = self.agent_st[h]
        if J.launcher == "torchrun":
            if A["state"] in ("run",):
                A["state"] = "signaled"
                A["by"] = by
                A["K"] = K
                for r in alive:
                    self.kill_rank(r, K, 15, by)
                self.check_agent_done(h, K)
            return
        for r in alive:
            self.kill_rank(r, K, 15, by)

    def finalize(self, r, p):
        J, R = self.J, self.R
        k = p.kind
        ids = []
        if k == "ok":
            return 0
        if k == "exc":
            ids.append(self.rout(r, p.t, p.d["lines"], key=p.d.get("key", True)).id)
            self.death_ev[r] = ids
            return p.d.get("code", 1)
        if k == "sig":
            if p.d.get("lines"):
                ids.append(self.rout(r, p.t, p.d["lines"], key=p.d.get("key", True)).id)
            self.death_ev[r] = ids
            return -p.d["sig"]
        if k == "oomkill":
            return -9
        if k == "silent":
            return p.d.get("code", 1)
        if k in ("timeout", "remote", "cudaerr"):
            h = self.hang or {"seq": J.seq_base + 10, "op": "ALLREDUCE", "numel": 1}
            seq = self.seq_override.get(r, h["seq"])
            op, numel = self.mismatch.get(r, (h["op"], h["numel"]))
            if k == "timeout" and self.dump_signal is not None and J.prof == "new" and not getattr(self, "dumped", False):
                self.dumped = True
                ds = self.dump_signal
                if ds not in self.final:
                    td = p.t + R.uniform(0.3, 3)
                    e = self.rout(ds, td, self.cpp(ds, td, "E", "ProcessGroupNCCL.cpp:1450", "%s Received a dump signal due to a collective timeout from  rank %d and we will try our best to dump the debug info. Last enqueued NCCL work: %d, last completed NCCL work: %d.This is most likely caused by incorrect usages of collectives, e.g., wrong sizes used across ranks, the order of collectives is not same for all ranks or the scheduled collective, for some reason, didn't run. Additionally, this can be caused by GIL deadlock or other reasons such as network errors or bugs in the communications library (e.g. NCCL), etc." % (
                        self.pg(ds), r, h["seq"] - 1, h["seq"] - 1)), key=True)
                    self.rank_proof.append(e.id)
                    self.node_proof.append(e.id)
            if k == "timeout":
                le = lc = None
                if r in self.seq_override:
                    le, lc = seq, seq - 1
                L, what = self.timeout_lines(r, p.t, seq, op, numel, le, lc)
                e = self.rout(r, p.t, L, key=r in self.mismatch)
                ids.append(e.id)
                fk = "timeout"
            elif k == "remote":
                warn, L, what = self.remote_err_lines(r, p.t, p.d["peer"], seq, p.d.get("nk", "ib"))
                ids.append(self.rout(r, p.t - R.uniform(0.01, 0.5), warn, fd="o").id)
                ids.append(self.rout(r, p.t, L).id)
                fk = "timeout"
            else:
                msg = p.d["msg"]
                boiler = ["CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
                          "For debugging consider passing CUDA_LAUNCH_BLOCKING=1", "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.", ""]
                if p.d.get("py"):
                    lines = self.tb(self.train_frames([(os.path.dirname(J.script) + "/trainer.py", R.randrange(200, 260), "train_step", "loss_val = loss.detach().item()")]),
                                    ["RuntimeError: %s" % msg] + boiler)
                    ids.append(self.rout(r, p.t, lines, key=p.d.get("key", True)).id)
                    self.death_ev[r] = ids
                    return 1
                term = "%s %s watchdog thread terminated with exception: %s" % (self.pg(r), "NCCL" if J.prof == "old" else "Process group", msg)
                L = [self.cpp(r, p.t, "E", "ProcessGroupNCCL.cpp:%d" % self.ln("term"), term)] + boiler
                e = self.rout(r, p.t, L, key=p.d.get("key", False))
                ids.append(e.id)
                what = [term] + boiler
                fk = "cuda"
            dt = R.uniform(0.05, 1.5)
            if J.world > 48 and self.tails_printed >= 6 and k == "timeout":
                tail = ["terminate called after throwing an instance of '%s'" % ("std::runtime_error" if J.prof == "old" else "c10::DistBackendError"), "  what():  " + what[0]]
            else:
                tail = self.abort_tail(r, what, fk)
                self.tails_printed += 1
            ids.append(self.rout(r, p.t + dt, tail).id)
            self.death_ev[r] = ids
            p.t += dt
            return -6
        if k == "killed":
            sig = p.d["sig"]
            if sig == 15 and r == 0 and J.emergency_ckpt and p.d.get("by") != "user" and J.launcher != "mpirun":
                ids.append(self.rout(r, p.t, self.ckpt_fail_lines(r, p.t)).id)
                p.t += R.uniform(1, 20)
                self.death_ev[r] = ids
                return 1
            if sig == 15 and self.segv_left > 0 and R.random() < 0.25:
                self.segv_left -= 1
                ids.append(self.rout(r, p.t, self.segv_lines(r, teardown=True)).id)
                self.death_ev[r] = ids
                return -11
            return -sig
        return 1

    def ckpt_fail_lines(self, r, t):
        J, R = self.J, self.R
        step = getattr(self, "last_step", J.step0)
        path = "/checkpoints/%s/step_%08d-emergency" % (J.jobname, step)
        L = [self.plog(r, t, "WARNING", "trainer", "Received signal 15 (SIGTERM); writing emergency checkpoint to %s" % path)]
        ck = os.path.dirname(J.script) + "/ckpt.py"
        sp = J.sp
        frames = self.train_frames([(os.path.dirname(J.script) + "/trainer.py", R.randrange(200, 260), "train_step", R.choice(["loss.backward()", "self.optimizer.step()", "torch.cuda.synchronize()"]))])
        frames += [(os.path.dirname(J.script) + "/trainer.py", R.randrange(60, 99), "_on_sigterm", "save_checkpoint(self.state, path, self.step)"),
                  (ck, R.randrange(40, 90), "save_checkpoint", "dist.barrier()" if R.random() < 0.5 else "dcp.save(state_dict, checkpoint_id=path)")]
        if "barrier" in frames[-1][3]:
            if J.prof != "old":
                frames.append((sp + "/torch/distributed/c10d_logger.py", 83 if J.prof == "new" else 75, "wrapper", "return func(*args, **kwargs)"))
            frames.append((sp + "/torch/distributed/distributed_c10d.py", R.randrange(3700, 4500), "barrier", "work.wait()"))
        else:
            frames += [(sp + "/torch/distributed/checkpoint/logger.py", 83, "wrapper", "result = func(*args, **kwargs)"),
                       (sp + "/torch/distributed/checkpoint/state_dict_saver.py", 151, "save", "return _save_state_dict("),
                       (sp + "/torch/distributed/checkpoint/state_dict_saver.py", 317, "_save_state_dict", 'central_plan: SavePlan = distW.reduce_scatter("plan", local_step, global_step)'),
                       (sp + "/torch/distributed/checkpoint/utils.py", 183, "reduce_scatter", "all_data = self.gather_object(local_data)"),
                       (sp + "/torch/distributed/checkpoint/utils.py", 119, "gather_object", "dist.gather_object(")]
        msg = "torch.distributed.DistBackendError: NCCL communicator was aborted on rank %d." % r if J.prof != "old" else "RuntimeError: NCCL communicator was aborted on rank %d." % r
        L += self.tb(frames, [msg], record=False)
        return L

    def segv_lines(self, r, teardown=False):
        J, R = self.J, self.R
        sp = J.sp
        L = ["Fatal Python error: Segmentation fault", ""]
        for _ in range(R.randrange(1, 3)):
            L += ["Thread 0x%016x (most recent call first):" % (0x7f0000000000 + R.getrandbits(40)),
                  '  File "/usr/lib/python%s/threading.py", line 324 in wait' % J.py_v if "usr/local" in sp else '  File "%s/../../python%s/threading.py", line 324 in wait' % (sp, J.py_v),
                  '  File "%s/tqdm/_monitor.py", line 60 in run' % sp if R.random() < 0.5 else '  File "%s/torch/utils/data/_utils/pin_memory.py", line 54 in _pin_memory_loop' % sp,
                  '  File "/usr/lib/python%s/threading.py", line 1016 in _bootstrap_inner' % J.py_v, ""]
        L.append("Current thread 0x%016x (most recent call first):" % (0x7f0000000000 + R.getrandbits(40)))
        if teardown:
            L += ['  File "%s/torch/distributed/distributed_c10d.py", line %d in destroy_process_group' % (sp, R.randrange(1700, 2100)),
                  '  File "%s", line %d in cleanup' % (os.path.dirname(J.script) + "/trainer.py", R.randrange(400, 480)),
                  '  File "%s", line %d in main' % (J.script, R.randrange(500, 600)),
                  '  File "%s", line %d in <module>' % (J.script, R.randrange(600, 700)), ""]
            if J.py_v >= "3.10":
                L += ["Extension modules: numpy.core._multiarray_umath, numpy.core._multiarray_tests, torch._C, torch._C._fft, torch._C._linalg, torch._C._nested, torch._C._nn, torch._C._sparse, torch._C._special (total: %d)" % R.randrange(30, 80)]
        return L

    def on_exit(self, r, t, code, p):
        J, R = self.J, self.R
        h = J.host_of(r)
        bad = code != 0
        own = p.kind not in ("killed",)  # failure not caused by our launcher
        if bad and self.first_bad is None:
            self.first_bad = (r, t, code)
        # remote errors spread to peers on other hosts after a real process death
        if bad and own and not self.remote_spread_done and getattr(self, "spread", None):
            self.remote_spread_done = True
            prob, lo, hi = self.spread
            for q in range(J.world):
                if q in self.final or J.host_of(q) == h:
                    continue
                if R.random() < prob:
                    tq = t + R.uniform(lo, hi)
                    if self.tent[q].t > tq and self.tent[q].kind in ("timeout", "passive"):
                        self.tent[q] = Plan(tq, "remote", peer=h, nk="socket" if J.net == "socket" else "ib")
        if J.launcher == "torchrun":
            A = self.agent_st[h]
            if bad and own and A["state"] == "run":
                A["state"] = "stopping"
                K = t + (R.uniform(0.05, 0.6) if J.prof == "new" else R.uniform(0.5, 5.0))
                A["K"] = K
                alive = [q for q in range(h * J.gpn, (h + 1) * J.gpn) if q not in self.final]
                for q in alive:
                    self.kill_rank(q, K, 15, "agent")
            if bad and own and A["state"] in ("run", "stopping") and (A["K"] is None or t <= A["K"] + 0.01):
                A["fails"].append((r, t, code, p))
            self.check_agent_done(h, t)
        elif J.launcher == "srun_direct":
            if bad and own and self.first_bad[0] == r and J.kill_on_bad_exit:
                self.srun_msgs.append((t + 0.05, "srun: error: %s: task %d: %s" % (J.hosts[h], r, "Exited with exit code %d" % code if code > 0 else SRUN_SIG.get(-code, "Killed"))))
                self.srun_msgs.append((t + 0.06, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish."))
                K = t + R.uniform(0.05, 0.8)
                for hh in range(J.n_nodes):
                    self.sched(hh, K + R.uniform(0, 0.3), "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s ***" % (J.jobid, J.hosts[hh], f_iso(J.lt(hh, K))))
                    for q in range(hh * J.gpn, (hh + 1) * J.gpn):
                        self.kill_rank(q, K, 15, "srun")
                self.step_aborted = t
        elif J.launcher == "mpirun":
            if bad and own and self.first_bad[0] == r:
                K = t + R.uniform(0.3, 3)
                for q in range(J.world):
                    self.kill_rank(q, K, 15, "mpirun")
        elif J.launcher == "deepspeed":
            A = self.agent_st[h]
            if bad and own and A["state"] == "run":
                A["state"] = "stopping"
                K = t + R.uniform(0.01, 0.4)
                d = J.lt(h, K)
                L = []
                for q in range(h * J.gpn, (h + 1) * J.gpn):
                    L.append("[%s] [INFO] [launch.py:%d:sigkill_handler] Killing subprocess %d" % (f_py(d), 315 if J.torch_v < "2.4" else 319, J.pids[q]))
                L.append("[%s] [ERROR] [launch.py:%d:sigkill_handler] ['%s', '-u', '%s', '--local_rank=%d', '--deepspeed', '--deepspeed_config', 'ds_config.json'] exits with return code = %d" % (
                    f_py(d), 321 if J.torch_v < "2.4" else 325, J.pybin, J.script_name, J.lr(r), code))
                self.agent_ev.setdefault(h, []).append(self.agent(h, K, L))
                for q in range(h * J.gpn, (h + 1) * J.gpn):
                    self.kill_rank(q, K, 9, "launch.py")
                A["first"] = (r, t, code)
                A["exit"] = K + 0.5
                self.srun_msgs.append((K + R.uniform(0.2, 2), "pdsh@%s: %s: ssh exited with exit code %d" % (J.hosts[0], J.hosts[h], code if code > 0 else 128 - code)))

    def check_agent_done(self, h, t):
        J, R = self.J, self.R
        A = self.agent_st[h]
        if A["exit"] is not None:
            return
        loc = range(h * J.gpn, (h + 1) * J.gpn)
        if any(q not in self.final for q in loc):
            return
        te = max(self.final[q][0] for q in loc) + R.uniform(0.1, 1.2)
        if A["K"] is not None:
            te = max(te, A["K"] + R.uniform(0.05, 0.5))
        A["exit"] = te
        killed = [q for q in loc if self.final[q][2].kind == "killed"]
        if A["K"] is not None and A["state"] in ("stopping", "signaled"):
            K = A["K"]
            L = []
            if A["state"] == "signaled":
                L.append(self.alog(h, K, "W", "agent", "Received 15 death signal, shutting down workers" if J.torch_v >= "2.5" else "Received Signals.SIGTERM death signal, shutting down workers"))
            for i, q in enumerate(killed):
                L.append(self.alog(h, K + 0.001 * (i + 1), "W", "mp", "Sending process %d closing signal SIGTERM" % J.pids[q]))
            if L:
                self.agent_ev.setdefault(h, []).append(self.agent(h, K, L))
            for q in killed:
                if self.final[q][2].d.get("wedged"):
                    self.agent(h, K + 30, self.alog(h, K + 30, "W", "mp", "Unable to shutdown process %d via Signals.SIGTERM, forcefully exiting via Signals.SIGKILL" % J.pids[q]))
        if A["state"] == "run":
            # all succeeded (healthy) or all ended without an observed failure
            if all(self.final[q][1] == 0 for q in loc):
                L = [self.alog(h, te, "I", "agent", "[default] worker group successfully finished. Waiting 300 seconds for other agents to finish."),
                     self.alog(h, te, "I", "agent", "Local worker group finished (WorkerState.SUCCEEDED). Waiting 300 seconds for other agents to finish"),
                     self.alog(h, te + 0.3, "I", "agent", "Done waiting for other agents. Elapsed: %.4f seconds" % R.uniform(0.001, 3))]
                if J.prof != "old" and R.random() < 0.5:
                    self.agent(h, te, L)
                self.pod_exit[h] = (te, 0, "Completed")
                return
            A["state"] = "stopping"
            A["fails"] = [(q, self.final[q][0], self.final[q][1], self.final[q][2]) for q in loc if self.final[q][1] != 0][:1]
        if A["state"] == "stopping" and A["fails"]:
            self.agent_ev.setdefault(h, []).append(self.agent(h, te, self.child_failed(h, te, A["fails"])))
            self.pod_exit[h] = (te, 1, "Error")
            self.outer_react(h, te, 1)
        elif A["state"] == "signaled":
            self.agent_ev.setdefault(h, []).append(self.agent(h, te, self.signal_tb(h)))
            self.pod_exit[h] = (te, 1 if J.outer != "k8s" else 143, "Error")
            self.outer_react(h, te, 15)
        elif A["state"] == "oomkilled":
            self.pod_exit[h] = (te, 137, "OOMKilled")
            self.outer_react(h, te, 9)

    def outer_react(self, h, te, code):
        J, R = self.J, self.R
        if J.outer == "srun":
            if code == 15:
                self.srun_msgs.append((te + 0.05, "srun: error: %s: task %d: Exited with exit code 1" % (J.hosts[h], h)))
            elif code == 9:
                self.srun_msgs.append((te + 0.05, "srun: error: %s: task %d: Out Of Memory" % (J.hosts[h], h)))
            else:
                self.srun_msgs.append((te + 0.05, "srun: error: %s: task %d: Exited with exit code %d" % (J.hosts[h], h, code)))
            sk = [g[0] for g in self.global_kills if g[2] == "slurm"]
            if J.kill_on_bad_exit and not getattr(self, "step_aborted", None) and not (sk and te >= min(sk)):
                self.step_aborted = te
                self.srun_msgs.append((te + 0.06, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish."))
                K = te + R.uniform(0.1, 1.0)
                others = [hh for hh in range(J.n_nodes) if self.agent_st[hh]["exit"] is None]
                for hh in others:
                    self.sched(hh, K + R.uniform(0, 0.2), "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s ***" % (J.jobid, J.hosts[hh], f_iso(J.lt(hh, K))))
                if not hasattr(self, "global_kills"):
                    self.global_kills = []
                # deliver immediately (we are inside resolve): schedule via signal_host
                for hh in others:
                    self.signal_host(hh, K + R.uniform(0, 0.3), "srun")
        elif J.outer == "k8s":
            if not getattr(self, "k8s_failed", None):
                self.k8s_failed = (te, h)
                K = te + R.uniform(1, 25)
                others = [hh for hh in range(J.n_nodes) if self.agent_st[hh]["exit"] is None]
                for hh in others:
                    self.k8s_events.append((K, "Normal", "SuccessfulDeletePod", "pytorchjob/%s" % J.jobname, "Deleted pod: %s" % J.hosts[hh]))
                    self.signal_host(hh, K + R.uniform(0.1, 2), "k8s")

    def child_failed(self, h, te, fails):
        J, R = self.J, self.R
        fails = sorted(fails, key=lambda x: x[1])
        first = fails[0]
        r0, t0, c0, p0 = first
        L = [self.alog(h, te, "E", "mp", "failed (exitcode: %d) local_rank: %d (pid: %d) of binary: %s" % (c0, J.lr(r0), J.pids[r0], J.pybin))]
        bin_ = J.torchrun_bin
        sp = J.sp
        L += ["Traceback (most recent call last):",
              '  File "%s", line 8, in <module>' % bin_, "    sys.exit(main())",
              '  File "%s/torch/distributed/elastic/multiprocessing/errors/__init__.py", line %d, in wrapper' % (sp, 355 if J.prof != "new" else 357), "    return f(*args, **kwargs)",
              '  File "%s/torch/distributed/run.py", line %d, in main' % (sp, {"old": 794, "mid": 812, "new": 919}[J.prof]), "    run(args)",
              '  File "%s/torch/distributed/run.py", line %d, in run' % (sp, {"old": 785, "mid": 803, "new": 910}[J.prof]), "    elastic_launch(",
              '  File "%s/torch/distributed/launcher/api.py", line %d, in __call__' % (sp, {"old": 134, "mid": 135, "new": 138}[J.prof]), "    return launch_agent(self._config, self._entrypoint, list(args))",
              '  File "%s/torch/distributed/launcher/api.py", line %d, in launch_agent' % (sp, {"old": 250, "mid": 268, "new": 269}[J.prof]), "    raise ChildFailedError(",
              "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
              "============================================================",
              "%s FAILED" % J.script_name,
              "------------------------------------------------------------",
              "Failures:"]
        if len(fails) == 1:
            L.append("  <NO_OTHER_FAILURES>")
        else:
            for i, f in enumerate(fails[1:], 1):
                L += ["[%d]:" % i] + self.fail_block(h, f)
        L += ["------------------------------------------------------------", "Root Cause (first observed failure):", "[0]:"] + self.fail_block(h, first)
        L.append("============================================================")
        return L

    def fail_block(self, h, f):
        J = self.J
        r, t, c, p = f
        d = J.lt(h, t)
        B = ["  time      : %s" % d.strftime("%Y-%m-%d_%H:%M:%S"),
             "  host      : %s" % J.hosts[h],
             "  rank      : %d (local_rank: %d)" % (r, J.lr(r)),
             "  exitcode  : %d (pid: %d)" % (c, J.pids[r])]
        if c < 0:
            B += ["  error_file: <N/A>", "  traceback : Signal %d (%s) received by PID %d" % (-c, SIGNAME.get(-c, "SIG?"), J.pids[r])]
        elif J.record and p.kind == "exc" and p.d.get("lines"):
            B.append("  error_file: /tmp/torchelastic_%s/%s_%s/attempt_0/%d/error.json" % (J.runid[:8], J.runid, "%06x" % (J.pids[r] % 999999), J.lr(r)))
            tb = [l for l in p.d["lines"] if not l.startswith("[") and " - " not in l[:40]]
            tb = [l for l in tb if l.strip()]
            if tb and tb[0].startswith("Traceback"):
                B.append("  traceback : " + tb[0])
                B += ["    " + l for l in tb[1:]]
            else:
                B.append("  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html")
        else:
            B += ["  error_file: <N/A>", "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"]
        return B

    def signal_tb(self, h):
        J = self.J
        sp = J.sp
        bin_ = J.torchrun_bin
        return ["Traceback (most recent call last):",
                '  File "%s", line 8, in <module>' % bin_, "    sys.exit(main())",
                '  File "%s/torch/distributed/elastic/multiprocessing/errors/__init__.py", line %d, in wrapper' % (sp, 355 if J.prof != "new" else 357), "    return f(*args, **kwargs)",
                '  File "%s/torch/distributed/run.py", line %d, in main' % (sp, {"old": 794, "mid": 812, "new": 919}[J.prof]), "    run(args)",
                '  File "%s/torch/distributed/run.py", line %d, in run' % (sp, {"old": 785, "mid": 803, "new": 910}[J.prof]), "    elastic_launch(",
                '  File "%s/torch/distributed/launcher/api.py", line %d, in __call__' % (sp, {"old": 134, "mid": 135, "new": 138}[J.prof]), "    return launch_agent(self._config, self._entrypoint, list(args))",
                '  File "%s/torch/distributed/launcher/api.py", line %d, in launch_agent' % (sp, {"old": 241, "mid": 255, "new": 260}[J.prof]), "    result = agent.run()",
                '  File "%s/torch/distributed/elastic/metrics/api.py", line 137, in wrapper' % sp, "    result = f(*args, **kwargs)",
                '  File "%s/torch/distributed/elastic/agent/server/api.py", line %d, in run' % (sp, {"old": 723, "mid": 727, "new": 696}[J.prof]), "    result = self._invoke_run(role)",
                '  File "%s/torch/distributed/elastic/agent/server/api.py", line %d, in _invoke_run' % (sp, {"old": 864, "mid": 868, "new": 855}[J.prof]), "    time.sleep(monitor_interval)",
                '  File "%s/torch/distributed/elastic/multiprocessing/api.py", line %d, in _terminate_process_handler' % (sp, {"old": 62, "mid": 79, "new": 84}[J.prof]),
                '    raise SignalException(f"Process {os.getpid()} got signal: {sigval}", sigval=sigval)',
                "torch.distributed.elastic.multiprocessing.api.SignalException: Process %d got signal: 15" % J.agent_pid[h]]

    def after_exit(self):
        """srun/mpirun/k8s end-of-job summaries."""
        J, R = self.J, self.R
        if J.launcher == "srun_direct":
            by_host = {}
            for r, (t, c, p) in self.final.items():
                if c != 0:
                    if getattr(self, "step_aborted", None) and self.first_bad and r == self.first_bad[0] and J.kill_on_bad_exit:
                        continue
                    by_host.setdefault((J.host_of(r), c), []).append((r, t))
            for (h, c), lst in sorted(by_host.items(), key=lambda kv: min(x[1] for x in kv[1])):
                ranks_ = [x[0] for x in lst]
                t = max(x[1] for x in lst) + 0.05
                desc = "Exited with exit code %d" % c if c > 0 else SRUN_SIG.get(-c, "Killed")
                self.srun_msgs.append((t, "srun: error: %s: task%s %s: %s" % (J.hosts[h], "s" if len(ranks_) > 1 else "", str(ranks_[0]) if len(ranks_) == 1 else ranges(ranks_), desc)))
        if J.launcher == "mpirun" and self.first_bad:
            r, t, c = self.first_bad
            if c < 0:
                self.mpi_epilogue = ["--------------------------------------------------------------------------",
                                     "mpirun noticed that process rank %d with PID %d on node %s exited on signal %d (%s)." % (r, J.pids[r], J.hosts[J.host_of(r)], -c, MPI_SIG.get(-c, "Killed")),
                                     "--------------------------------------------------------------------------"]
            else:
                self.mpi_epilogue = ["--------------------------------------------------------------------------",
                                     "Primary job  terminated normally, but 1 process returned",
                                     "a non-zero exit code. Per user-direction, the job has been aborted.",
                                     "--------------------------------------------------------------------------",
                                     "--------------------------------------------------------------------------",
                                     "mpirun detected that one or more processes exited with non-zero status, thus causing",
                                     "the job to be terminated. The first process to do so was:", "",
                                     "  Process name: [[%d,1],%d]" % (J.jobid % 65536, r), "  Exit code:    %d" % c,
                                     "--------------------------------------------------------------------------"]
        if J.outer == "k8s":
            for h, (t, c, reason) in self.pod_exit.items():
                pass

    # ------------------------------------------------------------------
    # scenario helpers
    # ------------------------------------------------------------------
    def pick_root(self):
        R = self.R
        dur = R.choice([900, 2400, 3600, 3 * 3600, 7 * 3600, 16 * 3600]) * R.uniform(0.5, 1.0)
        self.t_root = self.t_train + dur

    def set_hang(self, t, op=None):
        J, R = self.J, self.R
        seq = J.seq_at(t, self.t_train) + 1
        if op is None:
            op, mult = R.choice(OPS)
        else:
            mult = 1.0
        numel = int(J.hidden * J.hidden * mult * R.choice([1, 2, 4, 8])) if op != "BROADCAST" else R.randrange(1, 4096)
        self.hang = dict(t=t, seq=seq, op=op, numel=numel)

    def pname(self):
        return "pt_main_thread" if self.J.prof in ("new", "mid") and self.R.random() < 0.7 else "python"

    def init(self, r=None, h=None):
        if r is not None:
            self.init_rank = r
            self.init_node = self.J.host_of(r)
        elif h is not None:
            self.init_node = h

    def proof(self, e, rank=True, node=True):
        if rank:
            self.rank_proof.append(e.id)
        if node:
            self.node_proof.append(e.id)

    def pid_visible(self):
        """Can a reader map a PID in a kernel line back to a rank?"""
        return self.J.nccl_debug == "INFO"

    def quiet_warn(self, r, t, msg, name="trainer", key=False):
        return self.rout(r, t, self.plog(r, t, "WARNING", name, msg), key=key)

    # ------------------------------------------------------------------
    # causes
    # ------------------------------------------------------------------
    def sc_gpu_hardware(self):
        J, R = self.J, self.R
        self.pick_root()
        r = R.randrange(J.world)
        h, g = J.host_of(r), J.lr(r)
        bus = J.pci[g]
        t = self.t_root
        pid = J.pids[r]
        v = R.choice(["xid79", "xid79", "gsp", "xid62"])
        self.bad_gpu = {h: (g, "ERR")}
        self.init(r)
        self.spread = (R.uniform(0.05, 0.4), 20, 120)
        if v == "xid79":
            if R.random() < 0.5:
                for k in range(R.randrange(2, 6)):
                    tk = t - R.uniform(60, 1800)
                    self.kern(h, tk, ["pcieport 0000:%s:01.0: AER: Corrected error received: 0000:%s:00.0" % ("%02x" % (int(bus, 16) - 1), bus),
                                      "nvidia 0000:%s:00.0: PCIe Bus Error: severity=Corrected, type=Physical Layer, (Receiver ID)" % bus,
                                      "nvidia 0000:%s:00.0:   device [10de:%s] error status/mask=00000001/0000e000" % (bus, "2330" if "H100" in J.gpu_name else "20b2"),
                                      "nvidia 0000:%s:00.0:    [ 0] RxErr                  (First)" % bus])
            e = self.kern(h, t, ["NVRM: GPU at PCI:0000:%s:00: %s" % (bus, J.gpu_uuid(h, g)),
                                 "NVRM: GPU Board Serial Number: %d" % R.randrange(10 ** 12, 10 ** 13),
                                 "NVRM: Xid (PCI:0000:%s:00): 79, pid=%d, name=%s, GPU has fallen off the bus." % (bus, pid, self.pname()),
                                 "NVRM: GPU 0000:%s:00.0: GPU has fallen off the bus." % bus,
                                 "NVRM: A GPU crash dump has been created. If possible, please run",
                                 "NVRM: nvidia-bug-report.sh as root to collect this data before",
                                 "NVRM: the NVIDIA kernel module is unloaded."], key=True)
            self.proof(e, rank=self.pid_visible())
            if R.random() < 0.6:
                self.plans[r] = Plan(t + R.uniform(0.5, 12), "cudaerr", msg=R.choice(["CUDA error: unspecified launch failure", "CUDA error: unknown error"]), py=R.random() < 0.3)
            else:
                self.stuck.add(r)
                self.wedged.add(r)
            self.extras.append((h, "nvidia-smi.txt", "Unable to determine the device handle for GPU0000:%s:00.0: Unknown Error\n" % bus.upper(), True))
            self.kern(h, t + R.uniform(600, 3000), "NVRM: GPU 0000:%s:00.0: RmInitAdapter failed! (0x23:0x65:1426)" % bus)
            self.notes.append("Xid 79 (GPU fell off the bus) on %s GPU %d (PCI %s, pid of rank %d); that rank then %s; peers blocked in the next collective and died in the cascade." % (
                J.hosts[h], g, bus, r, "got a CUDA error" if r in self.plans else "hung"))
        elif v == "gsp":
            lines = []
            for k in range(R.randrange(2, 5)):
                self.kern(h, t + k * R.uniform(6, 20), "NVRM: Xid (PCI:0000:%s:00): 119, pid=%d, name=%s, Timeout after 6s of waiting for RPC response from GPU%d GSP! Expected function 76 (GSP_RM_CONTROL) (0x%08x 0x%x)." % (
                    bus, pid, self.pname(), g, R.choice([0x20801348, 0x2080014b, 0x20800a4c]), R.choice([4, 0x50, 0x3c])), key=(k == 0))
            e = self.kern(h, t + 70, "NVRM: Rate limiting GSP RPC error prints for GPU at PCI:0000:%s:00 (printing 1 of every 30).  The GPU likely needs to be reset." % bus, key=True)
            self.proof(e, rank=False)
            e2 = [x for x in self.evs if x.st == "kern" and x.key and "119" in x.lines[0]][0]
            self.proof(e2, rank=self.pid_visible())
            if J.driver >= "550":
                self.kern(h, t + 75, "NVRM: Xid (PCI:0000:%s:00): 154, GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)" % bus)
            self.stuck.add(r)
            self.wedged.add(r)
            self.notes.append("GSP RPC timeouts (Xid 119) on %s GPU %d; rank %d wedged silently, everybody else timed out in the watchdog %d s later." % (J.hosts[h], g, r, J.timeout_s))
        else:
            e = self.kern(h, t, ["NVRM: Xid (PCI:0000:%s:00): 62, pid='<unknown>', name=<unknown>, %s" % (bus, " ".join("%08x" % R.getrandbits(32) for _ in range(8))),
                                 "NVRM: GPU%d _kgspRpcGspEventPmuHalted: Received signal from GSP that PMU has halted." % g] +
                          (["NVRM: Xid (PCI:0000:%s:00): 154, GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)" % bus] if J.driver >= "550" else []), key=True)
            self.proof(e, rank=J.nccl_debug == "INFO")
            if R.random() < 0.5:
                self.plans[r] = Plan(t + R.uniform(1, 20), "cudaerr", msg="CUDA error: unspecified launch failure")
            else:
                self.stuck.add(r)
                self.wedged.add(r)
            self.notes.append("Xid 62 (internal micro-controller halt) on %s GPU %d; the rank on that GPU failed, the rest of the job collapsed behind it." % (J.hosts[h], g))
        self.proof_ranks = [r]
        self.set_hang(t)
        self.t_stop = t
        self.kern_hosts = [h]

    def sc_ecc_memory(self):
        J, R = self.J, self.R
        self.pick_root()
        r = R.randrange(J.world)
        h, g = J.host_of(r), J.lr(r)
        bus = J.pci[g]
        t = self.t_root
        pid = J.pids[r]
        self.init(r)
        self.spread = (R.uniform(0.05, 0.4), 20, 120)
        v = R.choice(["remap_ecc", "remap_ima", "smi_only"])
        row = "0x%016x" % R.randrange(16 ** 7)
        xid63 = "NVRM: Xid (PCI:0000:%s:00): 63, pid=%d, name=%s, Row Remapper: New row (%s) marked for remapping, reset gpu to activate." % (bus, pid, self.pname(), row)
        xid64 = "NVRM: Xid (PCI:0000:%s:00): 64, pid=%d, name=%s, Row Remapper: Failed to remap row (%s): no spare rows left in bank, GPU requires service." % (bus, pid, self.pname(), row)
        fail = R.random() < 0.4
        nunc = R.randrange(1, 4)
        smi = self.smi_q(h, g, dram_unc=nunc, pending=not fail, failure=fail)
        self.bad_gpu = {h: (g, "ECC", nunc)}
        if v in ("remap_ecc", "remap_ima"):
            e = self.kern(h, t, [xid63] + ([xid64] if fail else []), key=True)
            self.proof(e, rank=self.pid_visible())
        if v == "remap_ima":
            self.plans[r] = Plan(t + R.uniform(0.3, 25), "cudaerr", msg="CUDA error: an illegal memory access was encountered")
            self.notes.append("Uncorrectable DRAM ECC error on %s GPU %d (Xid 63%s, row remap); seconds later rank %d reported an illegal memory access - a symptom of the ECC error, not a software bug." % (J.hosts[h], g, "/64" if fail else "", r))
        else:
            if R.random() < 0.5:
                self.plans[r] = Plan(t + R.uniform(0.3, 10), "cudaerr", msg="CUDA error: uncorrectable ECC error encountered", key=True)
            else:
                self.plans[r] = Plan(t + R.uniform(0.3, 10), "cudaerr", msg="CUDA error: uncorrectable ECC error encountered", py=True, key=True)
            self.notes.append("Uncorrectable ECC error on %s GPU %d (rank %d)%s; the rank died with 'uncorrectable ECC error encountered' and peers followed." % (
                J.hosts[h], g, r, " with row-remap Xid 63%s in the kernel log" % ("/64" if fail else "") if v == "remap_ecc" else ""))
        self.extras.append((h, "nvidia-smi-q-gpu%d.txt" % g, smi, v == "remap_ima" or v == "smi_only"))
        self.extra_proof = [(h, "nvidia-smi-q-gpu%d.txt" % g, True)]
        self.proof_ranks = [r]
        self.set_hang(t)
        self.t_stop = t
        self.kern_hosts = [h] if v != "smi_only" else []

    def smi_q(self, h, g, dram_unc=0, pending=False, failure=False, corr=0, throttle=False, temp=None):
        J, R = self.J, self.R
        d = J.lt(h, self.t_root + 900 if hasattr(self, "t_root") else J.t0)
        L = ["", "==============NVSMI LOG==============", "",
             "Timestamp                                 : %s" % d.strftime("%a %b %d %H:%M:%S %Y"),
             "Driver Version                            : %s" % J.driver,
             "CUDA Version                              : %s" % J.cuda_v, "",
             "Attached GPUs                             : %d" % J.gpn,
             "GPU 00000000:%s:00.0" % J.pci[g].upper(),
             "    Product Name                          : %s" % J.gpu_name,
             "    Serial Number                         : %d" % R.randrange(10 ** 12, 10 ** 13),
             "    GPU UUID                              : %s" % J.gpu_uuid(h, g),
             "    Minor Number                          : %d" % g,
             "    Clocks Event Reasons" if J.driver >= "535" else "    Clocks Throttle Reasons",
             "        Idle                              : Not Active",
             "        Applications Clocks Setting       : Not Active",
             "        SW Power Cap                      : Not Active",
             "        HW Slowdown                       : %s" % ("Active" if throttle else "Not Active"),
             "            HW Thermal Slowdown           : %s" % ("Active" if throttle else "Not Active"),
             "            HW Power Brake Slowdown       : Not Active",
             "        Sync Boost                        : Not Active",
             "        SW Thermal Slowdown               : %s" % ("Active" if throttle else "Not Active"),
             "    ECC Mode",
             "        Current                           : Enabled",
             "        Pending                           : Enabled",
             "    ECC Errors",
             "        Volatile",
             "            SRAM Correctable              : 0",
             "            SRAM Uncorrectable Parity     : 0",
             "            SRAM Uncorrectable SEC-DED    : 0",
             "            DRAM Correctable              : %d" % corr,
             "            DRAM Uncorrectable            : %d" % dram_unc,
             "        Aggregate",
             "            SRAM Correctable              : 0",
             "            SRAM Uncorrectable Parity     : 0",
             "            SRAM Uncorrectable SEC-DED    : 0",
             "            DRAM Correctable              : %d" % (corr + R.randrange(0, 20)),
             "            DRAM Uncorrectable            : %d" % dram_unc,
             "    Retired Pages",
             "        Single Bit ECC                    : N/A",
             "        Double Bit ECC                    : N/A",
             "        Pending Page Blacklist            : N/A",
             "    Remapped Rows",
             "        Correctable Error                 : %d" % (1 if corr > 8 else 0),
             "        Uncorrectable Error               : %d" % dram_unc,
             "        Pending                           : %s" % ("Yes" if pending else "No"),
             "        Remapping Failure Occurred        : %s" % ("Yes" if failure else "No"),
             "        Bank Remap Availability Histogram",
             "            Max                           : %d bank(s)" % (640 - dram_unc - (2 if failure else 0)),
             "            High                          : %d bank(s)" % dram_unc,
             "            Partial                       : 0 bank(s)",
             "            Low                           : 0 bank(s)",
             "            None                          : %d bank(s)" % (1 if failure else 0),
             "    Temperature",
             "        GPU Current Temp                  : %d C" % (temp or R.randrange(38, 62)),
             "        GPU T.Limit Temp                  : %s" % ("-2 C" if throttle else "%d C" % R.randrange(20, 40)),
             "        GPU Shutdown Temp                 : 92 C",
             "        GPU Slowdown Temp                 : 87 C",
             ""]
        return "\n".join(L)

    def sc_nvlink(self):
        J, R = self.J, self.R
        self.pick_root()
        r = R.randrange(J.world)
        h, g = J.host_of(r), J.lr(r)
        bus = J.pci[g]
        t = self.t_root
        self.spread = (R.uniform(0.05, 0.3), 20, 120)
        v = R.choice(["xid74", "xid74", "nvswitch"]) if J.gpn == 8 else "xid74"
        if v == "xid74":
            g2 = R.choice([x for x in range(J.gpn) if x != g])
            link = R.randrange(0, 18)
            L = ["NVRM: Xid (PCI:0000:%s:00): 74, pid=%d, name=%s, NVLink: fatal error detected on link %d(0x%x, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0)" % (bus, J.pids[r], self.pname(), link, R.choice([0x10000, 0x20000, 0x100]))]
            if R.random() < 0.5:
                L.append("NVRM: Xid (PCI:0000:%s:00): 74, pid=%d, name=%s, NVLink: fatal error detected on link %d(0x%x, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0)" % (J.pci[g2], J.pids[h * J.gpn + g2], self.pname(), R.randrange(0, 18), 0x10000))
            e = self.kern(h, t, L, key=True)
            self.proof(e, rank=self.pid_visible())
            self.kern(h, t + R.uniform(20, 90), "NVRM: Xid (PCI:0000:%s:00): 45, pid=%d, name=%s, Ch %08x" % (bus, J.pids[r], self.pname(), R.randrange(1, 40)))
            msg = "uncorrectable NVLink error detected during the execution"
            if R.random() < 0.5:
                tid = J.pids[r] + R.randrange(50, 300)
                w = self.rout(r, t + R.uniform(0.1, 3), [J.nccl_pfx(r, tid) + "enqueue.cc:%d NCCL WARN Cuda failure '%s'" % (R.choice([1370, 1455, 1631]), msg)], fd="o", key=True)
                self.proof(w)
            self.plans[r] = Plan(t + R.uniform(1, 10), "cudaerr", msg="CUDA error: " + msg, key=True)
            self.init(r)
            self.proof_ranks = [r]
            self.notes.append("NVLink fatal error (Xid 74) on %s GPU %d; rank %d died with an uncorrectable NVLink error, the rest of the job timed out / was torn down." % (J.hosts[h], g, r))
        else:
            sw = R.randrange(0, 4)
            swbus = R.choice(["86", "87", "88", "89", "c3", "c4"])
            port = R.randrange(0, 64)
            e = self.kern(h, t, ["nvidia-nvswitch%d: SXid (PCI:0000:%s:00.0): 24007, Fatal, Link %d sourcetrack timeout error (First)" % (sw, swbus, port),
                                 "nvidia-nvswitch%d: SXid (PCI:0000:%s:00.0): 24007, Severity 1 Engine instance %d Sub-engine instance 00" % (sw, swbus, port),
                                 "nvidia-nvswitch%d: SXid (PCI:0000:%s:00.0): 24007, Data {0x%08x, 0x%08x, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000}" % (sw, swbus, R.getrandbits(32), R.getrandbits(32))], key=True)
            self.proof(e, rank=False)
            d = J.lt(h, t + 0.5)
            fm = ["[%s] [INFO] [tid %d] Received an inband message:  Message header details: magic Id:adbc request Id:%x status:0 type:0 length:24" % (d.strftime("%b %d %Y %H:%M:%S"), R.randrange(1000, 9000), R.getrandbits(40)),
                  "[%s] [ERROR] [tid %d] detected NVSwitch fatal error %d on fid 0 on NVSwitch pci bus id 00000000:%s:00.0 physical id %d port %d" % (d.strftime("%b %d %Y %H:%M:%S"), R.randrange(1000, 9000), 24007, swbus, sw + 8, port),
                  "[%s] [ERROR] [tid %d] NVSwitch fatal error detected, GPU resets are required for all GPUs connected to the NVSwitch fabric. Restart of fabric manager and GPU reset may be needed" % (d.strftime("%b %d %Y %H:%M:%S"), R.randrange(1000, 9000))]
            self.extras.append((h, "fabricmanager.log", "\n".join(["[%s] [INFO] [tid %d] Fabric Manager version %s is running with the following configuration options" % (J.lt(h, J.t0 - 86400).strftime("%b %d %Y %H:%M:%S"), R.randrange(1000, 9000), J.driver)] + fm) + "\n", True))
            for gg in range(J.gpn):
                if R.random() < 0.6:
                    self.kern(h, t + R.uniform(0.2, 2), "NVRM: Xid (PCI:0000:%s:00): 74, pid=%d, name=%s, NVLink: fatal error detected on link %d(0x10000, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0)" % (J.pci[gg], J.pids[h * J.gpn + gg], self.pname(), R.randrange(0, 18)))
            for q in range(h * J.gpn, (h + 1) * J.gpn):
                self.stuck.add(q)
                self.wedged.add(q)
            self.init(h=h)
            self.notes.append("NVSwitch fatal SXid 24007 on %s; all GPUs on that node lost NVLink and hung; other nodes hit NCCL watchdog timeouts." % J.hosts[h])
        self.set_hang(t)
        self.t_stop = t
        self.kern_hosts = [h]

    def link_lines(self, h, nic, up):
        J = self.J
        if J.net == "ib":
            return "mlx5_core 0000:%s:00.0 mlx5_%d: Port: 1 Link %s" % (NIC_BUS[nic], nic, "ACTIVE" if up else "DOWN")
        if J.net == "roce":
            return "mlx5_core 0000:%s:00.0 ens%dnp0: Link %s" % (NIC_BUS[nic], 100 + nic * 10, "up" if up else "down")
        return "ice 0000:%s:00.0 ens%df0: NIC Link is %s" % (NIC_BUS[nic], 1 + nic, "up 100 Gbps Full Duplex, Requested FEC: RS-FEC, Negotiated FEC: RS-FEC, Autoneg Advertised: On, Autoneg Negotiated: False, Flow Control: None" if up else "Down")

    def sc_network(self):
        J, R = self.J, self.R
        self.pick_root()
        h = R.randrange(J.n_nodes)
        lr = R.randrange(J.gpn)
        r = h * J.gpn + lr
        nic = lr if J.net != "socket" else 0
        t = self.t_root
        flap = R.uniform(3, 90) if J.net != "socket" else R.uniform(200, 900)
        e = self.kern(h, t, self.link_lines(h, nic, False), key=True)
        self.proof(e, rank=False)
        if J.net == "socket":
            self.kern(h, t + 0.01, "bond0: (slave ens1f0): link status definitely down, disabling slave")
        if R.random() < 0.8:
            self.kern(h, t + flap, self.link_lines(h, nic, True))
            if J.net == "ib":
                self.kern(h, t + flap - 2, "mlx5_core 0000:%s:00.0 mlx5_%d: Port: 1 Link INIT" % (NIC_BUS[nic], nic))
        if J.net != "socket":
            w = self.rout(r, t + R.uniform(0.05, 1.5), self.nccl_warn(r, "NET/IB : Got async event : port error", "transport/net_ib.cc:%d" % R.choice([91, 128, 142]))[:1], fd="o", key=True)
            self.proof(w)
            kind = "ib"
        else:
            kind = "socket_to"
        # first failure: rank r sees a completion / socket error
        other = [q for q in range(J.world) if J.host_of(q) != h]
        peer = R.choice(other)
        lo, hi = (8, 60) if kind == "ib" else (90, 160)
        self.remote[r] = (t + R.uniform(lo, hi), J.host_of(peer), kind)
        self.plans[r] = self.collateral_plan(r)
        # peers on other hosts that talk to host h
        for q in R.sample(other, min(len(other), R.randrange(1, max(2, J.gpn)))):
            self.remote[q] = (t + R.uniform(lo + 2, hi + 20), h, kind)
        self.spread = (R.uniform(0.1, 0.5), 15, 90)
        self.init(r)
        self.proof_ranks = [r]
        self.set_hang(t)
        self.t_stop = t
        self.kern_hosts = [h]
        self.notes.append("%s link on %s (NIC %d) went down at the root time%s; NCCL on rank %d reported the network error first, peers on other nodes followed with remote errors / watchdog timeouts, then the launcher tore the job down." % (
            {"ib": "InfiniBand", "roce": "RoCE", "socket": "Ethernet"}[J.net], J.hosts[h], nic, " and came back %.0fs later" % flap if flap else "", r))

    def sc_cuda_oom(self):
        J, R = self.J, self.R
        self.pick_root()
        r = R.randrange(J.world)
        h, g = J.host_of(r), J.lr(r)
        t = self.t_root
        self.spread = (R.uniform(0.1, 0.6), 15, 100)
        v = R.choice(["fwd", "fwd", "nccl"])
        alloc = R.choice([0.5, 1.0, 1.5, 2.0, 3.82, 4.0, 7.63])
        cap = J.gpu_gib
        free = R.uniform(0.1, alloc * 0.9)
        if v == "fwd":
            if R.random() < 0.6:
                self.quiet_warn(r, t - R.uniform(1, 120), "batch at step %d has max_seq_len=%d (bucket limit %d); packing disabled for this batch" % (J.step_at(t, self.t_train), R.choice([16384, 32768, 24576]), R.choice([4096, 8192])), "data")
            if J.prof == "old":
                msg = "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate %.2f GiB (GPU %d; %.2f GiB total capacity; %.2f GiB already allocated; %.2f GiB free; %.2f GiB reserved in total by PyTorch) If reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF" % (
                    alloc, g, cap, cap - free - 1.7, free, cap - free - 0.9)
            else:
                inuse = cap - free
                msg = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate %.2f GiB. GPU %d has a total capacity of %.2f GiB of which %.2f GiB is free. Including non-PyTorch memory, this process has %.2f GiB memory in use. Of the allocated memory %.2f GiB is allocated by PyTorch, and %.2f GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)" % (
                    alloc, g, cap, free, inuse, inuse - 2.9, 2.1)
                if J.torch_v < "2.4":
                    msg = msg.replace("torch.OutOfMemoryError", "torch.cuda.OutOfMemoryError")
            lines = self.tb(self.train_frames(self.fwd_frames()), [msg])
            self.plans[r] = Plan(t, "exc", lines=lines)
            self.notes.append("Rank %d (%s GPU %d) ran out of GPU memory in the forward pass on an unusually long batch; it exited and the rest of the job failed in the cascade." % (r, J.hosts[h], g))
        else:
            tid = J.pids[r] + R.randrange(50, 300)
            w = self.rout(r, t - 0.01, [J.nccl_pfx(r, tid) + "include/alloc.h:%d NCCL WARN Cuda failure 'out of memory'" % R.choice([103, 125, 185])] +
                          ([J.nccl_pfx(r, tid) + "NCCL INFO include/alloc.h:%d -> 1" % R.choice([103, 125]), J.nccl_pfx(r, tid) + "NCCL INFO init.cc:%d -> 1" % R.choice([1396, 1602, 1712])] if J.nccl_debug == "INFO" else []), fd="o", key=True)
            self.proof(w)
            exc = ["torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:%d, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version %s" % (R.choice([1970, 2006, 1691]), J.nccl_v),
                   "ncclUnhandledCudaError: Call to CUDA function failed.", "Last error:", "Cuda failure 'out of memory'"]
            if J.prof == "old":
                exc[0] = exc[0].replace("torch.distributed.DistBackendError", "RuntimeError")
            fr = self.train_frames([(os.path.dirname(J.script) + "/trainer.py", R.randrange(260, 300), "train_step", "self.moe_all_to_all(tokens, group=self.ep_group)"),
                                    (J.sp + "/torch/distributed/c10d_logger.py", 83 if J.prof == "new" else 75, "wrapper", "return func(*args, **kwargs)"),
                                    (J.sp + "/torch/distributed/distributed_c10d.py", R.randrange(3900, 4400), "all_to_all_single", "work = group.alltoall_base(")])
            self.plans[r] = Plan(t, "exc", lines=self.tb(fr, exc))
            self.notes.append("Rank %d ran out of GPU memory while NCCL set up a new communicator (Cuda failure 'out of memory'); its DistBackendError is a CUDA OOM, the rest is cascade." % r)
        self.init(r)
        self.proof_ranks = [r]
        self.set_hang(t)
        self.t_stop = t

    def sc_illegal_memory_access(self):
        J, R = self.J, self.R
        self.pick_root()
        r = R.randrange(J.world)
        h, g = J.host_of(r), J.lr(r)
        bus = J.pci[g]
        t = self.t_root
        self.spread = (R.uniform(0.1, 0.5), 15, 100)
        v = R.choice(["assert", "ima", "xid13"])
        if v == "assert":
            src = R.choice([("/opt/pytorch/pytorch/aten/src/ATen/native/cuda/IndexKernel.cu:92", "operator()", "`-sizes[i] <= index && index < sizes[i] && \"index out of bounds\"`"),
                            ("../aten/src/ATen/native/cuda/Loss.cu:250", "nll_loss_forward_reduce_cuda_kernel_2d", "`t >= 0 && t < n_classes`"),
                            ("../aten/src/ATen/native/cuda/Indexing.cu:1284", "indexSelectLargeIndex", "`srcIndex < srcSelectDimSize`")])
            L = []
            for _ in range(R.randrange(4, 24 if self.compact == 0 else 8)):
                L.append("%s: %s: block: [%d,0,0], thread: [%d,0,0] Assertion %s failed." % (src[0], src[1], R.randrange(0, 400), R.randrange(0, 128), src[2]))
            e = self.rout(r, t, L, key=True)
            self.proof(e)
            exc = ["RuntimeError: CUDA error: device-side assert triggered",
                   "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
                   "For debugging consider passing CUDA_LAUNCH_BLOCKING=1", "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.", ""]
            self.plans[r] = Plan(t + R.uniform(0.01, 0.5), "exc", lines=self.tb(self.train_frames([(os.path.dirname(J.script) + "/trainer.py", R.randrange(200, 260), "train_step", "if torch.isnan(loss).any():")]), exc))
            self.kern(h, t + R.uniform(0.1, 2), "NVRM: Xid (PCI:0000:%s:00): 43, pid=%d, name=%s, Ch %08x" % (bus, J.pids[r], self.pname(), R.randrange(1, 40)))
            self.notes.append("Device-side assert (%s) on rank %d: bad index/label in a batch; CUDA context poisoned, rank exited, collectives on peers timed out." % (src[1], r))
        else:
            if v == "ima":
                kl = ["NVRM: Xid (PCI:0000:%s:00): 31, pid=%d, name=%s, Ch %08x, intr 00000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_%d faulted @ 0x7f%02x_%08x. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ" % (
                    bus, J.pids[r], self.pname(), R.randrange(1, 40), R.randrange(0, 16), R.randrange(256), R.getrandbits(32) & 0xfffff000)]
            else:
                kl = ["NVRM: Xid (PCI:0000:%s:00): 13, pid=%d, name=%s, Graphics SM Warp Exception on (GPC %d, TPC %d, SM %d): Out Of Range Address" % (bus, J.pids[r], self.pname(), R.randrange(8), R.randrange(9), R.randrange(2)),
                      "NVRM: Xid (PCI:0000:%s:00): 13, pid=%d, name=%s, Graphics Exception: ESR 0x%06x=0x%x 0x%06x=0x0 0x%06x=0x%x 0x%06x=0x%x" % (bus, J.pids[r], self.pname(), R.getrandbits(24), R.getrandbits(16), R.getrandbits(24), R.getrandbits(24), R.getrandbits(24), R.getrandbits(24), R.getrandbits(24))]
            self.kern(h, t, kl)
            if R.random() < 0.6:
                self.plans[r] = Plan(t + R.uniform(0.01, 2), "cudaerr", msg="CUDA error: an illegal memory access was encountered", key=True)
            else:
                self.plans[r] = Plan(t + R.uniform(0.01, 2), "cudaerr", msg="CUDA error: an illegal memory access was encountered", py=True, key=True)
            self.notes.append("Illegal memory access on rank %d (kernel Xid %s from the application, no hardware fault); rank died, peers cascaded." % (r, "31 MMU fault" if v == "ima" else "13"))
        self.init(r)
        self.proof_ranks = [r]
        self.set_hang(t)
        self.t_stop = t
        self.kern_hosts = [h] if R.random() < 0.5 else []

    def sc_python_exception(self):
        J, R = self.J, self.R
        self.pick_root()
        r = R.choice([0] + [R.randrange(J.world) for _ in range(4)])
        t = self.t_root
        self.spread = (R.uniform(0.1, 0.6), 15, 100)
        sp = J.sp
        D = os.path.dirname(J.script)
        v = R.choice(["keyerror", "shape", "fnf", "nan", "zerodiv", "nonetype", "enospc"])
        if v == "keyerror":
            fr = self.train_frames([(D + "/trainer.py", R.randrange(120, 180), "fit", "for batch in loader:"),
                                    (sp + "/torch/utils/data/dataloader.py", 630 if J.prof != "old" else 633, "__next__", "data = self._next_data()"),
                                    (sp + "/torch/utils/data/dataloader.py", 1344 if J.prof != "old" else 1345, "_next_data", "return self._process_data(data)"),
                                    (sp + "/torch/utils/data/dataloader.py", 1370 if J.prof != "old" else 1371, "_process_data", "data.reraise()"),
                                    (sp + "/torch/_utils.py", 706 if J.prof == "new" else 694, "reraise", "raise exception")])
            exc = ["KeyError: Caught KeyError in DataLoader worker process %d." % R.randrange(0, 8), "Original Traceback (most recent call last):",
                   '  File "%s/torch/utils/data/_utils/worker.py", line 309, in _worker_loop' % sp, "    data = fetcher.fetch(index)  # type: ignore[possibly-undefined]",
                   '  File "%s/torch/utils/data/_utils/fetch.py", line 55, in fetch' % sp, "    return self.collate_fn(data)",
                   '  File "%s/data/collate.py", line %d, in __call__' % (D, R.randrange(30, 90)), "    masks = [ex['attention_mask'] for ex in examples]",
                   '  File "%s/data/collate.py", line %d, in <listcomp>' % (D, R.randrange(30, 90)), "    masks = [ex['attention_mask'] for ex in examples]",
                   "KeyError: 'attention_mask'", ""]
            desc = "KeyError in the collate function (one shard lacks 'attention_mask')"
        elif v == "shape":
            fr = self.train_frames(self.fwd_frames()[:1] + [(D + "/model/heads.py", R.randrange(40, 90), "forward", "return F.cross_entropy(logits.view(-1, logits.size(-1)), labels.view(-1))")])
            exc = ["ValueError: Expected input batch_size (%d) to match target batch_size (%d)." % (R.choice([8192, 16384]), R.choice([8190, 16380]))]
            desc = "ValueError (logits/labels size mismatch) in the loss"
        elif v == "fnf":
            shard = "/data/%s/shard-%05d.parquet" % (J.jobname, R.randrange(0, 4096))
            fr = self.train_frames([(D + "/trainer.py", R.randrange(120, 180), "fit", "for batch in loader:"), (D + "/data/stream.py", R.randrange(50, 120), "__iter__", "table = pq.read_table(path, columns=self.columns)")])
            exc = ["FileNotFoundError: [Errno 2] No such file or directory: '%s'" % shard]
            desc = "FileNotFoundError for a data shard"
        elif v == "nan":
            step = J.step_at(t, self.t_train)
            fr = self.train_frames([(D + "/trainer.py", R.randrange(200, 260), "train_step", "assert torch.isfinite(loss), f\"loss is {loss.item()} at step {self.step} (rank {self.rank})\"")])
            exc = ["AssertionError: loss is nan at step %d (rank %d)" % (step, r)]
            desc = "AssertionError on a NaN loss"
        elif v == "zerodiv":
            fr = self.train_frames([(D + "/trainer.py", R.randrange(180, 240), "fit", "self.log_metrics(loss)"), (D + "/trainer.py", R.randrange(300, 340), "log_metrics", "tok_per_s = self.tokens_since_log / (now - self.last_log_time)")])
            exc = ["ZeroDivisionError: float division by zero"]
            desc = "ZeroDivisionError in metric logging"
        elif v == "nonetype":
            fr = self.train_frames([(D + "/trainer.py", R.randrange(200, 260), "train_step", "n_tokens = batch['labels'].ne(-100).sum()")])
            exc = ["TypeError: 'NoneType' object is not subscriptable"]
            desc = "TypeError on an empty batch"
        else:
            r = 0
            fr = self.train_frames([(D + "/trainer.py", R.randrange(180, 240), "fit", "self.maybe_save(self.step)"), (D + "/trainer.py", R.randrange(300, 340), "maybe_save", "torch.save(self.state_dict(), tmp_path)"),
                                    (sp + "/torch/serialization.py", 849 if J.prof == "new" else 628, "save", "with _open_zipfile_writer(f) as opened_zipfile:"),
                                    (sp + "/torch/serialization.py", 690 if J.prof == "new" else 501, "__exit__", "self.file_like.write_end_of_file()")])
            exc = ["RuntimeError: [enforce fail at inline_container.cc:%d] . unexpected pos %d vs %d" % (R.choice([595, 603, 778]), R.getrandbits(34), R.getrandbits(34)),
                   "", "During handling of the above exception, another exception occurred:", "",
                   "Traceback (most recent call last):", '  File "%s", line %d, in <module>' % (J.script, R.randrange(600, 700)), "    main()",
                   '  File "%s/trainer.py", line %d, in maybe_save' % (D, R.randrange(300, 340)), "    torch.save(self.state_dict(), tmp_path)",
                   "OSError: [Errno 28] No space left on device"]
            desc = "checkpoint write failed with ENOSPC (No space left on device)"
        h = J.host_of(r)
        lines = self.tb(fr, exc)
        self.plans[r] = Plan(t, "exc", lines=lines)
        self.init(r)
        self.proof_ranks = [r]
        self.set_hang(t)
        self.t_stop = t
        self.notes.append("Uncaught %s on rank %d (%s); everything after it (watchdog timeouts, SIGTERMs, ChildFailedError on other nodes) is collateral." % (desc, r, J.hosts[h]))

    def oom_block(self, h, t, victim_pid, comm, rss_kb, cgroup=None):
        J, R = self.J, self.R
        L = ["%s invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0" % R.choice(["python", "pt_data_worker", "pt_main_thread", "kworker/u256:2"]),
             "CPU: %d PID: %d Comm: %s Tainted: P           OE     5.15.0-%d-generic #%d-Ubuntu" % (R.randrange(0, 223), victim_pid + R.randrange(-3, 40), comm, R.randrange(90, 130), R.randrange(95, 140)),
             "Hardware name: %s" % R.choice(["NVIDIA DGXH100/DGXH100, BIOS 1.1.3 06/19/2023", "Supermicro SYS-821GE-TNHR/X13DEG-OAD, BIOS 2.1 11/10/2023", "Amazon EC2 p4d.24xlarge/, BIOS 1.0 10/16/2017"]),
             "Call Trace:", " <TASK>", " dump_stack_lvl+0x4a/0x63", " dump_header+0x4a/0x1f4", " oom_kill_process.cold+0xb/0x10", " out_of_memory+0x1bd/0x500",
             " %s+0x%x/0x%x" % (R.choice(["__alloc_pages_slowpath.constprop.0", "mem_cgroup_out_of_memory"]), R.randrange(0x100, 0xd00), R.randrange(0xd00, 0xe00)),
             " __alloc_pages+0x30d/0x330", " alloc_pages_vma+0x9d/0x380", " __handle_mm_fault+0x8b7/0xf30", " handle_mm_fault+0xd8/0x2c0", " do_user_addr_fault+0x1c9/0x670",
             " exc_page_fault+0x77/0x170", " asm_exc_page_fault+0x27/0x30", " </TASK>"]
        if cgroup:
            L.append("memory: usage %dkB, limit %dkB, failcnt %d" % (rss_kb + 1000, rss_kb + 1024, R.randrange(1, 900)))
            L.append("oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=%s,mems_allowed=0-1,oom_memcg=%s,task_memcg=%s,task=%s,pid=%d,uid=%d" % (cgroup.split("/")[-1], cgroup, cgroup, comm, victim_pid, R.choice([0, 1000, 1042])))
            L.append("Memory cgroup out of memory: Killed process %d (%s) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:%d pgtables:%dkB oom_score_adj:0" % (
                victim_pid, comm, rss_kb * 2, rss_kb, R.randrange(10 ** 5, 10 ** 6), R.randrange(10 ** 4, 10 ** 6), R.choice([0, 1000]), R.randrange(10 ** 5, 10 ** 6)))
        else:
            L.append("Mem-Info:")
            L.append("active_anon:%d inactive_anon:%d isolated_anon:0" % (R.randrange(10 ** 8, 5 * 10 ** 8), R.randrange(10 ** 6, 10 ** 7)))
            L.append("oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0-1,global_oom,task_memcg=/user.slice/user-1000.slice/session-%d.scope,task=%s,pid=%d,uid=1000" % (R.randrange(1, 99), comm, victim_pid))
            L.append("Out of memory: Killed process %d (%s) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:1000 pgtables:%dkB oom_score_adj:0" % (
                victim_pid, comm, rss_kb * 2, rss_kb, R.randrange(10 ** 5, 10 ** 6), R.randrange(10 ** 4, 10 ** 6), R.randrange(10 ** 5, 10 ** 6)))
        L.append("oom_reaper: reaped process %d (%s), now anon-rss:0kB, file-rss:0kB, shmem-rss:%dkB" % (victim_pid, comm, R.randrange(0, 10 ** 5)))
        return L

    def sc_host_oom_kill(self):
        J, R = self.J, self.R
        self.pick_root()
        r = R.randrange(J.world)
        h = J.host_of(r)
        t = self.t_root
        self.spread = (R.uniform(0.1, 0.5), 15, 100)
        v = R.choice(["worker", "worker", "main"] + (["container"] if J.outer == "k8s" else []))
        cg = None
        if J.outer == "srun" or J.launcher == "srun_direct":
            cg = "/slurm/uid_%d/job_%d/step_0" % (R.choice([1000, 1042, 20311]), J.jobid) if R.random() < 0.6 else None
        elif J.outer == "k8s":
            cg = "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod%s.slice" % ("%08x_%04x" % (R.getrandbits(32), R.getrandbits(16)))
        if R.random() < 0.6:
            for k in range(R.randrange(1, 4)):
                tk = t - R.uniform(120, 2400)
                self.quiet_warn(h * J.gpn + R.randrange(J.gpn), tk, "host memory pressure: rss=%.1f GiB available=%.1f GiB (prefetch queue %d batches)" % (R.uniform(100, 900), R.uniform(1, 40), R.randrange(64, 1024)), "data")
        if v == "worker":
            wpid = J.pids[r] + R.randrange(200, 2000)
            e = self.kern(h, t, self.oom_block(h, t, wpid, "pt_data_worker" if J.prof == "new" and R.random() < 0.5 else "python", R.randrange(3 * 10 ** 7, 2 * 10 ** 8), cg), key=True)
            self.proof(e, rank=False)
            sp = J.sp
            fr = self.train_frames([(os.path.dirname(J.script) + "/trainer.py", R.randrange(120, 180), "fit", "for batch in loader:"),
                                    (sp + "/torch/utils/data/dataloader.py", 630, "__next__", "data = self._next_data()"),
                                    (sp + "/torch/utils/data/dataloader.py", 1327, "_next_data", "idx, data = self._get_data()"),
                                    (sp + "/torch/utils/data/dataloader.py", 1293, "_get_data", "success, data = self._try_get_data()"),
                                    (sp + "/torch/utils/data/dataloader.py", 1131, "_try_get_data", "data = self._data_queue.get(timeout=timeout)"),
                                    ("/usr/lib/python%s/multiprocessing/queues.py" % J.py_v, 113, "get", "if not self._poll(timeout):"),
                                    ("/usr/lib/python%s/multiprocessing/connection.py" % J.py_v, 257, "poll", "return self._poll(timeout)"),
                                    ("/usr/lib/python%s/multiprocessing/connection.py" % J.py_v, 424, "_poll", "r = wait([self], timeout)"),
                                    ("/usr/lib/python%s/multiprocessing/connection.py" % J.py_v, 931, "wait", "ready = selector.select(timeout)"),
                                    ("/usr/lib/python%s/selectors.py" % J.py_v, 416, "select", "fd_event_list = self._selector.poll(timeout)"),
                                    (sp + "/torch/utils/data/_utils/signal_handling.py", 66, "handler", "_error_if_any_worker_fails()")])
            exc1 = self.tb(fr, ["RuntimeError: DataLoader worker (pid %d) is killed by signal: Killed. " % wpid], record=False)
            exc2 = ["", "The above exception was the direct cause of the following exception:", ""] + self.tb(
                self.train_frames([(os.path.dirname(J.script) + "/trainer.py", R.randrange(120, 180), "fit", "for batch in loader:"),
                                   (sp + "/torch/utils/data/dataloader.py", 630, "__next__", "data = self._next_data()"),
                                   (sp + "/torch/utils/data/dataloader.py", 1327, "_next_data", "idx, data = self._get_data()"),
                                   (sp + "/torch/utils/data/dataloader.py", 1293, "_get_data", "success, data = self._try_get_data()"),
                                   (sp + "/torch/utils/data/dataloader.py", 1144, "_try_get_data", "raise RuntimeError(f'DataLoader worker (pid(s) {pids_str}) exited unexpectedly') from e")]),
                ["RuntimeError: DataLoader worker (pid(s) %d) exited unexpectedly" % wpid])
            self.plans[r] = Plan(t + R.uniform(0.2, 3), "exc", lines=exc1 + exc2)
            self.init(r)
            self.proof_ranks = [r]
            self.notes.append("Host OOM killer on %s killed a DataLoader worker (pid %d) of rank %d; the rank raised 'DataLoader worker ... is killed by signal: Killed' (a consequence, not a Python bug)." % (J.hosts[h], wpid, r))
            if cg and cg.startswith("/slurm"):
                self.slurm_oom_note = h
        elif v == "main":
            e = self.kern(h, t, self.oom_block(h, t, J.pids[r], self.pname(), R.randrange(2 * 10 ** 8, 6 * 10 ** 8), cg), key=True)
            self.proof(e, rank=self.pid_visible())
            self.plans[r] = Plan(t + R.uniform(0.01, 0.5), "oomkill")
            self.init(r)
            self.proof_ranks = [r]
            self.notes.append("Host OOM killer on %s killed the training process of rank %d (SIGKILL, exit -9); the rest is cascade." % (J.hosts[h], r))
            if cg and cg.startswith("/slurm"):
                self.slurm_oom_note = h
        else:
            e = self.kern(h, t, self.oom_block(h, t, J.pids[r], self.pname(), R.randrange(2 * 10 ** 8, 6 * 10 ** 8), cg), key=True)
            self.proof(e, rank=False)
            for q in range(h * J.gpn, (h + 1) * J.gpn):
                self.plans[q] = Plan(t + R.uniform(0.01, 0.3), "oomkill")
            self.pre_agent = {h: "oomkilled"}
            self.init(h=h)
            self.k8s_oom = h
            self.notes.append("Container memory limit hit on pod %s: the cgroup OOM killer killed the whole container (OOMKilled, exit 137); other pods then failed with NCCL errors." % J.hosts[h])
        self.set_hang(t)
        self.t_stop = t
        self.kern_hosts = [h]

    def sc_crash_signal(self):
        J, R = self.J, self.R
        self.pick_root()
        r = R.randrange(J.world)
        h = J.host_of(r)
        t = self.t_root
        sp = J.sp
        self.spread = (R.uniform(0.1, 0.6), 15, 100)
        v = R.choice(["segv", "segv", "abort", "bus"])
        D = os.path.dirname(J.script)
        if v == "segv":
            lib = R.choice([("libnccl.so.2", sp + "/nvidia/nccl/lib/libnccl.so.2"), ("_C.cpython-%s-x86_64-linux-gnu.so" % J.py_v.replace(".", ""), sp + "/flash_attn_2_cuda.cpython-%s-x86_64-linux-gnu.so" % J.py_v.replace(".", "")),
                            ("libtorch_cpu.so", sp + "/torch/lib/libtorch_cpu.so"), ("libc.so.6", "/lib/x86_64-linux-gnu/libc.so.6")])
            L = ["Fatal Python error: Segmentation fault", "",
                 "Thread 0x%016x (most recent call first):" % (0x7f0000000000 + R.getrandbits(40)),
                 '  File "%s/torch/utils/data/_utils/pin_memory.py", line 54 in _pin_memory_loop' % sp,
                 '  File "/usr/lib/python%s/threading.py", line 953 in run' % J.py_v,
                 '  File "/usr/lib/python%s/threading.py", line 1016 in _bootstrap_inner' % J.py_v,
                 '  File "/usr/lib/python%s/threading.py", line 973 in _bootstrap' % J.py_v, "",
                 "Current thread 0x%016x (most recent call first):" % (0x7f0000000000 + R.getrandbits(40)),
                 '  File "%s/model/fused_ops.py", line %d in forward' % (D, R.randrange(40, 140)),
                 '  File "%s/torch/autograd/function.py", line 574 in apply' % sp,
                 '  File "%s/model/transformer.py", line %d in forward' % (D, R.randrange(100, 300)),
                 '  File "%s/torch/nn/modules/module.py", line 1562 in _call_impl' % sp,
                 '  File "%s/trainer.py", line %d in train_step' % (D, R.randrange(90, 170)),
                 '  File "%s", line %d in main' % (J.script, R.randrange(500, 600)), "",
                 "Extension modules: numpy.core._multiarray_umath, torch._C, torch._C._fft, torch._C._linalg, torch._C._nn, torch._C._sparse, torch._C._special, flash_attn_2_cuda (total: %d)" % R.randrange(30, 80)]
            self.plans[r] = Plan(t, "sig", sig=11, lines=L)
            ip = R.getrandbits(44) | 0x7f0000000000
            e = self.kern(h, t + 0.01, ["%s[%d]: segfault at %x ip %016x sp %016x error %d in %s[%x+%x]" % (
                self.pname(), J.pids[r], R.choice([0, 8, 0x18, 0x7f3c00000010]), ip, ip - R.getrandbits(30), R.choice([4, 6, 14]), lib[0], ip & ~0xfffff, R.randrange(0x100000, 0x4000000)),
                "Code: %s" % " ".join("%02x" % R.randrange(256) for _ in range(R.randrange(20, 42)))])
            self.notes.append("Rank %d segfaulted (SIGSEGV in %s) in the middle of training with no hardware errors in the logs; later SIGABRT/SIGTERM/SIGSEGV on other ranks are teardown." % (r, lib[0]))
        elif v == "abort":
            msg = R.choice(["double free or corruption (!prev)", "free(): invalid pointer", "corrupted size vs. prev_size", "malloc(): unsorted double linked list corrupted"])
            L = [msg, "Fatal Python error: Aborted", "",
                 "Current thread 0x%016x (most recent call first):" % (0x7f0000000000 + R.getrandbits(40)),
                 '  File "%s/data/tokenize_worker.py", line %d in encode_batch' % (D, R.randrange(40, 140)),
                 '  File "%s/trainer.py", line %d in fit' % (D, R.randrange(120, 180)),
                 '  File "%s", line %d in main' % (J.script, R.randrange(500, 600)), ""]
            self.plans[r] = Plan(t, "sig", sig=6, lines=L)
            self.notes.append("glibc heap corruption ('%s') aborted rank %d (SIGABRT) mid-training; no NCCL timeout preceded it, the watchdog SIGABRTs on other ranks came later." % (msg, r))
        else:
            wpid = J.pids[r] + R.randrange(200, 2000)
            exc = ["RuntimeError: DataLoader worker (pid %d) is killed by signal: Bus error. It is possible that dataloader's workers are out of shared memory. Please try to raise your shared memory limit." % wpid]
            fr = self.train_frames([(D + "/trainer.py", R.randrange(120, 180), "fit", "for batch in loader:"),
                                    (sp + "/torch/utils/data/dataloader.py", 630, "__next__", "data = self._next_data()"),
                                    (sp + "/torch/utils/data/dataloader.py", 1327, "_next_data", "idx, data = self._get_data()"),
                                    (sp + "/torch/utils/data/dataloader.py", 1131, "_try_get_data", "data = self._data_queue.get(timeout=timeout)"),
                                    (sp + "/torch/utils/data/_utils/signal_handling.py", 66, "handler", "_error_if_any_worker_fails()")])
            self.rout(r, t - 0.05, ["ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm)."])
            self.plans[r] = Plan(t, "exc", lines=self.tb(fr, exc))
            self.notes.append("A DataLoader worker of rank %d died with SIGBUS (shared memory /dev/shm exhausted); the rank raised and the job cascaded." % r)
        self.init(r)
        self.proof_ranks = [r]
        self.set_hang(t)
        self.t_stop = t
        self.kern_hosts = [h] if v == "segv" and R.random() < 0.6 else []

    def sc_preemption(self):
        J, R = self.J, self.R
        self.pick_root()
        t = self.t_root
        opts = []
        if J.outer == "srun" or J.launcher in ("srun_direct", "mpirun"):
            opts += ["slurm_preempt", "slurm_timelimit"]
        if J.outer == "k8s":
            opts += ["k8s_preempt", "k8s_preempt"]
        if not (self.layout == "rank0_ops" and J.outer != "k8s"):
            opts += ["spot"]
        v = R.choice(opts)
        self.global_kills = []
        if v in ("slurm_preempt", "slurm_timelimit"):
            why = "PREEMPTION" if v == "slurm_preempt" else "TIME LIMIT"
            if why == "TIME LIMIT":
                tl = R.choice([4, 12, 24, 48]) * 3600
                t = J.t0 + tl + R.uniform(0, 50)
                self.t_root = t
            e = self.sched(0, t, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO %s ***" % (J.jobid, J.hosts[0], f_iso(J.lt(0, t)), why), key=True)
            self.proof(e, rank=False, node=False)
            for h in range(J.n_nodes):
                if R.random() < 0.5 or h == 0:
                    self.sched(h, t + R.uniform(0, 0.4), "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s DUE TO %s ***" % (J.jobid, J.hosts[h], f_iso(J.lt(h, t)), why))
            self.global_kills.append((t + R.uniform(0.05, 0.5), list(range(J.n_nodes)), "slurm"))
            self.t_stop = t
            self.sched_reason = (why, t)
            self.notes.append("Slurm cancelled the job %s; every rank got SIGTERM. Errors after that (NCCL errors between dying ranks, emergency checkpoint failure, teardown crashes) are consequences." % ("due to preemption by a higher-priority job" if why == "PREEMPTION" else "at its time limit"))
            if why == "TIME LIMIT":
                self.train_end_hint = t
        elif v == "k8s_preempt":
            h = R.randrange(1, J.n_nodes) if J.n_nodes > 1 else 0
            self.k8s_events_pre = [(t - 0.5, "Normal", "Preempted", "pod/%s" % J.hosts[h], "Preempted by pod %s on node %s" % ("%08x-%04x-%04x-%04x-%012x" % (R.getrandbits(32), R.getrandbits(16), R.getrandbits(16), R.getrandbits(16), R.getrandbits(48)), J.knodes[h])),
                                   (t, "Normal", "Killing", "pod/%s" % J.hosts[h], "Stopping container pytorch")]
            self.k8s_preempted = h
            self.global_kills.append((t + R.uniform(0.1, 1), [h], "k8s-preempt"))
            self.spread = (R.uniform(0.3, 0.9), 10, 90)
            self.set_hang(t)
            self.t_stop = t
            self.init(h=h)
            self.notes.append("Pod %s was preempted by the scheduler (higher-priority pod); its processes got SIGTERM, the other pods failed with NCCL errors and the PyTorchJob was marked failed." % J.hosts[h])
        else:
            h = R.randrange(J.n_nodes)
            lr0 = h * J.gpn
            d = J.lt(h, t - 118)
            e = self.rout(lr0, t - 118, self.plog(lr0, t - 118, "WARNING", "preemption", "%s received from instance metadata: action=terminate time=%s" % (
                R.choice(["Spot interruption notice", "Preemption notice"]), f_iso(J.lt(h, t)) + "Z")), key=True)
            self.proof(e, rank=False)
            self.global_kills.append((t + R.uniform(0.1, 1), [h], "shutdown"))
            if J.outer == "k8s":
                self.k8s_events_pre = [(t + R.uniform(30, 60), "Normal", "NodeNotReady", "node/%s" % J.knodes[h], "Node %s status is now: NodeNotReady" % J.knodes[h])]
                self.k8s_spot = h
            self.spread = (R.uniform(0.3, 0.9), 10, 90)
            self.set_hang(t)
            self.t_stop = t
            self.init(h=h)
            self.notes.append("Cloud spot/preemptible instance %s received an interruption notice and was shut down; its ranks got SIGTERM and the surviving nodes failed with NCCL errors." % J.hosts[h])

    def sc_hang(self):
        J, R = self.J, self.R
        self.pick_root()
        r = R.randrange(J.world)
        h = J.host_of(r)
        t = self.t_root
        sp = J.sp
        D = os.path.dirname(J.script)
        v = R.choice(["lock", "sync", "ckpt_thread"])
        self.stuck.add(r)
        self.set_hang(t)
        self.t_stop = t
        if v == "lock":
            stack = ["Thread %d (active): \"MainThread\"" % J.pids[r],
                     "    acquire (threading.py:%d)" % R.choice([259, 327]),
                     "    emit (logging/__init__.py:1100)",
                     "    handle (logging/__init__.py:968)",
                     "    log_metrics (%s/trainer.py:%d)" % (D, R.randrange(300, 340)),
                     "    fit (%s/trainer.py:%d)" % (D, R.randrange(180, 240)),
                     "    main (%s:%d)" % (J.script, R.randrange(500, 600)),
                     "    <module> (%s:%d)" % (J.script, R.randrange(600, 700)),
                     "Thread %d (idle): \"Thread-3 (_monitor)\"" % (J.pids[r] + 31), "    wait (threading.py:324)", "    run (%s/metrics/pusher.py:%d)" % (D, R.randrange(40, 90))]
            desc = "a logging-lock deadlock in its metrics thread"
        elif v == "sync":
            stack = ["Thread %d (active+gil): \"MainThread\"" % J.pids[r],
                     "    synchronize (torch/cuda/__init__.py:%d)" % (892 if J.prof == "new" else 801),
                     "    train_step (%s/trainer.py:%d)" % (D, R.randrange(200, 260)),
                     "    fit (%s/trainer.py:%d)" % (D, R.randrange(180, 240)),
                     "    main (%s:%d)" % (J.script, R.randrange(500, 600)),
                     "    <module> (%s:%d)" % (J.script, R.randrange(600, 700))]
            desc = "a custom CUDA kernel that never finished (stuck in torch.cuda.synchronize)"
        else:
            stack = ["Thread %d (idle): \"MainThread\"" % J.pids[r],
                     "    wait (threading.py:%d)" % R.choice([320, 324]),
                     "    result (concurrent/futures/_base.py:%d)" % R.choice([451, 453]),
                     "    wait_for_previous_save (%s/ckpt.py:%d)" % (D, R.randrange(90, 140)),
                     "    maybe_save (%s/trainer.py:%d)" % (D, R.randrange(300, 340)),
                     "    fit (%s/trainer.py:%d)" % (D, R.randrange(180, 240)),
                     "    main (%s:%d)" % (J.script, R.randrange(500, 600)),
                     "Thread %d (idle): \"ThreadPoolExecutor-0_0\"" % (J.pids[r] + 12),
                     "    _worker (concurrent/futures/thread.py:%d)" % R.choice([81, 83]),
                     "    run (threading.py:953)"]
            desc = "a deadlocked async-checkpoint thread"
        hdr = ["Process %d: %s -u %s --config configs/%s.yaml" % (J.pids[r], J.pybin, J.script, J.jobname), "Python v%s.%d (%s)" % (J.py_v, R.randrange(4, 14), J.pybin), ""]
        self.pyspy.setdefault(h, {})[r] = hdr + stack
        self.pyspy_key = (h, r)
        # other ranks on same host: normal wait in collective
        for q in R.sample(range(h * J.gpn, (h + 1) * J.gpn), min(J.gpn, 3)):
            if q == r:
                continue
            self.pyspy[h][q] = ["Process %d: %s -u %s --config configs/%s.yaml" % (J.pids[q], J.pybin, J.script, J.jobname), "Python v%s (%s)" % (J.py_v, J.pybin), "",
                                "Thread %d (idle): \"MainThread\"" % J.pids[q], "    _wait_for_work (torch/distributed/distributed_c10d.py:%d)" % R.randrange(2200, 2600) if False else "    wait (torch/distributed/distributed_c10d.py:%d)" % R.randrange(2200, 2600),
                                "    all_reduce (torch/distributed/distributed_c10d.py:%d)" % R.randrange(2400, 2800), "    train_step (%s/trainer.py:%d)" % (D, R.randrange(200, 260)),
                                "    fit (%s/trainer.py:%d)" % (D, R.randrange(180, 240)), "    main (%s:%d)" % (J.script, R.randrange(500, 600))]
        tl_ = t - R.uniform(1, 40)
        last = self.rout(r, tl_, key=True, lines=self.plog(r, tl_, "INFO", "trainer", R.choice(["flushing metrics buffer (%d records)" % R.randrange(100, 9000), "async checkpoint: waiting for previous save to finish", "entering step %d" % J.step_at(t, self.t_train)])))
        self.dump_signal = r
        self.init(r)
        self.notes.append("Rank %d on %s stopped making progress (%s) without any error; all other ranks waited in collective SeqNum=%d and hit the NCCL watchdog timeout %d s later. The hung rank itself never reports a timeout." % (r, J.hosts[h], desc, self.hang["seq"], J.timeout_s))

    def sc_data_loader_stall(self):
        J, R = self.J, self.R
        self.pick_root()
        h = R.randrange(J.n_nodes)
        t = self.t_root
        sp = J.sp
        v = R.choice(["nfs", "lustre", "stream"])
        self.set_hang(t)
        self.t_stop = t
        D = os.path.dirname(J.script)
        if v in ("nfs", "lustre"):
            if v == "nfs":
                srv = R.choice(["nfs-01", "fs-data-03", "10.20.0.15", "storage02.cluster"])
                e = self.kern(h, t - R.uniform(5, 60), "nfs: server %s not responding, still trying" % srv, key=True)
                for k in range(R.randrange(1, 4)):
                    self.kern(h, t + R.uniform(10, 300), "nfs: server %s not responding, still trying" % srv)
                mod = ["rpc_wait_bit_killable+0x1e/0xa0 [sunrpc]", "__rpc_execute+0x12b/0x450 [sunrpc]", "rpc_execute+0x55/0x110 [sunrpc]", "nfs_execute_read+0x5f/0x80 [nfs]", "nfs_pageio_doio+0x3b/0x60 [nfs]", "nfs_readahead+0x16b/0x320 [nfs]"]
                desc = "NFS server %s stopped responding" % srv
            else:
                ost = "lfs01-OST%04x" % R.randrange(0, 64)
                ip = "10.%d.%d.%d@o2ib" % (R.randrange(250), R.randrange(250), R.randrange(250))
                osc = "ffff%012x" % R.getrandbits(44)
                e = self.kern(h, t - R.uniform(5, 60), ["LustreError: 11-0: %s-osc-%s: operation ost_read to node %s failed: rc = -107" % (ost, osc, ip),
                                                       "Lustre: %s-osc-%s: Connection to %s (at %s) was lost; in progress operations using this service will wait for recovery to complete" % (ost, osc, ost, ip)], key=True)
                mod = ["ptlrpc_set_wait+0x5a9/0x7a0 [ptlrpc]", "ptlrpc_queue_wait+0x83/0x230 [ptlrpc]", "osc_io_read_start+0x1c1/0x3e0 [osc]", "cl_io_start+0x61/0x130 [obdclass]", "ll_file_io_generic+0x2c0/0x8e0 [lustre]"]
                desc = "Lustre OST %s became unreachable" % ost
            self.proof(e, rank=False)
            victim = h * J.gpn + R.randrange(J.gpn)
            wpid = J.pids[victim] + R.randrange(200, 2000)
            tk = t + R.uniform(122, 250)
            self.kern(h, tk, ["INFO: task %s:%d blocked for more than %d seconds." % (R.choice(["pt_data_worker", "python"]), wpid, R.choice([120, 122, 241])),
                              "      Tainted: P           OE     5.15.0-%d-generic #%d-Ubuntu" % (R.randrange(90, 130), R.randrange(95, 140)),
                              "\"echo 0 > /proc/sys/kernel/hung_task_timeout_secs\" disables this message.",
                              "task:%s state:D stack:0     pid:%d ppid:%d flags:0x00000000" % ("pt_data_worker", wpid, J.pids[victim]),
                              "Call Trace:", " <TASK>", " __schedule+0x2cd/0x8a0", " schedule+0x69/0x110", " " + mod[0]] + [" " + m for m in mod[1:]] +
                      [" filemap_get_pages+0xae/0x390", " filemap_read+0xbe/0x3e0", " vfs_read+0xa0/0x190", " ksys_read+0x67/0xf0", " do_syscall_64+0x5c/0xc0", " entry_SYSCALL_64_after_hwframe+0x62/0xcc", " </TASK>"])
            for q in range(h * J.gpn, (h + 1) * J.gpn):
                self.stuck.add(q)
                self.wedged.add(q)
            self.init(h=h)
            self.pyspy.setdefault(h, {})[victim] = ["Process %d: %s -u %s" % (J.pids[victim], J.pybin, J.script), "Python v%s (%s)" % (J.py_v, J.pybin), "",
                                                   "Thread %d (idle): \"MainThread\"" % J.pids[victim],
                                                   "    poll (multiprocessing/connection.py:424)" if R.random() < 0.5 else "    select (selectors.py:416)",
                                                   "    wait (multiprocessing/connection.py:931)", "    get (multiprocessing/queues.py:113)",
                                                   "    _try_get_data (torch/utils/data/dataloader.py:1131)", "    _get_data (torch/utils/data/dataloader.py:1293)",
                                                   "    _next_data (torch/utils/data/dataloader.py:1327)", "    __next__ (torch/utils/data/dataloader.py:630)",
                                                   "    fit (%s/trainer.py:%d)" % (D, R.randrange(120, 180)), "    main (%s:%d)" % (J.script, R.randrange(500, 600))]
            self.pyspy_key = (h, victim)
            self.kern_hosts = [h]
            self.notes.append("%s on %s; every rank on that node blocked inside the DataLoader (D-state readers, hung-task warnings); ranks on other nodes waited in the next collective and hit the watchdog timeout." % (desc, J.hosts[h]))
        else:
            r = h * J.gpn + R.randrange(J.gpn)
            host = R.choice(["s3.us-east-1.amazonaws.com", "storage.googleapis.com", "cdn-lfs-us-1.hf.co", "minio.data.svc.cluster.local"])
            for k in range(R.randrange(2, 6)):
                tk = t - R.uniform(0, 200) + k * 40
                e = self.rout(r, tk, self.plog(r, tk, "WARNING", "data.stream", "read of %s/%s/part-%05d.tar timed out after 60.0s (attempt %d/10), retrying in %ds" % (
                    host, J.jobname, R.randrange(0, 9999), k + 1, 2 ** (k + 1))), key=(k == 0))
                if k == 0:
                    self.proof(e)
            lt = R.choice([600, 900, 1800])
            if lt < J.timeout_s:
                exc = ["RuntimeError: DataLoader timed out after %d seconds" % lt]
                fr = self.train_frames([(D + "/trainer.py", R.randrange(120, 180), "fit", "for batch in loader:"),
                                        (sp + "/torch/utils/data/dataloader.py", 630, "__next__", "data = self._next_data()"),
                                        (sp + "/torch/utils/data/dataloader.py", 1327, "_next_data", "idx, data = self._get_data()"),
                                        (sp + "/torch/utils/data/dataloader.py", 1283, "_get_data", "success, data = self._try_get_data()"),
                                        (sp + "/torch/utils/data/dataloader.py", 1144, "_try_get_data", "raise RuntimeError(f'DataLoader timed out after {timeout} seconds') from e")])
                self.plans[r] = Plan(t + lt, "exc", lines=self.tb(fr, exc))
                tail = "then raised 'DataLoader timed out after %d seconds'" % lt
            else:
                self.stuck.add(r)
                tail = "and stayed blocked in the DataLoader"
            self.init(r)
            self.proof_ranks = [r]
            self.notes.append("Rank %d's streaming dataset stalled on remote reads from %s (retry warnings), %s; other ranks hit NCCL watchdog timeouts waiting for it." % (r, host, tail))

    def sc_collective_mismatch(self):
        J, R = self.J, self.R
        self.pick_root()
        r = R.randrange(1, J.world)
        h = J.host_of(r)
        t = self.t_root
        step = J.step_at(t, self.t_train)
        v = R.choice(["detail", "optype", "numel"])
        if self.layout == "rank0_ops":
            v = "detail"
        reason = R.choice([("data", "batch at step %d has 0 valid tokens after filtering; skipping backward and gradient all-reduce on this rank" % step),
                           ("trainer", "rank %d: grad norm is inf at step %d, skipping optimizer step (local decision)" % (r, step)),
                           ("ckpt", "rank %d: resumed optimizer state from shard with %d param groups (expected %d)" % (r, R.randrange(2, 4), R.randrange(4, 6)))])
        e = self.quiet_warn(r, t - R.uniform(0.1, 5), reason[1], reason[0], key=True)
        self.proof(e)
        self.set_hang(t, op="ALLREDUCE")
        self.t_stop = t
        seq = self.hang["seq"]
        if v == "detail":
            other_op = R.choice(["BROADCAST", "ALLGATHER", "REDUCE_SCATTER", "BARRIER"])
            def fp(op, shape):
                return "CollectiveFingerPrint(SequenceNumber=%d, OpType=%s, TensorShape=[%s], TensorDtypes=Float, TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt)))" % (seq, op, shape)
            base_shape = str(self.hang["numel"])
            oshape = str(R.randrange(1, 4096)) if other_op != "BARRIER" else "1"
            for q in sorted(set([0, r] + R.sample(range(J.world), min(J.world, 3)))):
                a, b = (0, r) if q != r else (r, 0)
                msg = "RuntimeError: Detected mismatch between collectives on ranks. Rank %d is running collective: %s, but Rank %d is running collective: %s.Collectives differ in the following aspects: \t Op type: %svs %s  Tensor Tensor shapes: %svs %s" % (
                    a, fp("ALLREDUCE" if a != r else other_op, base_shape if a != r else oshape), b, fp("ALLREDUCE" if b != r else other_op, base_shape if b != r else oshape),
                    "ALLREDUCE" if a != r else other_op, other_op if a != r else "ALLREDUCE", base_shape if a != r else oshape, oshape if a != r else base_shape)
                fn = {"BROADCAST": ("broadcast", "dist.broadcast(flag, src=0)", "work = group.broadcast([tensor], opts)"),
                      "ALLGATHER": ("all_gather", "dist.all_gather(stats, local_stats)", "work = group.allgather([tensor_list], [tensor])"),
                      "REDUCE_SCATTER": ("reduce_scatter", "dist.reduce_scatter(out, shards)", "work = group.reduce_scatter([output], [input_list], opts)"),
                      "BARRIER": ("barrier", "dist.barrier()", "work = group.barrier(opts=opts)")}[other_op]
                fr = self.train_frames([(os.path.dirname(J.script) + "/trainer.py", R.randrange(200, 260), "train_step", "dist.all_reduce(loss_t, op=dist.ReduceOp.AVG)" if q != r else fn[1]),
                                        (J.sp + "/torch/distributed/c10d_logger.py", 83 if J.prof == "new" else 75, "wrapper", "return func(*args, **kwargs)"),
                                        (J.sp + "/torch/distributed/distributed_c10d.py", R.randrange(2400, 2800), "all_reduce" if q != r else fn[0], "work = group.allreduce([tensor], opts)" if q != r else fn[2])])
                self.plans[q] = Plan(t + R.uniform(0.05, 2), "exc", lines=self.tb(fr, [msg]))
            self.proof_ranks = [0, r]
            self.notes.append("With TORCH_DISTRIBUTED_DEBUG=DETAIL the wrapper caught rank %d issuing %s while everyone else issued ALLREDUCE at SequenceNumber=%d; rank %d had taken a different code path after: '%s'." % (r, other_op, seq, r, reason[1]))
        elif v == "optype":
            op2 = R.choice(["BROADCAST", "_ALLGATHER_BASE", "ALLGATHER", "REDUCE"])
            self.mismatch[r] = (op2, R.randrange(1, 100000))
            self.proof_ranks = [r]
            self.notes.append("Rank %d issued %s as collective SeqNum=%d while all other ranks issued ALLREDUCE; nobody could complete, every rank hit the watchdog. Root: rank %d diverged after '%s'." % (r, op2, seq, r, reason[1]))
        else:
            self.mismatch[r] = ("ALLREDUCE", self.hang["numel"] + R.choice([-1, 1]) * R.randrange(1, 5000) * 8)
            self.proof_ranks = [r]
            self.notes.append("Rank %d called ALLREDUCE SeqNum=%d with a different element count than the others (shape mismatch); the collective never completed and all ranks timed out. Root: rank %d after '%s'." % (r, seq, r, reason[1]))
        self.init(r)

    def sc_straggler(self):
        J, R = self.J, self.R
        self.pick_root()
        h = R.randrange(J.n_nodes)
        g = R.randrange(J.gpn)
        r = h * J.gpn + g
        t = self.t_root - R.uniform(0, 0.5) * (self.t_root - self.t_train)
        factor = R.uniform(1.6, 3.2)
        v = R.choice(["gpu_thermal", "cpu_throttle", "pcie"])
        report = (J.framework == "custom" and R.random() < 0.8) or R.random() < 0.25
        if v == "pcie":
            t = self.t_train
            report = True
        self.slow = {"t_from": t, "factor": factor, "rank": r, "report": report}
        if v == "gpu_thermal":
            self.extras.append((h, "nvidia-smi-q-gpu%d.txt" % g, self.smi_q(h, g, throttle=True, temp=R.randrange(88, 94)), True))
            self.extras.append((h, "nvidia-smi.txt", self.smi_table(h, hot=g), False))
            self.extra_proof = [(h, "nvidia-smi-q-gpu%d.txt" % g, True)]
            self.init(r)
            desc = "GPU %d on %s thermally throttled (HW Slowdown active)" % (g, J.hosts[h])
            self.kern_hosts = []
        elif v == "cpu_throttle":
            for k in range(R.randrange(3, 8)):
                tk = t + (R.uniform(0, 3000) if k else R.uniform(0, 30))
                ek = self.kern(h, tk, ["CPU%d: Core temperature above threshold, cpu clock throttled (total events = %d)" % (R.randrange(0, 112), R.randrange(1000, 90000)),
                                       "CPU%d: Package temperature above threshold, cpu clock throttled (total events = %d)" % (R.randrange(0, 112), R.randrange(1000, 90000))], key=(k == 0))
                self.proof(ek, rank=False)
            self.init(h=h)
            if report:
                self.init_rank = r
            desc = "CPU package on %s thermally throttled" % J.hosts[h]
            self.kern_hosts = [h]
        else:
            bus = J.pci[g]
            e = self.kern(h, J.t0 - R.uniform(3600, 86400), "pci 0000:%s:00.0: %.3f Gb/s available PCIe bandwidth, limited by %s PCIe x%d link at 0000:%s:00.0 (capable of 504.112 Gb/s with 32.0 GT/s PCIe x16 link)" % (
                bus, R.choice([31.504, 15.752, 63.008]), R.choice(["2.5 GT/s", "8.0 GT/s"]), R.choice([4, 8]), "%02x" % (int(bus, 16) - 1)), key=True)
            self.proof(e, rank=J.nccl_debug == "INFO")
            self.init(r)
            desc = "GPU %d on %s trained its PCIe link at reduced width/speed" % (g, J.hosts[h])
            self.kern_hosts = [h]
        if not report and v != "cpu_throttle":
            pass
        # how it ended
        ends = []
        if J.outer == "srun" or J.launcher in ("srun_direct", "mpirun"):
            ends += ["timelimit", "scancel"]
        if J.outer == "k8s":
            ends += ["k8s_delete"]
        ends += ["user"]
        how = R.choice(ends)
        tend = self.t_root + R.uniform(600, 7200)
        self.global_kills = [(tend + 0.3, list(range(J.n_nodes)), "user")]
        if how == "timelimit":
            self.sched(0, tend, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO TIME LIMIT ***" % (J.jobid, J.hosts[0], f_iso(J.lt(0, tend))))
            endtxt = "the job then ran into its Slurm time limit"
        elif how == "scancel":
            self.sched(0, tend, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s ***" % (J.jobid, J.hosts[0], f_iso(J.lt(0, tend))))
            endtxt = "the user cancelled the job (scancel)"
        elif how == "k8s_delete":
            self.k8s_events_pre = [(tend, "Normal", "Killing", "pod/%s" % J.hosts[x], "Stopping container pytorch") for x in range(min(J.n_nodes, 4))]
            endtxt = "the user deleted the PyTorchJob"
        else:
            if J.launcher == "torchrun":
                pass
            endtxt = "the operator killed the job"
        self.t_stop = tend
        self.notes.append("%s from ~%s; step time was %.1fx slower for the whole job (everyone waits for the slow rank at each all-reduce); %s. No rank crashed." % (desc, f_iso(J.lt(0, t)), factor, endtxt))

    def smi_table(self, h, hot=None, idle=False, t=None):
        J, R = self.J, self.R
        d = J.lt(h, t if t is not None else getattr(self, "t_root", J.t0) + 60)
        bad = getattr(self, "bad_gpu", {}).get(h)
        L = [d.strftime("%a %b %d %H:%M:%S %Y"),
             "+---------------------------------------------------------------------------------------+",
             "| NVIDIA-SMI %s              Driver Version: %s   CUDA Version: %s     |" % (J.driver, J.driver, J.cuda_v),
             "|-----------------------------------------+----------------------+----------------------+",
             "| GPU  Name                 Persistence-M | Bus-Id        Disp.A | Volatile Uncorr. ECC |",
             "| Fan  Temp   Perf          Pwr:Usage/Cap |         Memory-Usage | GPU-Util  Compute M. |",
             "|=========================================+======================+======================|"]
        for g in range(J.gpn):
            if bad is not None and bad[0] == g:
                if bad[1] == "ERR":
                    L.append("| %3d  %-24s On  | 00000000:%s:00.0 Off |                 ERR! |" % (g, J.gpu_name[:24], J.pci[g].upper()))
                    L.append("|ERR!  ERR!   ERR!            ERR! / ERR! |      0MiB / 81559MiB |    ERR!      Default |")
                    L.append("|                                         |                      |                 ERR! |")
                    L.append("+-----------------------------------------+----------------------+----------------------+")
                    continue
            temp = R.randrange(88, 93) if g == hot else (R.randrange(29, 38) if idle else R.randrange(38, 66))
            util = 0 if idle else R.randrange(95, 101)
            pw = R.randrange(280, 420) if g == hot else (R.randrange(68, 120) if idle else R.randrange(540, 700))
            ecc = "0"
            if bad is not None and bad[0] == g and bad[1] == "ECC":
                ecc = str(bad[2])
            L.append("| %3d  %-24s On  | 00000000:%s:00.0 Off |%21s |" % (g, J.gpu_name[:24], J.pci[g].upper(), ecc))
            L.append("| N/A   %2dC    P0          %3dW / 700W |  %5dMiB / 81559MiB |    %3d%%      Default |" % (temp, pw, 4 if idle else R.randrange(50000, 78000), util))
            L.append("|                                         |                      |             Disabled |")
            L.append("+-----------------------------------------+----------------------+----------------------+")
        return "\n".join(L) + "\n"

    def sc_unknown(self):
        J, R = self.J, self.R
        self.pick_root()
        t = self.t_root
        opts = ["silent"]
        if J.outer == "srun" or J.launcher == "srun_direct":
            opts.append("nodefail")
        v = R.choice(opts)
        self.spread = (R.uniform(0.1, 0.6), 15, 100)
        self.set_hang(t)
        self.t_stop = t
        if v == "silent":
            r = R.randrange(J.world)
            self.plans[r] = Plan(t, "silent", code=1)
            self.unknown_rank = r
            self.notes.append("Rank %d on %s exited with code 1 without printing anything (no traceback, no kernel messages); the rest is cascade. Cause not recoverable from these logs." % (r, J.hosts[J.host_of(r)]))
        else:
            h = R.randrange(1, J.n_nodes) if J.n_nodes > 1 else 0
            self.nodefail = (h, t + R.uniform(30, 200))
            for q in range(h * J.gpn, (h + 1) * J.gpn):
                self.plans[q] = Plan(t + R.uniform(0, 0.2), "silent", code=-9)
            self.pre_agent = {h: "gone"}
            self.init(h=h)
            self.notes.append("Node %s stopped responding (Slurm: node failure); nothing on it logged why. Remaining nodes failed with NCCL errors/timeouts." % J.hosts[h])

    def sc_healthy(self):
        J, R = self.J, self.R
        dur = R.choice([1800, 3600, 4 * 3600, 10 * 3600]) * R.uniform(0.6, 1.0)
        self.t_stop = self.t_train + dur
        self.healthy_end = self.t_stop + R.uniform(20, 200)
        self.notes.append("Run completed normally; warnings/noise only.")

    # ------------------------------------------------------------------
    # decoys: harmless, scary-looking, independent of the failure
    # ------------------------------------------------------------------
    def decoys(self):
        J, R = self.J, self.R
        pool = ["userwarn", "socket_connect", "caught_oom", "logged_tb", "wandb", "grad_overflow",
                "nic_flap_startup", "hung_task", "syn_flood", "ecc_corrected", "dl_workers", "destroy_warn"]
        if self.cause in ("hang", "data_loader_stall"):
            pool.remove("hung_task")
        if self.cause in ("ecc_memory",):
            pool.remove("ecc_corrected")
        if self.healthy:
            n = R.choice([1, 2, 3, 4])
        else:
            n = R.choice([0, 1, 1, 2, 3])
        chosen = R.sample(pool, n)
        if not self.healthy and R.random() < 0.4:
            scary = [x for x in ["caught_oom", "logged_tb", "nic_flap_startup", "hung_task", "syn_flood"] if x in pool and x not in chosen]
            if scary:
                chosen.append(R.choice(scary))
        self.decoy_kern_hosts = []
        init_h = self.init_node
        others = [h for h in range(J.n_nodes) if h != init_h] or [0]
        t_lo, t_hi = self.t_train + 60, max(self.t_train + 120, (self.t_stop or self.t_train + 3600) - 300)
        for d in chosen:
            if d == "userwarn":
                tgt = range(J.world) if (J.world <= 64 and self.compact == 0) else [h * J.gpn for h in range(J.n_nodes)]
                for r in tgt:
                    t = self.t_init + R.uniform(1, 8)
                    if J.prof == "new":
                        L = ["%s/trainer.py:%d: FutureWarning: `torch.cuda.amp.GradScaler(args...)` is deprecated. Please use `torch.amp.GradScaler('cuda', args...)` instead." % (os.path.dirname(J.script), R.randrange(60, 99)),
                             "  self.scaler = torch.cuda.amp.GradScaler(enabled=self.fp16)"]
                    else:
                        L = ["%s/torch/_utils.py:776: UserWarning: TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the only storage class. This should only matter to you if you are using storages directly.  To access UntypedStorage directly, use tensor.untyped_storage() instead of tensor.storage()" % J.sp,
                             "  return self.fget.__get__(instance, owner)()"]
                    self.rout(r, t, L)
                self.decoy_notes.append("deprecation warnings on every rank")
            elif d == "socket_connect" and J.launcher == "torchrun" and J.n_nodes > 1:
                for h in range(1, J.n_nodes):
                    if R.random() < 0.5:
                        continue
                    for k in range(R.randrange(1, 4)):
                        t = J.t0 + R.uniform(1, 9) + k * 10
                        if J.prof == "new":
                            d0 = J.lt(h, t)
                            line = "[W%s.%06d%03d socket.cpp:752] [c10d] The client socket has failed to connect to [%s]:%d (errno: 111 - Connection refused)." % (d0.strftime("%m%d %H:%M:%S"), d0.microsecond, R.randrange(1000), J.hosts[0], J.port)
                        else:
                            line = "[W socket.cpp:601] [c10d] The client socket has failed to connect to [%s]:%d (errno: 99 - Cannot assign requested address)." % (J.hosts[0], J.port)
                        self.agent(h, t, line)
                self.decoy_notes.append("c10d client socket connect retries during rendezvous")
            elif d == "caught_oom":
                cand = [q for q in range(J.world) if q != self.init_rank]
                rd = R.choice(cand)
                t = R.uniform(t_lo, t_hi)
                g = J.lr(rd)
                self.rout(rd, t, [self.plog(rd, t, "WARNING", "trainer", "OOM in forward on rank %d at step %d (seq_len %d): CUDA out of memory. Tried to allocate %.2f GiB. GPU %d has a total capacity of %.2f GiB of which %.2f GiB is free. -- skipping batch and emptying CUDA cache" % (
                    rd, J.step_at(t, self.t_train), R.choice([16384, 32768]), R.uniform(1, 4), g, J.gpu_gib, R.uniform(0.1, 0.9))),
                    self.plog(rd, t + 2, "INFO", "trainer", "recovered from OOM, continuing (skipped batches so far: 1)")])
                self.decoy_notes.append("a caught-and-recovered CUDA OOM on rank %d" % rd)
            elif d == "logged_tb":
                t = R.uniform(t_lo, t_hi)
                key = "s3://%s-ckpt/%s/step_%08d/model_%02d.safetensors" % (J.user, J.jobname, J.step_at(t, self.t_train), R.randrange(8))
                L = [self.plog(0, t, "ERROR", "ckpt.upload", "upload of %s failed (attempt 1/5), retrying in 30s" % key)]
                L += ["Traceback (most recent call last):",
                      '  File "%s/urllib3/connectionpool.py", line 537, in _make_request' % J.sp, "    response = conn.getresponse()",
                      '  File "%s/urllib3/connection.py", line 466, in getresponse' % J.sp, "    httplib_response = super().getresponse()",
                      "TimeoutError: The read operation timed out", "",
                      "During handling of the above exception, another exception occurred:", "",
                      "Traceback (most recent call last):",
                      '  File "%s/ckpt_upload.py", line %d, in _upload' % (os.path.dirname(J.script), R.randrange(30, 80)), "    self.s3.upload_file(local, bucket, key)",
                      '  File "%s/botocore/httpsession.py", line 499, in send' % J.sp, "    raise ReadTimeoutError(endpoint_url=request.url, error=e)",
                      'botocore.exceptions.ReadTimeoutError: Read timeout on endpoint URL: "https://%s-ckpt.s3.amazonaws.com/%s"' % (J.user, key.split("/", 3)[3])]
                self.rout(0, t, L)
                self.rout(0, t + R.uniform(31, 90), self.plog(0, t + 60, "INFO", "ckpt.upload", "upload of %s succeeded on attempt 2" % key))
                self.decoy_notes.append("a logged (and retried) S3 upload traceback on rank 0")
            elif d == "wandb":
                t = R.uniform(t_lo, t_hi)
                self.rout(0, t, "wandb: Network error (ReadTimeout), entering retry loop.")
                self.rout(0, t + R.uniform(30, 300), "wandb: Network error resolved after 0:%02d:%02d.%06d, resuming normal operation." % (R.randrange(0, 5), R.randrange(60), R.randrange(10 ** 6)))
                self.decoy_notes.append("transient wandb network errors")
            elif d == "grad_overflow":
                for k in range(R.randrange(1, 4)):
                    t = R.uniform(t_lo, t_hi)
                    self.rout(0, t, "Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to %.1f" % (2.0 ** R.randrange(10, 17)), fd="o")
                self.decoy_notes.append("fp16 gradient overflow messages")
            elif d == "nic_flap_startup" and J.n_nodes > 1:
                hd = R.choice(others)
                nic = R.randrange(min(8, J.gpn))
                t = J.t0 + R.uniform(2, 15)
                self.kern(hd, t, self.link_lines(hd, nic, False))
                self.kern(hd, t + R.uniform(2, 9), self.link_lines(hd, nic, True))
                self.decoy_kern_hosts.append(hd)
                self.decoy_notes.append("a NIC link flap on %s before NCCL was initialized (recovered)" % J.hosts[hd])
            elif d == "hung_task":
                hd = R.choice(others)
                t = R.uniform(t_lo, t_hi)
                self.kern(hd, t, ["INFO: task jbd2/nvme0n1p2-8:%d blocked for more than 120 seconds." % R.randrange(600, 1200),
                                  "      Tainted: P           OE     5.15.0-%d-generic #%d-Ubuntu" % (R.randrange(90, 130), R.randrange(95, 140)),
                                  "\"echo 0 > /proc/sys/kernel/hung_task_timeout_secs\" disables this message."])
                self.decoy_kern_hosts.append(hd)
                self.decoy_notes.append("a transient jbd2 hung-task warning on %s during a checkpoint write (training continued)" % J.hosts[hd])
            elif d == "syn_flood" and J.n_nodes >= 8:
                self.kern(0, J.t0 + R.uniform(3, 20), "TCP: request_sock_TCP: Possible SYN flooding on port %d. Sending cookies.  Check SNMP counters." % J.port)
                self.decoy_kern_hosts.append(0)
                self.decoy_notes.append("SYN-flood warning on the rendezvous port at startup")
            elif d == "ecc_corrected":
                hd = R.choice(others)
                g = R.randrange(J.gpn)
                self.extras.append((hd, "nvidia-smi-q-gpu%d.txt" % g, self.smi_q(hd, g, corr=R.randrange(2, 14)), False))
                self.decoy_notes.append("correctable (not uncorrectable) ECC counts on %s GPU %d" % (J.hosts[hd], g))
            elif d == "dl_workers":
                t = self.t_init + R.uniform(10, 40)
                self.rout(0, t, ["%s/torch/utils/data/dataloader.py:557: UserWarning: This DataLoader will create 16 worker processes in total. Our suggested max number of worker in current system is 12, which is smaller than what this DataLoader is going to create. Please be aware that excessive worker creation might get DataLoader running slow or even freeze, lower the worker number to avoid potential slowness/freeze if necessary." % J.sp,
                                 "  warnings.warn(_create_warning_msg("])
                self.decoy_notes.append("DataLoader worker-count warning")
            elif d == "destroy_warn" and J.prof == "new" and self.healthy:
                self.destroy_warn = True
                self.decoy_notes.append("'process group has NOT been destroyed' warnings at exit")

    def healthy_finish(self):
        J, R = self.J, self.R
        t = self.t_stop + R.uniform(1, 30)
        step = getattr(self, "last_step", J.step0)
        self.ckpt_lines(t, step)
        t2 = t + R.uniform(20, 90)
        self.rout(0, t2, self.plog(0, t2, "INFO", "trainer", "training complete: %d steps, %s wall clock" % (step - J.step0, self.hms(t2 - self.t_train))))
        self.healthy_end = max(self.healthy_end, t2 + R.uniform(2, 20))
        if getattr(self, "destroy_warn", False) or (J.prof == "new" and J.torch_v >= "2.4" and R.random() < 0.5):
            tgt = range(J.world) if J.world <= 32 else [0]
            for r in tgt:
                te = self.healthy_end + R.uniform(0, 0.2)
                self.rout(r, te, self.cpp(r, te, "W", "ProcessGroupNCCL.cpp:1250", "Warning: WARNING: process group has NOT been destroyed before we destruct ProcessGroupNCCL. On normal program exit, the application should call destroy_process_group to ensure that any pending NCCL operations have finished in this process. In rare cases this process can exit before this point and block the progress of another member of the process group. This constraint has always been present,  but this warning has only been added since PyTorch 2.4 (function operator())"))

    # ------------------------------------------------------------------
    def build(self):
        self.startup()
        if self.healthy:
            self.sc_healthy()
        else:
            getattr(self, "sc_" + self.cause)()
        self.progress()
        if self.healthy:
            self.healthy_finish()
        self.decoys()
        self.resolve()
        self.kernel_noise(self.job_end + 1800)
        # launcher-level proofs for the initiator
        J = self.J
        if self.unknown_rank is not None:
            r = self.unknown_rank
            h = J.host_of(r)
            A = self.agent_st[h]
            if (A["fails"] and A["fails"][0][0] == r) or (A.get("first") and A["first"][0] == r):
                self.init_rank, self.init_node = r, h
                self.rank_proof += [e.id for e in self.agent_ev.get(h, [])]
            elif J.launcher in ("srun_direct", "mpirun") and self.first_bad and self.first_bad[0] == r:
                self.init_rank, self.init_node = r, h
                self.launcher_proof = True
        if self.init_rank is not None and J.launcher in ("torchrun", "deepspeed"):
            h = J.host_of(self.init_rank)
            A = self.agent_st[h]
            fails = A.get("fails") or []
            if (fails and fails[0][0] == self.init_rank) or (A.get("first") and A["first"][0] == self.init_rank):
                self.rank_proof += [e.id for e in self.agent_ev.get(h, [])]
        for r in self.proof_ranks:
            self.rank_proof += self.death_ev.get(r, [])
            self.node_proof += self.death_ev.get(r, [])
        if not self.healthy and self.first_bad:
            r, t, c = self.first_bad
            p = self.final[r][2]
            if r == self.init_rank:
                self.notes.append("First process to exit was the initiator itself (rank %d, exit %d)." % (r, c))
            elif self.init_rank is None and self.init_node == J.host_of(r):
                self.notes.append("First process to exit: rank %d on the failing node %s (exit %d)." % (r, J.hosts[J.host_of(r)], c))
            else:
                self.notes.append("First process to exit: rank %d on %s (exit %d, %s) - collateral, not the root cause." % (
                    r, J.hosts[J.host_of(r)], c, {"timeout": "NCCL watchdog timeout", "remote": "NCCL remote/network error", "killed": "killed by the launcher/scheduler", "exc": "raised an exception", "sig": "signal", "silent": "no output"}.get(p.kind, p.kind)))

    # ------------------------------------------------------------------
    # rendering
    # ------------------------------------------------------------------
    def kfmt(self, h, t, msg, style):
        J = self.J
        up = t - J.boot[h]
        d = J.lt(h, t)
        if style == "raw":
            return "[%5d.%06d] %s" % (int(up), int((up % 1) * 1e6), msg)
        if style == "T":
            return "[%s%2d %s] %s" % (d.strftime("%a %b "), d.day, d.strftime("%H:%M:%S %Y"), msg)
        if style == "journal":
            return "%s %s kernel: %s" % (d.strftime("%b %d %H:%M:%S"), J.knodes[h].split(".")[0], msg)
        return "%s%2d %s %s kernel: [%5d.%06d] %s" % (d.strftime("%b "), d.day, d.strftime("%H:%M:%S"), J.knodes[h].split(".")[0], int(up), int((up % 1) * 1e6), msg)

    def kern_buf(self, h, style, tail=None):
        fb = FileBuf()
        evs = sorted([e for e in self.evs if e.st == "kern" and e.h == h], key=lambda e: (e.t, e.id))
        for e in evs:
            fb.add(e.t, e.id, [self.kfmt(h, e.t, m, style) for m in e.lines], key=e.key)
        if tail:
            fb.head_keep(tail)
        return fb

    def kern_hosts_all(self):
        R2 = random.Random("k|%s|%d" % (self.seed, self.idx))
        hs = []
        for h in list(self.kern_hosts) + list(self.decoy_kern_hosts):
            if h not in hs:
                hs.append(h)
        for h in [e.h for e in self.evs if e.st == "kern" and e.key]:
            if h not in hs:
                hs.append(h)
        for _ in range(R2.choice([0, 1, 1, 2])):
            h = R2.randrange(self.J.n_nodes)
            if h not in hs:
                hs.append(h)
        return hs

    def rank_events(self, pred=lambda e: True):
        return sorted([e for e in self.evs if e.st == "rank" and pred(e)], key=lambda e: (e.t, e.id))

    def r_slurm_srun(self):
        J, R = self.J, self.R
        files, ids = {}, set()
        fb = FileBuf()
        w = len(str(J.world - 1))
        d0 = J.lt(0, J.t0)
        hl = hostlist(J.hosts)
        fb.header(["Job %d started at %s" % (J.jobid, d0.strftime("%a %b %d %H:%M:%S UTC %Y")),
                   "SLURM_JOB_NODELIST=%s SLURM_NNODES=%d SLURM_NTASKS=%d" % (hl, J.n_nodes, J.world),
                   "MASTER_ADDR=%s MASTER_PORT=%d" % (J.hosts[0], J.port),
                   "+ srun --kill-on-bad-exit=%d --cpu-bind=none --label python -u %s --config configs/%s.yaml" % (1 if J.kill_on_bad_exit else 0, J.script, J.jobname)])
        for e in self.evs:
            if e.st == "rank":
                fb.add(e.t + 0.02, e.id, e.lines, prefix="%*d: " % (w, e.r), key=e.key)
            elif e.st == "sched":
                fb.add(e.t, e.id, e.lines, key=e.key)
        for t, line in self.srun_msgs:
            fb.add(t, None, [line])
        if getattr(self, "slurm_oom_note", None) is not None:
            h = self.slurm_oom_note
            fb.add(self.job_end, None, ["slurmstepd: error: Detected 1 oom_kill event in StepId=%d.0. Some of the step tasks have been OOM Killed." % J.jobid])
        if R.random() < 0.2:
            fb.tail_cut(R)
        files["slurm-%d.out" % J.jobid] = fb
        for h in self.kern_hosts_all():
            files["dmesg-%s.txt" % J.hosts[h]] = self.kern_buf(h, "T", tail=R.choice([None, 200, 400]))
        if R.random() < 0.5:
            files["sacct.txt"] = self.sacct()
        return files

    def sacct(self):
        J = self.J
        st = "FAILED"
        if self.healthy:
            st = "COMPLETED"
        elif self.sched_reason and self.sched_reason[0] == "PREEMPTION":
            st = "PREEMPTED"
        elif self.sched_reason and self.sched_reason[0] == "TIME LIMIT":
            st = "TIMEOUT"
        elif self.nodefail:
            st = "NODE_FAIL"
        elif getattr(self, "slurm_oom_note", None) is not None and False:
            st = "OUT_OF_MEMORY"
        el = int(self.job_end - J.t0)
        elapsed = "%02d:%02d:%02d" % (el // 3600, el // 60 % 60, el % 60) if el < 86400 else "%d-%02d:%02d:%02d" % (el // 86400, el // 3600 % 24, el // 60 % 60, el % 60)
        ec = "0:0" if self.healthy else ("0:15" if st in ("PREEMPTED", "TIMEOUT") else "1:0")
        L = ["       JobID    JobName  Partition      State    Elapsed   NNodes ExitCode ",
             "------------ ---------- ---------- ---------- ---------- -------- -------- ",
             "%12s %10s %10s %10s %10s %8d %8s " % (J.jobid, J.jobname[:10], "gpu", st, elapsed, J.n_nodes, ec),
             "%12s %10s %10s %10s %10s %8d %8s " % ("%d.batch" % J.jobid, "batch", "", st if st != "PREEMPTED" else "CANCELLED", elapsed, 1, ec),
             "%12s %10s %10s %10s %10s %8d %8s " % ("%d.0" % J.jobid, "python" if J.launcher == "srun_direct" else "torchrun", "", "COMPLETED" if self.healthy else ("CANCELLED" if not self.healthy else st), elapsed, J.n_nodes, "0:0" if self.healthy else "0:15")]
        fb = FileBuf()
        fb.header(L)
        return fb

    def r_slurm_torchrun(self):
        J, R = self.J, self.R
        files = {}
        out, err = FileBuf(), FileBuf()
        label = R.random() < 0.4
        def pre(e):
            p = "%d: " % e.h if label else ""
            if e.st == "rank" and J.tee:
                p += "[default%d]:" % J.lr(e.r)
            return p
        err.header(["+ srun --nodes=%d --ntasks-per-node=1 %s torchrun --nnodes=%d --nproc_per_node=%d --rdzv_backend=c10d --rdzv_endpoint=%s:%d %s%s" % (
            J.n_nodes, "--label" if label else "", J.n_nodes, J.gpn, J.hosts[0], J.port, "--tee 3 " if J.tee else "", J.script)])
        for e in self.evs:
            if e.st == "rank":
                (out if e.fd == "o" else err).add(e.t + 0.02, e.id, e.lines, prefix=pre(e), key=e.key)
            elif e.st == "agent":
                err.add(e.t, e.id, e.lines, prefix=pre(e), key=e.key)
            elif e.st == "sched":
                err.add(e.t, e.id, e.lines, key=e.key)
        for t, line in self.srun_msgs:
            err.add(t, None, [line])
        if getattr(self, "slurm_oom_note", None) is not None:
            err.add(self.job_end, None, ["slurmstepd: error: Detected 1 oom_kill event in StepId=%d.0. Some of the step tasks have been OOM Killed." % J.jobid])
        if R.random() < 0.15:
            out.tail_cut(R)
        base = "%s-%d" % (J.jobname, J.jobid)
        files[base + ".out"] = out
        files[base + ".err"] = err
        for h in self.kern_hosts_all():
            files["journal-%s.txt" % J.hosts[h]] = self.kern_buf(h, "journal", tail=R.choice([None, 300]))
        return files

    def r_k8s_pytorchjob(self):
        J, R = self.J, self.R
        files = {}
        pods = list(range(J.n_nodes))
        if self.compact >= 1 and J.n_nodes > 16:
            want = [0]
            for h in [self.init_node] + [e.h for e in self.evs if e.key] + [x[1] for x in [getattr(self, "k8s_failed", None)] if x]:
                if h is not None and h not in want:
                    want.append(h)
            rest = [h for h in pods if h not in want]
            want += R.sample(rest, min(len(rest), 10 - 2 * self.compact))
            pods = sorted(want)
            files["pods-collected.txt"] = textbuf("kubectl logs collected for %d of %d pods (log size limit):\n%s\n" % (len(pods), J.n_nodes, "\n".join(J.hosts[h] for h in pods)))
        for h in pods:
            fb = FileBuf()
            for e in self.evs:
                if e.h != h or e.st not in ("rank", "agent"):
                    continue
                p = "[default%d]:" % J.lr(e.r) if (e.st == "rank" and J.tee) else ""
                fb.add(e.t, e.id, e.lines, prefix=p, key=e.key)
            files["pods/%s.log" % J.hosts[h]] = fb
        # events
        ev = []
        for h in range(J.n_nodes):
            if h < 6 or h == self.init_node:
                t = J.t0 - R.uniform(20, 60)
                ev.append((t, "Normal", "Scheduled", "pod/%s" % J.hosts[h], "Successfully assigned default/%s to %s" % (J.hosts[h], J.knodes[h])))
                ev.append((t + 2, "Normal", "Pulled", "pod/%s" % J.hosts[h], 'Container image "%s" already present on machine' % J.image))
                ev.append((t + 3, "Normal", "Created", "pod/%s" % J.hosts[h], "Created container pytorch"))
                ev.append((t + 4, "Normal", "Started", "pod/%s" % J.hosts[h], "Started container pytorch"))
        ev += self.k8s_events
        if getattr(self, "k8s_oom", None) is not None:
            h = self.k8s_oom
            oe = [e for e in self.evs if e.st == "kern" and e.key and e.h == h]
            if oe:
                msg = [l for l in oe[0].lines if "Killed process" in l][0]
                ev.append((oe[0].t + 1, "Warning", "OOMKilling", "node/%s" % J.knodes[h], msg))
        if getattr(self, "k8s_failed", None):
            te, h = self.k8s_failed
            ev.append((te + 0.5, "Warning", "PyTorchJobFailed", "pytorchjob/%s" % J.jobname, "PyTorchJob default/%s is failed because 1 %s replica(s) failed." % (J.jobname, "Master" if h == 0 else "Worker")))
        elif self.healthy:
            ev.append((self.job_end + 1, "Normal", "PyTorchJobSucceeded", "pytorchjob/%s" % J.jobname, "PyTorchJob default/%s successfully completed." % J.jobname))
        ev.sort(key=lambda x: x[0])
        now = self.job_end + R.uniform(300, 7200)
        fb = FileBuf()
        rows = [("LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE")]
        for t, ty, rs, ob, ms in ev:
            rows.append((agefmt(now - t), ty, rs, ob, ms))
        wds = [max(len(x[i]) for x in rows) for i in range(4)]
        fb.header(["   ".join(x[i].ljust(wds[i]) for i in range(4)) + "   " + x[4] for x in rows])
        files["events.txt"] = fb
        desc_hosts = []
        if getattr(self, "k8s_failed", None):
            desc_hosts.append(self.k8s_failed[1])
        if self.init_node is not None and self.init_node not in desc_hosts:
            desc_hosts.append(self.init_node)
        if not desc_hosts:
            desc_hosts = [0]
        for h in desc_hosts:
            files["describe-%s.txt" % J.hosts[h]] = self.describe(h)
        for h in self.kern_hosts_all():
            files["node-logs/%s-kmsg.txt" % J.knodes[h]] = self.kern_buf(h, "journal", tail=300)
        for (h, name, text, key) in self.extras:
            files["node-logs/%s-%s" % (J.knodes[h], name)] = textbuf(text)
        return files

    def describe(self, h):
        J, R = self.J, self.R
        te, code, reason = self.pod_exit.get(h, (self.job_end, 1, "Error"))
        st = utc(J.t0 - 5)
        fin = utc(te)
        status = "Succeeded" if code == 0 else "Failed"
        L = ["Name:             %s" % J.hosts[h], "Namespace:        default", "Priority:         %d" % R.choice([0, 100]),
             "Service Account:  default", "Node:             %s/%s" % (J.knodes[h], J.ips[h]),
             "Start Time:       %s" % st.strftime("%a, %d %b %Y %H:%M:%S +0000"),
             "Labels:           training.kubeflow.org/job-name=%s" % J.jobname,
             "                  training.kubeflow.org/replica-index=%d" % (0 if h == 0 else h - 1),
             "                  training.kubeflow.org/replica-type=%s" % ("master" if h == 0 else "worker"),
             "Status:           %s" % status] + (["Reason:           Terminated", "Message:          Pod was terminated in response to imminent node shutdown."] if getattr(self, "k8s_spot", None) == h else []) + ["IP:               %s" % J.ips[h],
             "Controlled By:    PyTorchJob/%s" % J.jobname, "Containers:", "  pytorch:",
             "    Container ID:  containerd://%064x" % R.getrandbits(256),
             "    Image:         %s" % J.image,
             "    Command:", "      torchrun", "    Args:", "      --nproc_per_node=%d" % J.gpn, "      %s" % J.script,
             "    State:          Terminated", "      Reason:       %s" % reason, "      Exit Code:    %d" % code,
             "      Started:      %s" % utc(J.t0).strftime("%a, %d %b %Y %H:%M:%S +0000"),
             "      Finished:     %s" % fin.strftime("%a, %d %b %Y %H:%M:%S +0000"),
             "    Ready:          False", "    Restart Count:  0",
             "    Limits:", "      memory:          %dGi" % R.choice([900, 1200, 1600]), "      nvidia.com/gpu:  %d" % J.gpn,
             "    Requests:", "      cpu:             %d" % R.choice([96, 120, 180]), "      memory:          %dGi" % R.choice([800, 1000]), "      nvidia.com/gpu:  %d" % J.gpn,
             "Conditions:", "  Type                        Status"]
        if getattr(self, "k8s_preempted", None) == h:
            L.append("  DisruptionTarget            True ")
        L += ["  PodReadyToStartContainers   False ", "  Initialized                 True ", "  Ready                       False ",
              "  ContainersReady             False ", "  PodScheduled                True ",
              "QoS Class:                   Burstable", "Events:                      <none>"]
        return textbuf("\n".join(L) + "\n")

    def r_torchrun_logdir(self):
        J, R = self.J, self.R
        files = {}
        hosts = list(range(J.n_nodes))
        note = None
        if J.n_nodes > 12:
            want = [0]
            for h in [self.init_node] + self.kern_hosts + [e.h for e in self.evs if e.key]:
                if h is not None and h not in want:
                    want.append(h)
            for h in self.pyspy:
                if h not in want:
                    want.append(h)
            rest = [h for h in hosts if h not in want]
            want += R.sample(rest, min(len(rest), R.randrange(3, 7)))
            hosts = sorted(want)
            note = "Logs collected from %d of %d nodes (head node, nodes flagged by the health checker, and a random sample).\nNodes: %s\n" % (len(hosts), J.n_nodes, " ".join(J.hosts[h] for h in hosts))
        rdzv = "%s_%s" % (J.runid, "%06x" % R.getrandbits(24))
        kh = self.kern_hosts_all()
        for h in hosts:
            H = J.hosts[h]
            la = FileBuf()
            la.header(["+ torchrun --nnodes=%d --nproc_per_node=%d --node_rank=%d --master_addr=%s --master_port=%d --log-dir=/logs/%s --redirects 3 %s" % (J.n_nodes, J.gpn, h, J.hosts[0], J.port, J.jobname, J.script)])
            for e in self.evs:
                if e.h == h and e.st in ("agent", "sched"):
                    la.add(e.t, e.id, e.lines, key=e.key)
            if h == 0:
                for t, line in self.srun_msgs:
                    la.add(t, None, [line])
            files["%s/launcher.log" % H] = la
            for lr in range(J.gpn):
                r = h * J.gpn + lr
                so, se = FileBuf(), FileBuf()
                for e in self.evs:
                    if e.st == "rank" and e.r == r:
                        (so if e.fd == "o" else se).add(e.t, e.id, e.lines, key=e.key)
                base = "%s/torchelastic/%s/attempt_0/%d/" % (H, rdzv, lr)
                if self.nodefail and self.nodefail[0] == h and R.random() < 0.7:
                    se.tail_cut(R)
                files[base + "stdout.log"] = so
                files[base + "stderr.log"] = se
                fin = self.final.get(r)
                if J.record and fin and fin[2].kind == "exc" and fin[1] == 1:
                    tb = [l for l in fin[2].d["lines"] if l.strip()]
                    msg = tb[-1] if tb else "RuntimeError"
                    err = {"message": {"message": msg, "extraInfo": {"py_callstack": "\n".join(tb) + "\n", "timestamp": str(int(fin[0] + J.skew[h]))}}}
                    files[base + "error.json"] = textbuf(json.dumps(err))
            if h in kh:
                files["%s/dmesg.txt" % H] = self.kern_buf(h, "raw", tail=R.choice([None, 250, 500]))
            for (hh, name, text, key) in self.extras:
                if hh == h:
                    files["%s/%s" % (H, name)] = textbuf(text)
            if h in self.pyspy:
                for r, st in sorted(self.pyspy[h].items()):
                    files["%s/py-spy-dump-rank%d.txt" % (H, r)] = textbuf("\n".join(st) + "\n", key=True)
        if note:
            files["COLLECTED.txt"] = textbuf(note)
        return files

    def r_deepspeed_pdsh(self):
        J, R = self.J, self.R
        files = {}
        fb = FileBuf()
        d = J.lt(0, J.t0)
        fb.header(["[%s] [INFO] [runner.py:463:main] Using IP address of %s for node %s" % (f_py(d), J.ips[0], J.hosts[0]),
                   "[%s] [INFO] [multinode_runner.py:80:get_cmd] Running on the following workers: %s" % (f_py(d), ",".join(J.hosts[:8]) + (",..." if J.n_nodes > 8 else "")),
                   "[%s] [INFO] [runner.py:568:main] cmd = pdsh -S -f 1024 -w %s export PYTHONPATH=/workspace; cd /workspace; %s -u -m deepspeed.launcher.launch --world_info=%s --node_rank=%%n --master_addr=%s --master_port=%d %s --deepspeed --deepspeed_config ds_config.json" % (
                       f_py(d), ",".join(J.hosts[:4]) + (",..." if J.n_nodes > 4 else ""), J.pybin, "eyJ" + "%024x" % R.getrandbits(96), J.hosts[0], J.port, J.script)])
        for e in self.evs:
            if e.st in ("rank", "agent"):
                fb.add(e.t + 0.05, e.id, e.lines, prefix="%s: " % J.hosts[e.h].split(".")[0], key=e.key)
            elif e.st == "sched":
                fb.add(e.t, e.id, e.lines, key=e.key)
        for t, line in self.srun_msgs:
            fb.add(t, None, [line])
        if R.random() < 0.15:
            fb.tail_cut(R)
        files["train.log"] = fb
        for h in self.kern_hosts_all():
            files["syslog-%s.txt" % J.hosts[h]] = self.kern_buf(h, "syslog", tail=R.choice([None, 300]))
        hf = "\n".join("%s slots=%d" % (x, J.gpn) for x in J.hosts) + "\n"
        files["hostfile"] = textbuf(hf)
        return files

    def r_mpirun_tagged(self):
        J, R = self.J, self.R
        files = {}
        fb = FileBuf()
        if J.n_nodes <= 4:
            hspec = "-H " + ",".join("%s:%d" % (x, J.gpn) for x in J.hosts)
        else:
            hspec = "--hostfile hostfile"
            files["hostfile"] = textbuf("\n".join("%s slots=%d" % (x, J.gpn) for x in J.hosts) + "\n")
        fb.header(["+ mpirun -np %d %s -bind-to none -map-by slot --tag-output -x NCCL_DEBUG=%s -x LD_LIBRARY_PATH -x PATH -x MASTER_ADDR=%s -x MASTER_PORT=%d %s -u %s" % (
            J.world, hspec, J.nccl_debug, J.hosts[0], J.port, J.pybin, J.script)])
        for e in self.evs:
            if e.st == "rank":
                fb.add(e.t + 0.05, e.id, e.lines, prefix="[1,%d]<%s>:" % (e.r, "stdout" if e.fd == "o" else "stderr"), key=e.key)
            elif e.st == "sched":
                fb.add(e.t, e.id, e.lines, key=e.key)
        for t, line in self.srun_msgs:
            fb.add(t, None, [line])
        ep = getattr(self, "mpi_epilogue", None)
        if ep:
            fb.add(self.job_end, None, ep)
        files["mpirun.out"] = fb
        for h in self.kern_hosts_all():
            files["dmesg_%s.log" % J.hosts[h]] = self.kern_buf(h, "raw", tail=R.choice([None, 300]))
        for (h, name, text, key) in self.extras:
            if key:
                files["%s_%s" % (J.hosts[h], name)] = textbuf(text)
        return files

    def console_lines(self, h):
        """What the torchrun console of host h shows (rank+agent+sched), as (t, eid, line, key)."""
        J = self.J
        out = []
        for e in self.evs:
            if e.h != h or e.st not in ("rank", "agent", "sched"):
                continue
            p = "[default%d]:" % J.lr(e.r) if (e.st == "rank" and J.tee) else ""
            for i, l in enumerate(e.lines):
                out.append((e.t, e.id, i, p + l, e.key))
        out.sort(key=lambda x: (x[0], x[1], x[2]))
        return out

    def r_issue_paste(self):
        J, R = self.J, self.R
        files = {}
        used = set()
        blocks = []

        def window(lines, idxs, before, after, maxlen=80):
            keep = set()
            for i in idxs:
                for k in range(max(0, i - before), min(len(lines), i + after + 1)):
                    keep.add(k)
            # always keep whole key events
            keyev = set(lines[i][1] for i in idxs if lines[i][4])
            for k, x in enumerate(lines):
                if x[1] in keyev:
                    keep.add(k)
            ks = sorted(keep)
            res = []
            prev = None
            n = 0
            for k in ks:
                if prev is not None and k != prev + 1:
                    res.append("...")
                x = lines[k]
                res.append(x[3])
                used.add(x[1])
                prev = k
                n += 1
                if n > maxlen and not x[4]:
                    res.append("[... %d more lines ...]" % (len(ks) - n))
                    break
            return res

        # loud part: first ChildFailedError / launcher summary, else last lines of host 0
        loud_h = None
        if self.agent_ev:
            firsts = sorted([(self.agent_st[h]["exit"] or INF, h) for h in self.agent_ev if self.agent_st[h]["fails"]])
            if firsts:
                loud_h = firsts[0][1]
        if loud_h is None:
            loud_h = 0
        cl = self.console_lines(loud_h)
        if cl:
            n = R.randrange(25, 60)
            anchor = [i for i, x in enumerate(cl) if "failed (exitcode" in x[3] or "Watchdog caught" in x[3]]
            if anchor:
                a = anchor[-1] if "failed (exitcode" in cl[anchor[-1]][3] else anchor[0]
                a = max(0, a - R.randrange(0, 6))
                idx = list(range(a, min(len(cl), a + n + 30)))
            else:
                idx = list(range(max(0, len(cl) - n), len(cl)))
            blocks.append(("Output from %s (node_rank %d), end of log:" % (J.hosts[loud_h], loud_h), window(cl, idx, 0, 0, 90)))
        # rank-0 progress before the stop
        if loud_h != 0:
            c0 = self.console_lines(0)
            prog = [i for i, x in enumerate(c0) if x[0] <= (self.t_stop or 0) + 1]
            if prog:
                blocks.append(("Last training output on %s before it went quiet:" % J.hosts[0], window(c0, prog[-R.randrange(3, 8):], 0, 0)))
        # key evidence, grouped per source
        keyhosts = []
        for e in self.evs:
            if e.key and e.st in ("rank", "agent", "sched") and e.h not in keyhosts:
                keyhosts.append(e.h)
        for h in keyhosts:
            c = self.console_lines(h)
            idx = [i for i, x in enumerate(c) if x[4]]
            if idx:
                blocks.append(("From the log of %s (this is where the first error shows up, I think):" % J.hosts[h] if R.random() < 0.5 else "grep -n -B5 -A5 on the log of %s:" % J.hosts[h],
                               window(c, idx, R.randrange(2, 8), R.randrange(2, 10))))
        # other collateral: a couple of watchdog lines from other hosts
        for h in R.sample(range(J.n_nodes), min(J.n_nodes, 2)):
            if h in keyhosts or h == loud_h:
                continue
            c = self.console_lines(h)
            idx = [i for i, x in enumerate(c) if "Watchdog caught" in x[3] or "NCCL WARN" in x[3] or "SignalException" in x[3]]
            if idx:
                blocks.append(("And on %s:" % J.hosts[h], window(c, idx[:2], 0, 3, 12)))
        # kernel logs
        for h in self.kern_hosts_all():
            kl = [(e.t, e.id, i, self.kfmt(h, e.t, m, "T"), e.key) for e in self.evs if e.st == "kern" and e.h == h for i, m in enumerate(e.lines)]
            kl.sort(key=lambda x: (x[0], x[1], x[2]))
            idx = [i for i, x in enumerate(kl) if x[4]]
            if idx:
                blocks.append(("`dmesg -T` on %s:" % J.hosts[h], window(kl, idx, R.randrange(1, 4), R.randrange(1, 6))))
            elif kl and R.random() < 0.5:
                blocks.append(("`dmesg -T | tail` on %s (nothing interesting?):" % J.hosts[h], [x[3] for x in kl[-R.randrange(4, 10):]]))
                used.update(x[1] for x in kl[-10:])
        for (h, name, text, key) in self.extras:
            if key or R.random() < 0.3:
                blocks.append(("`%s` on %s:" % (name.replace(".txt", "").replace("-", " ").replace("nvidia smi q", "nvidia-smi -q").replace("nvidia smi", "nvidia-smi"), J.hosts[h]), text.strip("\n").split("\n")[:70]))
                self.extras_rendered.add((h, name))
        if self.pyspy_key and R.random() < 0.75:
            h, r = self.pyspy_key
            blocks.append(("py-spy dump of the process that was stuck (pid %d on %s):" % (J.pids[r], J.hosts[h]), self.pyspy[h][r]))
            self.pyspy_rendered = True
        if self.k8s_events_pre:
            rows = ["LAST SEEN   TYPE     REASON      OBJECT                         MESSAGE"]
            now = (self.job_end or J.t0) + R.uniform(300, 3000)
            for t, ty, rs, ob, ms in self.k8s_events_pre:
                rows.append("%-11s %-8s %-11s %-30s %s" % (agefmt(now - t), ty, rs, ob, ms))
            blocks.append(("`kubectl get events` (the relevant part):", rows))
            self.k8s_rendered = True
        # compose
        head = blocks[:1]
        rest = blocks[1:]
        R.shuffle(rest) if R.random() < 0.3 else None
        loud = ""
        hl = head[0][1] if head else []
        for pat in ["ChildFailedError:", "SignalException: Process", "Watchdog caught", "Error: ", "exitcode  :"]:
            for x in hl:
                if pat in x:
                    loud = x.strip()
                    break
            if loud:
                break
        dur = (self.t_stop or J.t0) - self.t_train
        if "Watchdog caught" in loud:
            title = R.choice(["Training crashes after %s with NCCL watchdog timeout" % self.hms(dur), "[Bug] %s: process group watchdog / SIGABRT on all ranks" % J.jobname])
        elif "SignalException" in loud:
            title = R.choice(["Multi-node training killed with SignalException (signal 15)", "torchrun got SIGTERM - help needed"])
        elif "ChildFailedError" in loud or "exitcode" in loud:
            title = R.choice(["ChildFailedError on multi-node run", "Job dies randomly after a few hours (%d nodes)" % J.n_nodes])
        else:
            title = R.choice(["Job dies randomly after a few hours (%d nodes)" % J.n_nodes, "Multi-node training crashed - help needed", "NCCL error during training"])
        if self.healthy:
            title = R.choice(["Are these warnings a problem? (%d-node run)" % J.n_nodes, "Scary errors in log but training finished?", "Question about NCCL/kernel messages in our logs"])
        L = ["# %s" % title, "",
             "We are training %s on %d nodes x %d %s (torch %s, NCCL %s, CUDA %s, driver %s), launched with %s." % (
                 J.jobname, J.n_nodes, J.gpn, J.gpu_name, J.torch_v, J.nccl_v, J.cuda_v, J.driver,
                 {"srun": "srun + torchrun", "none": "torchrun on each node (pdsh)", "k8s": "a Kubeflow PyTorchJob"}.get(J.outer, J.launcher)), ""]
        if self.healthy:
            L.append("The run finished and the loss looks fine, but I see some scary messages in the logs and want to know if they matter.")
        else:
            L.append("After about %s of training the job died%s. It is not reproducible on demand; restarting from the last checkpoint works for a while." % (
                self.hms(dur), (" with `%s`" % (loud[:160] + ("..." if len(loud) > 160 else ""))) if loud else ""))
            L.append(R.choice(["Is this an NCCL bug?", "Could this be a PyTorch bug in the watchdog?", "Any idea what is going on? I trimmed the logs, they are huge.", "We suspect the network but are not sure."]))
        if J.skew_hosts and R.random() < 0.6:
            L.append("(Note: NTP is broken on some of our nodes, timestamps between nodes may be off by minutes.)")
        L.append("")
        for title_, lines in blocks:
            L += [title_, "```", *lines, "```", ""]
        files["issue.md"] = textbuf("\n".join(L))
        self.paste_used = used
        return files

    def r_rank0_ops(self):
        J, R = self.J, self.R
        files = {}
        tl = FileBuf()
        for e in self.evs:
            if e.st == "rank" and e.r == 0:
                tl.add(e.t, e.id, e.lines, key=e.key)
        if R.random() < 0.5:
            tl.head_keep(R.choice([200, 500, 1500]))
        files["train.log"] = tl
        for h in range(J.n_nodes):
            la = FileBuf()
            for e in self.evs:
                if e.h == h and e.st == "agent":
                    la.add(e.t, e.id, e.lines, key=e.key)
            if la.items:
                files["launcher/%s.log" % J.hosts[h]] = la
        sc = FileBuf()
        if J.outer == "k8s":
            for t, ty, rs, ob, ms in sorted(self.k8s_events, key=lambda x: x[0]):
                sc.add(t, None, ["%s %-7s %-20s %-40s %s" % (utc(t).strftime("%Y-%m-%dT%H:%M:%SZ"), ty, rs, ob, ms)])
            for h, (t, c, reason) in sorted(self.pod_exit.items()):
                extra = ' message="Pod was terminated in response to imminent node shutdown."' if getattr(self, "k8s_spot", None) == h else ""
                sc.add(t + 0.5, None, ["%s pod/%s phase=%s reason=%s exitCode=%d%s" % (utc(t + 0.5).strftime("%Y-%m-%dT%H:%M:%SZ"), J.hosts[h], "Succeeded" if c == 0 else "Failed", "Terminated" if extra else reason, c, extra)])
        else:
            for e in self.evs:
                if e.st == "sched":
                    sc.add(e.t, e.id, e.lines, key=e.key)
            for t, line in self.srun_msgs:
                sc.add(t, None, [line])
        files["scheduler.log"] = sc
        # failed-rank stderr tails collected by the platform (root cause rank per agent)
        firsts = []
        for h in range(J.n_nodes):
            A = self.agent_st[h]
            if A["fails"]:
                firsts.append((A["fails"][0][1], A["fails"][0][0]))
        firsts.sort()
        for t, r in firsts[:16]:
            fb = FileBuf()
            for e in self.evs:
                if e.st == "rank" and e.r == r and e.fd == "e":
                    fb.add(e.t, e.id, e.lines, key=e.key)
            fb.head_keep(60)
            files["failed_ranks/rank%d.stderr.tail" % r] = fb
        # node reports
        hs = self.kern_hosts_all()
        for (h, name, text, key) in self.extras:
            if h not in hs:
                hs.append(h)
        for h in self.pyspy:
            if h not in hs:
                hs.append(h)
        if J.n_nodes <= 16:
            hs = list(range(J.n_nodes))
        for h in sorted(hs):
            fb = self.kern_buf(h, "T", tail=200)
            fb.hdr = ["### host %s  (collected %s)" % (J.hosts[h], f_iso(J.lt(h, self.job_end + 600))), "", "### dmesg -T | tail -n 200"]
            tail = ["", "### nvidia-smi"]
            ex = [(n, t) for (hh, n, t, k) in self.extras if hh == h]
            smi = [t for n, t in ex if n == "nvidia-smi.txt"]
            tail += (smi[0].rstrip("\n").split("\n") if smi else self.smi_table(h, idle=True, t=self.job_end + 500).rstrip("\n").split("\n"))
            for n, t in ex:
                if n != "nvidia-smi.txt":
                    tail += ["", "### %s" % n.replace(".txt", "")] + t.rstrip("\n").split("\n")
                self.extras_rendered.add((h, n))
            if h in self.pyspy:
                for r, st in sorted(self.pyspy[h].items()):
                    tail += ["", "### py-spy dump --pid %d  (rank %d)" % (J.pids[r], r)] + st
                    if self.pyspy_key == (h, r):
                        self.pyspy_rendered = True
            fb.trailer = tail
            files["nodes/%s.txt" % J.hosts[h]] = fb
        return files

    def render(self):
        self.extras_rendered = set()
        self.pyspy_rendered = False
        self.paste_used = None
        files = getattr(self, "r_" + self.layout)()
        if self.k8s_events_pre and self.layout in ("k8s_pytorchjob", "rank0_ops") and self.J.outer == "k8s":
            self.k8s_rendered = True
        # layouts without their own diagnostics folder: attach what the admin collected
        if self.layout in ("slurm_srun", "slurm_torchrun", "deepspeed_pdsh"):
            for (h, name, text, key) in self.extras:
                if key or self.R.random() < 0.4:
                    files["node-diag/%s-%s" % (self.J.hosts[h], name)] = textbuf(text)
                    self.extras_rendered.add((h, name))
            if self.pyspy_key and self.R.random() < 0.6:
                h, r = self.pyspy_key
                files["node-diag/py-spy-%s-pid%d.txt" % (self.J.hosts[h], self.J.pids[r])] = textbuf("\n".join(self.pyspy[h][r]) + "\n")
                self.pyspy_rendered = True
        elif self.layout in ("k8s_pytorchjob", "torchrun_logdir", "mpirun_tagged"):
            for (h, name, text, key) in self.extras:
                if self.layout != "mpirun_tagged" or key:
                    self.extras_rendered.add((h, name))
            if self.layout == "torchrun_logdir" and self.pyspy_key:
                h, r = self.pyspy_key
                if "%s/py-spy-dump-rank%d.txt" % (self.J.hosts[h], r) in files:
                    self.pyspy_rendered = True
            if self.layout == "k8s_pytorchjob" and self.pyspy_key and self.R.random() < 0.6:
                h, r = self.pyspy_key
                files["py-spy-%s-rank%d.txt" % (self.J.hosts[h], r)] = textbuf("\n".join(self.pyspy[h][r]) + "\n")
                self.pyspy_rendered = True
        return files

    def truth(self, files):
        J = self.J
        if self.paste_used is not None:
            ids = set(self.paste_used)
        else:
            ids = set()
            for fb in files.values():
                ids |= fb.ids()
        rk = nk = False
        if self.init_rank is not None:
            rk = bool(ids & set(self.rank_proof))
            if getattr(self, "launcher_proof", False) and self.layout in ("slurm_srun", "mpirun_tagged"):
                rk = True
            if self.pyspy_rendered and self.cause == "hang":
                rk = True
            for (h, name, rb) in getattr(self, "extra_proof", []):
                if (h, name) in self.extras_rendered and rb:
                    rk = True
        if self.init_node is not None:
            nk = rk or bool(ids & set(self.node_proof))
            if (getattr(self, "k8s_preempted", None) is not None or getattr(self, "k8s_spot", None) is not None) and (self.layout in ("k8s_pytorchjob", "rank0_ops") or getattr(self, "k8s_rendered", False)):
                nk = True
            if self.pyspy_rendered and self.cause in ("hang", "data_loader_stall"):
                nk = True
            for (h, name, rb) in getattr(self, "extra_proof", []):
                if (h, name) in self.extras_rendered:
                    nk = True
        if self.healthy:
            ini = None
        elif rk or nk:
            ini = {"rank": self.init_rank if rk else None, "node": J.hosts[self.init_node] if nk else None}
        else:
            ini = None
        notes = " ".join(self.notes)
        if self.decoy_notes:
            notes += " Harmless noise also present: " + "; ".join(self.decoy_notes) + "."
        if J.skew_hosts:
            notes += " Clock skew: %s." % ", ".join("%s %+.0fs" % (J.hosts[h], J.skew[h]) for h in J.skew_hosts)
        notes += " [%d nodes x %d GPUs, torch %s, launcher %s/%s]" % (J.n_nodes, J.gpn, J.torch_v, J.launcher, J.outer)
        return {"healthy": self.healthy, "cause": None if self.healthy else self.cause, "initiator": ini, "layout": self.layout, "notes": notes}


# --------------------------------------------------------------------------
class FileBuf:
    def __init__(self):
        self.hdr = []
        self.items = []
        self.trailer = []
        self.cnt = 0
        self.cut_mid = False
        self.keyfile = False

    def header(self, lines):
        self.hdr += list(lines)

    def add(self, t, eid, lines, prefix="", key=False):
        for l in lines:
            self.items.append([t, self.cnt, eid, prefix + l, key])
            self.cnt += 1

    def sort(self):
        self.items.sort(key=lambda x: (x[0], x[1]))

    def head_keep(self, n):
        self.sort()
        if len(self.items) <= n:
            return
        cut = len(self.items) - n
        ks = [i for i, x in enumerate(self.items) if x[4]]
        if ks:
            cut = min(cut, ks[0])
        self.items = self.items[cut:]

    def tail_cut(self, R):
        self.sort()
        ks = [i for i, x in enumerate(self.items) if x[4]]
        lastkey = ks[-1] if ks else -1
        n = len(self.items)
        lo = max(lastkey + 1, int(n * 0.85))
        if lo >= n - 1:
            return
        k = R.randrange(lo, n)
        line = self.items[k][3]
        self.items[k][3] = line[:R.randrange(0, max(1, len(line)))]
        self.items = self.items[:k + 1]
        self.cut_mid = True

    def text(self):
        self.sort()
        lines = self.hdr + [x[3] for x in self.items] + self.trailer
        s = "\n".join(lines)
        if lines and not self.cut_mid:
            s += "\n"
        return s

    def ids(self):
        return set(x[2] for x in self.items if x[2] is not None)


def textbuf(text, key=False):
    fb = FileBuf()
    fb.hdr = text.rstrip("\n").split("\n")
    return fb


def hostlist(hosts):
    import re
    m = [re.match(r"^(.*?)(\d+)$", h) for h in hosts]
    if all(m) and len(set(x.group(1) for x in m)) == 1:
        pre = m[0].group(1)
        w = len(m[0].group(2))
        nums = [int(x.group(2)) for x in m]
        parts = []
        i = 0
        while i < len(nums):
            j = i
            while j + 1 < len(nums) and nums[j + 1] == nums[j] + 1:
                j += 1
            parts.append(("%0*d" % (w, nums[i])) if i == j else "%0*d-%0*d" % (w, nums[i], w, nums[j]))
            i = j + 1
        return "%s[%s]" % (pre, ",".join(parts)) if len(nums) > 1 else hosts[0]
    return ",".join(hosts)


def agefmt(s):
    s = int(max(0, s))
    if s < 120:
        return "%ds" % s
    if s < 3600:
        return "%dm" % (s // 60)
    if s < 86400:
        return "%dh%dm" % (s // 3600, s // 60 % 60) if s < 36000 else "%dh" % (s // 3600)
    return "%dd%dh" % (s // 86400, s // 3600 % 24)


# --------------------------------------------------------------------------
def run_one(idx, seed, cause, layout, outdir):
    for compact in range(4):
        run = Run(idx, seed, cause, layout, compact)
        run.build()
        files = run.render()
        texts = {k: v.text() for k, v in files.items()}
        total = sum(len(t.encode()) for t in texts.values())
        if total <= MAX_RUN_BYTES or compact == 3:
            break
    truth = run.truth(files)
    if os.environ.get("B42_DEBUG"):
        ids = set(run.paste_used) if run.paste_used is not None else set().union(*[fb.ids() for fb in files.values()])
        keys = [e.id for e in run.evs if e.key]
        if cause and cause != "unknown" and not (ids & set(keys)) and not run.extras_rendered and not run.pyspy_rendered and not getattr(run, "k8s_rendered", False):
            sys.stderr.write("NO KEY EVIDENCE: run %d %s %s\n" % (idx, cause, layout))
    d = os.path.join(outdir, "run-%03d-%s" % (idx, layout))
    os.makedirs(d, exist_ok=True)
    for name in sorted(texts):
        p = os.path.join(d, name)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w", encoding="utf-8") as f:
            f.write(texts[name])
    with open(os.path.join(d, "truth.json"), "w") as f:
        json.dump(truth, f, indent=2)
        f.write("\n")
    return truth, total


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--seed", default="1")
    args = ap.parse_args()
    R = random.Random("blind42-plan|%s" % args.seed)
    order = list(CAUSES)
    R.shuffle(order)
    lays = []
    while len(lays) < args.n:
        blk = list(LAYOUTS)
        R.shuffle(blk)
        lays += blk
    os.makedirs(args.out, exist_ok=True)
    counts = {}
    k = 0
    for i in range(args.n):
        if i % 7 == 3:
            cause = None
        else:
            cause = order[k % len(order)]
            k += 1
        truth, size = run_one(i, args.seed, cause, lays[i], args.out)
        key = truth["cause"] or "healthy"
        counts[key] = counts.get(key, 0) + 1
    print(json.dumps({k: counts[k] for k in sorted(counts)}, indent=1))


if __name__ == "__main__":
    main()
