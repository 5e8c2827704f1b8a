#!/usr/bin/env python3
"""Independent generator of synthetic failed distributed-training runs (blind benchmark).

Written from public message formats only (PyTorch c10d / torchelastic, NCCL, Slurm, Linux
kernel, NVIDIA driver, DeepSpeed launcher, Kubernetes), not from rankdoctor's own rules.

    python3 bench/blind/gen_blind.py --out RUNS_DIR --n 60 --seed 1

Each run is a folder ``run-NNN-<layout>`` holding the logs and ``truth.json``::

    {"cause": ..., "rank": int|null, "node": str|null, "drain": bool, "healthy": bool, ...}

"rank_inferable": false marks runs whose logs cannot name the rank (Xid 79 without NCCL busId
lines, an old-PyTorch hang); score_blind.py then checks the node. k8s runs add "node_aliases"
(the Kubernetes node that hosts the pod, named in pods.txt and in the kernel log path).

Standard library only; the same seed always writes the same bytes.
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import random
import shutil

UTC = dt.UTC

CAUSES = [
    "gpu_hardware", "ecc_memory", "nvlink", "network", "host_oom_kill", "cuda_oom",
    "python_exception", "crash_signal", "hang", "collective_mismatch", "data_loader_stall",
    "preemption", "healthy",
]
DRAIN = {"gpu_hardware", "ecc_memory", "nvlink", "network"}
LAYOUTS = ["torchrun_logdir", "slurm_task", "combined", "pernode", "k8s", "deepspeed"]

BUS8 = [["18", "2a", "3a", "5d", "9a", "ab", "ba", "db"],
        ["07", "0f", "47", "4e", "87", "90", "b7", "bd"],
        ["19", "3b", "4c", "5d", "9b", "bb", "cb", "db"],
        ["1b", "43", "52", "61", "9d", "c3", "d1", "df"]]
BUS4 = [["07", "0f", "47", "4e"], ["31", "4b", "ca", "e3"], ["3b", "5e", "86", "af"]]
NIC_BUS = ["0c", "1a", "3c", "4b", "8a", "9c", "ba", "cc"]

NCCL_VERSIONS = {"2.1": "2.18.6", "2.3": "2.20.5", "2.5": "2.21.5"}
GPU_NAMES = ["NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-80GB", "NVIDIA H200"]
MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
DAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]


# ----------------------------------------------------------------------------- time formats
def f_py(t):  # python logging asctime
    return t.strftime("%Y-%m-%d %H:%M:%S,") + "%03d" % (t.microsecond // 1000)


def f_glog(t, level="E"):  # glog / c10::Logging header body (no year)
    return "%s%s %s.%06d%03d" % (level, t.strftime("%m%d"), t.strftime("%H:%M:%S"),
                                 t.microsecond, (t.microsecond * 7) % 1000)


def f_glog_short(t, level="W"):
    return "%s%s %s.%06d" % (level, t.strftime("%m%d"), t.strftime("%H:%M:%S"), t.microsecond)


def f_iso_z(t):
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + "%06d%03dZ" % (t.microsecond, (t.microsecond * 3) % 1000)


def f_syslog(t):
    return "%s %2d %s" % (MONTHS[t.month - 1], t.day, t.strftime("%H:%M:%S"))


def f_journal(t):
    return "%s %02d %s" % (MONTHS[t.month - 1], t.day, t.strftime("%H:%M:%S"))


def f_dmesg_t(t):
    return "[%s %s %2d %s %d]" % (DAYS[t.weekday()], MONTHS[t.month - 1], t.day,
                                  t.strftime("%H:%M:%S"), t.year)


def hsize(rng, lo, hi):
    v = rng.uniform(lo, hi)
    return "%.2f GiB" % v


# ----------------------------------------------------------------------------- the run model
class Run:
    def __init__(self, rng: random.Random, idx: int, cause: str, layout: str):
        self.rng = rng
        self.idx = idx
        self.cause = cause
        self.layout = layout
        r = rng
        self.gpn = r.choice([4, 8, 8])
        max_nodes = min(32, 256 // self.gpn)
        min_nodes = 2 if self.gpn == 4 else 1
        if cause == "network":
            min_nodes = max(min_nodes, 2)
        # bias towards small/medium jobs but reach the top end sometimes
        nn = round(min_nodes + (max_nodes - min_nodes) * (r.random() ** 2.2))
        self.nnodes = max(min_nodes, min(max_nodes, nn))
        self.world = self.nnodes * self.gpn
        style = r.choice(["node-%02d", "gpu%03d", "dgx-h100-%02d", "c561-%03d", "ip-10-4-%d-17",
                          "a3-mega-%04d"])
        base = r.randint(1, 40)
        self.k8s = layout == "k8s"
        self.job = r.choice(["llama-pretrain", "gpt-ft", "mixtral-sft", "vit-l-train", "t5-xl"])
        if self.k8s:
            self.pytorchjob = r.random() < 0.5
            if self.pytorchjob:
                self.nodes = ["%s-master-0" % self.job] + ["%s-worker-%d" % (self.job, i)
                                                           for i in range(self.nnodes - 1)]
            else:
                self.nodes = ["%s-worker-%d" % (self.job, i) for i in range(self.nnodes)]
            self.k8s_nodes = ["gke-a3-pool-%s-%s" % (rng.choice(["4f2a", "91bc", "d0e7"]),
                                                      "".join(rng.choice("abcdefghjklmnpqrstvwxz2456789")
                                                              for _ in range(4)))
                              for _ in range(self.nnodes)]
        else:
            self.nodes = [style % (base + i) for i in range(self.nnodes)]
            self.k8s_nodes = None
        self.ips = ["10.%d.%d.%d" % (r.randint(0, 200), r.randint(0, 250), r.randint(2, 250))
                    for _ in range(self.nnodes)]
        self.bus = []
        for _ in range(self.nnodes):
            self.bus.append(list(r.choice(BUS8 if self.gpn == 8 else BUS4)))
        self.domain = r.choice(["0000", "0000", "0000", "0008"])
        self.pid = {}
        self.tid = {}
        for n in range(self.nnodes):
            p0 = r.randint(2000, 3900000)
            for lr in range(self.gpn):
                g = n * self.gpn + lr
                self.pid[g] = p0 + lr * r.randint(1, 9) + lr
                self.tid[g] = self.pid[g] + r.randint(30, 900)
        self.agent_pid = {n: r.randint(1000, 3900000) for n in range(self.nnodes)}
        self.era = r.choice(["2.1", "2.3", "2.5", "2.5"])
        self.nccl_ver = NCCL_VERSIONS[self.era]
        self.nccl_info = r.random() < 0.7
        self.nccl_ts = self.era == "2.5" and r.random() < 0.5
        self.gpu_name = r.choice(GPU_NAMES)
        self.step_fmt = r.choice(["hf", "lightning", "megatron", "plain"])
        self.all_rank_steps = self.step_fmt == "plain" and r.random() < 0.5
        self.timeout_ms = r.choice([600000, 600000, 600000, 1800000, 900000])
        if self.era == "2.1" and r.random() < 0.5:
            self.timeout_ms = 1800000
        self.slurm = layout == "slurm_task" or (layout in ("torchrun_logdir", "combined", "pernode")
                                                and r.random() < 0.6)
        self.launcher = {"slurm_task": "srun", "deepspeed": "deepspeed"}.get(layout, "torchrun")
        self.jobid = r.randint(100000, 9999999)
        self.run_id = r.choice(["none", "%d" % self.jobid, "llm-%04x" % r.randint(0, 65535)])
        self.script = r.choice(["train.py", "pretrain_gpt.py", "finetune.py", "main.py"])
        self.py = r.choice(["/usr/bin/python3", "/opt/conda/bin/python3.10", "/usr/bin/python"])
        self.site = r.choice(["/usr/local/lib/python3.10/dist-packages",
                              "/opt/conda/lib/python3.11/site-packages",
                              "/usr/lib/python3/dist-packages"])
        self.t0 = dt.datetime(2024, 1, 1, tzinfo=UTC) + dt.timedelta(
            seconds=r.randint(0, 86400 * 700), microseconds=r.randint(0, 999999))
        self.skew = [r.uniform(-2.5, 2.5) for _ in range(self.nnodes)]
        self.kskew = [s + r.uniform(-0.3, 0.3) for s in self.skew]
        self.uptime = [r.uniform(3600 * 5, 86400 * 60) for _ in range(self.nnodes)]
        self.kernel_fmt = r.choice(["dmesg", "dmesg_T", "kern", "journal", "kern_iso"])
        self.kernel_file = {"dmesg": "dmesg.log", "dmesg_T": "dmesg.log", "kern": "kern.log",
                            "journal": "journalctl.txt", "kern_iso": "kern.log"}[self.kernel_fmt]
        self.step_time = r.uniform(0.35, 4.0)
        self.coll_per_step = r.choice([1, 3, 7, 12, 26, 41])
        # logs: per rank [(t, stream, text)], per node agent [(t, text)], kernel, job-level
        self.rl = {g: [] for g in range(self.world)}
        self.agent = {n: [] for n in range(self.nnodes)}
        self.kern = {n: [] for n in range(self.nnodes)}
        self.jobout = []
        self.extra = {}
        self.truth = {"cause": cause, "rank": None, "node": None, "drain": cause in DRAIN,
                      "healthy": cause == "healthy"}
        self.kernel_present = False
        self.seq = 0
        self.killed_at = {}

    # -- helpers
    def node_of(self, g):
        return g // self.gpn

    def lr_of(self, g):
        return g % self.gpn

    def host(self, g):
        return self.nodes[self.node_of(g)]

    def busid_nccl(self, g):
        n, lr = self.node_of(g), self.lr_of(g)
        return "%s000" % self.bus[n][lr].lstrip("0") if self.domain == "0000" else \
            "%s%s000" % (self.domain.lstrip("0"), self.bus[n][lr])

    def pci(self, n, lr):
        return "%s:%s:00" % (self.domain, self.bus[n][lr])

    def lt(self, g, t):  # local clock of a rank
        return t + dt.timedelta(seconds=self.skew[self.node_of(g)])

    def emit(self, g, t, text, stream="err"):
        self.rl[g].append((self.lt(g, t), stream, text))

    def emit_lines(self, g, t, lines, stream="err"):
        for i, ln in enumerate(lines):
            self.emit(g, t + dt.timedelta(microseconds=37 * i), ln, stream)

    def agent_emit(self, n, t, text):
        self.agent[n].append((t + dt.timedelta(seconds=self.skew[n]), text))

    def kern_emit(self, n, t, text):
        self.kern[n].append((t + dt.timedelta(seconds=self.kskew[n]), text))
        self.kernel_present = True

    # -- c10d message prefixes
    def c10d(self, g, t, level, line_no, body, pg=True):
        if self.era == "2.1":
            head = "[%s ProcessGroupNCCL.cpp:%d] " % (level, line_no)
            pgp = ""
        elif self.era == "2.3":
            head = "[rank%d]:[%s ProcessGroupNCCL.cpp:%d] " % (g, level, line_no)
            pgp = "[PG 0 Rank %d] " % g
        else:
            head = "[rank%d]:[%s ProcessGroupNCCL.cpp:%d] " % (g, f_glog(self.lt(g, t), level), line_no)
            pgp = "[PG ID 0 PG GUID 0(default_pg) Rank %d] " % g
        return head + (pgp if pg else "") + body

    def nccl_line(self, g, t, body, warn_src=None):
        h = self.host(g)
        pre = "%s:%d:%d [%d] " % (h, self.pid[g], self.tid[g], self.lr_of(g))
        if warn_src:
            ts = ("[%s] " % self.lt(g, t).strftime("%Y-%m-%d %H:%M:%S")) if self.nccl_ts else ""
            return ts + pre + "%s NCCL WARN %s" % (warn_src, body)
        return pre + "NCCL INFO " + body

    def ws_dump_ts(self, t):
        return t.strftime("%Y-%m-%d_%H:%M:%S")

    # -- torchelastic agent lines
    def ea(self, n, t, level, mod, line, msg):
        """torchelastic log line in the era's format."""
        lt = t + dt.timedelta(seconds=self.skew[n])
        if self.era == "2.1":
            return "%s:%s:%s" % ({"W": "WARNING", "E": "ERROR", "I": "INFO"}[level],
                                 mod.replace("/", ".").replace(".py", ""), msg)
        if self.era == "2.3":
            return "[%s] %s: [%s] %s" % (f_py(lt), mod.replace("/", ".").replace(".py", ""),
                                         {"W": "WARNING", "E": "ERROR", "I": "INFO"}[level], msg)
        return "%s %d %s:%d] %s" % (f_glog_short(lt, level), self.agent_pid[n], mod, line, msg)


