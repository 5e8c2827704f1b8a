#!/usr/bin/env python3
"""blind44: synthetic log bundles of failed/healthy multi-GPU training jobs run inside
containers and on shared / partitioned GPUs (Kubernetes PyTorchJob, node-level debug bundles,
Docker, Slurm+pyxis/enroot, Slurm+Apptainer, k8s GPU time-slicing / MPS / MIG).

Written blind (no access to the diagnosing tool, its rules, tests or other generators).
Standard library only.  Usage:
    python3 gen_blind44.py --out DIR --n 60 --seed 1
"""
import argparse
import json
import os
import random
import sys
from datetime import datetime, timedelta, timezone

CAUSES = ["gpu_hardware", "ecc_memory", "nvlink", "network", "cuda_oom",
          "illegal_memory_access", "python_exception", "host_oom_kill", "crash_signal",
          "preemption", "hang", "data_loader_stall", "collective_mismatch", "straggler",
          "unknown"]
LAYOUTS = ["k8s-pytorchjob", "k8s-node-debug", "docker", "slurm-pyxis", "slurm-apptainer",
           "k8s-shared-gpu"]
SUPPORT = {l: list(CAUSES) for l in LAYOUTS}
SUPPORT["k8s-shared-gpu"] = [c for c in CAUSES if c != "nvlink"]

MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
DAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
PCI_BUSES = ["18", "2a", "3a", "5d", "9a", "ab", "ba", "db"]
PCI_BUSES_B = ["07", "0f", "47", "4e", "87", "90", "b7", "bd"]
SIGNAMES = {6: "SIGABRT", 7: "SIGBUS", 9: "SIGKILL", 11: "SIGSEGV", 15: "SIGTERM"}


def hexid(rng, n):
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


def uuid(rng):
    return "%s-%s-%s-%s-%s" % (hexid(rng, 8), hexid(rng, 4), hexid(rng, 4), hexid(rng, 4), hexid(rng, 12))


