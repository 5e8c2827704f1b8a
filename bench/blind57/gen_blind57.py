#!/usr/bin/env python3
# -*- coding: utf-8 -*-
"""gen_blind57.py -- blind synthetic log bundles of distributed GPU training jobs
whose trouble (or scary-but-harmless noise) sits at the END of a job's life or
between its phases: last steps, final checkpoint save, final eval, upload,
teardown, scheduler epilog, resume of a new attempt, post-processing.

Written blind (no access to the diagnosing tool, its rules, tests or corpus).
Standard library only.

    python3 gen_blind57.py --out DIR --n 60 --seed S
"""
import argparse
import datetime as _dt
import heapq
import json
import os
import random
import shutil
import sys
import time

CAUSES = ["gpu_hardware", "ecc_memory", "nvlink", "network", "cuda_oom",
          "illegal_memory_access", "python_exception", "host_oom_kill",
          "crash_signal", "preemption", "hang", "data_loader_stall",
          "collective_mismatch", "straggler", "unknown"]

LAYOUTS = ["slurm_torchrun", "slurm_srun", "torchrun_nodes", "torchelastic_logdir",
           "deepspeed_pdsh", "accelerate", "k8s_pytorchjob", "pipeline_post"]

LAUNCHER = {"slurm_torchrun": "torchrun", "slurm_srun": "srun", "torchrun_nodes": "torchrun",
            "torchelastic_logdir": "torchrun", "deepspeed_pdsh": "deepspeed",
            "accelerate": "accelerate", "k8s_pytorchjob": "torchrun", "pipeline_post": "torchrun"}

UTC = _dt.timezone.utc
MON = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
DOW = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
MAX_FILE = 900 * 1024


# ----------------------------------------------------------------------------- time formats
def D(ts):
    return _dt.datetime.fromtimestamp(ts, UTC)