# ----------------------------------------------------------------------------- normal training
def startup(run: Run):
    r = run.rng
    t = run.t0
    for n in range(run.nnodes):
        if run.launcher == "torchrun":
            if run.era == "2.5":
                run.agent_emit(n, t, run.ea(n, t, "W", "torch/distributed/run.py", 793, ""))
            msgs = ["*****************************************",
                    "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default,"
                    " to avoid your system being overloaded, please further tune the variable for optimal"
                    " performance in your application as needed. ",
                    "*****************************************"]
            for m in msgs:
                run.agent_emit(n, t, m)
            if r.random() < 0.3 and run.nnodes > 1:
                tt = t + dt.timedelta(seconds=r.uniform(1, 20))
                run.agent_emit(n, tt, "[W socket.cpp:464] [c10d] The server socket has failed to bind to"
                               " [::]:29500 (errno: 98 - Address already in use)." if n == 0 else
                               "[W socket.cpp:697] [c10d] The client socket has failed to connect to [%s]:29500"
                               " (errno: 111 - Connection refused)." % run.nodes[0])
        elif run.launcher == "deepspeed":
            lt = t + dt.timedelta(seconds=run.skew[n])
            mapping = ", ".join("'%s': [%s]" % (run.nodes[k], ", ".join(str(k * run.gpn + i) for i in range(run.gpn)))
                                for k in range(run.nnodes))
            world = ", ".join("'%s': [%s]" % (run.nodes[k], ", ".join(str(i) for i in range(run.gpn)))
                              for k in range(run.nnodes))
            for ln, m in [(138, "0 NCCL_IB_DISABLE=0"), (145, "WORLD INFO DICT: {%s}" % world),
                          (151, "nnodes=%d, num_local_procs=%d, node_rank=%d" % (run.nnodes, run.gpn, n)),
                          (162, "global_rank_mapping=defaultdict(<class 'list'>, {%s})" % mapping),
                          (163, "dist_world_size=%d" % run.world),
                          (165, "Setting CUDA_VISIBLE_DEVICES=%s" % ",".join(str(i) for i in range(run.gpn)))]:
                run.agent_emit(n, t, "[%s] [INFO] [launch.py:%d:main] %s" % (f_py(lt), ln, m))
            for lr in range(run.gpn):
                g = n * run.gpn + lr
                run.agent_emit(n, t, "[%s] [INFO] [launch.py:256:main] process %d spawned with command: "
                               "['%s', '-u', '%s', '--local_rank=%d', '--deepspeed', 'ds_config.json']"
                               % (f_py(lt), run.pid[g], run.py, run.script, lr))
    # rank startup
    for g in range(run.world):
        tt = t + dt.timedelta(seconds=r.uniform(4, 12))
        if r.random() < 0.5:
            run.emit(g, tt, "%s/torch/cuda/amp/grad_scaler.py:132: FutureWarning: `torch.cuda.amp.GradScaler(args...)`"
                     " is deprecated. Please use `torch.amp.GradScaler('cuda', args...)` instead." % run.site)
            run.emit(g, tt, "  warnings.warn(")
        if run.nccl_info:
            run.host(g)
            n = run.node_of(g)
            ip = run.ips[n]
            if g == 0:
                run.emit(g, tt, run.nccl_line(g, tt, "Bootstrap : Using eth0:%s<0>" % ip), "out")
                run.emit(g, tt, "NCCL version %s+cuda12.%d" % (run.nccl_ver, r.choice([1, 2, 4])), "out")
            elif r.random() < 0.6:
                run.emit(g, tt, run.nccl_line(g, tt, "Bootstrap : Using eth0:%s<0>" % ip), "out")
            run.emit(g, tt, run.nccl_line(g, tt, "NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [2]mlx5_2:1/IB"
                                          " [3]mlx5_3:1/IB ; OOB eth0:%s<0>" % ip), "out")
            comm = "0x%x" % (0x55d0c8a00000 + r.randint(0, 0xfffff))
            commid = "0x%x" % (0x3fa1b2c3d4e5f600 + 0)
            ti = tt + dt.timedelta(seconds=r.uniform(0.5, 3))
            run.emit(g, ti, run.nccl_line(g, ti, "comm %s rank %d nranks %d cudaDev %d nvmlDev %d busId %s"
                                          " commId %s - Init START" % (comm, g, run.world, run.lr_of(g), run.lr_of(g),
                                                                         run.busid_nccl(g), commid)), "out")
            run.emit(g, ti, run.nccl_line(g, ti, "Channel 00/0 : %d[%d] -> %d[%d] via P2P/IPC/read" % (
                g, run.lr_of(g), (g + 1) % run.world, run.lr_of((g + 1) % run.world))), "out")
            tc = ti + dt.timedelta(seconds=r.uniform(1, 6))
            run.emit(g, tc, run.nccl_line(g, tc, "comm %s rank %d nranks %d cudaDev %d nvmlDev %d busId %s"
                                          " commId %s - Init COMPLETE" % (comm, g, run.world, run.lr_of(g),
                                                                            run.lr_of(g), run.busid_nccl(g),
                                                                            commid)), "out")
        if g == 0 and run.step_fmt == "hf":
            lt = run.lt(g, tt)
            run.emit(g, tt, "[INFO|trainer.py:2128] %s >> ***** Running training *****" % f_py(lt))
            run.emit(g, tt, "[INFO|trainer.py:2129] %s >>   Num examples = %s" % (f_py(lt), format(r.randint(10**5, 10**8), ",")))
            run.emit(g, tt, "[INFO|trainer.py:2135] %s >>   Total train batch size (w. parallel, distributed & accumulation) = %d"
                     % (f_py(lt), run.world * 16))
        if g == 0 and run.step_fmt == "lightning":
            run.emit(g, tt, "Initializing distributed: GLOBAL_RANK: 0, MEMBER: 1/%d" % run.world)
            run.emit(g, tt, "LOCAL_RANK: 0 - CUDA_VISIBLE_DEVICES: [%s]" % ",".join(str(i) for i in range(run.gpn)))
        if run.step_fmt == "lightning" and g > 0 and r.random() < 0.3:
            run.emit(g, tt, "Initializing distributed: GLOBAL_RANK: %d, MEMBER: %d/%d" % (g, g + 1, run.world))
        if run.step_fmt == "megatron" and g == 0:
            run.emit(g, tt, "> initializing torch distributed ...", "out")
            run.emit(g, tt, "> initialized tensor model parallel with size %d" % min(8, run.gpn), "out")
    return t + dt.timedelta(seconds=r.uniform(30, 90))