# ----------------------------------------------------------------------------------------
# Job model
# ----------------------------------------------------------------------------------------
class Job:
    """Topology + clocks + per-unit output streams + host-side logs."""

    def __init__(self, rng, layout, cause, healthy):
        self.rng = rng
        self.layout = layout
        self.cause = cause
        self.healthy = healthy
        y = rng.choice([2024, 2024, 2025])
        self.t0 = datetime(y, rng.randint(1, 12), rng.randint(1, 28), rng.randint(0, 23),
                           rng.randint(0, 59), rng.randint(0, 59), rng.randint(0, 999999),
                           tzinfo=timezone.utc)
        self.torch = rng.choice(["2.1.2", "2.2.2", "2.3.1", "2.4.1", "2.5.1", "2.6.0"])
        self.tnew = self.torch >= "2.4"
        self.tmid = "2.1" <= self.torch < "2.4"
        self.nccl = {"2.1.2": "2.18.6", "2.2.2": "2.19.3", "2.3.1": "2.20.5", "2.4.1": "2.20.5",
                     "2.5.1": "2.21.5", "2.6.0": "2.21.5"}[self.torch]
        self.py = rng.choice(["3.10", "3.10", "3.11"])
        self.site = "/usr/local/lib/python%s/dist-packages" % self.py if rng.random() < 0.6 \
            else "/opt/conda/lib/python%s/site-packages" % self.py
        self.image = rng.choice(["nvcr.io/nvidia/pytorch:24.03-py3", "nvcr.io/nvidia/pytorch:24.07-py3",
                                 "nvcr.io/nvidia/pytorch:23.10-py3", "ghcr.io/acme-ml/trainer:v0.%d.%d" % (rng.randint(3, 19), rng.randint(0, 9)),
                                 "registry.internal/ml/llm-train:%s" % hexid(rng, 7),
                                 "pytorch/pytorch:%s-cuda12.1-cudnn8-runtime" % self.torch])
        self.script = rng.choice(["train.py", "pretrain.py", "finetune.py", "main.py", "train_lm.py"])
        self.jobname = rng.choice(["llama-ft", "gpt-pretrain", "vit-l-sweep", "mixtral-sft", "bert-mlm",
                                   "diffusion-xl", "rm-train", "dpo-run", "codegen-ft", "asr-conformer"]) + "-" + hexid(rng, 4)
        self.ns = rng.choice(["ml-team", "research", "default", "training", "llm"])
        self.nccl_info = rng.random() < 0.45
        self.timeout_s = rng.choice([600, 600, 1800, 1800, 900])
        self.pstyle = rng.choice(["rankcolon", "rankcolon", "default", "none"]) if self.tnew or self.tmid \
            else rng.choice(["default", "none"])
        if self.torch < "2.3" and self.pstyle == "rankcolon":
            self.pstyle = "none"
        self.per_rank_stats = rng.random() < 0.35 or cause == "straggler"
        self.step_time = rng.uniform(0.35, 2.6)
        self.log_every = rng.choice([10, 20, 25, 50])
        self.total_steps = rng.choice([5000, 10000, 20000, 50000, 100000])
        self.units = []          # dict(name, host, ranks, agent, ip, pid_agent)
        self.hosts = []
        self.host_ip = {}
        self.skew = {}
        self.streams = {}        # unit index -> list of (t, line)
        self.dmesg = {}          # host -> list of (t, line)
        self.journal = {}        # host -> list of (t, proc, line)
        self.devplugin = {}      # host -> list of (t, line)
        self.events = []         # (t, type, reason, obj, msg, source)
        self.unit_state = {}     # unit index -> dict(reason, code, start, end, restarts, msg)
        self.extra_files = {}    # relative path -> text
        self.boot = {}           # host -> boot offset seconds (for dmesg monotonic)
        self.iface = rng.choice(["eth0", "eth0", "net1", "ens5", "bond0"])
        self.transport = "IB"
        self.rank_pid = {}
        self.rank_hostpid = {}
        self.rank_gpu = {}       # rank -> (gpu index on host, bus)
        self.gpu_uuid = {}       # (host, idx) -> uuid
        self.end_t = 0.0
        self.notes = []
        self.skip_units = set()
        self.slurm_agent_pid = {}
        self.rank_end = {}
        self.kill_on_bad_exit = rng.random() < 0.6

    # ---- topology -----------------------------------------------------------
    def build(self, hosts, ranks_per_unit, units_per_host, agent=True, prefix="node"):
        rng = self.rng
        self.hosts = hosts
        self.agent = agent
        base = rng.randint(1, 40)
        for i, h in enumerate(hosts):
            self.host_ip[h] = "10.%d.%d.%d" % (rng.choice([0, 1, 20, 64]), rng.randint(0, 30), base + i * rng.randint(1, 3))
            sk = rng.uniform(-2.5, 2.5)
            if rng.random() < 0.12:
                sk += rng.choice([-1, 1]) * rng.uniform(20, 75)
            self.skew[h] = 0.0 if i == 0 and rng.random() < 0.5 else sk
            self.boot[h] = rng.uniform(3600 * 5, 3600 * 24 * 40)
            self.dmesg[h] = []
            self.journal[h] = []
            self.devplugin[h] = []
        r = 0
        buses = PCI_BUSES if rng.random() < 0.5 else PCI_BUSES_B
        self.buses = buses
        for h in hosts:
            for u in range(units_per_host):
                ranks = list(range(r, r + ranks_per_unit))
                r += ranks_per_unit
                self.units.append(dict(name=None, host=h, ranks=ranks, agent=agent,
                                       ip=self.host_ip[h], pid_agent=1 if agent else None))
        self.world = r
        for ui, u in enumerate(self.units):
            self.streams[ui] = []
            self.unit_state[ui] = dict(reason="Completed", code=0, restarts=0, msg=None)
            p0 = rng.randint(40, 400) if self.layout.startswith("k8s") or self.layout == "docker" else rng.randint(20000, 250000)
            pp = p0 + 7
            for j, rk in enumerate(u["ranks"]):
                pp += rng.randint(1, 3)
                self.rank_pid[rk] = pp
                self.rank_hostpid[rk] = rng.randint(100000, 3900000)
        # gpu mapping
        per_host_idx = {}
        for ui, u in enumerate(self.units):
            for rk in u["ranks"]:
                gi = per_host_idx.get(u["host"], 0)
                per_host_idx[u["host"]] = gi + 1
                gi = gi % 8
                self.rank_gpu[rk] = (gi, buses[gi])
        for h in hosts:
            for gi in range(8):
                self.gpu_uuid[(h, gi)] = "GPU-" + uuid(rng)
        self.gpus_per_host = max(per_host_idx.values())
        self.gpu_name = rng.choice(["NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-80GB", "NVIDIA H100 80GB HBM3",
                                    "NVIDIA A100-SXM4-40GB", "NVIDIA L40S", "NVIDIA A10G"])
        if self.gpus_per_host >= 4 and self.gpu_name in ("NVIDIA L40S", "NVIDIA A10G") and rng.random() < 0.5:
            self.gpu_name = "NVIDIA H100 80GB HBM3"
        self.gpu_mem = {"NVIDIA H100 80GB HBM3": 79.11, "NVIDIA A100-SXM4-80GB": 79.15,
                        "NVIDIA A100-SXM4-40GB": 39.39, "NVIDIA L40S": 44.34, "NVIDIA A10G": 21.99}[self.gpu_name]
        self.nvlink = self.gpu_name.startswith("NVIDIA H100") or "SXM" in self.gpu_name

    def unit_of(self, rank):
        for ui, u in enumerate(self.units):
            if rank in u["ranks"]:
                return ui
        raise KeyError(rank)

    def host_of(self, rank):
        return self.units[self.unit_of(rank)]["host"]

    def local(self, rank):
        return self.units[self.unit_of(rank)]["ranks"].index(rank)

    # ---- clocks ---------------------------------------------------------------
    def clk(self, host, t):
        return self.t0 + timedelta(seconds=t + self.skew.get(host, 0.0))

    def pylog(self, host, t):
        d = self.clk(host, t)
        return d.strftime("%Y-%m-%d %H:%M:%S") + ",%03d" % (d.microsecond // 1000)

    def glog(self, host, t, lvl, pid=None, src="ProcessGroupNCCL.cpp:1234", nano=False):
        d = self.clk(host, t)
        if nano:
            return "[%s%s %s.%06d%03d %s]" % (lvl, d.strftime("%m%d"), d.strftime("%H:%M:%S"), d.microsecond, self.rng.randint(0, 999), src)
        if pid is not None:
            return "%s%s %s.%06d %7d %s]" % (lvl, d.strftime("%m%d"), d.strftime("%H:%M:%S"), d.microsecond, pid, src)
        return "[%s %s]" % (lvl, src)

    def iso(self, host, t, nanos=True):
        d = self.clk(host, t)
        if nanos:
            return d.strftime("%Y-%m-%dT%H:%M:%S") + ".%06d%03dZ" % (d.microsecond, self.rng.randint(0, 999))
        return d.strftime("%Y-%m-%dT%H:%M:%S") + "Z"

    def syslog(self, host, t):
        d = self.clk(host, t)
        return "%s %2d %s" % (MONTHS[d.month - 1], d.day, d.strftime("%H:%M:%S"))

    def ctime(self, host, t):
        d = self.clk(host, t)
        return "%s %s %2d %s %d" % (DAYS[d.weekday()], MONTHS[d.month - 1], d.day, d.strftime("%H:%M:%S"), d.year)

    # ---- emitters ---------------------------------------------------------------
    def pfx(self, rank, kind):
        if rank is None:
            return ""
        if not self.units[self.unit_of(rank)]["agent"]:
            return ""
        if self.pstyle == "default":
            return "[default%d]:" % self.local(rank)
        if self.pstyle == "rankcolon" and kind in ("c10", "err"):
            return "[rank%d]:" % rank
        return ""

    def out(self, rank, t, lines, kind="out", unit=None):
        if isinstance(lines, str):
            lines = lines.split("\n")
        ui = self.unit_of(rank) if unit is None else unit
        p = self.pfx(rank, kind)
        sep = " " if (p and kind == "err" and self.pstyle == "rankcolon") else ""
        k = "err" if kind in ("err", "c10") or "Warning" in lines[0] or "NCCL WARN" in lines[0] else "out"
        for i, ln in enumerate(lines):
            self.streams[ui].append((t + i * 1e-6, p + sep + ln if p else ln, k))
        self.end_t = max(self.end_t, t)

    def uout(self, ui, t, lines):
        """Unit-level output (launcher / entrypoint), no rank prefix."""
        if isinstance(lines, str):
            lines = lines.split("\n")
        for i, ln in enumerate(lines):
            self.streams[ui].append((t + i * 1e-6, ln, "err"))
        self.end_t = max(self.end_t, t)

    def kmsg(self, host, t, line):
        self.dmesg[host].append((t, line))

    def jrnl(self, host, t, proc, line):
        self.journal[host].append((t, proc, line))

    def dplog(self, host, t, line):
        self.devplugin[host].append((t, line))

    def event(self, t, typ, reason, obj, msg, source="kubelet"):
        self.events.append((t, typ, reason, obj, msg, source))


# ----------------------------------------------------------------------------------------
# Text builders shared by all layouts
# ----------------------------------------------------------------------------------------
def elastic_log(job, host, t, lvl, mod, msg, pid=1):
    """torchrun / elastic agent log line in the style of the torch version."""
    if pid == 1 and job.layout.startswith("slurm"):
        pid = job.slurm_agent_pid.setdefault(host, job.rng.randint(20000, 250000))
    if job.tnew:
        src = {"api": "torch/distributed/elastic/multiprocessing/api.py:%d" % job.rng.choice([869, 890, 897]),
               "agent": "torch/distributed/elastic/agent/server/api.py:%d" % job.rng.choice([704, 725]),
               "run": "torch/distributed/run.py:%d" % job.rng.choice([792, 793]),
               "local": "torch/distributed/elastic/agent/server/local_elastic_agent.py:%d" % job.rng.choice([300, 268])}[mod]
        return job.glog(host, t, lvl[0], pid=pid, src=src) + " " + msg
    name = {"api": "torch.distributed.elastic.multiprocessing.api",
            "agent": "torch.distributed.elastic.agent.server.api",
            "run": "torch.distributed.run",
            "local": "torch.distributed.elastic.agent.server.local_elastic_agent"}[mod]
    lv = {"W": "WARNING", "E": "ERROR", "I": "INFO"}[lvl[0]]
    if job.tmid:
        return "[%s] %s: [%s] %s" % (job.pylog(host, t), name, lv, msg)
    return "%s:%s:%s" % (lv, name, msg)


def c10(job, rank, t, lvl, src, msg):
    host = job.host_of(rank)
    if job.tnew:
        return job.glog(host, t, lvl, src=src, nano=True) + " " + msg
    if job.tmid:
        return "[%s %s] %s" % (lvl, src, msg)
    return "[%s %s] %s" % (lvl, src, msg)


def launcher_start(job, ui, t):
    u = job.units[ui]
    h = u["host"]
    n = len(u["ranks"])
    lines = []
    if n > 1 or job.rng.random() < 0.5:
        lines += [elastic_log(job, h, t, "W", "run", ""),
                  elastic_log(job, h, t, "W", "run", "*" * 49),
                  elastic_log(job, h, t, "W", "run", "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. "),
                  elastic_log(job, h, t, "W", "run", "*" * 49)]
    job.uout(ui, t, lines)


def nccl_prefix(job, rank):
    h = job.host_of(rank)
    return "%s:%d:%d [%d]" % (h.split(".")[0] if not job.layout.startswith("k8s") else job.units[job.unit_of(rank)]["name"],
                              job.rank_pid[rank], job.rank_pid[rank] + job.rng.randint(30, 400), job.local(rank) if job.layout != "k8s-shared-gpu" else 0)


def nccl_init_info(job, rank, t, transport):
    if not job.nccl_info:
        return
    p = nccl_prefix(job, rank)
    ip = job.units[job.unit_of(rank)]["ip"]
    lines = []
    if rank == 0:
        lines.append("%s NCCL INFO Bootstrap : Using %s:%s<0>" % (p, job.iface, ip))
        lines.append("%s NCCL INFO NCCL version %s+cuda12.%d" % (p, job.nccl, job.rng.choice([1, 2, 4])))
    if transport == "IB":
        lines.append("%s NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [2]mlx5_2:1/IB [3]mlx5_3:1/IB ; OOB %s:%s<0>" % (p, job.iface, ip))
        lines.append("%s NCCL INFO Using network IB" % p)
    else:
        lines.append("%s NCCL INFO NET/IB : No device found." % p)
        lines.append("%s NCCL INFO NET/Socket : Using [0]%s:%s<0>" % (p, job.iface, ip))
        lines.append("%s NCCL INFO Using network Socket" % p)
    if job.rng.random() < 0.4:
        lines.append("%s NCCL INFO cudaDriverVersion 12020" % p)
    lines.append("%s NCCL INFO comm 0x%s rank %d nRanks %d nNodes %d localRanks %d localRank %d MNNVL 0"
                 % (p, hexid(job.rng, 8), rank, job.world, len(job.hosts) if job.layout != "k8s-shared-gpu" else len(job.units),
                    len(job.units[job.unit_of(rank)]["ranks"]), job.local(rank)))
    if job.rng.random() < 0.5:
        lines.append("%s NCCL INFO Channel 00/0%d :    0   1   2   3" % (p, job.rng.randint(2, 8)))
    lines.append("%s NCCL INFO Connected all rings" % p)
    lines.append("%s NCCL INFO comm 0x%s rank %d nranks %d cudaDev %d nvmlDev %d busId %s000 commId 0x%s - Init COMPLETE"
                 % (p, hexid(job.rng, 8), rank, job.world, job.local(rank) if job.layout != "k8s-shared-gpu" else 0,
                    job.rank_gpu[rank][0], job.rank_gpu[rank][1], hexid(job.rng, 16)))
    job.out(rank, t, lines, "out")


NOISE_WARN = [
    "{site}/torch/utils/checkpoint.py:464: UserWarning: torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. In version 2.4 we will raise an exception if use_reentrant is not passed. use_reentrant=False is recommended, but if you need to preserve the current default behavior, you can pass use_reentrant=True. Refer to docs for more details on the differences between the two variants.\n  warnings.warn(",
    "{site}/torch/_utils.py:831: UserWarning: TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the only storage class. This should only matter to you if you are using storages directly.  To access UntypedStorage directly, use tensor.untyped_storage() instead of tensor.storage()\n  return self.fget.__get__(instance, owner)()",
    "{site}/transformers/tokenization_utils_base.py:1601: FutureWarning: `clean_up_tokenization_spaces` was not set. It will be set to `True` by default. This behavior will be depracted in transformers v4.45, and will be then set to `False` by default.\n  warnings.warn(",
    "/usr/lib/python3/dist-packages/requests/__init__.py:87: RequestsDependencyWarning: urllib3 (2.0.7) or chardet (5.2.0) doesn't match a supported version!",
    "{site}/torch/cuda/memory.py:330: FutureWarning: torch.cuda.reset_max_memory_allocated now calls torch.cuda.reset_peak_memory_stats, which resets /all/ peak memory stats.\n  warnings.warn(",
    "wandb: WARNING Path /workspace/wandb/ wasn't writable, using system temp directory.",
    "{site}/torch/nn/parallel/distributed.py:2156: UserWarning: You passed find_unused_parameters=true to DistributedDataParallel, `_set_static_graph` will detect unused parameters automatically, so you do not need to set find_unused_parameters=true, just be sure these unused parameters will not change during training loop while calling `_set_static_graph`.",
]


def training(job, t_start, t_stop, slow_rank=None, slow_factor=1.0, stall_rank=None, stall_from=None):
    """Startup + step logs from t_start until t_stop. Returns last step number and t."""
    rng = job.rng
    for ui, u in enumerate(job.units):
        if u["agent"]:
            launcher_start(job, ui, t_start + rng.uniform(0, 2))
    # per rank startup
    transport = job.transport
    for r in range(job.world):
        tt = t_start + rng.uniform(3, 14)
        if r == 0 or rng.random() < 0.12:
            w = rng.choice(NOISE_WARN).format(site=job.site)
            job.out(r, tt, w, "out")
        nccl_init_info(job, r, tt + rng.uniform(5, 12), transport)
    t = t_start + 25 + rng.uniform(0, 20)
    job.out(0, t, "[%s][%s][INFO] - world_size=%d, global_batch=%d, micro_batch=%d, grad_accum=%d"
            % (job.pylog(job.host_of(0), t), job.script.replace(".py", ""), job.world, job.world * rng.choice([4, 8, 16]),
               rng.choice([1, 2, 4, 8]), rng.choice([1, 2, 4])))
    job.out(0, t + 0.5, "[%s][%s][INFO] - Loaded %d training samples from /data/%s" %
            (job.pylog(job.host_of(0), t + 0.5), job.script.replace(".py", ""), rng.randint(10 ** 5, 10 ** 8),
             rng.choice(["shards", "tokenized/train", "webdataset", "c4-en", "imagenet/train"])))
    step = 0
    eff = job.step_time * (slow_factor if slow_rank is not None else 1.0)
    loss = rng.uniform(6.0, 10.5)
    tq = rng.random() < 0.4
    t += 10
    while t < t_stop:
        step += job.log_every
        t += eff * job.log_every * rng.uniform(0.97, 1.05)
        if t >= t_stop:
            break
        loss = max(1.2, loss * rng.uniform(0.965, 1.0))
        h0 = job.host_of(0)
        if tq:
            done = step
            pct = int(100 * done / job.total_steps)
            job.out(0, t, "Training: %3d%%|%s| %d/%d [%02d:%02d<%s, %.2fit/s, loss=%.3f]" %
                    (pct, "\u2588" * (pct // 10) + " " * (10 - pct // 10), done, job.total_steps,
                     int(t // 60) % 60, int(t) % 60, "%d:%02d:%02d" % ((job.total_steps - done) * eff // 3600,
                                                                        ((job.total_steps - done) * eff // 60) % 60, 0),
                     1.0 / eff, loss), "err")
        else:
            job.out(0, t, "[%s][%s][INFO] - step %d/%d | loss %.4f | lr %.3e | grad_norm %.3f | %.2f s/it | tokens/s %d"
                    % (job.pylog(h0, t), job.script.replace(".py", ""), step, job.total_steps, loss,
                       3e-4 * min(1.0, step / 2000.0), rng.uniform(0.2, 1.6), eff, int(rng.uniform(0.9, 1.1) * 4.0e6 / eff / 8)))
        if job.per_rank_stats and (step // job.log_every) % 4 == 0:
            for r in range(job.world):
                if stall_rank is not None and r == stall_rank and stall_from is not None and t > stall_from:
                    continue
                base = job.step_time * 1000 * rng.uniform(0.93, 1.0)
                if slow_rank is not None:
                    if r in slow_rank:
                        comp = base * slow_factor * rng.uniform(0.97, 1.03)
                        wait = rng.uniform(2, 15)
                    else:
                        comp = base * rng.uniform(0.97, 1.03)
                        wait = base * (slow_factor - 1.0) * rng.uniform(0.9, 1.0)
                else:
                    comp, wait = base, rng.uniform(5, 60)
                job.out(r, t + rng.uniform(0, 0.3), "rank %d | step %d | fwd_bwd %.1f ms | data %.1f ms | allreduce_wait %.1f ms"
                        % (r, step, comp, rng.uniform(0.5, 9), wait), "out")
        if rng.random() < 0.03:
            job.out(0, t + 0.2, rng.choice(NOISE_WARN).format(site=job.site), "out")
    job.last_step = step
    return step, t


def seqnum(job, step):
    return step * job.rng.choice([2, 3, 4]) + job.rng.randint(3, 60)


def watchdog_lines(job, rank, t, seq, op="ALLREDUCE", numel=None, timeout_ms=None, last_enq=None, last_comp=None):
    rng = job.rng
    timeout_ms = timeout_ms or job.timeout_s * 1000
    numel = numel or rng.choice([1, 2048, 65536, 1048576, 33554432, 262144000])
    ran = timeout_ms + rng.randint(1, 90)
    pg = "[PG 0 Rank %d]" % rank if not job.tnew else "[PG ID 0 PG GUID 0(default_pg) Rank %d]" % rank
    wd = ("%s Watchdog caught collective operation timeout: WorkNCCL(SeqNum=%d, OpType=%s, NumelIn=%d, NumelOut=%d, Timeout(ms)=%d) ran for %d milliseconds before timing out."
          % (pg if job.tnew else "[Rank %d]" % rank, seq, op, numel, numel * (job.world if op == "ALLGATHER" else 1), timeout_ms, ran))
    lines = [c10(job, rank, t, "E", "ProcessGroupNCCL.cpp:%d" % rng.choice([563, 607, 616, 632]), wd)]
    le = seq if last_enq is None else last_enq
    lc = seq - 1 if last_comp is None else last_comp
    if job.torch >= "2.2":
        lines.append(c10(job, rank, t + 0.001, "E", "ProcessGroupNCCL.cpp:%d" % rng.choice([1537, 1664, 1785]),
                         "%s Timeout at NCCL work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (pg, seq, le, lc)))
    lines.append(c10(job, rank, t + 0.002, "E", "ProcessGroupNCCL.cpp:%d" % rng.choice([577, 621, 630]),
                     "%s Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data." % pg))
    lines.append(c10(job, rank, t + 0.003, "E", "ProcessGroupNCCL.cpp:%d" % rng.choice([583, 627, 636]),
                     "%s To avoid data inconsistency, we are taking the entire process down." % pg))
    if job.tnew and rng.random() < 0.6:
        lines.append(c10(job, rank, t + 0.004, "E", "ProcessGroupNCCL.cpp:%d" % rng.choice([1595, 1616]),
                         "%s Process group watchdog thread terminated with exception: %s" % (pg, wd)))
    lines += ["terminate called after throwing an instance of 'c10::DistBackendError'",
              "  what():  %s Process group watchdog thread terminated with exception: %s" % (pg, wd),
              "Exception raised from checkTimeout at %s/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:%d (most recent call first):"
              % ("../" if rng.random() < 0.5 else "/opt/pytorch/pytorch", rng.choice([565, 609, 618])),
              "frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x%x (0x7f%s in %s/torch/lib/libc10.so)" % (rng.randint(0x50, 0x99), hexid(rng, 10), job.site),
              "frame #1: c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >) + 0x1d2 (0x7f%s in %s/torch/lib/libtorch_cuda.so)" % (hexid(rng, 10), job.site),
              "frame #2: c10d::ProcessGroupNCCL::watchdogHandler() + 0x%x (0x7f%s in %s/torch/lib/libtorch_cuda.so)" % (rng.randint(0x200, 0x300), hexid(rng, 10), job.site),
              "frame #3: c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x10c (0x7f%s in %s/torch/lib/libtorch_cuda.so)" % (hexid(rng, 10), job.site),
              "frame #4: <unknown function> + 0xdc253 (0x7f%s in /lib/x86_64-linux-gnu/libstdc++.so.6)" % hexid(rng, 10),
              "frame #5: <unknown function> + 0x94ac3 (0x7f%s in /lib/x86_64-linux-gnu/libc.so.6)" % hexid(rng, 10),
              "frame #6: <unknown function> + 0x126850 (0x7f%s in /lib/x86_64-linux-gnu/libc.so.6)" % hexid(rng, 10),
              ""]
    job.out(rank, t, lines, "c10")


def py_traceback(job, frames, exc):
    lines = ["Traceback (most recent call last):"]
    for f, ln, fn, code in frames:
        lines.append('  File "%s", line %d, in %s' % (f, ln, fn))
        if code:
            lines.append("    " + code)
    lines += exc.split("\n")
    return lines


def user_frames(job, tail):
    s = job.script
    fr = [("/workspace/%s" % s, job.rng.randint(300, 700), "<module>", "main()"),
          ("/workspace/%s" % s, job.rng.randint(200, 290), "main", "train(cfg, model, loader, optimizer)"),
          ("/workspace/%s" % s, job.rng.randint(120, 199), "train", tail[0])]
    return fr + tail[1:]


CUDA_TAIL = ("CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\n"
             "For debugging consider passing CUDA_LAUNCH_BLOCKING=1.\n"
             "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n")


def cuda_error(job, rank, t, msg, where="loss.backward()", cpp=True):
    rng = job.rng
    frames = user_frames(job, [where])
    if where == "loss.backward()":
        frames += [(job.site + "/torch/_tensor.py", 521, "backward", "torch.autograd.backward("),
                   (job.site + "/torch/autograd/__init__.py", 289, "backward", "_engine_run_backward("),
                   (job.site + "/torch/autograd/graph.py", 768, "_engine_run_backward", "return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass")]
    else:
        frames += [(job.site + "/torch/nn/modules/module.py", 1553, "_wrapped_call_impl", "return self._call_impl(*args, **kwargs)"),
                   (job.site + "/torch/nn/modules/module.py", 1562, "_call_impl", "return forward_call(*args, **kwargs)")]
    exc = "RuntimeError: CUDA error: %s\n%s" % (msg, CUDA_TAIL)
    lines = py_traceback(job, frames, exc)
    job.out(rank, t, lines, "err")


def cpp_cuda_abort(job, rank, t, msg):
    """Error raised from a CUDA event query in the watchdog (process aborts with SIGABRT)."""
    rng = job.rng
    lines = ["terminate called after throwing an instance of 'c10::Error'",
             "  what():  CUDA error: %s" % msg] + CUDA_TAIL.rstrip("\n").split("\n") + [
             "",
             "Exception raised from c10_cuda_check_implementation at ../c10/cuda/CUDAException.cpp:43 (most recent call first):",
             "frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x57 (0x7f%s in %s/torch/lib/libc10.so)" % (hexid(rng, 10), job.site),
             "frame #1: c10::detail::torchCheckFail(char const*, char const*, unsigned int, std::string const&) + 0x64 (0x7f%s in %s/torch/lib/libc10.so)" % (hexid(rng, 10), job.site),
             "frame #2: c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, int, bool) + 0x118 (0x7f%s in %s/torch/lib/libc10_cuda.so)" % (hexid(rng, 10), job.site),
             "frame #3: c10d::ProcessGroupNCCL::WorkNCCL::finishedGPUExecutionInternal() const + 0x56 (0x7f%s in %s/torch/lib/libtorch_cuda.so)" % (hexid(rng, 10), job.site),
             "frame #4: c10d::ProcessGroupNCCL::WorkNCCL::isCompleted() + 0x58 (0x7f%s in %s/torch/lib/libtorch_cuda.so)" % (hexid(rng, 10), job.site),
             "frame #5: c10d::ProcessGroupNCCL::watchdogHandler() + 0x1a0 (0x7f%s in %s/torch/lib/libtorch_cuda.so)" % (hexid(rng, 10), job.site),
             ""]
    job.out(rank, t, lines, "c10")


def nccl_remote_error(job, rank, t, peer_ip, kind="socket", op="allreduce"):
    rng = job.rng
    p = nccl_prefix(job, rank)
    port = rng.randint(32768, 60999)
    if kind == "socket":
        warn = "%s misc/socket.cc:%d NCCL WARN socketProgress: Connection closed by remote peer %s<%d>" % (p, rng.choice([49, 538, 568]), peer_ip, port) \
            if rng.random() < 0.5 else "%s misc/socket.cc:%d NCCL WARN socketProgressOpt: Call to recv from %s<%d> failed : Connection reset by peer" % (p, rng.choice([47, 438]), peer_ip, port)
        last = warn.split("NCCL WARN ", 1)[1]
    else:
        warn = ("%s transport/net_ib.cc:%d NCCL WARN NET/IB : Got completion from peer %s<%d> with status=IBV_WC_RETRY_EXC_ERR(12) opcode=%d len=%d vendor err %d (Send) localGid ::ffff:%s remoteGids::ffff:%s hca mlx5_%d"
                % (p, rng.choice([1696, 2101, 1816]), peer_ip, port, rng.choice([0, 2]), rng.choice([0, 524288]), rng.choice([129, 244]),
                   job.units[job.unit_of(rank)]["ip"], peer_ip, rng.randint(0, 3)))
        last = warn.split("NCCL WARN ", 1)[1]
    lines = [warn, "%s NCCL INFO transport/net.cc:%d -> 6" % (p, rng.choice([1133, 1308]))]
    job.out(rank, t, lines, "out")
    frames = user_frames(job, ["loss.backward()"]) if rng.random() < 0.5 else user_frames(job, ["dist.all_reduce(loss_tensor, op=dist.ReduceOp.AVG)",
                                                                                                 (job.site + "/torch/distributed/c10d_logger.py", 83, "wrapper", "return func(*args, **kwargs)"),
                                                                                                 (job.site + "/torch/distributed/distributed_c10d.py", 2501, "all_reduce", "work.wait()")])
    exc = ("torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:%d, remote process exited or there was a network error, NCCL version %s\n"
           "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.\nLast error:\n%s"
           % (rng.choice([1970, 2027, 1691]), job.nccl, last))
    job.out(rank, t + 0.01, py_traceback(job, frames, exc), "err")


def torchrun_traceback(job, host):
    s = job.site
    return ["Traceback (most recent call last):",
            '  File "/usr/local/bin/torchrun", line 8, in <module>' if "dist-packages" in s else '  File "/opt/conda/bin/torchrun", line 33, in <module>',
            "    sys.exit(main())",
            '  File "%s/torch/distributed/elastic/multiprocessing/errors/__init__.py", line 355, in wrapper' % s,
            "    return f(*args, **kwargs)",
            '  File "%s/torch/distributed/run.py", line 919, in main' % s,
            "    run(args)",
            '  File "%s/torch/distributed/run.py", line 910, in run' % s,
            "    elastic_launch(",
            '  File "%s/torch/distributed/launcher/api.py", line 138, in __call__' % s,
            "    return launch_agent(self._config, self._entrypoint, list(args))",
            '  File "%s/torch/distributed/launcher/api.py", line 269, in launch_agent' % s,
            "    raise ChildFailedError("]


def child_failed(job, ui, t, fails):
    """fails: list of (t, rank, exitcode, traceback_or_None) sorted; first = root cause."""
    u = job.units[ui]
    h = u["host"]
    rng = job.rng
    first = fails[0]
    failed_ranks = {f[1] for f in fails}
    lines = []
    for r in u["ranks"]:
        if r not in failed_ranks:
            lines.append(elastic_log(job, h, t, "W", "api", "Sending process %d closing signal SIGTERM" % job.rank_pid[r]))
    lines.append(elastic_log(job, h, t + 0.3, "E", "api", "failed (exitcode: %d) local_rank: %d (pid: %d) of binary: /usr/bin/python%s"
                             % (first[2], job.local(first[1]), job.rank_pid[first[1]], "" if rng.random() < 0.5 else "3")))
    lines += torchrun_traceback(job, h)
    lines.append("torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ")
    lines.append("=" * 60)
    lines.append("%s FAILED" % job.script)
    lines.append("-" * 60)
    lines.append("Failures:")

    def block(idx, f):
        ft, r, code, tb = f
        d = job.clk(h, ft)
        b = ["[%d]:" % idx,
             "  time      : %s" % d.strftime("%Y-%m-%d_%H:%M:%S"),
             "  host      : %s" % (u["name"] if job.layout.startswith("k8s") else h),
             "  rank      : %d (local_rank: %d)" % (r, job.local(r)),
             "  exitcode  : %d (pid: %d)" % (code, job.rank_pid[r])]
        if code < 0:
            b += ["  error_file: <N/A>",
                  "  traceback : Signal %d (%s) received by PID %d" % (-code, SIGNAMES.get(-code, "SIG"), job.rank_pid[r])]
        elif tb:
            b += ["  error_file: /tmp/torchelastic_%s/%s_%s/attempt_0/%d/error.json" % (hexid(rng, 8), hexid(rng, 4), hexid(rng, 8), job.local(r)),
                  "  traceback : Traceback (most recent call last):"] + ["    " + x for x in tb]
        else:
            b += ["  error_file: <N/A>",
                  "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"]
        return b

    if len(fails) == 1:
        lines.append("  <NO_OTHER_FAILURES>")
    else:
        for i, f in enumerate(fails[1:]):
            lines += block(i + 1, f)
    lines.append("-" * 60)
    lines.append("Root Cause (first observed failure):")
    lines += block(0, first)
    lines.append("=" * 60)
    job.uout(ui, t + 0.35, lines)
    st = job.unit_state[ui]
    st.update(reason="Error", code=1, end=t + 0.5)


def agent_sigterm(job, ui, t, sig=15):
    """torchrun itself receives SIGTERM (preemption / scancel / pod deletion)."""
    u = job.units[ui]
    h = u["host"]
    job.skip_units.add(ui)
    lines = [elastic_log(job, h, t, "W", "agent", "Received Signals.%s death signal, shutting down workers" % SIGNAMES[sig])]
    for r in u["ranks"]:
        lines.append(elastic_log(job, h, t + 0.01, "W", "api", "Sending process %d closing signal %s" % (job.rank_pid[r], SIGNAMES[sig])))
    lines += torchrun_traceback(job, h)[:7] + [
        '  File "%s/torch/distributed/elastic/agent/server/api.py", line 680, in _invoke_run' % job.site,
        "    time.sleep(monitor_interval)",
        '  File "%s/torch/distributed/elastic/multiprocessing/api.py", line 84, in _terminate_process_handler' % job.site,
        "    raise SignalException(f\"Process {os.getpid()} got signal: {sigval}\", sigval=sigval)",
        "torch.distributed.elastic.multiprocessing.api.SignalException: Process %d got signal: %d" % (u["pid_agent"] or 1, sig)]
    job.uout(ui, t + 0.2, lines)


# ----------------------------------------------------------------------------------------
# Failure propagation: each rank's own failure plan -> launcher teardown -> unit exit
# ----------------------------------------------------------------------------------------
def resolve(job, planned):
    """planned: rank -> tuple
         ("done", t, code, tb)           text already emitted, process exits at t with code
         ("wd", t, kwargs)               watchdog timeout at t (exit -6)
         ("remote", t, peer_ip, kind)    NCCL remote error at t (exit 1)
         ("hang",)                       never fails by itself
         ("silent", t, code)             exits without output
       ranks not in planned: ("hang",)."""
    rng = job.rng
    job.rank_end = {}
    order = []
    for r in range(job.world):
        pl = planned.get(r, ("hang",))
        if pl[0] != "hang":
            order.append((pl[1], r))
    order.sort()
    t_kill = None
    if not job.agent and order:
        first_bad = order[0][0]
        if job.kill_on_bad_exit:
            t_kill = first_bad + rng.uniform(0.5, 2.0)
            job.t_kill = t_kill
    for ui, u in enumerate(job.units):
        if ui in job.skip_units:
            for r in u["ranks"]:
                pl = planned.get(r, ("hang",))
                if pl[0] != "hang":
                    job.rank_end[r] = (pl[1], pl[2] if pl[0] == "silent" else -15)
            continue
        rs = [(planned.get(r, ("hang",)), r) for r in u["ranks"]]
        fails = sorted([(pl[1], r) for pl, r in rs if pl[0] != "hang"])
        if u["agent"]:
            if not fails:
                job.unit_state[ui].update(reason="Running", code=None)
                continue
            t1 = fails[0][0]
            t_td = t1 + rng.uniform(0.05, 1.2 if job.tnew else 4.5)
            flist = []
            for t, r in fails:
                if t > t_td:
                    break
                code, tb = emit_plan(job, r, planned[r])
                flist.append((t, r, code, tb))
                job.rank_end[r] = (t, code)
            for r in u["ranks"]:
                if r not in job.rank_end:
                    job.rank_end[r] = (t_td, -15)
            child_failed(job, ui, t_td, flist)
        else:
            r = u["ranks"][0]
            pl = planned.get(r, ("hang",))
            if pl[0] == "hang" or (t_kill is not None and pl[1] > t_kill):
                if t_kill is not None:
                    job.rank_end[r] = (t_kill, -9)
                    job.unit_state[ui].update(reason="Killed", code=-9, end=t_kill)
                else:
                    job.unit_state[ui].update(reason="Running", code=None)
                continue
            code, tb = emit_plan(job, r, pl)
            job.rank_end[r] = (pl[1], code)
            job.unit_state[ui].update(reason="Error", code=code if code >= 0 else 128 - code, end=pl[1])


def emit_plan(job, r, pl):
    kind = pl[0]
    if kind == "done":
        return pl[2], pl[3]
    if kind == "silent":
        return pl[2], None
    if kind == "wd":
        watchdog_lines(job, r, pl[1], **pl[2])
        return -6, None
    if kind == "remote":
        nccl_remote_error(job, r, pl[1], pl[2], pl[3])
        return 1, ["torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, remote process exited or there was a network error, NCCL version %s" % job.nccl]
    raise ValueError(kind)


def plan_collateral(job, planned, t_dead, dead_ranks, seq, mode=None, op="ALLREDUCE", numel=None, t_coll=None):
    """Fill in plans for every rank not yet planned after dead_ranks exit at ~t_dead."""
    rng = job.rng
    mode = mode or rng.choice(["wd", "wd", "remote"])
    if job.transport == "IB" and mode == "remote" and rng.random() < 0.5:
        mode = "wd"
    dead_units = {job.unit_of(r) for r in dead_ranks}
    peer_ip = job.units[job.unit_of(dead_ranks[0])]["ip"] if dead_ranks else job.units[0]["ip"]
    t_coll = t_coll if t_coll is not None else t_dead - rng.uniform(0.1, 3.0)
    numel = numel or rng.choice([1048576, 16777216, 262144000, 50331648])
    for r in range(job.world):
        if r in planned:
            continue
        same = job.unit_of(r) in dead_units and job.units[job.unit_of(r)]["agent"]
        if same:
            # torn down by the launcher before its own watchdog fires
            planned[r] = ("wd", t_coll + job.timeout_s + rng.uniform(0, 3), dict(seq=seq, op=op, numel=numel))
        elif mode == "remote" and job.unit_of(r) not in dead_units:
            planned[r] = ("remote", t_dead + rng.uniform(0.4, 9.0), peer_ip, "socket" if job.transport != "IB" else "ib")
        else:
            planned[r] = ("wd", t_coll + job.timeout_s + rng.uniform(0.0, 4.0), dict(seq=seq, op=op, numel=numel))
    return planned


# ----------------------------------------------------------------------------------------
# Causes
# ----------------------------------------------------------------------------------------
def xid(job, host, t, rank_or_none, num, text, pid=None):
    bus = job.rank_gpu[rank_or_none][1] if rank_or_none is not None else job.rng.choice(job.buses)
    if pid is None:
        pid = job.rank_hostpid[rank_or_none] if rank_or_none is not None else job.rng.randint(100000, 999999)
    name = "python" if pid != "<unknown>" else "<unknown>"
    pidtxt = "'<unknown>'" if pid == "<unknown>" else str(pid)
    job.kmsg(host, t, "NVRM: Xid (PCI:0000:%s:00): %d, pid=%s, name=%s, %s" % (bus, num, pidtxt, name, text))


def pick_rank(job):
    return job.rng.randrange(job.world)


def start_and_fail(job):
    rng = job.rng
    t_start = rng.uniform(20, 90)
    tf = t_start + rng.uniform(600, 5400)
    step, t_last = training(job, t_start, tf)
    return step, tf


def c_gpu_hardware(job):
    rng = job.rng
    step, tf = start_and_fail(job)
    r0 = pick_rank(job)
    h0 = job.host_of(r0)
    gi, bus = job.rank_gpu[r0]
    uid = job.gpu_uuid[(h0, gi)]
    v = rng.choice(["79", "79", "119", "62", "reset"])
    if v == "79":
        job.kmsg(h0, tf - 0.4, "NVRM: GPU at PCI:0000:%s:00: %s" % (bus, uid))
        job.kmsg(h0, tf - 0.4, "NVRM: GPU Board Serial Number: 16549%08d" % rng.randint(0, 99999999))
        xid(job, h0, tf - 0.4, r0, 79, "GPU has fallen off the bus.")
        job.kmsg(h0, tf - 0.39, "NVRM: GPU 0000:%s:00.0: GPU has fallen off the bus." % bus)
        job.kmsg(h0, tf - 0.38, "NVRM: A GPU crash dump has been created. If possible, please run")
        job.kmsg(h0, tf - 0.38, "NVRM: nvidia-bug-report.sh as root to collect this data before")
        job.kmsg(h0, tf - 0.38, "NVRM: the NVIDIA kernel module is unloaded.")
        msg = rng.choice(["unspecified launch failure", "unknown error"])
        job.smi_broken = (h0, gi, "Unable to determine the device handle for GPU%d: 0000:%s:00.0: Unknown Error" % (gi, bus.upper()))
        xnum = 79
    elif v == "119":
        xid(job, h0, tf - 6.5, r0, 119, "Timeout after 6s of waiting for RPC response from GPU%d GSP! Expected function 76 (GSP_RM_CONTROL) (0x20800a4c 0x4)." % gi)
        job.kmsg(h0, tf - 6.5, "NVRM: GPU%d GSP RPC buffer contains function 76 (GSP_RM_CONTROL) and data 0x0000000020800a4c 0x0000000000000004." % gi)
        job.kmsg(h0, tf - 6.5, "NVRM: GPU%d RPC history (CPU -> GSP):" % gi)
        job.kmsg(h0, tf - 6.5, "NVRM:     entry function                   data0              data1              ts_start           ts_end             duration actively_polling")
        job.kmsg(h0, tf - 6.5, "NVRM:      0    76   GSP_RM_CONTROL       0x0000000020800a4c 0x0000000000000004 0x0006%s 0x0000000000000000          y" % hexid(rng, 10))
        xid(job, h0, tf - 0.5, r0, 119, "Timeout after 6s of waiting for RPC response from GPU%d GSP! Expected function 10 (FREE) (0x5c000001 0x0)." % gi)
        if rng.random() < 0.5:
            xid(job, h0, tf - 0.4, r0, 154, "GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)")
        msg = "unspecified launch failure"
        job.smi_broken = (h0, gi, "Unable to determine the device handle for GPU%d: 0000:%s:00.0: Unknown Error" % (gi, bus.upper()))
        xnum = 119
    elif v == "62":
        xid(job, h0, tf - 0.3, r0, 62, "%08x %08x %08x %08x %08x %08x %08x %08x" % tuple(rng.randint(0, 2 ** 32 - 1) for _ in range(8)))
        msg = "unspecified launch failure"
        job.smi_broken = None
        xnum = 62
    else:
        xid(job, h0, tf - 0.3, r0, 79, "GPU has fallen off the bus.")
        job.kmsg(h0, tf - 0.29, "NVRM: GPU 0000:%s:00.0: GPU has fallen off the bus." % bus)
        job.kmsg(h0, tf + 30, "NVRM: GPU 0000:%s:00.0: RmInitAdapter failed! (0x23:0x65:1426)" % bus)
        job.kmsg(h0, tf + 30, "NVRM: GPU 0000:%s:00.0: rm_init_adapter failed, device minor number %d" % (bus, gi))
        msg = "unknown error"
        job.smi_broken = (h0, gi, "GPU 0000:%s:00.0: GPU is lost.  Reboot the system to recover this GPU" % bus.upper())
        xnum = 79
    job.dplog(h0, tf + rng.uniform(0.1, 2), "XidCriticalError: Xid=%d on Device=%s, the device will go unhealthy." % (xnum, uid))
    job.dplog(h0, tf + rng.uniform(2, 3), "'nvidia.com/gpu' device marked unhealthy: %s" % uid)
    if rng.random() < 0.5:
        cuda_error(job, r0, tf, msg, rng.choice(["loss.backward()", "outputs = model(**batch)"]))
        code = 1
    else:
        cpp_cuda_abort(job, r0, tf, msg)
        code = -6
    seq = seqnum(job, step)
    planned = {r0: ("done", tf + 0.05, code, ["RuntimeError: CUDA error: %s" % msg] if code == 1 else None)}
    plan_collateral(job, planned, tf, [r0], seq)
    resolve(job, planned)
    return dict(rank=r0, node=h0, notes="GPU %d (%s, PCI %s) on %s hit Xid %d (%s); rank %d died with CUDA '%s'; others followed (watchdog / remote errors)."
                % (gi, uid, bus, h0, xnum, v, r0, msg, ))


def c_ecc_memory(job):
    rng = job.rng
    step, tf = start_and_fail(job)
    r0 = pick_rank(job)
    h0 = job.host_of(r0)
    gi, bus = job.rank_gpu[r0]
    uid = job.gpu_uuid[(h0, gi)]
    v = rng.choice(["48", "94", "95", "63"])
    if v == "48":
        xid(job, h0, tf - 0.2, r0, 48, "An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition %d, subpartition %d." % (rng.randint(0, 11), rng.randint(0, 1)))
        xid(job, h0, tf - 0.1, r0, 63, "ECC page retirement or row remapping recording event.")
        xn = 48
    elif v == "94":
        xid(job, h0, tf - 0.2, r0, 94, "Contained: CE User Channel (0x%x). RST: No, D-RST: No" % rng.randint(1, 15))
        xn = 94
    elif v == "95":
        xid(job, h0, tf - 0.2, r0, 95, "Uncontained: FBHUB. RST: Yes, D-RST: No")
        xn = 95
    else:
        xid(job, h0, tf - 0.3, r0, 63, "Row Remapper: New row (0x%016x) marked for remapping, reset gpu to activate." % rng.randint(0, 2 ** 34))
        xid(job, h0, tf - 0.2, r0, 64, "Row Remapper: Failed to remap row (0x%016x)." % rng.randint(0, 2 ** 34))
        xid(job, h0, tf - 0.2, r0, 48, "An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition %d, subpartition %d." % (rng.randint(0, 11), rng.randint(0, 1)))
        xn = 64
    job.dplog(h0, tf + rng.uniform(0.1, 2), "XidCriticalError: Xid=%d on Device=%s, the device will go unhealthy." % (xn, uid))
    job.dplog(h0, tf + rng.uniform(2, 3), "'nvidia.com/gpu' device marked unhealthy: %s" % uid)
    job.ecc_q = (h0, gi, bus, uid)
    msg = "uncorrectable ECC error encountered"
    if rng.random() < 0.5:
        cuda_error(job, r0, tf, msg)
        code = 1
    else:
        cpp_cuda_abort(job, r0, tf, msg)
        code = -6
    seq = seqnum(job, step)
    planned = {r0: ("done", tf + 0.05, code, ["RuntimeError: CUDA error: %s" % msg] if code == 1 else None)}
    plan_collateral(job, planned, tf, [r0], seq)
    resolve(job, planned)
    return dict(rank=r0, node=h0, notes="Uncorrectable ECC on GPU %d of %s (Xid %s); rank %d got 'uncorrectable ECC error encountered'." % (gi, h0, v, r0))


def c_nvlink(job):
    rng = job.rng
    step, tf = start_and_fail(job)
    cands = [r for r in range(job.world) if len(job.units[job.unit_of(r)]["ranks"]) > 1 or not job.agent]
    r0 = rng.choice(cands or list(range(job.world)))
    h0 = job.host_of(r0)
    gi, bus = job.rank_gpu[r0]
    link = rng.randint(0, 17)
    for k in range(rng.randint(1, 3)):
        xid(job, h0, tf - 0.5 + k * 0.01, r0, 74, "NVLink: fatal error detected on link %d(0x0, 0x0, 0x%x, 0x0, 0x0, 0x0, 0x0)" % ((link + k) % 18, rng.choice([0x10000, 0x20000, 0x100000])))
    if rng.random() < 0.4:
        job.jrnl(h0, tf + 1, "nv-fabricmanager", "[%s] [ERROR] [tid %d] detected NVSwitch fatal error %d on fabric node %d switch physical id %d port %d"
                 % (job.ctime(h0, tf + 1), rng.randint(1000, 9999), rng.choice([12028, 20034]), rng.randint(0, 3), rng.randint(0, 3), rng.randint(0, 63)))
    msg = "uncorrectable NVLink error detected during the execution"
    if rng.random() < 0.5:
        cuda_error(job, r0, tf, msg)
        code = 1
    else:
        cpp_cuda_abort(job, r0, tf, msg)
        code = -6
    seq = seqnum(job, step)
    planned = {r0: ("done", tf + 0.05, code, ["RuntimeError: CUDA error: %s" % msg] if code == 1 else None)}
    plan_collateral(job, planned, tf, [r0], seq)
    resolve(job, planned)
    return dict(rank=r0, node=h0, notes="NVLink fatal error (Xid 74) on GPU %d of %s; rank %d saw 'uncorrectable NVLink error'." % (gi, h0, r0))


def c_network(job):
    rng = job.rng
    step, tf = start_and_fail(job)
    hosts = job.hosts
    hx = rng.choice(hosts[1:] if len(hosts) > 1 and rng.random() < 0.7 else hosts)
    ipx = job.host_ip[hx]
    nic = rng.choice(["mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3"]) if job.transport == "IB" else job.iface
    if job.transport == "IB":
        pbus = rng.choice(["1a", "3c", "4d", "9c", "bc", "cc"])
        job.kmsg(hx, tf - 2.0, "mlx5_core 0000:%s:00.0: mlx5_port_module_event:%d:(pid 0): Port module event[error]: module %d, Cable error, Bad or shorted cable/module" % (pbus, rng.choice([1162, 1147]), rng.randint(0, 7)))
        job.kmsg(hx, tf - 1.9, "mlx5_core 0000:%s:00.0 ibp%ds0: Link down" % (pbus, int(pbus, 16)))
        desc = "InfiniBand port on %s went down (cable error); NCCL IB retry exceeded" % hx
    else:
        if rng.random() < 0.5:
            job.kmsg(hx, tf - 3.0, "ena 0000:00:%02d.0 %s: Found a Tx that wasn't completed on time, qid %d, index %d." % (rng.randint(5, 9), job.iface, rng.randint(0, 7), rng.randint(0, 1023)))
            job.kmsg(hx, tf - 1.0, "ena 0000:00:%02d.0 %s: Keep alive watchdog timeout." % (rng.randint(5, 9), job.iface))
            job.kmsg(hx, tf - 0.9, "ena 0000:00:%02d.0 %s: Trigger reset is on" % (rng.randint(5, 9), job.iface))
        else:
            job.kmsg(hx, tf - 1.5, "bnxt_en 0000:%s:00.0 %s: NIC Link is Down" % (rng.choice(["41", "c1", "81"]), job.iface))
        desc = "host NIC on %s reset/link down; NCCL socket transport connections dropped" % hx
    seq = seqnum(job, step)
    planned = {}
    others = [h for h in hosts if h != hx]
    for r in range(job.world):
        h = job.host_of(r)
        if h == hx:
            if rng.random() < 0.7:
                peer = job.host_ip[rng.choice(others)]
                planned[r] = ("remote", tf + rng.uniform(0.5, 20), peer, "ib" if job.transport == "IB" else "socket")
            else:
                planned[r] = ("wd", tf + job.timeout_s + rng.uniform(0, 3), dict(seq=seq))
        else:
            if rng.random() < 0.75:
                planned[r] = ("remote", tf + rng.uniform(0.5, 25), ipx, "ib" if job.transport == "IB" else "socket")
            else:
                planned[r] = ("wd", tf + job.timeout_s + rng.uniform(0, 3), dict(seq=seq))
    resolve(job, planned)
    return dict(rank=None, node=hx, notes="%s. Every other node's NCCL errors name %s (%s) as the peer; %s's own ranks blame various peers." % (desc, hx, ipx, hx))


def oom_text(job, rank, shared=False):
    rng = job.rng
    cap = job.gpu_cap if hasattr(job, "gpu_cap") else job.gpu_mem
    tried = rng.choice([0.5, 1.0, 1.96, 2.0, 3.91, 4.0, 7.81, 16.0])
    free_mb = rng.uniform(20, 900)
    gi = job.rank_gpu[rank][0] if job.layout not in ("k8s-shared-gpu",) else 0
    if job.torch < "2.1":
        return ("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate %.2f GiB (GPU %d; %.2f GiB total capacity; %.2f GiB already allocated; %.2f MiB free; %.2f GiB reserved in total by PyTorch) If reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF"
                % (tried, gi, cap, cap * 0.86, free_mb, cap * 0.93))
    own = cap - free_mb / 1024 - (rng.uniform(0.3, 0.55) * cap if shared else 0)
    alloc = own * rng.uniform(0.82, 0.95)
    resv = own * rng.uniform(0.01, 0.04)
    return ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate %.2f GiB. GPU %d has a total capacity of %.2f GiB of which %.2f MiB is free. "
            "Including non-PyTorch memory, this process has %.2f GiB memory in use. Of the allocated memory %.2f GiB is allocated by PyTorch, and %.2f MiB is reserved by PyTorch but unallocated. "
            "If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)"
            % (tried, gi, cap, free_mb, own, alloc, resv * 1024))


def c_cuda_oom(job):
    rng = job.rng
    step, tf = start_and_fail(job)
    shared = job.layout == "k8s-shared-gpu" and job.share_mode in ("time-slicing", "mps")
    r0 = pick_rank(job)
    h0 = job.host_of(r0)
    if shared:
        job.tenant_on = (h0, job.rank_gpu[r0][0])
    exc = oom_text(job, r0, shared)
    frames = user_frames(job, ["outputs = model(**batch)",
                               (job.site + "/torch/nn/modules/module.py", 1553, "_wrapped_call_impl", "return self._call_impl(*args, **kwargs)"),
                               (job.site + "/torch/nn/modules/module.py", 1562, "_call_impl", "return forward_call(*args, **kwargs)"),
                               ("/workspace/model/attention.py", rng.randint(80, 240), "forward", "attn = torch.softmax(scores.float(), dim=-1).to(q.dtype)")])
    job.out(r0, tf, py_traceback(job, frames, exc), "err")
    seq = seqnum(job, step)
    planned = {r0: ("done", tf + 0.05, 1, [exc.split(". Tried")[0]])}
    plan_collateral(job, planned, tf, [r0], seq)
    resolve(job, planned)
    extra = " (GPU time-shared with another tenant pod, which held part of the memory)" if shared else ""
    return dict(rank=r0, node=h0, notes="CUDA OOM on rank %d%s." % (r0, extra))


def c_illegal_memory_access(job):
    rng = job.rng
    step, tf = start_and_fail(job)
    r0 = pick_rank(job)
    h0 = job.host_of(r0)
    v = rng.choice(["iam", "iam", "assert"])
    hp = job.rank_hostpid[r0]
    if v == "assert":
        for k in range(rng.randint(2, 6)):
            job.out(r0, tf - 0.01, "../aten/src/ATen/native/cuda/IndexKernel.cu:92: operator(): block: [%d,0,0], thread: [%d,0,0] Assertion `-sizes[i] <= index && index < sizes[i] && \"index out of bounds\"` failed." % (rng.randint(0, 4000), rng.randint(0, 127)), "out")
        msg = "device-side assert triggered"
        xid(job, h0, tf - 0.05, r0, 43, "Ch %08x" % rng.randint(8, 64), pid=hp)
    else:
        msg = "an illegal memory access was encountered"
        if rng.random() < 0.5:
            xid(job, h0, tf - 0.05, r0, 31, "Ch %08x, intr 00000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_%d faulted @ 0x7f%s_%s000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ"
                % (rng.randint(8, 64), rng.randint(0, 15), hexid(rng, 2), hexid(rng, 5)), pid=hp)
        else:
            g, tpc = rng.randint(0, 7), rng.randint(0, 8)
            xid(job, h0, tf - 0.05, r0, 13, "Graphics SM Warp Exception on (GPC %d, TPC %d, SM %d): Out Of Range Address" % (g, tpc, rng.randint(0, 1)), pid=hp)
            xid(job, h0, tf - 0.05, r0, 13, "Graphics SM Global Exception on (GPC %d, TPC %d, SM %d): Multiple Warp Errors" % (g, tpc, rng.randint(0, 1)), pid=hp)
            xid(job, h0, tf - 0.05, r0, 13, "Graphics Exception: ESR 0x%x=0x%x 0x%x=0x0 0x%x=0x%x 0x%x=0x174" % (0x50c000 + rng.randint(0, 4000), rng.randint(0x10, 0x4000a), 0x50c004, 0x50c008, rng.randint(0, 2 ** 28), 0x50c00c), pid=hp)
    if rng.random() < 0.6:
        cuda_error(job, r0, tf, msg, rng.choice(["loss.backward()", "outputs = model(**batch)"]))
        code, tb = 1, ["RuntimeError: CUDA error: %s" % msg]
    else:
        cpp_cuda_abort(job, r0, tf, msg)
        code, tb = -6, None
    seq = seqnum(job, step)
    planned = {r0: ("done", tf + 0.05, code, tb)}
    plan_collateral(job, planned, tf, [r0], seq)
    resolve(job, planned)
    return dict(rank=r0, node=h0, notes="Rank %d hit CUDA '%s' (application bug, no hardware Xid besides the app-attributed one)." % (r0, msg))


def c_python_exception(job):
    rng = job.rng
    opts = ["keyerror", "value", "nospace", "readonly"]
    same_host_units = len(job.units) > len(job.hosts) or len(job.units[0]["ranks"]) > 1
    if same_host_units:
        opts += ["dupgpu", "dupgpu"]
    v = rng.choice(opts)
    if v == "dupgpu":
        # misconfigured device assignment: two ranks end up on the same GPU -> NCCL init fails
        t_start = rng.uniform(20, 90)
        for ui, u in enumerate(job.units):
            if u["agent"]:
                launcher_start(job, ui, t_start)
        tf = t_start + rng.uniform(25, 70)
        # choose a host with >= 2 ranks
        hosts = [h for h in job.hosts if sum(len(u["ranks"]) for u in job.units if u["host"] == h) >= 2]
        hd = rng.choice(hosts)
        hr = [r for r in range(job.world) if job.host_of(r) == hd]
        a, b = hr[0], hr[1] if len(hr) < 3 else rng.choice(hr[1:])
        bus = job.rank_gpu[a][1]
        job.rank_gpu[b] = job.rank_gpu[a]
        job.dup = (hd, a, b, bus)
        planned = {}
        for r in range(job.world):
            p = nccl_prefix(job, r)
            if job.host_of(r) == hd and r in (a, b):
                other = b if r == a else a
                job.out(r, tf, ["", "%s init.cc:%d NCCL WARN Duplicate GPU detected : rank %d and rank %d both on CUDA device %s000" % (p, rng.choice([748, 871, 1017]), r, other, bus),
                                "%s NCCL INFO init.cc:%d -> 5" % (p, rng.choice([1309, 1471]))], "out")
                frames = user_frames(job, ["model = DDP(model, device_ids=[local_rank])",
                                           (job.site + "/torch/nn/parallel/distributed.py", 822, "__init__", "_verify_param_shape_across_processes(self.process_group, parameters)"),
                                           (job.site + "/torch/distributed/utils.py", 288, "_verify_param_shape_across_processes", "return dist._verify_params_across_processes(process_group, tensors, logger)")])
                exc = ("torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:%d, invalid usage (run with NCCL_DEBUG=WARN for details), NCCL version %s\n"
                       "ncclInvalidUsage: This usually reflects invalid usage of NCCL library.\nLast error:\nDuplicate GPU detected : rank %d and rank %d both on CUDA device %s000" % (rng.choice([275, 317]), job.nccl, r, other, bus))
                job.out(r, tf + 0.02, py_traceback(job, frames, exc), "err")
                planned[r] = ("done", tf + 0.05 + rng.uniform(0, 0.4), 1, exc.split("\n")[:1])
        plan_collateral(job, planned, tf, [a, b], 1, mode="remote" if rng.random() < 0.5 else "wd", op="ALLGATHER", t_coll=tf)
        resolve(job, planned)
        job.dup_cause = True
        return dict(rank=None, node=hd, notes="Device-assignment mistake: ranks %d and %d on %s were both mapped to the GPU at bus %s (CUDA_VISIBLE_DEVICES/NVIDIA_VISIBLE_DEVICES or shared replica); NCCL init failed with 'Duplicate GPU detected'." % (a, b, hd, bus))
    step, tf = start_and_fail(job)
    r0 = 0 if v in ("nospace", "readonly") else pick_rank(job)
    h0 = job.host_of(r0)
    if v == "keyerror":
        key = rng.choice(["'input_ids'", "'pixel_values'", "'labels'", "'audio'"])
        frames = user_frames(job, ["for batch in loader:",
                                   (job.site + "/torch/utils/data/dataloader.py", 701, "__next__", "data = self._next_data()"),
                                   (job.site + "/torch/utils/data/dataloader.py", 1465, "_next_data", "return self._process_data(data)"),
                                   (job.site + "/torch/utils/data/dataloader.py", 1491, "_process_data", "data.reraise()"),
                                   (job.site + "/torch/_utils.py", 715, "reraise", "raise exception")])
        exc = ("KeyError: Caught KeyError in DataLoader worker process %d.\nOriginal Traceback (most recent call last):\n"
               '  File "%s/torch/utils/data/_utils/worker.py", line 351, in _worker_loop\n    data = fetcher.fetch(index)  # type: ignore[possibly-undefined]\n'
               '  File "/workspace/data/collate.py", line %d, in __call__\n    ids = [ex[%s] for ex in examples]\nKeyError: %s'
               % (rng.randint(0, 7), job.site, rng.randint(20, 90), key, key))
        short = "KeyError: Caught KeyError in DataLoader worker process"
        what = "KeyError in data collation"
    elif v == "value":
        frames = user_frames(job, ["loss = criterion(outputs.logits, batch['labels'])",
                                   (job.site + "/torch/nn/modules/loss.py", 1188, "forward", "return F.cross_entropy(input, target, weight=self.weight,"),
                                   (job.site + "/torch/nn/functional.py", 3104, "cross_entropy", "return torch._C._nn.cross_entropy_loss(input, target, weight, _Reduction.get_enum(reduction), ignore_index, label_smoothing)")])
        exc = "ValueError: Expected input batch_size (%d) to match target batch_size (%d)." % (rng.choice([8, 16, 32]) * 512, rng.choice([7, 15, 31]) * 512)
        short = exc
        what = "ValueError in loss computation"
    elif v == "nospace":
        frames = user_frames(job, ["save_checkpoint(model, optimizer, step, cfg.output_dir)",
                                   ("/workspace/utils/ckpt.py", rng.randint(20, 80), "save_checkpoint", "torch.save(state, path)"),
                                   (job.site + "/torch/serialization.py", 628, "save", "with _open_zipfile_writer(f) as opened_zipfile:"),
                                   (job.site + "/torch/serialization.py", 476, "__exit__", "self.file_like.write_end_of_file()")])
        exc = "RuntimeError: [enforce fail at inline_container.cc:595] . unexpected pos %d vs %d" % (rng.randint(10 ** 9, 9 * 10 ** 9), rng.randint(10 ** 9, 9 * 10 ** 9))
        short = exc
        what = "checkpoint write failed: container writable layer / volume full (No space left on device)"
        job.out(r0, tf - 0.5, "[%s][%s][INFO] - Saving checkpoint to /workspace/outputs/checkpoint-%d" % (job.pylog(h0, tf - 0.5), job.script.replace(".py", ""), step), "out")
        job.nospace = h0
    else:
        frames = user_frames(job, ["save_checkpoint(model, optimizer, step, cfg.output_dir)",
                                   ("/workspace/utils/ckpt.py", rng.randint(20, 80), "save_checkpoint", "os.makedirs(path, exist_ok=True)"),
                                   ("/usr/lib/python%s/os.py" % job.py, 225, "makedirs", "mkdir(name, mode)")])
        exc = "OSError: [Errno 30] Read-only file system: '/workspace/outputs/checkpoint-%d'" % step
        short = exc
        what = "checkpoint directory on a read-only filesystem (readOnlyRootFilesystem / ro mount)"
    job.out(r0, tf, py_traceback(job, frames, exc), "err")
    seq = seqnum(job, step)
    planned = {r0: ("done", tf + 0.05, 1, py_traceback(job, frames, exc))}
    plan_collateral(job, planned, tf, [r0], seq, op="ALLREDUCE" if v != "nospace" else "BARRIER" if rng.random() < 0.3 else "ALLREDUCE")
    resolve(job, planned)
    return dict(rank=r0, node=h0, notes="Uncaught Python exception on rank %d: %s." % (r0, what))


def oom_kill_dmesg(job, host, t, hostpid, comm, rss_gb, ui):
    rng = job.rng
    cid = job.units[ui].get("cid") or hexid(rng, 64)
    job.units[ui]["cid"] = cid
    podslice = job.units[ui].get("podslice", "kubepods-pod%s.slice" % uuid(rng).replace("-", "_"))
    job.units[ui]["podslice"] = podslice
    if job.layout.startswith("k8s"):
        memcg = "/kubepods.slice/%s/cri-containerd-%s.scope" % (podslice, cid)
        cpuset = "cri-containerd-%s.scope" % cid
    elif job.layout == "docker":
        memcg = "/system.slice/docker-%s.scope" % cid
        cpuset = "docker-%s.scope" % cid
    else:
        memcg = "/slurm/uid_%d/job_%d/step_0" % (job.uid, job.jobid)
        cpuset = "step_0"
    oom_adj = -997 if job.layout.startswith("k8s") else 0
    job.kmsg(host, t, "%s invoked oom-killer: gfp_mask=0x%x(GFP_KERNEL_ACCOUNT|__GFP_NOWARN), order=0, oom_score_adj=%d" % (rng.choice(["python", "pt_data_worker", "python3"]), 0x400dc0, oom_adj))
    job.kmsg(host, t, "CPU: %d PID: %d Comm: %s Tainted: P           OE     5.15.0-%d-generic #%d-Ubuntu" % (rng.randint(0, 191), hostpid + rng.randint(1, 50), comm, rng.randint(90, 130), rng.randint(90, 140)))
    job.kmsg(host, t, "memory: usage %dkB, limit %dkB, failcnt %d" % (int(rss_gb * 1.02 * 2 ** 20), int(rss_gb * 1.02 * 2 ** 20), rng.randint(1, 9000)))
    job.kmsg(host, t, "oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=%s,mems_allowed=0-1,oom_memcg=%s,task_memcg=%s,task=%s,pid=%d,uid=0"
             % (cpuset, memcg.rsplit("/", 1)[0] if job.layout.startswith("k8s") else memcg, memcg, comm, hostpid))
    job.kmsg(host, t, "Memory cgroup out of memory: Killed process %d (%s) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:0 pgtables:%dkB oom_score_adj:%d"
             % (hostpid, comm, int(rss_gb * 2 ** 20 * 2.3), int(rss_gb * 2 ** 20 * 0.7), rng.randint(100000, 900000), rng.randint(0, 4000000), rng.randint(20000, 90000), oom_adj))


def c_host_oom_kill(job):
    rng = job.rng
    step, tf = start_and_fail(job)
    r0 = pick_rank(job)
    h0 = job.host_of(r0)
    ui0 = job.unit_of(r0)
    limit = rng.choice([64, 128, 200, 256, 480])
    v = rng.choice(["worker", "main", "whole"]) if job.agent else rng.choice(["worker", "main"])
    seq = seqnum(job, step)
    planned = {}
    if v == "worker":
        wpid = job.rank_pid[r0] + rng.randint(50, 400)
        whpid = rng.randint(100000, 3900000)
        oom_kill_dmesg(job, h0, tf - 0.5, whpid, rng.choice(["pt_data_worker", "python"]), limit / max(1, len(job.units[ui0]["ranks"])), ui0)
        frames = user_frames(job, ["for batch in loader:",
                                   (job.site + "/torch/utils/data/dataloader.py", 701, "__next__", "data = self._next_data()"),
                                   (job.site + "/torch/utils/data/dataloader.py", 1448, "_next_data", "idx, data = self._get_data()"),
                                   (job.site + "/torch/utils/data/dataloader.py", 1402, "_get_data", "success, data = self._try_get_data()"),
                                   (job.site + "/torch/utils/data/dataloader.py", 1256, "_try_get_data", "raise RuntimeError(f'DataLoader worker (pid(s) {pids_str}) exited unexpectedly') from e")])
        exc = "RuntimeError: DataLoader worker (pid(s) %d) exited unexpectedly" % wpid
        job.out(r0, tf, ["ERROR: DataLoader worker (pid %d) is killed by signal: Killed. " % wpid] if rng.random() < 0.5 else [], "err")
        job.out(r0, tf + 0.01, py_traceback(job, frames, exc), "err")
        planned[r0] = ("done", tf + 0.05, 1, [exc])
        job.unit_oom = ui0
        rk, nd = r0, h0
        note = "cgroup OOM killer killed a DataLoader worker of rank %d on %s (container memory limit %dGi)" % (r0, h0, limit)
    elif v == "main":
        oom_kill_dmesg(job, h0, tf, job.rank_hostpid[r0], "python", limit * 0.8, ui0)
        planned[r0] = ("silent", tf + 0.01, -9)
        job.unit_oom = ui0
        rk, nd = r0, h0
        note = "cgroup OOM killer SIGKILLed rank %d's process on %s (exitcode -9 in launcher summary)" % (r0, h0)
        if not job.agent:
            job.slurm_oom = (h0, r0)
    else:
        # whole container killed (memory.oom.group): launcher dies too, logs stop mid-stream
        oom_kill_dmesg(job, h0, tf, job.rank_hostpid[r0], "python", limit * 0.5, ui0)
        for r in job.units[ui0]["ranks"]:
            if r != r0:
                job.kmsg(h0, tf + 0.001, "Memory cgroup out of memory: Killed process %d (python) total-vm:%dkB, anon-rss:%dkB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:%dkB oom_score_adj:-997"
                         % (job.rank_hostpid[r], rng.randint(10 ** 8, 3 * 10 ** 8), rng.randint(10 ** 7, 4 * 10 ** 7), rng.randint(20000, 90000)))
        job.whole_killed = (ui0, tf)
        for r in job.units[ui0]["ranks"]:
            planned[r] = ("hang",)
        rk, nd = None, h0
        note = "container on %s exceeded its memory limit (%dGi); cgroup OOM killed the whole container (exit 137, OOMKilled)" % (h0, limit)
    job.mem_limit = limit
    if job.layout.startswith("slurm"):
        job.slurm_oom = (h0, r0)
        note = note.replace("container memory limit", "job cgroup memory limit")
    dead = [r0]
    plan_collateral(job, planned, tf, dead, seq)
    if v == "whole":
        for r in job.units[ui0]["ranks"]:
            planned[r] = ("hang",)
    resolve(job, planned)
    if v == "whole":
        job.rank_end.update({r: (tf, -9) for r in job.units[ui0]["ranks"]})
        job.unit_state[ui0].update(reason="OOMKilled", code=137, end=tf)
    else:
        st = job.unit_state[ui0]
        if job.layout.startswith("k8s") or job.layout == "docker":
            st.update(reason="OOMKilled" if rng.random() < 0.6 else st["reason"])
    return dict(rank=rk, node=nd, notes=note + ".")


def c_crash_signal(job):
    rng = job.rng
    v = rng.choice(["segv", "segv", "shm", "abort"])
    if job.layout in ("docker", "k8s-pytorchjob", "k8s-node-debug", "k8s-shared-gpu") and rng.random() < 0.5:
        v = "shm"
    if v == "shm":
        job.shm_small = True
    step, tf = start_and_fail(job)
    r0 = pick_rank(job)
    h0 = job.host_of(r0)
    seq = seqnum(job, step)
    planned = {}
    if v == "segv":
        if rng.random() < 0.5:
            job.out(r0, tf, ["Fatal Python error: Segmentation fault", "",
                             "Thread 0x00007f%s (most recent call first):" % hexid(rng, 8),
                             '  File "%s/torch/autograd/graph.py", line 768 in _engine_run_backward' % job.site,
                             '  File "%s/torch/autograd/__init__.py", line 289 in backward' % job.site,
                             '  File "%s/torch/_tensor.py", line 521 in backward' % job.site,
                             '  File "/workspace/%s", line %d in train' % (job.script, rng.randint(120, 199)),
                             '  File "/workspace/%s", line %d in main' % (job.script, rng.randint(200, 290)),
                             '  File "/workspace/%s", line %d in <module>' % (job.script, rng.randint(300, 700)), "",
                             "Extension modules: numpy.core._multiarray_umath, numpy.core._multiarray_tests, torch._C, torch._C._fft, torch._C._linalg, torch._C._nested, torch._C._nn, torch._C._sparse, torch._C._special, yaml._yaml (total: %d)" % rng.randint(20, 60)], "err")
        lib = rng.choice(["libtorch_cpu.so", "libc.so.6", "_C.cpython-310-x86_64-linux-gnu.so", "libnccl.so.2", "libgomp.so.1"])
        job.kmsg(h0, tf, "python[%d]: segfault at %x ip 00007f%s sp 00007ff%s error %d in %s[7f%s+%x]"
                 % (job.rank_hostpid[r0], rng.choice([0, 8, 0x10, 0x7f0000001000]), hexid(rng, 10), hexid(rng, 9), rng.choice([4, 6, 14]), lib, hexid(rng, 10), rng.randint(0x100000, 0x3000000)))
        job.kmsg(h0, tf, "Code: %s" % " ".join(hexid(rng, 2) for _ in range(24)))
        planned[r0] = ("silent", tf + 0.01, -11)
        note = "rank %d segfaulted (SIGSEGV in %s); no Xid, no OOM" % (r0, lib)
        if not job.agent:
            job.out(r0, tf + 0.01, "/bin/bash: line 1: %d Segmentation fault      (core dumped) python /workspace/%s" % (job.rank_pid[r0], job.script), "err")
    elif v == "abort":
        msg = rng.choice(["free(): invalid pointer", "double free or corruption (!prev)", "corrupted size vs. prev_size", "malloc(): unaligned tcache chunk detected"])
        job.out(r0, tf, msg, "err")
        planned[r0] = ("silent", tf + 0.01, -6)
        note = "rank %d aborted (glibc heap corruption '%s', SIGABRT)" % (r0, msg)
        if not job.agent:
            job.out(r0, tf + 0.01, "/bin/bash: line 1: %d Aborted                 (core dumped) python /workspace/%s" % (job.rank_pid[r0], job.script), "err")
    else:
        wpid = job.rank_pid[r0] + rng.randint(50, 400)
        job.out(r0, tf - 0.1, ["ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).",
                               " "] if rng.random() < 0.8 else [], "err")
        frames = user_frames(job, ["for batch in loader:",
                                   (job.site + "/torch/utils/data/dataloader.py", 701, "__next__", "data = self._next_data()"),
                                   (job.site + "/torch/utils/data/dataloader.py", 1448, "_next_data", "idx, data = self._get_data()"),
                                   (job.site + "/torch/utils/data/dataloader.py", 1412, "_get_data", "success, data = self._try_get_data()"),
                                   (job.site + "/torch/utils/data/dataloader.py", 1256, "_try_get_data", "raise RuntimeError(f'DataLoader worker (pid(s) {pids_str}) exited unexpectedly') from e")])
        exc = ("RuntimeError: DataLoader worker (pid %d) is killed by signal: Bus error. It is possible that dataloader's workers are out of shared memory. Please try to raise your shared memory limit.\n\n"
               "The above exception was the direct cause of the following exception:\n\n" if rng.random() < 0.5 else "") + \
              "RuntimeError: DataLoader worker (pid(s) %d) exited unexpectedly" % wpid
        exc = exc.replace("(pid %d)", "(pid %d)" % wpid) if "%d" in exc else exc
        job.out(r0, tf, py_traceback(job, frames, exc), "err")
        planned[r0] = ("done", tf + 0.05, 1, [exc.split("\n")[-1]])
        note = "DataLoader worker of rank %d died with SIGBUS: /dev/shm in the container too small (default 64MB shm / no --ipc=host / no memory-backed emptyDir)" % r0
    plan_collateral(job, planned, tf, [r0], seq)
    resolve(job, planned)
    return dict(rank=r0, node=h0, notes=note + ".")


def c_preemption(job):
    rng = job.rng
    step, tf = start_and_fail(job)
    seq = seqnum(job, step)
    L = job.layout
    planned = {}
    if L.startswith("slurm"):
        v = rng.choice(["timelimit", "preempt"])
        job.slurm_cancel = (tf, "TIME LIMIT" if v == "timelimit" else "PREEMPTION")
        for ui, u in enumerate(job.units):
            if u["agent"]:
                agent_sigterm(job, ui, tf + rng.uniform(0.01, 0.5))
                job.unit_state[ui].update(reason="Cancelled", code=None, end=tf + 1)
        for r in range(job.world):
            job.rank_end = getattr(job, "rank_end", {})
            job.rank_end[r] = (tf + 0.5, -15)
            for ui, u in enumerate(job.units):
                if not u["agent"]:
                    job.unit_state[ui].update(reason="Cancelled", code=None, end=tf + 1)
        return dict(rank=None, node=None, notes="Slurm cancelled the job %s; every task got SIGTERM at the same time." % ("at its time limit" if v == "timelimit" else "because a higher-priority job preempted it"))
    if L == "docker":
        hx = rng.choice(job.hosts)
        uix = [i for i, u in enumerate(job.units) if u["host"] == hx][0]
        agent_sigterm(job, uix, tf)
        job.docker_stop = (hx, tf, rng.choice(["maintenance", "reboot", "stop"]))
        job.jrnl(hx, tf - 0.2, "systemd", "Stopping Docker Application Container Engine..." if job.docker_stop[2] != "stop" else "Started Session %d of User ops." % rng.randint(100, 9999))
        job.jrnl(hx, tf + 10.1, "dockerd", 'time="%s" level=info msg="Container failed to exit within 10s of signal 15 - using the force" container=%s' % (job.iso(hx, tf + 10.1, False), job.units[uix].setdefault("cid", hexid(rng, 64))))
        for r in job.units[uix]["ranks"]:
            planned[r] = ("silent", tf + 0.5, -15)
        plan_collateral(job, planned, tf, job.units[uix]["ranks"], seq)
        resolve(job, planned)
        job.unit_state[uix].update(reason="Exited", code=137, end=tf + 10.1)
        return dict(rank=None, node=hx if len(job.hosts) > 1 else None,
                    notes="The container on %s was stopped from the host (%s) with SIGTERM then SIGKILL after 10s." % (hx, job.docker_stop[2]))
    # kubernetes
    v = rng.choice(["spot", "kueue", "evict", "drain"])
    if v == "kueue":
        for ui, u in enumerate(job.units):
            agent_sigterm(job, ui, tf + rng.uniform(0.01, 2.0))
            job.unit_state[ui].update(reason="Error", code=143, end=tf + 2)
            job.event(tf, "Normal", "Killing", "pod/%s" % u["name"], "Stopping container pytorch")
        job.event(tf - 0.5, "Normal", "Preempted", "workload/pytorchjob-%s-%s" % (job.jobname, hexid(rng, 5)),
                  "Preempted to accommodate a workload (UID: %s) due to prioritization in the ClusterQueue" % uuid(rng), "kueue-admission")
        job.k8s_preempt = ("kueue", None)
        job.rank_end = {r: (tf + 1, -15) for r in range(job.world)}
        return dict(rank=None, node=None, notes="Kueue preempted the whole workload for a higher-priority one; all pods got SIGTERM.")
    hx = rng.choice(job.hosts)
    uis = [i for i, u in enumerate(job.units) if u["host"] == hx]
    dead = []
    for ui in uis:
        agent_sigterm(job, ui, tf + rng.uniform(0.0, 0.5))
        dead += job.units[ui]["ranks"]
        for r in job.units[ui]["ranks"]:
            planned[r] = ("silent", tf + 0.6, -15)
    job.k8s_preempt = (v, hx)
    if v == "spot":
        job.jrnl(hx, tf - 25, "kubelet", 'I%s %7d nodeshutdown_manager_linux.go:%d] "Shutdown manager detected new shutdown event, isNodeShuttingDownNow" event=true' % (job.clk(hx, tf - 25).strftime("%m%d %H:%M:%S.%f"), 2231, 265))
        job.jrnl(hx, tf - 25, "kubelet", 'I%s %7d nodeshutdown_manager_linux.go:%d] "Shutdown manager processing shutdown event"' % (job.clk(hx, tf - 25).strftime("%m%d %H:%M:%S.%f"), 2231, 316))
        for ui in uis:
            job.unit_state[ui].update(reason="Terminated", code=143, end=tf + 1, msg="Pod was terminated in response to imminent node shutdown.")
            job.event(tf - 24, "Warning", "NodeShutdown", "pod/%s" % job.units[ui]["name"], "Pod was terminated in response to imminent node shutdown.")
        job.event(tf - 30, "Normal", "PreemptScheduled", "node/%s" % hx, "Spot instance interruption notice: node will be reclaimed", "aws-node-termination-handler")
        note = "spot/preemptible node %s was reclaimed; its pod got SIGTERM (graceful node shutdown)" % hx
    elif v == "evict":
        for ui in uis:
            job.unit_state[ui].update(reason="Evicted", code=143, end=tf + 1, msg="The node was low on resource: ephemeral-storage. Threshold quantity: %dGi, available: %dKi. " % (rng.randint(20, 60), rng.randint(100000, 900000)))
            job.event(tf - 1, "Warning", "Evicted", "pod/%s" % job.units[ui]["name"], job.unit_state[ui]["msg"])
        job.event(tf - 3, "Warning", "EvictionThresholdMet", "node/%s" % hx, "Attempting to reclaim ephemeral-storage")
        note = "kubelet on %s evicted the pod (node low on ephemeral-storage)" % hx
    else:
        for ui in uis:
            job.unit_state[ui].update(reason="Error", code=143, end=tf + 1)
            job.event(tf - 0.5, "Normal", "Killing", "pod/%s" % job.units[ui]["name"], "Stopping container pytorch")
        job.event(tf - 2, "Normal", "NodeNotSchedulable", "node/%s" % hx, "Node %s status is now: NodeNotSchedulable" % hx, "kubelet")
        job.event(tf - 1, "Normal", "Drain", "node/%s" % hx, "Draining node for maintenance (kernel upgrade)", "cluster-autoscaler" if rng.random() < 0.5 else "node-maintenance-operator")
        note = "node %s was cordoned and drained for maintenance; its pod got SIGTERM" % hx
    plan_collateral(job, planned, tf + 0.6, dead, seq)
    resolve(job, planned)
    for ui in uis:
        st = job.unit_state[ui]
        if st["reason"] == "Error" and st.get("code") == 1:
            st.update(code=143)
    return dict(rank=None, node=hx, notes=note + ".")


def pyspy_dump(job, rank, frames_kind):
    rng = job.rng
    pid = job.rank_pid[rank]
    lines = ["Process %d: /usr/bin/python -u /workspace/%s --config configs/%s.yaml" % (pid, job.script, rng.choice(["base", "large", "7b", "13b"])),
             "Python v%s.%d (/usr/bin/python%s)" % (job.py, rng.randint(4, 14), job.py), "",
             "Thread %d (idle): \"MainThread\"" % pid]
    if frames_kind == "data":
        lines += ["    wait (threading.py:%d)" % rng.choice([320, 324]),
                  "    get (queue.py:180)" if rng.random() < 0.5 else "    poll (multiprocessing/connection.py:257)",
                  "    _try_get_data (torch/utils/data/dataloader.py:1133)",
                  "    _get_data (torch/utils/data/dataloader.py:1294)",
                  "    _next_data (torch/utils/data/dataloader.py:1448)",
                  "    __next__ (torch/utils/data/dataloader.py:701)",
                  "    train (%s:%d)" % (job.script, rng.randint(120, 199)),
                  "    main (%s:%d)" % (job.script, rng.randint(200, 290)),
                  "    <module> (%s:%d)" % (job.script, rng.randint(300, 700))]
        lines += ["", "Process %d: pt_data_worker" % (pid + 97), "Thread %d (idle): \"MainThread\"" % (pid + 97),
                  "    read (pyarrow/io.py:%d)" % rng.randint(100, 400) if rng.random() < 0.5 else "    _read (fsspec/implementations/local.py:%d)" % rng.randint(300, 420),
                  "    __getitem__ (data/dataset.py:%d)" % rng.randint(30, 120),
                  "    fetch (torch/utils/data/_utils/fetch.py:51)",
                  "    _worker_loop (torch/utils/data/_utils/worker.py:351)"]
    else:
        lines += ["    synchronize (torch/cuda/__init__.py:892)" if rng.random() < 0.5 else "    _compute_metric (eval/metrics.py:%d)" % rng.randint(40, 200),
                  "    evaluate (%s:%d)" % (job.script, rng.randint(100, 200)),
                  "    train (%s:%d)" % (job.script, rng.randint(120, 199)),
                  "    main (%s:%d)" % (job.script, rng.randint(200, 290)),
                  "    <module> (%s:%d)" % (job.script, rng.randint(300, 700))]
    return "\n".join(lines) + "\n"


def c_hang(job):
    rng = job.rng
    step, tf = start_and_fail(job)
    r0 = pick_rank(job)
    h0 = job.host_of(r0)
    seq = seqnum(job, step)
    planned = {r0: ("hang",)}
    for r in range(job.world):
        if r != r0:
            planned[r] = ("wd", tf + job.timeout_s + rng.uniform(0, 4), dict(seq=seq, op="ALLREDUCE", last_enq=seq, last_comp=seq - 1))
    # the hung rank never enqueued `seq`: if its watchdog fired it would show last enqueued seq-1
    job.hang_rank = r0
    if rng.random() < 0.45:
        job.extra_files["py-spy-dump-rank%d.txt" % r0] = pyspy_dump(job, r0, "other")
    if job.tnew and rng.random() < 0.6:
        for r in range(job.world):
            if r != r0 and rng.random() < 0.4:
                job.out(r, tf + job.timeout_s + 5, c10(job, r, tf + job.timeout_s + 5, "E", "ProcessGroupNCCL.cpp:1356",
                        "[PG ID 0 PG GUID 0(default_pg) Rank %d] Received a dump signal due to a collective timeout from this local rank and we will try our best to dump the debug info. Last enqueued NCCL work: %d, last completed NCCL work: %d.This is most likely caused by incorrect usages of collectives, e.g., wrong sizes used across ranks, the order of collectives is not same for all ranks or the scheduled collective, for some reason, didn't run. Additionally, this can be caused by GIL deadlock or other reasons such as network errors or bugs in the communications library (e.g. NCCL), etc. " % (r, seq, seq - 1)), "c10")
    resolve(job, planned)
    return dict(rank=r0, node=h0, notes="Rank %d stopped making progress (never entered collective #%d); all other ranks timed out after %ds in the watchdog. The hung rank printed nothing." % (r0, seq, job.timeout_s))


def c_data_loader_stall(job):
    rng = job.rng
    t_start = rng.uniform(20, 90)
    r0 = pick_rank(job)
    h0 = job.host_of(r0)
    tf = t_start + rng.uniform(600, 5400)
    job.per_rank_stats = job.per_rank_stats or rng.random() < 0.5
    step, t_last = training(job, t_start, tf, stall_rank=r0, stall_from=tf - 400)
    seq = seqnum(job, step)
    src = rng.choice(["nfs", "nfs", "fuse", "pvc"])
    if src == "nfs":
        srv = rng.choice(["fs-0a1b2c3d.efs.us-east-1.amazonaws.com", "10.0.%d.%d" % (rng.randint(0, 9), rng.randint(2, 250)), "filer01", "nas-prod-02"])
        job.kmsg(h0, tf - 3, "nfs: server %s not responding, still trying" % srv)
        what = "NFS server %s stopped responding on %s" % (srv, h0)
    elif src == "fuse":
        job.kmsg(h0, tf - 3, "fuse: request timeout (unique=%d, opcode=READ)" % rng.randint(10 ** 5, 10 ** 7)) if rng.random() < 0.3 else None
        what = "gcsfuse/s3 FUSE mount on %s stalled" % h0
    else:
        job.kmsg(h0, tf - 3, "blk_update_request: I/O error, dev nvme%dn1, sector %d op 0x0:(READ) flags 0x80700 phys_seg 1 prio class 0" % (rng.randint(1, 4), rng.randint(10 ** 6, 10 ** 9)))
        what = "PVC-backed data disk on %s returned I/O errors / stalled" % h0
    for k in range(rng.randint(1, 3)):
        tt = tf + 120 * (k + 1) + rng.uniform(0, 5)
        job.kmsg(h0, tt, "INFO: task pt_data_worker:%d blocked for more than %d seconds." % (rng.randint(100000, 3900000), 120 + 121 * k))
        job.kmsg(h0, tt, "      Tainted: P           OE     5.15.0-%d-generic #%d-Ubuntu" % (rng.randint(90, 130), rng.randint(90, 140)))
        job.kmsg(h0, tt, "\"echo 0 > /proc/sys/kernel/hung_task_timeout_secs\" disables this message.")
    planned = {}
    dl_timeout = rng.choice([None, None, 300, 600, 1200])
    if dl_timeout and dl_timeout < job.timeout_s:
        frames = user_frames(job, ["for batch in loader:",
                                   (job.site + "/torch/utils/data/dataloader.py", 701, "__next__", "data = self._next_data()"),
                                   (job.site + "/torch/utils/data/dataloader.py", 1448, "_next_data", "idx, data = self._get_data()"),
                                   (job.site + "/torch/utils/data/dataloader.py", 1402, "_get_data", "success, data = self._try_get_data()"),
                                   (job.site + "/torch/utils/data/dataloader.py", 1256, "_try_get_data", "raise RuntimeError(f'DataLoader timed out after {self._timeout} seconds') from e")])
        exc = "RuntimeError: DataLoader timed out after %d seconds" % dl_timeout
        job.out(r0, tf + dl_timeout, py_traceback(job, frames, exc), "err")
        planned[r0] = ("done", tf + dl_timeout + 0.05, 1, [exc])
        ev = "DataLoader timeout on rank %d" % r0
    else:
        planned[r0] = ("hang",)
        job.extra_files["py-spy-dump-rank%d.txt" % r0] = pyspy_dump(job, r0, "data")
        ev = "py-spy dump shows rank %d blocked in DataLoader __next__" % r0
    for r in range(job.world):
        if r != r0:
            planned[r] = ("wd", tf + job.timeout_s + rng.uniform(0, 4), dict(seq=seq, op="ALLREDUCE", last_enq=seq, last_comp=seq - 1))
    resolve(job, planned)
    return dict(rank=r0, node=h0, notes="Input pipeline of rank %d stalled: %s; %s; peers timed out in the collective." % (r0, what, ev))


def c_collective_mismatch(job):
    rng = job.rng
    step, tf = start_and_fail(job)
    r0 = rng.randrange(1, job.world) if job.world > 1 else 0
    h0 = job.host_of(r0)
    seq = seqnum(job, step)
    v = rng.choice(["detail", "wd", "wd"])
    planned = {}
    good_op, bad_op = rng.choice([("ALLREDUCE", "BROADCAST"), ("ALLREDUCE", "ALLGATHER"), ("_ALLGATHER_BASE", "_REDUCE_SCATTER_BASE"), ("ALLREDUCE", "ALLREDUCE")])
    good_n = rng.choice([1048576, 16777216, 262144000])
    bad_n = good_n if good_op != bad_op else good_n - rng.choice([1024, 4096, 50257 * 4])
    shape_g = "[%d]" % good_n
    shape_b = "[%d]" % bad_n
    if v == "detail":
        def fp(op, shape):
            return "CollectiveFingerPrint(SequenceNumber=%d, OpType=%s, TensorShape=%s, TensorDtypes=BFloat16, TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt)))" % (seq, op, shape)
        for r in range(job.world):
            if r == r0:
                other = 0
                msg = "Detected mismatch between collectives on ranks. Rank %d is running collective: %s, but Rank %d is running collective: %s.Collectives differ in the following aspects: \t%s" % (
                    r, fp(bad_op, shape_b), other, fp(good_op, shape_g), "Op type: %svs %s" % (bad_op, good_op) if bad_op != good_op else "Tensor Tensor shapes: %svs %s" % (shape_b, shape_g))
            else:
                msg = "Detected mismatch between collectives on ranks. Rank %d is running collective: %s, but Rank %d is running collective: %s.Collectives differ in the following aspects: \t%s" % (
                    r, fp(good_op, shape_g), r0, fp(bad_op, shape_b), "Op type: %svs %s" % (good_op, bad_op) if bad_op != good_op else "Tensor Tensor shapes: %svs %s" % (shape_g, shape_b))
            frames = user_frames(job, ["dist.all_reduce(grad_norm_sq)" if r != r0 else "dist.broadcast(state, src=0)",
                                       (job.site + "/torch/distributed/c10d_logger.py", 83, "wrapper", "return func(*args, **kwargs)"),
                                       (job.site + "/torch/distributed/distributed_c10d.py", 2501, "all_reduce" if r != r0 else "broadcast", "work = group.allreduce([tensor], opts)" if r != r0 else "work = group.broadcast([tensor], opts)")])
            tt = tf + rng.uniform(0.01, 1.5)
            job.out(r, tt, py_traceback(job, frames, "RuntimeError: " + msg), "err")
            planned[r] = ("done", tt + 0.05, 1, ["RuntimeError: " + msg[:120]])
        note = "TORCH_DISTRIBUTED_DEBUG=DETAIL caught it: rank %d issued %s %s while all others issued %s %s" % (r0, bad_op, shape_b, good_op, shape_g)
    else:
        for r in range(job.world):
            if r == r0:
                planned[r] = ("wd", tf + job.timeout_s + rng.uniform(0, 4), dict(seq=seq, op=bad_op, numel=bad_n))
            else:
                planned[r] = ("wd", tf + job.timeout_s + rng.uniform(0, 4), dict(seq=seq, op=good_op, numel=good_n))
        note = "no debug mode: all ranks time out on SeqNum %d, rank %d's WorkNCCL shows OpType=%s NumelIn=%d while every other rank shows %s NumelIn=%d" % (seq, r0, bad_op, bad_n, good_op, good_n)
    resolve(job, planned)
    return dict(rank=r0, node=h0, notes="Collective mismatch (rank-dependent code path): %s." % note)


def c_straggler(job):
    rng = job.rng
    t_start = rng.uniform(20, 90)
    if job.layout == "k8s-shared-gpu" or len(job.units[0]["ranks"]) == 1 and len(job.units) > 1:
        r0 = pick_rank(job)
        slow = {r0}
        h0 = job.host_of(r0)
        why = "its GPU was time-shared with another tenant's pod" if job.layout == "k8s-shared-gpu" else "its GPU was throttling (HW Slowdown)"
        rk = r0
    else:
        h0 = rng.choice(job.hosts)
        slow = {r for r in range(job.world) if job.host_of(r) == h0}
        if len(job.hosts) == 1:
            r0 = rng.choice(sorted(slow))
            slow = {r0}
            rk = r0
            why = "GPU %d was thermally throttled (HW Slowdown active)" % job.rank_gpu[r0][0]
        else:
            rk = None
            why = rng.choice(["CPU throttled by a low cgroup CPU limit (cpu quota) on that pod", "another tenant's job was sharing the node's GPUs (time-slicing)", "its GPUs were power-capped/thermally throttled"])
    factor = rng.uniform(1.5, 3.0)
    job.straggler = (h0, sorted(slow), why)
    if "throttl" in why:
        job.throttle = (h0, [job.rank_gpu[r][0] for r in sorted(slow)])
    if "tenant" in why or job.layout == "k8s-shared-gpu":
        job.tenant_on = (h0, job.rank_gpu[sorted(slow)[0]][0])
    if "cpu quota" in why:
        job.cpu_throttle = h0
    job.per_rank_stats = True
    tf = t_start + rng.uniform(1500, 6000)
    step, t = training(job, t_start, tf, slow_rank=slow, slow_factor=factor)
    if rng.random() < 0.5:
        job.out(0, t + 1, "[%s][%s][WARNING] - throughput %.1f samples/s is %.0f%% below the expected %.1f samples/s"
                % (job.pylog(job.host_of(0), t + 1), job.script.replace(".py", ""), 100 / factor, 100 * (1 - 1 / factor), 100.0), "out")
    for ui in range(len(job.units)):
        job.unit_state[ui].update(reason="Running", code=None)
    job.rank_end = {}
    job.still_running = True
    return dict(rank=rk, node=h0, notes="Straggler: ranks %s on %s ran ~%.1fx slower (%s); the job kept running, every other rank waited in allreduce." % (sorted(slow), h0, factor, why))


def c_unknown(job):
    rng = job.rng
    step, tf = start_and_fail(job)
    r0 = pick_rank(job)
    ui0 = job.unit_of(r0)
    h0 = job.host_of(r0)
    seq = seqnum(job, step)
    v = rng.choice(["silent1", "statusunknown", "lostlogs"]) if job.layout.startswith("k8s") else rng.choice(["silent1", "silent1", "lostlogs"])
    planned = {}
    if v == "silent1":
        planned[r0] = ("silent", tf, 1)
        plan_collateral(job, planned, tf, [r0], seq)
        resolve(job, planned)
        return dict(rank=None, node=None, notes="Rank %d exited with code 1 without printing anything (no traceback, no kernel messages); the rest is collateral." % r0)
    if v == "statusunknown":
        for r in job.units[ui0]["ranks"]:
            planned[r] = ("hang",)
        job.whole_killed = (ui0, tf)
        plan_collateral(job, planned, tf, [r0], seq)
        for r in job.units[ui0]["ranks"]:
            planned[r] = ("hang",)
        resolve(job, planned)
        job.unit_state[ui0].update(reason="ContainerStatusUnknown", code=137, end=tf,
                                   msg="The container could not be located when the pod was terminated")
        job.rank_end.update({r: (tf, -9) for r in job.units[ui0]["ranks"]})
        return dict(rank=None, node=None, notes="Pod on %s vanished (ContainerStatusUnknown, exit 137 reported without OOM evidence); no logs explain it." % h0)
    planned[r0] = ("silent", tf, 1)
    plan_collateral(job, planned, tf, [r0], seq)
    resolve(job, planned)
    job.lost_logs = ui0
    return dict(rank=None, node=None, notes="The first failing container's logs were lost (rotated / node recycled); surviving logs only show collateral timeouts and errors.")


def c_healthy(job):
    rng = job.rng
    t_start = rng.uniform(20, 90)
    job.total_steps = rng.choice([1000, 2000, 3000, 5000])
    job.log_every = max(job.log_every, job.total_steps // 150)
    t_end = t_start + 40 + job.total_steps * job.step_time * 1.02
    step, t = training(job, t_start, t_end)
    h0 = job.host_of(0)
    job.out(0, t + 2, "[%s][%s][INFO] - Saving final checkpoint to /workspace/outputs/final" % (job.pylog(h0, t + 2), job.script.replace(".py", "")), "out")
    job.out(0, t + 30, "[%s][%s][INFO] - Training complete: %d steps in %s" % (job.pylog(h0, t + 30), job.script.replace(".py", ""), job.total_steps,
                                                                                   str(timedelta(seconds=int(t - t_start)))), "out")
    if job.tnew:
        for r in range(job.world):
            if rng.random() < 0.5:
                job.out(r, t + 31, c10(job, r, t + 31, "W", "ProcessGroupNCCL.cpp:1250", "Warning: WARNING: process group has NOT been destroyed before we destruct ProcessGroupNCCL. On normal program exit, the application should call destroy_process_group to ensure that any pending NCCL operations have finished in this process. In rare cases this process can exit before this point and block the progress of another member of the process group. This constraint has always been present,  but this warning has only recently been added. For more info, please see https://pytorch.org/docs/stable/distributed.html#shutdown (function operator())"), "c10")
    for ui, u in enumerate(job.units):
        if u["agent"]:
            tt = t + 32 + rng.uniform(0, 2)
            job.uout(ui, tt, [elastic_log(job, u["host"], tt, "I", "agent", "[default] worker group successfully finished. Waiting 300 seconds for other agents to finish."),
                              elastic_log(job, u["host"], tt + 0.1, "I", "agent", "Local worker group finished (WorkerState.SUCCEEDED). Waiting 300 seconds for other agents to finish"),
                              elastic_log(job, u["host"], tt + 0.3, "I", "agent", "Done waiting for other agents. Elapsed: %.10f seconds" % rng.uniform(0.001, 0.9))])
        job.unit_state[ui].update(reason="Completed", code=0, end=t + 35)
    job.rank_end = {r: (t + 33, 0) for r in range(job.world)}
    return dict(rank=None, node=None, notes="Healthy run; contains harmless container warnings.")


CAUSE_FN = {"gpu_hardware": c_gpu_hardware, "ecc_memory": c_ecc_memory, "nvlink": c_nvlink, "network": c_network,
            "cuda_oom": c_cuda_oom, "illegal_memory_access": c_illegal_memory_access, "python_exception": c_python_exception,
            "host_oom_kill": c_host_oom_kill, "crash_signal": c_crash_signal, "preemption": c_preemption, "hang": c_hang,
            "data_loader_stall": c_data_loader_stall, "collective_mismatch": c_collective_mismatch, "straggler": c_straggler,
            "unknown": c_unknown}


# ----------------------------------------------------------------------------------------
# Layout setup
# ----------------------------------------------------------------------------------------
def k8s_node_names(rng, n):
    style = rng.choice(["gke", "eks", "aks", "onprem", "oci"])
    if style == "gke":
        pool = hexid(rng, 8)
        return ["gke-%s-a3-pool-%s-%s" % (rng.choice(["ml", "prod", "train"]), pool, hexid(rng, 4)) for _ in range(n)]
    if style == "eks":
        return ["ip-10-%d-%d-%d.ec2.internal" % (rng.randint(0, 3), rng.randint(0, 255), rng.randint(1, 254)) for _ in range(n)]
    if style == "aks":
        b = hexid(rng, 8)
        s0 = rng.randint(0, 5)
        return ["aks-ndv5-%s-vmss%06d" % (b, s0 + i) for i in range(n)]
    if style == "oci":
        return ["oke-gpu-c%s-n%s" % (hexid(rng, 6), hexid(rng, 5)) for _ in range(n)]
    s = rng.randint(1, 40)
    return ["gpu-node-%02d" % (s + i) for i in range(n)]


def slurm_node_names(rng, n):
    style = rng.choice(["dgx", "node", "st"])
    s = rng.randint(1, 120)
    if style == "dgx":
        return ["dgx%03d" % (s + i) for i in range(n)]
    if style == "node":
        return ["gpu%04d" % (s + i) for i in range(n)]
    return ["gpu-st-p5-48xlarge-%d" % (s + i) for i in range(n)]


def uniq(names):
    seen, out = set(), []
    for i, nm in enumerate(names):
        while nm in seen:
            nm = nm + "x"
        seen.add(nm)
        out.append(nm)
    return out


def setup(job):
    rng = job.rng
    L, c = job.layout, job.cause
    multi_needed = c == "network"
    if L in ("k8s-pytorchjob", "k8s-node-debug"):
        n = rng.randint(2, 4)
        hosts = uniq(k8s_node_names(rng, n))
        gpn = rng.choice([4, 8, 8])
        job.transport = rng.choice(["IB", "Socket"])
        job.build(hosts, gpn, 1)
        for i, u in enumerate(job.units):
            u["name"] = "%s-master-0" % job.jobname if i == 0 else "%s-worker-%d" % (job.jobname, i - 1)
            u["ip"] = "10.%d.%d.%d" % (rng.choice([244, 42, 96]), rng.randint(0, 60), rng.randint(2, 250))
        if job.transport == "IB":
            for u in job.units:
                u["ip"] = job.host_ip[u["host"]]  # hostNetwork for RDMA
    elif L == "docker":
        n = 2 if multi_needed or rng.random() < 0.35 else 1
        pre, s0 = rng.choice(["box", "ws", "srv", "a100", "h100"]), rng.randint(1, 30)
        hosts = ["gpu-%s-%02d" % (pre, s0 + i) for i in range(n)]
        gpn = rng.choice([2, 4, 8])
        job.transport = "Socket" if rng.random() < 0.7 else "IB"
        job.build(hosts, gpn, 1)
        for u in job.units:
            u["name"] = rng.choice(["train", "trainer", "pt-train", "job"])
    elif L == "slurm-pyxis":
        n = rng.randint(2, 4)
        hosts = uniq(slurm_node_names(rng, n))
        gpn = rng.choice([4, 8, 8])
        job.transport = "IB"
        job.build(hosts, gpn, 1)
        for u in job.units:
            u["name"] = u["host"]
    elif L == "slurm-apptainer":
        n = rng.randint(2, 3) if multi_needed else rng.randint(1, 3)
        hosts = uniq(slurm_node_names(rng, n))
        gpn = rng.choice([2, 4, 4, 8])
        job.transport = rng.choice(["IB", "Socket"])
        job.build(hosts, 1, gpn, agent=False)
        for u in job.units:
            u["name"] = u["host"]
    else:  # k8s-shared-gpu
        job.share_mode = rng.choice(["time-slicing", "time-slicing", "mps", "mig"])
        if c == "python_exception" or rng.random() < 0.5:
            job.share_mode = rng.choice(["time-slicing", "mps"]) if c == "python_exception" else job.share_mode
        npods = rng.randint(2, 4)
        nh = 2 if multi_needed else (1 if rng.random() < 0.6 else 2)
        nh = min(nh, npods)
        hosts = uniq(k8s_node_names(rng, nh))
        job.transport = "Socket"
        # pods spread over hosts
        job.build(hosts, 1, 1)
        job.units = []
        for i in range(npods):
            h = hosts[i % nh] if nh > 1 else hosts[0]
            job.units.append(dict(name="%s-%s-%d" % (job.jobname, "worker" if i else "master", i if i else 0), host=h, ranks=[i], agent=True,
                                  ip="10.%d.%d.%d" % (rng.choice([244, 42]), rng.randint(0, 60), rng.randint(2, 250)), pid_agent=1))
        job.units.sort(key=lambda u: u["ranks"][0])
        job.world = npods
        job.streams = {ui: [] for ui in range(npods)}
        job.unit_state = {ui: dict(reason="Completed", code=0, restarts=0, msg=None) for ui in range(npods)}
        for ui, u in enumerate(job.units):
            r = u["ranks"][0]
            job.rank_pid[r] = rng.randint(40, 300)
            job.rank_hostpid[r] = rng.randint(100000, 3900000)
        # physical GPU assignment: replicas may land on the same GPU
        used = {}
        for ui, u in enumerate(job.units):
            r = u["ranks"][0]
            k = used.get(u["host"], 0)
            used[u["host"]] = k + 1
            gi = k if job.share_mode == "mig" else rng.randint(0, 1) if rng.random() < 0.3 else k
            job.rank_gpu[r] = (gi % 8, job.buses[gi % 8])
        if job.share_mode == "mig":
            job.gpu_name = "NVIDIA A100-SXM4-80GB" if rng.random() < 0.5 else "NVIDIA H100 80GB HBM3"
            job.gpu_mem = 79.15 if "A100" in job.gpu_name else 79.11
            job.mig_profile = rng.choice(["3g.40gb", "2g.20gb", "1g.10gb"])
            job.gpu_cap = {"3g.40gb": 39.38, "2g.20gb": 19.50, "1g.10gb": 9.75}[job.mig_profile]
            job.mig_uuid = {u["ranks"][0]: "MIG-" + uuid(rng) for u in job.units}
        else:
            job.gpu_cap = job.gpu_mem
        job.replicas = rng.choice([2, 4, 8])
    if c == "nvlink":
        job.gpu_name = "NVIDIA H100 80GB HBM3" if rng.random() < 0.6 else "NVIDIA A100-SXM4-80GB"
        job.gpu_mem = 79.11 if "H100" in job.gpu_name else 79.15
    job.driver = rng.choice(["535.161.08", "550.54.15", "550.90.07", "560.35.03", "535.183.01"])
    job.jobid = rng.randint(100000, 9999999)
    job.uid = rng.randint(1000, 60000)
    job.shm_small = False


# ----------------------------------------------------------------------------------------
# Rendering helpers
# ----------------------------------------------------------------------------------------
def ngc_banner(job, no_driver=False, shm_note=True):
    rng = job.rng
    if "nvcr.io/nvidia/pytorch" not in job.image:
        if no_driver:
            return ["WARNING: The NVIDIA Driver was not detected.  GPU functionality will not be available."]
        return []
    tag = job.image.split(":")[1].replace("-py3", "")
    lines = ["", "=============", "== PyTorch ==", "=============", "",
             "NVIDIA Release %s (build %d)" % (tag, rng.randint(70000000, 99999999)),
             "PyTorch Version %sa0+%s" % (job.torch[:3] + ".0", hexid(rng, 7)), "",
             "Container image Copyright (c) 20%s, NVIDIA CORPORATION & AFFILIATES. All rights reserved.", "",
             "Copyright (c) 2014-2024 Facebook Inc.",
             "Copyright (c) 2011-2014 Idiap Research Institute (Ronan Collobert)", "",
             "Various files include modifications (c) NVIDIA CORPORATION & AFFILIATES.  All rights reserved.", "",
             "This container image and its contents are governed by the NVIDIA Deep Learning Container License.",
             "By pulling and using the container, you accept the terms and conditions of this license:",
             "https://developer.nvidia.com/ngc/nvidia-deep-learning-container-license", ""]
    lines[8] = lines[8] % tag[:2]
    if no_driver:
        lines += ["WARNING: The NVIDIA Driver was not detected.  GPU functionality will not be available.",
                  "   Use the NVIDIA Container Toolkit to start this container with GPU support; see",
                  "   https://docs.nvidia.com/datacenter/cloud-native/ .", ""]
    if shm_note:
        lines += ["NOTE: The SHMEM allocation limit is set to the default of 64MB.  This may be",
                  "   insufficient for PyTorch.  NVIDIA recommends the use of the following flags:",
                  "   docker run --gpus all --ipc=host --ulimit memlock=-1 --ulimit stack=67108864 ...", ""]
    return lines


def unit_lines(job, ui, tsfmt=None, cut=None):
    """Sorted output of one unit; tsfmt: None | 'k8s' | 'docker'."""
    h = job.units[ui]["host"]
    st = sorted(job.streams[ui], key=lambda x: x[0])
    wk = getattr(job, "whole_killed", None)
    if wk and wk[0] == ui:
        st = [x for x in st if x[0] <= wk[1]]
    out = []
    for e in st:
        t, ln = e[0], e[1]
        if tsfmt:
            out.append(job.iso(h, t) + " " + ln)
        else:
            out.append(ln)
    if cut and len(out) > cut:
        out = out[-cut:]
    return out


def healthy_dmesg_noise(job, h):
    rng = job.rng
    lines = [(-job.boot[h] + 3.2, "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  %s  %s" % (job.driver, rng.choice(["Wed Feb 28 01:29:01 UTC 2024", "Thu Jun 20 19:01:07 UTC 2024", "Tue Nov  5 11:21:12 UTC 2024"]))),
             (-job.boot[h] + 3.9, "nvidia-nvswitch: Probing device 0000:%s:00.0, Vendor Id = 0x10de, Device Id = 0x22a3, Class = 0x68000" % rng.choice(["05", "06", "07"])) if job.nvlink else (-job.boot[h] + 3.9, "nvidia-modeset: Loading NVIDIA Kernel Mode Setting Driver for UNIX platforms  %s" % job.driver),
             (-job.boot[h] + 4.4, "nvidia-peermem nv_mem_init: module loaded") if job.transport == "IB" else (-job.boot[h] + 4.4, "nvidia_uvm: module uses symbols from proprietary module nvidia, inheriting taint."),
             (-rng.uniform(100, 3000), "audit: type=1400 audit(%d.%03d:%d): apparmor=\"STATUS\" operation=\"profile_replace\" info=\"same as current profile, skipping\" profile=\"unconfined\" name=\"cri-containerd.apparmor.d\" pid=%d comm=\"apparmor_parser\""
              % (1700000000 + rng.randint(0, 40000000), rng.randint(0, 999), rng.randint(100, 999), rng.randint(1000, 99999)))]
    if job.layout.startswith("k8s"):
        v = hexid(rng, 8)
        lines += [(rng.uniform(0, 5), "IPv6: ADDRCONF(NETDEV_CHANGE): cali%s: link becomes ready" % hexid(rng, 11)),
                  (rng.uniform(0, 5), "eth0: renamed from tmp%s" % hexid(rng, 5)),
                  (rng.uniform(0, 5), "cni0: port %d(veth%s) entered forwarding state" % (rng.randint(1, 9), v))]
    elif job.layout == "docker":
        lines += [(rng.uniform(0, 5), "docker0: port 1(veth%s) entered blocking state" % hexid(rng, 7)),
                  (rng.uniform(0, 5), "docker0: port 1(veth%s) entered forwarding state" % hexid(rng, 7)),
                  (rng.uniform(0, 5), "eth0: renamed from veth%s" % hexid(rng, 7))]
    if rng.random() < 0.3:
        lines.append((rng.uniform(100, 3000), "NVRM: GPU at PCI:0000:%s:00: %s" % (rng.choice(job.buses), job.gpu_uuid[(h, rng.randint(0, 7))])))
    if rng.random() < 0.25:
        lines.append((rng.uniform(100, 3000), "TCP: request_sock_TCP: Possible SYN flooding on port 29500. Sending cookies.  Check SNMP counters."))
    return lines


def render_dmesg(job, h, human=True):
    entries = healthy_dmesg_noise(job, h) + list(job.dmesg.get(h, []))
    entries.sort(key=lambda x: x[0])
    out = []
    for t, ln in entries:
        if human:
            out.append("[%s] %s" % (job.ctime(h, t), ln))
        else:
            out.append("[%12.6f] %s" % (job.boot[h] + t, ln))
    return out


def kubelet_glog(job, h, t, src, msg, pid):
    return "%s" % job.glog(h, t, "I", pid=pid, src=src) + " " + msg


def node_journal(job, h):
    rng = job.rng
    kpid, cpid = rng.randint(1000, 5000), rng.randint(800, 1500)
    ents = []
    for ui, u in enumerate(job.units):
        if u["host"] != h:
            continue
        cid = u.setdefault("cid", hexid(rng, 64))
        ts = rng.uniform(2, 10)
        ents.append((ts, "containerd[%d]" % cpid, 'time="%s" level=info msg="StartContainer for \\"%s\\" returns successfully"' % (job.iso(h, ts), cid)))
        ents.append((ts - 1, "kubelet[%d]" % kpid, kubelet_glog(job, h, ts - 1, "kubelet.go:2434", '"SyncLoop ADD" source="api" pods=["%s/%s"]' % (job.ns, u["name"]), kpid)))
        st = job.unit_state[ui]
        if st.get("end") is not None and st["reason"] not in ("Running",):
            te = st["end"] + rng.uniform(0.1, 1.0)
            if st["reason"] == "OOMKilled":
                ents.append((te - 0.05, "containerd[%d]" % cpid, 'time="%s" level=info msg="TaskOOM event container_id:\\"%s\\""' % (job.iso(h, te - 0.05), cid)))
            ents.append((te, "containerd[%d]" % cpid, 'time="%s" level=info msg="shim disconnected" id=%s namespace=k8s.io' % (job.iso(h, te), cid)))
            ents.append((te + 0.01, "containerd[%d]" % cpid, 'time="%s" level=info msg="cleaning up after shim disconnected" id=%s namespace=k8s.io' % (job.iso(h, te), cid)))
            ents.append((te + 0.3, "kubelet[%d]" % kpid, kubelet_glog(job, h, te + 0.3, "generic.go:334", '"Generic (PLEG): container finished" podID="%s" containerID="%s" exitCode=%s' % (uuid(rng), cid, st.get("code")), kpid)))
            ents.append((te + 0.35, "kubelet[%d]" % kpid, kubelet_glog(job, h, te + 0.35, "kubelet.go:2466", '"SyncLoop (PLEG): event for pod" pod="%s/%s" event={"ID":"%s","Type":"ContainerDied","Data":"%s"}' % (job.ns, u["name"], uuid(rng), cid), kpid)))
    for t, proc, ln in job.journal.get(h, []):
        ents.append((t, "%s[%d]" % (proc, kpid if proc == "kubelet" else rng.randint(900, 9000)) if proc != "systemd" else "systemd[1]", ln))
    for _ in range(rng.randint(3, 8)):
        ts = rng.uniform(0, job.end_t + 30)
        ents.append((ts, "kubelet[%d]" % kpid, kubelet_glog(job, h, ts, rng.choice(["reconciler_common.go:258", "kubelet_pods.go:1019", "prober.go:107"]),
                     rng.choice(['"operationExecutor.VerifyControllerAttachedVolume started for volume \\"kube-api-access-%s\\""' % hexid(rng, 5),
                                 '"Unable to retrieve pull secret, the image pull may not succeed." pod="monitoring/dcgm-exporter-%s" secret="" err="secret \\"regcred\\" not found"' % hexid(rng, 5),
                                 '"Probe failed" probeType="Readiness" pod="kube-system/nvidia-device-plugin-daemonset-%s" containerName="nvidia-device-plugin-ctr" probeResult="failure" output="command timed out"' % hexid(rng, 5)]), kpid)))
    ents.sort(key=lambda x: x[0])
    return ["%s %s %s: %s" % (job.syslog(h, t), h.split(".")[0], proc, ln) for t, proc, ln in ents]


def device_plugin_log(job, h):
    rng = job.rng
    t0 = -rng.uniform(3600, 86400)
    cfg = {"version": "v1", "flags": {"migStrategy": "single" if getattr(job, "share_mode", "") == "mig" else "none", "failOnInitError": True,
                                      "nvidiaDriverRoot": "/run/nvidia/driver", "plugin": {"passDeviceSpecs": False, "deviceListStrategy": ["envvar"], "deviceIDStrategy": "uuid"}},
           "resources": {"gpus": [{"pattern": "*", "name": "nvidia.com/gpu"}]}}
    if getattr(job, "share_mode", "") in ("time-slicing", "mps"):
        key = "timeSlicing" if job.share_mode == "time-slicing" else "mps"
        cfg["sharing"] = {key: {"resources": [{"name": "nvidia.com/gpu", "replicas": job.replicas}]}}
    ver = rng.choice(["v0.14.5", "v0.15.0", "v0.16.2"])
    out = []
    pid = 1

    def L(t, src, msg):
        out.append("%s %s" % (job.glog(h, t, "I", pid=pid, src=src), msg))
    L(t0, "main.go:178", "Starting FS watcher.")
    L(t0, "main.go:185", "Starting OS watcher.")
    L(t0, "main.go:200", "Starting Plugins.")
    L(t0, "main.go:257", "Loading configuration.")
    L(t0, "main.go:265", "Updating config with default resource matching patterns.")
    L(t0, "main.go:276", "")
    out.append("Running with config:")
    out += json.dumps(cfg, indent=2).split("\n")
    L(t0 + 0.1, "main.go:279", "Retrieving plugins.")
    if getattr(job, "share_mode", "") == "mps":
        L(t0 + 0.2, "mps.go:%d" % 70, "Starting MPS control daemon for nvidia.com/gpu")
    L(t0 + 0.3, "server.go:176", "Starting GRPC server for 'nvidia.com/gpu'")
    L(t0 + 0.3, "server.go:117", "Starting to serve 'nvidia.com/gpu' on /var/lib/kubelet/device-plugins/nvidia-gpu.sock")
    L(t0 + 0.4, "server.go:125", "Registered device plugin for 'nvidia.com/gpu' with Kubelet")
    if rng.random() < 0.3:
        L(t0 + 600, "health.go:%d" % 130, "Ignoring the following XIDs for health checks: map[13:true 31:true 43:true 45:true 68:true 109:true]")
    for t, ln in sorted(job.devplugin.get(h, [])):
        src = "health.go:185" if ln.startswith("Xid") else "server.go:245"
        L(t, src, ln)
    if ver < "v0.15" and False:
        pass
    return out


def smi_table(job, h, gpus, procs, broken=None, throttle=None, mig=None):
    """Compact nvidia-smi output."""
    rng = job.rng
    d = job.clk(h, job.end_t + 60)
    out = ["%s %s %2d %s %d       " % (DAYS[d.weekday()], MONTHS[d.month - 1], d.day, d.strftime("%H:%M:%S"), d.year),
           "+-----------------------------------------------------------------------------------------+",
           "| NVIDIA-SMI %s              Driver Version: %s      CUDA Version: %s     |" % (job.driver, job.driver, rng.choice(["12.2", "12.4", "12.6"])),
           "|-----------------------------------------+------------------------+----------------------+",
           "| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |",
           "| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |",
           "|                                         |                        |               MIG M. |",
           "|=========================================+========================+======================|"]
    memtot = int(job.gpu_mem * 1024 + 400)
    for gi in gpus:
        if broken and broken[1] == gi:
            continue
        bus = job.buses[gi]
        used = rng.randint(int(memtot * 0.5), int(memtot * 0.95)) if procs.get(gi) else 1
        temp = rng.randint(31, 48) if not (throttle and gi in throttle) else rng.randint(86, 93)
        ecc = "0" if not (getattr(job, "ecc_q", None) and job.ecc_q[0] == h and job.ecc_q[1] == gi) else "2"
        out.append("|  %d  %-29s  On  |   00000000:%s:00.0 Off |                    %s |" % (gi, job.gpu_name[:29], bus.upper(), ecc.rjust(1)))
        out.append("| N/A   %2dC    P0            %3dW /  700W |   %5dMiB /  %5dMiB |    %3d%%      Default |" % (temp, rng.randint(80, 690), used, memtot, rng.randint(0, 100) if procs.get(gi) else 0))
        out.append("|                                         |                        |             %s |" % ("Enabled" if mig else "Disabled").rjust(8))
        out.append("+-----------------------------------------+------------------------+----------------------+")
    if broken:
        out.append(broken[2])
    if mig:
        out += ["", "+-----------------------------------------------------------------------------------------+",
                "| MIG devices:                                                                            |",
                "+------------------+----------------------------------+-----------+-----------------------+",
                "| GPU  GI  CI  MIG |                     Memory-Usage |        Vol|        Shared         |",
                "|      ID  ID  Dev |                       BAR1-Usage | SM     Unc| CE ENC  DEC  OFA  JPG |",
                "|==================+==================================+===========+=======================|"]
        for (gi, gid, dev, prof) in mig:
            sz = {"3g.40gb": 40192, "2g.20gb": 19968, "1g.10gb": 9984}[prof]
            out.append("|  %d  %2d   0   %d  |         %5dMiB / %5dMiB    | %2d      0 |  %d   0    %d    0    %d |" % (gi, gid, dev, rng.randint(13, sz - 100), sz, {"3g.40gb": 42, "2g.20gb": 28, "1g.10gb": 14}[prof], {"3g.40gb": 3, "2g.20gb": 2, "1g.10gb": 1}[prof], {"3g.40gb": 2, "2g.20gb": 1, "1g.10gb": 0}[prof], {"3g.40gb": 1, "2g.20gb": 0, "1g.10gb": 0}[prof]))
        out.append("+------------------+----------------------------------+-----------+-----------------------+")
    out += ["", "+-----------------------------------------------------------------------------------------+",
            "| Processes:                                                                              |",
            "|  GPU   GI   CI        PID   Type   Process name                              GPU Memory |",
            "|        ID   ID                                                               Usage      |",
            "|=========================================================================================|"]
    any_p = False
    for gi in gpus:
        for (pid, name, mib, gid) in procs.get(gi, []):
            any_p = True
            out.append("|    %d  %4s  %4s    %7d      C   %-40s %6dMiB |" % (gi, gid if gid is not None else "N/A", "0" if gid is not None else "N/A", pid, name[:40], mib))
    if not any_p:
        out.append("|  No running processes found                                                             |")
    out.append("+-----------------------------------------------------------------------------------------+")
    return out


def age(job, t):
    s = max(1, int(job.end_t + 120 - t))
    if s < 120:
        return "%ds" % s
    if s < 7200:
        return "%dm" % (s // 60)
    return "%dh%dm" % (s // 3600, (s % 3600) // 60) if s < 86400 else "%dh" % (s // 3600)


def rfc1123(job, h, t):
    d = job.clk(h, t)
    return "%s, %02d %s %d %s +0000" % (DAYS[d.weekday()], d.day, MONTHS[d.month - 1], d.year, d.strftime("%H:%M:%S"))


def describe_pod(job, ui, res_name="nvidia.com/gpu", res_n=None, shm=True):
    rng = job.rng
    u = job.units[ui]
    h = u["host"]
    st = job.unit_state[ui]
    n = res_n if res_n is not None else len(u["ranks"])
    cid = u.setdefault("cid", hexid(rng, 64))
    phase = {"Completed": "Succeeded", "Running": "Running"}.get(st["reason"], "Failed")
    out = ["Name:             %s" % u["name"], "Namespace:        %s" % job.ns, "Priority:         %d" % rng.choice([0, 1000, 100000]),
           "Service Account:  default", "Node:             %s/%s" % (h, job.host_ip[h]), "Start Time:       %s" % rfc1123(job, h, 0),
           "Labels:           training.kubeflow.org/job-name=%s" % job.jobname,
           "                  training.kubeflow.org/operator-name=pytorchjob-controller",
           "                  training.kubeflow.org/replica-index=%d" % (0 if "master" in u["name"] else int(u["name"].rsplit("-", 1)[1])),
           "                  training.kubeflow.org/replica-type=%s" % ("master" if "master" in u["name"] else "worker"),
           "Annotations:      <none>", "Status:           %s" % phase]
    if st["reason"] in ("Evicted", "Terminated") and st.get("msg"):
        out += ["Reason:           %s" % st["reason"], "Message:          %s" % st["msg"]]
    out += ["IP:               %s" % u["ip"], "IPs:", "  IP:           %s" % u["ip"], "Controlled By:  PyTorchJob/%s" % job.jobname,
            "Containers:", "  pytorch:", "    Container ID:  containerd://%s" % cid, "    Image:         %s" % job.image,
            "    Image ID:      %s@sha256:%s" % (job.image.split(":")[0], hexid(rng, 64)), "    Port:          23456/TCP", "    Host Port:     0/TCP",
            "    Command:", "      torchrun", "    Args:",
            "      --nnodes=%d" % len(job.units), "      --nproc-per-node=%d" % len(u["ranks"]), "      --rdzv-backend=c10d",
            "      --rdzv-endpoint=%s-master-0:23456" % job.jobname, "      /workspace/%s" % job.script]
    started = rfc1123(job, h, rng.uniform(3, 10))
    if st["reason"] == "Running":
        out += ["    State:          Running", "      Started:      %s" % started, "    Ready:          True"]
    else:
        code = st.get("code")
        reason = st["reason"] if st["reason"] in ("Completed", "OOMKilled", "Error", "ContainerStatusUnknown") else "Error"
        out += ["    State:          Terminated", "      Reason:       %s" % reason]
        if st.get("msg") and reason == "ContainerStatusUnknown":
            out.append("      Message:      %s" % st["msg"])
        out += ["      Exit Code:    %s" % (code if code is not None else 143), "      Started:      %s" % started,
                "      Finished:     %s" % rfc1123(job, h, st.get("end") or job.end_t), "    Ready:          False"]
    out += ["    Restart Count:  %d" % st.get("restarts", 0), "    Limits:",
            "      memory:          %dGi" % getattr(job, "mem_limit", rng.choice([200, 480, 900])), "      %s:  %d" % (res_name, n), "    Requests:",
            "      cpu:             %d" % rng.choice([16, 32, 90]), "      memory:          %dGi" % getattr(job, "mem_limit", 200), "      %s:  %d" % (res_name, n),
            "    Environment:", "      PYTHONUNBUFFERED:  1", "      NCCL_DEBUG:        %s" % ("INFO" if job.nccl_info else "WARN"),
            "      PET_NNODES:        %d" % len(job.units), "      PET_NPROC_PER_NODE:  %d" % len(u["ranks"]), "      PET_NODE_RANK:     %d" % ui,
            "      MASTER_ADDR:       %s-master-0" % job.jobname, "      MASTER_PORT:       23456",
            "    Mounts:"]
    if shm:
        out.append("      /dev/shm from dshm (rw)")
    out += ["      /data from datasets (ro)", "      /var/run/secrets/kubernetes.io/serviceaccount from kube-api-access-%s (ro)" % hexid(rng, 5),
            "Conditions:", "  Type              Status", "  Initialized       True ", "  Ready             %s " % ("True" if st["reason"] == "Running" else "False"),
            "  ContainersReady   %s " % ("True" if st["reason"] == "Running" else "False"), "  PodScheduled      True ", "Volumes:"]
    if shm:
        out += ["  dshm:", "    Type:       EmptyDir (a temporary directory that shares a pod's lifetime)", "    Medium:     Memory", "    SizeLimit:  %s" % rng.choice(["<unset>", "64Gi", "16Gi"])]
    out += ["  datasets:", "    Type:       PersistentVolumeClaim (a reference to a PersistentVolumeClaim in the same namespace)",
            "    ClaimName:  %s" % rng.choice(["datasets-ro", "shared-fs", "fsx-claim"]), "    ReadOnly:   true",
            "QoS Class:                   %s" % ("Guaranteed" if rng.random() < 0.6 else "Burstable"), "Node-Selectors:              nvidia.com/gpu.present=true",
            "Tolerations:                 node.kubernetes.io/not-ready:NoExecute op=Exists for 300s",
            "                             node.kubernetes.io/unreachable:NoExecute op=Exists for 300s",
            "                             nvidia.com/gpu:NoSchedule op=Exists", "Events:"]
    evs = [e for e in job.events if e[3] == "pod/%s" % u["name"]]
    if (job.end_t + 120) > 3600 and not evs:
        out.append("  <none>")
    else:
        out += ["  Type     Reason        Age   From               Message", "  ----     ------        ----  ----               -------"]
        for (t, typ, reason, obj, msg, src) in sorted(evs):
            out.append("  %-8s %-13s %-5s %-18s %s" % (typ, reason, age(job, t), src, msg))
    return out


def base_events(job):
    rng = job.rng
    evs = []
    for ui, u in enumerate(job.units):
        h = u["host"]
        evs.append((0.5, "Normal", "Scheduled", "pod/%s" % u["name"], "Successfully assigned %s/%s to %s" % (job.ns, u["name"], h), "default-scheduler"))
        if rng.random() < 0.5:
            evs.append((1.0, "Normal", "Pulling", "pod/%s" % u["name"], 'Pulling image "%s"' % job.image, "kubelet"))
            evs.append((rng.uniform(30, 200), "Normal", "Pulled", "pod/%s" % u["name"], 'Successfully pulled image "%s" in %.3fs (%.3fs including waiting). Image size: %d bytes.' % (job.image, rng.uniform(20, 190), rng.uniform(20, 200), rng.randint(8 * 10 ** 9, 2 * 10 ** 10)), "kubelet"))
        else:
            evs.append((1.0, "Normal", "Pulled", "pod/%s" % u["name"], 'Container image "%s" already present on machine' % job.image, "kubelet"))
        evs.append((2.0, "Normal", "Created", "pod/%s" % u["name"], "Created container pytorch", "kubelet"))
        evs.append((2.5, "Normal", "Started", "pod/%s" % u["name"], "Started container pytorch", "kubelet"))
    if rng.random() < 0.5:
        evs.append((0.1, "Warning", "FailedScheduling", "pod/%s" % job.units[-1]["name"], "0/%d nodes are available: %d Insufficient nvidia.com/gpu. preemption: 0/%d nodes are available: %d No preemption victims found for incoming pod." % ((len(job.hosts) + 3,) * 4), "default-scheduler"))
    evs.append((0.0, "Normal", "SuccessfulCreatePod", "pytorchjob/%s" % job.jobname, "Created pod: %s" % job.units[0]["name"], "pytorchjob-controller"))
    if not job.healthy and job.cause != "straggler":
        evs.append((job.end_t + 5, "Normal", "PyTorchJobFailed" if rng.random() < 0.5 else "JobFailed", "pytorchjob/%s" % job.jobname,
                    "PyTorchJob %s/%s has failed because 1 Master replica(s) failed." % (job.ns, job.jobname) if job.unit_state[0]["reason"] not in ("Running",) else
                    "PyTorchJob %s/%s has failed because 1 Worker replica(s) failed." % (job.ns, job.jobname), "pytorchjob-controller"))
    elif job.healthy:
        evs.append((job.end_t + 5, "Normal", "PyTorchJobSucceeded", "pytorchjob/%s" % job.jobname, "PyTorchJob %s/%s successfully completed." % (job.ns, job.jobname), "pytorchjob-controller"))
    if getattr(job, "dup_cause", False) is False and rng.random() < 0.3:
        evs.append((rng.uniform(100, 900), "Warning", "Unhealthy", "pod/dcgm-exporter-%s" % hexid(rng, 5), "Readiness probe failed: Get \"http://10.244.%d.%d:9400/health\": context deadline exceeded" % (rng.randint(0, 60), rng.randint(2, 250)), "kubelet"))
    job.events = evs + job.events


def events_table(job):
    out = ["LAST SEEN   TYPE      REASON                 OBJECT                                      MESSAGE"]
    for (t, typ, reason, obj, msg, src) in sorted(job.events, key=lambda e: e[0]):
        out.append("%-11s %-9s %-22s %-43s %s" % (age(job, t), typ, reason, obj, msg))
    return out


# ----------------------------------------------------------------------------------------
# Layout writers
# ----------------------------------------------------------------------------------------
def wfile(d, rel, lines):
    p = os.path.join(d, rel)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, "w", encoding="utf-8") as f:
        if isinstance(lines, str):
            f.write(lines)
        else:
            f.write("\n".join(lines) + "\n")


def maybe_cut(job, lines, p=0.3):
    if len(lines) > 600 and job.rng.random() < p:
        k = job.rng.randint(300, 600)
        return lines[-k:]
    return lines


def pod_stream(job, ui, ts=False):
    rng = job.rng
    h = job.units[ui]["host"]
    ban = ngc_banner(job, shm_note=job.shm_small or rng.random() < 0.2)
    body = unit_lines(job, ui, "k8s" if ts else None)
    if ts:
        ban = [job.iso(h, 3.0 + i * 1e-4) + " " + b for i, b in enumerate(ban)]
    return maybe_cut(job, ban + body)


def sidecar_lines(job, ui):
    lines = ngc_banner(job, no_driver=True, shm_note=True) or ["WARNING: The NVIDIA Driver was not detected.  GPU functionality will not be available."]
    lines += ["Uploading /workspace/outputs/tb to gs://%s-tb/%s every 300s" % (job.ns, job.jobname)]
    return lines


def write_k8s_pytorchjob(job, d):
    rng = job.rng
    base_events(job)
    ts = rng.random() < 0.6
    out = []
    side = job.healthy or rng.random() < 0.3
    for ui, u in enumerate(job.units):
        for ln in pod_stream(job, ui, ts):
            out.append("[pod/%s/pytorch] %s" % (u["name"], ln))
        if side and ui == 0:
            for ln in sidecar_lines(job, ui):
                out.append("[pod/%s/tb-uploader] %s" % (u["name"], (job.iso(u["host"], 4.0) + " " if ts else "") + ln))
    wfile(d, "kubectl-logs-all-pods.txt", out)
    desc = []
    for ui in range(len(job.units)):
        desc += describe_pod(job, ui, shm=not job.shm_small) + [""]
    wfile(d, "kubectl-describe-pods.txt", desc)
    wfile(d, "kubectl-get-events.txt", events_table(job))


def smi_for_host(job, h):
    rng = job.rng
    gpus = list(range(job.gpus_per_host if job.layout != "k8s-shared-gpu" else 8))
    procs = {}
    for r in range(job.world):
        if job.host_of(r) == h and job.rank_end.get(r) is None:
            gi = job.rank_gpu[r][0]
            procs.setdefault(gi, []).append((job.rank_hostpid[r], "/usr/bin/python", rng.randint(30000, 70000), None))
    tn = getattr(job, "tenant_on", None)
    if tn and tn[0] == h:
        procs.setdefault(tn[1], []).append((rng.randint(100000, 3900000), "/opt/conda/bin/python3", rng.randint(15000, 38000), None))
    broken = getattr(job, "smi_broken", None)
    broken = broken if broken and broken[0] == h else None
    th = getattr(job, "throttle", None)
    th = th[1] if th and th[0] == h else None
    out = smi_table(job, h, gpus, procs, broken=broken, throttle=th)
    if th:
        out += ["", "$ nvidia-smi -q -d PERFORMANCE -i %d" % th[0], "", "==============NVSMI LOG==============", "",
                "GPU 00000000:%s:00.0" % job.buses[th[0]].upper(), "    Performance State                     : P0",
                "    Clocks Event Reasons", "        Idle                              : Not Active",
                "        Applications Clocks Setting       : Not Active", "        SW Power Cap                      : Not Active",
                "        HW Slowdown                       : Active", "            HW Thermal Slowdown           : Active",
                "            HW Power Brake Slowdown       : Not Active", "        Sync Boost                        : Not Active",
                "        SW Thermal Slowdown               : Active"]
    eq = getattr(job, "ecc_q", None)
    if eq and eq[0] == h:
        out += ["", "$ nvidia-smi -q -d ROW_REMAPPER -i %d" % eq[1], "", "GPU 00000000:%s:00.0" % eq[2].upper(), "    Remapped Rows",
                "        Correctable Error                 : 0", "        Uncorrectable Error               : %d" % rng.randint(1, 3),
                "        Pending                           : Yes", "        Remapping Failure Occurred        : %s" % rng.choice(["No", "Yes"]),
                "        Bank Remap Availability Histogram", "            Max                           : %d bank(s)" % rng.randint(600, 640),
                "            High                          : 0 bank(s)", "            Partial                       : 0 bank(s)",
                "            Low                           : 0 bank(s)", "            None                          : 0 bank(s)"]
    return out


def write_k8s_node_debug(job, d):
    rng = job.rng
    base_events(job)
    ts = rng.random() < 0.4
    for ui, u in enumerate(job.units):
        if getattr(job, "lost_logs", None) == ui:
            wfile(d, "pods/%s.log" % u["name"], ['unable to retrieve container logs for containerd://%s' % u.setdefault("cid", hexid(rng, 64))])
            continue
        wfile(d, "pods/%s.log" % u["name"], pod_stream(job, ui, ts))
    rows = ["NAME%sREADY   STATUS      RESTARTS   AGE   IP             NODE" % (" " * (len(job.units[-1]["name"]) - 2))]
    for ui, u in enumerate(job.units):
        st = job.unit_state[ui]
        status = st["reason"] if st["reason"] in ("Running", "Completed", "OOMKilled", "Error", "Evicted", "ContainerStatusUnknown") else ("Terminated" if st["reason"] == "Terminated" else "Error")
        rows.append("%-*s  %s   %-11s %-10d %-5s %-14s %s" % (len(job.units[-1]["name"]) + 2, u["name"], "1/1" if status == "Running" else "0/1", status, st.get("restarts", 0), age(job, 0), u["ip"], u["host"]))
    wfile(d, "kubectl-get-pods-wide.txt", rows)
    wfile(d, "kubectl-get-events.txt", events_table(job))
    hosts = list(job.hosts)
    if len(hosts) > 2 and rng.random() < 0.4:
        keep = rng.sample(hosts, len(hosts) - 1)
        hosts = [h for h in job.hosts if h in keep]
    for h in hosts:
        short = h.split(".")[0]
        wfile(d, "nodes/%s/dmesg.txt" % short, render_dmesg(job, h, human=True))
        wfile(d, "nodes/%s/journalctl-kubelet-containerd.txt" % short, node_journal(job, h))
        wfile(d, "nodes/%s/nvidia-device-plugin.log" % short, device_plugin_log(job, h))
        if any(getattr(job, a, None) and getattr(job, a)[0] == h for a in ("smi_broken", "ecc_q", "throttle", "tenant_on")) or rng.random() < 0.15:
            wfile(d, "nodes/%s/nvidia-smi.txt" % short, smi_for_host(job, h))
    for k, v in job.extra_files.items():
        wfile(d, k, v)


def write_docker(job, d):
    rng = job.rng
    shm_flag = "" if job.shm_small else rng.choice(["--ipc=host ", "--shm-size=64g ", "--ipc=host "])
    for ui, u in enumerate(job.units):
        h = u["host"]
        ts = rng.random() < 0.4
        ban = ngc_banner(job, shm_note=job.shm_small or not shm_flag.startswith("--ipc"))
        body = unit_lines(job, ui, "docker" if ts else None)
        if ts:
            ban = [job.iso(h, 1.0 + i * 1e-4) + " " + b for i, b in enumerate(ban)]
        wfile(d, "docker-logs-%s.txt" % h, maybe_cut(job, ban + body))
        st = job.unit_state[ui]
        cid = u.setdefault("cid", hexid(rng, 64))
        code = st.get("code")
        if st["reason"] == "Running":
            state = {"Status": "running", "Running": True, "Paused": False, "Restarting": False, "OOMKilled": False, "Dead": False,
                     "Pid": rng.randint(10000, 900000), "ExitCode": 0, "Error": "", "StartedAt": job.iso(h, 0.5), "FinishedAt": "0001-01-01T00:00:00Z"}
        else:
            state = {"Status": "exited", "Running": False, "Paused": False, "Restarting": False, "OOMKilled": st["reason"] == "OOMKilled", "Dead": False,
                     "Pid": 0, "ExitCode": 137 if st["reason"] == "OOMKilled" and code == 137 else (code if code is not None else 1),
                     "Error": "", "StartedAt": job.iso(h, 0.5), "FinishedAt": job.iso(h, st.get("end") or job.end_t)}
        dev = "all" if not getattr(job, "dup", None) else None
        insp = [{"Id": cid, "Created": job.iso(h, 0.2), "Path": "torchrun", "Args": ["--nnodes=%d" % len(job.units), "--nproc-per-node=%d" % len(u["ranks"]), "/workspace/%s" % job.script],
                 "State": state, "Image": "sha256:" + hexid(rng, 64), "Name": "/" + u["name"], "RestartCount": 0,
                 "HostConfig": {"NetworkMode": "host", "IpcMode": "host" if "ipc" in shm_flag else "private", "ShmSize": 68719476736 if "shm-size" in shm_flag else 67108864,
                                "Memory": getattr(job, "mem_limit", 0) * 1024 ** 3 if getattr(job, "mem_limit", None) else 0,
                                "DeviceRequests": [{"Driver": "", "Count": -1 if dev else 0, "DeviceIDs": None if dev else [str(i) for i in range(len(u["ranks"]))], "Capabilities": [["gpu"]], "Options": {}}]},
                 "Config": {"Image": job.image, "Env": ["NCCL_DEBUG=%s" % ("INFO" if job.nccl_info else "WARN"), "NVIDIA_VISIBLE_DEVICES=all", "PATH=/usr/local/nvidia/bin:/usr/local/cuda/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"] +
                            (["CUDA_VISIBLE_DEVICES=%s" % ",".join(str(job.rank_gpu[r][0]) for r in u["ranks"])] if getattr(job, "dup", None) and job.dup[0] == h else [])}}]
        wfile(d, "docker-inspect-%s.json" % h, json.dumps(insp, indent=4))
        if rng.random() < 0.6 or job.dmesg[h]:
            if rng.random() < 0.85:
                wfile(d, "dmesg-%s.txt" % h, render_dmesg(job, h, human=rng.random() < 0.5))
        if job.journal[h]:
            ents = sorted(job.journal[h])
            wfile(d, "journal-docker-%s.txt" % h, ["%s %s %s[%d]: %s" % (job.syslog(h, t), h, p, rng.randint(900, 3000), ln) for t, p, ln in ents])
    mem = " --memory=%dg" % job.mem_limit if getattr(job, "mem_limit", None) else ""
    run = ["#!/bin/bash", "# launched on each host with NODE_RANK set", "docker run -d --name %s --gpus all --network host %s--ulimit memlock=-1 --ulimit stack=67108864%s \\" % (job.units[0]["name"], shm_flag, mem),
           "  -v /data:/data:ro -v $PWD/outputs:/workspace/outputs \\",
           "  -e NCCL_DEBUG=%s -e NCCL_SOCKET_IFNAME=%s \\" % ("INFO" if job.nccl_info else "WARN", job.iface),
           "  %s \\" % job.image,
           "  torchrun --nnodes=%d --node-rank=$NODE_RANK --nproc-per-node=%d --master-addr=%s --master-port=29500 /workspace/%s" % (len(job.units), len(job.units[0]["ranks"]), job.host_ip[job.hosts[0]], job.script)]
    wfile(d, "run.sh", run)
    for k, v in job.extra_files.items():
        wfile(d, k, v)


def slurm_time(job, h, t):
    return job.clk(h, t).strftime("%Y-%m-%dT%H:%M:%S")


def slurm_tail(job, width):
    """srun / slurmstepd messages at the end of the job."""
    rng = job.rng
    out = []
    sc = getattr(job, "slurm_cancel", None)
    if sc:
        tf, why = sc
        for u in (job.units if job.agent else job.units[:1]):
            out.append((tf, "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s DUE TO %s ***" % (job.jobid, u["host"], slurm_time(job, u["host"], tf), why)))
        out.append((tf - 0.01, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO %s ***" % (job.jobid, job.hosts[0], slurm_time(job, job.hosts[0], tf), why)))
        out.append((tf + 0.1, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish."))
        return out
    if job.healthy or getattr(job, "still_running", False):
        return out
    so = getattr(job, "slurm_oom", None)
    if so:
        out.append((job.end_t, "slurmstepd: error: Detected 1 oom_kill event in StepId=%d.0. Some of the step tasks have been OOM Killed." % job.jobid))
    ends = []
    for ui, u in enumerate(job.units):
        st = job.unit_state[ui]
        if st["reason"] in ("Running",):
            continue
        ends.append((st.get("end") or job.end_t, ui, st))
    ends.sort()
    first = True
    for t, ui, st in ends:
        u = job.units[ui]
        code = st.get("code")
        if so and job.host_of(so[1]) == u["host"] and (not job.agent and so[1] in u["ranks"] or job.agent):
            out.append((t + 0.5, "srun: error: %s: task %d: Out Of Memory" % (u["host"], ui)))
        elif code == -9 or st["reason"] == "Killed":
            out.append((t + 0.5, "srun: error: %s: task %d: Killed" % (u["host"], ui)))
        elif code is not None and code > 128:
            out.append((t + 0.5, "srun: error: %s: task %d: %s" % (u["host"], ui, {134: "Aborted (core dumped)", 139: "Segmentation fault (core dumped)", 137: "Killed", 143: "Terminated"}.get(code, "Exited with exit code %d" % code))))
        else:
            out.append((t + 0.5, "srun: error: %s: task %d: Exited with exit code %d" % (u["host"], ui, code if code is not None else 1)))
        if first and getattr(job, "t_kill", None):
            out.append((t + 0.6, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish."))
            out.append((t + 0.7, "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s ***" % (job.jobid, job.hosts[0], slurm_time(job, job.hosts[0], t + 0.7))))
        first = False
    return out


def labeled(job, width, streams_filter=None):
    ents = []
    for ui, u in enumerate(job.units):
        wk = getattr(job, "whole_killed", None)
        for e in job.streams[ui]:
            if wk and wk[0] == ui and e[0] > wk[1]:
                continue
            if streams_filter and e[2] != streams_filter:
                continue
            ents.append((e[0] + job.skew[u["host"]] * 0.0, "%*d: %s" % (width, ui, e[1])))
    ents.sort(key=lambda x: x[0])
    return ents


def write_slurm_pyxis(job, d):
    rng = job.rng
    width = len(str(len(job.units) - 1))
    img = job.image.replace("nvcr.io/", "nvcr.io#") if job.image.startswith("nvcr.io") else job.image
    head = ["Job %d on %s" % (job.jobid, ",".join(job.hosts)) if rng.random() < 0.5 else "MASTER_ADDR=%s MASTER_PORT=%d" % (job.hosts[0], rng.choice([29500, 6000, 12345]))]
    for u in job.units:
        head.append("pyxis: importing docker image: %s" % img)
        head.append("pyxis: imported docker image: %s" % img)
    ents = labeled(job, width) + slurm_tail(job, width)
    ents.sort(key=lambda x: x[0])
    body = [e[1] for e in ents]
    wfile(d, "slurm-%d.out" % job.jobid, head + maybe_cut(job, body, 0.2))
    write_sacct(job, d)
    cand = [h for h in job.hosts if job.dmesg[h]] or job.hosts
    if rng.random() < 0.55:
        h = rng.choice(cand) if rng.random() < 0.75 else rng.choice(job.hosts)
        wfile(d, "dmesg-%s.txt" % h, render_dmesg(job, h, human=True))
    for k, v in job.extra_files.items():
        wfile(d, k, v)


def write_sacct(job, d):
    rng = job.rng
    sc = getattr(job, "slurm_cancel", None)
    if job.healthy:
        state, ec = "COMPLETED", "0:0"
    elif getattr(job, "still_running", False):
        state, ec = "RUNNING", "0:0"
    elif sc:
        state, ec = ("TIMEOUT", "0:0") if sc[1] == "TIME LIMIT" else ("PREEMPTED", "0:0")
    elif getattr(job, "slurm_oom", None):
        state, ec = "OUT_OF_ME+", "0:125"
    else:
        state, ec = "FAILED", "1:0"
    el = str(timedelta(seconds=int(job.end_t)))
    rows = ["JobID           JobName  Partition    Account  AllocCPUS      State ExitCode    Elapsed        NodeList ",
            "------------ ---------- ---------- ---------- ---------- ---------- -------- ---------- --------------- "]
    nl = "%s[%s]" % (job.hosts[0].rstrip("0123456789"), ",".join(h[len(job.hosts[0].rstrip("0123456789")):] for h in job.hosts)) if len(job.hosts) > 1 else job.hosts[0]
    part = rng.choice(["gpu", "a100", "h100", "batch"])
    rows.append("%-12d %10s %10s %10s %10d %10s %8s %10s %15s " % (job.jobid, job.jobname[:10], part, "ml", 64 * len(job.hosts), state, ec, el, nl[:15]))
    rows.append("%-12s %10s %10s %10s %10d %10s %8s %10s %15s " % ("%d.batch" % job.jobid, "batch", "", "ml", 64, "CANCELLED" if sc else ("FAILED" if state == "FAILED" else state), ec if not sc else "0:15", el, job.hosts[0][:15]))
    rows.append("%-12s %10s %10s %10s %10d %10s %8s %10s %15s " % ("%d.0" % job.jobid, "python" if not job.agent else "torchrun", "", "ml", 64 * len(job.hosts), "CANCELLED" if sc else state, ec if not sc else "0:15", el, nl[:15]))
    wfile(d, "sacct.txt", rows)


def write_slurm_apptainer(job, d):
    rng = job.rng
    width = len(str(len(job.units) - 1))
    sif = rng.choice(["/shared/containers/pytorch_%s.sif" % job.torch, "$HOME/images/trainer.sif", "/scratch/%s/pt.sif" % rng.choice(["alice", "bwang", "kdas"])])
    info_err = []
    if rng.random() < 0.5:
        info_err.append("INFO:    Converting SIF file to temporary sandbox...")
    for ui in range(len(job.units)):
        if rng.random() < 0.5:
            info_err.append("%*d: WARNING: underlay of /etc/localtime required more than 50 (%d) bind mounts" % (width, ui, rng.randint(60, 99)))
        if job.healthy and rng.random() < 0.15:
            info_err.append("%*d: WARNING: Could not find any nv files on this host!" % (width, ui)) if False else None
    info_err = [x for x in info_err if x]
    out_ents = labeled(job, width, "out")
    err_ents = labeled(job, width, "err") + slurm_tail(job, width)
    err_ents.sort(key=lambda x: x[0])
    head = ["# srun -l --mpi=pmix apptainer exec --nv --bind /data:/data %s python /workspace/%s" % (sif, job.script) if rng.random() < 0.3 else "Starting %s on %d tasks (%s)" % (job.jobname, job.world, ",".join(job.hosts))]
    wfile(d, "%s-%d.out" % (job.jobname, job.jobid), head + maybe_cut(job, [e[1] for e in out_ents], 0.2))
    err = info_err + [e[1] for e in err_ents]
    if getattr(job, "slurm_cancel", None) is None and not job.healthy and not getattr(job, "still_running", False) and rng.random() < 0.3:
        err.append("INFO:    Cleaning up image...")
    wfile(d, "%s-%d.err" % (job.jobname, job.jobid), err)
    write_sacct(job, d)
    if rng.random() < 0.5:
        cand = [h for h in job.hosts if job.dmesg[h]] or job.hosts
        h = rng.choice(cand)
        wfile(d, "dmesg-%s.txt" % h, render_dmesg(job, h, human=rng.random() < 0.5))
    for k, v in job.extra_files.items():
        wfile(d, k, v)


def write_k8s_shared(job, d):
    rng = job.rng
    base_events(job)
    ts = rng.random() < 0.5
    mode = job.share_mode
    for ui, u in enumerate(job.units):
        lines = pod_stream(job, ui, ts)
        if mode == "mig" and rng.random() < 0.6:
            r = u["ranks"][0]
            lines = ["GPU 0: %s (UUID: %s)" % (job.gpu_name, job.gpu_uuid[(u["host"], job.rank_gpu[r][0])]),
                     "  MIG %s     Device  0: (UUID: %s)" % (job.mig_profile, job.mig_uuid[r])] + lines
        if getattr(job, "lost_logs", None) == ui:
            lines = ['Error from server (BadRequest): previous terminated container "pytorch" in pod "%s" not found' % u["name"]]
        wfile(d, "kubectl-logs-%s.txt" % u["name"], lines)
    res = "nvidia.com/mig-%s" % job.mig_profile if mode == "mig" else ("nvidia.com/gpu.shared" if rng.random() < 0.3 and mode == "time-slicing" else "nvidia.com/gpu")
    desc = []
    for ui in range(len(job.units)):
        desc += describe_pod(job, ui, res_name=res, res_n=1, shm=not job.shm_small) + [""]
    wfile(d, "kubectl-describe-pods.txt", desc)
    wfile(d, "kubectl-get-events.txt", events_table(job))
    for h in job.hosts:
        short = h.split(".")[0]
        wfile(d, "device-plugin-%s.log" % short, device_plugin_log(job, h))
    # nvidia-smi from the node of interest (or first)
    focus = job.truth_node if job.rng.random() < 0.8 else None
    for a in ("tenant_on", "smi_broken", "ecc_q", "throttle", "straggler", "dup"):
        v = getattr(job, a, None)
        if v and focus is None:
            focus = v[0]
            break
    h = focus or job.hosts[0]
    if mode == "mig":
        gpus = sorted({job.rank_gpu[r][0] for r in range(job.world) if job.host_of(r) == h}) or [0]
        mig = []
        procs = {}
        for r in range(job.world):
            if job.host_of(r) == h:
                gi = job.rank_gpu[r][0]
                mig.append((gi, rng.choice([1, 2, 5]), 0, job.mig_profile))
                if job.rank_end.get(r) is None:
                    procs.setdefault(gi, []).append((job.rank_hostpid[r], "/usr/bin/python", rng.randint(9000, 30000), mig[-1][1]))
        wfile(d, "nvidia-smi-%s.txt" % h.split(".")[0], smi_table(job, h, gpus, procs, mig=mig) + ["", "$ nvidia-smi -L"] +
              sum([["GPU %d: %s (UUID: %s)" % (gi, job.gpu_name, job.gpu_uuid[(h, gi)])] +
                   ["  MIG %s     Device  0: (UUID: %s)" % (job.mig_profile, job.mig_uuid[r]) for r in range(job.world) if job.host_of(r) == h and job.rank_gpu[r][0] == gi] for gi in gpus], []))
    else:
        wfile(d, "nvidia-smi-%s.txt" % h.split(".")[0], smi_for_host(job, h))
    if rng.random() < 0.5 or job.dmesg[h]:
        wfile(d, "dmesg-%s.txt" % h.split(".")[0], render_dmesg(job, h, human=True))
    for k, v in job.extra_files.items():
        wfile(d, k, v)


WRITERS = {"k8s-pytorchjob": write_k8s_pytorchjob, "k8s-node-debug": write_k8s_node_debug, "docker": write_docker,
           "slurm-pyxis": write_slurm_pyxis, "slurm-apptainer": write_slurm_apptainer, "k8s-shared-gpu": write_k8s_shared}


# ----------------------------------------------------------------------------------------
# Driver
# ----------------------------------------------------------------------------------------
def make_run(seed, i, layout, cause, outdir):
    rng = random.Random("blind44-%s-%d-%s-%s" % (seed, i, layout, cause))
    healthy = cause is None
    job = Job(rng, layout, cause or "healthy", healthy)
    setup(job)
    if healthy:
        tr = c_healthy(job)
    else:
        tr = CAUSE_FN[cause](job)
    job.truth_node = tr.get("node")
    d = os.path.join(outdir, "run-%03d-%s" % (i, layout))
    os.makedirs(d, exist_ok=True)
    WRITERS[layout](job, d)
    init = None if healthy else {"rank": tr.get("rank"), "node": tr.get("node")}
    if init is not None and init["node"] is not None:
        # only claim a node the bundle actually names somewhere
        found = False
        for dp, _, fs in os.walk(d):
            for f in fs:
                if init["node"] in f or init["node"].split(".")[0] in f:
                    found = True
                elif init["node"] in open(os.path.join(dp, f), encoding="utf-8").read():
                    found = True
        if not found:
            init["node"] = None
            tr["notes"] = tr.get("notes", "") + " (host name does not appear in the attached files, so node is left null)"
    truth = {"healthy": healthy, "cause": cause, "initiator": init, "layout": layout, "notes": tr.get("notes", "")}
    wfile(d, "truth.json", json.dumps(truth, indent=2))
    return truth


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--seed", default="1")
    a = ap.parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    corder = list(CAUSES)
    random.Random("blind44-causes-%s" % a.seed).shuffle(corder)
    lorder = list(LAYOUTS)
    random.Random("blind44-layouts-%s" % a.seed).shuffle(lorder)
    counts = {}
    k = 0
    for i in range(a.n):
        if i % 7 == 3:
            cause = None
        else:
            cause = corder[k % len(corder)]
            k += 1
        # layout: rotate, offset each full cause cycle so pairs vary
        li = (i + k // len(corder)) % len(lorder)
        layout = lorder[li]
        j = 0
        while cause is not None and cause not in SUPPORT[layout]:
            j += 1
            layout = lorder[(li + j) % len(lorder)]
        make_run(a.seed, i, layout, cause, a.out)
        key = cause or "healthy"
        counts[key] = counts.get(key, 0) + 1
    print(json.dumps({c: counts[c] for c in sorted(counts)}, indent=1))


if __name__ == "__main__":
    main()