def t_py(ts):
    d = D(ts)
    return "%s,%03d" % (d.strftime("%Y-%m-%d %H:%M:%S"), d.microsecond // 1000)


def t_sec(ts):
    return D(ts).strftime("%Y-%m-%d %H:%M:%S")


def t_glog(ts, sev, nanos=True):
    d = D(ts)
    if nanos:
        frac = "%06d%03d" % (d.microsecond, int(ts * 1e6 * 7) % 1000)
    else:
        frac = "%06d" % d.microsecond
    return "%s%s %s.%s" % (sev, d.strftime("%m%d"), d.strftime("%H:%M:%S"), frac)


def t_iso(ts):
    return D(ts).strftime("%Y-%m-%dT%H:%M:%S")


def t_elastic(ts):
    return D(ts).strftime("%Y-%m-%d_%H:%M:%S")


def t_dmesgT(ts):
    d = D(ts)
    return "[%s %s %2d %s %d]" % (DOW[d.weekday()], MON[d.month - 1], d.day, d.strftime("%H:%M:%S"), d.year)


def t_syslog(ts):
    d = D(ts)
    return "%s %2d %s" % (MON[d.month - 1], d.day, d.strftime("%H:%M:%S"))


def t_k8s(ts):
    d = D(ts)
    return d.strftime("%Y-%m-%dT%H:%M:%S.") + "%06d%03dZ" % (d.microsecond, int(ts * 1e6 * 3) % 1000)


def hms(sec):
    sec = int(max(0, sec))
    h, r = divmod(sec, 3600)
    m, s = divmod(r, 60)
    if h:
        return "%d:%02d:%02d" % (h, m, s)
    return "%02d:%02d" % (m, s)


def tqdm_bar(n, total, elapsed, rate_s_per_it, width=10, desc="", post=""):
    frac = 0 if total == 0 else n / total
    full = int(frac * width)
    parts = " ▏▎▍▌▋▊▉"
    rem = frac * width - full
    bar = "█" * full
    if full < width:
        bar += parts[int(rem * 8)] if rem > 0 else " "
        bar += " " * (width - full - 1)
    remaining = (total - n) * rate_s_per_it
    if rate_s_per_it >= 1:
        rate = "%.2fs/it" % rate_s_per_it
    else:
        rate = "%.2fit/s" % (1.0 / max(rate_s_per_it, 1e-3))
    pre = (desc + ": ") if desc else ""
    s = "%s%3d%%|%s| %d/%d [%s<%s, %s%s]" % (pre, int(frac * 100), bar, n, total, hms(elapsed), hms(remaining), rate, post)
    return s


def ranges(nums):
    """[0,1,2,5] -> '0-2,5'"""
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


def hexaddr(rng, hi="7f"):
    return "0x%s%010x" % (hi, rng.randrange(16 ** 10))


# ----------------------------------------------------------------------------- cluster topology
GPU_TYPES = [
    # name, total GiB, sxm/nvlink, pci buses for 8 gpus
    ("NVIDIA H100 80GB HBM3", 79.11, True, ["18", "2a", "3a", "5d", "9a", "ab", "ba", "db"]),
    ("NVIDIA A100-SXM4-80GB", 79.15, True, ["07", "0f", "47", "4e", "87", "90", "b7", "bd"]),
    ("NVIDIA A100-SXM4-40GB", 39.39, True, ["07", "0f", "47", "4e", "87", "90", "b7", "bd"]),
    ("NVIDIA H200", 139.8, True, ["19", "3b", "4c", "5d", "9b", "bb", "cb", "db"]),
    ("NVIDIA L40S", 44.52, False, ["01", "25", "41", "61", "81", "a1", "c1", "e1"]),
    ("NVIDIA A10G", 22.09, False, ["00:16", "00:17", "00:18", "00:19", "00:1a", "00:1b", "00:1c", "00:1e"]),
]

TORCH_VERS = [((2, 1, 2), "2.18.6"), ((2, 2, 2), "2.19.3"), ((2, 3, 1), "2.20.5"),
              ((2, 4, 1), "2.20.5"), ((2, 5, 1), "2.21.5"), ((2, 6, 0), "2.21.5")]

FW_BY_LAYOUT = {"slurm_torchrun": ["custom", "megatron", "hf"], "slurm_srun": ["lightning", "custom"],
                "torchrun_nodes": ["custom", "megatron"], "torchelastic_logdir": ["custom", "hf"],
                "deepspeed_pdsh": ["hf", "megatron"], "accelerate": ["hf", "custom"],
                "k8s_pytorchjob": ["custom", "hf"], "pipeline_post": ["hf", "custom"]}

MODELS = ["llama-3-8b", "llama2-13b", "mistral-7b", "qwen2-7b", "gpt-1.3b", "gpt-6.7b", "vit-h14",
          "t5-xl", "llama-3-70b", "gpt-neox-20b", "mixtral-8x7b", "codegen-2b"]


class Topo:
    """The cluster, versions and paths shared by all attempts of one run."""

    def __init__(self, rng, layout, nnodes, gpn, fw, need_nvlink=False):
        self.rng = rng
        self.layout = layout
        self.launcher = LAUNCHER[layout]
        self.nnodes, self.gpn = nnodes, gpn
        self.world = nnodes * gpn
        self.fw = fw
        g = [x for x in GPU_TYPES if x[2]] if (need_nvlink or gpn >= 8 and rng.random() < 0.8) else GPU_TYPES
        self.gpu = rng.choice(g)
        self.gpu_name, self.gpu_mem, self.nvlink, buses = self.gpu
        self.bus = buses[:gpn] if gpn <= len(buses) else buses
        tv, ncv = rng.choice(TORCH_VERS)
        self.tv = tv
        self.torch_ver = "%d.%d.%d" % tv
        self.nccl_ver = ncv
        self.py = rng.choice(["3.10", "3.10", "3.11"])
        env = rng.choice(["ngc", "conda", "venv"])
        if env == "ngc":
            self.site = "/usr/local/lib/python%s/dist-packages" % self.py
            self.pybin = "/usr/bin/python"
            self.torchrun_bin = "/usr/local/bin/torchrun"
        elif env == "conda":
            e = rng.choice(["train", "llm", "pt2"])
            self.site = "/opt/conda/envs/%s/lib/python%s/site-packages" % (e, self.py)
            self.pybin = "/opt/conda/envs/%s/bin/python" % e
            self.torchrun_bin = "/opt/conda/envs/%s/bin/torchrun" % e
        else:
            u = rng.choice(["alice", "bwang", "mkumar", "jdoe", "svc-train"])
            self.site = "/home/%s/.venv/lib/python%s/site-packages" % (u, self.py)
            self.pybin = "/home/%s/.venv/bin/python3" % u
            self.torchrun_bin = "/home/%s/.venv/bin/torchrun" % u
        self.workdir = rng.choice(["/workspace/llm-train", "/home/%s/proj/pretrain" % rng.choice(["alice", "bwang", "jdoe"]),
                                   "/mnt/code/trainer", "/fsx/team/train", "/lustre/proj/ml/run"])
        self.ckpt_dir = rng.choice(["/checkpoints", "/fsx/ckpt", "/lustre/scratch/ckpt", "/mnt/nfs/ckpt", "/data/outputs"])
        self.model = rng.choice(MODELS)
        self.run_name = "%s-%s-%s" % (self.model.split("-")[0], rng.choice(["sft", "pt", "dpo", "ft", "cpt"]), rng.choice(["v3", "r2", "exp17", "lr3e-4", "0611", "long"]))
        self.ckpt_path = "%s/%s" % (self.ckpt_dir, self.run_name)
        self.jobid = rng.randrange(100000, 9900000)
        self.jobname = rng.choice(["pretrain", "sft", "train_llm", "finetune", "ft-run", "dpo"])
        self.script = {"hf": rng.choice(["run_sft.py", "train.py", "finetune.py"]), "custom": rng.choice(["train.py", "main.py"]),
                       "megatron": "pretrain_gpt.py", "lightning": rng.choice(["train.py", "fit.py"])}[fw]
        # hosts
        scheme = rng.choice(["gpu", "node", "dgx", "aws", "nid", "hgx"])
        base = rng.randrange(1, 200)
        step = rng.choice([1, 1, 1, 2])
        self.vm = None
        if layout == "k8s_pytorchjob":
            pool = rng.choice(["gke-train-a3-pool", "aks-gpupool", "ip-10-2"])
            self.vm = []
            for i in range(nnodes):
                if pool.startswith("ip-"):
                    self.vm.append("ip-10-2-%d-%d.ec2.internal" % (rng.randrange(0, 64), rng.randrange(2, 250)))
                elif pool.startswith("aks"):
                    self.vm.append("aks-gpupool-%08d-vmss%06x" % (rng.randrange(10 ** 7, 10 ** 8), rng.randrange(16 ** 5)))
                else:
                    self.vm.append("%s-%06x-%s" % (pool, rng.randrange(16 ** 6), "".join(rng.choice("abcdefghjkmnpqrstuvwxyz") for _ in range(4))))
            self.k8s_job = "%s-%s" % (self.jobname.replace("_", "-"), rng.choice(["llm", "run7", "a3", "v2", "exp"]))
            self.hosts = ["%s-master-0" % self.k8s_job] + ["%s-worker-%d" % (self.k8s_job, i) for i in range(nnodes - 1)]
        else:
            self.hosts = []
            for i in range(nnodes):
                k = base + i * step
                self.hosts.append({"gpu": "gpu-node-%03d" % k, "node": "node%04d" % k, "dgx": "dgx-a100-%02d" % (k % 100),
                                   "aws": "ip-10-%d-%d-%d" % (rng.randrange(0, 32), rng.randrange(0, 255), rng.randrange(2, 250)),
                                   "nid": "nid%06d" % (k + 1000), "hgx": "hgx-h100-%03d" % k}[scheme])
        self.short = [h.split(".")[0] for h in self.hosts]
        self.ips = ["10.%d.%d.%d" % (rng.randrange(0, 8), rng.randrange(0, 255), rng.randrange(2, 250)) for _ in range(nnodes)]
        # clocks: most nodes within a second or two, sometimes one node badly off
        self.skew = [rng.gauss(0, 0.7) for _ in range(nnodes)]
        if nnodes > 1 and rng.random() < 0.35:
            self.skew[rng.randrange(nnodes)] += rng.choice([-1, 1]) * rng.uniform(20, 140)
        self.t0 = 1700000000 + rng.randrange(0, 60 * 86400 * 6)
        self.boot = [self.t0 - rng.uniform(1.5, 40) * 86400 for _ in range(nnodes)]
        self.kern = [[] for _ in range(nnodes)]
        self.kseq = 0
        self.files = {}   # relpath -> text (operator attachments etc.)
        self.master = self.short[0]
        self.port = rng.choice([29500, 29500, 29400, 12355, 6000, 29501])
        self.kfmt = rng.choice(["uptime", "T", "syslog"])
        self.vnum = rng.randrange(0, 40)
        self.gpu_uuid = ["GPU-%08x-%04x-%04x-%04x-%012x" % (rng.randrange(16 ** 8), rng.randrange(16 ** 4), rng.randrange(16 ** 4), rng.randrange(16 ** 4), rng.randrange(16 ** 12)) for _ in range(nnodes * gpn)]

    # helpers
    def node_of(self, r):
        return r // self.gpn

    def local(self, r):
        return r % self.gpn

    def ranks_of(self, n):
        return list(range(n * self.gpn, (n + 1) * self.gpn))

    def clk(self, n, t):
        return t + self.skew[n]

    def pci(self, r):
        b = self.bus[self.local(r) % len(self.bus)]
        if ":" in b:
            return "0000:%s" % b
        return "0000:%s:00" % b

    def busid(self, r):
        p = self.pci(r)  # 0000:18:00 -> 18000
        parts = p.split(":")
        return (parts[1] + parts[2] + "0").lstrip("0") or "0"

    def kmsg(self, n, t, msg):
        self.kseq += 1
        self.kern[n].append((t, self.kseq, msg))


def elastic_fmt(topo, t_node, lvl, src, msg, tid):
    """torch.distributed.elastic python logging, version dependent."""
    if topo.tv >= (2, 3):
        return "%s %d %s] %s" % (t_glog(t_node, lvl[0], nanos=False)[:-3] + "000", tid, src, msg)
    name = src.split(".py")[0].replace("/", ".")
    return "%s:%s:%s" % ({"I": "INFO", "W": "WARNING", "E": "ERROR"}[lvl[0]], name, msg)


class Job:
    """One attempt of a job: per-rank streams, launcher lines, exits."""

    def __init__(self, topo, attempt=0, t_start=None):
        self.T = topo
        self.rng = topo.rng
        self.attempt = attempt
        self.world = topo.world
        rng = self.rng
        self.pid = []
        for n in range(topo.nnodes):
            b = rng.randrange(2000, 3900000)
            for l in range(topo.gpn):
                b += rng.choice([1, 2, 2, 3, 7, 12])
                self.pid.append(b)
        self.apid = [rng.randrange(2000, 3900000) for _ in range(topo.nnodes)]
        self.atid = [rng.randrange(139900000000000, 140800000000000) for _ in range(topo.nnodes)]
        self.lines = [[] for _ in range(self.world)]
        self.agent = [[] for _ in range(topo.nnodes)]
        self.sched = []
        self.plan = {}
        self.sched_events = []
        self.death = {}
        self.agent_exit = {}
        self.seq = 0
        self.t_start = t_start if t_start is not None else topo.t0
        self.t_end = None
        self.exit_code = None
        self.rank_banner = {}
        self.notes = []
        self.kill_on_bad_exit = rng.random() < 0.6
        self.monitor = 0.1 if topo.tv >= (2, 3) else 5.0
        self.max_restarts = 0
        self.restart_next = False
        self.keep_alive_after = set()   # ranks whose lines survive (ignore SIGTERM)
        self.result = None              # 'ok' / 'fail'
        self.step_log = []
        self.vnum = topo.vnum
        self.straggle_hook = None
        self.t_vis = None
        self.net = None
        self.banners = False
        self.errfile = {}
        self.oom_step = 0
        self.oom_rank = 0
        self.failed = False
        self.step_t = {}

    # ---------------------------------------------------------------- raw emitters
    def out(self, r, t, text, err=False):
        self.seq += 1
        self.lines[r].append((t, self.seq, "err" if err else "out", text))

    def agentl(self, n, t, text):
        self.seq += 1
        self.agent[n].append((t, self.seq, text))

    def schedl(self, t, text, stream="err", node=0):
        self.seq += 1
        self.sched.append((t, self.seq, stream, text, node))

    def plan_exit(self, r, t, code):
        old = self.plan.get(r)
        if old is None or t < old[0]:
            self.plan[r] = (t, code)

    def clkr(self, r, t):
        return self.T.clk(self.T.node_of(r), t)

    # ---------------------------------------------------------------- formatted emitters
    def log(self, r, t, msg, lvl="INFO", src=None, err=None):
        T = self.T
        c = self.clkr(r, t)
        fw = T.fw
        if fw == "hf":
            src = src or "trainer.py:%d" % self.rng.choice([2078, 2241, 2387, 3478])
            line = "[%s|%s] %s >> %s" % (lvl, src, t_py(c), msg)
        elif fw == "custom":
            line = "%s - %s - %s - %s" % (t_py(c), src or "trainer", lvl, msg)
        elif fw == "megatron":
            line = "[%s] %s" % (t_sec(c), msg) if lvl == "INFO" else "%s: %s" % (lvl, msg)
        else:
            line = msg if lvl == "INFO" else "%s: %s" % (lvl, msg)
        self.out(r, t, line, err=(lvl != "INFO") if err is None else err)

    def cxx(self, r, t, sev, src, msg):
        """torch c10 logging line (ProcessGroupNCCL etc)."""
        T = self.T
        c = self.clkr(r, t)
        if T.tv >= (2, 4):
            line = "[rank%d]:[%s %s] %s" % (r, t_glog(c, sev), src, msg)
        elif T.tv >= (2, 2):
            line = "[rank%d]:[%s %s] %s" % (r, sev, src, msg)
        else:
            line = "[%s %s] %s" % (sev, src, msg)
        self.out(r, t, line, err=True)

    def nccl(self, r, t, msg, lvl="INFO", tid=None):
        T = self.T
        n = T.node_of(r)
        tid = tid or (self.pid[r] + 180 + (hash_i(msg) % 40))
        self.out(r, t, "%s:%d:%d [%d] NCCL %s %s" % (T.short[n], self.pid[r], tid, T.local(r), lvl, msg), err=False)

    def tbpre(self, r):
        return "[rank%d]: " % r if self.T.tv >= (2, 3) and self.T.launcher != "srun" else ""

    def tb(self, r, t, frames, exc, chain=None, pre=None):
        """Python traceback printed by an uncaught exception."""
        pre = self.tbpre(r) if pre is None else pre
        lines = []
        if chain:
            for (cfr, cexc, how) in chain:
                lines += tb_lines(cfr, cexc, self.T.py == "3.11", self.rng)
                lines += ["", how, ""]
        lines += tb_lines(frames, exc, self.T.py == "3.11", self.rng)
        self.out(r, t, "\n".join(pre + x for x in lines), err=True)

    def pywarn(self, r, t, path, line, cat, msg, code):
        self.out(r, t, "%s:%d: %s: %s\n  %s" % (path, line, cat, msg, code), err=True)

    def alog(self, n, t, lvl, src, msg):
        T = self.T
        self.agentl(n, t, elastic_fmt(T, T.clk(n, t), lvl, src, msg, self.atid[n]))


def hash_i(s):
    h = 2166136261
    for ch in s:
        h = ((h ^ ord(ch)) * 16777619) & 0xffffffff
    return h


def tb_lines(frames, exc, py311, rng):
    out = ["Traceback (most recent call last):"]
    for fr in frames:
        f, ln, fn, code = fr[:4]
        out.append('  File "%s", line %d, in %s' % (f, ln, fn))
        if code:
            out.append("    " + code)
            if py311 and len(fr) > 4 and fr[4]:
                s = code.find(fr[4])
                if s >= 0:
                    out.append("    " + " " * s + "^" * len(fr[4]))
    out.extend(exc.split("\n"))
    return out


# ============================================================================= training plan / frameworks
def setup_plan(job, resume_from=None, total=None):
    rng = job.rng
    T = job.T
    job.step_time = rng.uniform(0.6, 6.0) * (1.0 if T.world < 64 else 1.6)
    job.total_steps = total or rng.choice([1200, 2000, 3000, 5000, 7500, 10000, 20000, 25000, 60000])
    job.log_every = rng.choice([10, 10, 20, 50, 100]) if job.total_steps > 3000 else rng.choice([5, 10, 10, 20])
    while job.total_steps / job.log_every > 5000:
        job.log_every *= 2
    job.eval_every = job.log_every * rng.choice([10, 20, 25, 50])
    while job.eval_every > max(job.log_every, job.total_steps // 5):
        job.eval_every = max(job.log_every, (job.eval_every // 2) - (job.eval_every // 2) % job.log_every)
    job.save_every = job.eval_every * rng.choice([1, 2, 4])
    while job.save_every > max(job.eval_every, job.total_steps // 4):
        job.save_every -= job.eval_every
    job.timeout_ms = rng.choice([600000, 600000, 1800000, 1800000, 3600000 if T.fw == "hf" else 1800000])
    if T.fw == "hf" and rng.random() < 0.6:
        job.timeout_ms = 1800000
    if T.fw == "megatron":
        job.timeout_ms = 600000
    job.resume_from = resume_from
    # how many log lines do we show: we start the visible window some steps before the end
    nvis = rng.randint(35, 110)
    job.vis_start = max(resume_from or 0, job.total_steps - nvis * job.log_every)
    job.vis_start -= job.vis_start % job.log_every
    job.head_trim = (job.vis_start > (resume_from or 0) + 3 * job.log_every) and rng.random() < 0.5
    job.coll_seq = rng.randrange(20000, 900000)
    job.epochs = rng.choice([1, 2, 3, 3, 4])
    job.tokens_ps = rng.randint(2500, 15000)
    job.mfu = rng.uniform(28, 52)
    job.loss = rng.uniform(1.4, 2.8)
    job.tqdm_style = rng.random() < 0.5
    job.lr = rng.choice([1e-5, 2e-5, 3e-4, 1.5e-4, 6e-5])
    job.out_dir = "%s" % T.ckpt_path
    job.slow = {}  # rank -> factor (straggler)


def metrics_loss(job, step):
    frac = step / max(1, job.total_steps)
    return job.loss * (1.05 - 0.25 * frac) + job.rng.uniform(-0.05, 0.05)


def fw_startup(job, t):
    """Start of an attempt. Returns new t."""
    T = job.T
    rng = job.rng
    r0 = 0
    # every rank: a couple of lines; big worlds only a sample
    sample = list(range(T.world)) if T.world <= 16 else sorted(set([0, 1, T.world - 1] + rng.sample(range(T.world), 6)))
    if T.launcher in ("torchrun", "accelerate") and T.gpn > 1 and not (T.layout == "torchelastic_logdir" and job.attempt > 0):
        for n in range(T.nnodes):
            for m in ["", "*****************************************",
                      "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. ",
                      "*****************************************"]:
                job.alog(n, t - 8 + n * 0.01, "W", "torch/distributed/run.py:%d" % (793 if T.tv >= (2, 4) else 757), m)
    t += rng.uniform(5, 20)
    fw = T.fw
    if fw == "lightning":
        job.log(0, t, "GPU available: True (cuda), used: True")
        job.log(0, t, "TPU available: False, using: 0 TPU cores")
        job.log(0, t, "HPU available: False, using: 0 HPUs")
        if T.layout == "slurm_srun":
            job.log(0, t, "SLURM auto-requeueing enabled. Setting signal handlers.")
        for r in sample:
            job.out(r, t + 1 + r * 0.003, "Initializing distributed: GLOBAL_RANK: %d, MEMBER: %d/%d" % (r, r + 1, T.world), err=True)
        job.out(0, t + 3, "-" * 100 + "\ndistributed_backend=nccl\nAll distributed processes registered. Starting with %d processes\n" % T.world + "-" * 100 + "\n", err=True)
    # NCCL INFO init on rank 0 (and a few lines from others when NCCL_DEBUG=INFO)
    t += rng.uniform(3, 15)
    if rng.random() < 0.75:
        nccl_init(job, t, sample)
    t += rng.uniform(2, 10)
    if fw == "hf":
        for m in ["***** Running training *****", "  Num examples = {:,}".format(rng.randrange(100000, 9000000)),
                  "  Num Epochs = %d" % job.epochs, "  Instantaneous batch size per device = %d" % rng.choice([1, 2, 4, 8]),
                  "  Total train batch size (w. parallel, distributed & accumulation) = %d" % (T.world * rng.choice([4, 8, 16])),
                  "  Gradient Accumulation steps = %d" % rng.choice([1, 2, 4, 8]),
                  "  Total optimization steps = {:,}".format(job.total_steps),
                  "  Number of trainable parameters = {:,}".format(rng.randrange(10 ** 8, 7 * 10 ** 9))]:
            job.log(0, t, m, src="trainer.py:2078")
        if job.resume_from:
            job.log(0, t, "  Continuing training from checkpoint, will skip to saved global_step", src="trainer.py:2098")
            job.log(0, t, "  Continuing training from global step %d" % job.resume_from, src="trainer.py:2100")
    elif fw == "custom":
        job.log(0, t, "Starting job: %s" % T.run_name)
        job.log(0, t + 0.3, "Building %s with %d ranks (dp_shard=%d)" % (T.model, T.world, T.world))
        job.log(0, t + 4, "Model %s size: %s total parameters" % (T.model, "{:,}".format(rng.randrange(10 ** 9, 8 * 10 ** 9))))
        job.log(0, t + 5, "CUDA memory usage for model: %.2fGiB(%.2f%%)" % (T.gpu_mem * 0.22, 22.0 + rng.random()))
        if job.resume_from:
            dl = rng.uniform(20, 90)
            job.log(0, t + 6, "Loading the checkpoint at step %d." % job.resume_from, src="checkpoint")
            job.log(0, t + 6 + dl, "Finished loading the checkpoint in %.2f seconds." % dl, src="checkpoint")
            t += dl + 2
        job.log(0, t + 8, "Training starts at step %d" % ((job.resume_from or 0) + 1))
    elif fw == "megatron":
        job.out(0, t, "> building GPT model ...")
        job.out(0, t + 1, " > number of parameters on (tensor, pipeline) model parallel rank (0, 0): %d" % rng.randrange(10 ** 8, 2 * 10 ** 9))
        if job.resume_from:
            job.out(0, t + 3, " loading checkpoint from %s at iteration %d" % (T.ckpt_path, job.resume_from))
            job.out(0, t + 40, "  successfully loaded checkpoint from %s [ t 0, p 0 ] at iteration %d" % (T.ckpt_path, job.resume_from))
            t += 40
        job.out(0, t + 5, "[after model, optimizer, and learning rate scheduler are built] datetime: %s " % t_sec(job.clkr(0, t + 5)))
        job.out(0, t + 9, "[before the start of training step] datetime: %s " % t_sec(job.clkr(0, t + 9)))
    elif fw == "lightning":
        for r in sample[:8]:
            job.out(r, t + r * 0.002, "LOCAL_RANK: %d - CUDA_VISIBLE_DEVICES: [%s]" % (T.local(r), ",".join(str(i) for i in range(T.gpn))), err=True)
        job.out(0, t + 1, "\n  | Name  | Type             | Params | Mode \n---------------------------------------------------\n0 | model | %s | %.1f B  | train\n---------------------------------------------------\n" % (T.model.replace("-", "_"), rng.uniform(1, 8)))
        if job.resume_from:
            job.out(0, t + 2, "Restoring states from the checkpoint path at %s/last.ckpt" % T.ckpt_path, err=True)
            job.out(0, t + 30, "Restored all states from the checkpoint at %s/last.ckpt" % T.ckpt_path, err=True)
            t += 30
    # per-rank deprecation noise
    startup_warnings(job, t + 10, sample)
    return t + rng.uniform(12, 40)


def nccl_init(job, t, sample):
    T = job.T
    rng = job.rng
    net = "IB" if T.gpu[2] and not T.hosts[0].startswith("ip-") else ("OFI" if T.hosts[0].startswith("ip-") else "Socket")
    job.net = net
    cid = rng.randrange(16 ** 15, 16 ** 16)
    for r in sample[:4] if T.world > 16 else sample:
        n = T.node_of(r)
        tt = t + r * 0.004
        if r == 0:
            job.nccl(r, tt, "Bootstrap : Using %s:%s<0>" % (rng.choice(["eth0", "ens5", "bond0", "enp90s0"]), T.ips[n]))
            job.nccl(r, tt, "cudaDriverVersion %d" % rng.choice([12020, 12040, 12030, 12060]))
            job.out(r, tt, "NCCL version %s+cuda12.%d" % (T.nccl_ver, rng.choice([1, 2, 4])))
        if net == "IB":
            job.nccl(r, tt + 0.2, "NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_3:1/IB [2]mlx5_4:1/IB [3]mlx5_5:1/IB [4]mlx5_6:1/IB [5]mlx5_9:1/IB [6]mlx5_10:1/IB [7]mlx5_11:1/IB [RO]; OOB bond0:%s<0>" % T.ips[n])
            job.nccl(r, tt + 0.2, "Using network IB")
        elif net == "OFI":
            job.nccl(r, tt + 0.2, "NET/OFI Selected Provider is efa (found %d nics)" % rng.choice([4, 32]))
            job.nccl(r, tt + 0.2, "Using network AWS Libfabric")
        else:
            job.nccl(r, tt + 0.2, "NET/Socket : Using [0]eth0:%s<0>" % T.ips[n])
            job.nccl(r, tt + 0.2, "Using network Socket")
        comm = "0x%x" % rng.randrange(0x550000000000, 0x560000000000)
        job.nccl(r, tt + 0.5, "comm %s rank %d nranks %d cudaDev %d nvmlDev %d busId %s commId 0x%x - Init START" % (comm, r, T.world, T.local(r), T.local(r), T.busid(r), cid))
        if r == 0:
            job.nccl(r, tt + 1.0, "Channel 00/%02d :    %s" % (rng.choice([16, 24, 32]), " ".join("%3d" % i for i in range(min(T.world, 16)))))
        job.nccl(r, tt + 1.5, "Connected all rings")
        job.nccl(r, tt + 1.6, "Connected all trees")
        job.nccl(r, tt + 2.0 + rng.uniform(0, 1.5), "comm %s rank %d nranks %d cudaDev %d nvmlDev %d busId %s commId 0x%x - Init COMPLETE" % (comm, r, T.world, T.local(r), T.local(r), T.busid(r), cid))


def startup_warnings(job, t, sample):
    T = job.T
    rng = job.rng
    site = T.site
    pool = [
        ("%s/torch/utils/checkpoint.py" % site, 464, "UserWarning", "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. In version 2.4 we will raise an exception if use_reentrant is not passed. use_reentrant=False is recommended, but if you need to preserve the current default behavior, you can pass use_reentrant=True. Refer to docs for more details on the differences between the two variants.", "warnings.warn("),
        ("%s/torch/distributed/fsdp/_state_dict_utils.py" % site, 773, "UserWarning", "When using ``NO_SHARD`` for ``ShardingStrategy``, full_state_dict will be returned.", "warnings.warn("),
        ("%s/torch/cuda/amp/grad_scaler.py" % site, 125, "FutureWarning", "`torch.cuda.amp.GradScaler(args...)` is deprecated. Please use `torch.amp.GradScaler('cuda', args...)` instead.", "warnings.warn("),
        ("%s/transformers/training_args.py" % site, 1525, "FutureWarning", "`evaluation_strategy` is deprecated and will be removed in version 4.46 of 🤗 Transformers. Use `eval_strategy` instead", "warnings.warn("),
        ("%s/torch/distributed/fsdp/fully_sharded_data_parallel.py" % site, 690, "FutureWarning", "FSDP.state_dict_type() and FSDP.set_state_dict_type() are being deprecated. Please use APIs, get_state_dict() and set_state_dict(), which can support different parallelisms, FSDP1, FSDP2, DDP. API doc: https://pytorch.org/docs/stable/distributed.checkpoint.html#torch.distributed.checkpoint.state_dict.get_state_dict .Tutorial: https://pytorch.org/tutorials/recipes/distributed_checkpoint_recipe.html .", "warnings.warn("),
        ("%s/torch/_dynamo/eval_frame.py" % site, 600, "UserWarning", "torch.utils._pytree._register_pytree_node is deprecated. Please use torch.utils._pytree.register_pytree_node instead.", "torch.utils._pytree._register_pytree_node("),
    ]
    if T.fw == "lightning":
        pool.append(("%s/lightning/pytorch/trainer/connectors/logger_connector/result.py" % site, 431, "PossibleUserWarning",
                     "It is recommended to use `self.log('val_loss', ..., sync_dist=True)` when logging on epoch level in distributed setting to accumulate the metric across devices.", "warning_cache.warn("))
    picks = rng.sample(pool, 2)
    for r in sample:
        for i, (p, ln, cat, msg, code) in enumerate(picks):
            job.pywarn(r, t + i * 0.5 + r * 0.001, p, ln, cat, msg, code)
    if rng.random() < 0.4:
        for r in sample[:8]:
            job.cxx(r, t + 2 + r * 0.01, "W", "ProcessGroupNCCL.cpp:%d" % rng.choice([4115, 4164, 3933]),
                    "[PG ID 0 PG GUID 0 Rank %d]  using GPU %d to perform barrier as devices used by this process are currently unknown. This can potentially cause a hang if this rank to GPU mapping is incorrect.Specify device_ids in barrier() to force use of a particular device,or call init_process_group() with a device_id." % (r, T.local(r)) if T.tv >= (2, 4) else
                    "Rank %d using GPU %d to perform barrier as devices used by this process are currently unknown. This can potentially cause a hang if this rank to GPU mapping is incorrect.Specify device_ids in barrier() to force use of a particular device." % (r, T.local(r)))


def train_line(job, t, step, st):
    """One progress log line for rank 0 (framework styled)."""
    T = job.T
    rng = job.rng
    loss = metrics_loss(job, step)
    lr = job.lr * (0.1 + 0.9 * (1 - step / job.total_steps))
    fw = T.fw
    if fw == "hf":
        ep = job.epochs * step / job.total_steps
        if job.tqdm_style:
            bar = tqdm_bar(step, job.total_steps, step * st, st)
            job.out(0, t, bar, err=True)
        job.out(0, t + 0.01, "{'loss': %.4f, 'grad_norm': %.4f, 'learning_rate': %.4e, 'epoch': %.2f}" % (loss, rng.uniform(0.2, 1.5), lr, ep))
    elif fw == "custom":
        mem = T.gpu_mem * rng.uniform(0.7, 0.92)
        tps = job.tokens_ps * rng.uniform(0.95, 1.04) * (1.0 / max(job.slow.values()) if job.slow else 1.0)
        job.log(0, t, "step: %d  loss: %8.4f  memory: %.2fGiB(%.2f%%)  tps: %s  tflops: %.2f  mfu: %.2f%%" % (
            step, loss, mem, 100 * mem / T.gpu_mem, "{:,}".format(int(tps)), job.mfu * 9.89 * tps / job.tokens_ps, job.mfu * tps / job.tokens_ps))
    elif fw == "megatron":
        gbs = T.world * 8
        job.out(0, t, " [%s] iteration %8d/%8d | consumed samples: %12d | elapsed time per iteration (ms): %.1f | throughput per GPU (TFLOP/s/GPU): %.1f | learning rate: %.6E | global batch size: %5d | lm loss: %.6E | loss scale: 1.0 | grad norm: %.3f | number of skipped iterations:   0 | number of nan iterations:   0 |" % (
            t_sec(job.clkr(0, t)), step, job.total_steps, step * gbs, st * 1000 * rng.uniform(0.98, 1.02), job.mfu * 9.89 * rng.uniform(0.97, 1.02), lr, gbs, loss, rng.uniform(0.2, 1.2)))
    else:  # lightning
        spe = max(1, job.total_steps // job.epochs)
        ep = min(job.epochs - 1, step // spe)
        n = step - ep * spe
        job.out(0, t, "Epoch %d: %s" % (ep, tqdm_bar(n, spe, n * st, st, post=", v_num=%d, train_loss=%.3f" % (job.vnum, loss))), err=True)


def train_range(job, t, s_from, s_to, evals=True, saves=True, slow_ranks=None):
    """Emit training progress for steps (s_from, s_to]. Returns t."""
    st = job.step_time
    step = s_from - s_from % job.log_every
    first = True
    while step < s_to:
        step = min(s_to, step + job.log_every)
        t += job.log_every * st * job.rng.uniform(0.97, 1.03)
        job.step_t[step] = t
        if step >= job.vis_start or not job.head_trim:
            if step >= job.vis_start or first or step % (job.log_every * 25) == 0:
                train_line(job, t, step, st)
                first = False
        if job.straggle_hook:
            job.straggle_hook(job, t, step)
        if evals and step % job.eval_every == 0 and step < job.total_steps:
            t = eval_phase(job, t, step)
        if saves and step % job.save_every == 0 and step < job.total_steps:
            t = save_phase(job, t, step)
    job.step = s_to
    return t


def eval_phase(job, t, step, final=False, rank0_only=False, body=None):
    """train -> eval -> train switch. body(job, t) can inject trouble in the middle."""
    T = job.T
    rng = job.rng
    fw = T.fw
    neval = rng.choice([20, 32, 40, 63, 125])
    dur = neval * job.step_time * 0.35
    if fw == "hf":
        job.log(0, t, "***** Running Evaluation *****", src="trainer.py:3719")
        job.log(0, t, "  Num examples = %d" % (neval * 8 * T.world), src="trainer.py:3721")
        job.log(0, t, "  Batch size = 8", src="trainer.py:3724")
    elif fw == "custom":
        job.log(0, t, "Running validation at step %d (%d batches)" % (step, neval), src="eval")
    elif fw == "lightning":
        pass
    if body:
        return body(job, t, neval, dur)
    t2 = t + dur
    if fw == "hf":
        if job.tqdm_style:
            job.out(0, t2, tqdm_bar(neval, neval, dur, dur / neval), err=True)
        job.out(0, t2 + 0.1, "{'eval_loss': %.4f, 'eval_runtime': %.2f, 'eval_samples_per_second': %.3f, 'eval_steps_per_second': %.3f, 'epoch': %.2f}" % (
            metrics_loss(job, step) * 1.03, dur, neval * 8 * T.world / dur, neval / dur, job.epochs * step / job.total_steps))
    elif fw == "custom":
        job.log(0, t2, "validation: step %d  loss %.4f  ppl %.3f  (%.1fs)" % (step, metrics_loss(job, step) * 1.03, 2.718 ** (metrics_loss(job, step) * 1.03), dur), src="eval")
    elif fw == "megatron":
        v = metrics_loss(job, step) * 1.02
        s = " validation loss at iteration %d | lm loss value: %.6E | lm loss PPL: %.6E | " % (step, v, 2.718281828 ** v)
        job.out(0, t2, "-" * (len(s) + 1) + "\n" + s + "\n" + "-" * (len(s) + 1))
    else:
        job.out(0, t2, "Validation DataLoader 0: %s" % tqdm_bar(neval, neval, dur, dur / neval), err=True)
    return t2 + rng.uniform(0.5, 3)


def save_phase(job, t, step, final=False, body=None):
    """Checkpoint save. body(job, t) -> t can inject trouble after the 'saving' banner."""
    T = job.T
    rng = job.rng
    fw = T.fw
    path = ckpt_name(job, step, final)
    dur = rng.uniform(15, 120) * (1 + T.world / 256.0)
    if fw == "hf":
        job.log(0, t, "Saving model checkpoint to %s" % path, src="trainer.py:3478")
    elif fw == "custom":
        job.log(0, t, "Saving the checkpoint (or staging if async is enabled) to %s." % path, src="checkpoint")
    elif fw == "megatron":
        job.out(0, t, "saving checkpoint at iteration %8d to %s in torch_dist format" % (step, T.ckpt_path))
    if body:
        return body(job, t, path, dur)
    if T.launcher == "deepspeed" and fw == "hf":
        per_rank_ds_save(job, t, step, dur)
    t2 = t + dur
    if fw == "hf":
        job.log(0, t2 - dur * 0.5, "Configuration saved in %s/config.json" % path, src="configuration_utils.py:472")
        job.log(0, t2 - dur * 0.1, "The model is bigger than the maximum size per checkpoint (5GB) and is going to be split in %d checkpoint shards. You can find where each parameters has been saved in the index located at %s/model.safetensors.index.json." % (rng.randint(2, 6), path), src="modeling_utils.py:2598")
        job.log(0, t2, "tokenizer config file saved in %s/tokenizer_config.json" % path, src="tokenization_utils_base.py:2702")
    elif fw == "custom":
        job.log(0, t2, "Finished saving the checkpoint (or staging if async is enabled)in %.2f seconds." % dur, src="checkpoint")
    elif fw == "megatron":
        job.out(0, t2, "  successfully saved checkpoint from iteration %8d to %s [ t 1/%d, p 1/1 ]" % (step, T.ckpt_path, min(8, T.gpn)))
        job.out(0, t2 + 0.01, "(min, max) time across ranks (ms):\n    save-checkpoint ................................: (%.2f, %.2f)" % (dur * 1000 - rng.uniform(1, 50), dur * 1000))
    else:
        job.out(0, t2, "Epoch %d, global step %d: 'val_loss' reached %.5f (best %.5f), saving model to '%s' as top 1" % (
            min(job.epochs - 1, step * job.epochs // job.total_steps), step, metrics_loss(job, step), metrics_loss(job, step), path), err=True)
    return t2 + 0.5


def ckpt_name(job, step, final=False):
    T = job.T
    fw = T.fw
    if fw == "hf":
        return "%s/checkpoint-%d" % (T.ckpt_path, step) if not final else T.ckpt_path
    if fw == "custom":
        return "%s/step-%d" % (T.ckpt_path, step)
    if fw == "megatron":
        return "%s/iter_%07d" % (T.ckpt_path, step)
    return "%s/epoch=%d-step=%d.ckpt" % (T.ckpt_path, max(0, job.epochs - 1), step)


def per_rank_ds_save(job, t, step, dur, skip=()):
    T = job.T
    rs = list(range(T.world)) if T.world <= 64 else list(range(0, T.world, max(1, T.world // 64)))
    job.out(0, t, "[%s] [INFO] [logging.py:96:log_dist] [Rank 0] [Torch] Checkpoint global_step%d is about to be saved!" % (t_py(job.clkr(0, t)), step))
    for r in rs:
        if r in skip:
            continue
        tt = t + dur * job.rng.uniform(0.5, 0.98)
        job.out(r, tt, "[%s] [INFO] [torch_checkpoint_engine.py:23:save] [Torch] Saved %s/global_step%d/bf16_zero_pp_rank_%d_mp_rank_00_optim_states.pt." % (
            t_py(job.clkr(r, tt)), ckpt_name(job, step), step, r))
    if not skip:
        job.out(0, t + dur, "[%s] [INFO] [torch_checkpoint_engine.py:33:commit] [Torch] Checkpoint global_step%d is ready now!" % (t_py(job.clkr(0, t + dur)), step))


def train_end_banner(job, t):
    T = job.T
    rng = job.rng
    fw = T.fw
    runtime = (job.total_steps - (job.resume_from or 0)) * job.step_time
    if fw == "hf":
        job.out(0, t, "\n\nTraining completed. Do not forget to share your model on huggingface.co/models =)\n\n", err=False)
        job.out(0, t + 0.1, "{'train_runtime': %.4f, 'train_samples_per_second': %.3f, 'train_steps_per_second': %.3f, 'train_loss': %.6f, 'epoch': %.1f}" % (
            runtime, T.world * 8 / job.step_time, 1 / job.step_time, job.loss * 0.9, float(job.epochs)))
    elif fw == "custom":
        job.log(0, t, "Training completed at step %d (%.1f h)" % (job.total_steps, runtime / 3600))
    elif fw == "megatron":
        job.out(0, t, "[after training is done] datetime: %s " % t_sec(job.clkr(0, t)))
    else:
        job.out(0, t, "`Trainer.fit` stopped: `max_epochs=%d` reached." % job.epochs, err=True)
    return t + 0.5


# ============================================================================= traceback frames
def fr_entry(job):
    T = job.T
    wd, s, sc = T.workdir, T.site, T.script
    fw = T.fw
    if fw == "hf":
        return [("%s/%s" % (wd, sc), 318, "<module>", "main()", "main()")]
    if fw == "custom":
        fr = [("%s/%s" % (wd, sc), 541, "<module>", "main()", "main()")]
        if job.rng.random() < 0.5:
            fr.append(("%s/torch/distributed/elastic/multiprocessing/errors/__init__.py" % s, 355 if T.tv >= (2, 4) else 346, "wrapper", "return f(*args, **kwargs)", "f(*args, **kwargs)"))
        return fr
    if fw == "megatron":
        return [("%s/%s" % (wd, sc), 233, "<module>", "pretrain(", None)]
    return [("%s/%s" % (wd, sc), 96, "<module>", "trainer.fit(model, datamodule=dm, ckpt_path=\"last\")", None),
            ("%s/lightning/pytorch/trainer/trainer.py" % s, 538, "fit", "call._call_and_handle_interrupt(", None),
            ("%s/lightning/pytorch/trainer/call.py" % s, 46, "_call_and_handle_interrupt", "return trainer.strategy.launcher.launch(trainer_fn, *args, trainer=trainer, **kwargs)", None),
            ("%s/lightning/pytorch/strategies/launchers/subprocess_script.py" % s, 105, "launch", "return function(*args, **kwargs)", None),
            ("%s/lightning/pytorch/trainer/trainer.py" % s, 574, "_fit_impl", "self._run(model, ckpt_path=ckpt_path)", None),
            ("%s/lightning/pytorch/trainer/trainer.py" % s, 981, "_run", "results = self._run_stage()", None),
            ("%s/lightning/pytorch/trainer/trainer.py" % s, 1025, "_run_stage", "self.fit_loop.run()", None)]


def fr_phase(job, phase):
    """Frames from entry down to the framework call that does `phase`."""
    T = job.T
    wd, s, sc = T.workdir, T.site, T.script
    fw = T.fw
    fr = fr_entry(job)
    if fw == "hf":
        main = ("%s/%s" % (wd, sc), 0, "main", "", None)
        if phase in ("train", "save", "eval", "dataload"):
            fr.append(("%s/%s" % (wd, sc), 290, "main", "train_result = trainer.train(resume_from_checkpoint=checkpoint)", None))
            fr.append(("%s/transformers/trainer.py" % s, 1938, "train", "return inner_training_loop(", None))
            if phase == "train":
                fr.append(("%s/transformers/trainer.py" % s, 2279, "_inner_training_loop", "tr_loss_step = self.training_step(model, inputs)", None))
                fr.append(("%s/transformers/trainer.py" % s, 3349, "training_step", "self.accelerator.backward(loss, **kwargs)", None))
            elif phase == "dataload":
                fr.append(("%s/transformers/trainer.py" % s, 2230, "_inner_training_loop", "for step, inputs in enumerate(epoch_iterator):", None))
                fr.append(("%s/accelerate/data_loader.py" % s, 454, "__iter__", "current_batch = next(dataloader_iter)", None))
            else:
                fr.append(("%s/transformers/trainer.py" % s, 2356, "_inner_training_loop", "self._maybe_log_save_evaluate(tr_loss, grad_norm, model, trial, epoch, ignore_keys_for_eval)", None))
                if phase == "save":
                    fr.append(("%s/transformers/trainer.py" % s, 2807, "_maybe_log_save_evaluate", "self._save_checkpoint(model, trial, metrics=metrics)", None))
                    fr.append(("%s/transformers/trainer.py" % s, 2890, "_save_checkpoint", "self.save_model(output_dir, _internal_call=True)", None))
                else:
                    fr.append(("%s/transformers/trainer.py" % s, 2765, "_maybe_log_save_evaluate", "metrics = self._evaluate(trial, ignore_keys_for_eval)", None))
                    fr.append(("%s/transformers/trainer.py" % s, 2722, "_evaluate", "metrics = self.evaluate(ignore_keys=ignore_keys_for_eval)", None))
                    fr.append(("%s/transformers/trainer.py" % s, 3666, "evaluate", "output = eval_loop(", None))
        elif phase == "final_save":
            fr.append(("%s/%s" % (wd, sc), 301, "main", "trainer.save_model()  # Saves the tokenizer too for easy upload", None))
        elif phase == "final_eval":
            fr.append(("%s/%s" % (wd, sc), 307, "main", "metrics = trainer.evaluate()", "trainer.evaluate()"))
            fr.append(("%s/transformers/trainer.py" % s, 3666, "evaluate", "output = eval_loop(", None))
        elif phase == "upload":
            fr.append(("%s/%s" % (wd, sc), 315, "main", "trainer.push_to_hub(**kwargs)", "trainer.push_to_hub(**kwargs)"))
            fr.append(("%s/transformers/trainer.py" % s, 4365, "push_to_hub", "return upload_folder(", None))
            fr.append(("%s/huggingface_hub/utils/_validators.py" % s, 114, "_inner_fn", "return fn(*args, **kwargs)", None))
            fr.append(("%s/huggingface_hub/hf_api.py" % s, 1286, "_inner", "return fn(self, *args, **kwargs)", None))
            fr.append(("%s/huggingface_hub/hf_api.py" % s, 4948, "upload_folder", "commit_info = self.create_commit(", None))
        elif phase == "teardown":
            fr.append(("%s/%s" % (wd, sc), 316, "main", "dist.destroy_process_group()", None))
        return fr
    if fw == "custom":
        fr.append(("%s/%s" % (wd, sc), 529, "main", "trainer.train()", "trainer.train()"))
        if phase in ("train", "save", "eval", "dataload"):
            if phase == "train":
                fr.append(("%s/trainer/loop.py" % wd, 402, "train", "self.train_step(data_iterator)", None))
                fr.append(("%s/trainer/loop.py" % wd, 331, "train_step", "loss.backward()", None))
            elif phase == "dataload":
                fr.append(("%s/trainer/loop.py" % wd, 395, "train", "batch = next(data_iterator)", None))
            elif phase == "save":
                fr.append(("%s/trainer/loop.py" % wd, 421, "train", "self.checkpointer.save(self.step, last_step=(self.step == self.cfg.steps))", None))
            else:
                fr.append(("%s/trainer/loop.py" % wd, 428, "train", "val = self.validate(self.step)", None))
        elif phase in ("final_save",):
            fr.append(("%s/trainer/loop.py" % wd, 448, "train", "self.checkpointer.save(self.step, last_step=True)", None))
        elif phase == "final_eval":
            fr.append(("%s/trainer/loop.py" % wd, 455, "train", "self.final_evaluate()", None))
        elif phase == "upload":
            fr.append(("%s/trainer/loop.py" % wd, 463, "train", "self.export_and_upload()", None))
        elif phase == "teardown":
            fr.append(("%s/trainer/loop.py" % wd, 470, "train", "self.close()", None))
        return fr
    if fw == "megatron":
        fr.append(("%s/megatron/training/training.py" % wd, 311, "pretrain", "iteration, num_floating_point_operations_so_far = train(", None))
        if phase in ("save", "final_save"):
            fr.append(("%s/megatron/training/training.py" % wd, 1381, "train", "save_checkpoint_and_time(iteration, model, optimizer,", None))
            fr.append(("%s/megatron/training/training.py" % wd, 1023, "save_checkpoint_and_time", "save_checkpoint(iteration, model, optimizer, opt_param_scheduler,", None))
        elif phase in ("eval", "final_eval"):
            fr.append(("%s/megatron/training/training.py" % wd, 1410, "train", "evaluate_and_print_results(prefix, forward_step_func,", None))
            fr.append(("%s/megatron/training/training.py" % wd, 1601, "evaluate_and_print_results", "total_loss_dict, collected_non_loss_data, timelimit = evaluate(", None))
        elif phase == "dataload":
            fr.append(("%s/megatron/training/training.py" % wd, 1298, "train", "train_step(forward_step_func,", None))
            fr.append(("%s/megatron/training/training.py" % wd, 703, "train_step", "losses_reduced = forward_backward_func(", None))
            fr.append(("%s/megatron/core/pipeline_parallel/schedules.py" % wd, 434, "forward_backward_no_pipelining", "output_tensor, num_tokens = forward_step(", None))
            fr.append(("%s/pretrain_gpt.py" % wd, 154, "forward_step", "tokens, labels, loss_mask, attention_mask, position_ids = get_batch(", None))
        else:
            fr.append(("%s/megatron/training/training.py" % wd, 1298, "train", "train_step(forward_step_func,", None))
            fr.append(("%s/megatron/training/training.py" % wd, 703, "train_step", "losses_reduced = forward_backward_func(", None))
        return fr
    # lightning
    fr.append(("%s/lightning/pytorch/loops/fit_loop.py" % s, 205, "run", "self.advance()", None))
    if phase in ("save", "final_save"):
        fr.append(("%s/lightning/pytorch/loops/fit_loop.py" % s, 373, "advance", "self.epoch_loop.run(self._data_fetcher)", None))
        fr.append(("%s/lightning/pytorch/loops/training_epoch_loop.py" % s, 141, "run", "self.on_advance_end(data_fetcher)", None))
        fr.append(("%s/lightning/pytorch/loops/training_epoch_loop.py" % s, 295, "on_advance_end", "self.val_loop.run()", None))
        fr.append(("%s/lightning/pytorch/loops/utilities.py" % s, 179, "_decorator", "return loop_run(self, *args, **kwargs)", None))
        fr.append(("%s/lightning/pytorch/loops/evaluation_loop.py" % s, 142, "run", "return self.on_run_end()", None))
        fr.append(("%s/lightning/pytorch/callbacks/model_checkpoint.py" % s, 323, "on_validation_end", "self._save_topk_checkpoint(trainer, monitor_candidates)", None))
        fr.append(("%s/lightning/pytorch/callbacks/model_checkpoint.py" % s, 383, "_save_checkpoint", "trainer.save_checkpoint(filepath, self.save_weights_only)", None))
    elif phase in ("eval", "final_eval"):
        fr.append(("%s/lightning/pytorch/loops/fit_loop.py" % s, 373, "advance", "self.epoch_loop.run(self._data_fetcher)", None))
        fr.append(("%s/lightning/pytorch/loops/training_epoch_loop.py" % s, 295, "on_advance_end", "self.val_loop.run()", None))
        fr.append(("%s/lightning/pytorch/loops/evaluation_loop.py" % s, 135, "run", "self._evaluation_step(batch, batch_idx, dataloader_idx, dataloader_iter)", None))
    else:
        fr.append(("%s/lightning/pytorch/loops/fit_loop.py" % s, 373, "advance", "self.epoch_loop.run(self._data_fetcher)", None))
        fr.append(("%s/lightning/pytorch/loops/training_epoch_loop.py" % s, 140, "run", "self.advance(data_fetcher)", None))
    return fr


def fr_torch_save(job):
    s = job.T.site
    return [("%s/torch/serialization.py" % s, 850 if job.T.tv >= (2, 3) else 628, "save", "_save(", None),
            ("%s/torch/serialization.py" % s, 1114 if job.T.tv >= (2, 3) else 862, "_save", "zip_file.write_record(name, storage, num_bytes)", None)]


def fr_torch_save_ctx(job):
    s = job.T.site
    return [("%s/torch/serialization.py" % s, 849 if job.T.tv >= (2, 3) else 627, "save", "with _open_zipfile_writer(f) as opened_zipfile:", None),
            ("%s/torch/serialization.py" % s, 690 if job.T.tv >= (2, 3) else 475, "__exit__", "self.file_like.write_end_of_file()", None)]


def fr_coll(job, fn="all_reduce", call="work = group.allreduce([tensor], opts)"):
    s = job.T.site
    fr = []
    if job.T.tv >= (2, 2):
        fr.append(("%s/torch/distributed/c10d_logger.py" % s, 83 if job.T.tv >= (2, 4) else 75, "wrapper", "return func(*args, **kwargs)", None))
    fr.append(("%s/torch/distributed/distributed_c10d.py" % s, {"all_reduce": 2501, "barrier": 4166, "broadcast": 2417, "all_gather_into_tensor": 3207, "all_gather_object": 2812}.get(fn, 2501), fn, call, None))
    return fr


def fr_dcp_save(job):
    s = job.T.site
    return [("%s/trainer/checkpoint.py" % job.T.workdir, 233, "save", "dcp.save(state_dict, checkpoint_id=checkpoint_id)", None),
            ("%s/torch/distributed/checkpoint/logger.py" % s, 83, "wrapper", "result = func(*args, **kwargs)", None),
            ("%s/torch/distributed/checkpoint/utils.py" % s, 429, "inner_func", "return func(*args, **kwargs)", None),
            ("%s/torch/distributed/checkpoint/state_dict_saver.py" % s, 152, "save", "return _save_state_dict(", None),
            ("%s/torch/distributed/checkpoint/state_dict_saver.py" % s, 339, "_save_state_dict", "return distW.all_reduce(\"write\", write_data, finish_checkpoint)", None),
            ("%s/torch/distributed/checkpoint/utils.py" % s, 222, "all_reduce", "raise result", None)]


CXX_FRAMES_TIMEOUT = [
    ("c10::Error::Error(c10::SourceLocation, std::string) + 0x96", "libc10.so"),
    ("c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >) + 0x1d2", "libtorch_cuda.so"),
    ("c10d::ProcessGroupNCCL::watchdogHandler() + 0x233", "libtorch_cuda.so"),
    ("c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d", "libtorch_cuda.so"),
    ("<unknown function> + 0x145c0", "libtorch.so"),
    ("<unknown function> + 0x94ac3", "libc.so.6"),
    ("<unknown function> + 0x126850", "libc.so.6"),
]


def cxx_frames(job, frames, where):
    rng = job.rng
    out = ["Exception raised from %s (most recent call first):" % where]
    for i, (fn, lib) in enumerate(frames):
        path = "/lib/x86_64-linux-gnu/%s" % lib if lib.startswith("libc.") else "%s/torch/lib/%s" % (job.T.site, lib)
        out.append("frame #%d: %s (%s in %s)" % (i, fn, hexaddr(rng), path))
    return out


def pg_prefix(job, r, pg=0):
    tv = job.T.tv
    if tv >= (2, 5):
        return "[PG ID %d PG GUID %d%s Rank %d]" % (pg, pg, "(default_pg)" if pg == 0 else "", r)
    if tv >= (2, 2):
        return "[PG %d Rank %d]" % (pg, r)
    return "[Rank %d]" % r


# ============================================================================= collateral helpers
def watchdog(job, r, t, seq, op, numel, numel_out=None, full=True, le=None, ld=None, pg=0, timeout_ms=None):
    """NCCL watchdog timeout on rank r at time t (process aborts: -6)."""
    T = job.T
    rng = job.rng
    tmo = timeout_ms or job.timeout_ms
    ran = tmo + rng.randint(3, 700)
    le = le if le is not None else seq + rng.choice([0, 1, 2])
    ld = ld if ld is not None else seq - 1
    if T.tv >= (2, 1):
        work = "WorkNCCL(SeqNum=%d, OpType=%s, NumelIn=%d, NumelOut=%d, Timeout(ms)=%d)" % (seq, op, numel, numel_out if numel_out is not None else numel, tmo)
    else:
        work = "WorkNCCL(SeqNum=%d, OpType=%s, Timeout(ms)=%d)" % (seq, op, tmo)
    m1 = "[Rank %d] Watchdog caught collective operation timeout: %s ran for %d milliseconds before timing out." % (r, work, ran)
    pgp = pg_prefix(job, r, pg)
    if T.tv >= (2, 2):
        src = ("616", "1785", "1834", "630", "636", "1595") if T.tv >= (2, 4) else ("563", "1537", "1537", "577", "583", "1414")
        job.cxx(r, t, "E", "ProcessGroupNCCL.cpp:%s" % src[0], m1)
        if not full:
            job.cxx(r, t + 0.01, "E", "ProcessGroupNCCL.cpp:%s" % src[5], "%s Process group watchdog thread terminated with exception: %s" % (pgp, m1))
            job.out(r, t + 0.02, "terminate called after throwing an instance of 'c10::DistBackendError'", err=True)
            job.plan_exit(r, t + rng.uniform(0.1, 1.5), -6)
            return
        job.cxx(r, t + 0.001, "E", "ProcessGroupNCCL.cpp:%s" % src[1], "%s Exception (either an error or timeout) detected by watchdog at work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (pgp, seq, le, ld))
        if T.tv >= (2, 4):
            job.cxx(r, t + 0.002, "E", "ProcessGroupNCCL.cpp:%s" % src[2], "%s Timeout at NCCL work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (pgp, seq, le, ld))
        job.cxx(r, t + 0.003, "E", "ProcessGroupNCCL.cpp:%s" % src[3], "[Rank %d] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data." % r)
        job.cxx(r, t + 0.004, "E", "ProcessGroupNCCL.cpp:%s" % src[4], "[Rank %d] To avoid data inconsistency, we are taking the entire process down." % r)
        job.cxx(r, t + 0.005, "E", "ProcessGroupNCCL.cpp:%s" % src[5], "%s Process group watchdog thread terminated with exception: %s" % (pgp, m1))
        fr = cxx_frames(job, CXX_FRAMES_TIMEOUT, "checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:%d" % (618 if T.tv >= (2, 4) else 565))
        job.out(r, t + 0.006, "\n".join(fr), err=True)
        w = ["terminate called after throwing an instance of 'c10::DistBackendError'",
             "  what():  %s Process group watchdog thread terminated with exception: %s" % (pgp, m1)]
        w += cxx_frames(job, CXX_FRAMES_TIMEOUT, "checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:%d" % (618 if T.tv >= (2, 4) else 565))
        w += ["", ] + cxx_frames(job, [("c10::Error::Error(c10::SourceLocation, std::string) + 0x96", "libc10.so"),
                                       ("<unknown function> + 0xe5aa84", "libtorch_cuda.so"),
                                       ("<unknown function> + 0x145c0", "libtorch.so"),
                                       ("<unknown function> + 0x94ac3", "libc.so.6"),
                                       ("<unknown function> + 0x126850", "libc.so.6")],
                                 "ncclCommWatchdog at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:%d" % (1601 if T.tv >= (2, 4) else 1418))
        job.out(r, t + 0.007, "\n".join(w), err=True)
        if rng.random() < 0.3:
            job.out(r, t + 0.01, "Fatal Python error: Aborted\n\nThread 0x00007f%010x (most recent call first):\n  <no Python frame>\n" % rng.randrange(16 ** 10), err=True)
    else:
        job.cxx(r, t, "E", "ProcessGroupNCCL.cpp:475", m1)
        if full:
            job.cxx(r, t + 0.002, "E", "ProcessGroupNCCL.cpp:489", "Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.")
            job.cxx(r, t + 0.003, "E", "ProcessGroupNCCL.cpp:495", "To avoid data inconsistency, we are taking the entire process down.")
            job.cxx(r, t + 0.004, "E", "ProcessGroupNCCL.cpp:916", "[Rank %d] NCCL watchdog thread terminated with exception: %s" % (r, m1))
        job.out(r, t + 0.006, "terminate called after throwing an instance of 'std::runtime_error'\n  what():  [Rank %d] NCCL watchdog thread terminated with exception: %s" % (r, m1), err=True)
    job.plan_exit(r, t + rng.uniform(0.1, 1.5), -6)


def watchdog_many(job, ranks, t_enter, seq, op, numel, nfull=8, per_rank=None):
    """All `ranks` entered a collective at t_enter and wait until the timeout.
    per_rank: dict rank -> (seq, op, numel) overrides (for mismatches)."""
    rng = job.rng
    tmo = job.timeout_ms / 1000.0
    full_set = set(rng.sample(list(ranks), min(nfull, len(ranks))))
    for r in ranks:
        s, o, nm = (per_rank or {}).get(r, (seq, op, numel))
        watchdog(job, r, t_enter + tmo + rng.uniform(0.0, 2.5), s, o, nm, full=(r in full_set))


NCCL_ERRS = {
    "remote": ("remote process exited or there was a network error", "ncclRemoteError", "A call failed possibly due to a network error or a remote process exiting prematurely."),
    "system": ("unhandled system error (run with NCCL_DEBUG=INFO for details)", "ncclSystemError", "System call (e.g. socket, malloc) or external library call failed or device error. "),
    "cuda": ("unhandled cuda error (run with NCCL_DEBUG=INFO for details)", "ncclUnhandledCudaError", "Call to CUDA function failed."),
    "internal": ("internal error - please report this issue to the NCCL developers", "ncclInternalError", "Internal check failed."),
}


def nccl_async_error(job, r, t, kind, last_error, seq=None, full=True):
    """Watchdog caught an NCCL error (not a timeout). Process aborts."""
    T = job.T
    rng = job.rng
    seq = seq or job.coll_seq
    err, name, desc = NCCL_ERRS[kind]
    msg = "NCCL error: %s, NCCL version %s\n%s: %s\nLast error:\n%s" % (err, T.nccl_ver, name, desc, last_error)
    pgp = pg_prefix(job, r)
    if T.tv >= (2, 2):
        job.cxx(r, t, "E", "ProcessGroupNCCL.cpp:%d" % (1785 if T.tv >= (2, 4) else 1537), "%s Exception (either an error or timeout) detected by watchdog at work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (pgp, seq, seq + rng.choice([0, 1, 3]), seq - 1))
        if full:
            job.cxx(r, t + 0.002, "E", "ProcessGroupNCCL.cpp:%d" % (630 if T.tv >= (2, 4) else 577), "[Rank %d] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data." % r)
            job.cxx(r, t + 0.003, "E", "ProcessGroupNCCL.cpp:%d" % (636 if T.tv >= (2, 4) else 583), "[Rank %d] To avoid data inconsistency, we are taking the entire process down." % r)
        job.cxx(r, t + 0.004, "E", "ProcessGroupNCCL.cpp:%d" % (1595 if T.tv >= (2, 4) else 1414), "%s Process group watchdog thread terminated with exception: %s" % (pgp, msg))
        w = ["terminate called after throwing an instance of 'c10::DistBackendError'", "  what():  %s Process group watchdog thread terminated with exception: %s" % (pgp, msg)]
        if full:
            w += cxx_frames(job, [("c10::Error::Error(c10::SourceLocation, std::string) + 0x96", "libc10.so"),
                                  ("c10d::ProcessGroupNCCL::WorkNCCL::checkAndSetException() + 0x%x" % rng.randrange(0x40, 0x100), "libtorch_cuda.so"),
                                  ("c10d::ProcessGroupNCCL::watchdogHandler() + 0x213", "libtorch_cuda.so"),
                                  ("c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d", "libtorch_cuda.so"),
                                  ("<unknown function> + 0x145c0", "libtorch.so"),
                                  ("<unknown function> + 0x94ac3", "libc.so.6"),
                                  ("<unknown function> + 0x126850", "libc.so.6")],
                            "checkForNCCLErrorsInternal at ../torch/csrc/distributed/c10d/NCCLUtils.cpp:%d" % rng.choice([375, 412]))
        job.out(r, t + 0.006, "\n".join(w), err=True)
    else:
        job.cxx(r, t, "E", "ProcessGroupNCCL.cpp:916", "[Rank %d] NCCL watchdog thread terminated with exception: %s" % (r, msg))
        job.out(r, t + 0.006, "terminate called after throwing an instance of 'std::runtime_error'\n  what():  [Rank %d] NCCL watchdog thread terminated with exception: %s" % (r, msg), err=True)
    job.plan_exit(r, t + rng.uniform(0.05, 1.0), -6)


def dist_backend_exc(job, r, t, kind, last_error, frames, where="ProcessGroupNCCL.cpp:1970"):
    """Python-level torch.distributed.DistBackendError (sync path). Exit 1."""
    T = job.T
    err, name, desc = NCCL_ERRS[kind]
    exc = "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/%s, %s, NCCL version %s\n%s: %s\nLast error:\n%s" % (where, err, T.nccl_ver, name, desc, last_error)
    job.tb(r, t, frames, exc)
    job.plan_exit(r, t + job.rng.uniform(0.5, 3), 1)


def store_reset(job, r, t, n=2, what="Connection reset by peer"):
    """Survivor ranks after the TCPStore host went away (torch >= 2.3)."""
    T = job.T
    if T.tv < (2, 3):
        return
    rng = job.rng
    for i in range(n):
        tt = t + i * rng.uniform(0.8, 1.2)
        job.cxx(r, tt, "W", "TCPStore.cpp:%d" % (125 if T.tv >= (2, 5) else 106),
                "[c10d] recvValue failed on SocketImpl(fd=%d, addr=[%s]:%d, remote=[%s]:%d): %s" % (
                    rng.randrange(40, 130), T.short[T.node_of(r)], rng.randrange(33000, 60999), T.master, T.port, what if i == 0 else "Broken pipe"))
        job.cxx(r, tt + 0.001, "W", "ProcessGroupNCCL.cpp:%d" % (1662 if T.tv >= (2, 5) else 1344),
                "%s Failed to check the \"should dump\" flag on TCPStore, (maybe TCPStore server has shut down too early), with error: %s" % (pg_prefix(job, r), what if i == 0 else "Broken pipe"))


def exit_noise_ok(job, t, destroyed):
    """Harmless scary lines of a job that ended fine. Returns t."""
    T = job.T
    rng = job.rng
    s = T.site
    sample = list(range(T.world)) if T.world <= 16 else sorted(set([0] + rng.sample(range(T.world), 12)))
    if getattr(job, "net", None) and rng.random() < 0.6:
        for r in sample:
            job.nccl(r, t + rng.uniform(0, 0.5), "comm 0x%x rank %d nranks %d cudaDev %d busId %s - %s COMPLETE" % (
                rng.randrange(0x550000000000, 0x560000000000), r, T.world, T.local(r), T.busid(r), "Destroy" if destroyed else "Abort"))
    if not destroyed and T.tv >= (2, 4):
        for r in sample:
            job.cxx(r, t + 0.6 + rng.uniform(0, 0.4), "W", "ProcessGroupNCCL.cpp:%d" % rng.choice([1250, 1168, 1374]),
                    "Warning: WARNING: process group has NOT been destroyed before we destruct ProcessGroupNCCL. On normal program exit, the application should call destroy_process_group to ensure that any pending NCCL operations have finished in this process. In rare cases this process can exit before this point and block the progress of another member of the process group. This constraint has always been present,  but this warning has only been added since PyTorch 2.4 (function operator())")
    picks = rng.sample(["dl_del", "pin_thread", "semaphore", "cudaipc", "wandb", "svc_thread", "atexit"], rng.randint(2, 4))
    for i, p in enumerate(picks):
        tt = t + 1 + i * 0.3
        r = rng.choice(sample)
        if p == "dl_del":
            job.out(r, tt, "Exception ignored in: <function _MultiProcessingDataLoaderIter.__del__ at %s>\nTraceback (most recent call last):\n  File \"%s/torch/utils/data/dataloader.py\", line 1604, in __del__\n    self._shutdown_workers()\n  File \"%s/torch/utils/data/dataloader.py\", line 1568, in _shutdown_workers\n    w.join(timeout=_utils.MP_STATUS_CHECK_INTERVAL)\n  File \"/usr/lib/python%s/multiprocessing/process.py\", line 149, in join\n    res = self._popen.wait(timeout)\n  File \"/usr/lib/python%s/multiprocessing/popen_fork.py\", line 40, in wait\n    if not wait([self.sentinel], timeout):\n  File \"/usr/lib/python%s/multiprocessing/connection.py\", line 931, in wait\n    ready = selector.select(timeout)\n  File \"/usr/lib/python%s/selectors.py\", line 416, in select\n    fd_event_list = self._selector.poll(timeout)\nKeyboardInterrupt: " % (
                hexaddr(rng), s, s, T.py, T.py, T.py, T.py) if rng.random() < 0.3 else
                "Exception ignored in: <function _MultiProcessingDataLoaderIter.__del__ at %s>\nTraceback (most recent call last):\n  File \"%s/torch/utils/data/dataloader.py\", line 1604, in __del__\n    self._shutdown_workers()\n  File \"%s/torch/utils/data/dataloader.py\", line 1587, in _shutdown_workers\n    if w.is_alive():\n  File \"/usr/lib/python%s/multiprocessing/process.py\", line 160, in is_alive\n    assert self._parent_pid == os.getpid(), 'can only test a child process'\nAssertionError: can only test a child process" % (hexaddr(rng), s, s, T.py), err=True)
        elif p == "pin_thread":
            job.out(r, tt, "Exception in thread Thread-%d (_pin_memory_loop):\nTraceback (most recent call last):\n  File \"/usr/lib/python%s/threading.py\", line 1016, in _bootstrap_inner\n    self.run()\n  File \"/usr/lib/python%s/threading.py\", line 953, in run\n    self._target(*self._args, **self._kwargs)\n  File \"%s/torch/utils/data/_utils/pin_memory.py\", line 59, in _pin_memory_loop\n    do_one_step()\n  File \"%s/torch/utils/data/_utils/pin_memory.py\", line 35, in do_one_step\n    r = in_queue.get(timeout=MP_STATUS_CHECK_INTERVAL)\n  File \"/usr/lib/python%s/multiprocessing/queues.py\", line 122, in get\n    return _ForkingPickler.loads(res)\n  File \"%s/torch/multiprocessing/reductions.py\", line 541, in rebuild_storage_fd\n    fd = df.detach()\n  File \"/usr/lib/python%s/multiprocessing/resource_sharer.py\", line 57, in detach\n    with _resource_sharer.get_connection(self._id) as conn:\n  File \"/usr/lib/python%s/multiprocessing/resource_sharer.py\", line 86, in get_connection\n    c = Client(address, authkey=process.current_process().authkey)\n  File \"/usr/lib/python%s/multiprocessing/connection.py\", line 508, in Client\n    answer_challenge(c, authkey)\nConnectionResetError: [Errno 104] Connection reset by peer" % (
                rng.randint(2, 9), T.py, T.py, s, s, T.py, s, T.py, T.py, T.py), err=True)
        elif p == "semaphore":
            job.out(r, tt, "/usr/lib/python%s/multiprocessing/resource_tracker.py:254: UserWarning: resource_tracker: There appear to be %d leaked semaphore objects to clean up at shutdown\n  warnings.warn('resource_tracker: There appear to be %%d '" % (T.py, rng.randint(1, 24)), err=True)
        elif p == "cudaipc":
            job.out(r, tt, "[W CudaIPCTypes.cpp:16] Producer process has been terminated before all shared CUDA tensors released. See Note [Sharing CUDA tensors]", err=True)
        elif p == "wandb":
            job.out(0, tt, "wandb: Waiting for W&B process to finish... (success).\nwandb: \nwandb: Run history:\nwandb:      train/loss █▆▅▄▃▃▂▂▁▁\nwandb: train/grad_norm ▅█▃▂▂▁▁▂▁▁\nwandb: \nwandb: Run summary:\nwandb:      train/loss %.4f\nwandb: \nwandb: 🚀 View run %s at: https://wandb.ai/%s/runs/%s\nwandb: Synced 6 W&B file(s), 0 media file(s), 2 artifact file(s) and 0 other file(s)\nwandb: Find logs at: ./wandb/run-%s-%s/logs" % (
                job.loss * 0.9, T.run_name, rng.choice(["ml-team/llm", "acme/pretrain", "bwang/sft"]), "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(8)), D(t).strftime("%Y%m%d_%H%M%S"), "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(8))), err=True)
        elif p == "svc_thread" and getattr(job, "net", None):
            job.nccl(r, tt, "[Service thread] Error encountered progressing operation=Connect, res=3, closing connection", lvl="WARN")
            job.nccl(r, tt + 0.01, "[Proxy Service %d] Failed to execute operation Close from rank %d, retcode 3" % (T.local(r), r), lvl="WARN")
        elif p == "atexit":
            job.out(r, tt, "Exception ignored in atexit callback: <function _exit_function at %s>\nTraceback (most recent call last):\n  File \"/usr/lib/python%s/multiprocessing/util.py\", line 357, in _exit_function\n    p.join()\n  File \"/usr/lib/python%s/multiprocessing/process.py\", line 149, in join\n    res = self._popen.wait(timeout)\n  File \"/usr/lib/python%s/multiprocessing/popen_fork.py\", line 43, in wait\n    return self.poll(os.WNOHANG if timeout == 0.0 else 0)\n  File \"/usr/lib/python%s/multiprocessing/popen_fork.py\", line 27, in poll\n    pid, sts = os.waitpid(self.pid, flag)\n  File \"%s/torch/utils/data/_utils/signal_handling.py\", line 73, in handler\n    _error_if_any_worker_fails()\nRuntimeError: DataLoader worker (pid %d) is killed by signal: Terminated. " % (
                hexaddr(rng), T.py, T.py, T.py, T.py, s, job.pid[r] + rng.randrange(50, 400)), err=True)
    return t + 3


def all_exit_ok(job, t, spread=2.0):
    for r in range(job.world):
        job.plan_exit(r, t + job.rng.uniform(0.2, spread), 0)
    return t + spread


def barrier_seq(job):
    job.coll_seq += job.rng.randint(3, 40)
    return job.coll_seq


# ============================================================================= launcher / scheduler reactions
SIGNAMES = {6: "SIGABRT", 9: "SIGKILL", 15: "SIGTERM", 11: "SIGSEGV", 7: "SIGBUS", 4: "SIGILL", 1: "SIGHUP", 2: "SIGINT"}


def sig_desc_srun(code):
    if code is None:
        return "Killed"
    if code > 0:
        return "Exited with exit code %d" % code
    return {-9: "Killed", -15: "Terminated", -6: "Aborted (core dumped)", -11: "Segmentation fault (core dumped)", -7: "Bus error (core dumped)"}.get(code, "Killed")


def torchrun_tb(job, n):
    T = job.T
    s = T.site
    if T.launcher == "accelerate":
        fr = [("%s" % T.torchrun_bin.replace("torchrun", "accelerate"), 8, "<module>", "sys.exit(main())", None),
              ("%s/accelerate/commands/accelerate_cli.py" % s, 48, "main", "args.func(args)", None),
              ("%s/accelerate/commands/launch.py" % s, 1159, "launch_command", "multi_gpu_launcher(args)", None),
              ("%s/accelerate/commands/launch.py" % s, 793, "multi_gpu_launcher", "distrib_run.run(args)", None)]
    else:
        fr = [(T.torchrun_bin, 8, "<module>", "sys.exit(main())", None),
              ("%s/torch/distributed/elastic/multiprocessing/errors/__init__.py" % s, 355 if T.tv >= (2, 4) else 346, "wrapper", "return f(*args, **kwargs)", None),
              ("%s/torch/distributed/run.py" % s, 919 if T.tv >= (2, 4) else 812, "main", "run(args)", None)]
    fr += [("%s/torch/distributed/run.py" % s, 910 if T.tv >= (2, 4) else 803, "run", "elastic_launch(", None),
           ("%s/torch/distributed/launcher/api.py" % s, 138 if T.tv >= (2, 4) else 135, "__call__", "return launch_agent(self._config, self._entrypoint, list(args))", None)]
    return fr


def child_failed_block(job, n, root, others):
    """root/others: (t, r, code)"""
    T = job.T
    def ent(i, e):
        t, r, code = e
        tn = T.clk(T.node_of(r), t)
        if code is None or code < 0:
            sig = -(code or -9)
            tb = "Signal %d (%s) received by PID %d" % (sig, SIGNAMES.get(sig, "SIG%d" % sig), job.pid[r])
            ef = "<N/A>"
        elif r in getattr(job, "errfile", {}):
            ef = job.errfile[r][0]
            tb = job.errfile[r][1]
        else:
            ef = "<N/A>"
            tb = "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"
        return ["[%d]:" % i, "  time      : %s" % t_elastic(tn), "  host      : %s" % T.hosts[T.node_of(r)],
                "  rank      : %d (local_rank: %d)" % (r, T.local(r)), "  exitcode  : %d (pid: %d)" % (code if code is not None else -9, job.pid[r]),
                "  error_file: %s" % ef, "  traceback : %s" % tb]
    lines = ["=" * 60, "%s FAILED" % T.script, "-" * 60, "Failures:"]
    if others:
        for i, e in enumerate(others):
            lines += ent(i + 1, e)
    else:
        lines.append("  <NO_OTHER_FAILURES>")
    lines += ["-" * 60, "Root Cause (first observed failure):"] + ent(0, root) + ["=" * 60]
    return lines


def resolve(job):
    L = job.T.launcher
    if L == "srun":
        resolve_srun(job)
    elif L == "deepspeed":
        resolve_ds(job)
    else:
        resolve_torchrun(job)
    if job.death:
        job.t_end = max(v[0] for v in job.death.values())
    else:
        job.t_end = job.t_start + 60
    codes = [job.death.get(r, (0, None))[1] for r in range(job.world)]
    job.failed = any(c != 0 for c in codes)


class _Q:
    def __init__(self):
        self.h = []
        self.c = 0

    def push(self, t, kind, *a):
        self.c += 1
        heapq.heappush(self.h, (t, self.c, kind, a))

    def pop(self):
        return heapq.heappop(self.h)


def _kill(job, r, t, code=-15):
    if r in job.death:
        return False
    if r in job.keep_alive_after and code == -15:
        return False
    job.death[r] = (t, code)
    return True


def resolve_torchrun(job):
    T = job.T
    rng = job.rng
    nn = T.nnodes
    q = _Q()
    for r, (t, c) in sorted(job.plan.items()):
        q.push(t, "w", r, c)
    for (t, kind, info) in job.sched_events:
        q.push(t, kind, info)
    state = ["run"] * nn
    first = [None] * nn
    fails = [[] for _ in range(nn)]
    bar_t = {}
    slurm = T.layout == "slurm_torchrun"
    k8s = T.layout == "k8s_pytorchjob"
    step_killed = [False]
    sched_cancel = [False]
    src_api = "torch/distributed/elastic/multiprocessing/api.py:%d" % (897 if T.tv >= (2, 4) else 726)
    src_agent = "torch/distributed/elastic/agent/server/api.py:%d" % (704 if T.tv >= (2, 4) else 680)
    done = set()

    def sigterm_locals(n, t):
        tt = t
        stuck = []
        for r in T.ranks_of(n):
            if r in job.death:
                continue
            job.alog(n, tt, "W", src_api, "Sending process %d closing signal SIGTERM" % job.pid[r])
            tt += 0.0005
            if not _kill(job, r, t + rng.uniform(0.05, 0.8)):
                stuck.append(r)
        if stuck:
            for r in stuck:
                job.alog(n, t + 30.0, "W", "torch/distributed/elastic/multiprocessing/api.py:%d" % (916 if T.tv >= (2, 4) else 744),
                         "Unable to shutdown process %d via Signals.SIGTERM, forcefully exiting via Signals.SIGKILL" % job.pid[r])
                job.death[r] = (t + 30.05, -9)
            return t + 30.2
        return t + 0.8

    def agent_exit(n, t, code):
        state[n] = "exiting"
        q.push(t, "ax", n, code)

    def check_barrier(t):
        if all(state[m] in ("barrier", "exited_ok") for m in range(nn)):
            for m in range(nn):
                if state[m] == "barrier":
                    if T.tv < (2, 4) or rng.random() < 0.3:
                        job.alog(m, t + 0.01, "I", src_agent.replace(":704", ":%d" % 952).replace(":680", ":%d" % 928), "Done waiting for other agents. Elapsed: %.4f seconds" % (t - bar_t[m]))
                    agent_exit(m, t + rng.uniform(0.02, 0.5), 0)

    def agent_sigterm(n, tt):
        if T.tv >= (2, 3):
            job.alog(n, tt, "W", src_agent, "Received Signals.SIGTERM death signal, shutting down workers")
        else:
            job.agentl(n, tt, "WARNING:torch.distributed.elastic.agent.server.api:Received 15 death signal, shutting down workers")
        state[n] = "failing"
        t2 = sigterm_locals(n, tt + 0.001)
        s = T.site
        fr = torchrun_tb(job, n) + [
            ("%s/torch/distributed/launcher/api.py" % s, 260 if T.tv >= (2, 4) else 255, "launch_agent", "result = agent.run()", None),
            ("%s/torch/distributed/elastic/metrics/api.py" % s, 137 if T.tv >= (2, 4) else 123, "wrapper", "result = f(*args, **kwargs)", None),
            ("%s/torch/distributed/elastic/agent/server/api.py" % s, 711 if T.tv >= (2, 4) else 727, "run", "result = self._invoke_run(role)", None),
            ("%s/torch/distributed/elastic/agent/server/api.py" % s, 870 if T.tv >= (2, 4) else 862, "_invoke_run", "time.sleep(monitor_interval)", None),
            ("%s/torch/distributed/elastic/multiprocessing/api.py" % s, 84 if T.tv >= (2, 4) else 62, "_terminate_process_handler", "raise SignalException(f\"Process {os.getpid()} got signal: {sigval}\", sigval=sigval)", None)]
        job.agentl(n, t2 + 0.02, "\n".join(tb_lines(fr, "torch.distributed.elastic.multiprocessing.api.SignalException: Process %d got signal: 15" % job.apid[n], False, rng)))
        agent_exit(n, t2 + 0.2, 1)

    while q.h:
        t, _, kind, a = q.pop()
        if kind == "w":
            r, code = a
            if r in job.death:
                continue
            job.death[r] = (t, code)
            n = T.node_of(r)
            if state[n] not in ("run", "barrier"):
                continue
            if code != 0:
                fails[n].append((t, r, code))
                if first[n] is None:
                    first[n] = (t, r, code)
                    q.push(t + job.monitor * rng.uniform(0.3, 1.0) + 0.05, "af", n)
            elif state[n] == "run" and all(job.death.get(rr, (0, 1))[1] == 0 for rr in T.ranks_of(n)):
                state[n] = "barrier"
                bar_t[n] = t + 0.1
                if T.tv < (2, 4) or rng.random() < 0.4:
                    job.alog(n, t + 0.1, "I", src_agent.replace(":704", ":%d" % 885).replace(":680", ":%d" % 863), "[default] worker group successfully finished. Waiting 300 seconds for other agents to finish.")
                q.push(t + 300.1 + rng.uniform(0.001, 0.09), "bto", n)
                check_barrier(t + 0.1)
        elif kind == "af":
            n = a[0]
            if state[n] != "run":
                continue
            state[n] = "failing"
            t2 = sigterm_locals(n, t)
            root = first[n]
            others = [e for e in fails[n] if e[1] != root[1] and e[0] <= t]
            tt = max(t2, t) + 0.01
            if job.max_restarts > 0 and job.restart_next:
                job.alog(n, tt, "I", src_agent, "[default] Worker group FAILED. %d/%d attempts left; will restart worker group" % (job.max_restarts, job.max_restarts))
                job.alog(n, tt + 0.01, "I", src_agent, "[default] Stopping worker group")
                state[n] = "restarting"
                job.agent_exit[n] = (tt + 0.5, "restart")
                continue
            job.alog(n, tt, "E", src_api.replace(":897", ":869").replace(":726", ":698"), "failed (exitcode: %d) local_rank: %d (pid: %d) of binary: %s" % (root[2] if root[2] is not None else -9, T.local(root[1]), job.pid[root[1]], T.pybin))
            lines = tb_lines(torchrun_tb(job, n) + [("%s/torch/distributed/launcher/api.py" % T.site, 269 if T.tv >= (2, 4) else 264, "launch_agent", "raise ChildFailedError(", None)],
                             "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ", False, rng)
            lines += child_failed_block(job, n, root, others)
            job.agentl(n, tt + 0.02, "\n".join(lines))
            agent_exit(n, tt + rng.uniform(0.05, 0.6), 1)
        elif kind == "ax":
            n, code = a
            if state[n] in ("exited", "exited_ok", "lost"):
                continue
            state[n] = "exited_ok" if code == 0 else "exited"
            job.agent_exit[n] = (t, code)
            if code != 0:
                if slurm and not sched_cancel[0]:
                    job.schedl(t + 0.3, "srun: error: %s: task %d: Exited with exit code %d" % (T.short[n], n, code))
                    if job.kill_on_bad_exit and not step_killed[0]:
                        step_killed[0] = True
                        q.push(t + 0.5, "sig", "srun")
                if k8s and not step_killed[0]:
                    step_killed[0] = True
                    q.push(t + rng.uniform(2, 15), "sig", "k8s")
            if n == 0 and nn > 1:
                for m in range(1, nn):
                    if state[m] == "run":
                        q.push(t + rng.uniform(0.5, 6), "arz", m)
                    elif state[m] == "barrier":
                        q.push(t + rng.uniform(0.5, 2), "bto", m)
                # workers on the other nodes lose the TCPStore (torch >= 2.3)
                alive = [r for r in range(T.world) if r not in job.death and T.node_of(r) != 0]
                for r in alive[:24]:
                    store_reset(job, r, t + rng.uniform(0.5, 3), n=rng.randint(1, 3))
            check_barrier(t)
        elif kind == "arz":
            m = a[0]
            if state[m] != "run":
                continue
            state[m] = "failing"
            nm = T.short[m]
            if T.tv >= (2, 3):
                job.agentl(m, t, "[W%s TCPStore.cpp:%d] [c10d] recvValue failed on SocketImpl(fd=%d, addr=[%s]:%d, remote=[%s]:%d): failed to recv, got 0 bytes" % (
                    t_glog(T.clk(m, t), "")[0:], 122, rng.randrange(3, 9), nm, rng.randrange(33000, 60000), T.master, T.port))
            job.alog(m, t + 0.01, "W", "torch/distributed/elastic/rendezvous/dynamic_rendezvous.py:%d" % (1297 if T.tv >= (2, 4) else 1203),
                     "The node '%s_%d_0' has failed to send a keep-alive heartbeat to the rendezvous '%s' due to an error of type RendezvousConnectionError." % (nm, job.apid[m], T.jobid if T.layout.startswith("slurm") else "none"))
            t2 = sigterm_locals(m, t + job.monitor + 0.02)
            s = T.site
            inner = [("%s/torch/distributed/elastic/rendezvous/c10d_rendezvous_backend.py" % s, 113, "_call_store", "return getattr(self._store, store_op)(*args, **kwargs)", None)]
            outer = torchrun_tb(job, m) + [
                ("%s/torch/distributed/launcher/api.py" % s, 260 if T.tv >= (2, 4) else 255, "launch_agent", "result = agent.run()", None),
                ("%s/torch/distributed/elastic/metrics/api.py" % s, 137 if T.tv >= (2, 4) else 123, "wrapper", "result = f(*args, **kwargs)", None),
                ("%s/torch/distributed/elastic/agent/server/api.py" % s, 711 if T.tv >= (2, 4) else 727, "run", "result = self._invoke_run(role)", None),
                ("%s/torch/distributed/elastic/agent/server/api.py" % s, 906 if T.tv >= (2, 4) else 900, "_invoke_run", "num_nodes_waiting = rdzv_handler.num_nodes_waiting()", None),
                ("%s/torch/distributed/elastic/rendezvous/dynamic_rendezvous.py" % s, 1263 if T.tv >= (2, 4) else 1162, "num_nodes_waiting", "self._state_holder.sync()", None),
                ("%s/torch/distributed/elastic/rendezvous/dynamic_rendezvous.py" % s, 437, "sync", "get_response = self._backend.get_state()", None),
                ("%s/torch/distributed/elastic/rendezvous/c10d_rendezvous_backend.py" % s, 75, "get_state", "base64_state: bytes = self._call_store(\"get\", self._key)", None),
                ("%s/torch/distributed/elastic/rendezvous/c10d_rendezvous_backend.py" % s, 115, "_call_store", "raise RendezvousConnectionError(", None)]
            lines = tb_lines(inner, "torch.distributed.DistNetworkError: failed to recv, got 0 bytes", False, rng)
            lines += ["", "The above exception was the direct cause of the following exception:", ""]
            lines += tb_lines(outer, "torch.distributed.elastic.rendezvous.api.RendezvousConnectionError: The connection to the C10d store has failed. See inner exception for details.", False, rng)
            job.agentl(m, t2 + 0.05, "\n".join(lines))
            agent_exit(m, t2 + 0.3, 1)
        elif kind == "sig":
            why = a[0]
            if all(state[m] in ("exited", "exited_ok", "lost") for m in range(nn)):
                continue
            if why not in ("srun", "k8s"):
                # scheduler time limit / preemption: slurmstepd prints (slurm layouts)
                if slurm:
                    job.schedl(t, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO %s ***" % (T.jobid, T.short[0], t_iso(T.clk(0, t)), why))
                    job.schedl(t + 0.001, "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s DUE TO %s ***" % (T.jobid, T.short[0], t_iso(T.clk(0, t)), why))
                    job.schedl(t + 0.01, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.")
                    step_killed[0] = True
                    sched_cancel[0] = True
            elif why == "srun":
                job.schedl(t, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.")
                job.schedl(t + 0.01, "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s ***" % (T.jobid, T.short[0], t_iso(T.clk(0, t))))
            for n in range(nn):
                if state[n] in ("run", "barrier"):
                    agent_sigterm(n, t + rng.uniform(0.01, 0.4))
        elif kind == "nsig":
            n = a[0]
            if state[n] in ("run", "barrier"):
                agent_sigterm(n, t + rng.uniform(0.01, 0.4))
        elif kind == "bto":
            n = a[0]
            if state[n] != "barrier":
                continue
            job.alog(n, t, "E", src_agent.replace(":704", ":%d" % 961).replace(":680", ":%d" % 937), "Error waiting on exit barrier. Elapsed: %.5f seconds" % (t - bar_t[n]))
            s = T.site
            fr = [("%s/torch/distributed/elastic/agent/server/api.py" % s, 954 if T.tv >= (2, 4) else 930, "_exit_barrier", "store_util.barrier(", None),
                  ("%s/torch/distributed/elastic/utils/store.py" % s, 197 if T.tv >= (2, 4) else 78, "barrier", "synchronize(store, data, rank, world_size, key_prefix, barrier_timeout)", None),
                  ("%s/torch/distributed/elastic/utils/store.py" % s, 64, "synchronize", "agent_data = get_all(store, rank, key_prefix, world_size)", None),
                  ("%s/torch/distributed/elastic/utils/store.py" % s, 34, "get_all", "data = store.get(f\"{prefix}{idx}\")", None)]
            job.agentl(n, t + 0.001, "\n".join(tb_lines(fr, "torch.distributed.DistStoreError: Socket Timeout" if t - bar_t[n] > 299 else "torch.distributed.DistNetworkError: failed to recv, got 0 bytes", False, rng)))
            agent_exit(n, t + 0.2, 0)
        elif kind == "nodelost":
            n = a if isinstance(a, int) else a[0]
            was = state[n]
            state[n] = "lost"
            for r in T.ranks_of(n):
                if r not in job.death:
                    job.death[r] = (t, None)
            if n not in job.agent_exit:
                job.agent_exit[n] = (t, None)
            if n == 0 and was in ("run", "barrier", "failing"):
                for m in range(1, nn):
                    if state[m] == "run":
                        q.push(t + rng.uniform(5, 60), "arz", m)
        elif kind == "sigall_direct":
            # everything SIGKILLed (k8s grace period over / host gone)
            for r in range(T.world):
                _kill(job, r, t, -9)
    # anything left alive (should not happen) dies at the end
    for r in range(T.world):
        if r not in job.death:
            job.death[r] = (max([v[0] for v in job.death.values()] + [job.t_start]) + 30, -9)


def resolve_srun(job):
    T = job.T
    rng = job.rng
    q = _Q()
    for r, (t, c) in sorted(job.plan.items()):
        q.push(t, "w", r, c)
    for (t, kind, info) in job.sched_events:
        q.push(t, kind, info)
    killed = [False]
    failed = []

    def kill_all(t, msg_step=True, why=None):
        if why:
            job.schedl(t, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO %s ***" % (T.jobid, T.short[0], t_iso(T.clk(0, t)), why))
            job.schedl(t + 0.001, "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s DUE TO %s ***" % (T.jobid, T.short[0], t_iso(T.clk(0, t)), why))
        if msg_step:
            job.schedl(t, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.")
            if not why:
                job.schedl(t + 0.01, "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s ***" % (T.jobid, T.short[0], t_iso(T.clk(0, t))))
        for r in range(T.world):
            if not _kill(job, r, t + rng.uniform(0.05, 1.5)) and r not in job.death:
                job.death[r] = (t + 32.0, -9)

    while q.h:
        t, _, kind, a = q.pop()
        if kind == "w":
            r, code = a
            if r in job.death:
                continue
            job.death[r] = (t, code)
            if code != 0:
                failed.append((t, r, code))
                if r == 0:
                    alive = [x for x in range(T.world) if x not in job.death]
                    for x in alive[:24]:
                        store_reset(job, x, t + rng.uniform(0.5, 3), n=rng.randint(1, 2))
                if job.kill_on_bad_exit and not killed[0]:
                    killed[0] = True
                    q.push(t + rng.uniform(0.3, 2.0), "kill", None)
        elif kind == "kill":
            kill_all(t)
        elif kind == "sig":
            why = a[0]
            if all(r in job.death for r in range(T.world)):
                continue
            kill_all(t, True, why)
        elif kind == "nodelost":
            n = a if isinstance(a, int) else a[0]
            for r in T.ranks_of(n):
                if r not in job.death:
                    job.death[r] = (t, None)
    for r in range(T.world):
        if r not in job.death:
            job.death[r] = (max([v[0] for v in job.death.values()] + [job.t_start]) + 30, -9)
    # srun per-node error summaries, as tasks end
    if getattr(job, "oom_step", False):
        tt = min(v[0] for v in job.death.values() if v[1] is not None and v[1] != 0) + 0.2
        job.schedl(tt, "slurmstepd: error: Detected %d oom_kill event%s in StepId=%d.0. Some of the step tasks have been OOM Killed." % (job.oom_step, "s" if job.oom_step > 1 else "", T.jobid) if T.tv >= (2, 2) else
                   "slurmstepd: error: Detected %d oom-kill event(s) in step %d.0 cgroup. Some of your processes may have been killed by the cgroup out-of-memory handler." % (job.oom_step, T.jobid), node=T.node_of(job.oom_rank))
    groups = {}
    for r in range(T.world):
        t, c = job.death[r]
        if c == 0:
            continue
        if getattr(job, "oom_step", False) and r == job.oom_rank:
            desc = "Out Of Memory"
        else:
            desc = sig_desc_srun(c)
        key = (T.node_of(r), desc, int(t // 5))
        groups.setdefault(key, []).append((t, r))
    for key in groups:
        n, desc, _ = key
        rs = [r for _, r in groups[key]]
        tt = max(t for t, _ in groups[key]) + 0.05
        job.schedl(tt, "srun: error: %s: task%s %s: %s" % (T.short[n], "s" if len(rs) > 1 else "", ranges(rs), desc))
    first_fail = min([v[0] for v in job.death.values() if v[1] not in (0,)] or [0])
    if killed[0]:
        if T.tv >= (2, 2):
            job.schedl(first_fail + 1.0, "srun: Terminating StepId=%d.0" % T.jobid)
        else:
            job.schedl(first_fail + 1.0, "srun: Terminating job step %d.0" % T.jobid)


def resolve_ds(job):
    T = job.T
    rng = job.rng
    q = _Q()
    for r, (t, c) in sorted(job.plan.items()):
        q.push(t, "w", r, c)
    for (t, kind, info) in job.sched_events:
        q.push(t, kind, info)
    state = ["run"] * T.nnodes
    lnum = rng.choice([(315, 321), (428, 434), (319, 325), (340, 346)])
    okline = rng.choice([351, 347, 368])
    args = "'-u', '%s', '--local_rank=%%d', '--deepspeed', '%s'" % (T.script, rng.choice(["ds_config.json", "configs/zero3.json", "ds_z2_config.json"]))

    def dsl(n, t, lvl, src, msg):
        job.agentl(n, t, "[%s] [%s] [%s] %s" % (t_py(T.clk(n, t)), lvl, src, msg))

    while q.h:
        t, _, kind, a = q.pop()
        if kind == "w":
            r, code = a
            if r in job.death:
                continue
            job.death[r] = (t, code)
            n = T.node_of(r)
            if state[n] != "run":
                continue
            if code == 0:
                dsl(n, t + 0.05, "INFO", "launch.py:%d:main" % okline, "Process %d exits successfully." % job.pid[r])
                if all(job.death.get(x, (0, 1))[1] == 0 for x in T.ranks_of(n)):
                    state[n] = "done"
                    job.agent_exit[n] = (t + 0.2, 0)
            else:
                state[n] = "killing"
                q.push(t + rng.uniform(0.2, 2.0), "dk", n, r, code)
        elif kind == "dk":
            n, r, code = a
            tt = t
            for x in T.ranks_of(n):
                dsl(n, tt, "INFO", "launch.py:%d:sigkill_handler" % lnum[0], "Killing subprocess %d" % job.pid[x])
                _kill(job, x, tt + 0.02)
                if x not in job.death:
                    job.death[x] = (tt + 0.05, -9)
                tt += rng.uniform(0.001, 0.03)
            dsl(n, tt + 0.01, "ERROR", "launch.py:%d:sigkill_handler" % lnum[1], "['%s', %s] exits with return code = %d" % (T.pybin, args % T.local(r), code))
            state[n] = "exited"
            job.agent_exit[n] = (tt + 0.2, code)
            if T.nnodes > 1:
                job.schedl(tt + 0.4, "pdsh@%s: %s: ssh exited with exit code %d" % (T.short[0], T.short[n], code if code > 0 else 1), node=0)
        elif kind == "sig":
            for n in range(T.nnodes):
                if state[n] == "run":
                    tt = t + rng.uniform(0, 0.3)
                    for x in T.ranks_of(n):
                        dsl(n, tt, "INFO", "launch.py:%d:sigkill_handler" % lnum[0], "Killing subprocess %d" % job.pid[x])
                        _kill(job, x, tt + 0.02)
                    r = T.ranks_of(n)[0]
                    dsl(n, tt + 0.05, "ERROR", "launch.py:%d:sigkill_handler" % lnum[1], "['%s', %s] exits with return code = -15" % (T.pybin, args % 0))
                    state[n] = "exited"
                    job.agent_exit[n] = (tt + 0.2, 1)
        elif kind == "nsig":
            n = a[0]
            if state[n] == "run":
                tt = t + rng.uniform(0, 0.3)
                for x in T.ranks_of(n):
                    dsl(n, tt, "INFO", "launch.py:%d:sigkill_handler" % lnum[0], "Killing subprocess %d" % job.pid[x])
                    _kill(job, x, tt + 0.02)
                dsl(n, tt + 0.05, "ERROR", "launch.py:%d:sigkill_handler" % lnum[1], "['%s', %s] exits with return code = -15" % (T.pybin, args % 0))
                state[n] = "exited"
                job.agent_exit[n] = (tt + 0.2, 1)
        elif kind == "nodelost":
            n = a if isinstance(a, int) else a[0]
            was = state[n]
            state[n] = "lost"
            for r in T.ranks_of(n):
                if r not in job.death:
                    job.death[r] = (t, None)
            if T.nnodes > 1 and n != 0:
                job.schedl(t + rng.uniform(1, 20), "pdsh@%s: %s: ssh exited with exit code 255" % (T.short[0], T.short[n]), node=0)
    for r in range(T.world):
        if r not in job.death:
            job.death[r] = (max([v[0] for v in job.death.values()] + [job.t_start]) + 30, -9)


# ============================================================================= scenario helpers
SCEN = {}


def scen(cause, layouts=None, min_nodes=1, nvlink=False, max_nodes=None, single=False):
    def deco(fn):
        SCEN.setdefault(cause, []).append({"name": fn.__name__, "fn": fn, "layouts": layouts, "min_nodes": min_nodes,
                                           "nvlink": nvlink, "max_nodes": max_nodes, "single": single})
        return fn
    return deco


SLURM = ["slurm_torchrun", "slurm_srun"]
ALL_MULTI = ["slurm_torchrun", "slurm_srun", "torchrun_nodes", "torchelastic_logdir", "deepspeed_pdsh", "accelerate", "k8s_pytorchjob"]


def others(job, excl):
    ex = set(excl) if isinstance(excl, (list, tuple, set)) else {excl}
    return [r for r in range(job.world) if r not in ex]


def begin(run, resume_from=None, total=None, t_start=None):
    """New attempt, startup and training up to (not including) the final step work. Returns (job, t)."""
    j = run.new_job(resume_from=resume_from, total=total, t_start=t_start)
    t = fw_startup(j, j.t_start)
    if j.head_trim:
        j.t_vis = None  # computed by train_range via vis_start
    rank_banners(j, j.t_start + 6)
    t0 = t
    t = train_range(j, t, j.resume_from or 0, j.total_steps)
    if j.head_trim:
        frac = (j.vis_start - (j.resume_from or 0)) / max(1, j.total_steps - (j.resume_from or 0))
        j.t_vis = t0 + (t - t0) * frac - 1
    return j, t


def cut_attempt(j0, lo=0.45, hi=0.85):
    """Pick a logged step where attempt j0 stops; drop everything printed after it. Returns (cut_step, t_cut, resume_step)."""
    steps = sorted(s for s in j0.step_t if s > (j0.resume_from or 0))
    lo_i = int(len(steps) * lo)
    hi_i = max(lo_i + 1, int(len(steps) * hi))
    cut = steps[j0.rng.randrange(lo_i, min(hi_i, len(steps)))]
    tl = j0.step_t[cut] + j0.rng.uniform(1, j0.log_every * j0.step_time * 0.9)
    j0.lines = [[x for x in L if x[0] <= tl] for L in j0.lines]
    j0.agent = [[x for x in L if x[0] <= tl] for L in j0.agent]
    if j0.t_vis and j0.t_vis > tl - 600:
        j0.t_vis = None
    resume = cut - cut % j0.save_every
    if resume <= (j0.resume_from or 0):
        resume = j0.resume_from or 0
    return cut, tl, resume


def rank_banners(j, t):
    T = j.T
    if T.fw in ("custom", "megatron") and T.world <= 128 and j.rng.random() < 0.7 and not j.head_trim:
        for r in range(T.world):
            if T.fw == "custom":
                j.log(r, t + r * 0.002, "rank %d/%d (local %d) pid=%d host=%s device=cuda:%d" % (r, T.world, T.local(r), j.pid[r], T.short[T.node_of(r)], T.local(r)), src="dist")
            else:
                j.out(r, t + r * 0.002, "| distributed init (rank %d, pid %d, host %s, local_rank %d): env://" % (r, j.pid[r], T.short[T.node_of(r)], T.local(r)))
        j.banners = True
    else:
        j.banners = False


def exc_exit(j, r, t, frames, exc, code=1, chain=None):
    j.tb(r, t, frames, exc, chain=chain)
    j.plan_exit(r, t + j.rng.uniform(0.3, 2.5), code)
    if not hasattr(j, "errfile"):
        j.errfile = {}
    if j.T.fw == "custom" and any("errors/__init__.py" in f[0] for f in frames):
        T = j.T
        tb = ["Traceback (most recent call last):"]
        for f in frames[1:]:
            tb.append('    File "%s", line %d, in %s' % (f[0], f[1], f[2]))
            if f[3]:
                tb.append("      " + f[3])
        tb.append("  " + exc.split("\n")[0])
        j.errfile[r] = ("/tmp/torchelastic_%s/%s_%s/attempt_%d/%d/error.json" % (
            "".join(j.rng.choice("abcdefghijklmnopqrstuvwxyz0123456789_") for _ in range(8)), T.jobid if T.layout.startswith("slurm") else "none",
            "".join(j.rng.choice("abcdefghijklmnopqrstuvwxyz0123456789_") for _ in range(8)), j.attempt, T.local(r)), "\n".join(tb))


def xid(T, r, t, num, msg, pid=None, name="python"):
    n = T.node_of(r)
    pidv = ("pid=%d, name=%s, " % (pid, name)) if pid else "pid='<unknown>', name=<unknown>, "
    T.kmsg(n, t, "NVRM: Xid (PCI:%s): %d, %s%s" % (T.pci(r), num, pidv, msg))


def wait_all(j, ranks, t_enter, op="ALLREDUCE", numel=1, nfull=6, per_rank=None, seq=None):
    s = seq or barrier_seq(j)
    watchdog_many(j, ranks, t_enter, s, op, numel, nfull=nfull, per_rank=per_rank)
    return s


def final_opts(j):
    rng = j.rng
    j.final_eval = rng.random() < 0.6
    j.eval_rank0 = rng.random() < 0.4
    j.upload = rng.choice([None, None, "hf", "s3"])
    j.destroy = rng.random() < 0.5


def healthy_tail(j, t, skip_save=False):
    """final save -> final eval -> upload -> teardown, all fine."""
    rng = j.rng
    t = train_end_banner(j, t)
    if not skip_save:
        t = save_phase(j, t, j.total_steps, final=True)
    if j.final_eval:
        t = eval_phase(j, t, j.total_steps, final=True)
    if j.upload:
        t = upload_ok(j, t)
    t = exit_noise_ok(j, t, j.destroy)
    return all_exit_ok(j, t)


def upload_ok(j, t, retries=0):
    T = j.T
    rng = j.rng
    if j.upload == "hf":
        repo = "%s/%s" % (rng.choice(["acme-ai", "bwang", "ml-team"]), T.run_name)
        for i in range(retries):
            j.out(0, t + i * 4, "%s/huggingface_hub/utils/_http.py:%d: UserWarning: Request failed (502 Server Error: Bad Gateway for url: https://huggingface.co/api/models/%s/preupload/main). Retrying in %ds [Retry %d/5]." % (T.site, 307, repo, 2 ** i, i + 1), err=True)
        t += retries * 4
        nsh = rng.randint(2, 6)
        for k in range(nsh):
            sz = rng.uniform(3.2, 4.99)
            dur = sz * 1000 / rng.uniform(40, 120)
            j.out(0, t + dur, "model-%05d-of-%05d.safetensors: 100%%|██████████| %.2fG/%.2fG [%s<00:00, %.1fMB/s]" % (k + 1, nsh, sz, sz, hms(dur), sz * 1000 / dur), err=True)
        t += nsh * 60
        j.out(0, t, "Upload %d LFS files: 100%%|██████████| %d/%d [%s<00:00, %.2fs/it]" % (nsh, nsh, nsh, hms(nsh * 60), 60.0), err=True)
        j.log(0, t + 1, "Model pushed to https://huggingface.co/%s" % repo)
    else:
        bucket = rng.choice(["s3://ml-ckpts", "s3://acme-train-artifacts", "s3://team-llm"])
        for i in range(retries):
            j.log(0, t + i * 3, "upload attempt %d failed: Could not connect to the endpoint URL: \"https://%s.s3.us-west-2.amazonaws.com/%s/model.safetensors?uploadId=...\"; retrying in %ds" % (i + 1, bucket[5:], T.run_name, 2 ** (i + 1)), lvl="WARNING", src="upload")
        t += retries * 5
        j.log(0, t + 90, "uploaded %s -> %s/%s/ (%d files, %.1f GiB) in %.0fs" % (T.ckpt_path, bucket, T.run_name, rng.randint(6, 30), rng.uniform(12, 140), rng.uniform(60, 600)), src="upload")
        t += 95
    return t + 1


def attach_dmesg(run, nodes, clean_extra=True):
    run.dmesg_nodes = sorted(set(list(getattr(run, "dmesg_nodes", [])) + list(nodes)))
    T = run.topo
    if clean_extra and T.nnodes > 1 and run.rng.random() < 0.5:
        cand = [n for n in range(T.nnodes) if n not in run.dmesg_nodes]
        if cand:
            run.dmesg_nodes = sorted(run.dmesg_nodes + [run.rng.choice(cand)])


def oom_kill_kernel(T, n, t, pid, cgroup, rss_gb, name="python", jobid=None):
    rng = T.rng
    anon = int(rss_gb * 1024 * 1024)
    T.kmsg(n, t - 0.2, "%s invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0" % name)
    T.kmsg(n, t - 0.19, "CPU: %d PID: %d Comm: %s Tainted: P           OE     5.15.0-%d-generic #%d-Ubuntu" % (rng.randrange(0, 96), pid, name, rng.randrange(80, 130), rng.randrange(80, 140)))
    if cgroup:
        T.kmsg(n, t - 0.1, "memory: usage %dkB, limit %dkB, failcnt %d" % (anon + 12000, anon + 12000, rng.randrange(1, 400)))
        T.kmsg(n, t - 0.09, "oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0-1,oom_memcg=/slurm/uid_%d/job_%s,task_memcg=/slurm/uid_%d/job_%s/step_0/user/task_0,task=%s,pid=%d,uid=%d" % (
            rng.randrange(1000, 60000), jobid or rng.randrange(10 ** 5, 10 ** 6), 1000, jobid or 0, name, pid, 1000))
        T.kmsg(n, t, "Memory cgroup out of memory: Killed process %d (%s) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:%d pgtables:%dkB oom_score_adj:0" % (
            pid, name, anon + rng.randrange(10 ** 7, 6 * 10 ** 7), anon, rng.randrange(100000, 900000), rng.randrange(1000, 90000), rng.randrange(1000, 60000), rng.randrange(10000, 300000)))
    else:
        T.kmsg(n, t - 0.1, "oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0-1,global_oom,task_memcg=/user.slice/user-1000.slice/session-4.scope,task=%s,pid=%d,uid=1000" % (name, pid))
        T.kmsg(n, t, "Out of memory: Killed process %d (%s) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:1000 pgtables:%dkB oom_score_adj:0" % (
            pid, name, anon + rng.randrange(10 ** 7, 6 * 10 ** 7), anon, rng.randrange(100000, 900000), rng.randrange(1000, 90000), rng.randrange(10000, 300000)))
    T.kmsg(n, t + 0.4, "oom_reaper: reaped process %d (%s), now anon-rss:0kB, file-rss:0kB, shmem-rss:%dkB" % (pid, name, rng.randrange(0, 4000)))


def nvsmi_file(run, n, mode, bad_local=None):
    """nvidia-smi output attached by an operator."""
    T = run.topo
    rng = run.rng
    tn = T.clk(n, run.jobs[-1].t_end + rng.uniform(120, 3600)) if run.jobs and run.jobs[-1].t_end else T.t0
    d = D(tn)
    if mode == "lost":
        txt = "$ nvidia-smi\nUnable to determine the device handle for GPU%s.0: Unknown Error\n" % T.pci(bad_local).upper().replace("0000:", "0000:")
        if rng.random() < 0.5:
            txt += "\n$ nvidia-smi -L\n" + "".join("GPU %d: %s (UUID: %s)\n" % (i, T.gpu_name, T.gpu_uuid[n * T.gpn + i]) for i in range(T.gpn) if i != T.local(bad_local))
            txt += "Unable to determine the device handle for gpu %s.0: Unknown Error\n" % T.pci(bad_local)
        return txt
    lines = ["$ nvidia-smi", d.strftime("%a %b %d %H:%M:%S %Y"),
             "+-----------------------------------------------------------------------------------------+",
             "| NVIDIA-SMI 550.%d.%02d             Driver Version: 550.%d.%02d     CUDA Version: 12.4     |" % (54, 15, 54, 15),
             "|-----------------------------------------+------------------------+----------------------+",
             "| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |",
             "| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |",
             "|=========================================+========================+======================|"]
    for i in range(T.gpn):
        r = n * T.gpn + i
        ecc = "0"
        temp = rng.randint(31, 44)
        perf = "P0"
        if mode == "ecc" and r == bad_local:
            ecc = str(rng.randint(1, 12))
        if mode == "hot" and r == bad_local:
            temp = rng.randint(86, 94)
        lines.append("|  %d  %-20s  On  |   %s.0 Off |                    %s |" % (i, T.gpu_name[7:27], T.pci(r).upper(), ecc.rjust(1)))
        cap = "700" if ("H1" in T.gpu_name or "H2" in T.gpu_name) else "400" if "A100" in T.gpu_name else "350" if "L40" in T.gpu_name else "300"
        lines.append(("| N/A   %2dC    %s            %3dW /  " + cap + "W |       1MiB /  %dMiB |      0%%      Default |") % (temp, perf, rng.randint(60, 120), int(T.gpu_mem * 1024)))
        lines.append("|                                         |                        |             Disabled |")
        lines.append("+-----------------------------------------+------------------------+----------------------+")
    if mode == "ecc":
        lines += ["", "$ nvidia-smi -q -i %d -d ROW_REMAPPER" % T.local(bad_local), "", "==============NVSMI LOG==============", "",
                  "GPU %s.0" % T.pci(bad_local).upper(), "    Remapped Rows", "        Correctable Error                 : 0",
                  "        Uncorrectable Error               : %d" % rng.randint(1, 3), "        Pending                           : Yes",
                  "        Remapping Failure Occurred        : %s" % rng.choice(["No", "Yes"]),
                  "        Bank Remap Availability Histogram", "            Max                           : 639 bank(s)",
                  "            High                          : 1 bank(s)", "            Partial                       : 0 bank(s)",
                  "            Low                           : 0 bank(s)", "            None                          : 0 bank(s)"]
    if mode == "hot":
        lines += ["", "$ nvidia-smi -q -i %d -d PERFORMANCE" % T.local(bad_local), "", "==============NVSMI LOG==============", "",
                  "GPU %s.0" % T.pci(bad_local).upper(), "    Clocks Event Reasons",
                  "        Idle                              : Not Active",
                  "        Applications Clocks Setting       : Not Active",
                  "        SW Power Cap                      : Not Active",
                  "        HW Slowdown                       : Active",
                  "            HW Thermal Slowdown           : Active",
                  "            HW Power Brake Slowdown       : Not Active",
                  "        Sync Boost                        : Not Active",
                  "        SW Thermal Slowdown               : Active",
                  "        Display Clock Setting             : Not Active"]
    return "\n".join(lines) + "\n"


def pyspy_dump(j, r, frames, extra_threads=True):
    T = j.T
    lines = ["Process %d: %s -u %s %s" % (j.pid[r], T.pybin, T.script, j.rng.choice(["--config configs/train.yaml", "--deepspeed ds_config.json", "", "--cfg exp.yaml"])),
             "Python v%s.%d (%s)" % (T.py, j.rng.randint(4, 14), T.pybin), "",
             "Thread %d (idle): \"MainThread\"" % j.pid[r]]
    for fn, path in frames:
        lines.append("    %s (%s)" % (fn, path))
    if extra_threads:
        lines += ["Thread %d (idle): \"Thread-%d (_pin_memory_loop)\"" % (j.pid[r] + 211, j.rng.randint(2, 6)),
                  "    wait (threading.py:324)", "    get (queue.py:180)", "    do_one_step (torch/utils/data/_utils/pin_memory.py:35)",
                  "    _pin_memory_loop (torch/utils/data/_utils/pin_memory.py:59)", "    run (threading.py:953)",
                  "    _bootstrap_inner (threading.py:1016)", "    _bootstrap (threading.py:973)",
                  "Thread %d (idle): \"QueueFeederThread\"" % (j.pid[r] + 240),
                  "    wait (threading.py:320)", "    _feed (multiprocessing/queues.py:231)"]
    return "\n".join(lines) + "\n"


def t_final_barrier(j, t):
    return t + j.rng.uniform(0.5, 5)


# ============================================================================= scenarios: gpu_hardware
@scen("gpu_hardware")
def gh_xid79_final_save(run):
    j, t = begin(run)
    T = j.T
    rng = j.rng
    final_opts(j)
    t = train_end_banner(j, t)
    bad = rng.randrange(T.world)
    n = T.node_of(bad)
    def body(j, t, path, dur):
        tf = t + rng.uniform(3, dur * 0.6)
        xid(T, bad, tf, 79, "GPU has fallen off the bus.", pid=None)
        T.kmsg(n, tf + 0.001, "NVRM: GPU %s.0: GPU has fallen off the bus." % T.pci(bad))
        T.kmsg(n, tf + 0.002, "NVRM: GPU at PCI:%s: %s" % (T.pci(bad), T.gpu_uuid[bad]))
        T.kmsg(n, tf + 0.003, "NVRM: GPU Board Serial Number: %d" % rng.randrange(10 ** 12, 10 ** 13))
        T.kmsg(n, tf + 1.5, "NVRM: A GPU crash dump has been created. If possible, please run\nNVRM: nvidia-bug-report.sh as root to collect this data before\nNVRM: the NVIDIA kernel module is unloaded.")
        err = rng.choice(["unspecified launch failure", "unknown error"])
        fr = fr_phase(j, "final_save") + [("%s/torch/distributed/checkpoint/state_dict.py" % T.site, 577, "_get_optim_state_dict", "osd = _state_dict_fn(optim, \"state_dict\")()", None),
                                          ("%s/torch/distributed/fsdp/_optim_utils.py" % T.site, 1381, "_gather_all_orig_param_state", "output_state = _allgather_orig_param_states(", None),
                                          ("%s/torch/distributed/fsdp/_optim_utils.py" % T.site, 1634, "_allgather_orig_param_states", "value = value.to(device=\"cpu\", non_blocking=False)", None)]
        exc_exit(j, bad, tf + rng.uniform(0.2, 3), fr, "RuntimeError: CUDA error: %s\nCUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n" % err)
        wait_all(j, others(j, bad), tf + rng.uniform(0, 4), "_ALLGATHER_BASE", rng.choice([131334144, 262668288, 65667072]))
        return tf
    save_phase(j, t, j.total_steps, final=True, body=body)
    attach_dmesg(run, [n])
    if rng.random() < 0.6:
        run.files["nvidia-smi_%s.txt" % T.short[n]] = ("nvsmi", n, "lost", bad)
    return {"cause": "gpu_hardware", "rank": bad, "node": n,
            "notes": "Training reached the last step; during the final checkpoint save (gathering optimizer state to CPU) GPU %s on %s fell off the bus (Xid 79). Rank %d died with a CUDA error, the others sat in the all-gather until the NCCL watchdog/launcher tore them down." % (T.pci(bad), T.short[n], bad)}


@scen("gpu_hardware")
def gh_xid119_gsp_final_eval(run):
    j, t = begin(run)
    T = j.T
    rng = j.rng
    final_opts(j)
    t = train_end_banner(j, t)
    t = save_phase(j, t, j.total_steps, final=True)
    bad = rng.randrange(T.world)
    n = T.node_of(bad)
    def body(j, t, neval, dur):
        tf = t + rng.uniform(5, dur * 0.7)
        g = T.local(bad)
        xid(T, bad, tf, 119, "Timeout after 6s of waiting for RPC response from GPU%d GSP! Expected function 76 (GSP_RM_CONTROL) (0x20801348 0x4)." % g, pid=j.pid[bad])
        T.kmsg(n, tf + 0.01, "NVRM: GPU%d GSP RPC buffer contains function 76 (GSP_RM_CONTROL) and data 0x0000000020801348 0x0000000000000004." % g)
        T.kmsg(n, tf + 0.02, "NVRM: GPU%d RPC history (CPU -> GSP):" % g)
        T.kmsg(n, tf + 0.03, "NVRM:     entry function                   data0              data1              ts_start           ts_end             duration actively_polling")
        for k in range(rng.randint(1, 3)):
            xid(T, bad, tf + 6 * (k + 1), 119, "Timeout after 6s of waiting for RPC response from GPU%d GSP! Expected function 10 (FREE) (0x5c000007 0x0)." % g, pid=j.pid[bad])
        T.kmsg(n, tf + 40, "NVRM: Rate limiting GSP RPC error prints for GPU at PCI:%s (printing 1 of every 30).  The GPU likely needs to be reset." % T.pci(bad))
        # the bad rank never reaches the eval all-reduce; everybody else waits
        wait_all(j, others(j, bad), tf + rng.uniform(2, 20), "ALLREDUCE", 1)
        j.keep_alive_after.add(bad)
        return tf
    eval_phase(j, t, j.total_steps, final=True, body=body)
    attach_dmesg(run, [n])
    if rng.random() < 0.5:
        run.files["nvidia-smi_%s.txt" % T.short[n]] = ("nvsmi", n, "lost", bad)
    return {"cause": "gpu_hardware", "rank": bad if j.banners else None, "node": n,
            "notes": "Final evaluation after the last checkpoint: GPU%d on %s stopped answering its GSP firmware (Xid 119, pid %d). That rank hung without an error of its own; all other ranks timed out in the eval-loss all-reduce. The hung rank did not exit on SIGTERM." % (T.local(bad), T.short[n], j.pid[bad])}


@scen("gpu_hardware")
def gh_xid62_teardown(run):
    j, t = begin(run)
    T = j.T
    rng = j.rng
    final_opts(j)
    t = train_end_banner(j, t)
    t = save_phase(j, t, j.total_steps, final=True)
    if j.final_eval:
        t = eval_phase(j, t, j.total_steps, final=True)
    bad = rng.randrange(T.world)
    n = T.node_of(bad)
    tf = t + rng.uniform(1, 4)
    xid(T, bad, tf, 62, "%08x %08x %08x %08x %08x %08x %08x %08x" % tuple(rng.randrange(16 ** 8) for _ in range(8)), pid=j.pid[bad])
    T.kmsg(n, tf + 2, "NVRM: GPU at PCI:%s: %s" % (T.pci(bad), T.gpu_uuid[bad]))
    T.kmsg(n, tf + 2.1, "NVRM: Xid (PCI:%s): 154, GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)" % T.pci(bad))
    fr = fr_phase(j, "teardown") + [("%s/torch/distributed/c10d_logger.py" % T.site, 83, "wrapper", "return func(*args, **kwargs)", None),
                                    ("%s/torch/distributed/distributed_c10d.py" % T.site, 1880, "destroy_process_group", "_shutdown_backend(pg_to_shutdown)", None),
                                    ("%s/torch/distributed/distributed_c10d.py" % T.site, 1610, "_shutdown_backend", "backend._shutdown()", None)]
    exc_exit(j, bad, tf + rng.uniform(0.5, 2), fr, "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:%d, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version %s\nncclUnhandledCudaError: Call to CUDA function failed.\nLast error:\nCuda failure 'unspecified launch failure'" % (rng.choice([275, 317]), T.nccl_ver))
    j.nccl(bad, tf + 0.3, "enqueue.cc:%d Cuda failure 'unspecified launch failure'" % rng.choice([1556, 1801]), lvl="WARN")
    tt = exit_noise_ok(j, tf - 2, True)
    for r in others(j, bad):
        j.plan_exit(r, tt + rng.uniform(0, 3), 0)
    attach_dmesg(run, [n])
    return {"cause": "gpu_hardware", "rank": bad, "node": n,
            "notes": "Training, final save and eval all finished; while destroying the process group, GPU %s on %s hit Xid 62 (internal micro-controller halt, GPU reset required). That rank exited 1 with a CUDA failure inside NCCL shutdown, so the whole job was reported failed although the checkpoint is complete." % (T.pci(bad), T.short[n])}




CUDA_ASYNC = "\nCUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n"


def cuda_watchdog_exc(j, r, t, errtxt):
    """CUDA error surfaced by the NCCL watchdog thread (async): abort."""
    T = j.T
    pgp = pg_prefix(j, r)
    msg = "CUDA error: %s%s" % (errtxt, CUDA_ASYNC)
    if T.tv >= (2, 2):
        j.cxx(r, t, "E", "ProcessGroupNCCL.cpp:%d" % (1595 if T.tv >= (2, 4) else 1414), "%s Process group watchdog thread terminated with exception: %s" % (pgp, msg))
    else:
        j.cxx(r, t, "E", "ProcessGroupNCCL.cpp:916", "[Rank %d] NCCL watchdog thread terminated with exception: %s" % (r, msg))
    w = ["terminate called after throwing an instance of 'c10::DistBackendError'" if T.tv >= (2, 2) else "terminate called after throwing an instance of 'std::runtime_error'",
         "  what():  %s Process group watchdog thread terminated with exception: %s" % (pgp, msg)]
    w += cxx_frames(j, [("c10::Error::Error(c10::SourceLocation, std::string) + 0x96", "libc10.so"),
                        ("c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, int, bool) + 0x118", "libc10_cuda.so"),
                        ("c10d::ProcessGroupNCCL::WorkNCCL::finishedGPUExecutionInternal() const + 0x56", "libtorch_cuda.so"),
                        ("c10d::ProcessGroupNCCL::WorkNCCL::isCompleted() + 0xa0", "libtorch_cuda.so"),
                        ("c10d::ProcessGroupNCCL::watchdogHandler() + 0x1da", "libtorch_cuda.so"),
                        ("c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d", "libtorch_cuda.so"),
                        ("<unknown function> + 0x145c0", "libtorch.so"),
                        ("<unknown function> + 0x94ac3", "libc.so.6"),
                        ("<unknown function> + 0x126850", "libc.so.6")],
                    "c10_cuda_check_implementation at ../c10/cuda/CUDAException.cpp:43")
    j.out(r, t + 0.01, "\n".join(w), err=True)
    j.plan_exit(r, t + j.rng.uniform(0.1, 1.0), -6)


# ============================================================================= ecc_memory
@scen("ecc_memory")
def ecc_dbe_last_steps(run):
    j = run.new_job()
    T = j.T
    rng = j.rng
    t = fw_startup(j, j.t_start)
    rank_banners(j, j.t_start + 6)
    t0 = t
    stop = j.total_steps - j.log_every * rng.randint(1, 4)
    t = train_range(j, t, 0, stop)
    if j.head_trim:
        j.t_vis = t0 + (t - t0) * (j.vis_start / max(1, stop)) - 1
    bad = rng.randrange(T.world)
    n = T.node_of(bad)
    tf = t + rng.uniform(1, j.log_every * j.step_time)
    xid(T, bad, tf, 48, "An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition %d, subpartition %d." % (rng.randrange(8), rng.randrange(2)), pid=j.pid[bad])
    xid(T, bad, tf + 0.01, 63, "Row Remapper: New row (0x%08x) marked for remapping, reset gpu to activate." % rng.randrange(16 ** 7), pid=j.pid[bad])
    if rng.random() < 0.5:
        xid(T, bad, tf + 0.02, 94, "Contained: FBHUB (0x%x). RST: No, D-RST: No" % rng.randrange(1, 16), pid=j.pid[bad])
    fr = fr_phase(j, "train") + [("%s/torch/_tensor.py" % T.site, 525 if T.tv >= (2, 3) else 492, "backward", "torch.autograd.backward(", None),
                                 ("%s/torch/autograd/__init__.py" % T.site, 267, "backward", "_engine_run_backward(", None),
                                 ("%s/torch/autograd/graph.py" % T.site, 744, "_engine_run_backward", "return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass", None)]
    exc_exit(j, bad, tf + rng.uniform(0.05, 1.0), fr, "RuntimeError: CUDA error: uncorrectable ECC error encountered" + CUDA_ASYNC)
    wait_all(j, others(j, bad), tf, rng.choice(["ALLREDUCE", "_REDUCE_SCATTER_BASE"]), rng.choice([262668288, 131334144, 52428800]))
    attach_dmesg(run, [n])
    if rng.random() < 0.5:
        run.files["nvidia-smi_%s.txt" % T.short[n]] = ("nvsmi", n, "ecc", bad)
    return {"cause": "ecc_memory", "rank": bad, "node": n,
            "notes": "A few steps before the end of training GPU %s on %s reported an uncorrectable double-bit ECC error (Xid 48, row remap pending Xid 63). Rank %d raised 'uncorrectable ECC error encountered'; the others timed out or were torn down in the gradient collective." % (T.pci(bad), T.short[n], bad)}


@scen("ecc_memory")
def ecc_xid94_rank0_eval(run):
    j, t = begin(run)
    T = j.T
    rng = j.rng
    final_opts(j)
    t = train_end_banner(j, t)
    t = save_phase(j, t, j.total_steps, final=True)
    bad = 0 if rng.random() < 0.6 else rng.randrange(T.world)
    n = T.node_of(bad)
    j.log(0, t, "Running final evaluation on rank 0 only (%d samples); other ranks wait at barrier" % rng.choice([500, 1000, 2000]), src="eval")
    tw = t + rng.uniform(0.2, 1)
    tf = t + rng.uniform(20, 300)
    xid(T, bad, tf, 94, "Contained: SM (0x%x). RST: No, D-RST: No" % rng.choice([1, 2, 4]), pid=j.pid[bad])
    if bad == 0:
        fr = fr_phase(j, "final_eval") + [("%s/%s" % (T.workdir, T.script), 0, "generate_samples", "out = model.generate(**batch, max_new_tokens=256, do_sample=False)", None)]
        fr = [f for f in fr if f[1] != 0] + [("%s/trainer/evaluate.py" % T.workdir, 88, "generate_samples", "out = model.generate(**batch, max_new_tokens=256, do_sample=False)", None),
                                             ("%s/torch/utils/_contextlib.py" % T.site, 116, "decorate_context", "return func(*args, **kwargs)", None),
                                             ("%s/transformers/generation/utils.py" % T.site, 2024, "generate", "result = self._sample(", None),
                                             ("%s/transformers/generation/utils.py" % T.site, 3020, "_sample", "next_token_logits = outputs.logits[:, -1, :].clone().float()", None)]
        exc_exit(j, 0, tf + rng.uniform(0.05, 0.5), fr, "RuntimeError: CUDA error: uncorrectable ECC error encountered" + CUDA_ASYNC)
        wait_all(j, others(j, 0), tw, "BARRIER" if T.tv >= (2, 3) else "ALLREDUCE", 1)
    else:
        # the bad GPU belongs to a rank idling in the barrier
        cuda_watchdog_exc(j, bad, tf + rng.uniform(0.1, 2), "uncorrectable ECC error encountered")
        j.log(0, tf + rng.uniform(30, 200), "final eval: exact_match=%.3f  rougeL=%.3f" % (rng.uniform(0.3, 0.7), rng.uniform(0.2, 0.5)), src="eval")
        wait_all(j, others(j, bad), tw, "BARRIER" if T.tv >= (2, 3) else "ALLREDUCE", 1)
    attach_dmesg(run, [n])
    return {"cause": "ecc_memory", "rank": bad, "node": n,
            "notes": "After the last checkpoint, rank 0 ran the final evaluation alone while the others waited in a barrier. GPU %s on %s (rank %d) hit a contained uncorrectable ECC error (Xid 94) and that rank aborted; the barrier never completed and the remaining ranks were torn down." % (T.pci(bad), T.short[n], bad)}


@scen("ecc_memory", layouts=SLURM)
def ecc_xid95_save_epilog_drain(run):
    j, t = begin(run)
    T = j.T
    rng = j.rng
    final_opts(j)
    t = train_end_banner(j, t)
    bad = rng.randrange(T.world)
    n = T.node_of(bad)
    def body(j, t, path, dur):
        tf = t + rng.uniform(2, dur * 0.5)
        xid(T, bad, tf, 95, "Uncontained: FBHUB. RST: Yes, D-RST: No", pid=j.pid[bad])
        xid(T, bad, tf + 0.01, 64, "Row Remapper Error: failed to record row remapping (bank 0x%x, row 0x%05x)" % (rng.randrange(16), rng.randrange(16 ** 5)), pid=j.pid[bad])
        cuda_watchdog_exc(j, bad, tf + rng.uniform(0.05, 0.6), "uncorrectable ECC error encountered")
        wait_all(j, others(j, bad), tf + rng.uniform(0, 5), "BARRIER" if T.tv >= (2, 3) else "ALLREDUCE", 1)
        return tf
    save_phase(j, t, j.total_steps, final=True, body=body)
    attach_dmesg(run, [n])
    run.epilog = {"node": n, "reason": "GPU ECC error (epilog health check: %s row remap failure)" % T.pci(bad), "kind": "ecc"}
    if rng.random() < 0.5:
        run.files["nvidia-smi_%s.txt" % T.short[n]] = ("nvsmi", n, "ecc", bad)
    return {"cause": "ecc_memory", "rank": bad, "node": n,
            "notes": "Uncontained uncorrectable ECC error (Xid 95) with a row-remap failure (Xid 64) on GPU %s of %s while the final checkpoint was written. The epilog health check then drained the node. Rank %d aborted from the NCCL watchdog with 'uncorrectable ECC error encountered'." % (T.pci(bad), T.short[n], bad)}


# ============================================================================= nvlink
@scen("nvlink", nvlink=True)
def nvl_xid74_final_gather(run):
    j, t = begin(run)
    T = j.T
    rng = j.rng
    final_opts(j)
    t = train_end_banner(j, t)
    n = rng.randrange(T.nnodes)
    lr = T.ranks_of(n)
    bad = rng.choice(lr)
    peer = rng.choice([x for x in lr if x != bad]) if len(lr) > 1 else bad
    def body(j, t, path, dur):
        tf = t + rng.uniform(1, dur * 0.3)
        link = rng.randrange(18)
        xid(T, bad, tf, 74, "NVLink: fatal error detected on link %d(0x0, 0x0, 0x0, 0x0, 0x%x, 0x0, 0x0)" % (link, rng.choice([0x10000, 0x20000, 0x100])), pid=j.pid[bad])
        xid(T, peer, tf + 0.002, 74, "NVLink: fatal error detected on link %d(0x0, 0x0, 0x%x, 0x0, 0x0, 0x0, 0x0)" % (rng.randrange(18), rng.choice([0x10000, 0x4])), pid=j.pid[peer])
        j.nccl(bad, tf + 0.05, "transport/p2p.cc:%d Cuda failure 'uncorrectable NVLink error detected during the execution'" % rng.choice([275, 329]), lvl="WARN")
        j.nccl(bad, tf + 0.051, "transport/p2p.cc:%d -> 1" % rng.choice([276, 330]))
        nccl_async_error(j, bad, tf + rng.uniform(0.1, 1.0), "cuda", "Cuda failure 'uncorrectable NVLink error detected during the execution'")
        if peer != bad:
            nccl_async_error(j, peer, tf + rng.uniform(1.0, 3.0), "cuda", "Cuda failure 'uncorrectable NVLink error detected during the execution'", full=False)
        wait_all(j, others(j, [bad, peer]), tf, "_ALLGATHER_BASE", rng.choice([131334144, 262668288]))
        return tf
    save_phase(j, t, j.total_steps, final=True, body=body)
    attach_dmesg(run, [n])
    if rng.random() < 0.4:
        T.kmsg(n, T.kern[n][-1][0] + 0.5 if T.kern[n] else t, "nvidia-nvswitch%d: SXid (PCI:0000:%02x:00.0): 12028, Non-fatal, Link %d egress non-posted PRIV error (First)" % (rng.randrange(4), rng.choice([0x05, 0x06, 0x07, 0x08]), rng.randrange(64)))
    return {"cause": "nvlink", "rank": bad, "node": n,
            "notes": "While gathering the full state dict for the final save, an NVLink fatal error (Xid 74) hit GPUs %s and %s on %s. NCCL on rank %d reported 'uncorrectable NVLink error', the NCCL watchdog aborted it; the rest of the job timed out in the all-gather." % (T.pci(bad), T.pci(peer), T.short[n], bad)}


@scen("nvlink", nvlink=True)
def nvl_fabric_eval_switch(run):
    j = run.new_job()
    T = j.T
    rng = j.rng
    t = fw_startup(j, j.t_start)
    rank_banners(j, j.t_start + 6)
    t0 = t
    stop = j.total_steps - j.eval_every if j.total_steps > 2 * j.eval_every else j.total_steps
    stop -= stop % j.eval_every
    t = train_range(j, t, 0, stop, evals=False)
    if j.head_trim:
        j.t_vis = t0 + (t - t0) * (j.vis_start / max(1, stop)) - 1
    n = rng.randrange(T.nnodes)
    lr = T.ranks_of(n)
    def body(j, t, neval, dur):
        tf = t + rng.uniform(1, 10)
        T.kmsg(n, tf - 0.5, "nvidia-nvswitch%d: SXid (PCI:0000:%02x:00.0): 24007, Fatal, Link %d sourcetrack timeout error (First)" % (rng.randrange(4), rng.choice([0x05, 0x06, 0x07, 0x08]), rng.randrange(64)))
        T.kmsg(n, tf - 0.49, "nvidia-nvswitch%d: SXid (PCI:0000:%02x:00.0): 24007, Severity 1 Engine instance %d Sub-engine instance 00" % (rng.randrange(4), rng.choice([0x05, 0x06, 0x07, 0x08]), rng.randrange(64)))
        for k, r in enumerate(lr):
            xid(T, r, tf + 0.01 * k, 74, "NVLink: fatal error detected on link %d(0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x10000)" % rng.randrange(18), pid=j.pid[r])
        T.kmsg(n, tf + 1, "nvidia-fabricmanager[%d]: detected NVSwitch fatal error %d on fid 0 switch id %d link %d" % (rng.randrange(1000, 4000), 24007, rng.randrange(4), rng.randrange(64)))
        for k, r in enumerate(lr):
            if rng.random() < 0.7 or k == 0:
                fr = fr_phase(j, "eval") + [("%s/torch/nn/modules/module.py" % T.site, 1553, "_wrapped_call_impl", "return self._call_impl(*args, **kwargs)", None)]
                exc_exit(j, r, tf + rng.uniform(0.2, 3), fr, "RuntimeError: CUDA error: uncorrectable NVLink error detected during the execution" + CUDA_ASYNC)
            else:
                nccl_async_error(j, r, tf + rng.uniform(0.5, 4), "cuda", "Cuda failure 'uncorrectable NVLink error detected during the execution'", full=False)
        wait_all(j, others(j, lr), tf, "ALLREDUCE", 1)
        return tf
    eval_phase(j, t, stop, body=body)
    attach_dmesg(run, [n])
    run.files["fabricmanager_%s.log" % T.short[n]] = ("fm", n)
    return {"cause": "nvlink", "rank": None, "node": n,
            "notes": "At the train->eval switch near the end (step %d) an NVSwitch fatal error took down the NVLink fabric on %s (SXid 24007, Xid 74 on every GPU of the node). All ranks on that node failed with 'uncorrectable NVLink error'; ranks on other nodes waited in the eval all-reduce." % (stop, T.short[n])}


# ============================================================================= network
def ib_fail_kernel(T, n, t, kind):
    rng = T.rng
    dev = rng.choice(["0000:5e:00.0", "0000:1b:00.0", "0000:9a:00.0", "0000:c1:00.0"])
    if kind == "ib":
        ifn = rng.choice(["ibp94s0", "ib0", "ibs1", "ibp26s0"])
        T.kmsg(n, t, "mlx5_core %s: mlx5_port_module_event:%d:(pid 0): Port module event[error]: module %d, Cable error, %s" % (dev, rng.choice([1113, 1158]), rng.randrange(8), rng.choice(["Bus stuck (I2C or data shorted)", "High Temperature", "Enforce part number list"])))
        T.kmsg(n, t + 0.01, "mlx5_core %s %s: Link down" % (dev, ifn))
        T.kmsg(n, t + rng.uniform(20, 90), "mlx5_core %s %s: Link up" % (dev, ifn))
    elif kind == "roce":
        ifn = rng.choice(["ens2f0np0", "enp94s0f0np0", "eth2"])
        T.kmsg(n, t, "mlx5_core %s %s: Link down" % (dev, ifn))
        T.kmsg(n, t + 0.2, "bond0: (slave %s): link status definitely down, disabling slave" % ifn)
        T.kmsg(n, t + rng.uniform(30, 120), "mlx5_core %s %s: Link up" % (dev, ifn))
    else:
        ifn = rng.choice(["ens1f0", "eth0", "enp75s0f0"])
        T.kmsg(n, t, "ice %s %s: NIC Link is Down" % (dev, ifn))
        T.kmsg(n, t + rng.uniform(8, 40), "ice %s %s: NIC Link is up 100 Gbps Full Duplex, Requested FEC: RS-FEC, Negotiated FEC: RS-FEC, Autoneg Advertised: On, Autoneg Negotiated: False, Flow Control: None" % (dev, ifn))


@scen("network", layouts=ALL_MULTI, min_nodes=2)
def net_ib_flap_final_save(run):
    j, t = begin(run)
    T = j.T
    rng = j.rng
    final_opts(j)
    t = train_end_banner(j, t)
    n = rng.randrange(T.nnodes)
    kind = "ib" if getattr(j, "net", "IB") == "IB" else rng.choice(["roce", "eth"])
    def body(j, t, path, dur):
        tf = t + rng.uniform(2, dur * 0.5)
        ib_fail_kernel(T, n, tf, kind)
        loc = T.ranks_of(n)
        peers = [r for r in range(T.world) if T.node_of(r) != n]
        first = rng.sample(loc, min(len(loc), rng.randint(2, 4)))
        for k, r in enumerate(first):
            pr = rng.choice(peers)
            if kind != "eth":
                j.nccl(r, tf + 7 + k * 0.01, "NET/IB : Got completion from peer %s<%d> with status=12 opcode=%d len=0 vendor err 129 (%s) localGid ::ffff:%s remoteGids::ffff:%s hca mlx5_%d" % (
                    T.ips[T.node_of(pr)], rng.randrange(33000, 60000), rng.choice([0, 1, 32616]), rng.choice(["Send", "Recv"]), T.ips[n], T.ips[T.node_of(pr)], rng.choice([0, 3, 4, 5])), lvl="WARN")
                j.nccl(r, tf + 7.001 + k * 0.01, "transport/net.cc:%d -> 6" % rng.choice([1298, 1302]))
                j.nccl(r, tf + 7.002 + k * 0.01, "proxy.cc:%d -> 6 [Progress Thread]" % rng.choice([694, 878]))
                last = "NET/IB : Got completion from peer %s<%d> with status=12 opcode=0 len=0 vendor err 129 (Recv)" % (T.ips[T.node_of(pr)], rng.randrange(33000, 60000))
            else:
                j.nccl(r, tf + 3 + k * 0.01, "socketProgressOpt: Call to recv from %s<%d> failed : Connection timed out" % (T.ips[T.node_of(pr)], rng.randrange(33000, 60000)), lvl="WARN")
                j.nccl(r, tf + 3.001 + k * 0.01, "misc/socket.cc:%d -> 6" % rng.choice([575, 806]))
                last = "socketProgressOpt: Call to recv from %s<%d> failed : Connection timed out" % (T.ips[T.node_of(pr)], rng.randrange(33000, 60000))
            nccl_async_error(j, r, tf + 8 + rng.uniform(0, 2), "remote" if T.nccl_ver >= "2.19" else "system", last, full=(k == 0))
        # the peers' side also notices a bit later (remote error), others time out
        side = rng.sample(peers, min(len(peers), rng.randint(1, 3)))
        for r in side:
            j.nccl(r, tf + 12 + rng.uniform(0, 3), "NET/IB : Got completion from peer %s<%d> with status=12 opcode=0 len=0 vendor err 129 (Recv)" % (T.ips[n], rng.randrange(33000, 60000)) if kind != "eth" else "socketProgressOpt: Call to recv from %s<%d> failed : Connection reset by peer" % (T.ips[n], rng.randrange(33000, 60000)), lvl="WARN")
            nccl_async_error(j, r, tf + 14 + rng.uniform(0, 3), "remote" if T.nccl_ver >= "2.19" else "system",
                             "NET/IB : Got completion from peer %s<%d> with status=12 opcode=0 len=0 vendor err 129 (Recv)" % (T.ips[n], rng.randrange(33000, 60000)) if kind != "eth" else "socketProgressOpt: Call to recv from %s<%d> failed : Connection reset by peer" % (T.ips[n], rng.randrange(33000, 60000)), full=False)
        wait_all(j, others(j, first + side), tf, "_ALLGATHER_BASE" if rng.random() < 0.5 else "BROADCAST", rng.choice([131334144, 262668288, 4096]))
        return tf
    save_phase(j, t, j.total_steps, final=True, body=body)
    attach_dmesg(run, [n])
    return {"cause": "network", "rank": None, "node": n,
            "notes": "During the final checkpoint's collective (state-dict gather) the %s link of %s went down (kernel: Link down, later up). Ranks on %s were the first to report NCCL transport errors; peers on other nodes followed with remote errors / timeouts." % ({"ib": "InfiniBand", "roce": "RoCE", "eth": "Ethernet"}[kind], T.short[n], T.short[n])}


@scen("network", layouts=["slurm_torchrun", "torchrun_nodes", "k8s_pytorchjob", "deepspeed_pdsh", "slurm_srun"], min_nodes=2)
def net_efa_last_steps(run):
    j = run.new_job()
    T = j.T
    rng = j.rng
    t = fw_startup(j, j.t_start)
    rank_banners(j, j.t_start + 6)
    t0 = t
    stop = j.total_steps - j.log_every * rng.randint(1, 3)
    t = train_range(j, t, 0, stop)
    if j.head_trim:
        j.t_vis = t0 + (t - t0) * (j.vis_start / max(1, stop)) - 1
    n = rng.randrange(T.nnodes)
    tf = t + rng.uniform(1, 20)
    loc = T.ranks_of(n)
    net = getattr(j, "net", "IB")
    if net == "OFI":
        for k, r in enumerate(loc[: rng.randint(2, len(loc))]):
            j.nccl(r, tf + k * 0.02, "NET/OFI Request 0x%x completed with error. RC: 5. Error: 13 (Input/output error). Completed length: 0, Request: { buffer_index: 255, dev: %d, size: %d, state: CREATED, direction: SEND }" % (rng.randrange(16 ** 11), T.local(r) // 2, rng.choice([524288, 1048576])), lvl="WARN")
            nccl_async_error(j, r, tf + 1 + k * 0.05, "remote" if T.nccl_ver >= "2.19" else "system", "NET/OFI Request completed with error", full=(k == 0))
        T.kmsg(n, tf - 3, "efa 0000:%02x:00.0: Failed to process command ADMIN_CMD (opcode 10) comp_status 7 err -22" % rng.choice([0x10, 0x20, 0x31]))
        T.kmsg(n, tf - 2.9, "efa 0000:%02x:00.0: Device reset required" % rng.choice([0x10, 0x20, 0x31]))
        kind = "EFA"
    else:
        kind = "ib" if net == "IB" else "eth"
        ib_fail_kernel(T, n, tf - 6, kind)
        for k, r in enumerate(loc[: rng.randint(2, len(loc))]):
            j.nccl(r, tf + k * 0.02, "NET/IB : Got completion from peer %s<%d> with status=12 opcode=0 len=0 vendor err 129 (Send) localGid ::ffff:%s remoteGids::ffff:%s" % (T.ips[(n + 1) % T.nnodes], rng.randrange(33000, 60000), T.ips[n], T.ips[(n + 1) % T.nnodes]) if kind == "ib" else
                   "socketProgressOpt: Call to send to %s<%d> failed : Broken pipe" % (T.ips[(n + 1) % T.nnodes], rng.randrange(33000, 60000)), lvl="WARN")
            nccl_async_error(j, r, tf + 1 + k * 0.05, "remote" if T.nccl_ver >= "2.19" else "system", "NET/IB : Got completion from peer %s<%d> with status=12 opcode=0 len=0 vendor err 129 (Send)" % (T.ips[(n + 1) % T.nnodes], rng.randrange(33000, 60000)) if kind == "ib" else "socketProgressOpt: Call to send failed : Broken pipe", full=(k == 0))
    wait_all(j, others(j, loc), tf - 2, "ALLREDUCE", rng.choice([262668288, 131334144]))
    attach_dmesg(run, [n])
    return {"cause": "network", "rank": None, "node": n,
            "notes": "%d steps before the planned end, the %s interface of %s failed (device/link error in the kernel log); ranks on that node reported NCCL network completion errors first and aborted, the rest timed out in the gradient all-reduce." % (j.total_steps - stop, kind, T.short[n])}


# ============================================================================= cuda_oom
def oom_text(j, r, alloc_gib, free_gib):
    T = j.T
    used = T.gpu_mem - free_gib
    byp = used * j.rng.uniform(0.85, 0.95)
    res = used - byp - j.rng.uniform(0.3, 1.0)
    if T.tv >= (2, 3):
        return ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate %.2f GiB. GPU %d has a total capacity of %.2f GiB of which %.2f GiB is free. Including non-PyTorch memory, this process has %.2f GiB memory in use. Of the allocated memory %.2f GiB is allocated by PyTorch, and %.2f GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)"
                % (alloc_gib, T.local(r), T.gpu_mem, free_gib, used, byp, max(0.01, res)))
    return ("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate %.2f GiB (GPU %d; %.2f GiB total capacity; %.2f GiB already allocated; %.2f GiB free; %.2f GiB reserved in total by PyTorch) If reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF"
            % (alloc_gib, T.local(r), T.gpu_mem, byp, free_gib, byp + max(0.01, res)))


@scen("cuda_oom")
def oom_rank0_generate_final_eval(run):
    j, t = begin(run)
    T = j.T
    rng = j.rng
    final_opts(j)
    t = train_end_banner(j, t)
    t = save_phase(j, t, j.total_steps, final=True)
    j.log(0, t, "Generating %d samples for the final report (rank 0 only, max_new_tokens=%d)" % (rng.choice([64, 128, 256]), rng.choice([512, 1024, 2048])), src="eval")
    tf = t + rng.uniform(10, 200)
    fr = fr_phase(j, "final_eval")
    fr = fr[:len(fr_entry(j)) + 1] + [("%s/trainer/evaluate.py" % T.workdir, 142, "sample_report", "outputs = model.generate(**inputs, generation_config=gen_cfg)", None),
                                       ("%s/torch/utils/_contextlib.py" % T.site, 116, "decorate_context", "return func(*args, **kwargs)", None),
                                       ("%s/transformers/generation/utils.py" % T.site, 2024, "generate", "result = self._sample(", None),
                                       ("%s/transformers/generation/utils.py" % T.site, 2982, "_sample", "outputs = self(**model_inputs, return_dict=True)", None),
                                       ("%s/transformers/models/llama/modeling_llama.py" % T.site, 1189, "forward", "logits = logits.float()", None)]
    exc_exit(j, 0, tf, fr, oom_text(j, 0, rng.uniform(3, 20), rng.uniform(0.2, 2.5)))
    wait_all(j, others(j, 0), t + rng.uniform(0.1, 1), "BARRIER" if T.tv >= (2, 3) else "ALLREDUCE", 1)
    return {"cause": "cuda_oom", "rank": 0, "node": 0,
            "notes": "Training and the final save completed. Rank 0 then generated samples for a final report on its own (FSDP-unwrapped model + KV cache) and ran out of GPU memory; the other ranks were waiting in a barrier and were torn down / timed out."}


@scen("cuda_oom")
def oom_full_state_dict_gather(run):
    j, t = begin(run)
    T = j.T
    rng = j.rng
    final_opts(j)
    t = train_end_banner(j, t)
    bad = 0
    def body(j, t, path, dur):
        tf = t + rng.uniform(2, 20)
        s = T.site
        fr = fr_phase(j, "final_save") + [("%s/torch/distributed/fsdp/fully_sharded_data_parallel.py" % s, 0, "", "", None)]
        fr = fr[:-1] + [("%s/torch/nn/modules/module.py" % s, 1939 if T.tv >= (2, 3) else 1818, "state_dict", "hook_result = hook(self, destination, prefix, local_metadata)", None),
                        ("%s/torch/utils/_contextlib.py" % s, 116, "decorate_context", "return func(*args, **kwargs)", None),
                        ("%s/torch/distributed/fsdp/_state_dict_utils.py" % s, 715, "_post_state_dict_hook", "processed_state_dict = _post_state_dict_hook_fn[fsdp_state._state_dict_type](", None),
                        ("%s/torch/distributed/fsdp/_state_dict_utils.py" % s, 433, "_full_post_state_dict_hook", "return _common_unshard_post_state_dict_hook(", None),
                        ("%s/torch/distributed/fsdp/_state_dict_utils.py" % s, 256, "_common_unshard_post_state_dict_hook", "param_hook(state_dict, prefix, fqn)", None),
                        ("%s/torch/distributed/fsdp/_state_dict_utils.py" % s, 428, "param_hook", "state_dict[fqn] = state_dict[fqn].clone().detach()", None)]
        exc_exit(j, bad, tf, fr, oom_text(j, bad, rng.uniform(0.5, 4), rng.uniform(0.05, 0.6)))
        wait_all(j, others(j, bad), tf + rng.uniform(0.01, 0.3), "_ALLGATHER_BASE", rng.choice([131334144, 262668288]))
        return tf
    j.log(0, t, "Consolidating full state dict on rank 0 (FULL_STATE_DICT, offload_to_cpu=False) for HF export", src="checkpoint")
    save_phase(j, t + 1, j.total_steps, final=True, body=body)
    return {"cause": "cuda_oom", "rank": 0, "node": 0,
            "notes": "At the final save the script gathered a FULL_STATE_DICT on GPU (offload_to_cpu=False) for export; rank 0 ran out of GPU memory while unsharding parameters. Other ranks then hung in the next all-gather and were killed."}


@scen("cuda_oom")
def oom_eval_switch_long_sample(run):
    j = run.new_job()
    T = j.T
    rng = j.rng
    t = fw_startup(j, j.t_start)
    rank_banners(j, j.t_start + 6)
    t0 = t
    stop = j.total_steps - j.eval_every if j.total_steps > 2 * j.eval_every else j.total_steps
    stop -= stop % j.eval_every
    t = train_range(j, t, 0, stop, evals=False)
    if j.head_trim:
        j.t_vis = t0 + (t - t0) * (j.vis_start / max(1, stop)) - 1
    bad = rng.randrange(T.world)
    def body(j, t, neval, dur):
        tf = t + rng.uniform(2, dur * 0.8)
        fr = fr_phase(j, "eval") + [("%s/torch/nn/modules/module.py" % T.site, 1562, "_call_impl", "return forward_call(*args, **kwargs)", None),
                                    ("%s/flash_attn/flash_attn_interface.py" % T.site, 90, "_flash_attn_forward", "out, q, k, v, out_padded, softmax_lse, S_dmask, rng_state = flash_attn_cuda.fwd(", None)] if rng.random() < 0.5 else \
            fr_phase(j, "eval") + [("%s/torch/nn/modules/module.py" % T.site, 1562, "_call_impl", "return forward_call(*args, **kwargs)", None),
                                   ("%s/torch/nn/functional.py" % T.site, 3104, "cross_entropy", "return torch._C._nn.cross_entropy_loss(input, target, weight, _Reduction.get_enum(reduction), ignore_index, label_smoothing)", None)]
        exc_exit(j, bad, tf, fr, oom_text(j, bad, rng.uniform(6, 30), rng.uniform(0.5, 5)))
        wait_all(j, others(j, bad), tf + rng.uniform(0, 15), "ALLREDUCE", 1)
        return tf
    eval_phase(j, t, stop, body=body)
    return {"cause": "cuda_oom", "rank": bad, "node": T.node_of(bad),
            "notes": "Switch from training to the periodic evaluation at step %d: the eval set has much longer sequences and no packing, and rank %d got the longest batch and ran out of GPU memory in the eval forward pass. The other ranks waited in the eval-loss all-reduce." % (stop, bad)}


# ============================================================================= illegal_memory_access
@scen("illegal_memory_access")
def ima_eval_index_assert(run):
    j = run.new_job()
    T = j.T
    rng = j.rng
    t = fw_startup(j, j.t_start)
    rank_banners(j, j.t_start + 6)
    t0 = t
    stop = j.total_steps
    t = train_range(j, t, 0, stop, evals=True)
    if j.head_trim:
        j.t_vis = t0 + (t - t0) * (j.vis_start / max(1, stop)) - 1
    final_opts(j)
    t = train_end_banner(j, t)
    t = save_phase(j, t, j.total_steps, final=True)
    bad = rng.randrange(T.world)
    def body(j, t, neval, dur):
        tf = t + rng.uniform(2, dur * 0.6)
        lines = []
        for k in range(rng.randint(3, 12)):
            lines.append("../aten/src/ATen/native/cuda/Indexing.cu:1236: indexSelectSmallIndex: block: [%d,0,0], thread: [%d,0,0] Assertion `srcIndex < srcSelectDimSize` failed." % (rng.randrange(64), rng.randrange(32, 128)))
        j.out(bad, tf, "\n".join(lines), err=True)
        fr = fr_phase(j, "final_eval") + [("%s/torch/nn/modules/sparse.py" % T.site, 164, "forward", "return F.embedding(", None),
                                          ("%s/torch/nn/functional.py" % T.site, 2267, "embedding", "return torch.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)", None)]
        exc_exit(j, bad, tf + rng.uniform(0.05, 0.5), fr, "RuntimeError: CUDA error: device-side assert triggered" + CUDA_ASYNC)
        wait_all(j, others(j, bad), tf + rng.uniform(0, 10), "ALLREDUCE", 1)
        return tf
    j.log(0, t, "Final evaluation on held-out set %s" % rng.choice(["eval_v2.jsonl", "mmlu_subset", "val_long.bin", "test-00000-of-00004.parquet"]), src="eval")
    eval_phase(j, t, j.total_steps, final=True, body=body)
    return {"cause": "illegal_memory_access", "rank": bad, "node": T.node_of(bad),
            "notes": "The final held-out evaluation (after the last save) contains token ids beyond the embedding size (tokenizer/vocab mismatch of the new eval set). Rank %d hit a device-side assert in the embedding index kernel; the others waited in the eval all-reduce." % bad}


@scen("illegal_memory_access")
def ima_xid31_last_step(run):
    j = run.new_job()
    T = j.T
    rng = j.rng
    t = fw_startup(j, j.t_start)
    rank_banners(j, j.t_start + 6)
    t0 = t
    stop = j.total_steps - j.log_every * rng.randint(0, 2)
    t = train_range(j, t, 0, stop)
    if j.head_trim:
        j.t_vis = t0 + (t - t0) * (j.vis_start / max(1, stop)) - 1
    bad = rng.randrange(T.world)
    n = T.node_of(bad)
    tf = t + rng.uniform(1, j.log_every * j.step_time)
    xid(T, bad, tf - 0.3, 31, "Ch %08x, intr 00000000. MMU Fault: ENGINE GRAPHICS GPC%d GPCCLIENT_T1_%d faulted @ 0x7f%02x_%08x. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ" % (
        rng.choice([8, 0x10, 0x18]), rng.randrange(8), rng.randrange(16), rng.randrange(256), rng.randrange(16 ** 8)), pid=j.pid[bad])
    cuda_watchdog_exc(j, bad, tf, "an illegal memory access was encountered")
    wait_all(j, others(j, bad), tf - rng.uniform(0, 1), rng.choice(["ALLREDUCE", "_REDUCE_SCATTER_BASE"]), rng.choice([262668288, 131334144]))
    attach_dmesg(run, [n])
    return {"cause": "illegal_memory_access", "rank": bad, "node": n,
            "notes": "In the last training steps a fused kernel on rank %d read an invalid address (Xid 31 MMU fault for that rank's pid %d). The NCCL watchdog thread on rank %d surfaced 'an illegal memory access was encountered' and aborted; no hardware fault." % (bad, j.pid[bad], bad)}


@scen("illegal_memory_access", layouts=["pipeline_post"])
def ima_post_export_kernel(run):
    j, t = begin(run)
    T = j.T
    rng = j.rng
    final_opts(j)
    j.upload = None
    t = healthy_tail(j, t)
    step = rng.choice(["quantize_awq", "export_trt", "eval_harness"])
    lines = []
    tt = t + 30
    lines.append((tt, "Loading checkpoint shards: 100%%|██████████| %d/%d [00:%02d<00:00,  %.2fit/s]" % (4, 4, rng.randint(10, 50), rng.uniform(0.1, 0.4))))
    if step == "quantize_awq":
        lines.append((tt + 20, "AWQ: 100%%|██████████| %d/%d [%s<00:00, %.2fs/it]" % (32, 32, hms(300), 9.4)))
        lines.append((tt + 330, "Traceback (most recent call last):\n  File \"%s/tools/quantize.py\", line 71, in <module>\n    model.quantize(tokenizer, quant_config=quant_config)\n  File \"%s/awq/models/base.py\", line 231, in quantize\n    self.quantizer.quantize()\n  File \"%s/awq/quantize/quantizer.py\", line 179, in quantize\n    self._apply_quant(self.modules[i], named_linears)\n  File \"%s/awq/quantize/quantizer.py\", line 229, in _apply_quant\n    q_linear = q_linear_module.from_linear(\n  File \"%s/awq/modules/linear/gemm.py\", line 186, in from_linear\n    intweight = intweight.to(dtype=torch.int32)\nRuntimeError: CUDA error: an illegal memory access was encountered%s" % (T.workdir, T.site, T.site, T.site, T.site, CUDA_ASYNC)))
    elif step == "export_trt":
        lines.append((tt + 40, "[TRT-LLM] [I] Set dtype to bfloat16."))
        lines.append((tt + 200, "Traceback (most recent call last):\n  File \"%s/tools/convert_checkpoint.py\", line 412, in <module>\n    main()\n  File \"%s/tools/convert_checkpoint.py\", line 398, in main\n    convert_and_save_hf(args)\n  File \"%s/tensorrt_llm/models/llama/convert.py\", line 1420, in convert_and_save_hf\n    weights = load_weights_from_hf_model(hf_model, config)\n  File \"%s/tensorrt_llm/models/llama/convert.py\", line 988, in load_weights_from_hf_model\n    v = v.contiguous().cuda()\nRuntimeError: CUDA error: an illegal memory access was encountered%s" % (T.workdir, T.workdir, T.site, T.site, CUDA_ASYNC)))
    else:
        lines.append((tt + 40, "Running loglikelihood requests"))
        lines.append((tt + 60, "  3%%|▎         | %d/%d [01:02<31:40,  %.2fit/s]" % (312, 10042, 5.1)))
        lines.append((tt + 95, "Traceback (most recent call last):\n  File \"%s/lm_eval/__main__.py\", line 461, in cli_evaluate\n    results = evaluator.simple_evaluate(\n  File \"%s/lm_eval/evaluator.py\", line 277, in simple_evaluate\n    results = evaluate(\n  File \"%s/lm_eval/models/huggingface.py\", line 1079, in _loglikelihood_tokens\n    multi_logits = F.log_softmax(\nRuntimeError: CUDA error: an illegal memory access was encountered%s" % (T.site, T.site, T.site, CUDA_ASYNC)))
    xid(T, 0, tt + (330 if step == "quantize_awq" else 200 if step == "export_trt" else 95) - 0.5, 13, "Graphics SM Warp Exception on (GPC %d, TPC %d, SM %d): Out Of Range Address" % (rng.randrange(8), rng.randrange(9), rng.randrange(2)), pid=rng.randrange(10 ** 5, 4 * 10 ** 6))
    run.post.append({"step": step, "lines": lines, "rc": 1, "t_end": lines[-1][0] + 1})
    attach_dmesg(run, [0], clean_extra=False)
    return {"cause": "illegal_memory_access", "rank": None, "node": 0,
            "notes": "Training finished cleanly (exit 0 from torchrun). The post-processing step '%s' (single process on GPU 0) then died with 'an illegal memory access was encountered' (Xid 13 for its pid in dmesg): a software kernel fault in the post step, not a training failure." % step}


# ============================================================================= python_exception
@scen("python_exception")
def py_disk_full_final_save(run):
    j, t = begin(run)
    T = j.T
    rng = j.rng
    final_opts(j)
    t = train_end_banner(j, t)
    bad = 0
    errno = rng.choice([28, 28, 122])
    ename = {28: "No space left on device", 122: "Disk quota exceeded"}[errno]
    def body(j, t, path, dur):
        tf = t + rng.uniform(5, dur * 0.8)
        if rng.random() < 0.5:
            fr = fr_phase(j, "final_save") + fr_torch_save(j)
            chain = [(fr_phase(j, "final_save") + fr_torch_save(j), "RuntimeError: [enforce fail at inline_container.cc:%d] . PytorchStreamWriter failed writing file data/%d: file write failed" % (rng.choice([595, 778, 783]), rng.randrange(20, 900)), "During handling of the above exception, another exception occurred:")]
            fr2 = fr_phase(j, "final_save") + fr_torch_save_ctx(j)
            exc_exit(j, bad, tf, fr2, "RuntimeError: [enforce fail at inline_container.cc:%d] . unexpected pos %d vs %d" % (rng.choice([603, 626]), rng.randrange(10 ** 9, 9 * 10 ** 9), rng.randrange(10 ** 9, 9 * 10 ** 9)), chain=chain)
        else:
            fr = fr_phase(j, "final_save") + [("%s/safetensors/torch.py" % T.site, 286, "save_file", "serialize_file(_flatten(tensors), filename, metadata=metadata)", None)]
            exc_exit(j, bad, tf, fr, "safetensors_rust.SafetensorError: Error while serializing: IoError(Os { code: %d, kind: %s, message: \"%s\" })" % (errno, "StorageFull" if errno == 28 else "FilesystemQuotaExceeded", ename))
        wait_all(j, others(j, bad), tf - rng.uniform(1, 30), "BARRIER" if T.tv >= (2, 3) else "ALLREDUCE", 1)
        return tf
    save_phase(j, t, j.total_steps, final=True, body=body)
    return {"cause": "python_exception", "rank": 0, "node": 0,
            "notes": "Final checkpoint write on rank 0 failed: the filesystem for %s was full / over quota (errno %d, %s). Uncaught exception on rank 0; the other ranks were already waiting in the post-save barrier and were torn down. Root cause is storage capacity, surfaced as a Python exception." % (T.ckpt_dir, errno, ename)}


@scen("python_exception")
def py_dcp_quota_one_rank(run):
    j, t = begin(run)
    T = j.T
    rng = j.rng
    T.fw_dcp = True
    final_opts(j)
    t = train_end_banner(j, t)
    bad = rng.randrange(1, T.world) if T.world > 1 else 0
    errno = rng.choice([122, 28, 5])
    ename = {28: "No space left on device", 122: "Disk quota exceeded", 5: "Input/output error"}[errno]
    def body(j, t, path, dur):
        tf = t + rng.uniform(10, dur)
        s = T.site
        inner = [("%s/torch/distributed/checkpoint/utils.py" % s, 212, "all_reduce", "local_data = map_fun()", None),
                 ("%s/torch/distributed/checkpoint/logger.py" % s, 83, "wrapper", "result = func(*args, **kwargs)", None),
                 ("%s/torch/distributed/checkpoint/state_dict_saver.py" % s, 329, "write_data", "all_writes = storage_writer.write_data(final_local_plan, planner)", None),
                 ("%s/torch/distributed/checkpoint/filesystem.py" % s, 580, "write_data", "_write_files_from_queue(", None),
                 ("%s/torch/distributed/checkpoint/filesystem.py" % s, 362, "_write_files_from_queue", "_write_item(stream, data, write_item, storage_key)", None),
                 ("%s/torch/distributed/checkpoint/filesystem.py" % s, 287, "_write_item", "torch.save(data, stream)", None)] + fr_torch_save(j)[:1] + [
                 ("%s/torch/serialization.py" % s, 646, "_save", "zip_file.write_record(name, storage, num_bytes)", None)]
        msg = "torch.distributed.checkpoint.api.CheckpointException: CheckpointException ranks:dict_keys([%d])\nTraceback (most recent call last): (RANK %d)\n" % (bad, bad)
        for f in inner:
            msg += '  File "%s", line %d, in %s\n    %s\n' % (f[0], f[1], f[2], f[3])
        msg += "OSError: [Errno %d] %s" % (errno, ename)
        fr = fr_phase(j, "final_save")
        if T.fw == "custom":
            fr = fr + fr_dcp_save(j)
        else:
            fr = fr + fr_dcp_save(j)[1:]
        for r in range(T.world):
            if r in (0, bad) or T.world <= 16 or rng.random() < 16.0 / T.world:
                exc_exit(j, r, tf + rng.uniform(0.1, 2.0) + (0.5 if r != bad else 0), fr, msg)
            else:
                j.plan_exit(r, tf + rng.uniform(0.1, 2.5), 1)
        return tf
    save_phase(j, t, j.total_steps, final=True, body=body)
    return {"cause": "python_exception", "rank": bad, "node": T.node_of(bad),
            "notes": "torch.distributed.checkpoint save of the final checkpoint: only rank %d failed to write its shard (OSError errno %d: %s on %s). DCP gathered the error and every rank raised the same CheckpointException naming rank %d, so all ranks exit 1 with a traceback; the first observed failure in launcher summaries is arbitrary." % (bad, errno, ename, T.short[T.node_of(bad)], bad)}


@scen("python_exception")
def py_metric_for_best_model(run):
    j, t = begin(run)
    T = j.T
    rng = j.rng
    final_opts(j)
    t = train_end_banner(j, t)
    key = rng.choice(["eval_accuracy", "eval_rougeL", "eval_f1", "eval_bleu"])
    if T.fw == "hf":
        t2 = eval_phase(j, t, j.total_steps, final=True)
        fr = fr_phase(j, "save")[:-2] + [("%s/transformers/trainer.py" % T.site, 2807, "_maybe_log_save_evaluate", "self._save_checkpoint(model, trial, metrics=metrics)", None),
                                        ("%s/transformers/trainer.py" % T.site, 2916, "_save_checkpoint", "metric_value = metrics[metric_to_check]", None)]
        exc = "KeyError: \"The `metric_for_best_model` training argument is set to '%s', which is not found in the evaluation metrics. The available evaluation metrics are: ['eval_loss', 'eval_runtime', 'eval_samples_per_second', 'eval_steps_per_second', 'epoch']. Consider changing the `metric_for_best_model` via the TrainingArguments.\"" % key
        chain = [(fr[:-1] + [("%s/transformers/trainer.py" % T.site, 2913, "_save_checkpoint", "metric_value = metrics[metric_to_check]", None)], "KeyError: '%s'" % key, "During handling of the above exception, another exception occurred:")]
    else:
        t2 = eval_phase(j, t, j.total_steps, final=True)
        fr = fr_phase(j, "final_eval") + [("%s/trainer/evaluate.py" % T.workdir, 57, "summarize", "best = max(history, key=lambda m: m[\"%s\"])" % key, None),
                                          ("%s/trainer/evaluate.py" % T.workdir, 57, "<lambda>", "best = max(history, key=lambda m: m[\"%s\"])" % key, None)]
        exc = "KeyError: '%s'" % key
        chain = None
    ranks = list(range(T.world)) if rng.random() < 0.5 else [0]
    for r in ranks:
        if r == 0 or T.world <= 16 or rng.random() < 16.0 / T.world:
            exc_exit(j, r, t2 + rng.uniform(0.05, 1.5) + (0 if r == 0 else 0.2), fr, exc, chain=chain)
        else:
            j.plan_exit(r, t2 + rng.uniform(0.3, 2.0), 1)
    if len(ranks) == 1:
        wait_all(j, others(j, 0), t2 + rng.uniform(0.1, 2), "BARRIER" if T.tv >= (2, 3) else "ALLREDUCE", 1)
    return {"cause": "python_exception", "rank": 0, "node": 0,
            "notes": "Training reached the last step; the final evaluation ran, then selecting the best checkpoint raised KeyError because the configured metric '%s' is never produced by the evaluation (only eval_loss is). %s" % (key, "Every rank raised the same error." if len(ranks) > 1 else "Only rank 0 evaluates the metric; the other ranks waited in a barrier.")}


@scen("python_exception")
def py_upload_fails(run):
    j, t = begin(run)
    T = j.T
    rng = j.rng
    final_opts(j)
    j.upload = rng.choice(["hf", "s3"])
    t = train_end_banner(j, t)
    t = save_phase(j, t, j.total_steps, final=True)
    if j.final_eval:
        t = eval_phase(j, t, j.total_steps, final=True)
    others_wait = rng.random() < 0.5
    tf = t + rng.uniform(20, 400)
    if j.upload == "hf":
        repo = "%s/%s" % (rng.choice(["acme-ai", "bwang", "ml-team"]), T.run_name)
        kind = rng.choice(["403", "413", "conn"])
        fr = fr_phase(j, "upload") + [("%s/huggingface_hub/hf_api.py" % T.site, 3838, "create_commit", "hf_raise_for_status(commit_resp, endpoint_name=\"commit\")", None),
                                      ("%s/huggingface_hub/utils/_errors.py" % T.site, 371, "hf_raise_for_status", "raise HfHubHTTPError(str(e), response=response) from e", None)]
        if kind == "403":
            exc = "huggingface_hub.utils._errors.HfHubHTTPError: 403 Client Error: Forbidden for url: https://huggingface.co/api/models/%s/commit/main (Request ID: Root=1-%08x-%s)\n\nYou don't have the rights to create a model under the namespace \"%s\".\nCannot access content at: https://huggingface.co/api/models/%s/commit/main.\nIf you are trying to create or update content, make sure you have a token with the `write` role." % (
                repo, rng.randrange(16 ** 8), "".join(rng.choice("0123456789abcdef") for _ in range(24)), repo.split("/")[0], repo)
        elif kind == "413":
            exc = "huggingface_hub.utils._errors.HfHubHTTPError: 413 Client Error: Payload Too Large for url: https://huggingface.co/api/models/%s/preupload/main" % repo
        else:
            fr = fr[:-2] + [("%s/huggingface_hub/_commit_api.py" % T.site, 433, "_upload_lfs_object", "lfs_upload(operation=operation, lfs_batch_action=batch_action, headers=headers, endpoint=endpoint)", None),
                            ("%s/requests/adapters.py" % T.site, 501, "send", "raise ConnectionError(err, request=request)", None)]
            exc = "requests.exceptions.ConnectionError: (ProtocolError('Connection aborted.', ConnectionResetError(104, 'Connection reset by peer')), '(Request ID: %s)')" % "".join(rng.choice("0123456789abcdef") for _ in range(32))
            for i in range(3):
                j.out(0, tf - 40 + i * 12, "%s/huggingface_hub/utils/_http.py:%d: UserWarning: '(ProtocolError('Connection aborted.', ConnectionResetError(104, 'Connection reset by peer')), '(Request ID: ...)')' thrown while requesting PUT https://hf-hub-lfs-us-east-1.s3-accelerate.amazonaws.com/repos/.... Retrying in %ds [Retry %d/5]." % (T.site, 307, 2 ** i, i + 1), err=True)
    else:
        bucket = rng.choice(["ml-ckpts", "acme-train-artifacts", "team-llm"])
        fr = fr_phase(j, "upload") + [("%s/trainer/upload.py" % T.workdir, 41, "upload_dir", "s3.upload_file(str(p), bucket, key)", None),
                                      ("%s/boto3/s3/inject.py" % T.site, 145, "upload_file", "return transfer.upload_file(", None),
                                      ("%s/boto3/s3/transfer.py" % T.site, 377, "upload_file", "raise S3UploadFailedError(", None)]
        kind = rng.choice(["denied", "endpoint", "expired"])
        if kind == "denied":
            exc = "boto3.exceptions.S3UploadFailedError: Failed to upload %s/model-00001-of-00004.safetensors to %s/%s/model-00001-of-00004.safetensors: An error occurred (AccessDenied) when calling the CreateMultipartUpload operation: Access Denied" % (T.ckpt_path, bucket, T.run_name)
        elif kind == "expired":
            exc = "boto3.exceptions.S3UploadFailedError: Failed to upload %s/model-00002-of-00004.safetensors to %s/%s/model-00002-of-00004.safetensors: An error occurred (ExpiredToken) when calling the UploadPart operation: The provided token has expired." % (T.ckpt_path, bucket, T.run_name)
        else:
            fr = fr[:-2] + [("%s/botocore/httpsession.py" % T.site, 493, "send", "raise EndpointConnectionError(endpoint_url=request.url, error=e)", None)]
            exc = "botocore.exceptions.EndpointConnectionError: Could not connect to the endpoint URL: \"https://%s.s3.us-west-2.amazonaws.com/%s/model-00001-of-00004.safetensors?uploadId=%s&partNumber=%d\"" % (bucket, T.run_name, "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(20)), rng.randint(1, 400))
    exc_exit(j, 0, tf, fr, exc)
    if others_wait:
        wait_all(j, others(j, 0), t + rng.uniform(0.1, 1), "BARRIER" if T.tv >= (2, 3) else "ALLREDUCE", 1)
    else:
        t3 = exit_noise_ok(j, t, j.destroy)
        for r in others(j, 0):
            j.plan_exit(r, t3 + rng.uniform(0, 2), 0)
    return {"cause": "python_exception", "rank": 0, "node": 0,
            "notes": "Training, final save%s finished. The upload of the final model from rank 0 to %s failed with an uncaught exception (%s). This is an object-store/Hub client error, not the training's collective network. %s" % (
                " and eval" if j.final_eval else "", "the Hugging Face Hub" if j.upload == "hf" else "S3", exc.split("\n")[0][:90], "Other ranks were waiting in a final barrier and were torn down." if others_wait else "Other ranks had already exited 0.")}


@scen("python_exception", layouts=["pipeline_post"])
def py_merge_lora_mismatch(run):
    j, t = begin(run)
    T = j.T
    rng = j.rng
    final_opts(j)
    j.upload = None
    t = healthy_tail(j, t)
    tt = t + 25
    base = rng.choice(["meta-llama/Meta-Llama-3-8B", "mistralai/Mistral-7B-v0.1", "Qwen/Qwen2-7B"])
    lines = [(tt, "Loading base model %s" % base),
             (tt + 2, "Loading checkpoint shards: 100%%|██████████| 4/4 [00:%02d<00:00,  %.2fit/s]" % (rng.randint(8, 40), rng.uniform(0.1, 0.5))),
             (tt + 40, "Loading adapter from %s/checkpoint-%d" % (T.ckpt_path, j.total_steps))]
    kind = rng.choice(["size", "target", "keyerr"])
    if kind == "size":
        exc = ("Traceback (most recent call last):\n  File \"%s/tools/merge_lora.py\", line 38, in <module>\n    model = PeftModel.from_pretrained(base_model, args.adapter)\n  File \"%s/peft/peft_model.py\", line 541, in from_pretrained\n    model.load_adapter(\n  File \"%s/peft/peft_model.py\", line 1118, in load_adapter\n    load_result = set_peft_model_state_dict(\n  File \"%s/peft/utils/save_and_load.py\", line 395, in set_peft_model_state_dict\n    load_result = model.load_state_dict(peft_model_state_dict, strict=False)\n  File \"%s/torch/nn/modules/module.py\", line 2215, in load_state_dict\n    raise RuntimeError('Error(s) in loading state_dict for {}:\\n\\t{}'.format(\nRuntimeError: Error(s) in loading state_dict for PeftModelForCausalLM:\n\tsize mismatch for base_model.model.model.embed_tokens.weight: copying a param with shape torch.Size([%d, 4096]) from checkpoint, the shape in current model is torch.Size([%d, 4096]).\n\tsize mismatch for base_model.model.lm_head.weight: copying a param with shape torch.Size([%d, 4096]) from checkpoint, the shape in current model is torch.Size([%d, 4096])."
               % (T.workdir, T.site, T.site, T.site, T.site, 128264, 128256, 128264, 128256))
    elif kind == "target":
        exc = ("Traceback (most recent call last):\n  File \"%s/tools/merge_lora.py\", line 38, in <module>\n    model = PeftModel.from_pretrained(base_model, args.adapter)\n  File \"%s/peft/tuners/tuners_utils.py\", line 501, in inject_adapter\n    raise ValueError(\nValueError: Target modules {'w1', 'w2', 'w3'} not found in the base model. Please check the target modules and try again." % (T.workdir, T.site))
    else:
        exc = ("Traceback (most recent call last):\n  File \"%s/tools/merge_lora.py\", line 52, in <module>\n    merged.save_pretrained(args.out, safe_serialization=True, max_shard_size=\"5GB\")\n  File \"%s/transformers/modeling_utils.py\", line 2567, in save_pretrained\n    raise RuntimeError(\nRuntimeError: The weights trying to be saved contained shared tensors [{'model.embed_tokens.weight', 'lm_head.weight'}] that are mismatching the transformers base configuration. Try saving using `safe_serialization=False` or remove this tensor sharing." % (T.workdir, T.site))
    lines.append((tt + 44, exc))
    run.post.append({"step": "merge_lora", "lines": lines, "rc": 1, "t_end": tt + 46, "base": base})
    return {"cause": "python_exception", "rank": None, "node": 0,
            "notes": "Training itself completed and saved. The post-processing step merge_lora (a single Python process) failed with an uncaught exception (%s), so the pipeline reports failure." % {"size": "state_dict size mismatch: embeddings were resized during training", "target": "target modules not found in the base model", "keyerr": "shared tensors while saving"}[kind]}


# ============================================================================= host_oom_kill
@scen("host_oom_kill")
def hoom_consolidate_rank0(run):
    j, t = begin(run)
    T = j.T
    rng = j.rng
    final_opts(j)
    t = train_end_banner(j, t)
    n = 0
    def body(j, t, path, dur):
        j.log(0, t + 0.1, "Gathering full state dict on rank 0 (offload_to_cpu=True, rank0_only=True)", src="checkpoint")
        tf = t + rng.uniform(30, 200)
        cg = T.layout in ("slurm_torchrun", "slurm_srun", "k8s_pytorchjob") or rng.random() < 0.3
        oom_kill_kernel(T, n, tf, j.pid[0], cg, rng.uniform(400, 1900), jobid=T.jobid)
        j.plan_exit(0, tf + 0.05, -9)
        if T.layout == "slurm_srun":
            j.oom_step = 1
            j.oom_rank = 0
        if T.layout == "k8s_pytorchjob":
            run.k8s_oom = 0
        wait_all(j, others(j, 0), tf - rng.uniform(5, 20), "_ALLGATHER_BASE", rng.choice([131334144, 262668288]))
        return tf
    save_phase(j, t, j.total_steps, final=True, body=body)
    attach_dmesg(run, [n])
    return {"cause": "host_oom_kill", "rank": 0, "node": 0,
            "notes": "Final save consolidates the full (unsharded) model + optimizer state in CPU RAM on rank 0. Host memory ran out and the kernel OOM killer SIGKILLed rank 0's process (pid %d) on %s; the remaining ranks hung in the all-gather and were torn down." % (j.pid[0], T.short[0])}


@scen("host_oom_kill", layouts=["pipeline_post"])
def hoom_merge_lora_cpu(run):
    j, t = begin(run)
    T = j.T
    rng = j.rng
    final_opts(j)
    j.upload = None
    t = healthy_tail(j, t)
    tt = t + 20
    pid = rng.randrange(10 ** 5, 4 * 10 ** 6)
    base = rng.choice(["meta-llama/Meta-Llama-3-70B", "Qwen/Qwen2-72B", "mistralai/Mixtral-8x22B-v0.1"])
    lines = [(tt, "Loading base model %s on cpu (torch_dtype=float32)" % base),
             (tt + 400, "Loading checkpoint shards:  %d%%|%s| %d/30 [%s<%s, %.2fs/it]" % (rng.randint(60, 90), "███████▋  ", rng.randint(18, 27), hms(400), hms(200), 14.2))]
    oom_kill_kernel(T, 0, tt + 600, pid, False, rng.uniform(480, 1000))
    run.post.append({"step": "merge_lora", "lines": lines, "rc": 137, "t_end": tt + 600.1, "killed_pid": pid, "base": base, "cpu": True})
    attach_dmesg(run, [0], clean_extra=False)
    return {"cause": "host_oom_kill", "rank": None, "node": 0,
            "notes": "Training finished fine. The post step merge_lora loads the %s base model in float32 on CPU; the kernel OOM killer killed it (pid %d). The pipeline only shows 'Killed' / rc 137; dmesg has the OOM kill." % (base, pid)}


@scen("host_oom_kill")
def hoom_eval_workers(run):
    j = run.new_job()
    T = j.T
    rng = j.rng
    t = fw_startup(j, j.t_start)
    rank_banners(j, j.t_start + 6)
    t0 = t
    stop = j.total_steps - j.eval_every if j.total_steps > 2 * j.eval_every else j.total_steps
    stop -= stop % j.eval_every
    t = train_range(j, t, 0, stop, evals=False)
    if j.head_trim:
        j.t_vis = t0 + (t - t0) * (j.vis_start / max(1, stop)) - 1
    n = rng.randrange(T.nnodes)
    bad = rng.choice(T.ranks_of(n))
    wpid = j.pid[bad] + rng.randrange(300, 5000)
    def body(j, t, neval, dur):
        tf = t + rng.uniform(5, 60)
        oom_kill_kernel(T, n, tf, wpid, T.layout in ("slurm_torchrun", "slurm_srun") and rng.random() < 0.7, rng.uniform(60, 240), name="pt_data_worker" if T.tv >= (2, 3) and rng.random() < 0.5 else "python", jobid=T.jobid)
        fr = fr_phase(j, "eval") + [("%s/torch/utils/data/dataloader.py" % T.site, 630, "__next__", "data = self._next_data()", None),
                                    ("%s/torch/utils/data/dataloader.py" % T.site, 1327, "_next_data", "idx, data = self._get_data()", None),
                                    ("%s/torch/utils/data/dataloader.py" % T.site, 1283, "_get_data", "success, data = self._try_get_data()", None),
                                    ("%s/torch/utils/data/dataloader.py" % T.site, 1144, "_try_get_data", "raise RuntimeError(f'DataLoader worker (pid(s) {pids_str}) exited unexpectedly') from e", None)]
        chain = [([("%s/torch/utils/data/dataloader.py" % T.site, 1131, "_try_get_data", "data = self._data_queue.get(timeout=timeout)", None),
                   ("/usr/lib/python%s/queue.py" % T.py, 180, "get", "self.not_empty.wait(remaining)", None),
                   ("/usr/lib/python%s/threading.py" % T.py, 324, "wait", "gotit = waiter.acquire(True, timeout)", None),
                   ("%s/torch/utils/data/_utils/signal_handling.py" % T.site, 73, "handler", "_error_if_any_worker_fails()", None)],
                  "RuntimeError: DataLoader worker (pid %d) is killed by signal: Killed. " % wpid, "The above exception was the direct cause of the following exception:")]
        exc_exit(j, bad, tf + rng.uniform(0.1, 1), fr, "RuntimeError: DataLoader worker (pid(s) %d) exited unexpectedly" % wpid, chain=chain)
        wait_all(j, others(j, bad), tf + rng.uniform(0, 5), "ALLREDUCE", 1)
        return tf
    j.log(0, t - 0.2, "Creating eval dataloader (num_workers=%d, prefetch_factor=%d)" % (rng.choice([8, 12, 16]), rng.choice([4, 8])), src="eval")
    eval_phase(j, t, stop, body=body)
    attach_dmesg(run, [n])
    return {"cause": "host_oom_kill", "rank": bad, "node": n,
            "notes": "At the train->eval switch (step %d) each rank spawned a fresh set of eval DataLoader workers on top of the persistent training workers; host RAM on %s ran out and the kernel OOM killer killed a data worker (pid %d) of rank %d, which then raised 'DataLoader worker ... exited unexpectedly'." % (stop, T.short[n], wpid, bad)}


# ============================================================================= crash_signal
@scen("crash_signal")
def cs_segv_teardown(run):
    j, t = begin(run)
    T = j.T
    rng = j.rng
    final_opts(j)
    j.upload = None
    t = train_end_banner(j, t)
    t = save_phase(j, t, j.total_steps, final=True)
    if j.final_eval:
        t = eval_phase(j, t, j.total_steps, final=True)
    bad = rng.randrange(T.world)
    tf = t + rng.uniform(1, 5)
    where = rng.choice(["destroy", "atexit", "gc"])
    s = T.site
    if where == "destroy":
        stack = ["  File \"%s/torch/distributed/distributed_c10d.py\", line %d in _shutdown_backend" % (s, 1610 if T.tv >= (2, 4) else 1560),
                 "  File \"%s/torch/distributed/distributed_c10d.py\", line %d in destroy_process_group" % (s, 1880 if T.tv >= (2, 4) else 1721),
                 "  File \"%s/%s\", line 531 in main" % (T.workdir, T.script), "  File \"%s/%s\", line 541 in <module>" % (T.workdir, T.script)]
    elif where == "atexit":
        stack = ["  File \"%s/torch/utils/data/dataloader.py\", line 1568 in _shutdown_workers" % s, "  File \"%s/torch/utils/data/dataloader.py\", line 1604 in __del__" % s]
    else:
        stack = ["  File \"%s/triton/runtime/driver.py\", line 35 in __getattr__" % s, "  File \"%s/torch/_inductor/codecache.py\", line 2610 in _worker_compile" % s]
    txt = "Fatal Python error: Segmentation fault\n\nThread 0x00007f%010x (most recent call first):\n  <no Python frame>\n\nThread 0x00007f%010x (most recent call first):\n%s\n\nExtension modules: numpy.core._multiarray_umath, numpy.core._multiarray_tests, numpy.linalg._umath_linalg, torch._C, torch._C._fft, torch._C._linalg, torch._C._nested, torch._C._nn, torch._C._sparse, torch._C._special, yaml._yaml, psutil._psutil_linux, pyarrow.lib, %s (total: %d)" % (
        rng.randrange(16 ** 10), rng.randrange(16 ** 10), "\n".join(stack), rng.choice(["sentencepiece._sentencepiece", "regex._regex", "zstandard.backend_c"]), rng.randint(60, 140))
    j.out(bad, tf, txt, err=True)
    j.plan_exit(bad, tf + 0.05, -11)
    t3 = exit_noise_ok(j, tf - 1.5, j.destroy)
    for r in others(j, bad):
        j.plan_exit(r, t3 + rng.uniform(0, 2), 0)
    return {"cause": "crash_signal", "rank": bad, "node": T.node_of(bad),
            "notes": "Training, the final save%s completed; at process exit rank %d segfaulted (SIGSEGV, %s). No GPU/hardware errors. The checkpoint is intact but the launcher reports the job as failed." % (" and eval" if j.final_eval else "", bad, {"destroy": "inside destroy_process_group/NCCL shutdown", "atexit": "in the DataLoader iterator destructor at interpreter shutdown", "gc": "in a compile worker during interpreter shutdown"}[where])}


@scen("crash_signal")
def cs_sigbus_shm_eval(run):
    j = run.new_job()
    T = j.T
    rng = j.rng
    t = fw_startup(j, j.t_start)
    rank_banners(j, j.t_start + 6)
    t0 = t
    stop = j.total_steps
    t = train_range(j, t, 0, stop, evals=False)
    if j.head_trim:
        j.t_vis = t0 + (t - t0) * (j.vis_start / max(1, stop)) - 1
    final_opts(j)
    t = train_end_banner(j, t)
    t = save_phase(j, t, j.total_steps, final=True)
    bad = rng.randrange(T.world)
    wpid = j.pid[bad] + rng.randrange(300, 5000)
    def body(j, t, neval, dur):
        tf = t + rng.uniform(3, 40)
        j.out(bad, tf, "ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).\n", err=True)
        fr = fr_phase(j, "final_eval") + [("%s/torch/utils/data/dataloader.py" % T.site, 630, "__next__", "data = self._next_data()", None),
                                          ("%s/torch/utils/data/dataloader.py" % T.site, 1327, "_next_data", "idx, data = self._get_data()", None),
                                          ("%s/torch/utils/data/dataloader.py" % T.site, 1293, "_get_data", "success, data = self._try_get_data()", None),
                                          ("%s/torch/utils/data/dataloader.py" % T.site, 1131, "_try_get_data", "data = self._data_queue.get(timeout=timeout)", None),
                                          ("/usr/lib/python%s/multiprocessing/queues.py" % T.py, 113, "get", "if not self._poll(timeout):", None),
                                          ("%s/torch/utils/data/_utils/signal_handling.py" % T.site, 73, "handler", "_error_if_any_worker_fails()", None)]
        exc_exit(j, bad, tf + 0.2, fr, "RuntimeError: DataLoader worker (pid %d) is killed by signal: Bus error. It is possible that dataloader's workers are out of shared memory. Please try to raise your shared memory limit." % wpid)
        wait_all(j, others(j, bad), tf + rng.uniform(0, 5), "ALLREDUCE", 1)
        return tf
    eval_phase(j, t, j.total_steps, final=True, body=body)
    if T.layout == "k8s_pytorchjob":
        run.k8s_note = "shm"
    return {"cause": "crash_signal", "rank": bad, "node": T.node_of(bad),
            "notes": "Final evaluation after the last save: the eval DataLoader workers of rank %d died with SIGBUS because /dev/shm was exhausted (small shm mount); rank %d raised, the others waited in the eval all-reduce. No hardware involvement." % (bad, bad)}


@scen("crash_signal")
def cs_abort_async_ckpt(run):
    j, t = begin(run)
    T = j.T
    rng = j.rng
    final_opts(j)
    t = train_end_banner(j, t)
    bad = rng.randrange(T.world)
    def body(j, t, path, dur):
        tf = t + rng.uniform(2, dur * 0.5)
        msg = rng.choice(["double free or corruption (!prev)", "free(): invalid pointer", "corrupted size vs. prev_size", "malloc(): unaligned tcache chunk detected"])
        j.out(bad, tf, "%s\nFatal Python error: Aborted\n\nThread 0x00007f%010x (most recent call first):\n  File \"%s/torch/distributed/checkpoint/filesystem.py\", line 362 in _write_files_from_queue\n  File \"/usr/lib/python%s/threading.py\", line 953 in run\n  File \"/usr/lib/python%s/threading.py\", line 1016 in _bootstrap_inner\n  File \"/usr/lib/python%s/threading.py\", line 973 in _bootstrap\n\nCurrent thread 0x00007f%010x (most recent call first):\n  File \"%s/torch/distributed/checkpoint/filesystem.py\", line 590 in write_data\n  File \"%s/torch/distributed/checkpoint/state_dict_saver.py\", line 329 in write_data\n\nExtension modules: numpy.core._multiarray_umath, torch._C, torch._C._nn, zstandard.backend_c, %s (total: %d)" % (
            msg, rng.randrange(16 ** 10), T.site, T.py, T.py, T.py, rng.randrange(16 ** 10), T.site, T.site, rng.choice(["tensorstore._tensorstore", "numcodecs.blosc", "lz4._version"]), rng.randint(40, 120)), err=True)
        j.plan_exit(bad, tf + 0.05, -6)
        wait_all(j, others(j, bad), tf + rng.uniform(0, 8), "ALLREDUCE" if rng.random() < 0.5 else "GATHER", 1)
        return tf
    save_phase(j, t, j.total_steps, final=True, body=body)
    return {"cause": "crash_signal", "rank": bad, "node": T.node_of(bad),
            "notes": "Final checkpoint (torch.distributed.checkpoint with threaded file writers): rank %d's process hit glibc heap corruption in a writer thread and aborted (SIGABRT). The other ranks waited in the checkpoint's collective and later aborted too, but with NCCL watchdog SIGABRTs, which are collateral." % bad}


# ============================================================================= preemption
@scen("preemption", layouts=SLURM)
def pre_time_limit_final_save(run):
    j, t = begin(run)
    T = j.T
    rng = j.rng
    final_opts(j)
    t = train_end_banner(j, t)
    where = rng.choice(["save", "eval", "upload"])
    if where == "save":
        def body(j, t, path, dur):
            return t
        save_phase(j, t, j.total_steps, final=True, body=body)
        tl = t + rng.uniform(5, 60)
    else:
        t = save_phase(j, t, j.total_steps, final=True)
        if where == "eval":
            j.log(0, t, "Running final evaluation", src="eval")
            tl = t + rng.uniform(10, 300)
        else:
            j.log(0, t, "Uploading final checkpoint to s3://%s/%s" % (rng.choice(["ml-ckpts", "team-llm"]), T.run_name), src="upload")
            tl = t + rng.uniform(10, 300)
    j.sched_events.append((tl, "sig", "TIME LIMIT"))
    if T.fw == "lightning" or rng.random() < 0.4:
        for r in ([0] if rng.random() < 0.6 else list(range(min(T.world, 8)))):
            j.out(r, tl + rng.uniform(0.05, 0.5), "Received signal 15 (SIGTERM): bypassing signal handler, exiting" if T.fw == "lightning" else "[rank%d] caught SIGTERM, no time left for an emergency checkpoint, exiting" % r, err=True)
    run.sacct_state = "TIMEOUT"
    return {"cause": "preemption", "rank": None, "node": None,
            "notes": "The job hit its Slurm wall-clock limit right after the last training step, while %s. slurmstepd cancelled the job DUE TO TIME LIMIT and every task got SIGTERM; the model reached the final step but the %s did not complete." % (
                {"save": "the final checkpoint was being written", "eval": "the final evaluation was running", "upload": "the final upload was running"}[where], {"save": "final save", "eval": "final eval", "upload": "upload"}[where])}


@scen("preemption", layouts=["k8s_pytorchjob", "torchrun_nodes", "deepspeed_pdsh", "accelerate", "torchelastic_logdir"])
def pre_spot_reclaim(run):
    j, t = begin(run)
    T = j.T
    rng = j.rng
    final_opts(j)
    t = train_end_banner(j, t)
    where = rng.choice(["save", "eval"])
    n = rng.randrange(T.nnodes)
    if where == "save":
        def body(j, t, path, dur):
            return t
        save_phase(j, t, j.total_steps, final=True, body=body)
        tp = t + rng.uniform(5, 60)
    else:
        t = save_phase(j, t, j.total_steps, final=True)
        j.log(0, t, "Running final evaluation", src="eval")
        tp = t + rng.uniform(10, 200)
    j.sched_events.append((tp, "nsig", n))
    j.sched_events.append((tp + 30, "nodelost", n))
    if T.layout != "k8s_pytorchjob":
        run.cloud_event = (n, tp)
    else:
        run.k8s_evict = (n, tp)
    if T.nnodes > 1:
        wait_all(j, others(j, T.ranks_of(n)), tp - rng.uniform(1, 30), "_ALLGATHER_BASE" if where == "save" else "ALLREDUCE", 1)
    return {"cause": "preemption", "rank": None, "node": n,
            "notes": "Right after the last step (during the final %s), the cloud provider reclaimed the spot/preemptible VM %s. Its processes got SIGTERM and the machine went away%s." % (
                {"save": "checkpoint save", "eval": "evaluation"}[where], T.short[n], "; the other nodes lost their peers and failed with rendezvous/NCCL errors, which are collateral" if T.nnodes > 1 else "")}


@scen("preemption", layouts=SLURM)
def pre_requeue_preempted(run):
    # attempt 0: preempted by a higher priority job mid-run; attempt 1 resumes and is preempted again at the end
    j0, t = begin(run)
    T = j0.T
    rng = j0.rng
    cut, tl, resume = cut_attempt(j0)
    j0.sched_events.append((tl + 1, "sig", "PREEMPTION"))
    resolve(j0)
    j1 = run.new_job(resume_from=resume, total=j0.total_steps, t_start=j0.t_end + rng.uniform(300, 7200))
    t = fw_startup(j1, j1.t_start)
    rank_banners(j1, j1.t_start + 6)
    t = train_range(j1, t, resume, j1.total_steps)
    final_opts(j1)
    t = train_end_banner(j1, t)
    def body(j, t, path, dur):
        return t
    save_phase(j1, t, j1.total_steps, final=True, body=body)
    j1.sched_events.append((t + rng.uniform(3, 50), "sig", "PREEMPTION"))
    run.sacct_state = "PREEMPTED"
    run.requeue = True
    return {"cause": "preemption", "rank": None, "node": None,
            "notes": "Slurm preempted the job for a higher-priority reservation twice: once mid-run (attempt 1, requeued, resumed from step %d) and again right after the final step while the last checkpoint was written. Both ends are scheduler cancellations DUE TO PREEMPTION." % resume}


# ============================================================================= hang
@scen("hang", layouts=ALL_MULTI + ["pipeline_post"])
def hang_save_stuck_fs(run):
    j, t = begin(run)
    T = j.T
    rng = j.rng
    final_opts(j)
    t = train_end_banner(j, t)
    bad = rng.randrange(T.world)
    n = T.node_of(bad)
    fs = rng.choice(["nfs", "lustre", "fuse"])
    def body(j, t, path, dur):
        tw = t + 1
        for r in range(T.world):
            if T.world > 64 and r % max(1, T.world // 64) and r != bad:
                continue
            j.out(r, tw + r * 0.0005, "[rank%d] writing checkpoint shard %s/__%d_0.distcp" % (r, path, r))
        for r in range(T.world):
            if r == bad or (T.world > 64 and r % max(1, T.world // 64)):
                continue
            te = tw + rng.uniform(dur * 0.4, dur)
            j.out(r, te, "[rank%d] shard written (%.2f GiB, %.1fs)" % (r, rng.uniform(1.5, 9), te - tw))
        tb = tw + dur + 2
        j.log(0, tb, "waiting for all ranks to finish writing (barrier)", src="checkpoint")
        if fs == "nfs":
            srv = rng.choice(["filer01", "nas-ckpt", "10.20.0.15", "fsx-nfs"])
            T.kmsg(n, tw + dur * 0.3, "nfs: server %s not responding, still trying" % srv)
            for k in range(rng.randint(1, 3)):
                T.kmsg(n, tw + dur * 0.3 + 5 + k * 3, "nfs: server %s not responding, still trying" % srv)
        elif fs == "lustre":
            T.kmsg(n, tw + dur * 0.3, "LustreError: 11-0: scratch-OST00%02x-osc-ffff%012x: operation ost_write to node 10.%d.%d.%d@o2ib failed: rc = -107" % (rng.randrange(64), rng.randrange(16 ** 12), rng.randrange(8), rng.randrange(255), rng.randrange(255)))
            T.kmsg(n, tw + dur * 0.3 + 0.1, "Lustre: scratch-OST00%02x-osc-ffff%012x: Connection to scratch-OST00%02x (at 10.%d.%d.%d@o2ib) was lost; in progress operations using this service will wait for recovery to complete" % (rng.randrange(64), rng.randrange(16 ** 12), rng.randrange(64), rng.randrange(8), rng.randrange(255), rng.randrange(255)))
        else:
            T.kmsg(n, tw + dur * 0.3, "s3fs: curl_easy_perform() timed out on /ckpt (write) - retrying")
        for k in range(rng.randint(1, 2)):
            th = tw + 125 + k * 120
            T.kmsg(n, th, "INFO: task python:%d blocked for more than %d seconds." % (j.pid[bad], 120 * (k + 1)))
            T.kmsg(n, th + 0.001, "      Tainted: P           OE     5.15.0-%d-generic #%d-Ubuntu" % (rng.randrange(80, 130), rng.randrange(80, 140)))
            T.kmsg(n, th + 0.002, "\"echo 0 > /proc/sys/kernel/hung_task_timeout_secs\" disables this message.")
            T.kmsg(n, th + 0.003, "task:python          state:D stack:    0 pid:%d ppid:%d flags:0x00004002" % (j.pid[bad], j.apid[n]))
            T.kmsg(n, th + 0.004, "Call Trace:\n <TASK>\n __schedule+0x2e3/0x740\n schedule+0x69/0x110\n io_schedule+0x46/0x80\n %s\n %s\n vfs_write+0xb9/0x280\n ksys_write+0x67/0xf0\n __x64_sys_write+0x19/0x30\n do_syscall_64+0x5c/0xc0\n entry_SYSCALL_64_after_hwframe+0x62/0xcc\n </TASK>" % (
                {"nfs": "nfs_wait_bit_killable+0x21/0x90 [nfs]", "lustre": "cl_sync_io_wait+0x1c4/0x360 [obdclass]", "fuse": "fuse_simple_request+0x1b3/0x2f0 [fuse]"}[fs],
                {"nfs": "nfs_file_write+0x1bd/0x2a0 [nfs]", "lustre": "ll_file_io_generic+0x4a8/0xb10 [lustre]", "fuse": "fuse_perform_write+0x2b1/0x560 [fuse]"}[fs]))
        j.keep_alive_after.add(bad)
        wait_all(j, others(j, bad), tb + rng.uniform(0, 2), "BARRIER" if T.tv >= (2, 3) else "ALLREDUCE", 1)
        return tb
    save_phase(j, t, j.total_steps, final=True, body=body)
    attach_dmesg(run, [n])
    return {"cause": "hang", "rank": bad, "node": n,
            "notes": "Decision: hang (not data_loader_stall) - the stuck I/O is the checkpoint WRITE, not the data path. During the final save rank %d's write on %s blocked in the kernel (%s not responding, task in D state, pid %d); it never logged 'shard written', and every other rank timed out in the post-save barrier. The stuck process even survived SIGTERM." % (bad, T.short[n], fs, j.pid[bad])}


@scen("hang", layouts=["slurm_torchrun", "slurm_srun", "torchrun_nodes", "torchelastic_logdir"])
def hang_at_exit_destroy(run):
    j, t = begin(run)
    T = j.T
    rng = j.rng
    final_opts(j)
    j.upload = None
    j.destroy = True
    t = train_end_banner(j, t)
    t = save_phase(j, t, j.total_steps, final=True)
    if j.final_eval:
        t = eval_phase(j, t, j.total_steps, final=True)
    bad = rng.randrange(T.world)
    t2 = t + rng.uniform(0.5, 2)
    per_rank = T.world <= 128
    for r in range(T.world):
        if per_rank or r == 0:
            j.log(r, t2 + rng.uniform(0, 0.5), "[rank%d] training done, destroying process group" % r, src="main")
    for r in range(T.world):
        if r == bad:
            continue
        if per_rank:
            j.log(r, t2 + rng.uniform(1, 3), "[rank%d] exit" % r, src="main")
        j.plan_exit(r, t2 + rng.uniform(3, 6), 0)
    later = t2 + rng.uniform(2, 8) * 3600
    if T.layout.startswith("slurm"):
        j.sched_events.append((later, "sig", "TIME LIMIT"))
        if not (T.launcher == "torchrun" and T.nnodes > 1 and T.node_of(bad) != 0):
            run.sacct_state = "TIMEOUT"
    else:
        j.sched_events.append((later, "sig", "user"))
    run.files["pyspy_rank%d_%s.txt" % (bad, T.short[T.node_of(bad)])] = ("text", pyspy_dump(j, bad, [
        ("_shutdown_backend (torch/distributed/distributed_c10d.py:%d)" % (1610 if T.tv >= (2, 4) else 1560), ""),
        ("destroy_process_group (torch/distributed/distributed_c10d.py:%d)" % (1880 if T.tv >= (2, 4) else 1721), ""),
        ("main (%s:531)" % T.script, ""), ("<module> (%s:541)" % T.script, "")]).replace(" ()", ""))
    rdzv = T.launcher == "torchrun" and T.nnodes > 1 and T.node_of(bad) != 0
    if rdzv:
        tail = "When node 0's launcher left after its exit-barrier timeout, the stuck node's launcher lost the rendezvous store, sent SIGTERM to the stuck worker and failed with RendezvousConnectionError; the RendezvousConnectionError/exit-barrier errors are consequences of the teardown hang."
    else:
        tail = "The job then sat idle until it was killed %s, so the visible %s is a consequence of the teardown hang." % ("by the Slurm time limit" if T.layout.startswith("slurm") else "by the user", "TIME LIMIT" if T.layout.startswith("slurm") else "SIGTERM")
    return {"cause": "hang", "rank": bad, "node": T.node_of(bad),
            "notes": "Everything finished (final save%s). At teardown rank %d blocked forever in destroy_process_group (NCCL communicator shutdown); the other ranks exited 0 and their launchers waited on the exit barrier. %s" % (
                " and eval" if j.final_eval else "", bad, tail)}


@scen("hang")
def hang_eval_rank_stuck(run):
    j = run.new_job()
    T = j.T
    rng = j.rng
    t = fw_startup(j, j.t_start)
    rank_banners(j, j.t_start + 6)
    t0 = t
    stop = j.total_steps
    t = train_range(j, t, 0, stop)
    if j.head_trim:
        j.t_vis = t0 + (t - t0) * (j.vis_start / max(1, stop)) - 1
    final_opts(j)
    t = train_end_banner(j, t)
    t = save_phase(j, t, j.total_steps, final=True)
    bad = rng.randrange(T.world)
    desync = rng.random() < 0.5 and T.tv >= (2, 1)
    def body(j, t, neval, dur):
        tf = t + rng.uniform(5, dur * 0.6)
        seq = barrier_seq(j)
        watchdog_many(j, others(j, bad), tf, seq, "ALLREDUCE", 1, nfull=6)
        if desync:
            tmo = j.timeout_ms / 1000.0
            for r in [0] + rng.sample(others(j, [0, bad]), min(3, max(0, T.world - 2))):
                if r == bad:
                    continue
                j.cxx(r, tf + tmo + 3.1, "E", "ProcessGroupNCCL.cpp:%d" % rng.choice([1395, 1227, 1560]),
                      "[Rank %d]  - [0] Timeout at collective: ALLREDUCE, #%d\n - To our best knowledge, ranks [%d] are the lagging ranks that caused this timeout. They never joined any collectives" % (r, seq, bad))
        return tf
    eval_phase(j, t, j.total_steps, final=True, body=body)
    return {"cause": "hang", "rank": bad if desync else None, "node": T.node_of(bad) if desync else None,
            "notes": "Final evaluation after the last save: rank %d stopped making progress before entering the eval all-reduce (no error of its own, no hardware messages) and the other ranks timed out in that all-reduce. %s" % (bad, "NCCL desync debug names it as the lagging rank." if desync else "Without desync debug the logs show only the timeouts, so the stuck rank cannot be pinned down from them (launchers kill many ranks before their own watchdog fires).")}


# ============================================================================= data_loader_stall
@scen("data_loader_stall")
def dl_eval_switch_nfs(run):
    j = run.new_job()
    T = j.T
    rng = j.rng
    t = fw_startup(j, j.t_start)
    rank_banners(j, j.t_start + 6)
    t0 = t
    stop = j.total_steps - j.eval_every if j.total_steps > 2 * j.eval_every else j.total_steps
    stop -= stop % j.eval_every
    t = train_range(j, t, 0, stop, evals=False)
    if j.head_trim:
        j.t_vis = t0 + (t - t0) * (j.vis_start / max(1, stop)) - 1
    bad = rng.randrange(T.world)
    n = T.node_of(bad)
    dlto = rng.random() < 0.5
    srv = rng.choice(["filer01", "nas-data", "10.20.0.15", "fsx-data"])
    def body(j, t, neval, dur):
        tf = t + rng.uniform(0.5, 5)
        T.kmsg(n, tf + 2, "nfs: server %s not responding, still trying" % srv)
        T.kmsg(n, tf + 30, "nfs: server %s not responding, timed out" % srv)
        if dlto:
            to = min(j.timeout_ms / 1000.0 - 60, rng.choice([300, 600, 900]))
            fr = fr_phase(j, "eval") + [("%s/torch/utils/data/dataloader.py" % T.site, 630, "__next__", "data = self._next_data()", None),
                                        ("%s/torch/utils/data/dataloader.py" % T.site, 1327, "_next_data", "idx, data = self._get_data()", None),
                                        ("%s/torch/utils/data/dataloader.py" % T.site, 1283, "_get_data", "success, data = self._try_get_data()", None),
                                        ("%s/torch/utils/data/dataloader.py" % T.site, 1144, "_try_get_data", "raise RuntimeError(f'DataLoader timed out after {timeout} seconds') from e", None)]
            chain = [([("%s/torch/utils/data/dataloader.py" % T.site, 1131, "_try_get_data", "data = self._data_queue.get(timeout=timeout)", None),
                       ("/usr/lib/python%s/queue.py" % T.py, 179, "get", "raise Empty", None)], "_queue.Empty", "The above exception was the direct cause of the following exception:")]
            exc_exit(j, bad, tf + to, fr, "RuntimeError: DataLoader timed out after %d seconds" % to, chain=chain)
        else:
            run.files["pyspy_rank%d_%s.txt" % (bad, T.short[n])] = ("text", pyspy_dump(j, bad, [
                ("wait (threading.py:324)", ""), ("get (queue.py:180)", ""),
                ("_try_get_data (torch/utils/data/dataloader.py:1131)", ""), ("_get_data (torch/utils/data/dataloader.py:1283)", ""),
                ("_next_data (torch/utils/data/dataloader.py:1327)", ""), ("__next__ (torch/utils/data/dataloader.py:630)", ""),
                ("evaluate (%s:%d)" % ("trainer/loop.py" if T.fw == "custom" else "transformers/trainer.py", 288 if T.fw == "custom" else 3863), ""),
                ("main (%s:529)" % T.script, "")]).replace(" ()", "") + "\nProcess %d: pt_data_worker\n    read (pyarrow/io.pxi)\n    __getitem__ (data/eval_dataset.py:71)\n    fetch (torch/utils/data/_utils/fetch.py:52)\n    _worker_loop (torch/utils/data/_utils/worker.py:308)\n" % (j.pid[bad] + 417))
        wait_all(j, others(j, bad), tf + rng.uniform(1, 20), "ALLREDUCE", 1)
        return tf
    j.log(0, t - 0.1, "Switching to eval: loading %s/eval/*.arrow" % rng.choice(["/mnt/nfs/datasets", "/data/shared"]), src="eval")
    eval_phase(j, t, stop, body=body)
    attach_dmesg(run, [n])
    return {"cause": "data_loader_stall", "rank": bad, "node": n,
            "notes": "At the train->eval switch (step %d) rank %d's eval DataLoader blocked reading eval shards from the NFS server %s (server not responding on %s). %s The other ranks waited in the eval all-reduce and hit the NCCL timeout." % (
                stop, bad, srv, T.short[n], "Its DataLoader timeout fired first ('DataLoader timed out')." if dlto else "py-spy shows it waiting on the worker queue while the worker sits in a read.")}


@scen("data_loader_stall", layouts=["slurm_torchrun", "slurm_srun", "torchelastic_logdir", "k8s_pytorchjob"])
def dl_resume_stream_stall(run):
    j0, t = begin(run)
    T = j0.T
    rng = j0.rng
    # attempt 0 died on something unrelated (a watchdog timeout after a flaky node? we just show a time limit / restart)
    cut, tl, resume = cut_attempt(j0)
    old = rng.choice(["timelimit", "exc"]) if T.layout.startswith("slurm") else "exc"
    if old == "timelimit":
        j0.sched_events.append((tl + 1, "sig", "TIME LIMIT"))
    else:
        r0 = rng.randrange(T.world)
        fr = fr_phase(j0, "train") + [("%s/torch/nn/modules/module.py" % T.site, 1562, "_call_impl", "return forward_call(*args, **kwargs)", None)]
        exc_exit(j0, r0, tl, fr, "RuntimeError: expected scalar type BFloat16 but found Float" if rng.random() < 0.5 else "ValueError: Input contains NaN.")
        wait_all(j0, others(j0, r0), tl - 2, "ALLREDUCE", rng.choice([262668288, 131334144]))
        j0.max_restarts = 1 if T.layout == "torchelastic_logdir" else 0
        j0.restart_next = T.layout == "torchelastic_logdir"
    resolve(j0)
    j1 = run.new_job(resume_from=resume, total=j0.total_steps, t_start=j0.t_end + (rng.uniform(5, 30) if T.layout == "torchelastic_logdir" else rng.uniform(300, 3600)))
    t = fw_startup(j1, j1.t_start)
    rank_banners(j1, j1.t_start + 6)
    bad = rng.randrange(T.world)
    shards = rng.randrange(100, 9000)
    url = rng.choice(["s3://data-lake/pretrain/v3", "gs://acme-corpus/tok", "s3://ml-datasets/sft-mix"])
    if T.fw == "hf":
        j1.log(0, t, "  Will skip the first %d epochs then the first %d batches in the first epoch." % (0, resume % 5000), src="trainer.py:2241")
    else:
        j1.log(0, t, "Fast-forwarding data loader to step %d (skipping %d samples)" % (resume, resume * T.world * 8), src="data")
    t += rng.uniform(5, 30)
    for k in range(rng.randint(3, 6)):
        j1.log(bad, t + 60 * k + rng.uniform(0, 5), "[rank%d] shard %s/shard-%06d.tar not yet available (attempt %d/20); waiting %ds" % (bad, url, shards + bad, k + 1, 60), lvl="WARNING", src="data")
    wait_all(j1, others(j1, bad), t + rng.uniform(1, 10), "ALLREDUCE", rng.choice([262668288, 131334144]))
    if T.layout == "torchelastic_logdir":
        j1.max_restarts = 0
    run.requeue = T.layout.startswith("slurm")
    return {"cause": "data_loader_stall", "rank": bad, "node": T.node_of(bad),
            "notes": "Two attempts in the folder. Attempt 1 %s and is NOT the question. Attempt 2 resumed from the step-%d checkpoint; after fast-forwarding the data stream, rank %d kept waiting for a data shard from %s, so it never entered the first gradient all-reduce and all other ranks hit the NCCL timeout." % (
                "hit the time limit" if old == "timelimit" else "failed with an unrelated Python error on one rank", resume, bad, url)}


@scen("data_loader_stall")
def dl_last_epoch_worker_timeout(run):
    j = run.new_job()
    T = j.T
    rng = j.rng
    t = fw_startup(j, j.t_start)
    rank_banners(j, j.t_start + 6)
    j.epochs = max(2, j.epochs)
    spe = j.total_steps // j.epochs
    stop = spe * (j.epochs - 1)
    t0 = t
    t = train_range(j, t, 0, stop)
    if j.head_trim:
        j.vis_start = min(j.vis_start, stop - 10 * j.log_every)
        j.t_vis = t0 + (t - t0) * (max(0, j.vis_start) / max(1, stop)) - 1
    bad = rng.randrange(T.world)
    j.log(0, t + 0.5, "Starting epoch %d/%d (re-creating dataloader workers, num_workers=%d)" % (j.epochs, j.epochs, rng.choice([4, 6, 8, 12])), src="data")
    to = rng.choice([120, 300, 600])
    tf = t + to + rng.uniform(0.5, 3)
    fr = fr_phase(j, "dataload") + [("%s/torch/utils/data/dataloader.py" % T.site, 630, "__next__", "data = self._next_data()", None),
                                    ("%s/torch/utils/data/dataloader.py" % T.site, 1327, "_next_data", "idx, data = self._get_data()", None),
                                    ("%s/torch/utils/data/dataloader.py" % T.site, 1283, "_get_data", "success, data = self._try_get_data()", None),
                                    ("%s/torch/utils/data/dataloader.py" % T.site, 1144, "_try_get_data", "raise RuntimeError(f'DataLoader timed out after {timeout} seconds') from e", None)]
    chain = [([("%s/torch/utils/data/dataloader.py" % T.site, 1131, "_try_get_data", "data = self._data_queue.get(timeout=timeout)", None),
               ("/usr/lib/python%s/queue.py" % T.py, 179, "get", "raise Empty", None)], "_queue.Empty", "The above exception was the direct cause of the following exception:")]
    j.log(bad, t + to * 0.5, "[rank%d] first batch of epoch %d not ready after %ds (worker 3 still opening %s)" % (bad, j.epochs, int(to * 0.5), rng.choice(["/data/train/part-0412.parquet", "/mnt/s3/tok/000917.bin", "/datasets/img/shard-0131.tar"])), lvl="WARNING", src="data")
    exc_exit(j, bad, tf, fr, "RuntimeError: DataLoader timed out after %d seconds" % to, chain=chain)
    wait_all(j, others(j, bad), t + rng.uniform(1, 4), "ALLREDUCE", rng.choice([262668288, 131334144]))
    return {"cause": "data_loader_stall", "rank": bad, "node": T.node_of(bad),
            "notes": "At the start of the last epoch (step %d) the DataLoader workers were re-created; rank %d's first batch never arrived (worker stuck opening a file) and its DataLoader timeout (%ds) raised. Other ranks were in the first all-reduce of the epoch and timed out or were torn down." % (stop, bad, to)}


# ============================================================================= collective_mismatch
def mismatch_detail_exc(j, r, t, seq, op_self, op_other, other_rank, shape_self="[1]", shape_other="[]"):
    T = j.T
    fp = lambda s, op, sh: "CollectiveFingerPrint(SequenceNumber=%d, OpType=%s, TensorShape=%s, TensorDtypes=Float, TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt)))" % (s, op, sh)
    fr = fr_coll(j, "barrier" if op_self == "BARRIER" else "all_gather_into_tensor" if "GATHER" in op_self else "all_reduce",
                 "work = group.barrier(opts=opts)" if op_self == "BARRIER" else "work = group._allgather_base(output_tensor, input_tensor, opts)" if "GATHER" in op_self else "work = group.allreduce([tensor], opts)")
    exc = "RuntimeError: Detected mismatch between collectives on ranks. Rank %d is running collective: %s, but Rank %d is running collective: %s.Collectives differ in the following aspects: \t Op type: %s vs %s" % (
        r, fp(seq, op_self, shape_self), other_rank, fp(seq, op_other, shape_other), op_self, op_other)
    return fr, exc


@scen("collective_mismatch")
def cm_rank0_eval_allgather(run):
    j, t = begin(run)
    T = j.T
    rng = j.rng
    final_opts(j)
    t = train_end_banner(j, t)
    t = save_phase(j, t, j.total_steps, final=True)
    detail = rng.random() < 0.4
    j.log(0, t, "Final evaluation (rank 0 only)", src="eval")
    seq = barrier_seq(j)
    te = t + rng.uniform(5, 60)
    if detail:
        for r in range(T.world):
            if r == 0:
                fr, exc = mismatch_detail_exc(j, 0, te, seq, "ALLGATHER", "BARRIER", 1)
                fr = fr_phase(j, "final_eval") + [("%s/trainer/metrics.py" % T.workdir, 44, "compute_metrics", "dist.all_gather_into_tensor(gathered, preds)", None)] + fr
                exc_exit(j, 0, te, fr, exc)
            elif T.world <= 16 or r < 8:
                fr, exc = mismatch_detail_exc(j, r, te + 0.01, seq, "BARRIER", "ALLGATHER", 0, "[]", "[1]")
                exc_exit(j, r, te + rng.uniform(0.01, 0.2), fr_phase(j, "final_eval")[:len(fr_entry(j)) + 1] + fr, exc)
            else:
                j.plan_exit(r, te + rng.uniform(0.05, 0.5), 1)
        note = "TORCH_DISTRIBUTED_DEBUG=DETAIL was set, so the wrapper raised 'Detected mismatch between collectives' on the ranks."
    else:
        t0 = t + rng.uniform(1, 8)
        watchdog(j, 0, t0 + j.timeout_ms / 1000.0 + rng.uniform(0, 0.5), seq, "_ALLGATHER_BASE", rng.choice([512, 2048, 8192]), numel_out=None, full=True)
        tb = t0 + rng.uniform(20, 120)
        for r in range(1, T.world):
            if T.world <= 64 and r % max(1, T.world // 16) == 0:
                j.log(r, tb - rng.uniform(0, 3), "[rank%d] local optimizer shard saved, waiting at final barrier" % r, src="main")
        watchdog_many(j, list(range(1, T.world)), tb, seq, "BARRIER" if T.tv >= (2, 3) else "ALLREDUCE", 1, nfull=6)
        note = "Without debug mode it shows only as NCCL timeouts: rank 0 times out first in an all-gather while the other ranks time out in the barrier with the same SeqNum."
    return {"cause": "collective_mismatch", "rank": 0, "node": 0,
            "notes": "After the last save, the script ran the final evaluation only on rank 0, but its compute_metrics() does a dist.all_gather; meanwhile ranks 1..N-1 went on to the final barrier. Different collectives at the same sequence number. " + note}


@scen("collective_mismatch")
def cm_fsdp_state_dict_rank0(run):
    j, t = begin(run)
    T = j.T
    rng = j.rng
    final_opts(j)
    t = train_end_banner(j, t)
    def body(j, t, path, dur):
        j.log(0, t + 0.2, "Exporting consolidated weights (if rank == 0: model.state_dict())", src="export")
        seq = barrier_seq(j)
        t0 = t + rng.uniform(1, 3)
        watchdog(j, 0, t0 + j.timeout_ms / 1000.0 + rng.uniform(0, 0.5), seq, "_ALLGATHER_BASE", rng.choice([131334144, 262668288, 65667072]))
        watchdog_many(j, list(range(1, T.world)), t0 + rng.uniform(15, 90), seq, "BARRIER" if T.tv >= (2, 3) else "ALLREDUCE", 1, nfull=6)
        return t
    save_phase(j, t, j.total_steps, final=True, body=body)
    return {"cause": "collective_mismatch", "rank": 0, "node": 0,
            "notes": "The final export called model.state_dict() under FSDP (FULL_STATE_DICT) only on rank 0. state_dict() on an FSDP model is itself a collective (parameter all-gather), so rank 0 sat in _ALLGATHER_BASE while all other ranks were in the following barrier; all time out with different OpTypes at the same SeqNum."}


@scen("collective_mismatch")
def cm_uneven_last_batch(run):
    j = run.new_job()
    T = j.T
    rng = j.rng
    t = fw_startup(j, j.t_start)
    rank_banners(j, j.t_start + 6)
    t0 = t
    stop = j.total_steps - 1
    t = train_range(j, t, 0, stop)
    if j.head_trim:
        j.t_vis = t0 + (t - t0) * (j.vis_start / max(1, stop)) - 1
    bad = rng.randrange(T.world)
    seq = barrier_seq(j)
    j.log(bad, t + 0.3, "[rank%d] data iterator exhausted after %d batches (epoch %d) - ending epoch" % (bad, stop * 8 - rng.randint(1, 7), j.epochs - 1), lvl="WARNING", src="data")
    big = rng.choice([262668288, 131334144, 52428800])
    op = "ALLREDUCE" if rng.random() < 0.5 else "BROADCAST"
    watchdog(j, bad, t + 0.4 + j.timeout_ms / 1000.0 + rng.uniform(0, 0.3), seq, op, 1)
    watchdog_many(j, others(j, bad), t + 0.4 + j.step_time * rng.uniform(0.5, 0.9), seq, "ALLREDUCE", big, nfull=6)
    return {"cause": "collective_mismatch", "rank": bad, "node": T.node_of(bad),
            "notes": "Uneven sharding of an IterableDataset: at the very end of the last epoch rank %d ran out of batches one step early and went on to the epoch-end metric all-reduce (numel 1) while all other ranks were in the gradient all-reduce of the final step. The ranks' watchdog timeouts show the same SeqNum with a different op/size on rank %d." % (bad, bad)}


# ============================================================================= straggler
@scen("straggler", layouts=["slurm_torchrun", "torchrun_nodes", "slurm_srun", "k8s_pytorchjob", "deepspeed_pdsh", "torchelastic_logdir"], min_nodes=2)
def st_thermal_node(run):
    j = run.new_job()
    T = j.T
    rng = j.rng
    n = rng.randrange(T.nnodes)
    g = rng.choice(T.ranks_of(n))
    fac = rng.uniform(1.25, 1.7)
    j.step_time *= fac
    state = {"k": 0}
    def hook(job, t, step):
        state["k"] += 1
        if state["k"] % rng.choice([5, 10]) == 0:
            if T.fw == "megatron":
                job.out(0, t + 0.01, "(min, max) time across ranks (ms):\n    forward-backward ...............................: (%.2f, %.2f)\n    batch-generator ................................: (%.2f, %.2f)\n    optimizer ......................................: (%.2f, %.2f)" % (
                    job.step_time / fac * 1000 * 0.9, job.step_time * 1000 * 0.92, 0.8, 3.1, 40.0, 44.5))
            else:
                job.log(0, t + 0.01, "straggler report (last %d steps): slowest rank %d (%s) %.2fx median step time; 2nd slowest rank %d %.2fx" % (
                    job.log_every * 10, g, T.short[n], fac * rng.uniform(0.97, 1.03), rng.choice([x for x in range(T.world) if x != g]) if T.world > 1 else g, rng.uniform(1.0, 1.05)), src="perf")
    j.straggle_hook = hook
    t = fw_startup(j, j.t_start)
    rank_banners(j, j.t_start + 6)
    t0 = t
    t = train_range(j, t, 0, j.total_steps)
    if j.head_trim:
        j.t_vis = t0 + (t - t0) * (j.vis_start / max(1, j.total_steps)) - 1
    final_opts(j)
    t = healthy_tail(j, t)
    for k in range(rng.randint(2, 6)):
        T.kmsg(n, j.t_start + rng.uniform(600, max(700, t - j.t_start)), "CPU%d: Package temperature above threshold, cpu clock throttled (total events = %d)" % (rng.randrange(96), rng.randrange(100, 90000)))
    attach_dmesg(run, [n])
    run.files["nvidia-smi_%s.txt" % T.short[n]] = ("nvsmi", n, "hot", g)
    return {"cause": "straggler", "rank": g, "node": n,
            "notes": "The job ran to completion (exit 0) but ~%.0f%% slower than planned: GPU %d of %s was thermally throttled (HW Thermal Slowdown active; CPU package throttling in the kernel log) and every synchronous step waited for rank %d. Nothing crashed; the issue is a persistent straggler." % ((fac - 1) * 100, T.local(g), T.short[n], g)}


@scen("straggler", layouts=["slurm_torchrun", "slurm_srun", "torchrun_nodes", "k8s_pytorchjob", "deepspeed_pdsh", "accelerate"], min_nodes=2)
def st_pcie_degraded_node(run):
    j = run.new_job()
    T = j.T
    rng = j.rng
    n = rng.randrange(T.nnodes)
    fac = rng.uniform(1.3, 1.9)
    j.step_time *= fac
    state = {"k": 0}
    def hook(job, t, step):
        state["k"] += 1
        if state["k"] % 4 == 0:
            for m in range(T.nnodes):
                r = m * T.gpn
                sps = T.gpn * 8 / (job.step_time / fac) * (1 / fac if m == n else rng.uniform(0.98, 1.02))
                job.log(r, t + 0.02 + m * 0.001, "[node %d/%s] step %d local throughput %.1f samples/s, data wait %.0f ms, h2d %.0f ms" % (
                    m, T.short[m], step, sps, rng.uniform(2, 9), rng.uniform(30, 60) * (fac * 4 if m == n else 1)), src="perf")
    j.straggle_hook = hook
    t = fw_startup(j, j.t_start)
    rank_banners(j, j.t_start + 6)
    t0 = t
    t = train_range(j, t, 0, j.total_steps)
    if j.head_trim:
        j.t_vis = t0 + (t - t0) * (j.vis_start / max(1, j.total_steps)) - 1
    final_opts(j)
    t = healthy_tail(j, t)
    bdf = rng.choice(["0000:3b:00.0", "0000:5e:00.0", "0000:86:00.0"])
    T.kmsg(n, j.t_start - rng.uniform(3600, 86400), "pci %s: 8.000 Gb/s available PCIe bandwidth, limited by 2.5 GT/s PCIe x4 link at %s (capable of 252.048 Gb/s with 16.0 GT/s PCIe x16 link)" % (bdf, bdf.replace(":00.0", ":00.0")[:-4] + "02.0"))
    attach_dmesg(run, [n])
    return {"cause": "straggler", "rank": None, "node": n,
            "notes": "Completed (exit 0) but the whole job ran at the pace of %s: its local throughput stays ~%.0f%% below the other nodes for the whole run (high host-to-device time); the kernel log shows a PCIe link trained at 2.5 GT/s x4 instead of 16 GT/s x16. Persistent node straggler, not a crash." % (T.short[n], (1 - 1 / fac) * 100)}


# ============================================================================= unknown
@scen("unknown", layouts=["slurm_srun", "slurm_torchrun", "deepspeed_pdsh", "torchrun_nodes", "accelerate", "torchelastic_logdir"])
def unk_silent_exit(run):
    j, t = begin(run)
    T = j.T
    rng = j.rng
    final_opts(j)
    t = train_end_banner(j, t)
    bad = rng.randrange(T.world)
    def body(j, t, path, dur):
        tf = t + rng.uniform(2, dur)
        j.plan_exit(bad, tf, 1)
        wait_all(j, others(j, bad), tf - rng.uniform(0, 10), "BARRIER" if T.tv >= (2, 3) else "ALLREDUCE", 1)
        return tf
    save_phase(j, t, j.total_steps, final=True, body=body)
    return {"cause": "unknown", "rank": bad, "node": T.node_of(bad),
            "notes": "During the final save rank %d exited with code 1 without printing anything (no traceback, no kernel/GPU messages, stdout of non-zero ranks not captured). The others are collateral. Why it exited cannot be determined from these logs; only where it happened first." % bad}


@scen("unknown", layouts=["k8s_pytorchjob"])
def unk_k8s_no_logs(run):
    j, t = begin(run)
    T = j.T
    rng = j.rng
    final_opts(j)
    t = train_end_banner(j, t)
    t = save_phase(j, t, j.total_steps, final=True)
    n = rng.randrange(1, T.nnodes) if T.nnodes > 1 else 0
    tf = t + rng.uniform(1, 60)
    for r in T.ranks_of(n):
        j.plan_exit(r, tf + rng.uniform(0, 0.3), 1)
    wait_all(j, others(j, T.ranks_of(n)), tf - 1, "BARRIER" if T.tv >= (2, 3) else "ALLREDUCE", 1)
    run.k8s_nologs = n
    return {"cause": "unknown", "rank": None, "node": n,
            "notes": "After the final save, pod on %s terminated with exit code 1; its container log could not be retrieved (the pod was already gone), and no events explain it. The rest is collateral; the actual reason is not in the bundle." % T.short[n]}


@scen("unknown", layouts=["slurm_torchrun", "slurm_srun", "pipeline_post", "accelerate", "deepspeed_pdsh"])
def unk_truncated(run):
    j, t = begin(run)
    T = j.T
    rng = j.rng
    final_opts(j)
    t = train_end_banner(j, t)
    def body(j, t, path, dur):
        return t
    save_phase(j, t, j.total_steps, final=True, body=body)
    tf = t + rng.uniform(30, 400)
    for r in range(T.world):
        j.plan_exit(r, tf + rng.uniform(0, 2), 1 if r == 0 else -15)
    run.truncate_tail = tf - 1
    run.sacct_state = "FAILED"
    return {"cause": "unknown", "rank": None, "node": None,
            "notes": "The log ends while the final checkpoint was being written (the user's copy of the log stops there); the job is known to have failed (FAILED / non-zero exit where a scheduler record exists) but nothing in the bundle says why."}


# ============================================================================= healthy
@scen("healthy")
def ok_noisy_exit(run):
    j, t = begin(run)
    final_opts(j)
    healthy_tail(j, t)
    return {"cause": None, "rank": None, "node": None,
            "notes": "Healthy: training, final save%s%s completed and every rank exited 0. The end of the log has harmless teardown noise (process group not destroyed warnings, NCCL abort/destroy lines, DataLoader __del__ / pin-memory thread exceptions, leaked semaphores)." % (" and eval" if j.final_eval else "", " and upload" if j.upload else "")}


@scen("healthy")
def ok_upload_retries(run):
    j, t = begin(run)
    rng = j.rng
    final_opts(j)
    j.upload = rng.choice(["hf", "s3"])
    t = train_end_banner(j, t)
    t = save_phase(j, t, j.total_steps, final=True)
    if j.final_eval:
        t = eval_phase(j, t, j.total_steps, final=True)
    t = upload_ok(j, t, retries=rng.randint(1, 4))
    t = exit_noise_ok(j, t, j.destroy)
    all_exit_ok(j, t)
    return {"cause": None, "rank": None, "node": None,
            "notes": "Healthy: the final upload hit transient HTTP/connection errors and retried, then succeeded; all ranks exited 0."}


@scen("healthy", layouts=SLURM)
def ok_epilog_error(run):
    j, t = begin(run)
    rng = j.rng
    T = j.T
    final_opts(j)
    healthy_tail(j, t)
    n = rng.randrange(T.nnodes)
    run.epilog = {"node": n, "reason": "Epilog error", "kind": "cleanup"}
    return {"cause": None, "rank": None, "node": None,
            "notes": "Healthy: the job COMPLETED (exit 0). Afterwards the Slurm epilog on %s failed (cleanup script could not remove a busy /dev/shm segment) and the node was drained with 'Epilog error' - an operator issue, not a job failure." % T.short[n]}


@scen("healthy", layouts=["slurm_torchrun", "slurm_srun", "torchelastic_logdir", "k8s_pytorchjob"])
def ok_resumed_after_old_failure(run):
    j0, t = begin(run)
    T = j0.T
    rng = j0.rng
    cut, tl, resume = cut_attempt(j0)
    old = rng.choice(["timelimit", "wd"]) if T.layout.startswith("slurm") else "wd"
    if old == "timelimit":
        j0.sched_events.append((tl + 1, "sig", "TIME LIMIT"))
        oldtxt = "was stopped by the time limit"
    else:
        r0 = rng.randrange(T.world)
        wait_all(j0, others(j0, r0), tl - 1, "ALLREDUCE", rng.choice([262668288, 131334144]))
        oldtxt = "failed with NCCL watchdog timeouts (rank %d stalled)" % r0
        j0.max_restarts = 1 if T.layout == "torchelastic_logdir" else 0
        j0.restart_next = T.layout == "torchelastic_logdir"
    resolve(j0)
    j1 = run.new_job(resume_from=resume, total=j0.total_steps, t_start=j0.t_end + (rng.uniform(5, 30) if T.layout == "torchelastic_logdir" else rng.uniform(300, 3600)))
    t = fw_startup(j1, j1.t_start)
    rank_banners(j1, j1.t_start + 6)
    t = train_range(j1, t, resume, j1.total_steps)
    final_opts(j1)
    healthy_tail(j1, t)
    run.requeue = T.layout.startswith("slurm")
    return {"cause": None, "rank": None, "node": None,
            "notes": "Healthy in the end: the folder still holds attempt 1, which %s; attempt 2 resumed from the step-%d checkpoint and finished training, saved, and exited 0." % (oldtxt, resume)}


@scen("healthy", layouts=["pipeline_post"])
def ok_post_warnings(run):
    j, t = begin(run)
    rng = j.rng
    T = j.T
    final_opts(j)
    j.upload = None
    t = healthy_tail(j, t)
    tt = t + 20
    lines = [(tt, "Loading checkpoint shards: 100%%|██████████| 4/4 [00:%02d<00:00,  %.2fit/s]" % (rng.randint(8, 40), rng.uniform(0.1, 0.5))),
             (tt + 30, "Some weights of the model checkpoint at %s were not used when initializing LlamaForCausalLM: ['lm_head.lora_A.weight', 'lm_head.lora_B.weight']\n- This IS expected if you are initializing LlamaForCausalLM from the checkpoint of a model trained on another task or with another architecture (e.g. initializing a BertForSequenceClassification model from a BertForPreTraining model).\n- This IS NOT expected if you are initializing LlamaForCausalLM from the checkpoint of a model that you expect to be exactly identical (initializing a BertForSequenceClassification model from a BertForSequenceClassification model)." % T.ckpt_path),
             (tt + 31, "%s/peft/tuners/lora/layer.py:1119: UserWarning: Already unmerged. Nothing to do." % T.site),
             (tt + 90, "Saving merged model to %s/merged (safe_serialization=True)" % T.ckpt_path),
             (tt + 200, "done in %.1fs" % rng.uniform(150, 190))]
    run.post.append({"step": "merge_lora", "lines": lines, "rc": 0, "t_end": tt + 201})
    return {"cause": None, "rank": None, "node": None,
            "notes": "Healthy: training and the merge_lora post step both succeeded; the post step prints 'weights not used' and 'Already unmerged' warnings that look alarming but are expected."}


# ============================================================================= run object & topology
def choose_topology(rng, layout, sc):
    mn = sc.get("min_nodes", 1)
    if layout == "slurm_torchrun":
        nn = rng.choice([2, 2, 4, 4, 8, 8, 16, 32, 64])
        gpn = 8 if rng.random() < 0.8 else 4
    elif layout == "slurm_srun":
        nn = rng.choice([1, 2, 2, 4, 8, 16, 32])
        gpn = rng.choice([4, 8, 8])
    elif layout == "torchrun_nodes":
        nn = rng.choice([2, 2, 3, 4, 6, 8])
        gpn = 8
    elif layout == "torchelastic_logdir":
        nn = rng.choice([1, 1, 2, 2, 4])
        gpn = rng.choice([2, 4, 8])
    elif layout == "deepspeed_pdsh":
        nn = rng.choice([1, 2, 2, 4, 8, 16])
        gpn = 8 if rng.random() < 0.8 else 4
    elif layout == "accelerate":
        nn = rng.choice([1, 1, 1, 2])
        gpn = rng.choice([2, 4, 8, 8])
    elif layout == "k8s_pytorchjob":
        nn = rng.choice([2, 2, 4, 8, 16])
        gpn = rng.choice([8, 8, 4])
    else:
        nn = 1
        gpn = rng.choice([2, 4, 8, 8])
    if nn < mn:
        nn = mn
    if sc.get("nvlink") and gpn < 4:
        gpn = 8
    return nn, gpn


class Run:
    def __init__(self, rng, idx, layout, sc):
        self.rng = rng
        self.idx = idx
        self.layout = layout
        nn, gpn = choose_topology(rng, layout, sc)
        fw = rng.choice(FW_BY_LAYOUT[layout])
        self.topo = Topo(rng, layout, nn, gpn, fw, need_nvlink=sc.get("nvlink", False))
        self.jobs = []
        self.post = []
        self.files = {}
        self.dmesg_nodes = []
        self.tee = rng.random() < 0.5
        self.label = rng.random() < 0.35
        self.k8s_ts = rng.random() < 0.4
        self.epilog = None
        self.sacct_state = None
        self.requeue = False
        self.truncate_tail = None
        self.cloud_event = None
        self.k8s_evict = None
        self.k8s_oom = None
        self.k8s_nologs = None
        self.k8s_note = None

    def new_job(self, resume_from=None, total=None, t_start=None):
        j = Job(self.topo, attempt=len(self.jobs), t_start=t_start)
        setup_plan(j, resume_from, total)
        self.jobs.append(j)
        return j


# ============================================================================= rendering helpers
def wprefix(run, job, r):
    T = run.topo
    if T.layout in ("slurm_torchrun", "torchrun_nodes", "k8s_pytorchjob", "pipeline_post") and run.tee:
        return "[rank%d]:" % r if T.tv >= (2, 3) else "[default%d]:" % T.local(r)
    return ""


def rank_entries(run, job, r, streams=("out", "err")):
    """(t, seq, stream, line) of rank r that really got printed."""
    d = job.death.get(r)
    tmax = d[0] + 0.02 if d else 1e18
    tmin = job.t_vis if job.t_vis else -1
    out = []
    for (t, seq, st, text) in job.lines[r]:
        if t > tmax or t < tmin or st not in streams:
            continue
        for k, ln in enumerate(text.split("\n")):
            out.append((t, seq + k * 1e-6, st, ln))
    return out


def agent_entries(run, job, n):
    tmin = job.t_vis if job.t_vis else -1
    out = []
    for (t, seq, text) in job.agent[n]:
        if t < tmin:
            continue
        for k, ln in enumerate(text.split("\n")):
            out.append((t, seq + k * 1e-6, "err", ln))
    return out


def node_stream(run, job, n, prefix_fn=None, streams=("out", "err"), agent=True):
    T = run.topo
    ents = []
    if agent:
        ents += [(t, s, st, ln, -1) for (t, s, st, ln) in agent_entries(run, job, n)]
    for r in T.ranks_of(n):
        p = wprefix(run, job, r)
        ents += [(t, s, st, p + ln, r) for (t, s, st, ln) in rank_entries(run, job, r, streams)]
    ents.sort(key=lambda e: (e[0], e[1]))
    return ents


def finish_text(lines, rng, head_cut=False):
    txt = "\n".join(lines) + "\n"
    if head_cut and len(txt) > 200:
        txt = txt[rng.randint(5, 60):]
    if len(txt.encode("utf-8")) > MAX_FILE:
        b = txt.split("\n")
        keep_head = int(len(b) * 0.3)
        while len("\n".join(b).encode("utf-8")) > MAX_FILE and keep_head > 50:
            cut = len(b) - keep_head - int(len(b) * 0.45)
            b = b[:keep_head] + ["", "[... %d lines trimmed by user ...]" % cut, ""] + b[keep_head + cut:]
            keep_head = int(keep_head * 0.8)
        txt = "\n".join(b)
    return txt


def kern_text(run, n):
    T = run.topo
    rng = run.rng
    ev = list(T.kern[n])
    t_lo = min([j.t_start for j in run.jobs]) - rng.uniform(600, 7200)
    t_hi = max([(j.t_end or j.t_start) for j in run.jobs] + [e[0] for e in ev]) + rng.uniform(60, 900)
    noise = ["perf: interrupt took too long (%d > %d), lowering kernel.perf_event_max_sample_rate to %d" % (rng.randint(2500, 4000), rng.randint(2500, 3900), rng.choice([63750, 50000, 79750])),
             "audit: type=1400 audit(%d.%03d:%d): apparmor=\"DENIED\" operation=\"open\" class=\"file\" profile=\"snap.lxd.activate\" name=\"/proc/%d/cmdline\" pid=%d comm=\"snap-exec\" requested_mask=\"r\" denied_mask=\"r\" fsuid=0 ouid=0" % (int(t_lo), rng.randrange(1000), rng.randrange(100, 999), rng.randrange(1000, 9000), rng.randrange(1000, 9000)),
             "mlx5_core 0000:%02x:00.0: mlx5_fw_tracer_handle_traces:%d:(pid %d): FWTracer: Events were lost" % (rng.choice([0x1b, 0x5e, 0x9a]), rng.choice([742, 801]), rng.randrange(100, 4000)),
             "nvidia-peermem nv_get_p2p_free_callback:%d ERROR detected invalid context, skipping further processing" % rng.choice([127, 129]),
             "systemd-journald[%d]: Data hash table of /var/log/journal/%032x/system.journal has a fill level at 75.0 (8533 of 11377 items, 6553600 file size, 768 bytes per hash table item), suggesting rotation." % (rng.randrange(500, 2000), rng.randrange(16 ** 32)),
             "TCP: request_sock_TCP: Possible SYN flooding on port %d. Sending cookies.  Check SNMP counters." % T.port,
             "NVRM: GPU at PCI:%s: %s" % (T.pci(n * T.gpn), T.gpu_uuid[n * T.gpn]),
             "nvidia-nvswitch%d: open (major=%d)" % (rng.randrange(4), rng.choice([508, 509])),
             "EXT4-fs (nvme0n1p2): re-mounted %s. Quota mode: none." % "".join(rng.choice("0123456789abcdef") for _ in range(8)),
             "IPVS: rr: TCP 10.96.0.1:443 - no destination available",
             "igb 0000:%02x:00.0 eno1: igb: eno1 NIC Link is Up 1000 Mbps Full Duplex, Flow Control: RX" % rng.randrange(1, 255)]
    for k in range(rng.randint(3, 9)):
        ev.append((rng.uniform(t_lo, t_hi), 10 ** 9 + k, rng.choice(noise)))
    ev.sort()
    out = []
    host = (T.vm[n] if T.vm else T.short[n]).split(".")[0]
    for (t, _, msg) in ev:
        c = T.clk(n, t)
        for ln in msg.split("\n"):
            up = c - T.boot[n]
            if T.kfmt == "uptime":
                out.append("[%12.6f] %s" % (up, ln))
            elif T.kfmt == "T":
                out.append("%s %s" % (t_dmesgT(c), ln))
            else:
                out.append("%s %s kernel: [%12.6f] %s" % (t_syslog(c), host, up, ln))
    return "\n".join(out) + "\n"


def compress_nodes(names):
    import re
    m = [re.match(r"^(.*?)(\d+)$", x) for x in names]
    if not all(m) or len(set(x.group(1) for x in m)) != 1:
        return ",".join(names)
    pre = m[0].group(1)
    w = len(m[0].group(2))
    nums = sorted(int(x.group(2)) for x in m)
    parts = []
    i = 0
    while i < len(nums):
        k = i
        while k + 1 < len(nums) and nums[k + 1] == nums[k] + 1:
            k += 1
        parts.append(("%0*d" % (w, nums[i])) if i == k else "%0*d-%0*d" % (w, nums[i], w, nums[k]))
        i = k + 1
    return "%s[%s]" % (pre, ",".join(parts)) if len(nums) > 1 else names[0]


def sacct_text(run, truth):
    T = run.topo
    j = run.jobs[-1]
    rng = run.rng
    st = run.sacct_state
    if st is None:
        if truth["healthy"]:
            st = "COMPLETED"
        elif truth["cause"] == "host_oom_kill" and T.layout == "slurm_srun":
            st = "OUT_OF_MEMORY"
        else:
            st = "FAILED"
    ec = {"COMPLETED": "0:0", "FAILED": "1:0", "TIMEOUT": "0:0", "PREEMPTED": "0:0", "OUT_OF_MEMORY": "0:125", "CANCELLED": "0:15"}[st]
    el = (j.t_end or j.t_start) - run.jobs[0].t_start if st != "PREEMPTED" else (j.t_end or j.t_start) - j.t_start
    def fmt_el(s):
        s = int(s)
        d, r = divmod(s, 86400)
        h, r = divmod(r, 3600)
        m, sec = divmod(r, 60)
        return ("%d-%02d:%02d:%02d" % (d, h, m, sec)) if d else "%02d:%02d:%02d" % (h, m, sec)
    nl = compress_nodes(T.short)
    rows = ["%-14s %10s %10s %10s %8s %10s %s" % ("JobID", "JobName", "Partition", "State", "ExitCode", "Elapsed", "NodeList"),
            "%-14s %10s %10s %10s %8s %10s %s" % ("-" * 14, "-" * 10, "-" * 10, "-" * 10, "-" * 8, "-" * 10, "-" * 15)]
    jn = T.jobname[:9] + ("+" if len(T.jobname) > 9 else "")
    part = rng.choice(["gpu", "a100", "h100", "batch", "train"])
    stepstate = {"COMPLETED": "COMPLETED", "FAILED": "FAILED", "TIMEOUT": "CANCELLED", "PREEMPTED": "CANCELLED", "OUT_OF_MEMORY": "OUT_OF_ME+", "CANCELLED": "CANCELLED"}[st]
    stepec = {"COMPLETED": "0:0", "FAILED": "1:0", "TIMEOUT": "0:15", "PREEMPTED": "0:15", "OUT_OF_MEMORY": "0:125", "CANCELLED": "0:15"}[st]
    if run.requeue and len(run.jobs) > 1:
        rows.append("%-14s %10s %10s %10s %8s %10s %s" % (T.jobid, jn, part, "REQUEUED" if st != "PREEMPTED" else "PREEMPTED", "0:0", fmt_el(run.jobs[0].t_end - run.jobs[0].t_start), nl))
    rows.append("%-14s %10s %10s %10s %8s %10s %s" % (T.jobid, jn, part, st, ec, fmt_el(el), nl))
    rows.append("%-14s %10s %10s %10s %8s %10s %s" % ("%d.batch" % T.jobid, "batch", "", "CANCELLED" if st in ("TIMEOUT", "PREEMPTED") else stepstate if st != "OUT_OF_MEMORY" else "FAILED", "0:15" if st in ("TIMEOUT", "PREEMPTED") else stepec, fmt_el(el), T.short[0]))
    rows.append("%-14s %10s %10s %10s %8s %10s %s" % ("%d.extern" % T.jobid, "extern", "", "COMPLETED", "0:0", fmt_el(el), nl))
    rows.append("%-14s %10s %10s %10s %8s %10s %s" % ("%d.0" % T.jobid, "torchrun" if T.layout == "slurm_torchrun" else "python", "", stepstate, stepec, fmt_el(el - 30), nl))
    return "$ sacct -j %d --format=JobID,JobName,Partition,State,ExitCode,Elapsed,NodeList\n" % T.jobid + "\n".join(rows) + "\n"


def epilog_files(run, files):
    T = run.topo
    rng = run.rng
    ep = run.epilog
    n = ep["node"]
    j = run.jobs[-1]
    te = T.clk(n, (j.t_end or j.t_start) + rng.uniform(2, 20))
    d = D(te)
    ts = d.strftime("%Y-%m-%dT%H:%M:%S") + ".%03d" % (d.microsecond // 1000)
    sl = ["[%s] [%d.extern] done with step" % (ts, T.jobid)]
    if ep["kind"] == "cleanup":
        sl += ["[%s] error: /etc/slurm/epilog.d/50-cleanup-shm.sh: rm: cannot remove '/dev/shm/torch_%d_%d_%d': Device or resource busy" % (ts, j.pid[n * T.gpn], rng.randrange(10 ** 9), rng.randrange(100)),
               "[%s] error: [job %d] epilog failed status=1:0" % (ts, T.jobid),
               "[%s] Job %d: epilog failed, draining node" % (ts, T.jobid)]
        reason = "Epilog error"
    else:
        sl += ["[%s] error: /etc/slurm/epilog.d/90-gpu-health.sh: dcgmi health -c: GPU %d: Memory: Uncorrectable ECC / row remap failure (%s)" % (ts, T.local(n * T.gpn), T.pci(n * T.gpn)),
               "[%s] error: [job %d] epilog failed status=1:0" % (ts, T.jobid)]
        reason = "GPU health check failed (ECC)"
    files["slurmd_%s.log" % T.short[n]] = "\n".join(sl) + "\n"
    files["sinfo_R.txt"] = "$ sinfo -R\nREASON                                   USER      TIMESTAMP           NODELIST\n%-40s %-9s %s %s\n" % (reason, "root", D(te + 1).strftime("%Y-%m-%dT%H:%M:%S"), T.short[n])


def operator_files(run, files, truth):
    T = run.topo
    for n in run.dmesg_nodes:
        host = (T.vm[n] if T.vm else T.short[n]).split(".")[0]
        name = {"uptime": "dmesg_%s.txt", "T": "dmesg-T_%s.txt", "syslog": "kern_%s.log"}[T.kfmt] % host
        files[name] = kern_text(run, n)
    for k, v in run.files.items():
        if v[0] == "nvsmi":
            files[k] = nvsmi_file(run, v[1], v[2], v[3])
        elif v[0] == "text":
            files[k] = v[1]
        elif v[0] == "fm":
            n = v[1]
            t = max(e[0] for e in T.kern[n]) if T.kern[n] else T.t0
            d = D(T.clk(n, t))
            files[k] = "[%s] [ERROR] [tid %d] detected NVSwitch fatal error %d on fid 0 on NVSwitch pci bus id %s physical id %d port %d\n[%s] [ERROR] [tid %d] NVSwitch fatal error on partition 0; all GPUs in the partition will be reset\n" % (
                d.strftime("%b %d %Y %H:%M:%S"), run.rng.randrange(1000, 9000), 24007, "00000000:%02x:00.0" % run.rng.choice([5, 6, 7, 8]), run.rng.randrange(4), run.rng.randrange(64),
                d.strftime("%b %d %Y %H:%M:%S"), run.rng.randrange(1000, 9000))
    if run.cloud_event:
        n, tp = run.cloud_event
        d = D(tp - 30)
        if T.short[n].startswith("ip-"):
            files["spot_interruption_%s.txt" % T.short[n]] = "$ curl -s http://169.254.169.254/latest/meta-data/spot/instance-action\n{\"action\": \"terminate\", \"time\": \"%s\"}\n" % D(tp + 90).strftime("%Y-%m-%dT%H:%M:%SZ")
        else:
            files["cloud_operations.txt"] = "$ gcloud compute operations list --filter=\"operationType=compute.instances.preempted\"\nNAME                                                  TYPE                                  TARGET                                       HTTP_STATUS  STATUS  TIMESTAMP\nsystemevent-%d-%s  compute.instances.preempted  us-central1-a/instances/%s  200          DONE    %s\n" % (
                int(tp), "".join(run.rng.choice("0123456789abcdef") for _ in range(8)), T.short[n], d.strftime("%Y-%m-%dT%H:%M:%S.000+00:00"))
    if run.epilog and T.layout.startswith("slurm"):
        epilog_files(run, files)
    if T.layout.startswith("slurm") and (run.rng.random() < 0.6 or run.sacct_state):
        files["sacct.txt"] = sacct_text(run, truth)


# ============================================================================= layout renderers
def sbatch_header(run, job, n_tasks_line):
    T = run.topo
    c = T.clk(0, job.t_start - 15)
    d = D(c)
    out = ["Job %d (%s) attempt %d starting on %s at %s UTC %d" % (T.jobid, T.jobname, job.attempt + 1, T.short[0], d.strftime("%a %b %d %H:%M:%S"), d.year) if run.requeue else
           "Starting job %d on %s at %s" % (T.jobid, compress_nodes(T.short), d.strftime("%a %b %d %H:%M:%S UTC %Y")),
           "MASTER_ADDR=%s MASTER_PORT=%d NNODES=%d GPUS_PER_NODE=%d" % (T.master, T.port, T.nnodes, T.gpn)]
    out.append(n_tasks_line)
    return out


def render_slurm_torchrun(run, files, truth):
    T = run.topo
    lines = []
    for j in run.jobs:
        lines += sbatch_header(run, j, "+ srun %s--ntasks-per-node=1 %s --nnodes %d --nproc_per_node %d --rdzv_backend c10d --rdzv_endpoint %s:%d --rdzv_id %d %s%s --config configs/%s.yaml" % (
            "--kill-on-bad-exit=1 " if j.kill_on_bad_exit else "", "torchrun", T.nnodes, T.gpn, T.master, T.port, T.jobid, "--tee 3 " if run.tee else "", T.script, T.run_name))
        ents = []
        for n in range(T.nnodes):
            lab = ("%d: " % n) if run.label else ""
            ents += [(t, s, lab + ln) for (t, s, st, ln, r) in node_stream(run, j, n)]
        ents += [(t, s, ln) for (t, s, st, ln, nd) in [(a, b, c, d, e) for (a, b, c, d, e) in j.sched]]
        ents.sort(key=lambda e: (e[0], e[1]))
        if run.truncate_tail:
            ents = [e for e in ents if e[0] <= run.truncate_tail]
        lines += [e[2] for e in ents]
        if not j.failed and not run.truncate_tail:
            lines.append("Job finished at %s" % D(T.clk(0, j.t_end + 1)).strftime("%a %b %d %H:%M:%S UTC %Y"))
    files["slurm-%d.out" % T.jobid] = finish_text(lines, run.rng, head_cut=run.jobs[0].head_trim and run.rng.random() < 0.5)


def render_slurm_srun(run, files, truth):
    T = run.topo
    out, err = [], []
    w = len(str(T.world - 1))
    for j in run.jobs:
        hdr = sbatch_header(run, j, "+ srun %s--ntasks-per-node=%d --gpus-per-task=1 %s python -u %s --config configs/%s.yaml" % (
            "--kill-on-bad-exit=1 " if j.kill_on_bad_exit else "", T.gpn, "--label" if run.label else "", T.script, T.run_name))
        out += hdr
        eo, ee = [], []
        for r in range(T.world):
            lab = ("%*d: " % (w, r)) if run.label else ""
            for (t, s, st, ln) in rank_entries(run, j, r):
                (eo if st == "out" else ee).append((t, s, lab + ln))
        ee += [(t, s, ln) for (t, s, st, ln, nd) in j.sched]
        eo.sort(key=lambda e: (e[0], e[1]))
        ee.sort(key=lambda e: (e[0], e[1]))
        if run.truncate_tail:
            eo = [e for e in eo if e[0] <= run.truncate_tail]
            ee = [e for e in ee if e[0] <= run.truncate_tail]
        out += [e[2] for e in eo]
        err += [e[2] for e in ee]
    base = "logs/%s-%d" % (T.jobname, T.jobid)
    files[base + ".out"] = finish_text(out, run.rng)
    files[base + ".err"] = finish_text(err, run.rng)


def render_torchrun_nodes(run, files, truth):
    T = run.topo
    for n in range(T.nnodes):
        lines = ["$ %s --nnodes=%d --nproc-per-node=%d --node-rank=%d --master-addr=%s --master-port=%d %s%s --config configs/%s.yaml 2>&1 | tee logs/node%d.log" % (
            "torchrun", T.nnodes, T.gpn, n, T.ips[0], T.port, "--tee 3 " if run.tee else "", T.script, T.run_name, n)]
        for j in run.jobs:
            lines += [ln for (t, s, st, ln, r) in node_stream(run, j, n)]
        files["logs/node%d_%s.log" % (n, T.short[n])] = finish_text(lines, run.rng)



def render_torchelastic(run, files, truth):
    T = run.topo
    rng = run.rng
    rid = "%s_%s" % ("none" if rng.random() < 0.5 else T.run_name, "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(8)))
    logdir = rng.choice(["logs", "torchrun_logs", "elastic"])
    for n in range(T.nnodes):
        h = T.short[n]
        con = ["$ torchrun --nnodes=%d --nproc-per-node=%d --max-restarts=%d --rdzv-backend=c10d --rdzv-endpoint=%s:%d --log-dir=%s --redirects=3 %s%s" % (
            T.nnodes, T.gpn, max(j.max_restarts for j in run.jobs), T.master, T.port, logdir, "--tee=3 " if run.tee else "", T.script)]
        for j in run.jobs:
            if T.tv >= (2, 3):
                pass
            con += [ln for (t, s, st, ln) in sorted(agent_entries(run, j, n), key=lambda e: (e[0], e[1]))]
            for r in T.ranks_of(n):
                base = "%s/%s/%s/attempt_%d/%d" % (h, logdir, rid, j.attempt, T.local(r))
                so = [ln for (t, s, st, ln) in sorted(rank_entries(run, j, r, ("out",)), key=lambda e: (e[0], e[1]))]
                se = [ln for (t, s, st, ln) in sorted(rank_entries(run, j, r, ("err",)), key=lambda e: (e[0], e[1]))]
                files[base + "/stdout.log"] = finish_text(so, rng) if so else ""
                files[base + "/stderr.log"] = finish_text(se, rng) if se else ""
                if r in j.errfile:
                    ef = j.errfile[r]
                    td = j.death.get(r, (j.t_start, 1))[0]
                    files[base + "/error.json"] = json.dumps({"message": {"message": ef[1].split("\n")[-1].strip(), "extraInfo": {
                        "py_callstack": ef[1].replace("\n    ", "\n  "), "timestamp": str(int(T.clk(n, td)))}}}, indent=None) + "\n"
        files["%s/torchrun_console.log" % h] = finish_text(con, rng)


def render_deepspeed(run, files, truth):
    T = run.topo
    rng = run.rng
    lines = []
    multi = T.nnodes > 1
    for j in run.jobs:
        c = T.clk(0, j.t_start - 20)
        hosts = ",".join(T.short)
        wi = "{%s}" % ", ".join("'%s': [%s]" % (h, ", ".join(str(i) for i in range(T.gpn))) for h in T.short)
        if multi:
            lines.append("[%s] [INFO] [runner.py:%d:main] cmd = pdsh -S -f 1024 -w %s export PYTHONPATH=%s; export NCCL_DEBUG=%s; cd %s; %s -u -m deepspeed.launcher.launch --world_info=%s --node_rank=%%n --master_addr=%s --master_port=%d %s --deepspeed ds_config.json" % (
                t_py(c), rng.choice([568, 585, 611]), hosts, T.workdir, rng.choice(["WARN", "INFO"]), T.workdir, T.pybin, "eyJ" + "".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789") for _ in range(40)), T.ips[0], T.port, T.script))
        else:
            if j.attempt == 0:
                lines.append("[%s] [WARNING] [runner.py:%d:fetch_hostfile] Unable to find hostfile, will proceed with training with local resources only." % (t_py(c - 1), rng.choice([202, 212])))
                lines.append("[%s] [INFO] [runner.py:%d:main] Using IP address of %s for node %s" % (t_py(c - 0.5), rng.choice([568, 585]), T.ips[0], T.short[0]))
            lines.append("[%s] [INFO] [runner.py:%d:main] cmd = %s -u -m deepspeed.launcher.launch --world_info=%s --master_addr=127.0.0.1 --master_port=%d --enable_each_rank_log=None %s --deepspeed ds_config.json" % (
                t_py(c), rng.choice([568, 585, 611]), T.pybin, "eyJ" + "".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789") for _ in range(40)), T.port, T.script))
        ents = []
        for n in range(T.nnodes):
            pre = ("%s: " % T.short[n]) if multi else ""
            cn = T.clk(n, j.t_start - 18)
            ds0 = [(j.t_start - 18, -5, "[%s] [INFO] [launch.py:146:main] WORLD INFO DICT: %s" % (t_py(cn), wi)),
                   (j.t_start - 18, -4, "[%s] [INFO] [launch.py:152:main] nnodes=%d, num_local_procs=%d, node_rank=%d" % (t_py(cn), T.nnodes, T.gpn, n)),
                   (j.t_start - 18, -3, "[%s] [INFO] [launch.py:164:main] dist_world_size=%d" % (t_py(cn), T.world)),
                   (j.t_start - 18, -2, "[%s] [INFO] [launch.py:168:main] Setting CUDA_VISIBLE_DEVICES=%s" % (t_py(cn), ",".join(str(i) for i in range(T.gpn))))]
            for l in range(T.gpn):
                r = n * T.gpn + l
                ds0.append((j.t_start - 17.9, -1 + l * 0.001, "[%s] [INFO] [launch.py:256:main] process %d spawned with command: ['%s', '-u', '%s', '--local_rank=%d', '--deepspeed', 'ds_config.json']" % (t_py(cn), j.pid[r], T.pybin, T.script, l)))
            if j.t_vis is None or run.rng.random() < 0.3:
                ents += [(t, s, pre + x) for (t, s, x) in ds0]
            ents += [(t, s, pre + ln) for (t, s, st, ln, r) in node_stream(run, j, n)]
        ents += [(t, s, ln) for (t, s, st, ln, nd) in j.sched]
        ents.sort(key=lambda e: (e[0], e[1]))
        if run.truncate_tail:
            ents = [e for e in ents if e[0] <= run.truncate_tail]
        lines += [e[2] for e in ents]
    files["train.log"] = finish_text(lines, rng)
    if multi:
        files["hostfile"] = "".join("%s slots=%d\n" % (h, T.gpn) for h in T.short)


def render_accelerate(run, files, truth):
    T = run.topo
    rng = run.rng
    for n in range(T.nnodes):
        lines = []
        for j in run.jobs:
            if j.attempt == 0:
                lines.append("(%s) %s@%s:%s$ accelerate launch %s--num_processes %d %s%s" % (
                    rng.choice(["base", "train", "venv"]), rng.choice(["alice", "bwang", "jdoe", "ubuntu"]), T.short[n], T.workdir, "--multi_gpu " if T.gpn > 1 else "",
                    T.world, ("--num_machines %d --machine_rank %d --main_process_ip %s " % (T.nnodes, n, T.ips[0])) if T.nnodes > 1 else "", T.script))
            if n == 0 and rng.random() < 0.6:
                lines += ["The following values were not passed to `accelerate launch` and had defaults used instead:",
                          "\t`--num_machines` was set to a value of `%d`" % T.nnodes,
                          "\t`--mixed_precision` was set to a value of `'no'`",
                          "\t`--dynamo_backend` was set to a value of `'no'`",
                          "To avoid this warning pass in values for each of the problematic parameters or run `accelerate config`."]
            ents = node_stream(run, j, n)
            if run.truncate_tail:
                ents = [e for e in ents if e[0] <= run.truncate_tail]
            lines += [ln for (t, s, st, ln, r) in ents]
        files["train.log" if T.nnodes == 1 else "train_machine%d.log" % n] = finish_text(lines, rng)


def render_k8s(run, files, truth):
    T = run.topo
    rng = run.rng
    ns = rng.choice(["ml-training", "team-llm", "default", "research"])
    for n in range(T.nnodes):
        pod = T.hosts[n]
        for j in run.jobs:
            last = j is run.jobs[-1]
            name = "pods/%s%s.log" % (pod, "" if last else ".previous")
            if run.k8s_nologs is not None and n == run.k8s_nologs and last:
                files[name] = "Error from server (NotFound): pods \"%s\" not found\n" % pod if rng.random() < 0.5 else \
                    "unable to retrieve container logs for containerd://%064x\n" % rng.randrange(16 ** 63, 16 ** 64)
                continue
            ents = node_stream(run, j, n)
            if run.k8s_ts:
                lines = ["%s %s" % (t_k8s(T.clk(n, t)), ln) for (t, s, st, ln, r) in ents]
            else:
                lines = [ln for (t, s, st, ln, r) in ents]
            files[name] = finish_text(lines, rng)
    # pytorchjob status/events
    j = run.jobs[-1]
    t_end = j.t_end or j.t_start
    age = lambda t: "%dm" % max(1, int((t_end + 600 - t) / 60)) if t_end + 600 - t < 7200 else "%dh" % int((t_end + 600 - t) / 3600)
    ev = [("Normal", "SuccessfulCreatePod", "pytorchjob/%s" % T.k8s_job, "Created pod: %s" % h, run.jobs[0].t_start - 60) for h in T.hosts]
    ev.append(("Normal", "SuccessfulCreateService", "pytorchjob/%s" % T.k8s_job, "Created service: %s" % T.hosts[0], run.jobs[0].t_start - 59))
    failed_pods = [n for n in range(T.nnodes) if j.agent_exit.get(n, (0, 0))[1] not in (0,)]
    if run.k8s_evict:
        n, tp = run.k8s_evict
        ev.append(("Warning", "PreemptScheduled" if "gke" in (T.vm[n] or "") else "SpotInterruption", "node/%s" % T.vm[n].split(".")[0], "Node %s: spot VM is being reclaimed by the provider" % T.vm[n].split(".")[0], tp - 25))
        ev.append(("Normal", "Killing", "pod/%s" % T.hosts[n], "Stopping container pytorch", tp))
        ev.append(("Warning", "NodeNotReady", "pod/%s" % T.hosts[n], "Node is not ready", tp + 40))
    if run.k8s_oom is not None:
        n = run.k8s_oom
        ev.append(("Warning", "OOMKilling", "node/%s" % T.vm[n].split(".")[0], "Memory cgroup out of memory: Killed process %d (python) total-vm:..., anon-rss:..." % j.pid[n * T.gpn], j.death.get(n * T.gpn, (t_end, 0))[0]))
    if truth["healthy"]:
        ev.append(("Normal", "PyTorchJobSucceeded", "pytorchjob/%s" % T.k8s_job, "PyTorchJob %s/%s successfully completed." % (ns, T.k8s_job), t_end + 5))
    else:
        fx = sorted((v[0], n) for n, v in j.agent_exit.items() if v[1] not in (0,))
        t_ff = fx[0][0] if fx else t_end
        early = [n for (t, n) in fx if t <= t_ff + 1.0]
        nf = len([x for x in early if x > 0])
        rep = "Worker" if nf else "Master"
        ev.append(("Warning", "PyTorchJobFailed", "pytorchjob/%s" % T.k8s_job, "PyTorchJob %s/%s is failed because %d %s replica(s) failed." % (ns, T.k8s_job, max(1, nf), rep), t_ff + 3))
    ev.sort(key=lambda e: e[4])
    el = ["LAST SEEN   TYPE      REASON                    OBJECT                                          MESSAGE"]
    for (ty, rsn, obj, msg, t) in ev:
        el.append("%-11s %-9s %-25s %-47s %s" % (age(t), ty, rsn, obj, msg))
    files["events.txt"] = "$ kubectl get events -n %s --sort-by=.lastTimestamp\n" % ns + "\n".join(el) + "\n"
    # describe
    d = ["Name:         %s" % T.k8s_job, "Namespace:    %s" % ns, "API Version:  kubeflow.org/v1", "Kind:         PyTorchJob", "Spec:",
         "  Elastic Policy:", "    Max Restarts:  %d" % max(jj.max_restarts for jj in run.jobs), "    Rdzv Backend:  c10d",
         "  Pytorch Replica Specs:", "    Master:", "      Replicas:        1", "      Restart Policy:  OnFailure",
         "    Worker:", "      Replicas:        %d" % (T.nnodes - 1), "      Restart Policy:  OnFailure",
         "      Template:", "        Spec:", "          Containers:", "            Image:  %s" % rng.choice(["nvcr.io/nvidia/pytorch:24.05-py3", "ghcr.io/acme/trainer:2024.06", "us-docker.pkg.dev/proj/train/llm:latest"]),
         "            Resources:", "              Limits:", "                nvidia.com/gpu:  %d" % T.gpn, "                memory:          %dGi" % rng.choice([512, 960, 1800]),
         "  Run Policy:", "    Clean Pod Policy:  %s" % rng.choice(["None", "Running"]), "Status:", "  Conditions:"]
    d += ["    Last Transition Time:  %s" % t_iso(run.jobs[0].t_start - 60) + "Z", "    Message:               PyTorchJob %s is created." % T.k8s_job, "    Reason:                PyTorchJobCreated", "    Status:                True", "    Type:                  Created"]
    d += ["    Last Transition Time:  %s" % t_iso(run.jobs[0].t_start) + "Z", "    Message:               PyTorchJob %s/%s is running." % (ns, T.k8s_job), "    Reason:                PyTorchJobRunning", "    Status:                False", "    Type:                  Running"]
    if truth["healthy"]:
        d += ["    Last Transition Time:  %s" % t_iso(t_end + 5) + "Z", "    Message:               PyTorchJob %s/%s successfully completed." % (ns, T.k8s_job), "    Reason:                PyTorchJobSucceeded", "    Status:                True", "    Type:                  Succeeded"]
    else:
        d += ["    Last Transition Time:  %s" % t_iso(t_end) + "Z", "    Message:               %s" % ev[-1][3] if ev[-1][1] == "PyTorchJobFailed" else "    Message:               PyTorchJob failed.", "    Reason:                PyTorchJobFailed", "    Status:                True", "    Type:                  Failed"]
    d += ["  Replica Statuses:", "    Master:"]
    d += ["      Succeeded:  1"] if 0 not in failed_pods else ["      Failed:  1"]
    nf = len([x for x in failed_pods if x > 0])
    d += ["    Worker:"] + (["      Failed:     %d" % nf] if nf else []) + (["      Succeeded:  %d" % (T.nnodes - 1 - nf)] if T.nnodes - 1 - nf > 0 else [])
    if run.k8s_oom is not None:
        d += ["", "# kubectl describe pod %s (excerpt)" % T.hosts[run.k8s_oom], "    State:          Terminated", "      Reason:       OOMKilled", "      Exit Code:    137"]
    if run.k8s_note == "shm":
        d += ["", "# pod spec excerpt", "    Mounts:", "      /dev/shm from dshm (rw)", "  Volumes:", "    dshm:", "      Type:       EmptyDir (a temporary directory that shares a pod's lifetime)", "      Medium:     Memory", "      SizeLimit:  %s" % rng.choice(["1Gi", "2Gi", "512Mi"])]
    files["describe_pytorchjob.txt"] = "$ kubectl describe pytorchjob %s -n %s\n" % (T.k8s_job, ns) + "\n".join(d) + "\n"


def render_pipeline(run, files, truth):
    T = run.topo
    rng = run.rng
    j = run.jobs[-1]
    lines = []
    c0 = T.clk(0, j.t_start - 5)
    ts = lambda t: "[%s]" % t_sec(T.clk(0, t))
    lines.append("%s === pipeline %s start on %s ===" % (ts(j.t_start - 5), T.run_name, T.short[0]))
    nsteps = 1 + (len(run.post) if run.post else run.rng.choice([1, 2, 2, 3]))
    lines.append("%s step 1/%d: train" % (ts(j.t_start - 4), nsteps))
    lines.append("+ torchrun --standalone --nproc_per_node=%d %s%s --config configs/%s.yaml" % (T.gpn, "--tee 3 " if run.tee else "", T.script, T.run_name))
    tl = []
    for jj in run.jobs:
        tl += [ln for (t, s, st, ln, r) in node_stream(run, jj, 0)]
    files["train.log"] = finish_text(tl, rng)
    train_rc = 1 if j.failed else 0
    lines.append("%s step train finished rc=%d (elapsed %s)" % (ts(j.t_end + 1), train_rc, hms(j.t_end - j.t_start)))
    if train_rc:
        lines.append("%s pipeline FAILED at step train (rc=%d)" % (ts(j.t_end + 1.2), train_rc))
    else:
        for k, p in enumerate(run.post):
            t0 = p["lines"][0][0] - 5
            cmd = {"merge_lora": "python tools/merge_lora.py --base-model %s --adapter %s/checkpoint-%d --out %s/merged%s" % (p.get("base", "meta-llama/Meta-Llama-3-8B"), T.ckpt_path, j.total_steps, T.ckpt_path, " --device cpu" if p.get("cpu") else ""),
                   "quantize_awq": "python tools/quantize.py --model %s/merged --w-bit 4 --q-group-size 128" % T.ckpt_path,
                   "export_trt": "python tools/convert_checkpoint.py --model_dir %s/merged --output_dir %s/trt --dtype bfloat16" % (T.ckpt_path, T.ckpt_path),
                   "eval_harness": "lm_eval --model hf --model_args pretrained=%s/merged --tasks hellaswag,arc_easy --batch_size 16" % T.ckpt_path}[p["step"]]
            lines.append("%s step %d/%d: %s" % (ts(t0), k + 2, nsteps, p["step"]))
            lines.append("+ " + cmd + " 2>&1 | tee post/%s.log" % p["step"])
            pl = []
            for (t, txt) in p["lines"]:
                pl += txt.split("\n")
            if p["rc"] == 137:
                lines.append("run_pipeline.sh: line %d: %d Killed                  %s" % (rng.choice([41, 57, 63]), p.get("killed_pid", 0), cmd))
            files["post/%s.log" % p["step"]] = "\n".join(pl) + "\n"
            lines.append("%s step %s finished rc=%d" % (ts(p["t_end"]), p["step"], p["rc"]))
            if p["rc"]:
                lines.append("%s pipeline FAILED at step %s (rc=%d)" % (ts(p["t_end"] + 0.2), p["step"], p["rc"]))
                break
        else:
            lines.append("%s === pipeline %s finished OK ===" % (ts((run.post[-1]["t_end"] if run.post else j.t_end) + 1), T.run_name))
    files["pipeline.log"] = "\n".join(lines) + "\n"


RENDER = {"slurm_torchrun": render_slurm_torchrun, "slurm_srun": render_slurm_srun, "torchrun_nodes": render_torchrun_nodes,
          "torchelastic_logdir": render_torchelastic, "deepspeed_pdsh": render_deepspeed, "accelerate": render_accelerate,
          "k8s_pytorchjob": render_k8s, "pipeline_post": render_pipeline}


# ============================================================================= driver
def plan_runs(n, seed):
    rng = random.Random("blind57:%s:plan" % seed)
    order = CAUSES[:]
    rng.shuffle(order)
    out = []
    k = 0
    for i in range(n):
        if i % 7 == 3:
            out.append(None)
        else:
            out.append(order[k % len(order)])
            k += 1
    return out, rng


def pick(seed, plan_rng, cause, counts, layout_use, scen_off):
    """Scenario: cycle through the cause's scenarios. Layout: least used so far in this set,
    ties broken by a rotation that moves with the seed and the occurrence, so that over
    several seeds every cause meets every layout that can express it."""
    key = cause or "healthy"
    lst = SCEN[key]
    c = counts.get(key, 0)
    counts[key] = c + 1
    sc = lst[(c + scen_off[key]) % len(lst)]
    comp = [l for l in LAYOUTS if l in (sc["layouts"] or LAYOUTS)]
    if sc["min_nodes"] > 1:
        comp = [l for l in comp if l not in ("pipeline_post",)]
    rot = (hash_i("%s:%s" % (seed, key)) + c * 3) % len(comp)
    order = sorted(range(len(comp)), key=lambda i: (layout_use.get(comp[i], 0), (i - rot) % len(comp)))
    layout = comp[order[0]]
    layout_use[layout] = layout_use.get(layout, 0) + 1
    return sc, layout


def generate_one(outdir, i, seed, cause, sc, layout):
    rng = random.Random("blind57:%s:%d" % (seed, i))
    run = Run(rng, i, layout, sc)
    res = sc["fn"](run)
    for j in run.jobs:
        if j.t_end is None and not j.death:
            resolve(j)
    T = run.topo
    healthy = cause is None
    truth = {"healthy": healthy, "cause": res["cause"],
             "initiator": None, "layout": layout, "notes": res["notes"]}
    if not healthy and (res.get("rank") is not None or res.get("node") is not None):
        truth["initiator"] = {"rank": res.get("rank"), "node": T.short[res["node"]] if res.get("node") is not None else None}
    files = {}
    RENDER[layout](run, files, truth)
    operator_files(run, files, truth)
    name = "run-%03d-%s" % (i, layout)
    d = os.path.join(outdir, name)
    os.makedirs(d, exist_ok=True)
    for rel in sorted(files):
        p = os.path.join(d, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w", encoding="utf-8") as f:
            f.write(files[rel])
    with open(os.path.join(d, "truth.json"), "w") as f:
        json.dump(truth, f, indent=2)
        f.write("\n")
    return name, truth, sc["name"]


def main(argv=None):
    ap = argparse.ArgumentParser(description="blind57: end-of-job failure log bundles")
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--seed", default="1")
    ap.add_argument("--verbose", action="store_true")
    a = ap.parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    causes, prng = plan_runs(a.n, a.seed)
    counts, use = {}, {}
    off = {k: prng.randrange(len(v)) for k, v in sorted(SCEN.items())}
    tally = {}
    for i, c in enumerate(causes):
        sc, layout = pick(a.seed, prng, c, counts, use, off)
        name, truth, sname = generate_one(a.out, i, a.seed, c, sc, layout)
        key = c or "healthy"
        tally[key] = tally.get(key, 0) + 1
        if a.verbose:
            print("%s %s %s" % (name, key, sname), file=sys.stderr)
    print(json.dumps(dict(sorted(tally.items())), indent=1))


if __name__ == "__main__":
    main()