def step_line(run: Run, g, t, step, total):
    r = run.rng
    loss = 2.0 + 6.0 * (0.97 ** (step / 40.0)) + r.uniform(-0.05, 0.05)
    lt = run.lt(g, t)
    if run.step_fmt == "hf":
        if r.random() < 0.3:
            return ("err", "%3d%%|%s| %d/%d [%02d:%02d<%02d:%02d, %.2fs/it]" % (
                100 * step // total, "█" * (10 * step // total) + " " * (10 - 10 * step // total), step, total,
                int(step * run.step_time) // 60 % 60, int(step * run.step_time) % 60, 1, 2, run.step_time))
        return ("out", "{'loss': %.4f, 'grad_norm': %.4f, 'learning_rate': %.4e, 'epoch': %.2f}" % (
            loss, r.uniform(0.2, 3), 3e-4 * (1 - step / (total * 1.2)), step / total * 3))
    if run.step_fmt == "lightning":
        e = step * 3 // total
        within = step % max(1, total // 3)
        return ("err", "Epoch %d:  %d%%|%s| %d/%d [%02d:%02d<%02d:%02d, %.2fit/s, v_num=%d, train_loss=%.3f]" % (
            e, 100 * within // max(1, total // 3), "█" * 4, within, total // 3, 1, 2, 3, 4,
            1 / run.step_time, run.idx, loss))
    if run.step_fmt == "megatron":
        return ("out", " [%s] iteration %8d/%8d | consumed samples: %12d | elapsed time per iteration (ms): %.1f |"
                       " learning rate: %.3E | global batch size: %5d | lm loss: %.6E | loss scale: 1.0 |"
                       " grad norm: %.3f | number of skipped iterations:   0 | number of nan iterations:   0 |" % (
                           lt.strftime("%Y-%m-%d %H:%M:%S"), step, total, step * 1024,
                           run.step_time * 1000 * r.uniform(0.97, 1.03), 3e-4, 1024, loss, r.uniform(0.2, 2)))
    if run.all_rank_steps:
        return ("err", "%s INFO [rank %d] step %d/%d loss=%.4f lr=%.3e step_time=%.3fs" % (
            f_py(lt), g, step, total, loss, 3e-4, run.step_time * r.uniform(0.95, 1.05)))
    return ("err", "%s - INFO - __main__ - step %d | loss %.4f | lr %.3e | %.3f s/it | tokens/s %d" % (
        f_py(lt), step, loss, 3e-4, run.step_time * r.uniform(0.95, 1.05), r.randint(200000, 900000)))


def train(run: Run, t_start, fail_step, total_steps, stopped=None):
    """Step lines up to fail_step. Returns the time of the last completed step.
    stopped: {rank: step} ranks that stop logging earlier."""
    r = run.rng
    every = max(1, fail_step // r.randint(25, 60))
    loggers = list(range(run.world)) if run.all_rank_steps else \
        ([run.world - 1] if run.step_fmt == "megatron" else [0])
    t = t_start
    for s in range(1, fail_step + 1):
        t = t_start + dt.timedelta(seconds=s * run.step_time)
        if s % every == 0 or s == fail_step:
            for g in loggers:
                if stopped and g in stopped and s > stopped[g]:
                    continue
                tj = t + dt.timedelta(milliseconds=r.randint(0, 40))
                st, txt = step_line(run, g, tj, s, total_steps)
                run.emit(g, tj, txt, st)
            if s == every * 7 and r.random() < 0.4:
                g = r.choice(loggers)
                run.emit(g, t, "%s/torch/utils/checkpoint.py:1399: FutureWarning: `torch.cpu.amp.autocast(args...)` is "
                         "deprecated. Please use `torch.amp.autocast('cpu', args...)` instead." % run.site)
        if s == fail_step // 2 and r.random() < 0.5:
            # checkpoint + recovered retry
            run.emit(0, t, "%s - INFO - checkpoint - saving checkpoint to /ckpt/%s/step_%d" % (
                f_py(run.lt(0, t)), run.job, s), "err")
            if r.random() < 0.5:
                run.emit(0, t + dt.timedelta(seconds=2), "%s - WARNING - checkpoint - upload attempt 1/3 failed: "
                         "[Errno 104] Connection reset by peer; retrying in 5s" % f_py(run.lt(0, t + dt.timedelta(seconds=2))))
                run.emit(0, t + dt.timedelta(seconds=8), "%s - INFO - checkpoint - saved checkpoint step_%d (attempt 2/3)" % (
                    f_py(run.lt(0, t + dt.timedelta(seconds=8))), s))
    return t


def benign_kernel(run: Run):
    r = run.rng
    run.trap_node = r.randrange(run.nnodes) if r.random() < 0.2 else -1
    for n in range(run.nnodes):
        tb = run.t0 - dt.timedelta(seconds=r.uniform(600, 7200))
        run.kern_emit(n, tb, "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.90.07  Fri May 31 09:35:42 UTC 2024")
        run.kern_emit(n, tb + dt.timedelta(seconds=2), "nvidia-peermem: module verification failed: signature and/or"
                      " required key missing - tainting kernel")
        run.kern_emit(n, tb + dt.timedelta(seconds=40), "mlx5_core 0000:%s:00.0: mlx5_pcie_event:301:(pid %d): PCIe slot "
                      "advertised sufficient power (75W)." % (r.choice(NIC_BUS), r.randint(100, 900)))
        run.kern_emit(n, tb + dt.timedelta(seconds=60), "IPv6: ADDRCONF(NETDEV_CHANGE): ib0: link becomes ready")
        if n == run.trap_node:
            # an application fault from an earlier, unrelated job, before this one started (trap)
            to = run.t0 - dt.timedelta(seconds=r.uniform(300, 3000))
            lr = r.randrange(run.gpn)
            run.kern_emit(n, to, "NVRM: Xid (PCI:%s): 31, pid=%d, name=python, channel 0x00000009, intr 00000000. "
                          "MMU Fault: ENGINE GRAPHICS GPC3 GPCCLIENT_T1_4 faulted @ 0x7f2a_3c000000. Fault is of type "
                          "FAULT_PDE ACCESS_TYPE_VIRT_READ" % (run.pci(n, lr), r.randint(1000, 90000)))
        for _k in range(r.randint(1, 4)):
            run.kern_emit(n, run.t0 + dt.timedelta(seconds=r.uniform(0, 400)),
                          "audit: type=1400 audit(%d.%03d:%d): apparmor=\"DENIED\" operation=\"open\" profile=\"snap.lxd\""
                          % (int(run.t0.timestamp()), r.randint(0, 999), r.randint(100, 999)))


# ----------------------------------------------------------------------------- failure pieces
def traceback_lines(run: Run, frames, exc):
    out = ["Traceback (most recent call last):"]
    for f, ln, fn, code in frames:
        out.append('  File "%s", line %d, in %s' % (f, ln, fn))
        out.append("    " + code)
    out.extend(exc)
    return out


def script_frames(run: Run):
    return [("/workspace/%s" % run.script, 612, "<module>", "main()"),
            ("/workspace/%s" % run.script, 588, "main", "trainer.train()"),
            ("/workspace/%s" % run.script, 431, "train", "loss = self.training_step(batch)")]


def watchdog_block(run: Run, g, t, seq, op, numel, ran_ms, last_enq, last_comp, full=True):
    """Lines a rank prints when its watchdog fires (collateral)."""
    to = run.timeout_ms
    if run.era == "2.5":
        work = "WorkNCCL(SeqNum=%d, OpType=%s, NumelIn=%d, NumelOut=%d, Timeout(ms)=%d)" % (seq, op, numel, numel, to)
    else:
        work = "WorkNCCL(SeqNum=%d, OpType=%s, NumelIn=%d, NumelOut=%d, Timeout(ms)=%d)" % (seq, op, numel, numel, to)
    wd = "[Rank %d] Watchdog caught collective operation timeout: %s ran for %d milliseconds before timing out." % (
        g, work, ran_ms)
    L = []
    if run.era == "2.1":
        L.append(run.c10d(g, t, "E", 475, wd, pg=False))
        if not full:
            return L
        L.append(run.c10d(g, t, "E", 489, "Some NCCL operations have failed or timed out. Due to the asynchronous "
                          "nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.", pg=False))
        L.append(run.c10d(g, t, "E", 495, "To avoid data inconsistency, we are taking the entire process down.", pg=False))
        L.append(run.c10d(g, t, "E", 916, "[Rank %d] NCCL watchdog thread terminated with exception: %s" % (g, wd), pg=False))
        L.append("terminate called after throwing an instance of 'std::runtime_error'")
        L.append("  what():  [Rank %d] NCCL watchdog thread terminated with exception: %s" % (g, wd))
        return L
    L.append(run.c10d(g, t, "E", 563 if run.era == "2.3" else 616, wd, pg=False))
    if run.era == "2.5":
        L.append(run.c10d(g, t, "E", 1785, "Exception (either an error or timeout) detected by watchdog at work: %d, "
                          "last enqueued NCCL work: %d, last completed NCCL work: %d." % (seq, last_enq, last_comp)))
    if not full:
        return L
    L.append(run.c10d(g, t, "E", 1537 if run.era == "2.3" else 1804,
                      "Timeout at NCCL work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (
                          seq, last_enq, last_comp)))
    L.append(run.c10d(g, t, "E", 577 if run.era == "2.3" else 630,
                      "Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, "
                      "subsequent GPU operations might run on corrupted/incomplete data."))
    L.append(run.c10d(g, t, "E", 583 if run.era == "2.3" else 636,
                      "To avoid data inconsistency, we are taking the entire process down."))
    if run.era == "2.5" and run.rng.random() < 0.5:
        L.append(run.c10d(g, t, "E", 1316, "Received a dump signal due to a collective timeout from this local rank "
                          "and we will try our best to dump the debug info. Last enqueued NCCL work: %d, last completed "
                          "NCCL work: %d.This is most likely caused by incorrect usages of collectives, e.g., wrong sizes "
                          "used across ranks, the order of collectives is not same for all ranks or the scheduled "
                          "collective, for some reason, didn't run. Additionally, this can be caused by GIL deadlock or "
                          "other reasons such as network errors or bugs in the communications library (e.g. NCCL), etc. "
                          % (last_enq, last_comp)))
    pg = "[PG 0 Rank %d] " % g if run.era == "2.3" else "[PG ID 0 PG GUID 0(default_pg) Rank %d] " % g
    L.append(run.c10d(g, t, "E", 1414 if run.era == "2.3" else 1595,
                      "Process group watchdog thread terminated with exception: %s" % wd))
    L.append("terminate called after throwing an instance of 'c10::DistBackendError'")
    L.append("  what():  %sProcess group watchdog thread terminated with exception: %s" % (pg, wd))
    L.append("Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:%d "
             "(most recent call first):" % (565 if run.era == "2.3" else 618))
    L.append("frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x96 (0x7f%010x in %s/torch/lib/libc10.so)"
             % (run.rng.randint(0, 2**36), run.site))
    L.append("frame #1: c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, "
             "std::ratio<1l, 1000l> > >) + 0x1d2 (0x7f%010x in %s/torch/lib/libtorch_cuda.so)" % (run.rng.randint(0, 2**36), run.site))
    return L


def remote_error_block(run: Run, g, t, last_error, via_ib):
    """Lines when NCCL reports the peer/network failure asynchronously (collateral)."""
    nv = run.nccl_ver
    msg = "NCCL error: remote process exited or there was a network error, NCCL version %s" % nv
    L = []
    if via_ib:
        pass
    hdr = "Process group watchdog thread terminated with exception: " if run.era != "2.1" else \
        "[Rank %d] NCCL watchdog thread terminated with exception: " % g
    L.append(run.c10d(g, t, "E", 1414 if run.era != "2.1" else 916, hdr + msg, pg=run.era != "2.1"))
    L.append("ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.")
    L.append("Last error:")
    L.append(last_error)
    L.append("terminate called after throwing an instance of '%s'" % (
        "std::runtime_error" if run.era == "2.1" else "c10::DistBackendError"))
    L.append("  what():  %s%s" % (hdr, msg))
    return L


def signal_name(ec):
    return {-6: "SIGABRT", -9: "SIGKILL", -11: "SIGSEGV", -15: "SIGTERM", -7: "SIGBUS"}.get(ec)


def agent_teardown(run: Run, n, t, first, others_failed, sigterm_ranks, unkillable=()):
    """torchrun agent on node n: first=(rank, exitcode, t_exit)."""
    r = run.rng
    if run.launcher == "deepspeed":
        lt = t + dt.timedelta(seconds=run.skew[n])
        for g in sigterm_ranks + [x[0] for x in others_failed] + [first[0]]:
            run.agent_emit(n, t, "[%s] [INFO] [launch.py:315:sigkill_handler] Killing subprocess %d" % (f_py(lt), run.pid[g]))
        g, ec, _ = first
        run.agent_emit(n, t, "[%s] [ERROR] [launch.py:321:sigkill_handler] ['%s', '-u', '%s', '--local_rank=%d', "
                       "'--deepspeed', 'ds_config.json'] exits with return code = %d" % (
                           f_py(lt + dt.timedelta(milliseconds=30)), run.py, run.script, run.lr_of(g), ec))
        return
    mod = "torch/distributed/elastic/multiprocessing/api.py"
    for g in sigterm_ranks:
        run.agent_emit(n, t, run.ea(n, t, "W", mod, 897, "Sending process %d closing signal SIGTERM" % run.pid[g]))
    for g in unkillable:
        t2 = t + dt.timedelta(seconds=30)
        run.agent_emit(n, t2, run.ea(n, t2, "W", mod, 914, "Unable to shutdown process %d via Signals.SIGTERM, forcefully"
                                     " exiting via Signals.SIGKILL" % run.pid[g]))
        t = t2
    g, ec, te = first
    t3 = t + dt.timedelta(seconds=r.uniform(0.2, 1.5))
    run.agent_emit(n, t3, run.ea(n, t3, "E", mod, 869, "failed (exitcode: %d) local_rank: %d (pid: %d) of binary: %s" % (
        ec, run.lr_of(g), run.pid[g], run.py)))
    tb = ["Traceback (most recent call last):",
          '  File "/usr/local/bin/torchrun", line 8, in <module>',
          "    sys.exit(main())",
          '  File "%s/torch/distributed/elastic/multiprocessing/errors/__init__.py", line 355, in wrapper' % run.site,
          "    return f(*args, **kwargs)",
          '  File "%s/torch/distributed/launcher/api.py", line 263, in launch_agent' % run.site,
          "    raise ChildFailedError(",
          "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
          "============================================================",
          "%s FAILED" % run.script,
          "------------------------------------------------------------",
          "Failures:"]

    def entry(i, g, ec, te):
        sig = signal_name(ec)
        lt = te + dt.timedelta(seconds=run.skew[n])
        return ["[%d]:" % i,
                "  time      : %s" % run.ws_dump_ts(lt),
                "  host      : %s" % run.nodes[n],
                "  rank      : %d (local_rank: %d)" % (g, run.lr_of(g)),
                "  exitcode  : %d (pid: %d)" % (ec, run.pid[g]),
                "  error_file: <N/A>",
                "  traceback : %s" % ("Signal %d (%s) received by PID %d" % (-ec, sig, run.pid[g]) if sig else
                                      "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html")]
    if others_failed:
        for i, (og, oec, ote) in enumerate(others_failed):
            tb.extend(entry(i + 1, og, oec, ote))
    else:
        tb.append("  <NO_OTHER_FAILURES>")
    tb.append("------------------------------------------------------------")
    tb.append("Root Cause (first observed failure):")
    tb.extend(entry(0, g, ec, te))
    tb.append("============================================================")
    for i, ln in enumerate(tb):
        run.agent_emit(n, t3 + dt.timedelta(milliseconds=5 + i), ln)


def srun_tasks(ids):
    ids = sorted(ids)
    parts = []
    i = 0
    while i < len(ids):
        j = i
        while j + 1 < len(ids) and ids[j + 1] == ids[j] + 1:
            j += 1
        parts.append(str(ids[i]) if i == j else "%d-%d" % (ids[i], ids[j]))
        i = j + 1
    return ("task " if len(ids) == 1 else "tasks ") + ",".join(parts)


SRUN_EXIT = {1: "Exited with exit code 1", -6: "Aborted (core dumped)", -9: "Killed", -11: "Segmentation fault (core dumped)",
             -15: "Terminated", "oom": "Out Of Memory"}


def finish_failure(run: Run, exits, t_first_exit, kill_on_bad_exit=True):
    """exits: {rank: (exitcode, t)} for ranks that exited on their own (initiator + collateral that
    printed errors). Produces launcher teardown for all layouts; ranks without an entry get SIGTERM."""
    r = run.rng
    if run.launcher == "srun":
        # srun launches each rank directly
        first_g = min(exits, key=lambda g: exits[g][1])
        by_node = {}
        for g, (ec, _te) in exits.items():
            by_node.setdefault((run.node_of(g), ec), []).append(g)
        msgs = []
        for (n, ec), gs in sorted(by_node.items(), key=lambda kv: min(exits[g][1] for g in kv[1])):
            te = min(exits[g][1] for g in gs)
            msgs.append((te + dt.timedelta(seconds=0.3), "srun: error: %s: %s: %s" % (run.nodes[n], srun_tasks(gs), SRUN_EXIT[ec])))
        tk = exits[first_g][1] + dt.timedelta(seconds=r.uniform(0.5, 2))
        alive = [g for g in range(run.world) if g not in exits]
        if kill_on_bad_exit and alive:
            for g in alive:
                run.killed_at[g] = tk
            msgs.append((tk, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish."))
            for n in range(run.nnodes):
                msgs.append((tk + dt.timedelta(milliseconds=50 + n), "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s ***" % (
                    run.jobid, run.nodes[n], (tk + dt.timedelta(seconds=run.skew[n])).strftime("%Y-%m-%dT%H:%M:%S"))))
            for n in range(run.nnodes):
                gs = [g for g in alive if run.node_of(g) == n]
                if gs:
                    msgs.append((tk + dt.timedelta(seconds=1.2), "srun: error: %s: %s: Terminated" % (run.nodes[n], srun_tasks(gs))))
            msgs.append((tk + dt.timedelta(seconds=1.3), "srun: Terminating StepId=%d.0" % run.jobid))
        for t, m in msgs:
            run.jobout.append((t, m))
        return
    # torchrun / deepspeed agents per node
    for n in range(run.nnodes):
        local = [n * run.gpn + i for i in range(run.gpn)]
        mine = sorted([g for g in local if g in exits], key=lambda g: exits[g][1])
        if not mine:
            continue
        first = mine[0]
        tfirst = exits[first][1]
        t_agent = tfirst + dt.timedelta(seconds=r.uniform(0.3, 2.0))
        others = [(g, exits[g][0], exits[g][1]) for g in mine[1:] if exits[g][1] <= t_agent]
        sig = [g for g in local if g not in exits or exits[g][1] > t_agent]
        unk = [g for g in sig if getattr(run, "unkillable", None) == g]
        for g in sig:
            run.killed_at[g] = t_agent + dt.timedelta(seconds=30 if g in unk else 0)
        agent_teardown(run, n, t_agent, (first, exits[first][0], tfirst), others, sig, unk)
    if run.slurm:
        n0 = min(range(run.nnodes), key=lambda n: min([exits[g][1] for g in exits if run.node_of(g) == n] or [run.t0 + dt.timedelta(days=9)]))
        tt = min(e[1] for e in exits.values()) + dt.timedelta(seconds=r.uniform(3, 8))
        run.jobout.append((tt, "srun: error: %s: task %d: Exited with exit code 1" % (run.nodes[n0], n0)))
        if run.nnodes > 1:
            run.jobout.append((tt + dt.timedelta(seconds=0.1), "srun: Job step aborted: Waiting up to 32 seconds for job step to finish."))


def collateral(run: Run, t_fail, exits, culprit, mode, seq, op, numel, exclude=(), same_node_sig=True,
               last_error=None):
    """Make the ranks that are not the culprit die the way real ones do.
    mode: 'timeout' (watchdog after the PG timeout) | 'remote' (NCCL reports the peer's exit) |
    'srun_kill' (srun kills the step; nothing printed)."""
    r = run.rng
    cn = run.node_of(culprit) if culprit is not None else None
    t_coll = t_fail - dt.timedelta(seconds=r.uniform(0.01, 0.3))
    victims = [g for g in range(run.world) if g != culprit and g not in exclude]
    if mode == "srun_kill":
        return
    if mode == "timeout":
        base = t_coll + dt.timedelta(milliseconds=run.timeout_ms + r.randint(10, 900))
        order = sorted(victims, key=lambda g: r.random())
        for _i, g in enumerate(order):
            tg = base + dt.timedelta(milliseconds=r.randint(0, 2500))
            if run.launcher != "srun" and cn is not None and run.node_of(g) == cn and same_node_sig:
                continue  # already SIGTERMed by its agent when the culprit exited
            ran = int((tg - t_coll).total_seconds() * 1000)
            lines = watchdog_block(run, g, tg, seq, op, numel, ran, seq, seq - 1, full=True)
            run.emit_lines(g, tg, lines)
            exits[g] = (-6, tg + dt.timedelta(milliseconds=200))
        return
    if mode == "remote":
        for g in victims:
            if run.launcher != "srun" and cn is not None and run.node_of(g) == cn and same_node_sig:
                if run.nccl_info and r.random() < 0.7:
                    tg = t_fail + dt.timedelta(milliseconds=r.randint(5, 400))
                    run.emit(g, tg, run.nccl_line(g, tg, "[Service thread] Connection closed by localRank %d" % run.lr_of(culprit)), "out")
                continue
            tg = t_fail + dt.timedelta(seconds=r.uniform(0.5, 25))
            if last_error is None:
                peer = "%s<%d>" % (run.host(culprit) if r.random() < 0.5 else run.ips[cn], r.randint(30000, 60000))
                le = "socketProgress: Connection closed by remote peer %s" % peer
                if run.nccl_info or r.random() < 0.5:
                    run.emit(g, tg, run.nccl_line(g, tg, le, warn_src="misc/socket.cc:50"), "out")
            else:
                le = last_error(g, tg)
            run.emit_lines(g, tg + dt.timedelta(milliseconds=3), remote_error_block(run, g, tg, le, False))
            exits[g] = (-6, tg + dt.timedelta(milliseconds=300))


def kernel_write_needed(run: Run, required: bool):
    if required or run.rng.random() < 0.5:
        benign_kernel(run)
        return True
    return False


# ----------------------------------------------------------------------------- scenarios
def scenario(run: Run):
    r = run.rng
    cause = run.cause
    t_train = startup(run)
    total = r.randint(2000, 60000)
    fail_step = r.randint(150, min(total - 10, 6000))
    X = r.randrange(run.world)
    nX = run.node_of(X)
    lX = run.lr_of(X)
    def seq_at(s):
        return s * run.coll_per_step + r.randint(2, 40)
    exits = {}
    kill_mode = run.launcher == "srun" and r.random() < 0.6
    coll_mode = r.choice(["timeout", "remote", "timeout"])
    if kill_mode:
        coll_mode = "srun_kill"
    numel = r.choice([1, 1024, 25165824, 65536000, 131072000])
    op = r.choice(["ALLREDUCE", "ALLREDUCE", "_ALLGATHER_BASE", "_REDUCE_SCATTER_BASE", "BROADCAST"])

    if cause == "healthy":
        kernel_write_needed(run, False)
        t_end = train(run, t_train, total if total < 3000 else fail_step, total if total < 3000 else fail_step)
        last = total if total < 3000 else fail_step
        if run.rng.random() < 0.5 and run.nccl_info:
            g = r.randrange(run.world)
            run.emit(g, t_train + dt.timedelta(seconds=5), run.nccl_line(
                g, t_train, "NET/Plugin: Could not find: libnccl-net.so. Using internal network plugin.",
                warn_src="net.cc:%d" % r.choice([87, 92])), "out")
        if run.step_fmt == "hf":
            run.emit(0, t_end, "{'train_runtime': %.4f, 'train_samples_per_second': %.3f, 'train_steps_per_second': %.3f,"
                     " 'train_loss': %.4f, 'epoch': 3.0}" % (last * run.step_time, 123.4, 1 / run.step_time, 2.31), "out")
        elif run.step_fmt == "lightning":
            run.emit(0, t_end, "`Trainer.fit` stopped: `max_steps=%d` reached." % last)
        elif run.step_fmt == "megatron":
            run.emit(run.world - 1, t_end, "[after training is done] datetime: %s " % run.lt(run.world - 1, t_end).strftime("%Y-%m-%d %H:%M:%S"), "out")
        else:
            run.emit(0, t_end, "%s - INFO - __main__ - training finished after %d steps" % (f_py(run.lt(0, t_end)), last))
        for n in range(run.nnodes):
            te = t_end + dt.timedelta(seconds=r.uniform(2, 20))
            if run.launcher == "torchrun":
                run.agent_emit(n, te, run.ea(n, te, "I", "torch/distributed/elastic/agent/server/api.py", 879,
                                             "[default] worker group successfully finished. Waiting 300 seconds for other agents to finish."))
                run.agent_emit(n, te, run.ea(n, te, "I", "torch/distributed/elastic/agent/server/api.py", 932,
                                             "Local worker group finished (WorkerState.SUCCEEDED). Waiting 300 seconds for other agents to finish"))
                run.agent_emit(n, te + dt.timedelta(seconds=1), run.ea(n, te, "I", "torch/distributed/elastic/agent/server/api.py", 946,
                                                                       "Done waiting for other agents. Elapsed: %.7f seconds" % r.uniform(0.0001, 0.9)))
            elif run.launcher == "deepspeed":
                pass
        if run.k8s:
            run.extra["pods.txt"] = pods_txt(run, {})
        return

    # generic training until the failure
    t_last = train(run, t_train, fail_step, total)
    t_fail = t_last + dt.timedelta(seconds=r.uniform(0.1, run.step_time))
    seq = seq_at(fail_step)
    run.truth["rank"] = X
    run.truth["node"] = run.nodes[nX]

    if cause == "gpu_hardware":
        kernel_write_needed(run, True)
        pcin = run.pci(nX, lX)
        if r.random() < 0.5:
            run.kern_emit(nX, t_fail - dt.timedelta(milliseconds=40), "pcieport %s:%s:01.0: AER: Uncorrected (Fatal) error "
                          "received: %s:%s:00.0" % (run.domain, "%02x" % (int(run.bus[nX][lX], 16) - 3), run.domain, run.bus[nX][lX]))
        run.kern_emit(nX, t_fail, "NVRM: GPU at PCI:%s: GPU-%08x-%04x-%04x-%04x-%012x" % (
            pcin, r.getrandbits(32), r.getrandbits(16), r.getrandbits(16), r.getrandbits(16), r.getrandbits(48)))
        run.kern_emit(nX, t_fail, "NVRM: GPU Board Serial Number: %d" % r.randint(10**12, 10**13 - 1))
        if r.random() < 0.5:
            run.kern_emit(nX, t_fail, "NVRM: Xid (PCI:%s): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus." % pcin)
        else:
            run.kern_emit(nX, t_fail, "NVRM: Xid (PCI:%s): 79, GPU has fallen off the bus." % pcin)
        run.kern_emit(nX, t_fail, "NVRM: GPU %s.0: GPU has fallen off the bus." % pcin)
        if r.random() < 0.4:
            run.kern_emit(nX, t_fail + dt.timedelta(seconds=1), "NVRM: Xid (PCI:%s): 154, GPU recovery action changed from "
                          "0x0 (None) to 0x2 (Node Reboot Required)" % pcin)
        run.unkillable = X
        if not run.nccl_info:
            run.truth["rank_inferable"] = False  # no busId lines: only the node can be named
        # X just stops; everyone else times out in the collective X never joined
        if run.launcher == "srun":
            collateral(run, t_fail, exits, X, "timeout", seq, op, numel, same_node_sig=False)
            tk = min(e[1] for e in exits.values())
            finish_failure(run, exits, tk, kill_on_bad_exit=True)
        else:
            collateral(run, t_fail, exits, X, "timeout", seq, op, numel, same_node_sig=False)
            finish_failure(run, exits, None)
        return

    if cause in ("ecc_memory", "nvlink"):
        kern = kernel_write_needed(run, cause == "nvlink" and r.random() < 0.7)
        pcin = run.pci(nX, lX)
        comm = r.choice(["pt_main_thread", "python3", "python"])
        if kern:
            if cause == "ecc_memory":
                pa = r.randint(0x10000000, 0x7fffffff)
                run.kern_emit(nX, t_fail - dt.timedelta(milliseconds=5), "NVRM: Xid (PCI:%s): 48, pid=%d, name=%s, An uncorrectable "
                              "double bit error (DBE) has been detected on GPU in the framebuffer at physAddr 0x%x partition %d, "
                              "subpartition %d." % (pcin, run.pid[X], comm, pa, r.randint(0, 23), r.randint(0, 3)))
                run.kern_emit(nX, t_fail, "NVRM: Xid (PCI:%s): 63, pid=%d, name=%s, Row Remapper: New row (0x%016x) marked "
                              "for remapping, reset gpu to activate." % (pcin, run.pid[X], comm, pa))
                if r.random() < 0.5:
                    run.kern_emit(nX, t_fail, "NVRM: Xid (PCI:%s): 94, pid=%d, name=%s, Contained: SM (0x1). RST: No, D-RST: No"
                                  % (pcin, run.pid[X], comm))
            else:
                link = r.randint(0, 17)
                run.kern_emit(nX, t_fail - dt.timedelta(milliseconds=5), "NVRM: Xid (PCI:%s): 74, pid=%d, name=%s, NVLink: fatal "
                              "error detected on link %d(0x0, 0x0, 0x10000, 0x0, 0x0, 0x0, 0x0)" % (pcin, run.pid[X], comm, link))
                if r.random() < 0.5:
                    # sympathetic report on the peer GPU a little later
                    lp = (lX + 1) % run.gpn
                    run.kern_emit(nX, t_fail + dt.timedelta(milliseconds=300), "NVRM: Xid (PCI:%s): 74, pid=%d, name=%s, NVLink: "
                                  "fatal error detected on link %d(0x0, 0x0, 0x10000, 0x0, 0x0, 0x0, 0x0)" % (
                                      run.pci(nX, lp), run.pid[nX * run.gpn + lp], comm, (link + 6) % 18))
        errtxt = "uncorrectable ECC error encountered" if cause == "ecc_memory" else \
            "uncorrectable NVLink error detected during the execution"
        if r.random() < 0.5:
            lines = traceback_lines(run, [*script_frames(run), ("%s/torch/_tensor.py" % run.site, 581, "backward", "torch.autograd.backward("), ("%s/torch/autograd/graph.py" % run.site, 825, "_engine_run_backward", "return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass")],
                ["%s: CUDA error: %s" % ("torch.AcceleratorError" if run.era == "2.5" and r.random() < 0.5 else "RuntimeError", errtxt),
                 "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
                 "For debugging consider passing CUDA_LAUNCH_BLOCKING=1",
                 "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.", ""])
            ec = 1
        else:
            lines = [run.nccl_line(X, t_fail, "Cuda failure '%s'" % errtxt, warn_src="enqueue.cc:%d" % r.choice([1556, 1610]))]
            lines += traceback_lines(run, [*script_frames(run), ("%s/torch/distributed/c10d_logger.py" % run.site, 83, "wrapper", "return func(*args, **kwargs)"), ("%s/torch/distributed/distributed_c10d.py" % run.site, 2501, "all_reduce", "work = group.allreduce([tensor], opts)")],
                ["torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:%d, "
                 "unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version %s" % (r.choice([1970, 2006, 3356]), run.nccl_ver),
                 "ncclUnhandledCudaError: Call to CUDA function failed.",
                 "Last error:", "Cuda failure '%s'" % errtxt])
            ec = 1
        run.emit_lines(X, t_fail, lines)
        exits[X] = (ec, t_fail + dt.timedelta(milliseconds=500))
        collateral(run, t_fail, exits, X, coll_mode, seq, op, numel)
        finish_failure(run, exits, None, kill_on_bad_exit=kill_mode)
        if run.k8s:
            run.extra["pods.txt"] = pods_txt(run, {})
        return

    if cause == "network":
        run.truth["rank"] = None
        Y = nX
        run.truth["node"] = run.nodes[Y]
        nic = r.randrange(4)
        kern = kernel_write_needed(run, False)
        if kern and r.random() < 0.8:
            nb = r.choice(NIC_BUS)
            iface = r.choice(["ens%df0np0" % r.randint(1, 9), "ibp%ds0" % int(nb, 16)])
            run.kern_emit(Y, t_fail - dt.timedelta(seconds=r.uniform(0.5, 4)),
                          "mlx5_core 0000:%s:00.0: Port module event: module %d, Cable unplugged" % (nb, nic))
            run.kern_emit(Y, t_fail - dt.timedelta(seconds=r.uniform(0.0, 0.4)), "mlx5_core 0000:%s:00.0 %s: Link down" % (nb, iface))
        local_Y = [Y * run.gpn + i for i in range(run.gpn)]
        # ranks on Y see the port error (NCCL async event thread)
        for g in local_Y:
            if r.random() < 0.8:
                tg = t_fail + dt.timedelta(milliseconds=r.randint(1, 300))
                body = "NET/IB : mlx5_%d:1 Got async event : port error" % nic if run.era == "2.5" else \
                    "NET/IB : Got async event : port error"
                run.emit(g, tg, run.nccl_line(g, tg, body, warn_src="transport/net_ib.cc:%d" % (93 if run.era != "2.5" else 101)), "out")
        # everyone errors out with IB completion errors after retries
        t_err = t_fail + dt.timedelta(seconds=r.uniform(8, 40))

        def le(g, tg, Y=Y):
            n = run.node_of(g)
            peer_n = Y if n != Y else (Y + 1) % run.nnodes
            peer = "%s<%d>" % (run.ips[peer_n], r.randint(30000, 60000))
            if run.era == "2.1":
                body = "NET/IB : Got completion from peer %s with error 12, opcode %d, len %d, vendor err 129" % (
                    peer, r.choice([0, 1, 2]), r.choice([0, 1, 32764]))
            elif run.era == "2.3":
                body = "NET/IB : Got completion from peer %s with status=12 opcode=%d len=0 vendor err 129 (Send) " \
                       "localGid ::ffff:%s remoteGids::ffff:%s" % (peer, r.choice([0, 1]), run.ips[n], run.ips[peer_n])
            else:
                body = "NET/IB: Got completion from peer %s with status=12 opcode=1 len=0 vendor err 129 (Send) " \
                       "localGid ::ffff:%s remoteGids::ffff:%s hca mlx5_%d" % (peer, run.ips[n], run.ips[peer_n], nic)
            run.emit(g, tg, run.nccl_line(g, tg, body, warn_src="transport/net_ib.cc:%d" % r.choice([1238, 1696, 1909])), "out")
            if run.nccl_info:
                run.emit(g, tg, run.nccl_line(g, tg, "transport/net.cc:1137 -> 6"), "out")
                run.emit(g, tg, run.nccl_line(g, tg, "proxy.cc:698 -> 6"), "out")
            return body
        # some ranks (those without an IB peer on Y in the ring) hit the watchdog instead
        for g in range(run.world):
            if r.random() < 0.8 or run.node_of(g) == Y:
                tg = t_err + dt.timedelta(seconds=r.uniform(0, 6))
                run.emit_lines(g, tg + dt.timedelta(milliseconds=3), remote_error_block(run, g, tg, le(g, tg), True))
                exits[g] = (-6, tg + dt.timedelta(milliseconds=200))
        finish_failure(run, exits, None, kill_on_bad_exit=kill_mode)
        if run.k8s:
            run.extra["pods.txt"] = pods_txt(run, {})
        return

    if cause == "host_oom_kill":
        variant = r.choice(["kernel", "kernel", "report"])
        if variant == "report" and not (run.slurm or run.k8s):
            variant = "kernel"
        comm = r.choice(["pt_main_thread", "python3", "python"])
        if variant == "kernel":
            kernel_write_needed(run, True)
            cg = run.slurm or run.k8s
            run.kern_emit(nX, t_fail - dt.timedelta(milliseconds=30), "%s invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), "
                          "order=0, oom_score_adj=0" % comm)
            if cg:
                run.kern_emit(nX, t_fail - dt.timedelta(milliseconds=20), "memory: usage %dkB, limit %dkB, failcnt %d" % (
                    1887436800, 1887436800, r.randint(1, 99)))
                run.kern_emit(nX, t_fail - dt.timedelta(milliseconds=19), "oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),"
                              "cpuset=/,mems_allowed=0-1,oom_memcg=/slurm/uid_1000/job_%d,task_memcg=/slurm/uid_1000/job_%d/step_0,"
                              "task=%s,pid=%d,uid=1000" % (run.jobid, run.jobid, comm, run.pid[X]))
            msg = "Memory cgroup out of memory" if cg else "Out of memory"
            run.kern_emit(nX, t_fail, "%s: Killed process %d (%s) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, "
                          "UID:1000 pgtables:%dkB oom_score_adj:0" % (msg, run.pid[X], comm, r.randint(10**8, 9 * 10**8),
                                                                      r.randint(10**8, 3 * 10**8), r.randint(10**5, 10**6),
                                                                      r.randint(10**4, 10**6), r.randint(10**5, 10**6)))
            run.kern_emit(nX, t_fail + dt.timedelta(milliseconds=400), "oom_reaper: reaped process %d (%s), now anon-rss:0kB, "
                          "file-rss:0kB, shmem-rss:0kB" % (run.pid[X], comm))
        else:
            kernel_write_needed(run, False)
        exits[X] = ("oom" if run.launcher == "srun" else -9, t_fail)
        if run.slurm:
            run.jobout.append((t_fail + dt.timedelta(seconds=r.uniform(1, 4)),
                               "slurmstepd: error: Detected 1 oom_kill event in StepId=%d.0. Some of the step tasks have been OOM Killed." % run.jobid))
        collateral(run, t_fail, exits, X, coll_mode, seq, op, numel)
        finish_failure(run, exits, None, kill_on_bad_exit=kill_mode)
        if run.k8s:
            run.extra["pods.txt"] = pods_txt(run, {nX: "OOMKilled"})
        return

    if cause in ("cuda_oom", "python_exception", "crash_signal", "data_loader_stall"):
        kern = kernel_write_needed(run, False)
        t_x = t_fail
        if cause == "cuda_oom":
            tot = {"NVIDIA H100 80GB HBM3": 79.11, "NVIDIA A100-SXM4-80GB": 79.15, "NVIDIA H200": 139.81}[run.gpu_name]
            free = r.uniform(0.2, 3)
            if run.era == "2.1":
                msg = ("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate %s. GPU %d has a total capacty of "
                       "%.2f GiB of which %.2f GiB is free. Process %d has %.2f GiB memory in use. Of the allocated memory %.2f GiB "
                       "is allocated by PyTorch, and %.2f GiB is reserved by PyTorch but unallocated. If reserved but unallocated "
                       "memory is large try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory "
                       "Management and PYTORCH_CUDA_ALLOC_CONF" % (hsize(r, 1, 8), lX, tot, free, run.pid[X], tot - free,
                                                                   tot - free - 2, 1.3))
            else:
                msg = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate %s. GPU %d has a total capacity of %.2f GiB "
                       "of which %.2f GiB is free. Including non-PyTorch memory, this process has %.2f GiB memory in use. Of the "
                       "allocated memory %.2f GiB is allocated by PyTorch, and %.2f GiB is reserved by PyTorch but unallocated. "
                       "If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True "
                       "to avoid fragmentation.  See documentation for Memory Management  "
                       "(https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)" % (
                           hsize(r, 1, 8), lX, tot, free, tot - free, tot - free - 2.1, 1.7))
            lines = traceback_lines(run, [*script_frames(run), ("%s/torch/nn/modules/module.py" % run.site, 1747, "_call_impl", "return forward_call(*args, **kwargs)"), ("/workspace/model/attention.py", 211, "forward", "attn = torch.softmax(scores.float(), dim=-1).to(q.dtype)")],
                [msg])
            ec = 1
        elif cause == "python_exception":
            exc = r.choice([
                ["KeyError: 'input_ids'"],
                ["FileNotFoundError: [Errno 2] No such file or directory: '/data/shards/train-%05d-of-02048.arrow'" % r.randint(0, 2047)],
                ["ValueError: Expected input batch_size (%d) to match target batch_size (%d)." % (16, 15)],
                ["AssertionError: sequence length %d exceeds max_position_embeddings 4096" % r.randint(4097, 9000)],
                ["UnicodeDecodeError: 'utf-8' codec can't decode byte 0x%02x in position %d: invalid start byte" % (
                    r.randint(0x80, 0xff), r.randint(0, 9999))],
                ["ZeroDivisionError: float division by zero"],
            ])
            lines = traceback_lines(run, [*script_frames(run), ("/workspace/data/dataset.py", r.randint(40, 300), "__getitem__", "sample = self.records[idx]")], exc)
            ec = 1
        elif cause == "crash_signal":
            lines = []
            if r.random() < 0.6:
                lines = ["Fatal Python error: Segmentation fault", "",
                         "Thread 0x%016x (most recent call first):" % r.getrandbits(48),
                         '  File "/usr/lib/python3.10/threading.py", line 324 in wait',
                         '  File "/usr/lib/python3.10/threading.py", line 607 in wait',
                         '  File "%s/tqdm/_monitor.py", line 60 in run' % run.site, "",
                         "Current thread 0x%016x (most recent call first):" % r.getrandbits(48),
                         '  File "%s/torch/autograd/graph.py", line 825 in _engine_run_backward' % run.site,
                         '  File "%s/torch/autograd/__init__.py", line 347 in backward' % run.site,
                         '  File "/workspace/%s", line 431 in train' % run.script, ""]
            if kern:
                run.kern_emit(nX, t_fail, "%s[%d]: segfault at 0 ip %016x sp %016x error 4 in libtorch_cuda.so[%x+%x] likely on "
                              "CPU %d (core %d, socket 0)" % (r.choice(["pt_main_thread", "python3"]), run.pid[X],
                                                              r.getrandbits(47), r.getrandbits(47), r.getrandbits(40),
                                                              r.getrandbits(28), r.randint(0, 95), r.randint(0, 47)))
            ec = -11
        else:  # data loader stall: the rank stops, then its DataLoader timeout fires before the PG timeout
            dl_to = r.choice([s for s in (120, 300, 600, 900) if s * 1000 < run.timeout_ms])
            t_x = t_fail + dt.timedelta(seconds=dl_to)
            lines = traceback_lines(run, [*script_frames(run)[:2], ("/workspace/%s" % run.script, 402, "train", "for step, batch in enumerate(self.train_loader):"), ("%s/torch/utils/data/dataloader.py" % run.site, 701, "__next__", "data = self._next_data()"), ("%s/torch/utils/data/dataloader.py" % run.site, 1448, "_next_data", "idx, data = self._get_data()"), ("%s/torch/utils/data/dataloader.py" % run.site, 1402, "_get_data", "success, data = self._try_get_data()"), ("%s/torch/utils/data/dataloader.py" % run.site, 1256, "_try_get_data", "raise RuntimeError(f'DataLoader timed out after {self._timeout} seconds') from e")],
                ["RuntimeError: DataLoader timed out after %d seconds" % dl_to])
            lines = ["Traceback (most recent call last):", '  File "%s/torch/utils/data/dataloader.py", line 1243, in _try_get_data' % run.site, "    data = self._data_queue.get(timeout=timeout)", '  File "/usr/lib/python3.10/multiprocessing/queues.py", line 114, in get', "    raise Empty", "_queue.Empty", "", "The above exception was the direct cause of the following exception:", "", *lines]
            ec = 1
        if run.era == "2.5" and run.launcher == "torchrun" and r.random() < 0.5:
            lines = ["[rank%d]: %s" % (X, ln) for ln in lines]
        run.emit_lines(X, t_x, lines)
        exits[X] = (ec, t_x + dt.timedelta(milliseconds=400))
        # for the data-loader stall the others were waiting in the collective since t_fail
        collateral(run, t_fail if cause == "data_loader_stall" and coll_mode == "timeout" else t_x,
                   exits, X, coll_mode, seq, op, numel)
        if cause == "data_loader_stall" and coll_mode == "timeout":
            # the PG timeout started before the DL timeout: keep only those that died after X
            pass
        finish_failure(run, exits, None, kill_on_bad_exit=kill_mode)
        if run.k8s:
            run.extra["pods.txt"] = pods_txt(run, {})
        return

    if cause == "hang":
        kernel_write_needed(run, False)
        # X never enqueues collective `seq`; the others time out on it.
        collateral(run, t_fail, exits, X, "timeout", seq, op, numel, same_node_sig=False)
        t_first = min(e[1] for e in exits.values())
        if run.era != "2.1":
            src = r.choice([g for g in exits])
            txt = "Received a dump signal due to a collective timeout from rank %d and we will try our best to dump the " \
                  "debug info. Last enqueued NCCL work: %d, last completed NCCL work: %d." % (src, seq - 1, seq - 1)
            if run.era == "2.3":
                txt = "Observed flight recorder dump signal from another rank via TCPStore."
            tg = t_first + dt.timedelta(seconds=r.uniform(0.2, 1.0))
            run.emit(X, tg, run.c10d(X, tg, "E", 1316, txt))
            if run.era == "2.5":
                run.emit(X, tg, run.c10d(X, tg, "E", 1331, "Terminating the process after attempting to dump debug info, "
                                                          "due to collective timeout or exception."))
        finish_failure(run, exits, None, kill_on_bad_exit=True)
        if run.era != "2.1":
            run.killed_at[X] = max(run.killed_at.get(X, tg), tg + dt.timedelta(seconds=1))
        elif not run.all_rank_steps:
            run.truth["rank_inferable"] = False  # X is silent and so are the siblings killed early
        if run.k8s:
            run.extra["pods.txt"] = pods_txt(run, {})
        return

    if cause == "collective_mismatch":
        kernel_write_needed(run, False)
        variant = r.choice(["detail", "watchdog_op", "watchdog_numel"])
        if variant == "detail":
            other = 0 if X != 0 else 1
            def fp(opx, shape):
                return ("CollectiveFingerPrint(SequenceNumber=%d, OpType=%s, TensorShape=[%s], TensorDtypes=BFloat16, "
                                                 "TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda, layout=Strided (default), "
                                                 "requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt)))" % (
                                                     seq, opx, shape))
            good, bad = ("ALLREDUCE", "%d" % numel), (r.choice(["BROADCAST", "ALLREDUCE"]), "%d" % (numel // 2 + 7))
            diff = ("Op type: %svs %s" % (bad[0], good[0])) if bad[0] != good[0] else ("Tensor Tensor shapes: %svs %s" % (bad[1], good[1]))
            for g in range(run.world):
                tg = t_fail + dt.timedelta(milliseconds=r.randint(0, 900))
                if g == X:
                    m = "Detected mismatch between collectives on ranks. Rank %d is running collective: %s, but Rank %d is " \
                        "running collective: %s.Collectives differ in the following aspects: \t%s" % (
                            g, fp(*bad), other, fp(*good), diff)
                else:
                    dff = ("Op type: %svs %s" % (good[0], bad[0])) if bad[0] != good[0] else ("Tensor Tensor shapes: %svs %s" % (good[1], bad[1]))
                    m = "Detected mismatch between collectives on ranks. Rank %d is running collective: %s, but Rank %d is " \
                        "running collective: %s.Collectives differ in the following aspects: \t%s" % (
                            g, fp(*good), X, fp(*bad), dff)
                lines = traceback_lines(run, [*script_frames(run), ("%s/torch/distributed/distributed_c10d.py" % run.site, 2501, "all_reduce", "work = group.allreduce([tensor], opts)")],
                    ["RuntimeError: %s" % m])
                if run.era == "2.5" and r.random() < 0.7:
                    lines = ["[rank%d]: %s" % (g, ln) for ln in lines]
                run.emit_lines(g, tg, lines)
                exits[g] = (1, tg + dt.timedelta(milliseconds=300))
            finish_failure(run, exits, None, kill_on_bad_exit=True)
        else:
            # no DETAIL mode: everyone times out, X on a different op/size at the same sequence number
            t_coll = t_fail
            for g in range(run.world):
                tg = t_coll + dt.timedelta(milliseconds=run.timeout_ms + r.randint(10, 3000))
                if g == X:
                    o2, n2 = (r.choice(["BROADCAST", "ALLGATHER", "_ALLGATHER_BASE"]), numel) if variant == "watchdog_op" else \
                        (op, numel * 2 + 8)
                else:
                    o2, n2 = (op if op != "BROADCAST" else "ALLREDUCE"), numel
                ran = int((tg - t_coll).total_seconds() * 1000)
                run.emit_lines(g, tg, watchdog_block(run, g, tg, seq, o2, n2, ran, seq, seq - 1))
                exits[g] = (-6, tg + dt.timedelta(milliseconds=200))
            finish_failure(run, exits, None, kill_on_bad_exit=True)
        if run.k8s:
            run.extra["pods.txt"] = pods_txt(run, {})
        return

    if cause == "preemption":
        kernel_write_needed(run, False)
        run.truth["rank"] = None
        run.truth["node"] = None
        for g in range(run.world):
            run.killed_at[g] = t_fail + dt.timedelta(seconds=0.2)
        why = r.choice(["PREEMPTION", "TIME LIMIT"])
        ts = (t_fail + dt.timedelta(seconds=run.skew[0])).strftime("%Y-%m-%dT%H:%M:%S")
        run.jobout.append((t_fail, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO %s ***" % (run.jobid, run.nodes[0], ts, why)))
        run.jobout.append((t_fail + dt.timedelta(milliseconds=20), "srun: Job step aborted: Waiting up to 32 seconds for job step to finish."))
        for n in range(run.nnodes):
            tn = t_fail + dt.timedelta(milliseconds=30 + n)
            run.jobout.append((tn, "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s DUE TO %s ***" % (
                run.jobid, run.nodes[n], (tn + dt.timedelta(seconds=run.skew[n])).strftime("%Y-%m-%dT%H:%M:%S"), why)))
        if run.step_fmt == "lightning" and r.random() < 0.7:
            for g in range(run.world):
                run.emit(g, t_fail + dt.timedelta(milliseconds=50), "[rank: %d] Received SIGTERM: 15" % g)
        if run.launcher == "torchrun":
            for n in range(run.nnodes):
                tn = t_fail + dt.timedelta(milliseconds=60)
                run.agent_emit(n, tn, run.ea(n, tn, "W", "torch/distributed/elastic/agent/server/api.py", 704,
                                             "Received Signals.SIGTERM death signal, shutting down workers"))
                for lr in range(run.gpn):
                    g = n * run.gpn + lr
                    run.agent_emit(n, tn, run.ea(n, tn, "W", "torch/distributed/elastic/multiprocessing/api.py", 897,
                                                 "Sending process %d closing signal SIGTERM" % run.pid[g]))
                tb = ["Traceback (most recent call last):",
                      '  File "/usr/local/bin/torchrun", line 8, in <module>', "    sys.exit(main())",
                      '  File "%s/torch/distributed/elastic/agent/server/api.py", line 869, in _invoke_run' % run.site,
                      "    time.sleep(monitor_interval)",
                      '  File "%s/torch/distributed/elastic/multiprocessing/api.py", line 84, in _terminate_process_handler' % run.site,
                      "    raise SignalException(f\"Process {os.getpid()} got signal: {sigval}\", sigval=sigval)",
                      "torch.distributed.elastic.multiprocessing.api.SignalException: Process %d got signal: 15" % run.agent_pid[n]]
                for i, ln in enumerate(tb):
                    run.agent_emit(n, tn + dt.timedelta(seconds=2, milliseconds=i), ln)
        for n in range(run.nnodes):
            run.jobout.append((t_fail + dt.timedelta(seconds=1.5), "srun: error: %s: %s: Terminated" % (
                run.nodes[n], "task %d" % n if run.launcher != "srun" else srun_tasks(range(n * run.gpn, (n + 1) * run.gpn)))))
        run.jobout.append((t_fail + dt.timedelta(seconds=1.6), "srun: Force Terminated StepId=%d.0" % run.jobid))
        return

    raise ValueError(cause)


def pods_txt(run: Run, status):
    lines = ["NAME%sREADY   STATUS      RESTARTS   AGE   IP            NODE" % (" " * 26)]
    for n in range(run.nnodes):
        st = status.get(n, "Error" if run.cause != "healthy" else "Completed")
        lines.append("%-30s0/1     %-11s 0          %dm   %-13s %s" % (run.nodes[n], st, run.rng.randint(20, 900),
                                                                       run.ips[n], run.k8s_nodes[n]))
    return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------------- rendering
def kline(run: Run, n, t, text):
    fmt = run.kernel_fmt
    host = run.k8s_nodes[n] if run.k8s else run.nodes[n]
    up = run.uptime[n] + (t - run.t0).total_seconds()
    if fmt == "dmesg":
        return "[%12.6f] %s" % (up, text)
    if fmt == "dmesg_T":
        return "%s %s" % (f_dmesg_t(t), text)
    if fmt == "kern":
        return "%s %s kernel: [%12.6f] %s" % (f_syslog(t), host, up, text)
    if fmt == "journal":
        return "%s %s kernel: %s" % (f_journal(t), host, text)
    return "%s %s kernel: %s" % (t.strftime("%Y-%m-%dT%H:%M:%S.") + "%06d+00:00" % t.microsecond, host, text)


def write(path, lines):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        for ln in lines:
            f.write(ln)
            f.write("\n")


def sorted_lines(items):
    return [x[-1] for x in sorted(items, key=lambda x: x[0])]


def render(run: Run, out):
    r = run.rng
    for g, tk in run.killed_at.items():
        lim = run.lt(g, tk) + dt.timedelta(milliseconds=50)
        run.rl[g] = [x for x in run.rl[g] if x[0] <= lim]
    L = run.layout
    ts_k8s = L == "k8s" and r.random() < 0.5
    # kernel logs
    if run.kernel_present:
        for n in range(run.nnodes):
            if not run.kern[n]:
                continue
            folder = run.k8s_nodes[n] if run.k8s else run.nodes[n]
            write(os.path.join(out, folder, run.kernel_file),
                  [kline(run, n, t, txt) for t, txt in sorted(run.kern[n], key=lambda x: x[0])])
    if run.extra:
        for name, content in run.extra.items():
            with open(os.path.join(out, name), "w", encoding="utf-8") as f:
                f.write(content)
    jobout_pre = ["+ export NCCL_DEBUG=%s" % ("INFO" if run.nccl_info else "WARN"),
                  "+ srun --kill-on-bad-exit=1 %s" % ("python %s" % run.script if run.launcher == "srun" else
                                                      "torchrun --nnodes=%d --nproc_per_node=%d %s" % (run.nnodes, run.gpn, run.script))]
    if L == "torchrun_logdir":
        rid = ["%s_%s" % (run.run_id, "".join(r.choice("abcdefghijklmnopqrstuvwxyz0123456789_") for _ in range(8)))
               for _ in range(run.nnodes)]
        for g in range(run.world):
            n, lr = run.node_of(g), run.lr_of(g)
            base = os.path.join(out, run.nodes[n], rid[n], "attempt_0", str(lr))
            write(os.path.join(base, "stdout.log"), sorted_lines([(t, x) for t, s, x in run.rl[g] if s == "out"]))
            write(os.path.join(base, "stderr.log"), sorted_lines([(t, x) for t, s, x in run.rl[g] if s == "err"]))
        if run.slurm:
            items = [(t, x) for n in range(run.nnodes) for t, x in run.agent[n]] + run.jobout
            write(os.path.join(out, "slurm-%d.out" % run.jobid), jobout_pre + sorted_lines(items))
        else:
            for n in range(run.nnodes):
                write(os.path.join(out, run.nodes[n], "torchrun.log"), sorted_lines(run.agent[n]))
        return
    if L == "slurm_task":
        style = r.choice(["slurm", "job"])
        for g in range(run.world):
            name = "slurm-%d-%d.out" % (run.jobid, g) if style == "slurm" else "job.%d.%d.log" % (run.jobid, g)
            write(os.path.join(out, name), sorted_lines([(t, x) for t, s, x in run.rl[g]]))
        write(os.path.join(out, "slurm-%d.out" % run.jobid), jobout_pre + sorted_lines(run.jobout))
        return
    if L == "combined":
        pstyle = r.choice(["rank", "srun_l"])
        items = []
        for g in range(run.world):
            for t, _s, x in run.rl[g]:
                items.append((t, ("[rank%d]:" % g + x) if pstyle == "rank" else ("%d: %s" % (g, x))))
        for n in range(run.nnodes):
            for t, x in run.agent[n]:
                items.append((t, x if pstyle == "rank" else ("%d: %s" % (n, x))))
        items += run.jobout
        name = "slurm-%d.out" % run.jobid if run.slurm else r.choice(["train.log", "output.log"])
        write(os.path.join(out, name), (jobout_pre if run.slurm else []) + sorted_lines(items))
        return
    if L in ("pernode", "k8s"):
        pstyle = r.choice(["default", "rank"])
        for n in range(run.nnodes):
            items = []
            for lr in range(run.gpn):
                g = n * run.gpn + lr
                for t, _s, x in run.rl[g]:
                    items.append((t, ("[default%d]:" % lr if pstyle == "default" else "[rank%d]:" % g) + x))
            items += run.agent[n]
            if L == "pernode" and run.slurm:
                items += [(t, x) for t, x in run.jobout if run.nodes[n] in x and "STEP" in x]
            lines = sorted(items, key=lambda x: x[0])
            text = ["%s %s" % (f_iso_z(t), x) for t, x in lines] if L == "k8s" and ts_k8s else [x for _, x in lines]
            write(os.path.join(out, "%s.log" % run.nodes[n]), text)
        if L == "pernode" and run.slurm:
            write(os.path.join(out, "slurm-%d.out" % run.jobid), jobout_pre + sorted_lines(run.jobout))
        return
    if L == "deepspeed":
        pdsh = r.random() < 0.5
        for n in range(run.nnodes):
            items = list(run.agent[n])
            for lr in range(run.gpn):
                g = n * run.gpn + lr
                items += [(t, x) for t, s, x in run.rl[g]]
            lines = sorted_lines(items)
            if pdsh:
                lines = ["%s: %s" % (run.nodes[n], x) for x in lines]
            write(os.path.join(out, "deepspeed-%s.log" % run.nodes[n]), lines)
        return
    raise ValueError(L)


def pick_layout(rng, cause):
    if cause == "preemption":
        return rng.choice(["slurm_task", "combined", "pernode", "torchrun_logdir"])
    return rng.choice(LAYOUTS)


def make_run(rng, idx, cause, out_dir):
    layout = pick_layout(rng, cause)
    run = Run(rng, idx, cause, layout)
    if cause == "preemption" and not run.slurm:
        run.slurm = True
    if cause == "host_oom_kill" and layout == "deepspeed":
        pass
    scenario(run)
    d = os.path.join(out_dir, "run-%03d-%s" % (idx, layout))
    if os.path.exists(d):
        shutil.rmtree(d)
    os.makedirs(d)
    render(run, d)
    truth = dict(run.truth)
    if run.k8s and truth["node"] is not None:
        truth["node_aliases"] = [run.k8s_nodes[run.nodes.index(truth["node"])]]
    truth.update({"layout": layout, "ranks": run.world, "nodes": run.nnodes, "gpus_per_node": run.gpn,
                  "torch_era": run.era, "nccl_debug_info": run.nccl_info, "kernel_log": run.kernel_present,
                  "launcher": run.launcher, "slurm": run.slurm, "step_format": run.step_fmt})
    with open(os.path.join(d, "truth.json"), "w") as f:
        json.dump(truth, f, indent=1, sort_keys=True)
    return d, truth


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args(argv)
    rng = random.Random(a.seed)
    os.makedirs(a.out, exist_ok=True)
    causes = []
    while len(causes) < a.n:
        block = list(CAUSES)
        rng.shuffle(block)
        causes.extend(block)
    causes = causes[:a.n]
    for i, c in enumerate(causes):
        sub = random.Random(rng.getrandbits(64))
        d, truth = make_run(sub, i, c, a.out)
        print("%s\t%s\trank=%s\tnode=%s\t%d ranks" % (os.path.basename(d), c, truth["rank"], truth["node"], truth["ranks"]))


if __name__ == "__main__":
    main()
